"""Counted-loop analysis shared by sema and the unroll pass: a counted `for` loop's counter and its value in
each iteration, the constant folding of int expressions of counters, and locals stored once read back to
their values (texture offsets from `[unroll]` loop counters, or held by locals, must be constants once
unrolled or inlined: sema checks they will be, passes/unroll.py makes them so).

The shape is the one sema gives a counted `for`: the loop variable is set to a constant just before the
loop, the body starts with `if (!(i OP C)) break;`, the continuing block is only `i = i +/- C`, and nothing
else in the loop writes `i`, breaks or continues it.  The trip count is found by running that recurrence
(32-bit wrap-around, as the device would).
"""

from __future__ import annotations

from .. import ir
from .clone import clone_expr
from .d3d_numerics import int_div, int_mod

MAX_TRIPS = 64


_CMP = {"lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b,
        "ge": lambda a, b: a >= b, "ne": lambda a, b: a != b}


def _int_scalar(t: ir.Type) -> bool:
    return isinstance(t, ir.Scalar) and t.kind in ("int", "uint") and t.width == 32


def _is_load_of(e: ir.Expr, v: ir.Variable) -> bool:
    return isinstance(e, ir.Load) and isinstance(e.place, ir.VarRef) and e.place.var is v


def counted(loop: ir.Loop, before: list[ir.Stmt]) -> tuple[ir.Variable, list[int]] | None:
    """The counter of a counted loop of the shape above (nested loops allowed) and its value in each
    iteration; None for other shapes, more than MAX_TRIPS iterations or an `[unroll(N)]` below them."""
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
    if init is None or writes(rest, var) or _leaves(rest, in_switch=False):
        return None
    signed = isinstance(var.type, ir.Scalar) and var.type.kind == "int"

    def wrap(x: int) -> int:
        x &= 0xFFFFFFFF
        return x - (1 << 32) if signed and x >> 31 else x

    bound, delta = wrap(int(cond.rhs.value)), int(step.value.rhs.value)
    if step.value.op == "sub":
        delta = -delta
    i, values = wrap(int(init)), []
    while _CMP[cond.op](i, bound):
        values.append(i)
        if len(values) > MAX_TRIPS or (loop.unroll_count is not None and len(values) > loop.unroll_count):
            return None            # [unroll(N)] below the trip count asks for a partial unroll: not done
        i = wrap(i + delta)
    return var, values


def substitute(e: ir.Expr, var: ir.Variable, value: int | ir.Expr) -> ir.Expr:
    """`e` with `var` read as `value` (a constant, or a copy of the expression stored in it), folded to a
    constant where all its parts are (32-bit wrap-around)."""
    if _is_load_of(e, var):
        return ir.Const(e.type, value) if isinstance(value, int) else clone_expr(value, {})
    if isinstance(e, ir.Construct):
        e = ir.Construct(e.type, [substitute(p, var, value) for p in e.parts])
    elif isinstance(e, ir.Binary):
        e = ir.Binary(e.op, substitute(e.lhs, var, value), substitute(e.rhs, var, value), e.type)
    elif isinstance(e, ir.Unary):
        e = ir.Unary(e.op, substitute(e.operand, var, value), e.type)
    elif isinstance(e, ir.Convert):
        e = ir.Convert(substitute(e.value, var, value), e.type)
    elif isinstance(e, ir.Swizzle):
        e = ir.Swizzle(substitute(e.value, var, value), e.comps, e.type)
    c = const_int(e)
    return e if c is None else ir.Const(e.type, c[0] if isinstance(e.type, ir.Scalar) else tuple(c))


def single_store(stmts: list[ir.Stmt], var: ir.Variable) -> tuple[int, ir.Expr] | None:
    """(index, value) of the one statement of `stmts` writing `var`, if that is a top-level store to the
    whole variable and nothing else in `stmts` (nested statements too) writes it."""
    at = [i for i, s in enumerate(stmts) if writes([s], var)]
    if len(at) != 1:
        return None
    s = stmts[at[0]]
    if isinstance(s, ir.Store) and isinstance(s.place, ir.VarRef) and s.place.var is var:
        return at[0], s.value
    return None


MAX_LOCAL_CHAIN = 16        # locals set from locals followed back (a helper's parameter set from its caller's)


def follow_stores(e: ir.Expr, stmts: list[ir.Stmt], before: int, skip: ir.Variable | None = None,
                  found: dict[int, tuple[int, ir.Expr] | None] | None = None) -> ir.Expr:
    """`e` with each function-local variable it reads (but `skip`) read as the value of the one top-level
    store `stmts` make to it (single_store) ahead of statement `before`, and again for the locals those values
    read, up to MAX_LOCAL_CHAIN rounds.  `found` keeps single_store's answers for callers asking often about
    the same unchanged `stmts`."""
    found = {} if found is None else found
    for _ in range(MAX_LOCAL_CHAIN):
        held = []
        for x in ir.walk_expr(e):
            if not (isinstance(x, ir.Load) and isinstance(x.place, ir.VarRef) and x.place.var is not skip
                    and x.place.var.storage is ir.Storage.FUNCTION):
                continue
            local = x.place.var
            if id(local) not in found:
                found[id(local)] = single_store(stmts, local)
            if (st := found[id(local)]) is not None and st[0] < before:
                held.append((local, st[1]))
        for local, value in held:
            e = substitute(e, local, value)
        if not held:
            break
    return e


_OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
        "bitand": lambda a, b: a & b, "bitor": lambda a, b: a | b, "bitxor": lambda a, b: a ^ b,
        "shl": lambda a, b: a << (b & 31), "shr": lambda a, b: a >> (b & 31)}    # operands signed as their type


def const_int(e: ir.Expr) -> list[int] | None:
    """The components of an int scalar or vector built by constructors, swizzles, conversions between int
    and uint, negation and the integer operators (D3D's division, shifts masked to 5 bits) from constants
    (32-bit wrap-around); None otherwise."""
    s = ir.scalar_of(e.type) if isinstance(e.type, (ir.Scalar, ir.Vector)) else None
    if s is None or not _int_scalar(s):
        return None
    n = e.type.size if isinstance(e.type, ir.Vector) else 1
    vals: list[int] | None = None
    if isinstance(e, ir.Const):
        vals = list(e.value) if isinstance(e.value, tuple) else [e.value]
    elif isinstance(e, ir.Construct):
        parts = [const_int(p) for p in e.parts]
        vals = None if any(p is None for p in parts) else [x for p in parts for x in p]   # type: ignore[union-attr]
    elif isinstance(e, ir.Binary) and (e.op in _OPS or e.op in ("div", "mod")):
        a, b = const_int(e.lhs), const_int(e.rhs)
        if a is not None and b is not None:
            a, b = (a * n if len(a) == 1 else a), (b * n if len(b) == 1 else b)
            if e.op in _OPS:
                vals = [_OPS[e.op](x, y) for x, y in zip(a, b)]
            else:           # D3D's results, division by zero included
                op = int_div if e.op == "div" else int_mod
                vals = [op(x, y, s.kind, 32) for x, y in zip(a, b)]
    elif isinstance(e, ir.Unary) and e.op == "neg":
        a = const_int(e.operand)
        vals = None if a is None else [-x for x in a]
    elif isinstance(e, ir.Convert):
        vals = const_int(e.value)
    elif isinstance(e, ir.Swizzle):
        a = const_int(e.value)
        vals = None if a is None else [a[i] for i in e.comps]
    if vals is None:
        return None
    vals = vals * n if len(vals) == 1 else vals
    if len(vals) != n:
        return None
    signed = s.kind == "int"
    out = []
    for x in vals:
        x &= 0xFFFFFFFF
        out.append(x - (1 << 32) if signed and x >> 31 else x)
    return out


def _initial_value(before: list[ir.Stmt], var: ir.Variable) -> int | None:
    """The constant the last statement writing `var` before the loop stores (None: not known)."""
    for s in reversed(before):
        if isinstance(s, ir.Store) and isinstance(s.place, ir.VarRef) and s.place.var is var:
            return s.value.value if isinstance(s.value, ir.Const) and isinstance(s.value.value, int) else None
        if writes([s], var):
            return None
    return None


def _root(p: ir.Expr) -> ir.Expr:
    while not isinstance(p, ir.VarRef) and hasattr(p, "base"):
        p = p.base
    return p


def writes(stmts: list[ir.Stmt], var: ir.Variable) -> bool:
    """Whether any statement may write `var` (a store to it or a part, or a call taking it)."""
    for s in ir.walk_stmts(stmts):
        if isinstance(s, ir.Store):
            r = _root(s.place)
            if isinstance(r, ir.VarRef) and r.var is var:
                return True
    return any(isinstance(x, (ir.Call, ir.Intrinsic)) and any(isinstance(a, ir.VarRef) and a.var is var
                                                               for a in x.args) for x in ir.body_exprs(stmts))


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
