"""RWByteAddressBuffer Load<T>/Store<T> of 64-bit scalars and vectors (double, int64_t, uint64_t; issue 20):
each component is two 32-bit words, low word first, holding the value's bits.  The buffer is written
and read back with Python's struct module."""

from __future__ import annotations

import struct

import pytest
from lang_util import run_backend

pytestmark = [pytest.mark.vulkan, pytest.mark.usefixtures("vk")]

SRC = """
RWStructuredBuffer<uint> Out : register(u0);
RWByteAddressBuffer BA : register(u1);
[numthreads(1, 1, 1)]
void main() {
    double d = BA.Load<double>(0);
    Out[0] = (uint)(d * 4.0);
    uint64_t u = BA.Load<uint64_t>(8);
    Out[1] = (uint)(u >> 32); Out[2] = (uint)u;
    double2 v = BA.Load<double2>(16);
    Out[3] = (uint)(v.y - v.x);
    int64_t s = BA.Load<int64_t>(32);
    Out[4] = (uint)(s / 2);
    BA.Store<double>(40, d * 2.0);
    BA.Store<int64_t>(48, (int64_t)-3);
    BA.Store<double2>(56, double2(0.5, -8.0));
}
"""


def _words(fmt: str, *vals) -> list[int]:
    data = struct.pack("<" + fmt, *vals)
    return list(struct.unpack(f"<{len(data) // 4}I", data))


@pytest.mark.parametrize("backend", ["spirv", "dxil", "dxil-vk"])
def test_byte_address_64_bit_load_store(backend):
    d, u, v, s = 2.75, 0x0123456789ABCDEF, (10.0, 1e9), -4_000_000_000
    words = _words("d", d) + _words("Q", u) + _words("2d", *v) + _words("q", s) + [0] * 10
    got = run_backend(backend, SRC, {"Out": ("uint", 5)}, {"BA": ("uint", words)})
    want = [int(d * 4), u >> 32, u & 0xFFFFFFFF, int(v[1] - v[0]), (s // 2) & 0xFFFFFFFF]
    assert got["Out"] == want
    assert struct.unpack("<dqdd", struct.pack("<8I", *got["BA"][10:18])) == (d * 2, -3, 0.5, -8.0)
