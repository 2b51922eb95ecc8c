// Particle update: integrate velocity under gravity, respawn dead particles.
#include "include/common.hlsli"
#include "include/particles.hlsli"

StructuredBuffer<Particle>   ParticlesIn  : register(t0);
RWStructuredBuffer<Particle> ParticlesOut : register(u1);

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Particle p = ParticlesIn[id.x];
    p.velocity.y -= 9.81 * kTimeStep;
    p.position += p.velocity * kTimeStep;
    p.age += kTimeStep;
    if (p.age >= p.lifetime)
    {
        uint h = hash_u32(id.x);
        p.position = float3(0.0, 0.0, 0.0);
        p.velocity = float3(float(h & 255u) / 255.0 - 0.5, 4.0, float((h >> 8) & 255u) / 255.0 - 0.5);
        p.age = 0.0;
    }
    ParticlesOut[id.x] = p;
}
