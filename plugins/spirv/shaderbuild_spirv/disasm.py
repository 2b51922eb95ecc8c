"""SPIR-V disassembler driven by the generated grammar tables (spirv-dis-like text, for -Fc).

Ids print as %name when OpName gives a unique, valid name, else as %N.
"""

from __future__ import annotations

import re
import struct

from .grammar import COMPOSITES, DEBUG_INFO_100, ENUM_PARAMS, ENUMS, GLSL_STD_450, INSTRUCTIONS, KIND_CATEGORY, MAGIC

_REVERSE: dict[str, dict[int, str]] = {}
_EXT_NAMES = {"GLSL.std.450": {v: k for k, v in GLSL_STD_450.items()},
              "NonSemantic.Shader.DebugInfo.100": {v: k for k, v in DEBUG_INFO_100.items()}}
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
        self._friendly_type_names()

    def _friendly_type_names(self) -> None:
        """spirv-dis style names for unnamed types and constants (%float, %v4uint, %uint_0, ...)."""
        taken = set(self.names.values())
        w = self.words
        scalar: dict[int, tuple[str, int]] = {}
        for op, start, end in self._instructions():
            opname = INSTRUCTIONS.get(op, ("",))[0]
            fn = _FRIENDLY.get(opname)
            if fn is None:
                continue
            rid = w[start + (2 if opname.startswith("OpConstant") else 1)]
            if opname == "OpTypeInt":
                scalar[rid] = ("int" if w[start + 3] else "uint", w[start + 2])
            elif opname == "OpTypeFloat":
                scalar[rid] = ("float", w[start + 2])
            if rid in self.names:
                continue
            name = fn(self, w[start + 1:end], scalar)
            name = name.replace(".", "_") if name else name
            if not name:
                continue
            if name in taken:
                name = f"{name}_{rid}"
            taken.add(name)
            self.names[rid] = name

    def _n(self, i: int) -> str:
        return self.names.get(i, str(i))

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
            ext_names = _EXT_NAMES.get(self.ext_sets.get(r.w[r.i - 1], ""), {})   # the set is the operand before
            n = r.word()
            return [ext_names.get(n, str(n))]
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
        kind, width = self.type_width.get(rtype, ("uint", 32)) if rtype is not None else ("uint", 32)
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


def _scalar_name(kind: str, width: int) -> str:
    if kind == "float":
        return {16: "half", 32: "float", 64: "double"}.get(width, f"float{width}")
    return kind if width == 32 else f"{kind}{width}"


def _const_name(d: Disassembler, ops: tuple[int, ...], scalar: dict) -> str | None:
    t = scalar.get(ops[0])
    if t is None or len(ops) < 3:
        return None
    kind, width = t
    if kind == "float" or width != 32:
        return None
    v = ops[2] - (1 << 32) if kind == "int" and ops[2] >> 31 else ops[2]
    return f"{_scalar_name(kind, width)}_{v}".replace("-", "n")


_STORAGE_NAMES: dict[int, str] = {}


def _storage_name(v: int) -> str:
    if not _STORAGE_NAMES:
        _STORAGE_NAMES.update(_reverse("StorageClass"))
    return _STORAGE_NAMES.get(v, str(v))


_FRIENDLY = {
    "OpTypeVoid": lambda d, o, s: "void",
    "OpTypeBool": lambda d, o, s: "bool",
    "OpTypeInt": lambda d, o, s: _scalar_name("int" if o[2] else "uint", o[1]),
    "OpTypeFloat": lambda d, o, s: _scalar_name("float", o[1]),
    "OpTypeVector": lambda d, o, s: f"v{o[2]}{d._n(o[1])}",
    "OpTypeMatrix": lambda d, o, s: f"mat{o[2]}{d._n(o[1])}",
    "OpTypeArray": lambda d, o, s: f"_arr_{d._n(o[1])}_{d._n(o[2])}",
    "OpTypeRuntimeArray": lambda d, o, s: f"_runtimearr_{d._n(o[1])}",
    "OpTypePointer": lambda d, o, s: f"_ptr_{_storage_name(o[1])}_{d._n(o[2])}",
    "OpTypeSampler": lambda d, o, s: "type_sampler",
    "OpTypeImage": lambda d, o, s: "type_image",
    "OpTypeSampledImage": lambda d, o, s: "type_sampled_image",
    "OpConstantTrue": lambda d, o, s: "true",
    "OpConstantFalse": lambda d, o, s: "false",
    "OpConstant": _const_name,
}


def disassemble(binary: bytes) -> str:
    """spirv-dis-like text of a SPIR-V binary."""
    return Disassembler(binary).text()
