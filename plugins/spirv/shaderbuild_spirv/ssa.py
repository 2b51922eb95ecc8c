"""Locals as SSA values while a function is emitted (-O1 and up): no OpVariable, load or store.

A local (or `in` parameter) is promoted when every use of it is a load or a store of the whole
variable or of a part at constant indices (`promotable`): no dynamic index, no pointer handed to
a call or an intrinsic.  Its values are built on the fly as the structured emitter walks the body
(Braun et al. 2013, "Simple and Efficient Construction of SSA Form"): the definition reaching a
block is looked up through its predecessors, a join gets an OpPhi, and a phi with one distinct
operand is removed before the code ever names it.  Every block is complete ("sealed") when its
label is emitted except a loop header, sealed once its back edge exists: a variable the loop
stores nowhere (`loop_stores`) has there the value from before the loop, the others get a phi
completed at the seal (one the body already names stays even if it has one value: the optimiser's
simplify folds it).  A block no branch reaches reads no value, and a phi ignores its operand from
there.  What is not promoted keeps its variable, and the optimiser's mem2reg promotes what it can.
"""

from __future__ import annotations

from shaderbuild.ir.nodes import (
    LEAF_EXPRS,
    Binary,
    Call,
    Const,
    Expr,
    FieldRef,
    Function,
    If,
    IndexRef,
    Intrinsic,
    Load,
    Loop,
    Stmt,
    Store,
    Switch,
    SwizzleRef,
    Variable,
    VarRef,
    child_plan,
    stmt_exprs,
    walk_expr,
    walk_stmts,
)
from shaderbuild.ir.types import Array, Matrix, Scalar, Struct, Type, Vector

from .builder import MAX_WORDS, ModuleBuilder, too_long
from .emit_types import TypeLowering
from .grammar import OPCODES

_PHI = OPCODES["OpPhi"]
_UNREACHABLE = 0        # the "value" read in a block no branch reaches (no id is 0)
_PARTS = (FieldRef, IndexRef, SwizzleRef)
_PLACES = (VarRef, FieldRef, IndexRef, SwizzleRef)


def _plain(t: Type, memo: dict[Type, bool]) -> bool:
    """A value type made of numbers and booleans only (no resource, no runtime array)."""
    r = memo.get(t)
    if r is None:
        if isinstance(t, (Scalar, Vector, Matrix)):
            r = True
        elif isinstance(t, Array):
            r = t.size is not None and _plain(t.elem, memo)
        elif isinstance(t, Struct):
            r = all(_plain(f.type, memo) for f in t.fields)
        else:
            r = False
        memo[t] = r
    return r


def _root(e) -> Variable | None:
    while type(e) in _PARTS:
        e = e.base
    return e.var if type(e) is VarRef else None


def construct_stores(stmts: list[Stmt], out: dict[int, set[Variable]]) -> set[Variable]:
    """The variables `stmts` store to; `out` receives each if's, loop's and switch's (by id()).
    A promoted variable changes only by a Store (a place handed to a call or an intrinsic is never
    promoted), so where a construct stores none of it, the value after it (and in a loop's header)
    is the value before it: no phi, no search through the construct's blocks."""
    found: set[Variable] = set()
    for s in stmts:
        t = type(s)
        if t is Store:
            r = _root(s.place)      # type: ignore[attr-defined]
            if r is not None:
                found.add(r)
            continue
        if t is If:
            inner = construct_stores(s.then, out) | construct_stores(s.else_, out)    # type: ignore[attr-defined]
        elif t is Loop:
            inner = construct_stores(s.body, out) | construct_stores(s.continuing, out)     # type: ignore[attr-defined]
        elif t is Switch:
            inner = set()
            for c in s.cases:       # type: ignore[attr-defined]
                inner |= construct_stores(c.body, out)
        else:
            continue
        out[id(s)] = inner
        found |= inner
    return found


def promotable(f: Function) -> set[Variable]:
    """The locals and `in` parameters of `f` that can live as SSA values (membership only:
    the set's order is never used)."""
    memo: dict[Type, bool] = {}
    cands = {v for v in f.locals if _plain(v.type, memo)}
    cands.update(p.var for p in f.params if p.direction == "in" and _plain(p.var.type, memo))
    if not cands:
        return cands
    # every expression of the body, walked here rather than listed by ir.body_exprs: the common
    # nodes (leaves, loads, binaries) are taken apart inline (~1/3 less time on a large body)
    stack: list[Expr] = []
    for s in walk_stmts(f.body):
        stack += stmt_exprs(s)
    pop, push = stack.pop, stack.append
    while stack:
        e = pop()
        t = type(e)
        if t in LEAF_EXPRS:
            continue
        if t is Load:
            push(e.place)       # type: ignore[attr-defined]
        elif t is Binary:
            push(e.lhs)         # type: ignore[attr-defined]
            push(e.rhs)         # type: ignore[attr-defined]
        elif t is IndexRef or t is Call or t is Intrinsic:
            _refuse(e, cands)
            if t is IndexRef:
                push(e.base)        # type: ignore[attr-defined]
                push(e.index)       # type: ignore[attr-defined]
            else:
                stack += e.args     # type: ignore[attr-defined]
        else:
            if t not in _PLANS:
                _PLANS[t] = child_plan(t)
            plan = _PLANS[t]
            if plan is None:        # a class walked generically: checked whole, here
                for x in walk_expr(e):
                    if type(x) is IndexRef or type(x) is Call or type(x) is Intrinsic:
                        _refuse(x, cands)
                continue
            for name, many in plan:
                v = getattr(e, name)
                if many:
                    stack += [x for x in v if isinstance(x, Expr)]
                else:
                    push(v)
    return cands


def _refuse(e: Expr, cands: set[Variable]) -> None:
    """Drop the locals `e` uses other than by a load or store at constant indices: a dynamic
    index (IndexRef), a place argument (out/inout, or a pointer operand of an intrinsic)."""
    if type(e) is IndexRef:
        i = e.index
        if type(i) is not Const or type(i.value) is not int:
            cands.discard(_root(e))
        return
    for a in e.args:        # type: ignore[attr-defined]
        if type(a) in _PLACES:
            cands.discard(_root(a))


_PLANS: dict[type, tuple[tuple[str, bool], ...] | None] = {}     # expression class -> ir.child_plan


class _Phi:
    __slots__ = ("id", "block", "type", "ops", "users", "exposed", "removed")

    def __init__(self, pid: int, block: int, type_id: int) -> None:
        self.id = pid
        self.block = block
        self.type = type_id
        self.ops: list[int] = []          # one value per predecessor of `block`, in preds order
        self.users: list[_Phi] = []       # phis with this one as an operand
        self.exposed = False              # named by emitted code: never removed
        self.removed = False


class SsaBuilder:
    """Definitions of the promoted variables per block, predecessors, and the phis of one function."""

    def __init__(self, b: ModuleBuilder, T: TypeLowering, entry: int) -> None:
        self.b = b
        self.T = T
        self.entry = entry
        # a join of a construct -> (the block before the construct, the variables the construct stores)
        self.skip: dict[int, tuple[int, set[Variable]]] = {}
        self.defs: dict[int, dict[Variable, int]] = {}  # block -> variable -> value at its end (so far)
        self.preds: dict[int, list[int]] = {}
        self.unsealed: set[int] = set()
        self.incomplete: dict[int, list[tuple[Variable, _Phi]]] = {}
        self.phis: dict[int, _Phi] = {}
        self.block_phis: dict[int, list[_Phi]] = {}
        self.repl: dict[int, int] = {}                  # removed phi -> its value
        self.starts: list[tuple[int, int]] = []         # (block, position of its first word after the label)

    # ------------------------------------------------------------ the CFG as it is emitted

    def start(self, block: int, pos: int, header: bool = False) -> None:
        """Block `block` begins at `pos` in the code; a loop `header` is sealed later (`seal`)."""
        self.starts.append((block, pos))
        if header:
            self.unsealed.add(block)

    def join(self, block: int, head: int, stored: set[Variable]) -> None:
        """`block` joins paths of a construct that begins after block `head` and stores `stored`
        (a merge, a loop's header and continue target, a switch's case)."""
        self.skip[block] = (head, stored)

    def edge(self, src: int, dst: int) -> None:
        ps = self.preds.get(dst)
        if ps is None:
            self.preds[dst] = [src]
        elif src not in ps:
            ps.append(src)

    def seal(self, block: int) -> None:
        self.unsealed.discard(block)
        for var, phi in self.incomplete.pop(block, ()):
            self._fill(var, phi)
            self._try_remove(phi)

    # ------------------------------------------------------------ values

    def write(self, var: Variable, block: int, value: int) -> None:
        d = self.defs.get(block)
        if d is None:
            self.defs[block] = {var: value}
        else:
            d[var] = value

    def read(self, var: Variable, block: int) -> int:
        """The value of `var` in `block` at this point, for emitted code to use."""
        d = self.defs.get(block)
        v = d.get(var) if d is not None else None
        if v is None:
            v = self._lookup(var, block)
        elif v in self.repl:
            v = self._find(v)
        if v == _UNREACHABLE:
            return self.b.constant("OpUndef", self.T.tid(var.type))
        phi = self.phis.get(v)
        if phi is not None:
            phi.exposed = True
        return v

    def _find(self, v: int) -> int:
        repl = self.repl
        while v in repl:
            v = repl[v]
        return v

    def _lookup(self, var: Variable, block: int) -> int:
        """Braun et al.'s readVariableRecursive; chains of single predecessors are walked in a
        loop (the recursion is per join), and every block passed records the value found."""
        path = []
        defs = self.defs
        while True:
            d = defs.get(block)
            if d is not None:
                v = d.get(var)
                if v is not None:
                    v = self._find(v)
                    break
            skip = self.skip.get(block)
            if skip is not None and var not in skip[1]:
                path.append(block)          # the construct does not store it: the value from before
                block = skip[0]
                continue
            ps = self.preds.get(block)
            if block in self.unsealed:
                phi = self._new_phi(var, block)
                self.incomplete.setdefault(block, []).append((var, phi))
                v = phi.id
                break
            if not ps:
                # read before any write, or in a block no branch reaches (any value will do there,
                # and a phi ignores it)
                v = self.b.constant("OpUndef", self.T.tid(var.type)) if block == self.entry else _UNREACHABLE
                break
            if len(ps) == 1:
                path.append(block)
                block = ps[0]
                continue
            phi = self._new_phi(var, block)
            self.write(var, block, phi.id)      # breaks cycles through this block
            self._fill(var, phi)
            v = self._try_remove(phi)
            break
        for p in path:
            self.write(var, p, v)
        if block not in path:
            self.write(var, block, v)
        return v

    def _new_phi(self, var: Variable, block: int) -> _Phi:
        phi = _Phi(self.b.new_id(), block, self.T.tid(var.type))
        self.phis[phi.id] = phi
        self.block_phis.setdefault(block, []).append(phi)
        self.write(var, block, phi.id)
        return phi

    def _fill(self, var: Variable, phi: _Phi) -> None:
        for p in self.preds.get(phi.block, ()):
            d = self.defs.get(p)
            v = d.get(var) if d is not None else None
            v = self._lookup(var, p) if v is None else self._find(v)
            phi.ops.append(v)
            operand = self.phis.get(v)
            if operand is not None and operand is not phi:
                operand.users.append(phi)

    def _try_remove(self, phi: _Phi) -> int:
        """The phi's value: its one distinct operand when it has only one (the phi is then removed,
        unless code already names it), else the phi."""
        same = -1
        for v in phi.ops:
            v = self._find(v)
            if v == same or v == phi.id or v == _UNREACHABLE:
                continue
            if same != -1:
                return phi.id
            same = v
        if same == -1:
            same = _UNREACHABLE
        if phi.exposed:
            return phi.id
        phi.removed = True
        self.repl[phi.id] = same
        for u in phi.users:
            if not u.removed:
                self._try_remove(u)
        # a user's removal can remove `same` too (a loop header's phi whose other operand was this one:
        # shapes program 290 of tag hunt9 named such a removed phi, an undefined id)
        return self._find(same)

    # ------------------------------------------------------------ output

    def assemble(self, code: list[int]) -> list[int]:
        """`code` with each block's phis after its label."""
        if not self.block_phis:
            return code
        out: list[int] = []
        last = 0
        find = self._find
        for block, pos in self.starts:
            phis = self.block_phis.get(block)
            if not phis:
                continue
            out += code[last:pos]
            last = pos
            preds = self.preds.get(block, [])
            for phi in phis:
                if phi.removed:
                    continue
                if 3 + 2 * len(preds) > MAX_WORDS:
                    raise too_long("OpPhi", 3 + 2 * len(preds))
                out.append(((3 + 2 * len(preds)) << 16) | _PHI)
                out.append(phi.type)
                out.append(phi.id)
                for v, p in zip(phi.ops, preds):
                    v = find(v)
                    out.append(v if v != _UNREACHABLE else self.b.constant("OpUndef", phi.type))
                    out.append(p)
        out += code[last:]
        return out
