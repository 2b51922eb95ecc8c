"""Golden dx.op call sequences for a curated set of small HLSL shaders.

Every expectation below is written by hand from DXC's docs/DXIL.rst (opcode table,
operation signatures, BarrierMode/AtomicBinOpCode/WaveOpKind enums) and DXC's HLSL
lowering rules (lib/HLSL/HLOperationLower.cpp: omitted sample offsets are 0 not undef,
immediate SampleBias is clamped to 15.99, typed UAV stores write all four components,
mip-less texture GetDimensions asks for level 0, fma is Fma not FMad, length is a Sqrt of
squares, ...), DxilResourceProperties (cbuffer size unrounded, counter bit) and what DXC's
optimiser leaves (ReadNone/ReadOnly calls CSE'd within a block, unread inputs not loaded).
They are deliberately NOT derived from our own op table (plugins/dxil/shaderbuild_dxil/
ops_table.py): this file is the independent check of it and of the lowering.

What is compared:
* body: every dx.op call that is not handle creation, in program order, as text with SSA
  names replaced (`%` for a value, `H` for a handle), plus `extractvalue` of CBufRet so the
  cbuffer component read is checked too;
* handles: SM 6.0 `createHandle` calls, and SM 6.6 `createHandleFromBinding` +
  `annotateHandle` pairs, as a multiset (DXC does not promise where handles are created).
  Resources are declared in register order so that DXC's range IDs equal ours.
Every binary also passes harness.dxil_tools.check_dxil (obj2yaml, bcanalyzer, llvm-dis).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import pytest
from harness.dxil_tools import check_dxil

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

pytestmark = pytest.mark.llvm

HANDLE_OPS = ("dx.op.createHandle", "dx.op.createHandleFromBinding", "dx.op.annotateHandle")
_LINE = re.compile(r"^\s*(?:(%\d+) = )?(?:call [^@]*@(dx\.op\.[\w.]+)\((.*)\)|(extractvalue %dx\.types\.CBufRet.*))$")


@dataclass
class Case:
    """One shader: HLSL text, profile, and the dx.op calls DXC's rules give for it."""
    id: str
    profile: str
    source: str
    body: list[str]
    handles: list[str]
    patterns: list[str] = field(default_factory=list)      # extra regexes over the llvm-dis text
    absent: list[str] = field(default_factory=list)        # text that must not occur in it
    xfail: str | None = None
    native16: bool = False                                  # -enable-16bit-types


def _norm(args: str) -> str:
    args = args.replace("%dx.types.ResBind zeroinitializer", "%dx.types.ResBind { i32 0, i32 0, i32 0, i8 0 }")
    args = re.sub(r"%dx\.types\.Handle %\d+", "H", args)
    return re.sub(r"%\d+", "%", args)


def calls(ir_text: str) -> tuple[list[str], list[str]]:
    """(body, handles) of the entry function of llvm-dis output, normalised as described above."""
    body: list[str] = []
    created: dict[str, str] = {}
    handles: list[str] = []
    for line in ir_text.split("define void @main()", 1)[1].split("\n}\n", 1)[0].splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        ssa, fn, args, extract = m.groups()
        if extract:
            body.append(_norm(extract))
        elif fn == "dx.op.createHandleFromBinding":
            created[ssa] = f"{fn}({_norm(args)})"
        elif fn == "dx.op.annotateHandle":
            src, props = re.fullmatch(r"i32 216, %dx\.types\.Handle (%\d+), (.*)", args).groups()
            handles.append(f"{created.pop(src)} -> {props}")
        elif fn in HANDLE_OPS:
            handles.append(f"{fn}({_norm(args)})")
        else:
            body.append(f"{fn}({_norm(args)})")
    return body, handles + sorted(created.values())


def compile_case(tmp_path, case: Case):
    src = tmp_path / f"{case.id}.hlsl"
    src.write_text(case.source)
    res = compile_file(str(src), CompileOptions(profile=case.profile, target="dxil",
                                                enable_16bit_types=case.native16))
    assert res.ok, [d.message for d in res.diagnostics]
    return check_dxil(res.binary)


# --------------------------------------------------------------------------- handle expectations
def ch60(cls: int, range_id: int, reg: int) -> str:
    """SM 6.0 CreateHandle(57): resource class (SRV 0, UAV 1, CBV 2, Sampler 3), range ID, index."""
    return f"dx.op.createHandle(i32 57, i8 {cls}, i32 {range_id}, i32 {reg}, i1 false)"


def ch66(cls: int, reg: int, kind_flags: int, props: int, space: int = 0) -> str:
    """SM 6.6 CreateHandleFromBinding(217) {lower, upper, space, class} then AnnotateHandle(216)
    with ResourceProperties {kind | UAV 0x1000 | cmp-sampler/counter 0x8000, type word}."""
    return (f"dx.op.createHandleFromBinding(i32 217, %dx.types.ResBind {{ i32 {reg}, i32 {reg}, i32 {space}, "
            f"i8 {cls} }}, i32 {reg}, i1 false) -> %dx.types.ResourceProperties {{ i32 {kind_flags}, i32 {props} }}")


SRV, UAV, CBV, SAMPLER = 0, 1, 2, 3
# ResourceProperties word 1 for typed resources: component type | count << 8 (F32 9, I32 4, U32 5)
F32x1, F32x2, F32x4, U32x1, I32x1 = 9 | 1 << 8, 9 | 2 << 8, 9 | 4 << 8, 5 | 1 << 8, 4 | 1 << 8

# --------------------------------------------------------------------------- the curated set
SYSVALS = """
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(8, 4, 2)]
void main(uint3 id : SV_DispatchThreadID, uint3 g : SV_GroupID, uint3 t : SV_GroupThreadID,
          uint gi : SV_GroupIndex) {
  Out[id.x] = g.y + t.z + gi;
}
"""
SYSVAL_BODY = ["dx.op.threadId.i32(i32 93, i32 0)", "dx.op.groupId.i32(i32 94, i32 1)",
               "dx.op.threadIdInGroup.i32(i32 95, i32 2)", "dx.op.flattenedThreadIdInGroup.i32(i32 96)"]

TYPED = """
Buffer<float4> In : register(t0);
RWBuffer<float> Out1 : register(u0);
RWBuffer<float2> Out2 : register(u1);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
  float4 v = In[id.x];
  Out1[id.x] = v.w;
  Out2[id.x] = v.xy;
}
"""
TYPED_BODY = [
    "dx.op.threadId.i32(i32 93, i32 0)",
    "dx.op.bufferLoad.f32(i32 68, H, i32 %, i32 undef)",
    # typed UAV stores write all four components (INSTR.WRITEMASKFORTYPEDUAVSTORE): scalar replicated,
    # vectors padded with their first component
    "dx.op.bufferStore.f32(i32 69, H, i32 %, i32 undef, float %, float %, float %, float %, i8 15)",
    "dx.op.bufferStore.f32(i32 69, H, i32 %, i32 undef, float %, float %, float %, float %, i8 15)",
]
TYPED_PATTERNS = [
    r"bufferStore\.f32\(i32 69, %dx\.types\.Handle %\d+, i32 %\d+, i32 undef, float (%\d+), float \1, float \1, "
    r"float \1, i8 15\)",
    r"bufferStore\.f32\(i32 69, %dx\.types\.Handle %\d+, i32 %\d+, i32 undef, float (%\d+), float %\d+, float \1, "
    r"float \1, i8 15\)",
]

CBUF = """
cbuffer Params : register(b0) { float4 k; float s; uint2 n; };
RWStructuredBuffer<float> OutF : register(u0);
RWStructuredBuffer<uint> OutU : register(u1);
[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
  OutF[id.x] = k.z * s;
  OutU[id.x] = n.y;
}
"""
CBUF_BODY = [
    "dx.op.threadId.i32(i32 93, i32 0)",
    "dx.op.cbufferLoadLegacy.f32(i32 59, H, i32 0)",           # k: row 0
    "extractvalue %dx.types.CBufRet.f32 %, 2",                  # .z
    "dx.op.cbufferLoadLegacy.f32(i32 59, H, i32 1)",           # s: byte 16 = row 1 .x
    "extractvalue %dx.types.CBufRet.f32 %, 0",
    "dx.op.bufferStore.f32(i32 69, H, i32 %, i32 0, float %, float undef, float undef, float undef, i8 1)",
    "dx.op.cbufferLoadLegacy.i32(i32 59, H, i32 1)",           # n: byte 20 = row 1 .yz; n.y = .z
    "extractvalue %dx.types.CBufRet.i32 %, 2",
    "dx.op.bufferStore.i32(i32 69, H, i32 %, i32 0, i32 %, i32 undef, i32 undef, i32 undef, i8 1)",
]

RAW = """
ByteAddressBuffer B : register(t0);
StructuredBuffer<float4> SB : register(t1);
RWByteAddressBuffer R : register(u0);
RWStructuredBuffer<float2> RS : register(u1);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
  uint v = B.Load(id.x * 4);
  uint2 v2 = B.Load2(16);
  float4 f = SB[id.x];
  R.Store(id.x * 4, v + v2.y);
  R.Store3(64, uint3(1, 2, 3));
  RS[id.x] = f.zw;
}
"""
RAW_BODY = [
    "dx.op.threadId.i32(i32 93, i32 0)",
    # RawBufferLoad(139): index, elementOffset (undef for byte-address buffers), mask, alignment
    "dx.op.rawBufferLoad.i32(i32 139, H, i32 %, i32 undef, i8 1, i32 4)",
    "dx.op.rawBufferLoad.i32(i32 139, H, i32 16, i32 undef, i8 3, i32 4)",
    "dx.op.rawBufferLoad.f32(i32 139, H, i32 %, i32 0, i8 15, i32 4)",          # structured: offset 0
    "dx.op.rawBufferStore.i32(i32 140, H, i32 %, i32 undef, i32 %, i32 undef, i32 undef, i32 undef, i8 1, i32 4)",
    "dx.op.rawBufferStore.i32(i32 140, H, i32 64, i32 undef, i32 1, i32 2, i32 3, i32 undef, i8 7, i32 4)",
    "dx.op.rawBufferStore.f32(i32 140, H, i32 %, i32 0, float %, float %, float undef, float undef, i8 3, i32 4)",
]

TEXLOAD = """
Texture2D<float4> T : register(t0);
Texture2DMS<float4> MS : register(t1);
RWTexture2D<float4> RT : register(u0);
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID) {
  float4 a = T.Load(int3(id.xy, 3));
  float4 b = T.Load(int3(id.xy, 0), int2(1, -1));
  float4 c = MS.Load(int2(id.xy), 2);
  float4 d = RT[id.xy];
  RT[id.xy] = a + b + c + d;
}
"""
TEXLOAD_BODY = [
    "dx.op.threadId.i32(i32 93, i32 0)",
    "dx.op.threadId.i32(i32 93, i32 1)",
    # TextureLoad(66): mip, c0..c2, o0..o2; no offset argument -> undef offsets
    "dx.op.textureLoad.f32(i32 66, H, i32 3, i32 %, i32 %, i32 undef, i32 undef, i32 undef, i32 undef)",
    "dx.op.textureLoad.f32(i32 66, H, i32 0, i32 %, i32 %, i32 undef, i32 1, i32 -1, i32 undef)",
    "dx.op.textureLoad.f32(i32 66, H, i32 2, i32 %, i32 %, i32 undef, i32 undef, i32 undef, i32 undef)",  # sample
    "dx.op.textureLoad.f32(i32 66, H, i32 undef, i32 %, i32 %, i32 undef, i32 undef, i32 undef, i32 undef)",  # UAV
    # TextureStore(67): c0..c2, v0..v3, mask
    "dx.op.textureStore.f32(i32 67, H, i32 %, i32 %, i32 undef, float %, float %, float %, float %, i8 15)",
]

SAMPLE = """
Texture2D<float4> T : register(t0);
Texture2D<float> D : register(t1);
SamplerState S : register(s0);
SamplerComparisonState SC : register(s1);
float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target {
  float4 a = T.Sample(S, uv);
  float4 b = T.SampleLevel(S, uv, 2.0, int2(1, -2));
  float4 c = T.SampleGrad(S, uv, float2(0.5, 0.25), float2(0.125, 2.0));
  float4 d = T.SampleBias(S, uv, 20.0);
  float e = D.SampleCmp(SC, uv, 0.5);
  float f = D.SampleCmpLevelZero(SC, uv, 0.25);
  return a + b + c + d + e + f;
}
"""
UV = ["dx.op.loadInput.f32(i32 4, i32 1, i32 0, i8 0, i32 undef)",
      "dx.op.loadInput.f32(i32 4, i32 1, i32 0, i8 1, i32 undef)"]
COORD2 = "float %, float %, float undef, float undef"
TARGET_STORES = [f"dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 {c}, float %)" for c in range(4)]
SAMPLE_BODY = [
    *UV,
    # Sample(60): coords c0..c3, offsets o0..o2 (omitted offset = 0 per used dimension), clamp
    f"dx.op.sample.f32(i32 60, H, H, {COORD2}, i32 0, i32 0, i32 undef, float undef)",
    f"dx.op.sampleLevel.f32(i32 62, H, H, {COORD2}, i32 1, i32 -2, i32 undef, float 2.000000e+00)",
    f"dx.op.sampleGrad.f32(i32 63, H, H, {COORD2}, i32 0, i32 0, i32 undef, float 5.000000e-01, "
    "float 2.500000e-01, float undef, float 1.250000e-01, float 2.000000e+00, float undef, float undef)",
    # immediate bias clamped to kMaxMipLodBias = 15.99f
    f"dx.op.sampleBias.f32(i32 61, H, H, {COORD2}, i32 0, i32 0, i32 undef, float 0x402FFAE140000000, float undef)",
    f"dx.op.sampleCmp.f32(i32 64, H, H, {COORD2}, i32 0, i32 0, i32 undef, float 5.000000e-01, float undef)",
    f"dx.op.sampleCmpLevelZero.f32(i32 65, H, H, {COORD2}, i32 0, i32 0, i32 undef, float 2.500000e-01)",
    *TARGET_STORES,
]

GATHER = """
Texture2D<float4> T : register(t0);
SamplerState S : register(s0);
float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target {
  return T.Gather(S, uv) + T.GatherGreen(S, uv, int2(-1, 2)) + T.GatherAlpha(S, uv);
}
"""
GATHER_BODY = [
    *UV,
    # TextureGather(73): c0..c3, o0, o1, channel
    f"dx.op.textureGather.f32(i32 73, H, H, {COORD2}, i32 0, i32 0, i32 0)",
    f"dx.op.textureGather.f32(i32 73, H, H, {COORD2}, i32 -1, i32 2, i32 1)",
    f"dx.op.textureGather.f32(i32 73, H, H, {COORD2}, i32 0, i32 0, i32 3)",
    *TARGET_STORES,
]

DIMS = """
Buffer<float4> B : register(t0);
Texture2D<float4> T : register(t1);
Texture2DMS<float4> MS : register(t2);
StructuredBuffer<float2> SB : register(t3);
RWTexture2D<float> RT : register(u0);
RWStructuredBuffer<uint> Out : register(u1);
[numthreads(1, 1, 1)]
void main() {
  uint n, w, h, levels, samples, count, stride;
  B.GetDimensions(n);
  uint r = n;
  T.GetDimensions(w, h);
  r += w + h;
  T.GetDimensions(2, w, h, levels);
  r += w + levels;
  MS.GetDimensions(w, h, samples);
  r += samples;
  SB.GetDimensions(count, stride);
  r += count + stride;
  RT.GetDimensions(w, h);
  Out[0] = r + h;
}
"""
# GetDimensions(72): mip undef for buffers and MS textures, 0 for a texture queried without a mip
DIMS_BODY = [f"dx.op.getDimensions(i32 72, H, i32 {m})" for m in ("undef", "0", "2", "undef", "undef", "0")] + [
    "dx.op.bufferStore.i32(i32 69, H, i32 0, i32 0, i32 %, i32 undef, i32 undef, i32 undef, i8 1)"]

ATOMICS = """
RWByteAddressBuffer R : register(u0);
RWStructuredBuffer<uint> RS : register(u1);
RWBuffer<uint> RB : register(u2);
RWBuffer<int> RI : register(u3);
groupshared uint gs;
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
  uint old, o2;
  InterlockedAdd(RB[id.x], 5, old);
  InterlockedMin(RI[id.x], -3);
  InterlockedMax(RB[id.x], 7u);
  InterlockedExchange(RS[id.x], 9u, o2);
  InterlockedCompareExchange(RB[0], 1u, 2u, old);
  R.InterlockedOr(8, 3u);
  InterlockedAdd(gs, 1u);
  RS[id.x] = old + o2;
}
"""
ATOMICS_BODY = [
    "dx.op.threadId.i32(i32 93, i32 0)",
    # AtomicBinOp(78): op kind (Add 0, And 1, Or 2, Xor 3, IMin 4, IMax 5, UMin 6, UMax 7, Exchange 8), c0..c2, value
    "dx.op.atomicBinOp.i32(i32 78, H, i32 0, i32 %, i32 undef, i32 undef, i32 5)",
    "dx.op.atomicBinOp.i32(i32 78, H, i32 4, i32 %, i32 undef, i32 undef, i32 -3)",
    "dx.op.atomicBinOp.i32(i32 78, H, i32 7, i32 %, i32 undef, i32 undef, i32 7)",
    "dx.op.atomicBinOp.i32(i32 78, H, i32 8, i32 %, i32 0, i32 undef, i32 9)",        # structured: c1 = offset
    "dx.op.atomicCompareExchange.i32(i32 79, H, i32 0, i32 undef, i32 undef, i32 1, i32 2)",
    "dx.op.atomicBinOp.i32(i32 78, H, i32 2, i32 8, i32 undef, i32 undef, i32 3)",      # byte address 8
    "dx.op.bufferStore.i32(i32 69, H, i32 %, i32 0, i32 %, i32 undef, i32 undef, i32 undef, i8 1)",
]

BARRIERS = """
RWStructuredBuffer<uint> Out : register(u0);
groupshared uint g;
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
  g = id.x;
  GroupMemoryBarrierWithGroupSync();
  GroupMemoryBarrier();
  DeviceMemoryBarrier();
  DeviceMemoryBarrierWithGroupSync();
  AllMemoryBarrier();
  AllMemoryBarrierWithGroupSync();
  Out[id.x] = g;
}
"""
# Barrier(80) mode: SyncThreadGroup 1 | UAVFenceGlobal 2 | UAVFenceThreadGroup 4 | TGSMFence 8
BARRIERS_BODY = ["dx.op.threadId.i32(i32 93, i32 0)"] + [
    f"dx.op.barrier(i32 80, i32 {m})" for m in (8 | 1, 8, 2, 2 | 1, 2 | 8, 2 | 8 | 1)] + [
    "dx.op.bufferStore.i32(i32 69, H, i32 %, i32 0, i32 %, i32 undef, i32 undef, i32 undef, i8 1)"]

WAVE = """
RWStructuredBuffer<float> F : register(u0);
RWStructuredBuffer<uint> U : register(u1);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
  float x = F[id.x];
  uint u = U[id.x];
  int i = (int)u;
  uint r = WaveIsFirstLane() ? 1 : 0;
  r += WaveGetLaneIndex() + WaveGetLaneCount();
  float s = WaveActiveSum(x);
  uint su = WaveActiveSum(u);
  int mi = WaveActiveMax(i);
  uint mn = WaveActiveMin(u);
  float pr = WaveActiveProduct(x);
  uint fl = WaveReadLaneFirst(u);
  float at = WaveReadLaneAt(x, 3);
  uint4 bal = WaveActiveBallot(x > 0);
  bool any = WaveActiveAnyTrue(u == 2);
  bool all = WaveActiveAllTrue(u == 2);
  bool eq = WaveActiveAllEqual(u);
  uint bo = WaveActiveBitOr(u);
  uint ps = WavePrefixSum(u);
  uint cb = WaveActiveCountBits(u > 3);
  uint pc = WavePrefixCountBits(u > 3);
  F[id.x] = s + pr + at;
  U[id.x] = r + su + (uint)mi + mn + fl + bal.x + (any ? 1 : 0) + (all ? 2 : 0) + (eq ? 4 : 0) + bo + ps + cb + pc;
}
"""
WAVE_BODY = [
    "dx.op.threadId.i32(i32 93, i32 0)",
    "dx.op.bufferLoad.f32(i32 68, H, i32 %, i32 0)",
    "dx.op.bufferLoad.i32(i32 68, H, i32 %, i32 0)",
    "dx.op.waveIsFirstLane(i32 110)",
    "dx.op.waveGetLaneIndex(i32 111)",
    "dx.op.waveGetLaneCount(i32 112)",
    # WaveActiveOp(119): value, WaveOpKind (Sum 0, Product 1, Min 2, Max 3), SignedOpKind (Signed 0, Unsigned 1)
    "dx.op.waveActiveOp.f32(i32 119, float %, i8 0, i8 0)",
    "dx.op.waveActiveOp.i32(i32 119, i32 %, i8 0, i8 1)",
    "dx.op.waveActiveOp.i32(i32 119, i32 %, i8 3, i8 0)",
    "dx.op.waveActiveOp.i32(i32 119, i32 %, i8 2, i8 1)",
    "dx.op.waveActiveOp.f32(i32 119, float %, i8 1, i8 0)",
    "dx.op.waveReadLaneFirst.i32(i32 118, i32 %)",
    "dx.op.waveReadLaneAt.f32(i32 117, float %, i32 3)",
    "dx.op.waveActiveBallot(i32 116, i1 %)",
    "dx.op.waveAnyTrue(i32 113, i1 %)",
    "dx.op.waveAllTrue(i32 114, i1 %)",
    "dx.op.waveActiveAllEqual.i32(i32 115, i32 %)",
    "dx.op.waveActiveBit.i32(i32 120, i32 %, i8 1)",                # WaveBitOpKind Or 1
    "dx.op.wavePrefixOp.i32(i32 121, i32 %, i8 0, i8 1)",
    "dx.op.waveAllOp(i32 135, i1 %)",                               # WaveAllBitCount
    "dx.op.wavePrefixOp(i32 136, i1 %)",                            # WavePrefixBitCount
    "dx.op.bufferStore.f32(i32 69, H, i32 %, i32 0, float %, float undef, float undef, float undef, i8 1)",
    "dx.op.bufferStore.i32(i32 69, H, i32 %, i32 0, i32 %, i32 undef, i32 undef, i32 undef, i8 1)",
]

DERIV = """
float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target {
  float a = ddx(uv.x);
  float b = ddy(uv.y);
  float c = ddx_fine(uv.x);
  float d = ddy_fine(uv.y);
  float e = ddy_coarse(uv.x);
  float f = fwidth(uv.x * uv.y);
  float g = ddy(uv.y);             // the same ReadNone call as b: CSE'd away, as EarlyCSE does in DXC
  return float4(a + b, c + d, e + g, f);
}
"""
DERIV_BODY = [
    *UV,
    "dx.op.unary.f32(i32 83, float %)",      # ddx = DerivCoarseX
    "dx.op.unary.f32(i32 84, float %)",      # ddy = DerivCoarseY
    "dx.op.unary.f32(i32 85, float %)",      # DerivFineX
    "dx.op.unary.f32(i32 86, float %)",      # DerivFineY
    "dx.op.unary.f32(i32 84, float %)",
    # fwidth = FAbs(DerivCoarseX) + FAbs(DerivCoarseY), in that order
    "dx.op.unary.f32(i32 83, float %)", "dx.op.unary.f32(i32 6, float %)",
    "dx.op.unary.f32(i32 84, float %)", "dx.op.unary.f32(i32 6, float %)",
    *TARGET_STORES,
]

DISCARD = """
float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0, nointerpolation uint id : ID) : SV_Target {
  clip(uv.x - 0.5);
  if (id == 3)
    discard;
  return float4(uv, 0, pos.w);
}
"""
DISCARD_BODY = [
    "dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 3, i32 undef)",     # pos.w: element 0, row 0, col 3
    *UV,
    "dx.op.loadInput.i32(i32 4, i32 2, i32 0, i8 0, i32 undef)",
    "dx.op.discard(i32 82, i1 %)",              # clip(x): discard(x < 0)
    "dx.op.discard(i32 82, i1 true)",           # discard statement, in its own block
    "dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 0, float %)",
    "dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 1, float %)",
    "dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 2, float 0.000000e+00)",
    "dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 3, float %)",
]

MATHF = """
RWStructuredBuffer<float> F : register(u0);
[numthreads(1, 1, 1)]
void main() {
  float x = F[0], y = F[1];
  F[2] = sqrt(x) + rsqrt(y);
  F[3] = max(x, y) + min(x, y);
  F[4] = abs(x) + saturate(y);
  F[5] = frac(x) + exp2(y) + log2(x);
  F[6] = floor(x) + ceil(y) + round(x) + trunc(y);
  F[7] = sin(x) + cos(y) + tan(x) + atan(y);
  F[8] = mad(x, y, 2.0);
  F[9] = pow(y, x) + log2(x);     // log2(x) again: the ReadNone Log call above is reused
}
"""
LD = "dx.op.bufferLoad.f32(i32 68, H, i32 {}, i32 0)"
ST = "dx.op.bufferStore.f32(i32 69, H, i32 {}, i32 0, float %, float undef, float undef, float undef, i8 1)"


def un(op: int, t: str = "f32") -> str:
    ty = "float" if t == "f32" else "i32"
    return f"dx.op.unary.{t}(i32 {op}, {ty} %)"


def bi(op: int, t: str = "f32") -> str:
    ty = "float" if t == "f32" else "i32"
    return f"dx.op.binary.{t}(i32 {op}, {ty} %, {ty} %)"


MATHF_BODY = [
    LD.format(0), LD.format(1),
    un(24), un(25), ST.format(2),                                   # Sqrt, Rsqrt
    bi(35), bi(36), ST.format(3),                                   # FMax, FMin
    un(6), un(7), ST.format(4),                                     # FAbs, Saturate
    un(22), un(21), un(23), ST.format(5),                           # Frc, Exp (2^x), Log (log2)
    un(27), un(28), un(26), un(29), ST.format(6),                   # Round_ni, Round_pi, Round_ne, Round_z
    un(13), un(12), un(14), un(17), ST.format(7),                   # Sin, Cos, Tan, Atan
    "dx.op.tertiary.f32(i32 46, float %, float %, float 2.000000e+00)", ST.format(8),     # FMad
    un(23), un(21), ST.format(9),                                   # pow(y, x) = Exp(Log(y) * x)
]

MATHI = """
RWStructuredBuffer<uint> U : register(u0);
RWStructuredBuffer<int> I : register(u1);
[numthreads(1, 1, 1)]
void main() {
  uint a = U[0], b = U[1];
  int i = I[0], j = I[1];
  U[2] = min(a, b) + max(a, b);
  I[2] = max(i, j) + min(i, j);
  I[3] = abs(i);
  U[3] = countbits(a) + reversebits(b);
  U[4] = firstbitlow(a);
  U[5] = mad(a, b, 3u);
  I[4] = mad(i, j, -2);
}
"""
LDI = "dx.op.bufferLoad.i32(i32 68, H, i32 {}, i32 0)"
STI = "dx.op.bufferStore.i32(i32 69, H, i32 {}, i32 0, i32 %, i32 undef, i32 undef, i32 undef, i8 1)"
MATHI_BODY = [
    LDI.format(0), LDI.format(1), LDI.format(0), LDI.format(1),
    bi(40, "i32"), bi(39, "i32"), STI.format(2),                    # UMin, UMax
    bi(37, "i32"), bi(38, "i32"), STI.format(2),                    # IMax, IMin
    bi(37, "i32"), STI.format(3),                                   # abs(i) = IMax(i, -i)
    "dx.op.unaryBits.i32(i32 31, i32 %)", un(30, "i32"), STI.format(3),     # Countbits, Bfrev
    "dx.op.unaryBits.i32(i32 32, i32 %)", STI.format(4),            # FirstbitLo
    "dx.op.tertiary.i32(i32 49, i32 %, i32 %, i32 3)", STI.format(5),       # UMad
    "dx.op.tertiary.i32(i32 48, i32 %, i32 %, i32 -2)", STI.format(4),      # IMad
]

DOTS = """
RWStructuredBuffer<float> F : register(u0);
[numthreads(1, 1, 1)]
void main() {
  float x = F[0], y = F[1];
  F[2] = dot(float2(x, y), float2(y, x));
  F[3] = dot(float3(x, y, 1), float3(y, x, 2));
  F[4] = dot(float4(x, y, 1, 2), float4(y, x, 3, 4));
}
"""
DOTS_BODY = [
    LD.format(0), LD.format(1),
    "dx.op.dot2.f32(i32 54, float %, float %, float %, float %)", ST.format(2),
    "dx.op.dot3.f32(i32 55, float %, float %, float 1.000000e+00, float %, float %, float 2.000000e+00)",
    ST.format(3),
    "dx.op.dot4.f32(i32 56, float %, float %, float 1.000000e+00, float 2.000000e+00, float %, float %, "
    "float 3.000000e+00, float 4.000000e+00)", ST.format(4),
]

GEOM = """
RWStructuredBuffer<float3> V : register(u0);
RWStructuredBuffer<float> F : register(u1);
RWStructuredBuffer<uint> U : register(u2);
RWStructuredBuffer<int> I : register(u3);
[numthreads(1, 1, 1)]
void main() {
  float3 a = V[0], b = V[1];
  float x = F[0];
  F[1] = length(a);
  V[2] = normalize(b);
  F[2] = distance(a, b) + length(x);
  V[3] = reflect(a, b);
  F[3] = clamp(x, 0.25, 0.75);
  U[0] = clamp(U[1], 2u, 9u);
  I[0] = clamp(I[1], -2, 9);
  F[4] = atan2(x, F[5]) + exp(x) + log(x);
  V[4] = lerp(a, b, 0.5) + cross(a, b);
}
"""
DOT3 = "dx.op.dot3.f32(i32 55, float %, float %, float %, float %, float %, float %)"
STV = "dx.op.bufferStore.f32(i32 69, H, i32 {}, i32 0, float %, float %, float %, float undef, i8 7)"
GEOM_BODY = [
    LD.format(0), LD.format(1), LD.format(0),
    un(24), ST.format(1),                        # length(vector): Sqrt of fmul/fadd squares, no Dot3
    DOT3, un(25), STV.format(2),                 # normalize: Rsqrt(Dot3(b, b))
    un(24), un(6), ST.format(2),                 # distance = length(a - b); length(scalar) = FAbs
    DOT3, STV.format(3),                         # reflect
    # clamp = FMin(FMax(x, lo), hi); UMax/UMin and IMax/IMin for integers
    "dx.op.binary.f32(i32 35, float %, float 2.500000e-01)", "dx.op.binary.f32(i32 36, float %, float 7.500000e-01)",
    ST.format(3),
    LDI.format(1), "dx.op.binary.i32(i32 39, i32 %, i32 2)", "dx.op.binary.i32(i32 40, i32 %, i32 9)", STI.format(0),
    LDI.format(1), "dx.op.binary.i32(i32 37, i32 %, i32 -2)", "dx.op.binary.i32(i32 38, i32 %, i32 9)", STI.format(0),
    LD.format(5), un(17), un(21), un(23), ST.format(4),      # atan2 -> Atan, exp -> Exp, log -> Log
    STV.format(4),                               # lerp and cross are plain fmul/fadd/fsub
]

SPECIAL = """
RWStructuredBuffer<float> F : register(u0);
RWStructuredBuffer<uint> U : register(u1);
[numthreads(1, 1, 1)]
void main() {
  float x = F[0];
  U[0] = isnan(x) ? 1 : 0;
  U[1] = isinf(x) ? 1 : 0;
  U[2] = isfinite(x) ? 1 : 0;
}
"""
SPECIAL_BODY = [
    LD.format(0),
    "dx.op.isSpecialFloat.f32(i32 8, float %)", STI.format(0),     # IsNaN
    "dx.op.isSpecialFloat.f32(i32 9, float %)", STI.format(1),     # IsInf
    "dx.op.isSpecialFloat.f32(i32 10, float %)", STI.format(2),    # IsFinite
]

SAMPLE_DIMS = """
Texture1D<float4> T1 : register(t0);
Texture2DArray<float4> TA : register(t1);
Texture3D<float4> T3 : register(t2);
TextureCube<float4> TC : register(t3);
SamplerState S : register(s0);
float4 main(float4 uvw : TEXCOORD0) : SV_Target {
  float4 r = T1.Sample(S, uvw.x) + TA.Sample(S, uvw.xyz) + T3.Sample(S, uvw.xyz) + TC.Sample(S, uvw.xyz);
  r += TA.SampleLevel(S, uvw.xyz, 1.0, int2(2, 3));
  r += TC.SampleLevel(S, uvw.xyz, 0.0);
  r.x += TA.CalculateLevelOfDetail(S, uvw.xy) + TA.CalculateLevelOfDetailUnclamped(S, uvw.xy);
  return r;
}
"""
COORD3 = "float %, float %, float %, float undef"
SAMPLE_DIMS_BODY = [
    *[f"dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 {c}, i32 undef)" for c in range(3)],
    # offsets: one per dimension the texture has (1D 1, 2D array 2, 3D 3, cube none), the rest undef
    "dx.op.sample.f32(i32 60, H, H, float %, float undef, float undef, float undef, i32 0, i32 undef, i32 undef, "
    "float undef)",
    f"dx.op.sample.f32(i32 60, H, H, {COORD3}, i32 0, i32 0, i32 undef, float undef)",
    f"dx.op.sample.f32(i32 60, H, H, {COORD3}, i32 0, i32 0, i32 0, float undef)",
    f"dx.op.sample.f32(i32 60, H, H, {COORD3}, i32 undef, i32 undef, i32 undef, float undef)",
    f"dx.op.sampleLevel.f32(i32 62, H, H, {COORD3}, i32 2, i32 3, i32 undef, float 1.000000e+00)",
    f"dx.op.sampleLevel.f32(i32 62, H, H, {COORD3}, i32 undef, i32 undef, i32 undef, float 0.000000e+00)",
    # CalculateLOD(81): c0..c2, clamped
    "dx.op.calculateLOD.f32(i32 81, H, H, float %, float %, float undef, i1 true)",
    "dx.op.calculateLOD.f32(i32 81, H, H, float %, float %, float undef, i1 false)",
    *TARGET_STORES,
]

COUNTER_DOUBLE = """
cbuffer P : register(b0) { double d; };
RWStructuredBuffer<uint> C : register(u0);
[numthreads(1, 1, 1)]
void main() {
  uint i = C.IncrementCounter();
  uint j = C.DecrementCounter();
  uint lo, hi;
  asuint(fma(d, 2.0, 1.0), lo, hi);
  C[0] = i + j + lo;
  C[1] = asdouble(lo, hi) > 2.0 ? 1 : 0;
  C[2] = f32tof16(asfloat(hi)) + asuint(f16tof32(lo));
}
"""
RAW_STI = "dx.op.rawBufferStore.i32(i32 140, H, i32 {}, i32 0, i32 %, i32 undef, i32 undef, i32 undef, i8 1, i32 4)"


def counter_double_body(store: str) -> list[str]:
    return [
        "dx.op.bufferUpdateCounter(i32 70, H, i8 1)",              # IncrementCounter: +1
        "dx.op.bufferUpdateCounter(i32 70, H, i8 -1)",             # DecrementCounter: -1
        "dx.op.cbufferLoadLegacy.f64(i32 59, H, i32 0)",
        "extractvalue %dx.types.CBufRet.f64 %, 0",
        "dx.op.tertiary.f64(i32 47, double %, double 2.000000e+00, double 1.000000e+00)",   # fma = Fma, not FMad
        "dx.op.splitDouble.f64(i32 102, double %)",                # asuint(double, out lo, out hi)
        store.format(0),
        "dx.op.makeDouble.f64(i32 101, i32 %, i32 %)",             # asdouble(lo, hi)
        store.format(1),
        "dx.op.legacyF32ToF16(i32 130, float %)",
        "dx.op.legacyF16ToF32(i32 131, i32 %)",
        store.format(2),
    ]


CBUF_REUSE = """
cbuffer P : register(b0) { float x; float y; };
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
  Out[0] = x * x + y;
}
"""
CBUF_REUSE_BODY = [
    "dx.op.cbufferLoadLegacy.f32(i32 59, H, i32 0)",   # one load of row 0 serves x, x and y
    "extractvalue %dx.types.CBufRet.f32 %, 0",
    "extractvalue %dx.types.CBufRet.f32 %, 1",
    ST.format(0),
]

PS_OUT = """
Texture2D<float4> T : register(t0);
struct PSOut { float4 c0 : SV_Target0; float4 c1 : SV_Target1; float depth : SV_Depth; };
PSOut main(float4 pos : SV_Position, bool front : SV_IsFrontFace, uint sid : SV_SampleIndex) {
  PSOut o;
  o.c0 = T[uint2(pos.xy)];
  o.c1 = front ? float4(1, 0, 0, 1) : float4(0, 1, 0, 1);
  o.depth = pos.z + sid;
  return o;
}
"""
PS_OUT_BODY = [
    *[f"dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 {c}, i32 undef)" for c in range(3)],
    "dx.op.loadInput.i32(i32 4, i32 1, i32 0, i8 0, i32 undef)",  # SV_IsFrontFace: a bool is i32 in a signature
    "dx.op.sampleIndex.i32(i32 90)",                               # SV_SampleIndex is Shadow in PSIn: read by op
    # tex[uint2]: a single-subscripted SRV reads mip 0
    "dx.op.textureLoad.f32(i32 66, H, i32 0, i32 %, i32 %, i32 undef, i32 undef, i32 undef, i32 undef)",
    *TARGET_STORES,
    # SV_Target1 is element 1; components equal on both arms are constants (InstCombine folds them)
    "dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 0, float %)",
    "dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 1, float %)",
    "dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 2, float 0.000000e+00)",
    "dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 3, float 1.000000e+00)",
    "dx.op.storeOutput.f32(i32 5, i32 2, i32 0, i8 0, float %)",  # SV_Depth (NotPacked): element 2
]

QUAD = """
Texture2D<float4> T : register(t0);
float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0, uint cov : SV_Coverage) : SV_Target {
  float4 a = T.Load(int3(1, 2, 0));
  float q = QuadReadLaneAt(uv.x, 1) + QuadReadAcrossX(uv.y) + QuadReadAcrossY(uv.x) + QuadReadAcrossDiagonal(uv.y);
  return a + q + cov;
}
"""
QUAD_BODY = [
    *UV,
    "dx.op.coverage.i32(i32 91)",                  # SV_Coverage is NotInSig in PSIn: read by op
    "dx.op.textureLoad.f32(i32 66, H, i32 0, i32 1, i32 2, i32 undef, i32 undef, i32 undef, i32 undef)",
    "dx.op.quadReadLaneAt.f32(i32 122, float %, i32 1)",
    # QuadOp(123): QuadOpKind ReadAcrossX 0, ReadAcrossY 1, ReadAcrossDiagonal 2
    "dx.op.quadOp.f32(i32 123, float %, i8 0)",
    "dx.op.quadOp.f32(i32 123, float %, i8 1)",
    "dx.op.quadOp.f32(i32 123, float %, i8 2)",
    *TARGET_STORES,
]

HALF = """
RWStructuredBuffer<half> H : register(u0);
RWStructuredBuffer<int16_t> S : register(u1);
[numthreads(1, 1, 1)]
void main() {
  half x = H[0], y = H[1];
  H[2] = sqrt(x) + max(x, y) + dot(half2(x, y), half2(y, x));
  S[0] = max(S[1], (int16_t)3);
}
"""
HALF_BODY = [
    # native 16-bit types: f16/i16 overloads, 2-byte alignment on raw buffer access
    "dx.op.rawBufferLoad.f16(i32 139, H, i32 0, i32 0, i8 1, i32 2)",
    "dx.op.rawBufferLoad.f16(i32 139, H, i32 1, i32 0, i8 1, i32 2)",
    "dx.op.unary.f16(i32 24, half %)",
    "dx.op.binary.f16(i32 35, half %, half %)",
    "dx.op.dot2.f16(i32 54, half %, half %, half %, half %)",
    "dx.op.rawBufferStore.f16(i32 140, H, i32 2, i32 0, half %, half undef, half undef, half undef, i8 1, i32 2)",
    "dx.op.rawBufferLoad.i16(i32 139, H, i32 1, i32 0, i8 1, i32 2)",
    "dx.op.binary.i16(i32 37, i16 %, i16 3)",
    "dx.op.rawBufferStore.i16(i32 140, H, i32 0, i32 0, i16 %, i16 undef, i16 undef, i16 undef, i8 1, i32 2)",
]

MEMBERS = """
struct S { float a; float3 b; uint c; };
cbuffer P : register(b0) { float4 arr[4]; uint k; };
StructuredBuffer<S> SB : register(t0);
RWStructuredBuffer<S> RS : register(u0);
[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
  float3 b = SB[id.x].b;
  RS[id.x].c = SB[id.x].c + k;
  RS[id.x].b = b * arr[id.x & 3].y;
}
"""


def members_body(raw: bool) -> list[str]:
    """Structured members by byte offset (b at 4, c at 16); a dynamic cbuffer row, read once."""
    def ld(t: str, off: int, mask: int) -> str:
        return (f"dx.op.rawBufferLoad.{t}(i32 139, H, i32 %, i32 {off}, i8 {mask}, i32 4)" if raw
                else f"dx.op.bufferLoad.{t}(i32 68, H, i32 %, i32 {off})")

    def st(t: str, off: int, vals: str, mask: int) -> str:
        return (f"dx.op.rawBufferStore.{t}(i32 140, H, i32 %, i32 {off}, {vals}, i8 {mask}, i32 4)" if raw
                else f"dx.op.bufferStore.{t}(i32 69, H, i32 %, i32 {off}, {vals}, i8 {mask})")
    return [
        "dx.op.threadId.i32(i32 93, i32 0)",
        ld("f32", 4, 7), ld("i32", 16, 1),
        "dx.op.cbufferLoadLegacy.i32(i32 59, H, i32 4)",           # k follows the 4 rows of arr
        "extractvalue %dx.types.CBufRet.i32 %, 0",
        st("i32", 16, "i32 %, i32 undef, i32 undef, i32 undef", 1),
        "dx.op.cbufferLoadLegacy.f32(i32 59, H, i32 %)",           # arr[id.x & 3]: the row is the index
        "extractvalue %dx.types.CBufRet.f32 %, 1",
        st("f32", 4, "float %, float %, float %, float undef", 7),
    ]

MATRIX = """
cbuffer M : register(b0) { float4x4 mvp; };
float4 main(float4 p : POSITION) : SV_Position {
  return mul(p, mvp);
}
"""
MATRIX_BODY = [
    *[f"dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 {c}, i32 undef)" for c in range(4)],
    # a column_major matrix is read column by column (one cbuffer row each), all four components
    *[x for r in range(4) for x in (f"dx.op.cbufferLoadLegacy.f32(i32 59, H, i32 {r})",
                                    *[f"extractvalue %dx.types.CBufRet.f32 %, {c}" for c in range(4)])],
    # mul(vector, matrix): per result component fmul then three FMad (HLMatrixLowerPass), no Dot4
    *["dx.op.tertiary.f32(i32 46, float %, float %, float %)"] * 12,
    *[f"dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 {c}, float %)" for c in range(4)],
]

VS = """
cbuffer M : register(b0) { float4x4 unused; float4 tint; };
struct VSOut { float4 pos : SV_Position; float2 uv : TEXCOORD0; float3 n : NORMAL; };
VSOut main(float3 p : POSITION, float2 uv : TEXCOORD0, float3 n : NORMAL, uint vid : SV_VertexID) {
  VSOut o;
  o.pos = float4(p, 1) * tint + (float)vid;
  o.uv = uv;
  o.n = n.zyx;
  return o;
}
"""
VS_BODY = [
    # LoadInput(4): sigId, row, col (i8), vertex index (undef outside GS/HS/DS)
    *[f"dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 {c}, i32 undef)" for c in range(3)],
    *[f"dx.op.loadInput.f32(i32 4, i32 1, i32 0, i8 {c}, i32 undef)" for c in range(2)],
    *[f"dx.op.loadInput.f32(i32 4, i32 2, i32 0, i8 {c}, i32 undef)" for c in range(3)],
    "dx.op.loadInput.i32(i32 4, i32 3, i32 0, i8 0, i32 undef)",
    "dx.op.cbufferLoadLegacy.f32(i32 59, H, i32 4)",                # tint follows the 4-row float4x4
    *[f"extractvalue %dx.types.CBufRet.f32 %, {c}" for c in range(4)],
    # StoreOutput(5): sigId, row, col (i8), value
    *[f"dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 {c}, float %)" for c in range(4)],
    *[f"dx.op.storeOutput.f32(i32 5, i32 1, i32 0, i8 {c}, float %)" for c in range(2)],
    *[f"dx.op.storeOutput.f32(i32 5, i32 2, i32 0, i8 {c}, float %)" for c in range(3)],
]

VS_ROWS = """
struct VSOut { float4 pos : SV_Position; float2 t[2] : TEXCOORD1; };
VSOut main(float4 p : POSITION, float3 a[2] : ATTR, uint iid : SV_InstanceID) {
  VSOut o;
  o.pos = p;
  o.t[0] = a[1].xz;
  o.t[1] = a[0].yy + iid;
  return o;
}
"""
VS_ROWS_BODY = [
    *[f"dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 {c}, i32 undef)" for c in range(4)],
    # the array argument is copied in at entry, row by row; only the components read survive
    # (loadInput is ReadNone): a[0].y, then a[1].x and a[1].z
    "dx.op.loadInput.f32(i32 4, i32 1, i32 0, i8 1, i32 undef)",
    "dx.op.loadInput.f32(i32 4, i32 1, i32 1, i8 0, i32 undef)",
    "dx.op.loadInput.f32(i32 4, i32 1, i32 1, i8 2, i32 undef)",
    "dx.op.loadInput.i32(i32 4, i32 2, i32 0, i8 0, i32 undef)",
    *[f"dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 {c}, float %)" for c in range(4)],
    *[f"dx.op.storeOutput.f32(i32 5, i32 1, i32 {r}, i8 {c}, float %)" for r in range(2) for c in range(2)],
]

CASES = [
    Case("sysvals_sm60", "cs_6_0", SYSVALS, [
        *SYSVAL_BODY,
        # SM < 6.2 structured buffers use BufferStore(69) with the element offset as c1
        "dx.op.bufferStore.i32(i32 69, H, i32 %, i32 0, i32 %, i32 undef, i32 undef, i32 undef, i8 1)"],
        [ch60(UAV, 0, 0)]),
    Case("sysvals_sm66", "cs_6_6", SYSVALS, [
        *SYSVAL_BODY,
        "dx.op.rawBufferStore.i32(i32 140, H, i32 %, i32 0, i32 %, i32 undef, i32 undef, i32 undef, i8 1, i32 4)"],
        [ch66(UAV, 0, 0x1000 | 12, 4)]),                            # UAV StructuredBuffer, stride 4
    Case("typed_sm60", "cs_6_0", TYPED, TYPED_BODY, [ch60(SRV, 0, 0), ch60(UAV, 0, 0), ch60(UAV, 1, 1)],
         TYPED_PATTERNS),
    Case("typed_sm66", "cs_6_6", TYPED, TYPED_BODY,                 # TypedBuffer kind 10
         [ch66(SRV, 0, 10, F32x4), ch66(UAV, 0, 0x1000 | 10, F32x1), ch66(UAV, 1, 0x1000 | 10, F32x2)],
         TYPED_PATTERNS),
    Case("cbuffer_sm60", "cs_6_0", CBUF, CBUF_BODY, [ch60(CBV, 0, 0), ch60(UAV, 0, 0), ch60(UAV, 1, 1)]),
    Case("cbuffer_sm66", "cs_6_6", CBUF, CBUF_BODY[:5] + [
        "dx.op.rawBufferStore.f32(i32 140, H, i32 %, i32 0, float %, float undef, float undef, float undef, i8 1, "
        "i32 4)", *CBUF_BODY[6:8],
        "dx.op.rawBufferStore.i32(i32 140, H, i32 %, i32 0, i32 %, i32 undef, i32 undef, i32 undef, i8 1, i32 4)"],
        # CBuffer kind 13 with its packed size: n ends at byte 28 (not rounded up to a row); UAVs stride 4
        [ch66(CBV, 0, 13, 28), ch66(UAV, 0, 0x1000 | 12, 4), ch66(UAV, 1, 0x1000 | 12, 4)]),
    Case("raw_sm62", "cs_6_2", RAW, RAW_BODY, [ch60(SRV, 0, 0), ch60(SRV, 1, 1), ch60(UAV, 0, 0), ch60(UAV, 1, 1)]),
    Case("raw_sm66", "cs_6_6", RAW, RAW_BODY,                       # RawBuffer 11, StructuredBuffer 12 + stride
         [ch66(SRV, 0, 11, 0), ch66(SRV, 1, 12, 16), ch66(UAV, 0, 0x1000 | 11, 0), ch66(UAV, 1, 0x1000 | 12, 8)]),
    Case("texture_load_sm60", "cs_6_0", TEXLOAD, TEXLOAD_BODY, [ch60(SRV, 0, 0), ch60(SRV, 1, 1), ch60(UAV, 0, 0)]),
    Case("sample_sm60", "ps_6_0", SAMPLE, SAMPLE_BODY,
         [ch60(SRV, 0, 0), ch60(SRV, 1, 1), ch60(SAMPLER, 0, 0), ch60(SAMPLER, 1, 1)]),
    Case("sample_sm66", "ps_6_6", SAMPLE, SAMPLE_BODY,              # Texture2D kind 2; Sampler 14, cmp | 0x8000
         [ch66(SRV, 0, 2, F32x4), ch66(SRV, 1, 2, F32x1), ch66(SAMPLER, 0, 14, 0), ch66(SAMPLER, 1, 0x8000 | 14, 0)]),
    Case("gather_sm60", "ps_6_0", GATHER, GATHER_BODY, [ch60(SRV, 0, 0), ch60(SAMPLER, 0, 0)]),
    Case("get_dimensions_sm60", "cs_6_0", DIMS, DIMS_BODY,
         [ch60(SRV, i, i) for i in range(4)] + [ch60(UAV, 0, 0), ch60(UAV, 1, 1)]),
    Case("atomics_sm60", "cs_6_0", ATOMICS, ATOMICS_BODY, [ch60(UAV, i, i) for i in range(4)],
         [r"atomicrmw add ptr addrspace\(3\) @\S+, i32 1 seq_cst"]),      # groupshared: an LLVM atomic, no dx.op
    Case("atomics_sm66", "cs_6_6", ATOMICS, [*ATOMICS_BODY[:-1], RAW_STI.replace("{}", "%")],
         [ch66(UAV, 0, 0x1000 | 11, 0), ch66(UAV, 1, 0x1000 | 12, 4), ch66(UAV, 2, 0x1000 | 10, U32x1),
          ch66(UAV, 3, 0x1000 | 10, I32x1)]),
    Case("barriers_sm60", "cs_6_0", BARRIERS, BARRIERS_BODY, [ch60(UAV, 0, 0)]),
    Case("wave_sm60", "cs_6_0", WAVE, WAVE_BODY, [ch60(UAV, 0, 0), ch60(UAV, 1, 1)]),
    Case("derivatives_sm60", "ps_6_0", DERIV, DERIV_BODY, []),
    Case("discard_sm60", "ps_6_0", DISCARD, DISCARD_BODY, [],
         [r"(%\d+) = fcmp [ou]lt float %\d+, 0\.000000e\+00\s+call void @dx\.op\.discard\(i32 82, i1 \1\)"]),
    Case("math_float_sm60", "cs_6_0", MATHF, MATHF_BODY, [ch60(UAV, 0, 0)]),
    Case("math_int_sm60", "cs_6_0", MATHI, MATHI_BODY, [ch60(UAV, 0, 0), ch60(UAV, 1, 1)]),
    Case("dot_sm60", "cs_6_0", DOTS, DOTS_BODY, [ch60(UAV, 0, 0)]),
    Case("geometric_sm60", "cs_6_0", GEOM, GEOM_BODY, [ch60(UAV, i, i) for i in range(4)]),
    Case("special_float_sm60", "cs_6_0", SPECIAL, SPECIAL_BODY, [ch60(UAV, 0, 0), ch60(UAV, 1, 1)]),
    Case("native16_sm62", "cs_6_2", HALF, HALF_BODY, [ch60(UAV, 0, 0), ch60(UAV, 1, 1)], native16=True),
    Case("struct_members_sm60", "cs_6_0", MEMBERS, members_body(raw=False),
         [ch60(CBV, 0, 0), ch60(SRV, 0, 0), ch60(UAV, 0, 0)]),
    Case("struct_members_sm62", "cs_6_2", MEMBERS, members_body(raw=True),
         [ch60(CBV, 0, 0), ch60(SRV, 0, 0), ch60(UAV, 0, 0)]),
    Case("sample_dims_sm60", "ps_6_0", SAMPLE_DIMS, SAMPLE_DIMS_BODY,
         [ch60(SRV, i, i) for i in range(4)] + [ch60(SAMPLER, 0, 0)]),
    Case("counter_double_sm60", "cs_6_0", COUNTER_DOUBLE, counter_double_body(STI), [ch60(UAV, 0, 0), ch60(CBV, 0, 0)]),
    Case("counter_double_sm66", "cs_6_6", COUNTER_DOUBLE, counter_double_body(RAW_STI),   # bit 15: has counter
         [ch66(UAV, 0, 0x8000 | 0x1000 | 12, 4), ch66(CBV, 0, 13, 8)]),
    Case("cbuffer_reuse_sm60", "cs_6_0", CBUF_REUSE, CBUF_REUSE_BODY, [ch60(CBV, 0, 0), ch60(UAV, 0, 0)]),
    Case("quad_coverage_sm60", "ps_6_0", QUAD, QUAD_BODY, [ch60(SRV, 0, 0)]),
    Case("pixel_outputs_sm60", "ps_6_0", PS_OUT, PS_OUT_BODY, [ch60(SRV, 0, 0)]),
    Case("matrix_mul_sm60", "vs_6_0", MATRIX, MATRIX_BODY, [ch60(CBV, 0, 0)]),
    Case("vertex_sm60", "vs_6_0", VS, VS_BODY, [ch60(CBV, 0, 0)]),
    Case("vertex_sm66", "vs_6_6", VS, VS_BODY, [ch66(CBV, 0, 13, 80)]),
    Case("vertex_array_rows_sm60", "vs_6_0", VS_ROWS, VS_ROWS_BODY, [],
         absent=["alloca"]),                                         # the array copies are promoted away
]


def _param(case: Case):
    marks = [pytest.mark.xfail(strict=True, reason=case.xfail)] if case.xfail else []
    return pytest.param(case, id=case.id, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_golden_dx_op_sequence(tmp_path, case: Case):
    c = compile_case(tmp_path, case)
    body, handles = calls(c.ir)
    assert body == case.body
    assert sorted(handles) == sorted(case.handles)
    for pat in case.patterns:
        assert re.search(pat, c.ir), pat
    for text in case.absent:
        assert text not in c.ir, text


def test_calls_helper_reads_both_handle_forms():
    """The normaliser itself: SSA names vanish, handles pair with their annotation."""
    text = """define void @main() {
  %1 = call %dx.types.Handle @dx.op.createHandleFromBinding(i32 217, %dx.types.ResBind zeroinitializer, i32 0, i1 false)
  %2 = call %dx.types.Handle @dx.op.annotateHandle(i32 216, %dx.types.Handle %1, %dx.types.ResourceProperties { i32 10, i32 265 })
  %3 = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %4 = call %dx.types.CBufRet.f32 @dx.op.cbufferLoadLegacy.f32(i32 59, %dx.types.Handle %2, i32 %3)
  %5 = extractvalue %dx.types.CBufRet.f32 %4, 1
  ret void
}
"""
    body, handles = calls(text)
    assert body == ["dx.op.threadId.i32(i32 93, i32 0)", "dx.op.cbufferLoadLegacy.f32(i32 59, H, i32 %)",
                    "extractvalue %dx.types.CBufRet.f32 %, 1"]
    assert handles == [ch66(SRV, 0, 10, F32x1)]
