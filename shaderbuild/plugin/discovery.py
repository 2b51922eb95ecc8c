"""Entry-point discovery without importing importlib.metadata.

`importlib.metadata` costs ~20 ms to import (it pulls in email, csv, zipfile, ...),
which is most of a cold `shaderbuild compile`.  Installed distributions keep their
entry points in `<name>-<version>.dist-info/entry_points.txt` (or `.egg-info`) on
sys.path, so scanning those directories directly finds the same plugins.  Path
entries that are not directories (zip files) fall back to importlib.metadata.
Files are read as bytes and only those naming our group are decoded and parsed,
with string methods (no regular expressions to compile on every start); the
answer per directory is cached (discovery_cache.py).
"""

from __future__ import annotations

import os
import sys

from ..records import ValueRecord

_DIST_SUFFIXES = (".dist-info", ".egg-info")


class EntryPoint(ValueRecord):
    name: str
    value: str          # "module" or "module:attr"
    dist_name: str
    dist_version: str

    def load(self) -> object:
        module_name, _, attr = self.value.partition(":")
        __import__(module_name.strip())     # importlib.import_module without the importlib package (~0.3 ms)
        obj = sys.modules[module_name.strip()]
        for part in filter(None, attr.strip().split(".")):
            obj = getattr(obj, part)
        return obj


def _parse_group(text: str, group: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = line.strip("[]").strip()
            continue
        if current == group and "=" in line:
            name, _, value = line.partition("=")
            out.append((name.strip(), value.strip()))
    return out


def _name_version_from_dirname(dirname: str) -> tuple[str, str]:
    """`name-version[-pyX.Y].dist-info` (or .egg-info) -> (name, version); (dirname, '?') otherwise."""
    stem = dirname.rpartition(".")[0]
    parts = stem.split("-")
    if len(parts) == 3 and parts[2].startswith("py") and parts[2][2:].replace(".", "").isdigit():
        parts.pop()
    if len(parts) == 2 and all(parts):
        return parts[0], parts[1]
    return dirname, "?"


def _header(head: str, field: str) -> str | None:
    prefix = field + ":"
    for line in head.splitlines():
        if line.startswith(prefix) and line[len(prefix):].strip():
            return line[len(prefix):].strip()
    return None


def _dist_identity(dist_dir: str, dirname: str) -> tuple[str, str]:
    """Name and version from METADATA when present (exact spelling), else the directory name."""
    name, version = _name_version_from_dirname(dirname)
    for meta in ("METADATA", "PKG-INFO"):
        try:
            with open(os.path.join(dist_dir, meta), encoding="utf-8", errors="replace") as f:
                head = f.read(2048)
        except OSError:
            continue
        return _header(head, "Name") or name, _header(head, "Version") or version
    return name, version


# One directory's distributions that declare the group: ((name, version, ((ep name, value), ...)), ...)
DirDists = tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...]
Stamps = tuple[tuple[str, int], ...]


def mtime_ns(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return -1


def scan_dir(directory: str, group: str) -> tuple[Stamps, DirDists]:
    """The distributions in `directory` declaring `group`, and the stamps (path, mtime) that
    change when that answer may: the directory (a distribution installed or removed adds or
    removes a *.dist-info directory), the files read from each matching distribution, and every
    egg-info's entry_points.txt (setuptools rewrites those in place)."""
    stamps = [(directory, mtime_ns(directory))]        # before listing: a later change is newer
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(_DIST_SUFFIXES))
    except OSError:
        return (), ()
    marker = f"[{group}]".encode()
    dists = []
    for dirname in names:
        dist_dir = os.path.join(directory, dirname)
        ep_file = os.path.join(dist_dir, "entry_points.txt")
        try:
            with open(ep_file, "rb") as f:
                data = f.read()
        except OSError:
            data = b""
        if marker not in data:
            if dirname.endswith(".egg-info"):
                stamps.append((ep_file, mtime_ns(ep_file)))
            continue
        name, version = _dist_identity(dist_dir, dirname)
        stamps += [(os.path.join(dist_dir, f), mtime_ns(os.path.join(dist_dir, f)))
                   for f in ("entry_points.txt", "METADATA", "PKG-INFO")]
        dists.append((name, version, tuple(_parse_group(data.decode("utf-8"), group))))
    return tuple(stamps), tuple(dists)


def entry_points(group: str, path: list[str] | None = None) -> list[EntryPoint]:
    """All entry points of `group` from distributions on sys.path (first path entry wins per name).
    For sys.path itself each directory's answer is cached while its stamps hold (discovery_cache)."""
    from . import discovery_cache

    cache = discovery_cache.DirCache(group) if path is None else None
    found: list[EntryPoint] = []
    seen_dists: set[str] = set()
    for entry in path if path is not None else sys.path:
        directory = os.path.abspath(entry or ".")
        if not os.path.isdir(directory):
            if os.path.isfile(directory):
                found.extend(_from_importlib(group, directory))
            continue
        dists = cache.get(directory) if cache is not None else scan_dir(directory, group)[1]
        for name, version, eps in dists:
            key = name.lower().replace("_", "-")
            if key not in seen_dists:
                seen_dists.add(key)
                found.extend(EntryPoint(n, v, name, version) for n, v in eps)
    if cache is not None:
        cache.save()
    return found


def _from_importlib(group: str, zip_path: str) -> list[EntryPoint]:
    import importlib.metadata

    out = []
    for dist in importlib.metadata.distributions(path=[zip_path]):
        for ep in dist.entry_points:
            if ep.group == group:
                out.append(EntryPoint(ep.name, ep.value, dist.metadata["Name"], dist.version))
    return out
