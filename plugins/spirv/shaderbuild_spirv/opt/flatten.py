"""Control-flow clean-up: a branch on a constant goes to the taken target only (what is then
unreachable goes), a loop that can no longer repeat and has one way out is no longer a loop, a
loop with no effect (only pure instructions, no value used after it) goes,
empty if/else diamonds become OpSelect, and a block that is its only predecessor's only
successor joins that predecessor.

The emitter gives every `c ? a : b` and every small if its own blocks; once mem2reg has turned
the branches' stores into phis, a selection whose arms are empty (each arm only branches to the
merge) is `OpSelect c a b` per phi.  Only scalar phis are selected, and vectors from SPIR-V 1.4
on (before it a vector select needs a vector condition; composites need 1.4 too and are left).  Merge and continue targets of other constructs are never removed or
joined, so the structured nesting stays valid.
"""

from __future__ import annotations

from .cfg import CFG, successors
from .dce import is_pure
from .fold import Folder
from .mem2reg import rename_function
from .module import OP, Block, Function, Inst

_SEL_MERGE, _LOOP_MERGE, _PHI = OP["OpSelectionMerge"], OP["OpLoopMerge"], OP["OpPhi"]
_BRANCH, _COND, _SWITCH = OP["OpBranch"], OP["OpBranchConditional"], OP["OpSwitch"]


def run(f: Function, folder: Folder) -> bool:
    changed = False
    while True:
        # a step that changed nothing leaves the CFG (or the predecessor and merge maps) it
        # built valid for the next step, which then does not rebuild them
        n = _constant_branches(f, folder)
        cfg = CFG(f)
        m = _run_once_loops(f, folder, cfg)
        n += m + _dead_loops(f, folder, CFG(f) if m else cfg)
        refs = _refs(f)
        m = _diamonds(f, folder, refs)
        n += m + _joins(f, _refs(f) if m else refs)
        if not n:
            return changed
        changed = True


def _constant_branches(f: Function, folder: Folder) -> int:
    """OpBranchConditional / OpSwitch on a constant become an OpBranch (a selection's merge
    instruction goes with it: the merge block stays, as an ordinary block); then unreachable blocks go.
    A loop's back edge stays (a loop header needs exactly one), even when its condition is constant."""
    back = {b.insts[-2].w[1]: b.label for b in f.blocks if len(b.insts) > 1 and b.insts[-2].op == _LOOP_MERGE}
    blocks = {b.label: b for b in f.blocks}
    changed = 0
    for b in f.blocks:
        t = b.term
        if back.get(b.label) in successors(b):
            continue
        if t.op == _COND:
            c = folder.lanes(t.w[0])
            if c is None or len(c[1]) != 1:
                continue
            target = t.w[1] if c[1][0] else t.w[2]
        elif t.op == _SWITCH:
            c = folder.lanes(t.w[0])
            if c is None or len(c[1]) != 1 or len(t.w) % 2 != 0:     # 32-bit selectors only
                continue
            cases = dict(zip(t.w[2::2], t.w[3::2]))
            target = cases.get(c[1][0], t.w[1])
        else:
            continue
        if len(b.insts) > 1 and b.insts[-2].op == _SEL_MERGE:
            if t.op == _SWITCH and _nested_exit(blocks, b.label, target, b.insts[-2].w[0]):
                continue
            del b.insts[-2]
        for dropped in set(successors(b)) - {target}:      # its phis lose the edge from b
            _forget_edge(blocks[dropped], b.label)
        b.insts[-1] = Inst.make("OpBranch", [target])
        changed += 1
    return changed + _drop_unreachable(f, folder) if changed else 0


def _nested_exit(blocks: dict[int, Block], header: int, target: int, merge: int) -> bool:
    """Whether dropping the header's merge would leave a `break` out of the switch from inside an `if`
    entering a construct: with the merge gone, a nested header that dominates `merge` makes `merge` part
    of its construct, and the break from inside that construct to it is invalid structured control
    flow.  Then the header stays."""
    headers, stack, seen = [], [target], {header}   # the arm's own nested headers (their bodies skipped)
    while stack:
        label = stack.pop()
        if label == merge or label in seen:
            continue
        seen.add(label)
        blk = blocks[label]
        m = blk.insts[-2] if len(blk.insts) > 1 else None
        if m is not None and m.op in (_SEL_MERGE, _LOOP_MERGE):
            if m.w[0] == merge:        # a nested construct merges there too: the block stays a merge
                return False
            headers.append(label)
            stack.append(m.w[0])
        else:
            stack += successors(blk)
    stack, inner = [target], {header}   # every block of the arm, nested ones too
    while stack:
        label = stack.pop()
        if label == merge or label in inner:
            continue
        inner.add(label)
        blk = blocks[label]
        if merge in successors(blk) and (label not in seen or label in headers):
            break                       # a nested block exits to the merge
        stack += successors(blk)
    else:
        return False
    return any(not _reaches(blocks, target, merge, {h, header}) for h in headers)


def _reaches(blocks: dict[int, Block], start: int, goal: int, avoid: set[int]) -> bool:
    """Whether a path from `start` to `goal` avoids the blocks `avoid` (not: one of them dominates `goal`)."""
    stack, seen = [start], set(avoid)
    while stack:
        label = stack.pop()
        if label == goal:
            return True
        if label in seen:
            continue
        seen.add(label)
        stack += successors(blocks[label])
    return False


def _forget_edge(b: Block, pred: int) -> None:
    for x in b.insts:
        if x.op != _PHI:
            break
        words = x.w[:2]
        for i in range(2, len(x.w), 2):
            if x.w[i + 1] != pred:
                words += [x.w[i], x.w[i + 1]]
        x.w, x.uses = words, Inst.make("OpPhi", words).uses


def _drop_unreachable(f: Function, folder: Folder) -> int:
    """Remove blocks the entry cannot reach.  One that a reachable header still names as its merge
    or continue target stays, emptied (a merge: OpUnreachable; a continue target: a branch back
    to its header); phis forget the predecessors that went and take undef from the emptied ones."""
    cfg = CFG(f)
    kept: dict[int, Inst] = {}
    for b in f.blocks:
        if b.label not in cfg.reachable or len(b.insts) < 2:
            continue
        m = b.insts[-2]
        if m.op == _SEL_MERGE and m.w[0] not in cfg.reachable:
            kept[m.w[0]] = Inst.make("OpUnreachable", [])
        elif m.op == _LOOP_MERGE:
            if m.w[0] not in cfg.reachable:
                kept[m.w[0]] = Inst.make("OpUnreachable", [])
            if m.w[1] not in cfg.reachable:
                kept[m.w[1]] = Inst.make("OpBranch", [b.label])
    gone = {b.label for b in f.blocks if b.label not in cfg.reachable and b.label not in kept}
    stubs = {b.label for b in f.blocks if b.label in kept
             and not (len(b.insts) == 1 and (b.term.op, b.term.w) == (kept[b.label].op, kept[b.label].w))}
    if not gone and not stubs:
        return 0
    info = folder.info
    for b in f.blocks:
        if b.label in kept:
            b.insts = [kept[b.label]]
            continue
        for x in b.insts:
            if x.op != _PHI:
                break
            words = x.w[:2]
            for i in range(2, len(x.w), 2):
                v, p = x.w[i], x.w[i + 1]
                if p in gone or (p in kept and successors(Block(p, [kept[p]])) != [b.label]):
                    continue
                words += [info.undef(x.w[0]) if p in kept else v, p]
            x.w, x.uses = words, Inst.make("OpPhi", words).uses
    f.blocks = [b for b in f.blocks if b.label not in gone]
    return len(gone) + len(stubs)


def _run_once_loops(f: Function, folder: Folder, cfg: CFG) -> int:
    """A loop whose continue target is unreachable runs its body once.  When the header ends in
    an unconditional branch and every path through the body leaves by one block (the merge
    block's only predecessor; so no break from inside a nested construct), the loop
    instruction and the continue target go and the body is ordinary code."""
    blocks = {b.label: b for b in f.blocks}
    for h in f.blocks:
        if h.label not in cfg.reachable or len(h.insts) < 2 or h.insts[-2].op != _LOOP_MERGE \
                or h.term.op != _BRANCH:
            continue
        merge, cont = h.insts[-2].w[0], h.insts[-2].w[1]
        if cont in cfg.reachable or cont == h.label or merge not in cfg.reachable:
            continue
        exits = [p for p in cfg.pred[merge] if p in cfg.reachable]
        if len(exits) != 1 or exits[0] == h.label:
            continue
        last = exits[0]
        seen = {h.label, last}
        stack = [h.term.w[0]]
        ok = True
        while stack and ok:
            n = stack.pop()
            if n in seen:
                continue
            seen.add(n)
            succ = cfg.succ[n]
            ok = bool(succ) and n != merge and n != cont and cfg.dominates(h.label, n)
            stack += succ
        if not ok or not _all_reach(cfg, seen, last) or _refs(f)[1].get(cont, 0) != 1:   # named by this loop only
            continue
        del h.insts[-2]
        f.blocks = [b for b in f.blocks if b.label != cont]
        _forget_edge(blocks[h.label], cont)     # the header's phis lose the (dead) back edge
        _drop_unreachable(f, folder)            # unreachable blocks that branched to it
        return 1
    return 0


def _all_reach(cfg: CFG, body: set[int], last: int) -> bool:
    """Every block of `body` reaches `last`.  A path that never does (an endless inner loop) can hold the
    merge of a selection `last` is nested in: `last`'s branch to the loop's merge was a break, and with the
    loop gone it would leave that selection other than through its merge (invalid structured control flow)."""
    reach = {last}
    stack = [last]
    while stack:
        for p in cfg.pred[stack.pop()]:
            if p in body and p not in reach:
                reach.add(p)
                stack.append(p)
    return body <= reach


def _refs(f: Function) -> tuple[dict[int, list[int]], dict[int, int]]:
    """Predecessors of each block, and how many merge instructions name each label."""
    preds: dict[int, list[int]] = {b.label: [] for b in f.blocks}
    named: dict[int, int] = {}
    for b in f.blocks:
        for s in dict.fromkeys(successors(b)):
            preds[s].append(b.label)
        if len(b.insts) > 1:    # a merge instruction is always the one before the terminator
            x = b.insts[-2]
            if x.op == _SEL_MERGE:
                named[x.w[0]] = named.get(x.w[0], 0) + 1
            elif x.op == _LOOP_MERGE:
                named[x.w[0]] = named.get(x.w[0], 0) + 1
                named[x.w[1]] = named.get(x.w[1], 0) + 1
    return preds, named


def _moved(blocks: dict[int, Block], preds: dict[int, list[int]], b: Block, old: int) -> None:
    """Block `old`'s code now ends `b`: its successors' predecessor lists and phis name b."""
    for succ in dict.fromkeys(successors(b)):
        preds[succ] = [b.label if p == old else p for p in preds[succ]]
        for x in blocks[succ].insts:
            if x.op != _PHI:
                break
            for i in range(3, len(x.w), 2):
                if x.w[i] == old:
                    x.w[i] = b.label


def _diamonds(f: Function, folder: Folder, refs: tuple[dict[int, list[int]], dict[int, int]]) -> int:
    preds, named = refs
    blocks = {b.label: b for b in f.blocks}
    removed: set[int] = set()
    vectors_ok = folder.info.m.header[1] >= 0x10400    # a scalar condition for vectors: SPIR-V 1.4
    for b in list(f.blocks):
        if b.label in removed or len(b.insts) < 2 or b.term.op != _COND or b.insts[-2].op != _SEL_MERGE:
            continue
        merge = b.insts[-2].w[0]
        cond, t, e = b.term.w[0], b.term.w[1], b.term.w[2]
        if t == e or named.get(merge, 0) != 1:
            continue
        arms: dict[int, int] = {}           # arm target -> the label the merge's phis name for it
        for arm in (t, e):
            if arm == merge:
                arms[arm] = b.label
                continue
            ab = blocks[arm]
            if len(ab.insts) != 1 or ab.term.op != _BRANCH or ab.term.w[0] != merge or preds[arm] != [b.label] \
                    or named.get(arm):
                break
            arms[arm] = arm
        else:
            if sorted(preds[merge]) != sorted(arms.values()):
                continue
            mb = blocks[merge]
            phis = [x for x in mb.insts if x.op == _PHI]
            if not all(x.w[0] in folder.scalar_kind or (vectors_ok and x.w[0] in folder.vector) for x in phis):
                continue
            selects = []
            for x in phis:
                incoming = {x.w[i + 1]: x.w[i] for i in range(2, len(x.w), 2)}
                selects.append(Inst.make("OpSelect", [x.w[0], x.w[1], cond, incoming[arms[t]], incoming[arms[e]]]))
            # the merge block joins the header (its only predecessor now)
            b.insts = b.insts[:-2] + selects + [x for x in mb.insts if x.op != _PHI]
            removed |= {merge} | {a for a in (t, e) if a != merge}
            named[merge] = 0
            _moved(blocks, preds, b, merge)
    if removed:
        f.blocks = [x for x in f.blocks if x.label not in removed]
    return len(removed)


def _joins(f: Function, refs: tuple[dict[int, list[int]], dict[int, int]]) -> int:
    preds, named = refs
    blocks = {b.label: b for b in f.blocks}
    entry = f.blocks[0].label
    removed: set[int] = set()
    repl: dict[int, int] = {}
    for b in list(f.blocks):
        while b.label not in removed and b.term.op == _BRANCH \
                and not (len(b.insts) > 1 and b.insts[-2].op in (_SEL_MERGE, _LOOP_MERGE)):
            s = b.term.w[0]
            if s == entry or s == b.label or preds[s] != [b.label] or named.get(s):
                break
            sb = blocks[s]
            body: list[Inst] = []
            for x in sb.insts:
                if x.op == _PHI:
                    repl[x.w[1]] = x.w[2]        # one predecessor: the phi is its value
                else:
                    body.append(x)
            b.insts = b.insts[:-1] + body
            removed.add(s)
            _moved(blocks, preds, b, s)
    if removed:
        f.blocks = [x for x in f.blocks if x.label not in removed]
        rename_function(f, repl)
    return len(removed)


_CONTROL = frozenset((_SEL_MERGE, _LOOP_MERGE, _BRANCH, _COND, _SWITCH))


def _dead_loops(f: Function, folder: Folder, cfg: CFG) -> int:
    """A loop that computes nothing used after it goes: every block of it holds only pure
    instructions and structured branches (no store, call, barrier, return or kill), every way
    out reaches its merge block, no value it defines is used outside it, and the merge block's
    phis take one value defined before the loop.  Its one predecessor then branches to the merge
    block.  (A loop that cannot end has no effect a shader may rely on; spirv-opt and DXC drop
    such loops too.)"""
    blocks = {b.label: b for b in f.blocks}
    merge_decls: dict[int, list[int]] = {}           # merge block -> blocks declaring it
    for b in f.blocks:
        if len(b.insts) > 1 and b.insts[-2].op in (_SEL_MERGE, _LOOP_MERGE):
            merge_decls.setdefault(b.insts[-2].w[0], []).append(b.label)
    # the loops that pass every test but the uses of their values elsewhere than in their merge block,
    # in block order: those uses are then looked up in one scan, for their values only (a loop whose
    # value is used in its merge block, the usual case, fails before that)
    candidates: list[tuple[Block, int, set[int], set[int], list[Inst]]] = []
    for h in f.blocks:
        if h.label not in cfg.reachable or len(h.insts) < 2 or h.insts[-2].op != _LOOP_MERGE:
            continue
        merge = h.insts[-2].w[0]
        if merge not in cfg.reachable or any(p not in cfg.reachable for p in cfg.pred[h.label]):
            continue
        outside = [p for p in cfg.pred[h.label] if not cfg.dominates(h.label, p)]
        if len(outside) != 1:
            continue
        entry = blocks[outside[0]]
        if entry.term.op != _BRANCH or (len(entry.insts) > 1 and entry.insts[-2].op in (_SEL_MERGE, _LOOP_MERGE)):
            continue
        own = {x.w[x.r] for x in h.insts if x.r >= 0}      # the header's values (its phis: the loop's)
        if any(x.w[p] in own for x in blocks[merge].insts for p in x.uses):
            continue        # used right after the loop (the usual case): no walk of its body needed
        body, stack, ok = set(), [h.label], True
        while stack and ok:
            n = stack.pop()
            if n in body or n == merge:
                continue
            body.add(n)
            ok = bool(cfg.succ[n]) and cfg.dominates(h.label, n) \
                and all(x.op in _CONTROL or is_pure(x, folder.info) for x in blocks[n].insts)
            stack += cfg.succ[n]
        if not ok or any(p not in body for p in cfg.pred[merge] if p in cfg.reachable):
            continue
        defined = {x.result for n in body for x in blocks[n].insts if x.r >= 0}
        phis = [x for x in blocks[merge].insts if x.op == _PHI]
        if any(len(set(x.w[2::2])) != 1 or x.w[2] in defined for x in phis):
            continue
        if any(label not in body for label in merge_decls[merge]):
            continue
        if any(x.w[p] in defined for x in blocks[merge].insts for p in x.uses):
            continue        # another value of the loop used right after it
        candidates.append((entry, merge, body, defined, phis))
    if not candidates:
        return 0
    wanted = set().union(*(c[3] for c in candidates))
    users: dict[int, list[tuple[int, bool]]] = {}     # wanted id -> (block using it, whether by a phi)
    for b in f.blocks:
        plain, by_phi = (b.label, False), (b.label, True)
        for x in b.insts:
            w = x.w
            for p in x.uses:
                if w[p] in wanted:
                    users.setdefault(w[p], []).append(by_phi if x.op == _PHI else plain)
    for entry, merge, body, defined, phis in candidates:
        if any(label not in body and not (phi and label == merge) for v in defined for label, phi in users.get(v, ())):
            continue
        entry.insts[-1] = Inst.make("OpBranch", [merge])
        for x in phis:
            words = [x.w[0], x.w[1], x.w[2], entry.label]
            x.w, x.uses = words, Inst.make("OpPhi", words).uses
        f.blocks = [b for b in f.blocks if b.label not in body]
        _drop_unreachable(f, folder)            # unreachable blocks that branched into it
        return 1
    return 0
