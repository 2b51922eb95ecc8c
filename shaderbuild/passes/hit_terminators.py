"""IgnoreHit and AcceptHitAndEndSearch end an any-hit shader, yet "any modifications made to the ray
payload so far must still be retained" (D3D12 Raytracing, "Any Hit Shader").  The payload reaches
the HLSL function through inout copies (the entry wrapper's and every call's), which are written
back only when a function returns; so a function that would end the shader instead records which
intrinsic it met in a private variable and returns, every caller returns right after its write-backs
when it is set, and the any-hit wrapper, having written the payload back, ends the shader with the
recorded intrinsic.  Runs after entry_wrapper (sema's call and write-back shape), before inlining."""

from __future__ import annotations

from .. import ir
from ..options import CompileOptions

TERMINATORS = {"IgnoreHit": 1, "AcceptHitAndEndSearch": 2}


def run(module: ir.Module, options: CompileOptions) -> None:
    ending = _ending_functions(module)
    if not ending:
        return
    flag = ir.Variable("hit.end", ir.UINT, ir.Storage.PRIVATE)
    module.globals.append(flag)
    wrappers = {id(ep.function) for ep in module.entries if ep.stage == "anyhit" and id(ep.function) in ending}
    for f in module.functions:
        if id(f) in ending and id(f) not in wrappers:
            f.body = _rewrite(f.body, f.return_type, flag, ending)
    for ep in module.entries:
        if id(ep.function) in wrappers and ep.function is not None:
            w = ep.function
            end = ir.Load(ir.VarRef(flag), ir.UINT)
            checks: list[ir.Stmt] = [
                ir.If(ir.Binary("eq", end, ir.Const(ir.UINT, code), ir.BOOL),
                      [ir.Eval(ir.Intrinsic(name, [], ir.VOID))], []) for name, code in TERMINATORS.items()]
            body = [s for s in w.body if not isinstance(s, ir.Return)]
            w.body = [ir.Store(ir.VarRef(flag), ir.Const(ir.UINT, 0)), *body, *checks, ir.Return()]


def _calls(s: ir.Stmt) -> list[ir.Call]:
    return [x for e in ir.stmt_exprs(s) for x in ir.walk_expr(e) if isinstance(x, ir.Call)]


def _ending_functions(module: ir.Module) -> set[int]:
    """ids of the functions that may end the shader: those calling a terminator, and their callers."""
    ending: set[int] = set()
    for f in module.functions:
        for s in ir.walk_stmts(f.body):
            if isinstance(s, ir.Eval) and isinstance(s.expr, ir.Intrinsic) and s.expr.name in TERMINATORS:
                ending.add(id(f))
    changed = bool(ending)
    while changed:
        changed = False
        for f in module.functions:
            if id(f) not in ending and any(id(c.func) in ending for s in ir.walk_stmts(f.body) for c in _calls(s)):
                ending.add(id(f))
                changed = True
    return ending


def _rewrite(body: list[ir.Stmt], ret: ir.Type, flag: ir.Variable, ending: set[int]) -> list[ir.Stmt]:
    out: list[ir.Stmt] = []
    i = 0
    while i < len(body):
        s = body[i]
        i += 1
        if isinstance(s, ir.If):
            s.then = _rewrite(s.then, ret, flag, ending)
            s.else_ = _rewrite(s.else_, ret, flag, ending)
        elif isinstance(s, ir.Loop):
            s.body = _rewrite(s.body, ret, flag, ending)
            s.continuing = _rewrite(s.continuing, ret, flag, ending)
        elif isinstance(s, ir.Switch):
            for c in s.cases:
                c.body = _rewrite(c.body, ret, flag, ending)
        if isinstance(s, ir.Eval) and isinstance(s.expr, ir.Intrinsic) and s.expr.name in TERMINATORS:
            out += [ir.Store(ir.VarRef(flag), ir.Const(ir.UINT, TERMINATORS[s.expr.name]), s.loc), _return(ret)]
            continue
        out.append(s)
        calls = [c for c in _calls(s) if id(c.func) in ending]
        if not calls:
            continue
        temps = {id(a.var) for c in calls for a in c.args if isinstance(a, ir.VarRef)}
        while i < len(body) and _writes_back(body[i], temps):     # the call's out/inout write-backs first
            out.append(body[i])
            i += 1
        ended = ir.Binary("ne", ir.Load(ir.VarRef(flag), ir.UINT), ir.Const(ir.UINT, 0), ir.BOOL)
        out.append(ir.If(ended, [_return(ret)], []))
    return out


def _writes_back(s: ir.Stmt, temps: set[int]) -> bool:
    return isinstance(s, ir.Store) and any(isinstance(x, ir.Load) and isinstance(x.place, ir.VarRef)
                                           and id(x.place.var) in temps for x in ir.walk_expr(s.value))


def _return(t: ir.Type) -> ir.Return:
    return ir.Return(None if isinstance(t, ir.VoidType) else _zero(t))


def _zero(t: ir.Type) -> ir.Expr:
    """Any value of `t` (what a function returns on its way out of an ended shader is never used)."""
    if isinstance(t, ir.Scalar):
        return ir.Const(t, False if t.kind == "bool" else 0.0 if t.is_float else 0)
    if isinstance(t, ir.Vector):
        z = _zero(t.elem)
        assert isinstance(z, ir.Const)
        return ir.Const(t, (z.value,) * t.size)
    if isinstance(t, ir.Matrix):
        return ir.Construct(t, [_zero(ir.vec(t.elem, t.cols)) for _ in range(t.rows)])
    if isinstance(t, ir.Array):
        return ir.Construct(t, [_zero(t.elem) for _ in range(t.size or 0)])
    assert isinstance(t, ir.Struct)
    return ir.Construct(t, [_zero(f.type) for f in t.fields])
