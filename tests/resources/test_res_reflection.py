"""The manifest against spirv-cross --reflect (res_util.check_reflection, also run by every other
test_res_* shader) and against an independent table of what each HLSL resource kind must become:
descriptor type, D3D register class, access, array size; storage-class conventions per target env;
determinism; the D3D view identical across targets.
"""

from __future__ import annotations

import pytest
import res_util as R

pytestmark = [pytest.mark.spirv_tools]

# HLSL declaration -> (register class, Vulkan descriptor type, access) -- DXC SPIR-V.rst / D3D rules, not our code
KINDS = [
    ("Texture1D<float4>", "t", "sampled_image", "read-only"),
    ("Texture2D<float4>", "t", "sampled_image", "read-only"),
    ("Texture2DArray<float4>", "t", "sampled_image", "read-only"),
    ("Texture3D<float4>", "t", "sampled_image", "read-only"),
    ("TextureCube<float4>", "t", "sampled_image", "read-only"),
    ("Texture2DMS<float4>", "t", "sampled_image", "read-only"),
    ("Buffer<float4>", "t", "uniform_texel_buffer", "read-only"),
    ("StructuredBuffer<float2>", "t", "storage_buffer", "read-only"),
    ("ByteAddressBuffer", "t", "storage_buffer", "read-only"),
    ("RWTexture1D<float>", "u", "storage_image", "read-write"),
    ("RWTexture2D<float4>", "u", "storage_image", "read-write"),
    ("RWTexture2DArray<uint>", "u", "storage_image", "read-write"),
    ("RWTexture3D<int>", "u", "storage_image", "read-write"),
    ("RWBuffer<uint>", "u", "storage_texel_buffer", "read-write"),
    ("RWStructuredBuffer<uint>", "u", "storage_buffer", "read-write"),
    ("RWByteAddressBuffer", "u", "storage_buffer", "read-write"),
    ("SamplerState", "s", "sampler", "read-only"),
    ("SamplerComparisonState", "s", "sampler", "read-only"),
]


@pytest.mark.parametrize("decl, cls, dtype, access", KINDS, ids=[k[0] for k in KINDS])
def test_resource_kind_reflection(decl, cls, dtype, access):
    src = f"{decl} R0 : register({cls}3, space1);\n[numthreads(1,1,1)] void main() {{ }}\n"
    res = R.build(src)  # includes check_reflection against spirv-cross
    (r,) = res.manifest["resources"]
    assert (r["hlsl"]["class"], r["hlsl"]["register"], r["hlsl"]["space"], r["hlsl"]["count"]) == (cls, 3, 1, 1)
    assert r["vulkan"]["descriptor_type"] == dtype and (r["vulkan"]["set"], r["vulkan"]["binding"]) == (1, 3)
    assert r["access"] == access


@pytest.mark.parametrize("decl, count", [("[4]", 4), ("[2][3]", 6), ("[]", "unbounded"), ("[][2]", "unbounded")],
                         ids=["fixed", "multi", "unbounded", "unbounded-2d"])
def test_array_counts(decl, count):
    src = f"Texture2D<float4> T{decl} : register(t0);\n[numthreads(1,1,1)] void main() {{ }}\n"
    (r,) = R.build(src).manifest["resources"]
    assert r["vulkan"]["count"] == count and r["hlsl"]["count"] == count


ALL_KINDS_SRC = "".join(f"{d} R{i} : register({c}{i});\n" for i, (d, c, _t, _a) in enumerate(KINDS)) + \
    "cbuffer CB : register(b40) { float4 x; float y; };\n[numthreads(1,1,1)] void main() { }\n"


@pytest.mark.parametrize("env, storage_class, block", [("vulkan1.0", "Uniform", "BufferBlock"),
                                                       ("vulkan1.1", "Uniform", "BufferBlock"),
                                                       ("vulkan1.2", "StorageBuffer", "Block"),
                                                       ("vulkan1.3", "StorageBuffer", "Block")])
def test_storage_buffer_convention_per_env(env, storage_class, block):
    """DXC: BufferBlock + Uniform up to SPIR-V 1.3; StorageBuffer + Block from SPIR-V 1.4 (vulkan1.2)."""
    res = R.build(ALL_KINDS_SRC, env=env)
    dis = R.spirv_dis(res)
    assert f"type_RWStructuredBuffer_uint {block}" in dis.replace("OpDecorate %", ""), dis
    assert f"%_ptr_{storage_class}_type_RWStructuredBuffer_uint = OpTypePointer {storage_class}" in dis


def test_all_kinds_in_one_shader():
    res = R.build(ALL_KINDS_SRC)
    got = {r["name"]: r["vulkan"]["descriptor_type"] for r in res.manifest["resources"]}
    want = {f"R{i}": t for i, (_d, _c, t, _a) in enumerate(KINDS)} | {"CB": "uniform_buffer"}
    assert got == want


def test_manifest_is_deterministic():
    from shaderbuild.compiler import compile_file
    from shaderbuild.options import CompileOptions
    from shaderbuild.reflect.manifest import dumps
    r1 = compile_file("x.hlsl", CompileOptions(), text=ALL_KINDS_SRC)
    r2 = compile_file("x.hlsl", CompileOptions(), text=ALL_KINDS_SRC)
    assert r1.binary == r2.binary and dumps(r1.manifest) == dumps(r2.manifest)


def test_hlsl_view_same_for_both_targets():
    spv = R.build(ALL_KINDS_SRC).manifest["resources"]
    dxil = R.build(ALL_KINDS_SRC, target="dxil").manifest["resources"]
    assert [(r["name"], r["hlsl"]) for r in spv] == [(r["name"], r["hlsl"]) for r in dxil]


def test_cross_reflection_catches_a_wrong_manifest():
    """The generic checker must be able to fail: corrupt one binding and one offset."""
    import copy
    res = R.build(ALL_KINDS_SRC)
    bad = copy.deepcopy(res.manifest)
    bad["resources"][0]["vulkan"]["binding"] += 100
    with pytest.raises(AssertionError, match="keys differ"):
        R.check_reflection(bad, res.binary)
    bad = copy.deepcopy(res.manifest)
    cb = next(r for r in bad["resources"] if r["name"] == "CB")
    cb["block"]["members"][1]["vulkan"]["offset"] += 4
    with pytest.raises(AssertionError, match="member offsets"):
        R.check_reflection(bad, res.binary)
    bad = copy.deepcopy(res.manifest)
    bad["resources"][1]["vulkan"]["descriptor_type"] = "storage_image"
    with pytest.raises(AssertionError, match="spirv-cross"):
        R.check_reflection(bad, res.binary)


def test_stage_io_locations_match_spirv_cross():
    src = """
struct VIn { float3 p : POSITION; float2 uv : TEXCOORD0; float4 c : COLOR; uint id : SV_VertexID; };
struct VOut { float4 pos : SV_Position; float2 uv : TEXCOORD0; nointerpolation float4 c : COLOR; float k : K; };
VOut main(VIn i) { VOut o; o.pos = float4(i.p, 1); o.uv = i.uv; o.c = i.c; o.k = i.id; return o; }
"""
    res = R.build(src, profile="vs_6_0")
    ins = [(e["semantic"], e.get("location"), e.get("builtin")) for e in res.manifest["entry"]["inputs"]]
    outs = [(e["semantic"], e.get("location"), e.get("builtin")) for e in res.manifest["entry"]["outputs"]]
    assert ins == [("POSITION", 0, None), ("TEXCOORD", 1, None), ("COLOR", 2, None), ("SV_VertexID", None, "VertexIndex")]
    assert outs == [("SV_Position", None, "Position"), ("TEXCOORD", 0, None), ("COLOR", 1, None), ("K", 2, None)]


COUNTER_SRC = """
[[vk::counter_binding(5)]] RWStructuredBuffer<uint> Items : register(u0);
[numthreads(4,1,1)] void main(uint3 t : SV_DispatchThreadID) { uint i = Items.IncrementCounter(); Items[i] = t.x + 1; }
"""


def test_counter_binding():
    res = R.build(COUNTER_SRC)
    assert R.resource(res.manifest, "Items")["vulkan"].get("counter_binding") == 5
    cross = R.cross_resources(R.tools.spirv_cross_reflect(res.binary))
    assert (0, 5) in cross and cross[(0, 5)]["descriptor_type"] == "storage_buffer"


@pytest.mark.parametrize("attr, want", [
    ("[[vk::location(3)]]", 3),
], ids=["vk-location"])
def test_vk_location_attribute(attr, want):
    src = f"float4 main({attr} float4 c : COLOR) : SV_Target {{ return c; }}\n"
    res = R.build(src, profile="ps_6_0")
    assert res.manifest["entry"]["inputs"][0]["location"] == want


def test_vk_builtin_attribute():
    src = "struct VOut { float4 pos : SV_Position; [[vk::builtin(\"PointSize\")]] float ps : PSIZE; };\n" \
          "VOut main() { VOut o; o.pos = 0; o.ps = 1; return o; }\n"
    res = R.build(src, profile="vs_6_0")
    assert "BuiltIn PointSize" in R.spirv_dis(res)


def test_vk_constant_id():
    src = ("[[vk::constant_id(7)]] const uint K = 3;\nRWStructuredBuffer<uint> Out : register(u0);\n"
           "[numthreads(1,1,1)] void main() { Out[0] = K; }\n")
    res = R.build(src)
    assert "SpecId 7" in R.spirv_dis(res)


_DXIL_CLASS = {"t": 0, "u": 1, "b": 2}


# a read of element 1 of R0 per kind, so the DXIL keeps the resource (unused ones may be dropped, as DXC does)
_USE = {"Texture1D": "R0[1].Load(int2(0, 0)).x", "Texture2D<": "R0[1].Load(int3(0, 0, 0)).x",
        "Texture2DArray": "R0[1].Load(int4(0, 0, 0, 0)).x", "Texture3D": "R0[1].Load(int4(0, 0, 0, 0)).x",
        "TextureCube": "R0[1].SampleLevel(Smp, float3(1, 0, 0), 0).x", "Texture2DMS": "R0[1].Load(int2(0, 0), 0).x",
        "Buffer<": "R0[1][0].x", "StructuredBuffer<float2>": "R0[1][0].x", "ByteAddressBuffer": "R0[1].Load(0)",
        "RWTexture1D": "R0[1][0]", "RWTexture2D<": "R0[1][uint2(0, 0)].x", "RWTexture2DArray": "R0[1][uint3(0, 0, 0)]",
        "RWTexture3D": "R0[1][uint3(0, 0, 0)]", "RWBuffer": "R0[1][0]", "RWStructuredBuffer": "R0[1][0]",
        "RWByteAddressBuffer": "R0[1].Load(0)"}


def _use(decl: str) -> str:
    return next(u for k, u in sorted(_USE.items(), key=lambda kv: -len(kv[0])) if decl.startswith(k))




@pytest.mark.llvm
@pytest.mark.parametrize("decl, cls, dtype, access", [
    R.param(*k, id=k[0]) for k in KINDS if k[1] != "s"])
def test_dxil_resource_record_matches_manifest(decl, cls, dtype, access):
    """!dx.resources (class list, space, lower bound, range size) carries the manifest's D3D view."""
    from harness import dxil_exec
    src = (f"{decl} R0[3] : register({cls}3, space1);\nSamplerState Smp : register(s0);\n"
           "RWStructuredBuffer<float> Out : register(u0, space7);\n"
           f"[numthreads(1,1,1)] void main() {{ Out[0] = {_use(decl)}; }}\n")
    res, chk = R.build_dxil(src)
    recs = [(x.cls, x.space, x.lower, x.count) for x in dxil_exec.parse_resources(chk.ir) if x.space == 1]
    assert recs == [(_DXIL_CLASS[cls], 1, 3, 3)], chk.ir
    r = R.resource(res.manifest, "R0")
    assert (r["hlsl"]["class"], r["hlsl"]["space"], r["hlsl"]["register"], r["hlsl"]["count"]) == (cls, 1, 3, 3)


@pytest.mark.llvm
def test_dxil_cbuffer_record_size():
    """The CBV record's size field is the packed size, not rounded to a row (float4 x; float y -> 20), as
    DXC writes DxilCBuffer::GetSize() (e.g. `i32 28, null}` / `i32 4, null}` records in its tests)."""
    src = ("cbuffer CB : register(b2, space3) { float4 x; float y; };\nRWStructuredBuffer<float> Out : register(u0);\n"
           "[numthreads(1,1,1)] void main() { Out[0] = x.w + y; }\n")
    _res, chk = R.build_dxil(src)
    import re
    rec = re.search(r'^!\d+ = !\{i32 \d+, ptr [^,]+, !"CB", i32 3, i32 2, i32 1, i32 (\d+)', chk.ir, re.M)
    assert rec and int(rec.group(1)) == 20, chk.ir
