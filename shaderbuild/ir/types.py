"""IR types.  All are interned records (see records.py): equal types are the same object
(structural interning); construct them freely.
"""

from __future__ import annotations

from ..records import InternedRecord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeGuard, overload

__all__ = [
    "Type", "VoidType", "Scalar", "Vector", "Matrix", "Array", "StructField", "Struct",
    "Resource", "RayQuery", "VOID", "BOOL", "INT", "UINT", "FLOAT", "DOUBLE", "HALF", "INT64", "UINT64",
    "INT16", "UINT16", "scalar_of", "element_of", "component_count", "vec", "is_numeric",
]


class Type(InternedRecord):
    """Base class of IR types."""

    __slots__ = ()


class VoidType(Type):
    def __str__(self) -> str:
        return "void"


class Scalar(Type):
    """kind is 'bool', 'int', 'uint' or 'float'; width in bits (bool is 32 in memory)."""

    kind: str
    width: int = 32

    def __str__(self) -> str:
        if self.kind == "bool":
            return "bool"
        if self.kind == "float":
            return {16: "half", 32: "float", 64: "double"}[self.width]
        base = self.kind
        return base if self.width == 32 else f"{base}{self.width}_t"

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_int(self) -> bool:
        return self.kind in ("int", "uint")

    @property
    def is_signed(self) -> bool:
        return self.kind == "int"


class Vector(Type):
    elem: Scalar
    size: int

    def __str__(self) -> str:
        return f"{self.elem}{self.size}"


class Matrix(Type):
    """An HLSL matrix: `rows` x `cols` of `elem` (HLSL's row/column convention)."""

    elem: Scalar
    rows: int
    cols: int

    def __str__(self) -> str:
        return f"{self.elem}{self.rows}x{self.cols}"


class Array(Type):
    """A fixed array, or a runtime-sized one when size is None."""

    elem: Type
    size: int | None

    def __str__(self) -> str:
        return f"{self.elem}[{'' if self.size is None else self.size}]"


class StructField(InternedRecord):
    name: str
    type: Type
    semantic: str | None = None
    interpolation: str | None = None
    row_major: bool | None = None  # matrix majorness override; None = module default
    vk_offset: int | None = None       # [[vk::offset(N)]]: Vulkan layouts only, wins over packoffset
    vk_location: int | None = None
    vk_builtin: str | None = None
    packoffset: int | None = None      # `: packoffset(cN.x)` in bytes: every cbuffer layout
    per_primitive: bool = False        # [[vk::perprimitive]]: a pixel input a mesh shader writes per primitive
    coherent: bool = False             # a `globallycoherent` resource member: the resource it names is coherent


class Struct(Type):
    name: str
    fields: tuple[StructField, ...]

    def field_index(self, name: str) -> int:
        for i, f in enumerate(self.fields):
            if f.name == name:
                return i
        raise KeyError(name)

    def __str__(self) -> str:
        return self.name


class Resource(Type):
    """An opaque resource.  kind is the HLSL spelling ('RWStructuredBuffer',
    'Texture2D', 'SamplerState', ...); elem is the element type where there is one."""

    kind: str
    elem: Type | None = None
    row_major: bool | None = None  # orientation of matrices in a structured buffer's element; None = column
    samples: int = 0               # Texture2DMS<T, N>: N (DXIL records it; 0 = not given)

    def __str__(self) -> str:
        if self.samples:
            return f"{self.kind}<{self.elem}, {self.samples}>"
        return f"{self.kind}<{self.elem}>" if self.elem is not None else self.kind

    @property
    def register_class(self) -> str:
        """The D3D register class letter: t, u, b or s (from the resource-kind table)."""
        from .resource_kinds import KINDS

        return KINDS[self.kind].register_class


class RayQuery(Type):
    """An SM 6.5 inline ray-tracing query, `RayQuery<flags, query_flags>`: an opaque function-local
    object whose state the RayQuery methods (ir/intrinsics.py) read and advance.  It is never a
    value: a local of this type is passed to those methods as its place, and never loaded, stored
    or copied; each backend gives the local its own form (an OpTypeRayQueryKHR variable, a DXIL
    allocateRayQuery handle carrying `flags`)."""

    flags: int
    query_flags: int = 0

    def __str__(self) -> str:
        return f"RayQuery<{self.flags}{f', {self.query_flags}' if self.query_flags else ''}>"


VOID = VoidType()
BOOL = Scalar("bool")
INT = Scalar("int")
UINT = Scalar("uint")
FLOAT = Scalar("float")
DOUBLE = Scalar("float", 64)
HALF = Scalar("float", 16)
INT64 = Scalar("int", 64)
UINT64 = Scalar("uint", 64)
INT16 = Scalar("int", 16)
UINT16 = Scalar("uint", 16)


if TYPE_CHECKING:
    @overload
    def scalar_of(t: Scalar | Vector | Matrix) -> Scalar: ...
    @overload
    def scalar_of(t: Type) -> Scalar | None: ...
def scalar_of(t: Type) -> Scalar | None:
    """The component scalar of a scalar, vector or matrix type, else None.  Exact class tests
    (the three have no subclasses, tests/ir/test_types_exact.py): cheaper than `isinstance`
    calls, which search the type's MRO when they fail, on this hot path (~6k calls per 1,000 lines)."""
    cls = t.__class__
    if cls is Scalar:
        return t  # type: ignore[return-value]
    if cls is Vector or cls is Matrix:
        return t.elem  # type: ignore[attr-defined]
    return None


def numeric_scalar(t: Type) -> Scalar:
    """scalar_of for a type the IR guarantees numeric (an arithmetic operand, a texel): asserts."""
    s = scalar_of(t)
    assert s is not None, f"'{t}' has no component scalar"
    return s


def resource_elem(r: Resource) -> Type:
    """The element type of a resource kind that has one (buffers, textures; sema gives the defaults)."""
    assert r.elem is not None, f"'{r}' has no element type"
    return r.elem


def element_of(t: Type) -> Type | None:
    """The type of `t[i]`: an array's element, a vector's component, a matrix's row; else None."""
    if isinstance(t, (Array, Vector)):
        return t.elem
    if isinstance(t, Matrix):
        return vec(t.elem, t.cols)
    return None


def component_count(t: Type) -> int:
    """Number of scalar components of a numeric type (recursively for aggregates)."""
    if isinstance(t, Scalar):
        return 1
    if isinstance(t, Vector):
        return t.size
    if isinstance(t, Matrix):
        return t.rows * t.cols
    if isinstance(t, Array):
        return (t.size or 0) * component_count(t.elem)
    if isinstance(t, Struct):
        return sum(component_count(f.type) for f in t.fields)
    return 0


def vec(elem: Scalar, n: int) -> Type:
    """A vector of n elements, or the scalar itself when n == 1."""
    return elem if n == 1 else Vector(elem, n)


_NUMERIC = frozenset((Scalar, Vector, Matrix))


def is_numeric(t: Type) -> TypeGuard[Scalar | Vector | Matrix]:
    return t.__class__ in _NUMERIC      # exact classes: see scalar_of
