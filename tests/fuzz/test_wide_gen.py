"""The 16/64-bit generator (fuzz/wide_gen.py): its rules on hand-checked values (docs/CONFORMANCE.md, "16-bit
and 64-bit types"), and its programs on every route (SPIR-V on lavapipe at -O3 and -O0, DXIL on the
interpreter, DXIL through dxil-spirv on lavapipe)."""

from __future__ import annotations

import math
import random
import struct

import pytest

from fuzz import routes
from fuzz import wide_gen as g
from fuzz.wide_gen import Node

pytestmark = [pytest.mark.vulkan, pytest.mark.llvm, pytest.mark.usefixtures("vk")]


def leaf(ty: str, v) -> Node:
    return Node("leaf", ty, value=v)


@pytest.mark.parametrize(("a", "b", "want"), [
    ("int16_t", "uint16_t", "uint16_t"), ("int16_t", "int", "int"), ("uint16_t", "int", "int"),
    ("int", "uint", "uint"), ("uint", "int64_t", "int64_t"), ("int64_t", "uint64_t", "uint64_t"),
    ("uint64_t", "half", "half"), ("half", "float", "float"), ("double", "int16_t", "double"),
    ("bool", "int16_t", "int"),
])
def test_promotion(a: str, b: str, want: str) -> None:
    assert g.promote(a, b) == g.promote(b, a) == want


@pytest.mark.parametrize(("node", "want"), [
    (Node("+", "int16_t", (leaf("int16_t", 0x7FFF), leaf("int16_t", 1))), -0x8000),        # wraps at 16 bits
    (Node("*", "uint16_t", (leaf("uint16_t", 300), leaf("uint16_t", 300))), 90000 - 65536),
    (Node("-", "uint16_t", (leaf("int16_t", -1), leaf("uint16_t", 1))), 0xFFFE),
    (Node("<<", "int16_t", (leaf("int16_t", 1), leaf("int", 17))), 2),                     # 17 & 15
    (Node(">>", "int16_t", (leaf("int16_t", -0x8000), leaf("uint64_t", 15))), -1),
    (Node("<<", "uint64_t", (leaf("uint64_t", 1), leaf("int16_t", 65))), 2),               # 65 & 63
    (Node(">>", "int64_t", (leaf("int64_t", -(1 << 63)), leaf("int", 63))), -1),
    (Node("/", "int16_t", (leaf("int16_t", -0x8000), leaf("int16_t", -1))), -0x8000),
    (Node("%", "int64_t", (leaf("int64_t", -7), leaf("int64_t", 0))), 1),
    (Node("/", "uint64_t", (leaf("uint64_t", 5), leaf("uint", 0))), (1 << 64) - 1),
    (Node("/", "int", (leaf("int16_t", -7), leaf("int", 2))), -3),
    (Node("cast", "int16_t", (leaf("float", 70000.5),)), 0x7FFF),
    (Node("cast", "uint16_t", (leaf("half", -1.5),)), 0),
    (Node("cast", "int64_t", (leaf("double", 1e300),)), (1 << 63) - 1),
    (Node("cast", "uint64_t", (leaf("float", math.nan),)), 0),
    (Node("cast", "int16_t", (leaf("int", 65536 + 5),)), 5),
    (Node("cast", "int64_t", (leaf("int16_t", -2),)), -2),                                 # sign-extends
    (Node("cast", "uint64_t", (leaf("int", -1),)), (1 << 64) - 1),
    (Node("cast", "half", (leaf("float", 65520.0),)), math.inf),                          # max + half ulp
    (Node("cast", "half", (leaf("int", 65519),)), 65504.0),
    (Node("cast", "half", (leaf("uint16_t", 2049),)), 2048.0),                            # ties to even
    (Node("cast", "float", (leaf("uint64_t", (1 << 53) + 1),)), 9007199254740992.0),
    (Node("cast", "float", (leaf("uint64_t", 0x1000001000000001),)), 2.0 ** 60 + 2.0 ** 37),  # rounded once
    (Node("cast", "double", (leaf("uint64_t", (1 << 64) - 1),)), 2.0 ** 64),
    (Node("+", "half", (leaf("half", 2048.0), leaf("half", 1.0))), 2048.0),
    (Node("+", "float", (leaf("half", 0.5), leaf("float", 16777216.0))), 16777216.0),
    (Node("/", "double", (leaf("double", 1.0), leaf("double", 3.0))), 1.0 / 3.0),
    (Node("cast", "half", (Node("*", "float", (leaf("half", 256.0), leaf("half", 256.0))),)), math.inf),
    (Node("<", "bool", (leaf("half", math.inf), leaf("double", 1e300))), False),
    (Node("<", "bool", (leaf("int16_t", -1), leaf("uint16_t", 1))), False),                  # -1 as 0xFFFF
    (Node("<", "bool", (leaf("int16_t", -1), leaf("int", 1))), True),
    (Node("<", "bool", (leaf("int", -1), leaf("uint", 1))), False),
    (Node("<", "bool", (leaf("int", -1), leaf("int64_t", 1))), True),
    (Node("!=", "bool", (leaf("half", math.nan), leaf("double", 1.0))), True),
    (Node("min", "half", (leaf("half", math.nan), leaf("half", 2.5))), 2.5),
    (Node("neg", "uint16_t", (leaf("uint16_t", 1),)), 0xFFFF),
    (Node("abs", "int16_t", (leaf("int16_t", -0x8000),)), -0x8000),
])
def test_the_evaluator_gives_the_documented_values(node: Node, want) -> None:
    assert g.evaluate(node) == want


def test_float_arithmetic_on_infinity_or_nan_is_left_open() -> None:
    """wide campaign fz10w3 program 85: `inf * abs(0.0) < x` is false in IEEE, but our DXIL's `fmul fast` (DXC's
    too) lets dxil-spirv's output on lavapipe fold the product to 0; fz10w program 62 had X / NaN taken for X / inf."""
    for node in (Node("*", "double", (leaf("double", math.inf), leaf("double", 0.0))),
                 Node("/", "double", (leaf("double", -math.inf), leaf("double", math.nan))),
                 Node("+", "float", (leaf("float", 3e38), leaf("float", 3e38))),        # overflows
                 Node("neg", "half", (leaf("half", math.inf),))):
        with pytest.raises(g.Unspecified):
            g.evaluate(node)


def test_the_evaluator_refuses_what_a_backend_may_do_differently() -> None:
    for node in (Node("min", "double", (leaf("double", 0.0), leaf("double", -0.0))),
                 Node("*", "half", (leaf("half", 0.5), leaf("half", 2.0 ** -14))),          # a denormal result
                 Node("/", "double", (leaf("double", 1.0), leaf("double", -0.0)))):
        with pytest.raises(g.Unspecified):
            g.evaluate(node)
    with pytest.raises(g.Unspecified):
        g._store_bytes("half", math.nan)
    with pytest.raises(g.Unspecified):
        g._store_bytes("double", -0.0)


def test_stored_bytes_have_the_values_width() -> None:
    assert g._store_bytes("int16_t", -2) == b"\xfe\xff"
    assert g._store_bytes("uint64_t", 1 << 63) == bytes(7) + b"\x80"
    assert g._store_bytes("half", 1.0) == struct.pack("<H", 0x3C00)
    assert g._store_bytes("bool", True) == b"\x01\0\0\0"


def test_values_are_placed_at_multiples_of_their_component_size() -> None:
    import re
    shifted = 0
    for seed in range(40):
        p = g.generate(random.Random(f"place:{seed}"))
        stores = re.findall(r"Out\.Store<(\w+)>\((\d+), ", p.source)
        assert [int(at) // g.SLOT for _t, at in stores] == list(range(g.OUT_SLOTS))
        for name, at in stores:
            ty, lanes = (name, "") if name in g.TYPES else (name[:-1], name[-1])
            size = g.TYPES[ty][1] // 8
            shift = int(at) % g.SLOT
            assert shift % size == 0 and shift + size * int(lanes or 1) <= g.SLOT
            assert p.expected[int(at) - shift:int(at)] == bytes([g.SENTINEL]) * shift
            shifted += shift % 4 != 0
    assert shifted                                  # some 16-bit values sit at 2-byte addresses


def test_programs_are_reproducible_and_never_contract() -> None:
    a, b = (g.generate(random.Random("wide:3")) for _ in range(2))
    assert a.source == b.source and a.expected == b.expected and len(a.expected) == g.SLOT * g.OUT_SLOTS

    def no_product_under_a_sum(n: Node, under_sum: bool) -> bool:
        if n.ty in g.FLOATS and n.op == "*" and under_sum:
            return False
        flag = n.ty in g.FLOATS and n.op in ("+", "-", "neg") or under_sum and n.op in ("cast", "?:")
        return all(no_product_under_a_sum(x, flag) for x in n.args)

    for seed in range(200):
        rng = random.Random(f"contract:{seed}")
        assert no_product_under_a_sum(g._Draw(rng).expr(rng.choice(g.FLOATS), 5), False)


def test_a_vector_tree_is_evaluated_lane_by_lane() -> None:
    """Each lane is the same tree over the leaves' lane values; literals become constructors, `?:` a select."""
    a, b = Node("leaf", "int16_t", value=0, slot=0), Node("leaf", "int", value=0, slot=1)
    cond = Node("<", "bool", (a, b))
    tree = Node("?:", "int", (cond, Node("+", "int16_t", (a, a)), b))
    comps = {0: [0x7FFF, -3], 1: [5, 100]}
    assert [g.evaluate(g._component(tree, comps, c)) for c in range(2)] == [5, -6]    # 0x7FFF < 5 is false, -3 < 100 true
    vec = g.Vec(2, comps)
    assert g.text(tree, False, vec) == "select((a0 < a1), (int2)((a0 + a0)), (int2)(a1))"
    assert g.text(a, True, vec) == "int16_t2(((int16_t)0x7FFFu), ((int16_t)0xFFFDu))"


@pytest.mark.parametrize("route", routes.ROUTES)
@pytest.mark.parametrize("seed", [0, 1, 4, 9, 10])       # 9 and 10 are scalar programs, the others vectors
def test_wide_programs_give_the_generators_values(seed: int, route: str) -> None:
    p = g.generate(random.Random(f"wide:{seed}"))
    got = routes.run(route, p.source, {"In": p.inputs, "Out": bytes([g.SENTINEL]) * len(p.expected)}, **g.OPTIONS)
    assert g.findings(got["Out"], p, route) == [], p.source
