"""LLVM 3.7 types.  Literal types are Records equal by their fields (structural equality);
named structs compare by name, as in LLVM.

Types are dictionary keys everywhere in the backend (the writer's type table, the
checker, the feature scan), so the composite ones remember their hash after the
first computation and equality short-cuts on identity (most types are shared).
"""

from __future__ import annotations

from shaderbuild.records import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Type", "VoidType", "IntType", "FloatType", "LabelType", "MetadataType", "PointerType", "ArrayType",
           "StructType", "FunctionType", "void", "i1", "i8", "i16", "i32", "i64", "f16", "f32", "double", "label",
           "metadata", "quote_name", "pointer_to"]


# the scalar types are interned (one object per kind and width): IntType(32) is i32
_INTERNED: dict[object, Any] = {}     # (class, width) or class -> the instance of that class


def cls_of(t: Type) -> type:
    return t.__class__


class Type:
    __slots__ = ()

    def ptr(self, addrspace: int = 0) -> PointerType:
        return pointer_to(self, addrspace)

    @property
    def is_int(self) -> bool:
        return isinstance(self, IntType)

    @property
    def is_float(self) -> bool:
        return isinstance(self, FloatType)


class _Composite(Type):
    """Pointer, array, struct and function types: equal by their fields, hashed once with the
    hash kept in the `_hash` slot (types are dictionary keys everywhere).  The cached hash is
    per process, so pickling rebuilds the type from its fields.  Subclasses set
    `__hash__ = _Composite.cached_hash` (defining `__eq__` would otherwise make them unhashable)."""

    __slots__ = ()

    def fields(self) -> tuple:
        """The constructor arguments."""
        raise NotImplementedError

    def hash_key(self) -> tuple:
        return (self.__class__.__name__, *self.fields())

    if TYPE_CHECKING:
        _hash: int | None           # a slot of every subclass (a Record field, None until computed)

    def cached_hash(self) -> int:
        h = self._hash
        if h is None:
            h = hash(self.hash_key())
            object.__setattr__(self, "_hash", h)
        return h

    def __reduce__(self) -> tuple:
        return (cls_of(self), self.fields())


class VoidType(Type, Record):
    """A singleton: equality and hashing are identity (C speed)."""

    def __new__(cls) -> VoidType:
        t = _INTERNED.get(cls)
        if t is None:
            t = _INTERNED[cls] = object.__new__(cls)
        return t

    def __reduce__(self) -> tuple:
        return (cls_of(self), ())

    def __str__(self) -> str:
        return "void"


class IntType(Type, Record):
    """Interned per width: equality and hashing are identity (C speed)."""

    width: int

    def __new__(cls, width: int) -> IntType:
        t = _INTERNED.get((cls, width))
        if t is None:
            t = _INTERNED[(cls, width)] = object.__new__(cls)
            object.__setattr__(t, "width", width)
        return t

    def __reduce__(self) -> tuple:
        return (cls_of(self), (self.width,))

    def __str__(self) -> str:
        return f"i{self.width}"


_FLOAT_NAMES = {16: "half", 32: "float", 64: "double"}


class FloatType(Type, Record):
    """Interned per width: equality and hashing are identity (C speed)."""

    width: int

    def __new__(cls, width: int) -> FloatType:
        t = _INTERNED.get((cls, width))
        if t is None:
            t = _INTERNED[(cls, width)] = object.__new__(cls)
            object.__setattr__(t, "width", width)
        return t

    def __reduce__(self) -> tuple:
        return (cls_of(self), (self.width,))

    def __str__(self) -> str:
        return _FLOAT_NAMES[self.width]


class LabelType(Type, Record):
    """A singleton: equality and hashing are identity (C speed)."""

    def __new__(cls) -> LabelType:
        t = _INTERNED.get(cls)
        if t is None:
            t = _INTERNED[cls] = object.__new__(cls)
        return t

    def __reduce__(self) -> tuple:
        return (cls_of(self), ())

    def __str__(self) -> str:
        return "label"


class MetadataType(Type, Record):
    """A singleton: equality and hashing are identity (C speed)."""

    def __new__(cls) -> MetadataType:
        t = _INTERNED.get(cls)
        if t is None:
            t = _INTERNED[cls] = object.__new__(cls)
        return t

    def __reduce__(self) -> tuple:
        return (cls_of(self), ())

    def __str__(self) -> str:
        return "metadata"


class PointerType(_Composite, Record):
    pointee: Type
    addrspace: int = 0
    _hash: int | None = None

    def __eq__(self, other: object) -> bool:
        return self is other or (other.__class__ is PointerType and self.addrspace == other.addrspace
                                 and self.pointee == other.pointee)

    def fields(self) -> tuple:
        return (self.pointee, self.addrspace)

    __hash__ = _Composite.cached_hash

    def __str__(self) -> str:
        space = f" addrspace({self.addrspace})" if self.addrspace else ""
        return f"{self.pointee}{space}*"


class ArrayType(_Composite, Record):
    elem: Type
    count: int
    _hash: int | None = None

    def __eq__(self, other: object) -> bool:
        return self is other or (other.__class__ is ArrayType and self.count == other.count
                                 and self.elem == other.elem)

    def fields(self) -> tuple:
        return (self.elem, self.count)

    __hash__ = _Composite.cached_hash

    def __str__(self) -> str:
        return f"[{self.count} x {self.elem}]"


class StructType(_Composite, Record):
    """A literal struct when name is None, else a named (identified) struct."""

    elems: tuple[Type, ...]
    name: str | None = None
    packed: bool = False
    _hash: int | None = None

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, StructType):
            return False
        if self.name is not None or other.name is not None:
            return self.name == other.name
        return self.elems == other.elems and self.packed == other.packed

    def fields(self) -> tuple:
        return (self.elems, self.name, self.packed)

    def hash_key(self) -> tuple:
        """A named struct is equal to any struct of its name (see __eq__), so only the name is hashed."""
        return ("struct", self.name) if self.name is not None else ("struct", self.elems, self.packed)

    __hash__ = _Composite.cached_hash

    def __str__(self) -> str:
        if self.name is not None:
            return "%" + quote_name(self.name)
        return self.body()

    def body(self) -> str:
        inner = "{ " + ", ".join(str(e) for e in self.elems) + " }" if self.elems else "{}"
        return f"<{inner}>" if self.packed else inner


class FunctionType(_Composite, Record):
    ret: Type
    params: tuple[Type, ...]
    vararg: bool = False
    _hash: int | None = None

    def __eq__(self, other: object) -> bool:
        return self is other or (other.__class__ is FunctionType and self.vararg == other.vararg
                                 and self.ret == other.ret and self.params == other.params)

    def fields(self) -> tuple:
        return (self.ret, self.params, self.vararg)

    __hash__ = _Composite.cached_hash

    def __str__(self) -> str:
        ps = ", ".join(str(p) for p in self.params)
        if self.vararg:
            ps = f"{ps}, ..." if ps else "..."
        return f"{self.ret} ({ps})"


_SCALAR_POINTERS: dict[tuple[Type, int], PointerType] = {}


def pointer_to(t: Type, addrspace: int = 0) -> PointerType:
    """PointerType(t, addrspace), shared when t is an interned scalar type (allocas and
    GEPs of scalars ask for the same few pointer types over and over)."""
    if t.__class__ is IntType or t.__class__ is FloatType:
        p = _SCALAR_POINTERS.get((t, addrspace))
        if p is None:
            p = _SCALAR_POINTERS[(t, addrspace)] = PointerType(t, addrspace)
        return p
    return PointerType(t, addrspace)


_IDENT_CHARS = frozenset("-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ$._0123456789")


def quote_name(name: str) -> str:
    """An LLVM identifier, quoted when it has characters outside [-a-zA-Z$._0-9] or starts with a digit."""
    if name and name[0] not in "0123456789" and _IDENT_CHARS.issuperset(name):
        return name
    return '"' + name.replace('"', "\\22") + '"'


void = VoidType()
i1, i8, i16, i32, i64 = IntType(1), IntType(8), IntType(16), IntType(32), IntType(64)
f16, f32, double = FloatType(16), FloatType(32), FloatType(64)
label = LabelType()
metadata = MetadataType()
