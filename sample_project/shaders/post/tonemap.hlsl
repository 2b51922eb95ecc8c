// Full-screen tonemap: a triangle from SV_VertexID, ACES-fitted curve, exposure from the frame.
#include "include/bindings.hlsli"
#include "include/math.hlsli"

Texture2D<float4> HdrColor : register(t0);

// The pass's D3D12 root signature (in the container's RTS0 part and in both manifests): the frame
// constants as a root CBV, the HDR input in a pixel-only table, the linear-wrap sampler static.
#define TONEMAP_RS \
    "CBV(b0, visibility = SHADER_VISIBILITY_PIXEL), " \
    "DescriptorTable(SRV(t0), visibility = SHADER_VISIBILITY_PIXEL), " \
    "StaticSampler(s0, filter = FILTER_MIN_MAG_MIP_LINEAR, visibility = SHADER_VISIBILITY_PIXEL)"

struct FullscreenOut
{
    float4 pos : SV_Position;
    float2 uv  : TEXCOORD0;
};

[RootSignature(TONEMAP_RS)]
FullscreenOut vs_main(uint id : SV_VertexID)
{
    FullscreenOut o;
    o.uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(o.uv * float2(2.0, -2.0) + float2(-1.0, 1.0), 0.0, 1.0);
    return o;
}

float3 aces(float3 x)
{
    return saturate((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14));
}

[RootSignature(TONEMAP_RS)]
float4 ps_main(FullscreenOut i) : SV_Target0
{
    float3 hdr = HdrColor.SampleLevel(LinearWrap, i.uv, 0).rgb * Frame.exposure;
    float3 ldr = pow(aces(hdr), 1.0 / 2.2);
    return float4(ldr, luminance(ldr));
}
