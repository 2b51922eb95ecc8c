"""Which input components (and ViewID) each output component depends on.

The validator compares PSV0's input->output dependency table with the module's
`dx.viewIdState`, and DXC fills both from its ViewIdState analysis; this is that
analysis over our DXIL function, with the same answers:

* an output component (storeOutput's element, row, column, as an absolute
  packed index `(start_row + row) * 4 + start_col + col`) depends on everything
  reachable backwards from the stored value and from the branches its block is
  control dependent on (ctrldep.py);
* reachable means: SSA operands (phi incoming values included), the branches
  the instruction's block is control dependent on, for a load or atomic every
  store to the alloca/global the pointer comes from (flow-insensitive), and for
  a phi with constant incoming values the branch that chose the constant;
* a loadInput in that set contributes its component (all rows of the element
  when its row index is dynamic), a viewID call marks the output as ViewID-
  dependent.  A dynamic storeOutput row applies the set to every row.

DXC answers per output with a fresh depth-first search; here every instruction's input set
(a bitmask) is OR-ed from its dependences' in one forward pass over the CFG's strongly
connected components in topological order, which settles all code whose dependences come
first; only loops (and a load before a store it reads) need further passes, until nothing
changes.
"""

from __future__ import annotations

from shaderbuild.records import ValueRecord

from .ctrldep import components, control_dependence, dominator_tree, successors
from .llvm.values import BasicBlock, Constant, ConstInt, Function, GlobalVariable, Instruction, Value
from .ops import (
    LOAD_INPUT,
    LOAD_PATCH_CONSTANT,
    STORE_OUTPUT,
    STORE_PATCH_CONSTANT,
    STORE_PRIMITIVE_OUTPUT,
    STORE_VERTEX_OUTPUT,
    VIEW_ID,
)
from .signature import SigElement

__all__ = ["ViewIdState", "StreamsViewIdState", "compute_view_id_state", "compute_streams_view_id_state", "signature_scalars", "LOAD_INPUT", "STORE_OUTPUT", "VIEW_ID"]

_VIEW_ID_BIT = 1 << 128          # past every input scalar (32 rows x 4 components)
_SPECIAL = frozenset({"call", "phi", "load", "atomicrmw", "cmpxchg"})    # beyond their operands
_STORES = frozenset({"store", "atomicrmw", "cmpxchg"})
_POINTER_THROUGH = frozenset({"getelementptr", "bitcast", "addrspacecast"})
_READS_INPUT, _READS_VIEW_ID, _WRITES_OUTPUT = 1, 2, 3
_PASSES = 4                      # passes over a loop before settling it by a worklist instead
_CALL_KINDS = ((LOAD_INPUT, _READS_INPUT), (VIEW_ID, _READS_VIEW_ID), (STORE_OUTPUT, _WRITES_OUTPUT))


def _dwords(scalars: int) -> int:
    return (scalars + 31) // 32


class ViewIdState(ValueRecord):
    """DXC's DxilViewIdState for one output stream (VS/PS): scalar counts are the packed extent of the
    allocated elements, `inputs_of[o]` the bitmask of input scalars output scalar `o` depends on."""

    num_inputs: int
    num_outputs: int
    inputs_of: tuple[int, ...]
    uses_view_id: bool = False
    view_id_outputs: int = 0          # bitmask of output scalars that depend on ViewID

    # hull/domain shaders (DXC's m_InputsContributingToPCOutputs / m_PCInputsContributingToOutputs):
    # 'hull': patch_of[p] = input scalars patch constant p depends on; 'domain': patch_of[o] = patch
    # constant scalars output o depends on; num_patch = the patch-constant scalars
    tess: str | None = None
    num_patch: int = 0
    patch_of: tuple[int, ...] = ()
    # mesh shaders (tess = 'mesh'): num_patch counts the primitive output scalars, these depend on ViewID
    view_id_patch: int = 0

    def _patch_table(self) -> list[int]:
        """HS: input -> patch constant (num_inputs rows); DS: patch constant -> output (num_patch rows)."""
        rows, cols = (self.num_inputs, self.num_patch) if self.tess == "hull" else (self.num_patch, self.num_outputs)
        return _table(rows, cols, self.patch_of)

    def _table(self) -> list[int]:
        """The input -> output table over `num_inputs` rows, ceil(#outputs / 32) words per row."""
        return _table(self.num_inputs, self.num_outputs, self.inputs_of)

    def _view_id_mask(self) -> list[int]:
        return [(self.view_id_outputs >> (32 * w)) & 0xFFFFFFFF for w in range(_dwords(self.num_outputs))]

    def _view_id_patch_mask(self) -> list[int]:
        """A mesh shader's primitive outputs that depend on ViewID (DXC serializes it after the outputs')."""
        return [(self.view_id_patch >> (32 * w)) & 0xFFFFFFFF for w in range(_dwords(self.num_patch))]

    def serialize(self) -> list[int]:
        """The `dx.viewIdState` words: #inputs, #outputs, [ViewID mask], then per input scalar a
        bitmask over the output scalars in ceil(#outputs / 32) words.  Built once per state (the
        metadata, the container's PSV0 tables and the self-check all read it); a fresh list each call."""
        words = getattr(self, "_words", None)  # a cache, not a field: not compared, hashed or passed to __init__
        if words is None:
            words = [self.num_inputs, self.num_outputs]
            if self.tess is not None:
                words.append(self.num_patch)
            if self.uses_view_id:
                words += self._view_id_mask()
                if self.tess == "mesh":
                    words += self._view_id_patch_mask()
            if self.num_outputs or self.tess is None:
                words += self._table()
            if self.tess == "hull" and self.num_patch or self.tess == "domain" and self.num_outputs:
                words += self._patch_table()
            object.__setattr__(self, "_words", words)       # frozen: a cache, not state
        return list(words)

    def psv_tables(self, in_vectors: int, out_vectors: int) -> list[int]:
        """PSV0's words after the signature elements: the ViewID output mask (only when ViewID is used)
        and the input->output table, with rows for all `in_vectors * 4` input scalars (DXC copies the
        serialized table and leaves the padding rows zero)."""
        assert self.num_inputs <= 4 * in_vectors and self.num_outputs <= 4 * out_vectors
        width = (out_vectors + 7) >> 3          # == ceil(num_outputs / 32) for a packed signature
        assert not self.num_outputs or _dwords(self.num_outputs) == width
        words: list[int] = []
        if not out_vectors:
            return words
        row = _dwords(self.num_outputs)         # the serialized words per input row (== width, or 0)
        if self.uses_view_id:
            words += self._view_id_mask()
        if in_vectors:
            words += self._table()
            words += [0] * ((4 * in_vectors - self.num_inputs) * row)
        return words

    def psv_patch_tables(self, in_vectors: int, out_vectors: int, pc_vectors: int) -> list[int]:
        """PSV0's hull input -> patch constant table, or domain patch constant -> output table
        (rows for every scalar of the input / patch-constant vectors, the padding rows zero)."""
        if self.tess == "hull" and in_vectors and pc_vectors:
            width = _dwords(self.num_patch)
            return self._patch_table() + [0] * ((4 * in_vectors - self.num_inputs) * width)
        if self.tess == "domain" and out_vectors and pc_vectors:
            width = _dwords(self.num_outputs)
            return self._patch_table() + [0] * ((4 * pc_vectors - self.num_patch) * width)
        if self.tess == "mesh" and self.uses_view_id and pc_vectors:     # the primitive outputs' ViewID mask
            return self._view_id_patch_mask()
        return []


def _table(rows: int, cols: int, sources_of: tuple[int, ...]) -> list[int]:
    """rows x ceil(cols / 32) words: bit c of row r set when column c depends on row r."""
    width = _dwords(cols)
    table = [0] * (rows * width)
    for o, mask in enumerate(sources_of):
        word, bit = o // 32, 1 << (o % 32)
        while mask:                          # visit the set bits only
            low = mask & -mask
            table[(low.bit_length() - 1) * width + word] |= bit
            mask ^= low
    return table


class StreamsViewIdState(ValueRecord):
    """A geometry shader's DxilViewIdState: one ViewIdState per output stream (all four, unused ones
    empty) over the same inputs; serialized as #inputs, then per stream #outputs, [ViewID mask], table."""

    streams: tuple[ViewIdState, ...]

    @property
    def uses_view_id(self) -> bool:
        return self.streams[0].uses_view_id

    def serialize(self) -> list[int]:
        words = [self.streams[0].num_inputs]
        for st in self.streams:
            words += st.serialize()[1:]
        return words

    def psv_tables(self, in_vectors: int, out_vectors: list[int]) -> list[int]:
        """PSV0's words: every stream's ViewID mask (when used), then every stream's input->output table."""
        per = [st.psv_tables(in_vectors, n) for st, n in zip(self.streams, out_vectors)]
        if not self.uses_view_id:
            return [w for words in per for w in words]
        masks = [words[:(n + 7) >> 3] for words, n in zip(per, out_vectors)]
        return [w for m in masks for w in m] + [w for words, m in zip(per, masks) for w in words[len(m):]]


def signature_scalars(elems: list[SigElement]) -> int:
    """One past the last packed scalar of the allocated elements (DXC DetermineMaxPackedLocation)."""
    return max(((e.start_row + e.rows - 1) * 4 + e.start_col + e.cols for e in elems if e.allocated), default=0)


def _call_kind(callee: str, kinds: tuple = _CALL_KINDS) -> int:
    """What a call to `callee` means to the analysis (0: only its operands matter)."""
    return next((kind for prefix, kind in kinds if callee.startswith(prefix)), 0)


def _same(a: object, b: Value) -> bool:
    """LLVM value identity (constants are uniqued in LLVM, compared by key here)."""
    return a is b or (isinstance(a, Constant) and isinstance(b, Constant) and a.key() == b.key())


def _const(v: Value) -> int | None:
    return v.value if isinstance(v, ConstInt) else None


class _Analysis:
    """The input bits of every instruction of one function, as the least fixpoint of
    `mask(i) = own bits | masks of its operands, deciding branches and extra dependences`.
    The blocks are taken a CFG component at a time in topological order (run), each
    instruction's mask OR-ed from the masks computed before it; a dependence met before it
    was computed (only in a loop, or a load before a store it reads) sends its component
    (or everything from the load on) through further passes until nothing changes.  Masks
    only grow from 0, so the result is the reachable set a per-output search would find."""

    def __init__(self, fn: Function, inputs: list[SigElement], kinds: tuple = _CALL_KINDS) -> None:
        self.fn = fn
        self.kinds = kinds           # which calls read inputs / write outputs (prefix, kind)
        self.inputs: dict[int | None, SigElement] = {e.id: e for e in inputs}
        self.succs = successors(fn.blocks)
        # id(block) -> terminators of the branches deciding whether it runs (a deciding block has
        # successors, so its last instruction is its terminator)
        self.cd_terms: dict[int, list[Instruction]] = {
            k: [b.instructions[-1] for b in blocks] for k, blocks in control_dependence(fn, self.succs).items()}
        self.cd_mask: dict[int, int] = {}          # id(block) -> OR of its deciding branches' masks
        self.mask: dict[Value, int] = {}
        self.leaf: dict[Instruction, int] = {}     # a loadInput / viewID call's own bits
        self.callee_kind: dict[Value, int] = {}    # callee -> _call_kind of its name
        self.extra: dict[Instruction, list[Value]] = {}   # phi control, a memory read's stores
        self.decl_stores: dict[int, list[Instruction]] = {}
        self._users: dict[int, list[Instruction]] | None = None     # built on the first memory read
        self._block_of: dict[Instruction, BasicBlock] | None = None         # see _def_block
        self._block_ids: set[int] | None = None
        self._scan_budget = 0
        self._idom: dict[int, BasicBlock | None] | None = None

    # ---- dependences beyond the operands
    def _reaching_decls(self, ptr: Value) -> list[Value]:
        out: list[Value] = []
        seen: set[int] = set()
        stack = [ptr]
        while stack:
            v = stack.pop()
            if id(v) in seen:
                continue
            seen.add(id(v))
            if isinstance(v, Instruction) and v.op in _POINTER_THROUGH:
                stack.append(v.operands[0])
            elif isinstance(v, Instruction) and v.op == "phi":
                stack.extend(x for x, _ in v.attrs["incoming"])
            elif isinstance(v, Instruction) and v.op == "select":
                stack.extend(v.operands[1:3])
            elif isinstance(v, (Instruction, GlobalVariable)) or not isinstance(v, Constant):
                out.append(v)          # alloca, global, argument, call result
        return out

    @property
    def users(self) -> dict[int, list[Instruction]]:
        """Value id -> the instructions using it (only memory reads need it)."""
        if self._users is None:
            users: dict[int, list[Instruction]] = {}
            for bb in self.fn.blocks:
                for inst in bb.instructions:
                    ops = [v for v, _ in inst.attrs["incoming"]] if inst.op == "phi" else inst.operands
                    for v in ops:
                        users.setdefault(id(v), []).append(inst)
            self._users = users
        return self._users

    def _stores(self, decl: Value) -> list[Instruction]:
        """Every store/atomic reached through the users of `decl` (DXC CollectStores: loads end a path)."""
        cached = self.decl_stores.get(id(decl))
        if cached is not None:
            return cached
        out: list[Instruction] = []
        seen: set[int] = {id(decl)}
        stack = list(self.users.get(id(decl), []))
        while stack:
            u = stack.pop()
            if id(u) in seen:
                continue
            seen.add(id(u))
            if u.op in _STORES:
                out.append(u)
            elif u.op != "load":
                stack.extend(self.users.get(id(u), []))
        self.decl_stores[id(decl)] = out
        return out

    def _memory_deps(self, inst: Instruction) -> list[Value]:
        """A load's or atomic's extra dependences: every store to what its pointer comes from."""
        out: list[Value] = []
        for d in self._reaching_decls(inst.operands[0]):
            out += self._stores(d)
        return out

    def _dominator_tree(self) -> dict[int, BasicBlock | None]:
        """id(block) -> its immediate dominator (None for the entry); only phis with constant
        incoming values need it, so it is built on first use."""
        if self._idom is None:
            blocks = self.fn.blocks
            self._idom = {id(blocks[b]): (None if d == b else blocks[d])
                          for b, d in enumerate(dominator_tree(self.succs)) if d >= 0}
        return self._idom

    def _def_block(self, v: Instruction) -> BasicBlock:
        """The block holding `v` (the entry when none does).  `v.parent` is tried first, checked
        by a scan of that block; once such scans have cost as much as mapping every instruction
        to its block, the map is built instead."""
        if self._block_of is None:
            if self._block_ids is None:
                self._block_ids = {id(bb) for bb in self.fn.blocks}
                self._scan_budget = sum(len(bb.instructions) for bb in self.fn.blocks)
            hint = v.parent
            if self._scan_budget > 0 and hint is not None and id(hint) in self._block_ids:
                self._scan_budget -= len(hint.instructions)
                if v in hint.instructions:
                    return hint
            block_of: dict[Instruction, BasicBlock] = {}
            for bb in self.fn.blocks:
                block_of.update(dict.fromkeys(bb.instructions, bb))
            self._block_of = block_of
        return self._block_of.get(v, self.fn.blocks[0])

    def _phi_control(self, phi: Instruction, phi_bb: BasicBlock) -> list[Value]:
        """DXC's CollectPhiCFValuesContributingToOutputRec: mark the dominator tree with the incoming
        value that reaches each block, then for each constant incoming value take the branches
        deciding the highest block still marked with it (their terminators are returned; only
        called for a phi with a constant incoming value).

        DXC walks constants' marks up to the entry block; every walk passes the phi block's immediate
        dominator D (it dominates every predecessor), and a constant whose marks reach D is marked
        up to the entry, whose control dependence is empty.  So walks stop at D and such a constant
        contributes nothing: the same answer, with walks bounded by the branch region."""
        incoming = phi.attrs["incoming"]
        idom = self._dominator_tree()
        entry = self.fn.blocks[0]
        top_dom = idom.get(id(phi_bb))
        null = object()
        marks: dict[int, object] = {}
        for v, pred in incoming:
            marks.setdefault(id(pred), v)
        for v, pred in incoming:
            if pred is top_dom:
                continue
            def_bb = self._def_block(v) if isinstance(v, Instruction) else entry
            if pred is def_bb:
                continue
            node = idom.get(id(pred))
            while node is not None:
                if id(node) in marks:
                    cur = marks[id(node)]
                    if cur is not null and not _same(cur, v) and not (isinstance(cur, Constant) and isinstance(v, Constant)):
                        marks[id(node)] = null
                    break
                marks[id(node)] = v
                if node is def_bb or node is top_dom:
                    break
                node = idom.get(id(node))
        out: list[Value] = []
        for v, pred in incoming:
            if not isinstance(v, Constant):
                continue
            node, top = pred, None
            while node is not None:
                mark = marks.get(id(node), null)
                if mark is null or not _same(mark, v):
                    break
                if node is top_dom:         # marked with v up to the entry block
                    top = None
                    break
                top = node
                node = idom.get(id(node))
            if top is not None:
                out += self.cd_terms.get(id(top), ())
        return out

    def _input_bits(self, inst: Instruction) -> int:
        """The input scalars a loadInput call reads: all rows of the element for a dynamic row."""
        _, _, el_id, row, col = inst.operands[:5]
        el = self.inputs.get(el_id.value if isinstance(el_id, ConstInt) else None)
        if el is None or not el.allocated or not isinstance(col, ConstInt):
            return 0
        first = el.start_row * 4 + el.start_col + col.value
        if isinstance(row, ConstInt):
            return 1 << (first + 4 * row.value)
        bits = 0
        for r in range(el.rows):
            bits |= 1 << (first + 4 * r)
        return bits

    # ---- the masks
    def _first_pass(self, blocks: list[BasicBlock], stored: list[tuple[Instruction, BasicBlock]],
                    late: set[Value]) -> None:
        """Every instruction's mask from the masks computed before it, recording leaf bits, extra
        dependences and the storeOutput calls (into `stored`); a dependence not computed yet
        counts as 0 and goes into `late`."""
        mask, leaf, extra, cd_terms, cd_mask = self.mask, self.leaf, self.extra, self.cd_terms, self.cd_mask
        callee_kind = self.callee_kind
        get = mask.get
        special, instruction = _SPECIAL, Instruction      # locals: looked up per instruction
        for bb in blocks:
            cdm = 0
            for t in cd_terms.get(id(bb), ()):
                m = get(t)
                if m is None:
                    late.add(t)
                else:
                    cdm |= m
            cd_mask[id(bb)] = cdm
            for inst in bb.instructions:
                op = inst.op
                bits = cdm
                values = inst.operands
                if op == "call":
                    kind = callee_kind.get(values[0])
                    if kind is None:
                        kind = callee_kind[values[0]] = _call_kind(values[0].name, self.kinds)
                    if not kind:
                        pass                          # most calls: only their operands count
                    elif kind == _READS_INPUT:
                        own = leaf[inst] = self._input_bits(inst)
                        bits |= own
                    elif kind == _WRITES_OUTPUT:
                        stored.append((inst, bb))
                    else:
                        leaf[inst] = _VIEW_ID_BIT
                        bits |= _VIEW_ID_BIT
                elif op in special:                   # phi, load, atomics: dependences beyond operands
                    more = None
                    if op == "phi":
                        values = [v for v, _ in inst.attrs["incoming"]]
                        for v in values:
                            if isinstance(v, Constant):    # only constants bring in phi control
                                more = self._phi_control(inst, bb)
                                break
                    else:
                        more = self._memory_deps(inst)
                    if more:
                        extra[inst] = more
                        for v in more:
                            m = get(v)
                            if m is not None:
                                bits |= m
                            else:
                                late.add(v)
                for v in values:
                    m = get(v)
                    if m is not None:
                        bits |= m
                    elif v.__class__ is instruction:
                        late.add(v)
                mask[inst] = bits

    def _settle(self, blocks: list[BasicBlock], watch: set[Value]) -> None:
        """Bring the masks of `blocks` to the fixpoint: passes in order while they settle quickly
        (a loop takes one or two), else a worklist, whose work does not grow with the number
        of passes a chain of late reads (loads before the stores they read) would take."""
        for _ in range(_PASSES):
            if not self._pass(blocks, watch):
                return
        self._propagate(blocks)

    def _pass(self, blocks: list[BasicBlock], watch: set[Value]) -> bool:
        """Recompute every mask of `blocks` in order; False when the fixpoint is reached.  A pass
        reads a mask before recomputing it only for the dependences in `watch` (those the first
        pass met before computing them), so once none of those changes, every read was final."""
        mask, leaf, extra, cd_terms, cd_mask = self.mask, self.leaf, self.extra, self.cd_terms, self.cd_mask
        get = mask.get
        special = _SPECIAL                      # only these have leaf bits or extra dependences
        again = False
        for bb in blocks:
            cdm = 0
            for t in cd_terms.get(id(bb), ()):
                cdm |= get(t, 0)
            cd_mask[id(bb)] = cdm
            for inst in bb.instructions:
                op = inst.op
                bits = cdm
                if op in special:
                    bits |= leaf.get(inst, 0)
                    for v in extra.get(inst, ()):
                        bits |= get(v, 0)
                    if op == "phi":
                        for v, _ in inst.attrs["incoming"]:
                            bits |= get(v, 0)
                    else:
                        for v in inst.operands:
                            bits |= get(v, 0)
                else:
                    for v in inst.operands:
                        bits |= get(v, 0)
                if bits != mask[inst]:
                    mask[inst] = bits
                    if inst in watch:
                        again = True
        return again

    def _propagate(self, blocks: list[BasicBlock]) -> None:
        """The fixpoint by a worklist: an instruction is recomputed when a dependence's mask or
        its block's deciding branches' mask grows (each mask grows at most once per bit)."""
        mask, leaf, cd_terms, cd_mask = self.mask, self.leaf, self.cd_terms, self.cd_mask
        get = mask.get
        readers: dict[Value, list[Instruction]] = {}
        decides: dict[Instruction, list[BasicBlock]] = {}       # a branch -> the blocks it decides
        block_of: dict[Instruction, BasicBlock] = {}
        for bb in blocks:
            cdm = 0
            for t in cd_terms.get(id(bb), ()):
                decides.setdefault(t, []).append(bb)
                cdm |= get(t, 0)
            cd_mask[id(bb)] = cdm
            for inst in bb.instructions:
                block_of[inst] = bb
                for v in self._deps(inst):
                    readers.setdefault(v, []).append(inst)
        work = [inst for bb in blocks for inst in bb.instructions]
        queued = set(work)
        while work:
            inst = work.pop()
            queued.discard(inst)
            bits = cd_mask[id(block_of[inst])] | leaf.get(inst, 0)
            for v in self._deps(inst):
                bits |= get(v, 0)
            if bits == mask[inst]:
                continue
            mask[inst] = bits
            stale = list(readers.get(inst, ()))
            for bb in decides.get(inst, ()):
                cdm = 0
                for t in cd_terms[id(bb)]:
                    cdm |= get(t, 0)
                if cdm != cd_mask[id(bb)]:
                    cd_mask[id(bb)] = cdm
                    stale += bb.instructions
            for r in stale:
                if r not in queued:
                    queued.add(r)
                    work.append(r)

    def _deps(self, inst: Instruction) -> list[Value]:
        """The values `inst`'s mask is OR-ed from, besides its block's deciding branches."""
        values = [v for v, _ in inst.attrs["incoming"]] if inst.op == "phi" else inst.operands
        more = self.extra.get(inst)
        return values + more if more else values

    def run(self, outputs: list[SigElement]) -> dict[int, int]:
        """Output scalar -> input bits (ViewID as _VIEW_ID_BIT) of the values stored to it and
        the branches deciding the store.  Masks are computed a CFG component at a time in
        topological order: SSA, control and phi-control dependences all follow CFG paths, so
        only a loop's own blocks need settling; a load may also read a store of a later
        component, which a final settling from the first such load covers."""
        mask = self.mask
        stored: list[tuple[Instruction, BasicBlock]] = []
        done: list[BasicBlock] = []
        read_late: set[Value] = set()      # every dependence met before it was computed
        far_from = -1                            # where the first read of a later component is
        for comp in components(self.fn.blocks, self.succs):
            late: set[Value] = set()
            self._first_pass(comp, stored, late)
            if late:
                near = {v for v in late if v in mask}
                if near:
                    self._settle(comp, near)
                if len(near) < len(late) and far_from < 0:
                    far_from = len(done)
                read_late |= late
            done += comp
        if far_from >= 0:                        # passes in the same order: the same reads come late
            self._settle(done[far_from:], read_late)
        by_id: dict[int | None, SigElement] = {e.id: e for e in outputs}
        cd_mask = self.cd_mask
        result: dict[int, int] = {}
        for inst, bb in stored:
            _, _, el_id, row, col, value = inst.operands[:6]
            el = by_id.get(el_id.value if isinstance(el_id, ConstInt) else None)
            if el is None or not el.allocated or not isinstance(col, ConstInt):
                continue
            bits = mask.get(value, 0) | cd_mask[id(bb)]
            first = el.start_row * 4 + el.start_col + col.value
            for r in (range(el.rows) if not isinstance(row, ConstInt) else (row.value,)):
                o = first + 4 * r
                result[o] = result.get(o, 0) | bits
        return result


def compute_view_id_state(fn: Function, inputs: list[SigElement], outputs: list[SigElement],
                          uses_view_id: bool = False, tess: str | None = None,
                          patch: list[SigElement] | None = None, patch_fn: Function | None = None) -> ViewIdState:
    """The dependency state of a graphics entry function (its stores of stage outputs); for a
    hull shader also its patch-constant function's (inputs -> patch constants), for a domain
    shader also patch constants -> outputs."""
    num_in, num_out = signature_scalars(inputs), signature_scalars(outputs)
    if tess == "mesh":      # vertex and primitive outputs have stores of their own; no input signature
        return _mesh_view_id_state(fn, inputs, outputs, patch or [], uses_view_id)
    per_output = _Analysis(fn, inputs).run(outputs) if fn.blocks else {}
    inputs_of = [0] * num_out
    view_id = 0
    for o, bits in per_output.items():
        inputs_of[o] = bits & (_VIEW_ID_BIT - 1)
        if bits & _VIEW_ID_BIT:
            view_id |= 1 << o
    num_patch = 0
    patch_of: tuple[int, ...] = ()
    if tess is not None:
        num_patch = signature_scalars(patch or [])
        if tess == "hull":
            kinds = ((LOAD_INPUT, _READS_INPUT), (VIEW_ID, _READS_VIEW_ID), (STORE_PATCH_CONSTANT, _WRITES_OUTPUT))
            per = _Analysis(patch_fn, inputs, kinds).run(patch or []) if patch_fn is not None and patch_fn.blocks \
                else {}
            cols = num_patch
        else:
            kinds = ((LOAD_PATCH_CONSTANT, _READS_INPUT), (VIEW_ID, _READS_VIEW_ID), (STORE_OUTPUT, _WRITES_OUTPUT))
            per = _Analysis(fn, patch or [], kinds).run(outputs) if fn.blocks else {}
            cols = num_out
        table = [0] * cols
        for o, bits in per.items():
            table[o] = bits & (_VIEW_ID_BIT - 1)
        patch_of = tuple(table)
    return ViewIdState(num_in, num_out, tuple(inputs_of), uses_view_id, view_id if uses_view_id else 0,
                       tess, num_patch, patch_of)


def _mesh_view_id_state(fn: Function, inputs: list[SigElement], outputs: list[SigElement],
                        prims: list[SigElement], uses_view_id: bool) -> ViewIdState:
    """A mesh shader's state: which vertex (storeVertexOutput) and primitive (storePrimitiveOutput)
    output scalars depend on ViewID; it has no signature inputs to depend on."""
    masks = []
    for store, elems in ((STORE_VERTEX_OUTPUT, outputs), (STORE_PRIMITIVE_OUTPUT, prims)):
        per = _Analysis(fn, inputs, ((VIEW_ID, _READS_VIEW_ID), (store, _WRITES_OUTPUT))).run(elems) \
            if fn.blocks and uses_view_id else {}
        masks.append(sum(1 << o for o, bits in per.items() if bits & _VIEW_ID_BIT))
    num_out = signature_scalars(outputs)
    return ViewIdState(signature_scalars(inputs), num_out, (0,) * num_out, uses_view_id, masks[0], "mesh",
                       signature_scalars(prims), (), masks[1])


def compute_streams_view_id_state(fn: Function, inputs: list[SigElement], outputs: list[SigElement],
                                  streams: int = 4) -> StreamsViewIdState:
    """The dependency state of a geometry shader: each stream's outputs analysed on their own."""
    return StreamsViewIdState(tuple(compute_view_id_state(fn, inputs, [e for e in outputs if e.stream == k])
                                    for k in range(streams)))
