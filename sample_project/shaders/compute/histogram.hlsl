// 16-bin histogram of 8-bit values: per-thread binning with a loop and a switch-free bin index.
#include "include/common.hlsli"

StructuredBuffer<uint>   Values : register(t0);
RWStructuredBuffer<uint> Bins   : register(u1);

#define VALUES_PER_THREAD 4

[numthreads(16, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    uint count = 0;
    for (uint i = 0; i < 64; i++)
    {
        uint bin = Values[i] >> 4;
        if (bin == gi)
            count += 1;
    }
    Bins[gi] = count;
}
