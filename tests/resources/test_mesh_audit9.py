"""Mesh and amplification audit (issue 20), drawn on lavapipe (VK_EXT_mesh_shader) and checked pixel
by pixel against images computed here: every primitive is an axis-aligned quad with its edges on
pixel boundaries, or a horizontal line through pixel centres, so coverage is a comparison, not a
rasteriser.

What the older test_mesh_shaders.py does not reach: several amplification groups each sending a
payload struct (counts, floats, an id array, a vector) to a two-dimensional DispatchMesh; a mesh
shader whose outputs are written by different threads than the ones that computed them (through
groupshared memory and a barrier) and whose vertices, indices and primitive attributes are written
by disjoint threads; SV_PrimitiveID written per primitive; line topology with uint2 indices,
executed.  The amplification and pixel shaders run again from their DXIL twins through dxil-spirv
(the DXIL mesh shader does not draw on lavapipe: see test_mesh_shaders.py's strict xfail)."""

from __future__ import annotations

import pytest
import res_util as R

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

W = H = 16
ENV = "vulkan1.2"

MS = """
struct V { float4 pos : SV_Position; [[vk::location(1)]] nointerpolation float4 color : COLOR0; };
struct P { [[vk::location(2)]] nointerpolation float4 tint : TINT; uint id : SV_PrimitiveID; };
struct Payload { uint count; float base; uint ids[8]; float4 tint; };
groupshared float2 corners[4];

[outputtopology("triangle")]
[numthreads(8, 1, 1)]
void main(uint t : SV_GroupThreadID, uint2 gid : SV_GroupID, in payload Payload pl,
          out vertices V verts[4], out indices uint3 tris[2], out primitives P prims[2]) {
    SetMeshOutputCounts(4, 2);
    uint m = pl.ids[gid.x];
    if (t < 4) {        // threads 0-3 compute the corners (pixels -> NDC) ...
        float x0 = (m % 4) * 4, y0 = (m / 4) * 8 + 1 + 3 * gid.y;
        corners[t] = float2((t & 1) ? x0 + 3 : x0, (t & 2) ? y0 + 3 : y0) / 8.0 - 1.0;
    }
    GroupMemoryBarrierWithGroupSync();
    if (t < 4) {        // ... and each writes its neighbour's vertex
        uint v = (t + 1) % 4;
        verts[v].pos = float4(corners[v], 0, 1);
        verts[v].color = float4(pl.base + m * 0.0625, 0, 0, 1);
    } else if (t < 6) {
        tris[t - 4] = t == 4 ? uint3(0, 1, 2) : uint3(1, 3, 2);
    } else {
        uint p = t - 6;
        prims[p].tint = float4(0, pl.tint.g + gid.y * 0.25, 0, 0);
        prims[p].id = m * 2 + gid.y;
    }
}
"""
AS = """
struct Payload { uint count; float base; uint ids[8]; float4 tint; };
groupshared Payload pl;

[numthreads(4, 1, 1)]
void main(uint t : SV_GroupThreadID, uint g : SV_GroupID) {
    uint mask = g == 0 ? MASK0 : MASK1;
    if ((mask >> t) & 1)
        pl.ids[countbits(mask & ((1u << t) - 1))] = g * 4 + t;
    if (t == 0) {
        pl.count = countbits(mask);
        pl.base = 0.5 * g;
        pl.tint = float4(0, 0.5, 0, 0);
    }
    GroupMemoryBarrierWithGroupSync();
    DispatchMesh(pl.count, 2, 1, pl);
}
"""
PS = """
struct V { float4 pos : SV_Position; [[vk::location(1)]] nointerpolation float4 color : COLOR0; };
struct P { [[vk::location(2)]] [[vk::perprimitive]] nointerpolation float4 tint : TINT; };
float4 main(V v, P p, uint id : SV_PrimitiveID) : SV_Target {
    return float4(v.color.r, p.tint.g, id / 16.0, 1);
}
"""


def pixels(data: bytes) -> list[tuple[int, ...]]:
    return [tuple(data[i:i + 4]) for i in range(0, W * H * 4, 4)]


def expected(masks: tuple[int, int]) -> list[tuple[int, ...]]:
    """Meshlet m = 4g + t of amplification group g (drawn when bit t of its mask is set) covers the
    4 x 8 cell (m % 4, m // 4) of the target, inset: columns 4(m % 4) .. +2, and its two mesh groups
    (SV_GroupID.y = half) rows 8(m // 4) + 1 + 3 half .. +2."""
    want = [(0, 0, 0, 0)] * (W * H)
    for g, mask in enumerate(masks):
        for t in range(4):
            if not mask >> t & 1:
                continue
            m = 4 * g + t
            for half in (0, 1):
                color = (R.unorm8(0.5 * g + m * 0.0625), R.unorm8(0.5 + 0.25 * half), R.unorm8((2 * m + half) / 16), 255)
                x0, y0 = (m % 4) * 4, (m // 4) * 8 + 1 + 3 * half
                for y in range(y0, y0 + 3):
                    for x in range(x0, x0 + 3):
                        want[y * W + x] = color
    return want


def _converted(res):
    from dxil_run import consumer_spirv

    twin = R.twin_of(res)
    assert twin is not None, "the DXIL twin failed"
    out = consumer_spirv(twin)
    assert out is not None, "dxil-spirv could not convert the DXIL twin"
    return out[0], out[1]["entry"]


@pytest.mark.parametrize("masks", [(0b1111, 0b1111), (0b1011, 0b0110), (0b0000, 0b1001)])
def test_amplification_groups_payload_and_threads_writing_each_others_outputs(masks):
    from harness.vulkan_runner import run_mesh

    ms = R.build(MS, "main", "ms_6_5", env=ENV)
    ps = R.build(PS, "main", "ps_6_5", env=ENV)
    task = R.build(AS.replace("MASK0", str(masks[0])).replace("MASK1", str(masks[1])), "main", "as_6_5", env=ENV)
    for res in (ms, ps, task):
        R.spirv_val_flags(res.binary, "vulkan1.3")
    want = expected(masks)
    got = pixels(run_mesh(ms.binary, "main", ps.binary, "main", W, H, (2, 1, 1), task=(task.binary, "main")))
    assert got == want
    again = pixels(run_mesh(ms.binary, "main", *_converted(ps), W, H, (2, 1, 1), task=_converted(task)))
    assert again == want, "the DXIL twins through dxil-spirv draw differently"


def test_reference_is_not_trivial():
    full = expected((0b1111, 0b1111))
    assert len({p for p in full if p != (0, 0, 0, 0)}) == 16      # 8 meshlets x 2 halves, all distinct
    assert sum(p != (0, 0, 0, 0) for p in full) == 16 * 9


LINES = """
struct V { float4 pos : SV_Position; };
struct P { [[vk::location(2)]] nointerpolation float4 tint : TINT; uint id : SV_PrimitiveID; };

[outputtopology("line")]
[numthreads(8, 1, 1)]
void main(uint t : SV_GroupThreadID, uint g : SV_GroupID, out vertices V verts[8], out indices uint2 lines[4],
          out primitives P prims[4]) {
    SetMeshOutputCounts(8, COUNT);
    uint seg = t / 2, row = 2 + 4 * g + seg;
    float x = (t & 1) ? 2 + 2 * seg + 6 : 2 + 2 * seg;
    verts[t].pos = float4(x / 8.0 - 1.0, (row + 0.5) / 8.0 - 1.0, 0, 1);
    if (t < COUNT) {
        lines[t] = uint2(2 * t, 2 * t + 1);
        prims[t].tint = float4(0, 0.25 * (t + 1), 0, 0);
        prims[t].id = 10 * g + t;
    }
}
"""
PS_LINES = """
struct P { [[vk::location(2)]] [[vk::perprimitive]] nointerpolation float4 tint : TINT; };
float4 main(float4 pos : SV_Position, P p, uint id : SV_PrimitiveID) : SV_Target {
    return float4(1, p.tint.g, id / 32.0, 1);
}
"""


@pytest.mark.parametrize("count", [4, 3])
def test_line_topology_draws_its_lines(count):
    """Group g's line k runs along pixel row 2 + 4g + k from x = 2 + 2k to 8 + 2k: the pixels strictly
    inside light up in its per-primitive colour (the end pixels depend on the line rasterisation
    rule and may go either way), no other pixel does; SetMeshOutputCounts(8, 3) drops the fourth."""
    from harness.vulkan_runner import run_mesh

    ms = R.build(LINES.replace("COUNT", str(count)), "main", "ms_6_5", env=ENV)
    ps = R.build(PS_LINES, "main", "ps_6_5", env=ENV)
    got = pixels(run_mesh(ms.binary, "main", ps.binary, "main", W, H, (2, 1, 1)))
    either = set()
    want = [(0, 0, 0, 0)] * (W * H)
    for g in range(2):
        for k in range(count):
            row, x0, x1 = 2 + 4 * g + k, 2 + 2 * k, 8 + 2 * k
            color = (255, R.unorm8(0.25 * (k + 1)), R.unorm8((10 * g + k) / 32), 255)
            for x in range(x0, x1):
                want[row * W + x] = color
            either |= {(row * W + x0 - 1, color), (row * W + x0, color), (row * W + x1 - 1, color),
                       (row * W + x1, color)}
    loose = {i for i, _ in either}
    for i, (g_px, w_px) in enumerate(zip(got, want)):
        if i in loose:
            assert g_px == (0, 0, 0, 0) or (i, g_px) in either, f"pixel {i % W}, {i // W}: {g_px}"
        else:
            assert g_px == w_px, f"pixel {i % W}, {i // W}: {g_px} != {w_px}"
    assert sum(p != (0, 0, 0, 0) for p in got) >= 2 * count * 4


# ---- D3D's validator: one SetMeshOutputCounts, dominating every output write

ONE_QUAD = """
struct V { float4 pos : SV_Position; };
[outputtopology("triangle")]
[numthreads(4, 1, 1)]
void main(uint t : SV_GroupThreadID, out vertices V verts[4], out indices uint3 tris[2]) {
BODY
}
"""
WRITES = """    verts[t].pos = float4(t & 1, t >> 1, 0, 1);
    if (t < 2)
        tris[t] = t == 0 ? uint3(0, 1, 2) : uint3(1, 3, 2);"""


def _error(body: str, target: str) -> str:
    src = ONE_QUAD.replace("BODY", body)
    res = R.compile_hlsl(src, "main", "ms_6_5", target, env=ENV)
    assert not res.ok, f"{target} compiled:\n{src}"
    d = next(d for d in res.diagnostics if d.severity == "error")
    assert d.loc is not None
    return f"{d.loc.line}:{d.loc.col}: {d.message}"


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_set_mesh_output_counts_twice_is_refused(target):
    body = "    SetMeshOutputCounts(4, 2);\n" + WRITES + "\n    SetMeshOutputCounts(4, 2);"
    assert _error(body, target) == "10:5: SetMeshOutputCounts is called once per mesh shader: a second call"


@pytest.mark.parametrize("body, where", [
    ("    if (t == 0)\n        SetMeshOutputCounts(4, 2);\n" + WRITES, "8:18: mesh shader output 'verts'"),
    (WRITES + "\n    SetMeshOutputCounts(4, 2);", "6:18: mesh shader output 'verts'"),
    ("    verts[t].pos = 0;\n    if (t < 4) {\n        SetMeshOutputCounts(4, 2);\n"
     "        tris[0] = uint3(0, 1, 2);\n    }", "6:18: mesh shader output 'verts'"),
    ("    for (uint i = 0; i < 1; i++)\n        SetMeshOutputCounts(4, 2);\n" + WRITES,
     "8:18: mesh shader output 'verts'"),
], ids=["in-a-branch", "after-the-writes", "write-before-the-branch", "in-a-loop"])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_writes_set_mesh_output_counts_does_not_dominate_are_refused(body, where, target):
    got = _error(body, target)
    assert got.startswith(where), got
    assert "may not have run: the call must come first on every path to an output write" in got


@pytest.mark.parametrize("body", [
    "    if (t > 7)\n        return;\n    SetMeshOutputCounts(4, 2);\n" + WRITES,
    "    if (t < 4) {\n        SetMeshOutputCounts(4, 2);\n" + WRITES.replace("\n", "\n    ") + "\n    }",
    "    SetMeshOutputCounts(4, 2);\n    for (uint i = 0; i < 1; i++) {\n" + WRITES + "\n    }",
], ids=["after-an-early-return", "writes-in-the-same-branch", "writes-in-a-later-loop"])
def test_dominated_writes_compile(body):
    src = ONE_QUAD.replace("BODY", body)
    for target in ("spirv", "dxil"):
        res = R.compile_hlsl(src, "main", "ms_6_5", target, env=ENV)
        assert res.ok, R.diagnostics_text(res)


PERSPECTIVE_MS = """
struct V { float4 pos : SV_Position; [[vk::location(1)]] float4 smooth : COLOR0;
           [[vk::location(2)]] noperspective float4 flat_screen : COLOR1; };
[outputtopology("triangle")]
[numthreads(4, 1, 1)]
void main(uint t : SV_GroupThreadID, out vertices V verts[4], out indices uint3 tris[2]) {
    SetMeshOutputCounts(4, 2);
    float x = (t & 1) ? 1.0 : -1.0, y = (t & 2) ? 1.0 : -1.0, w = (t & 1) ? 2.0 : 1.0;
    verts[t].pos = float4(x * w, y * w, 0, w);       // the same square on screen, deeper on the right
    verts[t].smooth = float4((t & 1), (t & 2) / 2, 0, 0);
    verts[t].flat_screen = float4((t & 1), 0, 0, 0);
    if (t < 2)
        tris[t] = t == 0 ? uint3(0, 1, 2) : uint3(1, 3, 2);
}
"""
PERSPECTIVE_PS = """
struct V { float4 pos : SV_Position; [[vk::location(1)]] float4 smooth : COLOR0;
           [[vk::location(2)]] noperspective float4 flat_screen : COLOR1; };
float4 main(V v) : SV_Target { return float4(v.smooth.r, v.flat_screen.r, v.smooth.g, 1); }
"""


def _interpolated(px: float, py: float) -> tuple[float, float, float]:
    """(smooth.r, flat_screen.r, smooth.g) at NDC point (px, py): screen-space barycentrics in the triangle
    holding it, weighted by 1/w for the perspective-correct attribute."""
    verts = [((-1, -1), 1.0, (0, 0)), ((1, -1), 2.0, (1, 0)), ((-1, 1), 1.0, (0, 1)), ((1, 1), 2.0, (1, 1))]
    tri = (0, 1, 2) if px + py < 0 else (1, 3, 2)
    (ax, ay), (bx, by), (cx, cy) = (verts[i][0] for i in tri)
    det = (bx - ax) * (cy - ay) - (cx - ax) * (by - ay)
    l1 = ((px - ax) * (cy - ay) - (cx - ax) * (py - ay)) / det
    l2 = ((bx - ax) * (py - ay) - (px - ax) * (by - ay)) / det
    lam = (1 - l1 - l2, l1, l2)
    inv = sum(lam[k] / verts[i][1] for k, i in enumerate(tri))
    r = sum(lam[k] * verts[i][2][0] / verts[i][1] for k, i in enumerate(tri)) / inv
    g = sum(lam[k] * verts[i][2][1] / verts[i][1] for k, i in enumerate(tri)) / inv
    return r, sum(lam[k] * verts[i][2][0] for k, i in enumerate(tri)), g


def test_mesh_outputs_interpolate_with_and_without_perspective():
    """Across a full-screen quad whose right edge has w = 2, perspective-correct and noperspective
    attributes differ (each within one unorm8 step of _interpolated's value)."""
    from harness.vulkan_runner import run_mesh

    ms = R.build(PERSPECTIVE_MS, "main", "ms_6_5", env=ENV)
    ps = R.build(PERSPECTIVE_PS, "main", "ps_6_5", env=ENV)
    assert "NoPerspective" in R.spirv_dis(ms) and "NoPerspective" in R.spirv_dis(ps)
    assert max(abs(r - n) for r, n, _g in (_interpolated(x / 8 - 0.9375, 0.0) for x in range(16))) * 255 > 20
    for got in (pixels(run_mesh(ms.binary, "main", ps.binary, "main", W, H)),
                pixels(run_mesh(ms.binary, "main", *_converted(ps), W, H))):
        for y in range(H):
            for x in range(W):
                want = _interpolated(2 * (x + 0.5) / W - 1, 2 * (y + 0.5) / H - 1)
                px = got[y * W + x]
                assert all(abs(px[k] - want[k] * 255) <= 1.0 for k in range(3)) and px[3] == 255, \
                    f"pixel ({x}, {y}): {px}, want {[round(c * 255, 1) for c in want]}"


# the mesh shader without groupshared memory (the DXIL interpreter runs a group's threads one after another):
# each thread computes the vertex it writes, still another thread's
MS_SERIAL = MS.replace("groupshared float2 corners[4];\n", "").replace("""    if (t < 4) {        // threads 0-3 compute the corners (pixels -> NDC) ...
        float x0 = (m % 4) * 4, y0 = (m / 4) * 8 + 1 + 3 * gid.y;
        corners[t] = float2((t & 1) ? x0 + 3 : x0, (t & 2) ? y0 + 3 : y0) / 8.0 - 1.0;
    }
    GroupMemoryBarrierWithGroupSync();
""", "").replace("""        verts[v].pos = float4(corners[v], 0, 1);""", """        float x0 = (m % 4) * 4, y0 = (m / 4) * 8 + 1 + 3 * gid.y;
        verts[v].pos = float4(float2((v & 1) ? x0 + 3 : x0, (v & 2) ? y0 + 3 : y0) / 8.0 - 1.0, 0, 1);""")


@pytest.mark.parametrize("ids", [(0, 1, 2, 3), (6, 3, 5, 0)])
def test_dxil_mesh_outputs_from_other_threads_on_the_interpreter(ids):
    """MS_SERIAL's DXIL twin run by the lli interpreter over a 4 x 2 grid of groups, the payload given here:
    each group's counts, indices, positions, colours, tints and primitive ids as computed from the meshlet
    its payload names; the SPIR-V build draws the same picture as MS on lavapipe."""
    import struct

    from harness.dxil_exec import run_dxil_mesh
    from harness.vulkan_runner import run_mesh

    assert "corners" not in MS_SERIAL and "GroupMemoryBarrier" not in MS_SERIAL
    ms = R.build(MS_SERIAL, "main", "ms_6_5", env=ENV)
    ps = R.build(PS, "main", "ps_6_5", env=ENV)
    task = R.build(AS.replace("MASK0", "15").replace("MASK1", "15"), "main", "as_6_5", env=ENV)
    assert pixels(run_mesh(ms.binary, "main", ps.binary, "main", W, H, (2, 1, 1), task=(task.binary, "main"))) \
        == expected((15, 15))
    twin = R.twin_of(ms)
    assert twin is not None
    refl = twin.manifest["backend"]["dxil"]
    vsig = {e["semantic"]: i for i, e in enumerate(refl["outputs"])}
    psig = {e["semantic"]: i for i, e in enumerate(refl["primitive_outputs"])}
    base = 0.25
    payload = struct.pack("<If8I4f", 4, base, *ids, 0, 0, 0, 0, 0, 0.375, 0, 0)
    got = run_dxil_mesh(twin.binary, "main", [], (4, 2, 1), payload)
    assert len(got) == 8
    for g, out in enumerate(got):
        gx, half = g % 4, g // 4
        m = ids[gx]
        x0, y0 = (m % 4) * 4, (m // 4) * 8 + 1 + 3 * half
        assert out.counts == (4, 2) and out.indices == [(0, 1, 2), (1, 3, 2)], f"group {g}"
        for v in range(4):
            pos = ((x0 + 3 if v & 1 else x0) / 8 - 1, (y0 + 3 if v & 2 else y0) / 8 - 1, 0, 1)
            assert out.value(False, vsig["SV_Position"], v) == pytest.approx(pos), f"group {g} vertex {v}"
            assert out.value(False, vsig["COLOR"], v) == pytest.approx((base + m * 0.0625, 0, 0, 1)), f"group {g}"
        for p in range(2):
            assert out.value(True, psig["TINT"], p) == pytest.approx((0, 0.375 + 0.25 * half, 0, 0)), f"group {g}"
            assert out.value(True, psig["SV_PrimitiveID"], p, cols=1, kind="I") == (2 * m + half,), f"group {g}"


SHAPES_MS = """
struct V { float4 pos : SV_Position; [[vk::location(1)]] nointerpolation float2 uv[2] : TEXCOORD0;
           [[vk::location(3)]] nointerpolation float2x2 m : MAT0; };
struct P { [[vk::location(5)]] nointerpolation float4 tint : TINT; uint layer_free : SV_PrimitiveID; };
[outputtopology("triangle")]
[numthreads(8, 1, 1)]
void main(uint t : SV_GroupThreadID, uint g : SV_GroupID, out vertices V verts[4], out indices uint3 tris[2],
          out primitives P prims[2]) {
    SetMeshOutputCounts(4, 2);
    float x0 = 4 * g + 1, y0 = 2 + 3 * g;
    if (t < 4) {
        verts[t].pos = float4(float2((t & 1) ? x0 + 3 : x0, (t & 2) ? y0 + 4 : y0) / 8.0 - 1.0, 0, 1);
        verts[t].uv[0] = float2(0.125 * g, 0);
        UV_1
        verts[t].m = float2x2(0.5, 0.25 * g, 0.75, 1);
        verts[t].m[1][0] = 0.125;
    } else if (t < 6) {
        tris[t - 4] = t == 4 ? uint3(0, 1, 2) : uint3(1, 3, 2);
        TINT_A
    } else {
        TINT_B
        prims[t - 6].layer_free = g;
    }
}
"""
SHAPES_PS = """
struct V { float4 pos : SV_Position; [[vk::location(1)]] nointerpolation float2 uv[2] : TEXCOORD0;
           [[vk::location(3)]] nointerpolation float2x2 m : MAT0; };
struct P { [[vk::location(5)]] [[vk::perprimitive]] nointerpolation float4 tint : TINT; };
float4 main(V v, P p) : SV_Target {
    return float4(v.uv[0].x + v.uv[1].y, v.m[0][1] + v.m[1][0], p.tint.z + p.tint.x * p.tint.y, p.tint.w);
}
"""


WHOLE = {"TINT_A": "prims[t - 4].tint = float4(0.5, 0.25, 0.125 * g, 1);", "TINT_B": "",
         "UV_1": "verts[t].uv[1] = float2(0.25, 0.0625 * (g + 1));"}
VARIANTS = {    # how the per-primitive tint (0.5, 0.25, 0.125 g, 1) and the vertices' uv[1] are written
    "whole": WHOLE,
    "tint-halves-by-other-threads": {**WHOLE, "TINT_A": "prims[t - 4].tint.xy = float2(0.5, 0.25);",
                                     "TINT_B": "prims[t - 6].tint.zw = float2(0.125 * g, 1);"},
    "tint-one-component-at-a-time": {**WHOLE, "TINT_A": "prims[t - 4].tint.x = 0.5; prims[t - 4].tint.y = 0.25; "
                                                        "prims[t - 4].tint.z = 0.125 * g; prims[t - 4].tint.w = 1;"},
    "uv-y-stored-alone": {**WHOLE, "UV_1": "verts[t].uv[1] = float2(0.25, 0.5);\n"
                                           "        verts[t].uv[1].y = 0.0625 * (g + 1);"},
}
LAVAPIPE_PARTS = pytest.mark.xfail(
    strict=True, raises=(AssertionError, RuntimeError),
    reason="lavapipe (Mesa 25.0.7): mesh shader outputs written in parts draw wrongly: stores to one component "
           "of a vector output (OpAccessChain to the component, OpStore) are lost (the whole variant's lone "
           "matrix-element store survives), and a swizzle store (OpLoad of the output element, OpVectorShuffle, "
           "OpStore) crashes the driver; every module passes spirv-val (test_mesh_shaders.py's Position xfail "
           "looks like the same driver bug)")


DXIL_SPIRV_COMPONENT = R.dxil_xfail(
    "dxil-spirv (dxil_converter.cpp, user outputs) decorates a signature element that starts at a column other "
    "than 0 with Component even when it spans several rows: our MAT (rows 1-2, column 2, packed beside TEXCOORD "
    "as both are nointerpolation) becomes an array of rows with Component 2, which spirv-val refuses "
    "(VUID-StandaloneSpirv-Component-04924); the SPIR-V build's pixels are checked before.  DXC's packer puts MAT "
    "there too (DxilSignatureAllocator.inl, PackPrefixStable -> PackNext -> FindNext: first row, then first "
    "column, beside the earlier arbitrary element of its interpolation mode): tests/dxil/test_dxil_signature12.py's "
    "model of DXC's packer places MAT at (1, 2)")


@pytest.mark.parametrize("variant", [
    pytest.param("whole", marks=DXIL_SPIRV_COMPONENT), pytest.param("tint-halves-by-other-threads", marks=LAVAPIPE_PARTS),
    pytest.param("tint-one-component-at-a-time", marks=LAVAPIPE_PARTS),
    pytest.param("uv-y-stored-alone", marks=LAVAPIPE_PARTS)])
def test_array_and_matrix_outputs_and_attributes_written_in_parts(variant):
    """Per-vertex `float2 uv[2]` and `float2x2` outputs (two locations each, one matrix element stored on
    its own), and a per-primitive tint whose halves other threads may write (VARIANTS): group g's quad
    (pixels 4g + 1 .. 4g + 3 by 2 + 3g .. 3g + 5) in the colour computed here."""
    from harness.vulkan_runner import run_mesh

    src = SHAPES_MS
    for k, v in VARIANTS[variant].items():
        src = src.replace(k, v)
    ms = R.build(src, "main", "ms_6_5", env=ENV)
    ps = R.build(SHAPES_PS, "main", "ps_6_5", env=ENV)
    want = [(0, 0, 0, 0)] * (W * H)
    for g in range(3):
        color = (R.unorm8(0.125 * g + 0.0625 * (g + 1)), R.unorm8(0.25 * g + 0.125), R.unorm8(0.125 * g + 0.125),
                 255)
        for y in range(2 + 3 * g, 6 + 3 * g):
            for x in range(4 * g + 1, 4 * g + 4):
                want[y * W + x] = color
    got = pixels(run_mesh(ms.binary, "main", ps.binary, "main", W, H, (3, 1, 1)))
    assert got == want


WIDE_AS = """
struct Payload { uint16_t2 offs[4]; double scale; uint count; float16_t shade; };
groupshared Payload pl;
[numthreads(4, 1, 1)]
void main(uint t : SV_GroupThreadID) {
    pl.offs[t] = uint16_t2(1 + 4 * t, 2 + 3 * t);
    if (t == 0) {
        pl.scale = 3.0;
        pl.count = 4;
        pl.shade = (float16_t)0.25;
    }
    GroupMemoryBarrierWithGroupSync();
    DispatchMesh(2, 1, 2, pl);
}
"""
WIDE_MS = """
struct V { float4 pos : SV_Position; [[vk::location(1)]] nointerpolation float4 color : COLOR0; };
struct Payload { uint16_t2 offs[4]; double scale; uint count; float16_t shade; };
[outputtopology("triangle")]
[numthreads(4, 1, 1)]
void main(uint t : SV_GroupThreadID, uint3 gid : SV_GroupID, in payload Payload pl,
          out vertices V verts[4], out indices uint3 tris[2]) {
    SetMeshOutputCounts(4, 2);
    uint k = gid.x + 2 * gid.z;
    float2 lo = float2(pl.offs[k]), size = (float)pl.scale;
    verts[t].pos = float4((lo + float2(t & 1, t >> 1) * size) / 8.0 - 1.0, 0, 1);
    verts[t].color = float4(k / 4.0, pl.shade, pl.count / 8.0, 1);
    if (t < 2)
        tris[t] = t == 0 ? uint3(0, 1, 2) : uint3(1, 3, 2);
}
"""
WIDE_PS = """
struct V { float4 pos : SV_Position; [[vk::location(1)]] nointerpolation float4 color : COLOR0; };
float4 main(V v) : SV_Target { return v.color; }
"""


def test_16_and_64_bit_payload_and_a_3d_dispatch_mesh():
    """An amplification payload with uint16_t2 offsets, a double, a uint and a float16_t, dispatching a
    2 x 1 x 2 grid of mesh groups: group (x, 0, z) draws the 3 x 3-pixel square at offs[x + 2z].  From SPIR-V
    only: dxil-spirv declares the DXIL twin's payload as a struct of arrays (`ushort[4]` x, `ushort[4]` y for
    `uint16_t2 offs[4]`), a different type from the SPIR-V mesh shader's, so the two cannot share the
    payload, and the DXIL mesh shader stores positions one component at a time (test_mesh_shaders.py's
    lavapipe xfail); the twins are compiled and checked (obj2yaml, bcanalyzer, dxil-spirv, spirv-val)."""
    from harness.vulkan_runner import run_mesh

    opts = dict(env=ENV, enable_16bit_types=True)
    task = R.build(WIDE_AS, "main", "as_6_6", **opts)
    ms = R.build(WIDE_MS, "main", "ms_6_6", **opts)
    ps = R.build(WIDE_PS, "main", "ps_6_6", env=ENV)
    want = [(0, 0, 0, 0)] * (W * H)
    for k in range(4):
        x0, y0 = 1 + 4 * k, 2 + 3 * k
        for y in range(y0, y0 + 3):
            for x in range(x0, min(x0 + 3, W)):
                want[y * W + x] = (R.unorm8(k / 4), R.unorm8(0.25), R.unorm8(0.5), 255)
    got = pixels(run_mesh(ms.binary, "main", ps.binary, "main", W, H, (1, 1, 1), task=(task.binary, "main")))
    assert got == want


HALVES_CS = """
RWStructuredBuffer<float4> buf : register(u0);
RWStructuredBuffer<float4> shared_out : register(u1);
groupshared float4 gs[32];
[numthreads(64, 1, 1)]
void main(uint t : SV_GroupThreadID) {
    float f = t;
    if (t & 1) buf[t / 2].zw = float2(f, f + 0.5);
    else buf[t / 2].xy = float2(f, f + 0.5);
    if (t < 32) gs[t] = 0;
    GroupMemoryBarrierWithGroupSync();
    if (t & 1) gs[t / 2].wz = float2(f, -f);
    else gs[t / 2].yx = float2(f, -f);
    GroupMemoryBarrierWithGroupSync();
    if (t < 32) shared_out[t] = gs[t];
}
"""


def test_neighbouring_threads_write_the_halves_of_one_vector():
    """Thread 2k writes .xy (.yx) of element k, thread 2k + 1 its .zw (.wz), in a storage buffer and in
    groupshared memory: every element ends with both halves (D3D's result; the SPIR-V is a whole-vector
    read-modify-write, as DXC's, see docs/CONFORMANCE.md)."""
    import struct

    from harness.vulkan_runner import Buf, register_unoptimised, run_compute

    res = R.build(HALVES_CS, "main", "cs_6_0")
    register_unoptimised(res.binary, lambda: R.build(HALVES_CS, "main", "cs_6_0", opt_level=0).binary)
    got = run_compute(res.binary, "main", [Buf(0, 0, bytes(512)), Buf(0, 1, bytes(512))])
    buf, gs = struct.unpack("<128f", got[0]), struct.unpack("<128f", got[1])
    for k in range(32):
        a, b = 2 * k, 2 * k + 1
        assert buf[4 * k:4 * k + 4] == (a, a + 0.5, b, b + 0.5), f"buffer element {k}"
        assert gs[4 * k:4 * k + 4] == (-a, a, -b, b), f"groupshared element {k}"


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_attribute_names_in_any_case_as_dxc_reads_them(target):
    """DXC looks an attribute up as written and then in lower case, so `[NumThreads(...)]` and
    `[OutputTopology("triangle")]` (as engines' mesh shaders spell them) are `numthreads` and
    `outputtopology`: the same modules byte for byte; a wrong argument count is reported on the
    attribute's table name."""
    pairs = [(MS, "ms_6_5", ("[numthreads(", "[NumThreads("), ('[outputtopology(', '[OutputTopology(')),
             (AS.replace("MASK0", "3").replace("MASK1", "5"), "as_6_5", ("[numthreads(", "[NUMTHREADS("), ("", ""))]
    for src, profile, (a, b), (c, d) in pairs:
        upper = src.replace(a, b).replace(c, d) if c else src.replace(a, b)
        assert upper != src
        got = [R.compile_hlsl(x, "main", profile, target, env=ENV) for x in (src, upper)]
        assert got[0].ok and got[1].ok, R.diagnostics_text(got[1])
        assert got[0].binary == got[1].binary
    bad = R.compile_hlsl(MS.replace("[numthreads(8, 1, 1)]", "[NumThreads(8, 1)]"), "main", "ms_6_5", target, env=ENV)
    assert R.errors(bad) and "attribute 'numthreads' takes three arguments, not 2" in R.errors(bad)[0]


GS_MS = """
struct V { float4 pos : SV_Position; };
groupshared float4 g[COUNT];
[outputtopology("triangle")] [numthreads(32, 1, 1)]
void main(uint t : SV_GroupThreadID, out vertices V verts[4], out indices uint3 tris[2]) {
    SetMeshOutputCounts(4, 2);
    g[t] = t;
    GroupMemoryBarrierWithGroupSync();
    verts[t % 4].pos = g[(t + 1) % 32];
    if (t < 2) tris[t] = uint3(0, 1, 2);
}
"""
GS_CS = """
groupshared float4 g[COUNT];
RWStructuredBuffer<float4> o : register(u0);
[numthreads(32, 1, 1)]
void main(uint t : SV_GroupThreadID) { g[t] = t; GroupMemoryBarrierWithGroupSync(); o[t] = g[(t + 1) % 32]; }
"""


def test_a_mesh_shader_has_28_kib_of_groupshared_memory_in_dxil():
    """D3D's validator gives a mesh shader 28 KiB of groupshared memory (kMaxMSSMSize), a compute shader
    32 KiB: one float4 over 28 KiB is a located DXIL error for the mesh shader only.  SPIR-V leaves the
    limit to the device (maxMeshSharedMemorySize), as DXC's SPIR-V does."""
    fits = R.compile_hlsl(GS_MS.replace("COUNT", "1792"), "main", "ms_6_5", "dxil", env=ENV)
    assert fits.ok, R.diagnostics_text(fits)
    over = R.compile_hlsl(GS_MS.replace("COUNT", "1793"), "main", "ms_6_5", "dxil", env=ENV)
    assert R.errors(over) == ["3:20: total groupshared memory (28688 bytes with 'g') exceeds the 28672-byte "
                              "limit of a mesh shader"]
    assert R.compile_hlsl(GS_MS.replace("COUNT", "1793"), "main", "ms_6_5", "spirv", env=ENV).ok
    assert R.compile_hlsl(GS_CS.replace("COUNT", "1793"), "main", "cs_6_0", "dxil").ok


BIG_MS = """
struct V { float4 pos : SV_Position; float4 a[VA] : A; };
struct P { nointerpolation float4 b[PB] : B; };
struct Payload { uint words[PAYLOAD]; };
[outputtopology("triangle")] [numthreads(32, 1, 1)]
void main(uint t : SV_GroupThreadID, in payload Payload pl, out vertices V verts[NV], out indices uint3 tris[NP],
          out primitives P prims[NP]) {
    SetMeshOutputCounts(4, 2);
    V v = (V)0;
    v.pos.x = pl.words[0];
    verts[t % 4] = v;
    P p = (P)0;
    if (t < 2) { prims[t] = p; tris[t] = uint3(0, 1, 2); }
}
"""


@pytest.mark.parametrize("va, pb, nv, np_, payload, message", [
    (15, 16, 4, 2, 4, None),
    (16, 16, 4, 2, 4, "the mesh shader's vertex and primitive outputs take 17 + 16 signature rows: at most 32 "
                      "together"),
    (3, 4, 256, 256, 4, None),          # 16 + 16 scalars x 256 x 4 bytes: 32 KiB exactly
    (4, 4, 225, 225, 4, "the mesh shader's vertex and primitive outputs are 36864 bytes (counts rounded up to "
                        "32): at most 32768"),     # 32400 bytes before the counts are rounded up to 256
    (3, 5, 250, 225, 4, "the mesh shader's vertex and primitive outputs are 36864 bytes (counts rounded up to "
                        "32): at most 32768"),
    (3, 4, 256, 256, 4096, "the mesh shader's outputs and payload are 32768 + 16384 bytes: at most 48128"),
], ids=["32-rows", "33-rows", "32-KiB", "over-32-KiB-rounded", "over-32-KiB", "over-47-KiB-with-payload"])
def test_dxil_mesh_output_limits(va, pb, nv, np_, payload, message):
    """D3D's validator limits a mesh shader's outputs: 32 signature rows for vertices and primitives
    together, 32 KiB of outputs (each element's scalars x 4 bytes, per vertex / primitive with the counts
    rounded up to 32), 47 KiB with the payload: located DXIL errors at the entry point.  SPIR-V leaves the
    limits to the device (VkPhysicalDeviceMeshShaderPropertiesEXT), as DXC's SPIR-V does."""
    src = BIG_MS.replace("VA", str(va)).replace("PB", str(pb)).replace("NV", str(nv)).replace("NP", str(np_)) \
        .replace("PAYLOAD", str(payload))
    res = R.compile_hlsl(src, "main", "ms_6_5", "dxil", env=ENV)
    if message is None:
        assert res.ok, R.diagnostics_text(res)
    else:
        assert R.errors(res) == [f"6:6: {message}"]
    assert R.compile_hlsl(src, "main", "ms_6_5", "spirv", env=ENV).ok


@pytest.mark.parametrize("body", [
    "    do {\n        SetMeshOutputCounts(4, 2);\n    } while (t > 100);\n" + WRITES,
    "    [loop] for (uint i = 0; ; i++) {\n        SetMeshOutputCounts(4, 2);\n        break;\n    }\n" + WRITES,
], ids=["do-while", "for-ever-with-break"])
def test_a_call_a_loop_runs_first_dominates_what_follows(body):
    """A call at the head of a loop body, which nothing before it can leave, runs on the first iteration:
    it dominates the writes after the loop."""
    src = ONE_QUAD.replace("BODY", body)
    for target in ("spirv", "dxil"):
        res = R.compile_hlsl(src, "main", "ms_6_5", target, env=ENV)
        assert res.ok, R.diagnostics_text(res)


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_a_call_after_a_loop_exit_does_not_dominate(target):
    body = ("    for (uint i = 0; i < 3; i++) {\n        if (t == i)\n            break;\n"
            "        SetMeshOutputCounts(4, 2);\n    }\n" + WRITES)
    got = _error(body, target)
    assert got.startswith("11:18: mesh shader output 'verts'") and "may not have run" in got, got


def test_dispatch_mesh_made_by_a_helper_the_entry_point_calls_last():
    """DXC inlines every call, so a DispatchMesh made by a helper (two deep here) whose call is the entry
    point's last statement is the entry point's own: it draws as test 1's amplification shader does."""
    from harness.vulkan_runner import run_mesh

    src = AS.replace("MASK0", "11").replace("MASK1", "6").replace(
        "    DispatchMesh(pl.count, 2, 1, pl);", "    go();").replace(
        "[numthreads(4, 1, 1)]", "void send() { DispatchMesh(pl.count, 2, 1, pl); }\n"
                                 "void go() { send(); return; }\n[numthreads(4, 1, 1)]")
    assert "go();" in src and src.count("DispatchMesh") == 1
    ms = R.build(MS, "main", "ms_6_5", env=ENV)
    ps = R.build(PS, "main", "ps_6_5", env=ENV)
    task = R.build(src, "main", "as_6_5", env=ENV)
    want = expected((11, 6))
    assert pixels(run_mesh(ms.binary, "main", ps.binary, "main", W, H, (2, 1, 1), task=(task.binary, "main"))) == want
    again = pixels(run_mesh(ms.binary, "main", *_converted(ps), W, H, (2, 1, 1), task=_converted(task)))
    assert again == want, "the DXIL twins through dxil-spirv draw differently"


HELPERS_MS = """
struct V { float4 pos : SV_Position; };
void counts() { SetMeshOutputCounts(4, 2); }
void setup() { counts(); }
[outputtopology("triangle")]
[numthreads(4, 1, 1)]
void main(uint t : SV_GroupThreadID, out vertices V verts[4], out indices uint3 tris[2]) {
BODY
}
"""


@pytest.mark.parametrize("body, message", [
    ("    setup();\n" + WRITES, None),
    (WRITES + "\n    setup();", "8:18: mesh shader output 'verts' is written where SetMeshOutputCounts (line 11) may "
                                "not have run: the call must come first on every path to an output write"),
    ("    counts();\n    counts();\n" + WRITES,
     "9:5: SetMeshOutputCounts is called once per mesh shader: 'counts', which calls it, is called more than once"),
], ids=["two-deep-first", "after-the-writes", "helper-twice"])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_set_mesh_output_counts_made_by_a_helper(body, message, target):
    """DXC inlines: a helper that makes the call counts where the entry point calls it, and calling it
    twice is two calls."""
    src = HELPERS_MS.replace("BODY", body)
    res = R.compile_hlsl(src, "main", "ms_6_5", target, env=ENV)
    if message is None:
        assert res.ok, R.diagnostics_text(res)
    else:
        assert R.errors(res)[:1] == [message]


SHADOWING_MS = """
struct MeshInfo { uint first; uint count; };
ConstantBuffer<MeshInfo> MeshInfo : register(b1);     // as D3D12's meshlet samples declare it
struct V { float4 pos : SV_Position; };
[outputtopology("triangle")]
[numthreads(4, 1, 1)]
void main(uint t : SV_GroupThreadID, out vertices V verts[4], out indices uint3 tris[2]) {
    SetMeshOutputCounts(MeshInfo.count, 2);
    verts[t].pos = float4(t & 1, t >> 1, MeshInfo.first, 1);
    if (t < 2) tris[t] = uint3(0, 1, 2);
}
"""


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_a_constant_buffer_named_as_its_struct(target):
    """C++ name hiding, which DXC follows: the variable hides the type, so `MeshInfo.count` reads the buffer
    (executed: tests/front/test_name_hiding9.py)."""
    res = R.compile_hlsl(SHADOWING_MS, "main", "ms_6_5", target, env=ENV)
    assert res.ok, R.diagnostics_text(res)


@pytest.mark.parametrize("body", [
    "    if (true) {\n        SetMeshOutputCounts(4, 2);\n    }\n" + WRITES,
    "    if (1 > 2) {\n        tris[0] = uint3(0, 1, 2);\n    } else {\n        SetMeshOutputCounts(4, 2);\n    }\n"
    + WRITES,
    "    if (false)\n        verts[0].pos = 0;\n    SetMeshOutputCounts(4, 2);\n" + WRITES,
], ids=["if-true", "else-of-a-false-condition", "write-in-a-dead-branch"])
def test_a_call_a_constant_condition_takes_dominates_what_follows(body):
    """DXC's validator sees the control flow once constant conditions are folded: a call in the branch an
    `if` on a constant takes runs first, and a write in the branch it never takes never runs.  Both
    targets accept; the DXIL has the call in the entry block, ahead of every output store and branch
    (what D3D's dominance rule needs), and the SPIR-V passes spirv-val."""
    src = ONE_QUAD.replace("BODY", body)
    R.build(src, "main", "ms_6_5", "spirv", env=ENV)
    _, check = R.build_dxil(src, "main", "ms_6_5", env=ENV)
    body_ir = check.ir.split("define void @main()", 1)[1]
    call = body_ir.index("@dx.op.setMeshOutputCounts(")
    assert call < body_ir.index("@dx.op.storeVertexOutput") and call < body_ir.index(" br ")


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_a_call_in_a_branch_never_taken_is_no_call(target):
    """A call a constant condition never runs is not made: alone, the shader has none (DXC's validator,
    after folding, finds the writes without the call); beside the one that runs, it is no second call."""
    dead = "    if (false) {\n        SetMeshOutputCounts(4, 2);\n    }\n"
    assert _error(dead + WRITES, target) == ("5:6: mesh entry point 'main' never calls SetMeshOutputCounts(vertices, "
                                             "primitives): the counts of the vertices and primitives it outputs")
    src = ONE_QUAD.replace("BODY", "    SetMeshOutputCounts(4, 2);\n" + dead + WRITES)
    if target == "spirv":
        R.build(src, "main", "ms_6_5", "spirv", env=ENV)        # spirv-val: one call runs
    else:
        _, check = R.build_dxil(src, "main", "ms_6_5", env=ENV)
        assert check.ir.count("call void @dx.op.setMeshOutputCounts(") == 1
