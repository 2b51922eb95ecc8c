"""ARCHITECTURE.md names every module of the core and both backends in its layout table, so a new
module cannot land without its one line there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("shaderbuild", "plugins/spirv/shaderbuild_spirv", "plugins/dxil/shaderbuild_dxil")


def _sections(text: str) -> dict[str, set[str]]:
    """Package heading (### `path/`) -> the module names in its table's first column."""
    out: dict[str, set[str]] = {}
    current = None
    for line in text.splitlines():
        m = re.fullmatch(r"### `(.+)/`", line.strip())
        if m:
            current = out.setdefault(m.group(1), set())
        elif current is not None and line.startswith("| `"):
            current.add(line.split("`")[1])
    return out


def test_every_module_has_its_line():
    sections = _sections((ROOT / "ARCHITECTURE.md").read_text())
    missing = []
    for pkg in PACKAGES:
        listed = sections.get(pkg, set())
        for p in sorted((ROOT / pkg).rglob("*.py")):
            name = str(p.relative_to(ROOT / pkg))
            if name not in listed:
                missing.append(f"{pkg}/{name}")
    assert not missing, f"modules missing from ARCHITECTURE.md's layout table: {missing}"


def test_no_line_for_a_module_that_is_gone():
    sections = _sections((ROOT / "ARCHITECTURE.md").read_text())
    stale = [f"{pkg}/{name}" for pkg in PACKAGES for name in sections.get(pkg, set())
             if not (ROOT / pkg / name).exists()]
    assert not stale, f"ARCHITECTURE.md lists modules that do not exist: {stale}"
