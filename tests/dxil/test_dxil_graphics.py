"""Vertex and pixel shaders: loadInput/storeOutput with signature elements that
ISG1/OSG1, PSV0 and the dx.entryPoints metadata agree on."""

from __future__ import annotations

import pytest
from harness.dxil_tools import check_dxil
from test_dxil_compute import compile_ir, dx_calls

from shaderbuild import ir

F4, F2 = ir.Vector(ir.FLOAT, 4), ir.Vector(ir.FLOAT, 2)


def io(name, t, storage, sem, index=0, builtin=None, location=None) -> ir.Variable:
    return ir.Variable(name, t, storage, io=ir.IOInfo(sem, index, builtin, location))


def module(stage: str, inputs, outputs, body, sm=(6, 0)) -> ir.Module:
    src = ir.Function("src.main", [], ir.VOID, [])
    wrapper = ir.Function("main", [], ir.VOID, body)
    ep = ir.EntryPoint(name="main", stage=stage, source_function=src, function=wrapper, inputs=inputs,
                       outputs=outputs)
    return ir.Module(stage, sm, [*inputs, *outputs], [src, wrapper], ep)


def vs_module() -> ir.Module:
    """float4 main(float4 p : POSITION, float2 uv : TEXCOORD0, out float2 o : TEXCOORD0) : SV_Position"""
    ipos = io("in.POSITION", F4, ir.Storage.INPUT, "POSITION", location=0)
    iuv = io("in.TEXCOORD0", F2, ir.Storage.INPUT, "TEXCOORD", 0, location=1)
    opos = io("out.SV_Position", F4, ir.Storage.OUTPUT, "SV_Position", builtin="Position")
    ouv = io("out.TEXCOORD0", F2, ir.Storage.OUTPUT, "TEXCOORD", 0, location=0)
    uv2 = ir.Binary("mul", ir.Load(ir.VarRef(iuv), F2), ir.Const(F2, (2.0, 2.0)), F2)
    return module("vertex", [ipos, iuv], [opos, ouv],
                  [ir.Store(ir.VarRef(opos), ir.Load(ir.VarRef(ipos), F4)), ir.Store(ir.VarRef(ouv), uv2)])


def ps_module() -> ir.Module:
    """float4 main(float4 p : SV_Position, float2 uv : TEXCOORD0) : SV_Target { if (uv.x < 0) discard; ... }"""
    ipos = io("in.SV_Position", F4, ir.Storage.INPUT, "SV_Position", builtin="FragCoord")
    iuv = io("in.TEXCOORD0", F2, ir.Storage.INPUT, "TEXCOORD", 0, location=0)
    otgt = io("out.SV_Target0", F4, ir.Storage.OUTPUT, "SV_Target", 0, location=0)
    uv = ir.Load(ir.VarRef(iuv), F2)
    val = ir.Construct(F4, [uv, ir.Const(ir.FLOAT, 0.0), ir.Swizzle(ir.Load(ir.VarRef(ipos), F4), (3,), ir.FLOAT)])
    cond = ir.Binary("lt", ir.Swizzle(uv, (0,), ir.FLOAT), ir.Const(ir.FLOAT, 0.0), ir.BOOL)
    return module("pixel", [ipos, iuv], [otgt], [ir.If(cond, [ir.Discard()], []), ir.Store(ir.VarRef(otgt), val)])


def parts(c) -> dict:
    return {p["Name"]: p for p in c.container["Parts"]}


def test_vertex_shader_signatures():
    c = check_dxil(compile_ir(vs_module(), "vs_6_0").container)
    p = parts(c)
    isg = [(e["Name"], e["Index"], e["Register"], e["Mask"]) for e in p["ISG1"]["Signature"]["Parameters"]]
    assert isg == [("POSITION", 0, 0, 15), ("TEXCOORD", 0, 1, 3)]
    osg = [(e["Name"], e["SystemValue"], e["Register"]) for e in p["OSG1"]["Signature"]["Parameters"]]
    assert osg == [("SV_Position", "Position", 0), ("TEXCOORD", "Undefined", 1)]
    psv = p["PSV0"]["PSVInfo"]
    assert psv["ShaderStage"] == 1 and psv["OutputPositionPresent"] == 1
    assert psv["SigInputVectors"] == 2 and psv["SigOutputVectors"][0] == 2
    assert [e["Kind"] for e in psv["SigOutputElements"]] == ["Position", "Arbitrary"]
    calls = dx_calls(c.ir)
    assert calls.count(("dx.op.loadInput.f32", 4)) == 6 and calls.count(("dx.op.storeOutput.f32", 5)) == 6
    assert "@dx.op.loadInput.f32(i32 4, i32 1, i32 0, i8 1, i32 undef)" in c.ir       # TEXCOORD.y
    assert '!{i32 0, !"SV_Position", i8 9, i8 3, ' in c.ir                           # element metadata
    assert '!{!"vs", i32 6, i32 0}' in c.ir


def test_pixel_shader_target_and_discard():
    c = check_dxil(compile_ir(ps_module(), "ps_6_0").container)
    p = parts(c)
    osg = p["OSG1"]["Signature"]["Parameters"]
    assert [(e["Name"], e["SystemValue"], e["Register"]) for e in osg] == [("SV_Target", "Target", 0)]
    psv = p["PSV0"]["PSVInfo"]
    assert psv["ShaderStage"] == 0
    assert [e["Interpolation"] for e in psv["SigInputElements"]] == ["LinearNoperspective", "Linear"]
    assert "@dx.op.discard(i32 82, i1 true)" in c.ir
    assert [n for n, _ in dx_calls(c.ir)].count("dx.op.storeOutput.f32") == 4


def test_compute_only_operation_in_pixel_shader_is_rejected():
    from shaderbuild.diagnostics import CompileError
    otgt = io("out.SV_Target0", ir.UINT, ir.Storage.OUTPUT, "SV_Target", 0, location=0)
    bad = io("in.SV_DispatchThreadID", ir.Vector(ir.UINT, 3), ir.Storage.INPUT, "SV_DispatchThreadID")
    m = module("pixel", [bad], [otgt], [ir.Store(ir.VarRef(otgt), ir.Const(ir.UINT, 1))])
    with pytest.raises(CompileError) as exc:
        compile_ir(m, "ps_6_0")
    assert "SV_DispatchThreadID" in str(exc.value)


def test_texture_sample_and_load():
    """float4 main(float2 uv : TEXCOORD0) : SV_Target { return tex.Sample(samp, uv) + tex.Load(int3(1, 2, 0)); }"""
    tex = ir.Variable("tex", ir.Resource("Texture2D", F4), ir.Storage.UNIFORM, binding=ir.Binding("t", 3))
    samp = ir.Variable("samp", ir.Resource("SamplerState"), ir.Storage.UNIFORM, binding=ir.Binding("s", 1))
    iuv = io("in.TEXCOORD0", F2, ir.Storage.INPUT, "TEXCOORD", 0, location=0)
    otgt = io("out.SV_Target0", F4, ir.Storage.OUTPUT, "SV_Target", 0, location=0)
    sample = ir.Intrinsic("Sample", [ir.VarRef(tex), ir.VarRef(samp), ir.Load(ir.VarRef(iuv), F2)], F4)
    load = ir.Intrinsic("Load", [ir.VarRef(tex), ir.Const(ir.Vector(ir.INT, 3), (1, 2, 0))], F4)
    m = module("pixel", [iuv], [otgt], [ir.Store(ir.VarRef(otgt), ir.Binary("add", sample, load, F4))])
    m.globals[:0] = [tex, samp]
    c = check_dxil(compile_ir(m, "ps_6_0").container)
    assert "@dx.op.createHandle(i32 57, i8 0, i32 0, i32 3, i1 false)" in c.ir        # SRV t3
    assert "@dx.op.createHandle(i32 57, i8 3, i32 0, i32 1, i1 false)" in c.ir        # sampler s1
    assert ("@dx.op.sample.f32(i32 60, %dx.types.Handle %" in c.ir
            and "float undef, float undef, i32 0, i32 0, i32 undef, float undef)" in c.ir)   # DXC: omitted offset = 0
    assert "@dx.op.textureLoad.f32(i32 66, %dx.types.Handle %" in c.ir and "i32 0, i32 1, i32 2, i32 undef" in c.ir
    assert '!"tex", i32 0, i32 3, i32 1, i32 2, i32 0, !' in c.ir                    # Texture2D, F32 tag below
    assert "!{i32 0, i32 9}" in c.ir
    psv = parts(c)["PSV0"]["PSVInfo"]
    assert [(r["Type"], r["LowerBound"], r["Kind"]) for r in psv["Resources"]] == [(1, 1, 14), (3, 3, 2)]


def test_usage_masks_follow_the_code():
    """Reading only POSITION.xy and writing only SV_Position.xyw: ISG1 AlwaysReads = 0b0011,
    OSG1 NeverWrites = 0b0100, and the metadata carries the same usage masks (tag 3)."""
    ipos = io("in.POSITION", F4, ir.Storage.INPUT, "POSITION", location=0)
    opos = io("out.SV_Position", F4, ir.Storage.OUTPUT, "SV_Position", builtin="Position")
    xy = ir.Swizzle(ir.Load(ir.VarRef(ipos), F4), (0, 1), F2)
    body = [ir.Store(ir.SwizzleRef(ir.VarRef(opos), (0, 1), F2), xy),
            ir.Store(ir.SwizzleRef(ir.VarRef(opos), (3,), ir.FLOAT), ir.Const(ir.FLOAT, 1.0))]
    c = check_dxil(compile_ir(module("vertex", [ipos], [opos], body), "vs_6_0").container)
    p = parts(c)
    (inp,) = p["ISG1"]["Signature"]["Parameters"]
    (out,) = p["OSG1"]["Signature"]["Parameters"]
    assert (inp["Mask"], inp["ExclusiveMask"]) == (15, 3)
    assert (out["Mask"], out["ExclusiveMask"]) == (15, 4)
    assert "!{i32 3, i32 3}" in c.ir and "!{i32 3, i32 11}" in c.ir


def test_sample_interpolation_sets_sample_frequency():
    iuv = ir.Variable("in.TEXCOORD0", F2, ir.Storage.INPUT, io=ir.IOInfo("TEXCOORD", 0, None, 0, "sample"))
    otgt = io("out.SV_Target0", F2, ir.Storage.OUTPUT, "SV_Target", 0, location=0)
    m = module("pixel", [iuv], [otgt], [ir.Store(ir.VarRef(otgt), ir.Load(ir.VarRef(iuv), F2))])
    c = check_dxil(compile_ir(m, "ps_6_0").container)
    psv = parts(c)["PSV0"]["PSVInfo"]
    assert psv["SampleFrequency"] == 1 and psv["DepthOutput"] == 0
    assert [e["Interpolation"] for e in psv["SigInputElements"]] == ["LinearSample"]
