"""Vertex + pixel shader pairs drawn offscreen on lavapipe (RGBA8 targets, Vulkan y-down), pixels read
back and compared with values computed here: full-screen triangles, vertex-buffer draws, instancing,
interpolation modifiers, front faces, MRT, discard, textures sampled with implicit derivatives,
fragment-stage buffer writes, and the -fvk-invert-y / -fvk-use-dx-position-w options.
"""

from __future__ import annotations

import struct

import pytest
import res_util as R

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

W, H = 8, 8


def uv_at(x: int, y: int, w: int = W, h: int = H) -> tuple[float, float]:
    return (x + 0.5) / w, (y + 0.5) / h


def near(got, want, tol: int = 1) -> bool:
    return all(abs(g - w) <= tol for g, w in zip(got, want))


PS_UV = """
float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target { return float4(uv, 0.25, 1); }
"""


def test_fullscreen_triangle_uv():
    px = R.draw(R.FULLSCREEN_VS, PS_UV, W, H)
    for x, y in [(0, 0), (7, 0), (0, 7), (3, 5), (7, 7)]:
        u, v = uv_at(x, y)
        assert near(R.pixel(px, W, x, y), (R.unorm8(u), R.unorm8(v), R.unorm8(0.25), 255)), (x, y)


PS_FRAGCOORD = """
float4 main(float4 pos : SV_Position) : SV_Target { return float4(pos.x / 8.0, pos.y / 8.0, pos.z, pos.w * 0.5); }
"""


def test_sv_position_is_fragcoord():
    px = R.draw(R.FULLSCREEN_VS, PS_FRAGCOORD, W, H)
    for x, y in [(0, 0), (5, 2), (7, 6)]:
        # FragCoord = pixel centre; z = 0 from the VS; w = 1 / clip w = 1
        assert near(R.pixel(px, W, x, y), (R.unorm8((x + 0.5) / 8), R.unorm8((y + 0.5) / 8), 0, R.unorm8(0.5)))


VS_VB = """
struct VIn { float2 pos : POSITION; float4 color : COLOR0; };
struct VOut { float4 pos : SV_Position; nointerpolation float4 color : COLOR0; };
VOut main(VIn i) { VOut o; o.pos = float4(i.pos, 0, 1); o.color = i.color; return o; }
"""
PS_COLOR = """
struct PIn { float4 pos : SV_Position; nointerpolation float4 color : COLOR0; };
float4 main(PIn i) : SV_Target { return i.color; }
"""


def quads(colors: list[tuple[float, ...]]) -> bytes:
    """Two triangles per colour: left half, right half of the viewport."""
    halves = [(-1.0, 0.0), (0.0, 1.0)]
    data = b""
    for (x0, x1), c in zip(halves, colors):
        for px, py in [(x0, -1), (x1, -1), (x0, 1), (x1, -1), (x1, 1), (x0, 1)]:
            data += struct.pack("<2f4f", px, py, *c)
    return data


def test_vertex_buffer_draw():
    vk = R.vk_runner()
    vb = vk.VertexBuffer(quads([(1, 0, 0, 1), (0, 0.5, 1, 1)]), 24, [(0, "float2", 0), (1, "float4", 8)])
    px = R.draw(VS_VB, PS_COLOR, W, H, vertex_buffers=[vb], vertex_count=12)
    assert R.pixel(px, W, 1, 3) == (255, 0, 0, 255)
    assert near(R.pixel(px, W, 6, 5), (0, R.unorm8(0.5), 255, 255))


def test_vertex_input_locations_follow_declaration_order():
    res = R.build(VS_VB, profile="vs_6_0")
    ins = {e["semantic"]: e.get("location") for e in res.manifest["entry"]["inputs"]}
    assert ins == {"POSITION": 0, "COLOR": 1}
    outs = {e["semantic"]: (e.get("location"), e.get("builtin")) for e in res.manifest["entry"]["outputs"]}
    assert outs == {"SV_Position": (None, "Position"), "COLOR": (0, None)}


VS_INTERP = """
struct VOut { float4 pos : SV_Position; float a : A; nointerpolation float b : B; noperspective float c : C; };
VOut main(uint id : SV_VertexID) {
    VOut o;
    float2 p = float2((id << 1) & 2, id & 2);   // (0,0) (2,0) (0,2)
    o.pos = float4(p * 2.0 - 1.0, 0, 1);
    o.a = p.x;                                  // linear: at pixel uv, p = uv (w = 1 everywhere)
    o.b = id + 0.25;                            // flat: the provoking (first) vertex's 0.25
    o.c = p.y;
    return o;
}
"""
PS_INTERP = """
struct PIn { float4 pos : SV_Position; float a : A; nointerpolation float b : B; noperspective float c : C; };
float4 main(PIn i) : SV_Target { return float4(i.a * 0.5, i.b, i.c * 0.5, 1); }
"""


def test_interpolation_modifiers():
    px = R.draw(VS_INTERP, PS_INTERP, W, H)
    for x, y in [(0, 0), (6, 1), (2, 4)]:
        u, v = uv_at(x, y)
        assert near(R.pixel(px, W, x, y), (R.unorm8(u * 0.5), R.unorm8(0.25), R.unorm8(v * 0.5), 255)), (x, y)


def test_interpolation_decorations():
    dis = R.spirv_dis(R.build(PS_INTERP, profile="ps_6_0"))
    assert dis.count("Flat") == 1 and dis.count("NoPerspective") == 1, dis


VS_INSTANCE = """
struct VOut { float4 pos : SV_Position; nointerpolation uint inst : INST; };
VOut main(uint id : SV_VertexID, uint inst : SV_InstanceID) {
    VOut o;
    float2 quad[6] = { float2(0, 0), float2(1, 0), float2(0, 1), float2(1, 0), float2(1, 1), float2(0, 1) };
    float2 q = quad[id];
    o.pos = float4(q.x + inst - 1.0, q.y * 2.0 - 1.0, 0, 1);   // instance 0: left half, 1: right half
    o.inst = inst;
    return o;
}
"""
PS_INSTANCE = """
float4 main(float4 pos : SV_Position, nointerpolation uint inst : INST) : SV_Target {
    return float4(inst == 0 ? 1 : 0, inst == 1 ? 1 : 0, 0, 1);
}
"""


def test_sv_instance_id():
    px = R.draw(VS_INSTANCE, PS_INSTANCE, W, H, vertex_count=6, instance_count=2)
    assert R.pixel(px, W, 1, 4) == (255, 0, 0, 255)
    assert R.pixel(px, W, 6, 4) == (0, 255, 0, 255)


def _front_facing(verts: list[tuple[float, float]]) -> bool:
    """Vulkan's rule: a = -1/2 sum(x_i y_{i+1} - x_{i+1} y_i) in framebuffer coordinates (y down);
    with VK_FRONT_FACE_COUNTER_CLOCKWISE (the harness) a > 0 is front-facing."""
    fb = [((x + 1) * W / 2, (y + 1) * H / 2) for x, y in verts]
    a = -0.5 * sum(fb[i][0] * fb[(i + 1) % 3][1] - fb[(i + 1) % 3][0] * fb[i][1] for i in range(3))
    return a > 0


VS_FACE = """
float4 main(uint id : SV_VertexID) : SV_Position {
    float2 v[6] = { float2(-1, -1), float2(0, -1), float2(-1, 1),     // left half, one winding
                    float2(0, -1), float2(0, 1), float2(1, -1) };      // right half, the other
    return float4(v[id], 0, 1);
}
"""
PS_FACE = """
float4 main(float4 pos : SV_Position, bool front : SV_IsFrontFace) : SV_Target { return front ? float4(1, 1, 1, 1) : float4(0, 0, 1, 1); }
"""


def test_sv_is_front_face():
    px = R.draw(VS_FACE, PS_FACE, W, H, vertex_count=6)
    left = _front_facing([(-1, -1), (0, -1), (-1, 1)])
    right = _front_facing([(0, -1), (0, 1), (1, -1)])
    assert left != right
    white, blue = (255, 255, 255, 255), (0, 0, 255, 255)
    assert R.pixel(px, W, 0, 1) == (white if left else blue)
    assert R.pixel(px, W, 6, 1) == (white if right else blue)


PS_MRT = """
struct POut { float4 c0 : SV_Target0; float4 c1 : SV_Target1; };
POut main(float4 pos : SV_Position, float2 uv : TEXCOORD0) { POut o; o.c0 = float4(uv.x, 0, 0, 1); o.c1 = float4(0, uv.y, 1, 1); return o; }
"""


def test_multiple_render_targets():
    targets, _ = R.draw(R.FULLSCREEN_VS, PS_MRT, W, H, targets=2, full=True)
    u, v = uv_at(5, 2)
    assert near(R.pixel(targets[0], W, 5, 2), (R.unorm8(u), 0, 0, 255))
    assert near(R.pixel(targets[1], W, 5, 2), (0, R.unorm8(v), 255, 255))
    res = R.build(PS_MRT, profile="ps_6_0")
    assert sorted(e["location"] for e in res.manifest["entry"]["outputs"]) == [0, 1]


PS_DISCARD = """
float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target {
    if (uv.x < 0.5) discard;
    return float4(0, 1, 0, 1);
}
"""


def test_discard():
    px = R.draw(R.FULLSCREEN_VS, PS_DISCARD, W, H, clear=(1.0, 0.0, 0.0, 1.0))
    assert R.pixel(px, W, 1, 1) == (255, 0, 0, 255)
    assert R.pixel(px, W, 6, 1) == (0, 255, 0, 255)


PS_TEX = """
Texture2D<float4> Tex : register(t0);
SamplerState Smp : register(s1);
cbuffer Tint : register(b2) { float4 tint; };
float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target { return Tex.Sample(Smp, uv) * tint; }
"""


def checker(w: int, h: int) -> bytes:
    return b"".join(bytes([x * 32, y * 32, 200 if (x + y) % 2 else 40, 255]) for y in range(h) for x in range(w))


def test_pixel_shader_sample_cbuffer():
    """An 8x8 texture drawn 1:1 with nearest filtering: each pixel is its texel times the tint."""
    specs = {"Tex": R.image(checker(8, 8), 8, 8), "Smp": R.sampler(), "Tint": R.uniform(R.pack("f", [1, 0.5, 1, 1]))}
    px = R.draw(R.FULLSCREEN_VS, PS_TEX, W, H, specs)
    for x, y in [(0, 0), (3, 4), (7, 7)]:
        r, g, b, _a = checker(8, 8)[(y * 8 + x) * 4:(y * 8 + x) * 4 + 4]
        assert near(R.pixel(px, W, x, y), (r, R.unorm8(g / 255 * 0.5), b, 255)), (x, y)


PS_LOD = """
Texture2D<float4> Tex : register(t0);
SamplerState Smp : register(s1);
float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target {
    float lod = Tex.CalculateLevelOfDetail(Smp, uv);
    float4 s = Tex.Sample(Smp, uv);          // 32x32 texture on an 8x8 target: implicit LOD 2
    float4 b = Tex.SampleBias(Smp, uv, -1.0); // LOD 1
    return float4(lod / 4.0, s.r, b.r, 1);
}
"""


def mip_chain(w: int, levels: int) -> bytes:
    """Each mip level filled with red = 40 * (level + 1)."""
    return b"".join(bytes([40 * (m + 1), 0, 0, 255]) * (max(1, w >> m) ** 2) for m in range(levels))


def test_implicit_lod_sample_bias_and_calculate_lod():
    specs = {"Tex": R.image(mip_chain(32, 4), 32, 32, mips=4), "Smp": R.sampler()}
    px = R.draw(R.FULLSCREEN_VS, PS_LOD, W, H, specs)
    assert near(R.pixel(px, W, 3, 3), (R.unorm8(2 / 4), 120, 80, 255), tol=2)


PS_CMP = """
Texture2D<float> Depth : register(t0);
SamplerComparisonState Cmp : register(s1);
float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target {
    return float4(Depth.SampleCmp(Cmp, uv, 0.5), Depth.SampleCmpLevelZero(Cmp, uv, 0.5), 0, 1);
}
"""


def test_sample_cmp_in_pixel_shader():
    depth = R.pack("f", [0.25 if x < 4 else 0.75 for _y in range(8) for x in range(8)])
    specs = {"Depth": R.image(depth, 8, 8, "d32f"), "Cmp": R.sampler(compare="less")}
    px = R.draw(R.FULLSCREEN_VS, PS_CMP, W, H, specs)
    # less: pass when reference 0.5 < texel depth
    assert R.pixel(px, W, 1, 1)[:2] == (0, 0)
    assert R.pixel(px, W, 6, 1)[:2] == (255, 255)


VS_PULL = """
StructuredBuffer<float2> Verts : register(t0);
float4 main(uint id : SV_VertexID) : SV_Position { return float4(Verts[id], 0, 1); }
"""
PS_SOLID = "float4 main() : SV_Target { return float4(1, 1, 0, 1); }\n"


def test_vertex_pulling_from_structured_buffer():
    # a triangle covering only the top-left corner region
    verts = R.pack("f", [-1, -1, 0, -1, -1, 0])
    px = R.draw(VS_PULL, PS_SOLID, W, H, {"Verts": R.storage(verts)})
    assert R.pixel(px, W, 0, 0) == (255, 255, 0, 255)
    assert R.pixel(px, W, 7, 7) == (0, 0, 0, 0)


PS_STORE = """
RWStructuredBuffer<uint> Hits : register(u0);
float4 main(float4 pos : SV_Position) : SV_Target {
    uint i = (uint)pos.y * 8 + (uint)pos.x;
    Hits[i] = i + 1000;
    return float4(0, 0, 0, 1);
}
"""


def test_pixel_shader_writes_storage_buffer():
    _t, got = R.draw(R.FULLSCREEN_VS, PS_STORE, W, H, {"Hits": R.storage(R.sentinel(64))}, full=True)
    assert R.unpack("I", got["Hits"]) == [i + 1000 for i in range(64)]


def test_invert_y_option():
    """-fvk-invert-y negates the VS output y: the uv gradient flips vertically."""
    vs = R.build(R.FULLSCREEN_VS, profile="vs_6_0", vk_invert_y=True)
    ps = R.build(PS_UV, profile="ps_6_0")
    px = R.vk_runner().run_graphics(vs.binary, "main", ps.binary, "main", W, H)
    for x, y in [(0, 0), (4, 6)]:
        u, v = uv_at(x, y)
        assert near(R.pixel(px, W, x, y), (R.unorm8(u), R.unorm8(1 - v), R.unorm8(0.25), 255)), (x, y)


VS_W2 = """
float4 main(uint id : SV_VertexID) : SV_Position {
    float2 uv = float2((id << 1) & 2, id & 2);
    return float4(uv * 2.0 - 1.0, 0.0, 1.0) * 2.0;   // same positions, clip w = 2
}
"""
PS_W = "float4 main(float4 pos : SV_Position) : SV_Target { return float4(pos.w * 0.25, 0, 0, 1); }\n"


@pytest.mark.parametrize("dx_w, want_w", [(False, 0.5), (True, 2.0)], ids=["vulkan-w", "dx-position-w"])
def test_dx_position_w_option(dx_w, want_w):
    """FragCoord.w is 1/w_clip in Vulkan; -fvk-use-dx-position-w gives D3D's w_clip."""
    vs = R.build(VS_W2, profile="vs_6_0")
    ps = R.build(PS_W, profile="ps_6_0", vk_use_dx_position_w=dx_w)
    px = R.vk_runner().run_graphics(vs.binary, "main", ps.binary, "main", W, H)
    assert near(R.pixel(px, W, 3, 3), (R.unorm8(want_w * 0.25), 0, 0, 255))


PS_DEPTH = """
struct POut { float4 c : SV_Target; float d : SV_Depth; };
POut main(float4 pos : SV_Position) { POut o; o.c = 1; o.d = 0.5; return o; }
"""


def test_sv_depth_structure():
    res = R.build(PS_DEPTH, profile="ps_6_0")
    dis = R.spirv_dis(res)
    assert "BuiltIn FragDepth" in dis and "DepthReplacing" in dis, dis
    assert [e.get("builtin") for e in res.manifest["entry"]["outputs"]] == [None, "FragDepth"]


GRAPHICS_SHADERS = {"vs-fullscreen": (R.FULLSCREEN_VS, "vs_6_0"), "vs-vb": (VS_VB, "vs_6_0"),
                    "vs-interp": (VS_INTERP, "vs_6_0"), "vs-instance": (VS_INSTANCE, "vs_6_0"),
                    "vs-face": (VS_FACE, "vs_6_0"), "vs-pull": (VS_PULL, "vs_6_0"), "ps-uv": (PS_UV, "ps_6_0"),
                    "ps-fragcoord": (PS_FRAGCOORD, "ps_6_0"), "ps-color": (PS_COLOR, "ps_6_0"),
                    "ps-interp": (PS_INTERP, "ps_6_0"), "ps-face": (PS_FACE, "ps_6_0"), "ps-mrt": (PS_MRT, "ps_6_0"),
                    "ps-discard": (PS_DISCARD, "ps_6_0"), "ps-tex": (PS_TEX, "ps_6_0"), "ps-lod": (PS_LOD, "ps_6_0"),
                    "ps-cmp": (PS_CMP, "ps_6_0"), "ps-store": (PS_STORE, "ps_6_0"), "ps-depth": (PS_DEPTH, "ps_6_0")}


DXIL_BUGS: dict[str, str] = {}


@pytest.mark.llvm
@pytest.mark.parametrize("name", [R.param(n, id=n, bug=DXIL_BUGS.get(n)) for n in GRAPHICS_SHADERS])
def test_graphics_dxil_builds(name):
    src, profile = GRAPHICS_SHADERS[name]
    R.build_dxil(src, profile=profile)


VS_UINT_ATTR = """
struct VIn { float2 pos : POSITION; uint tag : TAG; int delta : DELTA; };
struct VOut { float4 pos : SV_Position; nointerpolation uint tag : TAG; nointerpolation int delta : DELTA; };
VOut main(VIn i) { VOut o; o.pos = float4(i.pos, 0, 1); o.tag = i.tag; o.delta = i.delta; return o; }
"""
PS_UINT_ATTR = """
struct PIn { float4 pos : SV_Position; nointerpolation uint tag : TAG; nointerpolation int delta : DELTA; };
float4 main(PIn i) : SV_Target { return float4(i.tag / 255.0, (i.delta + 128) / 255.0, 0, 1); }
"""


def test_integer_vertex_attributes():
    vk = R.vk_runner()
    data = b""
    for (x0, x1), tag, delta in [((-1.0, 0.0), 200, -100), ((0.0, 1.0), 17, 60)]:
        for px, py in [(x0, -1), (x1, -1), (x0, 1), (x1, -1), (x1, 1), (x0, 1)]:
            data += struct.pack("<2fIi", px, py, tag, delta)
    vb = vk.VertexBuffer(data, 16, [(0, "float2", 0), (1, "uint", 8), (2, "int", 12)])
    px = R.draw(VS_UINT_ATTR, PS_UINT_ATTR, W, H, vertex_buffers=[vb], vertex_count=12)
    assert R.pixel(px, W, 1, 1) == (200, 28, 0, 255)
    assert R.pixel(px, W, 6, 6) == (17, 188, 0, 255)


VS_NESTED = """
struct Inner { float2 a : A; float c : C; };
struct VOut { float4 pos : SV_Position; Inner inner; float b : B; };
VOut main(uint id : SV_VertexID) {
    VOut o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(uv * 2.0 - 1.0, 0.0, 1.0);
    o.inner.a = uv; o.inner.c = 0.5; o.b = 0.25;
    return o;
}
"""
PS_NESTED = """
struct Inner { float2 a : A; float c : C; };
struct PIn { float4 pos : SV_Position; Inner inner; float b : B; };
float4 main(PIn i) : SV_Target { return float4(i.inner.a.x, i.inner.c, i.b, 1); }
"""


def test_nested_struct_stage_io():
    """Nested structs flatten in declaration order: A -> 0, C -> 1, B -> 2 on both sides."""
    res = R.build(VS_NESTED, profile="vs_6_0")
    assert [(e["semantic"], e.get("location")) for e in res.manifest["entry"]["outputs"]] == [
        ("SV_Position", None), ("A", 0), ("C", 1), ("B", 2)]
    px = R.draw(VS_NESTED, PS_NESTED, W, H)
    u, _v = uv_at(5, 2)
    assert near(R.pixel(px, W, 5, 2), (R.unorm8(u), R.unorm8(0.5), R.unorm8(0.25), 255))


VS_CB = """
cbuffer Xform : register(b0) { float2 scale; float2 offset; };
float4 main(uint id : SV_VertexID) : SV_Position {
    float2 uv = float2((id << 1) & 2, id & 2);
    return float4((uv * 2.0 - 1.0) * scale + offset, 0, 1);
}
"""


def test_vertex_shader_reads_cbuffer():
    """Scale 0.5 and offset (0.5, 0.5) shrink the full-screen triangle into the lower-right quadrant's corner."""
    specs = {"Xform": R.uniform(R.pack("f", [0.5, 0.5, 0.5, 0.5]))}
    px = R.draw(VS_CB, PS_SOLID, W, H, specs)
    assert R.pixel(px, W, 0, 0) == (0, 0, 0, 0)
    assert R.pixel(px, W, 4, 4) == (255, 255, 0, 255)
    assert R.pixel(px, W, 7, 7) == (255, 255, 0, 255)


VS_WAVE = """
cbuffer C : register(b0) { uint k; };
struct VOut { float4 pos : SV_Position; nointerpolation float4 c : COLOR0; };
VOut main(uint id : SV_VertexID) {
    VOut o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(uv * 2.0 - 1.0, 0.0, 1.0);
    // wave operations are allowed in every stage (SM 6.0); these give the same value in any wave shape
    uint first = WaveReadLaneFirst(k);                       // k is uniform
    bool all = WaveActiveAllTrue(k == 7);
    bool any_lane = WaveActiveAnyTrue(id < 3);
    uint lanes = WaveActiveCountBits(true);                  // 1..3 vertices of the one triangle in the wave
    bool count_ok = lanes >= 1 && lanes <= WaveGetLaneCount();
    o.c = float4(first / 255.0, all ? 1.0 : 0.0, any_lane ? 1.0 : 0.0, count_ok ? 1.0 : 0.0);
    return o;
}
"""
PS_WAVE = """
float4 main(float4 pos : SV_Position, nointerpolation float4 c : COLOR0) : SV_Target { return c; }
"""


def test_wave_operations_in_a_vertex_shader():
    """DXC allows wave intrinsics in every stage: a vertex shader's uniform reads and votes, drawn on
    lavapipe (and from the DXIL twins through dxil-spirv by R.draw)."""
    px = R.draw(VS_WAVE, PS_WAVE, W, H, {"C": R.uniform(R.pack("I", [7, 0, 0, 0]))})
    assert R.pixel(px, W, 3, 3) == (7, 255, 255, 255)


def test_quad_operations_outside_quads_are_located_errors():
    """Quad operations need 2x2 quads (pixel shaders, compute/mesh/amplification groups; DXIL.rst's op table)."""
    src = "float4 main(float4 p : POSITION) : SV_Position {\n    return QuadReadAcrossX(p);\n}\n"
    assert R.errors(R.compile_hlsl(src, "main", "vs_6_0")) == [
        "2:12: intrinsic 'QuadReadAcrossX' is not allowed in vertex shaders "
        "(allowed in: amplification, compute, mesh, pixel)"]
