"""A ray-tracing library's manifest (issue 18): no single entry, but every exported shader with its
kind, the sizes of its payload / hit attributes / callable data (as D3D counts them: what the state
object's shader config and an engine's shader records need) and the resources it uses."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import pytest
from harness import tools

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

SCHEMA = json.loads(resources.files("shaderbuild.reflect").joinpath("manifest.schema.json").read_text())

LIB = """
struct [raypayload] Payload { float4 color; float3 normal; uint depth; };   // 16 + 12 + 4 bytes
struct Sphere { float t; half3 n; };                                         // 4 + 12 bytes (half is 32-bit)
struct Light { float3 l; };
RaytracingAccelerationStructure scene : register(t0);
RWTexture2D<float4> image : register(u2);
Texture2D<float4> albedo : register(t1);
SamplerState linear_clamp : register(s3);

[shader("raygeneration")]
void rg() {
    Payload p = (Payload)0;
    TraceRay(scene, 0, 0xff, 0, 1, 0, (RayDesc)0, p);
    image[DispatchRaysIndex().xy] = p.color;
}
[shader("closesthit")]
void ch(inout Payload p, BuiltInTriangleIntersectionAttributes a) {
    p.color = albedo.SampleLevel(linear_clamp, a.barycentrics, 0);
    Light l = { float3(0, 1, 0) };
    CallShader(0, l);
}
[shader("intersection")]
void isect() { Sphere s = { 1.0, half3(0, 0, 1) }; ReportHit(1.0, 0, s); }
[shader("anyhit")]
void ah(inout Payload p, Sphere s) { if (s.t > 2) AcceptHitAndEndSearch(); }
[shader("callable")]
void light(inout Light l) { l.l = normalize(l.l); }
"""


@pytest.mark.parametrize("target", ["spirv"])
def test_library_manifest(target):
    res = compile_file("lib.hlsl", CompileOptions(profile="lib_6_3", entry="", target=target, vk_target_env="vulkan1.2"), text=LIB)
    assert res.ok, [d.message for d in res.diagnostics]
    m = res.manifest
    jsonschema.validate(m, SCHEMA)
    assert "entry" not in m
    assert m["library"]["profile"] == "lib_6_3"
    assert m["library"]["shaders"] == [
        {"name": "rg", "kind": "raygeneration", "resources": ["scene", "image"]},
        {"name": "ch", "kind": "closesthit", "resources": ["albedo", "linear_clamp"],
         "payload_bytes": 32, "payload_type": "Payload",
         "attribute_bytes": 8, "attribute_type": "BuiltInTriangleIntersectionAttributes"},
        {"name": "isect", "kind": "intersection", "resources": []},
        {"name": "ah", "kind": "anyhit", "resources": [], "payload_bytes": 32, "payload_type": "Payload",
         "attribute_bytes": 16, "attribute_type": "Sphere"},
        {"name": "light", "kind": "callable", "resources": [], "callable_data_bytes": 12,
         "callable_data_type": "Light"},
    ]
    assert [r["name"] for r in m["resources"]] == ["scene", "image", "albedo", "linear_clamp"]
    assert all(r["used"] for r in m["resources"])
    accel = m["resources"][0]
    assert accel["hlsl"]["class"] == "t" and accel["vulkan"]["descriptor_type"] == "acceleration_structure"


def test_minus_e_keeps_one_shader_in_the_manifest():
    res = compile_file("lib.hlsl", CompileOptions(profile="lib_6_3", entry="ch", target="spirv", vk_target_env="vulkan1.2"), text=LIB)
    assert res.ok
    assert [s["name"] for s in res.manifest["library"]["shaders"]] == ["ch"]
    assert {r["name"]: r["used"] for r in res.manifest["resources"]} == {
        "scene": False, "image": False, "albedo": True, "linear_clamp": True}


def test_library_using_the_descriptor_heap():
    src = """
struct Payload { float4 color; };
[shader("miss")]
void ms(inout Payload p) {
    Texture2D<float4> t = ResourceDescriptorHeap[3];
    p.color = t.Load(int3(0, 0, 0));
}
"""
    res = compile_file("heap.hlsl", CompileOptions(profile="lib_6_6", entry="", target="spirv",
                                                   vk_target_env="vulkan1.2"), text=src)
    assert res.ok, [d.message for d in res.diagnostics]
    jsonschema.validate(res.manifest, SCHEMA)
    assert [h["heap"] for h in res.manifest["descriptor_heaps"]] == ["resource"]
    tools.spirv_val(res.binary, "vulkan1.2")


def test_global_root_signature_derived_from_a_library():
    """`shaderbuild rootsig lib.json`: one table per space, visible to ALL (what ray-tracing shaders
    see of a global root signature), samplers in a table of their own."""
    from shaderbuild.rootsig.derive import Shader, derive, from_module
    from shaderbuild.rootsig.printer import to_string

    res = compile_file("lib.hlsl", CompileOptions(profile="lib_6_3", entry="", target="spirv",
                                                  vk_target_env="vulkan1.2"), text=LIB, keep_module=True)
    assert res.ok
    want = "DescriptorTable(SRV(t0, numDescriptors = 2), UAV(u2)), DescriptorTable(Sampler(s3))"
    assert to_string(derive([Shader.from_manifest(res.manifest)]), compact=True) == want
    assert to_string(derive([from_module(res.module)]), compact=True) == want


def test_api_manifest_of_a_library():
    from shaderbuild.api import Manifest

    res = compile_file("lib.hlsl", CompileOptions(profile="lib_6_3", entry="", target="spirv",
                                                  vk_target_env="vulkan1.2"), text=LIB)
    m = Manifest(res.manifest)
    assert (m.stage, m.entry, m.numthreads) == ("library", "", None)
    assert [(s["name"], s["kind"]) for s in m.shaders] == [
        ("rg", "raygeneration"), ("ch", "closesthit"), ("isect", "intersection"), ("ah", "anyhit"),
        ("light", "callable")]
    assert m.resource("scene").name == "scene"
