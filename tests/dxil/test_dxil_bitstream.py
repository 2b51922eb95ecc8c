"""The bit writer: field packing, VBR, char6, blobs, abbreviations, blocks."""

from __future__ import annotations

import pytest
from shaderbuild_dxil.bitstream import (
    Abbrev,
    BitstreamWriter,
    BlockCache,
    RecordCache,
    array,
    blob,
    char6,
    fixed,
    lit,
    vbr,
)


class BitReader:
    """A minimal LSB-first reader, written independently for these tests."""

    def __init__(self, data: bytes) -> None:
        self.value = int.from_bytes(data, "little")
        self.pos = 0
        self.size = len(data) * 8

    def read(self, n: int) -> int:
        v = (self.value >> self.pos) & ((1 << n) - 1)
        self.pos += n
        return v

    def vbr(self, n: int) -> int:
        out, shift = 0, 0
        while True:
            chunk = self.read(n)
            out |= (chunk & ((1 << (n - 1)) - 1)) << shift
            shift += n - 1
            if not chunk >> (n - 1):
                return out

    def align32(self) -> None:
        self.pos = (self.pos + 31) // 32 * 32


def test_fixed_fields_pack_lsb_first_and_pad_to_words():
    w = BitstreamWriter()
    w.emit(0b101, 3)
    w.emit(0xAB, 8)
    data = w.data()
    assert len(data) == 4
    assert int.from_bytes(data, "little") == 0b101 | 0xAB << 3


@pytest.mark.parametrize("value, width", [(0, 6), (31, 6), (32, 6), (1000, 6), (2**40 + 5, 8), (2**64 - 1, 6)])
def test_vbr_round_trip(value, width):
    w = BitstreamWriter()
    w.emit_vbr(value, width)
    assert BitReader(w.data()).vbr(width) == value


def test_vbr_chunking_is_exact():
    w = BitstreamWriter()
    w.emit_vbr(100, 6)          # 100 = 0b1100100 -> chunks 00100|cont, 00011
    assert int.from_bytes(w.data(), "little") == (0b100100) | (0b000011 << 6)


def test_block_length_is_backpatched_in_words():
    w = BitstreamWriter()
    w.enter_block(8, 3)
    w.emit_record(1, [7, 8, 9])
    w.exit_block()
    r = BitReader(w.data())
    assert r.read(2) == 1            # ENTER_SUBBLOCK with the initial 2-bit width
    assert r.vbr(8) == 8 and r.vbr(4) == 3
    r.align32()
    nwords = r.read(32)
    assert nwords * 4 == len(w.data()) - 8
    assert r.read(3) == 3            # UNABBREV_RECORD
    assert [r.vbr(6) for _ in range(5)] == [1, 3, 7, 8, 9]
    assert r.read(3) == 0            # END_BLOCK


def test_abbreviated_record_with_literal_array_and_char6():
    w = BitstreamWriter()
    w.enter_block(14, 4)
    aid = w.define_abbrev(Abbrev((lit(1), vbr(8), array(), char6())))
    assert aid == 4
    w.emit_record(1, [5, *b"ab.9"], aid)
    w.exit_block()
    r = BitReader(w.data())
    r.read(2), r.vbr(8), r.vbr(4)
    r.align32()
    r.read(32)
    assert r.read(4) == 2                            # DEFINE_ABBREV
    assert r.vbr(5) == 4
    assert (r.read(1), r.vbr(8)) == (1, 1)           # literal 1
    assert (r.read(1), r.read(3), r.vbr(5)) == (0, 2, 8)
    assert (r.read(1), r.read(3)) == (0, 3)          # array
    assert (r.read(1), r.read(3)) == (0, 4)          # char6
    assert r.read(4) == 4                            # the record, abbreviated
    assert r.vbr(8) == 5 and r.vbr(6) == 4
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._"
    assert "".join(alphabet[r.read(6)] for _ in range(4)) == "ab.9"


def test_blob_is_word_aligned():
    w = BitstreamWriter()
    w.enter_block(20, 3)
    aid = w.define_abbrev(Abbrev((lit(7), blob())))
    w.emit_record(7, list(b"xyz"), aid)
    w.exit_block()
    assert b"xyz\0" in w.data()


def test_fixed_field_overflow_is_rejected():
    w = BitstreamWriter()
    w.enter_block(9, 3)
    aid = w.define_abbrev(Abbrev((lit(1), fixed(3))))
    with pytest.raises(ValueError):
        w.emit_record(1, [8], aid)


def test_blockinfo_abbrevs_apply_to_later_blocks():
    w = BitstreamWriter()
    w.enter_blockinfo()
    assert w.blockinfo_abbrev(11, Abbrev((lit(4), vbr(8)))) == 4
    w.exit_block()
    w.enter_block(11, 4)
    w.emit_record(4, [300], 4)                       # would raise if abbrev 4 were unknown here
    w.exit_block()
    with pytest.raises(IndexError):
        w.enter_block(12, 4)
        w.emit_record(4, [1], 4)


def _block_body(w: BitstreamWriter) -> None:
    aid = w.define_abbrev(Abbrev((lit(2), fixed(5), array(), vbr(6))))
    w.emit_record(2, [17, 1, 40, 1000], aid)
    w.emit_record(9, [3, 2**33])


@pytest.mark.parametrize("lead_bits", [0, 1, 7, 31, 45])
def test_cached_block_is_position_free(lead_bits):
    """A block copied from the cache equals the block written afresh, wherever it starts."""
    cache = BlockCache()
    warm = BitstreamWriter()
    warm.emit(0, 13)                        # fill the cache at another bit offset first
    warm.block_cached(14, 4, cache, "k", lambda: _block_body(warm))
    outs = []
    for c in (cache, BlockCache()):         # warm copy, then a cold write
        w = BitstreamWriter()
        w.emit((1 << lead_bits) - 1, lead_bits)
        w.enter_block(8, 3)
        w.emit_record(1, [5])
        w.block_cached(14, 4, c, "k", lambda w=w: _block_body(w))
        w.exit_block()
        outs.append(w.data())
    assert outs[0] == outs[1]
    plain = BitstreamWriter()               # and both equal the uncached writer's output
    plain.emit((1 << lead_bits) - 1, lead_bits)
    plain.enter_block(8, 3)
    plain.emit_record(1, [5])
    plain.enter_block(14, 4)
    _block_body(plain)
    plain.exit_block()
    plain.exit_block()
    assert outs[0] == plain.data()


def test_cached_record_equals_the_record():
    cache = RecordCache()
    for width in (3, 4, 3):                 # the abbreviation width is part of the key
        a, b = BitstreamWriter(), BitstreamWriter()
        for w in (a, b):
            w.enter_block(15, width)
            w.emit(1, 1)                    # an odd start
        a.emit_record_cached(cache, 4, b"dx.version")
        b.emit_record(4, list(b"dx.version"))
        for w in (a, b):
            w.exit_block()
        assert a.data() == b.data()


def test_vbr_digit_tables_stay_bounded_and_encode_large_values():
    """Values past the table's range are composed from their high part and their low chunks
    (bitstream._VbrDigits); each must equal the VBR encoding written out chunk by chunk here."""
    import random

    from shaderbuild_dxil.bitstream import _VbrDigits

    def vbr_digits(value: int, width: int) -> str:
        chunks = []
        while True:
            low = value & ((1 << (width - 1)) - 1)
            value >>= width - 1
            chunks.append(format(low | ((1 << (width - 1)) if value else 0), f"0{width}b"))
            if not value:
                return "".join(reversed(chunks))     # the last chunk written holds the highest bits

    rng = random.Random(23)
    for width in (3, 4, 6, 8, 16):
        table = _VbrDigits(width)
        values = [0, 1, (1 << 15) - 1, 1 << 15, (1 << 15) + 1, 1 << 30] + [rng.getrandbits(rng.randint(1, 40))
                                                                             for _ in range(3000)]
        for v in values:
            assert table[v] == vbr_digits(v, width), (width, v)
        assert len(table) <= 1 << 15 and len(table.continued) <= 1 << 15
