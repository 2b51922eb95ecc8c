"""System-value semantics: the SV_* table shared by sema, the entry wrapper
pass and both backends, at the level of HLSL: each system value's natural type
and the (stage, direction) pairs where HLSL allows it.  How a target spells one
(a SPIR-V BuiltIn, a DXIL signature element) is the backend's table
(plugins/spirv/shaderbuild_spirv/vulkan.py, plugins/dxil/shaderbuild_dxil/signature.py).

Keys are upper-case semantic names.  SV_Target (pixel output n) gets a plain
output slot, not a system value, in every target.
"""

from __future__ import annotations

from .. import ir
from ..records import ValueRecord


class SystemValue(ValueRecord):
    name: str                      # canonical spelling
    type: ir.Type                  # natural type of the system value
    uses: frozenset                # (stage, 'in'|'out') pairs where HLSL allows it
    min_sm: tuple[int, int] = (6, 0)   # first shader model that has it
    shape: str = "natural"         # 'natural': converted to/from the declared type; 'declared': the
                                   # declared type is kept (float1-4 clip and cull distances)
    plain: frozenset = frozenset()  # (stage, direction) pairs where D3D takes it as an ordinary value
                                    # (a vertex buffer attribute, an interpolated value): a Location


def _uses(*pairs: str) -> frozenset:
    """'vertex:out' ... -> {('vertex', 'out'), ...}"""
    return frozenset(tuple(p.split(":")) for p in pairs)


_U3 = ir.Vector(ir.UINT, 3)
_F3 = ir.Vector(ir.FLOAT, 3)
_F4 = ir.Vector(ir.FLOAT, 4)
_CS_IN = _uses("compute:in", "mesh:in", "amplification:in")   # the thread-group stages' thread ids
# a mesh shader's outputs: per vertex ('mesh:out', the `out vertices` array) or per primitive ('mesh:prim')
_MS_VERTEX = _uses("mesh:out")
_MS_PRIM = _uses("mesh:prim")
_PS_IN = _uses("pixel:in")
_PS_OUT = _uses("pixel:out")
_VS_IN = _uses("vertex:in")
_VS_OUT_PS_IN = _uses("vertex:out", "pixel:in")
_TESS_IO = _uses("hull:in", "hull:out", "domain:in", "domain:out")
# SV_TessFactor / SV_InsideTessFactor: the declared type per [domain] (no entry: not allowed)
TESS_FACTOR_TYPES: dict[str, dict[str, ir.Type]] = {
    "SV_TessFactor": {"tri": ir.Array(ir.FLOAT, 3), "quad": ir.Array(ir.FLOAT, 4), "isoline": ir.Array(ir.FLOAT, 2)},
    "SV_InsideTessFactor": {"tri": ir.FLOAT, "quad": ir.Array(ir.FLOAT, 2)},
}
_GS_IO = _uses("geometry:in", "geometry:out")
_GS_IN = _uses("geometry:in")
_GS_OUT = _uses("geometry:out")

# One row per system value, with every (stage, direction) pair of every stage.
SYSTEM_VALUES: dict[str, SystemValue] = {sv.name.upper(): sv for sv in (
    SystemValue("SV_DispatchThreadID", _U3, _CS_IN),
    SystemValue("SV_GroupID", _U3, _CS_IN),
    SystemValue("SV_GroupThreadID", _U3, _CS_IN),
    SystemValue("SV_GroupIndex", ir.UINT, _CS_IN),
    SystemValue("SV_Position", _F4, _VS_OUT_PS_IN | _GS_IO | _TESS_IO | _MS_VERTEX, plain=_VS_IN),
    SystemValue("SV_VertexID", ir.UINT, _VS_IN),
    SystemValue("SV_InstanceID", ir.UINT, _VS_IN, plain=_uses("vertex:out", "pixel:in") | _TESS_IO | _GS_IO),
    SystemValue("SV_IsFrontFace", ir.BOOL, _PS_IN | _GS_OUT),
    SystemValue("SV_Depth", ir.FLOAT, _PS_OUT),
    SystemValue("SV_DepthGreaterEqual", ir.FLOAT, _PS_OUT),
    SystemValue("SV_DepthLessEqual", ir.FLOAT, _PS_OUT),
    SystemValue("SV_StencilRef", ir.UINT, _PS_OUT),
    SystemValue("SV_Coverage", ir.UINT, _uses("pixel:in", "pixel:out")),
    SystemValue("SV_InnerCoverage", ir.UINT, _PS_IN),
    SystemValue("SV_SampleIndex", ir.UINT, _PS_IN),
    SystemValue("SV_PrimitiveID", ir.UINT, _PS_IN | _GS_IO | _uses("hull:in", "domain:in") | _MS_PRIM),
    SystemValue("SV_GSInstanceID", ir.UINT, _GS_IN),
    SystemValue("SV_OutputControlPointID", ir.UINT, _uses("hull:in")),
    SystemValue("SV_DomainLocation", ir.Vector(ir.FLOAT, 3), _uses("domain:in")),
    # the natural type depends on [domain]: TESS_FACTOR_TYPES
    SystemValue("SV_TessFactor", ir.Array(ir.FLOAT, 4), _uses("hull:out", "domain:in")),
    SystemValue("SV_InsideTessFactor", ir.Array(ir.FLOAT, 2), _uses("hull:out", "domain:in")),
    SystemValue("SV_ClipDistance", ir.FLOAT, _VS_OUT_PS_IN | _GS_IO | _TESS_IO | _MS_VERTEX, shape="declared",
                plain=_VS_IN),
    SystemValue("SV_CullDistance", ir.FLOAT, _VS_OUT_PS_IN | _GS_IO | _TESS_IO | _MS_VERTEX, shape="declared",
                plain=_VS_IN),
    SystemValue("SV_RenderTargetArrayIndex", ir.UINT, _VS_OUT_PS_IN | _GS_IO | _TESS_IO | _MS_PRIM, plain=_VS_IN),
    SystemValue("SV_ViewportArrayIndex", ir.UINT, _VS_OUT_PS_IN | _GS_IO | _TESS_IO | _MS_PRIM, plain=_VS_IN),
    SystemValue("SV_ViewID", ir.UINT, _uses("vertex:in", "pixel:in", "hull:in", "domain:in", "geometry:in", "mesh:in"),
                (6, 1)),
    SystemValue("SV_Barycentrics", _F3, _PS_IN, (6, 1)),
    SystemValue("SV_ShadingRate", ir.UINT, _VS_OUT_PS_IN | _GS_OUT | _MS_PRIM, (6, 4)),
    # a pixel shader's input of it is the constant false (DXC's PSIn: NotInSig; the entry wrapper makes it)
    SystemValue("SV_CullPrimitive", ir.BOOL, _MS_PRIM | _PS_IN, (6, 5)),
    # the draw's BaseVertexLocation (signed) and StartInstanceLocation (SM 6.8)
    SystemValue("SV_StartVertexLocation", ir.INT, _VS_IN, (6, 8)),
    SystemValue("SV_StartInstanceLocation", ir.UINT, _VS_IN, (6, 8)),
    SystemValue("SV_Target", _F4, _PS_OUT),
)}

# DXC's signature points of the tessellation and geometry stages (DxilSigPoint.inl): a hull shader's non-patch
# inputs (HSIn) and its patch-constant function's (PCIn), the patch constants it writes (PCOut), a domain
# shader's non-patch inputs (DSIn), a geometry shader's inputs that are not per vertex (GSIn), and the control
# points and input vertices ("vertices": HSCPIn, HSCPOut, DSCPIn and GSVIn agree).  Each maps the semantics
# allowed there ("" is every non-SV semantic) to "sv" (kept as the system value) or "plain" (DXC's Arb: an
# ordinary value, a SPIR-V Location); any other semantic is refused there (DXC's NA).
_PATCH_CONSTANTS = {"": "plain", "SV_Position": "plain", "SV_ClipDistance": "plain", "SV_CullDistance": "plain",
                    "SV_RenderTargetArrayIndex": "sv", "SV_ViewportArrayIndex": "sv", "SV_TessFactor": "sv",
                    "SV_InsideTessFactor": "sv"}
SPECIAL_POINTS: dict[str, dict[str, str]] = {
    "HSIn": {"SV_PrimitiveID": "sv", "SV_OutputControlPointID": "sv", "SV_ViewID": "sv"},
    "PCIn": {"SV_PrimitiveID": "sv", "SV_ViewID": "sv"},
    "PCOut": _PATCH_CONSTANTS,
    "DSIn": {**_PATCH_CONSTANTS, "SV_DomainLocation": "sv", "SV_PrimitiveID": "sv", "SV_ViewID": "sv"},
    "GSIn": {"SV_PrimitiveID": "sv", "SV_GSInstanceID": "sv", "SV_ViewID": "sv"},
    "vertices": {"": "plain", "SV_InstanceID": "sv", "SV_Position": "sv", "SV_ClipDistance": "sv",
                 "SV_CullDistance": "sv", "SV_RenderTargetArrayIndex": "sv", "SV_ViewportArrayIndex": "sv"},
}


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
