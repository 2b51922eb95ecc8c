"""An llvmlite-style IR builder: a cursor at the end of a block, and families
of instructions stamped out by small decorator factories."""

from __future__ import annotations

from shaderbuild.lightstd import attrgetter

from .types import (
    ArrayType,
    FloatType,
    FunctionType,
    IntType,
    PointerType,
    StructType,
    Type,
    i1,
    i32,
    pointer_to,
    void,
)
from .values import TERMINATORS, BasicBlock, ConstInt, Function, Instruction, Value, const_key

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

_new_instruction = Instruction.__new__
_type_of = attrgetter("type")

__all__ = ["IRBuilder", "ICMP_PREDICATES", "FCMP_PREDICATES", "BINOPS", "CASTS"]

# LLVM CmpInst::Predicate numbering (the bitcode and the printer use these).
FCMP_PREDICATES = {"false": 0, "oeq": 1, "ogt": 2, "oge": 3, "olt": 4, "ole": 5, "one": 6, "ord": 7, "uno": 8,
                   "ueq": 9, "ugt": 10, "uge": 11, "ult": 12, "ule": 13, "une": 14, "true": 15}
ICMP_PREDICATES = {"eq": 32, "ne": 33, "ugt": 34, "uge": 35, "ult": 36, "ule": 37, "sgt": 38, "sge": 39,
                   "slt": 40, "sle": 41}

FAST_MATH = 0x1F  # LLVM 3.7 `fast`: UnsafeAlgebra | NoNaNs | NoInfs | NoSignedZeros | AllowReciprocal
INT_BINOPS = ("add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or", "xor")
FLOAT_BINOPS = ("fadd", "fsub", "fmul", "fdiv", "frem")
BINOPS = INT_BINOPS + FLOAT_BINOPS
CASTS = ("trunc", "zext", "sext", "fptoui", "fptosi", "uitofp", "sitofp", "fptrunc", "fpext", "ptrtoint",
         "inttoptr", "bitcast")
ATOMIC_RMW_OPS = ("xchg", "add", "sub", "and", "nand", "or", "xor", "max", "min", "umax", "umin")


_BINOP_OPERAND: dict[str, type] = {**dict.fromkeys(INT_BINOPS, IntType), **dict.fromkeys(FLOAT_BINOPS, FloatType)}


def _binop(op: str) -> Callable:
    want = FloatType if op in FLOAT_BINOPS else IntType
    is_float = op in FLOAT_BINOPS

    def factory(fn: Callable) -> Callable:
        def method(self: IRBuilder, lhs: Value, rhs: Value, name: str = "", flags: int = 0) -> Instruction:
            t = lhs.type
            if (t is not rhs.type and t != rhs.type) or not isinstance(t, want):
                raise TypeError(f"{op}: operand types {lhs.type}, {rhs.type}")
            return self._emit(op, t, [lhs, rhs], {"flags": flags | self.fp_flags if is_float else flags}, name)
        method.__name__ = fn.__name__
        method.__doc__ = f"`{op}` of two {want.__name__} values."
        return method
    return factory


def _cast(op: str) -> Callable:
    def factory(fn: Callable) -> Callable:
        def method(self: IRBuilder, value: Value, to: Type, name: str = "") -> Instruction:
            return self._emit(op, to, [value], {}, name)
        method.__name__ = fn.__name__
        method.__doc__ = f"`{op}` cast."
        return method
    return factory


class IRBuilder:
    # fast-math flags of every float binop built (LLVM 3.7 bits): `fast` as DXC, except under HLSL
    # `precise` (the lowering sets 0 while it builds a precise value).  fcmp stays unflagged, unlike
    # DXC: its flags only license NaN/Inf assumptions (no contraction is at stake), under which
    # LLVM folds `x != x` to false; HLSL code uses such comparisons to test for NaN
    fp_flags: int = FAST_MATH
    # -Zi: every instruction built gets `dbg_loc` (a (line, col, scope, inlinedAt) tuple) in `dbg_locs`
    dbg_loc: tuple | None = None

    def __init__(self, block: BasicBlock | None = None) -> None:
        self.block = block
        self.dbg_locs: dict[Value, tuple] = {}

    def position_at_end(self, block: BasicBlock) -> None:
        self.block = block

    def _insert(self, inst: Instruction) -> Instruction:
        block = self._open_block()
        inst.parent = block
        block.instructions.append(inst)
        if self.dbg_loc is not None:
            self.dbg_locs[inst] = self.dbg_loc
        return inst

    def _emit(self, op: str, type: Type, operands: list[Value], attrs: dict, name: str = "") -> Instruction:
        """_insert(Instruction(op, type, operands, name, **attrs)) in one step: every instruction
        the lowering builds comes through here (`operands` and `attrs` are fresh: kept as they are),
        so `_open_block`'s checks are inlined."""
        block = self.block
        if block is None:
            raise RuntimeError("builder has no insertion block")
        insts = block.instructions
        if insts and insts[-1].op in TERMINATORS:
            raise RuntimeError(f"block {block.name} is already terminated")
        inst = _new_instruction(Instruction)
        inst.type = type
        inst.name = name
        inst.op = op
        inst.operands = operands
        inst.attrs = attrs
        inst.parent = block
        insts.append(inst)
        if self.dbg_loc is not None:
            self.dbg_locs[inst] = self.dbg_loc
        return inst

    # ---- arithmetic (one line each; the decorator does the work)
    @_binop("add")
    def add(self): ...
    @_binop("sub")
    def sub(self): ...
    @_binop("mul")
    def mul(self): ...
    @_binop("udiv")
    def udiv(self): ...
    @_binop("sdiv")
    def sdiv(self): ...
    @_binop("urem")
    def urem(self): ...
    @_binop("srem")
    def srem(self): ...
    @_binop("shl")
    def shl(self): ...
    @_binop("lshr")
    def lshr(self): ...
    @_binop("ashr")
    def ashr(self): ...
    @_binop("and")
    def and_(self): ...
    @_binop("or")
    def or_(self): ...
    @_binop("xor")
    def xor(self): ...
    @_binop("fadd")
    def fadd(self): ...
    @_binop("fsub")
    def fsub(self): ...
    @_binop("fmul")
    def fmul(self): ...
    @_binop("fdiv")
    def fdiv(self): ...
    @_binop("frem")
    def frem(self): ...

    def binop(self, op: str, lhs: Value, rhs: Value, name: str = "", flags: int = 0) -> Instruction:
        """The binop named `op` (the same checks as the named methods, without a method lookup)."""
        want = _BINOP_OPERAND[op]
        t = lhs.type
        if (t is not rhs.type and t != rhs.type) or not isinstance(t, want):
            raise TypeError(f"{op}: operand types {lhs.type}, {rhs.type}")
        if want is FloatType:
            flags |= self.fp_flags
        return self._emit(op, t, [lhs, rhs], {"flags": flags}, name)

    def binops(self, op: str, lhs: list[Value], rhs: list[Value], flags: int = 0) -> list[Value]:
        """`binop(op, x, y)` of each pair, in order: a scalarised vector operation."""
        want = _BINOP_OPERAND[op]
        if want is FloatType:
            flags |= self.fp_flags
        return self._pairwise(op, lhs, rhs, {"flags": flags}, want, None)

    def compares(self, op: str, pred: str, lhs: list[Value], rhs: list[Value]) -> list[Value]:
        """`icmp` / `fcmp` (op) with `pred` of each pair, in order (as `binops`)."""
        return self._pairwise(op, lhs, rhs, {"pred": pred}, None, i1)

    def _pairwise(self, op: str, lhs: list[Value], rhs: list[Value], attrs: dict, want: type | None,
                  result: Type | None) -> list[Value]:
        """One `op` instruction per operand pair (equal types, of class `want` when given), typed
        `result` or the operands' type.  The block is tested once (nothing appended here ends it)
        and the instructions are built in one loop."""
        block = self._open_block()
        append = block.instructions.append
        out: list[Value] = []
        for x, y in zip(lhs, rhs):
            t = x.type
            if (t is not y.type and t != y.type) or (want is not None and not isinstance(t, want)):
                raise TypeError(f"{op}: operand types {x.type}, {y.type}")
            inst = _new_instruction(Instruction)
            inst.type = t if result is None else result
            inst.name = ""
            inst.op = op
            inst.operands = [x, y]
            inst.attrs = attrs.copy()
            inst.parent = block
            append(inst)
            out.append(inst)
        if self.dbg_loc is not None:
            self.dbg_locs.update(dict.fromkeys(out, self.dbg_loc))
        return out

    def _open_block(self) -> BasicBlock:
        """The insertion block, checked as `_emit` checks it."""
        block = self.block
        if block is None:
            raise RuntimeError("builder has no insertion block")
        insts = block.instructions
        if insts and insts[-1].op in TERMINATORS:
            raise RuntimeError(f"block {block.name} is already terminated")
        return block

    # ---- casts
    @_cast("trunc")
    def trunc(self): ...
    @_cast("zext")
    def zext(self): ...
    @_cast("sext")
    def sext(self): ...
    @_cast("fptoui")
    def fptoui(self): ...
    @_cast("fptosi")
    def fptosi(self): ...
    @_cast("uitofp")
    def uitofp(self): ...
    @_cast("sitofp")
    def sitofp(self): ...
    @_cast("fptrunc")
    def fptrunc(self): ...
    @_cast("fpext")
    def fpext(self): ...
    @_cast("ptrtoint")
    def ptrtoint(self): ...
    @_cast("inttoptr")
    def inttoptr(self): ...
    @_cast("bitcast")
    def bitcast(self): ...

    def cast(self, op: str, value: Value, to: Type, name: str = "") -> Instruction:
        return getattr(self, op)(value, to, name)

    # ---- comparisons and select
    def icmp(self, pred: str, lhs: Value, rhs: Value, name: str = "") -> Instruction:
        if lhs.type != rhs.type:
            raise TypeError(f"icmp operand types {lhs.type}, {rhs.type}")
        return self._emit("icmp", i1, [lhs, rhs], {"pred": pred}, name)

    def fcmp(self, pred: str, lhs: Value, rhs: Value, name: str = "") -> Instruction:
        if lhs.type != rhs.type:
            raise TypeError(f"fcmp operand types {lhs.type}, {rhs.type}")
        return self._emit("fcmp", i1, [lhs, rhs], {"pred": pred}, name)

    def select(self, cond: Value, a: Value, b: Value, name: str = "") -> Value:
        if a.type != b.type or cond.type != i1:
            raise TypeError("select: bad operand types")
        if const_key(a) == const_key(b):        # select c, x, x is x (as InstCombine folds it in DXC)
            return a
        return self._emit("select", a.type, [cond, a, b], {}, name)

    # ---- calls
    def call(self, fn: Function, args: list[Value], name: str = "") -> Instruction:
        ft: FunctionType = fn.ftype
        if tuple(map(_type_of, args)) != ft.params:          # element-wise: identity first, then ==
            got = ", ".join(str(a.type) for a in args)
            raise TypeError(f"call {fn.name}: expected ({', '.join(map(str, ft.params))}), got ({got})")
        return self._emit("call", ft.ret, [fn, *args], {}, name)

    # ---- terminators
    def ret(self, value: Value | None = None) -> Instruction:
        return self._emit("ret", void, [] if value is None else [value], {})

    def br(self, target: BasicBlock) -> Instruction:
        return self._emit("br", void, [], {"targets": (target,)})

    def cbranch(self, cond: Value, then: BasicBlock, else_: BasicBlock) -> Instruction:
        if cond.type != i1:
            raise TypeError("branch condition must be i1")
        return self._emit("br", void, [cond], {"targets": (then, else_)})

    def switch(self, value: Value, default: BasicBlock, cases: list[tuple[ConstInt, BasicBlock]]) -> Instruction:
        return self._emit("switch", void, [value], {"default": default, "cases": list(cases)})

    def unreachable(self) -> Instruction:
        return self._emit("unreachable", void, [], {})

    def phi(self, type: Type, incoming: list[tuple[Value, BasicBlock]], name: str = "") -> Instruction:
        inst = Instruction("phi", type, [], name, incoming=list(incoming))
        if self.block is None:
            raise RuntimeError("builder has no insertion block")
        # phis go before every non-phi instruction of the block
        pos = 0
        while pos < len(self.block.instructions) and self.block.instructions[pos].op == "phi":
            pos += 1
        inst.parent = self.block
        self.block.instructions.insert(pos, inst)
        return inst

    # ---- memory
    def alloca(self, type: Type, align: int = 4, name: str = "") -> Instruction:
        return self._emit("alloca", pointer_to(type), [ConstInt(i32, 1)], {"allocated": type, "align": align}, name)

    def load(self, ptr: Value, align: int = 4, name: str = "") -> Instruction:
        if not isinstance(ptr.type, PointerType):
            raise TypeError("load from a non-pointer")
        return self._emit("load", ptr.type.pointee, [ptr], {"align": align, "volatile": False}, name)

    def store(self, value: Value, ptr: Value, align: int = 4) -> Instruction:
        pt = ptr.type
        if not isinstance(pt, PointerType) or (pt.pointee is not value.type and pt.pointee != value.type):
            raise TypeError(f"store {value.type} to {ptr.type}")
        return self._emit("store", void, [value, ptr], {"align": align, "volatile": False})

    def gep(self, ptr: Value, indices: list[Value], inbounds: bool = True, name: str = "") -> Instruction:
        if not isinstance(ptr.type, PointerType):
            raise TypeError("gep on a non-pointer")
        t: Type = ptr.type.pointee
        for idx in indices[1:]:
            if isinstance(t, ArrayType):
                t = t.elem
            elif isinstance(t, StructType):
                assert isinstance(idx, ConstInt)
                t = t.elems[idx.value]          # struct indices are constants
            else:
                raise TypeError(f"gep into {t}")
        rt = pointer_to(t, ptr.type.addrspace)
        return self._emit("getelementptr", rt, [ptr, *indices], {"inbounds": inbounds, "source": ptr.type.pointee}, name)

    def extract_value(self, agg: Value, index: int, name: str = "") -> Instruction:
        t = agg.type
        assert isinstance(t, (StructType, ArrayType))   # an aggregate
        et = t.elems[index] if isinstance(t, StructType) else t.elem
        return self._emit("extractvalue", et, [agg], {"indices": (index,)}, name)

    def extract_values(self, agg: Value, n: int) -> list[Value]:
        """`extract_value(agg, k)` for k < n, in order (the components of a dx.op's result)."""
        t = agg.type
        assert isinstance(t, (StructType, ArrayType))   # an aggregate
        block = self._open_block()
        append = block.instructions.append
        out: list[Value] = []
        for k in range(n):
            inst = _new_instruction(Instruction)
            inst.type = t.elems[k] if isinstance(t, StructType) else t.elem
            inst.name = ""
            inst.op = "extractvalue"
            inst.operands = [agg]
            inst.attrs = {"indices": (k,)}
            inst.parent = block
            append(inst)
            out.append(inst)
        if self.dbg_loc is not None:
            self.dbg_locs.update(dict.fromkeys(out, self.dbg_loc))
        return out

    def atomic_rmw(self, op: str, ptr: Value, value: Value, ordering: str = "seq_cst", name: str = "") -> Instruction:
        if op not in ATOMIC_RMW_OPS:
            raise ValueError(op)
        return self._emit("atomicrmw", value.type, [ptr, value], {"rmw": op, "ordering": ordering}, name)

    def cmpxchg(self, ptr: Value, cmp: Value, new: Value, ordering: str = "seq_cst", name: str = "") -> Instruction:
        rt = StructType((cmp.type, i1))
        return self._emit("cmpxchg", rt, [ptr, cmp, new], {
            "ordering": ordering, "failure": "seq_cst" if ordering in ("seq_cst", "acq_rel") else "monotonic"}, name)
