"""The shared, content-addressed cache: compiled outputs keyed by the build engine's cache key.

A key is `cache.full_key(config digest, [(dependency, sha256), ...])`: it covers the
compile options, the compiler and plugin versions, the project-relative source and
output paths and the bytes of every file the preprocessor reads, so two checkouts of
the same project at different places share entries.

Stores are tiny byte stores behind one interface (`get`/`put`):

- `DirectoryStore`: a directory, local or on a network share; entries are written
  atomically (temp file + rename) so concurrent writers never expose half an entry.
- `RedisStore`: one Redis server (PyPI `redis`), imported only when used.
- `TieredStore`: a local directory in front of a shared store; shared hits are copied
  into the local directory, writes go to the shared store only in read-write mode.

Every entry carries the sha256 of its payload and of each file in it and is verified
on read: a corrupt, truncated or misplaced entry is a miss (and is dropped from the
store that returned it), never a wrong binary.  Entries are also sealed with an
HMAC under the cache key (cache_auth.py): an entry written without the key is
ignored and counted, so write access to the store alone cannot ship a binary.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import urlparse

from . import cache_auth
from .outputs import atomic_write

ENTRY_MAGIC = b"SBCACHE1"
ENTRY_FORMAT = "shaderbuild.cache/1"
_LEN = struct.Struct("<I")
MODES = ("read", "read-write")
REDIS_PREFIX = "shaderbuild:"


class CacheStore(Protocol):
    """A byte store addressed by hex keys.  Implementations must never raise on a miss."""

    def get(self, key: str) -> bytes | None: ...

    def put(self, key: str, data: bytes) -> None: ...

    def delete(self, key: str) -> None: ...

    def describe(self) -> str: ...

    def close(self) -> None: ...


class DirectoryStore:
    """Entries as files `<root>/<key[:2]>/<key>`; safe for several writers (atomic rename)."""

    def __init__(self, root: str) -> None:
        self.root = os.path.abspath(os.path.expanduser(root))

    def path(self, key: str) -> str:
        return os.path.join(self.root, key[:2], key)

    def get(self, key: str) -> bytes | None:
        try:
            with open(self.path(key), "rb") as f:
                return f.read()
        except OSError:
            return None

    def put(self, key: str, data: bytes) -> None:
        atomic_write(self.path(key), data)

    def delete(self, key: str) -> None:
        try:
            os.unlink(self.path(key))
        except OSError:
            pass

    def describe(self) -> str:
        return f"directory {self.root}"

    def close(self) -> None:
        pass


class RedisStore:
    """Entries as Redis string values under `shaderbuild:<key>`.

    A cache outage slows a build down, it never fails it: the first network error
    marks the store down for the rest of this process (no per-target timeouts and
    retries), and every later operation is a miss or a no-op.
    """

    def __init__(self, url: str, *, timeout: float = 5.0) -> None:
        import redis

        self.url = url
        self._errors = (redis.RedisError, OSError)
        self.client = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        self.error: str | None = None     # why the store is down

    def _call(self, op, *args):
        if self.error is not None:
            return None
        try:
            return op(*args)
        except self._errors as exc:
            self.error = f"{type(exc).__name__}: {exc}"
            return None

    def get(self, key: str) -> bytes | None:
        return self._call(self.client.get, REDIS_PREFIX + key)

    def put(self, key: str, data: bytes) -> None:
        self._call(self.client.set, REDIS_PREFIX + key, data)

    def delete(self, key: str) -> None:
        self._call(self.client.delete, REDIS_PREFIX + key)

    def describe(self) -> str:
        return f"redis {self.url}" + (f" (unavailable: {self.error})" if self.error else "")

    def close(self) -> None:
        self.client.close()


def open_store(spec: str) -> CacheStore:
    """`redis://host:port/db` (or rediss://) -> RedisStore; anything else is a directory path."""
    scheme = urlparse(spec).scheme
    if scheme in ("redis", "rediss", "unix"):
        return RedisStore(spec)
    if scheme == "file":
        return DirectoryStore(urlparse(spec).path)
    return DirectoryStore(spec)


# --- entries -------------------------------------------------------------------------------


@dataclass(slots=True)
class CacheEntry:
    """What one successful compile produced, independent of where the project lives."""

    key: str
    files: dict[str, bytes]               # 'binary', optionally 'disassembly'
    manifest: dict                        # 'source' is re-stamped by the reader
    messages: str = ""                    # warnings, with the project root written as ROOT_TOKEN
    diagnostics: list[dict] = field(default_factory=list)
    resources: list | None = None
    deps: list[str] = field(default_factory=list)   # portable paths the compiler read


ROOT_TOKEN = "<shaderbuild:project-root>"


def encode_entry(entry: CacheEntry) -> bytes:
    """MAGIC, sha256(payload), payload = len(header) + header JSON + file bytes."""
    names = sorted(entry.files)
    header = {
        "format": ENTRY_FORMAT, "key": entry.key, "manifest": entry.manifest, "messages": entry.messages,
        "diagnostics": entry.diagnostics, "resources": entry.resources, "deps": entry.deps,
        "files": [[n, len(entry.files[n]), hashlib.sha256(entry.files[n]).hexdigest()] for n in names],
    }
    head = json.dumps(header, sort_keys=True, separators=(",", ":")).encode("utf-8")
    payload = b"".join([_LEN.pack(len(head)), head, *(entry.files[n] for n in names)])
    return ENTRY_MAGIC + hashlib.sha256(payload).digest() + payload


def decode_entry(data: bytes, key: str) -> CacheEntry | None:
    """The entry, or None when `data` is not a complete, intact entry for `key`."""
    start = len(ENTRY_MAGIC) + 32
    if len(data) < start + _LEN.size or not data.startswith(ENTRY_MAGIC):
        return None
    payload = memoryview(data)[start:]
    if hashlib.sha256(payload).digest() != data[len(ENTRY_MAGIC):start]:
        return None
    try:
        (n,) = _LEN.unpack_from(payload, 0)
        header = json.loads(bytes(payload[_LEN.size:_LEN.size + n]))
        pos = _LEN.size + n
        files = {}
        for name, size, sha in header["files"]:
            blob = bytes(payload[pos:pos + size])
            if len(blob) != size or hashlib.sha256(blob).hexdigest() != sha:
                return None
            files[name] = blob
            pos += size
        if pos != len(payload) or header["format"] != ENTRY_FORMAT or header["key"] != key or "binary" not in files:
            return None
        return CacheEntry(key, files, header["manifest"], header["messages"], header["diagnostics"],
                          header["resources"], header["deps"])
    except (ValueError, KeyError, TypeError, struct.error):
        return None


def checked_entry(entry: CacheEntry | None) -> CacheEntry | None:
    """`entry` when its fields have the shapes of a local build record (validate.cache_entry):
    an intact entry with odd fields (resources as a string, non-UTF-8 text) is a miss, not a crash."""
    from .validate import cache_entry

    return entry if entry is not None and cache_entry(entry) else None


def _intact(data: bytes) -> bool:
    """The entry's own sha256 holds (damage, as opposed to forgery); nothing is parsed."""
    start = len(ENTRY_MAGIC) + 32
    return data.startswith(ENTRY_MAGIC) and hashlib.sha256(data[start:]).digest() == data[len(ENTRY_MAGIC):start]


# --- the cache as the build sees it ---------------------------------------------------------


@dataclass(slots=True)
class CacheStats:
    hits: int = 0
    misses: int = 0
    corrupt: int = 0
    unauthenticated: int = 0     # no seal, or a seal made with another key
    stored: int = 0


class TieredStore:
    """A local directory in front of a shared store (either may be None)."""

    def __init__(self, local: CacheStore | None, shared: CacheStore | None, *, writable: bool) -> None:
        self.local, self.shared, self.writable = local, shared, writable

    def layers(self) -> list[CacheStore]:
        return [s for s in (self.local, self.shared) if s is not None]

    def describe(self) -> str:
        parts = [f"local {self.local.describe()}"] if self.local else []
        if self.shared:
            parts.append(f"shared {self.shared.describe()} ({'read-write' if self.writable else 'read-only'})")
        return ", ".join(parts) or "none"

    def close(self) -> None:
        for s in self.layers():
            s.close()


class SharedCache:
    """Lookup/store of `CacheEntry`s with verification; `mode` is 'read' or 'read-write'
    for the shared layer (developers read what CI wrote; the local layer is always written)."""

    def __init__(self, shared: CacheStore | None = None, *, local: CacheStore | None = None,
                 mode: str = "read", key: bytes | None = None) -> None:
        if mode not in MODES:
            raise ValueError(f"cache mode must be one of {', '.join(MODES)}, not {mode!r}")
        self.mode = mode
        self.tiers = TieredStore(local, shared, writable=mode == "read-write")
        self.stats = CacheStats()
        self.secret = key        # None: nothing is trusted, so nothing is read or written

    def describe(self) -> str:
        text = self.tiers.describe()
        return text if self.secret is not None else f"{text} (not used: no cache key, see {cache_auth.KEY_ENV})"

    def _open(self, data: bytes, key: str) -> CacheEntry | None | bool:
        """The entry; None when damaged; False when not sealed with our key.  The tag is checked
        before anything is parsed; an unauthenticated value is only hashed, to classify it."""
        assert self.secret is not None     # lookup() reads nothing without a key
        parts = cache_auth.split(data)
        if parts is None or not cache_auth.verify(self.secret, key, *parts):
            body = data if parts is None else parts[1]
            return False if _intact(body) else None
        return checked_entry(decode_entry(parts[1], key))

    def lookup(self, key: str) -> CacheEntry | None:
        if self.secret is None:
            self.stats.misses += 1
            return None
        for i, store in enumerate(self.tiers.layers()):
            data = store.get(key)
            if data is None:
                continue
            entry = self._open(data, key)
            if not isinstance(entry, CacheEntry):
                if entry is None:
                    self.stats.corrupt += 1
                else:
                    self.stats.unauthenticated += 1
                if store is self.tiers.local or self.tiers.writable:
                    store.delete(key)
                continue
            if i > 0 and self.tiers.local is not None:
                self.tiers.local.put(key, data)
            self.stats.hits += 1
            return entry
        self.stats.misses += 1
        return None

    def store(self, entry: CacheEntry) -> None:
        if self.secret is None:
            return
        data = cache_auth.seal(self.secret, entry.key, encode_entry(entry))
        wrote = False
        if self.tiers.local is not None:
            self.tiers.local.put(entry.key, data)
            wrote = True
        if self.tiers.shared is not None and self.tiers.writable:
            self.tiers.shared.put(entry.key, data)
            wrote = True
        self.stats.stored += wrote

    def close(self) -> None:
        self.tiers.close()
