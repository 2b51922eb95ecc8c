#pragma once

static const float PI = 3.14159265;

float saturate_dot(float3 a, float3 b) { return saturate(dot(a, b)); }

float3 srgb_to_linear(float3 c) { return pow(c, 2.2); }

float luminance(float3 c) { return dot(c, float3(0.2126, 0.7152, 0.0722)); }

float3x3 tangent_frame(float3 n, float4 t)
{
    float3 b = cross(n, t.xyz) * t.w;
    return float3x3(t.xyz, b, n);
}
