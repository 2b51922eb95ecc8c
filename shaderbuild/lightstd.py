"""`lru_cache`, `cache`, `Counter` and the `operator` getters without importing `functools`,
`collections` or `operator`; a `ContextVar` that loads `contextvars` when first set.

Those modules (with `keyword`, `reprlib` and the classes they define) cost a cold `shaderbuild
compile` ~11 M instructions, ~6% of it (issue 23), for helpers that CPython implements in C modules
built into the interpreter: functools.lru_cache's wrapper (`_functools`), the counting loop of
collections.Counter (`_collections`) and operator's getters (`_operator`).  This module uses those,
as the standard library does, and falls back to the standard modules on an interpreter without
them.  `contextvars` is a C extension (~1 M instructions and a shared library to load) that a compile
needs only while lowering a `WithStatus` read.  Type checkers see the standard classes and functions.
"""

from __future__ import annotations

__all__ = ["ContextVar", "Counter", "attrgetter", "cache", "itemgetter", "lru_cache", "not_"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections import Counter
    from contextvars import ContextVar
    from functools import cache, lru_cache
    from operator import attrgetter, itemgetter, not_
else:
    class ContextVar:
        """contextvars.ContextVar(name, default=None) whose variable is made on the first `set`: until
        then every context reads None.  `dict.setdefault` gives all threads the same variable."""

        __slots__ = ("name", "var")
        _made: dict = {}

        def __init__(self, name, *, default=None):
            assert default is None
            self.name = name
            self.var = None

        def get(self):
            var = self.var
            return None if var is None else var.get()

        def set(self, value):
            var = self.var
            if var is None:
                import contextvars

                var = self.var = ContextVar._made.setdefault(self, contextvars.ContextVar(self.name, default=None))
            return var.set(value)

        def reset(self, token):
            self.var.reset(token)

    try:
        from _collections import _count_elements
        from _functools import _lru_cache_wrapper
        from _operator import attrgetter, itemgetter, not_
    except ImportError:        # not CPython: the standard modules
        from collections import Counter
        from functools import cache, lru_cache
        from operator import attrgetter, itemgetter, not_
    else:
        def _cache_info(hits, misses, maxsize, currsize):
            """cache_info(): functools' CacheInfo fields, as a plain tuple."""
            return (hits, misses, maxsize, currsize)

        def lru_cache(maxsize=128):
            """functools.lru_cache(maxsize) (positional arguments as in this code; `typed` off)."""
            def decorate(function):
                wrapper = _lru_cache_wrapper(function, maxsize, False, _cache_info)
                for name in ("__module__", "__name__", "__qualname__", "__doc__"):
                    setattr(wrapper, name, getattr(function, name))
                wrapper.__wrapped__ = function
                return wrapper
            return decorate

        def cache(function):
            """functools.cache: unbounded."""
            return lru_cache(None)(function)

        class Counter(dict):
            """The part of collections.Counter used here: counts of the items of an iterable (`update`
            adds more), 0 for an item never counted."""

            __slots__ = ()

            def __init__(self, items=()):
                _count_elements(self, items)

            def update(self, items):
                _count_elements(self, items)

            def __missing__(self, key):
                return 0
