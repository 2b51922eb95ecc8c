"""Small per-user cache files (marshal) under $XDG_CACHE_HOME/shaderbuild or ~/.cache/shaderbuild.

Used for what a cold `shaderbuild compile` would otherwise recompute in every process:
entry-point discovery (plugin/discovery_cache.py) and the generated __init__ code of
record classes (records.py).  A file is named with the interpreter's cache tag, like
__pycache__ files; a missing, unreadable or foreign file reads as None, and failures to
write are ignored (a read-only home just means no cache).
"""

from __future__ import annotations

import marshal
import os
import sys

FORMAT = 1


def path_of(name: str) -> str:
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):            # unset, or relative (which the XDG spec says to ignore)
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "shaderbuild", f"{name}-{sys.implementation.cache_tag}.marshal")


def load(name: str) -> dict | None:
    try:
        with open(path_of(name), "rb") as f:
            data = marshal.loads(f.read())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if isinstance(data, dict) and data.get("format") == FORMAT and isinstance(data.get("data"), dict):
        return data["data"]
    return None


def save(name: str, data: dict) -> None:
    path = path_of(name)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(marshal.dumps({"format": FORMAT, "data": data}))
        os.replace(tmp, path)
    except (OSError, ValueError):          # ValueError: an unmarshallable value
        try:
            os.unlink(tmp)
        except OSError:
            pass
