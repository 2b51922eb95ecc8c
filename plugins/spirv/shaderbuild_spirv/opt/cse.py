"""Common subexpressions: a pure instruction equal (opcode, type, operands) to one that
dominates it is replaced by that one; a NoContraction value only by an equal NoContraction one
(both compute the same exactly rounded value).  Loads merge only from read-only memory (resources'
handles, constant buffers, push constants, stage inputs) with no store in between that
could alias, which for read-only memory is none."""

from __future__ import annotations

from .cfg import CFG
from .dce import PURE, is_pure
from .mem2reg import replace_values
from .module import OP, Function, ModuleInfo

_LOAD, _AC, _IBAC = OP["OpLoad"], OP["OpAccessChain"], OP["OpInBoundsAccessChain"]
_NOT_MERGED = frozenset(OP[n] for n in ("OpVariable", "OpPhi", "OpImageRead", "OpArrayLength", "OpUndef"))
_NO_CONTRACTION_ONLY = [(42,)]         # the decorations of a `precise` or rounding conversion's value


def run(f: Function, info: ModuleInfo) -> bool:
    if not f.blocks:
        return False
    root: dict[int, int] = {}          # pointer -> the global variable it points into
    for b in f.blocks:
        for x in b.insts:
            if x.op in (_AC, _IBAC):
                base = x.w[2]
                root[x.w[1]] = root.get(base, base)
    cfg = CFG(f)
    repl: dict[int, int] = {}
    table: dict[tuple, int] = {}
    stack: list[tuple[int, bool]] = [(cfg.rpo[0], True)]
    added: dict[int, list[tuple]] = {}
    dead: set[int] = set()
    decorations = info.decorations
    while stack:
        label, entering = stack.pop()
        if not entering:
            for k in added.pop(label):
                del table[k]
            continue
        mine: list[tuple] = []
        for x in cfg.blocks[label].insts:
            op, r = x.op, x.r
            if r < 0 or op in _NOT_MERGED or (op not in PURE and not is_pure(x, info)):
                continue
            precise = False
            if x.w[r] in decorations:
                if decorations[x.w[r]] != _NO_CONTRACTION_ONLY:
                    continue        # other decorations stay on their own value
                precise = True      # merged only with an equal NoContraction value, which keeps the decoration
            if op == _LOAD:
                p = x.w[2]
                if root.get(p, p) not in info.readonly:
                    continue
            if repl:
                x.rename(repl)
            w = x.w
            k = (op, precise, *w[:r], *w[r + 1:])     # opcode, type and operands: everything but the result
            prev = table.get(k)
            if prev is not None:
                repl[w[r]] = prev
                dead.add(id(x))
            else:
                table[k] = w[r]
                mine.append(k)
        added[label] = mine
        stack.append((label, False))
        for c in reversed(cfg.children[label]):
            stack.append((c, True))
    return replace_values(f, repl, dead)
