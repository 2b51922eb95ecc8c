// Forward-lit vertex + pixel pair.  Permutations: NORMAL_MAP x SHADOWS x ALPHA_TEST.
#include "include/lighting.hlsli"
#include "include/material.hlsli"

Texture2D<float4> AlbedoMap : register(t0);
#if NORMAL_MAP
Texture2D<float4> NormalMap : register(t1);
#endif
#if SHADOWS
Texture2D<float> ShadowMap : register(t2);
SamplerComparisonState ShadowCompare : register(s1);
#endif

cbuffer Object : register(b2)
{
    float4x4 world;
    float4x4 shadow_view_proj;
};

struct VSIn
{
    float3 pos     : POSITION;
    float3 normal  : NORMAL;
    float4 tangent : TANGENT;
    float2 uv      : TEXCOORD0;
};

struct VSOut
{
    float4 pos       : SV_Position;
    float3 world_pos : TEXCOORD0;
    float3 normal    : NORMAL;
    float4 tangent   : TANGENT;
    float2 uv        : TEXCOORD1;
#if SHADOWS
    float4 shadow_pos : TEXCOORD2;
#endif
};

VSOut vs_main(VSIn v)
{
    VSOut o;
    float4 world_pos = mul(world, float4(v.pos, 1.0));
    o.pos = mul(Frame.view_proj, world_pos);
    o.world_pos = world_pos.xyz;
    o.normal = normalize(mul((float3x3)world, v.normal));
    o.tangent = float4(normalize(mul((float3x3)world, v.tangent.xyz)), v.tangent.w);
    o.uv = material_uv(v.uv);
#if SHADOWS
    o.shadow_pos = mul(shadow_view_proj, world_pos);
#endif
    return o;
}

float4 ps_main(VSOut i, bool front : SV_IsFrontFace) : SV_Target0
{
    float4 albedo = AlbedoMap.Sample(LinearWrap, i.uv) * base_color;
#if ALPHA_TEST
    clip(albedo.a - alpha_cutoff);
#endif
    float3 n = normalize(i.normal);
    if (!front && (flags & MATERIAL_FLAG_DOUBLE_SIDED))
        n = -n;
#if NORMAL_MAP
    float3 tn = NormalMap.Sample(LinearWrap, i.uv).xyz * 2.0 - 1.0;
    n = normalize(mul(tn, tangent_frame(n, i.tangent)));
#endif
    float shadow = 1.0;
#if SHADOWS
    float3 sp = i.shadow_pos.xyz / i.shadow_pos.w;
    shadow = ShadowMap.SampleCmpLevelZero(ShadowCompare, sp.xy * float2(0.5, -0.5) + 0.5, sp.z);
#endif
    float3 color = shade(srgb_to_linear(albedo.rgb), n, i.world_pos, roughness, shadow) + emissive;
    return float4(color, albedo.a);
}
