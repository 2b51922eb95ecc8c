"""Tests of the test harness itself: the lavapipe runner, the SPIR-V tool wrappers and the DXIL tools."""

from __future__ import annotations

import struct

import pytest

from harness import dxil_tools, tools

# ---------------------------------------------------------------- shaders (compiled by glslang)

CS_LINEAR = """
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = id.x * 2 + 1; }
"""

# set 0: input, set 1: uniform params, set 2 (binding 3): output -- exercises several sets
CS_SETS = """
[[vk::binding(0, 0)]] StructuredBuffer<uint> In;
[[vk::binding(0, 1)]] cbuffer Params { uint Mul; uint Add; };
[[vk::binding(3, 2)]] RWStructuredBuffer<uint> Out;
[numthreads(16, 1, 1)]
void Scale(uint3 id : SV_DispatchThreadID) { Out[id.x] = In[id.x] * Mul + Add; }
"""

CS_PUSH = """
struct P { uint Base; uint Step; };
[[vk::push_constant]] ConstantBuffer<P> pc;
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = pc.Base + pc.Step * id.x; }
"""

CS_FLOAT = """
RWStructuredBuffer<float> Data : register(u0);
[numthreads(32, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { Data[id.x] = Data[id.x] * 0.5f + 1.0f; }
"""


@pytest.fixture(scope="module")
def compile_hlsl(tmp_path_factory):
    """glslang-compile an HLSL string (compute stage by default); cached per (source, entry, stage)."""
    tmp = tmp_path_factory.mktemp("hlsl")
    cache: dict[tuple[str, str, str], bytes] = {}

    def compile_(src: str, entry: str = "main", stage: str = "comp") -> bytes:
        key = (src, entry, stage)
        if key not in cache:
            path = tmp / f"s{len(cache)}.hlsl"
            path.write_text(src)
            cache[key] = tools.glslang_compile(path, stage, entry)
        return cache[key]

    return compile_


def u32s(data: bytes) -> list[int]:
    return list(struct.unpack(f"<{len(data) // 4}I", data))


# ---------------------------------------------------------------- Vulkan runner


@pytest.mark.vulkan
def test_device_is_lavapipe_with_features(vk):
    info = vk.device_info()
    assert "llvmpipe" in info["device"]
    assert info["api"] >= (1 << 22) | (2 << 12)  # Vulkan 1.2+
    for feat in ("shaderInt64", "shaderFloat64", "shaderInt16", "storageBuffer16BitAccess", "scalarBlockLayout"):
        assert info["features"][feat], feat


@pytest.mark.vulkan
@pytest.mark.parametrize("groups", [1, 3])
def test_linear_write(vk, compile_hlsl, groups):
    spv = compile_hlsl(CS_LINEAR)
    n = 64 * groups
    sentinel = struct.pack("<I", 0xDEADBEEF) * (n + 4)  # 4 words past the dispatch stay untouched
    (out,) = vk.run_compute(spv, "main", [vk.Buf(0, 0, sentinel)], groups=(groups, 1, 1))
    assert u32s(out) == [i * 2 + 1 for i in range(n)] + [0xDEADBEEF] * 4


@pytest.mark.vulkan
def test_multiple_sets_and_uniform(vk, compile_hlsl):
    spv = compile_hlsl(CS_SETS, "Scale")
    inp = list(range(100, 132))
    params = struct.pack("<II", 7, 5) + bytes(8)  # cbuffer padded to 16 bytes
    bufs = [
        vk.Buf(0, 0, struct.pack(f"<{len(inp)}I", *inp)),
        vk.Buf(1, 0, params, kind="uniform"),
        vk.Buf(2, 3, bytes(4 * len(inp))),
    ]
    res = vk.run_compute(spv, "Scale", bufs, groups=(2, 1, 1))
    assert len(res) == 3
    assert res[0] == bufs[0].data and res[1] == params  # inputs read back unchanged
    assert u32s(res[2]) == [v * 7 + 5 for v in inp]


@pytest.mark.vulkan
def test_push_constants(vk, compile_hlsl):
    spv = compile_hlsl(CS_PUSH)
    (out,) = vk.run_compute(spv, "main", [vk.Buf(0, 0, bytes(32))], push_constants=struct.pack("<II", 1000, 3))
    assert u32s(out) == [1000 + 3 * i for i in range(8)]


@pytest.mark.vulkan
def test_float_roundtrip(vk, compile_hlsl):
    spv = compile_hlsl(CS_FLOAT)
    vals = [i * 1.25 - 7.0 for i in range(32)]
    (out,) = vk.run_compute(spv, "main", [vk.Buf(0, 0, struct.pack("<32f", *vals))])
    assert list(struct.unpack("<32f", out)) == [v * 0.5 + 1.0 for v in vals]  # exact in binary32


@pytest.mark.vulkan
def test_worker_is_reused(vk, compile_hlsl):
    spv = compile_hlsl(CS_LINEAR)
    vk.run_compute(spv, "main", [vk.Buf(0, 0, bytes(256))])
    pid = vk._worker.proc.pid
    vk.run_compute(spv, "main", [vk.Buf(0, 0, bytes(256))])
    assert vk._worker.proc.pid == pid


@pytest.mark.vulkan
@pytest.mark.parametrize("how, status", [("segv", "-11"), ("exit", "3")])
def test_crash_is_reported_and_recovered(vk, compile_hlsl, how, status):
    spv = compile_hlsl(CS_LINEAR)
    vk.run_compute(spv, "main", [vk.Buf(0, 0, bytes(256))])
    old_pid = vk._worker.proc.pid
    with pytest.raises(vk.VulkanCrash, match=f"exit status {status}"):
        vk.crash_worker(how)
    (out,) = vk.run_compute(spv, "main", [vk.Buf(0, 0, bytes(256))])
    assert vk._worker.proc.pid != old_pid
    assert u32s(out) == [i * 2 + 1 for i in range(64)]


@pytest.mark.vulkan
def test_broken_spirv_raises_then_next_call_works(vk, compile_hlsl):
    spv = bytearray(compile_hlsl(CS_LINEAR))
    # keep the header, replace the instruction stream with garbage opcodes
    spv[20:] = struct.pack("<I", 0x0005FFFF) * ((len(spv) - 20) // 4)
    with pytest.raises(vk.VulkanError):
        vk.run_compute(bytes(spv), "main", [vk.Buf(0, 0, bytes(256))])
    (out,) = vk.run_compute(compile_hlsl(CS_LINEAR), "main", [vk.Buf(0, 0, bytes(256))])
    assert u32s(out)[:4] == [1, 3, 5, 7]


@pytest.mark.vulkan
@pytest.mark.parametrize("bad", [
    {"kind": "image"},
    {"data": b""},
])
def test_bad_buffer_arguments(vk, bad):
    buf = vk.Buf(0, 0, bad.get("data", bytes(4)), bad.get("kind", "storage"))
    with pytest.raises(ValueError):
        vk.run_compute(b"\x03\x02\x23\x07", "main", [buf])


@pytest.mark.vulkan
def test_hang_times_out(vk):
    """A worker that does not answer in time is killed and reported as a crash."""
    worker = vk._Worker()
    try:
        with pytest.raises(vk.VulkanCrash, match="no reply within"):
            worker.request({"op": "info"}, timeout=1e-6)  # cannot answer that fast (process start)
        assert worker.proc.poll() is not None
    finally:
        worker.close()


GFX = """
[[vk::binding(0, 0)]] cbuffer Tint { float4 Color; };
struct VOut { float4 pos : SV_Position; };
VOut VSMain(uint id : SV_VertexID) {        // full-screen triangle
  VOut o;
  float2 uv = float2((id << 1) & 2, id & 2);
  o.pos = float4(uv * 2.0 - 1.0, 0.0, 1.0);
  return o;
}
float4 PSMain(VOut i) : SV_Target0 {
  return float4(i.pos.x < 8.0 ? 1.0 : 0.0, i.pos.y < 4.0 ? 1.0 : 0.0, Color.b, Color.a);
}
struct VIn { float2 p : POSITION; float4 c : COLOR0; };
struct VOut2 { float4 pos : SV_Position; float4 c : COLOR0; };
VOut2 VSColor(VIn v) { VOut2 o; o.pos = float4(v.p, 0.0, 1.0); o.c = v.c; return o; }
float4 PSColor(VOut2 i) : SV_Target0 { return i.c; }
"""


@pytest.mark.vulkan
def test_graphics_quadrants_from_position_and_cbuffer(vk, compile_hlsl):
    vs, ps = compile_hlsl(GFX, "VSMain", "vert"), compile_hlsl(GFX, "PSMain", "frag")
    w, h = 16, 8
    tint = vk.Buf(0, 0, struct.pack("<4f", 0.0, 0.0, 0.5, 0.25), "uniform")
    px = vk.run_graphics(vs, "VSMain", ps, "PSMain", w, h, [tint])
    assert len(px) == w * h * 4
    for y in range(h):
        for x in range(w):
            expect = (255 if x < 8 else 0, 255 if y < 4 else 0, 128, 64)  # 0.5 -> 128, 0.25 -> 64 (round)
            assert tuple(px[(y * w + x) * 4:(y * w + x) * 4 + 4]) == expect, (x, y)


@pytest.mark.vulkan
def test_graphics_vertex_buffer_and_clear(vk, compile_hlsl):
    vs, ps = compile_hlsl(GFX, "VSColor", "vert"), compile_hlsl(GFX, "PSColor", "frag")
    color = (0.2, 0.4, 0.6, 1.0)
    # one triangle covering the lower-left half (x <= y in NDC with y down), rest stays cleared
    verts = [(-1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)]
    vb = b"".join(struct.pack("<6f", *p, *color) for p in verts)
    layout = vk.VertexBuffer(vb, 24, [(0, "float2", 0), (1, "float4", 8)])
    px = vk.run_graphics(vs, "VSColor", ps, "PSColor", 8, 8, [], [layout], clear=(0.0, 0.0, 1.0, 1.0))
    inside, outside = bytes([51, 102, 153, 255]), bytes([0, 0, 255, 255])
    assert px[(7 * 8 + 0) * 4:(7 * 8 + 1) * 4] == inside  # bottom-left
    assert px[(0 * 8 + 7) * 4:(0 * 8 + 8) * 4] == outside  # top-right
    assert {px[i:i + 4] for i in range(0, len(px), 4)} == {inside, outside}


# ---------------------------------------------------------------- SPIR-V tool wrappers


@pytest.mark.spirv_tools
def test_spirv_val_dis_reflect(compile_hlsl):
    spv = compile_hlsl(CS_SETS, "Scale")
    tools.spirv_val(spv)
    dis = tools.spirv_dis(spv)
    assert 'OpEntryPoint GLCompute %Scale "Scale"' in dis
    refl = tools.spirv_cross_reflect(spv)
    assert refl["entryPoints"][0]["name"] == "Scale"
    assert refl["entryPoints"][0]["workgroup_size"] == [16, 1, 1]
    ssbos = {(b["set"], b["binding"]) for b in refl["ssbos"]}
    assert ssbos == {(0, 0), (2, 3)}
    assert [(u["set"], u["binding"]) for u in refl["ubos"]] == [(1, 0)]


@pytest.mark.spirv_tools
def test_spirv_val_reports_message_and_disassembly(compile_hlsl):
    words = list(struct.unpack(f"<{len(compile_hlsl(CS_LINEAR)) // 4}I", compile_hlsl(CS_LINEAR)))
    # drop the OpMemoryModel instruction: still disassembles, no longer validates
    dis_words, i = words[:5], 5
    while i < len(words):
        count, op = words[i] >> 16, words[i] & 0xFFFF
        if op != 14:  # OpMemoryModel
            dis_words += words[i:i + count]
        i += count
    bad = struct.pack(f"<{len(dis_words)}I", *dis_words)
    with pytest.raises(AssertionError) as err:
        tools.spirv_val(bad)
    text = str(err.value)
    assert "spirv-val" in text and "memory model" in text.lower()
    assert "--- disassembly ---" in text and "OpEntryPoint" in text


@pytest.mark.spirv_tools
def test_glslang_compile_error_is_reported(tmp_path):
    src = tmp_path / "bad.hlsl"
    src.write_text("[numthreads(1,1,1)] void main() { undefined_thing = 1; }\n")
    with pytest.raises(AssertionError, match="undefined_thing"):
        tools.glslang_compile(src, "comp", "main")


@pytest.mark.parametrize("ci, expect", [("", pytest.skip.Exception), ("true", pytest.fail.Exception)])
def test_missing_tool_skips_locally_fails_in_ci(monkeypatch, ci, expect):
    monkeypatch.setenv("CI", ci)
    with pytest.raises(expect, match="no-such-tool-xyz"):
        tools.require_tool("no-such-tool-xyz")


# ---------------------------------------------------------------- DXIL tools

NATIVE_LL = """
target datalayout = "e-m:e-p:32:32-i1:32-{i8}-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"
@g = global i32 7
define i32 @twice(i32 %x) {{
  %y = mul i32 %x, 2
  ret i32 %y
}}
"""


def assemble(tmp_path, i8: str) -> bytes:
    src = tmp_path / "m.ll"
    src.write_text(NATIVE_LL.format(i8=i8))
    out = tmp_path / "m.bc"
    tools.run_tool(["llvm-as-19", str(src), "-o", str(out)])
    return out.read_bytes()


@pytest.mark.llvm
def test_container_roundtrip_through_obj2yaml(tmp_path):
    bc = assemble(tmp_path, "i8:8")
    blob = dxil_tools.make_container([("SFI0", bytes(8)), ("DXIL", dxil_tools.dxil_part(bc, 5, (6, 2), (1, 2)))])
    doc = dxil_tools.parse_container(blob)
    assert doc["Header"]["FileSize"] == len(blob) and doc["Header"]["PartCount"] == 2
    names = [p["Name"] for p in doc["Parts"]]
    assert names == ["SFI0", "DXIL"]
    prog = doc["Parts"][1]["Program"]
    assert (prog["MajorVersion"], prog["MinorVersion"], prog["ShaderKind"]) == (6, 2, 5)
    assert (prog["DXILMajorVersion"], prog["DXILMinorVersion"]) == (1, 2)
    assert bytes(prog["DXIL"][: len(bc)]) == bc
    assert dxil_tools.extract_bitcode(blob) == bc


@pytest.mark.llvm
@pytest.mark.parametrize("cut", [10, 60])
def test_truncated_container_rejected(tmp_path, cut):
    bc = assemble(tmp_path, "i8:8")
    blob = dxil_tools.make_container([("DXIL", dxil_tools.dxil_part(bc, 5))])
    with pytest.raises(AssertionError):
        dxil_tools.parse_container(blob[:cut])
    with pytest.raises((AssertionError, struct.error)):
        dxil_tools.extract_bitcode(blob[:cut])


@pytest.mark.llvm
def test_extract_bitcode_checks_program_header(tmp_path):
    bc = assemble(tmp_path, "i8:8")
    part = bytearray(dxil_tools.dxil_part(bc, 5))
    part[8:12] = b"DXIX"
    with pytest.raises(AssertionError, match="magic"):
        dxil_tools.extract_bitcode(dxil_tools.make_container([("DXIL", bytes(part))]))


@pytest.mark.llvm
@pytest.mark.parametrize("native, legacy", [
    ("i8:08", "i8:32"),
    ("i8:08", "i8:16"),
    ("i8:08:08", "i8:32:32"),
])
def test_datalayout_patch_makes_legacy_layout_readable(tmp_path, native, legacy):
    bc = assemble(tmp_path, native)
    layout, _ = dxil_tools.find_datalayout(bc)
    assert f"-{native}-" in layout
    legacy_bc = dxil_tools.replace_datalayout(bc, layout.replace(native, legacy))
    assert dxil_tools.find_datalayout(legacy_bc)[0] == layout.replace(native, legacy)
    # the legacy layout is what DXC writes; llvm-dis-19 refuses it unpatched ...
    path = tmp_path / "legacy.bc"
    path.write_bytes(legacy_bc)
    proc = tools.run_tool(["llvm-dis-19", str(path), "-o", "-"], check=False)
    assert proc.returncode != 0 and b"i8 must be naturally aligned" in proc.stderr
    # ... bcanalyzer reads it anyway, and the patched copy disassembles
    assert "DATALAYOUT" in dxil_tools.bcanalyzer(legacy_bc)
    patched = dxil_tools.patch_datalayout_i8(legacy_bc)
    assert len(patched) == len(legacy_bc)
    assert patched == bc
    ir = dxil_tools.llvm_dis(legacy_bc)
    assert "mul i32 %x, 2" in ir and "@g = global i32 7" in ir


@pytest.mark.llvm
def test_patch_leaves_natural_layout_alone(tmp_path):
    bc = assemble(tmp_path, "i8:8")
    assert dxil_tools.patch_datalayout_i8(bc) is bc


@pytest.mark.llvm
def test_bcanalyzer_rejects_garbage():
    with pytest.raises(AssertionError, match="llvm-bcanalyzer-19"):
        dxil_tools.bcanalyzer(b"BC\xc0\xde" + bytes(range(7, 71)))


@pytest.mark.llvm
def test_check_dxil_runs_all_tools(tmp_path):
    bc = assemble(tmp_path, "i8:08")
    legacy = dxil_tools.replace_datalayout(bc, dxil_tools.find_datalayout(bc)[0].replace("i8:08", "i8:32"))
    blob = dxil_tools.make_container([("DXIL", dxil_tools.dxil_part(legacy, 5))])
    res = dxil_tools.read_dxil(blob)   # hand-made LLVM, not DXIL: no consumer check
    assert res.bitcode == legacy
    assert res.container["Parts"][0]["Name"] == "DXIL"
    assert "<MODULE_BLOCK" in res.bcanalyzer
    assert "define i32 @twice(i32 %x)" in res.ir


# ---------------------------------------------------------------- DXIL execution route (lli-19)

DXIL_LL_HEAD = """
target datalayout = "e-m:e-p:32:32-i1:32-i8:08-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
target triple = "dxil-ms-dx"
%dx.types.Handle = type { ptr }
%dx.types.ResRet.i32 = type { i32, i32, i32, i32, i32 }
%dx.types.ResRet.f32 = type { float, float, float, float, i32 }
%dx.types.CBufRet.i32 = type { i32, i32, i32, i32 }
"""

# StructuredBuffer<uint> In : t0; RWStructuredBuffer<uint> Out : u2, space1; cbuffer P : b0 {uint Mul, Add;}
# Out[tid] = max(In[tid] * Mul + Add, 1000)
DXIL_SCALE = DXIL_LL_HEAD + """
define void @main() {
  %in = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 0, i32 0, i32 0, i1 false)
  %out = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 2, i1 false)
  %cb = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 2, i32 0, i32 0, i1 false)
  %tid = call i32 @dx.op.threadId.i32(i32 93, i32 0)
  %ld = call %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32 68, %dx.types.Handle %in, i32 %tid, i32 0)
  %x = extractvalue %dx.types.ResRet.i32 %ld, 0
  %row = call %dx.types.CBufRet.i32 @dx.op.cbufferLoadLegacy.i32(i32 59, %dx.types.Handle %cb, i32 0)
  %mul = extractvalue %dx.types.CBufRet.i32 %row, 0
  %add = extractvalue %dx.types.CBufRet.i32 %row, 1
  %y = mul i32 %x, %mul
  %z = add i32 %y, %add
  %m = call i32 @dx.op.binary.i32(i32 39, i32 %z, i32 1000)
  call void @dx.op.bufferStore.i32(i32 69, %dx.types.Handle %out, i32 %tid, i32 0, i32 %m, i32 undef, i32 undef, i32 undef, i8 1)
  ret void
}
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare i32 @dx.op.threadId.i32(i32, i32)
declare %dx.types.ResRet.i32 @dx.op.bufferLoad.i32(i32, %dx.types.Handle, i32, i32)
declare %dx.types.CBufRet.i32 @dx.op.cbufferLoadLegacy.i32(i32, %dx.types.Handle, i32)
declare i32 @dx.op.binary.i32(i32, i32, i32)
declare void @dx.op.bufferStore.i32(i32, %dx.types.Handle, i32, i32, i32, i32, i32, i32, i8)
!dx.resources = !{!0}
!0 = !{!1, !3, !5, null}
!1 = !{!2}
!2 = !{i32 0, ptr undef, !"In", i32 0, i32 0, i32 1, i32 12, i32 0, !7}
!3 = !{!4}
!4 = !{i32 0, ptr undef, !"Out", i32 1, i32 2, i32 1, i32 12, i1 false, i1 false, i1 false, !7}
!5 = !{!6}
!6 = !{i32 0, ptr undef, !"P", i32 0, i32 0, i32 1, i32 16, null}
!7 = !{i32 1, i32 4}
"""

# RWByteAddressBuffer Out : u0 (raw); numthreads(4,2,1):
# Out.Store(4 * flatGlobal, float(gid.x * 100 + gtid.y * 10 + gtid.x) + sqrt(flatInGroup))
DXIL_IDS = DXIL_LL_HEAD + """
define void @CSIds() {
  %out = call %dx.types.Handle @dx.op.createHandle(i32 57, i8 1, i32 0, i32 0, i1 false)
  %g = call i32 @dx.op.groupId.i32(i32 94, i32 0)
  %tx = call i32 @dx.op.threadIdInGroup.i32(i32 95, i32 0)
  %ty = call i32 @dx.op.threadIdInGroup.i32(i32 95, i32 1)
  %fl = call i32 @dx.op.flattenedThreadIdInGroup.i32(i32 96)
  %g100 = mul i32 %g, 100
  %ty10 = mul i32 %ty, 10
  %s1 = add i32 %g100, %ty10
  %s2 = add i32 %s1, %tx
  %f = uitofp i32 %s2 to float
  %flf = uitofp i32 %fl to float
  %sq = call float @dx.op.unary.f32(i32 24, float %flf)
  %v = fadd float %f, %sq
  %g8 = mul i32 %g, 8
  %idx = add i32 %g8, %fl
  %addr = mul i32 %idx, 4
  call void @dx.op.rawBufferStore.f32(i32 140, %dx.types.Handle %out, i32 %addr, i32 undef, float %v, float undef, float undef, float undef, i8 1, i32 4)
  ret void
}
declare %dx.types.Handle @dx.op.createHandle(i32, i8, i32, i32, i1)
declare i32 @dx.op.groupId.i32(i32, i32)
declare i32 @dx.op.threadIdInGroup.i32(i32, i32)
declare i32 @dx.op.flattenedThreadIdInGroup.i32(i32)
declare float @dx.op.unary.f32(i32, float)
declare void @dx.op.rawBufferStore.f32(i32, %dx.types.Handle, i32, i32, float, float, float, float, i8, i32)
!dx.resources = !{!0}
!0 = !{null, !1, null, null}
!1 = !{!2}
!2 = !{i32 0, ptr undef, !"Out", i32 0, i32 0, i32 1, i32 11, i1 false, i1 false, i1 false, null}
!dx.entryPoints = !{!3}
!3 = !{ptr @CSIds, !"CSIds", null, !0, !4}
!4 = !{i32 4, !5}
!5 = !{i32 4, i32 2, i32 1}
"""


def dxil_container(tmp_path, ll: str, legacy: bool = True) -> bytes:
    """Assemble hand-written DXIL-like IR and wrap it as DXC would: legacy datalayout, DXIL part."""
    src = tmp_path / "shader.ll"
    src.write_text(ll)
    out = tmp_path / "shader.bc"
    tools.run_tool(["llvm-as-19", str(src), "-o", str(out)])
    bc = out.read_bytes()
    if legacy:
        layout, _ = dxil_tools.find_datalayout(bc)
        bc = dxil_tools.replace_datalayout(bc, layout.replace("i8:08", "i8:32"))
    return dxil_tools.make_container([("DXIL", dxil_tools.dxil_part(bc, 5))])


@pytest.fixture(scope="module")
def dxil_exec():
    from harness import dxil_exec as mod

    tools.require_tool("lli-19")
    tools.require_tool("llvm-link-19")
    return mod


@pytest.mark.llvm
def test_dxil_exec_buffers_cbuffer_binary(tmp_path, dxil_exec):
    blob = dxil_container(tmp_path, DXIL_SCALE)
    inp = [3, 250, 0, 1000, 77, 12345, 6, 142]
    bufs = [(0, 0, "t", struct.pack("<8I", *inp)), (0, 0, "b", struct.pack("<4I", 4, 3, 0, 0)),
            (2, 1, "u", struct.pack("<9I", *([0xAAAAAAAA] * 9)))]
    res = dxil_exec.run_dxil_compute(blob, "main", bufs, groups=(2, 1, 1), numthreads=(4, 1, 1))
    assert res[0] == bufs[0][3] and res[1] == bufs[1][3]
    assert u32s(res[2]) == [max(v * 4 + 3, 1000) for v in inp] + [0xAAAAAAAA]


@pytest.mark.llvm
def test_dxil_exec_thread_ids_raw_buffer_unary(tmp_path, dxil_exec):
    blob = dxil_container(tmp_path, DXIL_IDS)
    # numthreads (4, 2, 1) comes from !dx.entryPoints
    (out,) = dxil_exec.run_dxil_compute(blob, "CSIds", [(0, 0, "u", bytes(4 * 24))], groups=(3, 1, 1))
    expect = [g * 100 + y * 10 + x + (y * 4 + x) ** 0.5 for g in range(3) for y in range(2) for x in range(4)]
    got = struct.unpack("<24f", out)
    assert got == tuple(struct.unpack("<24f", struct.pack("<24f", *expect)))


@pytest.mark.llvm
def test_dxil_exec_reports_unsupported_ops_and_bad_bindings(tmp_path, dxil_exec):
    ll = DXIL_IDS.replace("declare float @dx.op.unary.f32(i32, float)",
                          "declare float @dx.op.unary.f32(i32, float)\ndeclare float @dx.op.sample.f32(i32)")
    with pytest.raises(dxil_exec.DxilExecError, match=r"dx\.op\.sample\.f32"):
        dxil_exec.run_dxil_compute(dxil_container(tmp_path, ll), "CSIds", [(0, 0, "u", bytes(96))])
    blob = dxil_container(tmp_path, DXIL_IDS)
    with pytest.raises(dxil_exec.DxilExecError, match="u1, space0 matches no resource"):
        dxil_exec.run_dxil_compute(blob, "CSIds", [(1, 0, "u", bytes(96))])
    with pytest.raises(dxil_exec.DxilExecError, match="@nope is not defined"):
        dxil_exec.run_dxil_compute(blob, "nope", [(0, 0, "u", bytes(96))], numthreads=(1, 1, 1))
    with pytest.raises(dxil_exec.DxilExecError, match="no numthreads for entry 'nope'"):
        dxil_exec.run_dxil_compute(blob, "nope", [(0, 0, "u", bytes(96))])
