"""Inline ray tracing (SM 6.5 RayQuery): compute and pixel shaders trace rays against a scene the
harness builds on lavapipe (tests/harness/accel.py), from SPIR-V and from DXIL through dxil-spirv;
every value is checked against the harness's reference tracer (plain-Python ray/triangle and
ray/box intersection), never against another run of the compiler."""

from __future__ import annotations

import math
import re
import struct

import pytest
import res_util as R
from harness import accel, tools

QUAD = accel.Triangles(((-1, -1, 0), (1, -1, 0), (-1, 1, 0), (1, -1, 0), (1, 1, 0), (-1, 1, 0)))
SMALL = accel.Triangles(((0, 0, -0.5), (0.5, 0, -0.5), (0, 0.5, -0.5)), opaque=False)
BOX = accel.Boxes((((-0.5, -0.5, -0.5), (0.5, 0.5, 0.5)),), opaque=False)
SPHERE_RADIUS = 0.5     # the shader's procedural primitive: a sphere at the box's centre
SCENE = accel.Scene(
    blases=((QUAD,), (SMALL, QUAD), (BOX,)),
    instances=(
        accel.Instance(0, instance_id=7, sbt_offset=3),
        accel.Instance(0, (2, 0, 0, 5, 0, 2, 0, 0, 0, 0, 1, 3), instance_id=42, sbt_offset=5),
        accel.Instance(1, (1, 0, 0, -5, 0, 1, 0, 0, 0, 0, 1, 1), instance_id=0x123456),
        accel.Instance(2, (1, 0, 0, 10, 0, 1, 0, 0, 0, 0, 1, 0), instance_id=99, sbt_offset=1),
    ))
RAYS = [
    ((0.25, -0.5, -2.0), (0.0, 0.0, 1.0)),     # instance 0's quad, lower triangle, from the front (z < 0)
    ((-0.5, 0.5, 3.0), (0.0, 0.0, -1.0)),      # instance 0's quad from behind: upper triangle
    ((5.5, 1.5, -1.0), (0.0, 0.0, 1.0)),       # instance 1 (translated, scaled x2, z + 3)
    ((-4.9, 0.1, 0.0), (0.0, 0.0, 1.0)),       # instance 2: the non-opaque triangle, committed (u < 0.5)
    ((-4.6, 0.05, 0.0), (0.0, 0.0, 1.0)),      # instance 2: the non-opaque triangle rejected (u >= 0.5): quad
    ((20.0, 0.0, -1.0), (0.0, 0.0, 1.0)),      # a miss
    ((0.2, 0.3, -1.0), (0.125, 0.0625, 1.0)),  # slanted, instance 0
    ((10.0, 0.2, -3.0), (0.0, 0.0, 1.0)),      # instance 3: the procedural sphere, committed by the shader
    ((10.45, 0.45, -3.0), (0.0, 0.0, 1.0)),    # instance 3: inside the box, outside the sphere: a miss
    ((0.25, -0.5, 1.0), (0.0, 0.0, 1.0)),      # starts past the quad: a miss
]
TMIN, TMAX = 0.01, 100.0
ROW = 6     # float4 rows written per ray

SHADER = """
RaytracingAccelerationStructure Scene : register(t0);
StructuredBuffer<float4> Rays : register(t1);
RWStructuredBuffer<float4> Out : register(u2);

float sphere_t(float3 o, float3 d)      // nearest root of |o + t d| = R, or -1
{
    float a = dot(d, d), b = dot(o, d), c = dot(o, o) - RADIUS * RADIUS;
    float disc = b * b - a * c;
    return disc < 0 ? -1.0 : (-b - sqrt(disc)) / a;
}

void trace(uint i)
{
    RayDesc ray;
    ray.Origin = Rays[2 * i].xyz;
    ray.TMin = Rays[2 * i].w;
    ray.Direction = Rays[2 * i + 1].xyz;
    ray.TMax = Rays[2 * i + 1].w;
    RayQuery<TEMPLATE_FLAGS> q;
    q.TraceRayInline(Scene, RUNTIME_FLAGS, 0xFF, ray);
    uint procedural = 0;
    while (q.Proceed()) {
        if (q.CandidateType() == CANDIDATE_NON_OPAQUE_TRIANGLE) {
            if (q.CandidateTriangleBarycentrics().x < 0.5)
                q.CommitNonOpaqueTriangleHit();
        } else {
            procedural |= q.CandidateProceduralPrimitiveNonOpaque() ? 2 : 1;
            float t = sphere_t(q.CandidateObjectRayOrigin(), q.CandidateObjectRayDirection());
            if (t >= q.RayTMin() && t <= q.CommittedRayT())
                q.CommitProceduralPrimitiveHit(t);
        }
    }
    uint status = q.CommittedStatus();
    Out[ROW * i + 5] = float4(q.RayFlags(), q.RayTMin(), q.WorldRayDirection().z, procedural);
    if (status == COMMITTED_NOTHING) {      // the hit getters are undefined then
        Out[ROW * i] = float4(status, 0, 0, 0);
        return;
    }
    Out[ROW * i] = float4(status, q.CommittedRayT(), q.CommittedInstanceID(), q.CommittedInstanceIndex());
    if (status == COMMITTED_TRIANGLE_HIT)
        Out[ROW * i + 1] = float4(q.CommittedTriangleBarycentrics(), q.CommittedPrimitiveIndex(),
                                  q.CommittedTriangleFrontFace() ? 1 : 0);
    else
        Out[ROW * i + 1] = float4(0, 0, q.CommittedPrimitiveIndex(), 0);
    Out[ROW * i + 2] = float4(q.CommittedGeometryIndex(), q.CommittedInstanceContributionToHitGroupIndex(),
                              q.CommittedObjectToWorld3x4()[0][3], q.CommittedObjectToWorld4x3()[0][0]);
    Out[ROW * i + 3] = float4(q.CommittedObjectRayOrigin(), q.CommittedWorldToObject3x4()[2][3]);
    Out[ROW * i + 4] = float4(q.CommittedObjectRayDirection(), q.CommittedWorldToObject4x3()[3][0]);
}
"""
CS = SHADER + """
[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { trace(id.x); }
"""
# (template flags, runtime flags) of each variant
VARIANTS = {
    "none": ("RAY_FLAG_NONE", "RAY_FLAG_NONE", 0x0),
    "force_opaque": ("RAY_FLAG_FORCE_OPAQUE", "RAY_FLAG_NONE", accel.RAY_FLAG_FORCE_OPAQUE),
    "cull_back": ("RAY_FLAG_NONE", "RAY_FLAG_CULL_BACK_FACING_TRIANGLES",
                  accel.RAY_FLAG_CULL_BACK_FACING_TRIANGLES),
}


def defines(variant: str) -> dict:
    template, runtime, _ = VARIANTS[variant]
    return {"TEMPLATE_FLAGS": template, "RUNTIME_FLAGS": runtime, "ROW": str(ROW), "RADIUS": str(SPHERE_RADIUS)}


def _sphere(hit: accel.Hit) -> float | None:
    """What the shader's sphere_t computes, in double precision."""
    o, d = hit.object_origin, hit.object_direction
    a, b = sum(x * x for x in d), sum(x * y for x, y in zip(o, d))
    c = sum(x * x for x in o) - SPHERE_RADIUS ** 2
    disc = b * b - a * c
    return None if disc < 0 else (-b - math.sqrt(disc)) / a


def expected(i: int, flags: int) -> tuple[accel.Hit | None, int]:
    """The committed hit of ray i and the shader's `procedural` bits (which kinds of procedural
    candidates it saw: 1 opaque, 2 non-opaque)."""
    o, d = RAYS[i]
    hit = accel.trace(SCENE, o, d, TMIN, TMAX, flags, accept=lambda h: h.barycentrics[0] < 0.5,
                      procedural=_sphere)
    seen = 0
    for c in accel.candidates(SCENE, o, d, TMIN, TMAX, flags):
        if c.procedural:
            seen |= 1 if c.opaque else 2
    return hit, seen


def rays_bytes() -> bytes:
    return b"".join(struct.pack("<8f", *o, TMIN, *d, TMAX) for o, d in RAYS)


def check_rows(out: bytes, flags: int, where: str) -> None:
    got = struct.unpack(f"<{4 * ROW * len(RAYS)}f", out)
    for i in range(len(RAYS)):
        row = got[4 * ROW * i: 4 * ROW * (i + 1)]
        hit, seen = expected(i, flags)
        what = f"{where}: ray {i} {RAYS[i]}: {row}"
        assert row[20] == flags, what                              # RayFlags(): template | runtime
        assert row[21] == pytest.approx(TMIN) and row[22] == RAYS[i][1][2], what
        assert row[23] == seen, what
        if hit is None:
            assert row[0] == 0, what                               # COMMITTED_NOTHING
            continue
        inst = SCENE.instances[hit.instance_index]
        assert row[0] == (2 if hit.procedural else 1), what      # COMMITTED_*_HIT
        assert row[1] == pytest.approx(hit.t, rel=1e-5), what
        assert (row[2], row[3]) == (hit.instance_id, hit.instance_index), what
        if not hit.procedural:
            assert row[4:6] == pytest.approx(hit.barycentrics, abs=1e-5), what
            assert row[7] == float(hit.front_face), what
        assert row[6] == hit.primitive_index, what
        assert (row[8], row[9]) == (hit.geometry_index, inst.sbt_offset), what
        assert (row[10], row[11]) == (inst.transform[3], inst.transform[0]), what
        inverse = accel.world_to_object(inst.transform)
        assert row[12:15] == pytest.approx(hit.object_origin, abs=1e-5), what
        assert row[15] == pytest.approx(inverse[11], abs=1e-6), what
        assert row[16:19] == pytest.approx(hit.object_direction, abs=1e-5), what
        assert row[19] == pytest.approx(inverse[3], abs=1e-6), what


def descriptors(vk, accel_binding: tuple[int, int], rays: tuple[int, int], out: tuple[int, int]) -> list:
    return [accel.AccelStructure(*accel_binding, SCENE), vk.Buf(*rays, rays_bytes()),
            vk.Buf(*out, bytes(16 * ROW * len(RAYS)))]


def test_reference_covers_each_case():
    """The rays reach every case the shader distinguishes (so the executed checks below can fail)."""
    hits = [expected(i, 0)[0] for i in range(len(RAYS))]
    assert sum(h is None for h in hits) == 3
    kinds = {(h.procedural, SCENE.blases[SCENE.instances[h.instance_index].blas][h.geometry_index].opaque)
             for h in hits if h is not None}
    assert kinds == {(False, True), (False, False), (True, False)}
    assert {h.front_face for h in hits if h is not None and not h.procedural} == {True, False}
    assert expected(4, 0)[0].geometry_index == 1 and expected(3, 0)[0].geometry_index == 0
    assert expected(0, accel.RAY_FLAG_CULL_BACK_FACING_TRIANGLES)[0] is None is not expected(0, 0)[0]


@pytest.mark.vulkan
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_compute_rayquery_spirv(vk, variant):
    res = R.build(CS, profile="cs_6_5", defines=defines(variant))     # + the manifest against spirv-cross
    for env in ("vulkan1.1", "vulkan1.2", "vulkan1.3"):
        tools.spirv_val(res.binary, env)
    out = vk.run_compute(res.binary, "main", descriptors(vk, (0, 0), (0, 1), (0, 2)), groups=(len(RAYS), 1, 1))
    check_rows(out[2], VARIANTS[variant][2], f"SPIR-V ({variant})")


def dxil_spirv(res) -> tuple[bytes, str, dict[str, tuple[int, int]]]:
    """dxil-spirv's SPIR-V of a DXIL build (after obj2yaml, bcanalyzer and spirv-val checks), its entry
    point and {resource name: (set, binding)} as spirv-cross reads them from that SPIR-V."""
    from harness import dxil_tools
    spirv = dxil_tools.check_dxil(res.binary).spirv
    assert spirv is not None, "dxil-spirv did not convert the module"
    reflect = tools.spirv_cross_reflect(spirv)
    where = {e["name"].removesuffix("SSBO"): (e["set"], e["binding"])
             for cat in ("ssbos", "acceleration_structures") for e in reflect.get(cat, [])}
    return spirv, reflect["entryPoints"][0]["name"], where


@pytest.mark.vulkan
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_compute_rayquery_dxil_through_dxil_spirv(vk, variant):
    res = R.compile_hlsl(CS, profile="cs_6_5", target="dxil", defines=defines(variant))
    assert res.ok, R.diagnostics_text(res)
    spirv, entry, where = dxil_spirv(res)
    assert set(where) == {"Scene", "Rays", "Out"}, where
    out = vk.run_compute(spirv, entry, descriptors(vk, where["Scene"], where["Rays"], where["Out"]),
                         groups=(len(RAYS), 1, 1))
    check_rows(out[2], VARIANTS[variant][2], f"DXIL through dxil-spirv ({variant})")


# RayQuery parameters: the query passed by reference (DXC passes its handle), two levels deep and by value
CS_PARAMS = SHADER.replace("void trace(uint i)", """bool advance(inout RayQuery<TEMPLATE_FLAGS> rq) { return rq.Proceed(); }
bool step(inout RayQuery<TEMPLATE_FLAGS> sq) { return advance(sq); }
uint status_of(RayQuery<TEMPLATE_FLAGS> q) { return q.CommittedStatus(); }

void trace(uint i)""").replace("while (q.Proceed())", "while (step(q))").replace(
    "uint status = q.CommittedStatus();", "uint status = status_of(q);") + """
[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { trace(id.x); }
"""


@pytest.mark.vulkan
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_rayquery_passed_to_functions(vk, target):
    """A RayQuery parameter names the caller's query (functions taking one are inlined): Proceed() through two
    calls and CommittedStatus() through a third give the same committed hits as the reference scene traversal,
    from SPIR-V and from DXIL through dxil-spirv."""
    assert "while (step(q))" in CS_PARAMS and "status_of(q)" in CS_PARAMS
    variant = "none"
    if target == "spirv":
        res = R.build(CS_PARAMS, profile="cs_6_5", defines=defines(variant))
        tools.spirv_val(res.binary, "vulkan1.2")
        spirv, entry, where = res.binary, "main", {"Scene": (0, 0), "Rays": (0, 1), "Out": (0, 2)}
    else:
        res = R.compile_hlsl(CS_PARAMS, profile="cs_6_5", target="dxil", defines=defines(variant))
        assert res.ok, R.diagnostics_text(res)
        spirv, entry, where = dxil_spirv(res)
    out = vk.run_compute(spirv, entry, descriptors(vk, where["Scene"], where["Rays"], where["Out"]),
                         groups=(len(RAYS), 1, 1))
    check_rows(out[2], VARIANTS[variant][2], f"{target} with RayQuery parameters")


# A function returning a RayQuery (DXC returns its handle): the caller's query is the one the callee traced
CS_RETURN = SHADER.replace("void trace(uint i)", """RayQuery<TEMPLATE_FLAGS> start(RayDesc ray)
{
    RayQuery<TEMPLATE_FLAGS> started;
    started.TraceRayInline(Scene, RUNTIME_FLAGS, 0xFF, ray);
    return started;
}

void trace(uint i)""").replace("""RayQuery<TEMPLATE_FLAGS> q;
    q.TraceRayInline(Scene, RUNTIME_FLAGS, 0xFF, ray);""", "RayQuery<TEMPLATE_FLAGS> q = start(ray);") + """
[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { trace(id.x); }
"""


@pytest.mark.vulkan
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_rayquery_returned_from_a_function(vk, target):
    """`RayQuery<F> q = start(ray);` where start() traces its local query and returns it: q continues that
    trace (the function gets a hidden parameter naming the caller's query, and is inlined), with the same
    committed hits as the reference scene traversal, from SPIR-V and from DXIL through dxil-spirv."""
    assert "q = start(ray);" in CS_RETURN
    variant = "none"
    if target == "spirv":
        res = R.build(CS_RETURN, profile="cs_6_5", defines=defines(variant))
        tools.spirv_val(res.binary, "vulkan1.2")
        spirv, entry, where = res.binary, "main", {"Scene": (0, 0), "Rays": (0, 1), "Out": (0, 2)}
    else:
        res = R.compile_hlsl(CS_RETURN, profile="cs_6_5", target="dxil", defines=defines(variant))
        assert res.ok, R.diagnostics_text(res)
        spirv, entry, where = dxil_spirv(res)
    out = vk.run_compute(spirv, entry, descriptors(vk, where["Scene"], where["Rays"], where["Out"]),
                         groups=(len(RAYS), 1, 1))
    check_rows(out[2], VARIANTS[variant][2], f"{target} with a RayQuery returned by a function")


def test_rayquery_call_results_used_in_place_or_discarded():
    """`f(...).Proceed()` calls the query the call returned; `f(...);` discards it (both as in DXC): valid
    SPIR-V and DXIL (checked by the LLVM tools and dxil-spirv)."""
    src = _DECLS + """RayQuery<0> start(float3 o)
{
    RayQuery<0> q;
    RayDesc ray = { o, 0.01, float3(0, 0, 1), 100.0 };
    q.TraceRayInline(Scene, 0, 0xFF, ray);
    return q;
}
[numthreads(1, 1, 1)] void main() {
    Out[0] = start(float3(0.25, -0.5, -2.0)).Proceed() ? 1.0 : 2.0;
    start(float3(1, 1, 1));
}"""
    from harness import dxil_tools
    for target in ("spirv", "dxil"):
        res = R.compile_hlsl(src, profile="cs_6_5", target=target)
        assert res.ok, R.diagnostics_text(res)
        if target == "spirv":
            tools.spirv_val(res.binary, "vulkan1.2")
        else:
            dxil_tools.check_dxil(res.binary)


# ---------------------------------------------------------------- what is refused, and where

_DECLS = """RaytracingAccelerationStructure Scene : register(t0);
RWStructuredBuffer<float> Out : register(u1);
"""


@pytest.mark.parametrize("code, profile, where, message", [
    ("[numthreads(1, 1, 1)] void main() {\n    RayQuery<0> q;\n    Out[0] = q.RayTMin();\n}",
     "cs_6_4", "4:5", "'RayQuery' requires shader model 6.5 or later (the profile is cs_6_4)"),
    ("[numthreads(1, 1, 1)] void main() {\n    RayQuery<0> q;\n    RayQuery<0> r = q;\n    Out[0] = r.RayTMin();\n}",
     "cs_6_5", "5:21", "a 'RayQuery<0>' is not a value: it cannot be copied, passed or returned; call its methods"),
    # a returned query is the caller's: the function must return one local query, declared without initializer
    ("RayQuery<0> f(bool c) { RayQuery<0> q; RayQuery<0> r; if (c) return q; return r; }\n"
     "[numthreads(1, 1, 1)] void main() { RayQuery<0> a = f(true); }",
     "cs_6_5", "3:13", "a function returning 'RayQuery<0>' must return the same local RayQuery variable from every "
                      "'return' (the caller's query is that variable)"),
    ("RayQuery<0> g() { RayQuery<0> q; return q; }\nRayQuery<0> f() { RayQuery<0> q = g(); return q; }\n"
     "[numthreads(1, 1, 1)] void main() { RayQuery<0> a = f(); }",
     "cs_6_5", "4:35", "the RayQuery 'q' this function returns must be declared without an initializer"),
    ("RayQuery<0> g() { RayQuery<0> q; return q; }\n[numthreads(1, 1, 1)] void main() {\n"
     "    RayQuery<0> a;\n    a = g();\n}",
     "cs_6_5", "6:9", "a 'RayQuery<0>' is not a value: it cannot be copied, passed or returned; call its methods"),
    ("RayQuery<4> g() { RayQuery<4> q; return q; }\n[numthreads(1, 1, 1)] void main() { RayQuery<0> a = g(); }",
     "cs_6_5", "4:53", "cannot initialize a 'RayQuery<0>' with the 'RayQuery<4>' returned by the call"),
    ("float f(RayQuery<4> q) { return q.RayTMin(); }\n"
     "[numthreads(1, 1, 1)] void main() {\n    RayQuery<0> q;\n    Out[0] = f(q);\n}",
     "cs_6_5", "6:16", "cannot convert 'RayQuery<0>' to 'RayQuery<4>'"),
    ("static RayQuery<4> g;\n[numthreads(1, 1, 1)] void main() { Out[0] = g.RayTMin(); }",
     "cs_6_5", "3:8", "'RayQuery<4>' cannot be a global or static variable: a RayQuery must be a local variable "
                      "of the function that uses it"),
    ("struct S { RayQuery<0> q; };\n[numthreads(1, 1, 1)] void main() { }",
     "cs_6_5", "3:12", "'RayQuery<0>' cannot be a struct member: a RayQuery must be a local variable of the "
                       "function that uses it"),
    ("[numthreads(1, 1, 1)] void main() {\n    RayQuery<0> q[2];\n}",
     "cs_6_5", "4:5", "arrays of 'RayQuery' are not supported"),
    ("[numthreads(1, 1, 1)] void main() {\n    RayQuery<0> q;\n    RayDesc r = (RayDesc)0;\n"
     "    q.TraceRayInline(Out, 0, 0xFF, r);\n}",
     "cs_6_5", "6:22", "the first argument of 'TraceRayInline' must be a RaytracingAccelerationStructure"),
    ("[numthreads(1, 1, 1)] void main() {\n    RayQuery<0> q;\n    q.Proceed(1);\n}",
     "cs_6_5", "5:7", "no matching member function for call to 'Proceed': expected 0 arguments, have 1"),
    ("[numthreads(1, 1, 1)] void main() {\n    RayQuery<0> q;\n    q.TraceRay();\n}",
     "cs_6_5", "5:7", "no member function named 'TraceRay' in 'RayQuery<0>'"),
    ("[numthreads(1, 1, 1)] void main() {\n    RayQuery<0x400> q;\n}",
     "cs_6_5", "4:14", "0x400 is not a combination of RAY_FLAG_* values"),
    ("[numthreads(1, 1, 1)] void main() {\n    RayQuery<0, 1> q;\n}",
     "cs_6_5", "4:17", "RayQuery flags 0x1 are not supported (only RAYQUERY_FLAG_NONE)"),
])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_refused_with_a_located_error(code, profile, where, message, target):
    res = R.compile_hlsl(_DECLS + code, profile=profile, target=target)
    assert R.errors(res) == [f"{where}: {message}"], R.diagnostics_text(res)


def test_flag_expressions_and_shadowing():
    """`RayQuery<A | B>` reads the whole expression (up to the closing '>', parentheses nest); a
    user's declaration of a predefined name shadows it."""
    src = _DECLS + """static const uint RAY_FLAG_CULL_OPAQUE = 7;     // shadows the predefined 0x40
[numthreads(1, 1, 1)] void main() {
    RayQuery<RAY_FLAG_FORCE_OPAQUE | RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES> q;
    RayQuery<RAY_FLAG_CULL_NON_OPAQUE * (2 > 1)> r;
    RayDesc ray = (RayDesc)0;
    q.TraceRayInline(Scene, 0, 0xFF, ray);
    r.TraceRayInline(Scene, 0, 0xFF, ray);
    Out[0] = RAY_FLAG_CULL_OPAQUE;
}
"""
    res = R.compile_hlsl(src, profile="cs_6_5")
    assert res.ok, R.diagnostics_text(res)
    tools.spirv_val(res.binary, "vulkan1.2")
    dis = tools.spirv_dis(res.binary)
    assert "RayTraversalPrimitiveCullingKHR" in dis       # a template flag skips a primitive type
    inits = [line.split()[3] for line in dis.splitlines() if "OpRayQueryInitializeKHR" in line]
    assert inits == ["%uint_513", "%uint_128"], inits     # the template flags, ORed into each trace's
    assert "%float_7 " in dis + " "


# ---------------------------------------------------------------- a pixel shader

WIDTH, HEIGHT = 18, 4
PS_ORIGIN = (-6.0 + 0.25, -2.0 + 0.25, -3.0)     # world position of pixel (0, 0)'s corner; rays along +z
VS = """
float4 main(uint id : SV_VertexID) : SV_Position
{
    float2 uv = float2((id << 1) & 2, id & 2);
    return float4(uv * 2 - 1, 0, 1);
}
"""
PS = """
RaytracingAccelerationStructure Scene : register(t0, space1);

float4 main(float4 pos : SV_Position) : SV_Target
{
    RayDesc ray;
    ray.Origin = float3(ORIGIN_X + pos.x, ORIGIN_Y + pos.y, ORIGIN_Z);
    ray.Direction = float3(0, 0, 1);
    ray.TMin = 0.0;
    ray.TMax = 50.0;
    RayQuery<RAY_FLAG_CULL_NON_OPAQUE> q;
    q.TraceRayInline(Scene, RAY_FLAG_NONE, 0xFF, ray);
    // (no procedural commit here: lavapipe (Mesa 25.0) segfaults drawing a fragment shader whose Proceed loop
    // reads a candidate getter and calls CommitProceduralPrimitiveHit; glslang's SPIR-V of the same GLSL too)
    while (q.Proceed()) {       // no candidate reaches here: the non-opaque geometries are culled
        if (q.CandidateType() == CANDIDATE_NON_OPAQUE_TRIANGLE)
            q.CommitNonOpaqueTriangleHit();
    }
    if (q.CommittedStatus() == COMMITTED_NOTHING)
        return float4(0, 0, 0, 1);
    return float4(q.CommittedStatus(), q.CommittedInstanceIndex() + 1, round(q.CommittedRayT() * 8),
                  q.CommittedTriangleFrontFace() ? 1 : 0) / 255.0;
}
"""


def ps_defines() -> dict:
    return {"ORIGIN_X": str(PS_ORIGIN[0]), "ORIGIN_Y": str(PS_ORIGIN[1]), "ORIGIN_Z": str(PS_ORIGIN[2])}


def expected_pixels() -> bytes:
    """What the pixel shader writes, per pixel centre, from the reference tracer: the non-opaque
    geometries are culled (RAY_FLAG_CULL_NON_OPAQUE), so only opaque triangles hit."""
    out = bytearray()
    for y in range(HEIGHT):
        for x in range(WIDTH):
            o = (PS_ORIGIN[0] + x + 0.5, PS_ORIGIN[1] + y + 0.5, PS_ORIGIN[2])
            hit = accel.trace(SCENE, o, (0.0, 0.0, 1.0), 0.0, 50.0, accel.RAY_FLAG_CULL_NON_OPAQUE)
            out += bytes((0, 0, 0, 255)) if hit is None else bytes(
                (1, hit.instance_index + 1, round(hit.t * 8), int(hit.front_face)))
    return bytes(out)


def test_pixel_reference_is_not_trivial():
    px = expected_pixels()
    hits = {px[i + 1] for i in range(0, len(px), 4)}
    assert hits == {0, 1, 2, 3}       # misses, and each opaque-triangle instance (1, 2, 3 = index + 1)


def _draw(vk, vs: bytes, vs_entry: str, ps: bytes, ps_entry: str, scene_at: tuple[int, int]) -> bytes:
    return vk.run_graphics(vs, vs_entry, ps, ps_entry, WIDTH, HEIGHT, [accel.AccelStructure(*scene_at, SCENE)],
                           vertex_count=3)


@pytest.mark.vulkan
def test_pixel_rayquery_spirv(vk):
    vs = R.compile_hlsl(VS, profile="vs_6_5")
    ps = R.build(PS, profile="ps_6_5", defines=ps_defines())
    assert vs.ok, R.diagnostics_text(vs)
    for env in ("vulkan1.2", "vulkan1.3"):
        tools.spirv_val(ps.binary, env)
    scene = next(r for r in ps.manifest["resources"] if r["name"] == "Scene")
    got = _draw(vk, vs.binary, "main", ps.binary, "main", (scene["vulkan"]["set"], scene["vulkan"]["binding"]))
    assert got == expected_pixels()


@pytest.mark.vulkan
def test_pixel_rayquery_dxil_through_dxil_spirv(vk):
    vs = R.compile_hlsl(VS, profile="vs_6_5", target="dxil")
    ps = R.compile_hlsl(PS, profile="ps_6_5", target="dxil", defines=ps_defines())
    assert vs.ok and ps.ok, R.diagnostics_text(ps) + R.diagnostics_text(vs)
    vs_spv, vs_entry, _ = dxil_spirv(vs)
    ps_spv, ps_entry, where = dxil_spirv(ps)
    assert got_equal(_draw(vk, vs_spv, vs_entry, ps_spv, ps_entry, where["Scene"]), expected_pixels())


def got_equal(got: bytes, want: bytes) -> bool:
    if got != want:
        px = next(j for j in range(0, len(got), 4) if got[j:j + 4] != want[j:j + 4]) // 4
        raise AssertionError(f"first difference at pixel ({px % WIDTH}, {px // WIDTH}): got "
                             f"{tuple(got[px * 4:px * 4 + 4])}, want {tuple(want[px * 4:px * 4 + 4])}")
    return True


# ---------------------------------------------------------------- every stage SM 6.5 allows

_TRACE = """
RaytracingAccelerationStructure Scene : register(t0);
float trace_t(float3 origin)
{
    RayDesc ray = { origin, 0.0, float3(0, 0, 1), 100.0 };
    RayQuery<RAY_FLAG_FORCE_OPAQUE> q;
    q.TraceRayInline(Scene, RAY_FLAG_NONE, 0xFF, ray);
    q.Proceed();
    return q.CommittedStatus() == COMMITTED_TRIANGLE_HIT ? q.CommittedRayT() : -1.0;
}
"""
STAGES = {
    "vs_6_5": "float4 main(float3 p : POSITION) : SV_Position { return float4(p, trace_t(p)); }",
    "ps_6_5": "float4 main(float4 p : SV_Position) : SV_Target { return trace_t(p.xyz); }",
    "cs_6_5": "RWStructuredBuffer<float> Out : register(u1);\n"
              "[numthreads(1, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = trace_t(id); }",
    "gs_6_5": "struct V { float4 pos : SV_Position; };\n"
              "[maxvertexcount(1)] void main(point V v[1], inout PointStream<V> s) {\n"
              "    V o; o.pos = v[0].pos * trace_t(v[0].pos.xyz); s.Append(o); }",
    "hs_6_5": "struct CP { float4 pos : POSITION; };\n"
              "struct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; };\n"
              "PC pcf(InputPatch<CP, 3> p) { PC o; o.e[0] = o.e[1] = o.e[2] = trace_t(p[0].pos.xyz); o.i = 1; return o; }\n"
              "[domain(\"tri\")] [partitioning(\"integer\")] [outputtopology(\"triangle_cw\")] [outputcontrolpoints(3)]\n"
              "[patchconstantfunc(\"pcf\")] CP main(InputPatch<CP, 3> p, uint i : SV_OutputControlPointID) { return p[i]; }",
    "ds_6_5": "struct CP { float4 pos : POSITION; };\n"
              "struct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; };\n"
              "[domain(\"tri\")] float4 main(PC pc, float3 uvw : SV_DomainLocation, const OutputPatch<CP, 3> p)\n"
              "    : SV_Position { return p[0].pos * trace_t(uvw); }",
}


@pytest.mark.parametrize("profile", sorted(STAGES))
def test_every_stage_compiles_to_valid_spirv_and_dxil(profile):
    """SPIR-V passes spirv-val for Vulkan 1.2 and 1.3; DXIL parses (obj2yaml, bcanalyzer) and dxil-spirv
    converts it to SPIR-V that spirv-val accepts, with the ray query and the raytracing tier 1.1 flag."""
    src = _TRACE + STAGES[profile]
    spv = R.compile_hlsl(src, profile=profile)
    assert spv.ok, R.diagnostics_text(spv)
    for env in ("vulkan1.2", "vulkan1.3"):
        tools.spirv_val(spv.binary, env)
    assert "OpRayQueryProceedKHR" in tools.spirv_dis(spv.binary)
    dx = R.compile_hlsl(src, profile=profile, target="dxil")
    assert dx.ok, R.diagnostics_text(dx)
    converted, _entry, where = dxil_spirv(dx)
    assert "Scene" in where and "OpRayQueryProceedKHR" in tools.spirv_dis(converted)
    from harness import dxil_tools
    check = dxil_tools.check_dxil(dx.binary)
    sfi0 = next(p for p in check.container["Parts"] if p["Name"] == "SFI0")
    assert sfi0["Flags"]["Raytracing_Tier_1_1"] is True                       # obj2yaml's reading
    assert "@dx.op.allocateRayQuery(i32 178, i32 1)" in check.ir              # RAY_FLAG_FORCE_OPAQUE
    assert re.search(r"!\{i32 0, i64 (\d+)", check.ir) and int(
        re.search(r"!\{i32 0, i64 (\d+)", check.ir).group(1)) >> 25 & 1     # entry shader flags: tier 1.1


# ---------------------------------------------------------------- the manifest

def test_manifest_lists_the_acceleration_structure_in_both_views():
    import json
    from importlib import resources

    import jsonschema
    schema = json.loads(resources.files("shaderbuild.reflect").joinpath("manifest.schema.json").read_text())
    src = "RaytracingAccelerationStructure Scene : register(t3, space2);\n" + PS.split("\n", 2)[2]
    want_hlsl = {"class": "t", "register": 3, "space": 2, "count": 1}
    views = {}
    for target in ("spirv", "dxil"):
        res = R.compile_hlsl(src, profile="ps_6_5", target=target, defines=ps_defines())
        assert res.ok, R.diagnostics_text(res)
        jsonschema.validate(res.manifest, schema)
        scene = next(r for r in res.manifest["resources"] if r["name"] == "Scene")
        assert (scene["kind"], scene["access"], scene["used"]) == ("RaytracingAccelerationStructure", "read-only", True)
        assert scene["hlsl"] == want_hlsl
        views[target] = scene["vulkan"]
        if target == "dxil":            # the DXIL resource table: an SRV of kind 16, RTAccelerationStructure
            (rec,) = res.manifest["backend"]["dxil"]["resources"]
            assert (rec["class"], rec["kind"], rec["space"], rec["lower_bound"]) == ("SRV", 16, 2, 3)
    # DXC's SPIR-V mapping: set = space, binding = register; both builds give the same Vulkan view
    assert views["spirv"] == views["dxil"] == {"set": 2, "binding": 3, "descriptor_type": "acceleration_structure",
                                              "count": 1}


@pytest.mark.vulkan
@pytest.mark.parametrize("opt", [0, 3])
def test_compute_rayquery_dxil_sm66_handles_and_O0(vk, opt):
    """SM 6.6 handles (createHandleFromBinding + annotateHandle of kind 16) and the unoptimised DXIL
    lowering (locals in memory) trace the same."""
    res = R.compile_hlsl(CS, profile="cs_6_6", target="dxil", defines=defines("none"), opt_level=opt)
    assert res.ok, R.diagnostics_text(res)
    spirv, entry, where = dxil_spirv(res)
    out = vk.run_compute(spirv, entry, descriptors(vk, where["Scene"], where["Rays"], where["Out"]),
                         groups=(len(RAYS), 1, 1))
    check_rows(out[2], 0, f"DXIL cs_6_6 -O{opt} through dxil-spirv")


# ---------------------------------------------------------------- candidate getters and Abort

CANDIDATES_CS = """
RaytracingAccelerationStructure Scene : register(t0);
StructuredBuffer<float4> Rays : register(t1);
RWStructuredBuffer<float4> Out : register(u2);

[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    uint i = id.x;
    RayDesc ray = { Rays[2 * i].xyz, Rays[2 * i].w, Rays[2 * i + 1].xyz, Rays[2 * i + 1].w };
    RayQuery<RAY_FLAG_NONE> q;
    q.TraceRayInline(Scene, RAY_FLAG_FORCE_NON_OPAQUE, 0xFF, ray);
    uint n = 0;
    Out[4 * i] = float4(-1, -1, -1, -1);
    while (q.Proceed()) {
        n++;
        uint kind = q.CandidateType();
        Out[4 * i] = float4(kind, q.CandidateInstanceIndex(), q.CandidateInstanceID(), q.CandidatePrimitiveIndex());
        Out[4 * i + 1] = float4(q.CandidateGeometryIndex(), q.CandidateInstanceContributionToHitGroupIndex(),
                                q.CandidateObjectToWorld3x4()[0][3], q.CandidateWorldToObject4x3()[3][0]);
        if (kind == CANDIDATE_NON_OPAQUE_TRIANGLE)
            Out[4 * i + 2] = float4(q.CandidateTriangleRayT(), q.CandidateTriangleFrontFace(),
                                    q.CandidateObjectToWorld4x3()[3][2], q.CandidateWorldToObject3x4()[2][3]);
        else
            Out[4 * i + 2] = float4(0, q.CandidateProceduralPrimitiveNonOpaque(), 0, 0);
        q.Abort();          // the first candidate ends the query: Proceed returns false next
    }
    Out[4 * i + 3] = float4(n, q.WorldRayOrigin());
}
"""


@pytest.mark.vulkan
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_candidate_getters_and_abort(vk, target):
    """With RAY_FLAG_FORCE_NON_OPAQUE every triangle is a candidate; the shader reads the first one
    (which one comes first is the implementation's choice, so it must be one of the reference's) and
    aborts, so a ray with several candidates still runs the loop once."""
    res = R.compile_hlsl(CANDIDATES_CS, profile="cs_6_5", target=target)
    assert res.ok, R.diagnostics_text(res)
    if target == "spirv":
        tools.spirv_val(res.binary, "vulkan1.2")
        spirv, entry, where = res.binary, "main", {"Scene": (0, 0), "Rays": (0, 1), "Out": (0, 2)}
    else:
        spirv, entry, where = dxil_spirv(res)
    descs = [accel.AccelStructure(*where["Scene"], SCENE), vk.Buf(*where["Rays"], rays_bytes()),
             vk.Buf(*where["Out"], bytes(64 * len(RAYS)))]
    got = struct.unpack(f"<{16 * len(RAYS)}f", vk.run_compute(spirv, entry, descs, groups=(len(RAYS), 1, 1))[2])
    several = 0
    for i, (o, d) in enumerate(RAYS):
        row = got[16 * i: 16 * (i + 1)]
        what = f"{target}: ray {i}: {row}"
        assert row[13:16] == pytest.approx(o), what                     # WorldRayOrigin()
        cands = accel.candidates(SCENE, o, d, TMIN, TMAX, accel.RAY_FLAG_FORCE_NON_OPAQUE)
        several += len(cands) > 1
        if not cands:
            assert row[12] == 0 and row[0] == -1, what
            continue
        assert row[12] == 1, what                                        # Abort ended the loop
        (c,) = [c for c in cands if (c.instance_index, c.geometry_index, c.primitive_index) == row[1:2] + row[4:5]
                + row[3:4]] or [None]
        assert c is not None, what
        inst = SCENE.instances[c.instance_index]
        inverse = accel.world_to_object(inst.transform)
        assert (row[0], row[2], row[5]) == (int(c.procedural), c.instance_id, inst.sbt_offset), what
        assert row[6] == inst.transform[3] and row[7] == pytest.approx(inverse[3], abs=1e-6), what
        if c.procedural:
            assert row[9] == 1.0, what                                   # non-opaque (forced)
        else:
            assert row[8] == pytest.approx(c.t, rel=1e-5) and row[9] == float(c.front_face), what
            assert row[10] == inst.transform[11] and row[11] == pytest.approx(inverse[11], abs=1e-6), what
    assert several >= 1         # a ray with two candidates: only Abort keeps its count at 1


# ---------------------------------------------------------------- an array of acceleration structures

ARRAY_CS = """
RaytracingAccelerationStructure Scenes[2] : register(t0);
RWStructuredBuffer<float2> Out : register(u4);

float2 trace(RaytracingAccelerationStructure scene, float3 origin)
{
    RayDesc ray = { origin, 0.0, float3(0, 0, 1), 100.0 };
    RayQuery<RAY_FLAG_FORCE_OPAQUE> q;
    q.TraceRayInline(scene, RAY_FLAG_NONE, 0xFF, ray);
    q.Proceed();
    if (q.CommittedStatus() == COMMITTED_NOTHING)
        return float2(-1, -1);
    return float2(q.CommittedRayT(), q.CommittedInstanceID());
}

[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Out[id.x] = trace(Scenes[id.x & 1], float3(0.25 + 5.0 * (id.x >> 1), -0.5, -2.0));
}
"""
OTHER_SCENE = accel.Scene(blases=((QUAD,),), instances=(accel.Instance(0, (1, 0, 0, 5, 0, 1, 0, 0, 0, 0, 1, 7),
                                                                        instance_id=5),))


@pytest.mark.vulkan
def test_array_of_acceleration_structures_spirv(vk):
    """A dynamically indexed array, and one passed to a function (resolved at compile time). SPIR-V
    only: dxil-spirv crashes on acceleration-structure arrays (docs/CONFORMANCE.md)."""
    res = R.compile_hlsl(ARRAY_CS, profile="cs_6_5")
    assert res.ok, R.diagnostics_text(res)
    tools.spirv_val(res.binary, "vulkan1.2")
    scenes = (SCENE, OTHER_SCENE)
    out = vk.run_compute(res.binary, "main", [accel.AccelStructure(0, 0, scenes[0], index=0),
                                              accel.AccelStructure(0, 0, scenes[1], index=1),
                                              vk.Buf(0, 4, bytes(32))])
    got = struct.unpack("<8f", out[2])
    for i in range(4):
        o = (0.25 + 5.0 * (i >> 1), -0.5, -2.0)
        hit = accel.trace(scenes[i & 1], o, (0.0, 0.0, 1.0), 0.0, 100.0, accel.RAY_FLAG_FORCE_OPAQUE)
        want = (-1.0, -1.0) if hit is None else (hit.t, float(hit.instance_id))
        assert got[2 * i: 2 * i + 2] == pytest.approx(want, rel=1e-6), (i, got)
    assert len({got[2 * i: 2 * i + 2] for i in range(4)}) == 4      # each thread saw a different hit
