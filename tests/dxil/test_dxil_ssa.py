"""SSA construction during DXIL lowering (plugins/dxil/shaderbuild_dxil/ssa.py).

Locals' scalar components are built as SSA values, so no scalar local reaches memory; a local
array indexed dynamically stays an alloca; the output does not depend on object identities
(the same bytes from two compiles).
The disassembly checked is llvm-dis-19's, not ours.  That the values are right is shown by the
executed corpus (tests/test_lang_*.py and tests/test_res_*.py run every DXIL binary on the
interpreter and compare with lavapipe); these tests pin the shape of the output.
"""

from __future__ import annotations

import re

import pytest
from harness.dxil_tools import check_dxil

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

pytestmark = pytest.mark.llvm

CONTROL = """
RWStructuredBuffer<uint> Out : register(u0);

uint pick(uint n)
{
    uint r = n;
    for (uint i = 0; i < n; i++)
    {
        if (i == 7)
            return r + 100;          // an early return out of a loop
        if ((i & 1) == 0)
            continue;
        r += i;
    }
    return r;
}

[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float4 acc = float4(0, 1, 2, 3);
    bool seen = false;
    uint k = 0;
    do
    {
        switch (id.x + k)
        {
        case 0: acc.x += 1; seen = true;   // falls through
        case 1: acc.y *= 2; break;
        default: acc.zw = acc.wz; break;
        }
        k++;
    } while (k < 3);
    Out[id.x] = pick(id.x) + uint(acc.x + acc.y + acc.z + acc.w) + (seen ? 1u : 0u);
}
"""

ARRAY = """
RWStructuredBuffer<float> Out : register(u0);

[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float t[4] = { 1, 2, 3, 4 };
    float s = 0;
    t[id.x & 3] = 10;
    for (uint i = 0; i < 4; i++)
        s += t[i];
    Out[id.x] = s;
}
"""

def compile_src(tmp_path, name: str, source: str) -> bytes:
    src = tmp_path / f"{name}.hlsl"
    src.write_text(source)
    res = compile_file(str(src), CompileOptions(profile="cs_6_0", target="dxil"))
    assert res.ok, [d.message for d in res.diagnostics]
    return res.binary


def body(ir_text: str) -> str:
    return ir_text[ir_text.index("define void @main"):]


def test_scalar_locals_never_reach_memory(tmp_path):
    ir_text = body(check_dxil(compile_src(tmp_path, "control", CONTROL)).ir)
    assert "alloca" not in ir_text and " load " not in ir_text and "store " not in ir_text
    assert re.search(r"= phi i32 ", ir_text)                # the loop counters are phis
    assert re.search(r"= phi float ", ir_text)              # and so are acc's components
    assert not re.search(r"= phi \w+ \[ (%\w+), %\w+ \], \[ \1, %\w+ \]$", ir_text, re.M)   # no trivial phi


def test_dynamically_indexed_local_array_stays_in_memory(tmp_path):
    ir_text = body(check_dxil(compile_src(tmp_path, "array", ARRAY)).ir)
    assert re.search(r"alloca \[4 x float\]", ir_text)
    assert "alloca float" not in ir_text and "alloca i32" not in ir_text    # s and i are SSA values


def test_same_bytes_from_two_compiles(tmp_path):
    assert compile_src(tmp_path, "a", CONTROL) == compile_src(tmp_path, "b", CONTROL)

