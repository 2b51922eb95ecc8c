"""shaderbuild.lightstd: functools.lru_cache / cache and collections.Counter as this code uses them,
without importing functools or collections (issue 23)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from shaderbuild.lightstd import Counter, cache, lru_cache


def test_lru_cache_calls_once_per_argument_and_keeps_the_name():
    calls = []

    @lru_cache(maxsize=2)
    def square(x: int) -> int:
        """Doc."""
        calls.append(x)
        return x * x

    assert [square(3), square(3), square(4), square(3)] == [9, 9, 16, 9]
    assert calls == [3, 4]
    square(5), square(6), square(3)         # maxsize 2: 3 was evicted
    assert calls == [3, 4, 5, 6, 3]
    assert (square.__name__, square.__doc__, square.__wrapped__(2)) == ("square", "Doc.", 4)
    assert tuple(square.cache_info()) == (2, 5, 2, 2)       # hits (3 twice), misses, maxsize, size

    @cache
    def pair(a: int, b: int = 0) -> tuple[int, int]:
        calls.append((a, b))
        return (a, b)

    assert pair(1, b=2) is pair(1, b=2) and calls[-1] == (1, 2) and calls.count((1, 2)) == 1


def test_counter_counts_and_defaults_to_zero():
    c = Counter("abca")
    c.update(["a", "z"])
    assert dict(c) == {"a": 3, "b": 1, "c": 1, "z": 1} and c["missing"] == 0 and "missing" not in c


def test_importing_it_imports_neither_functools_nor_collections():
    root = str(Path(__file__).resolve().parents[2])
    code = (f"import sys; sys.path.insert(0, {root!r}); import shaderbuild.lightstd; "
            "print(sorted({'functools', 'collections'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"


def test_context_var_is_made_on_first_set_and_is_per_thread():
    import threading

    from shaderbuild.lightstd import ContextVar

    v = ContextVar("v", default=None)
    assert v.get() is None
    token = v.set([1])
    seen = []
    t = threading.Thread(target=lambda: seen.append(v.get()))
    t.start()
    t.join()
    assert v.get() == [1] and seen == [None]        # another thread's context: the default
    v.reset(token)
    assert v.get() is None


def test_importing_it_does_not_load_contextvars():
    root = str(Path(__file__).resolve().parents[2])
    code = (f"import sys; sys.path.insert(0, {root!r}); import shaderbuild.lightstd as l; v = l.ContextVar('v'); "
            "v.get(); print('_contextvars' in sys.modules, 'contextvars' in sys.modules)")
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["False", "False"]
