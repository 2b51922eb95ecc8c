"""Binary operators, `?:` and compound assignments between a vector and a matrix (and between
vectors or matrices of different sizes), with DXC's dimension rules: the operand with more
components (the left one on a tie) gives the result shape when the other converts to it, else
the other one's; a vector and a matrix meet when their component counts agree, or when the
matrix has one row/column and the shorter side is truncated; a one-component operand splats.
Expected values are computed here in Python, from the components in row-major order."""

from __future__ import annotations

import operator

import pytest
from lang_util import SlotTable, case, compile_cs, table_test

pytestmark = [pytest.mark.vulkan, pytest.mark.usefixtures("vk")]

SETUP = "    float k = (float)In[0];\n"      # k == 1 at run time: no operand is a constant
IN = {"In": ("int", [1])}

V4 = [1.0, 2.0, 3.0, 4.0]
M22 = [10.0, 20.0, 30.0, 40.0]           # float2x2(10, 20, 30, 40): _11 _12 _21 _22
M13 = [100.0, 200.0, 300.0]              # float1x3 / float3x1
DECLS = ("float4 v4 = float4(1, 2, 3, 4) * k; float2x2 m22 = float2x2(10, 20, 30, 40) * k;"
         " float1x3 m13 = float1x3(100, 200, 300) * k; float3x1 m31 = float3x1(100, 200, 300) * k;"
         " float1 v1 = 5 * k; ")


def weigh(xs: list[float]) -> float:
    """The value a row stores: a weighted sum that tells every component and its position apart."""
    return sum(x * (i + 1) for i, x in enumerate(xs))


def zipped(op, a: list[float], b: list[float], n: int) -> list[float]:
    """Component-wise op on the first n components (a one-component side splats)."""
    a = a * n if len(a) == 1 else a
    b = b * n if len(b) == 1 else b
    return [op(a[i], b[i]) for i in range(n)]


def r(expr_components: str) -> str:
    """HLSL that stores weigh() of the listed components of `t`."""
    comps = expr_components.split()
    return "R = " + " + ".join(f"t{c} * {i + 1}" for i, c in enumerate(comps)) + ";"


ADD, MUL, SUB = operator.add, operator.mul, operator.sub
XYZW, M2 = ".x .y .z .w", "._11 ._12 ._21 ._22"
ROWS = [
    # vector with a matrix of as many components: the vector's shape on the left, the matrix's on the right
    case("vec4_plus_mat2x2_is_vec4", DECLS + "float4 t = v4 + m22; " + r(XYZW), weigh(zipped(ADD, V4, M22, 4)),
         stmt=True),
    case("mat2x2_minus_vec4_is_mat2x2", DECLS + "float2x2 t = m22 - v4; " + r(M2), weigh(zipped(SUB, M22, V4, 4)),
         stmt=True),
    case("vec4_times_mat2x2_in_expression", DECLS + "float4 t = (v4 * m22).wzyx; " + r(XYZW),
         weigh(zipped(MUL, V4, M22, 4)[::-1]), stmt=True),
    case("vec3_plus_mat1x3_is_vec3", DECLS + "float3 t = v4.xyz + m13; " + r(".x .y .z"),
         weigh(zipped(ADD, V4, M13, 3)), stmt=True),
    # one-row / one-column matrix: the shorter side wins, the longer is truncated
    case("vec4_plus_mat1x3_is_mat1x3", DECLS + "float1x3 t = v4 + m13; " + r("._11 ._12 ._13"),
         weigh(zipped(ADD, V4, M13, 3)), stmt=True),
    case("vec2_plus_mat1x3_is_vec2", DECLS + "float2 t = v4.xy + m13; " + r(".x .y"),
         weigh(zipped(ADD, V4, M13, 2)), stmt=True),
    case("mat3x1_times_vec2_is_vec2", DECLS + "float2 t = m31 * v4.zw; " + r(".x .y"),
         weigh(zipped(MUL, M13, V4[2:], 2)), stmt=True),
    # a one-component vector splats, as a scalar does (it used to truncate the other side)
    case("vec1_plus_vec4_is_vec4", DECLS + "float4 t = v1 + v4; " + r(XYZW), weigh(zipped(ADD, [5.0], V4, 4)),
         stmt=True),
    case("vec4_minus_vec1_is_vec4", DECLS + "float4 t = v4 - v1; " + r(XYZW), weigh(zipped(SUB, V4, [5.0], 4)),
         stmt=True),
    case("vec1_times_mat2x2_is_mat2x2", DECLS + "float2x2 t = v1 * m22; " + r(M2),
         weigh(zipped(MUL, [5.0], M22, 4)), stmt=True),
    # comparisons and bitwise operators use the same shape
    case("vec4_less_mat2x2_is_bool4", DECLS + "bool4 t = v4 * 15 < m22; " + r(XYZW),
         weigh([float(a * 15 < b) for a, b in zip(V4, M22)]), stmt=True),
    case("int4_and_int2x2_is_int4", DECLS + "int4 t = int4(7, 12, 5, 255) & (int2x2)m22; " + r(XYZW),
         weigh([float(a & int(b)) for a, b in zip([7, 12, 5, 255], M22)]), stmt=True),
    # ?: combines its arms the same way
    case("conditional_vec4_or_mat2x2_is_vec4", DECLS + "float4 t = k > 0 ? v4 : m22; " + r(XYZW), weigh(V4),
         stmt=True),
    case("conditional_mat2x2_or_vec4_picks_vec4", DECLS + "float2x2 t = k < 0 ? m22 : v4; " + r(M2), weigh(V4),
         stmt=True),
    # compound assignments convert the right side to the left side's type
    case("vec4_add_assign_mat2x2", DECLS + "float4 t = v4; t += m22; " + r(XYZW), weigh(zipped(ADD, V4, M22, 4)),
         stmt=True),
    case("mat2x2_mul_assign_vec4", DECLS + "float2x2 t = m22; t *= v4; " + r(M2), weigh(zipped(MUL, M22, V4, 4)),
         stmt=True),
    case("vec2_sub_assign_mat1x3", DECLS + "float2 t = v4.xy; t -= m13; " + r(".x .y"),
         weigh(zipped(SUB, V4, M13, 2)), stmt=True),
]

PRELUDE = "float Weigh2(float2 v) { return v.x + 2 * v.y; }\nfloat4 Same4(float4 v) { return v; }\n"
ROWS += [
    # a user function's parameter takes the same implicit shape changes
    case("call_float2_param_with_mat1x3", DECLS + "R = Weigh2(m13);", weigh(M13[:2]), stmt=True),
    case("call_float4_param_with_mat2x2", DECLS + "float4 t = Same4(m22); " + r(XYZW), weigh(M22), stmt=True),
    case("call_float4_param_with_vec1", DECLS + "float4 t = Same4(v1); " + r(XYZW), weigh([5.0] * 4), stmt=True),
]

TABLE = SlotTable("vector_matrix_operators", "float", ROWS, prelude=PRELUDE, setup=SETUP, inputs=IN)
test_vector_matrix_operators = table_test(TABLE)

LOGICAL_2018 = SlotTable("vector_matrix_logical_2018", "float", [
    case("vec4_and_mat2x2_is_bool4", DECLS + "bool4 t = (v4 - 2) && (m22 - 30); " + r(XYZW),
         weigh([float(bool(a - 2) and bool(b - 30)) for a, b in zip(V4, M22)]), stmt=True),
], setup=SETUP, inputs=IN, hlsl_version=2018)
test_vector_matrix_logical_2018 = table_test(LOGICAL_2018)


# refused neighbours: DXC falls back to converting the right operand to the left one's type, which fails
# explicitly too (so its message drops 'implicitly'); located at the operator
REFUSED = [
    ("float3 a = 1; float2x2 b = 1; float3 c = a + b;", 48, "cannot convert from 'float2x2' to 'float3'"),
    ("float2 a = 1; float2x2 b = 1; float2 c = a * b;", 48, "cannot convert from 'float2x2' to 'float2'"),
    ("float2x3 a = 1; float4 b = 1; bool c = any(a == b);", 50,
     "cannot convert from 'float4' to 'float2x3'"),
    ("float2x1 a = 1; float1x2 b = 1; float2x1 c = a - b;", 52,
     "cannot convert from 'float1x2' to 'float2x1'"),
    ("float3 a = 1; float2x2 b = 1; a += b;", 37, "cannot convert from 'float2x2' to 'float3'"),
    ("float3 a = 1; float2x2 b = 1; float3 c = a.x > 0 ? a : b;", 54, "conditional operator result dimensions mismatch."),
]


@pytest.mark.parametrize("stmt, col, message", REFUSED)
def test_refused_vector_matrix_operands(stmt, col, message):
    src = "RWStructuredBuffer<float> Out : register(u0);\n[numthreads(1, 1, 1)]\nvoid main() {\n" \
          f"    {stmt}\n    Out[0] = 0;\n}}\n"
    res = compile_cs(src)
    errors = [d for d in res.diagnostics if d.severity == "error"]
    assert not res.ok
    assert [(d.message, d.loc.line, d.loc.col) for d in errors] == [(message, 4, col)]


@pytest.mark.parametrize("stmt, col", [("float2 c = a.xy + m;", 21), ("float1x3 c = a + m;", 20),
                                       ("float4 c = a; c += m2;", 21)])
def test_vector_matrix_truncation_warns(stmt, col):
    """Only a truncating operand warns ('implicit truncation of vector type', at the operator); the
    equal-count vector/matrix conversion does not."""
    src = ("RWStructuredBuffer<float> Out : register(u0);\n[numthreads(1, 1, 1)]\nvoid main() {\n"
           "    float4 a = Out[0]; float1x3 m = Out[1]; float2x2 m2 = Out[2];\n"
           f"    {stmt}\n    Out[0] = c[0].x;\n}}\n")
    res = compile_cs(src)
    assert res.ok
    warns = [(d.message, d.loc.line, d.loc.col) for d in res.diagnostics if d.severity == "warning"]
    want = [] if "+=" in stmt else [("implicit truncation of vector type", 5, col)]
    assert warns == want
