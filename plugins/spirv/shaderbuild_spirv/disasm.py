"""SPIR-V disassembler driven by the generated grammar tables (spirv-dis-like text, for -Fc).

Ids print as %name when OpName gives a unique, valid name, else as %N.
"""

from __future__ import annotations

import re
import struct

from .grammar import COMPOSITES, ENUM_PARAMS, ENUMS, GLSL_STD_450, INSTRUCTIONS, KIND_CATEGORY, MAGIC

_REVERSE: dict[str, dict[int, str]] = {}
_GLSL_NAMES = {v: k for k, v in GLSL_STD_450.items()}
_NAME_RE = re.compile(r"[^A-Za-z0-9_.]")
_ID_KINDS = frozenset(("IdResultType", "IdResult", "IdRef", "IdScope", "IdMemorySemantics"))


def _reverse(kind: str) -> dict[int, str]:
    r = _REVERSE.get(kind)
    if r is None:
        r = {}
        for name, v in ENUMS[kind].items():
            r.setdefault(v, name)
        _REVERSE[kind] = r
    return r


class _Reader:
    def __init__(self, words: tuple[int, ...], start: int, end: int) -> None:
        self.w = words
        self.i = start
        self.end = end

    def more(self) -> bool:
        return self.i < self.end

    def word(self) -> int:
        v = self.w[self.i]
        self.i += 1
        return v

    def string(self) -> str:
        data = bytearray()
        while self.i < self.end:
            chunk = struct.pack("<I", self.word())
            if 0 in chunk:
                data += chunk[:chunk.index(0)]
                break
            data += chunk
        return data.decode("utf-8", "replace")


class Disassembler:
    def __init__(self, binary: bytes) -> None:
        if len(binary) < 20 or len(binary) % 4:
            raise ValueError("not a SPIR-V module (bad size)")
        self.words = struct.unpack(f"<{len(binary) // 4}I", binary)
        if self.words[0] != MAGIC:
            raise ValueError("not a SPIR-V module (bad magic)")
        self.names: dict[int, str] = {}
        self.type_width: dict[int, tuple[str, int]] = {}   # scalar type id -> (kind, width)
        self.value_type: dict[int, int] = {}
        self.ext_sets: dict[int, str] = {}

    def _collect_names(self) -> None:
        raw: dict[int, str] = {}
        for op, start, end in self._instructions():
            if INSTRUCTIONS.get(op, ("",))[0] == "OpName":
                r = _Reader(self.words, start + 1, end)
                target = r.word()
                raw.setdefault(target, _NAME_RE.sub("_", r.string()))
        counts: dict[str, int] = {}
        for n in raw.values():
            counts[n] = counts.get(n, 0) + 1
        for i, n in raw.items():
            if n and counts[n] == 1 and not n[0].isdigit():
                self.names[i] = n
            elif n:
                self.names[i] = f"{n}_{i}"

    def _instructions(self):
        i = 5
        w = self.words
        while i < len(w):
            n = w[i] >> 16
            if n == 0:
                raise ValueError(f"zero-length instruction at word {i}")
            yield w[i] & 0xFFFF, i, i + n
            i += n

    def id(self, v: int) -> str:
        return "%" + self.names.get(v, str(v))

    def text(self) -> str:
        self._collect_names()
        w = self.words
        out = [
            "; SPIR-V",
            f"; Version: {(w[1] >> 16) & 0xFF}.{(w[1] >> 8) & 0xFF}",
            f"; Generator: {w[2] >> 16}; {w[2] & 0xFFFF}",
            f"; Bound: {w[3]}",
            f"; Schema: {w[4]}",
        ]
        for op, start, end in self._instructions():
            out.append(self._inst(op, start, end))
        return "\n".join(out) + "\n"

    def _inst(self, op: int, start: int, end: int) -> str:
        info = INSTRUCTIONS.get(op)
        if info is None:
            return f"{'':15}OpUnknown{op} " + " ".join(str(x) for x in self.words[start + 1:end])
        opname, kinds = info
        r = _Reader(self.words, start + 1, end)
        result = None
        rtype = None
        parts: list[str] = []
        for k in kinds:
            base = k.rstrip("?*")
            if k.endswith("*"):
                while r.more():
                    parts += self._operand(base, r, opname, rtype)
                continue
            if not r.more():
                break
            if base == "IdResult":
                result = r.word()
                continue
            if base == "IdResultType":
                rtype = r.word()
                parts.append(self.id(rtype))
                continue
            parts += self._operand(base, r, opname, rtype)
        self._track(opname, result, rtype, start)
        lhs = f"{self.id(result)} = " if result is not None else ""
        return f"{lhs:>15}{opname} {' '.join(parts)}".rstrip()

    def _track(self, opname: str, result: int | None, rtype: int | None, start: int) -> None:
        if result is None:
            return
        if opname == "OpTypeInt":
            self.type_width[result] = ("int" if self.words[start + 3] else "uint", self.words[start + 2])
        elif opname == "OpTypeFloat":
            self.type_width[result] = ("float", self.words[start + 2])
        elif opname == "OpExtInstImport":
            self.ext_sets[result] = _Reader(self.words, start + 2, len(self.words)).string()
        if rtype is not None:
            self.value_type[result] = rtype

    def _operand(self, kind: str, r: _Reader, opname: str, rtype: int | None) -> list[str]:
        cat = KIND_CATEGORY.get(kind)
        if kind in _ID_KINDS or cat == "Id":
            return [self.id(r.word())]
        if kind == "LiteralString":
            s = r.string().replace("\\", "\\\\").replace('"', '\\"')
            return [f'"{s}"']
        if kind == "LiteralContextDependentNumber":
            return [self._number(r, rtype)]
        if kind == "LiteralExtInstInteger":
            n = r.word()
            return [_GLSL_NAMES.get(n, str(n))]
        if cat == "Literal":
            return [str(r.word())]
        if cat == "Composite":
            return [x for b in COMPOSITES[kind] for x in self._operand(b, r, opname, rtype)]
        if cat == "ValueEnum":
            v = r.word()
            out = [_reverse(kind).get(v, str(v))]
            for pk in ENUM_PARAMS.get(kind, {}).get(v, ()):
                out += self._operand(pk.rstrip("?*"), r, opname, rtype)
            return out
        if cat == "BitEnum":
            v = r.word()
            names = [n for bit, n in sorted(_reverse(kind).items()) if bit and v & bit == bit]
            out = ["|".join(names) if names else _reverse(kind).get(0, "None")]
            params = ENUM_PARAMS.get(kind, {})
            for bit in sorted(b for b in params if v & b):
                for pk in params[bit]:
                    out += self._operand(pk.rstrip("?*"), r, opname, rtype)
            return out
        return [str(r.word())]

    def _number(self, r: _Reader, rtype: int | None) -> str:
        kind, width = self.type_width.get(rtype, ("uint", 32))
        lo = r.word()
        if width == 64:
            hi = r.word() if r.more() else 0
            v = lo | (hi << 32)
            if kind == "float":
                return repr(struct.unpack("<d", struct.pack("<Q", v))[0])
            return str(v - (1 << 64) if kind == "int" and v >> 63 else v)
        if kind == "float":
            if width == 16:
                return repr(struct.unpack("<e", struct.pack("<H", lo & 0xFFFF))[0])
            return repr(struct.unpack("<f", struct.pack("<I", lo))[0])
        if kind == "int" and lo >> 31:
            return str(lo - (1 << 32))
        return str(lo)


def disassemble(binary: bytes) -> str:
    """spirv-dis-like text of a SPIR-V binary."""
    return Disassembler(binary).text()
