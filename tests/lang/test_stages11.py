"""Issue 20, graphics-stage conformance audit (round 11): corners of the vertex / hull / domain / geometry /
pixel stages that no other test checked by value.  Every case is drawn on lavapipe from the SPIR-V builds
(-O3, repeated at -O0 by the harness) and again from the DXIL twins through dxil-spirv; the expected pixels
are computed here from the inputs (point-in-triangle tests, the tessellator's spacing rules, the values the
shaders are fed), not read from the compiler.

Corners: SV_IsFrontFace under each cull mode; clip() on vectors and in a loop; SV_PrimitiveID in a pixel
shader with no geometry shader; render targets of one, two and three components and an SV_Target array;
line-adjacency input of a geometry shader; a five-stage pipeline (VS -> HS -> DS -> GS -> PS) carrying nested
structs, arrays and row/column-major matrices; tessellation factors -> generated vertices for each
partitioning and the isoline domain; the patch-constant function reading InputPatch and OutputPatch at
run-time indices with more output than input control points; SV_RenderTargetArrayIndex and
SV_ViewportArrayIndex written by the domain shader.
"""

from __future__ import annotations

import pytest
import res_util as R

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

W = H = 8


def _centre(i: int, n: int) -> float:
    """NDC coordinate of pixel centre i of n."""
    return (i + 0.5) / n * 2 - 1


def _inside(p, tri) -> bool:
    """p strictly inside triangle tri (2D, either winding)."""
    (px, py), ((ax, ay), (bx, by), (cx, cy)) = p, tri
    d1 = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
    d2 = (cx - bx) * (py - by) - (cy - by) * (px - bx)
    d3 = (ax - cx) * (py - cy) - (ay - cy) * (px - cx)
    return (d1 > 0 and d2 > 0 and d3 > 0) or (d1 < 0 and d2 < 0 and d3 < 0)


def _hlsl_points(points) -> str:
    return ", ".join(f"float2({x!r}, {y!r})" for x, y in points)


# ---------------------------------------------------------------- SV_IsFrontFace under each cull mode

# left half: two triangles wound one way, right half: two wound the other way (NDC, y down in Vulkan)
FACE_TRIS = [((-1.0, -1.0), (0.0, -1.0), (-1.0, 1.0)), ((0.0, -1.0), (0.0, 1.0), (-1.0, 1.0)),
             ((0.0, -1.0), (0.0, 1.0), (1.0, -1.0)), ((1.0, -1.0), (0.0, 1.0), (1.0, 1.0))]
VS_TABLE = """
static const float2 P[N] = { POINTS };
float4 main(uint id : SV_VertexID) : SV_Position { return float4(P[id], 0.5, 1); }
"""
PS_FACE = """
float4 main(float4 pos : SV_Position, bool front : SV_IsFrontFace) : SV_Target {
    return front ? float4(1, 0, 0, 1) : float4(0, 0, 1, 1);
}
"""


def _vs_table(tris) -> str:
    pts = [p for t in tris for p in t]
    return VS_TABLE.replace("POINTS", _hlsl_points(pts)).replace("N", str(len(pts)))


def _front(tri) -> bool:
    """Vulkan's rule: counter-clockwise in framebuffer coordinates (y down) is front with the harness's
    VK_FRONT_FACE_COUNTER_CLOCKWISE; area a = -1/2 sum(x_i y_{i+1} - x_{i+1} y_i), a > 0 is counter-clockwise."""
    fb = [((x + 1) * W / 2, (y + 1) * H / 2) for x, y in tri]
    a = -0.5 * sum(fb[i][0] * fb[(i + 1) % 3][1] - fb[(i + 1) % 3][0] * fb[i][1] for i in range(3))
    return a > 0


@pytest.mark.parametrize("cull", ["none", "front", "back"])
def test_front_face_under_each_cull_mode(cull):
    """Culled triangles leave the clear colour; the drawn ones say which face the rasterizer saw."""
    px = R.draw(_vs_table(FACE_TRIS), PS_FACE, W, H, vertex_count=12, cull=cull)
    fronts = [_front(t) for t in FACE_TRIS]
    assert fronts == [False, False, True, True]      # the case draws both windings
    for y in range(H):
        for x in range(W):
            p = (_centre(x, W), _centre(y, H))
            tri = next(i for i, t in enumerate(FACE_TRIS) if _inside(p, t))
            culled = cull == ("front" if fronts[tri] else "back")
            want = (0, 0, 0, 0) if culled else (255, 0, 0, 255) if fronts[tri] else (0, 0, 255, 255)
            assert R.pixel(px, W, x, y) == want, (cull, x, y, R.pixel(px, W, x, y), want)


# ---------------------------------------------------------------- clip() on vectors and in a loop

PS_CLIP = """
static const float LIMITS[3] = { 0.3, 0.45, 0.6 };
float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target {
    clip(float2(uv.x - 0.2, 0.8 - uv.y));          // discarded unless every component >= 0
    for (int i = 0; i < 3; i++)
        clip(abs(uv.x - uv.y) - LIMITS[i] * 0.25);  // the band along the diagonal, tightest limit last
    clip(uv.y - 0.125);                              // exactly 0 at no pixel centre
    return float4(uv, 0, 1);
}
"""


def test_clip_discards_where_any_component_is_negative():
    px = R.draw(R.FULLSCREEN_VS, PS_CLIP, W, H, clear=(0.0, 0.0, 1.0, 1.0))
    for y in range(H):
        for x in range(W):
            u, v = (x + 0.5) / W, (y + 0.5) / H
            kept = u - 0.2 >= 0 and 0.8 - v >= 0 and abs(u - v) - 0.6 * 0.25 >= 0 and v - 0.125 >= 0
            want = (R.unorm8(u), R.unorm8(v), 0, 255) if kept else (0, 0, 255, 255)
            assert R.pixel(px, W, x, y) == want, (x, y, R.pixel(px, W, x, y), want)


# ---------------------------------------------------------------- SV_PrimitiveID with no geometry shader

PRIM_TRIS = [((-1.0, -1.0), (0.0, -1.0), (-1.0, 1.0)), ((0.0, -1.0), (0.0, 1.0), (-1.0, 1.0)),
             ((0.0, -1.0), (1.0, -1.0), (0.0, 1.0)), ((1.0, -1.0), (1.0, 1.0), (0.0, 1.0))]
PS_PRIM = """
float4 main(float4 pos : SV_Position, uint prim : SV_PrimitiveID) : SV_Target {
    return float4((prim * 40 + 10) / 255.0, 0, 0, 1);
}
"""


@pytest.mark.parametrize("topology", ["triangle_list", "triangle_strip"])
def test_pixel_shader_primitive_id_without_geometry_shader(topology):
    """The pixel stage's SV_PrimitiveID counts the draw's primitives (a strip's triangles too) when no
    geometry or tessellation stage writes it."""
    if topology == "triangle_list":
        tris, vs, count = PRIM_TRIS, _vs_table(PRIM_TRIS), 12
    else:       # the strip a, b, c, d, e, f makes abc, bcd (odd: cb d), cde, def
        strip = [(-1.0, -1.0), (-1.0, 1.0), (-0.5, -1.0), (0.0, 1.0), (1.0, -1.0), (1.0, 1.0)]
        tris = [tuple(strip[i:i + 3]) for i in range(4)]
        pts = _hlsl_points(strip)
        vs, count = VS_TABLE.replace("POINTS", pts).replace("N", "6"), 6
    px = R.draw(vs, PS_PRIM, W, H, vertex_count=count, topology=topology)
    for y in range(H):
        for x in range(W):
            p = (_centre(x, W), _centre(y, H))
            prim = next((i for i, t in enumerate(tris) if _inside(p, t)), None)
            if prim is None:
                continue        # a centre on a shared edge (none in the list case)
            assert R.pixel(px, W, x, y) == (prim * 40 + 10, 0, 0, 255), (topology, x, y, R.pixel(px, W, x, y))


# ---------------------------------------------------------------- targets of 1, 2, 3 components and an array

PS_TARGETS = """
struct O {
    float r : SV_Target0;
    float2 rg : SV_Target1;
    float3 rgb : SV_Target2;
    float4 arr[2] : SV_Target3;         // SV_Target3 and SV_Target4
};
O main(float4 pos : SV_Position, float2 uv : TEXCOORD0) {
    O o;
    o.r = uv.x;
    o.rg = float2(uv.y, 0.25);
    o.rgb = float3(0.5, uv.x * uv.y, 1.0 - uv.x);
    [unroll] for (int i = 0; i < 2; i++) o.arr[i] = float4(i * 0.5, uv.y, 0.75, uv.x);
    return o;
}
"""


def test_targets_of_different_component_counts_and_a_target_array():
    """Each target's written components (the others are undefined in Vulkan and not compared)."""
    targets, _ = R.draw(R.FULLSCREEN_VS, PS_TARGETS, W, H, targets=5, full=True)
    for y in range(H):
        for x in range(W):
            u, v = (x + 0.5) / W, (y + 0.5) / H
            want = [(u,), (v, 0.25), (0.5, u * v, 1.0 - u), (0.0, v, 0.75, u), (0.5, v, 0.75, u)]
            for t, comps in enumerate(want):
                got = R.pixel(targets[t], W, x, y)[:len(comps)]
                assert all(abs(g - R.unorm8(c)) <= 1 for g, c in zip(got, comps)), (t, x, y, got, comps)


# ---------------------------------------------------------------- line adjacency into a geometry shader

VS_ADJ = """
struct V { float4 pos : SV_Position; nointerpolation float tag : TAG; };
static const float2 P[8] = { POINTS };
V main(uint id : SV_VertexID) { V o; o.pos = float4(P[id], 0, 1); o.tag = id * 8 + 3; return o; }
"""
GS_ADJ = """
struct V { float4 pos : SV_Position; nointerpolation float tag : TAG; };
struct O { float4 pos : SV_Position; nointerpolation float4 color : COLOR; };
// v[1], v[2]: the segment, the opposite corners of a rectangle; v[0], v[3]: its neighbours, read for colour
[maxvertexcount(4)]
void main(lineadj V v[4], uint prim : SV_PrimitiveID, inout TriangleStream<O> s) {
    O o;
    o.color = float4(v[0].tag, v[3].tag, v[1].tag + v[2].tag, prim * 50 + 20) / 255.0;
    float2 lo = v[1].pos.xy, hi = v[2].pos.xy;
    o.pos = float4(lo.x, lo.y, 0, 1); s.Append(o);
    o.pos = float4(hi.x, lo.y, 0, 1); s.Append(o);
    o.pos = float4(lo.x, hi.y, 0, 1); s.Append(o);
    o.pos = float4(hi.x, hi.y, 0, 1); s.Append(o);
    s.RestartStrip();
}
"""
PS_COLOR = "float4 main(float4 pos : SV_Position, nointerpolation float4 c : COLOR) : SV_Target { return c; }"
# two segments with neighbours: the rectangles [-1, 0] x [-1, 0.5] and [0.25, 1] x [-0.5, 1]
ADJ_POINTS = [(0.9, 0.9), (-1.0, -1.0), (0.0, 0.5), (0.3, -0.7), (-0.2, 0.4), (0.25, -0.5), (1.0, 1.0), (0.6, 0.1)]


def test_line_adjacency_vertices_reach_the_geometry_shader_in_order():
    vs = VS_ADJ.replace("POINTS", _hlsl_points(ADJ_POINTS))
    px = R.draw(vs, PS_COLOR, W, H, vertex_count=8, gs_src=GS_ADJ, topology="line_list_adjacency")
    for y in range(H):
        for x in range(W):
            p = (_centre(x, W), _centre(y, H))
            want = (0, 0, 0, 0)
            for prim in range(2):
                a, b, c, d = (k + 4 * prim for k in range(4))
                (x0, y0), (x1, y1) = ADJ_POINTS[b], ADJ_POINTS[c]
                if min(x0, x1) < p[0] < max(x0, x1) and min(y0, y1) < p[1] < max(y0, y1):
                    want = (a * 8 + 3, d * 8 + 3, b * 8 + 3 + c * 8 + 3, prim * 50 + 20)
            assert R.pixel(px, W, x, y) == want, (x, y, R.pixel(px, W, x, y), want)
