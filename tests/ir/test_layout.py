"""shaderbuild.ir.layout: sizes, alignments, offsets and strides under each rule."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from shaderbuild.ir.layout import RULES, layout_of, round_up
from shaderbuild.ir.types import (
    BOOL,
    DOUBLE,
    FLOAT,
    HALF,
    INT,
    UINT,
    Array,
    Matrix,
    Resource,
    Struct,
    StructField,
    Vector,
)

F2, F3, F4 = Vector(FLOAT, 2), Vector(FLOAT, 3), Vector(FLOAT, 4)
S = Struct("S", (StructField("v", F3),))
# compiler_notes §1.4 (DXC SPIR-V.rst "Memory layout rules"): the worked example
EXAMPLE = Struct("T", (
    StructField("a", FLOAT), StructField("b", F3), StructField("c", S),
    StructField("d", Matrix(FLOAT, 2, 3)), StructField("e", Matrix(FLOAT, 2, 3), row_major=True),
    StructField("f", Array(INT, 3)), StructField("g", Array(F2, 2)),
))


def test_worked_example_vulkan_cbuffer_rule():
    assert layout_of(EXAMPLE, "std140").offsets == (0, 4, 16, 32, 80, 112, 160)


def test_worked_example_vulkan_storage_buffer_rule():
    assert layout_of(EXAMPLE, "std430").offsets == (0, 4, 16, 32, 64, 96, 112)


def test_strict_gl_rules_do_not_pack_vectors_after_scalars():
    assert layout_of(EXAMPLE, "gl140").offsets[:3] == (0, 16, 32)
    assert layout_of(EXAMPLE, "gl430").offsets[:3] == (0, 16, 32)


def test_fxc_cbuffer_packing():
    """16-byte rows, aggregates start a row, the last row of an array/matrix is not padded."""
    lay = layout_of(EXAMPLE, "dx_cbuffer")
    assert lay.offsets == (0, 4, 16, 32, 80, 112, 160)
    assert lay.size == 160 + 16 + 8
    # float2 after float3 would straddle a row: moves to the next one
    t = Struct("U", (StructField("a", F3), StructField("b", F2), StructField("c", FLOAT)))
    assert layout_of(t, "dx_cbuffer").offsets == (0, 16, 24)
    # array elements each start a new row
    assert layout_of(Array(FLOAT, 4), "dx_cbuffer").size == 3 * 16 + 4


def test_structured_and_scalar_rules_are_c_like():
    t = Struct("U", (StructField("a", FLOAT), StructField("b", F3), StructField("c", Matrix(FLOAT, 2, 2)),
                     StructField("d", DOUBLE)))
    assert layout_of(t, "dx_structured").offsets == (0, 4, 16, 32)
    assert layout_of(t, "scalar").offsets == (0, 4, 16, 32)
    assert layout_of(Array(F3, 3), "scalar").array_stride == 12


@pytest.mark.parametrize("rule,stride", [("std140", 16), ("std430", 4), ("gl140", 16), ("gl430", 4),
                                         ("scalar", 4), ("dx_cbuffer", 16), ("dx_structured", 4)])
def test_scalar_array_strides(rule, stride):
    assert layout_of(Array(UINT, 5), rule).array_stride == stride


def test_matrix_majorness_changes_the_stored_vectors():
    m = Matrix(FLOAT, 2, 3)
    col = layout_of(m, "std430")                 # 3 columns of float2
    row = layout_of(m, "std430", row_major=True)  # 2 rows of float3 (vec3 aligns to 16)
    assert (col.matrix_stride, col.size, col.row_major) == (8, 24, False)
    assert (row.matrix_stride, row.size, row.row_major) == (16, 32, True)
    assert layout_of(m, "std140").matrix_stride == 16
    assert layout_of(m, "std140").size == 48
    # a field's own majorness overrides the default
    t = Struct("U", (StructField("m", m, row_major=True),))
    assert layout_of(t, "std430").members[0].row_major is True
    assert layout_of(t, "std430", row_major=False).members[0].matrix_stride == 16


def test_degenerate_matrices_are_vectors_under_vulkan_rules():
    assert layout_of(Matrix(FLOAT, 1, 3), "std140") == layout_of(F3, "std140")
    assert layout_of(Matrix(FLOAT, 1, 1), "std430") == layout_of(FLOAT, "std430")
    assert layout_of(Matrix(FLOAT, 1, 3), "dx_cbuffer").size == 2 * 16 + 4   # 3 columns of float1


def test_array_of_matrices_carries_matrix_stride():
    lay = layout_of(Array(Matrix(FLOAT, 3, 3), 2), "std430")
    assert lay.matrix_stride == 16 and lay.array_stride == 48 and lay.size == 96


def test_bool_half_double_sizes():
    assert layout_of(BOOL, "std430").size == 4
    assert layout_of(Vector(HALF, 3), "std430").alignment == 8
    assert layout_of(Vector(DOUBLE, 3), "std430").alignment == 32
    assert layout_of(Vector(DOUBLE, 3), "scalar").alignment == 8


def test_explicit_vk_offset_wins():
    t = Struct("U", (StructField("a", FLOAT), StructField("b", FLOAT, vk_offset=32), StructField("c", FLOAT)))
    assert layout_of(t, "std430").offsets == (0, 32, 36)


def test_runtime_array_has_a_stride_and_no_size():
    lay = layout_of(Array(S, None), "std430")
    assert lay.array_stride == 16 and lay.size == 0


def test_errors_and_memoisation():
    with pytest.raises(ValueError, match="unknown layout rule"):
        layout_of(FLOAT, "std999")
    with pytest.raises(TypeError):
        layout_of(Resource("Texture2D", F4), "std430")
    assert layout_of(EXAMPLE, "std140") is layout_of(EXAMPLE, "std140")
    assert round_up(17, 16) == 32 and round_up(16, 16) == 16


_scalars = st.sampled_from([FLOAT, INT, UINT, BOOL, DOUBLE, HALF])
_leaf = st.one_of(_scalars, st.builds(Vector, st.sampled_from([FLOAT, INT, DOUBLE, HALF]), st.integers(2, 4)),
                  st.builds(Matrix, st.just(FLOAT), st.integers(1, 4), st.integers(1, 4)))
_types = st.recursive(_leaf, lambda inner: st.one_of(
    st.builds(Array, inner, st.integers(1, 4)),
    st.builds(lambda fs: Struct("R", tuple(StructField(f"f{k}", t) for k, t in enumerate(fs))),
              st.lists(inner, min_size=1, max_size=4))), max_leaves=8)


@given(_types, st.sampled_from(RULES))
def test_invariants_members_are_aligned_and_do_not_overlap(t, rule):
    lay = layout_of(t, rule)
    assert lay.size >= 0 and lay.alignment >= 1
    if isinstance(t, Struct):
        end = 0
        for off, m in zip(lay.offsets, lay.members):
            assert off >= end
            if rule not in ("dx_cbuffer",):
                assert off % m.alignment == 0 or rule in ("std140", "std430")
            end = off + m.size
        assert lay.size >= end
    if isinstance(t, Array):
        el = layout_of(t.elem, rule)
        assert lay.array_stride >= el.size
        if rule in ("std140", "gl140", "dx_cbuffer"):
            assert lay.array_stride % 16 == 0


def test_non_float_matrices_are_stored_by_rows_under_vulkan_rules():
    m = Matrix(INT, 2, 3)
    assert layout_of(m, "std430") == layout_of(m, "std430", row_major=True)
    assert (layout_of(m, "std430").matrix_stride, layout_of(m, "std430").size) == (16, 32)
    assert layout_of(m, "dx_structured").size == 24          # HLSL packing keeps column_major


# ---------------------------------------------------------------- vectors nested in relaxed structs

P = Struct("P", (StructField("a", FLOAT), StructField("b", F2)))       # std430: align 8, b at 4
Q = Struct("Q", (StructField("p", P), StructField("w", UINT)))


def _vectors(t, lay, base: int, rule: str):
    """(absolute offset, size) of every vector inside `t` placed at `base`, every array element included."""
    if isinstance(t, Vector):
        yield base, lay.size
    elif isinstance(t, Struct):
        for f, m, off in zip(t.fields, lay.members, lay.offsets):
            yield from _vectors(f.type, m, base + off, rule)
    elif isinstance(t, Array):
        el = layout_of(t.elem, rule)
        for k in range(t.size or 1):
            yield from _vectors(t.elem, el, base + k * lay.array_stride, rule)


def _straddling(t, rule: str, base: int = 0) -> list[tuple[int, int]]:
    return [(o, n) for o, n in _vectors(t, layout_of(t, rule), base, rule)
            if (o // 16 != (o + n - 1) // 16 if n <= 16 else o % 16)]


def test_nested_struct_moves_off_a_straddling_position():
    """P at 8 (its std430 alignment) would put P.b at 12..19, across 16: P moves to 16 (DXC keeps 8 and
    emits invalid SPIR-V, DirectXShaderCompiler #2639); P's own layout does not change."""
    blk = Struct("B", (StructField("a", FLOAT), StructField("p", P), StructField("c", FLOAT)))
    lay = layout_of(blk, "std430")
    assert lay.offsets == (0, 16, 32) and lay.members[1] == layout_of(P, "std430")
    assert layout_of(blk, "std140").offsets == (0, 16, 32)      # std140 aligns structs to 16 anyway
    # a position that is already fine is kept: no move after a float2 (P at 8 -> b at 12 is the only bad one)
    ok = Struct("B2", (StructField("a", F4), StructField("p", P)))
    assert layout_of(ok, "std430").offsets == (0, 16)
    first = Struct("B3", (StructField("p", P), StructField("c", FLOAT)))
    assert layout_of(first, "std430").offsets == (0, 16)


def test_arrays_of_position_sensitive_structs_get_a_16_byte_stride():
    """Q is 24 bytes (align 8); at stride 24 element 1's p.b would sit at 28..35.  Insensitive
    element types keep their natural stride."""
    assert (layout_of(Q, "std430").size, layout_of(Q, "std430").alignment) == (24, 8)
    assert layout_of(Array(Q, 2), "std430").array_stride == 32
    assert layout_of(Array(Q, None), "std430").array_stride == 32
    two_floats = Struct("V", (StructField("a", FLOAT), StructField("b", FLOAT), StructField("c", FLOAT)))
    assert layout_of(Array(two_floats, 3), "std430").array_stride == 12
    assert layout_of(Array(F2, 3), "std430").array_stride == 8


@settings(max_examples=1000)
@given(_types, st.sampled_from(["std140", "std430"]))
@example(P, "std430")
@example(Array(Q, 3), "std430")
def test_no_vector_improperly_straddles_under_relaxed_rules(t, rule):
    """The relaxed rules' promise, at absolute offsets through nested structs and every array element:
    checked for the type at 0 and, wrapped after each scalar size, at a non-zero position."""
    assert _straddling(t, rule) == []
    for lead in (FLOAT, DOUBLE, HALF, F2):
        wrapped = Struct("W", (StructField("x", lead), StructField("t", t)))
        assert _straddling(wrapped, rule) == []
