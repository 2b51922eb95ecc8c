"""Float edge cases where targets disagreed (issue 20, "silent wrong values"): comparisons with NaN
(`!=` unordered, the others ordered, as DXC emits), atan2 and the inverse trigonometric functions at
signed zeros (D3D's quadrant expansion, docs/CONFORMANCE.md), and the `dst` intrinsic.  Values are read
from a buffer so nothing folds; results are raw bits so a zero's sign counts."""

from __future__ import annotations

import math
import struct

import pytest
from lang_util import SlotTable, case, table_test

pytestmark = [pytest.mark.vulkan, pytest.mark.usefixtures("vk")]

F = [math.nan, 1.0, 0.0, -0.0, -1.0]
SETUP = "    float nan = F[0], one = F[1], z = F[2], nz = F[3], m1 = F[4];\n"


def bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def d3d_atan2(y: float, x: float) -> float:
    """The expansion DXC emits for D3D: atan(y / x), moved by +-pi when x < 0 (by the sign test y < 0,
    so y = -0 counts as positive), +-pi/2 when x == 0."""
    if x == 0:
        return -math.pi / 2 if y < 0 else math.pi / 2
    r = math.atan(y / x)
    if x < 0:
        r = r - math.pi if y < 0 else r + math.pi
    return r


NAMES = {"nan": math.nan, "one": 1.0, "z": 0.0, "nz": -0.0, "m1": -1.0}
CMP = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
       "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def _cases() -> list:
    out = []
    for i, (op, fn) in enumerate(CMP.items()):
        for a, b in (("nan", "nan"), ("nan", "one"), ("one", "nan"), ("z", "nz")):
            out.append(case(f"cmp{i}_{a}_{b}", f"({a} {op} {b}) ? 1u : 0u", int(fn(NAMES[a], NAMES[b]))))
        out.append(case(f"cmp{i}_vector_nan", f"dot((uint2)(float2(nan, one) {op} float2(one, one)), uint2(1, 2))",
                        int(fn(math.nan, 1.0)) + 2 * int(fn(1.0, 1.0))))
    for y, x in (("nz", "one"), ("z", "one"), ("z", "m1"), ("nz", "m1"), ("z", "z"), ("nz", "z"), ("m1", "z"),
                 ("one", "m1"), ("m1", "m1")):
        want = d3d_atan2(NAMES[y], NAMES[x])
        if want in (0.0, math.pi / 2, -math.pi / 2) or abs(want) == math.pi:   # exact: signs and constants
            out.append(case(f"atan2_{y}_{x}", f"asuint(atan2({y}, {x}))", bits(want)))
        else:
            out.append(case(f"atan2_{y}_{x}_x1e3", f"(uint)(int)round(atan2({y}, {x}) * 1000.0)",
                            round(want * 1000.0) & 0xFFFFFFFF))
    for fn in ("asin", "atan", "sin", "tan"):
        out.append(case(f"{fn}_negative_zero", f"asuint({fn}(nz))", bits(-0.0)))
    out.append(case("dst", "dot((uint4)dst(float4(9, 2, 3, 9) * one, float4(9, 5, 9, 7) * one), uint4(1000, 100, 10, 1))",
                    1 * 1000 + 10 * 100 + 3 * 10 + 7))
    return out


TABLE = SlotTable("d3d_float_edges", "uint", _cases(), setup=SETUP, inputs={"F": ("float", F)})
test_float_edges = table_test(TABLE)
