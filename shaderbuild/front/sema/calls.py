"""Calls: overload resolution, out/inout temporaries (seed 000), constructors,
intrinsics (driven by ir/intrinsics.py) and resource/struct methods."""

from __future__ import annotations

from ... import ir
from ...diagnostics import CompileError, Diagnostic, SourceLoc, error, locate
from ...ir.intrinsics import (
    BY_ROWS,
    DERIVATIVE_SM,
    DERIVATIVE_STAGES,
    DERIVATIVES,
    FLOAT32_ONLY,
    FLOAT_LIKE,
    INTRINSICS,
    OWN_RESULT_TEMPLATE,
    SPECIAL,
    STREAM_METHODS,
    STRICT_KINDS,
    UINT32_ONLY,
    IntrinsicSig,
    is_intrinsic,
)
from ...ir.resource_kinds import KINDS
from ...ir.streams import STREAM_KINDS
from .. import ast
from .base import SemaBase, Undo
from .coherence import warn_mismatch
from .conversions import SCORE_FLAGS, common_scalar, conversion_cost, overload_score, shape_of, with_scalar
from .exprs import changed_by, scatter
from .heaps import HeapElement
from .scope import FuncInfo, FuncSymbol, StringSymbol, TypeSymbol, UnrollOffset, VarSymbol
from .typeresolve import precision_spelling
from .typeresolve import unsized_value_array as _unsized_value_array

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from contextlib import AbstractContextManager

KIND_SCALARS = {"f": ir.FLOAT, "i": ir.INT, "u": ir.UINT, "b": ir.BOOL}
# return patterns of one fixed type (the ray-tracing system values)
_FIXED_RETURNS: dict[str, ir.Type] = {"u3": ir.Vector(ir.UINT, 3), "f1": ir.FLOAT, "f2": ir.Vector(ir.FLOAT, 2), "f3": ir.Vector(ir.FLOAT, 3),
                                      "f3x4": ir.Matrix(ir.FLOAT, 3, 4), "f4x3": ir.Matrix(ir.FLOAT, 4, 3)}


class CallLowering(SemaBase):
    """Mixin of Analyzer."""

    def call(self, e: ast.CallExpr) -> ir.Expr:
        callee = e.callee
        if isinstance(callee, ast.TypeRef):
            return self.construct(self.resolve_type(callee, []), e.args, e.loc)
        if isinstance(callee, ast.Member):
            return self.method_call(callee, e.args, e.loc)
        if isinstance(callee, ast.StaticMember):     # `S<int>::f(...)`: a static member function of an instance
            callee = self.static_member_name(callee)
            sym = self.scope.lookup(callee.name)
            if not isinstance(sym, FuncSymbol):
                raise error(f"no static member function '{callee.name}'", e.loc)
            return self.user_call(callee.name, sym.overloads, e.args, e.loc)
        if not isinstance(callee, ast.Name):
            raise error("called object is not a function", e.loc)
        sym = self.scope.lookup(callee.name)
        if callee.name in self.func_templates and (not isinstance(sym, FuncSymbol | TypeSymbol) or (
                isinstance(sym, TypeSymbol) and self.global_scope.names.get(callee.name) is sym) or (
                callee.template_args and isinstance(sym, FuncSymbol))):     # `f<int>(2)`: the templates only
            # (the template hides a struct of its name at file scope, as in C++; a local type hides the template)
            return self.template_call(callee.name, e.args, callee.template_args, e.loc)
        this_struct = self.fn_info.method_of if self.fn_info is not None else None
        own = None
        if this_struct is not None:
            assert self.fn_info is not None
            own = self.inherited_methods(this_struct, self.method_origin.get(id(self.fn_info), this_struct.name))
        if own is not None and callee.name in own and not isinstance(sym, FuncSymbol | TypeSymbol):
            assert self.fn is not None      # fn_info is set: inside a method's body
            this_var = self.fn.params[0].var
            return self.user_call(callee.name, own[callee.name], e.args, e.loc, this=ir.VarRef(this_var))
        if this_struct is not None and sym is None and "::" in callee.name:    # `Base::f()` inside a method
            owner, _, name = callee.name.rpartition("::")
            base = self.types.named.get(owner)
            if isinstance(base, ir.Struct) and (base.name == this_struct.name or self.derives_from(this_struct, base)):
                seen = self.inherited_methods(this_struct, base.name)
                if name in seen:
                    assert self.fn is not None
                    return self.user_call(name, seen[name], e.args, e.loc, this=ir.VarRef(self.fn.params[0].var))
        if this_struct is not None and sym is None and "::" in callee.name:    # `get<T>()` in a method: S::get
            owner, _, name = callee.name.rpartition("::")
            templates = self.method_templates.get(owner, {}).get(name)
            if owner == this_struct.name and templates:
                assert self.fn is not None
                return self.method_template_call(this_struct, templates, name, e.args, callee.template_args, e.loc,
                                                 ir.VarRef(self.fn.params[0].var))
        if isinstance(sym, TypeSymbol):
            return self.construct(sym.type, e.args, e.loc)
        if isinstance(sym, VarSymbol) and isinstance(sym.var.type, ir.Struct) \
                and "operator()" in self.methods.get(sym.var.type.name, {}):     # `f(x)` with `operator()`
            this = self.place(callee, for_write=False)
            return self.user_call("operator()", self.methods[sym.var.type.name]["operator()"], e.args, e.loc, this=this)
        if isinstance(sym, FuncSymbol):
            if is_intrinsic(callee.name) and all(f.method_of is None for f in sym.overloads):
                return self.intrinsic_or_user_call(callee.name, sym.overloads, e.args, e.loc)
            return self.user_call(callee.name, sym.overloads, e.args, e.loc,
                                  templates=self.func_templates.get(callee.name))
        if sym is None and is_intrinsic(callee.name):
            return self.intrinsic_call(callee.name, e.args, e.loc)
        if sym is None:
            raise self.undeclared(callee.name, callee.loc)
        raise error(f"called object '{callee.name}' is not a function", e.loc)

    def intrinsic_or_user_call(self, name: str, overloads: list[FuncInfo], args: list[ast.Expr],
                               loc: SourceLoc) -> ir.Expr:
        """A user function named as an intrinsic takes precedence where it matches the arguments exactly
        (FXC's rule, the one issue 20 asks for: `float2 max(float2, float2)`; DXC calls the intrinsic instead,
        its open bug #1887); otherwise the intrinsic where it accepts the arguments (`asint(1.0f)` beside a
        user `asint(bool)`), else the user's best overload (`length(S)`).  Each trial's code and diagnostics
        are dropped when it does not accept the arguments."""
        for trial in (lambda: self.user_call(name, overloads, args, loc, exact_only=True),
                      lambda: self.intrinsic_call(name, args, loc)):
            mark = self.sink.mark()
            body: list[ir.Stmt] = []
            try:
                with self.collect(body):
                    result = trial()
            except CompileError:
                self.sink.rollback(mark)
                continue
            self.out.extend(body)      # emitted once already, into `body`
            return result
        return self.user_call(name, overloads, args, loc)

    # ------------------------------------------------------------ constructors
    def construct(self, t: ir.Type, args: list[ast.Expr], loc: SourceLoc) -> ir.Expr:
        if not ir.is_numeric(t):
            if isinstance(t, ir.Struct) and len(args) == self.flat_count(t) or isinstance(t, ir.Struct):
                comps: list[ir.Expr] = []
                for a, v in zip(args, self.rvalues(args)):
                    comps.extend(self.components(v, a.loc))
                return self.build_from_components(comps, t, loc)
            raise error(f"cannot construct a value of type '{t}'", loc)
        values = self.rvalues(args)
        comps = []
        for a, v in zip(args, values):
            if not ir.is_numeric(v.type):
                raise error(f"cannot use a value of type '{v.type}' to construct '{t}'", a.loc)
            comps.extend(self.components(v, a.loc))
        need = self.flat_count(t)
        if len(comps) == 1 and (need > 1 or isinstance(t, ir.Scalar)) and isinstance(values[0].type, ir.Scalar):
            return self.convert(values[0], t, loc, explicit=True)     # a splat, or `int(x)` as the cast `(int)x`
        if len(comps) != need:
            raise error(f"{'too few' if len(comps) < need else 'too many'} elements in vector initialization "
                        f"(expected {need} elements, have {len(comps)})", loc)
        built = self.build_from_components(comps, t, loc)
        if isinstance(built, ir.Const) and self.is_literal(built):
            return ir.Const(built.type, built.value)    # `int(-1)` is typed, as a cast is
        return built

    # ------------------------------------------------------------ user calls
    def user_call(self, name: str, overloads: list[FuncInfo], args: list[ast.Expr], loc: SourceLoc,
                  this: ir.Expr | None = None, exact_only: bool = False,
                  templates: list[ast.FuncDecl] | None = None) -> ir.Expr:
        """templates: function templates of the name, whose deduced instances join the overloads (C++: on equal
        conversions the non-template wins; `f(2)` takes `T f(T)` with T = int over `f(float)`)."""
        values, is_place = self.lower_args(args)
        instances = self.template_candidates(name, templates, args, values, loc) if templates else {}
        best = self.resolve_overload(name, [*overloads, *(i for i, _, _ in instances.values())], args, values, loc,
                                     exact_only, prefer={id(f) for f in overloads} if instances else None)
        made = instances.get(id(best))
        if made is not None:
            _, d, bound = made
            if best.const_params and not self.probing:
                best = self.const_specialize(name, best, args, values, is_place, (
                    lambda: self.template_bindings(d.template_params or [], bound, d.template_values)))
            return self.emit_call(best, args, values, is_place, loc, this)
        if any(_unsized_value_array(t) for t in best.param_types) and not self.probing:
            best = self.specialize(best, [v.type for v in values])
        if best.const_params and not self.probing:
            best = self.const_specialize(name, best, args, values, is_place)
        return self.emit_call(best, args, values, is_place, loc, this)

    def lower_args(self, args: list[ast.Expr]) -> tuple[list[ir.Expr], list[bool]]:
        """Each argument is lowered exactly once: places stay places (for out/inout), the rest become values."""
        values: list[ir.Expr] = []
        is_place: list[bool] = []
        out, ends = self.out, []
        for a in args:
            p = self.is_place_expr(a)
            is_place.append(p)
            values.append(self.place(a, for_write=False) if p else self.rvalue(a))
            ends.append(len(out))
        if len(args) > 1 and ends[0] < len(out):
            self.read_early(values, is_place, ends)
        return values, is_place

    def read_early(self, values: list[ir.Expr], is_place: list[bool], ends: list[int]) -> None:
        """A later argument emitted code (a call, ++): what an earlier one reads is read where it was written,
        left to right as DXC evaluates `f(g, next())` (a place keeps itself for out/inout write-back); what that
        code cannot change (exprs.changed_by: a call's result, a constant) is not copied."""
        early: dict[int, ir.Expr] = {}
        changed = [ends[i] < ends[-1] and changed_by(values[i], self.out[ends[i]:]) for i in range(len(values) - 1)]
        for i in reversed(range(len(values) - 1)):      # (an insertion moves only the positions after it)
            v = values[i]
            if not changed[i] or not (ir.is_numeric(v.type) or isinstance(v.type, ir.Struct)):
                continue
            held = self.temp(v.type, "arg")
            self.out.insert(ends[i], ir.Store(ir.VarRef(held), self.load(v) if is_place[i] else v))
            if is_place[i]:
                early[i] = self.load(ir.VarRef(held))
            else:
                values[i] = self.load(ir.VarRef(held))
        if early:
            self.early_reads[id(values)] = (values, early)

    def rvalues(self, exprs: list[ast.Expr]) -> list[ir.Expr]:
        """The values of `exprs` (constructor, intrinsic and initializer operands), read left to right."""
        out, ends, values = self.out, [], []
        for x in exprs:
            values.append(self.rvalue(x))
            ends.append(len(out))
        if len(values) > 1 and ends[0] < len(out):
            self.read_early(values, [False] * len(values), ends)
        return values

    def resolve_overload(self, name, overloads, args, values, loc, exact_only: bool = False,
                         prefer: set[int] | None = None) -> FuncInfo:
        """The overload whose summed conversion flags are least (DXC's ScoreCast); exact_only: only one that
        needs no conversion at all qualifies (a user function named as an intrinsic, intrinsic_or_user_call);
        prefer: ids of the non-template overloads, which win a tie with a template's instance."""
        viable: list[tuple[tuple[int, ...], FuncInfo]] = []
        rejections: list[tuple[FuncInfo, str, SourceLoc]] = []
        for f in overloads:
            n_req = sum(1 for p in f.decl.params if p.init is None)
            if not n_req <= len(args) <= len(f.param_types):
                want = f"{n_req}" if n_req == len(f.param_types) else f"{n_req} to {len(f.param_types)}"
                rejections.append((f, f"requires {want} argument{'s' if len(f.param_types) != 1 else ''}, "
                                      f"but {len(args)} {'was' if len(args) == 1 else 'were'} provided", f.decl.loc))
                continue
            score = [0] * (len(SCORE_FLAGS) + 1)
            for a, v, pt, d in zip(args, values, f.param_types, f.param_dirs):
                c = conversion_cost(v.type, pt, self.is_literal(v))
                if c is None and isinstance(v.type, ir.Struct) and isinstance(pt, ir.Struct) and self.derives_from(v.type, pt):
                    c = 1 + self.derives_from(v.type, pt)     # derived to base: the nearest base ranks best (C++)
                if c is None and isinstance(v.type, ir.Array) and isinstance(pt, ir.Array) and v.type.elem == pt.elem \
                        and pt.size is None and v.type.size is not None:
                    c = 1
                if c is None:
                    rejections.append((f, f"cannot convert '{v.type}' to '{pt}'", a.loc))
                    break
                _add_score(score, v.type, pt, d, self.is_literal(v), c)
            else:
                if exact_only and any(score):
                    rejections.append((f, "not an exact match", f.decl.loc))
                    continue
                viable.append((tuple(score), f))
        if not viable:
            if len(overloads) == 1 and rejections[0][2] is not overloads[0].decl.loc:
                # one candidate: name the failing argument conversion at the argument
                raise error(rejections[0][1], rejections[0][2],
                            [Diagnostic("note", f"in call to '{overloads[0].signature()}'", overloads[0].decl.loc)])
            notes = [Diagnostic("note", f"candidate function not viable: {f.signature()}: {why}", f.decl.loc)
                     for f, why, _ in rejections]
            tys = ", ".join(str(v.type) for v in values)
            raise error(f"no matching function for call to '{name}' with arguments ({tys})", loc, notes)
        least = min(score for score, _ in viable)
        best = [v for v in viable if v[0] == least]
        if len(best) > 1 and all(f.param_types == best[0][1].param_types for _, f in best):
            # overloads apart only by half/min-precision spelling: the one spelled as the arguments are
            spelled = [self._spelling(a) for a in args]
            best = [v for v in best if None not in spelled and list(v[1].param_spellings[:len(args)]) == spelled] or best
        if len(best) > 1 and prefer is not None:
            best = [v for v in best if id(v[1]) in prefer] or best
        if len(best) != 1:
            notes = [Diagnostic("note", f"candidate function: {f.signature()}", f.decl.loc) for _, f in (best or viable)]
            raise error(f"call to '{name}' is ambiguous", loc, notes)
        return best[0][1]

    def _spelling(self, a: ast.Expr) -> str | None:
        """The precision spelling (typeresolve.precision_spelling) of an argument's type where it is written
        or declared: a variable (its elements and swizzles, a resource's elements), a cast, a constructor, a
        suffixed literal, and arithmetic of those; None where the source does not say (a call to such
        overloads is then ambiguous rather than guessed)."""
        if isinstance(a, ast.Name):
            sym = self.scope.lookup(a.name)
            held = self.precision_spellings.get(id(sym.var)) if isinstance(sym, VarSymbol) else None
            return held[1] if held is not None and held[0] is sym.var else None   # type: ignore[union-attr]
        if isinstance(a, ast.Cast) and not a.dims:
            return precision_spelling(a.type)
        if isinstance(a, ast.CallExpr) and isinstance(a.callee, ast.TypeRef):
            return precision_spelling(a.callee)
        if isinstance(a, ast.FloatLit):
            return {"h": "half", "f": "", "l": ""}.get(a.suffix)      # unsuffixed: a literal of any float type
        if isinstance(a, ast.IntLit):
            return "" if a.suffix else None
        if isinstance(a, ast.UnaryOp) and a.op in ("-", "+", "~"):
            return self._spelling(a.operand)
        if isinstance(a, ast.Index):        # an element of a spelled array, vector, matrix or resource
            return self._spelling(a.base)
        if isinstance(a, ast.Member) and (set(a.name) <= set("xyzw") or set(a.name) <= set("rgba")
                                          or a.name.startswith("_")):
            return self._spelling(a.base)   # a swizzle (a struct's field: its base has no spelling)
        if isinstance(a, ast.BinaryOp) and a.op in ("+", "-", "*", "/", "%"):
            lhs, rhs = self._spelling(a.lhs), self._spelling(a.rhs)
            if isinstance(a.rhs, ast.FloatLit | ast.IntLit) and not getattr(a.rhs, "suffix", ""):
                return lhs      # an unsuffixed literal takes the other operand's type
            if isinstance(a.lhs, ast.FloatLit | ast.IntLit) and not getattr(a.lhs, "suffix", ""):
                return rhs
            return lhs if lhs == rhs else None
        return None

    def specialize(self, f: FuncInfo, arg_types: list[ir.Type]) -> FuncInfo:
        """An instance of a function with unsized array parameters for the argument
        sizes of this call (arrays are passed by value, so each size is its own copy)."""
        types = [at if _unsized_value_array(pt) else pt
                 for pt, at in zip(f.param_types, arg_types)] + f.param_types[len(arg_types):]
        key = tuple(types)
        inst = f.instances.get(key)
        if inst is None:
            sizes = ",".join(str(t.size) for t, pt in zip(types, f.param_types)  # type: ignore[attr-defined]  # t: the argument's array type
                             if _unsized_value_array(pt))
            irf = ir.Function(f"{f.ir_func.name}<{sizes}>", [], f.return_type, loc=f.decl.loc)
            inst = FuncInfo(f.decl, types, f.param_dirs, f.return_type, irf, method_of=f.method_of)
            f.instances[key] = inst
            self.funcs.append(inst)
            with self.function_context():
                self.scope = self.global_scope
                self.function_body(inst)
        return inst

    def const_specialize(self, name: str, f: FuncInfo, args: list[ast.Expr], values: list[ir.Expr],
                         is_place: list[bool],
                         bindings: Callable[[], AbstractContextManager[None]] | None = None) -> FuncInfo:
        """The instance of helper f for this call's constant arguments of its texture-offset parameters (DXC
        needs them constant only after inlining).  A parameter of the caller passed on makes the caller such a
        helper in turn (the generic call then stays, unreachable once the caller's calls are specialised)."""
        bound: dict[str, ir.Const] = {}
        unrolled = False
        for i, p in enumerate(f.decl.params):
            if p.name not in f.const_params:
                continue
            arg = args[i] if i < len(args) else p.init
            assert arg is not None      # overload resolution admits missing arguments only with defaults
            value = values[i] if i < len(args) else self.rvalue(arg)
            conv = self.convert(self.load(value) if i < len(args) and is_place[i] else value, f.param_types[i],
                                arg.loc)
            c = self._constant(conv)
            if c is None and (passed := self.constant_parameters(conv)):
                assert self.fn_info is not None
                self.fn_info.const_params.update(passed)
                return f
            if c is None and self.unroll_offsets and (found := self._counter_offset(conv)) is not None:
                # built from counters of enclosing [unroll] loops: the loop checks they are (stmts.unroll_offset)
                # and the unroll pass inlines the call into each iteration, where the offset folds
                self.unroll_offsets[-1].append(UnrollOffset(conv, found[0], found[1], {}, arg.loc, False))
                unrolled = True
                continue
            if c is None:
                raise error(f"the argument for parameter '{p.name}' of '{name}' must be a compile-time constant: "
                            f"'{name}' uses it as a texture offset", arg.loc)
            bound[p.name] = c
        return f if unrolled else self.const_instance(f, bound, bindings)

    def const_instance(self, f: FuncInfo, bound: dict[str, ir.Const],
                       bindings: Callable[[], AbstractContextManager[None]] | None = None) -> FuncInfo:
        """The instance of helper f with parameters `bound` to constants (made once per set of values)."""
        key = ("const", tuple(sorted((k, repr(c.value)) for k, c in bound.items())))
        inst = f.instances.get(key)
        if inst is None:
            values_text = ", ".join(f"{k}={c.value}" for k, c in sorted(bound.items()))
            irf = ir.Function(f"{f.ir_func.name}<{values_text}>", [], f.return_type, loc=f.decl.loc)
            inst = FuncInfo(f.decl, f.param_types, f.param_dirs, f.return_type, irf, method_of=f.method_of)
            f.instances[key] = inst
            self.funcs.append(inst)
            self.param_bindings[id(inst)] = bound
            with self.function_context():
                self.scope = self.global_scope
                with bindings() if bindings is not None else Undo(_nothing):     # a template's parameters
                    self.function_body(inst)
        return inst

    def specialize_late_calls(self) -> None:
        """Calls made before their helper's body showed it takes a texture offset from a parameter (a prototype
        defined after the call): each call with constant arguments gets its instance, as later calls do."""
        generic = {id(f.ir_func): f for f in self.funcs if f.const_params and id(f) not in self.param_bindings}
        if not generic:
            return
        for caller in list(self.funcs):
            made: list[tuple[FuncInfo, FuncInfo]] = []
            left: set[int] = set()
            for x in ir.body_exprs(caller.ir_func.body):
                if not isinstance(x, ir.Call) or (g := generic.get(id(x.func))) is None:
                    continue
                bound = {p.name: self._constant(a) for p, a in zip(g.decl.params, x.args) if p.name in g.const_params}
                if any(c is None for c in bound.values()):
                    left.add(id(g))     # (a located error in the backend: the offset stays no constant)
                    continue
                inst = self.const_instance(g, bound)      # type: ignore[arg-type]   # no None left
                x.func = inst.ir_func
                made.append((g, inst))
            if made:
                gone = {id(g) for g, _ in made} - left
                loc = {id(g): loc for g, loc in caller.calls}
                caller.calls = [c for c in caller.calls if id(c[0]) not in gone] + [
                    (inst, loc[id(g)]) for g, inst in made]

    def emit_call(self, f: FuncInfo, args, values, is_place, loc: SourceLoc, this: ir.Expr | None) -> ir.Expr:
        self.record_call(f, loc)
        entry = self.early_reads.pop(id(values), None)
        early = entry[1] if entry is not None and entry[0] is values else {}
        call_args: list[ir.Expr] = []
        writebacks: list[tuple[ir.Expr, ir.Variable]] = []
        if this is not None:
            tmp = self.temp(this.type)
            self.emit(ir.Store(ir.VarRef(tmp), self.load(this)))
            call_args.append(ir.VarRef(tmp))
            writebacks.append((this, tmp))
        for i, pt in enumerate(f.param_types):
            d = f.param_dirs[i]
            if i >= len(args):
                default = f.decl.params[i].init
                assert default is not None      # overload resolution admits missing arguments only with defaults
                call_args.append(self.convert(self.rvalue(default), pt, default.loc))
                continue
            a, v = args[i], values[i]
            if isinstance(pt, ir.RayQuery):     # passed by reference, as DXC passes its handle: the query itself
                if not (is_place[i] and isinstance(v, ir.VarRef) and v.type == pt):
                    raise error(f"the argument for parameter '{f.decl.params[i].name}' must be a '{pt}' variable, "
                                f"not '{v.type}'", a.loc)
                call_args.append(v)
                continue
            kind = f.decl.params[i].type.name
            if kind in ("ConstantBuffer", "TextureBuffer") and not (is_place[i] and _is_block(v, kind)):
                raise error(f"the argument for parameter '{f.decl.params[i].name}' must be a {kind} (a copy of its "
                            f"block is passed), not a value of type '{v.type}'", a.loc)
            coherent = "globallycoherent" in f.decl.params[i].qualifiers
            if d == "in":
                value = early.get(i) or self.load(v) if is_place[i] else v
                warn_mismatch(self, value, pt, coherent, a.loc)
                call_args.append(self.convert(value, pt, a.loc))
                continue
            if not is_place[i]:
                raise error(f"cannot bind non-lvalue argument to {d} parameter '{f.decl.params[i].name}'", a.loc)
            self.check_writable(v, a)
            tmp = self.temp(pt)
            if d == "inout":
                value = early.get(i) or self.load(v)
                warn_mismatch(self, value, pt, coherent, a.loc)
                self.emit(ir.Store(ir.VarRef(tmp), self.convert(value, pt, a.loc)))
            elif not isinstance(pt, ir.Resource):
                # an `out` temporary starts zeroed so no undefined value can be written back (seed 000: UB(X));
                # a resource has no zero: its temporary starts unassigned, and reading it unassigned (the
                # callee never set it) is the local-resource check's located error
                try:
                    zero = self.zero(pt)
                except CompileError as e:   # (a resource: no value to start from) at the argument
                    raise locate(e, a.loc) from None
                self.emit(ir.Store(ir.VarRef(tmp), zero))
            call_args.append(ir.VarRef(tmp))
            writebacks.append((v, tmp))
        query = None
        if isinstance(f.return_type, ir.RayQuery):      # the callee's query is a temporary of the caller's
            query = self.temp(f.return_type)
            call_args.append(ir.VarRef(query))
        call = ir.Call(f.ir_func, call_args, f.ir_func.return_type)
        result = None
        if isinstance(f.ir_func.return_type, ir.VoidType):
            self.emit(ir.Eval(call, loc))
        else:
            result = self.temp(f.return_type)
            self.emit(ir.Store(ir.VarRef(result), call, loc))
        # write-back in reverse parameter order (seed 000: Init(V, V) leaves V == 1)
        for place, tmp in reversed(writebacks):
            pt = tmp.type
            if isinstance(place.type, ir.Struct) and isinstance(pt, ir.Struct) and self.derives_from(place.type, pt):
                for i, field in enumerate(pt.fields):      # a derived object bound to a base parameter: its base part
                    self.emit(ir.Store(ir.FieldRef(place, i, field.type),
                                       ir.Extract(self.load(ir.VarRef(tmp)), i, field.type), loc))
                continue
            self.emit(ir.Store(place, self.convert(self.load(ir.VarRef(tmp)), place.type, loc), loc))
        if query is not None:
            return ir.VarRef(query, loc)     # a place: rvalue() refuses it; local_var and method_call name it
        if result is None:
            return _VoidValue(loc)
        return self.load(ir.VarRef(result))

    def zero(self, t: ir.Type) -> ir.Expr:
        """The all-zero value of a type."""
        if isinstance(t, ir.Scalar):
            return ir.Const(t, False if t.kind == "bool" else 0.0 if t.is_float else 0)
        if isinstance(t, ir.Vector):
            zc = self.zero(t.elem)
            assert isinstance(zc, ir.Const)     # a scalar's zero is a constant
            z = zc.value
            return ir.Const(t, (z,) * t.size)
        if isinstance(t, ir.Matrix):
            return ir.Construct(t, [self.zero(ir.vec(t.elem, t.cols)) for _ in range(t.rows)])
        if isinstance(t, ir.Array):
            return ir.Construct(t, [self.zero(t.elem) for _ in range(t.size or 0)])
        if isinstance(t, ir.Struct):
            return ir.Construct(t, [self.zero(f.type) for f in t.fields])
        raise error(f"an 'out' parameter of type '{t}' is not supported")

    def check_writable(self, place: ir.Expr, a: ast.Expr) -> None:
        if isinstance(place, ir.SwizzleRef) and len(set(place.comps)) != len(place.comps):
            name = "".join("xyzw"[c] for c in place.comps)
            raise error(f"vector swizzle '{name}' has duplicate components and cannot be assigned", a.loc)
        unit = self.write_roots.get(id(place.var)) if isinstance(place, ir.VarRef) else None
        if unit is not None:        # a bit-field: writable when its unit is
            self.check_writable(unit, a)
            return
        entry = self.matrix_temps.get(id(place.var)) if isinstance(place, ir.VarRef) else None
        if entry is not None:       # an out argument `m._m00_m11`, read as a place: written back element-wise
            if not entry[1]:
                raise error("a matrix swizzle with duplicate components cannot be assigned", a.loc)
            self.check_writable(entry[1][0], a)
            self.scatter_temps[id(entry[0])] = (entry[0], scatter(entry[1]))
            return
        root = place
        while isinstance(root, (ir.FieldRef, ir.IndexRef, ir.SwizzleRef)):
            root = root.base
        if isinstance(root, ir.VarRef) and (root.var.const or root.var.storage is ir.Storage.UNIFORM):
            base = a
            while isinstance(base, (ast.Member, ast.Index)):
                base = base.base
            if (isinstance(base, ast.Name) and base.name != root.var.name
                    and root.var.storage is ir.Storage.UNIFORM):        # a cbuffer's member, named alone
                raise error(f"cannot assign to constant buffer member '{base.name}'", a.loc)
            what = "const-qualified" if root.var.const else "uniform"
            raise error(f"cannot assign to {what} variable '{root.var.name}'", a.loc)
        if isinstance(root, ir.BufferElem) and KINDS[root.resource.type.kind].access != "UAV":  # type: ignore[attr-defined]  # a BufferElem's resource has a Resource type
            raise error(f"cannot assign to an element of read-only resource type '{root.resource.type}'", a.loc)

    # ------------------------------------------------------------ intrinsics
    def check_stage(self, name: str, stages, min_sm, loc: SourceLoc) -> None:
        stage = self.profile.stage
        if stage == "library" and stages is not None and self.fn_info is not None:
            self.fn_info.stage_uses.append((name, stages, loc))    # checked per shader (sema/raytracing.py)
        elif stages is not None and stage not in stages:
            allowed = ", ".join(sorted(stages))
            self.stage_error(f"intrinsic '{name}' is not allowed in {stage} shaders (allowed in: {allowed})", loc)
        if (self.profile.major, self.profile.minor) < min_sm:
            self.stage_error(f"intrinsic '{name}' requires shader model {min_sm[0]}.{min_sm[1]} or higher", loc)
        if name in DERIVATIVES and stage in DERIVATIVE_STAGES:    # (other stages: the error above)
            self.derivative_stage(f"intrinsic '{name}'", loc)

    def derivative_stage(self, what: str, loc: SourceLoc) -> None:
        """Derivatives outside pixel shaders: compute, mesh and amplification shaders from SM 6.6 (their
        quads come from the thread indices; the backends check [numthreads])."""
        stage = self.profile.stage
        if stage == "library":      # checked per shader, as the intrinsics' stage limits are (sema/raytracing.py)
            if self.fn_info is not None:
                self.fn_info.stage_uses.append((what.rsplit(" ", 1)[-1].strip("'"), DERIVATIVE_STAGES, loc))
            return
        if stage not in DERIVATIVE_STAGES:
            self.stage_error(f"{what} computes derivatives and is not allowed in {stage} shaders (allowed in: "
                             f"{', '.join(sorted(DERIVATIVE_STAGES))})", loc)
        elif stage != "pixel" and (self.profile.major, self.profile.minor) < DERIVATIVE_SM:
            self.stage_error(f"{what} computes derivatives, which {stage} shaders allow from shader model "
                             f"{DERIVATIVE_SM[0]}.{DERIVATIVE_SM[1]}", loc)
        elif stage != "pixel" and self.fn_info is not None and self.fn_info.derivatives is None:
            self.fn_info.derivatives = loc

    def intrinsic_call(self, name: str, args: list[ast.Expr], loc: SourceLoc) -> ir.Expr:
        if name in SPECIAL:
            return getattr(self, "special_" + name.replace("Interlocked", "interlocked_"), self.special_interlocked)(name, args, loc)
        sigs = INTRINSICS[name]
        arity = [s for s in sigs if len(s.params) == len(args)]
        if not arity:
            counts = sorted({len(s.params) for s in sigs})
            raise error(f"no matching intrinsic for call to '{name}': expected {' or '.join(map(str, counts))} "
                        f"argument{'s' if counts != [1] else ''}, have {len(args)}", loc)
        sig = arity[0]
        self.check_stage(name, sig.stages, sig.min_sm, loc)
        return self.apply_sig(sig, args, loc)

    def apply_sig(self, sig: IntrinsicSig, args: list[ast.Expr], loc: SourceLoc) -> ir.Expr:
        values: list[ir.Expr | None] = []
        places: dict[int, ir.Expr] = {}     # the `out` arguments, in argument order with the others
        out, ends = self.out, []
        for i, (p, a) in enumerate(zip(sig.params, args)):
            if p == "O":
                if not self.is_place_expr(a):
                    raise error(f"cannot bind non-lvalue argument to out parameter of '{sig.name}'", a.loc)
                places[i] = self.place(a, for_write=True)
            values.append(None if p == "O" else self.rvalue(a))
            ends.append(len(out))
        if len(values) > 1 and ends[0] < len(out):      # read left to right (rvalues)
            held = [(v, e) for v, e in zip(values, ends) if v is not None]
            read = [v for v, _ in held]
            self.read_early(read, [False] * len(read), [e for _, e in held])
            it = iter(read)
            values = [None if v is None else next(it) for v in values]
        # unify generic parameters
        generic = [v for p, v in zip(sig.params, values) if p in ("T", "V", "S")]
        shape_t: ir.Type | None = None
        scalar: ir.Scalar | None = None
        for i, (p, v) in enumerate(zip(sig.params, values)):
            if p == "O" and ir.is_numeric(places[i].type):    # DXC: `out $type1` takes part in the template
                pt = places[i].type
                pt = ir.Vector(pt, 1) if isinstance(pt, ir.Scalar) and self._one_vector_arg(args[i]) else pt
                shape_t = self._intrinsic_shape(sig.name, shape_t, pt, args, i, loc)
            if p not in ("T", "V") or v is None:
                continue
            if not ir.is_numeric(v.type):
                raise error(f"invalid argument of type '{v.type}' to intrinsic '{sig.name}'", loc)
            if p == "V" and isinstance(v.type, ir.Matrix):      # DXC's numeric<c>: a vector template
                raise self.intrinsic_mismatch(sig.name, args, i, v.type, ir.Vector(v.type.elem, v.type.cols), loc)
            arg_t = ir.Vector(v.type, 1) if isinstance(v.type, ir.Scalar) and self._one_vector_arg(args[i]) else v.type
            shape_t = self._intrinsic_shape(sig.name, shape_t, arg_t, args, i, loc)
        if isinstance(shape_t, ir.Vector) and shape_t.size == 1:    # a `float1` template: our IR's scalar
            shape_t = shape_t.elem
        scalar_lit = False      # every argument unified so far is a literal (which adopts a later argument's type)
        for v in generic:
            if v is None or not ir.is_numeric(v.type):
                continue
            s = ir.scalar_of(v.type)
            lit = self.is_literal(v)
            if scalar is None:
                scalar, scalar_lit = s, lit
            else:
                scalar, scalar_lit = intrinsic_scalar(scalar, s, scalar_lit, lit), scalar_lit and lit
        for place in places.values():     # an out place's kind takes part too (modf(int, out half) is half)
            ps = ir.scalar_of(place.type)
            if scalar is not None and ps is not None:
                scalar, scalar_lit = intrinsic_scalar(scalar, ps, scalar_lit, False), False
        if shape_t is None and not generic:     # no generic parameter: the first allowed kind
            shape_t = scalar = KIND_SCALARS[sig.kinds[0]]
        if shape_t is None:
            shape_t = scalar or ir.FLOAT
        if scalar is None:
            scalar = ir.scalar_of(shape_t) or ir.FLOAT
        kinds = sig.kinds
        kind_key = {"float": "f", "int": "i", "uint": "u", "bool": "b"}[scalar.kind]
        if sig.name in STRICT_KINDS:        # DXC: a list ending in NOCAST refuses any other kind
            for i, (p, v) in enumerate(zip(sig.params, values)):
                if v is None or p not in ("T", "V"):
                    continue
                vs = ir.scalar_of(v.type)
                if vs is not None and vs.kind not in STRICT_KINDS[sig.name] and not (
                        self.is_literal(v) and vs.kind == "int"):
                    raise self.intrinsic_mismatch(sig.name, args, i, v.type, with_scalar(v.type, ir.UINT), loc)
        if kind_key not in kinds:
            fallback = {"f": ir.FLOAT, "i": ir.INT, "u": ir.UINT, "b": ir.BOOL}
            if kind_key == "b" and "i" in kinds and "f" not in kinds:
                scalar = ir.INT
            elif kind_key in "iub" and "f" in kinds:    # DXC: a kind not allowed takes the list's first (float)
                scalar = ir.FLOAT
            elif kind_key == "i" and "u" in kinds:
                scalar = ir.Scalar("uint", scalar.width)      # same width: countbits(int64_t) is 64-bit
            elif kind_key == "f" and kinds == "b":
                scalar = ir.BOOL
            elif kinds == "b" or "b" in kinds:
                scalar = ir.BOOL
            elif kind_key == "f" and sig.name in UINT32_ONLY:
                scalar = ir.UINT    # DXC: uint<> lists no NOCAST, so a float/half argument converts by value
            else:
                scalar = fallback[kinds[0]]     # DXC: the list's first (any_int<>: int, of a float argument too)
        if scalar == ir.DOUBLE and sig.name in FLOAT_LIKE:
            scalar = ir.FLOAT       # DXC: float_like<> has no double; the argument converts (with a warning)
        if scalar.kind == "float" and scalar.width != 32 and sig.name in FLOAT32_ONLY:
            scalar = ir.FLOAT       # DXC: float<> is 32-bit float only
        if scalar.kind != "float" and scalar.width != 32 and sig.name in UINT32_ONLY:
            scalar = ir.UINT        # DXC: uint<> is 32-bit uint only (f16tof32 of a uint16_t read from memory)
        ut = with_scalar(shape_t, scalar) if ir.is_numeric(shape_t) else shape_t
        conv: list[ir.Expr] = []
        exprs: list[ir.Expr] = values  # type: ignore[assignment]   # None only for 'O': not converted
        for p, a, v in zip(sig.params, args, exprs):
            if p in ("T", "V"):
                conv.append(self.convert(v, ut, a.loc))
            elif p == "S":
                self._scalar_arg(sig.name, args, a, v)
                conv.append(self.convert(v, scalar, a.loc))
            elif p == "u":
                self._scalar_arg(sig.name, args, a, v)         # DXC: `in uint`
                conv.append(self.convert(v, ir.UINT, a.loc))
            elif p == "u4":
                self._fixed_vector_arg(sig.name, args, args.index(a), v, ir.Vector(ir.UINT, 4), loc)   # uint<4>
                conv.append(self.convert(v, ir.Vector(ir.UINT, 4), a.loc))
            elif p == "b":
                self._scalar_arg(sig.name, args, a, v)         # DXC: `in bool cond`
                conv.append(self.convert(v, ir.BOOL, a.loc))
            elif p == "O":
                conv.append(places[len(conv)])
        for i, place in places.items():     # the result goes back to an out place: it may not be longer
            out_t = place.type
            if ir.is_numeric(out_t) and not isinstance(out_t, ir.Scalar) and shape_of(out_t)[1:] != shape_of(ut)[1:]:
                raise self.intrinsic_mismatch(sig.name, args, i, out_t, with_scalar(ut, ir.scalar_of(out_t) or scalar), loc)
        # out places of another type go through a temporary
        final: list[ir.Expr] = []
        writebacks = []
        for p, x in zip(sig.params, conv):
            if p == "O" and (x.type != ut or (isinstance(x, ir.VarRef) and id(x.var) in self.scatter_temps)):
                tmp = self.temp(ut)
                writebacks.append((x, tmp))
                final.append(ir.VarRef(tmp))
            else:
                final.append(x)
        if sig.name in OWN_RESULT_TEMPLATE and isinstance(ut, ir.Matrix) and ut.rows == 1:
            ut = ir.vec(ut.elem, ut.cols)        # DXC: the result is a vector (a scalar) of the row
            final = [ir.Extract(final[0], 0, ut)]
        rt = self.intrinsic_return(sig.ret, ut, scalar)
        if sig.name in BY_ROWS and isinstance(ut, ir.Matrix) and isinstance(rt, ir.Matrix):
            return self._by_rows(sig.name, final, ut, rt, loc)
        node = ir.Intrinsic(sig.name, final, rt)
        if sig.side_effects or writebacks or any(p == "O" for p in sig.params):
            res: ir.Expr
            if isinstance(rt, ir.VoidType):
                self.emit(ir.Eval(node, loc))
                res = _VoidValue(loc)
            else:
                tmp = self.temp(rt)
                self.emit(ir.Store(ir.VarRef(tmp), node, loc))
                res = self.load(ir.VarRef(tmp))
            for place, tmp in writebacks:
                self.emit(ir.Store(place, self.convert(self.load(ir.VarRef(tmp)), place.type, loc), loc))
            return res
        return node

    def _by_rows(self, name: str, ms: list[ir.Expr], t: ir.Matrix, rt: ir.Matrix, loc: SourceLoc) -> ir.Expr:
        """The intrinsic on each row of its matrix arguments (the backends lower it on scalars and vectors)."""
        held = []
        for m in ms:
            held.append(self.temp(t))
            self.emit(ir.Store(ir.VarRef(held[-1]), m, loc))
        row_t, row_rt = ir.vec(t.elem, t.cols), ir.vec(rt.elem, rt.cols)
        return ir.Construct(rt, [ir.Intrinsic(name, [ir.Extract(self.load(ir.VarRef(h)), i, row_t) for h in held],
                                              row_rt) for i in range(t.rows)])

    def _intrinsic_shape(self, name: str, a: ir.Type | None, b: ir.Type, args: list[ast.Expr], i: int,
                         loc: SourceLoc) -> ir.Type:
        """DXC's unification of one template (SemaHLSL.cpp, MatchArguments): a scalar takes the other's
        shape; the first vector or matrix fixes the kind and an argument of the other kind matches no
        overload (a `float1x3` is a matrix, a `float1` a vector); sizes truncate to the smallest (rows
        and columns each their minimum, a vector being one row)."""
        if a is None or isinstance(b, ir.Scalar):
            return b if a is None else a
        if isinstance(a, ir.Scalar):
            return b
        if isinstance(a, ir.Matrix) != isinstance(b, ir.Matrix):
            elem = ir.scalar_of(b)
            assert elem is not None     # numeric: checked by the caller
            want: ir.Type = a
            if isinstance(a, ir.Vector) and isinstance(b, ir.Matrix):
                want = ir.Vector(elem, min(a.size, b.cols))
            elif isinstance(a, ir.Matrix) and isinstance(b, ir.Vector):
                want = ir.Matrix(elem, 1, min(a.cols, b.size))
            raise self.intrinsic_mismatch(name, args, i, b, want, loc)
        # convert() warns "implicit truncation" at each argument it truncates
        if isinstance(a, ir.Vector) and isinstance(b, ir.Vector) and b.size < a.size:
            return b
        if isinstance(a, ir.Matrix) and isinstance(b, ir.Matrix) and (a.rows, a.cols) != (b.rows, b.cols):
            return ir.Matrix(a.elem, min(a.rows, b.rows), min(a.cols, b.cols))
        return a

    def _one_vector_arg(self, a: ast.Expr) -> bool:
        """Whether an argument our IR types as a scalar is a one-component vector in DXC, which takes part in
        an intrinsic's template as a vector (`max(float1, float4)` is a `float1`): a variable declared
        `float1`, `float1(...)`, `(float1)x`.  (Other expressions of such values are scalars here.)"""
        if isinstance(a, ast.Name):
            sym = self.scope.lookup(a.name)
            return isinstance(sym, VarSymbol) and id(sym.var) in self.one_vector_elements
        from .lower import _ONE_VECTOR

        if isinstance(a, ast.CallExpr) and isinstance(a.callee, ast.TypeRef):
            return a.callee.name in _ONE_VECTOR and not a.callee.args
        return isinstance(a, ast.Cast) and not a.dims and a.type.name in _ONE_VECTOR

    @staticmethod
    def intrinsic_mismatch(name: str, args: list[ast.Expr], i: int, got: ir.Type, want: ir.Type,
                           loc: SourceLoc) -> CompileError:
        """DXC's error when no overload of an intrinsic matches, with its note naming the argument."""
        nth = i + 1
        suffix = "th" if 10 <= nth % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(nth % 10, "th")
        return error(f"no matching function for call to '{name}'", loc, [Diagnostic(
            "note", f"candidate function not viable: no known conversion from '{got}' to '{want}' for "
                    f"{nth}{suffix} argument", args[i].loc)])

    @staticmethod
    def intrinsic_return(pattern: str, ut: ir.Type, scalar: ir.Scalar) -> ir.Type:
        if pattern in ("T", "V"):
            return ut
        if pattern == "S":
            return scalar
        if pattern == "B":
            return with_scalar(ut, ir.BOOL)
        if pattern == "U":
            return with_scalar(ut, ir.UINT)
        if pattern == "I":
            return with_scalar(ut, ir.INT)
        if pattern == "F":
            return with_scalar(ut, ir.FLOAT)
        if pattern == "b":
            return ir.BOOL
        if pattern == "u":
            return ir.UINT
        if pattern == "u4":
            return ir.Vector(ir.UINT, 4)
        fixed = _FIXED_RETURNS.get(pattern)
        return fixed if fixed is not None else ir.VOID

    def _numeric_args(self, name, args, count, loc) -> list[ir.Expr]:
        if len(args) != count:
            raise error(f"no matching intrinsic for call to '{name}': expected {count} argument"
                        f"{'s' if count != 1 else ''}, have {len(args)}", loc)
        vals = self.rvalues(args)
        for a, v in zip(args, vals):
            if not ir.is_numeric(v.type):
                raise error(f"invalid argument of type '{v.type}' to intrinsic '{name}'", a.loc)
        return vals

    def special_mul(self, name, args, loc) -> ir.Expr:
        a, b = self._numeric_args(name, args, 2, loc)
        assert ir.is_numeric(a.type) and ir.is_numeric(b.type)     # _numeric_args checked
        s = intrinsic_scalar(ir.scalar_of(a.type), ir.scalar_of(b.type), self.is_literal(a), self.is_literal(b))
        if s.kind == "bool":
            s = ir.FLOAT        # DXC: a kind outside `numeric` takes the list's first
        # a float1 (our IR's scalar) takes mul's vector overloads, as in DXC
        sa, sb = (("v", 1) if shape_of(v.type) == ("s",) and self._one_vector_arg(x) else shape_of(v.type)
                  for v, x in zip((a, b), args))
        a = self.convert(a, with_scalar(a.type, s), loc)
        b = self.convert(b, with_scalar(b.type, s), loc)
        if sa[0] == "v" and sb[0] == "v" and min(sa[1], sb[1]) == 1:
            return ir.Binary("mul", self.convert(a, s, loc), self.convert(b, s, loc), s)
        if sa[0] == "s" or sb[0] == "s":
            t = b.type if sa[0] == "s" else a.type
            return ir.Binary("mul", self.convert(a, t, loc), self.convert(b, t, loc), t)
        if sa[0] == "v" and sb[0] == "v":
            n = min(sa[1], sb[1])
            return ir.Intrinsic("dot", [self.convert(a, ir.Vector(s, n), loc), self.convert(b, ir.Vector(s, n), loc)], s)
        # DXC's mul_vm/mul_mv/mul_mm share the inner size `c` (gen_intrin_main.txt): the longer side truncates
        # to the shorter one, as any intrinsic template (convert() warns at the truncated argument)
        if sa[0] == "v" and sb[0] == "m":
            n = min(sa[1], sb[1])
            a, b = self.convert(a, ir.vec(s, n), args[0].loc), self.convert(b, ir.Matrix(s, n, sb[2]), args[1].loc)
            return ir.Intrinsic("mul", [a, b], ir.vec(s, sb[2]))
        if sa[0] == "m" and sb[0] == "v":
            n = min(sa[2], sb[1])
            a, b = self.convert(a, ir.Matrix(s, sa[1], n), args[0].loc), self.convert(b, ir.vec(s, n), args[1].loc)
            return ir.Intrinsic("mul", [a, b], ir.vec(s, sa[1]))
        n = min(sa[2], sb[1])
        a, b = self.convert(a, ir.Matrix(s, sa[1], n), args[0].loc), self.convert(b, ir.Matrix(s, n, sb[2]), args[1].loc)
        return ir.Intrinsic("mul", [a, b], ir.Matrix(s, sa[1], sb[2]))

    def special_cross(self, name, args, loc) -> ir.Expr:
        vals = self._numeric_args(name, args, 2, loc)
        a, b = (ir.scalar_of(v.type) for v in vals)
        assert a is not None and b is not None      # _numeric_args checked
        t = ir.Vector(ir.HALF if intrinsic_scalar(a, b, *map(self.is_literal, vals)) == ir.HALF else ir.FLOAT, 3)
        for i, v in enumerate(vals):       # float_like<3>: 3 or more components, or a scalar to splat
            self._fixed_vector_arg(name, args, i, v, t, loc)
        return ir.Intrinsic("cross", [self.convert(v, t, a.loc) for v, a in zip(vals, args)], t)

    def _fixed_vector_arg(self, name: str, args: list[ast.Expr], i: int, v: ir.Expr, want: ir.Vector,
                          loc: SourceLoc) -> None:
        """A parameter of a fixed vector size in DXC's table (`float<3>`, `numeric<4>`): a vector of at least
        that size (truncated) or a scalar (splatted); a matrix or a shorter vector matches no overload."""
        if isinstance(v.type, ir.Matrix) or isinstance(v.type, ir.Vector) and v.type.size < want.size:
            raise self.intrinsic_mismatch(name, args, i, v.type, want, loc)
        if isinstance(v.type, ir.Scalar) and self._one_vector_arg(args[i]):    # a float1: one component
            raise self.intrinsic_mismatch(name, args, i, ir.Vector(v.type, 1), want, loc)

    def special_transpose(self, name, args, loc) -> ir.Expr:
        (m,) = self._numeric_args(name, args, 1, loc)
        if isinstance(m.type, ir.Scalar) and not self._one_vector_arg(args[0]):     # DXC: a 1x1 matrix
            return self.convert(m, ir.Matrix(m.type, 1, 1), loc)
        if not isinstance(m.type, ir.Matrix):
            raise error("transpose requires a matrix argument", loc)
        return ir.Intrinsic("transpose", [m], ir.Matrix(m.type.elem, m.type.cols, m.type.rows))

    def special_determinant(self, name, args, loc) -> ir.Expr:
        """DXC's `float_like<r, r>`: a scalar is a 1x1 matrix, a longer side truncates to the shorter;
        half stays half, any other kind converts to float."""
        (m,) = self._numeric_args(name, args, 1, loc)
        s = ir.HALF if ir.scalar_of(m.type) == ir.HALF else ir.FLOAT
        if isinstance(m.type, ir.Scalar) and not self._one_vector_arg(args[0]):
            return self.convert(m, s, loc)
        if not isinstance(m.type, ir.Matrix):
            raise error("determinant requires a square matrix argument", loc)
        n = min(m.type.rows, m.type.cols)
        m = self.convert(m, ir.Matrix(s, n, n), args[0].loc)
        return ir.Intrinsic("determinant", [m], s)

    def _bitcast(self, name, args, loc, to: ir.Scalar) -> ir.Expr:
        (v,) = self._numeric_args(name, args, 1, loc)
        assert ir.is_numeric(v.type)        # _numeric_args checked
        s = ir.scalar_of(v.type)
        if s.width != to.width or s.kind == "bool":
            raise error(f"'{name}' cannot reinterpret a value of type '{v.type}'", loc)
        return ir.Bitcast(v, with_scalar(v.type, to)) if s != to else v

    def special_asuint(self, name, args, loc):
        if len(args) == 3:      # asuint(double value, out uint lowbits, out uint highbits)
            d = self.convert(self.rvalue(args[0]), ir.DOUBLE, args[0].loc)
            halves = self.stable(ir.Bitcast(d, ir.Vector(ir.UINT, 2)))
            for i, a in enumerate(args[1:]):
                if not self.is_place_expr(a):
                    raise error(f"cannot bind non-lvalue argument to out parameter of '{name}'", a.loc)
                p = self.place(a, for_write=True)
                self.check_writable(p, a)
                self.emit(ir.Store(p, self.convert(ir.Extract(halves, i, ir.UINT), p.type, a.loc), loc))
            return _VoidValue(loc)
        return self._bitcast(name, args, loc, ir.UINT)

    def special_asint(self, name, args, loc):
        return self._bitcast(name, args, loc, ir.INT)

    def special_asfloat(self, name, args, loc):
        return self._bitcast(name, args, loc, ir.FLOAT)

    def special_as16(self, name, args, loc):
        """asfloat16 / asint16 / asuint16 (SM 6.2, -enable-16bit-types): the bits of a 16-bit value."""
        self.check_stage(name, None, (6, 2), loc)
        spelling = {"asfloat16": "float16_t", "asint16": "int16_t", "asuint16": "uint16_t"}[name]
        to = self.types.resolve(ast.TypeRef(loc, spelling))      # (refused without 16-bit types)
        assert isinstance(to, ir.Scalar)
        return self._bitcast(name, args, loc, to)

    special_asfloat16 = special_asint16 = special_asuint16 = special_as16

    def special_asdouble(self, name, args, loc):
        """DXC's `double<> asdouble(uint<> lo, uint<> hi)`: both share one template (truncating to the
        shorter), each converts to uint; a vector gives a double vector."""
        lo, hi = self._numeric_args(name, args, 2, loc)
        shape: ir.Type | None = None
        for i, v in enumerate((lo, hi)):
            t = ir.Vector(v.type, 1) if isinstance(v.type, ir.Scalar) and self._one_vector_arg(args[i]) else v.type
            shape = self._intrinsic_shape(name, shape, t, args, i, loc)
        assert shape is not None
        ut = with_scalar(shape, ir.UINT)
        ut = ut.elem if isinstance(ut, ir.Vector) and ut.size == 1 else ut
        lo, hi = self.convert(lo, ut, args[0].loc), self.convert(hi, ut, args[1].loc)
        if isinstance(ut, ir.Scalar):
            return ir.Intrinsic("asdouble", [lo, hi], ir.DOUBLE)
        held = []           # the backends take scalars: component by component
        for v in (lo, hi):
            held.append(self.temp(ut))
            self.emit(ir.Store(ir.VarRef(held[-1]), v, loc))

        def at(h: ir.Variable, i: int, j: int) -> ir.Expr:       # component i of a vector, (i, j) of a matrix
            x = self.load(ir.VarRef(h))
            if isinstance(ut, ir.Vector):
                return ir.Extract(x, i, ir.UINT)
            assert isinstance(ut, ir.Matrix)
            x = ir.Extract(x, i, ir.vec(ir.UINT, ut.cols))
            return x if ut.cols == 1 else ir.Extract(x, j, ir.UINT)

        def one(i: int, j: int = 0) -> ir.Expr:
            return ir.Intrinsic("asdouble", [at(h, i, j) for h in held], ir.DOUBLE)

        rt = with_scalar(ut, ir.DOUBLE)
        if isinstance(ut, ir.Vector):
            return ir.Construct(rt, [one(j) for j in range(ut.size)])
        assert isinstance(ut, ir.Matrix)
        rows = [[one(i, j) for j in range(ut.cols)] for i in range(ut.rows)]
        return ir.Construct(rt, [r[0] if ut.cols == 1 else ir.Construct(ir.Vector(ir.DOUBLE, ut.cols), r) for r in rows])

    def special_select(self, name, args, loc):
        """DXC's `$type2 select(bool<> cond, $match<1, 2> any<> t, $type2 f)`: the condition and the true value
        share one template (a vector and a matrix never meet there), the false value has its own and decides
        the result's kind; the rows and columns are the least over the three (truncation); the values' kinds
        combine, the condition converts to bool."""
        vals = self._numeric_args(name, args, 3, loc)
        kinds: dict[int, str] = {}
        rows = cols = 5
        for i, (slot, v, a) in enumerate(zip((1, 1, 2), vals, args)):
            one = isinstance(v.type, ir.Scalar) and self._one_vector_arg(a)
            kind, (r, c) = ("v", (1, 1)) if one else {"s": ("s", (5, 5)), "v": ("v", (1, shape_of(v.type)[-1])),
                                                      "m": ("m", shape_of(v.type)[1:])}[shape_of(v.type)[0]]
            have = kinds.get(slot)
            if have not in (None, "s") and kind not in ("s", have):
                want = ir.Vector(ir.scalar_of(v.type), min(cols, c)) if have == "v" else \
                    ir.Matrix(ir.scalar_of(v.type), 1, min(cols, c))
                raise self.intrinsic_mismatch(name, args, i, ir.Vector(v.type, 1) if one else v.type, want, loc)
            if have in (None, "s"):
                kinds[slot] = kind
            rows, cols = min(rows, r), min(cols, c)
        rows, cols = (1 if rows == 5 else rows), (1 if cols == 5 else cols)

        def shaped(kind: str, elem: ir.Scalar) -> ir.Type:       # DXC's NewSimpleAggregateType
            if kind == "m":
                return ir.Matrix(elem, rows, cols)
            return ir.vec(elem, cols) if kind == "v" or rows == 1 else ir.Matrix(elem, rows, cols)

        c, a, b = vals
        sa, sb = ir.scalar_of(a.type), ir.scalar_of(b.type)
        assert sa is not None and sb is not None     # _numeric_args checked
        s = intrinsic_scalar(sa, sb, self.is_literal(a), self.is_literal(b))
        rt = shaped(kinds[2], s)
        c = self.convert(self.convert(c, shaped(kinds[1], ir.BOOL), args[0].loc), with_scalar(rt, ir.BOOL), loc)
        a = self.convert(self.convert(a, shaped(kinds[1], s), args[1].loc), rt, loc)
        b = self.convert(b, rt, args[2].loc)
        if isinstance(rt, ir.Matrix):       # a Select on a matrix takes one condition: row by row
            held = [self.temp(x.type) for x in (c, a, b)]
            for h, x in zip(held, (c, a, b)):
                self.emit(ir.Store(ir.VarRef(h), x, loc))
            rows_of = [[ir.Extract(self.load(ir.VarRef(h)), i, ir.vec(ir.scalar_of(h.type), rt.cols))
                        for i in range(rt.rows)] for h in held]
            return ir.Construct(rt, [self.select(rc, ra, rb, loc) for rc, ra, rb in zip(*rows_of)])
        return self.select(c, a, b, loc, rt)

    def _scalar_arg(self, name: str, args: list[ast.Expr], a: ast.Expr, v: ir.Expr) -> None:
        """A scalar parameter takes no vector or matrix (DXC matches no overload; it does not truncate), nor
        a float1 (a one-component vector in DXC)."""
        one = ir.Vector(v.type, 1) if isinstance(v.type, ir.Scalar) and self._one_vector_arg(a) else None
        if ir.component_count(v.type) > 1 or one or isinstance(v.type, ir.Matrix):
            raise error(f"no matching intrinsic for call to '{name}': argument {args.index(a) + 1} must be a scalar, "
                        f"not '{one or v.type}'", a.loc)

    def special_lit(self, name, args, loc):
        vals = self._numeric_args(name, args, 3, loc)
        for v, a in zip(vals, args):        # float4 lit(float n_dot_l, float n_dot_h, float m)
            self._scalar_arg(name, args, a, v)
        half = self._combined_scalar(vals) == ir.HALF       # float_like: DXC's result is a half4 of halves
        vals = [self.convert(v, ir.FLOAT, loc) for v in vals]
        res = ir.Intrinsic("lit", vals, ir.Vector(ir.FLOAT, 4))
        return self.convert(res, ir.Vector(ir.HALF, 4), loc) if half else res

    def _combined_scalar(self, vals: list[ir.Expr]) -> ir.Scalar:
        """The component type the arguments of one template share (intrinsic_scalar, left to right)."""
        s: ir.Scalar | None = None
        lit = False
        for v in vals:
            vs = ir.scalar_of(v.type)
            assert vs is not None       # numeric: checked by the caller
            s, lit = (vs, self.is_literal(v)) if s is None else (intrinsic_scalar(s, vs, lit, self.is_literal(v)),
                                                                 lit and self.is_literal(v))
        assert s is not None
        return s

    def special_EvaluateAttributeSnapped(self, name, args, loc):  # noqa: N802 - the HLSL spelling
        """EvaluateAttributeSnapped(attribute, int2 offset): the offset in 1/16 pixels (from -8 to 7)."""
        if len(args) != 2:
            raise error(f"no matching intrinsic for call to '{name}': expected 2 arguments, have {len(args)}", loc)
        self.check_stage(name, frozenset({"pixel"}), (6, 0), loc)
        value = self.rvalue(args[0])
        if ir.scalar_of(value.type) is None or not ir.scalar_of(value.type).is_float:
            raise error(f"'{name}' needs a float pixel shader input, not '{value.type}'", args[0].loc)
        offset = self.convert(self.rvalue(args[1]), ir.Vector(ir.INT, 2), args[1].loc)
        return ir.Intrinsic(name, [value, offset], value.type)

    def special_fma(self, name, args, loc):
        """fma is defined for double only: a *fused* multiply-add (DXIL Fma, not mad's FMad)."""
        vals = self._numeric_args(name, args, 3, loc)
        shape = next((v.type for v in vals if not isinstance(v.type, ir.Scalar)), ir.DOUBLE)
        t = with_scalar(shape, ir.DOUBLE)
        for i, v in enumerate(vals):        # DXC's double_only<> (NOCAST): the first other argument is named
            if ir.scalar_of(v.type) != ir.DOUBLE and not self.is_literal(v):
                raise error("fma requires double arguments", loc, [Diagnostic(
                    "note", f"argument {i + 1} has type '{v.type}'", args[i].loc)])
        return ir.Intrinsic("fma", [self.convert(v, t, a.loc) for v, a in zip(vals, args)], t)

    def special_printf(self, name, args, loc) -> ir.Expr:
        """`printf("format", args...)`: the format is a Const whose value is the string (type: an array of its
        bytes), then the arguments: numeric scalars and vectors (bools as uint).  SPIR-V emits
        NonSemantic.DebugPrintf, DXIL drops the call (as DXC does for both)."""
        fmt = args[0] if args else None
        if isinstance(fmt, ast.Name) and isinstance(sym := self.scope.lookup(fmt.name), StringSymbol) \
                and sym.value is not None:
            raw = sym.value         # a global `string s = "...";`
        elif isinstance(fmt, ast.StringLit):
            raw = fmt.value
        else:
            raise error("the first argument of 'printf' must be a string literal or a global string",
                        fmt.loc if fmt is not None else loc)
        text = _unescape(raw)
        parts: list[ir.Expr] = [ir.Const(ir.Array(ir.UINT, len(text.encode())), text)]
        for a in args[1:]:
            v = self.rvalue(a)
            if not isinstance(v.type, (ir.Scalar, ir.Vector)):
                raise error(f"a 'printf' argument must be a scalar or vector, not '{v.type}'", a.loc)
            if ir.scalar_of(v.type).kind == "bool":
                v = self.convert(v, with_scalar(v.type, ir.UINT), a.loc)
            parts.append(v)
        self.emit(ir.Eval(ir.Intrinsic("printf", parts, ir.VOID), loc))
        return _VoidValue(loc)

    def special_dst(self, name, args, loc):
        """DXC's `$type1 dst(numeric<4> a, $type1 b)`: the two kinds combine (a bool pair is float);
        expanded by passes/polyfill.py."""
        vals = self._numeric_args(name, args, 2, loc)
        s = self._combined_scalar(vals)
        f4 = ir.Vector(ir.FLOAT if s == ir.BOOL else s, 4)
        for i, v in enumerate(vals):       # DXC: dst(numeric<4>, ...): a vector, not a matrix
            self._fixed_vector_arg(name, args, i, v, f4, loc)
        vals = [self.convert(v, f4, x.loc) for v, x in zip(vals, args)]
        return ir.Intrinsic("dst", vals, f4)

    def special_D3DCOLORtoUBYTE4(self, name, args, loc):  # noqa: N802 - the HLSL spelling
        """int4 D3DCOLORtoUBYTE4(float4): expanded by passes/polyfill.py."""
        (v,) = self._numeric_args(name, args, 1, loc)
        self._fixed_vector_arg(name, args, 0, v, ir.Vector(ir.FLOAT, 4), loc)
        return ir.Intrinsic(name, [self.convert(v, ir.Vector(ir.FLOAT, 4), loc)], ir.Vector(ir.INT, 4))

    def special_msad4(self, name, args, loc):
        """uint4 msad4(uint reference, uint2 source, uint4 accum): expanded by passes/polyfill.py."""
        u4 = ir.Vector(ir.UINT, 4)
        wants = (ir.UINT, ir.Vector(ir.UINT, 2), u4)
        vals = self._numeric_args(name, args, 3, loc)
        self._scalar_arg(name, args, args[0], vals[0])
        self._fixed_vector_arg(name, args, 1, vals[1], ir.Vector(ir.UINT, 2), loc)
        self._fixed_vector_arg(name, args, 2, vals[2], u4, loc)
        vals = [self.convert(v, t, a.loc) for v, t, a in zip(vals, wants, args)]
        return ir.Intrinsic(name, vals, u4)

    def special_packed_dot(self, name, args, loc):
        """uint dot4add_u8packed(uint, uint, uint), int dot4add_i8packed(uint, uint, int) and
        float dot2add(half2, half2, float) (SM 6.4): expanded by passes/polyfill.py."""
        self.check_stage(name, None, (6, 4), loc)
        vals = self._numeric_args(name, args, 3, loc)
        if name == "dot2add":
            h2 = ir.Vector(self.types.resolve(ast.TypeRef(loc, "half")), 2)    # 32-bit without 16-bit types
            for i in (0, 1):
                self._fixed_vector_arg(name, args, i, vals[i], h2, loc)
            self._scalar_arg(name, args, args[2], vals[2])
            wants: tuple[ir.Type, ...] = (h2, h2, ir.FLOAT)
        else:
            for a, v in zip(args, vals):
                self._scalar_arg(name, args, a, v)
            wants = (ir.UINT, ir.UINT, ir.INT if name == "dot4add_i8packed" else ir.UINT)
        vals = [self.convert(v, t, a.loc) for v, t, a in zip(vals, wants, args)]
        return ir.Intrinsic(name, vals, wants[2])

    special_dot4add_u8packed = special_dot4add_i8packed = special_dot2add = special_packed_dot

    def special_pack_bytes(self, name, args, loc):
        """pack_u8 / pack_s8 (a 4-vector of 32- or 16-bit integers) and pack_clamp_u8 / pack_clamp_s8 (of
        signed ones) (SM 6.6): a uint holding four bytes; expanded by passes/polyfill.py."""
        self.check_stage(name, None, (6, 6), loc)
        (v,) = self._numeric_args(name, args, 1, loc)
        s = ir.scalar_of(v.type)
        ok_kinds = ("int",) if name.startswith("pack_clamp") else ("int", "uint")
        if not (isinstance(v.type, ir.Vector) and v.type.size == 4 and s is not None and s.kind in ok_kinds
                and s.width in (16, 32)):
            want = "int4 or int16_t4" if len(ok_kinds) == 1 else "a 4-vector of 32- or 16-bit integers"
            raise error(f"no matching intrinsic for call to '{name}': the argument must be {want}, "
                        f"not '{v.type}'", args[0].loc)
        return ir.Intrinsic(name, [v], ir.UINT)

    special_pack_u8 = special_pack_s8 = special_pack_clamp_u8 = special_pack_clamp_s8 = special_pack_bytes

    def special_unpack_bytes(self, name, args, loc):
        """unpack_u8u32 / unpack_s8s32 (uint4 / int4) and unpack_u8u16 / unpack_s8s16 (16-bit, needs
        -enable-16bit-types) of a packed uint (SM 6.6); expanded by passes/polyfill.py."""
        self.check_stage(name, None, (6, 6), loc)
        (v,) = self._numeric_args(name, args, 1, loc)
        self._scalar_arg(name, args, args[0], v)
        signed = name.startswith("unpack_s")
        elem = self.types.resolve(ast.TypeRef(loc, ("int" if signed else "uint") + ("16_t" if name.endswith("16") else "")))
        return ir.Intrinsic(name, [self.convert(v, ir.UINT, args[0].loc)], ir.Vector(elem, 4))

    special_unpack_u8u32 = special_unpack_s8s32 = special_unpack_u8u16 = special_unpack_s8s16 = special_unpack_bytes

    def special_DispatchMesh(self, name, args, loc):  # noqa: N802 - the HLSL spelling
        """DispatchMesh(x, y, z, payload): the payload is a groupshared struct variable, passed as
        itself (the mesh shaders read it), not as a value."""
        self.check_stage(name, frozenset({"amplification"}), (6, 5), loc)
        if len(args) != 4:
            raise error(f"no matching intrinsic for call to '{name}': expected 4 arguments, have {len(args)}", loc)
        counts = [self.convert(self.rvalue(a), ir.UINT, a.loc) for a in args[:3]]
        payload = self.place(args[3], for_write=False) if self.is_place_expr(args[3]) else None
        if not (isinstance(payload, ir.VarRef) and payload.var.storage is ir.Storage.WORKGROUP
                and isinstance(payload.type, ir.Struct)):
            raise error(f"the payload argument of '{name}' must be a groupshared struct variable", args[3].loc)
        self.emit(ir.Eval(ir.Intrinsic(name, [*counts, payload], ir.VOID), loc))
        return _VoidValue(loc)

    def special_interlocked(self, name, args, loc):
        dest, root = self._atomic_destination(name, args, loc)
        float_exchange = name == "InterlockedExchange" and dest.type == ir.FLOAT   # SM 6.6's float overload
        if not (isinstance(dest.type, ir.Scalar) and dest.type.is_int) and not float_exchange:
            raise error(f"'{name}' requires an int or uint destination, not '{dest.type}'", args[0].loc)
        if isinstance(dest.type, ir.Scalar) and dest.type.width == 16:   # DXC: int32_only / int64_only overloads
            raise error(f"no matching intrinsic for call to '{name}': the destination must be a 32- or 64-bit int or "
                        f"uint, not '{dest.type}'", args[0].loc)
        var_of = root
        while isinstance(var_of, (ir.BufferElem, ir.IndexRef)):
            var_of = var_of.resource if isinstance(var_of, ir.BufferElem) else var_of.base
        written = self.one_vector_elements.get(id(var_of.var)) if isinstance(var_of, ir.VarRef) else None
        if written is not None and not isinstance(dest, (ir.FieldRef, ir.SwizzleRef)):
            raise error(f"no matching intrinsic for call to '{name}': the destination is a '{written}', not a scalar "
                        f"int or uint", args[0].loc)
        t = dest.type
        n_values = 2 if name in ("InterlockedCompareExchange", "InterlockedCompareStore") else 1
        has_out = name != "InterlockedCompareStore"
        if len(args) not in (1 + n_values, 1 + n_values + (1 if has_out else 0)):
            raise error(f"no matching intrinsic for call to '{name}'", loc)
        if name in ("InterlockedCompareExchange", "InterlockedExchange") and len(args) != 2 + n_values:
            # (DXC's table: both return the original value through a parameter that is not optional)
            raise error(f"'{name}' requires an out argument for the original value", loc)
        operands = [dest] + [self.convert(self.rvalue(a), t, a.loc) for a in args[1: 1 + n_values]]
        return self.emit_atomic(name, operands, t, args[1 + n_values:], loc)

    def special_interlocked_CompareStoreFloatBitwise(self, name, args, loc):
        return self._float_bitwise_call(name, args, loc)

    def special_interlocked_CompareExchangeFloatBitwise(self, name, args, loc):
        return self._float_bitwise_call(name, args, loc)

    def _float_bitwise_call(self, name: str, args: list[ast.Expr], loc: SourceLoc) -> ir.Expr:
        """Interlocked*FloatBitwise(inout float dest, float compare, float value[, out float original])."""
        n = 4 if name == "InterlockedCompareExchangeFloatBitwise" else 3
        if len(args) != n:
            raise error(f"no matching intrinsic for call to '{name}': expected {n} arguments, have {len(args)}", loc)
        dest, _root = self._atomic_destination(name, args, loc)
        if dest.type != ir.FLOAT:
            raise error(f"'{name}' requires a float destination, not '{dest.type}'", args[0].loc)
        return self.float_bitwise_atomic(name, [dest], args[1:], loc)

    def _atomic_destination(self, name: str, args: list[ast.Expr], loc: SourceLoc) -> tuple[ir.Expr, ir.Expr]:
        """An Interlocked* call's destination place and the variable or buffer element it is part of:
        only a buffer element or a groupshared variable."""
        if not args or not self.is_place_expr(args[0]):
            raise error(f"the first argument of '{name}' must be a buffer element or groupshared variable", loc)
        dest = self.place(args[0], for_write=True)
        root = dest
        while isinstance(root, (ir.FieldRef, ir.IndexRef, ir.SwizzleRef)):
            root = root.base
        if isinstance(root, ir.VarRef) and root.var.storage not in (ir.Storage.WORKGROUP,):
            raise error(f"the first argument of '{name}' must be a buffer element or groupshared variable", args[0].loc)
        return dest, root

    def float_bitwise_atomic(self, name: str, operands: list[ir.Expr], args: list[ast.Expr],
                             loc: SourceLoc) -> ir.Expr:
        """The uint compare form on the bits: (compare, value[, out original]) as floats; the original
        value comes back as the float with its bits (asfloat), never converted."""
        bits = [ir.Bitcast(self.convert(self.rvalue(a), ir.FLOAT, a.loc), ir.UINT) for a in args[:2]]
        uint_name = "InterlockedCompareExchange" if name.startswith("InterlockedCompareExchange") \
            else "InterlockedCompareStore"
        out_place = None
        if len(args) > 2:
            if not self.is_place_expr(args[2]):
                raise error(f"cannot bind non-lvalue argument to out parameter of '{name}'", args[2].loc)
            out_place = self.place(args[2], for_write=True)
            if out_place.type != ir.FLOAT:
                raise error(f"the original value of '{name}' is a float, not '{out_place.type}'", args[2].loc)
        tmp = self.temp(ir.UINT)
        self.emit(ir.Store(ir.VarRef(tmp), ir.Intrinsic(uint_name, [*operands, *bits], ir.UINT), loc))
        if out_place is not None:
            self.emit(ir.Store(out_place, ir.Bitcast(self.load(ir.VarRef(tmp)), ir.FLOAT), loc))
        return _VoidValue(loc)

    def emit_atomic(self, name: str, operands: list[ir.Expr], t: ir.Type, out_args: list, loc: SourceLoc) -> ir.Expr:
        """Evaluate an Interlocked* intrinsic once; its result (the original value) goes to the
        optional out argument `out_args[0]`.  Shared by buffer/groupshared and byte-address atomics."""
        out_place = None
        if out_args:
            oa = out_args[0]
            if not self.is_place_expr(oa):
                raise error(f"cannot bind non-lvalue argument to out parameter of '{name}'", oa.loc)
            out_place = self.place(oa, for_write=True)
        tmp = self.temp(t)
        self.emit(ir.Store(ir.VarRef(tmp), ir.Intrinsic(name, operands, t), loc))
        if out_place is not None:
            self.emit(ir.Store(out_place, self.convert(self.load(ir.VarRef(tmp)), out_place.type, loc), loc))
        return _VoidValue(loc)

    # ------------------------------------------------------------ methods
    def method_call(self, callee: ast.Member, args: list[ast.Expr], loc: SourceLoc) -> ir.Expr:
        base_ast = callee.base
        if self.is_place_expr(base_ast):
            base = self.place(base_ast, for_write=False)
        else:
            # (a call returning a RayQuery gives the caller's temporary query, not a value rvalue() would take)
            v = self.call(base_ast) if isinstance(base_ast, ast.CallExpr) else self.rvalue(base_ast)
            if isinstance(v, ir.VarRef) and isinstance(v.type, ir.RayQuery):
                from .rayquery import rayquery_method

                return rayquery_method(self, v, callee.name, args, loc)
            if isinstance(v, HeapElement):
                raise error(f"an element of '{v.heap_name}' has no members until it is converted to a resource "
                            f"type, e.g. '((Texture2D<float4>){v.heap_name}[i]).{callee.name}(...)'", callee.loc)
            tmp = self.temp(v.type)
            self.emit(ir.Store(ir.VarRef(tmp), v))
            base = ir.VarRef(tmp)
        t = base.type
        if callee.name in STREAM_METHODS and not (isinstance(t, ir.Resource) and (
                t.kind in STREAM_KINDS or (callee.name == "Append" and t.kind == "AppendStructuredBuffer"))):
            raise error(f"'{callee.name}' requires a geometry-shader stream (PointStream, LineStream or "
                        f"TriangleStream){' or an AppendStructuredBuffer' if callee.name == 'Append' else ''}, "
                        f"not '{t}'", callee.loc)
        if isinstance(t, ir.Struct):
            methods = self.methods.get(t.name, {}).get(callee.name)
            if "::" in callee.name:         # `d.Base::f()`: Base's f (or the one Base inherits), on d
                owner, _, short = callee.name.rpartition("::")
                base_t = self.types.named.get(owner)
                if isinstance(base_t, ir.Struct) and (base_t.name == t.name or self.derives_from(t, base_t)):
                    methods = self.inherited_methods(t, base_t.name).get(short)
            templates = None if methods else self.method_templates.get(t.name, {}).get(callee.name)
            if not methods and not templates:
                static = self.scope.lookup(f"{t.name}::{callee.name}")     # `s.f()` of a static f (or a base's)
                if isinstance(static, FuncSymbol):
                    return self.user_call(f"{t.name}::{callee.name}", static.overloads, args, loc)
                raise error(f"no member function named '{callee.name}' in '{t}'", callee.loc)
            if _read_only(base):        # a cbuffer member, a ConstantBuffer, an SRV element: on a copy
                tmp = self.temp(t)
                self.emit(ir.Store(ir.VarRef(tmp), self.load(base), loc))
                base = ir.VarRef(tmp)
            if templates:
                explicit: list[ast.TypeRef | ast.Expr] | None = [callee.template, *callee.template_rest] \
                    if callee.template else None
                return self.method_template_call(t, templates, callee.name, args, explicit, loc, base)
            if callee.template is not None:
                raise error(f"'{callee.name}' is not a member function template", callee.loc)
            assert methods is not None
            return self.user_call(callee.name, methods, args, loc, this=base)
        if isinstance(t, ir.Resource):
            if callee.template_rest:
                raise error(f"too many template arguments for function template '{callee.name}'",
                            callee.template_rest[0].loc)
            template = self.resolve_type(callee.template, callee.template_dims) \
                if callee.template is not None else None
            inner = template
            while isinstance(inner, ir.Array):
                inner = inner.elem
            row_major = self.element_major(callee.template) \
                if callee.template is not None and isinstance(inner, ir.Matrix) else None
            return self.resource_method(base, callee.name, args, loc, template, row_major)
        if isinstance(t, ir.RayQuery):
            from .rayquery import rayquery_method

            return rayquery_method(self, base, callee.name, args, loc)
        raise error(f"member reference base type '{t}' is not a structure or resource", callee.loc)

    def void_value(self, loc: SourceLoc) -> ir.Expr:
        return _VoidValue(loc)


def _read_only(place: ir.Expr) -> bool:
    """Whether a struct place lives in read-only memory (a constant buffer, an SRV element, a const)."""
    while isinstance(place, (ir.FieldRef, ir.IndexRef, ir.SwizzleRef)):
        place = place.base
    if isinstance(place, ir.BufferElem):
        r = place.resource.type
        while isinstance(r, ir.Array):
            r = r.elem
        return isinstance(r, ir.Resource) and KINDS[r.kind].access != "UAV"
    return isinstance(place, ir.VarRef) and (place.var.const or place.var.storage is ir.Storage.UNIFORM)


def _is_block(place: ir.Expr, kind: str) -> bool:
    """Whether a place is a ConstantBuffer / TextureBuffer variable (or an element of an array of them)."""
    while isinstance(place, ir.IndexRef):
        place = place.base
    b = place.var.binding if isinstance(place, ir.VarRef) else None
    return b is not None and b.kind == kind


class _VoidValue(ir.Const):
    """The 'value' of a void call; using it anywhere is an error caught by convert()."""

    def __init__(self, loc: SourceLoc) -> None:
        super().__init__(ir.VOID, None)


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}


def _nothing() -> None:
    """What a call without template parameters restores after its instance's body."""


def _unescape(raw: str) -> str:
    """A string literal's text with its C escapes (\\n, \\", \\xHH, ...) replaced."""
    import re  # printf only: no re on the compile path (cold start, issue 23)

    return re.sub(r"\\(x[0-9a-fA-F]{1,2}|.)",
                  lambda m: chr(int(m.group(1)[1:], 16)) if m.group(1)[0] == "x" and len(m.group(1)) > 1
                  else _ESCAPES.get(m.group(1), m.group(1)), raw)


def intrinsic_scalar(a: ir.Scalar, b: ir.Scalar, a_literal: bool, b_literal: bool) -> ir.Scalar:
    """The component type two arguments of one intrinsic template share (DXC's CombineBasicTypes): as
    arithmetic's, except that two integers are unsigned when either is, at the wider width (uint with
    int64_t is uint64_t) and a bool with a literal int is an int."""
    if not (a_literal or b_literal) and a.kind in ("int", "uint") and b.kind in ("int", "uint"):
        return ir.Scalar("uint" if "uint" in (a.kind, b.kind) else "int", max(a.width, b.width))
    if (a == ir.BOOL and b_literal and b.kind == "int") or (b == ir.BOOL and a_literal and a.kind == "int"):
        return ir.INT
    return common_scalar(a, b, a_literal, b_literal)


def _add_score(score: list[int], arg: ir.Type, param: ir.Type, direction: str, literal: bool, cost: int) -> None:
    """Add one argument's rank to a candidate's: DXC sums its arguments' conversion flags (and an out/inout
    parameter's copy back), least wins and a tie is ambiguous.  Conversions DXC does not score by
    components (a struct to its base, an array to an unsized one) rank after them by our conversion cost."""
    if not (ir.is_numeric(arg) and ir.is_numeric(param)):
        score[-1] += cost
        return
    flags = overload_score(arg, param, literal)
    if direction != "in":
        flags = tuple(x + y for x, y in zip(flags, overload_score(param, arg)))
    for i, x in enumerate(flags):
        score[i] += x
