"""64-bit elements in typed buffers (RWBuffer<uint64_t2>, Buffer<double2>, RWBuffer<int64_t>,
Buffer<double>): both backends store them as 32-bit uint words, twice as many per element (DXIL:
U32 element type and i32 bufferLoad/bufferStore joined with shifts / makeDouble, as DXC; SPIR-V: a
uint image read and written as words, since Vulkan forbids 64-bit float images and 64-bit integer
images need Int64ImageEXT).  Executed on lavapipe, and through the DXIL twin on the interpreter
(run_cs); the expected values are computed here."""

from __future__ import annotations

import re
import struct

import pytest
import res_util as R

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

M64 = (1 << 64) - 1
U64 = [0x0000000100000002, 0xFFFFFFFF00000005, 0x8000000000000000, 7, 0x123456789ABCDEF0, 1 << 40, 3, M64]
I64 = [-5, 1 << 35, -(1 << 40) + 3, 9]
D2 = [1.5, 2.25, -3.0, 1e10, 0.125, 4.0, 6.5, -0.5]
D1 = [1.0, -2.5, 1e12, 0.75]


def words64(values: list[int]) -> bytes:
    return struct.pack(f"<{len(values)}Q", *[v & M64 for v in values])


SRC = """
RWBuffer<uint64_t2> U : register(u0);
Buffer<double2> D : register(t3);
RWBuffer<int64_t> I : register(u1);
Buffer<double> E : register(t4);
RWStructuredBuffer<double> Out : register(u2);
[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint i = id.x;
    uint64_t2 v = U[i];
    U[i] = v * 3 + uint64_t2(i, 0x100000000ull);
    double2 d = D[i];
    I[i] = I[i] * -7 + (int64_t)(v.x >> 60);
    Out[i] = d.x * 2.0 + d.y + E[i];
}
"""


def specs() -> dict:
    return {"U": R.texel(words64(U64), "rgba32ui"),
            "D": R.texel(struct.pack("<8d", *D2), "rgba32ui", writable=False),
            "I": R.texel(words64(I64), "rg32ui"),
            "E": R.texel(struct.pack("<4d", *D1), "rg32ui", writable=False),
            "Out": R.storage(bytes(32))}


def test_typed_64bit_buffers_execute():
    out = R.run_cs(R.build(SRC), specs())
    want_u = []
    for i in range(4):
        x, y = U64[2 * i], U64[2 * i + 1]
        want_u += [(x * 3 + i) & M64, (y * 3 + (1 << 32)) & M64]
    assert list(struct.unpack("<8Q", out["U"])) == want_u
    want_i = [(I64[i] * -7 + (U64[2 * i] >> 60)) for i in range(4)]
    assert list(struct.unpack("<4q", out["I"])) == want_i
    assert list(struct.unpack("<4d", out["Out"])) == [D2[2 * i] * 2.0 + D2[2 * i + 1] + D1[i] for i in range(4)]


def test_dxil_uses_32bit_typed_accesses():
    """U32 element type with twice the components; i32 loads/stores; doubles rebuilt with makeDouble."""
    _res, chk = R.build_dxil(SRC)
    text = chk.ir
    assert "bufferLoad.i64" not in text and "bufferLoad.f64" not in text
    assert len(re.findall(r"@dx\.op\.bufferLoad\.i32\(i32 68,", text)) == 4      # U, D, I, E
    assert "bufferStore.i64" not in text and "bufferStore.f64" not in text
    assert "@dx.op.makeDouble.f64(i32 101" in text
    # typed records carry the element-type tag (0) = U32 (5)
    assert re.search(r"!\{i32 0, i32 5\}", text)
    assert not re.search(r"!\{i32 0, i32 (6|7|10)\}", text)


def test_spirv_images_are_32bit_uint():
    text = R.spirv_dis(R.build(SRC))
    images = re.findall(r"OpTypeImage (%\w+) Buffer 2 0 0 (\d) (\w+)", text)
    # D and E share one sampled image type; U and I are storage images with their word formats
    assert sorted(images) == [("%uint", "1", "Unknown"), ("%uint", "2", "Rg32ui"), ("%uint", "2", "Rgba32ui")]
    assert "Int64ImageEXT" not in text


def test_wider_64bit_element_is_refused():
    src = "RWBuffer<uint64_t3> B : register(u0);\n[numthreads(1,1,1)] void main() { B[0] = 1; }\n"
    for target in ("spirv", "dxil"):
        res = R.compile_hlsl(src, target=target)
        assert not res.ok
        assert R.errors(res) == ["1:10: elements of typed buffers and textures must fit in four 32-bit quantities"]
