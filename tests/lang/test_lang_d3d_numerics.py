"""D3D's numeric rules where SPIR-V (and LLVM) leave the result undefined (issue 20, "silent wrong
values"; docs/CONFORMANCE.md lists them): float -> int/uint conversion saturates and maps NaN to 0,
integer division and remainder by zero, INT_MIN / -1, shift amounts masked to the bit width,
firstbithigh/firstbitlow of 0 and of 64-bit values.  Every operator is checked twice: on values read
from a buffer (run time) and on literals (folded by the front end), and both must give the value the
Python model below computes."""

from __future__ import annotations

import math
import struct

import pytest
from lang_util import SlotTable, case, compile_cs, table_test

pytestmark = [pytest.mark.vulkan, pytest.mark.usefixtures("vk")]

INT_MIN, INT_MAX, UINT_MAX = -(1 << 31), (1 << 31) - 1, (1 << 32) - 1


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def ftou(x: float) -> int:
    """D3D ftou: NaN -> 0, round toward zero, saturate to [0, 2^32 - 1]."""
    if math.isnan(x):
        return 0
    return UINT_MAX if x >= 2.0 ** 32 else 0 if x <= 0 else int(x)


def ftoi(x: float) -> int:
    """D3D ftoi: NaN -> 0, round toward zero, saturate to [INT_MIN, INT_MAX]; returned as raw bits."""
    if math.isnan(x):
        return 0
    v = INT_MAX if x >= 2.0 ** 31 else INT_MIN if x <= -(2.0 ** 31) else int(x)
    return v & UINT_MAX


def udiv(a: int, b: int) -> int:
    """D3D11 udiv: a zero divisor gives 0xFFFFFFFF for quotient and remainder."""
    return UINT_MAX if b == 0 else a // b


def umod(a: int, b: int) -> int:
    return UINT_MAX if b == 0 else a % b


def sdiv(a: int, b: int) -> int:
    """Signed division as D3D computes it (docs/CONFORMANCE.md): on magnitudes with udiv, then the sign
    fixed, so a zero divisor gives -1 for a >= 0 and 1 for a < 0, and INT_MIN / -1 is INT_MIN."""
    q = udiv(abs(a), abs(b))
    if (a < 0) != (b < 0):
        q = -q
    return q & UINT_MAX


def smod(a: int, b: int) -> int:
    """The remainder takes the dividend's sign: |a| urem |b|, negated when a < 0."""
    r = umod(abs(a), abs(b))
    return (-r if a < 0 else r) & UINT_MAX


def fbh_u(x: int, bits: int = 32) -> int:
    return UINT_MAX if x == 0 else x.bit_length() - 1


def fbh_s(x: int, bits: int = 32) -> int:
    """Signed firstbithigh: the first bit that differs from the sign bit, counted from bit 0."""
    if x < 0:
        x = ~x
    return fbh_u(x, bits)


def fbl(x: int) -> int:
    return UINT_MAX if x == 0 else (x & -x).bit_length() - 1


FLOATS = [-3.6, 1e10, -1e10, math.nan, math.inf, -math.inf, 3.99, 4294967040.0, 2147483520.0, -2147483904.0, 0.5]
FLOAT_LITERALS = {0: "-3.6", 1: "1e10", 2: "-1e10", 4: "(1.0 / 0.0)", 6: "3.99", 7: "4294967040.0",
                  8: "2147483520.0", 9: "-2147483904.0", 10: "0.5"}
INTS = [7, 0, -7, INT_MIN, -1, 33, 1, 65]
UINTS = [7, 0, UINT_MAX, 33, 0x80000000]


def _lit_i(v: int) -> str:
    return f"(int){v}" if v != INT_MIN else "(int)0x80000000"


def _conversion_cases() -> list:
    out = []
    for i, x in enumerate(FLOATS):
        xf = f32(x)
        out.append(case(f"ftou_{i}", f"(uint)F[{i}]", ftou(xf)))
        out.append(case(f"ftoi_{i}", f"(uint)(int)F[{i}]", ftoi(xf)))
        if i in FLOAT_LITERALS:
            out.append(case(f"ftou_{i}_folded", f"(uint){FLOAT_LITERALS[i]}", ftou(xf)))
            out.append(case(f"ftoi_{i}_folded", f"(uint)(int){FLOAT_LITERALS[i]}", ftoi(xf)))
    out.append(case("ftou_vector", "dot(uint2((uint2)float2(F[0], F[1])), uint2(1, 0x100))",
                    (ftou(f32(FLOATS[0])) + ftou(f32(FLOATS[1])) * 0x100) & UINT_MAX))
    return out


def _division_cases() -> list:
    out = []
    pairs = [(0, 1), (2, 1), (3, 4), (1, 1), (0, 4), (3, 6), (2, 5)]
    for a, b in pairs:
        x, y = INTS[a], INTS[b]
        for op, model in (("/", sdiv), ("%", smod)):
            name = "div" if op == "/" else "mod"
            out.append(case(f"s{name}_{a}_{b}", f"(uint)(I[{a}] {op} I[{b}])", model(x, y)))
            if y != 0:       # a constant zero divisor is a located error (test_constant_zero_divisor_is_an_error)
                out.append(case(f"s{name}_{a}_{b}_folded", f"(uint)({_lit_i(x)} {op} {_lit_i(y)})", model(x, y)))
    for a, b in [(0, 1), (2, 1), (1, 1), (2, 3), (4, 0)]:
        x, y = UINTS[a], UINTS[b]
        for op, model in (("/", udiv), ("%", umod)):
            name = "div" if op == "/" else "mod"
            out.append(case(f"u{name}_{a}_{b}", f"U[{a}] {op} U[{b}]", model(x, y)))
            if y != 0:
                out.append(case(f"u{name}_{a}_{b}_folded", f"{x}u {op} {y}u", model(x, y)))
    out.append(case("sdiv_vector_by_zero", "dot((uint2)(int2(I[0], I[2]) / int2(I[1], I[1])), uint2(1, 2))",
                    (sdiv(7, 0) + 2 * sdiv(-7, 0)) & UINT_MAX))
    return out


def _shift_cases() -> list:
    out = []
    for amount in (33, 65, 32, 31):
        sh = amount & 31
        out.append(case(f"shl_int_{amount}", f"(uint)(I[0] << (uint){amount}u)", (7 << sh) & UINT_MAX))
        out.append(case(f"shl_int_{amount}_runtime", f"(uint)(I[0] << (uint)(I[6] * {amount}))", (7 << sh) & UINT_MAX))
        out.append(case(f"shr_int_{amount}_runtime", f"(uint)(I[3] >> (uint)(I[6] * {amount}))", (INT_MIN >> sh) & UINT_MAX))
        out.append(case(f"shr_int_{amount}_folded", f"(uint)((int)0x80000000 >> {amount})", (INT_MIN >> sh) & UINT_MAX))
        out.append(case(f"shr_uint_{amount}_runtime", f"U[4] >> (uint)(I[6] * {amount})", 0x80000000 >> sh))
        out.append(case(f"shr_uint_{amount}_folded", f"0x80000000u >> {amount}", 0x80000000 >> sh))
    out.append(case("shl_64_masked_to_63", "(uint)(((uint64_t)(uint)I[6] << (uint)I[7]) >> 1)", (1 << (65 & 63)) >> 1))
    out.append(case("shl_64_masked_to_63_folded", "(uint)((1ull << 65) >> 1)", (1 << (65 & 63)) >> 1))
    return out


def _firstbit_cases() -> list:
    out = []
    for i, x in enumerate(UINTS):
        out.append(case(f"firstbithigh_u{i}", f"firstbithigh(U[{i}])", fbh_u(x)))
        out.append(case(f"firstbitlow_u{i}", f"firstbitlow(U[{i}])", fbl(x)))
        out.append(case(f"firstbithigh_u{i}_folded", f"firstbithigh({x}u)", fbh_u(x)))
        out.append(case(f"firstbitlow_u{i}_folded", f"firstbitlow({x}u)", fbl(x)))
    for i, x in enumerate(INTS):
        out.append(case(f"firstbithigh_i{i}", f"(uint)firstbithigh(I[{i}])", fbh_s(x)))
        out.append(case(f"firstbithigh_i{i}_folded", f"(uint)firstbithigh({_lit_i(x)})", fbh_s(x)))
    for k in (0, 5, 31, 32, 40, 63):
        v = 1 << k
        out.append(case(f"firstbithigh_u64_{k}", f"firstbithigh((uint64_t)(uint)I[6] << (uint){k}u)", fbh_u(v)))
        out.append(case(f"firstbitlow_u64_{k}", f"firstbitlow(((uint64_t)(uint)I[6] << (uint){k}u) | (1ull << 63))",
                        fbl(v | 1 << 63)))
    out.append(case("firstbithigh_u64_zero", "firstbithigh((uint64_t)U[1])", UINT_MAX))
    out.append(case("firstbitlow_u64_zero", "firstbitlow((uint64_t)U[1])", UINT_MAX))
    return out


INPUTS = {"I": ("int", INTS), "U": ("uint", UINTS)}   # (the DXIL runner binds only resources the shader uses)

CONVERSIONS = SlotTable("d3d_float_to_int", "uint", _conversion_cases(),
                        inputs={"F": ("float", [f32(x) for x in FLOATS])})
DIVISIONS = SlotTable("d3d_int_division", "uint", _division_cases(), inputs=INPUTS)
SHIFTS = SlotTable("d3d_shift_amounts", "uint", _shift_cases(), inputs=INPUTS)
FIRSTBIT = SlotTable("d3d_firstbit", "uint", _firstbit_cases(), inputs=INPUTS)

test_float_to_int = table_test(CONVERSIONS)
test_int_division = table_test(DIVISIONS)
test_shift_amounts = table_test(SHIFTS)
test_firstbit = table_test(FIRSTBIT)


@pytest.mark.parametrize("expr", ["7 / 0", "7u % 0u", "(int)I[0] / (int)0"])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_constant_zero_divisor_is_an_error(expr, target):
    """A zero divisor known at compile time is refused where it is written (the run-time value would be
    D3D's, but a constant one is a mistake)."""
    src = ("RWStructuredBuffer<uint> Out : register(u0);\nStructuredBuffer<int> I : register(t1);\n"
           f"[numthreads(1, 1, 1)]\nvoid main() {{\n    Out[0] = (uint)({expr});\n}}\n")
    res = compile_cs(src, target)
    assert not res.ok
    [err] = [d for d in res.diagnostics if d.severity == "error"]
    assert (err.message, err.loc.line) == ("division by zero", 5)
