"""EvaluateAttributeAtSample / EvaluateAttributeCentroid / EvaluateAttributeSnapped and
GetAttributeAtVertex: tie the attribute argument to its stage input variable.

The intrinsics interpolate a pixel shader input again at another place in the pixel, or read it
at one vertex of the primitive, so the backends need the input itself (SPIR-V: a pointer to the
Input variable for GLSL.std.450 InterpolateAt*, a PerVertexKHR array; DXIL: the signature
element, row and column for evalSampleIndex / evalCentroid / evalSnapped / attributeAtVertex),
not the value the entry wrapper loaded and passed in.  Run by the entry wrapper,
which knows which input variables each entry parameter came from: the argument (a parameter, a
member of a struct parameter, an element or swizzle of one) is rewritten to a Load of the input
variable's place.  Anything else is a located error.
"""

from __future__ import annotations

from .. import ir
from ..diagnostics import SourceLoc, error
from .inline import inline_calls

AT_VERTEX = "GetAttributeAtVertex"
NAMES = frozenset({"EvaluateAttributeAtSample", "EvaluateAttributeCentroid", "EvaluateAttributeSnapped", AT_VERTEX})


def run(module: ir.Module, src: ir.Function, inputs: dict[int, ir.Expr]) -> None:
    """`inputs`: id(parameter variable) -> the expression the wrapper passes for it (a Load of an
    input variable, or a Construct of such for a struct).  A helper function calling the intrinsics on its
    parameter (DXC accepts that: after inlining the argument is the input) is inlined into src first, and
    its parameter copy followed back to the input."""
    users = _attribute_users(module, src)
    if users:
        counter = [0]
        for f in module.functions:          # callees before callers
            if id(f) in users or f is src:
                f.body = inline_calls(f, f.body, users, counter)
        module.functions = [f for f in module.functions if id(f) not in users]
    for f in module.functions:
        if f is src:
            continue
        for s in ir.walk_stmts(f.body):
            for e in ir.stmt_exprs(s):
                for x in ir.walk_expr(e):
                    if isinstance(x, ir.Intrinsic) and x.name in NAMES:
                        raise error(f"'{x.name}' must be called in the entry function on one of its inputs",
                                    _loc(x) or f.loc)
    written = _written_params(src)
    copies = _copies(src) if users else {}

    def change(e: ir.Expr) -> ir.Expr:
        # the IR may share a node between parents (a splat): one already resolved is kept
        if isinstance(e, ir.Intrinsic) and e.name in NAMES and not _on_input(e.args[0]):
            if copies:
                e = ir.Intrinsic(e.name, [_through_copies(e.args[0], copies), *e.args[1:]], e.type, e.precise)
            return _resolve(e, inputs, written, src.loc)
        return e

    for s in ir.walk_stmts(src.body):
        for f in type(s)._fields:
            v = getattr(s, f)
            if isinstance(v, ir.Expr):
                setattr(s, f, ir.rewrite_expr(v, change))


def _resolve(e: ir.Intrinsic, inputs: dict[int, ir.Expr], written: set[int], fallback: SourceLoc | None) -> ir.Expr:
    loc = _loc(e) or fallback
    arg, rest = e.args[0], e.args[1:]
    swizzle: tuple[int, ...] | None = None
    if isinstance(arg, ir.Swizzle):
        swizzle, arg = arg.comps, arg.value
    place = arg.place if isinstance(arg, ir.Load) else None
    if isinstance(place, ir.SwizzleRef):
        swizzle, place = place.comps, place.base
    steps: list[ir.Expr] = []
    while isinstance(place, (ir.FieldRef, ir.IndexRef)):
        steps.append(place)
        place = place.base
    if not isinstance(place, ir.VarRef) or id(place.var) not in inputs:
        raise error(f"'{e.name}' needs a pixel shader input (an entry parameter or a member of one)", loc)
    if id(place.var) in written:
        raise error(f"'{e.name}' needs an unmodified pixel shader input: '{place.var.name}' is assigned", loc)
    value = inputs[id(place.var)]
    indices: list[ir.Expr] = []
    for step in reversed(steps):
        if isinstance(value, ir.Construct) and isinstance(step, ir.FieldRef):
            value = value.parts[step.index]
        elif isinstance(step, ir.IndexRef):
            indices.append(step.index)
        else:
            raise error(f"'{e.name}' needs a pixel shader input", loc)
    if not (isinstance(value, ir.Load) and isinstance(value.place, ir.VarRef)
            and value.place.var.storage is ir.Storage.INPUT):
        raise error(f"'{e.name}' needs a pixel shader input, not a system value", loc)
    var = value.place.var
    io = var.io
    if io is None or io.builtin is not None or io.semantic.upper().startswith("SV_"):
        raise error(f"'{e.name}' cannot evaluate system value '{io.semantic if io else var.name}'", loc)
    if e.name == AT_VERTEX:
        if io.interpolation != "nointerpolation":
            raise error(f"'{e.name}' needs a nointerpolation input; '{io.semantic}' is interpolated", loc)
        if not isinstance(var.type, (ir.Scalar, ir.Vector)) or indices:
            raise error(f"'{e.name}' needs a scalar or vector input, not '{var.type}'", loc)
        if not (isinstance(rest[0], ir.Const) and rest[0].value in (0, 1, 2)):
            raise error(f"'{e.name}' needs a constant vertex index 0, 1 or 2", loc)
    elif io.interpolation == "nointerpolation" or not (ir.scalar_of(_leaf(var.type)) or ir.BOOL).is_float:
        raise error(f"'{e.name}' needs an interpolated float input; '{io.semantic}' is not interpolated", loc)
    new: ir.Expr = ir.VarRef(var)
    t = var.type
    for idx in indices:
        t = t.elem if isinstance(t, ir.Array) else ir.Vector(t.elem, t.cols) if isinstance(t, ir.Matrix) else t
        new = ir.IndexRef(new, idx, t)
    result: ir.Expr = ir.Intrinsic(e.name, [ir.Load(new, t), *rest], t)
    if swizzle is not None:
        result = ir.Swizzle(result, swizzle, e.type) if len(swizzle) > 1 or isinstance(e.type, ir.Vector) \
            else ir.Extract(result, swizzle[0], e.type)
    return result


def _attribute_users(module: ir.Module, src: ir.Function) -> set[int]:
    """Ids of the functions other than src that call the intrinsics, or call such a function."""
    users: set[int] = set()
    for f in module.functions:              # callees before callers: one pass finds every caller
        if f is src:
            continue
        for x in ir.body_exprs(f.body):
            if isinstance(x, ir.Intrinsic) and x.name in NAMES or isinstance(x, ir.Call) and id(x.func) in users:
                users.add(id(f))
                break
    return users


def _copies(f: ir.Function) -> dict[int, ir.Expr]:
    """id(local) -> the place it copies, for each local of f stored once, whole, from a load of a place (an inlined
    `in` parameter's copy of its argument)."""
    stores = _stores_by_variable(f)
    out: dict[int, ir.Expr] = {}
    for v in f.locals:
        mine = stores.get(id(v), [])
        if len(mine) == 1 and isinstance(mine[0].place, ir.VarRef) and isinstance(mine[0].value, ir.Load):
            out[id(v)] = mine[0].value.place
    return out


def _through_copies(arg: ir.Expr, copies: dict[int, ir.Expr]) -> ir.Expr:
    """The argument (a load of a place, swizzled or not) with copied locals replaced by what they copy."""
    if isinstance(arg, ir.Swizzle):
        return ir.Swizzle(_through_copies(arg.value, copies), arg.comps, arg.type)
    if isinstance(arg, ir.Load):
        return ir.Load(_place_through_copies(arg.place, copies, len(copies)), arg.type)
    return arg


def _place_through_copies(p: ir.Expr, copies: dict[int, ir.Expr], depth: int) -> ir.Expr:
    if isinstance(p, ir.VarRef):
        src = copies.get(id(p.var))
        return p if src is None or depth <= 0 else _place_through_copies(src, copies, depth - 1)
    if isinstance(p, ir.FieldRef):
        return ir.FieldRef(_place_through_copies(p.base, copies, depth), p.index, p.type)
    if isinstance(p, ir.IndexRef):
        return ir.IndexRef(_place_through_copies(p.base, copies, depth), p.index, p.type)
    if isinstance(p, ir.SwizzleRef):
        return ir.SwizzleRef(_place_through_copies(p.base, copies, depth), p.comps, p.type)
    return p


def _on_input(arg: ir.Expr) -> bool:
    """A Load of an input variable's place (what _resolve makes)."""
    p = arg.place if isinstance(arg, ir.Load) else None
    while isinstance(p, ir.IndexRef):
        p = p.base
    return isinstance(p, ir.VarRef) and p.var.storage is ir.Storage.INPUT


def _leaf(t: ir.Type) -> ir.Type:
    while isinstance(t, ir.Array):
        t = t.elem
    return t


def _written_params(f: ir.Function) -> set[int]:
    """Variables (parameters) some statement of f stores to (through any member or element)."""
    return set(_stores_by_variable(f))


def _stores_by_variable(f: ir.Function) -> dict[int, list[ir.Store]]:
    """id(variable) -> the statements of f that store to it (through any member or element)."""
    out: dict[int, list[ir.Store]] = {}
    for s in ir.walk_stmts(f.body):
        if isinstance(s, ir.Store):
            p = s.place
            while isinstance(p, (ir.FieldRef, ir.IndexRef, ir.SwizzleRef)):
                p = p.base
            if isinstance(p, ir.VarRef):
                out.setdefault(id(p.var), []).append(s)
    return out


def _loc(e: ir.Expr) -> SourceLoc | None:
    for x in ir.walk_expr(e):
        if isinstance(x, ir.VarRef) and x.loc is not None:
            return x.loc
    return None


