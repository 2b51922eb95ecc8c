"""The SPIR-V backend as a pluggy plugin, and end to end from HLSL through the real front end."""

from __future__ import annotations

import struct

import pytest
import res_util
from harness.tools import spirv_val
from irbuild import UINT, bin, compute_module, elem, resource, store, tid_x, u
from shaderbuild_spirv import plugin

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions
from shaderbuild.plugin import BackendResult, get_host


def _module():
    out = resource("Out", "RWStructuredBuffer", UINT, 0, 0)
    tid, x = tid_x()
    return compute_module([store(elem(out, x), bin("add", x, u(1)))], [out], inputs=[tid])


def test_compile_hook_ignores_other_targets():
    assert plugin.shaderbuild_compile(module=_module(), target="dxil", options=CompileOptions(target="dxil")) is None


@pytest.mark.spirv_tools
@pytest.mark.parametrize("env,version", [("vulkan1.1", "1.3"), ("vulkan1.2", "1.5")])
def test_compile_hook_returns_binary_reflection_and_disassembly(env, version):
    res = plugin.shaderbuild_compile(module=_module(), target="spirv", options=CompileOptions(vk_target_env=env))
    assert isinstance(res, BackendResult)
    spirv_val(res.binary, env)
    assert res.reflection == {"vulkan": {"spirv_version": version, "resources": [
        {"name": "Out", "set": 0, "binding": 0, "descriptor_type": "storage_buffer", "count": 1,
         "type": "RWStructuredBuffer<uint>"}]}}
    text = res.disassembly() if callable(res.disassembly) else res.disassembly   # may be lazy
    assert text.startswith("; SPIR-V\n") and 'OpEntryPoint GLCompute %main "main"' in text


def test_host_discovers_the_backend_through_its_entry_point():
    backends = get_host().backends()
    assert "spirv" in backends and backends["spirv"].info.extension == ".spv"
    assert get_host().pm.hook.shaderbuild_compile(module=_module(), target="spirv",
                                                  options=CompileOptions()).binary[:4] == b"\x03\x02\x23\x07"


def _compile(text: str, entry: str, profile: str, env: str = "vulkan1.1") -> bytes:
    r = compile_file("e2e.hlsl", CompileOptions(entry=entry, profile=profile, vk_target_env=env), text=text)
    assert r.ok, "\n".join(d.render() for d in r.diagnostics)
    spirv_val(r.binary, env)
    res_util.dxil_twin(text, entry, profile)   # read back by the LLVM tools; a failure is a deferred DxilBug
    return r.binary


COMPUTE = """
struct Item { float3 pos; uint id; };
RWStructuredBuffer<uint> Out : register(u0);
StructuredBuffer<Item> Items : register(t1);
groupshared uint tile[64];
cbuffer Params : register(b2) { float scale; uint bias; };

void split(uint v, out uint hi, inout uint acc) { hi = v >> 4; acc += v & 15; }

uint classify(uint v) {
    switch (v % 4) {
    case 0: return 10;
    case 1: v += 1;
    case 2: return v;
    default: break;
    }
    return 99;
}

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    tile[gi] = Items[id.x].id;
    GroupMemoryBarrierWithGroupSync();
    uint acc = 0, hi = 0;
    for (uint k = 0; k < 4; ++k) {
        if (k == 2) continue;
        split(tile[(gi + k) % 64], hi, acc);
    }
    uint slot;
    InterlockedAdd(Out[64], 1, slot);
    Out[id.x] = acc + hi * 1000 + classify(id.x) * 100000 + (uint)(Items[id.x].pos.y * scale) + bias;
}
"""


def _classify(v: int) -> int:
    m = v % 4
    return 10 if m == 0 else v + 1 if m == 1 else v if m == 2 else 99


@pytest.mark.vulkan
@pytest.mark.spirv_tools
@pytest.mark.parametrize("env", ["vulkan1.1", "vulkan1.2"])
def test_end_to_end_compute_from_hlsl(vk, env):
    binary = _compile(COMPUTE, "main", "cs_6_0", env)
    ids = [(n * 37 + 5) % 251 for n in range(64)]
    items = b"".join(struct.pack("<3fI", 0.0, n * 0.5, 0.0, ids[n]) for n in range(64))
    params = struct.pack("<fI", 4.0, 7).ljust(16, b"\0")   # std140: scale at 0, bias at 4
    out, _, _ = vk.run_compute(binary, "main", [vk.Buf(0, 0, bytes(65 * 4)), vk.Buf(0, 1, items),
                                                vk.Buf(0, 2, params, "uniform")])
    got = struct.unpack("<65I", out)
    for n in range(64):
        acc, hi = 0, 0
        for k in (0, 1, 3):
            v = ids[(n + k) % 64]
            hi, acc = v >> 4, acc + (v & 15)
        assert got[n] == acc + hi * 1000 + _classify(n) * 100000 + int(n * 0.5 * 4.0) + 7, n
    assert got[64] == 64


VS = """
struct VSOut { float4 pos : SV_Position; float2 uv : TEXCOORD0; nointerpolation uint id : ID; };
VSOut VSMain(uint vid : SV_VertexID)
{
    VSOut o;
    float2 uv = float2((vid << 1) & 2, vid & 2);
    o.pos = float4(uv * 2 - 1, 0, 1);
    o.uv = uv;
    o.id = vid;
    return o;
}
"""
PS = """
cbuffer Tint : register(b0) { float4 tint; };
struct VSOut { float4 pos : SV_Position; float2 uv : TEXCOORD0; nointerpolation uint id : ID; };
float4 PSMain(VSOut i) : SV_Target0
{
    if (i.uv.x > 0.75) discard;
    return float4(i.uv, 0.25, 1) * tint;
}
"""


@pytest.mark.vulkan
@pytest.mark.spirv_tools
def test_end_to_end_graphics_from_hlsl(vk):
    """Full-screen triangle; the pixel shader writes its interpolated uv and discards x > 0.75."""
    vs, ps = _compile(VS, "VSMain", "vs_6_0"), _compile(PS, "PSMain", "ps_6_0")
    w = h = 8
    tint = (1.0, 0.5, 1.0, 1.0)
    px = vk.run_graphics(vs, "VSMain", ps, "PSMain", w, h, [vk.Buf(0, 0, struct.pack("<4f", *tint), "uniform")])
    for y in range(h):
        for x in range(w):
            u_, v_ = (x + 0.5) / w, (y + 0.5) / h
            got = px[(y * w + x) * 4:(y * w + x) * 4 + 4]
            if u_ > 0.75:
                assert tuple(got) == (0, 0, 0, 0)
                continue
            expect = [u_ * tint[0], v_ * tint[1], 0.25 * tint[2], 1.0]
            assert all(abs(g - e * 255) <= 1.0 for g, e in zip(got, expect)), (x, y, tuple(got))


TEXTURES = """
Texture2D<float4> T2 : register(t0);
Texture2DArray<float4> TA : register(t1);
Texture2DMS<float4> TMS : register(t2);
TextureCube<float4> TC : register(t3);
Texture3D<float> T3 : register(t4);
Buffer<float4> TB : register(t5);
RWTexture2D<float4> RW : register(u6);
RWBuffer<uint> RWB : register(u7);
SamplerState S : register(s8);
SamplerComparisonState SC : register(s9);

float4 PSMain(float4 p : SV_Position, float2 uv : TEXCOORD0) : SV_Target0
{
    float4 c = T2.Sample(S, uv) + T2.Sample(S, uv, int2(1, -1));
    c += T2.SampleBias(S, uv, 0.5) + T2.SampleLevel(S, uv, 1.0, int2(2, 2)) + T2.SampleGrad(S, uv, float2(0.1, 0), float2(0, 0.1));
    c.x += T2.SampleCmp(SC, uv, 0.5) + T2.SampleCmpLevelZero(SC, uv, 0.5, int2(0, 1));
    c += T2.Gather(S, uv) + T2.GatherGreen(S, uv, int2(1, 1)) + TC.Sample(S, float3(uv, 1)) + T3.SampleLevel(S, float3(uv, 0), 0);
    c += TA.Sample(S, float3(uv, 2)) + T2.Load(int3(1, 2, 0)) + T2.Load(int3(1, 2, 0), int2(1, 0)) + TMS.Load(int2(3, 4), 1);
    c += TB.Load(3) + TB[4] + RW[uint2(1, 1)] + T2[uint2(0, 1)];
    c.y += T2.CalculateLevelOfDetail(S, uv) + T2.CalculateLevelOfDetailUnclamped(S, uv);
    uint w, h, levels, elems, samples, d, n;
    T2.GetDimensions(w, h);
    T2.GetDimensions(1, w, h, levels);
    TA.GetDimensions(w, h, elems);
    TMS.GetDimensions(w, h, samples);
    TB.GetDimensions(n);
    float fw, fh;
    RW.GetDimensions(fw, fh);
    RW[uint2(w, h)] = c;
    RWB[levels + elems + samples + n] = (uint)fw;
    InterlockedAdd(RWB[0], 1);
    return c;
}
"""


@pytest.mark.spirv_tools
@pytest.mark.parametrize("env", ["vulkan1.0", "vulkan1.1", "vulkan1.2", "vulkan1.3"])
def test_end_to_end_texture_methods_validate(env):
    """Every texture/sampler method the front end lowers, through the backend, accepted by spirv-val."""
    from shaderbuild_spirv.disasm import disassemble
    text = disassemble(_compile(TEXTURES, "PSMain", "ps_6_0", env))
    for op in ("OpImageSampleImplicitLod", "OpImageSampleExplicitLod", "OpImageSampleDrefImplicitLod",
               "OpImageSampleDrefExplicitLod", "OpImageGather", "OpImageQueryLod", "OpImageFetch", "OpImageRead",
               "OpImageWrite", "OpImageQuerySizeLod", "OpImageQuerySize", "OpImageQueryLevels",
               "OpImageQuerySamples", "OpImageTexelPointer", "OpAtomicIAdd"):
        assert op in text, op
    assert "ConstOffset" in text and "Grad" in text and "Bias" in text
