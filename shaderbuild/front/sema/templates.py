"""HLSL 2021 templates: function templates (argument deduction or explicit
arguments) and struct templates, instantiated on use with the type parameters
bound as type names and the non-type ones (`uint N`) as named constants."""

from __future__ import annotations

from ... import ir
from ...diagnostics import SourceLoc, error
from .. import ast
from .base import SemaBase, Undo
from .scope import EnumConstSymbol, FuncInfo, Scope

TemplateArg = ir.Type | int     # a type, or the value of a non-type parameter


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

    # ------------------------------------------------------------------ structs
    def instantiate_struct(self, ref: ast.TypeRef) -> ir.Struct:
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
        inst = ast.StructDecl(d.loc, name, d.fields, d.methods, d.base)
        with self.function_context():
            self.scope = self.global_scope
            with self.template_bindings(tparams, types, d.template_values):
                return self.struct(inst)

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
        decls = self.func_templates[name]
        values, is_place = self.lower_args(args)
        errors: list[str] = []
        for d in decls:
            bound = self.deduce(d, args, values, explicit, errors)
            if bound is None:
                continue
            info = self.instantiate_function(d, bound)
            best = self.resolve_overload(name, [info], args, values, loc)
            return self.emit_call(best, args, values, is_place, loc, None)
        raise error(f"no matching function template for call to '{name}'" + (f": {errors[0]}" if errors else ""), loc)

    def deduce(self, d: ast.FuncDecl, args, values, explicit, errors: list[str]) -> list[TemplateArg] | None:
        params = d.template_params or []       # a function template has them
        bound: dict[str, TemplateArg] = {}
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
            if tname not in params or param.type.args or tname in (explicit and params[:len(explicit)] or []):
                continue
            if param.dims and not isinstance(t, ir.Scalar | ir.Vector | ir.Matrix | ir.Struct):
                continue        # T a[N] with an argument that is not an array of that rank
            if not param.dims:
                t = v.type
            prev = bound.get(tname)
            assert not isinstance(prev, int)      # tname is a type parameter
            if prev is None or (prev != t and self.is_literal(v)):
                bound.setdefault(tname, t)
            elif prev != t:
                errors.append(f"conflicting types '{prev}' and '{t}' deduced for template parameter '{tname}'")
                return None
        for p in params:
            if p not in bound and p in d.template_defaults:     # with the parameters bound so far in scope
                with self.template_bindings(params, [bound.get(q, ir.INT) for q in params], d.template_values):
                    bound[p] = self.template_argument(p, d.template_defaults[p], d.template_values)
        missing = [p for p in params if p not in bound]
        if missing:
            errors.append(f"cannot deduce template parameter '{missing[0]}'")
            return None
        return [bound[p] for p in params]

    def instantiate_function(self, d: ast.FuncDecl, types: list[TemplateArg]) -> FuncInfo:
        key = (id(d), tuple(types))
        info = self.function_instances.get(key)
        if info is not None:
            return info
        with self.function_context():
            self.scope = self.global_scope
            with self.template_bindings(d.template_params or [], types, d.template_values):
                info = self.function_decl(d, register=False,
                                          name=f"{d.name}<{', '.join(str(t) for t in types)}>")
                self.function_instances[key] = info
                if d.body is not None:
                    self.function_body(info)
        return info


def _wrap(value: int, t: ir.Type, loc: SourceLoc) -> int:
    """A template argument converted to its parameter's integer type (bool: 0 or 1)."""
    if not isinstance(t, ir.Scalar) or t.is_float:
        raise error(f"a non-type template parameter must have an integer type, not '{t}'", loc)
    if t.kind == "bool":
        return int(value != 0)
    value &= (1 << t.width) - 1
    return value - (1 << t.width) if t.kind == "int" and value >> (t.width - 1) else value
