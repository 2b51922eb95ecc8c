#pragma once

// The material system: one cbuffer per material instance, packed the way D3D packs it.
cbuffer Material : register(b1)
{
    float4 base_color;
    float3 emissive;
    float  roughness;
    float  metallic;
    float  alpha_cutoff;
    float2 uv_scale;
    float4 uv_offset_and_rotation;   // xy offset, z rotation (radians), w unused
    uint   flags;
};

static const uint MATERIAL_FLAG_DOUBLE_SIDED = 1u;

float2 material_uv(float2 uv)
{
    float s, c;
    sincos(uv_offset_and_rotation.z, s, c);
    float2 rotated = float2(uv.x * c - uv.y * s, uv.x * s + uv.y * c);
    return rotated * uv_scale + uv_offset_and_rotation.xy;
}
