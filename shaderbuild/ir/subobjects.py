"""State-object subobjects (DXR): the global variables a ray-tracing library declares with a brace
initializer (`TriangleHitGroup hg = { "", "CH" };`) to describe the D3D12 state object it belongs
in.  One row per HLSL type: its D3D12_STATE_SUBOBJECT_TYPE number (the DXIL `dx.subobjects` and RDAT
kind), its fields in initializer order, and for a hit group its D3D12_HIT_GROUP_TYPE.  Sema reads
the table to check declarations; the manifest and the DXIL backend read the `Subobject` records."""

from __future__ import annotations

from dataclasses import dataclass

from ..diagnostics import SourceLoc
from ..records import DataRecord

__all__ = ["SubobjectKind", "SUBOBJECT_KINDS", "SUBOBJECT_CONSTANTS", "Subobject", "HIT_GROUP_EXPORTS"]


@dataclass(frozen=True)
class SubobjectKind:
    name: str
    dxil_kind: int                         # D3D12_STATE_SUBOBJECT_TYPE
    fields: tuple[tuple[str, str], ...]    # (field name, 'uint' | 'string'), in initializer order
    hit_group_type: int | None = None      # D3D12_HIT_GROUP_TYPE: 0 triangles, 1 procedural primitive
    min_sm: tuple[int, int] = (6, 3)


_ROWS = (
    SubobjectKind("StateObjectConfig", 0, (("Flags", "uint"),)),
    SubobjectKind("GlobalRootSignature", 1, (("Data", "string"),)),
    SubobjectKind("LocalRootSignature", 2, (("Data", "string"),)),
    SubobjectKind("SubobjectToExportsAssociation", 8, (("Subobject", "string"), ("Exports", "string"))),
    SubobjectKind("RaytracingShaderConfig", 9, (("MaxPayloadSizeInBytes", "uint"), ("MaxAttributeSizeInBytes", "uint"))),
    SubobjectKind("RaytracingPipelineConfig", 10, (("MaxTraceRecursionDepth", "uint"),)),
    SubobjectKind("TriangleHitGroup", 11, (("AnyHit", "string"), ("ClosestHit", "string")), hit_group_type=0),
    SubobjectKind("ProceduralPrimitiveHitGroup", 11,
                  (("AnyHit", "string"), ("ClosestHit", "string"), ("Intersection", "string")), hit_group_type=1),
    SubobjectKind("RaytracingPipelineConfig1", 12, (("MaxTraceRecursionDepth", "uint"), ("Flags", "uint")),
                  min_sm=(6, 5)),
)
SUBOBJECT_KINDS: dict[str, SubobjectKind] = {k.name: k for k in _ROWS}

# the flag constants HLSL predefines for the uint fields (D3D12_STATE_OBJECT_FLAGS,
# D3D12_RAYTRACING_PIPELINE_FLAGS); the misspelt _FLAGS_..._DEFINITONS names are DXC's originals
SUBOBJECT_CONSTANTS: dict[str, int] = {
    "STATE_OBJECT_FLAGS_ALLOW_LOCAL_DEPENDENCIES_ON_EXTERNAL_DEFINITONS": 0x1,
    "STATE_OBJECT_FLAGS_ALLOW_EXTERNAL_DEPENDENCIES_ON_LOCAL_DEFINITIONS": 0x2,
    "STATE_OBJECT_FLAG_ALLOW_LOCAL_DEPENDENCIES_ON_EXTERNAL_DEFINITONS": 0x1,
    "STATE_OBJECT_FLAG_ALLOW_EXTERNAL_DEPENDENCIES_ON_LOCAL_DEFINITIONS": 0x2,
    "STATE_OBJECT_FLAG_ALLOW_STATE_OBJECT_ADDITIONS": 0x4,
    "RAYTRACING_PIPELINE_FLAG_NONE": 0x0,
    "RAYTRACING_PIPELINE_FLAG_SKIP_TRIANGLES": 0x100,
    "RAYTRACING_PIPELINE_FLAG_SKIP_PROCEDURAL_PRIMITIVES": 0x200,
}
STATE_OBJECT_FLAGS_MASK = 0x7
PIPELINE_FLAGS_MASK = 0x300

# hit group field -> the shader kind ([shader("...")]) the export it names must have
HIT_GROUP_EXPORTS: dict[str, str] = {"AnyHit": "anyhit", "ClosestHit": "closesthit", "Intersection": "intersection"}


class Subobject(DataRecord):
    """One declared subobject: `values` holds one str or int per field of its kind, in order; a
    root signature's `root_signature` is the parsed model (shaderbuild.rootsig.RootSignature)."""

    name: str
    kind: str                     # a key of SUBOBJECT_KINDS
    values: tuple
    loc: SourceLoc
    value_locs: tuple = ()        # where each value is written (a string's first character)
    root_signature: object = None

    @property
    def row(self) -> SubobjectKind:
        return SUBOBJECT_KINDS[self.kind]

    def field(self, name: str):
        """The value of field `name` (a field of this kind)."""
        return self.values[[f for f, _ in self.row.fields].index(name)]

    @property
    def exports(self) -> list[str]:
        """A SubobjectToExportsAssociation's export list: the ';'-separated names, empty pieces dropped
        (as DXC splits them)."""
        return [e for e in str(self.field("Exports")).split(";") if e]
