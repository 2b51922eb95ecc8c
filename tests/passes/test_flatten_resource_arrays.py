"""passes/flatten_resource_arrays.py: IR text in -> IR text out."""

from __future__ import annotations

from passutil import expected, sema_module, text

from shaderbuild.passes import flatten_resource_arrays

SOURCE = """
Texture2D<float4> T[3][2] : register(t0);
RWStructuredBuffer<float4> Out : register(u0);
[numthreads(1,1,1)]
void main(uint3 id : SV_DispatchThreadID) {
    Out[0] = T[id.x][1].Load(int3(0,0,0));
    Out[1] = T[2][id.y].Load(int3(0,0,0));
}
"""

# (the printer writes Array(Array(T, 2), 3) inner size first: T[3][2] prints as [2][3])
BEFORE = expected("""
    module compute sm6.0
    global uniform T: Texture2D<float4>[2][3] register(t0, space0) count=6
    global uniform Out: RWStructuredBuffer<float4> register(u0, space0) count=1
    fn main(in id: uint3) -> void {
      store %Out<0:uint> = Load(%T[load(%id.x)][1:uint], (0, 0, 0):int3):float4
      store %Out<1:uint> = Load(%T[2:uint][load(%id.y)], (0, 0, 0):int3):float4
    }
""")

# T[i][j] of T[3][2] is element i * 2 + j of T[6]: T[i][1] -> i*2 + 1, T[2][j] -> 4 + j*1
AFTER = expected("""
    module compute sm6.0
    global uniform T: Texture2D<float4>[6] register(t0, space0) count=6
    global uniform Out: RWStructuredBuffer<float4> register(u0, space0) count=1
    fn main(in id: uint3) -> void {
      store %Out<0:uint> = Load(%T[add(add(0:uint, mul(load(%id.x), 2:uint)), 1:uint)], (0, 0, 0):int3):float4
      store %Out<1:uint> = Load(%T[add(4:uint, mul(load(%id.y), 1:uint))], (0, 0, 0):int3):float4
    }
""")


def test_two_dimensional_array_becomes_one_dimensional():
    module, options = sema_module(SOURCE)
    assert text(module) == BEFORE
    flatten_resource_arrays.run(module, options)
    assert text(module) == AFTER


def test_one_dimensional_arrays_are_left_alone():
    module, options = sema_module("""
        Texture2D<float4> T[3] : register(t0);
        RWStructuredBuffer<float4> Out : register(u0);
        [numthreads(1,1,1)]
        void main(uint3 id : SV_DispatchThreadID) { Out[0] = T[id.x].Load(int3(0,0,0)); }
    """)
    before = text(module)
    assert "Texture2D<float4>[3]" in before
    flatten_resource_arrays.run(module, options)
    assert text(module) == before
