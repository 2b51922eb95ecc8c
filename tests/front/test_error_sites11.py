"""Diagnostic sites no other test reached (tests/error_sites.py lists them and records which a run reaches):
each program here reaches one, and gets exactly one error at the offending token (issue 20's bar).

A `$` in a source marks where the error must point; the test computes line:col from the marker's place in
the text, so the expected location is never taken from the compiler.  Programs are our own."""

from __future__ import annotations

import pytest

from shaderbuild.cli import main
from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

PS = "float4 main() : SV_Target { return 1; }\n"
PB = "float4 main() : SV_Target {\n"       # a body from line 2
HS_HEAD = ("struct CP { float4 p : SV_Position; };\n"
           "struct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; };\n"
           "PC pc() { PC c = (PC)0; return c; }\n"
           '[domain("tri")] [partitioning("integer")] [outputtopology("triangle_cw")] [outputcontrolpoints(3)]\n')
HS_MAIN = "CP main(InputPatch<CP, 3> ip, uint i : SV_OutputControlPointID) { return ip[i]; }\n"

# name -> (source with one `$`, profile, message)
CASES: dict[str, tuple[str, str, str]] = {
    # declarations (front/sema/lower.py)
    "array_of_void": ("float4 main() : SV_Target { $void a[2]; return 1; }\n", "ps_6_0",
                      "array has incomplete element type 'void'"),
    "too_many_array_dimensions": ("static float g" + "[1]" * 32 + "[$1][1];\n" + PS, "ps_6_0",
                                  "too many array dimensions (34; the limit is 32)"),
    "base_is_not_a_struct": ("struct S : $float4 { float x; };\n" + PS, "ps_6_0", "base type 'float4' is not a struct"),
    "duplicate_member": ("struct S { float x; float $x; };\n" + PS, "ps_6_0", "duplicate member 'x'"),
    "duplicate_bitfield_member": ("struct S { uint x : 4; uint $x : 4; };\n" + PS, "ps_6_0", "duplicate member 'x'"),
    "unsized_local_array": ("float4 main() : SV_Target { float $a[]; return 1; }\n", "ps_6_0",
                            "definition of variable 'a' with unsized array type 'float[]' is not allowed"),
    "void_local": ("float4 main() : SV_Target { void $v; return 1; }\n", "ps_6_0",
                   "variable 'v' has incomplete type 'void'"),
    "static_local_from_a_parameter": (
        "float4 main(float4 p : P) : SV_Target { static float4 v = $p; return v; }\n", "ps_6_0",
        "a static local variable needs a constant initializer"),
    "static_local_from_a_local": (
        "float4 main() : SV_Target { float4 x = 1; static float4 v = x $* 2; return v; }\n", "ps_6_0",
        "a static local variable needs a constant initializer"),
    "const_without_initializer": ("float4 main() : SV_Target { const float $c; return c; }\n", "ps_6_0",
                                  "const variable 'c' must be initialized"),
    "extern_string": ('extern string $s = "a";\n' + PS, "ps_6_0",
                      "string cannot be declared with 'extern' storage specifier"),
    "overload_on_return_type_only": ("float f(float x) { return x; }\nint $f(float x) { return 1; }\n"
                                     "float4 main() : SV_Target { return f(1); }\n", "ps_6_0",
                                     "functions that differ only in their return type cannot be overloaded"),
    "function_named_like_a_variable": ("float f;\nfloat $f(float x) { return x; }\n" + PS, "ps_6_0",
                                       "redefinition of 'f' as a different kind of symbol"),
    "typedef_of_a_template_name": ("typedef float $vector;\n" + PS, "ps_6_0",
                                   "redefinition of 'vector' as different kind of symbol"),
    "typedef_of_uint_as_int": ("typedef int $uint;\n" + PS, "ps_6_0",
                               "typedef redefinition with different types ('int' vs 'uint')"),
    "struct_named_Texture2D": ("struct $Texture2D { float a; };\n" + PS, "ps_6_0",
                               "redefinition of 'Texture2D' as different kind of symbol"),
    "out_of_line_method_return_type": ("struct S { float f(); };\nint S::$f() { return 1; }\n"
                                       "float4 main() : SV_Target { S s; return s.f(); }\n", "ps_6_0",
                                       "return type of out-of-line definition of 'f' differs from its declaration"),
    "static_local_resource": ("Texture2D g;\nfloat4 main() : SV_Target { static Texture2D $t = g; return t.Load(0); }\n",
                              "ps_6_0", "static local resources are not supported"),
    "static_resource_of_another_type": ("Texture2D g;\nstatic Texture3D t = $g;\n"
                                        "float4 main() : SV_Target { return t.Load(0); }\n", "ps_6_0",
                                        "static resource 't' must be initialized with a global resource of type "
                                        "'Texture3D<float4>'"),
    # globals, cbuffers, push constants, specialisation constants
    "uniform_unsized_array": ("float $g[];\nfloat4 main() : SV_Target { return g[0]; }\n", "ps_6_0",
                              "definition of variable 'g' with unsized array type 'float[]' is not allowed"),
    "cbuffer_unsized_field": ("cbuffer C { float $g[]; };\nfloat4 main() : SV_Target { return g[0]; }\n", "ps_6_0",
                              "field 'g' has an unsized array type"),
    "cbuffer_void_field": ("cbuffer C { void $g; };\n" + PS, "ps_6_0", "field 'g' has type 'void'"),
    "assign_to_cbuffer_member": ("cbuffer C { float g; };\nfloat4 main() : SV_Target { $g = 1; return g; }\n",
                                 "ps_6_0", "cannot assign to constant buffer member 'g'"),
    "packoffset_names_b": ("cbuffer C { float4 a : $packoffset(b1); };\nfloat4 main() : SV_Target { return a; }\n",
                           "ps_6_0", "packoffset must name a 'c' register, not 'b1'"),
    "packoffset_component_q": ("cbuffer C { float a : $packoffset(c0.q); };\nfloat4 main() : SV_Target { return a; }\n",
                               "ps_6_0", "invalid packoffset component '.q'"),
    "packoffset_straddles": ("cbuffer C { float2 a : $packoffset(c0.w); };\n"
                             "float4 main() : SV_Target { return a.xyxy; }\n", "ps_6_0",
                             "packoffset(c0.w) makes 'a' straddle a 16-byte register"),
    "push_constant_scalar": ("[[vk::push_constant]] float $f;\nfloat4 main() : SV_Target { return f; }\n", "ps_6_0",
                             "[[vk::push_constant]] requires a struct or ConstantBuffer<T> variable, not 'float'"),
    "push_constant_twice": ("struct P { float a; };\n[[vk::push_constant]] P x;\n[[vk::push_constant]] P $y;\n"
                            "float4 main() : SV_Target { return x.a + y.a; }\n", "ps_6_0",
                            "only one [[vk::push_constant]] block is allowed per shader"),
    "spec_constant_local": ("float4 main() : SV_Target { [[$vk::constant_id(1)]] const int c = 1; return c; }\n",
                            "ps_6_0", "[[vk::constant_id]] is only allowed on a global variable"),
    "spec_constant_not_const": ("[[vk::constant_id(1)]] int $c = 1;\nfloat4 main() : SV_Target { return c; }\n",
                                "ps_6_0", "specialization constant 'c' must be declared 'const' (and not 'static' or "
                                "'groupshared')"),
    "spec_constant_vector": ("[[vk::constant_id(1)]] const int2 $c = 1;\nfloat4 main() : SV_Target { return c.x; }\n",
                             "ps_6_0", "specialization constant 'c' must have a scalar type (bool, int, uint, float, "
                             "...), not 'int2'"),
    "spec_constant_without_value": ("[[vk::constant_id(1)]] const int $c;\nfloat4 main() : SV_Target { return c; }\n",
                                    "ps_6_0", "specialization constant 'c' requires an initializer (its default value)"),
    "spec_constant_id_twice": ("[[vk::constant_id(1)]] const int a = 1;\n[[vk::constant_id($1)]] const int b = 2;\n"
                               "float4 main() : SV_Target { return a + b; }\n", "ps_6_0",
                               "specialization constant id 1 is already used by 'a'"),
    "spec_constant_negative_id": ("[[vk::constant_id($-1)]] const int c = 1;\nfloat4 main() : SV_Target { return c; }\n",
                                  "ps_6_0", "[[vk::constant_id]] takes one argument, a non-negative integer literal"),
    # type qualifiers
    "globallycoherent_texture": ("globallycoherent Texture2D $t;\nfloat4 main() : SV_Target { return t.Load(0); }\n",
                                 "ps_6_0", "'globallycoherent' can only be applied to UAV objects"),
    "reordercoherent_before_6_9": ("reordercoherent RWTexture2D<float4> $t;\n"
                                   "float4 main() : SV_Target { return t[uint2(0, 0)]; }\n", "ps_6_0",
                                   "reordercoherent requires SM 6.9 or later"),
    "row_major_scalar": ("row_major float $f;\nfloat4 main() : SV_Target { return f; }\n", "ps_6_0",
                         "'row_major' can only be used with a matrix type"),
    "unorm_and_snorm": ("unorm snorm float $f;\nfloat4 main() : SV_Target { return f; }\n", "ps_6_0",
                        "'unorm' and 'snorm' attributes are not compatible"),
    "unorm_int_element": ("RWBuffer<$unorm int> b;\nfloat4 main() : SV_Target { return b[0]; }\n", "ps_6_0",
                          "snorm and unorm qualifier can only be used on floating-point types"),
    "groupshared_in_pixel": ("groupshared float g;\nfloat4 main() : SV_Target { return $g; }\n", "ps_6_0",
                             "groupshared variable 'g' can only be used in compute, mesh and amplification shaders"),
    "rov_in_vertex": ("RasterizerOrderedBuffer<float4> b;\nfloat4 main() : SV_Position { return $b[0]; }\n", "vs_6_0",
                      "rasterizer-ordered view 'b' can only be used in pixel shaders"),
    "rayquery_before_6_5": ("float4 main() : SV_Target { $RayQuery<0> q; return 1; }\n", "ps_6_3",
                            "'RayQuery' requires shader model 6.5 or later (the profile is ps_6_3)"),
    "rayquery_array": ("float4 main() : SV_Target { $RayQuery<0> q[2]; return 1; }\n", "ps_6_5",
                       "arrays of 'RayQuery' are not supported"),
    # entry points
    "entry_overloaded": ("float4 main(float4 p : P) : SV_Target { return p; }\n"
                         "float4 $main(int4 p : P) : SV_Target { return p; }\n", "ps_6_0",
                         "entry point 'main' is overloaded"),
    "numthreads_z_past_64": ("[numthreads(1, 1, $65)]\nvoid main() {}\n", "cs_6_0", "numthreads Z value exceeds 64"),
    "compute_entry_returns": ("[numthreads(1, 1, 1)]\nuint $main() { return 1; }\n", "cs_6_0",
                              "compute entry point 'main' must return void"),
    "stream_outside_geometry": ("float4 main(inout PointStream<float4> $s) : SV_Target { return 1; }\n", "ps_6_0",
                                "stream parameter 's' is only allowed in a geometry shader"),
    "texture_entry_parameter": ("float4 main(Texture2D $t) : SV_Target { return 1; }\n", "ps_6_0",
                                "object 'Texture2D<float4>' is not allowed in entry function parameters"),
    "geometry_without_input": ("struct V { float4 p : SV_Position; };\n[maxvertexcount(1)]\n"
                               "void $main(inout PointStream<V> s) { V v = (V)0; s.Append(v); }\n", "gs_6_0",
                               "geometry entry point 'main' needs an input primitive parameter such as "
                               "'triangle V input[3]'"),
    "geometry_two_inputs": ("struct V { float4 p : SV_Position; };\n[maxvertexcount(1)]\n"
                            "void main(point V a[1], point V $b[1], inout PointStream<V> s) { s.Append(a[0]); }\n",
                            "gs_6_0", "a geometry shader has one input primitive parameter"),
    # expressions and statements (front/sema/exprs.py, stmts.py); a call-level error points at the callee's
    # name, as clang's; a subscript error at its bracket (clang's place too)
    "integer_literal_too_large": (PB + "    uint64_t x = $123456789012345678901234567890; return 1;\n}\n", "ps_6_0",
                                  "integer literal is too large to be represented in any integer type"),
    "string_literal_in_code": (PB + '    float x = $"abc"; return 1;\n}\n', "ps_6_0",
                               "string literals are not supported in shader code"),
    "constant_index_out_of_bounds": (PB + "    float a[2] = {1, 2}; return a[$2];\n}\n", "ps_6_0",
                                     "index 2 is out of bounds for type 'float[2]'"),
    "negate_a_struct": ("struct S { float a; };\n" + PB + "    S s = (S)0; S t = $-s; return 1;\n}\n", "ps_6_0",
                        "invalid argument type 'S' to unary operator '-'"),
    "complement_a_float": (PB + "    float f = 1; return $~f;\n}\n", "ps_6_0",
                           "invalid argument type 'float' to unary operator '~'"),
    "logical_and_of_vectors": (PB + "    float2 a = 1, b = 1; return (a $&& b).xxxx;\n}\n", "ps_6_0",
                               "operands for short-circuiting logical binary operator must be scalar, for non-scalar "
                               "types use 'and'"),
    "assign_to_a_literal": (PB + "    $1 = 2; return 1;\n}\n", "ps_6_0", "expression is not assignable"),
    "subscript_a_struct": ("struct S { float a; };\n" + PB + "    S s = (S)0; return s$[0];\n}\n", "ps_6_0",
                           "subscripted value of type 'S' is not an array, vector or matrix"),
    "switch_on_a_float": (PB + "    float f = 1; switch ($f) { default: break; } return 1;\n}\n", "ps_6_0",
                          "switch condition must be an integer, not 'float'"),
    "two_default_labels": (PB + "    int i = 1; switch (i) { default: break; $default: break; } return 1;\n}\n",
                           "ps_6_0", "multiple default labels in one switch"),
    "if_on_a_struct": ("struct S { float a; };\n" + PB + "    S s = (S)0; if ($s) return 1; return 0;\n}\n", "ps_6_0",
                       "value of type 'S' is not contextually convertible to 'bool'"),
    "call_a_variable": (PB + "    float f = 1; return $f(2);\n}\n", "ps_6_0", "called object 'f' is not a function"),
    "construct_float4_from_a_struct": ("struct S { float a; };\n" + PB + "    S s = (S)0; return float4($s);\n}\n",
                                       "ps_6_0", "cannot use a value of type 'S' to construct 'float4'"),
    "sincos_to_a_literal": (PB + "    float s; sincos(1.0, s, $2.0); return s;\n}\n", "ps_6_0",
                            "cannot bind non-lvalue argument to out parameter of 'sincos'"),
    "interlocked_original_to_a_literal": ("RWStructuredBuffer<uint> b;\n"
                                          "[numthreads(1, 1, 1)] void main() { InterlockedAdd(b[0], 1, $5); }\n",
                                          "cs_6_0", "cannot bind non-lvalue argument to out parameter of "
                                          "'InterlockedAdd'"),
    "interlocked_on_a_local": ("[numthreads(1, 1, 1)] void main() { uint x = 0; InterlockedAdd($x, 1); }\n", "cs_6_0",
                               "the first argument of 'InterlockedAdd' must be a buffer element or groupshared "
                               "variable"),
    "matrix_with_two_arguments": ("$matrix<float, 2> m;\n" + PS, "ps_6_0", "'matrix' takes three template arguments"),
    # resource methods (front/sema/resources.py)
    "sample_without_a_sampler": ("Texture2D t;\n" + PB + "    return t.Sample($1.0, 0.5);\n}\n", "ps_6_0",
                                 "the first argument of 'Sample' must be a sampler"),
    "no_such_texture_method": ("Texture2D t;\n" + PB + "    return t.$Frobnicate(0);\n}\n", "ps_6_0",
                               "no member function named 'Frobnicate' in 'Texture2D<float4>'"),
    "texture_get_dimensions_literal": ("Texture2D t;\n" + PB + "    uint w; t.GetDimensions(w, $3); return w;\n}\n",
                                       "ps_6_0", "GetDimensions writes its results to lvalue arguments"),
    "texture_get_dimensions_arity": ("Texture2D t;\n" + PB + "    uint w; t.$GetDimensions(w); return w;\n}\n", "ps_6_0",
                                     "no matching member function for call to 'GetDimensions' on 'Texture2D': "
                                     "expected 2 or 4 arguments, have 1"),
    "texture_get_dimensions_uint3": ("Texture2D t;\n" + PB + "    uint3 w; uint h; t.GetDimensions($w, h); return w.x;\n"
                                     "}\n", "ps_6_0", "GetDimensions output must be a uint or float scalar, not 'uint3'"),
    "structured_get_dimensions_literal": ("StructuredBuffer<float> b;\n" + PB +
                                          "    uint n; b.GetDimensions(n, $2); return n;\n}\n", "ps_6_0",
                                          "GetDimensions(out uint numStructs, out uint stride) requires two lvalue "
                                          "arguments"),
    "load2_with_a_template_argument": ("ByteAddressBuffer b;\n" + PB + "    return b.$Load2<float>(0).xyxy;\n}\n",
                                       "ps_6_0", "'Load2' does not take a template argument; use Load<T>"),
    # mesh and tessellation entry points
    "mesh_entry_returns_int": ('[outputtopology("triangle")] [numthreads(1, 1, 1)]\nint $main() { return 0; }\n',
                               "ms_6_5", "mesh entry point 'main' must return void"),
    "mesh_payload_scalar": ('struct V { float4 p : SV_Position; };\n[outputtopology("triangle")] [numthreads(1, 1, 1)]\n'
                            "void main(in payload float $pl, out vertices V v[3], out indices uint3 t[1]) "
                            "{ SetMeshOutputCounts(0, 0); }\n", "ms_6_5", "the payload 'pl' must be a struct, not 'float'"),
    "mesh_two_vertex_outputs": ('struct V { float4 p : SV_Position; };\n[outputtopology("triangle")] '
                                "[numthreads(1, 1, 1)]\nvoid main(out vertices V v[3], out vertices V $w[3], "
                                "out indices uint3 t[1]) { SetMeshOutputCounts(0, 0); }\n", "ms_6_5",
                                "a mesh shader has one 'vertices' parameter"),
    "mesh_vertices_not_an_array": ('struct V { float4 p : SV_Position; };\n[outputtopology("triangle")] '
                                   "[numthreads(1, 1, 1)]\nvoid main(out vertices V $v, out indices uint3 t[1]) "
                                   "{ SetMeshOutputCounts(0, 0); }\n", "ms_6_5",
                                   "'vertices' parameter 'v' must be an array: 'v[N]'"),
    "vertices_in_a_pixel_shader": ("struct V { float4 p : SV_Position; };\n"
                                   "float4 main(out vertices V $v[3]) : SV_Target { return 1; }\n", "ps_6_0",
                                   "'vertices' parameters are only allowed in a mesh shader"),
    "patchconstantfunc_number": (HS_HEAD + "[patchconstantfunc($1)]\n" + HS_MAIN, "hs_6_0",
                                 "[patchconstantfunc] takes the function's name as a string"),
    "patchconstantfunc_overloaded": (HS_HEAD.replace("PC pc()", "PC pc(uint i : SV_PrimitiveID) { PC c = (PC)0; "
                                                     "return c; }\nPC pc()") + '[patchconstantfunc($"pc")]\n' + HS_MAIN,
                                     "hs_6_0", "patch-constant function 'pc' named by [patchconstantfunc] is "
                                     "overloaded"),
    "hull_without_input_patch": (HS_HEAD + '[patchconstantfunc("pc")]\n'
                                 "CP $main(uint i : SV_OutputControlPointID) { CP c = (CP)0; return c; }\n", "hs_6_0",
                                 "hull shader entry point 'main' needs an InputPatch<T, N> parameter (in it or in its "
                                 "patch-constant function)"),
    # entry parameters and results without semantics: the member that lacks one
    "input_member_without_semantic": ("struct I { float4 p : SV_Position; float4 $q; };\n"
                                      "float4 main(I i) : SV_Target { return i.p + i.q; }\n", "ps_6_0",
                                      "parameter 'i' of entry point 'main' is missing a semantic"),
    "nested_input_member_without_semantic": ("struct A { float4 x : X; float4 $y; };\n"
                                             "struct I { float4 p : SV_Position; A a; };\n"
                                             "float4 main(I i) : SV_Target { return i.p + i.a.y; }\n", "ps_6_0",
                                             "parameter 'i' of entry point 'main' is missing a semantic"),
    "output_member_without_semantic": ("struct O { float4 p : SV_Position; float4 $q; };\n"
                                       "O main() { O o = (O)0; return o; }\n", "vs_6_0",
                                       "entry point output is missing a semantic"),
    "return_without_semantic": ("float4 $main() { return 1; }\n", "ps_6_0",
                                "return value of 'main' is missing a semantic"),
    "vk_location_on_some_outputs": ("struct O { [[vk::location(0)]] float4 a : A; float4 $b : B; "
                                    "float4 p : SV_Position; };\nO main() { O o = (O)0; return o; }\n", "vs_6_0",
                                    "semantic 'B' needs [[vk::location]] too: explicit locations must be given for all "
                                    "or none of the outputs"),
    "control_point_member_without_semantic": (
        "struct CP { float4 p : SV_Position; float4 $q; };\n" + HS_HEAD.split("\n", 1)[1] + '[patchconstantfunc("pc")]\n'
        + HS_MAIN, "hs_6_0", "a control point's members need semantics"),
    # the preprocessor and the parser
    "pp_defined_with_a_number": ("#if defined $1\n#endif\n" + PS, "ps_6_0",
                                 "macro name must be an identifier after 'defined'"),
    "pp_integer_too_large": ("#if $123456789012345678901234567890\n#endif\n" + PS, "ps_6_0",
                             "integer literal is too large to be represented in any integer type"),
    "pp_line_with_a_name": ("#line 4 $foo\n" + PS, "ps_6_0", "invalid filename for #line directive"),
    "template_variable": ("template<typename T> T $g;\n" + PS, "ps_6_0", "only functions and structs can be templates"),
    "operator_without_an_operator": ("struct S { float operator$; };\n" + PS, "ps_6_0",
                                     "expected an operator after 'operator'"),
    "octal_literal_with_a_9": (PB + "    return $09;\n}\n", "ps_6_0", "invalid integer literal '09'"),
    # template arguments of built-in types: the argument
    "texture_of_a_number": ("Texture2D<$1> t;\n" + PS, "ps_6_0", "'Texture2D' requires a type as template argument"),
    "point_stream_of_a_number": ("struct V { float4 p : SV_Position; };\n"
                                 "[maxvertexcount(1)] void main(point V i[1], inout PointStream<$1> s) { }\n", "gs_6_0",
                                 "'PointStream' requires a type as template argument"),
    "point_stream_of_a_texture": ("struct V { float4 p : SV_Position; };\n"
                                  "[maxvertexcount(1)] void main(point V i[1], inout PointStream<$Texture2D> s) { }\n",
                                  "gs_6_0", "'Texture2D<float4>' is not a valid vertex type for 'PointStream': a stream "
                                  "carries a struct or a numeric type"),
    "input_patch_without_a_count": ("struct CP { float4 p : P; };\nfloat4 main($InputPatch<CP> ip) : SV_Target "
                                    "{ return 1; }\n", "ps_6_0",
                                    "'InputPatch' takes two template arguments: a control-point type and a count"),
    "rayquery_three_arguments": ("float4 main() : SV_Target { $RayQuery<0, 0, 0> q; return 1; }\n", "ps_6_5",
                                 "'RayQuery' takes one or two constant template arguments: ray flags and "
                                 "RAYQUERY_FLAG_* flags"),
    "vector_of_a_struct": ("struct S { float a; };\nvector<$S, 2> v;\n" + PS, "ps_6_0", "expected a scalar type, not 'S'"),
    "struct_template_two_arguments": ("template<typename T> struct W { T a; };\n$W<float, int> w;\n" + PS, "ps_6_0",
                                      "'W' takes 1 template argument"),
    "heap_before_6_6": (PB + "    Texture2D t = $ResourceDescriptorHeap[0]; return t.Load(0);\n}\n", "ps_6_5",
                        "'ResourceDescriptorHeap' requires shader model 6.6 or higher (the profile is ps_6_5)"),
    # structs with resource members: the member whose type is refused
    "struct_resource_2d_array_member": ("struct S { Texture2D $a[2][2]; };\nS s;\n" + PB +
                                        "    return s.a[0][0].Load(0);\n}\n", "ps_6_0",
                                        "member 's.a' of 's': only one-dimensional sized arrays of resources are "
                                        "supported in a struct"),
    "assign_a_resource_struct_global": ("struct S { Texture2D a; };\nS s;\n" + PB + "    S t = s; $s = t; return 1;\n}\n",
                                        "ps_6_0", "cannot assign to a global struct with resource members"),
    # passes: evaluate_attribute, mesh_io, resource_locals
    "evaluate_a_local": ("float4 main(float4 c : COLOR) : SV_Target { float4 x = c * 2; "
                         "return EvaluateAttributeAtSample($x, 0); }\n", "ps_6_0",
                         "'EvaluateAttributeAtSample' needs a pixel shader input (an entry parameter or a member of "
                         "one)"),
    "evaluate_sv_position": ("float4 main(float4 p : SV_Position) : SV_Target { "
                             "return EvaluateAttributeAtSample($p, 0); }\n", "ps_6_0",
                             "'EvaluateAttributeAtSample' cannot evaluate system value 'SV_Position'"),
    "mesh_output_read": ('struct V { float4 p : SV_Position; };\n[outputtopology("triangle")] [numthreads(1, 1, 1)]\n'
                         "void main(out vertices V v[3], out indices uint3 t[1]) { SetMeshOutputCounts(3, 1); "
                         "v[0].p = 1; float4 x = $v[0].p; v[1].p = x; }\n", "ms_6_5",
                         "mesh shader output 'v' can only be written, one element at a time ('v[i]...'): it cannot "
                         "be read or passed on"),
    "mesh_output_counts_twice": ('struct V { float4 p : SV_Position; };\n[outputtopology("triangle")] '
                                 "[numthreads(1, 1, 1)]\nvoid main(out vertices V v[3], out indices uint3 t[1]) "
                                 "{ SetMeshOutputCounts(3, 1); $SetMeshOutputCounts(3, 1); }\n", "ms_6_5",
                                 "SetMeshOutputCounts is called once per mesh shader: a second call"),
    "mesh_output_member_without_semantic": ('struct V { float4 p : SV_Position; float4 $q; };\n'
                                            '[outputtopology("triangle")] [numthreads(1, 1, 1)]\n'
                                            "void main(out vertices V v[3], out indices uint3 t[1]) "
                                            "{ SetMeshOutputCounts(3, 1); }\n", "ms_6_5",
                                            "a mesh shader output is missing a semantic"),
    "local_resource_array_past_its_end": ("Texture2D g[2];\n" + PB + "    Texture2D l[2] = g; return l[$2].Load(0);\n}\n",
                                          "ps_6_0", "index 2 is out of bounds for type 'Texture2D<float4>[2]'"),
    "local_resource_used_unassigned": ("Texture2D g;\n" + PB + "    Texture2D l[2]; l[0] = g; return $l[1].Load(0);\n}\n",
                                       "ps_6_0", "local resource 'l[1]' is used before it is assigned"),
    "unbounded_array_without_register": ("Texture2D t0 : register(t0);\nTexture2D $ts[];\n" + PB +
                                         "    return ts[1].Load(0) + t0.Load(0);\n}\n", "ps_6_0",
                                         "unbounded resource array 'ts' needs an explicit register"),
    "no_register_left_after_unbounded": ("Texture2D ts[] : register(t0);\nTexture2D $u;\n" + PB +
                                         "    return ts[1].Load(0) + u.Load(0);\n}\n", "ps_6_0",
                                         "no free t register for 'u' (an unbounded array takes every register from t0)"),
    # backends' located refusals
    "texture_offset_from_an_input": ("Texture2D t; SamplerState s;\nfloat4 main(int2 o : O) : SV_Target {\n"
                                     "    return t.Sample(s, 0.5, $o);\n}\n", "ps_6_0",
                                     "texture offsets must be compile-time constants"),
    "per_primitive_input_below_spirv_1_4": ("struct Q { [[vk::perprimitive]] float4 $c : C; };\n"
                                            "float4 main(Q q) : SV_Target { return q.c; }\n", "ps_6_0",
                                            "a per-primitive input needs SPIR-V 1.4 (SPV_EXT_mesh_shader): compile "
                                            "with -fspv-target-env=vulkan1.2 or later"),
    # an entry struct's member: the member, not the entry (crash10's open location)
    "member_semantic_wrong_stage": ("struct VSOut {\n    float4 pos : SV_Position;\n    float4 $c : SV_Target;\n};\n"
                                    "VSOut main(float4 p : POSITION) { VSOut o; o.pos = p; o.c = p; return o; }\n",
                                    "vs_6_0", "invalid semantic 'SV_Target' for vertex shader output"),
    "member_clip_distance_matrix": ("struct VSOut {\n    float4 pos : SV_Position;\n    float3x3 $m : SV_ClipDistance;\n"
                                    "};\nVSOut main(float4 p : POSITION) { VSOut o = (VSOut)0; o.pos = p; return o; }\n",
                                    "vs_6_0", "semantic 'SV_ClipDistance' requires a float, float2, float3, float4 or "
                                    "float[n], not 'float3x3'"),
    "input_member_unknown_sv": ("struct I { float4 p : SV_Position; float4 $q : SV_Bogus; };\n"
                                "float4 main(I i) : SV_Target { return i.p + i.q; }\n", "ps_6_0",
                                "unknown system value semantic 'SV_Bogus'"),
    "stream_vertex_member_bad_sv": ("struct I { float4 p : SV_Position; };\n"
                                    "struct O { float4 p : SV_Position; uint $d : SV_DispatchThreadID; };\n"
                                    "[maxvertexcount(1)] void main(point I i[1], inout PointStream<O> s) "
                                    "{ O o = (O)0; s.Append(o); }\n", "gs_6_0",
                                    "invalid semantic 'SV_DispatchThreadID' for geometry shader output"),
    "geometry_input_member_without_semantic": ("struct V { float4 p : SV_Position; float4 $q; };\n"
                                               "[maxvertexcount(1)] void main(point V i[1], inout PointStream<V> s) "
                                               "{ s.Append(i[0]); }\n", "gs_6_0",
                                               "parameter 'i' of entry point 'main' is missing a semantic"),
    "nested_member_used_twice": ("struct A { float4 $t : SV_Target0; };\nstruct O { float4 u : SV_Target0; A a; };\n"
                                 "O main() { O o = (O)0; return o; }\n", "ps_6_0",
                                 "semantic 'SV_Target0' is used more than once for outputs"),
}

# root signatures (DXIL only: SPIR-V ignores the attribute): the element inside the string
ROOT_SIGNATURES: dict[str, tuple[str, str, str]] = {
    "static_sampler_anisotropy_17": ('[RootSignature("$StaticSampler(s0, maxAnisotropy = 17)")]\n' + PS, "ps_6_0",
                                     "root signature: StaticSampler maxAnisotropy 17 is above 16"),
    "volatile_and_static_range": ('[RootSignature("DescriptorTable($SRV(t0, flags = DESCRIPTORS_VOLATILE | '
                                  'DATA_STATIC))")]\n' + PS, "ps_6_0",
                                  "root signature: SRV range cannot combine DESCRIPTORS_VOLATILE with DATA_STATIC"),
    "range_past_the_last_register": ('[RootSignature("DescriptorTable($SRV(t4294967295, numDescriptors = 2))")]\n'
                                     + PS, "ps_6_0", "root signature: SRV range t4294967295 with 2 descriptors goes "
                                     "past the last register"),
    "heap_without_its_root_flag": ('[RootSignature("$RootFlags(0)")]\nfloat4 main() : SV_Target { '
                                   "Texture2D t = ResourceDescriptorHeap[0]; return t.Load(0); }\n", "ps_6_6",
                                   "root signature: the pixel shader indexes 'ResourceDescriptorHeap' but RootFlags "
                                   "lacks CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED"),
}

# DXIL libraries (ray tracing, subobjects): name -> (source with one `$`, message); lib_6_3, no entry
LIBRARY: dict[str, tuple[str, str]] = {
    "subobject_as_a_local": ('[shader("miss")] void ms(inout float4 p) { $RaytracingShaderConfig c = { 16, 8 }; }\n',
                             "'RaytracingShaderConfig' is a state-object subobject: it can only be the type of a global "
                             "variable with an initializer list"),
    "subobject_negative_uint": ('RaytracingShaderConfig c = { $-1, 8 };\n[shader("miss")] void ms(inout float4 p) {}\n',
                                "field 'MaxPayloadSizeInBytes' of 'RaytracingShaderConfig' is a uint: -1 is out of range"),
    "miss_shader_returns": ('struct P { float4 c; };\n[shader("miss")] float $ms(inout P p) { return 1; }\n',
                            "miss shader 'ms' must return void"),
    "trace_ray_literal_payload": ("struct P { float4 c; };\nRaytracingAccelerationStructure s;\n"
                                  '[shader("raygeneration")] void rg() { RayDesc r = (RayDesc)0; '
                                  "TraceRay(s, 0, 0xff, 0, 1, 0, r, $1.0); }\n",
                                  "the payload argument of 'TraceRay' must be a variable (it is inout)"),
    "trace_ray_on_an_int": ('struct P { float4 c; };\n[shader("raygeneration")] void rg() { RayDesc r = (RayDesc)0; '
                            "P p = (P)0; TraceRay($1, 0, 0xff, 0, 1, 0, r, p); }\n",
                            "the first argument of 'TraceRay' must be a RaytracingAccelerationStructure, not 'int'"),
    "trace_ray_seven_arguments": ("struct P { float4 c; };\nRaytracingAccelerationStructure s;\n"
                                  '[shader("raygeneration")] void rg() { RayDesc r = (RayDesc)0; P p = (P)0; '
                                  "$TraceRay(s, 0, 0xff, 0, 1, r, p); }\n",
                                  "no matching intrinsic for call to 'TraceRay': expected 8 arguments, have 7"),
    "payload_holding_a_texture": ("struct P { float4 c; Texture2D t; };\nRaytracingAccelerationStructure s;\n"
                                  '[shader("raygeneration")] void rg() { RayDesc r = (RayDesc)0; P p; '
                                  "TraceRay(s, 0, 0xff, 0, 1, 0, r, $p); }\n",
                                  "the payload argument of 'TraceRay' contains the resource 'Texture2D<float4>': it is "
                                  "data passed between shaders"),
    "hit_attributes_of_48_bytes": ('struct P { float4 c; };\nstruct A { float4 a[3]; };\n'
                                   '[shader("closesthit")] void ch(inout P p, in A $a) { }\n',
                                   "hit attributes 'A' are 48 bytes; D3D12 allows at most 32"),
}

# Vulkan-only rules: DXIL ignores [[vk::*]] attributes, and the program compiles there (checked below)
SPIRV_ONLY = {"push_constant_twice", "per_primitive_input_below_spirv_1_4"}


def _marked(src: str) -> tuple[str, int, int]:
    """The source without its `$`, and the marker's 1-based line and column."""
    i = src.index("$")
    before = src[:i]
    return src[:i] + src[i + 1:], before.count("\n") + 1, i - before.rfind("\n")


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_one_located_error(name: str, target: str) -> None:
    src, profile, message = CASES[name]
    text, line, col = _marked(src)
    res = compile_file("t.hlsl", CompileOptions(entry="main", profile=profile, target=target), text=text)
    if target == "dxil" and name in SPIRV_ONLY:
        assert res.ok, res.diagnostics
        return
    assert res.ok is False and res.binary is None
    assert [f"{d.loc}: {d.message}" for d in res.diagnostics if d.severity == "error"] == [
        f"t.hlsl:{line}:{col}: {message}"]


@pytest.mark.parametrize("name", ["member_semantic_wrong_stage", "too_many_array_dimensions",
                                  "static_local_from_a_parameter", "typedef_of_a_template_name"])
def test_command_line_exit_1_caret_and_no_output(tmp_path, capsys, name: str) -> None:
    src, profile, message = CASES[name]
    text, line, col = _marked(src)
    path, out = tmp_path / "t.hlsl", tmp_path / "t.spv"
    path.write_text(text)
    assert main(["compile", str(path), "-T", profile, "-E", "main", "-o", str(out)]) == 1
    assert not out.exists()
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"{path}:{line}:{col}: error: {message}"
    assert err[1] == text.splitlines()[line - 1]
    assert err[2] == " " * (col - 1) + "^"
    assert "Traceback" not in "\n".join(err)


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("name", sorted(LIBRARY))
def test_one_located_library_error(name: str, target: str) -> None:
    src, message = LIBRARY[name]
    text, line, col = _marked(src)
    res = compile_file("t.hlsl", CompileOptions(entry="", profile="lib_6_3", target=target), text=text)
    assert res.ok is False and res.binary is None
    assert [f"{d.loc}: {d.message}" for d in res.diagnostics if d.severity == "error"] == [
        f"t.hlsl:{line}:{col}: {message}"]


@pytest.mark.parametrize("name", sorted(ROOT_SIGNATURES))
def test_one_located_root_signature_error(name: str) -> None:
    src, profile, message = ROOT_SIGNATURES[name]
    text, line, col = _marked(src)
    res = compile_file("t.hlsl", CompileOptions(entry="main", profile=profile, target="dxil"), text=text)
    assert res.ok is False and res.binary is None
    assert [f"{d.loc}: {d.message}" for d in res.diagnostics if d.severity == "error"] == [
        f"t.hlsl:{line}:{col}: {message}"]
