"""Executed HLSL operators: arithmetic, bitwise, comparison, compound assignment, ++/--, comma,
ternary, and HLSL 2021 short-circuiting (side effects of the skipped operand must not happen)
versus HLSL 2018's evaluate-both semantics.  Expected values are computed in Python from the
same inputs the shader reads from a buffer (so nothing folds at compile time)."""

from __future__ import annotations

import pytest
from lang_util import SlotTable, case, f32, i32, run_backend, run_cs, table_test, trunc_div, trunc_mod, u32

pytestmark = [pytest.mark.vulkan, pytest.mark.usefixtures("vk")]

IA = [-7, 3, 0, 1, 5, 100, -1, 2, 31, -2147483647 - 1]
a, b, z, one, five, hund, m1, two, t31, imin = IA
INT_SETUP = "    int a = In[0], b = In[1], z = In[2], one = In[3], five = In[4], hund = In[5], m1 = In[6];\n" \
            "    int two = In[7], t31 = In[8], imin = In[9];\n"

INT_OPS = SlotTable("int_ops", "int", [
    case("add", "a + b", a + b),
    case("sub", "a - b", a - b),
    case("mul", "a * b", a * b),
    case("div_trunc_neg", "a / b", trunc_div(a, b)),
    case("mod_sign_of_dividend", "a % b", trunc_mod(a, b)),
    case("div_pos_by_neg", "hund / a", trunc_div(hund, a)),
    case("mod_pos_by_neg", "hund % a", trunc_mod(hund, a)),
    case("shl", "a << 2", a << 2),
    case("shr_arithmetic", "a >> 1", a >> 1),
    case("shr_by_var", "hund >> two", hund >> two),
    case("shl_count_masked", "one << (t31 + one)", 1),  # shift counts use the low 5 bits (32 -> 0)
    case("and", "a & b", a & b),
    case("or", "a | b", a | b),
    case("xor", "a ^ b", a ^ b),
    case("bitnot", "~a", ~a),
    case("neg", "-a", -a),
    case("unary_plus", "+a", a),
    case("not_zero", "!z", 1),
    case("not_nonzero", "!a", 0),
    case("eq", "a == b", 0),
    case("ne", "a != b", 1),
    case("lt", "a < b", 1),
    case("le_equal", "b <= b", 1),
    case("gt", "a > b", 0),
    case("ge", "hund >= five", 1),
    case("precedence_mul_add", "a + b * five", a + b * five),
    case("precedence_shift_add", "one << two + one", 1 << 3),
    case("precedence_and_eq", "(b & one) == one", 1),
    case("mul_wraps", "hund * hund * hund * hund * hund", i32(100 ** 5)),
    case("add_wraps_min", "imin + m1", i32(imin - 1)),
    case("neg_min_wraps", "-imin", imin),
    case("paren_group", "(a + b) * (five - two)", (a + b) * (five - two)),
], setup=INT_SETUP, inputs={"In": ("int", IA)})

UA = [0xF0000001, 5, 3, 0xFFFFFFFF, 1]
UINT_SETUP = "    uint c = In[0], d = In[1], e = In[2], mx = In[3], u1 = In[4];\n"
c_, d_, e_, mx, u1 = UA
UINT_OPS = SlotTable("uint_ops", "uint", [
    case("div", "c / d", c_ // d_),
    case("mod", "c % d", c_ % d_),
    case("shr_logical", "c >> 4", c_ >> 4),
    case("shl_drops_bits", "c << 4", u32(c_ << 4)),
    case("add_wraps", "mx + u1", 0),
    case("sub_wraps", "e - d", u32(e_ - d_)),
    case("mul_wraps", "c * d", u32(c_ * d_)),
    case("bitnot", "~c", u32(~c_)),
    case("neg", "-d", u32(-d_)),
    case("lt_unsigned", "(uint)(d < c)", 1),  # 0xF0000001 is large, not negative
    case("mixed_int_uint_is_unsigned", "(uint)((int)mx > d)", 1),  # -1 converts to 0xFFFFFFFF
    case("xor_self_zero", "c ^ c", 0),
    case("and_mask", "c & 0xFFu", c_ & 0xFF),
    case("or_high", "d | 0x80000000u", d_ | 0x80000000),
], setup=UINT_SETUP, inputs={"In": ("uint", UA)})

FA = [1.5, -2.25, 0.0, 3.0, 7.5, 2.0, -0.5, 1e30]
fa, fb, fz, f3, f75, f2, fmh, fbig = (f32(x) for x in FA)
FLOAT_SETUP = "    float a = In[0], b = In[1], z = In[2], c = In[3], d = In[4], e = In[5], h = In[6], big = In[7];\n"
FLOAT_OPS = SlotTable("float_ops", "float", [
    case("add", "a + b", fa + fb),
    case("sub", "a - b", fa - fb),
    case("mul", "a * b", fa * fb),
    case("div", "d / c", f32(f75 / f3), ulps=1),
    case("mod_positive", "d % e", 1.5),  # HLSL float % truncates like fmod
    case("mod_negative_dividend", "(-d) % e", -1.5),
    case("neg", "-a", -fa),
    case("lt", "a < b ? 1.0 : 0.0", 0.0),
    case("ge", "a >= a ? 1.0 : 0.0", 1.0),
    case("eq_neg_zero", "(z == -z) ? 1.0 : 0.0", 1.0),
    case("mul_overflow_inf", "big * big", float("inf")),
    case("div_by_zero_inf", "c / z", float("inf")),
    case("int_float_promotes", "a + 1", fa + 1),
    case("literal_half_fraction", "c * 0.5", 1.5),
    case("not_float", "(float)!z", 1.0),
    case("preinc_float", "++a", fa + 1),
], setup=FLOAT_SETUP, inputs={"In": ("float", FA)})

COMPOUND = SlotTable("compound_assign", "int", [
    case("add_assign", "R = a; R += b;", a + b, stmt=True),
    case("sub_assign", "R = a; R -= b;", a - b, stmt=True),
    case("mul_assign", "R = a; R *= b;", a * b, stmt=True),
    case("div_assign", "R = a; R /= b;", trunc_div(a, b), stmt=True),
    case("mod_assign", "R = a; R %= b;", trunc_mod(a, b), stmt=True),
    case("shl_assign", "R = a; R <<= 3;", a << 3, stmt=True),
    case("shr_assign", "R = a; R >>= 1;", a >> 1, stmt=True),
    case("and_assign", "R = a; R &= b;", a & b, stmt=True),
    case("or_assign", "R = a; R |= b;", a | b, stmt=True),
    case("xor_assign", "R = a; R ^= b;", a ^ b, stmt=True),
    case("assign_is_expression", "int x; int y; x = y = five; R = x * 10 + y;", 55, stmt=True),
    case("compound_value", "int x = two; R = (x += five) * 10 + x;", 77, stmt=True),
    case("float_compound_to_int", "R = five; R *= 1.5;", int(5 * 1.5), stmt=True),
    case("chain_right_assoc", "int x = 1, y = 2, w = 3; x += y += w; R = x * 100 + y * 10 + w;", 653, stmt=True),
    case("pre_inc_value", "int x = five; R = ++x * 10 + x;", 66, stmt=True),
    case("post_inc_value", "int x = five; R = x++ * 10 + x;", 56, stmt=True),
    case("pre_dec_value", "int x = five; R = --x * 10 + x;", 44, stmt=True),
    case("post_dec_value", "int x = five; R = x-- * 10 + x;", 54, stmt=True),
    case("inc_array_elem", "int arr[3] = {1, 2, 3}; arr[one]++; ++arr[two]; R = arr[0] * 100 + arr[1] * 10 + arr[2];",
         134, stmt=True),
    case("inc_vector_comp", "int2 v = int2(one, two); v.y++; v.x--; R = v.x * 10 + v.y;", 3, stmt=True),
    case("comma_value", "int x = 0; R = (x = five, x + one);", 6, stmt=True),
    case("comma_in_for", "int s = 0; int i, j; for (i = 0, j = 10; i < j; i++, j--) s += 1; R = s;", 5, stmt=True),
    case("ternary_int", "five > two ? hund : m1", hund),
    case("ternary_nested", "a < 0 ? (b < 0 ? 1 : 2) : 3", 2),
], setup=INT_SETUP, inputs={"In": ("int", IA)})

VEC_SETUP = "    float4 p = In[0], q = In[1]; float s = In[2].x;\n"
VP = [(1.0, 2.0, 3.0, 4.0), (0.5, -1.0, 2.0, 8.0), (2.0, 0.0, 0.0, 0.0)]
p_, q_, s_ = VP[0], VP[1], VP[2][0]


def vmap(fn, *vs):
    return tuple(fn(*xs) for xs in zip(*vs))


VECTOR_OPS = SlotTable("vector_ops", "float4", [
    case("add", "p + q", vmap(lambda x, y: x + y, p_, q_)),
    case("sub", "p - q", vmap(lambda x, y: x - y, p_, q_)),
    case("mul_componentwise", "p * q", vmap(lambda x, y: x * y, p_, q_)),
    case("div_componentwise", "p / q", vmap(lambda x, y: x / y, p_, q_)),
    case("scalar_splat_mul", "p * s", vmap(lambda x: x * s_, p_)),
    case("scalar_splat_add_left", "s + p", vmap(lambda x: x + s_, p_)),
    case("neg", "-q", vmap(lambda x: -x, q_)),
    case("compare_gives_bool_vector", "(float4)(p > q)", vmap(lambda x, y: float(x > y), p_, q_)),
    case("eq_vector", "(float4)(p == float4(1, 0, 3, 0))", (1.0, 0.0, 1.0, 0.0)),
    case("compound_vec", "R = p; R *= q; R += 1;", vmap(lambda x, y: x * y + 1, p_, q_), stmt=True),
    case("compound_vec_scalar", "R = p; R /= s;", vmap(lambda x: x / s_, p_), stmt=True),
    case("inc_vector", "R = p; R++;", vmap(lambda x: x + 1, p_), stmt=True),
    case("and_vector", "(float4)and(p > 1.5, q > 0)", (0.0, 0.0, 1.0, 1.0)),
    case("or_vector", "(float4)or(p > 3.5, q < 0)", (0.0, 1.0, 0.0, 1.0)),
    case("select_vector", "select(p > q, p, q)", vmap(max, p_, q_)),
    case("not_vector", "(float4)!(p > 2)", (1.0, 1.0, 0.0, 0.0)),
], setup=VEC_SETUP, inputs={"In": ("float4", VP)})

SC_PRELUDE = """
static int g_calls = 0;
bool Touch(bool v) { g_calls += 1; return v; }
"""
SHORT_CIRCUIT = SlotTable("short_circuit_2021", "int", [
    case("and_skips_rhs", "g_calls = 0; bool r = (z != 0) && Touch(true); R = g_calls * 10 + (int)r;", 0, stmt=True),
    case("and_evaluates_rhs", "g_calls = 0; bool r = (one != 0) && Touch(true); R = g_calls * 10 + (int)r;", 11,
         stmt=True),
    case("or_skips_rhs", "g_calls = 0; bool r = (one != 0) || Touch(false); R = g_calls * 10 + (int)r;", 1, stmt=True),
    case("or_evaluates_rhs", "g_calls = 0; bool r = (z != 0) || Touch(true); R = g_calls * 10 + (int)r;", 11,
         stmt=True),
    case("ternary_evaluates_one_arm", "g_calls = 0; int r = one ? (Touch(true) ? 5 : 6) : (Touch(true) ? 7 : 8);"
         " R = g_calls * 10 + r;", 15, stmt=True),
    case("ternary_false_arm", "g_calls = 0; int r = z ? (Touch(true) ? 5 : 6) : 9; R = g_calls * 10 + r;", 9,
         stmt=True),
    case("chain_stops_at_first_false", "g_calls = 0; bool r = Touch(true) && Touch(false) && Touch(true);"
         " R = g_calls * 10 + (int)r;", 20, stmt=True),
    case("inc_in_rhs_skipped", "int x = five; bool r = (z != 0) && (x++ > 0); R = x;", 5, stmt=True),
    case("scalar_int_operands", "(int)(five && two)", 1),
], prelude=SC_PRELUDE, setup=INT_SETUP, inputs={"In": ("int", IA)})

NON_SC_2018 = SlotTable("hlsl_2018", "int", [
    case("and_evaluates_both", "g_calls = 0; bool r = (z != 0) && Touch(true); R = g_calls * 10 + (int)r;", 10,
         stmt=True),
    case("or_evaluates_both", "g_calls = 0; bool r = (one != 0) || Touch(false); R = g_calls * 10 + (int)r;", 11,
         stmt=True),
    case("vector_and_elementwise", "bool2 v = int2(one, z) && int2(one, one); R = (int)v.x * 10 + (int)v.y;", 10,
         stmt=True),
    case("scalar_ternary_evaluates_both_arms", "g_calls = 0; int r = one ? (Touch(true) ? 5 : 6) : (Touch(true) ? 7 : 8);"
         " R = g_calls * 10 + r;", 25, stmt=True),
    case("vector_ternary_is_select", "int2 v = bool2(true, false) ? int2(1, 2) : int2(3, 4); R = v.x * 10 + v.y;",
         14, stmt=True),
    case("for_variable_visible_after_loop", "for (int i = 0; i < 3; i++) { } R = i;", 3, stmt=True),
    case("cast_between_layout_identical_structs", "SA sa = {five}; SB sb = (SB)sa; R = sb.y;", 5, stmt=True,
         prelude="struct SA { int x; };\nstruct SB { int y; };\n"),
], prelude=SC_PRELUDE, setup=INT_SETUP, inputs={"In": ("int", IA)}, hlsl_version=2018)

MISC = SlotTable("misc_expressions", "int", [
    case("ternary_right_assoc", "z == 1 ? 10 : z == 0 ? 20 : 30", 20),
    case("assign_in_condition", "int x; if ((x = five + one) > 3) R = x;", 6, stmt=True),
    case("while_postinc_condition", "int i = 0; while (i++ < five) R += i;", 15, stmt=True),
    case("do_predecrement_condition", "int n = five; do { R += 1; } while (--n);", 5, stmt=True),
    case("for_two_declarators", "for (int i = 0, j = five; i < j; i++, j--) R++;", 3, stmt=True),
    case("bitand_binds_looser_than_eq", "five & one == one", 5 & 1),
    case("logical_not_binds_tight", "!z == one", 1),
    case("neg_times", "-five * m1", 5),
    case("mod_precedence", "hund - hund % 7 * 2", 100 - (100 % 7) * 2),
    case("shift_vs_compare", "(one << 3 > 7)", 1),
    case("nan_equal_is_false", "float n = asfloat(0x7FC00000u + (uint)z); R = (n == n) ? 1 : 0;", 0, stmt=True),
    case("nan_less_is_false", "float n = asfloat(0x7FC00000u + (uint)z); R = (n < 1.0) ? 1 : 0;", 0, stmt=True),
    case("nan_greater_equal_is_false", "float n = asfloat(0x7FC00000u + (uint)z); R = (n >= n) ? 1 : 0;", 0,
         stmt=True),
    case("int64_division", "int64_t x = -9000000000ll * (int64_t)one; R = (int)(x / 1000000000ll);", -9, stmt=True),
    case("int64_remainder", "int64_t x = -9000000000ll * (int64_t)one; R = (int)(x % 7ll);",
         trunc_mod(-9000000000, 7), stmt=True),
    case("uint64_division", "uint64_t x = 0x123456789ull * (uint64_t)one; R = (int)(x / 7ull);", 0x123456789 // 7,
         stmt=True),
    case("uint64_shift", "uint64_t x = 0x123456789ull * (uint64_t)one; R = (int)(x >> 4);", 0x123456789 >> 4,
         stmt=True),
    case("uint64_shift_past_32", "uint64_t x = (uint64_t)(uint)(two + one); R = (int)((x << (uint)(t31 + 9)) >> 32);", 768,
         stmt=True),
    case("uint64_shift_count_masked_to_6_bits", "uint64_t x = (uint64_t)(uint)(two + one); R = (int)((x << (uint)(t31 + 73)) >> 32);",
         768, stmt=True),
    case("int64_arithmetic_shift", "int64_t n = -(int64_t)(two + one); R = (int)(n >> (uint)(t31 + 17));", -1, stmt=True),
    case("matrix_compare_componentwise", "float2x2 p = {1, 2, 3, 4}; float2x2 w = {1, 0, 3, 0}; bool2x2 e = (p == w);"
         " R = e._11 + e._12 * 2 + e._21 * 4 + e._22 * 8;", 5, stmt=True),
    case("matrix_negate_divide", "float2x2 p = {2, 4, 6, 8}; float2x2 c = -p / 2; R = (int)(c._11 + c._22 * 10);",
         -41, stmt=True),
], setup=INT_SETUP, inputs={"In": ("int", IA)})

VINT_SETUP = "    int one = In[0], two = In[1], m1 = In[3], m7 = In[6], five = In[5];\n"
VINT = SlotTable("int_vector_ops", "int", [
    case("div_vector_trunc", "int3 q = int3(m7, 7, m7) / int3(2, m1 * 2, m1 * 2); R = q.x * 100 + q.y * 10 + q.z;",
         trunc_div(-7, 2) * 100 + trunc_div(7, -2) * 10 + trunc_div(-7, -2), stmt=True),
    case("mod_vector_sign", "int3 r = int3(m7, 7, m7) % int3(2, m1 * 2, m1 * 2); R = r.x * 100 + r.y * 10 + r.z;",
         trunc_mod(-7, 2) * 100 + trunc_mod(7, -2) * 10 + trunc_mod(-7, -2), stmt=True),
    case("shr_vector_arithmetic", "int2 p = int2(m7, 7) >> int2(1, 1); R = p.x * 10 + p.y;", (-7 >> 1) * 10 + 3,
         stmt=True),
    case("shr_vector_logical", "uint2 u = uint2(0x80000000u, 1u) >> uint2(31u, 0u); R = (int)(u.x * 10 + u.y);", 11,
         stmt=True),
    case("shl_scalar_by_vector", "R = (one << uint2(3u, 4u)).y;", 16, stmt=True),
    case("uint_vector_compare", "bool2 c = uint2(0xFFFFFFFFu * (uint)one, 1u) > uint2(1u, 0u); R = c.x * 10 + c.y;", 11,
         stmt=True),
    case("ternary_scalar_cond_vector_arms", "int3 v = (five > 3) ? int3(1, 2, 3) : int3(4, 5, 6); R = v.x * 100 + v.y * 10 + v.z;",
         123, stmt=True),
    case("ternary_splats_scalar_arm", "float2 f = one ? 1.5 : float2(2, 3); R = (int)(f.y * 10);", 15, stmt=True),
    case("select_scalar_condition", "int2 v = select(one > 0, int2(1, 2), int2(3, 4)); R = v.x * 10 + v.y;", 12,
         stmt=True),
    case("float_mod_vector", "float2 r = float2(7.5, -7.5) % 2.0; R = (int)(r.x * 10) * 1000 + (int)(r.y * 10);",
         15 * 1000 - 15, stmt=True),
], setup=VINT_SETUP, inputs={"In": ("int", [1, 2, 3, -1, 0, 5, -7, 100])})

ALIAS_SETUP = "    int one = In[0], two = In[1], three = In[2], m7 = In[6], five = In[5];\n"
ALIASING = SlotTable("aliasing_and_order", "int", [
    case("swizzle_swap", "int2 v = int2(one, two); v.xy = v.yx; R = v.x * 10 + v.y;", 21, stmt=True),
    case("swizzle_rotate", "int3 v = int3(1, 2, 3) * one; v.xyz = v.zxy; R = v.x * 100 + v.y * 10 + v.z;", 312, stmt=True),
    case("whole_vector_from_own_swizzle", "int4 v = int4(1, 2, 3, 4) * one; v = v.wzyx; R = v.x * 1000 + v.y * 100 + v.z * 10 + v.w;",
         4321, stmt=True),
    case("compound_from_own_swizzle", "int3 v = int3(1, 2, 3) * one; v.xy += v.yx; R = v.x * 100 + v.y * 10 + v.z;", 333,
         stmt=True),
    case("matrix_row_swap", "int2x2 m = {1, 2, 3, 4}; int2 t = m[0]; m[0] = m[1]; m[1] = t; R = m._11 * 1000 + m._12 * 100 + m._21 * 10 + m._22;",
         3412, stmt=True),
    case("struct_copy_then_swap", "Pair p = {one, two}; Pair q = p; p.a = q.b; p.b = q.a; R = p.a * 10 + p.b;", 21,
         stmt=True),
    case("array_element_copies", "int a[3] = {1, 2, 3}; a[0] = a[two]; a[two] = a[1]; R = a[0] * 100 + a[1] * 10 + a[2];",
         322, stmt=True),
    case("postinc_in_index", "int a[3] = {0, 0, 0}; int i = 0; a[i++] = 5; a[i++] = 6; R = a[0] * 100 + a[1] * 10 + i;", 562,
         stmt=True),
    case("inc_swizzle_component", "int2 v = int2(one, two); v.y++; ++v.x; R = v.x * 10 + v.y;", 23, stmt=True),
    case("assignment_value_used", "int p, q; p = (q = 3) + 1; R = p * 10 + q;", 43, stmt=True),
    case("comma_in_if_condition", "int x = 0; if (x = 1, x == 1) R = 7; else R = 8;", 7, stmt=True),
    case("int_div_uint_literal_is_unsigned", "(int)(m7 / 2u == 2147483644u)", 1),
    case("literal_div_uint_literal_is_unsigned", "(int)(-7 / 2u == 2147483644u)", 1),
    case("int_shr_by_uint_stays_arithmetic", "m7 >> 1u", -4),
    case("bool_plus_uint_wraps", "(int)((one > 0) + 4294967295u)", 0),
    case("chained_compare_compares_bool", "(int)(three > two > one)", 0),
    case("unary_minus_uint_vector", "uint2 u = -uint2(1u, 2u) * (uint)one; R = (int)(u.x == 0xFFFFFFFFu) + (int)(u.y == 0xFFFFFFFEu) * 10;",
         11, stmt=True),
    case("not_int_vector", "bool3 b = !int3(0, one, two); R = b.x * 100 + b.y * 10 + b.z;", 100, stmt=True),
    case("bitnot_bool_promotes", "~true", -2),
    case("bool_vector_addition_is_int", "int2 r = bool2(true, false) + bool2(true, true); R = r.x * 10 + r.y;", 21, stmt=True),
], prelude="struct Pair { int a; int b; };\n", setup=ALIAS_SETUP, inputs={"In": ("int", [1, 2, 3, -1, 0, 5, -7, 100])})

test_int_ops = table_test(INT_OPS)
test_aliasing_and_order = table_test(ALIASING)
test_int_vector_ops = table_test(VINT)
test_misc_expressions = table_test(MISC)
test_uint_ops = table_test(UINT_OPS)
test_float_ops = table_test(FLOAT_OPS)
test_compound = table_test(COMPOUND)
test_vector_ops = table_test(VECTOR_OPS)
test_short_circuit = table_test(SHORT_CIRCUIT)
test_hlsl_2018 = table_test(NON_SC_2018)

SIDE_EFFECT_BUFFER = """
RWStructuredBuffer<uint> Out : register(u0);
RWStructuredBuffer<uint> Side : register(u1);
bool Mark(uint slot) { Side[slot] = 1u; return true; }
[numthreads(1, 1, 1)]
void main() {
    uint zero = Out[0] - Out[0];
    bool r0 = (zero != 0u) && Mark(0);
    bool r1 = (zero == 0u) || Mark(1);
    uint r2 = (zero != 0u) ? (Mark(2) ? 1u : 0u) : 7u;
    bool r3 = (zero == 0u) && Mark(3);
    Out[0] = (uint)r0; Out[1] = (uint)r1; Out[2] = r2; Out[3] = (uint)r3;
}
"""


TERNARY_2018 = ("front end: with -HV 2018 a scalar ?: still short-circuits (lowered to an if); before HLSL 2021 "
                "?: is a select that evaluates both arms")


@pytest.mark.parametrize("version, side", [
    (2021, [0, 0, 0, 1]),
    (2018, [1, 1, 1, 1]),
])
def test_short_circuit_writes_buffer_only_when_evaluated(version, side):
    """HLSL 2021: the skipped operand's buffer write never happens; 2018 evaluates &&, || and ?: fully."""
    got = run_cs(SIDE_EFFECT_BUFFER, {"Out": ("uint", [0] * 4), "Side": ("uint", [0] * 4)}, hlsl_version=version)
    assert got["Out"] == [0, 1, 7, 1]
    assert got["Side"] == side

PRECISE = """
RWStructuredBuffer<int> Out : register(u0);
StructuredBuffer<float> In : register(t1);
[numthreads(1, 1, 1)]
void main() {
    precise float x = 1.0e10 + In[0];
    precise float y = x - 1.0e10;
    Out[0] = (int)y;
}
"""


@pytest.mark.parametrize("backend", ["spirv", "dxil"])
def test_precise_keeps_ieee_evaluation_order(backend):
    """In binary32, 1e10 + 1 rounds to 1e10, so the difference is 0 when the operations are not reassociated."""
    assert f32(f32(1e10) + 1.0) == f32(1e10)
    assert run_backend(backend, PRECISE, {"Out": ("int", 1)}, {"In": ("float", [1.0])})["Out"] == [0]
