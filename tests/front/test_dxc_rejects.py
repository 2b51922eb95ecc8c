"""Programs DXC rejects (issue 20): each gets a located error here, in DXC's words where DXC has
them (its sources are the reference: DiagnosticSemaKinds.td, SemaStmt.cpp, CGHLSLMS.cpp, the DXIL
validator's barrier rule).  The accepted neighbours of each case compile, and the newly accepted
matrix shapes run with expected values computed here."""

from __future__ import annotations

import pytest
from lang_util import run_cs

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

PS = "float4 main(float4 p : A, int i : B) : SV_Target {\n"     # the body starts on line 2


def _compile(source: str, profile: str = "ps_6_0"):
    options = CompileOptions(entry="main", profile=profile, target="spirv")
    return compile_file("t.hlsl", options, text=source)


def _errors(source: str, profile: str = "ps_6_0") -> list[str]:
    res = _compile(source, profile)
    assert res.ok is False and res.binary is None
    return [f"{d.loc}: {d.message}" for d in res.diagnostics if d.severity == "error"]


# name -> (source, profile, exact errors)
REJECTED = {
    # stages: a groupshared fence needs a thread group (DXC's validator: "sync in a non-Compute/
    # Amplification/Mesh/Node Shader must only sync UAV (sync_uglobal)")
    "group_barrier_in_pixel": (
        PS + "    GroupMemoryBarrier();\n    GroupMemoryBarrierWithGroupSync();\n    return p;\n}\n", "ps_6_0",
        ["t.hlsl:2:5: intrinsic 'GroupMemoryBarrier' is not allowed in pixel shaders "
         "(allowed in: amplification, compute, mesh)",
         "t.hlsl:3:5: intrinsic 'GroupMemoryBarrierWithGroupSync' is not allowed in pixel shaders "
         "(allowed in: amplification, compute, mesh)"]),
    "all_barrier_in_vertex": (
        "float4 main() : SV_Position {\n    AllMemoryBarrier();\n    return 0;\n}\n", "vs_6_0",
        ["t.hlsl:2:5: intrinsic 'AllMemoryBarrier' is not allowed in vertex shaders "
         "(allowed in: amplification, compute, mesh)"]),
    # statement attributes (SemaStmt.cpp ActOnAttributedStmt; CGHLSLMS.cpp AddControlFlowHint)
    "branch_and_flatten": (
        PS + "    [branch][flatten] if (i > 0) p = 1;\n    return p;\n}\n", "ps_6_0",
        ["t.hlsl:2:23: can't use branch and flatten attributes together"]),
    "loop_and_unroll": (
        PS + "    [loop][unroll(1)] for (int k = 0; k < i; k++) p += 1;\n    return p;\n}\n", "ps_6_0",
        ["t.hlsl:2:6: loop and unroll attributes are not compatible"]),
    "fastopt_and_unroll": (
        PS + "    [fastopt][unroll] while (i > 0) { i--; }\n    return p;\n}\n", "ps_6_0",
        ["t.hlsl:2:6: fastopt and unroll attributes are not compatible"]),
    # declarations
    "uniform_on_a_function": (
        "uniform float f() { return 1; }\n" + PS + "    return f();\n}\n", "ps_6_0",
        ["t.hlsl:1:15: 'uniform' is not a valid modifier for a function"]),
    "case_label_without_statement": (
        PS + "    switch (i) { case 0: p = 1; break; case 1: }\n    return p;\n}\n", "ps_6_0",
        ["t.hlsl:2:47: label at end of compound statement: expected statement"]),
    "NULL_is_not_a_name": (
        PS + "    float x = NULL;\n    return x;\n}\n", "ps_6_0",
        ["t.hlsl:2:15: use of undeclared identifier 'NULL'"]),
    "typedef_redefines_string": (
        "typedef float4 string;\n" + PS + "    return p;\n}\n", "ps_6_0",
        ["t.hlsl:1:16: typedef redefinition with different types ('float4' vs 'string')"]),
    "typedef_redefines_dword": (
        "typedef float2 dword;\n" + PS + "    return p;\n}\n", "ps_6_0",
        ["t.hlsl:1:16: typedef redefinition with different types ('float2' vs 'uint')"]),
    "column_major_on_row_major_typedef": (
        "typedef row_major float4x4 RM;\ncolumn_major RM m;\n" + PS + "    return m[0];\n}\n", "ps_6_0",
        ["t.hlsl:2:17: 'column_major' cannot apply to 'RM', a typedef of a 'row_major' matrix"]),
    "overlapping_packoffsets": (
        "cbuffer C { float4 a : packoffset(c0); float b : packoffset(c0.y); };\n" + PS + "    return a + b;\n}\n",
        "ps_6_0", ["t.hlsl:1:50: 'b' overlaps 'a' in 'C': their packoffset/register reservations share bytes"]),
    "two_render_targets_0": (
        "struct O { float4 a : SV_Target0; float4 b : SV_Target0; };\nO main() { O o; o.a = 1; o.b = 2; return o; }\n",
        "ps_6_0", ["t.hlsl:1:42: semantic 'SV_Target0' is used more than once for outputs"]),
    # modifiers on the wrong kind of declaration (front/modifiers.py, DXC's DiagnoseHLSLDecl)
    "misplaced_modifiers": (
        "struct S { const float a; nointerpolation float b; };\ntypedef uniform float UF;\nstatic uniform float g;\n"
        "float f(in float x) { in float y = x; return y; }\n"
        + PS + "    groupshared float q = 1;\n    extern float e = 1;\n    nointerpolation float n = 2;\n    return p;\n}\n",
        "ps_6_0",
        ["t.hlsl:1:24: 'const' is not a valid modifier for a field",
         "t.hlsl:2:23: 'uniform' is not a valid modifier for a typedef",
         "t.hlsl:3:22: 'static' and 'uniform' cannot be used together for a global variable",
         "t.hlsl:4:32: HLSL usage 'in' is only valid on a parameter",
         "t.hlsl:6:23: 'groupshared' is not a valid modifier for a local variable",
         "t.hlsl:7:18: 'extern' is not a valid modifier for a local variable",
         "t.hlsl:8:27: 'nointerpolation' is not a valid modifier for a local variable"]),
    "orientation_on_non_matrices": (
        "row_major float2 g;\nstruct S { column_major float4 v; };\n"
        + PS + "    row_major float x = 1;\n    row_major column_major float2x2 k = 1;\n    return g.x + x + k[0][0];\n}\n",
        "ps_6_0",
        ["t.hlsl:1:18: 'row_major' can only be used with a matrix type",
         "t.hlsl:2:32: 'column_major' can only be used with a matrix type",
         "t.hlsl:4:21: 'row_major' can only be used with a matrix type",
         "t.hlsl:5:37: 'row_major' and 'column_major' attributes are not compatible"]),
    "snorm_unorm": (
        PS + "    snorm int a = 1;\n    snorm unorm float b = 1;\n    return a + b;\n}\n", "ps_6_0",
        ["t.hlsl:2:15: snorm and unorm qualifier can only be used on floating-point types",
         "t.hlsl:3:23: 'unorm' and 'snorm' attributes are not compatible"]),
    "hlsl_modifiers_after_the_type": (
        "float2x3 row_major g;\nfloat f(float inout x) { return x; }\nstruct S { float4 centroid c; };\n"
        + PS + "    return p;\n}\n", "ps_6_0",
        ["t.hlsl:1:10: modifiers must appear before type", "t.hlsl:2:15: modifiers must appear before type",
         "t.hlsl:3:19: modifiers must appear before type"]),
    "volatile_is_reserved": (
        PS + "    volatile float v = 1;\n    return v;\n}\n", "ps_6_0",
        ["t.hlsl:2:5: 'volatile' is a reserved keyword in HLSL"]),
    "geometry_primitive_on_a_local": (
        PS + "    triangle float t = 1;\n    return t;\n}\n", "ps_6_0",
        ["t.hlsl:2:20: 'triangle' is not a valid modifier for a local variable"]),
    # an inline (or static) function is only emitted where it is called (DXC's DeclMustBeEmitted)
    "inline_entry_point": (
        "inline float4 main() : SV_Target { return 1; }\n", "ps_6_0",
        ["t.hlsl:1:1: missing entry point definition 'main'"]),
    # intrinsics whose parameters are scalars or 4-vectors in DXC's table (gen_intrin_main.txt)
    "lit_with_vectors": (
        PS + "    return lit(p.xy, p.xy, p.xy);\n}\n", "ps_6_0",
        ["t.hlsl:2:18: no matching intrinsic for call to 'lit': argument 1 must be a scalar, not 'float2'"]),
    "refract_with_vector_eta": (
        PS + "    return refract(p.xyz, p.xyz, p.xyz).xyzz;\n}\n", "ps_6_0",
        ["t.hlsl:2:36: no matching intrinsic for call to 'refract': argument 3 must be a scalar, not 'float3'"]),
    "dst_on_a_matrix": (
        PS + "    float4x1 m = p;\n    return dst(m, p);\n}\n", "ps_6_0",
        ["t.hlsl:3:12: no matching function for call to 'dst'"]),
    # Interlocked* take a scalar int/uint destination (`ref int32_only`), not a one-component vector
    "interlocked_on_a_uint1_buffer_element": (
        "RWBuffer<uint1> B;\n[numthreads(1, 1, 1)]\nvoid main() {\n    uint o;\n    InterlockedAdd(B[0], 1, o);\n}\n",
        "cs_6_0",
        ["t.hlsl:5:21: no matching intrinsic for call to 'InterlockedAdd': the destination is a 'uint1', not a "
         "scalar int or uint"]),
    "interlocked_on_a_groupshared_int1": (
        "groupshared int1 G[2];\n[numthreads(1, 1, 1)]\nvoid main() {\n    InterlockedMax(G[1], 1);\n}\n",
        "cs_6_0",
        ["t.hlsl:4:21: no matching intrinsic for call to 'InterlockedMax': the destination is a 'int1', not a "
         "scalar int or uint"]),
    # a texture subscript takes exactly its coordinate (DXC: no splat, no truncation)
    "texture2d_indexed_with_three_components": (
        "Texture2D<float4> T;\n" + PS + "    return T[uint3(1, 2, 3)];\n}\n", "ps_6_0",
        ["t.hlsl:3:13: no viable overloaded operator[] for type 'Texture2D<float4>'"]),
    "texture2d_indexed_with_a_scalar": (
        "Texture2D<float4> T;\n" + PS + "    return T[0];\n}\n", "ps_6_0",
        ["t.hlsl:3:13: no viable overloaded operator[] for type 'Texture2D<float4>'"]),
    "buffer_indexed_with_a_vector": (
        "Buffer<float4> B;\n" + PS + "    return B[uint2(1, 2)];\n}\n", "ps_6_0",
        ["t.hlsl:3:13: no viable overloaded operator[] for type 'Buffer<float4>'"]),
    # overloads: an unsuffixed integer literal converts to int and to uint equally well
    "int_uint_overloads_with_a_literal": (
        "float f(int x) { return 1; }\nfloat f(uint x) { return 2; }\n" + PS + "    return f(3);\n}\n", "ps_6_0",
        ["t.hlsl:4:12: call to 'f' is ambiguous"]),
    "float_double_overloads_with_a_literal": (
        "float f(float x) { return 1; }\nfloat f(double x) { return 2; }\n" + PS + "    return f(1.5);\n}\n", "ps_6_0",
        ["t.hlsl:4:12: call to 'f' is ambiguous"]),
    # operators (SemaHLSL.cpp: bool lvalues, double modulo)
    "compound_assignment_to_a_bool": (
        PS + "    bool b = i > 0;\n    b += 1;\n    bool2 c = b;\n    c *= 2;\n    return b;\n}\n", "ps_6_0",
        ["t.hlsl:3:7: operator cannot be used with a bool lvalue", "t.hlsl:5:7: operator cannot be used with a bool lvalue"]),
    "increment_of_a_bool": (
        PS + "    bool b = i > 0;\n    b++;\n    return b;\n}\n", "ps_6_0",
        ["t.hlsl:3:6: operator cannot be used with a bool lvalue"]),
    "modulo_of_doubles": (
        PS + "    double d = p.x;\n    float r = d % 2;\n    d %= 3;\n    return r;\n}\n", "ps_6_0",
        ["t.hlsl:3:17: modulo cannot be used with doubles, cast to float first",
         "t.hlsl:4:7: modulo cannot be used with doubles, cast to float first"]),
    # matrix <-> vector shapes (DXC's binop-dims rules)
    "matrix_to_smaller_vector": (
        PS + "    float2x2 m = 1;\n    float2 v = (float2)m;\n    return v.xyxy;\n}\n", "ps_6_0",
        ["t.hlsl:3:16: cannot convert from 'float2x2' to 'float2'"]),
    "matrix_to_vector_of_other_count": (
        PS + "    float4x2 m = 1;\n    float4 v = (float4)m;\n    return v;\n}\n", "ps_6_0",
        ["t.hlsl:3:16: cannot convert from 'float4x2' to 'float4'"]),
    "matrix_reshaped": (
        PS + "    float1x4 m = 1;\n    float2x2 n = (float2x2)m;\n    return n[0].xyxy;\n}\n", "ps_6_0",
        ["t.hlsl:3:18: cannot convert from 'float1x4' to 'float2x2'"]),
    "matrix_transposed_shape": (
        PS + "    float2x1 a = 1;\n    float1x2 b = 1;\n    float2x1 c = a + b;\n    return c[0].xxxx;\n}\n", "ps_6_0",
        ["t.hlsl:4:20: cannot convert from 'float1x2' to 'float2x1'"]),
    "vector_to_bigger_matrix": (
        PS + "    float2x2 m = (float2x2)p.xy;\n    return m[0].xyxy;\n}\n", "ps_6_0",
        ["t.hlsl:2:18: cannot convert from 'float2' to 'float2x2'"]),
}


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_dxc_rejects(name):
    source, profile, expected = REJECTED[name]
    assert _errors(source, profile) == expected


ACCEPTED = {
    "device_barrier_in_pixel": PS + "    DeviceMemoryBarrier();\n    return p;\n}\n",
    "same_count_matrix_to_vector": PS + "    float2x2 m = 1;\n    return (float4)m;\n}\n",
    "row_matrix_truncated_to_vector": PS + "    float1x4 m = 1;\n    return ((float2)m).xyxy;\n}\n",
    "typedef_of_a_builtin_name_as_itself": "typedef uint dword;\n" + PS + "    dword d = 1;\n    return d;\n}\n",
    "interlocked_on_a_uint_buffer_element":
        "RWBuffer<uint> B;\n" + PS + "    uint o;\n    InterlockedAdd(B[0], 1, o);\n    return o;\n}\n",
    "texture2d_indexed_with_int2": "Texture2D<float4> T;\n" + PS + "    return T[int2(1, 2)];\n}\n",
    "float_suffix_picks_float":
        "float f(float x) { return 1; }\nfloat f(double x) { return 2; }\n" + PS + "    return f(1.5f);\n}\n",
    "float_literal_prefers_float_to_int":
        "float f(float x) { return 1; }\nfloat f(int x) { return 2; }\n" + PS + "    return f(1.5);\n}\n",
    "bitwise_compound_assignment_to_a_bool":
        PS + "    bool b = i > 0;\n    b &= i < 4;\n    b |= i == 7;\n    b ^= true;\n    return b;\n}\n",
    "modulo_of_floats": PS + "    float d = p.x;\n    return d % 2;\n}\n",
    "modifiers_where_they_belong":
        "struct S { static const float k = 1; nointerpolation float b; };\nextern float ext;\ngroupshared float gs;\n"
        "float f(inout float x, uniform float u) { x += u; return x; }\nstatic float sf() { return 1; }\n"
        + PS + "    static float s = 2;\n    precise float q = p.x;\n    float v = q + s + sf();\n    return f(v, 1);\n}\n",
    "orientation_on_matrices_and_their_arrays":
        "row_major float2x2 g;\ncolumn_major float3x3 h[2];\n" + PS + "    return g[0].xyxy + h[1][0].xyzz;\n}\n",
    "snorm_on_floats": PS + "    snorm float a = 0.5;\n    unorm float2 b = 0.25;\n    return a + b.x;\n}\n",
    "c_qualifiers_after_the_type": PS + "    float const c = 1;\n    float static s = 2;\n    return p * c * s;\n}\n",
    "suffixed_literal_picks_its_overload":
        "float f(int x) { return 1; }\nfloat f(uint x) { return 2; }\n" + PS + "    return f(3u);\n}\n",
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_accepted_neighbours(name):
    res = _compile(ACCEPTED[name])
    assert res.ok, [d.message for d in res.diagnostics]


def test_one_by_one_matrix_combines_as_a_scalar():
    """float1x1 with a bigger shape splats (DXC accepts `m4x1 + m1x1`, `(float2x2)m1x1`); with a
    transposed 2x1/1x2 pair it is refused (above).  Values computed here: a + 10 in every component."""
    src = """
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
    float4x1 a = float4x1(1, 2, 3, 4);
    float1x1 s = 10;
    float4x1 sum = a + s;
    float2x2 splat = (float2x2)s;
    float2x2 m = float2x2(1, 2, 3, 4);
    float4 v = (float4)m;                  // row-major component order
    float1x4 r = float1x4(5, 6, 7, 8);
    float2 t = (float2)r;
    for (int k = 0; k < 4; k++) Out[k] = sum[k];      // a row of a 4x1 matrix is one float
    Out[4] = splat[0][0] + splat[0][1] + splat[1][0] + splat[1][1];
    for (int j = 0; j < 4; j++) Out[5 + j] = v[j];
    Out[9] = t.x; Out[10] = t.y;
}
"""
    got = run_cs(src, {"Out": ("float", 11)})["Out"]
    assert got == [11.0, 12.0, 13.0, 14.0, 40.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
