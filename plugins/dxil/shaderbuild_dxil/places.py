"""Places: where an IR place expression lives after lowering, and how to read
and write its scalar components (canonical order, see scalarize.py).

* MemPlace   - a local/static/groupshared variable split into leaf arrays;
* AddrPlace  - explicit component addresses (swizzles, constant components);
* DynCompPlace - a dynamically indexed vector component / matrix row;
* BufferPlace- (part of) a structured/typed/raw buffer element;
* CBufPlace  - (part of) a constant buffer;
* IOPlace    - stage inputs/outputs (dx.op reads/writes);
* ResourcePlace / LocalResourcePlace - a resource (or resource array element).
"""

from __future__ import annotations

from shaderbuild import ir
from shaderbuild.diagnostics import error
from shaderbuild.records import DataRecord, Record

from .llvm import types as T
from .llvm.values import ConstInt, Value
from .scalarize import component_types, leaf_layout, leaf_of_components, leaf_order, llvm_scalar

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .lowering import Lowering
    from .resources import ResourceInfo

__all__ = ["VarStorage", "Place", "MemPlace", "AddrPlace", "BufferPlace", "CBufPlace", "IOPlace",
           "ResourcePlace", "LocalResourcePlace", "CompPlace", "DynCompPlace"]


class VarStorage(DataRecord):
    """One LLVM pointer per leaf of the variable's type (see scalarize.leaf_layout), or, for a
    single-element leaf of a local, an SSA variable number in `ssa` (ssa.py; -1: in memory).
    `flat`: every leaf has one element (no element index anywhere); `all_ssa`: every leaf is an
    SSA variable (reads and writes never touch memory): the common case, given fast paths."""

    var: ir.Variable
    ptrs: list[Value | None]
    counts: list[int]
    scalars: list[ir.Scalar]
    ssa: list[int] | None = None
    # a variable that is one LLVM struct of its leaves (a mesh payload): leaf k is field k of the
    # struct `base` points to, addressed by one GEP from it (dxil-spirv reads no GEP of a GEP)
    base: Value | None = None
    flat: bool = False                    # this and the next two: set by __post_init__, never passed
    all_ssa: bool = False
    comp_nums: list[int] | None = None    # all_ssa: the SSA variable of every component

    def __post_init__(self) -> None:
        counts = self.counts
        self.flat = counts.count(1) == len(counts)
        ssa = self.ssa
        self.all_ssa = ssa is not None and -1 not in ssa
        if self.all_ssa:
            assert ssa is not None
            self.comp_nums = [ssa[p] for p in leaf_of_components(self.var.type)]


    @classmethod
    def registers(cls, var: ir.Variable, nums: list[int], counts: list[int], scalars: list[ir.Scalar]) -> VarStorage:
        """A variable whose leaves are all single SSA variables `nums` (the commonest local):
        the fields __post_init__ would derive are known (flat, all_ssa)."""
        st = cls.__new__(cls)
        st.var = var
        st.ptrs = [None] * len(nums)
        st.counts = counts
        st.scalars = scalars
        st.ssa = nums
        st.flat = True
        st.all_ssa = True
        st.comp_nums = [nums[p] for p in leaf_of_components(var.type)]
        return st


class Place:
    type: ir.Type

    def read(self, L: Lowering) -> list[Value]:
        raise NotImplementedError

    def write(self, L: Lowering, values: list[Value], comps: list[int] | None = None) -> None:
        raise error(f"cannot assign to this location of type '{self.type}'")


def to_register(L: Lowering, v: Value, s: ir.Scalar) -> Value:
    """Memory representation -> register representation (bool: i32 -> i1)."""
    if s.kind == "bool":
        return L.b.icmp("ne", v, ConstInt(T.i32, 0))
    return v


def to_memory(L: Lowering, v: Value, s: ir.Scalar) -> Value:
    if s.kind == "bool":
        return L.b.zext(v, T.i32)
    return v


Address = tuple[int, Value]      # (leaf index within the variable, element index)


class AddrPlace(Place, DataRecord):
    storage: VarStorage
    addrs: list[Address]
    type: ir.Type

    def _ptr(self, L: Lowering, a: Address) -> Value:
        return leaf_pointer(L.b, self.storage, *a)

    def read(self, L: Lowering) -> list[Value]:
        st = self.storage
        b = L.b
        if st.all_ssa:
            ssa = st.ssa
            assert ssa is not None and L.ssa is not None and b.block is not None    # all_ssa: optimising
            return L.ssa.read_all([ssa[leaf] for leaf, _ in self.addrs], b.block)
        out = []
        scalars, ssa = st.scalars, st.ssa
        for leaf, idx in self.addrs:
            if ssa is not None and ssa[leaf] >= 0:
                assert L.ssa is not None and b.block is not None       # SSA variables only when optimising
                out.append(L.ssa.read(ssa[leaf], b.block))
                continue
            s = scalars[leaf]
            v = b.load(leaf_pointer(b, st, leaf, idx), align=_align(s))
            out.append(b.icmp("ne", v, ConstInt(T.i32, 0)) if s.kind == "bool" else v)
        return out

    def write(self, L: Lowering, values: list[Value], comps: list[int] | None = None) -> None:
        addrs = self.addrs if comps is None else [self.addrs[c] for c in comps]
        b = L.b
        st = self.storage
        scalars, ssa = st.scalars, st.ssa
        if st.all_ssa:
            assert ssa is not None and L.ssa is not None and b.block is not None    # all_ssa: optimising
            L.ssa.write_all([ssa[leaf] for leaf, _ in addrs], b.block, values)
            return
        for (leaf, idx), v in zip(addrs, values, strict=True):
            if ssa is not None and ssa[leaf] >= 0:
                assert L.ssa is not None and b.block is not None       # SSA variables only when optimising
                L.ssa.write(ssa[leaf], b.block, v)
                continue
            s = scalars[leaf]
            if s.kind == "bool":
                v = b.zext(v, T.i32)
            b.store(v, leaf_pointer(b, st, leaf, idx), align=_align(s))

    def pick(self, comps: list[int], t: ir.Type) -> AddrPlace:
        return AddrPlace(self.storage, [self.addrs[c] for c in comps], t)


def leaf_pointer(b, st: VarStorage, leaf: int, idx: Value) -> Value:
    """The address of element `idx` of leaf `leaf` of a variable in memory."""
    zero = ConstInt(T.i32, 0)
    if st.base is not None:
        path = [zero, ConstInt(T.i32, leaf)]
        return b.gep(st.base, path if st.counts[leaf] == 1 else [*path, idx])
    p = st.ptrs[leaf]
    assert p is not None        # a leaf in memory
    return p if st.counts[leaf] == 1 else b.gep(p, [zero, idx])


_ALIGN: dict[ir.Scalar, int] = {}


def _align(s: ir.Scalar) -> int:
    a = _ALIGN.get(s)
    if a is None:
        a = _ALIGN[s] = 4 if s.kind == "bool" else max(1, s.width // 8)
    return a


class MemPlace(Place, DataRecord):
    """Sub-object `type` of a variable: leaves leafbase.., element index idx (see scalarize)."""

    storage: VarStorage
    type: ir.Type
    leafbase: int
    idx: Value

    def addresses(self, L: Lowering) -> list[Address]:
        """A single-element leaf needs no element index (its pointer is used directly): there
        mul_add(idx, 1, 0) would only rebuild idx, so idx itself is kept."""
        base, idx = self.leafbase, self.idx
        if self.storage.flat:
            return [(base + p, idx) for p in leaf_of_components(self.type)]
        mult = leaf_layout(self.type).mult
        counts = self.storage.counts
        return [(base + p, idx if counts[base + p] == 1 else L.mul_add(idx, mult[p], k))
                for p, k in leaf_order(self.type)]

    def as_addr(self, L: Lowering) -> AddrPlace:
        return AddrPlace(self.storage, self.addresses(L), self.type)

    def pick(self, L: Lowering, comps: list[int], t: ir.Type) -> AddrPlace:
        """as_addr(L).pick(comps, t) without addressing the components not picked."""
        st = self.storage
        if st.flat:
            leaves, base, idx = leaf_of_components(self.type), self.leafbase, self.idx
            return AddrPlace(st, [(base + leaves[c], idx) for c in comps], t)
        return self.as_addr(L).pick(comps, t)

    def read(self, L: Lowering) -> list[Value]:
        st = self.storage
        if st.all_ssa:
            ssa, base = st.ssa, self.leafbase
            assert ssa is not None and L.ssa is not None and L.b.block is not None    # all_ssa: optimising
            return L.ssa.read_all([ssa[base + p] for p in leaf_of_components(self.type)], L.b.block)
        return self.as_addr(L).read(L)

    def write(self, L: Lowering, values: list[Value], comps: list[int] | None = None) -> None:
        st = self.storage
        if st.all_ssa and comps is None:
            ssa, base = st.ssa, self.leafbase
            assert ssa is not None and L.ssa is not None and L.b.block is not None    # all_ssa: optimising
            L.ssa.write_all([ssa[base + p] for p in leaf_of_components(self.type)], L.b.block, values)
            return
        self.as_addr(L).write(L, values, comps)


class CompPlace(Place, DataRecord):
    """Selected components of another place (swizzle / constant component of a non-memory place)."""

    base: Place
    comps: list[int]
    type: ir.Type

    def read(self, L: Lowering) -> list[Value]:
        vals = self.base.read(L)
        return [vals[c] for c in self.comps]

    def write(self, L: Lowering, values: list[Value], comps: list[int] | None = None) -> None:
        sel = self.comps if comps is None else [self.comps[c] for c in comps]
        self.base.write(L, values, sel)


class DynCompPlace(Place, DataRecord):
    """Group `index` (dynamic) of `groups` of components of `base` (vector component or matrix row)."""

    base: Place
    groups: list[list[int]]
    index: Value
    type: ir.Type

    def read(self, L: Lowering) -> list[Value]:
        vals = self.base.read(L)
        out = [vals[c] for c in self.groups[0]]
        for g, comps in enumerate(self.groups[1:], start=1):
            hit = L.b.icmp("eq", self.index, ConstInt(T.i32, g))
            out = [L.b.select(hit, vals[c], o) for c, o in zip(comps, out)]
        return out

    def write(self, L: Lowering, values: list[Value], comps: list[int] | None = None) -> None:
        io = self.base.var.io if isinstance(self.base, IOPlace) else None
        if io is not None and io.mesh is not None:      # a mesh shader's output: write-only, no old value to select
            raise error("an output component chosen at run time is not supported by the DXIL backend yet; write "
                        "the output's components by constant index")
        old = self.base.read(L)
        new = list(old)
        sub = list(range(len(self.groups[0]))) if comps is None else comps
        for g, group in enumerate(self.groups):
            hit = L.b.icmp("eq", self.index, ConstInt(T.i32, g))
            for j, v in zip(sub, values):
                c = group[j]
                new[c] = L.b.select(hit, v, old[c])
        touched = sorted({g[j] for g in self.groups for j in sub})
        self.base.write(L, [new[c] for c in touched], touched)


class BufferPlace(Place, DataRecord):
    """A structured / typed / raw buffer location: element `index`, byte offset `offset` (+ `dyn_offset`)."""

    res: ResourceInfo
    handle: Value
    index: Value | list[Value]     # a list: the coordinates of a typed multi-dimensional access
    type: ir.Type
    offset: int = 0
    dyn_offset: Value | None = None
    comp_offsets: list[int] = Record.factory(list)
    row_major: bool | None = None      # majorness of the enclosing struct member (None: column_major)

    def read(self, L: Lowering) -> list[Value]:
        return L.buffers.read(self)

    def write(self, L: Lowering, values: list[Value], comps: list[int] | None = None) -> None:
        L.buffers.write(self, values, comps)


class CBufPlace(Place, DataRecord):
    res: ResourceInfo
    handle: Value
    type: ir.Type
    offset: int = 0
    dyn_row: Value | None = None
    row_major: bool | None = None

    def read(self, L: Lowering) -> list[Value]:
        return L.buffers.read_cbuffer(self)


class IOPlace(Place, DataRecord):
    var: ir.Variable
    type: ir.Type
    comps: list[int]
    vertex: Value | None = None      # tessellation: the control point of a per-control-point variable

    def read(self, L: Lowering) -> list[Value]:
        return L.io_read(self)

    def write(self, L: Lowering, values: list[Value], comps: list[int] | None = None) -> None:
        L.io_write(self, values, comps)


class ResourcePlace(Place, DataRecord):
    """A resource or resource array (element); `index` is the flattened index so far."""

    res: ResourceInfo
    type: ir.Type
    index: Value
    non_uniform: bool = False     # the index went through NonUniformResourceIndex

    def read(self, L: Lowering) -> list[Value]:
        raise error(f"a resource of type '{self.type}' cannot be used as a value here")


class LocalResourcePlace(Place, DataRecord):
    """A function-local resource variable or array: tracked at compile time (slots of ResourcePlace)."""

    var: ir.Variable
    type: ir.Type
    slots: list[int]          # indices into the variable's slot list

    def read(self, L: Lowering) -> list[Value]:
        raise error(f"a resource of type '{self.type}' cannot be used as a value here")


def scalar_types(t: ir.Type) -> list[T.Type]:
    return [llvm_scalar(s) for s in component_types(t)]
