"""Builds the binding manifest (one JSON object per compiled entry point).

The manifest serves a D3D12 root signature (the "hlsl" view: class, register,
space, count) and a Vulkan descriptor-set layout (the "vulkan" view: set,
binding, descriptor type, count).  It is deterministic: no timestamps, no
absolute paths, keys sorted when serialised.
"""

from __future__ import annotations

import math

from .. import ir
from ..capabilities import DEFAULT, Capabilities
from ..ir.resource_kinds import KINDS
from ..options import CompileOptions

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FORMAT = "shaderbuild-manifest/1"
# bumped on every change a reader may notice; docs/MANIFEST.md has the migration notes
MANIFEST_VERSION = 2


def descriptor_type(kind: str) -> str:
    """The Vulkan descriptor type of a resource kind (ir/resource_kinds.py); KeyError if unknown."""
    return KINDS[kind].descriptor


def resource_kind(var: ir.Variable) -> str:
    t = var.type
    while isinstance(t, ir.Array):
        t = t.elem
    if isinstance(t, ir.Resource):
        return t.kind
    return "cbuffer"   # cbuffer/tbuffer blocks are typed as their member struct


def _block_kind(kind: str) -> str:
    return "uniform" if descriptor_type(kind) == "uniform_buffer" else "storage"


def _placement(offset: int, lay) -> dict:
    d: dict[str, object] = {"offset": offset, "size": lay.size}
    if lay.array_stride is not None:
        d["array_stride"] = lay.array_stride
    if lay.matrix_stride is not None:
        d["matrix_stride"] = lay.matrix_stride
        d["row_major"] = bool(lay.row_major)
    return d


def _members(st: ir.Struct, hlsl, vulkan, hlsl_rule: str, vulkan_rule_name: str) -> list[dict]:
    """Every field with its placement in both packings; a struct (or array of structs) field lists
    its own members, their offsets relative to the start of the struct (of one element)."""
    from ..ir.layout import layout_of

    out = []
    for i, f in enumerate(st.fields):
        m: dict[str, object] = {"name": f.name, "type": str(f.type),
                                "hlsl": _placement(hlsl.offsets[i], hlsl.members[i]),
                                "vulkan": _placement(vulkan.offsets[i], vulkan.members[i])}
        inner, dims = f.type, []
        while isinstance(inner, ir.Array):
            dims.append("unbounded" if inner.size is None else inner.size)
            inner = inner.elem
        if dims:
            m["array_dims"] = dims
        if isinstance(inner, ir.Matrix):
            m["row_major"] = bool(f.row_major)
        if isinstance(inner, ir.Struct):
            if dims:
                hl, vk = layout_of(inner, hlsl_rule), layout_of(inner, vulkan_rule_name)
            else:
                hl, vk = hlsl.members[i], vulkan.members[i]
            m["members"] = _members(inner, hl, vk, hlsl_rule, vulkan_rule_name)
        out.append(m)
    return out


def block_layout(st: ir.Type, hlsl_rule: str, vulkan_rule_name: str) -> dict:
    from ..ir.layout import layout_of

    assert isinstance(st, ir.Struct)      # a block (cbuffer, push constant) is a struct

    hl = layout_of(st, hlsl_rule)
    vk = layout_of(st, vulkan_rule_name)
    # the byte range a descriptor must cover (what spirv-cross reports as block_size)
    used = max((o + m.size for o, m in zip(vk.offsets, vk.members)), default=0)
    return {"hlsl_size": hl.size, "vulkan_size": used, "vulkan_rule": vulkan_rule_name,
            "members": _members(st, hl, vk, hlsl_rule, vulkan_rule_name)}


def _element(t: ir.Type, vulkan_rule_name: str) -> dict:
    """A structured buffer's element: its size in both packings and, for a struct, every member."""
    from ..ir.layout import layout_of

    hl, vk = layout_of(t, "dx_structured"), layout_of(t, vulkan_rule_name)
    d: dict[str, object] = {"type": str(t), "hlsl_size": hl.size, "vulkan_size": vk.size}
    if isinstance(t, ir.Struct):
        d["members"] = _members(t, hl, vk, "dx_structured", vulkan_rule_name)
    return d


def _resource_entry(var: ir.Variable, options: CompileOptions, used: bool) -> dict:
    from ..ir.layout import layout_of, vulkan_rule

    b = var.binding
    assert b is not None        # Module.resources
    kind = b.kind or resource_kind(var)
    count = "unbounded" if b.count is None else b.count
    entry: dict[str, Any] = {
        "name": var.name,
        "kind": kind,
        "access": "read-write" if b.register_class == "u" else "read-only",
        "used": used,
        "hlsl": {"class": b.register_class, "register": b.register, "space": b.space, "count": count},
    }
    if b.vk is not None and not b.push_constant:
        entry["vulkan"] = {"set": b.vk.set, "binding": b.vk.binding, "descriptor_type": descriptor_type(kind),
                           "count": count}
        if b.vk.counter_binding is not None:
            entry["vulkan"]["counter_binding"] = b.vk.counter_binding
    elem = var.type
    while isinstance(elem, ir.Array):
        elem = elem.elem
    if isinstance(elem, ir.Resource) and KINDS[elem.kind].rep == "structured" and elem.elem is not None:
        entry["hlsl"]["stride"] = layout_of(elem.elem, "dx_structured").size
        storage_rule = vulkan_rule("storage", options.vk_layout)
        if "vulkan" in entry:
            entry["vulkan"]["stride"] = layout_of(ir.Array(elem.elem, 1), storage_rule).array_stride
        entry["element"] = _element(elem.elem, storage_rule)
    block = var.type.elem if isinstance(var.type, ir.Array) and b.kind == "ConstantBuffer" else var.type
    if isinstance(block, ir.Struct):     # cbuffer / ConstantBuffer (each of an array) / tbuffer / $Globals
        # D3D packs tbuffers like cbuffers (16-byte rows); only the Vulkan view of a tbuffer is a storage block
        rule = "push" if b.push_constant else _block_kind(kind)
        entry["block"] = block_layout(block, "dx_cbuffer", vulkan_rule(rule, options.vk_layout))
    return entry


# (stage, direction) pairs whose values have no interpolation mode (DXIL: SigPoints VSIn, PSOut)
_UNINTERPOLATED = frozenset({("vertex", "in"), ("pixel", "out"), ("compute", "in")})


def _io_entries(var: ir.Variable, stage: str, direction: str, packed: dict) -> list[dict]:
    """The signature entries of one stage variable: one per semantic (a SPIR-V built-in array that
    several semantics share, IOInfo.parts, is listed per semantic with its array offset).  `packed`:
    the backend's register placement by (SEMANTIC, index) (DXIL: the signature packing)."""
    io = var.io
    assert io is not None       # a stage input/output
    if io.parts:
        return [{**_io_entry(var, index, t, stage, direction, packed), "array_offset": off}
                for index, off, t in io.parts]
    return [_io_entry(var, io.index, str(var.type), stage, direction, packed)]


def _io_entry(var: ir.Variable, index: int, type_name: str, stage: str, direction: str, packed: dict) -> dict:
    io = var.io
    assert io is not None       # a stage input/output
    d: dict[str, object] = {"semantic": io.semantic, "index": index, "type": type_name}
    if io.builtin is not None:            # a target built-in (SPIR-V), set by the backend's raise passes
        d["builtin"] = io.builtin
    elif io.location is not None:         # a system value with no built-in of the target has neither
        d["location"] = io.location
        d["mask"] = "xyzw"[:_components(var.type)]
    interp = io.interpolation
    if interp is None and (stage, direction) not in _UNINTERPOLATED and io.builtin is None:
        s = ir.scalar_of(var.type if not isinstance(var.type, ir.Array) else var.type.elem)
        interp = "linear" if s is not None and s.is_float else "nointerpolation"
    place = packed.get((io.semantic.upper(), index))
    if place is not None:                 # DXIL: the packed register row and component mask
        d["register"] = place["register"]
        d["mask"] = "xyzw"[place["column"]:place["column"] + place["cols"]]
        d["rows"] = place["rows"]
        interp = place.get("interpolation") or None
    if interp:
        d["interpolation"] = interp
    if io.vertices:                       # a GS input: one value per vertex of the input primitive
        d["vertices"] = io.vertices
    if direction == "out" and stage == "geometry":
        d["stream"] = io.stream
    if io.patch:                          # tessellation: a patch constant
        d["patch"] = True
    if io.arrayed and isinstance(var.type, ir.Array):     # tessellation: one per control point
        d["type"] = str(var.type.elem)
        d["control_points"] = var.type.size
    if io.mesh and isinstance(var.type, ir.Array):        # mesh shader: one per vertex / primitive
        d["type"] = str(var.type.elem)
        d["mesh_output"] = io.mesh
        d["elements"] = var.type.size
    if io.per_primitive and direction == "in":            # a pixel input a mesh shader writes per primitive
        d["per_primitive"] = True
    return d


def _mesh_entry(stage: str, m: ir.MeshInfo) -> dict:
    """What a pipeline needs of a mesh / amplification shader: output limits and topology, payload size."""
    if stage == "amplification":
        return {"payload_size": m.payload_size}
    return {"output_topology": m.topology, "max_vertices": m.max_vertices, "max_primitives": m.max_primitives,
            "payload_size": m.payload_size}


def _tess_entry(t: ir.TessInfo) -> dict:
    """What a pipeline needs of a hull or domain shader (patch list size, tessellator state)."""
    d: dict[str, object] = {"domain": t.domain}
    if t.input_control_points is not None:
        d["input_control_points"] = t.input_control_points
    if t.output_control_points is not None:
        d["output_control_points"] = t.output_control_points
    if t.partitioning is not None:
        d["partitioning"] = t.partitioning
    if t.output_topology is not None:
        d["output_topology"] = t.output_topology
    if t.max_tess_factor is not None:
        d["max_tess_factor"] = t.max_tess_factor
    if t.patch_source is not None:
        d["patch_constant_function"] = t.patch_source.name.removeprefix("src.")
    return d


_TOPOLOGY = {"point": "point_list", "line": "line_strip", "triangle": "triangle_strip"}


def _geometry_entry(gs: ir.GeometryInfo) -> dict:
    """What a pipeline needs of a geometry shader: its attributes, input primitive and streams."""
    return {"max_vertex_count": gs.max_vertex_count, "instances": gs.instances,
            "input_primitive": gs.input_primitive, "output_topology": _TOPOLOGY[gs.streams[0]],
            "streams": [{"stream": i, "topology": _TOPOLOGY[t]} for i, t in enumerate(gs.streams)]}


def _components(t: ir.Type) -> int:
    while isinstance(t, ir.Array):
        t = t.elem
    if isinstance(t, ir.Matrix):
        return t.cols
    return t.size if isinstance(t, ir.Vector) else 1


def _packed(backend_reflection: dict, side: str) -> dict:
    """(SEMANTIC, index) -> a backend's register placement of signature elements that have one."""
    out = {}
    for view in backend_reflection.values():
        for e in (view.get(side) or []) if isinstance(view, dict) else []:
            if e.get("register", -1) >= 0:
                out[(e["semantic"].upper(), e["index"])] = e
    return out


def build_manifest(module: ir.Module, options: CompileOptions, source_name: str, backend_reflection: dict,
                   caps: Capabilities = DEFAULT) -> dict:
    """The manifest; its searches (the Vulkan view's, the used globals) share one walk of each function
    (ir.function_exprs), taken afresh: the backend may have changed bodies."""
    ir.forget_exprs(module)
    try:
        return _manifest(module, options, source_name, backend_reflection, caps)
    finally:
        ir.forget_exprs(module)


def _manifest(module: ir.Module, options: CompileOptions, source_name: str, backend_reflection: dict,
              caps: Capabilities) -> dict:
    from ..ir.layout import vulkan_rule
    from .usage import used_globals

    if any(ir.binding_of(v).vk is None for v in (*module.resources, *module.heap_views)):
        _derive_vulkan_view(module, options)
    if module.stage == "library":
        return _library_manifest(module, options, source_name, backend_reflection, caps)
    ep = module.entry
    assert ep is not None
    entry: dict = {"name": ep.name, "stage": ep.stage, "profile": options.profile,
                   "inputs": [e for v in ep.inputs
                              for e in _io_entries(v, ep.stage, "in", _packed(backend_reflection, "inputs"))],
                   "outputs": [e for v in ep.outputs   # a mesh shader's primitive outputs: their own signature
                               for e in _io_entries(v, ep.stage, "out", {**_packed(backend_reflection, "outputs"),
                                                                         **_packed(backend_reflection,
                                                                                   "primitive_outputs")})]}
    if ep.numthreads is not None:
        entry["numthreads"] = list(ep.numthreads)
    if ep.tess is not None:
        entry["tessellation"] = _tess_entry(ep.tess)
    if ep.geometry is not None:
        entry["geometry"] = _geometry_entry(ep.geometry)
    if ep.mesh is not None:
        entry["mesh"] = _mesh_entry(ep.stage, ep.mesh)
    used = used_globals(module)
    # a push constant block is a push constant in the Vulkan view even where the target made it a cbuffer
    push = [v for v in module.globals if v.storage is ir.Storage.PUSH_CONSTANT
            or (v.binding is not None and v.binding.push_constant)]
    out: dict = {
        "format": FORMAT,
        "manifest_version": MANIFEST_VERSION,
        "source": source_name,
        "target": options.target,
        "entry": entry,
        "resources": [_resource_entry(v, options, id(v) in used) for v in module.resources],
        "push_constants": [{"name": v.name, "used": id(v) in used,
                            "block": block_layout(v.type, "dx_cbuffer", vulkan_rule("push", options.vk_layout))}
                           for v in push],
        "backend": _unbounded_spelling(backend_reflection),
    }
    if caps.specialization_constants:
        # [[vk::constant_id]]: what a VkSpecializationInfo may override (DXIL has no specialisation)
        out["spec_constants"] = [{"name": c.name, "id": c.spec_id, "type": str(c.type), "default": _json_number(c.value)}
                                 for c in sorted(module.spec_constants, key=lambda c: c.spec_id)]
    if module.subobjects:
        from .subobjects import subobjects_view

        out["subobjects"] = subobjects_view(module)
    heaps = _heaps(module)
    if heaps:
        out["descriptor_heaps"] = heaps
    if module.root_signature is not None:
        from ..rootsig.manifest import manifest_view, vulkan_layout

        out["root_signature"] = {**manifest_view(module.root_signature),   # type: ignore[arg-type]
                                 "vulkan": vulkan_layout(out["resources"], out["push_constants"], ep.stage)}
    return out


def _library_manifest(module: ir.Module, options: CompileOptions, source_name: str, backend_reflection: dict,
                      caps: Capabilities) -> dict:
    """A ray-tracing library (lib_6_x): no single entry, but every exported shader with its kind and
    the sizes a state object / pipeline and its shader tables need (payload, hit attributes, callable
    data, in bytes as D3D counts them)."""
    from .usage import used_globals

    used = used_globals(module)
    out: dict = {
        "format": FORMAT,
        "manifest_version": MANIFEST_VERSION,
        "source": source_name,
        "target": options.target,
        "library": {"profile": options.profile, "shaders": [_library_shader(module, ep) for ep in module.entries]},
        "resources": [_resource_entry(v, options, id(v) in used) for v in module.resources],
        "push_constants": [],
        "backend": _unbounded_spelling(backend_reflection),
    }
    if caps.specialization_constants:
        out["spec_constants"] = [{"name": c.name, "id": c.spec_id, "type": str(c.type), "default": _json_number(c.value)}
                                 for c in sorted(module.spec_constants, key=lambda c: c.spec_id)]
    heaps = _heaps(module)
    if heaps:
        out["descriptor_heaps"] = heaps
    if module.subobjects:
        from .subobjects import subobjects_view

        out["subobjects"] = subobjects_view(module)
    return out


def _library_shader(module: ir.Module, ep: ir.EntryPoint) -> dict:
    """One exported shader: its kind, the sizes of what it receives, and the resources it uses (for a
    local root signature or the shader-record layout of its table)."""
    from ..ir.raytracing import STAGE_RULES, payload_size
    from .usage import used_globals

    used = used_globals(module, [ep])
    shader: dict = {"name": ep.name, "kind": ep.stage, "resources": [v.name for v in module.resources if id(v) in used]}
    for (role, _), p in zip(STAGE_RULES[ep.stage].params, ep.source_function.params):
        key = {"payload": "payload_bytes", "attributes": "attribute_bytes", "callable": "callable_data_bytes"}[role]
        shader[key] = payload_size(p.var.type)
        shader[key.replace("_bytes", "_type")] = str(p.var.type)
    return shader


def _unbounded_spelling(value):
    """A backend's reflection with every unbounded descriptor count (None) written "unbounded", as
    in the rest of the manifest."""
    if isinstance(value, dict):
        return {k: ("unbounded" if k == "count" and v is None else _unbounded_spelling(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_unbounded_spelling(v) for v in value]
    return value


def _derive_vulkan_view(module: ir.Module, options: CompileOptions) -> None:
    """For a target without Vulkan bindings (the SPIR-V backend assigns them in its raise
    passes) the manifest's Vulkan view is informational: derived by the same rules, collisions
    allowed, and left out when the -fvk-* options cannot be applied (an unmapped register under
    -fvk-bind-register, ...): a Vulkan option must not fail another target's build.  Push constant
    blocks (constant buffers on this target) take no binding, as in the SPIR-V build."""
    from ..diagnostics import CompileError
    from ..passes import vk_bindings

    all_globals = module.globals
    module.globals = [v for v in all_globals if v.binding is None or not v.binding.push_constant]
    try:
        vk_bindings.run(module, options, strict=False)
    except CompileError:
        for v in (*module.resources, *module.heap_views):
            ir.binding_of(v).vk = None
    finally:
        module.globals = all_globals


def _heaps(module: ir.Module) -> list[dict]:
    """SM 6.6 descriptor-heap usage (reflect/heaps.py)."""
    if not module.heap_views:
        return []
    from .heaps import heap_usage

    return heap_usage(module)


def dumps(manifest: dict) -> str:
    import json

    return json.dumps(manifest, indent=2, sort_keys=True) + "\n"


def _json_number(v):
    """JSON has no infinity or NaN: those defaults are written as the strings "inf", "-inf", "nan"."""
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v
