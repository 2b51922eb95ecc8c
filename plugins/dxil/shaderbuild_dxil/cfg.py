"""CFG clean-up after lowering: drop blocks no path reaches; continue paths go straight to the latch,
break paths to the loop's exit; endless loops get a never-taken exit; switch cases fallen into are copied
for the cases falling into them: shapes dxil-spirv's structurizer takes.

Structured lowering leaves empty blocks after `break`/`return`; LLVM accepts
them but the DXIL validator wants a tidy, reducible CFG.
"""

from __future__ import annotations

from shaderbuild.lightstd import Counter, itemgetter

from .llvm.types import i1, void
from .llvm.values import BasicBlock, ConstInt, Function, Instruction, Undef, Value

__all__ = ["remove_unreachable_blocks", "predecessors", "immediate_dominators", "successors", "reverse_postorder",
           "bypass_continue_blocks", "bypass_break_blocks", "fold_trivial_switches", "fold_constant_branches",
           "give_endless_loops_an_exit", "duplicate_fallen_into_cases"]

_block = itemgetter(1)                  # of a phi's (value, block) pair


def successors(bb) -> tuple | list:
    """`bb.terminator.successors` (or nothing) read straight from the terminator's attributes:
    the CFG walks ask this once per block and edge, and the properties build lists each time.
    The result is the instruction's own tuple for a `br`: not to be mutated."""
    insts = bb.instructions
    if insts:
        term = insts[-1]
        op = term.op
        if op == "br":
            return term.attrs["targets"]
        if op == "switch":
            return [term.attrs["default"], *(b for _, b in term.attrs["cases"])]
    return ()


def remove_unreachable_blocks(f: Function) -> dict[BasicBlock, BasicBlock | None]:
    """Drop the blocks the entry does not reach, and the phi incomings from them.  The search
    reads the terminators inline (as `successors` does): it runs once per block of every
    function, and nearly always finds every block reached (one C-level test then ends it).
    Returns each reached block's one predecessor (None: several edges enter it), seen on the
    way, for merge_straight_line_blocks (valid while no terminator changes)."""
    blocks = f.blocks
    only_pred: dict[BasicBlock, BasicBlock | None] = {}
    if not blocks:
        return only_pred
    entry = blocks[0]
    seen = {entry}                                   # blocks hash by identity
    stack = [entry]
    add, push = seen.add, stack.append
    while stack:
        bb = stack.pop()
        insts = bb.instructions
        if not insts:
            continue
        term = insts[-1]
        op = term.op
        if op == "br":
            succ = term.attrs["targets"]
        elif op == "switch":
            succ = [term.attrs["default"], *(b for _, b in term.attrs["cases"])]
        else:
            continue
        for s in succ:
            only_pred[s] = None if s in only_pred else bb
            if s not in seen:
                add(s)
                push(s)
    if seen.issuperset(blocks):
        return only_pred
    dead = {bb for bb in blocks if bb not in seen}
    f.blocks = [bb for bb in f.blocks if bb not in dead]
    live = dead.isdisjoint
    for bb in f.blocks:
        for inst in bb.instructions:                 # phis lead their blocks
            if inst.op != "phi":
                break
            incoming = inst.attrs["incoming"]
            if not live(map(_block, incoming)):      # tested as a whole at C level: most phis pass
                inst.attrs["incoming"] = [(v, b) for v, b in incoming if b not in dead]
    return only_pred


def reverse_postorder(f: Function) -> list[BasicBlock]:
    """Reverse post-order of the blocks reached from the entry (successors in order)."""
    entry = f.blocks[0]
    seen = {entry}                               # blocks hash by identity
    order: list[BasicBlock] = []
    stack = [(entry, iter(successors(entry)))]
    while stack:
        bb, it = stack[-1]
        for s in it:
            if s not in seen:
                seen.add(s)
                stack.append((s, iter(successors(s))))
                break
        else:
            stack.pop()
            order.append(bb)
    order.reverse()
    return order


def immediate_dominators(preds: list[list[int]]) -> list[int]:
    """Cooper, Harvey and Kennedy's iteration on a graph whose nodes are numbered in reverse
    post-order from the root (node 0); preds[i] are node i's predecessors.  Returns each node's
    immediate dominator (the root's is itself; -1 for a node no pass reaches).  Shared by the
    dominators of mem2reg and the post-dominators of ctrldep (run on the reversed CFG)."""
    doms = [-1] * len(preds)
    doms[0] = 0
    changed = True
    while changed:
        changed = False
        for i in range(1, len(preds)):
            new = -1
            for p in preds[i]:
                if doms[p] < 0:
                    continue                 # not reached by this pass yet
                if new < 0:
                    new = p
                    continue
                a, b = p, new                # intersect: walk up to the common dominator
                while a != b:
                    while a > b:
                        a = doms[a]
                    while b > a:
                        b = doms[b]
                new = a
            if new >= 0 and doms[i] != new:
                doms[i] = new
                changed = True
    return doms


def predecessors(f: Function) -> dict[int, list]:
    preds: dict[int, list] = {id(bb): [] for bb in f.blocks}
    for bb in f.blocks:
        for s in successors(bb):
            preds[id(s)].append(bb)
    return preds


def merge_straight_line_blocks(f: Function, only_pred: dict[BasicBlock, BasicBlock | None] | None = None) -> None:
    """Fold a block into its only predecessor when that predecessor branches only to it.

    One pass: `into` records which block absorbed which, so chains A -> B -> C fold in
    any visiting order, and phis are re-pointed once at the end (linear, not quadratic).
    Phis lead their blocks (the builder and mem2reg put them first), so a block has
    phis iff its first instruction is one.  Blocks hash by identity, so they key the
    tables directly, and only the number of incoming edges matters (one, or more).
    `only_pred`: that table (block -> its one predecessor, None: several edges) when the
    caller has it (remove_unreachable_blocks returns it), else it is built here.
    """
    blocks = f.blocks
    if not blocks:
        return
    if only_pred is None:
        only_pred = {}
        for bb in blocks:
            for s in successors(bb):
                only_pred[s] = None if s in only_pred else bb
    into: dict[BasicBlock, BasicBlock] = {}
    kept = [blocks[0]]
    for bb in blocks[1:]:
        p = only_pred.get(bb)
        if p is not None:
            while p in into:
                p = into[p]
        insts = bb.instructions
        term = p.instructions[-1] if p is not None and p.instructions else None
        if term is None or p is bb or term.op != "br" or term.operands or len(term.attrs["targets"]) != 1 \
                or (insts and insts[0].op == "phi"):
            kept.append(bb)
            continue
        assert p is not None        # term is p's
        p.instructions.pop()
        for inst in insts:
            inst.parent = p
        p.instructions += insts
        into[bb] = p
    if not into:
        return
    f.blocks = [bb for bb in kept if bb not in into]
    absorbed = into.keys().isdisjoint
    for bb in f.blocks:                                  # phis naming a folded block now come from its absorber
        for inst in bb.instructions:
            if inst.op != "phi":
                break
            incoming = inst.attrs["incoming"]
            if not absorbed(map(_block, incoming)):      # tested as a whole at C level: most phis pass
                fixed = []
                for v, b in incoming:
                    while b in into:
                        b = into[b]
                    fixed.append((v, b))
                inst.attrs["incoming"] = fixed


def fold_trivial_switches(f: Function) -> bool:
    """A `switch` on a constant, or whose every target is one block, becomes a `br` to the block it takes, as
    simplifycfg leaves DXC's: dxil-spirv wrote such a switch (all its cases empty, on a selector the front end
    folded to -1) as an OpSwitch without an OpSelectionMerge, which spirv-val rejects (shapes program 32 of
    tag hunt8x).  The phis of the blocks it no longer enters drop those incomings, and of the block it takes
    keep one.  A switch whose every target is, or leads through blocks doing nothing but branch to, one block
    without phis goes too, as simplifycfg folds the empty blocks first: dxil-spirv left the merge of such a switch in a
    loop (cases sharing a label and falling through, all empty) without a terminator (shapes program 182 of tag
    campaign).  Run remove_unreachable_blocks after it.  Returns whether a switch went."""
    changed = False
    for bb in f.blocks:
        insts = bb.instructions
        term = insts[-1] if insts else None
        if term is None or term.op != "switch":
            continue
        default, cases = term.attrs["default"], term.attrs["cases"]
        cond = term.operands[0]
        if isinstance(cond, ConstInt):
            taken = next((b for v, b in cases if v.value == cond.value), default)
        elif all(b is default for _v, b in cases):
            taken = default
        else:
            ends = {_through_forwarding_blocks(b) for b in (default, *(b for _v, b in cases))}
            if len(ends) != 1:
                changed = _drop_cases_to_default(bb, term) or changed
                continue
            taken = ends.pop()
            if taken is bb or _has_phis(taken):
                continue
        for target in {default, *(b for _v, b in cases)}:
            for inst in target.instructions:             # phis lead their blocks
                if inst.op != "phi":
                    break
                kept = [(v, b) for v, b in inst.attrs["incoming"] if b is not bb]
                first = next((x for x in inst.attrs["incoming"] if x[1] is bb), None)
                inst.attrs["incoming"] = kept + [first] if target is taken and first is not None else kept
        br = Instruction("br", void, [], targets=(taken,))
        br.parent = bb
        insts[-1] = br
        changed = True
    return changed


def _drop_cases_to_default(bb: BasicBlock, term: Instruction) -> bool:
    """Drop the cases of a switch that enter the block its default enters, directly or through blocks doing nothing
    but branch, with the same values for that block's phis, as LLVM's ConstantFoldTerminator does once
    simplifycfg has folded the empty blocks (`case 5: default:` sharing a body, empty cases falling through into
    the code after the switch).  dxil-spirv wrote a case falling through into such a shared body where the
    OpSwitch's target list did not let it (spirv-val: 'Case construct ... does not immediately precede it';
    shapes programs 468 and 595 of tag hunt8x), and left a merge block without a terminator (506 and 182 of tag
    campaign)."""
    default, cases = term.attrs["default"], term.attrs["cases"]
    end, via = _entry_into(default)
    kept_cases = []
    for v, b in cases:
        if b is default:
            continue
        end_c, via_c = _entry_into(b)
        if end_c is not end or not _same_phi_values(end, via_c or bb, via or bb):
            kept_cases.append((v, b))
    if len(kept_cases) == len(cases) or not kept_cases:
        return False
    term.attrs["cases"] = kept_cases
    edges = Counter(successors(bb))
    for target in {*(b for _v, b in cases)}:
        n = edges[target]
        for inst in target.instructions:
            if inst.op != "phi":
                break
            ins = inst.attrs["incoming"]
            from_bb = [x for x in ins if x[1] is bb][:n]
            inst.attrs["incoming"] = [x for x in ins if x[1] is not bb] + from_bb
    return True


def _entry_into(bb: BasicBlock) -> tuple[BasicBlock, BasicBlock | None]:
    """(the block `bb` leads to through blocks holding only a `br`, into a block with phis at the latest; the
    last block passed through, or None when that is `bb` itself)."""
    seen: set[BasicBlock] = set()
    via = None
    while bb not in seen and not (via is not None and _has_phis(bb)):
        insts = bb.instructions
        if len(insts) != 1 or insts[0].op != "br" or insts[0].operands:
            break
        term = insts[0]
        seen.add(bb)
        via, bb = bb, term.attrs["targets"][0]
    return bb, via


def _same_phi_values(bb: BasicBlock, p: BasicBlock, q: BasicBlock) -> bool:
    """Whether every phi of `bb` takes the same value from `p` as from `q`."""
    if p is q:
        return True
    for inst in bb.instructions:
        if inst.op != "phi":
            return True
        a = next(v for v, b in inst.attrs["incoming"] if b is p)
        c = next(v for v, b in inst.attrs["incoming"] if b is q)
        if a is not c and not (isinstance(a, ConstInt) and isinstance(c, ConstInt) and a.type == c.type
                               and a.value == c.value):
            return False
    return True


def _through_forwarding_blocks(bb: BasicBlock) -> BasicBlock:
    """The block reached from `bb` through blocks holding only an unconditional `br`, stopping before a block
    with phis (its incomings name the blocks passed through).  Blocks holding dead side-effect-free code (-O0
    runs no DCE, and the fold runs before it) do not count: folding a switch past them made dxil-spirv abort
    ('detected infinite loop') on shapes program 1 of test_differential's seeds."""
    seen = set()
    while bb not in seen:
        insts = bb.instructions
        if len(insts) != 1 or insts[0].op != "br" or insts[0].operands or _has_phis(insts[0].attrs["targets"][0]):
            break
        seen.add(bb)
        bb = insts[0].attrs["targets"][0]
    return bb


def fold_constant_branches(f: Function, forwarded: dict | None = None) -> bool:
    """`br i1 true/false, A, B` becomes `br` to the block it takes, as simplifycfg folds DXC's (a condition the front
    end folded, `if (-1 <= 0)`); the other block's phis drop the incoming from this one.  dxil-spirv's structurizer
    took such never-taken edges for real exits (shapes program 270 of tag campaign).  The folds inside a loop that
    no edge leaves afterwards are undone, with those in blocks the entry no longer reaches (`while (true) { if
    (false) break; }`, or such a break under `if (false)`): dxil-spirv converted the loop with its never-taken exit,
    not the endless one inside a selection, even with give_endless_loops_an_exit's never-taken exit into
    `unreachable` (spirv-val: "Function end cannot be called in blocks"; a reduction of shapes program 818 of tag
    campaign).  Run it before give_endless_loops_an_exit, whose never-taken exits it would undo, then
    remove_unreachable_blocks.  A condition computed from constants only (`icmp` of constants, or of wrapping
    add/sub/mul/and/or/xor of constants; through `forwarded`, the SSA construction's trivial phis not yet rewritten) counts as
    constant, as InstCombine folds it before simplifycfg in DXC: `if (d < d) continue;` with d constant left
    `br (icmp slt 0, 0), latch, ...`, a never-taken `continue` that dxil-spirv took for a real one (a
    reduction of loops program 1151 of tag hunt7l)."""
    folded: list[tuple[BasicBlock, Instruction, BasicBlock]] = []      # (block, its branch, the block it left)
    phis: dict[Instruction, tuple[BasicBlock, list]] = {}              # phi -> (its block, its incomings before)
    merged = False                                                     # a branch with one target twice went
    for bb in f.blocks:
        insts = bb.instructions
        term = insts[-1] if insts else None
        if term is None or term.op != "br" or not term.operands:
            continue
        cond = _constant_condition(term.operands[0], forwarded or {})
        if cond is None:
            continue
        yes, no = term.attrs["targets"]
        taken, other = (yes, no) if cond else (no, yes)
        if other is not taken:
            for inst in other.instructions:
                if inst.op != "phi":
                    break
                phis.setdefault(inst, (other, inst.attrs["incoming"]))
                inst.attrs["incoming"] = [(v, b) for v, b in inst.attrs["incoming"] if b is not bb]
            folded.append((bb, term, other))
        merged = merged or other is taken
        br = Instruction("br", void, [], targets=(taken,))
        br.parent = bb
        insts[-1] = br
    if not folded:
        return merged
    rpo, order, preds = _reachable_cfg(f)
    endless: set[BasicBlock] = set()
    for body in _loop_bodies(rpo, order, preds).values():
        if all(s in body for x in body for s in successors(x)):
            endless |= body
    left: dict[BasicBlock, BasicBlock] = {}          # folded block -> the block it no longer enters
    for bb, term, other in folded:                   # one no longer reached may be again once the loop's are undone
        if bb in order and bb not in endless:
            left[bb] = other
        else:
            bb.instructions[-1] = term
    for phi, (block, incoming) in phis.items():      # from the incomings before: two folds may have left one block
        phi.attrs["incoming"] = [(v, b) for v, b in incoming if left.get(b) is not block]
    return merged or bool(left)


_ICMP = {"eq": int.__eq__, "ne": int.__ne__, "slt": int.__lt__, "sle": int.__le__, "sgt": int.__gt__,
         "sge": int.__ge__, "ult": int.__lt__, "ule": int.__le__, "ugt": int.__gt__, "uge": int.__ge__}


_ARITH = {"add": int.__add__, "sub": int.__sub__, "mul": int.__mul__, "and": int.__and__, "or": int.__or__,
          "xor": int.__xor__}


def _constant_condition(v: Value, forwarded: dict) -> int | None:
    """The value (0 or 1) of a branch condition computed from constants only, else None."""
    c = _constant_int(v, forwarded, 0)
    return None if c is None or v.type is not i1 and not (isinstance(v, Instruction) and v.op == "icmp") else c


def _constant_int(v: Value, forwarded: dict, depth: int) -> int | None:
    """The (unsigned) value of an integer computed from constants only by icmp and wrapping add, sub, mul, and,
    or, xor, else None."""
    while v in forwarded:
        v = forwarded[v]
    if isinstance(v, ConstInt):
        return v.value
    if depth > 6 or not isinstance(v, Instruction) or len(v.operands) != 2:
        return None
    op = v.op
    if op != "icmp" and op not in _ARITH:
        return None
    a = _constant_int(v.operands[0], forwarded, depth + 1)
    b = _constant_int(v.operands[1], forwarded, depth + 1) if a is not None else None
    if a is None or b is None:
        return None
    if op == "icmp":
        pred = v.attrs["pred"]
        if pred not in _ICMP:
            return None
        if pred[0] == "s":
            w = v.operands[0].type.width             # type: ignore[attr-defined]
            a, b = (x - (1 << w) if x >> (w - 1) else x for x in (a, b))
        return int(_ICMP[pred](a, b))
    return _ARITH[op](a, b) & ((1 << v.type.width) - 1)   # type: ignore[attr-defined]


def give_endless_loops_an_exit(f: Function) -> bool:
    """A loop no edge leaves (`for (;;)` without a break or return) gets one: its latch's back edge becomes
    `br i1 true, header, X`.  dxil-spirv crashed (SIGSEGV) converting a function with such a loop on a path
    that may also return (a mutated sample of test_fuzz's batch, and an endless loop inside an if): a
    structured loop needs a merge block.  X is the block the branch the loop sits on joins the other way
    (its phis take undef from the latch): with X a block holding only `unreachable`, the SPIR-V dxil-spirv
    made of an endless loop in an if in a switch case branched into the switch's selection construct
    (test_fuzz_regressions' endless_loop_in_an_if_in_a_switch_case); only a loop on every path gets that
    block.  The loop still never ends.  Run remove_unreachable_blocks first.  Returns whether a loop got an
    exit."""
    blocks = f.blocks
    if len(blocks) < 2:
        return False
    rpo, order, preds = _reachable_cfg(f)
    changed = False
    idom: list[int] | None = None
    for h, body in _loop_bodies(rpo, order, preds).items():
        if any(s not in body for bb in body for s in successors(bb)):
            continue                                   # the loop has an exit
        latch = max((p for p in preds[h] if p in body), key=order.__getitem__)
        term = latch.instructions[-1]
        if term.op != "br" or term.operands:
            continue
        if idom is None:
            idom = immediate_dominators([[order[p] for p in preds[bb]] for bb in rpo])
        never = _join_outside(rpo, order, idom, h, body)
        if never is None:
            never = f.append_block()
            stop = Instruction("unreachable", void, [])
            stop.parent = never
            never.instructions.append(stop)
        else:
            for inst in never.instructions:            # phis lead their blocks
                if inst.op != "phi":
                    break
                inst.attrs["incoming"] = [*inst.attrs["incoming"], (Undef(inst.type), latch)]
        term.operands = [ConstInt(i1, 1)]
        term.attrs["targets"] = (h, never)
        changed = True
    return changed


def _join_outside(rpo: list[BasicBlock], order: dict[BasicBlock, int], idom: list[int], h: BasicBlock,
                  body: set[BasicBlock]) -> BasicBlock | None:
    """The first block, walking up the dominators of the endless loop's header `h`, that a dominator enters
    by a forward edge outside the loop (the other side of the branch the loop sits on), or None (the loop
    is on every path: nothing to join)."""
    chain: list[BasicBlock] = []
    d = order[h]
    while idom[d] not in (d, -1):
        d = idom[d]
        chain.append(rpo[d])
    for db in chain:
        for s in successors(db):
            if s not in body and s not in chain and order.get(s, -1) > order[db]:
                return s
    return None


def bypass_continue_blocks(f: Function) -> bool:
    """An empty block that only branches on to a loop's latch (a `continue`, the end of an if/else that
    ends the loop body) is bypassed: its predecessors branch to the latch directly, as LLVM's
    simplifycfg leaves DXC's loops.  dxil-spirv's structurizer made a selection that is left other than
    through its merge (spirv-val rejects it) for a loop body whose nested ifs `continue` through such
    blocks.  Targeted: folding every forwarding block made it crash on deeply nested loops, and a switch
    branching straight to a latch with phis made it abort; so a block a switch enters and the latch
    itself (one per loop) stay.  Into a latch with phis (one that only joins values) a block goes when
    each predecessor enters the latch through it alone: the phis then take one incoming per
    predecessor (dxil-spirv left an inner selection through an outer merge when continues from ifs
    nested three deep reached such a latch through empty blocks), except the body's own end (the
    latch's last predecessor in layout): with that one bypassed too, dxil-spirv took the preheader of
    an inner loop run before a `continue` for the merge of the if around it (loops program 1201 of
    tag hunt7l).  The block an inner loop's header leaves that loop through (the inner loop's merge) stays
    too: with the header's exit entering the outer latch straight, beside a `break` with code of its own from
    an if that also holds a `continue`, dxil-spirv's structurizer (split_merge_blocks, building a ladder for
    that latch) did not finish converting (loops program 722 of tag hunt7l).  Returns whether a block went."""
    blocks = f.blocks
    if len(blocks) < 3:
        return False
    order = {bb: i for i, bb in enumerate(reverse_postorder(f))}
    preds: dict[BasicBlock, list[BasicBlock]] = {bb: [] for bb in blocks}
    for bb in blocks:
        for s in successors(bb):
            preds[s].append(bb)
    index: dict[BasicBlock, int] = {}                  # block order (the lowering lays out a body's end last)
    inner: dict[BasicBlock, set[BasicBlock]] | None = None     # each loop's body, once a block is a candidate
    gone: set[BasicBlock] = set()
    for bb in blocks[1:]:
        insts = bb.instructions
        if len(insts) != 1 or insts[0].op != "br" or insts[0].operands or bb not in order:
            continue
        latch = insts[0].attrs["targets"][0]
        if order[latch] <= order[bb] or not any(order[h] < order[latch] for h in successors(latch)):
            continue                                   # not a forward edge to a latch (a one-block loop's is its preheader)
        ps = preds[bb]
        if any(p.instructions[-1].op != "br" for p in ps):
            continue
        if inner is None:
            rpo, rorder, rpreds = _reachable_cfg(f)
            inner = _loop_bodies(rpo, rorder, rpreds)
        if any(h in ps and latch not in body for h, body in inner.items()):
            continue                                   # an inner loop's merge: its header leaves it through bb
        if _has_phis(latch):
            if len(set(ps)) != len(ps) or any(p in preds[latch] for p in ps):
                continue
            index = index or {b: i for i, b in enumerate(blocks)}
            if bb is max(preds[latch], key=index.__getitem__):
                continue                               # the body's own end keeps its block
            _incoming_per_predecessor(latch, bb, ps)
        for p in ps:
            term = p.instructions[-1]
            targets = tuple(latch if x is bb else x for x in term.attrs["targets"])
            if len(targets) == 2 and targets[0] is targets[1]:
                term.operands, targets = [], (latch,)
            term.attrs["targets"] = targets
        preds[latch] = [p for p in preds[latch] if p is not bb] + ps
        gone.add(bb)
    if gone:
        f.blocks = [bb for bb in blocks if bb not in gone]
    return bool(gone)


def bypass_break_blocks(f: Function) -> bool:
    """An empty block entered from inside a loop that only branches out of it (a `break`, the header's exit) is
    bypassed: its predecessors branch to the exit directly and the exit's phis take one incoming per
    predecessor, as simplifycfg leaves DXC's loops.  dxil-spirv took such a block for the merge of the
    selection holding the `break` and left that selection through the other paths of the ifs inside
    it (spirv-val: "exits the selection ... not via a structured exit").  A block stays if a
    predecessor is a switch or already enters the exit (one edge cannot carry two phi values), and so
    does one whose exit is also entered from outside the loop: the next loop's header (dxil-spirv then
    left the first loop unstructured), the shared block of the function's returns (dxil-spirv did not
    finish converting; loops program 722 of tag hunt7l).  For a `break` (not the header's exit), blocks
    entered only from inside the loop count as inside: the `return` path beside the `break` into the block
    that tests the `returned` flag (dxil-spirv took the break's block for the merge of the if holding it and
    left that if through a `continue` beside it; loops program 1252 of tag hunt7l, reduced).  Not for the
    header's exit: beside a `break` with code of its own, dxil-spirv's structurizer then did not finish
    converting (loops program 722 of tag hunt7l, shapes program 639 of tag campaign).  Returns whether a
    block went."""
    blocks = f.blocks
    if len(blocks) < 3:
        return False
    rpo, order, preds = _reachable_cfg(f)
    bodies = _loop_bodies(rpo, order, preds)
    if not bodies:
        return False
    loops_of: dict[BasicBlock, list[set[BasicBlock]]] = {}     # block -> the bodies holding it
    for body in bodies.values():
        for x in body:
            loops_of.setdefault(x, []).append(body)
    gone: set[BasicBlock] = set()
    for bb in rpo[1:]:
        insts = bb.instructions
        if len(insts) != 1 or insts[0].op != "br" or insts[0].operands:
            continue
        exit_ = insts[0].attrs["targets"][0]
        ps = preds[bb]
        # a body holding every predecessor holds the first one: only those are asked (not every loop's)
        around = loops_of.get(ps[0], ()) if ps else bodies.values()
        if exit_ in bodies or not around:
            continue
        others = _entered_through_empty_blocks([q for q in preds[exit_] if q is not bb], preds)
        inside = [body for body in around if exit_ not in body and body.issuperset(ps)]
        if not any(body.issuperset(others) for body in inside) and (any(p in bodies for p in ps) or not any(
                all(q in body or preds[q] and body.issuperset(preds[q]) for q in others) for body in inside)):
            continue                                   # not on the way out of a loop into its own exit
        if not ps or len(set(ps)) != len(ps) or any(
                p.instructions[-1].op != "br" or p in preds[exit_] for p in ps):
            continue
        for p in ps:
            term = p.instructions[-1]
            term.attrs["targets"] = tuple(exit_ if x is bb else x for x in term.attrs["targets"])
        _incoming_per_predecessor(exit_, bb, ps)
        preds[exit_] = [p for p in preds[exit_] if p is not bb] + ps
        gone.add(bb)
    if gone:
        f.blocks = [bb for bb in blocks if bb not in gone]
    return bool(gone)


def _entered_through_empty_blocks(blocks: list[BasicBlock], preds: dict[BasicBlock, list[BasicBlock]]) -> set[BasicBlock]:
    """`blocks`, each empty forwarding block among them replaced by its predecessors (transitively)."""
    out: set[BasicBlock] = set()
    stack, seen = list(blocks), set()
    while stack:
        q = stack.pop()
        if q in seen:
            continue
        seen.add(q)
        insts = q.instructions
        if len(insts) == 1 and insts[0].op == "br" and not insts[0].operands and preds[q]:
            stack.extend(preds[q])
        else:
            out.add(q)
    return out


def _incoming_per_predecessor(target: BasicBlock, bypassed: BasicBlock, ps: list[BasicBlock]) -> None:
    """The phis of `target` take their value from the `bypassed` block once per predecessor `ps` of it."""
    for inst in target.instructions:                   # phis lead their blocks
        if inst.op != "phi":
            break
        inst.attrs["incoming"] = [(v, q) for v, b in inst.attrs["incoming"] for q in (ps if b is bypassed else (b,))]


def _reachable_cfg(f: Function) -> tuple[list[BasicBlock], dict[BasicBlock, int], dict[BasicBlock, list[BasicBlock]]]:
    """The blocks reachable from the entry in reverse postorder, each one's position in it, and each
    block's reachable predecessors (what _loop_bodies reads)."""
    rpo = reverse_postorder(f)
    preds: dict[BasicBlock, list[BasicBlock]] = {bb: [] for bb in f.blocks}
    for bb in rpo:
        for s in successors(bb):
            preds[s].append(bb)
    return rpo, {bb: i for i, bb in enumerate(rpo)}, preds


def _loop_bodies(rpo: list[BasicBlock], order: dict[BasicBlock, int],
                 preds: dict[BasicBlock, list[BasicBlock]]) -> dict[BasicBlock, set[BasicBlock]]:
    """Each natural loop's blocks (header included), keyed by its header: the blocks that reach a
    back edge's source without passing the header.  The structured lowering's CFG is reducible."""
    bodies: dict[BasicBlock, set[BasicBlock]] = {}
    for bb in rpo:
        for h in successors(bb):
            if order.get(h, -1) > order[bb] or h not in order:
                continue
            body = bodies.setdefault(h, {h})
            stack = [bb]
            while stack:
                x = stack.pop()
                if x not in body:
                    body.add(x)
                    stack.extend(preds[x])
    return bodies


def _has_phis(bb: BasicBlock) -> bool:
    return bool(bb.instructions) and bb.instructions[0].op == "phi"


_MOST_DUPLICATED = 256         # instructions of a case's blocks copied for the cases falling into it


def duplicate_fallen_into_cases(f: Function, locs: dict | None = None) -> bool:
    """A switch case that other cases fall into (its first block entered by `br` besides the switch) gets a
    copy of its blocks (those it reaches before the switch's merge, entered only from it) for those cases, so
    that no case falls into another: the copy's first block takes the phis' incomings from the falling
    cases, the original keeps the switch's, and the blocks the case leaves into take the copy's values too.
    dxil-spirv's structurizer left a case that falls through after a `break` or `return` from a nested if
    unstructured (spirv-val: "exits the selection ... not via a structured exit"), or a chain of such cases
    ("has branches to the case construct that targets ..."), or wrote the merge of such a switch in a loop
    without a terminator; each case ending in `break` converts (shapes programs 424, 518, 543, 546, 718 of
    tag campaign, 21 of tag hunt9).  Only cases of at most _MOST_DUPLICATED instructions whose values are
    used outside them only by phis, holding no loop (dxil-to-spirv crashed, SIGSEGV, on shapes programs 350
    and 375 of tag campaign with a copied loop; copying the smaller loops of shapes 222 and 518 made them
    convert, but left invalid SSA in shapes 89 and 292, 'Instruction does not dominate all uses', which
    the copy of a loop's values does not yet handle); not a latch or a loop header.  `locs`: the -Zi locations
    (instruction -> location), given to the copies too.  Returns whether a case was copied."""
    if not any(bb.instructions and bb.instructions[-1].op == "switch" for bb in f.blocks):
        return False
    changed = False
    merges: dict[BasicBlock, BasicBlock | None] = {}
    while _duplicate_one_fallen_into_case(f, merges, locs):
        changed = True
    return changed


def _duplicate_one_fallen_into_case(f: Function, merges: dict[BasicBlock, BasicBlock | None],
                                    locs: dict | None = None) -> bool:
    """Copy one fallen-into case.  The costs are bounded: a switch no case of which falls into another costs a look
    at its targets' predecessors; its merge is found once (`merges`: a copy inside a case keeps it), each block
    reaching it tried once, and a case's blocks are walked only up to _MOST_DUPLICATED instructions (a 300-case
    fall-through switch, 127 copies, each starting the search over, took 34 s before, 1-3 s after).  A case too
    big to copy may shrink once the case it falls into is copied for it (the copy drops the phis), so it is
    looked at again after each copy."""
    rpo, order, preds = _reachable_cfg(f)
    for sw in rpo:
        term = sw.instructions[-1] if sw.instructions else None
        if term is None or term.op != "switch":
            continue
        targets = list(dict.fromkeys([term.attrs["default"], *(b for _, b in term.attrs["cases"])]))
        falling: dict[BasicBlock, list[BasicBlock]] = {}
        for c in targets:
            fall = [p for p in preds[c] if p is not sw]
            if fall and len(set(fall)) == len(fall) and all(
                    p.instructions[-1].op == "br" and order[p] < order[c] for p in fall):
                falling[c] = fall                      # else no case falls into c, or c is a loop header
        if not falling:
            continue
        if sw not in merges:
            reach = [_reached_from(t, (sw,)) for t in targets]
            common = sorted((x for x in set.intersection(*reach) if order[x] > order[sw]), key=order.__getitem__)
            merges[sw] = next((x for x in common if _reached_from(x, (sw,)).issuperset(common)), None)
        merge = merges[sw]
        if merge is None:
            continue
        for c, fall in falling.items():
            if c is merge or any(s is not merge and sw in preds[s] for s in successors(c)):
                continue                               # the merge, or falling into another case itself
            region = _reached_within(c, (merge, sw), _MOST_DUPLICATED)
            if region is None or any(q not in region for x in region if x is not c for q in preds[x]) or any(
                    order[s] <= order[x] for x in region for s in successors(x)) or not _used_only_by_phis(f, region):
                continue                               # too big, entered elsewhere, or holding a loop's latch
            _copy_for(f, [x for x in f.blocks if x in region], c, fall, locs)
            return True
    return False


def _used_only_by_phis(f: Function, region: set[BasicBlock]) -> bool:
    """Whether the values the blocks of `region` define are used outside it only by phis, on edges from it."""
    defined = {i for bb in region for i in bb.instructions}
    for bb in f.blocks:
        if bb in region:
            continue
        for i in bb.instructions:
            if i.op == "phi":
                if any(v in defined and b not in region for v, b in i.attrs["incoming"]):
                    return False
            elif not defined.isdisjoint(i.operands):
                return False
    return True


def _copy_for(f: Function, blocks: list[BasicBlock], c: BasicBlock, fall: list[BasicBlock], locs: dict | None = None) -> None:
    """Copy the case `blocks` (first `c`, in layout order) for `c`'s predecessors `fall`, laid out before `c`;
    each copy gets its original's -Zi location in `locs`."""
    bm = {bb: BasicBlock(bb.name + ".dup" if bb.name else "", f) for bb in blocks}
    at = f.blocks.index(c)
    f.blocks[at:at] = [bm[bb] for bb in blocks]
    remap: dict = {}
    pairs = []
    for bb in blocks:
        for i in bb.instructions:
            if bb is c and i.op == "phi":
                inc = [(v, b) for v, b in i.attrs["incoming"] if b in fall]
                i.attrs["incoming"] = [(v, b) for v, b in i.attrs["incoming"] if b not in fall]
                if len(fall) == 1:
                    remap[i] = inc[0][0]
                    continue
                n = Instruction("phi", i.type, [], i.name, incoming=inc)
            else:
                n = Instruction(i.op, i.type, list(i.operands), i.name, **dict(i.attrs))
                pairs.append(n)
            n.parent = bm[bb]
            bm[bb].instructions.append(n)
            remap[i] = n
            if locs is not None and i in locs:
                locs[n] = locs[i]
    for n in pairs:                                    # operands may be defined later (a loop's phis)
        n.operands = [remap.get(o, o) for o in n.operands]
        attrs = n.attrs
        if n.op == "phi":
            attrs["incoming"] = [(remap.get(v, v), bm.get(b, b)) for v, b in attrs["incoming"]]
        elif n.op == "br":
            attrs["targets"] = tuple(bm.get(x, x) for x in attrs["targets"])
        elif n.op == "switch":
            attrs["default"] = bm.get(attrs["default"], attrs["default"])
            attrs["cases"] = [(v, bm.get(x, x)) for v, x in attrs["cases"]]
    for bb in blocks:                                  # the blocks the case leaves into
        for x in dict.fromkeys(successors(bb)):
            if x in bm:
                continue
            for i in x.instructions:                   # phis lead their blocks
                if i.op != "phi":
                    break
                i.attrs["incoming"] = [*i.attrs["incoming"],
                                       *((remap.get(v, v), bm[bb]) for v, b in i.attrs["incoming"] if b is bb)]
    for p in fall:
        t = p.instructions[-1]
        t.attrs["targets"] = tuple(bm[c] if x is c else x for x in t.attrs["targets"])


def _reached_from(t: BasicBlock, stops: tuple[BasicBlock, ...]) -> set[BasicBlock]:
    """The blocks reached from `t` (itself included) without passing `stops`."""
    seen: set[BasicBlock] = set()
    stack = [t]
    while stack:
        x = stack.pop()
        if x in seen or x in stops:
            continue
        seen.add(x)
        stack.extend(successors(x))
    return seen


def _reached_within(t: BasicBlock, stops: tuple[BasicBlock, ...], most: int) -> set[BasicBlock] | None:
    """_reached_from, or None as soon as the blocks reached hold more than `most` instructions."""
    seen: set[BasicBlock] = set()
    stack = [t]
    size = 0
    while stack:
        x = stack.pop()
        if x in seen or x in stops:
            continue
        seen.add(x)
        size += len(x.instructions)
        if size > most:
            return None
        stack.extend(successors(x))
    return seen
