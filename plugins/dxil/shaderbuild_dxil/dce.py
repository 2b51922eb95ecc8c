"""Dead code elimination: drop side-effect-free instructions nobody uses
(scalarisation reads whole vectors; mem2reg leaves unused loads' sources)."""

from __future__ import annotations

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


def eliminate_dead_code(f: Function) -> int:
    removed = 0
    while True:
        used: set[int] = set()
        for bb in f.blocks:
            for inst in bb.instructions:
                for op in inst.operands:
                    used.add(id(op))
                if inst.op == "phi":
                    for v, _ in inst.attrs["incoming"]:
                        used.add(id(v))
        dead = 0
        for bb in f.blocks:
            keep = []
            for inst in bb.instructions:
                if inst.has_value and id(inst) not in used and _removable(inst):
                    dead += 1
                    continue
                keep.append(inst)
            bb.instructions = keep
        # allocas that are only stored to are dead too
        loaded = set()
        for bb in f.blocks:
            for inst in bb.instructions:
                for k, op in enumerate(inst.operands):
                    if not (inst.op == "store" and k == 1):
                        loaded.add(id(op))
        write_only = {id(i) for i in f.blocks[0].instructions if i.op == "alloca" and id(i) not in loaded} \
            if f.blocks else set()
        if write_only:
            for bb in f.blocks:
                before = len(bb.instructions)
                bb.instructions = [i for i in bb.instructions
                                   if id(i) not in write_only and not (i.op == "store" and id(i.operands[1]) in write_only)]
                dead += before - len(bb.instructions)
        removed += dead
        if not dead:
            return removed
