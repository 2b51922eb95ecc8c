"""Loop rotation: a loop whose header tests and leaves becomes a guarded do-while, LLVM's loop-rotate shape.

DXC's LLVM rotates every loop it can (loop-rotate, then simplifycfg): its DXIL has no loop whose header
both tests and exits; the test sits at the bottom, in the latch, and a copy of it guards the loop.
dxil-spirv's structurizer took the header's exit block of such a loop, nested in an if that then
`continue`s, for the merge of that if and left the if's other path unstructured (spirv-val: "exits the
selection ... not via a structured exit"; test_differential's inner_loop_then_continue).

    P: br H                       P: <H's code, H's phis read from P>; br c', B, E
    H: phis; <code>; br c, B, E   B: phis of H's values (from P: the copies, from L: the latch's); ...
    B: ...                        L: ...; <H's code, H's phis read from L>; br c, B, E
    L: ...; br H                  E: phis of H's values (the same incomings as B's), for uses after the loop

The header's code runs exactly as often as before (once per entry at P, once per back edge at L), so
even loads may be copied; calls, stores and other writes are not (a copy of a wave operation or barrier
would run in other control flow).  Uses of the header's values are rewritten by dominance: below B (the
body, and blocks left into by a `break`) they read B's phis, below E they read E's; a loop where some use
sits elsewhere is left as it is.
"""

from __future__ import annotations

from .cfg import _constant_condition, _loop_bodies, _reachable_cfg, immediate_dominators
from .llvm.values import BasicBlock, Function, Instruction, Value

__all__ = ["rotate_loops"]

_MOST_COPIED = 16            # the header's instructions (phis and branch aside), as LLVM's rotation-max-header-size
_NOT_COPIED = frozenset({"call", "store", "alloca", "atomicrmw", "cmpxchg", "fence", "switch", "ret", "unreachable",
                         "phi"})


def rotate_loops(f: Function, forwarded: dict[Value, Value] | None = None, locs: dict | None = None) -> bool:
    """Rotate each loop whose header is entered by one preheader and one latch (both by a plain `br`), holds
    at most _MOST_COPIED copyable instructions and leaves the loop by a conditional branch whose other target
    (the body's first block, entered only from the header) starts no phi.  `forwarded`: the SSA
    construction's trivial phis (phi -> value) whose uses are still to be rewritten; a use of one standing
    for a header value is rewritten here (the header's phis go).  `locs`: the -Zi locations (instruction ->
    location), given to the copies too.  One analysis serves every loop: rotating one only takes its header
    out of the dominator tree (its preheader becomes the parent of the body's first block and of the exit),
    so the others' dominance questions keep their answers.  A loop whose guard would be computed from constants
    only (`for (i = 0; i < 4; i++)`) stays as it is: DXC's InstCombine folds such a guard away, but rotating
    those loops, with the guard folded or not, made dxil-spirv reject programs it converted unrotated (shapes
    181, 293, 301, 440, 501, 524, 566, 738, 925, 943 of tag campaign).  Returns whether a loop was rotated."""
    if len(f.blocks) < 3:
        return False
    rpo, order, preds = _reachable_cfg(f)
    loops = [(h, body) for h, body in _loop_bodies(rpo, order, preds).items() if _candidate(h, body)]
    if not loops:
        return False
    idom = immediate_dominators([[order[p] for p in preds[bb]] for bb in rpo])
    first, last = _intervals(idom)
    header_values = {v for h, _body in loops for v in h.instructions}
    alias: dict[Value, Value] = {}                 # forwarded phi -> the header value it stands for
    fw = forwarded or {}
    for fp in fw:
        v = fp
        while v in fw:
            v = fw[v]
        if v in header_values:
            alias[fp] = v
    users: dict[Value, list[tuple[Instruction, BasicBlock]]] = {}
    watched = header_values | alias.keys()
    for bb in f.blocks:
        for i in bb.instructions:
            ops = [v for v, _q in i.attrs["incoming"]] if i.op == "phi" else i.operands
            for o in ops:
                if o in watched:
                    users.setdefault(o, []).append((i, bb))
    walk = _Rotation(f, order, first, last, preds, alias, users, locs)
    for h, body in loops:
        walk.rotate(h, body)
    if walk.gone:
        f.blocks = [bb for bb in f.blocks if bb not in walk.gone]
    return bool(walk.gone)


def _candidate(h: BasicBlock, body: set[BasicBlock]) -> bool:
    """Whether the header `h` leaves its loop by a conditional branch to one block inside and one outside."""
    term = h.instructions[-1]
    if term.op != "br" or not term.operands:
        return False
    yes, no = term.attrs["targets"]
    return (yes in body) != (no in body) and h not in (yes, no)


def _intervals(idom: list[int]) -> tuple[list[int], list[int]]:
    """Each node's first and last position in a depth-first walk of the dominator tree: x is dominated by
    d iff first[d] <= first[x] <= last[d]."""
    n = len(idom)
    children: list[list[int]] = [[] for _ in range(n)]
    for x in range(1, n):
        if idom[x] >= 0:
            children[idom[x]].append(x)
    first, last = [0] * n, [0] * n
    count = 0
    stack = [(0, False)]
    while stack:
        x, done = stack.pop()
        if done:
            last[x] = count - 1
            continue
        first[x] = count
        count += 1
        stack.append((x, True))
        stack.extend((c, False) for c in children[x])
    return first, last


def _plain_branch_to(p: BasicBlock, h: BasicBlock) -> bool:
    t = p.instructions[-1] if p.instructions else None
    return t is not None and t.op == "br" and not t.operands and t.attrs["targets"][0] is h


class _Rotation:
    """The analysis the rotations share, kept up to date as each loop is rotated."""

    def __init__(self, f: Function, order: dict[BasicBlock, int], first: list[int], last: list[int],
                 preds: dict[BasicBlock, list[BasicBlock]], alias: dict[Value, Value],
                 users: dict[Value, list[tuple[Instruction, BasicBlock]]], locs: dict | None) -> None:
        self.f, self.order, self.first, self.last, self.preds = f, order, first, last, preds
        self.alias, self.users, self.locs = alias, users, locs
        self.aliases_of: dict[Value, list[Value]] = {}
        for fp, v in alias.items():
            self.aliases_of.setdefault(v, []).append(fp)
        self.gone: set[BasicBlock] = set()

    def under(self, x: BasicBlock, top: BasicBlock) -> bool:
        o = self.order.get(x)
        if o is None:
            return False
        t = self.order[top]
        return self.first[t] <= self.first[o] <= self.last[t]

    def rotate(self, h: BasicBlock, body: set[BasicBlock]) -> bool:
        """Rotate the loop headed by `h` if it has the shape and every use of its values sits below the
        body's first block or below the exit; returns whether it was."""
        preds = self.preds
        if not _candidate(h, body):
            return False
        term = h.instructions[-1]
        b, e = term.attrs["targets"] if term.attrs["targets"][0] in body else term.attrs["targets"][::-1]
        outer = [p for p in preds[h] if p not in body]
        latches = [p for p in preds[h] if p in body]
        if len(outer) != 1 or len(latches) != 1 or preds[b] != [h] or _has_phis(b):
            return False
        pre, latch = outer[0], latches[0]
        if latch is h or not _plain_branch_to(pre, h) or not _plain_branch_to(latch, h):
            return False
        code = h.instructions[:-1]
        phis = [i for i in code if i.op == "phi"]
        work = code[len(phis):]
        if len(work) > _MOST_COPIED or any(i.op in _NOT_COPIED for i in work):
            return False
        if any({blk for _v, blk in p.attrs["incoming"]} != {pre, latch} for p in phis):
            return False
        on_entry = {p: v for p in phis for v, q in p.attrs["incoming"] if q is pre}
        if _constant_condition(term.operands[0], {**self.alias, **on_entry}) is not None:
            return False                           # a guard on constants: see rotate_loops
        values = [*phis, *work]
        names = [*values, *(fp for v in values for fp in self.aliases_of.get(v, ()))]
        gone = self.gone
        uses = [(v, i, bb) for v in names for i, bb in self.users.get(v, ()) if bb is not h and bb not in gone]
        for v, i, bb in uses:                      # every use outside the header must sit below b or below e
            if i.op == "phi":
                if any(w is v and q is not h and not self.under(q, b) and not self.under(q, e)
                       for w, q in i.attrs["incoming"]):
                    return False
            elif not self.under(bb, b) and not self.under(bb, e):
                return False
        self._rotate(h, pre, latch, b, e, phis, work, uses)
        return True

    def _rotate(self, h: BasicBlock, pre: BasicBlock, latch: BasicBlock, b: BasicBlock, e: BasicBlock,
                phis: list[Instruction], work: list[Instruction], uses: list[tuple[Value, Instruction, BasicBlock]]) -> None:
        alias, locs = self.alias, self.locs
        term = h.instructions[-1]
        for i in (*work, term):                    # the header's own reads of forwarded phis
            i.operands = [alias.get(o, o) for o in i.operands]
        from_pre: dict[Value, Value] = {}          # header value -> its value on entry (at the end of pre)
        from_latch: dict[Value, Value] = {}        # header phi -> its incoming from the latch
        for p in phis:
            for v, q in p.attrs["incoming"]:
                (from_pre if q is pre else from_latch)[p] = alias.get(v, v)
        # the copies in the preheader, reading the values on entry
        copies: dict[Value, Value] = dict(from_pre)
        pre.instructions.pop()
        for i in (*work, term):
            n = Instruction(i.op, i.type, [copies.get(o, o) for o in i.operands], i.name, **dict(i.attrs))
            n.parent = pre
            pre.instructions.append(n)
            copies[i] = n
            self._note_uses(n, pre)
            if locs is not None and i in locs:
                locs[n] = locs[i]
        # B's and E's phis, made when read: from pre the copies, from the latch the moved code's values
        header = {*phis, *work}
        at_b: dict[Value, Instruction] = {}
        at_e: dict[Value, Instruction] = {}

        def at(table: dict[Value, Instruction], v: Value) -> Instruction:
            phi = table.get(v)
            if phi is None:
                phi = table[v] = Instruction("phi", v.type, [], v.name)
                phi.attrs["incoming"] = [(copies[v], pre), (after_back_edge(v), latch)]
            return phi

        def after_back_edge(v: Value) -> Value:
            """A header value as the moved code computes it: a phi its latch incoming, where a header value is
            that value of the iteration before (B's phi of it)."""
            if v not in from_latch:
                return v
            w = from_latch[v]
            return at(at_b, w) if w in header else w

        # the header's code moves to the end of the latch, its phis read as after the back edge
        latch.instructions.pop()
        for i in (*work, term):
            i.operands = [after_back_edge(o) for o in i.operands]
            i.parent = latch
            latch.instructions.append(i)
            self._note_uses(i, latch, h)
        # the other uses: below b read b's phis, below e e's
        for v, i, bb in uses:
            v = alias.get(v, v)
            if i.op == "phi":
                i.attrs["incoming"] = [(at(at_b if self.under(q, b) else at_e, v), q)
                                       if q is not h and (w is v or alias.get(w) is v) else (w, q)
                                       for w, q in i.attrs["incoming"]]
            else:
                phi = at(at_b if self.under(bb, b) else at_e, v)
                i.operands = [phi if o is v or alias.get(o) is v else o for o in i.operands]
        for i in e.instructions:                   # e's phis: the edge from h is now two, from pre and the latch
            if i.op != "phi":
                break
            i.attrs["incoming"] = [x for w, q in i.attrs["incoming"] for x in (
                ((copies.get(w, w), pre), (after_back_edge(w), latch)) if q is h else ((w, q),))]
            self._note_uses(i, e)
        _lead(b, list(at_b.values()))
        _lead(e, list(at_e.values()))
        for table, bb in ((at_b, b), (at_e, e)):
            for phi in table.values():
                self._note_uses(phi, bb)
        # the CFG: pre and the latch now enter b and e
        preds = self.preds
        preds[b] = [pre, latch]
        preds[e] = [x for q in preds[e] for x in ((pre, latch) if q is h else (q,))]
        self.gone.add(h)

    def _note_uses(self, i: Instruction, bb: BasicBlock, was: BasicBlock | None = None) -> None:
        """Record `i` (now in `bb`) among the users of the header values it reads (a later loop's)."""
        ops = [v for v, _q in i.attrs["incoming"]] if i.op == "phi" else i.operands
        for o in ops:
            lst = self.users.get(o)
            if lst is None:
                continue
            if was is not None:
                lst[:] = [(u, ub) for u, ub in lst if u is not i]
            lst.append((i, bb))


def _has_phis(bb: BasicBlock) -> bool:
    return bool(bb.instructions) and bb.instructions[0].op == "phi"


def _lead(bb: BasicBlock, phis: list[Instruction]) -> None:
    """Put `phis` first in `bb`."""
    for p in phis:
        p.parent = bb
    bb.instructions[:0] = phis
