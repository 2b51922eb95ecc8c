"""Mesh and amplification shader I/O, for the entry wrapper (passes/entry_wrapper.py).

A mesh shader's threads each write some elements of its `out vertices`, `out indices` and
`out primitives` arrays, so those parameters cannot be temporaries copied out after the call as
other outputs are: each becomes Output variables holding one element per vertex / primitive
(IOInfo.mesh), and the HLSL function's stores are retargeted at them (a struct element's store
becomes one store per semantic).  The `in payload` parameter becomes the task-payload global
(Storage.PAYLOAD).  An amplification shader's DispatchMesh moves to the end of the wrapper, after
the call (SPIR-V's OpEmitMeshTasksEXT ends the invocation), and its groupshared payload becomes
the task payload.
"""

from __future__ import annotations

from .. import ir
from ..diagnostics import error
from ..front.sema.mesh import MAX_PAYLOAD_BYTES, payload_size

TYPE_CHECKING = False
if TYPE_CHECKING:       # no typing at run time (issue 23)
    from typing import Any

Leaves = list[tuple[ir.Variable, tuple[int, ...]]]


class MeshBindings:
    """What each mesh parameter became: output leaves (variable, field path) or one variable."""

    def __init__(self) -> None:
        self.outputs: dict[int, tuple[str, Leaves]] = {}     # id(param var) -> (kind, leaves)
        self.renamed: dict[int, ir.Variable] = {}            # id(param var) -> the variable replacing it
        self.names: dict[int, str] = {}


def bind_param(b: Any, ep: ir.EntryPoint, var: ir.Variable, mb: MeshBindings, module: ir.Module) -> bool:
    """Make the stage variables of mesh parameter `var` (False: not a mesh parameter)."""
    mesh = ep.mesh
    if mesh is None:
        return False
    kind = {mesh.vertices_param: "vertex", mesh.primitives_param: "primitive", mesh.indices_param: "indices",
            mesh.payload_param: "payload"}.get(var.name) if var.name else None
    if kind is None:
        return False
    mb.names[id(var)] = var.name
    t = var.type
    if kind == "payload":
        g = ir.Variable(f"payload.{var.name}", t, ir.Storage.PAYLOAD, var.loc)
        module.globals.append(g)
        mb.renamed[id(var)] = g
        return True
    assert isinstance(t, ir.Array) and t.size is not None     # sema/mesh.py checked the arrays
    if kind == "indices":
        v = ir.Variable(f"out.{var.name}", t, ir.Storage.OUTPUT, var.loc,
                        io=ir.IOInfo("SV_MeshIndices", mesh="indices"))
        ep.outputs.append(v)
        mb.renamed[id(var)] = v
        return True
    semantic = var.io.semantic if var.io else None
    b.mesh_kind = kind
    try:
        leaves = _leaves(b, t.elem, semantic, var.loc, var.io.interpolation if var.io else None, f"out.{var.name}")
    finally:
        b.mesh_kind = None
    for v, _path in leaves:
        assert v.io is not None
        v.type = ir.Array(v.type, t.size)
        v.io.mesh = kind
    mb.outputs[id(var)] = (kind, leaves)
    return True


def _leaves(b: Any, t: ir.Type, semantic: str | None, loc, interp, prefix: str,
            path: tuple[int, ...] = (), vk=(None, None), row_major: bool | None = None) -> Leaves:
    from .entry_wrapper import _member_semantics, _member_vk

    if semantic is None or (isinstance(t, ir.Struct) and vk[1] is None):
        if not isinstance(t, ir.Struct):
            raise error("a mesh shader output is missing a semantic", loc)
        out: Leaves = []
        for i, (f, sem, fvk, floc) in enumerate(zip(t.fields, _member_semantics(t, semantic), _member_vk(t, vk[0]),
                                                    b.member_locs(t, loc))):
            out += _leaves(b, f.type, sem, floc, f.interpolation or interp, f"{prefix}.{f.name}", (*path, i), fvk,
                           f.row_major)
        return out
    return [(b.io_var(semantic, t, "out", loc, interp, "out", vk, row_major), path)]


def rewrite(module: ir.Module, src: ir.Function, mb: MeshBindings) -> None:
    """Retarget the HLSL function's uses of the mesh parameters (see the module docstring).  A mesh
    shader must say how many vertices and primitives it writes (D3D's validator requires the call;
    without it Vulkan draws nothing)."""
    calls = [(f, s) for f in module.functions for s in _live(f.body) if _sets_counts(s)]
    if not calls:
        raise error(f"mesh entry point '{src.name}' never calls SetMeshOutputCounts(vertices, primitives): the "
                    f"counts of the vertices and primitives it outputs", src.loc)
    if len(calls) > 1:
        raise error("SetMeshOutputCounts is called once per mesh shader: a second call", calls[1][1].loc)
    # made by a helper (DXC inlines it): each helper on the way is called once, and where the helper makes
    # the call first thing, the entry point's statement that reaches it is the call's place
    fn, at = calls[0]
    while fn is not src and at is not None:
        sites = [(f, st) for f in module.functions for st in _live(f.body)
                 if any(isinstance(x, ir.Call) and x.func is fn for e in ir.stmt_exprs(st) for x in ir.walk_expr(e))]
        if len(sites) > 1:
            raise error(f"SetMeshOutputCounts is called once per mesh shader: '{fn.name}', which calls it, is "
                        f"called more than once", getattr(sites[1][1], "loc", None) or calls[0][1].loc)
        first = next((i for i, st in enumerate(fn.body) if st is at), None)
        at = sites[0][1] if sites and first is not None and not _may_leave(fn.body[:first]) else None
        fn = sites[0][0] if sites else fn
    if at is not None:
        _check_counts_first(src, at, mb)
    def fix_refs(e: ir.Expr) -> None:
        for x in ir.walk_expr(e):
            if isinstance(x, ir.VarRef) and id(x.var) in mb.renamed:
                if mb.renamed[id(x.var)].storage is ir.Storage.OUTPUT:      # the indices, outside a store
                    raise error(f"mesh shader output '{mb.names[id(x.var)]}' can only be written, one element at "
                                f"a time ('{mb.names[id(x.var)]}[i] = ...'): it cannot be read or passed on",
                                x.loc or src.loc)
                x.var = mb.renamed[id(x.var)]
            elif isinstance(x, ir.VarRef) and id(x.var) in mb.outputs:
                raise error(f"mesh shader output '{mb.names[id(x.var)]}' can only be written, one element at a "
                            f"time ('{mb.names[id(x.var)]}[i]...'): it cannot be read or passed on", x.loc or src.loc)

    def change(s: ir.Stmt) -> list[ir.Stmt] | None:
        if isinstance(s, ir.Store):
            root = s.place
            while isinstance(root, (ir.FieldRef, ir.IndexRef, ir.SwizzleRef)):
                root = root.base
            if isinstance(root, ir.VarRef) and id(root.var) in mb.outputs:
                fix_refs(s.value)
                return _split_store(src, s, mb)
            if isinstance(root, ir.VarRef) and id(root.var) in mb.renamed:     # indices[i] = ...
                if mb.renamed[id(root.var)].storage is ir.Storage.PAYLOAD:
                    raise error(f"the payload '{mb.names[id(root.var)]}' is read-only in a mesh shader", s.loc)
                if not (isinstance(s.place, ir.IndexRef) and s.place.base is root):      # `indices[i].x = ...`
                    raise error("a vector in out indices array must be accessed as a whole", s.loc)   # DXC's words
                fix_refs(s.value)
                for x in ir.walk_expr(s.place):
                    if isinstance(x, ir.IndexRef):
                        fix_refs(x.index)
                root.var = mb.renamed[id(root.var)]
                return None
        for e in ir.stmt_exprs(s):
            fix_refs(e)
        return None

    src.body = ir.rewrite_stmts(src.body, change)


def _sets_counts(s: ir.Stmt) -> bool:
    return any(isinstance(x, ir.Intrinsic) and x.name == "SetMeshOutputCounts"
               for e in ir.stmt_exprs(s) for x in ir.walk_expr(e))


def _placed(stmts: list[ir.Stmt], where: tuple = ()):
    """(statement, where): `where` names each enclosing statement list and the index in it."""
    for i, s in enumerate(stmts):
        here = (*where, (id(stmts), i))
        yield s, here
        if isinstance(s, ir.If):
            yield from _placed(s.then, here)
            yield from _placed(s.else_, here)
        elif isinstance(s, ir.Loop):
            yield from _placed(s.body, here)
            yield from _placed(s.continuing, here)
        elif isinstance(s, ir.Switch):
            for c in s.cases:
                yield from _placed(c.body, here)


def _may_leave(stmts: list[ir.Stmt]) -> bool:
    """Whether a statement of `stmts` may leave the loop that holds them (a break or continue not
    inside a nested loop, or a return)."""
    for s in stmts:
        if isinstance(s, (ir.Break, ir.Continue, ir.Return)):
            return True
        if isinstance(s, ir.If) and (_may_leave(s.then) or _may_leave(s.else_)):
            return True
        if isinstance(s, ir.Switch) and any(isinstance(x, (ir.Return, ir.Continue))
                                            for c in s.cases for x in ir.walk_stmts(c.body)):
            return True     # (a switch's own breaks leave the switch only)
        if isinstance(s, ir.Loop) and any(isinstance(x, ir.Return) for x in ir.walk_stmts([s])):
            return True
    return False


def _live(stmts: list[ir.Stmt]) -> list:      # (untyped, as ir.walk_stmts)
    """ir.walk_stmts's statements but those in a branch an `if` on a constant never takes (DXC folds them
    away before its validator counts the calls)."""
    placed = list(_placed(stmts))
    dead = _dead(placed)
    return [s for s, w in placed if not any(list_id in dead for list_id, _ in w)]


def _dead(placed: list) -> set[int]:
    """ids of the statement lists of `placed` (see _placed) an `if` on a constant never runs."""
    return {id(s.else_ if s.cond.value else s.then) for s, _ in placed
            if isinstance(s, ir.If) and isinstance(s.cond, ir.Const)}


def _always_entered(s: ir.Stmt) -> list[ir.Stmt] | None:
    """The statement list running `s` always enters: a loop's body (its first iteration), the branch of
    an `if` on a constant."""
    if isinstance(s, ir.Loop):
        return s.body
    if isinstance(s, ir.If) and isinstance(s.cond, ir.Const):
        return s.then if s.cond.value else s.else_
    return None


def _check_counts_first(src: ir.Function, call: ir.Stmt, mb: MeshBindings) -> None:
    """D3D's validator refuses an output write that SetMeshOutputCounts does not dominate: the call
    must come earlier in the same statement list as the write or one enclosing it; a call in a loop's
    body that nothing before it in the body can leave runs on the first iteration, so it also comes
    before what follows the loop (`do { SetMeshOutputCounts(...); } while (...)`), and so does a call in
    the branch a constant condition takes (`if (true)`), whose other branch's writes never run: DXC's
    validator sees the control flow once constants are folded.  (A call inside a helper function is left
    to that helper's callers: not checked.)"""
    placed = list(_placed(src.body))
    at = next((w for s, w in placed if s is call), None)
    if at is None:
        return
    by_place = {w: s for s, w in placed}
    firsts = [at]
    while len(firsts[-1]) > 1:
        inner = firsts[-1]
        entered = _always_entered(by_place[inner[:-1]])
        if entered is None or id(entered) != inner[-1][0] or _may_leave(entered[:inner[-1][1]]):
            break
        firsts.append(inner[:-1])
    dead = _dead(placed)

    def after(w: tuple, at: tuple) -> bool:
        level = len(at) - 1
        return w[:level] == at[:level] and len(w) > level and w[level][0] == at[level][0] \
            and w[level][1] > at[level][1]

    for s, w in placed:
        if not isinstance(s, ir.Store):
            continue
        root = s.place
        while isinstance(root, (ir.FieldRef, ir.IndexRef, ir.SwizzleRef)):
            root = root.base
        if not isinstance(root, ir.VarRef) or (id(root.var) not in mb.outputs and not (
                id(root.var) in mb.renamed and mb.renamed[id(root.var)].storage is ir.Storage.OUTPUT)) \
                or any(list_id in dead for list_id, _ in w):
            continue
        if not any(after(w, first) for first in firsts):
            loc = getattr(call, "loc", None)
            line = f" (line {loc.line})" if loc is not None else ""
            raise error(f"mesh shader output '{mb.names[id(root.var)]}' is written where SetMeshOutputCounts{line} "
                        f"may not have run: the call must come first on every path to an output write", s.loc)


def _split_store(src: ir.Function, s: ir.Store, mb: MeshBindings) -> list[ir.Stmt]:
    """`param[i].a.b = value` -> stores to the Output variables of the semantics under `.a.b`."""
    from .entry_wrapper import _adapt

    chain: list[ir.Expr] = []
    p = s.place
    while not isinstance(p, ir.VarRef):
        chain.append(p)
        p = p.base      # type: ignore[attr-defined]  # FieldRef / IndexRef / SwizzleRef
    chain.reverse()
    name = mb.names[id(p.var)]
    kind, leaves = mb.outputs[id(p.var)]
    first = chain[0] if chain else None
    if not isinstance(first, ir.IndexRef):
        raise error(f"mesh shader output '{name}' is written one element at a time: '{name}[i] = ...'", s.loc)
    for x in chain:
        if isinstance(x, ir.IndexRef):
            for sub in ir.walk_expr(x.index):
                if isinstance(sub, ir.VarRef) and (id(sub.var) in mb.outputs or (     # (the indices too)
                        id(sub.var) in mb.renamed and mb.renamed[id(sub.var)].storage is ir.Storage.OUTPUT)):
                    raise error(f"mesh shader output '{mb.names[id(sub.var)]}' cannot be read", sub.loc or s.loc)
    index = first.index
    path: tuple[int, ...] = ()
    k = 1
    paths = {lp for _, lp in leaves}
    while path not in paths and k < len(chain) and isinstance(chain[k], ir.FieldRef):
        path = (*path, chain[k].index)      # type: ignore[attr-defined]  # a FieldRef
        k += 1
    under = [(v, lp) for v, lp in leaves if lp[:len(path)] == path]
    rest = chain[k:]
    if len(under) == 1 and under[0][1] == path:
        v = under[0][0]
        assert isinstance(v.type, ir.Array)
        place: ir.Expr = ir.IndexRef(ir.VarRef(v), index, v.type.elem)
        if not rest:
            return [ir.Store(place, _adapt(s.value, v.type.elem), s.loc)]
        if v.type.elem != chain[k - 1].type:
            raise error(f"a part of '{name}' whose semantic converts its type ('{chain[k - 1].type}' to "
                        f"'{v.type.elem}') is written whole", s.loc)
        for x in rest:
            if isinstance(x, ir.IndexRef):
                place = ir.IndexRef(place, x.index, x.type)
            elif isinstance(x, ir.SwizzleRef):
                place = ir.SwizzleRef(place, x.comps, x.type)
            else:
                assert isinstance(x, ir.FieldRef)
                place = ir.FieldRef(place, x.index, x.type)
        return [ir.Store(place, s.value, s.loc)]
    if rest:
        raise error(f"'{name}' is written through an index into a struct; write its fields by name", s.loc)
    tmp = ir.Variable(f"{kind}.{len(src.locals)}", s.value.type, ir.Storage.FUNCTION)
    src.locals.append(tmp)
    out: list[ir.Stmt] = [ir.Store(ir.VarRef(tmp), s.value, s.loc)]
    for v, lp in under:
        value: ir.Expr = ir.Load(ir.VarRef(tmp), tmp.type)
        for i in lp[len(path):]:
            st = value.type
            assert isinstance(st, ir.Struct)
            value = ir.Extract(value, i, st.fields[i].type)
        assert isinstance(v.type, ir.Array)
        out.append(ir.Store(ir.IndexRef(ir.VarRef(v), index, v.type.elem), _adapt(value, v.type.elem), s.loc))
    return out


def move_dispatch(module: ir.Module, ep: ir.EntryPoint, src: ir.Function) -> ir.Stmt:
    """An amplification shader's DispatchMesh: the last statement of the entry function, or of a helper
    whose call is (D3D: called once, by every thread).  Its counts go to private globals; the returned statement, which the
    wrapper runs after the call, dispatches them with the payload (now Storage.PAYLOAD)."""
    calls = [(src, s) for s in ir.walk_stmts(src.body) if _is_dispatch(s)]
    calls += [(f, s) for f in module.functions if f is not src for s in ir.walk_stmts(f.body) if _is_dispatch(s)]
    if not calls:
        raise error(f"amplification entry point '{ep.name}' must call DispatchMesh(x, y, z, payload)", src.loc)
    if len(calls) > 1:
        raise error("DispatchMesh is called once per amplification shader: a second call", calls[1][1].loc)
    holder, call = calls[0]
    # a helper may make the call (DXC inlines it): then the helper's call is the last statement of its caller,
    # up to the entry point, and each helper on the way is called once
    fn, last = holder, call
    while True:
        body = list(fn.body)
        while body and isinstance(body[-1], ir.Return):
            body.pop()
        if not body or body[-1] is not last:
            raise error("DispatchMesh must be the last statement of the amplification entry point, reached by "
                        "every thread (not inside a branch or loop, nor after a return)", call.loc)
        if fn is src:
            break
        sites = [(f, st) for f in module.functions for st in ir.walk_stmts(f.body)
                 if any(isinstance(x, ir.Call) and x.func is fn for e in ir.stmt_exprs(st) for x in ir.walk_expr(e))]
        if len(sites) != 1 or not (isinstance(sites[0][1], ir.Eval) and isinstance(sites[0][1].expr, ir.Call)):
            where = sites[1][1] if len(sites) > 1 else (sites[0][1] if sites else call)
            raise error(f"DispatchMesh is called once per amplification shader: '{fn.name}', which calls it, is "
                        f"called {'more than once' if len(sites) > 1 else 'inside an expression'}",
                        getattr(where, "loc", None) or call.loc)
        fn, last = sites[0]
    assert isinstance(call, ir.Eval) and isinstance(call.expr, ir.Intrinsic)
    args = call.expr.args
    payload = args[3]
    assert isinstance(payload, ir.VarRef)       # sema: a groupshared struct variable
    pv = payload.var
    pv.storage = ir.Storage.PAYLOAD
    assert ep.mesh is not None
    ep.mesh.payload_size = payload_size(pv.type)
    if ep.mesh.payload_size > MAX_PAYLOAD_BYTES:
        raise error(f"payload '{pv.name}' is {ep.mesh.payload_size} bytes: at most {MAX_PAYLOAD_BYTES}", call.loc)
    i = holder.body.index(call)
    counts = []
    stores: list[ir.Stmt] = []
    for axis, a in zip("xyz", args[:3]):
        g = ir.Variable(f"dispatch.{axis}", ir.UINT, ir.Storage.PRIVATE)
        module.globals.append(g)
        stores.append(ir.Store(ir.VarRef(g), a, call.loc))
        counts.append(ir.Load(ir.VarRef(g), ir.UINT))
    holder.body[i:i + 1] = stores
    return ir.Eval(ir.Intrinsic("DispatchMesh", [*counts, ir.VarRef(pv)], ir.VOID), call.loc)


def _is_dispatch(s: ir.Stmt) -> bool:
    return isinstance(s, ir.Eval) and isinstance(s.expr, ir.Intrinsic) and s.expr.name == "DispatchMesh"
