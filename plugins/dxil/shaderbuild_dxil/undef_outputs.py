"""Drop `storeOutput` calls whose value is undef (an output component the shader never set).

The DXIL validator rejects an instruction that reads an uninitialised value, and an undef
stored to an output is exactly that; DXC removes such stores before writing the module
(DxilFinalizeModule), leaving the component unwritten.  The self-check (check.py) then
requires that no undef reaches an output.
"""

from __future__ import annotations

from .llvm.values import Function, Instruction, Undef

__all__ = ["remove_undef_output_stores", "stores_undef", "STORE_OUTPUT", "STORE_OUTPUT_VALUE"]

STORE_OUTPUT = "dx.op.storeOutput."
STORE_OUTPUT_VALUE = 5      # operands: callee, opcode, signature id, row, column, value


def stores_undef(store: Instruction) -> bool:
    """Whether a storeOutput call stores undef (and so is to go); the clean-up walk asks this of
    each storeOutput call it passes."""
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
