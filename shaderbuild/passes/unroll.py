"""Full unrolling of small `[unroll]` loops with a constant trip count (-O1 and up; see below for -O0).

A counted loop (ir/loops.py: its counter and the counter's value in each iteration, with no nested loop
here) becomes that many copies of body and continuing, the variable's stores kept, so later passes
(SPIR-V mem2reg and folding) see constant indices.  Loops of other shapes, more than
ir.loops.MAX_TRIPS iterations or more than MAX_STMTS statements once unrolled stay loops.

A loop whose texture offsets read its counter (sema let them through after `counted` accepted the
loop) is unrolled at every level and whatever its size, nested loops included: in each copy the
counter's loads in those offsets become the iteration's value (a local the copy sets once before the
offset, its value) and fold, so both backends see the immediate offsets they require.  A loop calling a
helper whose offsets read its parameters (sema let `[unroll]` counters through as the arguments) has those
calls inlined first, at every level, so their offsets fold the same way.  Nested loops multiply: past
MAX_OFFSET_STMTS statements that unrolling is a located error.
"""

from __future__ import annotations

from .. import ir
from ..diagnostics import error
from ..ir.clone import clone_stmts
from ..ir.resource_kinds import KINDS
from ..options import CompileOptions
from .inline import inline_calls

MAX_STMTS = 512
# a loop unrolled for its texel offsets, nested loops' copies included: 8^4 offsets (9,360 statements)
# compile in about a second; 8^7 was 2 million copies
MAX_OFFSET_STMTS = 16_384


@ir.keeps_exprs
def run(module: ir.Module, options: CompileOptions) -> None:
    optimise = options.passes_level >= 1
    todo = [f for f in module.functions if ir.has_unroll_loop(f.body)]
    if not todo:        # only `[unroll]` loops are unrolled: no search for offset helpers, no rebuilt tree
        return
    ir.forget_exprs(module)
    helpers = _offset_helpers(module)
    for f in todo:
        f.body = _walk(f.body, _Context(optimise, f, helpers))


class _Context:
    """What unrolling one function needs: the level, the function (for inlined locals) and the helpers."""

    def __init__(self, optimise: bool, f: ir.Function, helpers: set[int]) -> None:
        self.optimise, self.f, self.helpers = optimise, f, helpers


def _offset_helpers(module: ir.Module) -> set[int]:
    """ids of the functions with a texture offset made of their parameters (a helper called with [unroll]
    counters: sema's generic instance), and of the functions calling them: an [unroll] loop calling one has the
    call inlined and is unrolled at every level (-O1 has inlined every call already)."""
    found = {id(f) for f in module.functions if any(_reads_params(args[i], f) for args, i in _counter_offsets(f.body))}
    grew = bool(found)
    while grew:
        grew = False
        for f in module.functions:
            if id(f) not in found and any(isinstance(x, ir.Call) and id(x.func) in found
                                          for x in ir.body_exprs(f.body)):
                found.add(id(f))
                grew = True
    return found


def _walk(stmts: list[ir.Stmt], cx: _Context) -> list[ir.Stmt]:
    out: list[ir.Stmt] = []
    for s in stmts:
        if isinstance(s, ir.If):
            s = ir.If(s.cond, _walk(s.then, cx), _walk(s.else_, cx), s.hint, s.loc)
        elif isinstance(s, ir.Switch):
            s = ir.Switch(s.selector, [ir.SwitchCase(c.values, c.is_default, _walk(c.body, cx))
                                       for c in s.cases], s.loc)
        elif isinstance(s, ir.Loop):
            if s.hint == "unroll" and cx.helpers and _calls(s.body + s.continuing, cx.helpers):
                s = ir.Loop(inline_calls(cx.f, s.body, cx.helpers, [0]), inline_calls(cx.f, s.continuing, cx.helpers,
                            [0]), s.break_if, s.hint, s.unroll_count, s.loc)
            s = ir.Loop(_walk(s.body, cx), _walk(s.continuing, cx), s.break_if, s.hint, s.unroll_count, s.loc)
            if s.hint == "unroll":
                copies = _unrolled(s, out, cx.optimise)
                if copies is not None:
                    out.extend(copies)
                    continue
        out.append(s)
    return out


def _unrolled(loop: ir.Loop, before: list[ir.Stmt], optimise: bool) -> list[ir.Stmt] | None:
    from ..ir.loops import counted, follow_stores, substitute  # [unroll] loops only (issue 23)

    offsets = any(True for _ in _counter_offsets(loop.body))
    if not (optimise or offsets):
        return None
    found = counted(loop, before)
    if found is None:
        return None
    var, values = found
    body = loop.body[1:] + loop.continuing
    if offsets and len(values) * (size := sum(1 for _ in ir.walk_stmts(body))) > MAX_OFFSET_STMTS:
        raise error(f"unrolling this loop for the texel offsets that read its counter would give "
                    f"{len(values)} copies of {size:,} statements (nested loops unrolled), more than the limit of "
                    f"{MAX_OFFSET_STMTS:,}; unroll fewer loops or use a constant offset", loop.loc)
    if not offsets and (any(isinstance(x, ir.Loop) for x in ir.walk_stmts(body))    # a nested loop: copied whole
                        or len(values) * sum(1 for _ in ir.walk_stmts(body)) > MAX_STMTS):
        return None
    out: list[ir.Stmt] = []
    for value in values:
        copy = clone_stmts(body, {})
        stores: dict[int, tuple[int, ir.Expr] | None] = {}     # single_store(copy, local): one scan per copy
        for k, s in enumerate(copy):
            for args, i in _counter_offsets([s]):
                # a local set once in the copy before: its value (a local again for an inlined helper's parameter)
                args[i] = c = substitute(follow_stores(args[i], copy, k, var, stores), var, value)
                if isinstance(c, ir.Const) and not all(-8 <= x <= 7 for x in (
                        c.value if isinstance(c.value, tuple) else (c.value,))):    # an inlined helper's offset
                    raise error(f"texture offsets must be in the range [-8, 7] (is {c.value} when {var.name.split('.')[0]} = "
                                f"{value})", getattr(s, "loc", None))
        out += copy
    return out


def _reads_params(e: ir.Expr, f: ir.Function) -> bool:
    params = {id(p.var) for p in f.params}
    return any(isinstance(x, ir.Load) and isinstance(x.place, ir.VarRef) and id(x.place.var) in params
               for x in ir.walk_expr(e))


def _calls(stmts: list[ir.Stmt], helpers: set[int]) -> bool:
    return any(isinstance(x, ir.Call) and id(x.func) in helpers for x in ir.body_exprs(stmts))


def _counter_offsets(stmts: list[ir.Stmt]):
    """(argument list, index) of every texel offset of a texture read in `stmts` that is not a constant
    (sema lets only offsets of constants and `[unroll]` counters through)."""
    for x in ir.body_exprs(stmts):
        if isinstance(x, ir.Intrinsic) and x.args and isinstance(x.args[0].type, ir.Resource):
            for i in _offset_positions(x):
                if not isinstance(x.args[i], ir.Const):
                    yield x.args, i


def _offset_positions(e: ir.Intrinsic) -> list[int]:
    """Where sema puts texel offsets: after the coordinate (and a Load's sample index) of a texture
    Load, the int operands after a Sample or Gather's sampler and coordinate (the others are float)."""
    r = e.args[0].type
    assert isinstance(r, ir.Resource)
    kind = KINDS.get(r.kind)
    if kind is None or not kind.offsets:
        return []
    if e.name == "Load":
        return list(range(3 if kind.ms else 2, len(e.args)))
    if e.name.startswith(("Sample", "Gather")):
        return [i for i in range(3, len(e.args)) if _int_typed(e.args[i])]
    return []


def _int_typed(e: ir.Expr) -> bool:
    s = ir.scalar_of(e.type) if isinstance(e.type, (ir.Scalar, ir.Vector)) else None
    return s is not None and not s.is_float and s.kind != "bool"
