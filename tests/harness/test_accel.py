"""The harness's acceleration-structure builder (accel.py + vkaccel.py): a scene built on lavapipe and
queried by a GLSL ray-query shader (compiled by glslang, so only the harness is under test) finds what
the reference tracer computes."""

from __future__ import annotations

import struct

import pytest

from harness import accel, tools

GLSL = """#version 460
#extension GL_EXT_ray_query : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform accelerationStructureEXT tlas;
layout(set = 0, binding = 1, std430) buffer Rays { vec4 rays[]; };
layout(set = 0, binding = 2, std430) buffer Out { vec4 res[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 a = rays[2 * i], b = rays[2 * i + 1];
    rayQueryEXT q;
    rayQueryInitializeEXT(q, tlas, gl_RayFlagsNoneEXT, 0xFF, a.xyz, a.w, b.xyz, b.w);
    while (rayQueryProceedEXT(q)) {
        if (rayQueryGetIntersectionTypeEXT(q, false) == gl_RayQueryCandidateIntersectionTriangleEXT)
            rayQueryConfirmIntersectionEXT(q);
    }
    uint kind = rayQueryGetIntersectionTypeEXT(q, true);
    if (kind == gl_RayQueryCommittedIntersectionNoneEXT) {     // the getters are undefined then
        res[3 * i] = vec4(0.0);
        return;
    }
    res[3 * i] = vec4(float(kind), rayQueryGetIntersectionTEXT(q, true),
                      float(rayQueryGetIntersectionInstanceCustomIndexEXT(q, true)),
                      float(rayQueryGetIntersectionInstanceIdEXT(q, true)));
    vec2 bc = rayQueryGetIntersectionBarycentricsEXT(q, true);
    res[3 * i + 1] = vec4(bc, float(rayQueryGetIntersectionPrimitiveIndexEXT(q, true)),
                          rayQueryGetIntersectionFrontFaceEXT(q, true) ? 1.0 : 0.0);
    res[3 * i + 2] = vec4(float(rayQueryGetIntersectionGeometryIndexEXT(q, true)), 0.0, 0.0, 0.0);
}
"""

QUAD = accel.Triangles(((-1, -1, 0), (1, -1, 0), (-1, 1, 0), (1, -1, 0), (1, 1, 0), (-1, 1, 0)))
SMALL = accel.Triangles(((0, 0, 0), (0.5, 0, 0), (0, 0.5, 0)), opaque=False)
SCENE = accel.Scene(
    blases=((QUAD,), (SMALL, QUAD)),
    instances=(
        accel.Instance(0, instance_id=7),
        accel.Instance(0, (2, 0, 0, 5, 0, 2, 0, 0, 0, 0, 1, 3), instance_id=42),
        accel.Instance(1, (1, 0, 0, -5, 0, 1, 0, 0, 0, 0, 1, 1), instance_id=0x123456),
    ))
RAYS = [
    ((0.25, -0.5, -2.0), (0.0, 0.0, 1.0)),     # the quad of instance 0, lower triangle
    ((-0.5, 0.5, 3.0), (0.0, 0.0, -1.0)),      # instance 0's quad from behind: upper triangle, back face
    ((5.5, 1.5, -1.0), (0.0, 0.0, 1.0)),       # instance 1 (translated, scaled x2)
    ((-4.9, 0.1, 0.0), (0.0, 0.0, 1.0)),       # instance 2: the small triangle in front of the quad
    ((-4.5, -0.5, 0.0), (0.0, 0.0, 1.0)),      # instance 2: only the quad
    ((20.0, 0.0, -1.0), (0.0, 0.0, 1.0)),      # a miss
    ((0.2, 0.3, -1.0), (0.5, 0.25, 4.0)),      # slanted, hits instance 0
]
TMIN, TMAX = 0.01, 100.0


def _compile(tmp_path) -> bytes:
    src = tmp_path / "rq.comp"
    src.write_text(GLSL)
    out = tmp_path / "rq.spv"
    tools.run_tool(["glslangValidator", "--quiet", "--target-env", "vulkan1.2", "-V", str(src), "-o", str(out)])
    return out.read_bytes()


def test_reference_tracer_basics():
    """The reference tracer on cases worked by hand."""
    hit = accel.trace(SCENE, (0.25, -0.5, -2.0), (0.0, 0.0, 1.0), TMIN, TMAX)
    assert hit is not None and hit.t == 2.0 and hit.instance_id == 7 and hit.primitive_index == 0
    assert hit.barycentrics == (0.625, 0.25) and hit.front_face is False     # counter-clockwise seen from z < 0
    assert accel.trace(SCENE, (20.0, 0.0, -1.0), (0.0, 0.0, 1.0), TMIN, TMAX) is None
    inv = accel.world_to_object((2, 0, 0, 5, 0, 2, 0, 0, 0, 0, 1, 3))
    assert accel.apply(inv, (7.0, 2.0, 4.0)) == (1.0, 1.0, 1.0)


@pytest.mark.vulkan
def test_scene_built_on_lavapipe_matches_reference(vk, tmp_path):
    spirv = _compile(tmp_path)
    rays = b"".join(struct.pack("<8f", *o, TMIN, *d, TMAX) for o, d in RAYS)
    out = vk.run_compute(spirv, "main", [accel.AccelStructure(0, 0, SCENE), vk.Buf(0, 1, rays),
                                         vk.Buf(0, 2, bytes(48 * len(RAYS)))], groups=(len(RAYS), 1, 1))
    got = struct.unpack(f"<{12 * len(RAYS)}f", out[2])
    for i, (o, d) in enumerate(RAYS):
        row = got[12 * i:12 * i + 12]
        hit = accel.trace(SCENE, o, d, TMIN, TMAX)
        if hit is None:
            assert row[0] == 0.0, (i, row)        # gl_RayQueryCommittedIntersectionNoneEXT
            continue
        assert row[0] == 1.0, (i, row)            # ...TriangleEXT
        assert row[1] == pytest.approx(hit.t, abs=1e-5), (i, row)
        assert (row[2], row[3]) == (hit.instance_id, hit.instance_index), (i, row)
        assert row[4:6] == pytest.approx(hit.barycentrics, abs=1e-5), (i, row)
        assert (row[6], row[7], row[8]) == (hit.primitive_index, float(hit.front_face), hit.geometry_index), (i, row)
