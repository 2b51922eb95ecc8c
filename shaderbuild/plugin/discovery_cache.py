"""A per-user cache of entry-point discovery, one entry per sys.path directory.

Scanning site-packages opens every distribution's entry_points.txt: ~2 ms of each
`shaderbuild compile` in an environment with a hundred distributions.  A directory's
answer is reused while every stamp recorded with it (discovery.scan_dir) still has the
same mtime, so installing, upgrading or removing a distribution is seen on the next
run (installers write a *.dist-info directory once and replace it as a whole, which
changes the mtime of the directory holding it).  Stamps younger than RACY_NS are not
trusted (a change within the same clock tick would keep the mtime), so such directories
are rescanned until they settle.  The file holds data only (JSON, user_cache.py) and is
read through `_decode`, which accepts exactly the shape `save` writes: anything else
(a corrupt, foreign or planted file) just means a rescan.
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
        self.entries: dict[tuple[str, str], tuple[Stamps, DirDists]] = _decode(user_cache.load(CACHE_NAME))
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
        user_cache.save(CACHE_NAME, [[g, d, stamps, dists] for (g, d), (stamps, dists) in keep.items()])


def _is_list_of(x: object, types: tuple[type, ...]) -> bool:
    return isinstance(x, list) and len(x) == len(types) and all(
        type(v) is t for v, t in zip(x, types))          # exact types: bool is not an int here


def _decode(data: object) -> dict[tuple[str, str], tuple[Stamps, DirDists]]:
    """The entries of a loaded cache file, or {} unless it has exactly the saved shape:
    [[group, directory, [[path, mtime_ns], ...], [[name, version, [[ep, value], ...]], ...]], ...]."""
    out: dict[tuple[str, str], tuple[Stamps, DirDists]] = {}
    if not isinstance(data, list):
        return out
    for row in data:
        if not (isinstance(row, list) and len(row) == 4 and type(row[0]) is str and type(row[1]) is str
                and isinstance(row[2], list) and isinstance(row[3], list)):
            return {}
        stamps, dists = row[2], row[3]
        if not all(_is_list_of(s, (str, int)) for s in stamps):
            return {}
        if not all(isinstance(d, list) and len(d) == 3 and type(d[0]) is str and type(d[1]) is str
                   and isinstance(d[2], list) and all(_is_list_of(e, (str, str)) for e in d[2]) for d in dists):
            return {}
        out[(row[0], row[1])] = (tuple((p, m) for p, m in stamps),
                                 tuple((n, v, tuple((e, x) for e, x in eps)) for n, v, eps in dists))
    return out
