"""Issue 20, a silent wrong value (layer12): SV_RenderTargetArrayIndex / SV_ViewportArrayIndex written by a
vertex or domain shader and read by the next geometry (or hull) shader.

On SPIR-V the writer's value is the Layer / ViewportIndex built-in (the rasterizer's), but Vulkan has no such
input in the geometry or tessellation-control stage, so the reader's input of the semantic is a Location.  As
DXC maps it, nobody wrote that Location and the GS read 0 with exit status 0.  Now the vertex / domain shader
writes the value to a Location too, numbered as the reader numbers its input: after every user Location and
every other system value without a built-in, the layer first and the viewport index second, whether or not the
other is there (docs/CONFORMANCE.md).

Each case is drawn on lavapipe (-O3, again at -O0 by the harness) with values that differ per vertex, per
instance and per patch; the expected pixels are computed here from the values the shaders are given.  The
DXIL twins are built and checked too; dxil-spirv cannot take a GS or HS input of these semantics (it makes
them Layer / ViewportIndex inputs, which spirv-val rejects: the strict xfail at the end), so those pipelines
run from SPIR-V only, and the pipelines without such a reader (VS -> PS) run on both routes.  Also: a mesh
shader's per-primitive layer and viewport read by the pixel shader (its DXIL twin converted and checked, not
drawn: lavapipe's draw of dxil-spirv's mesh shaders depends on what ran before).
"""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import pytest
import res_util as R
from harness.dxil_consumer import ConsumerLimit
from test_stages11 import draw_stages

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

W = H = 8
RTAI, VPAI = "SV_RenderTargetArrayIndex", "SV_ViewportArrayIndex"


def _strip(img: bytes, vp: int, n: int = 2):
    """The pixels of viewport vp's strip (the harness's viewports are side-by-side vertical strips)."""
    return [(x, y, R.pixel(img, W, x, y)) for y in range(H) for x in range(W) if x * n // W == vp]


def _others(img: bytes, vp: int, n: int = 2):
    return [(x, y, R.pixel(img, W, x, y)) for y in range(H) for x in range(W) if x * n // W != vp]


# ---------------------------------------------------------------- VS -> GS, around user values in a nested struct

VS_TO_GS = """
struct Inner { float b : B; };
struct O { float4 pos : SV_Position; float2 a : A; uint layer : SV_RenderTargetArrayIndex; Inner inner;
           uint vp : SV_ViewportArrayIndex; uint c : C; };
O main(uint id : SV_VertexID, uint inst : SV_InstanceID) {
    O o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(uv * 2 - 1, 0, 1);
    o.a = float2(id, 2);
    o.layer = id * 3 + 1 + inst * 7;
    o.inner.b = id + 0.5;
    o.vp = id * 5 + 2 + inst * 11;
    o.c = 40 + id;
    return o;
}
"""
GS_READS = """
struct Inner { float b : B; };
struct I { float4 pos : SV_Position; float2 a : A; uint layer : SV_RenderTargetArrayIndex; Inner inner;
           uint vp : SV_ViewportArrayIndex; uint c : C; };
struct O { float4 pos : SV_Position; uint layer : SV_RenderTargetArrayIndex; uint vp : SV_ViewportArrayIndex;
           nointerpolation uint3 layers : LAYERS; nointerpolation uint3 vps : VPS; nointerpolation uint3 user : USER; };
[maxvertexcount(3)]
void main(triangle I v[3], inout TriangleStream<O> s) {
    O o;
    o.layers = uint3(v[0].layer, v[1].layer, v[2].layer);
    o.vps = uint3(v[0].vp, v[1].vp, v[2].vp);
    o.user = uint3(v[1].a.x * 10 + v[1].a.y, v[1].inner.b * 2, v[1].c);
    o.layer = v[0].layer / 7;       // the instance: into its layer and its viewport
    o.vp = v[0].vp / 11;
    for (uint i = 0; i < 3; i++) { o.pos = v[i].pos; s.Append(o); }
}
"""
PS_THREE = """
struct T { float4 a : SV_Target0; float4 b : SV_Target1; float4 c : SV_Target2; };
T main(float4 p : SV_Position, nointerpolation uint3 layers : LAYERS, nointerpolation uint3 vps : VPS,
       nointerpolation uint3 user : USER, uint layer : SV_RenderTargetArrayIndex, uint vp : SV_ViewportArrayIndex) {
    T t;
    t.a = float4(layers, 255) / 255;
    t.b = float4(vps, 255) / 255;
    t.c = float4(user, layer * 100 + vp * 10 + 5) / 255;
    return t;
}
"""


def test_vertex_shader_values_reach_the_geometry_shader():
    """Two instances of one full-screen triangle; vertex i of instance n writes layer 3i + 1 + 7n and viewport
    5i + 2 + 11n between user values of a nested struct: the GS sees each vertex's pair and the user values,
    and sends instance n to layer n through viewport n."""
    targets, _ = R.draw(VS_TO_GS, PS_THREE, W, H, gs_src=GS_READS, layers=2, viewports=2, instance_count=2,
                        targets=3, full=True)
    size = W * H * 4
    for n in range(2):
        a, b, c = (t[n * size:(n + 1) * size] for t in targets)
        want = ((*(3 * i + 1 + 7 * n for i in range(3)), 255), (*(5 * i + 2 + 11 * n for i in range(3)), 255),
                (12, 3, 41, n * 110 + 5))
        for img, w in zip((a, b, c), want):
            assert {px for _x, _y, px in _strip(img, n)} == {w}, (n, w)
            assert {px for _x, _y, px in _others(img, n)} == {(0, 0, 0, 0)}, n


# ---------------------------------------------------------------- a GS reading one of the two, and another system value

VS_BOTH = """
struct O { float4 pos : SV_Position; uint layer : SV_RenderTargetArrayIndex; uint inst : SV_InstanceID;
           uint vp : SV_ViewportArrayIndex; uint c : C; };
O main(uint id : SV_VertexID, uint inst : SV_InstanceID) {
    O o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(uv * 2 - 1, 0, 1);
    o.layer = 9;
    o.inst = 20 + inst * 3 + id;
    o.vp = id * 5 + 2 + inst * 11;
    o.c = 40 + id;
    return o;
}
"""
GS_VP_ONLY = """
struct I { float4 pos : SV_Position; uint inst : SV_InstanceID; uint vp : SV_ViewportArrayIndex; uint c : C; };
struct O { float4 pos : SV_Position; uint layer : SV_RenderTargetArrayIndex; uint vp : SV_ViewportArrayIndex;
           nointerpolation uint3 layers : LAYERS; nointerpolation uint3 vps : VPS; nointerpolation uint3 user : USER; };
[maxvertexcount(3)]
void main(triangle I v[3], inout TriangleStream<O> s) {
    O o;
    o.layers = uint3(v[0].inst, v[1].inst, v[2].inst);
    o.vps = uint3(v[0].vp, v[1].vp, v[2].vp);
    o.user = uint3(v[0].c, v[1].c, v[2].c);
    o.layer = v[0].vp / 11;
    o.vp = v[0].vp / 11;
    for (uint i = 0; i < 3; i++) { o.pos = v[i].pos; s.Append(o); }
}
"""


def test_geometry_shader_reading_the_viewport_index_alone():
    """The VS writes layer, an SV_InstanceID value (a Location: no built-in output), viewport index and a user
    value; the GS reads all but the layer: the viewport index keeps its Location (the layer's slot stays
    empty), the other system value and the user value theirs."""
    targets, _ = R.draw(VS_BOTH, PS_THREE, W, H, gs_src=GS_VP_ONLY, layers=2, viewports=2, instance_count=2,
                        targets=3, full=True)
    size = W * H * 4
    for n in range(2):
        a, b, c = (t[n * size:(n + 1) * size] for t in targets)
        want = ((*(20 + 3 * n + i for i in range(3)), 255), (*(5 * i + 2 + 11 * n for i in range(3)), 255),
                (40, 41, 42, n * 110 + 5))
        for img, w in zip((a, b, c), want):
            assert {px for _x, _y, px in _strip(img, n)} == {w}, (n, w)
            assert {px for _x, _y, px in _others(img, n)} == {(0, 0, 0, 0)}, n


# ---------------------------------------------------------------- VS -> PS: the pixel shader reads the built-ins

VS_TO_PS = """
struct O { float4 pos : SV_Position; uint layer : SV_RenderTargetArrayIndex; float4 color : COLOR;
           uint vp : SV_ViewportArrayIndex; nointerpolation uint tag : TAG; };
O main(uint id : SV_VertexID, uint inst : SV_InstanceID) {
    O o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(uv * 2 - 1, 0, 1);
    o.layer = inst;
    o.color = float4(10, 20, 30, 40) / 255;
    o.vp = 1 - inst;
    o.tag = 50 + inst;
    return o;
}
"""
PS_BUILTINS = """
float4 main(float4 p : SV_Position, uint layer : SV_RenderTargetArrayIndex, float4 color : COLOR,
            uint vp : SV_ViewportArrayIndex, nointerpolation uint tag : TAG) : SV_Target {
    return float4(color.r * 255 + layer, color.g * 255 + vp, color.b * 255 + tag, 255) / 255;
}
"""


def test_vertex_shader_layer_and_viewport_still_reach_the_pixel_shader():
    """Without a GS the pixel shader reads the Layer / ViewportIndex built-ins (the extra Location the VS
    writes is no one's input, and the user values keep theirs): instance n draws into layer n through
    viewport 1 - n.  Executed from SPIR-V and from DXIL through dxil-spirv."""
    px = R.draw(VS_TO_PS, PS_BUILTINS, W, H, layers=2, viewports=2, instance_count=2)
    for n in range(2):
        img = px[n * W * H * 4:(n + 1) * W * H * 4]
        assert {p for _x, _y, p in _strip(img, 1 - n)} == {(10 + n, 20 + 1 - n, 30 + 50 + n, 255)}, n
        assert {p for _x, _y, p in _others(img, 1 - n)} == {(0, 0, 0, 0)}, n


# ---------------------------------------------------------------- DS -> GS, and VS -> HS -> DS -> GS

TRI_DECLS = """
struct PC { float edges[3] : SV_TessFactor; uint tint : TINT; float inside : SV_InsideTessFactor; };
PC constants() { PC o; o.edges[0] = 1; o.edges[1] = 1; o.edges[2] = 1; o.tint = 7; o.inside = 1; return o; }
static const float2 CORNER[3] = { float2(-1, -1), float2(3, -1), float2(-1, 3) };
uint corner(float3 uvw) { return uvw.y > 0.5 ? 1 : uvw.z > 0.5 ? 2 : 0; }
"""
VS_PLAIN = """
struct CP { float4 pos : POS; };
CP main(uint id : SV_VertexID) { CP o; o.pos = float4(id, 0, 0, 1); return o; }
"""
HS_PLAIN = TRI_DECLS + """
struct CP { float4 pos : POS; };
[domain("tri")] [partitioning("integer")] [outputtopology("triangle_cw")]
[outputcontrolpoints(3)] [patchconstantfunc("constants")]
CP main(InputPatch<CP, 3> patch, uint i : SV_OutputControlPointID) { return patch[i]; }
"""
DS_WRITES = TRI_DECLS + """
struct CP { float4 pos : POS; };
struct O { float4 pos : SV_Position; uint layer : SV_RenderTargetArrayIndex; nointerpolation uint k : CORNER;
           uint vp : SV_ViewportArrayIndex; };
[domain("tri")]
O main(PC pc, float3 uvw : SV_DomainLocation, const OutputPatch<CP, 3> p, uint pid : SV_PrimitiveID) {
    O o;
    uint k = corner(uvw);
    o.pos = float4(CORNER[k], 0, 1);
    o.layer = 1 + 3 * k + 10 * pid;
    o.k = k;
    o.vp = 2 + 2 * k + 10 * pid;
    return o;
}
"""
GS_CORNERS = """
struct I { float4 pos : SV_Position; uint layer : SV_RenderTargetArrayIndex; nointerpolation uint k : CORNER;
           uint vp : SV_ViewportArrayIndex; };
struct O { float4 pos : SV_Position; uint layer : SV_RenderTargetArrayIndex; uint vp : SV_ViewportArrayIndex;
           nointerpolation uint3 layers : LAYERS; nointerpolation uint3 vps : VPS; nointerpolation uint3 user : USER; };
[maxvertexcount(3)]
void main(triangle I v[3], inout TriangleStream<O> s) {
    O o;
    o.layers = uint3(v[0].layer, v[1].layer, v[2].layer);
    o.vps = uint3(v[0].vp, v[1].vp, v[2].vp);
    o.user = uint3(v[0].k, v[1].k, v[2].k);
    o.layer = v[0].layer / DIV_LAYER;      // the patch: into its layer and its viewport
    o.vp = v[0].vp / DIV_VP;
    for (uint i = 0; i < 3; i++) { o.pos = v[i].pos; s.Append(o); }
}
"""
PS_CORNERS = PS_THREE


def _check_corners(targets: list[bytes], layer_of, vp_of) -> None:
    """Patch n's triangle, in layer n through viewport n: its three vertices' (layer, viewport) pairs are
    those written for the corners they are (the tessellator's vertex order is its own)."""
    size = W * H * 4
    for n in range(2):
        a, b, c = (t[n * size:(n + 1) * size] for t in targets)
        got = {(R.pixel(a, W, x, y), R.pixel(b, W, x, y), R.pixel(c, W, x, y)) for x, y, _p in _strip(a, n)}
        assert len(got) == 1, (n, got)
        (la, vb, kc), = got
        ks = kc[:3]
        assert sorted(ks) == [0, 1, 2] and kc[3] == n * 110 + 5, (n, kc)
        assert la == (*(layer_of(n, k) for k in ks), 255), (n, la, ks)
        assert vb == (*(vp_of(n, k) for k in ks), 255), (n, vb, ks)
        for img in (a, b, c):
            assert {px for _x, _y, px in _others(img, n)} == {(0, 0, 0, 0)}, n


def test_domain_shader_values_reach_the_geometry_shader():
    """Two one-triangle patches; the domain shader writes layer 1 + 3k + 10p and viewport 2 + 2k + 10p at
    corner k of patch p (a user value between them): the GS sees each vertex's pair."""
    gs = GS_CORNERS.replace("DIV_LAYER", "10").replace("DIV_VP", "10")
    targets = draw_stages({"vs": (VS_PLAIN, "vs_6_0"), "hs": (HS_PLAIN, "hs_6_0"), "ds": (DS_WRITES, "ds_6_0"),
                           "gs": (gs, "gs_6_0"), "ps": (PS_CORNERS, "ps_6_0")}, 6, control_points=3, targets=3,
                          layers=2, viewports=2)
    _check_corners(targets, lambda n, k: 1 + 3 * k + 10 * n, lambda n, k: 2 + 2 * k + 10 * n)


VS_CP_LAYER = """
struct CP { float4 pos : POS; uint layer : SV_RenderTargetArrayIndex; uint vp : SV_ViewportArrayIndex;
            uint tag : TAG; };
CP main(uint id : SV_VertexID) {
    CP o;
    o.pos = float4(id, 0, 0, 1);
    o.layer = 1 + 3 * id;
    o.vp = 2 + 2 * id;
    o.tag = 100 + id;
    return o;
}
"""
HS_CP_LAYER = TRI_DECLS + """
struct CP { float4 pos : POS; uint layer : SV_RenderTargetArrayIndex; uint vp : SV_ViewportArrayIndex;
            uint tag : TAG; };
[domain("tri")] [partitioning("integer")] [outputtopology("triangle_cw")]
[outputcontrolpoints(3)] [patchconstantfunc("constants")]
CP main(InputPatch<CP, 3> patch, uint i : SV_OutputControlPointID) {
    return patch[i];
}
"""
DS_CP_LAYER = TRI_DECLS + """
struct CP { float4 pos : POS; uint layer : SV_RenderTargetArrayIndex; uint vp : SV_ViewportArrayIndex;
            uint tag : TAG; };
struct O { float4 pos : SV_Position; uint layer : SV_RenderTargetArrayIndex; nointerpolation uint k : CORNER;
           uint vp : SV_ViewportArrayIndex; };
[domain("tri")]
O main(PC pc, float3 uvw : SV_DomainLocation, const OutputPatch<CP, 3> p) {
    O o;
    uint k = corner(uvw);
    o.pos = float4(CORNER[k], 0, 1);
    // the control point's, if its TAG and the user patch constant survived
    o.layer = p[k].tag == 100 + (uint)p[k].pos.x && pc.tint == 7 ? p[k].layer : 99;
    o.k = k;
    o.vp = p[k].vp;
    return o;
}
"""


def test_layer_passes_through_hull_and_domain_shaders_to_the_geometry_shader():
    """VS -> HS -> DS -> GS: the vertex shader writes layer 1 + 3i and viewport 2 + 2i at vertex i (control
    point k of patch p is vertex 3p + k); the hull shader passes each control point on (its input and output of
    the semantics are Locations: Vulkan has no Layer in that stage, numbered after the user Locations of the
    control points and of the patch constants), the domain shader writes control point k's at corner k, the GS
    sees them."""
    gs = GS_CORNERS.replace("DIV_LAYER", "10").replace("DIV_VP", "8")
    targets = draw_stages({"vs": (VS_CP_LAYER, "vs_6_0"), "hs": (HS_CP_LAYER, "hs_6_0"),
                           "ds": (DS_CP_LAYER, "ds_6_0"), "gs": (gs, "gs_6_0"), "ps": (PS_CORNERS, "ps_6_0")}, 6,
                          control_points=3, targets=3, layers=2, viewports=2)
    _check_corners(targets, lambda n, k: 1 + 3 * (3 * n + k), lambda n, k: 2 + 2 * (3 * n + k))


# ---------------------------------------------------------------- a mesh shader's per-primitive layer and viewport

MESH_ENV = "vulkan1.2"      # mesh shaders are SPIR-V 1.4 (SPV_EXT_mesh_shader)
MS_PRIMS = """
struct V { float4 pos : SV_Position; };
struct P { uint layer : SV_RenderTargetArrayIndex; uint vp : SV_ViewportArrayIndex; };
[outputtopology("triangle")] [numthreads(3, 1, 1)]
void main(uint t : SV_GroupThreadID, uint g : SV_GroupID, out vertices V verts[3], out indices uint3 tris[2],
          out primitives P prims[2]) {
    SetMeshOutputCounts(3, 2);
    verts[t].pos = float4(t == 1 ? 3.0 : -1.0, t == 2 ? 3.0 : -1.0, 0, 1);    // covers the whole target
    if (t < 2) { tris[t] = uint3(0, 1, 2); prims[t].layer = g; prims[t].vp = 1 - t; }
}
"""
PS_PRIMS = """
float4 main(float4 p : SV_Position, uint layer : SV_RenderTargetArrayIndex, uint vp : SV_ViewportArrayIndex)
    : SV_Target {
    return float4(layer * 100 + 7, vp * 50 + 9, 3, 255) / 255;
}
"""


def _mesh_pixels_ok(px: bytes) -> None:
    """Group g's primitive t: layer g, viewport 1 - t (each primitive the full screen of its viewport)."""
    for g in range(2):
        img = px[g * W * H * 4:(g + 1) * W * H * 4]
        for vp in range(2):
            assert {p for _x, _y, p in _strip(img, vp)} == {(g * 100 + 7, vp * 50 + 9, 3, 255)}, (g, vp)


def _mesh_builds():
    ms = R.build(MS_PRIMS, "main", "ms_6_5", env=MESH_ENV)
    ps = R.build(PS_PRIMS, "main", "ps_6_5", env=MESH_ENV)
    return ms, ps


def test_mesh_shader_primitive_layer_and_viewport_reach_the_pixel_shader():
    """SV_RenderTargetArrayIndex / SV_ViewportArrayIndex written per primitive by a mesh shader (Layer /
    ViewportIndex with PerPrimitiveEXT): each of two groups' two primitives lands in its layer and viewport, and
    the pixel shader reads both built-ins."""
    from harness.vulkan_runner import run_mesh

    ms, ps = _mesh_builds()
    _mesh_pixels_ok(run_mesh(ms.binary, "main", ps.binary, "main", W, H, (2, 1, 1), layers=2, viewports=2))


def test_dxil_mesh_shader_primitive_layer_and_viewport():
    """The DXIL twins of the same draw: the mesh shader's primitive signature has both semantics per primitive
    and dxil-spirv makes them PerPrimitive Layer / ViewportIndex outputs (spirv-val passes).  Not drawn:
    lavapipe (Mesa 25.0.7) draws dxil-spirv's mesh shaders (Position stored one component at a time) only
    after a mesh pipeline of ours has drawn in the process (empty when first, exact after: 3 of 3 fresh
    processes each way), so the result would depend on test order (tests/resources/test_mesh_shaders.py's
    test_position_stored_one_component_at_a_time is the stable half of that limit)."""
    from dxil_run import consumer_spirv
    from harness import tools

    ms, _ps = _mesh_builds()
    twin = R.twin_of(ms)
    assert twin is not None
    prims = {e["semantic"]: e for e in twin.manifest["entry"]["outputs"] if e.get("mesh_output") == "primitive"}
    assert set(prims) == {RTAI, VPAI} and all(e["elements"] == 2 for e in prims.values())
    converted = consumer_spirv(twin)
    assert converted is not None
    text = tools.spirv_dis(converted[0])
    for sem, builtin in ((RTAI, "Layer"), (VPAI, "ViewportIndex")):
        assert f"OpDecorate %{sem} BuiltIn {builtin}" in text and f"OpDecorate %{sem} PerPrimitive" in text


# ---------------------------------------------------------------- the manifests describe the extra Location

def _io(manifest: dict, side: str, semantic: str) -> list[dict]:
    return [e for e in manifest["entry"][side] if e["semantic"] == semantic]


def test_manifests_name_the_location_both_stages_use():
    """The writer's manifest lists the built-in and the Location of each semantic, the reader's the Location:
    after the signature's user Locations (A, B, C: 3 here; CORNER: 1), in signature order."""
    vs = R.build(VS_TO_GS, "main", "vs_6_0").manifest
    gs = R.build(GS_READS, "main", "gs_6_0").manifest
    for sem, loc in ((RTAI, 3), (VPAI, 4)):
        assert sorted(map(str, ({k: e[k] for k in ("builtin", "location") if k in e} for e in _io(vs, "outputs", sem)))) \
            == sorted(map(str, ({"builtin": "Layer" if sem == RTAI else "ViewportIndex"}, {"location": loc})))
        assert [e["location"] for e in _io(gs, "inputs", sem)] == [loc]
    ds = R.build(DS_WRITES, "main", "ds_6_0").manifest
    gs2 = R.build(GS_CORNERS.replace("DIV_LAYER", "10").replace("DIV_VP", "10"), "main", "gs_6_0").manifest
    for sem, loc in ((RTAI, 1), (VPAI, 2)):
        assert [e.get("location") for e in _io(ds, "outputs", sem)] == [None, loc]
        assert [e["location"] for e in _io(gs2, "inputs", sem)] == [loc]
    ps = R.build(PS_THREE, "main", "ps_6_0").manifest      # the pixel shader: the built-ins only
    assert [e.get("builtin") for e in _io(ps, "inputs", RTAI) + _io(ps, "inputs", VPAI)] == ["Layer", "ViewportIndex"]
    schema = json.loads(resources.files("shaderbuild.reflect").joinpath("manifest.schema.json").read_text())
    for m in (vs, gs, ds, gs2, ps):
        jsonschema.validate(m, schema)


HS_PATCH_LAYER = """
struct CP { float4 pos : POS; uint layer : SV_RenderTargetArrayIndex; };
struct PC { float edges[3] : SV_TessFactor; float inside : SV_InsideTessFactor; uint vp : SV_ViewportArrayIndex;
            uint tint : TINT; };
PC constants(InputPatch<CP, 3> ip) {
    PC o; o.edges[0] = 1; o.edges[1] = 1; o.edges[2] = 1; o.inside = 1;
    o.vp = ip[1].layer; o.tint = 7;
    return o;
}
[domain("tri")] [partitioning("integer")] [outputtopology("triangle_cw")]
[outputcontrolpoints(3)] [patchconstantfunc("constants")]
CP main(InputPatch<CP, 3> patch, uint i : SV_OutputControlPointID) { return patch[i]; }
"""
DS_PATCH_LAYER = """
static const float2 CORNER[3] = { float2(-1, -1), float2(3, -1), float2(-1, 3) };
uint corner(float3 uvw) { return uvw.y > 0.5 ? 1 : uvw.z > 0.5 ? 2 : 0; }
struct CP { float4 pos : POS; uint layer : SV_RenderTargetArrayIndex; };
struct PC { float edges[3] : SV_TessFactor; float inside : SV_InsideTessFactor; uint vp : SV_ViewportArrayIndex;
            uint tint : TINT; };
struct O { float4 pos : SV_Position; uint layer : SV_RenderTargetArrayIndex; nointerpolation uint3 seen : SEEN; };
[domain("tri")]
O main(PC pc, float3 uvw : SV_DomainLocation, const OutputPatch<CP, 3> p, uint pid : SV_PrimitiveID) {
    O o;
    o.pos = float4(CORNER[corner(uvw)], 0, 1);
    o.layer = pid;
    o.seen = uint3(pc.vp, pc.tint, p[0].layer + p[1].layer + p[2].layer);
    return o;
}
"""
VS_PATCH_LAYER = """
struct CP { float4 pos : POS; uint layer : SV_RenderTargetArrayIndex; };
CP main(uint id : SV_VertexID) { CP o; o.pos = float4(id, 0, 0, 1); o.layer = 1 + 3 * id; return o; }
"""
PS_SEEN = """
float4 main(float4 p : SV_Position, uint layer : SV_RenderTargetArrayIndex, nointerpolation uint3 seen : SEEN)
    : SV_Target {
    return float4(seen, 255) / 255;
}
"""


def test_hull_and_domain_shaders_agree_on_patch_constant_layers():
    """A hull shader with a layer per control point and a viewport index among its patch constants (D3D's
    PCOut; a semantic is output once): the layer's Location and the viewport index's one after it, in the hull
    shader's outputs as in the domain shader's inputs (user Locations: POS 0, TINT 1); the domain shader reads
    the values the vertex shader wrote through both.  (DXIL: such a patch constant is an arbitrary value,
    DxilSigPoint.inl's Arb at PCOut and DSIn.)"""
    hs = R.build(HS_PATCH_LAYER, "main", "hs_6_0").manifest
    ds = R.build(DS_PATCH_LAYER, "main", "ds_6_0").manifest

    def located(entries: list[dict]) -> list[tuple]:
        return sorted((e["semantic"], bool(e.get("patch")), e["location"]) for e in entries if "location" in e)

    want = [("POS", False, 0), (RTAI, False, 2), (VPAI, True, 3), ("TINT", True, 1)]
    assert located(hs["entry"]["outputs"]) == sorted(want)
    assert located(ds["entry"]["inputs"]) == sorted(want)
    # drawn: two patches; the patch constants take control point 1's layer (vertex 3p + 1 wrote 1 + 3(3p + 1))
    (px,) = draw_stages({"vs": (VS_PATCH_LAYER, "vs_6_0"), "hs": (HS_PATCH_LAYER, "hs_6_0"),
                         "ds": (DS_PATCH_LAYER, "ds_6_0"), "ps": (PS_SEEN, "ps_6_0")}, 6, control_points=3, layers=2)
    for n in range(2):
        layers = [1 + 3 * (3 * n + k) for k in range(3)]
        img = px[n * W * H * 4:(n + 1) * W * H * 4]
        assert {R.pixel(img, W, x, y) for y in range(H) for x in range(W)} == {(layers[1], 7, sum(layers), 255)}, n


# ---------------------------------------------------------------- DXIL: dxil-spirv's Layer input in a GS

@pytest.mark.xfail(strict=True, raises=ConsumerLimit, reason="dxil-spirv: a geometry shader's SV_RenderTargetArrayIndex / "
                   "SV_ViewportArrayIndex input (DXC's signature element, SV at GSVIn) becomes a Layer / "
                   "ViewportIndex Input of the Geometry model (dxil_converter.cpp's built-in switch), which "
                   "spirv-val rejects (VUID-Layer-Layer-04274); run anyway, lavapipe gives the GS 0 "
                   "(harness LIMITS 'sv-builtin-in-stage')")
def test_dxil_geometry_shader_input_of_the_layer_converts():
    """The DXIL twin of GS_READS through dxil-spirv: its SPIR-V should pass spirv-val."""
    from harness import dxil_consumer

    gs = R.build(GS_READS, "main", "gs_6_0")
    twin = R.twin_of(gs)
    assert twin is not None
    dxil_consumer.to_spirv(twin.binary)
