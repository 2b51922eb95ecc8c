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
from ..diagnostics import error
from ..ir.clone import clone_stmts
from ..options import CompileOptions


def _has_early_return(stmts: list[ir.Stmt]) -> bool:
    """(Exact class tests, see ir.walk_stmts: every inlined call asks this of its callee's body.)"""
    last = len(stmts) - 1
    for i, s in enumerate(stmts):
        cls = type(s)
        if cls is ir.Return:
            if i != last:
                return True
        elif (cls is ir.If or cls is ir.Loop or cls is ir.Switch) \
                and any(type(x) is ir.Return for x in ir.stmt_list([s])):
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


def inline_call(caller: ir.Function, call: ir.Call, result: ir.Variable | None, counter: list[int],
                refs: list[ir.VarRef] | None = None) -> list[ir.Stmt]:
    """The statements replacing `result = call(...)` (or `call(...)` when result is None).  With `refs`
    (the callee's body is inlined nowhere else and the callee is dropped after; refs: every VarRef of
    its body), the body's statements are used as they are, those references to the callee's variables
    redirected in place, instead of copied."""
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
                                p.var.type.size is None else p.var.type, ir.Storage.FUNCTION, p.var.loc,
                                coherent=p.var.coherent)
            caller.locals.append(local)
            vmap[id(p.var)] = local
            prologue.append(ir.Store(ir.VarRef(local), arg))
        else:
            assert isinstance(arg, ir.VarRef)   # sema: out/inout arguments are VarRefs of caller temporaries
            vmap[id(p.var)] = arg.var
    for v in callee.locals:
        local = ir.Variable(f"{v.name}.i{tag}", v.type, v.storage, v.loc, v.binding, v.io, v.const, v.init,
                            coherent=v.coherent)
        caller.locals.append(local)
        vmap[id(v)] = local
    if refs is not None:
        body = list(callee.body)
        for r in refs:
            new = vmap.get(id(r.var))
            if new is not None:         # (a VarRef met twice already points at a variable not in vmap)
                r.var = new
                r.type = new.type
    else:
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


# statements of one entry point once every call is inlined: above real shaders (bench/gen.py's
# 22,842-line shader inlines to 22,824, the sample project's largest to 17), far below the hours a
# 2^39-copy call tree takes (and the minutes 10^5 statements take to compile)
MAX_INLINED_STMTS = 100_000


@ir.keeps_exprs     # (bodies are replaced whole, none changed in place: its walks serve the passes after it)
def run(module: ir.Module, options: CompileOptions) -> None:
    """From -O1 on: inline every call into the entry function (and a hull shader's patch-constant
    function), top-down (a callee's body is copied
    as written and its own calls are inlined in the copy, so a chain of N functions costs O(N)),
    and drop the functions no longer reached.  A call tree larger than MAX_INLINED_STMTS is refused
    before any copy (check_inlined_size)."""
    entries = ir.entry_points(module)
    if options.passes_level < 1 or not entries:
        return
    roots = _roots(entries)
    _check_size(roots)
    counter = [0]
    once = _inlined_once(roots)
    reached: set[int] = set()
    for root in roots:
        root.body = _inline_all(root, root.body, counter, None, once)
        reached |= _reached(module, root)
    module.functions = [f for f in module.functions if id(f) in reached]
    for entry in entries:
        if entry.static_init is not None and id(entry.static_init) not in reached:
            entry.static_init = None        # inlined into the wrapper


def _inlined_once(roots: list[ir.Function]) -> dict[int, list[ir.VarRef]]:
    """The functions whose body is inlined exactly once, so moved rather than copied (copying callee
    bodies was ~6% of a compile), by id, with the VarRefs of their bodies: a function's calls count as
    many times as its own body is inlined (the calls of a root once), callers counted before their
    callees (an order made here, depth first from the roots); a root is never moved (its body stays)."""
    calls: dict[int, list[ir.Function]] = {}
    exprs: dict[int, list[ir.Expr]] = {}
    order: list[ir.Function] = []       # post-order: callees before callers

    def read(f: ir.Function) -> None:
        exprs[id(f)] = found = ir.body_exprs(f.body)
        calls[id(f)] = [c.func for c in ir.nodes_of(found, ir.Call)]

    for root in roots:
        if id(root) in calls:
            continue
        read(root)
        work = [(root, 0)]
        while work:
            f, i = work.pop()
            callees = calls[id(f)]
            if i < len(callees):
                work.append((f, i + 1))
                g = callees[i]
                if id(g) not in calls:
                    read(g)
                    work.append((g, 0))
            else:
                order.append(f)
    count = {id(r): 1 for r in roots}
    for f in reversed(order):
        n = count.get(id(f), 0)
        for g in calls[id(f)]:
            count[id(g)] = count.get(id(g), 0) + n
    root_ids = {id(r) for r in roots}
    return {id(f): list(ir.nodes_of(exprs[id(f)], ir.VarRef)) for f in order
            if count[id(f)] == 1 and id(f) not in root_ids}


def _roots(entries: list[ir.EntryPoint]) -> list[ir.Function]:
    """The functions every call is inlined into: each entry's (a library: every shader) and a hull
    shader's patch-constant function (its second entry)."""
    roots = [entry.function or entry.source_function for entry in entries]
    for entry in entries:
        if entry.tess is not None and entry.tess.patch_function is not None:
            roots.append(entry.tess.patch_function)
    return roots


def inline_calls(f: ir.Function, stmts: list[ir.Stmt], targets: set[int], counter: list[int]) -> list[ir.Stmt]:
    """`stmts` (of f) with every call of a function in `targets` (ids) inlined, in nested statements too (the
    callees' own calls of targets already inlined: callers are processed after their callees), after the
    size check of `run` on those calls."""
    _check_size([f], targets)
    return _inline_all(f, stmts, counter, targets)


def _call_of(s: ir.Stmt) -> ir.Call | None:
    cls = s.__class__       # exact class tests: cheaper than a failed isinstance (an MRO search)
    if cls is ir.Store:
        return s.value if s.value.__class__ is ir.Call else None  # type: ignore[attr-defined]
    if cls is ir.Eval:
        return s.expr if s.expr.__class__ is ir.Call else None  # type: ignore[attr-defined]
    return None


def _inline_all(f: ir.Function, stmts: list[ir.Stmt], counter: list[int],
                targets: set[int] | None = None, once: dict[int, list[ir.VarRef]] | None = None) -> list[ir.Stmt]:
    """`stmts` with every call (of a function in `targets`, when given) inlined; a work stack, so the statements an inlined call produces are scanned next without recursion (only nested
    statement lists recurse)."""
    out: list[ir.Stmt] = []
    work = list(reversed(stmts))
    while work:
        s = work.pop()
        call = _call_of(s)
        if call is not None and (targets is None or id(call.func) in targets):
            result = None
            if isinstance(s, ir.Store):
                assert isinstance(s.place, ir.VarRef)     # sema stores a call's result to a temporary
                result = s.place.var
            new = inline_call(f, call, result, counter, None if once is None else once.get(id(call.func)))
            work.extend(reversed(new))
        elif isinstance(s, ir.If):
            out.append(ir.If(s.cond, _inline_all(f, s.then, counter, targets, once),
                             _inline_all(f, s.else_, counter, targets, once), s.hint, s.loc))
        elif isinstance(s, ir.Loop):
            out.append(ir.Loop(_inline_all(f, s.body, counter, targets, once),
                               _inline_all(f, s.continuing, counter, targets, once), s.break_if, s.hint,
                               s.unroll_count, s.loc))
        elif isinstance(s, ir.Switch):
            out.append(ir.Switch(s.selector, [ir.SwitchCase(c.values, c.is_default,
                                                             _inline_all(f, c.body, counter, targets, once))
                                              for c in s.cases], s.loc))
        else:
            out.append(s)
    return out


def _reached(module: ir.Module, root: ir.Function) -> set[int]:
    """ids of the functions `root` calls, transitively, and of root (the walks are remembered for the
    read-only searches after this pass: ir.function_exprs)."""
    seen = {id(root)}
    work = [root]
    while work:
        f = work.pop()
        for x in ir.nodes_of(ir.function_exprs(module, f), ir.Call):
            if id(x.func) not in seen:
                seen.add(id(x.func))
                work.append(x.func)
    return seen


@ir.keeps_exprs
def check_inlined_size(module: ir.Module, options: CompileOptions) -> None:
    """A raise pass for a target that inlines every call at every level (DXIL): at -O0 the size check
    `run` makes from -O1 on."""
    if options.passes_level < 1:
        _check_size(_roots(ir.entry_points(module)))


def _check_size(roots: list[ir.Function], targets: set[int] | None = None) -> None:
    """Refuse entry points that would have more than MAX_INLINED_STMTS statements with every call
    inlined, before a copy is made: a call tree that doubles at each of 40 levels is 2^40 statements.
    The sizes are counted per function, once (a callee's size is its statements plus its callees'
    sizes), so the check is linear in the source.  `targets` (ids): only calls of these are inlined."""
    size: dict[int, int] = {}
    for root in roots:
        if _inlined_size(root, size, targets) > MAX_INLINED_STMTS:
            _refuse(root, size, targets)


def _inlined_size(root: ir.Function, size: dict[int, int], targets: set[int] | None) -> int:
    """The statements of root with every call inlined (memoised in `size`, by function id); an explicit
    stack: sema refuses recursion, but a call chain may be long."""
    work = [root]
    own: dict[int, tuple[int, list[ir.Function]]] = {}     # a function's statements and callees
    while work:
        f = work[-1]
        if id(f) in size:
            work.pop()
            continue
        if id(f) not in own:
            calls = []
            stmts = ir.stmt_list(f.body)
            for s in stmts:
                if (c := _inlined(s, targets)) is not None:
                    calls.append(c.func)
            own[id(f)] = len(stmts), calls
        n, calls = own[id(f)]
        pending = [g for g in calls if id(g) not in size]
        if pending:
            work += pending
            continue
        work.pop()
        size[id(f)] = n + sum(size[id(g)] for g in calls)
    return size[id(root)]


def _inlined(s: ir.Stmt, targets: set[int] | None) -> ir.Call | None:
    """The call statement s makes, if it is one that is inlined."""
    call = _call_of(s)
    return call if call is not None and (targets is None or id(call.func) in targets) else None


def _refuse(root: ir.Function, size: dict[int, int], targets: set[int] | None) -> None:
    """The located error: down the calls whose callee alone is over the limit, then at the call where
    the running count of the last such function crosses it."""
    chain, f = [root.name], root
    while True:
        total, at = 0, None
        for s in ir.walk_stmts(f.body):
            call = _inlined(s, targets)
            total += 1 + (size[id(call.func)] if call is not None else 0)
            if call is not None and (size[id(call.func)] > MAX_INLINED_STMTS or total > MAX_INLINED_STMTS):
                at = s, call
                break
        assert at is not None
        s, call = at
        chain.append(call.func.name)
        if size[id(call.func)] <= MAX_INLINED_STMTS:
            names = [n.removeprefix("src.") for n in chain]     # the entry wrapper calls src.<entry>
            names = [n for i, n in enumerate(names) if i == 0 or n != names[i - 1]]
            raise error(f"inlining every call into '{names[0]}' would give about {size[id(root)]:,} statements, "
                        f"more than the limit of {MAX_INLINED_STMTS:,}: it is crossed at this call "
                        f"({' -> '.join(names)})", getattr(s, "loc", None) or f.loc)
        f = call.func
