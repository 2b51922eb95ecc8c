"""Tests for shaderbuild.front.preprocessor: macros, conditionals, includes, limits, diagnostics."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shaderbuild.diagnostics import CompileError, Diagnostic, SourceCache, SourceLoc
from shaderbuild.front.preprocessor import PPLimits, PPResult, preprocess
from shaderbuild.front.tokens import TokKind


def run(src: str, **kw) -> PPResult:
    return preprocess("main.hlsl", text=src, **kw)


def out(src: str, **kw) -> str:
    """The expanded token spellings joined by single spaces (EOF excluded)."""
    toks = run(src, **kw).tokens
    assert toks[-1].kind is TokKind.EOF
    return " ".join(t.text for t in toks[:-1])


def fail(src: str | None = None, path: str = "main.hlsl", **kw) -> Diagnostic:
    with pytest.raises(CompileError) as exc:
        preprocess(path, text=src, **kw)
    assert len(exc.value.diagnostics) == 1
    d = exc.value.diagnostics[0]
    assert d.severity == "error"
    return d


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content, encoding="utf-8")


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


class SpyReader:
    """A reader that records every path it is asked for."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, path: str) -> bytes:
        self.calls.append(path)
        with open(path, "rb") as f:
            return f.read()


# ---------------------------------------------------------------------------
# Object-like and function-like macros


def test_object_like_macro() -> None:
    assert out("#define N 4\nfloat a[N];") == "float a [ 4 ] ;"


def test_empty_macro_expands_to_nothing() -> None:
    assert out("#define EMPTY\na EMPTY b") == "a b"


def test_function_like_macro_with_arguments() -> None:
    assert out("#define MAD(a, b, c) ((a) * (b) + (c))\nMAD(x, 2, y + 1)") == "( ( x ) * ( 2 ) + ( y + 1 ) )"


def test_function_like_name_without_parenthesis_is_not_invoked() -> None:
    assert out("#define F(x) [x]\nF + F (1)") == "F + [ 1 ]"


def test_object_like_requires_no_space_before_paren_rule() -> None:
    # A space between name and '(' makes the macro object-like.
    assert out("#define O (x) x\nO") == "( x ) x"


def test_arguments_with_nested_parentheses_and_commas() -> None:
    assert out("#define FIRST(a, b) a\nFIRST((1, 2), 3) FIRST(f(a, b), c)") == "( 1 , 2 ) f ( a , b )"


def test_invocation_spanning_lines() -> None:
    assert out("#define ADD(a, b) a + b\nADD(1,\n    2\n) end") == "1 + 2 end"


def test_zero_and_empty_arguments() -> None:
    assert out("#define Z() z\n#define ONE(a) [a]\n#define TWO(a, b) [a|b]\nZ() ONE() TWO(,)") == "z [ ] [ | ]"


def test_rescanning_expands_results() -> None:
    assert out("#define A B\n#define B C\n#define C 7\nA") == "7"


def test_macro_name_from_expansion_takes_parenthesis_from_source() -> None:
    assert out("#define F(x) <x>\n#define G F\nG(3)") == "< 3 >"


def test_arguments_are_fully_expanded_before_substitution() -> None:
    assert out("#define TWO 2\n#define SQ(x) x * x\nSQ(TWO)") == "2 * 2"


def test_self_referential_macro_is_not_reexpanded() -> None:
    assert out("#define X X + 1\nX") == "X + 1"


def test_mutually_recursive_macros_stop() -> None:
    assert out("#define A B\n#define B A\nA B") == "A B"


def test_painted_token_stays_unexpanded_after_leaving_its_macro() -> None:
    # LOOP is painted inside its own expansion; passing it through ID later must not revive it.
    assert out("#define ID(x) x\n#define LOOP ID(LOOP)\nLOOP") == "LOOP"
    assert out("#define ID(x) x\n#define F ID(F) + ID(ID(F))\nF") == "F + F"


def test_function_macro_ending_in_its_own_name() -> None:
    # The trailing `f` is read while f is still being expanded, so it is painted.
    assert out("#define f(a) a f\nf(1)(2)") == "1 f ( 2 )"


def test_expansion_interleaving_two_function_macros() -> None:
    assert out("#define f(a) a*g\n#define g(a) f(a)\nf(3)(4)") == "3 * 4 * g"


def test_painted_tokens_are_plain_tokens_in_output() -> None:
    toks = run("#define X X\nX").tokens
    assert type(toks[0]).__name__ == "Token"


# ---------------------------------------------------------------------------
# Stringizing and pasting


def test_stringize_normalizes_whitespace_and_escapes() -> None:
    assert out('#define S(x) #x\nS(  a   +b  ) S("q\\n" \'c\') S()') == '"a +b" "\\"q\\\\n\\" \'c\'" ""'


def test_stringize_uses_unexpanded_argument_and_xstr_idiom() -> None:
    src = "#define S(x) #x\n#define XS(x) S(x)\n#define V 1.5\nS(V) XS(V) XS((V))"
    assert out(src) == '"V" "1.5" "(1.5)"'


def test_token_pasting() -> None:
    src = "#define CAT(a, b) a ## b\nCAT(tex, 2) CAT(1, 2) CAT(-, =) CAT(<<, =) CAT(, x) CAT(x, ) CAT(,)"
    assert out(src) == "tex2 12 -= <<= x x"
    kinds = [t.kind for t in run("#define CAT(a, b) a##b\nCAT(1,.5f) CAT(a,1)").tokens[:-1]]
    assert kinds == [TokKind.FLOAT, TokKind.IDENT]


def test_pasted_identifier_is_rescanned_as_macro() -> None:
    assert out("#define CAT(a, b) a##b\n#define foobar 42\nCAT(foo, bar)") == "42"


def test_paste_uses_unexpanded_arguments() -> None:
    assert out("#define CAT(a, b) a##b\n#define X Y\nCAT(X, 1) CAT(X, X)") == "X1 XX"


def test_paste_in_object_like_macro() -> None:
    assert out("#define P a ## b\nP") == "ab"


def test_invalid_paste_is_an_error() -> None:
    d = fail("#define CAT(a, b) a ## b\nx = CAT(+, /);")
    assert d.message == 'pasting "+" and "/" does not give a valid preprocessing token'
    assert d.loc == SourceLoc("main.hlsl", 2, 5)


def test_paste_at_either_end_is_an_error() -> None:
    d = fail("#define BAD(a) ## a")
    assert (d.message, d.loc) == ("'##' cannot appear at either end of a macro expansion", SourceLoc("main.hlsl", 1, 16))


def test_stringize_requires_parameter() -> None:
    d = fail("#define BAD(a) # b")
    assert (d.message, d.loc) == ("'#' is not followed by a macro parameter", SourceLoc("main.hlsl", 1, 16))


# ---------------------------------------------------------------------------
# Variadic macros


def test_variadic_macros() -> None:
    src = "#define V(fmt, ...) f(fmt, __VA_ARGS__)\n#define W(...) [__VA_ARGS__]\nV(a, b, c) W() W(1, (2, 3))"
    assert out(src) == "f ( a , b , c ) [ ] [ 1 , ( 2 , 3 ) ]"


def test_variadic_with_no_variadic_arguments_and_gnu_comma() -> None:
    src = "#define L(fmt, ...) log(fmt, ##__VA_ARGS__)\nL(a) L(a, b)"
    assert out(src) == "log ( a ) log ( a , b )"


def test_stringize_variadic() -> None:
    assert out("#define S(...) #__VA_ARGS__\nS(a, b,c)") == '"a, b,c"'


# ---------------------------------------------------------------------------
# Argument errors


def test_too_few_arguments() -> None:
    d = fail("#define F(a, b) a\nint x = F(1);")
    assert (d.message, d.loc) == ("macro 'F' requires 2 arguments, but only 1 given", SourceLoc("main.hlsl", 2, 9))
    assert d.notes[0].message == "macro 'F' defined here"
    assert d.notes[0].loc == SourceLoc("main.hlsl", 1, 9)


def test_too_many_arguments() -> None:
    d = fail("#define F(a) a\n  F(1, 2)")
    assert (d.message, d.loc) == ("macro 'F' passed 2 arguments, but takes just 1", SourceLoc("main.hlsl", 2, 3))
    d = fail("#define Z() z\nZ(1)")
    assert d.message == "macro 'Z' passed 1 arguments, but takes just 0"


def test_variadic_needs_named_arguments() -> None:
    d = fail("#define V(a, b, ...) a\nV(1)")
    assert d.message == "macro 'V' requires 3 arguments, but only 1 given"


def test_unterminated_macro_call() -> None:
    d = fail("#define F(a) a\nx F(1, (2)\n")
    assert (d.message, d.loc) == ("unterminated call to macro 'F'", SourceLoc("main.hlsl", 2, 3))


def test_macro_arguments_may_contain_conditional_directives() -> None:
    src = "#define LIST(...) [__VA_ARGS__]\nLIST(a,\n#ifdef HAS_B\n b,\n#else\n nob,\n#endif\n c) tail"
    assert out(src) == "[ a , nob , c ] tail"
    assert out(src, defines={"HAS_B": "1"}) == "[ a , b , c ] tail"


def test_function_macro_name_before_directive_still_takes_parenthesis() -> None:
    assert out("#define F(x) <x>\nF\n#define Y 2\n(Y) F;") == "< 2 > F ;"


def test_open_call_retry_does_not_repeat_side_effects() -> None:
    src = "#define F(x) x\n__COUNTER__ F(__COUNTER__\n#if 1\n)\n#endif\n__COUNTER__"
    assert out(src) == "0 1 2"


def test_macro_call_left_open_at_end_of_file() -> None:
    d = fail("#define F(a) a\nF(1\n#define Y\n2,\n#if 1\n#endif\n")
    assert (d.message, d.loc) == ("unterminated call to macro 'F'", SourceLoc("main.hlsl", 2, 1))


def test_include_inside_macro_call_is_an_error(in_tmp: Path) -> None:
    write(in_tmp, {"h.h": "h"})
    d = fail('#define F(a) a\n F(1,\n#include "h.h"\n)')
    assert (d.message, d.loc) == ("unterminated call to macro 'F'", SourceLoc("main.hlsl", 2, 2))


# ---------------------------------------------------------------------------
# Definition errors and warnings


@pytest.mark.parametrize(("src", "message", "col"), [
    ("#define", "macro name missing", 2),
    ("#define 3 x", "macro name must be an identifier", 9),
    ("#define defined 1", "'defined' cannot be used as a macro name", 9),
    ("#define F(a, a) a", "duplicate macro parameter 'a'", 14),
    ("#define F(a b) a", "expected ',' or ')' in macro parameter list", 13),
    ("#define F(a,", "missing ')' in macro parameter list", 9),
    ("#define F(1) a", "expected parameter name in macro parameter list", 11),
    ("#define F(..., a) a", "missing ')' after '...' in macro parameter list", 11),
    ("#undef", "macro name missing", 2),
])
def test_define_errors(src: str, message: str, col: int) -> None:
    d = fail(src)
    assert (d.message, d.loc) == (message, SourceLoc("main.hlsl", 1, col))


def test_redefinition_warns_only_when_different() -> None:
    res = run("#define A 1\n#define A 1\n#define A  1\n#define A 2\nA")
    assert [t.text for t in res.tokens[:-1]] == ["2"]
    assert len(res.warnings) == 1
    w = res.warnings[0]
    assert (w.severity, w.message, w.loc) == ("warning", "'A' macro redefined", SourceLoc("main.hlsl", 4, 9))
    assert w.notes[0].message == "previous definition is here"
    assert w.notes[0].loc == SourceLoc("main.hlsl", 3, 9)


def test_undef() -> None:
    assert out("#define A 1\nA\n#undef A\nA\n#undef NEVER_DEFINED\n") == "1 A"


# ---------------------------------------------------------------------------
# Locations


def test_expansion_tokens_point_at_the_use_site() -> None:
    toks = run("#define ONE 1\n#define INC(x) (x + ONE)\nint y = INC(z);").tokens
    by_text = {t.text: t for t in toks}
    use_site = SourceLoc("main.hlsl", 3, 9)
    assert by_text["("].loc == use_site
    assert by_text["("].expansion == ("INC", SourceLoc("main.hlsl", 2, 9))
    assert by_text["1"].loc == use_site
    assert by_text["1"].expansion == ("ONE", SourceLoc("main.hlsl", 1, 9))
    # Argument tokens keep their own spelling location.
    assert by_text["z"].loc == SourceLoc("main.hlsl", 3, 13)
    assert by_text["int"].loc == SourceLoc("main.hlsl", 3, 1)
    assert by_text["int"].expansion is None


def test_builtin_line_file_counter() -> None:
    src = "a __LINE__\n#define L __LINE__\n\nL __FILE__ __COUNTER__ __COUNTER__"
    assert out(src) == 'a 1 4 "main.hlsl" 0 1'


def test_file_macro_escapes_backslashes() -> None:
    assert out("__FILE__", ) == '"main.hlsl"'
    assert [t.text for t in preprocess("dir\\f.hlsl", text="__FILE__").tokens[:-1]] == ['"dir\\\\f.hlsl"']


def test_line_directive_changes_locations() -> None:
    toks = run('a\n#line 100 "gen.hlsl"\nb __LINE__ __FILE__\n#line 7\nc').tokens
    assert [(t.text, str(t.loc)) for t in toks[:-1]] == [
        ("a", "main.hlsl:1:1"), ("b", "gen.hlsl:100:1"), ("100", "gen.hlsl:100:3"),
        ('"gen.hlsl"', "gen.hlsl:100:12"), ("c", "gen.hlsl:7:1")]


def test_line_directive_affects_diagnostics() -> None:
    d = fail("#line 50\n\n#error boom")
    assert d.loc == SourceLoc("main.hlsl", 51, 1)


def test_bad_line_directive() -> None:
    d = fail("#line x")
    assert (d.message, d.loc) == ("#line directive requires a positive integer argument", SourceLoc("main.hlsl", 1, 7))


def test_eof_token_is_single_and_last() -> None:
    toks = run("a\nb\n").tokens
    assert [t.kind for t in toks].count(TokKind.EOF) == 1
    assert toks[-1].kind is TokKind.EOF and toks[-1].loc == SourceLoc("main.hlsl", 2, 1)
    assert [t.kind for t in run("").tokens] == [TokKind.EOF]


# ---------------------------------------------------------------------------
# Conditionals


@pytest.mark.parametrize(("expr", "value"), [
    ("1 + 2 * 3 == 7", 1),
    ("(1 + 2) * 3 == 9", 1),
    ("10 / 3 == 3 && 10 % 3 == 1", 1),
    ("-7 / 2 == -3 && -7 % 2 == -1", 1),
    ("1 << 4 == 16 && 256 >> 4 == 16", 1),
    ("-1 < 0", 1),
    ("-1 < 0u", 0),  # usual arithmetic conversions: -1 becomes UINT64_MAX
    ("-1 > 0u", 1),
    ("0xFFFFFFFFFFFFFFFF == -1", 1),
    ("~0u == 18446744073709551615u", 1),
    ("(0 - 1u) / 2 == 9223372036854775807", 1),
    ("1 ? 2 : 3", 2),
    ("0 ? 2 : 0 ? 4 : 5", 5),
    ("!0 && !!7 && ~0 == -1", 1),
    ("(3 & 6) == 2 && (3 | 4) == 7 && (3 ^ 1) == 2", 1),
    ("'A' == 65 && '\\n' == 10 && '\\x41' == 65", 1),
    ("017 == 15 && 0x10 == 16 && 10UL == 10", 1),
    ("UNDEFINED_NAME == 0 && !UNDEFINED_NAME", 1),
    ("true && !false", 1),
    ("0 && 1 / 0", 0),  # short circuit: no division error
    ("1 || 1 % 0", 1),
    ("1 ? 1 : 1 / 0", 1),
    ("2 >= 2 && 2 <= 2 && 3 != 2 && 3 > 2", 1),
    ("+3 - -3 == 6", 1),
])
def test_if_expressions(expr: str, value: int) -> None:
    assert out(f"#if {expr}\nyes\n#else\nno\n#endif") == ("yes" if value else "no")


def test_defined_forms_and_macros_in_if() -> None:
    src = "#define A\n#define B 3\n#if defined A && defined(B) && !defined C && B == 3\nok\n#endif"
    assert out(src) == "ok"


def test_defined_operand_is_not_expanded() -> None:
    assert out("#define A B\n#if defined(A) && !defined(B)\nok\n#endif") == "ok"


def test_if_elif_else_chain_takes_first_true_branch() -> None:
    src = "#define V 2\n#if V == 1\none\n#elif V == 2\ntwo\n#elif V >= 2\nthree\n#else\nother\n#endif"
    assert out(src) == "two"
    assert out("#if 0\na\n#elif 0\nb\n#else\nc\n#endif") == "c"


def test_nested_conditionals_in_skipped_region() -> None:
    src = "#if 0\n#if 1\nx\n#else\ny\n#endif\n#elif 1\nz\n#endif"
    assert out(src) == "z"


def test_ifdef_ifndef() -> None:
    assert out("#define A\n#ifdef A\na\n#endif\n#ifndef A\nna\n#endif\n#ifndef B\nnb\n#endif") == "a nb"


def test_skipped_region_may_hold_garbage_and_unknown_directives() -> None:
    src = "#if 0\nit's @ $ \"unterminated\n#unknown directive\n#error not reached\n#include <nope>\n#endif\nok"
    assert out(src) == "ok"


def test_elif_not_evaluated_after_taken_branch() -> None:
    assert out("#if 1\na\n#elif 1/0\nb\n#endif") == "a"


@pytest.mark.parametrize(("src", "message", "line", "col"), [
    ("#if 1\na\n", "unterminated conditional directive", 1, 1),
    ("a\n  #ifdef X\n#if 1\n#endif\n", "unterminated conditional directive", 2, 3),
    ("#endif", "#endif without #if", 1, 2),
    ("#else", "#else without #if", 1, 2),
    ("#elif 1", "#elif without #if", 1, 2),
    ("#if 1\n#else\n#else\n#endif", "#else after #else", 3, 2),
    ("#if 1\n#else\n#elif 1\n#endif", "#elif after #else", 3, 2),
    ("#if\n#endif", "#if with no expression", 1, 2),
    ("#if 1 +\n#endif", "expected value in preprocessor expression", 1, 8),
    ("#if (1\n#endif", "expected ')' in preprocessor expression", 1, 7),
    ("#if 1 2\n#endif", "unexpected token '2' in preprocessor expression", 1, 7),
    ("#if 1.0\n#endif", "floating point literal in preprocessor expression", 1, 5),
    ('#if "s"\n#endif', "invalid token '\"s\"' in preprocessor expression", 1, 5),
    ("#if 4 / (2 - 2)\n#endif", "division by zero in preprocessor expression", 1, 7),
    ("#if 4 % 0\n#endif", "division by zero in preprocessor expression", 1, 7),
    ("#if defined(\n#endif", "macro name must be an identifier after 'defined'", 1, 5),
    ("#if defined(X\n#endif", "missing ')' after 'defined'", 1, 13),
    ("#ifdef\n#endif", "macro name missing", 1, 2),
    ("#if 1 ? 2\n#endif", "expected ':' in preprocessor expression", 1, 10),
])
def test_conditional_errors(src: str, message: str, line: int, col: int) -> None:
    d = fail(src)
    assert (d.message, d.loc) == (message, SourceLoc("main.hlsl", line, col))


@pytest.mark.parametrize("opener", ["(", "-(", "(1||", "(1?1:", "!(1<<"])
def test_deeply_nested_if_expression_is_an_error_not_a_crash(opener: str) -> None:
    d = fail("#if " + opener * 5000 + "1" + ")" * 5000 + "\n#endif")
    assert d.message == "preprocessor expression is nested too deeply"
    assert out("#if (" + opener * 25 + "1" + ")" * 25 + ") || 1\nyes\n#endif") == "yes"


def test_stringize_argument_spanning_lines() -> None:
    assert out("#define S(x) #x\nS(a\n  b)") == '"a b"'


# ---------------------------------------------------------------------------
# Other directives


def test_error_directive() -> None:
    d = fail("a\n  #error Shader model 6.0 is required, got  X\n")
    assert (d.message, d.loc) == ("Shader model 6.0 is required, got X", SourceLoc("main.hlsl", 2, 3))
    assert fail("#error").message == "#error"


def test_error_text_may_contain_apostrophes() -> None:
    assert fail("#error don't do that").message == "don't do that"


def test_warning_directive() -> None:
    res = run("#warning deprecated path\nx")
    assert [t.text for t in res.tokens[:-1]] == ["x"]
    assert [(w.severity, w.message, w.loc) for w in res.warnings] == [
        ("warning", "deprecated path", SourceLoc("main.hlsl", 1, 1))]


def test_pragmas_are_dropped() -> None:
    assert out("#pragma pack_matrix(row_major)\n#pragma warning(disable: 1234)\nx") == "x"


def test_null_directive() -> None:
    assert out("#\nx") == "x"


def test_invalid_directive() -> None:
    d = fail("x\n#bogus stuff")
    assert (d.message, d.loc) == ("invalid preprocessing directive '#bogus'", SourceLoc("main.hlsl", 2, 2))


def test_invalid_character_in_active_code() -> None:
    d = fail("int a;\nint @b;")
    assert (d.message, d.loc) == ("invalid character '@'", SourceLoc("main.hlsl", 2, 5))


def test_hash_in_middle_of_line_is_not_a_directive() -> None:
    assert out("a # b\n#define X 1\nX") == "a # b 1"


def test_directive_after_comment_on_same_line() -> None:
    assert out("/* lead */ #define X 1\nX") == "1"
    assert out("a /* spans\n lines */ #define X 1\nX") == "a # define X 1 X"


def test_multiline_define_with_splices() -> None:
    assert out("#define F(a) a + \\\n    a\nF(2) end") == "2 + 2 end"


def test_comment_inside_directive_spanning_lines() -> None:
    assert out("#define A 1 /* long\n comment */ + 2\nA") == "1 + 2"


# ---------------------------------------------------------------------------
# Command-line and built-in definitions


def test_defines_and_predefined() -> None:
    src = "#if __SHADER_TARGET_MAJOR >= 6 && defined(__spirv__)\nUSE_X FOO\n#endif"
    res = out(src, defines={"USE_X": "1", "FOO": "a b"}, predefined={"__SHADER_TARGET_MAJOR": "6", "__spirv__": "1"})
    assert res == "1 a b"


def test_command_line_define_overrides_builtin_without_warning() -> None:
    res = run("V", predefined={"V": "1"}, defines={"V": "2"})
    assert [t.text for t in res.tokens[:-1]] == ["2"] and res.warnings == []


def test_function_like_command_line_define() -> None:
    assert out("SQ(3)", defines={"SQ(x)": "((x)*(x))"}) == "( ( 3 ) * ( 3 ) )"


# ---------------------------------------------------------------------------
# Includes


def test_include_and_files_list(in_tmp: Path) -> None:
    write(in_tmp, {"main.hlsl": '#include "a.hlsli"\nmain', "a.hlsli": "a_tok"})
    res = preprocess("main.hlsl")
    assert [t.text for t in res.tokens[:-1]] == ["a_tok", "main"]
    assert res.files == [str(in_tmp / "main.hlsl"), str(in_tmp / "a.hlsli")]
    assert res.tokens[0].loc == SourceLoc("a.hlsli", 1, 1)


def test_quoted_include_searches_includer_directory_first(in_tmp: Path) -> None:
    write(in_tmp, {
        "main.hlsl": '#include "lib/x.hlsli"\n',
        "lib/x.hlsli": '#include "common.hlsli"\n',
        "lib/common.hlsli": "lib_common",
        "inc1/common.hlsli": "inc1_common",
        "common.hlsli": "root_common",
    })
    res = preprocess("main.hlsl", include_dirs=["inc1"])
    assert [t.text for t in res.tokens[:-1]] == ["lib_common"]
    assert res.tokens[0].loc.file == os.path.join("lib", "common.hlsli")


def test_include_dirs_are_searched_in_order(in_tmp: Path) -> None:
    write(in_tmp, {"i1/only2.h": "", "i2/only2.h": "two", "i3/only2.h": "three", "i1/h.h": "one", "i2/h.h": "x"})
    assert out('#include "h.h"\n#include "only2.h"', include_dirs=["i1", "i2", "i3"]) == "one"
    write(in_tmp, {"i1/only2.h": "one_b"})
    assert out('#include "only2.h"', include_dirs=["i2", "i1"]) == "two"


def test_angled_include_skips_includer_directory(in_tmp: Path) -> None:
    write(in_tmp, {"main.hlsl": "#include <h.hlsli>\n", "h.hlsli": "local", "sys/h.hlsli": "system"})
    assert [t.text for t in preprocess("main.hlsl", include_dirs=["sys"]).tokens[:-1]] == ["system"]
    d = fail(None, "main.hlsl")
    assert d.message == "'h.hlsli' file not found"


def test_angled_include_with_path(in_tmp: Path) -> None:
    write(in_tmp, {"sys/sub-dir/h_2.hlsli": "deep"})
    assert out("#include <sub-dir/h_2.hlsli>", include_dirs=["sys"]) == "deep"


def test_missing_include_error_location(in_tmp: Path) -> None:
    d = fail('int a;\n#  include   "nothere.hlsli"\n')
    assert (d.message, d.loc) == ("'nothere.hlsli' file not found", SourceLoc("main.hlsl", 2, 14))


def test_error_in_included_file_has_include_stack_notes(in_tmp: Path) -> None:
    write(in_tmp, {"main.hlsl": 'x\n#include "a.hlsli"\n', "a.hlsli": '\n#include "b.hlsli"', "b.hlsli": "#error deep"})
    d = fail(None, "main.hlsl")
    assert (d.message, d.loc) == ("deep", SourceLoc("b.hlsli", 1, 1))
    assert [(n.severity, n.message) for n in d.notes] == [
        ("note", "in file included from a.hlsli:2"), ("note", "in file included from main.hlsl:2")]
    assert d.notes[0].loc == SourceLoc("a.hlsli", 2, 1)


def test_warning_in_included_file_has_include_note(in_tmp: Path) -> None:
    write(in_tmp, {"a.hlsli": "#warning careful"})
    res = run('#include "a.hlsli"')
    assert res.warnings[0].loc == SourceLoc("a.hlsli", 1, 1)
    assert res.warnings[0].notes[0].message == "in file included from main.hlsl:1"


def test_excluded_includes_are_not_read(in_tmp: Path) -> None:
    write(in_tmp, {"yes.h": "y", "no.h": "n", "main.hlsl": (
        '#include "yes.h"\n#if 0\n#include "no.h"\n#endif\n#ifdef NOPE\n#include "missing.h"\n#endif\n')})
    spy = SpyReader()
    res = preprocess("main.hlsl", reader=spy)
    assert res.files == [str(in_tmp / "main.hlsl"), str(in_tmp / "yes.h")]
    assert not any(c.endswith("no.h") for c in spy.calls)


def test_pragma_once(in_tmp: Path) -> None:
    write(in_tmp, {"once.h": "#pragma once\nonce", "twice.h": "twice",
                   "main.hlsl": '#include "once.h"\n#include "once.h"\n#include "twice.h"\n#include "./twice.h"\n'})
    spy = SpyReader()
    res = preprocess("main.hlsl", reader=spy)
    assert [t.text for t in res.tokens[:-1]] == ["once", "twice", "twice"]
    assert sum(c.endswith("once.h") for c in spy.calls) == 1
    assert res.files == [str(in_tmp / n) for n in ("main.hlsl", "once.h", "twice.h")]


def test_pragma_once_matches_by_absolute_path(in_tmp: Path) -> None:
    write(in_tmp, {"inc/o.h": "#pragma once\nO", "main.hlsl": '#include "inc/o.h"\n#include "o.h"\n'})
    assert [t.text for t in preprocess("main.hlsl", include_dirs=["inc"]).tokens[:-1]] == ["O"]


def test_include_guard_idiom(in_tmp: Path) -> None:
    write(in_tmp, {"g.h": "#ifndef G_H\n#define G_H\nguarded\n#endif\n"})
    assert out('#include "g.h"\n#include "g.h"') == "guarded"


def test_self_include_without_pragma_once_hits_depth_limit(in_tmp: Path) -> None:
    write(in_tmp, {"self.h": 'x\n#include "self.h"\n'})
    d = fail('#include "self.h"')
    assert (d.message, d.loc) == ("#include nested too deeply (limit 64)", SourceLoc("self.h", 2, 1))
    assert len(d.notes) == 64


def test_include_depth_limit_is_configurable(in_tmp: Path) -> None:
    write(in_tmp, {"a.h": '#include "b.h"', "b.h": '#include "c.h"', "c.h": "c"})
    assert out('#include "a.h"', limits=PPLimits(max_include_depth=3)) == "c"
    d = fail('#include "a.h"', limits=PPLimits(max_include_depth=2))
    assert d.message == "#include nested too deeply (limit 2)"


def test_include_name_from_macro(in_tmp: Path) -> None:
    write(in_tmp, {"cfg/v.h": "via_macro", "sys/w.h": "angled"})
    assert out('#define HDR "cfg/v.h"\n#include HDR') == "via_macro"
    assert out("#define SYS <w.h>\n#include SYS", include_dirs=["sys"]) == "angled"


def test_bad_include_syntax() -> None:
    d = fail("#include 42")
    assert (d.message, d.loc) == ('#include expects "FILENAME" or <FILENAME>', SourceLoc("main.hlsl", 1, 10))
    d = fail("#include <a.h")
    assert d.message == "expected '>' at end of #include file name"


def test_include_display_names_are_normalized(in_tmp: Path) -> None:
    write(in_tmp, {"a/b/x.h": "x", "a/c/main.hlsl": '#include "../b/x.h"\n'})
    res = preprocess(os.path.join("a", "c", "main.hlsl"))
    assert res.tokens[0].loc.file == os.path.join("a", "b", "x.h")
    assert res.files[1] == str(in_tmp / "a" / "b" / "x.h")


def test_sources_cache_gets_every_file(in_tmp: Path) -> None:
    write(in_tmp, {"h.h": "first\nsecond_line"})
    cache = SourceCache()
    run('#include "h.h"\n', sources=cache)
    assert cache.line("h.h", 2) == "second_line"
    assert cache.line("main.hlsl", 1) == '#include "h.h"'


def test_macros_defined_in_include_are_visible(in_tmp: Path) -> None:
    write(in_tmp, {"defs.h": "#define SCALE 2\n#define MUL(x) (x * SCALE)\n"})
    assert out('#include "defs.h"\nMUL(3)') == "( 3 * 2 )"


def test_unterminated_if_in_included_file(in_tmp: Path) -> None:
    write(in_tmp, {"u.h": "#ifdef X\n"})
    d = fail('#include "u.h"\n#endif')
    assert (d.message, d.loc) == ("unterminated conditional directive", SourceLoc("u.h", 1, 1))


def test_custom_reader_virtual_files() -> None:
    files = {os.path.abspath("virt/a.h"): b"virtual"}

    def reader(path: str) -> bytes:
        try:
            return files[path]
        except KeyError:
            raise FileNotFoundError(path) from None

    res = preprocess(os.path.join("virt", "main.hlsl"), text='#include "a.h"', reader=reader)
    assert [t.text for t in res.tokens[:-1]] == ["virtual"]


def test_main_file_read_from_disk_missing() -> None:
    with pytest.raises(CompileError) as exc:
        preprocess("/nonexistent/dir/main.hlsl")
    assert exc.value.diagnostics[0].message.startswith("cannot open '/nonexistent/dir/main.hlsl'")


# ---------------------------------------------------------------------------
# Encodings


def test_bom_and_crlf_files(in_tmp: Path) -> None:
    write(in_tmp, {"main.hlsl": b'\xef\xbb\xbf#define A 1\r\n#include "h.h"\r\nA\r\n', "h.h": b"\xef\xbb\xbfh\r\n"})
    res = preprocess("main.hlsl")
    assert [(t.text, t.loc.line, t.loc.col) for t in res.tokens[:-1]] == [("h", 1, 1), ("1", 3, 1)]


def test_invalid_utf8_reports_first_bad_byte(in_tmp: Path) -> None:
    write(in_tmp, {"bad.h": b"ok\nab\xff\xfe\n"})
    d = fail('\n#include "bad.h"')
    assert (d.message, d.loc) == ("source file is not valid UTF-8", SourceLoc("bad.h", 2, 3))
    assert d.notes[0].message == "in file included from main.hlsl:2"


def test_nul_byte_is_an_error(in_tmp: Path) -> None:
    write(in_tmp, {"main.hlsl": b"a\nbc\x00d\n"})
    d = fail(None, "main.hlsl")
    assert (d.message, d.loc) == ("source file contains a null character", SourceLoc("main.hlsl", 2, 3))
    d = fail("x\x00")
    assert d.loc == SourceLoc("main.hlsl", 1, 2)


def test_utf8_in_comments_and_strings_is_fine(in_tmp: Path) -> None:
    write(in_tmp, {"main.hlsl": '// café ✓\n"naïve"\n'.encode()})
    assert [t.text for t in preprocess("main.hlsl").tokens[:-1]] == ['"naïve"']


# ---------------------------------------------------------------------------
# Limits


def test_file_size_limit(in_tmp: Path) -> None:
    write(in_tmp, {"big.h": "x " * 600})
    d = fail('#include "big.h"', limits=PPLimits(max_file_size=1000))
    assert (d.message, d.loc) == ("file 'big.h' is too large (the limit is 1000 bytes)",
                                  SourceLoc("main.hlsl", 1, 10))


def test_macro_chain_too_deep() -> None:
    src = "".join(f"#define M{i} M{i + 1}\n" for i in range(300)) + "M0"
    d = fail(src)
    assert d.message == "macro expansion nested too deeply (limit 256)"
    assert d.loc == SourceLoc("main.hlsl", 301, 1)
    # Under the limit it works.
    assert out("".join(f"#define M{i} M{i + 1}\n" for i in range(200)) + "M0") == "M200"


def test_nested_macro_arguments_too_deep() -> None:
    src = "#define F(x) x\n" + "F(" * 400 + "1" + ")" * 400
    assert fail(src).message == "macro expansion nested too deeply (limit 256)"
    assert out("#define F(x) x\n" + "F(" * 100 + "1" + ")" * 100) == "1"


def test_exponential_expansion_hits_token_limit() -> None:
    src = "#define A0 x x\n" + "".join(f"#define A{i} A{i - 1} A{i - 1}\n" for i in range(1, 40)) + "A39"
    d = fail(src, limits=PPLimits(max_expanded_tokens=50_000))
    assert d.message == "macro expansion produced too many tokens (limit 50000)"
    assert out("#define A0 x x\n#define A1 A0 A0\nA1", limits=PPLimits(max_expanded_tokens=6)) == "x x x x"


# ---------------------------------------------------------------------------
# Robustness


_FUZZ_PIECES = ["#define ", "#undef ", "#if ", "#ifdef ", "#elif ", "#else", "#endif", "#line ", "#error ",
                "F", "G", "X", "(", ")", ",", "...", "__VA_ARGS__", "#", "##", "defined", "1", "0", "/", "%",
                "+", "?", ":", "'", '"', "\\", "\n", " ", "/*", "*/", "//", "@", "__LINE__", "0x", "u", "."]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_FUZZ_PIECES), max_size=60))
def test_any_input_gives_tokens_or_compile_error(pieces: list[str]) -> None:
    src = "".join(pieces)
    try:
        res = preprocess("fuzz.hlsl", text=src, limits=PPLimits(max_expanded_tokens=20_000))
    except CompileError as e:
        assert all(d.message for d in e.diagnostics)
        return
    assert res.tokens[-1].kind is TokKind.EOF
