"""Ray-tracing facts shared by sema and both backends: the predefined HLSL enumerations
(RAY_FLAG_*, RAYQUERY_FLAG_*, COMMITTED_*, CANDIDATE_*, HIT_KIND_*, with the values of the DXR
spec, which SPIR-V's ray flags and intersection types share) and the built-in `RayDesc` struct.
The RayQuery methods are rows of the intrinsic table (ir/intrinsics.py, RAYQUERY_METHODS)."""

from __future__ import annotations

from .types import FLOAT, Struct, StructField, Vector

RAY_FLAGS: dict[str, int] = {
    "RAY_FLAG_NONE": 0x0, "RAY_FLAG_FORCE_OPAQUE": 0x1, "RAY_FLAG_FORCE_NON_OPAQUE": 0x2,
    "RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH": 0x4, "RAY_FLAG_SKIP_CLOSEST_HIT_SHADER": 0x8,
    "RAY_FLAG_CULL_BACK_FACING_TRIANGLES": 0x10, "RAY_FLAG_CULL_FRONT_FACING_TRIANGLES": 0x20,
    "RAY_FLAG_CULL_OPAQUE": 0x40, "RAY_FLAG_CULL_NON_OPAQUE": 0x80, "RAY_FLAG_SKIP_TRIANGLES": 0x100,
    "RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES": 0x200,
}
# the flags that skip a whole primitive type (SPIR-V: the RayTraversalPrimitiveCullingKHR capability)
PRIMITIVE_CULLING_FLAGS = RAY_FLAGS["RAY_FLAG_SKIP_TRIANGLES"] | RAY_FLAGS["RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES"]
RAYQUERY_FLAGS: dict[str, int] = {"RAYQUERY_FLAG_NONE": 0x0}
COMMITTED_STATUS: dict[str, int] = {
    "COMMITTED_NOTHING": 0, "COMMITTED_TRIANGLE_HIT": 1, "COMMITTED_PROCEDURAL_PRIMITIVE_HIT": 2,
}
CANDIDATE_TYPE: dict[str, int] = {"CANDIDATE_NON_OPAQUE_TRIANGLE": 0, "CANDIDATE_PROCEDURAL_PRIMITIVE": 1}
HIT_KINDS: dict[str, int] = {"HIT_KIND_TRIANGLE_FRONT_FACE": 0xFE, "HIT_KIND_TRIANGLE_BACK_FACE": 0xFF}

# every predefined constant (all uint), as sema declares them below the user's global scope
CONSTANTS: dict[str, int] = {**RAY_FLAGS, **RAYQUERY_FLAGS, **COMMITTED_STATUS, **CANDIDATE_TYPE, **HIT_KINDS}

_FLOAT3 = Vector(FLOAT, 3)
RAY_DESC = Struct("RayDesc", (StructField("Origin", _FLOAT3), StructField("TMin", FLOAT),
                              StructField("Direction", _FLOAT3), StructField("TMax", FLOAT)))

# the shader model inline ray tracing needs
RAYQUERY_MIN_SM = (6, 5)
