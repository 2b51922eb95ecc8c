"""HLSL 2021 templates: function templates (argument deduction or explicit
arguments) and struct templates, instantiated on use with the template
parameters bound as type names."""

from __future__ import annotations

import contextlib

from ... import ir
from ...diagnostics import SourceLoc, error
from .. import ast
from .base import SemaBase
from .scope import FuncInfo


class TemplateLowering(SemaBase):
    """Mixin of Analyzer."""

    @contextlib.contextmanager
    def template_bindings(self, params: list[str], types: list[ir.Type]):
        saved = {p: self.types.named.get(p) for p in params}
        self.types.named.update(zip(params, types))
        try:
            yield
        finally:
            for p, old in saved.items():
                if old is None:
                    self.types.named.pop(p, None)
                else:
                    self.types.named[p] = old

    # ------------------------------------------------------------------ structs
    def instantiate_struct(self, ref: ast.TypeRef) -> ir.Struct:
        d = self.struct_templates[ref.name]
        tparams = d.template_params or []      # a struct template has them
        if len(ref.args) != len(tparams):
            raise error(f"'{ref.name}' takes {len(tparams)} template argument"
                        f"{'s' if len(tparams) != 1 else ''}", ref.loc)
        types = []
        for a in ref.args:
            if not isinstance(a, ast.TypeRef):
                raise error("template arguments must be types", a.loc)
            types.append(self.types.resolve(a))
        name = f"{ref.name}<{', '.join(str(t) for t in types)}>"
        done = self.types.named.get(name)
        if done is not None:
            assert isinstance(done, ir.Struct)
            return done
        inst = ast.StructDecl(d.loc, name, d.fields, d.methods, d.base)
        with self.function_context(), self.template_bindings(tparams, types):
            self.scope = self.global_scope
            return self.struct(inst)

    # ------------------------------------------------------------------ functions
    def template_call(self, name: str, args: list[ast.Expr], explicit: list[ast.TypeRef] | None,
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

    def deduce(self, d: ast.FuncDecl, args, values, explicit, errors: list[str]) -> list[ir.Type] | None:
        params = d.template_params or []       # a function template has them
        bound: dict[str, ir.Type] = {}
        if explicit:
            if len(explicit) > len(params):
                errors.append(f"too many template arguments ({len(explicit)} for {len(params)})")
                return None
            for p, t in zip(params, explicit):
                bound[p] = self.types.resolve(t)
        if len(args) > len(d.params):
            errors.append(f"too many arguments ({len(args)} for {len(d.params)})")
            return None
        for param, v in zip(d.params, values):
            tname = param.type.name
            if tname not in params or param.type.args or param.dims or tname in (explicit and params[:len(explicit)] or []):
                continue
            t = v.type
            prev = bound.get(tname)
            if prev is None or (prev != t and self.is_literal(v)):
                bound.setdefault(tname, t)
            elif prev != t:
                errors.append(f"conflicting types '{prev}' and '{t}' deduced for template parameter '{tname}'")
                return None
        missing = [p for p in params if p not in bound]
        if missing:
            errors.append(f"cannot deduce template parameter '{missing[0]}'")
            return None
        return [bound[p] for p in params]

    def instantiate_function(self, d: ast.FuncDecl, types: list[ir.Type]) -> FuncInfo:
        key = (id(d), tuple(types))
        info = self.function_instances.get(key)
        if info is not None:
            return info
        with self.function_context(), self.template_bindings(d.template_params or [], types):
            self.scope = self.global_scope
            info = self.function_decl(d, register=False,
                                      name=f"{d.name}<{', '.join(str(t) for t in types)}>")
            self.function_instances[key] = info
            if d.body is not None:
                self.function_body(info)
        return info
