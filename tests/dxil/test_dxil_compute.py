"""End to end: a hand-built IR compute shader through the DXIL backend, checked
by tools we did not write (obj2yaml-19, llvm-bcanalyzer-19, llvm-dis-19) and
executed on the CPU (lli-19 with a C dx.op runtime).

    RWStructuredBuffer<uint> Out : register(u0);
    [numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = id.x * 2 + 1; }
"""

from __future__ import annotations

import re
import struct

import pytest
from harness.dxil_exec import run_dxil_compute
from harness.dxil_tools import check_dxil, find_datalayout
from shaderbuild_dxil.backend import compile_dxil

from shaderbuild import ir
from shaderbuild.options import CompileOptions

UINT3 = ir.Vector(ir.UINT, 3)


def thread_id_input(name: str = "SV_DispatchThreadID") -> ir.Variable:
    return ir.Variable(f"in.{name}", UINT3 if name != "SV_GroupIndex" else ir.UINT, ir.Storage.INPUT,
                       io=ir.IOInfo(name, 0, builtin="GlobalInvocationId"))


def compute_module(body_fn, globals_: list[ir.Variable], numthreads=(64, 1, 1), sm=(6, 0),
                   extra_functions: list[ir.Function] | None = None, locals_: list[ir.Variable] | None = None
                   ) -> ir.Module:
    """A module whose source entry takes `uint3 id : SV_DispatchThreadID`; body_fn(id_param) -> statements."""
    inp = thread_id_input()
    pid = ir.Variable("id", UINT3, ir.Storage.FUNCTION)
    src = ir.Function("src.main", [ir.Param(pid)], ir.VOID, body_fn(pid), list(locals_ or []))
    wrapper = ir.Function("main", [], ir.VOID, [ir.Eval(ir.Call(src, [ir.Load(ir.VarRef(inp), UINT3)], ir.VOID))])
    ep = ir.EntryPoint(name="main", stage="compute", source_function=src, function=wrapper, numthreads=numthreads,
                       inputs=[inp], outputs=[])
    return ir.Module("compute", sm, [*globals_, inp], [*(extra_functions or []), src, wrapper], ep)


def id_x(pid: ir.Variable) -> ir.Expr:
    return ir.Swizzle(ir.Load(ir.VarRef(pid), UINT3), (0,), ir.UINT)


def uav(name: str, elem: ir.Type = ir.UINT, reg: int = 0, kind: str = "RWStructuredBuffer",
        space: int = 0) -> ir.Variable:
    return ir.Variable(name, ir.Resource(kind, elem), ir.Storage.UNIFORM, binding=ir.Binding("u", reg, space))


def double_plus_one_module(sm=(6, 0)) -> ir.Module:
    out = uav("Out")

    def body(pid):
        x = id_x(pid)
        val = ir.Binary("add", ir.Binary("mul", x, ir.Const(ir.UINT, 2), ir.UINT), ir.Const(ir.UINT, 1), ir.UINT)
        return [ir.Store(ir.BufferElem(ir.VarRef(out), x, ir.UINT), val)]
    return compute_module(body, [out], sm=sm)


def compile_ir(module: ir.Module, profile: str, **kw):
    """compile_dxil after the shared polyfills the backend asks for (the compile pipeline runs them)."""
    from shaderbuild_dxil.polyfills import POLYFILLED

    from shaderbuild.passes import polyfill

    polyfill.run(module, POLYFILLED)
    return compile_dxil(module, CompileOptions(profile=profile, target="dxil", **kw))


_CALL = re.compile(r"call [^@]*@(dx\.op\.[\w.]+)\(i32 (\d+)")


def dx_calls(ir_text: str) -> list[tuple[str, int]]:
    """(function, opcode) of every dx.op call in llvm-dis output, in order."""
    return [(m.group(1), int(m.group(2))) for m in _CALL.finditer(ir_text)]


def part(check, name: str) -> dict:
    return next(p for p in check.container["Parts"] if p["Name"] == name)


@pytest.mark.parametrize("profile", ["cs_6_0", "cs_6_6"])
def test_container_parts_and_psv(profile):
    out = compile_ir(double_plus_one_module(), profile)
    c = check_dxil(out.container)
    assert [p["Name"] for p in c.container["Parts"]] == ["SFI0", "ISG1", "OSG1", "PSV0", "HASH", "DXIL"]
    assert c.container["Header"]["Hash"] == [1] * 16                       # BYPASS
    psv = part(c, "PSV0")["PSVInfo"]
    assert psv["Version"] == 2                                             # valver 1.7 -> PSV v2
    assert psv["ShaderStage"] == 5
    assert (psv["NumThreadsX"], psv["NumThreadsY"], psv["NumThreadsZ"]) == (64, 1, 1)
    assert psv["Resources"] == [{"Type": 8, "Space": 0, "LowerBound": 0, "UpperBound": 0, "Kind": 12, "Flags": 0}]
    prog = part(c, "DXIL")["Program"]
    minor = int(profile[-1])
    assert (prog["MajorVersion"], prog["MinorVersion"], prog["ShaderKind"]) == (6, minor, 5)
    assert (prog["DXILMajorVersion"], prog["DXILMinorVersion"]) == (1, minor)
    assert "<MODULE_BLOCK" in c.bcanalyzer and "FUNCTION_BLOCK" in c.bcanalyzer
    assert "IDENTIFICATION" not in c.bcanalyzer


def test_sm60_dx_op_sequence():
    c = check_dxil(compile_ir(double_plus_one_module(), "cs_6_0").container)
    # id.y / id.z are never read: only one threadId call survives
    assert dx_calls(c.ir) == [("dx.op.createHandle", 57), ("dx.op.threadId.i32", 93), ("dx.op.bufferStore.i32", 69)]
    assert "alloca" not in c.ir and "load i32" not in c.ir                 # locals promoted to SSA
    assert 'target triple = "dxil-ms-dx"' in c.ir
    assert "@dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)" in c.ir
    assert re.search(r"mul i32 %\d+, 2", c.ir) and re.search(r"add i32 %\d+, 1", c.ir)
    assert '!{!"cs", i32 6, i32 0}' in c.ir
    assert "!{i32 64, i32 1, i32 1}" in c.ir                                # numthreads tag
    assert re.search(r"!\{i32 0, i64 16, i32 4, ", c.ir)                   # raw/structured flag bit 4


def test_sm66_handles_and_raw_store():
    c = check_dxil(compile_ir(double_plus_one_module(sm=(6, 6)), "cs_6_6").container)
    names = [n for n, _ in dx_calls(c.ir)]
    assert names == ["dx.op.createHandleFromBinding", "dx.op.annotateHandle", "dx.op.threadId.i32",
                     "dx.op.rawBufferStore.i32"]
    assert "%dx.types.ResBind { i32 0, i32 0, i32 0, i8 1 }, i32 0, i1 false)" in c.ir
    assert "%dx.types.ResourceProperties { i32 4108, i32 4 }" in c.ir      # UAV | StructuredBuffer, stride 4


LEGACY = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
NATIVE16 = "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64"


def test_datalayout_legacy_by_default_native16_on_request():
    legacy = compile_ir(double_plus_one_module(), "cs_6_0").bitcode
    assert find_datalayout(legacy)[0] == LEGACY             # read back by the harness's own bit reader
    native = compile_ir(double_plus_one_module(sm=(6, 2)), "cs_6_2", enable_16bit_types=True)
    assert find_datalayout(native.bitcode)[0] == NATIVE16
    assert f'target datalayout = "{NATIVE16}"' in check_dxil(native.container).ir    # needs no patch


def test_executes_on_cpu():
    out = compile_ir(double_plus_one_module(), "cs_6_0")
    n = 128
    (buf,) = run_dxil_compute(out.container, "main", [(0, 0, "u", bytes(4 * n))], groups=(2, 1, 1),
                              numthreads=(64, 1, 1))
    assert list(struct.unpack(f"<{n}I", buf)) == [2 * i + 1 for i in range(n)]


def test_output_is_deterministic():
    a = compile_ir(double_plus_one_module(), "cs_6_0").container
    b = compile_ir(double_plus_one_module(), "cs_6_0").container
    assert a == b


def test_retail_hash_differs_from_bypass_and_is_recomputable():
    from shaderbuild_dxil.hash import container_hash
    out = compile_ir(double_plus_one_module(), "cs_6_0", dxil_hash="retail")
    digest = out.container[4:20]
    assert digest != b"\x01" * 16 and digest != bytes(16)
    assert container_hash(out.container) == digest
    bypass = compile_ir(double_plus_one_module(), "cs_6_0").container
    assert bypass[20:] == out.container[20:]       # the digest is the only difference


def test_sm68_uses_validator_18_and_psv_v3():
    out = compile_ir(double_plus_one_module(sm=(6, 8)), "cs_6_8")
    c = check_dxil(out.container)
    psv = part(c, "PSV0")["PSVInfo"]
    assert psv["Version"] == 3 and psv["EntryName"] == "main"
    assert "!{i32 1, i32 8}" in c.ir                         # dx.version and dx.valver 1.8
    assert [n for n, _ in dx_calls(c.ir)][:2] == ["dx.op.createHandleFromBinding", "dx.op.annotateHandle"]
