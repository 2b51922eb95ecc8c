"""LLVM 3.7 types.  Literal types are frozen dataclasses (structural equality);
named structs compare by name, as in LLVM."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Type", "VoidType", "IntType", "FloatType", "LabelType", "MetadataType", "PointerType", "ArrayType",
           "StructType", "FunctionType", "void", "i1", "i8", "i16", "i32", "i64", "f16", "f32", "double", "label",
           "metadata", "quote_name"]


class Type:
    __slots__ = ()

    def ptr(self, addrspace: int = 0) -> PointerType:
        return PointerType(self, addrspace)

    @property
    def is_int(self) -> bool:
        return isinstance(self, IntType)

    @property
    def is_float(self) -> bool:
        return isinstance(self, FloatType)


@dataclass(frozen=True, slots=True)
class VoidType(Type):
    def __str__(self) -> str:
        return "void"


@dataclass(frozen=True, slots=True)
class IntType(Type):
    width: int

    def __str__(self) -> str:
        return f"i{self.width}"


_FLOAT_NAMES = {16: "half", 32: "float", 64: "double"}


@dataclass(frozen=True, slots=True)
class FloatType(Type):
    width: int

    def __str__(self) -> str:
        return _FLOAT_NAMES[self.width]


@dataclass(frozen=True, slots=True)
class LabelType(Type):
    def __str__(self) -> str:
        return "label"


@dataclass(frozen=True, slots=True)
class MetadataType(Type):
    def __str__(self) -> str:
        return "metadata"


@dataclass(frozen=True, slots=True)
class PointerType(Type):
    pointee: Type
    addrspace: int = 0

    def __str__(self) -> str:
        space = f" addrspace({self.addrspace})" if self.addrspace else ""
        return f"{self.pointee}{space}*"


@dataclass(frozen=True, slots=True)
class ArrayType(Type):
    elem: Type
    count: int

    def __str__(self) -> str:
        return f"[{self.count} x {self.elem}]"


@dataclass(frozen=True, slots=True)
class StructType(Type):
    """A literal struct when name is None, else a named (identified) struct."""

    elems: tuple[Type, ...]
    name: str | None = None
    packed: bool = False

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StructType):
            return False
        if self.name is not None or other.name is not None:
            return self.name == other.name
        return self.elems == other.elems and self.packed == other.packed

    def __hash__(self) -> int:
        return hash(("struct", self.name) if self.name is not None else ("struct", self.elems, self.packed))

    def __str__(self) -> str:
        if self.name is not None:
            return "%" + quote_name(self.name)
        return self.body()

    def body(self) -> str:
        inner = "{ " + ", ".join(str(e) for e in self.elems) + " }" if self.elems else "{}"
        return f"<{inner}>" if self.packed else inner


@dataclass(frozen=True, slots=True)
class FunctionType(Type):
    ret: Type
    params: tuple[Type, ...]
    vararg: bool = False

    def __str__(self) -> str:
        ps = ", ".join(str(p) for p in self.params)
        if self.vararg:
            ps = f"{ps}, ..." if ps else "..."
        return f"{self.ret} ({ps})"


_IDENT = re.compile(r"^[-a-zA-Z$._][-a-zA-Z$._0-9]*$")


def quote_name(name: str) -> str:
    """An LLVM identifier, quoted when it has characters outside [-a-zA-Z$._0-9]."""
    return name if _IDENT.match(name) else '"' + name.replace('"', "\\22") + '"'


void = VoidType()
i1, i8, i16, i32, i64 = IntType(1), IntType(8), IntType(16), IntType(32), IntType(64)
f16, f32, double = FloatType(16), FloatType(32), FloatType(64)
label = LabelType()
metadata = MetadataType()
