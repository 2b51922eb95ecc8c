"""llvm.Module -> LLVM 3.7 bitcode, in the shape DXIL requires.

Mirrors the record layouts of LLVM 3.7's BitcodeWriter (as kept in DXC):
MODULE_CODE_VERSION 1 (relative operand ids), BLOCKINFO abbreviations for the
constants, function and value-symtab blocks, TYPE_BLOCK_NEW, explicit-type
GLOBALVAR/FUNCTION/CALL/LOAD/GEP records, no IDENTIFICATION block, no wrapper.
Output is deterministic: every table is built in module order.
"""

from __future__ import annotations

from shaderbuild.lightstd import lru_cache

from .bitstream import (
    Abbrev,
    BitstreamWriter,
    BlockCache,
    RecordCache,
    array,
    char6,
    fixed,
    is_char6,
    lit,
    vbr,
    vbr6_digits,
)
from .llvm.builder import ATOMIC_RMW_OPS, CASTS, FCMP_PREDICATES, ICMP_PREDICATES
from .llvm.metadata import DINode, MDNode, MDString, MDValue, Metadata
from .llvm.module import Module
from .llvm.types import (
    ArrayType,
    FloatType,
    FunctionType,
    IntType,
    LabelType,
    MetadataType,
    PointerType,
    StructType,
    Type,
    VoidType,
    i64,
    metadata,
    void,
)
from .llvm.values import (
    ConstAggregate,
    Constant,
    ConstFloat,
    ConstInt,
    ConstNull,
    Function,
    GlobalValue,
    Instruction,
    Undef,
    Value,
    is_null_value,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, TypeGuard

__all__ = ["write_bitcode", "clear_block_caches", "BITCODE_MAGIC"]


def _is_data_array(c: Constant) -> TypeGuard[ConstAggregate]:
    """An array LLVM holds as a ConstantDataArray (i16/i32/i64 or floating-point elements, all
    plain numbers): written as one DATA record of raw element values, its elements never numbered
    as constants of their own (LLVM 3.7's writer and value enumerator).  i8 arrays would be STRING
    records in LLVM and stay aggregates here."""
    if not isinstance(c, ConstAggregate) or not isinstance(c.type, ArrayType) or not c.elems:
        return False
    elem = c.type.elem
    if not (isinstance(elem, FloatType) or (isinstance(elem, IntType) and elem.width in (16, 32, 64))):
        return False
    return all(isinstance(x, (ConstInt, ConstFloat)) for x in c.elems)

# instructions with values or types outside their operands (the enumerator's walk)
_WITH_EXTRAS = frozenset({"alloca", "getelementptr", "phi", "switch"})
# constants numbered per function (GlobalValues are module-level values)
_LITERAL_CLASSES = frozenset({ConstInt, ConstFloat, ConstNull, ConstAggregate, Undef})

BITCODE_MAGIC = b"BC\xc0\xde"

# block ids
MODULE_BLOCK, PARAMATTR_BLOCK, PARAMATTR_GROUP_BLOCK, CONSTANTS_BLOCK, FUNCTION_BLOCK = 8, 9, 10, 11, 12
VALUE_SYMTAB_BLOCK, METADATA_BLOCK, TYPE_BLOCK_NEW = 14, 15, 17

# record codes
TYPE_CODES = {"numentry": 1, "void": 2, "float": 3, "double": 4, "label": 5, "integer": 7, "pointer": 8,
              "half": 10, "array": 11, "metadata": 16, "struct_anon": 18, "struct_name": 19, "struct_named": 20,
              "function": 21}
_FLOAT_TYPE_CODE = {16: 10, 32: 3, 64: 4}
CST_SETTYPE, CST_NULL, CST_UNDEF, CST_INTEGER, CST_FLOAT, CST_AGGREGATE, CST_DATA = 1, 2, 3, 4, 6, 7, 22
FUNC_CODES = {"declareblocks": 1, "binop": 2, "cast": 3, "select": 29, "ret": 10, "br": 11, "switch": 12,
              "unreachable": 15, "phi": 16, "alloca": 19, "load": 20, "extractvalue": 26, "cmp": 28, "call": 34,
              "atomicrmw": 38, "getelementptr": 43, "store": 44, "cmpxchg": 46}
BINOP_CODES = {"add": 0, "sub": 1, "mul": 2, "udiv": 3, "sdiv": 4, "urem": 5, "srem": 6, "shl": 7, "lshr": 8,
               "ashr": 9, "and": 10, "or": 11, "xor": 12,
               "fadd": 0, "fsub": 1, "fmul": 2, "fdiv": 4, "frem": 6}
CAST_CODES = {name: i for i, name in enumerate(CASTS)}
RMW_CODES = {name: i for i, name in enumerate(ATOMIC_RMW_OPS)}
ORDERING_CODES = {"notatomic": 0, "unordered": 1, "monotonic": 2, "acquire": 3, "release": 4, "acq_rel": 5,
                  "seq_cst": 6}
MD_STRING, MD_VALUE, MD_NODE, MD_NAME, MD_NAMED_NODE = 1, 2, 3, 4, 10
FUNC_DEBUG_LOC_AGAIN, FUNC_DEBUG_LOC = 33, 35
VST_ENTRY, VST_BBENTRY = 1, 2
MODULE_VERSION, MODULE_TRIPLE, MODULE_DATALAYOUT, MODULE_GLOBALVAR, MODULE_FUNCTION = 1, 2, 3, 7, 8
PARAMATTR_ENTRY, PARAMATTR_GRP_ENTRY = 2, 3
LINKAGE_CODES = {"external": 0, "internal": 3, "private": 9}
ATTR_KIND_CODES = {"alwaysinline": 2, "noduplicate": 12, "noinline": 14, "noreturn": 17, "nounwind": 18,
                   "readnone": 20, "readonly": 21}
FUNCTION_ATTR_INDEX = 0xFFFFFFFF
_TYPE_BLOCKS = BlockCache()          # type table body by its types (see _Writer._types)
_ATTR_BLOCKS = BlockCache()          # attribute blocks by their sets (see _Writer._attributes)
_SYMTAB_BLOCKS = BlockCache()        # symbol tables by their sorted entries (see _Writer._symtab)
_NAME_RECORDS = RecordCache()        # metadata names and strings, the triple and datalayout
_PROTO_RECORDS = RecordCache()       # function prototype records (see _Writer._globals)

_MD_STRING_ABBREV = Abbrev((lit(MD_STRING), array(), fixed(8)))
_MD_NAME_ABBREV = Abbrev((lit(MD_NAME), array(), fixed(8)))

# abbreviation ids fixed by the BLOCKINFO block below (first application id is 4)
VST_ENTRY_8, VST_ENTRY_7, VST_ENTRY_6, VST_BBENTRY_6 = 4, 5, 6, 7
CST_SETTYPE_ABBREV, CST_INTEGER_ABBREV, CST_CE_CAST_ABBREV, CST_NULL_ABBREV = 4, 5, 6, 7
FUNC_BINOP = FUNC_CODES["binop"]
FN_LOAD, FN_BINOP, FN_BINOP_FLAGS, FN_CAST, FN_RET_VOID, FN_RET_VAL, FN_UNREACHABLE, FN_GEP = 4, 5, 6, 7, 8, 9, 10, 11


def _signed(v: int) -> int:
    return v << 1 if v >= 0 else ((-v) << 1) | 1


def _log2_ceil(n: int) -> int:
    return (n - 1).bit_length() if n > 1 else 0


def _align_code(align: int) -> int:
    return align.bit_length() if align else 0      # Log2(align) + 1 for powers of two


class _Enumerator:
    """Assigns type, value, metadata and attribute ids the way LLVM's ValueEnumerator does."""

    def __init__(self, module: Module, debug_locs: dict | None = None) -> None:
        self.module = module
        self.types: list[Type] = []
        self.type_ids: dict[Type, int] = {}
        self.values: list[Value] = []
        self.value_ids: dict[object, int] = {}
        self.md_records: list[tuple[int, Any]] = []       # (code, operands or text) per metadata id
        self.md_ids: dict[int, int] = {}                  # id(metadata object) -> metadata id
        self._md_strings: dict[str, int] = {}
        self._md_values: dict[int, int] = {}               # by value id
        self._md_ints: dict[tuple[Type, int], int] = {}    # integer constants by (type, value)
        self._md_nodes: dict[tuple[int, ...], int] = {}    # by the record's operands
        self.attr_sets: list[tuple[str, ...]] = []
        for g in module.globals:
            self._add_value(g)
        for f in module.functions:
            self._add_value(f)
        for g in module.globals:
            self.type_of(g.value_type)
            self.type_of(g.type)
        for f in module.functions:
            self.type_of(f.ftype)
            self.type_of(f.type)
            if f.attrs and f.attrs not in self.attr_sets:
                self.attr_sets.append(f.attrs)
        self.first_constant = len(self.values)
        for g in module.globals:
            if g.initializer is not None:
                self._add_constant(g.initializer)
        for nmd in module.named_md:
            for node in nmd.nodes:
                self._add_md(node)
        if debug_locs is not None:       # -Zi: the debug named metadata, and the scopes of the locations
            for nmd in module.debug_md:
                for node in nmd.nodes:
                    self._add_md(node)
            for _line, _col, scope, inlined_at in dict.fromkeys(debug_locs.values()):
                self._add_md(scope)
                if inlined_at is not None:
                    self._add_md(inlined_at)
            for _value, var, expr, (_line, _col, scope, inlined_at) in module.debug_values:
                self._add_md(var)
                self._add_md(expr)
                self._add_md(scope)
                if inlined_at is not None:
                    self._add_md(inlined_at)
            if module.debug_values:         # llvm.dbg.value's i64 0 operand
                self.debug_zero = ConstInt(i64, 0)
                self._add_constant(self.debug_zero)
        self.num_module_values = len(self.values)
        self._known: set[int] = set()     # ids of type objects already numbered (C-level hashing)
        self.bodies: dict[int, tuple[dict[object, int], list[Value], int, int]] = {}
        for f in module.functions:
            if f.blocks:
                self._number_body(f)

    def _number_body(self, f: Function) -> None:
        """One walk of a body: the types it uses (known ones skipped inline) and its values
        numbered after the module's (arguments, literal operands in first-use order, then the
        value-producing instructions), into a copy of the module's value ids that `incorporate`
        swaps in while the body is written.  A call's result and argument types are the callee's
        (numbered with the module's functions; the builder checks arguments against parameters),
        so only its literal operands are looked at."""
        type_of, known = self.type_of, self._known
        known_add = known.add
        module_ids, n_module = self.value_ids, len(self.values)
        ids = self.value_ids = dict(module_ids)
        values = self.values
        for a in f.args:
            self._add_value(a)
        cst_start = len(values)
        literal_classes = _LITERAL_CLASSES
        add_constant = self._add_constant
        literal: Callable[[Any], None] = self._add_literal     # given constants only: the class tests below
        valued: list[Value] = []
        add_valued = valued.append
        for bb in f.blocks:
            for inst in bb.instructions:
                op = inst.op
                if op == "call":
                    if inst.type.__class__ is not VoidType:
                        add_valued(inst)
                    for v in inst.operands:
                        if v.__class__ in literal_classes and id(v) not in ids:
                            key = v.key()  # type: ignore[attr-defined]  # a literal class: a Constant (_add_constant inlined)
                            vid = ids.get(key)
                            if vid is None:
                                if v.__class__ is ConstAggregate:
                                    add_constant(v)
                                    continue
                                vid = ids[key] = len(values)
                                values.append(v)
                            ids[id(v)] = vid
                    continue
                t = inst.type
                if id(t) not in known:
                    type_of(t)
                    known_add(id(t))
                if t.__class__ is not VoidType:
                    add_valued(inst)
                for v in inst.operands:
                    t = v.type
                    if id(t) not in known:
                        type_of(t)
                        known_add(id(t))
                    if v.__class__ in literal_classes and id(v) not in ids:
                        literal(v)
                if op not in _WITH_EXTRAS:
                    continue
                attrs = inst.attrs
                if op == "alloca":                # alloca's and GEP's type operands
                    type_of(attrs["allocated"])
                elif op == "getelementptr":
                    type_of(attrs["source"])
                elif op == "phi":
                    for v, _ in attrs["incoming"]:
                        if id(v.type) not in known:
                            type_of(v.type)
                            known_add(id(v.type))
                        if v.__class__ in literal_classes and id(v) not in ids:
                            literal(v)
                elif op == "switch":
                    for c, _ in attrs["cases"]:
                        if c.__class__ in literal_classes and id(c) not in ids:
                            literal(c)
        inst_start = len(values)
        ids.update(zip(map(id, valued), range(inst_start, inst_start + len(valued))))
        self.bodies[id(f)] = (ids, values[n_module:] + valued, cst_start, inst_start)
        del values[n_module:]
        self.value_ids = module_ids

    def _add_literal(self, c: Constant) -> None:
        """A literal operand (its type is numbered): _add_constant with one key() for scalars."""
        ids = self.value_ids
        key = c.key()
        vid = ids.get(key)
        if vid is None:
            if c.__class__ is ConstAggregate:
                self._add_constant(c)
                return
            if c.type not in self.type_ids:
                self.type_of(c.type)
            vid = ids[key] = len(self.values)
            self.values.append(c)
        ids[id(c)] = vid

    # ---- types
    def type_of(self, t: Type) -> int:
        """Number `t` after the types it refers to (post-order); known parts are skipped inline."""
        ids = self.type_ids
        tid = ids.get(t)
        if tid is not None:
            return tid
        if type(t) is PointerType:
            if t.pointee not in ids:
                self.type_of(t.pointee)
        elif type(t) is ArrayType:
            if t.elem not in ids:
                self.type_of(t.elem)
        elif type(t) is StructType:
            if t.name is not None:                       # named structs may be referenced recursively
                ids[t] = -1
            for e in t.elems:
                if e not in ids:
                    self.type_of(e)
        elif type(t) is FunctionType:
            if t.ret not in ids:
                self.type_of(t.ret)
            for p in t.params:
                if p not in ids:
                    self.type_of(p)
        tid = len(self.types)
        self.types.append(t)
        ids[t] = tid
        return tid

    # ---- values
    @staticmethod
    def _key(v: Value) -> object:
        return v.key() if isinstance(v, Constant) and not isinstance(v, GlobalValue) else id(v)

    def _add_value(self, v: Value, key: object = None) -> int:
        vid = len(self.values)
        self.value_ids[self._key(v) if key is None else key] = vid
        self.values.append(v)
        return vid

    def _add_constant(self, c: Constant) -> None:
        """Number `c` unless an equal constant already is; either way remember c's id."""
        ids = self.value_ids
        if id(c) in ids:
            return
        key = c.key()
        vid = ids.get(key)
        if vid is None:
            if isinstance(c, ConstAggregate) and not is_null_value(c) and not _is_data_array(c):
                for e in c.elems:
                    self._add_constant(e)
            self.type_of(c.type)
            vid = self._add_value(c, key)
        ids[id(c)] = vid

    def value_id(self, v: Value) -> int:
        """Non-constants are keyed by id(); a constant by its key, and then also by its id
        (memo: every value written is alive for the whole write, so ids are not reused)."""
        ids = self.value_ids
        vid = ids.get(id(v))
        if vid is None:
            vid = ids[id(v)] = ids[self._key(v)]
        return vid

    # ---- metadata
    def _add_md(self, md: Metadata) -> int:
        """Number metadata operands first (post-order); equal strings, values and tuples share one
        id (uniquing), and each new id's record is made at once (its operands are numbered by
        then), so the writer needs no second walk.  A node's operands are numbered inline, straight
        into its record: they are most of the metadata, and a call per operand is most of the cost."""
        md_ids = self.md_ids
        n = md_ids.get(id(md))
        if n is not None:
            return n
        if type(md) is DINode:
            return self._add_di(md)
        if type(md) is not MDNode:
            n = md_ids[id(md)] = self._md_string(md.text) if type(md) is MDString else self._md_value(md.value)  # type: ignore[attr-defined]  # an MDValue
            return n
        strings, ints = self._md_strings, self._md_ints
        rec: list[int] = []                       # operand ids + 1, 0 for null
        for op in md.ops:
            if type(op) is MDValue:               # the common operand: an i32 or i8 of dx.*
                n = md_ids.get(id(op))            # metadata, mostly shared objects (md_int)
                if n is None:
                    v = op.value
                    if type(v) is ConstInt:
                        key = (v.type, v.value)
                        n = ints.get(key)
                        if n is None:
                            n = ints[key] = self._md_value(v)
                    else:
                        n = self._md_value(v)
                    md_ids[id(op)] = n
            elif type(op) is MDNode:
                n = md_ids.get(id(op))
                if n is None:
                    n = self._add_md(op)
            elif type(op) is MDString:
                n = strings.get(op.text)
                if n is None:
                    n = self._md_string(op.text)
            elif op is None:
                n = -1
            elif type(op) is DINode:
                n = md_ids.get(id(op))
                if n is None:
                    n = self._add_di(op)
            else:
                raise TypeError(f"cannot write metadata {op!r}")
            rec.append(n + 1)
        node_key = tuple(rec)
        n = self._md_nodes.get(node_key)
        if n is None:
            n = self._md_nodes[node_key] = len(self.md_records)
            self.md_records.append((MD_NODE, node_key))
        md_ids[id(md)] = n
        return n

    def _add_di(self, md: DINode) -> int:
        """A debug-info node: its metadata operands numbered first, then its record (one per
        node object: distinct nodes must not be merged, and the few uniqued ones are made once).
        An `early` node takes its id before its operands are numbered (see DINode)."""
        n = -1
        if md.early:
            n = self.md_ids[id(md)] = len(self.md_records)
            self.md_records.append((md.code, ()))
        rec = [1 if md.distinct else 0]
        for i, op in enumerate(md.ops):
            if op is None:
                rec.append(0)
            elif isinstance(op, int):
                rec.append(op)
            else:
                rec.append(self._add_md(op) + (i not in md.required))
        if n < 0:
            n = self.md_ids[id(md)] = len(self.md_records)
            self.md_records.append((md.code, tuple(rec)))
        else:
            self.md_records[n] = (md.code, tuple(rec))
        return n

    def _md_string(self, text: str) -> int:
        n = self._md_strings.get(text)
        if n is None:
            n = self._md_strings[text] = len(self.md_records)
            self.md_records.append((MD_STRING, text))
        return n

    def _md_value(self, v: Value) -> int:
        """A value as metadata, numbering its type and the value first; equal constants are one
        value, so the value id is the uniquing key."""
        if v.__class__ is ConstInt:                  # _add_constant inlined for the common case
            t = v.type
            if t not in self.type_ids:
                self.type_of(t)
            key = v.key()
            vid = self.value_ids.get(key)
            if vid is None:
                vid = self.value_ids[key] = len(self.values)
                self.values.append(v)
            self.value_ids[id(v)] = vid
        else:
            self.type_of(v.type)
            if isinstance(v, Constant) and not isinstance(v, GlobalValue):
                self._add_constant(v)
            elif id(v) not in self.value_ids:        # not a constant: numbered by identity
                self._add_value(v)
            vid = self.value_ids[id(v)]
        n = self._md_values.get(vid)
        if n is None:
            n = self._md_values[vid] = len(self.md_records)
            self.md_records.append((MD_VALUE, (self.type_ids[v.type], vid)))
        return n

    # ---- functions
    def incorporate(self, f: Function) -> tuple[int, int, dict[int, int]]:
        """Swap in a body's values numbered by _number_body; returns (first constant id, first
        instruction id, block index map)."""
        ids, local, cst_start, inst_start = self.bodies[id(f)]
        self._saved = (len(self.values), self.value_ids)
        self.value_ids = ids
        self.values += local
        return cst_start, inst_start, {id(bb): i for i, bb in enumerate(f.blocks)}

    def purge(self) -> None:
        n, ids = self._saved
        del self.values[n:]
        self.value_ids = ids


class _Writer:
    def __init__(self, module: Module, debug_locs: dict | None = None, dbg_value: Function | None = None) -> None:
        self.m = module
        self.debug_locs = debug_locs
        self.dbg_value = dbg_value
        self.e = _Enumerator(module, debug_locs)
        self.w = BitstreamWriter()
        self.type_bits = _log2_ceil(len(self.e.types) + 1)

    def write(self) -> bytes:
        w = self.w
        w.emit(int.from_bytes(BITCODE_MAGIC, "little"), 32)     # 'BC' 0xC0DE, byte by byte
        w.enter_block(MODULE_BLOCK, 3)
        w.emit_record(MODULE_VERSION, [1])
        self._blockinfo()
        self._attributes()
        self._types()
        self._string_record(MODULE_TRIPLE, self.m.triple)
        self._string_record(MODULE_DATALAYOUT, self.m.datalayout)
        self._globals()
        self._constants(self.e.first_constant, self.e.num_module_values, module_level=True)
        self._metadata()
        self._symtab([(g.name, self.e.value_id(g)) for g in (*self.m.globals, *self.m.functions) if g.name])
        for f in self.m.functions:
            if not f.is_declaration:
                self._function(f)
        w.exit_block()
        return w.data()

    def _string_record(self, code: int, text: str) -> None:
        if text:
            self.w.emit_record_cached(_NAME_RECORDS, code, text.encode())

    # ---- BLOCKINFO: the standard abbreviations of LLVM 3.7
    def _blockinfo(self) -> None:
        self.w.write_blockinfo(_blockinfo_entries(self.type_bits))

    # ---- attributes: one group (function slot) per distinct set
    def _attributes(self) -> None:
        """Both attribute blocks depend on the list of sets alone (cached: the dx.op attribute
        sets are the same few in every module)."""
        sets = tuple(self.e.attr_sets)
        if not sets:
            return
        w = self.w
        w.block_cached(PARAMATTR_GROUP_BLOCK, 3, _ATTR_BLOCKS, ("groups", sets), lambda: self._attr_groups(sets))
        w.block_cached(PARAMATTR_BLOCK, 3, _ATTR_BLOCKS, ("entries", len(sets)), lambda: self._attr_entries(len(sets)))

    def _attr_groups(self, sets: tuple[tuple[str, ...], ...]) -> None:
        for gid, attrs in enumerate(sets, start=1):
            rec = [gid, FUNCTION_ATTR_INDEX]
            for a in sorted(attrs, key=ATTR_KIND_CODES.__getitem__):
                rec += [0, ATTR_KIND_CODES[a]]
            self.w.emit_record(PARAMATTR_GRP_ENTRY, rec)

    def _attr_entries(self, n: int) -> None:
        for gid in range(1, n + 1):
            self.w.emit_record(PARAMATTR_ENTRY, [gid])

    # ---- types
    def _types(self) -> None:
        """The type table, copied from _TYPE_BLOCKS when an equal table was written before (the
        key holds every type; named structs compare by name, so their bodies are added)."""
        key = (self.type_bits, *[(t, t.elems, t.packed) if t.__class__ is StructType and t.name is not None else t
                                 for t in self.e.types])
        self.w.block_cached(TYPE_BLOCK_NEW, 4, _TYPE_BLOCKS, key, self._type_records)

    def _type_records(self) -> None:
        w, e, tb = self.w, self.e, self.type_bits
        ptr_ab = w.define_abbrev(Abbrev((lit(TYPE_CODES["pointer"]), fixed(tb), lit(0))))
        fn_ab = w.define_abbrev(Abbrev((lit(TYPE_CODES["function"]), fixed(1), array(), fixed(tb))))
        anon_ab = w.define_abbrev(Abbrev((lit(TYPE_CODES["struct_anon"]), fixed(1), array(), fixed(tb))))
        name_ab = w.define_abbrev(Abbrev((lit(TYPE_CODES["struct_name"]), array(), char6())))
        named_ab = w.define_abbrev(Abbrev((lit(TYPE_CODES["struct_named"]), fixed(1), array(), fixed(tb))))
        arr_ab = w.define_abbrev(Abbrev((lit(TYPE_CODES["array"]), vbr(8), fixed(tb))))
        w.emit_record(TYPE_CODES["numentry"], [len(e.types)])
        for t in e.types:
            if isinstance(t, VoidType):
                w.emit_record(TYPE_CODES["void"], [])
            elif isinstance(t, FloatType):
                w.emit_record(_FLOAT_TYPE_CODE[t.width], [])
            elif isinstance(t, LabelType):
                w.emit_record(TYPE_CODES["label"], [])
            elif isinstance(t, MetadataType):
                w.emit_record(TYPE_CODES["metadata"], [])
            elif isinstance(t, IntType):
                w.emit_record(TYPE_CODES["integer"], [t.width])
            elif isinstance(t, PointerType):
                if t.addrspace == 0:
                    w.emit_record(TYPE_CODES["pointer"], [e.type_ids[t.pointee], 0], ptr_ab)
                else:
                    w.emit_record(TYPE_CODES["pointer"], [e.type_ids[t.pointee], t.addrspace])
            elif isinstance(t, FunctionType):
                w.emit_record(TYPE_CODES["function"],
                              [int(t.vararg), e.type_ids[t.ret], *(e.type_ids[p] for p in t.params)], fn_ab)
            elif isinstance(t, StructType):
                elems = [int(t.packed), *(e.type_ids[x] for x in t.elems)]
                if t.name is None:
                    w.emit_record(TYPE_CODES["struct_anon"], elems, anon_ab)
                else:
                    name = list(t.name.encode())
                    w.emit_record(TYPE_CODES["struct_name"], name, name_ab if is_char6(t.name) else 0)
                    w.emit_record(TYPE_CODES["struct_named"], elems, named_ab)
            elif isinstance(t, ArrayType):
                w.emit_record(TYPE_CODES["array"], [t.count, e.type_ids[t.elem]], arr_ab)
            else:
                raise TypeError(f"cannot write type {t}")

    # ---- globals and function prototypes
    def _globals(self) -> None:
        w, e = self.w, self.e
        for g in self.m.globals:
            init = 0 if g.initializer is None else e.value_id(g.initializer) + 1
            rec = [e.type_ids[g.value_type], g.addrspace << 2 | 2 | int(g.constant), init,
                   LINKAGE_CODES[g.linkage], _align_code(g.align), 0]
            if g.unnamed_addr:
                rec += [0, 0, 1, 0, 0, 0]
            w.emit_record(MODULE_GLOBALVAR, rec)
        emit_cached, type_ids, attr_sets = w.emit_record_cached, e.type_ids, e.attr_sets
        for f in self.m.functions:            # prototypes recur across modules: cached digits
            proto = (type_ids[f.ftype], 0, 0 if f.blocks else 1, LINKAGE_CODES[f.linkage],
                     attr_sets.index(f.attrs) + 1 if f.attrs else 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            emit_cached(_PROTO_RECORDS, MODULE_FUNCTION, proto)

    # ---- constants
    def _constants(self, first: int, last: int, module_level: bool) -> None:
        """Values first..last-1, one record each (after a SETTYPE when the type changes); the
        module-level block defines its own aggregate/string abbreviations.  Not cached across
        compiles: constants are specific to one shader, and a cache keyed by them would only hit
        when the very same shader is compiled again (a benchmark loop, not a build)."""
        if first == last:
            return
        e, w = self.e, self.w
        type_ids, value_id = e.type_ids, e.value_id
        w.enter_block(CONSTANTS_BLOCK, 4)
        agg_ab = 0
        if module_level:
            agg_ab = 8                          # the first abbreviation the block defines
            for ab in _module_constant_abbrevs(_log2_ceil(last + 1)):
                w.define_abbrev(ab)
        emit = w.emit_record
        # the scalar records are appended here: SETTYPE, INTEGER and NULL from their
        # abbreviations' digit tables, FLOAT unabbreviated
        pieces, unabbrev = w.unabbreviated_sink()
        settype_id, (type_field,) = w.abbrev_digits(CST_SETTYPE_ABBREV)
        int_id, (int_field,) = w.abbrev_digits(CST_INTEGER_ABBREV)
        null_id = w.abbrev_digits(CST_NULL_ABBREV)[0]
        float_head = (unabbrev, vbr6_digits[CST_FLOAT], vbr6_digits[1])
        last_type = None
        for c in e.values[first:last]:
            assert isinstance(c, Constant)      # first..last: the constants
            t = c.type
            if t is not last_type and t != last_type:
                last_type = t
                pieces += (settype_id, type_field[type_ids[t]])
            # the scalar kinds by class (is_null_value inlined)
            if type(c) is ConstInt:
                v = c.value
                width = c.type.width
                if v == 0:
                    pieces.append(null_id)
                elif v >> (width - 1):              # stored unsigned: the signed value, VBR-signed
                    pieces += (int_id, int_field[(((1 << width) - v) << 1) | 1])
                else:
                    pieces += (int_id, int_field[v << 1])
            elif type(c) is ConstFloat:
                if c.bits == 0:
                    pieces.append(null_id)
                else:
                    pieces += float_head
                    pieces.append(vbr6_digits[c.bits])
            elif is_null_value(c):
                emit(CST_NULL, (), CST_NULL_ABBREV)
            elif isinstance(c, Undef):
                emit(CST_UNDEF, ())
            elif isinstance(c, ConstInt):
                emit(CST_INTEGER, (_signed(c.signed),), CST_INTEGER_ABBREV)
            elif isinstance(c, ConstFloat):
                emit(CST_FLOAT, (c.bits,))
            elif _is_data_array(c):
                emit(CST_DATA, [x.value if isinstance(x, ConstInt) else x.bits for x in c.elems
                                if isinstance(x, (ConstInt, ConstFloat))])      # (all are: _is_data_array)
            elif isinstance(c, ConstAggregate):
                emit(CST_AGGREGATE, [value_id(x) for x in c.elems], agg_ab)
            else:
                raise TypeError(f"cannot write constant {c!r}")
        w.exit_block()

    # ---- metadata
    def _metadata(self) -> None:
        """The metadata block: the records the enumerator made, then the named metadata."""
        e = self.e
        named = self.m.named_md
        if self.debug_locs is not None:
            named = named + self.m.debug_md
        if not e.md_records and not named:
            return
        w = self.w
        w.enter_block(METADATA_BLOCK, 3)           # not cached: shader-specific (see _constants)
        str_ab = w.define_abbrev(_MD_STRING_ABBREV)
        name_ab = w.define_abbrev(_MD_NAME_ABBREV)
        emit, emit_cached = w.emit_record, w.emit_record_cached
        pieces, unabbrev = w.unabbreviated_sink()  # values and nodes: appended here (no call each)
        v6, v6_get = vbr6_digits, vbr6_digits.__getitem__
        for code, ops in e.md_records:
            if code == MD_STRING:                  # strings and names recur across modules
                emit_cached(_NAME_RECORDS, code, ops.encode(), str_ab)
            else:
                pieces += (unabbrev, v6[code], v6[len(ops)])
                pieces += map(v6_get, ops)
        md_ids = e.md_ids
        for nmd in named:
            emit_cached(_NAME_RECORDS, MD_NAME, nmd.name.encode(), name_ab)
            emit(MD_NAMED_NODE, [md_ids[id(n)] for n in nmd.nodes])
        w.exit_block()

    # ---- value symbol table
    def _symtab(self, entries: list[tuple[str, int]], bb_entries: Sequence[tuple[str, int]] = ()) -> None:
        """Names with their value / block ids; the block is a function of the sorted entries
        (cached: the module's dx.op declarations recur)."""
        if not entries and not bb_entries:
            return
        key = (tuple(sorted(entries)), tuple(sorted(bb_entries)))
        self.w.block_cached(VALUE_SYMTAB_BLOCK, 4, _SYMTAB_BLOCKS, key, lambda: self._symtab_records(*key))

    def _symtab_records(self, entries: tuple[tuple[str, int], ...], bb_entries: tuple[tuple[str, int], ...]) -> None:
        w = self.w
        for name, vid in entries:
            data = list(name.encode())
            if is_char6(name):
                w.emit_record(VST_ENTRY, [vid, *data], VST_ENTRY_6)
            elif all(b < 128 for b in data):
                w.emit_record(VST_ENTRY, [vid, *data], VST_ENTRY_7)
            else:
                w.emit_record(VST_ENTRY, [vid, *data], VST_ENTRY_8)
        for name, bid in bb_entries:
            data = list(name.encode())
            w.emit_record(VST_BBENTRY, [bid, *data], VST_BBENTRY_6 if is_char6(name) else 0)

    # ---- function bodies
    def _function(self, f: Function) -> None:
        w, e = self.w, self.e
        w.enter_block(FUNCTION_BLOCK, 4)
        cst_start, inst_id, self._bb = e.incorporate(f)
        self._vid = e.value_ids.get
        self._vids = e.value_ids.__getitem__
        self._callees: dict[int, tuple[str, int]] = {}
        w.emit_record(FUNC_CODES["declareblocks"], [len(f.blocks)])
        self._constants(cst_start, inst_id, module_level=False)
        dbg_calls = self._debug_values(f) if self.dbg_value is not None else None
        names = [(a.name, e.value_id(a)) for a in f.args if a.name]
        # one record per instruction, by the encoder of its opcode (_ENCODERS); unabbreviated
        # records are appended to the stream here (no call per record), and an encoder that
        # returns None has appended its record itself
        encoders, emit_record = _ENCODERS, w.emit_record
        pieces, unabbrev = self._sink = w.unabbreviated_sink()
        v6, v6_get = vbr6_digits, vbr6_digits.__getitem__
        debug_locs, last_loc = self.debug_locs, None
        for bb in f.blocks:
            for inst in bb.instructions:
                iid = inst_id                     # this instruction's id (if it has a value)
                if inst.type.__class__ is not VoidType:
                    if inst.name:                 # named values go to the symbol table
                        names.append((inst.name, iid))
                    inst_id += 1
                vals: list[int] = []
                rec = encoders[inst.op](self, inst, iid, vals)
                if rec is not None:
                    code, ab = rec
                    if ab:
                        emit_record(code, vals, ab)
                    else:
                        pieces += (unabbrev, v6[code], v6[len(vals)])
                        pieces += map(v6_get, vals)
                if debug_locs is not None:
                    last_loc = self._debug_loc(debug_locs.get(inst), last_loc)
                    if dbg_calls and inst in dbg_calls:
                        last_loc = self._dbg_value_calls(dbg_calls, inst, bb, inst_id, last_loc)
        self._symtab(names, [(bb.name, self._bb[id(bb)]) for bb in f.blocks if bb.name])
        e.purge()
        w.exit_block()

    def _debug_values(self, f: Function) -> dict:
        """-Zi: the function's metadata block of the values its llvm.dbg.value calls name (function-
        local metadata, numbered after the module's), and the calls to make after each value's
        definition: {instruction: [(metadata id, variable, expression, location)]}."""
        e = self.e
        ids = e.value_ids
        local = [(v, var, expr, loc) for v, var, expr, loc in self.m.debug_values
                 if isinstance(v, Instruction) and id(v) in ids and v.parent is not None and v.parent.parent is f]
        if not local:
            return {}
        md_of: dict[int, int] = {}
        calls: dict = {}
        self.w.enter_block(METADATA_BLOCK, 3)
        for v, var, expr, loc in local:
            n = md_of.get(id(v))
            if n is None:
                n = md_of[id(v)] = len(e.md_records) + len(md_of)
                self.w.emit_record(MD_VALUE, [e.type_ids[v.type], ids[id(v)]])
            calls.setdefault(v, []).append((n, var, expr, loc))
        self.w.exit_block()
        return calls

    def _dbg_value_calls(self, calls: dict, inst: Instruction, bb, inst_id: int, last: tuple | None) -> tuple | None:
        """llvm.dbg.value(metadata %v, i64 0, metadata !var, metadata !expr) for the values `inst`
        defines (after the block's last phi when `inst` is a phi), each with its statement's location."""
        if inst.op == "phi":
            insts = bb.instructions
            nxt = insts[insts.index(inst) + 1] if insts.index(inst) + 1 < len(insts) else None
            if nxt is not None and nxt.op == "phi":     # wait for the last phi of the block
                calls.setdefault(nxt, []).extend(calls.pop(inst))
                return last
        e = self.e
        fn = self.dbg_value
        assert fn is not None
        for n, var, expr, loc in calls.pop(inst):
            self.w.emit_record(FUNC_CODES["call"], [
                0, 1 << 15, e.type_ids[fn.ftype], inst_id - e.value_id(fn),
                (inst_id - n) & 0xFFFFFFFF, inst_id - e.value_id(e.debug_zero),
                (inst_id - e.md_ids[id(var)]) & 0xFFFFFFFF, (inst_id - e.md_ids[id(expr)]) & 0xFFFFFFFF])
            last = self._debug_loc(loc, last)
        return last

    def _debug_loc(self, loc: tuple | None, last: tuple | None) -> tuple | None:
        """-Zi: the instruction's DEBUG_LOC record (DEBUG_LOC_AGAIN when it repeats the last one)."""
        if loc is None:
            return last
        if loc is last:
            self.w.emit_record(FUNC_DEBUG_LOC_AGAIN, [])
        else:
            line, col, scope, inlined_at = loc
            md_ids = self.e.md_ids
            self.w.emit_record(FUNC_DEBUG_LOC, [line, col, md_ids[id(scope)] + 1,
                                                0 if inlined_at is None else md_ids[id(inlined_at)] + 1])
        return loc

    def _push(self, vals: list[int], v: Value, inst_id: int, with_type: bool = True) -> bool:
        """Relative operand id; a forward reference also carries its type. Returns True if typed."""
        try:
            vid = self._vids(id(v))
        except KeyError:                          # an operand known only by its constant key
            vid = self.e.value_id(v)
        if vid < inst_id:
            vals.append(inst_id - vid)
            return False
        vals.append((inst_id - vid) & 0xFFFFFFFF)
        if with_type:
            vals.append(self.e.type_ids[v.type])
            return True
        return False

    def _binop(self, inst: Instruction, iid: int, vals: list[int]) -> tuple[int, int]:
        a, b = inst.operands
        try:                                      # _push inlined for the common backward references
            va, vb = self._vids(id(a)), self._vids(id(b))
        except KeyError:
            va, vb = self.e.value_id(a), self.e.value_id(b)
        if va < iid and vb < iid:
            vals += [iid - va, iid - vb, BINOP_CODES[inst.op]]
            fwd = False
        else:
            fwd = self._push(vals, a, iid)
            self._push(vals, b, iid, False)
            vals.append(BINOP_CODES[inst.op])
        flags = inst.attrs.get("flags", 0)
        if flags:
            vals.append(flags)
        return FUNC_BINOP, 0 if fwd else (FN_BINOP_FLAGS if flags else FN_BINOP)

    def _cast(self, inst: Instruction, iid: int, vals: list[int]) -> tuple[int, int]:
        fwd = self._push(vals, inst.operands[0], iid)
        vals += [self.e.type_ids[inst.type], CAST_CODES[inst.op]]
        return FUNC_CODES["cast"], 0 if fwd else FN_CAST

    def _gep(self, inst: Instruction, iid: int, vals: list[int]) -> tuple[int, int]:
        vals += [int(inst.attrs["inbounds"]), self.e.type_ids[inst.attrs["source"]]]
        fwd = False
        for o in inst.operands:
            fwd |= self._push(vals, o, iid)
        return FUNC_CODES["getelementptr"], 0 if fwd else FN_GEP

    def _extractvalue(self, inst: Instruction, iid: int, vals: list[int]) -> tuple[int, int]:
        self._push(vals, inst.operands[0], iid)
        vals += inst.attrs["indices"]
        return FUNC_CODES["extractvalue"], 0

    def _select(self, inst: Instruction, iid: int, vals: list[int]) -> tuple[int, int]:
        c, a, b = inst.operands
        self._push(vals, a, iid)
        self._push(vals, b, iid, False)
        self._push(vals, c, iid)
        return FUNC_CODES["select"], 0

    def _cmp(self, inst: Instruction, iid: int, vals: list[int]) -> tuple[int, int]:
        a, b = inst.operands
        self._push(vals, a, iid)
        self._push(vals, b, iid, False)
        vals.append((ICMP_PREDICATES if inst.op == "icmp" else FCMP_PREDICATES)[inst.attrs["pred"]])
        return FUNC_CODES["cmp"], 0

    def _ret(self, inst: Instruction, iid: int, vals: list[int]) -> tuple[int, int]:
        if inst.operands:
            fwd = self._push(vals, inst.operands[0], iid)
            return FUNC_CODES["ret"], 0 if fwd else FN_RET_VAL
        return FUNC_CODES["ret"], FN_RET_VOID

    def _br(self, inst: Instruction, iid: int, vals: list[int]) -> tuple[int, int]:
        targets = inst.attrs["targets"]
        vals.append(self._bb[id(targets[0])])
        if inst.operands:
            vals.append(self._bb[id(targets[1])])
            self._push(vals, inst.operands[0], iid, False)
        return FUNC_CODES["br"], 0

    def _switch(self, inst: Instruction, iid: int, vals: list[int]) -> tuple[int, int]:
        e = self.e
        cond = inst.operands[0]
        vals.append(e.type_ids[cond.type])
        self._push(vals, cond, iid, False)
        vals.append(self._bb[id(inst.attrs["default"])])
        for c, bb in inst.attrs["cases"]:
            vals += [e.value_id(c), self._bb[id(bb)]]
        return FUNC_CODES["switch"], 0

    def _unreachable(self, inst: Instruction, iid: int, vals: list[int]) -> tuple[int, int]:
        return FUNC_CODES["unreachable"], FN_UNREACHABLE

    def _phi(self, inst: Instruction, iid: int, vals: list[int]) -> tuple[int, int]:
        e, bbs = self.e, self._bb
        vals.append(e.type_ids[inst.type])
        vid_get = e.value_ids.get
        for v, bb in inst.attrs["incoming"]:
            vid = vid_get(id(v))
            if vid is None:                       # an operand known only by its constant key
                vid = e.value_id(v)
            d = iid - vid                         # signed VBR: forward references are negative
            vals += (d << 1 if d >= 0 else (-d << 1) | 1, bbs[id(bb)])
        return FUNC_CODES["phi"], 0

    def _alloca(self, inst: Instruction, iid: int, vals: list[int]) -> tuple[int, int]:
        e = self.e
        size = inst.operands[0]
        vals += [e.type_ids[inst.attrs["allocated"]], e.type_ids[size.type], e.value_id(size),
                 _align_code(inst.attrs["align"]) | 1 << 6]
        return FUNC_CODES["alloca"], 0

    def _load(self, inst: Instruction, iid: int, vals: list[int]) -> tuple[int, int]:
        fwd = self._push(vals, inst.operands[0], iid)
        vals += [self.e.type_ids[inst.type], _align_code(inst.attrs["align"]), int(inst.attrs["volatile"])]
        return FUNC_CODES["load"], 0 if fwd else FN_LOAD

    def _store(self, inst: Instruction, iid: int, vals: list[int]) -> tuple[int, int]:
        value, ptr = inst.operands
        self._push(vals, ptr, iid)
        self._push(vals, value, iid)
        vals += [_align_code(inst.attrs["align"]), int(inst.attrs["volatile"])]
        return FUNC_CODES["store"], 0

    def _call_head(self, ops: list[Value]) -> tuple[str, int]:
        """(digits, value id) of a callee: the digits up to the callee operand (record id, code,
        operand count, attributes, calling convention, function type) are the same for every
        call of a callee, so they are made once per callee and function."""
        fn = ops[0]
        assert isinstance(fn, Function)         # a call's first operand
        fields = [self._sink[1], *map(vbr6_digits.__getitem__,
                                      (FUNC_CODES["call"], len(ops) + 3, 0, 1 << 15, self.e.type_ids[fn.ftype]))]
        head = "".join(reversed(fields))          # one piece: its fields last first (see BitstreamWriter)
        callee = self._callees[id(fn)] = (head, self.e.value_id(fn))
        return callee

    def _call(self, inst: Instruction, iid: int, vals: list[int]) -> None:
        """The call encoder; appends its record itself (calls are most of a shader's records:
        the head up to the callee is made once per callee, see _call_head).  The callee is a
        module-level value, numbered before every instruction, and arguments never carry a type."""
        ops = inst.operands
        callee = self._callees.get(id(ops[0])) or self._call_head(ops)
        vals += [(iid - self.e.value_id(a)) & 0xFFFFFFFF for a in ops[1:]]
        self._sink[0].extend((callee[0], vbr6_digits[iid - callee[1]], *map(vbr6_digits.__getitem__, vals)))
        return None

    def _atomicrmw(self, inst: Instruction, iid: int, vals: list[int]) -> tuple[int, int]:
        ptr, value = inst.operands
        self._push(vals, ptr, iid)
        self._push(vals, value, iid, False)
        vals += [RMW_CODES[inst.attrs["rmw"]], 0, ORDERING_CODES[inst.attrs["ordering"]], 1]
        return FUNC_CODES["atomicrmw"], 0

    def _cmpxchg(self, inst: Instruction, iid: int, vals: list[int]) -> tuple[int, int]:
        ptr, cmp, new = inst.operands
        self._push(vals, ptr, iid)
        self._push(vals, cmp, iid)
        self._push(vals, new, iid, False)
        vals += [0, ORDERING_CODES[inst.attrs["ordering"]], 1, ORDERING_CODES[inst.attrs["failure"]], 0]
        return FUNC_CODES["cmpxchg"], 0


def _unknown(self: _Writer, inst: Instruction, iid: int, vals: list[int]) -> tuple[int, int]:
    raise TypeError(f"cannot write instruction {inst.op}")


class _Encoders(dict):
    def __missing__(self, op: str):
        return _unknown


# opcode name -> record encoder (a table, not an if-chain: one lookup per instruction)
_ENCODERS: dict[str, Callable[..., tuple[int, int] | None]] = _Encoders(
    {op: _Writer._binop for op in BINOP_CODES}
    | {op: _Writer._cast for op in CAST_CODES}
    | {"getelementptr": _Writer._gep, "extractvalue": _Writer._extractvalue, "select": _Writer._select,
       "icmp": _Writer._cmp, "fcmp": _Writer._cmp, "ret": _Writer._ret, "br": _Writer._br,
       "switch": _Writer._switch, "unreachable": _Writer._unreachable, "phi": _Writer._phi,
       "alloca": _Writer._alloca, "load": _Writer._load, "store": _Writer._store, "call": _Writer._call,
       "atomicrmw": _Writer._atomicrmw, "cmpxchg": _Writer._cmpxchg})


@lru_cache(maxsize=16)
def _blockinfo_entries(tb: int) -> tuple[tuple[int, Abbrev], ...]:
    """The standard abbreviations of LLVM 3.7 (type operands are `tb` bits wide)."""
    fc = FUNC_CODES
    return (
        (VALUE_SYMTAB_BLOCK, Abbrev((fixed(3), vbr(8), array(), fixed(8)))),
        (VALUE_SYMTAB_BLOCK, Abbrev((lit(VST_ENTRY), vbr(8), array(), fixed(7)))),
        (VALUE_SYMTAB_BLOCK, Abbrev((lit(VST_ENTRY), vbr(8), array(), char6()))),
        (VALUE_SYMTAB_BLOCK, Abbrev((lit(VST_BBENTRY), vbr(8), array(), char6()))),
        (CONSTANTS_BLOCK, Abbrev((lit(CST_SETTYPE), fixed(tb)))),
        (CONSTANTS_BLOCK, Abbrev((lit(CST_INTEGER), vbr(8)))),
        (CONSTANTS_BLOCK, Abbrev((lit(11), fixed(4), fixed(tb), vbr(8)))),   # CE_CAST
        (CONSTANTS_BLOCK, Abbrev((lit(CST_NULL),))),
        (FUNCTION_BLOCK, Abbrev((lit(fc["load"]), vbr(6), fixed(tb), vbr(4), fixed(1)))),
        (FUNCTION_BLOCK, Abbrev((lit(fc["binop"]), vbr(6), vbr(6), fixed(4)))),
        (FUNCTION_BLOCK, Abbrev((lit(fc["binop"]), vbr(6), vbr(6), fixed(4), fixed(7)))),
        (FUNCTION_BLOCK, Abbrev((lit(fc["cast"]), vbr(6), fixed(tb), fixed(4)))),
        (FUNCTION_BLOCK, Abbrev((lit(fc["ret"]),))),
        (FUNCTION_BLOCK, Abbrev((lit(fc["ret"]), vbr(6)))),
        (FUNCTION_BLOCK, Abbrev((lit(fc["unreachable"]),))),
        (FUNCTION_BLOCK, Abbrev((lit(fc["getelementptr"]), fixed(1), fixed(tb), array(), vbr(6)))),
    )


@lru_cache(maxsize=16)
def _module_constant_abbrevs(agg_width: int) -> tuple[Abbrev, ...]:
    """The module-level constants block's own abbreviations (aggregate operands are value ids)."""
    return (Abbrev((lit(CST_AGGREGATE), array(), fixed(agg_width))),
            Abbrev((lit(8), array(), fixed(8))),       # STRING
            Abbrev((lit(9), array(), fixed(7))),       # CSTRING
            Abbrev((lit(9), array(), char6())))        # CSTRING


def clear_block_caches() -> None:
    """Forget every cached block body (tests compare cold and warm output)."""
    for cache in (_TYPE_BLOCKS, _ATTR_BLOCKS, _SYMTAB_BLOCKS, _NAME_RECORDS, _PROTO_RECORDS):
        cache.clear()


def write_bitcode(module: Module, debug_locs: dict | None = None) -> bytes:
    """Serialise `module` as LLVM 3.7 bitcode (raw, starting with 'BC' 0xC0DE).  With `debug_locs`
    (instruction -> (line, col, scope, inlinedAt)), the debug bitcode of -Zi: the module's
    `debug_md` named metadata and a DEBUG_LOC record after each located instruction."""
    if debug_locs is None or not module.debug_values:
        return _Writer(module, debug_locs).write()
    # llvm.dbg.value is declared in the debug bitcode only: the module's function list gets it for this write
    dbg_value = Function(FunctionType(void, (metadata, i64, metadata, metadata)), "llvm.dbg.value",
                         ("nounwind", "readnone"))
    saved = module.functions
    module.functions = [*saved, dbg_value]
    try:
        return _Writer(module, debug_locs, dbg_value).write()
    finally:
        module.functions = saved

