"""The type of `?:` with one-row and one-column matrices (issue 20), as DXC gives it: SemaHLSL.cpp's
CheckVectorConditional combines the operands' dimensions (CombineDimensions) and builds the result
from its rows and columns alone (NewSimpleAggregateType with AR_TOBJ_INVALID), so a result of one
row is a vector (`float1x3` gives `float3`), one component a scalar (`float1x1` gives `float`), and
a `float3x1` stays a matrix.  Each row uses the result in a way only its DXC type allows (`[1]` is a
component of a vector but a row of a matrix; `.z` exists on vectors only; `._m20` on matrices only),
in both the HLSL 2021 (short-circuit) and 2018 (select) forms.  Expected values are computed here."""

from __future__ import annotations

from lang_util import SlotTable, case, table_test

A13, B13, M31, N31, V4 = (1.0, 2.0, 3.0), (4.0, 5.0, 6.0), (7.0, 8.0, 9.0), (-7.0, -8.0, -9.0), (10.0, 11.0, 12.0, 13.0)
SETUP = ("    float one = In[0];\n    bool yes = one > 0, no = one < 0;\n"
         f"    float1x3 a = float1x3{A13} * one, b = float1x3{B13} * one;\n"
         f"    float3x1 m = float3x1{M31} * one, n = float3x1{N31} * one;\n"
         f"    float4 v = float4{V4} * one;\n    float1x1 o = (float1x1)3.0 * one, p = (float1x1)4.0 * one;\n")
IN = {"In": ("float", [1.0])}
PRELUDE = "float Which(float x) { return 1; }\nfloat Which(float1x1 x) { return 2; }\n"


def _rows():
    return [
        case("one_row_indexes_a_component", "(yes ? a : b)[1]", A13[1]),
        case("one_row_indexes_a_component_else", "(no ? a : b)[2]", B13[2]),
        case("one_row_swizzles", "(yes ? b : a).z", B13[2]),
        case("one_row_is_three_components", "dot(no ? a : b, float3(1, 10, 100))", B13[0] + 10 * B13[1] + 100 * B13[2]),
        case("one_column_stays_a_matrix", "(yes ? m : n)._m20", M31[2]),
        case("one_column_row_index", "(no ? m : n)[1].x", N31[1]),
        # float4 with float1x3 combines to a float1x3 (the vector truncates), typed float3
        case("vector_and_one_row", "(yes ? v : a).z", V4[2]),
        case("vector_and_one_row_else", "(no ? v : a)[0]", A13[0]),
        # float1x1 gives a scalar: `.x` swizzles a scalar, not a matrix (overloads f(float) and f(float1x1) cannot
        # tell: DXC's ScoreCast ranks a float argument to either alike, session 9)
        case("one_by_one_is_a_scalar", "(yes ? o : p).x", 3.0),
        case("one_by_one_value", "(no ? o : p) + 0.5", 4.5),
    ]


TABLE_2021 = SlotTable("conditional_shapes", "float", _rows(), prelude=PRELUDE, setup=SETUP, inputs=IN)
TABLE_2018 = SlotTable("conditional_shapes_2018", "float", _rows(), prelude=PRELUDE, setup=SETUP, inputs=IN,
                       hlsl_version=2018)

test_conditional_shapes = table_test(TABLE_2021, TABLE_2018)
