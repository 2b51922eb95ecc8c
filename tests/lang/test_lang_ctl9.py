"""Issue 20, HLSL 2018/2021 semantics audited adversarially and executed (SPIR-V on lavapipe at -O3 and -O0,
DXIL on the interpreter and through dxil-spirv): evaluation order and single evaluation of lvalues in
compound assignments and ++/--, copy-in/copy-out of inout/out arguments (aliasing globals, the same variable
twice), switch fallthrough with `default` in the middle and loops inside cases, several-declaration `for`,
do/while with continue, zero and buffer-bounded trip counts, loop attributes, brace initialisers with nested
flattening, static initialisers calling functions, function-local statics, HLSL 2021 operators/members/
inheritance/templates/enums/bitfields, `using` aliases and directives.  Expected values are computed here in
Python from the inputs the shader reads from a buffer, never by the compiler.
"""

from __future__ import annotations

import re

import pytest
from lang_util import SlotTable, case, compile_cs, diagnostics_text, run_cs, table_test, u32

pytestmark = [pytest.mark.vulkan, pytest.mark.usefixtures("vk")]

IN = list(range(8))                                     # In[k] == k: the shader cannot fold it
SETUP = "    int k0 = In[0], k1 = In[1], k2 = In[2], k3 = In[3], k4 = In[4], k5 = In[5], k7 = In[7];\n"
INPUTS = {"In": ("int", IN)}


def _postinc_elem() -> int:
    a, i = [1, 2, 3], 0
    r = a[i]
    a[i] += 1
    i += 1
    return r + a[0] * 10 + i * 100


def _switch_fall() -> int:
    s = 0
    for k in range(5):
        v = IN[k]
        if v == 0:
            s += 1 + 10                                 # case 0 falls into case 1
        elif v == 1:
            s += 10
        elif v == 3:
            s += 100
        elif v == 4:
            s += 3 * 10000                              # the inner loop's break leaves only the loop
        else:
            s += 1000 + 100                             # default (in the middle) falls into case 3
    return s


def _switch_continue() -> int:
    s = 0
    for k in range(6):
        m = IN[k] % 3
        if m == 0:
            continue                                    # continue inside a switch continues the loop
        s += 1 if m == 1 else 10
        s += 100
    return s


def _for_multi() -> int:
    s, i, j = 0, 0, IN[7]
    while i < j:
        s += i * 10 + j
        i, j = i + 1, j - 1
    return s


def _do_continue() -> int:
    i = s = 0
    while True:
        i += 1
        if i % 2 == 0:
            s += i
        if not i < IN[7]:                               # continue jumps to the condition
            break
    return s * 100 + i


def _big_trip() -> int:
    s = 0
    for i in range(IN[7] * 10000):
        s = u32(s + (i ^ (s >> 3)))
    return s if s < 1 << 31 else s - (1 << 32)


def _deep_break() -> int:
    s, done = 0, False
    for i in range(5):
        if done:
            break
        for j in range(5):
            if i * j == IN[6]:
                done = True
                break
            s += 1
    return s


ORDER = SlotTable("ctl9_eval_order", "int", [
    case("compound_subscript_postinc_once", "int i = k1; int a[4] = {10, 20, 30, 40}; a[i++] += 5; a[i++] *= 2;"
         " R = a[0] + a[1] * 10 + a[2] * 1000 + i * 100000;", 10 + 25 * 10 + 60 * 1000 + 3 * 100000, stmt=True),
    case("compound_subscript_call_once", "g = 0; int a[4] = {10, 20, 30, 40}; a[next()] += 5; a[next()] -= 1;"
         " R = a[1] + a[2] * 100 + g * 10000;", 25 + 29 * 100 + 2 * 10000, stmt=True),
    case("postinc_of_postinc_subscript", "int a[3] = {1, 2, 3}; int i = k0; int r = a[i++]++;"
         " R = r + a[0] * 10 + i * 100;", _postinc_elem(), stmt=True),
    case("increment_vector_swizzles", "int4 v = int4(k1, 2, 3, 4); v.yz++; ++v.w; --v.x;"
         " R = v.x + v.y * 10 + v.z * 100 + v.w * 1000;", 0 + 3 * 10 + 4 * 100 + 5 * 1000, stmt=True),
    case("increment_matrix_elements_and_rows", "int2x2 m = {k1, 2, 3, 4}; m._12++; m[1][0]++; m[1]++;"
         " R = m._11 + m._12 * 10 + m._21 * 100 + m._22 * 1000;", 1 + 3 * 10 + 5 * 100 + 5 * 1000, stmt=True),
    case("comma_operator_sequences", "int i = k1; int j = (i++, i++, i * 10); R = j * 10 + i;", 30 * 10 + 3,
         stmt=True),
    case("compound_through_struct_array_members", "Outer s; s.a[0].v = int2(1, 2); s.a[1].v = int2(3, 4);"
         " int i = k1; s.a[i].v.y += 10; s.a[i - 1].v *= 3; s.a[i].v.x <<= 2;"
         " R = s.a[0].v.x + s.a[0].v.y * 10 + s.a[1].v.x * 100 + s.a[1].v.y * 10000;",
         3 + 6 * 10 + 12 * 100 + 14 * 10000, stmt=True),
    # copy-in/copy-out: the callee's own write to the global is overwritten by the write-back of x
    case("inout_global_copy_back_wins", "g = k2; bump_both(g); R = g;", 3, stmt=True),
    case("inout_subscript_evaluated_once", "int a[3] = {1, 2, 3}; int i = k0; add100(a[i++]);"
         " R = a[0] + a[1] * 1000 + i * 100000;", 101 + 2 * 1000 + 100000, stmt=True),
    case("callee_sees_global_before_return", "g = k1; int r = set50(g); R = r * 100 + g;", (1 + 50) * 100 + 50,
         stmt=True),
    # operands left to right, as DXC (clang) evaluates them: the left one is read before the right one's call
    case("left_operand_read_before_right_call", "g = k1; int r = g * 10 + next(); R = r * 100 + g;",
         (1 * 10 + 2) * 100 + 2, stmt=True),
    case("left_element_read_before_right_call", "g = k3; int r = (g == next()) ? 1 : 2; int s = g - next(); R = r * 100 + s;",
         2 * 100 + (4 - 5), stmt=True),
    case("call_arguments_left_to_right", "g = k1; R = pair(g, next());", 1 * 10 + 2, stmt=True),
    case("constructor_operands_left_to_right", "g = k1; int3 v = int3(g, g, next()); R = v.x * 100 + v.y * 10 + v.z;",
         112, stmt=True),
    case("intrinsic_operands_left_to_right", "g = k1; int a = min(g, next()); g = k1; int b = max(g * 10, next() * 10 - 5);"
         " R = a * 100 + b;", 1 * 100 + 15, stmt=True),
    case("initializer_items_left_to_right", "g = k1; int a[2] = {g, next()}; Pair2 p = {g, {next(), g}};"
         " R = a[0] * 1000 + a[1] * 100 + p.a * 10 + p.b.x + p.b.y * 10000;", 1000 + 200 + 20 + 3 + 30000,
         stmt=True, prelude="struct Pair2 { int a; int2 b; };\n"),
    case("method_arguments_left_to_right", "g = k1; Pairer t; R = t.pair(g, next());", 12, stmt=True,
         prelude="struct Pairer { int pair(int a, int b) { return a * 10 + b; } };\n"),
    case("inout_copy_in_before_later_argument", "g = k1; int r = bump_then(g, next()); R = r * 100 + g;",
         (1 + 2) * 100 + 1 + 1, stmt=True, prelude="int bump_then(inout int x, int y) { int o = x + y; x++; return o; }\n"),
    # a local is read first only when the later code names it (x++, an inout argument); a call's result
    # temporary and a local nothing later names are read where they are used (sema no longer copies them)
    case("locals_named_by_later_code_read_first", "int x = k1; int y = k2; int r = pair(x, x++) * 100"
         " + pair(y, inc(y)); int z = k3; R = r * 100 + z * 10 + inc(z);", (11 * 100 + 23) * 100 + 30 + 4, stmt=True),
    case("call_results_and_untouched_locals_as_they_are", "g = k1; int x = k3; R = pair(next() + x, next()) * 100"
         " + (x + next()) + pair(pair(next(), x), next()) * 1000;", 53 * 100 + 7 + (53 * 10 + 6) * 1000, stmt=True),
    # an assignment evaluates its right side before its target's subscripts (clang's order)
    case("assignment_value_before_target_subscript", "g = k1; int a[4] = {0, 0, 0, 0}; a[next()] = g * 10;"
         " R = a[2] * 100 + g;", 10 * 100 + 2, stmt=True),
    case("compound_value_before_target_subscript", "g = k0; int a[3] = {5, 6, 7}; a[g++] += readg() + 10;"
         " R = a[0] * 100 + a[1] * 10 + g;", 15 * 100 + 6 * 10 + 1, stmt=True),
    # seed 000 (Init(V, V) leaves V == 1): write-backs in reverse parameter order, the first one last
    case("out_same_variable_twice", "int x = k0; two(x, x); R = x;", 1, stmt=True),
], prelude="""
static int g;
int next() { g++; return g; }
struct Elem { int2 v; };
struct Outer { Elem a[2]; };
void bump_both(inout int x) { x += 1; g += 10; }
void add100(inout int x) { x += 100; }
int set50(int x) { g = 50; return x + g; }
void two(out int a, out int b) { a = 1; b = 2; }
int pair(int a, int b) { return a * 10 + b; }
int readg() { return g; }
int inc(inout int x) { x++; return x; }
""", setup=SETUP, inputs=INPUTS)

CONTROL = SlotTable("ctl9_control", "int", [
    case("switch_fallthrough_default_in_middle_loop_in_case",
         "for (int k = 0; k < 5; k++) { switch (In[k]) { case 0: R += 1; case 1: R += 10; break;"
         " default: R += 1000; case 3: R += 100; break;"
         " case 4: { for (int q = 0; q < 10; q++) { if (q == 3) break; R += 10000; } } } }",
         _switch_fall(), stmt=True),
    case("continue_inside_switch_continues_loop",
         "for (int k = 0; k < 6; k++) { switch (In[k] % 3) { case 0: continue; case 1: R += 1; break;"
         " default: R += 10; } R += 100; }", _switch_continue(), stmt=True),
    case("for_two_declarations_comma_increment", "for (int i = 0, j = k7; i < j; i++, j--) R += i * 10 + j;",
         _for_multi(), stmt=True),
    case("do_while_continue_tests_condition", "int i = 0; int s = 0; do { i++; if (i % 2) continue; s += i; }"
         " while (i < k7); R = s * 100 + i;", _do_continue(), stmt=True),
    case("zero_trip_loops", "R = 5; for (int i = k3; i < k2; i++) R += 1; while (k0 > 0) { R += 7; }"
         " [loop] for (uint j = 0; j < (uint)k0; j++) R += 3; do { R += 2; } while (k0 > 0);", 7, stmt=True),
    case("trip_count_from_buffer", "uint s = 0; [loop] for (uint i = 0; i < (uint)k7 * 10000u; i++)"
         " s += i ^ (s >> 3); R = (int)s;", _big_trip(), stmt=True),
    case("loop_attributes", "int s = 0; [fastopt] for (int i = 0; i < k5; i++) s += i;"
         " [allow_uav_condition] for (int j = 0; j < In[7] - 4; j++) s += 100; [loop] while (s < 1000) s *= 2;"
         " R = s;", 1240, stmt=True),
    case("deep_break_through_flag", "bool done = false; for (int i = 0; i < 5 && !done; i++)"
         " { for (int j = 0; j < 5; j++) { if (i * j == In[6]) { done = true; break; } R += 1; } }",
         _deep_break(), stmt=True),
    case("return_in_every_arm", "R = arms(k0) + arms(k1) * 100 + arms(k5) * 10000 + arms(k7) * 1000000;",
         10 + 20 * 100 + 50 * 10000 + 99 * 1000000, stmt=True),
], prelude="""
int arms(int x) {
    if (x == 0) return 10;
    else if (x == 1) { return 20; }
    else { switch (x) { case 5: return 50; default: return 99; } }
}
""", setup=SETUP, inputs=INPUTS)

INIT = SlotTable("ctl9_init", "int", [
    case("array_of_vectors_flattened", "float4 a[2] = {1, 2, 3, 4, 5, 6, 7, 8}; R = (int)(a[0].w * 10 + a[1].x);",
         45, stmt=True),
    case("struct_with_vector_and_nested_struct", "S3 s = {int2(k1, k2), 3, {4, 5}};"
         " R = s.v.x + s.v.y * 10 + s.k * 100 + s.t.a * 1000 + s.t.b * 10000;", 54321, stmt=True),
    case("matrix_from_scalars_and_vector", "int2x2 m = {k1, 2, int2(3, 4)};"
         " R = m._11 + m._12 * 10 + m._21 * 100 + m._22 * 1000;", 4321, stmt=True),
    case("struct_array_member_flattened", "T2 t = {1, 2, 3, 4}; R = t.a[0] + t.a[1] * 10 + t.b.x * 100 + t.b.y * 1000;",
         4321, stmt=True),
    case("static_initialiser_calls_function", "R = G0 * 100 + G1[2] + G1[1] * 10000;", 50 * 100 + 50 + 9 * 10000,
         stmt=True),
    case("statics_zeroed", "R = Z + Za[3] + Zs.a + (int)Zf.y;", 0, stmt=True),
    case("function_local_static_persists", "int a = counter(); int b = counter(); R = a * 100 + b;", 11 * 100 + 12,
         stmt=True),
    case("static_const_array_dynamic_index", "R = K + SK[k1] * 10 + SK[k2] * 100;", 4 + 2 * 10 + 3 * 100,
         stmt=True),
], prelude="""
struct In2 { int a; int b; };
struct S3 { int2 v; int k; In2 t; };
struct T2 { int a[2]; int2 b; };
int sq(int x) { return x * x; }
static int G0 = sq(7) + 1;
static int G1[3] = {sq(2), sq(3), G0};
static int Z;
static int Za[4];
struct ZS { int a; };
static ZS Zs;
static float2 Zf;
int counter() { static int c = 10; c++; return c; }
static const int K = 4;
static const int SK[3] = {1, 2, 3};
""", setup=SETUP, inputs=INPUTS)

HLSL2021 = SlotTable("ctl9_hlsl2021", "int", [
    case("member_operators", "V a = {k1, k2}; V b = {10, 20}; V c = a + b * b; R = c.x + c.y * 1000;",
         (1 + 100) + (2 + 400) * 1000, stmt=True),
    case("subscript_call_unary_compare_operators", "V a = {k1, k2}; V b = {10, 20};"
         " R = a[1] + a(3) * 10 + (-a).x * 100 + (a == b ? 1000 : 0) + (a == a ? 10000 : 0);",
         2 + (1 * 3 + 2) * 10 - 100 + 10000, stmt=True),
    case("this_inheritance_hiding_and_base_cast", "D d; d.a = k2; d.b = k3; d.set(5); B bb = (B)d;"
         " R = d.a + d.get() * 10 + d.sum() * 100000 + bb.get() * 100 + d.B::get() * 1000;",
         5 + 1000 * 10 + (5 + 3 + 1000) * 100000 + 10 * 100 + 10 * 1000, stmt=True),
    case("function_and_struct_templates", "P2<int> p = {k2, k3};"
         " R = tmax(k4, k3) + (int)tmax(2.5f, 1.5f) * 10 + p.sum() * 100 + add3<int>(1, 2, 3) * 1000;",
         4 + 2 * 10 + 5 * 100 + 6 * 1000, stmt=True),
    case("enums_values_casts_underlying", "C c = C::B2; R = (int)C::G + E1B * 10 + (int)(E1)k2 * 100"
         " + (c == C::B2 ? 1000 : 0) + (int)sizeof(E16) * 10000 + ((int)U::Big == -1 ? 100000 : 0);",
         7 + 5 * 10 + 2 * 100 + 1000 + 8 * 10000 + 100000, stmt=True),
    case("namespaces_nested", "R = N::f() + N::M::g() * 10 + N::k * 100;", 3 + 6 * 10 + 9 * 100, stmt=True),
    case("bitfields_truncate_and_sign_extend", "BF b; b.lo = k5; b.mid = 0x1FF; b.hi = 3; B2 q; q.s = -1;"
         " q.t = 6; R = b.lo + b.mid * 10 + b.hi * 10000 + (int)sizeof(BF) * 100000 + q.s * 1000000;",
         5 + 0xFF * 10 + 3 * 10000 + 4 * 100000 - 1000000, stmt=True),
    case("and_or_select_intrinsics", "bool2 a = bool2(k0 != 0, k1 != 0); bool2 b = bool2(true, false);"
         " bool2 x = and(a, b); bool2 y = or(a, b); int2 s = select(a, int2(1, 2), int2(3, 4));"
         " R = x.x + x.y * 10 + y.x * 100 + y.y * 1000 + s.x * 10000 + s.y * 100000 + select(k1 != 0, 7, 8) * 1000000;",
         0 + 0 + 100 + 1000 + 3 * 10000 + 2 * 100000 + 7 * 1000000, stmt=True),
], prelude="""
struct V {
    int x; int y;
    V operator+(V o) { V r = {x + o.x, y + o.y}; return r; }
    V operator*(V o) { V r = {x * o.x, y * o.y}; return r; }
    int operator[](int i) { return i == 0 ? x : y; }
    bool operator==(V o) { return x == o.x && y == o.y; }
    int operator()(int s) { return x * s + y; }
    V operator-() { V r = {-x, -y}; return r; }
};
struct B { int a; int get() { return this.a * 2; } void set(int v) { this.a = v; } };
struct D : B { int b; int sum() { return a + b + get(); } int get() { return 1000; } };
template<typename T> T tmax(T a, T b) { return a > b ? a : b; }
template<typename T> struct P2 { T x; T y; T sum() { return x + y; } };
template<typename T> T add3(T a, T b, T c) { return a + b + c; }
enum E1 { E1A, E1B = 5, E1C };
enum class C { R0, G = 7, B2 };
enum class U : uint { Big = 0xFFFFFFFF };
enum class E16 : uint64_t { Z };
namespace N { static const int k = 9; int f() { return 3; } namespace M { int g() { return f() * 2; } } }
struct BF { uint lo : 4; uint mid : 8; uint hi : 20; };
struct B2 { int s : 3; int t : 29; };
""", setup=SETUP, inputs=INPUTS)

# empty structs (stateless helpers): a zero-operand OpCompositeConstruct and a by-value parameter of an empty
# struct each made lavapipe fail pipeline creation at -O0 (where calls are not inlined)
EMPTY = SlotTable("ctl9_empty_struct", "int", [
    case("constructed_local", "Tool t = Tool(); R = k3;", 3, stmt=True),
    case("method_of_temporary", "R = Tool().twice(k4);", 8, stmt=True),
    case("by_value_parameter", "Tool t; R = use(t, k5) + use(Tool(), k1) * 100;", 15 + 11 * 100, stmt=True),
    case("array_parameter", "Tool ts[2]; R = count(ts);", 2, stmt=True),
    case("argument_side_effects_kept", "g = 0; R = use(make(), k2) * 10 + g;", 12 * 10 + 1, stmt=True),
], prelude="""
struct Tool { int twice(int x) { return 2 * x; } };
static int g;
int use(Tool t, int x) { return t.twice(x) - x + 10; }
int count(Tool ts[2]) { return 2; }
Tool make() { g++; Tool t; return t; }
""", setup=SETUP, inputs=INPUTS)

MEMBERS = SlotTable("ctl9_members", "int", [
    case("base_method_calls_base_version", "D2 d; d.a = k2; R = d.caller() * 1000 + d.get();", 20 * 1000 + 99,
         stmt=True),
    case("method_on_array_element_index_once", "Cell arr[3]; for (int i = 0; i < 3; i++) arr[i].v = i;"
         " int j = k1; arr[j++].set(50); arr[2].bump(); R = arr[0].v + arr[1].v * 10 + arr[2].v * 1000 + j * 1000000;",
         0 + 500 + 102 * 1000 + 2 * 1000000, stmt=True),
    case("method_on_nested_member", "Holder o; o.inner.v = k3; o.inner.set(o.inner.v + 4); R = o.inner.v;", 7,
         stmt=True),
    case("static_data_members", "Cnt::count += k2; Cnt::count += 1; R = Cnt::count * 100 + Cnt::K;", 8 * 100 + 11,
         stmt=True),
    case("enum_class_switch_and_negative_enumerators", "Cl c = (Cl)k2; int r = 0;"
         " switch (c) { case Cl::A: r = 1; break; case Cl::B: r = 2; break; case Cl::Cc: r = 3; break; }"
         " En e = (En)(k1 - 3); R = r + (e + 10) * 10 + (int)(NegTwo - 1 + 10) * 1000;",
         3 + 8 * 10 + 7 * 1000, stmt=True),
    case("template_vector_deduction_and_value_parameter", "float2 m = tmax2(float2(k1, k5), float2(k4, k2));"
         " R = (int)(m.x * 10 + m.y) + Arr<3>::n * 100 + Arr<4>().get() * 1000;", 45 + 300 + 40000, stmt=True),
    case("overloaded_logical_operators_evaluate_both_sides", "g2 = 0; Lg a = {k1}; Lg b = {k0};"
         " bool r1 = a && b; bool r2 = b || a; R = (int)r1 + (int)r2 * 10 + g2 * 100;", 0 + 10 + 2 * 100, stmt=True,
         prelude="static int g2;\nstruct Lg { int v; bool operator&&(Lg o) { g2++; return v != 0 && o.v != 0; }\n"
                 "    bool operator||(Lg o) { g2++; return v != 0 || o.v != 0; } };\n"),
    case("operators_inherited_and_in_templates", "Dop a; a.v = k2; a.w = 9; Dop b; b.v = k3; b.w = 1; Bop c = a + b;"
         " Pt<int> p = {k1, k2}; Pt<int> q = {10, 20}; Pt<int> t = p + q; R = c.v + t.x * 10 + t.y * 1000;",
         5 + 11 * 10 + 22 * 1000, stmt=True,
         prelude="struct Bop { int v; Bop operator+(Bop o) { Bop r = {v + o.v}; return r; } };\n"
                 "struct Dop : Bop { int w; };\n"
                 "template<typename T> struct Pt { T x; T y; Pt<T> operator+(Pt<T> o) { Pt<T> r = {x + o.x, y + o.y};"
                 " return r; } };\n"),
    case("bitfield_compound_assignments_wrap", "BFw b; b.lo = 15; b.mid = 250; b.hi = 0; b.lo++; b.mid += 10; b.hi -= 1;"
         " BSw q; q.s = 3; q.s++; q.t = 0; R = b.lo + b.mid * 10 + (b.hi == 0xFFFFF ? 1000 : 0) + q.s * 10000;",
         0 + 4 * 10 + 1000 - 4 * 10000, stmt=True,
         prelude="struct BFw { uint lo : 4; uint mid : 8; uint hi : 20; };\nstruct BSw { int s : 3; int t : 29; };\n"),
    case("method_returning_this_copy", "Chain s; s.v = k2; s.twice().twice(); R = s.v * 100 + s.inc3();", 4 * 100 + 7,
         stmt=True,
         prelude="struct Chain { int v; Chain twice() { v *= 2; return this; }\n"
                 "    int inc3() { this.v++; inc(); inc(); return v; } void inc() { v++; } };\n"),
    # (`k ? a : b` on structs is refused, as DXC's CheckVectorConditional does: tests/front/test_dxc_diag_sweep.py)
], prelude="""
struct B2x { int a; int get() { return a; } int caller() { return get() * 10; } };
struct D2 : B2x { int get() { return 99; } };
struct Cell { int v; void set(int x) { v = x; } void bump() { v += 100; } };
struct Holder { int pad; Cell inner; };
struct Cnt { static int count; static const int K = 11; };
int Cnt::count = 5;
enum class Cl { A, B = 1, Cc };
enum En { NegTwo = -2, Seven = 7 };
template<typename T> T tmax2(T a, T b) { return max(a, b); }
template<uint N> struct Arr { static const int n = N; int get() { return N * 10; } };
""", setup=SETUP, inputs=INPUTS)

MORE_CONTROL = SlotTable("ctl9_more_control", "int", [
    case("comma_in_for_condition", "int i = 0; int s = 0; for (; s += 1, i < k3; i++) {} R = s * 10 + i;", 4 * 10 + 3,
         stmt=True),
    case("nested_switch_and_loop_breaks", "for (int i = 0; i < 4; i++) { switch (In[i]) { case 1: switch (In[i + 1])"
         " { case 2: R += 100; break; default: R += 1000; } R += 10; break;"
         " case 2: for (;;) { R += 5; if (R > 30) break; } break; default: R += 1; } }", 117, stmt=True),
    case("dynamic_vector_element_compound", "int4 v = int4(1, 2, 3, 4); int i = k2; v[i] += 10; v[i - 1] *= v[i];"
         " R = v.x + v.y * 10 + v.z * 100 + v.w * 1000;", 1 + 26 * 10 + 13 * 100 + 4 * 1000, stmt=True),
    case("dynamic_matrix_element_compound", "int3x3 m = (int3x3)0; int i = k1; m[i][i + 1] += 7; m[i + 1][i]++;"
         " R = m._23 * 10 + m._32;", 71, stmt=True),
], setup=SETUP, inputs=INPUTS)

def _continue_in_switch_in_do() -> int:
    i = s = 0
    while True:
        i += 1
        if i % 3 != 0:
            s += i + 100
        if not i < IN[7]:
            break
    return s


MORE_INIT = SlotTable("ctl9_more_init", "int", [
    case("unsized_array_from_initializer", "int a[] = {k1, 2, 3}; R = a[k2] + sizeof(a);", 3 + 12, stmt=True),
    case("zero_cast_struct", "Mixed s = (Mixed)0; R = s.a + (int)s.b + s.c.y;", 0, stmt=True),
    case("static_const_struct_table", "R = Tbl[k1].a * 10 + Tbl[k0].b;", 32, stmt=True),
    case("struct_value_inside_initializer", "Two s = {k1, 2}; Wrap t = {s, 5}; R = t.s.a * 100 + t.s.b * 10 + t.c;", 125,
         stmt=True),
    case("struct_flattened_into_vector", "Two s = {k1, 2}; int3 v = {s, 7}; R = v.x * 100 + v.y * 10 + v.z;", 127,
         stmt=True),
    case("scalar_splat_initialisers", "float4 v = 2; int2x2 m = k3; R = (int)v.w * 10 + m._22;", 23, stmt=True),
    case("negative_and_named_case_values", "int r = 0; int x = k3 - 6; switch (x) { case KNeg: r = 1; break;"
         " case Seven2: r = 2; break; case -1: r = 3; break; } switch (k7) { case KNeg: r += 10; break;"
         " case Seven2: r += 20; break; } R = r;", 21, stmt=True),
    case("return_from_endless_loop", "R = until4(k1) * 100 + once(k1) * 10 + once(k2);", 5 * 100 + 10 * 10 + 3,
         stmt=True),
    case("continue_in_switch_in_do_while", "int i = 0; do { i++; switch (i % 3) { case 0: continue;"
         " default: R += i; } R += 100; } while (i < k7);", _continue_in_switch_in_do(), stmt=True),
], prelude="""
struct Mixed { int a; float b; int2 c; };
struct Two { int a; int b; };
struct Wrap { Two s; int c; };
static const Two Tbl[2] = {{1, 2}, {3, 4}};
static const int KNeg = -3;
enum E7 { Seven2 = 7 };
int until4(int x) { while (true) { if (x > 3) return x; x += 2; } return -1; }
int once(int x) { do { if (x == 1) return 10; x++; } while (false); return x; }
""", setup=SETUP, inputs=INPUTS)

SCOPES = SlotTable("ctl9_scopes", "int", [
    case("global_qualifier_and_namespace_shadowing", "R = Ns::Inner::g() * 10 + Ns::h();", (3 * 100 + 2 * 10 + 1) * 10 + 2,
         stmt=True),
    case("enum_nested_in_struct", "Holds::Kind k = Holds::KB; Holds o; o.x = k2;"
         " R = (int)k * 100 + o.scaled() + (int)Ns::Col::Blue * 1000;", 10 * 100 + 2 * 9 + 5 * 1000, stmt=True),
    case("templates_defaults_statics_and_explicit_arguments", "Arr2<> a; Arr2<float, 5> b; int c1 = cnt(1);"
         " int c2 = cnt(2); int c3 = cnt(1.0f); R = a.size() * 10 + b.size() + twice<int>(3.7) * 100"
         " + (c1 * 100 + c2 * 10 + c3) * 1000;", 35 + 6 * 100 + 121 * 1000, stmt=True),
], prelude="""
int f() { return 1; }
namespace Ns {
    int f() { return 2; }
    namespace Inner { int f() { return 3; } int g() { return f() * 100 + Ns::f() * 10 + ::f(); } }
    int h() { return f(); }
    enum class Col { Red = 4, Blue };
}
struct Holds { enum Kind { KA = 9, KB }; int x; int scaled() { return x * KA; } };
template<typename T = int, int N = 3> struct Arr2 { T v[N]; int size() { return N; } };
template<typename T> int cnt(T x) { static int c = 0; c++; return c; }
template<typename T> T twice(T x) { return x * 2; }
""", setup=SETUP, inputs=INPUTS)

SC_PRELUDE = "int bump(inout int x) { x++; return x; }\n"
SC_BODY = ("int c = 0; bool r = (k0 != 0) && (bump(c) != 0); int d = 0; bool r2 = (k1 != 0) || (bump(d) != 0);"
           " int e = 0; int t = k1 ? 5 : bump(e); R = c + d * 10 + e * 100 + t * 1000;")
SC_2021 = SlotTable("ctl9_short_circuit_2021", "int", [case("inout_side_effects_skipped", SC_BODY, 5000, stmt=True)],
                    prelude=SC_PRELUDE, setup=SETUP, inputs=INPUTS)
# HLSL 2018 evaluates both operands of && and || and both arms of ?: (bump runs three times)
SC_2018 = SlotTable("ctl9_short_circuit_2018", "int", [case("inout_side_effects_all_happen", SC_BODY, 5111,
                                                            stmt=True)],
                    prelude=SC_PRELUDE, setup=SETUP, inputs=INPUTS, hlsl_version=2018)

test_ctl9_eval_order = table_test(ORDER)
test_ctl9_control = table_test(CONTROL)
test_ctl9_init = table_test(INIT)
test_ctl9_hlsl2021 = table_test(HLSL2021)
test_ctl9_short_circuit = table_test(SC_2021, SC_2018)
test_ctl9_empty_struct = table_test(EMPTY)
test_ctl9_members = table_test(MEMBERS)
test_ctl9_more_control = table_test(MORE_CONTROL)
test_ctl9_more_init = table_test(MORE_INIT)
test_ctl9_scopes = table_test(SCOPES)


EARLY_READS = """RWStructuredBuffer<int> Out : register(u0);
RWStructuredBuffer<int> B : register(u1);
static int g;
int next() { g++; return g; }
int two() { return 2; }
int pair(int a, int b) { return a * 10 + b; }
[numthreads(1, 1, 1)] void main() {
    int x = Out[1];
    RWStructuredBuffer<int> b = B;
    Out[0] = pair(two(), next()) + x * two() + int2(next(), x).y;  // a result and x: nothing names them later
    Out[2] = pair(g, next()) + pair(x, x++) + g * next() + b[0] * next();   // g, x, B[0]: read first
}
"""


def test_values_later_code_cannot_change_are_not_copied():
    """ctl9's left-to-right reads copy only what the later code may change: a global, a local it names and a
    resource's contents; not a call's result temporary nor a local it does not name.  The -O0 SPIR-V (calls
    not inlined) keeps exactly those four copies (one temporary each) and passes spirv-val."""
    from harness import tools
    from passes.passutil import sema_module, text

    from shaderbuild.compiler import compile_file
    from shaderbuild.options import CompileOptions

    module, _ = sema_module(EARLY_READS)
    copies = [line.strip() for line in text(module).splitlines() if line.strip().startswith(("store %arg.",
                                                                                             "store %operand."))]
    assert [c.split(" = ", 1)[1] for c in copies] == ["load(%g)", "load(%x)", "load(%g)", "load(%b<0:uint>)"]
    res = compile_file("early.hlsl", CompileOptions(profile="cs_6_0", target="spirv", opt_level=0), text=EARLY_READS)
    assert res.ok, [d.message for d in res.diagnostics]
    tools.spirv_val(res.binary, "vulkan1.1")
    names = re.findall(r'OpName %\w+ "((?:arg|operand)\.\d+)"', tools.spirv_dis(res.binary))
    assert len(names) == 4, names


T_CURRENT_READS = """struct Attr { float2 b; };
RWStructuredBuffer<float> Out : register(u0);
float pair(float a, float b) { return a * 1000 + b; }
float report(float t) { Attr h = { float2(t, 0) }; ReportHit(t, 1, h); return t; }
float twice(float x) { return 2 * x; }
[shader("intersection")]
void isect() {
    Attr h = { float2(1, 1) };
    Out[0] = pair(RayTCurrent(), report(0.5));                    // read first: report() may accept a hit
    Out[1] = RayTCurrent() * 1000 + report(0.25);                 // the same for an operator's operands
    Out[2] = pair(RayTCurrent(), ReportHit(0.125, 2, h) ? 1 : 0);
    Out[3] = pair(RayTMin(), report(0.0625));                     // RayTMin() no ReportHit changes
    Out[4] = pair(RayTCurrent(), twice(3));                       // nor does a call that cannot report
}
"""


def _t_current_order(disassembly: str, start: str, read: str, report: str) -> list[str]:
    """'t' (a RayTCurrent read) and 'R' (a report) in the order the function from `start` on has them."""
    body = disassembly[disassembly.index(start):].split("OpFunctionEnd")[0].split("\n}\n")[0]
    return [("t" if m.group(0) == read else "R") for m in re.finditer(f"{re.escape(read)}|{re.escape(report)}", body)]


def test_ray_t_current_is_read_before_a_later_argument_reports_a_hit():
    """In an intersection shader an accepted ReportHit shrinks RayTCurrent(), so `f(RayTCurrent(), g())` with g
    reporting reads it first, left to right as DXC does (its dx.op.rayTCurrent is a read-only operation,
    emitted where the source reads it).  lavapipe keeps TMax there (test_rt_audit9 LAVAPIPE_TCURRENT), so no
    run shows the order: the IR, the -O3 SPIR-V (calls inlined) and the DXIL are checked, and validated."""
    from harness import tools
    from harness.dxil_tools import read_dxil
    from passes.passutil import sema_module, text

    from shaderbuild.compiler import compile_file
    from shaderbuild.options import CompileOptions

    module, _ = sema_module(T_CURRENT_READS, "lib_6_5", entry="")
    ir_text = text(module)
    body = ir_text[ir_text.index("fn isect"):]
    assert re.findall(r"(RayTCurrent\(\)|call report|ReportHit\()", body) == [
        "RayTCurrent()", "call report", "RayTCurrent()", "call report", "RayTCurrent()", "ReportHit(", "call report",
        "RayTCurrent()"]
    assert "store %arg.4 = RayTCurrent()" in body and "pair(RayTMin()" in body, body   # RayTMin is not copied
    assert "call pair(RayTCurrent():float, load(" in body, body         # nor RayTCurrent before twice()
    res = compile_file("t.hlsl", CompileOptions(profile="lib_6_5", entry="", target="spirv",
                                                vk_target_env="vulkan1.2"), text=T_CURRENT_READS)
    assert res.ok, [d.message for d in res.diagnostics]
    tools.spirv_val(res.binary, "vulkan1.2")
    dis = tools.spirv_dis(res.binary)
    tmax = re.search(r"OpDecorate (%\w+) BuiltIn RayTmax(?:KHR|NV)", dis).group(1)
    assert _t_current_order(dis, "%isect = OpFunction", f"OpLoad %float {tmax}", "OpReportIntersectionKHR") == list("tRtRtRRt")
    res = compile_file("t.hlsl", CompileOptions(profile="lib_6_5", entry="", target="dxil"), text=T_CURRENT_READS)
    assert res.ok, [d.message for d in res.diagnostics]
    order = _t_current_order(read_dxil(res.binary).ir, "define void @isect", "@dx.op.rayTCurrent.f32(i32 154)", "@dx.op.reportHit")
    assert order == list("tRtRtRRt"), order


def _errors(src: str, **kw) -> str:
    res = compile_cs(src, **kw)
    assert not res.ok, "compiled; DXC refuses it"
    return diagnostics_text(res)


def test_repeated_swizzle_component_is_not_an_lvalue():
    """Assigning or incrementing a swizzle naming one component twice is refused at each use, as DXC does."""
    src = "RWStructuredBuffer<int> Out : register(u0);\n[numthreads(1,1,1)] void main() {\n" \
          "    int2 v = int2(1, 2);\n    v.xx = int2(3, 4);\n    v.yy++;\n    Out[0] = v.x;\n}\n"
    text = _errors(src)
    assert "lang_test.hlsl:4:7: error: vector swizzle 'xx' has duplicate components" in text, text
    assert "lang_test.hlsl:5:7: error: vector swizzle 'yy' has duplicate components" in text, text


# `using` (DXC accepts it since 2022: a type alias, or a directive making a namespace's names visible)
USING_PRELUDE = """
namespace N {
    static const int k = 9;
    int f() { return 3; }
    struct S { int a; };
    namespace M { int g() { return f() * 2; } using Pair = int2; }
    using Trio = int[3];
}
using I = int;
using Vec = vector<int, 2>;
int outer() { using namespace N::M; Pair p = int2(g(), 1); return p.x * 10 + p.y; }
"""
USING = SlotTable("ctl9_using", "int", [
    case("alias_declarations", "I x = k4; Vec v = Vec(k1, k2); N::Trio t = {7, 8, 9}; using L = uint; L u = 5u;"
         " R = x + v.y * 10 + t[k2] * 100 + (int)u * 1000;", 4 + 2 * 10 + 9 * 100 + 5 * 1000, stmt=True),
    case("directive_in_block", "using namespace N; S s; s.a = k4; R = f() + s.a * 10 + k * 100;",
         3 + 4 * 10 + 9 * 100, stmt=True),
    case("directive_nested_namespace", "R = outer();", 61, stmt=True),
    case("local_shadows_namespace_member", "using namespace N; int k = k5; R = k + N::k * 10;", 5 + 90, stmt=True),
], prelude=USING_PRELUDE, setup=SETUP, inputs=INPUTS)
test_ctl9_using = table_test(USING)


@pytest.mark.parametrize("body, want", [
    ("    { using namespace N; }\n    Out[0] = f();\n", "lang_test.hlsl:5:14: error: use of undeclared identifier 'f'"),
    ("    using namespace Q;\n", "lang_test.hlsl:4:21: error: expected namespace name, 'Q' is not a namespace"),
    ("    using N::f;\n", "lang_test.hlsl:4:12: error: expected '=' after the alias name"),
], ids=["directive_ends_with_its_block", "unknown_namespace", "using_declaration"])
def test_using_errors_are_located(body, want):
    src = ("RWStructuredBuffer<int> Out : register(u0);\nnamespace N { int f() { return 3; } }\n"
           "[numthreads(1,1,1)] void main() {\n" + body + "}\n")
    assert want in _errors(src)


@pytest.mark.parametrize("op", ["=", "+=", "<<=", "<<", ">>", "++", "--", "->"])
def test_operators_needing_references_cannot_be_overloaded(op):
    """HLSL 2021 refuses overloads of assignment, compound assignment, shifts, ++/-- and -> (DXC's list)."""
    src = ("RWStructuredBuffer<int> Out : register(u0);\n"
           f"struct S {{ int v; int operator{op}(S s) {{ return 7; }} }};\n"
           "[numthreads(1,1,1)] void main() { S a; a.v = 1; Out[0] = a.v; }\n")
    assert f"lang_test.hlsl:2:31: error: overloading 'operator{op}' is not allowed" in _errors(src)


BUFFER_SRC = """
struct BF { uint lo : 4; uint mid : 8; uint hi : 20; };
struct Cell { int v; void set(int x) { v = x; } };
StructuredBuffer<BF> Src : register(t0);
RWStructuredBuffer<BF> Dst : register(u1);
RWStructuredBuffer<Cell> Cells : register(u2);
RWStructuredBuffer<uint> Out : register(u3);
[numthreads(1,1,1)] void main() {
    BF b = Src[0];
    Out[0] = b.lo; Out[1] = b.mid; Out[2] = b.hi;
    Dst[0] = b;
    BF w; w.lo = 0xF; w.mid = 0x12; w.hi = 0xABCDE;
    Dst[1] = w;
    Cells[0].set(Cells[0].v * 7);
    Out[3] = Cells[0].v;
}
"""


def test_bitfields_in_buffers_and_methods_on_buffer_elements():
    """Bit-fields pack from the low bit of their 32-bit unit (as DXC lays them out); a method called on a
    buffer element writes through to the buffer."""
    word = 0x12345678
    out = run_cs(BUFFER_SRC, {"Dst": ("uint", 2), "Cells": ("int", [6]), "Out": ("uint", 4)},
                 {"Src": ("uint", [word])})
    assert out["Out"] == [word & 0xF, (word >> 4) & 0xFF, word >> 12, 42]
    assert out["Dst"] == [word, 0xF | 0x12 << 4 | 0xABCDE << 12]
    assert out["Cells"] == [42]


DISCARD_PS = """
void cut_left(float x) { if (x < 3.0) discard; }
float keep_low(float y) { clip(4.0 - y); return y; }
int nested(float2 p) { cut_left(p.x); return (int)keep_low(p.y); }
float4 main(float4 pos : SV_Position) : SV_Target {
    int row = nested(pos.xy);
    return float4(row / 8.0, 0.5, 0, 1);
}
"""


def test_discard_and_clip_in_helper_functions():
    """`discard` and `clip` two calls deep end the pixel's invocation; the pixels they spare get the colour."""
    import res_util as R

    px = R.draw(R.FULLSCREEN_VS, DISCARD_PS, 8, 8)
    for y in range(8):
        for x in range(8):
            cx, cy = x + 0.5, y + 0.5
            killed = cx < 3.0 or 4.0 - cy < 0.0
            want = (0, 0, 0, 0) if killed else (R.unorm8(int(cy) / 8.0), R.unorm8(0.5), 0, 255)
            assert R.pixel(px, 8, x, y) == want, (x, y)


GLOBALS_SRC = """
const int CG = 5;
int Plain;
float4 V = float4(1, 2, 3, 4);
static const int SC = 9;
static int SV = SC * 2;
RWStructuredBuffer<int> Out : register(u0);
[numthreads(1,1,1)] void main() { SV += 1; Out[0] = CG; Out[1] = Plain; Out[2] = (int)V.w; Out[3] = SC + SV * 100; }
"""


def _f32_word(x: float) -> int:
    import struct

    return struct.unpack("<I", struct.pack("<f", x))[0]


def test_non_static_globals_are_uniforms_and_static_ones_are_not():
    """`const int CG = 5;` and plain globals live in $Globals (their initializers ignored with a warning, as
    DXC ignores them); `static const` and `static` globals keep their initializers."""
    words = [77, 88, 0, 0] + [_f32_word(x) for x in (1.5, 2.5, 3.5, 42.0)]
    out = run_cs(GLOBALS_SRC, {"Out": ("int", 4)}, {"$Globals": ("uint", words)})
    assert out["Out"] == [77, 88, 42, 9 + (9 * 2 + 1) * 100]


@pytest.mark.parametrize("stmt, name", [("Plain = 3;", "Plain"), ("CG = 3;", "CG"), ("V.x = 1;", "V"),
                                        ("Plain++;", "Plain")])
def test_uniform_globals_are_read_only(stmt, name):
    src = GLOBALS_SRC.replace("SV += 1;", stmt)
    assert f"lang_test.hlsl:8:35: error: cannot assign to constant buffer member '{name}'" in _errors(src)


@pytest.mark.parametrize("body, want", [
    ("int a[4] = {1, 2}; Out[0] = a[1];",
     "lang_test.hlsl:3:12: error: too few elements in initializer for type 'int[4]' (expected 4, have 2)"),
    ("switch (Out[1]) { case 1: break; case 1: break; }", "lang_test.hlsl:3:34: error: duplicate case value '1'"),
], ids=["too_few_initializers", "duplicate_case"])
def test_initializer_and_case_errors_are_located(body, want):
    src = "RWStructuredBuffer<int> Out : register(u0);\n[numthreads(1,1,1)] void main() {\n" + body + "\n}\n"
    assert want in _errors(src)
