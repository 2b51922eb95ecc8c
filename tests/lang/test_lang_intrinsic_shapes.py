"""Intrinsics called with arguments of different shapes (issue 20), by DXC's rules (SemaHLSL.cpp,
MatchArguments; the argument templates of utils/hct/gen_intrin_main.txt):

- the arguments of one template (`numeric<> a, $type1 b`) unify: a scalar splats; the first vector or
  matrix fixes the kind, and an argument of the other kind matches no overload (`float1` is a vector,
  `float1x3` a matrix); sizes truncate to the smallest (rows and columns each, a vector being one row),
  with "implicit truncation" at each truncated argument;
- `numeric<c>` parameters (dot, distance, length, reflect, ...) take vectors only;
- fixed sizes (`float_like<3>` of cross, `numeric<4>` of dst): at least that many components;
- mul's vector/matrix forms share the inner size, so the longer side truncates.

Each result's shape is part of the check: `float4(r, 0, 0)` only compiles when r has two components.
Expected values are computed here in Python."""

from __future__ import annotations

import math

import pytest
from lang_util import SlotTable, case, compile_cs, table_test

SETUP = "    float one = In[0];\n"       # 1 at run time: no argument is a constant
IN = {"In": ("float", [1.0])}
T = dict(ulps=256, abs_tol=2e-6)      # transcendental tolerance (Vulkan: 3 ULP + range-dependent absolute error)
TRIG = dict(ulps=256, abs_tol=5e-4)


def h(*c: float) -> str:
    """An HLSL vector of run-time values."""
    return f"float{len(c)}({', '.join(str(float(x)) for x in c)}) * one"


def zipped(op, *vs):
    """op per component over the shortest vector (DXC truncates the longer ones); scalars splat."""
    n = min(len(v) for v in vs if isinstance(v, tuple))
    return tuple(float(op(*(v[i] if isinstance(v, tuple) else v for v in vs))) for i in range(n))


def pad(xs, n=4):
    return tuple(xs) + (0.0,) * (n - len(xs))


def smoothstep(e0, e1, x):
    t = min(max((x - e0) / (e1 - e0), 0.0), 1.0)
    return t * t * (3 - 2 * t)


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def matvec(m, v):
    return tuple(sum(m[r][k] * v[k] for k in range(len(v))) for r in range(len(m)))


def vecmat(v, m):
    return tuple(sum(v[k] * m[k][c] for k in range(len(v))) for c in range(len(m[0])))


def mhlsl(m) -> str:
    return f"float{len(m)}x{len(m[0])}({', '.join(str(float(x)) for row in m for x in row)}) * one"


V4, V3, V2 = (1.5, -2.0, 3.0, 4.0), (2.0, 0.5, -1.0), (0.25, 3.0)
M44 = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]]
M33 = [[2, 0, 1], [1, 3, 0], [0, 1, 4]]
M34 = [[1, 2, 3, 4], [0, 1, 0, 2], [3, 0, 1, 1]]
M23, M42 = [[1, 2, 3], [4, 5, 6]], [[1, 0], [2, 1], [0, 3], [5, 5]]

SHAPES = SlotTable("intrinsic_shapes", "float4", [
    # vectors truncate to the shortest; the result has that size
    case("max_4_2", f"R = float4(max({h(*V4)}, {h(*V2)}), 0, 0);", pad(zipped(max, V4, V2)), stmt=True),
    case("min_2_4", f"R = float4(min({h(*V2)}, {h(*V4)}), 0, 0);", pad(zipped(min, V2, V4)), stmt=True),
    # float1 is a one-component vector: everything truncates to it (it does not splat); the result is a float1
    case("max_float1_var_4", f"float1 a = 2.0 * one; R = float4(max(a, {h(*V4)}), 7, 7, 7);", (2.0, 7.0, 7.0, 7.0),
         stmt=True),
    case("max_float1_ctor_4", f"max(float1(-3.0 * one), {h(*V4)})", (max(-3.0, V4[0]),) * 4),
    case("dot_float1_cast_4", f"dot((float1)(2.0 * one), {h(*V4)})", (2.0 * V4[0],) * 4),
    case("max_float1_param_4", f"Widen(0.5 * one, {h(*V4)})", (max(0.5, V4[0]),) * 4,
         prelude="float4 Widen(float1 p, float4 q) { return max(p, q); }\n"),
    case("clamp_3_scalar_4", f"R = float4(clamp({h(*V3)}, 0.0, {h(*V4)}), 0);",
         pad(zipped(lambda x, lo, hi: min(max(x, lo), hi), V3, 0.0, V4)), stmt=True),
    case("lerp_4_3_scalar", f"R = float4(lerp({h(*V4)}, {h(*V3)}, 0.25 * one), 0);",
         pad(zipped(lambda a, b: a + 0.25 * (b - a), V4, V3)), stmt=True),
    case("pow_scalar_3", f"R = float4(pow(2.0 * one, {h(*V3)}), 0);", pad(zipped(math.pow, 2.0, V3)), stmt=True, **T),
    case("step_2_4", f"R = float4(step({h(*V2)}, {h(*V4)}), 0, 0);",
         pad(zipped(lambda e, x: float(x >= e), V2, V4)), stmt=True),
    case("smoothstep_scalar_3_4", f"R = float4(smoothstep(0.0, {h(4.0, 2.0, 1.0)}, {h(*V4)}), 0);",
         pad(zipped(smoothstep, 0.0, (4.0, 2.0, 1.0), V4)), stmt=True, **T),
    case("ldexp_4_2", f"R = float4(ldexp({h(*V4)}, {h(3.0, -1.0)}), 0, 0);",
         pad(zipped(lambda x, e: x * 2.0 ** e, V4, (3.0, -1.0))), stmt=True),
    case("fmod_3_2", f"R = float4(fmod({h(7.5, -5.0, 2.0)}, {h(2.0, 3.0)}), 0, 0);",
         pad(zipped(math.fmod, (7.5, -5.0, 2.0), (2.0, 3.0))), stmt=True),
    case("atan2_2_3", f"R = float4(atan2({h(1.0, -1.0)}, {h(*V3)}), 0, 0);",
         pad(zipped(math.atan2, (1.0, -1.0), V3)), stmt=True, **TRIG),
    case("mad_4_2_3", f"R = float4(mad({h(*V4)}, {h(*V2)}, {h(*V3)}), 0, 0);",
         pad(zipped(lambda a, b, c: a * b + c, V4, V2, V3)), stmt=True),
    # numeric<c> (vectors): the shorter size; cross: float_like<3> truncates a float4
    case("dot_4_2", f"dot({h(*V4)}, {h(*V2)});", (V4[0] * V2[0] + V4[1] * V2[1],) * 4),
    case("distance_3_4", f"distance({h(*V3)}, {h(*V4)});",
         (math.sqrt(sum((a - b) ** 2 for a, b in zip(V3, V4))),) * 4, **T),
    case("cross_4_4", f"R = float4(cross({h(*V4)}, {h(4.0, 3.0, 2.0, 1.0)}), 0);",
         pad(cross(V4, (4.0, 3.0, 2.0))), stmt=True),
    # mul: the inner size is shared, the longer side truncates
    case("mul_float3_float4x4", f"mul({h(*V3)}, {mhlsl(M44)});", vecmat(V3, M44[:3])),
    case("mul_float4_float3x3", f"R = float4(mul({h(*V4)}, {mhlsl(M33)}), 0);", pad(vecmat(V4[:3], M33)),
         stmt=True),
    case("mul_float3x4_float3", f"R = float4(mul({mhlsl(M34)}, {h(*V3)}), 0);",
         pad(matvec([row[:3] for row in M34], V3)), stmt=True),
    case("mul_float2x3_float4x2", f"float2x2 r = mul({mhlsl(M23)}, {mhlsl(M42)}); R = float4(r[0], r[1]);",
         tuple(float(sum(M23[i][k] * M42[k][j] for k in range(3))) for i in range(2) for j in range(2)),
         stmt=True),
    # an out argument takes part in the template: modf(float4, out float2) is a float2
    case("modf_4_out2", f"float2 ip; float2 fr = modf({h(1.25, -2.5, 3.0, 4.0)}, ip); R = float4(fr, ip);",
         (0.25, -0.5, 1.0, -2.0), stmt=True),
    # a scalar splats over a matrix; a float1x1 is a matrix of one component
    case("max_matrix_scalar", "float2x2 r = max(float2x2(1, 5, -2, 3) * one, 2.0); R = float4(r[0], r[1]);",
         (2.0, 5.0, 2.0, 3.0), stmt=True),
    case("max_1x1_scalar", "float1x1 r = max((float1x1)3.0 * one, 4.0 * one); R = r._m00;", (4.0,) * 4, stmt=True),
], setup=SETUP, inputs=IN)

test_intrinsic_shapes = table_test(SHAPES)


def _diagnostics(body: str):
    src = ("RWStructuredBuffer<float4> Out : register(u0);\n[numthreads(1, 1, 1)]\nvoid main() {\n"
           "    float4 v4 = Out[0]; float3 v3 = Out[1].xyz; float2 v2 = Out[2].xy; float1 v1 = Out[3].x;\n"
           "    float2x2 m22 = 1; float1x3 m13 = 2; float3x1 m31 = 3; float1x1 m11 = 4;\n"
           f"{body}\n}}\n")
    return compile_cs(src)


# call -> (column of the call, argument number, argument column, argument type, parameter type DXC's rules give)
REFUSED = {
    # a vector fixes the template's kind: no matrix may follow (not even a one-row or one-column one)
    "    Out[4] = max(v3, m22)._11;": (14, 2, 22, "float2x2", "float2"),
    "    Out[4] = max(v4, m13).xyzz;": (14, 2, 22, "float1x3", "float3"),
    "    Out[4] = clamp(v2, m31, v2).xyyy;": (14, 2, 24, "float3x1", "float1"),
    "    Out[4] = lerp(v4, m11, 0.5);": (14, 2, 23, "float1x1", "float1"),
    # and a matrix fixes it: no vector may follow
    "    Out[4] = pow(m22, v4)._11;": (14, 2, 23, "float4", "float1x2"),
    "    Out[4] = step(m13, v2)._11;": (14, 2, 24, "float2", "float1x2"),
    "    Out[4] = step(m13, v1)._11;": (14, 2, 24, "float1", "float1x1"),      # float1 is a vector
    "    Out[4] = fmod(m31, v3)._11;": (14, 2, 24, "float3", "float1x1"),
    # numeric<c>: vectors only
    "    Out[4] = dot(m22, v2);": (14, 1, 18, "float2x2", "float2"),
    "    Out[4] = length(m13);": (14, 1, 21, "float1x3", "float3"),
    "    Out[4] = distance(v3, m31);": (14, 2, 27, "float3x1", "float1"),
    # float_like<3>: three components at least, no matrix
    "    Out[4] = cross(v3, v2).xyzz;": (14, 2, 24, "float2", "float3"),
    "    Out[4] = cross(m13, v3).xyzz;": (14, 1, 20, "float1x3", "float3"),
}


@pytest.mark.parametrize("call", list(REFUSED))
def test_refused_intrinsic_shapes(call):
    """DXC's MatchArguments matches no overload; its error at the call, the note at the argument."""
    res = _diagnostics(call)
    assert not res.ok
    col, nth, arg_col, got, want = REFUSED[call]
    name = call.split("= ")[1].split("(")[0]
    errors = [d for d in res.diagnostics if d.severity == "error"]
    assert [(e.message, e.loc.line, e.loc.col) for e in errors] == [(f"no matching function for call to '{name}'", 6, col)]
    suffix = {1: "st", 2: "nd"}[nth]
    assert [(n.message, n.loc.line, n.loc.col) for n in errors[0].notes] == [
        (f"candidate function not viable: no known conversion from '{got}' to '{want}' for {nth}{suffix} argument",
         6, arg_col)]


def test_truncated_arguments_warn_where_they_are():
    """Each truncated argument gets DXC's warning at the argument; the one that fixes the size gets none."""
    res = _diagnostics("    Out[4] = float4(max(v4, v2), lerp(v3, v4, v2));")
    assert res.ok
    warnings = [(d.message, d.loc.line, d.loc.col) for d in res.diagnostics if d.severity == "warning"]
    assert warnings == [("implicit truncation of vector type", 6, 25), ("implicit truncation of vector type", 6, 39),
                        ("implicit truncation of vector type", 6, 43)]
