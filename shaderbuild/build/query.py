"""Read-only questions about a built project, for the watch mode and the SCons tool.

They answer from the build database (the dependencies the preprocessor really
read on the last build) and fall back to a preprocessor scan for targets never
built, so a caller never needs to know the database layout.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from .database import BuildDB
from .config import Project
from .targets import Target


def dependencies(project: Project, target: Target, db: BuildDB | None = None) -> list[str]:
    """Absolute paths of every file `target` reads (last build; else a preprocessor scan)."""
    db = db or BuildDB.load(project.output_dir, project.root)
    record = db.targets.get(target.tid)
    if record is not None:
        return [db.abs(row[0]) for row in record["deps"]]
    from ..compiler import scan_dependencies

    try:
        return sorted({os.path.abspath(p) for p in scan_dependencies(target.source, target.options)} | {target.source})
    except Exception:  # noqa: BLE001 - an unscannable source still depends on itself
        return [target.source]


def affected(project: Project, targets: list[Target], changed: Iterable[str], db: BuildDB | None = None
             ) -> list[Target]:
    """Targets that read any of the `changed` paths on their last build, or were never built.

    This is the reverse dependency lookup of a hot-reload loop: pass the paths an
    editor saved, then build() the result.  (build() still decides by content, so
    a save that changed nothing compiles nothing.)
    """
    db = db or BuildDB.load(project.output_dir, project.root)
    paths = {db.rel(os.path.abspath(p)) for p in changed}
    out = []
    for t in targets:
        record = db.targets.get(t.tid)
        if record is None or any(row[0] in paths for row in record["deps"]):
            out.append(t)
    return out


def all_outputs(target: Target) -> list[str]:
    """Every file a target writes (for SCons emitters): binary, sidecars, and its blob."""
    return [*target.outputs.values(), *([target.blob] if target.blob else [])]
