"""Rasterizer-ordered views (RasterizerOrdered{Buffer,ByteAddressBuffer,StructuredBuffer,Texture1D,Texture1DArray,
Texture2D,Texture2DArray,Texture3D}): rows of the resource-kind table, each its RW twin plus the ordering.

SPIR-V (DXC's SPIR-V.rst "Rasterizer Ordered Views"): the RW twin's type, and the pixel shader's accesses inside
OpBeginInvocationInterlockEXT / OpEndInvocationInterlockEXT (SPV_EXT_fragment_shader_interlock) with the
PixelInterlockOrderedEXT execution mode (SampleInterlockOrderedEXT when SV_SampleIndex is read).  DXIL
(DXIL.rst): the UAV record's ROV flag, ResourceProperties bit 13, shader flag 18 and the SFI0 ROVs feature.

Not executed: lavapipe (Mesa 25) exposes no fragmentShaderPixelInterlock / SampleInterlock, so neither our
SPIR-V nor dxil-spirv's translation of our DXIL (which uses the same extension) can run on it; both are checked
by spirv-val, and the DXIL by the LLVM readers and dxil-spirv.
"""

from __future__ import annotations

import re

import pytest
import res_util as R
from harness import dxil_tools, tools

pytestmark = [pytest.mark.spirv_tools]

# kind -> (template argument, DXIL ResourceKind, a statement that reads and writes it at pixel p)
KINDS = {
    "RasterizerOrderedBuffer": ("<uint>", 10, "r[p.x] = r[p.x] + 1;"),
    "RasterizerOrderedByteAddressBuffer": ("", 11, "r.Store(p.x * 4, r.Load(p.x * 4) + 1);"),
    "RasterizerOrderedStructuredBuffer": ("<float2>", 12, "r[p.x] += float2(1, 2);"),
    "RasterizerOrderedTexture1D": ("<float4>", 1, "r[p.x] += 1;"),
    "RasterizerOrderedTexture1DArray": ("<float>", 6, "r[p.xy] += 1;"),
    "RasterizerOrderedTexture2D": ("<float4>", 2, "r[p.xy] += 1;"),
    "RasterizerOrderedTexture2DArray": ("<uint2>", 7, "r[uint3(p.xy, 1)] += 1;"),
    "RasterizerOrderedTexture3D": ("<int>", 4, "r[uint3(p.xy, 0)] += 1;"),
}


def _ps(kind: str, inputs: str = "float4 pos : SV_Position") -> str:
    targ, _, stmt = KINDS[kind]
    return (f"{kind}{targ} r : register(u1);\n"
            f"float4 main({inputs}) : SV_Target {{\n    uint2 p = uint2(pos.xy);\n    {stmt}\n    return 1;\n}}\n")


def _spirv(src: str, opt_level: int = 3) -> str:
    for env in ("vulkan1.1", "vulkan1.3"):
        res = R.compile_hlsl(src, "main", "ps_6_0", "spirv", env=env, opt_level=opt_level)
        assert res.ok, R.diagnostics_text(res)
        tools.spirv_val(res.binary, env)
    return tools.spirv_dis(res.binary)


@pytest.mark.parametrize("opt_level", [0, 3])
@pytest.mark.parametrize("kind", list(KINDS))
def test_spirv_accesses_are_inside_the_interlock(kind, opt_level):
    """In the entry point's function, once: Begin, every access (the call of the HLSL function at -O0), End."""
    dis = _spirv(_ps(kind), opt_level)
    assert "OpCapability FragmentShaderPixelInterlockEXT" in dis
    assert 'OpExtension "SPV_EXT_fragment_shader_interlock"' in dis
    assert re.search(r"OpExecutionMode %main PixelInterlockOrderedEXT", dis)
    main = dis[dis.index("%main = OpFunction"):]
    main = main[:main.index("OpFunctionEnd")]
    begin, end = main.index("OpBeginInvocationInterlockEXT"), main.index("OpEndInvocationInterlockEXT")
    assert main.count("OpBeginInvocationInterlockEXT") == main.count("OpEndInvocationInterlockEXT") == 1
    accesses = [m.start() for m in re.finditer(r"OpImageRead|OpImageWrite|OpFunctionCall|OpStore %\S+ ", main)
                if "OpStore %out" not in main[m.start():m.start() + 40]]
    assert accesses and all(begin < a < end for a in accesses), main
    # the RW twin has the same SPIR-V type and no interlock
    rw = _spirv(_ps(kind).replace("RasterizerOrdered", "RW"), opt_level)
    assert "Interlock" not in rw
    assert re.findall(r"= OpType(?:Image|Struct|RuntimeArray)[^\n]*", dis) == \
        re.findall(r"= OpType(?:Image|Struct|RuntimeArray)[^\n]*", rw)


def test_sample_rate_shader_orders_per_sample():
    dis = _spirv(_ps("RasterizerOrderedTexture2D", "float4 pos : SV_Position, uint s : SV_SampleIndex"))
    assert "OpCapability FragmentShaderSampleInterlockEXT" in dis
    assert "OpExecutionMode %main SampleInterlockOrderedEXT" in dis and "PixelInterlock" not in dis


@pytest.mark.llvm
@pytest.mark.parametrize("kind", list(KINDS))
def test_dxil_rov_flags(kind):
    """The UAV record (DXIL.rst: shape, globally coherent, counter, ROV), shader flag 18 and SFI0 ROVs; the
    container passes the LLVM readers and dxil-spirv (whose SPIR-V spirv-val accepts)."""
    res = R.compile_hlsl(_ps(kind), "main", "ps_6_0", "dxil")
    assert res.ok, R.diagnostics_text(res)
    checked = dxil_tools.check_dxil(res.binary)
    assert checked.spirv is not None
    shape = KINDS[kind][1]
    assert re.search(rf'!\{{i32 0, ptr undef, !"r", i32 0, i32 1, i32 1, i32 {shape}, i1 false, i1 false, i1 true, ',
                     checked.ir), checked.ir
    flags = re.search(r"!dx\.entryPoints = .*?\n(?:.*\n)*?!\d+ = !\{i32 0, i64 (\d+)", checked.ir)
    assert flags and int(flags.group(1)) >> 18 & 1, checked.ir
    sfi0 = {p["Name"]: p for p in checked.container["Parts"]}["SFI0"]
    assert sfi0["Flags"]["ROVs"] is True
    rw = R.compile_hlsl(_ps(kind).replace("RasterizerOrdered", "RW"), "main", "ps_6_0", "dxil")
    rw_ir = dxil_tools.check_dxil(rw.binary).ir
    assert re.search(rf'!"r", i32 0, i32 1, i32 1, i32 {shape}, i1 false, i1 false, i1 false, ', rw_ir)


@pytest.mark.parametrize("kind", list(KINDS))
def test_manifest_kind_and_binding(kind):
    """The manifest names the ROV kind with its RW twin's descriptor type; R.build checks its Vulkan view
    against spirv-cross's reflection of the binary."""
    res = R.build(_ps(kind), "main", "ps_6_0")
    twin = R.build(_ps(kind).replace("RasterizerOrdered", "RW"), "main", "ps_6_0")
    r, rw = R.resource(res.manifest, "r"), R.resource(twin.manifest, "r")
    assert r["kind"] == kind and rw["kind"] == kind.replace("RasterizerOrdered", "RW")
    assert (r["hlsl"]["class"], r["hlsl"]["register"]) == ("u", 1)
    assert r["vulkan"] == rw["vulkan"]


@pytest.mark.parametrize(("src", "profile", "where", "message"), [
    ("RasterizerOrderedTexture2D<float> r : register(u0);\n[numthreads(1, 1, 1)]\n"
     "void main(uint3 i : SV_DispatchThreadID) {\n    r[i.xy] = 1;\n}\n", "cs_6_0", (4, 5),
     "rasterizer-ordered view 'r' can only be used in pixel shaders"),
    ("RasterizerOrderedBuffer<uint> r : register(u0);\nfloat4 main(uint v : SV_VertexID) : SV_Position {\n"
     "    return r[v];\n}\n", "vs_6_0", (3, 12), "rasterizer-ordered view 'r' can only be used in pixel shaders"),
    ("RasterizerOrderedStructuredBuffer<uint> r : register(u0);\nfloat4 main() : SV_Target {\n"
     "    return r.IncrementCounter();\n}\n", "ps_6_0", (3, 14),
     "no member function named 'IncrementCounter' in 'RasterizerOrderedStructuredBuffer<uint>'"),
])
def test_rov_errors_are_located(src, profile, where, message):
    for target in ("spirv", "dxil"):
        errs = R.errors(R.compile_hlsl(src, "main", profile, target))
        assert errs and errs[0].startswith(f"{where[0]}:{where[1]}: ") and message in errs[0], errs


def test_unused_rov_does_not_stop_another_stage():
    """A file with a pixel shader using an ROV and a compute entry that does not: the compute entry compiles."""
    src = _ps("RasterizerOrderedTexture2D") + \
        "RWStructuredBuffer<uint> o : register(u2);\n[numthreads(1, 1, 1)] void cs() { o[0] = 1; }\n"
    for target in ("spirv", "dxil"):
        res = R.compile_hlsl(src, "cs", "cs_6_0", target)
        assert res.ok, R.diagnostics_text(res)
