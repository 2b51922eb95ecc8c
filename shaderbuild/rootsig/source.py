"""Finds a shader's root signature text: the entry point's `[RootSignature("...")]` attribute or the
macro named by `-rootsig-define` (which wins, as in DXC), with each piece's location.

A string that came out of a macro is located at the literal in the `#define`, so an error
points inside the text the user wrote."""

from __future__ import annotations

from ..diagnostics import SourceLoc, error
from ..front import ast
from ..front.tokens import Token, TokKind

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .parser import LocatedText


def _literal_loc(tok: Token) -> SourceLoc:
    return SourceLoc(tok.loc.file, tok.loc.line, tok.loc.col + 1)      # the first character after the quote


def _macro_strings(name: str, macros: dict, seen: frozenset[str] = frozenset()) -> list[Token] | None:
    """The string literal tokens an object-like macro expands to, or None if it expands to anything else."""
    mac = macros.get(name)
    if mac is None or mac.params is not None or name in seen:
        return None
    out: list[Token] = []
    for t in mac.body:
        if t.kind is TokKind.STRING:
            out.append(t)
        elif t.kind is TokKind.IDENT:
            inner = _macro_strings(t.text, macros, seen | {name})
            if inner is None:
                return None
            out += inner
        else:
            return None
    return out


def from_tokens(tokens: list[Token], macros: dict) -> LocatedText:
    from .parser import LocatedText

    src = LocatedText("")
    for t in tokens:
        piece = t.text[1:-1]
        if t.expansion is None:
            src.add(piece, _literal_loc(t))
            continue
        body = _macro_strings(t.expansion[0], macros) or []
        home = next((b for b in body if b.text == t.text and b.expansion is None), None)
        if home is not None:
            src.add(piece, _literal_loc(home))
        else:
            src.add(piece, t.loc, exact=False)
    return src


def from_define(name: str, macros: dict) -> LocatedText:
    """-rootsig-define NAME / -T rootsig_1_x -E NAME: the string the macro expands to."""
    mac = macros.get(name)
    if mac is None:
        raise error(f"root signature macro '{name}' is not defined")
    strings = _macro_strings(name, macros)
    if strings is None:
        raise error(f"root signature macro '{name}' must expand to a string literal", mac.loc)
    return from_tokens(strings, macros)


def has_root_signature(tu: ast.TranslationUnit, options) -> bool:
    """Cheap (imports nothing): whether the entry point has a root signature to compile."""
    return bool(options.rootsig_define) or find_entry_attribute(tu, options.entry) is not None


def find_entry_attribute(tu: ast.TranslationUnit, entry: str) -> ast.Attribute | None:
    for d in tu.decls:
        if isinstance(d, ast.FuncDecl) and d.name == entry:
            for a in d.attributes:
                if a.name == "RootSignature":
                    return a
    return None


def attribute_text(attr: ast.Attribute, macros: dict) -> LocatedText:
    arg = attr.args[0]
    if not isinstance(arg, ast.StringLit):
        raise error("the RootSignature attribute takes a string literal", arg.loc)
    return from_tokens(arg.tokens, macros) if arg.tokens else _plain(arg)


def _plain(lit: ast.StringLit) -> LocatedText:
    from .parser import LocatedText

    src = LocatedText("")
    src.add(lit.value, SourceLoc(lit.loc.file, lit.loc.line, lit.loc.col + 1))
    return src
