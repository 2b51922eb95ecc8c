"""Promote scalar allocas to SSA values with phis (the classic mem2reg).

Lowering builds the scalar components of locals as SSA values directly
(ssa.py); only local arrays reach memory.  This pass splits the arrays that
are indexed only by constants into scalar allocas and turns those (and any
other scalar alloca) into SSA values: dominators by Cooper-Harvey-Kennedy,
phis at the iterated dominance frontier, renaming along the dominator tree.
Arrays indexed dynamically stay in memory.  It also holds the phi clean-up
and operand substitution that the other passes share.
"""

from __future__ import annotations

from itertools import chain

from shaderbuild.lightstd import attrgetter, itemgetter

from .cfg import immediate_dominators, predecessors, reverse_postorder
from .llvm.types import ArrayType, PointerType, StructType, i32
from .llvm.values import BasicBlock, Constant, ConstInt, Function, Instruction, Undef, Value

__all__ = ["promote_allocas", "dominators", "prune_trivial_phis", "trivial_phi_replacements", "substitute"]


def dominators(f: Function, preds: dict[int, list] | None = None) -> tuple[list[BasicBlock], dict[int, BasicBlock]]:
    """(reverse post-order, immediate dominator by block id); the entry's idom is itself.
    `preds` may pass in cfg.predecessors(f) when the caller has it already.  Cooper, Harvey
    and Kennedy's iteration, on blocks numbered in reverse post-order (plain integer lists;
    predecessors not reached from the entry never get a dominator, so they are dropped)."""
    rpo = reverse_postorder(f)
    index = {id(b): i for i, b in enumerate(rpo)}
    if preds is None:
        preds = predecessors(f)
    get = index.get
    pred_idx = [[i for i in map(get, map(id, preds[id(b)])) if i is not None] for b in rpo]
    doms = immediate_dominators(pred_idx)
    idom: dict[int, BasicBlock] = {id(rpo[i]): rpo[d] for i, d in enumerate(doms) if d >= 0}
    return rpo, idom


def _promotable(f: Function) -> tuple[list[Instruction], dict[int, set[int]]]:
    """The scalar allocas only loaded and stored through, and the blocks storing to each
    (one scan of the function for both)."""
    allocas = [i for i in f.blocks[0].instructions if i.op == "alloca" and not isinstance(i.attrs["allocated"], ArrayType)]
    if not allocas:
        return [], {}
    ok = {id(a): True for a in allocas}
    def_blocks: dict[int, set[int]] = {id(a): set() for a in allocas}
    for bb in f.blocks:
        for inst in bb.instructions:
            op = inst.op
            if op == "load":                     # a load's only operand is its pointer: fine
                continue
            if op == "store":                    # storing the pointer itself (operand 0) escapes it
                v, ptr = inst.operands
                if id(v) in ok:
                    ok[id(v)] = False
                if id(ptr) in ok:
                    def_blocks[id(ptr)].add(id(bb))
                continue
            for v in inst.operands:
                if id(v) in ok:
                    ok[id(v)] = False
            if op == "phi":
                for v, _ in inst.attrs["incoming"]:
                    if id(v) in ok:
                        ok[id(v)] = False
    return [a for a in allocas if ok[id(a)]], def_blocks


def _split_constant_arrays(f: Function) -> None:
    """Scalar replacement of local arrays of scalars that are only ever indexed by constants
    (`gep %a, 0, k` feeding loads and stores): one scalar alloca per element, which promotion
    then turns into SSA values, so unread elements (and the stage inputs copied into them) die."""
    entry = f.blocks[0]
    arrays = {id(i): i for i in entry.instructions if i.op == "alloca" and isinstance(i.attrs["allocated"], ArrayType)
              and not isinstance(i.attrs["allocated"].elem, (ArrayType, StructType))}
    if not arrays:
        return
    geps: dict[int, list[Instruction]] = {k: [] for k in arrays}
    gep_ok: dict[int, bool] = {}
    bad: set[int] = set()
    for bb in f.blocks:
        for inst in bb.instructions:
            uses = [v for v, _ in inst.attrs["incoming"]] if inst.op == "phi" else inst.operands
            for k, op in enumerate(uses):
                if id(op) in arrays:
                    size = arrays[id(op)].attrs["allocated"].count
                    if (inst.op == "getelementptr" and k == 0 and len(inst.operands) == 3
                            and all(isinstance(x, ConstInt) for x in inst.operands[1:])
                            and inst.operands[1].value == 0 and 0 <= inst.operands[2].value < size):  # type: ignore[attr-defined]  # ConstInt: checked above
                        geps[id(op)].append(inst)
                        gep_ok.setdefault(id(inst), True)
                    else:
                        bad.add(id(op))
                elif id(op) in gep_ok and not (inst.op == "load" or (inst.op == "store" and k == 1)):
                    gep_ok[id(op)] = False
    replace: dict[Value, Value] = {}
    for aid, gs in geps.items():
        if aid in bad or not all(gep_ok[id(g)] for g in gs):
            continue
        a = arrays[aid]
        elem = a.attrs["allocated"].elem
        slots: dict[int, Instruction] = {}
        for g in gs:
            k_op = g.operands[2]
            assert isinstance(k_op, ConstInt)       # checked above
            k = k_op.value
            if k not in slots:
                slots[k] = Instruction("alloca", PointerType(elem), [ConstInt(i32, 1)], allocated=elem,
                                       align=a.attrs.get("align", 4))
                slots[k].parent = entry
            replace[g] = slots[k]
        at = entry.instructions.index(a)
        entry.instructions[at:at + 1] = list(slots.values())
    if replace:
        substitute(f, replace)
        for bb in f.blocks:
            bb.instructions = [i for i in bb.instructions if i not in replace]


def promote_allocas(f: Function) -> int:
    """Promote what can be promoted; returns the number of allocas removed."""
    if not f.blocks:
        return 0
    _split_constant_arrays(f)
    allocas, def_blocks = _promotable(f)
    if not allocas:
        return 0
    preds = predecessors(f)
    rpo, idom = dominators(f, preds)
    reachable = {id(b) for b in rpo}
    children: dict[int, list[BasicBlock]] = {}
    for bb in rpo[1:]:
        if id(bb) in idom:
            children.setdefault(id(idom[id(bb)]), []).append(bb)
    # dominance frontiers
    df: dict[int, set[int]] = {id(b): set() for b in rpo}
    by_id = {id(b): b for b in rpo}
    for bb in rpo:
        ps = [p for p in preds[id(bb)] if id(p) in reachable]
        if len(ps) >= 2:
            for p in ps:
                runner = p
                while runner is not idom[id(bb)]:
                    df[id(runner)].add(id(bb))
                    runner = idom[id(runner)]
    slot_of = {id(a): n for n, a in enumerate(allocas)}
    # phi placement
    phis: dict[tuple[int, int], Instruction] = {}
    new_phis: dict[int, list[Instruction]] = {}     # block -> phis in placement order
    n: int | None       # an alloca's number; below also a lookup's result
    for n, a in enumerate(allocas):
        t = a.attrs["allocated"]
        defs = def_blocks[id(a)]
        work = list(defs)
        placed: set[int] = set()
        while work:
            b = work.pop()
            for d in df.get(b, ()):
                if d not in placed:
                    placed.add(d)
                    phi = Instruction("phi", t, [], incoming=[])
                    phi.parent = by_id[d]
                    new_phis.setdefault(d, []).append(phi)
                    phis[(d, n)] = phi
                    if d not in defs:
                        work.append(d)
    for d, lst in new_phis.items():              # each new phi goes first: latest placed leads
        lst.reverse()
        by_id[d].instructions[:0] = lst
    # renaming: a walk of the dominator tree with one value stack per alloca; each block
    # pushes its definitions and pops them when its subtree is done (linear in the IR size)
    replace: dict[Value, Value] = {}
    phi_slot = {id(p): n for (_, n), p in phis.items()}
    phis_at: dict[int, list[tuple[int, Instruction]]] = {}
    for (d, n), p in phis.items():
        phis_at.setdefault(d, []).append((n, p))
    # stacks[n] is alloca n's reaching definition stack; an empty stack reads the alloca's
    # one Undef (created on first read: a single object per alloca, as trivial-phi pruning needs)
    stacks: list[list[Value]] = [[] for _ in allocas]
    undefs: dict[int, Value] = {}

    def current(n: int) -> Value:
        st = stacks[n]
        if st:
            return st[-1]
        u = undefs.get(n)
        if u is None:
            u = undefs[n] = Undef(allocas[n].attrs["allocated"])
        return u
    # Operands are rewritten during the walk: a non-phi operand is defined in a dominating
    # position, so a promoted load it names has been replaced (and the values pushed for
    # stores are already rewritten: no chains).  Phis that lowering built may name values
    # defined later: they are rewritten after the walk.
    slot_get, phi_get = slot_of.get, phi_slot.get
    rget, hit = replace.get, replace.__contains__
    other_phis: list[Instruction] = []
    visited = 0
    walk: list[tuple[BasicBlock, list[int] | None]] = [(rpo[0], None)]
    while walk:
        bb, pushed_on_entry = walk.pop()
        if pushed_on_entry is not None:          # leaving bb's dominator subtree
            for n in pushed_on_entry:
                stacks[n].pop()
            continue
        visited += 1
        pushed: list[int] = []
        kept: list[Instruction] = []              # the block without the promoted allocas, loads, stores
        for inst in bb.instructions:
            op = inst.op
            if op == "load":
                n = slot_get(id(inst.operands[0]))       # a promoted alloca is never a replacement
                if n is not None:
                    replace[inst] = current(n)
                    continue
                if hit(inst.operands[0]):
                    inst.operands = [replace[inst.operands[0]]]
            elif op == "alloca":
                if id(inst) in slot_of:
                    continue
            elif op != "phi" and any(map(hit, inst.operands)):
                inst.operands = [rget(o, o) for o in inst.operands]
            if op == "store":
                n = slot_get(id(inst.operands[1]))
                if n is not None:
                    stacks[n].append(inst.operands[0])
                    pushed.append(n)
                    continue
            elif op == "phi":
                n = phi_get(id(inst))
                if n is not None:
                    stacks[n].append(inst)
                    pushed.append(n)
                else:
                    other_phis.append(inst)
            kept.append(inst)
        bb.instructions = kept
        term = bb.terminator
        if term is not None:
            for s in term.successors:
                for n, p in phis_at.get(id(s), ()):
                    p.attrs["incoming"].append((current(n), bb))
        walk.append((bb, pushed))
        kids = children.get(id(bb))
        if kids:
            walk += [(child, None) for child in kids]

    if visited != len(f.blocks):                 # blocks outside the dominator tree: rewrite all
        substitute(f, replace)
    elif replace:
        final = _resolved(replace)
        get = final.get
        for p in other_phis:
            p.attrs["incoming"] = [(get(v, v), b) for v, b in p.attrs["incoming"]]
    prune_trivial_phis(f)
    return len(allocas)


def prune_trivial_phis(f: Function, pending: dict[Value, Value] | None = None) -> None:
    """Remove the trivial phis (trivial_phi_replacements) and rewrite every use of them."""
    final = trivial_phi_replacements(f, pending)
    if final:
        _rewrite_operands(f, final)


def trivial_phi_replacements(f: Function, pending: dict[Value, Value] | None = None) -> dict[Value, Value]:
    """Remove phis whose incoming values are all the same value (or the phi itself); equal
    constants count as the same value (both arms of `c ? 1.0 : 1.0`; the last of them is
    kept).  Phis lead their blocks, so only the leading run of each block is looked at.
    `pending`: replacements already decided (values forwarded elsewhere).  The phis are
    re-examined through the replacements found so far until none is added; that last round
    also lists the remaining phis naming a replaced value, so only those are rewritten here.
    Returns the replacements, chains resolved, that the other instructions' operands still
    need (prune_trivial_phis applies them; the clean-up walk does it together with CSE).
    Values hash by identity: they key the tables themselves."""
    replace: dict[Value, Value] = dict(pending) if pending else {}
    heads: list[tuple[BasicBlock, Instruction]] = []
    for bb in f.blocks:
        for inst in bb.instructions:
            if inst.op != "phi":
                break
            heads.append((bb, inst))
    stale: list[Instruction] = []
    changed = True
    while changed:
        changed = False
        stale = []
        for _, inst in heads:
            if inst in replace:
                continue
            same: Value | None = None
            distinct = renamed = False
            for v, _ in inst.attrs["incoming"]:
                if v in replace:
                    renamed = True
                    while v in replace:
                        v = replace[v]
                if v is inst or v is same or distinct:
                    continue
                if same is None or (isinstance(v, Constant) and isinstance(same, Constant) and v.key() == same.key()):
                    same = v
                else:
                    distinct = True
            if same is not None and not distinct:
                replace[inst] = same
                changed = True
            elif renamed:
                stale.append(inst)
    if not replace:
        return replace
    final = _resolved(replace)
    pruned = [bb for bb, inst in heads if inst in final]
    for bb in dict.fromkeys(pruned):
        bb.instructions = [i for i in bb.instructions if i.op != "phi" or i not in final]
    get = final.get
    for inst in stale:
        inst.attrs["incoming"] = [(get(v, v), b) for v, b in inst.attrs["incoming"]]
    return final


def _resolved(replace: dict[Value, Value]) -> dict[Value, Value]:
    """`replace` with chains followed to their end (`replace` itself when no replacement is
    replaced in turn, found at C level: the usual case)."""
    if replace.keys().isdisjoint(replace.values()):
        return replace
    final: dict[Value, Value] = {}
    for k, v in replace.items():
        while v in replace:
            v = replace[v]
        final[k] = v
    return final


def substitute(f: Function, replace: dict[Value, Value]) -> None:
    """Rewrite every operand through `replace` (following chains, resolved once up front)."""
    final = _resolved(replace)
    if not final:
        return
    _rewrite_phis(f, final)
    _rewrite_operands(f, final)


_value = itemgetter(0)
_operand_list = attrgetter("operands")


def _rewrite_operands(f: Function, final: dict[Value, Value]) -> None:
    """Rewrite the operand lists naming a key of `final` (resolved: no chains).  A block none
    of whose operands is a key is passed over after one C-level test of all its operands; in
    the others each instruction is tested (replaced values have few users: most blocks pass)."""
    get, hit = final.get, final.__contains__
    misses = final.keys().isdisjoint
    for bb in f.blocks:
        insts = bb.instructions
        if misses(chain.from_iterable(map(_operand_list, insts))):
            continue
        for inst in insts:
            if any(map(hit, inst.operands)):
                inst.operands = [get(o, o) for o in inst.operands]


def _rewrite_phis(f: Function, final: dict[Value, Value]) -> None:
    """Rewrite the phis' incoming values through `final` (phis lead their blocks)."""
    lookup, misses = final.get, final.keys().isdisjoint
    for bb in f.blocks:
        for inst in bb.instructions:
            if inst.op != "phi":
                break
            incoming = inst.attrs["incoming"]
            if not misses(map(_value, incoming)):
                inst.attrs["incoming"] = [(lookup(v, v), b) for v, b in incoming]
