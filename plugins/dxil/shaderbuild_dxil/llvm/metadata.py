"""LLVM metadata: strings, tuples (MDNode), constants as metadata, named metadata."""

from __future__ import annotations

from .values import Constant

__all__ = ["Metadata", "MDString", "MDNode", "MDValue", "NamedMD"]


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
