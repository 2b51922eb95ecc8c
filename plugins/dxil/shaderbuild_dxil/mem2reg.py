"""Promote scalar allocas to SSA values with phis (the classic mem2reg).

Lowering keeps every local in an alloca, which is simple and correct; this
pass turns the scalar ones (only loaded and stored directly) into SSA values:
dominators by Cooper-Harvey-Kennedy, phis at the iterated dominance frontier,
renaming along the dominator tree.  Array allocas (dynamically indexed
through GEPs) stay in memory.
"""

from __future__ import annotations

from .cfg import predecessors
from .llvm.types import ArrayType, PointerType, StructType, i32
from .llvm.values import BasicBlock, ConstInt, Function, Instruction, Undef, Value, const_key

__all__ = ["promote_allocas", "dominators"]


def _rpo(f: Function) -> list[BasicBlock]:
    seen: set[int] = set()
    order: list[BasicBlock] = []
    stack: list[tuple[BasicBlock, int]] = [(f.blocks[0], 0)]
    seen.add(id(f.blocks[0]))
    while stack:
        bb, i = stack.pop()
        succ = bb.terminator.successors if bb.terminator is not None else []
        if i < len(succ):
            stack.append((bb, i + 1))
            s = succ[i]
            if id(s) not in seen:
                seen.add(id(s))
                stack.append((s, 0))
        else:
            order.append(bb)
    order.reverse()
    return order


def dominators(f: Function) -> tuple[list[BasicBlock], dict[int, BasicBlock]]:
    """(reverse post-order, immediate dominator by block id); the entry's idom is itself."""
    rpo = _rpo(f)
    index = {id(b): i for i, b in enumerate(rpo)}
    preds = predecessors(f)
    idom: dict[int, BasicBlock] = {id(rpo[0]): rpo[0]}

    def intersect(a: BasicBlock, b: BasicBlock) -> BasicBlock:
        while a is not b:
            while index[id(a)] > index[id(b)]:
                a = idom[id(a)]
            while index[id(b)] > index[id(a)]:
                b = idom[id(b)]
        return a
    changed = True
    while changed:
        changed = False
        for bb in rpo[1:]:
            ps = [p for p in preds[id(bb)] if id(p) in idom]
            if not ps:
                continue
            new = ps[0]
            for p in ps[1:]:
                new = intersect(p, new)
            if idom.get(id(bb)) is not new:
                idom[id(bb)] = new
                changed = True
    return rpo, idom


def _promotable(f: Function) -> list[Instruction]:
    allocas = [i for i in f.blocks[0].instructions if i.op == "alloca" and not isinstance(i.attrs["allocated"], ArrayType)]
    ok = {id(a): True for a in allocas}
    for bb in f.blocks:
        for inst in bb.instructions:
            for k, op in enumerate(inst.operands):
                if id(op) in ok and not (inst.op == "load" or (inst.op == "store" and k == 1)):
                    ok[id(op)] = False
            if inst.op == "phi":
                for v, _ in inst.attrs["incoming"]:
                    if id(v) in ok:
                        ok[id(v)] = False
    return [a for a in allocas if ok[id(a)]]


def _split_constant_arrays(f: Function) -> None:
    """Scalar replacement of local arrays of scalars that are only ever indexed by constants
    (`gep %a, 0, k` feeding loads and stores): one scalar alloca per element, which promotion
    then turns into SSA values, so unread elements (and the stage inputs copied into them) die."""
    entry = f.blocks[0]
    arrays = {id(i): i for i in entry.instructions if i.op == "alloca" and isinstance(i.attrs["allocated"], ArrayType)
              and not isinstance(i.attrs["allocated"].elem, (ArrayType, StructType))}
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
                            and inst.operands[1].value == 0 and 0 <= inst.operands[2].value < size):
                        geps[id(op)].append(inst)
                        gep_ok.setdefault(id(inst), True)
                    else:
                        bad.add(id(op))
                elif id(op) in gep_ok and not (inst.op == "load" or (inst.op == "store" and k == 1)):
                    gep_ok[id(op)] = False
    replace: dict[int, Value] = {}
    for aid, uses in geps.items():
        if aid in bad or not all(gep_ok[id(g)] for g in uses):
            continue
        a = arrays[aid]
        elem = a.attrs["allocated"].elem
        slots: dict[int, Instruction] = {}
        for g in uses:
            k = g.operands[2].value
            if k not in slots:
                slots[k] = Instruction("alloca", PointerType(elem), [ConstInt(i32, 1)], allocated=elem,
                                       align=a.attrs.get("align", 4))
                slots[k].parent = entry
            replace[id(g)] = slots[k]
        at = entry.instructions.index(a)
        entry.instructions[at:at + 1] = list(slots.values())
    if replace:
        _substitute(f, replace)
        for bb in f.blocks:
            bb.instructions = [i for i in bb.instructions if id(i) not in replace]


def promote_allocas(f: Function) -> int:
    """Promote what can be promoted; returns the number of allocas removed."""
    if not f.blocks:
        return 0
    _split_constant_arrays(f)
    allocas = _promotable(f)
    if not allocas:
        return 0
    rpo, idom = dominators(f)
    reachable = {id(b) for b in rpo}
    preds = predecessors(f)
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
    def_blocks: dict[int, set[int]] = {id(a): set() for a in allocas}
    for bb in rpo:
        for i in bb.instructions:
            if i.op == "store" and id(i.operands[1]) in def_blocks:
                def_blocks[id(i.operands[1])].add(id(bb))
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
                    by_id[d].instructions.insert(0, phi)
                    phis[(d, n)] = phi
                    if d not in defs:
                        work.append(d)
    # renaming: a walk of the dominator tree with one value stack per alloca; each block
    # pushes its definitions and pops them when its subtree is done (linear in the IR size)
    replace: dict[int, Value] = {}
    dead: set[int] = {id(a) for a in allocas}
    phi_slot = {id(p): n for (_, n), p in phis.items()}
    phis_at: dict[int, list[tuple[int, Instruction]]] = {}
    for (d, n), p in phis.items():
        phis_at.setdefault(d, []).append((n, p))
    stacks: list[list[Value]] = [[Undef(a.attrs["allocated"])] for a in allocas]
    work: list[tuple[BasicBlock, list[int] | None]] = [(rpo[0], None)]
    while work:
        bb, pushed_on_entry = work.pop()
        if pushed_on_entry is not None:          # leaving bb's dominator subtree
            for n in pushed_on_entry:
                stacks[n].pop()
            continue
        pushed: list[int] = []
        for inst in bb.instructions:
            if inst.op == "phi" and id(inst) in phi_slot:
                n = phi_slot[id(inst)]
                stacks[n].append(inst)
                pushed.append(n)
            elif inst.op == "load" and id(inst.operands[0]) in slot_of:
                replace[id(inst)] = stacks[slot_of[id(inst.operands[0])]][-1]
                dead.add(id(inst))
            elif inst.op == "store" and id(inst.operands[1]) in slot_of:
                n = slot_of[id(inst.operands[1])]
                stacks[n].append(inst.operands[0])
                pushed.append(n)
                dead.add(id(inst))
        term = bb.terminator
        for s in (term.successors if term is not None else []):
            for n, p in phis_at.get(id(s), ()):
                p.attrs["incoming"].append((stacks[n][-1], bb))
        work.append((bb, pushed))
        for child in children.get(id(bb), []):
            work.append((child, None))

    for bb in f.blocks:
        bb.instructions = [i for i in bb.instructions if id(i) not in dead]
    _substitute(f, replace)
    _prune_trivial_phis(f)
    return len(allocas)


def _prune_trivial_phis(f: Function) -> None:
    """Remove phis whose incoming values are all the same value (or the phi itself); equal
    constants count as the same value (both arms of `c ? 1.0 : 1.0`)."""
    changed = True
    while changed:
        changed = False
        replace: dict[int, Value] = {}
        for bb in f.blocks:
            keep = []
            for inst in bb.instructions:
                if inst.op == "phi":
                    vals = {const_key(v): v for v, _ in inst.attrs["incoming"] if v is not inst}
                    if len(vals) == 1:
                        replace[id(inst)] = next(iter(vals.values()))
                        changed = True
                        continue
                keep.append(inst)
            bb.instructions = keep
        if changed:
            _substitute(f, replace)


def _substitute(f: Function, replace: dict[int, Value]) -> None:
    """Rewrite every operand through `replace` (following chains)."""
    def resolve(v: Value) -> Value:
        while id(v) in replace:
            v = replace[id(v)]
        return v
    for bb in f.blocks:
        for inst in bb.instructions:
            inst.operands = [resolve(o) for o in inst.operands]
            if inst.op == "phi":
                inst.attrs["incoming"] = [(resolve(v), b) for v, b in inst.attrs["incoming"]]

