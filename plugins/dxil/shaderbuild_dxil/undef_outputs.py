"""Drop `storeOutput` calls whose value is undef (an output component the shader never set).

The DXIL validator rejects an instruction that reads an uninitialised value, and an undef
stored to an output is exactly that; DXC removes such stores before writing the module
(DxilFinalizeModule), leaving the component unwritten.  The self-check (check.py) then
requires that no undef reaches an output.
"""

from __future__ import annotations

from .llvm.values import Function, Instruction, Undef
from .ops import STORE_OUTPUT, STORE_OUTPUT_VALUE

__all__ = ["remove_undef_output_stores", "remove_undef_among", "stores_undef"]



def stores_undef(store: Instruction) -> bool:
    """Whether a storeOutput call stores undef (and so is to go)."""
    return isinstance(store.operands[STORE_OUTPUT_VALUE], Undef)


def remove_undef_output_stores(f: Function) -> int:
    """Remove the stores in place; returns how many went.  One look at each instruction's
    opcode; whether a callee is a storeOutput is decided once per callee."""
    removed = 0
    is_store: dict[object, bool] = {}            # callee -> whether it is a storeOutput
    for bb in f.blocks:
        doomed = None
        for inst in bb.instructions:
            if inst.op == "call":
                ops = inst.operands
                callee = ops[0]
                store = is_store.get(callee)
                if store is None:
                    store = is_store[callee] = callee.name.startswith(STORE_OUTPUT)
                if store and stores_undef(inst):
                    if doomed is None:
                        doomed = set()
                    doomed.add(inst)
        if doomed:
            bb.instructions = [i for i in bb.instructions if i not in doomed]
            removed += len(doomed)
    return removed


def remove_undef_among(f: Function, stores: list[Instruction]) -> list[Instruction]:
    """remove_undef_output_stores when the storeOutput calls are known already (the clean-up
    collects them during CSE's walk): only they are looked at, and only the blocks holding the
    undef ones (named by `parent`; every block if that was stale) are filtered.  Returns the
    stores kept."""
    doomed = {s for s in stores if stores_undef(s)}
    if not doomed:
        return stores
    live = set(f.blocks)
    removed = 0
    for bb in dict.fromkeys(s.parent for s in doomed):
        if bb in live:
            before = len(bb.instructions)
            bb.instructions = [i for i in bb.instructions if i not in doomed]
            removed += before - len(bb.instructions)
    if removed != len(doomed):
        for bb in f.blocks:
            bb.instructions = [i for i in bb.instructions if i not in doomed]
    return [s for s in stores if s not in doomed]
