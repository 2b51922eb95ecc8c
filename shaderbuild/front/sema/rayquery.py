"""RayQuery methods (SM 6.5 inline ray tracing), typed from the intrinsic table's RAYQUERY_METHODS
rows: each call becomes ir.Intrinsic(<method>, [query place, operands...]), hoisted into a
statement so that the query's state is read in program order (Proceed and the Commit* methods
change what the getters return)."""

from __future__ import annotations

from ... import ir
from ...diagnostics import SourceLoc, error
from ...ir.intrinsics import RAYQUERY_METHODS
from ...ir.raytracing import RAY_DESC
from .. import ast
from .base import SemaBase

_FLOAT = ir.FLOAT
RETURNS: dict[str, ir.Type] = {
    "v": ir.VOID, "b": ir.BOOL, "u": ir.UINT, "f": _FLOAT, "f2": ir.Vector(_FLOAT, 2), "f3": ir.Vector(_FLOAT, 3),
    "f3x4": ir.Matrix(_FLOAT, 3, 4), "f4x3": ir.Matrix(_FLOAT, 4, 3),
}
ACCEL = "RaytracingAccelerationStructure"


def rayquery_method(sema: SemaBase, query: ir.Expr, name: str, args: list[ast.Expr], loc: SourceLoc) -> ir.Expr:
    """A call of a RayQuery method (calls.py imports this module when a shader makes one: cold start, issue 15)."""
    sig = RAYQUERY_METHODS.get(name)
    if sig is None:
        raise error(f"no member function named '{name}' in '{query.type}'", loc)
    params, ret = sig
    if len(args) != len(params):
        raise error(f"no matching member function for call to '{name}': expected {len(params)} argument"
                    f"{'' if len(params) == 1 else 's'}, have {len(args)}", loc)
    operands = [query]
    for p, a in zip(params, args):
        if p == "accel":
            accel = sema.place(a, for_write=False) if sema.is_place_expr(a) else None
            if accel is None or not (isinstance(accel.type, ir.Resource) and accel.type.kind == ACCEL):
                raise error(f"the first argument of '{name}' must be a {ACCEL}", a.loc)
            operands.append(accel)
        elif p == "ray":
            operands.append(sema.convert(sema.rvalue(a), RAY_DESC, a.loc))
        else:
            operands.append(sema.convert(sema.rvalue(a), ir.UINT if p == "u" else _FLOAT, a.loc))
    node = ir.Intrinsic(name, operands, RETURNS[ret])
    if ret == "v":
        sema.emit(ir.Eval(node, loc))
        return sema.void_value(loc)
    tmp = sema.temp(node.type)
    sema.emit(ir.Store(ir.VarRef(tmp), node, loc))
    return sema.load(ir.VarRef(tmp))
