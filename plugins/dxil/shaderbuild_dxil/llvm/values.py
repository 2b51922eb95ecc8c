"""LLVM values: constants, globals, functions, arguments, blocks, instructions.

Constants are compared by `key()` so equal constants share one value id in the
bitcode.  Instructions are a single class keyed by LLVM opcode name with the
opcode-specific extras in `attrs`; the writer and printer dispatch on tables.
"""

from __future__ import annotations

import struct

from .types import FloatType, FunctionType, IntType, PointerType, Type, VoidType, label

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

__all__ = ["Value", "Constant", "ConstInt", "ConstFloat", "Undef", "ConstNull", "ConstAggregate", "GlobalValue",
           "GlobalVariable", "Function", "Argument", "BasicBlock", "Instruction", "float_bits", "const_key"]


class Value:
    __slots__ = ("type", "name")

    def __init__(self, type: Type, name: str = "") -> None:
        self.type = type
        self.name = name


class Constant(Value):
    __slots__ = ()

    def key(self) -> tuple:
        raise NotImplementedError


class ConstInt(Constant):
    __slots__ = ("value",)
    type: IntType

    def __init__(self, type: IntType, value: int) -> None:
        self.type = type
        self.name = ""
        self.value = int(value) & ((1 << type.width) - 1)          # stored unsigned

    @property
    def signed(self) -> int:
        w = self.type.width
        v = self.value
        return v - (1 << w) if v >> (w - 1) else v

    def key(self) -> tuple:
        return ("int", self.type, self.value)


_FLOAT_PACK = {16: struct.Struct("<e").pack, 32: struct.Struct("<f").pack, 64: struct.Struct("<d").pack}


def float_bits(width: int, value: float) -> int:
    """IEEE bit pattern of `value` at `width` bits (half/float/double)."""
    return int.from_bytes(_FLOAT_PACK[width](value), "little")


class ConstFloat(Constant):
    __slots__ = ("value", "bits")
    type: FloatType

    def __init__(self, type: FloatType, value: float, bits: int | None = None) -> None:
        self.type = type
        self.name = ""
        self.value = float(value)
        self.bits = float_bits(type.width, value) if bits is None else bits

    def key(self) -> tuple:
        return ("float", self.type, self.bits)


class Undef(Constant):
    __slots__ = ()

    def key(self) -> tuple:
        return ("undef", self.type)


class ConstNull(Constant):
    """The all-zero value of a type (null pointer, zeroinitializer, 0)."""

    __slots__ = ()

    def key(self) -> tuple:
        return ("null", self.type)


class ConstAggregate(Constant):
    __slots__ = ("elems",)

    def __init__(self, type: Type, elems: list[Constant]) -> None:
        super().__init__(type)
        self.elems = list(elems)

    def key(self) -> tuple:
        return ("agg", self.type, tuple(e.key() for e in self.elems))


def const_key(v: Value) -> Any:
    return v.key() if isinstance(v, Constant) else id(v)


def is_null_value(c: Constant) -> bool:
    """LLVM writes zero integers/floats (+0.0) as NULL records."""
    if isinstance(c, ConstNull):
        return True
    if isinstance(c, ConstInt):
        return c.value == 0
    if isinstance(c, ConstFloat):
        return c.bits == 0
    return False


class GlobalValue(Constant):
    __slots__ = ("linkage",)

    def key(self) -> tuple:
        return ("global", id(self))


class GlobalVariable(GlobalValue):
    __slots__ = ("value_type", "constant", "initializer", "align", "addrspace", "unnamed_addr")

    def __init__(self, value_type: Type, name: str, addrspace: int = 0, constant: bool = False,
                 initializer: Constant | None = None, linkage: str = "external", align: int = 0) -> None:
        super().__init__(PointerType(value_type, addrspace), name)
        self.value_type = value_type
        self.addrspace = addrspace
        self.constant = constant
        self.initializer = initializer
        self.linkage = linkage
        self.align = align
        self.unnamed_addr = False


class Argument(Value):
    __slots__ = ("index",)

    def __init__(self, type: Type, index: int, name: str = "") -> None:
        super().__init__(type, name)
        self.index = index


_FUNCTION_POINTERS: dict[FunctionType, PointerType] = {}


def _function_pointer(ftype: FunctionType) -> PointerType:
    """PointerType(ftype), shared by every declaration of the same function type object (the
    dx.op signatures are made once per operation and overload, and declared in every module)."""
    p = _FUNCTION_POINTERS.get(ftype)
    if p is None or p.pointee is not ftype:
        p = _FUNCTION_POINTERS[ftype] = PointerType(ftype)
    return p


class Function(GlobalValue):
    __slots__ = ("ftype", "attrs", "blocks", "_args")

    def __init__(self, ftype: FunctionType, name: str, attrs: tuple[str, ...] = (), linkage: str = "external") -> None:
        self.type = _function_pointer(ftype)
        self.name = name
        self.ftype = ftype
        self.attrs = tuple(attrs)
        self.linkage = linkage
        self.blocks: list[BasicBlock] = []
        self._args: list[Argument] | None = None

    @property
    def args(self) -> list[Argument]:
        """The parameters as values, made on first use: a module declares dozens of dx.op
        functions whose arguments nothing ever refers to."""
        if self._args is None:
            self._args = [Argument(t, i) for i, t in enumerate(self.ftype.params)]
        return self._args

    @property
    def is_declaration(self) -> bool:
        return not self.blocks

    def append_block(self, name: str = "") -> BasicBlock:
        bb = BasicBlock(name, self)
        self.blocks.append(bb)
        return bb


class BasicBlock(Value):
    """`ssa_*`: the SSA construction's state of the block while the function is lowered
    (ssa.py): current definitions, predecessor edges, whether all of them are known.  Kept on
    the block because the construction looks them up for nearly every value it reads."""

    __slots__ = ("instructions", "parent", "ssa_defs", "ssa_preds", "ssa_sealed")

    def __init__(self, name: str, parent: Function | None) -> None:
        self.type = label
        self.name = name
        self.instructions: list[Instruction] = []
        self.parent = parent
        self.ssa_defs: dict[int, Value] | None = None
        self.ssa_preds: list[BasicBlock] | None = None
        self.ssa_sealed = False

    @property
    def terminator(self) -> Instruction | None:
        insts = self.instructions
        if insts and insts[-1].op in TERMINATORS:
            return insts[-1]
        return None


TERMINATORS = frozenset({"ret", "br", "switch", "unreachable"})


class Instruction(Value):
    """`op` is the LLVM opcode name; `operands` are the value operands; `attrs`
    holds the rest (predicate, flags, alignment, successors, indices, ...)."""

    __slots__ = ("op", "operands", "attrs", "parent")

    def __init__(self, op: str, type: Type, operands: list[Value], name: str = "", **attrs: Any) -> None:
        self.type = type
        self.name = name
        self.op = op
        self.operands = list(operands)
        self.attrs = attrs
        self.parent: BasicBlock | None = None

    @property
    def has_value(self) -> bool:
        return self.type.__class__ is not VoidType

    @property
    def successors(self) -> Sequence[BasicBlock]:
        """The successor blocks, in order (a br's own tuple: callers only read it)."""
        if self.op == "br":
            return self.attrs["targets"]
        if self.op == "switch":
            return [self.attrs["default"], *(bb for _, bb in self.attrs["cases"])]
        return []

    def __repr__(self) -> str:
        return f"<Instruction {self.op} {self.type}>"


def callee_of(call: Instruction) -> Function:
    """The function a `call` instruction calls (its first operand)."""
    fn = call.operands[0]
    assert isinstance(fn, Function), "not a call"
    return fn


def int_type_of(v: Value) -> IntType:
    """The type of an integer value (operands the IR types as integers)."""
    t = v.type
    assert isinstance(t, IntType), f"{t} is not an integer type"
    return t


def float_type_of(v: Value) -> FloatType:
    """The type of a floating-point value."""
    t = v.type
    assert isinstance(t, FloatType), f"{t} is not a floating-point type"
    return t
