// Register layout shared by every pass of the sample engine.
//   space0: per-frame data and the pass's own resources
//   space1: the bindless texture table
#pragma once

struct FrameConstants
{
    float4x4 view_proj;
    float3   camera_pos;
    float    time;
    float3   sun_dir;
    float    exposure;
    float3   sun_color;
    uint     frame_index;
};

ConstantBuffer<FrameConstants> Frame : register(b0);
SamplerState LinearWrap : register(s0);
