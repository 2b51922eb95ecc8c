"""Tests for shaderbuild.front.lexer: token kinds, spellings, locations, errors."""

from __future__ import annotations

import re

import pytest

from shaderbuild.diagnostics import CompileError, SourceLoc
from shaderbuild.front.lexer import PUNCTUATORS, lex, single_token_kind, tokenize
from shaderbuild.front.tokens import TokKind


def kinds_texts(src: str) -> list[tuple[str, str]]:
    return [(t.kind.name, t.text) for t in tokenize(src, "t.hlsl")]


def texts(src: str) -> list[str]:
    return [t.text for t in tokenize(src, "t.hlsl")]


def lex_error(src: str) -> tuple[str, SourceLoc | None]:
    with pytest.raises(CompileError) as exc:
        tokenize(src, "t.hlsl")
    d = exc.value.diagnostics[0]
    assert d.severity == "error"
    return d.message, d.loc


def test_identifiers_and_keywords() -> None:
    assert kinds_texts("float4 _x9 Texture2D") == [("IDENT", "float4"), ("IDENT", "_x9"), ("IDENT", "Texture2D")]


@pytest.mark.parametrize("spelling", ["0", "42", "0x1F", "0XabU", "017", "10u", "10U", "7l", "7ul", "7ull", "7LL", "7lu"])
def test_integer_literals_keep_full_spelling(spelling: str) -> None:
    assert kinds_texts(spelling) == [("INT", spelling)]


@pytest.mark.parametrize("spelling", ["1.0", ".5", "1.", "1e5", "1.5e-3", "2E+7", "1.0f", ".5F", "1.h", "3.0H", "1.0L", "1e5f"])
def test_float_literals_keep_full_spelling(spelling: str) -> None:
    assert kinds_texts(spelling) == [("FLOAT", spelling)]


def test_scalar_swizzles_on_literals_split() -> None:
    assert kinds_texts("1.xxxx") == [("INT", "1"), ("PUNCT", "."), ("IDENT", "xxxx")]
    assert kinds_texts("1.0.xy") == [("FLOAT", "1.0"), ("PUNCT", "."), ("IDENT", "xy")]


@pytest.mark.parametrize("bad", ["1.5x", "0x1G", "12abc", "1.0fz"])
def test_malformed_numbers(bad: str) -> None:
    msg, loc = lex_error(f"a = {bad};")
    assert msg == f"invalid numeric literal '{bad}'"
    assert loc == SourceLoc("t.hlsl", 1, 5)


def test_every_punctuator_lexes_alone() -> None:
    for p in PUNCTUATORS:
        assert kinds_texts(p) == [("PUNCT", p)], p


def test_maximal_munch_punctuators() -> None:
    assert texts("a<<=b>>=c...d::e->f##g") == ["a", "<<=", "b", ">>=", "c", "...", "d", "::", "e", "->", "f", "##", "g"]
    assert texts("a+++b") == ["a", "++", "+", "b"]


def test_double_bracket_is_two_tokens() -> None:
    assert texts("[[vk::binding(0)]]") == ["[", "[", "vk", "::", "binding", "(", "0", ")", "]", "]"]


def test_strings_and_chars() -> None:
    assert kinds_texts(r'"a\"b" ' + r"'\n' 'x'") == [("STRING", r'"a\"b"'), ("CHAR", r"'\n'"), ("CHAR", "'x'")]


def test_locations_are_one_based_line_and_column() -> None:
    toks = tokenize("a\n  bb c\n\n\td", "f.hlsl", first_line=10)
    assert [(t.text, t.loc.line, t.loc.col) for t in toks] == [("a", 10, 1), ("bb", 11, 3), ("c", 11, 6), ("d", 13, 2)]
    assert all(t.loc.file == "f.hlsl" for t in toks)


def test_leading_space_and_line_start_flags() -> None:
    toks = tokenize("a b(c)\n  d /**/e", "f")
    assert [(t.text, t.leading_space, t.at_line_start) for t in toks] == [
        ("a", False, True), ("b", True, False), ("(", False, False), ("c", False, False), (")", False, False),
        ("d", True, True), ("e", True, False)]


def test_line_comments_are_dropped() -> None:
    assert texts("a // b c\nd") == ["a", "d"]


def test_block_comments_span_lines_and_keep_counting() -> None:
    toks = tokenize("a /* x\n y\n */ b\nc", "f")
    assert [(t.text, t.loc.line, t.loc.col) for t in toks] == [("a", 1, 1), ("b", 3, 5), ("c", 4, 1)]
    assert toks[1].at_line_start is False  # a comment is one space, not a line break


def test_comment_markers_inside_strings_are_text() -> None:
    assert texts('"// not a comment" "/* nor this */"') == ['"// not a comment"', '"/* nor this */"']


def test_line_splices_join_lines_and_keep_original_locations() -> None:
    toks = tokenize("ab\\\ncd e\\\n\nf", "f")
    assert [(t.text, t.loc.line, t.loc.col) for t in toks] == [("abcd", 1, 1), ("e", 2, 4), ("f", 4, 1)]


def test_line_splice_inside_line_comment_continues_it() -> None:
    assert texts("a // comment \\\n still comment\nb") == ["a", "b"]


def test_crlf_and_bom() -> None:
    toks = tokenize("\ufeffa\r\nb\r\n  c", "f")
    assert [(t.text, t.loc.line, t.loc.col) for t in toks] == [("a", 1, 1), ("b", 2, 1), ("c", 3, 3)]


def test_invalid_character_error() -> None:
    assert lex_error("int a;\n  b @ c") == ("invalid character '@'", SourceLoc("t.hlsl", 2, 5))
    assert lex_error("x $") == ("invalid character '$'", SourceLoc("t.hlsl", 1, 3))
    assert lex_error("x \x01")[0] == "invalid character '\\x01'"


def test_unterminated_comment_reports_its_start() -> None:
    assert lex_error("a\n  /* never\nclosed") == ("unterminated comment", SourceLoc("t.hlsl", 2, 3))


def test_unterminated_string_and_char() -> None:
    assert lex_error('a = "abc\nb') == ("unterminated string literal", SourceLoc("t.hlsl", 1, 5))
    assert lex_error("a = 'b") == ("unterminated character literal", SourceLoc("t.hlsl", 1, 5))


def test_lenient_mode_defers_errors_to_tokens() -> None:
    res = lex("a @ b\n#x", "f", lenient=True)
    assert [t.text for t in res.tokens] == ["a", "@", "b", "#", "x"]
    assert res.bad == {1: "invalid character '@'"}
    assert res.hashes == [3]


def test_hashes_only_at_line_start() -> None:
    res = lex("#a\n x # b\n  # c", "f")
    assert [res.tokens[i].loc.line for i in res.hashes] == [1, 3]


def test_trailing_blanks_and_empty_input() -> None:
    assert tokenize("", "f") == []
    assert texts("a   \t ") == ["a"]


def test_single_token_kind() -> None:
    assert single_token_kind("ab") is TokKind.IDENT
    assert single_token_kind("->") is TokKind.PUNCT
    assert single_token_kind("1.5f") is TokKind.FLOAT
    assert single_token_kind("12") is TokKind.INT
    assert single_token_kind("+-") is None
    assert single_token_kind("//") is None
    assert single_token_kind("1x") is None
    assert single_token_kind("/*") is None and single_token_kind("/*=") is None    # `/ ## *`: no token
    assert single_token_kind(" a") is None and single_token_kind("a ") is None and single_token_kind("a//") is None


# The master regular expression the lexer used before its scanner (issue 23: no `re` on the compile path):
# the reference for what each token is.  Numbers refuse to be followed by identifier characters, so `1.5x`
# is one bad number while `1.xxxx` stays INT `.` IDENT; unterminated comments and literals and stray
# characters have their own alternatives so that every position matches something.
_INT_SUFFIX = r"(?:[uU](?:ll|LL|l|L)?|(?:ll|LL|l|L)[uU]?)?"
_EXP = r"[eE][+-]?[0-9]+"
_HEX_FLOAT = r"0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+"     # C99's, as clang reads
_FLOAT = rf"(?:{_HEX_FLOAT}|[0-9]+\.[0-9]*(?:{_EXP})?|\.[0-9]+(?:{_EXP})?|[0-9]+{_EXP})[fFhHlL]?"
_INT = rf"(?:0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+){_INT_SUFFIX}"
_STRING = r'"(?:[^"\\\n]|\\.)*"'
_CHAR = r"'(?:[^'\\\n]|\\.)*'"
_TOKEN = "|".join((
    r"[A-Za-z_][A-Za-z0-9_]*", rf"{_FLOAT}(?![A-Za-z0-9_])", rf"{_INT}(?![A-Za-z0-9_]|\.[0-9])",
    r"\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.])*", r"//[^\n]*", r"/\*[^*]*\*+(?:[^/*][^*]*\*+)*/", r"/\*", _STRING, _CHAR,
    r"[\"'][^\n]*", *(re.escape(p) for p in PUNCTUATORS), r"."))
_MASTER = re.compile(rf"([ \t\f\v\r\n]*)({_TOKEN})", re.DOTALL)


def _reference(text: str) -> tuple[list[tuple[str, str, int, int]], bool]:
    """(kind, text, line, column) of each token by the master pattern (text without splices, BOM or CRs),
    and whether an unterminated comment stopped it."""
    out: list[tuple[str, str, int, int]] = []
    for m in _MASTER.finditer(text.rstrip(" \t\f\v\r\n")):
        tok, start = m[2], m.start(2)
        if tok.startswith("//") or (tok.startswith("/*") and len(tok) >= 4):
            continue
        line, col = text.count("\n", 0, start) + 1, start - (text.rfind("\n", 0, start) + 1) + 1
        if tok == "/*":
            return out, True
        if re.fullmatch(_FLOAT, tok):
            kind = "FLOAT"
        elif re.fullmatch(_INT, tok):
            kind = "INT"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", tok):
            kind = "IDENT"
        elif re.fullmatch(_STRING, tok):
            kind = "STRING"
        elif re.fullmatch(_CHAR, tok):
            kind = "CHAR"
        elif tok in PUNCTUATORS:
            kind = "PUNCT"
        else:
            kind = "BAD"
        out.append((kind, tok, line, col))
    return out, False


def _scanned(text: str) -> tuple[list[tuple[str, str, int, int]], bool]:
    try:
        res = lex(text, "f", lenient=True)
    except CompileError as e:
        assert e.diagnostics[0].message == "unterminated comment"
        return [], True
    return [("BAD" if i in res.bad else t.kind.name, t.text, t.loc.line, t.loc.col) for i, t in enumerate(res.tokens)], False


@pytest.mark.parametrize("seed", range(4))
def test_scanner_tokens_equal_the_master_pattern(seed: int) -> None:
    """Random texts over an alphabet of the characters that end or change tokens: the scanner's tokens
    (kind, spelling, line, column) are the old master pattern's, and so is each malformed token."""
    import random

    rng = random.Random(seed)
    compared = 0
    alphabet = ["a", "x", "e", "E", "p", "f", "h", "l", "L", "u", "U", "_", "0", "1", "9", ".", "+", "-", "/", "*", "b",
                "\"", "'", "\\", "\n", " ", "\t", "<", ">", "=", "#", ":", "@", "\x01", "é", "0x", "1.", "1e", "/*",
                "*/", "//", "...", "<<=", "\\\"", "\\'"]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 14)))
        if re.search(r"\\[ \t]*\n", text):
            continue        # a line splice: the reference does not remove them
        ref_toks, ref_unterminated = _reference(text)
        toks, unterminated = _scanned(text)
        assert unterminated == ref_unterminated, text
        assert unterminated or toks == ref_toks, text
        compared += 1
    assert compared > 2000


def test_number_kinds_equal_the_token_patterns() -> None:
    """The lexer classifies numbers with string tests (no regular expression): they must accept exactly
    what the _FLOAT and _INT alternatives of the master pattern match."""
    import itertools

    from shaderbuild.front import lexer

    float_re, int_re = re.compile(_FLOAT), re.compile(_INT)
    for n in range(1, 5):
        for chars in itertools.product("019.eExXafhlLuU+-", repeat=n):
            text = "".join(chars)
            assert lexer._is_float(text) == (float_re.fullmatch(text) is not None), text
            assert lexer._is_int(text) == (int_re.fullmatch(text) is not None), text


def test_escaped_newline_left_by_a_splice_ends_an_unterminated_literal_at_its_line() -> None:
    """`\\` then a splice leaves a backslash before a newline: a literal is not closed on its line
    (unterminated: to the end of that line), and one closed on the next line is no literal either."""
    res = lex('x "a\\\\\n\nc', "f", lenient=True)
    assert [t.text for t in res.tokens] == ["x", '"a\\', "c"] and res.bad == {1: "unterminated string literal"}
    res = lex('x "a\\\\\n\nc" y', "f", lenient=True)
    assert [t.text for t in res.tokens] == ["x", '"a\\\nc"', "y"] and res.bad == {1: "unterminated string literal"}
