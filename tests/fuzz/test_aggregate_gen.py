"""The aggregate generator (fuzz/aggregate_gen.py): its model of HLSL's aggregates on hand-checked values, and its
programs on every route (SPIR-V on lavapipe at -O3 and -O0, DXIL on the interpreter, DXIL through dxil-spirv on
lavapipe)."""

from __future__ import annotations

import random

import pytest
from lang_util import run_backend

from fuzz import aggregate_gen as g
from fuzz.aggregate_gen import INT, Ty

pytestmark = [pytest.mark.vulkan, pytest.mark.llvm, pytest.mark.usefixtures("vk")]

S = Ty("struct", name="S", fields=(("x", INT), ("m", Ty("mat", 2, 2)),
                                   ("a", Ty("arr", 2, elem=Ty("arr", 3, elem=INT))), ("v", Ty("vec", 2))))


def test_initializer_order_is_fields_then_elements_then_matrix_rows() -> None:
    v = g.unflatten(S, list(range(1, 14)))
    assert v == {"x": 1, "m": [[2, 3], [4, 5]], "a": [[6, 7, 8], [9, 10, 11]], "v": [12, 13]}
    assert g.flatten(S, v) == list(range(1, 14))
    assert g.braces(S, v, str) == "{1, {{2, 3}, {4, 5}}, {{6, 7, 8}, {9, 10, 11}}, {12, 13}}"
    assert g.braces(S, v, str, lambda: True) == "{1, int2x2(2, 3, 4, 5), {{6, 7, 8}, {9, 10, 11}}, int2(12, 13)}"


def test_an_int_variable_is_replaced_whole() -> None:
    """aggregate campaign fz10a (programs 34, 37, ...): `r ^= 10` on an int variable left the model unchanged (the
    empty path's value was computed and dropped)."""
    assert g.put(5, (), 7) == 7
    v = {"x": [1, 2]}
    assert g.put(v, (("f", "x"), ("i", 1)), 9) is v and v == {"x": [1, 9]}


def test_paths_reach_every_component() -> None:
    scalars = [p for p, t in g.subpaths(S) if t.kind == "int"]
    assert len(scalars) == 13
    v = g.unflatten(S, list(range(1, 14)))
    assert [g.get(v, p) for p in scalars] == list(range(1, 14))
    assert S.fields[2][1].dims() == "[2][3]" and S.fields[2][1].hlsl() == "int"


def test_programs_are_reproducible() -> None:
    a, b = (g.generate(random.Random("agg:3")) for _ in range(2))
    assert a.source == b.source and a.expected == b.expected and a.inputs == b.inputs
    assert 0 < len(a.expected) <= g.OUT_SLOTS


@pytest.mark.parametrize("backend", ["spirv", "dxil", "dxil-vk"])
@pytest.mark.parametrize("seed", range(4))
def test_aggregate_programs_give_the_generators_values(seed: int, backend: str) -> None:
    p = g.generate(random.Random(f"agg:{seed}"))
    got = run_backend(backend, p.source, {"Out": ("int", len(p.expected))}, {"In": ("int", p.inputs)})["Out"]
    assert got == p.expected, p.source
