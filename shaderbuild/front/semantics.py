"""System-value semantics: the SV_* table shared by sema, the entry wrapper
pass and both backends (SPIR-V BuiltIn per DXC's mapping; DXIL system value).

Keys are upper-case semantic names.  `stages` maps (stage, direction) to the
SPIR-V BuiltIn used there; a semantic absent for a (stage, direction) pair is
either an error (compute) or a user semantic with a Location (SV_Target).
"""

from __future__ import annotations

from .. import ir
from ..records import ValueRecord


class SystemValue(ValueRecord):
    name: str                      # canonical spelling
    type: ir.Type                  # natural type of the built-in variable
    builtins: dict                 # (stage, 'in'|'out') -> SPIR-V BuiltIn name


_U3 = ir.Vector(ir.UINT, 3)
_F4 = ir.Vector(ir.FLOAT, 4)

SYSTEM_VALUES: dict[str, SystemValue] = {sv.name.upper(): sv for sv in (
    SystemValue("SV_DispatchThreadID", _U3, {("compute", "in"): "GlobalInvocationId"}),
    SystemValue("SV_GroupID", _U3, {("compute", "in"): "WorkgroupId"}),
    SystemValue("SV_GroupThreadID", _U3, {("compute", "in"): "LocalInvocationId"}),
    SystemValue("SV_GroupIndex", ir.UINT, {("compute", "in"): "LocalInvocationIndex"}),
    SystemValue("SV_Position", _F4, {("vertex", "out"): "Position", ("pixel", "in"): "FragCoord"}),
    SystemValue("SV_VertexID", ir.UINT, {("vertex", "in"): "VertexIndex"}),
    SystemValue("SV_InstanceID", ir.UINT, {("vertex", "in"): "InstanceIndex"}),
    SystemValue("SV_IsFrontFace", ir.BOOL, {("pixel", "in"): "FrontFacing"}),
    SystemValue("SV_Depth", ir.FLOAT, {("pixel", "out"): "FragDepth"}),
    SystemValue("SV_Coverage", ir.UINT, {("pixel", "in"): "SampleMask", ("pixel", "out"): "SampleMask"}),
    SystemValue("SV_SampleIndex", ir.UINT, {("pixel", "in"): "SampleId"}),
    SystemValue("SV_PrimitiveID", ir.UINT, {("pixel", "in"): "PrimitiveId"}),
    SystemValue("SV_ClipDistance", ir.FLOAT, {("vertex", "out"): "ClipDistance", ("pixel", "in"): "ClipDistance"}),
    SystemValue("SV_CullDistance", ir.FLOAT, {("vertex", "out"): "CullDistance", ("pixel", "in"): "CullDistance"}),
    SystemValue("SV_RenderTargetArrayIndex", ir.UINT, {("pixel", "in"): "Layer"}),
    SystemValue("SV_ViewportArrayIndex", ir.UINT, {("pixel", "in"): "ViewportIndex"}),
    SystemValue("SV_Target", _F4, {}),
)}


def split_semantic(text: str) -> tuple[str, int]:
    """'TEXCOORD3' -> ('TEXCOORD', 3); 'SV_Target' -> ('SV_Target', 0)."""
    i = len(text)
    while i > 0 and text[i - 1].isdigit():
        i -= 1
    if i == len(text):
        return text, 0
    return text[:i], int(text[i:])


def lookup(semantic: str) -> SystemValue | None:
    name, _ = split_semantic(semantic)
    return SYSTEM_VALUES.get(name.upper())


# SPIR-V BuiltIn numbers accepted by [[vk::ext_builtin_input/output(N)]] (seed 004), from the SPIR-V spec
SPIRV_BUILTINS: dict[int, tuple[str, str]] = {   # number -> (name, 'in' | 'out' | 'inout')
    0: ("Position", "inout"), 1: ("PointSize", "inout"), 3: ("ClipDistance", "inout"), 4: ("CullDistance", "inout"),
    7: ("PrimitiveId", "in"), 9: ("Layer", "inout"), 10: ("ViewportIndex", "inout"), 15: ("FragCoord", "in"),
    17: ("FrontFacing", "in"), 18: ("SampleId", "in"), 19: ("SamplePosition", "in"), 20: ("SampleMask", "inout"),
    22: ("FragDepth", "out"), 23: ("HelperInvocation", "in"), 24: ("NumWorkgroups", "in"),
    25: ("WorkgroupSize", "in"), 26: ("WorkgroupId", "in"), 27: ("LocalInvocationId", "in"),
    28: ("GlobalInvocationId", "in"), 29: ("LocalInvocationIndex", "in"), 36: ("SubgroupSize", "in"),
    38: ("NumSubgroups", "in"), 40: ("SubgroupId", "in"), 41: ("SubgroupLocalInvocationId", "in"),
    42: ("VertexIndex", "in"), 43: ("InstanceIndex", "in"), 4424: ("BaseVertex", "in"),
    4425: ("BaseInstance", "in"), 4426: ("DrawIndex", "in"), 4440: ("ViewIndex", "in"),
}
