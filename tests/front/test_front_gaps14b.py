"""Front-end gaps of issue 20 (round 14): C++ rules DXC inherits from clang that we did not follow.  Each
shader is our own; expected values are worked out in the test, messages are DXC's (clang 3.7's wording)."""

from __future__ import annotations

import pytest
import res_util as R

ASSERTS = """RWStructuredBuffer<float> Out : register(u0);
struct S {
    static const int K = 3;
    float v[K];
    static_assert(K == KS, "three");
};
namespace N {
    static const int M = 4;
    static_assert(M == MS, "four");
}
template<typename T, uint L> struct Arr {
    T v[L];
    static const uint Twice = L * 2;
    static_assert(Twice > 2, "big");
    static_assert(sizeof(T) == 4, "word");
};
[numthreads(1, 1, 1)]
void main() {
    S s; s.v[2] = 1.5;
    Arr<float, AL> a; a.v[1] = 2;
    Out[0] = s.v[2] + N::M + a.v[1] + Arr<float, AL>::Twice;
}
"""


def _asserts(ks: int = 3, ms: int = 4, al: int = 2) -> str:
    return ASSERTS.replace("KS", str(ks)).replace("MS", str(ms)).replace("AL", str(al))


def test_static_assert_in_struct_namespace_and_template_run():
    """static_assert in a struct body (was 'expected a type'), in a namespace seeing the namespace's M (was
    'use of undeclared identifier'), and in a struct template, checked per instance with its parameters."""
    out = R.cs(_asserts(), {"Out": R.storage(R.sentinel(1))})
    assert R.unpack("f", out["Out"]) == [1.5 + 4 + 2 + 2 * 2]


@pytest.mark.parametrize(("kw", "where", "message"), [
    ({"ks": 2}, "5:5", "three"),
    ({"ms": 5}, "9:5", "four"),
    ({"al": 1}, "14:5", "big"),
])
def test_false_static_asserts_are_located(kw, where, message):
    """A false condition: DXC's err_static_assert_failed at the keyword, with the message (the template's at
    the instance that fails: Arr<float, 1> has Twice == 2)."""
    assert R.errors(R.compile_hlsl(_asserts(**kw))) == [f'{where}: static_assert failed "{message}"']


def test_static_assert_in_a_template_sees_its_type_parameter():
    bad = _asserts().replace("Arr<float, 2> a;", "Arr<float, 2> a; Arr<double, 2> d;")
    assert R.errors(R.compile_hlsl(bad)) == ['15:5: static_assert failed "word"']


HIDDEN_STRUCT = """RWStructuredBuffer<float> Out : register(u0);
FIRST
SECOND
[numthreads(1, 1, 1)]
void main() {
    struct f s; s.v = 2;
    Out[0] = f(s.v) + sizeof(struct f);
    Out[1] = f(2.5);
}
"""
STRUCT_F = "struct f { float v; };"
FUNCTIONS = {"function": "float f(float x) { return x * 3; }",
             "template": "template<typename T> T f(T x) { return x * 3; }"}


@pytest.mark.parametrize("kind", sorted(FUNCTIONS))
@pytest.mark.parametrize("struct_first", [True, False])
def test_a_function_hides_a_struct_of_its_name_run(kind, struct_first):
    """C++ [basic.scope.declarative]: a function and a struct may share a name in one scope, the function
    hiding the struct, which `struct f` still names (was 'redefinition of 'f' as a different kind of
    symbol' when the function came second, 'redefinition of 'f'' when it came first)."""
    pair = (STRUCT_F, FUNCTIONS[kind]) if struct_first else (FUNCTIONS[kind], STRUCT_F)
    src = HIDDEN_STRUCT.replace("FIRST", pair[0]).replace("SECOND", pair[1])
    out = R.cs(src, {"Out": R.storage(R.sentinel(2))})
    assert R.unpack("f", out["Out"]) == [2.0 * 3 + 4, 2.5 * 3]


def test_hidden_struct_without_its_tag_and_typedef_clash_are_located():
    """Without the tag the struct's name is the function's (clang: must use 'struct' tag); a typedef cannot
    be hidden: the function is a redefinition."""
    untagged = HIDDEN_STRUCT.replace("FIRST", STRUCT_F).replace("SECOND", FUNCTIONS["function"]) \
        .replace("struct f s;", "f s;")
    assert R.errors(R.compile_hlsl(untagged)) == ["6:5: must use 'struct' tag to refer to type 'f' in this scope"]
    typedef = HIDDEN_STRUCT.replace("FIRST", "typedef float f;").replace("SECOND", FUNCTIONS["function"])
    assert R.errors(R.compile_hlsl(typedef))[0] == "3:7: redefinition of 'f' as a different kind of symbol"


def test_crtp_base_is_refused_located():
    """`struct Sq : Shape<Sq>` (the curiously recurring template pattern): DXC takes it, instantiating
    Shape<Sq>'s methods only when called; ours instantiates them with the struct and cannot yet, so it is
    refused at the argument (was "unknown type name 'Sq'", which read as a typo)."""
    src = """RWStructuredBuffer<float> Out : register(u0);
template<typename D> struct Shape { float area(D d) { return d.size() * 2; } };
struct Sq : Shape<Sq> { float s; float size() { return s * s; } };
[numthreads(1, 1, 1)]
void main() { Sq q; q.s = 3; Out[0] = q.area(q); }
"""
    assert R.errors(R.compile_hlsl(src)) == ["3:19: 'Sq' as a template argument of its own base struct is not supported"]


def test_a_function_hides_a_struct_in_a_namespace_run():
    """The same in a namespace, where `struct N::f` (a qualified elaborated type, was "unknown type name 'N'")
    names the struct and `N::f(x)` calls the function."""
    src = """RWStructuredBuffer<float> Out : register(u0);
namespace N { struct f { float v; }; float f(float x) { return x * 3; } }
float g(struct N::f s) { return s.v + 0.5; }
[numthreads(1, 1, 1)]
void main() { struct N::f s; s.v = 2; Out[0] = N::f(g(s)); }
"""
    out = R.cs(src, {"Out": R.storage(R.sentinel(1))})
    assert R.unpack("f", out["Out"]) == [(2 + 0.5) * 3]


OUT_OF_LINE = """RWStructuredBuffer<float> Out : register(u0);
struct S { float v; template<typename T> T conv(); template<typename T> T scaled(T k); };
template<typename T> T S::conv() { return (T)v; }
template<typename U> U S::scaled(U k) { return (U)v * k; }
[numthreads(1, 1, 1)]
void main() { S s; s.v = 2.5; Out[0] = s.conv<int>() + s.scaled(2.0f); }
"""


def test_member_template_defined_out_of_line_runs():
    """`template<typename T> T S::conv() {...}` after `template<typename T> T conv();` in S (was an internal
    compiler error: the declaration, without a body, was instantiated), its parameters renamed too."""
    out = R.cs(OUT_OF_LINE, {"Out": R.storage(R.sentinel(1))})
    assert R.unpack("f", out["Out"]) == [int(2.5) + 2.5 * 2.0]


def test_member_template_out_of_line_misuse_is_located():
    """Used in a method before its definition (clang instantiates at the end of the file; we do not), and
    a definition that matches no declaration."""
    early = OUT_OF_LINE.replace("T scaled(T k); };", "T scaled(T k); float use() { return conv<float>(); } };")
    assert R.errors(R.compile_hlsl(early)) == [
        "2:109: member function template 'conv' is not defined before this use (a later definition is not "
        "supported)"]
    stray = OUT_OF_LINE.replace("U S::scaled(U k)", "U S::scaled(U k, U j)")
    assert R.errors(R.compile_hlsl(stray)) == [
        "4:27: out-of-line definition of 'scaled' does not match any declaration in 'S'",
        "6:58: member function template 'scaled' is not defined before this use (a later definition is not "
        "supported)"]


TEMPLATE_OUT_OF_LINE = """RWStructuredBuffer<float> Out : register(u0);
template<typename T, uint N> struct Box { T v[N]; T sum(); T at(uint i, T k); };
template<typename T, uint N> T Box<T, N>::sum() { T s = 0; for (uint i = 0; i < N; i++) s += v[i]; return s; }
template<typename T, uint N> T Box<T, N>::at(uint j, T k) { return v[j] * k; }
[numthreads(1, 1, 1)]
void main() {
    Box<float, 2> b; b.v[0] = 1.5; b.v[1] = 2;
    Box<int, 3> c; c.v[0] = 1; c.v[1] = 2; c.v[2] = 4;
    Out[0] = b.sum() + c.sum() + b.at(1, 3);
}
"""


def test_struct_template_method_defined_out_of_line_runs():
    """`template<typename T, uint N> T Box<T, N>::sum() {...}` (was "expected ';' after declaration, found
    '::'"): each instance compiles the definition, its parameter renamed (i -> j)."""
    out = R.cs(TEMPLATE_OUT_OF_LINE, {"Out": R.storage(R.sentinel(1))})
    assert R.unpack("f", out["Out"]) == [(1.5 + 2) + (1 + 2 + 4) + 2 * 3]


def test_struct_template_out_of_line_forms_we_refuse_are_located():
    swapped = TEMPLATE_OUT_OF_LINE.replace("T Box<T, N>::at(", "T Box<N, T>::at(")
    assert R.errors(R.compile_hlsl(swapped)) == [
        "4:32: an out-of-line method definition of 'Box' must name it with its own template parameters"]
    renamed = TEMPLATE_OUT_OF_LINE.replace("template<typename T, uint N> T Box<T, N>::at(uint j, T k)",
                                           "template<typename U, uint N> U Box<U, N>::at(uint j, U k)")
    assert R.errors(R.compile_hlsl(renamed)) == [
        "4:32: an out-of-line method definition must use the struct template's parameter names (T, N)"]
    stray = TEMPLATE_OUT_OF_LINE.replace("T Box<T, N>::at(uint j, T k)", "T Box<T, N>::at(uint j)")
    assert R.errors(R.compile_hlsl(stray))[0] == \
        "4:43: out-of-line definition of 'at' does not match any declaration in 'Box'"


def test_member_template_defined_twice_is_located():
    twice = OUT_OF_LINE.replace("template<typename U>", "template<typename T> T S::conv() { return (T)v * 2; }\n"
                                "template<typename U>")
    res = R.compile_hlsl(twice)
    assert R.errors(res) == ["4:27: redefinition of 'conv'"]
    note = res.diagnostics[0].notes[0]
    assert (note.message, note.loc.line, note.loc.col) == ("previous definition is here", 3, 27)
