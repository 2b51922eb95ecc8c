"""Peepholes, in one walk in block order: an extract of a construct, insert or constant is the
part itself; a construct of all the parts of one value, in order, is that value; an identity
shuffle, a copy or a phi of one value is that value; then constant folding (fold.py)."""

from __future__ import annotations

from .fold import Folder
from .mem2reg import rename_function
from .module import OP, Function, Inst, ModuleInfo

_EXTRACT, _CONSTRUCT, _INSERT = OP["OpCompositeExtract"], OP["OpCompositeConstruct"], OP["OpCompositeInsert"]
_SHUFFLE, _COPY, _CCOMP = OP["OpVectorShuffle"], OP["OpCopyObject"], OP["OpConstantComposite"]
_PHI = OP["OpPhi"]


def run(f: Function, info: ModuleInfo, folder: Folder) -> bool:
    defs: dict[int, Inst] = dict(info.defs)
    for b in f.blocks:
        for x in b.insts:
            if x.r >= 0:
                defs[x.result] = x
    repl: dict[int, int] = {}

    def val(v: int) -> int:
        while v in repl:
            v = repl[v]
        return v

    def type_of(v: int) -> int:
        d = defs.get(v)
        return d.type if d is not None else -1

    dead: set[int] = set()
    for b in f.blocks:
        for x in b.insts:
            x.rename(repl)
            r = _simplify(x, defs, type_of, info)
            if r is None and x.r >= 0:
                r = folder.fold(x, type_of)
            if r is not None:
                repl[x.result] = val(r)
                dead.add(id(x))
    if not repl:
        return False
    for b in f.blocks:
        b.insts = [x for x in b.insts if id(x) not in dead]
    rename_function(f, repl)
    return True


def _simplify(x: Inst, defs: dict[int, Inst], type_of, info: ModuleInfo) -> int | None:
    op = x.op
    if op == _PHI:
        vals = {v for v in x.w[2::2]} - {x.w[1]}
        return vals.pop() if len(vals) == 1 else None
    if op == _COPY:
        return x.w[2]
    if op == _SHUFFLE:
        t, a, mask = x.w[0], x.w[2], x.w[4:]
        if type_of(a) == t and mask == list(range(len(mask))):
            return a
        return None
    if op == _CONSTRUCT:
        parts = x.w[2:]
        src = None
        for i, p in enumerate(parts):
            d = defs.get(p)
            if d is None or d.op != _EXTRACT or len(d.w) != 4 or d.w[3] != i or (src is not None and d.w[2] != src):
                return None
            src = d.w[2]
        if src is not None and type_of(src) == x.w[0] and _count(x.w[0], info) == len(parts):
            return src
        return None
    if op != _EXTRACT:
        return None
    # follow the chain of inserts/constructs the extracted value came from
    while True:
        comp, idx = x.w[2], x.w[3:]
        d = defs.get(comp)
        if d is None or not idx:
            return comp if not idx else None
        if d.op == _INSERT:
            j = d.w[4:]
            if idx[:len(j)] == j:
                if len(idx) == len(j):
                    return d.w[2]
                x.w[2:] = [d.w[2], *idx[len(j):]]       # extract from the inserted object
                continue
            if j[:len(idx)] == idx:
                return None                             # extracting a part that contains the insert
            x.w[2] = d.w[3]                             # disjoint: look through the insert
            continue
        if d.op in (_CONSTRUCT, _CCOMP):
            parts = d.w[2:]
            if _count(d.w[0], info) != len(parts):
                return None                             # a vector built from smaller vectors
            part = parts[idx[0]]
            if len(idx) == 1:
                return part
            x.w[2:] = [part, *idx[1:]]
            continue
        return None


def _count(type_id: int, info: ModuleInfo) -> int:
    """The number of constituents of a composite type (-1 when unknown)."""
    d = info.defs.get(type_id)
    if d is None:
        return -1
    if d.op in (OP["OpTypeVector"], OP["OpTypeMatrix"]):
        return d.w[2]
    if d.op == OP["OpTypeStruct"]:
        return len(d.w) - 1
    if d.op == OP["OpTypeArray"]:
        return info.int_const.get(d.w[2], -1)
    return -1
