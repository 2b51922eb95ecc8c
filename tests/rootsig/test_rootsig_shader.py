"""Root signatures on shaders: [RootSignature] and -rootsig-define put an RTS0 part in the DXIL container,
-T rootsig_1_x compiles a #define'd string to a standalone blob, the CLI's -Frs / -extractrootsignature /
-Qstrip_rootsignature, the manifest's root_signature object, and DXC's validation with exact diagnostics
located inside the attribute's string."""

from __future__ import annotations

import json
import struct
import subprocess
from importlib import resources

import jsonschema
import pytest
from harness.dxil_tools import container_parts as _parts
from harness.rts0 import read_rts0

from shaderbuild.cli import main as cli_main
from shaderbuild.compiler import compile_file
from shaderbuild.diagnostics import render_all
from shaderbuild.options import CompileOptions

SCHEMA = json.loads(resources.files("shaderbuild.reflect").joinpath("manifest.schema.json").read_text())


def _compile(src: str, profile: str = "cs_6_0", target: str = "dxil", **kw):
    opts = CompileOptions(entry=kw.pop("entry", "main"), profile=profile, target=target, **kw)
    return compile_file("rs.hlsl", opts, text=src)


def _errors(res) -> str:
    assert not res.ok
    return render_all(res.diagnostics, res.sources, "gnu")


CS = """\
Texture2D<float4> tex : register(t0);
RWStructuredBuffer<float4> outbuf : register(u0);
cbuffer Params : register(b0) { float4 scale; };
SamplerState samp : register(s0);
[RootSignature("RootConstants(num32BitConstants=4, b0), DescriptorTable(SRV(t0), UAV(u0)), StaticSampler(s0)")]
[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { outbuf[id.x] = tex.SampleLevel(samp, float2(0, 0), 0) * scale; }
"""


def test_attribute_puts_rts0_in_the_container():
    res = _compile(CS)
    assert res.ok, _errors(res)
    parts = _parts(res.binary)
    assert list(parts) == ["SFI0", "ISG1", "OSG1", "PSV0", "RTS0", "HASH", "DXIL"]     # DXC's order
    rs = read_rts0(parts["RTS0"])
    assert rs["Version"] == 2
    assert [p["ParameterType"] for p in rs["Parameters"]] == [1, 0]
    assert rs["Parameters"][0]["Constants"] == {"ShaderRegister": 0, "RegisterSpace": 0, "Num32BitValues": 4}
    assert [(r["RangeType"], r["BaseShaderRegister"], r["Flags"]) for r in rs["Parameters"][1]["DescriptorRanges"]] \
        == [(0, 0, 0), (1, 0, 0)]                    # flags not written: NONE, as DXC writes them
    assert rs["StaticSamplers"][0]["ShaderRegister"] == 0
    # the standalone blob holds the same bytes
    assert _parts(res.root_signature) == {"RTS0": parts["RTS0"]}
    m = res.manifest["root_signature"]
    jsonschema.validate(res.manifest, SCHEMA)
    assert m["version"] == "1.1"
    assert m["parameters"][0] == {"type": "RootConstants", "visibility": "ALL", "register": 0, "space": 0,
                                  "num_32bit_values": 4}
    assert m["parameters"][1]["ranges"][1] == {"type": "UAV", "register": 0, "space": 0, "count": 1,
                                               "offset": "append", "flags": [],
                                               "effective_flags": ["DATA_VOLATILE"]}
    assert m["static_samplers"][0]["filter"] == "ANISOTROPIC"


def test_without_a_root_signature_there_is_no_part():
    res = _compile(CS.replace('[RootSignature("', '[Unknown("'))
    assert res.ok and "RTS0" not in _parts(res.binary) and res.root_signature is None
    assert "root_signature" not in res.manifest


def test_strip_root_signature_drops_only_the_part():
    kept, stripped = _compile(CS), _compile(CS, strip_root_signature=True)
    assert "RTS0" not in _parts(stripped.binary)
    assert _parts(stripped.binary)["DXIL"] == _parts(kept.binary)["DXIL"]
    assert stripped.manifest["root_signature"] == kept.manifest["root_signature"]


def test_forced_version_1_0_serializes_version_1():
    res = _compile(CS, rootsig_version="1.0")
    rs = read_rts0(_parts(res.binary)["RTS0"])
    assert rs["Version"] == 1 and "Flags" not in rs["Parameters"][1]["DescriptorRanges"][0]


def test_rootsig_define_wins_over_the_attribute():
    src = '#define MyRS "DescriptorTable(SRV(t0), UAV(u0), CBV(b0)), StaticSampler(s0, space=0)"\n' + CS
    res = _compile(src, rootsig_define="MyRS")
    assert res.ok, _errors(res)
    rs = read_rts0(_parts(res.binary)["RTS0"])
    assert [r["RangeType"] for r in rs["Parameters"][0]["DescriptorRanges"]] == [0, 1, 2]


@pytest.mark.parametrize("version,code", [("1_0", 1), ("1_1", 2)])
def test_rootsig_profile_writes_a_standalone_blob(version, code):
    src = '#define RS1 "RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT), " \\\n    "CBV(b0), DescriptorTable(SRV(t0, numDescriptors=unbounded))"\n'
    res = compile_file("rs.hlsl", CompileOptions(entry="RS1", profile=f"rootsig_{version}", target="dxil"), text=src)
    assert res.ok, _errors(res)
    blob = res.binary
    # DXBC header: no digest, version 1.0, one part at offset 36
    assert struct.unpack_from("<4s16sHHII", blob, 0) == (b"DXBC", b"\0" * 16, 1, 0, len(blob), 1)
    assert struct.unpack_from("<I", blob, 32) == (36,)
    rs = read_rts0(_parts(blob)["RTS0"])
    assert rs["Version"] == code and rs["Flags"] == 1
    assert rs["Parameters"][1]["DescriptorRanges"][0]["NumDescriptors"] == 0xFFFFFFFF
    jsonschema.validate(res.manifest, SCHEMA)


def test_rootsig_profile_undefined_macro():
    res = compile_file("rs.hlsl", CompileOptions(entry="Nope", profile="rootsig_1_1"), text="")
    assert _errors(res) == "error: root signature macro 'Nope' is not defined"


@pytest.mark.spirv_tools
def test_spirv_build_carries_the_root_signature_in_the_manifest():
    from shaderbuild.options import BindingShift

    res = _compile(CS, target="spirv", binding_shifts=[BindingShift("t", 4, None), BindingShift("u", 8, None),
                                                             BindingShift("s", 16, None)])
    assert res.ok, _errors(res)
    jsonschema.validate(res.manifest, SCHEMA)
    vk = res.manifest["root_signature"]["vulkan"]
    bound = {b["resource"]: (s["set"], b["binding"], b["descriptor_type"]) for s in vk["set_layouts"]
             for b in s["bindings"]}
    assert bound == {r["name"]: (r["vulkan"]["set"], r["vulkan"]["binding"], r["vulkan"]["descriptor_type"])
                     for r in res.manifest["resources"]}
    from harness import tools

    tools.spirv_val(res.binary)


def test_vulkan_view_has_push_constant_ranges():
    src = """\
struct PC { float4 a; float b; };
[[vk::push_constant]] PC pc;
RWStructuredBuffer<float4> outbuf : register(u0);
[RootSignature("RootConstants(num32BitConstants=5, b0), UAV(u0)")]
[numthreads(1, 1, 1)] void main() { outbuf[0] = pc.a * pc.b; }
"""
    res = _compile(src, target="spirv")
    assert res.ok, _errors(res)
    assert res.manifest["root_signature"]["vulkan"]["push_constant_ranges"] == [
        {"offset": 0, "size": 20, "stages": ["compute"], "block": "pc"}]


# ------------------------------------------------------------------ validation, exact diagnostics

def _vs(rs: str, decls: str = "Texture2D<float4> tex : register(t1);\n", body: str = "tex.Load(int3(0, 0, 0))") -> str:
    return (f"{decls}[RootSignature({rs})]\n"
            f"float4 main() : SV_Position {{ return {body}; }}\n")


DIAGNOSTICS = [
    ("not-bound",
     _vs('"DescriptorTable(SRV(t0))"'),
     """\
rs.hlsl:2:17: error: root signature: resource 'tex' (t1, space 0) used by the vertex shader is not bound by the root signature (no SRV range for it with visibility ALL or VERTEX)
[RootSignature("DescriptorTable(SRV(t0))")]
                ^
rs.hlsl:1:19: note: 'tex' is declared here
Texture2D<float4> tex : register(t1);
                  ^"""),
    ("wrong-visibility",
     _vs('"DescriptorTable(SRV(t0, numDescriptors=4), visibility=SHADER_VISIBILITY_PIXEL)"'),
     """\
rs.hlsl:2:17: error: root signature: resource 'tex' (t1, space 0) used by the vertex shader is not bound by the root signature (no SRV range for it with visibility ALL or VERTEX)
[RootSignature("DescriptorTable(SRV(t0, numDescriptors=4), visibility=SHADER_VISIBILITY_PIXEL)")]
                ^
rs.hlsl:1:19: note: 'tex' is declared here
Texture2D<float4> tex : register(t1);
                  ^"""),
    ("wrong-space",
     _vs('"DescriptorTable(SRV(t0, numDescriptors=4, space=1))"'),
     """\
rs.hlsl:2:17: error: root signature: resource 'tex' (t1, space 0) used by the vertex shader is not bound by the root signature (no SRV range for it with visibility ALL or VERTEX)
[RootSignature("DescriptorTable(SRV(t0, numDescriptors=4, space=1))")]
                ^
rs.hlsl:1:19: note: 'tex' is declared here
Texture2D<float4> tex : register(t1);
                  ^"""),
    ("wrong-type",
     _vs('"DescriptorTable(UAV(u0, numDescriptors=4))"'),
     """\
rs.hlsl:2:17: error: root signature: resource 'tex' (t1, space 0) used by the vertex shader is not bound by the root signature (no SRV range for it with visibility ALL or VERTEX)
[RootSignature("DescriptorTable(UAV(u0, numDescriptors=4))")]
                ^
rs.hlsl:1:19: note: 'tex' is declared here
Texture2D<float4> tex : register(t1);
                  ^"""),
    ("array-partly-covered",
     _vs('"DescriptorTable(SRV(t0, numDescriptors=2))"', "Texture2D<float4> texs[4] : register(t0);\n",
         "texs[3].Load(int3(0, 0, 0))"),
     """\
rs.hlsl:2:17: error: root signature: resource 'texs' (t0-t3, space 0) used by the vertex shader is not bound by the root signature (no SRV range for it with visibility ALL or VERTEX)
[RootSignature("DescriptorTable(SRV(t0, numDescriptors=2))")]
                ^
rs.hlsl:1:19: note: 'texs' is declared here
Texture2D<float4> texs[4] : register(t0);
                  ^"""),
    ("root-srv-texture",
     _vs('"CBV(b0), SRV(t1)"'),
     """\
rs.hlsl:2:26: error: root signature: root SRV descriptor binds 'tex', a Texture2D; root SRV/UAV descriptors can only bind raw or structured buffers without a counter (use a descriptor table)
[RootSignature("CBV(b0), SRV(t1)")]
                         ^
rs.hlsl:1:19: note: 'tex' is declared here
Texture2D<float4> tex : register(t1);
                  ^"""),
    ("deny-flag",
     _vs('"RootFlags(DENY_VERTEX_SHADER_ROOT_ACCESS), DescriptorTable(SRV(t0, numDescriptors=4))"'),
     """\
rs.hlsl:2:17: error: root signature: the vertex shader binds resources but RootFlags has DENY_VERTEX_SHADER_ROOT_ACCESS
[RootSignature("RootFlags(DENY_VERTEX_SHADER_ROOT_ACCESS), DescriptorTable(SRV(t0, numDescriptors=4))")]
                ^"""),
    ("overlap",
     _vs('"DescriptorTable(SRV(t0, numDescriptors=4)), SRV(t2, visibility=SHADER_VISIBILITY_VERTEX)"'),
     """\
rs.hlsl:2:61: error: root signature: root SRV t2 in space 0 (visibility VERTEX) overlaps another t register range
[RootSignature("DescriptorTable(SRV(t0, numDescriptors=4)), SRV(t2, visibility=SHADER_VISIBILITY_VERTEX)")]
                                                            ^
rs.hlsl:2:33: note: overlapping SRV range t0-t3 (visibility ALL) is here
[RootSignature("DescriptorTable(SRV(t0, numDescriptors=4)), SRV(t2, visibility=SHADER_VISIBILITY_VERTEX)")]
                                ^"""),
    ("malformed",
     _vs('"DescriptorTable(SRV(t0, numDescriptors=4), SRV(t5, numDescriptors=many))"'),
     """\
rs.hlsl:2:83: error: root signature: expected an unsigned integer for numDescriptors, found 'many'
[RootSignature("DescriptorTable(SRV(t0, numDescriptors=4), SRV(t5, numDescriptors=many))")]
                                                                                  ^"""),
    ("malformed-second-literal",
     _vs('"DescriptorTable(SRV(t0)), "\n               "CBV(b0, space = x)"'),
     """\
rs.hlsl:3:33: error: root signature: expected an unsigned integer for space, found 'x'
               "CBV(b0, space = x)")]
                                ^"""),
    ("malformed-in-macro",
     '#define RS \\\n  "SRV(t1), " \\\n  "Sampler(s0)"\n' + _vs("RS"),
     """\
rs.hlsl:3:4: error: root signature: expected RootFlags, RootConstants, CBV, SRV, UAV, DescriptorTable or StaticSampler, found 'Sampler'
  "Sampler(s0)"
   ^"""),
    ("flags-at-1-0",
     _vs('"DescriptorTable(SRV(t1, flags=DATA_STATIC))"'),
     """\
rs.hlsl:2:41: error: root signature: flags are not allowed in root signature version 1.0
[RootSignature("DescriptorTable(SRV(t1, flags=DATA_STATIC))")]
                                        ^"""),
    ("local-flag",
     _vs('"DescriptorTable(SRV(t1)), RootFlags(LOCAL_ROOT_SIGNATURE)"'),
     """\
rs.hlsl:2:43: error: root signature: LOCAL_ROOT_SIGNATURE flag used in a shader's (global) root signature
[RootSignature("DescriptorTable(SRV(t1)), RootFlags(LOCAL_ROOT_SIGNATURE)")]
                                          ^"""),
    ("not-a-string", _vs("42"), """\
rs.hlsl:2:16: error: the RootSignature attribute takes a string literal
[RootSignature(42)]
               ^"""),
]


@pytest.mark.parametrize("name,src,expected", DIAGNOSTICS, ids=[d[0] for d in DIAGNOSTICS])
def test_validation_diagnostics(name, src, expected):
    version = "1.0" if name == "flags-at-1-0" else "1.1"
    res = _compile(src, profile="vs_6_0", rootsig_version=version)
    assert _errors(res) == expected


def test_root_uav_cannot_bind_a_buffer_with_a_counter():
    src = ('AppendStructuredBuffer<float4> app : register(u0);\n[RootSignature("UAV(u0)")]\n'
           "[numthreads(1, 1, 1)] void main() { app.Append(float4(1, 2, 3, 4)); }\n")
    assert _errors(_compile(src)).splitlines()[0] == (
        "rs.hlsl:2:17: error: root signature: root UAV descriptor binds 'app', a AppendStructuredBuffer; root SRV/UAV "
        "descriptors can only bind raw or structured buffers without a counter (use a descriptor table)")


def test_unbounded_array_needs_only_its_first_register_bound():
    """DXC's validator checks an unbounded resource array's first register only."""
    src = ('Texture2D<float4> texs[] : register(t2);\nRWStructuredBuffer<float4> o : register(u0);\n'
           '[RootSignature("DescriptorTable(SRV(t2, numDescriptors=8), UAV(u0))")]\n'
           "[numthreads(1, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { o[0] = texs[id.x].Load(int3(0, 0, 0)); }\n")
    res = _compile(src)
    assert res.ok, _errors(res)
    missing = _compile(src.replace("SRV(t2, numDescriptors=8)", "SRV(t3, numDescriptors=8)"))
    assert "resource 'texs' (t2-unbounded, space 0) used by the compute shader is not bound" in _errors(missing)


def test_root_constants_smaller_than_the_cbuffer_is_a_warning():
    src = _vs('"RootConstants(num32BitConstants=2, b0)"', "cbuffer C : register(b0) { float4 v; };\n", "v")
    res = _compile(src, profile="vs_6_0")
    assert res.ok
    assert render_all(res.diagnostics, res.sources, "gnu") == """\
rs.hlsl:2:17: warning: root signature: RootConstants holds 2 32-bit constants (8 bytes) but 'C' is 16 bytes
[RootSignature("RootConstants(num32BitConstants=2, b0)")]
                ^
rs.hlsl:1:1: note: 'C' is declared here
cbuffer C : register(b0) { float4 v; };
^"""


def test_unused_resources_need_no_range():
    src = _vs('"DescriptorTable(SRV(t1))"', "Texture2D<float4> tex : register(t1);\nTexture2D<float4> idle : register(t7);\n")
    res = _compile(src, profile="vs_6_0")
    assert res.ok, _errors(res)


def test_rootsig_define_error_points_into_the_define():
    src = '#define BadRS "CBV(b0), Bogus(t0)"\n' + CS
    res = _compile(src, rootsig_define="BadRS")
    assert _errors(res).splitlines()[:3] == [
        "rs.hlsl:1:25: error: root signature: expected RootFlags, RootConstants, CBV, SRV, UAV, DescriptorTable or "
        "StaticSampler, found 'Bogus'",
        '#define BadRS "CBV(b0), Bogus(t0)"',
        "                        ^"]


# ------------------------------------------------------------------ command line

def test_cli_frs_extract_and_strip(tmp_path, capsys):
    src = tmp_path / "cs.hlsl"
    src.write_text(CS)
    out, rs_file, extracted, stripped = (tmp_path / n for n in ("cs.dxil", "cs.rs", "x.rs", "s.dxil"))
    assert cli_main(["compile", str(src), "-T", "cs_6_0", "-Fo", str(out), "-Frs", str(rs_file)]) == 0
    assert cli_main(["compile", str(src), "-T", "cs_6_0", "-extractrootsignature", "-Fo", str(extracted)]) == 0
    assert cli_main(["compile", str(src), "-T", "cs_6_0", "-Qstrip_rootsignature", "-Fo", str(stripped)]) == 0
    assert rs_file.read_bytes() == extracted.read_bytes()
    # DXC's way: extract from a compiled container
    from_container = tmp_path / "c.rs"
    assert cli_main(["compile", str(out), "-T", "cs_6_0", "-extractrootsignature", "-Fo", str(from_container)]) == 0
    assert from_container.read_bytes() == rs_file.read_bytes()
    assert cli_main(["compile", str(stripped), "-T", "cs_6_0", "-extractrootsignature", "-Fo", str(tmp_path / "n")]) == 1
    assert "has no root signature (RTS0) part" in capsys.readouterr().err
    assert _parts(rs_file.read_bytes()) == {"RTS0": _parts(out.read_bytes())["RTS0"]}
    assert "RTS0" not in _parts(stripped.read_bytes())
    plain = tmp_path / "plain.hlsl"
    plain.write_text(CS.replace("[RootSignature", "[Other"))
    assert cli_main(["compile", str(plain), "-T", "cs_6_0", "-Frs", str(tmp_path / "none.rs")]) == 1
    assert "has no root signature to write" in capsys.readouterr().err


def test_cli_rootsig_profile_and_define(tmp_path):
    src = tmp_path / "rs.hlsl"
    src.write_text('#define ROOT "CBV(b0)"\n')
    out = tmp_path / "rs.bin"
    assert cli_main(["compile", str(src), "-T", "rootsig_1_0", "-E", "ROOT", "-Fo", str(out)]) == 0
    assert read_rts0(_parts(out.read_bytes())["RTS0"])["Parameters"] == [
        {"ParameterType": 2, "ShaderVisibility": 0, "Descriptor": {"ShaderRegister": 0, "RegisterSpace": 0}}]


@pytest.mark.llvm
def test_obj2yaml_lists_the_part(tmp_path):
    from harness import tools

    obj2yaml = tools.require_tool("obj2yaml-19")
    path = tmp_path / "cs.dxil"
    path.write_bytes(_compile(CS).binary)
    text = subprocess.run([obj2yaml, str(path)], capture_output=True, text=True, check=True).stdout
    # LLVM 19 names the part and its size; it does not decode RTS0's fields
    size = int(text.split("- Name:            RTS0\n    Size:")[1].split()[0])
    assert size == len(_parts(path.read_bytes())["RTS0"]) == 24 + 2 * 12 + 12 + 8 + 2 * 24 + 52


def test_command_line_macro_is_located_on_the_command_line():
    src = "RWStructuredBuffer<float4> o : register(u0);\n[RootSignature(RS)]\n[numthreads(1, 1, 1)] void main() { o[0] = 1; }\n"
    res = _compile(src, defines={"RS": '"CBV(x0)"'})
    assert _errors(res) == ("<command line>:1:9: error: root signature: unexpected 'x0' in root CBV (expected a 'b' "
                            "register, space, visibility, flags)")


def test_project_file_rootsig_define(tmp_path):
    import sys

    (tmp_path / "shaderbuild.toml").write_text(
        'output_dir = "out"\ntargets = ["dxil"]\n[[shader]]\nfiles = "cs.hlsl"\nprofile = "cs_6_0"\n'
        'rootsig_define = "MY_RS"\nbackends.dxil.strip_root_signature = true\n')
    (tmp_path / "cs.hlsl").write_text('#define MY_RS "UAV(u0, visibility = SHADER_VISIBILITY_ALL)"\n'
                                      "RWStructuredBuffer<float4> o : register(u0);\n"
                                      "[numthreads(1, 1, 1)] void main() { o[0] = 1; }\n")
    proc = subprocess.run([sys.executable, "-m", "shaderbuild", "build", str(tmp_path)], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((tmp_path / "out" / "cs.dxil.json").read_text())
    assert manifest["root_signature"]["parameters"] == [
        {"type": "UAV", "visibility": "ALL", "register": 0, "space": 0, "flags": [], "effective_flags": ["DATA_VOLATILE"]}]
    assert "RTS0" not in _parts((tmp_path / "out" / "cs.dxil").read_bytes())      # stripped


def test_standalone_root_signature_may_be_local():
    src = '#define LOCAL "RootFlags(LOCAL_ROOT_SIGNATURE), RootConstants(num32BitConstants=1, b0)"\n'
    res = compile_file("rs.hlsl", CompileOptions(entry="LOCAL", profile="rootsig_1_1"), text=src)
    assert res.ok, _errors(res)
    assert read_rts0(_parts(res.binary)["RTS0"])["Flags"] == 0x80


def test_attribute_and_macro_shape_errors():
    two = _compile(CS.replace('[RootSignature("RootConstants', '[RootSignature("CBV(b0)", "RootConstants'))
    assert _errors(two).splitlines()[0] == "rs.hlsl:5:2: error: attribute 'RootSignature' takes one argument, not 2"
    res = compile_file("rs.hlsl", CompileOptions(entry="RS", profile="rootsig_1_1"), text="#define RS 42\n")
    assert _errors(res) == """\
rs.hlsl:1:9: error: root signature macro 'RS' must expand to a string literal
#define RS 42
        ^"""


def test_string_built_from_nested_macros_is_located_in_the_inner_define():
    src = ('#define TABLES "DescriptorTable(SRV(t0)), "\n'
           '#define SAMPLERS "StaticSampler(s0, filter = FILTER_BOGUS)"\n'
           "#define RS TABLES SAMPLERS\n"
           "Texture2D<float4> tex : register(t0);\nSamplerState smp : register(s0);\n[RootSignature(RS)]\n"
           "float4 main(float2 uv : TEXCOORD) : SV_Target { return tex.Sample(smp, uv); }\n")
    assert _errors(_compile(src, profile="ps_6_0")) == """\
rs.hlsl:2:46: error: root signature: unknown filter 'FILTER_BOGUS'
#define SAMPLERS "StaticSampler(s0, filter = FILTER_BOGUS)"
                                             ^"""
    assert _compile(src.replace("FILTER_BOGUS", "FILTER_MIN_MAG_MIP_LINEAR"), profile="ps_6_0").ok
