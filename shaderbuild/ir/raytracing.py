"""The DXR facts sema, the passes, both backends and the manifest share: the ray-tracing
shader kinds and what each entry takes (D3D12 Raytracing spec, "Shader types"), the
built-in `RayDesc` and `BuiltInTriangleIntersectionAttributes` structs and the `RAY_FLAG_*`
and `HIT_KIND_*` constants.  Which intrinsic is allowed in which kind is in the intrinsic
table (ir/intrinsics.py)."""

from __future__ import annotations

from ..records import ValueRecord
from .layout import layout_of
from .types import FLOAT, Struct, StructField, Type, Vector

__all__ = ["RT_STAGES", "RayStage", "STAGE_RULES", "RAY_DESC", "TRIANGLE_ATTRIBUTES", "RAY_FLAGS", "HIT_KINDS",
           "MAX_ATTRIBUTE_BYTES", "is_ray_stage", "payload_size"]


class RayStage(ValueRecord):
    """What an entry of one kind takes: its parameters in order, each ('payload' | 'attributes' |
    'callable', direction)."""

    name: str                               # the [shader("...")] spelling, also the IR stage name
    params: tuple[tuple[str, str], ...]
    title: str                              # for messages: 'closest-hit shader'


STAGE_RULES: dict[str, RayStage] = {s.name: s for s in (
    RayStage("raygeneration", (), "ray-generation shader"),
    RayStage("intersection", (), "intersection shader"),
    RayStage("anyhit", (("payload", "inout"), ("attributes", "in")), "any-hit shader"),
    RayStage("closesthit", (("payload", "inout"), ("attributes", "in")), "closest-hit shader"),
    RayStage("miss", (("payload", "inout"),), "miss shader"),
    RayStage("callable", (("callable", "inout"),), "callable shader"),
)}
RT_STAGES = tuple(STAGE_RULES)

# D3D12_RAYTRACING_MAX_ATTRIBUTE_SIZE_IN_BYTES
MAX_ATTRIBUTE_BYTES = 32

_F3 = Vector(FLOAT, 3)
RAY_DESC = Struct("RayDesc", (StructField("Origin", _F3), StructField("TMin", FLOAT),
                              StructField("Direction", _F3), StructField("TMax", FLOAT)))
TRIANGLE_ATTRIBUTES = Struct("BuiltInTriangleIntersectionAttributes",
                             (StructField("barycentrics", Vector(FLOAT, 2)),))

# D3D12_RAY_FLAGS (the values Vulkan's ray flags share)
RAY_FLAGS: dict[str, int] = {
    "RAY_FLAG_NONE": 0x00,
    "RAY_FLAG_FORCE_OPAQUE": 0x01,
    "RAY_FLAG_FORCE_NON_OPAQUE": 0x02,
    "RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH": 0x04,
    "RAY_FLAG_SKIP_CLOSEST_HIT_SHADER": 0x08,
    "RAY_FLAG_CULL_BACK_FACING_TRIANGLES": 0x10,
    "RAY_FLAG_CULL_FRONT_FACING_TRIANGLES": 0x20,
    "RAY_FLAG_CULL_OPAQUE": 0x40,
    "RAY_FLAG_CULL_NON_OPAQUE": 0x80,
    "RAY_FLAG_SKIP_TRIANGLES": 0x100,
    "RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES": 0x200,
}
HIT_KINDS: dict[str, int] = {"HIT_KIND_TRIANGLE_FRONT_FACE": 0xFE, "HIT_KIND_TRIANGLE_BACK_FACE": 0xFF}


def is_ray_stage(stage: str) -> bool:
    return stage in STAGE_RULES


def payload_size(t: Type) -> int:
    """A payload's, attribute struct's or callable data's size in bytes as D3D counts it (packed
    scalars, 4-byte aligned: the D3D12 limits compare with this)."""
    return layout_of(t, "dx_structured").size
