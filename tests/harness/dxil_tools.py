"""DXIL checks with LLVM 19 tools: container (obj2yaml-19), bitcode (llvm-bcanalyzer-19), IR (llvm-dis-19).

There is no DXIL validator on Debian; these are the independent structural checks we have.
llvm-dis-19 rejects DXC's legacy datalayout (`i8:32`), so it reads a copy whose DATALAYOUT
record was patched in place to `i8:08` (same length, so no other bit moves).
"""

from __future__ import annotations

import dataclasses
import functools
import re
import struct
from dataclasses import dataclass

from .tools import TempInput, missing_dependency, run_tool

BITCODE_MAGIC = b"BC\xc0\xde"
WRAPPER_MAGIC = 0x0B17C0DE
_CONTAINER_HDR = struct.Struct("<4s16sHHII")  # magic, digest, major, minor, file size, part count
_PART_HDR = struct.Struct("<4sI")
_PROGRAM_HDR = struct.Struct("<II4sIII")  # version, size in dwords, 'DXIL', dxil version, bc offset, bc size
_PROGRAM_HDR_SIZE = _PROGRAM_HDR.size  # 24
_DXIL_HDR_START = 8  # BitcodeOffset counts from the 'DXIL' magic, 8 bytes into the part

# ---------------------------------------------------------------- container


@functools.cache
def _yaml_loader() -> type:
    """Safe loader (libyaml when present: byte arrays are long) accepting obj2yaml's `!dxcontainer` tag."""
    try:
        import yaml
    except ImportError:
        missing_dependency("PyPI package 'pyyaml' (pip install '.[test]')")
    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    def untagged(loader, _suffix: str, node: yaml.Node) -> object:
        if isinstance(node, yaml.MappingNode):
            return loader.construct_mapping(node, deep=True)
        if isinstance(node, yaml.SequenceNode):
            return loader.construct_sequence(node, deep=True)
        return loader.construct_scalar(node)

    loader = type("AnyTagLoader", (base,), {})
    loader.add_multi_constructor("!", untagged)
    return loader


def yaml_load(text: str) -> object:
    import yaml

    return yaml.load(text, Loader=_yaml_loader())  # a SafeLoader subclass


def parse_container(blob: bytes) -> dict:
    """obj2yaml-19's decoding of a DXContainer: {'Header': {...}, 'Parts': [...]}; AssertionError if unreadable."""
    with TempInput(blob, ".dxil") as path:
        text = run_tool(["obj2yaml-19", str(path)]).stdout.decode()
    doc = yaml_load(text)
    if not isinstance(doc, dict) or "Header" not in doc:
        raise AssertionError(f"obj2yaml-19 produced no DXContainer header:\n{text}")
    return doc


def container_parts(blob: bytes) -> dict[str, bytes]:
    """Our own minimal split of a DXContainer into {fourcc: part data} (independent of obj2yaml)."""
    magic, _digest, _major, _minor, size, count = _CONTAINER_HDR.unpack_from(blob, 0)
    if magic != b"DXBC":
        raise AssertionError(f"not a DXContainer (magic {magic!r})")
    if size != len(blob):
        raise AssertionError(f"container FileSize {size} != actual size {len(blob)}")
    offsets = struct.unpack_from(f"<{count}I", blob, _CONTAINER_HDR.size)
    parts = {}
    for off in offsets:
        name, psize = _PART_HDR.unpack_from(blob, off)
        start = off + _PART_HDR.size
        if start + psize > len(blob):
            raise AssertionError(f"part {name!r} runs past the end of the container")
        parts[name.decode("ascii", "replace")] = blob[start:start + psize]
    return parts


def extract_bitcode(blob: bytes) -> bytes:
    """The LLVM bitcode inside the DXIL part (program header + DXIL header, then BitcodeOffset/Size)."""
    parts = container_parts(blob)
    data = parts.get("DXIL")
    if data is None:
        raise AssertionError(f"no DXIL part (parts: {sorted(parts)})")
    _ver, dwords, magic, _dxil_ver, bc_off, bc_size = _PROGRAM_HDR.unpack_from(data, 0)
    if magic != b"DXIL":
        raise AssertionError(f"DXIL program header magic is {magic!r}")
    if dwords * 4 != len(data):
        raise AssertionError(f"program header says {dwords} dwords, part has {len(data)} bytes")
    start = _DXIL_HDR_START + bc_off
    bitcode = data[start:start + bc_size]
    if len(bitcode) != bc_size or bitcode[:4] != BITCODE_MAGIC:
        raise AssertionError(f"bad bitcode at offset {bc_off} size {bc_size}")
    return bitcode


def dxil_part(bitcode: bytes, shader_kind: int, sm: tuple[int, int] = (6, 0), dxil: tuple[int, int] = (1, 0)) -> bytes:
    """Build a DXIL part body (for tests: wrap hand-made bitcode). shader_kind: 0 PS, 1 VS, ..., 5 CS."""
    padded = bitcode + b"\0" * (-len(bitcode) % 4)
    total = _PROGRAM_HDR_SIZE + len(padded)
    header = _PROGRAM_HDR.pack((shader_kind << 16) | (sm[0] << 4) | sm[1], total // 4, b"DXIL",
                               (dxil[0] << 8) | dxil[1], _PROGRAM_HDR_SIZE - _DXIL_HDR_START, len(bitcode))
    return header + padded


def make_container(parts: list[tuple[str, bytes]]) -> bytes:
    """Build a DXContainer (zero digest) from (fourcc, data) parts, for tests."""
    offset = _CONTAINER_HDR.size + 4 * len(parts)
    offsets, body = [], bytearray()
    for name, data in parts:
        offsets.append(offset + len(body))
        body += _PART_HDR.pack(name.encode("ascii"), len(data)) + data
    total = offset + len(body)
    head = _CONTAINER_HDR.pack(b"DXBC", bytes(16), 1, 0, total, len(parts))
    return head + struct.pack(f"<{len(parts)}I", *offsets) + bytes(body)


# ---------------------------------------------------------------- bitstream (just enough to find DATALAYOUT)

_MODULE_BLOCK = 8
_MODULE_CODE_DATALAYOUT = 3
_END_BLOCK, _ENTER_SUBBLOCK, _DEFINE_ABBREV, _UNABBREV_RECORD = 0, 1, 2, 3


class _Bits:
    """LSB-first bit reader/writer over the bitcode bytes (LLVM bitstream order)."""

    def __init__(self, data: bytes, pos: int = 0) -> None:
        self.data = bytearray(data)
        self.pos = pos

    def read(self, n: int) -> int:
        if n == 0:
            return 0
        first, last = self.pos >> 3, (self.pos + n + 7) >> 3
        if last > len(self.data):
            raise ValueError("bitstream truncated")
        val = (int.from_bytes(self.data[first:last], "little") >> (self.pos & 7)) & ((1 << n) - 1)
        self.pos += n
        return val

    def vbr(self, n: int) -> int:
        hi, val, shift = 1 << (n - 1), 0, 0
        while True:
            chunk = self.read(n)
            val |= (chunk & (hi - 1)) << shift
            if not chunk & hi:
                return val
            shift += n - 1

    def write_at(self, pos: int, n: int, val: int) -> None:
        for k in range(n):
            byte, bit = divmod(pos + k, 8)
            if (val >> k) & 1:
                self.data[byte] |= 1 << bit
            else:
                self.data[byte] &= ~(1 << bit) & 0xFF

    def align32(self) -> None:
        self.pos = (self.pos + 31) & ~31


def _vbr_chunks(val: int, n: int) -> list[int]:
    hi, out = 1 << (n - 1), []
    while True:
        low = val & (hi - 1)
        val >>= n - 1
        out.append(low | (hi if val else 0))
        if not val:
            return out


_CHAR6 = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._"
# abbrev operand encodings: 1 fixed, 2 vbr, 3 array, 4 char6, 5 blob
_FIXED, _VBR, _ARRAY, _CHAR6_ENC, _BLOB = 1, 2, 3, 4, 5


def _read_abbrev(bits: _Bits) -> list[tuple]:
    ops = []
    n = bits.vbr(5)
    i = 0
    while i < n:
        if bits.read(1):  # literal
            ops.append(("lit", bits.vbr(8)))
        else:
            enc = bits.read(3)
            ops.append((enc, bits.vbr(5) if enc in (_FIXED, _VBR) else 0))
        i += 1
    return ops


def _read_scalar(bits: _Bits, op: tuple) -> tuple[int, int, tuple]:
    """Read one scalar operand: (value, bit position, (encoding, width))."""
    kind, width = op
    pos = bits.pos
    if kind == "lit":
        return width, -1, op
    if kind == _FIXED:
        return bits.read(width), pos, op
    if kind == _VBR:
        return bits.vbr(width), pos, op
    if kind == _CHAR6_ENC:
        return ord(_CHAR6[bits.read(6)]), pos, op
    raise ValueError(f"unsupported scalar abbrev encoding {kind}")


def _read_record(bits: _Bits, abbrev_id: int, width: int, abbrevs: list) -> tuple[int, list[tuple]]:
    """Read one record; returns (code, [(value, bitpos, encoding)]) for its operands."""
    if abbrev_id == _UNABBREV_RECORD:
        code = bits.vbr(6)
        ops = []
        for _ in range(bits.vbr(6)):
            pos = bits.pos
            ops.append((bits.vbr(6), pos, (_VBR, 6)))
        return code, ops
    try:
        abbrev = abbrevs[abbrev_id - 4]
    except IndexError:
        raise ValueError(f"unknown abbreviation id {abbrev_id}") from None
    vals: list[tuple] = []
    i = 0
    while i < len(abbrev):
        op = abbrev[i]
        if op[0] == _ARRAY:
            elem = abbrev[i + 1]
            vals.extend(_read_scalar(bits, elem) for _ in range(bits.vbr(6)))
            i += 2
            continue
        if op[0] == _BLOB:
            size = bits.vbr(6)
            bits.align32()
            vals.extend((bits.read(8), bits.pos - 8, (_FIXED, 8)) for _ in range(size))
            bits.align32()
        else:
            vals.append(_read_scalar(bits, op))
        i += 1
    return vals[0][0], vals[1:]


def _bitcode_start(data: bytes) -> int:
    if data[:4] == BITCODE_MAGIC:
        return 0
    if len(data) >= 20 and struct.unpack_from("<I", data, 0)[0] == WRAPPER_MAGIC:
        offset = struct.unpack_from("<I", data, 8)[0]
        if data[offset:offset + 4] == BITCODE_MAGIC:
            return offset
    raise AssertionError("not LLVM bitcode (no 'BC\\xC0\\xDE' magic)")


def find_datalayout(bitcode: bytes) -> tuple[str, list[tuple]]:
    """Locate the module's DATALAYOUT record: (string, [(char, bitpos, encoding)])."""
    bits = _Bits(bitcode, (_bitcode_start(bitcode) + 4) * 8)
    width = 2
    while bits.pos + width <= len(bits.data) * 8:
        abbrev_id = bits.read(width)
        if abbrev_id != _ENTER_SUBBLOCK:
            raise ValueError(f"unexpected top-level abbrev id {abbrev_id}")
        block_id, new_width = bits.vbr(8), bits.vbr(4)
        bits.align32()
        nwords = bits.read(32)
        if block_id != _MODULE_BLOCK:
            bits.pos += nwords * 32
            continue
        return _scan_module(bits, new_width)
    raise AssertionError("no MODULE_BLOCK in bitcode")


def _scan_module(bits: _Bits, width: int) -> tuple[str, list[tuple]]:
    abbrevs: list = []
    while True:
        abbrev_id = bits.read(width)
        if abbrev_id == _END_BLOCK:
            raise AssertionError("MODULE_BLOCK has no DATALAYOUT record")
        if abbrev_id == _ENTER_SUBBLOCK:
            bits.vbr(8)
            bits.vbr(4)
            bits.align32()
            nwords = bits.read(32)
            bits.pos += nwords * 32
        elif abbrev_id == _DEFINE_ABBREV:
            abbrevs.append(_read_abbrev(bits))
        else:
            code, ops = _read_record(bits, abbrev_id, width, abbrevs)
            if code == _MODULE_CODE_DATALAYOUT:
                return "".join(chr(v) for v, _p, _e in ops), ops


def _encode_same_width(val: int, enc: tuple, old_val: int) -> tuple[int, int]:
    """(bits, width) for val in the operand's encoding, requiring the width of old_val's encoding."""
    kind, width = enc
    if kind == _FIXED:
        return val, width
    if kind == _CHAR6_ENC:
        return _CHAR6.index(chr(val)), 6
    new, old = _vbr_chunks(val, width), _vbr_chunks(old_val, width)
    if len(new) != len(old):
        raise ValueError(f"cannot patch {chr(old_val)!r}->{chr(val)!r}: VBR{width} width differs")
    packed = 0
    for k, chunk in enumerate(new):
        packed |= chunk << (k * width)
    return packed, width * len(new)


def replace_datalayout(bitcode: bytes, new_layout: str) -> bytes:
    """Rewrite the DATALAYOUT record's characters in place; new_layout must have the same length."""
    layout, ops = find_datalayout(bitcode)
    if len(new_layout) != len(layout):
        raise ValueError(f"datalayout length must stay {len(layout)}: {new_layout!r}")
    out = _Bits(bitcode)
    for (old, pos, enc), ch in zip(ops, new_layout):
        if ord(ch) != old:
            if pos < 0:
                raise ValueError("datalayout character is an abbreviation literal; cannot patch")
            packed, nbits = _encode_same_width(ord(ch), enc, old)
            out.write_at(pos, nbits, packed)
    return bytes(out.data)


_I8_SPEC = re.compile(r"(?<![^-])i8((?::\d+)+)(?![^-])")


def _natural_i8(match: re.Match) -> str:
    nums = match.group(1)[1:].split(":")
    return "i8:" + ":".join("8".rjust(len(n), "0") for n in nums)


def patch_datalayout_i8(bitcode: bytes) -> bytes:
    """Copy of bitcode whose datalayout spells the i8 alignment as 8 (`i8:32` -> `i8:08`), same length."""
    layout, _ops = find_datalayout(bitcode)
    fixed = _I8_SPEC.sub(_natural_i8, layout)
    return bitcode if fixed == layout else replace_datalayout(bitcode, fixed)


# ---------------------------------------------------------------- llvm tools


def bcanalyzer(bitcode: bytes) -> str:
    """llvm-bcanalyzer-19 -dump text; AssertionError if it cannot parse the bitstream."""
    with TempInput(bitcode, ".bc") as path:
        return run_tool(["llvm-bcanalyzer-19", "-dump", str(path)]).stdout.decode(errors="replace")


def llvm_dis(bitcode: bytes) -> str:
    """llvm-dis-19 text of a datalayout-patched copy of the bitcode."""
    with TempInput(patch_datalayout_i8(bitcode), ".bc") as path:
        return run_tool(["llvm-dis-19", str(path), "-o", "-"]).stdout.decode()


@dataclass
class DxilCheck:
    """Everything the independent tools said about one DXIL container."""

    container: dict  # obj2yaml-19 decoding
    bitcode: bytes  # as stored (unpatched)
    bcanalyzer: str  # llvm-bcanalyzer-19 -dump
    ir: str  # llvm-dis-19 of the patched copy
    spirv: bytes | None = None  # dxil-spirv's validated SPIR-V (None: a listed dxil-spirv limit, or not asked)


@functools.lru_cache(maxsize=512)
def read_dxil(blob: bytes) -> DxilCheck:
    """Run obj2yaml-19, llvm-bcanalyzer-19 and llvm-dis-19 on a container; AssertionError on any failure.
    (Hand-made LLVM containers stop here: they are not DXIL a consumer could take.)"""
    container = parse_container(blob)
    bitcode = extract_bitcode(blob)
    return DxilCheck(container, bitcode, bcanalyzer(bitcode), llvm_dis(bitcode))


@functools.lru_cache(maxsize=512)
def check_dxil(blob: bytes) -> DxilCheck:
    """read_dxil, then the independent consumer: dxil-spirv converts the container and spirv-val
    --scalar-block-layout accepts the result (harness/dxil_consumer.py; a crash or error is an
    AssertionError, a listed dxil-spirv limit leaves `spirv` None).
    Cached by content: the corpus helpers check the same binary from several places (DXIL twin,
    build_dxil, the language corpus), and each check starts several processes.  Treat the result as
    read-only."""
    from . import dxil_consumer

    read = read_dxil(blob)
    return dataclasses.replace(read, spirv=dxil_consumer.check(blob))


def check_dxil_library(blob: bytes, entries: list[str]) -> tuple[DxilCheck, dict[str, bytes | None]]:
    """read_dxil of a library container, then dxil-spirv converts every exported shader on its own
    (`--entry NAME`) and spirv-val accepts each result; the SPIR-V per entry (None: a listed limit)."""
    from . import dxil_consumer

    read = read_dxil(blob)
    return read, {name: dxil_consumer.check(blob, name) for name in entries}
