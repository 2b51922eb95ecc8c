"""Entry wrapper: makes stage I/O explicit.

Creates Storage.INPUT/OUTPUT variables for the entry function's parameters and
return value (flattening structs; SV_* semantics are checked against the HLSL
system-value table, front/semantics.py, and keep their semantic: a backend maps
them to its own built-ins; other semantics get Locations in declaration order,
SV_Target<n> gets Location n), renames the HLSL function to `src.<name>`, and
adds a parameterless void wrapper named after the entry that loads inputs,
calls it and stores outputs.  Static-global initialisers run at its top.
Target options (Vulkan's -fvk-invert-y, ...) are not applied here: they are the
backend's own raise passes.
"""

from __future__ import annotations

from .. import ir
from ..diagnostics import SourceLoc, error
from ..front.semantics import TESS_FACTOR_TYPES, lookup, split_semantic
from ..options import CompileOptions


class _Builder:
    def __init__(self, module: ir.Module, options: CompileOptions) -> None:
        self.options = options
        self.module = module
        self.stage = module.stage
        self.entry = ir.entry_of(module)
        self.body: list[ir.Stmt] = []
        self.locals: list[ir.Variable] = []
        self.next_location = {"in": 0, "out": 0}
        self.seen_semantics: dict[tuple[str, str], SourceLoc | None] = {}
        self.explicit: dict[str, bool] = {}
        # tessellation: the I/O made now is per control point (arrayed = count) or per patch;
        # a hull shader's patch-constant function reuses the control-point function's inputs
        self.arrayed: int | None = None
        self.patch = False
        self.reuse_inputs = False
        self.io_vars: dict[tuple[str, str], ir.Variable] = {}
        self.output_index: ir.Expr | None = None     # hull: outputs are stored at [SV_OutputControlPointID]

    def tess_factor_type(self, name: str, t: ir.Type, direction: str, loc: SourceLoc | None) -> ir.Type:
        """SV_TessFactor / SV_InsideTessFactor: per patch, typed by [domain] (TESS_FACTOR_TYPES)."""
        tess = self.entry.tess
        assert tess is not None          # sema gives every hull and domain entry its TessInfo
        domain = tess.domain
        if self.stage == "hull" and not self.patch:
            raise error(f"'{name}' is a patch constant: the patch-constant function writes it, not the "
                        f"control-point function", loc)
        want = TESS_FACTOR_TYPES[name].get(domain)
        if want is None:
            raise error(f"'{name}' is not allowed with [domain(\"{domain}\")]", loc)
        if t != want:
            raise error(f"'{name}' with [domain(\"{domain}\")] must be declared '{want}', not '{t}'", loc)
        return t

    def local(self, name: str, t: ir.Type) -> ir.Variable:
        v = ir.Variable(name, t, ir.Storage.FUNCTION)
        self.locals.append(v)
        return v

    def io_var(self, semantic: str, t: ir.Type, direction: str, loc: SourceLoc | None,
               interpolation: str | None, prefix: str, vk: tuple[int | None, str | None] = (None, None),
               row_major: bool | None = None) -> ir.Variable:
        key = (direction, semantic.upper())
        if self.reuse_inputs and direction == "in" and key in self.io_vars:
            return self.io_vars[key]     # a hull shader's patch-constant function shares the inputs
        var = self._io_var(semantic, t, direction, loc, interpolation, prefix, vk, row_major)
        io = var.io
        assert io is not None
        if self.arrayed is not None:     # one element per control point
            var.type = ir.Array(var.type, self.arrayed)
            io.arrayed = True
        io.patch = self.patch and (direction == "out") == (self.stage == "hull")
        self.io_vars[key] = var
        (self.entry.inputs if direction == "in" else self.entry.outputs).append(var)
        return var

    def _io_var(self, semantic: str, t: ir.Type, direction: str, loc: SourceLoc | None,
                interpolation: str | None, prefix: str, vk: tuple[int | None, str | None] = (None, None),
                row_major: bool | None = None) -> ir.Variable:
        base, index = split_semantic(semantic)
        vk_location, vk_builtin = vk
        key = (direction, semantic.upper())
        if key in self.seen_semantics:
            raise error(f"semantic '{semantic}' is used more than once for {'inputs' if direction == 'in' else 'outputs'}", loc)
        self.seen_semantics[key] = loc
        sv = lookup(semantic)
        storage = ir.Storage.INPUT if direction == "in" else ir.Storage.OUTPUT
        name = f"{prefix}.{semantic}"
        if vk_builtin is not None:      # [[vk::builtin("PointSize")]]
            return ir.Variable(name, t, storage, loc, io=ir.IOInfo(base, index, builtin=vk_builtin))
        if sv is not None and sv.name != "SV_Target":
            if (self.stage, direction) not in sv.uses:
                raise error(f"invalid semantic '{semantic}' for {self.stage} shader "
                            f"{'input' if direction == 'in' else 'output'}", loc)
            var_type = sv.type
            if sv.name in TESS_FACTOR_TYPES:      # float[N] / float, by [domain]
                var_type = self.tess_factor_type(sv.name, t, direction, loc)
            elif sv.name in ("SV_ClipDistance", "SV_CullDistance"):
                var_type = t
            elif not isinstance(t, (ir.Vector, ir.Scalar)):    # a value converts only between scalars/vectors
                raise error(f"invalid type '{t}' for semantic '{sv.name}': it takes a scalar or vector "
                            f"({sv.type})", loc)
            io = ir.IOInfo(sv.name, index, interpolation=interpolation)
            return ir.Variable(name, var_type, storage, loc, io=io)
        if self.stage == "compute":
            raise error(f"invalid semantic '{semantic}' for compute shader input: compute shaders accept only "
                        f"SV_DispatchThreadID, SV_GroupID, SV_GroupThreadID and SV_GroupIndex", loc)
        if sv is not None and sv.name == "SV_Target":
            if direction != "out" or self.stage != "pixel":
                raise error(f"invalid semantic '{semantic}' for {self.stage} shader "
                            f"{'input' if direction == 'in' else 'output'}", loc)
            location = index
        elif vk_location is not None:   # [[vk::location(N)]]
            location = vk_location
            self.explicit[direction] = True
        else:
            if self.explicit.get(direction):
                raise error(f"semantic '{semantic}' needs [[vk::location]] too: explicit locations must be given "
                            f"for all or none of the {'inputs' if direction == 'in' else 'outputs'}", loc)
            location = self.next_location[direction]
        self.next_location[direction] = max(self.next_location[direction], location + _location_count(t))
        io = ir.IOInfo(base if sv is None else sv.name, index, None, location, interpolation,
                       self.options.row_major if row_major is None else row_major)
        return ir.Variable(name, t, storage, loc, io=io)

    # values in / out, recursively through structs
    def load_input(self, t: ir.Type, semantic: str | None, loc, interp, prefix: str, vk=(None, None),
                   row_major: bool | None = None) -> ir.Expr:
        if semantic is None or (isinstance(t, ir.Struct) and vk[1] is None):
            if not isinstance(t, ir.Struct):
                raise error("entry point parameter is missing a semantic", loc)
            parts = [self.load_input(f.type, sem, loc, f.interpolation or interp, f"{prefix}.{f.name}", fvk,
                                     f.row_major)
                     for f, sem, fvk in zip(t.fields, _member_semantics(t, semantic), _member_vk(t, vk[0]))]
            return ir.Construct(t, parts)
        var = self.io_var(semantic, t, "in", loc, interp, "in", vk, row_major)
        return _adapt(ir.Load(ir.VarRef(var), var.type), t)

    def load_patch(self, t: ir.Array, loc, interp, prefix: str) -> ir.Expr:
        """An InputPatch / OutputPatch<T, N> parameter: N control points from arrayed inputs."""
        assert t.size is not None
        self.arrayed = t.size
        try:
            points = self._load_points(t.elem, None, loc, interp, prefix)
        finally:
            self.arrayed = None
        return ir.Construct(t, points)

    def _load_points(self, t: ir.Type, semantic: str | None, loc, interp, prefix: str, vk=(None, None),
                     row_major: bool | None = None) -> list[ir.Expr]:
        if semantic is None or (isinstance(t, ir.Struct) and vk[1] is None):
            if not isinstance(t, ir.Struct):
                raise error("a control point's members need semantics", loc)
            fields = [self._load_points(f.type, sem, loc, f.interpolation or interp, f"{prefix}.{f.name}", fvk,
                                        f.row_major)
                      for f, sem, fvk in zip(t.fields, _member_semantics(t, semantic), _member_vk(t, vk[0]))]
            return [ir.Construct(t, [f[i] for f in fields]) for i in range(self.arrayed or 0)]
        var = self.io_var(semantic, t, "in", loc, interp, "in", vk, row_major)
        return [_adapt(_point(var, ir.Const(ir.UINT, i)), t) for i in range(self.arrayed or 0)]

    def store_output(self, value: ir.Expr, t: ir.Type, semantic: str | None, loc, interp, prefix: str,
                     vk=(None, None), row_major: bool | None = None) -> None:
        if semantic is None or (isinstance(t, ir.Struct) and vk[1] is None):
            if not isinstance(t, ir.Struct):
                raise error("entry point output is missing a semantic", loc)
            for i, (f, sem, fvk) in enumerate(zip(t.fields, _member_semantics(t, semantic), _member_vk(t, vk[0]))):
                self.store_output(ir.Extract(value, i, f.type), f.type, sem, loc, f.interpolation or interp,
                                  f"{prefix}.{f.name}", fvk, f.row_major)
            return
        var = self.io_var(semantic, t, "out", loc, interp, "out", vk, row_major)
        if self.output_index is not None:
            place = _point_place(var, self.output_index)
            self.body.append(ir.Store(place, _adapt(value, place.type)))
            return
        self.body.append(ir.Store(ir.VarRef(var), _adapt(value, var.type)))


def _member_semantics(t: ir.Struct, semantic: str | None) -> list[str | None]:
    """Each field's semantic.  A semantic on the struct itself cascades and overrides the members'
    (as in DXC): TEXCOORD3 numbers the leaves TEXCOORD3, TEXCOORD4, ..., each taking as many
    indices as it has signature rows (_semantic_rows), nested structs included."""
    if semantic is None:
        return [f.semantic for f in t.fields]
    base, index = split_semantic(semantic)
    out: list[str | None] = []
    for f in t.fields:
        out.append(f"{base}{index}")
        index += _semantic_rows(f.type, bool(f.row_major))
    return out


def _member_vk(t: ir.Struct, location: int | None) -> list[tuple[int | None, str | None]]:
    """Each field's ([[vk::location]], [[vk::builtin]]); a location on the struct itself numbers the
    fields consecutively from it (as the struct-typed variable it stands for would)."""
    out = []
    for f in t.fields:
        out.append((f.vk_location if location is None else location, f.vk_builtin))
        if location is not None:
            location += _location_count(f.type)
    return out


def _semantic_rows(t: ir.Type, row_major: bool) -> int:
    """Semantic indices a value of type t takes: one per signature row (a matrix has one row per
    row when row_major, per column when column_major)."""
    if isinstance(t, ir.Array):
        return (t.size or 1) * _semantic_rows(t.elem, row_major)
    if isinstance(t, ir.Matrix):
        return t.rows if row_major else t.cols
    if isinstance(t, ir.Struct):
        return sum(_semantic_rows(f.type, bool(f.row_major)) for f in t.fields)
    return 1


def _location_count(t: ir.Type) -> int:
    if isinstance(t, ir.Array):
        return (t.size or 1) * _location_count(t.elem)
    if isinstance(t, ir.Matrix):
        return t.rows
    if isinstance(t, ir.Struct):
        return sum(_location_count(f.type) for f in t.fields)
    return 1


def _adapt(value: ir.Expr, to: ir.Type) -> ir.Expr:
    """Convert between a built-in's natural type and the declared type
    (uint3 -> uint2 / int3 / uint, float4 -> float4, ...)."""
    src = value.type
    if src == to:
        return value
    ss, sd = ir.scalar_of(src), ir.scalar_of(to)
    ns = src.size if isinstance(src, ir.Vector) else 1
    nd = to.size if isinstance(to, ir.Vector) else 1
    if ss is None or sd is None:
        return value
    if nd < ns:
        value = ir.Swizzle(value, tuple(range(nd)), ir.vec(ss, nd))
    elif nd > ns:
        parts = [value] + [ir.Const(ss, ss.kind == "float" and 0.0 or 0)] * (nd - ns)
        value = ir.Construct(ir.Vector(ss, nd), parts)
    if ss != sd:
        value = ir.Convert(value, ir.vec(sd, nd))
    return value


def run(module: ir.Module, options: CompileOptions) -> None:
    ep = module.entry
    if ep is None or ep.function is not None:
        return
    src = ep.source_function
    b = _Builder(module, options)
    # static initialisers first
    if ep.static_init is not None:
        b.body.append(ir.Eval(ir.Call(ep.static_init, [], ir.VOID)))
    for g in module.globals:
        if g.storage is ir.Storage.PRIVATE and g.init is not None:
            b.body.append(ir.Store(ir.VarRef(g), g.init))
            g.init = None
    if module.stage == "hull":
        # outputs are per control point, stored at [SV_OutputControlPointID] (read here if the entry does not)
        if not any(p.var.io is not None and p.var.io.semantic.upper() == "SV_OUTPUTCONTROLPOINTID"
                   for p in src.params):
            b.io_var("SV_OutputControlPointID", ir.UINT, "in", src.loc, None, "in")
        _wrap_call(b, src, ep.return_semantic, ep.return_location, hull_points=True)
    else:
        _wrap_call(b, src, ep.return_semantic, ep.return_location)
    b.body.append(ir.Return())
    _add_ext_builtins(module)
    src.name = f"src.{ep.name}"
    wrapper = ir.Function(ep.name, [], ir.VOID, b.body, b.locals, src.loc)
    module.functions.append(wrapper)
    ep.function = wrapper
    if module.stage == "hull" and ep.tess is not None and ep.tess.patch_source is not None:
        _patch_constant_wrapper(module, b, ep.tess)


def _patch_constant_wrapper(module: ir.Module, b: _Builder, tess: ir.TessInfo) -> None:
    """The hull shader's patch-constant function, wrapped: it reads the same input patch (and
    SV_PrimitiveID) as the control-point function, may read the output patch, and stores the
    patch constants (IOInfo.patch)."""
    pcf = tess.patch_source
    assert pcf is not None
    b.body = []
    b.locals = []
    b.output_index = None
    b.reuse_inputs = True
    b.patch = True
    _wrap_call(b, pcf, None, None, patch_constant=True)
    b.body.append(ir.Return())
    pcf.name = f"src.{pcf.name}"
    wrapper = ir.Function(f"{pcf.name[4:]}.patch", [], ir.VOID, b.body, b.locals, pcf.loc)
    module.functions.append(wrapper)
    tess.patch_function = wrapper


def _wrap_call(b: _Builder, src: ir.Function, return_semantic: str | None, return_location: int | None,
               hull_points: bool = False, patch_constant: bool = False) -> None:
    """Load the inputs of `src`, call it and store its outputs (the body goes to b.body)."""
    args: list[ir.Expr | None] = [None] * len(src.params)
    out_params: list[tuple] = []
    params = list(enumerate(src.params))
    if b.stage == "domain":   # per-control-point inputs take the first locations, the patch constants follow
        params.sort(key=lambda ip: not isinstance(ip[1].var.type, ir.Array) or ip[1].var.io is not None)
    for i, p in params:
        var = p.var
        semantic = var.io.semantic if var.io else None
        interp = var.io.interpolation if var.io else None
        vk = (var.io.location, var.io.builtin) if var.io else (None, None)
        row_major = var.io.row_major if var.io else None
        patch_param = b.stage in ("hull", "domain") and semantic is None and isinstance(var.type, ir.Array)
        if p.direction == "in" and patch_param and isinstance(var.type, ir.Array):
            if patch_constant and b.stage == "hull" and _is_output_patch(b, var):
                args[i] = _load_output_patch(b, var.type, var.loc)
            else:
                b.patch = False
                args[i] = b.load_patch(var.type, var.loc, interp, f"in.{var.name}")
                b.patch = patch_constant
        elif p.direction == "in":
            b.patch = patch_constant or (b.stage == "domain" and _is_patch_input(semantic, var.type))
            args[i] = b.load_input(var.type, semantic, var.loc, interp, f"in.{var.name}", vk, row_major)
            b.patch = patch_constant
        else:
            tmp = b.local(f"param.{var.name}", var.type)
            if p.direction == "inout":
                b.body.append(ir.Store(ir.VarRef(tmp), b.load_input(var.type, semantic, var.loc, interp, var.name,
                                                                    vk, row_major)))
            args[i] = ir.VarRef(tmp)
            out_params.append((var, tmp, semantic, interp, vk, row_major))
        var.io = None
    if hull_points:
        point = b.io_vars[("in", "SV_OUTPUTCONTROLPOINTID")]
        b.output_index = ir.Load(ir.VarRef(point), point.type)
        b.arrayed = b.entry.tess.output_control_points if b.entry.tess else None
    call = ir.Call(src, [a for a in args if a is not None], src.return_type)     # every parameter has its argument
    if isinstance(src.return_type, ir.VoidType):
        b.body.append(ir.Eval(call))
    else:
        if return_semantic is None and not isinstance(src.return_type, ir.Struct):
            raise error(f"return value of '{src.name}' is missing a semantic", src.loc)
        ret = b.local(f"ret.{src.name}" if patch_constant else "ret", src.return_type)
        b.body.append(ir.Store(ir.VarRef(ret), call))
        b.store_output(ir.Load(ir.VarRef(ret), ret.type), ret.type, return_semantic, src.loc, None, "out.ret",
                       (return_location, None))
    for var, tmp, semantic, interp, vk, row_major in out_params:
        b.store_output(ir.Load(ir.VarRef(tmp), tmp.type), tmp.type, semantic, var.loc, interp, f"out.{var.name}", vk,
                       row_major)
    b.arrayed = None


def _point_place(var: ir.Variable, index: ir.Expr) -> ir.IndexRef:
    """Control point `index` of a per-control-point variable (an array)."""
    assert isinstance(var.type, ir.Array)
    return ir.IndexRef(ir.VarRef(var), index, var.type.elem)


def _point(var: ir.Variable, index: ir.Expr) -> ir.Expr:
    place = _point_place(var, index)
    return ir.Load(place, place.type)


def _is_patch_input(semantic: str | None, t: ir.Type) -> bool:
    """A domain shader input that is not per control point: the patch constants (any semantic
    but SV_DomainLocation / SV_PrimitiveID)."""
    if semantic is None:
        return True
    sv = lookup(semantic)
    return sv is None or sv.name in ("SV_TessFactor", "SV_InsideTessFactor")


def _is_output_patch(b: _Builder, var: ir.Variable) -> bool:
    return b.entry.tess is not None and any(v is var for v in b.entry.tess.output_patch_params)


def _load_output_patch(b: _Builder, t: ir.Array, loc) -> ir.Expr:
    """OutputPatch<T, N> in the patch-constant function: read back the control-point outputs."""
    n = t.size or 0

    def leaves(ty: ir.Type, semantic: str | None) -> list[ir.Expr]:
        if isinstance(ty, ir.Struct) and semantic is None:
            parts = [leaves(f.type, sem) for f, sem in zip(ty.fields, _member_semantics(ty, semantic))]
            return [ir.Construct(ty, [p[i] for p in parts]) for i in range(n)]
        if semantic is None:
            raise error("a control point's members need semantics", loc)
        var = b.io_vars.get(("out", semantic.upper()))
        if var is None or var.io is None or not var.io.arrayed:
            raise error(f"OutputPatch member '{semantic}' is not an output of the hull shader's control-point "
                        f"function", loc)
        return [_adapt(_point(var, ir.Const(ir.UINT, i)), ty) for i in range(n)]

    return ir.Construct(t, leaves(t.elem, None))


def _add_ext_builtins(module: ir.Module) -> None:
    """Seed 004 built-in globals join the entry interface only when some function
    uses them (an unused input built-in is not emitted)."""
    ext = [g for g in module.globals if g.storage in (ir.Storage.INPUT, ir.Storage.OUTPUT)]
    if not ext:
        return
    used = ir.referenced_variables(module.functions)
    for g in ext:
        module.globals.remove(g)
        if id(g) in used:
            (ir.entry_of(module).inputs if g.storage is ir.Storage.INPUT else ir.entry_of(module).outputs).append(g)
