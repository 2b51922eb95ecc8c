"""Strongly connected components, dominators, post-dominators and control
dependence of a function's CFG.

The ViewID/dependency analysis (viewid.py) needs to know which branches decide
whether a block runs: block X is control dependent on block Y when Y has an
edge from which X is certain to run but Y itself is not post-dominated by X
(the post-dominance frontier, as DXC's ControlDependence computes it from
LLVM's post-dominator tree, whose virtual root joins every exit block); its
phi-control rule walks the dominator tree, and it visits the blocks a strongly
connected component (a loop) at a time.  All work on successor index lists
built once per function.
"""

from __future__ import annotations

from .cfg import immediate_dominators
from .cfg import successors as block_successors
from .llvm.values import BasicBlock, Function

__all__ = ["successors", "components", "dominator_tree", "post_dominators", "control_dependence"]

VIRTUAL_EXIT = -1       # index of the virtual root joining every exit block


def successors(blocks: list[BasicBlock]) -> list[list[int]]:
    """Each block's successors, by index into `blocks` (built once, shared by the CFG passes)."""
    index = {id(bb): i for i, bb in enumerate(blocks)}
    return [[index[id(s)] for s in block_successors(bb)] for bb in blocks]


def _postorder(adj: list[list[int]], roots: list[int]) -> list[int]:
    """The nodes reachable from `roots` (in turn) over the edges `adj`, in depth-first postorder."""
    order: list[int] = []
    seen = [False] * len(adj)
    for root in roots:
        if seen[root]:
            continue
        seen[root] = True
        stack: list[tuple[int, int]] = [(root, 0)]
        while stack:
            b, i = stack.pop()
            if i < len(adj[b]):
                stack.append((b, i + 1))
                n = adj[b][i]
                if not seen[n]:
                    seen[n] = True
                    stack.append((n, 0))
            else:
                order.append(b)
    return order


def dominator_tree(succs: list[list[int]]) -> list[int]:
    """Immediate dominator of each block by index (block 0, the entry, is its own; -1 for a block
    the entry does not reach): Cooper-Harvey-Kennedy on the reverse postorder from the entry."""
    rpo = _postorder(succs, [0])[::-1]
    number = [-1] * len(succs)
    for n, b in enumerate(rpo):
        number[b] = n
    preds: list[list[int]] = [[] for _ in rpo]
    for b in rpo:
        for s in succs[b]:
            preds[number[s]].append(number[b])
    idom = [-1] * len(succs)
    for n, d in enumerate(immediate_dominators(preds)):
        idom[rpo[n]] = rpo[d]
    return idom


def post_dominators(f: Function, succs: list[list[int]] | None = None) -> dict[int, int]:
    """Immediate post-dominator of each block, by index into `f.blocks` (VIRTUAL_EXIT for the exit
    blocks); blocks from which no exit is reachable are missing (Cooper-Harvey-Kennedy on the
    reversed CFG).  `succs` may pass in successors(f.blocks) when the caller has it already."""
    blocks = f.blocks
    if succs is None:
        succs = successors(blocks)
    preds: list[list[int]] = [[] for _ in blocks]
    exits: list[int] = []
    for i, ss in enumerate(succs):
        if not ss:
            exits.append(i)
        for s in ss:
            preds[s].append(i)
    # post-order of the reversed CFG from the virtual root (edges: root -> exits, block -> predecessors)
    order = _postorder(preds, exits)
    # reverse post-order numbering with the virtual root as node 0 (0 also marks a block no exit is
    # reachable from); a node's predecessors in the reversed CFG are its successors (and the root,
    # for an exit block)
    rpo = order[::-1]
    number = [0] * len(blocks)
    for n, b in enumerate(rpo, 1):
        number[b] = n
    rpreds = [[number[s] for s in succs[b] if number[s]] if succs[b] else [0] for b in rpo]
    doms = immediate_dominators([[]] + rpreds)
    return {b: VIRTUAL_EXIT if doms[n + 1] == 0 else rpo[doms[n + 1] - 1]
            for n, b in enumerate(rpo) if doms[n + 1] >= 0}


def control_dependence(f: Function, succs: list[list[int]] | None = None) -> dict[int, list[BasicBlock]]:
    """id(block) -> the blocks whose branch decides whether it runs (its post-dominance frontier).
    Without a block of two distinct successors nothing is decided, so no post-dominators are built."""
    blocks = f.blocks
    if succs is None:
        succs = successors(blocks)
    branches = [(y, set(ss)) for y, ss in enumerate(succs) if len(ss) > 1]
    cd: dict[int, list[BasicBlock]] = {}
    if not any(len(targets) > 1 for _, targets in branches):
        return cd
    ipdom = post_dominators(f, succs)
    for y, targets in branches:
        if len(targets) < 2 or y not in ipdom:
            continue
        bb = blocks[y]
        stop = ipdom[y]
        for runner in targets:
            while runner != stop and runner != VIRTUAL_EXIT and runner in ipdom:
                deps = cd.setdefault(id(blocks[runner]), [])
                if not deps or deps[-1] is not bb:
                    deps.append(bb)
                runner = ipdom[runner]
    return cd


def components(blocks: list[BasicBlock], succs: list[list[int]]) -> list[list[BasicBlock]]:
    """The CFG's strongly connected components (a loop's blocks, else one block) in topological
    order, each in function order (Tarjan's algorithm, iterative; unreachable blocks included).
    Without a branch back to the same or an earlier block, function order is such an order."""
    if all(s > b for b, ss in enumerate(succs) for s in ss):
        return [[bb] for bb in blocks]
    order = [-1] * len(blocks)          # search order, -1 before a block is met
    low = [0] * len(blocks)
    at = [-1] * len(blocks)             # place in `pending` while there, else -1
    pending: list[int] = []
    comps: list[list[BasicBlock]] = []
    met = 0
    for root in range(len(blocks)):
        if order[root] >= 0:
            continue
        order[root] = low[root] = met
        met += 1
        at[root] = len(pending)
        pending.append(root)
        stack = [(root, iter(succs[root]))]
        while stack:
            b, it = stack[-1]
            for s in it:
                if order[s] < 0:
                    order[s] = low[s] = met
                    met += 1
                    at[s] = len(pending)
                    pending.append(s)
                    stack.append((s, iter(succs[s])))
                    break
                if at[s] >= 0 and order[s] < low[b]:
                    low[b] = order[s]
            else:
                stack.pop()
                if stack:
                    p = stack[-1][0]
                    if low[b] < low[p]:
                        low[p] = low[b]
                if low[b] == order[b]:
                    members = sorted(pending[at[b]:])
                    del pending[at[b]:]
                    for m in members:
                        at[m] = -1
                    comps.append([blocks[m] for m in members])
    comps.reverse()
    return comps
