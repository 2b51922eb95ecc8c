"""Programs DXC rejects (issue 20, a fresh sweep with three or more spellings per kind): each gets located
errors (`file:line:col`), exactly these, on both targets, and the command line exits 1 and writes nothing.
The reference for what DXC refuses is its sources (DiagnosticSemaKinds.td, SemaHLSL.cpp, CGHLSLMS.cpp, the
validator's signature and barrier rules, TokenKinds.def for which type names are keywords) and its own
verify tests read as facts (binop-dims, conversions-between-type-shapes); the shaders here are our own."""

from __future__ import annotations

import pytest

from shaderbuild.cli import main
from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

PS = "float4 main(float4 p : SV_Position, int i : B) : SV_Target {\n"      # the body starts on line 2
CS = "RWStructuredBuffer<int> Out;\n[numthreads(1, 1, 1)]\nvoid main(uint3 t : SV_DispatchThreadID) {\n"  # line 4

# name -> (source, profile, exact errors)
REJECTED = {
    # wave/group barriers in a stage without a thread group (DXC's validator: a non-compute sync may only fence UAVs)
    'barrier_group_sync_in_vertex': (
        'float4 main(float4 p : POSITION) : SV_Position {\n    GroupMemoryBarrierWithGroupSync();\n    return p;\n}\n', 'vs_6_0',
        ["t.hlsl:2:5: intrinsic 'GroupMemoryBarrierWithGroupSync' is not allowed in vertex shaders (allowed in: amplification, compute, mesh)"]),
    'barrier_all_with_sync_in_pixel': (
        PS + '    AllMemoryBarrierWithGroupSync();\n    return p;\n}\n', 'ps_6_0',
        ["t.hlsl:2:5: intrinsic 'AllMemoryBarrierWithGroupSync' is not allowed in pixel shaders (allowed in: amplification, compute, mesh)"]),
    'barrier_device_with_sync_in_pixel': (
        PS + '    DeviceMemoryBarrierWithGroupSync();\n    return p;\n}\n', 'ps_6_0',
        ["t.hlsl:2:5: intrinsic 'DeviceMemoryBarrierWithGroupSync' is not allowed in pixel shaders (allowed in: amplification, compute, mesh)"]),
    'barrier_in_helper_of_pixel': (
        'float4 Synced(float4 x) {\n    GroupMemoryBarrier();\n    return x;\n}\n' + PS + '    return Synced(p);\n}\n', 'ps_6_0',
        ["t.hlsl:2:5: intrinsic 'GroupMemoryBarrier' is not allowed in pixel shaders (allowed in: amplification, compute, mesh)"]),
    'barrier_in_geometry': (
        'struct V { float4 p : SV_Position; };\n[maxvertexcount(1)]\nvoid main(point V v[1], inout PointStream<V> s) {\n    AllMemoryBarrier();\n    s.Append(v[0]);\n}\n', 'gs_6_0',
        ["t.hlsl:4:5: intrinsic 'AllMemoryBarrier' is not allowed in geometry shaders (allowed in: amplification, compute, mesh)"]),
    # matrix <-> vector shapes DXC refuses (binop-dims / conversions-between-type-shapes rules: element counts, row vs column)
    'matrix_to_vector3': (
        PS + '    float2x2 m = 1;\n    float3 v = m;\n    return v.xyzz;\n}\n', 'ps_6_0',
        ["t.hlsl:3:16: cannot convert from 'float2x2' to 'float3'"]),
    'vector3_to_matrix2x2': (
        PS + '    float2x2 m = (float2x2)p.xyz;\n    return m[0].xyxy;\n}\n', 'ps_6_0',
        ["t.hlsl:2:18: cannot convert from 'float3' to 'float2x2'"]),
    'matrix3x3_to_vector4': (
        PS + '    float3x3 m = 1;\n    float4 v = m;\n    return v;\n}\n', 'ps_6_0',
        ["t.hlsl:3:16: cannot convert from 'float3x3' to 'float4'"]),
    'matrix_row_to_column': (
        PS + '    float1x3 r = 1;\n    float3x1 c = (float3x1)r;\n    return c[0].xxxx;\n}\n', 'ps_6_0',
        ["t.hlsl:3:18: cannot convert from 'float1x3' to 'float3x1'"]),
    'matrix_column_to_row': (
        PS + '    float3x1 c = 1;\n    float1x2 r = (float1x2)c;\n    return r[0].xyxy;\n}\n', 'ps_6_0',
        ["t.hlsl:3:18: cannot convert from 'float3x1' to 'float1x2'"]),
    'matrix_return_as_vector': (
        'float2 F(float2x2 m) {\n    return m;\n}\n' + PS + '    return F((float2x2)1).xyxy;\n}\n', 'ps_6_0',
        ["t.hlsl:2:12: cannot convert from 'float2x2' to 'float2' in return statement"]),
    'vector_argument_to_matrix': (
        'float F(float2x2 m) { return m[0][0]; }\n' + PS + '    return F(p.xyz);\n}\n', 'ps_6_0',
        ["t.hlsl:3:16: cannot convert 'float3' to 'float2x2'"]),
    'packoffset_array_over_vector': (
        'cbuffer C { float4 a[2] : packoffset(c0); float4 b : packoffset(c1); };\n' + PS + '    return a[1] + b;\n}\n', 'ps_6_0',
        ["t.hlsl:1:54: 'b' overlaps 'a' in 'C': their packoffset/register reservations share bytes"]),
    'packoffset_matrix_over_float': (
        'cbuffer C {\n    float4x4 m : packoffset(c0);\n    float b : packoffset(c3.x);\n};\n' + PS + '    return m[0] + b;\n}\n', 'ps_6_0',
        ["t.hlsl:3:15: 'b' overlaps 'm' in 'C': their packoffset/register reservations share bytes"]),
    'typedef_redefines_vector': (
        'typedef float4 vector;\n' + PS + '    return p;\n}\n', 'ps_6_0',
        ["t.hlsl:1:16: redefinition of 'vector' as different kind of symbol"]),
    'struct_named_matrix': (
        'struct matrix { int x; };\n' + PS + '    return p;\n}\n', 'ps_6_0',
        ["t.hlsl:1:8: redefinition of 'matrix' as different kind of symbol"]),
    'lit_on_a_matrix': (
        PS + '    float2x2 m = 1;\n    return lit(m, 1, 1);\n}\n', 'ps_6_0',
        ["t.hlsl:3:16: no matching intrinsic for call to 'lit': argument 1 must be a scalar, not 'float2x2'"]),
    'dst_two_matrices': (
        PS + '    float4x1 a = p, b = p;\n    return dst(a, b);\n}\n', 'ps_6_0',
        ["t.hlsl:3:12: no matching function for call to 'dst'"]),
    # packoffset/register reservations that share bytes
    'packoffset_float2_over_float': (
        'cbuffer C { float2 a : packoffset(c0.y); float b : packoffset(c0.z); };\n' + PS + '    return a.xyxy + b;\n}\n', 'ps_6_0',
        ["t.hlsl:1:52: 'b' overlaps 'a' in 'C': their packoffset/register reservations share bytes"]),
    'register_c_twice': (
        'float4 a : register(c0);\nfloat4 b : register(c0);\n' + PS + '    return a + b;\n}\n', 'ps_6_0',
        ["t.hlsl:2:12: 'b' overlaps 'a' in '$Globals': their packoffset/register reservations share bytes"]),
    # [branch]+[flatten] (CGHLSLMS.cpp) and [loop]+[unroll] (SemaStmt.cpp) in any order and spelling
    'flatten_then_branch': (
        PS + '    [flatten][branch] if (i > 0) p = 1;\n    return p;\n}\n', 'ps_6_0',
        ["t.hlsl:2:23: can't use branch and flatten attributes together"]),
    'branch_flatten_switch': (
        PS + '    [branch][flatten] switch (i) { case 0: p = 1; break; }\n    return p;\n}\n', 'ps_6_0',
        ["t.hlsl:2:23: can't use branch and flatten attributes together"]),
    'branch_flatten_spaced_if_else': (
        PS + '    [branch] [flatten]\n    if (i > 0) p = 1; else p = 2;\n    return p;\n}\n', 'ps_6_0',
        ["t.hlsl:3:5: can't use branch and flatten attributes together"]),
    'unroll_then_loop': (
        PS + '    [unroll][loop] for (int k = 0; k < i; k++) p += 1;\n    return p;\n}\n', 'ps_6_0',
        ['t.hlsl:2:6: loop and unroll attributes are not compatible']),
    'loop_unroll_while': (
        PS + '    [loop][unroll] while (i > 0) { i--; }\n    return p;\n}\n', 'ps_6_0',
        ['t.hlsl:2:6: loop and unroll attributes are not compatible']),
    'unroll_count_loop_do': (
        PS + '    [unroll(2)][loop] do { i--; } while (i > 0);\n    return p;\n}\n', 'ps_6_0',
        ['t.hlsl:2:6: loop and unroll attributes are not compatible']),
    # 'uniform' on functions and methods: one error, the function is still declared
    'static_uniform_function': (
        'static uniform float f() { return 1; }\n' + PS + '    return f();\n}\n', 'ps_6_0',
        ["t.hlsl:1:22: 'uniform' is not a valid modifier for a function"]),
    'uniform_prototype': (
        'uniform float f();\nfloat f() { return 1; }\n' + PS + '    return f();\n}\n', 'ps_6_0',
        ["t.hlsl:1:15: 'uniform' is not a valid modifier for a function"]),
    'uniform_method': (
        'struct S {\n    uniform float f() { return 1; }\n};\n' + PS + '    S s;\n    return s.f();\n}\n', 'ps_6_0',
        ["t.hlsl:2:19: 'uniform' is not a valid modifier for a method"]),
    # a label with no statement before '}'
    'default_label_at_end': (
        PS + '    switch (i) { case 0: p = 1; break; default: }\n    return p;\n}\n', 'ps_6_0',
        ['t.hlsl:2:48: label at end of compound statement: expected statement']),
    'two_labels_at_end': (
        PS + '    switch (i) {\n    case 0: p = 1; break;\n    case 1:\n    case 2:\n    }\n    return p;\n}\n', 'ps_6_0',
        ['t.hlsl:5:12: label at end of compound statement: expected statement']),
    'only_a_label': (
        PS + '    switch (i) { case 0: }\n    return p;\n}\n', 'ps_6_0',
        ['t.hlsl:2:25: label at end of compound statement: expected statement']),
    # NULL is not a name in HLSL
    'NULL_compared': (
        PS + '    if (i == NULL) return 0;\n    return p;\n}\n', 'ps_6_0',
        ["t.hlsl:2:14: use of undeclared identifier 'NULL'"]),
    'NULL_argument': (
        'float4 f(float4 x) { return x; }\n' + PS + '    return f(NULL);\n}\n', 'ps_6_0',
        ["t.hlsl:3:14: use of undeclared identifier 'NULL'"]),
    'NULL_static_initialiser': (
        'static float4 g = NULL;\n' + PS + '    return g;\n}\n', 'ps_6_0',
        ["t.hlsl:1:19: use of undeclared identifier 'NULL'"]),
    # an inline or static entry point is not emitted (DXC: missing entry point)
    'inline_compute_entry': (
        'RWStructuredBuffer<int> Out;\n[numthreads(1, 1, 1)]\ninline void main() { Out[0] = 1; }\n', 'cs_6_0',
        ["t.hlsl:1:1: missing entry point definition 'main'"]),
    'inline_vertex_entry': (
        'inline float4 main(float4 p : POSITION) : SV_Position { return p; }\n', 'vs_6_0',
        ["t.hlsl:1:1: missing entry point definition 'main'"]),
    'static_pixel_entry': (
        'static float4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        ["t.hlsl:1:1: missing entry point definition 'main'"]),
    # names of built-in types: keywords cannot be declared, typedefs/structs may not redefine DXC's global declarations
    'typedef_redefines_float': (
        'typedef int float;\n' + PS + '    return p;\n}\n', 'ps_6_0',
        ["t.hlsl:1:13: typedef redefinition with different types ('int' vs 'float')"]),
    'typedef_redefines_Texture2D': (
        'typedef float4 Texture2D;\n' + PS + '    return p;\n}\n', 'ps_6_0',
        ["t.hlsl:1:16: redefinition of 'Texture2D' as different kind of symbol"]),
    'typedef_redefines_uint': (
        'typedef float uint;\n' + PS + '    return p;\n}\n', 'ps_6_0',
        ["t.hlsl:1:15: typedef redefinition with different types ('float' vs 'uint')"]),
    'struct_named_Buffer': (
        'struct Buffer { int x; };\n' + PS + '    return p;\n}\n', 'ps_6_0',
        ["t.hlsl:1:8: redefinition of 'Buffer' as different kind of symbol"]),
    'variable_named_float': (
        PS + '    float float = 1;\n    return p;\n}\n', 'ps_6_0',
        ["t.hlsl:2:11: cannot combine with previous 'float' declaration specifier"]),
    'parameter_named_int': (
        'float f(float int) { return 1; }\n' + PS + '    return f(1);\n}\n', 'ps_6_0',
        ["t.hlsl:1:15: cannot combine with previous 'float' declaration specifier"]),
    'field_named_bool': (
        'struct S { bool bool; };\n' + PS + '    return p;\n}\n', 'ps_6_0',
        ["t.hlsl:1:17: cannot combine with previous 'bool' declaration specifier"]),
    # an orientation on a typedef that already has the other one
    'column_major_parameter_of_row_major_typedef': (
        'typedef row_major float2x2 RM;\nfloat f(column_major RM m) { return m[0][0]; }\n' + PS + '    return p;\n}\n', 'ps_6_0',
        ["t.hlsl:2:25: 'column_major' cannot apply to 'RM', a typedef of a 'row_major' matrix"]),
    'row_major_on_column_major_typedef': (
        'typedef column_major float4x4 CM;\nrow_major CM m;\n' + PS + '    return m[0];\n}\n', 'ps_6_0',
        ["t.hlsl:2:14: 'row_major' cannot apply to 'CM', a typedef of a 'column_major' matrix"]),
    'column_major_through_two_typedefs': (
        'typedef row_major float4x4 RM;\ntypedef RM RM2;\ncolumn_major RM2 m;\n' + PS + '    return m[0];\n}\n', 'ps_6_0',
        ["t.hlsl:3:18: 'column_major' cannot apply to 'RM2', a typedef of a 'row_major' matrix"]),
    'column_major_local_of_row_major_typedef': (
        'typedef row_major float4x4 RM;\n' + PS + '    column_major RM m = 1;\n    return m[0];\n}\n', 'ps_6_0',
        ["t.hlsl:3:21: 'column_major' cannot apply to 'RM', a typedef of a 'row_major' matrix"]),
    # signature rows used twice: SV_Target is SV_Target0, an array takes index..index+n-1
    'target_parameter_and_return': (
        'float4 main(out float4 o : SV_Target0) : SV_Target0 { o = 1; return 2; }\n', 'ps_6_0',
        ["t.hlsl:1:24: semantic 'SV_Target0' is used more than once for outputs"]),
    'target_and_target0_fields': (
        'struct O {\n    float4 a : SV_Target;\n    float4 b : SV_Target0;\n};\nO main() { O o = (O)0; return o; }\n', 'ps_6_0',
        ["t.hlsl:3:12: semantic 'SV_Target0' is used more than once for outputs"]),
    'target_case_differs': (
        'void main(out float4 a : SV_Target1, out float4 b : SV_TARGET1) { a = 1; b = 2; }\n', 'ps_6_0',
        ["t.hlsl:1:49: semantic 'SV_TARGET1' is used more than once for outputs"]),
    'target_array_overlaps': (
        'struct O {\n    float4 a[2] : SV_Target0;\n    float4 b : SV_Target1;\n};\nO main() { O o = (O)0; return o; }\n', 'ps_6_0',
        ["t.hlsl:3:12: output semantic 'SV_Target1' has overlapping semantic index 1"]),
    'target_array_overlaps_array': (
        'void main(out float4 a[2] : SV_Target1, out float4 b[2] : SV_Target2) { a = (float4[2])0; b = (float4[2])0; }\n', 'ps_6_0',
        ["t.hlsl:1:52: output semantic 'SV_Target2' has overlapping semantic index 2"]),
    'input_array_overlaps': (
        'float4 main(float4 p : SV_Position, float2 t[3] : TEXCOORD0, float2 u : TEXCOORD2) : SV_Target { return p + t[0].x + u.x; }\n', 'ps_6_0',
        ["t.hlsl:1:69: input semantic 'TEXCOORD2' has overlapping semantic index 2"]),
    # intrinsic arity and shapes (DXC's gen_intrin_main.txt)
    'lit_two_arguments': (
        PS + '    return lit(p.x, p.y);\n}\n', 'ps_6_0',
        ["t.hlsl:2:12: no matching intrinsic for call to 'lit': expected 3 arguments, have 2"]),
    'refract_float2_eta': (
        PS + '    return refract(p.xy, p.xy, p.xy).xyxy;\n}\n', 'ps_6_0',
        ["t.hlsl:2:34: no matching intrinsic for call to 'refract': argument 3 must be a scalar, not 'float2'"]),
    'dst_on_float3': (
        PS + '    return dst(p.xyz, p.xyz).xyzz;\n}\n', 'ps_6_0',
        ["t.hlsl:2:12: no matching function for call to 'dst'"]),
    'cross_on_float2': (
        PS + '    return cross(p.xy, p.xy).xyxx;\n}\n', 'ps_6_0',
        ["t.hlsl:2:12: no matching function for call to 'cross'"]),
    'mad_two_arguments': (
        PS + '    return mad(p, p);\n}\n', 'ps_6_0',
        ["t.hlsl:2:12: no matching intrinsic for call to 'mad': expected 3 arguments, have 2"]),
    # Interlocked* destinations
    'interlocked_on_rwbuffer_float': (
        'RWBuffer<float> B;\n' + CS + '    uint o;\n    InterlockedAdd(B[0], 1, o);\n    Out[0] = o;\n}\n', 'cs_6_0',
        ["t.hlsl:6:21: 'InterlockedAdd' requires an int or uint destination, not 'float'"]),
    'interlocked_on_rwbuffer_uint2': (
        'RWBuffer<uint2> B;\n' + CS + '    uint o;\n    InterlockedAdd(B[0], 1, o);\n    Out[0] = o;\n}\n', 'cs_6_0',
        ["t.hlsl:6:21: 'InterlockedAdd' requires an int or uint destination, not 'uint2'"]),
    'interlocked_on_rwtexture_uint1': (
        'RWTexture2D<uint1> T;\n' + CS + '    InterlockedOr(T[uint2(0, 0)], 1);\n}\n', 'cs_6_0',
        ["t.hlsl:5:20: no matching intrinsic for call to 'InterlockedOr': the destination is a 'uint1', not a scalar int or uint"]),
    'interlocked_on_a_local': (
        CS + '    int x = 0;\n    InterlockedAdd(x, 1);\n    Out[0] = x;\n}\n', 'cs_6_0',
        ["t.hlsl:5:20: the first argument of 'InterlockedAdd' must be a buffer element or groupshared variable"]),
    # an unsuffixed literal converts to int and uint (or int64 and uint64) equally well
    'ambiguous_two_literal_arguments': (
        'float f(int a, int b) { return 1; }\nfloat f(uint a, uint b) { return 2; }\n' + PS + '    return f(1, 2);\n}\n', 'ps_6_0',
        ["t.hlsl:4:12: call to 'f' is ambiguous"]),
    'ambiguous_int64_literal': (
        'float f(int64_t a) { return 1; }\nfloat f(uint64_t a) { return 2; }\n' + PS + '    return f(1);\n}\n', 'ps_6_0',
        ["t.hlsl:4:12: call to 'f' is ambiguous"]),
    'ambiguous_method': (
        'struct S {\n    float f(int a) { return 1; }\n    float f(uint a) { return 2; }\n};\n' + PS + '    S s;\n    return s.f(3);\n}\n', 'ps_6_0',
        ["t.hlsl:7:14: call to 'f' is ambiguous"]),
    # texture subscripts take exactly their coordinate, also through .mips and .sample
    'texture2darray_with_uint2': (
        'Texture2DArray<float4> T;\n' + PS + '    return T[uint2(1, 2)];\n}\n', 'ps_6_0',
        ["t.hlsl:3:13: no viable overloaded operator[] for type 'Texture2DArray<float4>'"]),
    'texture3d_with_uint2': (
        'Texture3D<float4> T;\n' + PS + '    return T[uint2(1, 2)];\n}\n', 'ps_6_0',
        ["t.hlsl:3:13: no viable overloaded operator[] for type 'Texture3D<float4>'"]),
    'rwtexture2d_written_with_uint3': (
        'RWTexture2D<float4> T;\n' + PS + '    T[uint3(1, 2, 3)] = p;\n    return p;\n}\n', 'ps_6_0',
        ["t.hlsl:3:6: no viable overloaded operator[] for type 'RWTexture2D<float4>'"]),
    'mips_with_a_scalar': (
        'Texture2D<float4> T;\n' + PS + '    return T.mips[0][5];\n}\n', 'ps_6_0',
        ["t.hlsl:3:22: no viable overloaded operator[] for type 'Texture2D<float4>'"]),
    'mips_with_uint3': (
        'Texture2D<float4> T;\n' + PS + '    return T.mips[1][uint3(1, 2, 3)];\n}\n', 'ps_6_0',
        ["t.hlsl:3:22: no viable overloaded operator[] for type 'Texture2D<float4>'"]),
    'sample_with_uint3': (
        'Texture2DMS<float4> T;\n' + PS + '    return T.sample[0][uint3(1, 2, 3)];\n}\n', 'ps_6_0',
        ["t.hlsl:3:24: no viable overloaded operator[] for type 'Texture2DMS<float4>'"]),
    # C/C++ keywords DXC reserves (ParseDecl.cpp HLSLReservedKeyword), arrays of void
    'char_local': (
        PS + '    char c = 1;\n    return p;\n}\n', 'ps_6_0',
        ["t.hlsl:2:5: 'char' is a reserved keyword in HLSL"]),
    'long_parameter': (
        'float f(long x) { return 1; }\n' + PS + '    return f(1);\n}\n', 'ps_6_0',
        ["t.hlsl:1:9: 'long' is a reserved keyword in HLSL"]),
    'virtual_method': (
        'struct S { virtual float f() { return 1; } };\n' + PS + '    return p;\n}\n', 'ps_6_0',
        ["t.hlsl:1:12: 'virtual' is a reserved keyword in HLSL"]),
    'constexpr_and_register_globals': (
        'constexpr int k = 1;\nregister float r;\n' + PS + '    return p;\n}\n', 'ps_6_0',
        ["t.hlsl:1:1: 'constexpr' is a reserved keyword in HLSL", "t.hlsl:2:1: 'register' is a reserved keyword in HLSL"]),
    'typedef_array_of_void': (
        'typedef void V[2];\n' + PS + '    return p;\n}\n', 'ps_6_0',
        ["t.hlsl:1:9: array has incomplete element type 'void'"]),
    # misspelt forms of what accept8 accepts
    'pragma_operator_without_string': (
        '_Pragma(once)\n' + PS + '    return p;\n}\n', 'ps_6_0',
        ['t.hlsl:1:9: _Pragma takes a parenthesized string literal']),
    'pragma_operator_unclosed': (
        '_Pragma("once"\n' + PS + '    return p;\n}\n', 'ps_6_0',
        ["t.hlsl:1:9: expected ')' after the string of '_Pragma'"]),
    'defined_from_macro_without_name': (
        '#define D defined\n#if D\n#endif\n' + PS + '    return p;\n}\n', 'ps_6_0',
        ["t.hlsl:2:5: macro name must be an identifier after 'defined'"]),
    'line_marker_without_file_string': (
        '# 12 foo\n' + PS + '    return p;\n}\n', 'ps_6_0',
        ['t.hlsl:1:6: invalid filename for line marker directive']),
    'unorm_int_template_argument': (
        'Buffer<unorm int> B;\n' + PS + '    return B[0];\n}\n', 'ps_6_0',
        ['t.hlsl:1:8: snorm and unorm qualifier can only be used on floating-point types']),
    'unorm_snorm_template_argument': (
        'Buffer<unorm snorm float> B;\n' + PS + '    return B[0];\n}\n', 'ps_6_0',
        ["t.hlsl:1:14: 'unorm' and 'snorm' attributes are not compatible"]),
    'length_at_hlsl_2021': (
        PS + '    float a[3];\n    return a.Length;\n}\n', 'ps_6_0',
        ['t.hlsl:3:14: Length is only allowed for HLSL 2016 and lower.']),
    'inf_without_period': (
        PS + '    return 1#INF;\n}\n', 'ps_6_0',
        ["t.hlsl:2:13: expected ';' after return statement, found '#'"]),
    'annotation_before_semantic': (
        'float4 main(float4 p < int a = 1; > : SV_Position) : SV_Target { return p; }\n', 'ps_6_0',
        ["t.hlsl:1:37: expected ')' to close the parameter list, found ':'"]),
}


def _errors(source: str, profile: str, target: str) -> list[str]:
    res = compile_file("t.hlsl", CompileOptions(entry="main", profile=profile, target=target), text=source)
    assert res.ok is False and res.binary is None
    return [f"{d.loc}: {d.message}" for d in res.diagnostics if d.severity == "error"]


@pytest.mark.parametrize("name", sorted(REJECTED))
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_rejected_with_located_errors(name, target):
    source, profile, expected = REJECTED[name]
    assert _errors(source, profile, target) == expected


@pytest.mark.parametrize("name", ["target_and_target0_fields", "typedef_redefines_vector", "mips_with_a_scalar",
                                  "pragma_operator_without_string", "uniform_method"])
def test_command_line_exits_1_and_writes_nothing(tmp_path, capsys, name):
    source, profile, expected = REJECTED[name]
    src = tmp_path / "t.hlsl"
    src.write_text(source)
    out = tmp_path / "t.spv"
    assert main(["compile", str(src), "-T", profile, "-E", "main", "-o", str(out)]) == 1
    assert not out.exists()
    err = capsys.readouterr().err
    for e in expected:                  # `path:line:col: error: message`, then the source line and a caret
        loc, message = e.split(": ", 1)
        assert f"{tmp_path / loc}: error: {message}" in err
