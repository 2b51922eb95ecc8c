"""Statement lowering: structured control flow, locals, returns."""

from __future__ import annotations

import itertools

from ... import ir
from ...diagnostics import CompileError, Diagnostic, error
from .. import ast
from ..attributes import check_statement_attributes, misplaced_statement_attributes
from ..modifiers import LOCAL, report_modifiers
from .base import SemaBase
from .coherence import warn_mismatch
from .resources import LOOP_HINT
from .scope import Scope, UnrollOffset, VarSymbol

LOOP_HINTS = {"unroll": "unroll", "loop": "loop", "fastopt": "fastopt", "allow_uav_condition": None}
IF_HINTS = {"branch": "branch", "flatten": "flatten"}


def ends_flow(stmts: list[ir.Stmt]) -> bool:
    """True when control cannot fall off the end of the list."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (ir.Return, ir.Discard, ir.Break, ir.Continue)):
        return True
    if isinstance(last, ir.If):
        return ends_flow(last.then) and ends_flow(last.else_)
    if isinstance(last, ir.Loop):
        no_break = not any(isinstance(s, ir.Break) for s in _direct_breaks(last.body))
        # an infinite loop without break never falls through; nor does one whose body always returns
        return no_break and (last.break_if is None or ends_flow(last.body))
    if isinstance(last, ir.Switch):
        has_default = any(c.is_default for c in last.cases)
        return has_default and all(_case_returns(c.body) for c in last.cases)
    return False


def _case_returns(body: list[ir.Stmt]) -> bool:
    return bool(body) and isinstance(body[-1], (ir.Return, ir.Discard)) or (
        bool(body) and isinstance(body[-1], ir.If) and ends_flow(body) and not any(isinstance(s, ir.Break) for s in _direct_breaks(body)))


def _direct_breaks(stmts: list[ir.Stmt]):
    """Breaks that exit the enclosing loop/switch (not nested loops/switches)."""
    for s in stmts:
        if isinstance(s, ir.Break):
            yield s
        elif isinstance(s, ir.If):
            yield from _direct_breaks(s.then)
            yield from _direct_breaks(s.else_)


_STATEMENT_KINDS = {"ForStmt": "loop", "WhileStmt": "loop", "DoStmt": "loop", "IfStmt": "if", "SwitchStmt": "switch"}


# resource methods DXC's intrinsic table marks read-only ([[ro]]): a call whose value is dropped does nothing
_READ_METHODS = ("Load", "Sample", "Gather", "CalculateLevelOfDetail", "GetSamplePosition")


def _has_no_effect(e: ast.Expr) -> bool:
    """An expression statement that computes a value and drops it (`x + 1;`, `v.x;`); calls, assignments,
    increments and casts (`(void)x;`) count as meant."""
    if isinstance(e, (ast.Name, ast.IntLit, ast.FloatLit, ast.BoolLit)):
        return True
    if isinstance(e, ast.BinaryOp):
        return _has_no_effect(e.lhs) and _has_no_effect(e.rhs)
    if isinstance(e, ast.Member):
        return _has_no_effect(e.base)
    if isinstance(e, ast.Index):
        return _has_no_effect(e.base) and _has_no_effect(e.index)
    if isinstance(e, ast.UnaryOp):
        return e.op in ("-", "+", "!", "~") and _has_no_effect(e.operand)
    return False


class StmtLowering(SemaBase):
    """Mixin of Analyzer."""

    def lower_block(self, stmts: list[ast.Stmt], new_scope: bool = True) -> None:
        if new_scope:
            self.push_scope()
        try:
            for s in stmts:
                self.guarded(self.lower_stmt, s)
        finally:
            if new_scope:
                self.pop_scope()

    def lower_stmt(self, s: ast.Stmt) -> None:
        attrs = getattr(s, "attributes", None)
        if attrs:
            check_statement_attributes(attrs, s.loc)
            kind = _STATEMENT_KINDS.get(type(s).__name__, "other")
            for message, loc in misplaced_statement_attributes(attrs, kind):
                self.warn(message, loc)
        method = getattr(self, "st_" + type(s).__name__)
        outer, self.stmt_loc = self.stmt_loc, s.loc     # emit() gives unlocated statements this line
        try:
            method(s)
        finally:
            self.stmt_loc = outer

    def st_Block(self, s: ast.Block) -> None:
        self.lower_block(s.stmts)

    def st_EmptyStmt(self, s) -> None:
        pass

    def st_ExprStmt(self, s: ast.ExprStmt) -> None:
        if _has_no_effect(s.expr):
            self.warn("expression result unused", s.expr.loc)     # clang's -Wunused-value
        elif (isinstance(s.expr, ast.CallExpr) and isinstance(s.expr.callee, ast.Member)
              and s.expr.callee.name.startswith(_READ_METHODS)
              and isinstance(self.peek_type(s.expr.callee.base), ir.Resource)):
            self.warn("ignoring return value of function that only reads data", s.expr.loc)     # DXC's words
        self.effect(s.expr)

    def st_DeclStmt(self, s: ast.DeclStmt) -> None:
        for d in s.decls:
            if isinstance(d, ast.VarDecl):
                self.local_var(d)
            else:
                self.declare_type_like(d)

    def local_var(self, d: ast.VarDecl) -> None:
        report_modifiers(d.qualifiers, LOCAL, d.loc, self.errors)
        self.written_major(d.qualifiers, d.type, d.loc)      # conflicting orientations are errors here too
        t = self.resolve_type(d.type, d.dims, allow_unsized=d.init is not None)
        # a globallycoherent local initialised from a heap element names a globallycoherent view (sema/heaps.py)
        coherent_heap = "globallycoherent" in d.qualifiers and "static" not in d.qualifiers \
            and isinstance(d.init, ast.Index) and self.is_heap_index(d.init)
        self.check_type_qualifiers(d.qualifiers, t, d.loc)
        if isinstance(t, ir.VoidType):
            raise error(f"variable '{d.name}' has incomplete type 'void'", d.loc)
        if "static" in d.qualifiers:
            self.global_var(d, local_static=True)
            return
        if isinstance(t, ir.RayQuery) and (d.init is not None or isinstance(self.fn_return_type, ir.RayQuery)):
            from .rayquery import query_local

            if query_local(self, d, t):
                return
        init: ir.Expr | None
        if isinstance(t, ir.Array) and t.size is None and d.init is not None:
            init = self.init_value(d.init, t, d.loc)
            t = init.type
        elif isinstance(t, ir.Array) and t.size is None:
            raise error(f"definition of variable '{d.name}' with unsized array type '{t}' is not allowed", d.loc)
        else:
            try:
                init = self.init_value(d.init, t, d.loc) if d.init is not None else None
            except CompileError:
                if ir.is_numeric(t) or isinstance(t, ir.Struct):    # as in clang, a value variable still exists
                    self.declare_var(d.name, ir.Variable(d.name, t, ir.Storage.FUNCTION, d.loc), d.loc)  # with its type
                raise       # (any other is an error symbol: guarded)
        if isinstance(t, ir.Resource) or (isinstance(t, ir.Array) and isinstance(_base_elem(t), ir.Resource)):
            if isinstance(t, ir.Array) and t.size is None:
                raise error("local resource arrays must have a size", d.loc)
        coherent = "globallycoherent" in d.qualifiers
        if init is not None and d.init is not None:
            warn_mismatch(self, init, t, coherent, d.init.loc)
        if coherent_heap and init is not None:
            init = self.coherent_heap_view(init, d.loc)
        var = ir.Variable(d.name, t, ir.Storage.FUNCTION, d.loc, const="const" in d.qualifiers,
                          precise="precise" in d.qualifiers, coherent=coherent)
        assert self.fn is not None          # statements are lowered inside a function
        self.fn.locals.append(var)
        self.declare_var(d.name, var, d.loc)
        self.note_spelling(var, d.type)
        self.declared_locals.append(var)
        if d.type.name[-1:] == "1" and isinstance(t, ir.Scalar):     # `float1 x`: a vector to intrinsics
            self.note_one_vector(var, d.type.name)
        if init is None and not isinstance(_base_elem(t), ir.Resource):
            self.unset_vars.add(id(var))
        if init is not None:
            self.emit(ir.Store(ir.VarRef(var), init, d.loc))
            self.mark_initialized(var)
            if var.const:
                self.const_locals[id(var)] = init
        elif var.const:
            raise error(f"const variable '{d.name}' must be initialized", d.loc)
        elif self.holds_bitfields(t):   # writing one bit-field reads its unit: never an undefined value
            self.emit(ir.Store(ir.VarRef(var), self.zero(t), d.loc))

    def st_IfStmt(self, s: ast.IfStmt) -> None:
        cond = self.condition(s.cond)
        then: list[ir.Stmt] = []
        else_: list[ir.Stmt] = []
        with self.collect(then):
            self.lower_block([s.then])
        if s.else_ is not None:
            with self.collect(else_):
                self.lower_block([s.else_])
        hint = next((IF_HINTS[a.name] for a in s.attributes if a.name in IF_HINTS), None)
        self.emit(ir.If(cond, then, else_, hint))

    def condition(self, e: ast.Expr) -> ir.Expr:
        c = self.rvalue(e)
        if not isinstance(c.type, ir.Scalar):
            if isinstance(c.type, ir.Vector):
                raise error(f"condition must be a scalar, not '{c.type}'; use all() or any()", e.loc)
            raise error(f"value of type '{c.type}' is not contextually convertible to 'bool'", e.loc)
        return self.convert(c, ir.BOOL, e.loc)

    def loop_hint(self, attrs: list[ast.Attribute]) -> tuple[str | None, int | None]:
        for a in attrs:
            if a.name in LOOP_HINTS:
                count = None
                if a.name == "unroll" and a.args:
                    count = self.const_int(a.args[0])
                return LOOP_HINTS[a.name], count
        return None, None

    def loop(self, attrs, cond: ast.Expr | None, body: ast.Stmt, step: ast.Expr | None, do_while: bool) -> None:
        hint, count = self.loop_hint(attrs)
        body_ir: list[ir.Stmt] = []
        cont: list[ir.Stmt] = []
        break_if = None
        self.loop_depth += 1
        offsets: list[UnrollOffset] = []
        if hint == "unroll":
            self.unroll_offsets.append(offsets)
        try:
            with self.collect(body_ir):
                if cond is not None and not do_while:
                    c = self.condition(cond)
                    if not (isinstance(c, ir.Const) and c.value is True):
                        self.emit(ir.If(ir.Unary("not", c, ir.BOOL), [ir.Break()], []))
                self.lower_block([body])
            with self.collect(cont):
                if step is not None:
                    self.effect(step)
                if do_while:
                    assert cond is not None        # do { } while (cond) always has one
                    c = self.condition(cond)
                    break_if = ir.Unary("not", c, ir.BOOL)
        finally:
            self.loop_depth -= 1
            if hint == "unroll":
                self.unroll_offsets.pop()
        loop = ir.Loop(body_ir, cont, break_if, hint, count)
        for o in offsets:
            self.unroll_offset(loop, o)
        self.emit(loop)

    def unroll_offset(self, loop: ir.Loop, o: UnrollOffset) -> None:
        """Resolve a texture offset's variables that `loop` (an [unroll] loop just lowered) changes: its counter
        the unroll pass will make each iteration's constant, if it can unroll it fully (ir/loops.counted),
        and a local the body sets once, at its top level before the offset, to a value of counters."""
        from ...ir.loops import MAX_TRIPS, const_int, counted, single_store, substitute, writes  # issue 23: rare

        found = None
        body = loop.body + loop.continuing
        use = next((i for i, s in enumerate(body) if _holds(s, o.node)), len(body))
        while True:
            var = next((v for v in o.unresolved.values() if writes(body, v)), None)
            if var is None:
                break
            del o.unresolved[id(var)]
            found = found or counted(loop, self.out)
            if found is not None and found[0] is var:
                o.counters[id(var)] = found
                continue
            store = single_store(body, var)
            value = self._counter_offset(store[1]) if store is not None and store[0] < use else None
            if found is None:
                raise error(f"texture offsets must be compile-time constants: '{var.name}' changes in an [unroll] "
                            "loop that cannot be unrolled fully (it needs a counter stepping by a constant from a "
                            f"constant to a constant bound, at most {MAX_TRIPS} iterations, not assigned in the "
                            "body)", o.loc)
            if value is None or id(var) in value[1]:
                raise error(f"texture offsets must be compile-time constants: '{var.name}' is not set once in the "
                            "[unroll] loop, before the offset, to a value of constants and loop counters", o.loc)
            o.expr = substitute(o.expr, var, value[0])
            o.unresolved.update(value[1])
        if o.unresolved:
            if not self.unroll_offsets:
                raise error("texture offsets must be compile-time constants" + (LOOP_HINT if self.loop_depth else ""),
                            o.loc)
            self.unroll_offsets[-1].append(o)
            return
        if not o.is_offset:     # a helper's argument: the offset the helper makes of it is checked by the backend
            return
        names = [v.name for v, _ in o.counters.values()]
        for combo in itertools.product(*(vals for _, vals in o.counters.values())):
            e = o.expr
            for (var, _), x in zip(o.counters.values(), combo):
                e = substitute(e, var, x)
            c = const_int(e)
            if c is None or any(not -8 <= x <= 7 for x in c):
                at = ", ".join(f"{n} = {x}" for n, x in zip(names, combo))
                raise error(f"texture offsets must be in the range [-8, 7] (is {tuple(c) if c else '?'} when {at})",
                            o.loc)

    def st_ForStmt(self, s: ast.ForStmt) -> None:
        scoped = self.options.hlsl_version >= 2021   # before HLSL 2021 the init variable outlives the loop
        if scoped:
            self.push_scope()
        try:
            if s.init is not None:
                if not scoped and isinstance(s.init, ast.DeclStmt):
                    self.redeclare_leaked(s.init)
                self.lower_stmt(s.init)
            self.loop(s.attributes, s.cond, s.body, s.step, do_while=False)
        finally:
            if scoped:
                self.pop_scope()

    def redeclare_leaked(self, init: ast.DeclStmt) -> None:
        """Before HLSL 2021 a for-init variable lives on in the enclosing scope, and a later for-init may
        declare the name again: DXC warns and uses the newest declaration (SemaDecl.cpp, -Wfor-redefinition)."""
        for d in init.decls:
            old = self.scope.names.get(d.name) if isinstance(d, ast.VarDecl) else None
            if not isinstance(d, ast.VarDecl) or not isinstance(old, VarSymbol):
                continue
            new_type = self.resolve_type(d.type, d.dims)
            diff = "" if new_type == old.var.type else f" with a different type: '{new_type}' vs '{old.var.type}'"
            self.warn(f"redefinition of '{d.name}'{diff} shadows declaration in the outer scope; most recent "
                      f"declaration will be used", d.loc)
            del self.scope.names[d.name]

    def st_WhileStmt(self, s: ast.WhileStmt) -> None:
        self.loop(s.attributes, s.cond, s.body, None, do_while=False)

    def st_DoStmt(self, s: ast.DoStmt) -> None:
        self.loop(s.attributes, s.cond, s.body, None, do_while=True)

    def st_SwitchStmt(self, s: ast.SwitchStmt) -> None:
        sel = self.rvalue(s.selector)
        if not (isinstance(sel.type, ir.Scalar) and sel.type.kind in ("int", "uint", "bool")):
            raise error(f"switch condition must be an integer, not '{sel.type}'", s.selector.loc)
        if sel.type.kind == "bool":     # clang's (SemaStmt.cpp ActOnFinishSwitchStmt), at `switch`
            self.warn("switch condition has boolean value", s.loc)
        wide = sel.type.width == 64 and sel.type.kind != "bool"     # a 64-bit condition keeps its width
        sel_type = sel.type if wide else ir.INT if sel.type.kind != "uint" else ir.UINT
        sel = self.convert(sel, sel_type, s.selector.loc)
        bits = sel_type.width
        cases: list[ir.SwitchCase] = []
        seen: dict[int, object] = {}
        has_default = False
        self.switch_depth += 1
        self.push_scope()
        bypassed: ast.VarDecl | None = None      # a local initialized in an earlier section (C++ [stmt.dcl]p3)
        try:
            for labels, body in s.sections:
                if bypassed is not None and labels:
                    raise error("cannot jump from switch statement to this case label", labels[0].loc,
                                [Diagnostic("note", "jump bypasses variable initialization", bypassed.loc)])
                bypassed = next((d for st in body if isinstance(st, ast.DeclStmt) for d in st.decls
                                 if isinstance(d, ast.VarDecl) and d.init is not None and "static" not in d.qualifiers),
                                bypassed)
                values = []
                is_default = False
                for lab in labels:
                    if lab.value is None:
                        if has_default:
                            raise error("multiple default labels in one switch", lab.loc)
                        has_default = is_default = True
                        continue
                    v = self.const_int(lab.value)
                    wrapped = v % 2**bits if sel_type.kind == "uint" else ((v + 2**(bits - 1)) % 2**bits) - 2**(bits - 1)
                    if wrapped != v:    # converted to the condition's type, as DXC (clang) does
                        self.sink.warning(f"overflow converting case value to switch condition type ({v} to {wrapped})",
                                          lab.loc)
                        v = wrapped
                    if v in seen:
                        raise error(f"duplicate case value '{v}'", lab.loc)
                    seen[v] = lab
                    values.append(v)
                body_ir: list[ir.Stmt] = []
                with self.collect(body_ir):
                    self.lower_block(body, new_scope=False)
                cases.append(ir.SwitchCase(values, is_default, body_ir))
        finally:
            self.pop_scope()
            self.switch_depth -= 1
        if wide:
            sel, cases = self.narrow_switch(sel, cases)
        self.emit(ir.Switch(sel, cases))

    def narrow_switch(self, sel: ir.Expr, cases: list[ir.SwitchCase]) -> tuple[ir.Expr, list[ir.SwitchCase]]:
        """A 64-bit switch as a 32-bit one on the position of the matching case value (a chain of
        compares; no match gives one past the last), so neither backend needs 64-bit case literals."""
        tmp = self.temp(sel.type, "switch_value")
        self.emit(ir.Store(ir.VarRef(tmp), sel))
        values = [v for c in cases for v in c.values]
        index: ir.Expr = ir.Const(ir.UINT, len(values))
        for i, v in reversed(list(enumerate(values))):
            hit = ir.Binary("eq", self.load(ir.VarRef(tmp)), ir.Const(sel.type, v), ir.BOOL)
            index = ir.Select(hit, ir.Const(ir.UINT, i), index, ir.UINT)
        numbered = iter(range(len(values)))
        return index, [ir.SwitchCase([next(numbered) for _ in c.values], c.is_default, c.body) for c in cases]

    def st_BreakStmt(self, s: ast.BreakStmt) -> None:
        if self.loop_depth == 0 and self.switch_depth == 0:
            raise error("'break' statement not in loop or switch statement", s.loc)
        self.emit(ir.Break())

    def st_ContinueStmt(self, s: ast.ContinueStmt) -> None:
        if self.loop_depth == 0:
            raise error("'continue' statement not in loop statement", s.loc)
        self.emit(ir.Continue())

    def st_DiscardStmt(self, s: ast.DiscardStmt) -> None:
        if self.profile.stage != "pixel":
            self.stage_error("'discard' is only allowed in pixel shaders", s.loc)
        self.emit(ir.Discard())

    def st_ReturnStmt(self, s: ast.ReturnStmt) -> None:
        rt = self.fn_return_type
        assert self.fn is not None
        if s.value is None:
            if not isinstance(rt, ir.VoidType):
                raise error(f"non-void function '{self.fn.name}' should return a value", s.loc)
            self.emit(ir.Return())
            return
        if isinstance(rt, ir.VoidType):
            if isinstance(s.value, ast.CallExpr):
                v = self.call(s.value)
                if isinstance(v.type, ir.VoidType):     # `return f();` of a void f: C++ allows it, so does DXC
                    if isinstance(v, (ir.Call, ir.Intrinsic)):
                        self.emit(ir.Eval(v, s.value.loc))
                    self.emit(ir.Return())
                    return
            raise error(f"void function '{self.fn.name}' should not return a value", s.loc)
        if isinstance(rt, ir.RayQuery):
            from .rayquery import return_query

            return_query(self, s)
            return
        v = self.init_value(s.value, rt, s.value.loc) if isinstance(s.value, ast.InitList) else self.rvalue(s.value)
        if self.fn_info is not None:
            warn_mismatch(self, v, rt, "globallycoherent" in self.fn_info.decl.qualifiers, s.value.loc)
        self.emit(ir.Return(self.convert(v, rt, s.value.loc, what=" in return statement")))


def _base_elem(t: ir.Type) -> ir.Type:
    while isinstance(t, ir.Array):
        t = t.elem
    return t


__all__ = ["StmtLowering", "Scope", "ends_flow"]


def _holds(s: ir.Stmt, e: ir.Expr) -> bool:
    """Whether statement `s` (or one nested in it) has expression `e` itself in it."""
    return any(y is e for y in ir.body_exprs([s]))
