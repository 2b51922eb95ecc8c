"""Wave, quad and barrier operations audited against DXC's semantics, executed.

Wave ops read other lanes, so every case runs on the two Vulkan paths (our SPIR-V on lavapipe, repeated at
-O0 by the harness, and our DXIL through dxil-spirv on lavapipe); the serial DXIL interpreter cannot run
them.  No expectation assumes a wave size: every shader writes each thread's WaveGetLaneIndex and the
thread id of its wave's lane 0, the test rebuilds the waves from those (checking they are consistent: lane
indices 0..n-1 once each, n == WaveGetLaneCount) and computes every expected value in Python from them.
(lavapipe runs 8-lane subgroups, so a 32- or 64-thread group has several waves.)
"""

from __future__ import annotations

import math

import pytest
from lang_util import run_backend

pytestmark = [pytest.mark.vulkan, pytest.mark.usefixtures("vk")]

VK = ["spirv", "dxil-vk"]
U32 = 0xFFFFFFFF

# Every shader starts its entry point with this: Lane/Head/Count of thread t (Head: the thread of lane 0)
LANES = """
    Lane[t] = WaveGetLaneIndex();
    Count[t] = WaveGetLaneCount();
    Head[t] = WaveReadLaneAt(t, 0);
"""
DECLS = """
RWStructuredBuffer<uint> Lane : register(u10);
RWStructuredBuffer<uint> Count : register(u11);
RWStructuredBuffer<uint> Head : register(u12);
"""


def lane_bufs(n: int) -> dict:
    return {"Lane": ("uint", n), "Count": ("uint", n), "Head": ("uint", n)}


def waves(got: dict, n: int) -> list[list[int]]:
    """The waves of an n-thread group as lists of thread ids in lane order, checked for consistency."""
    by_head: dict[int, dict[int, int]] = {}
    for t in range(n):
        by_head.setdefault(got["Head"][t], {})[got["Lane"][t]] = t
    out = []
    for head, lanes in sorted(by_head.items()):
        size = got["Count"][head]
        assert sorted(lanes) == list(range(len(lanes))), f"wave of thread {head}: lanes {sorted(lanes)}"
        assert len(lanes) == size and all(got["Count"][t] == size for t in lanes.values()), "WaveGetLaneCount"
        assert lanes[0] == head
        out.append([lanes[i] for i in range(size)])
    assert sorted(t for w in out for t in w) == list(range(n))
    return out


def wave_of(ws: list[list[int]]) -> dict[int, list[int]]:
    return {t: w for w in ws for t in w}


def run(backend: str, src: str, n: int, outputs: dict, inputs: dict | None = None, **kw) -> tuple[dict, list]:
    got = run_backend(backend, src, {**outputs, **lane_bufs(n)}, inputs, **kw)
    return got, waves(got, n)


def i32(x: int) -> int:
    x &= U32
    return x - (1 << 32) if x >> 31 else x


def i64(x: int) -> int:
    x &= (1 << 64) - 1
    return x - (1 << 64) if x >> 63 else x


# ---------------------------------------------------------------- lane queries, votes, ballot

BASICS = DECLS + """
RWStructuredBuffer<uint> Out : register(u0);
StructuredBuffer<uint> In : register(t1);
[numthreads(64, 1, 1)]
void main(uint t : SV_GroupIndex) {
""" + LANES + """
    uint v = In[t];
    uint4 b = WaveActiveBallot(v % 3u == 0u);
    Out[t * 12 + 0] = WaveIsFirstLane() ? 1u : 0u;
    Out[t * 12 + 1] = WaveActiveAnyTrue(v == 7u) ? 1u : 0u;
    Out[t * 12 + 2] = WaveActiveAllTrue(v < 60u) ? 1u : 0u;
    Out[t * 12 + 3] = b.x;
    Out[t * 12 + 4] = b.y | b.z | b.w;
    Out[t * 12 + 5] = WaveActiveCountBits(v % 3u == 0u);
    Out[t * 12 + 6] = WavePrefixCountBits(v % 3u == 0u);
    Out[t * 12 + 7] = WaveReadLaneFirst(v * 10u);
    Out[t * 12 + 8] = WaveReadLaneAt(v, 3);                    // a constant lane
    Out[t * 12 + 9] = WaveReadLaneAt(v, In[64] % Count[t]);    // a dynamically uniform lane
    Out[t * 12 + 10] = WaveActiveAllEqual(v / 16u) ? 1u : 0u;
    Out[t * 12 + 11] = WaveActiveCountBits(v);                 // a uint converts to bool (v != 0)
}
"""


@pytest.mark.parametrize("backend", VK)
def test_lane_queries_votes_and_ballot(backend):
    """Ballot's uint4 puts lane i at bit i % 32 of component i / 32; CountBits/PrefixCountBits count the
    ballot (prefix: lanes below this one); ReadLaneAt with a constant and with a dynamically uniform lane."""
    vals = [(t * 7 + 3) % 61 for t in range(64)]
    got, ws = run(backend, BASICS, 64, {"Out": ("uint", 64 * 12)}, {"In": ("uint", vals + [5])})
    for w in ws:
        ballot = sum(1 << i for i, u in enumerate(w) if vals[u] % 3 == 0)
        for lane, t in enumerate(w):
            want = [int(lane == 0), int(any(vals[u] == 7 for u in w)), int(all(vals[u] < 60 for u in w)),
                    ballot & U32, ballot >> 32, bin(ballot).count("1"), bin(ballot & ((1 << lane) - 1)).count("1"),
                    vals[w[0]] * 10, vals[w[3]], vals[w[5 % len(w)]], int(len({vals[u] // 16 for u in w}) == 1),
                    sum(1 for u in w if vals[u])]
            assert got["Out"][t * 12:t * 12 + 12] == want, f"thread {t} (lane {lane})"


# ---------------------------------------------------------------- reductions and scans on every type

REDUCE = DECLS + """
RWStructuredBuffer<int> I : register(u0);
RWStructuredBuffer<uint> U : register(u1);
RWStructuredBuffer<float> F : register(u2);
StructuredBuffer<int> In : register(t3);
[numthreads(32, 1, 1)]
void main(uint t : SV_GroupIndex) {
""" + LANES + """
    int s = In[t];
    uint u = (uint)s;
    float f = (float)s * 0.5;
    I[t * 8 + 0] = WaveActiveSum(s);
    I[t * 8 + 1] = WaveActiveProduct(s % 3 + (s < 0 ? -1 : 1));
    I[t * 8 + 2] = WaveActiveMin(s);
    I[t * 8 + 3] = WaveActiveMax(s);
    I[t * 8 + 4] = WavePrefixSum(s);
    I[t * 8 + 5] = WavePrefixProduct(s % 3 + (s < 0 ? -1 : 1));
    int2 v = WaveActiveMin(int2(s, -s));
    I[t * 8 + 6] = v.x * 1000 + v.y;
    I[t * 8 + 7] = WaveMultiPrefixBitOr(s, WaveActiveBallot(true));
    U[t * 8 + 0] = WaveActiveMin(u);             // unsigned: negative ints are the largest
    U[t * 8 + 1] = WaveActiveMax(u);
    U[t * 8 + 2] = WaveActiveBitAnd(u | 0x10u);
    U[t * 8 + 3] = WaveActiveBitOr(u & 0xF0u);
    U[t * 8 + 4] = WaveActiveBitXor(u);
    U[t * 8 + 5] = WaveActiveSum(u);
    U[t * 8 + 6] = WavePrefixSum(u);
    uint3 w = WaveActiveMax(uint3(u, u >> 1, 7u));
    U[t * 8 + 7] = w.x ^ w.y ^ w.z;
    F[t * 6 + 0] = WaveActiveSum(f);
    F[t * 6 + 1] = WaveActiveMin(f);
    F[t * 6 + 2] = WaveActiveMax(f);
    F[t * 6 + 3] = WavePrefixSum(f);
    F[t * 6 + 4] = WaveActiveProduct(s % 2 == 0 ? 2.0 : -0.5);
    float2 g = WavePrefixProduct(float2(1.5, s < 0 ? -1.0 : 1.0));
    F[t * 6 + 5] = g.x * g.y;
}
"""
REDUCE_IN = [(-1) ** t * ((t * 37) % 23) for t in range(32)]


def _prod(xs, mask=None):
    p = 1
    for x in xs:
        p *= x
    return p if mask is None else p & mask


@pytest.mark.parametrize("backend", VK)
def test_reductions_and_scans_int_uint_float(backend):
    """Sum/Product/Min/Max and the prefix forms: signed min/max on int, unsigned on uint (a negative int
    read as uint is large), bit reductions, per-component on vectors; float sums of exact halves."""
    got, ws = run(backend, REDUCE, 32, {"I": ("int", 256), "U": ("uint", 256), "F": ("float", 192)},
                  {"In": ("int", REDUCE_IN)}, profile="cs_6_5")
    for w in ws:
        s = [REDUCE_IN[u] for u in w]
        us = [x & U32 for x in s]
        small = [int(math.fmod(x, 3)) + (-1 if x < 0 else 1) for x in s]     # C's % truncates toward zero
        for lane, t in enumerate(w):
            band = U32
            for x in us:
                band &= x | 0x10
            bor = 0
            bxor = 0
            for x in us:
                bor |= x & 0xF0
                bxor ^= x
            mx = [max(us), max(x >> 1 for x in us), 7]
            assert got["I"][t * 8:t * 8 + 8] == [
                i32(sum(s)), i32(_prod(small)), min(s), max(s), i32(sum(s[:lane])), i32(_prod(small[:lane])),
                min(s) * 1000 + min(-x for x in s), _or(s[:lane])], f"I thread {t}"
            assert got["U"][t * 8:t * 8 + 8] == [min(us), max(us), band, bor, bxor, sum(us) & U32,
                                                  sum(us[:lane]) & U32, mx[0] ^ mx[1] ^ mx[2]], f"U thread {t}"
            fs = [x * 0.5 for x in s]
            prod_f = _prod([2.0 if x % 2 == 0 else -0.5 for x in s])
            gy = _prod([-1.0 if x < 0 else 1.0 for x in s[:lane]])
            assert got["F"][t * 6:t * 6 + 6] == [sum(fs), min(fs), max(fs), sum(fs[:lane]), prod_f,
                                                  1.5 ** lane * gy], f"F thread {t}"


def _or(xs):
    r = 0
    for x in xs:
        r |= x
    return i32(r)



WIDE = DECLS + """
RWStructuredBuffer<int64_t> L : register(u0);
RWStructuredBuffer<uint64_t> UL : register(u1);
RWStructuredBuffer<double> D : register(u2);
StructuredBuffer<int> In : register(t5);
[numthreads(32, 1, 1)]
void main(uint t : SV_GroupIndex) {
""" + LANES + """
    int s = In[t];
    int64_t l = (int64_t)s * 0x100000001L;        // beyond 32 bits, negative for negative s
    uint64_t ul = (uint64_t)l;
    double d = (double)s * 0.25;
    L[t * 5 + 0] = WaveActiveSum(l);
    L[t * 5 + 1] = WaveActiveMin(l);
    L[t * 5 + 2] = WaveActiveMax(l);
    L[t * 5 + 3] = WavePrefixSum(l);
    L[t * 5 + 4] = WaveReadLaneAt(l, 2);
    UL[t * 4 + 0] = WaveActiveMin(ul);
    UL[t * 4 + 1] = WaveActiveMax(ul);
    UL[t * 4 + 2] = WaveActiveBitXor(ul);
    UL[t * 4 + 3] = WaveActiveBitOr(ul & 0xF0000000F0);
    D[t * 4 + 0] = WaveActiveSum(d);
    D[t * 4 + 1] = WaveActiveMin(d);
    D[t * 4 + 2] = WaveActiveMax(d);
    D[t * 4 + 3] = WavePrefixSum(d);
}
"""


@pytest.mark.parametrize("backend", VK)
def test_reductions_on_64_bit_types(backend):
    """int64_t/uint64_t (signed vs unsigned min/max across the full 64 bits, bit reductions) and double."""
    n = 32
    got, ws = run(backend, WIDE, n, {"L": ("int64_t", n * 5), "UL": ("uint64_t", n * 4), "D": ("double", n * 4)},
                  {"In": ("int", REDUCE_IN)})
    for w in ws:
        s = [REDUCE_IN[u] for u in w]
        ls = [x * 0x100000001 for x in s]
        uls = [x & (1 << 64) - 1 for x in ls]
        for lane, t in enumerate(w):
            assert got["L"][t * 5:t * 5 + 5] == [i64(sum(ls)), min(ls), max(ls), i64(sum(ls[:lane])), ls[2]]
            bxor = 0
            bor = 0
            for x in uls:
                bxor ^= x
                bor |= x & 0xF0000000F0
            assert got["UL"][t * 4:t * 4 + 4] == [min(uls), max(uls), bxor, bor]
            ds = [x * 0.25 for x in s]
            assert got["D"][t * 4:t * 4 + 4] == [sum(ds), min(ds), max(ds), sum(ds[:lane])]


HALF = DECLS + """
RWStructuredBuffer<float> H : register(u0);
RWStructuredBuffer<int> S : register(u1);
StructuredBuffer<int> In : register(t5);
[numthreads(32, 1, 1)]
void main(uint t : SV_GroupIndex) {
""" + LANES + """
    int s = In[t];
    half h = (half)s * (half)0.5;
    int16_t i16 = (int16_t)(s * 1000);
    uint16_t u16 = (uint16_t)i16;
    H[t * 5 + 0] = WaveActiveSum(h);
    H[t * 5 + 1] = WaveActiveMin(h);
    H[t * 5 + 2] = WaveActiveMax(h);
    H[t * 5 + 3] = WaveReadLaneFirst(h);
    H[t * 5 + 4] = WavePrefixSum(half2(h, 1.0h)).y;
    S[t * 4 + 0] = WaveActiveMin(i16);
    S[t * 4 + 1] = WaveActiveMax(i16);
    S[t * 4 + 2] = WavePrefixSum(i16);
    S[t * 4 + 3] = WaveActiveMax(u16);      // unsigned: -1000 is 64536
}
"""


def test_reductions_on_16_bit_types():
    """half and int16_t/uint16_t reductions (SM 6.2, -enable-16bit-types; Vulkan needs
    shaderSubgroupExtendedTypes, which lavapipe has).  Through res_util: its DXIL twin runs through dxil-spirv
    on lavapipe and must give the same bytes; lang_util's runners take no -enable-16bit-types."""
    import res_util as R
    n = 32
    specs = {"H": R.storage(R.sentinel(n * 5)), "S": R.storage(R.sentinel(n * 4)), "In": R.storage(R.pack("i", REDUCE_IN)),
             **{k: R.storage(R.sentinel(n)) for k in ("Lane", "Count", "Head")}}
    out = R.cs(HALF, specs, profile="cs_6_2", enable_16bit_types=True, dxil_skip="wave")
    got = {k: R.unpack("f" if k == "H" else "i" if k == "S" else "I", v) for k, v in out.items()}
    for w in waves(got, n):
        s = [REDUCE_IN[u] for u in w]
        for lane, t in enumerate(w):
            hs = [x * 0.5 for x in s]
            assert got["H"][t * 5:t * 5 + 5] == [sum(hs), min(hs), max(hs), hs[0], float(lane)], f"thread {t}"
            i16 = [x * 1000 for x in s]
            want_s = [min(i16), max(i16), _wrap16(sum(i16[:lane])), max(x & 0xFFFF for x in i16)]
            assert got["S"][t * 4:t * 4 + 4] == want_s, f"thread {t}"


def _wrap16(x: int) -> int:
    x &= 0xFFFF
    return x - 0x10000 if x >> 15 else x
