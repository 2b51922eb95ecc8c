"""lang_util.run_backend with typed buffers (trace12's finding): a `RWBuffer<T>` / `Buffer<T>` is bound as a texel
buffer of its element's format on every route (our SPIR-V on lavapipe, our DXIL on the interpreter, our DXIL
through dxil-spirv on lavapipe); it used to be bound as a storage buffer and the Vulkan worker died with
signal 11.  A descriptor the compute runners cannot bind is a clear AssertionError naming the buffer."""

from __future__ import annotations

import lang_util as L
import pytest

SRC = """
RWBuffer<int> Ints : register(u0);
RWBuffer<uint4> Quads : register(u1);
RWBuffer<float2> Pairs : register(u2);
Buffer<float> In : register(t3);
[numthreads(2, 1, 1)] void main(uint3 i : SV_DispatchThreadID) {
    Ints[i.x] = (int)In[i.x] - 10;
    Quads[i.x] = uint4(i.x, 7, Quads[i.x].z * 2, 0xFFFFFFFF);
    Pairs[i.x] = float2(In[i.x] * 0.5, -In[i.x]);
}
"""


@pytest.mark.parametrize("backend", L.BACKENDS)
def test_typed_buffers_are_bound_as_texel_buffers(backend):
    ins = [3.0, -4.5]
    got = L.run_backend(backend, SRC, {"Ints": ("int", 2), "Quads": ("uint4", [(0, 0, 5, 0), (0, 0, 21, 0)]),
                                       "Pairs": ("float2", 2)}, {"In": ("float", ins)})
    assert got["Ints"] == [int(x) - 10 for x in ins]            # (int)-4.5 truncates to -4
    assert got["Quads"] == [(0, 7, 10, 0xFFFFFFFF), (1, 7, 42, 0xFFFFFFFF)]
    assert got["Pairs"] == [(x * 0.5, -x) for x in ins]


def test_a_descriptor_the_runner_cannot_bind_is_a_clear_error():
    src = "RWTexture2D<float> T : register(u0);\n[numthreads(1, 1, 1)] void main() { T[uint2(0, 0)] = 1; }"
    with pytest.raises(AssertionError, match="'T' is a storage_image descriptor"):
        L.run_backend("spirv", src, {"T": ("float", [0.0])})
