"""Values the conformance suite saw wrong in other implementations (issue 20), pinned on all three paths:
InterlockedMin/Max signedness (the destination's element type on typed UAVs, the value's type on raw
buffers) and the original values they return, static const initializers of arrays of structs, and
[unroll] loops left by `break`.  Expected values come from the Python below."""

from __future__ import annotations

import pytest
from lang_util import run_backend

pytestmark = [pytest.mark.vulkan, pytest.mark.usefixtures("vk")]

SRC = """
RWStructuredBuffer<uint> Out : register(u0);
RWStructuredBuffer<int> SI : register(u1);
RWStructuredBuffer<uint> SU : register(u2);
RWByteAddressBuffer BA : register(u3);
struct P { int a; float b; };
static const P ps[2] = { {1, 2.5}, {3, 4.5} };
static const int arr[3] = {5, 6, 7};
[numthreads(1, 1, 1)]
void main() {
    int o0; InterlockedMin(SI[0], -5, o0); Out[0] = (uint)o0;
    int o1; InterlockedMax(SI[1], -5, o1); Out[1] = (uint)o1;
    uint o2; InterlockedMin(SU[0], 5u, o2); Out[2] = o2;
    uint o3; InterlockedMax(SU[1], 0xFFFFFFF0u, o3); Out[3] = o3;
    int v = 5; int o4; BA.InterlockedMin(0, v, o4); Out[4] = (uint)o4;
    BA.InterlockedMax(4, v);
    uint w = 5u; BA.InterlockedMin(8, w);
    BA.InterlockedMax(12, w);
    Out[5] = (uint)(ps[1].b * 2.0) + (uint)arr[2] * 100 + (uint)ps[0].a * 10000;
    uint acc = 0;
    [unroll] for (int i = 0; i < 8; i++) { if (i == (int)SU[2]) break; acc += 1u << i; }
    Out[6] = acc;
}
"""

INT_MIN = 0x80000000


def s32(x: int) -> int:
    return x - (1 << 32) if x & INT_MIN else x


@pytest.mark.parametrize("backend", ["spirv", "dxil", "dxil-vk"])
def test_atomics_signedness_initializers_unroll(backend):
    si, su, ba = [2, -9], [0xFFFFFFFF, 7, 3], [INT_MIN] * 4
    got = run_backend(backend, SRC, {"Out": ("uint", 7)},
                      {"SI": ("int", si), "SU": ("uint", su), "BA": ("uint", ba)})
    assert got["SI"] == [min(si[0], -5), max(si[1], -5)]
    assert got["SU"] == [min(su[0], 5), max(su[1], 0xFFFFFFF0), 3]
    # raw buffer: an int value compares signed (INT_MIN stays the minimum), a uint value unsigned
    assert got["BA"] == [min(s32(INT_MIN), 5) & 0xFFFFFFFF, max(s32(INT_MIN), 5), min(INT_MIN, 5), max(INT_MIN, 5)]
    want_out = [si[0] & 0xFFFFFFFF, si[1] & 0xFFFFFFFF, su[0], su[1], INT_MIN,
                int(4.5 * 2) + 7 * 100 + 1 * 10000, sum(1 << i for i in range(su[2]))]
    assert got["Out"] == want_out
