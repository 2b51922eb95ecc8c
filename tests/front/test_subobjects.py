"""DXR state-object subobjects (issue 18): global variables with a brace initializer, checked
against their fields with located diagnostics, and recorded in the manifest."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import pytest
import res_util as R

SCHEMA = json.loads(resources.files("shaderbuild.reflect").joinpath("manifest.schema.json").read_text())
PROFILE = "cs_6_5"      # subobjects are accepted in every profile; only a library's DXIL encodes them

SUBOBJECTS = """\
TriangleHitGroup hg = { "", "CH" };
ProceduralPrimitiveHitGroup phg = { "AH", "CH2", "IS" };
RaytracingShaderConfig cfg = { 16, 8 };
RaytracingPipelineConfig pc0 = { 3 };
RaytracingPipelineConfig1 pc = { 2, RAYTRACING_PIPELINE_FLAG_SKIP_PROCEDURAL_PRIMITIVES };
StateObjectConfig soc = { STATE_OBJECT_FLAG_ALLOW_STATE_OBJECT_ADDITIONS | STATE_OBJECT_FLAGS_ALLOW_LOCAL_DEPENDENCIES_ON_EXTERNAL_DEFINITONS };
GlobalRootSignature grs = { "CBV(b0)" };
LocalRootSignature lrs = { "RootConstants(num32BitConstants=4, b1)" };
SubobjectToExportsAssociation assoc = { "lrs", "hg;;main;" };
"""
BODY = """\
RWBuffer<float> o;
[numthreads(1, 1, 1)] void main() { o[0] = 1; }
"""


def test_subobjects_in_manifest():
    res = R.compile_hlsl(SUBOBJECTS + BODY, "main", PROFILE, "spirv")
    assert res.ok, R.diagnostics_text(res)
    jsonschema.validate(res.manifest, SCHEMA)
    got = {o["name"]: o for o in res.manifest["subobjects"]}
    assert [o["name"] for o in res.manifest["subobjects"]] == ["hg", "phg", "cfg", "pc0", "pc", "soc", "grs", "lrs",
                                                              "assoc"]
    assert got["hg"] == {"name": "hg", "kind": "TriangleHitGroup", "d3d12_type": 11, "hit_group_type": "triangles",
                         "any_hit": None, "closest_hit": "CH", "intersection": None}
    assert got["phg"] == {"name": "phg", "kind": "ProceduralPrimitiveHitGroup", "d3d12_type": 11,
                          "hit_group_type": "procedural_primitive", "any_hit": "AH", "closest_hit": "CH2",
                          "intersection": "IS"}
    assert got["cfg"] == {"name": "cfg", "kind": "RaytracingShaderConfig", "d3d12_type": 9,
                          "max_payload_size": 16, "max_attribute_size": 8}
    assert got["pc0"] == {"name": "pc0", "kind": "RaytracingPipelineConfig", "d3d12_type": 10,
                          "max_trace_recursion_depth": 3, "flags": []}
    assert got["pc"] == {"name": "pc", "kind": "RaytracingPipelineConfig1", "d3d12_type": 12,
                         "max_trace_recursion_depth": 2, "flags": ["SKIP_PROCEDURAL_PRIMITIVES"]}
    assert got["soc"]["flags"] == ["ALLOW_LOCAL_DEPENDENCIES_ON_EXTERNAL_DEFINITIONS", "ALLOW_STATE_OBJECT_ADDITIONS"]
    assert got["assoc"] == {"name": "assoc", "kind": "SubobjectToExportsAssociation", "d3d12_type": 8,
                            "subobject": "lrs", "exports": ["hg", "main"]}
    assert got["grs"]["root_signature"]["flags"] == []
    assert [p["type"] for p in got["grs"]["root_signature"]["parameters"]] == ["CBV"]
    assert got["lrs"]["root_signature"]["flags"] == ["LOCAL_ROOT_SIGNATURE"]
    assert got["lrs"]["root_signature"]["parameters"][0]["num_32bit_values"] == 4


def test_no_subobjects_no_key():
    res = R.compile_hlsl(BODY, "main", PROFILE, "spirv")
    assert res.ok, R.diagnostics_text(res)
    assert "subobjects" not in res.manifest


ERRORS = [
    ('TriangleHitGroup hg = { "CH" };', "1:23: 'TriangleHitGroup' has 2 fields (AnyHit, ClosestHit); the initializer gives 1"),
    ('RaytracingShaderConfig c = { 16, 8, 4 };', "1:37: 'RaytracingShaderConfig' has 2 fields (MaxPayloadSizeInBytes, "
     "MaxAttributeSizeInBytes); the initializer gives 3"),
    ('RaytracingShaderConfig c = { "16", 8 };', "1:30: field 'MaxPayloadSizeInBytes' of 'RaytracingShaderConfig' is a "
     "uint: expected an integer constant"),
    ('TriangleHitGroup hg = { 0, "CH" };', "1:25: field 'AnyHit' of 'TriangleHitGroup' is a string: expected a string "
     "literal"),
    ('TriangleHitGroup hg;', "1:18: subobject 'hg' of type 'TriangleHitGroup' needs to be initialized"),
    ('TriangleHitGroup hg[2] = { "", "CH" };', "1:18: arrays of subobjects are not allowed ('hg' of type "
     "'TriangleHitGroup')"),
    ('RaytracingPipelineConfig p = 1;', "1:30: subobject 'p' of type 'RaytracingPipelineConfig' is initialized with an "
     "initializer list { MaxTraceRecursionDepth }"),
    ('RaytracingPipelineConfig p = { 32 };', "1:32: MaxTraceRecursionDepth 32 exceeds the D3D12 limit of 31"),
    ('RaytracingPipelineConfig1 p = { 1, 0x400 };', "1:36: invalid ray-tracing pipeline flags 0x400 (valid: 0x300)"),
    ('StateObjectConfig s = { 8 };', "1:25: invalid state object flags 0x8 (valid: 0x7)"),
    ('ProceduralPrimitiveHitGroup g = { "", "CH", "" };', "1:46: field 'Intersection' of "
     "'ProceduralPrimitiveHitGroup' must not be empty"),
    ('SubobjectToExportsAssociation a = { "", "x" };', "1:38: field 'Subobject' of 'SubobjectToExportsAssociation' "
     "must not be empty"),
    ('SubobjectToExportsAssociation a = { "s", ";;" };', "1:43: the export list names no export (exports are "
     "separated by ';')"),
    ('GlobalRootSignature g = { "CBV(b0), Bogus" };', "1:37: root signature: expected RootFlags, RootConstants, CBV, SRV, UAV, "
     "DescriptorTable or StaticSampler, found 'Bogus'"),
    ('GlobalRootSignature g = { "RootFlags(LOCAL_ROOT_SIGNATURE)" };', "1:28: global root signature 'g' has the "
     "LOCAL_ROOT_SIGNATURE flag"),
    ('TriangleHitGroup hg = { "", "CH" };\nTriangleHitGroup hg = { "", "CH2" };', "2:18: redefinition of 'hg'"),
    ('TriangleHitGroup hg = { "", "CH" };\nstatic const uint x = hg;', "2:23: 'hg' is a state-object subobject, "
     "not a variable"),
    ('TriangleHitGroup f() { TriangleHitGroup h = { "", "" }; return h; }', "1:1: 'TriangleHitGroup' is a state-object "
     "subobject: it can only be the type of a global variable with an initializer list"),
]


@pytest.mark.parametrize("decl,want", ERRORS, ids=[w.split(": ", 1)[1][:50] for _, w in ERRORS])
def test_subobject_errors(decl, want):
    res = R.compile_hlsl(decl + "\n" + BODY, "main", PROFILE, "spirv")
    assert not res.ok
    assert R.errors(res) == [want]


def test_pipeline_config1_needs_sm65():
    res = R.compile_hlsl("RaytracingPipelineConfig1 p = { 1, 0 };\n" + BODY, "main", "cs_6_4", "spirv")
    assert R.errors(res) == ["1:27: 'RaytracingPipelineConfig1' requires shader model 6.5 or higher"]


LIBRARY = """\
struct Payload { float4 color; };
[shader("miss")] void miss(inout Payload p) { p.color = 0; }
[shader("closesthit")] void hit(inout Payload p, BuiltInTriangleIntersectionAttributes a) { p.color = 1; }
"""


def _warnings(res) -> list[str]:
    return [f"{d.loc.line}:{d.loc.col}: {d.message}" for d in res.diagnostics if d.severity == "warning"]


def test_hit_group_shader_of_the_wrong_kind_is_an_error():
    res = R.compile_hlsl(LIBRARY + 'TriangleHitGroup hg = { "", "miss" };\n', "main", "lib_6_3", "spirv", env="vulkan1.2")
    assert R.errors(res) == ["4:30: hit group 'hg': ClosestHit shader 'miss' is a miss shader, not a closesthit "
                             "shader"]


def test_names_from_other_libraries_are_warnings():
    """A state object may combine libraries: a name this one does not define is not an error."""
    src = LIBRARY + ('TriangleHitGroup hg = { "elsewhere", "hit" };\n'
                     'SubobjectToExportsAssociation a = { "cfg", "hg;miss;nothere" };\n')
    res = R.compile_hlsl(src, "main", "lib_6_3", "spirv", env="vulkan1.2")
    assert res.ok, R.diagnostics_text(res)
    jsonschema.validate(res.manifest, SCHEMA)
    assert _warnings(res) == [
        "4:26: hit group 'hg': AnyHit shader 'elsewhere' is not defined in this library",
        "5:38: association 'a': subobject 'cfg' is not declared in this library",
        "5:45: association 'a': export 'nothere' is not defined in this library"]
    assert [o["name"] for o in res.manifest["subobjects"]] == ["hg", "a"]


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_library_manifest_records_subobjects_on_both_targets(target):
    src = LIBRARY + 'TriangleHitGroup hg = { "", "hit" };\nRaytracingShaderConfig c = { 16, 8 };\n'
    res = R.compile_hlsl(src, "main", "lib_6_3", target, env="vulkan1.2")
    assert res.ok, R.diagnostics_text(res)
    jsonschema.validate(res.manifest, SCHEMA)
    assert res.manifest["subobjects"] == [
        {"name": "hg", "kind": "TriangleHitGroup", "d3d12_type": 11, "hit_group_type": "triangles", "any_hit": None,
         "closest_hit": "hit", "intersection": None},
        {"name": "c", "kind": "RaytracingShaderConfig", "d3d12_type": 9, "max_payload_size": 16,
         "max_attribute_size": 8}]


def test_payload_larger_than_the_shader_config_is_a_warning():
    """The only RaytracingShaderConfig, associated with no export, applies to every shader: Payload is a
    float4 (16 bytes), the built-in attributes a float2 (8 bytes)."""
    res = R.compile_hlsl(LIBRARY + "RaytracingShaderConfig c = { 12, 4 };\n", "main", "lib_6_3", "spirv",
                         env="vulkan1.2")
    assert res.ok, R.diagnostics_text(res)
    assert _warnings(res) == [
        "4:30: shader config 'c': MaxPayloadSizeInBytes is 12, but the payload of 'miss' ('Payload') is 16 bytes",
        "4:30: shader config 'c': MaxPayloadSizeInBytes is 12, but the payload of 'hit' ('Payload') is 16 bytes",
        "4:34: shader config 'c': MaxAttributeSizeInBytes is 4, but the attributes of 'hit' "
        "('BuiltInTriangleIntersectionAttributes') is 8 bytes"]
    fits = R.compile_hlsl(LIBRARY + "RaytracingShaderConfig c = { 16, 8 };\n", "main", "lib_6_3", "spirv",
                          env="vulkan1.2")
    assert fits.ok and _warnings(fits) == []
    narrowed = R.compile_hlsl(LIBRARY + 'RaytracingShaderConfig c = { 12, 4 };\n'
                              'SubobjectToExportsAssociation a = { "c", "miss" };\n', "main", "lib_6_3", "spirv",
                              env="vulkan1.2")
    assert narrowed.ok and _warnings(narrowed) == []
