"""Entry-point discovery without importing importlib.metadata.

`importlib.metadata` costs ~20 ms to import (it pulls in email, csv, zipfile, ...),
which is most of a cold `shaderbuild compile`.  Installed distributions keep their
entry points in `<name>-<version>.dist-info/entry_points.txt` (or `.egg-info`) on
sys.path, so scanning those directories directly finds the same plugins.  Path
entries that are not directories (zip files) fall back to importlib.metadata.
"""

from __future__ import annotations

import os
import re
import sys

from ..records import ValueRecord

_DIST_DIR_RE = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+?)(?:-py[\d.]+)?\.(?:dist|egg)-info$")


class EntryPoint(ValueRecord):
    name: str
    value: str          # "module" or "module:attr"
    dist_name: str
    dist_version: str

    def load(self) -> object:
        import importlib

        module_name, _, attr = self.value.partition(":")
        obj = importlib.import_module(module_name.strip())
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


def _dist_identity(dist_dir: str, dirname: str) -> tuple[str, str]:
    """Name and version from METADATA when present (exact spelling), else the directory name."""
    m = _DIST_DIR_RE.match(dirname)
    name, version = (m.group("name"), m.group("version")) if m else (dirname, "?")
    for meta in ("METADATA", "PKG-INFO"):
        try:
            with open(os.path.join(dist_dir, meta), encoding="utf-8", errors="replace") as f:
                head = f.read(2048)
        except OSError:
            continue
        nm = re.search(r"^Name:\s*(.+)$", head, re.MULTILINE)
        vm = re.search(r"^Version:\s*(.+)$", head, re.MULTILINE)
        return (nm.group(1).strip() if nm else name), (vm.group(1).strip() if vm else version)
    return name, version


def entry_points(group: str, path: list[str] | None = None) -> list[EntryPoint]:
    """All entry points of `group` from distributions on sys.path (first path entry wins per name)."""
    found: list[EntryPoint] = []
    seen_dists: set[str] = set()
    for entry in path if path is not None else sys.path:
        directory = entry or "."
        if not os.path.isdir(directory):
            if os.path.isfile(directory):
                found.extend(_from_importlib(group, directory))
            continue
        try:
            names = sorted(os.listdir(directory))
        except OSError:
            continue
        for dirname in names:
            if not dirname.endswith((".dist-info", ".egg-info")):
                continue
            dist_dir = os.path.join(directory, dirname)
            try:
                with open(os.path.join(dist_dir, "entry_points.txt"), encoding="utf-8") as f:
                    text = f.read()
            except OSError:
                continue
            if f"[{group}]" not in text:
                continue
            name, version = _dist_identity(dist_dir, dirname)
            key = name.lower().replace("_", "-")
            if key in seen_dists:
                continue
            seen_dists.add(key)
            found.extend(EntryPoint(n, v, name, version) for n, v in _parse_group(text, group))
    return found


def _from_importlib(group: str, zip_path: str) -> list[EntryPoint]:
    import importlib.metadata

    out = []
    for dist in importlib.metadata.distributions(path=[zip_path]):
        for ep in dist.entry_points:
            if ep.group == group:
                out.append(EntryPoint(ep.name, ep.value, dist.metadata["Name"], dist.version))
    return out
