"""Stage I/O of matrix type and struct parameters whose semantic cascades onto their members, in
both backends.  DXIL packs them as DXC does (a matrix element has one signature row per column
when column_major, the default, or per row when row_major; a struct's semantic numbers its leaves
TEXCOORD3, TEXCOORD4, ..., nested structs included, overriding the members' own); SPIR-V gives
the cascaded leaves consecutive Locations in the same order.  The ISG1/OSG1 parts are read back
with obj2yaml-19; the draws run on lavapipe, expected pixels computed here."""

from __future__ import annotations

import re

import pytest
import res_util as R

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

W, H = 8, 8


def sig(src: str, profile: str, part: str) -> list[tuple[str, int, int, int]]:
    """(semantic, index, register, mask) of every element of the DXIL build's ISG1 / OSG1."""
    _res, chk = R.build_dxil(src, profile=profile)
    p = next(p for p in chk.container["Parts"] if p["Name"] == part)
    return [(e["Name"], e["Index"], e["Register"], e["Mask"]) for e in p["Signature"]["Parameters"]]


def dxil_text(src: str, profile: str) -> str:
    return R.build_dxil(src, profile=profile)[1].ir


def io_locations(src: str, profile: str, side: str) -> list[tuple[str, int, int | None]]:
    """(semantic, index, location) of the SPIR-V build's manifest inputs/outputs."""
    return [(e["semantic"], e["index"], e.get("location")) for e in R.build(src, profile=profile).manifest["entry"][side]]


# ------------------------------------------------------------ matrices as SV_Target

PS_4X1 = """
float4x1 main(float4 pos : SV_Position) : SV_Target { return float4x1(0.25, 0.5, 0.75, 1.0); }
"""
PS_1X4 = """
float1x4 main(float4 pos : SV_Position) : SV_Target { return float1x4(0.25, 0.5, 0.75, 1.0); }
"""


def test_float4x1_target_is_one_row_of_four():
    """column_major float4x1 is one column of four: one SV_Target0 row, m[r][0] in component r."""
    assert sig(PS_4X1, "ps_6_0", "OSG1") == [("SV_Target", 0, 0, 15)]
    text = dxil_text(PS_4X1, "ps_6_0")
    for r, v in enumerate(("2.500000e-01", "5.000000e-01", "7.500000e-01", "1.000000e+00")):
        assert f"@dx.op.storeOutput.f32(i32 5, i32 0, i32 0, i8 {r}, float {v})" in text
    px = R.draw(R.FULLSCREEN_VS, PS_4X1, W, H)
    assert R.pixel(px, W, 3, 3) == (R.unorm8(0.25), R.unorm8(0.5), R.unorm8(0.75), 255)


def test_float1x4_target_is_four_rows():
    """column_major float1x4 is four columns of one: SV_Target0..3, one component each (as DXC's
    DXIL; SPIR-V, like DXC's, makes a 1xN matrix a vector and writes Location 0)."""
    assert sig(PS_1X4, "ps_6_0", "OSG1") == [("SV_Target", k, k, 1) for k in range(4)]
    text = dxil_text(PS_1X4, "ps_6_0")
    for c, v in enumerate(("2.500000e-01", "5.000000e-01", "7.500000e-01", "1.000000e+00")):
        assert f"@dx.op.storeOutput.f32(i32 5, i32 0, i32 {c}, i8 0, float {v})" in text
    assert io_locations(PS_1X4, "ps_6_0", "outputs") == [("SV_Target", 0, 0)]


# ------------------------------------------------------------ matrix arrays between stages

VS_MAT = """
struct VOut { float4 pos : SV_Position; float4x2 m[2] : TEXCOORD0; float tail : TEXCOORD7; };
VOut main(uint id : SV_VertexID) {
    VOut o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(uv * 2.0 - 1.0, 0.0, 1.0);
    [unroll] for (int k = 0; k < 2; ++k)
        [unroll] for (int r = 0; r < 4; ++r)
            o.m[k][r] = float2(0.01 * (k * 8 + r * 2), 0.01 * (k * 8 + r * 2 + 1));
    o.tail = 0.5;
    return o;
}
"""
PS_MAT = """
struct PIn { float4 pos : SV_Position; float4x2 m[2] : TEXCOORD0; float tail : TEXCOORD7; };
float4 main(PIn i) : SV_Target { return float4(i.m[0][3][1], i.m[1][1][0], i.m[1][3][1], i.tail); }
"""


def test_matrix_array_signature_rows():
    """float4x2[2] column_major: each matrix is two rows (its columns) of four components:
    TEXCOORD0..3; m[k][r][c] is row 2k + c, component r."""
    assert sig(VS_MAT, "vs_6_0", "OSG1") == [("SV_Position", 0, 0, 15), *[("TEXCOORD", k, k + 1, 15) for k in range(4)],
                                             ("TEXCOORD", 7, 5, 1)]
    text = dxil_text(PS_MAT, "ps_6_0")
    # m[0][3][1] -> row 1 col 3; m[1][1][0] -> row 2 col 1; m[1][3][1] -> row 3 col 3 (element 1 = TEXCOORD0)
    for row, col in ((1, 3), (2, 1), (3, 3)):
        assert re.search(rf"@dx\.op\.loadInput\.f32\(i32 4, i32 1, i32 {row}, i8 {col}, i32 undef\)", text), (row, col)


def test_matrix_array_between_stages_executes():
    px = R.draw(VS_MAT, PS_MAT, W, H)
    want = (0.01 * 7, 0.01 * (8 + 2), 0.01 * (8 + 7), 0.5)
    got = R.pixel(px, W, 2, 5)
    assert all(abs(g - R.unorm8(w)) <= 1 for g, w in zip(got, want)), (got, want)


# ------------------------------------------------------------ struct semantics that cascade

STRUCTS = """
struct Inner { float2 a; float b; };
struct S { float4 c; Inner i; float d; };
"""
VS_CASCADE = STRUCTS + """
struct VOut { float4 pos : SV_Position; S s : TEXCOORD3; };
VOut main(uint id : SV_VertexID) {
    VOut o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(uv * 2.0 - 1.0, 0.0, 1.0);
    o.s.c = float4(0.1, 0.2, 0.3, 0.4); o.s.i.a = float2(0.5, 0.6); o.s.i.b = 0.7; o.s.d = 0.8;
    return o;
}
"""
PS_CASCADE = STRUCTS + """
float4 main(float4 pos : SV_Position, S s : TEXCOORD3) : SV_Target { return float4(s.c.y, s.i.a.y, s.i.b, s.d); }
"""


def test_struct_semantic_cascades_in_dxil():
    """c -> TEXCOORD3, i.a -> TEXCOORD4, i.b -> TEXCOORD5, d -> TEXCOORD6 (packed after c by DXC's rules)."""
    osg = sig(VS_CASCADE, "vs_6_0", "OSG1")
    assert [(n, i) for n, i, _r, _m in osg] == [("SV_Position", 0), *[("TEXCOORD", k) for k in range(3, 7)]]
    isg = sig(PS_CASCADE, "ps_6_0", "ISG1")
    assert [(n, i) for n, i, _r, _m in isg] == [("SV_Position", 0), *[("TEXCOORD", k) for k in range(3, 7)]]


def test_struct_semantic_cascades_in_spirv():
    want = [("TEXCOORD", k, k - 3) for k in range(3, 7)]
    assert io_locations(VS_CASCADE, "vs_6_0", "outputs") == [("SV_Position", 0, None), *want]
    assert io_locations(PS_CASCADE, "ps_6_0", "inputs") == [("SV_Position", 0, None), *want]


def test_struct_semantic_cascade_executes():
    px = R.draw(VS_CASCADE, PS_CASCADE, W, H)
    got = R.pixel(px, W, 4, 4)
    assert all(abs(g - R.unorm8(w)) <= 1 for g, w in zip(got, (0.2, 0.6, 0.7, 0.8))), got


def test_cascade_overrides_member_semantics_and_counts_matrix_rows():
    """A row_major float2x3 member takes two indices (two rows), a column_major one three; the
    struct's semantic wins over the members' own (COLOR here)."""
    src = """
struct M { row_major float2x3 r : COLOR0; float2x3 c : COLOR1; float x : COLOR5; };
float4 main(float4 pos : SV_Position, M m : TEXCOORD1) : SV_Target { return float4(m.r[1][2], m.c[1][2], m.x, 1); }
"""
    isg = sig(src, "ps_6_0", "ISG1")            # listed by register: x (TEXCOORD6) packs into r's first row
    masks = {i: m for n, i, _r, m in isg if n == "TEXCOORD"}
    assert sorted(masks) == [1, 2, 3, 4, 5, 6]
    assert masks[1] == masks[2] == 7            # row_major: two rows of three
    assert masks[3] == masks[4] == masks[5] == 3    # column_major: three rows (columns) of two
    assert masks[6] == 8
    assert io_locations(src, "ps_6_0", "inputs")[1:] == [("TEXCOORD", 1, 0), ("TEXCOORD", 3, 2), ("TEXCOORD", 6, 4)]


def test_row_major_parameter():
    """The qualifier on an entry parameter decides its rows too: row_major float2x3 is two rows of
    three, the column_major default three rows of two."""
    src = """
float4 main(float4 pos : SV_Position, {q} float2x3 m : TEXCOORD0) : SV_Target {{ return float4(m[1], 1); }}
"""
    rm = sig(src.format(q="row_major"), "ps_6_0", "ISG1")
    assert [(n, i, m) for n, i, _r, m in rm] == [("SV_Position", 0, 15), ("TEXCOORD", 0, 7), ("TEXCOORD", 1, 7)]
    cm = sig(src.format(q=""), "ps_6_0", "ISG1")
    assert [(n, i, m) for n, i, _r, m in cm] == [("SV_Position", 0, 15), *[("TEXCOORD", k, 3) for k in range(3)]]
    # m[1] of the row_major element is its row 1, components 0..2
    text = dxil_text(src.format(q="row_major"), "ps_6_0")
    for col in range(3):
        assert re.search(rf"@dx\.op\.loadInput\.f32\(i32 4, i32 1, i32 1, i8 {col}, i32 undef\)", text), col


def test_vk_location_on_a_cascading_struct_numbers_its_leaves():
    src = STRUCTS + """
float4 main(float4 pos : SV_Position, [[vk::location(5)]] S s : TEXCOORD3) : SV_Target { return s.c * s.d; }
"""
    assert io_locations(src, "ps_6_0", "inputs")[1:] == [("TEXCOORD", k, k + 2) for k in range(3, 7)]
