"""The DXIL compile pipeline: IR -> lowered LLVM module -> metadata ->
self-check -> bitcode -> DXBC container (+ reflection, disassembly)."""

from __future__ import annotations

import os

from shaderbuild import ir
from shaderbuild.options import CompileOptions
from shaderbuild.records import DataRecord

from . import check
from .container import (
    MAX_STREAMS,
    ContainerInfo,
    GeometryState,
    assemble_container,
    build_container,
    debug_name_part,
    program_part,
)
from .dxmeta import (
    MESH_OUTPUT_TOPOLOGY,
    SHADER_KINDS,
    TESS_DOMAINS,
    TESS_OUTPUT_PRIMITIVES,
    add_library_metadata,
    add_metadata,
    called_ops,
    dxil_version,
    feature_bits,
    feature_info,
    function_features,
    geometry_state,
    library_features,
    shader_flags,
    validator_version,
)
from .lower import lower_module
from .lowered import LoweredModule
from .ops import get_op
from .resources import psv_resources
from .writer import write_bitcode

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .debuginfo import DebugInfo

__all__ = ["DxilOutput", "compile_dxil"]

DEPTH_KINDS = frozenset({17, 18, 19})       # SV_Depth, SV_DepthLessEqual, SV_DepthGreaterEqual
SAMPLE_INTERP = frozenset({6, 7})           # LinearSample, LinearNoperspectiveSample
SAMPLE_INDEX_KIND = 12


class DxilOutput(DataRecord):
    container: bytes
    bitcode: bytes
    lowered: LoweredModule
    info: ContainerInfo
    debug_container: bytes | None = None     # -Zi -Fd FILE: the container written to debug_path
    debug_path: str | None = None
    debug_bitcode: bytes | None = None       # -Zi: the bitcode with debug info (the ILDB part's)

    def reflection(self) -> dict:
        lm = self.lowered
        if lm.stage == "library":
            return self._library_reflection()
        return {
            "shader_model": f"{lm.sm[0]}.{lm.sm[1]}",
            "dxil_version": "{}.{}".format(*dxil_version(lm.sm)),
            "validator_version": "{}.{}".format(*validator_version(lm.sm)),
            "stage": lm.stage,
            "entry": lm.entry.name,
            "numthreads": list(lm.numthreads) if lm.stage in ("compute", "mesh", "amplification") else None,
            "shader_flags": shader_flags(lm),
            "feature_info": self.info.feature_flags,
            "hash": self.info.hash_mode,
            "resources": _resources_view(lm),
            "inputs": [_element(e) for e in lm.inputs],
            "outputs": [_element(e) for e in lm.outputs],
            **({"primitive_outputs": [_element(e) for e in lm.patch_constants]} if lm.stage == "mesh" else {}),
            "dx_ops": sorted(lm.ops.used),
        }


    def _library_reflection(self) -> dict:
        lm = self.lowered
        return {
            "shader_model": f"{lm.sm[0]}.{lm.sm[1]}",
            "dxil_version": "{}.{}".format(*dxil_version(lm.sm)),
            "validator_version": "{}.{}".format(*validator_version(lm.sm)),
            "stage": "library",
            "exports": [{"name": f.name, "kind": f.kind, "payload_size": f.payload_size,
                         "attribute_size": f.attribute_size} for f in lm.library],
            "feature_info": self.info.feature_flags,
            "hash": self.info.hash_mode,
            "resources": _resources_view(lm),
            "dx_ops": sorted(lm.ops.used),
        }


def _resources_view(lm: LoweredModule) -> list[dict]:
    return [{"name": r.var.name, "class": r.res_class, "range_id": r.range_id, "space": r.space,
             "lower_bound": r.lower, "count": r.count, "kind": r.shape} for r in lm.resources]


def _element(e) -> dict:
    """A signature element's packed place: start register and column (-1 when it has none)."""
    return {"semantic": e.name, "index": e.index, "register": e.start_row, "column": e.start_col,
            "rows": e.rows, "cols": e.cols, "interpolation": _INTERP_NAMES.get(e.interp),
            **({"indices": list(e.indices)} if e.indices else {})}     # a leaf of an array of structs


# DXIL::InterpolationMode -> HLSL modifiers (0: undefined, a VS input or PS output)
_INTERP_NAMES = {1: "nointerpolation", 2: "linear", 3: "centroid", 4: "noperspective",
                 5: "noperspective centroid", 6: "sample", 7: "noperspective sample"}


def _root_signature_part(module: ir.Module, options: CompileOptions) -> bytes | None:
    """The RTS0 part: the entry point's root signature ([RootSignature] / -rootsig-define), serialized by the core."""
    if module.root_signature is None or options.strip_root_signature:
        return None
    from shaderbuild.rootsig.model import RootSignature
    from shaderbuild.rootsig.rts0 import serialize

    assert isinstance(module.root_signature, RootSignature)
    return serialize(module.root_signature)


def compile_dxil(module: ir.Module, options: CompileOptions) -> DxilOutput:
    profile = options.parsed_profile
    sm = (profile.major, profile.minor)
    if profile.stage == "library":
        return compile_library(module, options, sm)
    debug = _debug_info(module, options)
    lm = lower_module(module, profile.stage, sm, options.enable_16bit_types, debug=debug)
    lm.res_may_alias, lm.all_resources_bound = options.res_may_alias, options.all_resources_bound
    tess = lm.stage if lm.stage in ("hull", "domain") else None
    if lm.stage not in ("compute", "amplification"):    # stages with signatures: not on a compute shader's path
        from .viewid import compute_streams_view_id_state, compute_view_id_state
    if lm.stage == "geometry":
        lm.view_id = compute_streams_view_id_state(lm.entry, lm.inputs, lm.outputs, MAX_STREAMS)
    elif lm.stage == "mesh":        # vertex and primitive outputs' dependence on SV_ViewID
        lm.view_id = compute_view_id_state(lm.entry, lm.inputs, lm.outputs, uses_view_id="ViewID" in lm.ops.used,
                                           tess="mesh", patch=lm.patch_constants)
    elif lm.stage not in ("compute", "amplification"):
        # SV_ViewID (read by the viewID op): PSV0's UsesViewID and the outputs that depend on it
        lm.view_id = compute_view_id_state(lm.entry, lm.inputs, lm.outputs, uses_view_id="ViewID" in lm.ops.used,
                                           tess=tess, patch=lm.patch_constants, patch_fn=lm.patch_function)
    add_metadata(lm)
    check.check_module(lm, lm.ops, ssa=os.environ.get("SHADERBUILD_VALIDATE") == "1")
    bitcode = write_bitcode(lm.llmod)
    info = ContainerInfo(
        stage=lm.stage, shader_model=sm, dxil_version=dxil_version(sm), valver=validator_version(sm),
        bitcode=bitcode, entry_name=lm.entry.name, feature_flags=feature_info(lm),
        inputs=[e.container_element(False) for e in lm.inputs],
        outputs=[e.container_element(True) for e in lm.outputs],
        resources=psv_resources(lm.resources), numthreads=lm.numthreads if lm.stage in ("compute", "mesh", "amplification") else (0, 0, 0),
        group_shared_bytes=lm.group_shared_bytes,
        output_position=any(e.kind == 3 for e in lm.outputs),
        depth_output=any(e.kind in DEPTH_KINDS for e in lm.outputs),
        sample_frequency=any(e.interp in SAMPLE_INTERP or e.kind == SAMPLE_INDEX_KIND for e in lm.inputs),
        hash_mode="retail" if options.dxil_hash == "retail" else "bypass",
        view_id=lm.view_id, geometry=GeometryState(*gs) if (gs := geometry_state(lm.geometry)) else None,
        root_signature=_root_signature_part(module, options),
    )
    if tess is not None:
        t = lm.tess
        assert t is not None
        info.patch_constants = [e.container_element(lm.stage == "hull") for e in lm.patch_constants]
        info.input_control_points = t.input_control_points or 0
        info.output_control_points = t.output_control_points or 0
        info.tess_domain = TESS_DOMAINS[t.domain]
        info.tess_output_primitive = TESS_OUTPUT_PRIMITIVES.get(t.output_topology or "", 0)
    if lm.mesh is not None:
        info.payload_bytes = lm.payload_bytes
        if lm.stage == "mesh":
            info.patch_constants = [e.container_element(True) for e in lm.patch_constants]
            info.max_output_vertices = lm.mesh.max_vertices
            info.max_output_primitives = lm.mesh.max_primitives
            info.mesh_topology = MESH_OUTPUT_TOPOLOGY[lm.mesh.topology or "triangle"]
    debug_container, debug_path, debug_bitcode = _debug_parts(debug, lm, info, options)
    check.check_container_info(lm, info)
    container = build_container(info)
    check.check_container(lm, container)
    return DxilOutput(container, bitcode, lm, info, debug_container, debug_path, debug_bitcode)


def _debug_info(module: ir.Module, options: CompileOptions) -> DebugInfo | None:
    """-Zi's debug information collector (debuginfo.py is imported only then)."""
    if not options.debug_info:
        return None
    from .debuginfo import DebugInfo

    return DebugInfo(module, debug_args(options))


def _debug_parts(debug: DebugInfo | None, lm: LoweredModule, info: ContainerInfo,
                 options: CompileOptions) -> tuple[bytes | None, str | None, bytes | None]:
    """-Zi: the ILDB (bitcode with debug info) and ILDN parts, put into `info.debug_parts`; returns
    the -Fd container, its path and the debug bitcode (all None without -Zi)."""
    if debug is None:
        return None, None, None
    debug.finish(lm.llmod)
    debug_bitcode = write_bitcode(lm.llmod, debug.locs)
    ildb = ("ILDB", program_part(info, debug_bitcode))
    # DXC: -Fd DIR/ (a trailing slash) names the PDB after the shader's hash, in DIR
    name = options.debug_file or ""
    if not name or name.endswith(("/", os.sep)):
        import hashlib  # here, for -Zi only: loading OpenSSL costs ~2 ms of every cold start

        name = hashlib.md5(info.bitcode).hexdigest() + ".pdb"
    ildn = ("ILDN", debug_name_part(name))
    # the PDB goes to -Fd's file, else (and with -Qembed_debug) into the container itself
    info.debug_parts = [ildn] if options.debug_file and not options.embed_debug else [ildb, ildn]
    debug_container = debug_path = None
    if options.debug_file:
        debug_container = assemble_container([ildb, ildn])
        debug_path = options.debug_file + name if options.debug_file.endswith(("/", os.sep)) else options.debug_file
    return debug_container, debug_path, debug_bitcode


# DXIL::ResourceClass numbers of the RDAT resource table, and DXC's order of that table
_RDAT_CLASS = {"SRV": 0, "UAV": 1, "CBV": 2, "Sampler": 3}
_RDAT_ORDER = ("CBV", "Sampler", "SRV", "UAV")


def library_rdat(lm: LoweredModule) -> bytes:
    """The RDAT part of a library: its resources, one function record per exported shader
    (kind, payload and attribute sizes, features, stage, minimum shader model) and the
    state-object subobjects."""
    from .rdat import (
        RESOURCE_FLAG_ATOMICS64,
        RESOURCE_FLAG_GLOBALLY_COHERENT,
        RESOURCE_FLAG_UAV_COUNTER,
        RdatFunction,
        RdatResource,
        RdatSubobject,
        encode_min_target,
        rdat_part,
    )

    table = [r for cls in _RDAT_ORDER for r in lm.resources if r.res_class == cls]
    index = {id(r): i for i, r in enumerate(table)}
    resources = [RdatResource(_RDAT_CLASS[r.res_class], r.shape, r.range_id, r.space, r.lower, r.upper, r.var.name,
                              (RESOURCE_FLAG_UAV_COUNTER if r.has_counter else 0)
                              | (RESOURCE_FLAG_GLOBALLY_COHERENT if r.globally_coherent else 0)
                              | (RESOURCE_FLAG_ATOMICS64 if r.atomic64 else 0)) for r in table]
    functions = []
    for lf in lm.library:
        kind = SHADER_KINDS[lf.kind]
        used = {get_op(n).min_sm for n in called_ops(lf.function)}
        major, minor = max(used | {(6, 0)})
        functions.append(RdatFunction(
            lf.name, lf.name, kind, resources=sorted(index[id(r)] for r in lf.resources),
            payload_size=lf.payload_size, attribute_size=lf.attribute_size,
            feature_flags=feature_bits(function_features(lm, lf)), stage_mask=1 << kind,
            min_target=encode_min_target(kind, major, minor)))
    subobjects = []
    for o in lm.subobjects:
        row = o.row
        if o.kind == "SubobjectToExportsAssociation":
            values: tuple = (o.field("Subobject"), tuple(o.exports))
        elif row.hit_group_type is not None:
            fields = dict(row.fields)
            values = (row.hit_group_type, o.field("AnyHit"), o.field("ClosestHit"),
                      o.field("Intersection") if "Intersection" in fields else "")
        else:
            values = o.values
        data = b""
        if o.root_signature is not None:      # (the rootsig serializer loads for such subobjects only)
            from shaderbuild.rootsig.rts0 import serialize

            data = serialize(o.root_signature)
        subobjects.append(RdatSubobject(row.dxil_kind, o.name, values, data))
    return rdat_part(resources, functions, subobjects)


def compile_library(module: ir.Module, options: CompileOptions, sm: tuple[int, int]) -> DxilOutput:
    """-T lib_6_x: every exported shader in one module; RDAT instead of signatures and PSV0."""
    if module.root_signature is not None and not options.strip_root_signature:
        from shaderbuild.diagnostics import error

        raise error("a DXIL library has no root signature part: declare GlobalRootSignature / LocalRootSignature "
                    "subobjects instead of -rootsig-define")
    from .library import lower_library  # libraries only: not on a shader's cold path

    debug = _debug_info(module, options)
    lm = lower_library(module, sm, options.enable_16bit_types, debug=debug)
    lm.res_may_alias, lm.all_resources_bound = options.res_may_alias, options.all_resources_bound
    add_library_metadata(lm)
    check.check_module(lm, lm.ops, ssa=os.environ.get("SHADERBUILD_VALIDATE") == "1")
    bitcode = write_bitcode(lm.llmod)
    info = ContainerInfo(
        stage="library", shader_model=sm, dxil_version=dxil_version(sm), valver=validator_version(sm),
        bitcode=bitcode, entry_name="", feature_flags=feature_bits(library_features(lm)),
        hash_mode="retail" if options.dxil_hash == "retail" else "bypass", rdat=library_rdat(lm))
    debug_container, debug_path, debug_bitcode = _debug_parts(debug, lm, info, options)
    container = build_container(info)
    check.check_library_container(lm, container)
    return DxilOutput(container, bitcode, lm, info, debug_container, debug_path, debug_bitcode)


def debug_args(options: CompileOptions) -> list[str]:
    """dx.source.args: the options that change code, as DXC's command line would spell them."""
    args = ["-E", options.entry, "-T", options.profile, "-Zi"]
    if options.embed_debug:
        args.append("-Qembed_debug")
    for k, v in sorted(options.defines.items()):
        args.append(f"-D{k}={v}" if v else f"-D{k}")
    for d in options.include_dirs:
        args += ["-I", d]
    return args
