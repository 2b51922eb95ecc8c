"""Wave, quad and barrier operations audited against DXC's semantics, executed.

Wave ops read other lanes, so every case runs on the two Vulkan paths (our SPIR-V on lavapipe, repeated at
-O0 by the harness, and our DXIL through dxil-spirv on lavapipe); the serial DXIL interpreter cannot run
them.  No expectation assumes a wave size: every shader writes each thread's WaveGetLaneIndex and the
thread id of its wave's lane 0, the test rebuilds the waves from those (checking they are consistent: lane
indices 0..n-1 once each, n == WaveGetLaneCount) and computes every expected value in Python from them.
(lavapipe runs 8-lane subgroups, so a 32- or 64-thread group has several waves.)
"""

from __future__ import annotations

import functools
import math
import operator
import struct

import pytest
from lang_util import compile_cs, diagnostics_text, i32, run_backend

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


def run(backend: str, src: str, n: int, outputs: dict, inputs: dict | None = None, **kw) -> tuple[dict, list]:
    got = run_backend(backend, src, {**outputs, **lane_bufs(n)}, inputs, **kw)
    return got, waves(got, n)


def _bor(xs) -> int:
    return functools.reduce(operator.or_, xs, 0)


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
                i32(sum(s)), i32(math.prod(small)), min(s), max(s), i32(sum(s[:lane])), i32(math.prod(small[:lane])),
                min(s) * 1000 + min(-x for x in s), i32(_bor(s[:lane]))], f"I thread {t}"
            assert got["U"][t * 8:t * 8 + 8] == [min(us), max(us), band, bor, bxor, sum(us) & U32,
                                                  sum(us[:lane]) & U32, mx[0] ^ mx[1] ^ mx[2]], f"U thread {t}"
            fs = [x * 0.5 for x in s]
            prod_f = math.prod([2.0 if x % 2 == 0 else -0.5 for x in s])
            gy = math.prod([-1.0 if x < 0 else 1.0 for x in s[:lane]])
            assert got["F"][t * 6:t * 6 + 6] == [sum(fs), min(fs), max(fs), sum(fs[:lane]), prod_f,
                                                  1.5 ** lane * gy], f"F thread {t}"


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


# ---------------------------------------------------------------- matrices, quads in compute, bool values

MATRIX = DECLS + """
RWStructuredBuffer<int> I : register(u0);
RWStructuredBuffer<float> F : register(u1);
StructuredBuffer<int> In : register(t2);
[numthreads(32, 1, 1)]
void main(uint t : SV_GroupIndex) {
""" + LANES + """
    int s = In[t];
    int3x2 k = int3x2(s, -s, 5, s / 4, 7, s % 2);
    float2x3 m = float2x3(s, 1, t, 2, -s, 0.5 * s);
    bool3x2 e = WaveActiveAllEqual(k);
    I[t * 10 + 0] = (e._m00 ? 1 : 0) + (e._m01 ? 2 : 0) + (e._m10 ? 4 : 0) + (e._m11 ? 8 : 0) + (e._m20 ? 16 : 0)
                  + (e._m21 ? 32 : 0);
    int3x2 a = WaveActiveMin(k);
    I[t * 10 + 1] = a._m00 * 1000 + a._m01;
    int3x2 b = WavePrefixSum(k);
    I[t * 10 + 2] = b._m11 * 1000 + b._m21;
    int3x2 c = QuadReadAcrossX(k);
    I[t * 10 + 3] = c._m00 * 1000 + c._m11;
    int3x2 d = QuadReadLaneAt(k, 2);
    I[t * 10 + 4] = d._m01 * 1000 + d._m21;
    int3x2 f = WaveReadLaneAt(k, 1);
    I[t * 10 + 5] = f._m00 * 1000 + f._m10;
    I[t * 10 + 6] = WaveMatch(k).x;
    uint4 evens = WaveActiveBallot(s % 2 == 0), odds = WaveActiveBallot(s % 2 != 0);
    int3x2 g = WaveMultiPrefixSum(k, s % 2 == 0 ? evens : odds);     // two partitions: even and odd values
    I[t * 10 + 7] = g._m00 * 1000 + g._m20;
    uint2x2 h = WaveActiveBitOr(uint2x2(t, 1u << (t % 8), 0, t));
    I[t * 10 + 8] = h._m01;
    int3x2 q = QuadReadAcrossDiagonal(k);
    I[t * 10 + 9] = q._m00;
    float2x3 p = WaveActiveSum(m);
    F[t * 4 + 0] = p._m12;
    float2x3 r = WaveReadLaneFirst(m);
    F[t * 4 + 1] = r._m11;
    float2x3 y = QuadReadAcrossY(m);
    F[t * 4 + 2] = y._m02;
    F[t * 4 + 3] = WavePrefixProduct(m)._m01 + (WaveActiveAllEqual(m)._m01 ? 1000.0 : 0.0);
}
"""
MAT_IN = [(t * 5) % 7 - (3 if t % 3 == 0 else 0) for t in range(32)]


def _quad(w: list[int], lane: int, i: int) -> int:
    """Thread at lane i of this lane's quad (compute quads: 4 consecutive lanes)."""
    return w[(lane & ~3) | i]


@pytest.mark.parametrize("backend", VK)
def test_wave_and_quad_ops_on_matrices(backend):
    """DXC declares the value of the wave/quad ops `<>` (any shape): a matrix works per component.  SPIR-V's
    group operations take scalars and vectors only, so our SPIR-V lowers a matrix row by row (it used to
    pass the matrix to OpGroupNonUniformFAdd etc.: invalid SPIR-V that spirv-val let through and lavapipe
    crashed on)."""
    got, ws = run(backend, MATRIX, 32, {"I": ("int", 320), "F": ("float", 128)}, {"In": ("int", MAT_IN)},
                  profile="cs_6_5")
    for w in ws:
        s = [MAT_IN[u] for u in w]
        ks = [[[x, -x], [5, int(x / 4)], [7, int(math.fmod(x, 2))]] for x in s]
        ms = [[[float(x), 1.0, float(u)], [2.0, float(-x), 0.5 * x]] for x, u in zip(s, w)]
        same = [[len({k[r][c] for k in ks}) == 1 for c in range(2)] for r in range(3)]
        bits = sum(1 << (r * 2 + c) for r in range(3) for c in range(2) if same[r][c])
        even = [x % 2 == 0 for x in s]
        for lane, t in enumerate(w):
            k = ks[lane]
            pre = ks[:lane]
            kx, k2, kd = ks[lane ^ 1], ks[(lane & ~3) | 2], ks[lane ^ 3]
            g = [kk for j, kk in enumerate(pre) if even[j] == even[lane]]
            match = sum(1 << j for j, kk in enumerate(ks) if kk == k)
            want_i = [bits, min(kk[0][0] for kk in ks) * 1000 + min(kk[0][1] for kk in ks),
                      sum(kk[1][1] for kk in pre) * 1000 + sum(kk[2][1] for kk in pre),
                      kx[0][0] * 1000 + kx[1][1], k2[0][1] * 1000 + k2[2][1], ks[1][0][0] * 1000 + 5, match,
                      sum(kk[0][0] for kk in g) * 1000 + sum(kk[2][0] for kk in g), _bor(1 << (u % 8) for u in w),
                      kd[0][0]]
            assert got["I"][t * 10:t * 10 + 10] == want_i, f"thread {t} (lane {lane})"
            prod = 1.0
            for mm in ms[:lane]:
                prod *= mm[0][1]
            want_f = [sum(mm[1][2] for mm in ms), ms[0][1][1], ms[lane ^ 2][0][2], prod + 1000.0]
            assert got["F"][t * 4:t * 4 + 4] == want_f, f"thread {t} (lane {lane})"


BOOLS = DECLS + """
RWStructuredBuffer<int> Out : register(u0);
StructuredBuffer<uint> In : register(t1);
int pick(bool x) { return 1; }
int pick(int x) { return 2; }
int pick(uint x) { return 3; }
int pick(float x) { return 4; }
[numthreads(32, 1, 1)]
void main(uint t : SV_GroupIndex) {
""" + LANES + """
    uint x = In[t];
    bool b = x % 3 == 0;
    Out[t * 6 + 4] = pick(WaveReadLaneFirst(b)) * 100 + pick(WaveReadLaneAt(b, 0)) * 10 + pick(WaveActiveAllEqual(b));
    bool2 v = bool2(b, x > 10);
    bool2 r = WaveReadLaneAt(v, 2);
    bool2 e = WaveActiveAllEqual(v);
    Out[t * 6 + 0] = -WaveReadLaneFirst(b);          // a bool: -true is the int -1
    Out[t * 6 + 1] = WaveReadLaneAt(!b, 1) / 2;       // bool / int is an int division
    Out[t * 6 + 2] = (r.x ? 1 : 0) + (r.y ? 2 : 0) + (e.x ? 4 : 0) + (e.y ? 8 : 0);
    bool2x2 m = WaveReadLaneFirst(bool2x2(b, !b, x > 10, x == 0));
    Out[t * 6 + 3] = (m._m00 ? 1 : 0) + (m._m01 ? 2 : 0) + (m._m10 ? 4 : 0) + (m._m11 ? 8 : 0);
    Out[t * 6 + 5] = QuadReadLaneAt(x, In[32]) * 100 + QuadReadLaneAt(x, x % 4);   // uniform, then per-lane index
}
"""


@pytest.mark.parametrize("backend", VK)
def test_bool_values_and_dynamic_quad_lanes(backend):
    """WaveReadLaneFirst/WaveReadLaneAt/WaveActiveAllEqual take any<> in DXC: a bool (vector, matrix) stays a
    bool (they converted it to int here: `pick` shows the type).  QuadReadLaneAt with a non-constant lane: OpGroupNonUniformQuadBroadcast
    needs a constant index before SPIR-V 1.5, so our SPIR-V shuffles from lane (lane & ~3) | (index & 3)."""
    vals = [(t * 13 + 5) % 29 for t in range(32)]
    got, ws = run(backend, BOOLS, 32, {"Out": ("int", 32 * 6)}, {"In": ("uint", vals + [3])})
    for w in ws:
        xs = [vals[u] for u in w]
        bs = [x % 3 == 0 for x in xs]
        vs = [(b, x > 10) for b, x in zip(bs, xs)]
        for lane, t in enumerate(w):
            quad = [xs[(lane & ~3) | i] for i in range(4)]
            want = [-int(bs[0]), int(not bs[1]) // 2,
                    vs[2][0] + 2 * vs[2][1] + 4 * (len({v[0] for v in vs}) == 1) + 8 * (len({v[1] for v in vs}) == 1),
                    bs[0] + 2 * (not bs[0]) + 4 * (xs[0] > 10) + 8 * (xs[0] == 0), 111,
                    quad[3] * 100 + quad[xs[lane] % 4]]
            assert got["Out"][t * 6:t * 6 + 6] == want, f"thread {t} (lane {lane})"


def test_quad_read_lane_at_broadcasts_only_constant_lanes():
    """SPIR-V 1.3 (vulkan1.1) requires OpGroupNonUniformQuadBroadcast's index to be a constant instruction;
    spirv-val does not check it, so the module is read here: every broadcast's index is an OpConstant."""
    from harness import tools
    res = compile_cs(BOOLS, "spirv")
    assert res.ok, diagnostics_text(res)
    dis = tools.spirv_dis(res.binary)
    consts = {line.split("=")[0].strip() for line in dis.splitlines() if "= OpConstant" in line}
    broadcasts = [line.split() for line in dis.splitlines() if "OpGroupNonUniformQuadBroadcast" in line]
    shuffles = [line for line in dis.splitlines() if "OpGroupNonUniformShuffle " in line]
    assert all(words[-1] in consts for words in broadcasts), broadcasts
    assert len(broadcasts) + len(shuffles) >= 2


# ---------------------------------------------------------------- divergent control flow: only active lanes take part

DIVERGENT = DECLS + """
RWStructuredBuffer<uint> Out : register(u0);
StructuredBuffer<uint> In : register(t1);
[numthreads(64, 1, 1)]
void main(uint t : SV_GroupIndex) {
""" + LANES + """
    uint x = In[t];
    if (x % 3 == 1) {
        Out[t * 10 + 0] = WaveActiveSum(x);
        Out[t * 10 + 1] = WavePrefixSum(x);
        Out[t * 10 + 2] = WaveReadLaneFirst(t);
        Out[t * 10 + 3] = WaveIsFirstLane() ? 1u : 0u;
    } else {
        Out[t * 10 + 0] = WaveActiveMax(x) + 1000u;
        Out[t * 10 + 1] = WavePrefixCountBits(true);
        Out[t * 10 + 2] = WaveActiveBallot(true).x;
        Out[t * 10 + 3] = WaveActiveAllTrue(x % 3 == 0) ? 1u : 0u;
    }
    uint acc = 0;
    for (uint i = 0; i < x % 5; i++)
        acc = acc * 10u + WaveActiveCountBits(true);     // lanes still looping at iteration i
    Out[t * 10 + 4] = acc;
    switch (x % 4) {
    case 0: Out[t * 10 + 5] = WaveActiveCountBits(true); break;
    case 2: Out[t * 10 + 5] = 100u + WaveActiveMin(x); break;
    default: Out[t * 10 + 5] = 200u + WavePrefixSum(1u); break;
    }
    [branch] if (x > 20) {
        Out[t * 10 + 6] = 7u;
        return;
    }
    Out[t * 10 + 6] = WaveActiveCountBits(true);           // after the early return: the lanes that stayed
    Out[t * 10 + 7] = WaveActiveSum(x);
    uint k = 0;
    while (true) {                                         // a loop left by break at different trips
        if (k >= x % 3) break;
        k++;
    }
    Out[t * 10 + 8] = WaveActiveSum(k);                    // after the loop: every lane that stayed
    Out[t * 10 + 9] = WaveReadLaneFirst(x);
}
"""
DIV_IN = [(t * 11 + 7) % 31 for t in range(64)]


@pytest.mark.parametrize("backend", VK)
def test_divergent_control_flow(backend):
    """Inside if/else, loops with per-lane trip counts, switch cases and after an early return only the lanes
    that got there take part (HLSL's active lanes); after the constructs the lanes reconverge."""
    got, ws = run(backend, DIVERGENT, 64, {"Out": ("uint", 640)}, {"In": ("uint", DIV_IN)})
    for w in ws:
        xs = [DIV_IN[u] for u in w]
        for lane, t in enumerate(w):
            x = xs[lane]
            group = [j for j in range(len(w)) if (xs[j] % 3 == 1) == (x % 3 == 1)]
            below = [j for j in group if j < lane]
            if x % 3 == 1:
                want = [sum(xs[j] for j in group), sum(xs[j] for j in below), w[group[0]], int(group[0] == lane)]
            else:
                want = [max(xs[j] for j in group) + 1000, len(below), sum(1 << j for j in group if j < 32),
                        int(all(xs[j] % 3 == 0 for j in group))]
            acc = 0
            for i in range(x % 5):
                acc = acc * 10 + sum(1 for y in xs if y % 5 > i)
            want.append(acc)
            case = [j for j in range(len(w)) if (xs[j] % 4 in (0, 2) and xs[j] % 4 == x % 4)
                    or (xs[j] % 4 in (1, 3) and x % 4 in (1, 3))]
            if x % 4 == 0:
                want.append(len(case))
            elif x % 4 == 2:
                want.append(100 + min(xs[j] for j in case))
            else:
                want.append(200 + sum(1 for j in case if j < lane))
            stay = [j for j in range(len(w)) if xs[j] <= 20]
            if x > 20:
                want += [7]
                assert got["Out"][t * 10:t * 10 + 7] == want, f"thread {t} (lane {lane})"
                assert got["Out"][t * 10 + 7:t * 10 + 10] == [0xCDCDCDCD] * 3
                continue
            want += [len(stay), sum(xs[j] for j in stay), sum(xs[j] % 3 for j in stay), xs[stay[0]]]
            assert got["Out"][t * 10:t * 10 + 10] == want, f"thread {t} (lane {lane})"


# ---------------------------------------------------------------- barriers across the waves of a group

BARRIERS = """
RWStructuredBuffer<uint> Out : register(u0);
RWStructuredBuffer<uint> Scratch : register(u1);
RWStructuredBuffer<uint> Waves : register(u2);
groupshared uint G[64];
groupshared uint Tree[64];
groupshared uint Total;
[numthreads(8, 4, 2)]
void main(uint t : SV_GroupIndex, uint3 gid : SV_GroupID) {
    uint base = gid.x * 64u;
    uint v = (t * 37u + gid.x * 5u) % 64u;
    Waves[base + t] = WaveGetLaneCount();
    G[t] = v;
    Tree[t] = v;
    GroupMemoryBarrierWithGroupSync();
    Out[(base + t) * 4 + 0] = G[(t + 17u) % 64u] * 100u + G[63u - t];  // written by other waves
    for (uint s = 32u; s > 0u; s >>= 1) {                               // a tree reduction across the waves
        if (t < s)
            Tree[t] += Tree[t + s];
        GroupMemoryBarrierWithGroupSync();
    }
    Out[(base + t) * 4 + 1] = Tree[0];
    Scratch[base + t] = v * 3u;                                          // device memory, then a device barrier
    DeviceMemoryBarrierWithGroupSync();
    Out[(base + t) * 4 + 2] = Scratch[base + (t + 9u) % 64u];
    if (t == 0)
        Total = 0;
    AllMemoryBarrierWithGroupSync();
    uint part = WaveActiveSum(v);                                        // per wave, then across the waves
    if (WaveIsFirstLane())
        InterlockedAdd(Total, part);
    AllMemoryBarrierWithGroupSync();
    uint total = Total;
    GroupMemoryBarrier();
    AllMemoryBarrier();
    DeviceMemoryBarrier();
    Out[(base + t) * 4 + 3] = total;
}
"""


@pytest.mark.parametrize("backend", VK)
def test_barriers_with_groupshared_across_waves(backend):
    """A 64-thread group (several waves on lavapipe) trades values through groupshared memory and a
    storage buffer behind each group-sync barrier flavour; two groups keep their own groupshared memory."""
    got = run_backend(backend, BARRIERS, {"Out": ("uint", 512), "Scratch": ("uint", 128), "Waves": ("uint", 128)},
                      groups=(2, 1, 1))
    size = got["Waves"][0]
    assert set(got["Waves"]) == {size} and 64 % size == 0
    assert size < 64, "precondition: the group spans several waves"
    for g in range(2):
        v = [(t * 37 + g * 5) % 64 for t in range(64)]
        for t in range(64):
            want = [v[(t + 17) % 64] * 100 + v[63 - t], sum(v), v[(t + 9) % 64] * 3, sum(v)]
            assert got["Out"][(g * 64 + t) * 4:(g * 64 + t) * 4 + 4] == want, f"group {g} thread {t}"


QUADS_2D = DECLS + """
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(4, 4, 2)]
void main(uint t : SV_GroupIndex, uint3 id : SV_GroupThreadID) {
""" + LANES + """
    uint v = id.z * 100u + id.y * 10u + id.x;
    Out[t * 5 + 0] = QuadReadAcrossX(v);
    Out[t * 5 + 1] = QuadReadAcrossY(v);
    Out[t * 5 + 2] = QuadReadAcrossDiagonal(v);
    Out[t * 5 + 3] = QuadReadLaneAt(v, 2);
    Out[t * 5 + 4] = QuadReadLaneAt(v, Lane[t] / 4u % 4u);      // a lane uniform across each quad
}
"""


@pytest.mark.parametrize("profile, backend", [("cs_6_0", "spirv"), ("cs_6_0", "dxil-vk"), ("cs_6_6", "spirv"),
                                              ("cs_6_6", "dxil-vk")])
def test_quads_of_a_2d_compute_group(profile, backend):
    """From SM 6.6 a compute shader's quads are those of its derivatives: 2x2 threads of a 2-D group (quad
    lane 0 top-left, 1 top-right, 2 bottom-left), so our SPIR-V gives a quad op the DerivativeGroupQuads mode
    as it does ddx (it used four consecutive lanes).  Before SM 6.6 a quad is four consecutive lanes of the
    wave (as DXC's issue 8886 asks to keep; dxil-spirv agrees)."""
    n = 32
    got, ws = run(backend, QUADS_2D, n, {"Out": ("uint", n * 5)}, profile=profile)
    ident = [(t // 16) * 100 + (t // 4 % 4) * 10 + t % 4 for t in range(n)]
    for w in ws:
        for lane, t in enumerate(w):
            if profile == "cs_6_6":
                x, y, z = t % 4, t // 4 % 4, t // 16
                quad = [z * 100 + (y & ~1 | i >> 1) * 10 + (x & ~1 | i & 1) for i in range(4)]
                me = (y & 1) * 2 + (x & 1)
            else:
                quad = [ident[w[(lane & ~3) | i]] for i in range(4)]
                me = lane & 3
            assert got["Out"][t * 5:t * 5 + 5] == [quad[me ^ 1], quad[me ^ 2], quad[me ^ 3], quad[2],
                                                   quad[lane // 4 % 4]], f"thread {t} (lane {lane})"
    if profile == "cs_6_6":
        res = compile_cs(QUADS_2D, "spirv", profile=profile)
        assert "DerivativeGroupQuads" in _dis(res.binary)
        assert compile_cs(QUADS_2D, "dxil", profile=profile).ok


def _dis(binary: bytes) -> str:
    from harness import tools
    return tools.spirv_dis(binary)


# ---------------------------------------------------------------- quads in a pixel shader, quad votes

PIXEL_QUADS = """
RWStructuredBuffer<uint> Out : register(u1);
float4 main(float4 pos : SV_Position) : SV_Target {
    uint x = (uint)pos.x, y = (uint)pos.y;
    uint v = y * 16u + x;
    uint i = (y * 8u + x) * 6u;
    Out[i + 5] = QuadReadLaneAt(v, y / 2u % 4u);                       // uniform across each quad
    Out[i + 0] = QuadReadAcrossX(v);
    Out[i + 1] = QuadReadAcrossY(v);
    Out[i + 2] = QuadReadAcrossDiagonal(v);
    Out[i + 3] = QuadReadLaneAt(v, 1);
    float2 d = float2(QuadReadAcrossX(pos.x), QuadReadAcrossY(pos.y));
    Out[i + 4] = (uint)(abs(d.x - pos.x) + 2.0 * abs(d.y - pos.y));   // neighbours one pixel away: 3
    return float4(0.0, 0.0, 0.0, 1.0);
}
"""


def test_quads_in_a_pixel_shader():
    """Pixel quads are 2x2 pixels: lane 0 top-left, 1 top-right, 2 bottom-left, 3 bottom-right (also for a
    QuadReadLaneAt lane that is not a constant); every pixel of the 8x8 target is covered, so no quad has a
    helper lane.  Drawn from our SPIR-V and (res_util's twin) from
    our DXIL through dxil-spirv, which must write the same buffer."""
    import res_util as R
    w = h = 8
    _targets, bufs = R.draw(R.FULLSCREEN_VS, PIXEL_QUADS, w, h, {"Out": R.storage(R.sentinel(w * h * 6))}, full=True)
    got = R.unpack("I", bufs["Out"])
    for y in range(h):
        for x in range(w):
            quad = [(y & ~1 | q >> 1) * 16 + (x & ~1 | q & 1) for q in range(4)]
            me = (y & 1) * 2 + (x & 1)
            i = (y * w + x) * 6
            assert got[i:i + 6] == [quad[me ^ 1], quad[me ^ 2], quad[me ^ 3], quad[1], 3, quad[y // 2 % 4]], \
                f"pixel ({x}, {y})"


QUAD_VOTE = """
RWStructuredBuffer<uint> Out : register(u0);
StructuredBuffer<uint> In : register(t1);
[numthreads(32, 1, 1)]
void main(uint t : SV_GroupIndex) {
    uint x = In[t];
    Out[t * 3 + 0] = QuadAny(x % 5 == 0) ? 1u : 0u;
    Out[t * 3 + 1] = QuadAll(x % 2 == 0) ? 1u : 0u;
    Out[t * 3 + 2] = QuadReadAcrossX(x);
}
"""


@pytest.mark.parametrize("backend", VK)
def test_quad_any_and_all(backend):
    """QuadAny/QuadAll (SM 6.7) over the quads of a 1-D compute group: four consecutive threads at SM 6.6+."""
    assert compile_cs(QUAD_VOTE, "dxil", profile="cs_6_7").ok
    vals = [(t * 7 + 3) % 13 for t in range(32)]
    got = run_backend(backend, QUAD_VOTE, {"Out": ("uint", 96)}, {"In": ("uint", vals)}, profile="cs_6_7")
    for t in range(32):
        quad = vals[t & ~3:(t & ~3) + 4]
        assert got["Out"][t * 3:t * 3 + 3] == [int(any(v % 5 == 0 for v in quad)), int(all(v % 2 == 0 for v in quad)),
                                               vals[t ^ 1]], f"thread {t}"


FLOAT_EDGES = DECLS + """
RWStructuredBuffer<float> F : register(u0);
StructuredBuffer<float> In : register(t1);
[numthreads(32, 1, 1)]
void main(uint t : SV_GroupIndex) {
""" + LANES + """
    float x = In[t];
    F[t * 5 + 0] = WaveActiveMin(x);
    F[t * 5 + 1] = WaveActiveMax(x);
    F[t * 5 + 2] = WaveActiveMin(x == 0.0 ? x : 1.0);     // only zeros of both signs and ones
    F[t * 5 + 3] = WaveReadLaneAt(x, 1);                   // moves NaN and -0 bits unchanged
    F[t * 5 + 4] = WaveActiveAllEqual(x == 0.0 ? x : 0.0) ? 1.0 : 0.0;  // -0 == +0
}
"""


@pytest.mark.parametrize("backend", VK)
def test_float_min_max_skip_nan_and_zero_signs(backend):
    """Float WaveActiveMin/Max ignore NaN lanes (DXIL's min/max are IEEE minNum/maxNum; SPIR-V's group FMin/FMax
    choose the other operand of a NaN); which zero min(-0, +0) gives is unspecified on both, so only its being
    a zero is checked.  WaveReadLaneAt moves bits: a NaN stays NaN, -0 stays -0."""
    nan = float("nan")
    vals = [nan, 3.0, -0.0, 0.0, nan, -2.5, 7.0, 0.0] * 3 + [nan] * 7 + [4.0]
    got, ws = run(backend, FLOAT_EDGES, 32, {"F": ("float", 160)}, {"In": ("float", vals)})
    for w in ws:
        xs = [vals[u] for u in w]
        real = [x for x in xs if not math.isnan(x)]
        for t in w:
            r = got["F"][t * 5:t * 5 + 5]
            if real:
                assert r[:2] == [min(real), max(real)], f"thread {t}"
            zeros = [x for x in xs if x == 0.0]
            assert r[2] == (0.0 if zeros else 1.0) and (zeros or math.copysign(1.0, r[2]) == 1.0), f"thread {t}"
            assert struct.pack("<f", r[3]) == struct.pack("<f", xs[1]) or math.isnan(r[3]) and math.isnan(xs[1])
            if not math.isnan(xs[1]):
                assert math.copysign(1.0, r[3]) == math.copysign(1.0, xs[1])
            assert r[4] == 1.0


# ---------------------------------------------------------------- refused: located errors

PS = "float4 main() : SV_Target {{\n    {0};\n    return 0;\n}}\n"
CS = "RWBuffer<float> B;\nstruct S {{ float a; }};\n[numthreads(4, 1, 1)] void main(uint t : SV_GroupIndex) {{\n    {0};\n}}\n"
ERRORS = [
    # a group barrier syncs the thread group: only compute, mesh and amplification shaders have one (DXC's
    # validator: "sync in a non-Compute/Amplification/Mesh Shader must only sync UAV (sync_uglobal)")
    *[("ps_6_0", PS, f"{name}()", f"2:5: error: intrinsic '{name}' is not allowed in pixel shaders (allowed in: "
       "amplification, compute, mesh)")
      for name in ("GroupMemoryBarrierWithGroupSync", "GroupMemoryBarrier", "DeviceMemoryBarrierWithGroupSync",
                   "AllMemoryBarrierWithGroupSync", "AllMemoryBarrier")],
    ("vs_6_0", "float4 main(float4 p : P) : SV_Position {{\n    {0};\n    return p;\n}}\n", "p = QuadReadAcrossX(p)",
     "2:9: error: intrinsic 'QuadReadAcrossX' is not allowed in vertex shaders (allowed in: amplification, compute, "
     "mesh, pixel)"),
    ("cs_6_0", CS, "S s = {1.0}; B[t] = WaveReadLaneFirst(s).a",
     "4:25: error: invalid argument of type 'S' to intrinsic 'WaveReadLaneFirst'"),
    ("cs_6_0", CS, "float a[2] = {1, 2}; B[t] = WaveActiveSum(a)[0]",
     "4:33: error: invalid argument of type 'float[2]' to intrinsic 'WaveActiveSum'"),
    ("cs_6_0", CS, "B[t] = WaveMatch(t).x", "4:12: error: intrinsic 'WaveMatch' requires shader model 6.5 or higher"),
    ("cs_6_0", CS, "B[t] = WaveMultiPrefixSum(t, 1u)",
     "4:12: error: intrinsic 'WaveMultiPrefixSum' requires shader model 6.5 or higher"),
    ("cs_6_6", CS, "B[t] = QuadAny(t > 1)", "4:12: error: intrinsic 'QuadAny' requires shader model 6.7 or higher"),
    ("cs_6_0", CS, "B[t] = WaveReadLaneAt(t)",
     "4:12: error: no matching intrinsic for call to 'WaveReadLaneAt': expected 2 arguments, have 1"),
]


@pytest.mark.parametrize("profile, frame, stmt, want", ERRORS, ids=[e[2][:40] for e in ERRORS])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_refused_with_a_located_error(profile, frame, stmt, want, target):
    res = compile_cs(frame.format(stmt), target, profile=profile)
    assert not res.ok
    errs = [d for d in res.diagnostics if d.severity == "error"]
    assert len(errs) == 1, diagnostics_text(res)
    assert diagnostics_text(res).splitlines()[0].endswith(want), diagnostics_text(res)
    assert "^" in diagnostics_text(res)


def test_device_memory_barrier_is_allowed_in_every_stage():
    """DeviceMemoryBarrier syncs UAV memory only (sync_uglobal): DXC's validator allows it outside thread groups."""
    for target in ("spirv", "dxil"):
        res = compile_cs(PS.format("DeviceMemoryBarrier()"), target, profile="ps_6_0")
        assert res.ok, diagnostics_text(res)


MULTI = DECLS + """
RWStructuredBuffer<int> I : register(u0);
RWStructuredBuffer<float> F : register(u1);
StructuredBuffer<int> In : register(t2);
uint inner(int x) {
    if (x > 5)
        return 1000u;                                  // these lanes leave the function early
    return WaveActiveCountBits(true) + WavePrefixSum(1u) * 100u;
}
[numthreads(32, 1, 1)]
void main(uint t : SV_GroupIndex) {
""" + LANES + """
    int x = In[t];
    uint4 part = WaveMatch(x % 3);                     // partitions: lanes with equal x % 3
    I[t * 8 + 0] = WaveMultiPrefixSum(x, part);
    I[t * 8 + 1] = WaveMultiPrefixProduct(x % 4 - 2, part);
    I[t * 8 + 2] = (int)WaveMultiPrefixBitAnd((uint)x | 0xF0u, part);
    I[t * 8 + 3] = WaveMultiPrefixBitXor(x, part);
    I[t * 8 + 4] = WaveMultiPrefixBitOr(x * 16, part);
    I[t * 8 + 5] = WaveMultiPrefixCountBits(x % 2 == 0, part);
    I[t * 8 + 6] = (int)part.x;
    I[t * 8 + 7] = (int)inner(x);
    F[t] = WaveMultiPrefixSum(0.5 * x, part);
}
"""


@pytest.mark.parametrize("backend", VK)
def test_multi_prefix_over_wave_match_partitions(backend):
    """SM 6.5: WaveMatch's masks partition the wave; each WaveMultiPrefix* combines the lanes below this one in
    its partition (exclusive: identity 0 / 1 / all ones).  And a function left early by some lanes: only the
    others take part in its wave ops."""
    vals = [(t * 5 + 1) % 11 - 3 for t in range(32)]
    got, ws = run(backend, MULTI, 32, {"I": ("int", 256), "F": ("float", 32)}, {"In": ("int", vals)},
                  profile="cs_6_5")
    for w in ws:
        xs = [vals[u] for u in w]
        key = [int(math.fmod(x, 3)) for x in xs]
        stay = [j for j, x in enumerate(xs) if x <= 5]
        for lane, t in enumerate(w):
            part = [j for j in range(len(w)) if key[j] == key[lane]]
            below = [xs[j] for j in part if j < lane]
            band = 0xFFFFFFFF
            bxor = 0
            bor = 0
            prod = 1
            for b in below:
                band &= (b & 0xFFFFFFFF) | 0xF0
                bxor ^= b
                bor |= b * 16
                prod *= int(math.fmod(b, 4)) - 2
            want = [sum(below), i32(prod), i32(band), bxor, bor, sum(1 for b in below if b % 2 == 0),
                    i32(sum(1 << j for j in part if j < 32)),
                    1000 if xs[lane] > 5 else len(stay) + 100 * sum(1 for j in stay if j < lane)]
            assert got["I"][t * 8:t * 8 + 8] == want, f"thread {t} (lane {lane})"
            assert got["F"][t] == sum(0.5 * b for b in below)


PARTIAL_VS = """
float4 main(uint id : SV_VertexID) : SV_Position {
    float2 p[3] = { float2(-1.0, -1.0), float2(0.3, -1.0), float2(-1.0, 0.45) };
    return float4(p[id], 0.0, 1.0);
}
"""
PARTIAL_PS = """
RWStructuredBuffer<uint> Out : register(u1);
float4 main(float4 pos : SV_Position) : SV_Target {
    uint id = (uint)pos.y * 8u + (uint)pos.x;
    Out[id * 3u + 0u] = WaveActiveCountBits(true);
    Out[id * 3u + 1u] = WaveReadLaneFirst(id);          // the first non-helper lane
    Out[id * 3u + 2u] = WaveActiveSum(id) | (WaveIsFirstLane() ? 0x80000000u : 0u);
    return float4(0.0, 0.0, 0.0, 1.0);
}
"""


def test_helper_lanes_take_no_part_in_wave_ops():
    """A triangle's edge leaves quads with helper lanes (pixels outside it that run for derivatives, writing
    no UAV): D3D's active lanes exclude them, so each wave's count and sum cover exactly the pixels that
    wrote (grouped by the wave's first lane), from our SPIR-V and from our DXIL through dxil-spirv."""
    import res_util as R
    w = h = 8
    _t, bufs = R.draw(PARTIAL_VS, PARTIAL_PS, w, h, {"Out": R.storage(R.sentinel(w * h * 3))}, full=True)
    got = R.unpack("I", bufs["Out"])
    wrote = [i for i in range(w * h) if got[i * 3] != 0xCDCDCDCD]
    assert 4 < len(wrote) < w * h // 2, "precondition: a partly covered target"
    groups: dict[int, list[int]] = {}
    for i in wrote:
        groups.setdefault(got[i * 3 + 1], []).append(i)
    for head, members in groups.items():
        assert head in members
        for i in members:
            first = 0x80000000 if i == head else 0      # WaveIsFirstLane: the lane WaveReadLaneFirst reads
            assert got[i * 3:i * 3 + 3] == [len(members), head, sum(members) | first], f"pixel {i}"
    assert any(len(m) % 4 for m in groups.values()), "precondition: some quad has helper lanes"


SELECTS = DECLS + """
RWStructuredBuffer<uint> Out : register(u0);
StructuredBuffer<uint> In : register(t1);
uint pick(uint x) { return x % 2 == 0 ? WaveActiveSum(1u) : 100u; }
[numthreads(32, 1, 1)]
void main(uint t : SV_GroupIndex) {
""" + LANES + """
    uint x = In[t];
    uint r = 0;
    if (x % 2 == 0)
        r = WaveActiveSum(1u);                       // a value computed in a branch: not if-converted
    uint u = 0;
    [flatten] if (x < 3)
        u = WaveActiveCountBits(true);               // [flatten] keeps the wave op's lanes
    Out[t * 4 + 0] = r;
    Out[t * 4 + 1] = u;
    Out[t * 4 + 2] = x > 3 ? WaveActiveSum(x) : 0u;  // HLSL 2021: short-circuits; 2018: both sides run
    Out[t * 4 + 3] = pick(x);
}
"""


@pytest.mark.parametrize("version", [2018, 2021])
@pytest.mark.parametrize("backend", VK)
def test_wave_ops_in_branches_and_conditional_operators(backend, version):
    """A wave op whose value is assigned in a branch keeps the branch's lanes at -O3 and -O0 (no
    if-conversion), [flatten] included.  The conditional operator follows the language version: HLSL 2021
    evaluates only the chosen operand (so the wave op sees the lanes choosing it), HLSL 2018 evaluates both
    for every lane (DXC likewise)."""
    vals = [(t * 3 + 1) % 7 for t in range(32)]
    got, ws = run(backend, SELECTS, 32, {"Out": ("uint", 128)}, {"In": ("uint", vals)}, hlsl_version=version)
    for w in ws:
        xs = [vals[u] for u in w]
        short = version == 2021
        for lane, t in enumerate(w):
            x = xs[lane]
            big = sum(y for y in xs if y > 3 or not short)
            evens = sum(1 for y in xs if y % 2 == 0 or not short)
            want = [sum(1 for y in xs if y % 2 == 0) if x % 2 == 0 else 0,
                    sum(1 for y in xs if y < 3) if x < 3 else 0,
                    big if x > 3 else 0, evens if x % 2 == 0 else 100]
            assert got["Out"][t * 4:t * 4 + 4] == want, f"thread {t} (lane {lane})"


SAME_CALLS = DECLS + """
RWStructuredBuffer<uint> Out : register(u0);
StructuredBuffer<uint> In : register(t1);
[numthreads(32, 1, 1)]
void main(uint t : SV_GroupIndex) {
""" + LANES + """
    uint x = In[t];
    uint a = WaveActiveSum(x), f = WaveIsFirstLane() ? 1u : 0u, c = WaveActiveCountBits(x > 0);
    uint b = 0, g = 0, d = 0, e = 0;
    if (x > 3) {                                   // the same calls again on fewer lanes: not one value
        b = WaveActiveSum(x);
        g = WaveIsFirstLane() ? 1u : 0u;
        d = WaveActiveCountBits(x > 0);
        e = WaveReadLaneFirst(x);
    }
    uint h = WaveActiveSum(x);
    Out[t * 8 + 0] = a; Out[t * 8 + 1] = b; Out[t * 8 + 2] = f; Out[t * 8 + 3] = g;
    Out[t * 8 + 4] = c; Out[t * 8 + 5] = d; Out[t * 8 + 6] = e; Out[t * 8 + 7] = h;
}
"""


@pytest.mark.parametrize("backend", VK)
def test_identical_wave_calls_on_different_lanes_stay_apart(backend):
    """Two identical wave calls in different control flow see different lanes: neither the IR nor the
    SPIR-V optimiser nor the DXIL may merge them (the table marks wave ops as having side effects)."""
    vals = [(t * 5 + 2) % 9 for t in range(32)]
    got, ws = run(backend, SAME_CALLS, 32, {"Out": ("uint", 256)}, {"In": ("uint", vals)})
    for w in ws:
        xs = [vals[u] for u in w]
        inner = [j for j, y in enumerate(xs) if y > 3]
        for lane, t in enumerate(w):
            x = xs[lane]
            on = x > 3
            want = [sum(xs), sum(xs[j] for j in inner) if on else 0, int(lane == 0), int(on and lane == inner[0]),
                    sum(1 for y in xs if y > 0), len(inner) if on else 0, xs[inner[0]] if on else 0, sum(xs)]
            assert got["Out"][t * 8:t * 8 + 8] == want, f"thread {t} (lane {lane})"


MESH_QUADS = """struct V { float4 p : SV_Position; };
[outputtopology("triangle")] [numthreads(NT)]
void main(uint t : SV_GroupIndex, out vertices V v[3], out indices uint3 tri[1]) {
    SetMeshOutputCounts(3, 1);
    float q = QuadReadAcrossX((float)t);
    if (t < 3) v[t].p = float4(q, 0, 0, 1);
    if (t == 0) tri[0] = uint3(0, 1, 2);
}"""


@pytest.mark.parametrize("numthreads, profile, refused", [("4, 1, 1", "ms_6_6", False), ("2, 2, 1", "ms_6_5", False),
                                                          ("2, 2, 1", "ms_6_6", True)])
def test_mesh_quads_of_a_2d_group_are_refused_for_spirv(numthreads, profile, refused):
    """SM 6.6 gives a 2-D mesh/amplification group 2x2 thread quads; SPIR-V has them there only through
    SPV_KHR_compute_shader_derivatives (the NV extension we emit covers compute shaders), so our SPIR-V refuses
    that case with a located error instead of using lane quads; DXIL compiles it."""
    from shaderbuild.compiler import compile_file
    from shaderbuild.options import CompileOptions
    src = MESH_QUADS.replace("NT", numthreads)
    res = compile_file("m.hlsl", CompileOptions(entry="main", profile=profile, vk_target_env="vulkan1.2"), text=src)
    if refused:
        assert [d.message.split(",")[0] for d in res.diagnostics] == [
            "quad operations in a mesh shader with a 2-D thread group read 2x2 thread quads from shader model 6.6"]
        assert res.diagnostics[0].loc is not None and res.diagnostics[0].loc.line == 5
    else:
        assert res.ok, diagnostics_text(res)
    assert compile_file("m.hlsl", CompileOptions(entry="main", profile=profile, target="dxil"), text=src).ok


DISCARD_PS = """
RWStructuredBuffer<uint> Out : register(u1);
float4 main(float4 pos : SV_Position) : SV_Target {
    uint id = (uint)pos.y * 8u + (uint)pos.x;
    if ((id * 7u) % 5u < 2u)
        discard;                                      // these lanes leave the wave's active set
    Out[id * 3u + 0u] = WaveActiveCountBits(true);
    Out[id * 3u + 1u] = WaveReadLaneFirst(id);
    Out[id * 3u + 2u] = WavePrefixSum(1u);
    return float4(1.0, 0.0, 0.0, 1.0);
}
"""


def test_discarded_lanes_take_no_part_in_wave_ops():
    """After `discard` a lane is no longer active (D3D: it may run on as a helper, writing nothing): the wave
    ops that follow count only the pixels that kept going."""
    import res_util as R
    w = h = 8
    _t, bufs = R.draw(R.FULLSCREEN_VS, DISCARD_PS, w, h, {"Out": R.storage(R.sentinel(w * h * 3))}, full=True)
    got = R.unpack("I", bufs["Out"])
    kept = [i for i in range(w * h) if (i * 7) % 5 >= 2]
    assert [i for i in range(w * h) if got[i * 3] != 0xCDCDCDCD] == kept
    groups: dict[int, list[int]] = {}
    for i in kept:
        groups.setdefault(got[i * 3 + 1], []).append(i)
    assert sorted(got[i * 3 + 2] for i in kept) == sorted(k for m in groups.values() for k in range(len(m)))
    for head, members in groups.items():
        assert head in members
        assert all(got[i * 3] == len(members) for i in members), f"wave of pixel {head}"


BOOL_NUMERIC = DECLS + """
RWStructuredBuffer<float> Out : register(u0);
StructuredBuffer<uint> In : register(t1);
[numthreads(32, 1, 1)]
void main(uint t : SV_GroupIndex) {
""" + LANES + """
    bool b = In[t] % 3 == 0;
    Out[t * 2 + 0] = WaveActiveSum(b) / 2;          // DXC: a float sum, then a float division
    Out[t * 2 + 1] = -QuadReadAcrossX(b);           // DXC: -0.0 for a false neighbour
}
"""


@pytest.mark.parametrize("backend", VK)
def test_bool_argument_of_a_numeric_wave_op_is_a_float(backend):
    """DXC's intrinsic matching gives an argument kind its numeric<> list lacks (bool) the list's first
    kind, float (DXC issue 5153): a float sum divided as a float, a float negated to -0.0."""
    vals = [(t * 5 + 1) % 7 for t in range(32)]
    got, ws = run(backend, BOOL_NUMERIC, 32, {"Out": ("float", 64)}, {"In": ("uint", vals)})
    for w in ws:
        bs = [vals[u] % 3 == 0 for u in w]
        for lane, t in enumerate(w):
            other = bs[lane ^ 1]
            assert got["Out"][t * 2] == sum(bs) / 2
            assert struct.pack("<f", got["Out"][t * 2 + 1]) == struct.pack("<f", -1.0 if other else -0.0)


SINK = DECLS + """
RWStructuredBuffer<uint> Out : register(u0);
StructuredBuffer<uint> In : register(t1);
[numthreads(32, 1, 1)]
void main(uint t : SV_GroupIndex) {
""" + LANES + """
    uint x = In[t];
    uint s = WaveActiveSum(x), c = WaveActiveCountBits(x > 2), f = WaveReadLaneFirst(x), p = WavePrefixSum(x);
    if (x > 3) {                                   // used only here: must not be sunk into the branch
        Out[t * 5 + 0] = s;
        Out[t * 5 + 1] = c;
        Out[t * 5 + 2] = f;
        Out[t * 5 + 3] = p;
    }
    uint q = 0;
    for (uint i = 0; i < x % 3; i++)               // nor into a loop some lanes skip
        q += s;
    if (x % 3 == 1)
        Out[t * 5 + 4] = q + WaveActiveMax(x);
}
"""


@pytest.mark.parametrize("backend", VK)
def test_wave_values_are_not_sunk_into_branches(backend):
    """A wave op computed by every lane and used only inside a branch or loop keeps every lane's value: moving
    it to its use (code sinking) would shrink its active lanes."""
    vals = [(t * 3 + 2) % 8 for t in range(32)]
    got, ws = run(backend, SINK, 32, {"Out": ("uint", 160)}, {"In": ("uint", vals)})
    for w in ws:
        xs = [vals[u] for u in w]
        for lane, t in enumerate(w):
            x = xs[lane]
            row = [sum(xs), sum(1 for y in xs if y > 2), xs[0], sum(xs[:lane])] if x > 3 else [0xCDCDCDCD] * 4
            ones = [y for y in xs if y % 3 == 1]
            row.append(sum(xs) * (x % 3) + max(ones) if x % 3 == 1 else 0xCDCDCDCD)
            assert got["Out"][t * 5:t * 5 + 5] == row, f"thread {t} (lane {lane})"


# ---------------------------------------------------------------- an amplification shader compacting with wave ops

AMP = """
struct Payload { uint ids[8]; };
groupshared Payload pl;
[numthreads(8, 1, 1)]
void main(uint t : SV_GroupThreadID) {
    bool visible = (VISIBLE >> t) & 1;
    uint slot = WavePrefixCountBits(visible);       // compaction in id order, one wave
    if (visible)
        pl.ids[slot] = t;
    uint n = WaveActiveCountBits(visible);
    GroupMemoryBarrierWithGroupSync();
    DispatchMesh(n, 1, 1, pl);
}
"""
AMP_MS = """
struct V { float4 pos : SV_Position; [[vk::location(1)]] nointerpolation float4 color : COLOR0; };
struct Payload { uint ids[8]; };
[outputtopology("triangle")]
[numthreads(4, 1, 1)]
void main(uint t : SV_GroupThreadID, uint gid : SV_GroupID, in payload Payload p,
          out vertices V verts[4], out indices uint3 tris[2]) {
    SetMeshOutputCounts(4, 2);
    uint m = p.ids[gid];                            // meshlet m covers pixel column pair 2m, 2m + 1
    float x0 = m / 4.0 - 1.0, x1 = (m + 1) / 4.0 - 1.0;
    V v;
    v.pos = float4((t & 1) ? x1 : x0, (t & 2) ? 1.0 : -1.0, 0, 1);
    v.color = float4((m + 1) / 8.0, 0, 0, 1);
    verts[t] = v;
    if (t < 2)
        tris[t] = t == 0 ? uint3(0, 1, 2) : uint3(1, 3, 2);
}
"""
AMP_PS = """
struct V { float4 pos : SV_Position; [[vk::location(1)]] nointerpolation float4 color : COLOR0; };
float4 main(V v) : SV_Target { return v.color; }
"""


@pytest.mark.parametrize("visible", [0b10110101, 0b00000000, 0b11111111])
def test_amplification_shader_compacts_with_wave_ops(visible):
    """WavePrefixCountBits gives each visible meshlet its payload slot and WaveActiveCountBits the mesh group
    count (the 8 threads are one wave when waves have 8 or more lanes, as on lavapipe); drawn from
    SPIR-V and again with the amplification shader's DXIL twin converted by dxil-spirv."""
    import res_util as R
    from dxil_run import consumer_spirv
    from harness.vulkan_runner import run_mesh
    env = "vulkan1.2"
    task = R.build(AMP.replace("VISIBLE", str(visible)), "main", "as_6_5", env=env)
    ms = R.build(AMP_MS, "main", "ms_6_5", env=env)
    ps = R.build(AMP_PS, "main", "ps_6_5", env=env)
    w, h = 16, 2
    px = run_mesh(ms.binary, "main", ps.binary, "main", w, h, (1, 1, 1), task=(task.binary, "main"))
    want = []
    for _y in range(h):
        for x in range(w):
            m = x // 2
            want.append((R.unorm8((m + 1) / 8), 0, 0, 255) if visible >> m & 1 else (0, 0, 0, 0))
    assert [tuple(px[i:i + 4]) for i in range(0, w * h * 4, 4)] == want
    twin = R.twin_of(task)
    assert twin is not None
    converted = consumer_spirv(twin)
    assert converted is not None
    again = run_mesh(ms.binary, "main", ps.binary, "main", w, h, (1, 1, 1), task=(converted[0], converted[1]["entry"]))
    assert again == px, "the amplification shader's DXIL through dxil-spirv draws differently"
