"""Issue 20, round 14: template and struct forms of real engine code that DXC compiles and we refused.  Each
shader is our own; the expected values are worked out in the test."""

from __future__ import annotations

import res_util as R

QUALIFIED_TEMPLATES = """RWStructuredBuffer<float> Out : register(u0);
namespace N { template<typename T> struct Twice { T v; T get() { return v * 2; } }; }
template<typename T> struct Grid { struct Cell { T a; T b; }; Cell c; T sum() { return c.a + c.b; } };
Grid<int>::Cell make(int k) { Grid<int>::Cell r; r.a = k; r.b = k + 1; return r; }
float total(Grid<float>::Cell c) { return c.a * c.b; }
[numthreads(1, 1, 1)]
void main() {
    N::Twice<float> t = N::Twice<float>(1.5);
    Grid<float>::Cell c; c.a = 3; c.b = 0.5;
    Grid<float> g; g.c = c;
    Out[0] = t.get();
    Out[1] = total(c);
    Out[2] = make(4).b;
    Out[3] = g.sum();
    Out[4] = N::Twice<int>(7).get();
    Out[5] = (float)sizeof(Grid<float>::Cell);
}
"""


def test_qualified_template_casts_and_nested_structs_of_instances_run():
    """`N::Twice<float>(1.5)`, a namespace's struct template as a functional cast (was "expected '(' after
    type name 'float'"), and `Grid<float>::Cell`, the struct defined in a template named from outside it, as
    a local's, a parameter's and a return type (was "expected ';' after expression")."""
    out = R.cs(QUALIFIED_TEMPLATES, {"Out": R.storage(R.sentinel(6))})
    a, b, k = 3.0, 0.5, 4
    assert R.unpack("f", out["Out"]) == [1.5 * 2, a * b, k + 1, a + b, 7 * 2, 2 * 4]


def test_unknown_member_type_of_an_instance_is_located():
    """clang's err_typename_nested_not_found, at the name."""
    bad = QUALIFIED_TEMPLATES.replace("Grid<float>::Cell c; c.a = 3; c.b = 0.5;", "Grid<float>::Nope c;")
    assert R.errors(R.compile_hlsl(bad)) == ["9:18: no type named 'Nope' in 'Grid<float>'"]


MEMBER_TEMPLATES = """RWStructuredBuffer<float> Out : register(u0);
ByteAddressBuffer Raw : register(t1);
template<typename U> struct Box {
    U v;
    template<typename T> T as() { return (T)(v * 2); }
    template<typename T, typename S> T mix(S s) { return (T)v + (T)s; }
};
struct D : Box<float> { float w; };
struct E : D {
    template<typename T, uint N> T rep() { T r = 0; for (uint i = 0; i < N; i++) r += as<T>(); return r; }
};
struct F : D { float as() { return -1; } };
[numthreads(1, 1, 1)]
void main() {
    E e; e.v = 1.25; e.w = 0;
    Out[0] = e.as<int>();
    Out[1] = e.rep<float, 3>();
    Out[2] = e.mix<int, float>(2.75);
    Out[3] = e.mix<float, int>(2.75);
    F f; f.v = 4;
    Out[4] = f.as();
    Out[5] = f.mix<float>(0.5f);
}
"""


def test_member_templates_take_several_arguments_and_are_inherited_run():
    """`e.mix<int, float>(x)` (was "expected '>' to close the template argument list"), a base's member
    templates called on a derived struct and unqualified in its methods, through a struct template instance
    base (was "no member function named 'as'"), and a derived method of the name hiding them (C++)."""
    out = R.cs(MEMBER_TEMPLATES, {"Out": R.storage(R.sentinel(6))})
    v, x = 1.25, 2.75
    assert R.unpack("f", out["Out"]) == [int(v * 2), 3 * (v * 2), int(v) + int(x), v + int(x), -1, 4 + 0.5]


def test_explicit_arguments_where_no_member_template_takes_them_are_located():
    """Too many for a resource method's one (clang's err_template_arg_list_different_arity, at the first extra),
    any for a plain method (these were ignored), too many for the member template (its deduction failure)."""
    cases = {
        ("Out[0] = e.as<int>();", "Out[0] = Raw.Load<float, int>(0);"):
            "16:30: too many template arguments for function template 'Load'",
        ("Out[4] = f.as();", "Out[4] = f.as<float>();"): "21:16: 'as' is not a member function template",
        ("Out[0] = e.as<int>();", "Out[0] = e.as<int, int>();"):
            "16:16: no matching member function template for call to 'as': too many template arguments (2 for 1)",
    }
    for (line, bad), expected in cases.items():
        src = MEMBER_TEMPLATES.replace(line, bad)
        assert R.errors(R.compile_hlsl(src)) == [expected], bad


OPERATORS_AND_ENUMS = """RWStructuredBuffer<float> Out : register(u0);
template<typename T> struct V2 {
    T x, y;
    V2 operator+(V2 o) { V2 r; r.x = x + o.x; r.y = y + o.y; return r; }
    V2 operator*(T s) { V2 r; r.x = x * s; r.y = y * s; return r; }
    T operator[](uint i) { return i == 0 ? x : y; }
};
template<uint N> struct Buf { static const uint M = N * 2; float a[M]; };
template<typename T> struct Counted {
    enum { Count = 3 };
    T v[Count];
    T sum() { T s = 0; for (uint i = 0; i < Count; i++) s += v[i]; return s; }
};
template<typename T> V2<T> make(T a, T b) { V2<T> r; r.x = a; r.y = b; return r; }
[numthreads(1, 1, 1)]
void main() {
    V2<float> a = make(1.0f, 2.0f);
    V2<float> b = make(0.5f, 0.25f);
    V2<float> c = (a + b) * 2.0f;
    Out[0] = c.x; Out[1] = c[1];
    Buf<3> bb; Out[2] = sizeof(bb) / 4 + Buf<3>::M;
    Counted<int> k; k.v[0] = 1; k.v[1] = 2; k.v[2] = 3;
    Out[3] = k.sum() + Counted<int>::Count;
}
"""


def test_template_operators_static_sizes_and_enumerators_run():
    """Operators of a struct template, a static member of a template sizing its array, and an enumerator of a
    template's enum named through an instance, `Counted<int>::Count` (was "use of undeclared identifier")."""
    out = R.cs(OPERATORS_AND_ENUMS, {"Out": R.storage(R.sentinel(4))})
    a, b, s = (1.0, 2.0), (0.5, 0.25), 2.0
    m = 3 * 2
    assert R.unpack("f", out["Out"]) == [(a[0] + b[0]) * s, (a[1] + b[1]) * s, m + m, 1 + 2 + 3 + 3]


MEMBER_TYPEDEFS = """RWStructuredBuffer<float> Out : register(u0);
struct S { using F = float2; using Count = uint; F x; F twice() { F r = x * 2; return r; } Count n() { return 3; } };
template<typename T, uint N> struct Box {
    using value_type = T;
    using vec_type = vector<T, N>;
    value_type v;
    vec_type spread() { vec_type r = v; return r; }
    value_type get() { value_type t = v + 1; return t; }
};
[numthreads(1, 1, 1)]
void main() {
    S s; s.x = float2(1, 2);
    S::F y = s.twice();
    Out[0] = y.y + s.n();
    Box<float, 3> b; b.v = 1.5;
    Box<float, 3>::vec_type w = b.spread();
    Box<int, 2>::value_type q = 7;
    Out[1] = w.z + b.get();
    Out[2] = q / 2;
    Out[3] = sizeof(Box<int, 2>::vec_type);
}
"""


def test_type_aliases_in_structs_and_struct_templates_run():
    """`using F = float2;` in a struct (DXC takes alias declarations there; was "struct/class members cannot
    have default values"), named F inside and S::F outside, and in a struct template, where `value_type`
    depends on the parameters: Box<int, 2>::value_type is int (7 / 2 divides as integers) and
    Box<int, 2>::vec_type an int2 (8 bytes)."""
    out = R.cs(MEMBER_TYPEDEFS, {"Out": R.storage(R.sentinel(4))})
    v = 1.5
    assert R.unpack("f", out["Out"]) == [2 * 2 + 3, v + (v + 1), 7 // 2, 2 * 4]


def test_member_type_alias_forms_we_refuse_are_located():
    """A `typedef` in a struct is DXC's error (SemaHLSL's DiagnoseHLSLDecl: only alias declarations pass)."""
    spec = MEMBER_TYPEDEFS.replace("struct S {", "template<typename T> struct Tr;\n"
                                   "template<> struct Tr<float> { using X = float; };\nstruct S {")
    assert R.errors(R.compile_hlsl(spec)) == [
        "3:31: a type alias in a struct template specialization is not supported"]
    typedef = MEMBER_TYPEDEFS.replace("using value_type = T;", "typedef T value_type;")
    assert R.errors(R.compile_hlsl(typedef))[0] == "4:5: nested typedefs are not supported in HLSL"
    unknown = MEMBER_TYPEDEFS.replace("Box<int, 2>::value_type q", "Box<int, 2>::valuetype q")
    assert R.errors(R.compile_hlsl(unknown)) == ["17:18: no type named 'valuetype' in 'Box<int, 2>'"]


ENGINE_FORMS = """RWStructuredBuffer<float> Out : register(u0);
template<typename T> struct Math { static T pi() { return (T)3.25; } static const T two = 2; };
template<typename T> struct V2 { T x, y; };
template<typename T, typename U = float> struct Pair { T a; U b; };
template<typename T> struct Box { T v; };
struct U8 { using Elem = uint; Elem e; };
template<typename T> struct W { using E = vector<T, 2>; E e; T sum() { E t = e; return t.x + t.y; } };
template<uint N> float sumN(float a[N]) { float s = 0; for (uint i = 0; i < N; i++) s += a[i]; return s; }
[numthreads(1, 1, 1)]
void main() {
    Out[0] = Math<float>::pi() + Math<int>::two;
    Box<V2<float> > b; b.v.x = 1; b.v.y = 2;
    Box<V2<float>> c = b;
    Pair<int> p; p.a = 1; p.b = 0.5;
    U8 u; u.e = 5;
    float arr[4] = { 1, 2, 3, 4 };
    Out[1] = c.v.y + p.b + u.e + sumN(arr);
    W<int> w; w.e = int2(3, 4);
    W<int>::E copy = w.e;
    Out[2] = w.sum() + copy.y;
}
"""


def test_engine_template_forms_run():
    """Static member functions and constants of instances, instances as arguments (`>>` closing two lists), a
    defaulted parameter, `using E = ...;` in a struct and in a struct template (was "struct/class members
    cannot have default values"), and an array size deduced."""
    out = R.cs(ENGINE_FORMS, {"Out": R.storage(R.sentinel(3))})
    assert R.unpack("f", out["Out"]) == [3.25 + 2, 2 + 0.5 + 5 + (1 + 2 + 3 + 4), 3 + 4 + 4]


HELPERS = """RWStructuredBuffer<float> Out : register(u0);
StructuredBuffer<float> In : register(t1);
template<typename T> struct V2 {
    T x, y;
    V2 scaled(T s) { V2 r = this; r.x *= s; r.y *= s; return r; }
    bool operator==(V2 o) { return x == o.x && y == o.y; }
};
template<typename T> T len2(V2<T> v) { return v.x * v.x + v.y * v.y; }
template<typename T> T pick(T a, T b) { return a > b ? a : b; }
template<> float pick<float>(float a, float b) { return a + b; }
template<typename T> struct View { StructuredBuffer<T> buf; T at(uint i) { return buf[i]; } };
template<uint N> float scaleBy(float x) { return x * N; }
template<typename T> struct S { static const uint K = sizeof(T) / 4; T a[K]; T first() { return T(a[0]); } };
namespace N { namespace M { template<typename T> T sq(T x) { return x * x; } } }
template<typename T> T conv(float x) { return T(x) + (T)1; }
[numthreads(1, 1, 1)]
void main() {
    V2<float> v; v.x = 1; v.y = 2;
    Out[0] = len2(v.scaled(3));
    Out[1] = pick(1.0f, 2.0f) + pick(3, 4);
    View<float> view; view.buf = In;
    Out[2] = view.at(1);
    Out[3] = (v == v) ? 1 : 0;
    Out[4] = scaleBy<3>(1.5);
    S<float2> s; s.a[0] = float2(2, 3); s.a[1] = float2(4, 5);
    Out[5] = s.first().y + S<float2>::K;
    Out[6] = N::M::sq<float>(3) + N::M::sq(2);
    Out[7] = conv<int>(2.5);
}
"""


def test_templated_helpers_run():
    """A control set of the forms a hunt through engine-style helpers tried that already compiled: deduction
    through a struct template, an explicit specialisation, a resource member of a template, a non-type
    argument given, a static size from sizeof(T), a nested namespace's template, T(x) of a scalar T."""
    data = [0.5, 6.75]
    out = R.cs(HELPERS, {"Out": R.storage(R.sentinel(8)), "In": R.storage(R.pack("f", data))})
    x, y = 1 * 3, 2 * 3
    assert R.unpack("f", out["Out"]) == [x * x + y * y, (1.0 + 2.0) + max(3, 4), data[1], 1, 1.5 * 3,
                                         3 + 8 // 4, 3 * 3 + 2 * 2, int(2.5) + 1]


TEMPLATE_ENUMS = """RWStructuredBuffer<float> Out : register(u0);
namespace N { template<uint K> struct Buf { static const uint M = K * 2; float a[M]; }; }
template<typename T> struct Modes {
    enum class E { A = 1, B = 5 };
    E mode;
    T scale() { return mode == E::B ? 2 : 1; }
};
template<typename T> struct Grid { struct Cell { T a; }; };
[numthreads(1, 1, 1)]
void main() {
    N::Buf<3> b;
    Out[0] = N::Buf<3>::M + sizeof(b) / 4;
    Modes<float> m; m.mode = Modes<float>::E::B;
    Out[1] = m.scale() + (uint)Modes<float>::E::A;
    Grid<int>::Cell c; c.a = 2;
    Modes<int>::E e2 = Modes<int>::E::A;
    Out[2] = c.a + (uint)e2;
}
"""


def test_scoped_enums_of_templates_through_instances_run():
    """`Modes<float>::E::B`, an enumerator of a template's scoped enum named through an instance, and
    `Modes<int>::E` as a type (were "expected ';' after expression, found '::'")."""
    out = R.cs(TEMPLATE_ENUMS, {"Out": R.storage(R.sentinel(3))})
    m = 3 * 2
    assert R.unpack("f", out["Out"]) == [m + m, 2 + 1, 2 + 1]


STATIC_MEMBER_TEMPLATES = """RWStructuredBuffer<float> Out : register(u0);
ByteAddressBuffer Raw : register(t1);
struct Utils {
    static const uint Stride = 4;
    template<typename T> static T read(ByteAddressBuffer b, uint i) { return b.Load<T>(i * Stride); }
    template<typename T> static T twice(T x) { return x * 2; }
    static float both(uint i) { return read<float>(Raw, i) + twice(1.5f); }
};
namespace NS { struct Q { template<typename T, uint N> static T fill() { T r = (T)N; return r; } }; }
[numthreads(1, 1, 1)]
void main() {
    Out[0] = Utils::read<float>(Raw, 1);
    Out[1] = Utils::twice(3) + Utils::twice<float>(0.25);
    Out[2] = Utils::both(0);
    Out[3] = NS::Q::fill<int, 7>();
}
"""


def test_static_member_templates_of_plain_structs_run():
    """`template<typename T> static T read(...)` in a struct used as a namespace of helpers (was "only
    non-static member functions can be member templates"): called qualified, deduced or with arguments,
    unqualified from a static member, and in a namespace's struct with a non-type parameter."""
    raw = [0.5, 6.75]
    out = R.cs(STATIC_MEMBER_TEMPLATES, {"Out": R.storage(R.sentinel(4)), "Raw": R.storage(R.pack("f", raw))})
    assert R.unpack("f", out["Out"]) == [raw[1], 3 * 2 + 0.25 * 2, raw[0] + 1.5 * 2, 7]


METAPROGRAMS = """RWStructuredBuffer<float> Out : register(u0);
template<typename T> struct S { T v; static S make(T x) { S s; s.v = x; return s; } };
template<uint N> struct Fact { static const uint V = N * Fact<N - 1>::V; };
template<> struct Fact<0> { static const uint V = 1; };
template<typename T> bool isFloat() { return false; }
template<> bool isFloat<float>() { return true; }
template<typename T, typename U> struct Same { static const bool value = false; };
template<typename T> struct Same<T, T> { static const bool value = true; };
template<typename T> T pickSame(T a) { return Same<T, float>::value ? a * 2 : a; }
[numthreads(1, 1, 1)]
void main() {
    Out[0] = S<float>::make(1.5).v;
    Out[1] = Fact<4>::V;
    Out[2] = isFloat<float>() + isFloat<int>() * 10;
    Out[3] = pickSame(1.5f) + pickSame(3);
    float arr[Fact<3>::V];
    Out[4] = sizeof(arr) / 4;
}
"""


def test_template_metaprograms_run():
    """A control of the trait patterns engine headers use (they compiled): recursion ended by a
    specialisation, a partial specialisation as a type test, a static factory of an instance, an array
    sized by an instance's constant."""
    import math
    out = R.cs(METAPROGRAMS, {"Out": R.storage(R.sentinel(5))})
    assert R.unpack("f", out["Out"]) == [1.5, math.factorial(4), 1, 1.5 * 2 + 3, math.factorial(3)]
