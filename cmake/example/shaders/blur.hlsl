#include "kernel.hlsli"
StructuredBuffer<float> In : register(t0);
RWStructuredBuffer<float> Out : register(u1);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    float sum = 0;
    for (int i = -KERNEL_RADIUS; i <= KERNEL_RADIUS; ++i)
        sum += In[id.x + i + KERNEL_RADIUS];
    Out[id.x] = sum / (2 * KERNEL_RADIUS + 1);
}
