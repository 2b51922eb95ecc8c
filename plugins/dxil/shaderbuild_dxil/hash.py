"""MD5 and the DXIL "retail" container hash (hlsl-specs INF-0004, Appendix 1).

The retail hash is MD5 with a different final block: the message bit length
goes into the *first* dword and `1 | (byteCount << 1)` into the last one.
hashlib cannot do that, so the block function is implemented here and the
plain-MD5 path exists to test it against hashlib.
"""

from __future__ import annotations

import math
import struct

__all__ = ["md5", "retail_hash", "container_hash"]

_K = [int(abs(math.sin(i + 1)) * 2**32) & 0xFFFFFFFF for i in range(64)]
_S = [7, 12, 17, 22] * 4 + [5, 9, 14, 20] * 4 + [4, 11, 16, 23] * 4 + [6, 10, 15, 21] * 4
_IDX = [i for i in range(16)] + [(5 * i + 1) % 16 for i in range(16)] + \
       [(3 * i + 5) % 16 for i in range(16)] + [(7 * i) % 16 for i in range(16)]
_MASK = 0xFFFFFFFF
_INIT = (0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476)


def _block(state: list[int], x: tuple[int, ...]) -> None:
    a, b, c, d = state
    for i in range(64):
        r = i >> 4
        if r == 0:
            f = (b & c) | (~b & d)
        elif r == 1:
            f = (b & d) | (c & ~d)
        elif r == 2:
            f = b ^ c ^ d
        else:
            f = c ^ (b | (~d & _MASK))
        t = (a + (f & _MASK) + x[_IDX[i]] + _K[i]) & _MASK
        a, d, c = d, c, b
        b = (b + ((t << _S[i]) | (t >> (32 - _S[i])))) & _MASK
    state[0] = (state[0] + a) & _MASK
    state[1] = (state[1] + b) & _MASK
    state[2] = (state[2] + c) & _MASK
    state[3] = (state[3] + d) & _MASK


def _digest(data: bytes, retail: bool) -> bytes:
    n = len(data)
    state = list(_INIT)
    full = n & ~63
    for off in range(0, full, 64):
        _block(state, struct.unpack_from("<16I", data, off))
    tail = data[full:]
    bits = (n << 3) & _MASK
    if not retail:
        pad = tail + b"\x80" + bytes((55 - len(tail)) % 64) + struct.pack("<Q", (n << 3) & (2**64 - 1))
        for off in range(0, len(pad), 64):
            _block(state, struct.unpack_from("<16I", pad, off))
    elif len(tail) < 56:
        last = struct.pack("<I", bits) + tail + b"\x80" + bytes(55 - len(tail)) + struct.pack("<I", (1 | (n << 1)) & _MASK)
        _block(state, struct.unpack("<16I", last))
    else:
        first = tail + b"\x80" + bytes(63 - len(tail))
        _block(state, struct.unpack("<16I", first))
        last = struct.pack("<I", bits) + bytes(56) + struct.pack("<I", (1 | (n << 1)) & _MASK)
        _block(state, struct.unpack("<16I", last))
    return struct.pack("<4I", *state)


def md5(data: bytes) -> bytes:
    """Plain RFC 1321 MD5 (equals hashlib.md5; kept to test the block function)."""
    return _digest(data, retail=False)


def retail_hash(data: bytes) -> bytes:
    """The validator's retail hash of `data`."""
    return _digest(data, retail=True)


def container_hash(container: bytes) -> bytes:
    """Retail hash of a DXBC container: everything after the 16-byte digest field (offset 20)."""
    return retail_hash(container[20:])
