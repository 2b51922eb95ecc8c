"""The binding manifest: schema-valid, deterministic, and equal to what
spirv-cross reflects from the SPIR-V we produced."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import pytest
from harness import tools

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions
from shaderbuild.reflect.manifest import dumps

SCHEMA = json.loads(resources.files("shaderbuild.reflect").joinpath("manifest.schema.json").read_text())

SHADERS = {
    "blocks": ("cs_6_0", "main", """
struct Params { float4 tint; uint count; float2 scale; };
cbuffer Frame : register(b0) { float4x4 view; float time; float3 dir; row_major float2x3 m; };
ConstantBuffer<Params> P : register(b1);
float gScale;
uint gBias;
StructuredBuffer<Params> In : register(t0, space1);
RWStructuredBuffer<float4> Out : register(u2);
[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    Out[id.x] = P.tint * time * gScale + float4(view[0].x, gBias, In[id.x].count + dir.y + m[1][2], P.scale.x);
}
"""),
    "textures": ("ps_6_0", "main", """
Texture2D<float4> Albedo : register(t0);
Texture2DArray<float> Layers : register(t1);
SamplerState Linear : register(s0, space1);
struct PSIn { float4 pos : SV_Position; float2 uv : TEXCOORD0; nointerpolation uint layer : TEXCOORD1; };
float4 main(PSIn i) : SV_Target0 {
    return Albedo.Sample(Linear, i.uv) * Layers.Sample(Linear, float3(i.uv, i.layer));
}
"""),
    "vertex": ("vs_6_0", "main", """
cbuffer Object : register(b0) { float4x4 world_view_proj; };
struct VSIn { float3 pos : POSITION; float3 normal : NORMAL; float2 uv : TEXCOORD0; };
struct VSOut { float4 pos : SV_Position; float3 normal : NORMAL; float2 uv : TEXCOORD0; };
VSOut main(VSIn v, uint vid : SV_VertexID) {
    VSOut o;
    o.pos = mul(world_view_proj, float4(v.pos, 1)) + float4(0, 0, 0, vid * 0);
    o.normal = v.normal;
    o.uv = v.uv;
    return o;
}
"""),
}

REFLECT_TYPES = {"ubos": "uniform_buffer", "ssbos": "storage_buffer", "separate_images": "sampled_image",
                 "separate_samplers": "sampler", "images": "storage_image"}


def compile_manifest(tmp_path, name: str, target: str = "spirv"):
    profile, entry, src = SHADERS[name]
    path = tmp_path / f"{name}.hlsl"
    path.write_text(src)
    res = compile_file(str(path), CompileOptions(entry=entry, profile=profile, target=target))
    assert res.ok, [d.render(res.sources) for d in res.diagnostics]
    return res


@pytest.mark.parametrize("name", sorted(SHADERS))
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_manifest_matches_schema(tmp_path, name, target):
    res = compile_manifest(tmp_path, name, target)
    jsonschema.validate(res.manifest, SCHEMA)


@pytest.mark.parametrize("name", sorted(SHADERS))
def test_manifest_is_deterministic_and_relative(tmp_path, name):
    a = dumps(compile_manifest(tmp_path, name).manifest)
    b = dumps(compile_manifest(tmp_path, name).manifest)
    assert a == b
    assert str(tmp_path) not in a


@pytest.mark.parametrize("name", sorted(SHADERS))
def test_vulkan_view_equals_spirv_cross(tmp_path, name):
    res = compile_manifest(tmp_path, name)
    tools.spirv_val(res.binary)
    reflect = tools.spirv_cross_reflect(res.binary)
    got = {}
    for key, dtype in REFLECT_TYPES.items():
        for r in reflect.get(key, []):
            block = reflect["types"][r["type"]] if key in ("ubos", "ssbos") else None
            got[(r["set"], r["binding"])] = (dtype, r.get("block_size"), block)
    ours = {(r["vulkan"]["set"], r["vulkan"]["binding"]): r for r in res.manifest["resources"]}
    assert set(ours) == set(got)
    for key, r in ours.items():
        dtype, block_size, block = got[key]
        assert r["vulkan"]["descriptor_type"] == dtype
        if "block" in r:
            assert r["block"]["vulkan_size"] == block_size
            offsets = [m["offset"] for m in block["members"]]
            assert [m["vulkan"]["offset"] for m in r["block"]["members"]] == offsets


def test_entry_interface_locations(tmp_path):
    m = compile_manifest(tmp_path, "vertex").manifest
    ins = {i["semantic"]: i for i in m["entry"]["inputs"]}
    assert [ins[s]["location"] for s in ("POSITION", "NORMAL", "TEXCOORD")] == [0, 1, 2]
    assert ins["SV_VertexID"]["builtin"] == "VertexIndex"
    outs = {o["semantic"]: o for o in m["entry"]["outputs"]}
    assert outs["SV_Position"]["builtin"] == "Position"
    assert [outs[s]["location"] for s in ("NORMAL", "TEXCOORD")] == [0, 1]


def test_block_member_layouts_in_both_packings(tmp_path):
    m = compile_manifest(tmp_path, "blocks").manifest
    frame = next(r for r in m["resources"] if r["name"] == "Frame")
    members = {x["name"]: x for x in frame["block"]["members"]}
    # HLSL cbuffer packing: float3 dir packs after time in the same 16-byte row
    assert members["time"]["hlsl"]["offset"] == 64
    assert members["dir"]["hlsl"]["offset"] == 68
    # DXC's Vulkan rule (vector-relaxed std140): a float3 aligns like a float unless it would straddle
    assert members["dir"]["vulkan"]["offset"] == 68
    # a matrix starts a new 16-byte row in both
    assert members["m"]["hlsl"]["offset"] == 80 and members["m"]["vulkan"]["offset"] == 80
    assert members["m"]["row_major"] is True and members["view"]["row_major"] is False
    globals_ = next(r for r in m["resources"] if r["kind"] == "$Globals")
    assert [x["name"] for x in globals_["block"]["members"]] == ["gScale", "gBias"]
