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
