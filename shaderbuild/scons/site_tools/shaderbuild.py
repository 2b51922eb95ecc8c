"""SCons toolpath entry for ``env.Tool("shaderbuild", toolpath=[shaderbuild.scons.toolpath()])``.

SCons imports a toolpath module under the tool's name, here "shaderbuild",
which replaces the shaderbuild package in sys.modules; restore it first.
Copy this file into ``site_scons/site_tools/`` to make the tool load by name
alone.
"""

import os
import sys

if __name__ == "shaderbuild":
    sys.modules.pop(__name__, None)
    _package = getattr(sys.modules.get("shaderbuild.scons"), "PACKAGE", None)
    if _package is not None:
        sys.modules["shaderbuild"] = _package
    else:   # SCons put the toolpath first on sys.path: hide it while importing the real package
        _here = os.path.dirname(os.path.abspath(__file__))
        _saved = sys.path[:]
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
        try:
            import shaderbuild.scons  # noqa: F401
        finally:
            sys.path[:] = _saved

from shaderbuild.scons import exists, generate  # noqa: E402

__all__ = ["exists", "generate"]
