"""Small per-user cache files (text data) under $XDG_CACHE_HOME/shaderbuild or ~/.cache/shaderbuild.

Used for what a cold `shaderbuild compile` would otherwise recompute in every process:
entry-point discovery (plugin/discovery_cache.py).  Only plain data is stored, never
code: anyone who can write this directory must not be able to run code in a compile,
so a file is read as text and its reader parses and validates every line (a line
format, not JSON: importing and running `json` would cost a cold compile ~1 ms).  A file
is named with the interpreter's cache tag, like __pycache__ files, and starts with a
header naming the format; a missing, unreadable or foreign file reads as None, and
failures to write are ignored (a read-only home just means no cache).
"""

from __future__ import annotations

import os
import sys

FORMAT = 3      # 1 was a marshal file (it also held record __init__ code), 2 JSON; neither is read now
_HEADER = f"shaderbuild-cache {FORMAT}\n"


def path_of(name: str) -> str:
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):            # unset, or relative (which the XDG spec says to ignore)
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "shaderbuild", f"{name}-{sys.implementation.cache_tag}.txt")


def load(name: str) -> str | None:
    """The text saved under `name` (without the header), or None; the caller parses it.  Bytes
    that are not UTF-8 (file names can hold such) read back as the surrogates they were saved from."""
    try:
        with open(path_of(name), encoding="utf-8", errors="surrogateescape", newline="") as f:
            text = f.read()
    except OSError:
        return None
    return text[len(_HEADER):] if text.startswith(_HEADER) else None


def save(name: str, text: str) -> None:
    """Write `text` under `name` atomically (a reader sees the old file or the new one)."""
    path = path_of(name)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
            f.write(_HEADER + text)
        os.replace(tmp, path)
    except (OSError, ValueError):   # ValueError: a string that cannot be encoded
        try:
            os.unlink(tmp)
        except OSError:
            pass
