"""Root signatures: the HLSL string grammar (parser), the model, the RTS0 serializer,
the printer, DXC's validation, the manifest view and the derivation of a minimal one.

Nothing is imported until used (PEP 562): every compile imports this package for the
`rootsig_1_x` profile names (ROOTSIG_PROFILES, here so that a shader's compile does not import
`standalone`), and most shaders have no root signature."""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# -T rootsig_1_x -E NAME (standalone.py): profile -> root signature version
ROOTSIG_PROFILES = {"rootsig_1_0": "1.0", "rootsig_1_1": "1.1"}

_EXPORTS = {"RootSignature": "model", "LocatedText": "parser", "parse": "parser", "to_string": "printer",
            "serialize": "rts0", "standalone_container": "rts0"}

__all__ = ["ROOTSIG_PROFILES", *_EXPORTS]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    full = f"{__name__}.{module}"
    __import__(full)          # not importlib.import_module: the importlib package costs a cold start ~0.3 ms
    return getattr(sys.modules[full], name)
