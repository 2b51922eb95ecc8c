"""LLVM bitstream writer: fixed/VBR fields, abbreviations, blocks, BLOCKINFO.

Bits are packed LSB-first into little-endian 32-bit words, as the LLVM
bitstream format requires.  Block lengths are back-patched on exit.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

__all__ = ["AbbrevOp", "Abbrev", "BitstreamWriter", "lit", "fixed", "vbr", "array", "char6", "blob",
           "BlockCache", "END_BLOCK", "ENTER_SUBBLOCK", "DEFINE_ABBREV", "UNABBREV_RECORD", "BLOCKINFO_BLOCK_ID"]

END_BLOCK, ENTER_SUBBLOCK, DEFINE_ABBREV, UNABBREV_RECORD = 0, 1, 2, 3
BLOCKINFO_BLOCK_ID = 0
_BLOCKINFO_SETBID = 1

_CHAR6 = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._"
_CHAR6_INDEX = {ord(c): i for i, c in enumerate(_CHAR6)}


def _vbr(value: int, width: int) -> tuple[int, int]:
    """(bits, bit count) of `value` as a VBR-`width` field."""
    if value < 0:
        raise ValueError("VBR fields are unsigned")
    threshold = 1 << (width - 1)
    if value < threshold:
        return value, width
    mask = threshold - 1
    acc = n = 0
    while value >= threshold:
        acc |= ((value & mask) | threshold) << n
        n += width
        value >>= width - 1
    return acc | value << n, n + width


# VBR-6 encodings of small values, precomputed: unabbreviated records are VBR-6 throughout
_VBR6 = [_vbr(v, 6) for v in range(1 << 12)]
_VBR_TABLES: dict[int, list[tuple[int, int]]] = {6: _VBR6}


@lru_cache(maxsize=1024)
def _vbr6_large(value: int) -> tuple[int, int]:
    """VBR-6 of values past the table (call records carry 1 << 15 for their explicit type)."""
    return _vbr(value, 6)


def _vbr_table(width: int) -> list[tuple[int, int]]:
    """Precomputed VBR-`width` encodings of 0..4095 (abbreviation operands use widths 4..8)."""
    t = _VBR_TABLES.get(width)
    if t is None:
        t = _VBR_TABLES[width] = [_vbr(v, width) for v in range(1 << 12)]
    return t


_CHAR6_SET = frozenset(_CHAR6)


def is_char6(text: str) -> bool:
    return _CHAR6_SET.issuperset(text)


class AbbrevOp(NamedTuple):
    """One abbreviation operand: kind is 'literal', 'fixed', 'vbr', 'array', 'char6' or 'blob'.
    (A named tuple: hashing and equality at C speed for the plan caches below.)"""

    kind: str
    value: int = 0


def lit(v: int) -> AbbrevOp:
    return AbbrevOp("literal", v)


def fixed(w: int) -> AbbrevOp:
    return AbbrevOp("fixed", w)


def vbr(w: int) -> AbbrevOp:
    return AbbrevOp("vbr", w)


def array() -> AbbrevOp:
    return AbbrevOp("array")


def char6() -> AbbrevOp:
    return AbbrevOp("char6")


def blob() -> AbbrevOp:
    return AbbrevOp("blob")


_ENCODING = {"fixed": 1, "vbr": 2, "array": 3, "char6": 4, "blob": 5}


class Abbrev(NamedTuple):
    ops: tuple[AbbrevOp, ...]


# compiled abbreviation operand kinds (see _compile)
_K_LIT, _K_FIXED, _K_VBR, _K_CHAR6, _K_ARRAY, _K_BLOB = range(6)
_KIND = {"literal": _K_LIT, "fixed": _K_FIXED, "vbr": _K_VBR, "char6": _K_CHAR6, "array": _K_ARRAY, "blob": _K_BLOB}


@dataclass(frozen=True, slots=True)
class _Plan:
    """An abbreviation compiled for emission: (kind, width or literal, VBR table) per scalar
    operand, and the array element operand (or blob) that ends it, if any."""

    scalars: tuple[tuple[int, int, list | None], ...]
    tail: tuple[int, int, list | None] | None
    blob: bool


@lru_cache(maxsize=4096)
def _char6_bits(text: bytes) -> int:
    """A char6 array's fields packed LSB-first (symbol and type names recur across modules)."""
    acc = n = 0
    for v in text:
        acc |= _CHAR6_INDEX[v] << n
        n += 6
    return acc


@lru_cache(maxsize=256)
def _abbrev_def_bits(abbrev: Abbrev) -> tuple[int, int]:
    """The DEFINE_ABBREV body (after the abbreviation id) as one (bits, count) field;
    the writer defines the same few abbreviations in every module."""
    fields = [_vbr(len(abbrev.ops), 5)]
    for op in abbrev.ops:
        if op.kind == "literal":
            fields += [(1, 1), _vbr(op.value, 8)]
        else:
            fields += [(0, 1), (_ENCODING[op.kind], 3)]
            if op.kind in ("fixed", "vbr"):
                fields.append(_vbr(op.value, 5))
    acc = n = 0
    for bits, k in fields:
        acc |= bits << n
        n += k
    return acc, n


@lru_cache(maxsize=256)
def _compile(abbrev: Abbrev) -> _Plan:
    ops = abbrev.ops
    scalars = []
    for k, op in enumerate(ops):
        kind = _KIND[op.kind]
        if kind == _K_ARRAY:
            e = ops[k + 1]
            ek = _KIND[e.kind]
            return _Plan(tuple(scalars), (ek, e.value, _vbr_table(e.value) if ek == _K_VBR else None), False)
        if kind == _K_BLOB:
            return _Plan(tuple(scalars), None, True)
        scalars.append((kind, op.value, _vbr_table(op.value) if kind == _K_VBR else None))
    return _Plan(tuple(scalars), None, False)



class BlockCache:
    """Block bodies by key, for BitstreamWriter.block_cached: bounded (emptied when full), since
    keys are per module content and a long-lived process compiles many modules."""

    def __init__(self, limit: int = 256) -> None:
        self._items: dict[Hashable, tuple[int, int]] = {}
        self._limit = limit

    def get(self, key: Hashable) -> tuple[int, int] | None:
        return self._items.get(key)

    def clear(self) -> None:
        self._items.clear()

    def put(self, key: Hashable, bits: tuple[int, int]) -> None:
        if len(self._items) >= self._limit:
            self._items.clear()
        self._items[key] = bits


class BitstreamWriter:
    """Accumulates bits; `data()` returns the bytes (always a whole number of words)."""

    def __init__(self) -> None:
        self._words = bytearray()
        self._cur = 0          # pending bits
        self._nbits = 0        # number of pending bits (flushed in words; see _flush)
        self.abbrev_width = 2
        self._abbrevs: list[_Plan] = []
        self._stack: list[tuple[int, list[_Plan], int]] = []   # (outer width, outer abbrevs, size word index)
        self._blockinfo: dict[int, list[_Plan]] = {}
        self._blockinfo_cur: int | None = None

    # -------------------------------------------------------------- raw bits
    def emit(self, value: int, width: int) -> None:
        """Emit `width` bits of `value` (width may exceed 32).  Bits gather in one integer
        and are flushed to bytes a few words at a time (fewer Python-level operations)."""
        if width == 0:
            return
        self._cur |= (value & ((1 << width) - 1)) << self._nbits
        self._nbits += width
        if self._nbits >= 256:
            self._flush()

    def emit_vbr(self, value: int, width: int) -> None:
        bits, n = _vbr(value, width)
        self.emit(bits, n)

    def _flush(self) -> None:
        """Move every whole pending word to the byte buffer (afterwards fewer than 32 bits pend)."""
        n = self._nbits >> 5
        if n:
            self._words += (self._cur & ((1 << (n << 5)) - 1)).to_bytes(n << 2, "little")
            self._cur >>= n << 5
            self._nbits -= n << 5

    def align32(self) -> None:
        self._flush()
        if self._nbits:
            self.emit(0, 32 - self._nbits)
            self._flush()

    @property
    def bit_position(self) -> int:
        return len(self._words) * 8 + self._nbits

    def data(self) -> bytes:
        if self._stack:
            raise RuntimeError("unterminated block")
        self._flush()
        out = bytes(self._words)
        if self._nbits:
            out += (self._cur & 0xFFFFFFFF).to_bytes(4, "little")[: (self._nbits + 7) // 8]
            out += bytes((4 - len(out) % 4) % 4)
        return out

    # ---------------------------------------------------------------- blocks
    def enter_block(self, block_id: int, abbrev_width: int) -> None:
        self.emit(ENTER_SUBBLOCK, self.abbrev_width)
        self.emit_vbr(block_id, 8)
        self.emit_vbr(abbrev_width, 4)
        self.align32()
        size_index = len(self._words) // 4
        self._words += bytes(4)                # block length, patched in exit_block
        self._stack.append((self.abbrev_width, self._abbrevs, size_index))
        self.abbrev_width = abbrev_width
        self._abbrevs = list(self._blockinfo.get(block_id, ()))

    def exit_block(self) -> None:
        self.emit(END_BLOCK, self.abbrev_width)
        self.align32()
        width, abbrevs, size_index = self._stack.pop()
        nwords = len(self._words) // 4 - size_index - 1
        self._words[size_index * 4:size_index * 4 + 4] = nwords.to_bytes(4, "little")
        self.abbrev_width, self._abbrevs = width, abbrevs
        self._blockinfo_cur = None

    def block_cached(self, block_id: int, abbrev_width: int, cache: BlockCache, key: Hashable,
                     write_body: Callable[[], None]) -> None:
        """A whole block whose body is a function of `key` alone (records and the abbreviations
        it defines for itself, no BLOCKINFO): the body starts word-aligned, so its bits do not
        depend on the position and are copied from `cache` when an equal key was written before."""
        self.enter_block(block_id, abbrev_width)
        hit = cache.get(key)
        if hit is None:
            start = len(self._words)             # enter_block leaves no pending bits
            write_body()
            self._flush()
            n_bytes = len(self._words) - start
            hit = (int.from_bytes(self._words[start:], "little") | self._cur << (n_bytes * 8),
                   n_bytes * 8 + self._nbits)
            cache.put(key, hit)
        else:
            self.emit(*hit)
        self.exit_block()

    # ------------------------------------------------------------ abbrevs
    def _emit_abbrev_def(self, abbrev: Abbrev) -> None:
        acc, n = _abbrev_def_bits(abbrev)
        self.emit((acc << self.abbrev_width) | DEFINE_ABBREV, n + self.abbrev_width)

    def define_abbrev(self, abbrev: Abbrev) -> int:
        """Define an abbreviation in the current block; returns its id."""
        self._emit_abbrev_def(abbrev)
        self._abbrevs.append(_compile(abbrev))
        return len(self._abbrevs) + 3

    def enter_blockinfo(self) -> None:
        self.enter_block(BLOCKINFO_BLOCK_ID, 2)

    def write_blockinfo(self, entries: tuple[tuple[int, Abbrev], ...]) -> None:
        """The whole BLOCKINFO block for (block id, abbreviation) entries.  Its body starts
        word-aligned, so its bits do not depend on the position: they are built once per
        entry list and copied in (every module of a compile session repeats the same block)."""
        bits, n, plans = _blockinfo_body(entries)
        self.enter_blockinfo()
        self.emit(bits, n)
        for block_id, plan in plans:
            self._blockinfo.setdefault(block_id, []).append(plan)
        self.exit_block()

    def blockinfo_abbrev(self, block_id: int, abbrev: Abbrev) -> int:
        """Inside BLOCKINFO: define an abbreviation for every later `block_id` block."""
        if self._blockinfo_cur != block_id:
            self.emit_record(_BLOCKINFO_SETBID, [block_id])
            self._blockinfo_cur = block_id
        self._emit_abbrev_def(abbrev)
        lst = self._blockinfo.setdefault(block_id, [])
        lst.append(_compile(abbrev))
        return len(lst) + 3

    # ------------------------------------------------------------ records
    def emit_record(self, code: int, ops: list[int], abbrev: int = 0) -> None:
        if abbrev == 0:                      # packed into one field: far fewer calls for long records
            table = _VBR6
            acc, n = table[code] if code < 4096 else _vbr(code, 6)
            b, k = table[len(ops)] if len(ops) < 4096 else _vbr(len(ops), 6)
            acc |= b << n
            n += k
            for v in ops:
                b, k = table[v] if 0 <= v < 4096 else _vbr6_large(v)
                acc |= b << n
                n += k
            # the record is exactly n + width bits: add it to the pending bits directly (emit, inlined)
            self._cur |= ((acc << self.abbrev_width) | UNABBREV_RECORD) << self._nbits
            self._nbits += n + self.abbrev_width
            if self._nbits >= 256:
                self._flush()
            return
        self._emit_abbreviated(self._abbrevs[abbrev - 4], abbrev, code, ops)

    def _emit_abbreviated(self, plan: _Plan, abbrev_id: int, code: int, ops: list[int]) -> None:
        """Pack the whole record into one integer, then emit it once."""
        n = self.abbrev_width
        acc = abbrev_id
        scalars = plan.scalars
        if len(ops) + 1 < len(scalars) or (plan.tail is None and not plan.blob and len(ops) + 1 != len(scalars)):
            raise ValueError("record has more operands than its abbreviation" if len(ops) + 1 > len(scalars)
                             else "record has fewer operands than its abbreviation")
        i = -1                                   # -1 is the record code, then ops[0], ...
        for kind, w, table in scalars:
            v = code if i < 0 else ops[i]
            i += 1
            if kind == _K_LIT:
                if v != w:
                    raise ValueError(f"literal mismatch {v} != {w}")
            elif kind == _K_FIXED:
                if v >> w:
                    raise ValueError(f"value {v} does not fit in {w} bits")
                acc |= v << n
                n += w
            elif kind == _K_VBR:
                b, k = table[v] if 0 <= v < 4096 else _vbr(v, w)
                acc |= b << n
                n += k
            else:
                acc |= _CHAR6_INDEX[v] << n
                n += 6
        rest = ops[i:] if i >= 0 else [code, *ops]
        if plan.blob:
            self.emit(acc, n)
            self._emit_blob(bytes(rest))
            return
        tail = plan.tail
        if tail is not None:
            b, k = _VBR6[len(rest)] if len(rest) < 4096 else _vbr(len(rest), 6)
            acc |= b << n
            n += k
            kind, w, table = tail
            if kind == _K_FIXED and w == 8:
                # bytes: 8-bit fields packed LSB-first are exactly the little-endian integer
                try:
                    acc |= int.from_bytes(bytes(rest), "little") << n
                except ValueError:
                    raise ValueError(f"a value of {rest} does not fit in 8 bits") from None
                n += 8 * len(rest)
            elif kind == _K_FIXED:
                for v in rest:
                    if v >> w:
                        raise ValueError(f"value {v} does not fit in {w} bits")
                    acc |= v << n
                    n += w
            elif kind == _K_VBR:
                for v in rest:
                    b, k = table[v] if 0 <= v < 4096 else _vbr(v, w)
                    acc |= b << n
                    n += k
            elif kind == _K_CHAR6:
                bits = _char6_bits(bytes(rest))
                acc |= bits << n
                n += 6 * len(rest)
            else:
                raise ValueError(f"array element kind {kind}")
        self.emit(acc, n)

    def _emit_blob(self, data: bytes) -> None:
        self.emit_vbr(len(data), 6)
        self.align32()
        for b in data:
            self.emit(b, 8)
        self.align32()


@lru_cache(maxsize=16)
def _blockinfo_body(entries: tuple[tuple[int, Abbrev], ...]) -> tuple[int, int, tuple[tuple[int, _Plan], ...]]:
    """(bits, bit count, plans) of a BLOCKINFO body, written by a scratch writer at an aligned start."""
    w = BitstreamWriter()
    w.abbrev_width = 2                   # BLOCKINFO's abbreviation width (enter_blockinfo)
    for block_id, abbrev in entries:
        w.blockinfo_abbrev(block_id, abbrev)
    w._flush()
    bits = int.from_bytes(w._words, "little") | w._cur << (len(w._words) * 8)
    n = len(w._words) * 8 + w._nbits
    plans = tuple((block_id, plan) for block_id, lst in w._blockinfo.items() for plan in lst)
    return bits, n, plans
