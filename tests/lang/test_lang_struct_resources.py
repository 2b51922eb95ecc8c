"""Structs holding resources beyond one-dimensional global arrays (issue 20): multi-dimensional arrays
of them, and `static` structs of them.  Executed on lavapipe, and as DXIL on the interpreter and
through dxil-spirv; expected values are computed here."""

from __future__ import annotations

import struct

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


STATIC = """
struct Inner { RWStructuredBuffer<float> dst; float scale; };
struct S { StructuredBuffer<float> src; float k; Inner in1; float2 pair; };
StructuredBuffer<float> In : register(t1);
RWStructuredBuffer<float> Out : register(u0);
static S s = { In, 2.0, { Out, 3.0 }, float2(In[0], 5.0) };
float Use(S x) { return x.src[1] * x.k + x.in1.scale; }
[numthreads(1, 1, 1)]
void main() {
    Out[2] = s.k + s.in1.scale;
    s.k += 1;
    s.in1.scale = s.pair.x * 10;
    s.in1.dst[0] = Use(s);
    s.in1.dst[1] = s.pair.y;
}
"""


def test_static_struct_with_resources():
    """`static S s = { In, 2.0, { Out, 3.0 }, ... }`: the resource members name the global resources of the
    initializer (as `static RWBuffer<T> A = B;` does; no new bindings), the data members are a static
    variable read and written as usual, initialized when the shader starts (In[0] is read at run time), and
    `s` passes whole to a function taking an S."""
    res = compile_cs(STATIC)
    assert res.ok
    assert sorted(r["name"] for r in res.manifest["resources"]) == ["In", "Out"]
    inputs = [0.25, 4.0]
    out = run_cs(STATIC, {"Out": ("float", 3)}, {"In": ("float", inputs)})["Out"]
    assert out == [inputs[1] * 3.0 + inputs[0] * 10, 5.0, 2.0 + 3.0]


STATIC_DECL = ("struct S { RWStructuredBuffer<float> b; float k; };\nRWStructuredBuffer<float> Out : register(u0);\n"
               "RWStructuredBuffer<uint> Other : register(u1);\n")


@pytest.mark.parametrize("src, where, message", [
    # shaderbuild's limits: a static's resources are fixed by its initializer (DXC also lets them be assigned
    # later, as long as each use resolves to one global resource)
    ("static S s;\n", (4, 10), "static 's' has resource members: it needs an initializer list naming a global "
                               "resource for each of them (they cannot be assigned later)"),
    ("static S s = { Out, 1.0 };\n[numthreads(1, 1, 1)] void main() { s.b = Out; }\n", (5, 39),
     "cannot assign to a resource member of a static struct: it names the global resource of the initializer "
     "for the whole program"),
    ("static S s[2] = { Out, 1.0, Out, 2.0 };\n", (4, 10), "'s' has type 'S[2]': a static array of structs with "
                                                           "resource members is not supported (without 'static' its "
                                                           "resources are globals)"),
    ("[numthreads(1, 1, 1)] void main() { static S s = { Out, 1.0 }; }\n", (4, 46),
     "'s': a static local struct with resource members is not supported; declare it 'static' at global scope"),
    ("static const S s = { Out, 1.0 };\n[numthreads(1, 1, 1)] void main() { s.k = 2; }\n", (5, 39),
     "cannot assign to const-qualified variable 's'"),
    # errors in the initializer itself
    ("static S s = { Other, 1.0 };\n", (4, 16), "member 'b' of static 's' must be initialized with a global "
                                               "resource of type 'RWStructuredBuffer<float>'"),
    ("static S s = { 1.0 };\n", (4, 14), "the initializer of static 's' names no global resource for member 'b' "
                                        "('RWStructuredBuffer<float>')"),
    ("static S s = { Out, Out, 1.0 };\n", (4, 21), "too many resources in the initializer of static 's'"),
])
def test_static_struct_errors(src, where, message):
    if "main" not in src:
        src += "[numthreads(1, 1, 1)] void main() { }\n"
    res = compile_cs(STATIC_DECL + src)
    assert not res.ok
    errors = [(d.loc.line, d.loc.col, d.message) for d in res.diagnostics if d.severity == "error"]
    assert errors == [(*where, message)]


FROM_UNIFORM = """
int2 hg;
float scale;
static const uint x = hg.y;
static float y = scale * 2;
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main() { Out[0] = x; Out[1] = y; }
"""


def test_static_initialized_from_a_uniform():
    """A static initialized from a `$Globals` member reads it when the shader starts; the reference is made
    while `$Globals` is still growing and is updated with the function bodies' (found by the fuzz campaign:
    the IR validator saw a stale `$Globals` type)."""
    from shaderbuild.compiler import compile_file
    from shaderbuild.options import CompileOptions
    for target in ("spirv", "dxil"):
        opts = CompileOptions(entry="main", profile="cs_6_0", target=target, validate_ir=True)
        res = compile_file("t.hlsl", opts, text=FROM_UNIFORM)
        assert res.ok, [d.message for d in res.diagnostics]
    out = run_cs(FROM_UNIFORM, {"Out": ("float", 2)}, {"$Globals": ("uint", [0, 7, struct.unpack("<I", struct.pack("<f", 1.5))[0], 0])})
    assert out["Out"] == [7.0, 3.0]
