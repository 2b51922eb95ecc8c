"""Packed byte math (SM 6.4 / 6.6) at every lane edge, executed (issue 20, audit12).

dot4add_u8packed / dot4add_i8packed over byte pairs chosen from the edges (0x00, 0x01, 0x7F, 0x80, 0x81,
0xFE, 0xFF) with accumulators that wrap; pack_u8 / pack_s8 (truncation) and pack_clamp_u8 / pack_clamp_s8
(saturation) of 32- and 16-bit vectors around every boundary; unpack_u8u32 / unpack_s8s32 / unpack_u8u16 /
unpack_s8s16 (zero and sign extension of 0x80 and 0xFF); dot2add with products exact in half.  Each thread
takes one case from a buffer, so one dispatch checks a whole table.  Every shader runs on lavapipe (-O3 and
-O0) and its DXIL twin on the interpreter and through dxil-spirv (res_util.run_cs).  Expected values are
computed here from the bytes.
"""

from __future__ import annotations

import struct

import pytest
import res_util as R

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

M32 = 0xFFFFFFFF
EDGES = [0x00, 0x01, 0x7F, 0x80, 0x81, 0xFE, 0xFF]


def nbytes(w: int) -> list[int]:
    return [(w >> (8 * i)) & 255 for i in range(4)]


def sbyte(x: int) -> int:
    return x - 256 if x >= 128 else x


def word(bs) -> int:
    return sum((b & 255) << (8 * i) for i, b in enumerate(bs))


def s32(x: int) -> int:
    x &= M32
    return x - (1 << 32) if x >> 31 else x


def edge_words(n: int, seed: int) -> list[int]:
    """n words whose bytes walk the edge list (every byte position meets every edge value)."""
    return [word(EDGES[(k * 3 + i * (seed + 1) + seed) % len(EDGES)] for i in range(4)) for k in range(n)]


# ---------------------------------------------------------------- dot4add

DOT4 = """
StructuredBuffer<uint4> In : register(t0);     // a, b, unsigned acc, signed acc (as bits)
RWStructuredBuffer<uint2> Out : register(u1);
[numthreads(64, 1, 1)]
void main(uint t : SV_DispatchThreadID) {
    uint4 c = In[t];
    Out[t] = uint2(dot4add_u8packed(c.x, c.y, c.z), (uint)dot4add_i8packed(c.x, c.y, (int)c.w));
}
"""


def dot4_cases() -> list[tuple[int, int, int, int]]:
    a, b = edge_words(64, 1), edge_words(64, 4)
    accs = [0, 1, M32, 0x7FFFFFFF, 0x80000000, 0xFFFF0000, 12345, 0x7FFF0000]
    return [(a[k], b[k], accs[k % 8], accs[(k + 3) % 8]) for k in range(64)]


def test_dot4add_every_byte_edge():
    """Unsigned: acc + sum(a_i * b_i) modulo 2^32 (0xFF * 0xFF = 65025 per pair); signed: the bytes
    sign-extended (0x80 = -128, 0xFF = -1), the int sum wraps."""
    cases = dot4_cases()
    out = R.cs(DOT4, {"In": R.storage(R.pack("I", [x for c in cases for x in c])), "Out": R.storage(R.sentinel(128))},
               profile="cs_6_4")
    got = R.unpack("I", out["Out"])
    want = []
    for a, b, ua, sa in cases:
        want.append((ua + sum(x * y for x, y in zip(nbytes(a), nbytes(b)))) & M32)
        want.append((s32(sa) + sum(sbyte(x) * sbyte(y) for x, y in zip(nbytes(a), nbytes(b)))) & M32)
    bad = [(k // 2, cases[k // 2], hex(g), hex(w)) for k, (g, w) in enumerate(zip(got, want)) if g != w]
    assert not bad, f"{len(bad)} wrong (case, inputs, got, want): {bad[:6]}"


def test_dot4add_extremes():
    """The largest magnitudes: 0xFFFFFFFF . 0xFFFFFFFF unsigned is 4 * 65025; signed -1 . -1 is 4;
    0x80808080 . 0x80808080 signed is 4 * 16384 and with 0x7F7F7F7F it is 4 * -16256 (unsigned 4 * 16256)."""
    cases = [(M32, M32, 0, 0), (0x80808080, 0x80808080, M32, 0x7FFFFFFF), (0x80808080, 0x7F7F7F7F, 5, 0x80000000),
             (0x7F7F7F7F, 0x7F7F7F7F, 0, s32(-64516) & M32)]
    cases += [(0, 0, 0, 0)] * (64 - len(cases))
    out = R.cs(DOT4, {"In": R.storage(R.pack("I", [x for c in cases for x in c])), "Out": R.storage(R.sentinel(128))},
               profile="cs_6_4")
    got = R.unpack("I", out["Out"])[:8]
    assert got == [4 * 65025, 4, (M32 + 4 * 128 * 128) & M32, (0x7FFFFFFF + 4 * 16384) & M32,
                   5 + 4 * 128 * 127, (0x80000000 + 4 * -128 * 127) & M32, 4 * 127 * 127, 0]


# ---------------------------------------------------------------- pack / pack_clamp (32-bit)

PACK32 = """
StructuredBuffer<int4> In : register(t0);
RWStructuredBuffer<uint4> Out : register(u1);
[numthreads(32, 1, 1)]
void main(uint t : SV_DispatchThreadID) {
    int4 v = In[t];
    Out[t] = uint4(pack_u8((uint4)v), pack_s8(v), pack_clamp_u8(v), pack_clamp_s8(v));
}
"""
INT_EDGES = [-2147483648, -65536, -257, -256, -255, -129, -128, -127, -1, 0, 1, 126, 127, 128, 129, 254, 255, 256,
             257, 511, 65535, 65536, 2147483647, -2]


def pack_want(v: list[int], lo_hi=None) -> int:
    if lo_hi is not None:
        v = [min(max(x, lo_hi[0]), lo_hi[1]) for x in v]
    return word(x & 255 for x in v)


def test_pack_truncates_and_pack_clamp_saturates_32bit():
    vecs = [[INT_EDGES[(k * 4 + i * 7) % len(INT_EDGES)] for i in range(4)] for k in range(32)]
    out = R.cs(PACK32, {"In": R.storage(R.pack("i", [x for v in vecs for x in v])), "Out": R.storage(R.sentinel(128))},
               profile="cs_6_6")
    got = R.unpack("I", out["Out"])
    want = []
    for v in vecs:
        want += [pack_want(v), pack_want(v), pack_want(v, (0, 255)), pack_want(v, (-128, 127))]
    bad = [(k // 4, k % 4, vecs[k // 4], hex(g), hex(w)) for k, (g, w) in enumerate(zip(got, want)) if g != w]
    assert not bad, f"{len(bad)} wrong (case, which, input, got, want): {bad[:6]}"


# ---------------------------------------------------------------- 16-bit forms (-enable-16bit-types)

PACK16 = """
StructuredBuffer<uint> In : register(t0);       // one int16 pair per word, two words per case
RWStructuredBuffer<uint4> Out : register(u1);
RWStructuredBuffer<uint4> Unpacked : register(u2);
[numthreads(32, 1, 1)]
void main(uint t : SV_DispatchThreadID) {
    uint lo = In[2 * t], hi = In[2 * t + 1];
    int16_t4 v = int16_t4((int16_t)(lo & 0xFFFF), (int16_t)(lo >> 16), (int16_t)(hi & 0xFFFF), (int16_t)(hi >> 16));
    uint16_t4 u = (uint16_t4)v;
    Out[t] = uint4(pack_u8(u), pack_s8(v), pack_clamp_u8(v), pack_clamp_s8(v));
    int16_t4 s = unpack_s8s16((int8_t4_packed)lo);
    uint16_t4 z = unpack_u8u16((uint8_t4_packed)lo);
    // 16-bit lanes rebuilt as words: sign extension shows in the high half of each (int) conversion
    Unpacked[t] = uint4((uint)(int)s.x, (uint)(int)s.w, (uint)z.y | ((uint)z.z << 16), (uint)(s.y + s.z));
}
"""
I16_EDGES = [-32768, -32767, -256, -255, -129, -128, -127, -1, 0, 1, 127, 128, 129, 255, 256, 32767, -2, 300]


def test_pack_and_unpack_16bit():
    vecs = [[I16_EDGES[(k * 5 + i * 3) % len(I16_EDGES)] for i in range(4)] for k in range(32)]
    words = []
    for v in vecs:
        words += [(v[0] & 0xFFFF) | ((v[1] & 0xFFFF) << 16), (v[2] & 0xFFFF) | ((v[3] & 0xFFFF) << 16)]
    out = R.cs(PACK16, {"In": R.storage(R.pack("I", words)), "Out": R.storage(R.sentinel(128)),
                        "Unpacked": R.storage(R.sentinel(128))},
               profile="cs_6_6", enable_16bit_types=True)
    got, un = R.unpack("I", out["Out"]), R.unpack("I", out["Unpacked"])
    want, want_un = [], []
    for k, v in enumerate(vecs):
        want += [pack_want(v), pack_want(v), pack_want(v, (0, 255)), pack_want(v, (-128, 127))]
        bs = nbytes(words[2 * k])
        sb = [sbyte(x) for x in bs]
        want_un += [sb[0] & M32, sb[3] & M32, bs[1] | (bs[2] << 16), (sb[1] + sb[2]) & M32]
    bad = [(k // 4, k % 4, vecs[k // 4], hex(g), hex(w)) for k, (g, w) in enumerate(zip(got, want)) if g != w]
    assert not bad, f"{len(bad)} wrong packs (case, which, input, got, want): {bad[:6]}"
    bad = [(k // 4, k % 4, hex(words[2 * (k // 4)]), hex(g), hex(w)) for k, (g, w) in enumerate(zip(un, want_un))
           if g != w]
    assert not bad, f"{len(bad)} wrong unpacks (case, which, word, got, want): {bad[:6]}"


# ---------------------------------------------------------------- unpack (32-bit)

UNPACK32 = """
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint4> U : register(u1);
RWStructuredBuffer<int4> S : register(u2);
RWStructuredBuffer<uint> Round : register(u3);
[numthreads(64, 1, 1)]
void main(uint t : SV_DispatchThreadID) {
    uint w = In[t];
    U[t] = unpack_u8u32((uint8_t4_packed)w);
    S[t] = unpack_s8s32((int8_t4_packed)w);
    // unpack then pack gives the word back (pack_s8 of sign-extended bytes, pack_u8 of zero-extended ones)
    Round[t] = (pack_s8(unpack_s8s32(w)) == w ? 1u : 0u) | (pack_u8(unpack_u8u32(w)) == w ? 2u : 0u)
             | (pack_clamp_s8(unpack_s8s32(w)) == w ? 4u : 0u);
}
"""


def test_unpack_extends_every_byte_edge():
    ws = edge_words(64, 2)
    out = R.cs(UNPACK32, {"In": R.storage(R.pack("I", ws)), "U": R.storage(R.sentinel(256)),
                          "S": R.storage(R.sentinel(256)), "Round": R.storage(R.sentinel(64))}, profile="cs_6_6")
    assert R.unpack("I", out["U"]) == [b for w in ws for b in nbytes(w)]
    assert R.unpack("i", out["S"]) == [sbyte(b) for w in ws for b in nbytes(w)]
    assert R.unpack("I", out["Round"]) == [7] * 64


# ---------------------------------------------------------------- dot2add

def half(x: float) -> float:
    """x rounded to binary16 (infinity beyond 65504 + half an ulp)."""
    try:
        return struct.unpack("<e", struct.pack("<e", x))[0]
    except OverflowError:
        return float("inf") if x > 0 else float("-inf")


DOT2 = """
StructuredBuffer<float4> In : register(t0);     // a.xy, b.xy
StructuredBuffer<float> Acc : register(t1);
RWStructuredBuffer<float> Out : register(u2);
[numthreads(16, 1, 1)]
void main(uint t : SV_DispatchThreadID) {
    float4 c = In[t];
    Out[t] = dot2add((half2)c.xy, (half2)c.zw, Acc[t]);
    Out[16 + t] = dot2add(c.xy, c.zw, Acc[t]);      // float2 arguments convert to half2 (rounding with 16-bit types)
}
"""


@pytest.mark.parametrize("bits16", [False, True], ids=["half-is-float", "enable-16bit-types"])
def test_dot2add_values(bits16):
    """Inputs exact in half, products exact in float, acc + products exact in float: the order of the sum
    cannot matter, so the value is the exact one.  Includes half's largest (65504), smallest normal (2^-14)
    and negative zero (-0 * 1 + -0 = -0).  With -enable-16bit-types a float argument is rounded to half
    first (cast or implicit); without it half is float and nothing rounds."""
    cases = [((1.5, -2.0), (4.0, 0.25), 10.0), ((65504.0, 1.0), (2.0, -1.0), 0.5), ((2.0 ** -14, 3.0), (2.0 ** -10, 0.0), 2.0 ** -20),
             ((-0.0, 0.0), (1.0, -1.0), -0.0), ((-3.0, -7.5), (-3.0, 2.0), -100.0), ((255.0, 255.0), (255.0, -255.0), 1.0),
             ((0.125, 1024.0), (8.0, 0.0625), -65.0), ((1.0, 1.0), (1.0, 1.0), 2.0 ** 20)]
    # not exact in half: 1 + 2^-12 rounds to 1, 3 + 2^-9 to 3 (ties to even), 2049 to 2048, 70000 to infinity
    cases += [((1.0 + 2.0 ** -12, 3.0 + 2.0 ** -9), (1.0, 2.0), 0.0), ((2049.0, 1.0), (1.0, 0.0), 0.0),
              ((70000.0, 0.0), (1.0, 0.0), 0.0)]
    cases += [((0.0, 0.0), (0.0, 0.0), float(k)) for k in range(16 - len(cases))]
    opts = {"enable_16bit_types": True} if bits16 else {}
    out = R.cs(DOT2, {"In": R.storage(R.pack("f", [x for a, b, _ in cases for x in (*a, *b)])),
                      "Acc": R.storage(R.pack("f", [c for _a, _b, c in cases])), "Out": R.storage(R.sentinel(32))},
               profile="cs_6_4", **opts)
    got = R.unpack("f", out["Out"])
    rnd = half if bits16 else (lambda x: x)
    want = [R.f32(acc + rnd(a[0]) * rnd(b[0]) + rnd(a[1]) * rnd(b[1])) for a, b, acc in cases]
    assert got[:16] == want
    assert got[16:] == want
    assert [struct.pack("<f", g) for g in got[3:4]] == [struct.pack("<f", -0.0)]


# ---------------------------------------------------------------- constant arguments: folded as at run time

FOLDED = """
StructuredBuffer<uint> Zero : register(t0);      // 0: keeps the run-time twin of each call unfolded
RWStructuredBuffer<uint> Out : register(u1);
[numthreads(1, 1, 1)]
void main() {
    uint z = Zero[0];
    uint k = 0;
#define BOTH(e, r) Out[k++] = (uint)(e); Out[k++] = (uint)(r);
    BOTH(dot4add_u8packed(0xFFFFFFFFu, 0xFF80017Fu, 0xFFFFFFF0u), dot4add_u8packed(0xFFFFFFFFu + z, 0xFF80017Fu, 0xFFFFFFF0u))
    BOTH(dot4add_i8packed(0x80808080u, 0x7F7F7F7Fu, -1), dot4add_i8packed(0x80808080u + z, 0x7F7F7F7Fu, -1))
    BOTH(dot4add_i8packed(0xFF01807Fu, 0x80FF7F81u, 0x7FFFFFFF), dot4add_i8packed(0xFF01807Fu ^ z, 0x80FF7F81u, 0x7FFFFFFF))
    BOTH(pack_s8(int4(-129, 128, -1, 300)), pack_s8(int4(-129, 128, -1, 300) + (int)z))
    BOTH(pack_clamp_s8(int4(-129, 128, -1, 300)), pack_clamp_s8(int4(-129, 128, -1, 300) + (int)z))
    BOTH(pack_clamp_u8(int4(-129, 128, -1, 300)), pack_clamp_u8(int4(-129, 128, -1, 300) + (int)z))
    BOTH(pack_u8(uint4(0x1FF, 0x80, 0xFFFFFFFF, 7)), pack_u8(uint4(0x1FF, 0x80, 0xFFFFFFFF, 7) + z))
    BOTH(unpack_s8s32(0x80FF017Fu).x, unpack_s8s32(0x80FF017Fu + z).x)
    BOTH(unpack_s8s32(0x80FF017Fu).w, unpack_s8s32(0x80FF017Fu + z).w)
    BOTH(unpack_s8s32(0x80FF017Fu).z, unpack_s8s32(0x80FF017Fu + z).z)
    BOTH(unpack_u8u32(0x80FF017Fu).z, unpack_u8u32(0x80FF017Fu + z).z)
    BOTH(unpack_s8s16(0x80FF017Fu).w, unpack_s8s16(0x80FF017Fu + z).w)
    BOTH(unpack_u8u16(0x80FF017Fu).w, unpack_u8u16(0x80FF017Fu + z).w)
    BOTH(pack_clamp_s8(int16_t4(-32768, 32767, -128, 127)), pack_clamp_s8(int16_t4(-32768, 32767, -128, 127) + (int16_t)z))
    BOTH(pack_u8(uint16_t4(0xFFFF, 0x100, 0x80, 0)), pack_u8(uint16_t4(0xFFFF, 0x100, 0x80, 0) + (uint16_t)z))
    BOTH(asuint(dot2add(half2(65504, -2), half2(2, 0.5), 1.0f)), asuint(dot2add(half2(65504, -2), half2(2, 0.5), 1.0f + z)))
}
"""


def test_constant_arguments_fold_as_at_run_time():
    """Each call twice: with constant arguments (folded by the front end / optimiser) and with an argument
    read at run time; both equal the value computed here."""
    out = R.cs(FOLDED, {"Zero": R.storage(R.pack("I", [0])), "Out": R.storage(R.sentinel(32))},
               profile="cs_6_6", enable_16bit_types=True)
    got = R.unpack("I", out["Out"])
    b = nbytes
    want = [
        (0xFFFFFFF0 + sum(x * y for x, y in zip(b(M32), b(0xFF80017F)))) & M32,
        (-1 + 4 * -128 * 127) & M32,
        (0x7FFFFFFF + sum(sbyte(x) * sbyte(y) for x, y in zip(b(0xFF01807F), b(0x80FF7F81)))) & M32,
        pack_want([-129, 128, -1, 300]), pack_want([-129, 128, -1, 300], (-128, 127)),
        pack_want([-129, 128, -1, 300], (0, 255)), pack_want([0x1FF, 0x80, M32, 7]),
        0x7F, (-128) & M32, 0xFFFFFFFF, 0xFF, (-128) & M32, 0x80,
        pack_want([-32768, 32767, -128, 127], (-128, 127)), pack_want([0xFFFF, 0x100, 0x80, 0]),
        struct.unpack("<I", struct.pack("<f", 1.0 + 65504.0 * 2 - 1.0))[0],
    ]
    assert got[0::2] == want, [hex(x) for x in got[0::2]]
    assert got[1::2] == want, [hex(x) for x in got[1::2]]
