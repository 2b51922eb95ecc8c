"""Issue 20, round 13: HLSL 2021 / C++ features a real engine's shaders use, hunted for programs DXC compiles
that we refused or compiled wrongly.  Each shader is our own; the expected values are worked out in the test."""

from __future__ import annotations

import res_util as R

STATIC_MEMBERS = """RWStructuredBuffer<float> Out : register(u0);
struct Kernel {
    static const int K = 3;
    static const uint L = K + 1;
    float w[K];
    uint pad[L];
    float total() { float t = 0; for (int i = 0; i < K; i++) t += w[i]; return t; }
    float scaled(float s) { float k = s * L; return k + total(); }
};
namespace NS { struct T { static const int Q = 2; int v[Q * 2]; }; }
[numthreads(1, 1, 1)]
void main() {
    Kernel s; s.w[0] = 1; s.w[1] = 2; s.w[2] = 5;
    Out[0] = s.total();
    Out[1] = sizeof(Kernel) / 4;
    NS::T t;
    Out[2] = sizeof(t) / 4;
    Out[3] = Kernel::L;
    Out[4] = s.scaled(0.5);
}
"""


def test_static_const_members_size_arrays_and_survive_methods_run():
    """`float w[K]` with K a static member of the struct (was 'use of undeclared identifier 'K''), and a struct
    whose method declares a local: the struct's static members were taken into that method's first declaration
    statement (so `Kernel::L` in main was undeclared)."""
    out = R.cs(STATIC_MEMBERS, {"Out": R.storage(R.sentinel(5))})
    k, l_ = 3, 3 + 1
    w = [1, 2, 5]
    assert R.unpack("f", out["Out"]) == [sum(w), k + l_, 2 * 2, l_, 0.5 * l_ + sum(w)]


MEMBER_TEMPLATES = """RWStructuredBuffer<float> Out : register(u0);
struct Reader {
    float v;
    int k;
    template<typename T> T conv() { return (T)v; }
    template<typename T> T scaled(T s) { return (T)(v * s) + k; }
    template<typename T, uint N> T sum(T arr[N]) { T r = 0; for (uint i = 0; i < N; i++) r += arr[i]; return r + (T)v; }
    float plain() { return conv<float>() * 2 + scaled(1); }
};
[numthreads(1, 1, 1)]
void main() {
    Reader a; a.v = 2.75; a.k = 1;
    Out[0] = a.conv<int>();
    Out[1] = a.conv<float>();
    Out[2] = a.scaled(2.0f);
    Out[3] = a.scaled(2);
    float arr[3] = { 1, 2, 3 };
    Out[4] = a.sum(arr);
    Out[5] = a.plain();
}
"""


def test_member_function_templates_run():
    """`template<typename T> T conv()` in a struct (DXC's own headers use them; was 'expected a type, found
    'template''): explicit (`a.conv<int>()`) and deduced calls, a literal int making T int, an array size
    deduced, and unqualified calls from another method."""
    out = R.cs(MEMBER_TEMPLATES, {"Out": R.storage(R.sentinel(6))})
    v, k = 2.75, 1
    assert R.unpack("f", out["Out"]) == [int(v), v, v * 2.0 + k, int(v * 2) + k, 1 + 2 + 3 + v,
                                         v * 2 + (int(v * 1) + k)]


def test_member_template_errors_are_located():
    """A mismatch reports the deduction failure at the call."""
    bad_call = MEMBER_TEMPLATES.replace("Out[3] = a.scaled(2);", "Out[3] = a.sum(a.v);")
    assert R.errors(R.compile_hlsl(bad_call)) == [
        "16:16: no matching member function template for call to 'sum': cannot deduce template parameter 'N'"]


MEMBER_TEMPLATES_OF_TEMPLATES = """RWStructuredBuffer<float> Out : register(u0);
template<typename U, uint N> struct W {
    U v[N];
    template<typename T> T conv(uint i) { return (T)v[i] + N; }
    template<typename T> T scaled(T s) { U t = 0; for (uint i = 0; i < N; i++) t += v[i]; return (T)t * s; }
};
[numthreads(1, 1, 1)]
void main() {
    W<float, 2> w; w.v[0] = 1.5; w.v[1] = 2.25;
    W<int, 3> x; x.v[0] = 1; x.v[1] = 2; x.v[2] = 3;
    Out[0] = w.conv<int>(1);
    Out[1] = w.scaled(2.0f);
    Out[2] = x.conv<float>(2);
    Out[3] = x.scaled(0.5f);
}
"""


def test_member_templates_of_struct_templates_run():
    """The outer template's U and N inside a member template; scaled<float> of W<float, 2> and of W<int, 3> are
    two instances (one shared instance gave invalid SPIR-V and a DXIL internal error while this was written)."""
    out = R.cs(MEMBER_TEMPLATES_OF_TEMPLATES, {"Out": R.storage(R.sentinel(4))})
    assert R.unpack("f", out["Out"]) == [int(2.25) + 2, (1.5 + 2.25) * 2.0, 3.0 + 3, (1 + 2 + 3) * 0.5]


def test_member_template_forms_we_refuse_are_located():
    """Static member templates of struct templates and explicit specialisations inside the struct: refused at
    the name / keyword."""
    head = "RWStructuredBuffer<float> Out : register(u0);\nstruct S {\n    float v;\n"
    tail = "};\n[numthreads(1, 1, 1)]\nvoid main() { Out[0] = 1; }\n"
    static = head.replace("struct S", "template<typename U> struct S") \
        + "    template<typename T> static T make() { return (T)1; }\n" + tail     # (in a plain struct: fnf14's)
    assert R.errors(R.compile_hlsl(static)) == ["4:35: only non-static member functions can be member templates"]
    spec = head + "    template<> float conv() { return v; }\n" + tail
    assert R.errors(R.compile_hlsl(spec)) == [
        "4:5: explicit specialization of a member function template is not supported"]


TEMPLATE_BASES = """RWStructuredBuffer<float> Out : register(u0);
template<typename T> struct Box {
    T v;
    T get() { return v * 2; }
    bool operator==(Box o) { return v == o.v; }
    Box plus(Box o) { Box r; r.v = v + o.v; return r; }
};
template<typename U> struct Derived : Box<U> { U w; U both() { return get() + w; } };
struct Plain : Box<int> { int k; int sum() { return get() + k; } };
[numthreads(1, 1, 1)]
void main() {
    Derived<float> d; d.v = 1.5; d.w = 2;
    Out[0] = d.both();
    Out[1] = d.get();
    Plain p; p.v = 4; p.k = 10;
    Out[2] = p.sum();
    Box<int> a, b; a.v = 3; b.v = 3;
    Out[3] = (a == b) ? 1 : 0;
    Out[4] = a.plus(b).v;
    Out[5] = (d == d) ? 7 : 0;
}
"""


def test_struct_template_bases_and_its_own_name_run():
    """A struct deriving from a struct template instance: the base's methods are compiled again for the derived
    struct and needed the base's parameters (was 'unknown type name 'T''); `Box` inside Box<T> is Box<T>
    (C++'s injected-class-name; was ''Box' takes 1 template argument')."""
    out = R.cs(TEMPLATE_BASES, {"Out": R.storage(R.sentinel(6))})
    assert R.unpack("f", out["Out"]) == [1.5 * 2 + 2, 1.5 * 2, 4 * 2 + 10, 1, 3 + 3, 7]


PATTERNS = """RWStructuredBuffer<float> Out : register(u0);
template<typename T, int N> vector<T, N> twice(vector<T, N> v) { return v + v; }
template<typename T, int N> T sumv(vector<T, N> v) { T s = 0; for (int i = 0; i < N; i++) s += v[i]; return s; }
template<typename T, int R, int C> T trace2(matrix<T, R, C> m) { return m[0][0] + m[1][1] + R * 10 + C * 100; }
template<typename T> struct Box { T v; };
template<typename T> T unbox(Box<T> b, T k) { return b.v + k; }
[numthreads(1, 1, 1)]
void main() {
    Out[0] = twice(float3(1, 2, 3)).z;
    Out[1] = sumv(int4(1, 2, 3, 4)) + sumv(uint2(5, 6));
    Out[2] = trace2(float2x3(1, 2, 3, 4, 5, 6));
    Box<float> b; b.v = 1.25;
    Out[3] = unbox(b, 2.0f);
    USE
}
"""


def test_deduction_through_vector_matrix_and_template_types_run():
    """T and N deduced from `vector<T, N>`, `matrix<T, R, C>` and `Box<T>` parameters (was 'cannot deduce
    template parameter 'T'')."""
    out = R.cs(PATTERNS.replace("USE", ""), {"Out": R.storage(R.sentinel(4))})
    m = [[1, 2, 3], [4, 5, 6]]
    assert R.unpack("f", out["Out"]) == [3 + 3, (1 + 2 + 3 + 4) + (5 + 6), m[0][0] + m[1][1] + 2 * 10 + 3 * 100,
                                         1.25 + 2.0]


def test_deduction_through_patterns_conflicts_as_clang():
    """A vector of another size, a literal beside a Box<float>, a scalar for vector<T, N>: refused, located."""
    cases = {"Out[0] = unbox(b, 2.0);": "14:14: no matching function template for call to 'unbox': conflicting "
                                        "types 'float' and 'literal float' deduced for template parameter 'T'",
             "Out[0] = sumv(2.0f);": "14:14: no matching function template for call to 'sumv': cannot deduce "
                                     "template parameter 'T'"}
    for use, want in cases.items():
        assert R.errors(R.compile_hlsl(PATTERNS.replace("USE", use))) == [want], use
    two = PATTERNS.replace("vector<T, N> twice(vector<T, N> v)", "vector<T, N> twice(vector<T, N> v, vector<T, N> w)")
    two = two.replace("twice(float3(1, 2, 3))", "twice(float3(1, 2, 3), float2(1, 1))")
    assert R.errors(R.compile_hlsl(two.replace("USE", ""))) == [
        "9:14: no matching function template for call to 'twice': conflicting values '3' and '2' deduced for "
        "template parameter 'N'"]


PLAIN_AND_TEMPLATE = """RWStructuredBuffer<float> Out : register(u0);
float f(float x) { return x + 100; }
template<typename T> T f(T x) { return x + 1; }
[numthreads(1, 1, 1)]
void main() {
    uint u = (uint)Out[5];
    Out[0] = f(1.0f);
    Out[1] = f(2);
    Out[2] = f(2.5);
    Out[3] = f<float>(2);
    Out[4] = f(u);
}
"""


def test_function_templates_join_the_plain_overloads_run():
    """C++ overload resolution over both: a deduced instance that matches exactly beats a plain function that
    needs a conversion (`f(2)` and `f(u)` take T f(T)); on a tie the plain one wins (`f(1.0f)`, `f(2.5)`);
    `f<float>(2)` names the template.  Before, a plain `f` hid the template entirely (f(2) gave 102)."""
    out = R.cs(PLAIN_AND_TEMPLATE, {"Out": R.storage(R.pack("f", [0, 0, 0, 0, 0, 7]))})
    assert R.unpack("f", out["Out"]) == [1.0 + 100, 2 + 1, 2.5 + 100, 2.0 + 1, 7 + 1, 7]


ALIASES = """RWStructuredBuffer<float> Out : register(u0);
template<typename T> using Vec3 = vector<T, 3>;
template<typename T, int N = 2> using Arr = vector<T, N>;
template<typename T> struct Box { T v; };
template<typename T> using BoxOf = Box<T>;
template<int R> using FMat = matrix<float, R, R>;
namespace N { template<typename T> using Twice = vector<T, 2>; }
[numthreads(1, 1, 1)]
void main() {
    Vec3<int> v = Vec3<int>(1, 2, 3);
    Arr<float> a = Arr<float>(4, 5);
    Arr<uint, 4> b = 7;
    BoxOf<float> bx; bx.v = 2.5;
    FMat<2> m = FMat<2>(1, 2, 3, 4);
    N::Twice<float> t = float2(8, 9);
    Out[0] = v.z; Out[1] = a.y; Out[2] = b.w; Out[3] = bx.v; Out[4] = m[1][0];
    Out[5] = sizeof(Vec3<half>) + sizeof(Arr<uint, 4>) * 100;
    Out[6] = t.y;
}
"""


def test_alias_templates_run():
    """`template<typename T> using Vec3 = vector<T, 3>;` (was a parse error): type and value parameters, a
    default argument, struct templates and namespaces; sizeof through the alias."""
    out = R.cs(ALIASES, {"Out": R.storage(R.sentinel(7))})
    assert R.unpack("f", out["Out"]) == [3, 5, 7, 2.5, 3, 3 * 4 + 4 * 4 * 100, 9]


def test_alias_template_misuse_is_located():
    src = ALIASES.replace("Out[6] = t.y;", "Vec3 w = 1; Out[6] = w.x;")
    assert R.errors(R.compile_hlsl(src)) == ["18:5: 'Vec3' takes 1 template argument"]
    src = ALIASES.replace("Out[6] = t.y;", "FMat<float> w = 1; Out[6] = w._11;")
    assert R.errors(R.compile_hlsl(src)) == ["18:10: template argument for 'R' of 'FMat' must be an expression"]


def test_alias_template_declarations_we_refuse_are_located():
    head = "RWStructuredBuffer<float> Out : register(u0);\n"
    tail = "[numthreads(1, 1, 1)]\nvoid main() { Out[0] = 1; }\n"
    cases = {"template<typename T> using A = T[4];": "2:33: an alias template of an array type is not supported",
             "struct A { float v; };\ntemplate<typename T> using A = vector<T, 2>;": "3:28: redefinition of 'A'",
             "template<> using A = float2;": "2:18: an alias template needs parameters"}
    for decl, want in cases.items():
        assert R.errors(R.compile_hlsl(head + decl + "\n" + tail)) == [want], decl


TRAITS = """RWStructuredBuffer<float> Out : register(u0);
template<typename T = float, uint N = 3> struct Buf { T d[N]; uint count() { return N; } };
template<typename T> struct Limits;
template<> struct Limits<float> { static float maxv() { return 3.5; } };
template<> struct Limits<int> { static int maxv() { return 7; } };
template<typename T> T clampMax(T v) { return min(v, Limits<T>::maxv()); }
template<typename T> struct Later;
template<typename T> struct Later { T v; };
[numthreads(1, 1, 1)]
void main() {
    Buf<> b;
    Out[0] = b.count() + sizeof(b) * 10;
    Out[1] = clampMax(10.0f);
    Out[2] = clampMax(10);
    Later<int> l; l.v = 4;
    Out[3] = l.v;
    USE
}
"""


def test_declared_struct_templates_and_their_specialisations_run():
    """`template<typename T> struct Limits;` then only specialisations (a traits idiom; was ''Limits' is not a
    struct template'); a template declared, then defined; `Buf<>` with every argument defaulted."""
    out = R.cs(TRAITS.replace("USE", ""), {"Out": R.storage(R.sentinel(4))})
    assert R.unpack("f", out["Out"]) == [3 + 3 * 4 * 10, 3.5, 7, 4]


def test_undefined_template_instance_is_located():
    src = TRAITS.replace("USE", "Out[0] = clampMax(2u);")
    assert R.errors(R.compile_hlsl(src)) == ["6:54: implicit instantiation of undefined template 'Limits<uint>'"]


NESTED_IN_TEMPLATE = """RWStructuredBuffer<float> Out : register(u0);
template<typename T, uint N>
struct Grid {
    struct Cell { T v[N]; T total() { T s = 0; for (uint i = 0; i < N; i++) s += v[i]; return s; }
                  Cell doubled() { Cell c; for (uint i = 0; i < N; i++) c.v[i] = v[i] * 2; return c; } };
    Cell cells[2];
    Cell first() { return cells[0]; }
    T all() { return cells[0].total() + cells[1].doubled().total(); }
};
[numthreads(1, 1, 1)]
void main() {
    Grid<float, 3> g;
    for (uint i = 0; i < 3; i++) { g.cells[0].v[i] = i + 0.5; g.cells[1].v[i] = i * 10; }
    Out[0] = g.all();
    Out[1] = g.first().v[2];
    Grid<int, 2> h; h.cells[0].v[0] = 7; h.cells[0].v[1] = 8; h.cells[1].v[0] = 1; h.cells[1].v[1] = 2;
    Out[2] = h.all();
    Out[3] = sizeof(Grid<float, 3>) + sizeof(Grid<int, 2>) * 100;
}
"""


def test_struct_inside_a_struct_template_run():
    """A struct defined inside a struct template uses the template's parameters (was 'unknown type name 'T''):
    it becomes a template of them, named without them inside the outer one."""
    out = R.cs(NESTED_IN_TEMPLATE, {"Out": R.storage(R.sentinel(4))})
    g0, g1 = [i + 0.5 for i in range(3)], [i * 10 for i in range(3)]
    assert R.unpack("f", out["Out"]) == [sum(g0) + 2 * sum(g1), g0[2], 7 + 8 + 2 * (1 + 2),
                                         2 * 3 * 4 + 2 * 2 * 4 * 100]


RESOURCE_PATTERNS = """RWStructuredBuffer<float> Out : register(u0);
RWStructuredBuffer<int> Ints : register(u1);
template<typename T> T fetch(RWStructuredBuffer<T> b, uint i) { return b[i]; }
template<typename T> void put(RWStructuredBuffer<T> b, uint i, T v) { b[i] = v; }
[numthreads(1, 1, 1)]
void main() {
    Out[0] = fetch(Ints, 1) + 0.5;
    put(Out, 1, 2.5f);
    put(Ints, 2, fetch(Ints, 1) * 3);
}
"""


def test_deduction_through_resource_types_run():
    """T from a `RWStructuredBuffer<T>` parameter (was 'cannot deduce template parameter 'T'')."""
    out = R.cs(RESOURCE_PATTERNS, {"Out": R.storage(R.sentinel(2)), "Ints": R.storage(R.pack("i", [0, 5, 0]))})
    assert R.unpack("f", out["Out"]) == [5 + 0.5, 2.5]
    assert R.unpack("i", out["Ints"]) == [0, 5, 5 * 3]


OWN_TYPE_STATICS = """RWStructuredBuffer<float> Out : register(u0);
struct Ray {
    float t;
    static const Ray kDefault;
    static Ray make(float v) { Ray r; r.t = v; return r; }
    void reset() { this = kDefault; }
    Ray twice() { return make(t * 2); }
};
static const Ray Ray::kDefault = { 9.5 };
[numthreads(1, 1, 1)]
void main() {
    Ray r; r.t = 1.25;
    Out[0] = r.twice().t;
    r.reset();
    Out[1] = r.t;
    Out[2] = Ray::kDefault.t + Ray::make(3).t;
}
"""


def test_methods_use_static_members_of_their_own_type_run():
    """A method calling a static factory `static Ray make(...)`, or reading a `static const Ray` member: both are
    declared after the struct (they have its type), and the method bodies were lowered before them ('use of
    undeclared identifier 'make'')."""
    out = R.cs(OWN_TYPE_STATICS, {"Out": R.storage(R.sentinel(3))})
    assert R.unpack("f", out["Out"]) == [1.25 * 2, 9.5, 9.5 + 3]


QUALIFIED_TEMPLATE = """RWStructuredBuffer<float> Out : register(u0);
namespace M {
    template<typename T> T sq(T x) { return x * x; }
    namespace Inner { template<typename T, int K> T times(T x) { return x * K; } }
    struct P { float v; float get() { return sq(v); } };
}
[numthreads(1, 1, 1)]
void main() {
    M::P p; p.v = 1.5;
    Out[0] = M::sq<float>(0.5) + M::Inner::times<int, 3>(4) + p.get();
}
"""


def test_qualified_function_template_with_arguments_run():
    """`M::sq<float>(x)` (was 'expected '(' after type name 'float''), nested namespaces, value arguments."""
    out = R.cs(QUALIFIED_TEMPLATE, {"Out": R.storage(R.sentinel(1))})
    assert R.unpack("f", out["Out"]) == [0.5 * 0.5 + 4 * 3 + 1.5 * 1.5]


INTERFACES = """RWStructuredBuffer<float> Out : register(u0);
interface IShape { float area(); float scaled(float k); };
class Square : IShape { float s; float area() { return s * s; } float scaled(float k) { return area() * k; } };
class Foo { float x; float get() { return x * 2; } };
[numthreads(1, 1, 1)]
void main() {
    Square q; q.s = 3;
    Foo f; f.x = 1.25;
    Out[0] = q.area() + q.scaled(2) * 10 + f.get() * 1000;
    Out[1] = sizeof(Square);
}
"""


def test_interfaces_and_classes_run():
    """DXC's `interface` (a struct of method declarations) as a class's base (was 'unknown type name
    'interface''); `class` members are public in HLSL."""
    out = R.cs(INTERFACES, {"Out": R.storage(R.sentinel(2))})
    assert R.unpack("f", out["Out"]) == [9 + 9 * 2 * 10 + 1.25 * 2 * 1000, 4]


def test_interface_with_a_body_is_located():
    src = INTERFACES.replace("float area(); float scaled", "float area() { return 1; } float scaled")
    assert R.errors(R.compile_hlsl(src)) == ["2:11: an interface declares methods only, without bodies"]


LATER_STATICS = """RWStructuredBuffer<float> Out : register(u0);
struct S {
    float a() { return b() + c; }
    float b() { return 2; }
    float c;
    static float k(float x = 1) { return helperLater(x) * 10; }
    static float helperLater(float x) { return x + 5; }
};
struct R {
    float t;
    static R make(float v = 2) { return build(v * 3); }
    static R build(float v) { R r; r.t = v; return r; }
};
[numthreads(1, 1, 1)]
void main() {
    S s; s.c = 1;
    Out[0] = s.a();
    Out[1] = S::k() + S::k(2) * 1000;
    Out[2] = R::make().t + R::make(5).t * 100;
}
"""


def test_static_member_functions_call_later_ones_run():
    """A static member function calling one declared after it in the struct (was 'use of undeclared identifier
    'helperLater''), also among those returning the struct; default arguments stay usable."""
    out = R.cs(LATER_STATICS, {"Out": R.storage(R.sentinel(3))})
    assert R.unpack("f", out["Out"]) == [2 + 1, (1 + 5) * 10 + (2 + 5) * 10 * 1000, 2 * 3 + 5 * 3 * 100]
