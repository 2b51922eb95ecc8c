"""Private (static) globals used by one function become that function's locals, so mem2reg
can promote them (a static is per-invocation storage, as a local is)."""

from __future__ import annotations

from .module import OP, Inst, ModuleInfo, SpirvModule

_PRIVATE, _FUNCTION = 6, 7
_LOAD, _STORE = OP["OpLoad"], OP["OpStore"]
_CHAINS = frozenset((OP["OpAccessChain"], OP["OpInBoundsAccessChain"]))


def private_to_local(m: SpirvModule, info: ModuleInfo) -> None:
    private = {x.w[1]: x for x in m.globals if x.op == OP["OpVariable"] and x.w[2] == _PRIVATE}
    if not private:
        return
    users: dict[int, set[int]] = {}
    root: dict[int, int] = {v: v for v in private}     # pointer -> the private variable it is into
    chains: list[Inst] = []
    for f in m.functions:
        for b in f.blocks:
            for x in b.insts:
                if x.op in _CHAINS and x.w[2] in root:
                    root[x.w[1]] = root[x.w[2]]
                    chains.append(x)
                for p in x.uses:
                    v = root.get(x.w[p])
                    if v is None:
                        continue
                    users.setdefault(v, set()).add(f.id)
                    if not ((x.op == _LOAD and p == 2) or (x.op == _STORE and p == 0) or (x.op in _CHAINS and p == 2)):
                        users[v].add(-1)          # a pointer that escapes (a call argument): stays global
    for x in m.globals:       # used at module scope (an initializer of another global): stays
        if x.op != OP["OpEntryPoint"] and x.op not in _NAMES:
            for v in x.ids():
                users.setdefault(v, set()).add(-1)
    moving = {v for v, fs in users.items() if v in private and len(fs) == 1 and -1 not in fs}
    if not moving:
        return
    fptr: dict[int, int] = {pointee: t for t, (sc, pointee) in info.ptr.items() if sc == _FUNCTION}
    funcs = {f.id: f for f in m.functions}
    new_globals: list[Inst] = []
    added: list[Inst] = []

    def function_ptr(private_ptr: int) -> int:
        pointee = info.ptr[private_ptr][1]
        t = fptr.get(pointee)
        if t is None:
            t = fptr[pointee] = m.new_id()
            info.ptr[t] = (_FUNCTION, pointee)
            added.append(Inst.make("OpTypePointer", [t, _FUNCTION, pointee]))
        return t

    for c in chains:
        if root[c.w[1]] in moving:
            c.w[0] = function_ptr(c.w[0])
    for x in m.globals:
        if x.op == OP["OpVariable"] and x.w[1] in moving:
            t = function_ptr(x.w[0])
            f = funcs[next(iter(users[x.w[1]]))]
            f.blocks[0].insts.insert(0, Inst.make("OpVariable", [t, x.w[1], _FUNCTION, *x.w[3:]]))
            continue
        if x.op == OP["OpEntryPoint"]:
            x = _drop_interface(x, moving)
        new_globals.append(x)
    m.globals = new_globals + added


_NAMES = frozenset(OP[n] for n in ("OpName", "OpMemberName", "OpDecorate", "OpMemberDecorate"))


def _drop_interface(x: Inst, ids: set[int]) -> Inst:
    """OpEntryPoint without `ids` in its interface list (the words after the name)."""
    iface = set(x.uses[1:])
    w = [v for i, v in enumerate(x.w) if not (i in iface and v in ids)]
    return Inst.make("OpEntryPoint", w)
