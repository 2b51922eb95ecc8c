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
from .module import OP, Function, Inst

_SEL_MERGE, _LOOP_MERGE, _PHI = OP["OpSelectionMerge"], OP["OpLoopMerge"], OP["OpPhi"]
_BRANCH, _COND = OP["OpBranch"], OP["OpBranchConditional"]


def run(f: Function, folder: Folder) -> bool:
    changed = False
    while _one_diamond(f, folder) or _one_join(f):
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


def _relabel_phis(f: Function, old: int, new: int) -> None:
    for b in f.blocks:
        for x in b.insts:
            if x.op != _PHI:
                break
            for i in range(3, len(x.w), 2):
                if x.w[i] == old:
                    x.w[i] = new


def _one_diamond(f: Function, folder: Folder) -> bool:
    preds, named = _refs(f)
    blocks = {b.label: b for b in f.blocks}
    for b in f.blocks:
        if len(b.insts) < 2 or b.term.op != _COND or b.insts[-2].op != _SEL_MERGE:
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
            vectors_ok = folder.info.m.header[1] >= 0x10400    # a scalar condition for vectors: SPIR-V 1.4
            if not all(x.w[0] in folder.scalar_kind or (vectors_ok and x.w[0] in folder.vector) for x in phis):
                continue
            selects = []
            for x in phis:
                incoming = {x.w[i + 1]: x.w[i] for i in range(2, len(x.w), 2)}
                selects.append(Inst.make("OpSelect", [x.w[0], x.w[1], cond, incoming[arms[t]], incoming[arms[e]]]))
            rest = [x for x in mb.insts if x.op != _PHI]
            # the merge block joins the header (its only predecessor now)
            b.insts = b.insts[:-2] + selects + rest
            gone = {merge} | {a for a in (t, e) if a != merge}
            f.blocks = [x for x in f.blocks if x.label not in gone]
            _relabel_phis(f, merge, b.label)
            return True
    return False


def _one_join(f: Function) -> bool:
    preds, named = _refs(f)
    blocks = {b.label: b for b in f.blocks}
    entry = f.blocks[0].label
    for b in f.blocks:
        if b.term.op != _BRANCH or (len(b.insts) > 1 and b.insts[-2].op in (_SEL_MERGE, _LOOP_MERGE)):
            continue
        s = b.term.w[0]
        if s == entry or s == b.label or preds[s] != [b.label] or named.get(s):
            continue
        sb = blocks[s]
        repl: dict[int, int] = {}
        body: list[Inst] = []
        for x in sb.insts:
            if x.op == _PHI:
                repl[x.w[1]] = x.w[2]        # one predecessor: the phi is its value
            else:
                body.append(x)
        b.insts = b.insts[:-1] + body
        f.blocks = [x for x in f.blocks if x is not sb]
        _relabel_phis(f, s, b.label)
        rename_function(f, repl)
        return True
    return False
