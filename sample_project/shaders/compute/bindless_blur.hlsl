// Bindless-style pass: textures are picked from an unbounded table by index from the material data.
#include "include/bindings.hlsli"

Texture2D Textures[] : register(t0, space1);
StructuredBuffer<uint> TextureIndices : register(t1);
RWTexture2D<float4> Target : register(u2);

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint index = TextureIndices[id.x & 15];
    float2 uv = (float2(id.xy) + 0.5) / 256.0;
    float4 sum = 0;
    [unroll]
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            sum += Textures[NonUniformResourceIndex(index)].SampleLevel(LinearWrap, uv + float2(dx, dy) / 256.0, 0);
    Target[id.xy] = sum / 9.0;
}
