// Writes Out[i] = i * SCALE + OFFSET: the smallest useful pass, used as a smoke test.
#include "include/common.hlsli"

#ifndef SCALE
#define SCALE 2
#endif
#define OFFSET 1

RWStructuredBuffer<uint> Out : register(u0);

[numthreads(GROUP_SIZE, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Out[id.x] = id.x * SCALE + OFFSET;
}
