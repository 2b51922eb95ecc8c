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

DXC answers per output with a fresh depth-first search; here one search covers the
nodes not met by earlier ones, each strongly connected component's input set (a loop's cycle,
else one node) a bitmask OR-ed from its successors in postorder, so the whole pass is linear
in instructions plus edges.
"""

from __future__ import annotations

from dataclasses import dataclass

from .ctrldep import control_dependence
from .llvm.values import BasicBlock, Constant, ConstInt, Function, GlobalVariable, Instruction, Value
from .mem2reg import dominators
from .signature import SigElement

__all__ = ["ViewIdState", "compute_view_id_state", "signature_scalars", "LOAD_INPUT", "STORE_OUTPUT", "VIEW_ID"]

LOAD_INPUT, STORE_OUTPUT, VIEW_ID = "dx.op.loadInput.", "dx.op.storeOutput.", "dx.op.viewID"
_VIEW_ID_BIT = 1 << 128          # past every input scalar (32 rows x 4 components)
_MEMORY_READS = frozenset({"load", "atomicrmw", "cmpxchg"})
_STORES = frozenset({"store", "atomicrmw", "cmpxchg"})
_POINTER_THROUGH = frozenset({"getelementptr", "bitcast", "addrspacecast"})
_LEAF_PREFIX = (LOAD_INPUT, VIEW_ID)
_UNSET = object()


def _dwords(scalars: int) -> int:
    return (scalars + 31) // 32


@dataclass(frozen=True, slots=True)
class ViewIdState:
    """DXC's DxilViewIdState for one output stream (VS/PS): scalar counts are the packed extent of the
    allocated elements, `inputs_of[o]` the bitmask of input scalars output scalar `o` depends on."""

    num_inputs: int
    num_outputs: int
    inputs_of: tuple[int, ...]
    uses_view_id: bool = False
    view_id_outputs: int = 0          # bitmask of output scalars that depend on ViewID

    def _table(self, num_inputs: int) -> list[int]:
        width = _dwords(self.num_outputs)
        table = [0] * (num_inputs * width)
        for o, mask in enumerate(self.inputs_of):
            word, bit = o // 32, 1 << (o % 32)
            while mask:                          # visit the set bits only
                low = mask & -mask
                table[(low.bit_length() - 1) * width + word] |= bit
                mask ^= low
        return table

    def _view_id_mask(self) -> list[int]:
        return [(self.view_id_outputs >> (32 * w)) & 0xFFFFFFFF for w in range(_dwords(self.num_outputs))]

    def serialize(self) -> list[int]:
        """The `dx.viewIdState` words: #inputs, #outputs, [ViewID mask], then per input scalar a
        bitmask over the output scalars in ceil(#outputs / 32) words."""
        words = [self.num_inputs, self.num_outputs]
        if self.uses_view_id:
            words += self._view_id_mask()
        return words + self._table(self.num_inputs)

    def psv_tables(self, in_vectors: int, out_vectors: int) -> list[int]:
        """PSV0's words after the signature elements: the ViewID output mask (only when ViewID is used)
        and the input->output table, with rows for all `in_vectors * 4` input scalars (DXC copies the
        serialized table and leaves the padding rows zero)."""
        assert self.num_inputs <= 4 * in_vectors and self.num_outputs <= 4 * out_vectors
        width = (out_vectors + 7) >> 3          # == ceil(num_outputs / 32) for a packed signature
        assert not self.num_outputs or _dwords(self.num_outputs) == width
        words: list[int] = []
        if self.uses_view_id and out_vectors:
            words += self._view_id_mask()
        if in_vectors and out_vectors:
            words += self._table(4 * in_vectors)
        return words


def signature_scalars(elems: list[SigElement]) -> int:
    """One past the last packed scalar of the allocated elements (DXC DetermineMaxPackedLocation)."""
    return max(((e.start_row + e.rows - 1) * 4 + e.start_col + e.cols for e in elems if e.allocated), default=0)


def _same(a: object, b: Value) -> bool:
    """LLVM value identity (constants are uniqued in LLVM, compared by key here)."""
    return a is b or (isinstance(a, Constant) and isinstance(b, Constant) and a.key() == b.key())


def _const(v: Value) -> int | None:
    return v.value if isinstance(v, ConstInt) else None


def _callee(inst: Instruction) -> str:
    return inst.operands[0].name if inst.op == "call" else ""


class _Analysis:
    def __init__(self, fn: Function, inputs: list[SigElement]) -> None:
        self.fn = fn
        self.inputs = {e.id: e for e in inputs}
        self.cd = control_dependence(fn)
        _, idom = dominators(fn)
        entry = fn.blocks[0]
        self.idom = {k: (None if b is entry and k == id(entry) else b) for k, b in idom.items()}
        self._users: dict[int, list[Instruction]] | None = None     # built on the first memory read
        self._cd_of_block: dict[int, object | None] = {}
        self.block_of: dict[int, BasicBlock] = {}      # the block lists, not `.parent`, are authoritative
        for bb in fn.blocks:
            for inst in bb.instructions:
                self.block_of[id(inst)] = bb
        self.decl_stores: dict[int, list[Instruction]] = {}
        # the dependency graph: nodes are instructions (hashed by identity), ("cd", id(block)) and
        # ("decl", id(value))
        self.deps: dict[object, list[object]] = {}
        self.leaf: dict[object, int] = {}
        self.mask: dict[object, int] = {}

    # ---- edges
    def _cd_key(self, bb: BasicBlock) -> object | None:
        """The node of bb's control dependences (None when it has none); one per block."""
        try:
            return self._cd_of_block[id(bb)]
        except KeyError:
            pass
        blocks = self.cd.get(id(bb))
        key = None
        if blocks:
            key = ("cd", id(bb))
            self.deps[key] = [b.terminator for b in blocks]
        self._cd_of_block[id(bb)] = key
        return key

    def _decl_key(self, decl: Value) -> object:
        key = ("decl", id(decl))
        if key not in self.deps:
            stores = self._stores(decl)
            self.deps[key] = list(stores)
        return key

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

    def _phi_control(self, phi: Instruction) -> list[object]:
        """DXC's CollectPhiCFValuesContributingToOutputRec: mark the dominator tree with the incoming
        value that reaches each block, then for each constant incoming value take the branches
        deciding the highest block still marked with it.

        DXC walks constants' marks up to the entry block; every walk passes the phi block's immediate
        dominator D (it dominates every predecessor), and a constant whose marks reach D is marked
        up to the entry, whose control dependence is empty.  So walks stop at D and such a constant
        contributes nothing: the same answer, with walks bounded by the branch region."""
        idom = self.idom
        entry = self.fn.blocks[0]
        top_dom = idom.get(id(self.block_of[id(phi)]))
        null = object()
        marks: dict[int, object] = {}
        incoming = phi.attrs["incoming"]
        for v, pred in incoming:
            marks.setdefault(id(pred), v)
        for v, pred in incoming:
            def_bb = self.block_of.get(id(v), entry) if isinstance(v, Instruction) else entry
            if pred is def_bb or pred is top_dom:
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
        out: list[object] = []
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
            key = self._cd_key(top) if top is not None else None
            if key is not None:
                out.append(key)
        return out

    def _edges(self, inst: Instruction) -> list[object]:
        """The successors of instruction node `inst` (recorded in `deps`; a dx.op call's input
        bits in `leaf`).  Called once per instruction met, so kept to plain lookups."""
        op = inst.op
        out: list[object] = []
        if op == "phi":
            out += self._phi_control(inst)
            values = [v for v, _ in inst.attrs["incoming"]]
        else:
            values = inst.operands
        for v in values:
            if v.__class__ is Instruction:
                out.append(v)
        if op in _MEMORY_READS:
            out += [self._decl_key(d) for d in self._reaching_decls(inst.operands[0])]
        bb = self.block_of[id(inst)]
        cd = self._cd_of_block.get(id(bb), _UNSET)
        if cd is _UNSET:
            cd = self._cd_key(bb)
        if cd is not None:
            out.append(cd)
        self.deps[inst] = out
        if op == "call":                         # only dx.op calls read inputs or ViewID
            name = inst.operands[0].name
            if name.startswith(_LEAF_PREFIX):
                self.leaf[inst] = self._leaf_bits(inst)
        return out

    def _leaf_bits(self, inst: Instruction) -> int:
        name = _callee(inst)
        if name.startswith(VIEW_ID):
            return _VIEW_ID_BIT
        if not name.startswith(LOAD_INPUT):
            return 0
        el = self.inputs.get(_const(inst.operands[2]))
        col = _const(inst.operands[4])
        if el is None or not el.allocated or col is None:
            return 0
        row = _const(inst.operands[3])
        rows = range(el.rows) if row is None else (row,)
        bits = 0
        for r in rows:
            bits |= 1 << ((el.start_row + r) * 4 + el.start_col + col)
        return bits

    # ---- reachability masks
    def mask_of(self, root: object) -> int:
        """Input bits reachable from `root`.  One depth-first search (Tarjan's) over the nodes
        not met yet: each strongly connected component (a loop's cycle, else one node) gets the
        OR of its members' bits and of the masks of the components it reaches, which are finished
        first (postorder), so every node is visited once and the answer is the reachable set."""
        mask = self.mask
        got = mask.get(root)
        if got is not None:
            return got
        leaf, deps, edges_of = self.leaf, self.deps, self._edges
        index: dict[object, int] = {root: 0}     # search order of the nodes met by this search
        low = [0]                                # lowest index reachable, by search order
        on_stack: list[object] = [root]          # nodes of the components not finished yet
        stack = [(root, iter(edges_of(root) if root.__class__ is Instruction else deps[root]))]
        while stack:
            node, it = stack[-1]
            k = index[node]
            for nxt in it:
                if nxt in mask:
                    continue                     # finished: by an earlier search or component
                j = index.get(nxt)
                if j is None:
                    index[nxt] = len(low)
                    low.append(len(low))
                    on_stack.append(nxt)
                    stack.append((nxt, iter(edges_of(nxt) if nxt.__class__ is Instruction else deps[nxt])))
                    break
                if j < low[k]:
                    low[k] = j
            else:
                stack.pop()
                lk = low[k]
                if stack:
                    p = index[stack[-1][0]]
                    if lk < low[p]:
                        low[p] = lk
                if lk == k:                      # `node` roots a component: its members lie above it
                    at = len(on_stack) - 1
                    while on_stack[at] is not node:
                        at -= 1
                    members = on_stack[at:]
                    del on_stack[at:]
                    bits = 0
                    for w in members:
                        bits |= leaf.get(w, 0)
                        for d in deps[w]:
                            bits |= mask.get(d, 0)
                    for w in members:
                        mask[w] = bits
        return mask[root]

    def run(self, outputs: list[SigElement]) -> dict[int, int]:
        by_id = {e.id: e for e in outputs}
        result: dict[int, int] = {}
        for bb in self.fn.blocks:
            for inst in bb.instructions:
                if inst.op != "call" or not inst.operands[0].name.startswith(STORE_OUTPUT):
                    continue
                el = by_id.get(_const(inst.operands[2]))
                col = _const(inst.operands[4])
                if el is None or not el.allocated or col is None:
                    continue
                bits = 0
                value = inst.operands[5]
                if isinstance(value, Instruction):
                    bits |= self.mask_of(value)
                cd = self._cd_key(bb)
                if cd is not None:
                    bits |= self.mask_of(cd)
                row = _const(inst.operands[3])
                for r in (range(el.rows) if row is None else (row,)):
                    o = (el.start_row + r) * 4 + el.start_col + col
                    result[o] = result.get(o, 0) | bits
        return result


def compute_view_id_state(fn: Function, inputs: list[SigElement], outputs: list[SigElement],
                          uses_view_id: bool = False) -> ViewIdState:
    """The dependency state of a graphics entry function (its stores of stage outputs)."""
    num_in, num_out = signature_scalars(inputs), signature_scalars(outputs)
    per_output = _Analysis(fn, inputs).run(outputs) if fn.blocks else {}
    inputs_of = [0] * num_out
    view_id = 0
    for o, bits in per_output.items():
        inputs_of[o] = bits & (_VIEW_ID_BIT - 1)
        if bits & _VIEW_ID_BIT:
            view_id |= 1 << o
    return ViewIdState(num_in, num_out, tuple(inputs_of), uses_view_id, view_id if uses_view_id else 0)
