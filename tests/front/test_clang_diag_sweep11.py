"""A sweep of clang's general diagnostics that HLSL programs reach (issue 20: programs DXC rejects that we accept).

test_dxc_diag_sweep.py covers every `hlsl` diagnostic of DXC's .td files.  DXC also refuses programs through the
C/C++ diagnostics it inherits from clang (tools/clang/include/clang/Basic/DiagnosticSemaKinds.td,
DiagnosticParseKinds.td, DiagnosticCommonKinds.td and DiagnosticLexKinds.td; the snapshot read for this sweep is
DirectXShaderCompiler 9a3e225, 2026-08-21).  Most of those 3,300 names are Objective-C, OpenMP, CUDA, modules,
exceptions, lambdas, pointers and other C++ that HLSL never parses; this file takes the ones an HLSL 2018/2021
program reaches (names, redefinitions, types, initializers, calls, statements, templates, attributes, the lexer
and the preprocessor) and gives each one disposition (a key may carry a `(variant)`: a second program for the
same diagnostic):

- REJECTED: our smallest program that makes DXC emit it gets exactly one located error from us on both targets;
  the case asserts our line:col and our message.  The wording is clang's where we follow it; where it is ours it
  names the same fault.  The place is clang's except: for "expected X" after a token clang points just past the
  previous token, we at the token found; a declaration-level error is at the declared name (clang: sometimes the
  specifier); a binary expression's error is at its operator.  Comments mark the other differences.
- WARNED: a warning clang gives by default and we give, at line:col, the program still compiling.
- NOT_APPLICABLE: DXC never gives it for HLSL (an HLSL change in its sources, or a clang Extension/DefaultIgnore
  diagnostic that is silent by default); one line says why.
- LEFT: DXC gives it and we do not; each says why it is left.
ON_DISK names the one case that needs files.  NEIGHBOURS are valid programs next to the newly refused ones: they
compile without a diagnostic; an executed test checks the values the sweep's fixes change.  RECOVERY puts three
of the single-statement mistakes in one function (RECOVERY_DECLARATIONS: three declaration-level ones in one
file) and expects exactly their three errors, each where it was alone (issue 20: "report every error, no
cascades")."""

from __future__ import annotations

import pytest
from lang_util import run_cs

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

PS = "float4 main(float4 p : A, int i : B) : SV_Target {\n"     # the body starts on line 2
E = "    return p;\n}\n"
ST = "struct S { float a; float f() { return a; } static float g() { return 1; } };\n"


def B(body: str) -> str:
    """`body` (statements) in the entry point, from line 2."""
    return PS + body + E


def G(decls: str, body: str = "") -> str:
    """`decls` from line 1, then the entry point with `body`."""
    return decls + PS + body + E


# diagnostic -> (program, profile, "line:col" of our error, our message)
REJECTED: dict[str, tuple] = {
    'err_undeclared_var_use': (B("    float x = q;\n"), "ps_6_0", "2:15", "use of undeclared identifier 'q'"),
    'err_redefinition': (B("    int a = 1; int a = 2;\n"), "ps_6_0", "2:20", "redefinition of 'a'"),
    'err_redefinition_different_type': (B("    int a = 1; float a = 2;\n"), "ps_6_0", "2:22", "redefinition of 'a'"),
    # clang: "redefinition of 'h' as different kind of symbol"
    'err_redefinition_different_kind': (G("float h() { return 1; }\nstatic float h = 1;\n"),
                                        "ps_6_0", "2:14", "redefinition of 'h'"),
    'err_redefinition_different_typedef': (G("typedef int X;\ntypedef float X;\n"),
                                           "ps_6_0", "2:15", "redefinition of 'X'"),
    'err_redefinition (function)': (G("float h() { return 1; }\nfloat h() { return 2; }\n"),
                                    "ps_6_0", "2:7", "redefinition of 'h'"),
    'err_redefinition (struct)': (G("struct T { float x; };\nstruct T { float y; };\n"),
                                  "ps_6_0", "2:8", "redefinition of 'T'"),
    'err_param_redefinition': (G("float h(float x, float x) { return x; }\n"), "ps_6_0", "1:24", "redefinition of 'x'"),
    'err_duplicate_member': (G("struct T { float x; int x; };\n"), "ps_6_0", "1:25", "duplicate member 'x'"),
    'err_redefinition_of_enumerator': (G("enum E { A, A };\n"), "ps_6_0", "1:13", "redefinition of 'A'"),
    'err_ovl_diff_return_type': (G("float h(float x) { return x; }\nint h(float x) { return 1; }\n"),
                                 "ps_6_0", "2:5", 'functions that differ only in their return type cannot be overloaded'),
    'err_unknown_typename': (B("    Foo x;\n"), "ps_6_0", "2:5", "unknown type name 'Foo'"),
    'err_expected_lparen_after_type (a struct name)': (G("struct T { float x; };\n", "    float y = T;\n"),
                          "ps_6_0", "3:16", "expected '(' after type name 'T' in an expression, found ';'"),
    'err_expected_lparen_after_type (before an operator)': (G("struct T { float x; };\n", "    float y = T + 1;\n"),
                               "ps_6_0", "3:17", "expected '(' after type name 'T' in an expression, found '+'"),
    'err_no_member': (G(ST, "    S s; s.a = 1; float y = s.b;\n"), "ps_6_0", "3:31", "no member named 'b' in 'S'"),
    'err_no_member (namespace)': (G("namespace N { static const float a = 1; }\n", "    float y = N::b;\n"),
                                  "ps_6_0", "3:15", "use of undeclared identifier 'N::b'; did you mean 'N::a'?"),
    'err_no_member (static member)': (G(ST, "    float y = S::h();\n"),
                                      "ps_6_0", "3:15", "use of undeclared identifier 'S::h'; did you mean 'S::g'?"),
    'err_expected_class_or_namespace': (B("    float y = float::x;\n"),
                                        "ps_6_0", "2:15", "use of undeclared identifier 'float::x'; did you mean 'asfloat'?"),
    'err_member_decl_does_not_match': (G(ST + "float S::h() { return 1; }\n"),
                                       "ps_6_0", "2:10", "out-of-line definition of 'h' does not match any declaration in 'S'"),
    # clang: "invalid use of member 'a' in static member function"
    'err_invalid_member_use_in_static_method': (G("struct T { float a; static float g() { return a; } };\n"),
                                                "ps_6_0", "1:47", "use of undeclared identifier 'a'"),
    'err_invalid_this_use': (G("float h() { return this.a; }\n"),
                             "ps_6_0", "1:20", "invalid use of 'this' outside of a non-static member function"),
    'err_member_call_without_object': (G(ST, "    float y = S::f();\n"),
                                       "ps_6_0", "3:15", 'call to non-static member function without an object argument'),
    # HLSL has no '->': refused where it stands
    'err_typecheck_member_reference_arrow': (G(ST, "    S s; s.a = 1; float y = s->a;\n"),
                                             "ps_6_0", "3:30", "expected ';' after declaration, found '->'"),
    'err_typecheck_member_reference_struct_union': (B("    int k = 1; float y = k.foo;\n"),
                                                    "ps_6_0", "2:28", "invalid swizzle 'foo' on type 'int'"),
    'err_member_reference_needs_call': (G("struct T { float a; };\nT h() { T t; t.a = 1; return t; }\n", "    float y = h.a;\n"),
                                        "ps_6_0", "4:15", "'h' is a function, not a variable"),
    'err_bound_member_function': (G(ST, "    S s; s.a = 1; float y = s.f;\n"),
                                  "ps_6_0", "3:31", 'reference to non-static member function must be called'),
    # a forward-declared struct is unknown until defined: our 'unknown type name' at its first use
    'err_incomplete_member_access': (G("struct F;\n", "    F f; float y = f.a;\n"),
                                     "ps_6_0", "3:5", "unknown type name 'F'"),
    'err_typecheck_decl_incomplete_type': (G("struct F;\n", "    F f;\n"), "ps_6_0", "3:5", "unknown type name 'F'"),
    'err_typecheck_decl_incomplete_type (void)': (B("    void v;\n"),
                                                  "ps_6_0", "2:10", "variable 'v' has incomplete type 'void'"),
    'err_field_incomplete': (G("struct F;\nstruct T { F f; };\n"), "ps_6_0", "2:12", "unknown type name 'F'"),
    'err_illegal_decl_array_incomplete_type': (G("struct F;\n", "    F f[2];\n"),
                                               "ps_6_0", "3:5", "unknown type name 'F'"),
    'err_func_def_incomplete_result': (G("struct F;\nF h() { }\n"), "ps_6_0", "2:1", "unknown type name 'F'"),
    'err_param_with_void_type': (G("float h(void y) { return 1; }\n"), "ps_6_0", "1:14",
                                 "argument may not have 'void' type"),
    'err_void_only_param': (G("float h(float x, void) { return x; }\n"), "ps_6_0", "1:22",
                            "'void' must be the first and only parameter if specified"),
    'err_void_param_qualified': (G("float h(const void) { return 1; }\n"), "ps_6_0", "1:19",
                                 "'void' as parameter must not have type qualifiers"),
    'err_expected_class_name': (G("struct T : float { float x; };\n"),
                                "ps_6_0", "1:12", "base type 'float' is not a struct"),
    'err_incomplete_base_class': (G("struct F;\nstruct T : F { float x; };\n"),
                                  "ps_6_0", "2:12", "unknown type name 'F'"),
    # multiple bases are not parsed: refused at the second one
    'err_duplicate_base_class': (G("struct A { float x; };\nstruct A2 : A, A { float y; };\n"),
                                 "ps_6_0", "2:14", "expected '{' to begin the struct body, found ','"),
    'err_invalid_sign_spec': (B("    unsigned float x = 1;\n"),
                              "ps_6_0", "2:14", "cannot combine with previous 'unsigned' declaration specifier"),
    'err_invalid_decl_spec_combination': (B("    int float x = 1;\n"),
                                          "ps_6_0", "2:9", "cannot combine with previous 'int' declaration specifier"),
    'err_invalid_decl_spec_combination (storage classes)': (G("static extern float g;\n"),
                                                            "ps_6_0", "1:21", "'extern' and 'static' cannot be used together for a global variable"),
    'err_invalid_storage_class_in_func_decl': (G("float h(static float x) { return x; }\n"),
                                               "ps_6_0", "1:22", "'static' is not a valid modifier for a parameter"),
    'err_typecheck_negative_array_size': (B("    float a[-1];\n"),
                                          "ps_6_0", "2:13", 'array size must be greater than zero (is -1)'),
    'err_array_size_non_int': (B("    float a[1.5];\n"),
                               "ps_6_0", "2:13", 'expression is not an integer constant expression'),
    'err_array_too_large': (B("    float a[0x7fffffffffff];\n"),
                            "ps_6_0", "2:13", 'array size 140737488355327 exceeds the limit of 16777216 elements'),
    # clang's Extension (silent); we refuse a zero-sized array
    'ext_typecheck_zero_array_size': (B("    float a[0];\n"),
                                      "ps_6_0", "2:13", 'array size must be greater than zero (is 0)'),
    'err_typecheck_incomplete_array_needs_initializer': (B("    float a[];\n"),
                                                         "ps_6_0", "2:11", "definition of variable 'a' with unsized array type 'float[]' is not allowed"),
    'err_excess_initializers': (B("    float a[2] = {1, 2, 3};\n"),
                                "ps_6_0", "2:18", "too many elements in initializer for type 'float[2]' (expected 2, have 3)"),
    'err_excess_initializers (struct)': (G("struct T { float x; };\n", "    T t = {1, 2};\n"),
                                         "ps_6_0", "3:11", "too many elements in initializer for type 'T' (expected 1, have 2)"),
    'err_incorrect_num_initializers (too few)': (B("    float3 v = float3(1, 2);\n"),
                                                 "ps_6_0", "2:16", 'too few elements in vector initialization (expected 3 elements, have 2)'),
    'err_incorrect_num_initializers (too many)': (B("    float2 v = float2(1, 2, 3);\n"),
                                                  "ps_6_0", "2:16", 'too many elements in vector initialization (expected 2 elements, have 3)'),
    'err_incorrect_num_initializers (array)': (B("    float a[3] = {1, 2};\n"),
                                               "ps_6_0", "2:18", "too few elements in initializer for type 'float[3]' (expected 3, have 2)"),
    'warn_array_index_precedes_bounds': (B("    float a[2] = {1, 2}; float y = a[-1];\n"),
                                         "ps_6_0", "2:38", "index -1 is out of bounds for type 'float[2]'"),
    'err_typecheck_subscript_not_integer': (B("    float a[2] = {1, 2}; float y = a[p];\n"),
                                            "ps_6_0", "2:38", "array subscript is not an integer (type 'float4')"),
    'err_typecheck_subscript_value': (B("    float s = 1; float y = s[0];\n"),
                                      "ps_6_0", "2:29", "subscripted value of type 'float' is not an array, vector or matrix"),
    'err_typecheck_invalid_operands': (G(ST, "    S s, t; s.a = 1; t = s; float y = s + t;\n"),
                                       "ps_6_0", "3:41", "invalid operands to binary expression: 'S' has no 'operator+'"),
    'err_typecheck_unary_expr': (G(ST, "    S s; s.a = 1; S t = -s;\n"),
                                 "ps_6_0", "3:25", "invalid argument type 'S' to unary operator '-'"),
    'err_typecheck_illegal_increment_decrement': (G(ST, "    S s; s.a = 1; s++;\n"),
                                                  "ps_6_0", "3:20", "cannot increment value of type 'S'"),
    'err_typecheck_expression_not_modifiable_lvalue': (B("    (p + 1) = 2;\n"),
                                                       "ps_6_0", "2:8", 'expression is not assignable'),
    'err_typecheck_assign_const': (B("    const float c = 1; c = 2;\n"),
                                   "ps_6_0", "2:24", "cannot assign to const-qualified variable 'c'"),
    'err_typecheck_assign_const (parameter)': (G("float h(const float x) { x = 2; return x; }\n"),
                                               "ps_6_0", "1:26", "cannot assign to const-qualified variable 'x'"),
    'err_typecheck_convert_incompatible': (G(ST, "    S s; s = 1.5;\n"),
                                           "ps_6_0", "3:14", "cannot convert from 'float' to 'S'"),
    'err_typecheck_call_not_function': (B("    float f = 1; float y = f(2);\n"),
                                        "ps_6_0", "2:28", "called object 'f' is not a function"),
    # ours: overload resolution's words (clang: 'too many arguments to function call, expected 1, have 2')
    'err_typecheck_call_too_many_args': (G("float h(float x) { return x; }\n", "    float y = h(1, 2);\n"),
                                         "ps_6_0", "3:15", "no matching function for call to 'h' with arguments (int, int)"),
    'err_typecheck_call_too_few_args': (G("float h(float x, float z) { return x; }\n", "    float y = h(1);\n"),
                                        "ps_6_0", "3:15", "no matching function for call to 'h' with arguments (int)"),
    'err_typecheck_call_too_many_args_at_most': (G("float h(float x, float z = 1) { return x; }\n", "    float y = h(1, 2, 3);\n"),
                                                 "ps_6_0", "3:15", "no matching function for call to 'h' with arguments (int, int, int)"),
    'err_typecheck_call_too_few_args_at_least': (G("float h(float x, float z, float w = 1) { return x; }\n", "    float y = h(1);\n"),
                                                 "ps_6_0", "3:15", "no matching function for call to 'h' with arguments (int)"),
    # ours names the argument that cannot convert
    'err_ovl_no_viable_function_in_call': (G(ST + "float h(float x) { return x; }\n", "    S s; s.a = 1; float y = h(s);\n"),
                                           "ps_6_0", "4:31", "cannot convert 'S' to 'float'"),
    'err_ovl_ambiguous_call': (G("float h(float x, int z) { return x; }\nfloat h(int x, float z) { return z; }\n", "    float y = h(i, i);\n"),
                               "ps_6_0", "4:15", "call to 'h' is ambiguous"),
    'err_ovl_no_viable_member_function_in_call': (G(ST, "    S s; s.a = 1; float y = s.f(1);\n"),
                                                  "ps_6_0", "3:31", "no matching function for call to 'f' with arguments (int)"),
    'err_param_default_argument_missing': (G("float h(float x = 1, float z) { return x; }\n"),
                                           "ps_6_0", "1:28", "missing default argument on parameter 'z'"),
    'err_param_default_argument_redefinition': (G("float h(float x = 1);\nfloat h(float x = 1) { return x; }\n"),
                                                "ps_6_0", "2:19", 'redefinition of default argument'),
    'err_typecheck_cast_to_incomplete': (G("struct F;\n", "    float y = (F)1;\n"),
                                         "ps_6_0", "3:16", "unknown type name 'F'"),
    'err_typecheck_statement_requires_scalar': (G(ST, "    S s; s.a = 1; if (s) return 1;\n"),
                                                "ps_6_0", "3:23", "value of type 'S' is not contextually convertible to 'bool'"),
    'err_typecheck_statement_requires_integer': (B("    switch (p.x) { default: break; }\n"),
                                                 "ps_6_0", "2:15", "switch condition must be an integer, not 'float'"),
    'err_init_conversion_failed': (G("void h() {}\n", "    float y = h();\n"),
                                   "ps_6_0", "3:15", "cannot convert from 'void' to 'float'"),
    'err_typecheck_invalid_operands (==)': (G(ST, "    S s, t; s.a = 1; t = s; bool b = s == t;\n"),
                                            "ps_6_0", "3:40", "invalid operands to binary expression: 'S' has no 'operator=='"),
    'err_expr_not_ice': (B("    switch (i) { case i: break; }\n"),
                         "ps_6_0", "2:23", 'expression is not an integer constant expression'),
    'err_typecheck_expect_int': (B("    uint u = ~p.x;\n"),
                                 "ps_6_0", "2:14", "invalid argument type 'float' to unary operator '~'"),
    'err_typecheck_cond_incompatible_operands': (G(ST, "    S s; s.a = 1; float y = i ? s : 1.0;\n"),
                                                 "ps_6_0", "3:31", 'conditional operator only supports results with numeric scalar, vector, or matrix types.'),
    'err_sizeof_alignof_incomplete_type': (G("struct F;\n", "    uint n = sizeof(F);\n"),
                                           "ps_6_0", "3:21", "unknown type name 'F'"),
    'err_expected_expression (after a comma)': (B("    float y = (1, );\n"),
                                                "ps_6_0", "2:19", "expected an expression, found ')'"),
    'ext_return_missing_expr': (G("float h() { return; }\n"),
                                "ps_6_0", "1:13", "non-void function 'h' should return a value"),
    'ext_return_has_expr': (G("void h() { return 1; }\n"),
                            "ps_6_0", "1:12", "void function 'h' should not return a value"),
    # DefaultError in DXC's .td, so an error; clang points at the closing brace, we at the body's '{'
    'warn_maybe_falloff_nonvoid_function': (G("float h(float x) { if (x > 0) return 1; }\n"),
                                            "ps_6_0", "1:18", "non-void function 'h' does not return a value on all control paths"),
    # (as above: DefaultError)
    'warn_falloff_nonvoid_function': (G("float h(float x) { x = 1; }\n"),
                                      "ps_6_0", "1:18", "non-void function 'h' does not return a value on all control paths"),
    'err_duplicate_case': (B("    switch (i) { case 1: break; case 1: break; }\n"),
                           "ps_6_0", "2:33", "duplicate case value '1'"),
    'err_multiple_default_labels_defined': (B("    switch (i) { default: break; default: break; }\n"),
                                            "ps_6_0", "2:34", 'multiple default labels in one switch'),
    'err_case_not_in_switch': (B("    case 1: i = 2;\n"), "ps_6_0", "2:5", "'case' statement not in switch statement"),
    'err_default_not_in_switch': (B("    default: i = 2;\n"),
                                  "ps_6_0", "2:5", "'default' statement not in switch statement"),
    'err_break_not_in_loop_or_switch': (B("    break;\n"),
                                        "ps_6_0", "2:5", "'break' statement not in loop or switch statement"),
    'err_continue_not_in_loop': (B("    switch (i) { case 1: continue; }\n"),
                                 "ps_6_0", "2:26", "'continue' statement not in loop statement"),
    'err_continue_not_in_loop (function body)': (B("    continue;\n"),
                                                 "ps_6_0", "2:5", "'continue' statement not in loop statement"),
    'err_hlsl_unsupported_construct (goto)': (B("    goto L;\n"), "ps_6_0", "2:5", 'goto is unsupported in HLSL'),
    'err_hlsl_unsupported_construct (label)': (B("L: i = 1;\n"), "ps_6_0", "2:1", 'label is unsupported in HLSL'),
    'err_label_end_of_compound_statement': (B("    switch (i) { case 1: }\n"),
                                            "ps_6_0", "2:25", 'label at end of compound statement: expected statement'),
    'err_expected_case_before_expression': (B("    switch (i) { 1: break; }\n"),
                                            "ps_6_0", "2:18", "expected 'case' or 'default', found '1'"),
    'err_expected_while': (B("    do { i++; } until (i < 3);\n"), "ps_6_0", "2:17", "expected 'while', found 'until'"),
    'err_expected_semi_for': (B("    for (int k = 0; k < 3) {}\n"), "ps_6_0", "2:26", "expected ';', found ')'"),
    'err_expected_lparen_after': (B("    if i == 1 return 1;\n"), "ps_6_0", "2:8", "expected '(', found 'i'"),
    'err_expected_statement': (B("    if (i) )\n"), "ps_6_0", "2:12", "expected an expression, found ')'"),
    'err_expected_semi_after_stmt': (PS + "    return p\n}\n",
                                     "ps_6_0", "3:1", "expected ';' after return statement, found '}'"),
    'err_expected_semi_after_expr': (B("    i = 2\n"),
                                     "ps_6_0", "3:5", "expected ';' after expression, found 'return'"),
    'err_expected_semi_declaration': (B("    float y = 1\n"),
                                      "ps_6_0", "3:5", "expected ';' after declaration, found 'return'"),
    'err_expected_expression': (B("    float y = ;\n"), "ps_6_0", "2:15", "expected an expression, found ';'"),
    'err_expected_expression (else)': (B("    else i = 1;\n"), "ps_6_0", "2:5", 'expected expression'),
    # clang: 'expected unqualified-id'; we: the malformed literal
    'err_expected_unqualified_id': (B("    float 3x = 1;\n"), "ps_6_0", "2:11", "invalid numeric literal '3x'"),
    'err_extraneous_closing_brace': (G("}\n"), "ps_6_0", "1:1", "expected a type, found '}'"),
    'err_expected_fn_body': (G("float h(float x) return x;\n"), "ps_6_0", "1:18", "expected '{', found 'return'"),
    # (`struct T { float ; };` is ParseCXXClassMemberDeclaration's free-standing decl-spec: clang's warning,
    # ext_no_declarators in WARNED)
    'err_expected_member_name_or_semi': (G("struct T { float 1; };\n"),
                                         "ps_6_0", "1:18", "expected a field name, found '1'"),
    'err_expected_semi_decl_list': (G("struct T { float x float y; };\n"),
                                    "ps_6_0", "1:20", "expected ';' after struct field, found 'float'"),
    'err_expected_after (struct)': (G("struct T { float x; }\nfloat g;\n"),
                                    "ps_6_0", "2:1", "cannot combine with previous '}' declaration specifier"),
    'err_expected (})': (PS + "    return p;\n", "ps_6_0", "1:50", "expected '}' to close the block opened here"),
    'err_expected ())': (B("    float y = (1 + 2;\n"),
                         "ps_6_0", "2:21", "expected ')' to close the parenthesis, found ';'"),
    'err_expected (])': (B("    float a[2] = {1, 2}; float y = a[1;\n"), "ps_6_0", "2:39", "expected ']', found ';'"),
    'err_expected_type': (G("float h(float x, ) { return x; }\n"), "ps_6_0", "1:18", "expected a type, found ')'"),
    # clang: at `const` (2:16); we at the operand after the parenthesis
    'err_typename_requires_specqual': (B("    float y = (const)1;\n"),
                                       "ps_6_0", "2:22", "expected ';' after declaration, found '1'"),
    'err_expected_unqualified_id (after a struct)': (G("struct { float x; } 3;\n"),
                                                     "ps_6_0", "1:20", "expected ';' after struct"),
    # DXC never emits it (HLSL operators skip clang's check, see _BINOP): our deliberate error, docs/CONFORMANCE.md
    'warn_division_by_zero': (B("    int k = i / 0;\n"), "ps_6_0", "2:15", 'division by zero'),
    'warn_remainder_by_zero': (B("    int k = i % 0;\n"), "ps_6_0", "2:15", 'division by zero'),
    'err_integer_literal_too_large': (B("    int k = 99999999999999999999999;\n"),
                                      "ps_6_0", "2:13", 'integer literal is too large to be represented in any integer type'),
    'err_template_arg_must_be_type': (B("    vector<1, 2> v = 0;\n"), "ps_6_0", "2:12", 'expected a scalar type'),
    'err_template_arg_must_be_expr': (B("    vector<float, float> v = 0;\n"),
                                      "ps_6_0", "2:19", 'unsupported expression'),
    'err_template_arg_list_different_arity': (B("    vector<float, 2, 3> v = 0;\n"),
                                              "ps_6_0", "2:5", "'vector' takes 2 template arguments"),
    'err_template_arg_not_ice': (B("    vector<float, i> v = 0;\n"),
                                 "ps_6_0", "2:19", 'expression is not an integer constant expression'),
    'err_template_missing_args': (G("template<typename T> struct W { T v; };\n", "    W w;\n"),
                                  "ps_6_0", "3:5", "'W' takes 1 template argument"),
    'err_template_arg_list_different_arity (struct template)': (G("template<typename T> struct W { T v; };\n", "    W<float, int> w;\n"),
                                                                "ps_6_0", "3:5", "'W' takes 1 template argument"),
    'err_template_param_shadow': (G("template<typename T, typename T> T h(T x) { return x; }\n"),
                                  "ps_6_0", "1:31", "declaration of 'T' shadows template parameter"),
    'err_redefinition (template)': (G("template<typename T> struct W { T v; };\ntemplate<typename T> struct W { T v; };\n"),
                                    "ps_6_0", "2:29", "redefinition of template 'W'"),
    'err_ovl_no_viable_function_in_call (template)': (G("template<typename T> T h(T x, T y) { return x; }\n", "    float y = h(1.0f, i);\n"),
                                                      "ps_6_0", "3:15", "no matching function template for call to 'h': conflicting types 'float' and 'int' deduced for template parameter 'T'"),
    'err_expected_less_after': (G("template float h() { return 1; }\n"),
                                "ps_6_0", "1:10", "expected '<' after 'template', found 'float'"),
    'err_ovl_no_viable_function_in_call (not deducible)': (G("template<typename T> T h() { return 1; }\n", "    float y = h();\n"),
                                                           "ps_6_0", "3:15", "no matching function template for call to 'h': cannot deduce template parameter 'T'"),
    'err_attribute_wrong_number_arguments': ("[numthreads(1,1)] void main() {}\n",
                                             "cs_6_0", "1:2", "attribute 'numthreads' takes three arguments, not 2"),
    'err_attribute_too_many_arguments': (B("    [unroll(2, 3)] for (int k = 0; k < 3; k++) {}\n"),
                                         "ps_6_0", "2:6", "attribute 'unroll' takes at most one argument, not 2"),
    'err_attribute_argument_n_type': (B("    [unroll(p.x)] for (int k = 0; k < 3; k++) {}\n"),
                                      "ps_6_0", "2:15", 'expression is not an integer constant expression'),
    'err_unterminated_block_comment': (B("    /* open\n"), "ps_6_0", "2:5", 'unterminated comment'),
    'ext_unterminated_string': (B("    string s = \"abc;\n"), "ps_6_0", "2:16", 'unterminated string literal'),
    'ext_unterminated_char': (B("    int c = 'a;\n"), "ps_6_0", "2:13", 'unterminated character literal'),
    'ext_empty_character': (B("    int c = '';\n"), "ps_6_0", "2:13", 'empty character constant'),
    'err_invalid_suffix_integer_constant': (B("    int k = 12abc;\n"),
                                            "ps_6_0", "2:13", "invalid numeric literal '12abc'"),
    'err_invalid_suffix_float_constant': (B("    float y = 1.5q;\n"),
                                          "ps_6_0", "2:15", "invalid numeric literal '1.5q'"),
    'err_exponent_has_no_digits': (B("    float y = 1e;\n"), "ps_6_0", "2:15", "invalid numeric literal '1e'"),
    'err_invalid_octal_digit': (B("    int k = 09;\n"), "ps_6_0", "2:13", "invalid integer literal '09'"),
    'err_invalid_binary_digit': (B("    int k = 0b102;\n"), "ps_6_0", "2:13", "invalid numeric literal '0b102'"),
    'err_hexconstant_requires_exponent': (B("    float y = 0x1.5;\n"),
                                          "ps_6_0", "2:15", "invalid numeric literal '0x1.5'"),
    'err_hex_escape_no_digits': (B("    int c = '\\x';\n"), "ps_6_0", "2:14", '\\x used with no following hex digits'),
    # clang: 'version control conflict marker in file'; we: the first token it cannot parse
    'err_conflict_marker': (B("<<<<<<< HEAD\n"), "ps_6_0", "2:1", "expected an expression, found '<<'"),
    'err_non_ascii': (B("    float y\u00a7 = 1;\n"), "ps_6_0", "2:12", "invalid character '§'"),
    'err_expected_expression (@)': (B("    float y = 1 @ 2;\n"), "ps_6_0", "2:17", "invalid character '@'"),
    'err_hexconstant_requires_digits': (B("    float y = 0x.p1;\n"),
                                        "ps_6_0", "2:15", "invalid numeric literal '0x.p1'"),
    'err_octal_escape_too_large': (B("    int c = '\\777';\n"), "ps_6_0", "2:14", 'octal escape sequence out of range'),
    'err_hex_escape_too_large': (B("    int c = '\\x1ff';\n"), "ps_6_0", "2:14", 'hex escape sequence out of range'),
    'err_pp_hash_error': ("#error stop here\n" + B(""), "ps_6_0", "1:1", 'stop here'),
    'err_pp_invalid_directive': ("#frobnicate\n" + B(""),
                                 "ps_6_0", "1:2", "invalid preprocessing directive '#frobnicate'"),
    'err_pp_unterminated_conditional': ("#if 1\n" + B(""), "ps_6_0", "1:1", 'unterminated conditional directive'),
    'err_pp_endif_without_if': ("#endif\n" + B(""), "ps_6_0", "1:2", '#endif without #if'),
    'pp_err_else_without_if': ("#else\n" + B(""), "ps_6_0", "1:2", '#else without #if'),
    'pp_err_elif_without_if': ("#elif 1\n" + B(""), "ps_6_0", "1:2", '#elif without #if'),
    'pp_err_else_after_else': ("#if 0\n#else\n#else\n#endif\n" + B(""), "ps_6_0", "3:2", '#else after #else'),
    'pp_err_elif_after_else': ("#if 0\n#else\n#elif 1\n#endif\n" + B(""), "ps_6_0", "3:2", '#elif after #else'),
    'err_pp_macro_not_identifier': ("#define 3 x\n" + B(""), "ps_6_0", "1:9", 'macro name must be an identifier'),
    'err_pp_missing_macro_name': ("#define\n" + B(""), "ps_6_0", "1:2", 'macro name missing'),
    'err_too_many_args_in_macro_invoc': ("#define M(a) a\n" + B("    float y = M(1, 2);\n"),
                                         "ps_6_0", "3:15", "macro 'M' passed 2 arguments, but takes just 1"),
    'err_too_few_args_in_macro_invoc': ("#define M(a, b) a\n" + B("    float y = M(1);\n"),
                                        "ps_6_0", "3:15", "macro 'M' requires 2 arguments, but only 1 given"),
    'err_unterm_macro_invoc': ("#define M(a) a\n" + B("    float y = M(1;\n"),
                               "ps_6_0", "3:15", "unterminated call to macro 'M'"),
    'err_pp_file_not_found': ('#include "no_such_file.hlsli"\n' + B(""),
                              "ps_6_0", "1:10", "'no_such_file.hlsli' file not found"),
    'err_pp_expects_filename': ("#include no_such_file\n" + B(""),
                                "ps_6_0", "1:10", '#include expects "FILENAME" or <FILENAME>'),
    'err_pp_empty_filename': ('#include ""\n' + B(""), "ps_6_0", "1:10", 'empty filename'),
    'err_pp_expected_value_in_expr': ("#if\n#endif\n" + B(""), "ps_6_0", "1:2", '#if with no expression'),
    'err_pp_division_by_zero': ("#if 1 / 0\n#endif\n" + B(""),
                                "ps_6_0", "1:7", 'division by zero in preprocessor expression'),
    'err_pp_remainder_by_zero': ("#if 1 % 0\n#endif\n" + B(""),
                                 "ps_6_0", "1:7", 'division by zero in preprocessor expression'),
    'err_pp_expected_rparen': ("#if (1\n#endif\n" + B(""), "ps_6_0", "1:7", "expected ')' in preprocessor expression"),
    'err_pp_colon_without_question': ("#if 1 : 2\n#endif\n" + B(""),
                                      "ps_6_0", "1:7", "unexpected token ':' in preprocessor expression"),
    'err_pp_expr_bad_token_start_expr': ("#if *\n#endif\n" + B(""),
                                         "ps_6_0", "1:5", "invalid token '*' in preprocessor expression"),
    'err_pp_expr_bad_token_binop': ("#if 1 2\n#endif\n" + B(""),
                                    "ps_6_0", "1:7", "unexpected token '2' in preprocessor expression"),
    'err_expected (: in #if)': ("#if 1 ? 2\n#endif\n" + B(""), "ps_6_0", "1:10", "expected ':' in preprocessor expression"),
    'err_pp_expected_after': ("#if defined(X\n#endif\n" + B(""), "ps_6_0", "1:13", "missing ')' after 'defined'"),
    'err_pp_macro_not_identifier (defined)': ("#if defined 3\n#endif\n" + B(""), "ps_6_0", "1:13",
                                              "macro name must be an identifier after 'defined'"),
    'err_pp_expected_eol': ("#if 1 )\n#endif\n" + B(""), "ps_6_0", "1:7", "unexpected token ')' in preprocessor expression"),
    'err_pp_illegal_floating_literal': ("#if 1.5\n#endif\n" + B(""), "ps_6_0", "1:5",
                                        "floating point literal in preprocessor expression"),
    # clang: 'invalid token in macro parameter list'
    'err_pp_invalid_tok_in_arg_list': ("#define M(a, +) a\n" + B(""), "ps_6_0", "1:14",
                                       "expected parameter name in macro parameter list"),
    'err_pp_line_invalid_filename': ("#line 3 x\n" + B(""), "ps_6_0", "1:9", "invalid filename for #line directive"),
    # clang: '#line directive requires a simple digit sequence'
    'err_pp_line_digit_sequence': ("#line 0x3\n" + B(""), "ps_6_0", "1:7",
                                   "#line directive requires a positive integer argument"),
    'err_pp_duplicate_name_in_arg_list': ("#define M(a, a) a\n" + B(""),
                                          "ps_6_0", "1:14", "duplicate macro parameter 'a'"),
    'err_pp_stringize_not_parameter': ("#define M(a) #b\n" + B(""),
                                       "ps_6_0", "1:14", "'#' is not followed by a macro parameter"),
    'err_paste_at_start': ("#define M(a) ## a\n" + B(""),
                           "ps_6_0", "1:14", "'##' cannot appear at either end of a macro expansion"),
    'err_paste_at_end': ("#define M(a) a ##\n" + B(""),
                         "ps_6_0", "1:16", "'##' cannot appear at either end of a macro expansion"),
    'err_pp_missing_rparen_in_macro_def': ("#define M(a\n" + B(""),
                                           "ps_6_0", "1:11", "expected ',' or ')' in macro parameter list"),
    'err_pp_expected_ident_in_arg_list': ("#define M(1) 1\n" + B(""),
                                          "ps_6_0", "1:11", 'expected parameter name in macro parameter list'),
    'err_pp_expected_comma_in_arg_list': ("#define M(a b) 1\n" + B(""),
                                          "ps_6_0", "1:13", "expected ',' or ')' in macro parameter list"),
    'err_pp_line_requires_integer': ("#line x\n" + B(""),
                                     "ps_6_0", "1:7", '#line directive requires a positive integer argument'),
    'err_defined_macro_name': ("#define defined 1\n" + B(""),
                               "ps_6_0", "1:9", "'defined' cannot be used as a macro name"),
    'err_pp_bad_paste': ("#define M(a, b) a ## b\n" + B("    int k = M(+, -) 1;\n"),
                         "ps_6_0", "3:13", 'pasting "+" and "-" does not give a valid preprocessing token'),
    'err_pp_unterminated_conditional (#ifdef)': ("#ifdef X\n" + B(""),
                                                 "ps_6_0", "1:1", 'unterminated conditional directive'),
    'err_pp_macro_not_identifier (#ifdef)': ("#ifdef 3\n#endif\n" + B(""),
                                             "ps_6_0", "1:8", 'macro name must be an identifier'),
    'err_pp_missing_macro_name (#undef)': ("#undef\n" + B(""), "ps_6_0", "1:2", 'macro name missing'),
    'err_typecheck_non_object_not_modifiable_lvalue': (G("float h() { return 1; }\n", "    h = 1;\n"),
                                                       "ps_6_0", "3:5", "'h' is a function, not a variable"),
    'err_unexpected_namespace': (G("namespace N { static const float a = 1; }\n", "    float y = N;\n"),
                                 "ps_6_0", "3:15", "use of undeclared identifier 'N'"),
    'err_expected_namespace_name': (G("using namespace Q;\n"),
                                    "ps_6_0", "1:17", "expected namespace name, 'Q' is not a namespace"),
    'err_excess_initializers (scalar)': (B("    int k = {1, 2};\n"),
                                         "ps_6_0", "2:13", "too many elements in initializer for type 'int' (expected 1, have 2)"),
    'err_default_init_const': (B("    const float c;\n"), "ps_6_0", "2:17", "const variable 'c' must be initialized"),
    'err_default_init_const (global)': (G("static const float c;\n"),
                                        "ps_6_0", "1:20", "const variable 'c' must be initialized"),
    'err_static_assert_failed': (G('static const int N = 3;\nstatic_assert(N == 2, "N is two");\n'),
                                 "ps_6_0", "2:1", 'static_assert failed "N is two"'),
    'err_typename_nested_not_found': (G(ST, "    S::Q x;\n"), "ps_6_0", "3:5", "unknown type name 'S::Q'"),
    'err_bitfield_has_negative_width': (G("struct T { uint a : -1; };\n"),
                                        "ps_6_0", "1:21", "expected a semantic, register or packoffset, found '-'"),
    'err_bitfield_width_exceeds_type_size': (G("struct T { uint a : 40; };\n"),
                                             "ps_6_0", "1:21", "width of bit-field 'a' (40 bits) exceeds the width of its type (32 bits)"),
    'err_bitfield_has_zero_width': (G("struct T { uint a : 0; };\n"),
                                    "ps_6_0", "1:21", "named bit-field 'a' has zero width"),
    'err_not_integral_type_bitfield': (G("struct T { float a : 3; };\n"),
                                       "ps_6_0", "1:18", "bit-field 'a' has non-integral type 'float'"),
    'err_static_assert_expression_is_not_constant': (B("    static_assert(i == 2, \"x\");\n"),
                                                     "ps_6_0", "2:21", 'static_assert expression is not an integral constant expression'),
    "err_static_non_static": (G("float h(float x);\nstatic float h(float x) { return x; }\n"), "ps_6_0", "2:14",
                              "static declaration of 'h' follows non-static declaration"),
    "err_redefinition_different_kind (typedef and variable)": (G("typedef int X;\nstatic int X = 1;\n"), "ps_6_0", "2:12",
                                                               "redefinition of 'X' as different kind of symbol"),
    "err_member_redeclared": (G("struct T { float f(); float f(); };\n"), "ps_6_0", "1:29",
                              "class member cannot be redeclared"),
    "err_member_redeclared (with bodies)": (G("struct T { float f() { return 1; } float f() { return 2; } };\n"),
                                            "ps_6_0", "1:42", "class member cannot be redeclared"),
    # the item ends after the '}' that closes the body whose '{' is missing: no second error there
    "err_expected ({ of a cbuffer)": (G("cbuffer C float x; };\n"), "ps_6_0", "1:11",
                                      "expected '{' to begin the cbuffer body, found 'float'"),
    "err_expected_lbrace_after_base_specifiers": (G("struct A { float x; };\nstruct D : A float y; };\n"), "ps_6_0",
                                                  "2:14", "expected '{' to begin the struct body, found 'float'"),
    "err_member_name_of_class": (G("struct T { float T; };\n"), "ps_6_0", "1:18",
                                 "member 'T' has the same name as its class"),
    "err_duplicate_member (field and method)": (G("struct T { float f; float f() { return 1; } };\n"), "ps_6_0", "1:27",
                                                "duplicate member 'f'"),
    "err_enum_invalid_underlying": (G("enum class E : float { A };\n"), "ps_6_0", "1:16",
                                    "non-integral type 'float' is an invalid underlying type"),
    "err_invalid_non_static_member_use": (G(ST, "    float y = S::a;\n"), "ps_6_0", "3:15",
                                          "invalid use of non-static data member 'a'"),
    # clang: "invalid application of 'sizeof' to a function type"
    "err_sizeof_alignof_bitfield": (G("struct T { uint a : 3; };\n", "    T t; t.a = 1; uint n = sizeof(t.a);\n"), "ps_6_0",
                                    "3:37", "invalid application of 'sizeof' to bit-field"),
    "err_static_data_member_not_allowed_in_local_class": (B("    struct L { static float x; };\n"), "ps_6_0", "2:29",
                                                          "static data member 'x' not allowed in local class 'L'"),
    "err_ambiguous_reference": (G("namespace A { static const int x = 1; }\nnamespace C { static const int x = 2; }\n"
                                  "using namespace A;\nusing namespace C;\n", "    int y = x;\n"), "ps_6_0", "6:13",
                                "reference to 'x' is ambiguous"),
    "err_param_redefinition (a declaration)": (G("float h(float x, float x);\n"), "ps_6_0", "1:24",
                                               "redefinition of parameter 'x'"),
    "err_redefinition (function template)": (G("template<typename T> T h(T x) { return x; }\n"
                                               "template<typename U> U h(U y) { return y; }\n"), "ps_6_0", "2:24",
                                             "redefinition of 'h'"),
    # with the note 'jump bypasses variable initialization' at `k` (C++ [stmt.dcl]p3; DXC's JumpDiagnostics.cpp)
    "err_switch_into_protected_scope": (B("    switch (i) { case 1: int k = 1; break; case 2: k = 2; break; }\n"),
                                        "ps_6_0", "2:44", "cannot jump from switch statement to this case label"),
    "err_switch_into_protected_scope (default)": (B("    switch (i) { case 1: float t = 2; i = t; break; default: i = 3; }\n"),
                                                  "ps_6_0", "2:53", "cannot jump from switch statement to this case label"),
    "err_param_default_argument_references_param": (G("float h(float x, float y = x) { return y; }\n"), "ps_6_0",
                                                    "1:28", "default argument references parameter 'x'"),
    "err_sizeof_alignof_function_type": (G("float h() { return 1; }\n", "    uint n = sizeof(h);\n"), "ps_6_0", "3:21",
                                         "'h' is a function, not a variable"),
    # clang: "expected '(' for function-style cast or type construction"
    "err_expected_lparen_after_type": (B("    float y = float;\n"), "ps_6_0", "2:20",
                                       "expected '(' after type name 'float' in an expression, found ';'"),
    "err_expected_string_literal": (G("static_assert(1 == 1, 2);\n"), "ps_6_0", "1:23", "expected string literal, found '2'"),
    "err_expected_semi_after_static_assert": (G("static_assert(1 == 1)\nstatic float g;\n"), "ps_6_0", "2:1",
                                              "expected ';' after static_assert, found 'static'"),
    # clang: "extraneous ')' after condition, expected a statement"
    "err_extraneous_rparen_in_condition": (B("    if (i)) i = 1;\n"), "ps_6_0", "2:11", "expected an expression, found ')'"),
    "err_function_template_partial_spec": (G("template<typename T> float h(T x) { return 1; }\n"
                                             "template<typename T> float h<T>(T x) { return 2; }\n"), "ps_6_0", "2:28",
                                           "function template partial specialization is not allowed"),
    # clang: "call to member function 'f' is ambiguous"
    "err_ovl_ambiguous_member_call": (G("struct T { float f(float x, int z) { return x; } "
                                        "float f(int x, float z) { return z; } };\n", "    T t; float y = t.f(i, i);\n"),
                                      "ps_6_0", "3:22", "call to 'f' is ambiguous"),
    # clang: 'template parameter missing a default argument'
    "err_template_param_default_arg_missing": (G("template<typename T = int, typename U> struct W { T a; U b; };\n"),
                                               "ps_6_0", "1:37",
                                               "template parameter 'U' is missing a default argument (an earlier one "
                                               "has one)"),
    "err_undeclared_var_use (scoped enum)": (G("enum class E { A };\n", "    int k = A;\n"), "ps_6_0", "3:13",
                                             "use of undeclared identifier 'A'"),
    "err_no_member (scoped enum)": (G("enum class E { A };\n", "    int k = (int)E::Q;\n"), "ps_6_0", "3:18",
                                    "use of undeclared identifier 'E::Q'; did you mean 'E::A'?"),
    "err_duplicate_case (enum)": (G("enum E { A = 1, B = 1 };\n", "    switch (i) { case A: break; case B: break; }\n"),
                                  "ps_6_0", "3:33", "duplicate case value '1'"),
    "err_operator_overload_must_be": (G("struct T { float v; T operator+(T a, T b) { return a; } };\n"), "ps_6_0",
                                      "1:23", "overloaded 'operator+' must be a unary or binary operator (has 3 "
                                      "parameters)"),
    "err_operator_overload_must_be (unary)": (G("struct T { float v; bool operator!(T a) { return true; } };\n"),
                                              "ps_6_0", "1:26",
                                              "overloaded 'operator!' must be a unary operator (has 2 parameters)"),
    "err_ambiguous_reference (a global and a used namespace's)": (
        G("namespace A { static const int x = 1; }\nstatic const int x = 2;\nusing namespace A;\n", "    float y = x;\n"),
        "ps_6_0", "5:15", "reference to 'x' is ambiguous"),
    "err_operator_overload_static": (G("struct T { float v; static T operator+(T a) { return a; } };\n"), "ps_6_0",
                                     "1:30", "overloaded 'operator+' cannot be a static member function"),
    "err_pp_file_not_found (angled)": ("#include <no_such_file.hlsli>\n" + B(""), "ps_6_0", "1:10",
                                       "'no_such_file.hlsli' file not found"),
    "err_expected (a parameter list's ')')": (G("float h(float x float y) { return x; }\n"), "ps_6_0", "1:17",
                                              "expected ')' to close the parameter list, found 'float'"),
    "err_expected (namespace)": (G("namespace N float x;\n"), "ps_6_0", "1:13",
                                 "expected '{' to begin the namespace body, found 'float'"),
    # clang: "expected '}' or ','"
    "err_expected_either": (G("enum E { A B };\n"), "ps_6_0", "1:12", "expected '}', found 'B'"),
    "err_expected_unqualified_id (enum)": (G("enum E { 3 };\n"), "ps_6_0", "1:10", "expected an enumerator, found '3'"),
    "err_typecheck_sclass_func": (G("groupshared float h() { return 1; }\n"), "ps_6_0", "1:19",
                                  "'groupshared' is not a valid modifier for a function"),
    # clang: at the #include inside the arguments (4:2), "embedding a #include directive within macro arguments
    # is not supported"; we stop the call where it starts
    "err_embedded_directive": ("#define M(a) a\n" + B("    float y = M(\n#include \"x.h\"\n    1);\n"), "ps_6_0", "3:15",
                               "unterminated call to macro 'M'"),
}

# diagnostic -> (program, profile, "line:col" of our warning, our message)
WARNED: dict[str, tuple] = {
    "warn_unused_expr": (B("    i + 1;\n"), "ps_6_0", "2:7", "expression result unused"),
    # clang's words: "equality comparison result unused"
    "warn_unused_comparison": (B("    i == 1;\n"), "ps_6_0", "2:7", "expression result unused"),
    "pp_hash_warning": ("#warning careful\n" + B(""), "ps_6_0", "1:1", "careful"),    # clang: at `warning` (1:2)
    "ext_pp_macro_redef": ("#define X 1\n#define X 2\n" + B(""), "ps_6_0", "2:9", "'X' macro redefined"),
    "ext_pp_extra_tokens_at_eol": ("#if 1\n#endif junk\n" + B(""), "ps_6_0", "2:8",
                                   "extra tokens at end of #endif directive"),
    "ext_pp_extra_tokens_at_eol (#else)": ("#if 0\n#else junk\n#endif\n" + B(""), "ps_6_0", "2:7",
                                           "extra tokens at end of #else directive"),
    "ext_pp_extra_tokens_at_eol (#undef)": ("#undef X Y\n" + B(""), "ps_6_0", "1:10",
                                            "extra tokens at end of #undef directive"),
    "warn_case_value_overflow": (B("    uint u = i; switch (u) { case -1: break; }\n"), "ps_6_0", "2:30",
                                 "overflow converting case value to switch condition type (-1 to 4294967295)"),
    "ext_no_declarators": (G("float;\n"), "ps_6_0", "1:1", "declaration does not declare anything"),
    "ext_no_declarators (a local)": (B("    float4;\n"), "ps_6_0", "2:5", "declaration does not declare anything"),
    "ext_no_declarators (a member)": (G("struct T { float ; };\n"), "ps_6_0", "1:12",
                                      "declaration does not declare anything"),
    "ext_typedef_without_a_name": (G("typedef struct { float x; };\n"), "ps_6_0", "1:1", "typedef requires a name"),
    # in code DXC gives it at -HV 202x only (tests/front/test_warnings12.py); HLSL 2021 reads the literal as -1
    "ext_integer_literal_too_large_for_signed": ("#if 18446744073709551615 > 0\n#endif\n" + B(""), "ps_6_0", "1:5",
                                                 "integer literal is too large to be represented in a signed integer "
                                                 "type, interpreting as unsigned"),
    "pp_pragma_once_in_main_file": ("#pragma once\n" + B(""), "ps_6_0", "1:9", "#pragma once in main file"),
    "warn_pp_line_decimal": ("#line 010\n" + B(""), "ps_6_0", "1:7",
                             "#line directive interprets number as decimal, not octal"),
    "warn_pp_convert_lhs_to_positive": ("#if -1 < 0u\n#endif\n" + B(""), "ps_6_0", "1:8",
                                        "left side of operator converted from negative value to unsigned: -1 to "
                                        "18446744073709551615"),
    "warn_pp_expr_overflow": ("#if 9223372036854775807 + 1\n#endif\n" + B(""), "ps_6_0", "1:25",
                              "integer overflow in preprocessor expression"),
    "ext_pp_undef_builtin_macro": ("#undef __LINE__\n" + B(""), "ps_6_0", "1:8", "undefining builtin macro"),
    "ext_pp_redef_builtin_macro": ("#define __LINE__ 3\n" + B(""), "ps_6_0", "1:9", "redefining builtin macro"),
    "warn_pragma_message": ('#pragma message("careful")\n' + B(""), "ps_6_0", "1:9", "careful"),
    "warn_float_overflow": (B("    float y = 1e400;\n"), "ps_6_0", "2:15", "magnitude of floating-point constant too "
                            "large for type 'literal float'; maximum is 1.7976931348623157E+308"),
    "warn_float_overflow (float)": (B("    float y = 1e39f;\n"), "ps_6_0", "2:15", "magnitude of floating-point "
                                    "constant too large for type 'float'; maximum is 3.40282347E+38"),
    "warn_float_underflow": (B("    float y = 1e-400;\n"), "ps_6_0", "2:15", "magnitude of floating-point constant "
                             "too small for type 'literal float'; minimum is 4.9406564584124654E-324"),
    "ext_unknown_escape": (B("    int c = '\\q';\n"), "ps_6_0", "2:14", "unknown escape sequence '\\q'"),
    "warn_unknown_attribute_ignored": ("[spin]\n" + B(""), "ps_6_0", "1:2", "unknown attribute 'spin' ignored"),
    "warn_empty_if_body": (B("    if (i > 0);\n"), "ps_6_0", "2:15", "if statement has empty body"),
    "warn_dangling_else": (B("    if (i) if (i > 1) p.x = 1; else p.x = 2;\n"), "ps_6_0", "2:32",
                           "add explicit braces to avoid dangling else"),
    "warn_condition_is_assignment": (B("    int k; if (k = i) p.x = 1;\n"), "ps_6_0", "2:18",
                                     "using the result of an assignment as a condition without parentheses"),
    "warn_precedence_bitwise_rel": (B("    bool b = i & 4 == 4;\n"), "ps_6_0", "2:16",
                                    "'&' has lower precedence than '=='; '==' will be evaluated first"),
    "warn_logical_and_in_logical_or": (B("    bool b = i > 1 && i < 4 || i == 7;\n"), "ps_6_0", "2:20",
                                       "'&&' within '||'"),
    "warn_bool_switch_condition": (B("    switch (i > 1) { case 1: p.x = 2; break; }\n"), "ps_6_0", "2:5",
                                   "switch condition has boolean value"),
    "warn_nested_block_comment": ("/* a /* b */\n" + B(""), "ps_6_0", "1:6", "'/*' within block comment"),
    "warn_impcast_integer_precision_constant": (B("    int k = 0x100000000;\n"), "ps_6_0", "2:13",
                                                "implicit conversion from 'literal int' to 'int' changes value from "
                                                "4294967296 to 0"),
}

_BINOP = ("HLSL's binary operators are checked by hlsl::CheckBinOpForHLSL (SemaExpr.cpp CreateBuiltinBinOp), "
          "never by clang's CheckShiftOperands, where this warning is")

# diagnostic -> why DXC never gives it for an HLSL program
NOT_APPLICABLE: dict[str, str] = {
    "err_func_returning_array_function": "HLSL allows array return types (SemaType.cpp: 'HLSL Change - Allow array "
                                         "return types'); tests/lang/test_lang_functions.py runs one",
    "err_typecheck_array_not_modifiable_lvalue": "HLSL arrays are assignable (ExprClassification.cpp: 'HLSL Change: "
                                                 "arrays are assignable')",
    "warn_shift_negative": _BINOP,
    "warn_shift_gt_typewidth": _BINOP,
    "warn_shift_result_gt_typewidth": _BINOP,
    "ext_extra_semi": "an Extension (silent by default: -pedantic only): `float h() { ... };`",
    "warn_uninit_var": "DefaultIgnore; we give it with -Wuninitialized or -Wall (tests/front/test_warnings.py)",
    "warn_self_assignment": "DefaultIgnore (clang's -Wself-assign is off by default)",
    "ext_binary_literal_cxx14": "an Extension (silent by default; DXC's HLSL is clang's C++98 with extensions): 0b101 "
                                "is read (a NEIGHBOUR here; we refused it before)",
    "ext_hexconstant_invalid": "an Extension (silent by default): 0x1p3 is read (a NEIGHBOUR here; we refused it "
                               "before)",
    "ext_pp_bad_vaargs_use": "an Extension (silent by default)",
    "warn_comparison_always": "clang checks it in CheckCompareOperands / CheckVectorCompareOperands, which HLSL's "
                              "comparisons never reach: CreateBuiltinBinOp hands them to hlsl::CheckBinOpForHLSL",
    "warn_lunsigned_always_true_comparison": "SemaChecking.cpp AnalyzeComparison returns at once for HLSL ('HLSL "
                                             "has a different set of standard conversions allowed')",
    "err_pp_used_poisoned_id": "DXC registers no `#pragma GCC poison` handler for HLSL (Pragma.cpp "
                               "RegisterBuiltinPragmas: once, mark, dxc diagnostic, message, region): the pragma is "
                               "ignored there too",
}

# diagnostic -> why we still accept the program (DXC rejects it, or warns where we are silent)
LEFT: dict[str, str] = {
    "err_redefinition_different_kind (namespace and struct)": "`namespace N {...} struct N {...}` is accepted (a "
                                                              "namespace is a name prefix here, not a symbol)",
    "warn_equality_with_extra_parens": "not given: clang warns for `if ((x == 1))` only when x is a modifiable "
                                       "lvalue (not a cbuffer global or a const); the parser knows the parentheses, "
                                       "sema the constness, and nothing joins them yet",
    "warn_unsequenced_mod_mod": "not given: clang's SequenceChecker (two unsequenced writes of one variable in a full "
                                "expression, `i = i++`) has no counterpart here",
    "warn_missing_case": "not given: needs the enum type of the switch condition and its enumerators at the switch",
    "warn_impcast_literal_float_to_integer": "not given: clang warns only when the converted expression is the "
                                             "literal itself (`int k = 1.5;`, printing APFloat's spelling of it); "
                                             "sema's conversion sees the folded constant, not the written literal",
}

# a diagnostic that needs files: an #include of the file itself
ON_DISK = {"err_pp_include_too_deep": "#include nested too deeply (limit 64)"}

# valid programs next to the newly refused ones: each compiles on both targets without a diagnostic
NEIGHBOURS: dict[str, tuple[str, str]] = {
    "void_parameter_list": (G("float h(void) { return 1; }\n", "    float y = h();\n"), "ps_6_0"),
    "default_argument_of_the_declaration": (G("float h(float x = 1);\nfloat h(float x) { return x; }\n",
                                              "    float y = h();\n"), "ps_6_0"),
    "defaults_on_the_last_parameters": (G("float h(float x, float z = 1, float w = 2) { return x; }\n",
                                          "    float y = h(1) + h(1, 2);\n"), "ps_6_0"),
    "comments_after_else_and_endif": ("#if 0\n#else // x\n#endif /* y */\n" + B(""), "ps_6_0"),
    "extra_tokens_in_a_skipped_group": ("#if 0\n#if 1\n#endif junk\n#endif\n" + B(""), "ps_6_0"),
    "binary_literals": (B("    int k = 0b101 + 0B11u;\n#if 0b10 == 2\n    k += 1;\n#endif\n"), "ps_6_0"),
    "forward_declared_then_defined": (G("struct F;\nstruct F { float a; };\n", "    F f; f.a = 1; float y = f.a;\n"),
                                      "ps_6_0"),
    "static_asserts_that_hold": (G('static const int N = 3;\nstatic_assert(N == 3, "N is three");\n'
                                   "static_assert(sizeof(float2) == 8);\n", "    static_assert(N > 1, \"local\");\n"),
                                 "ps_6_0"),
    "escapes_in_character_literals": (B("    int c = '\\x41' + '\\101' + '\\0' + '\\\\' + '\\'' + '\\n';\n"), "ps_6_0"),
    "labels_of_a_switch": (B("    switch (i) { case 1: default: i = 2; }\n"), "ps_6_0"),
    "a_static_declaration_then_the_definition": (G("static float h(float x);\nfloat h(float x) { return x; }\n",
                                                   "    float y = h(1);\n"), "ps_6_0"),
    "a_local_named_like_a_typedef": (G("typedef int X;\n", "    { float X = 1; p.x = X; }\n"), "ps_6_0"),
    "a_variable_named_like_a_struct": (G("struct T { float x; };\nstatic float T = 1;\n", "    p.x = T;\n"), "ps_6_0"),
    "method_overloads": (G("struct T { float f() { return 1; } float f(float x) { return x; } "
                           "float f(int x) { return 2; } };\n", "    T t; float y = t.f() + t.f(1.0f) + t.f(i);\n"),
                         "ps_6_0"),
    "hex_floats": (B("    float y = 0x1p3 + 0x1.8p1f + 0X.8P-1;\n"), "ps_6_0"),
    "enum_underlying_types": (G("enum class E : uint { A = 1 };\nenum class F : bool { N, Y };\n",
                                "    uint k = (uint)E::A;\n"), "ps_6_0"),
    "a_method_named_like_a_base_field": (G("struct A { float f; };\nstruct D : A { float g() { return f; } };\n",
                                           "    D d; d.f = 1; float y = d.g();\n"), "ps_6_0"),
    "operator_overloads": (G("struct T { float v; T operator+(T o) { T r; r.v = v + o.v; return r; } "
                             "T operator-() { T r; r.v = -v; return r; } bool operator!() { return v == 0; } "
                             "float operator[](int k) { return v; } };\n",
                             "    T a; a.v = 1; T b = a + (-a); p.x = b.v + a[0] + (!a ? 1 : 0);\n"), "ps_6_0"),
    "a_local_struct_with_a_method": (B("    struct L { float x; float g() { return x; } };\n    L l; l.x = 1; p.x = l.g();\n"),
                                     "ps_6_0"),
    "static_members_of_a_global_struct": (G("struct T { static const float k = 2; static float s() { return 3; } };\n",
                                            "    p.x = T::k + T::s();\n"), "ps_6_0"),
    "sizeof_a_plain_member_beside_bit_fields": (G("struct T { uint a : 3; uint b : 5; float c; };\n",
                                                  "    T t; t.c = 1; uint n = sizeof(t.c) + sizeof(t);\n"), "ps_6_0"),
    "names_of_two_used_namespaces": (G("namespace A { static const int x = 1; int f() { return 1; } }\n"
                                       "namespace C { static const int y = 2; int f(int k) { return k; } }\n"
                                       "using namespace A;\nusing namespace C;\n", "    int z = x + y + f() + f(2);\n"),
                                     "ps_6_0"),
    "return_of_a_void_call_in_a_void_function": (G("void g() {}\nvoid h() { return g(); }\n", "    h();\n"), "ps_6_0"),
    "casts_to_void": (G("float h() { return 1; }\n", "    (void)i; (void)h(); (void)(i + 1);\n"), "ps_6_0"),
    "an_enum_list_ending_in_a_comma": (G("enum E { A, B, };\n", "    int k = B;\n"), "ps_6_0"),
    "an_empty_struct": (G("struct T {};\n", "    T t;\n"), "ps_6_0"),
    "function_template_overloads_and_a_declared_one": (
        G("template<typename T> T h(T x) { return x; }\ntemplate<typename T> T h(T x, T y) { return y; }\n"
          "template<typename T, typename U> T h(T x, U y) { return x; }\ntemplate<typename T> T k(T x);\n"
          "template<typename T> T k(T x) { return x; }\n",
          "    float y = h(1.0f) + h(1.0f, 2.0f) + h(1.0f, i) + k(2.0f);\n"), "ps_6_0"),
    "switch_locals_in_blocks_or_uninitialized_or_static": (
        B("    switch (i) { case 1: { int k = 1; i = k; break; } case 2: static int s = 1; i = s; break; "
          "default: int j; j = 3; i = j; }\n"), "ps_6_0"),
    "a_default_argument_of_a_global": (G("static const float K = 2;\nfloat h(float x, float y = K * 2) { return y; }\n",
                                         "    float y = h(1);\n"), "ps_6_0"),
    "template_parameters_of_other_names": (G("template<typename T, typename U> T h(T x, U y) { return x; }\n",
                                             "    float y = h(1.0f, i);\n"), "ps_6_0"),
}

# three single-statement mistakes of REJECTED (each a one-line body) in one function
RECOVERY = [
    ("err_undeclared_var_use", "err_redefinition", "err_typecheck_expression_not_modifiable_lvalue"),
    ("err_typecheck_negative_array_size", "err_incorrect_num_initializers (too few)", "warn_division_by_zero"),
    ("err_typecheck_assign_const", "err_typecheck_call_not_function", "err_duplicate_case"),
    ("err_break_not_in_loop_or_switch", "err_continue_not_in_loop (function body)", "err_multiple_default_labels_defined"),
    ("err_typecheck_subscript_value", "err_typecheck_expect_int", "err_template_arg_not_ice"),
    ("err_unknown_typename", "err_array_size_non_int", "warn_remainder_by_zero"),
    ("err_typecheck_decl_incomplete_type (void)", "err_expected_class_or_namespace", "err_excess_initializers (scalar)"),
    ("err_typecheck_statement_requires_integer", "err_expr_not_ice", "err_static_assert_expression_is_not_constant"),
    ("err_typecheck_member_reference_struct_union", "err_excess_initializers", "err_incorrect_num_initializers (too many)"),
    ("err_array_too_large", "err_template_arg_must_be_type", "err_default_init_const"),
    ("err_typecheck_incomplete_array_needs_initializer", "err_typecheck_call_not_function", "err_integer_literal_too_large"),
    ("warn_array_index_precedes_bounds", "err_typecheck_assign_const", "err_typecheck_expect_int"),
    ("err_typecheck_subscript_not_integer", "err_incorrect_num_initializers (too few)", "err_duplicate_case"),
    ("ext_typecheck_zero_array_size", "err_template_arg_list_different_arity", "err_break_not_in_loop_or_switch"),
    ("err_undeclared_var_use", "err_typecheck_subscript_value", "warn_division_by_zero"),
    ("err_redefinition", "err_template_arg_must_be_expr", "err_default_init_const"),
    ("err_continue_not_in_loop", "err_typecheck_expression_not_modifiable_lvalue", "err_typecheck_expect_int"),
    ("err_typecheck_call_not_function", "err_typecheck_decl_incomplete_type (void)", "err_undeclared_var_use"),
    ("err_attribute_argument_n_type", "err_incorrect_num_initializers (array)", "err_typecheck_assign_const"),
    ("err_excess_initializers (scalar)", "err_redefinition_different_type", "err_expected_class_or_namespace"),
    # syntax errors: the parser goes on at the next statement
    ("err_expected_while", "err_expected_semi_for", "err_expected_lparen_after"),
    ("err_case_not_in_switch", "err_expected_expression", "err_hlsl_unsupported_construct (goto)"),
]


def _options(profile: str, target: str) -> CompileOptions:
    return CompileOptions(entry="main", profile=profile, target=target, vk_target_env="vulkan1.1")


def _diagnostics(source: str, profile: str, target: str) -> tuple[bool, list[tuple[str, str, str]]]:
    res = compile_file("t.hlsl", _options(profile, target), text=source)
    if not res.ok:
        assert res.binary is None
    return res.ok, [(d.severity, f"{d.loc.line}:{d.loc.col}", d.message) for d in res.diagnostics]


def _name(key: str) -> str:
    return key.split(" (")[0]


def test_each_case_has_one_disposition():
    """A key is in one table; a diagnostic's variants may differ (a function redefined as a variable is refused,
    a typedef redefined as one is left)."""
    tables = [REJECTED, WARNED, NOT_APPLICABLE, LEFT, ON_DISK]
    keys = [k for table in tables for k in table]
    assert len(keys) == len(set(keys))
    assert all(reason for reason in (*NOT_APPLICABLE.values(), *LEFT.values()))
    assert len({_name(k) for k in keys}) >= 150


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("name", sorted(REJECTED))
def test_rejected(name, target):
    source, profile, where, message = REJECTED[name]
    ok, diags = _diagnostics(source, profile, target)
    errors = [(at, m) for severity, at, m in diags if severity == "error"]
    assert not ok
    assert errors == [(where, message)]               # one mistake, one error: no cascade


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("name", sorted(WARNED))
def test_warned(name, target):
    source, profile, where, message = WARNED[name]
    ok, diags = _diagnostics(source, profile, target)
    assert ok, diags
    assert diags == [("warning", where, message)]


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_an_include_of_itself_is_nested_too_deeply(tmp_path, target):
    path = tmp_path / "self.hlsl"
    path.write_text('#include "self.hlsl"\nfloat4 main() : SV_Target { return 0; }\n')
    res = compile_file(str(path), _options("ps_6_0", target))
    assert not res.ok
    assert [(d.loc.line, d.loc.col, d.message) for d in res.diagnostics] == [(1, 1, ON_DISK["err_pp_include_too_deep"])]


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("name", sorted(NEIGHBOURS))
def test_neighbours_compile(name, target):
    source, profile = NEIGHBOURS[name]
    assert _diagnostics(source, profile, target) == (True, [])


def test_the_fixed_forms_compute_their_values():
    """Character escapes as C reads them (hex, octal: 'A' is 65 both ways; '\\xff' is DXC's signed char -1 made a
    uint), binary literals, hexadecimal floats (mantissa times a power of two), a default argument written on
    the declaration only, `return put(...)` in a void function, a call cast to void (both run), a function
    template declared, then defined, and overloads of one name from two used namespaces.  Expected values from Python's int() and powers of
    two."""
    src = """RWStructuredBuffer<uint> Out : register(u0);
void put(uint k, uint v) { Out[k] = v; }
void put_via(uint k, uint v) { if (k > 0) return put(k, v); Out[0] = 1000; }
uint bump(uint k) { Out[k] += 5; return 0; }
template<typename T> T twice(T x);
float h(float x = 7);
float h(float x) { return x * 2; }
static_assert(0b1010 == 10, "binary");
template<typename T> T twice(T x) { return x * 2; }
namespace NA { uint pick() { return 1; } }
namespace NB { uint pick(uint k) { return k + 1; } }
using namespace NA;
using namespace NB;
[numthreads(1, 1, 1)]
void main() {
    Out[0] = '\\x41'; Out[1] = '\\101'; Out[2] = '\\xff'; Out[3] = '\\7'; Out[4] = '\\x7f';
    Out[5] = 0b101; Out[6] = 0B11u;
    Out[7] = (uint)h(); Out[8] = (uint)h(3);
    Out[9] = (uint)(0x1p3 + 0x1.8p1f + 0x.8p2);
    put_via(10, 42);
    Out[11] = 1; (void)bump(11);
    Out[12] = twice(21u);
    Out[13] = pick() * 10 + pick(4);
}
"""
    got = run_cs(src, {"Out": ("uint", 14)})["Out"]
    assert got == [int("41", 16), int("101", 8), 2**32 - 1, 7, 0x7F, int("101", 2), 3, 14, 6, 2**3 + 3 + 2, 42, 6,
                   42, 1 * 10 + 4 + 1]


def _body(name: str) -> str:
    source = REJECTED[name][0]
    assert source.startswith(PS) and source.endswith(E) and source.count("\n") == 4, name    # a one-line body
    return source[len(PS):-len(E)]


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("names", RECOVERY, ids=lambda names: "+".join(_name(n)[4:] for n in names))
def test_three_mistakes_give_their_three_errors(names, target):
    source = PS + "".join(_body(n) for n in names) + E
    expected = []
    for k, n in enumerate(names):       # each where it was alone (line 2), on its own line now
        where, message = REJECTED[n][2], REJECTED[n][3]
        expected.append((f"{2 + k}:{where.split(':')[1]}", message))
    ok, diags = _diagnostics(source, "ps_6_0", target)
    assert not ok
    assert [(at, m) for severity, at, m in diags if severity == "error"] == expected


# three declaration-level mistakes of REJECTED (each a program of declarations before an empty entry point)
RECOVERY_DECLARATIONS = [
    ("err_member_name_of_class", "err_param_default_argument_missing", "err_void_only_param"),
    ("err_static_non_static", "err_enum_invalid_underlying", "err_duplicate_member (field and method)"),
    ("err_member_redeclared", "err_redefinition (function template)", "err_param_default_argument_references_param"),
    ("err_redefinition_different_typedef", "err_param_redefinition (a declaration)", "err_param_with_void_type"),
]


def _declarations(name: str) -> str:
    source = REJECTED[name][0]
    assert source.endswith(PS + E), name      # declarations only, then the empty entry point
    return source[:-len(PS + E)]


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("names", RECOVERY_DECLARATIONS, ids=lambda names: "+".join(_name(n)[4:] for n in names))
def test_three_declaration_mistakes_give_their_three_errors(names, target):
    parts = [_declarations(n) for n in names]
    expected, offset = [], 0
    for n, part in zip(names, parts):      # each where it was alone, moved down by the declarations before it
        line, col = REJECTED[n][2].split(":")
        expected.append((f"{int(line) + offset}:{col}", REJECTED[n][3]))
        offset += part.count("\n")
    ok, diags = _diagnostics("".join(parts) + PS + E, "ps_6_0", target)
    assert not ok
    assert [(at, m) for severity, at, m in diags if severity == "error"] == expected
