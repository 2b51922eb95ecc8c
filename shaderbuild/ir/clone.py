"""Deep copies of IR statements and expressions with variables substituted
(used by inlining: each inlined body gets fresh locals)."""

from __future__ import annotations

from . import nodes as n

TYPE_CHECKING = False
if TYPE_CHECKING:      # no typing at run time (a cold compile's import cost)
    from typing import Any


def clone_expr(e: n.Expr, vmap: dict[int, n.Variable]) -> n.Expr:
    cls = type(e)
    if cls is n.VarRef:     # VarRef's __init__ and __post_init__, without their two calls
        r: Any = e
        var = vmap.get(id(r.var), r.var)
        c: Any = _new(cls)
        c.var = var
        c.loc = r.loc
        c.type = var.type
        return c
    try:
        plan = _PLANS[cls]
    except KeyError:
        plan = _PLANS[cls] = _plan(cls)
    if plan is None:
        return _clone_tested(e, cls, vmap)
    data, one, many = plan
    c = _new(cls)
    put = _put
    for f in data:          # a list of data is copied (an expression in it cloned)
        v = getattr(e, f)
        put(c, f, v if type(v) is not list else [clone_expr(x, vmap) if isinstance(x, n.Expr) else x for x in v])
    for f in one:
        put(c, f, clone_expr(getattr(e, f), vmap))
    for f in many:          # (items untested: the IR validator refuses anything but an expression)
        put(c, f, [clone_expr(x, vmap) for x in getattr(e, f)])
    return c


def _clone_tested(e: n.Expr, cls: type, vmap: dict[int, n.Variable]) -> n.Expr:
    """A class without a plan: every field's value tested, an expression cloned (in a list too)."""
    c: Any = _new(cls)
    for f in cls._fields:  # type: ignore[attr-defined]
        v = getattr(e, f)
        if isinstance(v, n.Expr):
            v = clone_expr(v, vmap)
        elif type(v) is list:
            v = [clone_expr(x, vmap) if isinstance(x, n.Expr) else x for x in v]
        _put(c, f, v)
    return c


_new, _put = object.__new__, object.__setattr__
_PLANS: dict[type, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]] | None] = {}


def _plan(cls: type) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]] | None:
    """(other fields, fields declared `Expr`, fields declared `list[Expr]`) of an expression class,
    from walk_expr's plan; None without one (a field could hold an expression some other way)."""
    fields: tuple[str, ...] = cls._fields  # type: ignore[attr-defined]
    children = n.child_plan(cls)
    if children is None:
        return None
    kinds = dict(children)
    return (tuple(f for f in fields if f not in kinds), tuple(f for f in fields if kinds.get(f) is False),
            tuple(f for f in fields if kinds.get(f) is True))


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
