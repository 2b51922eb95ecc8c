"""Resources: classification, register allocation, `dx.resources` records,
PSV0 bind info and handle creation (createHandle below SM 6.6,
createHandleFromBinding + annotateHandle from SM 6.6).

Binding ranges follow seed 001: an array of resources is one range
[lower, lower + flattened count - 1] (upper -1 when unbounded); the handle
index is lower bound + flattened element index.
"""

from __future__ import annotations

from shaderbuild import ir
from shaderbuild.diagnostics import error
from shaderbuild.ir.layout import layout_of
from shaderbuild.ir.resource_kinds import KINDS
from shaderbuild.records import DataRecord

from .container import PSV_RESOURCE_TYPE, PSVResource
from .llvm import types as T
from .llvm.builder import IRBuilder
from .llvm.metadata import MDNode, MDString, MDValue, md_int
from .llvm.values import ConstAggregate, Constant, ConstInt, Undef, Value
from .ops import OpEmitter
from .scalarize import memory_scalar

__all__ = ["KIND_CBUFFER", "KIND_TBUFFER", "ResourceInfo", "classify", "assign_ranges", "resource_records", "psv_resources", "HandleFactory",
           "CLASS_INDEX", "element_stride"]

CLASS_INDEX = {"SRV": 0, "UAV": 1, "CBV": 2, "Sampler": 3}
_CLASS_OF_REGISTER = {"t": "SRV", "u": "UAV", "b": "CBV", "s": "Sampler"}

# DXIL ResourceKind of a formatted resource, by the kind's (dimension, arrayed, multisampled)
_SHAPES: dict[tuple[str | None, bool, bool], int] = {
    ("1D", False, False): 1, ("2D", False, False): 2, ("2D", False, True): 3, ("3D", False, False): 4,
    ("Cube", False, False): 5, ("1D", True, False): 6, ("2D", True, False): 7, ("2D", True, True): 8,
    ("Cube", True, False): 9, ("Buffer", False, False): 10,
}
KIND_RAW, KIND_STRUCTURED, KIND_CBUFFER, KIND_SAMPLER, KIND_TBUFFER, KIND_RTAS = 11, 12, 13, 14, 15, 16
_COMPONENT_TYPE = {("bool", 32): 1, ("int", 16): 2, ("uint", 16): 3, ("int", 32): 4, ("uint", 32): 5,
                   ("int", 64): 6, ("uint", 64): 7, ("float", 16): 8, ("float", 32): 9, ("float", 64): 10}
# a unorm / snorm element (`RWTexture2D<unorm float4>`): the component type of its float width (DXIL's
# SNormF16 11 .. UNormF64 16)
_NORM_COMPONENT_TYPE = {("snorm", 16): 11, ("unorm", 16): 12, ("snorm", 32): 13, ("unorm", 32): 14,
                        ("snorm", 64): 15, ("unorm", 64): 16}
TAG_ELEMENT_TYPE, TAG_STRIDE, TAG_ATOMIC64 = 0, 1, 3


class ResourceInfo(DataRecord):
    var: ir.Variable
    res_class: str               # SRV | UAV | CBV | Sampler
    shape: int                   # DXIL ResourceKind
    space: int
    lower: int
    count: int | None            # None = unbounded
    range_id: int = 0
    stride: int = 0              # structured buffers
    elem: ir.Type | None = None
    comp_type: int = 0           # typed resources
    comp_count: int = 0
    cbuffer_size: int = 0
    sampler_cmp: bool = False
    kind_name: str = ""
    symbol: Constant | None = None  # the global constant standing for the resource (library targets only)
    has_counter: bool = False    # IncrementCounter/DecrementCounter used (UAV metadata, PSV0 kind)
    heap: str | None = None      # SM 6.6 heap view ('resource' | 'sampler'): no record, createHandleFromHeap
    rov: bool = False            # a rasterizer-ordered view (UAV metadata, ResourceProperties, the ROVs flag)
    samples: int = 0             # Texture2DMS<T, N>: N, the SRV record's sample count
    globally_coherent: bool = False  # a `globallycoherent` UAV (UAV metadata, ResourceProperties, RDAT flags)
    atomic64: bool = False       # a 64-bit atomic uses it (UAV metadata tag 3, PSV0 UsedByAtomic64, SFI0 flags)

    @property
    def upper(self) -> int:
        return 0xFFFFFFFF if self.count is None else self.lower + self.count - 1

    @property
    def is_raw_or_structured(self) -> bool:
        return self.shape in (11, 12)


def element_stride(elem: ir.Type) -> int:
    """Structured-buffer stride (the 'dx_structured' rule: C packing, 4-byte aligned)."""
    return layout_of(elem, "dx_structured").size


def _base_resource_type(t: ir.Type) -> tuple[ir.Type, int | None]:
    """Strip resource arrays: (element type, flattened count or None when unbounded)."""
    n: int | None = 1
    while isinstance(t, ir.Array):
        n = None if (t.size is None or n is None) else n * t.size
        t = t.elem
    return t, n


def classify(var: ir.Variable) -> ResourceInfo:
    info = _classify(var)
    info.heap = ir.binding_of(var).heap
    info.globally_coherent = ir.binding_of(var).globally_coherent
    return info


def _classify(var: ir.Variable) -> ResourceInfo:
    b = ir.binding_of(var)
    t, n = _base_resource_type(var.type)
    if b.count is not None and n is not None and b.count != n:
        n = b.count
    res_class = _CLASS_OF_REGISTER[b.register_class]
    # cbuffer sizes are the packed size, not rounded up to a 16-byte row (DXC: metadata record and
    # annotateHandle both carry DxilCBuffer::GetSize(), e.g. 20 for { float4; float; }); a tbuffer is a
    # DxilCBuffer turned into a TBuffer SRV, so the same size
    if isinstance(t, ir.Struct) and res_class in ("CBV", "SRV"):   # cbuffer / tbuffer block (cbuffer packing)
        size = layout_of(t, "dx_cbuffer").size
        bkind, name = (KIND_CBUFFER, "cbuffer") if res_class == "CBV" else (KIND_TBUFFER, "tbuffer")
        # a TBuffer SRV's record has the element type U32 (DXC's InitTBuffer; its validator refuses a
        # typed SRV without a valid component type)
        return ResourceInfo(var, res_class, bkind, b.space, b.register or 0, n, elem=t, cbuffer_size=size,
                            kind_name=name, comp_type=_COMPONENT_TYPE[("uint", 32)] if res_class == "SRV" else 0)
    if not isinstance(t, ir.Resource):
        raise error(f"resource '{var.name}' of type '{var.type}' is not supported by the DXIL backend yet", var.loc)
    kind = t.kind
    row = KINDS.get(t.kind)
    if row is not None and row.rep == "cbuffer":
        elem = t.elem
        size = layout_of(elem, "dx_cbuffer").size if elem is not None else 0
        return ResourceInfo(var, "CBV", KIND_CBUFFER, b.space, b.register or 0, n, elem=elem,
                            cbuffer_size=size, kind_name=kind)
    if row is not None and row.rep == "sampler":
        return ResourceInfo(var, "Sampler", KIND_SAMPLER, b.space, b.register or 0, n,
                            sampler_cmp=kind == "SamplerComparisonState", kind_name=kind)
    if row is not None and row.rep == "accel":       # RTAccelerationStructure: an SRV with no element
        return ResourceInfo(var, "SRV", KIND_RTAS, b.space, b.register or 0, n, kind_name=kind)
    shape = None if row is None else {"raw": KIND_RAW, "structured": KIND_STRUCTURED}.get(
        row.rep, _SHAPES.get((row.dim, row.arrayed, row.ms)))
    if shape is None:
        raise error(f"resource type '{t}' is not supported by the DXIL backend yet", var.loc)
    info = ResourceInfo(var, res_class, shape, b.space, b.register or 0, n, elem=t.elem, kind_name=kind,
                        rov=row is not None and row.rov, samples=t.samples)
    if shape == KIND_STRUCTURED:
        info.stride = element_stride(ir.resource_elem(t))
    elif shape != KIND_RAW:
        s = ir.scalar_of(t.elem) if t.elem is not None else ir.FLOAT
        if s is None:
            raise error(f"typed resource element '{t.elem}' must be a scalar or vector", var.loc)
        info.comp_type = _COMPONENT_TYPE[(s.kind, s.width)]
        if b.elem_norm is not None:
            info.comp_type = _NORM_COMPONENT_TYPE[(b.elem_norm, s.width)]
        info.comp_count = t.elem.size if isinstance(t.elem, ir.Vector) else 1
        if s.width == 64:       # as DXC: stored as 32-bit uint words, twice as many (buffers.typed_words)
            if info.comp_count > 2:
                raise error(f"the element type of '{var.name}' does not fit in four 32-bit components", var.loc)
            info.comp_type, info.comp_count = _COMPONENT_TYPE[("uint", 32)], 2 * info.comp_count
    return info


def assign_ranges(infos: list[ResourceInfo]) -> None:
    """Give implicit registers (lowest free slots per class and space) and range ids per class."""
    taken: dict[tuple[str, int], list[tuple[int, int]]] = {}
    for r in infos:
        if ir.binding_of(r.var).register is not None:
            taken.setdefault((r.res_class, r.space), []).append((r.lower, r.upper))
    for r in infos:
        if ir.binding_of(r.var).register is None:
            if r.count is None:
                raise error(f"unbounded resource array '{r.var.name}' needs an explicit register", r.var.loc)
            spans = sorted(taken.setdefault((r.res_class, r.space), []))
            lo = 0
            for a, z in spans:
                if lo + r.count - 1 < a:
                    break
                lo = max(lo, z + 1)
            r.lower = lo
            spans.append((r.lower, r.upper))
    next_id: dict[str, int] = {}
    for r in infos:
        r.range_id = next_id.get(r.res_class, 0)
        next_id[r.res_class] = r.range_id + 1


def symbol_type(r: ResourceInfo) -> T.Type:
    """The resource's global: the struct, or an array of it for resource arrays ([0 x] when unbounded)."""
    t = resource_type(r)
    return t if r.count == 1 and not isinstance(r.var.type, ir.Array) else T.ArrayType(t, r.count or 0)


def resource_type(r: ResourceInfo) -> T.StructType:
    """The named struct that stands for the resource in its metadata record."""
    def mem(t: ir.Type | None) -> T.Type:
        if t is None:
            return T.i32
        if isinstance(t, ir.Scalar):
            return memory_scalar(t)
        if isinstance(t, (ir.Vector, ir.Matrix)):
            return T.ArrayType(memory_scalar(ir.scalar_of(t)), t.size if isinstance(t, ir.Vector) else t.rows * t.cols)
        if isinstance(t, ir.Array):
            return T.ArrayType(mem(t.elem), t.size or 0)
        if isinstance(t, ir.Struct):
            return T.StructType(tuple(mem(f.type) for f in t.fields), f"struct.{t.name}")
        return T.i32
    if r.kind_name in ("cbuffer", "tbuffer"):
        assert isinstance(r.elem, ir.Struct)    # a block's element is its struct
        return T.StructType(tuple(mem(f.type) for f in r.elem.fields), f"{r.elem.name}")
    name = f"class.{r.kind_name}" + (f"<{r.elem}>" if r.elem is not None else "")
    return T.StructType((mem(r.elem),), name)


def _i32(v: int) -> MDValue:
    return md_int(T.i32, v)


def _i1(v: bool) -> MDValue:
    return md_int(T.i1, int(v))


def resource_records(infos: list[ResourceInfo]) -> MDNode | None:
    """The single `!dx.resources` tuple {SRVs, UAVs, CBVs, Samplers} (None when there are none)."""
    lists: dict[str, list[MDNode]] = {c: [] for c in CLASS_INDEX}
    for r in infos:
        size = 0xFFFFFFFF if r.count is None else r.count
        # every non-library target gives `undef` of the symbol's pointer type, as DXC does; consumers
        # (dxil-spirv) take a real global there for a library resource no entry point reads
        sym = r.symbol if r.symbol is not None else Undef(symbol_type(r).ptr())
        common = [_i32(r.range_id), MDValue(sym), MDString(r.var.name), _i32(r.space),
                  _i32(r.lower), _i32(size)]
        tag_list: list = []
        if r.shape == KIND_STRUCTURED:
            tag_list = [_i32(TAG_STRIDE), _i32(r.stride)]
        elif r.comp_type:
            tag_list = [_i32(TAG_ELEMENT_TYPE), _i32(r.comp_type)]
        if r.atomic64:          # DXC (valver 1.6+): kDxilAtomic64UseTag on a UAV a 64-bit atomic uses
            tag_list += [_i32(TAG_ATOMIC64), _i32(1)]
        tags = MDNode(tag_list) if tag_list else None
        if r.res_class == "SRV":
            rec = [*common, _i32(r.shape), _i32(r.samples), tags]
        elif r.res_class == "UAV":
            rec = [*common, _i32(r.shape), _i1(r.globally_coherent), _i1(r.has_counter), _i1(r.rov), tags]
        elif r.res_class == "CBV":
            rec = [*common, _i32(r.cbuffer_size), None]
        else:
            rec = [*common, _i32(int(r.sampler_cmp)), None]
        lists[r.res_class].append(MDNode(rec))
    if not infos:
        return None
    return MDNode([MDNode(lists[c]) if lists[c] else None for c in CLASS_INDEX])


_PSV_TYPE = {("SRV", 11): "SRVRaw", ("SRV", 12): "SRVStructured", ("UAV", 11): "UAVRaw",
             ("UAV", 12): "UAVStructured"}


def psv_resources(infos: list[ResourceInfo]) -> list[PSVResource]:
    """PSV0 bind records in DXC's order: CBVs, samplers, SRVs, UAVs."""
    out: list[PSVResource] = []
    for cls in ("CBV", "Sampler", "SRV", "UAV"):
        for r in infos:
            if r.res_class != cls:
                continue
            if cls == "CBV":
                name = "CBV"
            elif cls == "Sampler":
                name = "Sampler"
            else:
                name = _PSV_TYPE.get((cls, r.shape), f"{cls}Typed")
                if name == "UAVStructured" and r.has_counter:
                    name = "UAVStructuredWithCounter"
            out.append(PSVResource(PSV_RESOURCE_TYPE[name], r.space, r.lower, r.upper, r.shape,
                                   1 if r.atomic64 else 0))      # PSVResourceFlag::UsedByAtomic64
    return out


def resource_properties(r: ResourceInfo) -> tuple[int, int]:
    """The two dwords of %dx.types.ResourceProperties (SM 6.6 annotateHandle)."""
    d0 = r.shape | (1 << 12 if r.res_class == "UAV" else 0) | (1 << 13 if r.rov else 0) \
        | (1 << 14 if r.globally_coherent else 0) \
        | (1 << 15 if r.sampler_cmp or r.has_counter else 0)
    if r.res_class == "CBV" or r.shape == KIND_TBUFFER:
        d1 = r.cbuffer_size
    elif r.shape == KIND_STRUCTURED:
        d1 = r.stride
    elif r.comp_type:
        d1 = r.comp_type | r.comp_count << 8
    else:
        d1 = 0
    return d0, d1


class HandleFactory:
    """Creates resource handles with the form the shader model requires."""

    def __init__(self, ops: OpEmitter, sm: tuple[int, int]) -> None:
        self.ops = ops
        self.sm = sm

    def create(self, b: IRBuilder, r: ResourceInfo, index: Value, non_uniform: bool = False) -> Value:
        """`index` is the flattened element index within the range (seed 001); the
        operand is lower bound + index."""
        if isinstance(index, ConstInt):
            abs_index: Value = ConstInt(T.i32, r.lower + index.value)
        elif r.lower:
            abs_index = b.add(index, ConstInt(T.i32, r.lower))
        else:
            abs_index = index
        nu = ConstInt(T.i1, int(non_uniform))
        from .ops import op_llvm_type
        props_t = op_llvm_type("ResourceProperties", None)
        d0, d1 = resource_properties(r)
        props = ConstAggregate(props_t, [ConstInt(T.i32, d0), ConstInt(T.i32, d1)])
        if r.symbol is not None:     # a library: load the resource's global, createHandleForLib (DXIL.rst)
            st = resource_type(r)
            ptr = r.symbol if not isinstance(symbol_type(r), T.ArrayType) else \
                b.gep(r.symbol, [ConstInt(T.i32, 0), index])
            h = self.ops.call_typed(b, "CreateHandleForLib", st, [b.load(ptr)])
            return h if self.sm < (6, 6) else self.ops.call(b, "AnnotateHandle", None, [h, props])
        if r.heap is not None:       # SM 6.6 dynamic resource: the index is the heap index
            h = self.ops.call(b, "CreateHandleFromHeap", None, [index, ConstInt(T.i1, int(r.heap == "sampler")), nu])
            return self.ops.call(b, "AnnotateHandle", None, [h, props])
        if self.sm < (6, 6):
            return self.ops.call(b, "CreateHandle", None,
                                 [ConstInt(T.i8, CLASS_INDEX[r.res_class]), ConstInt(T.i32, r.range_id), abs_index, nu])
        bind_t = op_llvm_type("ResBind", None)
        bind = ConstAggregate(bind_t, [ConstInt(T.i32, r.lower), ConstInt(T.i32, r.upper), ConstInt(T.i32, r.space),
                                       ConstInt(T.i8, CLASS_INDEX[r.res_class])])
        h = self.ops.call(b, "CreateHandleFromBinding", None, [bind, abs_index, nu])
        return self.ops.call(b, "AnnotateHandle", None, [h, props])
