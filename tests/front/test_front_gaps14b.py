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
