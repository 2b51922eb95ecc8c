"""DXIL signatures as DXC builds them (issue 20): which semantics each signature point takes, and where
the packer puts each element.

Acceptance: DXC's semantic x signature-point matrix (DxilSigPoint.inl's INTERPRETATION-TABLE, transcribed
below by hand as facts) against our DXIL table (signature._SEMANTICS) and the entry wrapper's checks of the
points outside a stage's per-vertex I/O (HSIn, PCIn, PCOut, DSIn: semantics.SPECIAL_POINTS).  Where DXC takes
a system value as an arbitrary value (SV_Position, SV_ClipDistance, SV_CullDistance among the patch
constants) both targets compile it as an ordinary value (a SPIR-V Location) and a tessellated draw shows the
values; where DXC refuses one, both targets give one located error.

Packing: a model of DXC's default packer written here from DxilSignatureAllocator.inl's rules (PackPrefixStable:
elements in signature order, each at the first row and then the first column that fits; a register's
interpolation mode and data width; the kinds that may not sit left / right of each other; indexing
(multi-row) rules; clip/cull distances in at most two rows reserved whole; tess factor arrays from column 3),
compared with sigpack.pack on random signatures and with the metadata of compiled shaders whose elements are
described by hand (scalars, vectors, arrays, matrices, mixed interpolation modes, system values, tess factors).
"""

from __future__ import annotations

import random
import re

import pytest
import res_util as R
from harness.dxil_tools import check_dxil, read_dxil
from shaderbuild_dxil import signature, sigpack
from test_dxil_signature_packing import _ELEMENT, _MD_LINE

# ------------------------------------------------------------------ a model of DXC's packer
ARB, SV, SGV, CC, TF = "Arb", "SV", "SGV", "ClipCull", "TessFactor"
# DxilSignatureAllocator::GetConflictFlagsLeft / GetConflictFlagsRight: the kinds that may not be placed to the
# left / right of an element of a kind
NOT_LEFT_OF = {ARB: {SGV, SV, TF, CC}, SV: {SGV}, TF: {SGV}, CC: {SGV}, SGV: set()}
NOT_RIGHT_OF = {SGV: {ARB, SV, TF, CC}, SV: {ARB}, TF: {ARB}, CC: {ARB}, ARB: set()}
UP, DOWN = "up", "down"


class El:
    """An element as the packer sees it (and sigpack.Packable)."""

    def __init__(self, how: str, rows: int, cols: int, interp: int = 2, width: int = 32, name: str = "E",
                 index: int = 0):
        self.interpretation, self.rows, self.cols, self.interp, self.data_width = how, rows, cols, interp, width
        self.name, self.index, self.kind = name, index, 0
        self.start_row = self.start_col = -1

    def __repr__(self) -> str:
        return f"{self.name}({self.interpretation} {self.rows}x{self.cols} i{self.interp} w{self.data_width})"


def index_flags(r: int, rows: int) -> set[str]:
    return ({UP} if r > 0 else set()) | ({DOWN} if r < rows - 1 else set())


class Register:
    def __init__(self) -> None:
        self.comps: list[set[str]] = [set() for _ in range(4)]   # 'occupied' + its kind, or the kinds refused there
        self.interp = 0            # 0: undefined
        self.width = 0             # 0: undefined
        self.indexing: set[str] = set()
        self.fixed = False


class Model:
    def __init__(self, n: int = 32) -> None:
        self.regs = [Register() for _ in range(n)]

    def row_fits(self, e: El, row: int) -> bool:
        if row + e.rows > len(self.regs):
            return False
        for r in range(e.rows):
            reg, mine = self.regs[row + r], index_flags(r, e.rows)
            if reg.indexing and e.interpretation in (SV, SGV):
                return False
            if reg.fixed and not mine <= reg.indexing:
                return False
            if e.interpretation == TF and not reg.indexing <= mine:
                return False
            if reg.interp and reg.interp != e.interp:
                return False
            if reg.width and reg.width != e.data_width:
                return False
        return True

    def col_fits(self, e: El, row: int, col: int) -> bool:
        return col + e.cols <= 4 and all(
            "occupied" not in self.regs[row + r].comps[c] and e.interpretation not in self.regs[row + r].comps[c]
            for r in range(e.rows) for c in range(col, col + e.cols))

    def find(self, e: El, start: int, count: int, start_col: int = 0) -> tuple[int, int] | None:
        for row in range(start, start + count - e.rows + 1):
            if not self.row_fits(e, row):
                continue
            for col in range(start_col, 4 - e.cols + 1):
                if self.col_fits(e, row, col):
                    return row, col
        return None

    def place(self, e: El, row: int, col: int) -> None:
        for r in range(e.rows):
            reg = self.regs[row + r]
            reg.interp, reg.width = e.interp, e.data_width
            reg.indexing |= index_flags(r, e.rows)
            if e.interpretation in (SV, SGV, TF):
                reg.fixed = True
            for c in range(4):
                if "occupied" in reg.comps[c]:
                    continue
                if c < col:
                    reg.comps[c] |= NOT_LEFT_OF[e.interpretation]
                elif c < col + e.cols:
                    reg.comps[c] = {"occupied", e.interpretation}
                else:
                    reg.comps[c] |= NOT_RIGHT_OF[e.interpretation]

    def pack_next(self, e: El, start: int, count: int, start_col: int = 0) -> bool:
        spot = self.find(e, start, count, start_col)
        if spot is not None:
            self.place(e, *spot)
            e.start_row, e.start_col = spot
        return spot is not None


def dxc_prefix_stable(elems: list[El]) -> None:
    """PackPrefixStable over elements in signature order."""
    main, clip = Model(32), Model(2)
    reserved: list[int] = []        # the main rows of clip/cull rows 0 and 1
    indexed = False
    for e in elems:
        e.start_row = e.start_col = -1
        if e.interpretation == CC:
            spot = clip.find(e, 0, 2)
            if spot is None:
                continue
            row, col = spot
            used = row + e.rows
            if e.rows > 1 and not indexed:
                if len(reserved) == 2 and reserved[0] + 1 != reserved[1]:
                    continue
                indexed = True
            if used > len(reserved):
                holder = El(CC, 1, 4, e.interp, e.data_width)
                if indexed:
                    if not reserved:
                        holder.rows = 2
                        if not main.pack_next(holder, 0, 32):
                            continue
                        reserved = [holder.start_row, holder.start_row + 1]
                    else:       # PackNext(&DE, row0 + 1, row0 + 2): rows row0 + 1 .. 2 row0 + 2
                        if not main.pack_next(holder, reserved[0] + 1, reserved[0] + 2):
                            continue
                        reserved.append(holder.start_row)
                else:
                    if not main.pack_next(holder, 0, 32):
                        continue
                    reserved.append(holder.start_row)
            clip.place(e, row, col)
            e.start_row, e.start_col = reserved[row], col
            continue
        main.pack_next(e, 0, 32, 3 if e.interpretation == TF and e.rows > 1 else 0)


# ------------------------------------------------------------------ the packer against the model
def _random_signature(rng: random.Random) -> list[El]:
    elems = []
    for _ in range(rng.randint(1, 14)):
        how = rng.choice([ARB, ARB, ARB, SV, SGV, CC, TF])
        rows = rng.choice([1, 1, 1, 2, 3, 4]) if how != CC else rng.choice([1, 1, 2])
        cols = rng.randint(1, 4)
        if how == TF:
            cols = 1
        elems.append(El(how, rows, cols, rng.choice([0, 1, 2, 2, 4, 3]), rng.choice([32, 32, 32, 16, 0])))
    return elems


@pytest.mark.parametrize("seed", range(8))
def test_packer_places_random_signatures_as_dxc(seed):
    """500 random signatures per seed (every interpretation, multi-row elements, interpolation modes, data
    widths): sigpack's placement of each element (or its refusal) is the model's."""
    rng = random.Random(seed)
    for _ in range(500):
        ours = _random_signature(rng)
        theirs = [El(e.interpretation, e.rows, e.cols, e.interp, e.data_width) for e in ours]
        unfit = sigpack.pack(ours, "VSOut")
        dxc_prefix_stable(theirs)
        assert [(e.start_row, e.start_col) for e in ours] == [(e.start_row, e.start_col) for e in theirs], theirs
        assert unfit == [e for e in ours if e.start_row < 0]


def test_model_rules_worked_by_hand():
    """The model itself, on placements worked out from the rules by hand."""
    # a tri domain's factors: the edges in column 3 of rows 0-2, the inside factor alone in row 3, an arbitrary
    # float3 left of the first edge factor, a float4 below
    sig = [El(TF, 3, 1, 0), El(TF, 1, 1, 0), El(ARB, 1, 3, 0), El(ARB, 1, 4, 0)]
    dxc_prefix_stable(sig)
    assert [(e.start_row, e.start_col) for e in sig] == [(0, 3), (3, 0), (0, 0), (4, 0)]
    # an SGV only right of everything; an SV not left of an arbitrary value; a two-row array not beside an SV
    sig = [El(SGV, 1, 1, 1), El(ARB, 1, 2, 1), El(SV, 1, 1, 1), El(ARB, 2, 1, 1), El(ARB, 1, 1, 1)]
    dxc_prefix_stable(sig)
    assert [(e.start_row, e.start_col) for e in sig] == [(0, 0), (1, 0), (1, 2), (2, 0), (2, 1)]
    # clip distances: one row reserved whole, the second beside nothing else
    sig = [El(ARB, 1, 2), El(CC, 1, 3), El(ARB, 1, 1), El(CC, 1, 2)]
    dxc_prefix_stable(sig)
    assert [(e.start_row, e.start_col) for e in sig] == [(0, 0), (1, 0), (0, 2), (2, 0)]


# ------------------------------------------------------------------ acceptance: DXC's matrix
# DxilSigPoint.inl's INTERPRETATION-TABLE, our spelling: per semantic ('' an arbitrary one), the signature points
# where DXC allows it and its interpretation there (every other point: NA, refused).  Shader-model gates left out.
NIS, NP, SH, T = "NotInSig", "NotPacked", "Shadow", "Target"
_VALUES = ("VSOut", "HSCPIn", "HSCPOut", "DSCPIn", "DSOut", "GSVIn", "GSOut", "PSIn")
_PATCH = ("PCOut", "DSIn")
DXC_MATRIX: dict[str, dict[str, str]] = {
    "": {"VSIn": ARB, **dict.fromkeys(_VALUES + _PATCH + ("MSOut", "MSPOut"), ARB)},
    "SV_VertexID": {"VSIn": SV},
    "SV_InstanceID": {"VSIn": SV, **dict.fromkeys(_VALUES, ARB)},
    "SV_Position": {"VSIn": ARB, **dict.fromkeys(_VALUES, SV), **dict.fromkeys(_PATCH, ARB), "MSOut": SV},
    "SV_RenderTargetArrayIndex": {"VSIn": ARB, **dict.fromkeys(_VALUES, SV), **dict.fromkeys(_PATCH, ARB),
                                  "MSPOut": SV},
    "SV_ViewportArrayIndex": {"VSIn": ARB, **dict.fromkeys(_VALUES, SV), **dict.fromkeys(_PATCH, ARB), "MSPOut": SV},
    "SV_ClipDistance": {"VSIn": ARB, **dict.fromkeys(_VALUES, CC), **dict.fromkeys(_PATCH, ARB), "MSOut": CC},
    "SV_CullDistance": {"VSIn": ARB, **dict.fromkeys(_VALUES, CC), **dict.fromkeys(_PATCH, ARB), "MSOut": CC},
    "SV_OutputControlPointID": {"HSIn": NIS},
    "SV_DomainLocation": {"DSIn": NIS},
    "SV_PrimitiveID": {"PCIn": NIS, "HSIn": NIS, "DSIn": NIS, "GSIn": SH, "GSOut": SGV, "PSIn": SGV, "MSPOut": SV},
    "SV_GSInstanceID": {"GSIn": NIS},
    "SV_SampleIndex": {"PSIn": SH},
    "SV_IsFrontFace": {"GSOut": SGV, "PSIn": SGV},
    "SV_Coverage": {"PSIn": NIS, "PSOut": NP},
    "SV_InnerCoverage": {"PSIn": NIS},
    "SV_Target": {"PSOut": T},
    "SV_Depth": {"PSOut": NP},
    "SV_DepthLessEqual": {"PSOut": NP},
    "SV_DepthGreaterEqual": {"PSOut": NP},
    "SV_StencilRef": {"PSOut": NP},
    "SV_TessFactor": dict.fromkeys(_PATCH, TF),
    "SV_InsideTessFactor": dict.fromkeys(_PATCH, TF),
    "SV_ViewID": dict.fromkeys(("VSIn", "PCIn", "HSIn", "DSIn", "GSIn", "PSIn", "MSIn"), NIS),
    "SV_Barycentrics": {"PSIn": NP},
    "SV_ShadingRate": {**dict.fromkeys(_VALUES, SV), "MSPOut": SV},
    "SV_CullPrimitive": {"PSIn": NIS, "MSPOut": NP},
    "SV_StartVertexLocation": {"VSIn": NIS},
    "SV_StartInstanceLocation": {"VSIn": NIS},
}
# where we differ on purpose or have not followed DXC yet, with why: (semantic, point) -> ours
KNOWN = {
    # a per-vertex SV_ShadingRate through the tessellation stages or into a GS: DXC's own SPIR-V backend refuses
    # it ("semantic ShadingRate must be used only for PSIn, VSOut, GSOut, MSOut"), so both our targets do
    **{("SV_ShadingRate", p): None for p in ("HSCPIn", "HSCPOut", "DSCPIn", "DSOut", "GSVIn")},
}
# our DXIL table's HSCPIn / DSCPIn columns also hold the non-arrayed hull inputs (DXC's HSIn, PCIn) and the
# domain shader's inputs read by operations (DSIn's NotInSig ones): the entry wrapper refuses those semantics
# per control point (SPECIAL_POINTS['CP'])
_FOLDED = {"HSCPIn": ("HSIn", "PCIn"), "DSCPIn": ("DSIn",)}


def test_dxil_table_is_dxcs_matrix():
    for semantic, cells in DXC_MATRIX.items():
        ours = signature._SEMANTICS.get(semantic)
        if ours is None:        # read by an operation wherever it is allowed (compute ids, GS instance id)
            assert set(cells.values()) <= {NIS}, semantic
            continue
        for point, got in zip(sigpack.SIG_POINTS, ours[2]):
            want = cells.get(point)
            if point in _FOLDED and want is None and any(cells.get(p) == NIS for p in _FOLDED[point]):
                want = NIS
            want = KNOWN.get((semantic, point), want)
            assert got == want, (semantic, point)


def test_entry_wrapper_points_are_dxcs():
    """semantics.SPECIAL_POINTS allows exactly DXC's non-NA cells at HSIn, PCIn, PCOut, DSIn, GSIn and the control
    points and input vertices (HSCPIn = HSCPOut = DSCPIn = GSVIn), and takes DXC's Arb cells of system values as
    plain values (except the layer and viewport index, which the backends map: an arbitrary DXIL element, a
    SPIR-V Location)."""
    from shaderbuild.front.semantics import SPECIAL_POINTS

    for point, dxc_points in {"HSIn": ("HSIn",), "PCIn": ("PCIn",), "PCOut": ("PCOut",), "DSIn": ("DSIn",),
                              "GSIn": ("GSIn",), "vertices": ("HSCPIn", "HSCPOut", "DSCPIn", "GSVIn")}.items():
        for dxc in dxc_points:
            allowed = {s for s, cells in DXC_MATRIX.items() if cells.get(dxc) is not None
                       and (s, dxc) not in KNOWN}
            assert set(SPECIAL_POINTS[point]) == allowed, (point, dxc)
            for s in allowed:
                plain = DXC_MATRIX[s][dxc] == ARB and s not in ("SV_InstanceID", "SV_RenderTargetArrayIndex",
                                                                "SV_ViewportArrayIndex")
                assert (SPECIAL_POINTS[point][s] == "plain") == plain, (point, s)


# ------------------------------------------------------------------ acceptance: refused where DXC refuses
GS_OUT = """struct G { float4 pos : SV_Position; };
[maxvertexcount(3)]
"""
HS_HEAD = """
struct CP { float4 p : POS; };
struct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; };
"""
HS_ATTRS = """[domain("tri")] [partitioning("integer")] [outputtopology("triangle_cw")]
[outputcontrolpoints(3)] [patchconstantfunc("constants")]
"""
PCF = "PC constants(InputPatch<CP, 3> patch) { PC o; o.e[0] = 1; o.e[1] = 1; o.e[2] = 1; o.i = 1; return o; }\n"
HS_MAIN = "CP main(InputPatch<CP, 3> patch, uint i : SV_OutputControlPointID) { return patch[i]; }\n"
DS_MAIN = """[domain("tri")]
float4 main(PC pc, float3 b : SV_DomainLocation, const OutputPatch<CP, 3> p%s) : SV_Position { return b.x * p[0].p%s; }
"""

# (profile, source with '@' before the name the error points at, the error's words after "invalid semantic")
REFUSED = {
    # DXC's HSIn: a hull shader's input outside the input patch is read by an operation or not allowed
    "hull input not in the patch": ("hs_6_0", HS_HEAD + PCF + HS_ATTRS +
        "CP main(InputPatch<CP, 3> patch, uint i : SV_OutputControlPointID, float4 @x : FOO) { return patch[i]; }\n",
        "'FOO' for hull shader input (not in the input patch)"),
    # DXC's PCIn: the patch-constant function has no SV_OutputControlPointID
    "control point id in the patch-constant function": ("hs_6_0", HS_HEAD +
        "PC constants(InputPatch<CP, 3> patch, uint @id : SV_OutputControlPointID) "
        "{ PC o; o.e[0] = id; o.e[1] = 1; o.e[2] = 1; o.i = 1; return o; }\n" + HS_ATTRS + HS_MAIN,
        "'SV_OutputControlPointID' for hull shader input (of the patch-constant function)"),
    # DXC's PCOut: SV_InstanceID is no patch constant
    "instance id as a patch constant": ("hs_6_0", """
struct CP { float4 p : POS; };
struct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; uint @n : SV_InstanceID; };
PC constants(InputPatch<CP, 3> patch) { PC o; o.e[0] = 1; o.e[1] = 1; o.e[2] = 1; o.i = 1; o.n = 0; return o; }
""" + HS_ATTRS + HS_MAIN, "'SV_InstanceID' for hull shader output (a patch constant)"),
    # DXC's DSIn: a domain shader input outside the patch is a patch constant; SV_InstanceID is none
    "domain instance id": ("ds_6_0", HS_HEAD + DS_MAIN % (", uint @n : SV_InstanceID", " + n"),
                           "'SV_InstanceID' for domain shader input (a patch constant)"),
    # DXC's HSCPIn / DSCPIn: SV_PrimitiveID and SV_DomainLocation are not per control point
    "primitive id per control point": ("hs_6_0", """
struct CP { float4 p : POS; uint @id : SV_PrimitiveID; };
struct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; };
PC constants(InputPatch<CP, 3> patch) { PC o; o.e[0] = patch[0].id; o.e[1] = 1; o.e[2] = 1; o.i = 1; return o; }
""" + HS_ATTRS + "float4 main(InputPatch<CP, 3> patch, uint i : SV_OutputControlPointID) : POS { return patch[i].p; }\n",
        "'SV_PrimitiveID' for hull shader input (per control point)"),
    "domain location per control point": ("ds_6_0", """
struct CP { float4 p : POS; float3 @b : SV_DomainLocation; };
struct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; };
[domain("tri")]
float4 main(PC pc, const OutputPatch<CP, 3> p) : SV_Position { return p[0].p * p[1].b.x; }
""", "'SV_DomainLocation' for domain shader input (per control point)"),
    # DXC's GSVIn / GSIn: the primitive id is not per vertex, an ordinary input is only per vertex
    "primitive id per vertex": ("gs_6_0", "struct V { float4 pos : SV_Position; uint @id : SV_PrimitiveID; };\n"
        + GS_OUT + "void main(triangle V v[3], inout TriangleStream<G> s) { G o; o.pos = v[0].pos * v[1].id; "
        "s.Append(o); }\n", "'SV_PrimitiveID' for geometry shader input (per vertex)"),
    "geometry input not per vertex": ("gs_6_0", "struct V { float4 pos : SV_Position; };\n" + GS_OUT +
        "void main(triangle V v[3], float4 @x : FOO, inout TriangleStream<G> s) { G o; o.pos = v[0].pos + x; "
        "s.Append(o); }\n", "'FOO' for geometry shader input (not per vertex)"),
}


@pytest.mark.parametrize("case", REFUSED)
def test_refused_where_dxc_refuses(case):
    """One located error on each target (DXC: 'Semantic ... is invalid for shader model')."""
    profile, marked, words = REFUSED[case]
    line = next(n for n, text in enumerate(marked.splitlines(), 1) if "@" in text)
    col = marked.splitlines()[line - 1].index("@") + 1
    src = marked.replace("@", "")
    for target in ("spirv", "dxil"):
        res = R.compile_hlsl(src, "main", profile, target)
        assert R.errors(res) == [f"{line}:{col}: invalid semantic {words}"], (target, R.errors(res))


# ------------------------------------------------------------------ acceptance: compiled where DXC accepts
# the hull shader writes SV_Position / SV_ClipDistance / SV_CullDistance among its patch constants (DXC: Arb at
# PCOut), the domain shader reads them, two of them as plain parameters (Arb at DSIn): ordinary values, which
# the draw shows (as clip or cull distances the negative ones would drop the patches)
VS_VAL = """
struct CP { float4 pos : POS; float val : VAL; };
static const float2 P[6] = { float2(-1, -1), float2(1, -1), float2(-1, 1), float2(1, -1), float2(1, 1), float2(-1, 1) };
CP main(uint id : SV_VertexID) { CP o; o.pos = float4(P[id], 0, 1); o.val = id * 4 + 1; return o; }
"""
HS_ARB = """
struct CP { float4 pos : POS; float val : VAL; };
struct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; float4 q : SV_Position;
            float2 c : SV_ClipDistance; float d : SV_CullDistance; };
PC constants(InputPatch<CP, 3> ip, uint pid : SV_PrimitiveID) {
    PC o;
    o.e[0] = 1; o.e[1] = 1; o.e[2] = 1; o.i = 1;
    o.q = float4(ip[0].val, ip[1].val, ip[2].val, pid);
    o.c = float2(ip[2].val, -1.0 - pid);
    o.d = -ip[1].val;
    return o;
}
[domain("tri")] [partitioning("integer")] [outputtopology("triangle_cw")]
[outputcontrolpoints(3)] [patchconstantfunc("constants")]
CP main(InputPatch<CP, 3> patch, uint i : SV_OutputControlPointID) { return patch[i]; }
"""
DS_ARB = """
struct CP { float4 pos : POS; float val : VAL; };
struct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; float4 q : SV_Position; };
struct O { float4 pos : SV_Position; nointerpolation float4 color : COLOR; };
[domain("tri")]
O main(PC pc, float2 c : SV_ClipDistance, float d : SV_CullDistance, float3 b : SV_DomainLocation,
       const OutputPatch<CP, 3> p) {
    O o;
    o.pos = b.x * p[0].pos + b.y * p[1].pos + b.z * p[2].pos;
    o.color = float4(pc.q.x, pc.q.y + pc.q.w, c.x - c.y, -d) / 255;
    return o;
}
"""


def test_patch_constant_system_values_are_plain_values():
    """Both targets compile them as DXC does: DXIL arbitrary patch-constant elements (no system value), SPIR-V
    Patch Locations (no built-in); drawn on lavapipe from SPIR-V and from the DXIL through dxil-spirv, each
    patch's pixels show its values."""
    from lang.test_stages11 import PS_COLOR, W, draw_tess

    for src, profile, side in ((HS_ARB, "hs_6_0", "outputs"), (DS_ARB, "ds_6_0", "inputs")):
        res = R.build(src, "main", profile)
        entries = [e for e in res.manifest["entry"][side] if e.get("patch")]
        assert {e["semantic"]: ("location" in e, "builtin" in e) for e in entries
                if e["semantic"] in ("SV_Position", "SV_ClipDistance", "SV_CullDistance")} == {
            s: (True, False) for s in (("SV_Position", "SV_ClipDistance", "SV_CullDistance"))}, entries
        twin = R.twin_of(res)
        assert twin is not None
        psg = next(p for p in check_dxil(twin.binary).container["Parts"] if p["Name"] == "PSG1")
        assert {(p["Name"], p["SystemValue"]) for p in psg["Signature"]["Parameters"]
                if not p["Name"].endswith("TessFactor")} == {
            ("SV_Position", "Undefined"), ("SV_ClipDistance", "Undefined"), ("SV_CullDistance", "Undefined")}
    (px,) = draw_tess(VS_VAL, HS_ARB, DS_ARB, PS_COLOR, 3, 6)
    for pid in range(2):
        vals = [(3 * pid + k) * 4 + 1 for k in range(3)]
        want = (vals[0], vals[1] + pid, vals[2] + 1 + pid, vals[1])
        for y in range(W):
            for x in range(W):
                if x + y == W - 1 or (x + y < W - 1) != (pid == 0):
                    continue        # patch 0 is the upper-left triangle of the target, patch 1 the lower-right
                assert R.pixel(px, W, x, y) == want, (pid, x, y)


# ------------------------------------------------------------------ compiled signatures against the model
def compiled_signatures(ir_text: str) -> list[list[tuple]]:
    """The entry's input, output and patch-constant elements from llvm-dis text: (name, first index, kind
    interpretation-free facts: rows, cols, interpolation mode, start row, start col), in signature order."""
    md = {int(m.group(1)): m.group(2) for m in _MD_LINE.finditer(ir_text)}
    entry = re.search(r"^!dx\.entryPoints = !\{!(\d+)\}$", ir_text, re.M)
    assert entry is not None
    sigs = re.match(r'ptr @[\w.]+, !"\w+", !(\d+)', md[int(entry.group(1))])
    assert sigs is not None
    out = []
    for ref in (r.strip() for r in md[int(sigs.group(1))].split(",")):
        elems = []
        for el in ([] if ref == "null" else md[int(ref[1:])].split(",")):
            m = _ELEMENT.match(md[int(el.strip()[1:])])
            assert m is not None
            _, name, _, idx_ref, interp, rows, cols, row, col = m.groups()
            first = int(re.findall(r"i32 (\d+)", md[int(idx_ref)])[0])
            elems.append((name, first, int(rows), int(cols), int(interp), int(row), int(col)))
        out.append(elems)
    return out


# InterpolationMode: 0 undefined, 1 constant, 2 linear, 3 centroid, 4 noperspective, 6 sample
# each case: profile, source, {signature: [(name, first index, interpretation, rows, cols, interpolation)]} in
# DXC's signature order (the entry's parameters and their struct members in declaration order); the rows,
# columns and modes are HLSL's rules worked out by hand (a column_major RxC matrix is C rows of R components)
CASES = {
    "vertex outputs": ("vs_6_0", """
struct O { float4 pos : SV_Position; float2 uv : TEXCOORD0; nointerpolation uint id : ID; float3 n : NORMAL;
           centroid float c : CEN; float2x3 m : MAT; float s[2] : ARR; noperspective float2 np : NP;
           float cd : SV_ClipDistance; float cu[2] : SV_CullDistance; nointerpolation int2 k : K; };
O main(uint v : SV_VertexID) {
    O o = (O)0;
    o.pos = float4(v, 0, 0, 1); o.uv = v; o.id = v; o.n = v; o.c = v; o.m = v; o.s[0] = v; o.s[1] = 2 * v;
    o.np = v; o.cd = v; o.cu[0] = v; o.cu[1] = -(float)v; o.k = v;
    return o;
}""", {1: [("SV_Position", 0, SV, 1, 4, 4), ("TEXCOORD", 0, ARB, 1, 2, 2), ("ID", 0, ARB, 1, 1, 1),
           ("NORMAL", 0, ARB, 1, 3, 2), ("CEN", 0, ARB, 1, 1, 3), ("MAT", 0, ARB, 3, 2, 2),
           ("ARR", 0, ARB, 2, 1, 2), ("NP", 0, ARB, 1, 2, 4), ("SV_ClipDistance", 0, CC, 1, 1, 2),
           ("SV_CullDistance", 0, CC, 2, 1, 2), ("K", 0, ARB, 1, 2, 1)]}),
    # VSIn (InputAssembler packing: each element starts a row at column 0) and PSOut (Target: row = index)
    "vertex inputs": ("vs_6_0", """
float4 main(float2 a : A, float3x2 m : M, uint id : SV_VertexID, float b[2] : B, int4 c : C) : SV_Position {
    return float4(a + m[2] + b[1], id, c.x);
}""", {0: [("A", 0, ARB, 1, 2, 0), ("M", 0, ARB, 2, 3, 0), ("SV_VertexID", 0, SV, 1, 1, 0),
           ("B", 0, ARB, 2, 1, 0), ("C", 0, ARB, 1, 4, 0)]}),
    "pixel outputs": ("ps_6_0", """
struct O { float2 t1 : SV_Target1; float d : SV_Depth; float4 t0 : SV_Target0; uint3 t3 : SV_Target3; };
O main(float4 p : SV_Position) { O o; o.t1 = p.xy; o.d = 0.5; o.t0 = p; o.t3 = 1; return o; }""",
        {1: [("SV_Target", 1, T, 1, 2, 0), ("SV_Depth", 0, NP, 1, 1, 0), ("SV_Target", 0, T, 1, 4, 0),
             ("SV_Target", 3, T, 1, 3, 0)]}),
    "pixel inputs with system-generated values": ("ps_6_0", """
float4 main(float4 pos : SV_Position, nointerpolation uint a : A, bool ff : SV_IsFrontFace,
            uint pid : SV_PrimitiveID, float2 t : T, nointerpolation float3 b : B,
            uint rt : SV_RenderTargetArrayIndex, sample float s : S) : SV_Target {
    return float4(pos.x + a + ff, pid + t.x, b.y + rt, s);
}""", {0: [("SV_Position", 0, SV, 1, 4, 4), ("A", 0, ARB, 1, 1, 1), ("SV_IsFrontFace", 0, SGV, 1, 1, 1),
           ("SV_PrimitiveID", 0, SGV, 1, 1, 1), ("T", 0, ARB, 1, 2, 2), ("B", 0, ARB, 1, 3, 1),
           ("SV_RenderTargetArrayIndex", 0, SV, 1, 1, 1), ("S", 0, ARB, 1, 1, 6)]}),
    "tri patch constants": ("hs_6_0", """
struct CP { float4 p : POS; };
struct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; float3 f : FOO; float4 g : BAR;
            float2x2 z : ZM; nointerpolation uint u : U; };
PC constants(InputPatch<CP, 3> ip) {
    PC o; o.e[0] = 1; o.e[1] = 2; o.e[2] = 3; o.i = 4; o.f = ip[0].p.xyz; o.g = ip[1].p; o.z = 0; o.u = 7;
    return o;
}
[domain("tri")] [partitioning("integer")] [outputtopology("triangle_cw")]
[outputcontrolpoints(3)] [patchconstantfunc("constants")]
CP main(InputPatch<CP, 3> patch, uint i : SV_OutputControlPointID) { return patch[i]; }
""", {2: [("SV_TessFactor", 0, TF, 3, 1, 0), ("SV_InsideTessFactor", 0, TF, 1, 1, 0), ("FOO", 0, ARB, 1, 3, 0),
          ("BAR", 0, ARB, 1, 4, 0), ("ZM", 0, ARB, 2, 2, 0), ("U", 0, ARB, 1, 1, 0)]}),
    "quad patch constants": ("ds_6_0", """
struct CP { float4 p : POS; };
struct PC { float e[4] : SV_TessFactor; float i[2] : SV_InsideTessFactor; float x : X; float2 y : Y;
            float a[2] : PA; };
[domain("quad")]
float4 main(PC pc, float2 uv : SV_DomainLocation, const OutputPatch<CP, 4> p) : SV_Position {
    return p[0].p * (pc.x + pc.y.x + pc.a[1] + pc.e[2] + pc.i[1]) + uv.x;
}""", {2: [("SV_TessFactor", 0, TF, 4, 1, 0), ("SV_InsideTessFactor", 0, TF, 2, 1, 0), ("X", 0, ARB, 1, 1, 0),
           ("Y", 0, ARB, 1, 2, 0), ("PA", 0, ARB, 2, 1, 0)]}),
    "isoline patch constants": ("hs_6_0", """
struct CP { float4 p : POS; };
struct PC { float e[2] : SV_TessFactor; float3 a : A; float b : B; };
PC constants(InputPatch<CP, 2> ip) { PC o; o.e[0] = 1; o.e[1] = 2; o.a = ip[0].p.xyz; o.b = 3; return o; }
[domain("isoline")] [partitioning("integer")] [outputtopology("line")]
[outputcontrolpoints(2)] [patchconstantfunc("constants")]
CP main(InputPatch<CP, 2> patch, uint i : SV_OutputControlPointID) { return patch[i]; }
""", {2: [("SV_TessFactor", 0, TF, 2, 1, 0), ("A", 0, ARB, 1, 3, 0), ("B", 0, ARB, 1, 1, 0)]}),
    # the signatures of the strict xfails naming dxil-spirv's Component decoration: the array element lands in
    # the free column of the rows of an earlier matrix (DXC's packer too)
    "stages11 nested struct (IB)": ("ps_6_0", """
struct Inner { nointerpolation float2 a : IA; nointerpolation float b[2] : IB; };
struct Payload { nointerpolation row_major float2x3 m : M; nointerpolation float3x2 n : N; Inner inner; };
float4 main(float4 pos : SV_Position, Payload pl) : SV_Target {
    return float4(pl.m[1][2] + pl.n[2][1], pl.inner.a, pl.inner.b[1]);
}""", {0: [("SV_Position", 0, SV, 1, 4, 4), ("M", 0, ARB, 2, 3, 1), ("N", 0, ARB, 2, 3, 1), ("IA", 0, ARB, 1, 2, 1),
           ("IB", 0, ARB, 2, 1, 1)]}),
    "stages11 control points (ARR)": ("hs_6_0", """
struct CP { float4 pos : POS; };
struct HCP { float4 pos : POS; row_major float2x3 m : MROW; float a[3] : ARR; };
struct PC { float edges[4] : SV_TessFactor; float inside[2] : SV_InsideTessFactor; };
PC constants(const OutputPatch<HCP, 4> op) { PC o = (PC)1; return o; }
[domain("quad")] [partitioning("integer")] [outputtopology("triangle_cw")]
[outputcontrolpoints(4)] [patchconstantfunc("constants")]
HCP main(InputPatch<CP, 3> patch, uint i : SV_OutputControlPointID) {
    HCP o; o.pos = patch[i % 3].pos; o.m = i; o.a[0] = i; o.a[1] = 2 * i; o.a[2] = 3; return o;
}""", {1: [("POS", 0, ARB, 1, 4, 2), ("MROW", 0, ARB, 2, 3, 2), ("ARR", 0, ARB, 3, 1, 2)]}),
    "mesh audit9 vertices (MAT)": ("ps_6_5", """
struct V { float4 pos : SV_Position; nointerpolation float2 uv[2] : TEXCOORD0; nointerpolation float2x2 m : MAT0; };
float4 main(V v) : SV_Target { return float4(v.uv[0].x + v.uv[1].y, v.m[0][1] + v.m[1][0], 0, 1); }
""", {0: [("SV_Position", 0, SV, 1, 4, 4), ("TEXCOORD", 0, ARB, 2, 2, 1), ("MAT", 0, ARB, 2, 2, 1)]}),
}
# where the xfails' elements land (their reasons name these): DXC's packer puts them there as well
XFAIL_SPOTS = {"stages11 nested struct (IB)": ("IB", 1, 3), "stages11 control points (ARR)": ("ARR", 1, 3),
               "mesh audit9 vertices (MAT)": ("MAT", 1, 2)}


@pytest.mark.parametrize("case", CASES)
def test_compiled_signatures_are_packed_as_dxc(case):
    """Each signature's elements (name, rows, columns, interpolation mode) are the hand-written ones, and their
    start rows and columns are where the model of DXC's packer puts those elements in that order."""
    profile, src, sigs = CASES[case]
    res = R.compile_hlsl(src, "main", profile, "dxil")
    assert res.ok, R.diagnostics_text(res)
    # (read by the LLVM tools; dxil-spirv's conversion of the xfails' signatures is what they are about)
    compiled = compiled_signatures((read_dxil if case in XFAIL_SPOTS else check_dxil)(res.binary).ir)
    for k, described in sigs.items():
        elems = [El(how, rows, cols, interp, name=name, index=index) for name, index, how, rows, cols, interp
                 in described]
        if profile.startswith("vs") and k == 0:         # PackDxilSignature's InputAssembler case
            row = 0
            for e in elems:
                e.start_row, e.start_col = row, 0
                row += e.rows
        elif profile.startswith("ps") and k == 1:       # its Target case: SV_Target<n> in row n, others none
            for e in elems:
                e.start_row, e.start_col = (e.index, 0) if e.interpretation == T else (-1, -1)
        else:
            dxc_prefix_stable(elems)
        want = [(e.name, e.index, e.rows, e.cols, e.interp, e.start_row, e.start_col) for e in elems]
        assert compiled[k] == want, k
        if case in XFAIL_SPOTS:
            name, row, col = XFAIL_SPOTS[case]
            assert next((e.start_row, e.start_col) for e in elems if e.name == name) == (row, col)


GS_PRIM = """
struct V { float4 pos : SV_Position; float2 t : T; };
struct G { float4 pos : SV_Position; nointerpolation uint id : ID; };
[maxvertexcount(3)]
void main(triangle V v[3], uint pid : SV_PrimitiveID, inout TriangleStream<G> s) {
    for (uint i = 0; i < 3; i++) { G o; o.pos = v[i].pos; o.id = pid + (uint)v[i].t.x; s.Append(o); }
}
"""


def test_geometry_shader_primitive_id_is_a_shadow_element():
    """DXC's GSIn interpretation of SV_PrimitiveID is Shadow: read by the primitiveID operation, yet listed in
    the input signature without a register (no interpolation mode: GSIn packs nothing)."""
    res = R.compile_hlsl(GS_PRIM, "main", "gs_6_0", "dxil")
    assert res.ok, R.diagnostics_text(res)
    c = check_dxil(res.binary)
    assert compiled_signatures(c.ir)[0] == [("SV_Position", 0, 1, 4, 4, 0, 0), ("T", 0, 1, 2, 2, 1, 0),
                                            ("SV_PrimitiveID", 0, 1, 1, 0, -1, -1)]
    isg = next(p for p in c.container["Parts"] if p["Name"] == "ISG1")["Signature"]["Parameters"]
    assert [(p["Name"], p["SystemValue"], p["Register"]) for p in isg][-1] == ("SV_PrimitiveID", "PrimitiveID",
                                                                                0xFFFFFFFF)
    assert "@dx.op.primitiveID.i32(i32 108)" in c.ir and "loadInput.i32" not in c.ir


VS_FULL = "float4 main(uint id : SV_VertexID) : SV_Position { return float4(float2((id << 1) & 2, id & 2) * 2 - 1, 0, 1); }"
PS_CULL = """
struct In { float4 pos : SV_Position; uint u : SV_CullPrimitive; };
float4 main(In i, bool c : SV_CullPrimitive1) : SV_Target { return float4(c ? 1 : 0, i.u + 0.2, 0.25, 1); }
"""


def test_pixel_shader_cull_primitive_input_is_false():
    """DXC's PSIn interpretation of SV_CullPrimitive is NotInSig and its DXIL the constant false (a primitive
    that reaches the pixel shader was not culled); both targets compile it so, with no signature element or
    built-in; drawn (a bool and a uint member)."""
    from lang.test_stages11 import draw_stages

    (px,) = draw_stages({"vs": (VS_FULL, "vs_6_0"), "ps": (PS_CULL, "ps_6_0")}, 3)
    assert {R.pixel(px, 8, x, y) for y in range(8) for x in range(8)} == {(0, R.unorm8(0.2), R.unorm8(0.25), 255)}
    ps = R.build(PS_CULL, "main", "ps_6_0")
    assert [e["semantic"] for e in ps.manifest["entry"]["inputs"]] == ["SV_Position"]
    twin = R.twin_of(ps)
    assert twin is not None
    assert [e[0] for e in compiled_signatures(check_dxil(twin.binary).ir)[0]] == ["SV_Position"]
    bad = "float4 main(float4 pos : SV_Position, bool2 c : SV_CullPrimitive) : SV_Target { return c.x; }"
    for target in ("spirv", "dxil"):
        assert R.errors(R.compile_hlsl(bad, "main", "ps_6_5", target)) == [
            f"1:{bad.index(' c :') + 2}: invalid type 'bool2' for semantic 'SV_CullPrimitive': it takes a scalar (bool)"]


def test_front_uses_are_dxcs_matrix():
    """semantics.SYSTEM_VALUES' (stage, direction) uses, at the points one direction of a stage names alone, are
    DXC's non-NA cells (the tessellation and geometry inputs are SPECIAL_POINTS')."""
    from shaderbuild.front.semantics import SYSTEM_VALUES

    points = {"VSIn": ("vertex", "in"), "VSOut": ("vertex", "out"), "PSIn": ("pixel", "in"),
              "PSOut": ("pixel", "out"), "GSOut": ("geometry", "out"), "MSOut": ("mesh", "out"),
              "MSPOut": ("mesh", "prim"), "CSIn": ("compute", "in"), "MSIn": ("mesh", "in"),
              "ASIn": ("amplification", "in")}
    compute = {"SV_DispatchThreadID", "SV_GroupID", "SV_GroupThreadID", "SV_GroupIndex"}
    matrix = {**DXC_MATRIX, **{s: dict.fromkeys(("CSIn", "MSIn", "ASIn"), NIS) for s in compute}}
    assert {sv.name for sv in SYSTEM_VALUES.values()} == set(matrix) - {""}
    for sv in SYSTEM_VALUES.values():
        for point, pair in points.items():
            ours = pair in sv.uses or pair in sv.plain or (sv.name, pair) == ("SV_Target", ("pixel", "out"))
            assert ours == (point in matrix[sv.name]), (sv.name, point)


# the same semantics per control point and among the patch constants: two signatures, each with its own
# semantics (DXC checks indices per signature), so both compile; the domain shader tells them apart
HS_TWICE = """
struct CP { float4 pos : SV_Position; float val : VAL; };
struct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; float4 pos : SV_Position; float val : VAL; };
PC constants(InputPatch<CP, 3> ip) {
    PC o;
    o.e[0] = 1; o.e[1] = 1; o.e[2] = 1; o.i = 1;
    o.pos = float4(ip[2].val, 0, 0, 0);
    o.val = ip[0].val + ip[1].val;
    return o;
}
[domain("tri")] [partitioning("integer")] [outputtopology("triangle_cw")]
[outputcontrolpoints(3)] [patchconstantfunc("constants")]
CP main(InputPatch<CP, 3> patch, uint i : SV_OutputControlPointID) { CP o = patch[i]; o.val *= 2; return o; }
"""
VS_TWICE = """
struct CP { float4 pos : SV_Position; float val : VAL; };
static const float2 P[6] = { float2(-1, -1), float2(1, -1), float2(-1, 1), float2(1, -1), float2(1, 1), float2(-1, 1) };
CP main(uint id : SV_VertexID) { CP o; o.pos = float4(P[id], 0, 1); o.val = id * 4 + 1; return o; }
"""
DS_TWICE = """
struct CP { float4 pos : SV_Position; float val : VAL; };
struct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; float4 pos : SV_Position; float val : VAL; };
struct O { float4 pos : SV_Position; nointerpolation float4 color : COLOR; };
[domain("tri")]
O main(PC pc, float3 b : SV_DomainLocation, const OutputPatch<CP, 3> p) {
    O o;
    o.pos = b.x * p[0].pos + b.y * p[1].pos + b.z * p[2].pos;
    o.color = float4(pc.pos.x, pc.val, p[1].val, p[2].val) / 255;
    return o;
}
"""


def test_a_semantic_per_control_point_and_per_patch():
    """SV_Position and VAL both per control point and among the patch constants (they were 'used more than
    once'): drawn, the patch constants and the control points each reach the domain shader."""
    from lang.test_stages11 import PS_COLOR, W, draw_tess

    (px,) = draw_tess(VS_TWICE, HS_TWICE, DS_TWICE, PS_COLOR, 3, 6)
    for pid in range(2):
        vals = [(3 * pid + k) * 4 + 1 for k in range(3)]
        want = (vals[2], vals[0] + vals[1], 2 * vals[1], 2 * vals[2])
        for y in range(W):
            for x in range(W):
                if x + y != W - 1 and (x + y < W - 1) == (pid == 0):
                    assert R.pixel(px, W, x, y) == want, (pid, x, y)
