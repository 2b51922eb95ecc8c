"""Small per-user cache files (JSON data) under $XDG_CACHE_HOME/shaderbuild or ~/.cache/shaderbuild.

Used for what a cold `shaderbuild compile` would otherwise recompute in every process:
entry-point discovery (plugin/discovery_cache.py).  Only plain data is stored, never
code: anyone who can write this directory must not be able to run code in a compile,
so a file is parsed as JSON and its reader validates the shape.  A file is named with
the interpreter's cache tag, like __pycache__ files; a missing, unreadable, corrupt or
foreign file reads as None, and failures to write are ignored (a read-only home just
means no cache).
"""

from __future__ import annotations

import os
import sys

FORMAT = 2      # 1 was a marshal file (it also held record __init__ code; no longer written or read)


def path_of(name: str) -> str:
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):            # unset, or relative (which the XDG spec says to ignore)
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "shaderbuild", f"{name}-{sys.implementation.cache_tag}.json")


def load(name: str) -> object | None:
    """The data saved under `name`, or None; the caller checks its shape."""
    import json

    try:
        with open(path_of(name), "rb") as f:
            data = json.loads(f.read())
    except (OSError, ValueError, RecursionError):     # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return None
    if isinstance(data, dict) and data.get("format") == FORMAT and "data" in data:
        return data["data"]
    return None


def save(name: str, data: object) -> None:
    import json

    path = path_of(name)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        text = json.dumps({"format": FORMAT, "data": data}, separators=(",", ":"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except (OSError, ValueError, TypeError):   # TypeError/ValueError: not plain data
        try:
            os.unlink(tmp)
        except OSError:
            pass
