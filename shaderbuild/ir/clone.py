"""Deep copies of IR statements and expressions with variables substituted
(used by inlining: each inlined body gets fresh locals)."""

from __future__ import annotations

from . import nodes as n

TYPE_CHECKING = False
if TYPE_CHECKING:      # no typing at run time (a cold compile's import cost)
    from typing import Any


def clone_expr(e: n.Expr, vmap: dict[int, n.Variable]) -> n.Expr:
    cls = type(e)
    if cls is n.VarRef:
        return n.VarRef(vmap.get(id(e.var), e.var), e.loc)  # type: ignore[attr-defined, arg-type]
    try:
        plan = _PLANS[cls]
    except KeyError:
        plan = _PLANS[cls] = _plan(cls)
    c = object.__new__(cls)
    put = object.__setattr__
    for f, kind in plan:
        v = getattr(e, f)
        if kind == _EXPR:
            v = clone_expr(v, vmap)
        elif kind == _EXPRS:        # (items untested: the IR validator refuses anything but an expression)
            v = [clone_expr(x, vmap) for x in v]
        elif type(v) is list:
            v = [clone_expr(x, vmap) if isinstance(x, n.Expr) else x for x in v]
        elif kind == _ANY and isinstance(v, n.Expr):
            v = clone_expr(v, vmap)
        put(c, f, v)
    return c


_DATA, _EXPR, _EXPRS, _ANY = range(4)     # a field's value: kept (a list copied), cloned, a list of clones, tested
_PLANS: dict[type, tuple[tuple[str, int], ...]] = {}


def _plan(cls: type) -> tuple[tuple[str, int], ...]:
    """(field, kind) for every field of an expression class, from walk_expr's plan (the fields
    declared `Expr` or `list[Expr]`); without one, every field is tested at run time."""
    children = n.child_plan(cls)
    if children is None:
        return tuple((f, _ANY) for f in cls._fields)  # type: ignore[attr-defined]
    many = dict(children)
    return tuple((f, _DATA if f not in many else _EXPRS if many[f] else _EXPR)
                 for f in cls._fields)  # type: ignore[attr-defined]


def clone_stmts(stmts: list[n.Stmt], vmap: dict[int, n.Variable]) -> list[n.Stmt]:
    return [clone_stmt(s, vmap) for s in stmts]


def clone_stmt(s: n.Stmt, vmap: dict[int, n.Variable]) -> n.Stmt:
    """(Exact class tests, see ir.walk_stmts: tests/ir/test_types_exact.py keeps these classes
    without subclasses; a `match` on class patterns made a failing isinstance per case.)"""
    cls = type(s)
    t: Any = s      # (`cls is X` does not narrow s for the type checker)
    if cls is n.Store:
        return n.Store(clone_expr(t.place, vmap), clone_expr(t.value, vmap), t.loc)
    if cls is n.Eval:
        return n.Eval(clone_expr(t.expr, vmap), t.loc)
    if cls is n.If:
        return n.If(clone_expr(t.cond, vmap), clone_stmts(t.then, vmap),
                    clone_stmts(t.else_, vmap), t.hint, t.loc)
    if cls is n.Loop:
        return n.Loop(clone_stmts(t.body, vmap), clone_stmts(t.continuing, vmap),
                      None if t.break_if is None else clone_expr(t.break_if, vmap), t.hint,
                      t.unroll_count, t.loc)
    if cls is n.Switch:
        return n.Switch(clone_expr(t.selector, vmap),
                        [n.SwitchCase(list(c.values), c.is_default, clone_stmts(c.body, vmap))
                         for c in t.cases], t.loc)
    if cls is n.Return:
        return n.Return(None if t.value is None else clone_expr(t.value, vmap), t.loc)
    if cls is n.Break:
        return n.Break()
    if cls is n.Continue:
        return n.Continue()
    if cls is n.Discard:
        return n.Discard(t.loc)
    raise TypeError(f"cannot clone {cls.__name__}")
