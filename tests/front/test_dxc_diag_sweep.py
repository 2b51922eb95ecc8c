"""A sweep of DXC's HLSL diagnostics (issue 20, "rejecting what DXC rejects").

Every diagnostic whose name contains `hlsl` in DXC's DiagnosticSemaKinds.td and DiagnosticParseKinds.td
(the snapshot read for this sweep: DirectXShaderCompiler 9a3e225, 2026-08-21; TD_NAMES below) has one
disposition here, so the sweep is complete and reviewable:

- REJECTED: the smallest program we wrote that makes DXC emit it (the condition read where the
  diagnostic fires in tools/clang/lib/Sema, Parse) gets exactly one located error from us on both
  targets: the case asserts the line:col and a key phrase (DXC's wording where we follow it, ours where
  our message says more). Where DXC only warns and its DXIL validator then refuses the shader
  (derivatives, intrinsics of a later shader model), we refuse at once.
- WARNED: DXC's warnings we give, asserted as a warning at line:col, the program still compiling.
- NOT_APPLICABLE: a note, a legacy (FX/SM < 6, HLSL < 2021) form, a feature we do not implement
  (work-graph nodes, SM 6.9 long vectors/linear algebra/HitObject, the SM 6.8 Barrier() intrinsic,
  `auto`, vk::BufferPointer), a compiler-internal message; one line says why.
- LEFT: DXC rejects (or warns) and we accept; each says why it is left (docs/CONFORMANCE.md lists the
  deliberate ones).
A case may carry compile options (`-HV 2018` for the forms only older language versions have).  A few
names the .td has are used nowhere in DXC's sources (marked where they appear).  NEIGHBOURS are valid
programs next to the newly refused or warned ones: they compile without a diagnostic; two executed tests
check values the sweep's fixes change.  RECOVERY checks that several mistakes in one file are each
reported once."""

from __future__ import annotations

import pytest
from lang_util import run_cs

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

PS = "float4 main(float4 p : A, int i : B) : SV_Target {\n"     # the body starts on line 2
E = "    return p;\n}\n"
CS = "[numthreads(1,1,1)] void main() {}\n"
PC = ("struct CP { float4 p : POS; };\nstruct PC { float e[3] : SV_TessFactor; float n : SV_InsideTessFactor; };\n"
      "PC pc() { PC o = (PC)0; return o; }\n")                  # a hull shader's attributes go on line 4
HS = ('[domain("{d}")][partitioning("integer")][outputtopology("triangle_cw")][outputcontrolpoints({n})]'
      '[patchconstantfunc("pc")]\nCP main(InputPatch<CP, 3> ip) {{ return ip[0]; }}\n')
GS_V = "struct V { float4 p : SV_Position; };\n"
MS_V = "struct V { float4 p : SV_Position; };\n[outputtopology(\"triangle\")][numthreads(1,1,1)]\n"
RT = "RaytracingAccelerationStructure a;\nstruct P { float x; };\n"

# The names of DXC's diagnostics containing `hlsl` in the .td snapshot above (Sema, then Parse).
TD_NAMES = (
    'note_hlsl_entry_defined_here', 'warn_hlsl_uninit_out_param', 'warn_hlsl_sometimes_uninit_out_param',
    'warn_hlsl_groupshared_202x', 'warn_hlsl_groupshared_inout', 'err_hlsl_array_element_index_out_of_bounds',
    'err_hlsl_attribute_expects_string_literal', 'err_hlsl_attribute_expects_string_literal_from_list',
    'err_hlsl_attribute_unsupported_stage', 'err_hlsl_attribute_in_wrong_shader_model',
    'err_hlsl_conflicting_shader_attribute', 'note_hlsl_shader_attribute_here',
    'err_hlsl_profile_conflicts_with_shader_attribute', 'err_hlsl_attribute_valid_on_function_only',
    'err_hlsl_wavesize_size', 'err_hlsl_wavesize_min_geq_max', 'warn_hlsl_wavesize_min_eq_max',
    'err_hlsl_wavesize_pref_size_out_of_range', 'err_hlsl_wavesize_insufficient_shader_model', 'err_hlsl_bitfields',
    'err_hlsl_bitfields_with_annotation', 'err_hlsl_cannot_convert', 'err_hlsl_half_load_store',
    'err_hlsl_interfaces_cannot_inherit', 'err_hlsl_invalid_range_1_to_max', 'err_hlsl_matrix_member_bad_format',
    'err_hlsl_matrix_member_empty', 'err_hlsl_matrix_member_four_in_zero_based',
    'err_hlsl_matrix_member_mixing_refs', 'err_hlsl_matrix_member_out_of_bounds',
    'err_hlsl_matrix_row_index_out_of_bounds', 'err_hlsl_matrix_member_too_many_positions',
    'err_hlsl_matrix_member_zero_in_one_based', 'err_hlsl_overloading_operator_disallowed',
    'err_hlsl_unsupported_conversion_operator', 'err_hlsl_vector_member_bad_format', 'err_hlsl_vector_member_empty',
    'err_hlsl_vector_member_out_of_bounds', 'err_hlsl_vector_element_index_out_of_bounds',
    'err_hlsl_vector_member_too_many_positions', 'err_hlsl_vector_member_on_long_vector',
    'err_hlsl_missing_type_specifier', 'err_hlsl_multiple_concrete_bases', 'err_hlsl_packoffset_requires_cbuffer',
    'warn_hlsl_packoffset_mix', 'err_hlsl_packoffset_overlap', 'err_hlsl_register_semantics_conflicting',
    'err_hlsl_register_or_offset_bind_not_valid', 'err_hlsl_requires_bool_for_not', 'err_hlsl_requires_int_or_uint',
    'err_hlsl_requires_numeric', 'err_hlsl_requires_non_aggregate', 'err_hlsl_require_numeric_base_for_ctor',
    'err_hlsl_sizeof_literal', 'err_hlsl_sizeof_nonnumeric',
    'err_hlsl_typecheck_duplicate_matrix_components_not_mlvalue', 'err_hlsl_typecheck_subscript_value',
    'err_hlsl_typeintemplateargument', 'err_hlsl_typeintemplateargument_requires_scalar',
    'err_hlsl_typeintemplateargument_requires_struct', 'err_hlsl_type_mismatch',
    'err_hlsl_unsupported_array_equality_op', 'err_hlsl_unsupported_incomplete_array',
    'err_hlsl_unsupported_bool_lvalue_op', 'err_hlsl_unsupported_lvalue_cast_op',
    'err_hlsl_unsupported_buffer_packoffset', 'err_hlsl_unsupported_buffer_slot_target_specific',
    'err_hlsl_unsupported_typedbuffer_template_parameter',
    'err_hlsl_unsupported_typedbuffer_template_parameter_size', 'err_hlsl_unsupported_payload_access_qualifier',
    'err_hlsl_unsupported_payload_access_qualifier_struct', 'err_hlsl_payload_access_qualifier_unsupported_shader',
    'err_hlsl_payload_access_qualifier_invalid_combination', 'err_hlsl_payload_access_qualifier_multiple_defined',
    'warn_hlsl_payload_access_data_loss', 'warn_hlsl_payload_access_undef_read',
    'warn_hlsl_payload_access_write_loss', 'warn_hlsl_payload_access_no_write_for_trace_payload',
    'warn_hlsl_payload_access_write_but_no_write_for_trace_payload',
    'warn_hlsl_payload_access_read_of_undef_after_trace', 'warn_hlsl_payload_access_read_but_no_read_after_trace',
    'warn_hlsl_payload_qualifer_dropped', 'warn_hlsl_rayquery_flags_disallowed', 'warn_hlsl_rayquery_flags_conflict',
    'err_hlsl_unsupported_builtin_op', 'warn_hlsl_builtin_constant_unavailable',
    'warn_hlsl_builtin_type_unavailable', 'err_hlsl_unsupported_char_literal',
    'err_hlsl_unsupported_clipplane_argument_expression',
    'err_hlsl_unsupported_clipplane_argument_subscript_expression', 'err_hlsl_unsupported_clipplane_argument_type',
    'err_hlsl_unsupported_div_minint', 'err_hlsl_unsupported_mod_double', 'err_hlsl_unsupported_nested_struct',
    'err_hlsl_unsupported_nested_typedef', 'err_hlsl_unsupported_operator', 'err_hlsl_unsupported_string_literal',
    'err_hlsl_unsupported_struct_op', 'err_hlsl_unsupported_subscript_base_rhs', 'err_hlsl_unsupported_type_nesting',
    'err_hlsl_unsupported_type_trait', 'err_hlsl_unsupported_longlong', 'err_hlsl_varmodifierna',
    'err_hlsl_varmodifierna_decltype', 'note_hlsl_coherence_applies_to', 'warn_hlsl_gc_implies_rc_attribute',
    'err_hlsl_varmodifiersna', 'err_hlsl_vla', 'err_hlsl_type_empty_init', 'err_hlsl_control_flow_cond_not_scalar',
    'err_hlsl_unsupportedvectortype', 'err_hlsl_unsupportedmatrixsize', 'err_hlsl_norm_float_only',
    'err_hlsl_unsupported_conditional_syntax', 'err_hlsl_conditional_cond_typecheck',
    'err_hlsl_conditional_result_typecheck', 'err_hlsl_conditional_dimensions',
    'err_hlsl_conditional_result_dimensions', 'err_hlsl_conditional_result_comptype_mismatch',
    'warn_hlsl_attribute_expects_uint_literal', 'warn_hlsl_entry_attribute_without_shader_attribute',
    'err_hlsl_attribute_expects_float_literal', 'warn_hlsl_comma_in_init', 'warn_hlsl_incorrect_bind_semantic',
    'err_hlsl_incorrect_bind_semantic', 'warn_hlsl_semantic_attribute_position_misuse_hint',
    'warn_hlsl_unary_negate_unsigned', 'warn_hlsl_impcast_coherence_mismatch', 'warn_hlsl_glc_implies_rdc',
    'warn_hlsl_narrowing', 'warn_hlsl_sema_minprecision_promotion', 'warn_hlsl_ambiguous_literal_shift',
    'warn_hlsl_implicit_vector_truncation', 'err_hlsl_nointerpolation_and_linear',
    'err_hlsl_parameter_requires_attribute', 'warn_hlsl_duplicate_specifier', 'err_hlsl_duplicate_parameter_usages',
    'err_hlsl_invalid_resource_type_on_intrinsic', 'err_hlsl_usage_not_on_parameter', 'warn_hlsl_for_redefinition',
    'warn_hlsl_for_redefinition_different_type', 'warn_hlsl_specifier_overridden', 'warn_hlsl_packoffset_overridden',
    'warn_hlsl_unsupported_statement_for_if_switch_attribute',
    'warn_hlsl_unsupported_statement_for_switch_attribute', 'warn_hlsl_unsupported_statement_for_loop_attribute',
    'err_hlsl_matrix_layout_wrong_type', 'warn_hlsl_effect_object', 'warn_hlsl_unused_call',
    'err_hlsl_object_not_global', 'err_hlsl_object_extern_not_supported', 'err_hlsl_object_missing_initializer',
    'err_hlsl_func_in_func_decl', 'err_hlsl_unsupported_keyword_for_version',
    'err_hlsl_unsupported_for_version_lower', 'err_hlsl_unsupported_keyword_for_min_precision',
    'warn_hlsl_derivatives_in_wrong_shader_kind', 'warn_hlsl_derivatives_in_wrong_shader_model',
    'warn_hlsl_derivatives_wrong_numthreads', 'warn_hlsl_intrinsic_in_wrong_shader_model',
    'warn_hlsl_intrinsic_overload_in_wrong_shader_model', 'err_hlsl_intrinsic_template_arg_unsupported',
    'err_hlsl_intrinsic_template_arg_requires_2018', 'err_hlsl_intrinsic_template_arg_numeric',
    'err_hlsl_no_struct_user_defined_type', 'err_hlsl_ray_desc_required', 'err_hlsl_missing_attr',
    'err_hlsl_missing_inout_attr', 'err_hlsl_unsupported_string_decl', 'err_hlsl_missing_out_attr',
    'err_hlsl_missing_in_attr', 'err_hlsl_load_from_mesh_out_arrays', 'err_hlsl_out_indices_array_incorrect_access',
    'err_hlsl_unsupported_long_vector', 'err_hlsl_unsupported_object_context', 'err_hlsl_logical_binop_scalar',
    'err_hlsl_ternary_scalar', 'err_hlsl_no_recursion', 'note_hlsl_no_recursion',
    'err_hlsl_missing_patch_constant_function', 'err_hlsl_patch_reachability_not_allowed',
    'err_hlsl_patch_size_mismatch', 'warn_hlsl_structurize_exits_lifetime_markers_conflict',
    'err_hlsl_wg_intrinsic_launch_type', 'err_hlsl_wg_thread_launch_group_size', 'warn_hlsl_numthreads_group_size',
    'err_hlsl_wg_nodetrackrwinputsharing_missing', 'err_hlsl_wg_nodetrackrwinputsharing_invalid',
    'err_hlsl_wg_input_kind', 'err_hlsl_wg_attr_only_on_output', 'err_hlsl_wg_attr_only_on_output_or_input_record',
    'err_hlsl_wg_nodearraysize_conflict_unbounded', 'err_hlsl_wg_attr_only_on_output_array',
    'err_hlsl_wg_attr_only_on_node', 'err_hlsl_zero_sized_record', 'err_hlsl_rwnodeinputrecord_sv_dispatch',
    'err_hlsl_maxarraysize_template_arg', 'err_hlsl_maxrecord_attrs_on_same_arg',
    'err_hlsl_maxrecordssharedwith_references_invalid_arg', 'err_hlsl_maxrecordssharedwith_references_itself',
    'err_hlsl_maxrecord_on_wrong_launch', 'err_hlsl_dispatchgrid_component', 'err_hlsl_dispatchgrid_product',
    'err_hlsl_compute_launch_compatibility', 'err_hlsl_compute_io_compatibility', 'err_hlsl_launch_type_attr',
    'err_hlsl_incompatible_node_attr', 'err_hlsl_missing_node_attr', 'err_hlsl_missing_dispatchgrid_attr',
    'err_hlsl_missing_dispatchgrid_semantic', 'err_hlsl_dispatchgrid_semantic_already_specified',
    'err_hlsl_incompatible_dispatchgrid_semantic_type', 'err_hlsl_maxrecursiondepth_exceeded',
    'err_hlsl_too_many_node_inputs', 'err_hlsl_node_record_type', 'err_hlsl_array_disallowed',
    'err_hlsl_inputpatch_size', 'err_hlsl_outputpatch_size', 'note_hlsl_node_array', 'err_hlsl_controlpoints_size',
    'err_hlsl_barrier_invalid_memory_flags', 'err_hlsl_barrier_invalid_semantic_flags',
    'warn_hlsl_barrier_group_memory_requires_group', 'warn_hlsl_barrier_node_memory_requires_node',
    'warn_hlsl_barrier_group_semantic_requires_group', 'warn_hlsl_barrier_no_mem_with_required_group_scope',
    'warn_hlsl_barrier_no_mem_with_required_device_scope', 'warn_hlsl_legacy_integer_literal_signedness',
    'err_hlsl_unsupported_semantic_index', 'err_hlsl_reorder_unsupported_stage',
    'err_hlsl_hitobject_unsupported_stage', 'err_hlsl_linalg_isunsigned_incorrect_for_given_type',
    'err_hlsl_linalg_interpretation_value_incorrect', 'err_hlsl_linalg_matrix_layout_is_not_transposable',
    'err_hlsl_linalg_optimal_matrix_layout_matrix_stride_must_be_zero',
    'err_hlsl_linalg_matrix_dim_must_be_greater_than_zero', 'err_hlsl_linalg_matrix_layout_invalid',
    'err_hlsl_linalg_matrix_attribute_arg_not_int_or_enum',
    'err_hlsl_linalg_matrix_attribute_arg_not_constant_value', 'err_hlsl_linalg_matrix_invalid_enum_attribute_value',
    'err_hlsl_linalg_matrix_attribute_on_invalid_type', 'err_hlsl_linalg_attributed_matrix_required',
    'err_hlsl_linalg_unsupported_stage', 'err_hlsl_pointers_unsupported', 'err_hlsl_auto_descriptor_heap',
    'err_hlsl_auto_undeducible_type', 'err_hlsl_vulkan_specific_feature', 'err_hlsl_vk_pointer_cast_alignment',
    'err_hlsl_vk_static_pointer_cast_type', 'err_hlsl_compat_generalized_initializer_lists', 'err_hlsl_unknown',
    'err_hlsl_incompatible_option', 'err_hlsl_bool_redeclaration', 'err_hlsl_rootsig', 'err_hlsl_expected_space',
    'err_hlsl_reserved_keyword', 'err_hlsl_packoffset_requires_c_register', 'err_hlsl_unsupported_attributes',
    'err_hlsl_unsupported_construct', 'err_hlsl_unsupported_member_default',
    'err_hlsl_unsupported_packoffset_component', 'err_hlsl_unsupported_register_number',
    'err_hlsl_unsupported_register_noninteger', 'err_hlsl_unsupported_register_type',
    'err_hlsl_unsupported_space_number', 'err_hlsl_modifier_after_type', 'err_hlsl_nested_namespace_definition',
    'warn_hlsl_minprecision_promotion', 'warn_hlsl_effect_annotation', 'warn_hlsl_effect_sampler_state',
    'warn_hlsl_effect_state_block', 'warn_hlsl_effect_technique', 'warn_hlsl_semantic_identifier_collision',
    'err_hlsl_expected_hlsl_attribute', 'err_hlsl_enum', 'warn_hlsl_new_feature',)

# diagnostic -> (program, profile, "line:col" of our error, a phrase of its message[, compile options])
REJECTED: dict[str, tuple] = {
    "err_hlsl_interfaces_cannot_inherit": ("interface I1 { float f(); };\ninterface I2 : I1 { float g(); };\n" + PS + E,
                                           "ps_6_0", "2:16", "interfaces cannot inherit from other types"),
    "err_hlsl_array_element_index_out_of_bounds": (PS + "    float a[2] = {1, 2};\n    return a[2];\n}\n", "ps_6_0",
                                                   "3:14", "index 2 is out of bounds"),
    "err_hlsl_attribute_expects_string_literal": (PC + HS.format(d="tri", n=3).replace('"tri"', "3"), "hs_6_0",
                                                  "4:9", "[domain] takes a string"),
    "err_hlsl_attribute_expects_string_literal_from_list": (PC + HS.format(d="hex", n=3), "hs_6_0", "4:9",
                                                            "expected one of 'tri', 'quad', 'isoline'"),
    "err_hlsl_attribute_unsupported_stage": ("[WaveSize(32)]\n" + PS + E, "ps_6_6", "1:2",
                                             "attribute WaveSize only allowed on compute or node shaders"),
    "err_hlsl_attribute_in_wrong_shader_model": ("[WaveSize(32)]\n" + CS, "cs_6_5", "1:2",
                                                 "attribute wavesize requires shader model 6.6 or greater"),
    "err_hlsl_attribute_valid_on_function_only": ("[numthreads(1,1,1)] float g;\n" + CS, "cs_6_0", "1:2",
                                                  "attribute is valid only on functions"),
    "err_hlsl_wavesize_size": ("[WaveSize(24)]\n" + CS, "cs_6_6", "1:2",
                               "WaveSize arguments must be between 4 and 128 and a power of 2"),
    "err_hlsl_wavesize_min_geq_max": ("[WaveSize(64, 32)]\n" + CS, "cs_6_8", "1:2",
                                      "Minimum WaveSize value 64 must be less than maximum WaveSize value 32"),
    # a warning DXC makes an error by default (DefaultError)
    "warn_hlsl_wavesize_min_eq_max": ("[WaveSize(32, 32)]\n" + CS, "cs_6_8", "1:2",
                                      "Wave Size Range minimum and maximum are equal"),
    "err_hlsl_wavesize_pref_size_out_of_range": ("[WaveSize(16, 32, 64)]\n" + CS, "cs_6_8", "1:2",
                                                 "Preferred WaveSize value 64 must be between 16 and 32"),
    "err_hlsl_wavesize_insufficient_shader_model": ("[WaveSize(16, 32)]\n" + CS, "cs_6_7", "1:2",
                                                    "WaveSize only takes multiple arguments in Shader Model 6.8"),
    "err_hlsl_bitfields_with_annotation": ("struct S { uint a : 3 : A; };\n" + PS + E, "ps_6_0", "1:17",
                                           "bitfields are not allowed with HLSL annotations"),
    "err_hlsl_cannot_convert": ("void f(out float2 x) { x = 0; }\n" + PS + "    float3 v; f(v);\n" + E, "ps_6_0",
                                "3:15", "cannot convert from 'float2' to 'float3'"),
    "err_hlsl_matrix_member_bad_format": (PS + "    float2x2 m = 0; float x = m._m0;\n" + E, "ps_6_0", "2:33",
                                          "invalid matrix swizzle '_m0'"),
    "err_hlsl_matrix_member_empty": (PS + "    float2x2 m = 0; float x = m._;\n" + E, "ps_6_0", "2:33",
                                     "invalid matrix swizzle '_'"),
    "err_hlsl_matrix_member_four_in_zero_based": (PS + "    float2x2 m = 0; float x = m._m04;\n" + E, "ps_6_0",
                                                  "2:33", "invalid matrix swizzle '_m04'"),
    "err_hlsl_matrix_member_mixing_refs": (PS + "    float2x2 m = 0; float2 x = m._m00_11;\n" + E, "ps_6_0",
                                           "2:34", "invalid matrix swizzle '_m00_11'"),
    "err_hlsl_matrix_member_out_of_bounds": (PS + "    float2x2 m = 0; float x = m._m22;\n" + E, "ps_6_0", "2:33",
                                             "matrix swizzle '_m22' is out of bounds"),
    "err_hlsl_matrix_row_index_out_of_bounds": (PS + "    float2x2 m = 0; float2 x = m[2];\n" + E, "ps_6_0",
                                                "2:34", "index 2 is out of bounds for type 'float2x2'"),
    "err_hlsl_matrix_member_too_many_positions": (PS + "    float2x2 m = 0; float4 x = m._11_12_21_22_11;\n" + E,
                                                  "ps_6_0", "2:34", "has too many components"),
    "err_hlsl_matrix_member_zero_in_one_based": (PS + "    float2x2 m = 0; float x = m._10;\n" + E, "ps_6_0",
                                                 "2:33", "invalid matrix swizzle '_10'"),
    "err_hlsl_overloading_operator_disallowed": ("struct S { float a; void operator=(S o) { a = o.a; } };\n"
                                                 + PS + E, "ps_6_0", "1:34", "overloading 'operator=' is not allowed"),
    "err_hlsl_unsupported_conversion_operator": ("struct S { float a; operator float() { return a; } };\n" + PS + E,
                                                 "ps_6_0", "1:21", "conversion operator overloading is not allowed"),
    "err_hlsl_vector_member_bad_format": (PS + "    float x = p.xr;\n" + E, "ps_6_0", "2:17",
                                          "invalid swizzle 'xr'"),
    "err_hlsl_vector_member_empty": (PS + "    float x = p._;\n" + E, "ps_6_0", "2:17", "invalid swizzle '_'"),
    "err_hlsl_vector_member_out_of_bounds": (PS + "    float2 v = 0; float x = v.z;\n" + E, "ps_6_0", "2:31",
                                             "vector swizzle 'z' is out of bounds"),
    "err_hlsl_vector_element_index_out_of_bounds": (PS + "    float2 v = 0; float x = v[2];\n" + E, "ps_6_0", "2:31",
                                                    "index 2 is out of bounds for type 'float2'"),
    "err_hlsl_vector_member_too_many_positions": (PS + "    float4 x = p.xyzwx;\n" + E, "ps_6_0", "2:18",
                                                  "invalid swizzle 'xyzwx'"),
    "err_hlsl_missing_type_specifier": ("const g = 1;\n" + PS + E, "ps_6_0", "1:7", "expected a type"),
    "err_hlsl_multiple_concrete_bases": ("struct A { float a; };\nstruct B { float b; };\nstruct C : A, B { float c; };\n"
                                         + PS + E, "ps_6_0", "3:13", "expected '{' to begin the struct body"),
    "err_hlsl_packoffset_overlap": ("cbuffer C { float4 a : packoffset(c0); float b : packoffset(c0.y); };\n" + PS + E,
                                    "ps_6_0", "1:50", "'b' overlaps 'a' in 'C'"),
    "err_hlsl_register_semantics_conflicting": ("Texture2D t : register(t0) : register(t1);\n" + PS + E, "ps_6_0",
                                                "1:30", "conflicting register semantics"),
    "err_hlsl_register_or_offset_bind_not_valid": ("float3 g : register(c0.z);\n" + PS + E, "ps_6_0", "1:23",
                                                   "expected ')'"),
    "err_hlsl_requires_bool_for_not": ("struct S { float a; };\n" + PS + "    S s = (S)0; bool b = !s;\n" + E, "ps_6_0",
                                       "3:26", "invalid argument type 'S' to unary operator '!'"),
    "err_hlsl_requires_int_or_uint": (PS + "    float y = p.x & 1;\n" + E, "ps_6_0", "2:19",
                                      "bitwise operators require integer operands"),
    "err_hlsl_requires_numeric": ("Texture2D t;\n" + PS + "    float x = t + 1;\n" + E, "ps_6_0", "3:17",
                                  "invalid operands to binary expression ('Texture2D<float4>' and 'int')"),
    "err_hlsl_requires_non_aggregate": ("struct S { float a; };\n" + PS + "    S s = (S)0; float x = abs(s);\n" + E,
                                        "ps_6_0", "3:27", "invalid argument of type 'S' to intrinsic 'abs'"),
    "err_hlsl_require_numeric_base_for_ctor": ("struct S { float a; };\n" + PS + "    S s(1);\n" + E, "ps_6_0", "3:8",
                                               "expected ';' after declaration"),
    "err_hlsl_sizeof_literal": (PS + "    uint s = sizeof(1);\n" + E, "ps_6_0", "2:14",
                                "invalid application of 'sizeof' to literal type 'literal int'"),
    "err_hlsl_sizeof_nonnumeric": ("Texture2D t;\n" + PS + "    uint s = sizeof(t);\n" + E, "ps_6_0", "3:14",
                                   "invalid application of 'sizeof' to type 'Texture2D<float4>'"),
    "err_hlsl_typecheck_duplicate_matrix_components_not_mlvalue": (PS + "    float2x2 m = 0; m._11_11 = float2(1, 2);\n"
                                                                   + E, "ps_6_0", "2:23",
                                                                   "has duplicate components and cannot be assigned"),
    "err_hlsl_typecheck_subscript_value": (PS + "    float x = 1; float y = x[0];\n" + E, "ps_6_0", "2:29",
                                           "subscripted value of type 'float' is not an array, vector or matrix"),
    "err_hlsl_typeintemplateargument": ("StructuredBuffer<Texture2D> b;\n" + PS + E, "ps_6_0", "1:18",
                                        "is not a valid element type for 'StructuredBuffer'"),
    "err_hlsl_typeintemplateargument_requires_scalar": ("vector<float2, 2> v;\n" + PS + E, "ps_6_0", "1:8",
                                                        "expected a scalar type, not 'float2'"),
    "err_hlsl_typeintemplateargument_requires_struct": ("ConstantBuffer<float4> c;\n" + PS + E, "ps_6_0", "1:24",
                                                        "'ConstantBuffer' requires a struct template argument"),
    "err_hlsl_type_mismatch": (PS + "    float a[2] = {1, 2}; float b[3] = {1, 2, 3}; a = b;\n" + E, "ps_6_0", "2:54",
                               "cannot convert from 'float[3]' to 'float[2]'"),
    "err_hlsl_unsupported_array_equality_op": (PS + "    float a[2] = {1, 2}; bool e = a == a;\n" + E, "ps_6_0",
                                               "2:37", "invalid operands to binary expression ('float[2]'"),
    "err_hlsl_unsupported_incomplete_array": ("struct S { float a[]; };\n" + PS + E, "ps_6_0", "1:18",
                                              "field 'a' has an unsized array type"),
    "err_hlsl_unsupported_bool_lvalue_op": (PS + "    bool b = true; b++;\n" + E, "ps_6_0", "2:21",
                                            "operator cannot be used with a bool lvalue"),
    "err_hlsl_unsupported_lvalue_cast_op": ("void f(inout float2 x) { x = 0; }\n" + PS + "    f((float2)p);\n" + E,
                                            "ps_6_0", "3:7", "cannot bind non-lvalue argument to inout parameter"),
    "err_hlsl_unsupported_buffer_packoffset": ("cbuffer C : packoffset(c0) { float a; };\n" + PS + E, "ps_6_0", "1:13",
                                               "expected 'register' after ':' in a cbuffer declaration"),
    "err_hlsl_unsupported_typedbuffer_template_parameter": ("struct S { float a; };\nBuffer<S> b;\n" + PS + E,
                                                            "ps_6_0", "2:8", "'S' is not a valid element type"),
    "err_hlsl_unsupported_builtin_op": ("Texture2D t;\n" + PS + "    bool e = t == t;\n" + E, "ps_6_0", "3:16",
                                        "invalid operands to binary expression ('Texture2D<float4>'"),
    "err_hlsl_unsupported_char_literal": (PS + "    int c = 'ab';\n" + E, "ps_6_0", "2:13",
                                          "unsupported style of char literal - use a single-character char-based "
                                          "literal"),
    "err_hlsl_unsupported_div_minint": (PS + "    min16int a = i, b = 3;\n    min16int c = a / b;\n" + E, "ps_6_0", "3:20",
                                        "signed integer division is not supported on minimum-precision types, cast "
                                        "to int to use 32-bit division"),
    # HLSL 2021 (and 2018) types `?:` with DXC's CheckVectorConditional (SemaExpr.cpp: before 202x, C++'s
    # rules are not used): numeric operands only, shapes combined as for `+`
    "err_hlsl_conditional_result_typecheck": ("struct S { float a; };\n" + PS + "    S s = (S)0, t = (S)1;\n"
                                              "    S u = i ? s : t;\n" + E, "ps_6_0", "4:13",
                                              "conditional operator only supports results with numeric scalar, "
                                              "vector, or matrix types."),
    "err_hlsl_conditional_result_dimensions": (PS + "    float3 x = i ? float2x2(p) : p.xyz;\n" + E, "ps_6_0", "2:18",
                                               "conditional operator result dimensions mismatch."),
    # a vector condition: HLSL 2018 and earlier
    "err_hlsl_conditional_dimensions": (PS + "    float2 x = (p.xyz > 0) ? p.xy : p.zw;\n" + E, "ps_6_0", "2:28",
                                        "conditional operator condition and result dimensions mismatch.",
                                        {"hlsl_version": 2018}),
    "err_hlsl_unsupported_mod_double": (PS + "    double a = p.x; double c = a % 2.0;\n" + E, "ps_6_0", "2:34",
                                        "modulo cannot be used with doubles, cast to float first"),
    "err_hlsl_unsupported_nested_typedef": ("struct S { typedef float F; };\n" + PS + E, "ps_6_0", "1:12",
                                            "nested typedefs are not supported in HLSL"),
    "err_hlsl_unsupported_operator": (PS + "    float x = *p;\n" + E, "ps_6_0", "2:15", "expected an expression"),
    "err_hlsl_unsupported_struct_op": ("struct S { float a; };\n" + PS + "    S s = (S)0; S t = s * s;\n" + E, "ps_6_0",
                                       "3:25", "invalid operands to binary expression ('S' and 'S')"),
    "err_hlsl_unsupported_subscript_base_rhs": (PS + "    float a[2] = {1, 2}; float x = 0[a];\n" + E, "ps_6_0",
                                                "2:38", "array subscript is not an integer"),
    # named in the .td but used nowhere in DXC's sources: the program is refused by another of its
    # diagnostics (a parse error, a reserved keyword); ours is asserted
    "err_hlsl_unsupported_type_trait": (PS + "    bool b = __is_pod(float);\n" + E, "ps_6_0", "2:28",
                                        "expected '(' after type name 'float'"),
    # named in the .td but used nowhere in DXC's sources: the program is refused by another of its
    # diagnostics (a parse error, a reserved keyword); ours is asserted
    "err_hlsl_unsupported_longlong": (PS + "    long long x = 1;\n" + E, "ps_6_0", "2:5",
                                      "'long' is a reserved keyword in HLSL"),
    "err_hlsl_varmodifierna": ("struct S { in float a; };\n" + PS + E, "ps_6_0", "1:21",
                               "HLSL usage 'in' is only valid on a parameter"),
    "err_hlsl_varmodifierna_decltype": ("nointerpolation Texture2D t;\n" + PS + E, "ps_6_0", "1:27",
                                        "'nointerpolation' is not a valid modifier for a global variable"),
    "err_hlsl_varmodifiersna": ("float4 main(nointerpolation linear float4 p : A) : SV_Target { return p; }\n", "ps_6_0",
                                "1:43", "'nointerpolation' and 'linear' cannot be used together for a parameter"),
    "err_hlsl_vla": (PS + "    float a[i];\n" + E, "ps_6_0", "2:13", "expression is not an integer constant"),
    "err_hlsl_type_empty_init": (PS + "    float x = {};\n" + E, "ps_6_0", "2:15",
                                 "too few elements in initializer for type 'float'"),
    "err_hlsl_control_flow_cond_not_scalar": (PS + "    if (p) return 1;\n" + E, "ps_6_0", "2:9",
                                              "condition must be a scalar, not 'float4'"),
    "err_hlsl_unsupportedvectortype": ("struct S { float a; };\nvector<S, 2> v;\n" + PS + E, "ps_6_0", "2:8",
                                       "expected a scalar type, not 'S'"),
    "err_hlsl_unsupportedmatrixsize": ("matrix<float, 5, 2> m;\n" + PS + E, "ps_6_0", "1:1",
                                       "matrix dimensions must be between 1 and 4"),
    "err_hlsl_norm_float_only": ("unorm int g;\n" + PS + E, "ps_6_0", "1:11",
                                 "snorm and unorm qualifier can only be used on floating-point types"),
    # named in the .td but used nowhere in DXC's sources: the program is refused by another of its
    # diagnostics (a parse error, a reserved keyword); ours is asserted
    "err_hlsl_unsupported_conditional_syntax": (PS + "    float x = p.x ?: 1;\n" + E, "ps_6_0", "2:20",
                                                "expected an expression"),
    "err_hlsl_conditional_cond_typecheck": ("struct S { float a; };\n" + PS + "    S s = (S)0; float x = s ? 1 : 2;\n" + E,
                                            "ps_6_0", "3:27", "condition for short-circuiting ternary operator"),
    "err_hlsl_ternary_scalar": (PS + "    float2 x = (p.xy > 0) ? p.xy : p.zw;\n" + E, "ps_6_0", "2:22",
                                "condition for short-circuiting ternary operator must be scalar, for non-scalar types "
                                "use 'select'"),
    "err_hlsl_attribute_expects_float_literal": (PC + '[maxtessfactor("x")]' + HS.format(d="tri", n=3), "hs_6_0",
                                                 "4:16", "[maxtessfactor] takes a numeric literal"),
    "err_hlsl_incorrect_bind_semantic": ("Texture2D t : register(b0);\n" + PS + E, "ps_6_0", "1:15",
                                         "invalid register class 'b' for shader resource view 't'"),
    "err_hlsl_invalid_resource_type_on_intrinsic": ("RWBuffer<float> b;\n" + PS + "    InterlockedAdd(b[0], 1);\n" + E,
                                                    "ps_6_0", "3:21", "requires an int or uint destination"),
    "err_hlsl_usage_not_on_parameter": ("out float g;\n" + PS + E, "ps_6_0", "1:11",
                                        "HLSL usage 'out' is only valid on a parameter"),
    "err_hlsl_matrix_layout_wrong_type": ("row_major float4 g;\n" + PS + E, "ps_6_0", "1:18",
                                          "'row_major' can only be used with a matrix type"),
    "err_hlsl_object_not_global": (PS + '    string s = "x";\n' + E, "ps_6_0", "2:5",
                                   "a string declaration may only appear at global scope"),
    "err_hlsl_func_in_func_decl": ("void f(void g()) {}\n" + PS + E, "ps_6_0", "1:14", "expected ')'"),
    "err_hlsl_unsupported_keyword_for_min_precision": (PS + "    float16_t h = 1;\n" + E, "ps_6_2", "2:5",
                                                       "'float16_t' requires -enable-16bit-types"),
    # DXC warns (derivatives, intrinsics "potentially used") and its DXIL validator then refuses the shader
    "warn_hlsl_derivatives_in_wrong_shader_kind": ("float4 main(float4 p : A) : SV_Position { return ddx(p); }\n",
                                                   "vs_6_0", "1:50", "intrinsic 'ddx' is not allowed in vertex shaders"),
    "warn_hlsl_derivatives_in_wrong_shader_model": ("RWBuffer<float> b;\n[numthreads(4,1,1)] void main(uint t : "
                                                    "SV_DispatchThreadID) { b[t] = ddx((float)t); }\n", "cs_6_5", "2:70",
                                                    "compute shaders allow from shader model 6.6"),
    "warn_hlsl_derivatives_wrong_numthreads": ("RWBuffer<float> b;\n[numthreads(3,1,1)] void main(uint t : "
                                               "SV_DispatchThreadID) { b[t] = ddx((float)t); }\n", "cs_6_6", "2:2",
                                               "derivatives need [numthreads] to be 1D and a multiple of 4"),
    "warn_hlsl_intrinsic_in_wrong_shader_model": (PS + "    uint4 m = WaveMatch(p.x);\n" + E, "ps_6_0", "2:15",
                                                  "intrinsic 'WaveMatch' requires shader model 6.5"),
    "warn_hlsl_intrinsic_overload_in_wrong_shader_model": ("RWByteAddressBuffer b;\n[numthreads(1,1,1)] void main() "
                                                           "{ uint64_t o; b.InterlockedAdd64(0, 1, o); }\n", "cs_6_5",
                                                           "2:49", "requires shader model 6.6"),
    "warn_hlsl_numthreads_group_size": ("[numthreads(64,32,1)] void main() {}\n", "cs_6_0", "1:2",
                                        "numthreads total exceeds 1024 threads per group"),
    "warn_hlsl_builtin_type_unavailable": (PS + "    RayQuery<0> q;\n" + E, "ps_6_4", "2:5",
                                           "'RayQuery' requires shader model 6.5"),
    "err_hlsl_intrinsic_template_arg_unsupported": ("Texture2D t;\nSamplerState s;\n" + PS
                                                    + "    float4 x = t.Sample<float4>(s, p.xy);\n" + E, "ps_6_0",
                                                    "4:18", "Explicit template arguments on intrinsic Sample are "
                                                    "not supported"),
    "err_hlsl_intrinsic_template_arg_numeric": ("ByteAddressBuffer b;\n" + PS + "    float x = b.Load<Texture2D>(0);\n"
                                                + E, "ps_6_2", "3:17", "supports 32-bit scalar, vector and matrix"),
    "err_hlsl_no_struct_user_defined_type": (RT + '[shader("raygeneration")] void main() { RayDesc r = (RayDesc)0; '
                                             'float p = 0; TraceRay(a, 0, 0, 0, 0, 0, r, p); }\n', "lib_6_3", "3:108",
                                             "the payload argument of 'TraceRay' must be a user-defined struct"),
    "err_hlsl_ray_desc_required": (RT + '[shader("raygeneration")] void main() { P p; float4 r = 0; '
                                   "TraceRay(a, 0, 0, 0, 0, 0, r, p); }\n", "lib_6_3", "3:87",
                                   "the ray argument of 'TraceRay' must be a RayDesc"),
    "err_hlsl_missing_attr": ("void main() {}\n", "cs_6_0", "1:6",
                              "compute entry point 'main' requires the [numthreads(x, y, z)] attribute"),
    "err_hlsl_missing_inout_attr": (GS_V + "[maxvertexcount(1)] void main(point V v[1], PointStream<V> s) "
                                    "{ s.Append(v[0]); }\n", "gs_6_0", "2:60", "must be declared 'inout'"),
    "err_hlsl_unsupported_string_decl": ("string s[2];\n" + PS + E, "ps_6_0", "1:8",
                                         "array of type string is not supported"),
    "err_hlsl_missing_out_attr": (MS_V + "void main(vertices V v[3], out indices uint3 t[1]) { SetMeshOutputCounts(0, 0); }\n",
                                  "ms_6_5", "3:22", "a 'vertices' parameter must be declared 'out vertices'"),
    "err_hlsl_load_from_mesh_out_arrays": (MS_V + "void main(out vertices V v[3], out indices uint3 t[1]) "
                                           "{ SetMeshOutputCounts(3, 1); v[0].p = 0; v[1] = v[0]; }\n", "ms_6_5", "3:104",
                                           "mesh shader output 'v' can only be written"),
    "err_hlsl_out_indices_array_incorrect_access": (MS_V + "void main(out vertices V v[3], out indices uint3 t[1]) "
                                                    "{ SetMeshOutputCounts(3, 1); t[0].x = 1; }\n", "ms_6_5", "3:92",
                                                    "a vector in out indices array must be accessed as a whole"),
    "err_hlsl_unsupported_object_context": ("float4 main(Texture2D t : A) : SV_Target { return 0; }\n", "ps_6_0", "1:23",
                                            "object 'Texture2D<float4>' is not allowed in entry function parameters"),
    "err_hlsl_logical_binop_scalar": (PS + "    bool2 b = p.xy && p.zw;\n" + E, "ps_6_0", "2:20",
                                      "operands for short-circuiting logical binary operator must be scalar"),
    "err_hlsl_no_recursion": ("float f(float x) { return x > 0 ? f(x - 1) : 0; }\n" + PS + "    return f(p.x);\n}\n",
                              "ps_6_0", "1:35", "recursive call to function 'f' is not allowed"),
    "err_hlsl_missing_patch_constant_function": (PC + HS.format(d="tri", n=3).replace('"pc"', '"nope"'), "hs_6_0",
                                                 "4:115", "patch-constant function 'nope'"),
    "err_hlsl_patch_size_mismatch": (PC.replace("PC pc()", "PC pc(InputPatch<CP, 4> ip)") + HS.format(d="tri", n=3),
                                     "hs_6_0", "3:25", "InputPatch of 4 control points does not match"),
    "err_hlsl_array_disallowed": (GS_V + "[maxvertexcount(1)] void main(point V v[1], inout PointStream<V> s[2]) "
                                  "{ s[0].Append(v[0]); }\n", "gs_6_0", "2:66",
                                  "entry parameter of type 'PointStream<V>' may not be an array"),
    "err_hlsl_invalid_range_1_to_max": ("[maxvertexcount(0)] void main(point float4 v[1] : A, inout "
                                        "PointStream<float4> s) {}\n", "gs_6_0", "1:17",
                                        "maxvertexcount must be between 1 and 1024, not 0"),
    "err_hlsl_inputpatch_size": ("InputPatch<float4, 0> g;\n" + PS + E, "ps_6_0", "1:1",
                                 "'InputPatch' control-point count must be between 1 and 32, not 0"),
    "err_hlsl_outputpatch_size": (PC.replace("PC pc() { PC o = (PC)0; return o; }\n", "")
                                  + '[domain("tri")] float4 main(PC pc, const OutputPatch<CP, 0> op, float3 uvw : '
                                  "SV_DomainLocation) : SV_Position { return 0; }\n", "ds_6_0", "3:42",
                                  "'OutputPatch' control-point count must be between 1 and 32, not 0"),
    "err_hlsl_controlpoints_size": (PC + HS.format(d="tri", n=0), "hs_6_0", "4:93",
                                    "[outputcontrolpoints] must be between 1 and 32, not 0"),
    "err_hlsl_unsupported_semantic_index": ("float4 main(float4 p : A) : SV_Target8 { return p; }\n", "ps_6_0", "1:8",
                                            "'SV_Target8' is defined with semantic index 8, but only values 0 "
                                            "through 7 are supported"),
    "err_hlsl_pointers_unsupported": (PS + "    float x = 1; float& r = x;\n" + E, "ps_6_0", "2:23",
                                      "references are unsupported in HLSL"),
    "err_hlsl_compat_generalized_initializer_lists": (PS + "    float4 x = float4{1, 2, 3, 4};\n" + E, "ps_6_0", "2:22",
                                                      "generalized initializer lists are incompatible with HLSL"),
    "err_hlsl_bool_redeclaration": ("typedef int bool;\n" + PS + E, "ps_6_0", "1:13",
                                    "typedef redefinition with different types ('int' vs 'bool')"),
    "err_hlsl_rootsig": ('[RootSignature("Bogus")]\n' + PS + E, "ps_6_0", "1:17", "root signature: expected"),
    "err_hlsl_expected_space": ("Texture2D t : register(t0, sp1);\n" + PS + E, "ps_6_0", "1:28",
                                "invalid register space 'sp1'"),
    "err_hlsl_reserved_keyword": ("struct S { virtual float f() { return 1; } };\n" + PS + E, "ps_6_0", "1:12",
                                  "'virtual' is a reserved keyword in HLSL"),
    # named in the .td but used nowhere in DXC's sources: the program is refused by another of its
    # diagnostics (a parse error, a reserved keyword); ours is asserted
    "err_hlsl_packoffset_requires_c_register": ("cbuffer C { float a : packoffset(b0); };\n" + PS + E, "ps_6_0", "1:23",
                                                "packoffset must name a 'c' register, not 'b0'"),
    "err_hlsl_unsupported_attributes": ("__declspec(dllexport) float f() { return 1; }\n" + PS + E, "ps_6_0", "1:1",
                                        "'__declspec' is a reserved keyword in HLSL"),
    "err_hlsl_unsupported_packoffset_component": ("cbuffer C { float a : packoffset(c0.q); };\n" + PS + E, "ps_6_0",
                                                  "1:23", "invalid packoffset component '.q'"),
    "err_hlsl_unsupported_register_number": ("Texture2D t : register(tx);\n" + PS + E, "ps_6_0", "1:24",
                                             "invalid register 'tx'"),
    "err_hlsl_unsupported_register_noninteger": ("Texture2D t : register(t0[x]);\n" + PS + E, "ps_6_0", "1:27",
                                                 "register subcomponent is not an integral constant"),
    "err_hlsl_unsupported_register_type": ("Texture2D t : register(q0);\n" + PS + E, "ps_6_0", "1:15",
                                           "invalid register class 'q'"),
    "err_hlsl_unsupported_space_number": ("Texture2D t : register(t0, spacex);\n" + PS + E, "ps_6_0", "1:28",
                                          "invalid register space 'spacex'"),
    "err_hlsl_modifier_after_type": ("float uniform g;\n" + PS + E, "ps_6_0", "1:7", "modifiers must appear before type"),
    "err_hlsl_nested_namespace_definition": ("namespace A::B { float f() { return 1; } }\n" + PS + E, "ps_6_0", "1:12",
                                             "expected '{' to begin the namespace body"),
    "err_hlsl_expected_hlsl_attribute": ("float4 main(float4 p : A(1)) : SV_Target { return p; }\n", "ps_6_0", "1:25",
                                         "expected ')'"),
    "err_hlsl_unsupported_typedbuffer_template_parameter_size": ("Buffer<double4> b;\n" + PS + E, "ps_6_0", "1:8",
                                                                 "elements of typed buffers and textures must fit in "
                                                                 "four 32-bit quantities"),
    "err_hlsl_duplicate_parameter_usages": ("void f(out inout float x) { x = 1; }\n" + PS + E, "ps_6_0", "1:12",
                                            "duplicate HLSL parameter usages 'inout'"),
    "err_hlsl_object_extern_not_supported": ('extern string s = "x";\n' + PS + E, "ps_6_0", "1:15",
                                             "string cannot be declared with 'extern' storage specifier"),
    "err_hlsl_profile_conflicts_with_shader_attribute": ('[shader("pixel")] float4 main() : SV_Position { return 0; }\n',
                                                         "vs_6_0", "1:2", "entry type 'vertex' from profile 'vs_6_0' "
                                                         "conflicts with shader attribute type 'pixel' on entry "
                                                         "function 'main'."),
    "err_hlsl_patch_reachability_not_allowed": (PC.replace("PC pc()", "PC pc(InputPatch<CP, 3> ip)")
                                                + HS.format(d="tri", n=3).replace("{ return", "{ pc(ip); return"),
                                                "hs_6_0", "5:4", "patch constant function 'pc' should not be "
                                                "reachable from entry function 'main'"),
    "err_hlsl_unsupported_member_default": ("struct S { float a = 1; };\n" + PS + E, "ps_6_0", "1:20",
                                            "struct/class members cannot have default values"),
    "err_hlsl_parameter_requires_attribute": ("float4 main(float4 p : A) : SV_Target { return GetAttributeAtVertex(p, 0); "
                                              "}\n", "ps_6_1", "1:69", "'GetAttributeAtVertex' needs a nointerpolation "
                                              "input"),
    "err_hlsl_missing_in_attr": ("struct Pl { float x; };\n" + MS_V + "void main(payload Pl pl, out vertices V v[3], "
                                 "out indices uint3 t[1]) { SetMeshOutputCounts(0, 0); }\n", "ms_6_5", "4:22",
                                 "a 'payload' parameter must be declared 'in payload'"),
    "err_hlsl_unsupported_construct": ("void f(float x, ...) {}\n" + PS + E, "ps_6_0", "1:17", "found '...'"),
}

# diagnostic -> (program, profile, "line:col" of our warning, a phrase of its message[, compile options]):
# the program compiles
WARNED: dict[str, tuple] = {
    # a plain UAV passed to a globallycoherent parameter (tests/resources/test_coherent11.py: every site)
    "warn_hlsl_impcast_coherence_mismatch": ("RWBuffer<uint> g : register(u0);\nvoid f(globallycoherent RWBuffer<uint>"
                                             " b) { b[0] = 1; }\n[numthreads(1, 1, 1)] void main() { f(g); }\n",
                                             "cs_6_0", "3:39", "implicit conversion from 'RWBuffer<uint>' to "
                                             "'globallycoherent RWBuffer<uint>' adds globallycoherent annotation"),
    # before HLSL 2021 a for-init variable outlives its loop; a later for-init may declare it again
    "warn_hlsl_for_redefinition": (PS + "    for (int k = 0; k < 2; k++) {}\n    for (int k = 0; k < 3; k++) {}\n"
                                   "    return k;\n}\n", "ps_6_0", "3:14", "redefinition of 'k' shadows declaration "
                                   "in the outer scope; most recent declaration will be used", {"hlsl_version": 2018}),
    "warn_hlsl_for_redefinition_different_type": (PS + "    for (int k = 0; k < 2; k++) {}\n    for (uint k = 0; k < 3; "
                                                  "k++) {}\n    return k;\n}\n", "ps_6_0", "3:15",
                                                  "redefinition of 'k' with a different type: 'uint' vs 'int' shadows",
                                                  {"hlsl_version": 2018}),
    "warn_hlsl_uninit_out_param": ("void f(out float x) { }\n" + PS + E, "ps_6_0", "1:18",
                                   "'out' parameter 'x' is not assigned on every path through 'f'"),
    "warn_hlsl_sometimes_uninit_out_param": ("void f(out float x, bool c) { if (c) x = 1; }\n" + PS + E, "ps_6_0",
                                             "1:18", "'out' parameter 'x' is not assigned on every path"),
    "warn_hlsl_narrowing": (PS + "    double d = p.x; float f = d;\n    return f;\n}\n", "ps_6_0", "2:31",
                            "conversion from larger type 'double' to smaller type 'float', possible loss of data"),
    "warn_hlsl_ambiguous_literal_shift": (PS + "    int x = 1 << i;\n" + E, "ps_6_0", "2:15",
                                          "ambiguous type for bit shift"),
    "warn_hlsl_implicit_vector_truncation": (PS + "    float2 v = p;\n    return v.x;\n}\n", "ps_6_0", "2:16",
                                             "implicit truncation of vector type"),
    "warn_hlsl_unsupported_statement_for_if_switch_attribute": (PS + "    [branch] for (int k = 0; k < i; k++) p += 1;\n"
                                                                + E, "ps_6_0", "2:6",
                                                                "attribute 'branch' can only be applied to 'if' and "
                                                                "'switch' statements"),
    "warn_hlsl_unsupported_statement_for_switch_attribute": (PS + "    [forcecase] if (i) p = 1;\n" + E, "ps_6_0", "2:6",
                                                             "attribute 'forcecase' can only be applied to 'switch'"),
    "warn_hlsl_unsupported_statement_for_loop_attribute": (PS + "    [unroll] if (i) p = 1;\n" + E, "ps_6_0", "2:6",
                                                           "attribute 'unroll' can only be applied to 'for', 'while' "
                                                           "and 'do' loop statements"),
    "warn_hlsl_effect_object": ("PixelShader ps = compile ps_4_0 main();\n" + PS + E, "ps_6_0", "1:1",
                                "effect object ignored - effect syntax is deprecated"),
    "warn_hlsl_attribute_expects_uint_literal": ("[numthreads(1.5,1,1)] void main() {}\n", "cs_6_0", "1:13",
                                                 "attribute numthreads must have a uint literal argument"),
    "warn_hlsl_effect_annotation": ('float g < string name = "x"; >;\n' + PS + E, "ps_6_0", "1:9",
                                    "possible effect annotation ignored - effect syntax is deprecated"),
    "warn_hlsl_effect_sampler_state": ("SamplerState s = sampler_state { Filter = MIN_MAG_MIP_LINEAR; };\n" + PS + E,
                                       "ps_6_0", "1:18", "effect sampler_state assignment ignored"),
    "warn_hlsl_effect_state_block": ("SamplerState s { Filter = MIN_MAG_MIP_LINEAR; };\n" + PS + E, "ps_6_0", "1:16",
                                     "effect state block ignored - effect syntax is deprecated"),
    "warn_hlsl_duplicate_specifier": ("float4 main(nointerpolation nointerpolation float4 p : A) : SV_Target "
                                      "{ return p; }\n", "ps_6_0", "1:29", "duplicate HLSL specifier 'nointerpolation'"),
    "warn_hlsl_unused_call": ("Texture2D<float4> t;\n" + PS + "    t.Load(0);\n" + E, "ps_6_0", "3:7",
                              "ignoring return value of function that only reads data"),
    "warn_hlsl_packoffset_overridden": ("cbuffer C { float a : packoffset(c0) : packoffset(c1); };\n" + PS + E,
                                        "ps_6_0", "1:40", "packoffset is overridden by another packoffset annotation"),
    "warn_hlsl_specifier_overridden": ("float4 main(sample centroid float4 p : A) : SV_Target { return p; }\n",
                                       "ps_6_0", "1:20", "'centroid' will be overridden by 'sample'"),
    "warn_hlsl_comma_in_init": (PS + "    float2 x = (1, 2);\n    return x.x;\n}\n", "ps_6_0", "2:17",
                                "comma expression used where a constructor list may have been intended"),
    "warn_hlsl_sema_minprecision_promotion": (PS + "    min10float x = p.x;\n    return x;\n}\n", "ps_6_0", "2:5",
                                              "'min10float' is promoted to 'min16float'"),
    "warn_hlsl_semantic_attribute_position_misuse_hint": ("float4 main(float4 p : P) : POSITION { return p; }\n", "vs_6_0",
                                                          "1:8", "'POSITION' is a user-defined semantic; did you mean "
                                                          "'SV_Position'?"),
    "warn_hlsl_effect_technique": ("technique T { pass P { } }\n" + PS + E, "ps_6_0", "1:1",
                                   "effect technique ignored - effect syntax is deprecated"),
}

_NODES = "work-graph node shaders ([Shader(\"node\")], lib_6_8) are not implemented"
_SM69 = "a shader model 6.9 feature; profiles end at 6.8"
_PAYLOAD = "DXR payload access qualifiers: errors in tests/front/test_dxr_errors.py (our own cases)"
# diagnostic -> why it does not apply to this compiler
NOT_APPLICABLE: dict[str, str] = {
    "note_hlsl_entry_defined_here": "a note attached to another diagnostic",
    "note_hlsl_shader_attribute_here": "a note attached to another diagnostic",
    "note_hlsl_coherence_applies_to": "a note attached to another diagnostic",
    "note_hlsl_no_recursion": "a note attached to another diagnostic",
    "note_hlsl_node_array": "a note of the work-graph node diagnostics",
    "warn_hlsl_groupshared_202x": "HLSL 202x `groupshared` parameters; we compile HLSL 2021 and earlier",
    "err_hlsl_conflicting_shader_attribute": "two [shader] kinds on one library function: libraries compile one "
                                             "DXR entry each (subobject/library rules in test_dxr_errors.py)",
    "err_hlsl_bitfields": "HLSL 2021 has bit-fields (sema/bitfields.py); the error is for -HV 2018 and earlier",
    "err_hlsl_half_load_store": "used nowhere in DXC's sources (LoadHalf/StoreHalf are no HLSL methods)",
    "err_hlsl_vector_member_on_long_vector": _SM69 + " (vectors of over 4 elements)",
    "err_hlsl_unsupported_payload_access_qualifier": _PAYLOAD,
    "err_hlsl_unsupported_payload_access_qualifier_struct": _PAYLOAD,
    "err_hlsl_payload_access_qualifier_unsupported_shader": _PAYLOAD,
    "err_hlsl_payload_access_qualifier_invalid_combination": _PAYLOAD,
    "err_hlsl_payload_access_qualifier_multiple_defined": _PAYLOAD,
    "warn_hlsl_payload_qualifer_dropped": _PAYLOAD + " (the warning below lib_6_7)",
    "warn_hlsl_rayquery_flags_disallowed": _SM69 + " (RayQuery's second template argument)",
    "warn_hlsl_rayquery_flags_conflict": _SM69 + " (opacity micromaps)",
    "warn_hlsl_builtin_constant_unavailable": _SM69 + " (the constants it names are 6.9's)",
    "err_hlsl_unsupported_clipplane_argument_expression": "[clipplanes] is for D3D9 feature-level targets",
    "err_hlsl_unsupported_clipplane_argument_subscript_expression": "[clipplanes] is for D3D9 feature-level targets",
    "err_hlsl_unsupported_clipplane_argument_type": "[clipplanes] is for D3D9 feature-level targets",
    "err_hlsl_unsupported_nested_struct": "refused by DXC only below HLSL 2016",
    "err_hlsl_unsupported_string_literal": "unused in DXC (its .td says the parser catches every case)",
    "err_hlsl_unsupported_type_nesting": "DXC's own analysis limit, not a language rule",
    "warn_hlsl_gc_implies_rc_attribute": _SM69 + " (reordercoherent)",
    "warn_hlsl_glc_implies_rdc": _SM69 + " (reordercoherent)",
    "err_hlsl_conditional_result_comptype_mismatch": "numeric component types always combine (CombineBasicTypes); "
                                                     "other operands are refused first (result_typecheck)",
    "err_hlsl_nointerpolation_and_linear": "unused in DXC's sources (err_hlsl_varmodifiersna is what fires)",
    "warn_hlsl_entry_attribute_without_shader_attribute": "library compute entries: our libraries hold DXR shaders",
    "err_hlsl_object_missing_initializer": "never emitted by DXC (no use in its sources)",
    "err_hlsl_unsupported_keyword_for_version": "a keyword of a later language version; we compile HLSL 2021",
    "err_hlsl_unsupported_for_version_lower": "a form of an earlier language version only",
    "err_hlsl_intrinsic_template_arg_requires_2018": "explicit intrinsic template arguments below -HV 2018",
    "warn_hlsl_structurize_exits_lifetime_markers_conflict": "a DXC code-generation option (-opt-enable "
                                                            "structurize-returns) we do not have",
    "err_hlsl_unsupported_long_vector": _SM69 + " (vectors of over 4 elements)",
    "err_hlsl_wg_intrinsic_launch_type": _NODES,
    "err_hlsl_wg_thread_launch_group_size": _NODES,
    "err_hlsl_wg_nodetrackrwinputsharing_missing": _NODES,
    "err_hlsl_wg_nodetrackrwinputsharing_invalid": _NODES,
    "err_hlsl_wg_input_kind": _NODES,
    "err_hlsl_wg_attr_only_on_output": _NODES,
    "err_hlsl_wg_attr_only_on_output_or_input_record": _NODES,
    "err_hlsl_wg_nodearraysize_conflict_unbounded": _NODES,
    "err_hlsl_wg_attr_only_on_output_array": _NODES,
    "err_hlsl_wg_attr_only_on_node": _NODES,
    "err_hlsl_zero_sized_record": _NODES,
    "err_hlsl_rwnodeinputrecord_sv_dispatch": _NODES,
    "err_hlsl_maxarraysize_template_arg": _NODES,
    "err_hlsl_maxrecord_attrs_on_same_arg": _NODES,
    "err_hlsl_maxrecordssharedwith_references_invalid_arg": _NODES,
    "err_hlsl_maxrecordssharedwith_references_itself": _NODES,
    "err_hlsl_maxrecord_on_wrong_launch": _NODES,
    "err_hlsl_dispatchgrid_component": _NODES,
    "err_hlsl_dispatchgrid_product": _NODES,
    "err_hlsl_compute_launch_compatibility": _NODES,
    "err_hlsl_compute_io_compatibility": _NODES,
    "err_hlsl_launch_type_attr": _NODES,
    "err_hlsl_incompatible_node_attr": _NODES,
    "err_hlsl_missing_node_attr": _NODES,
    "err_hlsl_missing_dispatchgrid_attr": _NODES,
    "err_hlsl_missing_dispatchgrid_semantic": _NODES,
    "err_hlsl_dispatchgrid_semantic_already_specified": _NODES,
    "err_hlsl_incompatible_dispatchgrid_semantic_type": _NODES,
    "err_hlsl_maxrecursiondepth_exceeded": _NODES,
    "err_hlsl_too_many_node_inputs": _NODES,
    "err_hlsl_node_record_type": _NODES,
    "err_hlsl_barrier_invalid_memory_flags": "the SM 6.8 Barrier() intrinsic is not implemented (refused as an "
                                             "undeclared name)",
    "err_hlsl_barrier_invalid_semantic_flags": "the SM 6.8 Barrier() intrinsic is not implemented",
    "warn_hlsl_barrier_group_memory_requires_group": "the SM 6.8 Barrier() intrinsic is not implemented",
    "warn_hlsl_barrier_node_memory_requires_node": "the SM 6.8 Barrier() intrinsic is not implemented",
    "warn_hlsl_barrier_group_semantic_requires_group": "the SM 6.8 Barrier() intrinsic is not implemented",
    "warn_hlsl_barrier_no_mem_with_required_group_scope": "the SM 6.8 Barrier() intrinsic is not implemented",
    "warn_hlsl_barrier_no_mem_with_required_device_scope": "the SM 6.8 Barrier() intrinsic is not implemented",
    "warn_hlsl_legacy_integer_literal_signedness": "HLSL 202x literal rules (DXC emits it for -HV 202x only)",
    "err_hlsl_reorder_unsupported_stage": _SM69 + " (MaybeReorderThread)",
    "err_hlsl_hitobject_unsupported_stage": _SM69 + " (HitObject)",
    "err_hlsl_linalg_isunsigned_incorrect_for_given_type": _SM69 + " (linear algebra)",
    "err_hlsl_linalg_interpretation_value_incorrect": _SM69 + " (linear algebra)",
    "err_hlsl_linalg_matrix_layout_is_not_transposable": _SM69 + " (linear algebra)",
    "err_hlsl_linalg_optimal_matrix_layout_matrix_stride_must_be_zero": _SM69 + " (linear algebra)",
    "err_hlsl_linalg_matrix_dim_must_be_greater_than_zero": _SM69 + " (linear algebra)",
    "err_hlsl_linalg_matrix_layout_invalid": _SM69 + " (linear algebra)",
    "err_hlsl_linalg_matrix_attribute_arg_not_int_or_enum": _SM69 + " (linear algebra)",
    "err_hlsl_linalg_matrix_attribute_arg_not_constant_value": _SM69 + " (linear algebra)",
    "err_hlsl_linalg_matrix_invalid_enum_attribute_value": _SM69 + " (linear algebra)",
    "err_hlsl_linalg_matrix_attribute_on_invalid_type": _SM69 + " (linear algebra)",
    "err_hlsl_linalg_attributed_matrix_required": _SM69 + " (linear algebra)",
    "err_hlsl_linalg_unsupported_stage": _SM69 + " (linear algebra)",
    "err_hlsl_auto_descriptor_heap": "`auto` (HLSL 202x) is not implemented: refused as an unknown type name",
    "err_hlsl_auto_undeducible_type": "`auto` (HLSL 202x) is not implemented",
    "err_hlsl_vulkan_specific_feature": "deliberate: one source compiles for both targets, the DXIL backend "
                                        "ignores vk:: attributes (docs/CONFORMANCE.md)",
    "err_hlsl_vk_pointer_cast_alignment": "vk::BufferPointer is not implemented",
    "err_hlsl_vk_static_pointer_cast_type": "vk::BufferPointer is not implemented",
    "err_hlsl_unknown": "DXC's placeholder message",
    "err_hlsl_incompatible_option": "a command-line option conflict (tests/cli cover our options)",
    "warn_hlsl_minprecision_promotion": "unused in DXC's sources (the Sema twin fires; LEFT below)",
    "err_hlsl_enum": "refused by DXC only below HLSL 2017",
    "warn_hlsl_unary_negate_unsigned": "never fires: DXC's condition tests the operator's code, not the operand "
                                       "(SemaHLSL.cpp: IS_BASIC_UINT(Opc) with Opc = UO_Minus, an int kind)",
    "warn_hlsl_incorrect_bind_semantic": "DXC's warning form is for legacy effect objects bound to a register: "
                                         "we drop those objects whole (warn_hlsl_effect_object)",
    "warn_hlsl_groupshared_inout": "HLSL 202x only (SemaOverload.cpp checks HLSLVersion >= v202x)",
    "warn_hlsl_new_feature": "a newer-version feature used under an older -HV",
}

# diagnostic -> why we still accept the program (DXC rejects it, or warns where we are silent)
LEFT: dict[str, str] = {
    "err_hlsl_packoffset_requires_cbuffer": "deliberate: packoffset on a global is honoured in $Globals (issue 20; "
                                            "tests/resources/test_res_register_reservations.py)",
    "warn_hlsl_packoffset_mix": "warning not given (packoffset and plain members in one cbuffer: both are laid out); "
                                "DXC gives it no -W group, and every warning of ours has one",
    "err_hlsl_unsupported_buffer_slot_target_specific": "deliberate: `cbuffer C : register(ps, b0)` is honoured "
                                                        "per stage (test_res_register_reservations.py)",
    "warn_hlsl_payload_access_data_loss": "payload data-flow warnings are not computed",
    "warn_hlsl_payload_access_undef_read": "payload data-flow warnings are not computed",
    "warn_hlsl_payload_access_write_loss": "payload data-flow warnings are not computed",
    "warn_hlsl_payload_access_no_write_for_trace_payload": "payload data-flow warnings are not computed",
    "warn_hlsl_payload_access_write_but_no_write_for_trace_payload": "payload data-flow warnings are not computed",
    "warn_hlsl_payload_access_read_of_undef_after_trace": "payload data-flow warnings are not computed",
    "warn_hlsl_payload_access_read_but_no_read_after_trace": "payload data-flow warnings are not computed",
    "warn_hlsl_semantic_identifier_collision": "warning not given (a semantic spelled as an integer variable's "
                                               "name: the parser does not know a name's type where it reads "
                                               "a semantic; the semantic is taken, as DXC does)",
}

# valid programs next to the newly refused (or warned) ones: each compiles on both targets, without a warning
NEIGHBOURS: dict[str, tuple[str, str]] = {
    "wavesize_in_range": ("[WaveSize(32)]\n" + CS, "cs_6_6"),
    "wavesize_range": ("[WaveSize(16, 64, 32)]\n" + CS, "cs_6_8"),
    "numthreads_on_the_function": ("[numthreads(2,1,1)]\nvoid main() {}\n", "cs_6_0"),
    "sizeof_typed_values": (PS + "    uint s = sizeof(1 + i) + sizeof((uint)1) + sizeof(p) + sizeof(float2);\n"
                            "    return s;\n}\n", "ps_6_0"),
    "char_literals": (PS + "    int c = 'a' + '\\n' + '\\\\';\n    return c;\n}\n", "ps_6_0"),
    "registers_of_other_profiles_and_spaces": ("Texture2D t : register(ps, t0) : register(vs, t1);\n"
                                               "cbuffer C : register(b0, space1) { float a; };\n"
                                               "float4 g : register(c1) : register(b0);\n"
                                               + PS + "    return t.Load(0) + a + g;\n}\n", "ps_6_0"),
    "c_qualifiers_after_the_type": ("static float const h = 2;\n" + PS + "    return h;\n}\n", "ps_6_0"),
    "in_out_is_inout": ("void f(in out float x) { x = 1; }\nvoid g(out in float x) { x = 1; }\n" + PS
                        + "    float y = 0; f(y); g(y);\n    return y;\n}\n", "ps_6_0"),
    "static_const_member_default": ("struct S { static const float a = 2; float b; };\n" + PS + "    return S::a;\n}\n",
                                    "ps_6_0"),
    "cbuffer_member_initializer": ("cbuffer C { float a = 1; };\n" + PS + "    return a;\n}\n", "ps_6_0"),
    "shader_attribute_of_the_profile": ('[shader("vertex")] float4 main() : SV_Position { return 0; }\n', "vs_6_0"),
    "patch_function_and_entry_share_a_helper": (
        PC.replace("PC pc() { PC o = (PC)0; return o; }", "float h(float x) { return x * 2; }\n"
                   "PC pc() { PC o = (PC)0; o.n = h(1); return o; }")
        + HS.format(d="tri", n=1).replace("{ return ip[0]; }", "{ CP c = ip[0]; c.p.x = h(c.p.x); return c; }"),
        "hs_6_0"),
    "indices_written_whole": (MS_V + "void main(out vertices V v[3], out indices uint3 t[1]) { SetMeshOutputCounts(3, 1); "
                              "t[0] = uint3(0, 1, 2); v[0].p = 0; v[1].p = 1; v[2].p = 2; }\n", "ms_6_5"),
    "in_payload": ("struct Pl { float x; };\n" + MS_V + "void main(in payload Pl pl, out vertices V v[3], "
                   "out indices uint3 t[1]) { SetMeshOutputCounts(0, 0); }\n", "ms_6_5"),
    "typed_64bit_pairs": ("Buffer<double2> b;\nRWBuffer<uint64_t2> c;\n" + PS + "    return (float)(b[0].x + c[0].y);\n}\n",
                          "ps_6_0"),
    "extern_free_string": ('string s = "x";\nstatic string u = "y";\n' + PS + E, "ps_6_0"),
    "a_user_method_named_load": ("struct S { float Load(int x) { return x; } };\n" + PS + "    S s; s.Load(1);\n" + E,
                                 "ps_6_0"),
    "a_constructor_not_a_comma": (PS + "    float2 x = float2(1, 2);\n    return x.x;\n}\n", "ps_6_0"),
    "min_precision_division_of_wider_types": (PS + "    min16int a = i;\n    int c = a / i + (int)a % 3;\n"
                                              "    min16uint u = 7; u = u / 2;\n    return c + u;\n}\n", "ps_6_0"),
    "conditionals_of_numeric_shapes": (PS + "    float2x2 m = i ? float2x2(p) : p;\n    float2 v = i ? p.xy : 1;\n"
                                       "    return m[0].x + v.y;\n}\n", "ps_6_0"),
    "min16_types_keep_their_names": (PS + "    min16float x = p.x; min16int k = i; min16uint u = 2;\n"
                                     "    return x + k + u;\n}\n", "ps_6_0"),
    "vertex_output_sv_position": ("float4 main(float4 p : P) : SV_Position { return p; }\n", "vs_6_0"),
    "byte_address_load_and_store_templates": ("RWByteAddressBuffer b;\n" + PS + "    b.Store<float2>(0, p.xy);\n"
                                              "    return b.Load<float2>(8).x;\n}\n", "ps_6_2"),
    "vk_attribute_on_a_variable": ("[[vk::binding(0)]] RWBuffer<float> b;\n[numthreads(1,1,1)] void main() { b[0] = 1; }\n",
                                   "cs_6_0"),
}


def _options(profile: str, target: str, **extra) -> CompileOptions:
    # libraries and mesh shaders need SPIR-V 1.4: the sweep checks the front end, not the target version
    env = "vulkan1.2" if profile[:2] in ("li", "ms") else "vulkan1.1"
    return CompileOptions(entry="main", profile=profile, target=target, vk_target_env=env, **extra)


def _diagnostics(source: str, profile: str, target: str, **extra) -> tuple[bool, list[tuple[str, str, str]]]:
    res = compile_file("t.hlsl", _options(profile, target, **extra), text=source)
    if not res.ok:
        assert res.binary is None
    return res.ok, [(d.severity, f"{d.loc.line}:{d.loc.col}", d.message) for d in res.diagnostics]


def test_the_sweep_covers_every_hlsl_diagnostic_once():
    tables = [REJECTED, WARNED, NOT_APPLICABLE, LEFT]
    named = [name for table in tables for name in table]
    assert sorted(named) == sorted(TD_NAMES)          # each exactly once, and nothing else
    assert all(reason for reason in (*NOT_APPLICABLE.values(), *LEFT.values()))


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("name", sorted(REJECTED))
def test_rejected(name, target):
    source, profile, where, phrase, *extra = REJECTED[name]
    ok, diags = _diagnostics(source, profile, target, **(extra[0] if extra else {}))
    errors = [(at, message) for severity, at, message in diags if severity == "error"]
    assert not ok
    assert len(errors) == 1, errors                   # one mistake, one error: no cascade
    assert errors[0][0] == where and phrase in errors[0][1], errors


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("name", sorted(WARNED))
def test_warned(name, target):
    source, profile, where, phrase, *extra = WARNED[name]
    ok, diags = _diagnostics(source, profile, target, **(extra[0] if extra else {}))
    assert ok, diags
    assert [(s, at) for s, at, message in diags if phrase in message] == [("warning", where)], diags


WAVE_SIZE_SPIRV = "Wave size is not supported by Vulkan SPIR-V. Consider using VK_EXT_subgroup_size_control."


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("name", sorted(NEIGHBOURS))
def test_neighbours_compile(name, target):
    source, profile = NEIGHBOURS[name]
    ok, diags = _diagnostics(source, profile, target)
    if target == "spirv" and name.startswith("wavesize"):     # DXC's SPIR-V warning (test_attributes10)
        assert [d[2] for d in diags] == [WAVE_SIZE_SPIRV]
        diags = []
    assert ok and diags == []


def test_character_literals_sizeof_and_a_comma_initializer_compute_their_values():
    """The neighbours that compute: C's escapes, sizeof of typed operands, and `int2 v = (1, 2)`, which
    DXC warns about and initializes with the comma expression's value (2) splatted.  Expected values
    from Python's ord() and the sizes of 32-bit components."""
    src = """RWStructuredBuffer<int> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
    Out[0] = 'a'; Out[1] = '\\n'; Out[2] = '\\\\'; Out[3] = '\\''; Out[4] = '\\t'; Out[5] = '\\0';
    Out[6] = sizeof(float2) + sizeof((uint)1);
    int2 v = (1, 2);
    Out[7] = v.x; Out[8] = v.y;
}
"""
    got = run_cs(src, {"Out": ("int", 9)})["Out"]
    assert got == [ord("a"), ord("\n"), ord("\\"), ord("'"), ord("\t"), 0, 2 * 4 + 4, 2, 2]


# several of the sweep's mistakes in one file: each is reported once, where it is, and nothing else
# (the parser recovers at declarations and statements; semantic analysis at declarations and statements
# when the file parses: after a syntax error it does not run, docs/CONFORMANCE.md)
RECOVERY = {
    "parser": ("float uniform g;\nstruct S { float a = 1; };\nTexture2D t : register(t0) : register(t1);\n"
               "void f(in in float x) {}\n" + PS + "    int c = 'ab';\n" + E,
               ["1:7: modifiers must appear before type", "2:20: struct/class members cannot have default values",
                "3:30: conflicting register semantics", "4:11: duplicate HLSL parameter usages 'in'",
                "6:13: unsupported style of char literal - use a single-character char-based literal"]),
    "sema": ('extern string s = "x";\nBuffer<double4> b;\n' + PS + "    uint k = sizeof(1);\n    float2 v = (1, 2);\n"
             + E,
             ["1:15: string cannot be declared with 'extern' storage specifier",
              "2:8: elements of typed buffers and textures must fit in four 32-bit quantities",
              "4:14: invalid application of 'sizeof' to literal type 'literal int'"]),
}


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("name", sorted(RECOVERY))
def test_independent_mistakes_are_each_reported_once(name, target):
    source, expected = RECOVERY[name]
    ok, diags = _diagnostics(source, "ps_6_0", target)
    assert not ok
    assert [f"{at}: {message}" for severity, at, message in diags if severity == "error"] == expected


def test_a_for_variable_declared_again_before_hlsl_2021_is_the_newest_one():
    """-HV 2018: `k` after the loops is the last for-init's variable, as DXC ("most recent declaration will be
    used"): 2 after the first loop, 9 after the second, 4 after the uint one (loop bounds, counted here)."""
    src = """RWStructuredBuffer<int> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
    for (int k = 0; k < 2; k++) {}
    int a = k;
    for (int k = 5; k < 9; k++) {}
    Out[0] = a; Out[1] = k;
    for (uint k = 0; k < 4; k++) {}
    Out[2] = k;
}
"""
    got = run_cs(src, {"Out": ("int", 3)}, hlsl_version=2018)["Out"]
    assert got == [2, 9, 4]
