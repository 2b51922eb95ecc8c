"""Ray tracing audit (issue 20): pipelines and ray queries executed on lavapipe, from SPIR-V at -O3
(the harness repeats every run at -O0) and from DXIL through dxil-spirv, every value checked against
the harness's reference tracer (tests/harness/accel.py: Moller-Trumbore and slab tests in plain
Python) and the shading written out again here, never against another run of the compiler.

The pipeline test sweeps one configuration per column (ray flags, instance inclusion mask, the
hit-group index arithmetic, the miss index) over rows of rays meeting rotated, scaled and translated
instances of a two-geometry bottom-level structure (an opaque quad and a non-opaque one whose odd
triangles the any-hit shader ignores) and of a procedural box."""

from __future__ import annotations

import functools
import math
import struct

import pytest
from harness import accel, dxil_consumer
from harness.dxil_tools import check_dxil_library
from harness.vulkan_runner import Buf, register_unoptimised, run_raytracing

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

T, U = dxil_consumer.SHIFTS["t"], dxil_consumer.SHIFTS["u"]


def spirv_library(name: str, src: str, profile: str = "lib_6_5", **opts) -> bytes:
    """The library at -O3, with its -O0 build registered for the harness's second run."""

    def build(opt: int) -> bytes:
        res = compile_file(name, CompileOptions(profile=profile, entry="", target="spirv", vk_target_env="vulkan1.2",
                                                opt_level=opt, **opts), text=src)
        assert res.ok, [d.message for d in res.diagnostics]
        assert res.binary is not None
        return res.binary

    spirv = build(3)
    register_unoptimised(spirv, lambda: build(0))
    return spirv


def dxil_modules(name: str, src: str, entries: list[str], profile: str = "lib_6_5") -> dict[str, bytes]:
    """dxil-spirv's module of every entry of the DXIL library (each checked by check_dxil_library)."""
    res = compile_file(name, CompileOptions(profile=profile, entry="", target="dxil"), text=src)
    assert res.ok, [d.message for d in res.diagnostics]
    assert res.binary is not None
    _read, modules = check_dxil_library(res.binary, entries)
    missing = [n for n, m in modules.items() if m is None]
    assert not missing, f"dxil-spirv limits hit for {missing}"
    dxil_consumer.STATS.executed += 1
    return {n: m for n, m in modules.items() if m is not None}


# ---- the sweep: flags, masks, hit-group arithmetic, miss index

RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH = 0x4
RAY_FLAG_SKIP_CLOSEST_HIT_SHADER = 0x8
A = accel
# (ray flags, instance mask, RayContributionToHitGroupIndex, MultiplierForGeometryContribution..., miss index)
CONFIGS = [
    (0, 0xFF, 0, 1, 0),
    (A.RAY_FLAG_FORCE_OPAQUE, 0xFF, 1, 1, 1),
    (A.RAY_FLAG_FORCE_NON_OPAQUE, 0xFF, 0, 2, 0),
    (A.RAY_FLAG_CULL_BACK_FACING_TRIANGLES, 0xFF, 0, 1, 0),
    (A.RAY_FLAG_CULL_FRONT_FACING_TRIANGLES, 0xFF, 1, 0, 1),
    (A.RAY_FLAG_CULL_OPAQUE, 0xFF, 0, 1, 0),
    (A.RAY_FLAG_CULL_NON_OPAQUE, 0xFF, 1, 2, 1),
    (0, 0x01, 0, 1, 0),
    (0, 0x06, 1, 1, 1),
    (0, 0x00, 0, 1, 1),
    (RAY_FLAG_SKIP_CLOSEST_HIT_SHADER, 0xFF, 0, 1, 0),
    (RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH | A.RAY_FLAG_FORCE_OPAQUE | A.RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES,
     0xFF, 0, 1, 0),
    (A.RAY_FLAG_SKIP_TRIANGLES, 0xFF, 1, 1, 0),
    (A.RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES | A.RAY_FLAG_FORCE_NON_OPAQUE, 0xFF, 1, 1, 1),
    (A.RAY_FLAG_CULL_BACK_FACING_TRIANGLES | A.RAY_FLAG_FORCE_NON_OPAQUE, 0x03, 0, 2, 1),
    (A.RAY_FLAG_CULL_FRONT_FACING_TRIANGLES | A.RAY_FLAG_CULL_OPAQUE, 0xFF, 0, 1, 0),
    (0, 0x1FE, 0x11, 0x21, 0x30001),      # only the low 8 / 4 / 4 / 16 bits count (DXR, SPV_KHR_ray_tracing)
]
SW, SH = len(CONFIGS), 16
BOX_LO, BOX_HI = (-0.5, -0.5, -0.25), (0.5, 0.5, 0.25)


def _rot_z(deg: float, scale: float, t: tuple[float, float, float]) -> tuple[float, ...]:
    c, s = math.cos(math.radians(deg)) * scale, math.sin(math.radians(deg)) * scale
    return (c, -s, 0, t[0], s, c, 0, t[1], 0, 0, scale, t[2])


def _sheared(m: tuple[float, ...]) -> tuple[float, ...]:
    """m followed by a shear x += 0.3 y, z += 0.2 x and a non-uniform stretch of z by 1.5 (world space)."""
    shear = ((1, 0.3, 0), (0, 1, 0), (0.2, 0, 1.5))
    rows = [m[0:4], m[4:8], m[8:12]]
    return tuple(sum(shear[r][k] * rows[k][c] for k in range(3)) for r in range(3) for c in range(4))


OPAQUE_QUAD = A.Triangles(((-1, -1, 0), (1, -1, 0), (-1, 1, 0), (1, -1, 0), (1, 1, 0), (-1, 1, 0)))
GLASS = A.Triangles(((-1, -1, 0.5), (1, -1, 0.5), (1, 1, 0.5), (-1, -1, 0.5), (1, 1, 0.5), (-1, 1, 0.5)),
                    opaque=False)
SWEEP_SCENE = A.Scene(
    blases=((OPAQUE_QUAD, GLASS), (A.Boxes(((BOX_LO, BOX_HI),)),)),
    instances=(
        A.Instance(0, _rot_z(30, 1.25, (-2.0, 0.0, 0.0)), instance_id=11, mask=0x01, sbt_offset=0),
        A.Instance(0, _sheared(_rot_z(-90, 0.75, (0.5, 0.25, 1.0))), instance_id=0x654321, mask=0x02, sbt_offset=2),
        A.Instance(1, _rot_z(45, 2.0, (2.5, 0.0, -0.5)), instance_id=77, mask=0x04, sbt_offset=6),
    ))


def sweep_ray(row: int) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """Even rows travel +z from z = -4, odd rows -z from z = +4; x walks across the three instances,
    a slight slant keeps the rays off the quads' diagonals."""
    x = -3.6 + row * 0.45
    y = -0.55 + 0.07 * row
    return ((x, y, -4.0), (0.02, 0.01, 1.0)) if row % 2 == 0 else ((x, y, 4.0), (-0.01, 0.02, -1.0))


SWEEP_TMIN, SWEEP_TMAX = 0.5, 50.0
CLOSEST = "\n".join(f"""
[shader("closesthit")]
void ch{k}(inout Payload p, BuiltInTriangleIntersectionAttributes a) {{ shade_triangle(p, a, {k}); }}""" for k in range(6))

SWEEP = """
struct Payload { float4 a; uint2 ids; float t[2]; int group; };
struct Box { float2 uv; uint face; };
struct Config { uint flags, mask, contribution, multiplier, miss; };
RaytracingAccelerationStructure scene : register(t0);
StructuredBuffer<Config> configs : register(t1);
StructuredBuffer<float4> rays : register(t2);
RWStructuredBuffer<float4> results : register(u3);
RWStructuredBuffer<float4> state : register(u4);

uint pixel() { return DispatchRaysIndex().y * DispatchRaysDimensions().x + DispatchRaysIndex().x; }

[shader("raygeneration")]
void rg() {
    Config c = configs[DispatchRaysIndex().x];
    uint row = DispatchRaysIndex().y;
    RayDesc ray;
    ray.Origin = rays[2 * row].xyz;
    ray.TMin = rays[2 * row].w;
    ray.Direction = rays[2 * row + 1].xyz;
    ray.TMax = rays[2 * row + 1].w;
    Payload p;
    p.a = float4(-5, -5, -5, -5);
    p.ids = uint2(1000, 1000);
    p.t[0] = -5;
    p.t[1] = -5;
    p.group = -100;
    TraceRay(scene, c.flags, c.mask, c.contribution, c.multiplier, c.miss, ray, p);
    uint i = pixel();
    results[2 * i] = p.a;
    results[2 * i + 1] = float4(p.ids, p.t[0], p.t[1]) + float4(0, 0, 0, 0) * p.group;
    state[8 * i + 7] = float4(p.group, DispatchRaysDimensions().xy, 0);
}

void shade_triangle(inout Payload p, BuiltInTriangleIntersectionAttributes a, int k) {
    p.a = float4(a.barycentrics, InstanceID(), RayFlags());
    p.ids = uint2(InstanceIndex() * 16 + GeometryIndex(), PrimitiveIndex() * 256 + HitKind());
    p.t[0] = RayTCurrent();
    p.t[1] = RayTMin();
    p.group = k;
    uint i = pixel();
    float3x4 o2w = ObjectToWorld3x4();
    float4x3 w2o = WorldToObject4x3();
    state[8 * i] = o2w[0];
    state[8 * i + 1] = o2w[1];
    state[8 * i + 2] = o2w[2];
    state[8 * i + 3] = float4(w2o[0], w2o[3].x);
    state[8 * i + 4] = float4(w2o[1], w2o[3].y);
    state[8 * i + 5] = float4(ObjectRayOrigin(), WorldRayOrigin().x);
    state[8 * i + 6] = float4(ObjectRayDirection(), WorldRayDirection().y);
}
CLOSEST

[shader("anyhit")]
void ah(inout Payload p, BuiltInTriangleIntersectionAttributes a) {
    if (PrimitiveIndex() & 1)
        IgnoreHit();
}

[shader("intersection")]
void isect() {
    float3 o = ObjectRayOrigin(), d = ObjectRayDirection();
    float3 lo = float3 BOX_LO, hi = float3 BOX_HI;
    float3 a = (lo - o) / d, b = (hi - o) / d;
    float3 n = min(a, b), f = max(a, b);
    float t0 = max(max(n.x, n.y), n.z), t1 = min(min(f.x, f.y), f.z);
    if (t0 <= t1) {
        float3 at = o + t0 * d;
        Box h;
        h.uv = at.xy;
        h.face = n.z >= max(n.x, n.y) ? 2 : (n.y >= n.x ? 1 : 0);
        ReportHit(t0, 100 + h.face, h);      // refused by the runtime outside [RayTMin, RayTCurrent]
    }
}

void shade_box(inout Payload p, Box h, int k) {
    p.a = float4(h.uv, InstanceID(), RayFlags());
    p.ids = uint2(InstanceIndex() * 16 + GeometryIndex(), PrimitiveIndex() * 256 + HitKind());
    p.t[0] = RayTCurrent();
    p.t[1] = RayTMin();
    p.group = k;
}

[shader("closesthit")]
void cb6(inout Payload p, Box h) { shade_box(p, h, 6); }
[shader("closesthit")]
void cb7(inout Payload p, Box h) { shade_box(p, h, 7); }

[shader("miss")]
void miss0(inout Payload p) { p.group = -1; p.a = float4(RayFlags(), RayTCurrent(), RayTMin(), 0); }
[shader("miss")]
void miss1(inout Payload p) { p.group = -2; p.a = float4(RayFlags(), RayTCurrent(), RayTMin(), 1); }
""".replace("CLOSEST", CLOSEST).replace("BOX_LO", str(BOX_LO)).replace("BOX_HI", str(BOX_HI))
SWEEP_GROUPS = tuple({"closest": f"ch{k}", "any": "ah"} for k in range(6)) + tuple(
    {"closest": f"cb{k}", "intersection": "isect"} for k in (6, 7))
SWEEP_ENTRIES = ["rg", "ah", "isect", "miss0", "miss1", "cb6", "cb7"] + [f"ch{k}" for k in range(6)]


def _box_report(h: A.Hit) -> float | None:
    span = A.intersect_box(h.object_origin, h.object_direction, BOX_LO, BOX_HI)
    return None if span is None else span[0]


def _box_face(h: A.Hit) -> int:
    o, d = h.object_origin, h.object_direction
    n = [min((BOX_LO[i] - o[i]) / d[i], (BOX_HI[i] - o[i]) / d[i]) for i in range(3)]
    return 2 if n[2] >= max(n[0], n[1]) else (1 if n[1] >= n[0] else 0)


def sweep_expected(col: int, row: int, scene: A.Scene | None = None) -> list[tuple]:
    """The acceptable outcomes of one pixel: (results 8 floats, group, state rows or None); one outcome
    except under ACCEPT_FIRST_HIT_AND_END_SEARCH, where any candidate may be the first found."""
    scene = scene or SWEEP_SCENE
    flags, mask, contribution, multiplier, miss = CONFIGS[col]
    mask, contribution, multiplier, miss = mask & 0xFF, contribution & 0xF, multiplier & 0xF, miss & 0xFFFF
    o, d = sweep_ray(row)
    accept = lambda h: h.primitive_index % 2 == 0      # noqa: E731  (the any-hit shader)
    if flags & RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH:
        hits = [h for h in A.candidates(scene, o, d, SWEEP_TMIN, SWEEP_TMAX, flags, mask)
                if not h.procedural and (h.opaque or accept(h))]
    else:
        hit = A.trace(scene, o, d, SWEEP_TMIN, SWEEP_TMAX, flags, mask, accept=accept, procedural=_box_report)
        hits = [hit] if hit is not None else []
    if not hits:
        return [((flags, SWEEP_TMAX, SWEEP_TMIN, miss, 1000, 1000, -5, -5), -1 - miss, None)]
    out = []
    for h in hits:
        inst = scene.instances[h.instance_index]
        group = inst.sbt_offset + contribution + multiplier * h.geometry_index
        if flags & RAY_FLAG_SKIP_CLOSEST_HIT_SHADER:
            out.append(((-5, -5, -5, -5, 1000, 1000, -5, -5), -100, None))
            continue
        if h.procedural:
            face = _box_face(h)
            at = tuple(h.object_origin[i] + h.t * h.object_direction[i] for i in range(3))
            first = (at[0], at[1], inst.instance_id, flags)
            kind = 100 + face
        else:
            first = (*h.barycentrics, inst.instance_id, flags)
            kind = 0xFE if h.front_face else 0xFF
        ids = (h.instance_index * 16 + h.geometry_index, h.primitive_index * 256 + kind, h.t, SWEEP_TMIN)
        state = None
        if not h.procedural:
            m, w = inst.transform, A.world_to_object(inst.transform)
            state = (*m, w[0], w[4], w[8], w[3], w[1], w[5], w[9], w[7], *h.object_origin, o[0],
                     *h.object_direction, d[1])
        out.append(((*first, *ids), group, state))
    return out


@functools.cache
def _sweep_inputs() -> tuple[bytes, bytes]:
    configs = b"".join(struct.pack("<5I", *c) for c in CONFIGS)
    rays = b"".join(struct.pack("<8f", *o, SWEEP_TMIN, *d, SWEEP_TMAX) for o, d in map(sweep_ray, range(SH)))
    return configs, rays


def _sweep_run(target: str, scene: A.Scene | None = None) -> tuple[bytes, bytes]:
    configs, rays = _sweep_inputs()
    shift = {"t": T, "u": U} if target == "dxil" else {"t": 0, "u": 0}
    descriptors = [A.AccelStructure(0, shift["t"] + 0, scene or SWEEP_SCENE),
                   Buf(set=0, binding=shift["t"] + 1, data=configs), Buf(set=0, binding=shift["t"] + 2, data=rays),
                   Buf(set=0, binding=shift["u"] + 3, data=bytes(SW * SH * 32)),
                   Buf(set=0, binding=shift["u"] + 4, data=bytes(SW * SH * 128))]
    miss = ("miss0", "miss1")
    if target == "dxil":
        result = run_raytracing(b"", "rg", (SW, SH), descriptors, miss=miss, hit_groups=SWEEP_GROUPS,
                                modules=dxil_modules("sweep.hlsl", SWEEP, SWEEP_ENTRIES))
    else:
        result = run_raytracing(spirv_library("sweep.hlsl", SWEEP), "rg", (SW, SH), descriptors, miss=miss,
                                hit_groups=SWEEP_GROUPS)
    return result["buffers"][3], result["buffers"][4]


def test_sweep_reference_is_not_trivial():
    """Every configuration's column differs from plain tracing somewhere, and the rows meet every
    instance, both faces, both geometries, the box and misses."""
    outcomes = {(c, r): sweep_expected(c, r) for c in range(SW) for r in range(SH)}
    for c in range(1, SW):
        assert any(outcomes[c, r] != outcomes[0, r] for r in range(SH)), f"config {c} changes nothing"
    plain = [o for r in range(SH) for o in outcomes[0, r]]
    assert {g for _res, g, _s in plain} >= {-1, 0, 1, 2, 3, 6}
    kinds = {int(res[5]) % 256 for c in range(SW) for r in range(SH) for res, g, _s in outcomes[c, r] if g >= 0}
    assert kinds >= {0xFE, 0xFF, 102}
    assert any(len(outcomes[11, r]) > 1 for r in range(SH))     # ACCEPT_FIRST has a real choice


@pytest.mark.parametrize("scene", ["plain", "instance-flags"])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_sweep_of_flags_masks_and_hit_group_indices(target, scene):
    """Every configuration against the plain scene and against FLAGGED_SCENE (the same instances with
    instance flags: counter-clockwise front faces, culling disabled, opacity forced either way)."""
    flagged = scene != "plain"
    if flagged:
        assert sum(sweep_expected(c, r, FLAGGED_SCENE) != sweep_expected(c, r) for c in range(SW) for r in range(SH)) > 20
    results, states = _sweep_run(target, FLAGGED_SCENE if flagged else None)
    for row in range(SH):
        for col in range(SW):
            i = row * SW + col
            got = struct.unpack_from("<8f", results, 32 * i)
            got_state = struct.unpack_from("<32f", states, 128 * i)
            group = got_state[28]
            assert got_state[29:31] == (SW, SH)
            options = sweep_expected(col, row, FLAGGED_SCENE if flagged else None)
            matches = [o for o in options if o[1] == group and got == pytest.approx(o[0], abs=2e-4)]
            assert matches, f"config {col} row {row}: got {got} group {group}, want one of {options}"
            if matches[0][2] is not None:
                assert got_state[:28] == pytest.approx(matches[0][2], abs=2e-4), f"config {col} row {row} state"


# ---- intersection shaders: ReportHit's result, the t range, any-hit's verdicts

BOXES = A.Boxes((((-1, -1, -1), (1, 1, 1)), ((2, -1, -1), (4, 1, 1))), opaque=False)
SPHERES = ((0.0, 0.0, 0.0), (3.0, 0.0, 0.0))        # one sphere of radius 1 inside each box (object space)
BALL_O2W = (0.5, 0, 0, -0.75, 0, 0.5, 0, 0.1, 0, 0, 0.5, 0.0)
BALL_SCENE = A.Scene(blases=((BOXES,),), instances=(A.Instance(0, BALL_O2W, instance_id=21),))
# per column: (any-hit mode, ray flags, TMin); modes: 0 accept, 1 ignore kind 3, 2 accept-and-end on kind 2,
# 3 ignore kind 2
BALL_CONFIGS = [(0, 0, 0.5), (1, 0, 0.5), (2, 0, 0.5), (3, 0, 0.5), (0, A.RAY_FLAG_FORCE_OPAQUE, 0.5),
                (0, 0, 4.0), (3, 0, 4.0), (1, 0, 3.9)]
BW, BH = len(BALL_CONFIGS), 16
BALL_TMAX = 20.0

BALL = """
struct Payload { float4 a; float4 b; };
struct Attr { float3 normal; uint code[2]; };
struct Config { uint mode, flags; float tmin, pad; };
RaytracingAccelerationStructure scene : register(t0);
StructuredBuffer<Config> configs : register(t1);
RWStructuredBuffer<float4> results : register(u2);
RWStructuredBuffer<float4> log : register(u3);
RWStructuredBuffer<uint> anyhits : register(u4);

uint pixel() { return DispatchRaysIndex().y * DispatchRaysDimensions().x + DispatchRaysIndex().x; }

[shader("raygeneration")]
void rg() {
    Config c = configs[DispatchRaysIndex().x];
    RayDesc ray;
    ray.Origin = float3(-1.47 + 0.13 * DispatchRaysIndex().y, 0.1 + 0.02 * DispatchRaysIndex().y, -4.0);
    ray.Direction = float3(0, 0, 1);
    ray.TMin = c.tmin;
    ray.TMax = TMAX;
    Payload p = { float4(0, 0, 0, 0), float4(0, 0, 0, 0) };
    TraceRay(scene, c.flags, 0xff, 0, 1, 0, ray, p);
    results[2 * pixel()] = p.a;
    results[2 * pixel() + 1] = p.b;
}

Attr attr(float3 at, uint code) {
    Attr h;
    h.normal = at - CENTRES[PrimitiveIndex()];
    h.code[0] = code;
    h.code[1] = code * 10;
    return h;
}

[shader("intersection")]
void isect() {
    float3 o = ObjectRayOrigin() - CENTRES[PrimitiveIndex()], d = ObjectRayDirection();
    float a = dot(d, d), b = dot(o, d), c = dot(o, o) - 1.0;
    float disc = b * b - a * c;
    uint bits = ReportHit(RayTMin() * 0.5 - 1.0, 1, attr(0, 1)) ? 1 : 0;
    log[pixel()] = float4(1, bits, RayTCurrent(), 0);
    if (disc >= 0) {
        float t0 = (-b - sqrt(disc)) / a, t1 = (-b + sqrt(disc)) / a;
        float3 o1 = ObjectRayOrigin() + t1 * d, o0 = ObjectRayOrigin() + t0 * d;
        bits |= ReportHit(t1, 2, attr(o1, 2)) ? 2 : 0;
        log[pixel()] = float4(2, bits, RayTCurrent(), 0);
        bits |= ReportHit(t0, 3, attr(o0, 3)) ? 4 : 0;
        log[pixel()] = float4(3, bits, RayTCurrent(), 0);
LATE
    }
}

[shader("anyhit")]
void ah(inout Payload p, Attr h) {
    uint mode = configs[DispatchRaysIndex().x].mode;
    uint ignored;
    InterlockedOr(anyhits[pixel()], 1u << HitKind(), ignored);
    if (h.code[1] != 10 * HitKind())
        p.b.w = 99;             // the attributes arrive with the kind ReportHit gave them
    if ((mode == 1 && HitKind() == 3) || (mode == 3 && HitKind() == 2))
        IgnoreHit();
    if (mode == 2 && HitKind() == 2)
        AcceptHitAndEndSearch();
}

[shader("closesthit")]
void ch(inout Payload p, Attr h) {
    p.a = float4(RayTCurrent(), HitKind(), h.code[0], h.code[1]);
    p.b = float4(h.normal.xy, PrimitiveIndex() + 10 * InstanceID(), p.b.w + ObjectToWorld4x3()[3].x);
}

[shader("miss")]
void ms(inout Payload p) { p.a = float4(-1, RayTCurrent(), 0, 0); }
""".replace("TMAX", str(BALL_TMAX)).replace(
    "CENTRES", "float2x3(" + ", ".join(str(c) for s in SPHERES for c in s) + ")")


LATE = """        bits |= ReportHit(t1 + 0.5, 4, attr(o1, 4)) ? 8 : 0;
        log[pixel()] = float4(4, bits, RayTCurrent(), 0);"""


LAVAPIPE_ATTRIBUTES = (
    "lavapipe (Mesa 25.0.7): a ReportHit rejected after an accepted one (its t beyond RayTCurrent) still overwrites the "
    "committed hit's attributes, and so does one its any-hit shader ignores (the closest-hit shader reads the "
    "rejected report's struct); the same from "
    "SPIR-V and from DXIL through dxil-spirv, both of which store the HitAttributeKHR variable before "
    "OpReportIntersectionKHR as the SPIR-V model requires")


LAVAPIPE_TCURRENT = (
    "lavapipe (Mesa 25.0.7): in an intersection shader RayTCurrent() (RayTmaxKHR, loaded again after every "
    "OpReportIntersectionKHR in our SPIR-V and as dxil-spirv makes it) keeps the ray's TMax after a ReportHit "
    "was accepted, where DXR and SPV_KHR_ray_tracing give the accepted t")


def ball_expected(col: int, row: int, late: bool = True) -> tuple[tuple, tuple | None, int, bool]:
    """(results 8 floats, intersection log or None when the shader does not run, any-hit kinds mask),
    by running the DXR rules in Python: a reported t counts only in [RayTMin, RayTCurrent], any-hit
    decides, AcceptHitAndEndSearch ends the intersection shader; a committed hit shrinks RayTCurrent.
    The last item says no report was rejected after the committed one (LAVAPIPE_ATTRIBUTES)."""
    mode, flags, tmin = BALL_CONFIGS[col]
    origin = (-1.47 + 0.13 * row, 0.1 + 0.02 * row, -4.0)
    assert all(abs(origin[0] - e) > 1e-3 for e in (-1.25, -0.25, 0.25, 1.25)), "a ray on a box edge"
    cands = A.candidates(BALL_SCENE, origin, (0.0, 0.0, 1.0), tmin, BALL_TMAX, flags)
    assert len(cands) <= 1
    if not cands:
        return (-1, BALL_TMAX, 0, 0, 0, 0, 0, 0), None, 0, True
    h = cands[0]
    o, d = h.object_origin, h.object_direction
    c = SPHERES[h.primitive_index]
    oc = tuple(o[i] - c[i] for i in range(3))
    a, b, cc = A._dot(d, d), A._dot(oc, d), A._dot(oc, oc) - 1.0
    disc = b * b - a * cc
    run_anyhit = not flags & A.RAY_FLAG_FORCE_OPAQUE
    tcur, committed, bits, kinds, step = BALL_TMAX, None, 0, 0, 1
    reports = [(tmin * 0.5 - 1.0, 1)]
    if disc >= 0:
        assert disc > 1e-3, "a ray grazes a sphere: move it"
        t0, t1 = (-b - math.sqrt(disc)) / a, (-b + math.sqrt(disc)) / a
        assert min(abs(t - tmin) for t in (t0, t1, t1 + 0.5)) > 1e-3, "a root at TMin: move the ray"
        reports += [(t1, 2), (t0, 3), (t1 + 0.5, 4)][:3 if late else 2]
    ended, clean = False, True
    for n, (t, kind) in enumerate(reports):
        if not tmin <= t <= tcur:
            step, clean = n + 1, committed is None
            continue
        if run_anyhit:
            kinds |= 1 << kind
            if (mode == 1 and kind == 3) or (mode == 3 and kind == 2):
                step, clean = n + 1, committed is None
                continue
        tcur, committed, bits, step, clean = t, (t, kind), bits | 1 << n, n + 1, True
        if run_anyhit and mode == 2 and kind == 2:
            step, ended = n, True     # the shader ends inside this ReportHit: its log is the previous one
            break
    log = (step, bits & ((1 << step) - 1), tcur if not ended else BALL_TMAX, 0)
    if ended:
        log = (step, bits & ((1 << step) - 1), BALL_TMAX, 0)
    if committed is None:
        return (-1, BALL_TMAX, 0, 0, 0, 0, 0, 0), log, kinds, True
    t, kind = committed
    at = tuple(o[i] + t * d[i] - c[i] for i in range(3))
    return (t, kind, kind, 10 * kind, at[0], at[1], h.primitive_index + 10 * 21, BALL_O2W[3]), log, kinds, clean


def test_ball_reference_is_not_trivial():
    seen = {(ball_expected(c, r)[0][1], ball_expected(c, r)[1] is not None) for c in range(BW) for r in range(BH)}
    assert sum(ball_expected(c, r)[3] and ball_expected(c, r)[0][0] > 0 for c in range(BW) for r in range(BH)) >= 8
    assert {k for k, _ in seen} >= {BALL_TMAX, 2, 3}      # misses, far and near roots committed
    logs = {ball_expected(c, r)[1][1] for c in range(BW) for r in range(BH) if ball_expected(c, r)[1]}
    assert len(logs) >= 4


def _through_a_helper(src: str) -> str:
    """BALL with every ReportHit made by a helper function the intersection shader calls."""
    out = src.replace("ReportHit(", "report(").replace(
        '[shader("intersection")]', 'bool report(float t, uint kind, Attr h) { return ReportHit(t, kind, h); }\n\n'
                                    '[shader("intersection")]')
    assert out.count("report(") == src.count("ReportHit(") + 1
    return out


def _ball_run(target: str, tcurrent: bool = False, attributes: bool = False, helper: bool = False) -> None:
    """Trace BALL and check every pixel; the intersection shader's RayTCurrent() after its reports is
    compared only with `tcurrent` (LAVAPIPE_TCURRENT), the committed attributes after a rejected report
    only with `attributes` (LAVAPIPE_ATTRIBUTES)."""
    late = True
    src = BALL.replace("LATE", LATE)
    if helper:
        src = _through_a_helper(src)
    configs = b"".join(struct.pack("<IIff", m, f, t, 0) for m, f, t in BALL_CONFIGS)
    sh = {"t": T, "u": U} if target == "dxil" else {"t": 0, "u": 0}
    descriptors = [A.AccelStructure(0, sh["t"] + 0, BALL_SCENE), Buf(set=0, binding=sh["t"] + 1, data=configs),
                   Buf(set=0, binding=sh["u"] + 2, data=bytes(BW * BH * 32)),
                   Buf(set=0, binding=sh["u"] + 3, data=bytes(BW * BH * 16)),
                   Buf(set=0, binding=sh["u"] + 4, data=bytes(BW * BH * 4))]
    group = ({"closest": "ch", "any": "ah", "intersection": "isect"},)
    name = f"ball{int(late)}{int(helper)}.hlsl"
    if target == "dxil":
        result = run_raytracing(b"", "rg", (BW, BH), descriptors, miss=("ms",), hit_groups=group,
                                modules=dxil_modules(name, src, ["rg", "isect", "ah", "ch", "ms"]))
    else:
        result = run_raytracing(spirv_library(name, src), "rg", (BW, BH), descriptors, miss=("ms",),
                                hit_groups=group)
    _, _, results, logs, anyhits = result["buffers"]
    for row in range(BH):
        for col in range(BW):
            i = row * BW + col
            want, want_log, want_kinds, clean = ball_expected(col, row, late)
            got = struct.unpack_from("<8f", results, 32 * i)
            if not clean and not attributes:
                want = (*want[:2], *got[2:6], *want[6:])
            assert got == pytest.approx(want, abs=2e-4), f"({col}, {row})"
            got_log = struct.unpack_from("<4f", logs, 16 * i)
            if want_log is not None and not tcurrent:
                want_log = (want_log[0], want_log[1], got_log[2], want_log[3])
            assert got_log == pytest.approx(want_log or (0, 0, 0, 0), abs=2e-4), f"({col}, {row}) log"
            assert struct.unpack_from("<I", anyhits, 4 * i)[0] == want_kinds, f"({col}, {row}) any-hit kinds"


@pytest.mark.parametrize("helper", [False, True], ids=["direct", "ReportHit-in-a-helper"])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_intersection_report_hit_rules_and_any_hit_verdicts(target, helper):
    _ball_run(target, helper=helper)


@pytest.mark.xfail(strict=True, raises=AssertionError, reason=LAVAPIPE_TCURRENT)
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_ray_t_current_follows_the_accepted_reports(target):
    _ball_run(target, tcurrent=True)


@pytest.mark.xfail(strict=True, raises=AssertionError, reason=LAVAPIPE_ATTRIBUTES)
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_a_rejected_report_keeps_the_committed_attributes(target):
    _ball_run(target, attributes=True)


# ---- payload and callable-data shapes, nested CallShader, the payload passed on by a nested TraceRay

SHAPES = """
struct Payload { float3 v; uint arr[3]; float2x2 m; int s; bool hit; };
struct CA { float4 x; uint n[2]; };
struct CB { int depth; float f; float2 pair[2]; };
RaytracingAccelerationStructure scene : register(t0);
RWStructuredBuffer<float4> results : register(u1);

[shader("raygeneration")]
void rg() {
    uint i = DispatchRaysIndex().x;
    CA ca;
    ca.x = float4(i, 1, 2, 3);
    ca.n[0] = i;
    ca.n[1] = 100;
    CallShader(0, ca);
    CB cb = { -3, 0.5 * i, { float2(1, 2), float2(i, -(int)i) } };
    CallShader(1 + (i & 1), cb);
    Payload p;
    p.v = float3(i, 0, 0);
    p.arr[0] = 1; p.arr[1] = 2; p.arr[2] = 3;
    p.m = float2x2(1, 2, 3, 4);
    p.s = -7;
    p.hit = false;
    RayDesc ray = { float3(-0.9 + 0.25 * i, 0.2, -1.0), 0.0, float3(0, 0, 1), 10.0 };
    TraceRay(scene, RAY_FLAG_NONE, 0xff, 0, 1, i & 1, ray, p);
    results[8 * i] = ca.x;
    results[8 * i + 1] = float4(ca.n[0], ca.n[1], cb.depth, cb.f);
    results[8 * i + 2] = float4(cb.pair[0], cb.pair[1]);
    results[8 * i + 3] = float4(p.v, p.s);
    results[8 * i + 4] = float4(p.arr[0], p.arr[1], p.arr[2], p.hit ? 1 : 0);
    results[8 * i + 5] = float4(p.m[0], p.m[1]);
}

[shader("callable")]
void c0(inout CA a) {
    a.x *= 2;
    a.n[0] += a.n[1];
    CB inner = { 10, a.x.x, { a.x.yz, a.x.zw } };
    CallShader(1, inner);                   // nested: a callable calls another
    a.n[1] = inner.depth;
    a.x.w = inner.f;
}

[shader("callable")]
void c1(inout CB b) {
    b.depth += 1;
    b.f *= 3;
    b.pair[1] = b.pair[0] + b.pair[1];
}

[shader("callable")]
void c2(inout CB b) {
    b.depth -= 1;
    b.pair[0] = b.pair[0].yx;
}

[shader("closesthit")]
void ch(inout Payload p, BuiltInTriangleIntersectionAttributes a) {
    p.v = float3(p.v.x, a.barycentrics);
    p.arr[1] = p.arr[0] + p.arr[2] * 10 + PrimitiveIndex();
    p.m = mul(p.m, float2x2(0, 1, 1, 0));
    p.s = -p.s;
    p.hit = true;
}

[shader("miss")]
void m0(inout Payload p) { p.arr[2] = 30; p.s = 0; p.m = transpose(p.m); }
[shader("miss")]
void m1(inout Payload p) { p.arr[0] = 10; p.s = 1; p.v.z = WorldRayOrigin().x; }
"""
SHAPES_SCENE = A.Scene(blases=((A.Triangles(((-1, -1, 0), (0, -1, 0), (-1, 1, 0), (0, -1, 0), (0, 1, 0), (-1, 1, 0))),),),
                       instances=(A.Instance(0),))
SHAPES_N = 8


def shapes_expected(i: int) -> tuple[float, ...]:
    """The rows rg writes for ray i, the shaders above run by hand."""
    x = [2.0 * i, 2.0, 4.0, 6.0]
    n = [i + 100, 0]
    inner = [10 + 1, x[0] * 3, (x[1], x[2]), (x[1] + x[2], x[2] + x[3])]     # c1 on c0's inner data
    n[1] = inner[0]
    x[3] = inner[1]
    cb_depth, cb_f, pair = -3, 0.5 * i, [(1.0, 2.0), (float(i), float(-i))]
    if i & 1:                       # c2
        cb_depth, pair = cb_depth - 1, [(2.0, 1.0), pair[1]]
    else:                           # c1
        cb_depth, cb_f, pair = cb_depth + 1, cb_f * 3, [pair[0], (1.0 + i, 2.0 - i)]
    o = (-0.9 + 0.25 * i, 0.2, -1.0)
    hit = A.trace(SHAPES_SCENE, o, (0.0, 0.0, 1.0), 0.0, 10.0)
    v, arr, m, s, flag = [float(i), 0.0, 0.0], [1, 2, 3], [[1.0, 2.0], [3.0, 4.0]], -7, 0
    if hit is not None:
        v = [float(i), *hit.barycentrics]
        arr[1] = arr[0] + arr[2] * 10 + hit.primitive_index
        m = [[m[0][1], m[0][0]], [m[1][1], m[1][0]]]          # times [[0, 1], [1, 0]]: columns swapped
        s, flag = 7, 1
    elif i & 1:
        arr[0], s, v[2] = 10, 1, o[0]
    else:
        arr[2], s, m = 30, 0, [[m[0][0], m[1][0]], [m[0][1], m[1][1]]]
    return (*x, n[0], n[1], cb_depth, cb_f, *pair[0], *pair[1], *v, s, *arr, flag, *m[0], *m[1])


def test_shapes_reference_is_not_trivial():
    flags = {(shapes_expected(i)[19], i & 1) for i in range(SHAPES_N)}
    assert flags == {(1, 0), (1, 1), (0, 0), (0, 1)}      # hits and both misses


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_payload_and_callable_data_shapes(target):
    u = U if target == "dxil" else 0
    t = T if target == "dxil" else 0
    descriptors = [A.AccelStructure(0, t, SHAPES_SCENE), Buf(set=0, binding=u + 1, data=bytes(SHAPES_N * 128))]
    kw = dict(miss=("m0", "m1"), hit_groups=({"closest": "ch"},), callables=("c0", "c1", "c2"))
    if target == "dxil":
        result = run_raytracing(b"", "rg", (SHAPES_N, 1), descriptors, **kw,
                                modules=dxil_modules("shapes.hlsl", SHAPES, ["rg", "c0", "c1", "c2", "ch", "m0", "m1"]))
    else:
        result = run_raytracing(spirv_library("shapes.hlsl", SHAPES), "rg", (SHAPES_N, 1), descriptors, **kw)
    out = result["buffers"][1]
    for i in range(SHAPES_N):
        got = struct.unpack_from("<24f", out, 128 * i)
        assert got == pytest.approx(shapes_expected(i), abs=1e-5), f"ray {i}"


DEPTH = """
struct Payload { uint depth; uint ids[4]; float ts[4]; };
RaytracingAccelerationStructure scene : register(t0);
RWStructuredBuffer<float4> results : register(u1);

[shader("raygeneration")]
void rg() {
    uint i = DispatchRaysIndex().x;
    Payload p = (Payload)0;
    p.ids[3] = 99;
    RayDesc ray = { float3(-0.75 + 0.5 * i, 0.1, -1.0), 0.0, float3(0, 0, 1), 10.0 };
    TraceRay(scene, RAY_FLAG_NONE, 0xff, 0, 1, 0, ray, p);
    results[2 * i] = float4(p.ids[0], p.ids[1], p.ids[2], p.ids[3]);
    results[2 * i + 1] = float4(p.ts[0], p.ts[1], p.ts[2], p.depth);
}

[shader("closesthit")]
void ch(inout Payload p, BuiltInTriangleIntersectionAttributes a) {
    p.ids[p.depth] = InstanceID();
    p.ts[p.depth] = RayTCurrent();
    p.depth += 1;
    if (p.depth < MAXDEPTH) {       // the incoming payload goes on to the next level
        RayDesc ray = { WorldRayOrigin() + WorldRayDirection() * RayTCurrent(), 0.01, WorldRayDirection(), 10.0 };
        TraceRay(scene, RAY_FLAG_NONE, 0xff, 0, 1, 0, ray, p);
    }
}

[shader("miss")]
void ms(inout Payload p) { p.ids[p.depth] = 1000 + p.depth; }
""".replace("MAXDEPTH", "3")
# three sheets at z = 0, 1, 2; the left half of the middle one is missing
SHEET = ((-1, -1, 0), (1, -1, 0), (-1, 1, 0), (1, -1, 0), (1, 1, 0), (-1, 1, 0))
HALF = ((0, -1, 0), (1, -1, 0), (0, 1, 0), (1, -1, 0), (1, 1, 0), (0, 1, 0))
DEPTH_SCENE = A.Scene(blases=((A.Triangles(SHEET),), (A.Triangles(HALF),)), instances=(
    A.Instance(0, instance_id=1), A.Instance(1, (1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1), instance_id=2),
    A.Instance(0, (1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 2), instance_id=3)))


def depth_expected(i: int) -> tuple[float, ...]:
    o, d = (-0.75 + 0.5 * i, 0.1, -1.0), (0.0, 0.0, 1.0)
    ids, ts, depth, tmin = [0, 0, 0, 99], [0.0, 0.0, 0.0], 0, 0.0
    while True:
        hit = A.trace(DEPTH_SCENE, o, d, tmin, 10.0)
        if hit is None:
            ids[depth] = 1000 + depth
            break
        ids[depth], ts[depth] = hit.instance_id, hit.t
        depth += 1
        if depth >= 3:
            break
        o, tmin = tuple(o[k] + hit.t * d[k] for k in range(3)), 0.01
    return (*ids, *ts, depth)


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_recursion_three_levels_deep_passing_the_payload_on(target):
    assert {depth_expected(i)[:3] for i in range(4)} == {(1, 3, 1002), (1, 2, 3)}
    u, t = (U, T) if target == "dxil" else (0, 0)
    descriptors = [A.AccelStructure(0, t, DEPTH_SCENE), Buf(set=0, binding=u + 1, data=bytes(4 * 32))]
    kw = dict(miss=("ms",), hit_groups=({"closest": "ch"},), max_recursion=3)
    if target == "dxil":
        result = run_raytracing(b"", "rg", (4, 1), descriptors, **kw,
                                modules=dxil_modules("depth.hlsl", DEPTH, ["rg", "ch", "ms"]))
    else:
        result = run_raytracing(spirv_library("depth.hlsl", DEPTH), "rg", (4, 1), descriptors, **kw)
    out = result["buffers"][1]
    for i in range(4):
        assert struct.unpack_from("<8f", out, 32 * i) == pytest.approx(depth_expected(i), abs=1e-5), f"ray {i}"


WIDE = """
struct Payload { half h[2]; uint16_t u; float16_t2 v; double d; uint64_t big; int64_t neg; };
struct Call { double x; uint16_t2 w; };
RaytracingAccelerationStructure scene : register(t0);
RWStructuredBuffer<uint4> results : register(u1);

[shader("raygeneration")]
void rg() {
    uint i = DispatchRaysIndex().x;
    Payload p;
    p.h[0] = (half)(0.5 * i);
    p.h[1] = -2.25h;
    p.u = (uint16_t)(65530 + i);
    p.v = float16_t2(1.5, (float16_t)i);
    p.d = 1.0 / 3.0 + i;
    p.big = 0x100000000ull * (i + 1) + 7;
    p.neg = -(int64_t)i * 0x10000000000ll;
    RayDesc ray = { float3(-0.9 + 0.25 * i, 0.2, -1.0), 0.0, float3(0, 0, 1), 10.0 };
    TraceRay(scene, RAY_FLAG_NONE, 0xff, 0, 1, 0, ray, p);
    Call c = { p.d, uint16_t2(p.u, 3) };
    CallShader(0, c);
    uint2 dbits;
    asuint(c.x, dbits.x, dbits.y);
    results[3 * i] = uint4(asuint16(p.h[0]), asuint16(p.h[1]), p.u, c.w.x | ((uint)c.w.y << 16));
    results[3 * i + 1] = uint4(dbits, (uint)p.big, (uint)(p.big >> 32));
    results[3 * i + 2] = uint4((uint)p.neg, (uint)((uint64_t)p.neg >> 32), asuint16(p.v.x), asuint16(p.v.y));
}

[shader("closesthit")]
void ch(inout Payload p, BuiltInTriangleIntersectionAttributes a) {
    p.h[0] = p.h[0] * 2.0h;
    p.u += 10;                      // wraps at 16 bits
    p.v = p.v.yx;
    p.d = p.d * 3.0;
    p.big += 0xFFFFFFFFull;
    p.neg -= 1;
}

[shader("miss")]
void ms(inout Payload p) { p.h[1] = -p.h[1]; p.big = ~p.big; p.neg = p.neg >> 4; }

[shader("callable")]
void c0(inout Call c) { c.x = c.x * c.x; c.w = c.w * 2; }
"""


def _half_bits(x: float) -> int:
    return struct.unpack("<H", struct.pack("<e", x))[0]


def _f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def wide_expected(i: int) -> tuple[int, ...]:
    m64 = (1 << 64) - 1
    h0, h1, u, v = 0.5 * i, -2.25, (65530 + i) & 0xFFFF, (1.5, float(i))
    d = _f32(_f32(1.0 / 3.0) + i)       # literal / literal + uint: a float expression, then widened
    big, neg = (1 << 32) * (i + 1) + 7, -i * 0x10000000000
    hit = A.trace(SHAPES_SCENE, (-0.9 + 0.25 * i, 0.2, -1.0), (0.0, 0.0, 1.0), 0.0, 10.0)
    if hit is not None:
        h0, u, v, d, big, neg = h0 * 2, (u + 10) & 0xFFFF, v[::-1], d * 3.0, big + 0xFFFFFFFF, neg - 1
    else:
        h1, big, neg = -h1, ~big & m64, neg >> 4
    x = d * d
    w = ((u * 2) & 0xFFFF, 6)
    dbits = struct.unpack("<2I", struct.pack("<d", x))
    neg &= m64
    return (_half_bits(h0), _half_bits(h1), u, w[0] | w[1] << 16, *dbits, big & 0xFFFFFFFF, big >> 32 & 0xFFFFFFFF,
            neg & 0xFFFFFFFF, neg >> 32, _half_bits(v[0]), _half_bits(v[1]))


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_16_and_64_bit_payload_and_callable_data(target):
    u, t = (U, T) if target == "dxil" else (0, 0)
    descriptors = [A.AccelStructure(0, t, SHAPES_SCENE), Buf(set=0, binding=u + 1, data=bytes(SHAPES_N * 48))]
    kw = dict(miss=("ms",), hit_groups=({"closest": "ch"},), callables=("c0",))
    if target == "dxil":
        res = compile_file("wide.hlsl", CompileOptions(profile="lib_6_6", entry="", target="dxil",
                                                       enable_16bit_types=True), text=WIDE)
        assert res.ok and res.binary is not None, [d.message for d in res.diagnostics]
        _read, modules = check_dxil_library(res.binary, ["rg", "ch", "ms", "c0"])
        assert all(modules.values()), [n for n, m in modules.items() if m is None]
        dxil_consumer.STATS.executed += 1
        result = run_raytracing(b"", "rg", (SHAPES_N, 1), descriptors, **kw,
                                modules={n: m for n, m in modules.items() if m is not None})
    else:
        result = run_raytracing(spirv_library("wide.hlsl", WIDE, "lib_6_6", enable_16bit_types=True), "rg",
                                (SHAPES_N, 1), descriptors, **kw)
    out = result["buffers"][1]
    for i in range(SHAPES_N):
        assert struct.unpack_from("<12I", out, 48 * i) == wide_expected(i), f"ray {i}"


# ---- RayQuery: template flags combined with the call's, instance masks, commits, ACCEPT_FIRST

RQ_CONFIGS = [      # (template flags, call flags, instance mask)
    (0, 0, 0xFF),
    (A.RAY_FLAG_FORCE_OPAQUE, 0, 0xFF),
    (0, A.RAY_FLAG_FORCE_NON_OPAQUE, 0xFF),
    (A.RAY_FLAG_CULL_BACK_FACING_TRIANGLES, A.RAY_FLAG_FORCE_NON_OPAQUE, 0xFF),
    (A.RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES, A.RAY_FLAG_CULL_FRONT_FACING_TRIANGLES, 0xFF),
    (A.RAY_FLAG_CULL_OPAQUE, 0, 0x03),
    (A.RAY_FLAG_SKIP_TRIANGLES, 0, 0xFF),
    (0, A.RAY_FLAG_CULL_NON_OPAQUE | A.RAY_FLAG_CULL_BACK_FACING_TRIANGLES, 0x05),
    (RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH, A.RAY_FLAG_FORCE_OPAQUE, 0xFF),
    (A.RAY_FLAG_FORCE_NON_OPAQUE, RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH, 0x06),
]
RQ_TEMPLATES = sorted({c[0] for c in RQ_CONFIGS})
RQ_BODY = """
void trace_TF(uint i, uint flags, uint mask, RayDesc ray) {
    RayQuery<TF> q;
    q.TraceRayInline(Scene, flags, mask, ray);
    uint seen = 0;
    bool shrinking = true;
    float last = q.CommittedRayT();
    while (q.Proceed()) {
        seen++;
        if (q.CandidateType() == CANDIDATE_NON_OPAQUE_TRIANGLE) {
            if (q.CandidatePrimitiveIndex() % 2 == 0)
                q.CommitNonOpaqueTriangleHit();
        } else {
            float3 o = q.CandidateObjectRayOrigin(), d = q.CandidateObjectRayDirection();
            float3 a = (BOX_LO - o) / d, b = (BOX_HI - o) / d;
            float3 n = min(a, b), f = max(a, b);
            float t0 = max(max(n.x, n.y), n.z), t1 = min(min(f.x, f.y), f.z);
            if (t0 <= t1 && t0 >= q.RayTMin() && t0 <= q.CommittedRayT())
                q.CommitProceduralPrimitiveHit(t0);
        }
        shrinking = shrinking && q.CommittedRayT() <= last;
        last = q.CommittedRayT();
    }
    uint status = q.CommittedStatus();
    Out[4 * i + 3] = float4(q.RayFlags(), seen > 0, shrinking, status);
    if (status == COMMITTED_NOTHING) {
        Out[4 * i] = float4(-1, q.CommittedRayT(), 0, 0);
        return;
    }
    Out[4 * i] = float4(q.CommittedInstanceIndex() * 16 + q.CommittedGeometryIndex(), q.CommittedRayT(),
                        q.CommittedPrimitiveIndex(), q.CommittedInstanceID());
    if (status == COMMITTED_TRIANGLE_HIT)
        Out[4 * i + 1] = float4(q.CommittedTriangleBarycentrics(), q.CommittedTriangleFrontFace(), 0);
    else
        Out[4 * i + 1] = float4(q.CommittedObjectRayOrigin().xy, 2, 0);
    Out[4 * i + 2] = float4(q.CommittedObjectToWorld3x4()[1], );
}
"""
RQ_CS = """
RaytracingAccelerationStructure Scene : register(t0);
StructuredBuffer<uint4> Configs : register(t1);
StructuredBuffer<float4> Rays : register(t2);
RWStructuredBuffer<float4> Out : register(u3);
""" + "".join(RQ_BODY.replace("TF", str(tf)) for tf in RQ_TEMPLATES).replace(
    "BOX_LO", f"float3{BOX_LO}").replace("BOX_HI", f"float3{BOX_HI}").replace(
    "float4(q.CommittedObjectToWorld3x4()[1], )", "q.CommittedObjectToWorld3x4()[1]") + """
[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint c = id.x / RAYS, r = id.x % RAYS;
    RayDesc ray = { Rays[2 * r].xyz, Rays[2 * r].w, Rays[2 * r + 1].xyz, Rays[2 * r + 1].w };
    uint4 cfg = Configs[c];
    switch (cfg.x) {
""" + "".join(f"    case {tf}: trace_{tf}(id.x, cfg.y, cfg.z, ray); break;\n" for tf in RQ_TEMPLATES) + """    }
}
"""
RQ_CS = RQ_CS.replace("RAYS", str(SH))


def rq_expected(col: int, row: int, scene: A.Scene = SWEEP_SCENE) -> list[tuple[float, ...]]:
    """The acceptable 16 floats of one query (several under ACCEPT_FIRST_HIT_AND_END_SEARCH)."""
    template, call, mask = RQ_CONFIGS[col]
    flags = template | call
    o, d = sweep_ray(row)
    accept = lambda h: h.primitive_index % 2 == 0      # noqa: E731
    if flags & RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH:
        hits = []
        for h in A.candidates(scene, o, d, SWEEP_TMIN, SWEEP_TMAX, flags, mask):
            if h.procedural:
                t = _box_report(h)
                if t is not None and SWEEP_TMIN <= t <= SWEEP_TMAX:
                    hits.append(A.Hit(**{**h.__dict__, "t": t}))
            elif h.opaque or accept(h):
                hits.append(h)
    else:
        hit = A.trace(scene, o, d, SWEEP_TMIN, SWEEP_TMAX, flags, mask, accept=accept, procedural=_box_report)
        hits = [hit] if hit is not None else []
    any_candidate = float(bool(A.candidates(scene, o, d, SWEEP_TMIN, SWEEP_TMAX, flags, mask)))
    if not hits:
        return [(-1, SWEEP_TMAX, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, flags, any_candidate, 1, 0)]
    out = []
    for h in hits:
        inst = scene.instances[h.instance_index]
        # Proceed returned true at least once if the committed hit needed the shader; otherwise it depends
        # on the traversal order whether a farther non-opaque candidate came before the opaque hit (-1: either)
        seen = 1.0 if h.procedural or not h.opaque else -1.0
        first = (h.instance_index * 16 + h.geometry_index, h.t, h.primitive_index, inst.instance_id)
        if h.procedural:
            second = (*h.object_origin[:2], 2, 0)
        else:
            second = (*h.barycentrics, float(h.front_face), 0)
        out.append((*first, *second, *inst.transform[4:8], flags, seen, 1, 2 if h.procedural else 1))
    return out


def _rq_run(target: str, scene: A.Scene = SWEEP_SCENE) -> bytes:
    from harness import dxil_tools, tools
    from harness.vulkan_runner import run_compute

    configs = b"".join(struct.pack("<4I", t, c, m, 0) for t, c, m in RQ_CONFIGS)
    _, rays = _sweep_inputs()
    n = len(RQ_CONFIGS) * SH
    if target == "dxil":
        res = compile_file("rq.hlsl", CompileOptions(profile="cs_6_5", entry="main", target="dxil"), text=RQ_CS)
        assert res.ok and res.binary is not None, [d.message for d in res.diagnostics]
        spirv = dxil_tools.check_dxil(res.binary).spirv
        assert spirv is not None
        reflect = tools.spirv_cross_reflect(spirv)
        where = {e["name"].removesuffix("SSBO"): (e["set"], e["binding"])
                 for cat in ("ssbos", "acceleration_structures") for e in reflect.get(cat, [])}
        entry = reflect["entryPoints"][0]["name"]
        dxil_consumer.STATS.executed += 1
    else:
        def build(opt: int) -> bytes:
            r = compile_file("rq.hlsl", CompileOptions(profile="cs_6_5", entry="main", target="spirv",
                                                       vk_target_env="vulkan1.2", opt_level=opt), text=RQ_CS)
            assert r.ok and r.binary is not None, [d.message for d in r.diagnostics]
            return r.binary
        spirv, entry = build(3), "main"
        register_unoptimised(spirv, lambda: build(0))
        where = {"Scene": (0, 0), "Configs": (0, 1), "Rays": (0, 2), "Out": (0, 3)}
    descriptors = [A.AccelStructure(*where["Scene"], scene), Buf(*where["Configs"], data=configs),
                   Buf(*where["Rays"], data=rays), Buf(*where["Out"], data=bytes(64 * n))]
    return run_compute(spirv, entry, descriptors, groups=(n // 8, 1, 1))[3]


def test_rq_reference_is_not_trivial():
    outcomes = {(c, r): rq_expected(c, r) for c in range(len(RQ_CONFIGS)) for r in range(SH)}
    for c in range(1, len(RQ_CONFIGS)):
        assert any(outcomes[c, r] != outcomes[0, r] for r in range(SH)), f"config {c} changes nothing"
    assert {o[15] for v in outcomes.values() for o in v} == {0, 1, 2}
    assert any(len(outcomes[8, r]) > 1 for r in range(SH))


# the sweep's scene with instance flags: a counter-clockwise-front, forced non-opaque instance, a
# cull-disabled, forced opaque one, and a forced non-opaque box
FLAGGED_SCENE = A.Scene(blases=SWEEP_SCENE.blases, instances=tuple(
    A.Instance(i.blas, i.transform, i.instance_id, i.mask, i.sbt_offset, f) for i, f in zip(SWEEP_SCENE.instances, (
        A.INSTANCE_TRIANGLE_FRONT_COUNTERCLOCKWISE | A.INSTANCE_FORCE_NON_OPAQUE,
        A.INSTANCE_TRIANGLE_CULL_DISABLE | A.INSTANCE_FORCE_OPAQUE, A.INSTANCE_FORCE_NON_OPAQUE))))


@pytest.mark.parametrize("scene", ["plain", "instance-flags"])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_ray_query_flags_masks_and_commits(target, scene):
    assert len(RQ_CONFIGS) * SH % 8 == 0
    s = SWEEP_SCENE if scene == "plain" else FLAGGED_SCENE
    if scene != "plain":
        assert any(rq_expected(c, r, s) != rq_expected(c, r) for c in range(len(RQ_CONFIGS)) for r in range(SH))
    out = _rq_run(target, s)
    for c in range(len(RQ_CONFIGS)):
        for r in range(SH):
            i = c * SH + r
            got = struct.unpack_from("<16f", out, 64 * i)
            options = [o if o[13] >= 0 else (*o[:13], got[13], *o[14:]) for o in rq_expected(c, r, s)]
            assert any(got == pytest.approx(o, abs=2e-4) for o in options), \
                f"config {c} ray {r}: got {got}, want one of {options}"


NESTED = """
struct Inner { float2 uv; uint tag[2]; };
struct Payload { Inner hits[2]; Inner last; row_major float2x3 m; min16float h; };
RaytracingAccelerationStructure scene : register(t0);
RWStructuredBuffer<float4> results : register(u1);

[shader("raygeneration")]
void rg() {
    uint i = DispatchRaysIndex().x;
    Payload p = (Payload)0;
    p.m = float2x3(1, 2, 3, 4, 5, 6);
    p.h = 0.5;
    p.hits[1].tag[1] = 77;
    RayDesc ray = { float3(-0.9 + 0.25 * i, 0.2, -1.0), 0.0, float3(0, 0, 1), 10.0 };
    TraceRay(scene, RAY_FLAG_NONE, 0xff, 0, 1, 0, ray, p);
    results[4 * i] = float4(p.hits[0].uv, p.hits[0].tag[0], p.hits[0].tag[1]);
    results[4 * i + 1] = float4(p.hits[1].uv, p.hits[1].tag[0], p.hits[1].tag[1]);
    results[4 * i + 2] = float4(p.last.uv, p.last.tag[0], p.h);
    results[4 * i + 3] = float4(p.m[0][2], p.m[1][0], p.m[1][2], p.last.tag[1]);
}

[shader("closesthit")]
void ch(inout Payload p, BuiltInTriangleIntersectionAttributes a) {
    Inner in0 = { a.barycentrics, { PrimitiveIndex(), 5 } };
    p.hits[PrimitiveIndex()] = in0;
    p.last = p.hits[1];
    p.m[1] = p.m[0] * 2;
    p.h = p.h * 4;
}

[shader("miss")]
void ms(inout Payload p) { p.last.tag[1] = 9; p.m = -p.m; }
"""


def nested_expected(i: int) -> tuple[float, ...]:
    hits = [[0.0, 0.0, 0, 0], [0.0, 0.0, 0, 77]]
    last, m, h = [0.0, 0.0, 0, 0], [[1, 2, 3], [4, 5, 6]], 0.5
    hit = A.trace(SHAPES_SCENE, (-0.9 + 0.25 * i, 0.2, -1.0), (0.0, 0.0, 1.0), 0.0, 10.0)
    if hit is not None:
        hits[hit.primitive_index] = [*hit.barycentrics, hit.primitive_index, 5]
        last = list(hits[1])
        m = [m[0], [2 * x for x in m[0]]]
        h *= 4
    else:
        last[3] = 9
        m = [[-x for x in r] for r in m]
    return (*hits[0], *hits[1], *last[:3], h, m[0][2], m[1][0], m[1][2], last[3])


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_nested_structs_arrays_of_structs_and_row_major_matrices_in_a_payload(target):
    assert {nested_expected(i)[15] for i in range(SHAPES_N)} == {5, 9, 77}   # misses, hits on both triangles
    u, t = (U, T) if target == "dxil" else (0, 0)
    descriptors = [A.AccelStructure(0, t, SHAPES_SCENE), Buf(set=0, binding=u + 1, data=bytes(SHAPES_N * 64))]
    kw = dict(miss=("ms",), hit_groups=({"closest": "ch"},))
    if target == "dxil":
        result = run_raytracing(b"", "rg", (SHAPES_N, 1), descriptors, **kw,
                                modules=dxil_modules("nested.hlsl", NESTED, ["rg", "ch", "ms"]))
    else:
        result = run_raytracing(spirv_library("nested.hlsl", NESTED), "rg", (SHAPES_N, 1), descriptors, **kw)
    out = result["buffers"][1]
    for i in range(SHAPES_N):
        assert struct.unpack_from("<16f", out, 64 * i) == pytest.approx(nested_expected(i), abs=1e-5), f"ray {i}"


TWO_QUERIES = """
RaytracingAccelerationStructure Scene : register(t0);
StructuredBuffer<float4> Rays : register(t1);
RWStructuredBuffer<float4> Out : register(u2);

[numthreads(8, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint r = id.x;
    RayDesc a = { Rays[2 * r].xyz, Rays[2 * r].w, Rays[2 * r + 1].xyz, Rays[2 * r + 1].w };
    RayDesc b = a;
    b.Origin.x += 1.5;
    RayQuery<RAY_FLAG_FORCE_OPAQUE> q1;
    RayQuery<RAY_FLAG_FORCE_OPAQUE | RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES> q2;
    q1.TraceRayInline(Scene, 0, 0xFF, a);
    q2.TraceRayInline(Scene, 0, 0xFF, b);
    bool more1 = true, more2 = true;
    while (more1 || more2) {        // the two traversals interleaved
        if (more1) more1 = q1.Proceed();
        if (more2) more2 = q2.Proceed();
        if (more1 && q1.CandidateType() == CANDIDATE_PROCEDURAL_PRIMITIVE)
            q1.CommitProceduralPrimitiveHit(q1.RayTMin() + 1.0);
    }
    float4 first = float4(q1.CommittedStatus(), q1.CommittedRayT(), q2.CommittedStatus(), q2.CommittedRayT());
    q1.TraceRayInline(Scene, RAY_FLAG_CULL_BACK_FACING_TRIANGLES, 0xFF, b);      // the same query again
    q1.Proceed();
    Out[2 * r] = first;
    Out[2 * r + 1] = float4(q1.CommittedStatus(), q1.CommittedRayT(),
                            q1.CommittedStatus() == COMMITTED_NOTHING ? -1 : (int)q1.CommittedInstanceIndex(), 0);
}
"""


def two_queries_expected(r: int) -> tuple[float, ...]:
    o, d = sweep_ray(r)
    b = (o[0] + 1.5, o[1], o[2])

    def summary(hit: A.Hit | None) -> tuple[float, float]:
        if hit is None:
            return (0.0, SWEEP_TMAX)
        return (2.0 if hit.procedural else 1.0, hit.t)

    opaque = A.RAY_FLAG_FORCE_OPAQUE
    h1 = A.trace(SWEEP_SCENE, o, d, SWEEP_TMIN, SWEEP_TMAX, opaque, procedural=lambda h: SWEEP_TMIN + 1.0)
    h2 = A.trace(SWEEP_SCENE, b, d, SWEEP_TMIN, SWEEP_TMAX, opaque | A.RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES)
    h3 = A.trace(SWEEP_SCENE, b, d, SWEEP_TMIN, SWEEP_TMAX, opaque | A.RAY_FLAG_CULL_BACK_FACING_TRIANGLES)
    kinds = {c.procedural for c in A.candidates(SWEEP_SCENE, b, d, SWEEP_TMIN, SWEEP_TMAX,
                                                opaque | A.RAY_FLAG_CULL_BACK_FACING_TRIANGLES)}
    assert len(kinds) <= 1, "the second trace would depend on the traversal order"
    if h3 is not None and h3.procedural:
        h3 = None           # the second trace commits nothing procedural: Proceed's one true is not answered
    third = summary(h3)
    return (*summary(h1), *summary(h2), *third, -1.0 if h3 is None else h3.instance_index, 0.0)


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_two_queries_interleaved_and_a_query_traced_again(target):
    from harness import dxil_tools, tools
    from harness.vulkan_runner import run_compute

    outcomes = [two_queries_expected(r) for r in range(SH)]
    assert {o[0] for o in outcomes} == {0.0, 1.0, 2.0} and {o[4] for o in outcomes} >= {0.0, 1.0}
    _, rays = _sweep_inputs()
    if target == "dxil":
        res = compile_file("two.hlsl", CompileOptions(profile="cs_6_5", entry="main", target="dxil"), text=TWO_QUERIES)
        assert res.ok and res.binary is not None, [d.message for d in res.diagnostics]
        spirv = dxil_tools.check_dxil(res.binary).spirv
        assert spirv is not None
        reflect = tools.spirv_cross_reflect(spirv)
        where = {e["name"].removesuffix("SSBO"): (e["set"], e["binding"])
                 for cat in ("ssbos", "acceleration_structures") for e in reflect.get(cat, [])}
        entry = reflect["entryPoints"][0]["name"]
        dxil_consumer.STATS.executed += 1
    else:
        def build(opt: int) -> bytes:
            r = compile_file("two.hlsl", CompileOptions(profile="cs_6_5", entry="main", target="spirv",
                                                        vk_target_env="vulkan1.2", opt_level=opt), text=TWO_QUERIES)
            assert r.ok and r.binary is not None, [d.message for d in r.diagnostics]
            return r.binary
        spirv, entry = build(3), "main"
        register_unoptimised(spirv, lambda: build(0))
        where = {"Scene": (0, 0), "Rays": (0, 1), "Out": (0, 2)}
    out = run_compute(spirv, entry, [A.AccelStructure(*where["Scene"], SWEEP_SCENE), Buf(*where["Rays"], data=rays),
                                     Buf(*where["Out"], data=bytes(32 * SH))], groups=(SH // 8, 1, 1))[2]
    for r in range(SH):
        got = struct.unpack_from("<8f", out, 32 * r)
        assert got == pytest.approx(outcomes[r], abs=2e-4), f"ray {r}"



HELPERS = """
struct Payload { float t; uint n; };
struct Call { uint v; };
RaytracingAccelerationStructure scene : register(t0);
RWStructuredBuffer<float4> results : register(u1);

void trace_one(inout Payload p, float3 o) {
    RayDesc ray = { o, 0.0, float3(0, 0, 1), 10.0 };
    TraceRay(scene, RAY_FLAG_NONE, 0xff, 0, 1, 0, ray, p);
}

[shader("raygeneration")]
void rg() {
    uint i = DispatchRaysIndex().x;
    Payload ps[2];
    ps[0].t = 0; ps[0].n = 0; ps[1].t = 0; ps[1].n = 0;
    for (uint k = 0; k < 3; k++)
        trace_one(ps[0], float3(-0.9 + 0.25 * i + 0.01 * k, -0.5 + 0.15 * i, -1.0));
    RayDesc ray = { float3(-0.9 + 0.25 * i, -0.5 + 0.15 * i, -1.0), 0.0, float3(0, 0, 1), 10.0 };
    TraceRay(scene, RAY_FLAG_NONE, 0xff, 0, 1, 0, ray, ps[1]);
    Call c = { 1 };
    for (uint j = 0; j < i; j++)
        CallShader(0, c);
    results[i] = float4(ps[0].t, ps[0].n, ps[1].n, c.v);
}

[shader("closesthit")]
void ch(inout Payload p, BuiltInTriangleIntersectionAttributes a) {
    RayQuery<RAY_FLAG_FORCE_OPAQUE> q;
    RayDesc shadow = { WorldRayOrigin() + WorldRayDirection() * RayTCurrent(), 0.01, float3(1, 0, 0), 10.0 };
    q.TraceRayInline(scene, 0, 0xff, shadow);
    q.Proceed();
    p.t += RayTCurrent();
    p.n += q.CommittedStatus() == COMMITTED_TRIANGLE_HIT ? 100 : 1;
}

[shader("miss")]
void ms(inout Payload p) { p.n += 10000; }

[shader("callable")]
void c0(inout Call c) { c.v = c.v * 3 + 1; }
"""
WALL = A.Triangles(((0.5, -0.3, -1), (0.5, 1, -1), (0.5, -0.3, 1), (0.5, 1, -1), (0.5, 1, 1), (0.5, -0.3, 1)))
HELPERS_SCENE = A.Scene(blases=(SHAPES_SCENE.blases[0], (WALL,)), instances=(A.Instance(0), A.Instance(1)))


def helpers_expected(i: int) -> tuple[float, ...]:
    """TraceRay from a helper in a loop and on an array element, a closest-hit shader's own RayQuery
    (a shadow ray towards +x), CallShader in a loop."""
    def one(o: tuple[float, float, float]) -> tuple[float, int]:
        hit = A.trace(HELPERS_SCENE, o, (0.0, 0.0, 1.0), 0.0, 10.0)
        if hit is None:
            return 0.0, 10000
        at = (o[0], o[1], o[2] + hit.t)
        shadow = A.trace(HELPERS_SCENE, at, (1.0, 0.0, 0.0), 0.01, 10.0, A.RAY_FLAG_FORCE_OPAQUE)
        return hit.t, 100 if shadow is not None else 1

    t0, n0 = 0.0, 0
    for k in range(3):
        t, n = one((-0.9 + 0.25 * i + 0.01 * k, -0.5 + 0.15 * i, -1.0))
        t0, n0 = t0 + t, n0 + n
    v = 1
    for _ in range(i):
        v = 3 * v + 1
    return (t0, n0, one((-0.9 + 0.25 * i, -0.5 + 0.15 * i, -1.0))[1], v)


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_trace_from_helpers_and_loops_and_ray_query_in_a_hit_shader(target):
    assert {helpers_expected(i)[2] for i in range(SHAPES_N)} == {1, 100, 10000}
    u, t = (U, T) if target == "dxil" else (0, 0)
    descriptors = [A.AccelStructure(0, t, HELPERS_SCENE), Buf(set=0, binding=u + 1, data=bytes(SHAPES_N * 16))]
    kw = dict(miss=("ms",), hit_groups=({"closest": "ch"},), callables=("c0",))
    if target == "dxil":
        result = run_raytracing(b"", "rg", (SHAPES_N, 1), descriptors, **kw,
                                modules=dxil_modules("helpers.hlsl", HELPERS, ["rg", "ch", "ms", "c0"]))
    else:
        result = run_raytracing(spirv_library("helpers.hlsl", HELPERS), "rg", (SHAPES_N, 1), descriptors, **kw)
    out = result["buffers"][1]
    for i in range(SHAPES_N):
        assert struct.unpack_from("<4f", out, 16 * i) == pytest.approx(helpers_expected(i), rel=1e-6), f"ray {i}"


SYSVALS = """
struct Payload { float4 a; float4 b; };
RaytracingAccelerationStructure scene : register(t0);
RWStructuredBuffer<float4> results : register(u1);
RWStructuredBuffer<float4> isect_log : register(u2);

uint pixel() { return DispatchRaysIndex().x; }

[shader("raygeneration")]
void rg() {
    uint i = pixel();
    RayDesc ray = { float3(-2.7 + 0.6 * i, 0.15 + 0.01 * i, -3.0), 0.25, float3(0.01, 0.02, 1), 20.0 };
    Payload p = { float4(-5, -5, -5, -5), float4(-5, -5, -5, -5) };
    TraceRay(scene, i & 1 ? RAY_FLAG_FORCE_NON_OPAQUE : RAY_FLAG_NONE, 0xff, 0, 1, 0, ray, p);
    results[2 * i] = p.a;
    results[2 * i + 1] = p.b;
}

[shader("anyhit")]
void ah(inout Payload p, BuiltInTriangleIntersectionAttributes attr) {
    // written, then the hit is ignored: the miss shader sees these writes (D3D keeps them)
    p.a = float4(InstanceIndex() * 16 + GeometryIndex(), PrimitiveIndex(), HitKind(), RayFlags());
    p.b = float4(InstanceID(), RayTCurrent(), WorldToObject3x4()[0][3], ObjectToWorld4x3()[3][1]);
    IgnoreHit();
}

[shader("intersection")]
void isect() {
    isect_log[2 * pixel()] = float4(InstanceIndex() * 16 + GeometryIndex(), PrimitiveIndex(), InstanceID(),
                                    RayFlags());
    isect_log[2 * pixel() + 1] = float4(WorldRayOrigin().x, ObjectRayOrigin().x, ObjectToWorld3x4()[0][0],
                                        WorldToObject4x3()[3][0]);
}

[shader("closesthit")]
void ch(inout Payload p, BuiltInTriangleIntersectionAttributes attr) { p.a.w += 1000; }

[shader("miss")]
void ms(inout Payload p) { p.b.y = -p.b.y; }
"""
# instance 0: a non-opaque quad, scaled and moved; instance 1: a box (the intersection shader reports nothing)
SYS_O2W = (1.5, 0, 0, -1.75, 0, 0.5, 0, 0.25, 0, 0, 2, 0.5)
BOX_O2W = (0.5, 0, 0, 1.25, 0, 1, 0, 0, 0, 0, 1, 0)
SYS_SCENE = A.Scene(
    blases=((A.Triangles(OPAQUE_QUAD.vertices, opaque=False),), (A.Boxes((((-1, -1, -1), (1, 1, 1)),)),)),
    instances=(A.Instance(0, SYS_O2W, instance_id=0xABCDE), A.Instance(1, BOX_O2W, instance_id=31, sbt_offset=1)))
SYS_N = 8


def sysvals_expected(i: int) -> tuple[tuple, tuple | None]:
    o, d = (-2.7 + 0.6 * i, 0.15 + 0.01 * i, -3.0), (0.01, 0.02, 1.0)
    flags = A.RAY_FLAG_FORCE_NON_OPAQUE if i & 1 else 0
    cands = A.candidates(SYS_SCENE, o, d, 0.25, 20.0, flags)
    assert len(cands) <= 1
    results: tuple = (-5, -5, -5, -5, -5, 5, -5, -5)      # a miss negates b.y
    log = None
    for c in cands:
        inst = SYS_SCENE.instances[c.instance_index]
        if c.procedural:
            log = (c.instance_index * 16 + c.geometry_index, c.primitive_index, inst.instance_id, flags,
                   o[0], c.object_origin[0], inst.transform[0], A.world_to_object(inst.transform)[3])
        else:
            kind = 0xFE if c.front_face else 0xFF
            results = (c.instance_index * 16 + c.geometry_index, c.primitive_index, kind, flags,
                       inst.instance_id, -c.t, A.world_to_object(inst.transform)[3], inst.transform[7])
    return results, log


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_system_values_in_any_hit_and_intersection_shaders(target):
    """The any-hit shader writes the payload and ignores the hit: the miss shader sees its writes (negating
    RayTCurrent(), which in an any-hit shader is the candidate's t); the intersection shader reports
    nothing and logs its system values."""
    seen = [sysvals_expected(i) for i in range(SYS_N)]
    assert any(r[0] != -5 for r, _ in seen) and any(lg for _, lg in seen) and any(r[0] == -5 for r, _ in seen)
    u, t = (U, T) if target == "dxil" else (0, 0)
    descriptors = [A.AccelStructure(0, t, SYS_SCENE), Buf(set=0, binding=u + 1, data=bytes(SYS_N * 32)),
                   Buf(set=0, binding=u + 2, data=bytes(SYS_N * 32))]
    kw = dict(miss=("ms",), hit_groups=({"closest": "ch", "any": "ah"}, {"intersection": "isect"}))
    if target == "dxil":
        result = run_raytracing(b"", "rg", (SYS_N, 1), descriptors, **kw,
                                modules=dxil_modules("sysvals.hlsl", SYSVALS, ["rg", "ah", "isect", "ch", "ms"]))
    else:
        result = run_raytracing(spirv_library("sysvals.hlsl", SYSVALS), "rg", (SYS_N, 1), descriptors, **kw)
    _, out, logs = result["buffers"]
    for i in range(SYS_N):
        want, want_log = seen[i]
        assert struct.unpack_from("<8f", out, 32 * i) == pytest.approx(want, abs=1e-5), f"ray {i}"
        assert struct.unpack_from("<8f", logs, 32 * i) == pytest.approx(want_log or (0,) * 8, abs=1e-5), f"ray {i} log"


RAYDESC_BUFFER = SWEEP.replace("StructuredBuffer<float4> rays : register(t2);",
                               "StructuredBuffer<RayDesc> rays : register(t2);").replace("""    RayDesc ray;
    ray.Origin = rays[2 * row].xyz;
    ray.TMin = rays[2 * row].w;
    ray.Direction = rays[2 * row + 1].xyz;
    ray.TMax = rays[2 * row + 1].w;
""", """    RayDesc ray = rays[row];
""")


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_ray_descs_read_from_a_structured_buffer(target):
    """The sweep with each RayDesc read whole from a StructuredBuffer<RayDesc> (32-byte elements: Origin,
    TMin, Direction, TMax): the results are the sweep's, checked against the reference tracer."""
    assert "StructuredBuffer<RayDesc>" in RAYDESC_BUFFER and "RayDesc ray = rays[row];" in RAYDESC_BUFFER
    configs, rays = _sweep_inputs()
    sh = {"t": T, "u": U} if target == "dxil" else {"t": 0, "u": 0}
    descriptors = [A.AccelStructure(0, sh["t"] + 0, SWEEP_SCENE),
                   Buf(set=0, binding=sh["t"] + 1, data=configs), Buf(set=0, binding=sh["t"] + 2, data=rays),
                   Buf(set=0, binding=sh["u"] + 3, data=bytes(SW * SH * 32)),
                   Buf(set=0, binding=sh["u"] + 4, data=bytes(SW * SH * 128))]
    if target == "dxil":
        result = run_raytracing(b"", "rg", (SW, SH), descriptors, miss=("miss0", "miss1"), hit_groups=SWEEP_GROUPS,
                                modules=dxil_modules("raydescs.hlsl", RAYDESC_BUFFER, SWEEP_ENTRIES))
    else:
        result = run_raytracing(spirv_library("raydescs.hlsl", RAYDESC_BUFFER), "rg", (SW, SH), descriptors,
                                miss=("miss0", "miss1"), hit_groups=SWEEP_GROUPS)
    results = result["buffers"][3]
    for row in range(SH):
        for col in range(SW):
            got = struct.unpack_from("<8f", results, 32 * (row * SW + col))
            assert any(got == pytest.approx(o[0], abs=2e-4) for o in sweep_expected(col, row)), f"({col}, {row})"


def _with_semantics(src: str) -> str:
    """SHAPES with the early DXR draft's parameter semantics (still in engines' shaders) and semantics on
    payload fields, which DXC accepts and ignores."""
    out = (src.replace("void c0(inout CA a)", "void c0(inout CA a : SV_CallableData)")
           .replace("void ch(inout Payload p, BuiltInTriangleIntersectionAttributes a)",
                    "void ch(inout Payload p : SV_RayPayload, in BuiltInTriangleIntersectionAttributes a : "
                    "SV_IntersectionAttributes)")
           .replace("void m0(inout Payload p)", "void m0(inout Payload p : SV_RayPayload)")
           .replace("struct Payload { float3 v;", "struct Payload { float3 v : V;"))
    assert out.count("SV_") == src.count("SV_") + 4 and "float3 v : V;" in out
    return out


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_semantics_on_ray_tracing_parameters_are_ignored_as_dxc_does(target):
    src = _with_semantics(SHAPES)
    builds = [compile_file("sem.hlsl", CompileOptions(profile="lib_6_5", entry="", target=target,
                                                      vk_target_env="vulkan1.2"), text=x) for x in (src, SHAPES)]
    assert builds[0].ok and builds[0].binary == builds[1].binary     # the same library, byte for byte
    u, t = (U, T) if target == "dxil" else (0, 0)
    descriptors = [A.AccelStructure(0, t, SHAPES_SCENE), Buf(set=0, binding=u + 1, data=bytes(SHAPES_N * 128))]
    kw = dict(miss=("m0", "m1"), hit_groups=({"closest": "ch"},), callables=("c0", "c1", "c2"))
    if target == "dxil":
        result = run_raytracing(b"", "rg", (SHAPES_N, 1), descriptors, **kw,
                                modules=dxil_modules("sem.hlsl", src, ["rg", "c0", "c1", "c2", "ch", "m0", "m1"]))
    else:
        result = run_raytracing(spirv_library("sem.hlsl", src), "rg", (SHAPES_N, 1), descriptors, **kw)
    out = result["buffers"][1]
    for i in range(SHAPES_N):
        assert struct.unpack_from("<24f", out, 128 * i) == pytest.approx(shapes_expected(i), abs=1e-5), f"ray {i}"


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_a_semantic_on_a_ray_tracing_shader_itself_is_still_refused(target):
    src = SHAPES.replace("void m1(inout Payload p) {", "void m1(inout Payload p) : SV_Target {")
    res = compile_file("sem.hlsl", CompileOptions(profile="lib_6_5", entry="", target=target,
                                                  vk_target_env="vulkan1.2"), text=src)
    errors = [d for d in res.diagnostics if d.severity == "error"]
    assert not res.ok and errors[0].loc is not None
    line = src[:src.index("void m1(")].count("\n") + 1
    assert (errors[0].loc.line, errors[0].message) == (line, "miss shader 'm1' takes no semantic")


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_shader_attribute_in_any_case(target):
    """`[Shader("miss")]` is DXC's `shader` attribute (looked up as written, then in lower case): the
    library is byte-identical to the lower-case spelling."""
    upper = SHAPES.replace('[shader("', '[Shader("')
    assert upper.count('[Shader("') == 7
    builds = [compile_file("s.hlsl", CompileOptions(profile="lib_6_5", entry="", target=target,
                                                    vk_target_env="vulkan1.2"), text=x) for x in (SHAPES, upper)]
    assert builds[1].ok, [d.message for d in builds[1].diagnostics]
    assert builds[0].binary == builds[1].binary


DEPTH_PAQ = DEPTH.replace(
    "struct Payload { uint depth; uint ids[4]; float ts[4]; };",
    "struct [raypayload] Payload {\n"
    "    uint depth : read(caller, closesthit, miss) : write(caller, closesthit);\n"
    "    uint ids[4] : read(caller, closesthit, miss) : write(caller, closesthit, miss);\n"
    "    float ts[4] : read(caller, closesthit) : write(caller, closesthit);\n"
    "};")


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_payload_access_qualifiers_in_effect_at_lib_6_7(target):
    """DEPTH's recursion with a [raypayload] struct whose fields carry read/write qualifiers, at lib_6_7
    where they take effect (DXIL: dx.dxrPayloadAnnotations, read by dxil-spirv): the same results."""
    assert "[raypayload]" in DEPTH_PAQ
    u, t = (U, T) if target == "dxil" else (0, 0)
    descriptors = [A.AccelStructure(0, t, DEPTH_SCENE), Buf(set=0, binding=u + 1, data=bytes(4 * 32))]
    kw = dict(miss=("ms",), hit_groups=({"closest": "ch"},), max_recursion=3)
    if target == "dxil":
        result = run_raytracing(b"", "rg", (4, 1), descriptors, **kw,
                                modules=dxil_modules("paq.hlsl", DEPTH_PAQ, ["rg", "ch", "ms"], profile="lib_6_7"))
    else:
        result = run_raytracing(spirv_library("paq.hlsl", DEPTH_PAQ, "lib_6_7"), "rg", (4, 1), descriptors, **kw)
    out = result["buffers"][1]
    for i in range(4):
        assert struct.unpack_from("<8f", out, 32 * i) == pytest.approx(depth_expected(i), abs=1e-5), f"ray {i}"


ATTRS32 = """
struct Payload { float4 a; float4 b; };
struct Attr { float4 a; uint2 b; int c; bool d; };      // 32 bytes: D3D12's largest attribute struct
RaytracingAccelerationStructure scene : register(t0);
RWStructuredBuffer<float4> results : register(u1);

[shader("raygeneration")]
void rg() {
    uint i = DispatchRaysIndex().x;
    RayDesc ray = { float3(-2.7 + 0.6 * i, 0.15 + 0.01 * i, -3.0), 0.25, float3(0.01, 0.02, 1), 20.0 };
    Payload p = { float4(-5, -5, -5, -5), float4(-5, -5, -5, -5) };
    TraceRay(scene, RAY_FLAG_NONE, 0xff, 0, 1, 0, ray, p);
    results[2 * i] = p.a;
    results[2 * i + 1] = p.b;
}

[shader("intersection")]
void isect() {
    Attr h;
    h.a = float4(ObjectRayOrigin(), InstanceID());
    h.b = uint2(PrimitiveIndex() + 7, 0xFFFFFFF0u);
    h.c = -(int)InstanceIndex() - 3;
    h.d = ObjectRayOrigin().x > 0;
    ReportHit(RayTMin() + 1.0, 9, h);
}

[shader("closesthit")]
void ch(inout Payload p, Attr h) {
    p.a = h.a;
    p.b = float4(h.b.x, h.b.y & 0xFF, h.c, h.d ? 1 : 0);
}

[shader("miss")]
void ms(inout Payload p) { p.a.x = -1; }
"""


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_a_32_byte_attribute_struct_of_mixed_types(target):
    """Hit attributes of float4, uint2, int and bool (32 bytes, D3D12's limit) from the intersection shader
    to the closest-hit shader, against SYS_SCENE's box (instance 1)."""
    u, t = (U, T) if target == "dxil" else (0, 0)
    descriptors = [A.AccelStructure(0, t, SYS_SCENE), Buf(set=0, binding=u + 1, data=bytes(SYS_N * 32))]
    kw = dict(miss=("ms",), hit_groups=({}, {"closest": "ch", "intersection": "isect"}))    # the quad: no shaders
    if target == "dxil":
        result = run_raytracing(b"", "rg", (SYS_N, 1), descriptors, **kw,
                                modules=dxil_modules("attrs.hlsl", ATTRS32, ["rg", "isect", "ch", "ms"]))
    else:
        result = run_raytracing(spirv_library("attrs.hlsl", ATTRS32), "rg", (SYS_N, 1), descriptors, **kw)
    out = result["buffers"][1]
    boxes, flags = 0, set()
    for i in range(SYS_N):
        o, d = (-2.7 + 0.6 * i, 0.15 + 0.01 * i, -3.0), (0.01, 0.02, 1.0)
        got = struct.unpack_from("<8f", out, 32 * i)
        box = [c for c in A.candidates(SYS_SCENE, o, d, 0.25, 20.0) if c.procedural]
        if box:
            c = box[0]
            boxes += 1
            inst = SYS_SCENE.instances[c.instance_index]
            want = (*c.object_origin, inst.instance_id, c.primitive_index + 7, 0xF0, -c.instance_index - 3,
                    1.0 if c.object_origin[0] > 0 else 0.0)
            assert got == pytest.approx(want, abs=1e-5), f"ray {i}"
            flags.add(want[7])
        else:
            assert got[0] in (-1.0, -5.0), f"ray {i}"       # a miss, or the quad's empty hit group
    assert boxes >= 2 and flags == {0.0, 1.0}


STATICS = """
struct Payload { float4 a; };
struct Call { int v; };
RaytracingAccelerationStructure scene : register(t0);
RWStructuredBuffer<float4> results : register(u1);
static int s = 3;
static float3 trail[2] = { float3(1, 2, 3), float3(4, 5, 6) };

[shader("raygeneration")]
void rg() {
    uint i = DispatchRaysIndex().x;
    s = 100 + i;
    trail[1].y = -1;
    RayDesc ray = { float3(-0.9 + 0.25 * i, 0.2, -1.0), 0.0, float3(0, 0, 1), 10.0 };
    Payload p = { float4(0, 0, 0, 0) };
    TraceRay(scene, RAY_FLAG_NONE, 0xff, 0, 1, 0, ray, p);
    Call c = { 0 };
    CallShader(0, c);
    results[2 * i] = p.a;
    results[2 * i + 1] = float4(s, trail[1].y, c.v, trail[0].z);     // the shaders' statics are their own
}

[shader("closesthit")]
void ch(inout Payload p, BuiltInTriangleIntersectionAttributes a) {
    s += PrimitiveIndex() + 10;
    trail[0].z *= 2;
    p.a = float4(s, trail[1].y, trail[0].z, 1);
}

[shader("miss")]
void ms(inout Payload p) { s -= 1; p.a = float4(s, trail[1].y, trail[0].z, 2); }

[shader("callable")]
void c0(inout Call c) { s *= 2; c.v = s; }
"""


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_each_shader_has_its_own_statics_initialised(target):
    """`static` globals are per invocation, initialised at every shader's start: the closest-hit, miss and
    callable shaders see the initialisers, not the ray-generation shader's writes, and their own writes
    do not reach it."""
    u, t = (U, T) if target == "dxil" else (0, 0)
    descriptors = [A.AccelStructure(0, t, SHAPES_SCENE), Buf(set=0, binding=u + 1, data=bytes(SHAPES_N * 32))]
    kw = dict(miss=("ms",), hit_groups=({"closest": "ch"},), callables=("c0",))
    if target == "dxil":
        result = run_raytracing(b"", "rg", (SHAPES_N, 1), descriptors, **kw,
                                modules=dxil_modules("statics.hlsl", STATICS, ["rg", "ch", "ms", "c0"]))
    else:
        result = run_raytracing(spirv_library("statics.hlsl", STATICS), "rg", (SHAPES_N, 1), descriptors, **kw)
    out = result["buffers"][1]
    kinds = set()
    for i in range(SHAPES_N):
        hit = A.trace(SHAPES_SCENE, (-0.9 + 0.25 * i, 0.2, -1.0), (0.0, 0.0, 1.0), 0.0, 10.0)
        first = (3 + hit.primitive_index + 10, 5, 6, 1) if hit is not None else (2, 5, 3, 2)
        kinds.add(first[3])
        assert struct.unpack_from("<8f", out, 32 * i) == (*first, 100 + i, -1, 6, 3), f"ray {i}"
    assert kinds == {1, 2}


DERIV = """
struct P { float4 c; };
struct C { float4 c; };
Texture2D<float4> tex : register(t1);
SamplerState smp : register(s0);
SamplerComparisonState cmp : register(s1);
float4 helper(float2 uv) { return CALL; }
[shader("closesthit")] void ch(inout P p, BuiltInTriangleIntersectionAttributes a) { p.c = WHERE_CH; }
[shader("miss")] void ms(inout P p) { p.c = tex.SampleLevel(smp, float2(0, 0), 0); }
[shader("callable")] void cs(inout C c) { c.c = WHERE_CS; }
"""


@pytest.mark.parametrize("call, name", [
    ("tex.Sample(smp, uv)", "Sample"), ("tex.SampleBias(smp, uv, 1.0)", "SampleBias"),
    ("tex.SampleCmp(cmp, uv, 0.5).xxxx", "SampleCmp"),
    ("tex.CalculateLevelOfDetail(smp, uv).xxxx", "CalculateLevelOfDetail")])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_implicit_derivatives_are_refused_in_ray_tracing_shaders(call, name, target):
    """A ray-tracing shader has no 2x2 quads: a sample with implicit derivatives or a LOD query is refused in
    every shader that reaches it, on both targets with the intrinsic's stage rule (SampleLevel is fine)."""
    for where, kind in (("ch", "closesthit"), ("cs", "callable")):
        src = DERIV.replace("CALL", call).replace(f"WHERE_{where.upper()}", "helper(float2(0.5, 0.5))")
        src = src.replace("WHERE_CH", "0").replace("WHERE_CS", "0")
        res = compile_file("d.hlsl", CompileOptions(profile="lib_6_6", entry="", target=target,
                                                    vk_target_env="vulkan1.2"), text=src)
        errors = [d for d in res.diagnostics if d.severity == "error"]
        assert not res.ok and errors and errors[0].loc is not None
        assert errors[0].loc.line == 7 and errors[0].loc.col == src.splitlines()[6].index(name) + 1
        title = "closest-hit" if kind == "closesthit" else "callable"
        assert errors[0].message == (f"intrinsic '{name}' is not allowed in {kind} shaders (allowed in: "
                                     f"amplification, compute, mesh, pixel) (reached from {title} shader '{where}')")
    fine = DERIV.replace("CALL", "tex.SampleLevel(smp, uv, 2)").replace("WHERE_CH", "helper(0)")
    assert compile_file("d.hlsl", CompileOptions(profile="lib_6_6", entry="", target=target,
                                                 vk_target_env="vulkan1.2"), text=fine.replace("WHERE_CS", "0")).ok


LAUNCH3D = """
struct Payload { float4 a; };
RaytracingAccelerationStructure scene : register(t0);
RWStructuredBuffer<float4> results : register(u1);

[shader("raygeneration")]
void rg() {
    uint3 i = DispatchRaysIndex(), n = DispatchRaysDimensions();
    RayDesc ray = { float3(-0.9 + 0.25 * i.x, 0.2, -1.0 - i.z), 0.0, float3(0, 0, 1), 10.0 };
    Payload p = { float4(0, 0, 0, 0) };
    TraceRay(scene, RAY_FLAG_NONE, 0xff, 0, 1, 0, ray, p);
    results[(i.z * n.y + i.y) * n.x + i.x] = float4(p.a.x, p.a.y, i.z, n.z * 100 + n.y * 10 + i.y);
}

[shader("closesthit")]
void ch(inout Payload p, BuiltInTriangleIntersectionAttributes a) {
    p.a = float4(RayTCurrent(), DispatchRaysIndex().z + 10 * DispatchRaysDimensions().z, 0, 0);
}

[shader("miss")]
void ms(inout Payload p) { p.a = float4(-1, DispatchRaysIndex().z, 0, 0); }
"""


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_a_three_dimensional_launch(target):
    """vkCmdTraceRaysKHR with depth 3 (the harness takes size (w, h, d)): DispatchRaysIndex().z and
    DispatchRaysDimensions().z in the ray-generation and hit or miss shaders; the z-th layer's rays start
    z further back, so RayTCurrent grows with it."""
    w, h, d = SHAPES_N, 2, 3
    u, t = (U, T) if target == "dxil" else (0, 0)
    descriptors = [A.AccelStructure(0, t, SHAPES_SCENE), Buf(set=0, binding=u + 1, data=bytes(w * h * d * 16))]
    kw = dict(miss=("ms",), hit_groups=({"closest": "ch"},))
    if target == "dxil":
        result = run_raytracing(b"", "rg", (w, h, d), descriptors, **kw,
                                modules=dxil_modules("l3.hlsl", LAUNCH3D, ["rg", "ch", "ms"]))
    else:
        result = run_raytracing(spirv_library("l3.hlsl", LAUNCH3D), "rg", (w, h, d), descriptors, **kw)
    out = result["buffers"][1]
    for z in range(d):
        for y in range(h):
            for x in range(w):
                hit = A.trace(SHAPES_SCENE, (-0.9 + 0.25 * x, 0.2, -1.0 - z), (0.0, 0.0, 1.0), 0.0, 10.0)
                first = (hit.t, z + 10 * d) if hit is not None else (-1.0, z)
                got = struct.unpack_from("<4f", out, 16 * ((z * h + y) * w + x))
                assert got == pytest.approx((*first, z, d * 100 + h * 10 + y)), f"({x}, {y}, {z})"


HELPER_TERMINATORS = """
struct Payload { float4 a; float4 b; };
RaytracingAccelerationStructure scene : register(t0);
RWStructuredBuffer<float4> results : register(u1);

[shader("raygeneration")]
void rg() {
    uint i = DispatchRaysIndex().x;
    RayDesc ray = { float3(-2.7 + 0.6 * i, 0.15 + 0.01 * i, -3.0), 0.25, float3(0.01, 0.02, 1), 20.0 };
    Payload p = { float4(-5, -5, -5, -5), float4(-5, -5, -5, -5) };
    TraceRay(scene, i & 1 ? RAY_FLAG_FORCE_NON_OPAQUE : RAY_FLAG_NONE, 0xff, 0, 1, 0, ray, p);
    results[2 * i] = p.a;
    results[2 * i + 1] = p.b;
}

void inner(inout float4 v, uint prim) {
    v.y = 20 + prim;            // written to the helper's copy, then the hit ends inside the helper
    if (prim == 0)
        IgnoreHit();
    v.z = 30;
    AcceptHitAndEndSearch();
}

void outer(inout Payload p) {
    p.a.x = 10;
    inner(p.a, PrimitiveIndex());
    p.a.w = 99;                 // never runs: both paths end the hit inside `inner`
}

[shader("anyhit")]
void ah(inout Payload p, BuiltInTriangleIntersectionAttributes attr) { outer(p); }

[shader("closesthit")]
void ch(inout Payload p, BuiltInTriangleIntersectionAttributes attr) { p.b = float4(1, PrimitiveIndex(), p.a.z, 0); }

[shader("miss")]
void ms(inout Payload p) { p.b = float4(2, 0, p.a.y, 0); }

[shader("intersection")]
void nothing() { }
"""


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_ignore_and_accept_inside_nested_helpers_keep_the_payload_written(target):
    """IgnoreHit and AcceptHitAndEndSearch called two helpers deep (the payload passed inout to one, a
    member of it to the next): the writes made so far, in the helpers' copies too, reach the payload the
    miss or closest-hit shader sees (D3D keeps them); nothing after the terminator runs."""
    u, t = (U, T) if target == "dxil" else (0, 0)
    descriptors = [A.AccelStructure(0, t, SYS_SCENE), Buf(set=0, binding=u + 1, data=bytes(SYS_N * 32))]
    kw = dict(miss=("ms",), hit_groups=({"closest": "ch", "any": "ah"}, {"intersection": "nothing"}))
    if target == "dxil":
        result = run_raytracing(b"", "rg", (SYS_N, 1), descriptors, **kw,
                                modules=dxil_modules("term.hlsl", HELPER_TERMINATORS,
                                                     ["rg", "ah", "ch", "ms", "nothing"]))
    else:
        result = run_raytracing(spirv_library("term.hlsl", HELPER_TERMINATORS), "rg", (SYS_N, 1), descriptors, **kw)
    out = result["buffers"][1]
    seen = set()
    for i in range(SYS_N):
        o, d = (-2.7 + 0.6 * i, 0.15 + 0.01 * i, -3.0), (0.01, 0.02, 1.0)
        tris = [c for c in A.candidates(SYS_SCENE, o, d, 0.25, 20.0) if not c.procedural]
        assert len(tris) <= 1
        got = struct.unpack_from("<8f", out, 32 * i)
        if not tris:
            # a miss (or the box, whose intersection shader reports nothing)
            assert got == (-5, -5, -5, -5, 2, 0, -5, 0), f"ray {i}"
            continue
        prim = tris[0].primitive_index
        seen.add(prim)
        if prim == 0:   # ignored: x and y written before IgnoreHit, then the ray misses
            assert got == (10, 20, -5, -5, 2, 0, 20, 0), f"ray {i}"
        else:           # accepted: z written too, the closest-hit shader runs
            assert got == (10, 20 + prim, 30, -5, 1, prim, 30, 0), f"ray {i}"
    assert seen == {0, 1}
