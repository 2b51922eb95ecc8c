"""Control-flow graph of one function: successors, predecessors, reachability, dominators
(Cooper, Harvey and Kennedy's iterative algorithm) and dominance frontiers."""

from __future__ import annotations

from .module import OP, Block, Function

_BRANCH, _COND, _SWITCH = OP["OpBranch"], OP["OpBranchConditional"], OP["OpSwitch"]


def successors(b: Block) -> list[int]:
    t = b.term
    if t.op == _BRANCH:
        return [t.w[0]]
    if t.op == _COND:
        return [t.w[1], t.w[2]]
    if t.op == _SWITCH:
        return [t.w[1], *t.w[3::2]]
    return []


class CFG:
    def __init__(self, f: Function) -> None:
        self.blocks = {b.label: b for b in f.blocks}
        # (an unreachable block may still name one a clean-up removed: such edges are ignored)
        self.succ = {b.label: [s for s in dict.fromkeys(successors(b)) if s in self.blocks] for b in f.blocks}
        self.pred: dict[int, list[int]] = {b.label: [] for b in f.blocks}
        for b in f.blocks:
            for s in self.succ[b.label]:
                self.pred[s].append(b.label)
        entry = f.blocks[0].label
        # reverse post-order of the reachable blocks
        order: list[int] = []
        seen = {entry}
        stack = [(entry, iter(self.succ[entry]))]
        while stack:
            node, it = stack[-1]
            for s in it:
                if s not in seen:
                    seen.add(s)
                    stack.append((s, iter(self.succ[s])))
                    break
            else:
                order.append(node)
                stack.pop()
        order.reverse()
        self.rpo = order
        self.reachable = seen
        index = {label: i for i, label in enumerate(order)}
        idom: dict[int, int] = {entry: entry}
        changed = True
        while changed:
            changed = False
            for node in order[1:]:
                new = -1
                for p in self.pred[node]:
                    if p not in idom:
                        continue
                    if new == -1:
                        new = p
                        continue
                    a, c = p, new
                    while a != c:
                        while index[a] > index[c]:
                            a = idom[a]
                        while index[c] > index[a]:
                            c = idom[c]
                    new = a
                if idom.get(node) != new:
                    idom[node] = new
                    changed = True
        self.idom = idom
        self.children: dict[int, list[int]] = {label: [] for label in order}
        for label in order[1:]:
            self.children[idom[label]].append(label)

    def frontiers(self) -> dict[int, set[int]]:
        df: dict[int, set[int]] = {b: set() for b in self.rpo}
        for b in self.rpo:
            preds = [p for p in self.pred[b] if p in self.reachable]
            if len(preds) < 2:
                continue
            for p in preds:
                runner = p
                while runner != self.idom[b]:
                    df[runner].add(b)
                    runner = self.idom[runner]
        return df

    def dominates(self, a: int, b: int) -> bool:
        while True:
            if a == b:
                return True
            p = self.idom[b]
            if p == b:
                return False
            b = p
