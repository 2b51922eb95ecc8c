// Ray-traced sun shadows: one ray per pixel from the G-buffer's world position towards the light.
// A DXR library (lib_6_3): the ray-generation, miss and closest-hit shaders are exported together;
// the engine puts rg_shadows in its ray-generation record, ms_shadows in its miss table and
// ch_shadows in the hit group of every opaque instance.

struct [raypayload] ShadowPayload
{
    float visibility;       // 1: lit, 0: in shadow
};

cbuffer ShadowConstants : register(b0)
{
    float3 g_LightDirection;    // towards the light, normalised
    float  g_NormalBias;        // pushes the ray origin off the surface
    float  g_MaxDistance;
};

RaytracingAccelerationStructure g_Scene     : register(t0);
Texture2D<float4>               g_Positions : register(t1);   // world position (xyz), 0 in w: sky
Texture2D<float4>               g_Normals   : register(t2);
RWTexture2D<float>              g_Shadow    : register(u0);

[shader("raygeneration")]
void rg_shadows()
{
    uint2 pixel = DispatchRaysIndex().xy;
    float4 position = g_Positions[pixel];
    if (position.w == 0.0)
    {
        g_Shadow[pixel] = 1.0;      // sky: lit
        return;
    }
    float3 normal = normalize(g_Normals[pixel].xyz);
    RayDesc ray;
    ray.Origin = position.xyz + normal * g_NormalBias;
    ray.Direction = g_LightDirection;
    ray.TMin = 0.0;
    ray.TMax = g_MaxDistance;
    ShadowPayload payload;
    payload.visibility = 0.0;
    // any occluder will do: the first hit ends the search
    TraceRay(g_Scene, RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH | RAY_FLAG_FORCE_OPAQUE, 0xFF, 0, 1, 0, ray, payload);
    g_Shadow[pixel] = payload.visibility;
}

[shader("miss")]
void ms_shadows(inout ShadowPayload payload)
{
    payload.visibility = 1.0;
}

[shader("closesthit")]
void ch_shadows(inout ShadowPayload payload, in BuiltInTriangleIntersectionAttributes attributes)
{
    payload.visibility = 0.0;
}
