"""WaveActiveAllEqual is per component, as in DXC (`bool<> WaveActiveAllEqual(numeric<>)`): a vector
argument gives a bool vector, and floats compare as numbers (+0 equals -0).  Wave operations read other
lanes, so this runs on the two Vulkan paths (SPIR-V and DXIL through dxil-spirv), one wave of 4 lanes."""

from __future__ import annotations

import pytest
from lang_util import run_backend

pytestmark = [pytest.mark.vulkan, pytest.mark.usefixtures("vk")]

SRC = """
RWStructuredBuffer<uint> Out : register(u0);
StructuredBuffer<float> F : register(t1);
[numthreads(4, 1, 1)]
void main(uint i : SV_GroupIndex) {
    float x = F[0];
    bool2 v = WaveActiveAllEqual(float2(x, F[i + 1]));
    uint2 u = WaveActiveAllEqual(uint2((uint)F[i + 1] / 4u, i));
    Out[i] = (WaveActiveAllEqual(x) ? 1u : 0u) + (v.x ? 2u : 0u) + (v.y ? 4u : 0u)
           + (WaveActiveAllEqual(-0.0 * F[1] + (i == 0 ? 0.0 : -0.0)) ? 8u : 0u) + u.x * 16u + u.y * 32u;
}
"""


@pytest.mark.parametrize("backend", ["spirv", "dxil-vk"])
def test_wave_active_all_equal_is_per_component(backend):
    f = [1.5, 2.0, 2.0, 3.0, 2.0]
    lanes = range(4)
    same = lambda vals: len(set(vals)) == 1  # noqa: E731  (+0.0 == -0.0 in Python too)
    want = (1 * same([f[0]] * 4) + 2 * same([f[0]] * 4) + 4 * same([f[i + 1] for i in lanes])
            + 8 * same([0.0, -0.0, -0.0, -0.0]) + 16 * same([int(f[i + 1]) // 4 for i in lanes])
            + 32 * same(list(lanes)))
    got = run_backend(backend, SRC, {"Out": ("uint", 4)}, {"F": ("float", f)})["Out"]
    assert got == [want] * 4
