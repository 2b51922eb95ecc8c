"""Traceability of issue 20 (conformance): every item of its bullets -> the tests that check it, with the
routes each test covers.  tests/test_conformance_trace.py checks that every test named here exists and that
every item has a test, so the map cannot rot silently.  docs/CONFORMANCE.md points here.

A test is `file::function`, or `file::function[row]` for one row of a parametrized test: the row's
parametrize id, or for a row run per backend (`name-spirv`, `name-dxil-vk`, ...) its name alone, meaning that
row on the routes listed.

Routes: 'spirv' (executed on lavapipe), 'dxil-vk' (our DXIL through dxil-spirv, executed on lavapipe),
'dxil' (our DXIL on the LLVM interpreter), 'error' (a located error is asserted), 'warning' (a located
warning is asserted), 'structure' (the output is inspected, not executed: said why in NOTES)."""

from __future__ import annotations

SPIRV, DXIL_VK, DXIL, ERROR, WARNING, STRUCTURE = "spirv", "dxil-vk", "dxil", "error", "warning", "structure"
EXEC = (SPIRV, DXIL, DXIL_VK)          # run_cs / run_backend over the three backends / table_test / res_util
VK2 = (SPIRV, DXIL_VK)                 # graphics draws: our SPIR-V and the DXIL twin through dxil-spirv
ROUTES = frozenset({SPIRV, DXIL_VK, DXIL, ERROR, WARNING, STRUCTURE})

Entry = tuple[str, tuple[str, ...]]

L, R, F = "tests/lang/", "tests/resources/", "tests/front/"
MP = L + "test_lang_matrix_packing.py::"
RR = R + "test_res_register_reservations.py::"
NUM = L + "test_lang_d3d_numerics.py::"
FE = L + "test_lang_d3d_float_edges.py::"
SH = L + "test_lang_intrinsic_shapes.py::"
SYN = L + "test_lang_syntax.py::"
REJ = F + "test_dxc_rejects.py::test_dxc_rejects"
GAPS = L + "test_issue20_gaps12.py::"


def _rej(*names: str) -> list[Entry]:
    """A case of tests/front/test_dxc_rejects.py: refused for SPIR-V there, for DXIL in the gaps file."""
    return [(f"{test}[{n}]", (ERROR,)) for n in names for test in (REJ, GAPS + "test_dxc_rejects_also_for_dxil")]


TRACE: dict[str, list[Entry]] = {
    # ---------------------------------------------------------------- silent wrong values
    "#pragma pack_matrix(row_major|column_major) at the declaration": [
        (MP + "test_matrix_orientation[pragma_switches_between_members]", EXEC),
        (MP + "test_pragma_row_major_changes_the_size_of_a_non_square_matrix", EXEC),
        (L + "test_lang_types.py::test_pack_matrix_pragma", EXEC)],
    "row_major/column_major on typedefs (typedef majority)": [
        (MP + "test_matrix_orientation[typedef_keeps_pragma_of_its_declaration]", EXEC),
        (MP + "test_matrix_orientation[typedef_with_explicit_modifier]", EXEC)],
    "row_major/column_major on arrays": [
        (MP + "test_matrix_orientation[array_of_matrices_under_pragma]", EXEC),
        (MP + "test_matrix_orientation[typedef_array_of_row_major]", EXEC)],
    "row_major/column_major on template arguments": [
        (MP + "test_structured_buffer_template_argument_orientation", EXEC)],
    "matrix orientation of struct fields; explicit modifiers win": [
        (MP + "test_matrix_orientation[struct_field_takes_pragma_of_struct]", EXEC),
        (MP + "test_matrix_orientation[explicit_modifier_wins_over_pragma]", EXEC)],
    "duplicate/conflicting orientation modifiers are errors": [
        (MP + "test_conflicting_orientation_is_an_error", (ERROR,)),
        (MP + "test_conflicting_orientation_on_local_and_static_is_an_error", (ERROR,))],
    "float4 a : register(c3) on $Globals": [
        (RR + "test_reservation_honoured[global_register_c]", EXEC)],
    "packoffset(c1.y) with every component form": [
        (RR + "test_reservation_honoured[cbuffer_packoffset_every_component]", EXEC),
        (RR + "test_reservation_honoured[global_packoffset]", EXEC),
        (L + "test_lang_types.py::test_cbuffer_packoffset", EXEC)],
    "register(ps, c1) / register(vs, ...) profile-qualified forms": [
        (RR + "test_reservation_honoured[global_register_profiles]", EXEC),
        (RR + "test_reservation_honoured[cbuffer_profile_register]", EXEC)],
    "register(ps_5_0, ...) shader-model-5 profile forms": [
        (GAPS + "test_shader_model_5_profile_register_clauses", EXEC)],
    "register(b2, space1) on cbuffers": [
        (RR + "test_reservation_honoured[cbuffer_register_space]", EXEC)],
    "overlapping register/packoffset reservations rejected": [
        (RR + "test_overlapping_reservations_are_errors", (ERROR,))],
    "float->int/uint saturates, NaN -> 0 ((uint)-3.6 == 0)": [
        (NUM + "test_float_to_int", EXEC),
        (L + "test_lang_audit8.py::test_float_to_integer_in_every_implicit_context", EXEC),
        (GAPS + "test_double_and_64_bit_conversions_saturate", EXEC),
        (GAPS + "test_static_initialisers_convert_as_at_run_time", EXEC)],
    "integer division and modulo by zero": [
        (NUM + "test_int_division", EXEC), (NUM + "test_constant_zero_divisor_is_an_error", (ERROR,))],
    "INT_MIN / -1 (and INT_MIN % -1)": [(NUM + "test_int_division", EXEC)],
    "shift amounts masked to the bit width": [
        (NUM + "test_shift_amounts", EXEC), (L + "test_lang_audit8.py::test_int64_division_shifts_and_bits", EXEC)],
    "firstbithigh/firstbitlow of 0": [(NUM + "test_firstbit", EXEC)],
    "firstbithigh/firstbitlow of 64-bit values": [
        (NUM + "test_firstbit", EXEC), (L + "test_lang_intrinsics.py::test_bit_intrinsics_on_64_bit_integers", EXEC)],
    "countbits/reversebits on 64-bit values": [
        (L + "test_lang_intrinsics.py::test_bit_intrinsics_on_64_bit_integers", EXEC),
        (L + "test_lang_num9.py::test_16_and_64_bit_intrinsics_folded_and_at_run_time", EXEC)],
    "min16float/min16int values at SM 6 without -enable-16bit-types": [
        (L + "test_lang_types8.py::test_min_precision_types", EXEC),
        (L + "test_lang_num9.py::test_float_constants_without_16bit_types_stay_32_bit", EXEC)],
    "min16float/min16int uniforms at SM 6 without -enable-16bit-types": [
        (L + "test_lang_num9.py::test_min_precision_storage_without_16bit_types_is_32_bit", EXEC),
        (L + "test_lang_types.py::test_cbuffer_member_placement[half_and_min16_are_32_bit]", EXEC)],
    "constant folding follows the run-time rules (each operator folded and unfolded)": [
        (NUM + "test_float_to_int", EXEC), (NUM + "test_int_division", EXEC), (NUM + "test_shift_amounts", EXEC),
        (L + "test_lang_audit8.py::test_integer_edges_folded_and_at_run_time", EXEC),
        (L + "test_lang_audit8.py::test_float_edges_folded_and_at_run_time", EXEC)],
    "clamp on mixed shapes": [(SH + "test_intrinsic_shapes[clamp_3_scalar_4]", EXEC)],
    "lerp on mixed shapes": [(SH + "test_intrinsic_shapes[lerp_4_3_scalar]", EXEC)],
    "pow on mixed shapes": [(SH + "test_intrinsic_shapes[pow_scalar_3]", EXEC)],
    "ldexp on mixed shapes": [(SH + "test_intrinsic_shapes[ldexp_4_2]", EXEC)],
    "step on mixed shapes": [(SH + "test_intrinsic_shapes[step_2_4]", EXEC)],
    "smoothstep on mixed shapes": [(SH + "test_intrinsic_shapes[smoothstep_scalar_3_4]", EXEC)],
    "max/min on mixed shapes (vectors, matrix and scalar)": [
        (SH + "test_intrinsic_shapes[max_4_2]", EXEC), (SH + "test_intrinsic_shapes[min_2_4]", EXEC),
        (SH + "test_intrinsic_shapes[max_matrix_scalar]", EXEC),
        (L + "test_lang_intrinsic_sweep11.py::test_mixed_shape_calls_execute", EXEC)],
    "matrix/vector intrinsic mixes DXC refuses are errors": [
        (SH + "test_refused_intrinsic_shapes", (ERROR,)), (L + "test_lang_intrinsic_sweep11.py::test_intrinsic_sweep", (ERROR,))],
    "overload ranking (exact, promotion, conversion, component count, literals)": [
        (L + "test_lang_overloads11.py::test_overload_choice", EXEC),
        (L + "test_lang_gaps9.py::test_overload_ranking_follows_dxc", EXEC)],
    "user functions overloading intrinsic names take precedence": [
        (L + "test_lang_overloads11.py::test_user_functions_named_as_intrinsics", EXEC),
        (L + "test_lang_gaps9.py::test_user_functions_named_as_intrinsics", EXEC)],
    "InterlockedMin/Max signedness on int vs uint UAVs and their return values": [
        (L + "test_lang_d3d_misc_values.py::test_atomics_signedness_initializers_unroll", EXEC),
        (L + "test_lang_intrinsics.py::test_interlocked_results_and_signedness", EXEC)],
    "RWByteAddressBuffer.Load<float>/Load<double>/Store<T>": [
        (R + "test_res_byteaddress_wide.py::test_byte_address_64_bit_load_store", EXEC),
        (L + "test_lang_audit8.py::test_byte_address_store_without_template_stores_the_value_type", EXEC)],
    "StructuredBuffer<float3> stride": [
        (GAPS + "test_structured_buffer_of_float3_stride", EXEC),
        (GAPS + "test_float3_members_of_structured_buffer_elements", EXEC),
        (R + "test_res_buffers.py::test_buffer_spirv[rwsb-float3-stride16]", (SPIRV,)),
        (R + "test_res_buffers.py::test_structured_stride_in_manifest", (STRUCTURE,))],
    "static initializers of arrays and structs": [
        (L + "test_lang_d3d_misc_values.py::test_atomics_signedness_initializers_unroll", EXEC),
        (L + "test_lang_audit20.py::test_runtime_static_initialiser_reads_a_constant_table", EXEC),
        (GAPS + "test_static_initialisers_convert_as_at_run_time", EXEC)],
    "[unroll] loops with break": [(L + "test_lang_d3d_misc_values.py::test_atomics_signedness_initializers_unroll", EXEC),
                                  (GAPS + "test_static_initialisers_convert_as_at_run_time", EXEC)],
    "WaveActiveAllEqual and other wave ops on floats": [
        (L + "test_lang_wave_all_equal.py::test_wave_active_all_equal_is_per_component", EXEC),
        (L + "test_lang_wave9.py::test_float_min_max_skip_nan_and_zero_signs", EXEC),
        (L + "test_lang_wave9.py::test_reductions_and_scans_int_uint_float", EXEC)],
    "atan2 and inverse trig signs at +-0": [(FE + "test_float_edges", EXEC)],
    "nointerpolation with centroid (refused as DXC does)": [
        (L + "test_lang_stages9.py::test_interpolation_errors_are_located", (ERROR,)),
        (L + "test_lang_stages9.py::test_interpolation_modes_give_their_values", VK2)],
    "SV_Position.zw in the pixel stage": [
        (L + "test_lang_stages9.py::test_pixel_position_xyz", VK2),
        (L + "test_lang_stages9.py::test_pixel_position_w", VK2)],
    "semantics cascading through nested structs": [
        (L + "test_lang_stages9.py::test_semantics_cascade_through_structs_and_arrays", VK2),
        (R + "test_sig_shapes.py::test_struct_semantic_cascade_executes", VK2)],
    "the dst intrinsic": [(FE + "test_float_edges[dst]", EXEC)],
    "float comparisons with NaN (ordered vs unordered)": [(FE + "test_float_edges", EXEC)],
    # ---------------------------------------------------------------- programs we refused that DXC compiles
    "struct X as a type specifier (struct apple a; (struct apple) f;)": [
        (SYN + "test_struct_specifiers[struct_keyword_local]", EXEC),
        (SYN + "test_struct_specifiers[struct_keyword_cast]", EXEC)],
    "anonymous structs with a declarator (struct { ... } v = {...};)": [
        (SYN + "test_struct_specifiers[anonymous_local]", EXEC), (SYN + "test_anonymous_struct_in_cbuffer", EXEC)],
    "unsigned int": [(SYN + "test_unsigned_types", EXEC)],
    "typedef of resource templates": [(SYN + "test_typedef_of_resource_templates", EXEC)],
    "FX technique/technique10/11 and pass accepted and dropped (warning)": [
        (SYN + "test_effects_syntax_warnings", (WARNING,)), (SYN + "test_effects_syntax", EXEC)],
    "FX state blocks on variables and = sampler_state {...}": [
        (SYN + "test_effects_syntax_warnings", (WARNING,)),
        (SYN + "test_effects_syntax[local_state_block]", EXEC),
        (L + "test_lang_audit20.py::test_legacy_sampler_spellings_are_sampler_states", EXEC)],
    "FX string annotations < ... >": [
        (SYN + "test_effects_syntax[annotated_static_const]", EXEC), (SYN + "test_effects_syntax_warnings", (WARNING,))],
    "FX PixelShader/VertexShader objects, *State objects, CompileShader": [
        (SYN + "test_effects_syntax[effect_names_are_variables_elsewhere]", EXEC),
        (SYN + "test_effects_syntax_warnings", (WARNING,))],
    "resources and samplers declared inside a cbuffer": [
        (R + "test_res_cbuffers.py::test_resources_declared_in_a_cbuffer_are_globals", EXEC)],
    "arrays of ConstantBuffer<T>": [
        (R + "test_res_cbuffers.py::test_constant_buffer_array_dynamic_index", EXEC),
        (R + "test_res_cbuffers.py::test_two_dimensional_constant_buffer_array", EXEC)],
    "rasterizer-ordered views (RasterizerOrdered*)": [
        (R + "test_res_rov.py::test_spirv_accesses_are_inside_the_interlock", (STRUCTURE,)),
        (R + "test_res_rov.py::test_dxil_rov_flags", (STRUCTURE,)),
        (R + "test_res_rov.py::test_rov_errors_are_located", (ERROR,))],
    "Texture2DMS with a sample-count expression": [
        (R + "test_res_textures.py::test_ms_sample_count_is_a_constant_expression", (STRUCTURE,)),
        (GAPS + "test_texture2dms_with_a_sample_count_expression_executes", VK2),
        (R + "test_multisample11.py::test_texture2dms_every_sample", VK2)],
    "GatherCmp* and GatherCmpRed/Green/Blue/Alpha": [
        (R + "test_res_samplers.py::test_gather_cmp_compares_four_texels", EXEC),
        (R + "test_res_samplers.py::test_gather_cmp_dxil_channel", (STRUCTURE,)),
        (R + "test_res_samplers.py::test_gather_cmp_channel_is_refused_for_spirv", (ERROR,))],
    "EvaluateAttribute*": [(L + "test_lang_stages9.py::test_evaluate_attribute_at_samples_and_offsets", VK2)],
    "texture offsets from static const expressions": [
        (R + "test_res_samplers.py::test_static_const_offsets", EXEC),
        (L + "test_lang_audit20.py::test_texture_offsets_folded_from_const_data", EXEC)],
    "dynamic indexing of a swizzled vector": [(SYN + "test_swizzle_dynamic_index", EXEC)],
    "assignment through multi-element matrix swizzles": [(SYN + "test_matrix_swizzle_write", EXEC)],
    "case values beyond 32 bits (wrapped as DXC does)": [
        (SYN + "test_switch_case_wrap", EXEC), (SYN + "test_case_overflow_warning", (WARNING,))],
    "bitfields": [(SYN + "test_bitfields", EXEC), (SYN + "test_bitfield_buffer_layout", EXEC)],
    "non-type template parameters": [(SYN + "test_non_type_template_parameters", EXEC)],
    "inherited struct methods": [(SYN + "test_inherited_methods", EXEC),
                                 (GAPS + "test_static_members_of_a_base_struct", EXEC)],
    "operator[] overloads": [(SYN + "test_operator_overloads[dynamic_index]", EXEC)],
    "precise": [(L + "test_lang_operators.py::test_precise_keeps_ieee_evaluation_order", EXEC),
                (F + "test_precise.py::test_spirv_decorates_exactly_the_precise_ops", (STRUCTURE,))],
    "a resource inside a struct/cbuffer reaching the layout code (supported or located)": [
        (R + "test_res_cbuffers.py::test_global_struct_with_a_resource_member_is_a_located_error", (ERROR,)),
        (L + "test_lang_struct_resources.py::test_static_struct_with_resources", EXEC)],
    # ---------------------------------------------------------------- programs DXC rejects: located errors
    "wave/group barriers in the wrong stage": _rej("group_barrier_in_pixel", "all_barrier_in_vertex"),
    "illegal matrix<->vector casts and assignments of different shapes": _rej("matrix_to_smaller_vector", "matrix_reshaped", "vector_to_bigger_matrix"),
    "overlapping packoffsets": _rej("overlapping_packoffsets") + [(RR + "test_overlapping_reservations_are_errors", (ERROR,))],
    "[branch][flatten] together": _rej("branch_and_flatten"),
    "[loop][unroll(1)] together": _rej("loop_and_unroll"),
    "two semantics on one declaration (DXC compiles it: the first applies; we warn)": [
        (L + "test_lang_audit20.py::test_a_second_semantic_is_ignored_with_a_warning", (WARNING,))],
    "uniform on a function": _rej("uniform_on_a_function"),
    "a switch case label with no statement": _rej("case_label_without_statement"),
    "NULL": _rej("NULL_is_not_a_name"),
    "inline on the entry point": _rej("inline_entry_point"),
    "user definitions shadowing type names (typedef float4 string; typedef float2 dword)": _rej("typedef_redefines_string", "typedef_redefines_dword"),
    "column_major on a row_major typedef": _rej("column_major_on_row_major_typedef"),
    "double render-target outputs": _rej("two_render_targets_0"),
    "lit(float2, ...)": _rej("lit_with_vectors"),
    "refract with a non-scalar eta": _rej("refract_with_vector_eta"),
    "dst on float4x1": _rej("dst_on_a_matrix"),
    "InterlockedAdd on a typed RWBuffer<uint1> element": _rej("interlocked_on_a_uint1_buffer_element"),
    "ambiguous call between int and uint overloads with a literal": _rej("int_uint_overloads_with_a_literal"),
    "Texture2D indexed with a 3-component coordinate": _rej("texture2d_indexed_with_three_components"),
    # ---------------------------------------------------------------- diagnostics
    "report every error, recovering at statement and declaration boundaries": [
        (F + "test_error_recovery.py::test_every_error_is_reported_once", (ERROR,)),
        (F + "test_recovery8.py::test_every_error_once_no_cascade", (ERROR,))],
    "-ferror-limit (default 20)": [
        (F + "test_error_recovery.py::test_error_limit_default_is_20_then_clangs_fatal_error", (ERROR,)),
        (F + "test_error_recovery.py::test_error_limit_option", (ERROR,))],
    "no cascades from one mistake (exact list per recovery point)": [
        (F + "test_recovery8.py::test_every_error_once_no_cascade", (ERROR,))],
    "warnings worded as DXC": [(F + "test_warnings.py::test_every_warning_has_its_group", (WARNING,)),
                               (SYN + "test_effects_syntax_warnings", (WARNING,))],
    "-Wno-<name>": [(F + "test_warnings.py::test_wno_drops_exactly_one_group", (WARNING,))],
    "-WX": [(F + "test_warnings.py::test_wx_makes_every_warning_an_error", (ERROR,)),
            ("tests/cli/test_cli_dxc_options.py::test_wx_turns_warnings_into_errors", (ERROR,))],
    "-Wall": [(F + "test_warnings.py::test_wall_with_wx_and_wno", (WARNING,))],
}

# Why an item has no executed test on both lavapipe routes.
NOTES: dict[str, str] = {
    "rasterizer-ordered views (RasterizerOrdered*)":
        "lavapipe (Mesa 25) has no fragmentShaderPixelInterlock: SPIR-V checked by spirv-val, DXIL by dxil-spirv",
    "GatherCmp* and GatherCmpRed/Green/Blue/Alpha":
        "the channel forms are DXIL only (refused for SPIR-V as DXC does); the DXIL is checked by dxil-spirv",
}
