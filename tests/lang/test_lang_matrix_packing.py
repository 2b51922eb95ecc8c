"""Matrix orientation in memory (issue 20, "silent wrong values"): `#pragma pack_matrix` at the
declaration point, typedefs carrying their orientation, struct fields, arrays, template arguments,
explicit modifiers winning, and conflicting orientations refused.  Each case reads constant-buffer
words (word i holds float(i)) and the expected word is computed from the orientation alone."""

from __future__ import annotations

import pytest
from lang_util import compile_cs, run_backend

pytestmark = [pytest.mark.vulkan, pytest.mark.usefixtures("vk")]
BACKENDS = ["spirv", "dxil", "dxil-vk"]


def word(base_register: int, row: int, col: int, row_major: bool) -> int:
    """Word of element (row, col) (0-based) of a matrix starting at register `base_register`: each row
    (row_major) or column (column_major) is one 16-byte register."""
    vec, comp = (row, col) if row_major else (col, row)
    return 4 * (base_register + vec) + comp


def run_reads(backend: str, src: str, n: int, n_in: int = 64) -> list[float]:
    got = run_backend(backend, src, {"Out": ("float", n)}, {"C": ("float", [float(i) for i in range(n_in)])})
    return got["Out"]


CS = "[numthreads(1, 1, 1)]\nvoid main() {{ {body} }}\n"
HEAD = "RWStructuredBuffer<float> Out : register(u0);\n"

# name -> (declarations (cbuffer C at b1 follows them or is inside them), reads, [(register, row, col, row_major)])
CASES = {
    "pragma_switches_between_members": (
        "#pragma pack_matrix(row_major)\ncbuffer C : register(b1) {\n  float2x2 a;\n"
        "#pragma pack_matrix(column_major)\n  float2x2 b;\n};\n",
        ["a._12", "a._21", "b._12", "b._21"],
        [(0, 0, 1, True), (0, 1, 0, True), (2, 0, 1, False), (2, 1, 0, False)]),
    "explicit_modifier_wins_over_pragma": (
        "#pragma pack_matrix(row_major)\ncbuffer C : register(b1) { column_major float2x2 a; float2x2 b; };\n",
        ["a._12", "b._12"], [(0, 0, 1, False), (2, 0, 1, True)]),
    "explicit_row_major_under_column_pragma": (
        "#pragma pack_matrix(column_major)\ncbuffer C : register(b1) { row_major float2x2 a; };\n",
        ["a._12", "a._21"], [(0, 0, 1, True), (0, 1, 0, True)]),
    "typedef_keeps_pragma_of_its_declaration": (
        "#pragma pack_matrix(row_major)\ntypedef float2x2 RM;\n#pragma pack_matrix(column_major)\n"
        "cbuffer C : register(b1) { RM a; float2x2 b; };\n",
        ["a._12", "b._12"], [(0, 0, 1, True), (2, 0, 1, False)]),
    "plain_typedef_takes_pragma_of_use": (
        "typedef float2x2 M;\n#pragma pack_matrix(row_major)\ncbuffer C : register(b1) { M a; };\n",
        ["a._12", "a._21"], [(0, 0, 1, True), (0, 1, 0, True)]),
    "typedef_with_explicit_modifier": (
        "typedef row_major float2x2 RM;\ntypedef RM RM2;\ncbuffer C : register(b1) { RM2 a; row_major RM b; };\n",
        ["a._12", "b._21"], [(0, 0, 1, True), (2, 1, 0, True)]),
    "typedef_of_matrix_template": (
        "#pragma pack_matrix(row_major)\ntypedef matrix<float, 2, 2> RM;\n#pragma pack_matrix(column_major)\n"
        "cbuffer C : register(b1) { RM a; };\n",
        ["a._12"], [(0, 0, 1, True)]),
    "struct_field_takes_pragma_of_struct": (
        "#pragma pack_matrix(row_major)\nstruct S { float2x2 m; };\n#pragma pack_matrix(column_major)\n"
        "struct T { float2x2 m; };\ncbuffer C : register(b1) { S s; T t; };\n",
        ["s.m._12", "t.m._12"], [(0, 0, 1, True), (2, 0, 1, False)]),
    "array_of_matrices_under_pragma": (
        "#pragma pack_matrix(row_major)\ncbuffer C : register(b1) { float2x2 arr[2]; };\n",
        ["arr[1]._12", "arr[1]._21"], [(2, 0, 1, True), (2, 1, 0, True)]),
    "typedef_array_of_row_major": (
        "typedef row_major float2x2 RMA[2];\ncbuffer C : register(b1) { RMA arr; };\n",
        ["arr[1]._12", "arr[0]._21"], [(2, 0, 1, True), (0, 1, 0, True)]),
    "global_uniform_under_pragma": (
        "#pragma pack_matrix(row_major)\nfloat2x2 g;\n",
        ["g._12", "g._21"], [(0, 0, 1, True), (0, 1, 0, True)]),
    "pragma_in_included_position_inside_struct": (
        "struct S {\n  float2x2 a;\n#pragma pack_matrix(row_major)\n  float2x2 b;\n};\n"
        "#pragma pack_matrix(column_major)\ncbuffer C : register(b1) { S s; };\n",
        ["s.a._12", "s.b._12"], [(0, 0, 1, False), (2, 0, 1, True)]),
}


def _params():
    for name in CASES:
        for b in BACKENDS:
            yield pytest.param(name, b, id=f"{name}-{b}")


@pytest.mark.parametrize("name, backend", list(_params()))
def test_matrix_orientation(name, backend):
    decls, reads, where = CASES[name]
    body = " ".join(f"Out[{i}] = {r};" for i, r in enumerate(reads))
    src = HEAD + decls + CS.format(body=body)
    if "cbuffer C" not in decls:
        got = run_backend(backend, src, {"Out": ("float", len(reads))},
                          {"$Globals": ("float", [float(i) for i in range(64)])})["Out"]
    else:
        got = run_reads(backend, src, len(reads))
    assert got == [float(word(*w)) for w in where]


NON_SQUARE = HEAD + """#pragma pack_matrix(row_major)
cbuffer C : register(b1) { float2x3 m; float k; };
""" + CS.format(body="Out[0] = m._23; Out[1] = k;")


@pytest.mark.parametrize("backend", BACKENDS)
def test_pragma_row_major_changes_the_size_of_a_non_square_matrix(backend):
    """Row-major float2x3 is two registers of three floats: D3D packs k into c1.w, Vulkan's relaxed std140
    (matrix size = registers x 16) starts k at c2.x."""
    k_word = 4 * 1 + 3 if backend != "spirv" else 4 * 2
    assert run_reads(backend, NON_SQUARE, 2) == [float(word(0, 1, 2, True)), float(k_word)]


SB_TEMPLATE = """RWStructuredBuffer<float> Out : register(u0);
StructuredBuffer<row_major float2x2> A : register(t1);
#pragma pack_matrix(row_major)
StructuredBuffer<float2x2> B : register(t2);
#pragma pack_matrix(column_major)
StructuredBuffer<float2x2> D : register(t3);
[numthreads(1, 1, 1)]
void main() { Out[0] = A[1]._12; Out[1] = B[1]._12; Out[2] = D[1]._12; }
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_structured_buffer_template_argument_orientation(backend):
    """A structured buffer of float2x2 is tightly packed (4 words per element); _12 is the second word of
    element 1 when rows are stored, the third when columns are."""
    data = {n: ("float", [float(i) for i in range(16)]) for n in ("A", "B", "D")}
    got = run_backend(backend, SB_TEMPLATE, {"Out": ("float", 3)}, data)["Out"]
    assert got == [4.0 + 1, 4.0 + 1, 4.0 + 2]


ERRORS = {
    "both_orientations": ("cbuffer C : register(b1) { row_major column_major float2x2 m; };\n",
                          "'row_major' and 'column_major' attributes are not compatible"),
    "column_major_on_row_major_typedef": (
        "typedef row_major float2x2 RM;\ncbuffer C : register(b1) { column_major RM m; };\n",
        "'column_major' cannot apply to 'RM', a typedef of a 'row_major' matrix"),
    "row_major_on_column_major_typedef_field": (
        "typedef column_major float2x2 CM;\nstruct S { row_major CM m; };\ncbuffer C : register(b1) { S s; };\n",
        "'row_major' cannot apply to 'CM', a typedef of a 'column_major' matrix"),
    "both_on_template_argument": ("StructuredBuffer<row_major column_major float2x2> B : register(t1);\n",
                                  "'row_major' and 'column_major' attributes are not compatible"),
}


@pytest.mark.parametrize("name", list(ERRORS))
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_conflicting_orientation_is_an_error(name, target):
    decls, message = ERRORS[name]
    res = compile_cs(HEAD + decls + CS.format(body="Out[0] = 1;"), target)
    assert not res.ok
    errors = [d for d in res.diagnostics if d.severity == "error"]
    assert [d.message for d in errors] == [message]
    assert errors[0].loc.line >= 2


@pytest.mark.parametrize("decl", ["row_major column_major float2x2 m = (float2x2)0;",
                                  "static column_major RM m = (RM)0;"])
def test_conflicting_orientation_on_local_and_static_is_an_error(decl):
    src = HEAD + "typedef row_major float2x2 RM;\n" + CS.format(body=decl + " Out[0] = m._11;")
    res = compile_cs(src)
    assert not res.ok
    [err] = [d for d in res.diagnostics if d.severity == "error"]
    assert ("cannot" in err.message or "not compatible" in err.message) and "column_major" in err.message
    assert err.loc.line == 4


def test_bad_pragma_value_warns():
    res = compile_cs(HEAD + "#pragma pack_matrix(diagonal)\n" + CS.format(body="Out[0] = 1;"))
    assert res.ok
    assert any("pack_matrix" in d.message for d in res.diagnostics if d.severity == "warning")
