"""The one intrinsic table: every HLSL intrinsic function and resource method,
once.  Sema types calls from it; each backend declares which names it lowers
natively and which it has `passes/polyfill.py` expand (a test per backend
checks that every entry is covered).

Overload rows: name, parameter/return patterns, allowed component kinds,
stage and shader-model limits.

Patterns (see sema/calls.py for resolution):
  T  generic numeric (scalar, vector or matrix); all T parameters unify
  V  like T but scalar or vector only
  S  scalar of the unified component type
  O  an `out` place of the unified type
  u  uint scalar
  u4 uint4 (a lane mask)
  b  bool scalar (condition)
Return patterns: T/V, S, B (bool, same shape), b (bool scalar), U (uint, same
shape), I (int, same shape), F (float, same shape), u (uint scalar), u4 (uint4), v (void);
fixed types of the ray-tracing system values: u3 (uint3), f1 (float), f2 (float2), f3 (float3), f3x4, f4x3.
Kinds: f float (any width), i int, u uint, b bool.
Names with special typing rules (mul, cross, asuint, Interlocked*, ...) are
typed in sema/calls.py (`special_<name>`) and listed in SPECIAL.

Each name has one lowering (LOWERING):
  native    every backend lowers the IR intrinsic itself
  polyfill  passes/polyfill.py has a shared expansion in IR; a backend lists it
            in its POLYFILLED set to use it, or lowers it natively
  sema      sema rewrites the call into other IR (bitcasts, selects): no
            ir.Intrinsic of that name ever reaches a backend
"""

from __future__ import annotations

from ..records import ValueRecord


class IntrinsicSig(ValueRecord):
    name: str
    params: tuple[str, ...]
    ret: str
    kinds: str = "f"
    stages: frozenset[str] | None = None    # None = every stage
    min_sm: tuple[int, int] = (6, 0)
    side_effects: bool = False


def _sigs(names: str, params: str, ret: str, kinds: str = "f", **kw) -> list[IntrinsicSig]:
    p = tuple(params.split()) if params else ()
    return [IntrinsicSig(n, p, ret, kinds, **kw) for n in names.split()]


PIXEL = frozenset({"pixel"})
# quad operations need 2x2 quads: pixel shaders, and compute/mesh/amplification groups (DXIL.rst's op table);
# wave operations are allowed in every stage (SM 6.0)
QUAD_STAGES = frozenset({"pixel", "compute", "mesh", "amplification"})
THREAD_GROUPS = frozenset({"compute", "mesh", "amplification"})    # stages with groups and groupshared memory
MESH = frozenset({"mesh"})
# derivatives (ddx..., implicit-LOD sampling, CalculateLevelOfDetail) need 2x2 quads: pixel shaders, and from SM 6.6
# compute, mesh and amplification shaders (their quads come from the thread indices; sema/calls.py checks the SM)
DERIVATIVE_STAGES = QUAD_STAGES
DERIVATIVE_SM = (6, 6)
_DERIVATIVE_NAMES = "ddx ddy ddx_coarse ddy_coarse ddx_fine ddy_fine fwidth"
DERIVATIVES = frozenset(_DERIVATIVE_NAMES.split())
# the ray-tracing shader kinds (ir/raytracing.py) each DXR intrinsic is allowed in (D3D12 Raytracing spec)
RAY_ALL = frozenset({"raygeneration", "intersection", "anyhit", "closesthit", "miss", "callable"})
RAY_HIT_MISS = frozenset({"intersection", "anyhit", "closesthit", "miss"})
RAY_HIT = frozenset({"intersection", "anyhit", "closesthit"})
RAY_HIT_KIND = frozenset({"anyhit", "closesthit"})
RAY_TRACE = frozenset({"raygeneration", "closesthit", "miss"})
RAY_CALL = frozenset({"raygeneration", "closesthit", "miss", "callable"})
_DXR = (6, 3)

_TABLE: list[IntrinsicSig] = [
    *_sigs("sqrt rsqrt exp exp2 log log2 log10 sin cos tan asin acos atan sinh cosh tanh floor ceil round trunc "
           "frac degrees radians", "T", "T"),
    *_sigs("saturate rcp", "T", "T"),      # any_float<>: doubles too
    *_sigs("abs", "T", "T", "fiu"),          # abs of a uint is the identity (DXC: numeric<>)
    *_sigs("sign", "T", "I", "fi"),
    *_sigs("min max", "T T", "T", "fiu"),
    *_sigs("clamp", "T T T", "T", "fiu"),
    *_sigs("mad", "T T T", "T", "fiu"),
    *_sigs("pow atan2 fmod step ldexp", "T T", "T"),
    *_sigs("lerp smoothstep", "T T T", "T"),
    *_sigs("dot", "V V", "S", "fiu"),
    *_sigs("length", "V", "S"),
    *_sigs("distance", "V V", "S"),
    *_sigs("normalize", "V", "V"),
    *_sigs("reflect", "V V", "V"),
    *_sigs("refract", "V V S", "V"),
    *_sigs("faceforward", "V V V", "V"),
    *_sigs("all any", "T", "b", "b"),
    *_sigs("isnan isinf isfinite", "T", "B"),
    # DXC declares these on any layout (`any_int<>`, `float<>`, `uint<>`): matrices too; a float argument of
    # the any_int<> ones converts to int (the list's first)
    *_sigs("countbits firstbitlow", "T", "U", "iu"),
    *_sigs("reversebits", "T", "T", "iu"),
    *_sigs("firstbithigh", "T", "U", "iu"),    # a bit index (uint<>): 32-bit even for 64-bit operands (DXIL: i32)
    *_sigs("f32tof16", "T", "U", "f"),
    *_sigs("f16tof32", "T", "F", "u"),
    *_sigs("modf frexp", "T O", "T"),
    *_sigs("sincos", "T O O", "v"),
    *_sigs("and or", "T T", "B", "b"),
    *_sigs(_DERIVATIVE_NAMES, "T", "T", stages=DERIVATIVE_STAGES),
    *_sigs("clip", "T", "v", stages=PIXEL, side_effects=True),
    # on a pixel shader input (passes/evaluate_attribute.py ties the argument to its input variable)
    *_sigs("EvaluateAttributeCentroid", "T", "T", stages=PIXEL),
    *_sigs("EvaluateAttributeAtSample", "T u", "T", stages=PIXEL),
    *_sigs("GetAttributeAtVertex", "T u", "T", "fiu", stages=PIXEL, min_sm=(6, 1)),
    # the render target's sample count and the standard position of a sample (DXIL ops 77 / 76)
    *_sigs("GetRenderTargetSampleCount", "", "u", "u", stages=PIXEL),
    *_sigs("GetRenderTargetSamplePosition", "u", "f2", "u", stages=PIXEL),
    *_sigs("GroupMemoryBarrierWithGroupSync DeviceMemoryBarrierWithGroupSync AllMemoryBarrierWithGroupSync",
           "", "v", stages=THREAD_GROUPS, side_effects=True),
    # a fence on groupshared memory needs a thread group (DXC's validator: outside compute, mesh and
    # amplification shaders a barrier "must only sync UAV"), so only DeviceMemoryBarrier is allowed in every stage
    *_sigs("GroupMemoryBarrier AllMemoryBarrier", "", "v", stages=THREAD_GROUPS, side_effects=True),
    *_sigs("DeviceMemoryBarrier", "", "v", side_effects=True),
    *_sigs("WaveGetLaneIndex WaveGetLaneCount", "", "u", side_effects=True),
    *_sigs("WaveIsFirstLane", "", "b", side_effects=True),
    *_sigs("IsHelperLane", "", "b", min_sm=(6, 6), side_effects=True),   # false outside pixel shaders
    *_sigs("WaveActiveSum WaveActiveProduct WaveActiveMin WaveActiveMax WavePrefixSum WavePrefixProduct",
           "T", "T", "fiu", side_effects=True),
    # DXC declares these three on any<> (bools too: a bool comes back as a bool), the others on numeric<>
    *_sigs("WaveReadLaneFirst", "T", "T", "fiub", side_effects=True),
    *_sigs("QuadReadAcrossX QuadReadAcrossY QuadReadAcrossDiagonal", "T", "T", "fiu", stages=QUAD_STAGES,
           side_effects=True),
    *_sigs("WaveActiveBitAnd WaveActiveBitOr WaveActiveBitXor", "T", "T", "u", side_effects=True),
    *_sigs("WaveReadLaneAt", "T u", "T", "fiub", side_effects=True),
    *_sigs("QuadReadLaneAt", "T u", "T", "fiu", stages=QUAD_STAGES, side_effects=True),
    *_sigs("QuadAny QuadAll", "b", "b", "b", stages=QUAD_STAGES, min_sm=(6, 7), side_effects=True),
    *_sigs("WaveActiveAllTrue WaveActiveAnyTrue", "b", "b", "b", side_effects=True),
    # per component, as DXC (bool<> WaveActiveAllEqual(any<>)): a vector gives a bool vector
    *_sigs("WaveActiveAllEqual", "T", "B", "fiub", side_effects=True),
    *_sigs("WaveActiveCountBits WavePrefixCountBits", "b", "u", "b", side_effects=True),
    *_sigs("WaveActiveBallot", "b", "u4", "b", side_effects=True),
    # SM 6.5: the lanes holding the same value; prefix operations over the lanes of a partition (a uint4 mask)
    *_sigs("WaveMatch", "T", "u4", "fiu", min_sm=(6, 5), side_effects=True),
    *_sigs("WaveMultiPrefixSum WaveMultiPrefixProduct", "T u4", "T", "fiu", min_sm=(6, 5), side_effects=True),
    *_sigs("WaveMultiPrefixBitAnd WaveMultiPrefixBitOr WaveMultiPrefixBitXor", "T u4", "T", "iu", min_sm=(6, 5),
           side_effects=True),
    *_sigs("WaveMultiPrefixCountBits", "b u4", "u", "b", min_sm=(6, 5), side_effects=True),
    *_sigs("NonUniformResourceIndex", "T", "T", "fiub"),     # DXC: `$type1 (any<>)`, the value itself
    # the `out uint status` of a texture read (WITH_STATUS): true when every texel read was resident
    *_sigs("CheckAccessFullyMapped", "u", "b", "u"),
    # DXR system values and ray-tracing calls (TraceRay, ReportHit and CallShader take a payload,
    # attribute or callable-data struct: typed in sema/calls.py, listed in SPECIAL)
    *_sigs("DispatchRaysIndex DispatchRaysDimensions", "", "u3", "u", stages=RAY_ALL, min_sm=_DXR),
    *_sigs("WorldRayOrigin WorldRayDirection", "", "f3", stages=RAY_HIT_MISS, min_sm=_DXR),
    *_sigs("RayTMin RayTCurrent", "", "f1", stages=RAY_HIT_MISS, min_sm=_DXR),
    *_sigs("RayFlags", "", "u", "u", stages=RAY_HIT_MISS, min_sm=_DXR),
    *_sigs("InstanceIndex InstanceID PrimitiveIndex", "", "u", "u", stages=RAY_HIT, min_sm=_DXR),
    *_sigs("GeometryIndex", "", "u", "u", stages=RAY_HIT, min_sm=(6, 5)),
    *_sigs("ObjectRayOrigin ObjectRayDirection", "", "f3", stages=RAY_HIT, min_sm=_DXR),
    *_sigs("ObjectToWorld3x4 WorldToObject3x4", "", "f3x4", stages=RAY_HIT, min_sm=_DXR),
    *_sigs("ObjectToWorld4x3 WorldToObject4x3", "", "f4x3", stages=RAY_HIT, min_sm=_DXR),
    *_sigs("HitKind", "", "u", "u", stages=RAY_HIT_KIND, min_sm=_DXR),
    *_sigs("IgnoreHit AcceptHitAndEndSearch", "", "v", stages=frozenset({"anyhit"}), min_sm=_DXR, side_effects=True),
    # (acceleration structure, flags, mask, hit-group offset, stride, miss index, RayDesc, inout payload)
    *_sigs("TraceRay", "A u u u u u R P", "v", stages=RAY_TRACE, min_sm=_DXR, side_effects=True),
    *_sigs("ReportHit", "f u P", "b", stages=frozenset({"intersection"}), min_sm=_DXR, side_effects=True),
    *_sigs("CallShader", "u P", "v", stages=RAY_CALL, min_sm=_DXR, side_effects=True),
    # mesh shaders: how many vertices and primitives the group outputs (once, before writing them)
    *_sigs("SetMeshOutputCounts", "u u", "v", "u", stages=MESH, min_sm=(6, 5), side_effects=True),
]

# DXC's float_like<> parameters (float, half, min16float; not double): a double argument converts to float
FLOAT_LIKE = frozenset((
    "sqrt rsqrt exp exp2 log log2 log10 sin cos tan asin acos atan sinh cosh tanh floor ceil round trunc frac "
    "degrees radians pow atan2 fmod step ldexp lerp smoothstep length distance normalize reflect refract "
    "faceforward isnan isinf isfinite modf frexp sincos ddx ddy ddx_coarse ddy_coarse ddx_fine ddy_fine fwidth"
).split())

# DXC's float<> parameters: 32-bit float only, so a half (or double) argument converts to float
FLOAT32_ONLY = frozenset(("f32tof16", "frexp"))
# DXC's lists ending in NOCAST (uint_only<>): an argument of another kind matches no overload (a literal
# int is taken), where other lists convert it
STRICT_KINDS = {n: ("uint",) for n in ("WaveActiveBitAnd", "WaveActiveBitOr", "WaveActiveBitXor")}
# the integer-bit and half-packing intrinsics sema applies row by row to a matrix argument (DXC's table takes
# matrices for them; the backends lower them on scalars and vectors)
BY_ROWS = frozenset(("countbits", "firstbitlow", "firstbithigh", "reversebits", "f32tof16", "f16tof32"))
# DXC types these results by a template of their own (`uint<> f32tof16(float<>)`), a scalar one whose sizes
# come from the argument: a one-row matrix argument gives a vector (float1x3 -> uint3, float1x1 -> uint)
OWN_RESULT_TEMPLATE = frozenset(("f32tof16", "f16tof32"))
# DXC's uint<> parameters: 32-bit uint only, so a 16- or 64-bit integer argument converts to uint
UINT32_ONLY = frozenset(("f16tof32",))

INTRINSICS: dict[str, list[IntrinsicSig]] = {}
for _sig in _TABLE:
    INTRINSICS.setdefault(_sig.name, []).append(_sig)

ATOMICS = ("InterlockedAdd", "InterlockedAnd", "InterlockedOr", "InterlockedXor", "InterlockedMin",
           "InterlockedMax", "InterlockedExchange", "InterlockedCompareExchange", "InterlockedCompareStore")
# SM 6.6 RWByteAddressBuffer methods on the 64-bit word at a byte offset: sema makes them the 32-bit
# names' IR with an int64_t / uint64_t value
ATOMICS64 = tuple(name + "64" for name in ATOMICS)
# SM 6.6 float compare-and-swap comparing bits: free functions on a float buffer element or groupshared
# float, and RWByteAddressBuffer methods; sema makes them the uint compare forms on the float's bits
FLOAT_BITWISE = ("InterlockedCompareStoreFloatBitwise", "InterlockedCompareExchangeFloatBitwise")
# SM 6.6 RWByteAddressBuffer method only (no free function in DXC's table): sema makes it InterlockedExchange
# of a float value
FLOAT_EXCHANGE = "InterlockedExchangeFloat"

# SM 6.4 dot products of packed bytes / half pairs and SM 6.6 byte packing (sema/calls.py: special_<name>;
# expanded by passes/polyfill.py)
PACKED_BYTES = ("dot4add_u8packed", "dot4add_i8packed", "dot2add", "pack_u8", "pack_s8", "pack_clamp_u8",
                "pack_clamp_s8", "unpack_u8u32", "unpack_s8s32", "unpack_u8u16", "unpack_s8s16")

# typed by hand in sema/calls.py (special_<name>)
SPECIAL = frozenset({
    "mul", "cross", "transpose", "determinant", "asuint", "asint", "asfloat", "asdouble", "select", "lit",
    "fma", "dst", "D3DCOLORtoUBYTE4", "msad4", "EvaluateAttributeSnapped", *ATOMICS, *FLOAT_BITWISE,
    *PACKED_BYTES, "asfloat16", "asint16", "asuint16",
    "TraceRay", "ReportHit", "CallShader",
    "DispatchMesh",     # amplification: (x, y, z, the groupshared payload variable itself)
    "printf",           # (a Const holding the format string, the values): SPIR-V DebugPrintf, dropped in DXIL
})
# their last argument is a place (a caller temporary holding the payload / attributes / callable data;
# the backend passes its address: DXIL a pointer, SPIR-V a variable of the ray-tracing storage class)
RAY_CALLS = ("TraceRay", "ReportHit", "CallShader")

# resource methods (which kinds have which: ir/resource_kinds.py); typed in sema/resources.py
SAMPLE_METHODS = ("Sample", "SampleBias", "SampleLevel", "SampleGrad", "SampleCmp", "SampleCmpLevelZero",
                  "SampleCmpLevel", "SampleCmpBias", "SampleCmpGrad")
# the depth-comparison sample methods (D3D and Vulkan have no comparison on 3-D textures); SampleCmpLevel
# (an explicit level) is SM 6.7, SampleCmpBias / SampleCmpGrad SM 6.8
SAMPLE_CMP_METHODS = ("SampleCmp", "SampleCmpLevelZero", "SampleCmpLevel", "SampleCmpBias", "SampleCmpGrad")
GATHER_METHODS = ("Gather", "GatherRed", "GatherGreen", "GatherBlue", "GatherAlpha")
# Gather*(s, location[, offset]) with a compare value after the location and a SamplerComparisonState
GATHER_CMP_METHODS = ("GatherCmp", "GatherCmpRed", "GatherCmpGreen", "GatherCmpBlue", "GatherCmpAlpha")
LOD_METHODS = ("CalculateLevelOfDetail", "CalculateLevelOfDetailUnclamped")
RAW_METHODS = ("Load", "Load2", "Load3", "Load4", "Store", "Store2", "Store3", "Store4")
# geometry-shader stream methods (PointStream, LineStream, TriangleStream), and the operations the entry
# wrapper turns them into once a stream is its Output variables (operand: the stream index)
STREAM_METHODS = ("Append", "RestartStrip")
GS_OPERATIONS = ("EmitVertex", "EndPrimitive")
# RayQuery methods (SM 6.5 inline ray tracing, every stage): name -> (parameter patterns, return);
# typed in sema/rayquery.py.  Parameters: 'accel' a RaytracingAccelerationStructure, 'ray' a RayDesc,
# u uint, f float.  Returns: v void, b bool, u uint, f float, fN floatN, fRxC floatRxC.  The first
# operand of each ir.Intrinsic is the query's place.
_RQ_HIT_GETTERS = {
    "InstanceIndex": "u", "InstanceID": "u", "InstanceContributionToHitGroupIndex": "u", "GeometryIndex": "u",
    "PrimitiveIndex": "u", "ObjectRayOrigin": "f3", "ObjectRayDirection": "f3", "ObjectToWorld3x4": "f3x4",
    "ObjectToWorld4x3": "f4x3", "WorldToObject3x4": "f3x4", "WorldToObject4x3": "f4x3",
    "TriangleBarycentrics": "f2", "TriangleFrontFace": "b",
}
RAYQUERY_METHODS: dict[str, tuple[tuple[str, ...], str]] = {
    "TraceRayInline": (("accel", "u", "u", "ray"), "v"), "Proceed": ((), "b"), "Abort": ((), "v"),
    "CandidateType": ((), "u"), "CandidateProceduralPrimitiveNonOpaque": ((), "b"),
    "CommitNonOpaqueTriangleHit": ((), "v"), "CommitProceduralPrimitiveHit": (("f",), "v"),
    "CommittedStatus": ((), "u"), "CandidateTriangleRayT": ((), "f"), "CommittedRayT": ((), "f"),
    "RayFlags": ((), "u"), "WorldRayOrigin": ((), "f3"), "WorldRayDirection": ((), "f3"), "RayTMin": ((), "f"),
    **{f"Candidate{k}": ((), r) for k, r in _RQ_HIT_GETTERS.items()},
    **{f"Committed{k}": ((), r) for k, r in _RQ_HIT_GETTERS.items()},
}
METHODS = frozenset({
    *SAMPLE_METHODS, *GATHER_METHODS, *GATHER_CMP_METHODS, *LOD_METHODS, *RAW_METHODS, *ATOMICS, *ATOMICS64, *FLOAT_BITWISE,
    FLOAT_EXCHANGE, *STREAM_METHODS,
    "GetDimensions", "IncrementCounter", "DecrementCounter", "Append", "Consume", "GetSamplePosition",
})

# WithStatus(read, status place): a texture read given an `out uint status` (Sample(s, uv, offset, clamp,
# status), Load(location, offset, status), ...), the read's residency status stored into the place
WITH_STATUS = "WithStatus"

NATIVE, POLYFILL, SEMA = "native", "polyfill", "sema"

# names sema rewrites into other IR; everything else reaches a backend as ir.Intrinsic(name)
_SEMA_EXPANDED = {
    "asuint": "a Bitcast (or two Extracts of a Bitcast)", "asint": "a Bitcast", "asfloat": "a Bitcast",
    "asfloat16": "a Bitcast", "asint16": "a Bitcast", "asuint16": "a Bitcast",
    "select": "a Select", "Load2": "Load with a uint2 result", "Load3": "Load with a uint3 result",
    "Load4": "Load with a uint4 result", "Store2": "Store of a uint2", "Store3": "Store of a uint3",
    "Store4": "Store of a uint4",
    **{name: f"{name[:-2]} with a 64-bit value" for name in ATOMICS64},
    **{name: f"{name.removesuffix('FloatBitwise')} of the float's bits (uint)" for name in FLOAT_BITWISE},
    FLOAT_EXCHANGE: "InterlockedExchange with a float value",
    "RestartStrip": "EndPrimitive of its stream (passes/entry_wrapper.py; Append on a stream likewise becomes "
                    "stores to the stream's outputs and EmitVertex)",
}
# names with a shared IR expansion in passes/polyfill.py
POLYFILLABLE = frozenset({
    "lit", "dst", "msad4", "D3DCOLORtoUBYTE4", "smoothstep", "step", "reflect", "refract", "faceforward",
    "determinant", "degrees", "radians", "rcp", "exp", "log", "log10", "atan2", "ldexp", "fwidth", "distance",
    "clamp", "sign", "all", "any", "and", "or", "transpose", *PACKED_BYTES, "QuadAny", "QuadAll",
    "WaveMatch", "WaveMultiPrefixSum", "WaveMultiPrefixProduct", "WaveMultiPrefixBitAnd", "WaveMultiPrefixBitOr",
    "WaveMultiPrefixBitXor", "WaveMultiPrefixCountBits",
})

LOWERING: dict[str, str] = {
    name: SEMA if name in _SEMA_EXPANDED else POLYFILL if name in POLYFILLABLE else NATIVE
    for name in sorted({*INTRINSICS, *SPECIAL, *METHODS, *GS_OPERATIONS, *RAYQUERY_METHODS, WITH_STATUS})
}
# every name a backend must lower natively, polyfill, or declare unsupported (with a reason)
BACKEND_NAMES = frozenset(n for n, how in LOWERING.items() if how != SEMA)


def is_intrinsic(name: str) -> bool:
    """A free function intrinsic (not a method)."""
    return name in INTRINSICS or name in SPECIAL
