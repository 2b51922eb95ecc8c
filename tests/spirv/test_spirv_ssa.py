"""Locals emitted as SSA values by the SPIR-V lowering at -O1 and up (plugins/spirv/shaderbuild_spirv/ssa.py):
which locals lose their variable, that the lowered module is valid, that the program computes what the HLSL
says (expected values computed here in Python; every executed run is repeated at -O0, which keeps every
variable), and that -O0 output is unchanged by it."""

from __future__ import annotations

import re

from harness import tools
from lang_util import run_backend

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

SRC = """
RWStructuredBuffer<uint> Out : register(u0);
StructuredBuffer<uint> In : register(t1);
struct Pair { uint a; uint b; };

uint twice(uint v) { return v * 2; }

[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint x = In[0];
    uint y = 1;
    uint unset;
    Pair p;
    p.a = x;
    p.b = 0;
    uint arr[3];
    arr[0] = 1; arr[1] = 2; arr[2] = 3;
    for (uint i = 0; i < In[1]; i++) {
        if ((i & 1) == 0) { y = y * 3; continue; }
        p.b += i;
        if (p.b > 100) break;
        switch (i) {
        case 1: y += 2;
        case 3: y += 5; break;
        default: arr[1] += i;
        }
    }
    uint4 v = uint4(x, y, p.b, arr[1]);
    v.yz = v.zy;
    v.w = twice(v.w);
    if (In[2] == 0) unset = 4;
    Out[0] = x; Out[1] = y; Out[2] = p.a + p.b; Out[3] = arr[0] + arr[1] + arr[2];
    Out[4] = v.y; Out[5] = v.z; Out[6] = v.w; Out[7] = In[2] == 0 ? unset : 0;
%s
}
"""
# a local indexed dynamically stays a variable (mem2reg cannot promote it either)
DYNAMIC = """
    uint t[4] = {10, 20, 30, 40};
    t[In[3] & 3] = 9;
    Out[8] = t[(In[3] + 1) & 3] + t[In[3] & 3];
"""


def _expected(inp: list[int], dynamic: bool) -> list[int]:
    x, y, pa, pb, arr = inp[0], 1, inp[0], 0, [1, 2, 3]
    for i in range(inp[1]):
        if i & 1 == 0:
            y *= 3
            continue
        pb += i
        if pb > 100:
            break
        if i == 1:
            y += 2 + 5
        elif i == 3:
            y += 5
        else:
            arr[1] += i
    v = [x, pb, y, arr[1] * 2]
    out = [x, y, pa + pb, sum(arr), v[1], v[2], v[3], 4 if inp[2] == 0 else 0]
    if dynamic:
        t = [10, 20, 30, 40]
        t[inp[3] & 3] = 9
        out.append(t[(inp[3] + 1) & 3] + t[inp[3] & 3])
    return out


def _lowered(src: str, ssa: bool) -> str:
    """The disassembly of what the lowering emits (before the optimiser), validated."""
    from shaderbuild_spirv.lower import lower_module

    res = compile_file("ssa_test.hlsl", CompileOptions(entry="main", profile="cs_6_0", target="spirv"), text=src,
                       keep_module=True)
    assert res.ok, [d.message for d in res.diagnostics]
    binary = lower_module(res.module, "vulkan1.1", ssa=ssa).binary
    tools.spirv_val(binary, "vulkan1.1")
    return tools.spirv_dis(binary)


def _function_variables(dis: str) -> list[str]:
    return re.findall(r"= OpVariable %\S+ Function", dis)


def test_promoted_locals_have_no_variable():
    dis = _lowered(SRC % "", ssa=True)
    assert _function_variables(dis) == []
    assert "%_ptr_Function" not in dis.split(" OpFunction ", 1)[1]      # no access chain, load or store of one
    assert "OpPhi" in dis
    # the same module without SSA: every local has its variable (what mem2reg used to promote)
    assert len(_function_variables(_lowered(SRC % "", ssa=False))) >= 6


def test_dynamically_indexed_local_keeps_its_variable():
    dis = _lowered(SRC % DYNAMIC, ssa=True)
    assert len(_function_variables(dis)) == 1
    assert re.search(r"%_ptr_Function__arr_uint_uint_4 Function", dis)


def test_values():
    for inp in ([7, 5, 0, 2], [3, 30, 1, 3], [0, 0, 0, 0]):
        want = _expected(inp, True)
        got = run_backend("spirv", SRC % DYNAMIC, {"Out": ("uint", len(want))}, {"In": ("uint", inp)})["Out"]
        assert got == want, (inp, got, want)


def test_o0_keeps_variables():
    """-O0 (and -Zi, which compiles as -O0) emits every local as a variable, as written."""
    res = compile_file("ssa_test.hlsl", CompileOptions(entry="main", profile="cs_6_0", target="spirv", opt_level=0),
                       text=SRC % "")
    assert res.ok
    dis = tools.spirv_dis(res.binary)
    assert len(_function_variables(dis)) >= 6 and "OpPhi" not in dis


COMPOSITES = """
RWStructuredBuffer<float> Out : register(u0);
StructuredBuffer<float> In : register(t1);
struct Inner { float2 v[2]; float3x2 m; };
struct Outer { Inner in_[2]; float1x1 one; float4x1 col; float1x3 row; };

[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    Outer o;
    float a = In[0], b = In[1];
    o.in_[1].v[0] = float2(a, b);
    o.in_[1].v[1].y = a * b;
    o.in_[0].m = float3x2(1, 2, 3, 4, 5, 6);
    o.in_[0].m[2] = float2(a, -a);
    o.in_[0].m[1][0] = b;
    o.one[0] = a + 1;
    o.col = float4x1(a, b, a, b);
    o.col[2] = 9;
    o.row = float1x3(b, a, b);
    o.row[0][1] = 7;
    float acc = 0;
    switch ((uint)b) {
    case 2: acc += 10;
    case 3: acc += o.in_[1].v[0].x; break;
    default: acc -= 1;
    }
    Out[0] = o.in_[1].v[0].y; Out[1] = o.in_[1].v[1].y;
    Out[2] = o.in_[0].m[2][1]; Out[3] = o.in_[0].m[1][0]; Out[4] = o.in_[0].m[0][1];
    Out[5] = o.one[0]; Out[6] = o.col[2] + o.col[1]; Out[7] = o.row[0][1] + o.row[0][2];
    Out[8] = acc;
}
"""


def test_composite_parts_and_fall_through():
    """Parts of a promoted struct at constant indices: nested arrays, matrix rows and elements, and the
    matrices whose SPIR-V type is a scalar or a vector (1x1, 4x1, 1x3); a switch case reached by
    fall-through reads what the case before it stored."""
    dis = _lowered(COMPOSITES, ssa=True)
    assert _function_variables(dis) == []
    for a, b in ((1.5, 2.0), (2.0, 3.0), (4.0, 5.0)):
        acc = (10 + a) if b == 2 else a if b == 3 else -1
        want = [b, a * b, -a, b, 2, a + 1, 9 + b, 7 + b, acc]
        got = run_backend("spirv", COMPOSITES, {"Out": ("float", len(want))}, {"In": ("float", [a, b])})["Out"]
        assert got == want, (a, b, got, want)
