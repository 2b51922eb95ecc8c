// Omnidirectional (point-light) shadows: one draw renders a mesh into all six faces of a cube
// map. The geometry shader runs once per face ([instance(6)]), projects the triangle with that
// face's view-projection and sends it to layer `face` of the render target array; the pixel
// shader stores the linear distance to the light, which the lighting pass compares against.

cbuffer ShadowLight : register(b3)
{
    float4x4 FaceViewProj[6];   // +X, -X, +Y, -Y, +Z, -Z
    float3 LightPos;
    float FarPlane;
};

cbuffer ShadowObject : register(b4)
{
    float4x4 World;
};

struct VSIn
{
    float3 pos : POSITION;
};

struct VSOut
{
    float4 world : WORLDPOS;
};

struct GSOut
{
    float4 pos : SV_Position;
    float3 world : WORLDPOS;
    uint face : SV_RenderTargetArrayIndex;
};

VSOut vs_main(VSIn i)
{
    VSOut o;
    o.world = mul(World, float4(i.pos, 1.0));
    return o;
}

[instance(6)]
[maxvertexcount(3)]
void gs_main(triangle VSOut tri[3], uint face : SV_GSInstanceID, inout TriangleStream<GSOut> faces)
{
    [unroll]
    for (int v = 0; v < 3; v++)
    {
        GSOut o;
        o.pos = mul(FaceViewProj[face], tri[v].world);
        o.world = tri[v].world.xyz;
        o.face = face;
        faces.Append(o);
    }
    faces.RestartStrip();
}

float4 ps_main(float4 pos : SV_Position, float3 world : WORLDPOS) : SV_Target0
{
    return length(world - LightPos) / FarPlane;
}
