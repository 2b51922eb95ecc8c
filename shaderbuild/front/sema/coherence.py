"""`globallycoherent` where a resource value flows: DXC's coherence-mismatch warning.

DXC makes `globallycoherent` a type attribute: a UAV global, a static alias, a local, a parameter
or a struct member may carry it.  A value passing from a coherent to a plain one (or back) in an
initialisation, assignment or argument warns (Sema::DiagnoseCoherenceMismatch, in its words); an
element of a descriptor heap has no coherence of its own and never warns.  What the coherence
does is decided where the resource is reached: a global's declaration (binding), and an access
through a coherent local or parameter (passes/resource_locals.py).
"""

from __future__ import annotations

from ... import ir
from ...diagnostics import SourceLoc
from ...ir.resource_kinds import KINDS


def _root_var(e: ir.Expr) -> ir.Variable | None:
    while isinstance(e, (ir.IndexRef, ir.FieldRef)):
        e = e.base
    return e.var if isinstance(e, ir.VarRef) else None


def is_uav(t: ir.Type) -> bool:
    """Whether `t` is a UAV or an array of them (a stream or patch object binds no register: never)."""
    while isinstance(t, ir.Array):
        t = t.elem
    return isinstance(t, ir.Resource) and KINDS[t.kind].access == "UAV"


def place_coherence(place: ir.Expr) -> bool | None:
    """Whether the UAV `place` names is declared globallycoherent; None for a heap element or a non-UAV."""
    var = _root_var(place)
    if var is None or not is_uav(place.type):
        return None
    member = place
    while isinstance(member, ir.IndexRef):        # an element of a resource array member
        member = member.base
    if isinstance(member, ir.FieldRef) and isinstance(member.base.type, ir.Struct):    # a local struct's member
        return member.base.type.fields[member.index].coherent
    if var.binding is not None:
        return None if var.binding.heap is not None else var.binding.globally_coherent
    return var.coherent


def value_coherence(value: ir.Expr) -> bool | None:
    """place_coherence of the place a resource value is read from (None for any other value)."""
    return place_coherence(value.place) if isinstance(value, ir.Load) else None


def warn_mismatch(sema, value: ir.Expr, to: ir.Type, to_coherent: bool | None, loc: SourceLoc) -> None:
    """DXC's warn_hlsl_impcast_coherence_mismatch when `value` goes where `to_coherent` says."""
    src = value_coherence(value)
    if src is None or to_coherent is None or src == to_coherent:
        return
    def spelled(t: ir.Type, coherent: bool) -> str:
        return f"globallycoherent {t}" if coherent else str(t)
    what = "loses" if src else "adds"
    sema.warn(f"implicit conversion from '{spelled(value.type, src)}' to '{spelled(to, to_coherent)}' {what} "
              f"globallycoherent annotation", loc)
