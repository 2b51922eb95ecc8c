"""Structs holding resources beyond one-dimensional global arrays (issue 20): multi-dimensional arrays
of them, and `static` structs of them.  Executed on lavapipe, and as DXIL on the interpreter and
through dxil-spirv; expected values are computed here."""

from __future__ import annotations

import pytest
from lang_util import compile_cs, run_cs

MULTI = """
struct S { RWStructuredBuffer<float> b; float k; };
S d[2][3] : register(u1);
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
    Out[0] = d[1][2].k;
    Out[1] = d[0][1].k + d[1][0].k;
    d[1][0].b[0] = d[0][2].k + 100;
    d[0][1].b[1] = d[1][1].b[0] * d[1][2].k;
}
"""


def test_two_dimensional_array_of_structs_with_resources():
    """`S d[2][3] : register(u1)`: element (j, k)'s buffer is `d.j.k.b` at u1 + 3j + k (row-major, as the
    one-dimensional form numbers its elements); the data members are a `S.data[2][3]` in $Globals
    (element (j, k) at 16 * (3j + k) bytes in both layouts)."""
    res = compile_cs(MULTI)
    assert res.ok
    regs = {r["name"]: r["hlsl"]["register"] for r in res.manifest["resources"] if r["name"].startswith("d.")}
    assert regs == {f"d.{j}.{k}.b": 1 + 3 * j + k for j in range(2) for k in range(3)}
    ks = {(j, k): 0.5 + 10 * j + k for j in range(2) for k in range(3)}
    globals_data = [x for j in range(2) for k in range(3) for x in (ks[j, k], 0.0, 0.0, 0.0)]
    out = run_cs(MULTI, {"Out": ("float", 2), "d.1.0.b": ("float", [0.0, 0.0]), "d.0.1.b": ("float", [0.0, 0.0])},
                 {"$Globals": ("float", globals_data), "d.1.1.b": ("float", [7.0, 8.0])})
    assert out["Out"] == [ks[1, 2], ks[0, 1] + ks[1, 0]]
    assert out["d.1.0.b"] == [ks[0, 2] + 100, 0.0]
    assert out["d.0.1.b"] == [0.0, 7.0 * ks[1, 2]]


@pytest.mark.parametrize("src, where, message", [
    # DXC too indexes an array of structs with resources with constants only
    ("S d[2][2];\n[numthreads(1, 1, 1)] void main() { uint i = d[0][0].b[0]; d[1][i].b[0] = 1; }",
     (3, 65), "an array of structs with resource members can only be indexed with a constant (as in DXC)"),
    ("S d[2][2];\n[numthreads(1, 1, 1)] void main() { d[1][2].b[0] = 1; }",
     (3, 42), "array index 2 is out of bounds for 'S[2]'"),
])
def test_multi_dimensional_array_errors(src, where, message):
    res = compile_cs("struct S { RWStructuredBuffer<uint> b; };\n" + src)
    assert not res.ok
    errors = [(d.loc.line, d.loc.col, d.message) for d in res.diagnostics if d.severity == "error"]
    assert errors == [(*where, message)]
