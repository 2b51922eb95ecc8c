"""A per-user cache of entry-point discovery, one entry per sys.path directory.

Scanning site-packages opens every distribution's entry_points.txt: ~2 ms of each
`shaderbuild compile` in an environment with a hundred distributions.  A directory's
answer is reused while every stamp recorded with it (discovery.scan_dir) still has the
same mtime, so installing, upgrading or removing a distribution is seen on the next
run (installers write a *.dist-info directory once and replace it as a whole, which
changes the mtime of the directory holding it).  Stamps younger than RACY_NS are not trusted (a change within the same clock tick
would keep the mtime), so such directories are rescanned until they settle.  Any
problem with the file (missing, unreadable, another format) just means a rescan.
"""

from __future__ import annotations

import marshal
import os
import sys
import time

from .discovery import DirDists, Stamps, mtime_ns, scan_dir

RACY_NS = 2_000_000_000
MAX_DIRS = 64
FORMAT = 1


def cache_path() -> str:
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):            # unset, or relative (which the XDG spec says to ignore)
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "shaderbuild", f"entry-points-{sys.implementation.cache_tag}.marshal")


def _load(path: str) -> dict:
    try:
        with open(path, "rb") as f:
            data = marshal.loads(f.read())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    return data.get("dirs", {}) if isinstance(data, dict) and data.get("format") == FORMAT else {}


class DirCache:
    """The cached answers for one entry-point group; `get` per directory, then `save`."""

    def __init__(self, group: str) -> None:
        self.group = group
        self.path = cache_path()
        self.entries: dict[tuple[str, str], tuple[Stamps, DirDists]] = _load(self.path)
        self.used: list[tuple[str, str]] = []
        self.changed = False

    def get(self, directory: str) -> DirDists:
        key = (self.group, directory)
        self.used.append(key)
        hit = self.entries.get(key)
        if hit is not None and hit[0] and all(mtime_ns(p) == m for p, m in hit[0]):
            return hit[1]
        stamps, dists = scan_dir(directory, self.group)
        settled = time.time_ns() - RACY_NS
        if stamps and all(m < settled for _, m in stamps):
            self.entries[key] = (stamps, dists)
            self.changed = True
        elif hit is not None:
            del self.entries[key]
            self.changed = True
        return dists

    def save(self) -> None:
        if not self.changed:
            return
        keep = {k: self.entries[k] for k in self.used if k in self.entries}
        for k, v in self.entries.items():
            if len(keep) >= MAX_DIRS:
                break
            keep.setdefault(k, v)
        tmp = f"{self.path}.{os.getpid()}.tmp"
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            with open(tmp, "wb") as f:
                f.write(marshal.dumps({"format": FORMAT, "dirs": keep}))
            os.replace(tmp, self.path)
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass
