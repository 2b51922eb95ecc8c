"""Buffers executed on lavapipe: [RW]StructuredBuffer (scalars, vectors, structs), [RW]ByteAddressBuffer
(Load/Load2/3/4, Load<T>, Store*), Buffer/RWBuffer (subscripts, Load, GetDimensions), plus the DXIL
build of every shader (read back by the LLVM tools) and, for structured/raw buffers, DXIL execution.

Each case is one small shader; inputs are bound by manifest name; the expected output is computed
here in Python from the inputs.
"""

from __future__ import annotations

import re
import struct

import pytest
import res_util as R
from harness import dxil_tools

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

IN_F = [1.5, -2.0, 3.25, 4.0, 0.5, 8.0, -1.0, 7.75]
IN_U = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3]


class Case:
    """src; inputs {name: descriptor factory()}; output name, struct code, count; expected list."""

    def __init__(self, cid, src, inputs, out, code, want, groups=(1, 1, 1), bug=None, dxil_bug=None,
                 want_d3d=None):
        self.id, self.src, self.inputs, self.out, self.code, self.want = cid, src, inputs, out, code, want
        self.groups, self.bug, self.dxil_bug = groups, bug, dxil_bug
        self.want_d3d = want if want_d3d is None else want_d3d  # where D3D's structured layout differs


BAB_LOAD_DXIL = None    # fixed: raw buffer loads in the DXIL backend
BAB_STORE_DXIL = None   # fixed: raw buffer stores in the DXIL backend
LOAD_STRUCT = None     # fixed: ByteAddressBuffer.Load<S> with a struct S (per-member loads, dx_structured layout)


def sb_f():
    return R.storage(R.pack("f", IN_F))


def sb_u():
    return R.storage(R.pack("I", IN_U))


CASES = [
    Case("sb-float-copy-scale", """
StructuredBuffer<float> In : register(t0);
RWStructuredBuffer<float> Out : register(u1);
[numthreads(8,1,1)] void main(uint3 t : SV_DispatchThreadID) { Out[t.x] = In[t.x] * 2.0 + t.x; }
""", {"In": sb_f}, "Out", "f", [x * 2 + i for i, x in enumerate(IN_F)]),
    Case("sb-uint-groups", """
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u1);
[numthreads(4,1,1)] void main(uint3 t : SV_DispatchThreadID, uint3 g : SV_GroupID) { Out[t.x] = In[t.x] + g.x * 100; }
""", {"In": sb_u}, "Out", "I", [v + (i // 4) * 100 for i, v in enumerate(IN_U)], groups=(4, 1, 1)),
    Case("rwsb-read-modify-write", """
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(16,1,1)] void main(uint3 t : SV_DispatchThreadID) { Out[t.x] = Out[t.x] * 3 + 1; }
""", {}, "Out", "I", [v * 3 + 1 for v in IN_U]),
    Case("sb-float4", """
StructuredBuffer<float4> In : register(t0);
RWStructuredBuffer<float4> Out : register(u1);
[numthreads(2,1,1)] void main(uint3 t : SV_DispatchThreadID) { Out[t.x] = In[t.x].wzyx + float4(1, 2, 3, 4); }
""", {"In": sb_f}, "Out", "f",
        [v for q in range(2) for v in [a + b for a, b in zip(IN_F[q * 4:q * 4 + 4][::-1], [1, 2, 3, 4])]]),
    Case("sb-uint2-component", """
StructuredBuffer<uint2> In : register(t0);
RWStructuredBuffer<uint> Out : register(u1);
[numthreads(8,1,1)] void main(uint3 t : SV_DispatchThreadID) { Out[t.x] = In[t.x].y - In[t.x].x; }
""", {"In": sb_u}, "Out", "I", [(IN_U[2 * i + 1] - IN_U[2 * i]) & 0xFFFFFFFF for i in range(8)]),
    # default Vulkan layout: a float3 array element takes 16 bytes (DXC: ArrayStride 16; 12 only with dx layout)
    Case("rwsb-float3-stride16", """
RWStructuredBuffer<float3> Out : register(u0);
[numthreads(3,1,1)] void main(uint3 t : SV_DispatchThreadID) { Out[t.x] = float3(t.x, t.x * 2, t.x * 3); }
""", {}, "Out", "f", [v for i in range(3) for v in (i, 2 * i, 3 * i, (IN_F + [0.0] * 8)[4 * i + 3])],
        want_d3d=[v for i in range(3) for v in (i, 2 * i, 3 * i)]),  # D3D: float3 stride 12
    Case("sb-struct", """
struct S { float a; uint b; float2 c; };
StructuredBuffer<S> In : register(t0);
RWStructuredBuffer<float> Out : register(u1);
[numthreads(4,1,1)] void main(uint3 t : SV_DispatchThreadID) { S s = In[t.x]; Out[t.x] = s.a + s.b + s.c.x * s.c.y; }
""", {"In": lambda: R.storage(b"".join(struct.pack("<fIff", i + 0.5, 10 * i, 2.0, i) for i in range(4)))},
        "Out", "f", [i + 0.5 + 10 * i + 2.0 * i for i in range(4)]),
    Case("rwsb-struct-write-members", """
struct P { uint id; float3 pos; };
RWStructuredBuffer<P> Out : register(u0);
[numthreads(3,1,1)] void main(uint3 t : SV_DispatchThreadID) { Out[t.x].id = t.x + 7; Out[t.x].pos = float3(1, 2, 3) * t.x; }
""", {}, "Out", "I", [w for i in range(3) for w in struct.unpack("<4I", struct.pack("<I3f", i + 7, i, 2 * i, 3 * i))]),
    Case("sb-struct-nested-array", """
struct Inner { uint v[3]; };
struct Outer { Inner i; uint tail; };
StructuredBuffer<Outer> In : register(t0);
RWStructuredBuffer<uint> Out : register(u1);
[numthreads(2,1,1)] void main(uint3 t : SV_DispatchThreadID) { Out[t.x] = In[t.x].i.v[2] * 10 + In[t.x].tail; }
""", {"In": lambda: R.storage(R.pack("I", [1, 2, 3, 4, 5, 6, 7, 8]))}, "Out", "I", [3 * 10 + 4, 7 * 10 + 8]),
    Case("sb-getdimensions", """
StructuredBuffer<float4> In : register(t0);
RWStructuredBuffer<uint> Out : register(u1);
[numthreads(1,1,1)] void main() { uint n, s; In.GetDimensions(n, s); Out[0] = n; Out[1] = s; }
""", {"In": lambda: R.storage(bytes(16 * 5))}, "Out", "I", [5, 16]),
    Case("rwsb-getdimensions-struct", """
struct S { float a; uint b; float3 c; };
RWStructuredBuffer<S> Out : register(u0);
[numthreads(1,1,1)] void main() { uint n, s; Out.GetDimensions(n, s); Out[0].a = n; Out[0].b = s; }
""", {}, "Out", "I", None,
        # D3D packs S tightly (stride 20): the 128-byte buffer holds 6 elements
        want_d3d=[struct.unpack("<I", struct.pack("<f", 6.0))[0], 20]),
    Case("bab-load", """
ByteAddressBuffer In : register(t0);
RWStructuredBuffer<uint> Out : register(u1);
[numthreads(4,1,1)] void main(uint3 t : SV_DispatchThreadID) { Out[t.x] = In.Load(t.x * 8 + 4); }
""", {"In": sb_u}, "Out", "I", [IN_U[2 * i + 1] for i in range(4)], dxil_bug=BAB_LOAD_DXIL),
    Case("bab-load2-3-4", """
ByteAddressBuffer In : register(t0);
RWStructuredBuffer<uint> Out : register(u1);
[numthreads(1,1,1)] void main() {
  uint2 a = In.Load2(4); uint3 b = In.Load3(16); uint4 c = In.Load4(32);
  Out[0] = a.x; Out[1] = a.y; Out[2] = b.x; Out[3] = b.y; Out[4] = b.z;
  Out[5] = c.x; Out[6] = c.y; Out[7] = c.z; Out[8] = c.w;
}""", {"In": sb_u}, "Out", "I", IN_U[1:3] + IN_U[4:7] + IN_U[8:12], dxil_bug=BAB_LOAD_DXIL),
    Case("bab-load-templated-float", """
ByteAddressBuffer In : register(t0);
RWStructuredBuffer<float> Out : register(u1);
[numthreads(1,1,1)] void main() { float2 v = In.Load<float2>(8); Out[0] = v.x; Out[1] = v.y; Out[2] = In.Load<float>(28); }
""", {"In": sb_f}, "Out", "f", [IN_F[2], IN_F[3], IN_F[7]], dxil_bug=BAB_LOAD_DXIL),
    Case("bab-load-templated-struct", """
struct S { uint a; float b; };
ByteAddressBuffer In : register(t0);
RWStructuredBuffer<float> Out : register(u1);
[numthreads(1,1,1)] void main() { S s = In.Load<S>(8); Out[0] = s.a; Out[1] = s.b; }
""", {"In": lambda: R.storage(struct.pack("<IIIf", 0, 0, 42, 2.5))}, "Out", "f", [42.0, 2.5], bug=LOAD_STRUCT,
        dxil_bug=LOAD_STRUCT),
    Case("rwbab-store", """
RWByteAddressBuffer Out : register(u0);
[numthreads(4,1,1)] void main(uint3 t : SV_DispatchThreadID) { Out.Store(t.x * 4, t.x * t.x + 1); }
""", {}, "Out", "I", [i * i + 1 for i in range(4)], dxil_bug=BAB_STORE_DXIL),
    Case("rwbab-store2-3-4", """
RWByteAddressBuffer Out : register(u0);
[numthreads(1,1,1)] void main() { Out.Store2(0, uint2(1, 2)); Out.Store3(8, uint3(3, 4, 5)); Out.Store4(20, uint4(6, 7, 8, 9)); }
""", {}, "Out", "I", [1, 2, 3, 4, 5, 6, 7, 8, 9], dxil_bug=BAB_STORE_DXIL),
    Case("rwbab-store-templated", """
RWByteAddressBuffer Out : register(u0);
[numthreads(1,1,1)] void main() { Out.Store<float>(0, 1.25); Out.Store<float2>(4, float2(-3.0, 0.5)); }
""", {}, "Out", "f", [1.25, -3.0, 0.5], dxil_bug=BAB_STORE_DXIL),
    Case("rwbab-load-store-roundtrip", """
RWByteAddressBuffer Out : register(u0);
[numthreads(8,1,1)] void main(uint3 t : SV_DispatchThreadID) { uint v = Out.Load(t.x * 4); Out.Store(t.x * 4, v ^ 0xFF); }
""", {}, "Out", "I", [v ^ 0xFF for v in IN_U[:8]], dxil_bug=BAB_LOAD_DXIL),
    Case("bab-getdimensions", """
ByteAddressBuffer In : register(t0);
RWStructuredBuffer<uint> Out : register(u1);
[numthreads(1,1,1)] void main() { uint n; In.GetDimensions(n); Out[0] = n; }
""", {"In": lambda: R.storage(bytes(48))}, "Out", "I", [48]),
    Case("typed-buffer-subscript", """
Buffer<float> In : register(t0);
RWStructuredBuffer<float> Out : register(u1);
[numthreads(8,1,1)] void main(uint3 t : SV_DispatchThreadID) { Out[t.x] = In[7 - t.x]; }
""", {"In": lambda: R.texel(R.pack("f", IN_F), "r32f", writable=False)}, "Out", "f", IN_F[::-1]),
    Case("typed-buffer-load-float4", """
Buffer<float4> In : register(t0);
RWStructuredBuffer<float4> Out : register(u1);
[numthreads(2,1,1)] void main(uint3 t : SV_DispatchThreadID) { Out[t.x] = In.Load(t.x); }
""", {"In": lambda: R.texel(R.pack("f", IN_F), "rgba32f", writable=False)}, "Out", "f", IN_F),
    Case("typed-buffer-uint", """
Buffer<uint> In : register(t0);
RWStructuredBuffer<uint> Out : register(u1);
[numthreads(16,1,1)] void main(uint3 t : SV_DispatchThreadID) { Out[t.x] = In[t.x] * 2; }
""", {"In": lambda: R.texel(R.pack("I", IN_U), "r32ui", writable=False)}, "Out", "I", [2 * v for v in IN_U]),
    Case("rwbuffer-read-write", """
RWBuffer<float> Out : register(u0);
[numthreads(8,1,1)] void main(uint3 t : SV_DispatchThreadID) { Out[t.x] = Out[t.x] + 10.0; }
""", {}, "Out", "f", [x + 10 for x in IN_F]),
    Case("rwbuffer-int", """
RWBuffer<int> Out : register(u0);
[numthreads(4,1,1)] void main(uint3 t : SV_DispatchThreadID) { Out[t.x] = -(int)t.x * 5; }
""", {}, "Out", "i", [-5 * i for i in range(4)]),
    Case("rwbuffer-uint4", """
RWBuffer<uint4> Out : register(u0);
[numthreads(2,1,1)] void main(uint3 t : SV_DispatchThreadID) { Out[t.x] = uint4(t.x, 1, 2, 3) + Out[t.x]; }
""", {}, "Out", "I", [a + b for a, b in zip(IN_U[:8], [0, 1, 2, 3, 1, 1, 2, 3])]),
    Case("typed-buffer-getdimensions", """
Buffer<float> In : register(t0);
RWStructuredBuffer<uint> Out : register(u1);
[numthreads(1,1,1)] void main() { uint n; In.GetDimensions(n); Out[0] = n; }
""", {"In": lambda: R.texel(R.pack("f", IN_F), "r32f", writable=False)}, "Out", "I", [8]),
    Case("rwsb-counter-free-index-math", """
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(4,2,1)] void main(uint3 l : SV_GroupThreadID, uint gi : SV_GroupIndex) { Out[l.y * 4 + l.x] = gi; }
""", {}, "Out", "I", list(range(8))),
]

# output descriptor factories by element code: the output starts with known contents
_OUT_INIT = {"I": lambda: R.pack("I", IN_U), "f": lambda: R.pack("f", IN_F), "i": lambda: R.pack("I", IN_U)}


def _out_desc(case: Case):
    if "RWBuffer<float>" in case.src and "Out" == case.out:
        return R.texel(R.pack("f", IN_F), "r32f")
    if "RWBuffer<int>" in case.src:
        return R.texel(R.pack("i", [-1] * 4), "r32i")
    if "RWBuffer<uint4>" in case.src:
        return R.texel(R.pack("I", IN_U[:8]), "rgba32ui")
    return R.storage(_OUT_INIT[case.code]() + bytes(64))


def _want(case: Case, res) -> list:
    if case.want is not None:
        return case.want
    # rwsb-getdimensions-struct: element count and stride come from the Python layout of S (float, uint, float3)
    stride = 32  # a@0 b@4 c@16 (float3 may not straddle a 16-byte boundary), size 28 rounded to align 16
    n = (len(IN_U) * 4 + 64) // stride
    return [struct.unpack("<I", struct.pack("<f", float(n)))[0], stride]


def _params():
    return [R.param(c, id=c.id, bug=c.bug) for c in CASES]


@pytest.mark.parametrize("case", _params())
def test_buffer_spirv(case: Case):
    res = R.build(case.src)
    specs = {name: make() for name, make in case.inputs.items()}
    specs[case.out] = _out_desc(case)
    out = R.run_cs(res, specs, case.groups)
    want = _want(case, res)
    got = R.unpack(case.code, out[case.out])[: len(want)]
    got = [g if w is not None else None for g, w in zip(got, want)]
    if case.code == "f":
        assert R.approx(got, want), f"got {got}, want {want}"
    else:
        assert got == want


@pytest.mark.llvm
@pytest.mark.parametrize("case", [R.param(c, id=c.id, bug=c.dxil_bug) for c in CASES])
def test_buffer_dxil_exec(case: Case):
    """Every buffer kind through the DXIL interpreter, bound by the manifest's HLSL view (typed buffers with
    their texel format), checked against the Python expectation (not only against lavapipe)."""
    from harness import dxil_exec
    res, _chk = R.build_dxil(case.src)
    specs = {name: make() for name, make in case.inputs.items()}
    specs[case.out] = _out_desc(case)
    bufs = []
    for name, d in specs.items():
        h = R.resource(res.manifest, name)["hlsl"]
        view = dxil_exec.View(fmt=d.format) if hasattr(d, "format") else dxil_exec.View()
        bufs.append((h["register"], h["space"], h["class"], d.data, view))
    got_all = dxil_exec.run_dxil_compute(res.binary, "main", bufs, groups=case.groups)
    got = R.unpack(case.code, got_all[-1])[: len(case.want_d3d)]
    assert R.approx(got, case.want_d3d) if case.code == "f" else got == case.want_d3d, f"got {got}"


@pytest.mark.parametrize("elem, d3d, vulkan", [
    ("float", 4, 4), ("float3", 12, 16), ("float4", 16, 16), ("uint2", 8, 8),
    ("S3", 20, 32),   # struct {float; uint; float3}: D3D packs tightly; Vulkan puts the float3 at 16, size 32
    ("S2", 16, 16),   # struct {float; uint; float2}: float2 at 8 either way
], ids=lambda v: str(v))
def test_structured_stride_in_manifest(elem, d3d, vulkan):
    src = ("struct S3 { float a; uint b; float3 c; };\nstruct S2 { float a; uint b; float2 c; };\n"
           f"RWStructuredBuffer<{elem}> Out : register(u0);\n[numthreads(1,1,1)] void main() {{ }}\n")
    r = R.resource(R.build(src).manifest, "Out")
    assert (r["hlsl"]["stride"], r["vulkan"]["stride"]) == (d3d, vulkan)


# ---------------------------------------------------------------- tbuffer, Append/Consume, atomics, odd element types

TBUFFER = """
tbuffer TB : register(t0) { float a; float4 b; };
RWStructuredBuffer<float> Out : register(u1);
[numthreads(1,1,1)] void main() { Out[0] = a + b.w; }
"""

TEXTUREBUFFER = """
struct S { float a; float4 b; };
TextureBuffer<S> TB : register(t0);
RWStructuredBuffer<float> Out : register(u1);
[numthreads(1,1,1)] void main() { Out[0] = TB.a + TB.b.w; }
"""

_TBUF_BUG = ("SPIR-V: tbuffer/TextureBuffer emitted as a uniform Block (std140, writable) instead of DXC's "
             "BufferBlock/StorageBuffer with NonWritable members; the manifest says storage_buffer")




@pytest.mark.parametrize("src", [pytest.param(TBUFFER, id="tbuffer"), pytest.param(TEXTUREBUFFER, id="TextureBuffer")])
def test_tbuffer_executes(src):
    # std430: a at 0, b (float4) at 16
    out = R.cs(src, {"TB": R.storage(R.pack("f", [1.5, 0, 0, 0, 0, 0, 0, 4.0])), "Out": R.storage(R.sentinel(1))})
    assert R.unpack("f", out["Out"]) == [5.5]


def test_tbuffer_d3d_view_uses_cbuffer_packing():
    """D3D packs a tbuffer like a cbuffer (b: float4 starts row 1), though its Vulkan view is a std430 block."""
    tb = R.resource(R.build(TBUFFER).manifest, "TB")["block"]
    assert [(m["hlsl"]["offset"], m["vulkan"]["offset"]) for m in tb["members"]] == [(0, 0), (16, 16)]
    assert tb["hlsl_size"] == 32


APPEND = """
AppendStructuredBuffer<uint> A : register(u0);
[numthreads(8,1,1)] void main(uint3 t : SV_DispatchThreadID) { if (t.x % 2 == 0) A.Append(t.x * 10); }
"""
_COUNTER_BUG = ("manifest: Append/Consume/IncrementCounter emit a counter buffer in the SPIR-V that the manifest "
                "does not list (spirv-cross sees an extra storage buffer)")


def test_append_structured_buffer():
    res = R.build(APPEND)   # reflection must list the counter
    counter = R.resource(res.manifest, "A")["vulkan"]["counter_binding"]
    assert counter is not None
    del counter


CONSUME = """
ConsumeStructuredBuffer<uint> C : register(u0);
RWStructuredBuffer<uint> Out : register(u1);
[numthreads(1,1,1)] void main() { Out[0] = C.Consume(); Out[1] = C.Consume(); }
"""


def test_consume_structured_buffer_builds():
    R.build(CONSUME)


@pytest.mark.llvm
def test_dxil_append_and_consume_execute():
    """DXIL: Append stores at the counter before its increment, Consume loads at the counter after its
    decrement (bufferUpdateCounter, UAV record with the counter flag), on the interpreter."""
    from harness import dxil_exec
    res, chk = R.build_dxil(APPEND)
    assert "@dx.op.bufferUpdateCounter(i32 70" in chk.ir and ", i8 1)" in chk.ir
    psv = next(p for p in chk.container["Parts"] if p["Name"] == "PSV0")["PSVInfo"]["Resources"]
    assert [r["Type"] for r in psv] == [9]   # UAVStructuredWithCounter
    got = dxil_exec.run_dxil_compute(res.binary, "main", [(0, 0, "u", R.sentinel(8))])[0]
    # 4 appends, in whatever order the threads ran: the first 4 slots hold {0, 20, 40, 60}, the rest untouched
    vals = R.unpack("I", got)
    assert sorted(vals[:4]) == [0, 20, 40, 60] and vals[4:] == [R.SENTINEL] * 4
    res, _chk = R.build_dxil(CONSUME)
    got = dxil_exec.run_dxil_compute(res.binary, "main", [(0, 0, "u", R.pack("I", [5, 6, 7]), dxil_exec.View(counter=3)),
                                                          (1, 0, "u", R.sentinel(2))])
    assert R.unpack("I", got[1]) == [7, 6]


ATOMICS = """
RWStructuredBuffer<uint> S : register(u0);
RWTexture2D<uint> T : register(u1);
RWBuffer<uint> B : register(u2);
[numthreads(8,1,1)] void main(uint3 t : SV_DispatchThreadID) {
    InterlockedAdd(S[0], t.x + 1);
    uint old;
    InterlockedMax(S[1], t.x * 3, old);
    InterlockedOr(T[uint2(1, 0)], 1u << t.x);
    InterlockedMin(B[0], 100 - t.x);
}
"""


def test_interlocked_on_buffers_and_images():
    out = R.cs(ATOMICS, {"S": R.storage(R.pack("I", [0, 0])), "T": R.image(bytes(8), 2, 1, "r32ui", storage_image=True),
                         "B": R.texel(R.pack("I", [1000]), "r32ui")})
    assert R.unpack("I", out["S"]) == [sum(range(1, 9)), 21]
    assert R.unpack("I", out["T"]) == [0, 0xFF]
    assert R.unpack("I", out["B"]) == [93]


def test_byte_address_interlocked():   # the full set: tests/resources/test_res_byteaddress_ext.py
    src = ("RWByteAddressBuffer B : register(u0);\n"
           "[numthreads(8,1,1)] void main() { uint o; B.InterlockedAdd(4, 2, o); }\n")
    out = R.cs(src, {"B": R.storage(R.pack("I", [0, 0]))})
    assert R.unpack("I", out["B"]) == [0, 16]


NONUNIFORM = """
Texture2D<float4> T[4] : register(t0);
RWStructuredBuffer<float> Out : register(u9);
[numthreads(4,1,1)] void main(uint3 t : SV_DispatchThreadID) { Out[t.x] = T[NonUniformResourceIndex(t.x)].Load(int3(0,0,0)).x; }
"""


def test_non_uniform_resource_index_structure():
    """lavapipe lacks the non-uniform indexing features, so only the NonUniform decoration is checked."""
    dis = R.spirv_dis(R.build(NONUNIFORM))
    assert "OpDecorate" in dis and "NonUniform" in dis and "ShaderNonUniform" in dis


ODD = [
    ("double", """
RWStructuredBuffer<double> B : register(u0);
[numthreads(1,1,1)] void main() { B[0] = B[1] * 2.0 + 0.25; }
""", "B", lambda: R.storage(struct.pack("<2d", 0.0, 1.5)), "d", [3.25, 1.5]),
    ("bool-member", """
struct S { bool b; float a; };
StructuredBuffer<S> In : register(t0);
RWStructuredBuffer<float> Out : register(u9);
[numthreads(2,1,1)] void main(uint3 t : SV_DispatchThreadID) { Out[t.x] = In[t.x].b ? In[t.x].a : -1; }
""", "Out", None, "f", [-1.0, 4.5]),
    ("matrix-element", """
StructuredBuffer<float2x2> In : register(t0);
RWStructuredBuffer<float> Out : register(u9);
[numthreads(1,1,1)] void main() { Out[0] = In[0][0][1]; Out[1] = In[0][1][0]; }
""", "Out", None, "f", None),
    ("static-alias", """
RWStructuredBuffer<float> Out : register(u9);
static RWStructuredBuffer<float> Alias = Out;
[numthreads(1,1,1)] void main() { Alias[0] = 3; }
""", "Out", None, "f", [3.0]),
]


@pytest.mark.parametrize("cid, src, out_name, make, code, want", ODD, ids=[o[0] for o in ODD])
def test_odd_element_types(cid, src, out_name, make, code, want):
    specs = {}
    if cid == "bool-member":
        specs["In"] = R.storage(R.pack("I", [0]) + R.pack("f", [2.0]) + R.pack("I", [1]) + R.pack("f", [4.5]))
    if cid == "matrix-element":
        # float2x2 column_major (HLSL default) in a structured buffer: stored column by column -> m[0][1] is word 2
        specs["In"] = R.storage(R.pack("f", [1.0, 2.0, 3.0, 4.0]))
        want = [3.0, 2.0]
    specs[out_name] = make() if make else R.storage(R.sentinel(2))
    out = R.cs(src, specs)
    assert R.unpack(code, out[out_name])[: len(want)] == want


# ---------------------------------------------------------------- TypedUAVLoadAdditionalFormats

TYPED_UAV_LOADS = """
RWBuffer<float4> A : register(u0);
RWBuffer<float> B : register(u1);
RWTexture2D<float2> C : register(u2);
Buffer<float4> D : register(t0);
RWStructuredBuffer<float4> Out : register(u3);
[numthreads(1,1,1)] void main() {{ Out[0] = {load}; }}
"""


@pytest.mark.parametrize(("load", "needed"), [
    ("A[0]", True), ("float4(C[uint2(0, 0)], 0, 0)", True),       # typed UAVs of 4 and 2 components
    ("B[0]", False), ("D[0]", False), ("Out[1]", False),          # one component, an SRV, a structured UAV
    ("B[0] + float4(A[0].x, 0, 0, 0) * 0", True),                 # one component of a float4 UAV is still a load of it
])
@pytest.mark.parametrize("profile", ["cs_6_0", "cs_6_6"])      # createHandle / annotateHandle's properties
def test_typed_uav_load_additional_formats(load, needed, profile):
    """DXC sets shader flag 13 and SFI0's TypedUAVLoadAdditionalFormats when a textureLoad or bufferLoad reads a
    typed UAV whose element has more than one component; obj2yaml-19 reads the SFI0 bit back."""
    res = R.compile_hlsl(TYPED_UAV_LOADS.format(load=load), "main", profile, "dxil")
    assert res.ok, R.diagnostics_text(res)
    checked = dxil_tools.check_dxil(res.binary)
    sfi0 = {p["Name"]: p for p in checked.container["Parts"]}["SFI0"]
    assert bool(sfi0.get("Flags", {}).get("TypedUAVLoadAdditionalFormats")) is needed
    flags = re.search(r"!dx\.entryPoints = .*?\n(?:.*\n)*?!\d+ = !\{i32 0, i64 (\d+)", checked.ir)
    assert flags and bool(int(flags.group(1)) >> 13 & 1) is needed, checked.ir
