"""Deep copies of IR statements and expressions with variables substituted
(used by inlining: each inlined body gets fresh locals)."""

from __future__ import annotations

from . import nodes as n


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
    def ce(x: n.Expr) -> n.Expr:
        return clone_expr(x, vmap)

    match s:
        case n.Store():
            return n.Store(ce(s.place), ce(s.value), s.loc)
        case n.Eval():
            return n.Eval(ce(s.expr), s.loc)
        case n.If():
            return n.If(ce(s.cond), clone_stmts(s.then, vmap), clone_stmts(s.else_, vmap), s.hint, s.loc)
        case n.Loop():
            return n.Loop(clone_stmts(s.body, vmap), clone_stmts(s.continuing, vmap),
                          None if s.break_if is None else ce(s.break_if), s.hint,
                          s.unroll_count, s.loc)
        case n.Switch():
            return n.Switch(ce(s.selector), [n.SwitchCase(list(c.values), c.is_default, clone_stmts(c.body, vmap))
                                              for c in s.cases], s.loc)
        case n.Return():
            return n.Return(None if s.value is None else ce(s.value), s.loc)
        case n.Break():
            return n.Break()
        case n.Continue():
            return n.Continue()
        case n.Discard():
            return n.Discard(s.loc)
    raise TypeError(f"cannot clone {type(s).__name__}")
