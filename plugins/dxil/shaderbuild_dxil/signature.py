"""Stage I/O signatures: IR INPUT/OUTPUT globals -> DXIL signature elements.

Compute built-ins become dx.op reads (no signature).  Graphics I/O gets one
signature element per variable (an array of scalars/vectors is one element of
several rows), placed in the 4-component register rows by sigpack.py the way
DXC packs them; the ISG1/OSG1/PSV0 parts and the `dx.entryPoints` signature
metadata all take their rows and columns from here.  loadInput/storeOutput
address an element by its id with row and column *relative* to the element's
start (DXIL.rst "Accessing signature value in operations"), so packing never
changes their operands.
"""

from __future__ import annotations

from shaderbuild import ir
from shaderbuild.diagnostics import error
from shaderbuild.records import DataRecord

from . import sigpack
from .container import SignatureElement
from .llvm import types as T
from .llvm.metadata import MDNode, MDString, Metadata, md_ints

__all__ = ["COMPUTE_BUILTINS", "INTRINSIC_INPUTS", "TESS_INTRINSIC_INPUTS", "GS_INTRINSIC_INPUTS", "SigElement",
           "build_signature", "struct_array_leaves", "signature_metadata",
           "record_usage", "record_call_usage", "element_layout"]

# semantic -> DXIL operation reading it in compute shaders
COMPUTE_BUILTINS = {"SV_DispatchThreadID": "ThreadId", "SV_GroupID": "GroupId",
                    "SV_GroupThreadID": "ThreadIdInGroup", "SV_GroupIndex": "FlattenedThreadIdInGroup"}
# stages whose inputs are all thread ids read by operations (no input signature)
THREAD_GROUP_STAGES = frozenset({"compute", "mesh", "amplification"})
# pixel inputs read by an operation instead of loadInput (interpretation Shadow / NotInSig)
INTRINSIC_INPUTS = {"SV_SampleIndex": "SampleIndex", "SV_Coverage": "Coverage", "SV_InnerCoverage": "InnerCoverage",
                    "SV_ViewID": "ViewID", "SV_StartVertexLocation": "StartVertexLocation",
                    "SV_StartInstanceLocation": "StartInstanceLocation"}
# hull/domain inputs read by an operation (interpretation NotInSig)
TESS_INTRINSIC_INPUTS = {("hull", "SV_OutputControlPointID"): "OutputControlPointID",
                         ("hull", "SV_PrimitiveID"): "PrimitiveID", ("domain", "SV_PrimitiveID"): "PrimitiveID",
                         ("domain", "SV_DomainLocation"): "DomainLocation"}
# geometry-shader inputs that are not per vertex (SigPoint GSIn), read by an operation; SV_PrimitiveID is a
# Shadow there: DXC lists it in the input signature without a register (GS_SHADOW_INPUT), the others are NotInSig
GS_INTRINSIC_INPUTS = {"SV_PrimitiveID": "PrimitiveID", "SV_GSInstanceID": "GSInstanceID", "SV_ViewID": "ViewID"}
GS_SHADOW_INPUT = "SV_PrimitiveID"

# semantic -> (DXIL::SemanticKind, DxilProgramSigSemantic system value, its interpretation at each
# sigpack.SIG_POINTS entry; None = not allowed there).  "" is every
# non-SV semantic.  Interpretations transcribed from DXIL.rst's "Semantic Interpretations" table (DxilSigPoint.inl);
# the HSCPIn column also holds the hull shader's non-arrayed inputs (DXC's HSIn / PCIn: read by operations), the
# DSCPIn one the domain shader's inputs read by operations (the entry wrapper refuses those semantics per control
# point and sorts the others into the patch constants: semantics.SPECIAL_POINTS); tests/dxil/test_dxil_signature12.py
# compares the table with DXC's.
_A, _SV, _SGV, _CC, _NP, _SH, _NIS, _T = (sigpack.ARB, sigpack.SV, sigpack.SGV, sigpack.CLIPCULL, sigpack.NOT_PACKED,
                                          sigpack.SHADOW, sigpack.NOT_IN_SIG, sigpack.TARGET)
_TF = sigpack.TESS_FACTOR
# columns: VSIn, VSOut, PSIn, PSOut, HSCPIn, HSCPOut, PCOut, DSCPIn, DSIn, DSOut, GSVIn, GSOut, MSOut, MSPOut
_SEMANTICS: dict[str, tuple[int, int, tuple[str | None, ...]]] = {
    "": (0, 0, (_A, _A, _A, None, _A, _A, _A, _A, _A, _A, _A, _A, _A, _A)),
    "SV_VertexID": (1, 6, (_SV, None, None, None, None, None, None, None, None, None, None, None, None, None)),
    "SV_InstanceID": (2, 8, (_SV, _A, _A, None, _A, _A, None, _A, None, _A, _A, _A, None, None)),
    "SV_Position": (3, 1, (_A, _SV, _SV, None, _SV, _SV, _A, _SV, _A, _SV, _SV, _SV, _SV, None)),
    "SV_RenderTargetArrayIndex": (4, 4, (_A, _SV, _SV, None, _SV, _SV, _A, _SV, _A, _SV, _SV, _SV, None, _SV)),
    "SV_ViewportArrayIndex": (5, 5, (_A, _SV, _SV, None, _SV, _SV, _A, _SV, _A, _SV, _SV, _SV, None, _SV)),
    "SV_ClipDistance": (6, 2, (_A, _CC, _CC, None, _CC, _CC, _A, _CC, _A, _CC, _CC, _CC, _CC, None)),
    "SV_CullDistance": (7, 3, (_A, _CC, _CC, None, _CC, _CC, _A, _CC, _A, _CC, _CC, _CC, _CC, None)),
    "SV_OutputControlPointID": (8, 0, (None, None, None, None, _NIS, None, None, None, None, None, None, None, None, None)),
    "SV_DomainLocation": (9, 0, (None, None, None, None, None, None, None, _NIS, _NIS, None, None, None, None, None)),
    "SV_PrimitiveID": (10, 7, (None, None, _SGV, None, _NIS, None, None, _NIS, _NIS, None, None, _SGV, None, _SV)),
    "SV_SampleIndex": (12, 10, (None, None, _SH, None, None, None, None, None, None, None, None, None, None, None)),
    "SV_IsFrontFace": (13, 9, (None, None, _SGV, None, None, None, None, None, None, None, None, _SGV, None, None)),
    "SV_Coverage": (14, 66, (None, None, _NIS, _NP, None, None, None, None, None, None, None, None, None, None)),
    "SV_Target": (16, 64, (None, None, None, _T, None, None, None, None, None, None, None, None, None, None)),
    "SV_Depth": (17, 65, (None, None, None, _NP, None, None, None, None, None, None, None, None, None, None)),
    "SV_DepthLessEqual": (18, 68, (None, None, None, _NP, None, None, None, None, None, None, None, None, None, None)),
    "SV_DepthGreaterEqual": (19, 67, (None, None, None, _NP, None, None, None, None, None, None, None, None, None, None)),
    "SV_StencilRef": (20, 69, (None, None, None, _NP, None, None, None, None, None, None, None, None, None, None)),
    "SV_InnerCoverage": (15, 70, (None, None, _NIS, None, None, None, None, None, None, None, None, None, None, None)),
    "SV_ViewID": (27, 0, (_NIS, None, _NIS, None, _NIS, None, None, _NIS, _NIS, None, None, None, None, None)),
    "SV_Barycentrics": (28, 23, (None, None, _NP, None, None, None, None, None, None, None, None, None, None, None)),
    "SV_ShadingRate": (29, 24, (None, _SV, _SV, None, None, None, None, None, None, None, None, _SV, None, _SV)),
    # the DxilProgramSigSemantic of a tess factor depends on [domain]: TESS_FACTOR_SYSTEM_VALUES
    "SV_TessFactor": (25, 0, (None, None, None, None, None, None, _TF, None, _TF, None, None, None, None, None)),
    "SV_InsideTessFactor": (26, 0, (None, None, None, None, None, None, _TF, None, _TF, None, None, None, None, None)),
    "SV_CullPrimitive": (30, 25, (None, None, _NIS, None, None, None, None, None, None, None, None, None, None, _NP)),
    "SV_StartVertexLocation": (31, 0, (_NIS, None, None, None, None, None, None, None, None, None, None, None, None, None)),
    "SV_StartInstanceLocation": (32, 0, (_NIS, None, None, None, None, None, None, None, None, None, None, None, None,
                                         None)),
}
# (SemanticKind, domain) -> DxilProgramSigSemantic (D3D_NAME_FINAL_*_TESSFACTOR); an isoline's
# SV_TessFactor row 0 is the line density, row 1 the line detail (container._signature_part)
TESS_FACTOR_SYSTEM_VALUES = {(25, "quad"): 11, (26, "quad"): 12, (25, "tri"): 13, (26, "tri"): 14,
                             (25, "isoline"): 16}
LINE_DETAIL_TESS_FACTOR = 15
# component type: (DXIL::ComponentType for metadata, DxilProgramSigCompType for the part)
_COMP_TYPES = {("bool", 32): (1, 1), ("int", 32): (4, 2), ("uint", 32): (5, 1), ("float", 32): (9, 3),
               ("int", 16): (2, 5), ("uint", 16): (3, 4), ("float", 16): (8, 6), ("int", 64): (6, 8),
               ("uint", 64): (7, 7), ("float", 64): (10, 9)}
USAGE_MASK_TAG = 3          # kDxilSignatureElementUsageCompMaskTag
OUTPUT_STREAM_TAG = 0       # kDxilSignatureElementOutputStreamTag
_INTERP = {None: 2, "linear": 2, "nointerpolation": 1, "centroid": 3, "noperspective": 4, "sample": 6,
           "noperspective centroid": 5, "noperspective sample": 7}
# SV_Position always interpolates without perspective (HLSignatureLower UpdateSemanticAndInterpMode)
_NOPERSPECTIVE = {2: 4, 3: 5, 6: 7}
# SigPoints whose elements have no interpolation mode: those whose packing kind is not Vertex (DXC's
# SigPoint::NeedsInterpMode): the vertex inputs, the pixel outputs and the patch constants
_UNINTERPOLATED = frozenset({"VSIn", "PSOut", "PCOut", "DSIn"})


class SigElement(DataRecord):
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
    interp: int
    interpretation: str     # sigpack interpretation (Arb, SV, SGV, NotPacked, ...)
    data_width: int         # 16 / 32 (0: undefined, 64-bit) - one width per packed row
    start_row: int = -1     # -1 when not allocated
    start_col: int = -1
    usage: int = 0          # components the shader reads (inputs) / writes (outputs), element-relative
    stream: int = 0         # GS output stream (each stream is packed on its own)
    indices: tuple[int, ...] = ()   # each row's semantic index when not index, index + 1, ... (struct_array_leaves)

    def semantic_index(self, row: int) -> int:
        return self.indices[row] if self.indices else self.index + row

    @property
    def allocated(self) -> bool:
        return self.start_row >= 0

    def container_element(self, is_output: bool) -> SignatureElement:
        """The ISG1/OSG1/PSV0 view: masks are register components (shifted by the start column);
        the usage mask is shifted only for allocated elements (DXC's signature writer)."""
        shift = self.start_col if self.allocated else 0
        mask = ((1 << self.cols) - 1) << shift
        usage = self.usage << shift
        return SignatureElement(
            name=self.name, index=self.index, system_value=self.system_value, semantic_kind=self.kind,
            comp_type=self.sig_comp_type, register=self.start_row if self.allocated else 0xFFFFFFFF,
            mask=mask, rw_mask=(~usage & 0xF if is_output else usage), cols=self.cols,
            start_col=self.start_col if self.allocated else 0, rows=self.rows, interpolation=self.interp,
            stream=self.stream, indices=self.indices)


def struct_array_leaves(t: ir.Type) -> list[tuple[ir.Type, bool, tuple[int, ...]]] | None:
    """An array of structs as signature elements (DXC's SROA_Parameter_HLSL: each leaf member becomes an
    array, and AllocateSemanticIndex numbers the rows in memory order, element by element, member by member):
    per leaf, (its array type, row_major, each row's semantic index offset); None when t is not one."""
    if not (isinstance(t, ir.Array) and isinstance(t.elem, ir.Struct) and t.size is not None):
        return None
    leaves: list[tuple[ir.Type, bool, int]] = []         # (leaf type, row_major, its first row in one element)
    rows = 0

    def walk(st: ir.Struct) -> None:
        nonlocal rows
        for f in st.fields:
            if isinstance(f.type, ir.Struct):
                walk(f.type)
                continue
            lay = element_layout(f.type, bool(f.row_major))
            leaves.append((f.type, bool(f.row_major), rows))
            rows += lay[0] if lay is not None else 1     # an unsupported leaf is refused by its element
    walk(t.elem)
    out: list[tuple[ir.Type, bool, tuple[int, ...]]] = []
    for lt, rm, first in leaves:
        lay = element_layout(lt, rm)
        n = lay[0] if lay is not None else 1
        out.append((ir.Array(lt, t.size), rm, tuple(k * rows + first + r for k in range(t.size) for r in range(n))))
    return out


def element_layout(t: ir.Type, row_major: bool = False) -> tuple[int, int, ir.Scalar] | None:
    """(rows, cols, scalar) of a signature element of type `t`: a scalar or vector is one row, a
    matrix one row per row (row_major) or per column (column_major, the default: a column of R
    components per row), a one-dimensional array of them its elements' rows in turn; None for
    other types."""
    count = 1
    if isinstance(t, ir.Array):
        if t.size is None or isinstance(t.elem, ir.Array):
            return None
        count, t = t.size, t.elem
    if isinstance(t, ir.Scalar):
        return count, 1, t
    if isinstance(t, ir.Vector):
        return count, t.size, t.elem
    if isinstance(t, ir.Matrix):
        rows, cols = (t.rows, t.cols) if row_major else (t.cols, t.rows)
        return count * rows, cols, t.elem
    return None


# (semantic, type, interpolation, SigPoint, native16, row_major) -> the element's fields that follow from them
# (kind, system value, component types, rows, cols, interpolation mode, interpretation, data width),
# or None for an element not in the signature.  Shaders share semantics and (interned) types, so
# this hits across shaders; errors are not cached (they are raised on every miss).
_FACTS: dict[tuple, tuple | None] = {}
_FACTS_LIMIT = 4096


def build_signature(vars_: list[ir.Variable], stage: str, is_output: bool | str, native16: bool = False,
                    domain: str | None = None) -> list[SigElement]:
    """is_output: True, False, or 'patch' for a hull/domain shader's patch-constant signature
    (`domain` gives its tess factors' system values)."""
    out: list[SigElement] = []
    # thread-group stages: the inputs are thread ids (and a mesh shader's SV_ViewID) read by operations;
    # only a mesh shader has outputs (compute and amplification shaders write memory and the payload)
    if stage in THREAD_GROUP_STAGES and (not is_output or stage != "mesh"):
        for v in vars_:
            semantic = ir.io_of(v).semantic
            if semantic not in COMPUTE_BUILTINS and not (stage == "mesh" and semantic == "SV_ViewID"):
                raise error(f"semantic '{semantic}' is not supported for {stage} shaders", v.loc)
        return out
    point = sigpack.sig_point(stage, is_output)
    facts_of = _FACTS.get
    for v in vars_:
        io = ir.io_of(v)
        if stage == "geometry" and not is_output and not io.vertices:
            # passes/entry_wrapper.py refuses any other semantic outside the vertices (SigPoint GSIn)
            assert io.semantic in GS_INTRINSIC_INPUTS, io.semantic
            if io.semantic == GS_SHADOW_INPUT:     # (SigPoint GSIn needs no interpolation mode)
                kind, sysval, _ = _SEMANTICS[io.semantic]
                ct, sct = _COMP_TYPES[("uint", 32)]
                out.append(SigElement(v, len(out), io.semantic, io.index, kind, sysval, ct, sct, 1, 1, 0,
                                      sigpack.SHADOW, 32))
            continue            # read by an operation
        # per control point (tessellation) / per vertex (GS inputs): the element type
        vt = v.type.elem if (io.arrayed or io.vertices or io.mesh) and isinstance(v.type, ir.Array) else v.type
        parts = struct_array_leaves(vt) if not (io.arrayed or io.vertices or io.mesh) else None
        for et, row_major, offsets in parts or [(vt, io.row_major, ())]:
            key = (io.semantic, et, io.interpolation, point, native16, row_major)
            facts = facts_of(key, False)
            if facts is False:
                facts = _element_facts(v, et, stage, bool(is_output), point, native16, row_major)
                if len(_FACTS) >= _FACTS_LIMIT:
                    _FACTS.clear()
                _FACTS[key] = facts
            if facts is None:
                continue
            assert isinstance(facts, tuple)
            kind, sysval, ct, sct, rows, cols, interp, how, data_width = facts
            if how != sigpack.ARB:      # (the semantic index is not in the facts' key)
                _check_system_value_index(io, how, rows, v.loc)
            if how == sigpack.TESS_FACTOR:
                sysval = TESS_FACTOR_SYSTEM_VALUES.get((kind, domain or ""), 0)
            out.append(SigElement(v, len(out), io.semantic, io.index + (offsets[0] if offsets else 0), kind, sysval,
                                  ct, sct, rows, cols, interp, how, data_width, stream=io.stream,
                                  indices=tuple(io.index + o for o in offsets)))
    _check_semantic_indices(out, bool(is_output))
    unfit = [e for k in sorted({e.stream for e in out}) for e in sigpack.pack([e for e in out if e.stream == k], point)]
    if unfit:
        e = unfit[0]
        if e.interpretation == sigpack.CLIPCULL:      # DXC's validator: Meta.ClipCullMaxRows
            raise error(f"signature element '{e.name}{e.index}' does not fit: SV_ClipDistance and SV_CullDistance "
                        f"elements share at most two rows (a float[n] array takes n rows)", e.var.loc)
        raise error(f"signature element '{e.name}{e.index}' does not fit in the {sigpack.MAX_ROWS} "
                    f"{'output' if is_output else 'input'} registers", e.var.loc)
    return out


MS_MAX_SIG_ROWS = 32                # DXC's validator: kMaxMSVSigRows = kMaxMSPSigRows = kMaxMSTotalSigRows
MS_MAX_OUTPUT_BYTES = 32 * 1024     # kMaxMSOutputTotalBytes
MS_MAX_IN_OUT_BYTES = 47 * 1024     # kMaxMSInputOutputTotalBytes (payload included)


def check_mesh_signatures(vertex: list[SigElement], primitive: list[SigElement], mesh: ir.MeshInfo,
                          loc) -> None:
    """A mesh shader's output limits as D3D's validator counts them: at most 32 signature rows for the
    vertices and primitives together, and the outputs (each element's rows x cols scalars of 4 bytes per
    vertex / primitive, the counts rounded up to 32) within 32 KiB, 47 KiB with the payload."""
    def rows(elems: list[SigElement]) -> int:
        return max((e.start_row + e.rows for e in elems if e.allocated), default=0)

    if rows(vertex) + rows(primitive) > MS_MAX_SIG_ROWS:
        raise error(f"the mesh shader's vertex and primitive outputs take {rows(vertex)} + {rows(primitive)} "
                    f"signature rows: at most {MS_MAX_SIG_ROWS} together", loc)

    def up32(n: int) -> int:
        return (n + 31) & ~31

    size = 4 * (sum(e.rows * e.cols for e in vertex) * up32(mesh.max_vertices)
                + sum(e.rows * e.cols for e in primitive) * up32(mesh.max_primitives))
    if size > MS_MAX_OUTPUT_BYTES:
        raise error(f"the mesh shader's vertex and primitive outputs are {size} bytes (counts rounded up to "
                    f"32): at most {MS_MAX_OUTPUT_BYTES}", loc)
    if size + mesh.payload_size > MS_MAX_IN_OUT_BYTES:
        raise error(f"the mesh shader's outputs and payload are {size} + {mesh.payload_size} bytes: at most "
                    f"{MS_MAX_IN_OUT_BYTES}", loc)


def _element_facts(v: ir.Variable, vt: ir.Type, stage: str, is_output: bool, point: str,
                   native16: bool, row_major: bool) -> tuple | None:
    """The _FACTS entry of `v` (of per-control-point / per-vertex type vt, or a leaf of its array of
    structs) at `point` (None: not in the signature); raises for unsupported ones."""
    io = ir.io_of(v)
    layout = element_layout(vt, row_major)
    if layout is None:
        raise error(f"signature element '{io.semantic}' of type '{vt}' is not supported by the DXIL "
                    f"backend yet", v.loc)
    rows, cols, s = layout
    row = _SEMANTICS.get(io.semantic if io.semantic.upper().startswith("SV_") else "")
    if row is None:
        raise error(f"semantic '{io.semantic}' is not supported by the DXIL backend yet", v.loc)
    kind, sysval, interpretations = row
    how = interpretations[sigpack.SIG_POINTS.index(point)]
    if how is None:
        raise error(f"invalid semantic '{io.semantic}' for {stage} shader {'output' if is_output else 'input'}",
                    v.loc)
    if how == sigpack.NOT_IN_SIG:
        return None
    if how == sigpack.ARB:      # a system value taken as an ordinary value here (DXC Semantic::GetByName)
        kind, sysval = 0, 0
    width = 32 if s.kind == "bool" else s.width
    ct, sct = _COMP_TYPES[(s.kind, width)]
    data_width = 0 if width == 64 else 16 if width == 16 and native16 else 32
    return (kind, sysval, ct, sct, rows, cols, _interpolation(point, kind, s, io, v.loc), how, data_width)


def _check_semantic_indices(elems: list[SigElement], is_output: bool) -> None:
    """Each (semantic, index) names one row: an array element covers index..index+rows-1, so
    `float2 a[2] : TEXCOORD0` and `float b : TEXCOORD1` collide (as in DXC); each GS output stream has
    its own elements, so two streams may both write SV_Position."""
    seen: set[tuple[int, str, int]] = set()
    for e in elems:
        name = e.name.upper()
        for r in range(e.rows):
            key = (e.stream, name, e.semantic_index(r))
            if key in seen:
                raise error(f"{'output' if is_output else 'input'} semantic '{e.name}' has overlapping semantic "
                            f"index {e.semantic_index(r)}", e.var.loc)
            seen.add(key)


def _check_system_value_index(io: ir.IOInfo, how: str, rows: int, loc) -> None:
    """DXC's validator (MetaSemanticIndexMax): SV_Target rows end by index 7, SV_Barycentrics' index is at
    most 1, clip and cull distances have their own limits, every other system value in a signature is index 0."""
    if how == sigpack.TARGET:
        top = 7
    elif how == sigpack.CLIPCULL:
        return
    else:
        top = 1 if io.semantic == "SV_Barycentrics" else 0
    if io.index + (rows if how == sigpack.TARGET else 1) - 1 > top:
        raise error(f"{io.semantic} semantic index exceeds maximum ({top})", loc)


def _interpolation(point: str, kind: int, s: ir.Scalar, io: ir.IOInfo, loc) -> int:
    """DXIL::InterpolationMode: undefined for VS inputs, PS outputs and patch constants, constant for non-floats,
    else the declared mode (linear by default), the noperspective variant for SV_Position.  DXC's
    refusals: an interpolating mode on an integer or bool element where elements have modes (its validator,
    MetaIntegerInterpMode), a nointerpolation SV_Position or an interpolated mesh primitive output
    (HLSignatureLower)."""
    if point in _UNINTERPOLATED:
        return 0
    declared = io.interpolation
    if point == "MSPOut" and declared not in (None, "nointerpolation"):
        raise error(f"mesh shader's primitive outputs' interpolation mode must be constant or undefined: "
                    f"'{io.semantic}' is {declared}", loc)
    if s.kind != "float" or point == "MSPOut":     # a primitive's values are constant over it
        if declared not in (None, "nointerpolation"):
            raise error(f"signature element '{io.semantic}' specifies invalid interpolation mode '{declared}' for "
                        f"integer component type: integer and bool elements are nointerpolation", loc)
        return 1
    mode = _INTERP.get(declared, 2)
    if kind == 3 and mode == 1:
        raise error("invalid interpolation mode for SV_Position: it cannot be nointerpolation", loc)
    return _NOPERSPECTIVE.get(mode, mode) if kind == 3 else mode


def signature_metadata(elems: list[SigElement]) -> MDNode | None:
    """`!{i32 id, !"name", i8 compType, i8 kind, !{indices}, i8 interp, i32 rows, i8 cols, i32 startRow, i8 startCol, null}`
    (integers from the shared tables: one lookup each)."""
    if not elems:
        return None
    i32, i8 = md_ints(T.i32), md_ints(T.i8)
    usage_tag = i32[USAGE_MASK_TAG]

    def properties(e: SigElement) -> MDNode | None:     # GS stream (when not 0), usage mask (when any)
        props: list[Metadata | None] = ([i32[OUTPUT_STREAM_TAG], i32[e.stream]] if e.stream else [])
        props += [usage_tag, i32[e.usage]] if e.usage else []
        return MDNode(props) if props else None

    return MDNode([MDNode([i32[e.id], MDString(e.name), i8[e.comp_type], i8[e.kind],
                           MDNode([i32[e.semantic_index(r)] for r in range(e.rows)]), i8[e.interp], i32[e.rows], i8[e.cols],
                           i32[e.start_row], i8[e.start_col], properties(e)])
                   for e in elems])


def record_usage(fn, inputs: list[SigElement], outputs: list[SigElement], read_op: str, write_op: str) -> None:
    """Set each element's usage mask from the loadInput/storeOutput calls left after optimisation."""
    record_call_usage((i for bb in fn.blocks for i in bb.instructions if i.op == "call"), inputs, outputs,
                      read_op, write_op)


def record_call_usage(calls, inputs: list[SigElement], outputs: list[SigElement], read_op: str,
                      write_op: str) -> None:
    """record_usage over given call instructions (the clean-up walk collects the I/O calls as it
    passes them, so no walk of the function is needed).  Which elements (if any) a callee's
    calls address is decided once per callee."""
    by_id = {"in": {e.id: e for e in inputs}, "out": {e.id: e for e in outputs}}
    side_of: dict[object, dict | None] = {}      # callee -> the elements its calls address, or None
    for inst in calls:
        ops = inst.operands
        if len(ops) < 5:
            continue
        callee = ops[0]
        if callee in side_of:
            elems = side_of[callee]
        else:
            name = callee.name
            side = "in" if name.startswith(read_op) else "out" if name.startswith(write_op) else None
            elems = side_of[callee] = by_id[side] if side is not None else None
        if elems is None:
            continue
        sig_id, col = ops[2], ops[4]
        el = elems.get(getattr(sig_id, "value", -1))
        if el is not None and hasattr(col, "value"):
            el.usage |= 1 << col.value
