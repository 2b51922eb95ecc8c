"""CFG clean-up after lowering: drop blocks no path reaches.

Structured lowering leaves empty blocks after `break`/`return`; LLVM accepts
them but the DXIL validator wants a tidy, reducible CFG.
"""

from __future__ import annotations

from .llvm.values import Function

__all__ = ["remove_unreachable_blocks", "predecessors"]


def remove_unreachable_blocks(f: Function) -> None:
    if not f.blocks:
        return
    seen = {id(f.blocks[0])}
    stack = [f.blocks[0]]
    while stack:
        bb = stack.pop()
        term = bb.terminator
        if term is None:
            continue
        for s in term.successors:
            if id(s) not in seen:
                seen.add(id(s))
                stack.append(s)
    dead = {id(bb) for bb in f.blocks if id(bb) not in seen}
    if not dead:
        return
    f.blocks = [bb for bb in f.blocks if id(bb) in seen]
    for bb in f.blocks:
        for inst in bb.instructions:
            if inst.op == "phi":
                inst.attrs["incoming"] = [(v, b) for v, b in inst.attrs["incoming"] if id(b) not in dead]


def predecessors(f: Function) -> dict[int, list]:
    preds: dict[int, list] = {id(bb): [] for bb in f.blocks}
    for bb in f.blocks:
        term = bb.terminator
        if term is not None:
            for s in term.successors:
                preds[id(s)].append(bb)
    return preds
