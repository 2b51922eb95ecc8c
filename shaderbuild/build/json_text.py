"""Indented JSON as `json.dumps(obj, indent=N, sort_keys=True)` writes it, byte for byte, faster.

`indent=` makes the json module use its pure-Python generator encoder (its C encoder writes no
indentation): index.json, programs.json and every manifest a build writes cost more to encode
than the rest of a small rebuild's bookkeeping.  This writer recurses over plain data with
the C string escaper; anything else (a key that is not a string, an object of another type,
a float that is not finite) goes to json.dumps itself, so the bytes never differ
(tests/build/test_build_json_text.py compares the two on generated documents).
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii as _string  # (the C escaper when available)


class _Other(Exception):
    """A value this writer leaves to json.dumps."""


def dumps(obj, indent: int) -> str:
    """json.dumps(obj, indent=indent, sort_keys=True)."""
    out: list[str] = []
    try:
        _write(obj, out, "\n", " " * indent)
    except (_Other, RecursionError):
        return json.dumps(obj, indent=indent, sort_keys=True)
    return "".join(out)


def _write(o, out: list[str], nl: str, step: str) -> None:
    t = type(o)
    if t is str:
        out.append(_string(o))
    elif t is dict:
        if not o:
            out.append("{}")
            return
        inner = nl + step
        sep = "{" + inner
        try:
            keys = sorted(o)
        except TypeError:
            raise _Other from None
        for k in keys:
            if type(k) is not str:
                raise _Other
            out.append(sep)
            out.append(_string(k))
            out.append(": ")
            _write(o[k], out, inner, step)
            sep = "," + inner
        out.append(nl + "}")
    elif t is list or t is tuple:
        if not o:
            out.append("[]")
            return
        inner = nl + step
        sep = "[" + inner
        for v in o:
            out.append(sep)
            _write(v, out, inner, step)
            sep = "," + inner
        out.append(nl + "]")
    elif o is None:
        out.append("null")
    elif o is True:
        out.append("true")
    elif o is False:
        out.append("false")
    elif t is int:
        out.append(int.__repr__(o))
    elif t is float and o == o and o not in (float("inf"), float("-inf")):
        out.append(float.__repr__(o))
    else:
        raise _Other
