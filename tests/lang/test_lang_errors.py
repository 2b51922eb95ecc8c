"""Language errors: exact message text, file:line:col, the caret, the notes (candidates, previous
definitions) and ok=False from compile_file; a few through the CLI (exit status 1, no
traceback, nothing written)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from lang_util import compile_cs

HEAD = "RWStructuredBuffer<float> Out : register(u0);\n"
CS = "[numthreads(1, 1, 1)]\nvoid main() {\n"

# name -> (body after HEAD, [expected header lines: error first, then notes], caret column of the error)
ERRORS = {
    "unknown_template_argument_type": (
        "RWStructuredBuffer<float5> B : register(u1);\n" + CS + "    Out[0] = 1;\n}\n",
        ["lang_test.hlsl:2:20: error: unknown type name 'float5'"], 20),
    "struct_without_semicolon": (
        "struct S { int a; }\n" + CS + "    Out[0] = 1;\n}\n",
        ["lang_test.hlsl:2:20: error: expected ';' after struct"], 20),
    "misspelt_intrinsic_suggests_name": (
        CS + "    Out[0] = lerpp(1.0, 2.0, 0.5);\n}\n",
        ["lang_test.hlsl:4:14: error: use of undeclared identifier 'lerpp'; did you mean 'lerp'?"], 14),
    "out_argument_duplicate_swizzle": (
        "void Set2(out int2 v) { v = int2(7, 8); }\n" + CS + "    int4 v = 0;\n    Set2(v.xx);\n    Out[0] = v.x;\n}\n",
        ["lang_test.hlsl:6:12: error: vector swizzle 'xx' has duplicate components and cannot be assigned"], 12),
    "void_variable": (
        CS + "    void v;\n    Out[0] = 0;\n}\n",
        ["lang_test.hlsl:4:10: error: variable 'v' has incomplete type 'void'"], 10),
    "type_mismatch_struct_to_vector": (
        "struct S { float a; };\n" + CS + "    S s = (S)0;\n    float4 v = s;\n    Out[0] = v.x;\n}\n",
        ["lang_test.hlsl:6:16: error: cannot convert from 'S' to 'float4'"], 16),
    "type_mismatch_resource_to_value": (
        CS + "    float4 v = Out;\n    Out[0] = v.x;\n}\n",
        ["lang_test.hlsl:4:16: error: cannot convert from 'RWStructuredBuffer<float>' to 'float4'"], 16),
    "no_matching_overload_lists_candidates": (
        "float F(float2 x) { return x.x; }\nfloat F(float3 x) { return x.x; }\n" + CS
        + "    float4x4 m = 0;\n    Out[0] = F(m);\n}\n",
        ["lang_test.hlsl:7:14: error: no matching function for call to 'F' with arguments (float4x4)",
         "lang_test.hlsl:2:7: note: candidate function not viable: float F(float2): cannot convert 'float4x4' to 'float2'",
         "lang_test.hlsl:3:7: note: candidate function not viable: float F(float3): cannot convert 'float4x4' to 'float3'"], 14),
    "no_matching_overload_struct_argument": (
        "struct S { float a; };\nfloat F(float x) { return x; }\nfloat F(int x) { return x; }\n" + CS
        + "    S s = (S)0;\n    Out[0] = F(s);\n}\n",
        ["lang_test.hlsl:8:14: error: no matching function for call to 'F' with arguments (S)",
         "lang_test.hlsl:3:7: note: candidate function not viable: float F(float): cannot convert 'S' to 'float'",
         "lang_test.hlsl:4:7: note: candidate function not viable: float F(int): cannot convert 'S' to 'int'"], 14),
    "ambiguous_overload": (
        "float G(int a, float b) { return 1; }\nfloat G(float a, int b) { return 2; }\n" + CS
        + "    int i = 1;\n    Out[0] = G(i, i);\n}\n",
        ["lang_test.hlsl:7:14: error: call to 'G' is ambiguous",
         "lang_test.hlsl:2:7: note: candidate function: float G(int, float)",
         "lang_test.hlsl:3:7: note: candidate function: float G(float, int)"], 14),
    "undeclared_suggests_close_name": (
        CS + "    float value = 1;\n    Out[0] = valeu;\n}\n",
        ["lang_test.hlsl:5:14: error: use of undeclared identifier 'valeu'; did you mean 'value'?"], 14),
    "undeclared_without_close_name": (
        CS + "    Out[0] = zzzqqq;\n}\n",
        ["lang_test.hlsl:4:14: error: use of undeclared identifier 'zzzqqq'"], 14),
    "redefinition_local": (
        CS + "    int x = 1;\n    float x = 2;\n    Out[0] = x;\n}\n",
        ["lang_test.hlsl:5:11: error: redefinition of 'x'",
         "lang_test.hlsl:4:9: note: previous definition is here"], 11),
    "redefinition_function": (
        "float H() { return 1; }\nfloat H() { return 2; }\n" + CS + "    Out[0] = H();\n}\n",
        ["lang_test.hlsl:3:7: error: redefinition of 'H'",
         "lang_test.hlsl:2:7: note: previous definition is here"], 7),
    "redefinition_struct": (
        "struct S { float a; };\nstruct S { float b; };\n" + CS + "    Out[0] = 0;\n}\n",
        ["lang_test.hlsl:3:8: error: redefinition of 'S'",
         "lang_test.hlsl:2:8: note: previous definition is here"], 8),
    "too_few_arguments": (
        "float K(float a, float b) { return a + b; }\n" + CS + "    Out[0] = K(1.0);\n}\n",
        ["lang_test.hlsl:5:14: error: no matching function for call to 'K' with arguments (float)",
         "lang_test.hlsl:2:7: note: candidate function not viable: float K(float, float): "
         "requires 2 arguments, but 1 was provided"], 14),
    "too_many_arguments": (
        "float K(float a) { return a; }\n" + CS + "    Out[0] = K(1.0, 2.0, 3.0);\n}\n",
        ["lang_test.hlsl:5:14: error: no matching function for call to 'K' with arguments (float, float, float)",
         "lang_test.hlsl:2:7: note: candidate function not viable: float K(float): "
         "requires 1 argument, but 3 were provided"], 14),
    "intrinsic_wrong_argument_count": (
        CS + "    Out[0] = lerp(1.0, 2.0);\n}\n",
        ["lang_test.hlsl:4:14: error: no matching intrinsic for call to 'lerp': expected 3 arguments, have 2"], 14),
    "assign_to_const_local": (
        CS + "    const float k = 1;\n    k = 2;\n    Out[0] = k;\n}\n",
        ["lang_test.hlsl:5:5: error: cannot assign to const-qualified variable 'k'"], 5),
    "assign_to_static_const_table": (
        "static const float Table[2] = {1, 2};\n" + CS + "    Table[0] = 5;\n    Out[0] = Table[0];\n}\n",
        ["lang_test.hlsl:5:5: error: cannot assign to const-qualified variable 'Table'"], 5),
    "assign_to_const_parameter": (
        "float F(const float x) { x = 1; return x; }\n" + CS + "    Out[0] = F(2);\n}\n",
        ["lang_test.hlsl:2:26: error: cannot assign to const-qualified variable 'x'"], 26),
    "swizzle_out_of_range": (
        CS + "    float2 v = 1;\n    Out[0] = v.z;\n}\n",
        ["lang_test.hlsl:5:16: error: vector swizzle 'z' is out of bounds for type 'float2'"], 16),
    "swizzle_invalid_letter": (
        CS + "    float4 v = 1;\n    Out[0] = v.xq;\n}\n",
        ["lang_test.hlsl:5:16: error: invalid swizzle 'xq' on type 'float4'"], 16),
    "swizzle_mixed_sets": (
        CS + "    float4 v = 1;\n    Out[0] = v.xg;\n}\n",
        ["lang_test.hlsl:5:16: error: invalid swizzle 'xg' on type 'float4'"], 16),
    "swizzle_duplicate_assign": (
        CS + "    float4 v = 1;\n    v.xx = float2(1, 2);\n    Out[0] = v.x;\n}\n",
        ["lang_test.hlsl:5:7: error: vector swizzle 'xx' has duplicate components and cannot be assigned"], 7),
    "matrix_swizzle_out_of_range": (
        CS + "    float2x2 m = 0;\n    Out[0] = m._33;\n}\n",
        ["lang_test.hlsl:5:16: error: matrix swizzle '_33' is out of bounds for type 'float2x2'"], 16),
    "out_argument_not_lvalue": (
        "void Set(out float x) { x = 1; }\n" + CS + "    float a = 0;\n    Set(a + 1);\n    Out[0] = a;\n}\n",
        ["lang_test.hlsl:6:11: error: cannot bind non-lvalue argument to out parameter 'x'"], 11),
    "inout_argument_literal": (
        "void Inc(inout float x) { x += 1; }\n" + CS + "    Inc(2.0);\n    Out[0] = 0;\n}\n",
        ["lang_test.hlsl:5:9: error: cannot bind non-lvalue argument to inout parameter 'x'"], 9),
    "intrinsic_out_argument_not_lvalue": (
        CS + "    float x = 1;\n    Out[0] = modf(x, x + 1);\n}\n",
        ["lang_test.hlsl:5:24: error: cannot bind non-lvalue argument to out parameter of 'modf'"], 24),
    "return_type_mismatch": (
        "struct S { float a; };\nfloat F() {\n    S s = (S)0;\n    return s;\n}\n" + CS + "    Out[0] = F();\n}\n",
        ["lang_test.hlsl:5:12: error: cannot convert from 'S' to 'float' in return statement"], 12),
    "return_value_from_void": (
        "void F() {\n    return 1;\n}\n" + CS + "    F();\n}\n",
        ["lang_test.hlsl:3:5: error: void function 'F' should not return a value"], 5),
    "return_without_value": (
        "float F() {\n    return;\n}\n" + CS + "    Out[0] = F();\n}\n",
        ["lang_test.hlsl:3:5: error: non-void function 'F' should return a value"], 5),
    "missing_return": (
        "float F(float x) {\n    if (x > 0) return 1;\n}\n" + CS + "    Out[0] = F(1);\n}\n",
        ["lang_test.hlsl:2:18: error: non-void function 'F' does not return a value on all control paths"], 18),
    "pixel_only_intrinsic_in_compute": (
        CS + "    float x = Out[0];\n    Out[1] = ddx(x);\n}\n",
        ["lang_test.hlsl:5:14: error: intrinsic 'ddx' computes derivatives, which compute shaders allow from shader "
         "model 6.6"], 14),
    "clip_in_compute": (
        CS + "    clip(Out[0]);\n}\n",
        ["lang_test.hlsl:4:5: error: intrinsic 'clip' is not allowed in compute shaders (allowed in: pixel)"], 5),
    "discard_in_compute": (
        CS + "    discard;\n}\n",
        ["lang_test.hlsl:4:5: error: 'discard' is only allowed in pixel shaders"], 5),
    "direct_recursion": (
        "int Fact(int n) {\n    if (n <= 1) return 1;\n    return n * Fact(n - 1);\n}\n" + CS
        + "    Out[0] = Fact(4);\n}\n",
        ["lang_test.hlsl:4:16: error: recursive call to function 'Fact' is not allowed"], 16),
    "mutual_recursion": (
        "int Odd(int n);\nint Even(int n) { return n == 0 ? 1 : Odd(n - 1); }\n"
        "int Odd(int n) { return n == 0 ? 0 : Even(n - 1); }\n" + CS + "    Out[0] = Even(4);\n}\n",
        ["lang_test.hlsl:4:38: error: recursive call to function 'Even' is not allowed"], 38),
    "recursive_method": (
        "struct R { int F(int n) { return n <= 0 ? 0 : F(n - 1); } };\n" + CS + "    R r;\n    Out[0] = r.F(3);\n}\n",
        ["lang_test.hlsl:2:47: error: recursive call to function 'F' is not allowed"], 47),
    "vector_if_condition": (
        CS + "    float2 v = 1;\n    if (v) Out[0] = 1;\n}\n",
        ["lang_test.hlsl:5:9: error: condition must be a scalar, not 'float2'; use all() or any()"], 9),
    "short_circuit_on_vectors_2021": (
        CS + "    bool2 a = true;\n    bool2 b = a && a;\n    Out[0] = b.x;\n}\n",
        ["lang_test.hlsl:5:17: error: operands for short-circuiting logical binary operator must be scalar, "
         "for non-scalar types use 'and'"], 17),
    "vector_ternary_2021": (
        CS + "    bool2 c = true;\n    float2 r = c ? float2(1, 2) : float2(3, 4);\n    Out[0] = r.x;\n}\n",
        ["lang_test.hlsl:5:16: error: condition for short-circuiting ternary operator must be scalar, "
         "for non-scalar types use 'select'"], 16),
    "break_outside_loop": (
        CS + "    break;\n}\n",
        ["lang_test.hlsl:4:5: error: 'break' statement not in loop or switch statement"], 5),
    "continue_in_switch_only": (
        CS + "    int x = 1;\n    switch (x) { case 1: continue; }\n}\n",
        ["lang_test.hlsl:5:26: error: 'continue' statement not in loop statement"], 26),
    "bitwise_on_float": (
        CS + "    float a = 1;\n    Out[0] = a & 1;\n}\n",
        ["lang_test.hlsl:5:16: error: invalid operands to binary expression ('float' and 'int'): "
         "bitwise operators require integer operands"], 16),
    "constant_index_out_of_bounds": (
        CS + "    float a[3] = {1, 2, 3};\n    Out[0] = a[3];\n}\n",
        ["lang_test.hlsl:5:16: error: index 3 is out of bounds for type 'float[3]'"], 16),
    "duplicate_case": (
        CS + "    int x = 1;\n    switch (x) { case 1: break; case 1: break; }\n}\n",
        ["lang_test.hlsl:5:33: error: duplicate case value '1'"], 33),
    "integer_division_by_constant_zero": (
        CS + "    int x = 1;\n    Out[0] = x / 0;\n}\n",
        ["lang_test.hlsl:5:16: error: division by zero"], 16),
    "write_to_read_only_buffer": (
        "StructuredBuffer<float> Ro : register(t1);\n" + CS + "    Ro[0] = 1;\n}\n",
        ["lang_test.hlsl:5:7: error: cannot assign to an element of read-only resource type 'StructuredBuffer<float>'"],
        7),
    "constructor_too_few_elements": (
        CS + "    float4 v = float4(1, 2, 3);\n    Out[0] = v.x;\n}\n",
        ["lang_test.hlsl:4:16: error: too few elements in vector initialization (expected 4 elements, have 3)"], 16),
    "initializer_too_many_elements": (
        CS + "    float2 v = {1, 2, 3};\n    Out[0] = v.x;\n}\n",
        ["lang_test.hlsl:4:16: error: too many elements in initializer for type 'float2' (expected 2, have 3)"], 16),
    "no_such_member": (
        "struct S { float a; };\n" + CS + "    S s = (S)0;\n    Out[0] = s.b;\n}\n",
        ["lang_test.hlsl:6:16: error: no member named 'b' in 'S'"], 16),
    "compute_without_numthreads": (
        "void main() {\n    Out[0] = 1;\n}\n",
        ["lang_test.hlsl:2:6: error: compute entry point 'main' requires the [numthreads(x, y, z)] attribute"], 6),
    "groupshared_with_initializer": (
        "groupshared float G = 1;\n" + CS + "    Out[0] = G;\n}\n",
        ["lang_test.hlsl:2:23: error: groupshared variables cannot have an initializer"], 23),
    "call_of_non_function": (
        CS + "    float f = 1;\n    Out[0] = f(2);\n}\n",
        ["lang_test.hlsl:5:14: error: called object 'f' is not a function"], 14),
    "unsized_array_to_sized_parameter": (
        "void Sized(float a[4]) { }\nvoid Unsized(float a[]) {\n    Sized(a);\n}\n" + CS
        + "    float arr[4] = {1, 1, 1, 1};\n    Unsized(arr);\n}\n",
        ["lang_test.hlsl:4:11: error: cannot convert 'float[]' to 'float[4]'",
         "lang_test.hlsl:2:6: note: in call to 'void Sized(float[4])'"], 11),
    "declared_but_never_defined": (
        "float G(float x);\n" + CS + "    Out[0] = G(1);\n}\n",
        ["lang_test.hlsl:2:7: error: function 'G' is declared but never defined"], 7),
    "use_before_declaration": (
        CS + "    float a = b;\n    float b = 1;\n    Out[0] = a;\n}\n",
        ["lang_test.hlsl:4:15: error: use of undeclared identifier 'b'"], 15),
    "assign_to_rvalue": (
        CS + "    float a = 1, b = 2;\n    (a + b) = 3;\n    Out[0] = a;\n}\n",
        ["lang_test.hlsl:5:8: error: expression is not assignable"], 8),
    "assign_to_swizzle_of_temporary": (
        CS + "    float4(1, 2, 3, 4).x = 1;\n}\n",
        ["lang_test.hlsl:4:24: error: expression is not assignable"], 24),
    "wrong_register_class": (
        "RWStructuredBuffer<float> B : register(t1);\n" + CS + "    B[0] = 1;\n}\n",
        ["lang_test.hlsl:2:31: error: invalid register class 't' for unordered access view 'B' of type "
         "'RWStructuredBuffer<float>' (expected 'u')"], 31),
    "numthreads_zero": (
        "[numthreads(0, 1, 1)]\nvoid main() {\n    Out[0] = 1;\n}\n",
        ["lang_test.hlsl:2:13: error: numthreads values must be at least 1"], 13),
    "numthreads_too_many": (
        "[numthreads(2048, 1, 1)]\nvoid main() {\n    Out[0] = 1;\n}\n",
        ["lang_test.hlsl:2:2: error: numthreads total exceeds 1024 threads per group"], 2),
    "missing_close_paren": (
        CS + "    Out[0] = (1 + 2;\n}\n",
        ["lang_test.hlsl:4:20: error: expected ')' to close the parenthesis, found ';'"], 20),
    "unterminated_block": (
        CS + "    Out[0] = 1;\n",
        ["lang_test.hlsl:3:13: error: expected '}' to close the block opened here"], 13),
    "entry_parameter_without_semantic": (
        "[numthreads(1, 1, 1)]\nvoid main(uint3 id) {\n    Out[0] = id.x;\n}\n",
        ["lang_test.hlsl:3:17: error: parameter 'id' of entry point 'main' is missing a semantic"], 17),
    "void_call_used_as_value": (
        "void F() { }\n" + CS + "    Out[0] = F();\n}\n",
        ["lang_test.hlsl:5:14: error: cannot convert from 'void' to 'float'"], 14),
    "swizzle_too_long": (
        CS + "    float4 v = 1;\n    Out[0] = v.xyzwx.x;\n}\n",
        ["lang_test.hlsl:5:16: error: invalid swizzle 'xyzwx' on type 'float4'"], 16),
    "negative_array_size": (
        CS + "    float a[-1];\n    Out[0] = 0;\n}\n",
        ["lang_test.hlsl:4:13: error: array size must be greater than zero (is -1)"], 13),
    "struct_equality": (
        "struct S { float a; };\n" + CS + "    S p = (S)0, q = (S)0;\n    Out[0] = p == q;\n}\n",
        ["lang_test.hlsl:6:16: error: invalid operands to binary expression ('S' and 'S')"], 16),
    "out_argument_read_only_buffer": (
        "StructuredBuffer<float> Ro : register(t1);\nvoid Set(out float x) { x = 1; }\n" + CS + "    Set(Ro[0]);\n}\n",
        ["lang_test.hlsl:6:11: error: cannot assign to an element of read-only resource type 'StructuredBuffer<float>'"],
        11),
    "for_variable_out_of_scope_2021": (
        CS + "    for (int i = 0; i < 3; i++) { }\n    Out[0] = i;\n}\n",
        ["lang_test.hlsl:5:14: error: use of undeclared identifier 'i'"], 14),
    "strict_struct_cast_2021": (     # implicitly only: DXC's CanConvert allows the explicit `(B)a` (flat conversion)
        "struct A { float x; };\nstruct B { float y; };\n" + CS + "    A a = {5};\n    B b = a;\n    Out[0] = b.y;\n}\n",
        ["lang_test.hlsl:7:11: error: cannot convert from 'A' to 'B'"], 11),
    "unscoped_name_of_scoped_enum": (
        "enum class E { A, B };\n" + CS + "    Out[0] = B;\n}\n",
        ["lang_test.hlsl:5:14: error: use of undeclared identifier 'B'"], 14),
    "unknown_type_name": (
        CS + "    flaot x = 1;\n    Out[0] = x;\n}\n",
        ["lang_test.hlsl:4:5: error: unknown type name 'flaot'; did you mean 'float'?"], 5),
}


def _check(body: str, lines: list[str], col: int, target: str = "spirv") -> None:
    res = compile_cs(HEAD + body, target)
    assert res.ok is False
    assert res.binary is None and res.manifest is None
    errors = [d for d in res.diagnostics if d.severity == "error"]
    assert len(errors) == 1, [d.message for d in errors]
    text = errors[0].render(res.sources).splitlines()
    headers = [ln for ln in text if ln.startswith("lang_test.hlsl:")]
    assert headers == lines
    loc = errors[0].loc
    assert (loc.file, loc.line) == ("lang_test.hlsl", int(lines[0].split(":")[1]))
    assert text[2] == " " * (col - 1) + "^"  # the caret sits under the reported column
    assert text[1] == (HEAD + body).splitlines()[loc.line - 1]


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error(name):
    body, lines, col = ERRORS[name]
    _check(body, lines, col)


@pytest.mark.parametrize("name", ["ambiguous_overload", "direct_recursion", "pixel_only_intrinsic_in_compute",
                                  "out_argument_not_lvalue"])
def test_error_same_for_dxil(name):
    """Front-end errors do not depend on the backend."""
    body, lines, col = ERRORS[name]
    _check(body, lines, col, target="dxil")


def _cli(tmp_path: Path, source: str) -> subprocess.CompletedProcess:
    (tmp_path / "shader.hlsl").write_text(source)
    cmd = [sys.executable, "-m", "shaderbuild", "compile", "shader.hlsl", "-T", "cs_6_0", "-E", "main",
           "--target", "spirv", "-o", "out.spv", "--manifest", "out.json"]
    return subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("name", ["ambiguous_overload", "direct_recursion"])
def test_error_through_cli(tmp_path, name):
    body, lines, col = ERRORS[name]
    proc = _cli(tmp_path, HEAD + body)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    out = proc.stderr.splitlines()
    assert [ln for ln in out if ln.startswith("shader.hlsl:")] == [ln.replace("lang_test.hlsl", "shader.hlsl")
                                                                   for ln in lines]
    assert out[2] == " " * (col - 1) + "^"
    assert not (tmp_path / "out.spv").exists() and not (tmp_path / "out.json").exists()


# Functions that return on every path: no "does not return a value" error (and they run: see test_lang_control).
ALL_PATHS_RETURN = {
    "infinite_for": "int F(int x) { for (;;) { if (x > 0) return 1; x++; } }",
    "while_true": "int F(int x) { while (true) { if (x > 3) return x; x++; } }",
    "switch_all_cases_return": "int F(int x) { switch (x) { case 0: return 1; default: return 2; } }",
    "switch_block_cases_return": "int F(int x) { switch (x) { case 0: { return 1; } default: { return 2; } } }",
    "if_else_both_return": "int F(int x) { if (x) return 1; else return 2; }",
    "else_if_chain": "int F(int x) { if (x < 0) { return -1; } else if (x == 0) { return 0; } else { return 1; } }",
    "nested_block": "int F(int x) { { return x; } }",
    "return_after_loop": "int F(int x) { for (int i = 0; i < 3; i++) { if (i == x) return i; } return -1; }",
    "do_while_body_returns": "int F(int x) { do { return x; } while (false); }",
}


@pytest.mark.parametrize("fn", list(ALL_PATHS_RETURN.values()), ids=list(ALL_PATHS_RETURN))
def test_no_false_missing_return(fn):
    res = compile_cs(HEAD + fn + "\n" + CS + "    Out[0] = F((int)Out[0]);\n}\n")
    assert res.ok, [d.message for d in res.diagnostics]
    assert [d for d in res.diagnostics if d.severity != "note"] == []


def test_float_index_warns_and_truncates():
    res = compile_cs(HEAD + CS + "    float a[2] = {1, 2};\n    float i = 1.5;\n    Out[0] = a[i];\n}\n")
    assert res.ok
    assert [d.render(res.sources).splitlines()[0] for d in res.diagnostics] == [
        "lang_test.hlsl:6:16: warning: array index is a floating-point value; it is truncated [-Wconversion]"]
