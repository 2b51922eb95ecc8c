"""DXIL named metadata: dx.version, dx.valver, dx.shaderModel, dx.resources,
dx.typeAnnotations, dx.entryPoints, llvm.ident; and the shader flags."""

from __future__ import annotations

from shaderbuild import ir

from .llvm import types as T
from .llvm.builder import BINOPS
from .llvm.metadata import MDNode, MDString, MDValue, md_int
from .llvm.values import ConstAggregate, Constant, ConstFloat, ConstInt, Function, Instruction, Undef, Value
from .lowered import LibraryFunction, LoweredModule
from .resources import CLASS_INDEX, ResourceInfo, resource_records
from .signature import signature_metadata

__all__ = ["add_metadata", "view_id_metadata", "shader_flags", "feature_info", "dxil_version", "validator_version", "STAGE_NAMES",
           "KNOWN_NAMED_METADATA", "SHADER_FLAG_BITS", "IDENT"]

IDENT = "shaderbuild-dxil"
STAGE_NAMES = {"vertex": "vs", "pixel": "ps", "geometry": "gs", "hull": "hs", "domain": "ds", "compute": "cs",
               "mesh": "ms", "amplification": "as", "library": "lib"}
KNOWN_NAMED_METADATA = frozenset({"dx.version", "dx.valver", "dx.shaderModel", "dx.resources", "dx.typeAnnotations",
                                  "dx.entryPoints", "dx.viewIdState", "llvm.ident", "llvm.module.flags",
                                  "dx.subobjects", "dx.dxrPayloadAnnotations"})
TAG_SHADER_FLAGS, TAG_GS_STATE, TAG_DS_STATE, TAG_HS_STATE, TAG_NUM_THREADS = 0, 1, 2, 3, 4
TAG_MS_STATE, TAG_AS_STATE = 9, 10          # kDxilMSStateTag, kDxilASStateTag
TAG_WAVE_SIZE, TAG_RANGED_WAVE_SIZE = 11, 23  # kDxilWaveSizeTag (before SM 6.8), kDxilRangedWaveSizeTag
MESH_OUTPUT_TOPOLOGY = {"line": 1, "triangle": 2}     # DXIL::MeshOutputTopology
# DXIL::TessellatorDomain / TessellatorPartitioning / TessellatorOutputPrimitive
TESS_DOMAINS = {"isoline": 1, "tri": 2, "quad": 3}
TESS_PARTITIONINGS = {"integer": 1, "pow2": 2, "fractional_odd": 3, "fractional_even": 4}
TESS_OUTPUT_PRIMITIVES = {"point": 1, "line": 2, "triangle_cw": 3, "triangle_ccw": 4}
DEFAULT_MAX_TESS_FACTOR = 64.0
# ir/streams.py's GS rows -> DXIL::InputPrimitive / DXIL::PrimitiveTopology (the strip of each stream kind)
GS_INPUT_PRIMITIVE = {"point": 1, "line": 2, "triangle": 3, "lineadj": 6, "triangleadj": 7}
GS_OUTPUT_TOPOLOGY = {"point": 1, "line": 3, "triangle": 5}
# module shader-flag bits (DxilShaderFlags.h field order) and the SFI0 feature each implies
SHADER_FLAG_BITS = {"doubles": 2, "early_depth_stencil": 3, "raw_structured": 4, "low_precision": 5,
                    "double_extensions": 6, "msad": 7, "all_resources_bound": 8, "viewport_rt_index": 9,
                    "inner_coverage": 10, "stencil_ref": 11, "tiled_resources": 12, "typed_uav_load_formats": 13,
                    "uavs_64": 15, "uavs_every_stage": 16, "rovs": 18, "wave_ops": 19, "int64": 20,
                    "view_id": 21, "barycentrics": 22, "native_low_precision": 23, "shading_rate": 24,
                    "raytracing_1_1": 25, "atomic64_typed": 27, "atomic64_groupshared": 28,
                    "derivatives_mesh_amp": 29, "resource_heap": 30, "sampler_heap": 31, "atomic64_heap": 32,
                    "res_may_not_alias": 33, "advanced_texture_ops": 34, "writeable_msaa": 35,
                    "sample_cmp_gradient_or_bias": 37, "extended_command_info": 38,
                    "uses_derivatives": 39, "requires_group": 40}
FEATURE_BITS = {"doubles": 0x1, "uavs_every_stage": 0x4, "uavs_64": 0x8, "low_precision": 0x10,
                "double_extensions": 0x20, "msad": 0x40, "tiled_resources": 0x100, "stencil_ref": 0x200,
                "inner_coverage": 0x400, "typed_uav_load_formats": 0x800, "rovs": 0x1000, "viewport_rt_index": 0x2000, "wave_ops": 0x4000, "int64": 0x8000,
                "view_id": 0x10000, "barycentrics": 0x20000, "native_low_precision": 0x40000, "shading_rate": 0x80000,
                "raytracing_1_1": 0x100000, "atomic64_typed": 0x400000, "atomic64_groupshared": 0x800000,
                "derivatives_mesh_amp": 0x1000000, "atomic64_heap": 0x10000000,
                "resource_heap": 0x2000000, "sampler_heap": 0x4000000,   # D3D_SHADER_FEATURE_*_DESCRIPTOR_HEAP_INDEXING
                "advanced_texture_ops": 0x20000000, "writeable_msaa": 0x40000000,   # SM 6.7
                "sample_cmp_gradient_or_bias": 0x80000000, "extended_command_info": 0x100000000,   # SM 6.8
                "uses_derivatives": 0x10000000000, "requires_group": 0x20000000000}   # OptFeatureInfo_* (valver 1.8)
# per-function flags: DXC's CollectShaderFlagsForModule clears them from the module's flags and SFI0
# (ShaderFlags::ClearLocalFlags); only a library's RDAT function records carry them
LOCAL_FEATURES = frozenset({"uses_derivatives", "requires_group"})
# SM 6.7 "advanced texture ops" (DXC's CollectShaderFlags): SampleCmpLevel, TextureGatherRaw, TextureStoreSample
# (_OP_FEATURES), and a textureLoad or sample op whose offsets are not all constants (undef is a constant).
# Sampling an integer texture sets nothing (no such rule in DXC, then or now).
# the sample ops, where their offsets start among the call's operands (callee, opcode, srv, sampler, coords x4)
_SAMPLE_OPS = tuple(f"dx.op.{op}." for op in ("sample", "sampleBias", "sampleLevel", "sampleGrad", "sampleCmp",
                                                "sampleCmpBias", "sampleCmpGrad", "sampleCmpLevelZero"))
_SAMPLE_OFFSETS, _LOAD_OFFSETS = 8, 7       # textureLoad: (callee, opcode, handle, mip, coords x3, offsets x3)
# the ops that decide SampleCmpGradientOrBias: DXC assigns the flag at each (`=`, not `|=`), so the last one in
# the function wins, and the validator recomputes it the same way
_CMP_GRAD_BIAS_DECIDERS = {f"dx.op.{op}.": op in ("sampleCmpBias", "sampleCmpGrad")
                           for op in ("sample", "sampleBias", "sampleCmp", "sampleCmpBias", "sampleGrad",
                                      "sampleCmpGrad")}
HEAP_HANDLE_FN = "dx.op.createHandleFromHeap"
# loads that make a multi-component typed UAV need TypedUAVLoadAdditionalFormats (DXC's CollectShaderFlags)
_TYPED_LOAD_FNS = ("dx.op.bufferLoad.",)     # (textureLoad: with the sample ops below)
_TYPED_KINDS = range(1, 11)         # DXIL::ResourceKind Texture1D .. TypedBuffer (DXIL::IsTyped)
# signature element kinds (DXIL::SemanticKind) that are features: kind -> (feature, inputs?, outputs?)
_SIGNATURE_FEATURES = {20: ("stencil_ref", False, True), 28: ("barycentrics", True, False),
                       29: ("shading_rate", True, True)}
_OP_FEATURES = {"ViewID": "view_id", "InnerCoverage": "inner_coverage", "AllocateRayQuery": "raytracing_1_1",
                "SampleCmpLevel": "advanced_texture_ops", "TextureGatherRaw": "advanced_texture_ops",
                "TextureStoreSample": "advanced_texture_ops", "CheckAccessFullyMapped": "tiled_resources",
                "StartVertexLocation": "extended_command_info", "StartInstanceLocation": "extended_command_info",
                "GeometryIndex": "raytracing_1_1", "AttributeAtVertex": "barycentrics"}
MIN_VALIDATOR = (1, 7)


def dxil_version(sm: tuple[int, int]) -> tuple[int, int]:
    return (1, sm[1])


def validator_version(sm: tuple[int, int]) -> tuple[int, int]:
    """valver 1.7 (PSV0 v2) unless the DXIL version needs a newer validator."""
    return max(MIN_VALIDATOR, dxil_version(sm))


def _i32(v: int) -> MDValue:
    return md_int(T.i32, v)


def _used_features(lm: LoweredModule) -> set[str]:
    """The optional features the module uses (computed once per module: shader flags,
    SFI0 and the checker all ask)."""
    if lm.features is None:
        lm.features = frozenset(_compute_features(lm))
    return set(lm.features)


# opcodes whose operands add no type the feature tests look for: binary operators (operands of
# the result's type, checked by the builder), select (that, and an i1), extractvalue (an
# aggregate) and br (an i1)
_NO_NEW_OPERAND_TYPES = frozenset(BINOPS) | {"select", "extractvalue", "br"}


def _compute_features(lm: LoweredModule) -> set[str]:
    return _function_features(lm, lm.entry, lm.resources, {op for op in lm.ops.used}) | _module_features(lm)


def _module_features(lm: LoweredModule) -> set[str]:
    """The flags DXC's CollectShaderFlagsForModule takes from the module's declared resources (none of them in
    a library's per-function RDAT records): raw/structured buffers, ROVs, more than 8 UAV slots (an unbounded
    range counts as 9), and UAVs outside CS/PS (validator 1.8: only in VS/HS/DS/GS, not libraries or MS/AS)."""
    feats: set[str] = set()
    uavs = [r for r in lm.resources if r.res_class == "UAV"]
    if any(r.is_raw_or_structured for r in lm.resources):
        feats.add("raw_structured")
    if any(r.rov for r in uavs):
        feats.add("rovs")
    if sum(9 if r.count is None else min(r.count, 9) for r in uavs) > 8:
        feats.add("uavs_64")
    graphics = ("vertex", "hull", "domain", "geometry") if validator_version(lm.sm) >= (1, 8) else None
    if uavs and (lm.stage in graphics if graphics else lm.stage not in ("compute", "pixel")):
        feats.add("uavs_every_stage")
    return feats


def _function_features(lm: LoweredModule, fn: Function, resources: list, used_ops: set[str]) -> set[str]:
    """The scalar types of the function's values and operands, and the other features.  A call's
    arguments have its callee's parameter types (the builder checks them), so those come from
    each distinct callee's type instead of every argument."""
    feats: set[str] = set()
    types: set[T.Type] = set()
    add = types.add
    callees: dict[int, Function] = {}
    skip = _NO_NEW_OPERAND_TYPES
    cmp_grad_bias = False
    for bb in fn.blocks:
        for inst in bb.instructions:
            add(inst.type)
            op = inst.op
            if op == "call":
                callee = inst.operands[0]
                assert isinstance(callee, Function)     # a call's first operand
                callees[id(callee)] = callee
                if callee.name == HEAP_HANDLE_FN:    # (callee, opcode, index, i1 samplerHeap, i1 nonUniform)
                    sampler = inst.operands[3]
                    feats.add("sampler_heap" if isinstance(sampler, ConstInt) and sampler.value else "resource_heap")
                elif callee.name.startswith(_TYPED_LOAD_FNS) and _multi_component_uav(inst.operands[2], resources):
                    feats.add("typed_uav_load_formats")
                elif callee.name.startswith(_SAMPLE_OPS) or callee.name.startswith("dx.op.textureLoad."):
                    start = _LOAD_OFFSETS if callee.name.startswith("dx.op.textureLoad.") else _SAMPLE_OFFSETS
                    if not all(isinstance(v, Constant) for v in inst.operands[start:start + 3]):
                        feats.add("advanced_texture_ops")
                    if start == _LOAD_OFFSETS and _multi_component_uav(inst.operands[2], resources):
                        feats.add("typed_uav_load_formats")
                    if start == _SAMPLE_OFFSETS and _has_clamp(inst.operands[-1]) and callee.name.startswith(
                            _CLAMPED_SAMPLES):
                        feats.add("lod_clamp")
                    decides = _CMP_GRAD_BIAS_DECIDERS.get(callee.name[:callee.name.rindex(".") + 1])
                    if decides is not None:
                        cmp_grad_bias = decides
                elif callee.name in _ATOMIC64_FNS:    # (callee, opcode, handle, ...)
                    feats.update(_atomic64_features(inst.operands[2], resources))
                elif callee.name == "dx.op.barrier":    # (callee, opcode, mode): any mode but UAVFenceGlobal (2)
                    mode = inst.operands[2]
                    if isinstance(mode, ConstInt) and mode.value != 2:
                        feats.add("requires_group")
                elif callee.name.startswith("dx.op.tertiary."):     # (callee, opcode, a, b, c)
                    code = inst.operands[1]
                    if isinstance(code, ConstInt) and code.value == OPCODE_FMA and inst.type == T.double:
                        feats.add("double_extensions")
                    elif isinstance(code, ConstInt) and code.value == OPCODE_MSAD:
                        feats.add("msad")
                elif callee.name == "dx.op.annotateHandle":     # (callee, opcode, handle, props {d0, d1})
                    feats.update(_used_uav_features(inst.operands[3]))
            elif op == "fdiv":
                if inst.type == T.double:       # (a binary operator's operands have its type)
                    feats.add("double_extensions")
            elif op not in skip:
                for v in inst.operands:
                    add(v.type)
                if op in ("atomicrmw", "cmpxchg") and inst.operands[-1].type == T.i64:
                    feats.add("atomic64_groupshared")       # (buffers' atomics are dx.op calls)
                if op in _DOUBLE_CONVERSIONS and (inst.type == T.double or inst.operands[0].type == T.double):
                    feats.add("double_extensions")
    if cmp_grad_bias:
        feats.add("sample_cmp_gradient_or_bias")
    for callee in callees.values():
        add(callee.type)
        types.update(callee.ftype.params)
    if T.double in types:
        feats.add("doubles")
    # any pointer to group-shared memory needs a group (DXC: a TGSM-address-space pointer among the values)
    if any(isinstance(t, T.PointerType) and t.addrspace == TGSM_ADDRSPACE for t in types):
        feats.add("requires_group")
    if T.i64 in types:
        feats.add("int64")
    if T.f16 in types or T.i16 in types:
        feats.add("low_precision")
    if lm.all_resources_bound:      # a module option (-all-resources-bound), no SFI0 feature
        feats.add("all_resources_bound")
    if lm.native16:         # a module option (-enable-16bit-types): DXC sets the flag whether or not 16-bit is used
        feats.add("native_low_precision")
    if any(lm.ops.used[op].flags & {"wave"} for op in used_ops if op in lm.ops.used):
        feats.add("wave_ops")
    if lm.stage in ("mesh", "amplification") and any(
            lm.ops.used[op].flags & {"derivative", "gradient"} for op in used_ops if op in lm.ops.used):
        feats.add("derivatives_mesh_amp")       # SM 6.6 derivatives (DXC: DerivativesInMeshAndAmpShaders)
    # DXC's CollectShaderFlags from validator 1.8: the function's derivatives (implicit-LOD samples, LOD queries,
    # ddx/ddy) and its need of a group (a barrier that syncs or fences the group)
    if validator_version(lm.sm) >= (1, 8):
        if any(lm.ops.used[op].flags & {"gradient"} and not lm.ops.used[op].flags & {"feedback"}
               for op in used_ops if op in lm.ops.used):
            feats.add("uses_derivatives")
        if "lod_clamp" in feats:        # a sample's LOD clamp needs tiled resources (validator 1.8 knows it)
            feats.add("tiled_resources")
    else:
        feats.discard("requires_group")
    feats.discard("lod_clamp")
    # UAVs: before validator 1.8 the module's, from 1.8 the ones the function's handles are made for
    module_uavs = [r for r in lm.resources if r.res_class == "UAV"]
    if validator_version(lm.sm) < (1, 8):
        if module_uavs:
            feats.add("uses_uav")
        if any(r.shape in _MSAA_KINDS for r in module_uavs):
            feats.add("writeable_msaa")
    if "TextureStoreSample" in used_ops:
        feats.add("writeable_msaa")
    if "uses_uav" in feats and dxil_version(lm.sm) >= (1, 7) and not lm.res_may_alias:
        feats.add("res_may_not_alias")      # DXC: unless -res-may-alias; not before DXIL 1.7 (drivers refuse it)
    feats.discard("uses_uav")
    feats.update(f for op, f in _OP_FEATURES.items() if op in used_ops)
    if "earlydepthstencil" in lm.modes:     # D3D11_SB_GLOBAL_FLAG_FORCE_EARLY_DEPTH_STENCIL (no SFI0 feature)
        feats.add("early_depth_stencil")
    for e in (*lm.inputs, *lm.outputs):
        row = _SIGNATURE_FEATURES.get(e.kind)
        if row is not None and (row[1] if e in lm.inputs else row[2]):
            feats.add(row[0])
    # a layer / viewport index in a stage other than the pixel shader (DXC: VS/HS/DS outputs, GS/HS/DS inputs)
    if (lm.stage in ("vertex", "hull", "domain") and any(e.kind in (4, 5) for e in lm.outputs)) or (
            lm.stage in ("geometry", "hull", "domain") and any(e.kind in (4, 5) for e in lm.inputs)):
        feats.add("viewport_rt_index")
    return feats


_ATOMIC64_FNS = frozenset({"dx.op.atomicBinOp.i64", "dx.op.atomicCompareExchange.i64"})
OPCODE_FMA, OPCODE_MSAD = 47, 50
TGSM_ADDRSPACE = 3
_MSAA_KINDS = (3, 8)            # DXIL::ResourceKind Texture2DMS, Texture2DMSArray
# double ops that need the D3D11.1 double extensions (DXC: fdiv, fma and these int<->double conversions)
_DOUBLE_CONVERSIONS = frozenset({"uitofp", "sitofp", "fptoui", "fptosi"})
# sample ops whose last operand is the LOD clamp (DXC's hasSampleClamp: a non-zero constant or any non-constant)
_CLAMPED_SAMPLES = tuple(f"dx.op.{op}." for op in ("sample", "sampleBias", "sampleCmp", "sampleCmpBias",
                                                     "sampleGrad", "sampleCmpGrad"))


def _has_clamp(v: Value) -> bool:
    if isinstance(v, ConstFloat):
        return v.value != 0.0
    return not isinstance(v, Undef)


def _used_uav_features(props: Value) -> set[str]:
    """An annotated handle's UAV use (ResMayNotAlias) and writeable MSAA texture (validator 1.8's rule)."""
    words = [x.value for x in props.elems if isinstance(x, ConstInt)] if isinstance(props, ConstAggregate) else []
    if not words or not words[0] >> 12 & 1:
        return set()
    return {"uses_uav", "writeable_msaa"} if words[0] & 0xFF in _MSAA_KINDS else {"uses_uav"}


def _atomic64_features(handle: Value, resources: list[ResourceInfo]) -> set[str]:
    """A 64-bit atomic's flags (DXC's CollectShaderFlags): on a typed resource, on one from the descriptor
    heap (found through annotateHandle's properties and the handle it annotates)."""
    out: set[str] = set()
    if isinstance(handle, Instruction) and handle.op in ("phi", "select"):
        for v in handle.operands:
            if v.type == handle.type:
                out |= _atomic64_features(v, resources)
        return out
    if not (isinstance(handle, Instruction) and handle.op == "call" and isinstance(handle.operands[0], Function)):
        return out
    name, args = handle.operands[0].name, handle.operands[1:]
    if name == HEAP_HANDLE_FN:
        out.add("atomic64_heap")
    elif name == "dx.op.annotateHandle":        # (opcode, handle, props {d0, d1})
        props = args[2]
        words = [x.value for x in props.elems if isinstance(x, ConstInt)] if isinstance(props, ConstAggregate) else []
        if words and words[0] & 0xFF in _TYPED_KINDS:
            out.add("atomic64_typed")
        out |= _atomic64_features(args[1], resources)
    elif name == "dx.op.createHandle":          # (opcode, i8 class, i32 range id, index, non-uniform)
        cls, rid = args[1], args[2]
        if any(isinstance(cls, ConstInt) and isinstance(rid, ConstInt) and CLASS_INDEX[r.res_class] == cls.value
               and r.range_id == rid.value and r.shape in _TYPED_KINDS for r in resources):
            out.add("atomic64_typed")
    return out


def _multi_component_uav(handle: Value, resources: list[ResourceInfo]) -> bool:
    """Whether a load's handle is a typed UAV of more than one component: from annotateHandle's
    properties (SM 6.6), else from the createHandle's class and range or createHandleForLib's global."""
    if isinstance(handle, Instruction) and handle.op in ("phi", "select"):
        return any(_multi_component_uav(v, resources) for v in handle.operands if v.type == handle.type)
    if not (isinstance(handle, Instruction) and handle.op == "call" and isinstance(handle.operands[0], Function)):
        return False
    name, args = handle.operands[0].name, handle.operands[1:]
    if name == "dx.op.annotateHandle":      # (opcode, handle, props {d0, d1})
        props = args[2]
        words = [x.value for x in props.elems if isinstance(x, ConstInt)] if isinstance(props, ConstAggregate) else []
        if len(words) == 2:
            d0, d1 = words
            return bool(d0 >> 12 & 1) and d0 & 0xFF in _TYPED_KINDS and (d1 >> 8 & 0xFF) > 1
        return _multi_component_uav(args[1], resources)
    if name == "dx.op.createHandle":        # (opcode, i8 class, i32 range id, index, non-uniform)
        cls, rid = args[1], args[2]
        found = [r for r in resources if isinstance(cls, ConstInt) and isinstance(rid, ConstInt)
                 and CLASS_INDEX[r.res_class] == cls.value and r.range_id == rid.value]
    elif name.startswith("dx.op.createHandleForLib"):     # (opcode, load of the resource's global)
        ptr = args[1].operands[0] if isinstance(args[1], Instruction) and args[1].operands else None
        while isinstance(ptr, Instruction) and ptr.op == "getelementptr":
            ptr = ptr.operands[0]
        found = [r for r in resources if r.symbol is not None and r.symbol is ptr]
    else:
        return False
    return any(r.res_class == "UAV" and r.shape in _TYPED_KINDS and r.comp_count > 1 for r in found)


def shader_flags(lm: LoweredModule) -> int:
    return sum(1 << SHADER_FLAG_BITS[f] for f in _used_features(lm) - LOCAL_FEATURES)


def feature_info(lm: LoweredModule) -> int:
    """SFI0 bits."""
    return feature_bits(_used_features(lm) - LOCAL_FEATURES)


def geometry_state(geometry: ir.GeometryInfo | None) -> tuple[int, int, int, int] | None:
    """(input primitive, output topology, active stream mask, max vertex count): the DXIL numbers of a
    geometry shader's ir.GeometryInfo (None for other stages).  Every declared stream is active; several
    streams are all point lists (sema's rule), so stream 0 names the topology."""
    if geometry is None:
        return None
    return (GS_INPUT_PRIMITIVE[geometry.input_primitive], GS_OUTPUT_TOPOLOGY[geometry.streams[0]],
            (1 << len(geometry.streams)) - 1, geometry.max_vertex_count)


def view_id_metadata(lm: LoweredModule, valver: tuple[int, int]) -> MDNode | None:
    """`!{[N x i32] [...]}`: the serialized ViewID state, which DXC emits for graphics stages from
    validator 1.1 on (or 0.0), and not at all when every word is zero (DxilModule::EmitDxilMetadata,
    DxilMDHelper::EmitDxilViewIdState)."""
    if lm.view_id is None or (valver < (1, 1) and valver != (0, 0)):
        return None
    words = lm.view_id.serialize()
    if not any(words):
        return None
    return MDNode([MDValue(ConstAggregate(T.ArrayType(T.i32, len(words)), [ConstInt(T.i32, w) for w in words]))])


def _module_header(lm: LoweredModule) -> MDNode | None:
    """llvm.ident, dx.version, dx.valver, dx.shaderModel and dx.resources (its tuple, or None)."""
    m = lm.llmod
    dxv = dxil_version(lm.sm)
    valv = validator_version(lm.sm)
    m.add_named_md("llvm.ident", [MDNode([MDString(IDENT)])])
    m.add_named_md("dx.version", [MDNode([_i32(dxv[0]), _i32(dxv[1])])])
    m.add_named_md("dx.valver", [MDNode([_i32(valv[0]), _i32(valv[1])])])
    m.add_named_md("dx.shaderModel", [MDNode([MDString(STAGE_NAMES[lm.stage]), _i32(lm.sm[0]), _i32(lm.sm[1])])])
    res = resource_records(lm.resources)
    if res is not None:
        m.add_named_md("dx.resources", [res])
    return res


def add_metadata(lm: LoweredModule) -> None:
    m = lm.llmod
    valv = validator_version(lm.sm)
    res = _module_header(lm)
    empty = MDNode([])
    annotated = [lm.entry] if lm.patch_function is None else [lm.entry, lm.patch_function]
    m.add_named_md("dx.typeAnnotations", [MDNode([_i32(1)] + [x for f in annotated for x in
                                                               (MDValue(f), MDNode([MDNode([_i32(1), empty, empty])]))])])
    view_id = view_id_metadata(lm, valv)
    if view_id is not None:
        m.add_named_md("dx.viewIdState", [view_id])
    sig_in, sig_out = signature_metadata(lm.inputs), signature_metadata(lm.outputs)
    sig_pc = signature_metadata(lm.patch_constants)
    sigs = MDNode([sig_in, sig_out, sig_pc]) if (sig_in or sig_out or sig_pc) else None
    props: list = []
    flags = shader_flags(lm)
    if flags:
        props += [_i32(TAG_SHADER_FLAGS), MDValue(ConstInt(T.i64, flags))]
    if lm.stage == "compute":
        props += [_i32(TAG_NUM_THREADS), MDNode([_i32(n) for n in lm.numthreads])]
    props += tess_state(lm) + mesh_state(lm)
    props += wave_size_state(lm)
    gs = geometry_state(lm.geometry)
    if gs is not None and lm.geometry is not None:          # kDxilGSStateTag: {input primitive, max vertices, stream mask, topology, instances}
        primitive, topology, mask, max_vertices = gs
        props += [_i32(TAG_GS_STATE), MDNode([_i32(primitive), _i32(max_vertices), _i32(mask), _i32(topology),
                                              _i32(lm.geometry.instances)])]
    m.add_named_md("dx.entryPoints", [MDNode([MDValue(lm.entry), MDString(lm.entry.name), sigs, res,
                                              MDNode(props) if props else None])])


def wave_size_state(lm: LoweredModule) -> list:
    """[WaveSize]: before SM 6.8 kDxilWaveSizeTag {size}; from SM 6.8 kDxilRangedWaveSizeTag {min, max,
    preferred}, max and preferred 0 when not given or equal to min (DxilWaveSize::Translate)."""
    if lm.wave_size is None:
        return []
    lo, hi, pref = (*lm.wave_size, 0, 0)[:3]
    if lm.sm < (6, 8):
        return [_i32(TAG_WAVE_SIZE), MDNode([_i32(lo)])]
    hi = 0 if hi == lo else hi
    pref = 0 if hi == 0 and pref == lo else pref
    return [_i32(TAG_RANGED_WAVE_SIZE), MDNode([_i32(lo), _i32(hi), _i32(pref)])]


def mesh_state(lm: LoweredModule) -> list:
    """kDxilMSStateTag: {numthreads, max vertices, max primitives, topology, payload bytes};
    kDxilASStateTag: {numthreads, payload bytes}."""
    mesh = lm.mesh
    if mesh is None:
        return []
    threads = MDNode([_i32(n) for n in lm.numthreads])
    if lm.stage == "amplification":
        return [_i32(TAG_AS_STATE), MDNode([threads, _i32(lm.payload_bytes)])]
    return [_i32(TAG_MS_STATE), MDNode([threads, _i32(mesh.max_vertices), _i32(mesh.max_primitives),
                                        _i32(MESH_OUTPUT_TOPOLOGY[mesh.topology or "triangle"]),
                                        _i32(lm.payload_bytes)])]


def tess_state(lm: LoweredModule) -> list:
    """The HS state (patch-constant function, control points, domain, partitioning, output
    primitive, max tess factor) or DS state (domain, input control points) entry properties."""
    t = lm.tess
    if t is None:
        return []
    domain = _i32(TESS_DOMAINS[t.domain])
    if lm.stage == "domain":
        return [_i32(TAG_DS_STATE), MDNode([domain, _i32(t.input_control_points or 0)])]
    max_tf = t.max_tess_factor if t.max_tess_factor is not None else DEFAULT_MAX_TESS_FACTOR
    return [_i32(TAG_HS_STATE), MDNode([
        MDValue(lm.patch_function) if lm.patch_function is not None else None,
        _i32(t.input_control_points or 0), _i32(t.output_control_points or 0), domain,
        _i32(TESS_PARTITIONINGS[t.partitioning or ""]), _i32(TESS_OUTPUT_PRIMITIVES[t.output_topology or ""]),
        MDValue(ConstFloat(T.f32, max_tf))])]


# ------------------------------------------------------------------ libraries (-T lib_6_x)

SHADER_KINDS = {"pixel": 0, "vertex": 1, "geometry": 2, "hull": 3, "domain": 4, "compute": 5, "library": 6,
                "raygeneration": 7, "intersection": 8, "anyhit": 9, "closesthit": 10, "miss": 11, "callable": 12,
                "mesh": 13, "amplification": 14}
TAG_RAY_PAYLOAD_SIZE, TAG_RAY_ATTRIB_SIZE, TAG_SHADER_KIND = 6, 7, 8
# DxilParamInputQual of a function annotation's parameters: the return value is an 'out'
_PARAM_QUAL = {"in": 0, "out": 1, "inout": 2}


def called_ops(fn: Function) -> set[str]:
    from .ops import function_op

    out = set()
    for bb in fn.blocks:
        for inst in bb.instructions:
            if inst.op == "call":
                hit = function_op(inst.operands[0].name)
                if hit is not None:
                    out.add(hit[0].name)
    return out


def function_features(lm: LoweredModule, lf: LibraryFunction) -> set[str]:
    """One exported shader's features (its entry's shader flags, its RDAT FeatureInfo).  Before
    validator 1.8, DXC sets the DXR 1.1 flag on every function of a library with a
    RaytracingPipelineConfig1 subobject."""
    feats = _function_features(lm, lf.function, lf.resources, called_ops(lf.function))
    if any(o.kind == "RaytracingPipelineConfig1" for o in lm.subobjects):
        feats.add("raytracing_1_1")
    return feats


def _flags_of(feats: set[str]) -> int:
    return sum(1 << SHADER_FLAG_BITS[f] for f in feats)


_PRECISION = frozenset({"low_precision", "native_low_precision"})


def feature_bits(feats: set[str]) -> int:
    """SFI0 / RDAT feature bits (DXC's GetFeatureInfo): 16-bit use is MinimumPrecision, or NativeLowPrecision
    in a -enable-16bit-types module; the native flag alone (no 16-bit use) is no feature."""
    bits = sum(FEATURE_BITS.get(f, 0) for f in feats if f not in _PRECISION)
    if "low_precision" in feats:
        bits |= FEATURE_BITS["native_low_precision" if "native_low_precision" in feats else "low_precision"]
    return bits


def library_features(lm: LoweredModule) -> set[str]:
    """The union of the shaders' features less the per-function ones: the library's SFI0 and module shader flags."""
    if lm.features is None:
        out: set[str] = set()
        for lf in lm.library:
            out |= function_features(lm, lf)
        lm.features = frozenset((out - LOCAL_FEATURES) | _module_features(lm))
    return set(lm.features)


def subobject_metadata(o) -> MDNode:
    """One `dx.subobjects` record (DxilMDHelper::EmitSubobject's shape): name, kind, then per kind
    its values (a root signature: its RTS0 bytes and its text)."""
    from shaderbuild.rootsig.rts0 import serialize

    row = o.row
    out: list = [MDString(o.name), _i32(row.dxil_kind)]
    if o.kind in ("GlobalRootSignature", "LocalRootSignature"):
        data = serialize(o.root_signature)
        out += [MDNode([MDValue(ConstAggregate(T.ArrayType(T.i8, len(data)), [ConstInt(T.i8, b) for b in data]))]),
                MDString(o.field("Data"))]
    elif o.kind == "SubobjectToExportsAssociation":
        out += [MDString(o.field("Subobject")), MDNode([MDString(e) for e in o.exports])]
    elif row.hit_group_type is not None:
        fields = dict(row.fields)
        out += [_i32(row.hit_group_type), MDString(o.field("Intersection") if "Intersection" in fields else ""),
                MDString(o.field("AnyHit")), MDString(o.field("ClosestHit"))]
    else:
        out += [_i32(v) for v in o.values]
    return MDNode(out)


def add_library_metadata(lm: LoweredModule) -> None:
    """A library's named metadata: no signatures; dx.entryPoints starts with a null entry holding the
    resources and the library's shader flags, then one entry per shader with its kind and payload
    and attribute sizes (DXIL.rst, "Shader library"); dx.subobjects lists the state-object subobjects.
    From DXIL 1.6, dx.dxrPayloadAnnotations carries the [raypayload] structs' access qualifiers."""
    m = lm.llmod
    res = _module_header(lm)
    empty = MDNode([])
    annotations: list = [_i32(1)]
    for lf in lm.library:
        params = [MDNode([_i32(1), empty, empty])]
        params += [MDNode([_i32(_PARAM_QUAL[d]), empty, empty]) for d in _param_directions(lf)]
        annotations += [MDValue(lf.function), MDNode(params)]
    m.add_named_md("dx.typeAnnotations", [MDNode(annotations)])
    module_flags = _flags_of(library_features(lm))
    entries = [MDNode([None, MDString(""), None, res,
                       MDNode([_i32(TAG_SHADER_FLAGS), MDValue(ConstInt(T.i64, module_flags))]) if module_flags
                       else None])]
    # the shaders sorted by name, their properties without shader flags (those are per function in
    # RDAT), as DxilModule::EmitDxilMetadata writes them
    for lf in sorted(lm.library, key=lambda f: f.name):
        props: list = [_i32(TAG_SHADER_KIND), _i32(SHADER_KINDS[lf.kind])]
        if lf.kind in ("anyhit", "closesthit"):
            props += [_i32(TAG_RAY_PAYLOAD_SIZE), _i32(lf.payload_size), _i32(TAG_RAY_ATTRIB_SIZE), _i32(lf.attribute_size)]
        elif lf.kind in ("miss", "callable"):
            props += [_i32(TAG_RAY_PAYLOAD_SIZE), _i32(lf.payload_size)]
        entries.append(MDNode([MDValue(lf.function), MDString(lf.name), None, None, MDNode(props)]))
    m.add_named_md("dx.entryPoints", entries)
    if lm.payload_access and dxil_version(lm.sm) >= (1, 6):
        m.add_named_md("dx.dxrPayloadAnnotations", [payload_annotations(lm.payload_access)])
    if lm.subobjects:
        m.add_named_md("dx.subobjects", [subobject_metadata(o) for o in lm.subobjects])


# payload access qualifier masks (DxilConstants.h): 4 bits per stage, read = 1, write = 2
_PAYLOAD_STAGE_SHIFT = {"caller": 0, "closesthit": 4, "miss": 8, "anyhit": 12}
_PAYLOAD_ACCESS_BITS = {"read": 1, "write": 2}


def payload_field_mask(access: dict[str, tuple[str, ...]]) -> int:
    return sum(_PAYLOAD_ACCESS_BITS[q] << _PAYLOAD_STAGE_SHIFT[s] for q, stages in access.items() for s in set(stages))


def payload_annotations(structs: list) -> MDNode:
    """`!{i32 0, %struct.P undef, !{!{i32 0, i32 mask}, ...}, ...}`: each [raypayload] struct's field access
    masks (kDxilPayloadAnnotationStructTag, kDxilPayloadFieldAnnotationAccessTag), for DXIL 1.6+ libraries."""
    out: list = [_i32(0)]
    for llvm_type, fields in structs:
        out += [MDValue(Undef(llvm_type)), MDNode([MDNode([_i32(0), _i32(payload_field_mask(f))]) for f in fields])]
    return MDNode(out)


def _param_directions(lf: LibraryFunction) -> list[str]:
    """in for hit attributes, inout for payloads and callable data (the entry's parameters in order)."""
    n = len(lf.function.ftype.params)
    if lf.kind in ("anyhit", "closesthit"):
        return ["inout", "in"][:n]
    return ["inout"] * n
