"""No undef reaches a stage output: stores of never-set output components are dropped (as DXC's
finalisation does), and the self-check rejects a storeOutput of undef."""

from __future__ import annotations

import re

import pytest
from harness import dxil_tools
from shaderbuild_dxil import check
from shaderbuild_dxil.llvm import f32, i8, i32
from shaderbuild_dxil.llvm.values import ConstInt, Instruction, Undef

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

pytestmark = pytest.mark.llvm

PARTLY_SET = """
struct O { float4 pos : SV_Position; float2 uv : TEXCOORD0; float3 n : NORMAL; };
O main(float4 p : POSITION) { O o; o.pos = p; o.n.y = p.x; return o; }
"""

_STORE = re.compile(r"call void @dx\.op\.storeOutput\.f32\(i32 5, i32 (\d+), i32 0, i8 (\d), float ([^)]+)\)")


def _compile(src: str, profile: str = "vs_6_0"):
    res = compile_file("u.hlsl", CompileOptions(profile=profile, target="dxil"), text=src)
    assert res.ok, [d.message for d in res.diagnostics]
    dxil_tools.check_dxil(res.binary)
    return res


def test_unset_output_components_are_not_stored():
    res = _compile(PARTLY_SET)
    stores = _STORE.findall(res.disassembly)
    assert stores, res.disassembly
    assert all(v != "undef" for _sig, _col, v in stores)
    # SV_Position (element 0) x4 and NORMAL.y (element 2, column 1); TEXCOORD0 never written
    assert sorted((int(s), int(c)) for s, c, _v in stores) == [(0, 0), (0, 1), (0, 2), (0, 3), (2, 1)]


def test_self_check_rejects_a_store_of_undef(tmp_path):
    from shaderbuild_dxil.check import DxilCheckError
    from test_dxil_signature_packing import backend_output

    lm = backend_output(tmp_path, PARTLY_SET, "vs_6_0").lowered
    check.check_module(lm, lm.ops)                      # as compiled: clean
    store = lm.llmod.get_function("dx.op.storeOutput.f32")
    bb = lm.entry.blocks[-1]
    bad = Instruction("call", store.ftype.ret, [store, ConstInt(i32, 5), ConstInt(i32, 1), ConstInt(i32, 0),
                                                 ConstInt(i8, 0), Undef(f32)])
    bad.parent = bb
    bb.instructions.insert(len(bb.instructions) - 1, bad)
    with pytest.raises(DxilCheckError, match="undef value reaches an output"):
        check.check_module(lm, lm.ops)
