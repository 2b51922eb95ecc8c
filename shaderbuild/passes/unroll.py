"""Full unrolling of small `[unroll]` loops with a constant trip count (-O1 and up).

The shape is the one sema gives a counted `for`: the loop variable is set to a constant just
before the loop, the body starts with `if (!(i OP C)) break;`, the continuing block is only
`i = i +/- C`, and nothing else in the loop writes `i`, breaks or continues it, or is a loop.  The trip
count is found by running that recurrence (32-bit wrap-around, as the device would); the loop
becomes that many copies of body and continuing, the variable's stores kept, so later passes
(SPIR-V mem2reg and folding) see constant indices.  Loops of other shapes, more than
MAX_TRIPS iterations or more than MAX_STMTS statements once unrolled stay loops.
"""

from __future__ import annotations

from .. import ir
from ..ir.clone import clone_stmts
from ..options import CompileOptions

MAX_TRIPS = 64
MAX_STMTS = 512
_CMP = {"lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b,
        "ge": lambda a, b: a >= b, "ne": lambda a, b: a != b}


def run(module: ir.Module, options: CompileOptions) -> None:
    if options.passes_level < 1:
        return
    for f in module.functions:
        f.body = _walk(f.body)


def _walk(stmts: list[ir.Stmt]) -> list[ir.Stmt]:
    out: list[ir.Stmt] = []
    for s in stmts:
        if isinstance(s, ir.If):
            s = ir.If(s.cond, _walk(s.then), _walk(s.else_), s.hint, s.loc)
        elif isinstance(s, ir.Switch):
            s = ir.Switch(s.selector, [ir.SwitchCase(c.values, c.is_default, _walk(c.body)) for c in s.cases], s.loc)
        elif isinstance(s, ir.Loop):
            s = ir.Loop(_walk(s.body), _walk(s.continuing), s.break_if, s.hint, s.unroll_count, s.loc)
            if s.hint == "unroll":
                copies = _unrolled(s, out)
                if copies is not None:
                    out.extend(copies)
                    continue
        out.append(s)
    return out


def _int_scalar(t: ir.Type) -> bool:
    return isinstance(t, ir.Scalar) and t.kind in ("int", "uint") and t.width == 32


def _is_load_of(e: ir.Expr, v: ir.Variable) -> bool:
    return isinstance(e, ir.Load) and isinstance(e.place, ir.VarRef) and e.place.var is v


def _unrolled(loop: ir.Loop, before: list[ir.Stmt]) -> list[ir.Stmt] | None:
    if loop.break_if is not None or not loop.body or len(loop.continuing) != 1:
        return None
    head, rest = loop.body[0], loop.body[1:]
    # if (!(i OP C)) break;
    if not (isinstance(head, ir.If) and len(head.then) == 1 and isinstance(head.then[0], ir.Break) and not head.else_
            and isinstance(head.cond, ir.Unary) and head.cond.op == "not"):
        return None
    cond = head.cond.operand
    if not (isinstance(cond, ir.Binary) and cond.op in _CMP and isinstance(cond.lhs, ir.Load)
            and isinstance(cond.lhs.place, ir.VarRef) and isinstance(cond.rhs, ir.Const)):
        return None
    var = cond.lhs.place.var
    if not _int_scalar(var.type) or var.storage is not ir.Storage.FUNCTION:
        return None
    # i = i +/- C
    step = loop.continuing[0]
    if not (isinstance(step, ir.Store) and isinstance(step.place, ir.VarRef) and step.place.var is var
            and isinstance(step.value, ir.Binary) and step.value.op in ("add", "sub")
            and _is_load_of(step.value.lhs, var) and isinstance(step.value.rhs, ir.Const)):
        return None
    init = _initial_value(before, var)
    if init is None or _writes(rest, var) or _leaves(rest, in_switch=False) \
            or any(isinstance(x, ir.Loop) for x in ir.walk_stmts(rest)):
        return None                # only simple bodies: a nested loop would be copied whole
    signed = isinstance(var.type, ir.Scalar) and var.type.kind == "int"

    def wrap(x: int) -> int:
        x &= 0xFFFFFFFF
        return x - (1 << 32) if signed and x >> 31 else x

    bound, delta = wrap(int(cond.rhs.value)), int(step.value.rhs.value)
    if step.value.op == "sub":
        delta = -delta
    i, trips = wrap(int(init)), 0
    while _CMP[cond.op](i, bound):
        trips += 1
        if trips > MAX_TRIPS or (loop.unroll_count is not None and trips > loop.unroll_count):
            return None            # [unroll(N)] below the trip count asks for a partial unroll: not done
        i = wrap(i + delta)
    body = rest + loop.continuing
    if trips * sum(1 for _ in ir.walk_stmts(body)) > MAX_STMTS:
        return None
    out: list[ir.Stmt] = []
    for _ in range(trips):
        out += clone_stmts(body, {})
    return out


def _initial_value(before: list[ir.Stmt], var: ir.Variable) -> int | None:
    """The constant the last statement writing `var` before the loop stores (None: not known)."""
    for s in reversed(before):
        if isinstance(s, ir.Store) and isinstance(s.place, ir.VarRef) and s.place.var is var:
            return s.value.value if isinstance(s.value, ir.Const) and isinstance(s.value.value, int) else None
        if _writes([s], var):
            return None
    return None


def _root(p: ir.Expr) -> ir.Expr:
    while not isinstance(p, ir.VarRef) and hasattr(p, "base"):
        p = p.base
    return p


def _writes(stmts: list[ir.Stmt], var: ir.Variable) -> bool:
    """Whether any statement may write `var` (a store to it or a part, or a call taking it)."""
    for s in ir.walk_stmts(stmts):
        if isinstance(s, ir.Store):
            r = _root(s.place)
            if isinstance(r, ir.VarRef) and r.var is var:
                return True
        for name in getattr(type(s), "__slots__", ()):
            e = getattr(s, name)
            if isinstance(e, ir.Expr):
                for x in ir.walk_expr(e):
                    if isinstance(x, (ir.Call, ir.Intrinsic)) and any(
                            isinstance(a, ir.VarRef) and a.var is var for a in x.args):
                        return True
    return False


def _leaves(stmts: list[ir.Stmt], in_switch: bool) -> bool:
    """Whether a break or continue of the loop itself is among `stmts` (nested loops' own are not)."""
    for s in stmts:
        if isinstance(s, ir.Continue) or (isinstance(s, ir.Break) and not in_switch):
            return True
        if isinstance(s, ir.If) and (_leaves(s.then, in_switch) or _leaves(s.else_, in_switch)):
            return True
        if isinstance(s, ir.Switch) and any(_leaves(c.body, True) for c in s.cases):
            return True
    return False
