"""A SPIR-V binary as editable instructions, for the optimisation passes.

Each instruction keeps its operand words and, from the grammar, where its result type,
result id and id operands are, so passes can rename uses without knowing every opcode.
Functions are split into blocks (label, body, terminator last).  `serialize` writes the
words back in order, with an exact id bound.
"""

from __future__ import annotations

import struct

from ..grammar import COMPOSITES, ENUM_PARAMS, ENUMS, INSTRUCTIONS, KIND_CATEGORY, MAGIC, OPCODES

_ID_KINDS = frozenset(("IdRef", "IdScope", "IdMemorySemantics"))
# the one input that changes during an invocation: an intersection shader's RayTmaxKHR after an
# accepted OpReportIntersectionKHR (Vulkan spec, RayTmaxKHR); its loads are not merged
_RAY_TMAX = ENUMS["BuiltIn"]["RayTmaxKHR"]


class Inst:
    """One instruction: opcode, operand words, and the positions of its ids in `w`."""

    __slots__ = ("op", "w", "t", "r", "uses")

    def __init__(self, op: int, w: list[int], t: int = -1, r: int = -1, uses: tuple[int, ...] = ()) -> None:
        self.op = op
        self.w = w
        self.t = t          # position of the result type in w, or -1
        self.r = r          # position of the result id in w, or -1
        self.uses = uses    # positions of id operands (not type/result)

    @classmethod
    def make(cls, opname: str, words: list[int]) -> Inst:
        op = OPCODES[opname]
        return cls(op, words, *_layout(op, words))

    @property
    def result(self) -> int:
        return self.w[self.r] if self.r >= 0 else 0

    @property
    def type(self) -> int:
        return self.w[self.t] if self.t >= 0 else 0

    def ids(self) -> list[int]:
        w = self.w
        return [w[i] for i in self.uses]

    def rename(self, m: dict[int, int]) -> None:
        w = self.w
        for i in self.uses:
            v = m.get(w[i])
            if v is not None:
                w[i] = v

    def key(self) -> tuple:
        return (self.op, *self.w)


# (opcode, word count) -> layout, for the opcodes whose layout the word count alone decides
_LAYOUTS: dict[tuple[int, int], tuple[int, int, tuple[int, ...]]] = {}


def _layout(op: int, w: list[int]) -> tuple[int, int, tuple[int, ...]]:
    """(type position, result position, id operand positions) of one instruction; looked up by
    (opcode, word count) when those decide it (most instructions inside functions)."""
    key = (op, len(w))
    hit = _LAYOUTS.get(key)
    if hit is not None:
        return hit
    layout, by_count = _decode_layout(op, w)
    if by_count:
        _LAYOUTS[key] = layout
    return layout


def _decode_layout(op: int, w: list[int]) -> tuple[tuple[int, int, tuple[int, ...]], bool]:
    """_layout, read from the grammar operand by operand, and whether every instruction of this
    opcode and word count has it: false once a word's value steered the decoding of a later word
    (a string's length, an enum value's parameters)."""
    info = INSTRUCTIONS.get(op)
    if info is None:
        return (-1, -1, ()), True
    kinds = info[1]
    pos = [0]
    steered = [False]
    n = len(w)
    t = r = -1
    uses: list[int] = []

    def operand(kind: str) -> None:
        i = pos[0]
        if i >= n:
            return
        cat = KIND_CATEGORY.get(kind)
        if kind in _ID_KINDS or (cat == "Id" and kind not in ("IdResult", "IdResultType")):
            uses.append(i)
            pos[0] = i + 1
        elif kind == "LiteralString":
            while i < n:
                x = w[i]
                i += 1
                if not (x & 0xFF and x & 0xFF00 and x & 0xFF0000 and x & 0xFF000000):
                    break
            pos[0] = i
            if i < n:
                steered[0] = True
        elif kind == "LiteralContextDependentNumber":
            pos[0] = n
        elif kind == "LiteralSpecConstantOpInteger":     # the operation's operands are ids
            uses.extend(range(i + 1, n))
            pos[0] = n
        elif cat == "Composite":
            for b in COMPOSITES[kind]:
                operand(b)
        elif cat == "ValueEnum":
            v = w[i]
            pos[0] = i + 1
            params = ENUM_PARAMS.get(kind, {})
            if any(params.values()) and (params.get(v) or pos[0] < n):
                steered[0] = True
            for pk in params.get(v, ()):
                operand(pk.rstrip("?*"))
        elif cat == "BitEnum":
            v = w[i]
            pos[0] = i + 1
            params = ENUM_PARAMS.get(kind, {})
            bits = sorted(b for b in params if v & b)
            if any(params.values()) and (any(params[b] for b in bits) or pos[0] < n):
                steered[0] = True
            for bit in bits:
                for pk in params[bit]:
                    operand(pk.rstrip("?*"))
        else:
            pos[0] = i + 1

    for k in kinds:
        base = k.rstrip("?*")
        if k.endswith("*"):
            while pos[0] < n:
                operand(base)
            continue
        if pos[0] >= n:
            break
        if base == "IdResult":
            r = pos[0]
            pos[0] += 1
        elif base == "IdResultType":
            t = pos[0]
            pos[0] += 1
        else:
            operand(base)
    return (t, r, tuple(uses)), not steered[0]


def id_operands(words: list[int]) -> set[int]:
    """Every id an instruction stream (e.g. one function's words) uses as an operand."""
    used: set[int] = set()
    i = 0
    while i < len(words):
        n, op = words[i] >> 16, words[i] & 0xFFFF
        w = words[i + 1:i + n]
        used.update(w[j] for j in _layout(op, w)[2])
        i += n
    return used


class Block:
    __slots__ = ("label", "insts")

    def __init__(self, label: int, insts: list[Inst]) -> None:
        self.label = label
        self.insts = insts          # everything after OpLabel; the terminator is last

    @property
    def term(self) -> Inst:
        return self.insts[-1]


class Function:
    __slots__ = ("head", "params", "blocks")

    def __init__(self, head: Inst, params: list[Inst], blocks: list[Block]) -> None:
        self.head = head
        self.params = params
        self.blocks = blocks

    @property
    def id(self) -> int:
        return self.head.result


class SpirvModule:
    """Header words, the module-level instructions before the first function, and functions."""

    def __init__(self, header: list[int], globals_: list[Inst], functions: list[Function]) -> None:
        self.header = header
        self.globals = globals_
        self.functions = functions
        self.bound = header[3]

    def new_id(self) -> int:
        i = self.bound
        self.bound += 1
        return i


OP = OPCODES


def parse(binary: bytes) -> SpirvModule:
    words = list(struct.unpack(f"<{len(binary) // 4}I", binary))
    if words[0] != MAGIC:
        raise ValueError("not a SPIR-V module")
    globals_: list[Inst] = []
    functions: list[Function] = []
    f_op, p_op, l_op, end_op = OP["OpFunction"], OP["OpFunctionParameter"], OP["OpLabel"], OP["OpFunctionEnd"]
    layouts, new = _LAYOUTS, Inst.__new__
    head: Inst | None = None            # the OpFunction being read, if any
    params: list[Inst] = []
    blocks: list[Block] = []
    body: list[Inst] = []               # the current block's instructions
    orphans: list[Inst] = []
    # one loop decodes each instruction and files it (a global, a parameter, a block's) in place
    i, end = 5, len(words)
    while i < end:
        h = words[i]
        n, op = h >> 16, h & 0xFFFF
        if head is not None:
            if op == l_op:
                body = []
                blocks.append(Block(words[i + 1], body))
                i += n
                continue
            if op == end_op:
                if orphans:
                    raise ValueError("an instruction before a function's first block")
                functions.append(Function(head, params, blocks))
                head = None
                i += n
                continue
        w = words[i + 1:i + n]
        x = new(Inst)       # Inst(op, w, *layout) without the call overhead: ~40k instructions per 5k lines
        x.op, x.w = op, w
        x.t, x.r, x.uses = layouts.get((op, n - 1)) or _layout(op, w)
        i += n
        if head is None:
            if op == f_op:
                head, params, blocks = x, [], []
                body = orphans = []     # until the first OpLabel: code there belongs to no block
            else:
                globals_.append(x)
        elif op == p_op:
            params.append(x)
        else:
            body.append(x)
    if head is not None:                # (no OpFunctionEnd: the function still ends the module)
        if orphans:
            raise ValueError("an instruction before a function's first block")
        functions.append(Function(head, params, blocks))
    return SpirvModule(words[:5], globals_, functions)


def serialize(m: SpirvModule) -> bytes:
    out: list[int] = [*m.header[:3], m.bound, m.header[4]]

    def put(x: Inst) -> None:
        out.append(((len(x.w) + 1) << 16) | x.op)
        out.extend(x.w)

    for g in m.globals:
        put(g)
    label, end = OP["OpLabel"], OP["OpFunctionEnd"]
    for f in m.functions:
        put(f.head)
        for p in f.params:
            put(p)
        for b in f.blocks:
            out.append((2 << 16) | label)
            out.append(b.label)
            for x in b.insts:
                put(x)
        out.append((1 << 16) | end)
    return struct.pack(f"<{len(out)}I", *out)


class ModuleInfo:
    """What the function passes look up at module scope: pointer types, integer constants,
    read-only globals; `undef(type)` adds (once) an OpUndef of a type."""

    def __init__(self, m: SpirvModule) -> None:
        self.m = m
        self.ptr: dict[int, tuple[int, int]] = {}        # pointer type -> (storage class, pointee)
        self.int_const: dict[int, int] = {}              # 32-bit integer constant -> value
        self.defs: dict[int, Inst] = {}                  # global result id -> instruction
        self._undef: dict[int, int] = {}
        int_types: set[int] = set()
        block_types: set[int] = set()
        changing: set[int] = set()                       # inputs that change during an invocation
        self.decorations: dict[int, list[tuple[int, ...]]] = {}   # decorated id -> its OpDecorate operands after the id
        for x in m.globals:
            if x.r >= 0:
                self.defs[x.result] = x
            if x.op == OP["OpTypePointer"]:
                self.ptr[x.w[0]] = (x.w[1], x.w[2])
            elif x.op == OP["OpTypeInt"] and x.w[1] == 32:
                int_types.add(x.w[0])
            elif x.op == OP["OpConstant"] and x.w[0] in int_types:
                self.int_const[x.w[1]] = x.w[2]
            elif x.op == OP["OpUndef"]:
                self._undef.setdefault(x.w[0], x.w[1])
            elif x.op == OP["OpDecorate"]:
                self.decorations.setdefault(x.w[0], []).append(tuple(x.w[1:]))
                if x.w[1] == 2:                                  # Block (not BufferBlock)
                    block_types.add(x.w[0])
                elif x.w[1] == 11 and x.w[2] == _RAY_TMAX:      # BuiltIn RayTmaxKHR
                    changing.add(x.w[0])
        self.glsl = next((x.w[0] for x in m.globals if x.op == OP["OpExtInstImport"]
                          and bytes(struct.pack(f"<{len(x.w) - 1}I", *x.w[1:])).rstrip(b"\0") == b"GLSL.std.450"), -1)
        # globals whose memory nothing in the shader writes: loads of them can be merged
        self.readonly: set[int] = set()
        for x in m.globals:
            if x.op == OP["OpVariable"] and x.w[1] not in changing:
                sc, pointee = self.ptr.get(x.w[0], (-1, -1))
                if sc in (0, 1, 9) or (sc == 2 and pointee in block_types):   # UniformConstant, Input, PushConstant
                    self.readonly.add(x.w[1])

    def undef(self, type_id: int) -> int:
        u = self._undef.get(type_id)
        if u is None:
            u = self._undef[type_id] = self.m.new_id()
            self.m.globals.append(Inst.make("OpUndef", [type_id, u]))
        return u
