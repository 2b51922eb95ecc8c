// Meshlet renderer. The amplification shader tests each meshlet's bounding circle against the
// view rectangle and passes the visible meshlets' ids to the mesh shaders in its payload; each
// mesh shader group expands one meshlet into its vertices and triangles (three 8-bit local
// vertex indices per triangle); the pixel shader shades a triangle with its meshlet's colour, a
// per-primitive value ([[vk::perprimitive]] tells a Vulkan build; D3D links it by semantic).

#define GROUP 32        // meshlets tested per amplification group
#define MAX_VERTS 64
#define MAX_PRIMS 64

struct Meshlet
{
    uint vertexOffset;
    uint vertexCount;
    uint triangleOffset;
    uint triangleCount;
    float4 bounds;      // xy: centre, z: radius (view space)
    float4 color;
};

StructuredBuffer<Meshlet> Meshlets : register(t0);
StructuredBuffer<float4> Positions : register(t1);
StructuredBuffer<uint> Triangles : register(t2);

cbuffer MeshletView : register(b0)
{
    float4 ViewRect;    // x0, y0, x1, y1: what the camera sees (view space)
    float2 Scale;       // view space -> clip space
    float2 Offset;
    uint MeshletCount;
};

struct Payload
{
    uint meshlets[GROUP];
};

groupshared Payload Visible;
groupshared uint VisibleCount;

[numthreads(GROUP, 1, 1)]
void as_main(uint t : SV_GroupThreadID, uint g : SV_GroupID)
{
    if (t == 0)
        VisibleCount = 0;
    GroupMemoryBarrierWithGroupSync();
    uint id = g * GROUP + t;
    if (id < MeshletCount)
    {
        float4 b = Meshlets[id].bounds;
        bool inside = b.x + b.z >= ViewRect.x && b.x - b.z <= ViewRect.z &&
                      b.y + b.z >= ViewRect.y && b.y - b.z <= ViewRect.w;
        if (inside)
        {
            uint slot;
            InterlockedAdd(VisibleCount, 1, slot);
            Visible.meshlets[slot] = id;
        }
    }
    GroupMemoryBarrierWithGroupSync();
    DispatchMesh(VisibleCount, 1, 1, Visible);
}

struct VertexOut
{
    float4 pos : SV_Position;
};

struct PrimitiveOut
{
    nointerpolation float4 color : COLOR0;
    uint meshlet : SV_PrimitiveID;
};

[outputtopology("triangle")]
[numthreads(MAX_VERTS, 1, 1)]
void ms_main(uint t : SV_GroupThreadID, uint g : SV_GroupID, in payload Payload p,
             out vertices VertexOut verts[MAX_VERTS], out indices uint3 tris[MAX_PRIMS],
             out primitives PrimitiveOut prims[MAX_PRIMS])
{
    uint id = p.meshlets[g];
    Meshlet m = Meshlets[id];
    SetMeshOutputCounts(m.vertexCount, m.triangleCount);
    if (t < m.vertexCount)
    {
        float4 v = Positions[m.vertexOffset + t];
        verts[t].pos = float4(v.xy * Scale + Offset, v.z, 1.0);
    }
    if (t < m.triangleCount)
    {
        uint packed = Triangles[m.triangleOffset + t];
        tris[t] = uint3(packed & 0xFF, (packed >> 8) & 0xFF, (packed >> 16) & 0xFF);
        prims[t].color = m.color;
        prims[t].meshlet = id;
    }
}

float4 ps_main(float4 pos : SV_Position, [[vk::perprimitive]] nointerpolation float4 color : COLOR0) : SV_Target
{
    return color;
}
