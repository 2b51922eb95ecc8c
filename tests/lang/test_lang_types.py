"""Executed HLSL types: scalars (incl. 32-bit `half` and min-precision types without
-enable-16bit-types), vectors, vector<T,N>, matrices and matrix<T,R,C>, row_major/column_major
buffer layout, multi-dimensional arrays, nested structs, struct methods (HLSL 2021),
inheritance, typedef, static locals, static const tables, scoped/unscoped enums, groupshared."""

from __future__ import annotations

import struct

import lang_util
import pytest
from lang_util import SlotTable, case, compile_cs, f32, run_backend, run_cs, table_test

pytestmark = [pytest.mark.vulkan, pytest.mark.usefixtures("vk")]

IN = [3, 7, 0, 1, 2, -5]
SETUP = "    int three = In[0], seven = In[1], zero = In[2], one = In[3], two = In[4], m5 = In[5];\n"

SCALARS = SlotTable("scalar_types", "int", [
    case("bool_from_int", "(int)(bool)seven", 1),
    case("bool_from_zero", "(int)(bool)zero", 0),
    case("bool_arith_promotes", "true + true", 2),
    case("uint_wraps_below_zero", "(int)((uint)zero - 1u == 0xFFFFFFFFu)", 1),
    case("dword_is_uint", "dword x = (dword)m5; R = (int)(x > 0u);", 1, stmt=True),
    case("half_is_32bit", "half h = 2049.0; R = (int)h;", 2049, stmt=True),
    case("half_literal_suffix", "half h = 0.5h * seven; R = (int)(h * 4);", 14, stmt=True),
    case("double_precision", "double x = 1.0e10l + (double)one; R = (int)(x - 1.0e10l);", 1, stmt=True),
    case("min16float_arith", "min16float x = (min16float)seven * 0.5; R = (int)(x * 2);", 7, stmt=True),
    case("min10float_arith", "min10float x = (min10float)three + 1; R = (int)x;", 4, stmt=True),
    case("min16int_arith", "min16int x = (min16int)m5 * 3; R = x;", -15, stmt=True),
    case("min12int_arith", "min12int x = (min12int)seven - 9; R = x;", -2, stmt=True),
    case("min16uint_arith", "min16uint x = (min16uint)seven + 2u; R = (int)x;", 9, stmt=True),
    case("int64_wide", "int64_t x = (int64_t)seven << 40; R = (int)(x >> 38);", 28, stmt=True),
    case("uint64_wide", "uint64_t x = 0xFFFFFFFFull + (uint64_t)one; R = (int)(x >> 32);", 1, stmt=True),
    case("float_to_int_truncates", "(int)(-2.75 * (float)one)", -2),
    case("float_to_uint", "(int)(uint)(3.99 * (float)one)", 3),
    case("int_to_float_exact", "(int)((float)seven / 2.0 * 2.0)", 7),
    case("uint_to_float_large", "(int)((float)(0x80000000u + (uint)zero) / 65536.0)", 32768),
], setup=SETUP, inputs={"In": ("int", IN)})

VECTORS = SlotTable("vector_types", "int", [
    case("vector_template", "vector<int, 3> v = int3(one, two, three); R = v.x * 100 + v.y * 10 + v.z;", 123,
         stmt=True),
    case("vector_float_default", "vector<float, 2> v = float2(1.5, 2.5); R = (int)(v.x + v.y);", 4, stmt=True),
    case("ctor_mixed", "float4 v = float4(float2(one, two), three, 4); R = (int)dot(v, float4(1000, 100, 10, 1));",
         1234, stmt=True),
    case("ctor_from_vec3", "int4 v = int4(int3(seven, seven, one), zero); R = v.x + v.y + v.z + v.w;", 15, stmt=True),
    case("splat_ctor", "int3 v = seven; R = v.x + v.y + v.z;", 21, stmt=True),
    case("swizzle_read", "int4 v = int4(1, 2, 3, 4) * one; R = v.w * 1000 + v.z * 100 + v.y * 10 + v.x;", 4321,
         stmt=True),
    case("swizzle_repeat_read", "int4 v = int4(1, 2, 3, 4) * one; int4 w = v.xxyy; R = w.x * 1000 + w.y * 100 + w.z * 10 + w.w;",
         1122, stmt=True),
    case("swizzle_rgba", "int4 v = int4(1, 2, 3, 4) * one; R = v.a * 10 + v.r;", 41, stmt=True),
    case("swizzle_write", "int4 v = 0; v.zx = int2(seven, three); R = v.x * 1000 + v.y * 100 + v.z * 10 + v.w;",
         3070, stmt=True),
    case("swizzle_write_single", "int3 v = 1; v.y = seven; R = v.x * 100 + v.y * 10 + v.z;", 171, stmt=True),
    case("swizzle_of_swizzle", "int4 v = int4(1, 2, 3, 4) * one; R = v.wzyx.yx.x;", 3, stmt=True),
    case("scalar_swizzle", "int s = seven; int3 v = s.xxx; R = v.x + v.y + v.z;", 21, stmt=True),
    case("dynamic_vector_index_read", "int4 v = int4(10, 20, 30, 40); R = v[three];", 40, stmt=True),
    case("dynamic_vector_index_write", "int4 v = 0; v[two] = seven; R = v.z * 10 + v.y;", 70, stmt=True),
    case("vector_compound_swizzle", "int2 v = int2(one, two); v.yx += int2(10, 20); R = v.x * 100 + v.y;", 2112,
         stmt=True),
    case("bool_vector", "bool3 b = bool3(true, false, seven > 3); R = (int)b.x + (int)b.y * 2 + (int)b.z * 4;", 5,
         stmt=True),
    case("uint_vector_wrap", "uint2 v = uint2(0u, 1u) - (uint)one; R = (int)(v.x == 0xFFFFFFFFu) * 10 + (int)v.y;",
         10, stmt=True),
    case("vec1_is_scalarlike", "int1 v = seven; R = v.x + v;", 14, stmt=True),
], setup=SETUP, inputs={"In": ("int", IN)})

MATRICES = SlotTable("matrix_types", "float", [
    case("init_list_row_order", "float2x3 m = {1, 2, 3, 4, 5, 6}; R = m[1][2];", 6.0, stmt=True),
    case("zero_based_swizzle", "float2x3 m = {1, 2, 3, 4, 5, 6}; R = m._m01 * 10 + m._m10;", 24.0, stmt=True),
    case("one_based_swizzle", "float2x3 m = {1, 2, 3, 4, 5, 6}; R = m._11 * 100 + m._23;", 106.0, stmt=True),
    case("multi_swizzle", "float3x3 m = {1, 2, 3, 4, 5, 6, 7, 8, 9}; float3 d = m._11_22_33; R = d.x * 100 + d.y * 10 + d.z;",
         159.0, stmt=True),
    case("row_access", "float3x3 m = {1, 2, 3, 4, 5, 6, 7, 8, 9}; float3 r = m[2]; R = r.x + r.y + r.z;", 24.0,
         stmt=True),
    case("row_write", "float2x2 m = 0; m[1] = float2(three, seven); R = m._21 * 10 + m._22;", 37.0, stmt=True),
    case("element_write_swizzle", "float2x2 m = 0; m._12 = seven; R = m[0][1];", 7.0, stmt=True),
    case("matrix_template", "matrix<float, 2, 2> m = {1, 2, 3, 4}; R = m[0][0] + m[1][1];", 5.0, stmt=True),
    case("int_matrix", "int2x2 m = {one, two, three, seven}; R = (float)(m[1][1] - m[0][1]);", 5.0, stmt=True),
    case("matrix_ctor_from_vectors", "float2x2 m = float2x2(float2(1, 2), float2(3, 4)); R = m._21;", 3.0, stmt=True),
    case("dynamic_row_index", "float3x3 m = {1, 2, 3, 4, 5, 6, 7, 8, 9}; R = m[two][one];", 8.0, stmt=True),
    case("dynamic_row_col_write", "float3x3 m = 0; m[one][two] = 5; R = m._23;", 5.0, stmt=True),
    case("componentwise_mul", "float2x2 a = {1, 2, 3, 4}; float2x2 b = {5, 6, 7, 8}; float2x2 c = a * b; R = c._12 + c._21;",
         12.0 + 21.0, stmt=True),
    case("scalar_times_matrix", "float2x2 a = {1, 2, 3, 4}; float2x2 c = a * (float)two; R = c._22;", 8.0, stmt=True),
    case("matrix_add_compound", "float2x2 a = {1, 2, 3, 4}; a += 1; R = a._11 + a._22;", 7.0, stmt=True),
    case("matrix_truncation_cast", "float3x3 m = {1, 2, 3, 4, 5, 6, 7, 8, 9}; float2x2 t = (float2x2)m; R = t._22;",
         5.0, stmt=True),
    case("float4x4_identity_diag", "float4x4 m = float4x4(1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1) * (float)seven;"
         " R = m._44 + m._14;", 7.0, stmt=True),
    case("dynamic_row_and_column", "float3x3 m = {1, 2, 3, 4, 5, 6, 7, 8, 9}; m[two][one] = 50; R = m[two][one] + m._32;",
         100.0, stmt=True),
    case("cast_vector_to_matrix", "float2x2 m = (float2x2)float4(1, 2, 3, 4); R = m._12 * 10 + m._21;", 23.0,
         stmt=True),
    case("any_all_matrix", "float2x2 m = {0, 0, 0, 1}; R = (float)any(m) * 10 + (float)all(m);", 10.0, stmt=True),
    case("any_all_int_vector", "int3 v = int3(0, zero, 2); R = (float)any(v) * 10 + (float)all(v);", 10.0,
         stmt=True),
    case("min16float_vector", "min16float2 v = min16float2(1.5, 2.5); R = v.x + v.y;", 4.0, stmt=True),
    case("row_major_local_same_semantics", "row_major float2x2 a = {1, 2, 3, 4}; column_major float2x2 b = a;"
         " R = b._12 * 10 + a._12;", 22.0, stmt=True),
], setup=SETUP, inputs={"In": ("int", IN)})

STRUCT_PRELUDE = """
struct Inner { int a; int2 b; };
struct Outer { int x; Inner inner; int arr[2]; };
typedef float3 vec3;
typedef int Triple[3];
typedef Inner InnerAlias;
static const uint Fib[8] = {1, 1, 2, 3, 5, 8, 13, 21};
static const float Scale = 2.5;
static int g_counter = 100;
int NextId() { static int n = 0; n += 1; return n; }
enum Color { Red, Green = 5, Blue };
enum class Mode : uint { Off = 1, On = 4, Auto };
struct Entry { int a; int b; };
static const Entry Tab[2] = { {1, 2}, {3, 4} };
static int G4[4];
struct WithMat { float2x2 m; float k; };
"""
STRUCTS = SlotTable("aggregates", "int", [
    case("nested_struct_flat_init", "Outer o = {1, 2, 3, 4, 5, 6}; R = o.inner.b.y * 10 + o.arr[1];", 46, stmt=True),
    case("nested_struct_braced_init", "Outer o = {1, {2, {3, 4}}, {5, 6}}; R = o.inner.a * 10 + o.arr[0];", 25,
         stmt=True),
    case("struct_copy_is_value", "Inner p = {1, 2, 3}; Inner q = p; q.a = seven; R = p.a * 10 + q.a;", 17, stmt=True),
    case("struct_member_write", "Outer o = (Outer)0; o.inner.b.x = seven; o.arr[one] = three; R = o.inner.b.x * 10 + o.arr[1];",
         73, stmt=True),
    case("struct_cast_zero", "Outer o = (Outer)0; R = o.x + o.inner.a + o.inner.b.x + o.arr[1];", 0, stmt=True),
    case("array_2d", "int g[2][3] = {1, 2, 3, 4, 5, 6}; R = g[1][0] * 10 + g[0][2];", 43, stmt=True),
    case("array_2d_dynamic", "int g[2][3] = {1, 2, 3, 4, 5, 6}; R = g[one][two];", 6, stmt=True),
    case("array_3d", "int g[2][2][2] = {1, 2, 3, 4, 5, 6, 7, 8}; R = g[1][0][1] * 10 + g[0][1][0];", 63, stmt=True),
    case("array_dynamic_write", "int g[4] = {0, 0, 0, 0}; g[three] = seven; g[zero] = one; R = g[3] * 10 + g[0];", 71,
         stmt=True),
    case("array_of_structs", "Inner arr[2] = {1, 2, 3, 4, 5, 6}; R = arr[1].b.x * 10 + arr[0].a;", 51, stmt=True),
    case("array_assign_copies", "int p[2] = {1, 2}; int q[2] = p; q[0] = seven; R = p[0] * 10 + q[0];", 17, stmt=True),
    case("unsized_from_init", "int p[] = {4, 5, 6}; R = p[2] * 10 + p[0];", 64, stmt=True),
    case("typedef_vector", "vec3 v = vec3(one, two, three); R = (int)(v.x + v.y + v.z);", 6, stmt=True),
    case("typedef_array", "Triple t = {7, 8, 9}; R = t[two];", 9, stmt=True),
    case("typedef_struct", "InnerAlias ia = {seven, one, two}; R = ia.a;", 7, stmt=True),
    case("static_const_table", "R = (int)Fib[seven];", 21, stmt=True),
    case("static_const_scalar", "R = (int)(Scale * 4);", 10, stmt=True),
    case("static_global_mutable", "g_counter += seven; R = g_counter;", 107, stmt=True),
    case("static_local_persists", "NextId(); NextId(); R = NextId();", 3, stmt=True),
    case("const_local", "const int k = seven * 2; R = k;", 14, stmt=True),
    case("enum_unscoped", "R = Blue * 10 + Red;", 60, stmt=True),
    case("enum_unscoped_qualified", "R = Color::Green;", 5, stmt=True),
    case("enum_scoped", "R = (int)Mode::Auto * 10 + (int)Mode::Off;", 51, stmt=True),
    case("enum_variable", "Color c = Green; R = (c == Green) ? 1 : 0;", 1, stmt=True),
    case("enum_scoped_compare", "Mode m = Mode::On; R = (m == Mode::On) ? 1 : 0;", 1, stmt=True),
    case("local_struct_type", "struct Local { int a; int b; }; Local l = {seven, one}; R = l.a * 10 + l.b;", 71,
         stmt=True),
    case("static_const_struct_table", "R = Tab[one].b * 10 + Tab[one].a;", 43, stmt=True),
    case("static_global_array_zeroed_dynamic", "G4[two] = 7; G4[zero] = one; R = G4[2] * 100 + G4[0] * 10 + G4[3];",
         710, stmt=True),
    case("array_of_vectors_flat_init", "float4 arr[2] = {1, 2, 3, 4, 5, 6, 7, 8}; R = (int)(arr[1].y * 10 + arr[0].w);",
         64, stmt=True),
    case("struct_with_matrix_init", "WithMat s = {1, 2, 3, 4, 5}; R = (int)(s.m._21 * 10 + s.k);", 35, stmt=True),
    case("enum_in_switch", "Mode m = (Mode)(seven - 3); switch (m) { case Mode::On: R = 44; break; default: R = 1; }",
         44, stmt=True),
], prelude=STRUCT_PRELUDE, setup=SETUP, inputs={"In": ("int", IN)})

METHOD_PRELUDE = """
struct Counter {
    int n;
    void Add(int k) { n += k; }
    int Get() { return n * 10; }
};
struct Base { int id; int Id() { return id; } };
struct Derived : Base { int extra; };
"""
HLSL2021 = SlotTable("hlsl2021", "int", [
    case("this_member_access", "WithThis w = {seven}; R = w.Get();", 14, stmt=True,
         prelude="struct WithThis { int n; int Get() { return this.n * 2; } };\n"),
    case("this_method_call_and_write", "WithThis2 w = {three}; w.Bump(); R = w.n;", 4, stmt=True,
         prelude="struct WithThis2 { int n; void Inc() { n += 1; } void Bump() { this.Inc(); } };\n"),
    case("template_function", "R = Add2(two, three) + (int)Add2(1.5, 1.0);", 7, stmt=True,
         prelude="template<typename T> T Add2(T p, T q) { return p + q; }\n"),
    case("operator_overload", "V2 p = {two}; V2 q = {three}; V2 r = p + q; R = r.x;", 5, stmt=True,
         prelude="struct V2 { int x; V2 operator+(V2 o) { V2 r; r.x = x + o.x; return r; } };\n"),
    case("bitfields", "Bits b; b.lo = three; b.hi = seven; R = (int)(b.lo + b.hi * 16);", 3 + 7 * 16, stmt=True,
         prelude="struct Bits { uint lo : 4; uint hi : 4; };\n"),
    case("sizeof", "R = sizeof(float4) + sizeof(int2x2);", 32, stmt=True),
    case("sizeof_struct", "R = sizeof(SizedS) + sizeof(int) * 100;", 416, stmt=True,
         prelude="struct SizedS { float3 a; int b; };\n"),
    case("template_struct_with_method", "Box<int> b; b.v = seven + 2; Box<float> f; f.v = 1.5; R = b.Get() * 10 + (int)(f.v * 2);",
         93, stmt=True, prelude="template<typename T> struct Box { T v; T Get() { return v; } };\n"),
    case("explicit_template_arguments", "R = (int)(Twice<float>(1.25) * 4) + Twice<int>(three);", 16, stmt=True,
         prelude="template<typename T> T Twice(T x) { return x + x; }\n"),
    case("two_template_parameters", "R = Conv<int, float>(2.75);", 2, stmt=True,
         prelude="template<typename T, typename U> T Conv(U x) { return (T)x; }\n"),
    case("operator_mul_and_equality", "VM p = {three}; VM q = p * 4; VM w = {12}; R = q.x * 10 + (q == w ? 1 : 0);", 121,
         stmt=True, prelude="struct VM { int x; VM operator*(int k) { VM r; r.x = x * k; return r; } "
                            "bool operator==(VM o) { return x == o.x; } };\n"),
    case("operator_subscript", "A3 a = {1, 2, 3}; R = a[two];", 30, stmt=True,
         prelude="struct A3 { int d[3]; int operator[](int i) { return d[i] * 10; } };\n"),
], setup=SETUP, inputs={"In": ("int", IN)})

METHODS = SlotTable("methods", "int", [
    case("method_no_args", "Counter c = {seven}; R = c.Get();", 70, stmt=True),
    case("method_mutates_object", "Counter c = {seven}; c.Add(three); R = c.n;", 10, stmt=True),
    case("method_calls_method", "Twice t = {seven}; R = t.Run() * 100 + t.n;", 1414, stmt=True,
         prelude="struct Twice { int n; void Add(int k) { n += k; } int Run() { Add(n); return n; } };\n"),
    case("inherited_method", "Derived d = {seven, three}; R = d.Id() * 10 + d.extra;", 73, stmt=True),
    case("inherited_member", "Derived d = {seven, three}; R = d.id * 10 + d.extra;", 73, stmt=True),
], prelude=METHOD_PRELUDE, setup=SETUP, inputs={"In": ("int", IN)})

test_scalar_types = table_test(SCALARS)
test_methods = table_test(METHODS)
test_hlsl2021 = table_test(HLSL2021)
test_vector_types = table_test(VECTORS)
test_matrix_types = table_test(MATRICES)
test_aggregates = table_test(STRUCTS)

DOUBLES = SlotTable("double_type", "double", [
    case("double_add", "d + 1.0l", 0.1 + 1.0),
    case("double_mul", "d * d", 0.1 * 0.1),
    case("double_div", "1.0l / (d * 3.0l)", 1.0 / (0.1 * 3.0)),
    case("float_to_double_widen", "(double)(float)d", f32(0.1),
         xfail={"dxil-vk": lang_util.LAVAPIPE_ROUND_TRIP}),
    case("int_to_double", "(double)(int)(d * 100.0l) + 0.5l", 10.5),
], setup="    double d = In[0];\n", inputs={"In": ("double", [0.1])})
test_double_type = table_test(DOUBLES)

LAYOUT = """
struct Mats { row_major float2x2 r; column_major float2x2 c; float2x2 d; };
StructuredBuffer<Mats> M : register(t1);
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
    Mats m = M[0];
    Out[0] = m.r._12; Out[1] = m.c._12; Out[2] = m.d._12;
    Out[3] = m.r[1][0]; Out[4] = m.c[1][0]; Out[5] = M[0].c._22;
}
"""


def test_row_and_column_major_buffer_layout():
    """row_major stores rows contiguously; column_major (and the default) stores columns."""
    mem = [1.0, 2.0, 3.0, 4.0] * 3
    got = run_cs(LAYOUT, {"Out": ("float", 6)}, {"M": ("float", mem)})["Out"]
    # row_major [[1,2],[3,4]]; column_major [[1,3],[2,4]]
    assert got == [2.0, 3.0, 3.0, 3.0, 2.0, 4.0]


STRUCT_BUFFER = """
struct Item { uint id; float weight; int2 pos; };
StructuredBuffer<Item> Items : register(t1);
RWStructuredBuffer<Item> Res : register(u0);
[numthreads(4, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
    Item it = Items[tid.x];
    it.id += 100u;
    it.weight *= 2.0;
    it.pos = it.pos.yx;
    Res[tid.x] = it;
}
"""


def test_struct_elements_in_buffers():
    """A structured buffer of a struct: read as a whole, modified per field, written as a whole."""
    items = [(i, 0.5 * i, -i, 10 * i) for i in range(4)]
    raw = b"".join(struct.pack("<Ifii", *it) for it in items)
    n = len(raw) // 4
    got = run_cs(STRUCT_BUFFER, {"Res": ("uint", n)}, {"Items": ("uint", list(struct.unpack(f"<{n}I", raw)))})["Res"]
    out = struct.unpack("<" + "Ifii" * 4, struct.pack(f"<{n}I", *got))
    want = []
    for i, w, x, y in items:
        want += [i + 100, w * 2.0, y, x]
    assert list(out) == want


GROUPSHARED = """
RWStructuredBuffer<uint> Out : register(u0);
groupshared uint Shared[8];
groupshared float2 SharedVec;
[numthreads(1, 1, 1)]
void main() {
    for (uint i = 0; i < 8; i++) Shared[i] = i * i;
    SharedVec = float2(1.5, 2.5);
    uint s = 0;
    for (uint j = 0; j < 8; j++) s += Shared[j];
    Out[0] = s;
    Out[1] = (uint)(SharedVec.x + SharedVec.y);
}
"""


def test_groupshared_single_thread():
    got = run_cs(GROUPSHARED, {"Out": ("uint", 2)})["Out"]
    assert got == [sum(i * i for i in range(8)), 4]


CBUFFER = """
RWStructuredBuffer<float> Out : register(u0);
cbuffer P : register(b1) {
    float a; float3 b; float2 c; float d;
    float arr[2];
    row_major float2x2 rm;
    float2x2 cm;
};
float g;
uint2 gg;
[numthreads(1, 1, 1)]
void main() {
    Out[0] = a; Out[1] = b.x; Out[2] = b.y; Out[3] = b.z; Out[4] = c.x; Out[5] = c.y; Out[6] = d;
    Out[7] = arr[0]; Out[8] = arr[1];
    Out[9] = rm._11; Out[10] = rm._12; Out[11] = rm._21; Out[12] = rm._22;
    Out[13] = cm._11; Out[14] = cm._12; Out[15] = cm._21; Out[16] = cm._22;
    Out[17] = g; Out[18] = (float)gg.x; Out[19] = (float)gg.y;
}
"""


def test_cbuffer_and_globals_packing():
    """HLSL constant-buffer packing: vectors may start mid-register but never straddle one, array elements
    and matrix rows/columns start on 16-byte registers; loose globals form $Globals (register b0)."""
    words = [float(i) for i in range(32)]
    glob = [struct.unpack("<I", struct.pack("<f", 100.0))[0], 7, 9, 0]
    got = run_cs(CBUFFER, {"Out": ("float", 20)}, {"P": ("float", words), "$Globals": ("uint", glob)})["Out"]
    want = [0, 1, 2, 3, 4, 5, 6, 8, 12, 16, 17, 20, 21, 24, 28, 25, 29, 100, 7, 9]
    assert got == [float(w) for w in want]


BOOL_STRUCT = """
struct S { bool b; int x; bool2 bb; };
RWStructuredBuffer<S> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
    S s;
    s.b = Out[0].x > 0;
    s.x = 9;
    s.bb = bool2(false, true);
    Out[1] = s;
    Out[0].b = !Out[0].b;
}
"""


@pytest.mark.parametrize("backend", ["spirv", "dxil", "dxil-vk"])
def test_bool_members_in_structured_buffer(backend):
    """bool is stored as a 32-bit 0/1 in buffers; whole-struct and member stores."""
    got = run_backend(backend, BOOL_STRUCT, {"Out": ("uint", [1, 5, 0, 0, 0, 0, 0, 0])})["Out"]
    assert got == [0, 5, 0, 0, 1, 9, 0, 1]


BUFFER_RMW = """
RWStructuredBuffer<int> Out : register(u0);
RWStructuredBuffer<float4> V : register(u1);
struct S { int a; float b; };
RWStructuredBuffer<S> SB : register(u2);
[numthreads(1, 1, 1)]
void main() {
    Out[0] += 5; Out[1]++; ++Out[2]; Out[3] *= Out[3]; Out[4] <<= 2;
    V[0].y = 5; V[0].zw = float2(7, 8); V[1] += 1; V[1].x *= 3;
    SB[0].a += 10; SB[0].b = SB[0].b * 2;
}
"""


def test_read_modify_write_of_buffer_elements():
    """Compound assignment, ++ and partial (swizzle/member) writes on buffer elements."""
    sb = [1, struct.unpack("<I", struct.pack("<f", 1.5))[0]]
    got = run_cs(BUFFER_RMW, {"Out": ("int", [1, 2, 3, 4, 5]), "V": ("float4", [(1, 1, 1, 1), (2, 2, 2, 2)]),
                              "SB": ("uint", sb)})
    assert got["Out"] == [6, 3, 4, 16, 20]
    assert got["V"] == [(1.0, 5.0, 7.0, 8.0), (9.0, 3.0, 3.0, 3.0)]
    assert got["SB"] == [11, struct.unpack("<I", struct.pack("<f", 3.0))[0]]


GROUPSHARED_AGGREGATES = """
RWStructuredBuffer<float> Out : register(u0);
struct P { float2 v; int k; };
groupshared P Ps[4];
groupshared float2x2 GM;
[numthreads(4, 1, 1)]
void main(uint gi : SV_GroupIndex) {
    Ps[gi].v = float2(gi, gi * 2);
    Ps[gi].k = (int)gi * 10;
    if (gi == 0) GM = float2x2(1, 2, 3, 4);
    GroupMemoryBarrierWithGroupSync();
    P o = Ps[(gi + 1) % 4];
    Out[gi] = o.v.y + o.k + GM[1][gi % 2];
}
"""


def test_groupshared_structs_and_matrix():
    got = run_cs(GROUPSHARED_AGGREGATES, {"Out": ("float", 4)})["Out"]
    gm = [[1, 2], [3, 4]]
    assert got == [float(((g + 1) % 4) * 2 + ((g + 1) % 4) * 10 + gm[1][g % 2]) for g in range(4)]


MATRIX_CBUFFER = """
RWStructuredBuffer<float4> Out : register(u0);
cbuffer M : register(b1) {
    row_major float4x4 R4;
    column_major float4x4 C4;
    row_major float4x3 R43;
    column_major float4x3 C43;
    float4 v;
};
[numthreads(1, 1, 1)]
void main() {
    Out[0] = mul(v, R4);
    Out[1] = mul(v, C4);
    Out[2] = mul(R4, v);
    Out[3] = mul(C4, v);
    Out[4] = float4(mul(v, R43), 0);
    Out[5] = float4(mul(v, C43), 0);
    Out[6] = R4[1];
    Out[7] = C4[1];
    Out[8] = float4(R43[3], 0);
    Out[9] = float4(C43[3], 0);
}
"""


def _vm(v, m):
    return tuple(sum(v[k] * m[k][j] for k in range(len(v))) for j in range(len(m[0])))


def _mv(m, v):
    return tuple(sum(m[i][k] * v[k] for k in range(len(v))) for i in range(len(m)))


@pytest.mark.parametrize("backend", ["spirv", "dxil", "dxil-vk"])
def test_cbuffer_matrix_orientation_and_mul(backend):
    """row_major stores rows in registers, column_major (the default) stores columns; mul(v, M) and mul(M, v)
    give the textbook products for both, square and non-square."""
    m = [[float(r * 4 + c + 1) for c in range(4)] for r in range(4)]
    m43 = [[float(10 + r * 3 + c) for c in range(3)] for r in range(4)]
    v = [1.0, -2.0, 0.5, 3.0]
    regs = [m[r] for r in range(4)]
    regs += [[m[r][c] for r in range(4)] for c in range(4)]
    regs += [m43[r] + [0.0] for r in range(4)]
    regs += [[m43[r][c] for r in range(4)] for c in range(3)]
    regs += [v]
    data = [x for reg in regs for x in reg]
    want = [_vm(v, m), _vm(v, m), _mv(m, v), _mv(m, v), _vm(v, m43) + (0.0,), _vm(v, m43) + (0.0,),
            tuple(m[1]), tuple(m[1]), tuple(m43[3]) + (0.0,), tuple(m43[3]) + (0.0,)]
    assert run_backend(backend, MATRIX_CBUFFER, {"Out": ("float4", 10)}, {"M": ("float", data)})["Out"] == want


def _layout_case(backend, src, want, n_in=32):
    got = run_backend(backend, src, {"Out": ("float", len(want))}, {"C": ("float", [float(i) for i in range(n_in)])})
    assert got["Out"] == [float(w) for w in want]


PACKOFFSET = """
RWStructuredBuffer<float> Out : register(u0);
cbuffer C : register(b1) { float a : packoffset(c1.z); float4 b : packoffset(c0); };
[numthreads(1, 1, 1)]
void main() { Out[0] = a; Out[1] = b.y; }
"""


@pytest.mark.parametrize("backend", ["spirv", "dxil", "dxil-vk"])
def test_cbuffer_packoffset(backend):
    """packoffset(c1.z) puts `a` at byte 24, packoffset(c0) puts `b` at 0 (word i of the buffer holds i)."""
    _layout_case(backend, PACKOFFSET, [6, 1])


AFTER_STRUCT = """
RWStructuredBuffer<float> Out : register(u0);
struct S { float3 a; };
struct Light { float3 dir; float intensity; float2 uv; };
cbuffer C : register(b1) { S s; float tail; Light lights[2]; float tail2; };
[numthreads(1, 1, 1)]
void main() { Out[0] = s.a.z; Out[1] = tail; Out[2] = lights[1].dir.x; Out[3] = lights[1].uv.y; Out[4] = tail2; }
"""


@pytest.mark.parametrize("backend, want", [
    # Vulkan (DXC's relaxed std140): a struct is padded to 16 bytes, an array to stride x count, so tail
    # is c1.x, lights sit at c2 and c4 and tail2 starts a new register (c6.x)
    ("spirv", [2, 4, 16, 21, 24]),
    # D3D packing as DXC does it: structs and arrays start a register but are not padded at their end, so
    # tail shares s's register (c0.w), lights sit at c1 and c3, and tail2 follows lights[1].uv in c4.z
    ("dxil", [2, 3, 12, 17, 18]),
    ("dxil-vk", [2, 3, 12, 17, 18]),
])
def test_cbuffer_member_after_struct_per_api_rules(backend, want):
    """DXC's reference (d3dreflect structured_buffer_layout.hlsl: `S2 s3; float3 c;` puts c at 148, in
    s3's register) decides the D3D side; the Microsoft packing-rules page's "each structure forces the next
    variable to start on the next four-component vector" does not describe what DXC emits."""
    _layout_case(backend, AFTER_STRUCT, want)


AFTER_ARRAY = """
RWStructuredBuffer<float> Out : register(u0);
cbuffer C : register(b1) { float a[2]; float b; float2x2 ms[2]; float k; };
[numthreads(1, 1, 1)]
void main() { Out[0] = a[1]; Out[1] = b; Out[2] = ms[1]._12; Out[3] = k; }
"""


@pytest.mark.parametrize("backend, want", [
    # Vulkan (DXC's relaxed std140): an array's size is stride x count, so b and k start a new register
    ("spirv", [4, 8, 24, 28]),
    # D3D packing: the last array element is not padded, so b shares its register (c1.y) and k sits in c5.z
    ("dxil", [4, 5, 20, 22]),
    ("dxil-vk", [4, 5, 20, 22]),
])
def test_cbuffer_member_after_array_per_api_rules(backend, want):
    _layout_case(backend, AFTER_ARRAY, want)


PACK_MATRIX_PRAGMA = """
#pragma pack_matrix(row_major)
RWStructuredBuffer<float> Out : register(u0);
cbuffer C : register(b1) { float2x2 m; };
[numthreads(1, 1, 1)]
void main() { Out[0] = m._12; Out[1] = m._21; }
"""


@pytest.mark.parametrize("backend", ["spirv", "dxil", "dxil-vk"])
def test_pack_matrix_pragma(backend):
    """Rows in registers: m._12 is word 1, m._21 is word 4."""
    _layout_case(backend, PACK_MATRIX_PRAGMA, [1, 4])


SB_ROW_MAJOR = """
RWStructuredBuffer<float> Out : register(u0);
struct T { row_major float2x2 r; float2x2 c; float2 v; };
StructuredBuffer<T> In : register(t1);
[numthreads(1, 1, 1)]
void main() {
    T t = In[0];
    float2x2 m = In[0].r;
    Out[0] = t.r._12; Out[1] = t.c._12; Out[2] = In[0].r._12; Out[3] = In[0].c._12; Out[4] = m._12;
    Out[5] = mul(In[0].r, In[0].v).x; Out[6] = mul(t.v, t.r).x;
}
"""


@pytest.mark.parametrize("backend", ["spirv", "dxil", "dxil-vk"])
def test_structured_buffer_matrix_members(backend):
    """r = [[1, 2], [3, 4]] stored by rows, c = the same matrix stored by columns, v = (10, 100)."""
    data = [1, 2, 3, 4, 1, 3, 2, 4, 10, 100]
    got = run_backend(backend, SB_ROW_MAJOR, {"Out": ("float", 7)}, {"In": ("float", data)})["Out"]
    assert got == [2.0, 2.0, 2.0, 2.0, 2.0, 1 * 10 + 2 * 100.0, 10 * 1 + 100 * 3.0]


FLOAT3_STRIDE = """
RWStructuredBuffer<float> Out : register(u0);
StructuredBuffer<float3> V : register(t1);
[numthreads(1, 1, 1)]
void main() { uint n, stride; V.GetDimensions(n, stride); Out[0] = V[1].x; Out[1] = (float)stride; }
"""


@pytest.mark.parametrize("backend", ["spirv", "dxil", "dxil-vk"])
def test_getdimensions_stride_matches_element_spacing(backend):
    """Word i of the buffer holds i, so V[1].x names the word where element 1 starts."""
    got = run_backend(backend, FLOAT3_STRIDE, {"Out": ("float", 2)}, {"V": ("float", [float(i) for i in range(16)])})
    first_word_of_1, stride = got["Out"]
    assert stride == first_word_of_1 * 4


SB_STRUCT_LAYOUT = """
RWStructuredBuffer<float> Out : register(u0);
struct PV { float3 a; float3 b; float2 c; };
StructuredBuffer<PV> In : register(t1);
[numthreads(1, 1, 1)]
void main() { Out[0] = In[0].b.x; Out[1] = In[0].c.x; Out[2] = In[1].a.x; }
"""


@pytest.mark.parametrize("backend, want", [
    # Vulkan (DXC's relaxed std430): b would straddle a 16-byte boundary at 12, so it moves to 16; c to 32; stride 48
    ("spirv", [4.0, 8.0, 12.0]),
    # D3D structured buffers are tightly packed: b at 12, c at 24, stride 32
    ("dxil", [3.0, 6.0, 8.0]),
    ("dxil-vk", [3.0, 6.0, 8.0]),
])
def test_structured_buffer_struct_layout_per_api(backend, want):
    data = [float(i) for i in range(32)]
    assert run_backend(backend, SB_STRUCT_LAYOUT, {"Out": ("float", 3)}, {"In": ("float", data)})["Out"] == want


# cbuffer member placement: (declarations, expressions read, words for Vulkan relaxed std140, words for D3D packing)
CB_LAYOUTS = {
    "float3_then_float_share_register": ("float3 a; float b;", ["a.z", "b"], [2, 3], [2, 3]),
    "float3_would_straddle": ("float2 a; float3 b;", ["a.y", "b.x"], [1, 4], [1, 4]),
    "float4_starts_register": ("float a; float4 b;", ["b.x"], [4], [4]),
    "matrix_starts_register": ("float a; float2x2 m;", ["m._11", "m._21"], [4, 5], [4, 5]),
    "row_major_3x2_then_scalar": ("row_major float3x2 m; float k;", ["m._31", "m._32", "k"], [8, 9, 12], [8, 9, 10]),
    "column_major_2x3_then_scalar": ("float2x3 m; float k;", ["m._13", "m._23", "k"], [8, 9, 12], [8, 9, 10]),
    "half_and_min16_are_32_bit": ("half h; min16float m; float f;", ["h", "m", "f"], [0, 1, 2], [0, 1, 2]),
    "float2_array_then_scalar": ("float2 arr[2]; float k;", ["arr[1].y", "k"], [5, 8], [5, 6]),
    "float3_array_then_scalar": ("float3 arr[2]; float k;", ["arr[1].z", "k"], [6, 8], [6, 7]),
    "struct_then_float2": ("S1 s; float2 t;", ["s.a", "t.y"], [0, 5], [0, 2]),
    "struct_then_float3_fits_last_row": ("S1 s; float3 c;", ["c.x", "c.z"], [4, 6], [1, 3]),
    "struct_then_float4_new_row": ("S1 s; float4 c;", ["c.x"], [4], [4]),
}


def _cb_params():
    for name, (_decls, _reads, vk_words, dx_words) in CB_LAYOUTS.items():
        yield pytest.param(name, "spirv", vk_words, id=f"{name}-spirv")
        yield pytest.param(name, "dxil", dx_words, id=f"{name}-dxil")
        yield pytest.param(name, "dxil-vk", dx_words, id=f"{name}-dxil-vk")


@pytest.mark.parametrize("name, backend, words", list(_cb_params()))
def test_cbuffer_member_placement(name, backend, words):
    """Word i of the constant buffer holds float(i); each read must come from the word the API's rules give."""
    decls, reads, _vk, _dx = CB_LAYOUTS[name]
    src = ("RWStructuredBuffer<float> Out : register(u0);\nstruct S1 { float a; };\n"
           f"cbuffer C : register(b1) {{ {decls} }};\n[numthreads(1, 1, 1)]\nvoid main() {{ "
           + " ".join(f"Out[{i}] = {r};" for i, r in enumerate(reads)) + " }\n")
    got = run_backend(backend, src, {"Out": ("float", len(reads))}, {"C": ("float", [float(i) for i in range(32)])})
    assert got["Out"] == [float(w) for w in words]


# structured-buffer element layout: (members, reads, Vulkan words (DXC relaxed std430), D3D words (packed))
SB_LAYOUTS = {
    "float_float3": ("float a; float3 b;", ["In[0].b.x", "In[1].a"], [1, 4], [1, 4]),
    "float2_float3_straddle": ("float2 a; float3 b;", ["In[0].b.x", "In[1].a"], [4, 8], [2, 5]),
    "float_float4": ("float a; float4 b;", ["In[0].b.x", "In[1].a"], [4, 8], [1, 5]),
    "float_float2": ("float a; float2 b;", ["In[0].b.x", "In[1].a"], [1, 4], [1, 3]),
    "float3x3_then_scalar": ("float3x3 m; float k;", ["In[0].m._12", "In[0].k", "In[1].m._11"], [4, 12, 16], [3, 9, 10]),
    "float_array_then_scalar": ("float arr[3]; float k;", ["In[0].arr[2]", "In[0].k", "In[1].arr[0]"], [2, 3, 4], [2, 3, 4]),
}


@pytest.mark.parametrize("backend", ["spirv", "dxil", "dxil-vk"])
@pytest.mark.parametrize("name", sorted(SB_LAYOUTS))
def test_structured_element_layout_and_manifest_stride(name, backend):
    """Each API's layout rule decides where members and elements live; the manifest's stride for that API
    must be the distance between elements."""
    members, reads, vk_words, dx_words = SB_LAYOUTS[name]
    src = ("RWStructuredBuffer<float> Out : register(u0);\nstruct E { " + members + " };\n"
           "StructuredBuffer<E> In : register(t1);\n[numthreads(1, 1, 1)]\nvoid main() { "
           + " ".join(f"Out[{i}] = {r};" for i, r in enumerate(reads)) + " }\n")
    words = vk_words if backend == "spirv" else dx_words
    got = run_backend(backend, src, {"Out": ("float", len(reads))}, {"In": ("float", [float(i) for i in range(64)])})
    assert got["Out"] == [float(w) for w in words]
    element_1 = words[-1] * 4  # the last read is the first member of element 1
    manifest = {r["name"]: r for r in compile_cs(src, "spirv" if backend == "spirv" else "dxil").manifest["resources"]}
    assert manifest["In"]["vulkan" if backend == "spirv" else "hlsl"]["stride"] == element_1


SB_MATRIX_WRITES = """
struct T { row_major float2x2 r; float2x2 c; };
RWStructuredBuffer<T> B : register(u0);
[numthreads(1, 1, 1)]
void main() {
    float2x2 m = float2x2(1, 2, 3, 4);
    B[0].r = m; B[0].c = m;
    T t; t.r = m; t.c = m; B[1] = t;
    B[2].r._12 = 9; B[2].c._12 = 9;
    B[3].r[1] = float2(5, 6); B[3].c[1] = float2(5, 6);
}
"""


@pytest.mark.parametrize("backend", ["spirv", "dxil", "dxil-vk"])
def test_structured_buffer_matrix_member_writes(backend):
    """Element layout: r by rows (words 0-3), c by columns (words 4-7)."""
    got = run_backend(backend, SB_MATRIX_WRITES, {"B": ("float", [0.0] * 32)})["B"]
    assert [got[i * 8:(i + 1) * 8] for i in range(4)] == [
        [1, 2, 3, 4, 1, 3, 2, 4], [1, 2, 3, 4, 1, 3, 2, 4], [0, 9, 0, 0, 0, 0, 9, 0], [0, 0, 5, 6, 0, 5, 0, 6]]


MATRIX_ELEMENTS = """
StructuredBuffer<float2x2> M : register(t1);
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
    Out[0] = M[0]._12; Out[1] = M[1]._21; Out[2] = mul(float2(1, 10), M[0]).y;
    float2x2 m = M[1]; Out[3] = m._12;
}
"""


@pytest.mark.parametrize("backend", ["spirv", "dxil", "dxil-vk"])
def test_structured_buffer_of_matrices_is_column_major(backend):
    """Element i is a float2x2 stored by columns: M[0] = [[1, 3], [2, 4]], M[1] = [[5, 7], [6, 8]]."""
    got = run_backend(backend, MATRIX_ELEMENTS, {"Out": ("float", 4)}, {"M": ("float", [1, 2, 3, 4, 5, 6, 7, 8])})
    assert got["Out"] == [3.0, 6.0, 1 * 3 + 10 * 4.0, 7.0]


ROW_MAJOR_TEMPLATE_ARG = """
StructuredBuffer<row_major float2x2> R : register(t1);
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main() { Out[0] = R[0]._12; Out[1] = R[1]._21; }
"""


@pytest.mark.parametrize("backend", ["spirv", "dxil", "dxil-vk"])
def test_row_major_in_template_argument(backend):
    got = run_backend(backend, ROW_MAJOR_TEMPLATE_ARG, {"Out": ("float", 2)}, {"R": ("float", [1, 2, 3, 4, 5, 6, 7, 8])})
    assert got["Out"] == [2.0, 7.0]
