"""HLSL intrinsics -> dx.op calls / LLVM instruction sequences.

Simple component-wise intrinsics are plain data (name -> operation per
component kind); the rest are small functions registered with @intrinsic.
Everything works on scalarised values (lists of LLVM scalars).
"""

from __future__ import annotations

import itertools

from shaderbuild import ir
from shaderbuild.diagnostics import error
from shaderbuild.ir.resource_kinds import KINDS, ResourceKind

from .buffers import STRUCTURED, buffer_coords, component_offsets
from .llvm import types as T
from .llvm.values import ConstFloat, ConstInt, Undef, Value, float_type_of, int_type_of
from .ops import RESRETS, get_op, overload_name, resret
from .places import AddrPlace, BufferPlace, CompPlace, DynCompPlace, MemPlace, Place
from .polyfills import POLYFILLED
from .scalarize import component_types, llvm_scalar

TYPE_CHECKING = False

if TYPE_CHECKING:       # handlers receive the lowerer through its interface (lowering.py), not lower.py
    from collections.abc import Callable

    from .lowering import Lowering as FunctionLowerer

    NATIVE_INTRINSICS: frozenset[str]       # (module __getattr__ below)

__all__ = ["NATIVE_INTRINSICS", "POLYFILLED", "UNSUPPORTED_INTRINSICS", "lower_intrinsic"]

if TYPE_CHECKING:      # a type alias: for type checkers only (no collections.abc at run time)
    Handler = Callable[["FunctionLowerer", ir.Intrinsic], list[Value]]
_HANDLERS: dict[str, Handler] = {}

# one dx.op per component, chosen by component kind ('float' | 'int' | 'uint')
UNARY_OPS: dict[str, dict[str, str]] = {
    **{n: {"float": op} for n, op in {
        "sqrt": "Sqrt", "rsqrt": "Rsqrt", "exp2": "Exp", "log2": "Log", "sin": "Sin", "cos": "Cos", "tan": "Tan",
        "asin": "Asin", "acos": "Acos", "atan": "Atan", "sinh": "Hsin", "cosh": "Hcos", "tanh": "Htan",
        "floor": "Round_ni", "ceil": "Round_pi", "round": "Round_ne", "trunc": "Round_z", "frac": "Frc",
        "saturate": "Saturate"}.items()},
    "reversebits": {"int": "Bfrev", "uint": "Bfrev"},
    "ddx": {"float": "DerivCoarseX"}, "ddy": {"float": "DerivCoarseY"},
    "ddx_coarse": {"float": "DerivCoarseX"}, "ddy_coarse": {"float": "DerivCoarseY"},
    "ddx_fine": {"float": "DerivFineX"}, "ddy_fine": {"float": "DerivFineY"},
    "WaveReadLaneFirst": {"float": "WaveReadLaneFirst", "int": "WaveReadLaneFirst", "uint": "WaveReadLaneFirst"},
}
# ops whose result is i32 / i1 regardless of the operand
UNARY_FIXED_RESULT = {"countbits": "Countbits", "firstbitlow": "FirstbitLo", "isnan": "IsNaN", "isinf": "IsInf",
                      "isfinite": "IsFinite"}
BINARY_OPS: dict[str, dict[str, str]] = {
    "min": {"float": "FMin", "int": "IMin", "uint": "UMin"},
    "max": {"float": "FMax", "int": "IMax", "uint": "UMax"},
}
TERTIARY_OPS: dict[str, dict[str, str]] = {"mad": {"float": "FMad", "int": "IMad", "uint": "UMad"},
                                           "fma": {"float": "Fma"}}      # double only, fused

# barrier mode bits: SyncThreadGroup 1, UAVFenceGlobal 2, UAVFenceThreadGroup 4, TGSMFence 8
BARRIERS = {
    "GroupMemoryBarrierWithGroupSync": 1 | 8, "GroupMemoryBarrier": 8,
    "DeviceMemoryBarrierWithGroupSync": 1 | 2, "DeviceMemoryBarrier": 2,
    "AllMemoryBarrierWithGroupSync": 1 | 2 | 8, "AllMemoryBarrier": 2 | 8,
}
# wave reductions: (operation, op code operand)
WAVE_ACTIVE_OP = {"WaveActiveSum": 0, "WaveActiveProduct": 1, "WaveActiveMin": 2, "WaveActiveMax": 3}
WAVE_PREFIX_OP = {"WavePrefixSum": 0, "WavePrefixProduct": 1}
WAVE_BIT_OP = {"WaveActiveBitAnd": 0, "WaveActiveBitOr": 1, "WaveActiveBitXor": 2}
QUAD_OP = {"QuadReadAcrossX": 0, "QuadReadAcrossY": 1, "QuadReadAcrossDiagonal": 2}
ATOMIC_OP: dict[str, int | tuple[int, int]] = {"InterlockedAdd": 0, "InterlockedAnd": 1, "InterlockedOr": 2, "InterlockedXor": 3,
             "InterlockedMin": (4, 6), "InterlockedMax": (5, 7), "InterlockedExchange": 8}
ATOMIC_RMW: dict[str, str | tuple[str, str]] = {"InterlockedAdd": "add", "InterlockedAnd": "and", "InterlockedOr": "or", "InterlockedXor": "xor",
              "InterlockedMin": ("min", "umin"), "InterlockedMax": ("max", "umax"), "InterlockedExchange": "xchg"}


def intrinsic(*names: str) -> Callable[[Handler], Handler]:
    def deco(fn: Handler) -> Handler:
        for n in names:
            _HANDLERS[n] = fn
        return fn
    return deco


def _kind(t: ir.Type) -> str:
    s = ir.numeric_scalar(t)
    return "float" if s.kind == "float" else ("uint" if s.kind in ("uint", "bool") else "int")


def _ov(v: Value) -> str:
    return overload_name(v.type)


def _fconst(t: T.FloatType, x: float) -> ConstFloat:
    return ConstFloat(t, x)


def _args(L: FunctionLowerer, e: ir.Intrinsic) -> list[list[Value]]:
    vals = [L.expr(a) for a in e.args]
    n = max(map(len, vals), default=1)
    return [v * n if len(v) == 1 and n > 1 else v for v in vals]


def _per_component(L: FunctionLowerer, e: ir.Intrinsic, op: str) -> list[Value]:
    args = _args(L, e)
    return [L.ops.call(L.b, op, _ov(cs[0]), list(cs)) for cs in zip(*args)]


def _table_lookup(table: dict[str, dict[str, str]], e: ir.Intrinsic) -> str:
    kind = _kind(e.args[0].type)
    op = table[e.name].get(kind)
    if op is None:
        raise error(f"intrinsic '{e.name}' on '{e.args[0].type}' is not supported by the DXIL backend yet")
    return op


# ---------------------------------------------------------------- data-driven families
def _unary(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    return _per_component(L, e, _table_lookup(UNARY_OPS, e))


def _unary_fixed(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    return _per_component(L, e, UNARY_FIXED_RESULT[e.name])


def _binary(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    return _per_component(L, e, _table_lookup(BINARY_OPS, e))


def _tertiary(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    return _per_component(L, e, _table_lookup(TERTIARY_OPS, e))


for _n in UNARY_OPS:
    _HANDLERS[_n] = _unary
for _n in UNARY_FIXED_RESULT:
    _HANDLERS[_n] = _unary_fixed
for _n in BINARY_OPS:
    _HANDLERS[_n] = _binary
for _n in TERTIARY_OPS:
    _HANDLERS[_n] = _tertiary


# ---------------------------------------------------------------- math built from pieces
@intrinsic("abs")
def _abs(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    (xs,) = _args(L, e)
    if _kind(e.type) == "float":
        return [L.ops.call(L.b, "FAbs", _ov(x), [x]) for x in xs]
    if _kind(e.type) == "uint":
        return xs
    return [L.ops.call(L.b, "IMax", _ov(x), [x, L.b.sub(ConstInt(int_type_of(x), 0), x)]) for x in xs]


@intrinsic("pow")
def _pow(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    xs, ys = _args(L, e)
    return [L.ops.call(L.b, "Exp", _ov(x), [L.b.fmul(L.ops.call(L.b, "Log", _ov(x), [x]), y)]) for x, y in zip(xs, ys)]


@intrinsic("fmod")
def _fmod(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    xs, ys = _args(L, e)
    return [L.b.frem(x, y) for x, y in zip(xs, ys)]


@intrinsic("lerp")
def _lerp(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    a, b, t = _args(L, e)
    return [L.b.fadd(x, L.b.fmul(s, L.b.fsub(y, x))) for x, y, s in zip(a, b, t)]


def _dot_values(L: FunctionLowerer, a: list[Value], b: list[Value]) -> Value:
    t = a[0].type
    if isinstance(t, T.FloatType) and 2 <= len(a) <= 4 and t.width != 64:
        return L.ops.call(L.b, f"Dot{len(a)}", _ov(a[0]), [*a, *b])
    if isinstance(t, T.FloatType):
        acc = L.b.fmul(a[0], b[0])
        for x, y in zip(a[1:], b[1:]):
            acc = L.b.fadd(acc, L.b.fmul(x, y))
        return acc
    acc = L.b.mul(a[0], b[0])
    for x, y in zip(a[1:], b[1:]):
        acc = L.ops.call(L.b, "IMad", _ov(x), [x, y, acc])
    return acc


@intrinsic("dot")
def _dot(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    a, b = _args(L, e)
    return [_dot_values(L, a, b)]


def _length_of(L: FunctionLowerer, xs: list[Value]) -> Value:
    """DXC's length: Sqrt of an fmul/fadd sum of squares (not a Dot op); a scalar's is FAbs."""
    if len(xs) == 1:
        return L.ops.call(L.b, "FAbs", _ov(xs[0]), [xs[0]])
    acc = L.b.fmul(xs[0], xs[0])
    for x in xs[1:]:
        acc = L.b.fadd(acc, L.b.fmul(x, x))
    return L.ops.call(L.b, "Sqrt", _ov(xs[0]), [acc])


@intrinsic("length")
def _length(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    (a,) = _args(L, e)
    return [_length_of(L, a)]


@intrinsic("normalize")
def _normalize(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    (a,) = _args(L, e)
    r = L.ops.call(L.b, "Rsqrt", _ov(a[0]), [_dot_values(L, a, a)])
    return [L.b.fmul(x, r) for x in a]


@intrinsic("cross")
def _cross(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    a, b = _args(L, e)
    return [L.b.fsub(L.b.fmul(a[(k + 1) % 3], b[(k + 2) % 3]), L.b.fmul(a[(k + 2) % 3], b[(k + 1) % 3]))
            for k in range(3)]


@intrinsic("firstbithigh")
def _firstbithigh(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    (xs,) = _args(L, e)
    op = "FirstbitSHi" if _kind(e.args[0].type) == "int" else "FirstbitHi"
    out = []
    for x in xs:
        r = L.ops.call(L.b, op, _ov(x), [x])            # counted from the MSB; HLSL counts from the LSB
        fixed = L.b.sub(ConstInt(T.i32, int_type_of(x).width - 1), r)
        out.append(L.b.select(L.b.icmp("eq", r, ConstInt(T.i32, -1)), r, fixed))
    return out


@intrinsic("clip")
def _clip(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    (xs,) = _args(L, e)
    cond = None
    for x in xs:
        c = L.b.fcmp("olt", x, _fconst(float_type_of(x), 0.0))
        cond = c if cond is None else L.b.or_(cond, c)
    assert cond is not None     # clip of a value with components
    L.ops.call(L.b, "Discard", None, [cond])
    return []


_EVALUATE_OPS = {"EvaluateAttributeAtSample": "EvalSampleIndex", "EvaluateAttributeCentroid": "EvalCentroid",
                 "EvaluateAttributeSnapped": "EvalSnapped"}


@intrinsic(*_EVALUATE_OPS)
def _evaluate(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    """EvaluateAttribute*: the eval op per component of the input element the argument names
    (shaderbuild/passes/evaluate_attribute.py made it a Load of the input variable's place); the
    sample index or the snapped offset's x and y follow the element, row and column."""
    arg = e.args[0]
    assert isinstance(arg, ir.Load)
    place = L.place(arg.place)
    extra = [v for a in e.args[1:] for v in L.expr(a)]
    return L.io_evaluate(place, _EVALUATE_OPS[e.name], extra)


@intrinsic("GetAttributeAtVertex")
def _attribute_at_vertex(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    """attributeAtVertex per component; the vertex (0-2, checked constant by evaluate_attribute.py)
    is an i8 immediate."""
    arg, vertex = e.args
    assert isinstance(arg, ir.Load) and isinstance(vertex, ir.Const)
    place = L.place(arg.place)
    return L.io_evaluate(place, "AttributeAtVertex", [ConstInt(T.i8, int(vertex.value))])


@intrinsic("mul")
def _mul(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    a_t, b_t = e.args[0].type, e.args[1].type
    a, b = L.expr(e.args[0]), L.expr(e.args[1])

    def shape(t: ir.Type) -> tuple[int, int]:
        if isinstance(t, ir.Matrix):
            return t.rows, t.cols
        if isinstance(t, ir.Vector):
            return 1, t.size
        return 1, 1
    if not isinstance(a_t, (ir.Matrix, ir.Vector)) or not isinstance(b_t, (ir.Matrix, ir.Vector)):
        if len(a) == 1:
            a = a * len(b)
        if len(b) == 1:
            b = b * len(a)
        return [L.mul(x, y) for x, y in zip(a, b)]
    ra, ca = shape(a_t)
    rb, cb = shape(b_t)
    if isinstance(b_t, ir.Vector) and isinstance(a_t, ir.Matrix):      # M x v: v is a column
        rb, cb = b_t.size, 1
    mad = TERTIARY_OPS["mad"][_kind(e.type)]
    first = L.mul
    call = None                         # one component type: the operation is looked up once
    out = []
    for i in range(ra):
        row = a[i * ca:(i + 1) * ca]
        for j in range(cb):
            # DXC (HLMatrixLowerPass): x0 * y0, then mad(xk, yk, acc); never a Dot op
            pairs = zip(row, b[j:rb * cb:cb])         # (a[i][k], b[k][j])
            x, y = next(pairs)
            acc = first(x, y)
            for x, y in pairs:
                if call is None:
                    call = L.ops.emitter(L.b, mad, _ov(x))
                acc = call([x, y, acc])
            out.append(acc)
    return out


@intrinsic("asdouble")
def _asdouble(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    lo, hi = _args(L, e)
    return [L.ops.call(L.b, "MakeDouble", "f64", [x, y]) for x, y in zip(lo, hi)]


@intrinsic("sincos")
def _sincos(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    xs = L.expr(e.args[0])
    L.place(e.args[1]).write(L, [L.ops.call(L.b, "Sin", _ov(x), [x]) for x in xs])
    L.place(e.args[2]).write(L, [L.ops.call(L.b, "Cos", _ov(x), [x]) for x in xs])
    return []


@intrinsic("modf")
def _modf(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    xs = L.expr(e.args[0])
    ips = [L.ops.call(L.b, "Round_z", _ov(x), [x]) for x in xs]
    L.place(e.args[1]).write(L, ips)
    return [L.b.fsub(x, i) for x, i in zip(xs, ips)]


@intrinsic("frexp")
def _frexp(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    """mantissa in [0.5, 1) and exponent, from the float32 bit pattern (0 gives 0, 0)."""
    xs = L.expr(e.args[0])
    mant, exps = [], []
    for x in xs:
        bits = L.b.bitcast(x, T.i32)
        nonzero = L.b.fcmp("une", x, _fconst(T.f32, 0.0))
        ebits = L.b.and_(L.b.lshr(bits, ConstInt(T.i32, 23)), ConstInt(T.i32, 0xFF))
        ex = L.b.sitofp(L.b.sub(ebits, ConstInt(T.i32, 126)), T.f32)
        mbits = L.b.or_(L.b.and_(bits, ConstInt(T.i32, 0x807FFFFF)), ConstInt(T.i32, 0x3F000000))
        mant.append(L.b.select(nonzero, L.b.bitcast(mbits, T.f32), _fconst(T.f32, 0.0)))
        exps.append(L.b.select(nonzero, ex, _fconst(T.f32, 0.0)))
    L.place(e.args[1]).write(L, exps)
    return mant


@intrinsic("f32tof16")
def _f32tof16(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    (xs,) = _args(L, e)
    return [L.ops.call(L.b, "LegacyF32ToF16", None, [x]) for x in xs]


@intrinsic("f16tof32")
def _f16tof32(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    (xs,) = _args(L, e)
    return [L.ops.call(L.b, "LegacyF16ToF32", None, [x]) for x in xs]


# ---------------------------------------------------------------- barriers and waves
def _barrier(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    L.ops.call(L.b, "Barrier", None, [ConstInt(T.i32, BARRIERS[e.name])])
    return []


for _n in BARRIERS:
    _HANDLERS[_n] = _barrier


# ---------------------------------------------------------------- mesh and amplification shaders
@intrinsic("SetMeshOutputCounts")
def _set_mesh_output_counts(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    vertices, primitives = (v[0] for v in _args(L, e))
    L.ops.call(L.b, "SetMeshOutputCounts", None, [vertices, primitives])
    return []


@intrinsic("DispatchMesh")
def _dispatch_mesh(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    """dispatchMesh(x, y, z, payload): the payload is the groupshared global itself (passes/mesh_io.py)."""
    counts = [L.expr(a)[0] for a in e.args[:3]]
    target = e.args[3]
    assert isinstance(target, ir.VarRef)        # the entry wrapper's DispatchMesh names the payload variable
    ptr = L.payload_pointer(target.var)
    pt = ptr.type
    assert isinstance(pt, T.PointerType) and isinstance(pt.pointee, T.StructType)     # a payload global
    st = pt.pointee
    fn = L.ops.declare_udt("DispatchMesh", st, T.void, [T.i32, T.i32, T.i32, ptr.type])
    L.b.call(fn, [ConstInt(T.i32, get_op("DispatchMesh").opcode), *counts, ptr])
    return []


@intrinsic("EmitVertex", "EndPrimitive")
def _stream(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    """GS Append / RestartStrip (the entry wrapper stored the vertex's outputs first): emitStream /
    cutStream of the stream."""
    stream = e.args[0]
    assert isinstance(stream, ir.Const)         # the entry wrapper's stream index
    L.ops.call(L.b, "EmitStream" if e.name == "EmitVertex" else "CutStream", None, [ConstInt(T.i8, stream.value)])
    return []


@intrinsic("IsHelperLane")
def _is_helper_lane(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    """dx.op.isHelperLane in a pixel shader; no other stage has helper lanes."""
    if L.ops.stage != "pixel":
        return [ConstInt(T.i1, 0)]
    return [L.ops.call(L.b, "IsHelperLane", "i1", [])]


@intrinsic("WaveGetLaneIndex", "WaveGetLaneCount", "WaveIsFirstLane")
def _wave_query(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    return [L.ops.call(L.b, e.name, None, [])]


def _wave_sign(e: ir.Intrinsic) -> int:
    return 1 if _kind(e.args[0].type) == "uint" else 0


@intrinsic(*WAVE_ACTIVE_OP, *WAVE_PREFIX_OP)
def _wave_op(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    (xs,) = _args(L, e)
    if e.name in WAVE_ACTIVE_OP:
        op_name, code = "WaveActiveOp", WAVE_ACTIVE_OP[e.name]
    else:
        op_name, code = "WavePrefixOp", WAVE_PREFIX_OP[e.name]
    extra = [ConstInt(T.i8, code), ConstInt(T.i8, _wave_sign(e))]
    return [L.ops.call(L.b, op_name, _ov(x), [x, *extra]) for x in xs]


@intrinsic(*WAVE_BIT_OP)
def _wave_bit(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    (xs,) = _args(L, e)
    return [L.ops.call(L.b, "WaveActiveBit", _ov(x), [x, ConstInt(T.i8, WAVE_BIT_OP[e.name])]) for x in xs]


@intrinsic(*QUAD_OP)
def _quad(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    (xs,) = _args(L, e)
    return [L.ops.call(L.b, "QuadOp", _ov(x), [x, ConstInt(T.i8, QUAD_OP[e.name])]) for x in xs]


@intrinsic("WaveReadLaneAt", "QuadReadLaneAt")
def _read_lane(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    xs, lane = _args(L, e)
    return [L.ops.call(L.b, e.name, _ov(x), [x, lane[0]]) for x in xs]


@intrinsic("WaveActiveAllTrue", "WaveActiveAnyTrue")
def _wave_vote(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    (xs,) = _args(L, e)
    op = "WaveAllTrue" if e.name == "WaveActiveAllTrue" else "WaveAnyTrue"
    return [L.ops.call(L.b, op, None, [xs[0]])]


@intrinsic("WaveActiveAllEqual")
def _wave_all_equal(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    (xs,) = _args(L, e)
    return [L.ops.call(L.b, "WaveActiveAllEqual", _ov(x), [x]) for x in xs]   # one bool per component


@intrinsic("WaveActiveCountBits", "WavePrefixCountBits")
def _wave_count(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    (xs,) = _args(L, e)
    op = "WaveAllBitCount" if e.name == "WaveActiveCountBits" else "WavePrefixBitCount"
    return [L.ops.call(L.b, op, None, [xs[0]])]


@intrinsic("WaveActiveBallot")
def _ballot(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    (xs,) = _args(L, e)
    r = L.ops.call(L.b, "WaveActiveBallot", None, [xs[0]])
    return [L.b.extract_value(r, k) for k in range(4)]


@intrinsic("WaveMatch")
def _wave_match(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    """waveMatch per component; a vector's lanes are those equal in every component (the masks ANDed)."""
    xs = L.expr(e.args[0])
    words: list[Value] = []
    for x in xs:
        r = L.ops.call(L.b, "WaveMatch", _ov(x), [x])
        masks: list[Value] = [L.b.extract_value(r, k) for k in range(4)]
        words = masks if not words else [L.b.and_(a, m) for a, m in zip(words, masks)]
    return words


# WaveMultiPrefixOpKind (DXIL.rst)
WAVE_MULTI_PREFIX_OP = {"WaveMultiPrefixSum": 0, "WaveMultiPrefixBitAnd": 1, "WaveMultiPrefixBitOr": 2,
                        "WaveMultiPrefixBitXor": 3, "WaveMultiPrefixProduct": 4}


@intrinsic(*WAVE_MULTI_PREFIX_OP)
def _wave_multi_prefix(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    xs, mask = L.expr(e.args[0]), L.expr(e.args[1])
    extra = [*mask, ConstInt(T.i8, WAVE_MULTI_PREFIX_OP[e.name]), ConstInt(T.i8, _wave_sign(e))]
    return [L.ops.call(L.b, "WaveMultiPrefixOp", _ov(x), [x, *extra]) for x in xs]


@intrinsic("WaveMultiPrefixCountBits")
def _wave_multi_prefix_count(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    xs, mask = L.expr(e.args[0]), L.expr(e.args[1])
    return [L.ops.call(L.b, "WaveMultiPrefixBitCount", None, [xs[0], *mask])]


@intrinsic("NonUniformResourceIndex")
def _non_uniform(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    return L.expr(e.args[0])


# ---------------------------------------------------------------- resources and atomics
@intrinsic("GetDimensions")
def _get_dimensions(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    """Buffers: the IR value is the element count (or byte size).  Textures and typed
    buffers: Eval(GetDimensions(res, [mip,] out places...)) - dx.op.getDimensions gives
    (width, height, depth/elements, levels/samples) and each place gets its component."""
    res = e.args[0]
    h = L.handle(L.resource_place(res))
    if not isinstance(e.type, ir.VoidType):
        dims = L.ops.call(L.b, "GetDimensions", None, [h, Undef(T.i32)])
        n = len(component_types(e.type))
        return [L.b.extract_value(dims, k) for k in range(n)]
    t = res.type
    while isinstance(t, ir.Array):
        t = t.elem
    assert isinstance(t, ir.Resource)   # GetDimensions is a resource method
    info = KINDS[t.kind]
    nsize = info.size_components
    outs = list(e.args[1:])
    # DXC: a mip-less texture query asks about level 0; buffers and MS textures take undef
    mip: Value = ConstInt(T.i32, 0) if info.dim not in (None, "Buffer") and not info.ms else Undef(T.i32)
    if len(outs) == nsize + 2:                     # (mip, dims..., levels)
        mip = L.convert_scalar(L.expr(outs[0])[0], ir.numeric_scalar(outs[0].type), ir.UINT)
        outs = outs[1:]
    dims = L.ops.call(L.b, "GetDimensions", None, [h, mip])
    for k, out in enumerate(outs):
        v = L.b.extract_value(dims, k if k < nsize else 3)
        L.place(out).write(L, [L.convert_scalar(v, ir.UINT, ir.numeric_scalar(out.type))])
    return []


def _atomic_place(L: FunctionLowerer, e: ir.Intrinsic) -> Place:
    p = L.place(e.args[0])
    if isinstance(p, MemPlace):
        p = p.as_addr(L)
    if isinstance(p, DynCompPlace) and isinstance(p.base, BufferPlace) and p.base.res.shape == STRUCTURED \
            and isinstance(p.base.type, ir.Vector):
        # `InterlockedAdd(buf[i][k], v)`: component k of a vector element, its offset known at run time
        b, size = p.base, p.base.type.elem.width // 8
        off = L.mul_add(p.index, size, 0)
        return BufferPlace(b.res, b.handle, b.index, p.type, b.offset,
                           off if b.dyn_offset is None else L.add(b.dyn_offset, off), row_major=b.row_major)
    picked = _picked_component(L, p)
    if picked is not None:
        return picked
    while isinstance(p, CompPlace) and isinstance(p.base, CompPlace):     # m._12 is row 0, then its component 1
        p = CompPlace(p.base.base, [p.base.comps[c] for c in p.comps], p.type)
    if isinstance(p, CompPlace) and len(p.comps) == 1 and isinstance(p.base, BufferPlace) \
            and p.base.res.shape == STRUCTURED and isinstance(p.base.type, (ir.Vector, ir.Matrix)):
        # one component of a vector or matrix in a structured buffer (`InterlockedAdd(buf[i].y, v)`,
        # `buf[i].m._12`): its own word, at its offset in the element's layout
        b = p.base
        at = component_offsets(b.type, "dx_structured", bool(b.row_major))[p.comps[0]]
        p = BufferPlace(b.res, b.handle, b.index, p.type, b.offset + at, b.dyn_offset, row_major=b.row_major)
    return p


def _picked_component(L: FunctionLowerer, p: Place) -> BufferPlace | None:
    """One component of a vector or matrix in a structured buffer reached through selections of which at least
    one is dynamic (`InterlockedAdd(buf[i][r][1], v)`, `buf[i].m[r][c]`): its own word, at the offset of the
    component the run-time indices pick (a select over the few candidates)."""
    chain, q = [], p
    while isinstance(q, (CompPlace, DynCompPlace)):
        chain.append(q)
        q = q.base
    dyns = [c for c in chain if isinstance(c, DynCompPlace)]
    if not (dyns and isinstance(q, BufferPlace) and q.res.shape == STRUCTURED
            and isinstance(q.type, (ir.Vector, ir.Matrix)) and ir.scalar_of(p.type) == p.type):
        return None
    offsets = component_offsets(q.type, "dx_structured", bool(q.row_major))
    off: Value | None = None
    for choice in itertools.product(*(range(len(d.groups)) for d in dyns)):
        picks = dict(zip(map(id, dyns), choice))
        comps = list(range(len(offsets)))
        for c in reversed(chain):
            comps = [comps[k] for k in (c.groups[picks[id(c)]] if isinstance(c, DynCompPlace) else c.comps)]
        if len(comps) != 1:
            return None
        at: Value = ConstInt(T.i32, offsets[comps[0]])
        if off is None:
            off = at
            continue
        hit: Value | None = None
        for d, g in zip(dyns, choice):
            eq = L.b.icmp("eq", d.index, ConstInt(T.i32, g))
            hit = eq if hit is None else L.b.and_(hit, eq)
        assert hit is not None
        off = L.b.select(hit, at, off)
    assert off is not None
    return BufferPlace(q.res, q.handle, q.index, p.type, q.offset, off if q.dyn_offset is None else L.add(q.dyn_offset, off),
                       row_major=q.row_major)


@intrinsic(*ATOMIC_OP, "InterlockedCompareExchange", "InterlockedCompareStore")
def _atomic(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    if _is_raw(e.args[0]):
        # RWByteAddressBuffer method: (resource, byte offset, values...); the 32-bit word at
        # coord0 = byte offset, signedness (Min/Max) from the value type
        res = L.resource_place(e.args[0])
        p: Place = BufferPlace(res.res, L.handle(res), L.expr(e.args[1])[0], e.type)
        vals = [L.expr(a)[0] for a in e.args[2:]]
        signed = _kind(e.type) == "int"
    else:
        p = _atomic_place(L, e)
        vals = [L.expr(a)[0] for a in e.args[1:]]
        signed = _kind(e.args[0].type) == "int"
    if vals[0].type == T.f32:       # InterlockedExchange of a float (SM 6.6): on its bits, as DXC lowers it
        vals[0] = L.b.bitcast(vals[0], T.i32)
        return [L.b.bitcast(v, T.f32) for v in _atomic_on(L, e, p, vals, signed)]
    return _atomic_on(L, e, p, vals, signed)


def _atomic_on(L: FunctionLowerer, e: ir.Intrinsic, p: Place, vals: list[Value], signed: bool) -> list[Value]:
    if isinstance(p, BufferPlace):
        c = buffer_coords(L, p)
        ov = _ov(vals[0])
        if ov == "i64":
            p.res.atomic64 = True
        if e.name in ATOMIC_OP:
            code = ATOMIC_OP[e.name]
            if isinstance(code, tuple):
                code = code[0] if signed else code[1]
            return [L.ops.call(L.b, "AtomicBinOp", ov, [p.handle, ConstInt(T.i32, code), *c, vals[0]])]
        return [L.ops.call(L.b, "AtomicCompareExchange", ov, [p.handle, *c, vals[0], vals[1]])]
    if isinstance(p, AddrPlace) and len(p.addrs) == 1:
        ptr = p._ptr(L, p.addrs[0])
        pt = ptr.type
        if isinstance(pt, T.PointerType) and vals[0].type != pt.pointee:   # a float cell's bits (*FloatBitwise,
            ptr = L.b.bitcast(ptr, T.pointer_to(vals[0].type, pt.addrspace))   # a float exchange)
        if e.name in ATOMIC_RMW:
            op = ATOMIC_RMW[e.name]
            if isinstance(op, tuple):
                op = op[0] if signed else op[1]
            return [L.b.atomic_rmw(op, ptr, vals[0])]
        pair = L.b.cmpxchg(ptr, vals[0], vals[1])
        return [L.b.extract_value(pair, 0)]
    if isinstance(p, DynCompPlace) and all(len(g) == 1 for g in p.groups) \
            and isinstance(base := p.base.as_addr(L) if isinstance(p.base, MemPlace) else p.base, AddrPlace):
        return _atomic_on_components(L, e, base, p, vals, signed)
    raise error(f"'{e.name}' needs a buffer element or groupshared destination")


def _atomic_on_components(L: FunctionLowerer, e: ir.Intrinsic, base: AddrPlace, p: DynCompPlace,
                          vals: list[Value], signed: bool) -> list[Value]:
    """An atomic on the component of a groupshared vector chosen at run time (`InterlockedAdd(g[i], v)`).
    DXC makes such a vector an array and indexes it; here each component is a variable of its own, so every
    component gets the atomic, the others with an operand that leaves them unchanged (the operation's
    identity; a compare-exchange of 0 with 0), and the chosen one's old value is the result.  An exchange has
    no identity: it is done in a branch per component instead."""
    if e.name == "InterlockedExchange":
        return [_exchange_on_component(L, base, p, vals[0])]
    t = vals[0].type
    assert isinstance(t, T.IntType)     # the bitwise float forms reach here only as an exchange
    width = t.width
    identity = {"add": 0, "or": 0, "xor": 0, "and": (1 << width) - 1, "min": (1 << (width - 1)) - 1,
                "umin": (1 << width) - 1, "max": -(1 << (width - 1)), "umax": 0}
    result: Value | None = None
    for g, (comp,) in enumerate(p.groups):
        hit = L.b.icmp("eq", p.index, ConstInt(T.i32, g))
        ptr = base._ptr(L, base.addrs[comp])
        if e.name in ATOMIC_RMW:
            op = ATOMIC_RMW[e.name]
            if isinstance(op, tuple):
                op = op[0] if signed else op[1]
            old = L.b.atomic_rmw(op, ptr, L.b.select(hit, vals[0], ConstInt(t, identity[op])))
        else:
            zero = ConstInt(t, 0)
            pair = L.b.cmpxchg(ptr, L.b.select(hit, vals[0], zero), L.b.select(hit, vals[1], zero))
            old = L.b.extract_value(pair, 0)
        result = old if result is None else L.b.select(hit, old, result)
    assert result is not None       # a vector has components
    return [result]


def _exchange_on_component(L: FunctionLowerer, base: AddrPlace, p: DynCompPlace, value: Value) -> Value:
    """`if (i == c) old = exchange(component c, value)` for each component c, the old values joined by phis."""
    result: Value = Undef(value.type)
    for g, (comp,) in enumerate(p.groups):
        hit = L.b.icmp("eq", p.index, ConstInt(T.i32, g))
        pre = L.b.block
        then_bb, merge = L.new_block(), L.new_block()
        L.b.cbranch(hit, then_bb, merge)
        L.seal(then_bb)
        L.set_block(then_bb)
        ptr = base._ptr(L, base.addrs[comp])
        pt = ptr.type
        if isinstance(pt, T.PointerType) and value.type != pt.pointee:     # a float cell's bits
            ptr = L.b.bitcast(ptr, T.pointer_to(value.type, pt.addrspace))
        old = L.b.atomic_rmw("xchg", ptr, value)
        then_end = L.b.block
        L.branch_to(merge)
        L.enter_join(merge)
        assert pre is not None and then_end is not None
        result = L.b.phi(value.type, [(old, then_end), (result, pre)])
    return result


# ---------------------------------------------------------------- textures
# method -> (dx.op, names of the scalar arguments after coordinates/offsets, whether a clamp operand follows)
SAMPLE_METHODS = {
    "Sample": ("Sample", (), True), "SampleBias": ("SampleBias", ("bias",), True),
    "SampleLevel": ("SampleLevel", ("lod",), False), "SampleGrad": ("SampleGrad", ("ddx", "ddy"), True),
    "SampleCmp": ("SampleCmp", ("cmp",), True), "SampleCmpLevelZero": ("SampleCmpLevelZero", ("cmp",), False),
    "SampleCmpLevel": ("SampleCmpLevel", ("cmp", "lod"), False),
    "SampleCmpBias": ("SampleCmpBias", ("cmp", "bias"), True), "SampleCmpGrad": ("SampleCmpGrad", ("cmp", "ddx", "ddy"), True),
}


def _texture_kind(L: FunctionLowerer, e: ir.Expr) -> ResourceKind:
    """The resource-kind row of a texture operand (coordinate and offset counts, MS)."""
    t = e.type
    while isinstance(t, ir.Array):
        t = t.elem
    assert isinstance(t, ir.Resource)   # a texture operand
    info = KINDS.get(t.kind)
    if info is None or info.dim in (None, "Buffer"):
        raise error(f"'{t}' is not a texture")
    return info


def _pad(vals: list[Value], n: int, t: T.Type) -> list[Value]:
    return vals[:n] + [Undef(t)] * (n - len(vals[:n]))


def _offsets(vals: list[Value], used: int, slots: int) -> list[Value]:
    """Sample/Gather texel offsets as DXC writes them: an omitted offset is 0 in each
    dimension the texture has (not undef); dimensions it lacks are undef."""
    given = vals[:used] or [ConstInt(T.i32, 0)] * used
    return given + [Undef(T.i32)] * (slots - used)


# DXC clamps an immediate SampleBias bias to D3D's [MinMipLodBias, MaxMipLodBias] (-16, 15.99f)
MIP_LOD_BIAS_RANGE = (-16.0, 15.99)


def _clamp_bias(bias: Value) -> Value:
    lo, hi = MIP_LOD_BIAS_RANGE
    if isinstance(bias, ConstFloat) and not lo <= bias.value <= hi:
        return ConstFloat(bias.type, min(max(bias.value, lo), hi))
    return bias


@intrinsic("WithStatus")
def _with_status(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    """WithStatus(texture read, status place): the read, and the fifth element of its ResRet stored."""
    rets: list[Value] = []
    token = RESRETS.set(rets)
    try:
        vals = L.expr(e.args[0])
    finally:
        RESRETS.reset(token)
    if not rets:
        raise error(f"the status of '{e.args[0]}' is not supported by the DXIL backend")
    status: Value = L.b.extract_value(rets[0], 4)
    for rr in rets[1:]:     # four-offset gathers: the first status not fully mapped, else the last
        nxt = L.b.extract_value(rr, 4)
        status = L.b.select(L.ops.call(L.b, "CheckAccessFullyMapped", "i32", [status]), nxt, status)
    L.place(e.args[1]).write(L, [status])
    return vals


@intrinsic("printf")
def _printf(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    """DXIL has no printf: the call is dropped, as DXC does (its arguments have no side effects)."""
    return []


@intrinsic("GetRenderTargetSampleCount")
def _render_target_sample_count(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    return [L.ops.call(L.b, "RenderTargetGetSampleCount", None, [])]


@intrinsic("GetRenderTargetSamplePosition")
def _render_target_sample_position(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    return _sample_pos(L, "RenderTargetGetSamplePosition", [L.expr(e.args[0])[0]])


@intrinsic("GetSamplePosition")
def _ms_sample_position(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    """Texture2DMS(Array).GetSamplePosition(i): texture2DMSGetSamplePosition on the texture's handle."""
    tex = L.handle(L.resource_place(e.args[0]))
    return _sample_pos(L, "Texture2DMSGetSamplePosition", [tex, L.expr(e.args[1])[0]])


def _sample_pos(L: FunctionLowerer, op: str, args: list[Value]) -> list[Value]:
    """The (x, y) of the SamplePos the sample-position op `op` returns for `args`."""
    pos = L.ops.call(L.b, op, None, args)
    return [L.b.extract_value(pos, 0), L.b.extract_value(pos, 1)]


@intrinsic("CheckAccessFullyMapped")
def _check_access_fully_mapped(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    return [L.ops.call(L.b, "CheckAccessFullyMapped", "i32", [L.expr(e.args[0])[0]])]


@intrinsic(*SAMPLE_METHODS)
def _sample(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    """tex.Sample*(sampler, location, [extra...], [offset]) -> ResRet components."""
    op, extra_names, has_clamp = SAMPLE_METHODS[e.name]
    kind = _texture_kind(L, e.args[0])
    ncoord, noff = kind.coords, kind.offsets
    tex = L.handle(L.resource_place(e.args[0]))
    samp = L.handle(L.resource_place(e.args[1]))
    coords = L.expr(e.args[2])
    rest = e.args[3:]
    extra: list[Value] = []
    for name in extra_names:
        assert rest, name       # (sema checks each Sample* method's argument count: resources.py _arity)
        vals = L.expr(rest[0])
        rest = rest[1:]
        extra += _pad(vals, 3, T.f32) if name in ("ddx", "ddy") else vals[:1]
    offsets: list[Value] = []
    if rest and ir.numeric_scalar(rest[0].type).kind == "int":
        offsets, rest = L.expr(rest[0]), rest[1:]
    if e.name == "SampleBias":
        extra = [_clamp_bias(extra[0])]
    elif e.name == "SampleCmpBias":
        extra = [extra[0], _clamp_bias(extra[1])]
    args = [tex, samp, *_pad(coords, ncoord, T.f32), *[Undef(T.f32)] * (4 - ncoord),
            *_offsets(offsets, noff, 3), *extra]
    if has_clamp:
        args.append(L.expr(rest[0])[0] if rest else Undef(T.f32))      # the level-of-detail clamp
    n = len(component_types(e.type))
    ov = overload_name(llvm_scalar(ir.numeric_scalar(e.type)))
    rr = resret(L.ops.call(L.b, op, ov, args))
    return [L.b.extract_value(rr, k) for k in range(n)]


@intrinsic("IncrementCounter", "DecrementCounter")
def _update_counter(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    """The hidden counter of a RWStructuredBuffer: bufferUpdateCounter with +1 / -1."""
    res = L.resource_place(e.args[0])
    res.res.has_counter = True
    step = 1 if e.name == "IncrementCounter" else 0xFF      # i8 -1
    return [L.ops.call(L.b, "BufferUpdateCounter", None, [L.handle(res), ConstInt(T.i8, step)])]


@intrinsic("Append", "Consume")
def _append_consume(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    """Append(v): store at the counter's value before the increment; Consume(): load at its value after
    the decrement (bufferUpdateCounter returns exactly those), as DXC lowers them."""
    res = L.resource_place(e.args[0])
    res.res.has_counter = True
    handle = L.handle(res)
    append = e.name == "Append"
    index = L.ops.call(L.b, "BufferUpdateCounter", None, [handle, ConstInt(T.i8, 1 if append else 0xFF)])
    place = BufferPlace(res.res, handle, index, e.args[1].type if append else e.type)
    if append:
        L.buffers.write(place, L.expr(e.args[1]), None)
        return []
    return L.buffers.read(place)


GATHER_CHANNELS = {"Gather": 0, "GatherRed": 0, "GatherGreen": 1, "GatherBlue": 2, "GatherAlpha": 3}


GATHER_CMP_CHANNELS = {"GatherCmp": 0, "GatherCmpRed": 0, "GatherCmpGreen": 1, "GatherCmpBlue": 2, "GatherCmpAlpha": 3}


@intrinsic(*GATHER_CHANNELS, *GATHER_CMP_CHANNELS)
def _gather(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    """tex.Gather*(sampler, location[, offset]) -> textureGather with the channel operand;
    tex.GatherCmp*(sampler, location, compare value[, offset]) -> textureGatherCmp (the compare value last)."""
    cmp = e.name in GATHER_CMP_CHANNELS
    kind = _texture_kind(L, e.args[0])
    ncoord, noff = kind.coords, kind.offsets
    tex = L.handle(L.resource_place(e.args[0]))
    samp = L.handle(L.resource_place(e.args[1]))
    coords = L.expr(e.args[2])
    at = 4 if cmp else 3
    per_texel = [L.expr(a) for a in e.args[at:]] if noff else []
    ov = overload_name(llvm_scalar(ir.numeric_scalar(e.type)))

    def gather(offsets: list[Value]) -> Value:
        args = [tex, samp, *_pad(coords, ncoord, T.f32), *[Undef(T.f32)] * (4 - ncoord),
                *_offsets(offsets, min(noff, 2), 2),
                ConstInt(T.i32, (GATHER_CMP_CHANNELS if cmp else GATHER_CHANNELS)[e.name])]
        if cmp:
            args.append(L.expr(e.args[3])[0])
        return L.ops.call(L.b, "TextureGatherCmp" if cmp else "TextureGather", ov, args)
    if len(per_texel) == 4:     # one offset per texel: four gathers, texel k from the k-th (as DXC)
        return [L.b.extract_value(resret(gather(per_texel[k])), k) for k in range(4)]
    rr = resret(gather(per_texel[0] if per_texel else []))
    return [L.b.extract_value(rr, k) for k in range(4)]


@intrinsic("CalculateLevelOfDetail", "CalculateLevelOfDetailUnclamped")
def _calculate_lod(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    tex = L.handle(L.resource_place(e.args[0]))
    samp = L.handle(L.resource_place(e.args[1]))
    coords = _pad(L.expr(e.args[2]), 3, T.f32)
    clamped = ConstInt(T.i1, int(e.name == "CalculateLevelOfDetail"))
    return [L.ops.call(L.b, "CalculateLOD", "f32", [tex, samp, *coords, clamped])]


def _raw_place(L: FunctionLowerer, e: ir.Intrinsic) -> BufferPlace:
    """The bytes at `address` of a [RW]ByteAddressBuffer, typed as the IR value (`Load<T>` etc.)."""
    res = L.resource_place(e.args[0])
    t = e.type if e.name == "Load" else e.args[2].type
    return BufferPlace(res.res, L.handle(res), L.expr(e.args[1])[0], t)


def _is_raw(e: ir.Expr) -> bool:
    t = e.type
    while isinstance(t, ir.Array):
        t = t.elem
    return isinstance(t, ir.Resource) and KINDS[t.kind].rep == "raw"


def _is_buffer(e: ir.Expr) -> bool:
    t = e.type
    while isinstance(t, ir.Array):
        t = t.elem
    return isinstance(t, ir.Resource) and (KINDS[t.kind].rep == "structured" or KINDS[t.kind].dim == "Buffer")


@intrinsic("Store")
def _raw_store(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    """buf.Store*(address, value) -> rawBufferStore / bufferStore on the raw buffer."""
    L.buffers.write(_raw_place(L, e), L.expr(e.args[2]), None)
    return []


@intrinsic("Load")
def _texture_load(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    """tex.Load(int3(x, y, mip) [, offset]) -> TextureLoad; raw buffers -> rawBufferLoad."""
    if _is_raw(e.args[0]):
        return L.buffers.read(_raw_place(L, e))
    if _is_buffer(e.args[0]):      # Buffer / StructuredBuffer.Load(index, status): element `index`
        res = L.resource_place(e.args[0])
        return L.buffers.read(BufferPlace(res.res, L.handle(res), L.expr(e.args[1])[0], e.type))
    kind = _texture_kind(L, e.args[0])
    ncoord, noff = kind.coords, kind.offsets
    res = L.resource_place(e.args[0])
    loc = L.expr(e.args[1])
    is_uav = res.res.res_class == "UAV"
    ms = kind.ms            # Texture2DMS[Array].Load(coord, sample [, offset]): the sample index takes the mip slot
    mip = L.expr(e.args[2])[0] if ms else Undef(T.i32) if is_uav else loc[ncoord]
    first_offset = 3 if ms else 2
    offsets = L.expr(e.args[first_offset]) if len(e.args) > first_offset and noff else []
    args = [L.handle(res), mip, *_pad(loc, ncoord, T.i32), *[Undef(T.i32)] * (3 - ncoord),
            *_pad(offsets, noff, T.i32), *[Undef(T.i32)] * (3 - noff)]
    n = len(component_types(e.type))
    rr = resret(L.ops.call(L.b, "TextureLoad", overload_name(llvm_scalar(ir.numeric_scalar(e.type))), args))
    return [L.b.extract_value(rr, k) for k in range(n)]


# POLYFILLED (polyfills.py): the table entries passes/polyfill.py expands for this backend; every
# other entry has a handler here (tests/ir/test_intrinsic_coverage.py)
# table entries this backend refuses, with the reason (none today)
UNSUPPORTED_INTRINSICS: dict[str, str] = {}


def _system_value_or_method(system_value: Handler, method: Handler) -> Handler:
    """RayTMin, RayFlags, WorldRayOrigin, WorldRayDirection: a DXR system value without operands, a
    RayQuery method with the query as its first."""
    return lambda L, e: method(L, e) if e.args else system_value(L, e)


_RAY_HANDLERS_ADDED = False


def _add_ray_handlers() -> bool:
    """Put the DXR (raytracing.py) and RayQuery (rayquery.py) handlers into the table, once: on the
    first intrinsic the table lacks, so that a shader without them does not import those modules.
    False when they were in already."""
    global _RAY_HANDLERS_ADDED
    if _RAY_HANDLERS_ADDED:
        return False
    _RAY_HANDLERS_ADDED = True
    from .rayquery import RAYQUERY_HANDLERS
    from .raytracing import RAY_HANDLERS

    _HANDLERS.update(RAY_HANDLERS)
    _HANDLERS.update(RAYQUERY_HANDLERS)
    for name in set(RAY_HANDLERS) & set(RAYQUERY_HANDLERS):
        _HANDLERS[name] = _system_value_or_method(RAY_HANDLERS[name], RAYQUERY_HANDLERS[name])
    return True


def __getattr__(name: str) -> object:
    if name == "NATIVE_INTRINSICS":     # every intrinsic with a handler, the ray-tracing ones included
        _add_ray_handlers()
        return frozenset(_HANDLERS)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def lower_intrinsic(L: FunctionLowerer, e: ir.Intrinsic) -> list[Value]:
    h = _HANDLERS.get(e.name)
    if h is None and _add_ray_handlers():
        h = _HANDLERS.get(e.name)
    if h is None:
        raise error(f"intrinsic '{e.name}' is not supported by the DXIL backend yet")
    return h(L, e)
