"""Block-local common-subexpression elimination of dx.op calls, as LLVM's EarlyCSE does in
DXC's pipeline: reading one cbuffer variable twice gives one cbufferLoadLegacy, not two.

* a readnone call (threadId, loadInput, unary math, ...) with the same callee and operands
  as an earlier one in the block is replaced by it;
* a readonly call (cbufferLoadLegacy, bufferLoad, sample, ...) likewise, unless something
  that may write memory (store, atomic, or a call that is neither readnone nor readonly)
  lies between them;
* pure instructions (arithmetic, casts, compares, select, extractvalue, getelementptr) with
  the same opcode, type, flags and operands, so that a recomputed index does not hide a
  repeated call.
Calls without either attribute (wave ops, barriers, stores, discard) are never merged."""

from __future__ import annotations

from typing import Any

from .llvm.values import Constant, Function, Instruction, Value
from .mem2reg import substitute

__all__ = ["eliminate_common_calls"]

_WRITES = frozenset({"store", "atomicrmw", "cmpxchg"})
_PURE = frozenset({
    "add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or", "xor", "fadd", "fsub",
    "fmul", "fdiv", "frem", "trunc", "zext", "sext", "fptoui", "fptosi", "uitofp", "sitofp", "fptrunc", "fpext",
    "bitcast", "icmp", "fcmp", "select", "getelementptr", "extractvalue",
})


def _call_kind(inst: Instruction) -> str:
    """'readnone', 'readonly' or 'other' for a call's callee."""
    attrs = inst.operands[0].attrs
    return "readnone" if "readnone" in attrs else "readonly" if "readonly" in attrs else "other"


def _key(inst: Instruction) -> tuple[Any, ...]:
    """Opcode, type, attributes and operands.  The attributes of the instructions merged here
    (flags, predicate, indices, inbounds, source type) are hashable, and the builder passes them
    in one order per opcode; types are interned or hash by structure."""
    return (inst.op, inst.type, *inst.attrs.items(),
            *[o.key() if isinstance(o, Constant) else id(o) for o in inst.operands])   # const_key, inlined


def eliminate_common_calls(f: Function) -> int:
    """Merge duplicates within each block; returns how many instructions were replaced."""
    replace: dict[int, Value] = {}
    get, hit = replace.get, replace.__contains__
    kinds: dict[int, str] = {}                 # callee -> its kind
    for bb in f.blocks:
        pure: dict[tuple, Instruction] = {}
        reads: dict[tuple, Instruction] = {}
        for inst in bb.instructions:
            if replace and any(map(hit, map(id, inst.operands))):
                inst.operands = [get(id(o), o) for o in inst.operands]
            op = inst.op
            if op == "call":
                callee = inst.operands[0]
                kind = kinds.get(id(callee))
                if kind is None:
                    kind = kinds[id(callee)] = _call_kind(inst)
            else:
                kind = None
            if op in _WRITES or kind == "other":
                reads.clear()                  # memory may have changed
                continue
            table = pure if kind == "readnone" or op in _PURE else reads if kind else None
            if table is None:
                continue
            key = _key(inst)
            if key in table:
                replace[id(inst)] = table[key]
            else:
                table[key] = inst
    if replace:
        substitute(f, replace)
        for bb in f.blocks:
            bb.instructions = [i for i in bb.instructions if id(i) not in replace]
    return len(replace)
