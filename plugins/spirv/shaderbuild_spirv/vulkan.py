"""The SPIR-V backend's raise passes: what HLSL means on Vulkan, applied to the
IR after the shared passes and before lowering (issue 15: a Vulkan option can
change only a Vulkan binary).

  unsupported     a located error for a table intrinsic Vulkan cannot express (GatherCmpGreen/Blue/Alpha)
  system_values   SV_* stage I/O -> SPIR-V BuiltIn per stage and direction (DXC's mapping); the others a Location
                  (a VS / DS layer or viewport index also to a Location, for a GS or HS to read)
  io_types        Vulkan's types of built-ins (bool as uint, SampleMask, one ClipDistance/CullDistance array)
  interlock       a pixel shader using rasterizer-ordered views runs inside the fragment shader interlock
  invert_y        -fvk-invert-y: the vertex Position output's y is negated
  dx_position_w   -fvk-use-dx-position-w: FragCoord.w read as D3D's w (1 / Vulkan's)
  nonzero_base    -fvk-support-nonzero-base-vertex / -instance: SV_VertexID / SV_InstanceID as D3D counts them
  ray_interface   ray-tracing library shaders' payloads, hit attributes and callable data -> variables of
                  the SPV_KHR_ray_tracing storage classes (raytracing.py)
  bindings        Vulkan descriptor sets and bindings (shaderbuild.passes.vk_bindings, strict:
                  two resources on one binding are an error in a Vulkan binary)
"""

from __future__ import annotations

from shaderbuild import ir
from shaderbuild.diagnostics import error
from shaderbuild.ir.resource_kinds import KINDS
from shaderbuild.options import CompileOptions
from shaderbuild.passes import vk_bindings
from shaderbuild.passes.entry_wrapper import location_count

TYPE_CHECKING = False
if TYPE_CHECKING:       # no typing at run time (cold start, issue 23)
    from collections.abc import Callable

    from .emit_expr import Ctx

# the barrier between a hull shader's control-point and patch-constant parts (intrinsics.BARRIERS)
PATCH_BARRIER = "spirv.PatchConstantBarrier"
# the critical section of a pixel shader that uses rasterizer-ordered views (SPV_EXT_fragment_shader_interlock)
BEGIN_INTERLOCK, END_INTERLOCK = "spirv.BeginInvocationInterlock", "spirv.EndInvocationInterlock"

# (HLSL system value, stage, direction) -> SPIR-V BuiltIn
SV_BUILTINS: dict[tuple[str, str, str], str] = {
    ("SV_DispatchThreadID", "compute", "in"): "GlobalInvocationId",
    ("SV_GroupID", "compute", "in"): "WorkgroupId",
    ("SV_GroupThreadID", "compute", "in"): "LocalInvocationId",
    ("SV_GroupIndex", "compute", "in"): "LocalInvocationIndex",
    ("SV_Position", "vertex", "out"): "Position",
    ("SV_Position", "pixel", "in"): "FragCoord",
    ("SV_VertexID", "vertex", "in"): "VertexIndex",
    ("SV_InstanceID", "vertex", "in"): "InstanceIndex",
    ("SV_StartVertexLocation", "vertex", "in"): "BaseVertex",
    ("SV_StartInstanceLocation", "vertex", "in"): "BaseInstance",
    ("SV_IsFrontFace", "pixel", "in"): "FrontFacing",
    ("SV_Depth", "pixel", "out"): "FragDepth",
    ("SV_Coverage", "pixel", "in"): "SampleMask",
    ("SV_Coverage", "pixel", "out"): "SampleMask",
    ("SV_SampleIndex", "pixel", "in"): "SampleId",
    ("SV_PrimitiveID", "pixel", "in"): "PrimitiveId",
    ("SV_ClipDistance", "vertex", "out"): "ClipDistance",
    ("SV_ClipDistance", "pixel", "in"): "ClipDistance",
    ("SV_CullDistance", "vertex", "out"): "CullDistance",
    ("SV_CullDistance", "pixel", "in"): "CullDistance",
    ("SV_RenderTargetArrayIndex", "pixel", "in"): "Layer",
    ("SV_ViewportArrayIndex", "pixel", "in"): "ViewportIndex",
    ("SV_Position", "hull", "in"): "Position",
    ("SV_Position", "hull", "out"): "Position",
    ("SV_Position", "domain", "in"): "Position",
    ("SV_Position", "domain", "out"): "Position",
    ("SV_OutputControlPointID", "hull", "in"): "InvocationId",
    ("SV_PrimitiveID", "hull", "in"): "PrimitiveId",
    ("SV_PrimitiveID", "domain", "in"): "PrimitiveId",
    ("SV_DomainLocation", "domain", "in"): "TessCoord",
    ("SV_TessFactor", "hull", "out"): "TessLevelOuter",
    ("SV_TessFactor", "domain", "in"): "TessLevelOuter",
    ("SV_InsideTessFactor", "hull", "out"): "TessLevelInner",
    ("SV_InsideTessFactor", "domain", "in"): "TessLevelInner",
    ("SV_Position", "geometry", "in"): "Position",
    ("SV_Position", "geometry", "out"): "Position",
    ("SV_ClipDistance", "geometry", "in"): "ClipDistance",
    ("SV_ClipDistance", "geometry", "out"): "ClipDistance",
    ("SV_CullDistance", "geometry", "in"): "CullDistance",
    ("SV_CullDistance", "geometry", "out"): "CullDistance",
    ("SV_PrimitiveID", "geometry", "in"): "PrimitiveId",
    ("SV_PrimitiveID", "geometry", "out"): "PrimitiveId",
    ("SV_GSInstanceID", "geometry", "in"): "InvocationId",
    ("SV_RenderTargetArrayIndex", "geometry", "out"): "Layer",
    ("SV_ViewportArrayIndex", "geometry", "out"): "ViewportIndex",
    ("SV_RenderTargetArrayIndex", "vertex", "out"): "Layer",
    ("SV_ViewportArrayIndex", "vertex", "out"): "ViewportIndex",
    ("SV_RenderTargetArrayIndex", "domain", "out"): "Layer",
    ("SV_ViewportArrayIndex", "domain", "out"): "ViewportIndex",
    ("SV_DepthGreaterEqual", "pixel", "out"): "FragDepth",
    ("SV_DepthLessEqual", "pixel", "out"): "FragDepth",
    ("SV_StencilRef", "pixel", "out"): "FragStencilRefEXT",
    ("SV_InnerCoverage", "pixel", "in"): "FullyCoveredEXT",
    ("SV_ViewID", "vertex", "in"): "ViewIndex",
    ("SV_ViewID", "pixel", "in"): "ViewIndex",
    ("SV_Barycentrics", "pixel", "in"): "BaryCoordKHR",
    ("SV_ShadingRate", "vertex", "out"): "PrimitiveShadingRateKHR",
    ("SV_ShadingRate", "pixel", "in"): "ShadingRateKHR",
    ("SV_ShadingRate", "geometry", "out"): "PrimitiveShadingRateKHR",
    **{(sv, stage, d): sv[3:] for sv in ("SV_ClipDistance", "SV_CullDistance")
       for stage in ("hull", "domain") for d in ("in", "out")},
    **{("SV_ViewID", stage, "in"): "ViewIndex" for stage in ("hull", "domain", "geometry")},
    # mesh shaders: vertex outputs, per-primitive outputs (vulkan: PerPrimitiveEXT), and the thread ids
    # of mesh and amplification shaders (as compute's)
    ("SV_Position", "mesh", "out"): "Position",
    ("SV_ClipDistance", "mesh", "out"): "ClipDistance",
    ("SV_CullDistance", "mesh", "out"): "CullDistance",
    ("SV_PrimitiveID", "mesh", "out"): "PrimitiveId",
    ("SV_RenderTargetArrayIndex", "mesh", "out"): "Layer",
    ("SV_ViewportArrayIndex", "mesh", "out"): "ViewportIndex",
    ("SV_CullPrimitive", "mesh", "out"): "CullPrimitiveEXT",
    ("SV_ShadingRate", "mesh", "out"): "PrimitiveShadingRateKHR",
    ("SV_ViewID", "mesh", "in"): "ViewIndex",
    **{(sv, stage, "in"): builtin for stage in ("mesh", "amplification") for sv, builtin in (
        ("SV_DispatchThreadID", "GlobalInvocationId"), ("SV_GroupID", "WorkgroupId"),
        ("SV_GroupThreadID", "LocalInvocationId"), ("SV_GroupIndex", "LocalInvocationIndex"))},
}
# a mesh shader's `out indices` array, by [outputtopology]
MESH_INDICES = {"triangle": "PrimitiveTriangleIndicesEXT", "line": "PrimitiveLineIndicesEXT"}
# the other system values D3D allows (SV_RenderTargetArrayIndex / SV_ViewportArrayIndex into and out of
# the hull stage and into the domain and geometry stages, SV_IsFrontFace out of the geometry stage) have no
# Vulkan built-in there: as in DXC, they
# are ordinary values with a Location after the entry wrapper's
# table intrinsics Vulkan has no operation for (refused at the call by `unsupported`, as DXC does: SPIR-V.rst
# "Unsupported HLSL Features")
UNSUPPORTED_INTRINSICS: dict[str, str] = {
    name: "SPIR-V's OpImageDrefGather takes no component (it compares the red channel only)"
    for name in ("GatherCmpGreen", "GatherCmpBlue", "GatherCmpAlpha")} | {
    name: "Vulkan has no equivalent (DXC refuses it too)"
    for name in ("GetRenderTargetSampleCount", "GetRenderTargetSamplePosition")}
# TessLevelOuter / TessLevelInner are float[4] / float[2] whatever the domain; HLSL's
# SV_TessFactor / SV_InsideTessFactor are as long as the domain needs (front/semantics.py)
TESS_LEVEL_TYPES = {"TessLevelOuter": ir.Array(ir.FLOAT, 4), "TessLevelInner": ir.Array(ir.FLOAT, 2)}
# a built-in's variant for an interpolation mode (DXC: noperspective SV_Barycentrics)
_BUILTIN_VARIANTS = {("BaryCoordKHR", "noperspective"): "BaryCoordNoPerspKHR"}
# Vulkan's own type of a built-in, where it differs from the HLSL system value's (the raise pass
# converts at the boundary): SampleMask is an array, FullyCoveredEXT a bool
_ARRAY_BUILTINS = frozenset({"SampleMask"})
_BOOL_BUILTINS = frozenset({"FullyCoveredEXT"})
# built-ins several semantics share: one float array, each semantic at an offset (DXC's layout,
# by semantic index)
_COMBINED = ("ClipDistance", "CullDistance")

# SPIR-V BuiltIn numbers accepted by [[vk::ext_builtin_input/output(N)]] (seed 004), from the
# SPIR-V spec: (number, name, 'in' | 'out' | 'inout')
EXT_BUILTINS: tuple[tuple[int, str, str], ...] = (
    (0, "Position", "inout"), (1, "PointSize", "inout"), (3, "ClipDistance", "inout"),
    (4, "CullDistance", "inout"), (7, "PrimitiveId", "in"), (9, "Layer", "inout"),
    (10, "ViewportIndex", "inout"), (15, "FragCoord", "in"), (17, "FrontFacing", "in"),
    (18, "SampleId", "in"), (19, "SamplePosition", "in"), (20, "SampleMask", "inout"),
    (22, "FragDepth", "out"), (23, "HelperInvocation", "in"), (24, "NumWorkgroups", "in"),
    (25, "WorkgroupSize", "in"), (26, "WorkgroupId", "in"), (27, "LocalInvocationId", "in"),
    (28, "GlobalInvocationId", "in"), (29, "LocalInvocationIndex", "in"), (36, "SubgroupSize", "in"),
    (38, "NumSubgroups", "in"), (40, "SubgroupId", "in"), (41, "SubgroupLocalInvocationId", "in"),
    (42, "VertexIndex", "in"), (43, "InstanceIndex", "in"), (4424, "BaseVertex", "in"),
    (4425, "BaseInstance", "in"), (4426, "DrawIndex", "in"), (4440, "ViewIndex", "in"),
)

# the type Vulkan gives each of those built-ins ('int': a 32-bit int or uint scalar, 'int3' its vector, 'float[]' a
# float array, 'uint[]' an array of 32-bit ints); a variable of another type is refused, as DXC's spirv-val does
_EXT_BUILTIN_TYPES = {"Position": "float4", "PointSize": "float", "ClipDistance": "float[]", "CullDistance": "float[]",
                      "FragCoord": "float4", "FrontFacing": "bool", "SamplePosition": "float2", "SampleMask": "uint[]",
                      "FragDepth": "float", "HelperInvocation": "bool", **dict.fromkeys((
                          "NumWorkgroups", "WorkgroupSize", "WorkgroupId", "LocalInvocationId",
                          "GlobalInvocationId"), "int3")}


def ext_builtin_type_problem(builtin: str, t: ir.Type) -> str | None:
    """Why a [[vk::ext_builtin_*]] variable of type t cannot be `builtin` (Vulkan gives it another type), or None."""
    want = _EXT_BUILTIN_TYPES.get(builtin, "int")
    if _type_is(want, t):
        return None
    words = {"int": "a 32-bit int or uint", "int3": "a uint3 or int3", "float[]": "a float array", "uint[]": "a uint array"}
    return f"Vulkan's {builtin} is {words.get(want, want)}, not '{t}'"


def _type_is(want: str, t: ir.Type) -> bool:
    if want.endswith("[]"):
        return isinstance(t, ir.Array) and _type_is(want[:-2].replace("uint", "int"), t.elem)
    kind, n = want.rstrip("234"), int(want[-1]) if want[-1] in "234" else 1
    if n > 1:
        if not (isinstance(t, ir.Vector) and t.size == n):
            return False
        t = t.elem
    return t in {"float": (ir.FLOAT,), "bool": (ir.BOOL,), "int": (ir.INT, ir.UINT)}[kind]


def compute_derivatives(ctx: Ctx) -> None:
    """A derivative (ddx..., an implicit-LOD sample, a LOD query) outside a pixel shader: SM 6.6 compute shaders
    take their 2x2 quads from the thread indices (sema checked [numthreads]), as SPV_NV_compute_shader_derivatives
    does: DerivativeGroupLinearNV for a 1D group (four consecutive threads), DerivativeGroupQuadsNV otherwise.
    The NV extension, not the KHR one DXC now emits: Debian's spirv-val (2023.1) knows only the NV one, whose
    capability and mode numbers the KHR extension keeps (lavapipe exposes VK_KHR_compute_shader_derivatives)."""
    stage, entry = ctx.stage, ctx.entry
    if stage == "pixel":
        return
    if stage != "compute" or entry is None:
        raise error(f"derivatives in {stage} shaders are not supported when targeting SPIR-V: "
                    "SPV_NV_compute_shader_derivatives covers compute shaders only")
    if ctx.shader_model < (6, 6):       # (sema refuses them first; a module built as IR may not)
        raise error("derivatives in compute shaders need shader model 6.6 (use SampleLevel or SampleGrad)")
    _, y, z = entry.numthreads or (1, 1, 1)
    kind = "Linear" if y == z == 1 else "Quads"
    ctx.b.capability(f"ComputeDerivativeGroup{kind}NV")
    ctx.b.extension("SPV_NV_compute_shader_derivatives")
    ctx.derivative_group = f"DerivativeGroup{kind}NV"


def compute_quads(ctx: Ctx) -> None:
    """A quad operation in an SM 6.6+ compute shader uses the quads of derivatives (D3D: 2x2 threads of a 2-D
    group, four consecutive threads of a 1-D one), so it takes the same DerivativeGroup mode when the group fits
    one; otherwise (and before SM 6.6, and in other stages) a quad is four consecutive lanes of the wave.  A
    2-D mesh or amplification group would need the KHR extension's modes there: a located error."""
    if ctx.entry is None or ctx.shader_model < (6, 6) or ctx.derivative_group:
        return
    x, y, z = ctx.entry.numthreads or (1, 1, 1)
    if ctx.stage in ("mesh", "amplification") and not y == z == 1:
        raise error(f"quad operations in a {ctx.stage} shader with a 2-D thread group read 2x2 thread quads from "
                    "shader model 6.6, which SPIR-V expresses only with SPV_KHR_compute_shader_derivatives (not "
                    "supported here); use a 1-D [numthreads]")
    if ctx.stage != "compute":
        return
    if y == z == 1 and x % 4 == 0:
        kind = "Linear"
    elif x % 2 == 0 and y % 2 == 0:
        kind = "Quads"
    else:
        return
    ctx.b.capability(f"ComputeDerivativeGroup{kind}NV")
    ctx.b.extension("SPV_NV_compute_shader_derivatives")
    ctx.derivative_group = f"DerivativeGroup{kind}NV"


@ir.keeps_exprs
def unsupported(module: ir.Module, options: CompileOptions) -> None:
    """A located error for the first call of an intrinsic this target cannot express."""
    for fn in module.functions:
        if not any(x.name in UNSUPPORTED_INTRINSICS for x in ir.nodes_of(ir.function_exprs(module, fn), ir.Intrinsic)):
            continue        # (the common case, found by the faster search; the walk below finds the statement)
        for s in ir.walk_stmts(fn.body):
            for e in ir.stmt_exprs(s):
                for x in ir.walk_expr(e):
                    if isinstance(x, ir.Intrinsic) and x.name in UNSUPPORTED_INTRINSICS:
                        raise error(f"'{x.name}' is not supported when targeting SPIR-V: "
                                    f"{UNSUPPORTED_INTRINSICS[x.name]}", getattr(s, "loc", None) or fn.loc)


def system_values(module: ir.Module, options: CompileOptions) -> None:
    """Give every SV_* stage input/output of the entry its SPIR-V BuiltIn (the entry wrapper
    has checked that HLSL allows it there; SV_Target keeps its Location)."""
    ep = module.entry
    if ep is None:
        return
    for direction, variables in (("in", ep.inputs), ("out", ep.outputs)):
        streams: dict[str, int] = {}    # built-in -> the GS stream that has it
        for v in variables:
            io = v.io
            if io is not None and io.mesh == "indices" and ep.mesh is not None:
                io.builtin = MESH_INDICES[ep.mesh.topology or "triangle"]
            elif io is not None and io.builtin is None and io.location is None:
                builtin = SV_BUILTINS.get((io.semantic, ep.stage, direction))
                # an entry point uses a built-in once (VUID-StandaloneSpirv-OpEntryPoint-09658): when two GS
                # streams write one system value, the first stream's is the built-in, the others' a Location
                if builtin is not None and streams.setdefault(builtin, io.stream) == io.stream:
                    io.builtin = _BUILTIN_VARIANTS.get((builtin, io.interpolation or ""), builtin)
        if direction == "out" and ep.stage in _PASS_ON_STAGES:
            _pass_on(module, variables)
        unmapped = [v for v in variables if v.io is not None and v.io.builtin is None and v.io.location is None]
        taken = [v.io.location + location_count(_value_type(v))
                 for v in variables if v.io is not None and v.io.location is not None]
        location = max(taken, default=0)
        # a layer / viewport index takes a Location of its own after all the others (_PASSED_ON_SLOTS), so two
        # stages agree on it whether or not each has the other semantic or another system value without a
        # built-in; a second one of a semantic (a hull shader's patch constant beside its control points' one,
        # a GS stream past the first) comes after those
        slotted: dict[str, ir.IOInfo] = {}
        later: list[ir.Variable] = []
        for v in unmapped:
            io = v.io
            assert io is not None
            if io.semantic in _PASSED_ON_SLOTS:
                if io.semantic in slotted:
                    later.append(v)
                else:
                    slotted[io.semantic] = io
                continue
            io.location = location
            location += location_count(_value_type(v))
        for semantic, io in slotted.items():
            io.location = location + _PASSED_ON_SLOTS[semantic]
        if slotted:
            location += len(_PASSED_ON_SLOTS)
        for v in later:
            assert v.io is not None
            v.io.location = location
            location += location_count(_value_type(v))


# stages whose Layer / ViewportIndex output may be read by a later stage that has no such built-in input
# (a geometry or hull shader): the value is also written to a Location (see _pass_on)
_PASS_ON_STAGES = frozenset({"vertex", "domain"})
_PASSED_ON = frozenset({"Layer", "ViewportIndex"})
# their semantics' Locations, after every other stage variable's Location: offsets from the first free one
_PASSED_ON_SLOTS = {"SV_RenderTargetArrayIndex": 0, "SV_ViewportArrayIndex": 1}


def _pass_on(module: ir.Module, outputs: list[ir.Variable]) -> None:
    """A vertex or domain shader's SV_RenderTargetArrayIndex / SV_ViewportArrayIndex is the Layer /
    ViewportIndex built-in (the rasterizer's), which a geometry or hull shader cannot read: Vulkan has
    those inputs only in the fragment stage, so a GS or HS input of the semantic is a Location.  The
    value is also written to a Location, numbered as that input is (system_values: after every user
    Location and every other system value without a built-in, SV_RenderTargetArrayIndex first,
    SV_ViewportArrayIndex second, whether or not the other is there), so the next stage reads what was
    written whichever it is; a pixel shader reads the built-in and ignores it.  DXC writes only the
    built-in (its GS reads 0): a deliberate difference (docs/CONFORMANCE.md)."""
    copies: dict[int, ir.Variable] = {}
    for v in list(outputs):
        io = v.io
        if io is None or io.builtin not in _PASSED_ON:
            continue
        copy = ir.Variable(f"{v.name}.location", v.type, v.storage, v.loc,
                           io=ir.IOInfo(io.semantic, io.index, interpolation=io.interpolation))
        outputs.insert(outputs.index(v) + 1, copy)
        copies[id(v)] = copy
    if not copies:
        return

    def expand(s: ir.Store) -> list[ir.Stmt] | None:
        var = _root_var(s.place)
        copy = copies.get(id(var)) if var is not None else None
        if var is None or copy is None:
            return None
        # the built-in's whole value, read back (a partial store, e.g. of one component, is still whole here)
        return [s, ir.Store(ir.VarRef(copy), ir.Load(ir.VarRef(var), var.type), s.loc)]

    for fn in module.functions:
        ir.rewrite_body(fn.body, lambda e: e, expand)


def _value_type(v: ir.Variable) -> ir.Type:
    """The type of one value of a stage variable: per control point / per vertex if arrayed."""
    arrayed = v.io is not None and (v.io.arrayed or v.io.vertices)
    return v.type.elem if arrayed and isinstance(v.type, ir.Array) else v.type


def io_types(module: ir.Module, options: CompileOptions) -> None:
    """Give stage variables the types Vulkan requires, converting at the entry wrapper's loads and
    stores: no OpTypeBool in the interface (a bool value travels as uint), SampleMask is uint[1],
    FullyCoveredEXT a bool, and every ClipDistance (CullDistance) semantic of a direction becomes
    part of one float array."""
    ep = module.entry
    if ep is None or ep.function is None:
        return
    for variables in (ep.inputs, ep.outputs):
        for v in variables:
            io = v.io
            if io is None:
                continue
            if io.builtin is None and ir.scalar_of(_element(v.type)) == ir.BOOL:
                _bool_as_uint(module, v)
            elif io.builtin in _ARRAY_BUILTINS and not isinstance(v.type, ir.Array):
                _rehome(ep.function, v, ir.Array(v.type, 1),
                        lambda place, t: [(ir.IndexRef(place, ir.Const(ir.INT, 0), t), None)])
            elif io.builtin in _BOOL_BUILTINS and v.type != ir.BOOL:
                _retype(ep.function, v, ir.BOOL, lambda x, t: ir.Convert(x, t))
        for builtin in _COMBINED:
            _combine(module, variables, builtin)
    if ep.stage == "pixel":        # GetAttributeAtVertex is a pixel-shader intrinsic (sema checks the stage)
        _per_vertex(module, ep.inputs)


def _element(t: ir.Type) -> ir.Type:
    """The per-vertex / per-control-point value of an arrayed stage variable (else the type)."""
    while isinstance(t, ir.Array):
        t = t.elem
    return t


def _uint_for_bool(t: ir.Type) -> ir.Type:
    if isinstance(t, ir.Array):
        return ir.Array(_uint_for_bool(t.elem), t.size)
    if isinstance(t, ir.Vector) and t.elem == ir.BOOL:
        return ir.vec(ir.UINT, t.size)
    return ir.UINT if t == ir.BOOL else t


def _root_var(place: ir.Expr) -> ir.Variable | None:
    while isinstance(place, (ir.IndexRef, ir.SwizzleRef, ir.FieldRef)):
        place = place.base
    return place.var if isinstance(place, ir.VarRef) else None


def _bool_as_uint(module: ir.Module, var: ir.Variable) -> None:
    """A bool stage variable (or array of them: GS vertices, control points) becomes uint: every
    store to it, in any function (a geometry shader's Append stores in the entry's body), converts
    to uint, every load converts back."""
    var.type = _uint_for_bool(var.type)
    made: set[int] = set()      # loads made here (a node two parents share is visited twice)

    def place(p: ir.Expr) -> ir.Expr:
        if isinstance(p, ir.IndexRef):
            return ir.IndexRef(place(p.base), p.index, _uint_for_bool(p.type))
        if isinstance(p, ir.SwizzleRef):
            return ir.SwizzleRef(place(p.base), p.comps, _uint_for_bool(p.type))
        assert isinstance(p, ir.VarRef)     # _root_var found the variable
        return ir.VarRef(p.var, p.loc)

    def change(e: ir.Expr) -> ir.Expr:
        if isinstance(e, ir.Load) and id(e) not in made and _root_var(e.place) is var:
            load = ir.Load(place(e.place), _uint_for_bool(e.type))
            made.add(id(load))
            return ir.Convert(load, e.type)
        return e

    for fn in module.functions:
        for s in ir.walk_stmts(fn.body):
            if isinstance(s, ir.Store) and _root_var(s.place) is var:
                s.place = place(s.place)
                s.value = ir.Convert(ir.rewrite_expr(s.value, change), s.place.type)
            else:
                _rewrite_stmt(s, change)


def _per_vertex(module: ir.Module, inputs: list[ir.Variable]) -> None:
    """GetAttributeAtVertex(x, i): x's input becomes a PerVertexKHR array of the three vertices'
    values (SPV_KHR_fragment_shader_barycentric); the call reads element i (intrinsics.py), every
    other read element 0, the provoking vertex of a triangle list (a nointerpolation value, as before)."""
    found: set[int] = set()
    for f in module.functions:
        for s in ir.walk_stmts(f.body):
            for e in ir.stmt_exprs(s):
                for x in ir.walk_expr(e):
                    if isinstance(x, ir.Intrinsic) and x.name == "GetAttributeAtVertex" \
                            and isinstance(x.args[0], ir.Load) and isinstance(x.args[0].place, ir.VarRef):
                        found.add(id(x.args[0].place.var))
    targets = [(v, v.io) for v in inputs if id(v) in found and v.io is not None]
    if not targets:
        return
    elem = {id(v): v.type for v, _ in targets}
    for v, io in targets:
        v.type = ir.Array(v.type, 3)
        io.interpolation = "pervertex"

    def fix(e: ir.Expr) -> ir.Expr:
        if isinstance(e, ir.Intrinsic) and e.name == "GetAttributeAtVertex" and isinstance(e.args[0], ir.Load) \
                and isinstance(e.args[0].place, ir.VarRef) and id(e.args[0].place.var) in elem:
            var = e.args[0].place.var       # lowered by intrinsics.py: element e.args[1] of the array
            return ir.Intrinsic(e.name, [ir.Load(ir.VarRef(var), var.type), e.args[1]], e.type)
        if isinstance(e, ir.Load) and isinstance(e.place, ir.VarRef) and id(e.place.var) in elem:
            var = e.place.var
            return ir.Load(ir.IndexRef(ir.VarRef(var), ir.Const(ir.INT, 0), elem[id(var)]), elem[id(var)])
        for name in type(e)._fields:
            v = getattr(e, name)
            if isinstance(v, ir.Expr):
                setattr(e, name, fix(v))
            elif isinstance(v, list):
                v[:] = [fix(x) if isinstance(x, ir.Expr) else x for x in v]
        return e

    for f in module.functions:
        for s in ir.walk_stmts(f.body):
            for name in type(s)._fields:
                v = getattr(s, name)
                if isinstance(v, ir.Expr):
                    setattr(s, name, fix(v))


def _combine(module: ir.Module, variables: list[ir.Variable], builtin: str) -> None:
    """Every SV_ClipDistance (SV_CullDistance) semantic of one direction becomes part of one float
    array (per control point / vertex where the stage's I/O is arrayed), each semantic at an
    offset by semantic index (DXC's layout).  Loads and stores anywhere in the module (a geometry
    shader stores its outputs at each Append, a hull shader at [SV_OutputControlPointID], a mesh
    shader at verts[i], components too) are rewritten to the array's elements."""
    found = [(v.io, v) for v in variables if v.io is not None and v.io.builtin == builtin and v.io.parts is None]
    if not found:
        return
    found.sort(key=lambda iv: iv[0].index)
    first_io, first = found[0]
    per = bool(first_io.arrayed or first_io.vertices or first_io.mesh == "vertex")    # one array per vertex
    where: dict[int, tuple[int, ir.Type]] = {}
    layout, offset = [], 0
    for io, v in found:
        t = v.type.elem if per and isinstance(v.type, ir.Array) else v.type
        layout.append((io.index, offset, str(t)))
        where[id(v)] = (offset, t)
        offset += _components(t)
    arr = ir.Array(ir.FLOAT, offset)
    outer = first.type.size if per and isinstance(first.type, ir.Array) else None
    io = ir.IOInfo(first_io.semantic, first_io.index, builtin=builtin, parts=tuple(layout), arrayed=first_io.arrayed,
                   vertices=first_io.vertices, patch=first_io.patch, stream=first_io.stream, mesh=first_io.mesh)
    new = ir.Variable(f"{first.name.split('.')[0]}.var.{first_io.semantic}", ir.Array(arr, outer) if per else arr,
                      first.storage, first.loc, io=io)
    variables[variables.index(first)] = new
    for _, v in found[1:]:
        variables.remove(v)

    def split(place: ir.Expr) -> tuple[int, ir.Type, ir.Expr | None, ir.Expr | None] | None:
        """(offset, value type, control point / vertex index, component index) of a place in a combined variable."""
        comp: ir.Expr | None = None
        point: ir.Expr | None = None
        if isinstance(place, ir.IndexRef) and not (per and isinstance(place.base, ir.VarRef)):
            comp, place = place.index, place.base
        if per and isinstance(place, ir.IndexRef):
            point, place = place.index, place.base
        if not isinstance(place, ir.VarRef) or id(place.var) not in where:
            return None
        off, t = where[id(place.var)]
        return off, t, point, comp

    def element(point: ir.Expr | None, k: ir.Expr) -> ir.Expr:
        base: ir.Expr = ir.VarRef(new) if point is None else ir.IndexRef(ir.VarRef(new), point, arr)
        return ir.IndexRef(base, k, ir.FLOAT)

    def at(off: int, comp: ir.Expr) -> ir.Expr:
        if isinstance(comp, ir.Const):
            return ir.Const(ir.INT, off + int(comp.value))
        return ir.Binary("add", comp, ir.Const(comp.type, off), comp.type) if off else comp

    def change(e: ir.Expr) -> ir.Expr:
        if isinstance(e, ir.Load) and (hit := split(e.place)) is not None:
            off, t, point, comp = hit
            if comp is not None:
                return ir.Load(element(point, at(off, comp)), ir.FLOAT)
            loads: list[ir.Expr] = [ir.Load(element(point, ir.Const(ir.INT, off + i)), ir.FLOAT)
                                    for i in range(_components(t))]
            return loads[0] if t == ir.FLOAT else ir.Construct(t, loads)
        if isinstance(e, ir.SwizzleRef) and split(e.base) is not None:
            raise error("a swizzle of a clip or cull distance cannot be written here", first.loc)
        return e

    def stores(s: ir.Store) -> list[ir.Stmt] | None:
        if isinstance(s.place, ir.SwizzleRef) and (hit := split(s.place.base)) is not None:   # verts[i].c.yx = v
            off, t, point, comp = hit
            assert comp is None         # a swizzle is of a vector value
            value = ir.rewrite_expr(s.value, change)
            if len(s.place.comps) == 1:
                return [ir.Store(element(point, ir.Const(ir.INT, off + s.place.comps[0])), value, s.loc)]
            return [ir.Store(element(point, ir.Const(ir.INT, off + c)), ir.Extract(value, j, ir.FLOAT), s.loc)
                    for j, c in enumerate(s.place.comps)]
        hit = split(s.place)
        if hit is None:
            return None
        off, t, point, comp = hit
        value = ir.rewrite_expr(s.value, change)
        if comp is not None:
            return [ir.Store(element(point, at(off, comp)), value, s.loc)]
        if t == ir.FLOAT:
            return [ir.Store(element(point, ir.Const(ir.INT, off)), value, s.loc)]
        return [ir.Store(element(point, ir.Const(ir.INT, off + i)), ir.Extract(value, i, ir.FLOAT), s.loc)
                for i in range(_components(t))]

    for fn in module.functions:
        ir.rewrite_body(fn.body, change, stores)


def _components(t: ir.Type) -> int:
    if isinstance(t, ir.Array):
        return t.size or 1
    return t.size if isinstance(t, ir.Vector) else 1


def _retype(fn: ir.Function, var: ir.Variable, new: ir.Type, convert) -> None:
    """`var` gets type `new`; what the wrapper stores is converted to it, what it loads back."""
    old = var.type
    var.type = new
    made: set[int] = set()      # loads made here (a node two parents share is visited twice)

    def change(e: ir.Expr) -> ir.Expr:
        if isinstance(e, ir.Load) and isinstance(e.place, ir.VarRef) and e.place.var is var and id(e) not in made:
            load = ir.Load(ir.VarRef(var), new)
            made.add(id(load))
            return convert(load, old)
        return e

    for i, s in enumerate(fn.body):
        if isinstance(s, ir.Store) and isinstance(s.place, ir.VarRef) and s.place.var is var:
            fn.body[i] = ir.Store(ir.VarRef(var), convert(ir.rewrite_expr(s.value, change), new), s.loc)
        else:
            _rewrite_stmt(s, change)


def _rehome(fn: ir.Function, var: ir.Variable, new: ir.Type, places) -> None:
    """Move `var`'s value into other places: places(VarRef(var), element type) lists (place,
    component or None for the whole value); loads of `var` become a Construct of the places'
    loads, stores one store per place."""
    old = var.type
    var.type = new
    elem: ir.Type = old.elem if isinstance(old, (ir.Vector, ir.Array)) else old
    targets = places(ir.VarRef(var), elem)

    def change(e: ir.Expr) -> ir.Expr:
        if isinstance(e, ir.Load) and isinstance(e.place, ir.VarRef) and e.place.var is var:
            loads: list[ir.Expr] = [ir.Load(p, elem) for p, _ in targets]
            return loads[0] if targets[0][1] is None else ir.Construct(old, loads)
        return e

    body: list[ir.Stmt] = []
    for s in fn.body:
        if isinstance(s, ir.Store) and isinstance(s.place, ir.VarRef) and s.place.var is var:
            value = ir.rewrite_expr(s.value, change)
            for p, comp in targets:
                body.append(ir.Store(p, value if comp is None else ir.Extract(value, comp, elem), s.loc))
        else:
            _rewrite_stmt(s, change)
            body.append(s)
    fn.body[:] = body


def _rewrite_stmt(s: ir.Stmt, change: Callable[[ir.Expr], ir.Expr]) -> None:
    for f in type(s)._fields:
        v = getattr(s, f)
        if isinstance(v, ir.Expr):
            setattr(s, f, ir.rewrite_expr(v, change))


def tess_levels(module: ir.Module, options: CompileOptions) -> None:
    """Widen SV_TessFactor / SV_InsideTessFactor to the TessLevelOuter / TessLevelInner arrays:
    the patch-constant wrapper stores the declared elements (the rest zero), the domain
    wrapper reads the declared elements back."""
    ep = module.entry
    if ep is None or ep.tess is None:
        return
    widened: dict[int, ir.Type] = {}
    for v in (*ep.inputs, *ep.outputs):
        if v.io is not None and v.io.builtin in TESS_LEVEL_TYPES:
            declared = v.type
            v.type = TESS_LEVEL_TYPES[v.io.builtin]
            if declared != v.type:
                widened[id(v)] = declared
    if not widened:
        return

    def widen(value: ir.Expr, declared: ir.Type, to: ir.Type) -> ir.Expr:
        assert isinstance(to, ir.Array) and to.size is not None
        n = declared.size or 0 if isinstance(declared, ir.Array) else 1
        parts = [ir.Extract(value, i, ir.FLOAT) if isinstance(declared, ir.Array) else value for i in range(n)]
        return ir.Construct(to, parts + [ir.Const(ir.FLOAT, 0.0)] * (to.size - n))

    def narrow(e: ir.Expr) -> ir.Expr:
        if isinstance(e, ir.Load) and isinstance(e.place, ir.VarRef) and id(e.place.var) in widened:
            declared = widened[id(e.place.var)]
            e.type = e.place.type = e.place.var.type
            if isinstance(declared, ir.Array):
                return ir.Construct(declared, [ir.Extract(e, i, ir.FLOAT) for i in range(declared.size or 0)])
            return ir.Extract(e, 0, ir.FLOAT)
        return e

    for f in (ep.function, ep.tess.patch_function):
        if f is None:
            continue
        for s in f.body:
            if isinstance(s, ir.Store) and isinstance(s.place, ir.VarRef) and id(s.place.var) in widened:
                s.place.type = s.place.var.type
                s.value = widen(s.value, widened[id(s.place.var)], s.place.var.type)
            elif isinstance(s, ir.Store):
                s.value = ir.rewrite_expr(s.value, narrow)
            elif isinstance(s, ir.Eval):
                s.expr = ir.rewrite_expr(s.expr, narrow)


def hull_entry(module: ir.Module, options: CompileOptions) -> None:
    """One TessellationControl entry, as DXC makes it: every invocation runs the control-point
    wrapper, then a barrier, then invocation 0 runs the patch-constant wrapper."""
    ep = module.entry
    if ep is None or ep.stage != "hull" or ep.tess is None or ep.tess.patch_function is None \
            or ep.function is None:
        return
    points = ep.function
    point = next(v for v in ep.inputs if v.io is not None and v.io.builtin == "InvocationId")
    body: list[ir.Stmt] = [
        ir.Eval(ir.Call(points, [], ir.VOID)),
        ir.Eval(ir.Intrinsic(PATCH_BARRIER, [], ir.VOID)),
        ir.If(ir.Binary("eq", ir.Load(ir.VarRef(point), point.type), ir.Const(ir.UINT, 0), ir.BOOL),
              [ir.Eval(ir.Call(ep.tess.patch_function, [], ir.VOID))], []),
        ir.Return(),
    ]
    points.name = f"{ep.name}.points"
    main = ir.Function(ep.name, [], ir.VOID, body, [], points.loc)
    module.functions.append(main)
    ep.function = main


def interlock(module: ir.Module, options: CompileOptions) -> None:
    """A pixel shader that uses a rasterizer-ordered view runs the HLSL function inside one
    OpBeginInvocationInterlockEXT / OpEndInvocationInterlockEXT pair (DXC: around the accesses): in the
    entry wrapper's straight-line body, so each is executed exactly once, in uniform control flow, in the
    entry point's own function, as the extension requires."""
    ep = module.entry
    if ep is None or ep.stage != "pixel" or ep.function is None:
        return
    rovs = [g for g in module.globals if _is_rov(g.type)]
    if not rovs:
        return
    used = ir.referenced_variables(module.functions)
    if not any(id(g) in used for g in rovs):
        return
    body: list[ir.Stmt] = [ir.Eval(ir.Intrinsic(BEGIN_INTERLOCK, [], ir.VOID))]
    for s in ep.function.body:
        if isinstance(s, ir.Return):
            body.append(ir.Eval(ir.Intrinsic(END_INTERLOCK, [], ir.VOID)))
        body.append(s)
    if not body or not isinstance(body[-1], ir.Return):
        body.append(ir.Eval(ir.Intrinsic(END_INTERLOCK, [], ir.VOID)))
    ep.function.body[:] = body


def _is_rov(t: ir.Type) -> bool:
    while isinstance(t, ir.Array):
        t = t.elem
    return isinstance(t, ir.Resource) and (k := KINDS.get(t.kind)) is not None and k.rov


def invert_y(module: ir.Module, options: CompileOptions) -> None:
    """-fvk-invert-y: negate y of what the entry wrapper stores to the Position output."""
    if not options.vk_invert_y or module.entry is None or module.entry.function is None:
        return
    # a geometry shader stores its Position outputs where it calls Append (the entry wrapper put the stores
    # there), a mesh shader where it writes a vertex (element i of the Position array, or some of its components)
    stage = module.entry.stage
    bodies = [f.body for f in module.functions] if stage in ("geometry", "mesh") else [module.entry.function.body]
    for body in bodies:
        for s in ir.walk_stmts(body):
            if not isinstance(s, ir.Store):
                continue
            if stage == "mesh":
                _invert_mesh_y(s)
            elif isinstance(s.place, ir.VarRef) and _is_io(s.place, "Position") \
                    and s.place.var.storage is ir.Storage.OUTPUT:
                s.value = _with_component(s.value, 1, _neg)


def _neg(y: ir.Expr) -> ir.Expr:
    return ir.Unary("neg", y, ir.FLOAT)


def _invert_mesh_y(s: ir.Store) -> None:
    """A mesh shader's store to vertex i's Position (`pos[i]`), to one component of it (`pos[i][c]`) or to
    a swizzle of it (`pos[i].xy`): y, wherever it is in the stored value, is negated."""
    path: list[ir.Expr] = []
    p = s.place
    while isinstance(p, (ir.IndexRef, ir.SwizzleRef)):
        path.append(p)
        p = p.base
    if not (isinstance(p, ir.VarRef) and _is_io(p, "Position") and p.var.storage is ir.Storage.OUTPUT):
        return
    rest = path[::-1][1:]            # after the vertex index
    if not rest:
        s.value = _with_component(s.value, 1, _neg)
        return
    last = rest[0]
    if len(rest) == 1 and isinstance(last, ir.IndexRef):
        if not isinstance(last.index, ir.Const):
            raise error("-fvk-invert-y: a mesh shader's SV_Position component is chosen at run time; write "
                        "the position whole or by constant components", s.loc)
        if int(last.index.value) == 1:
            s.value = _neg(s.value)
        return
    if len(rest) == 1 and isinstance(last, ir.SwizzleRef) and 1 in last.comps:
        if len(last.comps) == 1:
            s.value = _neg(s.value)
            return
        k = last.comps.index(1)
        n = len(last.comps)
        parts: list[ir.Expr] = [ir.Extract(s.value, i, ir.FLOAT) for i in range(n)]
        parts[k] = _neg(parts[k])
        s.value = ir.Construct(ir.Vector(ir.FLOAT, n), parts)


def dx_position_w(module: ir.Module, options: CompileOptions) -> None:
    """-fvk-use-dx-position-w: the entry wrapper's reads of FragCoord see 1/w, which is D3D's
    SV_Position.w (Vulkan's FragCoord.w is already the reciprocal)."""
    if not options.vk_use_dx_position_w or module.entry is None or module.entry.function is None:
        return

    def change(e: ir.Expr) -> ir.Expr:
        if isinstance(e, ir.Load) and _is_io(e.place, "FragCoord"):
            return _with_component(e, 3, lambda w: ir.Binary("div", ir.Const(ir.FLOAT, 1.0), w, ir.FLOAT))
        return e

    for s in module.entry.function.body:
        if isinstance(s, ir.Store):
            s.value = ir.rewrite_expr(s.value, change)
        elif isinstance(s, ir.Eval):
            s.expr = ir.rewrite_expr(s.expr, change)


# -fvk-support-nonzero-base-*: a vertex stage built-in D3D counts from the draw's start, and that start
_NONZERO_BASE = (("VertexIndex", "BaseVertex", "SV_StartVertexLocation", "vk_support_nonzero_base_vertex"),
                 ("InstanceIndex", "BaseInstance", "SV_StartInstanceLocation", "vk_support_nonzero_base_instance"))


def nonzero_base(module: ir.Module, options: CompileOptions) -> None:
    """-fvk-support-nonzero-base-vertex / -instance: the entry wrapper's reads of VertexIndex / InstanceIndex
    see VertexIndex - BaseVertex / InstanceIndex - BaseInstance, D3D's SV_VertexID / SV_InstanceID (Vulkan's
    include the draw's firstVertex / firstInstance).  The base is the SV_Start*Location input when the entry
    has one (an entry point uses a built-in once)."""
    ep = module.entry
    if ep is None or ep.function is None or ep.stage != "vertex":
        return
    for builtin, base_builtin, semantic, option in _NONZERO_BASE:
        index = next((v for v in ep.inputs if v.io is not None and v.io.builtin == builtin), None)
        if not getattr(options, option) or index is None:
            continue
        base = next((v for v in ep.inputs if v.io is not None and v.io.builtin == base_builtin), None)
        if base is None:
            base = ir.Variable(f"in.{semantic}", index.type, ir.Storage.INPUT, index.loc,
                               io=ir.IOInfo(semantic, builtin=base_builtin))
            ep.inputs.append(base)
        base_value: ir.Expr = ir.Load(ir.VarRef(base), base.type)
        if base.type != index.type:     # SV_StartVertexLocation is an int
            base_value = ir.Bitcast(base_value, index.type)

        def change(e: ir.Expr, index: ir.Variable = index, base_value: ir.Expr = base_value) -> ir.Expr:
            if isinstance(e, ir.Load) and isinstance(e.place, ir.VarRef) and e.place.var is index:
                return ir.Binary("sub", e, base_value, index.type)
            return e

        for st in ep.function.body:
            if isinstance(st, ir.Store):
                st.value = ir.rewrite_expr(st.value, change)
            elif isinstance(st, ir.Eval):
                st.expr = ir.rewrite_expr(st.expr, change)


@ir.keeps_exprs     # (bindings only: no body changes)
def bindings(module: ir.Module, options: CompileOptions) -> None:
    vk_bindings.run(module, options, strict=True)


def ray_interface(module: ir.Module, options: CompileOptions) -> None:
    """raytracing.ray_interface, imported when it runs: a DXIL compile reads this module's
    Capabilities but never runs SPIR-V's passes, and a compile without library entries has nothing
    for it (tests/cli/test_import_budget.py)."""
    if not module.entries:
        return
    from .raytracing import ray_interface as run

    run(module, options)


RAISE_PASSES = (unsupported, system_values, tess_levels, io_types, hull_entry, interlock, invert_y, dx_position_w,
                nonzero_base,
                ray_interface, bindings)


def _is_io(place: ir.Expr, builtin: str) -> bool:
    return isinstance(place, ir.VarRef) and place.var.io is not None and place.var.io.builtin == builtin


def _with_component(value: ir.Expr, index: int, change: Callable[[ir.Expr], ir.Expr]) -> ir.Expr:
    """`value` (a float4) with component `index` replaced by change(component)."""
    parts: list[ir.Expr] = [ir.Extract(value, i, ir.FLOAT) for i in range(4)]
    parts[index] = change(parts[index])
    return ir.Construct(ir.Vector(ir.FLOAT, 4), parts)


