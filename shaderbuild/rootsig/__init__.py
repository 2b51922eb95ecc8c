"""Root signatures: the HLSL string grammar (parser), the model, the RTS0 serializer,
the printer, DXC's validation, the manifest view and the derivation of a minimal one.

Nothing is imported until used (PEP 562): every compile imports this package for the
`rootsig_1_x` profile names, and most shaders have no root signature."""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_EXPORTS = {"RootSignature": "model", "LocatedText": "parser", "parse": "parser", "to_string": "printer",
            "serialize": "rts0", "standalone_container": "rts0"}

__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    full = f"{__name__}.{module}"
    __import__(full)          # not importlib.import_module: the importlib package costs a cold start ~0.3 ms
    return getattr(sys.modules[full], name)
