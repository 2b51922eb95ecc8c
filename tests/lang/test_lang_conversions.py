"""Executed conversions: implicit scalar conversions (int/uint/float/bool), splats, vector and
matrix truncation (with its warning), explicit casts (also aggregate <-> vector flat casts),
constructors, flattening initializer lists, and literal typing (suffixes, hex/octal/exponent
forms, unsuffixed literals adopting the other operand's type)."""

from __future__ import annotations

import pytest
from lang_util import SlotTable, case, compile_ok, f32, run_cs, table_test

pytestmark = [pytest.mark.vulkan, pytest.mark.usefixtures("vk")]

SETUP = ("    int one = In[0], two = In[1], three = In[2], m1 = In[3];\n"
         "    float fone = (float)one; float fhalf = fone * 0.5;\n")
IN = {"In": ("int", [1, 2, 3, -1])}
PRELUDE = """
struct S2 { float a; float b; };
struct Mixed { float2 v; int k; float f; };
int ReturnsTruncated(float x) { return x; }
"""

# regression guard: literal-ness was once tracked by id() of IR nodes, and a reused id made the load of a
# uint variable adopt the int operand's type (a signed compare); see test_int_uint_compare_is_unsigned_every_time
IMPLICIT = SlotTable("implicit_conversions", "float", [
    case("float_to_int_truncates_toward_zero", "int i = -2.7 * fone; R = i;", -2.0, stmt=True),
    case("float_to_int_positive", "int i = 2.7 * fone; R = i;", 2.0, stmt=True),
    case("float_to_uint", "uint u = 3.99 * fone; R = u;", 3.0, stmt=True),
    case("float_to_bool_nonzero", "bool b = 0.5 * fone; R = b;", 1.0, stmt=True),
    case("float_to_bool_zero", "bool b = 0.0 * fone; R = b;", 0.0, stmt=True),
    case("int_to_bool_negative", "bool b = m1; R = b;", 1.0, stmt=True),
    case("bool_to_float", "float f = (one > 0); R = f * 5;", 5.0, stmt=True),
    case("bool_to_int_arith", "int i = (one > 0) + (two > 0); R = i;", 2.0, stmt=True),
    case("int_to_float_in_arith", "R = one / 2 + fhalf;", 0.5, stmt=True),  # int division first
    case("int_promoted_by_float_operand", "R = two / (2.0 * fone * 2);", 0.5, stmt=True),
    case("uint_int_compare_unsigned", "uint u = 1; R = (m1 < u) ? 1 : 0;", 0.0, stmt=True),
    case("int_to_uint_wraps", "uint u = m1; R = (float)(u == 0xFFFFFFFFu);", 1.0, stmt=True),
    case("splat_scalar_to_vector", "float4 v = fhalf; R = v.x + v.y + v.z + v.w;", 2.0, stmt=True),
    case("splat_int_to_float_vector", "float3 v = two; R = v.x + v.y + v.z;", 6.0, stmt=True),
    case("vector_truncation_assign", "float2 t = float4(1, 2, 3, 4) * fone; R = t.x * 10 + t.y;", 12.0, stmt=True),
    case("vector_to_scalar_truncation", "float s = float3(7, 8, 9) * fone; R = s;", 7.0, stmt=True),
    case("vector_int_to_float", "float3 v = int3(one, -two, three); R = v.x * 100 + v.y * 10 + v.z;", 100 - 20 + 3.0,
         stmt=True),
    case("vector_float_to_int_truncates", "int3 v = float3(-1.5, 2.5, 3.9) * fone; R = v.x * 100 + v.y * 10 + v.z;",
         -100 + 20 + 3.0, stmt=True),
    case("vector_to_bool_vector", "bool2 b = float2(0, 3) * fone; R = (float)b.x * 10 + b.y;", 1.0, stmt=True),
    case("matrix_truncation_implicit", "float3x3 m = {1,2,3,4,5,6,7,8,9}; float2x2 t = m; R = t._21 * 10 + t._22;",
         45.0, stmt=True),
    case("return_converts", "R = ReturnsTruncated(2.9 * fone);", 2.0, stmt=True),
    case("mixed_vector_scalar_arith", "float2 v = int2(one, two) * 1.5; R = v.x + v.y;", 4.5, stmt=True),
    case("int_times_half_literal_is_float", "R = three * 0.5;", 1.5, stmt=True),
    case("half_var_is_float32", "half h = 1.0 / 3.0 * fone; R = h;", f32(f32(1.0 / 3.0)), stmt=True),
    case("double_to_float", "double d = 0.1l * (double)fone; float f = (float)d; R = f;", f32(0.1), stmt=True),
], prelude=PRELUDE, setup=SETUP, inputs=IN)

CASTS = SlotTable("casts_and_constructors", "float", [
    case("cast_vector_to_scalar", "R = (float)float3(5, 6, 7);", 5.0, stmt=True),
    case("cast_scalar_to_vector", "float3 v = (float3)fhalf; R = v.x + v.y + v.z;", 1.5, stmt=True),
    case("cast_to_smaller_vector", "float2 v = (float2)float4(1, 2, 3, 4); R = v.y;", 2.0, stmt=True),
    case("cast_array_to_vector", "float arr[4] = {1, 2, 3, 4}; float4 v = (float4)arr; R = v.w * 10 + v.x;", 41.0,
         stmt=True),
    case("cast_struct_to_vector", "S2 s = {3, 4}; float2 v = (float2)s; R = v.x * 10 + v.y;", 34.0, stmt=True),
    case("cast_vector_to_struct", "S2 s = (S2)float2(5, 6); R = s.a * 10 + s.b;", 56.0, stmt=True),
    case("cast_scalar_to_struct", "Mixed m = (Mixed)0; R = m.v.x + m.k + m.f;", 0.0, stmt=True),
    case("cast_int_to_float_exact", "R = (float)(one * 16777217);", f32(16777217.0), stmt=True),
    case("cast_bool_to_float", "R = (float)(two > one);", 1.0, stmt=True),
    case("cast_float_to_int_to_float", "R = (float)(int)(-3.7 * fone);", -3.0, stmt=True),
    case("ctor_vec_xy_0_1", "float4 v = float4(float2(fone, 2).xy, 0, 1); R = v.x * 1000 + v.y * 100 + v.z * 10 + v.w;",
         1201.0, stmt=True),
    case("ctor_int_from_float_vector", "int2 v = int2(float2(1.9, -1.9) * fone); R = v.x * 10 + v.y;", 9.0, stmt=True),
    case("ctor_matrix_from_rows", "float3x3 m = float3x3(float3(1, 2, 3), float3(4, 5, 6), float3(7, 8, 9)); R = m._32;",
         8.0, stmt=True),
    case("ctor_matrix_scalars_mixed", "float2x2 m = float2x2(fone, float2(2, 3), 4); R = m._12 * 10 + m._21;", 23.0,
         stmt=True),
    case("ctor_vector_from_matrix", "float2x2 m = {1, 2, 3, 4}; float4 v = float4(m); R = v.y * 10 + v.z;", 23.0,
         stmt=True),
    case("ctor_bool_vector", "bool3 b = bool3(one, 0, 2.5 * fone); R = (float)b.x + b.y * 2 + b.z * 4;", 5.0,
         stmt=True),
    case("ctor_struct_from_values", "Mixed m = {float2(1, 2), 3, 4}; R = m.v.y * 100 + m.k * 10 + m.f;", 234.0,
         stmt=True),
])
CASTS.prelude, CASTS.setup, CASTS.inputs = PRELUDE, SETUP, IN

INIT_LISTS = SlotTable("initializer_lists", "float", [
    case("vector_from_parts", "float4 v = {float2(1, 2), 3, 4}; R = v.x * 1000 + v.y * 100 + v.z * 10 + v.w;",
         1234.0, stmt=True),
    case("array_from_vectors", "int a[4] = {int2(1, 2), 3, 4}; R = a[1] * 10 + a[3];", 24.0, stmt=True),
    case("matrix_from_vectors", "float2x2 m = {float2(1, 2), float2(3, 4)}; R = m._12 * 10 + m._21;", 23.0,
         stmt=True),
    case("struct_from_flat", "Mixed m = {1, 2, 3, 4}; R = m.v.x * 1000 + m.v.y * 100 + m.k * 10 + m.f;", 1234.0,
         stmt=True),
    case("struct_from_struct_and_scalars", "S2 s = {5, 6}; Mixed m = {s, 7, 8}; R = m.v.y * 100 + m.k * 10 + m.f;",
         678.0, stmt=True),
    case("array_of_struct_flat", "S2 arr[2] = {1, 2, 3, 4}; R = arr[1].a * 10 + arr[0].b;", 32.0, stmt=True),
    case("nested_braces_ignored", "float4 v = {{1, 2}, {3, {4}}}; R = v.w * 10 + v.z;", 43.0, stmt=True),
    case("array_from_matrix", "float2x2 m = {1, 2, 3, 4}; float a[4] = {m}; R = a[1] * 10 + a[2];", 23.0, stmt=True),
    case("init_converts_elements", "int a[3] = {1.9, -2.9, fone * 3.5}; R = a[0] * 100 + a[1] * 10 + a[2];",
         100 - 20 + 3.0, stmt=True),
    case("scalar_init_braced", "float f = {fhalf}; R = f;", 0.5, stmt=True),
], prelude=PRELUDE, setup=SETUP, inputs=IN)

LITERALS = SlotTable("literals", "uint", [
    case("hex", "0x1F", 31),
    case("hex_upper", "0XABCDu", 0xABCD),
    case("octal", "017", 15),
    case("uint_suffix_upper", "10U", 10),
    case("int_literal_division", "(uint)(7 / 2)", 3),
    case("float_literal_division", "(uint)(7 / 2.0 * 2)", 7),
    case("exponent_float", "(uint)1e2", 100),
    case("exponent_negative", "(uint)(25e-1 * 2)", 5),
    case("leading_dot", "(uint)(.5 * 8)", 4),
    case("trailing_dot", "(uint)(2. * 3)", 6),
    case("float_suffix_f", "(uint)(1.5f * 4)", 6),
    case("float_suffix_upper_F", "(uint)(2.5F * 2)", 5),
    case("double_suffix_l", "(uint)(0.25l * 8)", 2),
    case("half_suffix_h", "(uint)(0.75h * 4)", 3),
    case("literal_adopts_uint", "(uint)((uint)In[3] + 1)", 0),  # 0xFFFFFFFF + 1 wraps in uint
    case("negative_literal_to_uint", "(uint)-1", 0xFFFFFFFF),
    case("max_uint_literal", "4294967295", 0xFFFFFFFF),
    case("int_max_plus_one_literal_fold", "(uint)(2147483647 + (uint)In[0])", 0x80000000),
    case("bool_literals", "(uint)true * 10 + (uint)false", 10),
    case("char_arith_in_literal_expr", "(uint)((3 + 4) * 2 - 1)", 13),
    case("ull_literal_64bit", "(uint)(0x100000000ull >> 31)", 2),
    case("ll_suffix_is_64bit", "(uint)((5ll << 40) >> 38)", 20),
    case("ull_suffix_shift_is_64bit", "(uint)((5ull << 40) >> 38)", 20),
    case("upper_LL_suffix", "(uint)((5LL << 33) >> 32)", 10),
    case("exponent_with_f_suffix", "(uint)(1e1f * 2)", 20),
    case("exponent_after_trailing_dot", "(uint)1.e1", 10),
    case("leading_zero_octal_seven", "07 + 010", 15),
], setup="", inputs={"In": ("uint", [1, 2, 3, 0xFFFFFFFF])})

NAN_BOOL = "float n = asfloat(0x7FC00000u + (uint)one - 1u); "
FLOAT_BOOL = SlotTable("float_to_bool", "int", [
    case("nan_converts_to_true", NAN_BOOL + "bool b = n; R = (int)b;", 1, stmt=True),
    case("nan_in_if_is_true", NAN_BOOL + "if (n) R = 1; else R = 2;", 1, stmt=True),
    case("not_nan_is_false", NAN_BOOL + "R = (int)!n;", 0, stmt=True),
    case("negative_zero_is_false", "float z = -0.0 * (float)one; R = (int)(bool)z;", 0, stmt=True),
    case("tiny_is_true", "float t = 1e-30 * (float)one; R = (int)(bool)t;", 1, stmt=True),
    case("minus_half_truncates_to_zero", "(int)(-0.5 * (float)one)", 0),
    case("compound_int_plus_float", "int x = 5 * one; x += 1.5; R = x;", 6, stmt=True),
    case("compound_int_times_half", "int y = 5 * one; y *= 0.5; R = y;", 2, stmt=True),
    case("compound_vector_truncates_rhs", "float2 v = float2(1, 2); v += float4(10, 20, 30, 40) * (float)one; R = (int)(v.x + v.y);",
         33, stmt=True),
], setup="    int one = In[0];\n", inputs={"In": ("int", [1])})

LITERALS_WIDE = SlotTable("literals_in_wide_context", "int", [
    case("double_from_literal_keeps_precision", "double d = 0.1; R = (int)((d - 0.1l) * 1e17l);", 0, stmt=True),
    case("double_from_literal_division", "double d = 1.0 / 3.0; R = (int)((d - 0.333333l) * 1e9l);",
         int((1.0 / 3.0 - 0.333333) * 1e9), stmt=True),
    case("double_from_literal_product", "double d = 1.0e300 * 10.0; R = (int)(d / 1.0e300l);", 10, stmt=True),
    case("int64_from_negative_int_min_literal", "int64_t a = -2147483648; R = (int)(a >> 32) * 10 + (int)(a < 0);", -10 + 1,
         stmt=True),
    case("int64_from_large_literal", "int64_t b = 2147483648; R = (int)(b >> 31);", 1, stmt=True),
    case("int64_from_uint_max_literal", "int64_t c = 0xFFFFFFFF; R = (int)(c >> 16);", 0xFFFF, stmt=True),
    case("int64_from_2_pow_32_literal", "int64_t e = 4294967296; R = (int)(e >> 32);", 1, stmt=True),
    case("uint64_from_minus_one", "uint64_t g = -1; R = (int)(g >> 60);", 15, stmt=True),
    case("int_from_uint_max_literal", "int x = 0xFFFFFFFF; R = x;", -1, stmt=True),
    case("float_suffix_beyond_range_is_infinity", "float f = 3.4e39f; R = (int)isinf(f) * 10 + (int)(f > 0);", 11,
         stmt=True),
    case("float_from_large_int_literal", "float f = 16777217; R = (int)(f - 16777216.0);", 0, stmt=True),
], setup="", inputs={})

test_implicit_conversions = table_test(IMPLICIT)
test_literals_in_wide_context = table_test(LITERALS_WIDE)
test_float_to_bool = table_test(FLOAT_BOOL)
test_casts_and_constructors = table_test(CASTS)
test_initializer_lists = table_test(INIT_LISTS)
test_literals = table_test(LITERALS)

# the location is the operator of the truncated expression (clang's getExprLoc of a binary operator)
TRUNCATION_WARNINGS = [
    ("float2 t = float4(1, 2, 3, 4) * x;", 35, "implicit truncation of vector type"),
    ("float s = float3(1, 2, 3) * x;", 31, "implicit truncation of vector type"),
    ("float2x2 m = float3x3(1, 2, 3, 4, 5, 6, 7, 8, 9) * x;", 54, "implicit truncation of matrix type"),
    ("float2 r = float2(1, 2) + float3(1, 2, 3) * x;", 29, "implicit truncation of vector type"),
]


@pytest.mark.parametrize("stmt, col, message", TRUNCATION_WARNINGS)
def test_truncation_warns(stmt, col, message):
    """Implicit truncation compiles with a warning at the expression (DXC: 'implicit truncation of vector type')."""
    src = ("RWStructuredBuffer<float> Out : register(u0);\n[numthreads(1, 1, 1)]\nvoid main() {\n"
           f"    float x = Out[0];\n    {stmt}\n    Out[1] = 0;\n}}\n")
    res = compile_ok(src)
    warns = [d for d in res.diagnostics if d.severity == "warning"]
    assert [d.message for d in warns] == [message]
    assert (warns[0].loc.line, warns[0].loc.col) == (5, col)


def test_explicit_cast_does_not_warn():
    src = ("RWStructuredBuffer<float> Out : register(u0);\n[numthreads(1, 1, 1)]\nvoid main() {\n"
           "    float2 t = (float2)float4(1, 2, 3, 4); float s = (float)t;\n    Out[0] = t.x + s;\n}\n")
    assert [d for d in compile_ok(src).diagnostics if d.severity == "warning"] == []

LITERAL_STRESS_BLOCK = "    { float R = (float)0; uint u = 1; R = (m1 < u) ? 1 : 0; Out[%d] = R; }\n"
LITERAL_STRESS = ("RWStructuredBuffer<float> Out : register(u0);\nStructuredBuffer<int> In : register(t1);\n"
                  "[numthreads(1, 1, 1)]\nvoid main() {\n    int m1 = In[0];\n"
                  + "".join(LITERAL_STRESS_BLOCK % i for i in range(64)) + "}\n")


def test_int_uint_compare_is_unsigned_every_time():
    """64 copies of `int < uint`: every one must compare unsigned (-1 -> 0xFFFFFFFF, not less than 1)."""
    got = run_cs(LITERAL_STRESS, {"Out": ("float", 64)}, {"In": ("int", [-1])})["Out"]
    assert got == [0.0] * 64
