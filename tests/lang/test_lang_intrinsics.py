"""Executed HLSL intrinsics: the math library (expected values from Python's math module,
compared within Vulkan's precision limits for transcendentals and exactly elsewhere), mul in
every form, matrix functions, bit operations and bit casts, half packing, classification,
Interlocked* on buffer elements and groupshared, group barriers (a groupshared reduction) and
wave operations (lavapipe runs 8-lane subgroups; expectations are computed for that)."""

from __future__ import annotations

import math
import struct

import lang_util
import pytest
from lang_util import SENTINEL, SlotTable, case, compile_cs, f32, run_backend, run_cs, table_test

pytestmark = [pytest.mark.vulkan, pytest.mark.usefixtures("vk")]

XS = [0.5, -1.25, 2.0, 3.0, 0.25, 10.0, -0.75, 1.0]
x, y, two, three, q, ten, n75, one = (f32(v) for v in XS)
SETUP = ("    float x = In[0], y = In[1], two = In[2], three = In[3], q = In[4], ten = In[5], n75 = In[6], one = In[7];\n"
         "    float3 v3 = float3(x, y, two); float3 w3 = float3(three, q, n75);\n")
IN = {"In": ("float", XS)}
T = dict(ulps=256, abs_tol=2e-6)  # transcendental tolerance (Vulkan: 3 ULP + range-dependent absolute error)
TRIG = dict(ulps=256, abs_tol=5e-4)  # sin/cos/tan: Vulkan allows 2^-11 absolute error


def v3(*c):
    return tuple(float(a) for a in c)


def dot(a, b):
    return sum(p * r for p, r in zip(a, b))


def norm(a):
    n = math.sqrt(dot(a, a))
    return tuple(c / n for c in a)


def smoothstep(e0, e1, v):
    t = min(max((v - e0) / (e1 - e0), 0.0), 1.0)
    return t * t * (3 - 2 * t)


def reflect(i, n):
    d = dot(n, i)
    return tuple(a - 2 * d * b for a, b in zip(i, n))


def refract(i, n, eta):
    d = dot(n, i)
    k = 1 - eta * eta * (1 - d * d)
    if k < 0:
        return tuple(0.0 for _ in i)
    return tuple(eta * a - (eta * d + math.sqrt(k)) * b for a, b in zip(i, n))


V3, W3 = (x, y, two), (three, q, n75)

MATH = SlotTable("math_scalar", "float", [
    case("abs", "abs(y)", abs(y)),
    case("sqrt", "sqrt(ten)", math.sqrt(ten), **T),
    case("rsqrt", "rsqrt(q)", 2.0, **T),
    case("rcp", "rcp(q)", 4.0, ulps=1),
    case("exp", "exp(x)", math.exp(x), **T),
    case("exp2", "exp2(three)", 8.0, **T),
    case("log", "log(ten)", math.log(ten), **T),
    case("log2", "log2(ten)", math.log2(ten), **T),
    case("log10", "log10(ten * ten)", 2.0, **T),
    case("pow", "pow(two, three)", 8.0, **T),
    case("sin", "sin(x)", math.sin(x), **TRIG),
    case("cos", "cos(x)", math.cos(x), **TRIG),
    case("tan", "tan(x)", math.tan(x), **TRIG),
    case("asin", "asin(x)", math.asin(x), **TRIG),
    case("acos", "acos(x)", math.acos(x), **TRIG),
    case("atan", "atan(y)", math.atan(y), **TRIG),
    case("atan2", "atan2(y, x)", math.atan2(y, x), **TRIG),
    case("sinh", "sinh(x)", math.sinh(x), **T),
    case("cosh", "cosh(x)", math.cosh(x), **T),
    case("tanh", "tanh(x)", math.tanh(x), **T),
    case("floor", "floor(y)", -2.0),
    case("ceil", "ceil(y)", -1.0),
    case("trunc", "trunc(y)", -1.0),
    case("round_down", "round(2.4 * one)", 2.0),
    case("round_negative", "round(-2.6 * one)", -3.0),
    case("frac_negative", "frac(y)", 0.75),  # x - floor(x)
    case("frac_positive", "frac(ten + q)", 0.25),
    case("fmod_positive", "fmod(ten, three)", 1.0),
    case("fmod_negative", "fmod(-ten, three)", -1.0),  # sign of the dividend
    case("min", "min(x, y)", y),
    case("max", "max(x, y)", x),
    case("clamp", "clamp(ten, y, three)", three),
    case("saturate_high", "saturate(two)", 1.0),
    case("saturate_low", "saturate(y)", 0.0),
    case("saturate_mid", "saturate(q)", q),
    case("lerp", "lerp(two, ten, q)", two + (ten - two) * q, ulps=1),
    case("mad", "mad(two, three, q)", two * three + q),
    case("step_ge", "step(x, two)", 1.0),  # x <= two
    case("step_lt", "step(two, x)", 0.0),
    case("sign_negative", "(float)sign(y)", -1.0),
    case("sign_zero", "(float)sign(x - x)", 0.0),
    case("smoothstep", "smoothstep(0.0, two, x)", smoothstep(0.0, two, x), ulps=4),
    case("smoothstep_clamped", "smoothstep(0.0, two, ten)", 1.0, ulps=4),
    case("degrees", "degrees(x)", math.degrees(x), ulps=4),
    case("radians", "radians(ten * 18)", math.pi, ulps=4),
    case("ldexp", "ldexp(three, two)", 12.0, **T),
    case("ldexp_fractional_exponent", "ldexp(three, q)", 3.0 * 2.0 ** 0.25, **T),   # HLSL: x * exp2(e), e not rounded
    case("dot3", "dot(v3, w3)", dot(V3, W3)),
    case("length", "length(v3)", math.sqrt(dot(V3, V3)), **T),
    case("distance", "distance(v3, w3)", math.dist(V3, W3), **T),
    case("modf_frac", "float ip; R = modf(ten + q, ip);", 0.25, stmt=True),
    case("modf_int_part", "float ip; modf(-ten - q, ip); R = ip;", -10.0, stmt=True),
    case("frexp_mantissa", "float e; R = frexp(ten, e);", 0.625, stmt=True),
    case("frexp_exponent", "float e; frexp(ten, e); R = e;", 4.0, stmt=True),
    case("sincos_sin", "float s, c; sincos(x, s, c); R = s;", math.sin(x), stmt=True, **TRIG),
    case("sincos_cos", "float s, c; sincos(x, s, c); R = c;", math.cos(x), stmt=True, **TRIG),
    case("determinant_2x2", "float2x2 m = {two, 1, three, ten}; R = determinant(m);", two * ten - three, ulps=2,
         stmt=True),
    case("determinant_3x3", "float3x3 m = {2, 0, 1, 1, 3, 2, 1, 1, 1}; R = determinant(m * one);",
         2 * (3 - 2) - 0 + 1 * (1 - 3), ulps=4, stmt=True),
    case("determinant_4x4", "float4x4 m = {1, 0, 2, -1, 3, 0, 0, 5, 2, 1, 4, -3, 1, 0, 5, 0}; R = determinant(m * one);",
         30.0, ulps=8, stmt=True),
    case("abs_min_value_int", "(float)abs((int)(y * 4))", 5.0),
    case("max_int", "(float)max((int)ten, (int)three)", 10.0),
    case("min_uint", "(float)min((uint)ten, (uint)three)", 3.0),
    case("clamp_int", "(float)clamp((int)(y * 8), -3, 3)", -3.0),
    case("sign_int", "(float)sign((int)(y * 4))", -1.0),
    case("mad_int", "(float)mad((int)two, (int)three, (int)ten)", 16.0),
    case("dot_int", "(float)dot(int3(1, 2, 3) * (int)one, int3(4, 5, 6))", 32.0),
], setup=SETUP, inputs=IN)

VECTOR_MATH = SlotTable("math_vector", "float4", [
    case("normalize", "float4(normalize(v3), 0)", norm(V3) + (0.0,), **T),
    case("cross", "float4(cross(v3, w3), 0)", (V3[1] * W3[2] - V3[2] * W3[1], V3[2] * W3[0] - V3[0] * W3[2],
                                               V3[0] * W3[1] - V3[1] * W3[0], 0.0)),
    case("reflect", "float4(reflect(v3, float3(0, 1, 0)), 0)", reflect(V3, (0.0, 1.0, 0.0)) + (0.0,)),
    case("refract", "float4(refract(normalize(v3), float3(0, 0, 1), 0.5), 0)",
         refract(norm(V3), (0.0, 0.0, 1.0), 0.5) + (0.0,), **T),
    case("faceforward_flips", "float4(faceforward(float3(0, 0, 1), float3(0, 0, 1), float3(0, 0, 1)), 0)",
         (0.0, 0.0, -1.0, 0.0)),  # dot(i, ng) >= 0 -> -n
    case("faceforward_keeps", "float4(faceforward(float3(0, 0, 1), float3(0, 0, -1), float3(0, 0, 1)), 0)",
         (0.0, 0.0, 1.0, 0.0)),
    case("lit", "lit(x, ten, two)", (1.0, x, 0.0 if x < 0 or ten < 0 else ten ** two, 1.0), ulps=256),
    case("abs_vector", "float4(abs(v3), 1)", (abs(x), abs(y), abs(two), 1.0)),
    case("min_vector", "float4(min(v3, w3), 0)", tuple(min(a, b) for a, b in zip(V3, W3)) + (0.0,)),
    case("max_vector_scalar", "float4(max(v3, 0.0), 0)", tuple(max(a, 0.0) for a in V3) + (0.0,)),
    case("clamp_vector", "float4(clamp(v3, -1, 1), 0)", tuple(min(max(a, -1.0), 1.0) for a in V3) + (0.0,)),
    case("lerp_vector_weights", "float4(lerp(v3, w3, float3(0, 0.5, 1)), 0)",
         (x, y + (q - y) * 0.5, n75, 0.0), ulps=1),
    case("floor_vector", "float4(floor(v3), 0)", tuple(float(math.floor(a)) for a in V3) + (0.0,)),
    case("sqrt_vector", "float4(sqrt(float3(q, one, ten * ten)), 0)", (0.5, 1.0, 10.0, 0.0), **T),
    case("step_vector", "float4(step(float3(0, 0, 0), v3), 0)", (1.0, 0.0, 1.0, 0.0)),
    case("sign_vector", "float4(sign(v3), 0)", (1.0, -1.0, 1.0, 0.0)),
    case("saturate_vector", "float4(saturate(v3), 1)", (x, 0.0, 1.0, 1.0)),
    case("frac_vector", "float4(frac(float3(y, ten + q, -q)), 0)", (0.75, 0.25, 0.75, 0.0)),
    case("transpose_rows", "float2x3 m = {1, 2, 3, 4, 5, 6}; float3x2 t = transpose(m * one); R = float4(t[0], t[2]);",
         (1.0, 4.0, 3.0, 6.0), stmt=True),
    case("any_all", "bool3 b = v3 > 0; R = float4(any(b), all(b), any(v3 > ten), all(w3 != 0));", (1.0, 0.0, 0.0, 1.0),
         stmt=True),
    case("and_or_select", "R = float4(select(and(v3 > 0, w3 > 0), v3, w3), 0);", (x, q, n75, 0.0), stmt=True),
    case("isnan_isinf_isfinite", "float n = asfloat(0x7FC00000u * (uint)one); float i = asfloat(0x7F800000u * (uint)one);"
         " R = float4(isnan(n), isinf(i), isfinite(i), isfinite(ten));", (1.0, 1.0, 0.0, 1.0), stmt=True),
    case("isnan_vector", "float2 n = float2(asfloat(0xFFC00000u * (uint)one), x); R = float4(isnan(n), isinf(-n.x), 0);",
         (1.0, 0.0, 0.0, 0.0), stmt=True),
], setup=SETUP, inputs=IN)

# ---------------------------------------------------------------- mul in all forms

A23 = [[1, 2, 3], [4, 5, 6]]
B32 = [[7, 8], [9, 10], [11, 12]]
M22 = [[1, 2], [3, 4]]


def matmul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


def vecmat(v, m):
    return [sum(v[k] * m[k][j] for k in range(len(v))) for j in range(len(m[0]))]


def matvec(m, v):
    return [sum(m[i][k] * v[k] for k in range(len(v))) for i in range(len(m))]


def pad4(xs):
    xs = [float(c) for c in xs]
    return tuple(xs + [0.0] * (4 - len(xs)))


MUL_PRELUDE = """
static const float2x3 A = {1, 2, 3, 4, 5, 6};
static const float3x2 B = {7, 8, 9, 10, 11, 12};
static const float2x2 M = {1, 2, 3, 4};
"""
MUL = SlotTable("mul_forms", "float4", [
    case("scalar_scalar", "float4(mul(two, three), 0, 0, 0)", (6.0, 0.0, 0.0, 0.0)),
    case("scalar_vector", "float4(mul(two, float3(1, 2, 3)), 0)", (2.0, 4.0, 6.0, 0.0)),
    case("vector_scalar", "float4(mul(float3(1, 2, 3), three), 0)", (3.0, 6.0, 9.0, 0.0)),
    case("vector_vector_is_dot", "float4(mul(float3(1, 2, 3) * one, float3(4, 5, 6)), 0, 0, 0)", (32.0, 0.0, 0.0, 0.0)),
    case("scalar_matrix", "float2x2 r = mul(two, M); R = float4(r[0], r[1]);", (2.0, 4.0, 6.0, 8.0), stmt=True),
    case("matrix_scalar", "float2x2 r = mul(M, three); R = float4(r[0], r[1]);", (3.0, 6.0, 9.0, 12.0), stmt=True),
    case("vector_matrix_row_vector", "float4(mul(float2(1, 1) * one, A), 0)", pad4(vecmat([1, 1], A23))),
    case("matrix_vector_column_vector", "float4(mul(A, float3(1, 0, -1) * one), 0, 0)", pad4(matvec(A23, [1, 0, -1]))),
    case("matrix_matrix_2x3_3x2", "float2x2 r = mul(A * one, B); R = float4(r[0], r[1]);",
         tuple(float(c) for row in matmul(A23, B32) for c in row), stmt=True),
    case("matrix_matrix_3x2_2x3_row0", "float3x3 r = mul(B * one, A); R = float4(r[0], r[2].x);",
         pad4(matmul(B32, A23)[0] + [matmul(B32, A23)[2][0]]), stmt=True),
    case("matrix_matrix_square", "float2x2 r = mul(M * one, M); R = float4(r[0], r[1]);",
         tuple(float(c) for row in matmul(M22, M22) for c in row), stmt=True),
    case("mul_not_componentwise", "float2x2 r = mul(M, M) - M * M; R = float4(r[0], r[1]);",
         tuple(float(matmul(M22, M22)[i][j] - M22[i][j] ** 2) for i in range(2) for j in range(2)), stmt=True),
    case("int_matrix_vector", "int2x2 m = {1, 2, 3, 4}; int2 r = mul(m, int2(5, 6) * (int)one); R = float4(r, 0, 0);",
         (17.0, 39.0, 0.0, 0.0), stmt=True),
    case("float4x4_translate_point", "float4x4 t = {1,0,0,0, 0,1,0,0, 0,0,1,0, 5,6,7,1}; R = mul(float4(1, 2, 3, 1) * one, t);",
         (6.0, 8.0, 10.0, 1.0), stmt=True),
    case("float4x4_column_convention", "float4x4 t = {1,0,0,5, 0,1,0,6, 0,0,1,7, 0,0,0,1}; R = mul(t, float4(1, 2, 3, 1) * one);",
         (6.0, 8.0, 10.0, 1.0), stmt=True),
    case("transpose_mul_identity", "float2x3 a = A * one; float2x2 r = mul(a, transpose(a)); R = float4(r[0], r[1]);",
         tuple(float(c) for row in matmul(A23, [list(r) for r in zip(*A23)]) for c in row), stmt=True),
    case("matrix_1x3_times_3x2", "float1x3 r = {1, 2, 3}; float1x2 o = mul(r * one, B); R = float4(o, 0, 0);",
         pad4(vecmat([1, 2, 3], B32)), stmt=True),
], prelude=MUL_PRELUDE, setup=SETUP, inputs=IN)

# ---------------------------------------------------------------- bits and bit casts

UV = [0x00F0000F, 0x80000000, 0, 0xFFFFFFFF, 0x12345678, 6]
BIT_SETUP = "    uint a = In[0], hi = In[1], z = In[2], ones = In[3], pat = In[4], six = In[5];\n"


def firstbithigh_u(v):
    return 0xFFFFFFFF if v == 0 else v.bit_length() - 1


def firstbitlow(v):
    return 0xFFFFFFFF if v == 0 else (v & -v).bit_length() - 1


def reverse32(v):
    return int(f"{v:032b}"[::-1], 2)


def asuint_f(v):
    return struct.unpack("<I", struct.pack("<f", v))[0]


def half_bits(v):
    return struct.unpack("<H", struct.pack("<e", v))[0]


BITS = SlotTable("bits", "uint", [
    case("countbits", "countbits(a)", bin(UV[0]).count("1")),
    case("countbits_all", "countbits(ones)", 32),
    case("countbits_zero", "countbits(z)", 0),
    case("firstbithigh_uint", "firstbithigh(a)", firstbithigh_u(UV[0])),
    case("firstbithigh_zero", "firstbithigh(z)", 0xFFFFFFFF),
    case("firstbithigh_negative_int", "(uint)firstbithigh((int)0xFFFFFF00u + (int)z)", 7),  # first 0 bit from the top
    case("firstbithigh_positive_int", "(uint)firstbithigh((int)pat)", firstbithigh_u(UV[4])),
    case("firstbitlow", "firstbitlow(a)", firstbitlow(UV[0])),
    case("firstbitlow_hi", "firstbitlow(hi)", 31),
    case("firstbitlow_zero", "firstbitlow(z)", 0xFFFFFFFF),
    case("reversebits", "reversebits(pat)", reverse32(UV[4])),
    case("reversebits_one", "reversebits(six)", reverse32(6)),
    case("asuint_float", "asuint(1.5 * (float)six)", asuint_f(9.0)),
    case("asuint_neg_zero", "asuint(-((float)z))", 0x80000000),
    case("asint_roundtrip", "(uint)asint(asfloat(pat))", UV[4]),
    case("asfloat_of_bits", "(uint)asfloat(0x40400000u + z)", 3),
    case("asuint_vector", "asuint(float2(1, -2) * (float)(six / 6)).y", asuint_f(-2.0)),
    case("f32tof16_one", "f32tof16((float)(six / 6))", half_bits(1.0)),
    case("f32tof16_fraction", "f32tof16(-0.375 * (float)(six / 6))", half_bits(-0.375)),
    case("f32tof16_large", "f32tof16(65504.0 * (float)(six / 6))", half_bits(65504.0)),
    case("shift_and_mask_extract", "(pat >> 8) & 0xFFu", (UV[4] >> 8) & 0xFF),
], setup=BIT_SETUP, inputs={"In": ("uint", UV)})

F16 = SlotTable("f16tof32", "uint", [
    case("f16tof32", "asuint(f16tof32(0x3E00u + z))", asuint_f(1.5)),
    case("f16tof32_ignores_high_bits", "asuint(f16tof32(0xFFFF3C00u + z))", asuint_f(1.0)),
    case("f16_roundtrip", "asuint(f16tof32(f32tof16(0.1 * (float)(six / 6))))",
         asuint_f(struct.unpack("<e", struct.pack("<e", 0.1))[0]),
         xfail={"dxil-vk": lang_util.LAVAPIPE_ROUND_TRIP}),
    case("f16tof32_into_float", "(uint)(f16tof32(0x4200u + z) * 2.0)", 6),
], setup=BIT_SETUP, inputs={"In": ("uint", UV)})


INT_INTRINSICS = SlotTable("int_intrinsics", "int", [
    case("max_signed", "max(m7, one)", 1),
    case("min_signed", "min(m7, one)", -7),
    case("clamp_signed", "clamp(m7, -3, 3)", -3),
    case("abs_int", "abs(m7)", 7),
    case("max_int_vector", "max(int2(m7, 5), int2(-8, 6)).x", -7),
    case("max_uint_large", "(int)(max((uint)m1, 1u) == 0xFFFFFFFFu)", 1),
    case("min_uint_large", "(int)min((uint)m1, 5u)", 5),
    case("clamp_int_vector", "int3 c = clamp(int3(m7, 2, 9), int3(-5, 0, 0), int3(5, 1, 8)); R = c.x * 100 + c.y * 10 + c.z;",
         -500 + 10 + 8, stmt=True),
    case("countbits_vector", "uint4 c = countbits(uint4(0xFu, 0xFFu, 0u, (uint)m1)); R = (int)(c.x + c.y * 100 + c.z * 10000 + c.w * 100000);",
         4 + 800 + 3200000, stmt=True),
    case("firstbitlow_vector", "uint2 f = firstbitlow(uint2(8u, 0u)); R = (int)f.x * 10 + (int)(f.y == 0xFFFFFFFFu);", 31,
         stmt=True),
    case("mad_int_vector", "int3 r = mad(int3(1, 2, 3), int3(one, 2, 3), int3(10, 10, 10)); R = r.x + r.y * 100 + r.z * 10000;",
         11 + 1400 + 190000, stmt=True),
    case("sign_int_vector", "int3 g = sign(int3(m7, 0, 5)); R = g.x * 100 + g.y * 10 + g.z;", -100 + 1, stmt=True),
    case("reversebits_vector", "uint2 r = reversebits(uint2(1u, 0x80000000u)); R = (int)(r.x == 0x80000000u) * 10 + (int)r.y;",
         11, stmt=True),
], setup="    int one = In[0], m1 = In[3], m7 = In[6];\n", inputs={"In": ("int", [1, 2, 3, -1, 0, 5, -7, 100])})

ARG_CONV = SlotTable("intrinsic_argument_conversions", "float", [
    case("round_half_to_even_2_5", "round(2.5 * one)", 2.0),
    case("round_half_to_even_3_5", "round(3.5 * one)", 4.0),
    case("round_half_to_even_neg", "round(-2.5 * one)", -2.0),
    case("round_half_to_even_0_5", "round(0.5 * one)", 0.0),
    case("lerp_scalar_weight_splats", "lerp(float3(1, 2, 3) * one, float3(3, 2, 1), 0.25).x", 1.5),
    case("pow_int_exponent_splats", "pow(float3(1, 2, 3) * one, 2).z", 9.0, ulps=256),
    case("max_vector_int_scalar", "max(float3(1, 2, 3) * one, 2).x", 2.0),
    case("dot_int_and_float_vectors", "dot(int3(1, 2, 3), float3(3, 2, 1) * one)", 10.0),
    case("length_float2", "length(float2(3, 4) * one)", 5.0, ulps=4),
    case("normalize_float4", "normalize(float4(0, 3, 0, 4) * one).w", 0.8, ulps=4),
    case("saturate_int_argument", "saturate((int)(2 * one))", 1.0),
    case("floor_int_argument", "floor((int)(7 * one))", 7.0),
    case("sqrt_int_argument", "sqrt((int)(16 * one))", 4.0, ulps=4),
    case("min_int_and_float", "min((int)(3 * one), 2.5)", 2.5),
    case("countbits_negative_int", "(float)countbits((int)(-1 * one))", 32.0),
    case("asfloat_asint_roundtrip", "asfloat(asint(1.25 * one))", 1.25),
    case("step_vector_edge_scalar_x", "step(float2(1, 2), 1.5 * one).y", 0.0),
    case("fmod_negative_divisor", "fmod(-7.5 * one, -2)", -1.5),
    case("exp2_negative", "exp2(-1 * one)", 0.5, ulps=4),
    case("log2_quarter", "log2(0.25 * one)", -2.0, ulps=4),
    case("sign_negative_zero", "(float)sign(-0.0 * one)", 0.0),
    case("rsqrt_four", "rsqrt(4 * one)", 0.5, ulps=4),
    case("trunc_negative_fraction", "asuint(trunc(-0.7 * one)) == 0x80000000u ? 1.0 : 0.0", 1.0),  # -0.0
], setup="    float one = In[0];\n", inputs={"In": ("float", [1.0])})

_MISSING = "front end: intrinsic '{}' is not in the intrinsic table (use of undeclared identifier '{}')"
MORE_INTRINSICS = SlotTable("more_intrinsics", "float", [
    case("fma_double", "(float)fma((double)one, 2.0l, 1.0l)", 3.0),
    case("dst", "dst(float4(1, 2, 3, 4) * one, float4(5, 6, 7, 8)).y", 12.0),
    case("D3DCOLORtoUBYTE4", "(float)D3DCOLORtoUBYTE4(float4(0.5, 0.25, 1, 0) * one).x", 255.0),
    case("msad4_identical_window", "(float)msad4(0x01020304u, uint2(0x01020304u, 0u), uint4(0, 0, 0, 0)).x", 0.0),
    case("asuint_double_halves", "uint lo, hi; asuint(1.0l * (double)one, lo, hi); R = (float)(hi >> 20) + (float)lo;", 1023.0,
         stmt=True),
    case("asdouble_halves", "(float)asdouble(0u, 0x3FF00000u)", 1.0),
    case("abs_double", "(float)abs(-2.5l * (double)one)", 2.5),
    case("min_double", "(float)min(2.5l * (double)one, 1.5l)", 1.5),
    case("clamp_uint", "(float)clamp(5u * (uint)one, 1u, 3u)", 3.0),
    case("select_matrix", "select(true, float2x2(1, 2, 3, 4) * one, float2x2(0, 0, 0, 0))._22", 4.0),
    case("mul_int_scalar_vector", "(float)mul(2, int2(3, 4) * (int)one).y", 8.0),
    case("transpose_int_matrix", "(float)transpose(int2x3(1, 2, 3, 4, 5, 6) * (int)one)._21", 2.0),
    case("ldexp_vector", "ldexp(float2(1, 3) * one, float2(2, 1)).y", 6.0, ulps=4),
    case("lerp_int_endpoints", "lerp(0, 10, 0.25 * one)", 2.5),
    case("atan2_vector", "atan2(float2(1, -1) * one, float2(1, 1)).y", -math.pi / 4, **TRIG),
], setup="    float one = In[0];\n", inputs={"In": ("float", [1.0])})

test_math_scalar = table_test(MATH)
test_more_intrinsics = table_test(MORE_INTRINSICS)
test_intrinsic_argument_conversions = table_test(ARG_CONV)
test_int_intrinsics = table_test(INT_INTRINSICS)
test_f16tof32 = table_test(F16)
test_math_vector = table_test(VECTOR_MATH)
test_mul_forms = table_test(MUL)
test_bits = table_test(BITS)

# ---------------------------------------------------------------- atomics

ATOMICS = """
RWStructuredBuffer<uint> Out : register(u0);
RWStructuredBuffer<int> Signed : register(u1);
RWStructuredBuffer<uint> Orig : register(u2);
[numthreads(64, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
    uint t = tid.x;
    InterlockedAdd(Out[0], t);
    InterlockedMin(Out[1], t + 5u);
    InterlockedMax(Out[2], t * 3u);
    InterlockedOr(Out[3], 1u << (t % 32u));
    InterlockedAnd(Out[4], ~(1u << (t % 16u)));
    InterlockedXor(Out[5], t);
    InterlockedMin(Signed[0], (int)t - 40);
    InterlockedMax(Signed[1], 7 - (int)t);
    uint before;
    InterlockedAdd(Out[6], 2u, before);
    Orig[t] = before;
    uint prev;
    InterlockedCompareExchange(Out[7], t, t + 1u, prev);   // a chain: only the thread matching the value advances it
    InterlockedExchange(Out[8], 42u, prev);
    InterlockedCompareStore(Out[9], 0u, 99u);
}
"""


def test_interlocked_on_buffer_elements():
    """Each atomic's final value is order-independent; InterlockedAdd's original values are a permutation."""
    n = 64
    out0 = [0, 0xFFFFFFFF, 0, 0, 0xFFFFFFFF, 0, 0, 0, 0, 0]
    chain_ok = lambda o: o[:7] + [1 <= o[7] <= n] + o[8:]  # noqa: E731 - the CAS chain's length is scheduling
    got = run_cs(ATOMICS, {"Out": ("uint", out0), "Signed": ("int", [0, -100]), "Orig": ("uint", n)},
                 order_free={"Orig": sorted, "Out": chain_ok})
    out = got["Out"]
    xor = 0
    for t in range(n):
        xor ^= t
    assert out[:6] == [sum(range(n)), 5, 3 * (n - 1), 0xFFFFFFFF, 0xFFFF0000, xor]
    assert got["Signed"] == [-40, 7]
    assert sorted(got["Orig"]) == list(range(0, 2 * n, 2))
    assert out[6] == 2 * n
    assert 1 <= out[7] <= n  # at least thread 0 succeeded; how far the chain got depends on scheduling
    assert out[8] == 42 and out[9] == 99


GROUPSHARED_ATOMICS = """
RWStructuredBuffer<uint> Out : register(u0);
groupshared uint Total;
groupshared uint Hist[4];
groupshared int MinV;
[numthreads(32, 1, 1)]
void main(uint3 gtid : SV_GroupThreadID, uint3 gid : SV_GroupID) {
    uint t = gtid.x;
    if (t == 0) { Total = 0; MinV = 1000; }
    if (t < 4) Hist[t] = 0;
    GroupMemoryBarrierWithGroupSync();
    InterlockedAdd(Total, t + 1u);
    InterlockedAdd(Hist[t % 4u], 1u);
    InterlockedMin(MinV, 50 - (int)t);
    GroupMemoryBarrierWithGroupSync();
    if (t == 0) {
        uint base = gid.x * 6u;
        Out[base] = Total;
        Out[base + 1] = Hist[0]; Out[base + 2] = Hist[1]; Out[base + 3] = Hist[2]; Out[base + 4] = Hist[3];
        Out[base + 5] = (uint)MinV;
    }
}
"""


def test_interlocked_on_groupshared_per_group():
    got = run_cs(GROUPSHARED_ATOMICS, {"Out": ("uint", 12)}, groups=(2, 1, 1))["Out"]
    assert got == [sum(range(1, 33)), 8, 8, 8, 8, 50 - 31] * 2


REDUCTION = """
RWStructuredBuffer<uint> Out : register(u0);
StructuredBuffer<uint> Data : register(t1);
groupshared uint Partial[64];
[numthreads(64, 1, 1)]
void main(uint3 gtid : SV_GroupThreadID, uint3 gid : SV_GroupID, uint gi : SV_GroupIndex) {
    Partial[gi] = Data[gid.x * 64 + gi];
    GroupMemoryBarrierWithGroupSync();
    [unroll] for (uint s = 32; s > 0; s >>= 1) {
        if (gi < s) Partial[gi] += Partial[gi + s];
        GroupMemoryBarrierWithGroupSync();
    }
    if (gi == 0) Out[gid.x] = Partial[0];
    if (gi == 63) Out[4 + gid.x] = Partial[1];  // after the loop Partial[1] still holds the s == 1 partial sum
}
"""


def test_groupshared_tree_reduction_with_barriers():
    data = [(i * 2654435761) % 1000 for i in range(64 * 4)]
    got = run_cs(REDUCTION, {"Out": ("uint", 8)}, {"Data": ("uint", data)}, groups=(4, 1, 1))["Out"]
    sums = [sum(data[g * 64:(g + 1) * 64]) for g in range(4)]
    seconds = []
    for g in range(4):
        p = data[g * 64:(g + 1) * 64]
        s = 32
        while s > 1:  # Partial[1] is last updated with s == 2
            for i in range(s):
                p[i] += p[i + s]
            s >>= 1
        seconds.append(p[1])
    assert got == sums + seconds


WAVE = """
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(32, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
    uint t = tid.x;
    uint base = t * 8u;
    Out[base + 0] = WaveGetLaneIndex();
    Out[base + 1] = WaveGetLaneCount();
    Out[base + 2] = WaveActiveSum(t);
    Out[base + 3] = WavePrefixSum(t);
    Out[base + 4] = WaveReadLaneFirst(t * 10u);
    Out[base + 5] = WaveIsFirstLane() ? 1u : 0u;
    Out[base + 6] = WaveActiveMax(t);
    Out[base + 7] = WaveActiveCountBits(t % 2u == 0u);
}
"""
LANES = 8  # lavapipe's subgroup size on this machine (256-bit LLVM vectors of 32-bit lanes)


def test_wave_ops_with_8_lane_subgroups():
    got = run_cs(WAVE, {"Out": ("uint", 32 * 8)})["Out"]
    rows = [got[i * 8:(i + 1) * 8] for i in range(32)]
    assert {r[1] for r in rows} == {LANES}, "precondition: lavapipe subgroup size"
    for t, r in enumerate(rows):
        first = t - t % LANES
        lanes = range(first, first + LANES)
        assert r == [t % LANES, LANES, sum(lanes), sum(range(first, t)), first * 10, int(t == first), first + LANES - 1,
                     LANES // 2], f"thread {t}"


WAVE_DIVERGENT = """
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(16, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
    uint t = tid.x;
    if (t % 2u == 1u) {
        Out[t] = WaveActiveSum(1u) * 100u + WavePrefixSum(1u);  // only odd lanes are active
    }
}
"""


def test_wave_ops_see_only_active_lanes():
    got = run_cs(WAVE_DIVERGENT, {"Out": ("uint", 16)})["Out"]
    want = []
    for t in range(16):
        want.append(SENTINEL if t % 2 == 0 else 4 * 100 + (t % LANES) // 2)
    assert got == want


WAVE_MORE = """
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(16, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
    uint t = tid.x;
    uint base = t * 10u;
    Out[base + 0] = WaveReadLaneAt(t * 3u, 5);
    Out[base + 1] = WaveActiveBitOr(1u << t);
    Out[base + 2] = WaveActiveBitAnd(t | 0xF0u);
    Out[base + 3] = WaveActiveBitXor(t);
    Out[base + 4] = WaveActiveAllTrue(t < 12u) ? 1u : 0u;
    Out[base + 5] = WaveActiveAnyTrue(t == 3u) ? 1u : 0u;
    Out[base + 6] = WaveActiveBallot(t % 3u == 0u).x;
    Out[base + 7] = WavePrefixCountBits(t % 2u == 1u);
    Out[base + 8] = WaveActiveProduct(t % 3u + 1u);
    Out[base + 9] = WaveActiveAllEqual(t / 8u) ? 1u : 0u;
}
"""


def test_more_wave_ops_with_8_lane_subgroups():
    got = run_cs(WAVE_MORE, {"Out": ("uint", 16 * 10)})["Out"]
    for t in range(16):
        first = t - t % LANES
        lanes = list(range(first, first + LANES))
        band = 0xFFFFFFFF
        xor = 0
        prod = 1
        for u in lanes:
            band &= u | 0xF0
            xor ^= u
            prod *= u % 3 + 1
        ballot = sum(1 << (u - first) for u in lanes if u % 3 == 0)
        want = [(first + 5) * 3, sum(1 << u for u in lanes), band, xor, int(all(u < 12 for u in lanes)),
                int(3 in lanes), ballot, sum(1 for u in lanes if u < t and u % 2 == 1), prod & 0xFFFFFFFF, 1]
        assert got[t * 10:(t + 1) * 10] == want, f"thread {t}"


ATOMIC_RESULTS = """
RWStructuredBuffer<uint> U : register(u0);
RWStructuredBuffer<int> I : register(u1);
RWStructuredBuffer<uint> Orig : register(u2);
groupshared int G;
[numthreads(1, 1, 1)]
void main() {
    uint o;
    InterlockedAdd(U[0], 5u, o);                  Orig[0] = o;
    InterlockedCompareExchange(U[1], 7u, 70u, o);  Orig[1] = o;   // matches: U[1] becomes 70
    InterlockedCompareExchange(U[2], 8u, 80u, o);  Orig[2] = o;   // does not match: unchanged
    InterlockedCompareStore(U[3], 9u, 90u);
    InterlockedExchange(U[4], 44u, o);             Orig[3] = o;
    InterlockedMax(U[5], 0xFFFFFFF0u);                               // unsigned: the large value wins
    InterlockedMin(U[6], 0x80000000u);                               // unsigned: 3 stays
    InterlockedMin(I[0], 3);                                         // signed: -5 stays
    InterlockedMax(I[1], -9);                                        // signed: -2 stays
    InterlockedMax(I[2], -1);                                        // signed: -1 beats -100
    int io;
    InterlockedOr(I[3], 0x0F, io);                 Orig[4] = (uint)io;
    G = 10;
    int go;
    InterlockedAdd(G, -3, go);
    InterlockedCompareExchange(G, 7, 1, go);
    Orig[5] = (uint)go;
    I[4] = G;
}
"""


def test_interlocked_results_and_signedness():
    """Original values come back through the out argument; Min/Max compare signed for int and unsigned for uint."""
    got = run_cs(ATOMIC_RESULTS, {"U": ("uint", [1, 7, 5, 9, 4, 5, 3]), "I": ("int", [-5, -2, -100, 0x30, 0]),
                                  "Orig": ("uint", 6)})
    assert got["U"] == [6, 70, 5, 90, 44, 0xFFFFFFF0, 3]
    assert got["I"] == [-5, -2, -1, 0x3F, 1]
    assert got["Orig"] == [1, 7, 5, 4, 0x30, 7]



BITS64 = """
RWStructuredBuffer<uint> Out : register(u0);
StructuredBuffer<uint> In : register(t1);   // (low, high) word pairs
[numthreads(1, 1, 1)]
void main() {
    for (uint i = 0; i < N; i++) {
        uint64_t x = ((uint64_t)In[2 * i + 1] << 32) | In[2 * i];
        uint2 pair = countbits(uint64_t2(x, x >> 1));
        Out[8 * i + 0] = countbits(x);
        Out[8 * i + 1] = firstbithigh(x);
        Out[8 * i + 2] = firstbitlow(x);
        Out[8 * i + 3] = (uint)firstbithigh((int64_t)x);
        Out[8 * i + 4] = firstbitlow((int64_t)x);
        Out[8 * i + 5] = pair.x * 100 + pair.y;
        uint64_t r = reversebits(x);
        Out[8 * i + 6] = (uint)r;
        Out[8 * i + 7] = (uint)(r >> 32);
    }
}
"""
BITS64_VALUES = [0, 1, 0x100000000, 0xF00000001, 0x8000000000000000, 0xFFFFFFFFFFFFFFFF, 0xFFFFFFFF00000000,
                 0x00000000FFFFFFFF, 0x123456789ABCDEF0, 0x7FFFFFFFFFFFFFFF]


def _bits64_want(x: int) -> list[int]:
    none = 0xFFFFFFFF
    s = x - (1 << 64) if x >> 63 else x
    shi = (~s if s < 0 else s).bit_length() - 1          # signed: first bit differing from the sign
    rev = int(f"{x:064b}"[::-1], 2)
    return [bin(x).count("1"), x.bit_length() - 1 if x else none, (x & -x).bit_length() - 1 if x else none,
            shi & 0xFFFFFFFF, (x & -x).bit_length() - 1 if x else none,
            bin(x).count("1") * 100 + bin(x >> 1).count("1"), rev & 0xFFFFFFFF, rev >> 32]


@pytest.mark.parametrize("backend", ["spirv", "dxil", "dxil-vk"])
def test_bit_intrinsics_on_64_bit_integers(backend):
    """countbits/firstbithigh/firstbitlow on uint64_t and int64_t give 32-bit results, reversebits a 64-bit
    one; SPIR-V splits the operand into 32-bit halves (Vulkan allows BitCount, BitReverse and the
    GLSL.std.450 Find*sb on 32-bit operands only), DXIL uses the ops' i64 overloads."""
    words = [w for x in BITS64_VALUES for w in (x & 0xFFFFFFFF, x >> 32)]
    src = BITS64.replace("N;", f"{len(BITS64_VALUES)};")
    got = run_backend(backend, src, {"Out": ("uint", 8 * len(BITS64_VALUES))}, {"In": ("uint", words)})["Out"]
    for k, x in enumerate(BITS64_VALUES):
        assert got[8 * k:8 * k + 8] == _bits64_want(x), hex(x)


WAVE_TYPES = """
RWStructuredBuffer<int> Out : register(u0);
RWStructuredBuffer<float> F : register(u1);
groupshared int G[4][8];
[numthreads(16, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
    int t = (int)tid.x;
    Out[t * 6 + 0] = WaveActiveMin(t - 10);
    Out[t * 6 + 1] = WaveActiveMax(-t);
    Out[t * 6 + 2] = (int)WaveActiveMin((uint)(t - 10));
    Out[t * 6 + 3] = WaveReadLaneAt(t * 2, (uint)(t % 8 + 1) % 8);
    Out[t * 6 + 4] = WavePrefixProduct(t % 3 + 1);
    Out[t * 6 + 5] = QuadReadAcrossX(t);
    F[t] = WaveActiveSum(0.5 * t);
    G[t / 8 * 2][t % 8] = 0;          // groupshared memory starts undefined: clear all 32 cells first
    G[t / 8 * 2 + 1][t % 8] = 0;
    GroupMemoryBarrierWithGroupSync();
    G[t % 4][t / 2] = t;
    AllMemoryBarrierWithGroupSync();
    DeviceMemoryBarrierWithGroupSync();
    GroupMemoryBarrier();
    if (t == 0) { int s = 0; for (int i = 0; i < 4; i++) for (int j = 0; j < 8; j++) s += G[i][j]; Out[96] = s; }
}
"""


def test_wave_ops_signedness_floats_quads_and_barrier_variants():
    """Signed vs unsigned wave min/max, a dynamic WaveReadLaneAt lane, prefix product, quad swap, float sums,
    and a 2-D groupshared array behind every barrier flavour."""
    got = run_cs(WAVE_TYPES, {"Out": ("int", 97), "F": ("float", 16)})
    for t in range(16):
        first = t - t % LANES
        lanes = range(first, first + LANES)
        prefix = 1
        for u in lanes:
            if u < t:
                prefix *= u % 3 + 1
        umin = min((u - 10) & 0xFFFFFFFF for u in lanes)
        want = [min(u - 10 for u in lanes), max(-u for u in lanes), umin - (1 << 32) if umin >= 1 << 31 else umin,
                ((t % 8 + 1) % 8 + first) * 2, prefix, t ^ 1]
        assert got["Out"][t * 6:(t + 1) * 6] == want, f"thread {t}"
    assert got["F"] == [sum(0.5 * u for u in range(t - t % LANES, t - t % LANES + LANES)) for t in range(16)]
    assert got["Out"][96] == sum(range(16))


# ---------------------------------------------------------------- mismatched shapes (HLSL truncation)
# Two generic operands of different sizes truncate to the smaller: a vector to the shorter length,
# matrices to (min rows, min cols); a 1xN / Nx1 matrix beside a vector counts as a vector.  The
# expected values truncate the operands here, in Python, and apply the operation per component.
def _trunc(m, rows, cols):
    return [row[:cols] for row in m[:rows]]


def _zip_op(op, *ms):
    rows, cols = min(len(m) for m in ms), min(len(m[0]) for m in ms)
    ts = [_trunc(m, rows, cols) for m in ms]
    return [[float(op(*(t[i][j] for t in ts))) for j in range(cols)] for i in range(rows)]


def _hlsl(m):
    return f"float{len(m)}x{len(m[0])}({', '.join(str(float(c)) for row in m for c in row)}) * one"


def _flat(m):
    return tuple(c for row in m for c in row)


A23, E32, B33 = [[1, 2, 3], [4, 5, 6]], [[1, 2], [3, 0], [1, 2]], [[3, 1, 4], [1, 5, 9], [2, 6, 5]]
P32, Q23, C22 = [[2, 3], [4, 1], [5, 5]], [[3, 2, 9], [0.5, 2, 9]], [[1, 3], [5, 7]]
X32, LO23, HI22 = [[0, 5], [3, -2], [9, 9]], [[1, 1, 1], [0, 0, 0]], [[2, 4], [2, 4]]
F23, G33 = [[7, 8, 9], [-7, 5.5, 3]], [[3, 3, 4], [2, 2, 2], [1, 1, 1]]
Y32, SX23 = [[1, 2], [3, 4], [5, 6]], [[1, 1, 1], [4, 3, 0]]
AY22, AX33 = [[1, -1], [0, 1]], [[1, 1, 9], [-1, 1, 9], [9, 9, 9]]
_MIN23 = _zip_op(min, A23, B33)
_FMOD23 = _zip_op(math.fmod, F23, G33)


def _mcase(name, call, want, rows=(0, 1), **kw):
    """A 2x2 result written as float4(row 0, row 1), or one row of a 2x3 result (rows=(r,))."""
    if len(rows) == 2:
        return case(name, f"float2x2 r = {call}; R = float4(r[0], r[1]);", want, stmt=True, **kw)
    return case(name, f"float2x3 r = {call}; R = float4(r[{rows[0]}], 0);", want, stmt=True, **kw)


TRUNCATION = SlotTable("intrinsic_truncation", "float4", [
    _mcase("ldexp_2x3_3x2", f"ldexp({_hlsl(A23)}, {_hlsl(E32)})", _flat(_zip_op(lambda a, e: a * 2.0 ** e, A23, E32))),
    _mcase("pow_3x2_2x3", f"pow({_hlsl(P32)}, {_hlsl(Q23)})", _flat(_zip_op(math.pow, P32, Q23)), **T),
    _mcase("min_2x3_3x3_row0", f"min({_hlsl(A23)}, {_hlsl(B33)})", (*_MIN23[0], 0.0), rows=(0,)),
    _mcase("min_2x3_3x3_row1", f"min({_hlsl(A23)}, {_hlsl(B33)})", (*_MIN23[1], 0.0), rows=(1,)),
    _mcase("lerp_3x3_2x2_scalar", f"lerp({_hlsl(B33)}, {_hlsl(C22)}, 0.5 * one)",
           _flat(_zip_op(lambda a, b: a + 0.5 * (b - a), B33, C22))),
    _mcase("clamp_3x2_2x3_2x2", f"clamp({_hlsl(X32)}, {_hlsl(LO23)}, {_hlsl(HI22)})",
           _flat(_zip_op(lambda v, lo, hi: min(max(v, lo), hi), X32, LO23, HI22))),
    _mcase("fmod_2x3_3x3_row0", f"fmod({_hlsl(F23)}, {_hlsl(G33)})", (*_FMOD23[0], 0.0), rows=(0,)),
    _mcase("fmod_2x3_3x3_row1", f"fmod({_hlsl(F23)}, {_hlsl(G33)})", (*_FMOD23[1], 0.0), rows=(1,)),
    _mcase("step_3x2_2x3", f"step({_hlsl(Y32)}, {_hlsl(SX23)})", _flat(_zip_op(lambda e, v: float(v >= e), Y32, SX23))),
    _mcase("atan2_2x2_3x3", f"atan2({_hlsl(AY22)}, {_hlsl(AX33)})", _flat(_zip_op(math.atan2, AY22, AX33)), **TRIG),
    case("pow_float4_float2", "float2 r = pow(float4(2, 3, 4, 5) * one, float2(2, 0.5) * one); R = float4(r, 0, 0);",
         (4.0, math.sqrt(3.0), 0.0, 0.0), stmt=True, **T),
], setup=SETUP, inputs=IN)

test_intrinsic_truncation = table_test(TRUNCATION)


def test_intrinsic_matrix_truncation_warns_at_each_truncated_argument():
    src = ("RWStructuredBuffer<float> Out : register(u0);\n[numthreads(1, 1, 1)]\nvoid main() {\n"
           "    float2x3 a = Out[0]; float3x2 e = Out[1];\n    float2x2 r = ldexp(a, e);\n    Out[2] = r._11;\n}\n")
    res = compile_cs(src)
    assert res.ok
    warns = [(d.message, d.loc.line, d.loc.col) for d in res.diagnostics if d.severity == "warning"]
    assert warns == [("implicit truncation of matrix type", 5, 24), ("implicit truncation of matrix type", 5, 27)]


# ---------------------------------------------------------------- shared polyfills in every statement position
# passes/polyfill.py stores an argument used twice in a temporary just before the statement (a do-while
# condition: at the end of the continuing block).  DXIL polyfills smoothstep/atan2/refract; SPIR-V lit.
POLYFILL_PLACES = SlotTable("polyfill_positions", "float", [
    case("do_while_condition", "int i = 0; do { i++; } while (smoothstep(0.0, 8.0, (float)i * one) < 0.5); R = i;",
         float(next(i for i in range(1, 99) if smoothstep(0.0, 8.0, float(i)) >= 0.5)), stmt=True),
    case("if_condition", "R = 1; if (lit(y * one, x * one, two).z > 0 || lit(x * one, x * one, two).z > 0) R = 2;", 2.0,
         stmt=True),
    case("for_condition", "int n = 0; for (float a = three; atan2(a, -one) > 0; a -= one) n++; R = n;",
         float(next(k for k in range(99) if not math.atan2(three - k, -1.0) > 0)), stmt=True),
    case("return_value", "R = F(v3, w3);", refract(norm(V3), norm(W3), 0.5)[1], stmt=True,
         prelude="float F(float3 i, float3 n) { return refract(normalize(i), normalize(n), 0.5).y; }\n", **T),
    case("nested_in_polyfill", "R = smoothstep(0.0, 1.0, smoothstep(0.0, ten, three * one));",
         smoothstep(0.0, 1.0, smoothstep(0.0, ten, three)), stmt=True, **T),
], setup=SETUP, inputs=IN)

test_polyfill_positions = table_test(POLYFILL_PLACES)
