"""Memory layout rules: size, alignment, member offsets and strides of IR types.

Shared by every backend and the manifest so that all of them agree on where
each byte lives.  Rules (names as DXC's SPIR-V docs use them):

  std140       vector-relaxed std140 (DXC default for cbuffers)
  std430       vector-relaxed std430 (DXC default for structured buffers, push constants)
  gl140/gl430  strict GLSL std140/std430 (-fvk-use-gl-layout)
  scalar       VK_EXT_scalar_block_layout (-fvk-use-scalar-layout)
  dx_cbuffer   HLSL cbuffer packing: 16-byte rows, nothing straddles a row
  dx_structured  HLSL structured-buffer packing: C-like, 4-byte aligned

Matrices: an HLSL RxC matrix is stored as C column vectors of R elements when
column_major (the HLSL default) and R row vectors of C elements when row_major;
`matrix_stride` is the distance between those vectors.  Under the Vulkan rules a
non-float matrix is an array of row vectors (SPIR-V has float matrices only), so
it is always stored by rows there.

One deliberate difference from DXC under std140/std430: a nested struct (or array of structs) whose
relaxed vectors would straddle a 16-byte boundary at its aligned position is moved to the next safe
one, and arrays of such structs get a 16-multiple stride (see `_place_aggregate`); DXC keeps the
position and emits SPIR-V that spirv-val rejects.
"""

from __future__ import annotations

from ..lightstd import lru_cache
from ..records import ValueRecord
from .types import Array, Matrix, Resource, Scalar, Struct, Type, Vector

__all__ = ["Layout", "RULES", "layout_of", "round_up"]

RULES = ("std140", "std430", "gl140", "gl430", "scalar", "dx_cbuffer", "dx_structured")
_RELAXED = frozenset(("std140", "std430"))          # vector-relaxed placement of vector members
_ROUND16 = frozenset(("std140", "gl140"))           # arrays and structs round to 16
_DX = frozenset(("dx_cbuffer", "dx_structured"))
_ELEM_ALIGNED = frozenset(("scalar", "dx_cbuffer", "dx_structured"))  # vectors align to their element


class Layout(ValueRecord):
    """Where a type's bytes go.  `offsets`/`members` are per struct field; `array_stride`
    is set for arrays; `matrix_stride` for matrices and arrays of matrices (the
    stride between the stored vectors, see module docstring)."""

    size: int
    alignment: int
    offsets: tuple[int, ...] = ()
    members: tuple[Layout, ...] = ()
    array_stride: int | None = None
    matrix_stride: int | None = None
    row_major: bool | None = None


def round_up(n: int, a: int) -> int:
    return (n + a - 1) // a * a


def _scalar_size(s: Scalar) -> int:
    return 4 if s.kind == "bool" else s.width // 8


def _check_rule(rule: str) -> None:
    if rule not in RULES:
        raise ValueError(f"unknown layout rule {rule!r} (one of {', '.join(RULES)})")


@lru_cache(maxsize=4096)
def layout_of(t: Type, rule: str = "std430", row_major: bool = False) -> Layout:
    """Layout of `t` under `rule`; `row_major` applies to matrices not inside a
    struct that overrides it (StructField.row_major).  Memoised per argument tuple."""
    _check_rule(rule)
    if isinstance(t, Scalar):
        n = _scalar_size(t)
        return Layout(n, n)
    if isinstance(t, Vector):
        return _vector(t, rule)
    if isinstance(t, Matrix):
        return _matrix(t, rule, row_major)
    if isinstance(t, Array):
        return _array(t, rule, row_major)
    if isinstance(t, Struct):
        return _struct(t, rule, row_major)
    if isinstance(t, Resource):
        raise TypeError(f"resource type {t} has no memory layout")
    raise TypeError(f"type {t} has no memory layout")


def _vector(t: Vector, rule: str) -> Layout:
    e = _scalar_size(t.elem)
    size = e * t.size
    if rule in _ELEM_ALIGNED:
        return Layout(size, e)
    return Layout(size, e * (4 if t.size == 3 else t.size))


def _matrix(t: Matrix, rule: str, row_major: bool) -> Layout:
    if rule not in _DX and (t.rows == 1 or t.cols == 1):
        # Vulkan rules: 1xN / Nx1 matrices are plain vectors (1x1: scalars), as in SPIR-V
        n = t.rows * t.cols
        return layout_of(t.elem if n == 1 else Vector(t.elem, n), rule)
    if rule not in _DX and t.elem.kind != "float":
        # SPIR-V has float matrices only; others are arrays of row vectors (DXC), so rows are stored
        row_major = True
    # stored as `count` vectors of `n` elements
    count, n = (t.rows, t.cols) if row_major else (t.cols, t.rows)
    e = _scalar_size(t.elem)
    if rule == "dx_structured" or rule == "scalar":
        return Layout(e * n * count, e, matrix_stride=e * n, row_major=row_major)
    if rule == "dx_cbuffer":
        # every stored vector starts a 16-byte row (a 64-bit vector of 3 or 4 takes two); the last one is not padded
        stride = round_up(e * n, 16)
        return Layout(stride * (count - 1) + e * n, 16 if count > 1 else e, matrix_stride=stride, row_major=row_major)
    vl = _vector(Vector(t.elem, n), rule)
    align = max(vl.alignment, 16) if rule in _ROUND16 else vl.alignment
    stride = round_up(vl.size, align)
    return Layout(stride * count, align, matrix_stride=stride, row_major=row_major)


def _array(t: Array, rule: str, row_major: bool) -> Layout:
    el = layout_of(t.elem, rule, row_major)
    count = t.size or 0
    ms = el.matrix_stride if isinstance(t.elem, (Matrix, Array)) else None
    rm = el.row_major if ms is not None else None
    if rule == "dx_cbuffer":
        stride = round_up(el.size, 16)
        size = stride * (count - 1) + el.size if count else 0
        return Layout(size, 16, array_stride=stride, matrix_stride=ms, row_major=rm)
    align = max(el.alignment, 16) if rule in _ROUND16 else el.alignment
    stride = round_up(el.size, align)
    if _straddle_bases(t.elem, el, rule, row_major):
        stride = round_up(stride, 16)       # every element at the first one's position modulo 16
    return Layout(stride * count, align, array_stride=stride, matrix_stride=ms, row_major=rm)


# ---------------------------------------------------------------- vectors nested in relaxed structs
# A vector-relaxed struct member is placed so that it does not straddle a 16-byte boundary *relative
# to the start of its struct*.  Under std430 a struct is only aligned to its largest member alignment
# (e.g. 8 for struct P { float a; float2 b; }, b at 4), so the struct itself placed at 8 would put b
# across 16, which Vulkan (and spirv-val) forbid at the absolute offset.  DXC computes the same
# offsets and then emits invalid SPIR-V (DirectXShaderCompiler issue #2639).  Here such a struct is
# moved forward by its alignment to the next position where nothing inside straddles (at most
# 16 / alignment steps: at a multiple of 16 its relative layout is the absolute one, which is valid),
# and arrays of such structs get a stride that is a multiple of 16 so every element sits at the same
# position modulo 16.  Whenever DXC's layout is valid, it is unchanged.

def _improper_straddle(offset: int, size: int) -> bool:
    """Vulkan's "improperly straddling" vector (relaxed block layout)."""
    return offset // 16 != (offset + size - 1) // 16 if size <= 16 else offset % 16 != 0


def _straddles(t: Type, lay: Layout, base: int, rule: str, row_major: bool) -> bool:
    """Whether a vector somewhere inside `t`, placed at absolute offset `base`, improperly straddles."""
    if _vector_like(t):
        return _improper_straddle(base, lay.size)
    if isinstance(t, Struct):
        return any(_straddles(f.type, m, base + off, rule, row_major if f.row_major is None else f.row_major)
                   for f, m, off in zip(t.fields, lay.members, lay.offsets))
    if isinstance(t, Array) and lay.array_stride:
        el = layout_of(t.elem, rule, row_major)
        count = min(t.size or 1, 16)        # positions modulo 16 repeat after at most 16 elements
        return any(_straddles(t.elem, el, base + k * lay.array_stride, rule, row_major) for k in range(count))
    return False        # scalars; matrices store naturally aligned vectors


def _straddle_bases(t: Type, lay: Layout, rule: str, row_major: bool) -> tuple[int, ...]:
    """The positions modulo 16, among multiples of the type's alignment, where it would straddle (relaxed
    rules only; never 0, see above)."""
    if rule not in _RELAXED or not isinstance(t, (Struct, Array)) or lay.alignment >= 16:
        return ()
    return tuple(b for b in range(0, 16, lay.alignment) if _straddles(t, lay, b, rule, row_major))


def _place_aggregate(offset: int, t: Type, fl: Layout, rule: str, row_major: bool) -> int:
    """A relaxed struct/array member at the first multiple of its alignment where nothing in it straddles."""
    offset = round_up(offset, fl.alignment)
    bad = _straddle_bases(t, fl, rule, row_major)
    for _ in range(len(bad)):               # bounded: each step leaves one bad position behind
        if offset % 16 not in bad:
            break
        offset += fl.alignment
    return offset


def _vector_like(t: Type) -> bool:
    """A vector, or a 1xN / Nx1 matrix (a vector under the Vulkan rules; DXC's isVectorType)."""
    return isinstance(t, Vector) or (isinstance(t, Matrix) and (t.rows == 1) != (t.cols == 1))


def _relaxed_alignment(t: Type, fl: Layout) -> int:
    """DXC's vector relaxation (AlignmentSizeCalculator::alignUsingHLSLRelaxedLayout): a vector of 16- or
    32-bit elements aligns to its element; a 64-bit one keeps its base alignment (a double3 at 32)."""
    assert isinstance(t, (Vector, Matrix))
    e = _scalar_size(t.elem)
    return e if e <= 4 else fl.alignment


def _place_vector(offset: int, fl: Layout, elem_align: int) -> int:
    """HLSL vector-relaxed placement: align to the element, then to 16 if the
    vector would straddle a 16-byte boundary (or start a >16-byte vector unaligned)."""
    offset = round_up(offset, elem_align)
    if fl.size <= 16:
        if offset // 16 != (offset + fl.size - 1) // 16:
            offset = round_up(offset, 16)
    elif offset % 16:
        offset = round_up(offset, 16)
    return offset


def _struct(t: Struct, rule: str, row_major: bool) -> Layout:
    offsets: list[int] = []
    members: list[Layout] = []
    end = 0
    max_align = 1
    # members without packoffset go after the last byte any packoffset reserves (DXC allocates the
    # explicitly placed constants first, then the others from the highest end)
    offset = max((f.packoffset + layout_of(f.type, rule, row_major if f.row_major is None else f.row_major).size
                  for f in t.fields if f.packoffset is not None and (f.vk_offset is None or rule in _DX)), default=0)
    for f in t.fields:
        rm = row_major if f.row_major is None else f.row_major
        fl = layout_of(f.type, rule, rm)
        if f.vk_offset is not None and rule not in _DX:
            offset = f.vk_offset
        elif f.packoffset is not None:       # placed where written; the others' cursor does not move
            offsets.append(f.packoffset)
            members.append(fl)
            end = max(end, f.packoffset + fl.size)
            max_align = max(max_align, fl.alignment)
            continue
        elif isinstance(f.type, Vector) and rule == "dx_cbuffer":
            offset = _place_vector(offset, fl, _scalar_size(f.type.elem))
        elif _vector_like(f.type) and rule in _RELAXED:
            offset = _place_vector(offset, fl, _relaxed_alignment(f.type, fl))
        elif rule == "dx_cbuffer":
            offset = _place_cbuffer(offset, f.type, fl)
        elif rule in _RELAXED and isinstance(f.type, (Struct, Array)):
            offset = _place_aggregate(offset, f.type, fl, rule, rm)
        else:
            offset = round_up(offset, fl.alignment)
        offsets.append(offset)
        members.append(fl)
        offset += fl.size
        end = max(end, offset)   # packoffset / vk::offset may place members out of order
        max_align = max(max_align, fl.alignment)
    if rule == "dx_cbuffer":
        return Layout(end, 16, tuple(offsets), tuple(members))
    align = max(max_align, 16) if rule in _ROUND16 else max_align
    return Layout(round_up(end, align), align, tuple(offsets), tuple(members))


def _place_cbuffer(offset: int, t: Type, fl: Layout) -> int:
    """HLSL cbuffer packing: aggregates start a new 16-byte row; scalars never straddle.
    An aggregate is not padded at its end, so the member after a struct or array may share
    its last row (DXC: `S2 s3; float3 c;` puts c in s3's row, d3dreflect test
    structured_buffer_layout.hlsl; DXC's FxcCTBuffer rule says the same)."""
    if isinstance(t, (Array, Struct)) or (isinstance(t, Matrix) and fl.alignment == 16):
        return round_up(offset, 16)
    offset = round_up(offset, fl.alignment)
    if offset // 16 != (offset + fl.size - 1) // 16:
        offset = round_up(offset, 16)
    return offset


# DXC's Vulkan layout per block kind and -fvk-use-*-layout option
_VULKAN_RULES = {
    "default": {"uniform": "std140", "storage": "std430", "push": "std430"},
    "dx": {"uniform": "dx_cbuffer", "storage": "dx_structured", "push": "dx_structured"},
    "gl": {"uniform": "gl140", "storage": "gl430", "push": "gl430"},
    "scalar": {"uniform": "scalar", "storage": "scalar", "push": "scalar"},
}


def vulkan_rule(block: str, vk_layout: str = "default") -> str:
    """The layout rule of a Vulkan block: block is 'uniform' (cbuffers), 'storage'
    (structured/tbuffer) or 'push' (push constants)."""
    return _VULKAN_RULES[vk_layout][block]
