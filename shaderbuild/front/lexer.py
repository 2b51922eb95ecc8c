"""HLSL lexer: one master regular expression turns source text into tokens.

The preprocessor lexes whole files once (leniently, so that junk inside `#if 0`
blocks is only reported if it is actually used); `tokenize` is the strict entry
point used for everything else.  Numbers keep their full spelling; the parser
interprets suffixes.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Callable

from ..diagnostics import SourceLoc, error
from .tokens import Token, TokKind

__all__ = ["PUNCTUATORS", "LexResult", "gc_paused", "lex", "single_token_kind", "tokenize"]

# Longest punctuators first so that alternation picks the maximal munch.
PUNCTUATORS: tuple[str, ...] = (
    "<<=", ">>=", "...",
    "::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##",
    "[", "]", "(", ")", "{", "}", ".", ",", ";", ":", "?", "~", "!",
    "+", "-", "*", "/", "%", "<", ">", "=", "&", "|", "^", "#",
)

_INT_SUFFIX = r"(?:[uU](?:ll|LL|l|L)?|(?:ll|LL|l|L)[uU]?)?"
_FLOAT_SUFFIX = r"[fFhHlL]?"
_EXP = r"[eE][+-]?[0-9]+"

_FLOAT = rf"(?:[0-9]+\.[0-9]*(?:{_EXP})?|\.[0-9]+(?:{_EXP})?|[0-9]+{_EXP}){_FLOAT_SUFFIX}"
_INT = rf"(?:0[xX][0-9a-fA-F]+|[0-9]+){_INT_SUFFIX}"
_STRING = r'"(?:[^"\\\n]|\\.)*"'
_CHAR = r"'(?:[^'\\\n]|\\.)*'"

# The token alternatives, in priority order.  Numbers refuse to be followed by
# identifier characters, so `1.5x` is one bad number while `1.xxxx` stays
# INT `.` IDENT (a scalar swizzle).  Unterminated comments/strings and stray
# characters get their own alternatives so every position matches something.
_TOKEN = "|".join((
    r"[A-Za-z_][A-Za-z0-9_]*",
    rf"{_FLOAT}(?![A-Za-z0-9_])",
    rf"{_INT}(?![A-Za-z0-9_]|\.[0-9])",
    r"\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.])*",  # malformed number
    r"//[^\n]*",
    r"/\*[^*]*\*+(?:[^/*][^*]*\*+)*/",
    r"/\*",  # unterminated comment
    _STRING,
    _CHAR,
    r"[\"'][^\n]*",  # unterminated literal
    *(re.escape(p) for p in PUNCTUATORS),
    r".",  # newline or invalid character
))
# One match per token: (blanks and newlines before it, the token).  findall builds the pairs in C.
_MASTER = re.compile(rf"([ \t\f\v\r\n]*)({_TOKEN})", re.DOTALL)

# Dispatch on a token's first character.
_SLASH, _NUM, _DOT, _QUOTE, _BAD = "slash", "num", "dot", "quote", "bad"
_FIRST: dict[str, object] = {c: TokKind.PUNCT for p in PUNCTUATORS for c in p[0]}
_FIRST.update({c: TokKind.IDENT for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"})
_FIRST.update({c: _NUM for c in "0123456789"})
_FIRST.update({"/": _SLASH, ".": _DOT, '"': _QUOTE, "'": _QUOTE})

# A backslash, optional trailing blanks (accepted like clang/gcc do), newline.
_SPLICE = re.compile(r"\\[ \t]*\n")


_NUMBER_KINDS: dict[str, TokKind | None] = {}  # spelling -> kind; numbers repeat a lot


def _number_kind(text: str) -> TokKind | None:
    """FLOAT or INT for a well-formed literal, None for a malformed one."""
    try:
        return _NUMBER_KINDS[text]
    except KeyError:
        pass
    kind = TokKind.FLOAT if _is_float(text) else TokKind.INT if _is_int(text) else None
    if len(_NUMBER_KINDS) < 4096:
        _NUMBER_KINDS[text] = kind
    return kind


# Number kinds by string tests, equal to fullmatch(_FLOAT) and fullmatch(_INT) (two regular expressions
# compiled at import cost a cold start ~0.2 ms; tests/front/test_lexer.py compares them)
_DIGITS, _HEX_DIGITS, _FLOAT_SUFFIXES = frozenset("0123456789"), frozenset("0123456789abcdefABCDEF"), frozenset("fFhHlL")
_INT_SUFFIXES = frozenset({"", "u", "U", *(u + n for u in "uU" for n in ("l", "L", "ll", "LL")),
                           *(n + u for n in ("l", "L", "ll", "LL") for u in ("", "u", "U"))})


def _is_float(text: str) -> bool:
    """_FLOAT: `1.`, `1.5`, `.5` or `1` with an exponent (`e-3`), then an optional suffix."""
    body = text[:-1] if text[-1:] in _FLOAT_SUFFIXES else text
    mantissa, e, exponent = body.replace("E", "e").partition("e")
    exponent_digits = exponent[1:] if exponent[:1] in ("+", "-") else exponent
    whole, dot, fraction = mantissa.partition(".")
    if not (_DIGITS.issuperset(whole) and _DIGITS.issuperset(fraction) and _DIGITS.issuperset(exponent_digits)):
        return False
    if e and not exponent_digits:
        return False
    return bool(whole or fraction) if dot else bool(whole and e)


def _is_int(text: str) -> bool:
    """_INT: hexadecimal (`0x1F`) or decimal digits, then an optional u/l/ll suffix."""
    body = text.rstrip("uUlL")
    if text[len(body):] not in _INT_SUFFIXES:
        return False
    if body[:2] in ("0x", "0X"):
        return len(body) > 2 and _HEX_DIGITS.issuperset(body[2:])
    return bool(body) and _DIGITS.issuperset(body)


class LexResult:
    """Tokens plus what the preprocessor needs: directive starts and deferred errors."""

    __slots__ = ("tokens", "hashes", "bad")

    def __init__(self, tokens: list[Token], hashes: list[int], bad: dict[int, str]):
        self.tokens = tokens
        self.hashes = hashes  # indices of `#` tokens that start a line
        self.bad = bad  # token index -> error message (lenient mode only)


def _bad_message(text: str) -> str:
    c = text[0]
    if c in "0123456789.":
        return f"invalid numeric literal '{text}'"
    if c == '"':
        return "unterminated string literal"
    if c == "'":
        return "unterminated character literal"
    if not c.isprintable():
        return f"invalid character '\\x{ord(c):02x}'" if ord(c) < 0x100 else f"invalid character 'U+{ord(c):04X}'"
    return f"invalid character '{c}'"


class gc_paused:  # lower case: used like a function, `with gc_paused():`
    """Pause the cyclic GC: lexing allocates only acyclic objects, and gen-0 passes
    triggered every few hundred tokens would otherwise cost a quarter of the time.
    (A class, not `contextlib.contextmanager`: importing contextlib costs a cold compile ~5 M
    instructions, issue 23.)"""

    __slots__ = ("was_enabled",)

    def __enter__(self) -> None:
        self.was_enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.was_enabled:
            gc.enable()


def _splice_mapper(orig: str, filename: str, first_line: int,
                   splice_pos: list[int], splice_delta: list[int]) -> Callable[[int], SourceLoc]:
    """Location of an offset in spliced text, measured in the original (unspliced) text."""
    from bisect import bisect_right  # here: text with line splices only (a C extension to load, issue 23)

    state = [first_line, 0, 0]  # line, offset of its first char, offset counted up to

    def loc(pos: int) -> SourceLoc:
        k = bisect_right(splice_pos, pos)
        if k:
            pos += splice_delta[k - 1]
        line, line_start, scanned = state
        if pos >= scanned:
            nls = orig.count("\n", scanned, pos)
            if nls:
                line += nls
                line_start = orig.rfind("\n", scanned, pos) + 1
        else:  # not expected (tokens come in order), but stay correct
            line = first_line + orig.count("\n", 0, pos)
            line_start = orig.rfind("\n", 0, pos) + 1
        state[:] = (line, line_start, pos)
        return SourceLoc(filename, line, pos - line_start + 1)

    return loc


def _remove_splices(text: str) -> tuple[str, list[int], list[int]]:
    """Delete backslash-newlines; return the new text and where (and how much) was removed."""
    pieces: list[str] = []
    splice_pos: list[int] = []
    splice_delta: list[int] = []
    last = removed = out_len = 0
    for m in _SPLICE.finditer(text):
        pieces.append(text[last:m.start()])
        out_len += m.start() - last
        removed += m.end() - m.start()
        splice_pos.append(out_len)
        splice_delta.append(removed)
        last = m.end()
    pieces.append(text[last:])
    return "".join(pieces), splice_pos, splice_delta


def lex(text: str, filename: str, first_line: int = 1, lenient: bool = False) -> LexResult:
    """Lex `text`; in lenient mode malformed tokens become PUNCT tokens listed in `bad`."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    mapper = None
    if "\\" in text and _SPLICE.search(text):
        orig = text
        text, splice_pos, splice_delta = _remove_splices(text)
        mapper = _splice_mapper(orig, filename, first_line, splice_pos, splice_delta)

    text = text.rstrip(" \t\f\v\r\n")  # trailing blanks would match no token
    tokens: list[Token] = []
    hashes: list[int] = []
    bad: dict[int, str] = {}
    append = tokens.append
    line = first_line
    line_start = 0  # offset of the current line's first character
    pos = 0
    at_start = True
    space = False  # whitespace, a newline or a comment precedes the next token
    first = _FIRST
    new = object.__new__
    set_file, set_line, set_col = SourceLoc.file.__set__, SourceLoc.line.__set__, SourceLoc.col.__set__  # type: ignore[attr-defined]
    IDENT, PUNCT, STRING, CHAR = TokKind.IDENT, TokKind.PUNCT, TokKind.STRING, TokKind.CHAR
    for blanks, tok in _MASTER.findall(text):
        start = pos + len(blanks)
        if blanks:
            space = True
            if "\n" in blanks:
                line += blanks.count("\n")
                line_start = pos + blanks.rfind("\n") + 1
                at_start = True
        pos = start + len(tok)
        kind = first.get(tok[0], _BAD)
        if kind is not IDENT and kind is not PUNCT:
            if kind is _SLASH:
                if tok[:2] == "//":
                    space = True
                    continue
                if tok[:2] == "/*" and len(tok) >= 4:
                    nls = tok.count("\n")
                    if nls:
                        line += nls
                        line_start = start + tok.rfind("\n") + 1
                    space = True
                    continue
                kind = PUNCT if tok[:2] != "/*" else _BAD
            elif kind is _NUM or (kind is _DOT and len(tok) > 1 and tok[1] in "0123456789"):
                kind = _number_kind(tok) or _BAD
            elif kind is _DOT:
                kind = PUNCT
            elif kind is _QUOTE:
                if tok[0] == '"':
                    kind = STRING if re.fullmatch(_STRING, tok) else _BAD    # compiled when first met (re's cache)
                else:
                    kind = CHAR if re.fullmatch(_CHAR, tok) else _BAD
        if mapper is None:
            # Same as SourceLoc(filename, line, col), but twice as fast as the frozen __init__.
            loc = new(SourceLoc)
            set_file(loc, filename)
            set_line(loc, line)
            set_col(loc, start - line_start + 1)
        else:
            loc = mapper(start)
        if kind is _BAD:
            if tok == "/*":
                raise error("unterminated comment", loc)
            msg = _bad_message(tok)
            if not lenient:
                raise error(msg, loc)
            bad[len(tokens)] = msg
            kind = PUNCT
        elif at_start and kind is PUNCT and tok == "#":
            hashes.append(len(tokens))
        append(Token(kind, tok, loc, None, space, at_start))  # type: ignore[arg-type]
        at_start = False
        space = False
    return LexResult(tokens, hashes, bad)


def tokenize(text: str, filename: str, first_line: int = 1) -> list[Token]:
    """Lex `text` strictly: any invalid character or literal is a CompileError."""
    with gc_paused():
        return lex(text, filename, first_line).tokens


def single_token_kind(text: str) -> TokKind | None:
    """The kind of `text` if it lexes as exactly one valid token (for `##` pasting)."""
    m = _MASTER.fullmatch(text)     # one token and no blanks before it (no second ~0.7 ms regex)
    if m is None or m.group(1):
        return None
    res = lex(text, "", lenient=True)
    if len(res.tokens) != 1 or res.bad:
        return None
    return res.tokens[0].kind
