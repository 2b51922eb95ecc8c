// Work-group inclusive prefix sum (Hillis-Steele) in groupshared memory.
#define GROUP 64

StructuredBuffer<uint>   Input  : register(t0);
RWStructuredBuffer<uint> Output : register(u1);

groupshared uint scratch[2][GROUP];

[numthreads(GROUP, 1, 1)]
void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex)
{
    uint src = 0;
    scratch[0][gi] = Input[id.x];
    GroupMemoryBarrierWithGroupSync();
    for (uint offset = 1; offset < GROUP; offset <<= 1)
    {
        uint v = scratch[src][gi];
        if (gi >= offset)
            v += scratch[src][gi - offset];
        scratch[1 - src][gi] = v;
        src = 1 - src;
        GroupMemoryBarrierWithGroupSync();
    }
    Output[id.x] = scratch[src][gi];
}
