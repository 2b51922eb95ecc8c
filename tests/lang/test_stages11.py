"""Issue 20, graphics-stage conformance audit (round 11): corners of the vertex / hull / domain / geometry /
pixel stages that no other test checked by value.  Every case is drawn on lavapipe from the SPIR-V builds
(-O3, repeated at -O0 by the harness) and again from the DXIL twins through dxil-spirv; the expected pixels
are computed here from the inputs (point-in-triangle tests, the tessellator's spacing rules, the values the
shaders are fed), not read from the compiler.

Corners: SV_IsFrontFace under each cull mode; clip() on vectors and in a loop; SV_PrimitiveID in a pixel
shader with no geometry shader (list and strip); render targets of one, two and three components and an
SV_Target array; line-adjacency input of a geometry shader; a five-stage pipeline (VS -> HS -> DS -> GS -> PS)
carrying nested structs, arrays and row/column-major matrices, with member semantics or one cascaded struct
semantic; tessellation factors -> generated vertices for each partitioning and the isoline domain; the
patch-constant function reading InputPatch and OutputPatch at run-time indices with more output than input
control points; SV_RenderTargetArrayIndex and SV_ViewportArrayIndex written by the domain shader (a fix: they
were Locations in SPIR-V); matrix and array vertex inputs from a vertex buffer in each API's layout; pixel
inputs and stage outputs indexed at run time; the winding of triangle_cw / triangle_ccw; incomplete GS strips;
SV_Depth of a discarded fragment; patches discarded by a zero / negative / NaN factor or an early return; 16-bit
stage I/O; GS instances into layers and viewports; 32-point patches and patch objects passed to helpers;
SV_CullDistance out of the domain and geometry stages; matrices and arrays in control points and patch
constants; out / inout entry parameters; clip distances indexed at run time (and the DXIL two-row limit);
system values nested in a struct between user values; SV_InstanceID from the vertex to the pixel stage.
A layer passed from the vertex to the geometry stage (a strict xfail until layer12: no Vulkan Layer input
there, and DXC's mapping reads 0).  Strict xfails: the pixel stage's SV_PrimitiveID after tessellation
(lavapipe), column-packed float[n] per-vertex elements (dxil-spirv's Component decoration fails spirv-val).

Not run here (the harness cannot): integer render targets (its targets are RGBA8_UNORM), depth or stencil with
multisampling, line and point rasterization rules, and the SPIR-V side of 16-bit stage I/O on lavapipe (no
storageInputOutput16).
"""

from __future__ import annotations

import time

import pytest
import res_util as R
from harness import tools

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


# ---------------------------------------------------------------- tessellated draws (VS -> HS -> DS [-> GS] -> PS)


def draw_tess(vs: str, hs: str, ds: str, ps: str, control_points: int, vertex_count: int, *, gs: str | None = None,
              **kw) -> list[bytes]:
    """draw_stages of a tessellated pipeline (hull and domain stages, optionally a geometry stage)."""
    stages = {"vs": (vs, "vs_6_0"), "hs": (hs, "hs_6_0"), "ds": (ds, "ds_6_0"), "ps": (ps, "ps_6_0")}
    if gs is not None:
        stages["gs"] = (gs, "gs_6_0")
    return draw_stages(stages, vertex_count, control_points=control_points, **kw)


def draw_stages(stages: dict[str, tuple[str, str]], vertex_count: int, *, control_points: int | None = None,
                width: int = W, height: int = H, targets: int = 1, defines: dict | None = None,
                options: dict | None = None, **kw) -> list[bytes]:
    """Every target's pixels of a draw whose stages are {'vs'|'hs'|'ds'|'gs'|'ps': (source, profile)} (entry
    points `main`; hs and ds with control_points per patch).  Each stage is built by res_util.build with the
    compile `options` (spirv-val, reflection, the checked DXIL twin; -O3 draws repeat at -O0); the DXIL twins
    draw again through dxil-spirv and must give the same pixels (a difference is a deferred DxilBug, as
    res_util.draw's)."""
    from dxil_run import consumer_spirv
    from harness import dxil_consumer

    built = {k: R.build(src, "main", profile, defines=defines, **(options or {}))
             for k, (src, profile) in stages.items()}

    def run(mods: dict[str, tuple[bytes, str]]) -> list[bytes]:
        tess = None if control_points is None else (*mods["hs"], *mods["ds"], control_points)
        got, _ = R.vk_runner().run_graphics(
            *mods["vs"], *mods["ps"], width, height, vertex_count=vertex_count, targets=targets, full=True,
            tessellation=tess, gs=mods.get("gs"), **kw)
        return got

    pixels = run({k: (r.binary, "main") for k, r in built.items()})
    t0 = time.perf_counter()
    twins = {k: R.twin_of(r) for k, r in built.items()}
    converted = {k: consumer_spirv(t) for k, t in twins.items() if t is not None}
    if len(converted) == len(built) and None not in converted.values():
        try:
            again = run({k: (c[0], c[1]["entry"]) for k, c in converted.items() if c is not None})
        except R.vk_runner().VulkanError as exc:
            R.defer(R.DxilBug(f"dxil-spirv's SPIR-V of the DXIL twins did not draw on lavapipe: {exc}"))
            return pixels
        dxil_consumer.STATS.ran(t0)
        for t, (got, want) in enumerate(zip(again, pixels)):
            if got != want:
                i = next(j for j in range(0, len(got), 4) if got[j:j + 4] != want[j:j + 4]) // 4
                R.defer(R.DxilBug(f"the DXIL draw through dxil-spirv differs in target {t}, first at pixel "
                                  f"({i % width}, {i // width}): DXIL {tuple(got[i * 4:i * 4 + 4])}, SPIR-V "
                                  f"{tuple(want[i * 4:i * 4 + 4])}"))
                break
    return pixels


# the control points and patch constants of a quad patch, and the hull shader's pass-through control-point phase
QUAD_DECLS = """
struct CP { float4 pos : POS; };
struct PC { float edges[4] : SV_TessFactor; float inside[2] : SV_InsideTessFactor; };
"""
QUAD_PASS_THROUGH = """
[domain("quad")] [partitioning("integer")] [outputtopology("triangle_cw")]
[outputcontrolpoints(4)] [patchconstantfunc("constants")]
CP main(InputPatch<CP, 4> patch, uint i : SV_OutputControlPointID) { return patch[i]; }
"""


# ---------------------------------------------------------------- five stages carrying structs, arrays, matrices

STRUCTS = """
#ifdef CASCADE          // the struct's semantic numbers its leaves TEXCOORD2, TEXCOORD3, ... in every stage
#define PL_SEMANTIC : TEXCOORD2
#else
#define PL_SEMANTIC
#endif
#ifdef SCALAR_ARRAY
struct Inner { float2 a : IA; float b[2] : IB; };
#else
struct Inner { float2 b[2] : IB; };
#endif
struct Payload { row_major float2x3 m : M; float3x2 n : N; Inner inner; };
struct V { float4 pos : POS; Payload pl PL_SEMANTIC; };
"""
VS5 = STRUCTS + """
static const float2 P[6] = { float2(-1, -1), float2(1, -1), float2(-1, 1), float2(1, -1), float2(1, 1), float2(-1, 1) };
float val(uint v, uint k) { return (v * 5 + k * 3) % 30; }
V main(uint id : SV_VertexID) {
    V o;
    o.pos = float4(P[id], 0, 1);
    for (uint r = 0; r < 2; r++) for (uint c = 0; c < 3; c++) o.pl.m[r][c] = val(id, r * 3 + c);
    for (uint r2 = 0; r2 < 3; r2++) for (uint c2 = 0; c2 < 2; c2++) o.pl.n[r2][c2] = val(id, 6 + r2 * 2 + c2);
#ifdef SCALAR_ARRAY
    o.pl.inner.a = float2(val(id, 12), val(id, 13));
    o.pl.inner.b[0] = val(id, 14);
    o.pl.inner.b[1] = val(id, 15);
#else
    o.pl.inner.b[0] = float2(val(id, 12), val(id, 13));
    o.pl.inner.b[1] = float2(val(id, 14), val(id, 15));
#endif
    return o;
}
"""
HS5 = STRUCTS + """
struct PC { float edges[3] : SV_TessFactor; float inside : SV_InsideTessFactor; };
PC constants() { PC o; o.edges[0] = 1; o.edges[1] = 1; o.edges[2] = 1; o.inside = 1; return o; }
[domain("tri")] [partitioning("integer")] [outputtopology("triangle_cw")]
[outputcontrolpoints(3)] [patchconstantfunc("constants")]
V main(InputPatch<V, 3> patch, uint i : SV_OutputControlPointID) {
    V o = patch[i];
    o.pl.n[2][1] += i;              // a matrix element of a struct member, written per control point
    return o;
}
"""
DS5 = STRUCTS + """
struct PC { float edges[3] : SV_TessFactor; float inside : SV_InsideTessFactor; };
struct DSOut { float4 pos : SV_Position; Payload pl PL_SEMANTIC; };
[domain("tri")]
DSOut main(PC pc, float3 b : SV_DomainLocation, const OutputPatch<V, 3> p) {
    DSOut o;
    o.pos = b.x * p[0].pos + b.y * p[1].pos + b.z * p[2].pos;
    o.pl.m = p[0].pl.m + 2 * p[1].pl.m + 4 * p[2].pl.m;
    o.pl.n = p[0].pl.n + 2 * p[1].pl.n + 4 * p[2].pl.n;
#ifdef SCALAR_ARRAY
    o.pl.inner.a = p[0].pl.inner.a + 2 * p[1].pl.inner.a + 4 * p[2].pl.inner.a;
#endif
    for (int k = 0; k < 2; k++)
        o.pl.inner.b[k] = p[0].pl.inner.b[k] + 2 * p[1].pl.inner.b[k] + 4 * p[2].pl.inner.b[k];
    return o;
}
"""
GS5 = STRUCTS + """
struct G { float4 pos : SV_Position; Payload pl PL_SEMANTIC; };
[maxvertexcount(3)]
void main(triangle G v[3], inout TriangleStream<G> s) {
    for (uint i = 0; i < 3; i++) {
        G o = v[i];
#ifdef SCALAR_ARRAY
        o.pl.inner.a = v[i].pl.inner.a.yx;      // swapped on the way through
#else
        o.pl.inner.b[0] = v[i].pl.inner.b[0].yx;
#endif
        s.Append(o);
    }
}
"""
PS5 = """
#ifdef CASCADE
#define PL_SEMANTIC : TEXCOORD2
#else
#define PL_SEMANTIC
#endif
#ifdef SCALAR_ARRAY
struct Inner { nointerpolation float2 a : IA; nointerpolation float b[2] : IB; };
#else
struct Inner { nointerpolation float2 b[2] : IB; };
#endif
struct Payload { nointerpolation row_major float2x3 m : M; nointerpolation float3x2 n : N; Inner inner; };
struct O { float4 t[4] : SV_Target0; };
O main(float4 pos : SV_Position, Payload pl PL_SEMANTIC) {
    O o;
    o.t[0] = float4(pl.m[0][0], pl.m[0][1], pl.m[0][2], pl.m[1][0]) / 255;
    o.t[1] = float4(pl.m[1][1], pl.m[1][2], pl.n[0][0], pl.n[0][1]) / 255;
    o.t[2] = float4(pl.n[1][0], pl.n[1][1], pl.n[2][0], pl.n[2][1]) / 255;
#ifdef SCALAR_ARRAY
    o.t[3] = float4(pl.inner.a, pl.inner.b[0], pl.inner.b[1]) / 255;
#else
    o.t[3] = float4(pl.inner.b[0], pl.inner.b[1]) / 255;
#endif
    return o;
}
"""


@pytest.mark.parametrize("cascade", [False, True], ids=["member-semantics", "cascaded-semantic"])
@pytest.mark.parametrize("inner", [
    "float2[2]",
    R.param("float2 + float[2]", id="float2 + float[2]",
            dxil="dxil-spirv declares a float[2] signature element that the packing put in the free column of "
                 "other rows (IB, or TEXCOORD7 when cascaded, at register 1, component w) as a per-vertex "
                 "float[2][n] input of the hull, domain and geometry shaders with a Component decoration, which "
                 "spirv-val rejects (VUID-StandaloneSpirv-Component-04924: Component on a type that is not a "
                 "scalar or vector); the pixel shader's non-arrayed float[2] input with Component passes.  DXC's "
                 "packer puts it there too (DxilSignatureAllocator.inl, PackPrefixStable -> PackNext -> FindNext: "
                 "first row, then first column; an arbitrary multi-row element may share the rows of an earlier "
                 "arbitrary one of its interpolation mode), so DXC's DXIL of this shader meets the same limit: "
                 "tests/dxil/test_dxil_signature12.py's model of DXC's packer places IB at (1, 3)"),
])
def test_five_stages_carry_nested_structs_arrays_and_matrices(inner, cascade):
    """Sixteen values per vertex in a row_major float2x3, a column_major float3x2 and the arrays of a nested
    struct (a float2[2], or a float2 and a float[2]): through the hull (one matrix element changed per control
    point), domain (weights 1, 2, 4 of the three control points), geometry (a swizzle) and pixel stages; each
    patch's pixels show the sums.  With cascade, the struct's own semantic (TEXCOORD2) numbers its leaves in every
    stage, matrix rows and array elements each taking an index."""
    d = {"SCALAR_ARRAY": "1"} if inner != "float2[2]" else {}
    if cascade:
        d["CASCADE"] = "1"
    targets = draw_tess(VS5, HS5, DS5, PS5, 3, 6, gs=GS5, targets=4, defines=d)

    def expected(patch: int) -> list[int]:
        out = []
        for k in range(16):
            total = sum(w * ((v * 5 + k * 3) % 30) for w, v in zip((1, 2, 4), range(3 * patch, 3 * patch + 3)))
            out.append(total + (sum(w * i for w, i in zip((1, 2, 4), range(3))) if k == 11 else 0))
        out[12], out[13] = out[13], out[12]
        return out

    for y in range(H):
        for x in range(W):
            if x + y == W - 1:
                continue            # on the diagonal the two patches share
            want = expected(0 if x + y < W - 1 else 1)
            got = [c for t in targets for c in R.pixel(t, W, x, y)]
            assert got == want, (x, y, got, want)


# ---------------------------------------------------------------- tessellation factors -> generated vertices

G = 13      # the target is G x G; a domain location (u, v) is drawn as the pixel (round(12 u), round(12 v))
VS_CP = """
struct CP { float4 pos : POS; };
CP main(uint id : SV_VertexID) { CP o; o.pos = float4(id, 0, 0, 1); return o; }
"""
HS_POINTS = """
struct CP { float4 pos : POS; };
struct PC { float edges[EDGES] : SV_TessFactor; INSIDE_DECL };
PC constants() {
    const float e[4] = { OUTER };
    PC o;
    [unroll] for (int i = 0; i < EDGES; i++) o.edges[i] = e[i];
    INSIDE_SET
    return o;
}
[domain("DOMAIN")] [partitioning("PARTITIONING")] [outputtopology("point")]
[outputcontrolpoints(4)] [patchconstantfunc("constants")]
CP main(InputPatch<CP, 4> patch, uint i : SV_OutputControlPointID) { return patch[i]; }
"""
DS_POINTS = """
struct CP { float4 pos : POS; };
struct PC { float edges[EDGES] : SV_TessFactor; INSIDE_DECL };
struct O { float4 pos : SV_Position; };
[domain("DOMAIN")]
O main(PC pc, float2 uv : SV_DomainLocation, const OutputPatch<CP, 4> p) {
    O o;
    o.pos = float4((floor(uv * 12 + 0.5) + 0.5) / 13 * 2 - 1, 0, 1);
    return o;
}
"""
GS_SPRITE = """
struct O { float4 pos : SV_Position; };
[maxvertexcount(4)]
void main(point O v[1], inout TriangleStream<O> s) {
    const float h = 1.0 / 13;       // half a pixel in NDC
    O o;
    o.pos = v[0].pos + float4(-h, -h, 0, 0); s.Append(o);
    o.pos = v[0].pos + float4(h, -h, 0, 0); s.Append(o);
    o.pos = v[0].pos + float4(-h, h, 0, 0); s.Append(o);
    o.pos = v[0].pos + float4(h, h, 0, 0); s.Append(o);
}
"""
PS_WHITE = "float4 main(float4 pos : SV_Position) : SV_Target { return 1; }"


def _segments(factor: float, partitioning: str) -> int:
    """Segments of an edge whose factor needs no fractional placement (D3D and Vulkan spacing rules):
    integer rounds up, fractional_odd / fractional_even round up to odd / even."""
    n = -(-factor // 1)
    if partitioning == "fractional_odd" and n % 2 == 0 or partitioning == "fractional_even" and n % 2:
        n += 1
    return int(n)


def _quad_points(outer, inside, partitioning) -> set[tuple[float, float]]:
    """Domain locations of a quad patch: edge i (u = 0, v = 0, u = 1, v = 1) split by outer[i], the
    interior grid by inside[0] along u and inside[1] along v."""
    e = [_segments(f, partitioning) for f in outer]
    iu, iv = (_segments(f, partitioning) for f in inside)
    pts = {(0.0, k / e[0]) for k in range(e[0] + 1)} | {(k / e[1], 0.0) for k in range(e[1] + 1)}
    pts |= {(1.0, k / e[2]) for k in range(e[2] + 1)} | {(k / e[3], 1.0) for k in range(e[3] + 1)}
    return pts | {(i / iu, j / iv) for i in range(1, iu) for j in range(1, iv)}


def _isoline_points(outer, partitioning) -> set[tuple[float, float]]:
    """outer[0] is the line density (lines at v = j / n, j < n, always integer spacing), outer[1] the line
    detail (segments along u, by the partitioning)."""
    lines, detail = _segments(outer[0], "integer"), _segments(outer[1], partitioning)
    return {(k / detail, j / lines) for k in range(detail + 1) for j in range(lines)}


TESS_POINT_CASES = {
    "quad-integer": ("quad", "integer", (1.5, 2.2, 4.0, 5.5), (2.7, 3.1)),
    "quad-fractional_even": ("quad", "fractional_even", (2.0, 4.0, 6.0, 2.0), (4.0, 2.0)),
    "quad-fractional_odd": ("quad", "fractional_odd", (1.0, 3.0, 1.0, 3.0), (3.0, 1.0)),
    "isoline-integer": ("isoline", "integer", (2.5, 3.2), None),
    "isoline-fractional_odd": ("isoline", "fractional_odd", (2.0, 3.0), None),
    "isoline-fractional_even": ("isoline", "fractional_even", (4.0, 6.0), None),
}


@pytest.mark.parametrize("case", list(TESS_POINT_CASES))
def test_tess_factors_give_the_generated_vertices(case):
    """The hull shader asks for point output: each generated vertex is drawn as one pixel at its domain
    location, so the image is the set of vertices the tessellator made for the factors and partitioning."""
    domain, partitioning, outer, inside = TESS_POINT_CASES[case]
    edges = len(outer)
    subs = {"DOMAIN": domain, "PARTITIONING": partitioning, "EDGES": str(edges),
            "OUTER": ", ".join(repr(f) for f in (*outer, 0.0, 0.0)[:4]),
            "INSIDE_DECL": "float inside[2] : SV_InsideTessFactor;" if inside else "",
            "INSIDE_SET": f"o.inside[0] = {inside[0]!r}; o.inside[1] = {inside[1]!r};" if inside else ""}
    hs, ds = HS_POINTS, DS_POINTS
    for k, v in subs.items():
        hs, ds = hs.replace(k, v), ds.replace(k, v)
    (px,) = draw_tess(VS_CP, hs, ds, PS_WHITE, 4, 4, gs=GS_SPRITE, width=G, height=G)
    pts = _quad_points(outer, inside, partitioning) if domain == "quad" else _isoline_points(outer, partitioning)
    want = {(int(u * 12 + 0.5), int(v * 12 + 0.5)) for u, v in pts}
    got = {(x, y) for y in range(G) for x in range(G) if R.pixel(px, G, x, y) != (0, 0, 0, 0)}
    assert got == want, (sorted(got - want), sorted(want - got))
    assert {R.pixel(px, G, x, y) for x, y in got} == {(255, 255, 255, 255)}


# ---------------------------------------------------------------- patch constants read both patches at run-time indices

VS_PATCH = """
struct CP { float4 pos : POS; float val : VAL; uint count : COUNT; };
static const float2 P[6] = { float2(-1, -1), float2(0, -1), float2(-1, 1), float2(0, -1), float2(1, -1), float2(0, 1) };
CP main(uint id : SV_VertexID) {
    CP o;
    o.pos = float4(P[id], 0, 1);
    o.val = id * 4 + 1;
    o.count = id < 3 ? 2 : 4;       // how many output control points the patch constants add up
    return o;
}
"""
HS_PATCH = """
struct CP { float4 pos : POS; float val : VAL; uint count : COUNT; };
struct PC { float edges[4] : SV_TessFactor; float inside[2] : SV_InsideTessFactor; float3 tint : TINT; };
PC constants(InputPatch<CP, 3> ip, const OutputPatch<CP, 4> op, uint pid : SV_PrimitiveID) {
    PC o;
    [unroll] for (int e = 0; e < 4; e++) o.edges[e] = 1;
    o.inside[0] = 1; o.inside[1] = 1;
    float sum = 0;
    for (uint i = 0; i < ip[0].count; i++)      // a run-time bound: op[i] at a run-time index
        sum += op[i].val;
    o.tint = float3(sum, ip[pid % 3].val, op[3 - pid].val);
    return o;
}
// three control points in, four out: the fourth completes the parallelogram
[domain("quad")] [partitioning("integer")] [outputtopology("triangle_cw")]
[outputcontrolpoints(4)] [patchconstantfunc("constants")]
CP main(InputPatch<CP, 3> patch, uint i : SV_OutputControlPointID) {
    CP o;
    if (i < 3) {
        o = patch[i];
        o.val = patch[i].val * 2;
    } else {
        o = patch[0];
        o.pos = patch[1].pos + patch[2].pos - patch[0].pos;
        o.val = patch[1].val + patch[2].val - patch[0].val;
    }
    return o;
}
"""
DS_PATCH = """
struct CP { float4 pos : POS; float val : VAL; uint count : COUNT; };
struct PC { float edges[4] : SV_TessFactor; float inside[2] : SV_InsideTessFactor; float3 tint : TINT; };
struct O { float4 pos : SV_Position; nointerpolation float4 color : COLOR; };
[domain("quad")]
O main(PC pc, float2 uv : SV_DomainLocation, const OutputPatch<CP, 4> p) {
    O o;
    o.pos = p[0].pos + uv.x * (p[1].pos - p[0].pos) + uv.y * (p[2].pos - p[0].pos);
    float sum = 0;
    for (uint k = 0; k < p[0].count; k++)      // the domain shader too reads the output patch at run-time indices
        sum += p[k].val;
    o.color = float4(pc.tint, sum) / 255;
    return o;
}
"""


def test_patch_constants_read_input_and_output_patches_at_run_time_indices():
    """Two patches of three control points (the left and right halves' lower-left triangles) each become a
    four-point patch (the half); the patch-constant function sums a run-time count of output control points
    and reads both patches at indices from SV_PrimitiveID; the domain shader shows the result and sums the same
    output control points itself."""
    (px,) = draw_tess(VS_PATCH, HS_PATCH, DS_PATCH, PS_COLOR, 3, 6)
    for pid in range(2):
        ins = [(3 * pid + i) * 4 + 1 for i in range(3)]
        outs = [2 * v for v in ins] + [ins[1] + ins[2] - ins[0]]
        count = 2 if pid == 0 else 4
        want = (sum(outs[:count]), ins[pid % 3], outs[3 - pid], sum(outs[:count]))
        for y in range(H):
            for x in range(pid * W // 2, (pid + 1) * W // 2):
                assert R.pixel(px, W, x, y) == want, (pid, x, y, R.pixel(px, W, x, y), want)


# ---------------------------------------------------------------- layer and viewport written by the domain shader

DS_LAYER = QUAD_DECLS + """
struct O {
    float4 pos : SV_Position;
    nointerpolation uint pid : PID;
    uint layer : SV_RenderTargetArrayIndex;
    uint vp : SV_ViewportArrayIndex;
};
[domain("quad")]
O main(PC pc, float2 uv : SV_DomainLocation, const OutputPatch<CP, 4> p, uint pid : SV_PrimitiveID) {
    O o;
    o.pos = float4(uv * 2 - 1, 0, 1);
    o.pid = pid;
    o.layer = pid;          // patch 0 -> layer 0, viewport 1; patch 1 -> layer 1, viewport 0
    o.vp = 1 - pid;
    return o;
}
"""
HS_QUAD1 = QUAD_DECLS + """
PC constants() {
    PC o;
    [unroll] for (int e = 0; e < 4; e++) o.edges[e] = 2;
    o.inside[0] = 2; o.inside[1] = 2;
    return o;
}
""" + QUAD_PASS_THROUGH
PS_LAYER = """
float4 main(float4 pos : SV_Position, nointerpolation uint pid : PID, uint layer : SV_RenderTargetArrayIndex,
            uint vp : SV_ViewportArrayIndex) : SV_Target {
    return float4(pid * 100 + 20, layer * 100 + 30, vp * 100 + 40, 255) / 255;
}
"""


def test_domain_shader_writes_layer_and_viewport():
    """SV_RenderTargetArrayIndex and SV_ViewportArrayIndex from the domain stage (Vulkan: Layer and ViewportIndex
    in the tessellation evaluation stage, the shaderOutputLayer / shaderOutputViewportIndex features): each
    patch lands in its layer, in its viewport's half, and the pixel shader reads both back."""
    (px,) = draw_tess(VS_CP, HS_QUAD1, DS_LAYER, PS_LAYER, 4, 8, layers=2, viewports=2)
    for layer in range(2):
        pid, vp = layer, 1 - layer
        img = px[layer * W * H * 4:(layer + 1) * W * H * 4]
        for y in range(H):
            for x in range(W):
                inside = vp * W // 2 <= x < (vp + 1) * W // 2
                want = (pid * 100 + 20, layer * 100 + 30, vp * 100 + 40, 255) if inside else (0, 0, 0, 0)
                assert R.pixel(img, W, x, y) == want, (layer, x, y, R.pixel(img, W, x, y), want)


# ---------------------------------------------------------------- matrix and array vertex inputs from a vertex buffer

VS_MATRIX_INPUT = """
struct VIn { float2 pos : POSITION; float2x3 m : M; row_major float2x3 r : R; float a[2] : ARR; };
struct VOut { float4 pos : SV_Position; float4 c[4] : COLOR; };
VOut main(VIn i) {
    VOut o;
    o.pos = float4(i.pos, 0, 1);
    o.c[0] = float4(i.m[0][0], i.m[0][1], i.m[0][2], i.m[1][0]) / 255;
    o.c[1] = float4(i.m[1][1], i.m[1][2], i.r[0][0], i.r[0][1]) / 255;
    o.c[2] = float4(i.r[0][2], i.r[1][0], i.r[1][1], i.r[1][2]) / 255;
    o.c[3] = float4(i.a[0], i.a[1], 0, 255) / 255;
    return o;
}
"""
PS_MATRIX_INPUT = """
struct O { float4 t[4] : SV_Target0; };
O main(float4 pos : SV_Position, nointerpolation float4 c[4] : COLOR) { O o; o.t = c; return o; }
"""


def test_matrix_and_array_vertex_inputs_from_a_vertex_buffer():
    """A column_major and a row_major float2x3 and a float[2] read from a vertex buffer.  The two targets lay the
    attributes out differently, as their APIs do: in SPIR-V (DXC's convention) a float2x3 is a mat2v3, one
    Location per HLSL row whatever the packing; in DXIL a column_major matrix is one signature row (D3D input
    element) per column, a row_major one per row.  The test writes each layout itself and both draws must show
    the fourteen values (the DXIL draw goes through dxil-spirv, its input Locations read from its reflection)."""
    from dxil_run import consumer_spirv
    vals = [10 + 13 * j for j in range(14)]
    m = [vals[0:3], vals[3:6]]
    r = [vals[6:9], vals[9:12]]
    a = vals[12:14]
    corners = [(-1.0, -1.0), (3.0, -1.0), (-1.0, 3.0)]
    vk = R.vk_runner()
    vs, ps = R.build(VS_MATRIX_INPUT, "main", "vs_6_0"), R.build(PS_MATRIX_INPUT, "main", "ps_6_0")
    # SPIR-V: pos | M row 0 | M row 1 | R row 0 | R row 1 | a[0] | a[1]
    spirv_vertex = [*m[0], *m[1], *r[0], *r[1], *a]
    locs = {(e["semantic"], e["index"]): e["location"] for e in vs.manifest["entry"]["inputs"]}
    spirv_vb = vk.VertexBuffer(b"".join(R.pack("f", [*c, *spirv_vertex]) for c in corners), 64, [
        (locs["POSITION", 0], "float2", 0), (locs["M", 0], "float3", 8), (locs["M", 0] + 1, "float3", 20),
        (locs["R", 0], "float3", 32), (locs["R", 0] + 1, "float3", 44), (locs["ARR", 0], "float", 56),
        (locs["ARR", 0] + 1, "float", 60)])
    # D3D: pos | M column 0, 1, 2 (float2 each) | R row 0 | R row 1 | a[0] | a[1]
    d3d_vertex = [m[0][0], m[1][0], m[0][1], m[1][1], m[0][2], m[1][2], *r[0], *r[1], *a]
    want = [(vals[0], vals[1], vals[2], vals[3]), (vals[4], vals[5], vals[6], vals[7]),
            (vals[8], vals[9], vals[10], vals[11]), (vals[12], vals[13], 0, 255)]

    def check(targets: list[bytes], who: str) -> None:
        for t, w in enumerate(want):
            assert {R.pixel(targets[t], W, x, y) for y in range(H) for x in range(W)} == {w}, (who, t, w)

    targets, _ = vk.run_graphics(vs.binary, "main", ps.binary, "main", W, H, vertex_buffers=[spirv_vb], targets=4,
                                 full=True)
    check(targets, "SPIR-V")
    converted = [consumer_spirv(t) for t in (R.twin_of(vs), R.twin_of(ps)) if t is not None]
    assert len(converted) == 2 and None not in converted, "no checked DXIL twin"
    (vs2, vs_facts), (ps2, ps_facts) = converted
    theirs = {e["name"]: e["location"] for e in vs_facts["reflect"]["inputs"]}
    d3d_vb = vk.VertexBuffer(b"".join(R.pack("f", [*c, *d3d_vertex]) for c in corners), 64, [
        (theirs["POSITION"], "float2", 0), *((theirs["M"] + k, "float2", 8 + 8 * k) for k in range(3)),
        (theirs["R"], "float3", 32), (theirs["R"] + 1, "float3", 44), (theirs["ARR"], "float", 56),
        (theirs["ARR"] + 1, "float", 60)])
    targets, _ = vk.run_graphics(vs2, vs_facts["entry"], ps2, ps_facts["entry"], W, H, vertex_buffers=[d3d_vb],
                                 targets=4, full=True)
    check(targets, "DXIL through dxil-spirv")


# ---------------------------------------------------------------- pixel inputs indexed at run time

VS_ROWS = """
struct VOut { float4 pos : SV_Position; float4 c[3] : COLOR; row_major float3x4 m : MAT; };
VOut main(uint id : SV_VertexID) {
    VOut o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(uv * 2 - 1, 0, 1);
    for (uint k = 0; k < 3; k++) {
        o.c[k] = float4(k * 40 + 10, k * 40 + 20, k * 40 + 30, 255) / 255;
        o.m[k] = float4(k * 30 + 5, 200 - k * 50, k * 7 + 1, 255) / 255;
    }
    return o;
}
"""
PS_ROWS = """
float4 main(float4 pos : SV_Position, nointerpolation float4 c[3] : COLOR, nointerpolation row_major float3x4 m : MAT)
    : SV_Target {
    uint k = uint(pos.x) % 3;                  // a run-time index: the pixel's column
    uint j = uint(pos.y) % 3;
    return float4(c[k].x, c[j].y, m[k].y, m[j][(k + j) % 3]);
}
"""


def test_pixel_inputs_indexed_at_run_time():
    """An input array and the rows of a row_major matrix input read at indices computed from SV_Position."""
    px = R.draw(VS_ROWS, PS_ROWS, W, H)
    c = [(k * 40 + 10, k * 40 + 20, k * 40 + 30, 255) for k in range(3)]
    m = [(k * 30 + 5, 200 - k * 50, k * 7 + 1, 255) for k in range(3)]
    for y in range(H):
        for x in range(W):
            k, j = x % 3, y % 3
            want = (c[k][0], c[j][1], m[k][1], m[j][(k + j) % 3])
            assert R.pixel(px, W, x, y) == want, (x, y, R.pixel(px, W, x, y), want)


# ---------------------------------------------------------------- winding of the tessellator's triangles

HS_WINDING = """
struct CP { float4 pos : POS; };
struct PC { float edges[EDGES] : SV_TessFactor; float inside INSIDE : SV_InsideTessFactor; };
PC constants() {
    PC o;
    [unroll] for (int e = 0; e < EDGES; e++) o.edges[e] = 2;
    o.inside = 2;
    return o;
}
[domain("DOMAIN")] [partitioning("integer")] [outputtopology("TOPOLOGY")]
[outputcontrolpoints(4)] [patchconstantfunc("constants")]
CP main(InputPatch<CP, 4> patch, uint i : SV_OutputControlPointID) { return patch[i]; }
"""
DS_WINDING = """
struct CP { float4 pos : POS; };
struct PC { float edges[EDGES] : SV_TessFactor; float inside INSIDE : SV_InsideTessFactor; };
struct O { float4 pos : SV_Position; };
[domain("DOMAIN")]
O main(PC pc, LOCATION_TYPE loc : SV_DomainLocation, const OutputPatch<CP, 4> p) {
    O o;
    o.pos = float4(POSITION, 0, 1);
    return o;
}
"""
PS_FACING = "float4 main(float4 p : SV_Position, bool f : SV_IsFrontFace) : SV_Target { return f ? float4(1, 0, 0, 1) : float4(0, 0, 1, 1); }"
WINDING_DOMAINS = {
    # the whole target: (u, v) -> (x, y) = (2u - 1, 2v - 1) (y down)
    "quad": {"EDGES": "4", "INSIDE": "[2]", "LOCATION_TYPE": "float2", "POSITION": "loc * 2 - 1"},
    # barycentrics (b0, b1, b2) -> corners (-1, -1), (3, -1), (-1, 3), covering the target
    "tri": {"EDGES": "3", "INSIDE": "", "LOCATION_TYPE": "float3",
            "POSITION": "loc.x * float2(-1, -1) + loc.y * float2(3, -1) + loc.z * float2(-1, 3)"},
}


@pytest.mark.parametrize("domain", list(WINDING_DOMAINS))
def test_output_topology_winding_gives_the_facing(domain):
    """triangle_cw and triangle_ccw give every generated triangle one facing, opposite to each other, and culling
    that face leaves nothing.  Which facing is cw is not computed here: SPIR-V takes DXC's mapping (VertexOrderCw /
    VertexOrderCcw), and the DXIL twin through dxil-spirv must agree with it pixel for pixel."""
    subs = dict(WINDING_DOMAINS[domain], DOMAIN=domain)
    seen = {}
    for topology in ("triangle_cw", "triangle_ccw"):
        hs, ds = HS_WINDING.replace("TOPOLOGY", topology), DS_WINDING
        for k, v in subs.items():
            hs, ds = hs.replace(k, v), ds.replace(k, v)
        if domain == "quad":
            hs = hs.replace("o.inside = 2;", "o.inside[0] = 2; o.inside[1] = 2;")
        (px,) = draw_tess(VS_CP, hs, ds, PS_FACING, 4, 4)
        colours = {R.pixel(px, W, x, y) for y in range(H) for x in range(W)}
        assert len(colours) == 1 and colours <= {(255, 0, 0, 255), (0, 0, 255, 255)}, (topology, colours)
        seen[topology] = colours.pop()
        (culled,) = draw_tess(VS_CP, hs, ds, PS_FACING, 4, 4, cull="front" if seen[topology][0] else "back")
        assert set(culled) == {0}, topology
    assert seen["triangle_cw"] != seen["triangle_ccw"]


# ---------------------------------------------------------------- geometry shader: incomplete strips are dropped

GS_STRIPS = """
struct O { float4 pos : SV_Position; nointerpolation float4 color : COLOR; };
void put(inout TriangleStream<O> s, float2 p, float4 color) { O o; o.pos = float4(p, 0, 1); o.color = color; s.Append(o); }
[maxvertexcount(8)]
void main(triangle float4 v[3] : SV_Position, uint id : SV_PrimitiveID, inout TriangleStream<O> s) {
    if (id == 0) {          // a strip of four vertices: the upper-left quadrant
        const float4 red = float4(1, 0, 0, 1);
        put(s, float2(-1, -1), red); put(s, float2(0, -1), red); put(s, float2(-1, 0), red); put(s, float2(0, 0), red);
    } else {
        const float4 green = float4(0, 1, 0, 1);
        put(s, float2(-1, 0.25), green); put(s, float2(1, 0.25), green);        // two vertices: no triangle
        s.RestartStrip();
        put(s, float2(0, 0.5), green); put(s, float2(1, 0.5), green); put(s, float2(1, 1), green);
        s.RestartStrip();
        put(s, float2(-1, 1), green);                                           // one vertex: nothing
    }
}
"""


def test_geometry_shader_drops_incomplete_strips():
    vs = _vs_table(PRIM_TRIS[:2])
    px = R.draw(vs, PS_COLOR, W, H, vertex_count=6, gs_src=GS_STRIPS)
    tri = ((0.0, 0.5), (1.0, 0.5), (1.0, 1.0))
    for y in range(H):
        for x in range(W):
            p = (_centre(x, W), _centre(y, H))
            want = (255, 0, 0, 255) if p[0] < 0 and p[1] < 0 else (0, 255, 0, 255) if _inside(p, tri) else (0, 0, 0, 0)
            assert R.pixel(px, W, x, y) == want, (x, y, R.pixel(px, W, x, y), want)


# ---------------------------------------------------------------- SV_Depth of a fragment that is discarded

VS_TWO_Z = """
float4 main(uint id : SV_VertexID) : SV_Position {
    uint k = id % 3;
    float2 uv = float2((k << 1) & 2, k & 2);
    return float4(uv * 2.0 - 1.0, id < 3 ? 0.5 : 0.3, 1.0);
}
"""
PS_DEPTH_DISCARD = """
struct O { float4 color : SV_Target; float depth : SV_Depth; };
O main(float4 pos : SV_Position) {
    O o;
    bool first = abs(pos.z - 0.5) < 0.01;
    o.color = first ? float4(1, 0, 0, 1) : float4(0, 1, 0, 1);
    o.depth = first ? (pos.x < 4 ? 0.2 : 0.6) : pos.z;
    if (first && pos.y < 2)
        discard;            // after the depth was written: the fragment leaves no depth either
    return o;
}
"""


def test_depth_output_of_a_discarded_fragment_is_not_written():
    """The first triangle (z 0.5) replaces its depth (0.2 left, 0.6 right) and is discarded in the top two rows;
    the second (z 0.3, drawn after, depth test LESS) shows wherever the first left a greater depth."""
    px = R.draw(VS_TWO_Z, PS_DEPTH_DISCARD, W, H, vertex_count=6, depth=1.0)
    for y in range(H):
        for x in range(W):
            first_depth = 1.0 if y < 2 else 0.2 if x < 4 else 0.6
            want = (0, 255, 0, 255) if 0.3 < first_depth else (255, 0, 0, 255)
            assert R.pixel(px, W, x, y) == want, (x, y, R.pixel(px, W, x, y), want)


# ---------------------------------------------------------------- a patch whose edge factor is 0, negative or NaN

HS_CULL = QUAD_DECLS + """
PC constants(uint pid : SV_PrimitiveID) {
    PC o;
    [unroll] for (int e = 0; e < 4; e++) o.edges[e] = 1;
    if (pid == 1)
        o.edges[2] = CULL;          // one edge is enough to discard the patch
    o.inside[0] = 1; o.inside[1] = 1;
    return o;
}
""" + QUAD_PASS_THROUGH
DS_HALF = QUAD_DECLS + """
struct O { float4 pos : SV_Position; nointerpolation float4 color : COLOR; };
[domain("quad")]
O main(PC pc, float2 uv : SV_DomainLocation, const OutputPatch<CP, 4> p, uint pid : SV_PrimitiveID) {
    O o;
    o.pos = float4(uv.x + pid - 1, uv.y * 2 - 1, 0, 1);       // patch 0: the left half, patch 1: the right half
    o.color = float4(1, pid, 0, 1);
    return o;
}
"""


HS_CULL_RETURN = """
struct CP { float4 pos : POS; };
struct PC { float edges[4] : SV_TessFactor; float inside[2] : SV_InsideTessFactor; };
PC constants(uint pid : SV_PrimitiveID) {
    PC o = (PC)0;
    if (pid == 1)
        return o;                   // an early return: every factor 0
    [unroll] for (int e = 0; e < 4; e++) o.edges[e] = 1;
    o.inside[0] = 1; o.inside[1] = 1;
    return o;
}
CP pass(InputPatch<CP, 4> patch, uint i) {
    if (i > 3)
        return patch[0];            // never taken: an early return in the control-point phase's helper
    return patch[i];
}
[domain("quad")] [partitioning("integer")] [outputtopology("triangle_cw")]
[outputcontrolpoints(4)] [patchconstantfunc("constants")]
CP main(InputPatch<CP, 4> patch, uint i : SV_OutputControlPointID) {
    if (i == 3)
        return patch[3];            // an early return in the control-point phase
    return pass(patch, i);
}
"""


@pytest.mark.parametrize("factor", ["0.0", "-1.0", "asfloat(0x7fc00000)", "early-return"],
                         ids=["zero", "negative", "nan", "early-return"])
def test_patch_with_a_non_positive_or_nan_edge_factor_is_discarded(factor):
    hs = HS_CULL_RETURN if factor == "early-return" else HS_CULL.replace("CULL", factor)
    (px,) = draw_tess(VS_CP, hs, DS_HALF, PS_COLOR, 4, 8)
    for y in range(H):
        for x in range(W):
            want = (255, 0, 0, 255) if x < W // 2 else (0, 0, 0, 0)
            assert R.pixel(px, W, x, y) == want, (factor, x, y, R.pixel(px, W, x, y))


# ---------------------------------------------------------------- 16-bit stage I/O

VS_16 = """
struct O { float4 pos : SV_Position; nointerpolation float16_t4 h : HALF; nointerpolation uint16_t2 u : U16;
           nointerpolation int16_t i : I16; nointerpolation float f : F32; };
O main(uint id : SV_VertexID) {
    O o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(uv * 2 - 1, 0, 1);
    o.h = float16_t4(0.25, 0.5, 0.75, 1.0);
    o.u = uint16_t2(40000, 17);
    o.i = -300;
    o.f = 0.125;
    return o;
}
"""
PS_16 = """
struct I { float4 pos : SV_Position; nointerpolation float16_t4 h : HALF; nointerpolation uint16_t2 u : U16;
           nointerpolation int16_t i : I16; nointerpolation float f : F32; };
struct O { float16_t4 a : SV_Target0; float4 b : SV_Target1; };
O main(I i) {
    O o;
    o.a = i.h.wzyx;                                     // a 16-bit render-target output
    o.b = float4((i.u.x - 39900) / 255.0, i.u.y / 255.0, (i.i + 400) / 255.0, i.f);
    return o;
}
"""


def test_sixteen_bit_stage_inputs_and_outputs():
    """float16_t / uint16_t / int16_t values between the vertex and pixel stages and a float16_t4 render-target
    output (-enable-16bit-types).  The SPIR-V builds keep them 16-bit (StorageInputOutput16, as DXC does), which
    needs the storageInputOutput16 feature: lavapipe lacks it (its LLVM aborts on such a pipeline), so the SPIR-V
    pair is drawn only on a device that has it.  The DXIL twins are drawn through dxil-spirv (which widens the
    16-bit I/O to 32 bits) and checked against the values."""
    from dxil_run import consumer_spirv
    opts = {"enable_16bit_types": True}
    vs, ps = R.build(VS_16, "main", "vs_6_2", **opts), R.build(PS_16, "main", "ps_6_2", **opts)
    for res in (vs, ps):
        assert "OpCapability StorageInputOutput16" in R.spirv_dis(res)
    want = [{(255, 191, 128, 64)}, {(100, 17, 100, R.unorm8(0.125))}]
    vk = R.vk_runner()
    runs = []
    if vk.device_info()["features"].get("storageInputOutput16"):
        runs.append(("SPIR-V", vs.binary, "main", ps.binary, "main"))
    converted = [consumer_spirv(t) for t in (R.twin_of(vs), R.twin_of(ps)) if t is not None]
    assert len(converted) == 2 and None not in converted, "no checked DXIL twin"
    (vs2, vs_facts), (ps2, ps_facts) = converted
    runs.append(("DXIL through dxil-spirv", vs2, vs_facts["entry"], ps2, ps_facts["entry"]))
    for who, v, ve, p, pe in runs:
        targets, _ = vk.run_graphics(v, ve, p, pe, W, H, targets=2, full=True)
        got = [{R.pixel(t, W, x, y) for y in range(H) for x in range(W)} for t in targets]
        assert got == want, (who, got, want)


# ---------------------------------------------------------------- outputs written at run-time indices

VS_DYN = """
struct VOut { float4 pos : SV_Position; float4 c[3] : COLOR; };
VOut main(uint id : SV_VertexID, uint inst : SV_InstanceID) {
    VOut o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(uv * 2 - 1, 0, 1);
    uint n = 3 - inst;                          // a run-time count (one instance: 3)
    [loop] for (uint k = 0; k < n; k++)
        o.c[(k + 1) % 3] = float4(k * 50 + 10, k * 50 + 20, k * 50 + 30, 255) / 255;
    return o;
}
"""
PS_DYN = """
struct O { float4 t[3] : SV_Target0; };
O main(float4 pos : SV_Position, nointerpolation float4 c[3] : COLOR) {
    O o;
    uint s = uint(pos.x) % 3;                   // a run-time rotation of the targets
    [loop] for (uint k = 0; k < 3; k++)
        o.t[(k + s) % 3] = c[k];
    return o;
}
"""


def test_stage_outputs_written_at_run_time_indices():
    """A vertex shader's output array and a pixel shader's SV_Target array written at run-time indices."""
    targets, _ = R.draw(VS_DYN, PS_DYN, W, H, targets=3, full=True)
    c = {(k + 1) % 3: (k * 50 + 10, k * 50 + 20, k * 50 + 30, 255) for k in range(3)}
    for y in range(H):
        for x in range(W):
            s = x % 3
            for k in range(3):
                assert R.pixel(targets[(k + s) % 3], W, x, y) == c[k], (x, y, k)


HS_DYN = QUAD_DECLS + """
PC constants(InputPatch<CP, 4> ip) {
    PC o;
    uint n = uint(ip[1].pos.x) + 3;             // 4: a run-time bound
    [loop] for (uint e = 0; e < n; e++)
        o.edges[e] = e + 1;
    [loop] for (uint k = 0; k < n / 2; k++)
        o.inside[k] = 2;
    return o;
}
""" + QUAD_PASS_THROUGH
DS_DYN = QUAD_DECLS + """
struct O { float4 pos : SV_Position; nointerpolation float4 color : COLOR; };
[domain("quad")]
O main(PC pc, float2 uv : SV_DomainLocation, const OutputPatch<CP, 4> p) {
    O o;
    o.pos = float4(uv * 2 - 1, 0, 1);
    uint n = uint(p[2].pos.x) + 2;              // 4
    float s = 0;
    [loop] for (uint k = 0; k < n; k++)
        s += pc.edges[k] * (k + 1);             // the factors read at run-time indices
    uint j = uint(p[1].pos.x);                  // 1
    o.color = float4(s, pc.edges[j + 2], pc.inside[j], 255) / 255;
    return o;
}
"""


def test_tess_factors_written_and_read_at_run_time_indices():
    """The patch-constant function writes SV_TessFactor / SV_InsideTessFactor in loops with run-time bounds; the
    domain shader reads them at run-time indices."""
    (px,) = draw_tess(VS_CP, HS_DYN, DS_DYN, PS_COLOR, 4, 4)
    edges = [1, 2, 3, 4]
    want = (sum(e * (k + 1) for k, e in enumerate(edges)), edges[3], 2, 255)
    assert {R.pixel(px, W, x, y) for y in range(H) for x in range(W)} == {want}


# ---------------------------------------------------------------- GS instances into layers and viewports

GS_INSTANCES = """
struct I { float4 pos : SV_Position; };
struct O { float4 pos : SV_Position; uint layer : SV_RenderTargetArrayIndex; uint vp : SV_ViewportArrayIndex;
           nointerpolation uint inst : INST; };
[instance(4)] [maxvertexcount(3)]
void main(triangle I v[3], uint inst : SV_GSInstanceID, uint prim : SV_PrimitiveID, inout TriangleStream<O> s) {
    for (uint i = 0; i < 3; i++) {
        O o;
        o.pos = v[i].pos;
        o.layer = inst % 2;
        o.vp = 3 - inst;
        o.inst = inst * 10 + prim;
        s.Append(o);
    }
}
"""
PS_INSTANCES = """
float4 main(float4 pos : SV_Position, uint layer : SV_RenderTargetArrayIndex, uint vp : SV_ViewportArrayIndex,
            nointerpolation uint inst : INST) : SV_Target {
    return float4(inst, layer * 100 + 7, vp * 50 + 9, 255) / 255;
}
"""


def test_instanced_gs_picks_layer_and_viewport():
    """Four GS instances of one full-screen triangle: instance i draws into layer i % 2 through viewport 3 - i
    (vertical strips two pixels wide), both written by each instance and read back by the pixel shader."""
    targets = draw_stages({"vs": (R.FULLSCREEN_VS, "vs_6_0"), "gs": (GS_INSTANCES, "gs_6_0"),
                           "ps": (PS_INSTANCES, "ps_6_0")}, 3, layers=2, viewports=4)
    px = targets[0]
    for layer in range(2):
        img = px[layer * W * H * 4:(layer + 1) * W * H * 4]
        for y in range(H):
            for x in range(W):
                vp = x // 2
                inst = 3 - vp
                want = (inst * 10, layer * 100 + 7, vp * 50 + 9, 255) if inst % 2 == layer else (0, 0, 0, 0)
                assert R.pixel(img, W, x, y) == want, (layer, x, y, R.pixel(img, W, x, y), want)


# ---------------------------------------------------------------- 32-point patches, patch objects passed to helpers

VS_32 = """
struct CP { float4 pos : POS; float val : VAL; };
CP main(uint id : SV_VertexID) { CP o; o.pos = float4(id, 0, 0, 1); o.val = id % 32 + (id / 32) * 2; return o; }
"""
HS_32 = """
struct CP { float4 pos : POS; float val : VAL; };
struct Out { float val : VAL; };
struct PC { float edges[4] : SV_TessFactor; float inside[2] : SV_InsideTessFactor; float sum : SUM; };
float total(InputPatch<CP, 32> p) {                 // an input patch passed to a helper
    float s = 0;
    for (uint i = 0; i < 32; i++) s += p[i].val;
    return s;
}
float first(const OutputPatch<Out, 1> p) { return p[0].val; }
PC constants(InputPatch<CP, 32> ip, const OutputPatch<Out, 1> op) {
    PC o;
    [unroll] for (int e = 0; e < 4; e++) o.edges[e] = 1;
    o.inside[0] = 1; o.inside[1] = 1;
    o.sum = total(ip) - first(op);
    return o;
}
Out pick(InputPatch<CP, 32> p, uint i) { Out o; o.val = p[31 - i].val; return o; }
[domain("quad")] [partitioning("integer")] [outputtopology("triangle_cw")]
[outputcontrolpoints(1)] [patchconstantfunc("constants")]
Out main(InputPatch<CP, 32> patch, uint i : SV_OutputControlPointID) { return pick(patch, i); }
"""
DS_32 = """
struct Out { float val : VAL; };
struct PC { float edges[4] : SV_TessFactor; float inside[2] : SV_InsideTessFactor; float sum : SUM; };
struct O { float4 pos : SV_Position; nointerpolation float4 color : COLOR; };
float last(const OutputPatch<Out, 1> p) { return p[0].val; }
[domain("quad")]
O main(PC pc, float2 uv : SV_DomainLocation, const OutputPatch<Out, 1> p, uint pid : SV_PrimitiveID) {
    O o;
    o.pos = float4(uv.x + pid - 1, uv.y * 2 - 1, 0, 1);
    o.color = float4(pc.sum - 400, last(p), pid, 0);
    return o;
}
"""
GS_32 = """
struct O { float4 pos : SV_Position; nointerpolation float4 color : COLOR; };
void copy(triangle O v[3], uint prim, inout TriangleStream<O> s) {    // the input array passed to a helper
    for (uint i = 0; i < 3; i++) { O o = v[i]; o.color.w = prim * 50 + 100; o.color /= 255; s.Append(o); }
}
[maxvertexcount(3)]
void main(triangle O v[3], uint prim : SV_PrimitiveID, inout TriangleStream<O> s) { copy(v, prim, s); }
"""


def test_thirty_two_point_patches_and_patch_objects_in_helpers():
    """Two patches of 32 control points (the most Vulkan and D3D allow), one output control point: helpers take
    the InputPatch, the OutputPatch and the geometry shader's input array; the GS reads the patch's
    SV_PrimitiveID."""
    (px,) = draw_tess(VS_32, HS_32, DS_32, PS_COLOR, 32, 64, gs=GS_32)
    for pid in range(2):
        vals = [i + 2 * pid for i in range(32)]
        first = vals[31]
        want = (sum(vals) - first - 400, first, pid, pid * 50 + 100)
        for y in range(H):
            for x in range(pid * W // 2, (pid + 1) * W // 2):
                assert R.pixel(px, W, x, y) == want, (pid, x, y, R.pixel(px, W, x, y), want)


# ---------------------------------------------------------------- SV_CullDistance out of the domain and geometry stages

DS_CULL = QUAD_DECLS + """
struct O { float4 pos : SV_Position; nointerpolation float4 color : COLOR; float2 cull : SV_CullDistance; };
[domain("quad")]
O main(PC pc, float2 uv : SV_DomainLocation, const OutputPatch<CP, 4> p, uint pid : SV_PrimitiveID) {
    O o;
    o.pos = float4(uv.x + (pid % 2) - 1, uv.y + (pid / 2) - 1, 0, 1);     // patch k: quadrant k
    o.color = float4(1, pid / 3.0, 0, 1);
    o.cull = float2(pid == 1 ? -1 : 1, pid == 2 ? -0.5 : uv.x + 1);       // patches 1 and 2 culled
    return o;
}
"""
HS_QUAD_ID = HS_QUAD1.replace("o.edges[e] = 2;", "o.edges[e] = 1;").replace("o.inside[0] = 2; o.inside[1] = 2;",
                                                                            "o.inside[0] = 1; o.inside[1] = 1;")
GS_CULL = """
struct I { float4 pos : SV_Position; nointerpolation float4 color : COLOR; float2 cull : SV_CullDistance; };
struct O { float4 pos : SV_Position; nointerpolation float4 color : COLOR; float cull[2] : SV_CullDistance; };
[maxvertexcount(3)]
void main(triangle I v[3], uint prim : SV_PrimitiveID, inout TriangleStream<O> s) {
    for (uint i = 0; i < 3; i++) {
        O o;
        o.pos = v[i].pos;
        o.color = v[i].color;
        o.cull[0] = v[i].cull.x;
        o.cull[1] = v[i].cull.y * (prim == 3 ? -1 : 1);                   // patch 3 culled here
        s.Append(o);
    }
}
"""


@pytest.mark.parametrize("gs", [False, True], ids=["ds", "ds-gs"])
def test_cull_distance_out_of_domain_and_geometry_stages(gs):
    """Four quad patches, one per quadrant: the domain shader's float2 SV_CullDistance culls patch 1 (x) and patch
    2 (y); through a geometry shader (a float[2] SV_CullDistance), which also culls patch 3's triangles (after
    tessellation the geometry shader's SV_PrimitiveID is the patch's)."""
    (px,) = draw_tess(VS_CP, HS_QUAD_ID, DS_CULL, PS_COLOR, 4, 16, gs=GS_CULL if gs else None)
    drawn = {0, 3} if not gs else {0}
    for y in range(H):
        for x in range(W):
            pid = (x >= W // 2) + 2 * (y >= H // 2)
            want = (255, R.unorm8(pid / 3.0), 0, 255) if pid in drawn else (0, 0, 0, 0)
            assert R.pixel(px, W, x, y) == want, (gs, x, y, R.pixel(px, W, x, y), want)


# ---------------------------------------------------------------- matrices and arrays in control points and patch constants

HS_AGG = """
struct CP { float4 pos : POS; float val : VAL; uint count : COUNT; };
struct HCP { float4 pos : POS; row_major float2x3 m : MROW; ELEM a[3] : ARR; };
struct PC {
    float edges[4] : SV_TessFactor; float inside[2] : SV_InsideTessFactor;
    float2x2 pm : PMAT; row_major float2x2 pr : PROW; float pa[3] : PARR;
};
PC constants(const OutputPatch<HCP, 4> op, uint pid : SV_PrimitiveID) {
    PC o;
    [unroll] for (int e = 0; e < 4; e++) o.edges[e] = 1;
    o.inside[0] = 1; o.inside[1] = 1;
    uint k = pid % 2 + 1;                           // 1 (a run-time index)
    o.pm = float2x2(op[k].m[0][0], op[k].m[0][1], op[k].m[1][0], op[k].m[1][1]);
    o.pr = transpose(o.pm);
    [loop] for (uint j = 0; j < 3; j++) o.pa[j] = op[3 - j].a[j].x;
    return o;
}
[domain("quad")] [partitioning("integer")] [outputtopology("triangle_cw")]
[outputcontrolpoints(4)] [patchconstantfunc("constants")]
HCP main(InputPatch<CP, 3> patch, uint i : SV_OutputControlPointID) {
    HCP o;
    o.pos = i < 3 ? patch[i].pos : patch[1].pos + patch[2].pos - patch[0].pos;
    uint r = i % 2;                                 // rows written at run-time indices
    o.m[r] = float3(i * 10 + 1, i * 10 + 2, i * 10 + 3);
    o.m[1 - r] = float3(i * 10 + 4, i * 10 + 5, i * 10 + 6);
    [loop] for (uint j = 0; j < 3; j++) o.a[(j + i) % 3] = (ELEM)(i * 20 + j);
    return o;
}
"""
DS_AGG = """
struct HCP { float4 pos : POS; row_major float2x3 m : MROW; ELEM a[3] : ARR; };
struct PC {
    float edges[4] : SV_TessFactor; float inside[2] : SV_InsideTessFactor;
    float2x2 pm : PMAT; row_major float2x2 pr : PROW; float pa[3] : PARR;
};
struct O { float4 pos : SV_Position; nointerpolation float4 c[3] : COLOR; };
[domain("quad")]
O main(PC pc, float2 uv : SV_DomainLocation, const OutputPatch<HCP, 4> p) {
    O o;
    o.pos = p[0].pos + uv.x * (p[1].pos - p[0].pos) + uv.y * (p[2].pos - p[0].pos);
    o.c[0] = float4(pc.pm[0][0], pc.pm[0][1], pc.pm[1][0], pc.pm[1][1]) / 255;
    o.c[1] = float4(pc.pr[0][1], pc.pa[0], pc.pa[1], pc.pa[2]) / 255;
    o.c[2] = float4(p[3].m[1][2], p[2].a[0].x, p[0].m[0][0], 255) / 255;
    return o;
}
"""
PS_AGG = """
struct O { float4 t[3] : SV_Target0; };
O main(float4 pos : SV_Position, nointerpolation float4 c[3] : COLOR) { O o; o.t = c; return o; }
"""


@pytest.mark.parametrize("elem", [
    "float2",
    R.param("float", id="float",
            dxil="the float[3] control-point element is packed in the free column of the matrix's rows (ARR at "
                 "register 1, component w); dxil-spirv declares it as a per-vertex float[3][4] with a Component "
                 "decoration, which spirv-val rejects (VUID-StandaloneSpirv-Component-04924).  DXC's packer puts "
                 "it there too (DxilSignatureAllocator.inl, PackPrefixStable -> PackNext -> FindNext: first row, "
                 "then first column, an arbitrary multi-row element beside an earlier one of its interpolation "
                 "mode): tests/dxil/test_dxil_signature12.py's model of DXC's packer places ARR at (1, 3)"),
])
def test_matrices_and_arrays_in_control_points_and_patch_constants(elem):
    """Hull-shader control points with a row_major matrix (rows written at run-time indices) and an array; patch
    constants that are a column_major and a row_major float2x2 and a float[3] (Patch outputs in SPIR-V), read by
    the domain shader.  The patches of test_patch_constants_... (3 -> 4 control points, the two halves)."""
    targets = draw_tess(VS_PATCH, HS_AGG, DS_AGG, PS_AGG, 3, 6, targets=3, defines={"ELEM": elem})

    def cp(i: int) -> tuple[list[list[int]], list[int]]:
        r = i % 2
        m = [[0] * 3, [0] * 3]
        m[r] = [i * 10 + 1, i * 10 + 2, i * 10 + 3]
        m[1 - r] = [i * 10 + 4, i * 10 + 5, i * 10 + 6]
        a = [0] * 3
        for j in range(3):
            a[(j + i) % 3] = i * 20 + j
        return m, a

    for pid in range(2):
        k = pid % 2 + 1
        mk = cp(k)[0]
        pm = [[mk[0][0], mk[0][1]], [mk[1][0], mk[1][1]]]
        pa = [cp(3 - j)[1][j] for j in range(3)]
        want = [(pm[0][0], pm[0][1], pm[1][0], pm[1][1]), (pm[1][0], *pa),
                (cp(3)[0][1][2], cp(2)[1][0], cp(0)[0][0][0], 255)]
        for t in range(3):
            got = {R.pixel(targets[t], W, x, y) for y in range(H) for x in range(pid * W // 2, (pid + 1) * W // 2)}
            assert got == {want[t]}, (pid, t, got, want[t])


# ---------------------------------------------------------------- out / inout entry parameters, parameter order

VS_OUT_PARAMS = """
float4 main(float2 corner : CORNER, inout float4 color : COLOR, out float2 uv : TEXCOORD0,
            out nointerpolation uint tag : TAG) : SV_Position {
    uv = corner * 0.5 + 0.5;
    color = color.bgra;                 // the vertex input COLOR read, and written to the output COLOR
    tag = 77;
    return float4(corner, 0, 1);
}
"""
GS_PARAM_ORDER = """
struct V { float4 pos : SV_Position; float4 color : COLOR; float2 uv : TEXCOORD0; nointerpolation uint tag : TAG; };
[maxvertexcount(3)]
void main(inout TriangleStream<V> s, uint prim : SV_PrimitiveID, in triangle V v[3]) {    // the stream first
    for (uint i = 0; i < 3; i++) { V o = v[i]; o.tag += prim; s.Append(o); }
}
"""
PS_OUT_PARAMS = """
void main(float4 pos : SV_Position, float4 color : COLOR, float2 uv : TEXCOORD0, nointerpolation uint tag : TAG,
          out float4 c1 : SV_Target1, out float4 c0 : SV_Target0) {
    c0 = color;
    c1 = float4(uv, tag / 255.0, 1);
}
"""


@pytest.mark.parametrize("gs", [False, True], ids=["vs-ps", "vs-gs-ps"])
def test_out_and_inout_entry_parameters(gs):
    """A vertex shader with an inout parameter (vertex input and output of one semantic), out parameters beside
    its return value; a geometry shader whose stream comes first; a pixel shader writing its targets through out
    parameters declared out of order."""
    vk = R.vk_runner()
    corners = [(-1.0, -1.0), (3.0, -1.0), (-1.0, 3.0)]
    color = (0.2, 0.4, 0.6, 0.8)
    vs = R.build(VS_OUT_PARAMS, "main", "vs_6_0")
    locs = {e["semantic"]: e["location"] for e in vs.manifest["entry"]["inputs"]}
    vb = vk.VertexBuffer(b"".join(R.pack("f", [*c, *color]) for c in corners), 24,
                         [(locs["CORNER"], "float2", 0), (locs["COLOR"], "float4", 8)])
    targets, _ = R.draw(VS_OUT_PARAMS, PS_OUT_PARAMS, W, H, vertex_buffers=[vb], targets=2, full=True,
                        gs_src=GS_PARAM_ORDER if gs else None)
    for y in range(H):
        for x in range(W):
            u, v = (x + 0.5) / W, (y + 0.5) / H
            assert R.pixel(targets[0], W, x, y) == tuple(R.unorm8(c) for c in (0.6, 0.4, 0.2, 0.8)), (x, y)
            got = R.pixel(targets[1], W, x, y)
            assert abs(got[0] - R.unorm8(u)) <= 1 and abs(got[1] - R.unorm8(v)) <= 1 and got[2:] == (77, 255), (x, y)


# ---------------------------------------------------------------- SV_PrimitiveID in the pixel stage after tessellation

PS_PATCH_ID = """
float4 main(float4 pos : SV_Position, nointerpolation float4 c : COLOR, uint prim : SV_PrimitiveID) : SV_Target {
    return float4(c.x, c.y, prim * 60 + 30, 255) / float4(1, 1, 255, 255);
}
"""


@R.xfail("lavapipe: a pixel shader's PrimitiveId after tessellation with no geometry stage reads 0 in every patch "
         "(the SPIR-V build and the DXIL twin through dxil-spirv alike, both decorating BuiltIn PrimitiveId Flat); "
         "D3D gives the patch's id, as the geometry stage here reads it (test_thirty_two_point_patches_...)")
def test_pixel_primitive_id_after_tessellation_is_the_patch():
    """With hull and domain stages and no geometry stage, the pixel shader's SV_PrimitiveID is the patch's
    (each quad patch is split into several triangles)."""
    (px,) = draw_tess(VS_CP, HS_QUAD1, DS_HALF, PS_PATCH_ID, 4, 8)
    for y in range(H):
        for x in range(W):
            pid = int(x >= W // 2)
            assert R.pixel(px, W, x, y) == (255, 255 * pid, pid * 60 + 30, 255), (x, y, R.pixel(px, W, x, y))


# ---------------------------------------------------------------- clip distances indexed at run time; the DXIL row limit

VS_CLIP_DYN = """
struct O { float4 pos : SV_Position; float d[2] : SV_ClipDistance0; float2 cl : SV_CullDistance0; };
O main(uint id : SV_VertexID, uint inst : SV_InstanceID) {
    O o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(uv * 2 - 1, 0, 1);
    uint n = 2 - inst;                              // 2: a run-time bound
    [loop] for (uint k = 0; k < n; k++) o.d[k] = 1;
    o.d[1 - inst] = o.pos.x + 0.25;                 // d[1] at a run-time index: clips x < -0.25
    o.cl = float2(1, 2);
    return o;
}
"""
PS_CLIP_DYN = """
float4 main(float4 pos : SV_Position, float d[2] : SV_ClipDistance0) : SV_Target {
    uint k = uint(pos.y) % 2;                       // read at a run-time index
    return float4(d[1] / 2, d[k] / 2, k / 4.0, 1);
}
"""


def test_clip_distances_written_and_read_at_run_time_indices():
    px = R.draw(VS_CLIP_DYN, PS_CLIP_DYN, W, H)
    for y in range(H):
        for x in range(W):
            nx = _centre(x, W)
            k = y % 2
            dk = nx + 0.25 if k == 1 else 1.0
            want = (R.unorm8((nx + 0.25) / 2), R.unorm8(dk / 2), R.unorm8(k / 4), 255) if nx > -0.25 else (0, 0, 0, 0)
            got = R.pixel(px, W, x, y)
            assert all(abs(g - w) <= 1 for g, w in zip(got, want)), (x, y, got, want)


def test_three_row_clip_distance_array_is_a_dxil_error():
    """D3D's clip and cull distances share two signature rows (DXC's validator: Meta.ClipCullMaxRows), and a
    float[3] takes three; Vulkan's ClipDistance array has no rows, so SPIR-V takes it."""
    src = ("struct O { float4 pos : SV_Position; float d[3] : SV_ClipDistance0; };\n"
           "O main() { O o = (O)0; return o; }\n")
    res = R.compile_hlsl(src, "main", "vs_6_0", "dxil")
    assert not res.ok
    assert R.errors(res) == [          # located at the member's declaration
        "1:44: signature element 'SV_ClipDistance0' does not fit: SV_ClipDistance and SV_CullDistance elements share at "
        "most two rows (a float[n] array takes n rows)"], R.errors(res)
    spv = R.compile_hlsl(src, "main", "vs_6_0", "spirv")
    assert spv.ok, R.diagnostics_text(spv)
    tools.spirv_val(spv.binary, "vulkan1.1")


# ---------------------------------------------------------------- system values nested in a struct between user values

NESTED_SV = """
struct Sys { float4 pos : SV_Position; float clip[1] : SV_ClipDistance; };
struct Data { float2 uv : TEXCOORD0; nointerpolation uint id : ID; };
"""
VS_NESTED_SV = NESTED_SV + """
struct O { Data d; Sys s; float4 extra[2] : EXTRA; };
O main(uint id : SV_VertexID) {
    O o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.s.pos = float4(uv * 2 - 1, 0, 1);
    o.s.clip[0] = 1.0 - uv.y * 1.5;     // clips v > 2/3
    o.d.uv = uv;
    o.d.id = 9;
    o.extra[0] = 0.25;
    o.extra[1] = 0.5;
    return o;
}
"""
PS_NESTED_SV = NESTED_SV + """
struct I { Data d; Sys s; float4 extra[2] : EXTRA; };
float4 main(I i) : SV_Target { return float4(i.d.uv.x, i.s.pos.y / 8, i.d.id / 255.0, i.extra[1].x); }
"""


def test_system_values_nested_in_a_struct_between_user_values():
    """SV_Position and a one-element SV_ClipDistance array in a nested struct declared between user values (a
    struct and an array): the user values keep their places on both sides and the system values act."""
    px = R.draw(VS_NESTED_SV, PS_NESTED_SV, W, H)
    for y in range(H):
        for x in range(W):
            u, v = (x + 0.5) / W, (y + 0.5) / H
            want = (R.unorm8(u), R.unorm8((y + 0.5) / 8), 9, 128) if 1.0 - v * 1.5 > 0 else (0, 0, 0, 0)
            assert R.pixel(px, W, x, y) == want, (x, y, R.pixel(px, W, x, y), want)


# ---------------------------------------------------------------- a layer written by the vertex shader, read by the GS

VS_LAYER_TO_GS = """
struct O { float4 pos : SV_Position; uint layer : SV_RenderTargetArrayIndex; };
O main(uint id : SV_VertexID) {
    O o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(uv * 2 - 1, 0, 1);
    o.layer = 1;
    return o;
}
"""
GS_LAYER_IN = """
struct I { float4 pos : SV_Position; uint layer : SV_RenderTargetArrayIndex; };
struct O { float4 pos : SV_Position; uint layer : SV_RenderTargetArrayIndex; nointerpolation uint seen : SEEN; };
[maxvertexcount(3)]
void main(triangle I v[3], inout TriangleStream<O> s) {
    for (uint i = 0; i < 3; i++) { O o; o.pos = v[i].pos; o.layer = v[i].layer; o.seen = v[i].layer + 10; s.Append(o); }
}
"""
PS_LAYER_SEEN = """
float4 main(float4 p : SV_Position, uint layer : SV_RenderTargetArrayIndex, nointerpolation uint seen : SEEN)
    : SV_Target {
    return float4(layer, seen, 0, 255) / 255;
}
"""


def test_layer_written_by_the_vertex_shader_reaches_the_geometry_shader():
    """D3D passes a vertex shader's SV_RenderTargetArrayIndex to the geometry shader's input of that semantic
    (SPIR-V: the VS writes it to a Location too, the one the GS reads; test_layer_passthrough12.py)."""
    px = R.draw(VS_LAYER_TO_GS, PS_LAYER_SEEN, W, H, gs_src=GS_LAYER_IN, layers=2)
    assert {R.pixel(px[W * H * 4:], W, x, y) for y in range(H) for x in range(W)} == {(1, 11, 0, 255)}


# ---------------------------------------------------------------- SV_InstanceID out of the vertex stage into the pixel stage

VS_INSTANCE_OUT = """
struct O { float4 pos : SV_Position; uint inst : SV_InstanceID; float4 c : COLOR; };
O main(uint id : SV_VertexID, uint inst : SV_InstanceID) {
    O o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(uv * 2 - 1, 0, 1);
    o.inst = inst * 5 + 3;
    o.c = 0.5;
    return o;
}
"""
PS_INSTANCE_IN = """
float4 main(float4 pos : SV_Position, nointerpolation uint inst : SV_InstanceID, float4 c : COLOR) : SV_Target {
    return float4(inst / 255.0, c.x, 0, 1);
}
"""


def test_instance_id_written_by_the_vertex_shader_reaches_the_pixel_shader():
    """D3D lets the vertex stage write SV_InstanceID and the pixel stage read it (an ordinary Location in Vulkan,
    after the others, as in DXC); the second instance draws last."""
    px = R.draw(VS_INSTANCE_OUT, PS_INSTANCE_IN, W, H, instance_count=2)
    assert {R.pixel(px, W, x, y) for y in range(H) for x in range(W)} == {(8, 128, 0, 255)}
