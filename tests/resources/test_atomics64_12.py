"""64-bit atomics (SM 6.6) and the float bitwise compare atomics, executed (issue 20, audit12).

Every Interlocked* on int64_t / uint64_t in RWStructuredBuffer and groupshared memory, with operands and
initial values on the sign and word boundaries (0x8000000000000000, -1, 0x7FFFFFFFFFFFFFFF,
0x00000000FFFFFFFF, 0x0000000100000000): the signedness of Min/Max follows the destination (the same bits
give different answers in an int64_t and a uint64_t element, whatever the value's type), the returned
original values, CompareExchange / CompareStore with a matching and a missing comparand, and the same
operations contended by a whole group (judged order-free).  RWByteAddressBuffer's *64 methods and the
typed RWBuffer / RWTexture 64-bit atomics exist only for DXIL: the SPIR-V backend refuses them (located,
as DXC's SPIR-V does), the DXIL runs on the interpreter and through dxil-spirv where lavapipe can.
Expected values are computed here.
"""

from __future__ import annotations

import re
import struct

import pytest
import res_util as R

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

M64 = (1 << 64) - 1
EDGES64 = [0x8000000000000000, M64, 0x7FFFFFFFFFFFFFFF, 0x00000000FFFFFFFF, 0x0000000100000000, 0,
           0xFFFFFFFF00000000, 0x8000000000000001, 5, 0xFFFFFFFFFFFFFFFB]
OPS = ["Add", "Min", "Max", "And", "Or", "Xor", "Exchange", "CompareExchange"]


def s64(x: int) -> int:
    x &= M64
    return x - (1 << 64) if x >> 63 else x


def apply(op: str, old: int, v: int, signed: bool, cmp: int = 0) -> int:
    """The new 64-bit pattern after `op` (D3D: Min/Max signed for an int64_t destination)."""
    key = s64 if signed else (lambda x: x)
    if op == "Add":
        return (old + v) & M64
    if op == "Min":
        return old if key(old) <= key(v) else v
    if op == "Max":
        return old if key(old) >= key(v) else v
    if op == "And":
        return old & v
    if op == "Or":
        return old | v
    if op == "Xor":
        return old ^ v
    if op == "Exchange":
        return v
    assert op == "CompareExchange"
    return v if old == cmp else old


# ---------------------------------------------------------------- one element per thread: exact originals

PER_THREAD = """
RWStructuredBuffer<int64_t> S : register(u0);
RWStructuredBuffer<uint64_t> U : register(u1);
StructuredBuffer<uint64_t> V : register(t2);       // operand of thread t
RWStructuredBuffer<uint64_t> Orig : register(u3);  // originals: S, U, groupshared S, groupshared U
RWStructuredBuffer<uint64_t> G : register(u4);     // final groupshared values
groupshared int64_t gs[80];
groupshared uint64_t gu[80];
[numthreads(80, 1, 1)]
void main(uint t : SV_GroupIndex) {
    uint op = t % 8;
    uint64_t v = V[t];
    int64_t sv = (int64_t)v;
    gs[t] = S[t];
    gu[t] = U[t];
    int64_t so = 0, gso = 0;
    uint64_t uo = 0, guo = 0;
    // S takes the value as uint64_t and U as int64_t: the destination decides Min/Max signedness
    switch (op) {
    case 0: InterlockedAdd(S[t], v, so); InterlockedAdd(U[t], sv, uo);
            InterlockedAdd(gs[t], v, gso); InterlockedAdd(gu[t], sv, guo); break;
    case 1: InterlockedMin(S[t], v, so); InterlockedMin(U[t], sv, uo);
            InterlockedMin(gs[t], v, gso); InterlockedMin(gu[t], sv, guo); break;
    case 2: InterlockedMax(S[t], v, so); InterlockedMax(U[t], sv, uo);
            InterlockedMax(gs[t], v, gso); InterlockedMax(gu[t], sv, guo); break;
    case 3: InterlockedAnd(S[t], v, so); InterlockedAnd(U[t], sv, uo);
            InterlockedAnd(gs[t], v, gso); InterlockedAnd(gu[t], sv, guo); break;
    case 4: InterlockedOr(S[t], v, so); InterlockedOr(U[t], sv, uo);
            InterlockedOr(gs[t], v, gso); InterlockedOr(gu[t], sv, guo); break;
    case 5: InterlockedXor(S[t], v, so); InterlockedXor(U[t], sv, uo);
            InterlockedXor(gs[t], v, gso); InterlockedXor(gu[t], sv, guo); break;
    case 6: InterlockedExchange(S[t], sv, so); InterlockedExchange(U[t], v, uo);
            InterlockedExchange(gs[t], sv, gso); InterlockedExchange(gu[t], v, guo); break;
    default:
        // the comparand is the element's value for even t / 8 (stores), a different one for odd (no store)
        int64_t c = (t / 8) % 2 == 0 ? gs[t] : gs[t] ^ 0x100000000;
        InterlockedCompareExchange(S[t], c, sv, so); InterlockedCompareExchange(U[t], (uint64_t)c, v, uo);
        InterlockedCompareExchange(gs[t], c, sv, gso); InterlockedCompareExchange(gu[t], (uint64_t)c, v, guo);
        break;
    }
    Orig[4 * t] = (uint64_t)so; Orig[4 * t + 1] = uo; Orig[4 * t + 2] = (uint64_t)gso; Orig[4 * t + 3] = guo;
    G[2 * t] = (uint64_t)gs[t]; G[2 * t + 1] = gu[t];
}
"""
N = 80


def q(values: list[int]) -> bytes:
    return struct.pack(f"<{len(values)}Q", *[v & M64 for v in values])


def uq(data: bytes) -> list[int]:
    return list(struct.unpack(f"<{len(data) // 8}Q", data))


def test_every_64bit_atomic_on_its_own_element():
    """Thread t applies OPS[t % 8] to its own element, so the originals are exact; the 80 threads pair every
    edge initial value with every edge operand for each operation."""
    init = [EDGES64[t % 10] for t in range(N)]
    vals = [EDGES64[(t // 8 + t * 3) % 10] for t in range(N)]
    out = R.cs(PER_THREAD, {"S": R.storage(q(init)), "U": R.storage(q(init)), "V": R.storage(q(vals)),
                            "Orig": R.storage(R.sentinel(8 * N)), "G": R.storage(R.sentinel(4 * N))},
               profile="cs_6_6")
    s, u, orig, g = uq(out["S"]), uq(out["U"]), uq(out["Orig"]), uq(out["G"])
    bad = []
    for t in range(N):
        op, old, v = OPS[t % 8], init[t], vals[t]
        cmp = old if (t // 8) % 2 == 0 else old ^ (1 << 32)
        want_s, want_u = apply(op, old, v, True, cmp), apply(op, old, v, False, cmp)
        got = (s[t], u[t], g[2 * t], g[2 * t + 1], orig[4 * t:4 * t + 4])
        want = (want_s, want_u, want_s, want_u, [old] * 4)
        if got != want:
            bad.append((t, op, hex(old), hex(v), [hex(x) for x in got[:4]], [hex(x) for x in want[:4]], got[4] == want[4]))
    assert not bad, f"{len(bad)} wrong (thread, op, old, operand, got S/U/gS/gU, want, originals ok): {bad[:5]}"


# ---------------------------------------------------------------- a whole group on one element: order-free

CONTENDED = """
RWStructuredBuffer<uint64_t> U : register(u0);
RWStructuredBuffer<int64_t> S : register(u1);
RWStructuredBuffer<uint64_t> Orig : register(u2);
groupshared uint64_t acc;
[numthreads(64, 1, 1)]
void main(uint t : SV_GroupIndex) {
    uint64_t bit = 1ull << t;
    uint64_t o;
    InterlockedAdd(U[0], 0x100000001ull, o);            // carries across the word boundary
    Orig[t] = o;
    InterlockedOr(U[1], bit);
    InterlockedAnd(U[2], ~bit | (t % 2 == 0 ? bit : 0ull));
    InterlockedXor(U[3], bit | 0x8000000000000000ull);
    InterlockedMin(U[4], 0xFFFFFFFF00000000ull - t);    // unsigned: the high words decide
    InterlockedMax(S[0], -(int64_t)t * 0x100000000);    // signed: 0 is the largest
    InterlockedMin(S[1], (int64_t)t - 32);              // signed: -32 the smallest
    InterlockedMax(U[5], (uint64_t)((int64_t)t - 32));  // unsigned: -1 (as bits) the largest
    uint64_t e;
    InterlockedExchange(U[6], (uint64_t)t << 40, e);
    Orig[64 + t] = e;
    // an add by compare-exchange retries: every thread adds once
    uint64_t seen = U[7], prev;
    [allow_uav_condition] for (;;) {
        InterlockedCompareExchange(U[7], seen, seen + 0x10000000Full, prev);
        if (prev == seen) break;
        seen = prev;
    }
}
"""


def test_contended_64bit_atomics_are_order_free():
    init_u = [M64 - 3 * 0x100000001, 0, M64, 0, M64, 0, 77, 0xFFFFFFFF00000000]
    init_s = [-(1 << 62), 1 << 40]

    def check(got: dict[str, bytes]) -> None:
        u, s, orig = uq(got["U"]), struct.unpack("<2q", got["S"]), uq(got["Orig"])
        d = 0x100000001
        assert u[0] == (init_u[0] + 64 * d) & M64
        assert sorted(orig[:64]) == sorted((init_u[0] + k * d) & M64 for k in range(64)), "InterlockedAdd originals"
        # Xor: thread 63's bit is the sign bit, so the sign flips 64 times
        assert u[1:6] == [M64, sum(1 << t for t in range(0, 64, 2)), M64 >> 1,
                          0xFFFFFFFF00000000 - 63, (1 << 64) - 1]
        assert list(s) == [0, -32]
        # exchange: the originals and the final value are the initial value and the 64 stored ones, once each
        assert sorted(orig[64:] + [u[6]]) == sorted([77] + [t << 40 for t in range(64)])
        assert u[7] == (init_u[7] + 64 * 0x10000000F) & M64

    out = R.cs(CONTENDED, {"U": R.storage(q(init_u)), "S": R.storage(struct.pack("<2q", *init_s)),
                           "Orig": R.storage(R.sentinel(256))},
               profile="cs_6_6", dxil_skip="thread-order", dxil_check=check)
    check(out)


# ---------------------------------------------------------------- RWByteAddressBuffer's *64 methods (DXIL only)

BAB64 = """
RWByteAddressBuffer B : register(u0);
RWStructuredBuffer<uint64_t> Orig : register(u1);
[numthreads(1, 1, 1)]
void main() {
    uint64_t o; int64_t so;
    B.InterlockedAdd64(0, 0xFFFFFFFFull, o); Orig[0] = o;
    B.InterlockedMin64(8, (int64_t)-2, so); Orig[1] = (uint64_t)so;
    B.InterlockedMin64(16, (uint64_t)2, o); Orig[2] = o;
    B.InterlockedMax64(24, (int64_t)-2, so); Orig[3] = (uint64_t)so;
    B.InterlockedMax64(32, (uint64_t)-2, o); Orig[4] = o;
    B.InterlockedAnd64(40, 0xF0F0F0F0F0F0F0F0ull, o); Orig[5] = o;
    B.InterlockedOr64(48, 0x8000000000000001ull, o); Orig[6] = o;
    B.InterlockedXor64(56, ~0ull, o); Orig[7] = o;
    B.InterlockedExchange64(64, 0x123456789ull, o); Orig[8] = o;
    B.InterlockedCompareExchange64(72, 0x8000000000000000ull, 9ull, o); Orig[9] = o;
    B.InterlockedCompareExchange64(80, 1ull, 9ull, o); Orig[10] = o;
    B.InterlockedCompareStore64(88, 0x8000000000000000ull, 11ull);
    B.InterlockedCompareStore64(96, 0ull, 12ull);
    B.InterlockedAdd64(104, 1);
}
"""
BAB64_INIT = [0xFFFFFFFF00000001, 0x8000000000000000, 0x8000000000000000, 0x8000000000000000, 5, 0xFFFF0000FFFF0000,
              2, 0x5555, 7, 0x8000000000000000, 0x8000000000000000, 0x8000000000000000, 0x8000000000000000, M64]


@pytest.mark.parametrize("backend", ["dxil", "dxil-vk"])
def test_byteaddress_64bit_methods_dxil(backend):
    """The int64_t overloads of InterlockedMin64/Max64 compare signed, the uint64_t ones unsigned; Add64 carries
    into the high word; CompareStore64 stores only on a bitwise match; the originals come back."""
    from lang_util import run_backend

    got = run_backend(backend, BAB64, {"B": ("uint64_t", BAB64_INIT), "Orig": ("uint64_t", 11)}, profile="cs_6_6")
    i = BAB64_INIT
    want = [(i[0] + 0xFFFFFFFF) & M64, i[1], 2, (-2) & M64, (-2) & M64, i[5] & 0xF0F0F0F0F0F0F0F0,
            i[6] | 0x8000000000000001, i[7] ^ M64, 0x123456789, 9, i[10], 11, i[12], 0]
    assert [hex(x) for x in got["B"]] == [hex(x) for x in want]
    assert got["Orig"] == i[:11]


def test_byteaddress_64bit_methods_are_refused_for_spirv():
    res = R.compile_hlsl(BAB64, profile="cs_6_6")
    assert not res.ok
    assert [e[:85] for e in R.errors(res)] == ["7:7: 'InterlockedAdd64' is not supported by the SPIR-V backend: a "
                                              "RWByteAddressBuffer"]


# ---------------------------------------------------------------- typed 64-bit atomics (DXIL only)

TYPED64 = """
RWBuffer<uint64_t> T : register(u0);
RWBuffer<int64_t> I : register(u1);
RWTexture2D<int64_t> X : register(u2);
RWStructuredBuffer<uint64_t> Orig : register(u3);
[numthreads(1, 1, 1)]
void main() {
    uint64_t o; int64_t so;
    InterlockedAdd(T[1], 0xFFFFFFFFull, o); Orig[0] = o;
    InterlockedMax(T[2], 3ull, o); Orig[1] = o;                     // unsigned: 2^63 stays
    InterlockedMin(I[1], -2, so); Orig[2] = (uint64_t)so;           // signed: -2^63 stays
    InterlockedMax(I[2], -2, so); Orig[3] = (uint64_t)so;           // signed: -2 over -2^63
    InterlockedCompareExchange(I[0], 7, -7, so); Orig[4] = (uint64_t)so;
    InterlockedOr(X[uint2(1, 1)], 0x100000000, so); Orig[5] = (uint64_t)so;
    InterlockedMin(X[uint2(0, 1)], -1, so); Orig[6] = (uint64_t)so;          // texel 2: signed min 3, -1
    InterlockedExchange(X[uint2(1, 0)], -3, so); Orig[7] = (uint64_t)so;
}
"""


def test_typed_64bit_atomics_dxil_on_the_interpreter():
    """D3D's 64-bit typed atomics work on R32G32_UINT texels (a typed buffer element or a texel is one 64-bit
    cell); the interpreter binds the resources with that format."""
    from harness import dxil_exec, dxil_tools

    res = R.compile_hlsl(TYPED64, profile="cs_6_6", target="dxil")
    assert res.ok, R.diagnostics_text(res)
    dxil_tools.check_dxil(res.binary)
    t, ii, x = [5, 0xFFFFFFFF00000001, 0x8000000000000000], [7, 1 << 63, 1 << 63], [1, 2, 3, 0xFFFFFFFF]
    rg = dxil_exec.View(fmt="rg32ui")
    tex = dxil_exec.View(fmt="rg32ui", width=2, height=2)
    got = dxil_exec.run_dxil_compute(res.binary, "main", [(0, 0, "u", q(t), rg), (1, 0, "u", q(ii), rg),
                                                          (2, 0, "u", q(x), tex), (3, 0, "u", R.sentinel(16))])
    assert uq(got[0]) == [5, 0, 1 << 63]
    assert uq(got[1]) == [(-7) & M64, 1 << 63, (-2) & M64]
    assert uq(got[2]) == [1, (-3) & M64, M64, 0xFFFFFFFF | (1 << 32)]
    assert uq(got[3]) == [t[1], t[2], ii[1], ii[2], 7, 0xFFFFFFFF, 3, 2]


def test_typed_64bit_atomics_refused_for_spirv_and_lavapipe_lacks_them():
    """The SPIR-V backend refuses them (Int64ImageEXT); the DXIL through dxil-spirv needs Int64ImageEXT too,
    which lavapipe (Mesa 25) does not offer (no VK_EXT_shader_image_atomic_int64): not executable there."""
    from harness import dxil_consumer, tools

    res = R.compile_hlsl(TYPED64, profile="cs_6_6")
    assert R.errors(res)[0] == "9:5: 'InterlockedAdd' on a 64-bit element of RWBuffer is not supported"
    dx = R.compile_hlsl(TYPED64, profile="cs_6_6", target="dxil")
    spirv = dxil_consumer.to_spirv(dx.binary)
    assert "OpCapability Int64ImageEXT" in tools.spirv_dis(spirv)
    info = R.vk_runner().device_info()
    assert "VK_EXT_shader_image_atomic_int64" not in info["available_extensions"], (
        f"{info['device']} now offers 64-bit image atomics: execute the DXIL of TYPED64 through dxil-spirv")


# ---------------------------------------------------------------- float bitwise compare atomics

def fbits(values: list[float]) -> list[int]:
    return list(struct.unpack(f"<{len(values)}I", struct.pack(f"<{len(values)}f", *values)))


FLOAT_BAB = """
RWByteAddressBuffer B : register(u0);
RWStructuredBuffer<float> Orig : register(u1);
[numthreads(1, 1, 1)]
void main() {
    float o;
    B.InterlockedCompareExchangeFloatBitwise(0, 1.5, 2.5, o); Orig[0] = o;     // match: stores
    B.InterlockedCompareExchangeFloatBitwise(4, 0.0, 2.5, o); Orig[1] = o;     // -0 is not +0 bitwise
    B.InterlockedCompareExchangeFloatBitwise(8, -0.0, 3.5, o); Orig[2] = o;
    B.InterlockedCompareStoreFloatBitwise(12, asfloat(0x7FC00001u), 4.5);      // a NaN matches its own bits
    B.InterlockedCompareStoreFloatBitwise(16, asfloat(0x7FC00002u), 5.5);      // but not another NaN
    B.InterlockedCompareExchangeFloatBitwise(20, 1.0, -0.0, o); Orig[3] = o;
}
"""


def test_float_bitwise_atomics_on_byteaddress_both_routes():
    """Bitwise comparison: -0 and +0 differ, a NaN equals its own bits (a float compare would say the
    opposite of both)."""
    init = fbits([1.5, -0.0, -0.0]) + [0x7FC00001, 0x7FC00001] + fbits([1.0])
    out = R.cs(FLOAT_BAB, {"B": R.storage(R.pack("I", init)), "Orig": R.storage(R.sentinel(4))}, profile="cs_6_6")
    assert R.unpack("I", out["B"]) == fbits([2.5, -0.0, 3.5, 4.5]) + [0x7FC00001] + fbits([-0.0])
    assert R.unpack("I", out["Orig"]) == fbits([1.5, -0.0, -0.0, 1.0])


FLOAT_VARS = """
RWStructuredBuffer<float> F : register(u0);
RWStructuredBuffer<float> Orig : register(u1);
groupshared float g;
[numthreads(1, 1, 1)]
void main() {
    float o;
    g = -0.0;
    InterlockedCompareStoreFloatBitwise(F[0], 1.5, 2.5);
    InterlockedCompareStoreFloatBitwise(F[1], 1.5, 2.5);
    InterlockedCompareExchangeFloatBitwise(F[2], -0.0, 7.0, o); Orig[0] = o;
    InterlockedCompareExchangeFloatBitwise(F[3], 0.0, 7.0, o); Orig[1] = o;
    InterlockedCompareExchangeFloatBitwise(g, 0.0, 3.0, o); Orig[2] = o;
    InterlockedCompareExchangeFloatBitwise(g, -0.0, 4.0, o); Orig[3] = o;
    InterlockedExchange(F[4], 9.5, o); Orig[4] = o;
    Orig[5] = g;
}
"""


def test_float_bitwise_atomics_on_variables_dxil():
    """On a structured float and a groupshared float (DXIL only): the interpreter runs them; dxil-spirv's
    translation of them is invalid SPIR-V (its listed limit 'float-bitwise-atomic'), and the SPIR-V backend
    refuses them, located, as DXC's SPIR-V does."""
    from harness import dxil_consumer
    from lang_util import run_backend

    got = run_backend("dxil", FLOAT_VARS, {"F": ("float", [1.5, 1.25, -0.0, -0.0, 3.0]), "Orig": ("float", 6)},
                      profile="cs_6_6")
    assert fbits(got["F"]) == fbits([2.5, 1.25, 7.0, -0.0, 9.5])
    assert fbits(got["Orig"]) == fbits([-0.0, -0.0, -0.0, -0.0, 3.0, 4.0])
    with pytest.raises(dxil_consumer.ConsumerLimit) as exc:
        run_backend("dxil-vk", FLOAT_VARS, {"F": ("float", 5), "Orig": ("float", 6)}, profile="cs_6_6")
    assert exc.value.key == "float-bitwise-atomic"
    res = R.compile_hlsl(FLOAT_VARS, profile="cs_6_6")
    assert [e[:93] for e in R.errors(res)] == [
        "9:5: 'InterlockedCompareStoreFloatBitwise' on a float variable is not supported by the SPIR-V"]


# ---------------------------------------------------------------- originals of another width; refused destinations

ORIGINAL_WIDTHS = """
RWStructuredBuffer<uint64_t> B : register(u0);
RWStructuredBuffer<uint> C : register(u1);
RWStructuredBuffer<int> I : register(u2);
RWStructuredBuffer<uint64_t> Out : register(u3);
[numthreads(1,1,1)] void main() {
    uint o; InterlockedAdd(B[0], 1, o); Out[0] = o;                          // truncated
    uint64_t p; InterlockedAdd(C[0], 1, p); Out[1] = p;                      // zero-extended
    int64_t q; InterlockedAdd(I[0], 1, q); Out[2] = (uint64_t)q;             // sign-extended
    int r; InterlockedMax(B[1], 5, r); Out[3] = (uint64_t)(int64_t)r;        // truncated, then sign-extended
}
"""


def test_original_of_another_width_converts_on_copy_out():
    """The original value is the destination's type, converted to the out argument's on copy-out (with the
    narrowing warning where it narrows)."""
    out = R.cs(ORIGINAL_WIDTHS, {"B": R.storage(q([0x1234567800000009, 0xFFFFFFFF80000000])),
                                 "C": R.storage(struct.pack("<I", 0xFFFFFFF0)), "I": R.storage(struct.pack("<i", -5)),
                                 "Out": R.storage(R.sentinel(8))}, profile="cs_6_6")
    assert uq(out["Out"]) == [9, 0xFFFFFFF0, (-5) & M64, 0xFFFFFFFF80000000]
    assert uq(out["B"]) == [0x123456780000000A, 0xFFFFFFFF80000000]


@pytest.mark.parametrize("decl, call, want", [
    ("RWStructuredBuffer<uint16_t> B : register(u0);", "InterlockedAdd(B[0], (uint16_t)1);",
     "no matching intrinsic for call to 'InterlockedAdd': the destination must be a 32- or 64-bit int or uint, "
     "not 'uint16_t'"),
    ("groupshared int16_t B;", "InterlockedOr(B, (int16_t)1);",
     "no matching intrinsic for call to 'InterlockedOr': the destination must be a 32- or 64-bit int or uint, "
     "not 'int16_t'"),
    ("RWStructuredBuffer<float> B : register(u0);", "InterlockedAdd(B[0], 1.0);",
     "'InterlockedAdd' requires an int or uint destination, not 'float'"),
    ("RWStructuredBuffer<double> B : register(u0);", "InterlockedMax(B[0], 2.0);",
     "'InterlockedMax' requires an int or uint destination, not 'double'"),
])
def test_refused_atomic_destinations(decl, call, want):
    """16-bit and floating-point destinations (other than the float bitwise forms and InterlockedExchange on
    float) are refused on both targets, located at the destination."""
    src = f"{decl}\n[numthreads(1, 1, 1)] void main() {{ {call} }}\n"
    dest = src.splitlines()[1].index(call) + call.index("(") + 2        # 1-based column of the destination
    for target in ("spirv", "dxil"):
        res = R.compile_hlsl(src, profile="cs_6_6", target=target, enable_16bit_types=True)
        (err,) = R.errors(res)
        line, col, msg = err.split(":", 2)
        assert (line, msg) == ("2", f" {want}"), target
        assert dest <= int(col) <= dest + 1, f"{target}: {err}"         # the name, or the [ of B[0]


# ---------------------------------------------------------------- what the DXIL container says about them

HEAP64 = """
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(1,1,1)] void main() {
    RWStructuredBuffer<uint64_t> b = ResourceDescriptorHeap[1];
    InterlockedAdd(b[0], 1ull);
    Out[0] = 1;
}
"""
FLAGS64 = {"AtomicInt64OnTypedResource", "AtomicInt64OnGroupShared", "AtomicInt64OnHeapResource"}


@pytest.mark.parametrize("name, src, want", [
    ("structured+groupshared", PER_THREAD, {"AtomicInt64OnGroupShared"}),
    ("typed", TYPED64, {"AtomicInt64OnTypedResource"}),
    ("byteaddress", BAB64, set()),
    ("heap", HEAP64, {"AtomicInt64OnHeapResource"}),
])
def test_dxil_declares_64bit_atomics(name, src, want):
    """DXC's shader-feature rules (DxilShaderFlags.cpp): an i64 atomicrmw/cmpxchg (groupshared) sets
    AtomicInt64OnGroupShared, an i64 dx.op atomic on a typed resource AtomicInt64OnTypedResource, on a heap
    resource AtomicInt64OnHeapResource (raw and structured buffers need none: SM 6.6 requires them); each UAV
    an i64 atomic uses carries kDxilAtomic64UseTag (3) in its record and UsedByAtomic64 in PSV0 (before
    audit12 none of these were set, so the validator's flag check and a driver's caps check would miss them)."""
    from harness import dxil_tools

    res = R.compile_hlsl(src, profile="cs_6_6", target="dxil")
    assert res.ok, R.diagnostics_text(res)
    chk = dxil_tools.check_dxil(res.binary)
    sfi0 = next(p for p in chk.container["Parts"] if p["Name"] == "SFI0")
    flags = {k for k, v in sfi0.get("Flags", {}).items() if v}
    assert flags & FLAGS64 == want and "Int64Ops" in flags
    psv = next(p for p in chk.container["Parts"] if p["Name"] == "PSV0")["PSVInfo"]["Resources"]
    used = {(r["Type"], r["LowerBound"]) for r in psv if r["Flags"] == 1}
    nodes = dict(re.findall(r"^(!\d+) = (.*)$", chk.ir, re.M))
    records = [line for line in nodes.values() if "ptr undef" in line]
    tagged = [rec for rec in records if (m := re.search(r"(!\d+)}$", rec))
              and nodes[m.group(1)].endswith("i32 3, i32 1}")]
    if name == "heap":
        assert not used and not tagged            # no record: the heap resource has none
    else:
        assert len(used) == len(tagged) >= 1
        assert all('!"Orig"' not in line for line in tagged)      # Orig is stored to, not used atomically


# ---------------------------------------------------------------- a component picked at run time

PICKED = """
struct S { MAT m; VEC v; VEC w; };        // one layout on Vulkan (std430) and D3D
struct W { MAT m; };
RWStructuredBuffer<W> M : register(u2);
RWStructuredBuffer<S> B : register(u4);
RWStructuredBuffer<ELEM> O : register(u3);
[numthreads(1, 1, 1)] void main() {
    uint r = (uint)O[9], one = (uint)O[8];          // 0 and 1 at run time
    ELEM o;
    InterlockedAdd(M[0].m._12, 100, o); O[0] = o;        // m01
    InterlockedAdd(M[1].m[r][one], 100, o); O[1] = o;    // m01, both indices at run time
    InterlockedAdd(M[2].m[one][r], 100, o); O[2] = o;    // m10
    InterlockedAdd(M[3].m[one][1], 100, o); O[3] = o;    // m11, the row at run time
    InterlockedAdd(B[0].m[r][1], 1000, o); O[4] = o;     // m01 of a struct member
    InterlockedAdd(B[1].v[one], 1000, o); O[5] = o;      // v.y
}
"""


def _picked_want(row_major: bool) -> tuple[list[int], list[int], list[int]]:
    """(M, B, originals) after PICKED, from the D3D layout: a column_major matrix stores m00 m10 m01 m11."""
    at = (lambda r, c: 2 * r + c) if row_major else (lambda r, c: 2 * c + r)
    m = [1, 2, 3, 4] * 4
    orig = []
    for k, (r, c) in enumerate([(0, 1), (0, 1), (1, 0), (1, 1)]):
        orig.append(m[4 * k + at(r, c)])
        m[4 * k + at(r, c)] += 100
    b = list(range(8)) * 2          # S: m (4 words), v, w (2 words each)
    orig += [b[at(0, 1)], b[8 + 5]]
    b[at(0, 1)] += 1000
    b[8 + 5] += 1000
    return m, b, orig


@pytest.mark.parametrize("mat", ["row_major int2x2", "row_major uint2x2"])
def test_atomic_on_a_component_picked_at_run_time(mat):
    """InterlockedAdd on a matrix element or vector component of a structured-buffer element chosen by run-time
    indices (the DXIL backend refused it before audit12: 'needs a buffer element or groupshared destination';
    the SPIR-V one compiled it).  row_major: the layout both targets share (DXC's SPIR-V stores a non-float
    matrix as rows whatever its orientation)."""
    elem = "int" if mat.split()[-1].startswith("int") else "uint"
    src = PICKED.replace("MAT", mat).replace("VEC", elem + "2").replace("ELEM", elem)
    code = "i" if elem == "int" else "I"
    out = R.cs(src, {"M": R.storage(R.pack(code, [1, 2, 3, 4] * 4)), "B": R.storage(R.pack(code, list(range(8)) * 2)),
                     "O": R.storage(R.pack(code, [0] * 8 + [1, 0]))}, profile="cs_6_6")
    m, b, orig = _picked_want(True)
    assert R.unpack(code, out["M"]) == m
    assert R.unpack(code, out["B"]) == b
    assert R.unpack(code, out["O"])[:6] == orig


def test_atomic_on_a_component_picked_at_run_time_column_major_dxil():
    """The same on column_major matrices (DXIL only: D3D's layout, m01 is the third word)."""
    from lang_util import run_backend

    src = PICKED.replace("MAT", "int2x2").replace("VEC", "int2").replace("ELEM", "int")
    m, b, orig = _picked_want(False)
    for backend in ("dxil", "dxil-vk"):
        got = run_backend(backend, src, {"M": ("int", [1, 2, 3, 4] * 4), "B": ("int", list(range(8)) * 2),
                                         "O": ("int", [0] * 8 + [1, 0])}, profile="cs_6_6")
        assert (got["M"], got["B"], got["O"][:6]) == (m, b, orig), backend
