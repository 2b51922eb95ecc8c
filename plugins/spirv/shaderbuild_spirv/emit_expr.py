"""Expressions and places -> SPIR-V instructions (one function body at a time).

Values always have the *logical* SPIR-V type of their IR type; a load from
laid-out memory (buffers, push constants) is re-typed member by member
(`relayout`), which also turns stored uint booleans back into bools.  Places
resolve to a `Ptr` (a base pointer plus an access chain), a `SwizzlePlace` or
an `ImagePlace` (texel of a texture / typed buffer).
"""

from __future__ import annotations

from shaderbuild.diagnostics import error
from shaderbuild.ir.d3d_numerics import conversion_bounds, int_range
from shaderbuild.ir.nodes import (
    Binary,
    Bitcast,
    BufferElem,
    Call,
    Const,
    Construct,
    Convert,
    EntryPoint,
    Expr,
    Extract,
    FieldRef,
    IndexRef,
    Intrinsic,
    Load,
    Select,
    SpecConst,
    Swizzle,
    SwizzleRef,
    Unary,
    Variable,
    VarRef,
)
from shaderbuild.ir.types import (
    BOOL,
    INT,
    UINT,
    Array,
    Matrix,
    Resource,
    Scalar,
    Struct,
    Type,
    Vector,
    component_count,
    is_numeric,
    numeric_scalar,
    resource_elem,
    scalar_of,
)
from shaderbuild.lightstd import cache
from shaderbuild.records import DataRecord, Record

from .builder import MAX_WORDS, ModuleBuilder, enum, too_long
from .emit_types import TypeLowering, has_layout_difference, holds_no_data, matrix_shape
from .grammar import OPCODES
from .resources import Kind, ResourceLowering, ResourceVar, image_format, texel_scalar

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from .debuginfo import DebugInfo
    from .ssa import SsaBuilder

# ------------------------------------------------------------------ tables


def _safe_divisor(e: Expr) -> bool:
    """A constant integer divisor with no zero (and no -1, for INT_MIN / -1) component: plain OpSDiv/OpUDiv."""
    if not isinstance(e, Const):
        return False
    vals = e.value if isinstance(e.value, (tuple, list)) else (e.value,)
    return all(isinstance(v, int) and v not in (0, -1) for v in vals)

_KINDS = ("int", "uint", "float", "bool")


def _row(op: str, *names: str | None) -> dict[tuple[str, str], str]:
    return {(op, k): n for k, n in zip(_KINDS, names) if n}


# (IR op, component kind) -> opcode; seed 002's operator tables
BINARY_OPS: dict[tuple[str, str], str] = {
    **_row("add", "OpIAdd", "OpIAdd", "OpFAdd"),
    **_row("sub", "OpISub", "OpISub", "OpFSub"),
    **_row("mul", "OpIMul", "OpIMul", "OpFMul"),
    **_row("div", "OpSDiv", "OpUDiv", "OpFDiv"),
    **_row("mod", "OpSRem", "OpUMod", "OpFRem"),
    **_row("shl", "OpShiftLeftLogical", "OpShiftLeftLogical"),
    **_row("shr", "OpShiftRightArithmetic", "OpShiftRightLogical"),
    **_row("bitand", "OpBitwiseAnd", "OpBitwiseAnd", None, "OpLogicalAnd"),
    **_row("bitor", "OpBitwiseOr", "OpBitwiseOr", None, "OpLogicalOr"),
    **_row("bitxor", "OpBitwiseXor", "OpBitwiseXor", None, "OpLogicalNotEqual"),
    **_row("land", None, None, None, "OpLogicalAnd"),
    **_row("lor", None, None, None, "OpLogicalOr"),
    **_row("eq", "OpIEqual", "OpIEqual", "OpFOrdEqual", "OpLogicalEqual"),
    # `!=` is unordered (true when either side is NaN), the other comparisons ordered, as DXC emits
    **_row("ne", "OpINotEqual", "OpINotEqual", "OpFUnordNotEqual", "OpLogicalNotEqual"),
    **_row("lt", "OpSLessThan", "OpULessThan", "OpFOrdLessThan"),
    **_row("le", "OpSLessThanEqual", "OpULessThanEqual", "OpFOrdLessThanEqual"),
    **_row("gt", "OpSGreaterThan", "OpUGreaterThan", "OpFOrdGreaterThan"),
    **_row("ge", "OpSGreaterThanEqual", "OpUGreaterThanEqual", "OpFOrdGreaterThanEqual"),
}
UNARY_OPS: dict[tuple[str, str], str] = {
    **_row("neg", "OpSNegate", "OpSNegate", "OpFNegate"),
    **_row("not", None, None, None, "OpLogicalNot"),
    **_row("bitnot", "OpNot", "OpNot"),
}
_SHIFTS = frozenset(("shl", "shr"))
_COMPARISONS = frozenset(("eq", "ne", "lt", "le", "gt", "ge"))

# (from kind, to kind) -> opcode for numeric conversions (seed 002 "Casts")
CONVERT_OPS: dict[tuple[str, str], str] = {
    ("int", "float"): "OpConvertSToF", ("uint", "float"): "OpConvertUToF",
    ("float", "int"): "OpConvertFToS", ("float", "uint"): "OpConvertFToU",
    ("int", "int"): "OpSConvert", ("uint", "uint"): "OpUConvert", ("float", "float"): "OpFConvert",
    ("int", "uint"): "OpSConvert", ("uint", "int"): "OpUConvert",   # width change, then bitcast
}
# descriptor type -> capability for non-uniform indexing of an array of it
_NONUNIFORM_CAPS = {
    "storage_buffer": "StorageBufferArrayNonUniformIndexing", "uniform_buffer": "UniformBufferArrayNonUniformIndexing",
    "sampled_image": "SampledImageArrayNonUniformIndexing", "sampler": "SampledImageArrayNonUniformIndexing",
    "storage_image": "StorageImageArrayNonUniformIndexing",
    "uniform_texel_buffer": "UniformTexelBufferArrayNonUniformIndexing",
    "storage_texel_buffer": "StorageTexelBufferArrayNonUniformIndexing",
}
# unordered: NaN converts to true, as in DXIL (any non-zero value is true)
_TO_BOOL = {"int": "OpINotEqual", "uint": "OpINotEqual", "float": "OpFUnordNotEqual"}


# ------------------------------------------------------------------ places

class Ptr(DataRecord):
    """A pointer place: `base` id plus access-chain index ids."""

    base: int
    chain: list[int]
    sc: str
    layout: str | None
    type: Type
    pointee: int | None = None        # SPIR-V type it points to when not T.tid(type) (blocks, blocks of an array)
    res: ResourceVar | None = None
    nonuniform: bool = False          # selected with NonUniformResourceIndex

    @property
    def rv(self) -> ResourceVar:
        """`res` of a place into a resource (resource_ops._resource checks that it is one)."""
        assert self.res is not None, "not a resource place"
        return self.res

    def extend(self, index: int, t: Type) -> Ptr:
        return Ptr(self.base, [*self.chain, index], self.sc, self.layout, t, None, self.res, self.nonuniform)


class SsaPlace(DataRecord):
    """A promoted local (ssa.py) or its part at constant composite indices `path`."""

    var: Variable
    path: tuple[int, ...]
    type: Type


class SwizzlePlace(DataRecord):
    base: Ptr | SwizzlePlace | ImagePlace | SsaPlace
    comps: tuple[int, ...]
    type: Type


class ImagePlace(DataRecord):
    image: Ptr
    coord: int
    rtype: Resource
    kind: Kind
    type: Type


class VarSlot(DataRecord):
    """Where a variable lives."""

    id: int
    sc: str
    layout: str | None = None
    pointee: int | None = None
    res: ResourceVar | None = None


class Ctx(DataRecord):
    """Module-wide state shared by every function emitter."""

    b: ModuleBuilder
    T: TypeLowering
    R: ResourceLowering
    stage: str
    entry: EntryPoint | None = None
    slots: dict[Variable, VarSlot] = Record.factory(dict)
    func_ids: dict = Record.factory(dict)
    builtins: dict[str, int] = Record.factory(dict)
    interface: list[int] = Record.factory(list)
    debug: DebugInfo | None = None        # under -Zi
    derivative_group: str | None = None   # a compute shader's DerivativeGroup*NV mode (vulkan.compute_derivatives)
    shader_model: tuple[int, int] = (6, 0)


@cache
def _lower_intrinsic() -> Callable[[ExprEmitter, Intrinsic], int | None]:
    """intrinsics.lower_intrinsic, imported on a shader's first intrinsic call (intrinsics.py imports this
    module; a shader calling none never loads its table)."""
    from .intrinsics import lower_intrinsic

    return lower_intrinsic


class ExprEmitter:
    """Expression half of a function emitter; `code` receives the instructions."""

    ctx: Ctx
    b: ModuleBuilder        # ctx.b and ctx.T, as attributes: the emitters read them ~50k times per 5k lines
    T: TypeLowering
    code: list[int]
    locals_slots: dict[Variable, VarSlot]
    ssa_vars: set[Variable] | frozenset[Variable] = frozenset()    # locals emitted as SSA values (ssa.py)
    ssa: SsaBuilder | None = None
    cur = 0                 # the block being emitted (its label)

    # ----------------------------------------------------- primitives

    def op(self, opname: str, type_id: int, *operands: int) -> int:
        rid = self.b.new_id()
        code = self.code        # inst(opname, [type_id, rid, *operands]) for word operands, inlined (~18k calls per 5k lines)
        if len(operands) > MAX_WORDS - 3:
            raise too_long(opname, len(operands) + 3)
        code.append(((len(operands) + 3) << 16) | OPCODES[opname])
        code.append(type_id)
        code.append(rid)
        for o in operands:
            code.append(o & 0xFFFFFFFF)
        if self.precise and opname in _CONTRACTIBLE:
            self.b.decorate(rid, "NoContraction")
        return rid

    precise = False     # while emitting a `precise` expression: float arithmetic is NoContraction

    def e_precise(self, e: Unary | Binary | Intrinsic) -> int:
        """Emit a `precise` expression and what it contains (ir.Binary.precise)."""
        self.precise = True
        try:
            return _EXPR_DISPATCH[type(e)](self, e)
        finally:
            del self.precise

    def void_op(self, opname: str, *operands: int) -> None:
        code = self.code        # inst(opname, operands), inlined as in op()
        if len(operands) > MAX_WORDS - 1:
            raise too_long(opname, len(operands) + 1)
        code.append(((len(operands) + 1) << 16) | OPCODES[opname])
        for o in operands:
            code.append(o & 0xFFFFFFFF)

    def ext(self, name: str, t: Type, *args: int) -> int:
        """A GLSL.std.450 instruction."""
        b = self.b
        return self.op("OpExtInst", self.T.tid(t), b.glsl_std_450(), b.ext_inst_number(name), *args)

    def tid(self, t: Type) -> int:
        return self.T.tid(t)

    def const(self, t: Type, v) -> int:
        return self.T.const(t, v)

    # ----------------------------------------------------- dispatch

    def expr(self, e: Expr) -> int:
        fn = _EXPR_DISPATCH.get(type(e))
        if fn is None:
            raise error(f"expression {type(e).__name__} is not supported by the SPIR-V backend")
        return fn(self, e)

    def e_const(self, e: Const) -> int:
        return self.const(e.type, e.value)

    def e_spec_const(self, e: SpecConst) -> int:
        return self.T.spec_const(e)

    def e_load(self, e: Load) -> int:
        p = e.place
        if type(p) is VarRef and p.var in self.ssa_vars:     # a whole promoted local (most loads at -O1+)
            return self.ssa.read(p.var, self.cur)       # type: ignore[union-attr]
        if type(p) is SwizzleRef and type(p.base) is VarRef and p.base.var in self.ssa_vars:    # `v.xy`
            base = p.base
            return self.swizzle(self.ssa.read(base.var, self.cur), base.type, p.comps, p.type)  # type: ignore[union-attr]
        return self.load(self.place(p))

    def e_place(self, e: Expr) -> int:
        return self.load(self.place(e))

    def e_unary(self, e: Unary) -> int:
        if e.precise and not self.precise:
            return self.e_precise(e)
        v = self.expr(e.operand)
        return self.componentwise(e.type, lambda rt, x: self._unary(e.op, rt, x), (e.operand.type, v))

    def _unary(self, op: str, t: Type, x: int) -> int:
        s = numeric_scalar(t)
        name = UNARY_OPS.get((op, s.kind))
        if name is None:
            raise error(f"unary '{op}' is not defined for {t}")
        return self.op(name, self.tid(t), x)

    def e_binary(self, e: Binary) -> int:
        if e.precise and not self.precise:
            return self.e_precise(e)
        lhs = self.expr(e.lhs)
        rhs = self.expr(e.rhs)
        if e.op in _SHIFTS:
            return self.shift(e, lhs, rhs)
        kind = numeric_scalar(e.lhs.type).kind
        name = BINARY_OPS.get((e.op, kind))
        if name is None:
            raise error(f"operator '{e.op}' is not defined for {e.lhs.type}")
        if e.op in ("div", "mod") and kind in ("int", "uint") and not _safe_divisor(e.rhs):
            return self.componentwise(e.type, lambda rt, a, b: self.int_divide(name, rt, a, b),
                                      (e.lhs.type, lhs), (e.rhs.type, rhs))
        return self.componentwise(e.type, lambda rt, a, b: self.op(name, self.tid(rt), a, b),
                                  (e.lhs.type, lhs), (e.rhs.type, rhs))

    def int_divide(self, name: str, t: Type, a: int, b: int) -> int:
        """Integer / or % with D3D's results (ir/d3d_numerics.py) where SPIR-V's are undefined: the divisor is
        replaced by 1 when it is 0 (or when INT_MIN / -1 would overflow: x / 1 and x % 1 are then D3D's
        INT_MIN and 0), and a zero divisor's result selected afterwards."""
        s = scalar_of(t)
        assert s is not None
        bt = with_scalar(t, BOOL)
        zero, one = self.const(t, 0), self.const(t, 1)
        by_zero = self.op("OpIEqual", self.tid(bt), b, zero)
        if s.kind == "uint":
            safe = self.op("OpSelect", self.tid(t), by_zero, one, b)
            r = self.op(name, self.tid(t), a, safe)
            return self.op("OpSelect", self.tid(t), by_zero, self.const(t, (1 << s.width) - 1), r)
        lo, _hi = int_range("int", s.width)
        overflow = self.op("OpLogicalAnd", self.tid(bt), self.op("OpIEqual", self.tid(bt), a, self.const(t, lo)),
                           self.op("OpIEqual", self.tid(bt), b, self.const(t, -1)))
        bad = self.op("OpLogicalOr", self.tid(bt), by_zero, overflow)
        r = self.op(name, self.tid(t), a, self.op("OpSelect", self.tid(t), bad, one, b))
        negative = self.op("OpSLessThan", self.tid(bt), a, zero)
        zero_result = self.op("OpSelect", self.tid(t), negative, one, self.const(t, -1))
        return self.op("OpSelect", self.tid(t), by_zero, zero_result, r)

    def float_to_int(self, v: int, src: Type, dst: Type, name: str) -> int:
        """OpConvertFToS/U with D3D's saturation and NaN -> 0 (ir/d3d_numerics.py): SPIR-V leaves
        out-of-range conversions undefined, so the bounds are compared and selected around the conversion."""
        ss, ds = scalar_of(src), scalar_of(dst)
        assert ss is not None and ds is not None
        bt = self.tid(with_scalar(src, BOOL))
        lo_f, lo, hi_f, hi = conversion_bounds(ds.kind, ds.width, ss.width)
        r = self.op(name, self.tid(dst), v)
        high = self.op("OpFOrdGreaterThanEqual", bt, v, self.const(src, hi_f))
        r = self.op("OpSelect", self.tid(dst), high, self.const(dst, hi), r)
        low = self.op("OpFOrdLessThanEqual", bt, v, self.const(src, lo_f))
        r = self.op("OpSelect", self.tid(dst), low, self.const(dst, lo), r)
        nan = self.op("OpIsNan", bt, v)
        return self.op("OpSelect", self.tid(dst), nan, self.const(dst, 0), r)

    def shift(self, e: Binary, lhs: int, rhs: int) -> int:
        """HLSL masks the shift amount to the bit width (DXC does the same)."""
        lt = e.lhs.type
        s = numeric_scalar(lt)
        rt = e.rhs.type
        if isinstance(lt, Vector) and not isinstance(rt, Vector):
            rhs = self.splat(rhs, Vector(numeric_scalar(rt), lt.size))
            rt = Vector(numeric_scalar(rt), lt.size)
        if isinstance(lt, Matrix):      # per row: OpBitwiseAnd and the shifts take no matrices
            rs = numeric_scalar(rt)

            def row(row_t: Type, a: int, b: int) -> int:
                bt = with_scalar(row_t, rs)
                amount = self.op("OpBitwiseAnd", self.tid(bt), b, self.const(bt, s.width - 1))
                return self.op(BINARY_OPS[(e.op, s.kind)], self.tid(row_t), a, amount)
            return self.componentwise(e.type, row, (lt, lhs), (rt, rhs))
        amount = self.op("OpBitwiseAnd", self.tid(rt), rhs, self.const(rt, s.width - 1))
        return self.op(BINARY_OPS[(e.op, s.kind)], self.tid(e.type), lhs, amount)

    def componentwise(self, rt: Type, fn, *args: tuple[Type, int]) -> int:
        """Apply fn per row when values are (non-degenerate) matrices, else directly."""
        if isinstance(rt, Matrix) and matrix_shape(rt) in ("matrix", "array"):
            row_t = Vector(rt.elem, rt.cols)
            rows = []
            for r in range(rt.rows):
                parts = [self.op("OpCompositeExtract", self.tid(row_type(t)), v, r) for t, v in args]
                rows.append(fn(row_t, *parts))
            return self.op("OpCompositeConstruct", self.tid(rt), *rows)
        return fn(rt, *(v for _t, v in args))

    def e_select(self, e: Select) -> int:
        c = self.expr(e.cond)
        t = self.expr(e.true)
        f = self.expr(e.false)
        return self.select(e.type, e.cond.type, c, t, f)

    def select(self, rt: Type, ct: Type, c: int, t: int, f: int) -> int:
        if isinstance(rt, Matrix) and matrix_shape(rt) in ("matrix", "array"):
            if isinstance(ct, Matrix):
                return self.componentwise(rt, lambda r, cc, a, b: self.select(r, row_type(ct), cc, a, b),
                                          (ct, c), (rt, t), (rt, f))
            return self.componentwise(rt, lambda r, a, b: self.select(r, ct, c, a, b), (rt, t), (rt, f))
        n = ncomp(rt)
        if n > 1 and ncomp(ct) == 1:
            c = self.splat(c, Vector(BOOL, n))
        return self.op("OpSelect", self.tid(rt), c, t, f)

    def splat(self, v: int, t: Type) -> int:
        n = ncomp(t)
        if n == 1:
            return v
        return self.op("OpCompositeConstruct", self.tid(t), *([v] * n))

    def e_convert(self, e: Convert) -> int:
        return self.convert(self.expr(e.value), e.value.type, e.type)

    def convert(self, v: int, src: Type, dst: Type) -> int:
        if src == dst:
            return v
        if isinstance(dst, Matrix) and matrix_shape(dst) in ("matrix", "array"):
            return self.componentwise(dst, lambda rt, x: self.convert(x, row_type(src), rt), (src, v))
        ss, ds = scalar_of(src), scalar_of(dst)
        if ss is None or ds is None:
            raise error(f"cannot convert {src} to {dst}")
        if ss == ds:
            return v
        if ss.kind == "bool":
            return self.op("OpSelect", self.tid(dst), v, self.const(dst, 1), self.const(dst, 0))
        if ds.kind == "bool":
            return self.op(_TO_BOOL[ss.kind], self.tid(dst), v, self.const(src, 0))
        name = CONVERT_OPS[(ss.kind, ds.kind)]
        if (ss.kind, ds.kind) in (("int", "uint"), ("uint", "int")):
            if ss.width != ds.width:
                mid = with_scalar(src, Scalar(ss.kind, ds.width))
                v = self.op(name, self.tid(mid), v)
            return self.op("OpBitcast", self.tid(dst), v)
        if ss.kind == "float" and ds.kind != "float":
            return self.float_to_int(v, src, dst, name)
        rid = self.op(name, self.tid(dst), v)
        if ds.kind == "float" and (ds.width < ss.width if ss.kind == "float" else ss.width > _MANTISSA[ds.width]):
            # a narrowing cast rounds (HLSL), and so does an integer too wide for the float's mantissa:
            # NIR-based drivers (Mesa) otherwise fold a round trip (narrow then widen, int -> float -> int)
            # to the unrounded value as an inexact optimisation
            self.b.decorate(rid, "NoContraction")
        return rid

    def e_bitcast(self, e: Bitcast) -> int:
        v = self.expr(e.value)
        if isinstance(e.type, Matrix) and matrix_shape(e.type) in ("matrix", "array"):
            return self.componentwise(e.type, lambda rt, x: self.op("OpBitcast", self.tid(rt), x), (e.value.type, v))
        return self.op("OpBitcast", self.tid(e.type), v)

    def e_construct(self, e: Construct) -> int:
        parts = [(p.type, self.expr(p)) for p in e.parts]
        return self.construct(e.type, parts)

    def construct(self, t: Type, parts: list[tuple[Type, int]]) -> int:
        """Build `t` from (type, id) parts; vectors flatten their parts, matrices take rows
        (or, leniently, any parts whose components fill it row by row)."""
        if len(parts) == 1 and parts[0][0] == t:
            return parts[0][1]
        if isinstance(t, Scalar) or (isinstance(t, Vector) and t.size == 1):
            pt, v = parts[0]
            return v if ncomp(pt) == 1 else self.op("OpCompositeExtract", self.tid(t), v, 0)
        if isinstance(t, Vector):
            ids = []
            for pt, v in parts:
                if isinstance(pt, Matrix) and matrix_shape(pt) in ("matrix", "array"):
                    ids += self.flatten(pt, v)
                else:
                    ids.append(v)
            return self.op("OpCompositeConstruct", self.tid(t), *ids)
        if isinstance(t, Matrix):
            shape = matrix_shape(t)
            row_t = row_type(t)
            if len(parts) != t.rows or any(pt != row_t and ncomp(pt) != t.cols for pt, _ in parts):
                comps = [c for pt, v in parts for c in self.flatten(pt, v)]
                parts = [(row_t, self.construct(row_t, [(t.elem, c) for c in comps[r * t.cols:(r + 1) * t.cols]]))
                         for r in range(t.rows)]
            if shape == "scalar" or (shape == "vector" and t.rows == 1):
                return parts[0][1]      # the single row is the whole value
            return self.op("OpCompositeConstruct", self.tid(t), *(v for _, v in parts))
        if not parts:       # an empty struct: lavapipe (Mesa 25) fails a pipeline with a zero-operand construct
            return self.T.null(t)
        return self.op("OpCompositeConstruct", self.tid(t), *(v for _, v in parts))

    def flatten(self, t: Type, v: int) -> list[int]:
        """Scalar component ids of a scalar/vector/matrix value (matrix row by row)."""
        s = numeric_scalar(t)
        n = ncomp(t)
        if n == 1:
            return [v]
        if isinstance(t, Matrix) and matrix_shape(t) in ("matrix", "array"):
            return [self.op("OpCompositeExtract", self.tid(s), v, r, c) for r in range(t.rows) for c in range(t.cols)]
        return [self.op("OpCompositeExtract", self.tid(s), v, i) for i in range(n)]

    def e_swizzle(self, e: Swizzle) -> int:
        return self.swizzle(self.expr(e.value), e.value.type, e.comps, e.type)

    def swizzle(self, v: int, src: Type, comps: tuple[int, ...], rt: Type) -> int:
        n = ncomp(src)
        if n == 1:
            return self.splat(v, rt)
        if len(comps) == 1:
            return self.op("OpCompositeExtract", self.tid(rt), v, comps[0])
        if tuple(comps) == tuple(range(n)):
            return v
        return self.op("OpVectorShuffle", self.tid(rt), v, v, *comps)

    def e_extract(self, e: Extract) -> int:
        v = self.expr(e.value)
        t = e.value.type
        if isinstance(t, Matrix):
            shape = matrix_shape(t)
            if shape == "scalar" or (shape == "vector" and t.rows == 1):
                return v
        if ncomp(t) == 1 and isinstance(t, (Scalar, Vector)):
            return v
        return self.op("OpCompositeExtract", self.tid(e.type), v, e.index)

    def e_call(self, e: Call) -> int:
        f = e.func
        args = []
        copy_back: list[tuple[object, int, Type]] = []
        for p, a in zip(f.params, e.args):
            if p.direction == "in" and holds_no_data(p.var.type):
                self.expr(a)                        # (for its side effects) the callee takes a pointer
                args.append(self.temp_var(p.var.type))
                continue
            if p.direction == "in":
                args.append(self.expr(a))
                continue
            pl = self.place(a)
            if isinstance(pl, Ptr) and not pl.chain and pl.sc == "Function" and pl.layout is None:
                args.append(pl.base)
                continue
            tmp = self.temp_var(p.var.type)       # not a plain local: copy in/out through a temporary
            if p.direction == "inout":
                self.void_op("OpStore", tmp, self.load(pl))
            args.append(tmp)
            copy_back.append((pl, tmp, p.var.type))
        fid = self.ctx.func_ids.get(f)
        if fid is None:
            raise error(f"call of unknown function '{f.name}'")
        rid = self.op("OpFunctionCall", self.tid(f.return_type), fid, *args)
        for pl, tmp, t in copy_back:
            self.store(pl, self.op("OpLoad", self.tid(t), tmp))
        return rid

    def e_intrinsic(self, e: Intrinsic) -> int:
        if e.precise and not self.precise:
            return self.e_precise(e)
        rid = _lower_intrinsic()(self, e)
        return 0 if rid is None else rid

    # ----------------------------------------------------- places

    def slot(self, var: Variable) -> VarSlot:
        s = self.locals_slots.get(var) or self.ctx.slots.get(var)
        if s is None:
            raise error(f"variable '{var.name}' is not visible in this function", var.loc)
        return s

    def place(self, e: Expr):
        t = type(e)
        if type(e) is VarRef:
            if e.var in self.ssa_vars:
                return SsaPlace(e.var, (), e.type)
            s = self.slot(e.var)
            vt = e.var.type
            if s.res is not None and s.res.kind.rep in ("cbuffer", "tbuffer") and not isinstance(vt, Array):
                vt = resource_elem(s.res.rtype)
            return Ptr(s.id, [], s.sc, s.layout, vt, s.pointee, s.res)
        if type(e) is FieldRef:
            base = self.place(e.base)
            if type(base) is SsaPlace:
                return SsaPlace(base.var, (*base.path, e.index), e.type)
            if isinstance(base.type, Resource) and base.res is not None and base.res.kind.rep in ("cbuffer",
                                                                                                   "tbuffer"):
                base.type = base.res.rtype.elem
            p = base.extend(self.T.uconst(e.index), e.type)
            if base.layout is not None and isinstance(e.type, Array) and isinstance(base.type, Struct) \
                    and base.type.fields[e.index].row_major:   # its stride may depend on the orientation
                p.pointee = self.T.tid(e.type, base.layout, True)
            return p
        if type(e) is IndexRef:
            return self.index_place(self.place(e.base), e)
        if type(e) is SwizzleRef:
            return SwizzlePlace(self.place(e.base), tuple(e.comps), e.type)
        if type(e) is BufferElem:
            return self.buffer_place(self.place(e.resource), e)
        raise error(f"{t.__name__} is not an assignable place")

    def index_place(self, base, e: IndexRef):
        if type(base) is SsaPlace:
            return self.ssa_index(base, e)
        if not isinstance(base, Ptr):
            raise error("dynamic indexing of a swizzle or texel is not supported")
        bt = base.type
        if isinstance(bt, Matrix):
            shape = matrix_shape(bt)
            if shape == "scalar" or (shape == "vector" and bt.rows == 1):
                return Ptr(base.base, base.chain, base.sc, base.layout, e.type, base.pointee, base.res)
        if isinstance(bt, Vector) and bt.size == 1 or isinstance(bt, Scalar):
            return Ptr(base.base, base.chain, base.sc, base.layout, e.type, base.pointee, base.res)
        index = self.expr(e.index)
        p = base.extend(index, e.type)
        if base.pointee in self.T.row_major_arrays and isinstance(e.type, Array):
            p.pointee = self.T.tid(e.type, base.layout, True)
        if base.res is not None and base.res.kind.rep in ("cbuffer", "tbuffer") and not base.chain \
                and isinstance(bt, Array):
            p.pointee = base.res.block_type     # ConstantBuffer<T> a[N]: a[i] is a block, not a plain T
        if isinstance(e.index, Intrinsic) and e.index.name == "NonUniformResourceIndex" and base.res is not None:
            self.nonuniform(index, base.res)
            p.nonuniform = True
        return p

    def ssa_index(self, base: SsaPlace, e: IndexRef) -> SsaPlace:
        """index_place for a promoted local: the index is a constant (ssa.promotable)."""
        bt = base.type
        if isinstance(bt, Matrix):
            shape = matrix_shape(bt)
            if shape == "scalar" or (shape == "vector" and bt.rows == 1):
                return SsaPlace(base.var, base.path, e.type)
        if isinstance(bt, Vector) and bt.size == 1 or isinstance(bt, Scalar):
            return SsaPlace(base.var, base.path, e.type)
        assert isinstance(e.index, Const)
        return SsaPlace(base.var, (*base.path, int(e.index.value)), e.type)

    def nonuniform(self, value: int, rv: ResourceVar | None = None) -> None:
        """Decorate a value NonUniform (DXC's NonUniformResourceIndex lowering)."""
        b = self.b
        b.capability("ShaderNonUniform")
        if b.version < (1, 5):
            b.extension("SPV_EXT_descriptor_indexing")
        if rv is not None:
            b.capability(_NONUNIFORM_CAPS[rv.kind.descriptor])
        b.decorate(value, "NonUniform")

    def buffer_place(self, res, e: BufferElem):
        if not isinstance(res, Ptr) or res.res is None:
            raise error("buffer element access needs a resource")
        rv = res.res
        if rv.kind.rep == "structured":
            p = Ptr(res.base, [*res.chain, self.T.uconst(0), self.expr(e.index)], rv.storage_class, rv.layout,
                    e.type, None, rv)
            return p
        if rv.kind.rep == "image":
            return ImagePlace(res, self.expr(e.index), rv.rtype, rv.kind, e.type)
        raise error(f"{rv.rtype.kind} cannot be indexed with []")

    def pointer(self, p: Ptr) -> int:
        if not p.chain:
            return p.base
        t = self.image_type(p) if p.res is not None and isinstance(p.type, Resource) and p.res.kind.rep in (
            "image", "sampler", "accel") else p.pointee if p.pointee is not None else self.T.tid(p.type, p.layout)
        rid = self.op("OpAccessChain", self.T.ptr(p.sc, t), p.base, *p.chain)
        if p.nonuniform:
            self.nonuniform(rid)
        return rid

    def mem_type(self, p: Ptr) -> int:
        if p.pointee is not None:
            return p.pointee
        return self.T.tid(p.type, p.layout)

    def load(self, p) -> int:
        if type(p) is SsaPlace:
            assert self.ssa is not None
            whole = self.ssa.read(p.var, self.cur)
            return self.op("OpCompositeExtract", self.T.tid(p.type), whole, *p.path) if p.path else whole
        if isinstance(p, Ptr):
            if isinstance(p.type, Resource):
                raise error(f"resource {p.type} cannot be used as a value")
            v = self.op("OpLoad", self.mem_type(p), self.pointer(p))
            if p.nonuniform:
                self.nonuniform(v)
            return self.relayout(v, p.type, p.layout, None, p.pointee in self.T.row_major_arrays)
        if isinstance(p, SwizzlePlace):
            base = self.load(p.base)
            return self.swizzle(base, p.base.type, p.comps, p.type)
        if isinstance(p, ImagePlace):
            return self.image_read(p)
        raise error("not a readable place")

    if TYPE_CHECKING:
        def discard_if(self, cond: int) -> None: ...    # FunctionEmitter's (emit_stmt.py), for intrinsics

    def store(self, p, v: int) -> None:
        if type(p) is SsaPlace:
            ssa = self.ssa
            assert ssa is not None
            if p.path:
                whole = ssa.read(p.var, self.cur)
                v = self.op("OpCompositeInsert", self.T.tid(p.var.type), v, whole, *p.path)
            ssa.write(p.var, self.cur, v)
            return
        if isinstance(p, Ptr):
            if p.res is not None and not p.res.kind.writable and p.sc != "Function":
                raise error(f"cannot write to read-only resource '{p.res.var.name}'")
            v = self.relayout(v, p.type, None, p.layout, p.pointee in self.T.row_major_arrays)
            self.void_op("OpStore", self.pointer(p), v)
            return
        if isinstance(p, SwizzlePlace):
            base = p.base
            bt = base.type
            n = ncomp(bt)
            if n == 1:
                self.store(base, v if ncomp(p.type) == 1 else self.op("OpCompositeExtract", self.tid(bt), v, 0))
                return
            if len(p.comps) == 1 and isinstance(base, Ptr):
                elem = numeric_scalar(bt)
                self.store(base.extend(self.T.uconst(p.comps[0]), elem), v)
                return
            if len(p.comps) == 1 and type(base) is SsaPlace:
                self.store(SsaPlace(base.var, (*base.path, p.comps[0]), numeric_scalar(bt)), v)
                return
            old = self.load(base)
            if len(p.comps) == 1:
                new = self.op("OpCompositeInsert", self.tid(bt), v, old, p.comps[0])
            else:
                sel = [n + p.comps.index(i) if i in p.comps else i for i in range(n)]
                new = self.op("OpVectorShuffle", self.tid(bt), old, v, *sel)
            self.store(base, new)
            return
        if isinstance(p, ImagePlace):
            self.image_write(p, v)
            return
        raise error("not a writable place")

    def relayout(self, v: int, t: Type, src: str | None, dst: str | None, row_major: bool = False) -> int:
        """Re-type a value between layout contexts (logical <-> laid-out memory); `row_major`: the
        orientation of the matrices of an array (TypeLowering.tid)."""
        if src == dst or not has_layout_difference(t):
            return v
        T = self.T
        if isinstance(t, (Scalar, Vector)):     # bool <-> uint
            if dst is None:
                ut = with_scalar(t, UINT)
                return self.op("OpINotEqual", T.tid(t), v, T.const(ut, 0))
            ut = with_scalar(t, UINT)
            return self.op("OpSelect", T.tid(ut, dst), v, T.const(ut, 1), T.const(ut, 0))
        if isinstance(t, Struct):
            parts = [self.relayout(self.op("OpCompositeExtract", T.tid(f.type, src, bool(f.row_major)), v, i), f.type,
                                   src, dst, bool(f.row_major)) for i, f in enumerate(t.fields)]
        elif isinstance(t, Array):
            if t.size is None:
                raise error("a runtime-sized array cannot be copied")
            parts = [self.relayout(self.op("OpCompositeExtract", T.tid(t.elem, src, row_major), v, i), t.elem, src,
                                   dst, row_major) for i in range(t.size)]
        elif isinstance(t, Matrix) and matrix_shape(t) in ("scalar", "vector"):   # 1xN / Nx1: stored as a vector
            return self.relayout(v, t.elem if t.rows == t.cols == 1 else Vector(t.elem, t.rows * t.cols), src, dst)
        elif isinstance(t, Matrix):
            rt = row_type(t)
            parts = [self.relayout(self.op("OpCompositeExtract", T.tid(rt, src), v, i), rt, src, dst)
                     for i in range(t.rows)]
        else:
            return v
        return self.op("OpCompositeConstruct", T.tid(t, dst, row_major), *parts)

    # ----------------------------------------------------- images

    def load_image(self, p: Ptr) -> int:
        v = self.op("OpLoad", self.image_type(p), self.pointer(p))
        if p.nonuniform:
            self.nonuniform(v)
        return v

    def image_type(self, p: Ptr) -> int:
        """SPIR-V type of an image or sampler resource."""
        if p.rv.kind.rep == "sampler":
            return self.b.type("OpTypeSampler")
        if p.rv.kind.rep == "accel":
            return self.T.acceleration_structure()
        return self.ctx.R.image_type(p.rv.rtype, p.rv.kind, image_format(p.rv.var))

    def texel4(self, rtype: Resource) -> tuple[Scalar, int, Type]:
        """The image's texel: component scalar, count, and the 4-vector reads return (texel_scalar)."""
        s, n = texel_scalar(rtype)
        return s, n, Vector(s, 4)

    def shrink(self, v4: int, s: Scalar, n: int, rt: Type) -> int:
        """The n texel components of v4 as a value of type rt (64-bit components from pairs of words)."""
        rs = numeric_scalar(rt)
        if rs.width == 16 and s.width == 32:    # a 16-bit texel read as 32 bits (texel_scalar): convert
            wide = s if n == 1 else Vector(s, n)
            return self.convert(self.shrink(v4, s, n, wide), wide, rt)
        if rs.width == 64 and s.width == 32:
            pair = self.tid(Vector(s, 2))
            comps = [self.op("OpBitcast", self.tid(rs), self.op("OpVectorShuffle", pair, v4, v4, 2 * i, 2 * i + 1))
                     for i in range(n // 2)]
            return comps[0] if len(comps) == 1 else self.op("OpCompositeConstruct", self.tid(rt), *comps)
        if n == 4:
            return v4
        if n == 1:
            return self.op("OpCompositeExtract", self.tid(s), v4, 0)
        return self.op("OpVectorShuffle", self.tid(Vector(s, n)), v4, v4, *range(n))

    def image_read(self, p: ImagePlace) -> int:
        img = self.load_image(p.image)
        s, n, t4 = self.texel4(p.rtype)
        if p.kind.writable:
            v4 = self.op("OpImageRead", self.tid(t4), img, p.coord)
        elif p.kind.dim == "Buffer":
            v4 = self.op("OpImageFetch", self.tid(t4), img, p.coord)
        else:
            v4 = self.op("OpImageFetch", self.tid(t4), img, p.coord, enum("ImageOperands", "Lod"),
                         self.const(INT, 0))
        return self.shrink(v4, s, n, p.type)

    def image_write(self, p: ImagePlace, v: int) -> None:
        img = self.load_image(p.image)
        s, n, t4 = self.texel4(p.rtype)
        vs = numeric_scalar(p.type)
        if vs.width == 16 and s.width == 32:    # 16-bit components widen to the image's (texel_scalar)
            v = self.convert(v, p.type, with_scalar(p.type, s))
            vs = s
        if vs.width == 64 and s.width == 32:    # 64-bit components as pairs of words (texel_scalar)
            parts = [v] if n == 2 else [self.op("OpCompositeExtract", self.tid(vs), v, i) for i in range(n // 2)]
            pair = self.tid(Vector(s, 2))
            words = [self.op("OpBitcast", pair, x) for x in parts]
            v = self.op("OpVectorShuffle", self.tid(t4), words[0], words[-1],
                        *(range(4) if n == 4 else (0, 1, 0, 1)))
            self.void_op("OpImageWrite", img, p.coord, v)
            return
        if n != 4:
            comps = [v] if n == 1 else [self.op("OpCompositeExtract", self.tid(s), v, i) for i in range(n)]
            # a 3-component element lives in a 4-component format (Rgba32f, ...): its w gets x, as D3D writes
            # it (DXC's DXIL repeats the first component in a typed store); 1 and 2 fill what the format drops
            comps += [comps[0] if n == 3 else self.const(s, 0)] * (4 - n)
            v = self.op("OpCompositeConstruct", self.tid(t4), *comps)
        self.void_op("OpImageWrite", img, p.coord, v)

    # ----------------------------------------------------- helpers for subclasses

    def temp_var(self, t: Type) -> int:
        raise NotImplementedError



def ncomp(t: Type) -> int:
    """Scalar components of a scalar/vector/matrix type; 0 for anything else."""
    return component_count(t) if is_numeric(t) else 0


def row_type(t: Type) -> Type:
    if isinstance(t, Matrix):
        return t.elem if t.cols == 1 else Vector(t.elem, t.cols)
    return t


def with_scalar(t: Type, s: Scalar) -> Type:
    if isinstance(t, Vector):
        return Vector(s, t.size)
    if isinstance(t, Matrix):
        return Matrix(s, t.rows, t.cols)
    return s


_MANTISSA = {16: 11, 32: 24, 64: 53}     # significand bits of each float width (integers up to 2^n are exact)
# the float arithmetic NoContraction applies to
_CONTRACTIBLE = frozenset(("OpFAdd", "OpFSub", "OpFMul", "OpFDiv", "OpFRem", "OpFMod", "OpFNegate", "OpDot",
                           "OpVectorTimesScalar", "OpMatrixTimesScalar", "OpVectorTimesMatrix",
                           "OpMatrixTimesVector", "OpMatrixTimesMatrix", "OpOuterProduct"))

_EXPR_DISPATCH: dict[type, Callable[..., int]] = {
    Const: ExprEmitter.e_const, SpecConst: ExprEmitter.e_spec_const, Load: ExprEmitter.e_load, Unary: ExprEmitter.e_unary,
    Binary: ExprEmitter.e_binary, Select: ExprEmitter.e_select, Convert: ExprEmitter.e_convert,
    Bitcast: ExprEmitter.e_bitcast, Construct: ExprEmitter.e_construct, Swizzle: ExprEmitter.e_swizzle,
    Extract: ExprEmitter.e_extract, Call: ExprEmitter.e_call, Intrinsic: ExprEmitter.e_intrinsic,
    VarRef: ExprEmitter.e_place, FieldRef: ExprEmitter.e_place, IndexRef: ExprEmitter.e_place,
    SwizzleRef: ExprEmitter.e_place, BufferElem: ExprEmitter.e_place,
}

__all__ = ["BINARY_OPS", "CONVERT_OPS", "UNARY_OPS", "Ctx", "ExprEmitter", "ImagePlace", "Ptr", "SsaPlace",
           "SwizzlePlace", "VarSlot"]
