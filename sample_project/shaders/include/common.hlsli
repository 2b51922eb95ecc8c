// Shared helpers for the sample engine's compute passes.
#pragma once

#define GROUP_SIZE 64

static const float kTimeStep = 1.0 / 60.0;

uint hash_u32(uint x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}
