"""SM 6.6 dynamic resources (issue 19): `ResourceDescriptorHeap[i]` / `SamplerDescriptorHeap[i]`.

Executed on lavapipe from our SPIR-V (a compute and a pixel shader reading textures and buffers by
heap index out of a 64-descriptor heap whose elements are of several types: a
VK_EXT_mutable_descriptor_type binding, as DXC's aliased runtime arrays need) and from our DXIL
through dxil-spirv (its heap is set 0 binding 0).  Expected values come from the data the tests
put in the heap, not from the compiler.  Structural checks: the DXIL operations and properties
(DXIL.rst: createHandleFromHeap(218, index, samplerHeap, nonUniform), annotateHandle(216, h,
{shape | UAV 1<<12 | counter/cmp 1<<15, component type | count<<8 or stride}), the
heap-indexing shader flags (DxilShaderFlags.h bits 30/31) and SFI0 bits as obj2yaml-19 names them,
the SPIR-V bindings DXC's rules give, the options and the manifest.
"""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path

import pytest
import res_util as R
from harness import dxil_tools, tools

from shaderbuild.options import BindRegister

pytestmark = [pytest.mark.spirv_tools]

HEAP_SIZE = 64

COMPUTE = """
struct Item { float value; uint tag; };
RWStructuredBuffer<float4> Out : register(u0);
[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint i = id.x;
    Texture2D<float4> tex = ResourceDescriptorHeap[NonUniformResourceIndex(i * 3)];
    StructuredBuffer<Item> items = ResourceDescriptorHeap[NonUniformResourceIndex(40 + i)];
    Buffer<float> typed = ResourceDescriptorHeap[63];
    Out[i] = float4(items[i].value, (float)items[1].tag, tex.Load(int3(i, 0, 0)).y, typed[i]);
}
"""


def _tex_texel(k: int, x: int) -> tuple[float, ...]:
    return (float(k), 20.0 * k + x + 0.25, 0.0, 1.0)


def _item(k: int, j: int) -> tuple[float, int]:
    return (10.0 * k + j + 0.5, 100 + k)


TYPED = [0.5, 1.5, 2.5, 3.5]


def _compute_heap(vk, set_: int, binding: int) -> list:
    """Heap element -> descriptor: textures at 0, 3, 6, 9, structured buffers at 40..43, a typed buffer
    at 63, every other element a filler storage buffer (all 64 descriptors valid)."""
    heap: dict[int, object] = {}
    for k in range(4):
        data = b"".join(struct.pack("<4f", *_tex_texel(k, x)) for x in range(4))
        heap[3 * k] = vk.Image(set_, binding, data, 4, 1, "rgba32f", "sampled_image", index=3 * k)
        items = b"".join(struct.pack("<fI", *_item(k, j)) for j in range(4))
        heap[40 + k] = vk.Buf(set_, binding, items, "storage", index=40 + k)
    heap[63] = vk.TexelBuffer(set_, binding, struct.pack("<4f", *TYPED), "r32f", "uniform_texel_buffer", index=63)
    for i in range(HEAP_SIZE):
        heap.setdefault(i, vk.Buf(set_, binding, struct.pack("<4I", i, i, i, i), "storage", index=i))
    return [heap[i] for i in range(HEAP_SIZE)]


def _compute_expected() -> list[float]:
    out: list[float] = []
    for i in range(4):
        out += [_item(i, i)[0], float(_item(i, 1)[1]), _tex_texel(i, i)[1], TYPED[i]]
    return out


def _heap(manifest: dict, heap: str = "resource") -> dict:
    return next(h for h in manifest["descriptor_heaps"] if h["heap"] == heap)


def _ok(src: str, profile: str, target: str, **opts):
    res = R.compile_hlsl(src, profile=profile, target=target, env="vulkan1.2", **opts)
    assert res.ok, R.diagnostics_text(res)
    if target == "spirv":
        tools.spirv_val(res.binary, "vulkan1.2")
    return res


# ---------------------------------------------------------------- executed

@pytest.mark.vulkan
def test_compute_reads_textures_and_buffers_by_heap_index():
    res = _ok(COMPUTE, "cs_6_6", "spirv")
    m = res.manifest
    out = R.resource(m, "Out")["vulkan"]
    heap = _heap(m)["vulkan"]
    # DXC: Out at register u0 -> binding 0; the heap takes the first free binding of set 0
    assert (out["set"], out["binding"], heap["set"], heap["binding"]) == (0, 0, 0, 1)
    assert heap["descriptor_type"] == "mutable"
    assert heap["descriptor_types"] == ["sampled_image", "storage_buffer", "uniform_texel_buffer"]
    vk = R.vk_runner()
    descs = [vk.Buf(0, 0, R.sentinel(16), "storage"), *_compute_heap(vk, 0, 1)]
    got = vk.run_compute(res.binary, "main", descs)
    assert R.unpack("f", got[0]) == _compute_expected()


@pytest.mark.vulkan
def test_compute_heap_from_dxil_through_dxil_spirv():
    from harness import dxil_consumer

    res = _ok(COMPUTE, "cs_6_6", "dxil")
    spirv = dxil_consumer.to_spirv(res.binary)     # converted and passed spirv-val
    vk = R.vk_runner()
    out_binding = dxil_consumer.SHIFTS["u"] + 0  # u0 in space 0; dxil-spirv's heap is set 0 binding 0
    descs = [vk.Buf(0, out_binding, R.sentinel(16), "storage"), *_compute_heap(vk, 0, 0)]
    got = vk.run_compute(spirv, "main", descs)
    assert R.unpack("f", got[0]) == _compute_expected()


PIXEL = """
float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target {
    uint x = (uint)pos.x;
    Texture2D<float4> albedo = ResourceDescriptorHeap[NonUniformResourceIndex(x + 1)];
    SamplerState point_ = SamplerDescriptorHeap[12];
    StructuredBuffer<float> scale = ResourceDescriptorHeap[10];
    return albedo.SampleLevel(point_, float2(0.5, 0.5), 0) * scale[x];
}
"""

COLORS = [(40, 200, 60, 255), (80, 160, 80, 255), (120, 120, 100, 255), (160, 80, 120, 255)]
SCALES = [1.0, 0.5, 0.25, 1.0]


def _pixel_heaps(vk, rs: int, rb: int, ss: int, sb: int) -> list:
    """Resource heap: textures at 1..4, the scale buffer at 10, fillers; sampler heap: 16 samplers.
    When both heaps are one binding (dxil-spirv), element 12 is the sampler the shader takes."""
    shared = (rs, rb) == (ss, sb)
    if shared:
        return [vk.Sampler(ss, sb, index=i) if i == 12 else d for i, d in enumerate(_pixel_heaps(vk, rs, rb, -1, -1))
                if i < 16]
    descs: list = []
    for i in range(16):
        if 1 <= i <= 4:
            descs.append(vk.Image(rs, rb, bytes(COLORS[i - 1]), 1, 1, "rgba8", "sampled_image", index=i))
        elif i == 10:
            descs.append(vk.Buf(rs, rb, struct.pack("<4f", *SCALES), "storage", index=i))
        else:
            descs.append(vk.Buf(rs, rb, struct.pack("<I", i), "storage", index=i))
    return descs + [vk.Sampler(ss, sb, index=i) for i in range(16)]


def _check_pixels(pixels: bytes) -> None:
    for x in range(4):
        want = [round(c * SCALES[x]) for c in COLORS[x]]
        got = R.pixel(pixels, 4, x, 0)
        assert all(abs(g - w) <= 1 for g, w in zip(got, want)), (x, got, want)


@pytest.mark.vulkan
def test_pixel_shader_reads_textures_samplers_and_buffers_by_heap_index():
    vs = _ok(R.FULLSCREEN_VS, "vs_6_0", "spirv")
    ps = _ok(PIXEL, "ps_6_6", "spirv")
    res_heap, smp_heap = _heap(ps.manifest)["vulkan"], _heap(ps.manifest, "sampler")["vulkan"]
    assert (res_heap["binding"], smp_heap["binding"]) == (0, 1)       # resource heap first, then samplers
    assert _heap(ps.manifest)["non_uniform"] is True
    assert _heap(ps.manifest, "sampler")["non_uniform"] is False
    vk = R.vk_runner()
    descs = _pixel_heaps(vk, res_heap["set"], res_heap["binding"], smp_heap["set"], smp_heap["binding"])
    _check_pixels(vk.run_graphics(vs.binary, "main", ps.binary, "main", 4, 1, descs))


@pytest.mark.vulkan
def test_pixel_heap_from_dxil_through_dxil_spirv():
    """The pinned dxil-spirv driver puts both heaps at set 0 binding 0 (one index space for samplers,
    images and buffers in one mutable binding), so the sampler the shader takes, 12, is free in the
    resource heap."""
    from harness import dxil_consumer

    vs = dxil_consumer.to_spirv(_ok(R.FULLSCREEN_VS, "vs_6_0", "dxil").binary)
    ps = dxil_consumer.to_spirv(_ok(PIXEL, "ps_6_6", "dxil").binary)
    vk = R.vk_runner()
    entry = {name: tools.spirv_cross_reflect(b)["entryPoints"][0]["name"] for name, b in (("vs", vs), ("ps", ps))}
    descs = _pixel_heaps(vk, 0, 0, 0, 0)
    _check_pixels(vk.run_graphics(vs, entry["vs"], ps, entry["ps"], 4, 1, descs))


# ---------------------------------------------------------------- DXIL structure

def _dis(res) -> str:
    return dxil_tools.llvm_dis(dxil_tools.extract_bitcode(res.binary))


def _entry_flags(text: str) -> int:
    m = re.search(r"!dx\.entryPoints = !\{!(\d+)\}", text)
    assert m
    entry = re.search(rf"^!{m.group(1)} = !{{.*?, !(\d+)}}$", text, re.M)
    assert entry, text
    props = re.search(rf"^!{entry.group(1)} = !{{i32 0, i64 (\d+)", text, re.M)
    assert props
    return int(props.group(1))


def test_dxil_handles_from_the_heap():
    res = _ok(COMPUTE, "cs_6_6", "dxil")
    text = _dis(res)
    heap_calls = re.findall(r"call %dx\.types\.Handle @dx\.op\.createHandleFromHeap\(i32 218, i32 (%?\w+), "
                            r"i1 (true|false), i1 (true|false)\)", text)
    assert sorted((sampler, nu) for _i, sampler, nu in heap_calls) == [
        ("false", "false"), ("false", "true"), ("false", "true")]
    assert "i32 63, i1 false, i1 false" in text          # Buffer<float> typed = ResourceDescriptorHeap[63]
    props = re.findall(r"annotateHandle\(i32 216, %dx\.types\.Handle %\d+, %dx\.types\.ResourceProperties "
                       r"\{ i32 (\d+), i32 (\d+) \}\)", text)
    # Texture2D<float4>: shape 2, F32 (9) x 4; StructuredBuffer<Item>: shape 12, stride 8;
    # Buffer<float>: TypedBuffer 10, F32 x 1; Out (bound): UAV structured 12 | 1<<12, stride 16
    assert sorted((int(a), int(b)) for a, b in props) == sorted(
        [(2, 9 | 4 << 8), (12, 8), (10, 9 | 1 << 8), (12 | 1 << 12, 16)])
    # heap views have no dx.resources record: only Out
    assert text.count('!"Out"') == 1 and "ResourceDescriptorHeap" not in text
    flags = _entry_flags(text)
    assert flags >> 30 & 1 and not flags >> 31 & 1


def test_dxil_shader_flags_and_sfi0_for_both_heaps():
    res = _ok(PIXEL, "ps_6_6", "dxil")
    text = _dis(res)
    assert re.search(r"createHandleFromHeap\(i32 218, i32 12, i1 true, i1 false\)", text)   # the sampler
    flags = _entry_flags(text)
    assert flags >> 30 & 1 and flags >> 31 & 1
    yaml_text = tools.run_tool(["obj2yaml-19", "-"], stdin=res.binary).stdout.decode()
    assert re.search(r"ResourceDescriptorHeapIndexing:\s+true", yaml_text)
    assert re.search(r"SamplerDescriptorHeapIndexing:\s+true", yaml_text)
    sfi0 = dxil_tools.container_parts(res.binary)["SFI0"]
    assert struct.unpack("<Q", sfi0)[0] & 0x6000000 == 0x6000000


def test_dxil_heap_counter_sets_the_counter_property():
    src = """
RWByteAddressBuffer Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
    RWStructuredBuffer<uint> b = ResourceDescriptorHeap[7];
    Out.Store(0, b.IncrementCounter());
}
"""
    text = _dis(_ok(src, "cs_6_6", "dxil"))
    assert re.search(rf"ResourceProperties \{{ i32 {12 | 1 << 12 | 1 << 15}, i32 4 \}}", text)
    assert "bufferUpdateCounter" in text


# ---------------------------------------------------------------- SPIR-V structure and options

def _decorations(dis: str, name: str) -> list[tuple[int, int]]:
    ids = re.findall(rf"OpName %(\S+) \"{re.escape(name)}\"", dis)
    out = []
    for i in ids:
        s = re.search(rf"OpDecorate %{re.escape(i)} DescriptorSet (\d+)", dis)
        b = re.search(rf"OpDecorate %{re.escape(i)} Binding (\d+)", dis)
        out.append((int(s.group(1)), int(b.group(1))))
    return out


def test_spirv_one_runtime_array_per_type_at_one_binding():
    res = _ok(COMPUTE, "cs_6_6", "spirv")
    dis = tools.spirv_dis(res.binary)
    assert _decorations(dis, "ResourceDescriptorHeap") == [(0, 1)] * 3
    assert dis.count("OpTypeRuntimeArray %type_") >= 1
    for cap in ("RuntimeDescriptorArray", "ShaderNonUniform", "SampledImageArrayNonUniformIndexing",
                "StorageBufferArrayNonUniformIndexing"):
        assert f"OpCapability {cap}\n" in dis, cap
    assert "NonUniform\n" in dis


def test_spirv_heap_binding_options():
    src = PIXEL
    res = _ok(src, "ps_6_6", "spirv", vk_bind_resource_heap=(5, 2), vk_bind_sampler_heap=(7, 3))
    dis = tools.spirv_dis(res.binary)
    assert set(_decorations(dis, "ResourceDescriptorHeap")) == {(2, 5)}
    assert set(_decorations(dis, "SamplerDescriptorHeap")) == {(3, 7)}
    assert (_heap(res.manifest)["vulkan"]["set"], _heap(res.manifest)["vulkan"]["binding"]) == (2, 5)


COUNTER = """
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    RWStructuredBuffer<uint> b = ResourceDescriptorHeap[NonUniformResourceIndex(id.x + 2)];
    Out[0] = b.IncrementCounter();
}
"""


@pytest.mark.vulkan
def test_spirv_counter_heap_executes():
    res = _ok(COUNTER, "cs_6_6", "spirv")
    dis = tools.spirv_dis(res.binary)
    assert _decorations(dis, "counter.var.ResourceDescriptorHeap") == [(0, 2)]   # after Out (0) and the heap (1)
    assert _heap(res.manifest)["vulkan"]["counters"] == {"set": 0, "binding": 2, "descriptor_type": "storage_buffer",
                                                          "count": "unbounded"}
    vk = R.vk_runner()
    heap = [vk.Buf(0, 1, R.sentinel(4), "storage", index=i) for i in range(4)]
    counters = [vk.Buf(0, 2, struct.pack("<i", 10 * i + 3), "storage", index=i) for i in range(4)]
    got = vk.run_compute(res.binary, "main", [vk.Buf(0, 0, R.sentinel(1), "storage"), *heap, *counters])
    assert R.unpack("I", got[0]) == [23]                 # the counter of heap element 2, before the increment
    assert R.unpack("i", got[1 + 4 + 2]) == [24]


def test_spirv_counter_heap_option():
    res = _ok(COUNTER, "cs_6_6", "spirv", vk_bind_resource_heap=(4, 1), vk_bind_counter_heap=(9, 3))
    dis = tools.spirv_dis(res.binary)
    assert _decorations(dis, "counter.var.ResourceDescriptorHeap") == [(3, 9)]
    assert set(_decorations(dis, "ResourceDescriptorHeap")) == {(1, 4)}


def test_bind_register_needs_heap_option():
    res = R.compile_hlsl(COMPUTE, profile="cs_6_6", target="spirv",
                         vk_bind_registers=[BindRegister("u", 0, 0, 0, 0)])
    assert R.errors(res) == ["7:29: 'ResourceDescriptorHeap' needs -fvk-bind-resource-heap when "
                             "-fvk-bind-register is used"]


# ---------------------------------------------------------------- diagnostics

@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_heap_needs_sm_6_6(target):
    res = R.compile_hlsl(COMPUTE, profile="cs_6_5", target=target)
    assert R.errors(res) == [f"{at}: 'ResourceDescriptorHeap' requires shader model 6.6 or higher "
                             "(the profile is cs_6_5)" for at in ("7:29", "8:36", "9:27")]   # every use
    assert "^" in R.diagnostics_text(res)


@pytest.mark.parametrize("src, want", [
    ("SamplerState s = ResourceDescriptorHeap[0]; return 0;",
     "2:22: an element of 'ResourceDescriptorHeap' converts only to a resource type other than a sampler, "
     "not to 'SamplerState'"),
    ("Texture2D<float4> t = SamplerDescriptorHeap[0]; return 0;",
     "2:27: an element of 'SamplerDescriptorHeap' converts only to a sampler type, not to 'Texture2D<float4>'"),
    ("return ResourceDescriptorHeap[1].Load(int3(0, 0, 0));",
     "2:38: an element of 'ResourceDescriptorHeap' has no members until it is converted to a resource type, "
     "e.g. '((Texture2D<float4>)ResourceDescriptorHeap[i]).Load(...)'"),
    ("float4 v = ResourceDescriptorHeap[0]; return v;",
     "2:16: an element of 'ResourceDescriptorHeap' converts only to a resource type other than a sampler, "
     "not to 'float4'"),
])
def test_heap_conversion_errors(src, want):
    res = R.compile_hlsl("float4 main() : SV_Target {\n    " + src + "\n}\n", profile="ps_6_6")
    assert R.errors(res) == [want]


def test_cast_and_argument_forms():
    src = """
float sum(StructuredBuffer<float> b, uint n) { float s = 0; for (uint i = 0; i < n; i++) s += b[i]; return s; }
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
    StructuredBuffer<float> pair[2] = { ResourceDescriptorHeap[3], ResourceDescriptorHeap[5] };
    Out[0] = ((Texture2D<float4>)ResourceDescriptorHeap[1]).Load(int3(0, 0, 0)).x
           + sum(ResourceDescriptorHeap[2], 2) + pair[1][0];
}
"""
    for target in ("spirv", "dxil"):
        res = _ok(src, "cs_6_6", target)
        kinds = sorted(t["kind"] for t in _heap(res.manifest)["types"])
        assert kinds == ["StructuredBuffer<float>", "Texture2D<float4>"]
    text = _dis(res)
    assert sorted(re.findall(r"createHandleFromHeap\(i32 218, i32 (\d+),", text)) == ["1", "2", "5"]


# ---------------------------------------------------------------- manifest

def test_manifest_heap_usage_both_targets():
    import jsonschema

    from shaderbuild.reflect import manifest as manifest_mod

    schema = json.loads(Path(manifest_mod.__file__).with_name("manifest.schema.json").read_text())
    views = {}
    for target in ("spirv", "dxil"):
        res = _ok(PIXEL, "ps_6_6", target)
        jsonschema.validate(res.manifest, schema)
        heaps = res.manifest["descriptor_heaps"]
        assert [h["heap"] for h in heaps] == ["resource", "sampler"]
        assert heaps[0]["d3d12"] == {"heap_type": "CBV_SRV_UAV", "root_signature_flag": "CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED"}
        assert heaps[1]["d3d12"] == {"heap_type": "SAMPLER", "root_signature_flag": "SAMPLER_HEAP_DIRECTLY_INDEXED"}
        assert heaps[0]["types"] == [
            {"kind": "Texture2D<float4>", "access": "read-only", "descriptor_type": "sampled_image", "non_uniform": True},
            {"kind": "StructuredBuffer<float>", "access": "read-only", "descriptor_type": "storage_buffer",
             "non_uniform": False}]
        assert heaps[1]["types"] == [{"kind": "SamplerState", "access": "read-only", "descriptor_type": "sampler",
                                      "non_uniform": False}]
        assert res.manifest["resources"] == []
        views[target] = heaps
    assert views["spirv"] == views["dxil"]      # the DXIL build's Vulkan view is derived by the same rules


# ---------------------------------------------------------------- root signatures

ROOTSIG_PIXEL = """
[RootSignature("RootFlags(CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED)")]
""" + PIXEL


def test_root_signature_must_allow_heap_indexing():
    res = R.compile_hlsl(ROOTSIG_PIXEL, profile="ps_6_6", target="dxil")
    assert R.errors(res) == ["2:17: root signature: the pixel shader indexes 'SamplerDescriptorHeap' but RootFlags "
                             "lacks SAMPLER_HEAP_DIRECTLY_INDEXED"]
    ok = ROOTSIG_PIXEL.replace("INDEXED)", "INDEXED | SAMPLER_HEAP_DIRECTLY_INDEXED)")
    res = _ok(ok, "ps_6_6", "dxil")
    assert res.manifest["root_signature"]["flags"] == ["CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED",
                                                       "SAMPLER_HEAP_DIRECTLY_INDEXED"]
    assert "RTS0" in dxil_tools.container_parts(res.binary)


def test_derived_root_signature_allows_the_heaps_used():
    from shaderbuild.rootsig import model
    from shaderbuild.rootsig.derive import Shader, derive

    compute = derive([Shader.from_manifest(_ok(COMPUTE, "cs_6_6", "dxil").manifest)])
    assert model.names_of(model.ROOT_FLAGS, compute.flags) == ["CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED"]
    pixel = derive([Shader.from_manifest(_ok(PIXEL, "ps_6_6", "spirv").manifest)])
    assert set(model.names_of(model.ROOT_FLAGS, pixel.flags)) == {
        "CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED", "SAMPLER_HEAP_DIRECTLY_INDEXED"}


VERTEX = """
float4 main(uint id : SV_VertexID) : SV_Position {
    StructuredBuffer<float4> corners = ResourceDescriptorHeap[5];
    return corners[id];
}
"""
FLAT_PS = "float4 main() : SV_Target { return float4(1.0, 0.5, 0.25, 1.0); }"


@pytest.mark.vulkan
def test_vertex_shader_reads_its_corners_by_heap_index():
    """Element 5 holds a triangle covering the target; every other element a degenerate one."""
    vs = _ok(VERTEX, "vs_6_6", "spirv")
    ps = _ok(FLAT_PS, "ps_6_0", "spirv")
    heap = _heap(vs.manifest)["vulkan"]
    vk = R.vk_runner()
    cover = struct.pack("<12f", -1, -1, 0, 1, 3, -1, 0, 1, -1, 3, 0, 1)
    descs = [vk.Buf(heap["set"], heap["binding"], cover if i == 5 else bytes(48), "storage", index=i)
             for i in range(8)]
    pixels = vk.run_graphics(vs.binary, "main", ps.binary, "main", 2, 2, descs)
    assert [R.pixel(pixels, 2, x, y) for y in range(2) for x in range(2)] == [(255, 128, 64, 255)] * 4
    text = _dis(_ok(VERTEX, "vs_6_6", "dxil"))
    assert "@dx.op.createHandleFromHeap(i32 218, i32 5, i1 false, i1 false)" in text


def test_heap_types_of_every_kind_build_for_both_targets():
    """Every resource kind the heap can hold (no TextureBuffer yet) through SPIR-V (spirv-val) and DXIL
    (read back, converted by dxil-spirv)."""
    from harness import dxil_consumer

    src = """
RWByteAddressBuffer Out : register(u0);
[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    ByteAddressBuffer raw = ResourceDescriptorHeap[2];
    RWTexture2D<float4> img = ResourceDescriptorHeap[3];
    RWBuffer<uint> rwb = ResourceDescriptorHeap[4];
    Texture2DArray<float4> ta = ResourceDescriptorHeap[5];
    TextureCube<float4> tc = ResourceDescriptorHeap[6];
    SamplerComparisonState sc = SamplerDescriptorHeap[1];
    Texture2D<float> depth = ResourceDescriptorHeap[7];
    AppendStructuredBuffer<uint> app = ResourceDescriptorHeap[8];
    app.Append(3);
    img[id.xy] = ta.Load(int4(0, 0, 0, 0)) + tc.SampleLevel(SamplerDescriptorHeap[0], float3(1, 0, 0), 0);
    rwb[0] = raw.Load(0) + (uint)depth.SampleCmpLevelZero(sc, float2(0, 0), 0.5);
    Out.Store(0, 1);
}
"""
    spirv = _ok(src, "cs_6_6", "spirv")
    kinds = [t["kind"] for t in _heap(spirv.manifest)["types"]]
    assert kinds == ["ByteAddressBuffer", "RWTexture2D<float4>", "RWBuffer<uint>", "Texture2DArray<float4>",
                     "TextureCube<float4>", "Texture2D<float>", "AppendStructuredBuffer<uint>"]
    assert [t["kind"] for t in _heap(spirv.manifest, "sampler")["types"]] == ["SamplerComparisonState", "SamplerState"]
    dxil = _ok(src, "cs_6_6", "dxil")
    dxil_tools.check_dxil(dxil.binary)
    dxil_consumer.to_spirv(dxil.binary)


CBUFFER = """
struct P { float4 a; float b; uint idx; };
RWStructuredBuffer<float4> Out : register(u0);
[numthreads(2, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    ConstantBuffer<P> cb = ResourceDescriptorHeap[NonUniformResourceIndex(id.x + 1)];
    Out[id.x] = cb.a * cb.b + cb.idx;
}
"""


def _cbuffer_heap(vk, set_: int, binding: int) -> list:
    """Elements 1 and 2: P { a, b, idx } (a at 0, b at 16, idx at 20 in both D3D and std140 packing)."""
    blocks = {k: struct.pack("<4f f I 8x", *(10.0 * k + c for c in range(4)), 0.5 * k, 7 * k) for k in (1, 2)}
    return [vk.Buf(set_, binding, blocks[i], "uniform", index=i) if i in blocks
            else vk.Buf(set_, binding, bytes(32), "storage", index=i) for i in range(4)]


def _cbuffer_expected() -> list[float]:
    return [(10.0 * k + c) * (0.5 * k) + 7 * k for k in (1, 2) for c in range(4)]


@pytest.mark.vulkan
def test_constant_buffer_from_the_heap_executes():
    res = _ok(CBUFFER, "cs_6_6", "spirv")
    heap = _heap(res.manifest)
    assert heap["types"][0]["descriptor_type"] == "uniform_buffer"
    vk = R.vk_runner()
    got = vk.run_compute(res.binary, "main", [vk.Buf(0, 0, R.sentinel(8), "storage"),
                                              *_cbuffer_heap(vk, heap["vulkan"]["set"], heap["vulkan"]["binding"])])
    assert R.unpack("f", got[0]) == _cbuffer_expected()
    from harness import dxil_consumer

    dxil = _ok(CBUFFER, "cs_6_6", "dxil")
    text = _dis(dxil)
    assert re.search(r"ResourceProperties \{ i32 13, i32 24 \}", text)    # CBuffer, 24 bytes
    spirv = dxil_consumer.to_spirv(dxil.binary)
    got = vk.run_compute(spirv, "main", [vk.Buf(0, dxil_consumer.SHIFTS["u"], R.sentinel(8), "storage"),
                                         *_cbuffer_heap(vk, 0, 0)])
    assert R.unpack("f", got[0]) == _cbuffer_expected()


def test_texture_buffer_from_the_heap_is_refused():
    src = ("struct P { float4 a; };\nfloat4 main() : SV_Target {\n"
           "    TextureBuffer<P> tb = ResourceDescriptorHeap[1];\n    return tb.a;\n}\n")
    res = R.compile_hlsl(src, profile="ps_6_6")
    assert R.errors(res) == ["3:27: 'TextureBuffer<P>' from 'ResourceDescriptorHeap' is not supported yet"]


def test_cli_heap_options(tmp_path):
    import subprocess
    import sys

    src = tmp_path / "p.hlsl"
    src.write_text(PIXEL)
    out = tmp_path / "p.spv"
    proc = subprocess.run([sys.executable, "-m", "shaderbuild", "compile", "-T", "ps_6_6", "-spirv", str(src),
                           "-o", str(out), "-fvk-bind-resource-heap", "3", "1", "-fvk-bind-sampler-heap", "4", "2"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    dis = tools.spirv_dis(out.read_bytes())
    assert set(_decorations(dis, "ResourceDescriptorHeap")) == {(1, 3)}
    assert set(_decorations(dis, "SamplerDescriptorHeap")) == {(2, 4)}


def test_project_file_heap_options(tmp_path):
    from shaderbuild.build.config import load_project
    from shaderbuild.build.targets import plan

    (tmp_path / "shaderbuild.toml").write_text(
        'targets = ["spirv"]\n[backends.spirv]\nbind_resource_heap = { binding = 5, set = 1 }\n'
        'bind_sampler_heap = { binding = 6, set = 1 }\nbind_counter_heap = { binding = 7, set = 2 }\n'
        '[[shader]]\nfiles = "a.hlsl"\nprofile = "cs_6_6"\n')
    (tmp_path / "a.hlsl").write_text(COUNTER)
    (target,) = plan(load_project(str(tmp_path)))
    opts = target.options
    assert (opts.vk_bind_resource_heap, opts.vk_bind_sampler_heap, opts.vk_bind_counter_heap) == ((5, 1), (6, 1), (7, 2))


def test_views_of_unreachable_code_are_dropped():
    src = """
RWStructuredBuffer<float> Out : register(u0);
float unused() { Texture2D<float4> t = ResourceDescriptorHeap[9]; return t.Load(int3(0, 0, 0)).x; }
[numthreads(1, 1, 1)]
void main() {
    StructuredBuffer<float> b = ResourceDescriptorHeap[1];
    Out[0] = b[0];
}
"""
    res = _ok(src, "cs_6_6", "spirv")
    assert [t["kind"] for t in _heap(res.manifest)["types"]] == ["StructuredBuffer<float>"]
    assert tools.spirv_dis(res.binary).count('"ResourceDescriptorHeap"') == 1


@pytest.mark.parametrize("env", ["vulkan1.1", "vulkan1.3"])
def test_spirv_validates_for_other_environments(env):
    """SPIR-V 1.3 (storage buffers in Uniform, SPV_EXT_descriptor_indexing) and 1.6 (StorageBuffer)."""
    for src, profile in ((COMPUTE, "cs_6_6"), (PIXEL, "ps_6_6"), (COUNTER, "cs_6_6")):
        res = R.compile_hlsl(src, profile=profile, env=env)
        assert res.ok, R.diagnostics_text(res)
        tools.spirv_val(res.binary, env)


def test_outputs_are_deterministic():
    from shaderbuild.compiler import compile_file
    from shaderbuild.options import CompileOptions

    for target in ("spirv", "dxil"):
        opts = CompileOptions(profile="ps_6_6", target=target)
        a, b = (compile_file("p.hlsl", opts, text=PIXEL) for _ in range(2))
        assert a.ok and a.binary == b.binary and a.manifest == b.manifest
