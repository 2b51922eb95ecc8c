"""The manifest's `subobjects`: the DXR state-object subobjects a library declares, in declaration
order, in the terms an engine fills D3D12_STATE_SUBOBJECT structs with (and, on Vulkan, where the
ray-tracing pipeline's sizes, recursion depth, hit groups and layouts come from: SPIR-V has no
encoding for them)."""

from __future__ import annotations

from .. import ir

_STATE_OBJECT_FLAGS = {"ALLOW_LOCAL_DEPENDENCIES_ON_EXTERNAL_DEFINITIONS": 0x1,
                       "ALLOW_EXTERNAL_DEPENDENCIES_ON_LOCAL_DEFINITIONS": 0x2,
                       "ALLOW_STATE_OBJECT_ADDITIONS": 0x4}
_PIPELINE_FLAGS = {"SKIP_TRIANGLES": 0x100, "SKIP_PROCEDURAL_PRIMITIVES": 0x200}


def _names(table: dict[str, int], mask: int) -> list[str]:
    return [n for n, bit in table.items() if mask & bit]


def subobject_entry(o: ir.Subobject) -> dict:
    d: dict[str, object] = {"name": o.name, "kind": o.kind, "d3d12_type": o.row.dxil_kind}
    if o.kind == "StateObjectConfig":
        d["flags"] = _names(_STATE_OBJECT_FLAGS, o.field("Flags"))
    elif o.kind in ("GlobalRootSignature", "LocalRootSignature"):
        from ..rootsig.manifest import manifest_view

        d["root_signature"] = manifest_view(o.root_signature)   # type: ignore[arg-type]
    elif o.kind == "SubobjectToExportsAssociation":
        d["subobject"] = o.field("Subobject")
        d["exports"] = o.exports
    elif o.kind == "RaytracingShaderConfig":
        d["max_payload_size"] = o.field("MaxPayloadSizeInBytes")
        d["max_attribute_size"] = o.field("MaxAttributeSizeInBytes")
    elif o.kind in ("RaytracingPipelineConfig", "RaytracingPipelineConfig1"):
        d["max_trace_recursion_depth"] = o.field("MaxTraceRecursionDepth")
        d["flags"] = _names(_PIPELINE_FLAGS, o.field("Flags")) if o.kind == "RaytracingPipelineConfig1" else []
    else:    # hit groups; an empty name is a shader the group does not have
        d["hit_group_type"] = "triangles" if o.row.hit_group_type == 0 else "procedural_primitive"
        for field, key in (("AnyHit", "any_hit"), ("ClosestHit", "closest_hit"), ("Intersection", "intersection")):
            if field in dict(o.row.fields):
                d[key] = o.field(field) or None
            else:
                d[key] = None
    return d


def subobjects_view(module: ir.Module) -> list[dict]:
    return [subobject_entry(o) for o in module.subobjects]
