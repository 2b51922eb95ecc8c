"""Fast-math flags and HLSL `precise`: DXIL marks every float binop `fast` (as DXC) except those that
compute a precise value; SPIR-V decorates exactly those NoContraction.  fcmp carries no flags (see
IRBuilder.fp_flags: `fast` would let LLVM fold the NaN test `x != x`).  The executed check is
test_lang_operators.py::test_precise_keeps_ieee_evaluation_order."""

from __future__ import annotations

import re

from harness import tools
from harness.dxil_tools import check_dxil
from res_util import build

# `plain` feeds only Out[1]; `p` is precise and tainted backwards through local `t`
SHADER = """
RWStructuredBuffer<float> Out : register(u0);
StructuredBuffer<float> In : register(t1);
[numthreads(1, 1, 1)]
void main() {
    float t = In[0] * In[1];
    precise float p = t + In[2];
    float plain = In[3] / In[4] - In[5];
    Out[0] = p;
    Out[1] = plain < In[6] ? plain : -plain;
}
"""

FLOAT_OP = re.compile(r"= (fadd|fsub|fmul|fdiv|frem|fcmp)( fast)? ")


def dxil_float_ops(src: str, entry: str = "main", profile: str = "cs_6_0") -> list[tuple[str, bool]]:
    """(opcode, has `fast`) of every float instruction, in llvm-dis-19 order."""
    text = check_dxil(build(src, entry, profile, target="dxil").binary).ir
    return [(m.group(1), m.group(2) is not None) for m in FLOAT_OP.finditer(text)]


def spirv_no_contraction(src: str, entry: str = "main", profile: str = "cs_6_0") -> list[str]:
    """The opcodes of the SPIR-V results decorated NoContraction (the build ran spirv-val)."""
    text = tools.spirv_dis(build(src, entry, profile).binary)
    ids = set(re.findall(r"OpDecorate (%\w+) NoContraction", text))
    return sorted(m.group(2) for m in re.finditer(r"(%\w+) = (Op\w+)", text) if m.group(1) in ids)


def test_dxil_plain_float_ops_are_fast_and_precise_ones_are_not():
    ops = dxil_float_ops(SHADER)
    assert ("fmul", False) in ops and ("fadd", False) in ops           # t * ..., t + ...: precise
    assert ("fdiv", True) in ops and ("fcmp", False) in ops            # plain / and <
    assert sorted(op for op, fast in ops if not fast and op != "fcmp") == ["fadd", "fmul"]
    assert ("fsub", True) in ops


def test_spirv_decorates_exactly_the_precise_ops():
    assert spirv_no_contraction(SHADER) == ["OpFAdd", "OpFMul"]


PRECISE_FUNCTION = """
RWStructuredBuffer<float> Out : register(u0);
StructuredBuffer<float> In : register(t1);
precise float fused(float a, float b, float c) { return a * b + c; }
void scaled(float a, out precise float r) { r = a * 3.0; }
[numthreads(1, 1, 1)]
void main() {
    float r;
    scaled(In[3], r);
    Out[0] = fused(In[0], In[1], In[2]) + r;
}
"""


def test_precise_return_and_out_parameter():
    """The callee's ops are precise; the caller's final fadd (into a plain Out[0]) stays fast."""
    ops = dxil_float_ops(PRECISE_FUNCTION)
    assert sorted(op for op, fast in ops if not fast) == ["fadd", "fmul", "fmul"]
    assert [op for op, fast in ops if fast] == ["fadd"]
    assert spirv_no_contraction(PRECISE_FUNCTION) == ["OpFAdd", "OpFMul", "OpFMul"]


def test_without_precise_nothing_is_decorated():
    src = SHADER.replace("precise ", "")
    assert all(fast for op, fast in dxil_float_ops(src) if op != "fcmp")
    assert spirv_no_contraction(src) == []
