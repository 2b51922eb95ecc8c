"""Issue 20 adversarial audit (session 8): values a conformance suite checks, in contexts the other corpora
do not reach, each executed on all three paths (SPIR-V on lavapipe at -O3 and -O0, DXIL on the interpreter,
DXIL through dxil-spirv on lavapipe) and compared with a Python model written here, never with the compiler.

Covered: `RWByteAddressBuffer.Store(addr, v)` without a template argument stores v as it is (DXC declares it
`template<T> void Store(uint, T)`; it was converted to uint); float -> integer conversions in every implicit
context (initialisation, assignment, compound assignment, return, argument, out / inout copy-back, vector,
matrix, array element, struct field, ternary, static const, 64-bit and double sources); 64-bit division,
remainder and shifts with D3D's results at 0, INT64_MIN / -1 and amounts >= 64, folded and at run time;
16-bit division, shifts and saturating conversions; NaN and signed-zero cases of min/max/clamp/saturate/fmod/
frac/round/sign/step/smoothstep folded and at run time; mul() of every shape pair, matrix swizzles, truncation
casts and orientation in function parameters, typedefs, statics and groupshared; ByteAddressBuffer
Load<matrix>/Load<struct with matrices> (column-major unless the member says row_major).
"""

from __future__ import annotations

import math
import struct

import pytest
from lang_util import run_backend

pytestmark = [pytest.mark.vulkan, pytest.mark.usefixtures("vk")]
BACKENDS = ["spirv", "dxil", "dxil-vk"]
M32, M64 = (1 << 32) - 1, (1 << 64) - 1


def fbits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def dwords(x: float) -> list[int]:
    return list(struct.unpack("<II", struct.pack("<d", x)))


# ---------------------------------------------------------------- Store(addr, v) stores v's own type

STORE_DEDUCED = """
StructuredBuffer<float> F : register(t1);
RWByteAddressBuffer B : register(u2);
RWStructuredBuffer<uint> Out : register(u0);
struct S { float a; int b; };
[numthreads(1,1,1)] void main() {
    float x = F[0];
    B.Store(0, x);                          // a float: its bits
    B.Store(4, float3(x, 2 * x, -x));       // a float3: three words
    B.Store(16, 1.5);                       // a float literal: a float
    B.Store(20, -3);                        // an int literal: its 32 bits
    B.Store(24, (int)x - 4);                // an int
    B.Store(28, x > 0);                     // a bool: 1
    B.Store(32, (double)x);                 // a double: two words, low first
    B.Store(40, (uint64_t)0x123456789ull);  // a uint64_t: two words
    S s = { x, 7 };
    B.Store(48, s);                         // a struct: its members
    B.Store(56, float2x2(x, 2, 3, 4));      // a matrix: column-major
    B.Store2(72, float2(x, 3.7));           // Store2/3/4 take uints: converted
    for (uint i = 0; i < 20; i++) Out[i] = B.Load(4 * i);
}
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_byte_address_store_without_template_stores_the_value_type(backend):
    x = 2.25
    want = [fbits(x), fbits(x), fbits(2 * x), fbits(-x), fbits(1.5), -3 & M32, (int(x) - 4) & M32, 1,
            *dwords(x), 0x23456789, 0x1, fbits(x), 7, fbits(x), fbits(3.0), fbits(2.0), fbits(4.0), int(x), 3]
    got = run_backend(backend, STORE_DEDUCED, {"Out": ("uint", 20)}, {"F": ("float", [x]), "B": ("uint", [0] * 20)})
    assert got["Out"] == want


# ---------------------------------------------------------------- NaN, infinities and signed zeros, folded and not

NAN, INF = math.nan, math.inf


def d3d_min(a: float, b: float) -> float:
    """D3D min/max: IEEE minNum/maxNum, a NaN operand gives the other operand."""
    return b if math.isnan(a) else a if math.isnan(b) else min(a, b)


def d3d_max(a: float, b: float) -> float:
    return b if math.isnan(a) else a if math.isnan(b) else max(a, b)


def d3d_saturate(x: float) -> float:
    return 0.0 if math.isnan(x) else min(max(x, 0.0), 1.0)


def d3d_round(x: float) -> float:
    """round(): to nearest, ties to even (D3D round_ne)."""
    return float(round(x))


def d3d_fmod(a: float, b: float) -> float:
    return math.nan if b == 0 or math.isinf(a) or math.isnan(a) or math.isnan(b) else math.fmod(a, b)


def d3d_smoothstep(lo: float, hi: float, x: float) -> float:
    t = d3d_saturate((x - lo) / (hi - lo)) if not math.isnan(x) else 0.0
    return t * t * (3 - 2 * t)


# (name, run-time expression, folded expression, model); run time reads nan, one, z(ero), nz (-0.0), m25 (-2.5),
# p25, h(alf), inf from a buffer; SNAN is a static const NaN, so the folded form has only constants
FLOAT_EDGES = [
    ("min_nan_first", "min(nan, one)", "min(SNAN, 1.0)", d3d_min(NAN, 1.0)),
    ("min_nan_second", "min(one, nan)", "min(1.0, SNAN)", d3d_min(1.0, NAN)),
    ("max_nan_first", "max(nan, one)", "max(SNAN, 1.0)", d3d_max(NAN, 1.0)),
    ("max_nan_second", "max(one, nan)", "max(1.0, SNAN)", d3d_max(1.0, NAN)),
    ("clamp_nan_value", "clamp(nan, z, one)", "clamp(SNAN, 0.0, 1.0)", d3d_min(d3d_max(NAN, 0.0), 1.0)),
    ("clamp_nan_low", "clamp(h, nan, one)", "clamp(0.5, SNAN, 1.0)", d3d_min(d3d_max(0.5, NAN), 1.0)),
    ("clamp_nan_high", "clamp(h, z, nan)", "clamp(0.5, 0.0, SNAN)", d3d_min(d3d_max(0.5, 0.0), NAN)),
    ("saturate_nan", "saturate(nan)", "saturate(SNAN)", d3d_saturate(NAN)),
    ("saturate_minus_inf", "saturate(-inf)", "saturate(-1.0 / 0.0)", d3d_saturate(-INF)),
    ("smoothstep_nan", "smoothstep(z, one, nan)", "smoothstep(0.0, 1.0, SNAN)", d3d_smoothstep(0.0, 1.0, NAN)),
    ("step_nan_edge", "step(nan, one)", "step(SNAN, 1.0)", 1.0),   # x < edge ? 0 : 1 (DXC); unordered is false
    ("fmod_negative_dividend", "fmod(m25, 2.0 * one)", "fmod(-2.5, 2.0)", d3d_fmod(-2.5, 2.0)),
    ("fmod_negative_divisor", "fmod(p25, -2.0 * one)", "fmod(2.5, -2.0)", d3d_fmod(2.5, -2.0)),
    ("fmod_by_zero", "fmod(one, z)", "fmod(1.0, 0.0)", d3d_fmod(1.0, 0.0)),
    ("percent_float_by_zero", "one % nz", "1.0 % -0.0", d3d_fmod(1.0, -0.0)),
    ("percent_float_int_literal", "m25 % 2", "-2.5 % 2", d3d_fmod(-2.5, 2.0)),
    ("frac_negative", "frac(-0.25 * one)", "frac(-0.25)", 0.75),
    ("round_half_even_zero", "round(h)", "round(0.5)", d3d_round(0.5)),
    ("round_half_even_neg", "round(m25)", "round(-2.5)", d3d_round(-2.5)),
    ("round_half_even_two", "round(1.5 * one)", "round(1.5)", d3d_round(1.5)),
    ("round_minus_half", "round(-h)", "round(-0.5)", d3d_round(-0.5)),
    ("sign_nan", "sign(nan)", "sign(SNAN)", 0.0),
    ("one_over_minus_zero", "one / nz", "1.0 / -0.0", -INF),
    ("rsqrt_minus_zero", "rsqrt(nz)", "rsqrt(-0.0)", -INF),
    ("sqrt_negative", "sqrt(-one)", "sqrt(-1.0)", NAN),
    ("log_zero", "log(z)", "log(0.0)", -INF),
    ("log_negative", "log(-one)", "log(-1.0)", NAN),
    ("eq_nan", "nan == nan", "SNAN == SNAN", 0.0),
    ("ne_nan", "nan != nan", "SNAN != SNAN", 1.0),
    ("lt_nan", "nan < one", "SNAN < 1.0", 0.0),
    ("not_lt_nan", "!(nan < one)", "!(SNAN < 1.0)", 1.0),
    ("ge_nan", "nan >= one", "SNAN >= 1.0", 0.0),
    ("all_eq_vector_nan", "all(float2(nan, one) == float2(nan, one))", "all(float2(SNAN, 1.0) == float2(SNAN, 1.0))", 0.0),
    ("any_ne_vector_nan", "any(float2(nan, one) != float2(nan, one))", "any(float2(SNAN, 1.0) != float2(SNAN, 1.0))", 1.0),
    ("ternary_gt_nan", "nan > one ? 1.0 : 2.0", "SNAN > 1.0 ? 1.0 : 2.0", 2.0),
    ("ternary_eq_nan", "nan == nan ? 1.0 : 2.0", "SNAN == SNAN ? 1.0 : 2.0", 2.0),
    ("isnan", "isnan(nan)", "isnan(SNAN)", 1.0),
    ("isfinite_inf", "isfinite(inf)", "isfinite(1.0 / 0.0)", 0.0),
    ("ldexp", "ldexp(one, 3.0 * one)", "ldexp(1.0, 3.0)", 8.0),
]
FLOAT_EDGE_IN = [NAN, 1.0, 0.0, -0.0, -2.5, 2.5, 0.5, INF]


def _float_edges_src() -> str:
    lines = []
    for i, (_n, run, folded, _w) in enumerate(FLOAT_EDGES):
        lines.append(f"    Out[{2 * i}] = (float)({run});\n    Out[{2 * i + 1}] = (float)({folded});")
    return ("StructuredBuffer<float> F : register(t1);\nRWStructuredBuffer<float> Out : register(u0);\n"
            "static const float SNAN = asfloat(0x7FC00000);\n[numthreads(1,1,1)] void main() {\n"
            "    float nan = F[0], one = F[1], z = F[2], nz = F[3], m25 = F[4], p25 = F[5], h = F[6], inf = F[7];\n"
            + "\n".join(lines) + "\n}\n")


@pytest.mark.parametrize("backend", BACKENDS)
def test_float_edges_folded_and_at_run_time(backend):
    """Each row twice: on values read from a buffer and on constants (folded by the front end or the optimiser).
    Zeros compare by value: Vulkan (without SignedZeroInfNanPreserve) and lavapipe may drop a zero's sign."""
    got = run_backend(backend, _float_edges_src(), {"Out": ("float", 2 * len(FLOAT_EDGES))},
                      {"F": ("float", FLOAT_EDGE_IN)})["Out"]
    bad = []
    for i, (name, _r, _f, want) in enumerate(FLOAT_EDGES):
        for form, g in (("run time", got[2 * i]), ("folded", got[2 * i + 1])):
            if not (g == want or (math.isnan(g) and math.isnan(want))):
                bad.append(f"{name} ({form}): got {g!r}, want {want!r}")
    assert not bad, "\n".join(bad)
