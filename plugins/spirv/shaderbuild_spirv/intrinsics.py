"""HLSL intrinsics -> SPIR-V: one dispatch table, name -> lowering function.

IR intrinsic names are the HLSL names; the front end has already picked the
overload (arguments converted, result type in `.type`).  Math goes through
GLSL.std.450 where it has an instruction; capabilities are requested by the
entries that need them.  Matrices use DXC's transposed representation, so
`mul` swaps operands (seed 002 "Vectors and matrices").
"""

from __future__ import annotations

import math

from shaderbuild.diagnostics import error
from shaderbuild.ir.intrinsics import RAYQUERY_METHODS
from shaderbuild.ir.nodes import Binary, Bitcast, Const, Convert, IndexRef, Intrinsic, Load
from shaderbuild.ir.types import (
    BOOL,
    FLOAT,
    INT,
    UINT,
    Array,
    Matrix,
    Resource,
    Scalar,
    Type,
    Vector,
    numeric_scalar,
    scalar_of,
)

from .builder import enum, inst
from .emit_expr import ExprEmitter, ImagePlace, Ptr, SwizzlePlace, ncomp, with_scalar
from .emit_types import matrix_shape
from .polyfills import POLYFILLED
from .vulkan import (
    BEGIN_INTERLOCK,
    END_INTERLOCK,
    PATCH_BARRIER,
    UNSUPPORTED_INTRINSICS,
    compute_derivatives,
    compute_quads,
)

TYPE_CHECKING = False
if TYPE_CHECKING:       # no typing at run time (~2 ms of a cold compile, issue 23)
    from collections.abc import Callable
    from typing import TypeGuard

    NATIVE_INTRINSICS: frozenset[str]       # (module __getattr__ below)

if TYPE_CHECKING:      # a type alias: for type checkers only (no collections.abc at run time)
    Lowering = Callable[[ExprEmitter, Intrinsic], "int | None"]
TABLE: dict[str, Lowering] = {}


def lower_intrinsic(fe: ExprEmitter, e: Intrinsic) -> int | None:
    fn = TABLE.get(e.name)
    if fn is None and _add_resource_methods():
        fn = TABLE.get(e.name)
    if fn is None:
        raise error(f"intrinsic '{e.name}' is not supported by the SPIR-V backend")
    return fn(fe, e)


_RESOURCE_METHODS_ADDED = False


def _add_resource_methods() -> bool:
    """Put the resource methods (resource_ops.py: Sample, Load, GetDimensions, ...) into TABLE, once: on
    the first name the table lacks, so that a shader calling no resource method does not import that
    module (issue 23; no other entry has their names).  False when they were in already."""
    global _RESOURCE_METHODS_ADDED
    if _RESOURCE_METHODS_ADDED:
        return False
    _RESOURCE_METHODS_ADDED = True
    from .resource_ops import RESOURCE_METHODS

    TABLE.update(RESOURCE_METHODS)
    return True


def _ray_query(fe: ExprEmitter, e: Intrinsic) -> int | None:
    """A RayQuery method: rayquery.py is imported when a shader calls one (cold start, issue 15)."""
    from .rayquery import RAYQUERY_LOWERINGS

    return RAYQUERY_LOWERINGS[e.name](fe, e)


def _args(fe: ExprEmitter, e: Intrinsic) -> list[int]:
    return [fe.expr(a) for a in e.args]


def _kind(e: Intrinsic, i: int = 0) -> str:
    return numeric_scalar(e.args[i].type).kind


def _is_matrix(t: Type) -> TypeGuard[Matrix]:
    return isinstance(t, Matrix) and matrix_shape(t) in ("matrix", "array")


def _per_row(fe: ExprEmitter, e: Intrinsic, fn: Callable[[Type, list[int]], int]) -> int:
    """Apply fn(result_type, arg_ids) per matrix row when the result is a matrix."""
    ids = _args(fe, e)
    if _is_matrix(e.type) and all(_is_matrix(a.type) for a in e.args):
        return fe.componentwise(e.type, lambda rt, *xs: fn(rt, list(xs)), *zip((a.type for a in e.args), ids))
    return fn(e.type, ids)


# ---------------------------------------------------------------- GLSL.std.450

def _glsl(name: str) -> Lowering:
    return lambda fe, e: _per_row(fe, e, lambda rt, xs: fe.ext(name, rt, *xs))


def _glsl_by_kind(names: dict[str, str | None]) -> Lowering:
    def lower(fe: ExprEmitter, e: Intrinsic) -> int:
        k = _kind(e)
        if k not in names:
            raise error(f"'{e.name}' is not defined for {e.args[0].type}")
        name = names[k]
        if name is None:     # identity (abs of unsigned)
            return fe.expr(e.args[0])
        return _per_row(fe, e, lambda rt, xs: fe.ext(name, rt, *xs))
    return lower


def _sign(fe: ExprEmitter, e: Intrinsic) -> int:
    k = _kind(e)
    elem = scalar_of(e.args[0].type)
    assert elem is not None

    def row(rt: Type, xs: list[int]) -> int:     # per row of a matrix (FSign/SSign take no matrices)
        t = with_scalar(rt, elem)
        if k == "uint":
            return fe.convert(fe.op("OpINotEqual", fe.tid(with_scalar(t, BOOL)), xs[0], fe.const(t, 0)),
                              with_scalar(t, BOOL), rt)
        return fe.convert(fe.ext({"float": "FSign", "int": "SSign"}[k], t, xs[0]), t, rt)
    return _per_row(fe, e, row)


def _fma_or_muladd(fe: ExprEmitter, e: Intrinsic) -> int:
    if _kind(e) == "float":
        return _per_row(fe, e, lambda rt, xs: fe.ext("Fma", rt, *xs))
    # per row of an integer matrix too (OpIMul/OpIAdd take no matrices)
    return _per_row(fe, e, lambda rt, xs: fe.op("OpIAdd", fe.tid(rt), fe.op("OpIMul", fe.tid(rt), xs[0], xs[1]), xs[2]))


def _log10(fe: ExprEmitter, e: Intrinsic) -> int:
    def f(rt, xs):
        return fe.op("OpFMul", fe.tid(rt), fe.ext("Log2", rt, *xs), fe.const(rt, math.log10(2.0)))
    return _per_row(fe, e, f)


def _rcp(fe: ExprEmitter, e: Intrinsic) -> int:
    return _per_row(fe, e, lambda rt, xs: fe.op("OpFDiv", fe.tid(rt), fe.const(rt, 1.0), xs[0]))


def _saturate(fe: ExprEmitter, e: Intrinsic) -> int:
    return _per_row(fe, e, lambda rt, xs: fe.ext("FClamp", rt, xs[0], fe.const(rt, 0.0), fe.const(rt, 1.0)))


def _fmod(fe: ExprEmitter, e: Intrinsic) -> int:
    return _per_row(fe, e, lambda rt, xs: fe.op("OpFRem", fe.tid(rt), *xs))


def _matrix_parts(fe: ExprEmitter, inst: str, x: int, t: Matrix, second: Matrix) -> tuple[int, int]:
    """The two members of GLSL.std.450 FrexpStruct/ModfStruct of a matrix, per row (they take no matrices)."""
    ft, it = Vector(t.elem, t.cols), Vector(second.elem, second.cols)
    st = fe.T.b.type("OpTypeStruct", fe.tid(ft), fe.tid(it))
    firsts, seconds = [], []
    for row in range(t.rows):
        r = fe.op("OpExtInst", st, fe.b.glsl_std_450(), fe.b.ext_inst_number(inst),
                  fe.op("OpCompositeExtract", fe.tid(ft), x, row))
        firsts.append(fe.op("OpCompositeExtract", fe.tid(ft), r, 0))
        seconds.append(fe.op("OpCompositeExtract", fe.tid(it), r, 1))
    return fe.op("OpCompositeConstruct", fe.tid(t), *firsts), fe.op("OpCompositeConstruct", fe.tid(second), *seconds)


def _frexp(fe: ExprEmitter, e: Intrinsic) -> int:
    x = fe.expr(e.args[0])
    t = e.args[0].type
    it = with_scalar(t, INT)
    out = e.args[1]
    if _is_matrix(t):
        assert isinstance(it, Matrix)
        mantissa, exp = _matrix_parts(fe, "FrexpStruct", x, t, it)
        fe.store(fe.place(out), fe.convert(exp, it, out.type))
        return mantissa
    st = fe.T.b.type("OpTypeStruct", fe.tid(t), fe.tid(it))
    r = fe.op("OpExtInst", st, fe.b.glsl_std_450(), fe.b.ext_inst_number("FrexpStruct"), x)
    exp = fe.op("OpCompositeExtract", fe.tid(it), r, 1)
    fe.store(fe.place(out), fe.convert(exp, it, out.type))
    return fe.op("OpCompositeExtract", fe.tid(t), r, 0)


def _modf(fe: ExprEmitter, e: Intrinsic) -> int:
    x = fe.expr(e.args[0])
    t = e.args[0].type
    if _is_matrix(t):
        frac, whole = _matrix_parts(fe, "ModfStruct", x, t, t)
        fe.store(fe.place(e.args[1]), whole)
        return frac
    st = fe.T.b.type("OpTypeStruct", fe.tid(t), fe.tid(t))
    r = fe.op("OpExtInst", st, fe.b.glsl_std_450(), fe.b.ext_inst_number("ModfStruct"), x)
    fe.store(fe.place(e.args[1]), fe.op("OpCompositeExtract", fe.tid(t), r, 1))
    return fe.op("OpCompositeExtract", fe.tid(t), r, 0)


def _op(opname: str) -> Lowering:
    return lambda fe, e: _per_row(fe, e, lambda rt, xs: fe.op(opname, fe.tid(rt), *xs))


def _check_access_fully_mapped(fe: ExprEmitter, e: Intrinsic) -> int:
    """The status of a WithStatus read is its residency code (resource_ops._with_status)."""
    fe.b.capability("SparseResidency")
    code = fe.op("OpBitcast", fe.tid(INT), fe.expr(e.args[0]))
    return fe.op("OpImageSparseTexelsResident", fe.tid(e.type), code)


def _printf(fe: ExprEmitter, e: Intrinsic) -> int:
    """NonSemantic.DebugPrintf's DebugPrintf (instruction 1): the format as an OpString, then the values,
    as DXC emits it (drivers and the validation layer's printf read it; others ignore a non-semantic set)."""
    b = fe.b
    if b.version < (1, 6):
        b.extension("SPV_KHR_non_semantic_info")
    fmt = e.args[0]
    assert isinstance(fmt, Const) and isinstance(fmt.value, str)     # sema: special_printf
    sid = b.new_id()
    b.strings += inst("OpString", [sid, fmt.value])
    values = [fe.expr(a) for a in e.args[1:]]
    return fe.op("OpExtInst", fe.T.void(), b.ext_import("NonSemantic.DebugPrintf"), 1, sid, *values)


def _isfinite(fe: ExprEmitter, e: Intrinsic) -> int:
    def row(rt: Type, xs: list[int]) -> int:     # per row of a matrix (OpIsNan/OpIsInf take no matrices)
        t = fe.tid(rt)
        return fe.op("OpLogicalNot", t, fe.op("OpLogicalOr", t, fe.op("OpIsNan", t, xs[0]), fe.op("OpIsInf", t, xs[0])))
    return _per_row(fe, e, row)


def _all_any(opname: str, combine: str) -> Lowering:
    def lower(fe: ExprEmitter, e: Intrinsic) -> int:
        t = e.args[0].type
        x = fe.convert(fe.expr(e.args[0]), t, with_scalar(t, BOOL))
        if _is_matrix(t):
            rows = [fe.op(opname, fe.tid(BOOL), fe.op("OpCompositeExtract", fe.tid(Vector(BOOL, t.cols)), x, r))
                    for r in range(t.rows)]
            acc = rows[0]
            for r in rows[1:]:
                acc = fe.op(combine, fe.tid(BOOL), acc, r)
            return acc
        return x if ncomp(t) == 1 else fe.op(opname, fe.tid(BOOL), x)
    return lower


def _f32tof16(fe: ExprEmitter, e: Intrinsic) -> int:
    x = fe.expr(e.args[0])
    v2 = fe.tid(Vector(FLOAT, 2))

    def one(c: int) -> int:
        packed = fe.ext("PackHalf2x16", UINT, fe.op("OpCompositeConstruct", v2, c, fe.const(FLOAT, 0.0)))
        fe.b.decorate(packed, "NoContraction")    # it rounds to half: not folded away with an unpack (emit_expr.convert)
        return packed
    return _map_components(fe, e.args[0].type, e.type, x, one)


def _f16tof32(fe: ExprEmitter, e: Intrinsic) -> int:
    x = fe.expr(e.args[0])

    def one(c: int) -> int:
        return fe.op("OpCompositeExtract", fe.tid(FLOAT), fe.ext("UnpackHalf2x16", Vector(FLOAT, 2), c), 0)
    return _map_components(fe, e.args[0].type, e.type, x, one)


def _map_components(fe: ExprEmitter, at: Type, rt: Type, x: int, one: Callable[[int], int]) -> int:
    comps = [one(c) for c in fe.flatten(at, x)]
    return comps[0] if len(comps) == 1 else fe.op("OpCompositeConstruct", fe.tid(rt), *comps)


def _halves(fe: ExprEmitter, t: Type, x: int) -> tuple[Type, int, int]:
    """(32-bit uint type of t's shape, low word, high word) of a 64-bit integer value."""
    u64 = with_scalar(t, Scalar("uint", 64))
    if numeric_scalar(t).kind == "int":
        x = fe.op("OpBitcast", fe.tid(u64), x)
    u32 = with_scalar(t, UINT)
    lo = fe.op("OpUConvert", fe.tid(u32), x)
    hi = fe.op("OpUConvert", fe.tid(u32), fe.op("OpShiftRightLogical", fe.tid(u64), x, fe.const(u64, 32)))
    return u32, lo, hi


def _bits64(fe: ExprEmitter, e: Intrinsic) -> int:
    """countbits / firstbithigh / firstbitlow / reversebits on 64-bit integers, from 32-bit halves
    (Vulkan's BitCount, BitReverse and Find*sb only take 32-bit operands)."""
    t = e.args[0].type
    x = fe.expr(e.args[0])
    if e.name == "firstbithigh" and numeric_scalar(t).kind == "int":    # FindSMsb(x) == FindUMsb(x < 0 ? ~x : x)
        neg = fe.op("OpSLessThan", fe.tid(with_scalar(t, BOOL)), x, fe.const(t, 0))
        x = fe.op("OpSelect", fe.tid(t), neg, fe.op("OpNot", fe.tid(t), x), x)
    u32, lo, hi = _halves(fe, t, x)
    ut = fe.tid(u32)
    if e.name == "countbits":
        r = fe.op("OpIAdd", ut, fe.op("OpBitCount", ut, lo), fe.op("OpBitCount", ut, hi))
        return fe.convert(r, u32, e.type)
    if e.name == "reversebits":                 # the reversed low word becomes the high word
        u64 = with_scalar(t, Scalar("uint", 64))
        new_hi = fe.op("OpUConvert", fe.tid(u64), fe.op("OpBitReverse", ut, lo))
        new_lo = fe.op("OpUConvert", fe.tid(u64), fe.op("OpBitReverse", ut, hi))
        r = fe.op("OpBitwiseOr", fe.tid(u64), fe.op("OpShiftLeftLogical", fe.tid(u64), new_hi, fe.const(u64, 32)),
                  new_lo)
        return fe.convert(r, u64, e.type)
    bt = fe.tid(with_scalar(t, BOOL))
    if e.name == "firstbithigh":
        hi_set = fe.op("OpINotEqual", bt, hi, fe.const(u32, 0))
        from_hi = fe.op("OpIAdd", ut, fe.ext("FindUMsb", u32, hi), fe.const(u32, 32))
        r = fe.op("OpSelect", ut, hi_set, from_hi, fe.ext("FindUMsb", u32, lo))
    else:
        lo_set = fe.op("OpINotEqual", bt, lo, fe.const(u32, 0))
        hi_set = fe.op("OpINotEqual", bt, hi, fe.const(u32, 0))
        from_hi = fe.op("OpSelect", ut, hi_set, fe.op("OpIAdd", ut, fe.ext("FindILsb", u32, hi), fe.const(u32, 32)),
                        fe.const(u32, 0xFFFFFFFF))
        r = fe.op("OpSelect", ut, lo_set, fe.ext("FindILsb", u32, lo), from_hi)
    return fe.convert(r, u32, e.type)


def _wide(narrow: Lowering) -> Lowering:
    """Use the 64-bit split for 64-bit operands, `narrow` otherwise."""
    def lower(fe: ExprEmitter, e: Intrinsic) -> int | None:
        width = numeric_scalar(e.args[0].type).width
        if width == 16:
            return fe.expr(_bits16(e))
        return (_bits64 if width == 64 else narrow)(fe, e)
    return lower


def _bits16(e: Intrinsic) -> Intrinsic | Bitcast:
    """A bit intrinsic of 16-bit operands on 32-bit ones (Vulkan's bit instructions take 32-bit operands):
    zero-extended (firstbithigh of a signed value: sign-extended); reversebits reverses the 32 bits and keeps
    the high half."""
    t = e.args[0].type
    s = numeric_scalar(t)
    u16, u32 = with_scalar(t, Scalar("uint", 16)), with_scalar(t, UINT)
    if e.name == "firstbithigh" and s.kind == "int":
        return Intrinsic(e.name, [Convert(e.args[0], with_scalar(t, INT))], e.type)
    bits = e.args[0] if s.kind == "uint" else Bitcast(e.args[0], u16)
    wide = Convert(bits, u32)
    if e.name != "reversebits":
        return Intrinsic(e.name, [wide], e.type)
    high = Binary("shr", Intrinsic("reversebits", [wide], u32), Const(UINT, 16), u32)
    narrowed = Convert(high, u16)
    return narrowed if s.kind == "uint" else Bitcast(narrowed, e.type)       # type: ignore[return-value]


def _firstbit(signed_name: str, unsigned_name: str) -> Lowering:
    def lower(fe: ExprEmitter, e: Intrinsic) -> int:
        name = signed_name if _kind(e) == "int" else unsigned_name
        return fe.ext(name, e.type, fe.expr(e.args[0]))
    return lower


def _transpose(fe: ExprEmitter, e: Intrinsic) -> int:
    t = e.args[0].type
    x = fe.expr(e.args[0])
    if isinstance(t, Matrix) and matrix_shape(t) == "matrix":
        return fe.op("OpTranspose", fe.tid(e.type), x)    # transposed representation: still a transpose
    comps = fe.flatten(t, x)
    rows, cols = (t.rows, t.cols) if isinstance(t, Matrix) else (1, ncomp(t))
    tr = [comps[r * cols + c] for c in range(cols) for r in range(rows)]
    return fe.construct(e.type, [(numeric_scalar(t), c) for c in tr])


def _determinant(fe: ExprEmitter, e: Intrinsic) -> int:
    t = e.args[0].type      # (sema: a square half or float matrix; a scalar argument is no call at all)
    if isinstance(t, Matrix) and t.rows == t.cols == 1:
        return fe.expr(e.args[0])
    return fe.ext("Determinant", e.type, fe.expr(e.args[0]))


# ---------------------------------------------------------------- dot / mul

def _dot_ids(fe: ExprEmitter, t: Type, a: int, b: int) -> int:
    s = numeric_scalar(t)
    if ncomp(t) == 1:
        return fe.op("OpFMul" if s.kind == "float" else "OpIMul", fe.tid(s), a, b)
    if s.kind == "float":
        return fe.op("OpDot", fe.tid(s), a, b)
    prods = [fe.op("OpIMul", fe.tid(s), x, y) for x, y in zip(fe.flatten(t, a), fe.flatten(t, b))]
    acc = prods[0]
    for p in prods[1:]:
        acc = fe.op("OpIAdd", fe.tid(s), acc, p)
    return acc


def _dot(fe: ExprEmitter, e: Intrinsic) -> int:
    a, b = _args(fe, e)
    return _dot_ids(fe, e.args[0].type, a, b)


def _rank(t: Type) -> int:
    return 0 if isinstance(t, Scalar) else 1 if isinstance(t, Vector) else 2


def _grid(fe: ExprEmitter, t: Type, v: int, as_row: bool) -> list[list[int]]:
    comps = fe.flatten(t, v)
    if isinstance(t, Matrix):
        return [comps[r * t.cols:(r + 1) * t.cols] for r in range(t.rows)]
    return [comps] if as_row else [[c] for c in comps]


def _mul(fe: ExprEmitter, e: Intrinsic) -> int:
    at, bt = e.args[0].type, e.args[1].type
    a, b = _args(fe, e)
    s = numeric_scalar(e.type)
    is_float = s.kind == "float"
    ra, rb = _rank(at), _rank(bt)
    rt = fe.tid(e.type)
    if ra == 0 or rb == 0:
        (st, sv), (ot, ov) = ((at, a), (bt, b)) if ra == 0 else ((bt, b), (at, a))
        if _rank(ot) == 0:
            return fe.op("OpFMul" if is_float else "OpIMul", rt, sv, ov)
        if is_float and isinstance(ot, Vector):
            return fe.op("OpVectorTimesScalar", rt, ov, sv)
        if is_float and isinstance(ot, Matrix) and matrix_shape(ot) == "matrix":
            return fe.op("OpMatrixTimesScalar", rt, ov, sv)
        if isinstance(ot, Matrix) and _is_matrix(ot):
            return fe.componentwise(e.type, lambda r, x: fe.op("OpFMul" if is_float else "OpIMul", fe.tid(r), x,
                                                                fe.splat(sv, r)), (ot, ov))
        return fe.op("OpFMul" if is_float else "OpIMul", rt, ov, fe.splat(sv, ot))
    if ra == 1 and rb == 1:
        return _dot_ids(fe, at, a, b)
    if is_float:
        am = isinstance(at, Matrix) and matrix_shape(at) == "matrix"
        bm = isinstance(bt, Matrix) and matrix_shape(bt) == "matrix"
        if ra == 1 and bm:
            return fe.op("OpMatrixTimesVector", rt, b, a)
        if am and rb == 1:
            return fe.op("OpVectorTimesMatrix", rt, b, a)
        if am and bm and _is_matrix(e.type):
            return fe.op("OpMatrixTimesMatrix", rt, b, a)
    # general case (integers, 1xN / Nx1 matrices): sum of products per element
    ga, gb = _grid(fe, at, a, True), _grid(fe, bt, b, False)
    mul_op, add_op = ("OpFMul", "OpFAdd") if is_float else ("OpIMul", "OpIAdd")
    sid = fe.tid(s)
    out = []
    for row in ga:
        for c in range(len(gb[0])):
            acc = None
            for k, x in enumerate(row):
                p = fe.op(mul_op, sid, x, gb[k][c])
                acc = p if acc is None else fe.op(add_op, sid, acc, p)
            assert acc is not None      # rows are not empty
            out.append(acc)
    return fe.construct(e.type, [(s, c) for c in out])


# ---------------------------------------------------------------- atomics

_ATOMICS = {
    "InterlockedAdd": {"int": "OpAtomicIAdd", "uint": "OpAtomicIAdd"},
    "InterlockedAnd": {"int": "OpAtomicAnd", "uint": "OpAtomicAnd"},
    "InterlockedOr": {"int": "OpAtomicOr", "uint": "OpAtomicOr"},
    "InterlockedXor": {"int": "OpAtomicXor", "uint": "OpAtomicXor"},
    "InterlockedMin": {"int": "OpAtomicSMin", "uint": "OpAtomicUMin"},
    "InterlockedMax": {"int": "OpAtomicSMax", "uint": "OpAtomicUMax"},
    "InterlockedExchange": {"int": "OpAtomicExchange", "uint": "OpAtomicExchange", "float": "OpAtomicExchange"},
}
_SCOPE = {"CrossDevice": 0, "Device": 1, "Workgroup": 2, "Subgroup": 3, "Invocation": 4}


def _atomic_target(fe: ExprEmitter, e: Intrinsic) -> tuple[int, Type, list]:
    """(pointer id, pointee type, remaining args) for the free function or the
    RWByteAddressBuffer method form (resource, byte address, ...)."""
    first = e.args[0]
    p = fe.place(first)
    if isinstance(p, ImagePlace):      # RWTexture / RWBuffer element: a texel pointer
        s = numeric_scalar(p.type)
        if s.width == 64:
            raise error(f"'{e.name}' on a 64-bit element of {p.rtype.kind} is not supported")
        tp = fe.op("OpImageTexelPointer", fe.T.ptr("Image", fe.tid(s)), fe.pointer(p.image), p.coord,
                   fe.T.uconst(0))
        return tp, s, list(e.args[1:])
    if isinstance(p, SwizzlePlace) and len(p.comps) == 1 and isinstance(p.base, Ptr) \
            and isinstance(p.base.type, Vector):
        p = p.base.extend(fe.T.uconst(p.comps[0]), p.type)     # one vector component: `InterlockedAdd(v.y, x)`
    if not isinstance(p, Ptr):
        raise error(f"'{e.name}' needs a memory location")
    if isinstance(p.type, Resource):
        rv = p.res
        assert rv is not None       # (sema: the Interlocked* methods are RWByteAddressBuffer's alone)
        if numeric_scalar(e.type).width == 64:
            raise error(f"'{e.name}64' is not supported by the SPIR-V backend: a RWByteAddressBuffer is an array of "
                        "32-bit words there, with no 64-bit view to point an atomic at (DXC's SPIR-V refuses it too)")
        idx = fe.op("OpShiftRightLogical", fe.tid(UINT), fe.expr(e.args[1]), fe.const(UINT, 2))
        q = Ptr(p.base, [*p.chain, fe.T.uconst(0), idx], rv.storage_class, rv.layout, UINT, None, rv)
        return fe.pointer(q), UINT, list(e.args[2:])
    return fe.pointer(p), p.type, list(e.args[1:])


def _atomic_width_caps(fe: ExprEmitter, t: Type) -> None:
    """64-bit atomics need Int64Atomics (a module with them failed spirv-val before)."""
    if numeric_scalar(t).width == 64:
        fe.b.capability("Int64Atomics")


def _atomic(fe: ExprEmitter, e: Intrinsic) -> int:
    """Returns the original value; an extra trailing place receives it too."""
    ptr, t, rest = _atomic_target(fe, e)
    _atomic_width_caps(fe, t)
    # a RWByteAddressBuffer word is uint; the IR value type (int or uint) picks Min/Max signedness
    kind = scalar_of(e.type).kind if isinstance(e.type, Scalar) and e.type.is_int else numeric_scalar(t).kind
    opname = _ATOMICS[e.name].get(kind)
    if opname is None:
        raise error(f"'{e.name}' is not defined for {t}")
    value = fe.convert(fe.expr(rest[0]), rest[0].type, t)
    r = fe.op(opname, fe.tid(t), ptr, fe.T.uconst(_SCOPE["Device"]), fe.T.uconst(0), value)
    if len(rest) > 1:
        fe.store(fe.place(rest[1]), fe.convert(r, t, rest[1].type))
    return _as_ir_type(fe, r, t, e.type)


def _as_ir_type(fe: ExprEmitter, r: int, t: Type, want: Type) -> int:
    """The atomic's result typed as the IR node (a byte-address word is uint, the value may be int)."""
    if isinstance(want, Scalar) and want != t and want.is_int and isinstance(t, Scalar) and t.is_int:
        return fe.op("OpBitcast", fe.tid(want), r)
    return r


def _compare_exchange(fe: ExprEmitter, e: Intrinsic) -> int:
    ptr, t, rest = _atomic_target(fe, e)
    if numeric_scalar(t).kind == "float":
        raise error(f"'{e.name}FloatBitwise' on a float variable is not supported by the SPIR-V backend: "
                    "OpAtomicCompareExchange needs an integer pointer and a float buffer element or groupshared "
                    "float has no integer view (DXC's SPIR-V refuses it too); a RWByteAddressBuffer method works")
    _atomic_width_caps(fe, t)
    cmp = fe.convert(fe.expr(rest[0]), rest[0].type, t)
    value = fe.convert(fe.expr(rest[1]), rest[1].type, t)
    zero = fe.T.uconst(0)
    r = fe.op("OpAtomicCompareExchange", fe.tid(t), ptr, fe.T.uconst(_SCOPE["Device"]), zero, zero, value, cmp)
    if len(rest) > 2:
        fe.store(fe.place(rest[2]), fe.convert(r, t, rest[2].type))
    return _as_ir_type(fe, r, t, e.type)


# ---------------------------------------------------------------- barriers

_ACQ_REL, _UNIFORM, _WORKGROUP, _IMAGE = 0x8, 0x40, 0x100, 0x800
# name -> (execution scope or None, memory scope, semantics); DXC's choices
BARRIERS = {
    "GroupMemoryBarrierWithGroupSync": ("Workgroup", "Workgroup", _ACQ_REL | _WORKGROUP),
    "GroupMemoryBarrier": (None, "Workgroup", _ACQ_REL | _WORKGROUP),
    "DeviceMemoryBarrierWithGroupSync": ("Workgroup", "Device", _ACQ_REL | _UNIFORM | _IMAGE),
    "DeviceMemoryBarrier": (None, "Device", _ACQ_REL | _UNIFORM | _IMAGE),
    "AllMemoryBarrierWithGroupSync": ("Workgroup", "Device", _ACQ_REL | _UNIFORM | _WORKGROUP | _IMAGE),
    "AllMemoryBarrier": (None, "Device", _ACQ_REL | _UNIFORM | _WORKGROUP | _IMAGE),
    # between a hull shader's control-point and patch-constant parts (vulkan.hull_entry), as DXC
    PATCH_BARRIER: ("Workgroup", "Invocation", 0),
}


def _barrier(fe: ExprEmitter, e: Intrinsic) -> None:
    exe, mem, sem = BARRIERS[e.name]
    u = fe.T.uconst
    if exe is None:
        fe.void_op("OpMemoryBarrier", u(_SCOPE[mem]), u(sem))
    else:
        fe.void_op("OpControlBarrier", u(_SCOPE[exe]), u(_SCOPE[mem]), u(sem))
    return None


def _interlock(fe: ExprEmitter, e: Intrinsic) -> None:
    """vulkan.interlock's critical section (lower.py adds the entry's interlock execution mode)."""
    fe.b.extension("SPV_EXT_fragment_shader_interlock")
    fe.void_op("OpBeginInvocationInterlockEXT" if e.name == BEGIN_INTERLOCK else "OpEndInvocationInterlockEXT")
    return None


def _stream_op(single: str, multi: str) -> Lowering:
    """GS EmitVertex / EndPrimitive; with several streams each names its stream (GeometryStreams)."""
    def lower(fe: ExprEmitter, e: Intrinsic) -> None:
        entry, stream = fe.ctx.entry, e.args[0]
        assert isinstance(stream, Const)        # the entry wrapper's stream index
        if entry is not None and entry.geometry is not None and len(entry.geometry.streams) > 1:
            fe.b.capability("GeometryStreams")
            fe.void_op(multi, fe.T.uconst(stream.value))
        else:
            fe.void_op(single)
        return None
    return lower


# ---------------------------------------------------------------- mesh and amplification shaders

def _set_mesh_outputs(fe: ExprEmitter, e: Intrinsic) -> None:
    fe.void_op("OpSetMeshOutputsEXT", *_args(fe, e))
    return None


def _emit_mesh_tasks(fe: ExprEmitter, e: Intrinsic) -> None:
    """DispatchMesh: OpEmitMeshTasksEXT ends the invocation (the entry wrapper put it last)."""
    x, y, z = (fe.expr(a) for a in e.args[:3])
    p = fe.place(e.args[3])
    assert isinstance(p, Ptr)       # the task-payload variable (mesh_io.move_dispatch)
    terminate = getattr(fe, "terminate", None)
    assert terminate is not None    # called from a statement (Eval) of a function body
    terminate("OpEmitMeshTasksEXT", x, y, z, fe.pointer(p))
    return None


# ---------------------------------------------------------------- wave ops

def _need_wave(fe: ExprEmitter, e: Intrinsic, cap: str) -> int:
    if fe.b.version < (1, 3):
        raise error(f"'{e.name}' needs SPIR-V 1.3 or later (use -fspv-target-env=vulkan1.1 or newer)")
    fe.b.capability("GroupNonUniform")
    fe.b.capability(cap)
    return fe.T.uconst(_SCOPE["Subgroup"])


_ADD = {"int": "OpGroupNonUniformIAdd", "uint": "OpGroupNonUniformIAdd", "float": "OpGroupNonUniformFAdd"}
_MUL = {"int": "OpGroupNonUniformIMul", "uint": "OpGroupNonUniformIMul", "float": "OpGroupNonUniformFMul"}
_MIN = {"int": "OpGroupNonUniformSMin", "uint": "OpGroupNonUniformUMin", "float": "OpGroupNonUniformFMin"}
_MAX = {"int": "OpGroupNonUniformSMax", "uint": "OpGroupNonUniformUMax", "float": "OpGroupNonUniformFMax"}
_AND = {"int": "OpGroupNonUniformBitwiseAnd", "uint": "OpGroupNonUniformBitwiseAnd"}
_OR = {"int": "OpGroupNonUniformBitwiseOr", "uint": "OpGroupNonUniformBitwiseOr"}
_XOR = {"int": "OpGroupNonUniformBitwiseXor", "uint": "OpGroupNonUniformBitwiseXor"}
WAVE_ARITH = {
    "WaveActiveSum": ("Reduce", _ADD), "WaveActiveProduct": ("Reduce", _MUL),
    "WaveActiveMin": ("Reduce", _MIN), "WaveActiveMax": ("Reduce", _MAX),
    "WaveActiveBitAnd": ("Reduce", _AND), "WaveActiveBitOr": ("Reduce", _OR), "WaveActiveBitXor": ("Reduce", _XOR),
    "WavePrefixSum": ("ExclusiveScan", _ADD), "WavePrefixProduct": ("ExclusiveScan", _MUL),
}


def _per_value_row(fe: ExprEmitter, e: Intrinsic, fn: Callable[[Type, int], int]) -> int:
    """fn(type, value id) on the first operand, per row of a matrix: the group operations take scalars and
    vectors only (a matrix operand is invalid SPIR-V that spirv-val lets through and lavapipe crashes on)."""
    t = e.args[0].type
    return fe.componentwise(t, fn, (t, fe.expr(e.args[0])))


def _wave_arith(fe: ExprEmitter, e: Intrinsic) -> int:
    group_op, ops = WAVE_ARITH[e.name]
    scope = _need_wave(fe, e, "GroupNonUniformArithmetic")
    opname = ops.get(_kind(e))
    if opname is None:
        raise error(f"'{e.name}' is not defined for {e.args[0].type}")
    return _per_value_row(fe, e, lambda rt, x: fe.op(opname, fe.tid(rt), scope, enum("GroupOperation", group_op), x))


def _wave_simple(opname: str, cap: str) -> Lowering:
    def lower(fe: ExprEmitter, e: Intrinsic) -> int:
        scope = _need_wave(fe, e, cap)
        if not e.args:
            return fe.op(opname, fe.tid(e.type), scope)
        rest = [fe.expr(a) for a in e.args[1:]]     # a lane index
        return _per_value_row(fe, e, lambda rt, x: fe.op(opname, fe.tid(rt), scope, x, *rest))
    return lower


def _wave_all_equal(fe: ExprEmitter, e: Intrinsic) -> int:
    """Per component (a bool vector or matrix, as DXC); a matrix row by row, like the bool matrix it makes."""
    scope = _need_wave(fe, e, "GroupNonUniformVote")

    def vote(t: Type, x: int) -> int:
        if ncomp(t) == 1:
            return fe.op("OpGroupNonUniformAllEqual", fe.tid(BOOL), scope, x)
        comps = [fe.op("OpGroupNonUniformAllEqual", fe.tid(BOOL), scope, c) for c in fe.flatten(t, x)]
        return fe.op("OpCompositeConstruct", fe.tid(with_scalar(t, BOOL)), *comps)
    t = e.args[0].type
    x = fe.expr(e.args[0])
    if not _is_matrix(t):
        return vote(t, x)
    rt = Vector(numeric_scalar(t), t.cols)
    rows = [vote(rt, fe.op("OpCompositeExtract", fe.tid(rt), x, r)) for r in range(t.rows)]
    return fe.op("OpCompositeConstruct", fe.tid(e.type), *rows)


def _ballot(fe: ExprEmitter, e: Intrinsic, scope: int) -> int:
    return fe.op("OpGroupNonUniformBallot", fe.tid(Vector(UINT, 4)), scope, fe.expr(e.args[0]))


def _wave_ballot(fe: ExprEmitter, e: Intrinsic) -> int:
    return _ballot(fe, e, _need_wave(fe, e, "GroupNonUniformBallot"))


def _wave_count(group_op: str) -> Lowering:
    def lower(fe: ExprEmitter, e: Intrinsic) -> int:
        scope = _need_wave(fe, e, "GroupNonUniformBallot")
        bal = _ballot(fe, e, scope)
        r = fe.op("OpGroupNonUniformBallotBitCount", fe.tid(UINT), scope, enum("GroupOperation", group_op), bal)
        return fe.convert(r, UINT, e.type)
    return lower


def _quad_swap(direction: int) -> Lowering:
    def lower(fe: ExprEmitter, e: Intrinsic) -> int:
        scope = _need_wave(fe, e, "GroupNonUniformQuad")
        compute_quads(fe.ctx)
        return _per_value_row(fe, e, lambda rt, x: fe.op("OpGroupNonUniformQuadSwap", fe.tid(rt), scope, x,
                                                         fe.T.uconst(direction)))
    return lower


def _quad_read_lane_at(fe: ExprEmitter, e: Intrinsic) -> int:
    """OpGroupNonUniformQuadBroadcast takes a constant index before SPIR-V 1.5 (a dynamically uniform one
    after): any other index reads lane (this lane & ~3) | (index & 3) of the wave with a shuffle (a quad is
    4 consecutive lanes of the subgroup)."""
    compute_quads(fe.ctx)
    if isinstance(e.args[1], Const):
        scope = _need_wave(fe, e, "GroupNonUniformQuad")
        index = fe.expr(e.args[1])
        return _per_value_row(fe, e, lambda rt, x: fe.op("OpGroupNonUniformQuadBroadcast", fe.tid(rt), scope, x, index))
    scope = _need_wave(fe, e, "GroupNonUniformShuffle")
    u = fe.tid(UINT)
    me = fe.op("OpLoad", u, builtin_input(fe, "SubgroupLocalInvocationId", UINT))
    base = fe.op("OpBitwiseAnd", u, me, fe.T.uconst(~3 & 0xFFFFFFFF))
    lane = fe.op("OpBitwiseOr", u, base, fe.op("OpBitwiseAnd", u, fe.expr(e.args[1]), fe.T.uconst(3)))
    return _per_value_row(fe, e, lambda rt, x: fe.op("OpGroupNonUniformShuffle", fe.tid(rt), scope, x, lane))


def _lane_builtin(builtin: str) -> Lowering:
    def lower(fe: ExprEmitter, e: Intrinsic) -> int:
        _need_wave(fe, e, "GroupNonUniform")
        vid = builtin_input(fe, builtin, UINT)
        return fe.convert(fe.op("OpLoad", fe.tid(UINT), vid), UINT, e.type)
    return lower


def _is_helper_lane(fe: ExprEmitter, e: Intrinsic) -> int:
    """The HelperInvocation built-in in a pixel shader (discard is OpKill / OpTerminateInvocation, never a
    demote, so the built-in stays exact); false in every other stage."""
    if fe.ctx.stage != "pixel":
        return fe.const(BOOL, False)
    vid = fe.ctx.builtins.get("HelperInvocation")
    if vid is None:
        b = fe.b
        vid = b.global_variable(fe.T.ptr("Input", fe.tid(BOOL)), "Input")
        b.name(vid, "gl_HelperInvocation")
        b.decorate(vid, "BuiltIn", enum("BuiltIn", "HelperInvocation"))
        fe.ctx.builtins["HelperInvocation"] = vid
        fe.ctx.interface.append(vid)
    return fe.op("OpLoad", fe.tid(BOOL), vid)


def builtin_input(fe: ExprEmitter, builtin: str, t: Type) -> int:
    """An Input variable decorated BuiltIn, created once per module."""
    ctx = fe.ctx
    vid = ctx.builtins.get(builtin)
    if vid is None:
        b = fe.b
        vid = b.global_variable(fe.T.ptr("Input", fe.tid(t)), "Input")
        b.name(vid, f"gl_{builtin}")
        b.decorate(vid, "BuiltIn", enum("BuiltIn", builtin))
        if ctx.stage == "pixel" and numeric_scalar(t).kind != "float":
            b.decorate(vid, "Flat")
        ctx.builtins[builtin] = vid
        ctx.interface.append(vid)
    return vid


# ---------------------------------------------------------------- ray tracing (SPV_KHR_ray_tracing)

# DXR system value -> (SPIR-V BuiltIn, its type); the 3x4 matrices are the transposed 4x3 built-in
_RAY_BUILTINS: dict[str, tuple[str, Type]] = {
    "DispatchRaysIndex": ("LaunchIdKHR", Vector(UINT, 3)), "DispatchRaysDimensions": ("LaunchSizeKHR", Vector(UINT, 3)),
    "WorldRayOrigin": ("WorldRayOriginKHR", Vector(FLOAT, 3)),
    "WorldRayDirection": ("WorldRayDirectionKHR", Vector(FLOAT, 3)),
    "ObjectRayOrigin": ("ObjectRayOriginKHR", Vector(FLOAT, 3)),
    "ObjectRayDirection": ("ObjectRayDirectionKHR", Vector(FLOAT, 3)),
    "RayTMin": ("RayTminKHR", FLOAT), "RayTCurrent": ("RayTmaxKHR", FLOAT), "RayFlags": ("IncomingRayFlagsKHR", UINT),
    "InstanceIndex": ("InstanceId", UINT), "InstanceID": ("InstanceCustomIndexKHR", UINT),
    "GeometryIndex": ("RayGeometryIndexKHR", UINT), "PrimitiveIndex": ("PrimitiveId", UINT),
    "HitKind": ("HitKindKHR", UINT),
    "ObjectToWorld4x3": ("ObjectToWorldKHR", Matrix(FLOAT, 4, 3)), "ObjectToWorld3x4": ("ObjectToWorldKHR", Matrix(FLOAT, 4, 3)),
    "WorldToObject4x3": ("WorldToObjectKHR", Matrix(FLOAT, 4, 3)), "WorldToObject3x4": ("WorldToObjectKHR", Matrix(FLOAT, 4, 3)),
}


def _ray_system_value(fe: ExprEmitter, e: Intrinsic) -> int:
    builtin, t = _RAY_BUILTINS[e.name]
    value = fe.op("OpLoad", fe.tid(t), builtin_input(fe, builtin, t))
    if e.name.endswith("3x4"):
        value = fe.op("OpTranspose", fe.tid(e.type), value)
    return value


def _ray_terminator(opname: str) -> Lowering:
    """IgnoreHit / AcceptHitAndEndSearch end the invocation: the block ends with them."""
    def lower(fe: ExprEmitter, e: Intrinsic) -> None:
        fe.terminate(opname)  # type: ignore[attr-defined]  # FunctionEmitter's (a statement's expression)
        return None
    return lower


def _ray_pointer(fe: ExprEmitter, place) -> int:
    """The variable the raise pass (raytracing.py) gave a payload / callable-data argument."""
    p = fe.place(place)
    assert isinstance(p, Ptr)
    return fe.pointer(p)


def _trace_ray(fe: ExprEmitter, e: Intrinsic) -> None:
    accel_t = fe.T.acceleration_structure()
    accel = fe.op("OpLoad", accel_t, _ray_pointer(fe, e.args[0]))
    flags, mask, offset, stride, miss = (fe.expr(a) for a in e.args[1:6])
    ray = fe.expr(e.args[6])
    f3, f = fe.tid(Vector(FLOAT, 3)), fe.tid(FLOAT)
    origin, tmin = fe.op("OpCompositeExtract", f3, ray, 0), fe.op("OpCompositeExtract", f, ray, 1)
    direction, tmax = fe.op("OpCompositeExtract", f3, ray, 2), fe.op("OpCompositeExtract", f, ray, 3)
    fe.void_op("OpTraceRayKHR", accel, flags, mask, offset, stride, miss, origin, tmin, direction, tmax,
               _ray_pointer(fe, e.args[7]))
    return None


def _report_hit(fe: ExprEmitter, e: Intrinsic) -> int:
    t_hit, kind = fe.expr(e.args[0]), fe.expr(e.args[1])     # the attributes are in their variable already
    return fe.op("OpReportIntersectionKHR", fe.tid(BOOL), t_hit, kind)


def _call_shader(fe: ExprEmitter, e: Intrinsic) -> None:
    fe.void_op("OpExecuteCallableKHR", fe.expr(e.args[0]), _ray_pointer(fe, e.args[1]))
    return None


# ---------------------------------------------------------------- misc

def _sincos(fe: ExprEmitter, e: Intrinsic) -> None:
    x = fe.expr(e.args[0])
    t = e.args[0].type

    def one(name: str) -> int:
        if _is_matrix(t):
            return fe.componentwise(t, lambda rt, r: fe.ext(name, rt, r), (t, x))
        return fe.ext(name, t, x)
    fe.store(fe.place(e.args[1]), one("Sin"))
    fe.store(fe.place(e.args[2]), one("Cos"))
    return None


def _derivative(opname: str, cap: str | None = None) -> Lowering:
    """OpDPdx... take 32-bit floats only: a half (-enable-16bit-types) is widened and the result narrowed
    back, as DXC does."""
    def deriv(fe: ExprEmitter, rt: Type, xs: list[int]) -> int:
        s = scalar_of(rt)
        if s is None or s.width == 32:
            return fe.op(opname, fe.tid(rt), *xs)
        wide = with_scalar(rt, FLOAT)
        return fe.convert(fe.op(opname, fe.tid(wide), fe.convert(xs[0], rt, wide)), wide, rt)

    def lower(fe: ExprEmitter, e: Intrinsic) -> int:
        compute_derivatives(fe.ctx)
        if cap:
            fe.b.capability(cap)
        return _per_row(fe, e, lambda rt, xs: deriv(fe, rt, xs))
    return lower


def _interpolate(fe: ExprEmitter, e: Intrinsic) -> int:
    """EvaluateAttribute*: GLSL.std.450 InterpolateAt* on the Input variable the argument names
    (shaderbuild/passes/evaluate_attribute.py made it a Load of the variable's place).  A snapped
    offset is in 1/16 pixels; InterpolateAtOffset takes pixels (DXC's conversion)."""
    arg = e.args[0]
    assert isinstance(arg, Load)
    s = scalar_of(e.type)
    if s is not None and s.width != 32:
        raise error(f"'{e.name}' of a {s.width}-bit input is not supported when targeting SPIR-V: GLSL.std.450 "
                    "InterpolateAt* takes 32-bit floats (declare the input as float)")
    fe.b.capability("InterpolationFunction")
    ptr = fe.pointer(fe.place(arg.place))
    rt = fe.tid(e.type)
    glsl = fe.b.glsl_std_450()
    if e.name == "EvaluateAttributeCentroid":
        return fe.op("OpExtInst", rt, glsl, fe.b.ext_inst_number("InterpolateAtCentroid"), ptr)
    if e.name == "EvaluateAttributeAtSample":
        return fe.op("OpExtInst", rt, glsl, fe.b.ext_inst_number("InterpolateAtSample"), ptr, fe.expr(e.args[1]))
    f2 = Vector(FLOAT, 2)
    offset = fe.op("OpConvertSToF", fe.tid(f2), fe.expr(e.args[1]))
    offset = fe.op("OpVectorTimesScalar", fe.tid(f2), offset, fe.T.const(FLOAT, 1.0 / 16.0))
    return fe.op("OpExtInst", rt, glsl, fe.b.ext_inst_number("InterpolateAtOffset"), ptr, offset)


def _attribute_at_vertex(fe: ExprEmitter, e: Intrinsic) -> int:
    """GetAttributeAtVertex(x, i): element i of x's PerVertexKHR input array (vulkan.py made x a
    Load of the whole array)."""
    arg, vertex = e.args
    if not (isinstance(arg, Load) and isinstance(arg.type, Array)):
        raise error(f"'{e.name}' needs a nointerpolation pixel shader input")
    return fe.expr(Load(IndexRef(arg.place, vertex, e.type), e.type))


def _clip(fe: ExprEmitter, e: Intrinsic) -> None:
    """clip(x): discard when any component of x is negative."""
    t = e.args[0].type
    x = fe.expr(e.args[0])
    bt = with_scalar(t, BOOL)
    neg = _per_row_ids(fe, bt, lambda rt, v: fe.op("OpFOrdLessThan", fe.tid(rt), v, fe.const(with_scalar(rt, FLOAT), 0.0)), t, x)
    cond = _reduce_any(fe, bt, neg)
    fe.discard_if(cond)
    return None


def _per_row_ids(fe: ExprEmitter, rt: Type, fn, at: Type, x: int) -> int:
    if _is_matrix(rt):
        return fe.componentwise(rt, fn, (at, x))
    return fn(rt, x)


def _reduce_any(fe: ExprEmitter, t: Type, v: int) -> int:
    if _is_matrix(t):
        rows = [fe.op("OpAny", fe.tid(BOOL), fe.op("OpCompositeExtract", fe.tid(Vector(BOOL, t.cols)), v, r))
                for r in range(t.rows)]
        acc = rows[0]
        for r in rows[1:]:
            acc = fe.op("OpLogicalOr", fe.tid(BOOL), acc, r)
        return acc
    return v if ncomp(t) == 1 else fe.op("OpAny", fe.tid(BOOL), v)


def _asdouble(fe: ExprEmitter, e: Intrinsic) -> int:
    lo, hi = _args(fe, e)
    v = fe.op("OpCompositeConstruct", fe.tid(Vector(UINT, 2)), lo, hi)
    return fe.op("OpBitcast", fe.tid(e.type), v)


def _identity(fe: ExprEmitter, e: Intrinsic) -> int:
    return fe.expr(e.args[0])


def _logical(opname: str) -> Lowering:
    return lambda fe, e: _per_row(fe, e, lambda rt, xs: fe.op(opname, fe.tid(rt), *xs))


# ---------------------------------------------------------------- the table

_FLOAT_GLSL = {
    "floor": "Floor", "ceil": "Ceil", "round": "RoundEven", "trunc": "Trunc", "frac": "Fract", "sqrt": "Sqrt",
    "rsqrt": "InverseSqrt", "exp": "Exp", "exp2": "Exp2", "log": "Log", "log2": "Log2", "pow": "Pow",
    "sin": "Sin", "cos": "Cos", "tan": "Tan", "asin": "Asin", "acos": "Acos", "atan": "Atan",
    "sinh": "Sinh", "cosh": "Cosh", "tanh": "Tanh", "lerp": "FMix", "step": "Step", "smoothstep": "SmoothStep",
    "length": "Length", "distance": "Distance", "normalize": "Normalize", "cross": "Cross", "reflect": "Reflect",
    "refract": "Refract", "faceforward": "FaceForward", "degrees": "Degrees", "radians": "Radians",
}
_KIND_GLSL: dict[str, dict[str, str | None]] = {
    "abs": {"float": "FAbs", "int": "SAbs", "uint": None},
    "min": {"float": "FMin", "int": "SMin", "uint": "UMin"},
    "max": {"float": "FMax", "int": "SMax", "uint": "UMax"},
    "clamp": {"float": "FClamp", "int": "SClamp", "uint": "UClamp"},
}

TABLE.update({name: _glsl(g) for name, g in _FLOAT_GLSL.items()})
TABLE.update({name: _glsl_by_kind(k) for name, k in _KIND_GLSL.items()})
TABLE.update({
    "sign": _sign, "mad": _fma_or_muladd, "fma": _fma_or_muladd, "log10": _log10, "rcp": _rcp, "saturate": _saturate, "fmod": _fmod,
    "frexp": _frexp, "modf": _modf, "determinant": _determinant, "transpose": _transpose,
    "dot": _dot, "mul": _mul,
    "countbits": _wide(_op("OpBitCount")), "reversebits": _wide(_op("OpBitReverse")),
    "firstbithigh": _wide(_firstbit("FindSMsb", "FindUMsb")), "firstbitlow": _wide(_firstbit("FindILsb", "FindILsb")),
    "isnan": _op("OpIsNan"), "isinf": _op("OpIsInf"), "isfinite": _isfinite,
    "CheckAccessFullyMapped": _check_access_fully_mapped,
    "printf": _printf,
    "all": _all_any("OpAll", "OpLogicalAnd"), "any": _all_any("OpAny", "OpLogicalOr"),
    "f32tof16": _f32tof16, "f16tof32": _f16tof32,
    "InterlockedCompareExchange": _compare_exchange, "InterlockedCompareStore": _compare_exchange,
    "WaveGetLaneIndex": _lane_builtin("SubgroupLocalInvocationId"),
    "WaveGetLaneCount": _lane_builtin("SubgroupSize"),
    "WaveIsFirstLane": _wave_simple("OpGroupNonUniformElect", "GroupNonUniform"),
    "IsHelperLane": _is_helper_lane,
    "WaveActiveAllTrue": _wave_simple("OpGroupNonUniformAll", "GroupNonUniformVote"),
    "WaveActiveAnyTrue": _wave_simple("OpGroupNonUniformAny", "GroupNonUniformVote"),
    "WaveActiveAllEqual": _wave_all_equal,
    "WaveActiveBallot": _wave_ballot,
    "WaveActiveCountBits": _wave_count("Reduce"), "WavePrefixCountBits": _wave_count("ExclusiveScan"),
    "WaveReadLaneFirst": _wave_simple("OpGroupNonUniformBroadcastFirst", "GroupNonUniformBallot"),
    "WaveReadLaneAt": _wave_simple("OpGroupNonUniformShuffle", "GroupNonUniformShuffle"),
    "QuadReadAcrossX": _quad_swap(0), "QuadReadAcrossY": _quad_swap(1), "QuadReadAcrossDiagonal": _quad_swap(2),
    "QuadReadLaneAt": _quad_read_lane_at,
    "sincos": _sincos, "clip": _clip, "asdouble": _asdouble,
    "NonUniformResourceIndex": _identity,
    "and": _logical("OpLogicalAnd"), "or": _logical("OpLogicalOr"),
    "ddx": _derivative("OpDPdx"), "ddy": _derivative("OpDPdy"), "fwidth": _derivative("OpFwidth"),
    "EvaluateAttributeAtSample": _interpolate, "EvaluateAttributeCentroid": _interpolate,
    "EvaluateAttributeSnapped": _interpolate, "GetAttributeAtVertex": _attribute_at_vertex,
    "ddx_coarse": _derivative("OpDPdxCoarse", "DerivativeControl"),
    "ddy_coarse": _derivative("OpDPdyCoarse", "DerivativeControl"),
    "ddx_fine": _derivative("OpDPdxFine", "DerivativeControl"),
    "ddy_fine": _derivative("OpDPdyFine", "DerivativeControl"),
})
TABLE.update({name: _ray_query for name in RAYQUERY_METHODS})
TABLE.update({name: _atomic for name in _ATOMICS})
TABLE.update({name: _barrier for name in BARRIERS})
TABLE.update({BEGIN_INTERLOCK: _interlock, END_INTERLOCK: _interlock})
TABLE.update({"EmitVertex": _stream_op("OpEmitVertex", "OpEmitStreamVertex"),
              "EndPrimitive": _stream_op("OpEndPrimitive", "OpEndStreamPrimitive")})
TABLE.update({name: _wave_arith for name in WAVE_ARITH})
TABLE.update({name: _ray_system_value for name in _RAY_BUILTINS})
# RayQuery's RayFlags / WorldRayOrigin / WorldRayDirection / RayTMin methods share their names with DXR
# system values: a method's first operand is its query, a system value has no operand
TABLE.update({name: lambda fe, e: (_ray_query if e.args else _ray_system_value)(fe, e)
              for name in set(RAYQUERY_METHODS) & set(_RAY_BUILTINS)})
TABLE.update({"IgnoreHit": _ray_terminator("OpIgnoreIntersectionKHR"),
              "AcceptHitAndEndSearch": _ray_terminator("OpTerminateRayKHR"),
              "TraceRay": _trace_ray, "ReportHit": _report_hit, "CallShader": _call_shader})
TABLE.update({"SetMeshOutputCounts": _set_mesh_outputs, "DispatchMesh": _emit_mesh_tasks})

# POLYFILLED (polyfills.py): the table entries passes/polyfill.py expands for this backend; every
# other entry has a handler in TABLE (tests/ir/test_intrinsic_coverage.py)
# table entries this backend refuses, with the reason: vulkan.UNSUPPORTED_INTRINSICS (its raise pass refuses them)
# the HLSL intrinsics handled here (PATCH_BARRIER and the interlock pair are the backend's own: vulkan.py makes them)


def __getattr__(name: str) -> object:
    if name == "NATIVE_INTRINSICS":     # every intrinsic with a handler, the resource methods included
        _add_resource_methods()
        return frozenset(TABLE) - {PATCH_BARRIER, BEGIN_INTERLOCK, END_INTERLOCK}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["BARRIERS", "NATIVE_INTRINSICS", "PATCH_BARRIER", "POLYFILLED", "UNSUPPORTED_INTRINSICS", "TABLE", "WAVE_ARITH", "builtin_input", "lower_intrinsic"]
