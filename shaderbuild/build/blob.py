"""Permutation blobs: every permutation of one shader entry for one backend in one file.

Format (all integers little-endian uint32)::

    offset 0   magic  b"SBLB"
    offset 4   version (1)
    offset 8   count N
    offset 12  N index rows: key_offset, key_size, data_offset, data_size
               (offsets from the start of the file; rows sorted by key)
    then       the keys (UTF-8) and the data; each data block starts 4-byte aligned

A key is the permutation's defines, sorted by name, as ``NAME=value`` joined by
single spaces (ShaderMake's convention); the permutation without defines has
the empty key.  `find` sorts the defines it is given, so order never matters.
This module is also the reference reader: it needs nothing but the standard
library and can be copied into an engine's tooling.
"""

from __future__ import annotations

import struct

MAGIC = b"SBLB"
VERSION = 1
_HEAD = struct.Struct("<4sII")
_ROW = struct.Struct("<IIII")


def pack(entries: dict[str, bytes]) -> bytes:
    """Build a blob from {key: bytes}; the layout depends only on the contents."""
    keys = sorted(entries)
    encoded = [k.encode("utf-8") for k in keys]
    pos = _HEAD.size + _ROW.size * len(keys)
    rows, chunks = [], []
    for kb, key in zip(encoded, keys):
        key_off = pos
        chunks.append(kb)
        pos += len(kb)
        pad = (-pos) % 4
        chunks.append(b"\0" * pad)
        pos += pad
        data = entries[key]
        rows.append(_ROW.pack(key_off, len(kb), pos, len(data)))
        chunks.append(data)
        pos += len(data)
    return _HEAD.pack(MAGIC, VERSION, len(keys)) + b"".join(rows) + b"".join(chunks)


def read(data: bytes | str) -> dict[str, bytes]:
    """Parse a blob (bytes, or a path to one) into {key: bytes}; raises ValueError if malformed."""
    if isinstance(data, str):
        with open(data, "rb") as f:
            data = f.read()
    if len(data) < _HEAD.size:
        raise ValueError("not a shaderbuild blob: too short")
    magic, version, count = _HEAD.unpack_from(data, 0)
    if magic != MAGIC:
        raise ValueError("not a shaderbuild blob: bad magic")
    if version != VERSION:
        raise ValueError(f"unsupported blob version {version}")
    if _HEAD.size + count * _ROW.size > len(data):
        raise ValueError("truncated blob index")
    out = {}
    for i in range(count):
        key_off, key_size, data_off, data_size = _ROW.unpack_from(data, _HEAD.size + i * _ROW.size)
        if key_off + key_size > len(data) or data_off + data_size > len(data):
            raise ValueError(f"blob entry {i} points past the end of the file")
        out[data[key_off:key_off + key_size].decode("utf-8")] = bytes(data[data_off:data_off + data_size])
    return out


def key_of(defines: dict[str, object] | str) -> str:
    """Canonical key for a define set ({'MODE': 1} or 'MODE=1 FOG=0')."""
    if isinstance(defines, str):
        pairs = [t.split("=", 1) if "=" in t else [t, ""] for t in defines.split()]
        return " ".join(f"{k}={v}" for k, v in sorted(dict(pairs).items()))
    return " ".join(f"{k}={defines[k]}" for k in sorted(defines))


def find(blob: dict[str, bytes], defines: dict[str, object] | str) -> bytes:
    """The binary for a permutation; KeyError lists the available keys when it is missing."""
    key = key_of(defines)
    try:
        return blob[key]
    except KeyError:
        raise KeyError(f"permutation '{key}' not in blob; available: {sorted(blob)}") from None
