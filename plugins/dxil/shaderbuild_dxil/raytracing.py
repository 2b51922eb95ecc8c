"""DXR in DXIL: the ray-tracing intrinsics as dx.op calls (DXIL.rst, opcodes 141-161 and 213),
and the user-defined structs they pass by pointer (payload, hit attributes, callable data).

A payload is a struct in memory in DXIL: an entry receives a pointer to it (its first parameter,
the attributes the second), and TraceRay / CallShader / ReportHit take the address of an alloca
of it.  Inside a function the struct is an ordinary IR variable (registers or leaf arrays); it is
copied between that and the memory struct where DXIL needs the memory: on entry, before each
call, after TraceRay / CallShader, and before the shader ends (every return, IgnoreHit and
AcceptHitAndEndSearch: both keep the payload's changes)."""

from __future__ import annotations

from shaderbuild import ir
from shaderbuild.diagnostics import error
from shaderbuild.lightstd import cache

from .llvm import types as T
from .llvm.values import ConstInt, Value
from .scalarize import llvm_scalar, memory_scalar

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from .lowering import Lowering

__all__ = ["RAY_HANDLERS", "udt_type", "udt_size", "load_udt", "store_udt"]

if TYPE_CHECKING:      # a type alias: for type checkers only (no collections.abc at run time)
    Handler = Callable[["Lowering", ir.Intrinsic], list[Value]]
RAY_HANDLERS: dict[str, Handler] = {}

# system values: intrinsic -> (operation, components read with a column operand)
_VECTOR_VALUES = {"DispatchRaysIndex": "DispatchRaysIndex", "DispatchRaysDimensions": "DispatchRaysDimensions",
                  "WorldRayOrigin": "WorldRayOrigin", "WorldRayDirection": "WorldRayDirection",
                  "ObjectRayOrigin": "ObjectRayOrigin", "ObjectRayDirection": "ObjectRayDirection"}
_SCALAR_VALUES = {"RayTMin": "RayTMin", "RayTCurrent": "RayTCurrent", "RayFlags": "RayFlags",
                  "InstanceIndex": "InstanceIndex", "InstanceID": "InstanceID", "PrimitiveIndex": "PrimitiveIndex",
                  "GeometryIndex": "GeometryIndex", "HitKind": "HitKind"}
# matrix intrinsic -> (operation, transposed: the 4x3 forms read element (r, c) at row c, column r)
_MATRIX_VALUES = {"ObjectToWorld3x4": ("ObjectToWorld", False), "WorldToObject3x4": ("WorldToObject", False),
                  "ObjectToWorld4x3": ("ObjectToWorld", True), "WorldToObject4x3": ("WorldToObject", True)}


def _handler(*names: str) -> Callable[[Handler], Handler]:
    def deco(fn: Handler) -> Handler:
        for n in names:
            RAY_HANDLERS[n] = fn
        return fn
    return deco


def _ov(e: ir.Intrinsic) -> str:
    return "f32" if ir.numeric_scalar(e.type).kind == "float" else "i32"


@_handler(*_VECTOR_VALUES)
def _vector_value(L: Lowering, e: ir.Intrinsic) -> list[Value]:
    n = e.type.size if isinstance(e.type, ir.Vector) else 1
    return [L.ops.call(L.b, _VECTOR_VALUES[e.name], _ov(e), [ConstInt(T.i8, k)]) for k in range(n)]


@_handler(*_SCALAR_VALUES)
def _scalar_value(L: Lowering, e: ir.Intrinsic) -> list[Value]:
    return [L.ops.call(L.b, _SCALAR_VALUES[e.name], _ov(e), [])]


@_handler(*_MATRIX_VALUES)
def _matrix_value(L: Lowering, e: ir.Intrinsic) -> list[Value]:
    op, transposed = _MATRIX_VALUES[e.name]
    m = e.type
    assert isinstance(m, ir.Matrix)
    out: list[Value] = []
    for r in range(m.rows):
        for c in range(m.cols):
            row, col = (c, r) if transposed else (r, c)
            out.append(L.ops.call(L.b, op, "f32", [ConstInt(T.i32, row), ConstInt(T.i8, col)]))
    return out


@_handler("IgnoreHit", "AcceptHitAndEndSearch")
def _end_any_hit(L: Lowering, e: ir.Intrinsic) -> list[Value]:
    """Both end the shader (noreturn; DXIL follows them with `unreachable`) and keep the payload."""
    L.write_back_payload()
    L.ops.call(L.b, e.name, None, [])
    L.b.unreachable()
    return []


@_handler("TraceRay")
def _trace_ray(L: Lowering, e: ir.Intrinsic) -> list[Value]:
    """TraceRay(accel, flags, mask, hit-group offset, geometry stride, miss index, RayDesc, payload)."""
    accel = L.handle(L.resource_place(e.args[0]))
    scalars = [L.expr(a)[0] for a in e.args[1:6]]
    ray = L.expr(e.args[6])             # Origin xyz, TMin, Direction xyz, TMax: the operands' order
    ptr = _copy_in(L, e.args[7])
    L.ops.call_typed(L.b, "TraceRay", _struct_of(e.args[7].type), [accel, *scalars, *ray, ptr])
    _copy_out(L, e.args[7], ptr)
    return []


@_handler("CallShader")
def _call_shader(L: Lowering, e: ir.Intrinsic) -> list[Value]:
    index = L.expr(e.args[0])[0]
    ptr = _copy_in(L, e.args[1])
    L.ops.call_typed(L.b, "CallShader", _struct_of(e.args[1].type), [index, ptr])
    _copy_out(L, e.args[1], ptr)
    return []


@_handler("ReportHit")
def _report_hit(L: Lowering, e: ir.Intrinsic) -> list[Value]:
    t_hit = L.expr(e.args[0])[0]
    kind = L.expr(e.args[1])[0]
    ptr = _copy_in(L, e.args[2])
    return [L.ops.call_typed(L.b, "ReportHit", _struct_of(e.args[2].type), [t_hit, kind, ptr])]


# ------------------------------------------------------------------ user-defined structs in memory

def _struct_of(t: ir.Type) -> T.StructType:
    st = udt_type(t)
    assert isinstance(st, T.StructType)
    return st


@cache
def udt_type(t: ir.Type) -> T.Type:
    """The memory type of a payload / attribute / callable-data struct: scalars as in memory (bool
    as i32), vectors and matrices as arrays (row by row), arrays and structs as they are."""
    if isinstance(t, ir.Scalar):
        return memory_scalar(t)
    if isinstance(t, ir.Vector):
        return T.ArrayType(memory_scalar(t.elem), t.size)
    if isinstance(t, ir.Matrix):
        return T.ArrayType(memory_scalar(t.elem), t.rows * t.cols)
    if isinstance(t, ir.Array):
        return T.ArrayType(udt_type(t.elem), t.size or 0)
    if isinstance(t, ir.Struct):
        return T.StructType(tuple(udt_type(f.type) for f in t.fields), f"struct.{t.name}")
    raise error(f"'{t}' cannot be passed to a ray-tracing shader")


def udt_size(t: ir.Type, native16: bool = False) -> int:
    """Its size in bytes under the module's DXIL data layout (context.py: i8 and i16/f16 aligned to 4
    bytes, or to their size with -enable-16bit-types; the rest to their size)."""
    return _size_align(udt_type(t), native16)[0]


def _size_align(t: T.Type, native16: bool) -> tuple[int, int]:
    if isinstance(t, T.StructType):
        off, align = 0, 1
        for f in t.elems:
            s, a = _size_align(f, native16)
            off = -(-off // a) * a + s
            align = max(align, a)
        return -(-off // align) * align, align
    if isinstance(t, T.ArrayType):
        s, a = _size_align(t.elem, native16)
        return s * t.count, a
    width = t.width if isinstance(t, (T.IntType, T.FloatType)) else 32
    a = width // 8 if native16 or width >= 32 else 4
    return max(a, width // 8), a


@cache
def _paths(t: ir.Type) -> tuple[tuple[tuple[int, ...], ir.Scalar], ...]:
    """Per scalar component, in canonical order: the GEP indices below the struct and its type."""
    if isinstance(t, ir.Scalar):
        return (((), t),)
    if isinstance(t, ir.Vector):
        return tuple(((k,), t.elem) for k in range(t.size))
    if isinstance(t, ir.Matrix):
        return tuple(((k,), t.elem) for k in range(t.rows * t.cols))
    if isinstance(t, ir.Array):
        return tuple(((k, *p), s) for k in range(t.size or 0) for p, s in _paths(t.elem))
    if isinstance(t, ir.Struct):
        return tuple(((i, *p), s) for i, f in enumerate(t.fields) for p, s in _paths(f.type))
    raise error(f"'{t}' cannot be passed to a ray-tracing shader")


def store_udt(L: Lowering, ptr: Value, t: ir.Type, vals: list[Value]) -> None:
    zero = ConstInt(T.i32, 0)
    for (path, s), v in zip(_paths(t), vals, strict=True):
        p = L.b.gep(ptr, [zero, *(ConstInt(T.i32, k) for k in path)])
        if s.kind == "bool":
            v = L.b.zext(v, T.i32)
        L.b.store(v, p, align=max(4, memory_scalar(s).width // 8))


def load_udt(L: Lowering, ptr: Value, t: ir.Type) -> list[Value]:
    zero = ConstInt(T.i32, 0)
    out: list[Value] = []
    for path, s in _paths(t):
        p = L.b.gep(ptr, [zero, *(ConstInt(T.i32, k) for k in path)])
        v = L.b.load(p, align=max(4, memory_scalar(s).width // 8))
        out.append(L.b.icmp("ne", v, ConstInt(T.i32, 0)) if s.kind == "bool" else v)
        assert s.kind == "bool" or v.type == llvm_scalar(s)
    return out


def _copy_in(L: Lowering, place: ir.Expr) -> Value:
    """A fresh alloca of the struct holding the place's value (the callee reads it through the pointer)."""
    ptr = L.alloca(udt_type(place.type))
    store_udt(L, ptr, place.type, L.expr(ir.Load(place, place.type)))
    return ptr


def _copy_out(L: Lowering, place: ir.Expr, ptr: Value) -> None:
    L.place(place).write(L, load_udt(L, ptr, place.type))
