"""Hull and domain shaders in DXIL: the container read back by obj2yaml-19, the IR by llvm-dis-19,
and dxil-spirv's conversion accepted by spirv-val (harness.dxil_tools.check_dxil); expected values
are DXC's enumerations written out here (DxilConstants.h, DxilPipelineStateValidation.h)."""

from __future__ import annotations

import re

import pytest
import res_util as R
from harness.dxil_tools import check_dxil

HS = """
struct CP { float4 pos : POSITION0; float3 color : COLOR0; };
struct PC { float edges[3] : SV_TessFactor; float inside : SV_InsideTessFactor; float tint : TINT; };
PC constants(InputPatch<CP, 3> ip, OutputPatch<CP, 4> op, uint prim : SV_PrimitiveID) {
    PC o;
    o.edges[0] = ip[0].color.x; o.edges[1] = 2.0; o.edges[2] = 3.0;
    o.inside = op[1].pos.y;
    o.tint = (float)prim;
    return o;
}
[domain("tri")] [partitioning("fractional_odd")] [outputtopology("triangle_ccw")]
[outputcontrolpoints(4)] [patchconstantfunc("constants")] [maxtessfactor(12.0)]
CP main(InputPatch<CP, 3> ip, uint i : SV_OutputControlPointID) { CP c = ip[i % 3]; c.color *= 2; return c; }
"""
DS = """
struct CP { float4 pos : POSITION0; float3 color : COLOR0; };
struct PC { float edges[4] : SV_TessFactor; float inside[2] : SV_InsideTessFactor; float tint : TINT; };
struct Out { float4 pos : SV_Position; float4 color : COLOR0; };
[domain("quad")]
Out main(PC pc, float2 uv : SV_DomainLocation, const OutputPatch<CP, 4> p, uint prim : SV_PrimitiveID) {
    Out o;
    o.pos = lerp(p[0].pos, p[2].pos, uv.x);
    o.color = float4(p[3].color * pc.tint, pc.edges[2] + prim);
    return o;
}
"""


def part(check, name: str) -> dict:
    return next(p for p in check.container["Parts"] if p["Name"] == name)


def build(src: str, profile: str):
    res = R.compile_hlsl(src, "main", profile, "dxil")
    assert res.ok, R.diagnostics_text(res)
    return check_dxil(res.binary)


def test_hull_shader_container_and_metadata():
    c = build(HS, "hs_6_0")
    assert c.spirv is not None          # dxil-spirv converted it and spirv-val accepted the result
    psv = part(c, "PSV0")["PSVInfo"]
    assert psv["ShaderStage"] == 3      # hull
    assert (psv["InputControlPointCount"], psv["OutputControlPointCount"]) == (3, 4)
    assert psv["TessellatorDomain"] == 2              # DXIL::TessellatorDomain::Tri
    assert psv["TessellatorOutputPrimitive"] == 4     # TriangleCCW
    pc = part(c, "PSG1")["Signature"]["Parameters"]
    # DXC's packing: the edge factors in column w of rows 0-2, the inside factor in a row of its own (3), TINT
    # left of the first edge factor (row 0, x); the part lists rows in register order, names by first use
    assert [(p["Name"], p["Index"], p["SystemValue"], p["Register"], p["Mask"]) for p in pc] == [
        ("SV_TessFactor", 0, "FinalTriEdgeTessfactor", 0, 8), ("TINT", 0, "Undefined", 0, 1),
        ("SV_TessFactor", 1, "FinalTriEdgeTessfactor", 1, 8), ("SV_TessFactor", 2, "FinalTriEdgeTessfactor", 2, 8),
        ("SV_InsideTessFactor", 0, "FinalTriInsideTessfactor", 3, 1)]
    assert [e["Kind"] for e in psv["SigPatchOrPrimElements"]] == ["TessFactor", "InsideTessFactor", "Arbitrary"]
    assert psv["SigPatchConstOrPrimVectors"] == len({p["Register"] for p in pc})
    ir = c.ir
    # the HS state: patch-constant function, 3 in / 4 out control points, tri, fractional_odd, ccw, 12.0
    assert re.search(r"!\{i32 3, !(\d+)\}", ir)
    assert re.search(r"!\{ptr @constants\.patch, i32 3, i32 4, i32 2, i32 3, i32 4, float 1\.200000e\+01\}", ir), ir
    body = ir[ir.index("define void @constants.patch"):]
    body = body[:body.index("\n}")]
    assert "@dx.op.storePatchConstant.f32(i32 106" in body
    assert "@dx.op.loadOutputControlPoint.f32(i32 103" in body      # op[1].pos.y
    assert "@dx.op.loadInput.f32(i32 4" in body                     # ip[0].color.x
    assert "@dx.op.primitiveID.i32(i32 108)" in body
    main = ir[ir.index("define void @main"):]
    assert "@dx.op.outputControlPointID.i32(i32 107)" in main[:main.index("\n}")]
    # the input patch feeds SV_TessFactor[0] and nothing else of the patch constants
    assert any(row for row in psv["InputPatchMap"])


def test_domain_shader_container_and_metadata():
    c = build(DS, "ds_6_0")
    assert c.spirv is not None
    psv = part(c, "PSV0")["PSVInfo"]
    assert psv["ShaderStage"] == 4
    assert psv["InputControlPointCount"] == 4
    assert psv["TessellatorDomain"] == 3              # Quad
    assert psv["OutputPositionPresent"] == 1
    pc = part(c, "PSG1")["Signature"]["Parameters"]
    # DXC's packing: both tess factor arrays in column w (rows 0-3, 4-5), TINT left of the first edge factor
    assert [(p["Name"], p["Index"], p["SystemValue"], p["Register"], p["Mask"]) for p in pc] == [
        ("SV_TessFactor", 0, "FinalQuadEdgeTessfactor", 0, 8), ("TINT", 0, "Undefined", 0, 1)] + [
        ("SV_TessFactor", i, "FinalQuadEdgeTessfactor", i, 8) for i in range(1, 4)] + [
        ("SV_InsideTessFactor", i, "FinalQuadInsideTessfactor", 4 + i, 8) for i in range(2)]
    ir = c.ir
    assert re.search(r"!\{i32 2, !(\d+)\}", ir)
    assert re.search(r"!\{i32 3, i32 4\}", ir)                        # DS state: quad, 4 control points
    for op in ("loadPatchConstant.f32(i32 104", "domainLocation.f32(i32 105, i8 0)", "primitiveID.i32(i32 108)",
               "loadInput.f32(i32 4"):
        assert f"@dx.op.{op}" in ir, op
    # the patch constants reach the outputs: some row of the patch-constant -> output map is set
    assert any(psv["PatchOutputMap"])


@pytest.mark.parametrize("domain,sv", [("isoline", ["FinalLineDensityTessfactor", "FinalLineDetailTessfactor"])])
def test_isoline_tess_factors(domain, sv):
    src = HS.replace('"tri"', f'"{domain}"').replace("edges[3]", "edges[2]").replace(
        "float inside : SV_InsideTessFactor;", "").replace("o.edges[2] = 3.0;", "").replace(
        "o.inside = op[1].pos.y;", "").replace('outputtopology("triangle_ccw")', 'outputtopology("line")')
    c = build(src, "hs_6_0")
    pc = part(c, "PSG1")["Signature"]["Parameters"]
    assert [p["SystemValue"] for p in pc if p["Name"] == "SV_TessFactor"] == sv
    assert part(c, "PSV0")["PSVInfo"]["TessellatorOutputPrimitive"] == 2     # Line


@pytest.mark.parametrize("minor", range(9))
def test_every_shader_model_compiles_to_both_targets(minor):
    """hs_6_0..hs_6_8 and ds_6_0..ds_6_8: SPIR-V that spirv-val accepts, DXIL that the LLVM tools
    read and dxil-spirv converts, with the shader model in !dx.shaderModel."""
    from harness import tools

    for src, stage in ((HS, "hs"), (DS, "ds")):
        profile = f"{stage}_6_{minor}"
        spv = R.compile_hlsl(src, "main", profile, "spirv")
        assert spv.ok, R.diagnostics_text(spv)
        tools.spirv_val(spv.binary, "vulkan1.1")
        c = build(src, profile)
        assert c.spirv is not None
        assert f'!{{!"{stage}", i32 6, i32 {minor}}}' in c.ir
        assert part(c, "PSV0")["PSVInfo"]["ShaderStage"] == (3 if stage == "hs" else 4)
