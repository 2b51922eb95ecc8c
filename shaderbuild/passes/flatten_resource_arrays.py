"""Flattens multi-dimensional global resource arrays to one dimension.

Vulkan descriptor arrays are one-dimensional, and DXIL describes a resource
range by its flattened size (seed 001: `C[2][2][5]` is the range `C[20]`), so
`N[10][5]` becomes `N[50]` and `N[i][j]` becomes `N[i * 5 + j]` (folded when
constant).  Runs after resource_locals, when every use is a full-depth chain.
"""

from __future__ import annotations

from .. import ir
from ..diagnostics import error
from ..options import CompileOptions


def _dims(t: ir.Type) -> tuple[list[int | None], ir.Type]:
    dims: list[int | None] = []
    while isinstance(t, ir.Array):
        dims.append(t.size)
        t = t.elem
    return dims, t


def _mul(a: ir.Expr, k: int) -> ir.Expr:
    if isinstance(a, ir.Const):
        return ir.Const(ir.UINT, a.value * k)
    return ir.Binary("mul", a, ir.Const(ir.UINT, k), ir.UINT)


def _add(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    if isinstance(a, ir.Const) and isinstance(b, ir.Const):
        return ir.Const(ir.UINT, a.value + b.value)
    if isinstance(b, ir.Const) and b.value == 0:
        return a
    return ir.Binary("add", a, b, ir.UINT)


def _as_uint(e: ir.Expr) -> ir.Expr:
    if e.type == ir.UINT:
        return e
    if isinstance(e, ir.Const):
        return ir.Const(ir.UINT, int(e.value))
    return ir.Convert(e, ir.UINT)


_BLOCK_KINDS = frozenset({"ConstantBuffer", "TextureBuffer"})


class _Flattener:
    def __init__(self, targets: dict[int, tuple[list[int | None], ir.Type]]) -> None:
        self.targets = targets

    def chain(self, e: ir.Expr):
        """(var, [indices]) when e is an IndexRef chain rooted at a flattened global."""
        idx = []
        while isinstance(e, ir.IndexRef):
            idx.append(e.index)
            e = e.base
        if isinstance(e, ir.VarRef) and id(e.var) in self.targets:
            return e, idx[::-1]
        return None

    def expr(self, e: ir.Expr) -> ir.Expr:
        if isinstance(e, ir.IndexRef):
            found = self.chain(e)
            if found is not None:
                ref, indices = found
                dims, elem = self.targets[id(ref.var)]
                if len(indices) != len(dims):
                    raise error(f"resource array '{ref.var.name}' must be indexed down to a single resource here",
                                ref.var.loc)
                flat: ir.Expr = ir.Const(ir.UINT, 0)
                for k, i in enumerate(indices):
                    stride = 1
                    for d in dims[k + 1:]:
                        assert d is not None      # only the outermost dimension may be unbounded
                        stride *= d
                    flat = _add(flat, _mul(self.expr(_as_uint(i)), stride))
                return ir.IndexRef(ir.VarRef(ref.var), flat, elem)
        if isinstance(e, ir.VarRef):
            return e
        cls = type(e)
        c = object.__new__(cls)
        for f in cls._fields:
            v = getattr(e, f)
            if isinstance(v, ir.Expr):
                v = self.expr(v)
            elif isinstance(v, list) and v and isinstance(v[0], ir.Expr):
                v = [self.expr(x) for x in v]
            object.__setattr__(c, f, v)
        return c

    def stmts(self, stmts: list[ir.Stmt]) -> None:
        for s in stmts:
            if isinstance(s, ir.Store):
                s.place, s.value = self.expr(s.place), self.expr(s.value)
            elif isinstance(s, ir.Eval):
                s.expr = self.expr(s.expr)
            elif isinstance(s, ir.If):
                s.cond = self.expr(s.cond)
                self.stmts(s.then)
                self.stmts(s.else_)
            elif isinstance(s, ir.Loop):
                self.stmts(s.body)
                self.stmts(s.continuing)
                if s.break_if is not None:
                    s.break_if = self.expr(s.break_if)
            elif isinstance(s, ir.Switch):
                s.selector = self.expr(s.selector)
                for c in s.cases:
                    self.stmts(c.body)
            elif isinstance(s, ir.Return) and s.value is not None:
                s.value = self.expr(s.value)


def run(module: ir.Module, options: CompileOptions) -> None:
    targets: dict[int, tuple[list[int | None], ir.Type]] = {}
    for var in module.resources:
        dims, elem = _dims(var.type)
        block = isinstance(elem, ir.Struct) and var.binding is not None and var.binding.kind in _BLOCK_KINDS
        if len(dims) > 1 and (isinstance(elem, ir.Resource) or block):     # (ConstantBuffer<T> cbs[M][N]: blocks)
            targets[id(var)] = (dims, elem)
    if not targets:
        return
    for var in module.resources:      # first, so the rewritten references get the flat type
        if id(var) in targets:
            dims, elem = targets[id(var)]
            assert var.binding is not None
            total = None if dims[0] is None else var.binding.count
            var.type = ir.Array(elem, total)
    fl = _Flattener(targets)
    for f in module.functions:
        fl.stmts(f.body)
