"""The permutation blob format and its reader."""

from __future__ import annotations

import struct

import pytest

from shaderbuild.build import blob


def test_round_trip_sorted_and_aligned():
    entries = {"MODE=1 FOG=0": b"\x01\x02\x03", "": b"base", "MODE=0": b"\x07" * 9}
    data = blob.pack(entries)
    assert data[:4] == b"SBLB"
    assert blob.read(data) == entries
    magic, version, count = struct.unpack_from("<4sII", data)
    rows = [struct.unpack_from("<IIII", data, 12 + 16 * i) for i in range(count)]
    keys = [data[ko:ko + ks].decode() for ko, ks, _, _ in rows]
    assert (version, count, keys) == (1, 3, sorted(entries))
    assert all(do % 4 == 0 for _, _, do, _ in rows)


def test_pack_is_deterministic_regardless_of_insertion_order():
    a = {"B=1": b"x", "A=1": b"yy"}
    assert blob.pack(a) == blob.pack(dict(reversed(list(a.items()))))


def test_find_ignores_define_order():
    b = {"FOG=1 MODE=2": b"bytes"}
    assert blob.find(b, {"MODE": 2, "FOG": 1}) == b"bytes"
    assert blob.find(b, "MODE=2 FOG=1") == b"bytes"
    with pytest.raises(KeyError, match=r"permutation 'MODE=3' not in blob; available: \['FOG=1 MODE=2'\]"):
        blob.find(b, {"MODE": 3})


@pytest.mark.parametrize("data, message", [
    (b"SBL", "too short"),
    (b"NVSP" + bytes(8), "bad magic"),
    (struct.pack("<4sII", b"SBLB", 2, 0), "unsupported blob version 2"),
    (struct.pack("<4sII", b"SBLB", 1, 5), "truncated blob index"),
    (struct.pack("<4sII", b"SBLB", 1, 1) + struct.pack("<IIII", 28, 1, 28, 100) + b"k", "points past the end"),
])
def test_malformed_blobs_are_rejected(data, message):
    with pytest.raises(ValueError, match=message):
        blob.read(data)


def test_read_from_path(tmp_path):
    p = tmp_path / "x.blob"
    p.write_bytes(blob.pack({"A=1": b"\0" * 5}))
    assert blob.read(str(p)) == {"A=1": b"\0" * 5}
