"""HLSL `precise`: mark the arithmetic that computes a precise value.

A value stored into a `precise` variable (or returned from a `precise` function) must be
computed exactly as written: no reassociation, no contraction into fused multiply-adds, no
fast-math assumptions.  As in DXC, the taint flows backwards through function-local
variables: a local whose value reaches a precise store is computed precisely too.  The
backends read the `precise` flag of Unary, Binary and Intrinsic nodes (DXIL: no fast-math
flags; SPIR-V: NoContraction).
"""

from __future__ import annotations

from ... import ir

__all__ = ["mark_precise"]

_MARKED = (ir.Unary, ir.Binary, ir.Intrinsic)


def _root(place: ir.Expr) -> ir.Variable | None:
    """The variable a place is part of (None for buffer elements and other non-variable places)."""
    while not isinstance(place, ir.VarRef):
        if isinstance(place, (ir.FieldRef, ir.IndexRef, ir.SwizzleRef)):
            place = place.base
        else:
            return None
    return place.var


def mark_precise(fn: ir.Function, precise_return: bool = False) -> None:
    """Set `precise` on every Unary/Binary/Intrinsic of `fn` whose value reaches a precise variable."""
    tainted: set[int] = {id(v) for v in fn.locals if v.precise} | {id(p.var) for p in fn.params if p.var.precise}
    if not tainted and not precise_return:
        return          # sema makes `precise` variables only as locals and parameters: none here
    local = {id(v) for v in fn.locals} | {id(p.var) for p in fn.params}
    done: set[int] = set()          # id() of the value expressions already marked
    changed = True
    while changed:                  # until no new local is tainted
        changed = False
        for s in ir.walk_stmts(fn.body):
            if isinstance(s, ir.Store):
                v = _root(s.place)
                if v is None or not (v.precise or id(v) in tainted):
                    continue
                value = s.value
            elif isinstance(s, ir.Return) and precise_return and s.value is not None:
                value = s.value
            else:
                continue
            if id(value) in done:
                continue
            done.add(id(value))
            for e in ir.walk_expr(value):
                if isinstance(e, _MARKED):
                    e.precise = True
                elif isinstance(e, ir.VarRef) and id(e.var) in local and id(e.var) not in tainted:
                    tainted.add(id(e.var))
                    changed = True
