// Tessellated terrain: each quad patch of the terrain grid is subdivided by distance to the camera
// (hull shader, fractional_odd), displaced by a heightmap (domain shader) and lit by the sun.
#include "include/bindings.hlsli"

Texture2D<float> Heightmap : register(t1);

static const float kHeightScale = 4.0;
static const float kMaxTess = 15.0;

struct ControlPoint
{
    float3 world : WORLDPOS;
    float2 uv    : TEXCOORD0;
};

struct PatchConstants
{
    float edges[4]  : SV_TessFactor;
    float inside[2] : SV_InsideTessFactor;
};

struct TerrainOut
{
    float4 pos    : SV_Position;
    float3 normal : NORMAL;
    float2 uv     : TEXCOORD0;
};

ControlPoint vs_main(float3 world : POSITION, float2 uv : TEXCOORD0)
{
    ControlPoint o;
    o.world = world;
    o.uv = uv;
    return o;
}

// more subdivisions close to the camera; an edge's factor depends only on the edge, so
// neighbouring patches agree and leave no cracks
float edge_factor(float3 a, float3 b)
{
    float d = distance(0.5 * (a + b), Frame.camera_pos);
    return clamp(64.0 / max(d, 1.0), 1.0, kMaxTess);
}

PatchConstants terrain_patch(InputPatch<ControlPoint, 4> p)
{
    PatchConstants o;
    // quad corners 0..3 go around the patch; edge i is D3D's U==0, V==0, U==1, V==1
    o.edges[0] = edge_factor(p[0].world, p[3].world);
    o.edges[1] = edge_factor(p[0].world, p[1].world);
    o.edges[2] = edge_factor(p[1].world, p[2].world);
    o.edges[3] = edge_factor(p[3].world, p[2].world);
    o.inside[0] = max(o.edges[1], o.edges[3]);
    o.inside[1] = max(o.edges[0], o.edges[2]);
    return o;
}

[domain("quad")]
[partitioning("fractional_odd")]
[outputtopology("triangle_cw")]
[outputcontrolpoints(4)]
[patchconstantfunc("terrain_patch")]
[maxtessfactor(15.0)]
ControlPoint hs_main(InputPatch<ControlPoint, 4> p, uint i : SV_OutputControlPointID)
{
    return p[i];
}

float height_at(float2 uv)
{
    return Heightmap.SampleLevel(LinearWrap, uv, 0) * kHeightScale;
}

[domain("quad")]
TerrainOut ds_main(PatchConstants pc, float2 uv : SV_DomainLocation, const OutputPatch<ControlPoint, 4> p)
{
    float3 world = lerp(lerp(p[0].world, p[1].world, uv.x), lerp(p[3].world, p[2].world, uv.x), uv.y);
    float2 tex = lerp(lerp(p[0].uv, p[1].uv, uv.x), lerp(p[3].uv, p[2].uv, uv.x), uv.y);
    world.y += height_at(tex);
    // central differences of the height field give the normal
    float e = 1.0 / 256.0;
    float dx = height_at(tex + float2(e, 0)) - height_at(tex - float2(e, 0));
    float dz = height_at(tex + float2(0, e)) - height_at(tex - float2(0, e));
    TerrainOut o;
    o.pos = mul(Frame.view_proj, float4(world, 1.0));
    o.normal = normalize(float3(-dx, 2.0 * e * kHeightScale, -dz));
    o.uv = tex;
    return o;
}

float4 ps_main(TerrainOut i) : SV_Target0
{
    float lit = saturate(dot(normalize(i.normal), -Frame.sun_dir));
    return float4(Frame.sun_color * (0.15 + 0.85 * lit), 1.0);
}
