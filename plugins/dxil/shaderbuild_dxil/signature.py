"""Stage I/O signatures: IR INPUT/OUTPUT globals -> DXIL signature elements.

Compute built-ins become dx.op reads (no signature); graphics I/O gets one
signature element per variable, one packed row each (start column 0), which
the ISG1/OSG1/PSV0 parts and the `dx.entryPoints` signature metadata share.
"""

from __future__ import annotations

from dataclasses import dataclass

from shaderbuild import ir
from shaderbuild.diagnostics import error

from .container import SignatureElement
from .llvm import types as T
from .llvm.metadata import MDNode, MDString, MDValue
from .llvm.values import ConstInt

__all__ = ["COMPUTE_BUILTINS", "SigElement", "build_signature", "signature_metadata", "record_usage"]

# semantic -> DXIL operation reading it in compute shaders
COMPUTE_BUILTINS = {"SV_DispatchThreadID": "ThreadId", "SV_GroupID": "GroupId",
                    "SV_GroupThreadID": "ThreadIdInGroup", "SV_GroupIndex": "FlattenedThreadIdInGroup"}

# semantic -> (DXIL::SemanticKind, DxilProgramSigSemantic system value, allocated to a register)
_SYSTEM_VALUES = {
    "SV_VertexID": (1, 6, True), "SV_InstanceID": (2, 8, True), "SV_Position": (3, 1, True),
    "SV_RenderTargetArrayIndex": (4, 4, True), "SV_ViewportArrayIndex": (5, 5, True),
    "SV_ClipDistance": (6, 2, True), "SV_CullDistance": (7, 3, True), "SV_PrimitiveID": (10, 7, True),
    "SV_SampleIndex": (12, 10, True), "SV_IsFrontFace": (13, 9, True), "SV_Coverage": (14, 66, False),
    "SV_Target": (16, 64, True), "SV_Depth": (17, 65, False), "SV_StencilRef": (20, 69, False),
}
# component type: (DXIL::ComponentType for metadata, DxilProgramSigCompType for the part)
_COMP_TYPES = {("bool", 32): (1, 1), ("int", 32): (4, 2), ("uint", 32): (5, 1), ("float", 32): (9, 3),
               ("int", 16): (2, 5), ("uint", 16): (3, 4), ("float", 16): (8, 6), ("int", 64): (6, 8),
               ("uint", 64): (7, 7), ("float", 64): (10, 9)}
USAGE_MASK_TAG = 3          # kDxilSignatureElementUsageCompMaskTag
_INTERP = {None: 2, "linear": 2, "nointerpolation": 1, "centroid": 3, "noperspective": 4, "sample": 6}


@dataclass(slots=True)
class SigElement:
    var: ir.Variable
    id: int
    name: str
    index: int
    kind: int
    system_value: int
    comp_type: int          # metadata ComponentType
    sig_comp_type: int      # container CompType
    rows: int
    cols: int
    start_row: int          # -1 when not allocated
    interp: int
    usage: int = 0          # components the shader reads (inputs) / writes (outputs)

    def container_element(self, is_output: bool) -> SignatureElement:
        mask = (1 << self.cols) - 1
        return SignatureElement(
            name=self.name, index=self.index, system_value=self.system_value, semantic_kind=self.kind,
            comp_type=self.sig_comp_type, register=self.start_row if self.start_row >= 0 else 0xFFFFFFFF,
            mask=mask, rw_mask=(~self.usage & 0xF if is_output else self.usage), cols=self.cols, rows=self.rows,
            interpolation=self.interp)


def build_signature(vars_: list[ir.Variable], stage: str, is_output: bool) -> list[SigElement]:
    out: list[SigElement] = []
    row = 0
    for v in vars_:
        io = v.io
        if stage == "compute":
            if io.semantic not in COMPUTE_BUILTINS:
                raise error(f"semantic '{io.semantic}' is not supported for compute shaders", v.loc)
            continue
        t = v.type
        s = ir.scalar_of(t)
        if s is None or isinstance(t, ir.Matrix):
            raise error(f"signature element '{io.semantic}' of type '{t}' is not supported by the DXIL backend yet",
                        v.loc)
        cols = t.size if isinstance(t, ir.Vector) else 1
        is_system = io.semantic.upper().startswith("SV_")
        if is_system and io.semantic not in _SYSTEM_VALUES:
            raise error(f"semantic '{io.semantic}' is not supported by the DXIL backend yet", v.loc)
        kind, sysval, allocated = _SYSTEM_VALUES.get(io.semantic, (0, 0, True))
        ct, sct = _COMP_TYPES[(s.kind, 32 if s.kind == "bool" else s.width)]
        start = -1
        if allocated:
            start = io.index if io.semantic == "SV_Target" else row
            row = max(row, start + 1)
        out.append(SigElement(v, len(out), io.semantic, io.index, kind, sysval, ct, sct, 1, cols, start,
                              _interpolation(stage, is_output, kind, s, io.interpolation)))
    return out


def _interpolation(stage: str, is_output: bool, kind: int, s: ir.Scalar, declared: str | None) -> int:
    """DXIL::InterpolationMode: undefined for VS inputs and PS outputs, constant for integers,
    noperspective for SV_Position read by a pixel shader, else the declared mode (linear default)."""
    if (stage == "vertex" and not is_output) or (stage == "pixel" and is_output):
        return 0
    if s.kind != "float":
        return 1
    if stage == "pixel" and kind == 3:
        return 4
    return _INTERP.get(declared, 2)


def _i32(v: int) -> MDValue:
    return MDValue(ConstInt(T.i32, v))


def _i8(v: int) -> MDValue:
    return MDValue(ConstInt(T.i8, v))


def signature_metadata(elems: list[SigElement]) -> MDNode | None:
    """`!{i32 id, !"name", i8 compType, i8 kind, !{indices}, i8 interp, i32 rows, i8 cols, i32 startRow, i8 startCol, null}`"""
    if not elems:
        return None
    nodes = []
    for e in elems:
        nodes.append(MDNode([_i32(e.id), MDString(e.name), _i8(e.comp_type), _i8(e.kind),
                             MDNode([_i32(e.index)]), _i8(e.interp), _i32(e.rows), _i8(e.cols),
                             _i32(e.start_row), _i8(0 if e.start_row >= 0 else -1),
                             MDNode([_i32(USAGE_MASK_TAG), _i32(e.usage)]) if e.usage else None]))
    return MDNode(nodes)


def record_usage(fn, inputs: list[SigElement], outputs: list[SigElement], read_op: str, write_op: str) -> None:
    """Set each element's usage mask from the loadInput/storeOutput calls left after optimisation."""
    by_id = {"in": {e.id: e for e in inputs}, "out": {e.id: e for e in outputs}}
    for bb in fn.blocks:
        for inst in bb.instructions:
            if inst.op != "call" or len(inst.operands) < 5:
                continue
            name = inst.operands[0].name
            side = "in" if name.startswith(read_op) else "out" if name.startswith(write_op) else None
            if side is None:
                continue
            sig_id, col = inst.operands[2], inst.operands[4]
            el = by_id[side].get(getattr(sig_id, "value", -1))
            if el is not None and hasattr(col, "value"):
                el.usage |= 1 << col.value
