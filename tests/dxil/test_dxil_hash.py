"""MD5 and the retail container hash (INF-0004): the block function is checked
against hashlib; the retail final block is rebuilt here from the spec's prose."""

from __future__ import annotations

import hashlib
import struct

import pytest
from shaderbuild_dxil import hash as dxhash


@pytest.mark.parametrize("n", [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 1000])
def test_md5_matches_hashlib(n):
    data = bytes((i * 37 + 11) & 0xFF for i in range(n))
    assert dxhash.md5(data) == hashlib.md5(data).digest()


def _retail_reference(data: bytes) -> bytes:
    """The spec's description, spelled out independently: MD5 blocks over the full
    64-byte chunks; then the tail; the final block starts with the bit count and
    ends with 1 | (n << 1) instead of the 64-bit length."""
    n = len(data)
    state = list(dxhash._INIT)
    full = n - n % 64
    for off in range(0, full, 64):
        dxhash._block(state, struct.unpack_from("<16I", data, off))
    tail = data[full:]
    pad = b"\x80" + bytes(63)
    if len(tail) < 56:
        block = struct.pack("<I", n * 8 & 0xFFFFFFFF) + tail + pad[:56 - len(tail)] + struct.pack("<I", 1 | n << 1)
        blocks = [block]
    else:
        first = tail + pad[:64 - len(tail)]
        last = struct.pack("<I", n * 8) + bytes(56) + struct.pack("<I", 1 | n << 1)
        blocks = [first, last]
    for blk in blocks:
        assert len(blk) == 64
        dxhash._block(state, struct.unpack("<16I", blk))
    return struct.pack("<4I", *state)


@pytest.mark.parametrize("n", [0, 3, 52, 55, 56, 60, 63, 64, 100, 190])
def test_retail_hash_final_block_layout(n):
    data = bytes((i * 13 + 1) & 0xFF for i in range(n))
    assert dxhash.retail_hash(data) == _retail_reference(data)
    assert dxhash.retail_hash(data) != dxhash.md5(data)


def test_container_hash_covers_bytes_after_digest():
    blob = b"DXBC" + bytes(16) + b"\x01\x00\x00\x00payload"
    h = dxhash.container_hash(blob)
    assert h == dxhash.retail_hash(blob[20:])
    assert dxhash.container_hash(b"DXBC" + b"\xff" * 16 + blob[20:]) == h     # digest bytes are excluded


def test_sentinels():
    from shaderbuild_dxil.container import BYPASS_HASH, PREVIEW_HASH
    assert BYPASS_HASH == b"\x01" * 16 and PREVIEW_HASH == b"\x02" * 16
