"""Control-flow clean-up: empty if/else diamonds become OpSelect, and a block that is its only
predecessor's only successor joins that predecessor.

The emitter gives every `c ? a : b` and every small if its own blocks; once mem2reg has turned
the branches' stores into phis, a selection whose arms are empty (each arm only branches to the
merge) is `OpSelect c a b` per phi.  Only scalar phis are selected, and vectors from SPIR-V 1.4
on (before it a vector select needs a vector condition; composites need 1.4 too and are left).  Merge and continue targets of other constructs are never removed or
joined, so the structured nesting stays valid.
"""

from __future__ import annotations

from .cfg import successors
from .fold import Folder
from .mem2reg import rename_function
from .module import OP, Block, Function, Inst

_SEL_MERGE, _LOOP_MERGE, _PHI = OP["OpSelectionMerge"], OP["OpLoopMerge"], OP["OpPhi"]
_BRANCH, _COND = OP["OpBranch"], OP["OpBranchConditional"]


def run(f: Function, folder: Folder) -> bool:
    changed = False
    while _diamonds(f, folder) + _joins(f):
        changed = True
    return changed


def _refs(f: Function) -> tuple[dict[int, list[int]], dict[int, int]]:
    """Predecessors of each block, and how many merge instructions name each label."""
    preds: dict[int, list[int]] = {b.label: [] for b in f.blocks}
    named: dict[int, int] = {}
    for b in f.blocks:
        for s in dict.fromkeys(successors(b)):
            preds[s].append(b.label)
        for x in b.insts:
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


def _diamonds(f: Function, folder: Folder) -> int:
    preds, named = _refs(f)
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


def _joins(f: Function) -> int:
    preds, named = _refs(f)
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
