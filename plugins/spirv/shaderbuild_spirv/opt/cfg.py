"""Control-flow graph of one function: successors, predecessors, reachability, dominators
(Cooper, Harvey and Kennedy's iterative algorithm) and dominance frontiers.  Dominance queries
compare the blocks' entry and exit numbers in a depth-first walk of the dominator tree, so each
is O(1) (walking the idom chain made them O(depth): a function of N sequential ifs has depth ~N)."""

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


def _back_edges_only(order: list[int], index: dict[int, int], pred: dict[int, list[int]], idom: dict[int, int]) -> bool:
    """Whether every edge to a block from one at or after it in reverse post-order goes to a block
    that dominates its source (by the dominators computed so far).  Then the graph is reducible and
    the first pass over it is final: the edges it skipped (their source not yet visited) are back
    edges, and a back edge's source is dominated by its target, so it changes no intersection."""
    for node in order:
        i = index[node]
        for p in pred[node]:
            j = index.get(p)
            if j is None or j < i:
                continue
            a = p
            while index[a] > i:
                a = idom[a]
            if a != node:
                return False
    return True


class CFG:
    def __init__(self, f: Function) -> None:
        blocks = self.blocks = {b.label: b for b in f.blocks}
        # (an unreachable block may still name one a clean-up removed: such edges are ignored)
        succ: dict[int, list[int]] = {}
        pred: dict[int, list[int]] = {label: [] for label in blocks}
        for b in f.blocks:      # successors(b), inlined: a branch or a two-way branch needs no dedup
            t = b.insts[-1]
            op, w = t.op, t.w
            if op == _BRANCH:
                out = [w[0]] if w[0] in blocks else []
            elif op == _COND:
                out = [s for s in ((w[1],) if w[1] == w[2] else (w[1], w[2])) if s in blocks]
            elif op == _SWITCH:
                out = [s for s in dict.fromkeys((w[1], *w[3::2])) if s in blocks]
            else:
                out = []
            succ[b.label] = out
            for s in out:
                pred[s].append(b.label)
        self.succ, self.pred = succ, pred
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
        changed, passes = True, 0
        while changed:
            if passes == 1 and _back_edges_only(order, index, pred, idom):
                break       # the first pass was final (see _back_edges_only): no second pass to confirm it
            passes, changed = passes + 1, False
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
        self._span: dict[int, tuple[int, int]] | None = None   # block -> (entry, exit) number, on first query

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
        """Whether every path from the entry to reachable block `b` passes through `a`."""
        if a == b:
            return True
        span = self._span if self._span is not None else self._number()
        sa, sb = span.get(a), span[b]
        return sa is not None and sa[0] < sb[0] and sb[1] <= sa[1]

    def _number(self) -> dict[int, tuple[int, int]]:
        """Entry and exit numbers of a depth-first walk of the dominator tree: a dominates b
        exactly when b's interval lies inside a's."""
        span: dict[int, tuple[int, int]] = {}
        enter: dict[int, int] = {}
        clock = 0
        root = self.rpo[0]
        stack = [(root, iter(self.children[root]))]
        enter[root] = clock
        while stack:
            node, it = stack[-1]
            for c in it:
                clock += 1
                enter[c] = clock
                stack.append((c, iter(self.children[c])))
                break
            else:
                clock += 1
                span[node] = (enter[node], clock)
                stack.pop()
        self._span = span
        return span
