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

AT_VERTEX = "GetAttributeAtVertex"
NAMES = frozenset({"EvaluateAttributeAtSample", "EvaluateAttributeCentroid", "EvaluateAttributeSnapped", AT_VERTEX})


def run(module: ir.Module, src: ir.Function, inputs: dict[int, ir.Expr]) -> None:
    """`inputs`: id(parameter variable) -> the expression the wrapper passes for it (a Load of an
    input variable, or a Construct of such for a struct)."""
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

    def change(e: ir.Expr) -> ir.Expr:
        # the IR may share a node between parents (a splat): one already resolved is kept
        if isinstance(e, ir.Intrinsic) and e.name in NAMES and not _on_input(e.args[0]):
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
    out: set[int] = set()
    for s in ir.walk_stmts(f.body):
        if isinstance(s, ir.Store):
            p = s.place
            while isinstance(p, (ir.FieldRef, ir.IndexRef, ir.SwizzleRef)):
                p = p.base
            if isinstance(p, ir.VarRef):
                out.add(id(p.var))
    return out


def _loc(e: ir.Expr) -> SourceLoc | None:
    for x in ir.walk_expr(e):
        if isinstance(x, ir.VarRef) and x.loc is not None:
            return x.loc
    return None


