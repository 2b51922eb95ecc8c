"""Issue 20 language gaps: the `out uint status` forms of texture and buffer reads, CheckAccessFullyMapped;
SM 6.5 WaveMatch and WaveMultiPrefix* (SPIR-V: portable loops of subgroup operations).

Expected values are computed here in Python from the inputs, never by the compiler.  Every resource
lavapipe binds is resident, so each status reports "fully mapped".  The SPIR-V is DXC's: each read becomes
its OpImageSparse* form and CheckAccessFullyMapped OpImageSparseTexelsResident; lavapipe (Mesa 25.0.7)
reports shaderResourceResidency but its worker dies on any OpImageSparse* (glslang's sparseTexelFetchARB
too), so the executed run is a strict xfail on that crash.
"""

from __future__ import annotations

import struct

import pytest
import res_util as R
from harness import tools
from harness.vulkan_runner import VulkanCrash
from lang_util import BACKENDS, SENTINEL, run_backend

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]


def _compile(src: str, target: str, profile: str = "cs_6_0"):
    return compile_file("gaps.hlsl", CompileOptions(entry="main", profile=profile, target=target), text=src)


# a 4x4 r32f texture holding 4 y + x at (x, y); an r32f RW texture holding 100 + the same
STATUS = """
Texture2D<float> Tex : register(t0);
RWTexture2D<float> RW : register(u3);
SamplerState S : register(s1);
RWStructuredBuffer<float> Out : register(u2);
[numthreads(1,1,1)] void main() {
    uint s0, s1, s2, s3;
    float a = Tex.SampleLevel(S, float2(0.375, 0.625), 0, int2(1, 0), s0);
    float b = Tex.Load(int3(1, 2, 0), int2(1, 1), s1);
    float4 c = Tex.GatherRed(S, float2(0.5, 0.5), int2(0, 0), s2);
    float d = RW.Load(int2(3, 1), s3);
    Out[0] = a; Out[1] = b; Out[2] = c.y; Out[3] = d; Out[4] = 0;
    Out[5] = CheckAccessFullyMapped(s0) + 2 * CheckAccessFullyMapped(s1) + 4 * CheckAccessFullyMapped(s2)
           + 8 * CheckAccessFullyMapped(s3);
}
"""


@pytest.mark.xfail(strict=True, raises=VulkanCrash,
                   reason="lavapipe (Mesa 25.0.7) crashes on OpImageSparse* image reads, glslang's output too")
def test_status_forms_of_texture_reads():
    texels = [4.0 * y + x for y in range(4) for x in range(4)]
    out = R.cs(STATUS,
               {"Tex": R.image(R.pack("f", texels), 4, 4, "r32f"), "S": R.sampler(),
                "RW": R.image(R.pack("f", [100 + t for t in texels]), 4, 4, "r32f", storage_image=True),
                "Out": R.storage(R.sentinel(6))})
    # SampleLevel at uv (0.375, 0.625) hits texel (1, 2), moved by the offset to (2, 2);
    # Load (1, 2) + (1, 1) = (2, 3); GatherRed texel 1 of the footprint at (1, 1) is (2, 2); RW (3, 1)
    want = [4.0 * 2 + 2, 4.0 * 3 + 2, 4.0 * 2 + 2, 100 + 4.0 * 1 + 3, 0.0, 15.0]
    assert R.unpack("f", out["Out"]) == want


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_status_reads_use_the_residency_forms(target):
    res = _compile(STATUS, target)
    assert res.ok, R.diagnostics_text(res)
    if target == "spirv":
        tools.spirv_val(res.binary, "vulkan1.1")
        dis = tools.spirv_dis(res.binary)
        assert "OpCapability SparseResidency" in dis
        for op in ("OpImageSparseSampleExplicitLod", "OpImageSparseFetch", "OpImageSparseGather",
                   "OpImageSparseRead"):
            assert op in dis, op
        assert dis.count("OpImageSparseTexelsResident") == 4
    else:
        _, check = R.build_dxil(STATUS)
        assert check.ir.count("call i1 @dx.op.checkAccessFullyMapped.i32(i32 71") == 4
        assert check.ir.count("extractvalue %dx.types.ResRet.f32") >= 8     # values and statuses


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("call, message", [
    ("Tex.Load(int3(2, 3, 0), s)", "texture offsets must be compile-time constants"),   # (location, offset)
    ("Tex.Load(int3(2, 3, 0), int2(0, 0), f)", "the status argument must be a uint, not 'float'"),
])
def test_status_refusals_are_located(target, call, message):
    src = f"""Texture2D<float> Tex : register(t0);
Buffer<float> Buf : register(t1);
SamplerState S : register(s1);
RWStructuredBuffer<float> Out : register(u2);
[numthreads(1,1,1)] void main() {{
    uint s; float f;
    Out[0] = {call};
}}
"""
    res = _compile(src, target)
    assert not res.ok
    errs = [d for d in res.diagnostics if d.severity == "error"]
    assert errs and errs[0].loc.line == 7, R.diagnostics_text(res)
    assert message in errs[0].message, errs[0].message


BUFFER_STATUS = """
Buffer<float> B : register(t0);
RWBuffer<uint> RB : register(u1);
StructuredBuffer<float2> SB : register(t3);
ByteAddressBuffer BA : register(t4);
RWStructuredBuffer<float> Out : register(u2);
[numthreads(1,1,1)] void main() {
    uint s0, s1, s2, s3, s4;
    Out[0] = B.Load(1, s0) + RB.Load(2, s1);
    Out[1] = CheckAccessFullyMapped(s0) + 2 * CheckAccessFullyMapped(s1);
#ifdef STORAGE
    Out[2] = SB.Load(1, s2).y + BA.Load2(4, s3).x + asfloat(BA.Load<float>(8, s4));
    Out[3] = CheckAccessFullyMapped(s2) + 2 * CheckAccessFullyMapped(s3) + 4 * CheckAccessFullyMapped(s4);
#endif
}
"""


def test_status_forms_of_typed_buffer_loads():
    res = R.build(BUFFER_STATUS)
    tools.spirv_val(res.binary, "vulkan1.1")
    dis = tools.spirv_dis(res.binary)
    assert "OpImageSparseFetch" in dis and "OpImageSparseRead" in dis
    assert dis.count("OpImageSparseTexelsResident") == 2
    _, check = R.build_dxil(BUFFER_STATUS)
    assert check.ir.count("call i1 @dx.op.checkAccessFullyMapped.i32(i32 71") == 2
    assert check.ir.count("call %dx.types.ResRet.") == 2


def test_status_forms_of_storage_buffer_loads_on_dxil():
    """DXIL: each load's ResRet gives its status (rawBufferLoad at SM 6.2+, bufferLoad before)."""
    for profile, raw in (("cs_6_0", 0), ("cs_6_2", 3)):
        _, check = R.build_dxil(BUFFER_STATUS, profile=profile, defines={"STORAGE": "1"})
        assert check.ir.count("call i1 @dx.op.checkAccessFullyMapped.i32(i32 71") == 5
        assert check.ir.count("call %dx.types.ResRet.") == 5, profile      # one read per status
        assert check.ir.count("call %dx.types.ResRet.f32 @dx.op.rawBufferLoad.") + check.ir.count(
            "call %dx.types.ResRet.i32 @dx.op.rawBufferLoad.") == raw, profile
        assert check.ir.count("extractvalue %dx.types.ResRet") >= 10


def test_status_of_a_storage_buffer_load_is_refused_on_spirv():
    """SPIR-V has no residency query for storage buffers: a located error (DXIL supports it)."""
    res = _compile(BUFFER_STATUS.replace("#ifdef STORAGE", "").replace("#endif", ""), "spirv")
    assert not res.ok
    errs = [d for d in res.diagnostics if d.severity == "error"]
    assert errs and (errs[0].loc.line, errs[0].loc.col) == (12, 17), R.diagnostics_text(res)
    assert "SPIR-V has no residency status for a storage buffer" in errs[0].message


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_status_of_a_wide_load_by_target(target):
    src = """ByteAddressBuffer BA : register(t4);
RWStructuredBuffer<double> Out : register(u2);
[numthreads(1,1,1)] void main() {
    uint s;
    Out[0] = BA.Load<double>(0, s);
}
"""
    res = _compile(src, target)
    if target == "dxil":        # session 9: a load of several words takes a status on DXIL (test_lang_gaps9)
        assert res.ok, R.diagnostics_text(res)
        return
    errs = [d for d in res.diagnostics if d.severity == "error"]
    assert errs and errs[0].loc.line == 5, R.diagnostics_text(res)
    assert "SPIR-V has no residency status for a storage buffer" in errs[0].message


# ---------------------------------------------------------------- SM 6.5 WaveMatch / WaveMultiPrefix*
# lavapipe runs 8-lane subgroups (tests/lang/test_lang_intrinsics.py LANES); some lanes sit out (t % 4 == 3)
PARTITIONS = """
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(16, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
    uint t = tid.x;
    if (t % 4u == 3u)
        return;
    Out[t * 6 + 0] = WaveMatch(t % 3u).x;
    Out[t * 6 + 1] = WaveMatch(float2(t / 4u, 0.5)).x;
    uint4 part = WaveMatch(t & 1u);
    Out[t * 6 + 2] = WaveMultiPrefixSum(t, part);
    Out[t * 6 + 3] = WaveMultiPrefixProduct(t + 1u, part);
    Out[t * 6 + 4] = WaveMultiPrefixBitOr(1u << t, part) ^ WaveMultiPrefixBitAnd(t | 0x10u, part)
                   ^ WaveMultiPrefixBitXor(t * 7u, part);
    Out[t * 6 + 5] = WaveMultiPrefixCountBits(t % 3u == 0u, part);
}
"""
LANES = 8


def _partition_model(t: int) -> list[int]:
    first = t - t % LANES
    active = [u for u in range(first, first + LANES) if u % 4 != 3]

    def mask(pred) -> int:
        return sum(1 << (u - first) for u in active if pred(u))
    below = [u for u in active if u < t and u & 1 == t & 1]
    prod, band, bor, bxor = 1, 0xFFFFFFFF, 0, 0
    for u in below:
        prod *= u + 1
        band &= u | 0x10
        bor |= 1 << u
        bxor ^= u * 7
    return [mask(lambda u: u % 3 == t % 3), mask(lambda u: u // 4 == t // 4), sum(below), prod & 0xFFFFFFFF,
            bor ^ band ^ bxor, sum(1 for u in below if u % 3 == 0)]


# the DXIL interpreter runs one thread at a time and has no waves (lang_util.run_cs runs wave shaders'
# DXIL through dxil-spirv on lavapipe only, as here)
@pytest.mark.parametrize("backend", [b for b in BACKENDS if b != "dxil"])
def test_wave_match_and_multi_prefix(backend):
    got = run_backend(backend, PARTITIONS, {"Out": ("uint", 16 * 6)}, profile="cs_6_5")["Out"]
    for t in range(16):
        want = [SENTINEL] * 6 if t % 4 == 3 else _partition_model(t)
        assert got[t * 6:(t + 1) * 6] == want, f"{backend} thread {t}"


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_wave_match_lowering(target):
    res = _compile(PARTITIONS, target, "cs_6_5")
    assert res.ok, R.diagnostics_text(res)
    if target == "spirv":
        tools.spirv_val(res.binary, "vulkan1.1")
        dis = tools.spirv_dis(res.binary)
        assert "PartitionNV" not in dis and "GroupNonUniformPartitionedNV" not in dis    # portable
        assert "OpGroupNonUniformBroadcastFirst" in dis and "OpGroupNonUniformBallot" in dis
    else:
        _, check = R.build_dxil(PARTITIONS, profile="cs_6_5")
        assert check.ir.count("call %dx.types.fouri32 @dx.op.waveMatch.") == 4       # float2: two
        assert check.ir.count("call i32 @dx.op.waveMultiPrefixOp.i32(i32 166") == 5
        assert check.ir.count("call i32 @dx.op.waveMultiPrefixBitCount(i32 167") == 1


def test_wave_match_needs_shader_model_6_5():
    res = _compile(PARTITIONS, "spirv")
    assert not res.ok
    assert any("6.5" in d.message and d.loc.line == 8 for d in res.diagnostics), R.diagnostics_text(res)


# ---------------------------------------------------------------- SM 6.6 RWByteAddressBuffer Interlocked*64
ATOMIC64_RAW = """
RWByteAddressBuffer B : register(u0);
[numthreads(4, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
    uint64_t t = tid.x;
    uint64_t o;
    B.InterlockedAdd64(0, t << 33, o);
    B.InterlockedMax64(8, (int64_t)t - 2);
    B.InterlockedMin64(16, -((int64_t)t << 34));
    B.InterlockedOr64(24, 1ull << (t + 40));
    B.InterlockedCompareStore64(32, 0ull, 7ull);
    B.InterlockedCompareExchange64(40, 0ull, t + 0x100000000ull, o);
    B.InterlockedAnd64(48, ~(1ull << (t + 36)));
    B.InterlockedXor64(56, 3ull << (2 * t + 32));
}
"""


@pytest.mark.parametrize("backend", ["dxil", "dxil-vk"])
def test_byte_address_64_bit_atomics(backend):
    """DXIL atomicBinOp / atomicCompareExchange .i64 at the byte offset; results independent of thread order."""
    init = [100, -5, 7, 0x10, 0, 9, -1, 0]
    got = run_backend(backend, ATOMIC64_RAW, {"B": ("int64_t", init)}, profile="cs_6_6")["B"]
    ts = range(4)
    band, bxor = -1, 0
    for t in ts:
        band &= ~(1 << (t + 36))
        bxor ^= 3 << (2 * t + 32)
    want = [100 + (sum(ts) << 33), max(-5, *(t - 2 for t in ts)), min(7, *(-(t << 34) for t in ts)),
            0x10 | sum(1 << (t + 40) for t in ts), 7, 9, band, bxor]
    assert got == want


def test_byte_address_64_bit_atomics_are_a_located_spirv_error():
    res = _compile(ATOMIC64_RAW, "spirv", "cs_6_6")
    errs = [d for d in res.diagnostics if d.severity == "error"]
    assert not res.ok and errs and (errs[0].loc.line, errs[0].loc.col) == (7, 7), R.diagnostics_text(res)
    assert "'InterlockedAdd64' is not supported by the SPIR-V backend" in errs[0].message


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_byte_address_64_bit_atomics_need_shader_model_6_6(target):
    res = _compile(ATOMIC64_RAW, target, "cs_6_5")
    errs = [d for d in res.diagnostics if d.severity == "error"]
    assert errs and errs[0].loc.line == 7 and "6.6" in errs[0].message, R.diagnostics_text(res)


# ---------------------------------------------------------------- Interlocked*FloatBitwise (compare bits)
FLOAT_BITWISE = """
RWByteAddressBuffer B : register(u0);
[numthreads(4, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
    float o;
    B.InterlockedCompareStoreFloatBitwise(0, -0.0, 1.5);          // +0.0 there: the bits differ, no store
    B.InterlockedCompareExchangeFloatBitwise(4, 0.0, 2.5, o);     // the first thread swaps
    B.Store(16 + 4 * tid.x, asuint(o));
    B.InterlockedCompareStoreFloatBitwise(8, asfloat(0x7FC00001u), 5.0);     // a NaN equal to itself
    B.InterlockedCompareStoreFloatBitwise(12, 1.0, 6.0);          // 2.0 there: no store
}
"""


def _bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_float_bitwise_compare_and_swap_on_a_raw_buffer(backend):
    init = [0, 0, 0x7FC00001, _bits(2.0), 0, 0, 0, 0]
    got = run_backend(backend, FLOAT_BITWISE, {"B": ("uint", init)})["B"]
    assert got[:4] == [0, _bits(2.5), _bits(5.0), _bits(2.0)]
    assert sorted(got[4:]) == sorted([0] + [_bits(2.5)] * 3)      # thread order decides who swapped


FLOAT_BITWISE_FREE = """
RWStructuredBuffer<float> S : register(u1);
[numthreads(4, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
    float o;
    InterlockedCompareStoreFloatBitwise(S[0], 0.0, 3.5);
    InterlockedCompareStoreFloatBitwise(S[1], -0.0, 4.5);         // +0.0 there: no store
    InterlockedCompareExchangeFloatBitwise(S[2], 7.0, 8.5, o);
    S[4 + tid.x] = o;
}
"""
# groupshared float: cmpxchg on the float's bits (a pointer cast, as LLVM does it)
FLOAT_BITWISE_SHARED = """
RWStructuredBuffer<float> S : register(u1);
groupshared float g;
[numthreads(1, 1, 1)]
void main() {
    float o, o2;
    g = 0.0;
    InterlockedCompareExchangeFloatBitwise(g, 0.0, 4.5, o);
    InterlockedCompareExchangeFloatBitwise(g, -0.0, 5.5, o2);     // 4.5 there: no swap
    S[0] = o; S[1] = o2; S[2] = g;
}
"""


@pytest.mark.parametrize("backend", ["dxil", "dxil-vk"])
def test_float_bitwise_free_functions_on_dxil(backend):
    """DXIL: atomicCompareExchange.i32 on the structured float element's bits."""
    got = run_backend(backend, FLOAT_BITWISE_FREE, {"S": ("float", [0.0, 0.0, 7.0, 0, 0, 0, 0, 0])})["S"]
    assert got[:4] == [3.5, 0.0, 8.5, 0.0]
    assert sorted(got[4:]) == [7.0, 8.5, 8.5, 8.5]          # thread order decides who swapped
    _, check = R.build_dxil(FLOAT_BITWISE_FREE)
    assert check.ir.count("call i32 @dx.op.atomicCompareExchange.i32(i32 79") == 3


def test_float_bitwise_on_groupshared_on_dxil():
    """On the interpreter (dxil-spirv translates the cast pointer's cmpxchg into SPIR-V spirv-val rejects)."""
    got = run_backend("dxil", FLOAT_BITWISE_SHARED, {"S": ("float", [9.0] * 3)})["S"]
    assert got == [0.0, 4.5, 4.5]
    res = _compile(FLOAT_BITWISE_SHARED, "dxil")
    assert res.ok, R.diagnostics_text(res)


def test_float_bitwise_free_functions_are_a_located_spirv_error():
    res = _compile(FLOAT_BITWISE_FREE, "spirv")
    errs = [d for d in res.diagnostics if d.severity == "error"]
    assert not res.ok and errs and (errs[0].loc.line, errs[0].loc.col) == (6, 5), R.diagnostics_text(res)
    assert "'InterlockedCompareStoreFloatBitwise' on a float variable is not supported by the SPIR-V backend" \
        in errs[0].message


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_float_bitwise_needs_a_float_destination(target):
    src = FLOAT_BITWISE_FREE.replace("RWStructuredBuffer<float> S", "RWStructuredBuffer<uint> S")
    res = _compile(src, target)
    errs = [d for d in res.diagnostics if d.severity == "error"]
    assert errs and (errs[0].loc.line, errs[0].loc.col) == (6, 42), R.diagnostics_text(res)
    assert "requires a float destination, not 'uint'" in errs[0].message
