"""The ray-tracing pipeline of test_dxr_pipeline.py, run from DXIL (issue 18): the same library
compiled with `-T lib_6_3` to one DXIL library, each exported shader converted on its own by
dxil-spirv (`--entry NAME`, the independent consumer), and the pipeline assembled from those
modules.  The pixels must be the reference tracer's, as for the SPIR-V build.

dxil-spirv binds a register at set = space, binding = shift + register (harness/dxil_consumer.py:
t0 -> 32, u1 -> 97, u2 -> 98)."""

from __future__ import annotations

import functools
import struct

import pytest

from harness import accel, dxil_consumer
from harness import test_dxr_pipeline as spirv_run
from harness.dxil_tools import check_dxil_library
from harness.vulkan_runner import Buf, Image, run_raytracing
from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

W, H = spirv_run.W, spirv_run.H
SHADERS = ("rg", "ms", "twice", "odd_out", "tri_hit", "box", "box_hit")
T, U = dxil_consumer.SHIFTS["t"], dxil_consumer.SHIFTS["u"]


@functools.cache
def _library() -> dict[str, bytes]:
    res = compile_file("dxr_lib.hlsl", CompileOptions(profile="lib_6_3", entry="", target="dxil"), text=spirv_run.LIB)
    assert res.ok, [d.message for d in res.diagnostics]
    assert res.binary is not None
    _read, modules = check_dxil_library(res.binary, list(SHADERS))
    missing = [n for n, m in modules.items() if m is None]
    assert not missing, f"dxil-spirv limits hit for {missing}"
    return {n: m for n, m in modules.items() if m is not None}


def test_every_shader_of_the_library_converts():
    assert sorted(_library()) == sorted(SHADERS)


def test_ray_tracing_pipeline_from_dxil_matches_the_reference_tracer():
    image = Image(set=0, binding=U + 1, data=bytes(W * H * 16), width=W, height=H, format="rgba32f",
                  kind="storage_image")
    out = Buf(set=0, binding=U + 2, data=bytes(W * H * 16))
    result = run_raytracing(b"", "rg", (W, H), [accel.AccelStructure(0, T + 0, spirv_run.SCENE), image, out],
                            miss=("ms",), hit_groups=spirv_run.HIT_GROUPS, callables=("twice",),
                            modules=_library())
    dxil_consumer.STATS.executed += 1
    _, pixels, extras = result["buffers"]
    for y in range(H):
        for x in range(W):
            i = y * W + x
            want, want_extra = spirv_run._expected(x, y)
            assert struct.unpack_from("<4f", pixels, 16 * i) == pytest.approx(want, abs=1e-4), f"pixel ({x}, {y})"
            assert struct.unpack_from("<4f", extras, 16 * i) == pytest.approx(want_extra, abs=1e-4), \
                f"pixel ({x}, {y}) extra"


STATE_OBJECT = """
TriangleHitGroup tris = { "odd_out", "tri_hit" };
ProceduralPrimitiveHitGroup boxes = { "", "box_hit", "box" };
RaytracingShaderConfig sizes = { 32, 8 };
RaytracingPipelineConfig depth = { 1 };
"""


def test_pipeline_built_from_the_librarys_own_subobjects():
    """What an engine does with a DXIL library: read the hit groups and the pipeline config from its RDAT
    part (here with dxil-spirv's RDAT parser, the one vkd3d-proton builds state objects with) and build
    the pipeline from them, with the manifest's subobjects saying the same; the pixels are the same."""
    res = compile_file("dxr_lib.hlsl", CompileOptions(profile="lib_6_3", entry="", target="dxil"),
                       text=spirv_run.LIB + STATE_OBJECT)
    assert res.ok, [d.message for d in res.diagnostics]
    assert res.binary is not None
    subobjects = dxil_consumer.rdat_subobjects(res.binary)
    groups = tuple({k: v for k, v in zip(("any", "closest", "intersection"), s["exports"]) if v}
                   for s in subobjects if s["kind"] == 11)      # D3D12_STATE_SUBOBJECT_TYPE_HIT_GROUP
    assert groups == spirv_run.HIT_GROUPS
    depth = next(s["args"][0] for s in subobjects if s["kind"] == 10)
    sizes = next(s["args"] for s in subobjects if s["kind"] == 9)
    manifest = {o["name"]: o for o in res.manifest["subobjects"]}
    assert (manifest["sizes"]["max_payload_size"], manifest["sizes"]["max_attribute_size"]) == tuple(sizes)
    assert manifest["tris"]["any_hit"] == "odd_out" and manifest["boxes"]["intersection"] == "box"
    _read, modules = check_dxil_library(res.binary, list(SHADERS))
    image = Image(set=0, binding=U + 1, data=bytes(W * H * 16), width=W, height=H, format="rgba32f",
                  kind="storage_image")
    out = Buf(set=0, binding=U + 2, data=bytes(W * H * 16))
    result = run_raytracing(b"", "rg", (W, H), [accel.AccelStructure(0, T + 0, spirv_run.SCENE), image, out],
                            miss=("ms",), hit_groups=groups, callables=("twice",), max_recursion=depth,
                            modules={n: m for n, m in modules.items() if m is not None})
    dxil_consumer.STATS.executed += 1
    _, pixels, _extras = result["buffers"]
    for y in range(H):
        for x in range(W):
            want, _ = spirv_run._expected(x, y)
            assert struct.unpack_from("<4f", pixels, 16 * (y * W + x)) == pytest.approx(want, abs=1e-4)


def test_vulkan_pipeline_built_from_the_manifests_subobjects():
    """SPIR-V cannot carry subobjects: a Vulkan engine takes its shader groups and recursion depth from
    the manifest's `subobjects`, which give the same pipeline as the hand-written groups."""
    res = compile_file("dxr_lib.hlsl", CompileOptions(profile="lib_6_3", entry="", target="spirv",
                                                      vk_target_env="vulkan1.2"), text=spirv_run.LIB + STATE_OBJECT)
    assert res.ok, [d.message for d in res.diagnostics]
    assert res.binary is not None
    objs = res.manifest["subobjects"]
    groups = tuple({k: o[f] for k, f in (("any", "any_hit"), ("closest", "closest_hit"), ("intersection",
                                                                                         "intersection")) if o[f]}
                   for o in objs if o["kind"] in ("TriangleHitGroup", "ProceduralPrimitiveHitGroup"))
    assert groups == spirv_run.HIT_GROUPS
    depth = next(o["max_trace_recursion_depth"] for o in objs if o["kind"] == "RaytracingPipelineConfig")
    image = Image(set=0, binding=1, data=bytes(W * H * 16), width=W, height=H, format="rgba32f",
                  kind="storage_image")
    out = Buf(set=0, binding=2, data=bytes(W * H * 16))
    result = run_raytracing(res.binary, "rg", (W, H), [accel.AccelStructure(0, 0, spirv_run.SCENE), image, out],
                            miss=("ms",), hit_groups=groups, callables=("twice",), max_recursion=depth)
    _, pixels, _extras = result["buffers"]
    for y in range(H):
        for x in range(W):
            want, _ = spirv_run._expected(x, y)
            assert struct.unpack_from("<4f", pixels, 16 * (y * W + x)) == pytest.approx(want, abs=1e-4)


@pytest.mark.parametrize("read_after", [False, True], ids=["InstanceID-before-TraceRay", "InstanceID-after-TraceRay"])
def test_closest_hit_traces_a_second_ray_from_dxil(read_after):
    """test_dxr_pipeline's recursion (depth 2) from DXIL.  InstanceID is a readnone operation: the
    HLSL's two reads (one before, one after the nested TraceRay) are one instanceID call before the
    trace, as DXC's CSE makes them, so lavapipe's InstanceCustomIndexKHR after a nested trace (which the
    SPIR-V build avoids by reading it at the shader's start) does not arise here and both variants pass."""
    src = spirv_run.REFLECT.replace("float4(id, q.color.x", "float4(InstanceID(), q.color.x") if read_after \
        else spirv_run.REFLECT
    res = compile_file("reflect.hlsl", CompileOptions(profile="lib_6_3", entry="", target="dxil"), text=src)
    assert res.ok, [d.message for d in res.diagnostics]
    assert res.binary is not None
    _read, modules = check_dxil_library(res.binary, ["rg", "hit", "miss"])
    image = Image(set=0, binding=U + 1, data=bytes(W * H * 16), width=W, height=H, format="rgba32f",
                  kind="storage_image")
    result = run_raytracing(b"", "rg", (W, H), [accel.AccelStructure(0, T + 0, spirv_run.REFLECT_SCENE), image],
                            miss=("miss",), hit_groups=({"closest": "hit"},), max_recursion=2,
                            modules={n: m for n, m in modules.items() if m is not None})
    dxil_consumer.STATS.executed += 1
    pixels = result["buffers"][1]
    for y in range(H):
        for x in range(W):
            want = spirv_run._reflect_expected(x, y)
            got = struct.unpack_from("<4f", pixels, 16 * (y * W + x))
            assert got == pytest.approx(want, abs=1e-4), f"pixel ({x}, {y})"


def test_geometry_index_transforms_and_accept_hit_and_end_search_from_dxil():
    """test_dxr_pipeline's GeometryIndex / transform / AcceptHitAndEndSearch test (checked there against
    the reference tracer) from DXIL: the same results, byte for byte."""
    from harness.test_dxr_pipeline import GEOM_SCENE, GEOMETRIES

    group = {"closest": "ch", "any": "ah"}
    spirv = compile_file("geom.hlsl", CompileOptions(profile="lib_6_5", entry="", target="spirv",
                                                     vk_target_env="vulkan1.2"), text=GEOMETRIES)
    dxil = compile_file("geom.hlsl", CompileOptions(profile="lib_6_5", entry="", target="dxil"), text=GEOMETRIES)
    assert spirv.ok and dxil.ok and spirv.binary is not None and dxil.binary is not None
    want = run_raytracing(spirv.binary, "rg", (W, H), [accel.AccelStructure(0, 0, GEOM_SCENE),
                                                       Buf(set=0, binding=1, data=bytes(W * H * 32))],
                          miss=("ms",), hit_groups=(group, group))["buffers"][1]
    _read, modules = check_dxil_library(dxil.binary, ["rg", "ah", "ch", "ms"])
    got = run_raytracing(b"", "rg", (W, H), [accel.AccelStructure(0, T + 0, GEOM_SCENE),
                                             Buf(set=0, binding=U + 1, data=bytes(W * H * 32))],
                         miss=("ms",), hit_groups=(group, group),
                         modules={n: m for n, m in modules.items() if m is not None})["buffers"][1]
    dxil_consumer.STATS.executed += 1
    assert any(struct.unpack_from("<f", want, 8 + 32 * i)[0] == 1.0 for i in range(W * H))   # an accepted hit
    assert got == want
