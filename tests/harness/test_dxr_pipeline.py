"""A DXR ray-tracing library compiled to ONE SPIR-V module runs as a ray-tracing pipeline on lavapipe
(issue 18): ray generation writing a UAV image, closest-hit shaders for triangles and for a procedural
box, a miss shader calling a callable shader, an any-hit shader that ignores odd triangles and an
intersection shader reporting the box, checked pixel by pixel against the harness's reference tracer
(accel.py: Moller-Trumbore and slab tests in plain Python) and the shading written out again here."""

from __future__ import annotations

import functools
import struct
import subprocess

import pytest

from harness import accel
from harness.vulkan_runner import Buf, Image, register_unoptimised, run_raytracing
from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

W = H = 16
BOX_LO, BOX_HI = (0.2, -0.6, 0.2), (0.8, 0.6, 0.6)     # object space of the box instance
TRI_Z, BOX_Z = 0.25, 0.1                               # the instances' translations along z

LIB = f"""
struct [raypayload] Payload {{ float4 color; float4 extra; }};
struct BoxHit {{ float t; uint face; }};
struct Params {{ float4 value; }};
RaytracingAccelerationStructure scene : register(t0);
RWTexture2D<float4> image : register(u1);
RWStructuredBuffer<float4> extra : register(u2);

[shader("raygeneration")]
void rg() {{
    uint2 idx = DispatchRaysIndex().xy;
    float2 ndc = (float2(idx) + 0.5) / float2(DispatchRaysDimensions().xy) * 2.0 - 1.0;
    RayDesc ray;
    ray.Origin = float3(ndc, -1.0);
    ray.Direction = float3(0.0, 0.0, 1.0);
    ray.TMin = 0.0;
    ray.TMax = 10.0;
    Payload p = {{ float4(0, 0, 0, 0), float4(0, 0, 0, 0) }};
    TraceRay(scene, RAY_FLAG_NONE, 0xff, 0, 1, 0, ray, p);
    image[idx] = p.color;
    extra[idx.y * {W} + idx.x] = p.extra;
}}

[shader("miss")]
void ms(inout Payload p) {{
    Params c;
    c.value = float4(0.25, DispatchRaysIndex().x / 16.0, 0.0, 1.0);
    CallShader(0, c);
    p.color = c.value;
    p.extra = float4(-1.0, WorldRayDirection().z, RayTMin(), 0.0);
}}

[shader("callable")]
void twice(inout Params c) {{
    c.value.z = c.value.x + c.value.y;
    c.value.x *= 2.0;
}}

[shader("anyhit")]
void odd_out(inout Payload p, BuiltInTriangleIntersectionAttributes a) {{
    if (PrimitiveIndex() % 2 == 1)
        IgnoreHit();
}}

[shader("closesthit")]
void tri_hit(inout Payload p, BuiltInTriangleIntersectionAttributes a) {{
    p.color = float4(a.barycentrics, PrimitiveIndex() / 4.0, HitKind() / 255.0);
    p.extra = float4(RayTCurrent(), InstanceID(), InstanceIndex(), ObjectToWorld3x4()[2][3]);
}}

[shader("intersection")]
void box() {{
    float3 o = ObjectRayOrigin(), d = ObjectRayDirection();
    float3 lo = float3{BOX_LO}, hi = float3{BOX_HI};
    float3 a = (lo - o) / d, b = (hi - o) / d;
    float3 near = min(a, b), far = max(a, b);
    float t0 = max(max(near.x, near.y), near.z), t1 = min(min(far.x, far.y), far.z);
    if (t0 <= t1 && t0 >= RayTMin() && t0 <= RayTCurrent()) {{
        BoxHit h;
        h.t = t0;
        h.face = 3;
        ReportHit(t0, 7, h);
    }}
}}

[shader("closesthit")]
void box_hit(inout Payload p, BoxHit h) {{
    p.color = float4(0.0, h.t / 4.0, HitKind() / 8.0, h.face / 4.0);
    p.extra = float4(RayTCurrent(), InstanceID(), InstanceIndex(), WorldToObject4x3()[3].z);
}}
"""

# primitives 0, 1: a quad at z = 0 over the left half; 2, 3: a quad at z = 0.5 behind it, split along the
# other diagonal, so where the any-hit shader ignores triangle 1 the ray meets triangle 2 or 3 (object space)
FRONT = ((-1, -1, 0), (0, -1, 0), (-1, 1, 0), (0, -1, 0), (0, 1, 0), (-1, 1, 0))
BACK = ((-1, -1, 0.5), (0, -1, 0.5), (0, 1, 0.5), (-1, -1, 0.5), (0, 1, 0.5), (-1, 1, 0.5))
SCENE = accel.Scene(
    blases=((accel.Triangles(FRONT + BACK, opaque=False),), (accel.Boxes(((BOX_LO, BOX_HI),)),)),
    instances=(
        accel.Instance(0, (1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, TRI_Z), instance_id=5, sbt_offset=0),
        accel.Instance(1, (1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, BOX_Z), instance_id=9, sbt_offset=1),
    ))
HIT_GROUPS = ({"closest": "tri_hit", "any": "odd_out"}, {"closest": "box_hit", "intersection": "box"})


def _compile(opt: int) -> bytes:
    res = compile_file("dxr_lib.hlsl", CompileOptions(profile="lib_6_3", entry="", target="spirv",
                                                      vk_target_env="vulkan1.2", opt_level=opt), text=LIB)
    assert res.ok, [d.message for d in res.diagnostics]
    assert res.binary is not None
    return res.binary


@functools.cache
def _library() -> bytes:
    spirv = _compile(3)
    register_unoptimised(spirv, lambda: _compile(0))
    return spirv


def _expected(x: int, y: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """(colour, extra) of pixel (x, y), from the reference tracer and this file's shading."""
    o = ((x + 0.5) / W * 2 - 1, (y + 0.5) / H * 2 - 1, -1.0)
    d = (0.0, 0.0, 1.0)

    def box_entry(hit: accel.Hit) -> float:
        return accel.intersect_box(hit.object_origin, hit.object_direction, BOX_LO, BOX_HI)[0]

    hit = accel.trace(SCENE, o, d, 0.0, 10.0, accept=lambda h: h.primitive_index % 2 == 0, procedural=box_entry)
    if hit is None:
        return (0.5, x / 16.0, 0.25 + x / 16.0, 1.0), (-1.0, 1.0, 0.0, 0.0)
    if hit.procedural:
        return (0.0, hit.t / 4.0, 7 / 8.0, 3 / 4.0), (hit.t, 9.0, 1.0, -BOX_Z)
    kind = 0xFE if hit.front_face else 0xFF
    u, v = hit.barycentrics
    return (u, v, hit.primitive_index / 4.0, kind / 255.0), (hit.t, 5.0, 0.0, TRI_Z)


def test_library_module_validates_for_vulkan_1_2_and_1_3(tmp_path):
    path = tmp_path / "lib.spv"
    for opt in (0, 3):
        path.write_bytes(_compile(opt))
        for env in ("vulkan1.2", "vulkan1.3"):
            p = subprocess.run(["spirv-val", "--target-env", env, str(path)], capture_output=True, text=True)
            assert p.returncode == 0, f"-O{opt} {env}: {p.stderr}"


@functools.cache
def _traced() -> dict:
    """The library's pipeline traced once: the image, the extra buffer and the table's layout."""
    image = Image(set=0, binding=1, data=bytes(W * H * 16), width=W, height=H, format="rgba32f",
                  kind="storage_image")
    out = Buf(set=0, binding=2, data=bytes(W * H * 16))
    return run_raytracing(_library(), "rg", (W, H), [accel.AccelStructure(0, 0, SCENE), image, out],
                          miss=("ms",), hit_groups=HIT_GROUPS, callables=("twice",))


def test_ray_tracing_pipeline_matches_the_reference_tracer():
    _, pixels, extras = _traced()["buffers"]
    seen = set()
    for y in range(H):
        for x in range(W):
            i = y * W + x
            got = struct.unpack_from("<4f", pixels, 16 * i)
            got_extra = struct.unpack_from("<4f", extras, 16 * i)
            want, want_extra = _expected(x, y)
            assert got == pytest.approx(want, abs=1e-4), f"pixel ({x}, {y})"
            assert got_extra == pytest.approx(want_extra, abs=1e-4), f"pixel ({x}, {y}) extra"
            seen.add((want_extra[0] < 0, want_extra[1], round(want[2] * 4) if want_extra[1] == 5 else None))
    # every path ran: misses, the box, and triangles 0 and 2 (1 and 3 are ignored by the any-hit shader)
    assert {s[:2] for s in seen} == {(True, 1.0), (False, 5.0), (False, 9.0)}
    assert {s[2] for s in seen if s[1] == 5.0} == {0, 2}


def test_shader_binding_table_follows_the_device_properties():
    props, regions = _traced()["sbt"]["properties"], _traced()["sbt"]["regions"]
    assert props["handle_size"] > 0
    for (offset, stride, size), count in zip(regions, (1, 1, 2, 1)):
        assert offset % props["base_alignment"] == 0
        assert stride % props["handle_alignment"] == 0 and stride >= props["handle_size"]
        assert size == stride * count
    assert regions[0][1] % props["base_alignment"] == 0      # the raygen record's size is its stride


REFLECT = """
struct Payload { float4 color; uint depth; };
RaytracingAccelerationStructure scene : register(t0);
RWTexture2D<float4> image : register(u1);

[shader("raygeneration")]
void rg() {
    uint2 idx = DispatchRaysIndex().xy;
    float2 ndc = (float2(idx) + 0.5) / float2(DispatchRaysDimensions().xy) * 2.0 - 1.0;
    RayDesc ray = { float3(ndc, -1.0), 0.0, float3(0, 0, 1), 10.0 };
    Payload p = { float4(0, 0, 0, 0), 0 };
    TraceRay(scene, RAY_FLAG_NONE, 0xff, 0, 1, 0, ray, p);
    image[idx] = p.color;
}

[shader("closesthit")]
void hit(inout Payload p, BuiltInTriangleIntersectionAttributes a) {
    if (p.depth == 0) {     // a second ray from the hit point towards +x: recursion depth 2
        uint id = InstanceID();
        Payload q = { float4(0, 0, 0, 0), 1 };
        RayDesc ray = { WorldRayOrigin() + WorldRayDirection() * RayTCurrent(), 0.001, float3(1, 0, 0), 10.0 };
        TraceRay(scene, RAY_FLAG_FORCE_OPAQUE, 0xff, 0, 1, 0, ray, q);
        p.color = float4(id, q.color.x, RayTCurrent(), q.color.y);
    } else {
        p.color = float4(InstanceID(), RayTCurrent(), 0, 0);
    }
}

[shader("miss")]
void miss(inout Payload p) { p.color = float4(-1, RayFlags(), 0, 0); }
"""
# REFLECT whose hit shader also writes the rest of its hit's state, read after its nested trace
REFLECT_STATE = REFLECT.replace(
    "RWTexture2D<float4> image : register(u1);\n",
    "RWTexture2D<float4> image : register(u1);\nRWStructuredBuffer<float4> state : register(u2);\n").replace(
    "        p.color = float4(id, q.color.x, RayTCurrent(), q.color.y);\n",
    "        p.color = float4(id, q.color.x, RayTCurrent(), q.color.y);\n"
    "        uint2 idx = DispatchRaysIndex().xy;\n"
    "        state[idx.y * DispatchRaysDimensions().x + idx.x] = float4(InstanceIndex(), PrimitiveIndex(), HitKind(),\n"
    "                                                                   ObjectToWorld3x4()[2][3]);\n")
FLOOR = accel.Triangles(((-1, -1, 0), (0.5, -1, 0), (-1, 1, 0), (0.5, -1, 0), (0.5, 1, 0), (-1, 1, 0)))
WALL = accel.Triangles(((2, -1, 0), (2, 0, 0), (2, -1, 2), (2, 0, 0), (2, 0, 2), (2, -1, 2)))
REFLECT_SCENE = accel.Scene(blases=((FLOOR,), (WALL,)), instances=(
    accel.Instance(0, (1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1), instance_id=3), accel.Instance(1, instance_id=4)))


def _reflect_expected(x: int, y: int) -> tuple[float, ...]:
    o, d = ((x + 0.5) / W * 2 - 1, (y + 0.5) / H * 2 - 1, -1.0), (0.0, 0.0, 1.0)
    first = accel.trace(REFLECT_SCENE, o, d, 0.0, 10.0)
    if first is None:
        return (-1.0, 0.0, 0.0, 0.0)            # RayFlags() of the primary ray: RAY_FLAG_NONE
    at = tuple(o[i] + first.t * d[i] for i in range(3))
    second = accel.trace(REFLECT_SCENE, at, (1.0, 0.0, 0.0), 0.001, 10.0)
    if second is None:
        return (first.instance_id, -1.0, first.t, 1.0)     # the secondary miss saw RAY_FLAG_FORCE_OPAQUE
    return (first.instance_id, second.instance_id, first.t, second.t)


def _reflect_state(x: int, y: int) -> tuple[float, ...]:
    """What REFLECT_STATE's hit shader writes after its nested trace: its own hit's InstanceIndex,
    PrimitiveIndex, HitKind and ObjectToWorld3x4()[2][3] (the instance's z translation)."""
    first = accel.trace(REFLECT_SCENE, ((x + 0.5) / W * 2 - 1, (y + 0.5) / H * 2 - 1, -1.0), (0.0, 0.0, 1.0), 0.0, 10.0)
    if first is None:
        return (0.0, 0.0, 0.0, 0.0)             # not written
    z = REFLECT_SCENE.instances[first.instance_index].transform[11]
    return (first.instance_index, first.primitive_index, 0xFE if first.front_face else 0xFF, z)


@pytest.mark.parametrize("read_after", [False, True], ids=["InstanceID-before-TraceRay", "InstanceID-after-TraceRay"])
def test_closest_hit_traces_a_second_ray(read_after):
    src = REFLECT_STATE.replace("float4(id, q.color.x", "float4(InstanceID(), q.color.x") if read_after \
        else REFLECT_STATE
    assert "state[" in src
    res = compile_file("reflect.hlsl", CompileOptions(profile="lib_6_3", entry="", target="spirv",
                                                      vk_target_env="vulkan1.2"), text=src)
    assert res.ok, [d.message for d in res.diagnostics]
    register_unoptimised(res.binary, lambda: compile_file(
        "reflect.hlsl", CompileOptions(profile="lib_6_3", entry="", target="spirv", vk_target_env="vulkan1.2",
                                       opt_level=0), text=src).binary)
    image = Image(set=0, binding=1, data=bytes(W * H * 16), width=W, height=H, format="rgba32f",
                  kind="storage_image")
    state = Buf(set=0, binding=2, data=bytes(W * H * 16))
    result = run_raytracing(res.binary, "rg", (W, H), [accel.AccelStructure(0, 0, REFLECT_SCENE), image, state],
                            miss=("miss",), hit_groups=({"closest": "hit"},), max_recursion=2)
    assert result["sbt"]["properties"]["max_recursion"] >= 2
    _, pixels, states = result["buffers"]
    kinds = set()
    for y in range(H):
        for x in range(W):
            want = _reflect_expected(x, y)
            got = struct.unpack_from("<4f", pixels, 16 * (y * W + x))
            assert got == pytest.approx(want, abs=1e-4), f"pixel ({x}, {y})"
            got_state = struct.unpack_from("<4f", states, 16 * (y * W + x))
            assert got_state == pytest.approx(_reflect_state(x, y), abs=1e-6), f"pixel ({x}, {y}) state"
            kinds.add(want[1])
    assert kinds == {0.0, -1.0, 4.0}      # primary misses, secondary misses and secondary hits all occur


GEOMETRIES = """
struct [raypayload] Payload { float4 a; float4 b; };
RaytracingAccelerationStructure scene : register(t0);
RWStructuredBuffer<float4> results : register(u1);

[shader("raygeneration")]
void rg() {
    uint2 idx = DispatchRaysIndex().xy;
    float2 ndc = (float2(idx) + 0.5) / float2(DispatchRaysDimensions().xy) * 2.0 - 1.0;
    RayDesc ray = { float3(ndc, -1.0), 0.0, float3(0, 0, 1), 10.0 };
    Payload p = { float4(0, 0, 0, 0), float4(0, 0, 0, 0) };
    TraceRay(scene, RAY_FLAG_NONE, 0xff, 0, 1, 0, ray, p);
    uint i = idx.y * DispatchRaysDimensions().x + idx.x;
    results[2 * i] = p.a;
    results[2 * i + 1] = p.b;
}

[shader("anyhit")]
void ah(inout Payload p, BuiltInTriangleIntersectionAttributes attr) {
    p.a.z = 1.0;
    if (PrimitiveIndex() == 0)
        AcceptHitAndEndSearch();    // ends the any-hit shader too: the store below does not run
    p.a.z = 2.0;
}

[shader("closesthit")]
void ch(inout Payload p, BuiltInTriangleIntersectionAttributes attr) {
    p.a = float4(GeometryIndex(), PrimitiveIndex(), p.a.z, HitKind() / 255.0);
    p.b = float4(ObjectToWorld4x3()[0][0], ObjectToWorld4x3()[3][0], WorldToObject3x4()[0][0], WorldToObject3x4()[0][3]);
}

[shader("miss")]
void ms(inout Payload p) { p.a = float4(-1, -1, -1, -1); }
"""
# one bottom-level structure of two non-opaque geometries side by side (hit groups 0 and 1: the
# geometry index selects the record), under a transform scaling x by 0.5 and moving it by (0.25, 0, 0.5)
LEFT = ((-1, -1, 0), (0, -1, 0), (-1, 1, 0), (0, -1, 0), (0, 1, 0), (-1, 1, 0))
RIGHT = tuple((x + 1, y, z) for x, y, z in LEFT)
O2W = (0.5, 0, 0, 0.25, 0, 1, 0, 0, 0, 0, 1, 0.5)
GEOM_SCENE = accel.Scene(
    blases=((accel.Triangles(LEFT, opaque=False), accel.Triangles(RIGHT, opaque=False)),),
    instances=(accel.Instance(0, O2W),))


def test_geometry_index_transforms_and_accept_hit_and_end_search():
    src, profile = GEOMETRIES, "lib_6_5"      # GeometryIndex() is SM 6.5

    def build(opt: int) -> bytes:
        res = compile_file("geom.hlsl", CompileOptions(profile=profile, entry="", target="spirv",
                                                       vk_target_env="vulkan1.2", opt_level=opt), text=src)
        assert res.ok, [d.message for d in res.diagnostics]
        return res.binary

    spirv = build(3)
    register_unoptimised(spirv, lambda: build(0))
    out = Buf(set=0, binding=1, data=bytes(W * H * 32))
    group = {"closest": "ch", "any": "ah"}
    result = run_raytracing(spirv, "rg", (W, H), [accel.AccelStructure(0, 0, GEOM_SCENE), out], miss=("ms",),
                            hit_groups=(group, group))
    data = result["buffers"][1]
    w2o = accel.world_to_object(O2W)
    geometries = set()
    for y in range(H):
        for x in range(W):
            o = ((x + 0.5) / W * 2 - 1, (y + 0.5) / H * 2 - 1, -1.0)
            found = accel.candidates(GEOM_SCENE, o, (0.0, 0.0, 1.0), 0.0, 10.0)
            assert len(found) <= 1       # one candidate per ray: the any-hit outcome does not depend on order
            got = struct.unpack_from("<8f", data, 32 * (y * W + x))
            if not found:
                assert got[:4] == (-1.0, -1.0, -1.0, -1.0), f"pixel ({x}, {y})"
                continue
            h = found[0]
            geometries.add(h.geometry_index)
            want = (h.geometry_index, h.primitive_index, 1.0 if h.primitive_index == 0 else 2.0,
                    (0xFE if h.front_face else 0xFF) / 255.0, O2W[0], O2W[3], w2o[0], w2o[3])
            assert got == pytest.approx(want, abs=1e-5), f"pixel ({x}, {y})"
    assert geometries == {0, 1}
