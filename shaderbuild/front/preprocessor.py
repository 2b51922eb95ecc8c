"""The C preprocessor for HLSL: includes, conditionals and macro expansion.

Each file is lexed once; the lexer reports where directive lines start, so text
between directives is handed to the macro expander in one slice and skipped
`#if` regions are jumped over directive by directive.  Files are processed from
an explicit stack and macros are expanded from an explicit context stack, so no
input can cause unbounded Python recursion; every limit in `PPLimits` ends in a
CompileError.
"""

from __future__ import annotations

import os

from ..diagnostics import CompileError, Diagnostic, SourceCache, SourceLoc, error
from ..lightstd import attrgetter
from ..records import DataRecord, Record, ValueRecord
from .lexer import gc_paused, lex, single_token_kind
from .source_file import read_source
from .tokens import Token, TokKind

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

_text = attrgetter("text")
__all__ = ["Macro", "PPLimits", "PPResult", "decode_source", "preprocess"]

IDENT, INT, STRING, CHAR, PUNCT, EOF = (
    TokKind.IDENT, TokKind.INT, TokKind.STRING, TokKind.CHAR, TokKind.PUNCT, TokKind.EOF
)


class PPLimits(ValueRecord):
    """Resource limits; exceeding one is a clean error instead of a hang."""

    max_include_depth: int = 64
    max_expansion_depth: int = 256
    max_expanded_tokens: int = 2_000_000
    max_file_size: int = 16 * 1024 * 1024
    # every file's text, counted at each inclusion: bounds time and memory when a file includes
    # itself or a large header many times (~1 s and ~70 MB per MiB of declarations)
    max_total_size: int = 16 * 1024 * 1024


class PPResult(DataRecord):
    tokens: list[Token]  # fully expanded, directives removed, ends with one EOF token
    files: list[str]  # every file read, main first, absolute normalized paths
    warnings: list[Diagnostic] = Record.factory(list)
    macros: dict = Record.factory(dict)     # name -> Macro at the end of the file (root signature strings)
    # `#pragma pack_matrix`: (index of the first token it governs, "row_major" | "column_major"), in order;
    # the parser reads the state at each type, as DXC applies the pragma at the declaration
    pack_matrix: list[tuple[int, str]] = Record.factory(list)
    # errors preprocessing went on after (preprocess(recover=True)): a bad #if expression (the group is
    # skipped, as clang), #error, an unknown directive
    errors: list[Diagnostic] = Record.factory(list)


# ---------------------------------------------------------------------------
# Macros


class _Blue(Token):
    """An identifier 'painted blue': it named a macro that was being expanded, so it never expands."""

    __slots__ = ()


def _paint(tok: Token) -> Token:
    return _Blue(tok.kind, tok.text, tok.loc, tok.expansion, tok.leading_space, tok.at_line_start)


def _respace(tok: Token, space: bool) -> Token:
    if tok.leading_space == space:
        return tok
    return type(tok)(tok.kind, tok.text, tok.loc, tok.expansion, space, False)


# Replacement-list operations, compiled once per definition.
_OP_TOK, _OP_ARG, _OP_RAW, _OP_STR, _OP_PASTE = range(5)
_BUILTIN_NAMES = ("__LINE__", "__FILE__", "__COUNTER__", "_Pragma")
# built-in operators that read the tokens after them: `_Pragma("...")`, and `defined X` produced by a macro
# expansion in #if (a macro of that name exists only while #if expands; see eval_if)
_OPERATORS = frozenset(("_Pragma", "defined"))


class Macro:
    """A macro definition; `params` is None for object-like macros."""

    __slots__ = ("name", "params", "variadic", "body", "loc", "ops", "builtin")

    def __init__(self, name: str, params: list[str] | None, variadic: bool, body: list[Token],
                 loc: SourceLoc | None, builtin: bool = False):
        self.name = name
        self.params = params
        self.variadic = variadic
        self.body = body
        self.loc = loc
        self.builtin = builtin
        self.ops = _compile_ops(body, params) if not builtin else None

    def same_as(self, other: Macro) -> bool:
        """C's rule for a benign redefinition: same parameters and same replacement spelling."""
        if self.params != other.params or len(self.body) != len(other.body):
            return False
        return all(a.text == b.text and (i == 0 or a.leading_space == b.leading_space)
                   for i, (a, b) in enumerate(zip(self.body, other.body)))


def _compile_ops(body: list[Token], params: list[str] | None) -> list[tuple[int, int, Token]] | None:
    """Classify replacement tokens; None means a plain object-like body (copied as is)."""
    pidx = {p: i for i, p in enumerate(params)} if params is not None else {}
    has_op = any(t.kind is PUNCT and t.text in ("#", "##") for t in body)
    if not pidx and not has_op:
        return None
    n = len(body)
    ops: list[tuple[int, int, Token]] = []
    j = 0
    while j < n:
        t = body[j]
        if t.kind is PUNCT and t.text == "##":
            if j == 0 or j == n - 1:
                raise error("'##' cannot appear at either end of a macro expansion", t.loc)
            ops.append((_OP_PASTE, -1, t))
        elif t.kind is PUNCT and t.text == "#" and params is not None:
            nxt = body[j + 1] if j + 1 < n else None
            if nxt is None or nxt.kind is not IDENT or nxt.text not in pidx:
                raise error("'#' is not followed by a macro parameter", t.loc)
            ops.append((_OP_STR, pidx[nxt.text], t))
            j += 1
        elif t.kind is IDENT and t.text in pidx:
            pasted = (j > 0 and body[j - 1].is_punct("##")) or (j + 1 < n and body[j + 1].is_punct("##"))
            ops.append((_OP_RAW if pasted else _OP_ARG, pidx[t.text], t))
        else:
            ops.append((_OP_TOK, -1, t))
        j += 1
    return ops


def _stringize(toks: list[Token], site: SourceLoc, expansion: tuple[str, SourceLoc | None], space: bool) -> Token:
    parts: list[str] = []
    for k, t in enumerate(toks):
        if k and t.leading_space:
            parts.append(" ")
        s = t.text
        if t.kind is STRING or t.kind is CHAR:
            s = s.replace("\\", "\\\\").replace('"', '\\"')
        parts.append(s)
    return Token(STRING, '"' + "".join(parts) + '"', site, expansion, space, False)


_PLACEMARKER = Token(PUNCT, "", SourceLoc("", 0, 0), None, False, False)


class _Unfinished(Exception):
    """An open-ended expansion ran out of tokens inside a macro call (the call continues
    after a directive line); the caller retries with more text."""


_DEFINED = Macro("defined", None, False, [], None, builtin=True)


class _Expander:
    """Macro expansion with a context stack (rescanning + 'painted blue' rule), no recursion per token."""

    def __init__(self, limits: PPLimits):
        self.macros: dict[str, Macro] = {}
        self.disabled: set[str] = set()
        self.limits = limits
        self.expanded = 0
        self.counter = 0
        self.painted_any = False
        self.pragma: Callable[[list[Token], Token, list[Token]], None] | None = None   # runs a `_Pragma`
        for name in _BUILTIN_NAMES:
            self.macros[name] = Macro(name, None, False, [], None, builtin=True)

    # -- entry point -------------------------------------------------------
    def expand(self, toks: list[Token], out: list[Token], depth: int = 0, open_ended: bool = False) -> None:
        """Append the full expansion of `toks` to `out`; `depth` counts enclosing argument expansions.

        With `open_ended`, running out of tokens inside a macro call (or right after a
        function-like macro name) raises _Unfinished instead of an error.
        """
        macros = self.macros
        disabled = self.disabled
        stack: list[list] = [[toks, 0, None]]
        base_n = len(toks)
        # Which base tokens name a macro, computed in C; the macro table cannot change
        # during one expansion, so the fast path below jumps from hit to hit.
        hits = list(map(macros.__contains__, map(_text, toks)))
        while True:
            if len(stack) == 1:
                # Fast path: copy source tokens up to the next macro name.
                ctx = stack[0]
                i = ctx[1]
                try:
                    j = hits.index(True, i)
                except ValueError:
                    j = base_n
                if j > i:
                    out += toks[i:j]
                if j >= base_n:
                    return
                tok = toks[j]
                ctx[1] = j + 1
            else:
                ctx = stack[-1]
                body = ctx[0]
                if ctx[1] >= len(body):
                    stack.pop()
                    disabled.discard(ctx[2])
                    continue
                tok = body[ctx[1]]
                ctx[1] += 1
                if tok.text not in macros:
                    out.append(tok)
                    continue
            m = macros[tok.text]
            if tok.kind is not IDENT or type(tok) is _Blue:
                out.append(tok)
                continue
            if m.name in disabled:
                self.painted_any = True
                out.append(_paint(tok))
                continue
            if m.builtin:
                if m.name in _OPERATORS:
                    self._operator(tok, stack, out)
                else:
                    out.append(self._builtin(tok))
                continue
            level = depth + len(stack)
            if level >= self.limits.max_expansion_depth:
                raise error(f"macro expansion nested too deeply (limit {self.limits.max_expansion_depth})", tok.loc)
            if m.params is None:
                repl = self._substitute(m, tok, [], level)
            else:
                if not self._open_paren(stack, open_ended):
                    out.append(tok)
                    continue
                args = self._collect_args(stack, m, tok, open_ended)
                repl = self._substitute(m, tok, args, level)
            self.expanded += len(repl)
            if self.expanded > self.limits.max_expanded_tokens:
                raise error(f"macro expansion produced too many tokens (limit {self.limits.max_expanded_tokens})",
                            tok.loc)
            disabled.add(m.name)
            stack.append([repl, 0, m.name])

    # -- helpers -----------------------------------------------------------
    def _builtin(self, tok: Token) -> Token:
        name = tok.text
        if name == "__LINE__":
            return Token(INT, str(tok.loc.line), tok.loc, None, tok.leading_space, False)
        if name == "__FILE__":
            text = tok.loc.file.replace("\\", "\\\\").replace('"', '\\"')
            return Token(STRING, f'"{text}"', tok.loc, None, tok.leading_space, False)
        self.counter += 1
        return Token(INT, str(self.counter - 1), tok.loc, None, tok.leading_space, False)

    def _next(self, stack: list[list]) -> Token | None:
        """Take the next token across the contexts (finished expansions are left); None at the end."""
        while True:
            ctx = stack[-1]
            if ctx[1] < len(ctx[0]):
                ctx[1] += 1
                return ctx[0][ctx[1] - 1]
            if len(stack) == 1:
                return None
            self.disabled.discard(stack.pop()[2])

    def _operator(self, tok: Token, stack: list[list], out: list[Token]) -> None:
        """`defined X` / `defined(X)` (in #if: 1 or 0, X not expanded) or `_Pragma("text")` (the pragma runs)."""
        first = self._next(stack)
        paren = first is not None and first.is_punct("(")
        operand = self._next(stack) if paren else first
        if tok.text == "defined":
            if operand is None or operand.kind is not IDENT:
                raise error("macro name must be an identifier after 'defined'", operand.loc if operand else tok.loc)
            if paren and not ((close := self._next(stack)) is not None and close.is_punct(")")):
                raise error("missing ')' after 'defined'", operand.loc)
            out.append(Token(INT, "1" if operand.text in self.macros else "0", tok.loc, None, tok.leading_space, False))
            return
        if not paren or operand is None or operand.kind is not STRING or operand.text[0] != '"':
            raise error("_Pragma takes a parenthesized string literal", (operand or tok).loc)
        if not ((close := self._next(stack)) is not None and close.is_punct(")")):
            raise error("expected ')' after the string of '_Pragma'", operand.loc)
        text = operand.text[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        if self.pragma is not None:
            self.pragma(lex(text, tok.loc.file, tok.loc.line, lenient=True).tokens, tok, out)

    def _open_paren(self, stack: list[list], open_ended: bool) -> bool:
        """If the next token (across exhausted contexts) is '(', consume it and return True."""
        k = len(stack) - 1
        while k >= 0:
            ctx = stack[k]
            if ctx[1] < len(ctx[0]):
                break
            k -= 1
        else:
            if open_ended:
                raise _Unfinished
            return False
        nxt = ctx[0][ctx[1]]
        if nxt.kind is not PUNCT or nxt.text != "(":
            return False
        while len(stack) - 1 > k:
            self.disabled.discard(stack.pop()[2])
        ctx[1] += 1
        return True

    def _collect_args(self, stack: list[list], m: Macro, name_tok: Token, open_ended: bool) -> list[list[Token]]:
        disabled = self.disabled
        macros = self.macros
        params = m.params
        assert params is not None
        nparams = len(params)
        args: list[list[Token]] = [[]]
        cur = args[0]
        level = 0
        while True:
            ctx = stack[-1]
            body = ctx[0]
            if ctx[1] >= len(body):
                if len(stack) == 1:
                    if open_ended:
                        raise _Unfinished
                    raise error(f"unterminated call to macro '{m.name}'", name_tok.loc, self._defined_here(m))
                stack.pop()
                disabled.discard(ctx[2])
                continue
            t = body[ctx[1]]
            ctx[1] += 1
            kind = t.kind
            if kind is PUNCT:
                text = t.text
                if text == "(":
                    level += 1
                elif text == ")":
                    if level == 0:
                        break
                    level -= 1
                elif text == "," and level == 0 and not (m.variadic and len(args) == nparams):
                    cur = []
                    args.append(cur)
                    continue
            elif kind is IDENT and t.text in disabled and t.text in macros and type(t) is not _Blue:
                self.painted_any = True
                t = _paint(t)
            cur.append(t)
        if nparams == 0 and len(args) == 1 and not args[0]:
            args = []
        given = len(args)
        if m.variadic and given == nparams - 1:
            args.append([])
        elif given < nparams:
            raise error(f"macro '{m.name}' requires {nparams} argument{'s' if nparams != 1 else ''}, "
                        f"but only {given} given", name_tok.loc, self._defined_here(m))
        elif given > nparams:
            raise error(f"macro '{m.name}' passed {given} arguments, but takes just {nparams}",
                        name_tok.loc, self._defined_here(m))
        return args

    @staticmethod
    def _defined_here(m: Macro) -> list[Diagnostic]:
        return [Diagnostic("note", f"macro '{m.name}' defined here", m.loc)] if m.loc else []

    def _substitute(self, m: Macro, site_tok: Token, args: list[list[Token]], level: int) -> list[Token]:
        site = site_tok.loc
        expansion = (m.name, m.loc)
        ops = m.ops
        if ops is None:
            res = [Token(t.kind, t.text, site, expansion, t.leading_space, False) for t in m.body]
            if res:
                res[0].leading_space = site_tok.leading_space
            return res
        expanded: dict[int, list[Token]] = {}
        res = []
        paste = False
        placemarkers = False
        va_index = len(args) - 1 if m.variadic else -1
        for op, idx, t in ops:
            if op == _OP_PASTE:
                paste = True
                continue
            if op == _OP_TOK:
                toks = [Token(t.kind, t.text, site, expansion, t.leading_space, False)]
            elif op == _OP_ARG:
                toks = expanded.get(idx)  # type: ignore[assignment]
                if toks is None:
                    toks = []
                    self.expand(args[idx], toks, level + 1)
                    expanded[idx] = toks
                if toks and toks[0].leading_space != t.leading_space:
                    toks = [_respace(toks[0], t.leading_space), *toks[1:]]
            elif op == _OP_RAW:
                toks = args[idx]
                if toks and toks[0].leading_space != t.leading_space:
                    toks = [_respace(toks[0], t.leading_space), *toks[1:]]
            else:
                toks = [_stringize(args[idx], site, expansion, t.leading_space)]
            if not paste:
                if toks:
                    res += toks
                else:
                    res.append(_PLACEMARKER)
                    placemarkers = True
                continue
            paste = False
            lhs = res[-1]
            if idx == va_index and op == _OP_RAW and lhs.is_punct(","):
                # GNU extension: `, ## __VA_ARGS__` drops the comma when there are no variadic arguments.
                if not toks:
                    res.pop()
                else:
                    res += toks
                continue
            if not toks:
                continue
            if lhs is _PLACEMARKER:
                res[-1:] = toks
                continue
            rhs = toks[0]
            text = lhs.text + rhs.text
            kind = single_token_kind(text)
            if kind is None:
                raise error(f"pasting \"{lhs.text}\" and \"{rhs.text}\" does not give a valid preprocessing token",
                            site, [Diagnostic("note", f"in expansion of macro '{m.name}'", m.loc)] if m.loc else [])
            res[-1] = Token(kind, text, site, expansion, lhs.leading_space, False)
            res += toks[1:]
        if placemarkers:
            res = [t for t in res if t is not _PLACEMARKER]
        if res and res[0].leading_space != site_tok.leading_space:
            res[0] = _respace(res[0], site_tok.leading_space)
        return res


# ---------------------------------------------------------------------------
# #if expressions

_MASK64 = (1 << 64) - 1
_BINARY_PREC = {
    "*": 10, "/": 10, "%": 10, "+": 9, "-": 9, "<<": 8, ">>": 8,
    "<": 7, "<=": 7, ">": 7, ">=": 7, "==": 6, "!=": 6,
    "&": 5, "^": 4, "|": 3, "&&": 2, "||": 1,
}
_CHAR_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "a": 7, "b": 8, "f": 12, "v": 11,
                 "\\": 92, "'": 39, '"': 34, "?": 63, "e": 27, "E": 27}     # \e: GNU's escape character
_MAX_EXPR_NESTING = 64  # each level costs ~4 Python frames


def _wrap(v: int, unsigned: bool) -> tuple[int, bool]:
    v &= _MASK64
    if not unsigned and v >= 1 << 63:
        v -= 1 << 64
    return v, unsigned


def _int_value(tok: Token) -> tuple[int, bool]:
    text = tok.text
    digits = text.rstrip("uUlL")
    unsigned = "u" in text[len(digits):].lower()
    try:
        if digits[:2] in ("0x", "0X"):
            v = int(digits[2:], 16)
        elif digits[:2] in ("0b", "0B"):
            v = int(digits[2:], 2)
        elif len(digits) > 1 and digits[0] == "0":
            v = int(digits, 8)
        else:
            v = int(digits, 10)
    except ValueError:
        raise error(f"invalid integer constant '{text}' in preprocessor expression", tok.loc) from None
    if v > _MASK64:
        raise error("integer literal is too large to be represented in any integer type", tok.loc)
    return v, unsigned or v >= 1 << 63


def _string_text(tok: Token) -> str:
    """A string literal's characters (C's escapes read, as clang's FinishLexStringLiteral)."""
    body, out, i = tok.text[1:-1], [], 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            e = body[i + 1]
            out.append(chr(_CHAR_ESCAPES[e]) if e in _CHAR_ESCAPES else e)
            i += 2
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


def _char_value(tok: Token) -> int:
    body = tok.text[1:-1]
    chars: list[int] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\" or i + 1 >= len(body):
            chars.append(ord(c))
            i += 1
            continue
        e = body[i + 1]
        if e == "x":
            j = i + 2
            while j < len(body) and body[j] in "0123456789abcdefABCDEF":
                j += 1
            chars.append(int(body[i + 2:j] or "0", 16) & 0xFF)
            i = j
        elif e in "01234567":
            j = i + 1
            while j < len(body) and j < i + 4 and body[j] in "01234567":
                j += 1
            chars.append(int(body[i + 1:j], 8) & 0xFF)
            i = j
        else:
            chars.append(_CHAR_ESCAPES.get(e, ord(e)))
            i += 2
    v = 0
    for ch in chars:
        v = (v << 8) | ch
    return v


class _IfEval:
    """Precedence-climbing evaluator for #if (C integer rules: 64-bit, signed/unsigned)."""

    def __init__(self, toks: list[Token], macros: dict[str, Macro], end_loc: SourceLoc):
        self.toks = toks
        self.pos = 0
        self.macros = macros
        self.end_loc = end_loc
        self.nesting = 0
        self.warnings: list[tuple[str, SourceLoc]] = []     # clang's, in the order met (live operands only)

    def run(self) -> bool:
        v = self.expr(True)
        if self.pos < len(self.toks):
            t = self.toks[self.pos]
            raise error(f"unexpected token '{t.text}' in preprocessor expression", t.loc)
        return v[0] != 0

    def peek(self) -> Token | None:
        return self.toks[self.pos] if self.pos < len(self.toks) else None

    def expect(self, text: str) -> None:
        t = self.peek()
        if t is None or not t.is_punct(text):
            raise error(f"expected '{text}' in preprocessor expression", t.loc if t else self.end_loc)
        self.pos += 1

    def expr(self, live: bool) -> tuple[int, bool]:
        cond = self.binary(1, live)
        t = self.peek()
        if t is None or not t.is_punct("?"):
            return cond
        self.pos += 1
        c = cond[0] != 0
        self._enter(t)
        a = self.expr(live and c)
        self.expect(":")
        b = self.expr(live and not c)
        self.nesting -= 1
        unsigned = a[1] or b[1]
        return _wrap((a if c else b)[0], unsigned)

    def _enter(self, t: Token) -> None:
        self.nesting += 1
        if self.nesting > _MAX_EXPR_NESTING:
            raise error("preprocessor expression is nested too deeply", t.loc)

    def binary(self, min_prec: int, live: bool) -> tuple[int, bool]:
        lhs = self.unary(live)
        while True:
            t = self.peek()
            if t is None or t.kind is not PUNCT:
                return lhs
            prec = _BINARY_PREC.get(t.text)
            if prec is None or prec < min_prec:
                return lhs
            self.pos += 1
            op = t.text
            if op == "&&":
                rhs = self.binary(prec + 1, live and lhs[0] != 0)
                lhs = (int(lhs[0] != 0 and rhs[0] != 0), False)
            elif op == "||":
                rhs = self.binary(prec + 1, live and lhs[0] == 0)
                lhs = (int(lhs[0] != 0 or rhs[0] != 0), False)
            else:
                rhs = self.binary(prec + 1, live)
                lhs = self.apply(op, lhs, rhs, live, t)

    def unary(self, live: bool) -> tuple[int, bool]:
        t = self.peek()
        if t is None:
            raise error("expected value in preprocessor expression", self.end_loc)
        self.pos += 1
        kind = t.kind
        if kind is INT:
            v, u = _int_value(t)
            if live and v >> 63 and t.text[0] != "0" and "u" not in t.text.lower():     # decimal, no U suffix
                self.warnings.append(("integer literal is too large to be represented in a signed integer type, "
                                      "interpreting as unsigned", t.loc))
            return v, u
        if kind is CHAR:
            if live and "\\" in t.text:
                self.unknown_escapes(t)
            return _char_value(t), False
        if kind is IDENT:
            if t.text == "defined":
                return self.defined(t), False
            return (1 if t.text == "true" else 0), False
        if kind is PUNCT:
            text = t.text
            if text == "(":
                self._enter(t)
                inner = self.expr(live)
                self.expect(")")
                self.nesting -= 1
                return inner
            if text in ("+", "-", "~", "!"):
                self._enter(t)
                v, u = self.unary(live)
                self.nesting -= 1
                if text == "-":
                    if live and not u and v == -(1 << 63):
                        self.warnings.append((_OVERFLOW, t.loc))
                    return _wrap(-v, u)
                if text == "~":
                    return _wrap(~v, u)
                if text == "!":
                    return int(v == 0), False
                return v, u
        if kind is TokKind.FLOAT:
            raise error("floating point literal in preprocessor expression", t.loc)
        raise error(f"invalid token '{t.text}' in preprocessor expression", t.loc)

    def unknown_escapes(self, t: Token) -> None:
        """Clang's warning at each escape C does not have in a character literal (CharLiteralParser)."""
        body, i = t.text[1:-1], 0
        while i < len(body) - 1:
            if body[i] == "\\":
                e = body[i + 1]
                if e not in _CHAR_ESCAPES and e not in "xeE({[%01234567":
                    shown = e if e.isprintable() else f"x{ord(e):x}"
                    self.warnings.append((f"unknown escape sequence '\\{shown}'",
                                          SourceLoc(t.loc.file, t.loc.line, t.loc.col + 1 + i)))
                i += 2
            else:
                i += 1

    def defined(self, t: Token) -> int:
        paren = False
        nxt = self.peek()
        if nxt is not None and nxt.is_punct("("):
            paren = True
            self.pos += 1
            nxt = self.peek()
        if nxt is None or nxt.kind is not IDENT:
            raise error("macro name must be an identifier after 'defined'", nxt.loc if nxt else t.loc)
        self.pos += 1
        if paren:
            self.expect(")")
        return int(nxt.text in self.macros)

    def apply(self, op: str, a: tuple[int, bool], b: tuple[int, bool], live: bool, t: Token) -> tuple[int, bool]:
        if op in ("<<", ">>"):
            v, u = a
            n = b[0] & _MASK64 if b[1] else b[0]
            if n < 0 or n >= 64:
                if live:
                    self.warnings.append((_OVERFLOW, t.loc))
                return (0 if op == "<<" or v >= 0 else -1), u
            if live and op == "<<" and (v << n > _MASK64 if u else not -(1 << 63) <= v << n < 1 << 63):
                self.warnings.append((_OVERFLOW, t.loc))        # bits shifted out (clang's ushl_ov, sshl_ov)
            return _wrap(v << n if op == "<<" else (v & _MASK64 if u else v) >> n, u)
        u = a[1] or b[1]
        if u and live:          # the usual arithmetic conversions make a negative operand unsigned
            for side, (v, vu) in (("left", a), ("right", b)):
                if not vu and v < 0:
                    self.warnings.append((f"{side} side of operator converted from negative value to unsigned: "
                                          f"{v} to {v & _MASK64}", t.loc))
        x, y = (a[0] & _MASK64, b[0] & _MASK64) if u else (a[0], b[0])
        if live and not u and op in ("+", "-", "*", "/") and y != 0:
            exact = x + y if op == "+" else x - y if op == "-" else x * y if op == "*" else (
                abs(x) // abs(y) * (-1 if (x < 0) != (y < 0) else 1))
            if not -(1 << 63) <= exact < 1 << 63:
                self.warnings.append((_OVERFLOW, t.loc))
        if op in ("/", "%"):
            if y == 0:
                if live:
                    raise error("division by zero in preprocessor expression", t.loc)
                return 0, u
            q = abs(x) // abs(y)
            if (x < 0) != (y < 0):
                q = -q
            return _wrap(q if op == "/" else x - q * y, u)
        result = _ARITH[op](x, y)
        if op in _COMPARISONS:
            return int(result), False
        return _wrap(result, u)


_OVERFLOW = "integer overflow in preprocessor expression"     # clang's warn_pp_expr_overflow
_COMPARISONS = frozenset(("<", "<=", ">", ">=", "==", "!="))
_ARITH: dict[str, Callable[[int, int], int]] = {
    "*": lambda x, y: x * y,
    "+": lambda x, y: x + y,
    "-": lambda x, y: x - y,
    "<": lambda x, y: x < y,
    "<=": lambda x, y: x <= y,
    ">": lambda x, y: x > y,
    ">=": lambda x, y: x >= y,
    "==": lambda x, y: x == y,
    "!=": lambda x, y: x != y,
    "&": lambda x, y: x & y,
    "^": lambda x, y: x ^ y,
    "|": lambda x, y: x | y,
}


# ---------------------------------------------------------------------------
# Files and directives


class _Cond:
    """One open #if: whether its current branch is live, whether a branch was taken, #else seen."""

    __slots__ = ("active", "parent_active", "taken", "seen_else", "loc")

    def __init__(self, active: bool, parent_active: bool, taken: bool, loc: SourceLoc):
        self.active = active
        self.parent_active = parent_active
        self.taken = taken
        self.seen_else = False
        self.loc = loc


class _Frame:
    """A file being processed."""

    __slots__ = ("toks", "hashes", "hi", "pos", "bad", "bad_msgs", "conds", "display", "abspath", "dir",
                 "include_loc", "line_map", "pending", "warned")

    def __init__(self, toks: list[Token], hashes: list[int], bad: dict[int, str], display: str,
                 abspath: str, include_loc: SourceLoc | None, warned: list[tuple[int, SourceLoc, str]]):
        self.toks = toks
        self.hashes = hashes
        self.warned = warned        # the lexer's warnings not yet given (LexResult.warned)
        self.hi = 0
        self.pos = 0
        self.bad = sorted(bad) if bad else None
        self.bad_msgs = bad
        self.conds: list[_Cond] = []
        self.display = display
        self.abspath = abspath
        self.dir = os.path.dirname(display)
        self.include_loc = include_loc
        self.line_map: tuple[int, str] | None = None  # (line delta, file name) after #line
        self.pending: list[Token] | None = None  # text whose last macro call is still open

    @property
    def active(self) -> bool:
        return not self.conds or self.conds[-1].active


def decode_source(data: bytes, display: str) -> str:
    """UTF-8 (optional BOM) to str; bad bytes and NULs are errors at their position."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        start = e.start
        line = data.count(b"\n", 0, start) + 1
        col = start - (data.rfind(b"\n", 0, start) + 1) + 1
        raise error("source file is not valid UTF-8", SourceLoc(display, line, col)) from None
    _check_nul(text, display)
    return text


def _check_nul(text: str, display: str) -> None:
    at = text.find("\0")
    if at >= 0:
        line = text.count("\n", 0, at) + 1
        col = at - (text.rfind("\n", 0, at) + 1) + 1
        raise error("source file contains a null character", SourceLoc(display, line, col))


def _spell(toks: Sequence[Token]) -> str:
    """Re-join tokens with single spaces where the source had whitespace."""
    parts: list[str] = []
    for k, t in enumerate(toks):
        if k and t.leading_space:
            parts.append(" ")
        parts.append(t.text)
    return "".join(parts)


# Directives still interpreted inside skipped #if regions (only to track nesting).
_CONDITIONAL_DIRECTIVES = frozenset(("if", "ifdef", "ifndef", "elif", "else", "endif"))
# Directives whose operands are free text, where a stray character is no error.
_FREE_TEXT_DIRECTIVES = frozenset(("error", "warning", "include", "pragma"))
_MISSING_FILE_ERRORS = (FileNotFoundError, IsADirectoryError, NotADirectoryError)


class _Preprocessor:
    """Drives the file stack: text runs go to the expander, directive lines to handlers."""

    def __init__(self, include_dirs: Sequence[str], sources: SourceCache | None,
                 reader: Callable[[str], bytes], limits: PPLimits, recover: bool = False):
        self.include_dirs = list(include_dirs)
        self.recover = recover
        self.errors: list[Diagnostic] = []
        self.sources = sources
        self.reader = reader
        self.limits = limits
        self.exp = _Expander(limits)
        self.files: list[str] = []
        self.seen_files: set[str] = set()
        self.once: set[str] = set()
        self.texts: dict[str, str] = {}    # abspath -> decoded text: each file is read once
        self.total = 0                     # characters pushed, every inclusion counted
        self.frames: list[_Frame] = []
        self.out: list[Token] = []
        self.pack_matrix: list[tuple[int, str]] = []
        self.warnings: list[Diagnostic] = []
        self.handlers: dict[str, Callable[[_Frame, list[Token]], None]] = {
            "define": self.do_define, "undef": self.do_undef, "include": self.do_include,
            "if": self.do_if, "ifdef": self.do_ifdef, "ifndef": self.do_ifndef,
            "elif": self.do_elif, "else": self.do_else, "endif": self.do_endif,
            "line": self.do_line, "error": self.do_error, "warning": self.do_warning,
            "pragma": self.do_pragma,
        }
        self.exp.pragma = self.run_pragma

    # -- files -------------------------------------------------------------
    def push_file(self, text: str, display: str, abspath: str, include_loc: SourceLoc | None) -> None:
        self.total += len(text)
        if self.total > self.limits.max_total_size:
            raise error(f"preprocessed text is too large (over {self.limits.max_total_size} bytes counting every "
                        f"#include; the limit is set with --max-preprocessed-bytes)", include_loc)
        if self.sources is not None:
            self.sources.add(display, text)
        if abspath not in self.seen_files:
            self.seen_files.add(abspath)
            self.files.append(abspath)
        lx = lex(text, display, 1, lenient=True)
        self.frames.append(_Frame(lx.tokens, lx.hashes, lx.bad, display, abspath, include_loc, lx.warned))

    def include_notes(self) -> list[Diagnostic]:
        notes = []
        for f in reversed(self.frames):
            if f.include_loc is not None:
                loc = f.include_loc
                notes.append(Diagnostic("note", f"in file included from {loc.file}:{loc.line}", loc))
        return notes

    def run(self) -> None:
        frames = self.frames
        out = self.out
        expand = self.exp.expand
        while frames:
            f = frames[-1]
            toks = f.toks
            nh = f.hashes[f.hi] if f.hi < len(f.hashes) else len(toks)
            if f.pos < nh:
                if f.warned:
                    self.lexer_warnings(f, nh, f.active)
                if f.active:
                    self.check_bad(f, f.pos, nh, False)
                    seg = toks[f.pos:nh]
                    if f.line_map is not None:
                        seg = self.remap(f, seg)
                    self.expand_text(f, seg)
                f.pos = nh
                continue
            if f.pos >= len(toks):
                if f.warned:        # after the last token
                    self.lexer_warnings(f, len(toks) + 1, f.active)
                if f.pending is not None:
                    seg, f.pending = f.pending, None
                    expand(seg, out)  # now any unfinished call is an error
                if f.conds:
                    raise error("unterminated conditional directive", f.conds[-1].loc)
                frames.pop()
                continue
            end = nh + 1
            n = len(toks)
            while end < n and not toks[end].at_line_start:
                end += 1
            f.hi += 1
            f.pos = end
            line = toks[nh:end]
            if f.line_map is not None:
                line = self.remap(f, line)
            active = f.active
            if f.warned and active:     # lexed before the directive acts (a #pragma message comes after)
                self.lexer_warnings(f, end, True)
            self.directive(f, line, nh, end)
            if f.warned:            # a directive line lexed as clang does: raw (silent) in a skipped group; the
                hash_at = toks[nh].loc      # #else/#endif that ends one is lexed after its name as text is
                self.lexer_warnings(f, end, False, hash_at if f.active else None)

    def expand_text(self, f: _Frame, seg: list[Token]) -> None:
        """Expand a run of text lines.  A macro call left open at its end may continue
        after the following directive lines (as in GCC/Clang), so it is kept pending
        and expanded again, joined with the next run of text."""
        if f.pending is not None:
            seg = f.pending + seg
            f.pending = None
        exp = self.exp
        mark, counter, expanded = len(self.out), exp.counter, exp.expanded
        try:
            exp.expand(seg, self.out, 0, open_ended=True)
        except _Unfinished:
            del self.out[mark:]
            exp.counter, exp.expanded = counter, expanded
            exp.disabled.clear()
            f.pending = seg

    def lexer_warnings(self, f: _Frame, end: int, given: bool, after: SourceLoc | None = None) -> None:
        """The lexer's warnings for the tokens before `end`: given when their lines are not skipped (`given`), or
        when they come after `after`."""
        while f.warned and f.warned[0][0] < end:
            _index, loc, message = f.warned.pop(0)
            if given or (after is not None and (loc.line, loc.col) > (after.line, after.col)):
                if f.line_map is not None:
                    loc = SourceLoc(f.line_map[1], loc.line + f.line_map[0], loc.col)
                self.warn(message, loc)

    def check_bad(self, f: _Frame, start: int, end: int, allow: bool) -> None:
        if f.bad is None or allow:
            return
        from bisect import bisect_left  # here: files with malformed tokens only (a C extension to load)

        k = bisect_left(f.bad, start)
        if k < len(f.bad) and f.bad[k] < end:
            idx = f.bad[k]
            loc = f.toks[idx].loc
            if f.line_map is not None:
                loc = SourceLoc(f.line_map[1], loc.line + f.line_map[0], loc.col)
            raise error(f.bad_msgs[idx], loc)

    @staticmethod
    def remap(f: _Frame, toks: list[Token]) -> list[Token]:
        assert f.line_map is not None
        delta, name = f.line_map
        return [Token(t.kind, t.text, SourceLoc(name, t.loc.line + delta, t.loc.col), t.expansion,
                      t.leading_space, t.at_line_start) for t in toks]

    # -- directives --------------------------------------------------------
    def directive(self, f: _Frame, line: list[Token], start: int, end: int) -> None:
        if len(line) == 1:
            return  # null directive
        name_tok = line[1]
        name = name_tok.text
        if not f.active and name not in _CONDITIONAL_DIRECTIVES:
            return
        handler = self.handlers.get(name) if name_tok.kind is IDENT else None
        if name_tok.kind is INT and f.active:      # `# 100 "file" flags`: a GNU line marker, as clang
            self.set_line(f, line[1:], line[0], marker=True)
            return
        if handler is None:
            if not f.active:
                return
            self.fail(error(f"invalid preprocessing directive '#{name}'", name_tok.loc))
            return
        if f.active:
            self.check_bad(f, start, end, name in _FREE_TEXT_DIRECTIVES)
        handler(f, line)

    def do_define(self, f: _Frame, line: list[Token]) -> None:
        self.define(line, 2, line[1])

    def define(self, line: list[Token], i: int, directive_tok: Token, warn: bool = True) -> None:
        n = len(line)
        if i >= n:
            raise error("macro name missing", directive_tok.loc)
        name_tok = self.macro_name(line[i])
        i += 1
        params: list[str] | None = None
        variadic = False
        if i < n and line[i].is_punct("(") and not line[i].leading_space:
            params, variadic, i = self.parse_params(line, i + 1, name_tok)
        body = line[i:]
        macro = Macro(name_tok.text, params, variadic, body, name_tok.loc)
        old = self.exp.macros.get(name_tok.text)
        if warn and old is not None and old.builtin:      # `#define __LINE__ 3`: clang's extension warning
            self.warn("redefining builtin macro", name_tok.loc)
        elif warn and old is not None and old.loc is not None and not old.same_as(macro):
            self.warn(f"'{name_tok.text}' macro redefined", name_tok.loc,
                      [Diagnostic("note", "previous definition is here", old.loc)])
        self.exp.macros[name_tok.text] = macro

    @staticmethod
    def macro_name(t: Token) -> Token:
        if t.kind is not IDENT:
            raise error("macro name must be an identifier", t.loc)
        if t.text == "defined":
            raise error("'defined' cannot be used as a macro name", t.loc)
        return t

    @staticmethod
    def parse_params(line: list[Token], i: int, name_tok: Token) -> tuple[list[str], bool, int]:
        params: list[str] = []
        n = len(line)
        while True:
            if i >= n:
                raise error("missing ')' in macro parameter list", name_tok.loc)
            t = line[i]
            if t.is_punct(")") and not params:
                return params, False, i + 1
            if t.is_punct("..."):
                params.append("__VA_ARGS__")
                if i + 1 >= n or not line[i + 1].is_punct(")"):
                    raise error("missing ')' after '...' in macro parameter list", t.loc)
                return params, True, i + 2
            if t.kind is not IDENT or t.text == "__VA_ARGS__":
                raise error("expected parameter name in macro parameter list", t.loc)
            if t.text in params:
                raise error(f"duplicate macro parameter '{t.text}'", t.loc)
            params.append(t.text)
            i += 1
            if i < n and line[i].is_punct(","):
                i += 1
                continue
            if i < n and line[i].is_punct(")"):
                return params, False, i + 1
            raise error("expected ',' or ')' in macro parameter list", line[i].loc if i < n else t.loc)

    def do_undef(self, f: _Frame, line: list[Token]) -> None:
        if len(line) < 3:
            raise error("macro name missing", line[1].loc)
        name = self.macro_name(line[2]).text
        old = self.exp.macros.pop(name, None)
        if old is not None and old.builtin:
            self.warn("undefining builtin macro", line[2].loc)
        if len(line) > 3:
            self.warn("extra tokens at end of #undef directive", line[3].loc)

    # conditionals
    def fail(self, e: CompileError) -> None:
        """An error preprocessing can go on after: recorded when recovering, else raised."""
        if not self.recover:
            raise e
        notes = self.include_notes()
        self.errors.extend(Diagnostic(d.severity, d.message, d.loc, d.notes + notes) for d in e.diagnostics)

    def condition(self, evaluate: Callable[[], bool]) -> bool:
        """A conditional directive's value; one that fails to evaluate is false (its group is skipped)."""
        try:
            return evaluate()
        except CompileError as e:
            self.fail(e)
            return False

    def push_cond(self, f: _Frame, line: list[Token], evaluate: Callable[[], bool]) -> None:
        parent = f.active
        value = self.condition(evaluate) if parent else False
        f.conds.append(_Cond(value, parent, value, line[0].loc))

    def do_if(self, f: _Frame, line: list[Token]) -> None:
        self.push_cond(f, line, lambda: self.eval_if(line))

    def do_ifdef(self, f: _Frame, line: list[Token]) -> None:
        self.push_cond(f, line, lambda: self.ifdef_name(line) in self.exp.macros)

    def do_ifndef(self, f: _Frame, line: list[Token]) -> None:
        self.push_cond(f, line, lambda: self.ifdef_name(line) not in self.exp.macros)

    def ifdef_name(self, line: list[Token]) -> str:
        if len(line) < 3:
            raise error("macro name missing", line[1].loc)
        name = self.macro_name(line[2]).text
        if len(line) > 3:
            self.warn(f"extra tokens at end of #{line[1].text} directive", line[3].loc)
        return name

    def do_elif(self, f: _Frame, line: list[Token]) -> None:
        if not f.conds:
            raise error("#elif without #if", line[1].loc)
        c = f.conds[-1]
        if c.seen_else:
            raise error("#elif after #else", line[1].loc)
        if c.taken or not c.parent_active:
            c.active = False
            return
        c.active = c.taken = self.condition(lambda: self.eval_if(line))

    def do_else(self, f: _Frame, line: list[Token]) -> None:
        if not f.conds:
            raise error("#else without #if", line[1].loc)
        c = f.conds[-1]
        if c.seen_else:
            raise error("#else after #else", line[1].loc)
        self.end_of_directive(line, c)
        c.seen_else = True
        c.active = c.parent_active and not c.taken
        c.taken = True

    def do_endif(self, f: _Frame, line: list[Token]) -> None:
        if not f.conds:
            raise error("#endif without #if", line[1].loc)
        self.end_of_directive(line, f.conds[-1])
        f.conds.pop()

    def end_of_directive(self, line: list[Token], c: _Cond) -> None:
        """#else and #endif take no argument: what follows is ignored, with clang's warning (not inside a
        skipped group, which clang lexes raw)."""
        if len(line) > 2 and c.parent_active:
            self.warn(f"extra tokens at end of #{line[1].text} directive", line[2].loc)

    def eval_if(self, line: list[Token]) -> bool:
        directive = line[1]
        if len(line) < 3:
            raise error(f"#{directive.text} with no expression", directive.loc)
        macros = self.exp.macros
        items: list[Token] = []
        i, n = 2, len(line)
        while i < n:
            t = line[i]
            i += 1
            if t.kind is not IDENT or t.text != "defined":
                items.append(t)
                continue
            # Resolve `defined X` / `defined(X)` before expansion so X itself is not expanded.
            paren = i < n and line[i].is_punct("(")
            j = i + 1 if paren else i
            if j >= n or line[j].kind is not IDENT:
                raise error("macro name must be an identifier after 'defined'", line[j].loc if j < n else t.loc)
            if paren and (j + 1 >= n or not line[j + 1].is_punct(")")):
                raise error("missing ')' after 'defined'", line[j + 1].loc if j + 1 < n else line[j].loc)
            items.append(Token(INT, "1" if line[j].text in macros else "0", t.loc, None, t.leading_space, False))
            i = j + 2 if paren else j + 1
        expanded: list[Token] = []
        macros["defined"] = _DEFINED        # `defined` that a macro expands to is the operator too, as in clang
        try:
            self.exp.expand(items, expanded)
        finally:
            del macros["defined"]
        last = line[-1].loc
        end_loc = SourceLoc(last.file, last.line, last.col + len(line[-1].text))
        evaluator = _IfEval(expanded, macros, end_loc)
        try:
            return evaluator.run()
        finally:
            for message, loc in evaluator.warnings:
                self.warn(message, loc)

    # include
    def do_include(self, f: _Frame, line: list[Token]) -> None:
        if f.pending is not None:
            seg, f.pending = f.pending, None
            self.exp.expand(seg, self.out)  # reports the unterminated call
        name, angled, name_tok, extra = self.include_name(line)
        if not name:
            raise error("empty filename", name_tok.loc)
        if extra:
            self.warn("extra tokens at end of #include directive", extra.loc)
        if len(self.frames) > self.limits.max_include_depth:
            raise error(f"#include nested too deeply (limit {self.limits.max_include_depth})", line[0].loc)
        names = [name, name.replace("\\", "/")] if "\\" in name and os.sep == "/" else [name]   # Windows trees
        candidates = [] if angled else [os.path.join(f.dir, n) for n in names]
        candidates += [os.path.join(d, n) for d in self.include_dirs for n in names]
        for cand in candidates:
            display = os.path.normpath(cand)
            abspath = os.path.abspath(display)
            if abspath in self.once:
                return
            text = self.texts.get(abspath)
            if text is None:
                try:
                    data = self.reader(abspath)
                except _MISSING_FILE_ERRORS:
                    continue
                except OSError as e:
                    raise error(f"cannot read '{display}': {e.strerror or e}", name_tok.loc) from None
                if len(data) > self.limits.max_file_size:
                    raise error(f"file '{display}' is too large (the limit is {self.limits.max_file_size} bytes)",
                                name_tok.loc)
                try:
                    text = self.texts[abspath] = decode_source(data, display)
                except CompileError as e:
                    loc = line[0].loc
                    e.diagnostics[0].notes.append(Diagnostic("note", f"in file included from {loc.file}:{loc.line}",
                                                             loc))
                    raise
            self.push_file(text, display, abspath, line[0].loc)
            return
        raise error(f"'{name}' file not found", name_tok.loc)

    def include_name(self, line: list[Token]) -> tuple[str, bool, Token, Token | None]:
        rest = line[2:]
        if rest and not (rest[0].kind is STRING or rest[0].is_punct("<")):
            expanded: list[Token] = []
            self.exp.expand(rest, expanded)
            rest = expanded
        if rest and rest[0].kind is STRING:
            return rest[0].text[1:-1], False, rest[0], rest[1] if len(rest) > 1 else None
        if rest and rest[0].is_punct("<"):
            for k in range(1, len(rest)):
                if rest[k].is_punct(">"):
                    return (_spell(rest[1:k]), True, rest[0], rest[k + 1] if k + 1 < len(rest) else None)
            raise error("expected '>' at end of #include file name", rest[-1].loc)
        raise error('#include expects "FILENAME" or <FILENAME>', rest[0].loc if rest else line[1].loc)

    # misc
    def do_line(self, f: _Frame, line: list[Token]) -> None:
        rest: list[Token] = []
        self.exp.expand(line[2:], rest)
        self.set_line(f, rest, line[1])

    def set_line(self, f: _Frame, rest: list[Token], directive: Token, marker: bool = False) -> None:
        """#line N ["file"] (macro-expanded), or a line marker `# N "file" flags...` (the flags are ignored)."""
        if not rest or rest[0].kind is not INT or not rest[0].text.isdigit():
            raise error("#line directive requires a positive integer argument",
                        rest[0].loc if rest else directive.loc)
        name = f.line_map[1] if f.line_map else f.display
        if rest[0].text[0] == "0" and int(rest[0].text):      # `#line 010` is line 10, as clang (which warns)
            self.warn(f"{'GNU line marker' if marker else '#line'} directive interprets number as decimal, not octal",
                      rest[0].loc)
        if marker and len(rest) > 1 and rest[1].kind is not STRING:
            raise error("invalid filename for line marker directive", rest[1].loc)
        if len(rest) > 1:
            if rest[1].kind is not STRING:
                raise error("invalid filename for #line directive", rest[1].loc)
            name = rest[1].text[1:-1].replace("\\\\", "\\")
        physical = f.toks[f.pos - 1].loc.line if f.pos else 1
        f.line_map = (int(rest[0].text) - physical - 1, name)

    def do_error(self, f: _Frame, line: list[Token]) -> None:
        self.fail(error(_spell(line[2:]) or "#error", line[0].loc))

    def do_warning(self, f: _Frame, line: list[Token]) -> None:
        self.warn(_spell(line[2:]) or "#warning", line[0].loc)

    def run_pragma(self, toks: list[Token], at: Token, out: list[Token]) -> None:
        """`_Pragma("...")` met while expanding text into `out`: as the #pragma line it spells."""
        if out is self.out and self.frames:
            self.do_pragma(self.frames[-1], [at, at, *toks])

    def do_pragma(self, f: _Frame, line: list[Token]) -> None:
        if len(line) > 2 and line[2].text == "once":
            if len(self.frames) == 1:       # clang's warning; the main file is read once anyway
                self.warn("#pragma once in main file", line[2].loc)
            self.once.add(f.abspath)
        elif len(line) > 2 and line[2].text == "message":
            self.pragma_message(line)
        elif len(line) > 2 and line[2].text == "pack_matrix":
            args = [t.text for t in line[3:]]
            if len(args) == 3 and args[0] == "(" and args[2] == ")" and args[1] in ("row_major", "column_major"):
                self.pack_matrix.append((len(self.out), args[1]))
            else:
                self.warn("unknown pack_matrix pragma value (expected row_major or column_major); pragma ignored",
                          line[2].loc)

    def pragma_message(self, line: list[Token]) -> None:
        """`#pragma message("text")` or `#pragma message "text"` (macros expanded, adjacent strings joined):
        the text as a warning at `message`, as clang and DXC; clang's errors for a malformed one."""
        rest: list[Token] = []
        self.exp.expand(line[3:], rest)
        paren = bool(rest) and rest[0].is_punct("(")
        k = int(paren)
        if k >= len(rest) or rest[k].kind is not STRING:
            if paren:
                self.fail(error("expected string literal in pragma message", (rest[k] if k < len(rest) else line[2]).loc))
            else:
                self.fail(error("pragma message requires parenthesized string", line[2].loc))
            return
        text = []
        while k < len(rest) and rest[k].kind is STRING:
            text.append(_string_text(rest[k]))
            k += 1
        if paren and k < len(rest) and rest[k].is_punct(")"):
            k += 1
        elif paren:
            k = min(k, len(rest) - 1) if k < len(rest) else -1
        if k != len(rest):
            self.fail(error("pragma message requires parenthesized string", (rest[k] if k >= 0 else line[2]).loc))
            return
        self.warnings.append(Diagnostic("warning", "".join(text), line[2].loc, self.include_notes(),
                                        group="#pragma-messages"))

    def warn(self, message: str, loc: SourceLoc, notes: list[Diagnostic] | None = None) -> None:
        self.warnings.append(Diagnostic("warning", message, loc, (notes or []) + self.include_notes()))


def preprocess(path: str, *, text: str | None = None, defines: Mapping[str, str] = {},  # noqa: B006
               include_dirs: Sequence[str] = (), predefined: Mapping[str, str] = {},  # noqa: B006
               sources: SourceCache | None = None, reader: Callable[[str], bytes] | None = None,
               limits: PPLimits = PPLimits(), recover: bool = False) -> PPResult:  # noqa: B008
    """Preprocess `path` (or `text` as its contents) into a flat token list ending in EOF.  With `recover`,
    errors after which preprocessing can go on are returned in PPResult.errors instead of raised."""
    pp = _Preprocessor(include_dirs, sources, reader or (lambda p: read_source(p, limits.max_file_size)), limits,
                       recover)
    for origin, table in (("<built-in>", predefined), ("<command line>", defines)):
        for name, value in table.items():
            lx = lex(f"{name} {value}", origin)
            if not lx.tokens:
                raise error("macro name missing", SourceLoc(origin, 1, 1))
            pp.define(lx.tokens, 0, lx.tokens[0], warn=False)
    abspath = os.path.abspath(path)
    if text is None:
        try:
            data = pp.reader(abspath)
        except OSError as e:
            raise error(f"cannot open '{path}': {e.strerror or e}") from None
        if len(data) > limits.max_file_size:
            raise error(f"file '{path}' is too large (the limit is {limits.max_file_size} bytes)")
        text = decode_source(data, path)
        pp.texts[abspath] = text
    else:
        if len(text) > limits.max_file_size:
            raise error(f"file '{path}' is too large ({len(text)} characters; the limit is {limits.max_file_size})")
        if text.startswith("\ufeff"):
            text = text[1:]
        _check_nul(text, path)
    try:
        with gc_paused():
            pp.push_file(text, path, abspath, None)
            pp.run()
    except CompileError as e:
        notes = pp.include_notes()
        for d in e.diagnostics:
            d.notes.extend(notes)
        raise
    out = pp.out
    if pp.exp.painted_any:
        out = [Token(t.kind, t.text, t.loc, t.expansion, t.leading_space, t.at_line_start)
               if type(t) is _Blue else t for t in out]
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    out.append(Token(EOF, "", SourceLoc(path, max(lines, 1), 1), None, False, True))
    return PPResult(out, pp.files, pp.warnings, pp.exp.macros, pp.pack_matrix, pp.errors)
