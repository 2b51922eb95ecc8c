"""Functions and structured statements -> SPIR-V blocks.

Control flow maps one-to-one onto SPIR-V structured constructs: If ->
OpSelectionMerge, Loop -> header / body / continue target / merge, Switch ->
OpSwitch with case blocks in source order so fall-through branches to the next
case block.  Statements after a terminator in the same list are dead and are
dropped (there is no block to put them in), and so are those after a construct no
branch leaves through its merge (an if whose arms both jump): that merge holds only
OpUnreachable, since code in it would sit outside every construct around it.
"""

from __future__ import annotations

from shaderbuild.diagnostics import CompileError, error, locate, stmt_loc
from shaderbuild.ir.nodes import (
    Break,
    Continue,
    Discard,
    Eval,
    Function,
    If,
    Loop,
    Return,
    Stmt,
    Store,
    Switch,
    Variable,
    VarRef,
)
from shaderbuild.ir.types import VOID, Type

from .builder import enum, inst
from .emit_expr import Ctx, ExprEmitter, VarSlot
from .emit_types import holds_no_data
from .ssa import SsaBuilder, construct_stores, promotable

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

_LOOP_HINTS = {"unroll": "Unroll", "loop": "DontUnroll", "fastopt": "DontUnroll"}
_IF_HINTS = {"flatten": "Flatten", "branch": "DontFlatten"}


class FunctionEmitter(ExprEmitter):
    """Emits one IR function; `emit()` returns its words."""

    def __init__(self, ctx: Ctx, func: Function, prologue=None, ssa: bool = False) -> None:
        self.ctx = ctx
        self.b = ctx.b
        self.T = ctx.T
        self.func = func
        self.code: list[int] = []
        self.decls: list[int] = []
        self.locals_slots: dict[Variable, VarSlot] = {}
        self.open = False
        self.breaks: list[int] = []
        self.continues: list[int] = []
        self.entered: set[int] = set()      # labels an emitted branch targets
        self.prologue = prologue
        self.debug = ctx.debug      # a DebugInfo under -Zi
        self.scope = 0
        self.line_loc = None        # the statement whose code is being emitted (-Zi)
        self.stored: dict[int, set[Variable]] = {}     # if/loop/switch (by id()) -> the variables it stores (SSA)
        if ssa and self.debug is None:      # (-Zi keeps every variable: DebugDeclare describes it)
            self.ssa_vars = promotable(func)

    # ----------------------------------------------------- frame

    def emit(self) -> list[int]:
        f = self.func
        T = self.T
        b = self.b
        ret = T.tid(f.return_type)
        ptypes = []
        by_pointer = {p.var for p in f.params if p.direction == "in" and holds_no_data(p.var.type)}
        if by_pointer:
            self.ssa_vars = self.ssa_vars - by_pointer
        for p in f.params:
            vt = T.tid(p.var.type)
            ptypes.append(vt if p.direction == "in" and p.var not in by_pointer else T.ptr("Function", vt))
        fid = self.ctx.func_ids[f]
        head = inst("OpFunction", [ret, fid, enum("FunctionControl", "None"), T.func_type(ret, ptypes)])
        b.name(fid, f.name)
        entry = self.cur = b.new_id() if self.ssa_vars else 0     # (else numbered last, as before SSA)
        ssa = self.ssa = SsaBuilder(b, T, entry) if self.ssa_vars else None
        if ssa is not None:
            construct_stores(f.body, self.stored)
        stores: list[tuple[int, int]] = []
        for p, pt in zip(f.params, ptypes):
            pid = b.new_id()
            head += inst("OpFunctionParameter", [pt, pid])
            if p.var in by_pointer:
                self.locals_slots[p.var] = VarSlot(pid, "Function")
            elif ssa is not None and p.var in self.ssa_vars:
                ssa.write(p.var, entry, pid)
            elif p.direction == "in":
                vid = self.declare(p.var)
                stores.append((vid, pid))
            else:
                b.name(pid, p.var.name)
                self.locals_slots[p.var] = VarSlot(pid, "Function")
        for v in f.locals:
            if v not in self.locals_slots and v not in self.ssa_vars:
                self.declare(v)
        debug_head = self.debug_prologue(fid) if self.debug is not None else []
        self.open = True
        for vid, pid in stores:
            self.void_op("OpStore", vid, pid)
        if self.prologue is not None:
            self.prologue(self)
        self.block(f.body)
        if self.open:
            if f.return_type == VOID:
                self.void_op("OpReturn")
            else:
                self.void_op("OpUnreachable")
        if ssa is not None:
            return head + inst("OpLabel", [entry]) + self.decls + ssa.assemble(self.code) + inst("OpFunctionEnd", [])
        return head + inst("OpLabel", [b.new_id()]) + self.decls + debug_head + self.code + inst("OpFunctionEnd", [])

    def debug_prologue(self, fid: int) -> list[int]:
        """-Zi: the function's scope, definition and variable declarations (after the OpVariables)."""
        dbg = self.debug
        assert dbg is not None
        f = self.func
        entry = self.ctx.entry
        source = entry.source_function if entry is not None and f is entry.function else f
        self.scope = dbg.function(f, f.name, f.loc or source.loc)
        words = dbg.code("DebugScope", self.scope) + dbg.code("DebugFunctionDefinition", self.scope, fid)
        params = {id(p.var): i + 1 for i, p in enumerate(f.params)}
        for v in [p.var for p in f.params] + f.locals:
            slot = self.locals_slots.get(v)
            if slot is None:
                continue
            var = dbg.local(v, self.scope, params.get(id(v)))
            if var is not None:
                words += dbg.code("DebugDeclare", var, slot.id, dbg.expression())
        return words

    def declare(self, v: Variable) -> int:
        vid = self.temp_var(v.type)
        self.b.name(vid, v.name)
        self.locals_slots[v] = VarSlot(vid, "Function")
        return vid

    def temp_var(self, t: Type) -> int:
        vid = self.b.new_id()
        self.decls += inst("OpVariable", [self.T.ptr("Function", self.T.tid(t)), vid, enum("StorageClass", "Function")])
        return vid

    # ----------------------------------------------------- blocks

    def label(self, lid: int, header: bool = False) -> None:
        """Open block `lid`; a loop `header` is the only block a branch to which (its back edge)
        is emitted after it."""
        self.code += inst("OpLabel", [lid])
        self.cur = lid
        if self.ssa is not None:
            self.ssa.start(lid, len(self.code), header)
        if self.debug is not None:     # a DebugScope/DebugLine lasts to the end of its block
            self.code += self.debug.code("DebugScope", self.scope)
            if self.line_loc is not None:    # a block opened inside a statement (clip(), loops) keeps its line
                self.code += self.debug.line(self.line_loc)
        self.open = True

    def terminate(self, opname: str, *operands: int) -> None:
        self.void_op(opname, *operands)
        self.open = False
        if opname == "OpBranch":
            targets: tuple[int, ...] = operands[:1]
        elif opname == "OpBranchConditional":
            targets = operands[1:3]
        elif opname == "OpSwitch":
            targets = operands[1::2]
        else:
            return
        self.entered.update(targets)
        if self.ssa is not None:
            for t in targets:
                self.ssa.edge(self.cur, t)

    def merge_label(self, merge: int) -> None:
        """Open a construct's merge block; one that no branch enters gets OpUnreachable and closes."""
        self.label(merge)
        if merge not in self.entered:
            self.terminate("OpUnreachable")

    def branch(self, target: int) -> None:
        if self.open:
            self.terminate("OpBranch", target)

    def block(self, stmts: list[Stmt]) -> None:
        for s in stmts:
            if not self.open:
                return      # dead code after break/continue/return/discard
            fn = _STMT_DISPATCH.get(type(s))
            if fn is None:
                raise error(f"statement {type(s).__name__} is not supported by the SPIR-V backend")
            if self.debug is not None and hasattr(s, "loc"):
                self.line_loc = s.loc
                self.code += self.debug.line(s.loc)
            try:
                fn(self, s)
            except CompileError as exc:       # an operation the target cannot express: located at its statement
                locate(exc, stmt_loc(s))
                raise

    # ----------------------------------------------------- statements

    def s_store(self, s: Store) -> None:
        v = self.expr(s.value)
        p = s.place
        if type(p) is VarRef and p.var in self.ssa_vars:     # a whole promoted local
            self.ssa.write(p.var, self.cur, v)      # type: ignore[union-attr]  # (set with ssa_vars)
            return
        self.store(self.place(p), v)

    def s_eval(self, s: Eval) -> None:
        self.expr(s.expr)

    def s_if(self, s: If) -> None:
        cond = self.expr(s.cond)
        b = self.b
        merge, then_l = b.new_id(), b.new_id()
        else_l = b.new_id() if s.else_ else merge
        control = enum("SelectionControl", _IF_HINTS.get(s.hint or "", "None"))
        self.void_op("OpSelectionMerge", merge, control)
        if self.ssa is not None:
            self.ssa.join(merge, self.cur, self.stored[id(s)])
        self.terminate("OpBranchConditional", cond, then_l, else_l)
        self.label(then_l)
        self.block(s.then)
        self.branch(merge)
        if s.else_:
            self.label(else_l)
            self.block(s.else_)
            self.branch(merge)
        self.merge_label(merge)

    def s_loop(self, s: Loop) -> None:
        b = self.b
        header, body, cont, merge = b.new_id(), b.new_id(), b.new_id(), b.new_id()
        self.branch(header)
        if self.ssa is not None:
            stored = self.stored[id(s)]
            for join in (header, cont, merge):
                self.ssa.join(join, self.cur, stored)
        self.label(header, True)
        control = [enum("LoopControl", _LOOP_HINTS.get(s.hint or "", "None"))]
        if s.unroll_count and b.version >= (1, 4):
            control = [enum("LoopControl", "PartialCount"), s.unroll_count]
        self.void_op("OpLoopMerge", merge, cont, *control)
        self.terminate("OpBranch", body)
        self.label(body)
        self.breaks.append(merge)
        self.continues.append(cont)
        self.block(s.body)
        self.branch(cont)
        self.breaks.pop()
        self.continues.pop()
        self.label(cont)
        # the continue construct cannot break out of the loop: Break/Continue there are invalid
        saved_b, saved_c = self.breaks, self.continues
        self.breaks, self.continues = [], []
        self.block(s.continuing)
        self.breaks, self.continues = saved_b, saved_c
        if self.open:
            if s.break_if is not None:
                self.terminate("OpBranchConditional", self.expr(s.break_if), merge, header)
            else:
                self.terminate("OpBranch", header)
        if self.ssa is not None:
            self.ssa.seal(header)
        self.merge_label(merge)

    def s_switch(self, s: Switch) -> None:
        sel = self.expr(s.selector)
        b = self.b
        merge = b.new_id()
        labels = [b.new_id() for _ in s.cases]
        default = next((lab for c, lab in zip(s.cases, labels) if c.is_default), merge)
        targets: list[int] = []
        for c, lab in zip(s.cases, labels):
            for v in c.values:
                targets += [int(v) & 0xFFFFFFFF, lab]
        self.void_op("OpSelectionMerge", merge, enum("SelectionControl", "None"))
        if self.ssa is not None:
            stored = self.stored[id(s)]
            for join in (*labels, merge):
                self.ssa.join(join, self.cur, stored)
        self.terminate("OpSwitch", sel, default, *targets)
        self.breaks.append(merge)
        for i, (c, lab) in enumerate(zip(s.cases, labels)):
            self.label(lab)
            self.block(c.body)
            self.branch(labels[i + 1] if i + 1 < len(labels) else merge)   # fall-through
        self.breaks.pop()
        self.merge_label(merge)

    def s_break(self, s: Break) -> None:
        self.terminate("OpBranch", self.breaks[-1])

    def s_continue(self, s: Continue) -> None:
        self.terminate("OpBranch", self.continues[-1])

    def s_return(self, s: Return) -> None:
        if s.value is None:
            self.terminate("OpReturn")
        else:
            self.terminate("OpReturnValue", self.expr(s.value))

    def s_discard(self, s: Discard) -> None:
        self.terminate("OpTerminateInvocation" if self.b.version >= (1, 6) else "OpKill")

    def discard_if(self, cond: int) -> None:
        """`if (cond) discard;` in the middle of an expression (clip())."""
        kill, merge = self.b.new_id(), self.b.new_id()
        self.void_op("OpSelectionMerge", merge, enum("SelectionControl", "None"))
        self.terminate("OpBranchConditional", cond, kill, merge)
        self.label(kill)
        self.s_discard(Discard())
        self.label(merge)


_STMT_DISPATCH: dict[type, Callable[..., None]] = {
    Store: FunctionEmitter.s_store, Eval: FunctionEmitter.s_eval, If: FunctionEmitter.s_if,
    Loop: FunctionEmitter.s_loop, Switch: FunctionEmitter.s_switch, Break: FunctionEmitter.s_break,
    Continue: FunctionEmitter.s_continue, Return: FunctionEmitter.s_return, Discard: FunctionEmitter.s_discard,
}
