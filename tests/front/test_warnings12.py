"""Warnings DXC gives where we refused or were silent (issue 20), and what DXC only warns on.

Each warning is clang's (DXC keeps it: the words and the -W group are those of DXC's DiagnosticLexKinds.td,
DiagnosticSemaKinds.td and DiagnosticGroups.td).  For each: the program compiles on both targets with exactly that
warning at its line:col, `-Wno-<group>` silences it, and `-WX` makes it an error (exit 1, no output).  The three
programs we used to refuse (`float;`, `typedef struct {...};`, 18446744073709551615) also run."""

from __future__ import annotations

import pytest
from lang_util import run_cs

from shaderbuild.compiler import compile_file
from shaderbuild.diagnostics import warning_group
from shaderbuild.options import CompileOptions

PS = "float4 main(float4 p : A, int i : B) : SV_Target {\n"     # the body starts on line 2
E = "    return p;\n}\n"


def B(body: str) -> str:
    return PS + body + E


def G(decls: str, body: str = "") -> str:
    return decls + PS + body + E


# name -> (program, "line:col", message, group, hlsl version)
CASES: dict[str, tuple[str, str, str, str, int]] = {
    "no_declarators": (G("float;\n"), "1:1", "declaration does not declare anything", "missing-declarations", 2021),
    "no_declarators_const": (G("static const float4;\n"), "1:1", "declaration does not declare anything",
                             "missing-declarations", 2021),
    "no_declarators_local": (B("    float;\n"), "2:5", "declaration does not declare anything",
                             "missing-declarations", 2021),
    "no_declarators_in_a_struct": (G("struct S { float x; float; };\n", "    S s; s.x = 1; p.x = s.x;\n"), "1:21",
                                   "declaration does not declare anything", "missing-declarations", 2021),
    "no_declarators_in_a_cbuffer": (G("cbuffer C { float4 k; const float; };\n", "    p += k;\n"), "1:23",
                                    "declaration does not declare anything", "missing-declarations", 2021),
    "typedef_without_a_name": (G("typedef struct { float x; };\n"), "1:1", "typedef requires a name",
                               "missing-declarations", 2021),
    "typedef_without_a_name_scalar": (B("    typedef float;\n"), "2:5", "typedef requires a name",
                                      "missing-declarations", 2021),
    "nested_block_comment": (G("/* one /* two */\n"), "1:8", "'/*' within block comment", "comment", 2021),
    "nested_block_comment_in_code": (B("    float /* a\n    b /* c */ x = 1;\n"), "3:7", "'/*' within block comment",
                                     "comment", 2021),
    "nested_block_comment_after_a_directive": (G("#if 1 /* a /* b */\n#endif\n"), "1:12",
                                               "'/*' within block comment", "comment", 2021),
    "nested_block_comment_after_the_endif_of_a_skipped_group": (G("#if 0\n#endif /* a /* b */\n"), "2:13",
                                                                "'/*' within block comment", "comment", 2021),
    "nested_block_comment_at_the_end": (G("", "") + "/* x /* y */", "4:6", "'/*' within block comment",
                                        "comment", 2021),
    "nested_block_comment_after_a_splice": (G("/* a \\\n /* b */\n"), "2:2", "'/*' within block comment",
                                            "comment", 2021),
    "pragma_once_in_main_file": ("#pragma once\n" + B(""), "1:9", "#pragma once in main file",
                                 "pragma-once-outside-header", 2021),
    "line_decimal": ("#line 010\n" + B(""), "1:7", "#line directive interprets number as decimal, not octal",
                     "line-decimal", 2021),
    "line_marker_decimal": ('# 07 "t.hlsl"\n' + B(""), "1:3", "GNU line marker directive interprets number as "
                            "decimal, not octal", "line-decimal", 2021),
    "pp_convert_rhs_to_positive": ("#if 1u > -2\n#endif\n" + B(""), "1:8", "right side of operator converted from "
                                   "negative value to unsigned: -2 to 18446744073709551614", "preprocessor-arithmetic",
                                   2021),
    "pp_overflow_of_a_negation": ("#if -(-9223372036854775807 - 1)\n#endif\n" + B(""), "1:5",
                                  "integer overflow in preprocessor expression", "preprocessor-arithmetic", 2021),
    "pp_overflow_of_a_shift": ("#if 1 << 63\n#endif\n" + B(""), "1:7", "integer overflow in preprocessor expression",
                               "preprocessor-arithmetic", 2021),
    "pp_overflow_of_a_product": ("#if 4611686018427387904 * 2\n#endif\n" + B(""), "1:25",
                                 "integer overflow in preprocessor expression", "preprocessor-arithmetic", 2021),
    "pp_literal_too_large_for_signed": ("#if 9223372036854775808\n#endif\n" + B(""), "1:5",
                                        "integer literal is too large to be represented in a signed integer type, "
                                        "interpreting as unsigned", "implicitly-unsigned-literal", 2021),
    "undef_builtin_macro": ("#undef __COUNTER__\n" + B(""), "1:8", "undefining builtin macro",
                            "builtin-macro-redefined", 2021),
    "redef_builtin_macro": ("#define __FILE__ \"x\"\n" + B(""), "1:9", "redefining builtin macro",
                            "builtin-macro-redefined", 2021),
    "pragma_message": ('#define WHY "the reason"\n#pragma message("because " WHY)\n' + B(""), "2:9",
                       "because the reason", "#pragma-messages", 2021),
    "pragma_message_gcc_form": ('#pragma message "plain"\n' + B(""), "1:9", "plain", "#pragma-messages", 2021),
    "float_overflow": (B("    float y = -1e400;\n"), "2:16", "magnitude of floating-point constant too large for type "
                       "'literal float'; maximum is 1.7976931348623157E+308", "literal-range", 2021),
    "float_overflow_hex": (B("    float y = 0x1p2000;\n"), "2:15", "magnitude of floating-point constant too large for "
                           "type 'literal float'; maximum is 1.7976931348623157E+308", "literal-range", 2021),
    "float_overflow_suffix_f": (B("    float y = 3.5e38f;\n"), "2:15", "magnitude of floating-point constant too large "
                                "for type 'float'; maximum is 3.40282347E+38", "literal-range", 2021),
    "float_overflow_202x": (B("    float y = 1e39;\n"), "2:15", "magnitude of floating-point constant too large "
                            "for type 'float'; maximum is 3.40282347E+38", "literal-range", 2029),
    "double_overflow": (B("    double y = 2e308l;\n"), "2:16", "magnitude of floating-point constant too large for "
                        "type 'double'; maximum is 1.7976931348623157E+308", "literal-range", 2021),
    "float_underflow": (B("    float y = 1e-400;\n"), "2:15", "magnitude of floating-point constant too small for "
                        "type 'literal float'; minimum is 4.9406564584124654E-324", "literal-range", 2021),
    "float_underflow_suffix_f": (B("    float y = 1e-46f;\n"), "2:15", "magnitude of floating-point constant too small "
                                 "for type 'float'; minimum is 1.40129846E-45", "literal-range", 2021),
    "unknown_escape": (B("    uint c = 'a' + '\\q';\n"), "2:21", "unknown escape sequence '\\q'",
                       "unknown-escape-sequence", 2021),
    "unknown_attribute": (G("[foo]\n"), "1:2", "unknown attribute 'foo' ignored", "unknown-attributes", 2021),
    "unknown_vk_attribute": (B("    [[vk::bar]] float y = 1;\n"), "2:11", "unknown attribute 'bar' ignored",
                             "unknown-attributes", 2021),
    "unknown_statement_attribute": (B("    [spin] for (int k = 0; k < 2; k++) p.x += k;\n"), "2:6",
                                    "unknown attribute 'spin' ignored", "unknown-attributes", 2021),
    "empty_if_body": (B("    if (i > 0);\n"), "2:15", "if statement has empty body", "empty-body", 2021),
    "dangling_else": (B("    if (i > 0) if (i > 1) p.x = 1; else p.x = 2;\n"), "2:36",
                      "add explicit braces to avoid dangling else", "dangling-else", 2021),
    "dangling_else_through_a_loop": (B("    if (i > 0) while (i < 3) if (i > 1) break; else i++;\n"), "2:48",
                                     "add explicit braces to avoid dangling else", "dangling-else", 2021),
    "condition_is_assignment_if": (B("    int k; if (k = i) p.x = 1;\n"), "2:18",
                                   "using the result of an assignment as a condition without parentheses",
                                   "parentheses", 2021),
    "condition_is_or_assignment_while": (B("    int k = 0; while (k |= i) break;\n"), "2:25",
                                         "using the result of an assignment as a condition without parentheses",
                                         "parentheses", 2021),
    "condition_is_assignment_for": (B("    int k = 0; for (; k = i;) break;\n"), "2:25",
                                    "using the result of an assignment as a condition without parentheses",
                                    "parentheses", 2021),
    "precedence_bitwise_rel_left": (B("    bool b = i == 4 | i;\n"), "2:21",
                                    "'|' has lower precedence than '=='; '==' will be evaluated first",
                                    "parentheses", 2021),
    "precedence_bitwise_rel_right": (B("    bool b = i ^ i < 4;\n"), "2:16",
                                     "'^' has lower precedence than '<'; '<' will be evaluated first",
                                     "parentheses", 2021),
    "logical_and_in_logical_or_right": (B("    bool b = i == 7 || i > 1 && i < 4;\n"), "2:30", "'&&' within '||'",
                                        "logical-op-parentheses", 2021),
    "bool_switch_condition": (B("    bool b = i > 1;\n    switch (b) { default: p.x = 2; }\n"), "3:5",
                              "switch condition has boolean value", "switch-bool", 2021),
    "unknown_escape_in_an_if": ("#if '\\q' == 'q' && '\\e' == 27\n#else\n#error the escapes' values\n#endif\n" + B(""),
                                "1:6", "unknown escape sequence '\\q'", "unknown-escape-sequence", 2021),
    "literal_too_large_for_signed_202x": (B("    uint64_t u = 18446744073709551615;\n"), "2:18",
                                          "integer literal is too large to be represented in a signed integer type, "
                                          "interpreting as unsigned", "implicitly-unsigned-literal", 2029),
}


# nothing to say: a skipped group is lexed raw (clang), `/*/` ends a comment
QUIET = {
    "nested_block_comment_in_a_skipped_group": G("#if 0\n/* a /* b */\n#else /* c */\n#endif\n"),
    "nested_block_comment_on_a_skipped_directive": G("#if 0\n#if 1 /* a /* b */\n#endif\n#endif\n"),
    "a_comment_ending_in_slash_star_slash": G("/* a /*/\n"),
    # clang: only operands that are evaluated
    "pp_overflow_not_evaluated": G("#if 0 && (9223372036854775807 + 1)\n#endif\n#if 1 || -1 < 0u\n#endif\n"),
    "pp_unsigned_arithmetic": G("#if 1u << 63 && 18446744073709551615u + 1 == 0 && 0xFFFFFFFFFFFFFFFF\n#endif\n"),
    "pp_line_zero": G("#line 0\n"),
    "an_unknown_escape_not_evaluated": G("#if 0 && '\\q'\n#endif\n"),
    "parenthesized_or_compared_conditions": B("    int k = 0;\n    if ((k = i)) p.x = 1;\n    while ((k |= 1) != 0) break;\n"
                                              "    if (k += 1) p.x = 2;\n"),
    "precedence_written_out": B("    bool b = (i & 4) == 4 || (i > 1 && i < 4);\n"
                                "    bool c = (i == 4) | (i < 2);\n    bool d = i < 2 & i > 0;\n"
                                "    bool e = (i & 4) != 0 & i > 0;\n"),
    "and_within_or_where_a_literal_decides": B('    bool b = i > 1 && i < 4 || 0;\n    bool c = 1 && i > 1 || i < 0;\n'
                                               '    bool d = i < 0 || i > 1 && true;\n    bool e = false || i > 1 && i < 4;\n'),
    "and_within_or_from_a_macro": "#define EITHER(a, b, c) a && b || c\n" + B("    bool b = EITHER(i > 1, i < 4, i == 7);\n"),
    "switch_on_an_int": B("    switch (i) { default: p.x = 2; }\n"),
    "attributes_dxc_knows": G("[noinline] [[clang::fallthrough]] [Experimental] [[vk::location(0)]]\n"),
    "an_empty_body_on_its_own_line": B("    if (i > 0)\n        ;\n"),
    "elses_in_braces_or_chains": B("    if (i) { if (i > 1) p.x = 1; else p.x = 2; }\n"
                                   "    if (i) if (i > 1) p.x = 1; else p.x = 2; else p.x = 3;\n"
                                   "    if (i) p.x = 1; else if (i > 1) p.x = 2; else p.x = 3;\n"),
    "escapes_clang_reads_silently": B("    uint c = '\\e' + '\\(' + '\\{' + '\\[' + '\\%' + '\\?' + '\\\"' + '\\'' + '\\\\';\n"),
    # in range: a double denormal, FLT_MAX written to 8 digits, the least float denormal, zero, D3D's 1.#INF
    "floats_in_range": B("    float y = 1e-320 + 3.4028235e38f + 1.4e-45f + 0.0f + 0e5 + 1.#INF + 1e38f;\n"),
}

# clang's errors for a malformed `#pragma message` (name -> program, "line:col", message)
MALFORMED = {
    "no_string": ("#pragma message(oops)\n" + B(""), "1:17", "expected string literal in pragma message"),
    "nothing": ("#pragma message\n" + B(""), "1:9", "pragma message requires parenthesized string"),
    "junk_after": ('#pragma message("a" x)\n' + B(""), "1:21", "pragma message requires parenthesized string"),
}


def _options(target: str, hlsl_version: int = 2021, **kw) -> CompileOptions:
    return CompileOptions(entry="main", profile="ps_6_2", target=target, vk_target_env="vulkan1.1",
                          hlsl_version=hlsl_version, **kw)


def _diagnostics(source: str, options: CompileOptions) -> tuple[bool, list[tuple[str, str, str]]]:
    res = compile_file("t.hlsl", options, text=source)
    if not res.ok:
        assert res.binary is None
    else:
        assert res.binary
    return res.ok, [(d.severity, f"{d.loc.line}:{d.loc.col}" if d.loc else "", d.message) for d in res.diagnostics]


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_warned_at_its_place_in_its_group(name, target):
    source, where, message, group, version = CASES[name]
    res = compile_file("t.hlsl", _options(target, version), text=source)
    assert res.ok and res.binary, [d.render() for d in res.diagnostics]
    assert [(d.severity, f"{d.loc.line}:{d.loc.col}", d.message) for d in res.diagnostics] == [
        ("warning", where, message)]
    assert warning_group(res.diagnostics[0]) == group
    assert f"[-W{group}]" in res.diagnostics[0].render()


@pytest.mark.parametrize("name", sorted(CASES))
def test_silenced_by_its_group(name):
    source, _where, _message, group, version = CASES[name]
    assert _diagnostics(source, _options("spirv", version, disabled_warnings=[group])) == (True, [])


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_error_under_wx(name):
    source, where, message, group, version = CASES[name]
    ok, diags = _diagnostics(source, _options("spirv", version, warnings_as_errors=True))
    if group == "#pragma-messages":         # clang's DefaultWarnNoWerror
        assert (ok, diags) == (True, [("warning", where, message)])
        return
    assert not ok
    assert diags == [("error", where, f"{message} [-WX]")]


LIT = """RWStructuredBuffer<uint> O : register(u0);
[numthreads(1, 1, 1)]
void main() {
    uint64_t a = 18446744073709551615;
    int b = 18446744073709551615;
    O[0] = (uint)a; O[1] = (uint)(a >> 32); O[2] = (uint)b;
    O[3] = 18446744073709551615 > 0 ? 1 : 2;
    O[4] = 9223372036854775808 < 0 ? 1 : 2;
    uint64_t c = 0xFFFFFFFFFFFFFFFF + 2;
    O[5] = (uint)c; O[6] = (uint)(c >> 32);
}
"""


@pytest.mark.parametrize("version", [2021, 2029])
def test_the_too_large_literal_has_dxcs_value(version):
    """HLSL 2021: an unsuffixed literal is DXC's 64-bit signed "literal int", so 2**64 - 1 is -1 and 2**63 is
    -2**63, without a word (SemaExpr.cpp's HLSL branch reports only values past 64 bits).  HLSL 202x: C's rule, a
    decimal literal no signed type holds is uint64_t, with clang's warning.  Expected values from Python ints."""
    def signed64(v: int) -> int:
        return v - (1 << 64) if v >> 63 else v

    big, half = 2**64 - 1, 2**63
    if version == 2021:
        a, b, gt, lt, c = signed64(big), signed64(big), signed64(big) > 0, signed64(half) < 0, signed64(big) + 2
    else:
        a, b, gt, lt, c = big, big, big > 0, False, 0xFFFFFFFFFFFFFFFF + 2
    m32, m64 = 2**32 - 1, 2**64 - 1
    expected = [a & m32, (a & m64) >> 32, b & m32, 1 if gt else 2, 1 if lt else 2, c & m32, (c & m64) >> 32]
    got = run_cs(LIT, {"O": ("uint", 7)}, profile="cs_6_2", hlsl_version=version)["O"]
    assert got == expected


@pytest.mark.parametrize("name", sorted(QUIET))
def test_quiet(name):
    assert _diagnostics(QUIET[name], _options("spirv")) == (True, [])


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_pragma_message(name):
    source, where, message = MALFORMED[name]
    assert _diagnostics(source, _options("spirv")) == (False, [("error", where, message)])


def test_pragma_once_in_an_included_file_is_quiet(tmp_path):
    (tmp_path / "h.hlsli").write_text("#pragma once\nstatic const float K = 2;\n")
    main = tmp_path / "m.hlsl"
    main.write_text('#include "h.hlsli"\n#include "h.hlsli"\n' + B("    p.x = K;\n"))
    res = compile_file(str(main), _options("spirv"))
    assert res.ok and res.diagnostics == []


def test_out_of_range_floats_are_infinity_and_zero():
    """The value is what the literal rounds to (IEEE round to nearest), as DXC's APFloat: +-infinity or zero."""
    src = """RWStructuredBuffer<float> O : register(u0);
[numthreads(1, 1, 1)]
void main() { O[0] = 1e400; O[1] = -1e39f; O[2] = 1e-400; O[3] = 1e-46f; O[4] = 0x1p2000; O[5] = 1.4e-45f; }
"""
    got = run_cs(src, {"O": ("float", 6)})["O"]
    tiny = 2.0**-149           # the least float denormal (1.4e-45 rounds to it)
    assert got == [float("inf"), float("-inf"), 0.0, 0.0, float("inf"), tiny]


def test_escapes_clang_reads():
    """An unknown escape is the character itself ('\\q' is 'q', with the warning); GNU's '\\e' is ESC (27),
    '\\(' is '('.  Expected values from Python's ord()."""
    src = """RWStructuredBuffer<uint> O : register(u0);
[numthreads(1, 1, 1)]
void main() { O[0] = '\\q'; O[1] = '\\e'; O[2] = '\\('; O[3] = '\\%'; }
"""
    assert run_cs(src, {"O": ("uint", 4)})["O"] == [ord("q"), 0x1B, ord("("), ord("%")]


CLI_SHADER = """/* a /* b */
#pragma message("hello")
RWStructuredBuffer<uint> O : register(u0);
[numthreads(1, 1, 1)]
void main() { float; O[0] = '\\q'; }
"""


@pytest.mark.parametrize("flags, status, shown", [
    ([], 0, ["t.hlsl:1:6: warning: '/*' within block comment [-Wcomment]",
             "t.hlsl:2:9: warning: hello [-W#pragma-messages]",
             "t.hlsl:5:15: warning: declaration does not declare anything [-Wmissing-declarations]",
             "t.hlsl:5:30: warning: unknown escape sequence '\\q' [-Wunknown-escape-sequence]"]),
    (["-Wno-comment", "-Wno-#pragma-messages", "-Wno-unknown-escape-sequence"], 0,
     ["t.hlsl:5:15: warning: declaration does not declare anything [-Wmissing-declarations]"]),
    (["-WX", "-Wno-missing-declarations"], 1,
     ["t.hlsl:1:6: error: '/*' within block comment [-WX]",
      "t.hlsl:2:9: warning: hello [-W#pragma-messages]",
      "t.hlsl:5:30: error: unknown escape sequence '\\q' [-WX]"]),
])
def test_the_command_line(tmp_path, monkeypatch, capsys, flags, status, shown):
    """Through `shaderbuild compile`: the group shown after each warning, -Wno-<group> (a `#` in the name too),
    -WX (which leaves a #pragma message a warning); the lexer's, preprocessor's and parser's warnings in order."""
    from shaderbuild import cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.hlsl").write_text(CLI_SHADER)
    assert cli.main(["compile", "t.hlsl", "-T", "cs_6_0", "-Fo", "t.spv", *flags]) == status
    err = capsys.readouterr().err
    assert [line for line in err.splitlines() if line.startswith("t.hlsl:")] == shown
    assert (tmp_path / "t.spv").exists() == (status == 0)
