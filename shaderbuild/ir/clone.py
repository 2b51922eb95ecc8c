"""Deep copies of IR statements and expressions with variables substituted
(used by inlining: each inlined body gets fresh locals)."""

from __future__ import annotations

from . import nodes as n


def clone_expr(e: n.Expr, vmap: dict[int, n.Variable]) -> n.Expr:
    if isinstance(e, n.VarRef):
        return n.VarRef(vmap.get(id(e.var), e.var), e.loc)
    cls = type(e)
    values = []
    for f in cls._fields:
        v = getattr(e, f)
        if isinstance(v, n.Expr):
            v = clone_expr(v, vmap)
        elif isinstance(v, list):
            v = [clone_expr(x, vmap) if isinstance(x, n.Expr) else x for x in v]
        values.append(v)
    c = object.__new__(cls)
    for f, v in zip(cls._fields, values):
        object.__setattr__(c, f, v)
    return c


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
