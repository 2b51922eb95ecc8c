"""Import pluggy without paying for importlib.metadata.

pluggy imports importlib.metadata at module level but only uses it in
`load_setuptools_entrypoints`, which we do not call (see discovery.py).  Loading
importlib.metadata through importlib.util.LazyLoader defers its execution until
an attribute is first used, which saves ~20 ms on every cold start.
"""

from __future__ import annotations

import importlib.util
import sys


def _lazy(name: str) -> None:
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        return
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent:                      # `import a.b` also binds b as an attribute of a
        setattr(sys.modules[parent], child, module)
    loader.exec_module(module)


def import_pluggy():
    _lazy("importlib.metadata")
    import pluggy

    return pluggy
