"""Peepholes, in one walk in block order: an extract of a construct, insert or constant is the
part itself (looking through vector shuffles); a construct of all the parts of one value, in
order, is that value (of components of one other vector, a shuffle of it); an identity shuffle,
a copy or a phi of one value is that value; then constant folding (fold.py)."""

from __future__ import annotations

from .fold import FOLDED, Folder
from .mem2reg import replace_values
from .module import OP, Function, Inst, ModuleInfo

_EXTRACT, _CONSTRUCT, _INSERT = OP["OpCompositeExtract"], OP["OpCompositeConstruct"], OP["OpCompositeInsert"]
_SHUFFLE, _COPY, _CCOMP = OP["OpVectorShuffle"], OP["OpCopyObject"], OP["OpConstantComposite"]
_PHI = OP["OpPhi"]
_SIMPLIFIED = frozenset((_PHI, _COPY, _SHUFFLE, _CONSTRUCT, _EXTRACT))     # the opcodes _simplify looks at


def run(f: Function, info: ModuleInfo, folder: Folder) -> bool:
    """Whether anything changed: a value replaced, or an instruction rewritten in place (whose
    old operands may then be dead)."""
    defs: dict[int, Inst] = dict(info.defs)
    for b in f.blocks:
        for x in b.insts:
            if x.r >= 0:
                defs[x.w[x.r]] = x
    repl: dict[int, int] = {}

    def val(v: int) -> int:
        while v in repl:
            v = repl[v]
        return v

    def type_of(v: int) -> int:
        d = defs.get(v)
        return d.type if d is not None else -1

    dead: set[int] = set()
    rewritten = False
    for b in f.blocks:
        for x in b.insts:
            if repl:        # (empty until a first replacement: most walks find none or few)
                x.rename(repl)
            r = _simplify(x, defs, type_of, info) if x.op in _SIMPLIFIED else None
            if r == _REWRITTEN:
                rewritten, r = True, None
            if r is None and x.op in FOLDED and x.r >= 0:
                r = folder.fold(x, type_of)
                if r is not None and r not in defs:      # a constant the folder just made
                    defs[r] = info.defs[r]
            if r is not None:
                repl[x.result] = val(r)
                dead.add(id(x))
    return replace_values(f, repl, dead) or rewritten


_REWRITTEN = -1     # what _simplify returns for an instruction it rewrote in place (no replacement)


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
        ds = [defs.get(p) for p in x.w[2:]]
        exts = [d for d in ds if d is not None and d.op == _EXTRACT and len(d.w) == 4]
        if not exts or len(exts) != len(ds) or len({d.w[2] for d in exts}) != 1:
            return None
        src, idx = exts[0].w[2], [d.w[3] for d in exts]
        if idx == list(range(len(idx))) and type_of(src) == x.w[0] and _count(x.w[0], info) == len(idx):
            return src                                  # all the parts of one value, in order
        if _is_vector(x.w[0], info) and _is_vector(type_of(src), info):
            # components of another vector: a shuffle of it (the extracts then die)
            x.op, x.w, x.uses = _SHUFFLE, [x.w[0], x.w[1], src, src, *idx], (2, 3)
            return _REWRITTEN
        return None
    if op != _EXTRACT:
        return None
    # follow the chain of inserts/constructs the extracted value came from
    moved = None        # _REWRITTEN once x reads from further down the chain
    while True:
        comp, idx = x.w[2], x.w[3:]
        d = defs.get(comp)
        if d is None or not idx:
            return comp if not idx else moved
        if d.op == _INSERT:
            j = d.w[4:]
            if idx[:len(j)] == j:
                if len(idx) == len(j):
                    return d.w[2]
                x.w[2:] = [d.w[2], *idx[len(j):]]       # extract from the inserted object
                moved = _REWRITTEN
                continue
            if j[:len(idx)] == idx:
                return moved                            # extracting a part that contains the insert
            x.w[2] = d.w[3]                             # disjoint: look through the insert
            moved = _REWRITTEN
            continue
        if d.op == _SHUFFLE and len(idx) == 1:
            k, n1 = d.w[4 + idx[0]], _count(type_of(d.w[2]), info)
            if k == 0xFFFFFFFF or n1 < 0:
                return moved                            # an undefined component
            x.w[2:] = [d.w[2], k] if k < n1 else [d.w[3], k - n1]
            moved = _REWRITTEN
            continue
        if d.op in (_CONSTRUCT, _CCOMP):
            parts = d.w[2:]
            if _count(d.w[0], info) != len(parts):
                return moved                            # a vector built from smaller vectors
            part = parts[idx[0]]
            if len(idx) == 1:
                return part
            x.w[2:] = [part, *idx[1:]]
            moved = _REWRITTEN
            continue
        return moved


def _is_vector(type_id: int, info: ModuleInfo) -> bool:
    d = info.defs.get(type_id)
    return d is not None and d.op == OP["OpTypeVector"]


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



def _member_type(type_id: int, i: int, info: ModuleInfo) -> int:
    d = info.defs[type_id]
    return d.w[1 + i] if d.op == OP["OpTypeStruct"] else d.w[1]


def insert_chains(f: Function, info: ModuleInfo) -> bool:
    """A chain of OpCompositeInsert that writes every member of its composite (directly or
    member by member of a nested one) becomes OpCompositeConstructs (the value the chain
    started from is then unused); only when each intermediate value is used by nothing but
    the next insert, so the chain's inserts die (function_dce removes them)."""
    # only inserts are followed (a chain stops at any other definition), and only their uses counted
    defs: dict[int, Inst] = {}
    for b in f.blocks:
        for x in b.insts:
            if x.op == _INSERT:
                defs[x.w[1]] = x
    if not defs:
        return False
    uses: dict[int, int] = {}
    count = uses.get
    if any(x.w[3] in defs for x in defs.values()):      # a chain (else `link` never asks for a count)
        for b in f.blocks:
            for x in b.insts:
                w = x.w
                for p in x.uses:        # (read in place: this loop sees every instruction)
                    if w[p] in defs:
                        uses[w[p]] = count(w[p], 0) + 1

    def link(x: Inst) -> Inst | None:
        """The insert into the same type whose only use is as `x`'s composite."""
        d = defs.get(x.w[3])
        if d is not None and d.op == _INSERT and len(d.w) > 4 and d.w[0] == x.w[0] and uses.get(d.result) == 1:
            return d
        return None

    absorbed: set[int] = set()
    for b in f.blocks:
        for x in b.insts:
            d = link(x) if x.op == _INSERT and len(x.w) > 4 else None
            if d is not None:
                absorbed.add(d.result)
    changed = False
    for b in f.blocks:
        for x in b.insts:       # (most blocks have nothing to rewrite: they are not rebuilt)
            if (x.op == _INSERT and len(x.w) > 4) or (x.op == _EXTRACT and len(x.w) > 3 and x.w[2] in defs):
                break
        else:
            continue
        out: list[Inst] = []
        for x in b.insts:
            if x.op == _INSERT and len(x.w) > 4 and x.result not in absorbed:
                parts: dict[tuple[int, ...], int] = {}
                cur: Inst | None = x
                while cur is not None:
                    parts.setdefault(tuple(cur.w[4:]), cur.w[2])     # the last insert of a path wins
                    cur = link(cur)
                new: list[Inst] = []
                if any(p != q and q[:len(p)] == p for p in parts for q in parts):
                    out.append(x)
                    continue                    # a member written whole and in part: keep the order
                whole = _build(x.w[0], (), parts, info, new)
                if whole is not None and new:
                    out.extend(new[:-1])
                    last = new[-1]
                    x.op, x.w, x.t, x.r, x.uses = last.op, [last.w[0], x.result, *last.w[2:]], last.t, last.r, last.uses
                    changed = True
            elif x.op == _EXTRACT and len(x.w) > 3 and x.w[2] in defs:     # (only an insert's parts are built)
                new = []
                whole = _extract_written(x, defs, info, new)
                if whole is not None and new:
                    out.extend(new[:-1])
                    last = new[-1]
                    x.op, x.w, x.t, x.r, x.uses = last.op, [last.w[0], x.result, *last.w[2:]], last.t, last.r, last.uses
                    changed = True
            out.append(x)
        b.insts = out
    return changed


def _extract_written(x: Inst, defs: dict[int, Inst], info: ModuleInfo, new: list[Inst]) -> int | None:
    """An extract of a member that a chain of inserts wrote part by part, completely, built
    from those parts (the constructs appended to `new`); None otherwise."""
    path = tuple(x.w[3:])
    parts: dict[tuple[int, ...], int] = {}
    cur = defs.get(x.w[2])
    while cur is not None and cur.op == _INSERT:
        p = tuple(cur.w[4:])
        if p[:len(path)] == path:
            parts.setdefault(p[len(path):], cur.w[2])       # the last insert of a path wins
        elif path[:len(p)] == p:
            break                                           # the member inside a whole written value
        cur = defs.get(cur.w[3])
    if not parts or any(p != q and q[:len(p)] == p for p in parts for q in parts):
        return None
    return _build(x.w[0], (), parts, info, new)


def _build(type_id: int, path: tuple[int, ...], parts: dict[tuple[int, ...], int], info: ModuleInfo,
           new: list[Inst]) -> int | None:
    """The value of the member at `path` from the written `parts` (appending the constructs it
    needs to `new`), or None when some part of it is not written."""
    v = parts.get(path)
    if v is not None:
        return v
    n = _count(type_id, info)
    if n <= 0 or not any(p[:len(path)] == path for p in parts):
        return None
    members = []
    for i in range(n):
        m = _build(_member_type(type_id, i, info), (*path, i), parts, info, new)
        if m is None:
            return None
        members.append(m)
    r = info.m.new_id()
    new.append(Inst.make("OpCompositeConstruct", [type_id, r, *members]))
    return r
