"""Error recovery at more points (accept8): each case asserts the exact list of `file:line:col: error: text`
in source order, with no cascade.  New since the first sweep: an unknown type name is a semantic error (the
rest of the program is still checked and the declaration's uses stay silent), a misplaced modifier is
reported and ignored (the declaration stays usable), a redefined struct or function keeps its first
definition, and the preprocessor goes on after a bad `#if`/`#elif` expression (its group is skipped, as
clang), `#error` and an unknown directive (then the parser still reports syntax errors; sema does not run).
Then -ferror-limit, -Wno-/-WX with errors, and the command line."""

from __future__ import annotations

import pytest

from shaderbuild.cli import main
from shaderbuild.compiler import compile_file
from shaderbuild.diagnostics import TOO_MANY_ERRORS
from shaderbuild.options import CompileOptions

HEAD = "RWStructuredBuffer<float> Out : register(u0);\n"          # line 1
CS = "[numthreads(1, 1, 1)]\nvoid main() {\n"                      # the body starts two lines later


def _diagnostics(source: str, **opts) -> list[str]:
    res = compile_file("t.hlsl", CompileOptions(entry="main", profile="cs_6_0", target="spirv", **opts), text=source)
    assert res.ok is False and res.binary is None
    return [f"{d.loc}: {d.severity}: {d.message}" if d.loc else f"{d.severity}: {d.message}" for d in res.diagnostics]


# name -> (source, the exact error list)
CASES = {
    'syntax_in_struct_function_cbuffer_attribute': (
        'struct S { float a; float b c; };\nfloat f(float x) { return x * ; }\ncbuffer C { float4 k = ; float4 j; };\n[numthreads(1, 1, 1]\nvoid main() { Out[0] = 1; }\n',
        ["t.hlsl:1:29: error: expected ';' after struct field, found 'c'", "t.hlsl:2:31: error: expected an expression, found ';'", "t.hlsl:3:24: error: expected an expression, found ';'", "t.hlsl:4:20: error: expected ')', found ']'"]),
    # effects blocks and annotations are skipped to their closing bracket as DXC does: only the function's error
    'technique_then_function': (
        HEAD + 'technique T { pass P { VertexShader = ; } }\nfloat f() { return 1 +; }\n' + CS + '    Out[0] = f();\n}\n',
        ["t.hlsl:3:23: error: expected an expression, found ';'"]),
    'annotation_then_body': (
        HEAD + 'float4 g < int a = ; >;\n' + CS + '    Out[0] = g.x +;\n}\n',
        ["t.hlsl:5:19: error: expected an expression, found ';'"]),
    'unclosed_state_block_at_the_end': (
        HEAD + CS + '    Out[0] = 1;\n}\nSamplerState s { Filter = LINEAR;\n',
        ["t.hlsl:6:16: error: expected '}' to close the state block opened here"]),
    'namespace_members_then_after': (
        HEAD + 'namespace N { float f() { return 1 +; } static const float K = ; }\nfloat g() { return ; }\n' + CS + '    Out[0] = N::f() + g();\n}\n',
        ["t.hlsl:2:37: error: expected an expression, found ';'", "t.hlsl:2:64: error: expected an expression, found ';'"]),
    'unknown_typedef_target_then_uses_and_body': (
        HEAD + 'typedef floatt F;\nF h(F x) { return x; }\n' + CS + '    F y = 1;\n    Out[0] = h(y);\n    Out[1] = zz;\n}\n',
        ["t.hlsl:2:9: error: unknown type name 'floatt'", "t.hlsl:8:14: error: use of undeclared identifier 'zz'"]),
    'unknown_parameter_type_then_calls_and_body': (
        HEAD + 'float f(floatt x, float y) { return y; }\n' + CS + '    Out[0] = f(1, 2) + f(3, 4);\n    Out[1] = u7;\n}\n',
        ["t.hlsl:2:9: error: unknown type name 'floatt'", "t.hlsl:6:14: error: use of undeclared identifier 'u7'"]),
    'unknown_field_type_then_body_of_another_function': (
        HEAD + 'struct S { flaot a; float b; };\nfloat g() { return u1; }\n' + CS + '    S s;\n    s.b = 1;\n    Out[0] = s.b + g();\n    Out[1] = zz;\n}\n',
        ["t.hlsl:2:12: error: unknown type name 'flaot'; did you mean 'float'?", "t.hlsl:3:20: error: use of undeclared identifier 'u1'", "t.hlsl:9:14: error: use of undeclared identifier 'zz'"]),
    # a function whose parameter types fail: every parameter's error, then its body's, then the callers' others
    'unknown_parameter_types_then_the_body': (
        HEAD + 'float f(floatt x, float y, flaot z) {\n    float a = x + y;\n    float b = u1;\n    return y + z;\n}\n'
        + CS + '    Out[0] = f(1, 2, 3);\n    Out[1] = u2;\n}\n',
        ["t.hlsl:2:9: error: unknown type name 'floatt'", "t.hlsl:2:28: error: unknown type name 'flaot'; did you mean "
         "'float'?", "t.hlsl:4:15: error: use of undeclared identifier 'u1'",
         "t.hlsl:10:14: error: use of undeclared identifier 'u2'"]),
    'parameter_of_a_failed_struct_type_then_the_body': (
        HEAD + 'struct S { floatt a; };\nfloat g(S s, float k) {\n    float t = s.a;\n    return k + u3;\n}\n' + CS
        + '    Out[0] = u4;\n}\n',
        ["t.hlsl:2:12: error: unknown type name 'floatt'", "t.hlsl:5:16: error: use of undeclared identifier 'u3'",
         "t.hlsl:9:14: error: use of undeclared identifier 'u4'"]),
    'unknown_local_type_then_uses': (
        HEAD + CS + '    flaot x = 1;\n    Out[0] = x;\n    x += 2;\n    Out[1] = u3;\n}\n',
        ["t.hlsl:4:5: error: unknown type name 'flaot'; did you mean 'float'?", "t.hlsl:7:14: error: use of undeclared identifier 'u3'"]),
    'namespace_sema': (
        HEAD + 'namespace N { float f() { return u1; } static const float K = u2; }\n' + CS + '    Out[0] = N::f() + N::K;\n    Out[1] = u3;\n}\n',
        ["t.hlsl:2:34: error: use of undeclared identifier 'u1'", "t.hlsl:2:63: error: use of undeclared identifier 'u2'", "t.hlsl:6:14: error: use of undeclared identifier 'u3'"]),
    'template_body_then_calls': (
        HEAD + 'template<typename T> T twice(T x) { return x * undeclared_t; }\n' + CS + '    Out[0] = twice(1.0) + twice(2) + u4;\n}\n',
        ["t.hlsl:2:48: error: use of undeclared identifier 'undeclared_t'", "t.hlsl:5:38: error: use of undeclared identifier 'u4'"]),
    'method_bodies_then_calls': (
        HEAD + 'struct S { float a; float get() { return a + u5; } float set(float v) { a = v; return w6; } };\n' + CS + '    S s; s.a = 1;\n    Out[0] = s.get() + s.set(2) + s.nope();\n}\n',
        ["t.hlsl:2:46: error: use of undeclared identifier 'u5'", "t.hlsl:2:87: error: use of undeclared identifier 'w6'", "t.hlsl:6:37: error: no member function named 'nope' in 'S'"]),
    'static_initialiser_case_label_for_init': (
        HEAD + 'static float g = u8;\n' + CS + '    int k = 2;\n    switch (k) { case k: break; }\n    for (int i = u9; i < 2; i++) { Out[i] = g; }\n    Out[3] = g;\n}\n',
        ["t.hlsl:2:18: error: use of undeclared identifier 'u8'", 't.hlsl:6:23: error: expression is not an integer constant expression', "t.hlsl:7:18: error: use of undeclared identifier 'u9'"]),
    'cbuffer_register_then_packoffset_then_body': (
        HEAD + 'cbuffer C : register(x9) { float4 a; };\ncbuffer D { float4 b : packoffset(q1); };\n' + CS + '    Out[0] = a.x + b.x + u10;\n}\n',
        ["t.hlsl:2:13: error: invalid register class 'x' for cbuffer 'C' (expected 'b')", "t.hlsl:3:24: error: packoffset must name a 'c' register, not 'q1'"]),
    'redefinitions_keep_the_first': (
        HEAD + 'float f() { return 1; }\nfloat f() { return 2; }\nstruct S { float a; };\nstruct S { float b; };\n' + CS + '    S s; s.a = 1;\n    Out[0] = f() + s.a + u12;\n}\n',
        ["t.hlsl:3:7: error: redefinition of 'f'", "t.hlsl:5:8: error: redefinition of 'S'", "t.hlsl:9:26: error: use of undeclared identifier 'u12'"]),
    'bad_if_expression_then_syntax': (
        HEAD + '#if 1 +\n#define X 1\n#endif\n' + CS + '    Out[0] = 1 +;\n}\n',
        ['t.hlsl:2:8: error: expected value in preprocessor expression', "t.hlsl:7:17: error: expected an expression, found ';'"]),
    'error_directive_then_syntax': (
        HEAD + '#error first problem\n#if defined(\n#endif\n#bogus directive\n' + CS + '    Out[0] = ;\n}\n',
        ['t.hlsl:2:1: error: first problem', "t.hlsl:3:5: error: macro name must be an identifier after 'defined'", "t.hlsl:5:2: error: invalid preprocessing directive '#bogus'", "t.hlsl:8:14: error: expected an expression, found ';'"]),
    'bad_elif_takes_the_else': (
        HEAD + '#if 0\n#elif 2 *\nstatic const float K = 1;\n#else\nstatic const float K = 2;\n#endif\n' + CS + '    Out[0] = K;\n}\n',
        ['t.hlsl:3:10: error: expected value in preprocessor expression']),
    'conversion_then_use': (
        HEAD + CS + '    float2x2 m = (float2x2)float3(1, 2, 3);\n    Out[0] = m[0][0] + u16;\n}\n',
        ["t.hlsl:4:18: error: cannot convert from 'float3' to 'float2x2'", "t.hlsl:5:24: error: use of undeclared identifier 'u16'"]),
    'intrinsic_arity_then_use': (
        HEAD + CS + '    float x = lit(1, 2);\n    Out[0] = x + clamp(1, 2);\n    Out[1] = x + u17;\n}\n',
        ["t.hlsl:4:15: error: no matching intrinsic for call to 'lit': expected 3 arguments, have 2", "t.hlsl:5:18: error: no matching intrinsic for call to 'clamp': expected 3 arguments, have 2", "t.hlsl:6:18: error: use of undeclared identifier 'u17'"]),
    'modifiers_are_reported_and_ignored': (
        HEAD + 'uniform float f() { return u18; }\nstruct S { const float a; };\ntypedef in float F;\nfloat h(groupshared float x) { return x; }\n' + CS + '    in float y = 1;\n    S s = (S)0;\n    F z = h(y);\n    Out[0] = f() + y + s.a + z + u19;\n}\n',
        ["t.hlsl:2:15: error: 'uniform' is not a valid modifier for a function", "t.hlsl:2:28: error: use of undeclared identifier 'u18'", "t.hlsl:3:24: error: 'const' is not a valid modifier for a field", "t.hlsl:4:18: error: HLSL usage 'in' is only valid on a parameter", "t.hlsl:8:14: error: HLSL usage 'in' is only valid on a parameter", "t.hlsl:11:34: error: use of undeclared identifier 'u19'"]),
    'misplaced_uniform_method_then_call': (
        HEAD + 'struct S {\n    uniform float f() { return 1; }\n};\n' + CS + '    S s;\n    Out[0] = s.f() + u20;\n}\n',
        ["t.hlsl:3:19: error: 'uniform' is not a valid modifier for a method", "t.hlsl:8:22: error: use of undeclared identifier 'u20'"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_error_once_no_cascade(name):
    source, expected = CASES[name]
    assert [d for d in _diagnostics(source, error_limit=0) if ": warning: " not in d] == expected


def test_error_limit_cuts_a_mixed_list():
    source, expected = CASES["modifiers_are_reported_and_ignored"]
    assert len(expected) == 6
    assert _diagnostics(source, error_limit=4) == expected[:4] + [f"fatal error: {TOO_MANY_ERRORS}"]
    assert _diagnostics(source, error_limit=6) == expected


# warnings from the parser and sema, errors from sema: -Wno- drops a group, -WX makes the rest errors that
# count toward -ferror-limit (warnings are listed before the errors sema collects)
MIXED = (HEAD + "technique T { pass P {} }\n" + CS + "    float2 v = float3(1, 2, 3);\n    Out[0] = v.x + u1;\n"
         "    [loop] if (v.x > 0) Out[1] = 1;\n    Out[2] = u2;\n}\n")
TECHNIQUE = "t.hlsl:2:1: {}: effect technique ignored - effect syntax is deprecated"
TRUNCATION = "t.hlsl:5:16: {}: implicit truncation of vector type"
LOOP = "t.hlsl:7:6: {}: attribute 'loop' can only be applied to 'for', 'while' and 'do' loop statements"
ERRORS = ["t.hlsl:6:20: error: use of undeclared identifier 'u1'", "t.hlsl:8:14: error: use of undeclared identifier 'u2'"]


@pytest.mark.parametrize("opts, expected", [
    ({}, [TECHNIQUE.format("warning") + " [-Weffects-syntax]", TRUNCATION.format("warning") + " [-Wconversion]",
          LOOP.format("warning") + " [-Wattribute-statement]", *ERRORS]),
    ({"disabled_warnings": ["effects-syntax", "attribute-statement"]},
     [TRUNCATION.format("warning") + " [-Wconversion]", *ERRORS]),
    ({"warnings_as_errors": True, "disabled_warnings": ["effects-syntax"]},
     [TRUNCATION.format("error") + " [-WX]", LOOP.format("error") + " [-WX]", *ERRORS]),
    ({"warnings_as_errors": True, "error_limit": 2},
     [TECHNIQUE.format("error") + " [-WX]", TRUNCATION.format("error") + " [-WX]", f"fatal error: {TOO_MANY_ERRORS}"]),
    ({"error_limit": 1}, [TECHNIQUE.format("warning") + " [-Weffects-syntax]",
                          TRUNCATION.format("warning") + " [-Wconversion]",
                          LOOP.format("warning") + " [-Wattribute-statement]", ERRORS[0],
                          f"fatal error: {TOO_MANY_ERRORS}"]),
])
def test_warning_options_with_errors(opts, expected):
    res = compile_file("t.hlsl", CompileOptions(entry="main", profile="cs_6_0", target="spirv", **opts), text=MIXED)
    assert res.ok is False and res.binary is None
    got = []
    for d in res.diagnostics:
        head = d.render(res.sources).splitlines()[0]
        got.append(head)
    assert got == expected


def test_command_line_reports_preprocessor_and_syntax_errors(tmp_path, capsys):
    source, expected = CASES["error_directive_then_syntax"]
    src = tmp_path / "t.hlsl"
    src.write_text(source)
    out = tmp_path / "t.spv"
    assert main(["compile", str(src), "-T", "cs_6_0", "-E", "main", "-o", str(out)]) == 1
    assert not out.exists()
    err = capsys.readouterr().err
    for e in expected:
        assert str(tmp_path / e) in err
    assert err.count(": error: ") == len(expected)
