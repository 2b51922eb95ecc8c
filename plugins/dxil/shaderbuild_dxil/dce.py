"""Dead code elimination: drop side-effect-free instructions nobody uses
(scalarisation reads whole vectors; mem2reg leaves unused loads' sources)."""

from __future__ import annotations

from collections import Counter
from itertools import chain

from .llvm.types import VoidType
from .llvm.values import Function, Instruction

__all__ = ["eliminate_dead_code"]

_PURE = frozenset({
    "add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or", "xor", "fadd", "fsub",
    "fmul", "fdiv", "frem", "trunc", "zext", "sext", "fptoui", "fptosi", "uitofp", "sitofp", "fptrunc", "fpext",
    "bitcast", "icmp", "fcmp", "select", "getelementptr", "extractvalue", "phi", "load", "alloca",
})


def _removable(inst: Instruction) -> bool:
    if inst.op in _PURE:
        return not inst.attrs.get("volatile", False)
    if inst.op == "call":
        attrs = inst.operands[0].attrs
        return "readnone" in attrs or "readonly" in attrs
    return False


def _operands(inst: Instruction) -> list:
    if inst.op == "phi":
        return [v for v, _ in inst.attrs["incoming"]]
    return inst.operands


def eliminate_dead_code(f: Function) -> int:
    """Worklist DCE over use counts; then allocas that are only ever stored to.
    Linear: one counting pass (C-level Counter), a worklist, one filtering pass."""
    insts = [i for bb in f.blocks for i in bb.instructions]
    uses = Counter(map(id, chain.from_iterable(map(_operands, insts))))     # counted at C level
    dead: set[int] = set()
    work = [i for i in insts if i.type.__class__ is not VoidType and id(i) not in uses and _removable(i)]
    while work:
        inst = work.pop()
        if id(inst) in dead:
            continue
        dead.add(id(inst))
        for op in _operands(inst):
            n = uses[id(op)] - 1
            uses[id(op)] = n
            if n == 0 and isinstance(op, Instruction) and op.type.__class__ is not VoidType and _removable(op):
                work.append(op)
    # allocas whose only uses are as the pointer of stores
    stored_only = {id(i) for i in (f.blocks[0].instructions if f.blocks else []) if i.op == "alloca"}
    if stored_only:
        for inst in insts:
            if id(inst) in dead:
                continue
            for k, op in enumerate(_operands(inst)):
                if id(op) in stored_only and not (inst.op == "store" and k == 1):
                    stored_only.discard(id(op))
    if not dead and not stored_only:
        return 0
    removed = 0
    for bb in f.blocks:
        before = len(bb.instructions)
        if stored_only:
            bb.instructions = [i for i in bb.instructions if id(i) not in dead and id(i) not in stored_only
                               and not (i.op == "store" and id(i.operands[1]) in stored_only)]
        else:
            bb.instructions = [i for i in bb.instructions if id(i) not in dead]
        removed += before - len(bb.instructions)
    return removed
