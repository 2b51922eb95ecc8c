"""Hull and domain shaders with an error get a located diagnostic naming the rule (issue 17)."""

from __future__ import annotations

import pytest
import res_util as R
from harness import tools

HS = """
struct CP { float4 pos : POSITION0; };
struct PC { float edges[3] : SV_TessFactor; float inside : SV_InsideTessFactor; };
PC constants(InputPatch<CP, 3> patch) { PC o = (PC)0; return o; }
[domain("tri")] [partitioning("integer")] [outputtopology("triangle_cw")]
[outputcontrolpoints(3)] [patchconstantfunc("constants")]
CP main(InputPatch<CP, 3> patch, uint i : SV_OutputControlPointID) { return patch[i]; }
"""
CP_WRITES_TESS = ("CP main(InputPatch<CP, 3> patch, uint i : SV_OutputControlPointID, "
                  "out float f[3] : SV_TessFactor) { f = (float[3])0; return patch[i]; }")

HS_CASES = [
    # (edit of HS, expected "line:col: message")
    (('patchconstantfunc("constants")', 'patchconstantfunc("nothere")'),
     "6:45: patch-constant function 'nothere' named by [patchconstantfunc] is not defined"),
    (("float edges[3]", "float edges[4]"),
     "3:19: 'SV_TessFactor' with [domain(\"tri\")] must be declared 'float[3]', not 'float[4]'"),   # the member
    (("float inside :", "float2 inside :"),
     "3:52: 'SV_InsideTessFactor' with [domain(\"tri\")] must be declared 'float', not 'float2'"),
    (('[domain("tri")] ', ""),
     "7:4: hull shader entry point 'main' requires the [domain(\"tri\"|\"quad\"|\"isoline\")] attribute"),
    (('domain("tri")', 'domain("hexagon")'),
     "5:9: invalid [domain(\"hexagon\")]: expected one of 'tri', 'quad', 'isoline'"),
    (('partitioning("integer")', 'partitioning("even")'),
     "5:31: invalid [partitioning(\"even\")]: expected one of 'integer', 'fractional_even', 'fractional_odd', "
     "'pow2'"),
    (('[partitioning("integer")] ', ""),
     "7:4: hull shader entry point 'main' requires the [partitioning(...)] attribute (how the tessellator "
     "splits edges)"),
    (('[outputtopology("triangle_cw")]', ""),
     "7:4: hull shader entry point 'main' requires the [outputtopology(...)] attribute (the primitives the "
     "tessellator makes)"),
    (('outputtopology("triangle_cw")', 'outputtopology("line")'),
     "5:44: [outputtopology(\"line\")] does not fit [domain(\"tri\")]"),
    (("[outputcontrolpoints(3)] ", ""),
     "7:4: hull shader entry point 'main' requires the [outputcontrolpoints(...)] attribute (the number of "
     "control points the hull shader writes)"),
    (("outputcontrolpoints(3)", "outputcontrolpoints(33)"),
     "6:22: [outputcontrolpoints] must be between 1 and 32, not 33"),
    (('[patchconstantfunc("constants")]', ""),
     "7:4: hull shader entry point 'main' requires the [patchconstantfunc(...)] attribute (the function that "
     "computes the tessellation factors)"),
    (("[outputcontrolpoints(3)]", "[outputcontrolpoints(3)] [maxtessfactor(65.0)]"),
     "6:41: [maxtessfactor] must be between 1.0 and 64, not 65"),
    ((HS.strip().splitlines()[-1], CP_WRITES_TESS),
     "7:78: 'SV_TessFactor' is a patch constant: the patch-constant function writes it, not the control-point "
     "function"),
    (("InputPatch<CP, 3> patch, uint i", "OutputPatch<CP, 3> patch, uint i"),
     "7:28: 'OutputPatch' is not a valid hull shader entry parameter (hull shaders take an InputPatch, domain "
     "shaders an OutputPatch)"),
]


@pytest.mark.parametrize("edit,want", HS_CASES, ids=[w.split(": ", 1)[1][:40] for _, w in HS_CASES])
def test_hull_shader_errors(edit, want):
    src = HS.replace(*edit)
    assert src != HS
    res = R.compile_hlsl(src, "main", "hs_6_0", "spirv")
    assert not res.ok
    assert R.errors(res) == [want]


DS = """
struct CP { float4 pos : POSITION0; };
struct PC { float edges[2] : SV_TessFactor; float inside : SV_InsideTessFactor; };
DOMAIN
float4 main(PC pc, float2 uv : SV_DomainLocation, const OutputPatch<CP, 4> p) : SV_Position { return p[0].pos; }
"""


@pytest.mark.parametrize("domain,want", [
    ("", "5:8: domain shader entry point 'main' requires the [domain(\"tri\"|\"quad\"|\"isoline\")] attribute"),
    ('[domain("isoline")]', "3:51: 'SV_InsideTessFactor' is not allowed with [domain(\"isoline\")]"),
    ('[domain("quad")]', "3:19: 'SV_TessFactor' with [domain(\"quad\")] must be declared 'float[4]', not 'float[2]'"),
])
def test_domain_shader_errors(domain, want):
    res = R.compile_hlsl(DS.replace("DOMAIN", domain), "main", "ds_6_0", "spirv")
    assert not res.ok
    assert R.errors(res) == [want]


def test_domain_shader_isoline_compiles():
    src = DS.replace("DOMAIN", '[domain("isoline")]').replace(" float inside : SV_InsideTessFactor;", "")
    res = R.compile_hlsl(src, "main", "ds_6_0", "spirv")
    assert res.ok, R.diagnostics_text(res)
    tools.spirv_val(res.binary, "vulkan1.1")


def test_manifest_tessellation_facts():
    """The manifest carries what a pipeline needs: domain, partitioning, topology, patch sizes,
    max tess factor, the patch-constant function; patch constants and control-point I/O marked."""
    import json
    from importlib import resources

    import jsonschema

    schema = json.loads(resources.files("shaderbuild.reflect").joinpath("manifest.schema.json").read_text())
    src = HS.replace("[outputcontrolpoints(3)]", "[outputcontrolpoints(4)] [maxtessfactor(12.5)]").replace(
        "return patch[i];", "return patch[i % 3];")
    res = R.compile_hlsl(src, "main", "hs_6_0", "spirv")
    assert res.ok, R.diagnostics_text(res)
    jsonschema.validate(res.manifest, schema)
    entry = res.manifest["entry"]
    assert entry["stage"] == "hull"
    assert entry["tessellation"] == {"domain": "tri", "partitioning": "integer", "output_topology": "triangle_cw",
                                     "input_control_points": 3, "output_control_points": 4, "max_tess_factor": 12.5,
                                     "patch_constant_function": "constants"}
    outs = {o["semantic"]: o for o in entry["outputs"]}
    assert outs["POSITION"] == {"semantic": "POSITION", "index": 0, "type": "float4", "location": 0, "mask": "xyzw",
                                "interpolation": "linear", "control_points": 4}
    assert outs["SV_TessFactor"] == {"semantic": "SV_TessFactor", "index": 0, "type": "float[4]",
                                     "builtin": "TessLevelOuter", "patch": True}
    ins = {i["semantic"]: i for i in entry["inputs"]}
    assert ins["POSITION"]["control_points"] == 3
    ds = R.compile_hlsl(DS.replace("DOMAIN", '[domain("isoline")]').replace(" float inside : SV_InsideTessFactor;",
                                                                           ""), "main", "ds_6_0", "spirv")
    jsonschema.validate(ds.manifest, schema)
    assert ds.manifest["entry"]["tessellation"] == {"domain": "isoline", "input_control_points": 4}


def test_pow2_partitioning_is_refused_for_spirv_only():
    src = HS.replace('partitioning("integer")', 'partitioning("pow2")')
    res = R.compile_hlsl(src, "main", "hs_6_0", "spirv")
    assert R.errors(res) == ["7:4: [partitioning(\"pow2\")] has no SPIR-V equivalent: Vulkan tessellates with "
                             "integer or fractional spacing only"]
    dxil = R.compile_hlsl(src, "main", "hs_6_0", "dxil")
    assert dxil.ok, R.diagnostics_text(dxil)
    # HS state: 3 in / 3 out control points, Tri (2), Pow2 (2), TriangleCW (3), the default max tess factor 64
    assert "@constants.patch, i32 3, i32 3, i32 2, i32 2, i32 3, float 6.400000e+01}" in dxil.disassembly
