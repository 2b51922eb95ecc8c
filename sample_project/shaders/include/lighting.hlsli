#pragma once
#include "bindings.hlsli"
#include "math.hlsli"

// Blinn-Phong with a Lambert diffuse term and an optional shadow factor.
float3 shade(float3 albedo, float3 n, float3 world_pos, float roughness, float shadow)
{
    float3 l = normalize(-Frame.sun_dir);
    float3 v = normalize(Frame.camera_pos - world_pos);
    float3 h = normalize(l + v);
    float shininess = lerp(256.0, 4.0, roughness);
    float diffuse = saturate_dot(n, l);
    float specular = pow(saturate_dot(n, h), shininess) * (shininess + 8.0) / (8.0 * PI);
    return (albedo / PI * diffuse + specular * 0.04) * Frame.sun_color * shadow + albedo * 0.03;
}
