"""Signature packing: where each stage I/O element lands in the 32 x 4-component
register space, following DXC's default (prefix-stable) allocator.

Facts (docs/DXIL.rst "Signature packing", the SigPoint and semantic
interpretation tables; DxilSignatureAllocator; DxilPackSignatureElement):

* every (semantic, signature point) pair has an *interpretation* (the table
  is signature.py's _SEMANTICS): arbitrary, SV (system value), SGV (system
  generated, packed after/right of the rest), ClipCull, NotPacked (in the
  signature, no register: SV_Depth), Shadow (in the signature, no register,
  read by an intrinsic: SV_SampleIndex) or NotInSig (no element at all, read
  by an intrinsic: SV_Coverage as a PS input);
* VS inputs are not packed: each element starts a new row at column 0;
* PS outputs: SV_Target<n> takes row n, column 0; everything else is unpacked;
* everything else is packed in declaration order, each element at the first
  (row, column) that fits: one interpolation mode and one data width per row,
  a system value, clip/cull distance or tess factor never left of an arbitrary
  value, an SGV never left of anything else, multi-row (array) elements never
  share a row with an SV/SGV, and SV_ClipDistance/SV_CullDistance share at most
  two rows of their own;
* a tess factor array (SV_TessFactor, a quad's SV_InsideTessFactor) starts in
  column 3 (PackPrefixStable's PackNext(SE, startRow, numRows, 3)) and only
  goes into rows whose indexing is a part of its own (DetectRowConflict's
  kConflictsWithIndexedTessFactor), so a one-row tess factor takes a row of
  its own and an arbitrary patch constant may fill the columns left of them.
"""

from __future__ import annotations

from shaderbuild.records import DataRecord

__all__ = ["ARB", "SV", "SGV", "CLIPCULL", "NOT_PACKED", "SHADOW", "NOT_IN_SIG", "TARGET", "TESS_FACTOR", "MAX_ROWS",
           "SIG_POINTS", "sig_point", "is_allocated", "pack"]

ARB, SV, SGV, CLIPCULL, NOT_PACKED, SHADOW, NOT_IN_SIG, TARGET, TESS_FACTOR = (
    "Arb", "SV", "SGV", "ClipCull", "NotPacked", "Shadow", "NotInSig", "Target", "TessFactor")
MAX_ROWS = 32
_ALLOCATED = frozenset({ARB, SV, SGV, CLIPCULL, TARGET, TESS_FACTOR})

# (stage, is_output) -> DXIL SigPoint, and its packing kind (DXIL.rst SigPoint table); a hull
# shader's patch constants are its output 'patch' signature (PCOut), a domain shader's its input
# one (DSIn); their control points are HSCPIn/HSCPOut and DSCPIn; a geometry shader's per-vertex
# inputs are GSVIn
SIG_POINTS = ("VSIn", "VSOut", "PSIn", "PSOut", "HSCPIn", "HSCPOut", "PCOut", "DSCPIn", "DSIn", "DSOut",
              "GSVIn", "GSOut", "MSOut", "MSPOut")
_SIG_POINTS = {("vertex", False): "VSIn", ("vertex", True): "VSOut", ("pixel", False): "PSIn",
               ("pixel", True): "PSOut", ("hull", False): "HSCPIn", ("hull", True): "HSCPOut",
               ("hull", "patch"): "PCOut", ("domain", False): "DSCPIn", ("domain", "patch"): "DSIn",
               ("domain", True): "DSOut", ("geometry", False): "GSVIn", ("geometry", True): "GSOut",
               ("mesh", True): "MSOut", ("mesh", "patch"): "MSPOut"}     # a mesh shader's vertices / primitives
_PACKING_KIND = {"VSIn": "InputAssembler", "VSOut": "Vertex", "PSIn": "Vertex", "PSOut": "Target",
                 "HSCPIn": "Vertex", "HSCPOut": "Vertex", "PCOut": "PatchConstant", "DSCPIn": "Vertex",
                 "DSIn": "PatchConstant", "DSOut": "Vertex", "GSVIn": "Vertex", "GSOut": "Vertex", "MSOut": "Vertex",
                 "MSPOut": "Vertex"}



def sig_point(stage: str, is_output: bool | str) -> str:
    """is_output: True, False, or 'patch' (the patch-constant signature of a hull/domain shader)."""
    return _SIG_POINTS[(stage, is_output)]


def is_allocated(interp_kind: str) -> bool:
    """Does an element of this interpretation get a register (DxilSignature::ShouldBeAllocated)?"""
    return interp_kind in _ALLOCATED


TYPE_CHECKING = False
if TYPE_CHECKING:      # no typing at run time (~2 ms of a cold compile); only mypy needs these
    from typing import Protocol, TypeVar

    _P = TypeVar("_P", bound="Packable")

    class Packable(Protocol):
        interpretation: str
        interp: int            # DXIL::InterpolationMode
        data_width: int        # 16 or 32 (0: undefined)
        rows: int
        cols: int
        index: int             # first semantic index
        kind: int              # DXIL::SemanticKind (16 = Target)
        start_row: int
        start_col: int


# ------------------------------------------------------------------ the register file
# Each register's four components as 4-bit masks: which are occupied, and for each element kind
# which free components it may no longer take (a kind blocked left/right of a placed element).
# An element fits at (row, col) when, on each of its rows, the register's constraints allow it and
# none of its components is occupied or blocked for its kind: one OR of masks per row and one
# table lookup per row replace DXC's per-component loops (same first-fit order: rows, then columns).
_F_ARB, _F_SGV, _F_SV, _F_TESS, _F_CLIPCULL = 2, 4, 8, 16, 32
_FLAG = {ARB: _F_ARB, SV: _F_SV, SGV: _F_SGV, CLIPCULL: _F_CLIPCULL, TESS_FACTOR: _F_TESS}
_KINDS = (_F_ARB, _F_SGV, _F_SV, _F_CLIPCULL, _F_TESS)
_CONFLICTS_WITH_INDEXED = _F_SGV | _F_SV
# kinds that may not sit left / right of a component of the given kind (DxilSignatureAllocator's
# GetConflictFlagsLeft / GetConflictFlagsRight)
_BLOCK_LEFT = {_F_ARB: (_F_SGV, _F_SV, _F_CLIPCULL, _F_TESS), _F_SV: (_F_SGV,), _F_CLIPCULL: (_F_SGV,),
               _F_TESS: (_F_SGV,), _F_SGV: ()}
_BLOCK_RIGHT = {_F_SGV: (_F_ARB, _F_SV, _F_CLIPCULL, _F_TESS), _F_SV: (_F_ARB,), _F_CLIPCULL: (_F_ARB,),
                _F_TESS: (_F_ARB,), _F_ARB: ()}
_FIXES_INDEXING = _F_SGV | _F_SV | _F_TESS
_INDEXED_UP, _INDEXED_DOWN = 1, 2
# _FIRST_COL[taken][cols]: the first column of `cols` free components in a register whose taken
# components are the 4-bit mask `taken`, or -1
_FIRST_COL = tuple(tuple(next((c for c in range(4 - n + 1) if not (taken >> c) & ((1 << n) - 1)), -1)
                         if n else -1 for n in range(5)) for taken in range(16))


def _index_flags(r: int, rows: int) -> int:
    return (_INDEXED_UP if r > 0 else 0) | (_INDEXED_DOWN if r < rows - 1 else 0)


class _Shape(DataRecord):
    """What the allocator needs of an element (also used for clip/cull placeholders)."""

    flag: int
    interp: int
    width: int
    rows: int
    cols: int


class _Allocator:
    """DXC's register file (DxilSignatureAllocator), one list entry per register per property."""

    __slots__ = ("n", "occupied", "blocked", "interp", "width", "index_flags", "index_fixed")

    def __init__(self, n: int = MAX_ROWS) -> None:
        self.n = n
        self.occupied = [0] * n
        self.blocked = {k: [0] * n for k in _KINDS}      # kind -> per register: components it may not take
        self.interp = [0] * n          # 0: undefined, no constraint yet
        self.width = [0] * n
        self.index_flags = [0] * n
        self.index_fixed = [False] * n

    def _taken(self, s: _Shape, row: int) -> int:
        """The components of rows row..row+s.rows-1 that `s` may not use (15: the rows refuse it)."""
        flag, interp, width, rows = s.flag, s.interp, s.width, s.rows
        occupied, blocked = self.occupied, self.blocked[flag]
        taken = 0
        for r in range(rows):
            reg = row + r
            have = self.index_flags[reg]
            if have and flag & _CONFLICTS_WITH_INDEXED:
                return 15
            mine = _index_flags(r, rows)
            if self.index_fixed[reg] and (mine | have) != have:
                return 15
            if flag == _F_TESS and (mine | have) != mine:
                return 15
            i = self.interp[reg]
            if i and i != interp:
                return 15
            w = self.width[reg]
            if w and w != width:
                return 15
            taken |= occupied[reg] | blocked[reg]
        return taken

    def find(self, s: _Shape, first: int = 0, last: int | None = None, start_col: int = 0) -> tuple[int, int] | None:
        """The first (row, col) at or after row `first` (rows end before `last`), col at or after
        `start_col`, where `s` fits."""
        end = self.n if last is None else min(last, self.n)
        first_col = _FIRST_COL
        below = (1 << start_col) - 1
        for row in range(first, end - s.rows + 1):
            col = first_col[self._taken(s, row) | below][s.cols]
            if col >= 0:
                return row, col
        return None

    def place(self, s: _Shape, row: int, col: int) -> None:
        flag = s.flag
        left_kinds, right_kinds = _BLOCK_LEFT[flag], _BLOCK_RIGHT[flag]
        mine = ((1 << s.cols) - 1) << col
        below = (1 << col) - 1
        above = 15 & ~(below | mine)
        for r in range(s.rows):
            reg = row + r
            self.interp[reg], self.width[reg] = s.interp, s.width
            self.index_flags[reg] |= _index_flags(r, s.rows)
            if flag & _FIXES_INDEXING:
                self.index_fixed[reg] = True
            free = 15 & ~self.occupied[reg]
            for k in left_kinds:
                self.blocked[k][reg] |= free & below
            for k in right_kinds:
                self.blocked[k][reg] |= free & above
            self.occupied[reg] |= mine


def _shape(e: Packable) -> _Shape:
    return _Shape(_FLAG[e.interpretation], e.interp, e.data_width, e.rows, e.cols)


def _clear(e: Packable) -> None:
    e.start_row, e.start_col = -1, -1


# ------------------------------------------------------------------ strategies
def _pack_input_assembler(elems: list[Packable]) -> None:
    row = 0
    for e in elems:
        e.start_row, e.start_col = row, 0
        row += e.rows


def _pack_targets(elems: list[Packable]) -> None:
    for e in elems:
        if e.interpretation == TARGET:
            e.start_row, e.start_col = e.index, 0
        else:
            _clear(e)


class _ClipCull:
    """SV_ClipDistance/SV_CullDistance, prefix-stable: packed among themselves into at most two
    registers, each reserved whole in the main allocator when first needed."""

    def __init__(self, main: _Allocator) -> None:
        self.main = main
        self.sub = _Allocator(2)
        self.rows: list[int] = []        # main-allocator row of sub-row 0 and 1
        self.indexed = False

    def place(self, e: Packable) -> bool:
        s = _shape(e)
        spot = self.sub.find(s)
        if spot is None:
            return False
        sub_row, col = spot
        needed = sub_row + s.rows
        if s.rows > 1 and not self.indexed:
            if len(self.rows) == 2 and self.rows[0] + 1 != self.rows[1]:
                return False
            self.indexed = True
        if needed > len(self.rows) and not self._reserve(s, needed):
            return False
        self.sub.place(s, sub_row, col)
        e.start_row, e.start_col = self.rows[sub_row], col
        return True

    def _reserve(self, s: _Shape, needed: int) -> bool:
        holder = _Shape(s.flag, s.interp, s.width, 1, 4)
        if self.indexed:
            if not self.rows:                       # one two-row placeholder
                holder.rows = 2
                spot = self.main.find(holder)
                if spot is None:
                    return False
                self.main.place(holder, *spot)
                self.rows = [spot[0], spot[0] + 1]
                return True
            # DXC searches from the row after the first one; its row count argument is that row + 1
            # (PackNext(DE, row0 + 1, row0 + 2)), so the search window is wider than one row
            first = self.rows[0] + 1
            spot = self.main.find(holder, first, first + self.rows[0] + 2)
            if spot is None:
                return False
            self.main.place(holder, *spot)
            self.rows.append(spot[0])
            return True
        while len(self.rows) < needed:
            spot = self.main.find(holder)
            if spot is None:
                return False
            self.main.place(holder, *spot)
            self.rows.append(spot[0])
        return True


def _pack_prefix_stable(elems: list[Packable]) -> None:
    main = _Allocator()
    clip = _ClipCull(main)
    for e in elems:
        _clear(e)
        if e.interpretation == CLIPCULL:
            clip.place(e)
            continue
        s = _shape(e)
        spot = main.find(s, start_col=3 if s.flag == _F_TESS and s.rows > 1 else 0)
        if spot is not None:
            main.place(s, *spot)
            e.start_row, e.start_col = spot


_STRATEGIES = {"InputAssembler": _pack_input_assembler, "Vertex": _pack_prefix_stable, "Target": _pack_targets,
               "PatchConstant": _pack_prefix_stable}


def pack(elems: list[_P], point: str) -> list[_P]:
    """Assign start_row/start_col to every element (-1/-1 for those without a register), in place.

    Elements whose interpretation takes no register are left unallocated; an element that does
    not fit in 32 rows stays unallocated too: those are returned (the caller reports them)."""
    allocated: list[Packable] = []
    for e in elems:
        if e.interpretation in _ALLOCATED:
            allocated.append(e)
        else:
            _clear(e)
    _STRATEGIES[_PACKING_KIND[point]](allocated)
    return [e for e in elems if e.interpretation in _ALLOCATED and e.start_row < 0]
