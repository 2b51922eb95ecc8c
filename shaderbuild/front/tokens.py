"""The token type shared by the lexer, the preprocessor and the parser."""

from __future__ import annotations

from ..diagnostics import SourceLoc
from ..records import Constant, DataRecord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import ClassVar


class TokKind(Constant):
    """What a token is (`records.Constant`: no `enum` on the compile path)."""

    __slots__ = ()
    IDENT: ClassVar[TokKind]
    INT: ClassVar[TokKind]
    FLOAT: ClassVar[TokKind]
    STRING: ClassVar[TokKind]
    CHAR: ClassVar[TokKind]
    PUNCT: ClassVar[TokKind]
    EOF: ClassVar[TokKind]


TokKind.define(IDENT="identifier", INT="integer literal", FLOAT="floating literal", STRING="string literal",
               CHAR="character literal", PUNCT="punctuator", EOF="end of file")


class Token(DataRecord):
    """A preprocessed token.

    `loc` is where the token's spelling came from (the file it was read from, or
    for a macro expansion the place of the macro use); `expansion` names the macro
    whose expansion produced it, for "in expansion of macro" notes.

    Slotted, so no field has a default (a slot cannot have one): a Record's fields otherwise
    live in an instance dict, and the tokens of a 5,700-line shader took 2.1 MB more (issue 23).
    """

    __slots__ = ("kind", "text", "loc", "expansion", "leading_space", "at_line_start")

    kind: TokKind
    text: str
    loc: SourceLoc
    expansion: tuple[str, SourceLoc | None] | None   # (macro, its definition; None for built-ins)
    leading_space: bool  # whitespace precedes it (for # stringizing)
    at_line_start: bool  # first token on its line (for directive detection)

    def is_punct(self, text: str) -> bool:
        return self.kind is TokKind.PUNCT and self.text == text

    def __repr__(self) -> str:
        return f"Token({self.kind.name}, {self.text!r}, {self.loc})"
