"""HLSL 2021 templates: function templates (argument deduction or explicit
arguments) and struct templates, instantiated on use with the type parameters
bound as type names and the non-type ones (`uint N`) as named constants."""

from __future__ import annotations

from ... import ir
from ...diagnostics import Diagnostic, SourceLoc, error
from .. import ast
from .base import SemaBase, Undo
from .scope import EnumConstSymbol, FuncInfo, FuncSymbol, Scope

TemplateArg = ir.Type | int     # a type, or the value of a non-type parameter
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
# instantiations inside instantiations (each level nests a struct in a struct, or a call in a body):
# above real shaders (a template calling itself must deduce a new type each time), low enough that
# a struct doubling at each level (2^16 components) is still cheap to walk; 20 levels took 1.3 s
MAX_TEMPLATE_DEPTH = 16


class TemplateLowering(SemaBase):
    """Mixin of Analyzer."""

    def template_bindings(self, params: list[str], args: list[TemplateArg], values: dict[str, ast.TypeRef]) -> Undo:
        """Bind type parameters as type names and value parameters as constants of a scope under the current one."""
        saved = {p: self.types.named.get(p) for p in params if p not in values}
        self.types.named.update((p, a) for p, a in zip(params, args) if p not in values and isinstance(a, ir.Type))
        saved_scope = self.scope
        if values:
            self.scope = Scope(self.scope)
            for p, a in zip(params, args):
                if p in values and isinstance(a, int):
                    self.scope.names[p] = EnumConstSymbol(a, self.types.resolve(values[p]))

        def restore() -> None:
            self.scope = saved_scope
            for p, old in saved.items():
                if old is None:
                    self.types.named.pop(p, None)
                else:
                    self.types.named[p] = old
        return Undo(restore)

    _template_depth = 0

    def template_depth(self, name: str, loc: SourceLoc | None) -> Undo:
        """Count one more instantiation in progress: past MAX_TEMPLATE_DEPTH a located error (a template
        that instantiates itself with a growing type never ends)."""
        if self._template_depth >= MAX_TEMPLATE_DEPTH:
            raise error(f"recursive template instantiation of '{name}' exceeded the maximum depth of "
                        f"{MAX_TEMPLATE_DEPTH}", loc)
        self._template_depth += 1

        def leave() -> None:
            self._template_depth -= 1
        return Undo(leave)

    # ------------------------------------------------------------------ structs
    def instantiate_struct(self, ref: ast.TypeRef) -> ir.Struct:
        with self.template_depth(ref.name, ref.loc):
            return self._instantiate_struct(ref)

    def _instantiate_struct(self, ref: ast.TypeRef) -> ir.Struct:
        own = self.injected.get(ref.name) if not ref.args else None
        if own is not None and isinstance(self.types.named.get(own), ir.Struct):
            return self.types.named[own]    # type: ignore[return-value]  # `Box` inside Box<int>: Box<int> (C++)
        d = self.struct_templates[ref.name]
        tparams = d.template_params or []      # a struct template has them
        args = [*ref.args, *(d.template_defaults[p] for p in tparams[len(ref.args):] if p in d.template_defaults)]
        if len(args) != len(tparams) or len(ref.args) > len(tparams):
            raise error(f"'{ref.name}' takes {len(tparams)} template argument"
                        f"{'s' if len(tparams) != 1 else ''}", ref.loc)
        types = [self.template_argument(p, a, d.template_values) for p, a in zip(tparams, args)]
        name = f"{ref.name}<{', '.join(str(t) for t in types)}>"
        done = self.types.named.get(name)
        if done is not None:
            assert isinstance(done, ir.Struct)
            return done
        matches = [(len(spec.template_params or []), i, spec, bound)
                   for i, spec in enumerate(self.struct_specs.get(ref.name, []))
                   if (bound := self.match_specialisation(spec, tparams, types, d.template_values)) is not None]
        if matches:     # an explicit specialisation first, then the partial one with the fewest parameters
            matches.sort(key=lambda m: m[:2])
            if len(matches) > 1 and matches[0][0] == matches[1][0]:
                raise error(f"ambiguous partial specializations of '{name}'", ref.loc,
                            notes=[Diagnostic("note", "partial specialization matches", m[2].loc)
                                   for m in matches[:2]])
            _, _, spec, bound = matches[0]
            d, tparams, types = spec, spec.template_params or [], bound
        elif d.attributes and d.attributes[0].name == ast.DECLARED_ONLY:
            raise error(f"implicit instantiation of undefined template '{name}'", ref.loc)
        inst = ast.StructDecl(d.loc, name, d.fields, d.methods, d.base)
        with self.function_context():
            self.scope = self.global_scope
            with self.template_bindings(tparams, types, d.template_values):
                aliases = self.instance_statics(d, name)
                saved = {k: self.global_scope.names.get(k) for k in aliases}
                self.global_scope.names.update(aliases)     # the methods' unqualified names (`S::x`) see them
                outer = self.injected.get(ref.name)
                self.injected[ref.name] = name      # the template's own name inside it (injected-class-name)
                self.instance_bindings[name] = (ref.name, tparams, types, d.template_values)
                try:
                    st = self.struct(inst)
                    self.instance_static_methods(d, name)
                    for check in d.asserts:
                        self.static_assert(check)
                    return st
                finally:
                    if outer is None:
                        del self.injected[ref.name]
                    else:
                        self.injected[ref.name] = outer
                    for k, old in saved.items():
                        if old is None:
                            self.global_scope.names.pop(k, None)
                        else:
                            self.global_scope.names[k] = old

    def instance_context(self, name: str) -> Undo:
        """Code written in the struct template instance `name` (a base's methods compiled again for a derived
        struct, inherited_methods): its parameters bound and its own name injected again, as when it was made."""
        entry = self.instance_bindings.get(name)
        if entry is None:
            return Undo(lambda: None)
        template, tparams, types, values = entry
        bindings = self.template_bindings(tparams, types, values)
        outer = self.injected.get(template)
        self.injected[template] = name

        def leave() -> None:
            if outer is None:
                del self.injected[template]
            else:
                self.injected[template] = outer
            bindings.__exit__(None, None, None)
        return Undo(leave)

    def instance_statics(self, d: ast.StructDecl, name: str) -> dict:
        """The static data members of instance `name` of d: globals named `S<args>::x` (their initializers
        see the template's parameters); returns `S::x` -> each one's symbol, for the instance's methods."""
        aliases = {}
        for v in d.statics:
            gname = f"{name}::{v.name}"
            self.global_var(ast.VarDecl(v.loc, gname, v.type, list(v.dims), v.init, v.qualifiers, v.semantic,
                                        attributes=v.attributes, namespaces=v.namespaces))
            sym = self.scope.names.pop(gname) if self.scope is not self.global_scope else self.global_scope.names[gname]
            self.global_scope.names[gname] = sym
            aliases[f"{d.name}::{v.name}"] = sym
        return aliases

    def instance_static_methods(self, d: ast.StructDecl, name: str) -> None:
        """The static member functions of instance `name` of d: global functions `S<args>::f` (their bodies see
        the template's parameters and the instance's static data), called as `S<args>::f(...)`."""
        infos = []
        for fn in d.static_methods:         # all declared first: their bodies may call each other
            gname = f"{name}::{fn.name}"
            info = self.function_decl(fn, register=False, name=gname)
            sym = self.global_scope.names.get(gname)
            if isinstance(sym, FuncSymbol):
                sym.overloads.append(info)
            else:
                self.global_scope.names[gname] = FuncSymbol([info])
            infos.append(info)
        # in their bodies the class's names are in scope unqualified (and as `S::name`), before the globals
        names = self.global_scope.names
        scoped = {fn.name: names[f"{name}::{fn.name}"] for fn in d.static_methods}
        scoped |= {f"{d.name}::{k}": v for k, v in scoped.items()}
        scoped |= {v.name: names[f"{name}::{v.name}"] for v in d.statics if f"{name}::{v.name}" in names}
        saved = {k: names.get(k) for k in scoped}
        names.update(scoped)
        try:
            for info in infos:
                if info.decl.body is not None:
                    self.function_body(info)
        finally:
            for k, old in saved.items():
                if old is None:
                    names.pop(k, None)
                else:
                    names[k] = old

    def match_specialisation(self, spec: ast.StructDecl, tparams: list[str], types: list[TemplateArg],
                             values: dict[str, ast.TypeRef]) -> list[TemplateArg] | None:
        """The arguments of `spec`'s own parameters when `S<types>` is the specialisation `spec` declares (a
        parameter of a partial one is bound by the argument in its place), else None."""
        own = spec.template_params or []
        pattern = spec.spec_args or []
        if len(pattern) != len(types):
            return None
        bound: dict[str, TemplateArg] = {}
        for param, pat, want in zip(tparams, pattern, types):
            name = pat.name if isinstance(pat, ast.TypeRef) and not pat.args or isinstance(pat, ast.Name) else None
            if name in own:
                if bound.setdefault(name, want) != want:
                    return None
                continue
            with self.template_bindings(own, [bound.get(q, ir.INT) for q in own], spec.template_values):
                if self.template_argument(param, pat, values) != want:
                    return None
        if set(bound) != set(own):
            return None
        return [bound[p] for p in own]

    def template_argument(self, param: str, a: ast.TypeRef | ast.Expr, values: dict[str, ast.TypeRef]) -> TemplateArg:
        """A written template argument: a type for a type parameter, a constant (converted) for a value one."""
        if param not in values:
            if not isinstance(a, ast.TypeRef):
                raise error(f"template argument for template type parameter '{param}' must be a type", a.loc)
            return self.types.resolve(a)
        if isinstance(a, ast.TypeRef):
            raise error(f"template argument for non-type template parameter '{param}' must be an expression", a.loc)
        return _wrap(self.const_int(a), self.types.resolve(values[param]), values[param].loc)

    # ------------------------------------------------------------------ functions
    def template_call(self, name: str, args: list[ast.Expr], explicit: list[ast.TypeRef | ast.Expr] | None,
                      loc: SourceLoc) -> ir.Expr:
        values, is_place = self.lower_args(args)
        errors: list[str] = []
        for d, bound in self.deduced(self.func_templates[name], args, values, explicit, errors):
            with self.template_depth(name, loc):
                info = self.instantiate_function(d, bound)
            best = self.resolve_overload(name, [info], args, values, loc)
            if best.const_params and not self.probing:      # texture offsets from its parameters
                best = self.const_specialize(name, best, args, values, is_place, (
                    lambda: self.template_bindings(d.template_params or [], bound, d.template_values)))  # noqa: B023 (called before the loop moves on)
            return self.emit_call(best, args, values, is_place, loc, None)
        raise error(f"no matching function template for call to '{name}'" + (f": {errors[0]}" if errors else ""), loc)

    def template_candidates(self, name: str, decls: list[ast.FuncDecl], args: list[ast.Expr], values: list[ir.Expr],
                            loc: SourceLoc) -> dict[int, tuple[FuncInfo, ast.FuncDecl, list[TemplateArg]]]:
        """The instances of the templates `decls` that deduce from the arguments (id -> instance, template,
        arguments), to rank beside the plain functions of the name (CallLowering.user_call)."""
        out: dict[int, tuple[FuncInfo, ast.FuncDecl, list[TemplateArg]]] = {}
        for d, bound in self.deduced(decls, args, values, None, []):
            with self.template_depth(name, loc):
                info = self.instantiate_function(d, bound)
            out[id(info)] = (info, d, bound)
        return out

    def deduced(self, decls: list[ast.FuncDecl], args, values, explicit, errors: list[str]
                ) -> Iterator[tuple[ast.FuncDecl, list[TemplateArg]]]:
        """Each template of `decls` whose parameters deduce from the arguments, with them (errors: why not)."""
        for d in decls:
            bound = self.deduce(d, args, values, explicit, errors)
            if bound is not None:
                yield d, bound

    def method_template_call(self, st: ir.Struct, decls: list[ast.FuncDecl], name: str, args: list[ast.Expr],
                             explicit: list[ast.TypeRef | ast.Expr] | None, loc: SourceLoc, this: ir.Expr) -> ir.Expr:
        """`obj.get<int>()`, `obj.scale(2.0f)`: a member function template of obj's struct, deduced as a function
        template's, instantiated once per struct and arguments as a method of the struct."""
        values, is_place = self.lower_args(args)
        errors: list[str] = []
        for d, bound in self.deduced(decls, args, values, explicit, errors):
            key = (id(d), (st.name, *bound))       # (the instances of a struct template share d)
            info = self.function_instances.get(key)
            if info is None:
                if d.body is None:
                    raise error(f"member function template '{name}' is not defined before this use (a later "
                                "definition is not supported)", loc)
                owner = st.name     # the struct declaring d (a base of st's: st inherits its templates)
                while (b := self.struct_bases.get(owner)) and any(x is d for x in self.method_templates.get(b, {}).get(name, ())):
                    owner = b
                with self.template_depth(name, loc), self.function_context():
                    self.scope = self.global_scope      # (then a struct template instance's own parameters)
                    with self.instance_context(owner), \
                            self.template_bindings(d.template_params or [], bound, d.template_values):
                        info = self.function_decl(d, method_of=st, register=False,
                                                  name=f"{d.name}<{', '.join(str(t) for t in bound)}>")
                        self.function_instances[key] = info
                        self.function_body(info)
            best = self.resolve_overload(name, [info], args, values, loc)
            return self.emit_call(best, args, values, is_place, loc, this)
        raise error(f"no matching member function template for call to '{name}'" + (f": {errors[0]}" if errors else
                                                                                       ""), loc)

    def deduce(self, d: ast.FuncDecl, args, values, explicit, errors: list[str]) -> list[TemplateArg] | None:
        params = d.template_params or []       # a function template has them
        bound: dict[str, TemplateArg] = {}
        shown: dict[str, str] = {}      # a deduced type parameter -> the type deduced, as a literal's ('literal int')
        if explicit:
            if len(explicit) > len(params):
                errors.append(f"too many template arguments ({len(explicit)} for {len(params)})")
                return None
            for p, t in zip(params, explicit):
                bound[p] = self.template_argument(p, t, d.template_values)
        if len(args) > len(d.params):
            errors.append(f"too many arguments ({len(args)} for {len(d.params)})")
            return None
        for param, v in zip(d.params, values):
            # `T a[N]` with a value parameter N: N is the argument array's size
            t = v.type
            for dim in param.dims:
                if not isinstance(t, ir.Array):
                    break
                if isinstance(dim, ast.Name) and dim.name in d.template_values and t.size is not None:
                    if bound.setdefault(dim.name, t.size) != t.size:
                        errors.append(f"conflicting values {bound[dim.name]} and {t.size} deduced for template "
                                      f"parameter '{dim.name}'")
                        return None
                t = t.elem
            tname = param.type.name
            fixed = explicit and params[:len(explicit)] or []
            if param.type.args and not param.dims:      # `vector<T, N> v`, `matrix<T, R, C> m`, `Box<T> b`
                if not self.deduce_pattern(param.type, v.type, params, fixed, bound, shown, errors):
                    return None
                continue
            if tname not in params or param.type.args or tname in fixed:
                continue
            if param.dims and not isinstance(t, ir.Scalar | ir.Vector | ir.Matrix | ir.Struct):
                continue        # T a[N] with an argument that is not an array of that rank
            if not param.dims:
                t = v.type
            # clang deduces a literal's own type, 'literal float' / 'literal int', which matches nothing else
            # (f(1.0, 2) and f(x, 1.0) are conflicts in DXC); the instance takes float / int for it
            name = str(t)
            if self.is_literal(v) and isinstance(t, ir.Scalar) and t.kind in ("float", "int"):
                name, t = f"literal {t.kind}", (ir.FLOAT if t.kind == "float" else ir.INT)
            prev = shown.setdefault(tname, name)
            if prev != name:
                errors.append(f"conflicting types '{prev}' and '{name}' deduced for template parameter '{tname}'")
                return None
            bound[tname] = t
        for p in params:
            if p not in bound and p in d.template_defaults:     # with the parameters bound so far in scope
                with self.template_bindings(params, [bound.get(q, ir.INT) for q in params], d.template_values):
                    bound[p] = self.template_argument(p, d.template_defaults[p], d.template_values)
        missing = [p for p in params if p not in bound]
        if missing:
            errors.append(f"cannot deduce template parameter '{missing[0]}'")
            return None
        return [bound[p] for p in params]

    def deduce_pattern(self, ref: ast.TypeRef, t: ir.Type, params: list[str], fixed: list[str],
                       bound: dict[str, TemplateArg], shown: dict[str, str], errors: list[str]) -> bool:
        """The parameters a parameter type written with arguments names, from the argument's type: vector<T, N>
        from a vector (not a scalar: DXC's 'could not match'), matrix<T, R, C> from a matrix, Box<T> from an
        instance of Box, StructuredBuffer<T> (any resource template) from a resource of that kind.  False on a conflict with an earlier deduction; a shape that does not fit binds nothing
        (the call is then refused as the argument does not convert)."""
        parts: list[TemplateArg]
        if ref.name == "vector" and isinstance(t, ir.Vector):
            parts = [t.elem, t.size]
        elif ref.name == "matrix" and isinstance(t, ir.Matrix):
            parts = [t.elem, t.rows, t.cols]
        elif isinstance(t, ir.Struct) and self.instance_bindings.get(t.name, ("",))[0] == ref.name:
            parts = list(self.instance_bindings[t.name][2])
        elif isinstance(t, ir.Resource) and t.kind == ref.name and t.elem is not None:   # StructuredBuffer<T>
            parts = [t.elem, *([t.samples] if t.samples else [])]
        else:
            return True
        for a, got in zip(ref.args, parts):
            if isinstance(a, ast.TypeRef) and a.args and isinstance(got, ir.Type):
                if not self.deduce_pattern(a, got, params, fixed, bound, shown, errors):
                    return False
                continue
            name = a.name if isinstance(a, ast.TypeRef | ast.Name) else None
            if name is None or name not in params or name in fixed:
                continue
            prev = shown.get(name, str(bound.get(name, got)))      # (a literal's deduction: 'literal float')
            if prev != str(got):
                what = "values" if isinstance(got, int) else "types"
                errors.append(f"conflicting {what} '{prev}' and '{got}' deduced for template parameter '{name}'")
                return False
            bound[name] = got
            shown[name] = prev
        return True

    def instantiate_function(self, d: ast.FuncDecl, types: list[TemplateArg]) -> FuncInfo:
        key = (id(d), tuple(types))
        info = self.function_instances.get(key)
        if info is not None:
            return info
        spec = next((s for s in self.func_specs.get(d.name, []) if self.specialised_arguments(d, s) == types), None)
        with self.function_context():
            self.scope = self.global_scope
            if spec is not None:    # `template<> float f<float>(float x)`: its own body, no parameters bound
                info = self.function_decl(spec, register=False,
                                          name=f"{d.name}<{', '.join(str(t) for t in types)}>")
                self.function_instances[key] = info
                self.function_body(info)
                return info
            with self.template_bindings(d.template_params or [], types, d.template_values):
                info = self.function_decl(d, register=False,
                                          name=f"{d.name}<{', '.join(str(t) for t in types)}>")
                self.function_instances[key] = info
                if d.body is not None:
                    self.function_body(info)
        return info


    def define_template(self, decl: ast.FuncDecl, d: ast.FuncDecl) -> None:
        """The definition `d` of a template declared (and perhaps called) before as `decl`: the instances
        the calls made get d's body now, as C++ instantiates them at the end of the file."""
        for (ident, types), info in list(self.function_instances.items()):
            if ident != id(decl) or info.defined:     # (an explicit specialisation has its own body)
                continue
            del self.function_instances[ident, types]
            self.function_instances[id(d), types] = info
            info.decl = d
            with self.function_context():
                self.scope = self.global_scope
                with self.template_bindings(d.template_params or [], list(types), d.template_values):
                    self.function_body(info)

    def specialised_arguments(self, d: ast.FuncDecl, spec: ast.FuncDecl) -> list[TemplateArg] | None:
        """The template arguments of d that the explicit specialisation `spec` is for: those written
        (`f<float>`), then those its parameter types give; None when they do not fit d."""
        params = d.template_params or []
        written = spec.spec_args or []
        if len(written) > len(params) or len(spec.params) != len(d.params):
            return None
        bound = {p: self.template_argument(p, a, d.template_values) for p, a in zip(params, written)}
        for dp, sp in zip(d.params, spec.params):
            if dp.type.name in params and not dp.type.args and not dp.dims:
                t = self.resolve_type(sp.type, sp.dims)
                if bound.setdefault(dp.type.name, t) != t:
                    return None
        if set(bound) != set(params):
            return None
        return [bound[p] for p in params]


def _wrap(value: int, t: ir.Type, loc: SourceLoc) -> int:
    """A template argument converted to its parameter's integer type (bool: 0 or 1)."""
    if not isinstance(t, ir.Scalar) or t.is_float:
        raise error(f"a non-type template parameter must have an integer type, not '{t}'", loc)
    if t.kind == "bool":
        return int(value != 0)
    value &= (1 << t.width) - 1
    return value - (1 << t.width) if t.kind == "int" and value >> (t.width - 1) else value
