"""Root signatures: the HLSL string grammar (parser), the model, the RTS0 serializer,
the printer, DXC's validation, the manifest view and the derivation of a minimal one."""

from __future__ import annotations

from .model import RootSignature
from .parser import LocatedText, parse
from .printer import to_string
from .serialize import serialize, standalone_container

__all__ = ["RootSignature", "LocatedText", "parse", "to_string", "serialize", "standalone_container"]
