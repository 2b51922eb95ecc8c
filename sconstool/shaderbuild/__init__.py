"""`sconstool.shaderbuild`: the shaderbuild SCons tool under the scons-tool-loader convention.

Tools installed with pip live in the `sconstool` namespace package; a SConstruct
runs ``import sconstool.loader; sconstool.loader.extend_toolpath()`` and then
asks for ``tools=["sconstool.shaderbuild"]`` (or, after
``extend_toolpath(transparent=True)``, for ``"shaderbuild"``).
"""

import os
import sys

if __name__ == "shaderbuild":   # transparent mode: SCons imported us under the package's own name
    sys.modules.pop(__name__, None)
    _package = getattr(sys.modules.get("shaderbuild.scons"), "PACKAGE", None)
    if _package is not None:
        sys.modules["shaderbuild"] = _package
    else:   # SCons put the toolpath first on sys.path: hide it while importing the real package
        _here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        _saved = sys.path[:]
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
        try:
            import shaderbuild.scons  # noqa: F401
        finally:
            sys.path[:] = _saved

from shaderbuild.scons import exists, generate  # noqa: E402

__all__ = ["exists", "generate"]
