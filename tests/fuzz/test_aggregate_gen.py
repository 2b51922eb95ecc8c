"""The aggregate generator (fuzz/aggregate_gen.py): its model of HLSL's aggregates on hand-checked values, and its
programs on every route (SPIR-V on lavapipe at -O3 and -O0, DXIL on the interpreter, DXIL through dxil-spirv on
lavapipe)."""

from __future__ import annotations

import random
import struct

import pytest
from lang_util import run_backend

from fuzz import aggregate_gen as g
from fuzz import routes
from fuzz.aggregate_gen import INT, Ty

pytestmark = [pytest.mark.vulkan, pytest.mark.llvm, pytest.mark.usefixtures("vk")]

S = Ty("struct", name="S", fields=(("x", INT), ("m", Ty("mat", 2, 2)),
                                   ("a", Ty("arr", 2, elem=Ty("arr", 3, elem=INT))), ("v", Ty("vec", 2))))


def test_initializer_order_is_fields_then_elements_then_matrix_rows() -> None:
    v = g.unflatten(S, list(range(1, 14)))
    assert v == {"x": 1, "m": [[2, 3], [4, 5]], "a": [[6, 7, 8], [9, 10, 11]], "v": [12, 13]}
    assert g.flatten(S, v) == list(range(1, 14))
    def lit(x: int, _s: str) -> str:
        return str(x)
    assert g.braces(S, v, lit) == "{1, {{2, 3}, {4, 5}}, {{6, 7, 8}, {9, 10, 11}}, {12, 13}}"
    assert g.braces(S, v, lit, lambda: True) == "{1, int2x2(2, 3, 4, 5), {{6, 7, 8}, {9, 10, 11}}, int2(12, 13)}"


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


W = Ty("struct", name="W", fields=(("h", Ty("int", s="half")), ("d", Ty("int", s="double")),
                                   ("b", Ty("vec", 3, s="bool")), ("s", Ty("arr", 2, elem=Ty("int", s="int16_t")))))


def test_wide_arithmetic_wraps_at_each_width_and_keeps_floats_exact() -> None:
    assert g.arith(0x7FFF, "+=", 1, "int16_t") == -0x8000
    assert g.arith(0xFFFF, "^=", 0x00FF, "uint16_t") == 0xFF00
    assert g.arith((1 << 64) - 1, "+=", 2, "uint64_t") == 1
    assert g.arith(-(1 << 63), "+=", -1, "int64_t") == (1 << 63) - 1
    assert g.arith(2.5, "+=", -8.0, "half") == -5.5
    with pytest.raises(g.Inexact):       # 1000.5 + 100.25 is beyond the halves a half holds exactly
        g.arith(1000.5, "+=", 100.25, "half")
    assert g.ops_of("bool") == ("=",) and "^=" not in g.ops_of("double")
    assert g.castable(-1.5, "float", "int16_t") and not g.castable(-0.5, "half", "uint16_t")
    assert not g.castable(70000, "int", "half") and g.castable(-2048, "int64_t", "half")


def test_wide_struct_bytes_follow_each_rule() -> None:
    """W = {half h; double d; bool3 b; int16_t s[2]}: D3D's structured layout aligns each member to its element
    (h@0, d@8, b@16, s@28, size 32); std430 aligns the double to 8 and the bool3 to 16 (b@16, s@28 too)."""
    v = {"h": -2.5, "d": 0.5, "b": [1, 0, 1], "s": [-1, 7]}
    for rule in ("dx_sb", "std430"):
        buf = bytearray(b"\xee" * 40)
        g.write(buf, 0, W, v, rule)
        want = (struct.pack("<e", -2.5) + b"\xee" * 6 + struct.pack("<d", 0.5)
                + struct.pack("<3I", 1, 0, 1) + struct.pack("<2h", -1, 7) + b"\xee" * 8)
        assert bytes(buf) == want, rule


def test_wide_programs_are_reproducible_and_checked() -> None:
    a, b = (g.generate_wide(random.Random("aggw:5")) for _ in range(2))
    assert a.source == b.source and a.buffers == b.buffers and a.expected == b.expected
    assert "Raw.Store<" in a.source and set(a.expected) == {"spirv", "dxil", "dxil-vk"}
    bad = {r: {n: bytes(len(x)) for n, x in bufs.items()} for r, bufs in a.expected.items()}
    assert len(g.wide_findings(bad, a)) == sum(len(bufs) for bufs in a.expected.values())
    assert g.wide_findings(a.expected, a) == []


@pytest.mark.parametrize("seed", range(3))
def test_wide_aggregate_programs_give_the_generators_bytes(seed: int) -> None:
    p = g.generate_wide(random.Random(f"aggw:{seed}"))
    got = routes.every_route(p.source, p.buffers, **g.OPTIONS)
    assert set(got) == {"spirv", "dxil", "dxil-vk"}
    assert g.wide_findings(got, p) == [], p.source


def test_a_struct_whose_later_elements_straddle_is_not_stored_structured() -> None:
    """campaign aw10 program 500 (generator bug): S1 = {S0 arr[2]; S0 s; int h0}, S0 = {int x; half f0;
    int16_t2 f1; uint16_t f2[2]} has a 52-byte std430 stride; element 2's f1 (bytes 110-113) would straddle 16
    bytes, so shaderbuild rounds the stride to 64 on purpose (as layout_gen knows); the generator checked only
    elements 0 and 1 and expected element 1 at byte 52."""
    s0 = Ty("struct", name="S0", fields=(("x", INT), ("f0", Ty("int", s="half")), ("f1", Ty("vec", 2, s="int16_t")),
                                         ("f2", Ty("arr", 2, elem=Ty("int", s="uint16_t")))))
    s1 = Ty("struct", name="S1", fields=(("arr", Ty("arr", 2, elem=s0)), ("s", s0), ("h0", INT)))
    assert not g._straddles(s1, 2) and g._straddles(s1)
    assert "Agg" not in g.generate_wide(random.Random("aw10:500")).source


def test_wide_programs_store_every_scalar_type() -> None:
    sources = [g.generate_wide(random.Random(f"aggw:{i}")).source for i in range(20)]
    for s in g.WIDE_SCALARS:
        store = "? 1u : 0u);" if s == "bool" else f"Out.Store<{s}>("
        assert any(store in src for src in sources), s
    assert any("RWStructuredBuffer<" in src for src in sources) and all("Raw.Store<S" in src or "Raw.Store<T0>" in src
                                                                          for src in sources)
