"""The issue-20 traceability map (tests/conformance_trace.py) cannot rot: every test it names exists (found
by parsing the test files with ast, nothing is run), every item has a test, a test claimed to execute calls
something that executes, and every item is either a located diagnostic or executed on lavapipe from SPIR-V
and from DXIL through dxil-spirv (or says in NOTES why not)."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest
from conformance_trace import DXIL_VK, ERROR, NOTES, ROUTES, SPIRV, TRACE, WARNING

ROOT = Path(__file__).resolve().parent.parent
BACKEND_SUFFIX = re.compile(r"-(spirv|dxil|dxil-vk)$")
# names whose call runs a shader (lang_util, res_util, the harness)
EXECUTORS = {"run_backend", "run_cs", "run_spirv", "run_dxil", "run_dxil_vk", "table_test", "cs", "draw",
             "run_graphics", "run_compute", "draw_twin", "run_twin"}
EXECUTED = {SPIRV, DXIL_VK, "dxil"}
# tests whose parametrize ids are another file's cases (loaded from it at import)
PARAMS_FROM = {"tests/lang/test_issue20_gaps12.py::test_dxc_rejects_also_for_dxil": "tests/front/test_dxc_rejects.py"}


class Module:
    """The module-level tests, helpers and string constants of one test file."""

    def __init__(self, path: Path) -> None:
        tree = ast.parse(path.read_text(), str(path))
        self.tests: dict[str, ast.AST] = {}
        self.helpers: dict[str, ast.AST] = {}
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                (self.tests if node.name.startswith("test_") else self.helpers)[node.name] = node
            elif isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name) and t.id.startswith("test_"):
                        self.tests[t.id] = node.value
            elif isinstance(node, ast.ClassDef):
                for m in node.body:
                    if isinstance(m, ast.FunctionDef) and m.name.startswith("test_"):
                        self.tests[f"{node.name}::{m.name}"] = m
        self.strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}

    def executes(self, name: str) -> bool:
        """The test (or a module-level helper it names, two levels deep) names a shader runner."""
        seen: set[str] = set()

        def calls(node: ast.AST, depth: int) -> bool:
            for n in ast.walk(node):
                # a runner called, or taken as a value (`run = vk.run_graphics`)
                used = n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else ""
                if used in EXECUTORS:
                    return True
                if depth and used in self.helpers and used not in seen:
                    seen.add(used)
                    if calls(self.helpers[used], depth - 1):
                        return True
            return False

        return calls(self.tests[name], 2)


@functools.cache
def module(rel: str) -> Module:
    return Module(ROOT / rel)


def split(test_id: str) -> tuple[str, str, str | None]:
    path, _, rest = test_id.partition("::")
    name, _, param = rest.partition("[")
    return path, name, param[:-1] if param else None


ALL_IDS = sorted({tid for entries in TRACE.values() for tid, _r in entries})


def test_every_item_has_a_test_with_known_routes():
    assert len(TRACE) >= 60
    for item, entries in TRACE.items():
        assert entries, item
        for tid, routes in entries:
            assert routes and set(routes) <= ROUTES, (item, tid, routes)
    assert set(NOTES) <= set(TRACE)


@pytest.mark.parametrize("test_id", ALL_IDS)
def test_named_test_exists(test_id):
    path, name, param = split(test_id)
    assert (ROOT / path).is_file(), path
    mod = module(path)
    assert name in mod.tests, f"{path} defines no {name}"
    if param is not None:
        # a parametrize id, or a row run per backend named without its backend: a string written in the file
        strings = module(PARAMS_FROM.get(f"{path}::{name}", path)).strings
        assert param in strings or BACKEND_SUFFIX.sub("", param) in strings, f"{test_id}: no such param"


@pytest.mark.parametrize("test_id", sorted({tid for entries in TRACE.values() for tid, r in entries
                                            if EXECUTED & set(r)}))
def test_executed_claims_call_a_runner(test_id):
    path, name, _param = split(test_id)
    assert module(path).executes(name), f"{test_id} is listed as executed but calls no shader runner"


def test_every_item_is_executed_on_both_lavapipe_routes_or_a_diagnostic():
    """The issue's bar: executed on lavapipe from SPIR-V and from DXIL through dxil-spirv, or, for the
    items about refusals and diagnostics, a located error or warning asserted."""
    short = []
    for item, entries in TRACE.items():
        covered = set().union(*(set(r) for _t, r in entries))
        if {SPIRV, DXIL_VK} <= covered or covered & {ERROR, WARNING} or item in NOTES:
            continue
        short.append(f"{item}: {sorted(covered)}")
    assert not short, "\n".join(short)


def test_the_checks_can_fail():
    """A misspelled test, a made-up row and a test that only compiles are caught."""
    mod = module("tests/lang/test_lang_d3d_numerics.py")
    assert "test_int_divison" not in mod.tests and "test_int_division" in mod.tests
    assert "no_such_row" not in mod.strings
    rej = module("tests/front/test_dxc_rejects.py")
    assert rej.executes("test_one_by_one_matrix_combines_as_a_scalar") and not rej.executes("test_dxc_rejects")
