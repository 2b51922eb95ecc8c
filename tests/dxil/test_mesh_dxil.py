"""Mesh and amplification shaders in DXIL: the container read back by obj2yaml-19, the IR by
llvm-dis-19, and dxil-spirv's conversion accepted by spirv-val (harness.dxil_tools.check_dxil).
Expected values are DXC's enumerations and layouts written out here (DxilConstants.h: shader kinds
Mesh 13 / Amplification 14, MeshOutputTopology Line 1 / Triangle 2, kDxilMSStateTag 9 /
kDxilASStateTag 10; DXIL.rst: operations 168-173; DxilPipelineStateValidation.h: MSInfo, ASInfo)."""

from __future__ import annotations

import re

import pytest
import res_util as R
from harness.dxil_tools import check_dxil

MS = """
struct V { float4 pos : SV_Position; float2 uv : TEXCOORD0; float4 c : COLOR0; };
struct P { nointerpolation float4 tint : TINT; uint id : SV_PrimitiveID; bool cull : SV_CullPrimitive;
           uint layer : SV_RenderTargetArrayIndex; };
struct Payload { uint ids[4]; float scale; };
[outputtopology("TOPOLOGY")]
[numthreads(32, 2, 1)]
void main(uint t : SV_GroupIndex, uint3 g : SV_GroupID, in payload Payload pl,
          out vertices V verts[64], out indices INDEX tris[100], out primitives P prims[100]) {
    SetMeshOutputCounts(64, 100);
    if (t < 64) {
        verts[t].pos = float4(pl.scale * t, g.x, 0, 1);
        verts[t].uv = float2(t, pl.ids[g.y & 3]);
        verts[t].c = 1;
    }
    if (t < 100) {
        tris[t] = INDEX(t, t + 1, t + 2);
        prims[t].tint = float4(t, 0, 0, 1);
        prims[t].id = t;
        prims[t].cull = (t & 1) != 0;
        prims[t].layer = 0;
    }
}
"""
AS = """
struct Payload { uint ids[4]; float scale; };
groupshared Payload pl;
[numthreads(8, 1, 1)]
void main(uint t : SV_GroupThreadID) {
    if (t < 4) pl.ids[t] = t * 3;
    if (t == 0) pl.scale = 0.5;
    GroupMemoryBarrierWithGroupSync();
    DispatchMesh(3, 2, 1, pl);
}
"""
PAYLOAD_BYTES = 4 * 4 + 4       # uint[4] and a float


def part(check, name: str) -> dict:
    return next(p for p in check.container["Parts"] if p["Name"] == name)


def build(src: str, profile: str):
    res = R.compile_hlsl(src, "main", profile, "dxil")
    assert res.ok, R.diagnostics_text(res)
    return check_dxil(res.binary)


def ms(topology: str = "triangle") -> str:
    return MS.replace("TOPOLOGY", topology).replace(
        "INDEX(t, t + 1, t + 2)", "uint3(t, t + 1, t + 2)" if topology == "triangle" else "uint2(t, t + 1)").replace(
        "INDEX", "uint3" if topology == "triangle" else "uint2")


@pytest.mark.parametrize("topology,dxil_topology", [("triangle", 2), ("line", 1)])
def test_mesh_shader_container(topology, dxil_topology):
    c = build(ms(topology), "ms_6_5")
    assert c.spirv is not None          # dxil-spirv converted it and spirv-val accepted the result
    names = [p["Name"] for p in c.container["Parts"]]
    assert {"ISG1", "OSG1", "PSG1", "PSV0", "DXIL"} <= set(names)
    psv = part(c, "PSV0")["PSVInfo"]
    assert psv["ShaderStage"] == 13
    assert (psv["MaxOutputVertices"], psv["MaxOutputPrimitives"]) == (64, 100)
    assert psv["PayloadSizeInBytes"] == PAYLOAD_BYTES
    assert psv["MeshOutputTopology"] == dxil_topology
    assert (psv["NumThreadsX"], psv["NumThreadsY"], psv["NumThreadsZ"]) == (32, 2, 1)
    # the vertex signature (OSG1): position and the two attributes; the primitive signature (PSG1)
    outs = part(c, "OSG1")["Signature"]["Parameters"]
    assert [(p["Name"], p["SystemValue"]) for p in outs] == [("SV_Position", "Position"), ("TEXCOORD", "Undefined"),
                                                             ("COLOR", "Undefined")]
    prims = part(c, "PSG1")["Signature"]["Parameters"]
    assert sorted((p["Name"], p["SystemValue"]) for p in prims) == [
        ("SV_CullPrimitive", "CullPrimitive"), ("SV_PrimitiveID", "PrimitiveID"),
        ("SV_RenderTargetArrayIndex", "RenderTargetArrayIndex"), ("TINT", "Undefined")]
    cull = next(p for p in prims if p["Name"] == "SV_CullPrimitive")
    assert cull["Register"] == 0xFFFFFFFF       # NotPacked: in the signature, no register
    assert psv["SigPrimVectors"] == max(p["Register"] for p in prims if p["Register"] != 0xFFFFFFFF) + 1
    assert part(c, "ISG1")["Signature"]["Parameters"] == []     # thread ids are operations
    ir = c.ir
    # MS state: {numthreads, max vertices, max primitives, topology, payload bytes}
    state = re.search(r"!\{i32 9, (![0-9]+)\}", ir)
    assert state is not None
    tup = re.search(rf"^{state.group(1)} = !\{{(![0-9]+), i32 64, i32 100, i32 {dxil_topology}, "
                    rf"i32 {PAYLOAD_BYTES}\}}", ir, re.M)
    assert tup is not None, ir
    assert re.search(rf"^{tup.group(1)} = !\{{i32 32, i32 2, i32 1\}}", ir, re.M)
    assert "!{!\"ms\", i32 6, i32 5}" in ir
    for op, code in (("setMeshOutputCounts", 168), ("emitIndices", 169), ("getMeshPayload", 170),
                     ("storeVertexOutput", 171), ("storePrimitiveOutput", 172)):
        assert re.search(rf"call [^\n]*@dx\.op\.{op}[^(]*\(i32 {code}\b", ir), op
    assert "dispatchMesh" not in ir
    # emitIndices carries one vertex index per corner (undef past a line's two)
    emit = re.search(r"call void @dx\.op\.emitIndices\(i32 169, i32 [^,]+, i32 [^,]+, i32 [^,]+, i32 ([^)]+)\)", ir)
    assert emit is not None and (emit.group(1) == "undef") == (topology == "line")


def test_amplification_shader_container():
    c = build(AS, "as_6_5")
    assert c.spirv is not None
    names = [p["Name"] for p in c.container["Parts"]]
    assert "PSG1" not in names
    psv = part(c, "PSV0")["PSVInfo"]
    assert psv["ShaderStage"] == 14
    assert psv["PayloadSizeInBytes"] == PAYLOAD_BYTES
    assert (psv["NumThreadsX"], psv["NumThreadsY"], psv["NumThreadsZ"]) == (8, 1, 1)
    ir = c.ir
    state = re.search(r"!\{i32 10, (![0-9]+)\}", ir)
    assert state is not None
    assert re.search(rf"^{state.group(1)} = !\{{![0-9]+, i32 {PAYLOAD_BYTES}\}}", ir, re.M), ir
    assert "!{!\"as\", i32 6, i32 5}" in ir
    # dispatchMesh(x, y, z) with the groupshared payload itself (llvm-dis-19 prints opaque pointers; the
    # declaration, read with the bitcode, is `void (i32, i32, i32, i32, %struct.Payload addrspace(3)*)`)
    call = re.search(r"call void @dx\.op\.dispatchMesh\.struct\.Payload\(i32 173, i32 [^,]+, i32 [^,]+, i32 [^,]+, "
                     r"ptr addrspace\(3\) @pl\)", ir)
    assert call is not None, ir
    assert re.search(r"^@pl = internal addrspace\(3\) global %struct\.Payload undef", ir, re.M)
    assert ir.count("@dx.op.dispatchMesh") == 2        # the declaration and one call


def test_payload_struct_is_shared_by_both_stages():
    """The mesh shader reads the payload through getMeshPayload as the same struct type the
    amplification shader passes to dispatchMesh."""
    a, m = build(AS, "as_6_5"), build(ms(), "ms_6_5")
    decl = re.compile(r"^%struct\.Payload = type (.*)$", re.M)
    ta, tm = decl.search(a.ir), decl.search(m.ir)
    assert ta is not None and tm is not None and ta.group(1) == tm.group(1)
    assert re.search(r"= call ptr @dx\.op\.getMeshPayload\.struct\.Payload\(i32 170\)", m.ir)
    assert re.search(r"getelementptr inbounds %struct\.Payload, ptr %[0-9]+, i32 0, i32 1\b", m.ir)   # .scale


@pytest.mark.parametrize("profile", ["ms_6_5", "ms_6_6", "ms_6_8"])
def test_mesh_profiles(profile):
    c = build(ms(), profile)
    minor = profile[-1]
    assert f"!{{!\"ms\", i32 6, i32 {minor}}}" in c.ir


# ---------------------------------------------------------------- the self-checker's mesh rules

def _lowered(src: str, profile: str):
    """The module as the DXIL backend lowers it, before its self-check (check.check_module)."""
    from shaderbuild_dxil.dxmeta import add_metadata
    from shaderbuild_dxil.lower import lower_module

    from shaderbuild.compiler import compile_file
    from shaderbuild.options import CompileOptions

    res = compile_file("mesh.hlsl", CompileOptions(entry="main", profile=profile, target="dxil"), text=src,
                       keep_module=True)
    assert res.ok, [str(d) for d in res.diagnostics]
    module = res.module
    lm = lower_module(module, module.stage, (6, 5))
    add_metadata(lm)
    return lm


def _calls(lm, cls: str) -> list:
    return [i for bb in lm.entry.blocks for i in bb.instructions
            if i.op == "call" and i.operands[0].name.startswith(f"dx.op.{cls}")]


def _expect(lm, text: str) -> None:
    from shaderbuild_dxil import check

    with pytest.raises(check.DxilCheckError) as exc:
        check.check_module(lm, lm.ops)
    assert text in str(exc.value)


def test_checker_accepts_the_mesh_stages():
    from shaderbuild_dxil import check

    for src, profile in ((ms(), "ms_6_5"), (AS, "as_6_5")):
        lm = _lowered(src, profile)
        check.check_module(lm, lm.ops)


def test_checker_wants_set_mesh_output_counts():
    lm = _lowered(ms(), "ms_6_5")
    for call in _calls(lm, "setMeshOutputCounts"):
        call.parent.instructions.remove(call)
    _expect(lm, "a mesh shader without setMeshOutputCounts")


def test_checker_wants_primitive_stores_on_primitive_elements():
    from shaderbuild_dxil.llvm.values import ConstInt

    lm = _lowered(ms(), "ms_6_5")
    call = _calls(lm, "storePrimitiveOutput")[0]
    call.operands[2] = ConstInt(call.operands[2].type, 7)      # no primitive element 7
    _expect(lm, "storePrimitiveOutput addresses no element of its signature")


def test_checker_wants_one_dispatch_mesh_at_the_end():
    from shaderbuild_dxil.llvm import i32
    from shaderbuild_dxil.llvm.values import ConstInt, Instruction

    lm = _lowered(AS, "as_6_5")
    call = _calls(lm, "dispatchMesh")[0]
    bb = call.parent
    twice = Instruction("call", call.type, list(call.operands))
    twice.parent = bb
    bb.instructions.insert(bb.instructions.index(call), twice)
    _expect(lm, "calls dispatchMesh 2 times, not once")
    bb.instructions.remove(twice)       # one call again, but now something follows it
    one = ConstInt(i32, 1)
    extra = Instruction("add", i32, [one, one])
    extra.parent = bb
    bb.instructions.insert(bb.instructions.index(call) + 1, extra)
    _expect(lm, "dispatchMesh is not the amplification shader's last operation")


VIEW_MS = """
struct V { float4 pos : SV_Position; float4 c : COLOR0; };
struct P { uint x : XX; uint layer : SV_RenderTargetArrayIndex; };
[outputtopology("triangle")] [numthreads(3, 1, 1)]
void main(uint t : SV_GroupThreadID, uint view : SV_ViewID, out vertices V verts[3], out indices uint3 tris[1],
          out primitives P prims[1]) {
    SetMeshOutputCounts(3, 1);
    verts[t].pos = float4(view, t, 0, 1);
    verts[t].c = 1;
    if (t == 0) { tris[0] = uint3(0, 1, 2); prims[0].x = 5; prims[0].layer = view; }
}
"""


def test_mesh_shader_view_id_state():
    """SV_ViewID in a mesh shader: PSV0 says UsesViewID; dx.viewIdState is {no inputs, 8 vertex output
    scalars (SV_Position row 0, COLOR0 row 1), 2 primitive scalars (XX at x, the layer packed beside it
    at y), the vertex outputs on ViewID (pos.x: bit 0), the primitive outputs on ViewID (the layer: bit 1)}."""
    c = build(VIEW_MS, "ms_6_5")
    psv = part(c, "PSV0")["PSVInfo"]
    assert psv["UsesViewID"] == 1
    assert psv["OutputVectorMasks"][0] == [0x1]
    assert "!{[5 x i32] [i32 0, i32 8, i32 2, i32 1, i32 2]}" in c.ir
    quiet = build(VIEW_MS.replace("float4(view, t, 0, 1)", "float4(0, t, 0, 1)").replace("layer = view", "layer = 0")
                  .replace(", uint view : SV_ViewID", ""), "ms_6_5")
    assert part(quiet, "PSV0")["PSVInfo"]["UsesViewID"] == 0
