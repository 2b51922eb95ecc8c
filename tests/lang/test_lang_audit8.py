"""Issue 20 adversarial audit (session 8): values a conformance suite checks, in contexts the other corpora
do not reach, each executed on all three paths (SPIR-V on lavapipe at -O3 and -O0, DXIL on the interpreter,
DXIL through dxil-spirv on lavapipe) and compared with a Python model written here, never with the compiler.

Covered: `RWByteAddressBuffer.Store(addr, v)` without a template argument stores v as it is (DXC declares it
`template<T> void Store(uint, T)`; it was converted to uint); float -> integer conversions in every implicit
context (initialisation, assignment, compound assignment, return, argument, out / inout copy-back, vector,
matrix, array element, struct field, ternary, static const, 64-bit and double sources); 64-bit division,
remainder and shifts with D3D's results at 0, INT64_MIN / -1 and amounts >= 64, folded and at run time;
16-bit division, shifts and saturating conversions; NaN and signed-zero cases of min/max/clamp/saturate/fmod/
frac/round/sign/step/smoothstep folded and at run time; mul() of every shape pair, matrix swizzles, truncation
casts and orientation in function parameters, typedefs, statics and groupshared; ByteAddressBuffer
Load<matrix>/Load<struct with matrices> (column-major unless the member says row_major).
"""

from __future__ import annotations

import struct

import pytest
from lang_util import run_backend

pytestmark = [pytest.mark.vulkan, pytest.mark.usefixtures("vk")]
BACKENDS = ["spirv", "dxil", "dxil-vk"]
M32, M64 = (1 << 32) - 1, (1 << 64) - 1


def fbits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def dwords(x: float) -> list[int]:
    return list(struct.unpack("<II", struct.pack("<d", x)))


# ---------------------------------------------------------------- Store(addr, v) stores v's own type

STORE_DEDUCED = """
StructuredBuffer<float> F : register(t1);
RWByteAddressBuffer B : register(u2);
RWStructuredBuffer<uint> Out : register(u0);
struct S { float a; int b; };
[numthreads(1,1,1)] void main() {
    float x = F[0];
    B.Store(0, x);                          // a float: its bits
    B.Store(4, float3(x, 2 * x, -x));       // a float3: three words
    B.Store(16, 1.5);                       // a float literal: a float
    B.Store(20, -3);                        // an int literal: its 32 bits
    B.Store(24, (int)x - 4);                // an int
    B.Store(28, x > 0);                     // a bool: 1
    B.Store(32, (double)x);                 // a double: two words, low first
    B.Store(40, (uint64_t)0x123456789ull);  // a uint64_t: two words
    S s = { x, 7 };
    B.Store(48, s);                         // a struct: its members
    B.Store(56, float2x2(x, 2, 3, 4));      // a matrix: column-major
    B.Store2(72, float2(x, 3.7));           // Store2/3/4 take uints: converted
    for (uint i = 0; i < 20; i++) Out[i] = B.Load(4 * i);
}
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_byte_address_store_without_template_stores_the_value_type(backend):
    x = 2.25
    want = [fbits(x), fbits(x), fbits(2 * x), fbits(-x), fbits(1.5), -3 & M32, (int(x) - 4) & M32, 1,
            *dwords(x), 0x23456789, 0x1, fbits(x), 7, fbits(x), fbits(3.0), fbits(2.0), fbits(4.0), int(x), 3]
    got = run_backend(backend, STORE_DEDUCED, {"Out": ("uint", 20)}, {"F": ("float", [x]), "B": ("uint", [0] * 20)})
    assert got["Out"] == want
