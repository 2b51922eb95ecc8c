"""A DXIL library (`-T lib_6_x`, no -E): every exported shader lowered to its own function of one
module.  Ray-tracing shaders take their payload / attributes / callable data as struct pointers
(raytracing.py); a library has no stage signatures, and its resources are named by global
symbols read through createHandleForLib (DXIL.rst, "Shader library" and "Resources")."""

from __future__ import annotations

from shaderbuild import ir
from shaderbuild.diagnostics import error

from .context import ModuleContext, used_globals
from .llvm import types as T
from .llvm.values import Function
from .lower import FunctionLowerer
from .lowered import LibraryFunction, LoweredModule
from .raytracing import udt_size, udt_type
from .statics import fold_static_initializers

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .debuginfo import DebugInfo  # -Zi only: backend._debug_info imports it then

__all__ = ["lower_library"]



def lower_library(module: ir.Module, sm: tuple[int, int], native16: bool = False, optimize: bool = True,
                  debug: DebugInfo | None = None) -> LoweredModule:
    entries = ir.entry_points(module)
    for ep in entries:
        if ep.function is None:
            raise error("the module has no entry point wrapper (run the entry wrapper pass first)")
    ctx = ModuleContext(module, "library", sm, native16, optimize)
    ctx.debug = debug
    used: dict[int, ir.Variable] = {}
    per_entry: list[set[int]] = []
    counters: set[int] = set()
    for ep in entries:
        assert ep.function is not None
        vs, _fns, cu = used_globals(ep.function)
        per_entry.append({id(v) for v in vs})
        for v in vs:
            used.setdefault(id(v), v)
        counters |= set(cu)
    ctx.collect_globals(list(used.values()), counters)
    functions: list[LibraryFunction] = []
    called: set = set()
    for ep, uses in zip(entries, per_entry):
        assert ep.function is not None
        fold_static_initializers(ctx, ep.function.body)
        params = tuple(udt_type(p.var.type).ptr() for p in ep.function.params)
        ctx.ops.stage = ep.stage           # each shader's operations are checked against its kind
        ctx.ops.clear_declared()
        lowerer = FunctionLowerer(ctx, ep.name, params, source=ep.source_function)
        fn = lowerer.lower_entry(ep.function)
        called |= set(lowerer.cleaned.callees)
        ptypes = [p.var.type for p in ep.function.params]
        payload = udt_size(ptypes[0], native16) if ptypes else 0
        attributes = udt_size(ptypes[1], native16) if len(ptypes) > 1 else 0
        functions.append(LibraryFunction(fn, ep.name, ep.stage, payload, attributes,
                                          [r for r in ctx.resources if id(r.var) in uses]))
    ctx.ops.stage = "library"
    ctx.ops.clear_declared()
    # the exported functions keep their names (the runtime links shaders by name): a global named like
    # one (a resource, a static) is renamed, LLVM's symbols being one namespace
    exported = {ep.name for ep in entries}
    for sym in ctx.llmod.globals:
        if sym.name in exported:
            sym.name = f"{sym.name}.global"
    keep: list[Function] = [f.function for f in functions]
    ctx.llmod.retain_functions(keep + [f for f in ctx.llmod.functions if f not in keep and f in called])
    ctx.ops.retain({f.name for f in ctx.llmod.functions})
    # (a library of subobjects only has no function: its `entry` is a placeholder outside the module)
    first = keep[0] if keep else Function(T.FunctionType(T.void, ()), "library")
    lm = LoweredModule(ctx.llmod, first, ctx.ops, ctx.resources, [], [], "library", sm, native16, (0, 0, 0),
                       ctx.group_shared_bytes)
    lm.library = functions
    lm.subobjects = list(module.subobjects)
    lm.payload_access = [(udt_type(st), fields) for st, fields in module.payload_access]
    return lm

