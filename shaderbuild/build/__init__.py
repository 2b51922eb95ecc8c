"""The incremental shader build engine (`shaderbuild build`).

Public API (shared by the CLI, the watch mode and the SCons tool)::

    project = load_project("path/to/dir-or-shaderbuild.toml")
    targets = plan(project)                      # shader x entry x permutation x backend
    report = build(project, targets, jobs=4)     # -> BuildReport (built, up_to_date, failed, ...)
    status = is_up_to_date(project, targets[0])  # -> Status(fresh, reasons)
    stale = affected(project, targets, ["shaders/common.hlsli"])   # reverse dependency lookup
    deps = dependencies(project, targets[0])     # files the preprocessor read (or a scan)

Names are resolved lazily so `import shaderbuild.build` stays cheap.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "load_project": "config", "Project": "config", "ConfigFileError": "config", "ConfigError": "config",
    "plan": "targets", "select": "targets", "Target": "targets", "permutation_key": "targets",
    "build": "scheduler", "is_up_to_date": "scheduler",
    "BuildReport": "report", "BuildDB": "database", "Status": "deps",
    "explain": "explain", "clean": "clean",
    "dependencies": "query", "affected": "query", "all_outputs": "query",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(name)
    return getattr(importlib.import_module(f".{module}", __name__), name)
