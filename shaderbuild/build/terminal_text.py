"""Text from the cache or a remote worker is data, not terminal commands.

A cache entry's messages and diagnostics were produced on another machine (or forged by
anyone with write access to the store) and are printed to the developer's terminal.  C0
and C1 control characters other than newline and tab (ESC, CSI, BEL, backspace, CR, ...)
could rewrite the screen, set the window title or hide lines, so they are shown escaped.
"""

from __future__ import annotations

import re

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _escape(m: re.Match) -> str:
    return f"\\x{ord(m.group()):02x}"


def sanitize(text: str) -> str:
    """`text` with every control character except \\n and \\t written as \\xNN."""
    return _CONTROL.sub(_escape, text) if _CONTROL.search(text) else text


def sanitize_value(value):
    """Every string inside a JSON-shaped value (diagnostic dicts and lists), sanitised."""
    if isinstance(value, str):
        return sanitize(value)
    if isinstance(value, list):
        return [sanitize_value(v) for v in value]
    if isinstance(value, dict):
        return {sanitize(k) if isinstance(k, str) else k: sanitize_value(v) for k, v in value.items()}
    return value
