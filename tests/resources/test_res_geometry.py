"""Geometry shaders drawn offscreen on lavapipe (vertex + geometry + pixel), pixels read back and compared
with images computed here: a point-sprite GS (points -> quads), an instanced GS writing
SV_RenderTargetArrayIndex into a layered target, SV_PrimitiveID through the GS, and a two-stream GS
(stream 0 rasterized; stream 1 captured by transform feedback).  Every draw runs again from the DXIL twins
through dxil-spirv (res_util.draw); so does the capture of stream 1.
"""

from __future__ import annotations

import struct

import pytest
import res_util as R

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

W, H = 16, 16
CLEAR = (0, 0, 0, 0)

# four points at NDC (+-0.5, +-0.5), one colour channel each (vertex id 3: white)
VS_POINTS = """
struct VOut { float4 pos : SV_Position; nointerpolation float4 color : COLOR0; };
VOut main(uint id : SV_VertexID) {
    VOut o;
    o.pos = float4((id & 1) ? 0.5 : -0.5, (id & 2) ? 0.5 : -0.5, 0, 1);
    o.color = float4(id == 0 || id == 3, id == 1 || id == 3, id == 2 || id == 3, 1);
    return o;
}
"""
PS_COLOR = """
struct PIn { float4 pos : SV_Position; nointerpolation float4 color : COLOR0; };
float4 main(PIn i) : SV_Target { return i.color; }
"""
GS_SPRITE = """
struct V { float4 pos : SV_Position; nointerpolation float4 color : COLOR0; };
static const float2 corners[4] = { float2(-1, -1), float2(1, -1), float2(-1, 1), float2(1, 1) };

[maxvertexcount(4)]
void main(point V input[1], inout TriangleStream<V> quad) {
    for (uint i = 0; i < 4; i++) {
        V o = input[0];
        o.pos.xy += corners[i] * HALF;
        quad.Append(o);
    }
    quad.RestartStrip();
}
"""


def ndc_to_px(v: float, size: int) -> float:
    return (v + 1) / 2 * size


def sprite_image(half: float) -> list[tuple[int, int, int, int]]:
    """The expected RGBA8 pixels: each point's quad covers the pixel centres within `half` NDC of it."""
    want = [(0, 0, 0, 0)] * (W * H)
    for vid in range(4):
        cx, cy = (0.5 if vid & 1 else -0.5), (0.5 if vid & 2 else -0.5)
        color = (255 * (vid in (0, 3)), 255 * (vid in (1, 3)), 255 * (vid in (2, 3)), 255)
        for y in range(H):
            for x in range(W):
                if ndc_to_px(cx - half, W) <= x + 0.5 < ndc_to_px(cx + half, W) and \
                        ndc_to_px(cy - half, H) <= y + 0.5 < ndc_to_px(cy + half, H):
                    want[y * W + x] = color
    return want


def pixels(data: bytes, layer: int = 0) -> list[tuple[int, int, int, int]]:
    base = layer * W * H * 4
    return [tuple(data[base + i:base + i + 4]) for i in range(0, W * H * 4, 4)]


@pytest.mark.parametrize("half", [0.25, 0.125])
def test_point_sprite_expands_points_to_quads(half):
    px = R.draw(VS_POINTS, PS_COLOR, W, H, vertex_count=4, gs_src=GS_SPRITE.replace("HALF", repr(half)),
                topology="point_list")
    want = sprite_image(half)
    assert sum(p != (0, 0, 0, 0) for p in want) == 4 * int(half * W) ** 2   # the image is not empty
    assert pixels(px) == want


VS_FULL = """
struct VOut { float4 pos : SV_Position; };
VOut main(uint id : SV_VertexID) {
    VOut o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(uv * 2.0 - 1.0, 0.0, 1.0);
    return o;
}
"""
GS_LAYERS = """
struct VIn { float4 pos : SV_Position; };
struct VOut { float4 pos : SV_Position; nointerpolation float4 color : COLOR0;
              uint layer : SV_RenderTargetArrayIndex; };

[instance(3)]
[maxvertexcount(3)]
void main(triangle VIn tri[3], uint inst : SV_GSInstanceID, inout TriangleStream<VOut> s) {
    for (int i = 0; i < 3; i++) {
        VOut o;
        o.pos = tri[i].pos;
        o.color = float4(inst * 0.25, 1 - inst * 0.25, 0.5, 1);
        o.layer = inst;
        s.Append(o);
    }
}
"""
PS_LAYER = """
float4 main(float4 pos : SV_Position, nointerpolation float4 color : COLOR0) : SV_Target { return color; }
"""


def test_instanced_gs_writes_each_layer():
    px = R.draw(VS_FULL, PS_LAYER, W, H, gs_src=GS_LAYERS, layers=3)
    for layer in range(3):
        want = (R.unorm8(layer * 0.25), R.unorm8(1 - layer * 0.25), R.unorm8(0.5), 255)
        assert set(pixels(px, layer)) == {want}, layer


# six vertices: two triangles splitting the target along the diagonal from top right to bottom left
VS_HALVES = """
static const float2 corners[6] = { float2(-1, -1), float2(1, -1), float2(-1, 1),
                                   float2(1, -1), float2(1, 1), float2(-1, 1) };
float4 main(uint id : SV_VertexID) : SV_Position { return float4(corners[id], 0, 1); }
"""
GS_PRIMITIVE_ID = """
struct VOut { float4 pos : SV_Position; nointerpolation uint prim : PRIM; };
[maxvertexcount(3)]
void main(triangle float4 pos[3] : SV_Position, uint id : SV_PrimitiveID, inout TriangleStream<VOut> s) {
    [unroll] for (int i = 0; i < 3; i++) {
        VOut o;
        o.pos = pos[i];
        o.prim = id + 1;
        s.Append(o);
    }
    s.RestartStrip();
}
"""
PS_PRIMITIVE_ID = """
float4 main(float4 pos : SV_Position, nointerpolation uint prim : PRIM) : SV_Target {
    return float4(prim * 0.25, 0, 0, 1);
}
"""


def test_primitive_id_through_gs():
    px = R.draw(VS_HALVES, PS_PRIMITIVE_ID, W, H, vertex_count=6, gs_src=GS_PRIMITIVE_ID)
    got = pixels(px)
    for y in range(H):
        for x in range(W):
            if x + y == W - 1:
                continue        # centre on the shared edge
            prim = 0 if x + y < W - 1 else 1
            assert got[y * W + x] == (R.unorm8((prim + 1) * 0.25), 0, 0, 255), (x, y)


GS_TWO_STREAMS = """
struct V { float4 pos : SV_Position; nointerpolation float4 color : COLOR0; };
struct Side { float4 data : DATA0; };

[maxvertexcount(2)]
void main(point V input[1], uint id : SV_PrimitiveID, inout PointStream<V> s0, inout PointStream<Side> s1) {
    V v = input[0];
    v.pos.xy += 1.0 / 16;       // half a pixel: the point lands on a pixel centre
    s0.Append(v);
    Side side;
    side.data = float4(id, input[0].pos.xy, 7);
    s1.Append(side);
    s1.RestartStrip();
}
"""


def test_two_streams_rasterize_stream_zero():
    px = R.draw(VS_POINTS, PS_COLOR, W, H, vertex_count=4, gs_src=GS_TWO_STREAMS, topology="point_list")
    want = [(0, 0, 0, 0)] * (W * H)
    for vid in range(4):
        x, y = int(ndc_to_px(0.5 if vid & 1 else -0.5, W)), int(ndc_to_px(0.5 if vid & 2 else -0.5, H))
        # the point of size 1 at pixel centre (x + 0.5, y + 0.5) covers pixel (x, y) alone
        want[y * W + x] = (255 * (vid in (0, 3)), 255 * (vid in (1, 3)), 255 * (vid in (2, 3)), 255)
    assert pixels(px) == want


def test_two_streams_spirv_names_each_stream():
    dis = R.spirv_dis(R.build(GS_TWO_STREAMS, profile="gs_6_0"))
    assert "OpCapability GeometryStreams" in dis
    assert dis.count("OpEmitStreamVertex") == 2 and "OpEmitVertex" not in dis
    assert "OpEndStreamPrimitive" in dis
    assert "Stream 1" in dis and "Stream 0" not in dis


def xfb_capture(spirv: bytes, names: dict[str, int], stride: int) -> bytes:
    """The module with transform feedback declared, as a pipeline that captures a stream needs it in Vulkan
    (HLSL has no spelling for it: D3D declares stream output in the pipeline): capability TransformFeedback,
    execution mode Xfb, and XfbBuffer 0 / XfbStride / Offset on the output variables `names` (OpName -> byte
    offset in a captured vertex).  Instructions are inserted after the last of their section's kind."""
    words = list(struct.unpack(f"<{len(spirv) // 4}I", spirv))
    insts, i = [], 5
    while i < len(words):
        n = words[i] >> 16
        insts.append(words[i:i + n])
        i += n
    op = lambda ins: ins[0] & 0xFFFF  # noqa: E731
    ids = {}
    for ins in insts:
        if op(ins) == 5:                                  # OpName
            text = struct.pack(f"<{len(ins) - 2}I", *ins[2:]).split(b"\0")[0].decode()
            ids[text] = ins[1]
    entry = next(ins[2] for ins in insts if op(ins) == 15)

    def after_last(opcode: int, new: list[list[int]]) -> None:
        k = max(j for j, ins in enumerate(insts) if op(ins) == opcode)
        insts[k + 1:k + 1] = new

    after_last(17, [[2 << 16 | 17, 53]])                  # OpCapability TransformFeedback
    after_last(16, [[3 << 16 | 16, entry, 11]])           # OpExecutionMode %entry Xfb
    after_last(71, [d for name, off in names.items() for d in (
        [4 << 16 | 71, ids[name], 36, 0], [4 << 16 | 71, ids[name], 37, stride], [4 << 16 | 71, ids[name], 35, off])])
    out = words[:5] + [w for ins in insts for w in ins]
    return struct.pack(f"<{len(out)}I", *out)


def test_two_streams_capture_stream_one():
    """Stream 1 of the two-stream GS captured by transform feedback on lavapipe (the SPIR-V build and the DXIL
    build through dxil-spirv, each with the capture declared by xfb_capture): one vertex per point,
    (primitive id, input position xy, 7), in primitive order; stream 0 still rasterizes the same points."""
    from harness import tools
    vk = R.vk_runner()
    vs, ps = R.build(VS_POINTS, profile="vs_6_0"), R.build(PS_COLOR, profile="ps_6_0")
    gs = R.build(GS_TWO_STREAMS, profile="gs_6_0")
    captured = xfb_capture(gs.binary, {"out.DATA0": 0}, 16)
    tools.spirv_val(captured, "vulkan1.1")
    targets, data = vk.run_graphics(vs.binary, "main", ps.binary, "main", W, H, [], None, 4,
                                    gs=(captured, "main"), topology="point_list", xfb=4 * 16)
    want = []
    for vid in range(4):
        want += [float(vid), 0.5 if vid & 1 else -0.5, 0.5 if vid & 2 else -0.5, 7.0]
    assert list(struct.unpack("<16f", data)) == want
    plain = R.draw(VS_POINTS, PS_COLOR, W, H, vertex_count=4, gs_src=GS_TWO_STREAMS, topology="point_list")
    assert targets[0] == plain
    # the DXIL builds through dxil-spirv (which names the stream-1 output after its semantic) capture the same
    from harness import dxil_consumer
    conv = [dxil_consumer.to_spirv(R.build(src, profile=p, target="dxil").binary)
            for src, p in ((VS_POINTS, "vs_6_0"), (GS_TWO_STREAMS, "gs_6_0"), (PS_COLOR, "ps_6_0"))]
    entries = [tools.spirv_cross_reflect(c)["entryPoints"][0]["name"] for c in conv]
    dx_gs = xfb_capture(conv[1], {"DATA": 0}, 16)
    tools.spirv_val(dx_gs, "vulkan1.1")
    dx_targets, dx_data = vk.run_graphics(conv[0], entries[0], conv[2], entries[2], W, H, [], None, 4,
                                          gs=(dx_gs, entries[1]), topology="point_list", xfb=4 * 16)
    assert dx_data == data and dx_targets[0] == plain


# a triangle with adjacency: vertices 0, 2, 4 are the triangle (the left half of the target, split along the
# diagonal), 1, 3, 5 the neighbours, whose z carries a value the GS turns into the colour
VS_ADJ = """
static const float4 verts[6] = { float4(-1, -1, 0, 1), float4(9, 9, 0.25, 1), float4(1, -1, 0, 1),
                                  float4(9, 9, 0.5, 1), float4(-1, 1, 0, 1), float4(9, 9, 0.75, 1) };
float4 main(uint id : SV_VertexID) : SV_Position { return verts[id]; }
"""
GS_ADJ = """
struct O { float4 pos : SV_Position; nointerpolation float4 color : COLOR0; };
[maxvertexcount(3)]
void main(triangleadj float4 v[6] : SV_Position, inout TriangleStream<O> s) {
    [unroll] for (int i = 0; i < 6; i += 2) {
        O o;
        o.pos = v[i];
        o.color = float4(v[1].z, v[3].z, v[5].z, 1);
        s.Append(o);
    }
}
"""


def test_triangle_with_adjacency():
    px = R.draw(VS_ADJ, PS_COLOR, W, H, vertex_count=6, gs_src=GS_ADJ, topology="triangle_list_adjacency")
    got = pixels(px)
    for y in range(H):
        for x in range(W):
            if x + y == W - 1:
                continue            # centre on the diagonal edge
            want = (R.unorm8(0.25), R.unorm8(0.5), R.unorm8(0.75), 255) if x + y < W - 1 else (0, 0, 0, 0)
            assert got[y * W + x] == want, (x, y)
