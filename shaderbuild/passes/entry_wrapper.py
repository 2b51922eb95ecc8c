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
from ..front.semantics import SPECIAL_POINTS, TESS_FACTOR_TYPES, lookup, split_semantic
from ..ir.clone import clone_expr
from ..ir.intrinsics import STREAM_METHODS
from ..ir.streams import INPUT_PRIMITIVES, STREAM_KINDS
from ..options import CompileOptions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .mesh_io import MeshBindings

MAX_CLIP_CULL = 8       # D3D: clip and cull distances together have 8 components (two registers)
MAX_RENDER_TARGET = 7   # D3D12: SV_Target0 to SV_Target7 (D3D12_SIMULTANEOUS_RENDER_TARGET_COUNT = 8)


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
        self.array_rows: set[tuple[str, str]] = set()     # the rows of arrays among them
        self.explicit: dict[str, bool] = {}
        # tessellation: the I/O made now is per control point (arrayed = count) or per patch;
        # a hull shader's patch-constant function reuses the control-point function's inputs
        self.arrayed: int | None = None
        self.gs_vertices = False                     # geometry: the inputs made now are the primitive's vertices
        self.patch = False
        self.reuse_inputs = False
        self.io_vars: dict[tuple[str, str], ir.Variable] = {}
        self.output_index: ir.Expr | None = None     # hull: outputs are stored at [SV_OutputControlPointID]
        self.clip_cull = {"in": 0, "out": 0}
        self.param_inputs: dict[int, ir.Expr] = {}   # pixel: the value each input parameter got (evaluate_attribute)
        self.mesh_kind: str | None = None            # mesh: the outputs made now are per 'vertex' / 'primitive'
        self.per_primitive = False                   # pixel: the inputs made now are [[vk::perprimitive]]
        # mesh_io is imported for a mesh or amplification shader only (cold start, issue 15)
        self.mesh: MeshBindings | None = None
        if self.entry.mesh is not None or self.stage in ("mesh", "amplification"):
            from . import mesh_io

            self.mesh = mesh_io.MeshBindings()

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
               row_major: bool | None = None, stream: int = 0) -> ir.Variable:
        key = (self._side(direction, stream), semantic.upper())
        plain = vk[1] is None and self._special_point_value(semantic, direction, loc) == "plain"
        if self.reuse_inputs and direction == "in" and key in self.io_vars:
            return self.io_vars[key]     # a hull shader's patch-constant function shares the inputs
        var = self._io_var(semantic, t, direction, loc, interpolation, prefix, vk, row_major, stream, plain)
        io = var.io
        assert io is not None
        io.per_primitive = self.per_primitive and direction == "in"
        if self.arrayed is not None:     # one element per control point
            var.type = ir.Array(var.type, self.arrayed)
            io.arrayed = True
        io.patch = self._side(direction, stream) == "patch"
        self.io_vars[key] = var
        (self.entry.inputs if direction == "in" else self.entry.outputs).append(var)
        return var

    def _side(self, direction: str, stream: int = 0) -> str:
        """Which signature an element made now joins: 'in', 'out', a GS stream's 'out<n>', or 'patch' (a hull
        shader's patch constants, a domain shader's inputs that are not per control point): each has its own
        semantics (DXC checks a semantic's indices per signature)."""
        if self.patch and (direction == "out") == (self.stage == "hull"):
            return "patch"
        return direction if stream == 0 else f"{direction}{stream}"

    def _special_point_value(self, semantic: str, direction: str, loc: SourceLoc | None) -> str | None:
        """At DXC's tessellation and geometry signature points (semantics.SPECIAL_POINTS): how `semantic` is
        taken there ('sv' or 'plain'), or a located error where DXC refuses it; None elsewhere."""
        if self.stage not in ("hull", "domain", "geometry"):
            return None
        if self.arrayed is not None or self.gs_vertices:
            point: str | None = "vertices"
        elif self.stage == "geometry":
            point = "GSIn" if direction == "in" else None
        elif self.stage == "hull":
            point = ("PCOut" if self.patch else None) if direction == "out" else "PCIn" if self.patch else "HSIn"
        else:
            point = "DSIn" if direction == "in" else None
        if point is None:
            return None
        sv = lookup(semantic)
        if point == "vertices" and sv is not None and sv.name in TESS_FACTOR_TYPES:
            return None         # (tess_factor_type says why it is refused)
        how = SPECIAL_POINTS[point].get(sv.name if sv is not None else "" if not semantic.upper().startswith("SV_")
                                        else semantic)
        if how is None:
            what = {"vertices": f"{'input' if direction == 'in' else 'output'} (per "
                                f"{'vertex' if self.stage == 'geometry' else 'control point'})",
                    "GSIn": "input (not per vertex)", "HSIn": "input (not in the input patch)", "PCIn": "input (of the patch-constant function)",
                    "PCOut": "output (a patch constant)", "DSIn": "input (a patch constant)"}[point]
            raise error(f"invalid semantic '{semantic}' for {self.stage} shader {what}", loc)
        return how

    def _io_var(self, semantic: str, t: ir.Type, direction: str, loc: SourceLoc | None,
                interpolation: str | None, prefix: str, vk: tuple[int | None, str | None] = (None, None),
                row_major: bool | None = None, stream: int = 0, plain: bool = False) -> ir.Variable:
        base, index = split_semantic(semantic)
        last = index + _semantic_rows(t, bool(row_major)) - 1
        if last > 0xFFFFFFFF:      # a signature element's index is 32 bits (DXC's atoi() wraps it silently)
            raise error(f"semantic '{semantic}' reaches index {last}; a semantic index is at most 4294967295", loc)
        vk_location, vk_builtin = vk
        # the signature rows it takes: SV_Target is SV_Target0, an array `t[2] : TEXCOORD1` is TEXCOORD1 and 2
        side = self._side(direction, stream)
        rows = [(side, f"{base.upper()}{index + k}") for k in range(t.size if isinstance(t, ir.Array) and t.size else 1)]
        for k, row in enumerate(rows):
            if row not in self.seen_semantics:
                continue
            if len(rows) == 1 and row not in self.array_rows:
                raise error(f"semantic '{semantic}' is used more than once for "
                            f"{'inputs' if direction == 'in' else 'outputs'}", loc)
            raise error(f"{'input' if direction == 'in' else 'output'} semantic '{semantic}' has overlapping "
                        f"semantic index {index + k}", loc)     # (the DXIL backend's words for its signature)
        self.seen_semantics.update(dict.fromkeys(rows, loc))
        if len(rows) > 1:
            self.array_rows.update(rows)
        sv = lookup(semantic)
        storage = ir.Storage.INPUT if direction == "in" else ir.Storage.OUTPUT
        name = f"{prefix}.{semantic}"
        if vk_builtin is not None:      # [[vk::builtin("PointSize")]]
            return ir.Variable(name, t, storage, loc, io=ir.IOInfo(base, index, builtin=vk_builtin))
        if sv is None and base.upper().startswith("SV_"):
            raise error(f"unknown system value semantic '{semantic}'", loc)
        if sv is not None and (plain or (self.stage, direction) in sv.plain):
            base, sv = sv.name, None        # an ordinary value here (SV_Position as a vertex attribute, ...)
        if sv is not None and sv.name != "SV_Target":
            use = "prim" if self.mesh_kind == "primitive" else direction
            if (self.stage, use) not in sv.uses:
                raise error(f"invalid semantic '{semantic}' for {self.stage} shader "
                            f"{'input' if direction == 'in' else 'output'}", loc)
            profile = self.options.parsed_profile
            if profile is not None and (profile.major, profile.minor) < sv.min_sm:
                raise error(f"semantic '{sv.name}' needs shader model {sv.min_sm[0]}.{sv.min_sm[1]} or later "
                            f"(profile is {self.options.profile})", loc)
            var_type = sv.type
            if sv.name in TESS_FACTOR_TYPES:      # float[N] / float, by [domain]
                var_type = self.tess_factor_type(sv.name, t, direction, loc)
            elif sv.shape == "declared":
                n = _float_components(t)
                if n is None:
                    raise error(f"semantic '{sv.name}' requires a float, float2, float3, float4 or float[n], "
                                f"not '{t}'", loc)
                self.clip_cull[direction] += n
                if self.clip_cull[direction] > MAX_CLIP_CULL:
                    raise error(f"'{semantic}' exceeds the limit of {MAX_CLIP_CULL} clip and cull distance "
                                f"components: at most {MAX_CLIP_CULL} clip and cull distance components are "
                                f"allowed per stage input or output", loc)
                var_type = t
            elif not isinstance(t, (ir.Vector, ir.Scalar)):    # a value converts only between scalars/vectors
                raise error(f"invalid type '{t}' for semantic '{sv.name}': it takes a scalar or vector "
                            f"({sv.type})", loc)
            io = ir.IOInfo(sv.name, index, interpolation=interpolation, stream=stream)
            return ir.Variable(name, var_type, storage, loc, io=io)
        if self.stage == "compute":
            raise error(f"invalid semantic '{semantic}' for compute shader input: compute shaders accept only "
                        f"SV_DispatchThreadID, SV_GroupID, SV_GroupThreadID and SV_GroupIndex", loc)
        if self.stage in ("mesh", "amplification") and direction == "in":
            raise error(f"invalid semantic '{semantic}' for {self.stage} shader input: it takes only SV_DispatchThreadID, "
                        f"SV_GroupID, SV_GroupThreadID, SV_GroupIndex{', SV_ViewID' if self.stage == 'mesh' else ''} "
                        f"and {'the payload' if self.stage == 'mesh' else 'no other input'}", loc)
        if sv is not None and sv.name == "SV_Target":
            if direction != "out" or self.stage != "pixel":
                raise error(f"invalid semantic '{semantic}' for {self.stage} shader "
                            f"{'input' if direction == 'in' else 'output'}", loc)
            if (last := index + len(rows) - 1) > MAX_RENDER_TARGET:     # D3D12: 8 render targets
                raise error(f"'{semantic}' is defined with semantic index {last}, but only values 0 through "
                            f"{MAX_RENDER_TARGET} are supported", loc)
            location = index
        elif vk_location is not None:   # [[vk::location(N)]]
            location = vk_location
            self.explicit[direction] = True
        else:
            if self.explicit.get(direction):
                raise error(f"semantic '{semantic}' needs [[vk::location]] too: explicit locations must be given "
                            f"for all or none of the {'inputs' if direction == 'in' else 'outputs'}", loc)
            location = self.next_location[direction]
        self.next_location[direction] = max(self.next_location[direction], location + location_count(t))
        io = ir.IOInfo(base if sv is None else sv.name, index, None, location, interpolation,
                       self.options.row_major if row_major is None else row_major, stream=stream)
        return ir.Variable(name, t, storage, loc, io=io)

    def member_locs(self, t: ir.Struct, loc: SourceLoc | None) -> list[SourceLoc | None]:
        """Where each member of `t` is declared (an error about its semantic or type points there), else `loc`."""
        locs = self.module.field_locs.get(t, ())
        return [locs[i] if i < len(locs) and locs[i] is not None else loc for i in range(len(t.fields))]

    # values in / out, recursively through structs
    def load_input(self, t: ir.Type, semantic: str | None, loc, interp, prefix: str, vk=(None, None),
                   row_major: bool | None = None) -> ir.Expr:
        if semantic is None or (isinstance(t, ir.Struct) and vk[1] is None):
            if not isinstance(t, ir.Struct):    # (sema checks the entry's own; a patch-constant function's get here)
                name = prefix[3:] if prefix.startswith("in.") else prefix
                raise error(f"parameter '{name}' is missing a semantic", loc)
            whole = self.per_primitive
            parts = []
            for f, sem, fvk, floc in zip(t.fields, _member_semantics(t, semantic), _member_vk(t, vk[0]),
                                         self.member_locs(t, loc)):
                self.per_primitive = whole or f.per_primitive       # [[vk::perprimitive]] on the member
                parts.append(self.load_input(f.type, sem, floc, f.interpolation or interp, f"{prefix}.{f.name}", fvk,
                                             f.row_major))
            self.per_primitive = whole
            return ir.Construct(t, parts)
        if self.stage == "pixel" and vk[1] is None and split_semantic(semantic)[0].upper() == "SV_CULLPRIMITIVE":
            # DXC's PSIn: NotInSig, the constant false (a primitive that reaches the pixel shader was not culled)
            if not isinstance(t, ir.Scalar):
                raise error(f"invalid type '{t}' for semantic 'SV_CullPrimitive': it takes a scalar (bool)", loc)
            return _adapt(ir.Const(ir.BOOL, False), t)
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
            fields = [self._load_points(f.type, sem, floc, f.interpolation or interp, f"{prefix}.{f.name}", fvk,
                                        f.row_major)
                      for f, sem, fvk, floc in zip(t.fields, _member_semantics(t, semantic), _member_vk(t, vk[0]),
                                                   self.member_locs(t, loc))]
            return [ir.Construct(t, [f[i] for f in fields]) for i in range(self.arrayed or 0)]
        var = self.io_var(semantic, t, "in", loc, interp, "in", vk, row_major)
        return [_adapt(_point(var, ir.Const(ir.UINT, i)), t) for i in range(self.arrayed or 0)]

    def store_output(self, value: ir.Expr, t: ir.Type, semantic: str | None, loc, interp, prefix: str,
                     vk=(None, None), row_major: bool | None = None) -> None:
        if semantic is None or (isinstance(t, ir.Struct) and vk[1] is None):
            if not isinstance(t, ir.Struct):
                raise error("entry point output is missing a semantic", loc)
            for i, (f, sem, fvk, floc) in enumerate(zip(t.fields, _member_semantics(t, semantic), _member_vk(t, vk[0]),
                                                        self.member_locs(t, loc))):
                self.store_output(ir.Extract(value, i, f.type), f.type, sem, floc, f.interpolation or interp,
                                  f"{prefix}.{f.name}", fvk, f.row_major)
            return
        var = self.io_var(semantic, t, "out", loc, interp, "out", vk, row_major)
        if self.output_index is not None:
            place = _point_place(var, self.output_index)
            self.body.append(ir.Store(place, _adapt(value, place.type)))
            return
        self.body.append(ir.Store(ir.VarRef(var), _adapt(value, var.type)))


    # geometry shaders: per-vertex input arrays and output streams
    def load_vertices(self, t: ir.Type, semantic: str | None, loc, interp, prefix: str, count: int,
                      vk=(None, None), row_major: bool | None = None) -> list[ir.Expr]:
        """The `count` values of a GS input primitive parameter: each leaf is one Input variable holding
        an array of `count` per-vertex values (IOInfo.vertices), read element by element."""
        if semantic is None or (isinstance(t, ir.Struct) and vk[1] is None):
            if not isinstance(t, ir.Struct):
                raise error("entry point parameter is missing a semantic", loc)
            fields = [self.load_vertices(f.type, sem, floc, f.interpolation or interp, f"{prefix}.{f.name}", count,
                                         fvk, f.row_major)
                      for f, sem, fvk, floc in zip(t.fields, _member_semantics(t, semantic), _member_vk(t, vk[0]),
                                                   self.member_locs(t, loc))]
            return [ir.Construct(t, [f[i] for f in fields]) for i in range(count)]
        self.gs_vertices = True
        try:
            var = self.io_var(semantic, t, "in", loc, interp, "in", vk, row_major)
        finally:
            self.gs_vertices = False
        elem = var.type
        var.type = ir.Array(elem, count)
        assert var.io is not None and self.entry is not None
        var.io.vertices = count
        return [_adapt(ir.Load(ir.IndexRef(ir.VarRef(var), ir.Const(ir.UINT, i), elem), elem), t)
                for i in range(count)]

    def stream_outputs(self, t: ir.Type, semantic: str | None, loc, interp, prefix: str, stream: int,
                       path: tuple[int, ...] = (), vk=(None, None),
                       row_major: bool | None = None) -> list[tuple[ir.Variable, tuple[int, ...]]]:
        """The Output variables of one stream's vertex type: (variable, field path in the vertex)."""
        if semantic is None or (isinstance(t, ir.Struct) and vk[1] is None):
            if not isinstance(t, ir.Struct):
                raise error("geometry shader output is missing a semantic", loc)
            out = []
            for i, (f, sem, fvk, floc) in enumerate(zip(t.fields, _member_semantics(t, semantic), _member_vk(t, vk[0]),
                                                        self.member_locs(t, loc))):
                out += self.stream_outputs(f.type, sem, floc, f.interpolation or interp, f"{prefix}.{f.name}", stream,
                                           (*path, i), fvk, f.row_major)
            return out
        var = self.io_var(semantic, t, "out", loc, interp, "out", vk, row_major, stream)
        return [(var, path)]


GS_OUTPUT_COMPONENTS = 1024     # D3D's (and Vulkan's usual maxGeometryTotalOutputComponents) limit


def _check_output_budget(ep: ir.EntryPoint, gs: ir.GeometryInfo, src: ir.Function) -> None:
    """D3D's rule: [maxvertexcount] times the scalar components of one output vertex (every stream's
    outputs) is at most 1024."""
    scalars = sum(ir.component_count(v.type) for v in ep.outputs)
    total = gs.max_vertex_count * scalars
    if total > GS_OUTPUT_COMPONENTS:
        raise error(f"geometry shader output too large: maxvertexcount ({gs.max_vertex_count}) times "
                    f"the {scalars} scalar components of an output vertex is {total}, more than "
                    f"{GS_OUTPUT_COMPONENTS}", src.loc)


def _emit_streams(src: ir.Function, streams: dict[int, tuple[int, list]]) -> None:
    """Rewrite Append / RestartStrip on the stream parameters of `src`: Append stores the vertex to
    its stream's Output variables, then emits it (EmitVertex); RestartStrip ends the strip (EndPrimitive)."""
    def change(s: ir.Stmt) -> list[ir.Stmt] | None:
        if not (isinstance(s, ir.Eval) and isinstance(s.expr, ir.Intrinsic) and s.expr.name in STREAM_METHODS
                and isinstance(s.expr.args[0].type, ir.Resource) and s.expr.args[0].type.kind in STREAM_KINDS):
            return None
        target = s.expr.args[0]
        if not (isinstance(target, ir.VarRef) and id(target.var) in streams):
            raise error("a stream must be used directly through the geometry entry point's stream "
                        "parameter", s.loc)
        index, outputs = streams[id(target.var)]
        out: list[ir.Stmt] = []
        if s.expr.name == "Append":
            value = s.expr.args[1]
            tmp = ir.Variable(f"vertex.{len(src.locals)}", value.type, ir.Storage.FUNCTION)
            src.locals.append(tmp)
            out.append(ir.Store(ir.VarRef(tmp), value, s.loc))
            for var, path in outputs:
                v: ir.Expr = ir.Load(ir.VarRef(tmp), tmp.type)
                for i in path:
                    st = v.type
                    assert isinstance(st, ir.Struct)
                    v = ir.Extract(v, i, st.fields[i].type)
                out.append(ir.Store(ir.VarRef(var), _adapt(v, var.type), s.loc))
            name = "EmitVertex"
        else:
            name = "EndPrimitive"
        out.append(ir.Eval(ir.Intrinsic(name, [ir.Const(ir.UINT, index)], ir.VOID), s.loc))
        return out

    src.body = ir.rewrite_stmts(src.body, change)


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
            location += location_count(f.type)
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


def _float_components(t: ir.Type) -> int | None:
    """Components of a clip/cull distance value (float, float1-4, float[n]); None for other types."""
    if isinstance(t, ir.Array) and t.size and t.elem == ir.FLOAT:
        return t.size
    if t == ir.FLOAT:
        return 1
    if isinstance(t, ir.Vector) and t.elem == ir.FLOAT:
        return t.size
    return None


def location_count(t: ir.Type) -> int:
    """How many interface Locations a value of type t takes (a backend placing a value of its own reuses it)."""
    if isinstance(t, ir.Array):
        return (t.size or 1) * location_count(t.elem)
    if isinstance(t, ir.Matrix):
        return t.rows
    if isinstance(t, ir.Struct):
        return sum(location_count(f.type) for f in t.fields)
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
    if module.entries:
        _ray_wrappers(module)
        return
    ep = module.entry
    if ep is None or ep.function is not None:
        return
    src = ep.source_function
    b = _Builder(module, options)
    # static initialisers first: the constant ones, then the run-time ones (which may read them:
    # `static float2 B[2] = { A[1], A[0] };` with A a static const table)
    for g in module.globals:
        if g.storage is ir.Storage.PRIVATE and g.init is not None:
            b.body.append(ir.Store(ir.VarRef(g), g.init))
            g.init = None
    if ep.static_init is not None:
        b.body.append(ir.Eval(ir.Call(ep.static_init, [], ir.VOID)))
    if module.stage == "hull":
        # outputs are per control point, stored at [SV_OutputControlPointID] (read here if the entry does not)
        if not any(p.var.io is not None and p.var.io.semantic.upper() == "SV_OUTPUTCONTROLPOINTID"
                   for p in src.params):
            b.io_var("SV_OutputControlPointID", ir.UINT, "in", src.loc, None, "in")
        _wrap_call(b, src, ep.return_semantic, ep.return_location, hull_points=True)
        streams = {}
    else:
        streams = _wrap_call(b, src, ep.return_semantic, ep.return_location)
    if b.mesh is not None:
        from . import mesh_io

        if module.stage == "mesh":
            mesh_io.rewrite(module, src, b.mesh)
        if module.stage == "amplification":
            b.body.append(mesh_io.move_dispatch(module, ep, src))
    b.body.append(ir.Return())
    if module.stage == "pixel":
        from . import evaluate_attribute  # pixel stage only (test_import_budget)

        evaluate_attribute.run(module, src, b.param_inputs)
    if streams and ep.geometry is not None:
        _check_output_budget(ep, ep.geometry, src)
        _emit_streams(src, streams)
    _add_ext_builtins(module)
    src.name = f"src.{ep.name}"
    wrapper = ir.Function(ep.name, [], ir.VOID, b.body, b.locals, src.loc)
    module.functions.append(wrapper)
    ep.function = wrapper
    if module.stage == "hull" and ep.tess is not None and ep.tess.patch_source is not None:
        _patch_constant_wrapper(module, b, ep.tess)


def _ray_wrappers(module: ir.Module) -> None:
    """A library's shaders: each wrapper runs the static initialisers, then calls the HLSL function with
    the payload / attributes / callable data it receives as parameters of its own (ir/raytracing.py:
    DXIL passes them as pointers, SPIR-V binds them to variables of the ray-tracing storage classes)."""
    inits = [g for g in module.globals if g.storage is ir.Storage.PRIVATE and g.init is not None]
    for ep in module.entries:
        if ep.function is not None:
            continue
        src = ep.source_function
        body: list[ir.Stmt] = []
        for g in inits:         # constant initialisers before the run-time ones, as in run()
            assert g.init is not None
            body.append(ir.Store(ir.VarRef(g), clone_expr(g.init, {})))
        if ep.static_init is not None:
            body.append(ir.Eval(ir.Call(ep.static_init, [], ir.VOID)))
        params: list[ir.Param] = []
        locals_: list[ir.Variable] = []
        args: list[ir.Expr] = []
        after: list[ir.Stmt] = []
        for p in src.params:
            var = ir.Variable(p.var.name, p.var.type, ir.Storage.FUNCTION, p.var.loc)
            params.append(ir.Param(var, p.direction))
            if p.direction == "in":
                args.append(ir.Load(ir.VarRef(var), var.type))
                continue
            tmp = ir.Variable(f"{p.var.name}.arg", var.type, ir.Storage.FUNCTION)
            locals_.append(tmp)
            body.append(ir.Store(ir.VarRef(tmp), ir.Load(ir.VarRef(var), var.type)))
            args.append(ir.VarRef(tmp))
            after.append(ir.Store(ir.VarRef(var), ir.Load(ir.VarRef(tmp), var.type)))
        body += [ir.Eval(ir.Call(src, args, ir.VOID)), *after, ir.Return()]
        src.name = f"src.{ep.name}"
        wrapper = ir.Function(ep.name, params, ir.VOID, body, locals_, src.loc)
        module.functions.append(wrapper)
        ep.function = wrapper
    for g in inits:
        g.init = None


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


def _bind_mesh_param(b: _Builder, ep: ir.EntryPoint, var: ir.Variable, mesh: MeshBindings) -> bool:
    from . import mesh_io

    return mesh_io.bind_param(b, ep, var, mesh, b.module)


def _wrap_call(b: _Builder, src: ir.Function, return_semantic: str | None, return_location: int | None,
               hull_points: bool = False, patch_constant: bool = False) -> dict[int, tuple[int, list]]:
    """Load the inputs of `src`, call it and store its outputs (the body goes to b.body); returns a
    geometry shader's streams (see _emit_streams)."""
    args: list[ir.Expr | None] = [None] * len(src.params)
    out_params: list[tuple] = []
    params = list(enumerate(src.params))
    if b.stage == "domain":   # per-control-point inputs take the first locations, the patch constants follow
        params.sort(key=lambda ip: not isinstance(ip[1].var.type, ir.Array) or ip[1].var.io is not None)
    ep = b.entry
    streams: dict[int, tuple[int, list]] = {}
    for i, p in params:
        var = p.var
        if b.mesh is not None and _bind_mesh_param(b, ep, var, b.mesh):
            src.params.remove(p)        # written (read) in place: see mesh_io
            var.io = None
            continue
        semantic = var.io.semantic or None if var.io else None
        interp = var.io.interpolation if var.io else None
        b.per_primitive = var.io is not None and var.io.per_primitive
        vk = (var.io.location, var.io.builtin) if var.io else (None, None)
        row_major = var.io.row_major if var.io else None
        patch_param = b.stage in ("hull", "domain") and semantic is None and isinstance(var.type, ir.Array)
        if isinstance(var.type, ir.Resource) and var.type.elem is not None and ep.geometry is not None:  # GS stream
            outputs = b.stream_outputs(var.type.elem, semantic, var.loc, interp, f"out.{var.name}", len(streams))
            streams[id(var)] = (len(streams), outputs)
            src.params.remove(p)
        elif ep.geometry is not None and var.name == ep.geometry.input_param and isinstance(var.type, ir.Array):
            n = INPUT_PRIMITIVES[ep.geometry.input_primitive]
            args[i] = ir.Construct(var.type, b.load_vertices(var.type.elem, semantic, var.loc, interp,
                                                             f"in.{var.name}", n, vk, row_major))
        elif p.direction == "in" and patch_param and isinstance(var.type, ir.Array):
            if patch_constant and b.stage == "hull" and _is_output_patch(b, var):
                args[i] = _load_output_patch(b, var.type, var.loc)
            else:
                b.patch = False
                args[i] = b.load_patch(var.type, var.loc, interp, f"in.{var.name}")
                b.patch = patch_constant
        elif p.direction == "in":
            b.patch = patch_constant or (b.stage == "domain" and _is_patch_input(semantic, var.type))
            value = b.load_input(var.type, semantic, var.loc, interp, f"in.{var.name}", vk, row_major)
            args[i] = value
            b.param_inputs[id(var)] = value
            b.patch = patch_constant
        else:
            tmp = b.local(f"param.{var.name}", var.type)
            if p.direction == "inout":
                b.body.append(ir.Store(ir.VarRef(tmp), b.load_input(var.type, semantic, var.loc, interp, var.name,
                                                                    vk, row_major)))
            args[i] = ir.VarRef(tmp)
            out_params.append((var, tmp, semantic, interp, vk, row_major))
        var.io = None
    b.per_primitive = False
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
    return streams


def _point_place(var: ir.Variable, index: ir.Expr) -> ir.IndexRef:
    """Control point `index` of a per-control-point variable (an array)."""
    assert isinstance(var.type, ir.Array)
    return ir.IndexRef(ir.VarRef(var), index, var.type.elem)


def _point(var: ir.Variable, index: ir.Expr) -> ir.Expr:
    place = _point_place(var, index)
    return ir.Load(place, place.type)


def _is_patch_input(semantic: str | None, t: ir.Type) -> bool:
    """A domain shader input that is not per control point: the patch constants (DXC's DSIn: any semantic
    but SV_DomainLocation / SV_PrimitiveID / SV_ViewID, which are read by operations)."""
    if semantic is None:
        return True
    sv = lookup(semantic)
    return sv is None or sv.name not in ("SV_DomainLocation", "SV_PrimitiveID", "SV_ViewID")


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
