"""LLVM bitstream writer: fixed/VBR fields, abbreviations, blocks, BLOCKINFO.

Bits are packed LSB-first into little-endian 32-bit words, as the LLVM
bitstream format requires.  Block lengths are back-patched on exit.
"""

from __future__ import annotations

from shaderbuild.lightstd import itemgetter, lru_cache
from shaderbuild.records import ValueRecord

__all__ = ["AbbrevOp", "Abbrev", "BitstreamWriter", "lit", "fixed", "vbr", "array", "char6", "blob",
           "BlockCache", "RecordCache", "END_BLOCK", "ENTER_SUBBLOCK", "DEFINE_ABBREV", "UNABBREV_RECORD", "BLOCKINFO_BLOCK_ID"]

END_BLOCK, ENTER_SUBBLOCK, DEFINE_ABBREV, UNABBREV_RECORD = 0, 1, 2, 3
BLOCKINFO_BLOCK_ID = 0
_BLOCKINFO_SETBID = 1

_CHAR6 = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._"


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


def _digits(value: int, width: int) -> str:
    """`width` bits of `value` as binary digits, most significant first (see BitstreamWriter)."""
    return format(value & ((1 << width) - 1), f"0{width}b") if width else ""


_TABLE_LIMIT = 1 << 14                   # entries a digit table keeps (then computes the rest)


class _VbrDigits(dict):
    """value -> the digits of its VBR-`width` field, filled on first use (ids and small numbers
    recur in every record; a lookup is one C call, also through map()).

    The table holds the values below 2**low_bits (a whole number of chunks, at most 2**15 entries);
    a larger value's digits are its high part's (the same table) followed by its low chunks, each
    with the continuation bit (a second table of the same bound).  So the tables stay bounded
    in a long-lived process and every id of a large module is still two lookups, not an encoding
    per use (a cap on one table made the writer's per-record cost grow with the module's ids)."""

    def __init__(self, width: int) -> None:
        super().__init__()
        self.width = width
        chunks = max(1, 15 // (width - 1))
        self.low_bits = chunks * (width - 1)
        self.composed = self.low_bits <= 16
        self.continued = _ContinuedChunks(width, chunks)

    def __missing__(self, value: int) -> str:
        if self.composed and value >> self.low_bits:
            return self[value >> self.low_bits] + self.continued[value & ((1 << self.low_bits) - 1)]
        bits, n = _vbr(value, self.width)        # raises for negative values
        s = format(bits, f"0{n}b")
        if self.composed or len(self) < _TABLE_LIMIT:      # bounded: float bits and far ids are many
            self[value] = s
        return s


class _ContinuedChunks(dict):
    """low bits -> the digits of `chunks` VBR chunks that each carry the continuation bit (the
    low part of a larger value; see _VbrDigits)."""

    def __init__(self, width: int, chunks: int) -> None:
        super().__init__()
        self.width, self.chunks = width, chunks

    def __missing__(self, low: int) -> str:
        c = self.width - 1
        bits = 0
        for i in range(self.chunks):
            bits |= (((low >> (c * i)) & ((1 << c) - 1)) | 1 << c) << (self.width * i)
        s = format(bits, f"0{self.width * self.chunks}b")
        self[low] = s
        return s


class _FixedDigits(dict):
    """value -> the digits of a fixed-`width` field; values that do not fit raise ValueError."""

    def __init__(self, width: int) -> None:
        super().__init__()
        self.width = width

    def __missing__(self, value: int) -> str:
        if value < 0 or value >> self.width:
            raise ValueError(f"value {value} does not fit in {self.width} bits")
        s = format(value, f"0{self.width}b")
        if len(self) < _TABLE_LIMIT:
            self[value] = s
        return s


_VBR_DIGITS: dict[int, _VbrDigits] = {}
_FIXED_DIGITS: dict[int, _FixedDigits] = {}


def _vbr_digits(width: int) -> _VbrDigits:
    t = _VBR_DIGITS.get(width)
    if t is None:
        t = _VBR_DIGITS[width] = _VbrDigits(width)
    return t


def _fixed_digits(width: int) -> _FixedDigits:
    t = _FIXED_DIGITS.get(width)
    if t is None:
        t = _FIXED_DIGITS[width] = _FixedDigits(width)
    return t


_V6 = _vbr_digits(6)             # unabbreviated records are VBR-6 throughout
_CHAR6_DIGITS = {ord(c): format(i, "06b") for i, c in enumerate(_CHAR6)}
_UNABBREV = {w: format(3, f"0{w}b") for w in range(2, 33)}    # UNABBREV_RECORD per abbreviation width


_CHAR6_SET = frozenset(_CHAR6)


def is_char6(text: str) -> bool:
    return _CHAR6_SET.issuperset(text)


TYPE_CHECKING = False
if TYPE_CHECKING:       # typing.NamedTuple for mypy; at run time the same tuples without typing
    from collections.abc import Callable, Hashable, Sequence
    from typing import NamedTuple

    class AbbrevOp(NamedTuple):
        """One abbreviation operand: kind is 'literal', 'fixed', 'vbr', 'array', 'char6' or 'blob'.
        (A named tuple: hashing and equality at C speed for the plan caches below.)"""

        kind: str
        value: int = 0

    class Abbrev(NamedTuple):
        ops: tuple[AbbrevOp, ...]
else:       # the same as tuples with named items, without collections.namedtuple (issue 23: no collections)
    class AbbrevOp(tuple):
        __slots__ = ()
        kind = property(itemgetter(0))
        value = property(itemgetter(1))

        def __new__(cls, kind: str, value: int = 0):
            return tuple.__new__(cls, (kind, value))

        def __repr__(self) -> str:
            return f"AbbrevOp(kind={self[0]!r}, value={self[1]!r})"

    class Abbrev(tuple):
        __slots__ = ()
        ops = property(itemgetter(0))

        def __new__(cls, ops: tuple[AbbrevOp, ...]):
            return tuple.__new__(cls, (ops,))

        def __repr__(self) -> str:
            return f"Abbrev(ops={self[0]!r})"


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


class _Plan(ValueRecord):
    """An abbreviation compiled for emission: per scalar operand (literal value, None) or (None,
    digit table), the digit table of the array element operand that ends it (if any), and
    whether a blob ends it.  Fixed, VBR and char6 fields are all one table lookup."""

    scalars: tuple[tuple[int | None, dict | None], ...]
    tail: dict | None
    blob: bool
    code: int | None = None                  # the literal record code of a plan that is ...
    fields: tuple[dict, ...] | None = None   # ... that code then scalar fields only (the fast path)


def _field_digits(op: AbbrevOp) -> dict:
    if op.kind == "fixed":
        return _fixed_digits(op.value)
    if op.kind == "vbr":
        return _vbr_digits(op.value)
    if op.kind == "char6":
        return _CHAR6_DIGITS
    raise ValueError(f"abbreviation operand {op.kind} is not a scalar field")


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
def _abbrev_def_digits(abbrev: Abbrev, abbrev_width: int) -> str:
    """The whole DEFINE_ABBREV record (abbreviation id included) as digits."""
    acc, n = _abbrev_def_bits(abbrev)
    return _digits((acc << abbrev_width) | DEFINE_ABBREV, n + abbrev_width)


@lru_cache(maxsize=256)
def _compile(abbrev: Abbrev) -> _Plan:
    ops = abbrev.ops
    scalars: list[tuple[int | None, dict | None]] = []
    for k, op in enumerate(ops):
        if op.kind == "array":
            return _Plan(tuple(scalars), _field_digits(ops[k + 1]), False)
        if op.kind == "blob":
            return _Plan(tuple(scalars), None, True)
        scalars.append((op.value, None) if op.kind == "literal" else (None, _field_digits(op)))
    if scalars[0][1] is None and all(table is not None for _, table in scalars[1:]):
        return _Plan(tuple(scalars), None, False, scalars[0][0], tuple(table for _, table in scalars[1:] if table is not None))
    return _Plan(tuple(scalars), None, False)


@lru_cache(maxsize=256)
def _block_header(outer_width: int, block_id: int, abbrev_width: int) -> str:
    """ENTER_SUBBLOCK, the block id and the new abbreviation width, as digits (before alignment)."""
    return _vbr_digits(4)[abbrev_width] + _vbr_digits(8)[block_id] + _digits(ENTER_SUBBLOCK, outer_width)


class BlockCache:
    """Encoded pieces by key (block tails as bytes for BitstreamWriter.block_cached): bounded (emptied
    when full), since keys are per module content and a long-lived process compiles many modules."""

    def __init__(self, limit: int = 256) -> None:
        self._items: dict[Hashable, object] = {}
        self._limit = limit

    def get(self, key: Hashable):
        return self._items.get(key)

    def clear(self) -> None:
        self._items.clear()

    def put(self, key: Hashable, value: object) -> None:
        if len(self._items) >= self._limit:
            self._items.clear()
        self._items[key] = value


class RecordCache(BlockCache):
    """Record digits by (abbreviation width, abbreviation id, code, operands), for
    BitstreamWriter.emit_record_cached: a BlockCache holding more, smaller entries."""

    def __init__(self, limit: int = 1024) -> None:
        super().__init__(limit)


class BitstreamWriter:
    """Accumulates bits; `data()` returns the bytes (always a whole number of words).

    Pending fields are kept as strings of binary digits (each most significant digit first) in
    emission order; at every 32-bit alignment point (block entry and exit) they are joined in
    reverse and converted by one int(..., 2).  A field is then one table lookup (see _VbrDigits),
    and a record's operands are encoded by map() at C speed instead of a shift-and-or per field."""

    def __init__(self) -> None:
        self._bytes = bytearray()            # committed output, whole words
        self._pieces: list[str] = []         # pending fields as digits, first field first
        self._abbrevs: list[_Plan] = []
        self._stack: list[tuple[int, list[_Plan], int]] = []   # (outer width, outer abbrevs, size word index)
        self._blockinfo: dict[int, list[_Plan]] = {}
        self._blockinfo_cur: int | None = None
        self._set_width(2)

    def _set_width(self, abbrev_width: int) -> None:
        self.abbrev_width = abbrev_width
        self._id_digits = _fixed_digits(abbrev_width)          # abbreviation ids at this width
        self._unabbrev = self._id_digits[UNABBREV_RECORD]

    # -------------------------------------------------------------- raw bits
    def emit(self, value: int, width: int) -> None:
        """Emit `width` bits of `value` (width may exceed 32)."""
        if width:
            self._pieces.append(_digits(value, width))

    def emit_vbr(self, value: int, width: int) -> None:
        self._pieces.append(_vbr_digits(width)[value])

    def align32(self) -> None:
        """Commit the pending fields, zero-padded to a whole word."""
        p = self._pieces
        if p:
            s = "".join(reversed(p)) if len(p) > 1 else p[0]
            p.clear()
            if s:
                self._bytes += int(s, 2).to_bytes(((len(s) + 31) >> 5) << 2, "little")

    def data(self) -> bytes:
        if self._stack:
            raise RuntimeError("unterminated block")
        s = "".join(reversed(self._pieces))
        if not s:
            return bytes(self._bytes)
        return bytes(self._bytes) + int(s, 2).to_bytes(((len(s) + 31) >> 5) << 2, "little")

    # ---------------------------------------------------------------- blocks
    def enter_block(self, block_id: int, abbrev_width: int) -> None:
        self._pieces.append(_block_header(self.abbrev_width, block_id, abbrev_width))
        self.align32()
        size_index = len(self._bytes) >> 2
        self._bytes += b"\0\0\0\0"              # block length, patched in exit_block
        self._stack.append((self.abbrev_width, self._abbrevs, size_index))
        self._set_width(abbrev_width)
        self._abbrevs = list(self._blockinfo.get(block_id, ()))

    def exit_block(self) -> None:
        self._pieces.append(self._id_digits[END_BLOCK])
        self.align32()
        width, abbrevs, size_index = self._stack.pop()
        nwords = (len(self._bytes) >> 2) - size_index - 1
        self._bytes[size_index * 4:size_index * 4 + 4] = nwords.to_bytes(4, "little")
        self._set_width(width)
        self._abbrevs = abbrevs
        self._blockinfo_cur = None

    def block_cached(self, block_id: int, abbrev_width: int, cache: BlockCache, key: Hashable,
                     write_body: Callable[[], None]) -> None:
        """A whole block whose body is a function of `key` alone (records, the abbreviations it
        defines for itself, and BLOCKINFO abbreviations that do not vary): everything after the
        block header is word-aligned, so it does not depend on the position and is copied from
        `cache` (length word, body, END_BLOCK) when an equal key was written before."""
        tail = cache.get(key)
        if tail is not None:
            self._pieces.append(_block_header(self.abbrev_width, block_id, abbrev_width))
            self.align32()
            self._bytes += tail
            self._blockinfo_cur = None
            return
        self.enter_block(block_id, abbrev_width)
        start = len(self._bytes) - 4             # the length word enter_block reserved
        write_body()
        self.exit_block()
        cache.put(key, bytes(self._bytes[start:]))

    # ------------------------------------------------------------ abbrevs
    def define_abbrev(self, abbrev: Abbrev) -> int:
        """Define an abbreviation in the current block; returns its id."""
        self._pieces.append(_abbrev_def_digits(abbrev, self.abbrev_width))
        self._abbrevs.append(_compile(abbrev))
        return len(self._abbrevs) + 3

    def enter_blockinfo(self) -> None:
        self.enter_block(BLOCKINFO_BLOCK_ID, 2)

    def write_blockinfo(self, entries: tuple[tuple[int, Abbrev], ...]) -> None:
        """The whole BLOCKINFO block for (block id, abbreviation) entries.  Everything after its
        header is word-aligned, so it does not depend on the position: it is built once per
        entry list and copied in (every module of a compile session repeats the same block)."""
        tail, plans = _blockinfo_block(entries)
        self._pieces.append(_block_header(self.abbrev_width, BLOCKINFO_BLOCK_ID, 2))
        self.align32()
        self._bytes += tail
        for block_id, plan in plans:
            self._blockinfo.setdefault(block_id, []).append(plan)
        self._blockinfo_cur = None

    def blockinfo_abbrev(self, block_id: int, abbrev: Abbrev) -> int:
        """Inside BLOCKINFO: define an abbreviation for every later `block_id` block."""
        if self._blockinfo_cur != block_id:
            self.emit_record(_BLOCKINFO_SETBID, [block_id])
            self._blockinfo_cur = block_id
        self._pieces.append(_abbrev_def_digits(abbrev, self.abbrev_width))
        lst = self._blockinfo.setdefault(block_id, [])
        lst.append(_compile(abbrev))
        return len(lst) + 3

    # ------------------------------------------------------------ records
    def unabbreviated_sink(self) -> tuple[list[str], str]:
        """(pending digit list, UNABBREV_RECORD id digits) of the current block, for a caller
        that appends many unabbreviated records itself (id digits, then VBR-6 code, operand
        count and operands; see vbr6_digits): a function body's records, without a method
        call per record.  Valid until the next block is entered or exited."""
        return self._pieces, self._unabbrev

    def abbrev_digits(self, abbrev: int) -> tuple[str, tuple[dict, ...]]:
        """(id digits, per-operand digit tables) of abbreviation `abbrev` of the current block,
        which must be a literal code followed by scalar fields: a caller emitting many such
        records appends the id digits and then table[operand] per operand itself (one piece
        per field, as emit_record does).  Valid until the next block is entered or exited."""
        plan = self._abbrevs[abbrev - 4]
        if plan.fields is None:
            raise ValueError(f"abbreviation {abbrev} is not a literal code with scalar fields")
        return self._id_digits[abbrev], plan.fields

    def emit_record(self, code: int, ops: Sequence[int], abbrev: int = 0) -> None:
        if abbrev == 0:                      # VBR-6 throughout: the operands go through map()
            p = self._pieces
            p += (self._unabbrev, _V6[code], _V6[len(ops)])
            p += map(_V6_GET, ops)
            return
        plan = self._abbrevs[abbrev - 4]
        fields = plan.fields
        if fields is not None and code == plan.code and len(ops) == len(fields):
            p = self._pieces                 # a literal code and scalar fields: one lookup per field
            p.append(self._id_digits[abbrev])
            p += map(_GETITEM, fields, ops)
            return
        self._emit_abbreviated(plan, abbrev, code, ops)

    def emit_record_cached(self, cache: RecordCache, code: int, ops: bytes | tuple[int, ...], abbrev: int = 0) -> None:
        """emit_record for records that recur across modules (metadata names, the triple): their
        digits depend on the record, the abbreviation width and the abbreviation `abbrev`, which
        must mean the same in every block that uses `cache`."""
        p = self._pieces
        key = (self.abbrev_width, abbrev, code, ops)
        digits = cache.get(key)
        if digits is None:
            n = len(p)
            self.emit_record(code, ops, abbrev)
            digits = "".join(reversed(p[n:]))
            del p[n:]
            cache.put(key, digits)
        p.append(digits)

    def _emit_abbreviated(self, plan: _Plan, abbrev_id: int, code: int, ops: Sequence[int]) -> None:
        scalars = plan.scalars
        if len(ops) + 1 < len(scalars) or (plan.tail is None and not plan.blob and len(ops) + 1 != len(scalars)):
            raise ValueError("record has more operands than its abbreviation" if len(ops) + 1 > len(scalars)
                             else "record has fewer operands than its abbreviation")
        p = self._pieces
        p.append(self._id_digits[abbrev_id])
        i = -1                                   # -1 is the record code, then ops[0], ...
        for literal, table in scalars:
            v = code if i < 0 else ops[i]
            i += 1
            if table is None:
                if v != literal:
                    raise ValueError(f"literal mismatch {v} != {literal}")
            else:
                p.append(table[v])
        if plan.blob:
            self._emit_blob(bytes(ops[i:] if i >= 0 else [code, *ops]))
        elif plan.tail is not None:
            rest = ops[i:] if i >= 0 else [code, *ops]
            p.append(_V6[len(rest)])
            p += map(plan.tail.__getitem__, rest)

    def _emit_blob(self, data: bytes) -> None:
        self._pieces.append(_V6[len(data)])
        self.align32()
        self._bytes += data + bytes(-len(data) % 4)


_V6_GET = _V6.__getitem__
vbr6_digits = _V6                            # value -> its VBR-6 digits (for unabbreviated_sink)
_GETITEM = dict.__getitem__                  # (table, value) -> digits, through map()


@lru_cache(maxsize=16)
def _blockinfo_block(entries: tuple[tuple[int, Abbrev], ...]) -> tuple[bytes, tuple[tuple[int, _Plan], ...]]:
    """(bytes after the header, plans) of a BLOCKINFO block, written by a scratch writer."""
    w = BitstreamWriter()
    w.enter_blockinfo()
    start = len(w._bytes) - 4                # the length word
    for block_id, abbrev in entries:
        w.blockinfo_abbrev(block_id, abbrev)
    plans = tuple((block_id, plan) for block_id, lst in w._blockinfo.items() for plan in lst)
    w.exit_block()
    return bytes(w._bytes[start:]), plans
