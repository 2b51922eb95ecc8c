"""HLSL lexer: a scanner that dispatches on each token's first character.

The preprocessor lexes whole files once (leniently, so that junk inside `#if 0`
blocks is only reported if it is actually used); `tokenize` is the strict entry
point used for everything else.  Numbers keep their full spelling; the parser
interprets suffixes.
"""

from __future__ import annotations

import gc

from ..diagnostics import CompileError, SourceLoc, error
from .tokens import Token, TokKind

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["PUNCTUATORS", "LexResult", "gc_paused", "lex", "single_token_kind", "tokenize"]

# Longest punctuators first so that alternation picks the maximal munch.
PUNCTUATORS: tuple[str, ...] = (
    "<<=", ">>=", "...",
    "::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "##",
    "[", "]", "(", ")", "{", "}", ".", ",", ";", ":", "?", "~", "!",
    "+", "-", "*", "/", "%", "<", ">", "=", "&", "|", "^", "#",
)

# The scanner finds where a run of identifier characters or of blanks ends with `bytes.find` on a
# copy of the text in which those characters are one letter and every other character another (made
# by `bytes.translate` of the text encoded with one byte per character, non-ASCII ones as `?`; all in
# C).  No regular expression: importing `re` (with `enum`, `functools` and `collections`) costs a cold
# compile ~20 M instructions (issue 23); what the scanner accepts is the old master pattern's, which
# tests/front/test_lexer.py keeps as its reference.
_IDENT_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
_BLANKS = " \t\f\v\r\n"
_IDENT_RUNS = bytes(ord("a") if chr(i) in _IDENT_CHARS else ord(" ") for i in range(256))   # a run ends at b" "
_BLANK_RUNS = bytes(ord(" ") if chr(i) in _BLANKS else ord("x") for i in range(256))        # a run ends at b"x"
# Punctuators of more than one character, by length (`_LONG` in `_FIRST`: a character that may start one).
_PUNCT3 = frozenset(p for p in PUNCTUATORS if len(p) == 3)
_PUNCT2 = frozenset(p for p in PUNCTUATORS if len(p) == 2)

# Dispatch on a token's first character.
_SLASH, _NUM, _DOT, _QUOTE, _BAD, _BLANK, _LONG = "slash", "num", "dot", "quote", "bad", "blank", "long"
_FIRST: dict[str, object] = {c: TokKind.PUNCT for p in PUNCTUATORS for c in p[0]}
_FIRST.update({p[0]: _LONG for p in PUNCTUATORS if len(p) > 1})
_FIRST.update({c: TokKind.IDENT for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"})
_FIRST.update({c: _NUM for c in "0123456789"})
_FIRST.update({c: _BLANK for c in _BLANKS})
_FIRST.update({"/": _SLASH, ".": _DOT, '"': _QUOTE, "'": _QUOTE})


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


# Number kinds by string tests, equal to the old master pattern's _FLOAT and _INT alternatives
# (tests/front/test_lexer.py compares them)
_DIGITS, _HEX_DIGITS, _FLOAT_SUFFIXES = frozenset("0123456789"), frozenset("0123456789abcdefABCDEF"), frozenset("fFhHlL")
_BINARY_DIGITS = frozenset("01")
_INT_SUFFIXES = frozenset({"", "u", "U", *(u + n for u in "uU" for n in ("l", "L", "ll", "LL")),
                           *(n + u for n in ("l", "L", "ll", "LL") for u in ("", "u", "U"))})


def _is_float(text: str) -> bool:
    """_FLOAT: `1.`, `1.5`, `.5` or `1` with an exponent (`e-3`), then an optional suffix."""
    body = text[:-1] if text[-1:] in _FLOAT_SUFFIXES else text
    if body[:2] in ("0x", "0X"):
        return _is_hex_float(body[2:])
    mantissa, e, exponent = body.replace("E", "e").partition("e")
    exponent_digits = exponent[1:] if exponent[:1] in ("+", "-") else exponent
    whole, dot, fraction = mantissa.partition(".")
    if not (_DIGITS.issuperset(whole) and _DIGITS.issuperset(fraction) and _DIGITS.issuperset(exponent_digits)):
        return False
    if e and not exponent_digits:
        return False
    return bool(whole or fraction) if dot else bool(whole and e)


def _is_hex_float(body: str) -> bool:
    """After `0x`: hex digits with an optional `.`, then the binary exponent C requires (`0x1.8p1`), which clang
    reads in every language mode (DXC too)."""
    mantissa, p, exponent = body.replace("P", "p").partition("p")
    exponent_digits = exponent[1:] if exponent[:1] in ("+", "-") else exponent
    whole, _dot, fraction = mantissa.partition(".")
    return bool(p and exponent_digits and (whole or fraction) and _HEX_DIGITS.issuperset(whole)
                and _HEX_DIGITS.issuperset(fraction) and _DIGITS.issuperset(exponent_digits))


def _is_int(text: str) -> bool:
    """_INT: hexadecimal (`0x1F`), binary (`0b101`: clang reads it, as C++14) or decimal digits, then an
    optional u/l/ll suffix."""
    body = text.rstrip("uUlL")
    if text[len(body):] not in _INT_SUFFIXES:
        return False
    if body[:2] in ("0x", "0X"):
        return len(body) > 2 and _HEX_DIGITS.issuperset(body[2:])
    if body[:2] in ("0b", "0B"):
        return len(body) > 2 and _BINARY_DIGITS.issuperset(body[2:])
    return bool(body) and _DIGITS.issuperset(body)


class LexResult:
    """Tokens plus what the preprocessor needs: directive starts, deferred errors and deferred warnings."""

    __slots__ = ("tokens", "hashes", "bad", "warned")

    def __init__(self, tokens: list[Token], hashes: list[int], bad: dict[int, str],
                 warned: list[tuple[int, SourceLoc, str]] | None = None):
        self.tokens = tokens
        self.hashes = hashes  # indices of `#` tokens that start a line
        self.bad = bad  # token index -> error message (lenient mode only)
        # (token index, where, message): a warning the preprocessor gives only if that token's line is not in a
        # skipped group (clang lexes those raw, without warnings); in token order.  The token is the one before
        # a comment on its line, else the one after.
        self.warned = warned or []


NESTED_COMMENT = "'/*' within block comment"     # clang's warn_nested_block_comment (-Wcomment)


def _nested_comments(text: str, start: int, end: int, line: int, line_start: int,
                     mapper: Callable[[int], SourceLoc] | None, filename: str) -> list[tuple[SourceLoc, str]]:
    """Clang's warning at each `/*` inside the block comment text[start:end] (`end` at its `*/`); a `/*/` there
    ends the comment, so it is none."""
    out = []
    at = text.find("/*", start + 2, end)
    while at >= 0:
        if mapper is not None:
            loc = mapper(at)
        else:
            nl = text.rfind("\n", start, at)
            loc = SourceLoc(filename, line + text.count("\n", start, at), at - (nl + 1 if nl >= 0 else line_start) + 1)
        out.append((loc, NESTED_COMMENT))
        at = text.find("/*", at + 2, end)
    return out


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
    """Delete backslash-newlines (a backslash, optional trailing blanks as clang/gcc accept, a newline);
    return the new text and where (and how much) was removed: no splice, empty lists."""
    pieces: list[str] = []
    splice_pos: list[int] = []
    splice_delta: list[int] = []
    last = removed = out_len = 0
    i = text.find("\\")
    while i >= 0:
        j = i + 1
        while text[j:j + 1] in (" ", "\t"):
            j += 1
        if text[j:j + 1] != "\n":
            i = text.find("\\", i + 1)
            continue
        pieces.append(text[last:i])
        out_len += i - last
        removed += j + 1 - i
        splice_pos.append(out_len)
        splice_delta.append(removed)
        last = j + 1
        i = text.find("\\", last)
    pieces.append(text[last:])
    return "".join(pieces), splice_pos, splice_delta


def _number_end(text: str, idents: bytes, pos: int) -> int:
    r"""Where a number starting at `pos` ends: the longest valid literal there that no identifier character
    follows (an integer not `.digit` either: `1.xxxx` is INT `.` IDENT), else the whole malformed run
    `\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.])*` (one bad token, `1.5x`)."""
    end = pos + 2 if text[pos] == "." else pos + 1
    while True:
        end = idents.find(b" ", end)
        c = text[end]
        if c == "." or (c in "+-" and text[end - 1] in "eEpP"):
            end += 1
            continue
        break
    run = text[pos:end]
    if _number_kind(run) is not None:
        return end
    for stop in range(end - 1, pos, -1):       # malformed run: a shorter literal may end before a `.`
        if idents[stop] == 97:             # b"a": an identifier character follows
            continue
        head = text[pos:stop]
        if _is_float(head) or (_is_int(head) and not (text[stop] == "." and text[stop + 1] in "0123456789")):
            return stop
    return end


def _quoted_end(text: str, pos: int, n: int) -> tuple[int, bool]:
    """Where a string or character literal starting at `pos` ends (`n`: the text's length), and whether
    it is well formed.  A backslash escapes any character; one that is not closed on its line is an
    unterminated literal running to the end of the line."""
    quote = text[pos]
    end = pos + 1
    while end < n:
        c = text[end]
        if c == quote:
            end += 1
            return end, "\n" not in text[pos:end]     # an escaped newline (a splice's leftover) is no string
        if c == "\n":
            break
        end += 2 if c == "\\" and end + 1 < n else 1
    return text.find("\n", pos), False


def lex(text: str, filename: str, first_line: int = 1, lenient: bool = False) -> LexResult:
    """Lex `text`; in lenient mode malformed tokens become PUNCT tokens listed in `bad`."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    mapper = None
    if "\\" in text:
        spliced, splice_pos, splice_delta = _remove_splices(text)
        if splice_pos:
            mapper = _splice_mapper(text, filename, first_line, splice_pos, splice_delta)
            text = spliced

    text = text.rstrip(_BLANKS)     # so that every blank run is followed by a token
    n = len(text)
    text += "\n"                    # a sentinel: every scan below stops at it
    one_byte = text.encode("ascii", "replace")     # one byte per character: positions are the text's
    idents = one_byte.translate(_IDENT_RUNS)
    blanks = one_byte.translate(_BLANK_RUNS)
    tokens: list[Token] = []
    hashes: list[int] = []
    bad: dict[int, str] = {}
    warned: list[tuple[int, SourceLoc, str]] = []
    append = tokens.append
    line = first_line
    line_start = 0  # offset of the current line's first character
    pos = 0
    at_start = True
    space = False  # whitespace, a newline or a comment precedes the next token
    first = _FIRST
    IDENT, PUNCT, STRING, CHAR = TokKind.IDENT, TokKind.PUNCT, TokKind.STRING, TokKind.CHAR
    while pos < n:
        c = text[pos]
        kind = first.get(c, _BAD)
        start = pos
        if kind is IDENT:
            pos = idents.find(b" ", pos + 1)
            tok = text[start:pos]
        elif kind is _BLANK:
            pos = blanks.find(b"x", pos + 1)
            space = True
            nl = text.rfind("\n", start, pos)
            if nl >= 0:
                line += text.count("\n", start, pos)
                line_start = nl + 1
                at_start = True
            continue
        elif kind is PUNCT:
            pos += 1
            tok = c
        elif kind is _LONG:
            tok = text[pos:pos + 3]
            if tok not in _PUNCT3:
                tok = tok[:2]
                if tok not in _PUNCT2:
                    tok = c
            pos += len(tok)
            kind = PUNCT
        elif kind is _NUM or (kind is _DOT and text[pos + 1] in "0123456789"):
            pos = _number_end(text, idents, pos)
            tok = text[start:pos]
            kind = _number_kind(tok) or _BAD
        elif kind is _DOT:
            tok = "..." if text[pos:pos + 3] == "..." else "."
            pos += len(tok)
            kind = PUNCT
        elif kind is _SLASH:
            c = text[pos + 1]
            if c == "/":
                pos = text.find("\n", pos + 2)
                space = True
                continue
            if c == "*":
                end = text.find("*/", pos + 2)
                if end >= 0:
                    if text.find("/*", pos + 2, end) >= 0:     # rare: the scan costs one find per comment
                        owner = len(tokens) - 1 if not at_start else len(tokens)   # a token on its line
                        warned += ((owner, loc, msg) for loc, msg in
                                   _nested_comments(text, start, end, line, line_start, mapper, filename))
                    pos = end + 2
                    nl = text.rfind("\n", start, pos)
                    if nl >= 0:
                        line += text.count("\n", start, pos)
                        line_start = nl + 1
                    space = True
                    continue
                tok = "/*"
                pos += 2
                kind = _BAD
            else:
                tok = "/=" if c == "=" else "/"
                pos += len(tok)
                kind = PUNCT
        elif kind is _QUOTE:
            pos, ok = _quoted_end(text, pos, n)
            tok = text[start:pos]
            kind = _BAD if not ok else STRING if c == '"' else CHAR
        else:
            pos += 1
            tok = c
        if mapper is None:
            loc = SourceLoc(filename, line, start - line_start + 1)
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
    return LexResult(tokens, hashes, bad, warned)


def tokenize(text: str, filename: str, first_line: int = 1) -> list[Token]:
    """Lex `text` strictly: any invalid character or literal is a CompileError."""
    with gc_paused():
        return lex(text, filename, first_line).tokens


def single_token_kind(text: str) -> TokKind | None:
    """The kind of `text` if it lexes as exactly one valid token (for `##` pasting; `/` and `*` make an
    unterminated comment, no token)."""
    if not text or text[0] in _BLANKS:
        return None
    try:
        res = lex(text, "", lenient=True)
    except CompileError:
        return None
    if len(res.tokens) != 1 or res.bad or res.tokens[0].text != text:
        return None
    return res.tokens[0].kind
