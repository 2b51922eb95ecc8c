"""SPIR-V module builder: ids, interned types/constants, sections, word emission.

The builder knows nothing about HLSL or the IR; it only keeps the logical
layout of a module (spec §2.4) and serialises it.  Types and constants are
interned by key so equal requests yield one id; insertion-ordered dicts keep the
output deterministic (same calls -> same bytes).
"""

from __future__ import annotations

import struct

from .grammar import ENUMS, GLSL_STD_450, MAGIC, OPCODES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

Operand = int | str
_GENERATOR = 0  # no registered generator id


def enum(kind: str, name: str) -> int:
    """Value of enumerant `name` of operand kind `kind` (e.g. enum('Capability', 'Shader'))."""
    return ENUMS[kind][name]


def string_words(s: str) -> list[int]:
    """A literal string: UTF-8, NUL-terminated, zero-padded to a word boundary."""
    data = s.encode() + b"\0"
    data += b"\0" * (-len(data) % 4)
    return list(struct.unpack(f"<{len(data) // 4}I", data))


MAX_WORDS = 0xFFFF      # an instruction's word count is 16 bits


def too_long(opname: str, words: int) -> Exception:
    """The error for an instruction past MAX_WORDS (an initializer list of 70,000 values, a switch of
    40,000 cases); the statement or declaration being lowered gives it a location."""
    from shaderbuild.diagnostics import error

    return error(f"too large for SPIR-V: one {opname} of {words:,} words (an instruction holds at most "
                 f"{MAX_WORDS:,}; use fewer values or cases)")


def inst(opname: str, operands: Iterable[Operand]) -> list[int]:
    """Encode one instruction; operands are words (ints) or literal strings."""
    words: list[int] = [0]
    for o in operands:
        if isinstance(o, str):
            words.extend(string_words(o))
        else:
            words.append(o & 0xFFFFFFFF)
    if len(words) > MAX_WORDS:
        raise too_long(opname, len(words))
    words[0] = (len(words) << 16) | OPCODES[opname]
    return words


class ModuleBuilder:
    """Collects a module section by section; `assemble()` returns the binary."""

    def __init__(self, version: tuple[int, int] = (1, 3)) -> None:
        self.version = version
        self.bound = 1
        self.capabilities: dict[str, None] = {}
        self.extensions: dict[str, None] = {}
        self.ext_imports: dict[str, int] = {}
        self.memory_model = (enum("AddressingModel", "Logical"), enum("MemoryModel", "GLSL450"))
        self.entry_points: list[int] = []
        self.exec_modes: list[int] = []
        self.strings: list[int] = []          # OpString / OpSource (debug section 7a)
        self.debug: list[int] = []            # OpName / OpMemberName (7b)
        self.annotations: list[int] = []
        self.globals: list[int] = []          # types, constants, global variables (in order)
        self.functions: list[int] = []
        self.variables: list[int] = []       # every global OpVariable's id (entry-point interfaces)
        self._interned: dict[tuple, int] = {}
        self._decorated: set[tuple] = set()

    # ------------------------------------------------------------------ ids

    def new_id(self) -> int:
        i = self.bound
        self.bound += 1
        return i

    # ------------------------------------------------------------ preamble

    def capability(self, name: str) -> None:
        self.capabilities.setdefault(name, None)

    def extension(self, name: str) -> None:
        self.extensions.setdefault(name, None)

    def glsl_std_450(self) -> int:
        """Id of the GLSL.std.450 import (created on first use)."""
        return self.ext_import("GLSL.std.450")

    def ext_import(self, name: str) -> int:
        if name not in self.ext_imports:
            self.ext_imports[name] = self.new_id()
        return self.ext_imports[name]

    def entry_point(self, model: str, func: int, name: str, interface: Iterable[int]) -> None:
        self.entry_points += inst("OpEntryPoint", [enum("ExecutionModel", model), func, name, *interface])

    def execution_mode(self, func: int, mode: str, *literals: int) -> None:
        self.exec_modes += inst("OpExecutionMode", [func, enum("ExecutionMode", mode), *literals])

    def name(self, target: int, text: str) -> None:
        self.debug += inst("OpName", [target, text])

    def member_name(self, target: int, member: int, text: str) -> None:
        self.debug += inst("OpMemberName", [target, member, text])

    def decorate(self, target: int, decoration: str, *args: int) -> None:
        key = (target, decoration, *args)
        if key not in self._decorated:
            self._decorated.add(key)
            self.annotations += inst("OpDecorate", [target, enum("Decoration", decoration), *args])

    def member_decorate(self, target: int, member: int, decoration: str, *args: int) -> None:
        key = (target, member, decoration, *args)
        if key not in self._decorated:
            self._decorated.add(key)
            self.annotations += inst("OpMemberDecorate", [target, member, enum("Decoration", decoration), *args])

    # ------------------------------------------------ types and constants

    def interned(self, key: tuple) -> int | None:
        return self._interned.get(key)

    def type(self, opname: str, *operands: Operand, key: tuple | None = None) -> int:
        """An interned type; `key` distinguishes types that differ only in decorations."""
        k = (opname, *operands) if key is None else key
        tid = self._interned.get(k)
        if tid is None:
            tid = self.new_id()
            self._interned[k] = tid
            self.globals += inst(opname, [tid, *operands])
        return tid

    def constant(self, opname: str, type_id: int, *operands: Operand) -> int:
        """An interned constant (OpConstant, OpConstantTrue, OpConstantComposite, ...)."""
        k = (opname, type_id, *operands)
        cid = self._interned.get(k)
        if cid is None:
            cid = self.new_id()
            self._interned[k] = cid
            self.globals += inst(opname, [type_id, cid, *operands])
        return cid

    def global_variable(self, ptr_type: int, storage_class: str, init: int | None = None) -> int:
        vid = self.new_id()
        ops = [ptr_type, vid, enum("StorageClass", storage_class)]
        if init is not None:
            ops.append(init)
        self.globals += inst("OpVariable", ops)
        self.variables.append(vid)
        return vid

    def ext_inst_number(self, name: str) -> int:
        return GLSL_STD_450[name]

    # ------------------------------------------------------------ output

    def assemble(self) -> bytes:
        """The module as little-endian words, header bound exact."""
        words: list[int] = [MAGIC, (self.version[0] << 16) | (self.version[1] << 8), _GENERATOR, self.bound, 0]
        for cap in self.capabilities:
            words += inst("OpCapability", [enum("Capability", cap)])
        for ext in self.extensions:
            words += inst("OpExtension", [ext])
        for name, iid in self.ext_imports.items():
            words += inst("OpExtInstImport", [iid, name])
        words += inst("OpMemoryModel", list(self.memory_model))
        words += self.entry_points + self.exec_modes + self.strings + self.debug + self.annotations + self.globals + self.functions
        return struct.pack(f"<{len(words)}I", *words)
