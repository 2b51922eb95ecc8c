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
from .scope import VarSymbol

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


# ---------------------------------------------------------------- functions returning a RayQuery
# DXC returns a query by its handle: the caller's query is the one the callee traced.  Here the function
# gets a hidden last `inout RayQuery` parameter (inlined like every RayQuery parameter, passes/
# resource_locals), the local it returns is declared as that parameter, and each call passes a temporary
# query of the caller, which `RayQuery<F> q = f(...);` names `q` and `f(...).Proceed()` calls.

_RESULT = "result.query"     # the hidden parameter's name


def returned_query(sema: SemaBase, info) -> None:
    """Give a function returning a RayQuery its hidden parameter; its body must return one local query."""
    if _returned_local(info) is None:
        raise error(f"a function returning '{info.return_type}' must return the same local RayQuery variable from "
                    f"every 'return' (the caller's query is that variable)", info.decl.loc)
    var = ir.Variable(_RESULT, info.return_type, ir.Storage.FUNCTION, info.decl.loc)
    info.ir_func.params.append(ir.Param(var, "inout"))


def query_local(sema: SemaBase, d: ast.VarDecl, t: ir.Type) -> bool:
    """`RayQuery<F> q;` that the function returns (the hidden parameter), or `RayQuery<F> q = f(...);`
    (the caller's temporary query of the call); False for another local query."""
    info = sema.fn_info
    returned = info is not None and isinstance(info.return_type, ir.RayQuery) and _returned_local(info) == d.name
    if d.init is None:
        if not returned:
            return False
        assert info is not None
        param = info.ir_func.params[-1].var
        assert param.name == _RESULT        # added by returned_query
        sema.declare(d.name, VarSymbol(param), d.loc)
        return True
    if returned:
        raise error(f"the RayQuery '{d.name}' this function returns must be declared without an initializer",
                    d.init.loc)
    v = sema.call(d.init) if isinstance(d.init, ast.CallExpr) else sema.rvalue(d.init)     # (a copy: refused)
    if not (isinstance(v, ir.VarRef) and isinstance(v.type, ir.RayQuery)):
        raise error(f"a '{t}' can only be initialized by a call of a function returning one", d.init.loc)
    if v.type != t:
        raise error(f"cannot initialize a '{t}' with the '{v.type}' returned by the call", d.init.loc)
    sema.declare(d.name, VarSymbol(v.var), d.loc)
    return True


def return_query(sema: SemaBase, s: ast.ReturnStmt) -> None:
    """`return q;` of the local declared as the hidden parameter: the caller's query holds its state."""
    assert sema.fn_info is not None and s.value is not None
    if _returned_name(s) != _returned_local(sema.fn_info):     # (returned_query checked every return)
        raise error("a RayQuery return value must be the function's local RayQuery variable", s.value.loc)
    sema.emit(ir.Return())


def _returned_local(info) -> str | None:
    """The one name every `return` of the function returns, else None."""
    names = {_returned_name(r) for r in _returns(info.decl.body)}
    return names.pop() if len(names) == 1 else None


def _returned_name(r: ast.ReturnStmt) -> str | None:
    return r.value.name if isinstance(r.value, ast.Name) else None


def _returns(node) -> list[ast.ReturnStmt]:
    """The return statements of a function body (not of nested declarations: HLSL has none)."""
    if isinstance(node, ast.ReturnStmt):
        return [node]
    out: list[ast.ReturnStmt] = []
    if isinstance(node, list):
        for x in node:
            out.extend(_returns(x))
    elif isinstance(node, ast.Node) and not isinstance(node, ast.Expr):     # statements, switch cases, ...
        for f in node._fields:
            out.extend(_returns(getattr(node, f)))
    return out
