"""IR Module -> SPIR-V module: target version, globals, entry point, functions.

The per-function work is in emit_stmt/emit_expr/intrinsics; this module decides
what exists at module scope (DXC conventions, research/compiler_notes.md §1):
storage classes, stage I/O decorations, the entry point and its interface.
"""

from __future__ import annotations

from shaderbuild.diagnostics import CompileError, error
from shaderbuild.ir import entry_points, wrapper_of
from shaderbuild.ir.layout import vulkan_rule
from shaderbuild.ir.nodes import (
    Call,
    Const,
    Construct,
    Eval,
    Function,
    Intrinsic,
    Module,
    Storage,
    Variable,
    VarRef,
    body_exprs,
)
from shaderbuild.ir.resource_kinds import KINDS as RESOURCE_KINDS
from shaderbuild.ir.types import Array, Resource, Scalar, Struct, Type, Vector, scalar_of
from shaderbuild.records import DataRecord

from .builder import ModuleBuilder, enum
from .emit_expr import Ctx, VarSlot
from .emit_stmt import FunctionEmitter
from .emit_types import TypeLowering
from .resources import ResourceLowering, ResourceVar, reflection_entries
from .vulkan import BEGIN_INTERLOCK, ext_builtin_type_problem

# --fspv-target-env -> SPIR-V version (DXC's mapping)
TARGET_ENVS: dict[str, tuple[int, int]] = {
    "vulkan1.0": (1, 0), "vulkan1.1": (1, 3), "vulkan1.2": (1, 5), "vulkan1.3": (1, 6), "universal1.5": (1, 5),
}
EXECUTION_MODELS = {"compute": "GLCompute", "vertex": "Vertex", "pixel": "Fragment", "geometry": "Geometry",
                    "hull": "TessellationControl", "domain": "TessellationEvaluation", "mesh": "MeshEXT",
                    "amplification": "TaskEXT"}
# mesh and amplification shaders (SPV_EXT_mesh_shader) need SPIR-V 1.4: a lower target environment
# is refused (DXC falls back to SPV_NV_mesh_shader there; this backend does not)
MESH_STAGES = ("mesh", "amplification")
MESH_SPIRV = (1, 4)
_MESH_TOPOLOGIES = {"triangle": "OutputTrianglesEXT", "line": "OutputLinesEXT"}
# tessellation execution modes (DXC puts them all on the TessellationControl entry; the
# evaluation entry repeats the domain, the one thing a domain shader knows)
TESS_DOMAINS = {"tri": "Triangles", "quad": "Quads", "isoline": "Isolines"}
# pow2 has no Vulkan spacing: refused (as DXC does), not tessellated differently
TESS_SPACING = {"integer": "SpacingEqual", "fractional_even": "SpacingFractionalEven",
                "fractional_odd": "SpacingFractionalOdd"}
TESS_ORDER = {"triangle_cw": "VertexOrderCw", "triangle_ccw": "VertexOrderCcw", "point": "PointMode"}
# GS input primitive / output stream topology -> execution mode (DXC's mapping)
_GS_INPUT_MODES = {"point": "InputPoints", "line": "InputLines", "triangle": "Triangles",
                   "lineadj": "InputLinesAdjacency", "triangleadj": "InputTrianglesAdjacency"}
_GS_OUTPUT_MODES = {"point": "OutputPoints", "line": "OutputLineStrip", "triangle": "OutputTriangleStrip"}
_STORAGE_CLASSES = {Storage.PRIVATE: "Private", Storage.WORKGROUP: "Workgroup",
                    Storage.PAYLOAD: "TaskPayloadWorkgroupEXT"}
# ray-tracing library shaders (raytracing.py makes these variables)
RAY_EXECUTION_MODELS = {"raygeneration": "RayGenerationKHR", "intersection": "IntersectionKHR",
                        "anyhit": "AnyHitKHR", "closesthit": "ClosestHitKHR", "miss": "MissKHR",
                        "callable": "CallableKHR"}
_RAY_STORAGE_CLASSES = {Storage.RAY_PAYLOAD: "RayPayloadKHR", Storage.INCOMING_RAY_PAYLOAD: "IncomingRayPayloadKHR",
                        Storage.HIT_ATTRIBUTE: "HitAttributeKHR", Storage.CALLABLE_DATA: "CallableDataKHR",
                        Storage.INCOMING_CALLABLE_DATA: "IncomingCallableDataKHR"}
_INTERPOLATION = {"nointerpolation": "Flat", "noperspective": "NoPerspective", "centroid": "Centroid",
                  "sample": "Sample", "linear": None, "pervertex": "PerVertexKHR",
                  "noperspective centroid": "NoPerspective", "noperspective sample": "NoPerspective"}
_INTERPOLATION_WHERE = {"noperspective centroid": "Centroid", "noperspective sample": "Sample"}   # a second decoration
_INTERPOLATION_CAPS = {"Sample": "SampleRateShading", "PerVertexKHR": "FragmentBarycentricKHR"}
_INTERPOLATION_EXTS = {"PerVertexKHR": "SPV_KHR_fragment_shader_barycentric"}
# built-ins that need a capability (and extension) of their own: builtin -> (capability, extension,
# SPIR-V version from which the extension is core (None: never)); _builtin_caps has the stage rules
_BUILTIN_CAPS: dict[str, tuple[str, str | None, tuple[int, int] | None]] = {
    "SampleId": ("SampleRateShading", None, None), "SamplePosition": ("SampleRateShading", None, None),
    "ClipDistance": ("ClipDistance", None, None), "CullDistance": ("CullDistance", None, None),
    "BaseVertex": ("DrawParameters", "SPV_KHR_shader_draw_parameters", (1, 3)),
    "BaseInstance": ("DrawParameters", "SPV_KHR_shader_draw_parameters", (1, 3)),
    "DrawIndex": ("DrawParameters", "SPV_KHR_shader_draw_parameters", (1, 3)),
    "ViewIndex": ("MultiView", "SPV_KHR_multiview", (1, 3)),
    "FragStencilRefEXT": ("StencilExportEXT", "SPV_EXT_shader_stencil_export", None),
    "FullyCoveredEXT": ("FragmentFullyCoveredEXT", "SPV_EXT_fragment_fully_covered", None),
    "BaryCoordKHR": ("FragmentBarycentricKHR", "SPV_KHR_fragment_shader_barycentric", None),
    "BaryCoordNoPerspKHR": ("FragmentBarycentricKHR", "SPV_KHR_fragment_shader_barycentric", None),
    "PrimitiveShadingRateKHR": ("FragmentShadingRateKHR", "SPV_KHR_fragment_shading_rate", None),
    "ShadingRateKHR": ("FragmentShadingRateKHR", "SPV_KHR_fragment_shading_rate", None),
    "PrimitiveId": ("Geometry", None, None),
    "Layer": ("Geometry", None, None), "ViewportIndex": ("MultiViewport", None, None),
}
# Layer / ViewportIndex written before the rasteriser by a vertex or domain (tessellation evaluation) shader:
# SPV_EXT_shader_viewport_index_layer, or from SPIR-V 1.5 the core ShaderLayer / ShaderViewportIndex
_VS_LAYER_CAPS = {"Layer": "ShaderLayer", "ViewportIndex": "ShaderViewportIndex"}
# execution modes a fragment output built-in asks for, and those its semantic adds (DXC's)
_OUTPUT_MODES = {"FragDepth": ("DepthReplacing",), "FragStencilRefEXT": ("StencilRefReplacingEXT",),
                 "SV_DepthGreaterEqual": ("DepthGreater",), "SV_DepthLessEqual": ("DepthLess",)}

# front/attributes.py ENTRY_MODES -> (execution mode, capability, extensions) (DXC's, SPIR-V.rst)
_AMD_TESTS = "SPV_AMD_shader_early_and_late_fragment_tests"
_STENCIL = ("StencilExportEXT", (_AMD_TESTS, "SPV_EXT_shader_stencil_export"))
_ENTRY_MODES: dict[str, tuple[str, str | None, tuple[str, ...]]] = {
    "earlydepthstencil": ("EarlyFragmentTests", None, ()),
    "vk::post_depth_coverage": ("PostDepthCoverage", "SampleMaskPostDepthCoverage", ("SPV_KHR_post_depth_coverage",)),
    "vk::early_and_late_tests": ("EarlyAndLateFragmentTestsAMD", None, (_AMD_TESTS,)),
    "vk::depth_unchanged": ("DepthUnchanged", None, ()),
    "vk::stencil_ref_unchanged_front": ("StencilRefUnchangedFrontAMD", *_STENCIL),
    "vk::stencil_ref_greater_equal_front": ("StencilRefGreaterFrontAMD", *_STENCIL),
    "vk::stencil_ref_less_equal_front": ("StencilRefLessFrontAMD", *_STENCIL),
    "vk::stencil_ref_unchanged_back": ("StencilRefUnchangedBackAMD", *_STENCIL),
    "vk::stencil_ref_greater_equal_back": ("StencilRefGreaterBackAMD", *_STENCIL),
    "vk::stencil_ref_less_equal_back": ("StencilRefLessBackAMD", *_STENCIL),
}


def _builtin_caps(builtin: str, stage: str, version: tuple[int, int]) -> list[tuple[str, str | None]]:
    """(capability, extension or None) pairs a built-in needs in `stage`."""
    if builtin in _VS_LAYER_CAPS and stage in ("vertex", "domain"):
        if version >= (1, 5):
            return [(_VS_LAYER_CAPS[builtin], None)]
        return [("ShaderViewportIndexLayerEXT", "SPV_EXT_shader_viewport_index_layer")]
    if builtin in ("PrimitiveId", "Layer", "ViewportIndex") and stage == "mesh":
        return []       # MeshShadingEXT covers them
    if builtin == "PrimitiveId" and stage != "pixel":
        return []       # the geometry / tessellation stages' own capability covers it
    cap = _BUILTIN_CAPS.get(builtin)
    if cap is None:
        return []
    name, ext, core = cap
    return [(name, None if ext is None or (core is not None and version >= core) else ext)]


class Lowered(DataRecord):
    binary: bytes
    version: tuple[int, int]
    resources: list[ResourceVar]


def spirv_version(target_env: str) -> tuple[int, int]:
    v = TARGET_ENVS.get(target_env)
    if v is None:
        raise error(f"unknown Vulkan target environment '{target_env}' (one of {', '.join(TARGET_ENVS)})")
    return v


def reachable_functions(module: Module, entry: Function) -> list[Function]:
    """Functions called (transitively) from `entry`, callees before callers, entry last."""
    if len(module.functions) == 1 and module.functions[0] is entry:
        return [entry]      # (every call names a function of the module: the IR validator checks it)
    order: list[Function] = []
    seen: set[int] = set()

    def visit(f: Function) -> None:
        seen.add(id(f))
        for x in body_exprs(f.body):
            if isinstance(x, Call) and id(x.func) not in seen:
                visit(x.func)
        order.append(f)

    visit(entry)
    return order


def lower_module(module: Module, target_env: str = "vulkan1.1", vk_layout: str = "default",
                 debug_command_line: str | None = None, ssa: bool = False) -> Lowered:
    """Translate `module` (entry wrapper already built) to a SPIR-V binary; `ssa`: promotable locals
    as SSA values (ssa.py; for the optimiser: -O0 keeps every variable, as written)."""
    if module.entries:
        return _lower_library(module, target_env, vk_layout, debug_command_line, ssa)
    if module.entry is None and module.stage == "library":
        raise error("a SPIR-V module needs at least one shader: a library of subobjects only has no SPIR-V form "
                    "(its subobjects are in the DXIL library and in the manifest)")
    if module.entry is None:
        raise error("module has no entry point")
    entry = module.entry
    assert entry is not None
    wrapper = entry.function or entry.source_function
    version = spirv_version(target_env)
    if entry.stage in MESH_STAGES and version < MESH_SPIRV:
        raise error(f"{entry.stage} shaders need SPIR-V 1.4 (SPV_EXT_mesh_shader): compile with "
                    f"-fspv-target-env=vulkan1.2 or later (the target environment is {target_env})",
                    entry.source_function.loc)
    b = ModuleBuilder(version)
    b.capability("Shader")
    if entry.stage in ("hull", "domain"):
        b.capability("Tessellation")
    if entry.stage in MESH_STAGES:
        b.capability("MeshShadingEXT")
        b.extension("SPV_EXT_mesh_shader")
    T = TypeLowering(b)
    R = ResourceLowering(T, version >= (1, 4), vk_layout)
    ctx = Ctx(b, T, R, entry.stage, entry, shader_model=module.shader_model)
    if debug_command_line is not None:       # -Zi
        from .debuginfo import DebugInfo

        ctx.debug = DebugInfo(b, T, module, debug_command_line)
    model = EXECUTION_MODELS.get(entry.stage)
    if model is None:
        raise error(f"shader stage '{entry.stage}' is not supported by the SPIR-V backend")

    for c in module.spec_constants:      # every [[vk::constant_id]] is declared, used or not (as DXC)
        T.spec_const(c)
    resources, initializers = _lower_globals(ctx, module)
    funcs = reachable_functions(module, wrapper)
    for f in funcs:
        ctx.func_ids[f] = b.new_id()

    def run_initializers(fe: FunctionEmitter) -> None:
        # static globals whose initializer is not a constant: run at the top of the entry (DXC)
        for g in initializers:
            assert g.init is not None       # collected for its initializer
            fe.store(fe.place(VarRef(g)), fe.expr(g.init))

    for f in funcs:
        b.functions += FunctionEmitter(ctx, f, run_initializers if f is wrapper else None, ssa).emit()
    _entry_point(ctx, model, ctx.func_ids[wrapper])
    if ctx.debug is not None:
        ctx.debug.entry_point(ctx.debug.functions[wrapper])
    return Lowered(b.assemble(), version, resources)


def _lower_library(module: Module, target_env: str, vk_layout: str, debug_command_line: str | None,
                   ssa: bool) -> Lowered:
    """A ray-tracing library: one module, one entry point per shader.  SPV_KHR_ray_tracing needs
    SPIR-V 1.4, so the target environment must be Vulkan 1.2 or newer.  Each entry point's interface
    lists every global its functions use (the SPIR-V 1.4 rule)."""
    from .opt.module import id_operands

    version = spirv_version(target_env)
    if version < (1, 4):
        raise error(f"ray-tracing libraries need SPIR-V 1.4 (SPV_KHR_ray_tracing); the target environment "
                    f"{target_env} is SPIR-V {version[0]}.{version[1]}: use -fspv-target-env=vulkan1.2 or newer",
                    module.entries[0].source_function.loc)
    b = ModuleBuilder(version)
    b.capability("Shader")
    b.capability("RayTracingKHR")
    b.extension("SPV_KHR_ray_tracing")
    T = TypeLowering(b)
    R = ResourceLowering(T, True, vk_layout)
    ctx = Ctx(b, T, R, "library", None)
    if debug_command_line is not None:       # -Zi
        from .debuginfo import DebugInfo

        ctx.debug = DebugInfo(b, T, module, debug_command_line)
    for c in module.spec_constants:
        T.spec_const(c)
    resources, initializers = _lower_globals(ctx, module)
    wrappers = {id(ep.function): ep for ep in module.entries if ep.function is not None}
    funcs: list[Function] = []
    reached: dict[int, list[Function]] = {}
    for ep in module.entries:
        reached[id(ep)] = reachable_functions(module, wrapper_of(ep))
        funcs += [f for f in reached[id(ep)] if f not in funcs]
    for f in funcs:
        ctx.func_ids[f] = b.new_id()

    def run_initializers(fe: FunctionEmitter) -> None:
        for g in initializers:
            assert g.init is not None
            fe.store(fe.place(VarRef(g)), fe.expr(g.init))

    uses: dict[Function, set[int]] = {}
    for f in funcs:
        words = FunctionEmitter(ctx, f, run_initializers if id(f) in wrappers else None, ssa).emit()
        uses[f] = id_operands(words)
        b.functions += words
    variables = set(b.variables)
    for ep in module.entries:
        fid = ctx.func_ids[wrapper_of(ep)]
        interface = sorted({v for f in reached[id(ep)] for v in uses[f] if v in variables})
        b.entry_point(RAY_EXECUTION_MODELS[ep.stage], fid, ep.name, interface)
        if ctx.debug is not None:
            ctx.debug.entry_point(ctx.debug.functions[wrapper_of(ep)])
    return Lowered(b.assemble(), version, resources)


def _lower_globals(ctx: Ctx, module: Module) -> tuple[list[ResourceVar], list[Variable]]:
    """Create every global variable; returns the resources and the globals whose
    initializer must run in the entry function."""
    entries = entry_points(module)
    b, T = ctx.b, ctx.T
    resources: list[ResourceVar] = []
    initializers: list[Variable] = []
    known = {id(g) for g in module.globals}
    io_vars = [v for entry in entries for v in (*entry.inputs, *entry.outputs) if id(v) not in known]
    spirv_14 = b.version >= (1, 4)
    for g in (*module.globals, *io_vars):
        if _is_resource(g):
            rv = ctx.R.lower(g)
            resources.append(rv)
            pointee = rv.block_type if rv.kind.rep in ("cbuffer", "tbuffer") else None
            slot = VarSlot(rv.id, rv.storage_class, rv.layout, pointee, rv)
        elif g.storage == Storage.PUSH_CONSTANT:
            slot = _push_constant(T, g, vulkan_rule("push", ctx.R.vk_layout))
        elif g.storage in (Storage.INPUT, Storage.OUTPUT):
            slot = _stage_io(T, g, ctx.stage)
            ctx.interface.append(slot.id)
        elif g.storage in _RAY_STORAGE_CLASSES:
            ray_sc = _RAY_STORAGE_CLASSES[g.storage]
            slot = VarSlot(b.global_variable(T.ptr(ray_sc, T.tid(g.type)), ray_sc), ray_sc)
            b.name(slot.id, g.name)
            if g.io is not None and g.io.location is not None:
                b.decorate(slot.id, "Location", g.io.location)
        else:
            sc = _STORAGE_CLASSES.get(g.storage)
            if sc is None:
                raise error(f"global '{g.name}' with storage {g.storage.value} has no SPIR-V storage class", g.loc)
            init = _constant_initializer(T, g) if sc == "Private" else None
            if g.init is not None and init is None:
                initializers.append(g)
            slot = VarSlot(b.global_variable(T.ptr(sc, T.tid(g.type)), sc, init), sc)
            b.name(slot.id, g.name)
        ctx.slots[g] = slot
        if spirv_14:      # from SPIR-V 1.4 the interface lists every global the entry uses
            ctx.interface.append(slot.id)
    for rv in resources:  # Append/Consume: the counter the manifest lists, used or not (after every binding)
        if RESOURCE_KINDS[rv.rtype.kind].counter:
            ctx.R.counter(rv)
    return resources, initializers


def _entry_point(ctx: Ctx, model: str, fid: int) -> None:
    entry = ctx.entry
    assert entry is not None    # lower() made ctx with the module's entry
    b = ctx.b
    b.entry_point(model, fid, entry.name, list(dict.fromkeys(ctx.interface)))
    if entry.stage in ("compute", *MESH_STAGES):
        x, y, z = entry.numthreads or (1, 1, 1)
        b.execution_mode(fid, "LocalSize", x, y, z)
        if ctx.derivative_group is not None:
            b.execution_mode(fid, ctx.derivative_group)
        mesh = entry.mesh
        if entry.stage == "mesh" and mesh is not None:
            b.execution_mode(fid, "OutputVertices", mesh.max_vertices)
            b.execution_mode(fid, "OutputPrimitivesEXT", mesh.max_primitives)
            b.execution_mode(fid, _MESH_TOPOLOGIES[mesh.topology or "triangle"])
    elif entry.tess is not None:
        t = entry.tess
        b.execution_mode(fid, TESS_DOMAINS[t.domain])
        if entry.stage == "hull":
            spacing = TESS_SPACING.get(t.partitioning or "integer")
            if spacing is None:
                raise error(f"[partitioning(\"{t.partitioning}\")] has no SPIR-V equivalent: Vulkan tessellates "
                            f"with integer or fractional spacing only", entry.source_function.loc)
            b.execution_mode(fid, spacing)
            if t.output_topology in TESS_ORDER:
                b.execution_mode(fid, TESS_ORDER[t.output_topology or ""])
            b.execution_mode(fid, "OutputVertices", t.output_control_points or 0)
    elif entry.stage == "geometry" and entry.geometry is not None:
        gs = entry.geometry
        b.capability("Geometry")
        b.execution_mode(fid, _GS_INPUT_MODES[gs.input_primitive])
        b.execution_mode(fid, "Invocations", gs.instances)
        b.execution_mode(fid, _GS_OUTPUT_MODES[gs.streams[0]])
        b.execution_mode(fid, "OutputVertices", gs.max_vertex_count)
    elif entry.stage == "pixel":
        b.execution_mode(fid, "OriginUpperLeft")
        for name in entry.modes:
            mode, cap, exts = _ENTRY_MODES[name]
            if cap is not None:
                b.capability(cap)
            for ext in exts:
                b.extension(ext)
            b.execution_mode(fid, mode)
        modes = [m for v in entry.outputs if v.io is not None and v.io.builtin
                 for key in (v.io.builtin, v.io.semantic) for m in _OUTPUT_MODES.get(key, ())]
        for mode in dict.fromkeys(modes):
            b.execution_mode(fid, mode)
        if entry.function is not None and any(isinstance(s, Eval) and isinstance(s.expr, Intrinsic)
                                              and s.expr.name == BEGIN_INTERLOCK for s in entry.function.body):
            # per sample when SV_SampleIndex is read, else per pixel (DXC's choice, SPIR-V.rst)
            per_sample = any(v.io is not None and v.io.builtin == "SampleId" for v in entry.inputs)
            b.capability("FragmentShaderSampleInterlockEXT" if per_sample else "FragmentShaderPixelInterlockEXT")
            b.execution_mode(fid, "SampleInterlockOrderedEXT" if per_sample else "PixelInterlockOrderedEXT")


def reflection(lowered: Lowered) -> dict:
    major, minor = lowered.version
    return {"vulkan": {"spirv_version": f"{major}.{minor}",
                       "resources": [e for r in lowered.resources for e in reflection_entries(r)]}}


def _is_resource(g: Variable) -> bool:
    t = g.type
    while isinstance(t, Array):
        t = t.elem
    return isinstance(t, Resource) or (g.storage == Storage.UNIFORM and g.binding is not None)


def _push_constant(T: TypeLowering, g: Variable, rule: str) -> VarSlot:
    assert isinstance(g.type, Struct)       # (sema: a struct or ConstantBuffer<T> push constant)
    try:
        bt = T.block_struct(f"type.PushConstant.{g.type.name}", g.type, rule)
    except CompileError as exc:      # a layout the SPIR-V types cannot express: located at the variable
        if exc.diagnostics[0].loc is not None:
            raise
        raise error(exc.diagnostics[0].message, g.loc) from None
    T.b.decorate(bt, "Block")
    T.note_storage(g.type, "push_constant")
    vid = T.b.global_variable(T.ptr("PushConstant", bt), "PushConstant")
    T.b.name(vid, g.name)
    return VarSlot(vid, "PushConstant", rule, bt)


# built-ins a [[vk::builtin("X")]] names (front/sema/lower.py VK_BUILTIN_ATTRIBUTE) with the type Vulkan gives them
# in vulkan.py (ViewportMaskNV, an int array of any size, is not checked)
_CHECKED_VK_BUILTINS = frozenset({"PointSize", "HelperInvocation", "BaseVertex", "BaseInstance", "DrawIndex",
                                  "DeviceIndex"})


def _written_builtin(io) -> bool:
    """Whether the source names this built-in itself ([[vk::ext_builtin_*]] or [[vk::builtin]]), so its declared
    type must be Vulkan's (a system-value semantic's variable is given Vulkan's type by the entry wrapper)."""
    if io.semantic.startswith("vk::ext_builtin"):
        return True
    return io.builtin in _CHECKED_VK_BUILTINS and not io.semantic.upper().startswith("SV_")


def _stage_io(T: TypeLowering, g: Variable, stage: str) -> VarSlot:
    sc = "Input" if g.storage == Storage.INPUT else "Output"
    b = T.b
    T.note_storage(g.type, "io")
    vid = b.global_variable(T.ptr(sc, T.tid(g.type)), sc)
    b.name(vid, g.name)
    io = g.io
    if io is None:
        raise error(f"stage variable '{g.name}' has no semantic", g.loc)
    if io.builtin == "PrimitiveShadingRateKHR" and io.mesh:
        raise error(f"{io.semantic} in a mesh shader is not supported by the SPIR-V backend: spirv-val rejects the "
                    f"per-primitive PrimitiveShadingRateKHR array that Vulkan specifies for mesh shaders", g.loc)
    if io.builtin:
        problem = ext_builtin_type_problem(io.builtin, g.type) if _written_builtin(io) else None
        if problem:
            raise error(f"'{g.name}' cannot be SPIR-V BuiltIn {_builtin_value(io.builtin)}: {problem}", g.loc)
        b.decorate(vid, "BuiltIn", _builtin_value(io.builtin))
        for cap, ext in _builtin_caps(io.builtin, stage, b.version):
            b.capability(cap)
            if ext:
                b.extension(ext)
        if io.builtin.startswith("BaryCoord") and io.interpolation in ("centroid", "sample"):
            mode = "Centroid" if io.interpolation == "centroid" else "Sample"   # where in the pixel (as DXC)
            b.decorate(vid, mode)
            if mode in _INTERPOLATION_CAPS:
                b.capability(_INTERPOLATION_CAPS[mode])
    else:
        b.decorate(vid, "Location", io.location if io.location is not None else io.index)
    if io.patch or io.builtin in ("TessLevelOuter", "TessLevelInner"):
        b.decorate(vid, "Patch")
    if io.mesh == "primitive" or (io.per_primitive and stage == "pixel"):
        if b.version < MESH_SPIRV:      # (a mesh shader was refused already: this is the pixel input)
            raise error("a per-primitive input needs SPIR-V 1.4 (SPV_EXT_mesh_shader): compile with "
                        "-fspv-target-env=vulkan1.2 or later", g.loc)
        b.decorate(vid, "PerPrimitiveEXT")      # a mesh shader's per-primitive output, the pixel input reading it
        b.capability("MeshShadingEXT")
        b.extension("SPV_EXT_mesh_shader")
    if io.stream:
        b.decorate(vid, "Stream", io.stream)
        b.capability("GeometryStreams")
    interp = _INTERPOLATION.get(io.interpolation or "linear")
    if io.interpolation and io.interpolation not in _INTERPOLATION:
        raise error(f"unknown interpolation mode '{io.interpolation}'", g.loc)
    pixel_in = stage == "pixel" and sc == "Input"
    if pixel_in and _is_integer(g.type) and interp != "PerVertexKHR":
        interp = "Flat"     # Vulkan: integer fragment inputs must be Flat (built-ins too: SampleId, Layer, ...)
        if io.builtin:
            b.decorate(vid, interp)
    if interp and (pixel_in or (stage in ("vertex", "mesh") and sc == "Output" and io.mesh != "primitive")) \
            and not io.builtin:
        where = _INTERPOLATION_WHERE.get(io.interpolation or "") if interp != "Flat" else None
        for mode in (interp, *([where] if where else [])):
            b.decorate(vid, mode)
            if mode in _INTERPOLATION_CAPS:
                b.capability(_INTERPOLATION_CAPS[mode])
            if mode in _INTERPOLATION_EXTS:
                b.extension(_INTERPOLATION_EXTS[mode])
    return VarSlot(vid, sc)


def _builtin_value(name: str) -> int:
    try:
        return enum("BuiltIn", name)
    except KeyError:
        raise error(f"unknown SPIR-V built-in '{name}'") from None


def _is_integer(t: Type) -> bool:
    while isinstance(t, Array):
        t = t.elem
    s = scalar_of(t)
    return s is not None and (s.kind in ("int", "uint") or s.width == 64)


def _constant_initializer(T: TypeLowering, g: Variable) -> int | None:
    """OpConstant* for a constant initializer (Const, or Construct of constants)."""
    def fold(e) -> int | None:
        if isinstance(e, Const):
            return T.const(e.type, e.value)
        if isinstance(e, Construct):
            t = e.type
            if isinstance(t, (Scalar, Vector)) and all(isinstance(p, Const) and isinstance(p.type, Scalar)
                                                        for p in e.parts):
                return T.const(t, tuple(p.value for p in e.parts if isinstance(p, Const)))   # (all are)
            if isinstance(t, (Array, Struct)):
                parts = [fold(p) for p in e.parts]
                if all(p is not None for p in parts):
                    return T.b.constant("OpConstantComposite", T.tid(t), *(p for p in parts if p is not None))
        return None

    return fold(g.init) if g.init is not None else None
