"""LLVM metadata: strings, tuples (MDNode), constants as metadata, named metadata."""

from __future__ import annotations

from .types import IntType
from .values import Constant, ConstInt

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["Metadata", "MDString", "MDNode", "MDValue", "DINode", "NamedMD", "md_int", "md_ints"]


class Metadata:
    __slots__ = ()


class MDString(Metadata):
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class MDValue(Metadata):
    """A constant (or global) used as metadata (ValueAsMetadata)."""

    __slots__ = ("value",)

    def __init__(self, value: Constant) -> None:
        self.value = value


class MDNode(Metadata):
    """A metadata tuple; operands are Metadata or None (null)."""

    __slots__ = ("ops",)

    def __init__(self, ops: Sequence[Metadata | None]) -> None:
        self.ops = list(ops)


class DINode(Metadata):
    """A specialised debug-info node (DIFile, DICompileUnit, DISubprogram, DILocation, ...):
    written as the METADATA_* record `code` (LLVM 3.7 layouts) with the distinct flag first;
    operands are literal integers, Metadata (written as its id + 1) or None (0).  The operands
    at the indexes in `required` are metadata the reader takes as a plain id (DILocation's scope).
    An `early` node is numbered before its operands, so they may refer back to it (a subprogram
    and its variables); the reader resolves such forward references."""

    __slots__ = ("code", "ops", "distinct", "required", "early")

    def __init__(self, code: int, ops: list[int | Metadata | None], distinct: bool = False,
                 required: tuple[int, ...] = (), early: bool = False) -> None:
        self.code = code
        self.ops = list(ops)
        self.distinct = distinct
        self.required = required
        self.early = early


class NamedMD:
    __slots__ = ("name", "nodes")

    def __init__(self, name: str, nodes: list[MDNode]) -> None:
        self.name = name
        self.nodes = list(nodes)


_MD_INTS_LIMIT = 4096


class _MDInts(dict):
    """value -> the shared MDValue of ConstInt(t, value), made on first use (bounded)."""

    def __init__(self, t: IntType) -> None:
        super().__init__()
        self.t = t

    def __missing__(self, value: int) -> MDValue:
        md = MDValue(ConstInt(self.t, value))
        if len(self) < _MD_INTS_LIMIT:
            self[value] = md
        return md


_MD_INTS: dict[IntType, _MDInts] = {}


def md_ints(t: IntType) -> dict[int, MDValue]:
    """The table of shared integer metadata of type `t` (see md_int): indexing it is one
    C-level lookup, for builders of many operands."""
    table = _MD_INTS.get(t)
    if table is None:
        table = _MD_INTS[t] = _MDInts(t)
    return table


def md_int(t: IntType, value: int) -> MDValue:
    """The integer `value` of type `t` as metadata, one shared object per (type, value): dx.*
    metadata is mostly small integers that recur in every module (ids, counts, registers,
    tags), and the writer numbers a shared object once per module, by identity.  Never mutate
    the result."""
    return md_ints(t)[value]
