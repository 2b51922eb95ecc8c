"""SSA construction during lowering (Braun et al. 2013, "Simple and Efficient
Construction of Static Single Assignment Form").

DXIL is scalar, so a float4x4 local is 16 values; keeping each in an alloca
and promoting afterwards built (and then deleted) most of a function's
instructions.  Instead, every scalar component of a local that is never
indexed dynamically is an SSA *variable* here: lowering writes and reads it
per block (`write` / `read`), a read with no definition in its block looks
through the predecessors, and phis are made only at joins.  Blocks are
*sealed* once all their predecessors are known (the structured lowering knows
when); a read in an unsealed block makes an incomplete phi that sealing
completes.  A phi whose operands are all one value (or itself) is forwarded
to that value at once; `finish` puts the surviving phis at the head of their
blocks and hands back the forwarded ones, whose remaining uses the phi
clean-up rewrites.

Everything is keyed by insertion-ordered dicts and lists (creation order), so
the output is deterministic.  A block's own state (current definitions,
predecessor edges, sealed) is kept on the block (BasicBlock.ssa_*): it is
looked up for nearly every value read.

Phis that Braun's order would make only to forward them are not made: a read
at a join that is not a loop header reads the incoming values first (`_join`),
and a read reaching the header of a built loop that never assigned the
variable takes the value entering the loop (`loop_writes`, recorded while the
loop is built).
"""

from __future__ import annotations

from .llvm.builder import IRBuilder
from .llvm.types import Type
from .llvm.values import BasicBlock, Function, Instruction, Undef, Value, const_key

__all__ = ["SSABuilder", "EdgeRecordingBuilder"]

_new_instruction = Instruction.__new__


class SSABuilder:
    """Per-block current definitions of numbered variables (see the module docstring)."""

    def __init__(self) -> None:
        self.types: list[Type] = []                                  # variable -> register type
        # per block (on the block: BasicBlock.ssa_defs / ssa_preds / ssa_sealed): variable ->
        # current value, predecessors (one entry per edge), all predecessors known
        self.incomplete: dict[int, list[tuple[int, Instruction]]] = {}
        self.phis: dict[int, list[Instruction]] = {}                 # block -> its phis, creation order
        self.forward: dict[int, Value] = {}                          # trivial phi -> its one value
        self.headers: set[int] = set()                               # loop headers (back edges in)
        self.joining: dict[tuple[int, int], Instruction | None] = {}  # joins being read (_join)
        self.open_loops: list[tuple[int, set[int]]] = []             # loops being built: header, writes
        self.loop_writes: dict[int, set[int]] = {}                   # built loop header -> variables written
        self.loop_entry: dict[int, BasicBlock] = {}                  # loop header -> the block entering it
        self._undef: dict[Type, Value] = {}

    def new_var(self, t: Type) -> int:
        self.types.append(t)
        return len(self.types) - 1

    def new_vars(self, ts: tuple[Type, ...]) -> list[int]:
        """new_var of each type, in order."""
        start = len(self.types)
        self.types += ts
        return list(range(start, start + len(ts)))

    # ---------------------------------------------------------------- CFG events
    def loop_header(self, bb: BasicBlock) -> None:
        """`bb` will get a back edge: the only kind of block a read can reach again from its own
        predecessors, so the only one whose phi must exist before its operands are read.  The
        loop's body is built next: the variables written until `bb` is sealed are recorded."""
        self.headers.add(id(bb))
        self.open_loops.append((id(bb), set()))

    def loop_entered(self, header: BasicBlock, pre: BasicBlock) -> None:
        """The loop at `header` is entered from `pre` (its first predecessor; the others are back
        edges)."""
        if header.ssa_preds == [pre]:
            self.loop_entry[id(header)] = pre

    def add_edges(self, term: Instruction) -> None:
        """Record the edges of a terminator just built (one entry per edge, as phis need)."""
        bb = term.parent
        assert bb is not None       # built into a block
        for s in term.successors:
            if s.ssa_sealed:
                raise AssertionError("an edge into a sealed block")
            ps = s.ssa_preds
            if ps is None:
                s.ssa_preds = [bb]
            else:
                ps.append(bb)

    def seal(self, bb: BasicBlock) -> None:
        """All predecessors of `bb` are known: complete its incomplete phis."""
        bid = id(bb)
        bb.ssa_sealed = True
        pending = self.incomplete.pop(bid, None)
        if pending:
            for var, phi in pending:
                self._add_operands(var, phi)
        if self.open_loops and self.open_loops[-1][0] == bid:      # the loop is built
            _, written = self.open_loops.pop()
            self.loop_writes[bid] = written
            if self.open_loops:
                self.open_loops[-1][1].update(written)

    # ---------------------------------------------------------------- variables
    def write(self, var: int, bb: BasicBlock, v: Value) -> None:
        """An assignment of `var` in `bb`."""
        if self.open_loops:
            self.open_loops[-1][1].add(var)
        d = bb.ssa_defs
        if d is None:
            bb.ssa_defs = {var: v}
        else:
            d[var] = v

    def write_all(self, nums: list[int], bb: BasicBlock, values: list[Value]) -> None:
        """`write` of several variables in one block (a local's components)."""
        if self.open_loops:
            self.open_loops[-1][1].update(nums)
        d = bb.ssa_defs
        if d is None:
            d = bb.ssa_defs = {}
        for n, v in zip(nums, values, strict=True):
            d[n] = v

    def read(self, var: int, bb: BasicBlock) -> Value:
        d = bb.ssa_defs
        if d is not None:
            v = d.get(var)
            if v is not None:
                fwd = self.forward
                if fwd and id(v) in fwd:
                    v = d[var] = self._resolve(v)        # the same value, found directly next time
                return v
        return self._read_recursive(var, bb)

    def read_all(self, nums: list[int], bb: BasicBlock) -> list[Value]:
        """`read` of several variables in one block (a local's components).  A read always
        records its value in `bb` (as `_read_recursive` does), so the block's table is made
        first; a variable defined in the one predecessor of a sealed block (the commonest miss)
        is taken from there without a call."""
        d = bb.ssa_defs
        if d is None:
            d = bb.ssa_defs = {}
        single = None
        if bb.ssa_sealed:
            ps = bb.ssa_preds
            if ps is not None and len(ps) == 1:
                single = ps[0].ssa_defs
        out = []
        get = d.get
        fwd = self.forward
        for n in nums:
            v = get(n)
            if v is None:
                if single is not None:
                    v = single.get(n)
                if v is None:
                    v = self._read_recursive(n, bb)
                else:
                    if fwd:
                        v = self._resolve(v)
                    d[n] = v
            elif fwd and id(v) in fwd:
                v = d[n] = self._resolve(v)
            out.append(v)
        return out

    def _resolve(self, v: Value) -> Value:
        fwd = self.forward
        while id(v) in fwd:
            v = fwd[id(v)]
        return v

    def _read_recursive(self, var: int, bb: BasicBlock) -> Value:
        if bb.ssa_sealed:                # most often: defined in the one predecessor
            ps = bb.ssa_preds
            if ps is not None and len(ps) == 1:
                d = ps[0].ssa_defs
                if d is not None:
                    val: Value | None = d.get(var)
                    if val is not None:
                        if self.forward:
                            val = self._resolve(val)
                        d = bb.ssa_defs
                        if d is None:
                            bb.ssa_defs = {var: val}
                        else:
                            d[var] = val
                        return val
        # walk up single-predecessor sealed blocks without recursion; remember the path
        path = [bb]
        while True:
            if not bb.ssa_sealed:
                phi = self._new_phi(var, bb)
                self.incomplete.setdefault(id(bb), []).append((var, phi))
                val = phi
                break
            ps = bb.ssa_preds
            if not ps:
                val = self.undef(var)
                break
            if len(ps) == 1:
                bb = ps[0]
                d = bb.ssa_defs
                if d is not None and var in d:
                    val = self._resolve(d[var]) if self.forward else d[var]
                    break
                path.append(bb)
                continue
            bid = id(bb)
            if bid in self.headers:
                if ps[0] is self.loop_entry.get(bid) and var not in self.loop_writes.get(bid, (var,)):
                    # not assigned in the (built) loop: Braun's phi would have the value entering
                    # the loop and itself as operands (every read inside leads back to it), be
                    # forwarded to that value and have no use; that value is read directly
                    val = self.read(var, ps[0])
                    break
                phi = self._new_phi(var, bb)
                d = bb.ssa_defs                       # breaks cycles through loops
                if d is None:
                    bb.ssa_defs = {var: phi}
                else:
                    d[var] = phi
                val = self._add_operands(var, phi)
            elif (bid, var) in self.joining:        # re-entered through a loop: make the phi now
                val = self.joining[(bid, var)]
                if val is None:
                    val = self.joining[(bid, var)] = self._new_phi(var, bb)
            else:
                val = self._join(var, bb, ps)
            break
        for b in path:
            d = b.ssa_defs
            if d is None:
                b.ssa_defs = {var: val}
            else:
                d[var] = val
        return val

    def _join(self, var: int, bb: BasicBlock, ps: list[BasicBlock]) -> Value:
        """A read at a sealed join that is not a loop header.  Braun et al. make the phi first, so
        that a read coming back to `bb` through a loop finds it; here the incoming values are read
        first and the phi is made only when one is needed: when such a read comes back (`joining`
        then holds the phi, made at that moment: no other phi of `bb` is made in between, so the
        block's phi order is unchanged), or when the values differ.  The result is the value
        Braun's order gives after removing a trivial phi, and no trivial phi is built here."""
        key = (id(bb), var)
        joining = self.joining
        joining[key] = None
        vals = [self.read(var, p) for p in ps]
        phi = joining.pop(key)
        if phi is not None:
            phi.attrs["incoming"] = list(zip(vals, ps))
            return self._try_remove_trivial(phi)
        same: Value | None = None
        for v in vals:
            if v is same:
                continue
            if same is not None:
                if const_key(v) == const_key(same):        # equal constants are one value
                    continue
                phi = self._new_phi(var, bb)
                phi.attrs["incoming"] = list(zip(vals, ps))
                return phi
            same = v
        assert same is not None     # a block with predecessors has incoming values
        return same

    def undef(self, var: int) -> Value:
        t = self.types[var]
        u = self._undef.get(t)
        if u is None:
            u = self._undef[t] = Undef(t)
        return u

    def _new_phi(self, var: int, bb: BasicBlock) -> Instruction:
        phi = _new_instruction(Instruction)       # Instruction("phi", ...) without the keyword packing
        phi.type = self.types[var]
        phi.name = ""
        phi.op = "phi"
        phi.operands = []
        phi.attrs = {"incoming": []}
        phi.parent = bb
        lst = self.phis.get(id(bb))
        if lst is None:
            self.phis[id(bb)] = [phi]
        else:
            lst.append(phi)
        return phi

    def _add_operands(self, var: int, phi: Instruction) -> Value:
        incoming = phi.attrs["incoming"]
        assert phi.parent is not None
        for p in phi.parent.ssa_preds or ():
            incoming.append((self.read(var, p), p))
        return self._try_remove_trivial(phi)

    def _try_remove_trivial(self, phi: Instruction) -> Value:
        same: Value | None = None
        for v, _ in phi.attrs["incoming"]:
            if self.forward:
                v = self._resolve(v)
            if v is same or v is phi:
                continue
            if same is not None:
                if const_key(v) == const_key(same):        # equal constants are one value
                    continue
                return phi
            same = v
        if same is None:
            same = self._undef.get(phi.type) or self._undef.setdefault(phi.type, Undef(phi.type))
        self.forward[id(phi)] = same
        return same

    # ---------------------------------------------------------------- the end
    def finish(self, f: Function) -> dict[int, Value]:
        """Put the live phis at the head of their blocks; returns the forwarded phis (phi id ->
        value), whose uses the caller rewrites (mem2reg.prune_trivial_phis / substitute)."""
        if self.incomplete:
            raise AssertionError("SSA construction left unsealed blocks with reads")
        fwd = self.forward
        for bb in f.blocks:
            lst = self.phis.get(id(bb))
            if lst:
                live = [p for p in lst if id(p) not in fwd]
                if live:
                    bb.instructions[:0] = live
        return fwd


class EdgeRecordingBuilder(IRBuilder):
    """The lowering builder: every branch it builds tells the SSA builder its edges."""

    def __init__(self, block: BasicBlock, ssa: SSABuilder | None) -> None:
        super().__init__(block)
        self.ssa = ssa

    def _edges(self, inst: Instruction) -> Instruction:
        if self.ssa is not None:
            self.ssa.add_edges(inst)
        return inst

    def br(self, target: BasicBlock) -> Instruction:
        return self._edges(IRBuilder.br(self, target))

    def cbranch(self, cond: Value, then: BasicBlock, else_: BasicBlock) -> Instruction:
        return self._edges(IRBuilder.cbranch(self, cond, then, else_))

    def switch(self, value: Value, default: BasicBlock, cases: list) -> Instruction:
        return self._edges(IRBuilder.switch(self, value, default, cases))
