"""Buffer and constant-buffer access: component byte offsets and the dx.op
loads/stores (rawBuffer* from SM 6.2, buffer* below; cbufferLoadLegacy).

Offsets inside a structured-buffer element come from shaderbuild.ir.layout's
'dx_structured' rule (4-byte aligned C packing), cbuffers from 'dx_cbuffer'.
"""

from __future__ import annotations

from shaderbuild import ir
from shaderbuild.diagnostics import error
from shaderbuild.ir.layout import layout_of
from shaderbuild.lightstd import cache

from .llvm import types as T
from .llvm.values import ConstInt, Undef, Value
from .ops import overload_name, resret
from .places import BufferPlace, CBufPlace, to_memory, to_register
from .scalarize import component_types, memory_scalar

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from .lowering import Lowering

__all__ = ["component_offsets", "BufferAccess", "buffer_coords"]

STRUCTURED, RAW, TYPED, TBUFFER = 12, 11, 10, 15


def _size(s: ir.Scalar) -> int:
    return 4 if s.kind == "bool" else s.width // 8


@cache
def component_offsets(t: ir.Type, rule: str, row_major: bool = False) -> tuple[int, ...]:
    """Byte offset of every canonical component of `t` under layout `rule`."""
    if isinstance(t, ir.Scalar):
        return (0,)
    if isinstance(t, ir.Vector):
        return tuple(i * _size(t.elem) for i in range(t.size))
    if isinstance(t, ir.Matrix):
        lay = layout_of(t, rule, row_major)
        es, ms = _size(t.elem), lay.matrix_stride or 0
        rm = lay.row_major if lay.row_major is not None else row_major
        return tuple((r * ms + c * es) if rm else (c * ms + r * es) for r in range(t.rows) for c in range(t.cols))
    if isinstance(t, ir.Array):
        lay = layout_of(t, rule, row_major)
        assert lay.array_stride is not None     # an array's layout has one
        inner = component_offsets(t.elem, rule, row_major)
        return tuple(j * lay.array_stride + o for j in range(t.size or 0) for o in inner)
    if isinstance(t, ir.Struct):
        lay = layout_of(t, rule, row_major)
        out: list[int] = []
        for f, off in zip(t.fields, lay.offsets):
            rm = row_major if f.row_major is None else f.row_major
            out += [off + o for o in component_offsets(f.type, rule, rm)]
        return tuple(out)
    raise error(f"type '{t}' cannot be stored in a buffer")


def _is64(s: ir.Scalar) -> bool:
    return s.kind != "bool" and s.width == 64


def _runs(scalars: Sequence[ir.Scalar], offsets: Sequence[int], comps: list[int], split: bool) -> list[list[int]]:
    """Group components into runs of <= 4 consecutive same-typed values (<= 2 of a 64-bit type moved as
    i32 pairs when `split`: four words; decided per run, as one element mixes 32- and 64-bit members)."""
    runs: list[list[int]] = []
    for c in comps:
        if runs:
            last = runs[-1]
            p = last[-1]
            s = scalars[c]
            if (memory_scalar(scalars[p]) == memory_scalar(s) and offsets[c] == offsets[p] + _size(s)
                    and len(last) < (2 if split and _is64(s) else 4)):
                last.append(c)
                continue
        runs.append([c])
    return runs


@cache
def _load_plan(t: ir.Type, row_major: bool, split: bool) -> tuple[tuple, int]:
    """How BufferAccess.read loads a structured/raw element of type `t` (a per-type fact):
    (runs, component count); a run is (components, byte offset of its first, memory type,
    loaded as i32 pairs (64-bit below SM 6.3), which components are bools).  In memory order
    (as DXC reads a column_major matrix: a column per load), so that runs are long."""
    scalars = component_types(t)
    offs = component_offsets(t, "dx_structured", row_major)
    in_memory = sorted(range(len(scalars)), key=offs.__getitem__)
    plan = []
    for run in _runs(scalars, offs, in_memory, split):
        mt = memory_scalar(scalars[run[0]])
        plan.append((tuple(run), offs[run[0]], mt, split and mt.width == 64,
                     tuple(scalars[c].kind == "bool" for c in run)))
    return tuple(plan), len(scalars)


def buffer_coords(L: Lowering, p: BufferPlace, extra: int = 0) -> list[Value]:
    """(coord0, coord1, coord2) of an element access for atomics / loads."""
    u = Undef(T.i32)
    off = L.add_const(p.dyn_offset, p.offset + extra) if p.dyn_offset is not None else ConstInt(T.i32, p.offset + extra)
    if p.res.shape == STRUCTURED:
        assert not isinstance(p.index, list)    # one element index
        return [p.index, off, u]
    if p.res.shape == RAW:
        assert not isinstance(p.index, list)    # one byte address
        return [L.add(p.index, off), u, u]
    idx = p.index if isinstance(p.index, list) else [p.index]
    return (list(idx) + [u, u, u])[:3]


class BufferAccess:
    def __init__(self, L: Lowering) -> None:
        self.L = L

    def _offsets(self, p: BufferPlace) -> tuple[list[ir.Scalar], list[int]]:
        scalars = list(component_types(p.type))
        if p.res.shape in (STRUCTURED, RAW):
            offs = list(component_offsets(p.type, "dx_structured", bool(p.row_major)))
        else:
            offs = [i * _size(s) for i, s in enumerate(scalars)]
        return scalars, offs

    def _typed_coords(self, p: BufferPlace) -> list[Value]:
        idx = p.index if isinstance(p.index, list) else [p.index]
        return idx

    # ------------------------------------------------------------ loads
    def read(self, p: BufferPlace) -> list[Value]:
        L = self.L
        if p.res.shape not in (STRUCTURED, RAW):
            return self._typed_read(p, list(component_types(p.type)))
        plan, n = _load_plan(p.type, bool(p.row_major), L.sm < (6, 3))
        out: list[Value | None] = [None] * n
        for run, offset, mt, split64, bools in plan:
            if split64:
                words = self._load_words(p, offset, 2 * len(run))
                for k, c in enumerate(run):
                    out[c] = self._join64(words[2 * k], words[2 * k + 1], mt)
                continue
            for c, v, is_bool in zip(run, self._load_run(p, offset, mt, len(run)), bools):
                # a run may mix bool and uint members (to_register)
                out[c] = L.b.icmp("ne", v, ConstInt(T.i32, 0)) if is_bool else v
        return out  # type: ignore[return-value]

    def _load_run(self, p: BufferPlace, offset: int, mt: T.IntType | T.FloatType, n: int) -> list[Value]:
        L = self.L
        ov = overload_name(mt)
        coords = buffer_coords(L, p, offset)
        if L.sm >= (6, 2):
            mask = ConstInt(T.i8, (1 << n) - 1)
            rr = resret(L.ops.call(L.b, "RawBufferLoad", ov, [p.handle, coords[0], coords[1], mask,
                                                               ConstInt(T.i32, max(1, mt.width // 8))]))
        else:
            rr = resret(L.ops.call(L.b, "BufferLoad", ov, [p.handle, coords[0], coords[1]]))
        return L.b.extract_values(rr, n)

    def _load_words(self, p: BufferPlace, offset: int, n: int) -> list[Value]:
        out: list[Value] = []
        for start in range(0, n, 4):
            out += self._load_run(p, offset + 4 * start, T.i32, min(4, n - start))
        return out

    def _join64(self, lo: Value, hi: Value, mt: T.Type) -> Value:
        L = self.L
        if mt == T.double:
            return L.ops.call(L.b, "MakeDouble", "f64", [lo, hi])
        wide = L.b.shl(L.b.zext(hi, T.i64), ConstInt(T.i64, 32))
        return L.b.or_(wide, L.b.zext(lo, T.i64))

    def _split64(self, v: Value) -> list[Value]:
        L = self.L
        if v.type == T.double:
            pair = L.ops.call(L.b, "SplitDouble", "f64", [v])
            return [L.b.extract_value(pair, 0), L.b.extract_value(pair, 1)]
        return [L.b.trunc(v, T.i32), L.b.trunc(L.b.lshr(v, ConstInt(T.i64, 32)), T.i32)]

    def _typed_read(self, p: BufferPlace, scalars: list[ir.Scalar]) -> list[Value]:
        L = self.L
        s = scalars[0]
        wide = s.width == 64                    # 64-bit components: pairs of 32-bit words (classify)
        ov = "i32" if wide else overload_name(memory_scalar(s))
        coords = self._typed_coords(p)
        u = Undef(T.i32)
        if p.res.shape == TYPED:
            rr = resret(L.ops.call(L.b, "BufferLoad", ov, [p.handle, coords[0], u]))
        else:
            c = (coords + [u, u, u])[:3]
            mip = u if p.res.res_class == "UAV" else ConstInt(T.i32, 0)
            rr = resret(L.ops.call(L.b, "TextureLoad", ov, [p.handle, mip, *c, u, u, u]))
        if wide:
            mt = memory_scalar(s)
            return [self._join64(L.b.extract_value(rr, 2 * k), L.b.extract_value(rr, 2 * k + 1), mt)
                    for k in range(len(scalars))]
        return [to_register(L, L.b.extract_value(rr, k), s) for k in range(len(scalars))]

    # ------------------------------------------------------------ stores
    def write(self, p: BufferPlace, values: list[Value], comps: list[int] | None) -> None:
        L = self.L
        scalars, offs = self._offsets(p)
        comps = list(range(len(scalars))) if comps is None else comps
        vals = dict(zip(comps, values, strict=True))
        if p.res.shape not in (STRUCTURED, RAW):
            return self._typed_write(p, scalars, vals)
        split = L.sm < (6, 3)
        for run in _runs(scalars, offs, comps, split):
            s = scalars[run[0]]
            mt = memory_scalar(s)
            vs = [to_memory(L, vals[c], scalars[c]) for c in run]
            if split and mt.width == 64:
                words = [w for v in vs for w in self._split64(v)]
                self._store_run(p, offs[run[0]], T.i32, words)
                continue
            self._store_run(p, offs[run[0]], mt, vs)
        return None

    def _store_run(self, p: BufferPlace, offset: int, mt: T.IntType | T.FloatType, values: list[Value]) -> None:
        L = self.L
        ov = overload_name(mt)
        coords = buffer_coords(L, p, offset)
        v = values + [Undef(mt)] * (4 - len(values))
        mask = ConstInt(T.i8, (1 << len(values)) - 1)
        if L.sm >= (6, 2):
            L.ops.call(L.b, "RawBufferStore", ov, [p.handle, coords[0], coords[1], *v, mask,
                                                    ConstInt(T.i32, max(1, mt.width // 8))])
        else:
            L.ops.call(L.b, "BufferStore", ov, [p.handle, coords[0], coords[1], *v, mask])

    def _typed_write(self, p: BufferPlace, scalars: list[ir.Scalar], vals: dict[int, Value]) -> None:
        L = self.L
        s = scalars[0]
        mt = memory_scalar(s)
        ov = overload_name(mt)
        n = len(scalars)
        if len(vals) != n:                      # typed UAV stores write whole elements
            old = self._typed_read(p, scalars)
            vals = {c: vals.get(c, old[c]) for c in range(n)}
        v = [to_memory(L, vals[c], s) for c in range(n)]
        if mt.width == 64:                      # pairs of 32-bit words (classify)
            v = [w for x in v for w in self._split64(x)]
            mt, ov = T.i32, "i32"
        v += [v[0]] * (4 - len(v))              # typed UAV stores must write all four components
        mask = ConstInt(T.i8, 15)
        coords = self._typed_coords(p)
        u = Undef(T.i32)
        if p.res.shape == TYPED:
            L.ops.call(L.b, "BufferStore", ov, [p.handle, coords[0], u, *v, mask])
        else:
            c = (coords + [u, u, u])[:3]
            L.ops.call(L.b, "TextureStore", ov, [p.handle, *c, *v, mask])

    # ------------------------------------------------------------ cbuffers
    def read_cbuffer(self, p: CBufPlace) -> list[Value]:
        L = self.L
        plan, n = _cbuffer_plan(p.type, bool(p.row_major))
        rows: dict[tuple, Value] = {}       # the row loads of this read (repeats across reads: cse.py)
        out: list[Value | None] = [None] * n
        handle, shape, base = p.handle, p.res.shape, p.offset
        b = L.b
        for k, off, ov, wide, size, is_bool in plan:
            if wide == 16 and not L.native16:
                raise error("16-bit cbuffer members need -enable-16bit-types in the DXIL backend")
            off += base
            row = off // 16
            key = (handle, shape, row, ov)
            call = rows.get(key)
            if call is None:
                rv = L.add_const(p.dyn_row, row) if p.dyn_row is not None else ConstInt(T.i32, row)
                if shape == TBUFFER:   # a tbuffer is an SRV: bufferLoad of 16-byte row `row`, as DXC does
                    if wide == 64:
                        raise error("64-bit tbuffer members are not supported by the DXIL backend yet")
                    call = L.ops.call(b, "BufferLoad", ov, [handle, rv, Undef(T.i32)])
                else:
                    call = L.ops.call(b, "CBufferLoadLegacy", ov, [handle, rv])
                rows[key] = call
            index = (off % 16) // size
            ev = b.extract_value(call, index)
            out[k] = b.icmp("ne", ev, ConstInt(T.i32, 0)) if is_bool else ev
        return out  # type: ignore[return-value]  # the plan covers every component: no None is left


@cache
def _cbuffer_plan(t: ir.Type, row_major: bool) -> tuple[tuple, int]:
    """How BufferAccess.read_cbuffer reads a cbuffer value of type `t` (a per-type fact): per
    component in memory order (as DXC reads a column_major matrix: one row (a column), then its
    components): (component, byte offset, overload, memory width, byte size, is bool)."""
    scalars = component_types(t)
    offs = component_offsets(t, "dx_cbuffer", row_major)
    plan = []
    for k in sorted(range(len(scalars)), key=offs.__getitem__):
        s = scalars[k]
        mt = memory_scalar(s)
        plan.append((k, offs[k], overload_name(mt), mt.width, _size(s), s.kind == "bool"))
    return tuple(plan), len(scalars)
