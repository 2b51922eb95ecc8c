"""IR types and constants -> SPIR-V ids.

A type is lowered per *layout context*: None for logical values (Function,
Private, Workgroup, Input/Output) or a layout rule name for memory that needs
explicit offsets (buffers, push constants).  Struct and array types get one
SPIR-V type per context, as DXC does, because Vulkan forbids explicit-layout
decorations outside those storage classes and a decorated type cannot be shared.
In a layout context `bool` is stored as a 32-bit uint.

Matrices follow DXC: an HLSL RxC float matrix is OpTypeMatrix of R column
vectors of C components (the transpose); Rx1/1xC are vectors, 1x1 a scalar;
non-float matrices are arrays of R row vectors.
"""

from __future__ import annotations

import struct

from shaderbuild.diagnostics import error
from shaderbuild.ir.layout import layout_of
from shaderbuild.ir.types import (
    UINT,
    Array,
    Matrix,
    RayQuery,
    Resource,
    Scalar,
    Struct,
    Type,
    Vector,
    VoidType,
)

from .builder import ModuleBuilder, enum, inst

_WIDTH_CAPS = {("float", 16): "Float16", ("float", 64): "Float64", ("int", 16): "Int16", ("int", 64): "Int64",
               ("uint", 16): "Int16", ("uint", 64): "Int64", ("int", 8): "Int8", ("uint", 8): "Int8"}
# buffer kind -> capability for 16-bit types in it (BufferBlock buffers count as storage buffers)
_STORAGE_16BIT = {"uniform": "UniformAndStorageBuffer16BitAccess", "storage": "StorageBuffer16BitAccess",
                  "push_constant": "StoragePushConstant16", "io": "StorageInputOutput16"}


def matrix_shape(t: Matrix) -> str:
    """'scalar', 'vector', 'matrix' (OpTypeMatrix) or 'array' (non-float) representation."""
    if t.rows == 1 and t.cols == 1:
        return "scalar"
    if t.rows == 1 or t.cols == 1:
        return "vector"
    return "matrix" if t.elem.kind == "float" else "array"


def _strided_by_majority(t: Array, layout: str) -> bool:
    """Whether an array's stride depends on its matrices' orientation: non-square float matrices, and under
    HLSL's packing (-fvk-use-dx-layout) every non-square one (Vulkan's rules store non-float matrices by rows
    and 1xN / Nx1 ones as vectors whatever their orientation; HLSL's register packing follows it)."""
    inner: Type = t
    while isinstance(inner, Array):
        inner = inner.elem
    if not isinstance(inner, Matrix) or inner.rows == inner.cols:
        return False
    return matrix_shape(inner) == "matrix" or layout.startswith("dx_")


def has_layout_difference(t: Type) -> bool:
    """Whether a value of `t` loaded from laid-out memory has a different SPIR-V type."""
    if isinstance(t, Scalar):
        return t.kind == "bool"
    if isinstance(t, Vector):
        return t.elem.kind == "bool"
    if isinstance(t, Matrix):
        return t.elem.kind == "bool" or matrix_shape(t) == "array"
    return isinstance(t, (Array, Struct))


def holds_no_data(t: Type) -> bool:
    """An empty struct (or an array of them): a by-value parameter of such a type makes lavapipe (Mesa 25)
    fail pipeline creation, so the function takes a pointer to it instead (emit_stmt, emit_expr.e_call)."""
    if isinstance(t, Array):
        return holds_no_data(t.elem)
    return isinstance(t, Struct) and all(holds_no_data(f.type) for f in t.fields)


class TypeLowering:
    """Interns SPIR-V types and constants for IR types."""

    def __init__(self, b: ModuleBuilder) -> None:
        self.b = b
        self.spec_ids: dict[int, int] = {}     # SpecId -> result id
        self._value_tids: dict[tuple[Type, str | None], int] = {}   # (scalar or vector type, layout) -> tid
        self._scalar_consts: dict[tuple, int] = {}     # (scalar type, value, its Python type) -> constant id
        self.row_major_arrays: set[int] = set()    # laid-out arrays of row_major non-square matrices

    def spec_const(self, c) -> int:
        """OpSpecConstant / OpSpecConstantTrue / OpSpecConstantFalse decorated SpecId (one per
        [[vk::constant_id]], never interned with an equal constant)."""
        cid = self.spec_ids.get(c.spec_id)
        if cid is None:
            s = c.type
            tid = self.scalar(s)
            cid = self.spec_ids[c.spec_id] = self.b.new_id()
            if s.kind == "bool":
                self.b.globals += inst("OpSpecConstantTrue" if c.value else "OpSpecConstantFalse", [tid, cid])
            else:
                self.b.globals += inst("OpSpecConstant", [tid, cid, *_literal_words(s, c.value)])
            self.b.decorate(cid, "SpecId", c.spec_id)
            self.b.name(cid, c.name)
        return cid

    # ------------------------------------------------------------ types

    def void(self) -> int:
        return self.b.type("OpTypeVoid")

    def bool_(self) -> int:
        return self.b.type("OpTypeBool")

    def scalar(self, s: Scalar, layout: str | None = None) -> int:
        if s.kind == "bool":
            return self.scalar(UINT) if layout else self.bool_()
        cap = _WIDTH_CAPS.get((s.kind, s.width))
        if cap:
            self.b.capability(cap)
        if s.kind == "float":
            return self.b.type("OpTypeFloat", s.width)
        return self.b.type("OpTypeInt", s.width, 1 if s.kind == "int" else 0)

    def vector(self, elem: Scalar, n: int, layout: str | None = None) -> int:
        e = self.scalar(elem, layout)
        return e if n == 1 else self.b.type("OpTypeVector", e, n)

    def tid(self, t: Type, layout: str | None = None, row_major: bool = False) -> int:
        """The SPIR-V type id of `t` in layout context `layout` (a scalar's or vector's remembered:
        most calls ask for one, and IR types are interned, so the key hashes by identity).  `row_major`:
        the orientation of the matrices in an array of them (their stride depends on it)."""
        if row_major and layout is not None and isinstance(t, Array) and _strided_by_majority(t, layout):
            return self._array(t, layout, True)
        key = (t, layout)
        got = self._value_tids.get(key)
        if got is not None:
            return got
        if isinstance(t, (Scalar, Vector)):
            got = self._value_tids[key] = self._tid(t, layout)
            return got
        return self._tid(t, layout)

    def _tid(self, t: Type, layout: str | None) -> int:
        if isinstance(t, Scalar):
            return self.scalar(t, layout)
        if isinstance(t, Vector):
            return self.vector(t.elem, t.size, layout)
        if isinstance(t, Matrix):
            return self._matrix(t, layout)
        if isinstance(t, Array):
            return self._array(t, layout)
        if isinstance(t, Struct):
            return self._struct(t, layout)
        if isinstance(t, VoidType):
            return self.void()
        if isinstance(t, RayQuery):
            return self.ray_query()
        if isinstance(t, Resource):
            raise error(f"resource type {t} cannot be used as a value here")
        raise error(f"type {t} is not supported by the SPIR-V backend")

    def ray_query(self) -> int:
        """OpTypeRayQueryKHR (SPV_KHR_ray_query), the type of a RayQuery local."""
        self._ray_query_capability()
        return self.b.type("OpTypeRayQueryKHR")

    def acceleration_structure(self) -> int:
        """OpTypeAccelerationStructureKHR: a RaytracingAccelerationStructure (read by ray queries, or by
        TraceRay in a ray-tracing library, whose RayTracingKHR capability declares the type too)."""
        if "RayTracingKHR" not in self.b.capabilities:
            self._ray_query_capability()
        return self.b.type("OpTypeAccelerationStructureKHR")

    def _ray_query_capability(self) -> None:
        """The type needs RayQueryKHR or RayTracingKHR; every stage may use ray queries, so RayQueryKHR
        (a ray-tracing pipeline stage would declare RayTracingKHR instead)."""
        self.b.capability("RayQueryKHR")
        self.b.extension("SPV_KHR_ray_query")

    def _matrix(self, t: Matrix, layout: str | None) -> int:
        shape = matrix_shape(t)
        if shape == "scalar":
            return self.scalar(t.elem, layout)
        if shape == "vector":
            return self.vector(t.elem, t.rows * t.cols, layout)
        row = self.vector(t.elem, t.cols, layout)
        if shape == "matrix":
            self.b.capability("Shader")
            return self.b.type("OpTypeMatrix", row, t.rows)
        n = self.uconst(t.rows)
        if layout is None:
            return self.b.type("OpTypeArray", row, n)
        tid = self.b.type("OpTypeArray", row, n, key=("mat-array", t, layout))
        stride = layout_of(t, layout, True).matrix_stride
        assert stride is not None       # a matrix's layout has one
        self.b.decorate(tid, "ArrayStride", stride)
        return tid

    def _array(self, t: Array, layout: str | None, row_major: bool = False) -> int:
        elem = self.tid(t.elem, layout, row_major)
        if layout is None:
            if t.size is None:
                return self.b.type("OpTypeRuntimeArray", elem)
            return self.b.type("OpTypeArray", elem, self.uconst(t.size))
        key = ("array", t, layout, True) if row_major else ("array", t, layout)
        found = self.b.interned(key)
        if found is not None:
            return found
        if t.size is None:
            tid = self.b.type("OpTypeRuntimeArray", elem, key=key)
            stride = layout_of(Array(t.elem, 1), layout, row_major).array_stride
        else:
            tid = self.b.type("OpTypeArray", elem, self.uconst(t.size), key=key)
            stride = layout_of(t, layout, row_major).array_stride
        assert stride is not None       # an array's layout has one
        self.b.decorate(tid, "ArrayStride", stride)
        if row_major:
            self.row_major_arrays.add(tid)
        return tid

    def _struct(self, t: Struct, layout: str | None, block: str | None = None) -> int:
        key = ("struct", t, layout, block)
        tid = self.b.interned(key)
        if tid is not None:
            return tid
        members = [self.tid(f.type, layout, bool(f.row_major)) for f in t.fields]
        tid = self.b.type("OpTypeStruct", *members, key=key)
        self.b.name(tid, block or t.name)
        for i, f in enumerate(t.fields):
            self.b.member_name(tid, i, f.name)
        if layout is not None:
            self.decorate_members(tid, t, layout)
        return tid

    def decorate_members(self, tid: int, t: Struct, layout: str) -> None:
        """Offset, MatrixStride and majorness of each member of a laid-out struct."""
        lay = layout_of(t, layout)
        # the unused end of a matrix's last row that HLSL's cbuffer packing may give to the next member but a
        # SPIR-V matrix spans (spirv-val: overlapping members): (start, end, member) per such member
        tails = [(off + ml.size, off + _spirv_size(f.type, ml, layout, bool(f.row_major)), f.name)
                 for f, off, ml in zip(t.fields, lay.offsets, lay.members)]
        tails = [tail for tail in tails if tail[1] > tail[0]]
        for i, (f, off, ml) in enumerate(zip(t.fields, lay.offsets, lay.members)):
            inside = [name for start, end, name in tails if name != f.name and start <= off < end]
            if inside:
                raise error(f"'{f.name}' is packed into the unused end of the last row of the matrix in '{inside[0]}' "
                            f"in this buffer layout, which SPIR-V cannot express (a SPIR-V matrix spans whole "
                            f"vectors); move '{f.name}' before '{inside[0]}' or use the default Vulkan layout")
            self.b.member_decorate(tid, i, "Offset", off)
            self.matrix_decorations(tid, i, f.type, ml)

    def matrix_decorations(self, tid: int, member: int, t: Type, ml) -> None:
        inner = t
        while isinstance(inner, Array):
            inner = inner.elem
        if isinstance(inner, Matrix) and ml.matrix_stride is not None:
            # SPIR-V stores a non-float matrix by rows (an array of row vectors) and a 1xN/Nx1 one as a
            # packed vector; a layout rule that stores them otherwise (HLSL's, -fvk-use-dx-layout) would be
            # read from the wrong offsets, so it is refused (the caller locates the error at the variable)
            count, n = (inner.rows, inner.cols) if ml.row_major else (inner.cols, inner.rows)
            shape = matrix_shape(inner)
            if (shape == "array" and not ml.row_major) or (
                    shape == "vector" and count > 1 and ml.matrix_stride != n * inner.elem.width // 8):
                raise error(f"{'row_major' if ml.row_major else 'column_major'} {inner} in this buffer layout "
                            f"({count} vectors of {n}) is not supported by the SPIR-V backend, which "
                            f"stores it as {'a packed vector' if shape == 'vector' else 'rows'}; use "
                            f"{'row_major' if shape == 'array' else 'a vector'} or the default Vulkan layout")
        if isinstance(inner, Matrix) and matrix_shape(inner) == "matrix":
            self.b.member_decorate(tid, member, "MatrixStride", ml.matrix_stride)
            # HLSL rows are SPIR-V columns, so majorness flips (DXC SPIR-V.rst Appendix A)
            self.b.member_decorate(tid, member, "ColMajor" if ml.row_major else "RowMajor")

    def block_struct(self, name: str, t: Struct, layout: str) -> int:
        """A struct used directly as a buffer block (its own id, named after the resource type)."""
        return self._struct(t, layout, block=name)

    def note_storage(self, t: Type, buffer_kind: str) -> None:
        """Capabilities for 16-bit types in buffers or stage I/O ('uniform', 'storage', 'push_constant', 'io')."""
        if _has_16bit(t):
            self.b.capability(_STORAGE_16BIT[buffer_kind])
            if self.b.version < (1, 3):
                self.b.extension("SPV_KHR_16bit_storage")

    def ptr(self, storage_class: str, pointee: int) -> int:
        return self.b.type("OpTypePointer", enum("StorageClass", storage_class), pointee)

    def func_type(self, ret: int, params: list[int]) -> int:
        return self.b.type("OpTypeFunction", ret, *params)

    # -------------------------------------------------------- constants

    def uconst(self, v: int) -> int:
        return self.scalar_const(UINT, v)

    def scalar_const(self, s: Scalar, v) -> int:
        """Remembered by value (~7k calls at 5,706 lines), but for float zeros: 0.0 == -0.0."""
        key = (s, v, type(v))
        got = self._scalar_consts.get(key)
        if got is not None:
            return got
        tid = self.scalar(s)
        if s.kind == "bool":
            got = self.b.constant("OpConstantTrue" if v else "OpConstantFalse", tid)
        else:
            got = self.b.constant("OpConstant", tid, *_literal_words(s, v))
        if v or type(v) is not float:
            self._scalar_consts[key] = got
        return got

    def const(self, t: Type, value) -> int:
        """A scalar, vector or (flattened, row by row) matrix constant; a scalar value splats."""
        if isinstance(t, Scalar):
            return self.scalar_const(t, value)
        if isinstance(t, (Vector, Matrix)):
            n = t.size if isinstance(t, Vector) else t.rows * t.cols
            vals = tuple(value) if isinstance(value, (tuple, list)) else (value,) * n
            comps = [self.scalar_const(t.elem, v) for v in vals]
            if n == 1:
                return comps[0]
            if isinstance(t, Matrix) and matrix_shape(t) in ("matrix", "array"):
                rt = Vector(t.elem, t.cols)
                rows = [self.b.constant("OpConstantComposite", self.tid(rt), *comps[r * t.cols:(r + 1) * t.cols])
                        for r in range(t.rows)]
                return self.b.constant("OpConstantComposite", self.tid(t), *rows)
            return self.b.constant("OpConstantComposite", self.tid(t), *comps)
        raise error(f"cannot make a constant of type {t}")

    def null(self, t: Type, layout: str | None = None) -> int:
        return self.b.constant("OpConstantNull", self.tid(t, layout))


def _spirv_size(t: Type, lay, rule: str, row_major: bool) -> int:
    """Size of a laid-out type as spirv-val sizes it: an HLSL row_major matrix (SPIR-V ColMajor, one column per
    HLSL row) spans every one of its MatrixStride columns, also the last one that HLSL's cbuffer layout ends
    early; a column_major one (SPIR-V RowMajor) ends after its last row's components, as in HLSL; an array ends
    where its last element does; a struct is its HLSL size (spirv-val sizes a nested struct without its members'
    matrix decorations, so a member after it does not overlap it there)."""
    if isinstance(t, Matrix) and matrix_shape(t) == "matrix" and lay.matrix_stride is not None:
        rm = lay.row_major if lay.row_major is not None else row_major
        return t.rows * lay.matrix_stride if rm else lay.size
    if isinstance(t, Array) and t.size and lay.array_stride is not None:
        el = layout_of(t.elem, rule, row_major)
        return lay.array_stride * (t.size - 1) + _spirv_size(t.elem, el, rule, row_major)
    return lay.size


def _has_16bit(t: Type) -> bool:
    if isinstance(t, Scalar):
        return t.width == 16
    if isinstance(t, (Vector, Matrix)):
        return t.elem.width == 16
    if isinstance(t, Array):
        return _has_16bit(t.elem)
    if isinstance(t, Struct):
        return any(_has_16bit(f.type) for f in t.fields)
    return False


def _literal_words(s: Scalar, v) -> list[int]:
    """Words of an OpConstant literal of scalar type `s` (low-order word first)."""
    if s.kind == "float":
        if s.width == 16:
            return [struct.unpack("<H", struct.pack("<e", float(v)))[0]]
        if s.width == 64:
            lo, hi = struct.unpack("<II", struct.pack("<d", float(v)))
            return [lo, hi]
        return [struct.unpack("<I", struct.pack("<f", float(v)))[0]]
    v = int(v)
    if s.width == 64:
        v &= (1 << 64) - 1
        return [v & 0xFFFFFFFF, v >> 32]
    if s.width < 32:
        # narrower ints are sign/zero-extended into one word (spec §2.2.1)
        v &= (1 << s.width) - 1
        if s.kind == "int" and v >> (s.width - 1):
            v -= 1 << s.width
    return [v & 0xFFFFFFFF]
