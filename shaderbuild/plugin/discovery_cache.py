"""A per-user cache of entry-point discovery, one entry per sys.path directory.

Scanning site-packages opens every distribution's entry_points.txt: ~2 ms of each
`shaderbuild compile` in an environment with a hundred distributions.  A directory's
answer is reused while every stamp recorded with it (discovery.scan_dir) still has the
same mtime, so installing, upgrading or removing a distribution is seen on the next
run (installers write a *.dist-info directory once and replace it as a whole, which
changes the mtime of the directory holding it).  Stamps younger than RACY_NS are not
trusted (a change within the same clock tick would keep the mtime), so such directories
are rescanned until they settle.  Any problem with the file (user_cache.py) just means
a rescan.
"""

from __future__ import annotations

import time

from .. import user_cache
from .discovery import DirDists, Stamps, mtime_ns, scan_dir

RACY_NS = 2_000_000_000
MAX_DIRS = 64
CACHE_NAME = "entry-points"


def cache_path() -> str:
    return user_cache.path_of(CACHE_NAME)


class DirCache:
    """The cached answers for one entry-point group; `get` per directory, then `save`."""

    def __init__(self, group: str) -> None:
        self.group = group
        self.entries: dict[tuple[str, str], tuple[Stamps, DirDists]] = user_cache.load(CACHE_NAME) or {}
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
        user_cache.save(CACHE_NAME, keep)
