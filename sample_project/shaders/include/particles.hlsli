#pragma once

struct Particle
{
    float3 position;
    float  age;
    float3 velocity;
    float  lifetime;
};
