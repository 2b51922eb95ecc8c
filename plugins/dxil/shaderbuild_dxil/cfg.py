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


def merge_straight_line_blocks(f: Function) -> None:
    """Fold a block into its only predecessor when that predecessor branches only to it."""
    changed = True
    while changed:
        changed = False
        preds = predecessors(f)
        for bb in f.blocks[1:]:
            ps = preds[id(bb)]
            if len(ps) != 1:
                continue
            p = ps[0]
            term = p.terminator
            if p is bb or term is None or term.op != "br" or term.operands or len(term.attrs["targets"]) != 1:
                continue
            if any(i.op == "phi" for i in bb.instructions):
                continue
            p.instructions.pop()
            for inst in bb.instructions:
                inst.parent = p
            p.instructions += bb.instructions
            f.blocks.remove(bb)
            for other in f.blocks:                       # phis naming bb now come from p
                for inst in other.instructions:
                    if inst.op == "phi":
                        inst.attrs["incoming"] = [(v, p if b is bb else b) for v, b in inst.attrs["incoming"]]
            changed = True
            break
