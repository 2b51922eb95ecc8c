"""Scalarisation: IR types -> LLVM scalar types and flat component lists.

DXIL has no vectors, so every IR value becomes a list of scalar LLVM values in
*canonical order*: struct fields in order, array elements in order, vector
components, matrix components row by row.  Memory (locals, statics,
groupshared) is split the other way round, into one LLVM array per scalar
*leaf* ("structure of arrays", like DXC's SROA): `leaf_layout` says which leaf
and `leaf_order` which leaf element each canonical component lives in.
"""

from __future__ import annotations

from shaderbuild import ir
from shaderbuild.diagnostics import error
from shaderbuild.lightstd import cache
from shaderbuild.records import ValueRecord

from .llvm import types as T

__all__ = ["llvm_scalar", "memory_scalar", "LeafLayout", "leaf_layout", "leaf_order", "component_types", "count",
           "subrange", "field_leaf_base", "leaf_of_components", "MAX_VALUE_COMPONENTS", "MAX_LEAF_ELEMENTS"]

MAX_VALUE_COMPONENTS = 1 << 16      # a value (or a whole-aggregate copy) is scalarised: keep it bounded
MAX_LEAF_ELEMENTS = 1 << 22         # elements of one leaf array of a local / static / groupshared variable


_FLOATS = {16: T.f16, 32: T.f32, 64: T.double}
_REGISTER: dict[ir.Scalar, T.IntType | T.FloatType] = {}       # IR scalars are interned: one entry per kind/width


def llvm_scalar(s: ir.Scalar) -> T.IntType | T.FloatType:
    """The register type of an IR scalar (bool is i1)."""
    t = _REGISTER.get(s)
    if t is None:
        if s.kind == "bool":
            t = T.i1
        elif s.kind == "float":
            t = _FLOATS[s.width]
        else:
            t = T.IntType(s.width)
        _REGISTER[s] = t
    return t


def memory_scalar(s: ir.Scalar) -> T.IntType | T.FloatType:
    """The in-memory type of an IR scalar (bool is stored as i32, as DXC does)."""
    return T.i32 if s.kind == "bool" else llvm_scalar(s)


@cache
def count(t: ir.Type) -> int:
    """Number of scalar components, computed arithmetically (no expansion)."""
    if isinstance(t, ir.Scalar):
        return 1
    if isinstance(t, ir.Vector):
        return t.size
    if isinstance(t, ir.Matrix):
        return t.rows * t.cols
    if isinstance(t, ir.Array):
        if t.size is None:
            raise error(f"runtime-sized array '{t}' cannot be used as a value")
        return t.size * count(t.elem)
    if isinstance(t, ir.Struct):
        return sum(count(f.type) for f in t.fields)
    raise error(f"type '{t}' cannot be used as a value in the DXIL backend")


def _check_value_size(t: ir.Type) -> None:
    n = count(t)
    if n > MAX_VALUE_COMPONENTS:
        raise error(f"a value of type '{t}' has {n} components, too large for the DXIL backend "
                    f"(limit {MAX_VALUE_COMPONENTS}); access it element by element")


@cache
def component_types(t: ir.Type) -> tuple[ir.Scalar, ...]:
    """The IR scalar of every component, in canonical order."""
    _check_value_size(t)
    return _components(t)


def _components(t: ir.Type) -> tuple[ir.Scalar, ...]:
    if isinstance(t, ir.Scalar):
        return (t,)
    if isinstance(t, ir.Vector):
        return (t.elem,) * t.size
    if isinstance(t, ir.Matrix):
        return (t.elem,) * (t.rows * t.cols)
    if isinstance(t, ir.Array):
        assert t.size is not None       # values have sized arrays
        return _components(t.elem) * t.size
    assert isinstance(t, ir.Struct)
    return tuple(c for f in t.fields for c in _components(f.type))


def subrange(t: ir.Type, index: int) -> tuple[int, int, ir.Type]:
    """(start, length, type) of sub-object `index` (field / element / component / row) in canonical order."""
    if isinstance(t, ir.Struct):
        start = sum(count(f.type) for f in t.fields[:index])
        ft = t.fields[index].type
        return start, count(ft), ft
    if isinstance(t, ir.Array):
        n = count(t.elem)
        return index * n, n, t.elem
    if isinstance(t, ir.Vector):
        return index, 1, t.elem
    if isinstance(t, ir.Matrix):
        return index * t.cols, t.cols, ir.vec(t.elem, t.cols)
    raise error(f"cannot extract from '{t}'")




class LeafLayout(ValueRecord):
    """leaves[p]: scalar of leaf p; mult[p]: its element count within the type.
    leaf_order(t)[c] = (p, k): canonical component c is element k of leaf p."""

    leaves: tuple[ir.Scalar, ...]
    mult: tuple[int, ...]


@cache
def leaf_layout(t: ir.Type) -> LeafLayout:
    if isinstance(t, ir.Scalar):
        return LeafLayout((t,), (1,))
    if isinstance(t, (ir.Vector, ir.Matrix)):
        n = count(t)
        return LeafLayout((ir.scalar_of(t),) * n, (1,) * n)
    if isinstance(t, ir.Array):
        if t.size is None:
            raise error(f"runtime-sized array '{t}' cannot be a local variable")
        e = leaf_layout(t.elem)
        mult = tuple(m * t.size for m in e.mult)
        if mult and max(mult) > MAX_LEAF_ELEMENTS:      # (an array of empty structs has no leaves)
            raise error(f"array '{t}' is too large for the DXIL backend ({max(mult)} elements, "
                        f"limit {MAX_LEAF_ELEMENTS})")
        return LeafLayout(e.leaves, mult)
    if isinstance(t, ir.Struct):
        leaves: list[ir.Scalar] = []
        mults: list[int] = []
        for f in t.fields:
            fl = leaf_layout(f.type)
            leaves += fl.leaves
            mults += fl.mult
        return LeafLayout(tuple(leaves), tuple(mults))
    raise error(f"type '{t}' cannot be stored in DXIL memory")


@cache
def leaf_order(t: ir.Type) -> tuple[tuple[int, int], ...]:
    """(leaf, element) of every canonical component; bounded like values."""
    _check_value_size(t)
    return _order(t)


def _order(t: ir.Type) -> tuple[tuple[int, int], ...]:
    if isinstance(t, ir.Scalar):
        return ((0, 0),)
    if isinstance(t, (ir.Vector, ir.Matrix)):
        return tuple((i, 0) for i in range(count(t)))
    if isinstance(t, ir.Array):
        e = leaf_layout(t.elem)
        inner = _order(t.elem)
        assert t.size is not None       # leaf_layout refused runtime-sized arrays
        return tuple((p, j * e.mult[p] + k) for j in range(t.size) for p, k in inner)
    assert isinstance(t, ir.Struct)
    out: list[tuple[int, int]] = []
    base = 0
    for f in t.fields:
        out += [(p + base, k) for p, k in _order(f.type)]
        base += len(leaf_layout(f.type).leaves)
    return tuple(out)


@cache
def leaf_of_components(t: ir.Type) -> tuple[int, ...]:
    """The leaf of every canonical component (leaf_order without the element): enough to
    address a variable whose leaves all have one element."""
    return tuple(p for p, _ in leaf_order(t))


@cache
def field_leaf_base(t: ir.Struct, index: int) -> int:
    return sum(len(leaf_layout(f.type).leaves) for f in t.fields[:index])
