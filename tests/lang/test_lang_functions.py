"""Executed user functions: overload resolution by argument type and shape, literal arguments,
default arguments, out/inout through swizzles, array elements and struct members (index
evaluated once), struct and array returns, nested calls and early returns."""

from __future__ import annotations

import pytest
from lang_util import SlotTable, case, table_test

pytestmark = [pytest.mark.vulkan, pytest.mark.usefixtures("vk")]

SETUP = ("    int one = In[0], two = In[1], three = In[2];\n"
         "    uint uone = (uint)one; float fone = (float)one; float2 f2 = float2(fone, 2);\n")
IN = {"In": ("int", [1, 2, 3])}

PRELUDE = """
int Kind(int x) { return 1; }
int Kind(uint x) { return 2; }
int Kind(float x) { return 3; }
int Kind(bool x) { return 4; }
int Kind(double x) { return 5; }
int Shape(float x) { return 1; }
int Shape(float2 x) { return 2; }
int Shape(float4 x) { return 4; }
int Pair(int a, float b) { return 10; }
int Pair(float a, float b) { return 20; }
int Defaults(int a, int b = 10, int c = 100) { return a + b + c; }
float DefaultFloat(float x, float scale = 0.5) { return x * scale; }
int Arity(int a) { return 1; }
int Arity(int a, int b) { return 2; }
void SetXY(out float2 v) { v = float2(7, 8); }
void Bump(inout int v) { v += 10; }
void Bump3(inout int3 v) { v += int3(1, 2, 3); }
struct P { int a; int b; };
P MakeP(int a) { P p; p.a = a; p.b = a * 2; return p; }
void FillP(out P p) { p.a = 4; p.b = 5; }
typedef int Arr3[3];
Arr3 MakeArr(int base) { Arr3 r = {base, base + 1, base + 2}; return r; }
int Sum3(int a[3]) { return a[0] + a[1] + a[2]; }
int EarlyReturn(int x) { if (x > 1) return 100; for (int i = 0; i < 10; i++) { if (i == x) return i + 50; } return -1; }
int Nest(int x) { return Defaults(Defaults(x, 1, 1), 2, 2); }
static int g_index_calls = 0;
int Idx(int i) { g_index_calls += 1; return i; }
void TwoOuts(out int a, out int b) { a = 1; b = 2; }
float4 Vec4Ret(float x) { return x; }
static const int KDef = 3;
int DefaultExpr(int a, int b = KDef * 2) { return a + b; }
void FillArr(out int a[3]) { a[0] = 1; a[1] = 2; a[2] = 3; }
void IncArr(inout int a[3]) { for (int i = 0; i < 3; i++) a[i] += 1; }
struct HasMat { float2x2 m; };
void ScaleMat(inout HasMat s) { s.m *= 2; }
float2x2 MakeDiag(float a) { return float2x2(a, 0, 0, a); }
int ByMat(float2x2 m) { return 22; }
int ByMat(float3x3 m) { return 33; }
"""

OVERLOADS = SlotTable("overloads", "int", [
    case("int_arg_picks_int", "Kind(one)", 1),
    case("uint_arg_picks_uint", "Kind(uone)", 2),
    case("float_arg_picks_float", "Kind(fone)", 3),
    case("bool_arg_picks_bool", "Kind(one > 0)", 4),
    case("double_arg_picks_double", "Kind((double)fone)", 5),
    # Kind(7) with int and uint overloads is ambiguous, as in DXC: tests/front/test_dxc_rejects.py
    case("uint_literal_picks_uint", "Kind(7u)", 2),
    case("float_suffix_literal_picks_float", "Kind(7.0f)", 3),
    case("double_suffix_literal_picks_double", "Kind(7.0l)", 5),
    case("scalar_picks_scalar_shape", "Shape(fone)", 1),
    case("float2_picks_float2", "Shape(f2)", 2),
    case("float4_picks_float4", "Shape(float4(f2, f2))", 4),
    case("int2_converts_to_float2", "Shape(int2(one, two))", 2),
    case("exact_beats_conversion", "Pair(one, fone)", 10),
    case("float_first_arg", "Pair(fone, fone)", 20),
    case("arity_one", "Arity(one)", 1),
    case("arity_two", "Arity(one, two)", 2),
    case("defaults_all", "Defaults(one)", 111),
    case("defaults_one_given", "Defaults(one, two)", 103),
    case("defaults_none_used", "Defaults(one, two, three)", 6),
    case("default_float", "(int)(DefaultFloat(8.0 * fone) * 10)", 40),
    case("nested_calls", "Nest(one)", 1 + 1 + 1 + 2 + 2),
    case("early_return_first", "EarlyReturn(three)", 100),
    case("early_return_in_loop", "EarlyReturn(one)", 51),
    case("early_return_fallthrough", "EarlyReturn(-one)", -1),
], prelude=PRELUDE, setup=SETUP, inputs=IN)

ARGS = SlotTable("argument_passing", "int", [
    case("out_into_swizzle", "float4 v = 0; SetXY(v.wy); R = (int)(v.x * 1000 + v.y * 100 + v.z * 10 + v.w);",
         807, stmt=True),  # v.w = 7, v.y = 8
    case("inout_into_vector_component", "int3 v = int3(1, 2, 3); Bump(v.y); R = v.x * 10000 + v.y * 100 + v.z;",
         11203, stmt=True),
    case("inout_into_array_element", "int a[3] = {1, 2, 3}; Bump(a[two]); R = a[0] * 100 + a[1] * 10 + a[2];", 133,
         stmt=True),
    case("inout_index_evaluated_once", "int a[3] = {1, 2, 3}; g_index_calls = 0; Bump(a[Idx(one)]);"
         " R = g_index_calls * 1000 + a[1];", 1012, stmt=True),
    case("inout_struct_member", "P p = MakeP(three); Bump(p.b); R = p.a * 100 + p.b;", 316, stmt=True),
    case("inout_swizzle_vector", "int4 v = int4(1, 2, 3, 4); Bump3(v.wzy); R = v.x * 1000 + v.y * 100 + v.z * 10 + v.w;",
         1000 + 500 + 50 + 5, stmt=True),
    case("out_struct", "P p; FillP(p); R = p.a * 10 + p.b;", 45, stmt=True),
    case("struct_return", "P p = MakeP(three); R = p.a * 10 + p.b;", 36, stmt=True),
    case("struct_return_member_access", "R = MakeP(two).b;", 4, stmt=True),
    case("array_return", "Arr3 r = MakeArr(three); R = r[0] * 100 + r[1] * 10 + r[2];", 345, stmt=True),
    case("array_argument", "int a[3] = {4, 5, 6}; R = Sum3(a);", 15, stmt=True),
    case("two_outs_same_call", "int x = 0, y = 0; TwoOuts(x, y); R = x * 10 + y;", 12, stmt=True),
    case("scalar_return_splat", "float4 v = Vec4Ret(fone * 3); R = (int)(v.x + v.y + v.z + v.w);", 12, stmt=True),
    case("call_in_condition", "R = (Defaults(one) > 100) ? 1 : 0;", 1, stmt=True),
    case("call_result_discarded", "Defaults(one); R = 5;", 5, stmt=True),
    case("default_arg_constant_expression", "R = DefaultExpr(one);", 7, stmt=True),
    case("out_array", "int a[3]; FillArr(a); R = a[0] * 100 + a[1] * 10 + a[2];", 123, stmt=True),
    case("inout_array", "int a[3] = {1, 2, 3}; IncArr(a); R = a[0] * 100 + a[1] * 10 + a[2];", 234, stmt=True),
    case("inout_struct_with_matrix", "HasMat s = {1, 2, 3, 4}; ScaleMat(s); R = (int)s.m._22;", 8, stmt=True),
    case("matrix_return", "float2x2 m = MakeDiag(three); R = (int)(m._11 + m._22 + m._12);", 6, stmt=True),
    case("overload_by_matrix_shape", "float3x3 m = 0; R = ByMat(m);", 33, stmt=True),
    case("inout_with_literal_conversion_int_to_uint", "uint u = 5u; Bump(u); R = (int)u;", 15, stmt=True),
], prelude=PRELUDE, setup=SETUP, inputs=IN)

MORE_PRELUDE = """
int Sum2x2(int a[2][2]) { a[0][0] = 100; return a[0][0] + a[1][1]; }
struct Vals { int v[4]; };
void DoubleAll(inout Vals s) { for (int i = 0; i < 4; i++) s.v[i] *= 2; }
groupshared int Sh[4];
void SetTo(out int x, int v) { x = v; }
void StepA(inout int x) { x += 1; }
void StepB(inout int x) { StepA(x); x *= 2; }
void StepC(inout int x) { StepB(x); StepB(x); }
int StepD(int x) { StepC(x); return x; }
float4 Ramp(float x) { return float4(x, x + 1, x + 2, x + 3); }
void SetPair(out int2 v) { v = int2(7, 8); }
int OutFive(out int y) { y = 5; return 3; }
int Digits(int a, int b) { return a * 10 + b; }
static float s_root = sqrt(4.0 * (float)In[0]);
static int s_scaled = In[1] * 3;
"""
MORE = SlotTable("more_calls", "int", [
    case("array_2d_by_value", "int g[2][2] = {1, 2, 3, 4}; R = Sum2x2(g) * 10 + g[0][0];", 1041, stmt=True),
    case("struct_array_member_inout_loop", "Vals s = {1, 2, 3, 4}; DoubleAll(s); R = s.v[0] + s.v[1] * 10 + s.v[2] * 100 + s.v[3] * 1000;",
         8642, stmt=True),
    case("out_into_groupshared_element", "SetTo(Sh[two], 9); R = Sh[2];", 9, stmt=True),
    case("deep_inout_chain", "R = StepD(one) * 100; int y = 3; StepC(y); R += y;", 1018, stmt=True),
    case("swizzle_of_call_result", "int2 v = Ramp(one).yx; R = v.x * 10 + v.y;", 21, stmt=True),
    case("member_of_call_result", "R = (int)Ramp(2).w;", 5, stmt=True),
    case("out_into_matrix_elements", "int2x2 m = 0; StepA(m[1][0]); StepA(m._22); R = m._21 * 100 + m._22;", 101,
         stmt=True),
    case("out_into_matrix_multi_swizzle", "int2x2 m = 0; SetPair(m._m00_m11); R = m._11 * 10 + m._22;", 78, stmt=True),
    case("arguments_evaluated_left_to_right", "int y = 0; int r = Digits(OutFive(y), y); R = r * 10 + y;", 355, stmt=True),
    case("static_initialised_at_entry", "R = (int)s_root * 10 + s_scaled;", 26, stmt=True),
], prelude=MORE_PRELUDE, setup=SETUP, inputs=IN)

STATIC_CALL_INIT = SlotTable("static_init_call", "int", [
    case("static_initialised_by_user_function", "R = s_seven_times;", 21, stmt=True,
         prelude="int Times7(int x) { return x * 7; }\nstatic int s_seven_times = Times7(3);\n"),
], setup=SETUP, inputs=IN)

PROG_SETUP = ("    int one = In[0], two = In[1], three = In[2], zero = In[4], five = In[5], hund = In[7];\n")
PROG_PRELUDE = """
struct VK { int2 v; int k; };
static const float3 Table3[3] = { float3(1, 2, 3), float3(4, 5, 6), float3(7, 8, 9) };
struct PG { int a; float b; int2 c; };
static PG g_pg = { 1, 2.5, int2(3, 4) };
int Sw(int x) {
    switch (x) {
        case 0: return 10; case 1: return 11; case 2: return 12; case 3: return 13; case 4: return 14;
        case 5: return 15; case 6: return 16; case 7: return 17; case 8: return 18; case 9: return 19;
        case 10: return 20; case 11: return 21; case 12: return 22; case 13: return 23; case 14: return 24;
        case 15: return 25; case 100: return 99; default: return -1;
    }
}
void Many(int a, out int b, inout int c, int d, out int e, in out int f, int g, out int h, int i2, inout int j) {
    b = a + d; c += g; e = i2 * 2; f *= 3; h = a + c; j = -j;
}
static int s_cnt = 0;
int NextCount() { s_cnt++; return s_cnt; }
"""
PROGRAMS = SlotTable("small_programs", "int", [
    case("dynamic_struct_array_swizzle_write", "VK arr[3] = (VK[3])0; arr[two].v.yx = int2(7, 9); arr[one].k = 4;"
         " R = arr[2].v.x * 100 + arr[2].v.y * 10 + arr[1].k;", 974, stmt=True),
    case("static_const_vector_table", "R = (int)(Table3[two].y * 10 + Table3[one].z);", 86, stmt=True),
    case("static_struct_initialiser", "R = g_pg.a * 1000 + (int)(g_pg.b * 100) + g_pg.c.y;", 1254, stmt=True),
    case("static_struct_mutation", "g_pg.c.x = five; R = g_pg.c.x;", 5, stmt=True),
    case("switch_with_17_returning_cases", "int s = 0; for (int i = 0; i < 17; i++) s += Sw(i); R = s;",
         sum(range(10, 26)) - 1, stmt=True),
    case("switch_sparse_case", "R = Sw(hund);", 99, stmt=True),
    case("ten_mixed_direction_parameters", "int b, e, h; int c = 10, f = 4, j = 6; Many(one, b, c, two, e, f, three, h, five, j);"
         " R = b * 100000 + c * 10000 + e * 1000 + f * 100 + h * 10 + (j + 6);", 441340, stmt=True),
    case("ternary_side_effects_in_loop", "int s = 0; for (int i = 0; i < 6; i++) s += (i % 2 == 0) ? NextCount() : 100;"
         " R = s * 10 + s_cnt;", (1 + 2 + 3 + 300) * 10 + 3, stmt=True),
    case("array_of_arrays_assignment", "int a[2][2] = {1, 2, 3, 4}; int b[2][2]; b = a; b[1] = a[0];"
         " R = b[0][0] * 1000 + b[0][1] * 100 + b[1][0] * 10 + b[1][1];", 1212, stmt=True),
    case("matrix_array_dynamic_index", "float2x2 ms[2] = {1, 2, 3, 4, 5, 6, 7, 8}; R = (int)(ms[one][one][zero] * 10 + ms[zero][zero][one]);",
         72, stmt=True),
], prelude=PROG_PRELUDE, setup=PROG_SETUP, inputs={"In": ("int", [1, 2, 3, -1, 0, 5, -7, 100])})

test_overloads = table_test(OVERLOADS)
test_small_programs = table_test(PROGRAMS)
test_more_calls = table_test(MORE)
test_static_init_call = table_test(STATIC_CALL_INIT)
test_argument_passing = table_test(ARGS)
