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

from .llvm.values import ConstAggregate, ConstFloat, ConstInt, ConstNull, Function, Instruction, Undef, Value
from .mem2reg import substitute

__all__ = ["eliminate_common_calls", "may_write"]

_WRITES = frozenset({"store", "atomicrmw", "cmpxchg"})
_PURE = frozenset({
    "add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or", "xor", "fadd", "fsub",
    "fmul", "fdiv", "frem", "trunc", "zext", "sext", "fptoui", "fptosi", "uitofp", "sitofp", "fptrunc", "fpext",
    "bitcast", "icmp", "fcmp", "select", "getelementptr", "extractvalue",
})

# constants compare by value (LLVM uniques them); globals and functions by identity, as values do
_VALUE_KEYED = frozenset({ConstInt, ConstFloat, ConstNull, ConstAggregate, Undef})


def _call_kind(inst: Instruction) -> str:
    """'readnone', 'readonly' or 'other' for a call's callee."""
    attrs = inst.operands[0].attrs
    return "readnone" if "readnone" in attrs else "readonly" if "readonly" in attrs else "other"


def may_write(inst: Instruction) -> bool:
    """Whether `inst` ends the reuse of earlier readonly calls, by the rule used below."""
    op = inst.op
    if op == "call":
        return _call_kind(inst) == "other"
    return op in _WRITES


def _key(inst: Instruction) -> tuple[Any, ...]:
    """Opcode, type, attributes and operands.  The attributes of the instructions merged here
    (flags, predicate, indices, inbounds, source type) are hashable, and the builder passes them
    in one order per opcode; types are interned or hash by structure.  A constant operand is
    keyed by value, anything else by identity (the object itself: values hash by identity)."""
    return (inst.op, inst.type, *inst.attrs.items(), *map(_operand_key, inst.operands))


def _operand_key(o: Value) -> object:
    return o.key() if o.__class__ in _VALUE_KEYED else o


def eliminate_common_calls(f: Function) -> int:
    """Merge duplicates within each block; returns how many instructions were replaced."""
    replace: dict[int, Value] = {}
    get, hit = replace.get, replace.__contains__
    kinds: dict[int, str] = {}                 # callee -> its kind
    operand_key = _operand_key
    for bb in f.blocks:
        pure: dict[tuple, Instruction] = {}
        reads: dict[tuple, Instruction] = {}
        for inst in bb.instructions:
            ops = inst.operands
            if replace and any(map(hit, map(id, ops))):
                ops = inst.operands = [get(id(o), o) for o in ops]
            op = inst.op
            if op == "call":
                callee = ops[0]
                kind = kinds.get(id(callee))
                if kind is None:
                    kind = kinds[id(callee)] = _call_kind(inst)
                if kind == "other":
                    reads.clear()              # memory may have changed
                    continue
                table = pure if kind == "readnone" else reads
            elif op in _PURE:
                table = pure
            else:
                if op in _WRITES:
                    reads.clear()
                continue
            attrs = inst.attrs
            if attrs:
                key = (op, inst.type, *attrs.items(), *map(operand_key, ops))
            else:
                key = (op, inst.type, *map(operand_key, ops))
            first = table.get(key)
            if first is not None:
                replace[id(inst)] = first
            else:
                table[key] = inst
    if replace:
        substitute(f, replace)
        for bb in f.blocks:
            bb.instructions = [i for i in bb.instructions if id(i) not in replace]
    return len(replace)
