"""HLSL 2021 bit-fields: where each one lives in its struct (DXC's packing) and how it is read, written and
initialised.

A run of bit-fields is stored in ordinary integer fields of the struct ("units", named `bitfield.N`), so
layouts, copies and buffers need nothing new.  As DXC packs them: from bit 0 upwards in a unit of the
declared type; a field that does not fit, an unnamed `T : 0`, or a type of another size starts a new unit;
`int` and `uint` of one size share a unit (its type is the first field's).
"""

from __future__ import annotations

from ... import ir
from ...diagnostics import SourceLoc, error
from ...records import ValueRecord
from .. import ast
from .base import SemaBase

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

if TYPE_CHECKING:      # a type alias: for type checkers only (no collections.abc at run time)
    WriteBack = Callable[[ir.Expr, SourceLoc | None], list[ir.Stmt]]


class Bitfield(ValueRecord):
    """A Record, not a NamedTuple: typing's NamedTuple compiles its string annotations at import (cold start)."""

    unit: int           # index of the unit field in the struct
    offset: int         # first bit, from the least significant
    width: int
    type: ir.Scalar     # the declared type: int or uint of the unit's width


class BitfieldLowering(SemaBase):
    """Mixin of Analyzer."""

    def add_bitfield(self, f: ast.VarDecl, fields: list[ir.StructField], bits: dict[str, Bitfield],
                     unit: list) -> None:
        """Place bit-field `f` (its width in f.bitfield); `unit` holds the open unit [index, type, bits used]."""
        assert f.bitfield is not None
        name = f.name or "(anonymous)"
        t = self.resolve_type(f.type, f.dims)
        if f.semantic is not None or f.register is not None or f.packoffset is not None:
            raise error("bitfields are not allowed with HLSL annotations", f.loc)
        if f.dims or not (isinstance(t, ir.Scalar) and t.kind in ("int", "uint")):
            raise error(f"bit-field '{name}' has non-integral type '{t}'", f.loc)
        width = self.const_int(f.bitfield)
        if width < 0:
            raise error(f"bit-field '{name}' has negative width ({width})", f.bitfield.loc)
        if width > t.width:
            raise error(f"width of bit-field '{name}' ({width} bits) exceeds the width of its type ({t.width} bits)",
                        f.bitfield.loc)
        if width == 0:
            if f.name:
                raise error(f"named bit-field '{f.name}' has zero width", f.bitfield.loc)
            unit.clear()
            return
        if not unit or unit[1].width != t.width or unit[2] + width > t.width:
            fields.append(ir.StructField(f"bitfield.{len(fields)}", t))
            unit[:] = [len(fields) - 1, t, 0]
        if f.name:
            bits[f.name] = Bitfield(unit[0], unit[2], width, t)
        unit[2] += width

    def bitfield_value(self, unit_value: ir.Expr, b: Bitfield) -> ir.Expr:
        """The field's value from its unit's: shifted up to the top, then down (sign-extending an int)."""
        v = _as(unit_value, b.type)
        bits = b.type.width
        if b.offset == 0 and b.width == bits:
            return v
        if bits - b.offset - b.width:
            v = ir.Binary("shl", v, ir.Const(b.type, bits - b.offset - b.width), b.type)
        return ir.Binary("shr", v, ir.Const(b.type, bits - b.width), b.type)

    def bitfield_insert(self, unit_value: ir.Expr, value: ir.Expr, b: Bitfield) -> ir.Expr:
        """`unit_value` with the field's bits replaced by the low bits of `value` (of the field's type)."""
        u = ir.Scalar("uint", b.type.width)
        mask = ((1 << b.width) - 1) << b.offset
        kept = ir.Binary("bitand", _as(unit_value, u), ir.Const(u, ~mask & ((1 << u.width) - 1)), u)
        new = ir.Binary("bitand", ir.Binary("shl", _as(value, u), ir.Const(u, b.offset), u), ir.Const(u, mask), u)
        return _as(ir.Binary("bitor", kept, new, u), unit_value.type)

    def bitfield_place(self, base: ir.Expr, st: ir.Struct, b: Bitfield) -> ir.Expr:
        """A temporary holding the field; every store to it is written back into the unit (see emit())."""
        unit = ir.FieldRef(base, b.unit, st.fields[b.unit].type)
        tmp = self.temp(b.type)
        self.emit(ir.Store(ir.VarRef(tmp), self.bitfield_value(self.load(unit), b)))

        def write_back(value: ir.Expr, loc: SourceLoc | None) -> list[ir.Stmt]:
            return [ir.Store(unit, self.bitfield_insert(ir.Load(unit, unit.type), value, b), loc)]
        self.scatter_temps[id(tmp)] = (tmp, write_back)
        self.write_roots[id(tmp)] = unit
        return ir.VarRef(tmp)

    def holds_bitfields(self, t: ir.Type) -> bool:
        while isinstance(t, ir.Array):
            t = t.elem
        return isinstance(t, ir.Struct) and (t.name in self.bitfields or any(self.holds_bitfields(f.type) for f in t.fields))

    # ---------------------------------------------------------- flattening (initializer lists, casts)
    def flat_count(self, t: ir.Type) -> int:
        """ir.component_count, counting each bit-field as one component (not its unit)."""
        if isinstance(t, ir.Array):
            return (t.size or 0) * self.flat_count(t.elem)
        if isinstance(t, ir.Struct):
            members = self.declared_members(t)
            return sum(1 if isinstance(m, Bitfield) else self.flat_count(t.fields[m].type) for m in members)
        return ir.component_count(t)

    def declared_members(self, t: ir.Struct) -> list[int | Bitfield]:
        """The struct's members in declaration order: field indices, with each unit replaced by its bit-fields."""
        bits = self.bitfields.get(t.name)
        if not bits:
            return list(range(len(t.fields)))
        by_unit: dict[int, list[Bitfield]] = {}
        for b in bits.values():
            by_unit.setdefault(b.unit, []).append(b)
        out: list[int | Bitfield] = []
        for i in range(len(t.fields)):
            if t.fields[i].name.startswith("bitfield."):
                in_unit: list[Bitfield] = sorted(by_unit.get(i, []), key=_offset)
                out.extend(in_unit)
            else:
                out.append(i)
        return out

    def build_bitfield_struct(self, it, t: ir.Struct, loc: SourceLoc) -> ir.Expr:
        """A struct with bit-fields from flattened components, one per declared member."""
        parts: list[ir.Expr | None] = [None] * len(t.fields)
        for m in self.declared_members(t):
            if isinstance(m, Bitfield):
                unit = parts[m.unit] or ir.Const(t.fields[m.unit].type, 0)
                parts[m.unit] = self.bitfield_insert(unit, self.convert(next(it), m.type, loc), m)
            else:
                parts[m] = self._build(it, t.fields[m].type, loc)
        return ir.Construct(t, [p if p is not None else ir.Const(t.fields[i].type, 0) for i, p in enumerate(parts)])

    def bitfield_components(self, x: ir.Expr, t: ir.Struct, loc: SourceLoc) -> list[ir.Expr]:
        out: list[ir.Expr] = []
        for m in self.declared_members(t):
            if isinstance(m, Bitfield):
                out.append(self.bitfield_value(ir.Extract(x, m.unit, t.fields[m.unit].type), m))
            else:
                out.extend(self.components(ir.Extract(x, m, t.fields[m].type), loc))
        return out


def _offset(b: Bitfield) -> int:
    return b.offset


def _as(x: ir.Expr, t: ir.Type) -> ir.Expr:
    """x reinterpreted as t (an int/uint of the same width), or x itself."""
    return x if x.type == t else ir.Bitcast(x, t)
