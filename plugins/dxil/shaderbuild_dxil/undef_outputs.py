"""Drop `storeOutput` calls whose value is undef (an output component the shader never set).

The DXIL validator rejects an instruction that reads an uninitialised value, and an undef
stored to an output is exactly that; DXC removes such stores before writing the module
(DxilFinalizeModule), leaving the component unwritten.  The self-check (check.py) then
requires that no undef reaches an output.
"""

from __future__ import annotations

from .llvm.values import Function, Undef

__all__ = ["remove_undef_output_stores", "STORE_OUTPUT", "STORE_OUTPUT_VALUE"]

STORE_OUTPUT = "dx.op.storeOutput."
STORE_OUTPUT_VALUE = 5      # operands: callee, opcode, signature id, row, column, value


def remove_undef_output_stores(f: Function) -> int:
    """Remove the stores in place; returns how many went."""
    removed = 0
    for bb in f.blocks:
        keep = [i for i in bb.instructions if not _stores_undef(i)]
        if len(keep) != len(bb.instructions):
            removed += len(bb.instructions) - len(keep)
            bb.instructions = keep
    return removed


def _stores_undef(inst) -> bool:
    return (inst.op == "call" and inst.operands[0].name.startswith(STORE_OUTPUT)
            and isinstance(inst.operands[STORE_OUTPUT_VALUE], Undef))
