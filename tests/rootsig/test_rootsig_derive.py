"""`shaderbuild rootsig`: deriving a minimal root signature from shaders' used resources; the derived
string compiles with -rootsig-define (so it validates against every shader it came from)."""

from __future__ import annotations

import struct

from harness.dxil_tools import container_parts as _parts
from harness.rts0 import read_rts0

from shaderbuild.cli import main as cli_main
from shaderbuild.compiler import compile_file
from shaderbuild.diagnostics import render_all
from shaderbuild.options import CompileOptions
from shaderbuild.rootsig import parse, serialize, to_string
from shaderbuild.rootsig.derive import Shader, derive, from_module
from shaderbuild.rootsig.validate import ShaderResource

SRC = """\
cbuffer Frame : register(b0) { float4x4 view_proj; float4 tint; };
cbuffer Tiny : register(b3) { float2 offset; };
Texture2D<float4> albedo : register(t0);
Texture2D<float4> normals : register(t1);
Texture2D<float4> never_used : register(t9);
SamplerState samp : register(s0);
struct VOut { float4 pos : SV_Position; float2 uv : TEXCOORD0; };
VOut vs_main(float3 p : POSITION, float2 uv : TEXCOORD0) {
    VOut o; o.pos = mul(view_proj, float4(p + float3(offset, 0), 1)); o.uv = uv; return o;
}
float4 ps_main(VOut i) : SV_Target { return (albedo.Sample(samp, i.uv) + normals.Sample(samp, i.uv)) * tint; }
"""


def _module(entry: str, profile: str, src: str = SRC, **kw):
    res = compile_file("d.hlsl", CompileOptions(entry=entry, profile=profile, target="dxil", **kw), text=src,
                       keep_module=True)
    assert res.ok, render_all(res.diagnostics, res.sources)
    return res


def _shaders(src: str = SRC) -> list[Shader]:
    return [from_module(_module("vs_main", "vs_6_0", src).module), from_module(_module("ps_main", "ps_6_0", src).module)]


def test_one_table_per_space_and_visibility():
    rs = derive(_shaders())
    assert to_string(rs, compact=True) == (
        "RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT), "
        "DescriptorTable(CBV(b0)), "                                                 # both stages read Frame
        "DescriptorTable(CBV(b3), visibility = SHADER_VISIBILITY_VERTEX), "
        "DescriptorTable(SRV(t0, numDescriptors = 2), visibility = SHADER_VISIBILITY_PIXEL), "
        "DescriptorTable(Sampler(s0), visibility = SHADER_VISIBILITY_PIXEL)")


def test_root_constants_for_a_small_block():
    rs = derive(_shaders(), root_constants=4)
    constants = [p for p in rs.parameters if p.kind == "RootConstants"]
    assert [(p.register, p.num_32bit_values, p.visibility) for p in constants] == [(3, 2, "VERTEX")]   # float2: 8 bytes
    assert derive(_shaders(), root_constants=1).parameters[1].kind == "DescriptorTable"                # too big for 1


def test_derived_signature_compiles_with_every_shader():
    rs = derive(_shaders(), root_constants=8)
    src = f'#define DERIVED "{to_string(rs)}"\n' + SRC
    for entry, profile in (("vs_main", "vs_6_0"), ("ps_main", "ps_6_0")):
        res = _module(entry, profile, src, rootsig_define="DERIVED")
        assert read_rts0(_parts(res.binary)["RTS0"]) == read_rts0(serialize(rs))


def test_overlapping_visibilities_fall_back_to_all():
    arr = ShaderResource("arr", "t", 0, 0, 4, "Texture2D")
    one = ShaderResource("one", "t", 2, 0, 1, "Texture2D")
    rs = derive([Shader("pixel", False, [arr, one]), Shader("vertex", False, [one])])
    assert to_string(rs, compact=True) == "DescriptorTable(SRV(t0, numDescriptors = 4))"


def test_unbounded_ranges_end_their_tables():
    a = ShaderResource("a", "t", 0, 1, None, "Texture2D")
    b = ShaderResource("b", "t", 0, 2, None, "Texture2D")
    c = ShaderResource("c", "u", 5, 1, None, "RWTexture2D")
    d = ShaderResource("d", "b", 0, 1, 1, "cbuffer")
    rs = derive([Shader("compute", False, [a, b, c, d])])
    assert to_string(rs, compact=True) == (
        "DescriptorTable(CBV(b0, space = 1), SRV(t0, numDescriptors = unbounded, space = 1)), "
        "DescriptorTable(UAV(u5, numDescriptors = unbounded, space = 1)), "
        "DescriptorTable(SRV(t0, numDescriptors = unbounded, space = 2))")


def test_cli_prints_and_writes_the_blob(tmp_path, capsys):
    src = tmp_path / "d.hlsl"
    src.write_text(SRC)
    blob = tmp_path / "d.rs"
    assert cli_main(["rootsig", f"{src}:vs_main:vs_6_0", f"{src}:ps_main:ps_6_0", "-Frs", str(blob)]) == 0
    printed = capsys.readouterr().out.strip()
    data = blob.read_bytes()
    part = data[44:]
    assert data[36:44] == b"RTS0" + struct.pack("<I", len(part))
    decoded = read_rts0(part)
    assert decoded["Flags"] == 1 and len(decoded["Parameters"]) == 4
    assert decoded["Parameters"][2]["DescriptorRanges"][0]["NumDescriptors"] == 2
    assert parse(printed) == derive(_shaders())
    assert cli_main(["rootsig", f"{src}:vs_main:vs_6_0", "--define", "MY_RS"]) == 0
    out = capsys.readouterr().out
    assert out.startswith('#define MY_RS \\\n    "RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT), " \\\n    "DescriptorTable(CBV(b0'), out
    res = _module("vs_main", "vs_6_0", out + SRC, rootsig_define="MY_RS")       # the printed #define compiles
    assert _parts(res.binary)["RTS0"] == serialize(derive(_shaders()[:1]))


def test_cli_errors(tmp_path, capsys):
    src = tmp_path / "bad.hlsl"
    src.write_text("float4 main() : SV_Target { return undefined_thing; }\n")
    assert cli_main(["rootsig", f"{src}:main:ps_6_0"]) == 1
    assert "use of undeclared identifier 'undefined_thing'" in capsys.readouterr().err
    assert cli_main(["rootsig", "justafile.hlsl"]) == 1
    assert "expected FILE:ENTRY:PROFILE or a manifest .json, got 'justafile.hlsl'" in capsys.readouterr().err


MESH_SRC = """\
cbuffer View : register(b0) { float4 scale; };
StructuredBuffer<float4> Positions : register(t0);
Texture2D<float4> Albedo : register(t1);
SamplerState Samp : register(s0);
struct V { float4 pos : SV_Position; float2 uv : TEXCOORD0; };
[outputtopology("triangle")] [numthreads(3, 1, 1)]
void ms_main(uint t : SV_GroupThreadID, out vertices V verts[3], out indices uint3 tris[1]) {
    SetMeshOutputCounts(3, 1);
    verts[t].pos = Positions[t] * scale; verts[t].uv = 0;
    if (t == 0) tris[0] = uint3(0, 1, 2);
}
float4 ps_main(V v) : SV_Target { return Albedo.Sample(Samp, v.uv); }
"""


def test_mesh_stage_visibility():
    """A register only the mesh shader reads is visible to the mesh stage (SHADER_VISIBILITY_MESH); no input
    assembler flag (a mesh pipeline has no vertex input)."""
    shaders = [from_module(_module("ms_main", "ms_6_5", MESH_SRC).module),
               from_module(_module("ps_main", "ps_6_5", MESH_SRC).module)]
    assert to_string(derive(shaders), compact=True) == (      # tables in D3D12's visibility order
        "DescriptorTable(SRV(t1), visibility = SHADER_VISIBILITY_PIXEL), "
        "DescriptorTable(Sampler(s0), visibility = SHADER_VISIBILITY_PIXEL), "
        "DescriptorTable(CBV(b0), SRV(t0), visibility = SHADER_VISIBILITY_MESH)")
