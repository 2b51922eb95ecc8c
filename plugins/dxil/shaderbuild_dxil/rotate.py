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

from .cfg import _loop_bodies, _reachable_cfg, immediate_dominators
from .llvm.values import BasicBlock, Function, Instruction, Value

__all__ = ["rotate_loops"]

_MOST_COPIED = 16            # the header's instructions (phis and branch aside), as LLVM's rotation-max-header-size
_NOT_COPIED = frozenset({"call", "store", "alloca", "atomicrmw", "cmpxchg", "fence", "switch", "ret", "unreachable"})


def rotate_loops(f: Function, forwarded: dict[Value, Value] | None = None, locs: dict | None = None) -> bool:
    """Rotate each loop whose header is entered by one preheader and one latch (both by a plain `br`), holds
    at most _MOST_COPIED copyable instructions and leaves the loop by a conditional branch whose other target
    (the body's first block, entered only from the header) starts no phi.  `forwarded`: the SSA
    construction's trivial phis (phi -> value) whose uses are still to be rewritten; a use of one standing
    for a header value is rewritten here (the header's phis go).  `locs`: the -Zi locations
    (instruction -> location), given to the copies too.  Returns whether a loop was rotated."""
    changed = False
    while _rotate_one(f, forwarded or {}, locs):
        changed = True
    return changed


def _rotate_one(f: Function, forwarded: dict[Value, Value], locs: dict | None) -> bool:
    if len(f.blocks) < 3:
        return False
    rpo, order, preds = _reachable_cfg(f)
    bodies = _loop_bodies(rpo, order, preds)
    idom: list[int] | None = None
    for h, body in bodies.items():
        term = h.instructions[-1]
        if term.op != "br" or not term.operands:
            continue
        inside = [t for t in term.attrs["targets"] if t in body]
        if len(inside) != 1 or inside[0] is h:
            continue
        b = inside[0]
        e = next(t for t in term.attrs["targets"] if t not in body)
        outer = [p for p in preds[h] if p not in body]
        latches = [p for p in preds[h] if p in body]
        if len(outer) != 1 or len(latches) != 1 or preds[b] != [h]:
            continue
        pre, latch = outer[0], latches[0]
        if not _plain_branch_to(pre, h) or not _plain_branch_to(latch, h) or latch is h:
            continue
        code = h.instructions[:-1]
        phis = [i for i in code if i.op == "phi"]
        work = code[len(phis):]
        if len(work) > _MOST_COPIED or any(i.op in _NOT_COPIED or i.op == "phi" for i in work):
            continue
        if b.instructions and b.instructions[0].op == "phi":
            continue
        if idom is None:
            idom = immediate_dominators([[order[p] for p in preds[bb]] for bb in rpo])
        under_b = _dominated(rpo, order, idom, b)
        under_e = _dominated(rpo, order, idom, e)
        if _rotate(f, h, pre, latch, b, e, phis, work, under_b, under_e, _aliases(forwarded, phis, work), locs):
            return True
    return False


def _aliases(forwarded: dict[Value, Value], phis: list[Instruction], work: list[Instruction]) -> dict[Value, Value]:
    """The forwarded phis standing for one of the header's values (chains followed), mapped to it."""
    if not forwarded:
        return {}
    values = set(phis) | set(work)
    out: dict[Value, Value] = {}
    for fp in forwarded:
        v = fp
        while v in forwarded:
            v = forwarded[v]
        if v in values:
            out[fp] = v
    return out


def _plain_branch_to(p: BasicBlock, h: BasicBlock) -> bool:
    t = p.instructions[-1] if p.instructions else None
    return t is not None and t.op == "br" and not t.operands and t.attrs["targets"][0] is h


def _dominated(rpo: list[BasicBlock], order: dict[BasicBlock, int], idom: list[int], top: BasicBlock) -> set[BasicBlock]:
    """The blocks `top` dominates (itself included)."""
    t = order[top]
    out: set[BasicBlock] = set()
    for i, bb in enumerate(rpo):
        d = i
        while d > t:
            d = idom[d]
        if d == t:
            out.add(bb)
    return out


def _rotate(f: Function, h: BasicBlock, pre: BasicBlock, latch: BasicBlock, b: BasicBlock,
            e: BasicBlock, phis: list[Instruction], work: list[Instruction], under_b: set[BasicBlock],
            under_e: set[BasicBlock], alias: dict[Value, Value], locs: dict | None) -> bool:
    """Rotate the loop headed by `h` if every use of its values can be rewritten; returns whether it was.
    `alias`: forwarded phis standing for header values (their uses count as uses of those)."""
    if any({blk for _v, blk in p.attrs["incoming"]} != {pre, latch} for p in phis):
        return False
    values: set[Value] = set(phis) | set(work) | set(alias)
    # every use outside the header must sit below b or below e
    for bb in f.blocks:
        if bb is h:
            continue
        for i in bb.instructions:
            if i.op == "phi":
                for v, q in i.attrs["incoming"]:
                    if v in values and q is not h and q not in under_b and q not in under_e:
                        return False
            elif not values.isdisjoint(i.operands) and bb not in under_b and bb not in under_e:
                return False
    if alias:                                  # the forwarded phis' uses read the header's values themselves
        for bb in f.blocks:
            for i in bb.instructions:
                if not values.isdisjoint(i.operands):
                    i.operands = [alias.get(o, o) for o in i.operands]
                if i.op == "phi":
                    i.attrs["incoming"] = [(alias.get(v, v), q) for v, q in i.attrs["incoming"]]
        values = set(phis) | set(work)
    from_pre: dict[Value, Value] = {}          # header value -> its value on entry (at the end of pre)
    from_latch: dict[Value, Value] = {}        # header value -> its value after the back edge (at the end of latch)
    for p in phis:
        inc = {blk: v for v, blk in p.attrs["incoming"]}
        from_pre[p] = inc[pre]
        from_latch[p] = inc[latch]
    # the copies in the preheader, reading the values on entry
    copies: dict[Value, Value] = dict(from_pre)
    pre.instructions.pop()
    for i in work:
        c = Instruction(i.op, i.type, [copies.get(o, o) for o in i.operands], i.name, **dict(i.attrs))
        c.parent = pre
        pre.instructions.append(c)
        copies[i] = c
        if locs is not None and i in locs:
            locs[c] = locs[i]
    term = h.instructions[-1]
    guard = Instruction("br", term.type, [copies.get(o, o) for o in term.operands], targets=term.attrs["targets"])
    guard.parent = pre
    pre.instructions.append(guard)
    if locs is not None and term in locs:
        locs[guard] = locs[term]
    # a header phi's latch incoming that is itself a header value is that value of the iteration before: B's phi
    at_b: dict[Value, Instruction] = {v: Instruction("phi", v.type, [], v.name) for v in [*phis, *work]}
    at_e: dict[Value, Instruction] = {v: Instruction("phi", v.type, [], v.name) for v in [*phis, *work]}
    latch_value = {p: at_b.get(v, v) for p, v in from_latch.items()}
    for v, phi in (*at_b.items(), *at_e.items()):
        phi.attrs["incoming"] = [(copies[v], pre), (latch_value.get(v, v), latch)]
    # the header's code moves to the end of the latch, its phis read as after the back edge
    latch.instructions.pop()
    for i in work:
        i.operands = [latch_value.get(o, o) for o in i.operands]
        i.parent = latch
        latch.instructions.append(i)
    term.operands = [latch_value.get(o, o) for o in term.operands]
    term.parent = latch
    latch.instructions.append(term)
    moved = set(work) | {term}
    # the other uses: below b read b's phis, below e e's
    for bb in f.blocks:
        if bb is h:
            continue
        for i in bb.instructions:
            if i in moved:
                continue
            if i.op == "phi":
                inc = i.attrs["incoming"]
                if values.isdisjoint(v for v, _q in inc) and not (bb is e and any(q is h for _v, q in inc)):
                    continue
                new = []
                for v, q in inc:
                    if q is h:                         # e's phis: the edge is now two, from pre and the latch
                        new += [(copies.get(v, v), pre), (latch_value.get(v, v), latch)]
                    elif v in values:
                        new.append(((at_b if q in under_b else at_e)[v], q))
                    else:
                        new.append((v, q))
                i.attrs["incoming"] = new
            elif not values.isdisjoint(i.operands):
                table = at_b if bb in under_b else at_e
                i.operands = [table.get(o, o) for o in i.operands]
    f.blocks = [bb for bb in f.blocks if bb is not h]
    used = _read_in(f, [*at_b.values(), *at_e.values()])
    _lead(b, [phi for phi in at_b.values() if phi in used])
    _lead(e, [phi for phi in at_e.values() if phi in used])
    return True


def _read_in(f: Function, new: list[Instruction]) -> set[Value]:
    """The phis of `new` that an instruction of `f`, or such a phi, reads."""
    pending = set(new)
    out: set[Value] = set()
    stack: list[Value] = []
    for bb in f.blocks:
        for i in bb.instructions:
            stack += (o for o in i.operands if o in pending)
            if i.op == "phi":
                stack += (v for v, _q in i.attrs["incoming"] if v in pending)
    while stack:
        v = stack.pop()
        if v in out:
            continue
        out.add(v)
        assert isinstance(v, Instruction)
        stack += (w for w, _q in v.attrs["incoming"] if w in pending)
    return out


def _lead(bb: BasicBlock, phis: list[Instruction]) -> None:
    """Put `phis` first in `bb`."""
    for p in phis:
        p.parent = bb
    bb.instructions[:0] = phis
