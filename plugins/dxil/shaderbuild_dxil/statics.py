"""`static const` tables: the constant stores the entry wrapper puts at its top
become initializers of constant globals (no per-invocation stores)."""

from __future__ import annotations

from shaderbuild import ir
from shaderbuild.diagnostics import CompileError, locate

from .context import ModuleContext
from .llvm import types as T
from .llvm.values import ConstAggregate, Constant, ConstFloat, ConstInt, GlobalVariable
from .scalarize import component_types, leaf_layout, leaf_order, memory_scalar

__all__ = ["fold_static_initializers"]


def _const_eval(e: ir.Expr) -> list | None:
    """Python values of a constant expression's components (canonical order), or None."""
    if isinstance(e, (ir.Const, ir.SpecConst)):    # DXIL has no specialisation: the default value
        n = len(component_types(e.type))
        return list(e.value) if isinstance(e.value, (tuple, list)) else [e.value] * n
    if isinstance(e, ir.Construct):
        out: list = []
        for p in e.parts:
            v = _const_eval(p)
            if v is None:
                return None
            out += v
        n = len(component_types(e.type))
        return out * n if len(out) == 1 and n > 1 else out
    if isinstance(e, ir.Convert):
        v = _const_eval(e.value)
        if v is None:
            return None
        kinds = component_types(e.type)
        return [(float(x) if k.kind == "float" else bool(x) if k.kind == "bool" else int(x)) for x, k in zip(v, kinds)]
    return None


def _leaf_constant(s: ir.Scalar, values: list) -> Constant:
    mt = memory_scalar(s)
    consts: list[Constant] = [ConstFloat(mt, float(v)) if isinstance(mt, T.FloatType) else ConstInt(mt, int(v))
                              for v in values]
    return consts[0] if len(consts) == 1 else ConstAggregate(T.ArrayType(mt, len(consts)), consts)


def fold_static_initializers(ctx: ModuleContext, body: list[ir.Stmt]) -> None:
    """`static const` tables: constant stores the entry wrapper puts at its top become global initializers."""
    for s in body:
        if not (isinstance(s, ir.Store) and isinstance(s.place, ir.VarRef)):
            continue
        var = s.place.var
        st = ctx.global_storages.get(id(var))
        if st is None or not var.const or var.storage != ir.Storage.PRIVATE:
            continue
        try:
            vals = _const_eval(s.value)
        except CompileError as exc:         # a size limit: at the declaration
            locate(exc, var.loc)
            raise
        if vals is None:
            continue
        lay = leaf_layout(var.type)
        per_leaf: list[list] = [[None] * m for m in lay.mult]
        for (p, k), v in zip(leaf_order(var.type), vals, strict=True):
            per_leaf[p][k] = v
        for g, scalar, leaf_vals in zip(st.ptrs, lay.leaves, per_leaf):
            assert isinstance(g, GlobalVariable)    # a static's storage
            g.initializer = _leaf_constant(scalar, leaf_vals)
            g.constant = True
        ctx.folded_stores.add(id(s))
