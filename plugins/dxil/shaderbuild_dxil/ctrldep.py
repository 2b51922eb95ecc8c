"""Post-dominators and control dependence of a function's CFG.

The ViewID/dependency analysis (viewid.py) needs to know which branches decide
whether a block runs: block X is control dependent on block Y when Y has an
edge from which X is certain to run but Y itself is not post-dominated by X
(the post-dominance frontier, as DXC's ControlDependence computes it from
LLVM's post-dominator tree, whose virtual root joins every exit block).
"""

from __future__ import annotations

from .llvm.values import BasicBlock, Function

__all__ = ["post_dominators", "control_dependence"]

VIRTUAL_EXIT = -1       # index of the virtual root joining every exit block


def post_dominators(f: Function) -> dict[int, int]:
    """Immediate post-dominator of each block, by index into `f.blocks` (VIRTUAL_EXIT for the exit
    blocks); blocks from which no exit is reachable are missing (Cooper-Harvey-Kennedy on the
    reversed CFG)."""
    blocks = f.blocks
    index = {id(bb): i for i, bb in enumerate(blocks)}
    succs = [[index[id(s)] for s in (bb.terminator.successors if bb.terminator is not None else [])]
             for bb in blocks]
    preds: list[list[int]] = [[] for _ in blocks]
    for i, ss in enumerate(succs):
        for s in ss:
            preds[s].append(i)
    exits = [i for i, ss in enumerate(succs) if not ss]
    # post-order of the reversed CFG from the virtual root (edges: root -> exits, block -> predecessors)
    order: list[int] = []
    seen: set[int] = set()
    for root in exits:
        if root in seen:
            continue
        seen.add(root)
        stack: list[tuple[int, int]] = [(root, 0)]
        while stack:
            b, i = stack.pop()
            if i < len(preds[b]):
                stack.append((b, i + 1))
                p = preds[b][i]
                if p not in seen:
                    seen.add(p)
                    stack.append((p, 0))
            else:
                order.append(b)
    number = {b: n for n, b in enumerate(order)}
    number[VIRTUAL_EXIT] = len(order)
    ipdom: dict[int, int] = {VIRTUAL_EXIT: VIRTUAL_EXIT}
    for b in exits:
        ipdom[b] = VIRTUAL_EXIT

    def intersect(a: int, b: int) -> int:
        while a != b:
            while number[a] < number[b]:
                a = ipdom[a]
            while number[b] < number[a]:
                b = ipdom[b]
        return a
    changed = True
    while changed:
        changed = False
        for b in reversed(order):
            if b in exits:
                continue
            done = [s for s in succs[b] if s in ipdom]
            if not done:
                continue
            new = done[0]
            for s in done[1:]:
                new = intersect(s, new)
            if ipdom.get(b) != new:
                ipdom[b] = new
                changed = True
    del ipdom[VIRTUAL_EXIT]
    return ipdom


def control_dependence(f: Function) -> dict[int, list[BasicBlock]]:
    """id(block) -> the blocks whose branch decides whether it runs (its post-dominance frontier)."""
    blocks = f.blocks
    index = {id(bb): i for i, bb in enumerate(blocks)}
    ipdom = post_dominators(f)
    cd: dict[int, list[BasicBlock]] = {}
    for y, bb in enumerate(blocks):
        term = bb.terminator
        succ = {index[id(s)] for s in term.successors} if term is not None else set()
        if len(succ) < 2 or y not in ipdom:
            continue
        stop = ipdom[y]
        for runner in succ:
            while runner != stop and runner != VIRTUAL_EXIT and runner in ipdom:
                deps = cd.setdefault(id(blocks[runner]), [])
                if not deps or deps[-1] is not bb:
                    deps.append(bb)
                runner = ipdom[runner]
    return cd
