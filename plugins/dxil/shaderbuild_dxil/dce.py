"""Dead code elimination: drop side-effect-free instructions nobody uses
(scalarisation reads whole vectors; mem2reg leaves unused loads' sources)."""

from __future__ import annotations

from itertools import chain, compress

from shaderbuild.lightstd import Counter, attrgetter, itemgetter, not_

from .llvm.types import VoidType
from .llvm.values import Function, Instruction, Value, callee_of

__all__ = ["eliminate_dead_code", "remove_dead_code"]

_PURE = frozenset({
    "add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or", "xor", "fadd", "fsub",
    "fmul", "fdiv", "frem", "trunc", "zext", "sext", "fptoui", "fptosi", "uitofp", "sitofp", "fptrunc", "fpext",
    "bitcast", "icmp", "fcmp", "select", "getelementptr", "extractvalue", "phi", "load", "alloca",
})

_instructions = attrgetter("instructions")
_opcode = attrgetter("op")
_operand_list = attrgetter("operands")
_value = itemgetter(0)


def _removable(inst: Instruction) -> bool:
    if inst.op in _PURE:
        return not inst.attrs.get("volatile", False)
    if inst.op == "call":
        attrs = callee_of(inst).attrs
        return "readnone" in attrs or "readonly" in attrs
    return False


def _operands(inst: Instruction) -> list:
    if inst.op == "phi":
        return [v for v, _ in inst.attrs["incoming"]]
    return inst.operands


def eliminate_dead_code(f: Function) -> int:
    """Remove the dead code (remove_dead_code); returns how many instructions went."""
    return remove_dead_code(f)[0]


def remove_dead_code(f: Function) -> tuple[int, Counter]:
    """Worklist DCE over use counts; then allocas that are only ever stored to.
    Linear, and the full walks run at C level: the use counts (operand lists chained into a
    Counter; phis, which lead their blocks and keep their values in `incoming`, add theirs) and
    the unused instructions (compress).  Values hash by identity, so they key the counts.
    Returns the number removed and the use counts after the removal: an instruction or callee
    that is left has a positive count (uses by the stores to store-only allocas, which go
    last, are still counted, as those stores' operands are left), so the clean-up asks these
    instead of walking the function again for what is still called or read."""
    blocks = f.blocks
    insts = list(chain.from_iterable(map(_instructions, blocks)))
    uses = Counter(chain.from_iterable(map(_operand_list, insts)))
    phi_values: list[Value] = []
    for bb in blocks:
        for inst in bb.instructions:
            if inst.op != "phi":
                break
            phi_values += map(_value, inst.attrs["incoming"])
    if phi_values:
        uses.update(phi_values)
    dead: set[Instruction] = set()
    work = [i for i in compress(insts, map(not_, map(uses.__contains__, insts)))
            if i.type.__class__ is not VoidType and _removable(i)]
    while work:
        inst = work.pop()
        if inst in dead:
            continue
        dead.add(inst)
        for op in _operands(inst):
            n = uses[op] - 1
            uses[op] = n
            if n == 0 and isinstance(op, Instruction) and op.type.__class__ is not VoidType and _removable(op):
                work.append(op)
    # allocas whose only uses are as the pointer of stores
    entry = blocks[0].instructions if blocks else []
    # the entry block holds the allocas; after block merging it often holds much more, so it
    # is first searched for one at C level
    stored_only = {i for i in entry if i.op == "alloca"} if "alloca" in map(_opcode, entry) else set()
    if stored_only:
        for inst in insts:
            if inst in dead:
                continue
            for k, op in enumerate(_operands(inst)):
                if op in stored_only and not (inst.op == "store" and k == 1):
                    stored_only.discard(op)
    if not dead and not stored_only:
        return 0, uses
    if not stored_only:
        # only the blocks holding dead instructions change; their `parent` names them (blocks
        # of the function only), and if that was stale somewhere (fewer removed than died)
        # every block is filtered
        live = set(blocks)
        removed = _drop([b for b in dict.fromkeys(i.parent for i in dead) if b in live], dead)
        return (removed if removed == len(dead) else removed + _drop(blocks, dead)), uses
    removed = 0
    for bb in blocks:
        before = len(bb.instructions)
        bb.instructions = [i for i in bb.instructions if i not in dead and i not in stored_only
                           and not (i.op == "store" and i.operands[1] in stored_only)]
        removed += before - len(bb.instructions)
    return removed, uses


def _drop(blocks, dead: set[Instruction]) -> int:
    """Remove the `dead` instructions from `blocks`; returns how many were removed."""
    removed = 0
    for bb in blocks:
        before = len(bb.instructions)
        bb.instructions = [i for i in bb.instructions if i not in dead]
        removed += before - len(bb.instructions)
    return removed
