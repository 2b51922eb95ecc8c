"""Function-local variables to SSA values (the SPIR-V side of mem2reg/SROA).

The emitter gives every HLSL local, parameter copy and temporary an OpVariable.  A variable
whose every use is a load or store, either of the whole variable or through an access
chain with constant indices, is promoted: element accesses become OpCompositeExtract /
OpCompositeInsert on the whole value, then loads are replaced by the reaching store's value
with OpPhi at the iterated dominance frontier of the stores (Cytron et al.), trivial phis
are folded and the variable, its loads and stores disappear.  Variables indexed
dynamically or passed by pointer (to a call, an atomic, modf) stay in memory.
"""

from __future__ import annotations

from .cfg import CFG
from .module import OP, Function, Inst, ModuleInfo

_VAR, _LOAD, _STORE = OP["OpVariable"], OP["OpLoad"], OP["OpStore"]
_AC, _IBAC, _PHI = OP["OpAccessChain"], OP["OpInBoundsAccessChain"], OP["OpPhi"]
_FUNCTION_SC = 7


def find(repl: dict[int, int], v: int) -> int:
    """`v` after every replacement (with path compression)."""
    r = v
    while r in repl:
        r = repl[r]
    while v in repl and repl[v] != r:
        repl[v], v = r, repl[v]
    return r


def run(f: Function, info: ModuleInfo) -> bool:
    if not f.blocks:
        return False
    var_type: dict[int, int] = {}          # promotable variable -> value type
    init: dict[int, int] = {}
    for x in f.blocks[0].insts:
        if x.op == _VAR and x.w[2] == _FUNCTION_SC:
            var_type[x.w[1]] = info.ptr[x.w[0]][1]
            if len(x.w) > 3:
                init[x.w[1]] = x.w[3]
    if not var_type:
        return False
    chains: dict[int, tuple[int, list[int]]] = {}   # access chain -> (variable, constant indices)
    bad: set[int] = set()
    for b in f.blocks:
        for x in b.insts:
            op, w = x.op, x.w
            if (op == _AC or op == _IBAC) and w[2] in var_type:
                idx = [info.int_const.get(i, -1) for i in w[3:]]
                if -1 not in idx:
                    chains[w[1]] = (w[2], idx)
                else:
                    bad.add(w[2])
                continue
            for p in x.uses:
                v = w[p]
                if v in chains:
                    v = chains[v][0]
                elif v not in var_type:
                    continue
                if not ((op == _LOAD and p == 2) or (op == _STORE and p == 0)):
                    bad.add(v)
    promote = {v: t for v, t in var_type.items() if v not in bad}
    if not promote:
        return False
    _scalarise_chains(f, info, promote, {c: vi for c, vi in chains.items() if vi[0] in promote})
    _rename(f, info, promote, init)
    return True


def _scalarise_chains(f: Function, info: ModuleInfo, promote: dict[int, int],
                      chains: dict[int, tuple[int, list[int]]]) -> None:
    """Loads and stores through constant access chains -> whole-variable loads and stores."""
    if not chains:
        return
    m = info.m
    for b in f.blocks:
        out: list[Inst] = []
        for x in b.insts:
            if x.op in (_AC, _IBAC) and x.w[1] in chains:
                continue
            if x.op == _LOAD and x.w[2] in chains:
                var, idx = chains[x.w[2]]
                whole = m.new_id()
                out.append(Inst.make("OpLoad", [promote[var], whole, var]))
                out.append(Inst.make("OpCompositeExtract", [x.w[0], x.w[1], whole, *idx]))
                continue
            if x.op == _STORE and x.w[0] in chains:
                var, idx = chains[x.w[0]]
                whole, new = m.new_id(), m.new_id()
                out.append(Inst.make("OpLoad", [promote[var], whole, var]))
                out.append(Inst.make("OpCompositeInsert", [promote[var], new, x.w[1], whole, *idx]))
                out.append(Inst.make("OpStore", [var, new]))
                continue
            out.append(x)
        b.insts = out


def _rename(f: Function, info: ModuleInfo, promote: dict[int, int], init: dict[int, int]) -> None:
    m = info.m
    cfg = CFG(f)
    df = cfg.frontiers()
    def_blocks: dict[int, set[int]] = {v: set() for v in promote}
    # each block's loads and stores of promoted variables, in order: the walks below visit only these
    access: dict[int, list[Inst]] = {}
    reachable = cfg.reachable
    for b in f.blocks:
        found: list[Inst] = []
        for x in b.insts:
            op = x.op
            if op == _LOAD:
                if x.w[2] in promote:
                    found.append(x)
            elif op == _STORE and x.w[0] in promote:
                found.append(x)
                if b.label in reachable:
                    def_blocks[x.w[0]].add(b.label)
        if found:
            access[b.label] = found
    # phi placement: iterated dominance frontier of each variable's stores
    phis: dict[int, dict[int, int]] = {}          # block -> {variable: phi id}
    rank = {b: i for i, b in enumerate(cfg.rpo)}
    for v in promote:                             # dict order: deterministic ids
        work = sorted(def_blocks[v], key=rank.__getitem__)
        placed: set[int] = set()
        while work:
            d = work.pop()
            for y in sorted(df.get(d, ()), key=rank.__getitem__):
                if y not in placed:
                    placed.add(y)
                    phis.setdefault(y, {})[v] = m.new_id()
                    if y not in def_blocks[v]:
                        work.append(y)
    incoming: dict[int, dict[int, dict[int, int]]] = {}   # block -> variable -> {pred: value}
    repl: dict[int, int] = {}
    dead: set[int] = set()                        # id() of removed loads/stores

    def initial(v: int) -> int:
        return init[v] if v in init else info.undef(promote[v])

    cur: dict[int, list[int]] = {v: [] for v in promote}
    stack: list[tuple[int, bool]] = [(cfg.rpo[0], True)]
    pushed: dict[int, list[int]] = {}
    while stack:
        label, entering = stack.pop()
        if not entering:
            for v in pushed.pop(label):
                cur[v].pop()
            continue
        mine: list[int] = []
        here = phis.get(label)
        if here is not None:
            for v, pid in here.items():
                cur[v].append(pid)
                mine.append(v)
        for x in access.get(label, ()):
            if x.op == _LOAD:
                vals = cur[x.w[2]]
                repl[x.w[1]] = vals[-1] if vals else initial(x.w[2])
            else:
                cur[x.w[0]].append(x.w[1])
                mine.append(x.w[0])
            dead.add(id(x))
        pushed[label] = mine
        for succ in cfg.succ[label]:
            there = phis.get(succ)
            if there is not None:
                for v in there:
                    vals = cur[v]
                    incoming.setdefault(succ, {}).setdefault(v, {})[label] = vals[-1] if vals else initial(v)
        stack.append((label, False))
        for c in reversed(cfg.children[label]):
            stack.append((c, True))
    # unreachable blocks: their loads read undef, their stores go
    for b in f.blocks:
        if b.label in cfg.reachable:
            continue
        for x in access.get(b.label, ()):
            if x.op == _LOAD:
                repl[x.w[1]] = info.undef(promote[x.w[2]])
            dead.add(id(x))
    # phis: one operand per predecessor; trivial ones (one distinct value) fold away
    phi_ops: dict[int, tuple[int, int, list[tuple[int, int]]]] = {}   # phi id -> (block, type, [(value, pred)])
    for label, vs in phis.items():
        for v, pid in vs.items():
            got = incoming.get(label, {}).get(v, {})
            phi_ops[pid] = (label, promote[v], [(got.get(p) or info.undef(promote[v]), p) for p in cfg.pred[label]])
    changed = True
    while changed:
        changed = False
        for pid, (_, t, ops) in list(phi_ops.items()):
            distinct = {find(repl, val) for val, _ in ops} - {pid}
            if len(distinct) <= 1:
                repl[pid] = distinct.pop() if distinct else info.undef(t)
                del phi_ops[pid]
                changed = True
    new_phis: dict[int, list[Inst]] = {}
    for pid, (label, t, ops) in phi_ops.items():
        words = [t, pid]
        for val, p in ops:
            words += [val, p]
        new_phis.setdefault(label, []).append(Inst.make("OpPhi", words))
    entry = f.blocks[0]
    for b in f.blocks:
        if b.label in access or b is entry:         # (the variables are in the entry block)
            body = [x for x in b.insts if id(x) not in dead and not (x.op == _VAR and x.w[1] in promote)]
        else:
            body = b.insts
        b.insts = new_phis.get(b.label, []) + body if b.label in new_phis else body
    rename_function(f, repl)


def replace_values(f: Function, repl: dict[int, int], dead: set[int]) -> bool:
    """Drop the instructions in `dead` (by id()) and rename every use of a replaced result;
    whether anything was replaced (the return value of a pass)."""
    if not repl:
        return False
    for b in f.blocks:
        b.insts = [x for x in b.insts if id(x) not in dead]
    rename_function(f, repl)
    return True


def rename_function(f: Function, repl: dict[int, int]) -> None:
    if not repl:
        return
    for k in list(repl):
        find(repl, k)
    for b in f.blocks:
        for x in b.insts:
            x.rename(repl)
