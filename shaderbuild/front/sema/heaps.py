"""SM 6.6 dynamic resources: `ResourceDescriptorHeap[i]` and `SamplerDescriptorHeap[i]`.

An element of a heap has no type of its own until it is converted to a resource type
(`Texture2D<float4> t = ResourceDescriptorHeap[i];`, a cast, an argument). The conversion
makes it an element of a *heap view*: one unbounded resource array per (heap, resource
type) used, a `Storage.UNIFORM` global whose binding says which heap it views. Backends map
views as their target does (DXIL: createHandleFromHeap; SPIR-V: runtime arrays aliased at
the heap's binding), and every pass treats an element like one of any resource array.
"""

from __future__ import annotations

from ... import ir
from ...diagnostics import SourceLoc, error
from ...ir.resource_kinds import KINDS
from .. import ast
from .base import SemaBase

HEAPS = {"ResourceDescriptorHeap": "resource", "SamplerDescriptorHeap": "sampler"}


def used_heap_views_only(globals_: list[ir.Variable], functions: list[ir.Function]) -> list[ir.Variable]:
    """Drop the heap views only unreachable code converted to (DXC creates them on use)."""
    if not any(g.binding is not None and g.binding.heap is not None for g in globals_):
        return globals_
    used = ir.referenced_variables(functions)
    return [g for g in globals_ if g.binding is None or g.binding.heap is None or id(g) in used]


class HeapElement(ir.Expr):
    """Sema only: `Heap[index]` before its conversion to a resource type (never in the IR)."""

    heap: str
    index: ir.Expr
    loc: SourceLoc
    type: ir.Type

    @property
    def heap_name(self) -> str:
        return "SamplerDescriptorHeap" if self.heap == "sampler" else "ResourceDescriptorHeap"


class HeapLowering(SemaBase):
    """Mixin of Analyzer: heap elements and their conversion to resource views."""

    def is_heap_index(self, e: ast.Index) -> bool:
        return isinstance(e.base, ast.Name) and e.base.name in HEAPS and self.scope.lookup(e.base.name) is None

    def heap_element(self, e: ast.Index) -> HeapElement:
        assert isinstance(e.base, ast.Name)
        name = e.base.name
        if (self.profile.major, self.profile.minor) < (6, 6):
            self.stage_error(f"'{name}' requires shader model 6.6 or higher (the profile is {self.profile})",
                             e.base.loc)
        idx = self.index_value(e.index)  # type: ignore[attr-defined]   # ExprLowering
        if not isinstance(idx, ir.Const):
            # the view's element is re-read at every use of a resource local holding it (passes/
            # resource_locals.py): keep the index value of this point in a temporary no one writes
            non_uniform = isinstance(idx, ir.Intrinsic) and idx.name == "NonUniformResourceIndex"
            inner = idx.args[0] if non_uniform else idx
            tmp = self.temp(inner.type, "heap_index")
            self.emit(ir.Store(ir.VarRef(tmp), inner))
            idx = ir.Load(ir.VarRef(tmp), inner.type)
            if non_uniform:
                idx = ir.Intrinsic("NonUniformResourceIndex", [idx], inner.type)
        return HeapElement(HEAPS[name], idx, e.base.loc, ir.Resource(f".{name}"))

    def heap_view_element(self, x: HeapElement, to: ir.Type, loc: SourceLoc, coherent: bool = False) -> ir.Expr:
        """`x` converted to resource type `to`: a load of the element of `to`'s view of the heap; a
        `coherent` (globallycoherent) view is a view of its own, as DXC's heap variable per attributed type."""
        name = "SamplerDescriptorHeap" if x.heap == "sampler" else "ResourceDescriptorHeap"
        info = KINDS.get(to.kind) if isinstance(to, ir.Resource) else None
        if info is None or (info.access == "Sampler") != (x.heap == "sampler"):
            want = "a sampler type" if x.heap == "sampler" else "a resource type other than a sampler"
            raise error(f"an element of '{name}' converts only to {want}, not to '{to}'", x.loc)
        if info.rep == "tbuffer":    # TextureBuffer<T>: as arrays of them (sema/lower.py)
            raise error(f"'{to}' from '{name}' is not supported yet", x.loc)
        views: dict[tuple[str, ir.Type, bool], ir.Variable] = self.heap_views  # type: ignore[attr-defined]
        var = views.get((x.heap, to, coherent))
        if var is None:
            binding = ir.Binding(info.register_class, None, 0, None, heap=x.heap, globally_coherent=coherent)
            var = ir.Variable(name, ir.Array(to, None), ir.Storage.UNIFORM, x.loc, binding=binding)
            views[(x.heap, to, coherent)] = var
            self.globals.append(var)
        if isinstance(x.index, ir.Intrinsic) and x.index.name == "NonUniformResourceIndex":
            ir.view_binding(var)[0].non_uniform = True
        return ir.Load(ir.IndexRef(ir.VarRef(var, x.loc), x.index, to), to)

    def coherent_heap_view(self, e: ir.Expr, loc: SourceLoc) -> ir.Expr:
        """`globallycoherent RWBuffer<T> b = ResourceDescriptorHeap[i];`: the element `e` (heap_view_element's
        load) re-read from the globallycoherent view of the same heap and type (SPIR-V Coherent on that view's
        variable, DXIL annotateHandle's globally-coherent bit), as DXC carries the attributed type."""
        assert isinstance(e, ir.Load) and isinstance(e.place, ir.IndexRef) and isinstance(e.place.base, ir.VarRef)
        view, heap = e.place.base.var, ir.view_binding(e.place.base.var)[1]
        x = HeapElement(heap, e.place.index, loc, ir.Resource(f".{view.name}"))
        out = self.heap_view_element(x, e.type, loc, coherent=True)
        if ir.view_binding(view)[0].non_uniform:
            ir.view_binding(_view_of(out))[0].non_uniform = True
        return out


def _view_of(e: ir.Expr) -> ir.Variable:
    assert isinstance(e, ir.Load) and isinstance(e.place, ir.IndexRef) and isinstance(e.place.base, ir.VarRef)
    return e.place.base.var
