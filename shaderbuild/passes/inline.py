"""Inlining of calls, used where a backend-independent pass needs to see
through function boundaries (resource arguments, see resource_locals.py).

An inlined body gets fresh copies of the callee's locals; `in` parameters
become locals initialised from the argument, `out`/`inout` parameters use the
caller's temporary directly (sema guarantees it is a VarRef), and a RayQuery
parameter is the caller's query variable itself.  Early returns
become `ret = v; returned = true; break` out of a run-once loop, re-checked
after every nested loop or switch; when the body ends in a loop and every
return is in that loop outside nested loops and switches, they become
`ret = v; break` out of that loop (no flag, no run-once loop).
"""

from __future__ import annotations

from .. import ir
from ..ir.clone import clone_stmts
from ..options import CompileOptions


def _has_early_return(stmts: list[ir.Stmt]) -> bool:
    for i, s in enumerate(stmts):
        if isinstance(s, ir.Return) and i != len(stmts) - 1:
            return True
        if isinstance(s, (ir.If, ir.Loop, ir.Switch)) and any(isinstance(x, ir.Return) for x in ir.walk_stmts([s])):
            return True
    return False


def _returns(stmts: list[ir.Stmt]) -> bool:
    return any(isinstance(x, ir.Return) for x in ir.walk_stmts(stmts))


def _returns_from_last_loop(body: list[ir.Stmt]) -> bool:
    """The body ends in a loop, and every return is in that loop's body outside nested loops and
    switches: a `break` there leaves the function, as the return did."""
    if not body or not isinstance(last := body[-1], ir.Loop) or _returns(body[:-1]) or _returns(last.continuing):
        return False
    return not any(isinstance(x, (ir.Loop, ir.Switch)) and _returns([x]) for x in ir.walk_stmts(last.body))


def _rewrite_returns(stmts: list[ir.Stmt], ret: ir.Variable | None, flag: ir.Variable | None,
                     in_construct: bool) -> list[ir.Stmt]:
    out: list[ir.Stmt] = []
    for s in stmts:
        if isinstance(s, ir.Return):
            if ret is not None and s.value is not None:
                out.append(ir.Store(ir.VarRef(ret), s.value, s.loc))
            if flag is not None:
                out.append(ir.Store(ir.VarRef(flag), ir.Const(ir.BOOL, True)))
            out.append(ir.Break())
            return out           # the rest of this block is unreachable
        if isinstance(s, ir.If):
            s = ir.If(s.cond, _rewrite_returns(s.then, ret, flag, in_construct),
                      _rewrite_returns(s.else_, ret, flag, in_construct), s.hint, s.loc)
            out.append(s)
            continue
        if isinstance(s, (ir.Loop, ir.Switch)):
            has_ret = any(isinstance(x, ir.Return) for x in ir.walk_stmts([s]))
            if isinstance(s, ir.Loop):
                s = ir.Loop(_rewrite_returns(s.body, ret, flag, True), s.continuing, s.break_if, s.hint, s.unroll_count,
                            s.loc)
            else:
                s = ir.Switch(s.selector, [ir.SwitchCase(c.values, c.is_default,
                                                         _rewrite_returns(c.body, ret, flag, True)) for c in s.cases],
                              s.loc)
            out.append(s)
            if has_ret and flag is not None:
                out.append(ir.If(ir.Load(ir.VarRef(flag), ir.BOOL), [ir.Break()], []))
            continue
        out.append(s)
    return out


def inline_call(caller: ir.Function, call: ir.Call, result: ir.Variable | None, counter: list[int]) -> list[ir.Stmt]:
    """The statements replacing `result = call(...)` (or `call(...)` when result is None)."""
    callee = call.func
    counter[0] += 1
    tag = counter[0]
    vmap: dict[int, ir.Variable] = {}
    prologue: list[ir.Stmt] = []
    for p, arg in zip(callee.params, call.args):
        if isinstance(p.var.type, ir.RayQuery):     # passed by reference: the callee uses the caller's query
            assert isinstance(arg, ir.VarRef)       # sema passes the query variable itself
            vmap[id(p.var)] = arg.var
        elif p.direction == "in":
            local = ir.Variable(f"{p.var.name}.i{tag}", arg.type if isinstance(p.var.type, ir.Array) and
                                p.var.type.size is None else p.var.type, ir.Storage.FUNCTION, p.var.loc)
            caller.locals.append(local)
            vmap[id(p.var)] = local
            prologue.append(ir.Store(ir.VarRef(local), arg))
        else:
            assert isinstance(arg, ir.VarRef)   # sema: out/inout arguments are VarRefs of caller temporaries
            vmap[id(p.var)] = arg.var
    for v in callee.locals:
        local = ir.Variable(f"{v.name}.i{tag}", v.type, v.storage, v.loc, v.binding, v.io, v.const, v.init)
        caller.locals.append(local)
        vmap[id(v)] = local
    body = clone_stmts(callee.body, vmap)
    early = _has_early_return(body)
    if early and _returns_from_last_loop(body):
        loop = body[-1]
        assert isinstance(loop, ir.Loop)
        body[-1] = ir.Loop(_rewrite_returns(loop.body, result, None, True), loop.continuing, loop.break_if, loop.hint,
                           loop.unroll_count, loop.loc)
    elif early:
        flag = ir.Variable(f"returned.i{tag}", ir.BOOL, ir.Storage.FUNCTION)
        caller.locals.append(flag)
        prologue.append(ir.Store(ir.VarRef(flag), ir.Const(ir.BOOL, False)))
        body = [ir.Loop(_rewrite_returns(body, result, flag, False) + [ir.Break()])]
    elif body and isinstance(last := body[-1], ir.Return):
        body.pop()
        if result is not None and last.value is not None:
            body.append(ir.Store(ir.VarRef(result), last.value, last.loc))
    return prologue + body


MAX_INLINED_STMTS = 100_000     # past this many statements inlined, the remaining calls stay calls
_UNBOUNDED = 1 << 62            # inline_calls: the passes that must inline their targets have no budget


def run(module: ir.Module, options: CompileOptions) -> None:
    """From -O1 on: inline every call into the entry function (and a hull shader's patch-constant
    function), top-down (a callee's body is copied
    as written and its own calls are inlined in the copy, so a chain of N functions costs O(N)),
    and drop the functions no longer reached.  A call tree larger than MAX_INLINED_STMTS keeps
    its remaining calls."""
    entries = ir.entry_points(module)
    if options.passes_level < 1 or not entries:
        return
    roots = [entry.function or entry.source_function for entry in entries]    # a library: every shader
    for entry in entries:
        if entry.tess is not None and entry.tess.patch_function is not None:
            roots.append(entry.tess.patch_function)     # a hull shader's second entry (patch constants)
    counter, budget = [0], [MAX_INLINED_STMTS]
    reached: set[int] = set()
    for root in roots:
        root.body = _inline_all(root, root.body, counter, budget)
        reached |= _reached(root)
    module.functions = [f for f in module.functions if id(f) in reached]
    for entry in entries:
        if entry.static_init is not None and id(entry.static_init) not in reached:
            entry.static_init = None        # inlined into the wrapper


def inline_calls(f: ir.Function, stmts: list[ir.Stmt], targets: set[int], counter: list[int]) -> list[ir.Stmt]:
    """`stmts` (of f) with every call of a function in `targets` (ids) inlined, in nested statements too (the
    callees' own calls of targets already inlined: callers are processed after their callees)."""
    return _inline_all(f, stmts, counter, [_UNBOUNDED], targets)


def _call_of(s: ir.Stmt) -> ir.Call | None:
    if isinstance(s, ir.Store) and isinstance(s.value, ir.Call):
        return s.value
    if isinstance(s, ir.Eval) and isinstance(s.expr, ir.Call):
        return s.expr
    return None


def _inline_all(f: ir.Function, stmts: list[ir.Stmt], counter: list[int], budget: list[int],
                targets: set[int] | None = None) -> list[ir.Stmt]:
    """`stmts` with every call (of a function in `targets`, when given) inlined while the budget lasts; a
    work stack, so the statements an inlined call produces are scanned next without recursion (only nested
    statement lists recurse)."""
    out: list[ir.Stmt] = []
    work = list(reversed(stmts))
    while work:
        s = work.pop()
        call = _call_of(s)
        if call is not None and budget[0] > 0 and (targets is None or id(call.func) in targets):
            result = None
            if isinstance(s, ir.Store):
                assert isinstance(s.place, ir.VarRef)     # sema stores a call's result to a temporary
                result = s.place.var
            new = inline_call(f, call, result, counter)
            budget[0] -= sum(1 for _ in ir.walk_stmts(new))
            work.extend(reversed(new))
        elif isinstance(s, ir.If):
            out.append(ir.If(s.cond, _inline_all(f, s.then, counter, budget, targets),
                             _inline_all(f, s.else_, counter, budget, targets), s.hint, s.loc))
        elif isinstance(s, ir.Loop):
            out.append(ir.Loop(_inline_all(f, s.body, counter, budget, targets),
                               _inline_all(f, s.continuing, counter, budget, targets), s.break_if, s.hint,
                               s.unroll_count, s.loc))
        elif isinstance(s, ir.Switch):
            out.append(ir.Switch(s.selector, [ir.SwitchCase(c.values, c.is_default,
                                                             _inline_all(f, c.body, counter, budget, targets))
                                              for c in s.cases], s.loc))
        else:
            out.append(s)
    return out


def _reached(root: ir.Function) -> set[int]:
    """ids of the functions `root` calls, transitively, and of root."""
    seen = {id(root)}
    work = [root]
    while work:
        f = work.pop()
        for x in ir.body_exprs(f.body):
            if isinstance(x, ir.Call) and id(x.func) not in seen:
                seen.add(id(x.func))
                work.append(x.func)
    return seen
