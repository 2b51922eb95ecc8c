// Skinned vertex shader: four bone influences from a structured buffer of matrices.
#include "include/bindings.hlsli"

StructuredBuffer<float4x4> Bones : register(t3);

struct SkinnedIn
{
    float3 pos     : POSITION;
    float3 normal  : NORMAL;
    float2 uv      : TEXCOORD0;
    uint4  joints  : BLENDINDICES;
    float4 weights : BLENDWEIGHT;
};

struct SkinnedOut
{
    float4 pos    : SV_Position;
    float3 normal : NORMAL;
    float2 uv     : TEXCOORD0;
};

SkinnedOut vs_main(SkinnedIn v)
{
    float4x4 skin = Bones[v.joints.x] * v.weights.x;
    [unroll]
    for (uint k = 1; k < 4; k++)
        skin += Bones[v.joints[k]] * v.weights[k];
    SkinnedOut o;
    float4 p = mul(skin, float4(v.pos, 1.0));
    o.pos = mul(Frame.view_proj, p);
    o.normal = normalize(mul((float3x3)skin, v.normal));
    o.uv = v.uv;
    return o;
}
