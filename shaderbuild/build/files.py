"""File signatures: cheap stat tuples and content hashes, memoised per build run."""

from __future__ import annotations

import os

try:        # CPython's own SHA-256 (hashlib's fallback): hashlib loads OpenSSL, ~2 ms of every build start
    from _sha256 import sha256  # type: ignore[import-not-found]
except ImportError:
    from hashlib import sha256

StatSig = tuple[int, int, int]   # (mtime_ns, size, inode)


def stat_sig(path: str) -> StatSig | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def sha256_text(text: str) -> str:
    return sha256(text.encode("utf-8")).hexdigest()


def sha256_bytes(data: bytes) -> str:
    return sha256(data).hexdigest()


def sha256_file(path: str) -> str | None:
    from ..front.source_file import read_source

    try:   # a dependency replaced by a FIFO or a device must not block or stream forever here
        return sha256(read_source(path, limit=1 << 62)).hexdigest()   # small files: one read
    except OSError:
        return None


class FileState:
    """Per-run memo: many targets share includes, so each file is stat'ed (and hashed) once."""

    def __init__(self, root: str = "") -> None:
        self.root = root          # relative paths (as stored in the database) resolve against it
        self._stats: dict[str, StatSig | None] = {}
        self._hashes: dict[str, str | None] = {}

    def stat(self, path: str) -> StatSig | None:
        try:
            return self._stats[path]
        except KeyError:
            sig = self._stats[path] = stat_sig(os.path.join(self.root, path))
            return sig

    def sha(self, path: str) -> str | None:
        try:
            return self._hashes[path]
        except KeyError:
            h = self._hashes[path] = sha256_file(os.path.join(self.root, path))
            return h

    def forget(self, path: str) -> None:
        self._stats.pop(path, None)
        self._hashes.pop(path, None)
