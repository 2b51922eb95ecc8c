"""The reverse dependency graph of the watch mode: changed file -> targets to rebuild.

Seeded from the build database (the files the preprocessor read on each
target's last successful build) and updated after every compile with what that
compile read, so a header behind a false `#if` is not a dependency, and a
target that failed still depends on the files it tried to read.
"""

from __future__ import annotations

import builtins
import os
from collections import defaultdict
from collections.abc import Iterable


class DepGraph:
    def __init__(self) -> None:
        self._deps: dict[str, frozenset[str]] = {}            # target name -> absolute paths
        self._users: dict[str, set[str]] = defaultdict(set)   # absolute path -> target names

    def set(self, name: str, paths: Iterable[str]) -> None:
        self.drop(name)
        deps = frozenset(os.path.normpath(os.path.abspath(p)) for p in paths)
        self._deps[name] = deps
        for p in deps:
            self._users[p].add(name)

    def add(self, name: str, paths: Iterable[str]) -> None:
        """Union with the existing dependencies (a failed compile may have read fewer files)."""
        self.set(name, self._deps.get(name, frozenset()) | {os.path.abspath(p) for p in paths})

    def drop(self, name: str) -> None:
        for p in self._deps.pop(name, ()):
            users = self._users.get(p)
            if users is not None:
                users.discard(name)
                if not users:
                    del self._users[p]

    def retain(self, names: builtins.set[str]) -> None:
        for name in [n for n in self._deps if n not in names]:
            self.drop(name)

    def affected(self, paths: Iterable[str]) -> builtins.set[str]:
        out: builtins.set[str] = set()
        for p in paths:
            out |= self._users.get(p, set())
        return out

    def knows(self, path: str) -> bool:
        return path in self._users

    def directories(self) -> builtins.set[str]:
        return {os.path.dirname(p) for p in self._users}

    def __len__(self) -> int:
        return len(self._deps)


def from_database(project, targets) -> DepGraph:
    """A graph of `targets` from the project's build database (sources always included)."""
    from .build.database import BuildDB

    db = BuildDB.load(project.output_dir, project.root)
    graph = DepGraph()
    for t in targets:
        rec = db.targets.get(t.tid)
        deps = [db.abs(row[0]) for row in rec["deps"]] if rec else []
        graph.set(t.name, [t.source, *deps])
    return graph
