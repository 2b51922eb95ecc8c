// Bindless material pass (SM 6.6 dynamic resources): each material record names its textures by
// descriptor-heap index, so one dispatch shades pixels of any number of materials without rebinding.
struct MaterialRecord
{
    uint   albedo;   // ResourceDescriptorHeap index of a Texture2D<float4>
    uint   mask;     // ResourceDescriptorHeap index of a Texture2D<float>
    uint2  pad;      // keeps `tint` at offset 16: the same 32-byte record in D3D and Vulkan layouts
    float4 tint;
};

StructuredBuffer<MaterialRecord> Materials : register(t0);
StructuredBuffer<uint> PixelMaterial : register(t1);   // the material of each shaded pixel
RWStructuredBuffer<float4> Shaded : register(u0);

[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    MaterialRecord m = Materials[PixelMaterial[id.x]];
    // the material differs between neighbouring threads: the heap indices are non-uniform
    Texture2D<float4> albedo = ResourceDescriptorHeap[NonUniformResourceIndex(m.albedo)];
    Texture2D<float> mask = ResourceDescriptorHeap[NonUniformResourceIndex(m.mask)];
    int3 texel = int3(id.x & 1, 0, 0);
    Shaded[id.x] = albedo.Load(texel) * m.tint * mask.Load(texel);
}
