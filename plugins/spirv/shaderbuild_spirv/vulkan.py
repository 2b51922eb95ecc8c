"""The SPIR-V backend's raise passes: what HLSL means on Vulkan, applied to the
IR after the shared passes and before lowering (issue 15: a Vulkan option can
change only a Vulkan binary).

  system_values   SV_* stage I/O -> SPIR-V BuiltIn per stage and direction (DXC's mapping)
  invert_y        -fvk-invert-y: the vertex Position output's y is negated
  dx_position_w   -fvk-use-dx-position-w: FragCoord.w read as D3D's w (1 / Vulkan's)
  bindings        Vulkan descriptor sets and bindings (shaderbuild.passes.vk_bindings, strict:
                  two resources on one binding are an error in a Vulkan binary)
"""

from __future__ import annotations

from collections.abc import Callable

from shaderbuild import ir
from shaderbuild.options import CompileOptions
from shaderbuild.passes import vk_bindings

# the barrier between a hull shader's control-point and patch-constant parts (intrinsics.BARRIERS)
PATCH_BARRIER = "spirv.PatchConstantBarrier"

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
}
# TessLevelOuter / TessLevelInner are float[4] / float[2] whatever the domain; HLSL's
# SV_TessFactor / SV_InsideTessFactor are as long as the domain needs (front/semantics.py)
TESS_LEVEL_TYPES = {"TessLevelOuter": ir.Array(ir.FLOAT, 4), "TessLevelInner": ir.Array(ir.FLOAT, 2)}

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


def system_values(module: ir.Module, options: CompileOptions) -> None:
    """Give every SV_* stage input/output of the entry its SPIR-V BuiltIn (the entry wrapper
    has checked that HLSL allows it there; SV_Target keeps its Location)."""
    ep = module.entry
    if ep is None:
        return
    for direction, variables in (("in", ep.inputs), ("out", ep.outputs)):
        for v in variables:
            io = v.io
            if io is not None and io.builtin is None and io.location is None:
                builtin = SV_BUILTINS.get((io.semantic, ep.stage, direction))
                if builtin is not None:
                    io.builtin = builtin


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
                s.value = _rewrite(s.value, narrow)
            elif isinstance(s, ir.Eval):
                s.expr = _rewrite(s.expr, narrow)


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


def invert_y(module: ir.Module, options: CompileOptions) -> None:
    """-fvk-invert-y: negate y of what the entry wrapper stores to the Position output."""
    if not options.vk_invert_y or module.entry is None or module.entry.function is None:
        return
    for s in module.entry.function.body:
        if isinstance(s, ir.Store) and _is_io(s.place, "Position"):
            s.value = _with_component(s.value, 1, lambda y: ir.Unary("neg", y, ir.FLOAT))


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
            s.value = _rewrite(s.value, change)
        elif isinstance(s, ir.Eval):
            s.expr = _rewrite(s.expr, change)


def bindings(module: ir.Module, options: CompileOptions) -> None:
    vk_bindings.run(module, options, strict=True)


RAISE_PASSES = (system_values, tess_levels, hull_entry, invert_y, dx_position_w, bindings)


def _is_io(place: ir.Expr, builtin: str) -> bool:
    return isinstance(place, ir.VarRef) and place.var.io is not None and place.var.io.builtin == builtin


def _with_component(value: ir.Expr, index: int, change: Callable[[ir.Expr], ir.Expr]) -> ir.Expr:
    """`value` (a float4) with component `index` replaced by change(component)."""
    parts: list[ir.Expr] = [ir.Extract(value, i, ir.FLOAT) for i in range(4)]
    parts[index] = change(parts[index])
    return ir.Construct(ir.Vector(ir.FLOAT, 4), parts)


def _rewrite(e: ir.Expr, change: Callable[[ir.Expr], ir.Expr]) -> ir.Expr:
    """Apply `change` bottom-up to every sub-expression of `e` (in place), return e's replacement."""
    for f in type(e)._fields:
        v = getattr(e, f)
        if isinstance(v, ir.Expr):
            setattr(e, f, _rewrite(v, change))
        elif isinstance(v, list):
            v[:] = [_rewrite(x, change) if isinstance(x, ir.Expr) else x for x in v]
    return change(e)
