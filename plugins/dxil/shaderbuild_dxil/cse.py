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

from itertools import chain

from shaderbuild.lightstd import attrgetter, itemgetter

from .llvm.values import ConstAggregate, ConstFloat, ConstInt, ConstNull, Function, Instruction, Undef, Value, callee_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["eliminate_common_calls", "CallHook"]

_WRITES = frozenset({"store", "atomicrmw", "cmpxchg"})
_PURE = frozenset({
    "add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or", "xor", "fadd", "fsub",
    "fmul", "fdiv", "frem", "trunc", "zext", "sext", "fptoui", "fptosi", "uitofp", "sitofp", "fptrunc", "fpext",
    "bitcast", "icmp", "fcmp", "select", "getelementptr", "extractvalue",
})

_operand_list = attrgetter("operands")
_value = itemgetter(0)                  # of a phi's (value, block) pair

# constants compare by value (LLVM uniques them); globals and functions by identity, as values do
_VALUE_KEYED = frozenset({ConstInt, ConstFloat, ConstNull, ConstAggregate, Undef})


def _call_kind(inst: Instruction) -> str:
    """'readnone', 'readonly' or 'other' for a call's callee."""
    attrs = callee_of(inst).attrs
    return "readnone" if "readnone" in attrs else "readonly" if "readonly" in attrs else "other"


if TYPE_CHECKING:      # a type alias: for type checkers only (no collections.abc at run time)
    CallHook = Callable[[Instruction], object]
"""Called on each call of a callee it was given for, once the call's operands are rewritten
(a list's `append` collects them at C speed); its result is ignored."""


def eliminate_common_calls(f: Function, pending: dict[Value, Value] | None = None,
                           hook_for: Callable[[Value], CallHook | None] | None = None) -> int:
    """Merge duplicates within each block; returns how many instructions were replaced.

    One walk does the merging, the operand rewriting and the removal: a block's operands are
    rewritten through the replacements known when it is reached, and its merged instructions
    are dropped as the block is done.  What that walk cannot see (phi incomings, and uses in
    blocks laid out before a later block's merge) is rewritten by one more pass over those.
    Values hash by identity, so the tables are keyed by the values themselves (no id() calls).

    `pending`: replacements decided before (resolved, for non-phi operands only: the trivial
    phis, mem2reg.trivial_phi_replacements), applied by the same walk instead of a walk of their
    own.  `hook_for(callee)`, asked once per callee, gives a CallHook for its calls or None: so
    the clean-up collects the calls it needs (I/O calls) without a walk of its own.

    A key is the opcode, type, attributes and operands.  The attributes of the instructions
    merged here (flags, predicate, indices, inbounds, source type) are hashable, and the builder
    passes them in one order per opcode; types are interned or hash by structure.  A constant
    operand is keyed by value, anything else by identity (the object itself).  A call's key is
    its attributes and operands (the callee first: it implies the opcode and all types)."""
    replace: dict[Value, Value] = dict(pending) if pending else {}
    # pending targets that a merge here replaces in turn are redirected (no chains)
    targets = set(replace.values()) if replace else ()
    get, misses = replace.get, replace.keys().isdisjoint      # the view follows the dict
    kinds: dict[Value, tuple[str, CallHook | None]] = {}       # callee -> its kind, its hook
    value_keyed = _VALUE_KEYED
    blocks = f.blocks
    last = -1                                  # index of the last block that merged something
    merged = 0
    for n, bb in enumerate(blocks):
        pure: dict[tuple, Instruction] = {}
        reads: dict[tuple, Instruction] = {}
        before = merged
        insts = bb.instructions
        # whether an operand here may need rewriting: the block as a whole first (at C level),
        # then any instruction after a merge in the block
        check = bool(replace) and not misses(chain.from_iterable(map(_operand_list, insts)))
        for inst in insts:
            ops = inst.operands
            if check and not misses(ops):
                ops = inst.operands = [get(o, o) for o in ops]
            op = inst.op
            if op == "call":
                callee = ops[0]
                known = kinds.get(callee)
                if known is None:
                    known = kinds[callee] = (_call_kind(inst), hook_for(callee) if hook_for is not None else None)
                kind, hook = known
                if hook is not None:
                    hook(inst)
                if kind == "other":
                    reads.clear()              # memory may have changed
                    continue
                table = pure if kind == "readnone" else reads
                # the callee fixes the result and parameter types: an integer constant is
                # keyed by its value alone (nothing else at its position keys as an int)
                parts: list[object] = [*inst.attrs.items()] if inst.attrs else []
                for o in ops:
                    cls = o.__class__
                    parts.append(o.value if cls is ConstInt else o.key() if cls in value_keyed else o)  # type: ignore[attr-defined]  # by o's class
            else:
                if op in _PURE:
                    table = pure
                else:
                    if op in _WRITES:
                        reads.clear()
                    continue
                attrs = inst.attrs
                parts = [op, inst.type, *attrs.items()] if attrs else [op, inst.type]
                for o in ops:                  # inline _operand_key: a call per operand costs more
                    parts.append(o.key() if o.__class__ in value_keyed else o)  # type: ignore[attr-defined]  # a constant's class
            first = table.setdefault(tuple(parts), inst)
            if first is not inst:
                replace[inst] = first          # `first` is kept, so never replaced itself: no chains
                merged += 1
                check = True
                if inst in targets:
                    for k, v in replace.items():
                        if v is inst:
                            replace[k] = first
        if merged != before:
            bb.instructions = [i for i in bb.instructions if i not in replace]
            last = n
    if merged:
        _rewrite_missed(blocks, last, replace)
    return merged


def _rewrite_missed(blocks: list, last: int, replace: dict[Value, Value]) -> None:
    """Rewrite the uses the walk passed before their replacement was known: every phi (they
    name values from any block), and the other operands of the blocks before `last`.  Merges
    are few, so a block (or phi) is first tested as a whole at C level."""
    get, hit, misses = replace.get, replace.__contains__, replace.keys().isdisjoint
    for n, bb in enumerate(blocks):
        insts = bb.instructions
        if n < last and not misses(chain.from_iterable(map(_operand_list, insts))):
            for inst in insts:
                if any(map(hit, inst.operands)):
                    inst.operands = [get(o, o) for o in inst.operands]
        for inst in insts:                     # phis lead their blocks
            if inst.op != "phi":
                break
            incoming = inst.attrs["incoming"]
            if not misses(map(_value, incoming)):
                inst.attrs["incoming"] = [(get(v, v), b) for v, b in incoming]
