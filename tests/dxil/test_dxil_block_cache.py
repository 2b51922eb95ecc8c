"""The DXIL writer copies blocks it has written before (bitstream.BlockCache: type table,
attributes, symbol tables) and the digits of recurring records (bitstream.RecordCache: metadata
strings and names, triple, datalayout).  A cached block or record is only right if its key holds
everything the bits depend on, abbreviation widths included (the BLOCKINFO SETTYPE field is as wide
as the module's type count needs): every module must come out as it does from empty caches,
whatever was compiled before it."""

from __future__ import annotations

from shaderbuild_dxil.writer import clear_block_caches

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

# same-looking constants, different type tables (so different type-id widths), several stages
SHADERS = [
    ("cs_6_0", "[[vk::constant_id(5)]] const float K = 2;\nRWStructuredBuffer<uint> Out;\n"
               "[numthreads(1, 1, 1)] void main() { Out[0] = asuint(K); }\n"),
    ("cs_6_0", "[[vk::constant_id(5)]] const int K = -3;\nRWStructuredBuffer<int> Out;\n"
               "[numthreads(1, 1, 1)] void main() { Out[0] = K; }\n"),
    ("cs_6_0", "cbuffer P : register(b0) { float4 s; uint n; };\nRWStructuredBuffer<float4> Out;\n"
               "RWByteAddressBuffer Raw;\n[numthreads(8, 1, 1)] void main(uint3 id : SV_DispatchThreadID) {\n"
               "  Out[id.x] = s * (float)n; Raw.Store(id.x * 4, asuint(s.x)); }\n"),
    ("cs_6_6", "RWStructuredBuffer<uint> Out;\ngroupshared uint g[64];\n[numthreads(64, 1, 1)]\n"
               "void main(uint i : SV_GroupIndex) { g[i] = i; GroupMemoryBarrierWithGroupSync();\n"
               "  uint o; InterlockedAdd(g[0], 1u, o); Out[i] = g[63 - i] + o; }\n"),
    ("vs_6_0", "cbuffer C : register(b0) { float4x4 m; };\n"
               "float4 main(float3 p : POSITION, float2 uv : TEXCOORD0, out float2 ouv : TEXCOORD0) : SV_Position {\n"
               "  ouv = uv; return mul(m, float4(p, 1)); }\n"),
    ("ps_6_0", "Texture2D t : register(t0); SamplerState s : register(s0);\n"
               "float4 main(float2 uv : TEXCOORD0) : SV_Target { return t.Sample(s, uv) * 2; }\n"),
]


def _compile(path, profile: str) -> bytes:
    entry = "main"
    res = compile_file(str(path), CompileOptions(entry=entry, profile=profile, target="dxil"))
    assert res.ok, [d.message for d in res.diagnostics]
    return res.binary


def test_warm_caches_give_the_cold_output(tmp_path):
    paths = []
    for k, (profile, src) in enumerate(SHADERS):
        p = tmp_path / f"s{k}.hlsl"
        p.write_text(src)
        paths.append((p, profile))
    cold = []
    for p, profile in paths:
        clear_block_caches()
        cold.append(_compile(p, profile))
    clear_block_caches()
    for order in (range(len(paths)), reversed(range(len(paths))), range(len(paths))):
        for k in order:
            assert _compile(*paths[k]) == cold[k], f"shader {k} differs after compiling others"
