"""Which globals the entry point uses: a resource the entry point never reaches is in the
manifest with "used": false (a DXIL build leaves it out of its resource table, as DXC does)."""

from __future__ import annotations

from .. import ir


def used_globals(module: ir.Module, entries: list[ir.EntryPoint] | None = None) -> set[int]:
    """ids of the global variables referenced from the entry point(s) (default: all of them; a library:
    every shader) and everything they call."""
    roots = [f for ep in (ir.entry_points(module) if entries is None else entries)
             for f in (ep.function or ep.source_function, ep.static_init) if f is not None]
    global_ids = {id(g) for g in module.globals}
    seen_fns: set[int] = set()
    used: set[int] = set()
    stack = list(roots)
    while stack:
        fn = stack.pop()
        if id(fn) in seen_fns:
            continue
        seen_fns.add(id(fn))
        exprs = ir.function_exprs(module, fn)
        used |= global_ids.intersection([id(e.var) for e in ir.nodes_of(exprs, ir.VarRef)])
        stack += [e.func for e in ir.nodes_of(exprs, ir.Call)]
    return used
