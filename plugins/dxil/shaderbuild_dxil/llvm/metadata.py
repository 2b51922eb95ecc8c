"""LLVM metadata: strings, tuples (MDNode), constants as metadata, named metadata."""

from __future__ import annotations

from .types import IntType
from .values import Constant, ConstInt

__all__ = ["Metadata", "MDString", "MDNode", "MDValue", "NamedMD", "md_int"]


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

    def __init__(self, ops: list[Metadata | None]) -> None:
        self.ops = list(ops)


class NamedMD:
    __slots__ = ("name", "nodes")

    def __init__(self, name: str, nodes: list[MDNode]) -> None:
        self.name = name
        self.nodes = list(nodes)


_MD_INTS: dict[tuple[IntType, int], MDValue] = {}
_MD_INTS_LIMIT = 4096


def md_int(t: IntType, value: int) -> MDValue:
    """The integer `value` of type `t` as metadata, one shared object per (type, value): dx.*
    metadata is mostly small integers that recur in every module (ids, counts, registers,
    tags), and the writer numbers a shared object once per module, by identity.  Never mutate
    the result.  Bounded (emptied when full) for long-lived processes."""
    key = (t, value)
    md = _MD_INTS.get(key)
    if md is None:
        if len(_MD_INTS) >= _MD_INTS_LIMIT:
            _MD_INTS.clear()
        md = _MD_INTS[key] = MDValue(ConstInt(t, value))
    return md
