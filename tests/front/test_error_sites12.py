"""Diagnostic sites the rest of the suite did not reach (tests/error_sites.py; the ones no user program can
reach are classified in tests/error_sites_classes.tsv or deleted): each program here reaches one, and gets
exactly one error at the offending token, on both targets (issue 20's bar).

A `$` marks where the error must point; line:col come from the marker's place in the text, never from the
compiler.  Programs are our own."""

from __future__ import annotations

import pytest

from shaderbuild.compiler import compile_file
from shaderbuild.options import BindingShift, BindRegister, CompileOptions

PS = "float4 main() : SV_Target { return 1; }\n"
PB = "float4 main() : SV_Target {\n"       # a body from line 2
OUT = "void f(out float v) { v = 1; }\n"

# name -> (source with one `$`, profile, message)
CASES: dict[str, tuple[str, str, str]] = {
    # out arguments (front/sema/calls.py check_writable)
    "out_arg_duplicate_swizzle": ("void f(out float2 v) { v = 1; }\n" + PB + " float4 x = 0; f(x.$xx); return x; }\n",
                                  "ps_6_0", "vector swizzle 'xx' has duplicate components and cannot be assigned"),
    "out_arg_duplicate_matrix_swizzle": ("void f(out float2 v) { v = 1; }\n" + PB
                                         + " float2x2 m = 0; f(m.$_m00_m00); return m[0].xyxy; }\n", "ps_6_0",
                                         "a matrix swizzle with duplicate components cannot be assigned"),
    "out_arg_const_local": (OUT + PB + " const float c = 1; f($c); return c; }\n", "ps_6_0",
                            "cannot assign to const-qualified variable 'c'"),
    # a global is a member of $Globals: it used to be "cannot assign to const-qualified variable '$Globals'"
    "out_arg_global": ("float g;\n" + OUT + PB + " f($g); return g; }\n", "ps_6_0",
                       "cannot assign to constant buffer member 'g'"),
    "out_arg_cbuffer_member": ("cbuffer CB { float4 g; };\n" + OUT + PB + " f(g.$x); return g; }\n", "ps_6_0",
                               "cannot assign to constant buffer member 'g'"),
    "out_arg_read_only_buffer": ("StructuredBuffer<float> b;\n" + OUT + PB + " f(b$[0]); return 1; }\n", "ps_6_0",
                                 "cannot assign to an element of read-only resource type 'StructuredBuffer<float>'"),
    # calls and intrinsics (front/sema/calls.py)
    "call_of_an_array_element": ("float a[2];\n" + PB + " return a$[0](2); }\n", "ps_6_0",
                                 "called object is not a function"),
    "construct_a_texture": ("Texture2D t;\n" + PB + " return $Texture2D(1).Load(0); }\n", "ps_6_0",
                            "cannot construct a value of type 'Texture2D<float4>'"),
    "no_static_member_function": ("template<typename T> struct S { T x; };\n" + PB + " return $S<float>::f(1); }\n",
                                  "ps_6_0", "no static member function 'S<float>::f'"),
    "transpose_of_a_vector": (PB + " return $transpose(float4(1, 2, 3, 4)); }\n", "ps_6_0",
                              "transpose requires a matrix argument"),
    "determinant_of_a_vector": (PB + " return $determinant(float4(1, 2, 3, 4)); }\n", "ps_6_0",
                                "determinant requires a square matrix argument"),
    "fma_of_floats": (PB + " return $fma(1.0f, 2.0f, 3.0f); }\n", "ps_6_0", "fma requires double arguments"),
    "printf_of_a_float": (PB + " float s = 1; printf($s); return 1; }\n", "ps_6_0",
                          "the first argument of 'printf' must be a string literal or a global string"),
    "printf_of_a_struct": ("struct S { float a; };\n" + PB + ' S s = (S)0; printf("%f", $s); return 1; }\n', "ps_6_0",
                           "a 'printf' argument must be a scalar or vector, not 'S'"),
    # expressions (front/sema/exprs.py)
    "resource_in_a_numeric_list": ("struct S { Texture2D t; };\n" + PB + " S s; float4 v = ${s}; return v; }\n",
                                   "ps_6_0", "cannot use a value of type 'Texture2D<float4>' here"),
    "struct_array_size_from_a_short_list": ("struct S { float a; float b; };\n" + PB
                                            + " S $a[] = {1, 2, 3}; return 1; }\n", "ps_6_0",
                                            "cannot infer the size of 'S[]' from the initializer"),
    "braces_in_a_resource_array_list": ("Texture2D t;\n" + PB + " Texture2D a[2] = {t, ${t}}; return 1; }\n",
                                        "ps_6_0", "too many braces in resource array initializer"),
    "three_textures_for_two": ("Texture2D t;\n" + PB + " Texture2D a[2] = ${t, t, t}; return 1; }\n", "ps_6_0",
                               "too many elements in initializer for type 'Texture2D<float4>[2]' (expected 2, have 3)"),
    "ray_query_copied": ("RaytracingAccelerationStructure acc;\n"
                         "[numthreads(1, 1, 1)] void main() { RayQuery<0> q; RayQuery<0> r = $q; }\n", "cs_6_5",
                         "a 'RayQuery<0>' is not a value: it cannot be copied, passed or returned; call its methods"),
    "logical_and_of_a_struct": ("struct S { float a; };\n" + PB + " S s = (S)0; return $s && true; }\n", "ps_6_0",
                                "invalid operand of type 'S' to '&&'"),
    "compound_assignment_of_a_matrix_to_a_vector": (PB + " float3 v = 0; v $+= float2x2(1, 2, 3, 4); return v.xyzz; }\n",
                                                    "ps_6_0", "cannot convert from 'float2x2' to 'float3'"),
    "assign_to_a_member_of_a_call": ("struct S { float a; };\nS mk() { S s = (S)0; return s; }\n" + PB
                                     + " mk().$a = 1; return 1; }\n", "ps_6_0", "expression is not assignable"),
    "assign_to_an_element_of_a_call": ("float2 mk() { return 1; }\n" + PB + " mk()$[0] = 1; return 1; }\n", "ps_6_0",
                                       "expression is not assignable"),
    "assign_through_a_value_operator_index": ("struct S { float a; float operator[](uint i) { return a; } };\n" + PB
                                              + " S s = (S)0; s$[0] = 1; return 1; }\n", "ps_6_0",
                                              "expression is not assignable: 'S' has an 'operator[]' that returns a "
                                              "value"),
    "index_one_of_a_float1": (PB + " float1 v = 1; return v[$1]; }\n", "ps_6_0",
                              "index 1 is out of bounds for a one-component vector"),
    "bool_subscript": (PB + " float a[2] = {1, 2}; return a[$true]; }\n", "ps_6_0",
                       "array subscript is not an integer (type 'bool')"),
    "subscript_of_a_sampler": ("SamplerState s;\n" + PB + " return s$[0]; }\n", "ps_6_0",
                               "type 'SamplerState' does not support the subscript operator"),
    "write_a_texel_of_a_texture": ("Texture2D t;\n" + PB + " t$[uint2(0, 0)] = 1; return 1; }\n", "ps_6_0",
                                   "cannot assign to an element of read-only resource type 'Texture2D<float4>'"),
    "write_a_duplicate_swizzle": (PB + " float4 v = 0; v.$xx = 1; return v; }\n", "ps_6_0",
                                  "vector swizzle 'xx' has duplicate components and cannot be assigned"),
    "write_the_mips_of_a_texture": ("Texture2D t;\n" + PB + " t.$mips = 1; return 1; }\n", "ps_6_0",
                                    "'Texture2D<float4>.mips' is read-only and is used as 'mips[index][coordinate]'"),
    # statements
    "discard_in_a_vertex_shader": ("float4 main() : SV_Position {\n $discard; return 1; }\n", "vs_6_0",
                                   "'discard' is only allowed in pixel shaders"),
    # SPIR-V backend rules (DXIL compiles these)
    "interlocked_add_on_a_64_bit_texel": ("RWTexture2D<uint64_t> t;\n[numthreads(1, 1, 1)] void main() {\n"
                                          " $InterlockedAdd(t[uint2(0, 0)], 1); }\n", "cs_6_6",
                                          "'InterlockedAdd' on a 64-bit element of RWTexture2D is not supported"),
    "interlocked_add64_method": ("RWByteAddressBuffer b;\n[numthreads(1, 1, 1)] void main() {\n"
                                 " uint64_t o; b.$InterlockedAdd64(0, 1, o); }\n", "cs_6_6",
                                 "'InterlockedAdd64' is not supported by the SPIR-V backend: a RWByteAddressBuffer is "
                                 "an array of 32-bit words there, with no 64-bit view to point an atomic at (DXC's "
                                 "SPIR-V refuses it too)"),
    "compare_exchange_float_bitwise_on_a_float": (
        "RWStructuredBuffer<float> b;\n[numthreads(1, 1, 1)] void main() {\n"
        " float o; $InterlockedCompareExchangeFloatBitwise(b[0], 1.0, 2.0, o); }\n", "cs_6_0",
        "'InterlockedCompareExchangeFloatBitwise' on a float variable is not supported by the SPIR-V backend: "
        "OpAtomicCompareExchange needs an integer pointer and a float buffer element or groupshared float has no "
        "integer view (DXC's SPIR-V refuses it too); a RWByteAddressBuffer method works"),
    "status_of_a_byte_address_load": ("ByteAddressBuffer b;\n" + PB + " uint st; return b.$Load(0, st); }\n", "ps_6_0",
                                      "SPIR-V has no residency status for a storage buffer ('ByteAddressBuffer'): a "
                                      "status argument needs a texture or a typed buffer"),
    # declarations (front/sema/lower.py)
    'vk_builtin_of_a_number': ('[[$vk::builtin(1)]] float4 main(float4 p : P) : SV_Target { return p; }\n', 'ps_6_0',
        '[[vk::builtin]] takes a built-in name string, e.g. [[vk::builtin("PointSize")]]'),
    'vk_builtin_unknown_name': ('float4 main([[$vk::builtin("Bogus")]] float p : P) : SV_Target { return p; }\n', 'ps_6_0',
        "unknown [[vk::builtin]] 'Bogus' (one of PointSize, HelperInvocation, BaseVertex, BaseInstance, DrawIndex, DeviceIndex, ViewportMaskNV)"),
    'specialization_of_a_plain_struct': ('struct S { float a; };\ntemplate<> struct $S<int> { int a; };\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "'S' is not a struct template"),
    'method_not_struct': ('float S$::f() { return 1; }\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "expected ';' after declaration, found '::'"),
    'unbounded_constant_buffer_array': ('struct S { float4 a; };\nConstantBuffer<S> $cbs[];\nfloat4 main() : SV_Target {\n return cbs[0].a; }\n', 'ps_6_0',
        'unbounded arrays of ConstantBuffer are not supported yet'),
    'push_constant_block_array': ('struct S { float4 a; };\n[[vk::push_constant]] ConstantBuffer<S> $cbs[2];\nfloat4 main() : SV_Target {\n return cbs[0].a; }\n', 'ps_6_0',
        'a push-constant block cannot be an array'),
    'groupshared_with_initializer': ('groupshared float g = $1;\n[numthreads(1,1,1)] void main() {\n g = 2; }\n', 'cs_6_0',
        'groupshared variables cannot have an initializer'),
    'static_void_global': ('static void $v;\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "variable 'v' has incomplete type 'void'"),
    'static_local_struct_with_a_texture': ('struct S { Texture2D t; };\nTexture2D g;\nfloat4 main() : SV_Target {\n static S $s = {g}; return 1; }\n', 'ps_6_0',
        "'s': a static local struct with resource members is not supported; declare it 'static' at global scope"),
    'static_string_from_an_int': ('static string s = $1;\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        'a string can only be initialized with a string literal or another string'),
    'string_from_an_int': ('string s = $1;\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        'a string can only be initialized with a string literal or another string'),
    'spec_local': ('float4 main() : SV_Target {\n [[$vk::constant_id(1)]] const int c = 1; return c; }\n', 'ps_6_0',
        '[[vk::constant_id]] is only allowed on a global variable'),
    'specialization_constant_from_a_static': ('static int k = 2;\n[[vk::constant_id(1)]] const int c = $k;\nfloat4 main() : SV_Target {\n return c; }\n', 'ps_6_0',
        "the initializer of specialization constant 'c' must be a constant expression (a literal)"),
    'specialization_constant_as_array_size': ('[[vk::constant_id(1)]] const int c = 1;\nfloat4 main() : SV_Target {\n float a[$c]; return 1; }\n', 'ps_6_0',
        "expression is not an integer constant expression: specialization constant 'c' is only known when the pipeline is created"),
    'extbuiltin_args': ('[[$vk::ext_builtin_input()]] static const float x;\nfloat4 main() : SV_Target {\n return x; }\n', 'ps_6_0',
        "attribute 'vk::ext_builtin_input' takes one argument, not 0"),
    'ext_builtin_input_not_static': ('[[vk::ext_builtin_input(15)]] const float $x;\nfloat4 main() : SV_Target {\n return x; }\n', 'ps_6_0',
        "a variable with 'vk::ext_builtin_input' must be 'static const'"),
    'ext_builtin_input_with_initializer': ('[[vk::ext_builtin_input(15)]] static const float x = $1;\nfloat4 main() : SV_Target {\n return x; }\n', 'ps_6_0',
        'a built-in input variable cannot have an initializer'),
    'ext_builtin_unknown_number': ('[[vk::ext_builtin_input($9999)]] static const float x;\nfloat4 main() : SV_Target {\n return x; }\n', 'ps_6_0',
        'unknown or unsupported SPIR-V BuiltIn 9999'),
    'ext_builtin_output_of_an_input': ('[[$vk::ext_builtin_output(15)]] static float x;\nfloat4 main() : SV_Target {\n x = 1; return 1; }\n', 'ps_6_0',
        'SPIR-V BuiltIn 15 (FragCoord) is not an output'),
    'uniform_unsized': ('float $g[];\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "definition of variable 'g' with unsized array type 'float[]' is not allowed"),
    'resource_array_unbounded_second_dimension': ('Texture2D $t[2][];\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        'only the first dimension of a resource array may be unbounded'),
    'stream_as_a_global': ('struct V { float4 p : SV_Position; };\nPointStream<V> $s;\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "'PointStream<V>' is a geometry-shader output stream: it can only be an 'inout' parameter of the geometry entry point"),
    'register_class_warn': ('Texture2D t : $register(u0);\nfloat4 main() : SV_Target {\n return t.Load(0); }\n', 'ps_6_0',
        "invalid register class 'u' for shader resource view 't' of type 'Texture2D<float4>' (expected 't')"),
    'image_format_on_a_structured_buffer': ('[[$vk::image_format("rgba8")]] StructuredBuffer<float4> b;\nfloat4 main() : SV_Target {\n return b[0]; }\n', 'ps_6_0',
        "'vk::image_format' takes a format string and applies to textures and typed buffers"),
    'out_constant_buffer_parameter': ('struct S { float4 a; };\nvoid f(out ConstantBuffer<S> $c) { }\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "a 'ConstantBuffer' parameter cannot be 'out': the buffer is read-only"),
    'specialization_without_a_template': ('template<> float $f<int>(int x) { return x; }\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "no function template 'f' to specialize"),
    'specialization_matching_no_template': ('template<typename T> float f(T x, T y) { return x; }\ntemplate<> float $f<int>(int x) { return x; }\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "no function template matches function template specialization 'f'"),
    'numthreads_zero': ('[numthreads($0,1,1)] void main() { }\n', 'cs_6_0',
        'numthreads values must be at least 1'),
    'gs_without_maxvertexcount': ('struct V { float4 p : SV_Position; };\nvoid $main(point V i[1], inout PointStream<V> s) { s.Append(i[0]); }\n', 'gs_6_0',
        "geometry entry point 'main' requires the [maxvertexcount(N)] attribute"),
    'gs_instance_40': ('struct V { float4 p : SV_Position; };\n[instance($40)] [maxvertexcount(1)] void main(point V i[1], inout PointStream<V> s) { s.Append(i[0]); }\n', 'gs_6_0',
        'instance count must be between 1 and 32, not 40'),
    'gs_returning_a_value': ('struct V { float4 p : SV_Position; };\n[maxvertexcount(1)] float $main(point V i[1], inout PointStream<V> s) { s.Append(i[0]); return 1; }\n', 'gs_6_0',
        "geometry entry point 'main' must return void: vertices are written with Append on a stream parameter"),
    'gs_triangle_of_two_vertices': ('struct V { float4 p : SV_Position; };\n[maxvertexcount(1)] void main(triangle V $i[2], inout PointStream<V> s) { s.Append(i[0]); }\n', 'gs_6_0',
        "input primitive 'triangle' has 3 vertices: declare 'i[3]', not 'i[2]'"),
    'gs_input_without_primitive_type': ('struct V { float4 p : SV_Position; };\n[maxvertexcount(1)] void main(V $i[1], inout PointStream<V> s) { s.Append(i[0]); }\n', 'gs_6_0',
        "geometry shader input 'i' needs an input primitive type (point, line, triangle, lineadj or triangleadj)"),
    'gs_without_a_stream': ('struct V { float4 p : SV_Position; };\n[maxvertexcount(1)] void $main(point V i[1]) { }\n', 'gs_6_0',
        "geometry entry point 'main' needs an 'inout' stream parameter (PointStream, LineStream or TriangleStream)"),
    'gs_five_streams': ('struct V { float4 p : SV_Position; };\n[maxvertexcount(1)] void main(point V i[1], inout PointStream<V> a, inout PointStream<V> b, inout PointStream<V> c, inout PointStream<V> d, inout PointStream<V> $e) { a.Append(i[0]); }\n', 'gs_6_0',
        'a geometry shader has at most 4 output streams'),
    'gs_two_streams_one_of_triangles': ('struct V { float4 p : SV_Position; };\n[maxvertexcount(1)] void main(point V i[1], inout PointStream<V> a, inout TriangleStream<V> $b) { a.Append(i[0]); }\n', 'gs_6_0',
        'a geometry shader with several output streams must write points: every stream must be a PointStream'),
    # resource methods and structs with resource members (front/sema/resources.py, struct_resources.py)
    'status_rvalue': ('Texture2D t;\nfloat4 main() : SV_Target {\n return t.Load(int3(0,0,0), int2(0,0), $1u); }\n', 'ps_6_0',
        'the status argument must be an lvalue of type uint'),
    'status_float': ('Texture2D t;\nfloat4 main() : SV_Target {\n float s; return t.Load(int3(0,0,0), int2(0,0), $s); }\n', 'ps_6_0',
        "the status argument must be a uint, not 'float'"),
    'stream_method': ('struct V { float4 p : SV_Position; };\n[maxvertexcount(1)] void main(point V i[1], inout PointStream<V> s) { s.$Flush(); }\n', 'gs_6_0',
        "no member function named 'Flush' in 'PointStream<V>' (streams have Append and RestartStrip)"),
    'buffer_method': ('Buffer<float> b;\nfloat4 main() : SV_Target {\n return b.$Foo(); }\n', 'ps_6_0',
        "no member function named 'Foo' in 'Buffer<float>'"),
    'bab_store_template': ('RWByteAddressBuffer b;\n[numthreads(1,1,1)] void main() {\n b.$Store2<uint2>(0, 1); }\n', 'cs_6_2',
        "'Store2' does not take a template argument; use Store<T>"),
    'bab_getdim_rvalue': ('ByteAddressBuffer b;\nfloat4 main() : SV_Target {\n b.GetDimensions($1); return 1; }\n', 'ps_6_0',
        'GetDimensions(out uint size) requires an lvalue argument'),
    'bab_method': ('ByteAddressBuffer b;\nfloat4 main() : SV_Target {\n return b.$Foo(); }\n', 'ps_6_0',
        "no member function named 'Foo' in 'ByteAddressBuffer'"),
    'bab_load_res': ('struct S { Texture2D t; };\nByteAddressBuffer b;\nfloat4 main() : SV_Target {\n S s = b.$Load<S>(0); return 1; }\n', 'ps_6_2',
        'Explicit template arguments on intrinsic Load must be a single numeric type'),
    'tex_method_unknown': ('Texture2D t;\nfloat4 main() : SV_Target {\n return t.$Foo(); }\n', 'ps_6_0',
        "no member function named 'Foo' in 'Texture2D<float4>'"),
    'sampler_wrong': ('Texture2D t; SamplerComparisonState s;\nfloat4 main() : SV_Target {\n return t.Sample($s, 0.5); }\n', 'ps_6_0',
        "'Sample' requires a SamplerState as its first argument, not 'SamplerComparisonState'"),
    'offset_range': ('Texture2D t; SamplerState s;\nfloat4 main() : SV_Target {\n return t.Sample(s, 0.5, $int2(9, 0)); }\n', 'ps_6_0',
        'texture offsets must be in the range [-8, 7]'),
    'gather_offset_range': ('Texture2D t; SamplerState s;\nfloat4 main() : SV_Target {\n return t.$Gather(s, 0.5, int2(40,1), int2(1,1), int2(1,1), int2(1,1)); }\n', 'ps_6_0',
        "no matching member function for call to 'Gather': expected 2 or 3 arguments, have 6"),
    'arity': ('Texture2D t; SamplerState s;\nfloat4 main() : SV_Target {\n return t.$Sample(s); }\n', 'ps_6_0',
        "no matching member function for call to 'Sample': expected 2 or 3 or 4 arguments, have 1"),
    'no_method': ('SamplerState s;\nfloat4 main() : SV_Target {\n return s.$Foo(); }\n', 'ps_6_0',
        "'SamplerState' has no member function 'Foo'"),
    'struct_res_packoffset': ('struct S { Texture2D t; float a; };\nS $s : packoffset(c0);\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "packoffset is not supported on 's', a struct with resource members"),
    'struct_res_noclass': ('struct S { Texture2D t; };\nS s : $register(u0);\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "'s' has no resource member of register class 'u'"),
    'static_struct_res_array': ('struct S { Texture2D t; };\nTexture2D g;\nstatic S $s[2] = {g, g};\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "'s' has type 'S[2]': a static array of structs with resource members is not supported (without 'static' its resources are globals)"),
    'static_struct_res_noinit': ('struct S { Texture2D t; };\nstatic S $s;\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "static 's' has resource members: it needs an initializer list naming a global resource for each of them (they cannot be assigned later)"),
    'static_struct_res_many': ('struct S { Texture2D t; };\nTexture2D g;\nstatic S s = {g, $g};\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "too many resources in the initializer of static 's'"),
    'static_struct_res_nonres': ('struct S { Texture2D t; };\nstatic S s = ${1};\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "the initializer of static 's' names no global resource for member 't' ('Texture2D<float4>')"),
    'static_struct_res_wrongtype': ('struct S { Texture2D t; };\nTexture3D g;\nstatic S s = {$g};\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "member 't' of static 's' must be initialized with a global resource of type 'Texture2D<float4>'"),
    'struct_part_nomember': ('struct S { Texture2D t; };\nS s;\nfloat4 main() : SV_Target {\n return s.$u.Load(0); }\n', 'ps_6_0',
        "no member named 'u' in 'S'"),
    'struct_part_dynidx': ('struct S { Texture2D t; };\nS s[2];\nuint i;\nfloat4 main() : SV_Target {\n return s[$i].t.Load(0); }\n', 'ps_6_0',
        'an array of structs with resource members can only be indexed with a constant (as in DXC)'),
    'struct_part_oob': ('struct S { Texture2D t; };\nS s[2];\nfloat4 main() : SV_Target {\n return s[$2].t.Load(0); }\n', 'ps_6_0',
        "array index 2 is out of bounds for 'S[2]'"),
    'static_struct_assign': ('struct S { Texture2D t; };\nTexture2D g;\nstatic S s = {g};\nfloat4 main() : SV_Target {\n s.$t = g; return 1; }\n', 'ps_6_0',
        'cannot assign to a resource member of a static struct: it names the global resource of the initializer for the whole program'),
    'global_struct_assign': ('struct S { Texture2D t; float a; };\nS s;\nfloat4 main() : SV_Target {\n s.$a = 1; return 1; }\n', 'ps_6_0',
        'cannot assign to a member of a global struct with resource members'),
    'static_struct_data_too_many': ('struct S { Texture2D t; float a; };\nTexture2D g;\nstatic S s = ${g, 1, 2};\nfloat4 main() : SV_Target { return s.a; }\n', 'ps_6_0',
        "too many elements in the initializer of static 's'"),
    'static_struct_data_too_few': ('struct S { Texture2D t; float a; float b; };\nTexture2D g;\nstatic S s = ${g, 1};\nfloat4 main() : SV_Target { return s.a; }\n', 'ps_6_0',
        "too few elements in the initializer of static 's'"),
    'static_struct_only_res_extra': ('struct S { Texture2D t; };\nTexture2D g;\nstatic S s = {g, $1};\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "too many elements in the initializer of static 's'"),
    # types, templates, ray queries, tessellation, mesh, heaps, intrinsics (front/sema/*.py)
    'buffer_two_args': ('Buffer<float, $2> b;\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "too many template arguments for 'Buffer'"),
    'texture2dms_count': ('Texture2DMS<float4, $200> t;\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "sample count 200 of 'Texture2DMS' is out of range [0, 128]"),
    'texture_unknown_elem': ('Texture2D<$Foo> t;\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "unknown type name 'Foo'"),
    'structured_of_texture': ('StructuredBuffer<$Texture2D> b;\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "'Texture2D<float4>' is not a valid element type for 'StructuredBuffer'"),
    'structured_of_struct_texture': ('struct S { Texture2D t; };\nStructuredBuffer<$S> b;\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "'S' is not a valid element type for 'StructuredBuffer': it contains the resource 'Texture2D<float4>'"),
    'rayquery_flags2': ('RaytracingAccelerationStructure acc;\n[numthreads(1,1,1)] void main() {\n RayQuery<0, $1> q; }\n', 'cs_6_5',
        'RayQuery flags 0x1 are not supported (only RAYQUERY_FLAG_NONE)'),
    'rayquery_badflags': ('RaytracingAccelerationStructure acc;\n[numthreads(1,1,1)] void main() {\n RayQuery<$0x10000> q; }\n', 'cs_6_5',
        '0x10000 is not a combination of RAY_FLAG_* values'),
    'rq_method_unknown': ('RaytracingAccelerationStructure acc;\n[numthreads(1,1,1)] void main() {\n RayQuery<0> q; q.$Foo(); }\n', 'cs_6_5',
        "no member function named 'Foo' in 'RayQuery<0>'"),
    'rq_method_arity': ('RaytracingAccelerationStructure acc;\n[numthreads(1,1,1)] void main() {\n RayQuery<0> q; q.$Proceed(1); }\n', 'cs_6_5',
        "no matching member function for call to 'Proceed': expected 0 arguments, have 1"),
    'rq_trace_first': ('RaytracingAccelerationStructure acc;\n[numthreads(1,1,1)] void main() {\n RayQuery<0> q; RayDesc r = (RayDesc)0; q.TraceRayInline($1, 0, 0xff, r); }\n', 'cs_6_5',
        "the first argument of 'TraceRayInline' must be a RaytracingAccelerationStructure"),
    'rq_return_two': ('RaytracingAccelerationStructure acc;\nRayQuery<0> $f(bool b) { RayQuery<0> q; RayQuery<0> p; if (b) return q; return p; }\n[numthreads(1,1,1)] void main() {\n RayQuery<0> q = f(true); }\n', 'cs_6_5',
        "a function returning 'RayQuery<0>' must return the same local RayQuery variable from every 'return' (the caller's query is that variable)"),
    'rq_return_init': ('RaytracingAccelerationStructure acc;\nRayQuery<0> f() { RayQuery<0> q = $g(); return q; }\nRayQuery<0> g() { RayQuery<0> q; return q; }\n[numthreads(1,1,1)] void main() {\n RayQuery<0> q = f(); }\n', 'cs_6_5',
        "the RayQuery 'q' this function returns must be declared without an initializer"),
    'rq_init_wrongflags': ('RaytracingAccelerationStructure acc;\nRayQuery<1> g() { RayQuery<1> q; return q; }\n[numthreads(1,1,1)] void main() {\n RayQuery<0> q = $g(); }\n', 'cs_6_5',
        "cannot initialize a 'RayQuery<0>' with the 'RayQuery<1>' returned by the call"),
    'tmpl_depth': ('template<int N> struct S { $S<N + 1> x; };\nfloat4 main() : SV_Target {\n S<0> s; return 1; }\n', 'ps_6_0',
        "recursive template instantiation of 'S' exceeded the maximum depth of 16"),
    'tmpl_ambig': ('template<typename T, typename U> struct S { float a; };\ntemplate<typename T> struct S<T, int> { float a; };\ntemplate<typename T> struct S<int, T> { float a; };\nfloat4 main() : SV_Target {\n $S<int, int> s; return 1; }\n', 'ps_6_0',
        "ambiguous partial specializations of 'S<int, int>'"),
    'tmpl_type_param_expr': ('template<typename T> struct S { T a; };\nfloat4 main() : SV_Target {\n S<$1> s; return 1; }\n', 'ps_6_0',
        "template argument for template type parameter 'T' must be a type"),
    'tmpl_nontype_param_type': ('template<int N> struct S { float a[N]; };\nfloat4 main() : SV_Target {\n S<$float> s; return 1; }\n', 'ps_6_0',
        "template argument for non-type template parameter 'N' must be an expression"),
    'heap_to_float': ('[numthreads(1,1,1)] void main() {\n float4 x = (float4)$ResourceDescriptorHeap[0]; }\n', 'cs_6_6',
        "an element of 'ResourceDescriptorHeap' converts only to a resource type other than a sampler, not to 'float4'"),
    'heap_sampler_to_tex': ('[numthreads(1,1,1)] void main() {\n Texture2D t = $SamplerDescriptorHeap[0]; }\n', 'cs_6_6',
        "an element of 'SamplerDescriptorHeap' converts only to a sampler type, not to 'Texture2D<float4>'"),
    'mesh_param_wrong': ('struct V { float4 p : SV_Position; };\n[outputtopology("triangle")] [numthreads(1,1,1)]\nvoid main(out vertices V v[3], out indices uint3 t[1], out float $x) { SetMeshOutputCounts(0, 0); }\n', 'ms_6_5',
        "mesh shader parameter 'x' cannot be 'out': outputs are 'out vertices', 'out indices' and 'out primitives' arrays"),
    'indices_in_ps': ('float4 main(out indices uint3 $t[1]) : SV_Target { return 1; }\n', 'ps_6_0',
        "'indices' parameters are only allowed in a mesh shader"),
    'tmpl_nontype_float': ('template<float F> struct S { float a; };\nfloat4 main() : SV_Target {\n S<$1.5> s; return 1; }\n', 'ps_6_0',
        'expression is not an integer constant expression'),
    'stencil_two': ('[[vk::stencil_ref_unchanged_front]] [[$vk::stencil_ref_less_equal_front]]\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "'vk::stencil_ref_unchanged_front' and 'vk::stencil_ref_less_equal_front' cannot both be given: shaders must not specify more than one of vk::stencil_ref_unchanged_front, vk::stencil_ref_greater_equal_front, vk::stencil_ref_less_equal_front"),
    'tess_pc_outputpatch': ('struct CP { float4 p : SV_Position; };\nstruct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; };\nPC pc(OutputPatch<CP, 4> $op) { PC c = (PC)0; return c; }\n[domain("tri")] [partitioning("integer")] [outputtopology("triangle_cw")] [outputcontrolpoints(3)] [patchconstantfunc("pc")]\nCP main(InputPatch<CP, 3> ip, uint i : SV_OutputControlPointID) { return ip[i]; }\n', 'hs_6_0',
        'OutputPatch of 4 control points in the patch-constant function does not match [outputcontrolpoints(3)]'),
    'tess_pc_calls_entry': ('struct CP { float4 p : SV_Position; };\nstruct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; };\nCP main(InputPatch<CP, 3> ip, uint i : SV_OutputControlPointID);\nPC pc(InputPatch<CP, 3> ip) { PC c = (PC)0; c.i = main(ip, 0).p.x; return c; }\n[domain("tri")] [partitioning("integer")] [outputtopology("triangle_cw")] [outputcontrolpoints(3)] [patchconstantfunc("pc")]\nCP $main(InputPatch<CP, 3> ip, uint i : SV_OutputControlPointID) { return ip[i]; }\n', 'hs_6_0',
        "entry function 'main' should not be reachable from patch constant function 'pc'"),
    'eval_snapped_arity': ('float4 main(float4 c : C) : SV_Target { return $EvaluateAttributeSnapped(c); }\n', 'ps_6_0',
        "no matching intrinsic for call to 'EvaluateAttributeSnapped': expected 2 arguments, have 1"),
    'eval_snapped_int': ('float4 main(nointerpolation int4 c : C) : SV_Target { return EvaluateAttributeSnapped($c, int2(0, 0)); }\n', 'ps_6_0',
        "'EvaluateAttributeSnapped' needs a float pixel shader input, not 'int4'"),
    'pack_u8_float': ('float4 main() : SV_Target {\n return pack_u8($float4(1, 2, 3, 4)); }\n', 'ps_6_6',
        "no matching intrinsic for call to 'pack_u8': the argument must be a 4-vector of 32- or 16-bit integers, not 'float4'"),
    'dispatchmesh_arity': ('struct P { float a; };\ngroupshared P p;\n[numthreads(1,1,1)] void main() { $DispatchMesh(1, 1, p); }\n', 'as_6_5',
        "no matching intrinsic for call to 'DispatchMesh': expected 4 arguments, have 3"),
    'interlocked_float_dest': ('RWStructuredBuffer<float> b;\n[numthreads(1,1,1)] void main() { InterlockedAdd(b$[0], 1); }\n', 'cs_6_0',
        "'InterlockedAdd' requires an int or uint destination, not 'float'"),
    'interlocked_arity': ('RWStructuredBuffer<uint> b;\n[numthreads(1,1,1)] void main() { $InterlockedAdd(b[0]); }\n', 'cs_6_0',
        "no matching intrinsic for call to 'InterlockedAdd'"),
    'float_bitwise_arity': ('RWStructuredBuffer<float> b;\n[numthreads(1,1,1)] void main() { $InterlockedCompareStoreFloatBitwise(b[0], 1.0); }\n', 'cs_6_0',
        "no matching intrinsic for call to 'InterlockedCompareStoreFloatBitwise': expected 3 arguments, have 2"),
    'float_bitwise_uint': ('RWStructuredBuffer<uint> b;\n[numthreads(1,1,1)] void main() { InterlockedCompareStoreFloatBitwise(b$[0], 1.0, 2.0); }\n', 'cs_6_0',
        "'InterlockedCompareStoreFloatBitwise' requires a float destination, not 'uint'"),
    'float_bitwise_rvalue_orig': ('RWStructuredBuffer<float> b;\n[numthreads(1,1,1)] void main() { InterlockedCompareExchangeFloatBitwise(b[0], 1.0, 2.0, $3.0); }\n', 'cs_6_0',
        "cannot bind non-lvalue argument to out parameter of 'InterlockedCompareExchangeFloatBitwise'"),
    'float_bitwise_int_orig': ('RWStructuredBuffer<float> b;\n[numthreads(1,1,1)] void main() { int o; InterlockedCompareExchangeFloatBitwise(b[0], 1.0, 2.0, $o); }\n', 'cs_6_0',
        "the original value of 'InterlockedCompareExchangeFloatBitwise' is a float, not 'int'"),
    'heap_member': ('[numthreads(1,1,1)] void main() { ResourceDescriptorHeap[0].$Load(0); }\n', 'cs_6_6',
        "an element of 'ResourceDescriptorHeap' has no members until it is converted to a resource type, e.g. '((Texture2D<float4>)ResourceDescriptorHeap[i]).Load(...)'"),
    'append_on_float': ('float4 main() : SV_Target {\n float x = 1; x.$Append(1); return 1; }\n', 'ps_6_0',
        "'Append' requires a geometry-shader stream (PointStream, LineStream or TriangleStream) or an AppendStructuredBuffer, not 'float'"),
    'method_on_float': ('float4 main() : SV_Target {\n float x = 1; return x.$Foo(); }\n', 'ps_6_0',
        "member reference base type 'float' is not a structure or resource"),
    'asuint_rvalue_out': ('float4 main() : SV_Target {\n uint a, b; asuint(1.0, a, $2); return 1; }\n', 'ps_6_0',
        "cannot bind non-lvalue argument to out parameter of 'asuint'"),
    'bitcast_struct': ('struct S { float a; };\nfloat4 main() : SV_Target {\n S s = (S)0; return asfloat($s); }\n', 'ps_6_0',
        "invalid argument of type 'S' to intrinsic 'asfloat'"),
    'numeric_args_struct': ('struct S { float a; };\nfloat4 main() : SV_Target {\n S s = (S)0; return transpose($s); }\n', 'ps_6_0',
        "invalid argument of type 'S' to intrinsic 'transpose'"),
    'rq_param_value': ('RaytracingAccelerationStructure acc;\nvoid f(RayQuery<0> q) { q.Proceed(); }\n[numthreads(1,1,1)] void main() { f($0); }\n', 'cs_6_5',
        "cannot convert 'int' to 'RayQuery<0>'"),
    'cb_param_value': ('struct S { float4 a; };\nfloat4 f(ConstantBuffer<S> c) { return c.a; }\nfloat4 main() : SV_Target {\n S s = (S)0; return f($s); }\n', 'ps_6_0',
        "the argument for parameter 'c' must be a ConstantBuffer (a copy of its block is passed), not a value of type 'S'"),
    'interlocked_exchange_without_original': ('RWStructuredBuffer<uint> b;\n[numthreads(1,1,1)] void main() { $InterlockedExchange(b[0], 1); }\n', 'cs_6_0',
        "'InterlockedExchange' requires an out argument for the original value"),
    'interlocked_exchange_method_without_original': ('RWByteAddressBuffer b;\n[numthreads(1,1,1)] void main() { b.$InterlockedExchange(0, 1); }\n', 'cs_6_0',
        "no matching member function for call to 'InterlockedExchange': expected 3 arguments, have 2"),
    'interlocked_exchange64_method_without_original': ('RWByteAddressBuffer b;\n[numthreads(1,1,1)] void main() { b.$InterlockedExchange64(0, 1); }\n', 'cs_6_6',
        "no matching member function for call to 'InterlockedExchange64': expected 3 arguments, have 2"),
    # rules of the DXIL backend (the validator's, D3D's limits) and what it does not lower yet
    'tbuffer_double_member': ('tbuffer T { double d; };\nfloat4 main() : SV_Target {\n $return (float)d; }\n', 'ps_6_0',
        '64-bit tbuffer members are not supported by the DXIL backend yet'),
    'groupshared_over_32_kib': ('groupshared float $g[9000];\n[numthreads(1,1,1)] void main() {\n g[0] = 1; }\n', 'cs_6_0',
        "total groupshared memory (36000 bytes with 'g') exceeds the 32768-byte limit"),
    'linear_int_input': ('float4 main(linear int $i : I) : SV_Target { return i; }\n', 'ps_6_0',
        "signature element 'I' specifies invalid interpolation mode 'linear' for integer component type: integer and bool elements are nointerpolation"),
    'nointerpolation_position': ('float4 main(nointerpolation float4 $p : SV_Position) : SV_Target { return p; }\n', 'ps_6_0',
        'invalid interpolation mode for SV_Position: it cannot be nointerpolation'),
    'thirty_three_output_rows': ('struct O { float4 p : SV_Position; float4 $a[32] : A; };\nO main() { O o = (O)0; return o; }\n', 'vs_6_0',
        "signature element 'A0' does not fit in the 32 output registers"),
    'thirty_three_input_rows': ('float4 main(float4 $a[33] : A) : SV_Target { return a[0]; }\n', 'ps_6_0',
        "signature element 'A0' does not fit in the 32 input registers"),
    'three_clip_and_three_cull_rows': ('struct O { float4 p : SV_Position; float $c[3] : SV_ClipDistance; float d[3] : SV_CullDistance; };\nO main() { O o = (O)0; return o; }\n', 'vs_6_0',
        "signature element 'SV_ClipDistance0' does not fit: SV_ClipDistance and SV_CullDistance elements share at most two rows (a float[n] array takes n rows)"),
    'gs_input_outside_the_primitive': ('struct V { float4 p : SV_Position; };\n[maxvertexcount(1)] void main(point V i[1], float4 $x : X, inout PointStream<V> s) { s.Append(i[0]); }\n', 'gs_6_0',
        "invalid semantic 'X' for geometry shader input (not per vertex)"),
    "unknown_image_format": ('[[vk::image_format("bogus")]] RWTexture2D<float4> $t;\n'
                             "[numthreads(1, 1, 1)] void main() { t[uint2(0, 0)] = 1; }\n", "cs_6_0",
                             "unknown or unsupported image format 'bogus' in 'vk::image_format'"),
    "image_format_of_another_numeric_class": ('[[vk::image_format("r32ui")]] RWTexture2D<float> $t;\n'
                                              "[numthreads(1, 1, 1)] void main() { t[uint2(0, 0)] = 1; }\n",
                                              "cs_6_0", "image format 'r32ui' holds uint texels, the element type "
                                              "has float components"),
    # more front-end sites
    'local_resource_element_dynamic_assign': ('Texture2D t0;\nuint i;\nfloat4 main() : SV_Target {\n Texture2D a[2]; a[i] $= t0; return a[0].Load(0); }\n', 'ps_6_0',
        "an element of local resource array 'a' is assigned with a dynamic index"),
    'semantic_index_past_32_bits': ('float4 main(float4 $a[2] : A4294967295) : SV_Target { return a[0]; }\n', 'ps_6_0',
        "semantic 'A4294967295' reaches index 4294967296; a semantic index is at most 4294967295"),
    # this error had no location (the out argument's zero value)
    # (a single `out Texture2D` is supported since lib13: an array of them still has no zero to start from)
    'out_texture_parameter': ('Texture2D g;\nvoid f(out Texture2D t[2]) { }\nfloat4 main() : SV_Target {\n Texture2D x[2]; f($x); return 1; }\n', 'ps_6_0',
        "an 'out' parameter of type 'Texture2D<float4>' is not supported"),
    'sampler_with_template_args': ('$SamplerState<float> s;\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "'SamplerState' does not take template arguments"),
    'constant_buffer_without_type': ('$ConstantBuffer cb;\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "'ConstantBuffer' requires a template argument"),
    'structured_unknown_method': ('StructuredBuffer<float> b;\nfloat4 main() : SV_Target {\n return b.$Foo(); }\n', 'ps_6_0',
        "no member function named 'Foo' in 'StructuredBuffer<float>'"),
    'rw_byte_address_unknown_method': ('RWByteAddressBuffer b;\nfloat4 main() : SV_Target {\n return b.$Foo(); }\n', 'ps_6_0',
        "no member function named 'Foo' in 'RWByteAddressBuffer'"),
    'texture2dms_unknown_method': ('Texture2DMS<float4> t;\nfloat4 main() : SV_Target {\n return t.$Foo(); }\n', 'ps_6_0',
        "no member function named 'Foo' in 'Texture2DMS<float4>'"),
    'store_of_a_struct_holding_a_texture': ('struct S { float a; Texture2D t; };\nRWByteAddressBuffer b;\n[numthreads(1,1,1)] void main() { S s; b.$Store<S>(0, s); }\n', 'cs_6_2',
        'Explicit template arguments on intrinsic Store must be a single numeric type'),
    'subobject_in_function': ('float4 main() : SV_Target {\n $RaytracingShaderConfig c = { 16, 8 }; return 1; }\n', 'lib_6_3',
        "'RaytracingShaderConfig' is a state-object subobject: it can only be the type of a global variable with an initializer list"),
    'hit_attributes_48_bytes_reported': ('struct A { float4 a[3]; };\n[shader("intersection")] void is() { A a = (A)0; ReportHit(0.5, 0, $a); }\n', 'lib_6_3',
        "hit attributes 'A' are 48 bytes; D3D12 allows at most 32"),
    'status_of_a_double_load': ('StructuredBuffer<double> b;\nfloat4 main() : SV_Target {\n uint s; return (float)b.$Load(0, s); }\n', 'ps_6_0',
        "SPIR-V has no residency status for a storage buffer ('StructuredBuffer<double>'): a status argument needs a texture or a typed buffer"),
    'static_const_array_index_out_of_bounds': ('static const float a[2] = {1, 2};\nfloat4 main() : SV_Target {\n return a[$2]; }\n', 'ps_6_0',
        "index 2 is out of bounds for type 'float[2]'"),
    'vector_index_out_of_bounds': ('float4 main() : SV_Target {\n float4 v = 1; return v[$4]; }\n', 'ps_6_0',
        "index 4 is out of bounds for type 'float4'"),
    'logical_or_of_vectors': ('float4 main() : SV_Target {\n float4 v = 1; return (v $|| float3(1,1,1)).x; }\n', 'ps_6_0',
        "operands for short-circuiting logical binary operator must be scalar, for non-scalar types use 'or'"),
    'decimal_literal_past_64_bits': ('float4 main() : SV_Target {\n return $18446744073709551616; }\n', 'ps_6_0',
        'integer literal is too large to be represented in any integer type'),
    'method_of_a_typedef_of_float': ('typedef float F;\nfloat F::$f() { return 1; }\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "'F' is not a struct"),
    'payload_field_read_twice': ('struct [raypayload] P { float4 c : read(caller) : $read(miss); };\n[shader("miss")] void m(inout P p) { }\n', 'lib_6_7',
        "'read' is given twice for payload field 'c'"),
    'ray_query_initialized_from_an_int': ('RaytracingAccelerationStructure acc;\nRayQuery<0> g() { RayQuery<0> q; return q; }\n[numthreads(1,1,1)] void main() { RayQuery<0> q = $1; }\n', 'cs_6_5',
        "a 'RayQuery<0>' can only be initialized by a call of a function returning one"),
    "vertices_parameter_of_an_amplification_shader": (
        "struct V { float4 p : SV_Position; };\nstruct P { float a; };\ngroupshared P p;\n"
        "[numthreads(1, 1, 1)] void main(out vertices V $v[3]) { DispatchMesh(1, 1, 1, p); }\n", "as_6_5",
        "'vertices' parameters are only allowed in a mesh shader"),
    "uniform_unsized_array_with_an_initializer": ("float $g[] = {1, 2};\n" + PB + " return g[0]; }\n", "ps_6_0",
                                                  "uniform global 'g' cannot have an unsized array type"),
    # the preprocessor (its code is another helper's this session: tests only)
    'defined_without_its_paren': ('#if defined($A\n#endif\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "missing ')' after 'defined'"),
    'defined_of_a_number': ('#if defined $1\n#endif\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "macro name must be an identifier after 'defined'"),
    'defined_of_a_number_in_parens': ('#if defined($1)\n#endif\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        "macro name must be an identifier after 'defined'"),
    'define_without_a_name': ('#$define\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        'macro name missing'),
    'undef_without_a_name': ('#$undef\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        'macro name missing'),
    'ifdef_without_a_name': ('#$ifdef\n#endif\nfloat4 main() : SV_Target { return 1; }\n', 'ps_6_0',
        'macro name missing'),
    "logical_and_of_a_scalar_and_a_vector": (PB + " bool a = true; return a $&& float2(1, 1); }\n", "ps_6_0",
                                             "operands for short-circuiting logical binary operator must be scalar, "
                                             "for non-scalar types use 'and'"),
    'write_a_member_of_a_heap_constant_buffer': ('struct S { float4 a; };\nfloat4 main() : SV_Target {\n ConstantBuffer<S> c = ResourceDescriptorHeap[0]; c.$a = 1; return c.a; }\n', 'ps_6_6',
        "cannot assign to a member of 'ConstantBuffer<S>'"),
    'member_of_an_array': ('float4 main() : SV_Target {\n float a[2] = {1, 2}; return a.$x; }\n', 'ps_6_0',
        "member reference base type 'float[2]' is not a structure"),
    'index_of_a_returned_vector_out_of_bounds': ('float2 mk() { return 1; }\nfloat4 main() : SV_Target {\n return mk()[$3]; }\n', 'ps_6_0',
        "index 3 is out of bounds for type 'float2'"),
    'index_of_a_returned_array_out_of_bounds': ('struct S { float a[2]; };\nS mk() { S s = (S)0; return s; }\nfloat4 main() : SV_Target {\n return mk().a[$2]; }\n', 'ps_6_0',
        "index 2 is out of bounds for type 'float[2]'"),
    'unrolled_offset_out_of_range': ('Texture2D t; SamplerState s;\nfloat4 main() : SV_Target {\n float4 r = 0; [unroll] for (int i = 0; i < 10; i++) r += t.Sample(s, 0.5, $int2(i, 0)); return r; }\n', 'ps_6_0',
        'texture offsets must be in the range [-8, 7] (is (8, 0) when i = 8)'),
    'offset_in_a_loop_that_cannot_unroll': ('Texture2D t; SamplerState s;\nuint n;\nfloat4 main() : SV_Target {\n float4 r = 0; [unroll] for (int i = 0; i < n; i++) r += t.Sample(s, 0.5, $int2(i, 0)); return r; }\n', 'ps_6_0',
        "texture offsets must be compile-time constants: 'i' changes in an [unroll] loop that cannot be unrolled fully (it needs a counter stepping by a constant from a constant to a constant bound, at most 64 iterations, not assigned in the body)"),
    'member_of_a_returned_array': ('struct S { float a[2]; };\nS mk() { S s = (S)0; return s; }\nfloat4 main() : SV_Target {\n return mk().a.$x; }\n', 'ps_6_0',
        "member reference base type 'float[2]' is not a structure"),
    'texture2dms_load_offset_out_of_range': ('Texture2DMS<float4> t;\nfloat4 main() : SV_Target {\n return t.Load(int2(0, 0), 0, $int2(9, 0)); }\n', 'ps_6_0',
        'texture offsets must be in the range [-8, 7]'),
    'store_of_a_runtime_sized_array': ('struct S { float a; };\nRWByteAddressBuffer b;\n[numthreads(1,1,1)] void main() {\n b.$Store<S[]>(0, (S[1])0); }\n', 'cs_6_2',
        'Load<S[]>/Store<S[]>: runtime-sized arrays have no fixed layout'),
    'rw_byte_address_unknown_method_statement': ('RWByteAddressBuffer b;\n[numthreads(1,1,1)] void main() {\n b.$Frob(0); }\n', 'cs_6_0',
        "no member function named 'Frob' in 'RWByteAddressBuffer'"),
    'rw_structured_unknown_method': ('RWStructuredBuffer<float> b;\n[numthreads(1,1,1)] void main() {\n b.$Frob(0); }\n', 'cs_6_0',
        "no member function named 'Frob' in 'RWStructuredBuffer<float>'"),
    'sample_cmp_level_below_6_7': ('Texture2D t; SamplerComparisonState s;\nfloat4 main() : SV_Target {\n return t.$SampleCmpLevel(s, 0.5, 0.5, 0); }\n', 'ps_6_0',
        "'SampleCmpLevel' requires shader model 6.7 or higher (the profile is ps_6_0)"),
    'sample_of_a_texture2dms': ('Texture2DMS<float4> t;\nfloat4 main() : SV_Target {\n return t.$Sample(0); }\n', 'ps_6_0',
        "'Texture2DMS' cannot be sampled"),
    'output_patch_member_the_control_point_function_lacks': ('struct CP { float4 p : SV_Position; };\nstruct CP2 { float4 p : SV_Position; float4 q : Q; };\nstruct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; };\nPC pc(OutputPatch<CP2, 3> $op) { PC c = (PC)0; c.i = op[0].q.x; return c; }\n[domain("tri")] [partitioning("integer")] [outputtopology("triangle_cw")] [outputcontrolpoints(3)] [patchconstantfunc("pc")]\nCP main(InputPatch<CP, 3> ip, uint i : SV_OutputControlPointID) { return ip[i]; }\n', 'hs_6_0',
        "OutputPatch member 'Q' is not an output of the hull shader's control-point function"),
    'gs_stream_vertex_member_without_semantic': ('struct V { float4 p : SV_Position; };\nstruct O { float4 p : SV_Position; float4 $q; };\n[maxvertexcount(1)] void main(point V i[1], inout PointStream<O> s) { O o = (O)0; s.Append(o); }\n', 'gs_6_0',
        'geometry shader output is missing a semantic'),
    'evaluate_an_assigned_input': ('float4 main(float4 c : C) : SV_Target { c = 1; return EvaluateAttributeAtSample($c, 0); }\n', 'ps_6_0',
        "'EvaluateAttributeAtSample' needs an unmodified pixel shader input: 'c' is assigned"),
    'attribute_at_vertex_of_an_array_member': ('struct I { nointerpolation float4 c[2] : C; };\nfloat4 main(I i) : SV_Target { return GetAttributeAtVertex($i.c[0], 0); }\n', 'ps_6_1',
        "'GetAttributeAtVertex' needs a scalar or vector input, not 'float4[2]'"),
    'patch_constant_parameter_without_semantic': ('struct CP { float4 p : SV_Position; };\nstruct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; };\nPC pc(InputPatch<CP, 3> ip, uint $pid) { PC c = (PC)0; c.i = pid; return c; }\n[domain("tri")] [partitioning("integer")] [outputtopology("triangle_cw")] [outputcontrolpoints(3)] [patchconstantfunc("pc")]\nCP main(InputPatch<CP, 3> ip, uint i : SV_OutputControlPointID) { return ip[i]; }\n', 'hs_6_0',
        "parameter 'pid' is missing a semantic"),
    'cast_of_zero_to_a_resource_array': ('Texture2D t0, t1;\nfloat4 main() : SV_Target {\n Texture2D a[2][2]; a[0] = $(Texture2D[2])0; return 1; }\n', 'ps_6_0',
        "cannot initialize a value of type 'Texture2D<float4>' from a list"),
    "float_bitwise_on_a_local": ("[numthreads(1, 1, 1)] void main() {\n float x = 0; "
                                 "InterlockedCompareStoreFloatBitwise($x, 1.0, 2.0); }\n", "cs_6_6",
                                 "the first argument of 'InterlockedCompareStoreFloatBitwise' must be a buffer element "
                                 "or groupshared variable"),
}

# Vulkan-only rules: DXIL ignores them, and the program compiles there (checked below)
SPIRV_ONLY = {"status_of_a_double_load", "interlocked_add_on_a_64_bit_texel", "unknown_image_format", "image_format_of_another_numeric_class", "interlocked_add64_method",
              "compare_exchange_float_bitwise_on_a_float", "status_of_a_byte_address_load"}
# attributes only SPIR-V has: DXIL refuses them with its own error (DXIL_REFUSES, at the attribute)
DXIL_REFUSES = {"ext_builtin_unknown_number": (1, 3, "'vk::ext_builtin_input' is only supported when targeting SPIR-V"),
                "ext_builtin_output_of_an_input": (1, 3, "'vk::ext_builtin_output' is only supported when targeting "
                                                         "SPIR-V")}
# rules of the DXIL backend: the program compiles for SPIR-V (checked below)
DXIL_ONLY = {"tbuffer_double_member", "groupshared_over_32_kib", "linear_int_input", "nointerpolation_position", "thirty_three_output_rows", "thirty_three_input_rows", "three_clip_and_three_cull_rows"}


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
    if (target == "dxil" and name in SPIRV_ONLY) or (target == "spirv" and name in DXIL_ONLY):
        assert res.ok, res.diagnostics
        return
    if target == "dxil" and name in DXIL_REFUSES:
        line, col, message = DXIL_REFUSES[name]
    assert res.ok is False and res.binary is None
    assert [f"{d.loc}: {d.message}" for d in res.diagnostics if d.severity == "error"] == [
        f"t.hlsl:{line}:{col}: {message}"]


MS_HEAD = 'struct V { float4 p : SV_Position; };\n[outputtopology("triangle")] [numthreads(1, 1, 1)]\n'
# DXIL-only programs the SPIR-V backend needs another target environment for (mesh shaders: SPIR-V 1.4)
DXIL_CASES: dict[str, tuple[str, str, str]] = {
    "mesh_primitive_output_linear": (
        'struct V { float4 p : SV_Position; };\nstruct Pr { linear float $a : A; };\n'
        '[outputtopology("triangle")] [numthreads(1, 1, 1)]\n'
        "void main(out vertices V v[3], out indices uint3 t[1], out primitives Pr pr[1]) { SetMeshOutputCounts(3, 1); }\n",
        "ms_6_5", "mesh shader's primitive outputs' interpolation mode must be constant or undefined: 'A' is linear"),
    "mesh_outputs_over_32_kib": (
        'struct V { float4 p : SV_Position; float4 a[31] : A; };\n[outputtopology("triangle")] [numthreads(1, 1, 1)]\n'
        "void $main(out vertices V v[256], out indices uint3 t[256]) { SetMeshOutputCounts(3, 1); }\n", "ms_6_5",
        "the mesh shader's vertex and primitive outputs are 131072 bytes (counts rounded up to 32): at most 32768"),
    "mesh_vertex_output_read_in_an_index": (
        'struct V { float4 p : SV_Position; float4 c : C; };\n[outputtopology("triangle")] [numthreads(1, 1, 1)]\n'
        "void main(out vertices V v[3], out indices uint3 t[1]) {\n SetMeshOutputCounts(3, 1); v[0].c = 1; "
        "v[(uint)$v[0].c.x].p = 1; }\n", "ms_6_5", "mesh shader output 'v' cannot be read"),
    # the indices read to index another output: this compiled, reading an output (as the vertices above do not)
    "mesh_indices_read_in_an_index": (
        'struct V { float4 p : SV_Position; };\n[outputtopology("triangle")] [numthreads(1, 1, 1)]\n'
        "void main(out vertices V v[3], out indices uint3 t[1]) {\n SetMeshOutputCounts(3, 1); "
        "t[0] = uint3(0, 1, 2); v[$t[0].x].p = 1; }\n", "ms_6_5", "mesh shader output 't' cannot be read"),
    "mesh_outputs_over_32_rows": (
        'struct V { float4 p : SV_Position; float4 a[20] : A; };\nstruct Pr { nointerpolation float4 b[16] : B; };\n'
        '[outputtopology("triangle")] [numthreads(1, 1, 1)]\nvoid $main(out vertices V v[3], out indices uint3 t[1], '
        "out primitives Pr pr[1]) { SetMeshOutputCounts(3, 1); }\n", "ms_6_5",
        "the mesh shader's vertex and primitive outputs take 21 + 16 signature rows: at most 32 together"),
    "mesh_vertex_array_written_whole": (
        'struct V { float4 p : SV_Position; };\n[outputtopology("triangle")] [numthreads(1, 1, 1)]\n'
        "void main(out vertices V v[3], out indices uint3 t[1]) {\n SetMeshOutputCounts(3, 1); v $= (V[3])0; }\n",
        "ms_6_5", "mesh shader output 'v' is written one element at a time: 'v[i] = ...'"),
}


@pytest.mark.parametrize("name", sorted(DXIL_CASES))
def test_one_located_dxil_error(name: str) -> None:
    src, profile, message = DXIL_CASES[name]
    text, line, col = _marked(src)
    res = compile_file("t.hlsl", CompileOptions(entry="main", profile=profile, target="dxil"), text=text)
    assert res.ok is False and res.binary is None
    assert [f"{d.loc}: {d.message}" for d in res.diagnostics if d.severity == "error"] == [
        f"t.hlsl:{line}:{col}: {message}"]


def test_dxil_library_refuses_a_root_signature_option() -> None:
    """-rootsig-define names a root signature part, which a DXIL library has no place for (its subobjects
    carry root signatures); the error is about an option, so it has no source location."""
    text = '#define RS "RootFlags(0)"\n[shader("raygeneration")] void rg() { }\n'
    res = compile_file("t.hlsl", CompileOptions(entry="", profile="lib_6_3", target="dxil", rootsig_define="RS"),
                       text=text)
    assert res.ok is False and res.binary is None
    assert [(d.loc, d.message) for d in res.diagnostics if d.severity == "error"] == [
        (None, "a DXIL library has no root signature part: declare GlobalRootSignature / LocalRootSignature "
               "subobjects instead of -rootsig-define")]

# name -> (source with one `$`, profile, warning): the program compiles, with exactly this one warning
WARNINGS: dict[str, tuple[str, str, str]] = {
    "second_semantic": ("float4 main(float4 a : A : $B) : SV_Target { return a; }\n", "ps_6_0",
                        "semantic 'B' is ignored: 'A' was given first"),
    "register_subcomponent": ("Texture2D t : register(t0$[1]);\n" + PB + " return t.Load(0); }\n", "ps_6_0",
                              "register subcomponent [1] is ignored: the register is t0 (as DXC)"),
    "sampler_register_on_a_texture": ("Texture2D t : $register(s1);\n" + PB + " return t.Load(0); }\n", "ps_6_0",
                                      "register class 's' on shader resource view 't' of type 'Texture2D<float4>': it "
                                      "is bound as 't1' (DXC's binding; the written class only picks the Vulkan "
                                      "-fvk-s-shift / -fvk-bind-register entry)"),
    "matrix_to_scalar": (PB + " float2x2 m = 1; float s = $m; return s; }\n", "ps_6_0",
                         "implicit truncation of matrix type"),
    "vector_to_a_shorter_matrix": (PB + " float4 v = 1; float1x3 m = $v; return m[0].xyzz; }\n", "ps_6_0",
                                   "implicit truncation of vector type"),
    "ifdef_with_extra_tokens": ("#ifdef A $B\n#endif\n" + PS, "ps_6_0", "extra tokens at end of #ifdef directive"),
    "early_depth_stencil_on_a_vertex_shader": ("[$earlydepthstencil] float4 main() : SV_Position { return 1; }\n",
                                               "vs_6_0", "attribute 'earlydepthstencil' has no effect on a vertex "
                                               "shader: it applies to pixel shaders"),
}


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("name", sorted(WARNINGS))
def test_one_located_warning(name: str, target: str) -> None:
    src, profile, message = WARNINGS[name]
    text, line, col = _marked(src)
    res = compile_file("t.hlsl", CompileOptions(entry="main", profile=profile, target=target), text=text)
    assert res.ok and res.binary
    assert [f"{d.loc}: {d.severity}: {d.message}" for d in res.diagnostics] == [
        f"t.hlsl:{line}:{col}: warning: {message}"]


# options that do not go together: no source position to point at (the message names the option)
OPTION_DIAGNOSTICS = [
    ({"embed_debug": True}, "error", "-Qembed_debug needs debug information: add -Zi"),
    ({"vk_layout": "bogus"}, "error", "unknown Vulkan layout 'bogus' (one of default, dx, gl, scalar)"),
    ({"vk_target_env": "bogus"}, "error", "unknown target environment 'bogus' (one of vulkan1.0, vulkan1.1, "
                                          "vulkan1.2, vulkan1.3, universal1.5)"),
    ({"enable_16bit_types": True}, "error", "-enable-16bit-types requires shader model 6.2 or higher (profile is "
                                            "ps_6_0)"),
    ({"debug_file": "x.pdb"}, "warning", "-Fd has no effect without -Zi: no debug information is generated"),
]


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("case", range(len(OPTION_DIAGNOSTICS)))
def test_option_diagnostic(case: int, target: str) -> None:
    options, severity, message = OPTION_DIAGNOSTICS[case]
    res = compile_file("t.hlsl", CompileOptions(entry="main", profile="ps_6_0", target=target, **options), text=PS)
    got = [(d.severity, d.message, d.loc) for d in res.diagnostics]
    if target == "spirv" and "debug_file" in options:     # and the SPIR-V backend's own note on -Fd
        got = [g for g in got if not g[1].startswith("-Fd only applies to DXIL")]
    assert got == [(severity, message, None)]
    assert res.ok is (severity == "warning")


@pytest.mark.parametrize(("target", "options", "message"), [
    ("spirv", {"debug_file": "x.pdb"}, "-Fd only applies to DXIL: the SPIR-V debug information (-Zi) is in the "
                                       "module itself"),
    ("spirv", {"embed_debug": True}, "-Qembed_debug only applies to DXIL: the SPIR-V debug information (-Zi) is in "
                                     "the module itself"),
    ("dxil", {}, "no output file specified for debug info (-Fd): embedding it in the shader container (ILDB); use "
                 "-Qembed_debug to silence this warning"),
])
def test_debug_info_option_warning(target: str, options: dict, message: str) -> None:
    res = compile_file("t.hlsl", CompileOptions(entry="main", profile="ps_6_0", target=target, debug_info=True,
                                                **options), text=PS)
    assert res.ok and res.binary
    assert [(d.severity, d.message, d.loc) for d in res.diagnostics] == [("warning", message, None)]


VK12_MESH = 'struct V { float4 p : SV_Position; };\n[outputtopology("triangle")] '
# SPIR-V rules of stages that need SPIR-V 1.4 (-fspv-target-env=vulkan1.2); DXIL compiles each (checked)
SPIRV_VK12_CASES: dict[str, tuple[str, str, str]] = {
    "derivative_in_a_mesh_shader": (
        VK12_MESH + "[numthreads(4, 1, 1)]\nvoid main(uint i : SV_GroupIndex, out vertices V v[3], out indices uint3 "
        "t[1]) {\n SetMeshOutputCounts(3, 1); v[0].p $= ddx((float)i); }\n", "ms_6_6",
        "derivatives in mesh shaders are not supported when targeting SPIR-V: SPV_NV_compute_shader_derivatives "
        "covers compute shaders only"),
    "quad_read_in_a_2d_amplification_group": (
        "struct P { float a; };\ngroupshared P p;\n[numthreads(2, 2, 1)] void main(uint i : SV_GroupIndex) {\n"
        " p.a = $QuadReadAcrossX((float)i); DispatchMesh(1, 1, 1, p); }\n", "as_6_6",
        "quad operations in a amplification shader with a 2-D thread group read 2x2 thread quads from shader model "
        "6.6, which SPIR-V expresses only with SPV_KHR_compute_shader_derivatives (not supported here); use a 1-D "
        "[numthreads]"),
    "shading_rate_of_a_mesh_primitive": (
        "struct V { float4 p : SV_Position; };\nstruct Pr { uint $r : SV_ShadingRate; };\n"
        '[outputtopology("triangle")] [numthreads(1, 1, 1)]\nvoid main(out vertices V v[3], out indices uint3 t[1], '
        "out primitives Pr pr[1]) { SetMeshOutputCounts(3, 1); }\n", "ms_6_5",
        "SV_ShadingRate in a mesh shader is not supported by the SPIR-V backend: spirv-val rejects the per-primitive "
        "PrimitiveShadingRateKHR array that Vulkan specifies for mesh shaders"),
}


@pytest.mark.parametrize("name", sorted(SPIRV_VK12_CASES))
def test_one_located_spirv_vk12_error(name: str) -> None:
    src, profile, message = SPIRV_VK12_CASES[name]
    text, line, col = _marked(src)
    res = compile_file("t.hlsl", CompileOptions(entry="main", profile=profile, target="spirv",
                                                vk_target_env="vulkan1.2"), text=text)
    assert res.ok is False and res.binary is None
    assert [f"{d.loc}: {d.message}" for d in res.diagnostics if d.severity == "error"] == [
        f"t.hlsl:{line}:{col}: {message}"]
    assert compile_file("t.hlsl", CompileOptions(entry="main", profile=profile, target="dxil"), text=text).ok


BR_T0 = [BindRegister("t", 0, 0, 0, 0)]     # -fvk-bind-register t0 0 0 0
HEAP_VIEW = "Texture2D t : register(t0);\n" + PB + (" Texture2D u = $ResourceDescriptorHeap[0]; "
                                                    "return t.Load(0) + u.Load(0); }\n")
COUNTER_VIEW = ("Texture2D t : register(t0);\n[numthreads(1, 1, 1)] void main() {\n"
                " RWStructuredBuffer<uint> u = $ResourceDescriptorHeap[0]; u.IncrementCounter(); }\n")
# Vulkan binding options (passes/vk_bindings.py): SPIR-V refuses these combinations, DXIL ignores the options
VK_BINDING_CASES: dict[str, tuple[str, str, dict, str]] = {
    "bind_register_and_a_vk_binding": ("[[vk::binding(3)]] Texture2D $t : register(t0);\n" + PB
                                       + " return t.Load(0); }\n", "ps_6_0", {"vk_bind_registers": BR_T0},
                                       "-fvk-bind-register cannot be combined with [[vk::binding]]"),
    "resource_heap_on_a_taken_binding": (HEAP_VIEW, "ps_6_6", {"vk_bind_resource_heap": (0, 0)},
                                         "'ResourceDescriptorHeap' (-fvk-bind-resource-heap) and resource 't' are "
                                         "both bound to descriptor set 0 binding 0"),
    "resource_heap_without_its_option": (HEAP_VIEW, "ps_6_6", {"vk_bind_registers": BR_T0},
                                         "'ResourceDescriptorHeap' needs -fvk-bind-resource-heap when "
                                         "-fvk-bind-register is used"),
    "counter_heap_without_its_option": (COUNTER_VIEW, "cs_6_6", {"vk_bind_registers": BR_T0,
                                                                 "vk_bind_resource_heap": (5, 0)},
                                        "the counters of 'ResourceDescriptorHeap' need -fvk-bind-counter-heap when "
                                        "-fvk-bind-register is used"),
    "counter_heap_on_a_taken_binding": (COUNTER_VIEW, "cs_6_6", {"vk_bind_resource_heap": (5, 0),
                                                                 "vk_bind_counter_heap": (0, 0)},
                                        "the counter heap and resource 't' are both bound to descriptor set 0 "
                                        "binding 0"),
    "counter_binding_on_a_taken_binding": ("[[vk::binding(0)]] Texture2D t;\n"
                                           "[[vk::binding(1), vk::counter_binding(0)]] RWStructuredBuffer<uint> $u;\n"
                                           "[numthreads(1, 1, 1)] void main() {\n"
                                           " u.IncrementCounter(); u[0] = t.Load(0).x; }\n", "cs_6_0", {},
                                           "the counter of 'u' and resource 't' are both bound to descriptor set 0 "
                                           "binding 0"),
}


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("name", sorted(VK_BINDING_CASES))
def test_vk_binding_option_error(name: str, target: str) -> None:
    src, profile, options, message = VK_BINDING_CASES[name]
    text, line, col = _marked(src)
    res = compile_file("t.hlsl", CompileOptions(entry="main", profile=profile, target=target, **options), text=text)
    if target == "dxil":
        assert res.ok, res.diagnostics
        return
    assert res.ok is False and res.binary is None
    assert [f"{d.loc}: {d.message}" for d in res.diagnostics if d.severity == "error"] == [
        f"t.hlsl:{line}:{col}: {message}"]


def test_bind_register_and_a_shift() -> None:
    """Two options that exclude each other: the error names them (no source position)."""
    res = compile_file("t.hlsl", CompileOptions(entry="main", profile="ps_6_0", target="spirv", vk_bind_registers=BR_T0,
                                                binding_shifts=[BindingShift("t", 1, None)]), text=PS)
    assert res.ok is False
    assert [(d.loc, d.message) for d in res.diagnostics] == [
        (None, "-fvk-bind-register cannot be combined with -fvk-{b,t,s,u}-shift")]


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_hlsl_202x_literal_past_uint64(target: str) -> None:
    """-HV 202x (conforming literals): the literal types end at uint64_t, so 2^64 fits none."""
    text, line, col = _marked(PB + " return $18446744073709551616 > 0; }\n")
    res = compile_file("t.hlsl", CompileOptions(entry="main", profile="ps_6_0", target=target, hlsl_version=2029),
                       text=text)
    assert res.ok is False
    assert [f"{d.loc}: {d.message}" for d in res.diagnostics if d.severity == "error"] == [
        f"t.hlsl:{line}:{col}: integer literal is too large to be represented in any integer type"]


def test_classified_sites_exist() -> None:
    """tests/error_sites_classes.tsv classifies sites no test reaches: each row names a site that exists
    (a deleted or reworded site leaves no stale row) with class a or c (a dead site is deleted, not kept)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import error_sites

    keys = {s["key"] for s in error_sites.sites()}
    rows = error_sites.classes()
    assert rows
    assert sorted(k for k in rows if k not in keys) == []
    assert {c for c, _ in rows.values()} <= {"a", "c"}
    assert all(reason for _, reason in rows.values())


def test_invert_y_of_a_mesh_position_component_chosen_at_run_time() -> None:
    """-fvk-invert-y negates SV_Position.y where a mesh shader writes it: a component picked at run time
    cannot be told to be y.  DXIL stores a mesh output's components by constant column, and refuses the
    run-time one (it used to report "semantic 'SV_Position' is not supported for mesh shaders" at the struct)."""
    text, line, col = _marked('struct V { float4 p : SV_Position; };\n[outputtopology("triangle")] [numthreads(1, 1, 1)]\n'
                              "void main(uint i : SV_GroupIndex, out vertices V v[3], out indices uint3 t[1]) {\n"
                              " SetMeshOutputCounts(3, 1); v[0].p[i] $= 1; }\n")
    res = compile_file("t.hlsl", CompileOptions(entry="main", profile="ms_6_5", target="spirv",
                                                vk_target_env="vulkan1.2", vk_invert_y=True), text=text)
    assert res.ok is False
    assert [f"{d.loc}: {d.message}" for d in res.diagnostics if d.severity == "error"] == [
        f"t.hlsl:{line}:{col}: -fvk-invert-y: a mesh shader's SV_Position component is chosen at run time; write "
        "the position whole or by constant components"]
    res = compile_file("t.hlsl", CompileOptions(entry="main", profile="ms_6_5", target="dxil"), text=text)
    assert res.ok is False
    assert [f"{d.loc}: {d.message}" for d in res.diagnostics if d.severity == "error"] == [
        f"t.hlsl:{line}:{col}: an output component chosen at run time is not supported by the DXIL backend yet; "
        "write the output's components by constant index"]


def test_include_with_extra_tokens_and_an_unreadable_include(tmp_path) -> None:
    """'#include "x.h" y' warns at the extra token; an include that names a directory cannot be read."""
    (tmp_path / "x.h").write_text("")
    (tmp_path / "d").mkdir()
    main_file = tmp_path / "t.hlsl"
    text, line, col = _marked('#include "x.h" $y\n' + PS)
    main_file.write_text(text)
    res = compile_file(str(main_file), CompileOptions(entry="main", profile="ps_6_0", target="spirv"))
    assert res.ok
    assert [f"{d.loc}: {d.severity}: {d.message}" for d in res.diagnostics] == [
        f"{main_file}:{line}:{col}: warning: extra tokens at end of #include directive"]
    text, line, col = _marked('#include $"d"\n' + PS)
    main_file.write_text(text)
    res = compile_file(str(main_file), CompileOptions(entry="main", profile="ps_6_0", target="spirv"))
    errors = [d for d in res.diagnostics if d.severity == "error"]
    assert res.ok is False and len(errors) == 1
    assert f"{errors[0].loc}" == f"{main_file}:{line}:{col}"
    assert errors[0].message.startswith(f"cannot read '{tmp_path / 'd'}': ")


def test_target_without_a_backend() -> None:
    res = compile_file("t.hlsl", CompileOptions(entry="main", profile="ps_6_0", target="metal"), text=PS)
    assert res.ok is False
    assert [(d.loc, d.message) for d in res.diagnostics] == [
        (None, "no backend for target 'metal' is installed (available: dxil, spirv); install shaderbuild-metal")]
