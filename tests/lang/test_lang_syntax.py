"""Executed HLSL syntax that DXC accepts (issue 20, "programs we refuse"): `struct X` as a type specifier,
anonymous structs with a declarator, `unsigned`, typedefs of resource templates, effects (FX) syntax
parsed and ignored with DXC's warnings, `case` values wrapped to the condition type, dynamic indexing
of a swizzle, and writes through multi-element matrix swizzles.  Expected values are worked out by hand
from the inputs (see each row); the nearby invalid forms get located diagnostics."""

from __future__ import annotations

import struct

import lang_util
import pytest
import res_util as R
from lang_util import SlotTable, case, compile_cs, run_cs, table_test

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

pytestmark = [pytest.mark.vulkan, pytest.mark.usefixtures("vk")]

IN = [3, 7, 0, 1, 2, -5]
SETUP = "    int three = In[0], seven = In[1], zero = In[2], one = In[3], two = In[4], m5 = In[5];\n"

STRUCTS = SlotTable("struct_specifiers", "int", [
    case("struct_keyword_local", "struct apple a; a.v = seven; R = a.v;", 7, stmt=True),
    case("struct_keyword_cast", "apple a = {three}; struct apple b = (struct apple)a; R = b.v * 2;", 6, stmt=True),
    case("struct_keyword_param_and_return", "apple a = {seven}; R = TwiceApple(a).v;", 14, stmt=True,
         prelude="struct apple TwiceApple(struct apple p) { struct apple r; r.v = p.v * 2; return r; }\n"),
    case("anonymous_local", "struct { int a; int b; } v = {seven, three}; R = v.a * 10 + v.b;", 73, stmt=True),
    case("anonymous_static_global", "R = g_anon.a * 10 + g_anon.b + seven - 7;", 45, stmt=True,
         prelude="static struct { int a; int b; } g_anon = {4, 5};\n"),
    case("anonymous_member", "Outer o = {seven, three, one}; R = o.inner.q * 100 + o.inner.r * 10 + o.s;", 731,
         stmt=True, prelude="struct Outer { struct { int q; int r; } inner; int s; };\n"),
    case("anonymous_member_two_declarators", "Pair2 p = {one, two, three, seven}; R = p.a.x * 1000 + p.b.y * 10 + p.a.y;",
         1072, stmt=True, prelude="struct Pair2 { struct { int x; int y; } a, b; };\n"),
    case("typedef_of_anonymous_struct", "Pt p = {seven, two}; R = p.x - p.y;", 5, stmt=True,
         prelude="typedef struct { int x; int y; } Pt;\n"),
    case("struct_keyword_sizeof", "R = sizeof(struct apple) * 10 + zero;", 40, stmt=True),
    case("nested_named_struct_scoped", "Outer3::Inner3 i = {seven}; Outer3 o; o.inner = i; o.r = one; "
         "R = o.inner.q * 10 + o.r;", 71, stmt=True,
         prelude="struct Outer3 { struct Inner3 { int q; } inner; int r; };\n"),
    case("nested_struct_declaration_only", "Holder h = {two, three}; R = h.a.p * 10 + h.b.p;", 23, stmt=True,
         prelude="struct Holder { struct Part { int p; }; Part a; Part b; };\n"),
    case("anonymous_array", "struct { int a; } arr[2] = {three, seven}; R = arr[1].a * 10 + arr[0].a;", 73,
         stmt=True),
    case("anonymous_static_const", "R = (int)(K_anon.a * 2) * 10 + K_anon.b + zero;", 32, stmt=True,
         prelude="static const struct { float a; int b; } K_anon = {1.5, 2};\n"),
], prelude="struct apple { int v; };\n", setup=SETUP, inputs={"In": ("int", IN)})

# 0xFFFFFFFB is -5 as a uint
UNSIGNED = SlotTable("unsigned_types", "int", [
    case("unsigned_int", "unsigned int u = (unsigned int)m5; R = (int)(u >> 28);", 0xFFFFFFFB >> 28, stmt=True),
    case("unsigned_alone", "unsigned u = (unsigned)three; u = u - 4; R = (int)(u % 1000u);", 0xFFFFFFFF % 1000,
         stmt=True),
    case("unsigned_vector", "unsigned int2 v = int2(m5, seven); R = (int)(v.x > v.y) * 10 + (int)v.y;", 17, stmt=True),
    case("unsigned_int64", "unsigned int64_t x = (unsigned int64_t)(int64_t)m5; R = (int)(x >> 56);", 0xFF,
         stmt=True),
    case("unsigned_cast", "R = (int)((unsigned int)m5 % 7u);", 0xFFFFFFFB % 7, stmt=True),
    case("unsigned_parameter", "R = (int)HalfOf((unsigned)m5);", 0xFFFFFFFB // 2, stmt=True,
         prelude="unsigned int HalfOf(unsigned x) { return x / 2; }\n"),
], setup=SETUP, inputs={"In": ("int", IN)})

# effects syntax in the prelude and body is parsed and dropped; the values show the rest is unaffected
EFFECTS_PRELUDE = """
BlendState BS { BlendEnable[0] = FALSE; SrcBlend[0] = ONE; };
RasterizerState RS { CullMode = None; };
DepthStencilState DSS { DepthEnable = FALSE; DepthWriteMask = ZERO; };
texture legacyTex < string UIName = "t"; >;
PixelShader psObject = CompileShader(ps_5_0, EffectPS());
VertexShader vsObject = compile vs_2_0 EffectPS();
VertexShader vsArray[2] = { compile vs_2_0 EffectPS(), compile vs_2_0 EffectPS() };
GeometryShader gsSO = ConstructGSWithSO(CompileShader(gs_5_0, EffectPS()), "SV_POSITION.xyz");
GeometryShader gsObject;
static const int k_annotated < string UIName = "k"; int UIMin = 0; bool Shown = 1 > 2; > = 6;
technique11 T0 < string Desc = "x"; > {
    pass P0 < int k = 1; > {
        SetPixelShader(CompileShader(ps_5_0, EffectPS()));
        SetBlendState(BS, float4(0, 0, 0, 0), 0xFFFFFFFF);
        SetDepthStencilState(DSS, 0);
    }
    pass {}
}
technique { pass { PixelShader = compile ps_2_0 EffectPS(); Texture = <legacyTex>; } }
technique10 {}
"""
EFFECTS = SlotTable("effects_syntax", "int", [
    case("annotated_static_const", "R = k_annotated + seven;", 13, stmt=True),
    case("local_state_block", "int s {blah = foo;}; s = seven; R = s * 2;", 14, stmt=True),
    case("effect_names_are_variables_elsewhere", "int PixelShader = three; int technique = two; R = PixelShader * technique;",
         6, stmt=True),
], prelude="int EffectPS() { return 1; }\n" + EFFECTS_PRELUDE, setup=SETUP, inputs={"In": ("int", IN)})

# `case` values are converted to the condition's type (with clang's warning), as DXC does
SWITCHES = SlotTable("switch_case_wrap", "int", [
    case("case_beyond_32_bits", "switch (seven) { case 0x100000007: R = 1; break; case 8: R = 2; break; default: R = 3; }",
         1, stmt=True),
    case("negative_case_on_uint", "switch ((uint)m5 + 4u) { case -1: R = 5; break; default: R = 6; }", 5, stmt=True),
    case("case_wraps_below", "switch (m5) { case 0xFFFFFFFFB: R = 8; break; default: R = 9; }", 8, stmt=True),
], setup=SETUP, inputs={"In": ("int", IN)})

SWIZZLE_INDEX = SlotTable("swizzle_dynamic_index", "int", [
    # v = (1, 2, 3): v.zyx = (3, 2, 1), v.yx = (2, 1)
    case("read", "float3 v = float3(one, two, three); R = (int)v.zyx[two] * 100 + (int)v.zyx[zero] * 10 + (int)v.yx[one];",
         131, stmt=True),
    # v.wzyx[1] is v.z, v.zw[1] is v.w: v becomes (1, 2, 9, 7)
    case("write", "int4 v = int4(1, 2, 3, 4); v.wzyx[one] = 9; v.zw[one] = 7; R = v.x * 1000 + v.y * 100 + v.z * 10 + v.w;",
         1297, stmt=True),
    case("identity_prefix", "int3 v = int3(4, 5, 6); R = v.xy[one];", 5, stmt=True),
    case("compound", "int3 v = int3(4, 5, 6); v.zxy[two] += seven; R = v.y;", 12, stmt=True),
    case("scalar_swizzle", "int s = seven; R = s.xxx[two];", 7, stmt=True),
    # v.zyx.yx is (v.y, v.z): index 1 is v.z
    case("swizzle_of_swizzle", "int3 v = int3(4, 5, 6); v.zyx.yx[one] = 9; R = v.zyx.yx[one] * 10 + v.zyx.yx[zero];",
         95, stmt=True),
], setup=SETUP, inputs={"In": ("int", IN)})

# int2x2 m = {1, 2, 3, 4} is _11 = 1, _12 = 2, _21 = 3, _22 = 4
MATRIX_SWIZZLE = SlotTable("matrix_swizzle_write", "int", [
    case("assign", "int2x2 m = 0; m._m00_m11 = int2(seven, three); R = m._11 * 1000 + m._12 * 100 + m._21 * 10 + m._22;",
         7003, stmt=True),
    case("compound", "int2x2 m = {1, 2, 3, 4}; m._12_21 += int2(seven, three); R = m._12 * 10 + m._21;", 96, stmt=True),
    case("one_component_of_it", "int3x3 m = 0; m._m00_m11_m22.z = seven; R = m._33 * 10 + m._11;", 70, stmt=True),
    case("increment", "int2x2 m = {1, 2, 3, 4}; m._11_22++; R = m._11 * 100 + m._12 * 10 + m._22;", 225, stmt=True),
    case("out_argument", "int2x2 m = {1, 2, 3, 4}; SetPair(m._22_11); R = m._11 * 10 + m._22;", 87, stmt=True),
    case("inout_argument", "int2x2 m = {1, 2, 3, 4}; Bump(m._21_12); R = m._21 * 10 + m._12;", 330, stmt=True),
    # modf's out parameter: integer parts (2, 3) land in _12 and _21, the fraction .25 is returned
    case("intrinsic_out_argument", "float2x2 fm = 0; float2 fr = modf(float2(2.5, 3.25) * one, fm._m01_m10); "
         "R = (int)(fm._12 * 10 + fm._21 + fr.y * 100);", 48, stmt=True),
    case("in_array_element", "int2x2 ms[2] = {1, 2, 3, 4, 5, 6, 7, 8}; ms[one]._m10_m01 = int2(seven, three); "
         "R = ms[1]._21 * 10 + ms[1]._12 + ms[0]._21 * 100;", 373, stmt=True),
], prelude="void SetPair(out int2 v) { v = int2(7, 8); }\nvoid Bump(inout int2 v) { v += int2(30, -2); }\n",
    setup=SETUP, inputs={"In": ("int", IN)})

# HLSL methods are not virtual: Base.Twice() calls Base.Id() even on a Derived whose own Id() hides it
INHERIT_PRELUDE = """
struct Base { int id; int Id() { return id; } int Twice() { return Id() * 2; } void Set(int v) { id = v; } };
struct Derived : Base { int extra; int Id() { return id + 100; } int Both() { return Id() + Twice(); } };
struct Leaf : Derived { int z; };
int TakeB(Base b) { return b.id * 10; }
int TakeB(Derived b) { return b.id * 100; }
void BumpB(inout Base b) { b.id += 1; }
"""
INHERITANCE = SlotTable("inherited_methods", "int", [
    case("base_method_on_derived", "Derived d = {seven, three}; R = d.Twice();", 14, stmt=True),
    case("hiding_method", "Derived d = {seven, three}; R = d.Id();", 107, stmt=True),
    case("two_levels_mutating", "Leaf l = {one, two, three}; l.Set(five); R = l.Id() * 10 + l.id;", 1050 + 5, stmt=True),
    case("derived_method_calls_both", "Leaf l = {five, two, three}; R = l.Both();", 105 + 10, stmt=True),
    case("base_alone", "Base b = {three}; R = b.Twice();", 6, stmt=True),
    case("derived_to_base", "Derived d = {seven, three}; Base b = (Base)d; Base c = d; R = b.Id() * 10 + c.id;", 77,
         stmt=True),
    # Leaf converts to Derived (one level) in preference to Base (two levels), as in C++
    case("overload_prefers_nearest_base", "Leaf l = {one, two, three}; Derived d = {seven, three}; Base b = {two}; "
         "R = TakeB(l) + TakeB(d) + TakeB(b);", 100 + 700 + 20, stmt=True),
    case("inout_base_part", "Derived d = {seven, three}; BumpB(d); R = d.id * 10 + d.extra;", 83, stmt=True),
], prelude=INHERIT_PRELUDE, setup=SETUP + "    int five = 5 * one;\n", inputs={"In": ("int", IN)})

OPERATOR_PRELUDE = """
struct A3 { int d[3]; int operator[](int i) { return d[i] * 10; } };
struct Grid { int w; int operator[](uint2 p) { return p.y * w + p.x; } };
struct V1 {
    int x;
    V1 operator-() { V1 r; r.x = -x; return r; }
    bool operator!() { return x == 0; }
    int operator~() { return x * 1000; }
    int operator()(int k) { return x * k; }
    int operator()(int a, int b) { return x + a + b; }
    bool operator<(V1 o) { return x < o.x; }
};
"""
SUBSCRIPT = SlotTable("operator_overloads", "int", [
    case("dynamic_index", "A3 a = {1, 2, 3}; R = a[two];", 30, stmt=True),
    case("vector_index", "Grid g = {5}; R = g[uint2(two, three)];", 3 * 5 + 2, stmt=True),
    case("element_of_array", "A3 arr[2] = {1, 2, 3, 4, 5, 6}; R = arr[one][two];", 60, stmt=True),
    case("in_expression", "A3 a = {seven, 2, 3}; R = a[zero] + a[one] * 2;", 70 + 40, stmt=True),
    case("unary_minus", "V1 a = {seven}; V1 n = -a; R = n.x;", -7, stmt=True),
    case("unary_not_and_complement", "V1 a = {seven}; V1 z = {zero}; R = (!z ? 10 : 0) + (!a ? 5 : 0) + ~a;",
         10 + 7000, stmt=True),
    case("call_operator_overloads", "V1 a = {seven}; R = a(three) * 100 + a(one, two);", 2100 + 10, stmt=True),
    case("comparison_operator", "V1 a = {seven}; V1 b = {three}; R = (b < a ? 1 : 0) * 10 + (a < b ? 1 : 0);", 10,
         stmt=True),
], prelude=OPERATOR_PRELUDE, setup=SETUP, inputs={"In": ("int", IN)})

TEMPLATE_PRELUDE = """
template<typename T, uint N> struct Arr { T v[N]; uint Size() { return N; } T Last() { return v[N - 1]; } };
template<uint N> int Scaled(int x) { return x * N; }
template<typename T, uint N> T Sum(T a[N]) { T s = 0; for (uint i = 0; i < N; i++) s += a[i]; return s; }
template<int K> int AddK(int x) { return x + K; }
template<bool B> int Pick(int x, int y) { return B ? x : y; }
"""
NONTYPE = SlotTable("non_type_template_parameters", "int", [
    case("struct_array_size", "Arr<int, 3> a = {1, 2, seven}; R = a.Size() * 100 + a.Last();", 307, stmt=True),
    case("explicit_value", "R = Scaled<4>(seven) + Scaled<2 + 1>(one);", 28 + 3, stmt=True),
    case("deduced_from_array", "int xs[4] = {1, 2, 3, seven}; R = Sum(xs);", 13, stmt=True),
    case("negative_int_value", "R = AddK<-2>(seven);", 5, stmt=True),
    case("size_of_instance", "R = sizeof(Arr<float, 5>) + zero;", 20, stmt=True),
    case("bool_value", "R = Pick<true>(seven, three) * 10 + Pick<false>(seven, three);", 73, stmt=True),
    case("uint_value_wraps", "R = (int)(Scaled<0xFFFFFFFF>(one) == -1);", 1, stmt=True),
], prelude=TEMPLATE_PRELUDE, setup=SETUP, inputs={"In": ("int", IN)})

BITS_PRELUDE = """
struct Bits { uint lo : 4; uint hi : 4; int s : 5; };
struct Mixed { float f; int a : 3, b : 7; int : 0; uint c : 32; uint64_t d : 40; };
struct Outer2 { Bits inner; int tail; };
void SetBits(out uint v) { v = 0x1F; }
"""
# a signed field keeps its low bits and reads back sign-extended: 5 in 3 bits is 0b101 = -3
BITFIELDS = SlotTable("bitfields", "int", [
    case("write_read", "Bits b; b.lo = two; b.hi = seven; b.s = -three; R = (int)(b.lo + b.hi * 16) * 100 + b.s;",
         (2 + 7 * 16) * 100 - 3, stmt=True),
    case("truncating_compound", "Bits b = (Bits)0; b.lo = two; b.lo += 20; R = b.lo;", (2 + 20) & 0xF, stmt=True),
    case("signed_wraps", "Mixed m = (Mixed)0; m.a = 5 * one; m.b = -two; R = m.a * 100 + m.b;", -3 * 100 - 2,
         stmt=True),
    case("wide_unit", "Mixed m = (Mixed)0; m.d = 0x123456789A; m.c = 0xFFFFFFFF; R = (int)(m.d >> 8) + (int)m.c;",
         0x12345678 - 1, stmt=True),
    case("neighbours_kept", "Bits b = (Bits)0; b.s = -1; b.lo = 15; b.hi = 0; R = b.s * 1000 + (int)b.lo * 10 + (int)b.hi;",
         -1000 + 150, stmt=True),
    case("initializer_list", "Bits c = {one, two, -one}; R = c.lo * 100 + c.hi * 10 + c.s;", 100 + 20 - 1, stmt=True),
    case("nested_initializer", "Outer2 o = {three, seven, -two, 9}; R = o.inner.hi * 100 + o.inner.s * 10 + o.tail;",
         700 - 20 + 9, stmt=True),
    case("out_argument", "Bits b = (Bits)0; b.hi = 3; SetBits(b.lo); R = b.lo * 10 + b.hi;", 0xF * 10 + 3, stmt=True),
    case("increment", "Bits b = (Bits)0; b.lo = 15; b.lo++; b.hi--; R = b.lo * 100 + b.hi;", 0 * 100 + 15, stmt=True),
    case("sizeof", "R = sizeof(Bits) * 100 + sizeof(Mixed) + zero;", 4 * 100 + 24, stmt=True),
    case("copy", "Bits b = (Bits)0; b.hi = 9; b.s = -7; Bits c = b; R = c.hi * 100 + c.s;", 900 - 7, stmt=True),
], prelude=BITS_PRELUDE, setup=SETUP, inputs={"In": ("int", IN)})

test_bitfields = table_test(BITFIELDS)
NAMESPACE_PRELUDE = """
static const int K = 100;
int F(int x) { return x * 1000; }
namespace NS {
    static const int K = 2;
    int F(int x) { return x + K; }
    struct S { int a; int Get() { return a + K; } static const int M = 7; int WithM() { return a * M; } };
    enum E { A = 3, B };
    enum class C { X = 5 };
    typedef S T;
    template<typename U> U Twice(U u) { return u + u; }
    namespace Inner { int G() { return F(1) + K; } }
    int Shadow(int K) { return K; }
}
"""
# inside NS, F and K are NS::F and NS::K (2); a parameter named K shadows NS::K
NAMESPACES = SlotTable("namespaces", "int", [
    case("qualified_and_global", "R = NS::F(NS::K) + F(one) + K;", 4 + 1000 + 100, stmt=True),
    case("struct_method_sees_namespace", "NS::S s = {four}; R = s.Get();", 6, stmt=True),
    case("static_member", "NS::T t = {five}; R = NS::S::M * 10 + t.WithM();", 70 + 35, stmt=True),
    case("enums", "R = NS::A * 10 + NS::E::B + (int)NS::C::X * 100;", 534, stmt=True),
    case("template_in_namespace", "R = NS::Twice(three);", 6, stmt=True),
    case("nested_namespace", "R = NS::Inner::G();", 3 + 2, stmt=True),
    case("parameter_shadows_namespace_name", "R = NS::Shadow(nine);", 9, stmt=True),
], prelude=NAMESPACE_PRELUDE, setup=SETUP + "    int four = 4 * one, five = 5 * one, nine = 9 * one;\n",
    inputs={"In": ("int", IN)})

DEFAULTS_PRELUDE = """
template<typename T = int, uint N = 3> struct ArrD { T v[N]; uint Size() { return N; } };
template<uint N = 4> int ScaleD(int x) { return x * N; }
template<typename T, typename U = T> U ConvD(T x) { return (U)x; }
class Klass { int a; int Get() { return a * 2; } };
struct Counted { int n; static const int Limit = 9; static int Twice(int v) { return v * 2; }
                 int Scaled() { return n * Limit; } };
struct OutOfLine { int a; int Get(); int Times(int k); static const int M = 3; };
int OutOfLine::Get() { return a * M; }
int OutOfLine::Times(int k) { return Get() * k; }
"""
MORE_2021 = SlotTable("template_defaults_class_static", "int", [
    case("struct_template_defaults", "ArrD<> a; ArrD<float> b; ArrD<int, 5> c; R = a.Size() * 100 + b.Size() * 10 + c.Size();",
         335, stmt=True),
    case("function_template_defaults", "R = ScaleD(two) + ScaleD<10>(one) * 10;", 8 + 100, stmt=True),
    case("default_from_earlier_parameter", "R = (int)(ConvD(2.5 * one) * 2) + ConvD<float, int>(3.5) * 10;", 5 + 30,
         stmt=True),
    case("class_keyword", "Klass k = {seven}; R = k.Get();", 14, stmt=True),
    case("static_const_member", "R = Counted::Limit + zero;", 9, stmt=True),
    case("out_of_line_methods", "OutOfLine o = {three}; R = o.Get() + o.Times(10);", 9 + 90, stmt=True),
    case("static_member_function", "Counted c = {three}; R = Counted::Twice(seven) * 100 + c.Scaled();", 1400 + 27,
         stmt=True),
], prelude=DEFAULTS_PRELUDE, setup=SETUP, inputs={"In": ("int", IN)})

test_namespaces = table_test(NAMESPACES)
test_template_defaults_class_static = table_test(MORE_2021)
test_inherited_methods = table_test(INHERITANCE)
test_operator_overloads = table_test(SUBSCRIPT)
test_non_type_template_parameters = table_test(NONTYPE)
test_struct_specifiers = table_test(STRUCTS)
test_unsigned_types = table_test(UNSIGNED)
test_effects_syntax = table_test(EFFECTS)
test_switch_case_wrap = table_test(SWITCHES)
test_swizzle_dynamic_index = table_test(SWIZZLE_INDEX)
test_matrix_swizzle_write = table_test(MATRIX_SWIZZLE)


TYPEDEF_RESOURCES = """
typedef RWStructuredBuffer<uint> UBuf;
typedef StructuredBuffer<uint2> PairBuf;
typedef UBuf UBufAgain;
UBufAgain Out : register(u0);
PairBuf In : register(t1);
[numthreads(1, 1, 1)]
void main() {
    Out[0] = In[0].x * 10 + In[1].y;
    Out[1] = In[1].x;
}
"""


def test_typedef_of_resource_templates():
    """Typedefs (and a typedef of a typedef) of resource templates declare the resources themselves."""
    got = run_cs(TYPEDEF_RESOURCES, {"Out": ("uint", 2)}, {"In": ("uint", [4, 5, 6, 7])})["Out"]
    assert got == [4 * 10 + 7, 6]


CBUFFER_ANON = """
cbuffer Params : register(b0) { struct { float4 tint; uint count; } params; uint after; };
RWStructuredBuffer<uint> Out : register(u1);
[numthreads(1, 1, 1)]
void main() { Out[0] = params.count * 100 + (uint)params.tint.y * 10 + after; }
"""


def test_anonymous_struct_in_cbuffer():
    """A cbuffer member of anonymous struct type reads its fields; its layout is that of the same struct named."""
    # words: tint = (1, 2, 3, 4), count = 5; `after` is 6 at byte 20 (HLSL packing) and at byte 32 (std140)
    cb = [1.0, 2.0, 3.0, 4.0]
    words = [struct.unpack("<I", struct.pack("<f", x))[0] for x in cb] + [5, 6, 0, 0, 6, 0, 0, 0]
    got = run_cs(CBUFFER_ANON, {"Out": ("uint", 1)}, {"Params": ("uint", words)})["Out"]
    assert got == [5 * 100 + 2 * 10 + 6]
    named = CBUFFER_ANON.replace("struct {", "struct P {")
    for target in ("spirv", "dxil"):
        layouts = [lang_util.compile_ok(src, target).manifest["resources"][0]["block"] for src in (CBUFFER_ANON, named)]
        for block in layouts:
            block["members"][0]["type"] = "P"
        assert layouts[0] == layouts[1]


BITFIELD_BUFFER = """
struct BF { int i0 : 8; int i1 : 8; int i2 : 8; int i3 : 8; int i4 : 8; int : 4; int i5 : 5; int : 0; int i6 : 6; };
struct BU { int a : 8; uint b : 8; uint64_t c : 8; int64_t d : 8; };
StructuredBuffer<BF> In : register(t2);
StructuredBuffer<BU> InU : register(t3);
RWStructuredBuffer<BF> Res : register(u0);
RWStructuredBuffer<int> Out : register(u1);
[numthreads(1, 1, 1)]
void main() {
    BF v = In[0];
    Out[0] = v.i0; Out[1] = v.i1; Out[2] = v.i2; Out[3] = v.i3; Out[4] = v.i4; Out[5] = v.i5; Out[6] = v.i6;
    Out[7] = InU[0].a; Out[8] = (int)InU[0].b; Out[9] = (int)InU[0].c; Out[10] = (int)InU[0].d;
    Res[0] = (BF)0;
    Res[0].i3 = -2; Res[0].i5 = 9; Res[0].i6 = 31;
}
"""


def test_bitfield_buffer_layout():
    """Bit-fields in buffers are packed as DXC's reflection shows: from bit 0 of an int unit; i4 spills into the
    next unit, `int : 4` skips 4 bits (i5 at bit 12), `int : 0` closes the unit (i6 in a third); int and uint
    share a unit, a 64-bit type starts its own (8-byte aligned)."""
    def pack(fields):       # (value, bit offset, width) -> one 32-bit word
        w = 0
        for v, off, n in fields:
            w |= (v & ((1 << n) - 1)) << off
        return w
    words = [pack([(1, 0, 8), (-2, 8, 8), (3, 16, 8), (-4, 24, 8)]), pack([(5, 0, 8), (7, 8, 4), (-6, 12, 5)]),
             pack([(-7, 0, 6)])]
    unsigned = [pack([(-8, 0, 8), (200, 8, 8)]), 0, pack([(201, 0, 8), (-9, 8, 8)]), 0]
    got = run_cs(BITFIELD_BUFFER, {"Out": ("int", 11), "Res": ("uint", 3)},
                 {"In": ("uint", words), "InU": ("uint", unsigned)})
    assert got["Out"] == [1, -2, 3, -4, 5, -6, -7, -8, 200, 201, -9]
    assert got["Res"] == [pack([(-2, 24, 8)]), pack([(9, 12, 5)]), pack([(31, 0, 6)])]


SWIZZLE_OF_BUFFER = """
RWStructuredBuffer<int4> Out : register(u0);
StructuredBuffer<int> In : register(t1);
[numthreads(1, 1, 1)]
void main() {
    int i = In[0];
    Out[0] = int4(1, 2, 3, 4);
    Out[0].wzyx[i] = 9;
    Out[1] = int4(Out[0].yx[i - 1], (Out[0] + 10).zyx[i], 0, 0);
}
"""


def test_swizzle_of_buffer_element_indexed():
    """With i = 1: .wzyx[1] is .z of the buffer element; .yx[0] is .y; a swizzled value indexed at run time."""
    got = run_cs(SWIZZLE_OF_BUFFER, {"Out": ("int4", 2)}, {"In": ("int", [1])})["Out"]
    assert got == [(1, 2, 9, 4), (2, 12, 0, 0)]


TEXEL_COMPONENTS = """
RWBuffer<uint4> B : register(u0);
RWStructuredBuffer<uint> Out : register(u1);
StructuredBuffer<uint> In : register(t2);
[numthreads(1, 1, 1)]
void main() {
    uint i = In[0];
    B[0][i] = 50;
    B[1].wzyx[i] += B[0][i];
    B[2][3] = 7;
    Out[0] = B[1][2];
    Out[1] = B[0].zyx[i + 1];
}
"""


def test_component_of_texel():
    """A component of a typed-buffer element, by a run-time or constant index and through a swizzle (with i = 1:
    B[0].y = 50; B[1].wzyx[1] is B[1].z, 22 + 50; B[0].zyx[2] is B[0].x)."""
    out = R.cs(TEXEL_COMPONENTS, {"B": R.texel(R.pack("I", [10, 11, 12, 13, 20, 21, 22, 23, 30, 31, 32, 33]), "rgba32ui"),
                                  "Out": R.storage(R.pack("I", [0, 0])), "In": R.storage(R.pack("I", [1]))})
    assert R.unpack("I", out["B"]) == [10, 50, 12, 13, 20, 21, 72, 23, 30, 31, 32, 7]
    assert R.unpack("I", out["Out"]) == [72, 10]


def _warnings(src: str, disabled: tuple[str, ...] = ()) -> list[str]:
    opts = CompileOptions(entry="main", profile="cs_6_0", target="spirv", disabled_warnings=list(disabled))
    res = compile_file("fx.hlsl", opts, text=src)
    assert res.ok, [d.message for d in res.diagnostics]
    return [f"{d.loc.line}:{d.loc.col}: {d.message}" for d in res.diagnostics if d.severity == "warning"]


FX = """RWStructuredBuffer<uint> Out : register(u0);
Texture2D tex : register(t1) < int foo = 1; > { Filter = MIN_MAG_MIP_LINEAR; };
SamplerState s1 : register(s2) = sampler_state { Texture = <tex>; };
BlendState bs;
technique T { pass P {} }
[numthreads(1, 1, 1)]
void main() { Out[0] = 1; }
"""
DEPRECATED = " ignored - effect syntax is deprecated"


def test_effects_syntax_warnings():
    """Each ignored construct gets DXC's wording at its own position; -Wno-effects-syntax drops them all."""
    assert _warnings(FX) == [
        "2:30: possible effect annotation" + DEPRECATED,
        "2:47: effect state block" + DEPRECATED + ". To use braces as an initializer use them with equal signs.",
        "3:34: effect sampler_state assignment" + DEPRECATED,
        "4:1: effect object" + DEPRECATED,
        "5:1: effect technique" + DEPRECATED,
    ]
    assert _warnings(FX, ("effects-syntax",)) == []


def test_case_overflow_warning():
    src = ("RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(1, 1, 1)]\nvoid main() {\n"
           "    switch (Out[0]) { case 0x100000002: Out[1] = 1; break; }\n}\n")
    assert _warnings(src) == ["4:23: overflow converting case value to switch condition type (4294967298 to 2)"]
    assert _warnings(src, ("switch",)) == []


HEAD = "RWStructuredBuffer<float> Out : register(u0);\n"
CS = "[numthreads(1, 1, 1)]\nvoid main() {\n"

# name -> (source after HEAD, expected "line:col: error: message")
ERRORS = {
    "signed_is_reserved": (CS + "    signed int x = 1;\n    Out[0] = x;\n}\n",
                           "4:5: error: 'signed' is a reserved keyword in HLSL"),
    "struct_keyword_unknown_struct": (CS + "    struct banana b;\n}\n", "4:12: error: unknown type name 'banana'"),
    "state_block_unclosed": ("SamplerState s { Filter = LINEAR;\n",
                             "2:16: error: expected '}' to close the state block opened here"),
    "duplicate_case_after_wrap": (CS + "    switch ((int)Out[0]) { case 1: break; case 0x100000001: break; }\n}\n",
                                  "4:43: error: duplicate case value '1'"),
    "template_value_given_a_type": ("template<uint N> int F() { return N; }\n" + CS + "    Out[0] = F<float>();\n}\n",
                                    "5:16: error: template argument for non-type template parameter 'N' must be an "
                                    "expression"),
    "template_type_given_a_value": ("template<typename T> T G() { return 1; }\n" + CS + "    Out[0] = G<3>();\n}\n",
                                    "5:16: error: template argument for template type parameter 'T' must be a type"),
    "template_float_value_parameter": ("template<float F> float H() { return F; }\n" + CS +
                                       "    Out[0] = H<1>();\n}\n",
                                       "2:10: error: a non-type template parameter must have an integer type, not "
                                       "'float'"),
    "operator_subscript_is_not_assignable": ("struct A { int operator[](int i) { return i; } };\n" + CS +
                                             "    A a;\n    a[0] = 1;\n}\n",
                                             "6:6: error: expression is not assignable: 'A' has an 'operator[]' that "
                                             "returns a value"),
    "bitfield_too_wide": ("struct S { uint a : 40; };\n" + CS + "}\n",
                          "2:21: error: width of bit-field 'a' (40 bits) exceeds the width of its type (32 bits)"),
    "bitfield_of_float": ("struct S { float a : 4; };\n" + CS + "}\n",
                          "2:18: error: bit-field 'a' has non-integral type 'float'"),
    "bitfield_named_zero_width": ("struct S { int a : 0; };\n" + CS + "}\n",
                                  "2:20: error: named bit-field 'a' has zero width"),
    "bitfield_with_semantic": ("struct S { int a : 4 : TEXCOORD0; };\n" + CS + "}\n",
                               "2:16: error: bitfields are not allowed with HLSL annotations"),
    "bitfield_out_of_const": ("struct S { uint a : 4; };\nvoid P(out uint v) { v = 1; }\n" + CS +
                              "    const S s = (S)0;\n    P(s.a);\n}\n",
                              "7:9: error: cannot assign to const-qualified variable 's'"),
    "unary_operator_not_declared": ("struct A { int x; };\n" + CS + "    A a = {1};\n    Out[0] = ~a;\n}\n",
                                    "6:14: error: invalid argument type 'A' to unary operator '~'"),
    "namespace_unclosed": ("namespace NS {\n    int F() { return 1; }\n",
                           "2:14: error: expected '}' to close the namespace opened here"),
    "namespace_name_not_visible_outside": ("namespace NS { int F() { return 1; } }\n" + CS +
                                           "    Out[0] = F();\n}\n",
                                           "5:14: error: use of undeclared identifier 'F'"),
    "template_default_missing_after_default": ("template<typename T = int, typename U> U G(T t) { return t; }\n" + CS +
                                               "}\n", "2:37: error: template parameter 'U' is missing a default "
                                               "argument (an earlier one has one)"),
    "out_of_line_without_declaration": ("struct S { int a; };\nint S::Get() { return a; }\n" + CS + "}\n",
                                        "3:8: error: out-of-line definition of 'Get' does not match any declaration in "
                                        "'S'"),
    "matrix_swizzle_duplicate_write": (CS + "    float2x2 m = 0;\n    m._m00_m00 = float2(1, 2);\n}\n",
                                       "5:7: error: matrix swizzle '_m00_m00' has duplicate components and cannot be "
                                       "assigned"),
    "matrix_swizzle_duplicate_out": ("void P(out float2 v) { v = 1; }\n" + CS + "    float2x2 m = 0;\n    P(m._11_11);\n}\n",
                                     "6:9: error: a matrix swizzle with duplicate components cannot be assigned"),
    "matrix_swizzle_out_of_const": ("void P(out float2 v) { v = 1; }\n" + CS + "    const float2x2 m = 0;\n"
                                    "    P(m._11_22);\n}\n", "6:9: error: cannot assign to const-qualified variable 'm'"),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_syntax_error(name):
    body, want = ERRORS[name]
    res = compile_cs(HEAD + body)
    assert res.ok is False
    errors = [d for d in res.diagnostics if d.severity == "error"]
    assert len(errors) == 1, [d.message for d in errors]
    e = errors[0]
    assert f"{e.loc.line}:{e.loc.col}: error: {e.message}" == want
    text = e.render(res.sources).splitlines()
    assert text[2] == " " * (e.loc.col - 1) + "^"
