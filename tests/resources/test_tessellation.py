"""Tessellation (hull + domain shaders) drawn on lavapipe, pixels compared with values computed here.

* A quad domain with fractional_odd partitioning and odd integer factors (where fractional_odd
  spacing makes equal segments): the pixel shader shows f(u) = u*u, interpolated across the
  generated triangles. Each triangle's vertices lie on the tessellated grid and f depends on u
  only, so the interpolated value is the piecewise-linear interpolation of f on the grid knots
  k/n whichever diagonal splits a cell: the expected colour of every pixel says how many segments
  the tessellator made (3, 5 and 7 give different colours).
* A triangle domain with a different outer factor per edge: the domain shader bulges the
  triangle outwards, so each edge becomes a polyline through its tessellated vertices and the
  covered pixels are the pixel centres inside that polygon (computed here by a point-in-polygon
  test, ignoring centres within a hair of an edge).
* SV_PrimitiveID through the hull shader (control-point and patch-constant functions) to the
  pixel colour of each of two patches.

Every draw runs twice: from the SPIR-V builds, and from the DXIL builds converted by dxil-spirv
(vkd3d-proton's DXIL front end), which must give the same pixels.
"""

from __future__ import annotations

import math

import pytest
import res_util as R
from harness import tools

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

W = H = 32

# control points pulled by SV_VertexID from a constant table (no vertex buffer)
VS = """
struct VSOut { float4 pos : POSITION0; };
static const float2 POINTS[8] = { CONTROL_POINTS };
VSOut main(uint id : SV_VertexID) { VSOut o; o.pos = float4(POINTS[id], 0, 1); return o; }
"""
PS_COLOR = """
float4 main(float4 pos : SV_Position, float4 color : COLOR0) : SV_Target { return color; }
"""

QUAD_HS = """
struct CP { float4 pos : POSITION0; };
struct PC { float edges[4] : SV_TessFactor; float inside[2] : SV_InsideTessFactor; };
PC constants(InputPatch<CP, 4> patch) {
    PC o;
    [unroll] for (int i = 0; i < 4; i++) o.edges[i] = FACTOR;
    o.inside[0] = FACTOR; o.inside[1] = FACTOR;
    return o;
}
[domain("quad")] [partitioning("fractional_odd")] [outputtopology("triangle_cw")]
[outputcontrolpoints(4)] [patchconstantfunc("constants")] [maxtessfactor(15.0)]
CP main(InputPatch<CP, 4> patch, uint i : SV_OutputControlPointID) { return patch[i]; }
"""
QUAD_DS = """
struct CP { float4 pos : POSITION0; };
struct PC { float edges[4] : SV_TessFactor; float inside[2] : SV_InsideTessFactor; };
struct DSOut { float4 pos : SV_Position; float4 color : COLOR0; };
[domain("quad")]
DSOut main(PC pc, float2 uv : SV_DomainLocation, const OutputPatch<CP, 4> p) {
    DSOut o;
    // corners 0..3 go around the quad: 0 -> 1 is u, 0 -> 3 is v
    o.pos = p[0].pos + uv.x * (p[1].pos - p[0].pos) + uv.y * (p[3].pos - p[0].pos);
    o.color = float4(uv.x * uv.x, uv.y * uv.y, 0, 1);
    return o;
}
"""


def build_stage(src: str, profile: str, defines: dict | None = None):
    """Compile to SPIR-V and validate it in both Vulkan environments the issue names."""
    res = R.compile_hlsl(src, "main", profile, "spirv", defines=defines)
    assert res.ok, R.diagnostics_text(res)
    tools.spirv_val(res.binary, "vulkan1.1")
    res13 = R.compile_hlsl(src, "main", profile, "spirv", env="vulkan1.3", defines=defines)
    assert res13.ok, R.diagnostics_text(res13)
    tools.spirv_val(res13.binary, "vulkan1.3")
    return res


def dxil_stage(src: str, profile: str, defines: dict | None = None) -> tuple[bytes, str]:
    """The DXIL build converted by dxil-spirv (after obj2yaml-19, llvm-dis-19 and spirv-val accept it)."""
    from dxil_run import consumer_spirv

    res = R.compile_hlsl(src, "main", profile, "dxil", defines=defines)
    assert res.ok, R.diagnostics_text(res)
    converted = consumer_spirv(res)
    assert converted is not None, "dxil-spirv did not convert the DXIL"
    return converted[0], converted[1]["entry"]


def draw_tess(control_points: list[tuple[float, float]], per_patch: int, hs: str, ds: str, ps: str,
              defines: dict | None = None, vs: str = VS) -> bytes:
    """Draw from the SPIR-V builds, then from the DXIL builds through dxil-spirv: the same pixels."""
    pts = ", ".join(f"float2({x!r}, {y!r})" for x, y in control_points + [(0.0, 0.0)] * (8 - len(control_points)))
    vs_src = vs.replace("CONTROL_POINTS", pts)
    vs = build_stage(vs_src, "vs_6_0")
    h = build_stage(hs, "hs_6_0", defines)
    d = build_stage(ds, "ds_6_0", defines)
    p = build_stage(ps, "ps_6_0")
    run = R.vk_runner().run_graphics
    px = run(vs.binary, "main", p.binary, "main", W, H, vertex_count=len(control_points),
             tessellation=(h.binary, "main", d.binary, "main", per_patch))
    import time

    from harness import dxil_consumer

    t0 = time.perf_counter()
    (vs2, vs_e), (hs2, hs_e), (ds2, ds_e), (ps2, ps_e) = (
        dxil_stage(vs_src, "vs_6_0"), dxil_stage(hs, "hs_6_0", defines), dxil_stage(ds, "ds_6_0", defines),
        dxil_stage(ps, "ps_6_0"))
    twin = run(vs2, vs_e, ps2, ps_e, W, H, vertex_count=len(control_points),
               tessellation=(hs2, hs_e, ds2, ds_e, per_patch))
    dxil_consumer.STATS.ran(t0)
    differ = [i // 4 for i in range(0, len(px), 4) if px[i:i + 4] != twin[i:i + 4]]
    assert not differ, (f"{len(differ)} pixels of the DXIL draw (through dxil-spirv) differ from the SPIR-V draw, "
                        f"first at {differ[0] % W, differ[0] // W}: {twin[differ[0] * 4:differ[0] * 4 + 4]} vs "
                        f"{px[differ[0] * 4:differ[0] * 4 + 4]}")
    return px


def piecewise_linear(f, n: int, x: float) -> float:
    """f interpolated linearly between the knots k/n."""
    k = min(int(x * n), n - 1)
    a, b = k / n, (k + 1) / n
    return f(a) + (f(b) - f(a)) * (x - a) * n


# the quad spans NDC [-1, 1] in both axes: u = (x + 0.5) / W at pixel x
QUAD = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]


@pytest.mark.parametrize("factor,semantic", [(3, "POSITION0"), (5, "POSITION0"), (7, "POSITION0"),
                                             (5, "SV_Position")])
def test_quad_fractional_odd_grid(factor, semantic):
    """(SV_Position control points: the Position built-in per control point in SPIR-V, an SV element
    of the control-point signatures in DXIL.)"""
    px = draw_tess(QUAD, 4, QUAD_HS.replace("POSITION0", semantic), QUAD_DS.replace("POSITION0", semantic),
                   PS_COLOR, {"FACTOR": f"{factor}.0"}, VS.replace("POSITION0", semantic))

    def sq(t: float) -> float:
        return t * t

    bad = []
    for y in range(H):
        for x in range(W):
            u, v = (x + 0.5) / W, (y + 0.5) / H
            want = (R.unorm8(piecewise_linear(sq, factor, u)), R.unorm8(piecewise_linear(sq, factor, v)), 0, 255)
            got = R.pixel(px, W, x, y)
            if any(abs(g - w) > 1 for g, w in zip(got, want)):
                bad.append(((x, y), got, want))
    assert not bad, f"{len(bad)} pixels differ from a {factor}x{factor} grid, e.g. {bad[:4]}"
    # and the grid is not some other odd count: the colours tell 3, 5 and 7 segments apart
    for other in (3, 5, 7):
        if other != factor:
            diff = sum(abs(R.pixel(px, W, x, 0)[0] - R.unorm8(piecewise_linear(sq, other, (x + 0.5) / W)))
                       for x in range(W))
            assert diff > W // 4, (factor, other, diff)


TRI_HS = """
struct CP { float4 pos : POSITION0; };
struct PC { float edges[3] : SV_TessFactor; float inside : SV_InsideTessFactor; };
PC constants(InputPatch<CP, 3> patch) {
    PC o;
    o.edges[0] = E0; o.edges[1] = E1; o.edges[2] = E2;
    o.inside = 3.0;
    return o;
}
[domain("tri")] [partitioning("integer")] [outputtopology("triangle_ccw")]
[outputcontrolpoints(3)] [patchconstantfunc("constants")]
CP main(InputPatch<CP, 3> patch, uint i : SV_OutputControlPointID) { return patch[i]; }
"""
TRI_DS = """
struct CP { float4 pos : POSITION0; };
struct PC { float edges[3] : SV_TessFactor; float inside : SV_InsideTessFactor; };
struct DSOut { float4 pos : SV_Position; float4 color : COLOR0; };
[domain("tri")]
DSOut main(PC pc, float3 b : SV_DomainLocation, const OutputPatch<CP, 3> p) {
    DSOut o;
    float2 q = b.x * p[0].pos.xy + b.y * p[1].pos.xy + b.z * p[2].pos.xy;
    float2 c = (p[0].pos.xy + p[1].pos.xy + p[2].pos.xy) / 3.0;
    float bulge = 1.0 + BULGE * (b.x * b.y + b.y * b.z + b.z * b.x);
    o.pos = float4(c + (q - c) * bulge, 0, 1);
    o.color = float4(1, 1, 1, 1);
    return o;
}
"""
TRI = [(-0.8, 0.7), (0.8, 0.7), (0.0, -0.8)]
BULGE = 1.5


def _bulged(b: tuple[float, float, float]) -> tuple[float, float]:
    q = [sum(w * p[k] for w, p in zip(b, TRI)) for k in (0, 1)]
    c = [sum(p[k] for p in TRI) / 3 for k in (0, 1)]
    s = 1.0 + BULGE * (b[0] * b[1] + b[1] * b[2] + b[2] * b[0])
    return c[0] + (q[0] - c[0]) * s, c[1] + (q[1] - c[1]) * s


def tri_outline(e0: int, e1: int, e2: int) -> list[tuple[float, float]]:
    """The patch's boundary after tessellation: edge i is where barycentric i is 0 (Vulkan's and
    D3D's TessLevelOuter[i] / SV_TessFactor[i]); with integer spacing it has e_i equal segments."""
    pts = []
    # edge 2 (w = 0): from corner 0 (1,0,0) to corner 1 (0,1,0); edge 0 (u = 0): corner 1 -> 2; edge 1 (v = 0): 2 -> 0
    for n, start, end in ((e2, (1, 0, 0), (0, 1, 0)), (e0, (0, 1, 0), (0, 0, 1)), (e1, (0, 0, 1), (1, 0, 0))):
        for k in range(n):
            t = k / n
            pts.append(_bulged(tuple(a + (b - a) * t for a, b in zip(start, end))))
    return pts


def _inside(poly, x, y) -> bool:
    inside = False
    for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1]):
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    return inside


def _near_edge(poly, x, y, eps: float) -> bool:
    for (x0, y0), (x1, y1) in zip(poly, poly[1:] + poly[:1]):
        dx, dy = x1 - x0, y1 - y0
        t = max(0.0, min(1.0, ((x - x0) * dx + (y - y0) * dy) / (dx * dx + dy * dy)))
        if math.hypot(x - x0 - t * dx, y - y0 - t * dy) < eps:
            return True
    return False


@pytest.mark.parametrize("edges", [(1, 2, 5), (6, 1, 3), (4, 4, 4)])
def test_triangle_domain_per_edge_factors(edges):
    px = draw_tess(TRI, 3, TRI_HS, TRI_DS, PS_COLOR,
                   {"E0": f"{edges[0]}.0", "E1": f"{edges[1]}.0", "E2": f"{edges[2]}.0", "BULGE": str(BULGE)})
    poly = tri_outline(*edges)
    covered = wrong = 0
    for y in range(H):
        for x in range(W):
            nx, ny = (x + 0.5) / W * 2 - 1, (y + 0.5) / H * 2 - 1
            if _near_edge(poly, nx, ny, 1e-3):
                continue
            want = _inside(poly, nx, ny)
            got = R.pixel(px, W, x, y)[0] == 255
            covered += want
            wrong += want != got
    assert covered > 100
    assert wrong == 0, f"{wrong} pixels differ from the tessellated outline for edge factors {edges}"
    # the outline itself depends on the factors: other factors would cover a different pixel count
    other = tri_outline(*(e + 1 for e in edges))
    assert sum(_inside(other, (x + 0.5) / W * 2 - 1, (y + 0.5) / H * 2 - 1) for y in range(H) for x in range(W)) \
        != covered


PRIM_HS = """
struct CP { float4 pos : POSITION0; };
struct HSOut { float4 pos : POSITION0; uint prim : PRIM; };
struct PC { float edges[3] : SV_TessFactor; float inside : SV_InsideTessFactor; float shade : SHADE; };
PC constants(InputPatch<CP, 3> patch, uint prim : SV_PrimitiveID) {
    PC o;
    o.edges[0] = 2.0; o.edges[1] = 2.0; o.edges[2] = 2.0; o.inside = 2.0;
    o.shade = 0.25 + 0.5 * prim;
    return o;
}
[domain("tri")] [partitioning("integer")] [outputtopology("triangle_cw")]
[outputcontrolpoints(3)] [patchconstantfunc("constants")]
HSOut main(InputPatch<CP, 3> patch, uint i : SV_OutputControlPointID, uint prim : SV_PrimitiveID) {
    HSOut o; o.pos = patch[i].pos; o.prim = prim * 100 + i; return o;
}
"""
PRIM_DS = """
struct CP { float4 pos : POSITION0; uint prim : PRIM; };
struct PC { float edges[3] : SV_TessFactor; float inside : SV_InsideTessFactor; float shade : SHADE; };
struct DSOut { float4 pos : SV_Position; float4 color : COLOR0; };
[domain("tri")]
DSOut main(PC pc, float3 b : SV_DomainLocation, const OutputPatch<CP, 3> p, uint prim : SV_PrimitiveID) {
    DSOut o;
    o.pos = b.x * p[0].pos + b.y * p[1].pos + b.z * p[2].pos;
    // control point 2 carries prim * 100 + 2 from the hull shader
    o.color = float4(pc.shade, (p[2].prim - 2) / 400.0, prim / 4.0, 1);
    return o;
}
"""


def test_primitive_id_through_hull_shader():
    # two patches: the left and the right half of the target
    tris = [(-1.0, -1.0), (-0.05, -1.0), (-1.0, 1.0), (0.05, -1.0), (1.0, -1.0), (1.0, 1.0)]
    px = draw_tess(tris, 3, PRIM_HS, PRIM_DS, PS_COLOR)
    for prim, (x, y) in ((0, (2, 4)), (1, (30, 10))):
        want = (R.unorm8(0.25 + 0.5 * prim), R.unorm8(prim * 100 / 400.0), R.unorm8(prim / 4.0), 255)
        assert R.pixel(px, W, x, y) == want, (prim, R.pixel(px, W, x, y), want)


CLIP_VS = """
struct VSOut { float4 pos : POSITION0; float clip : SV_ClipDistance0; };
static const float2 POINTS[8] = { CONTROL_POINTS };
VSOut main(uint id : SV_VertexID) { VSOut o; o.pos = float4(POINTS[id], 0, 1); o.clip = o.pos.x; return o; }
"""
CLIP_HS = """
struct CP { float4 pos : POSITION0; float clip : SV_ClipDistance0; };
struct PC { float edges[3] : SV_TessFactor; float inside : SV_InsideTessFactor; };
PC constants() { PC o; o.edges[0] = 1.0; o.edges[1] = 1.0; o.edges[2] = 1.0; o.inside = 1.0; return o; }
[domain("tri")] [partitioning("integer")] [outputtopology("triangle_cw")]
[outputcontrolpoints(3)] [patchconstantfunc("constants")]
CP main(InputPatch<CP, 3> patch, uint i : SV_OutputControlPointID) { return patch[i]; }
"""
CLIP_DS = """
struct CP { float4 pos : POSITION0; float clip : SV_ClipDistance0; };
struct PC { float edges[3] : SV_TessFactor; float inside : SV_InsideTessFactor; };
struct DSOut { float4 pos : SV_Position; float4 color : COLOR0; float2 clip : SV_ClipDistance0; };
[domain("tri")]
DSOut main(PC pc, float3 b : SV_DomainLocation, const OutputPatch<CP, 3> p) {
    DSOut o;
    o.pos = b.x * p[0].pos + b.y * p[1].pos + b.z * p[2].pos;
    o.color = float4(1, 0, 0, 1);
    // .x: the vertex shader's distance carried through both stages (clips x < 0); .y clips y < 0
    o.clip = float2(b.x * p[0].clip + b.y * p[1].clip + b.z * p[2].clip, o.pos.y);
    return o;
}
"""


def test_clip_distances_through_hull_and_domain_shaders():
    """SV_ClipDistance read and written per control point by the hull shader, read from the output patch
    and written by the domain shader: the quadrant x > 0, y > 0 of a full-screen pair of patches stays."""
    quad = [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
    px = draw_tess(quad, 3, CLIP_HS, CLIP_DS, PS_COLOR, vs=CLIP_VS)
    for y in range(H):
        for x in range(W):
            nx, ny = (x + 0.5) / W * 2 - 1, (y + 0.5) / H * 2 - 1
            want = (255, 0, 0, 255) if nx > 0 and ny > 0 else (0, 0, 0, 0)
            assert R.pixel(px, W, x, y) == want, (x, y, R.pixel(px, W, x, y))
