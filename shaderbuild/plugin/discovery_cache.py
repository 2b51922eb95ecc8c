"""A per-user cache of entry-point discovery, one entry per sys.path directory.

Scanning site-packages opens every distribution's entry_points.txt: ~2 ms of each
`shaderbuild compile` in an environment with a hundred distributions.  A directory's
answer is reused while every stamp recorded with it (discovery.scan_dir) still has the
same mtime, so installing, upgrading or removing a distribution is seen on the next
run (installers write a *.dist-info directory once and replace it as a whole, which
changes the mtime of the directory holding it).  Stamps younger than RACY_NS are not
trusted (a change within the same clock tick would keep the mtime), so such directories
are rescanned until they settle.  The file holds data only (text lines, user_cache.py) and
is read through `_decode`, which accepts exactly the lines `_encode` writes: anything else
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
        user_cache.save(CACHE_NAME, _encode(keep))


def _encode(entries: dict[tuple[str, str], tuple[Stamps, DirDists]]) -> str:
    """One line per fact, fields separated by tabs: `D group directory`, then its stamps
    `S path mtime_ns`, then its distributions `P name version`, each followed by its entry
    points `E name value`.  An entry with a tab or a line break in a string is left out
    (its directory is rescanned every time)."""
    lines: list[str] = []
    for (group, directory), (stamps, dists) in entries.items():
        rows = [("D", group, directory), *(("S", p, str(m)) for p, m in stamps)]
        for name, version, eps in dists:
            rows += [("P", name, version), *(("E", e, x) for e, x in eps)]
        if not any(_UNSAFE.intersection(f) for row in rows for f in row[1:]):
            lines += ["\t".join(row) for row in rows]
    return "".join(line + "\n" for line in lines)


_UNSAFE = frozenset("\t\n")     # the separators (the file is read without newline translation)


def _decode(text: str | None) -> dict[tuple[str, str], tuple[Stamps, DirDists]]:
    """The entries of a loaded cache file, or {} unless every line is one `_encode` writes, in
    its order (D, then S lines, then P lines each followed by its E lines)."""
    out: dict[tuple[str, str], tuple[Stamps, DirDists]] = {}
    if text is None or (text and not text.endswith("\n")):
        return out
    key: tuple[str, str] | None = None
    stamps: list[tuple[str, int]] = []
    dists: list[tuple[str, str, list[tuple[str, str]]]] = []
    for line in text.split("\n")[:-1]:
        fields = line.split("\t")
        if len(fields) != 3:
            return {}
        tag, a, b = fields
        if tag == "D":
            if key is not None:
                out[key] = (tuple(stamps), tuple((n, v, tuple(e)) for n, v, e in dists))
            key, stamps, dists = (a, b), [], []
        elif key is None:
            return {}
        elif tag == "S" and not dists and (b[1:] if b.startswith("-") else b).isdecimal() and str(int(b)) == b:
            stamps.append((a, int(b)))
        elif tag == "P":
            dists.append((a, b, []))
        elif tag == "E" and dists:
            dists[-1][2].append((a, b))
        else:
            return {}
    if key is not None:
        out[key] = (tuple(stamps), tuple((n, v, tuple(e)) for n, v, e in dists))
    return out
