"""Is a target up to date?  Stats first, hashes only when a stat differs.

The dependency list is the one the preprocessor reported on the last build, so a
header excluded by `#if` is not a dependency and editing it rebuilds nothing.
A dependency whose stat changed but whose content did not (a `touch`) is not a
reason to rebuild; its new stat is written back so the next check is stat-only.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from ..records import DataRecord, Record
from .files import FileState

_PART_LABELS = {
    "compiler": "compiler version",
    "plugin": "backend plugin version",
    "source": "source path",
    "outputs": "output paths",
}


class Status(DataRecord):
    fresh: bool
    reasons: list[str] = Record.factory(list)
    refreshed: bool = False      # stats in the record were updated (content unchanged)


def describe_part_changes(old: dict, new: dict) -> list[str]:
    """Human-readable differences between two key_parts dicts."""
    out = []
    old_opts, new_opts = old.get("options", {}), new.get("options", {})
    for name in sorted(set(old_opts) | set(new_opts)):
        a, b = old_opts.get(name), new_opts.get(name)
        if a == b:
            continue
        if name == "defines":
            da, db_ = dict(map(tuple, a or [])), dict(map(tuple, b or []))
            for d in sorted(set(da) | set(db_)):
                if da.get(d) != db_.get(d):
                    out.append(f"define {d} changed: {_show(da.get(d))} -> {_show(db_.get(d))}")
        else:
            out.append(f"option {name} changed: {a!r} -> {b!r}")
    for part, label in _PART_LABELS.items():
        if old.get(part) != new.get(part):
            out.append(f"{label} changed: {old.get(part)!r} -> {new.get(part)!r}")
    return out


def _show(value) -> str:
    return "(absent)" if value is None else repr(value)


def check(record: dict | None, cdigest: str, parts: dict, fs: FileState, *, force: bool = False,
          explain: bool = False, rescan: Callable[[], list[str]] | None = None, verify: bool = False) -> Status:
    """Decide freshness of one target from its database record.

    With `explain`, every reason is collected; otherwise the check stops at the first.
    With `verify`, every dependency and output is hashed even when its stat matches.
    When an include search directory gained or lost entries, `rescan()` (the
    preprocessor's dependency scan, as portable paths) decides whether the target
    now reads different files; without it such a target is stale.
    """
    if record is None:
        return Status(False, ["never built (no record in the build database)"])
    reasons: list[str] = []
    if force:
        reasons.append("--force")
        if not explain:
            return Status(False, reasons)
    if record.get("config") != cdigest:
        reasons.extend(describe_part_changes(record.get("parts", {}), parts) or ["build settings changed"])
        if not explain:
            return Status(False, reasons)
    refreshed = False
    for rows, what in ((record["deps"], "dependency"), (record["outputs"].values(), "output")):
        for row in rows:
            path = row[0]
            sig = fs.stat(path)
            if sig is None:
                reasons.append(f"{what} {path} is missing")
            elif verify or sig[0] != row[1] or sig[1] != row[2] or sig[2] != row[3]:
                if fs.sha(path) != row[4]:
                    reasons.append(f"{what} {path} changed" if what == "dependency"
                                   else f"output {path} was modified or corrupted (hash mismatch)")
                else:
                    row[1], row[2], row[3] = sig
                    refreshed = True
                    continue
            else:
                continue
            if not explain:
                return Status(False, reasons, refreshed)
    if not reasons:
        changed = [row for row in record.get("dirs", []) if (sig := fs.stat(row[0])) is None or sig[0] != row[1]]
        if changed:
            old = sorted(row[0] for row in record["deps"])
            new = sorted(rescan()) if rescan is not None else None
            if new == old:
                for row in changed:
                    sig = fs.stat(row[0])
                    row[1] = sig[0] if sig else 0
                refreshed = True
            elif new is None:
                reasons.append(f"directory {changed[0][0]} changed and dependencies cannot be rescanned")
            else:
                gone, added = sorted(set(old) - set(new)), sorted(set(new) - set(old))
                reasons.append("include resolution changed: " + "; ".join(
                    [f"now reads {p}" for p in added] + [f"no longer reads {p}" for p in gone]))
    return Status(not reasons, reasons, refreshed)


def rescanner(target, db, scan_fn: Callable | None = None) -> Callable[[], list[str]]:
    """A callable for check(): the target's dependencies per the preprocessor, as stored paths."""

    def rescan() -> list[str]:
        fn = scan_fn
        if fn is None:
            from ..compiler import scan_dependencies
            fn = scan_dependencies
        try:
            paths = fn(target.source, target.options)
        except Exception:  # noqa: BLE001 - an unscannable file must be rebuilt (and report its error)
            return []
        return [db.rel(os.path.abspath(p)) for p in {*paths, target.source}]

    return rescan
