"""HLSL resources -> SPIR-V variables, types and Vulkan reflection.

One table (`KINDS`, read from shaderbuild/ir/resource_kinds.py) says, per HLSL resource kind, how it is represented:
a buffer block (struct wrapping a runtime array, or the cbuffer struct itself)
or an opaque image/sampler, which layout rule applies and which Vulkan
descriptor type it binds as.  Conventions follow DXC's SPIR-V.rst.
"""

from __future__ import annotations

from shaderbuild.diagnostics import CompileError, error
from shaderbuild.ir.layout import vulkan_rule
from shaderbuild.ir.nodes import Variable, binding_of, view_binding
from shaderbuild.ir.resource_kinds import KINDS as RESOURCE_KINDS
from shaderbuild.ir.types import INT, UINT, Array, Resource, Scalar, Struct, StructField, Type, Vector, resource_elem
from shaderbuild.records import DataRecord, ValueRecord

from .builder import enum
from .emit_types import TypeLowering
from .grammar import ENUMS


class Kind(ValueRecord):
    rep: str                 # 'structured' | 'bytes' | 'cbuffer' | 'tbuffer' | 'image' | 'sampler' | 'accel'
    descriptor: str          # Vulkan descriptor type for reflection
    writable: bool = False
    dim: str | None = None   # SPIR-V Dim for images
    arrayed: bool = False
    ms: bool = False


# the core resource-kind table's representation -> this backend's
_REP = {"structured": "structured", "raw": "bytes", "cbuffer": "cbuffer", "tbuffer": "tbuffer", "typed": "image",
        "sampler": "sampler", "accel": "accel"}
KINDS: dict[str, Kind] = {
    name: Kind(_REP[k.rep], k.descriptor, k.access == "UAV", k.dim, k.arrayed, k.ms)
    for name, k in RESOURCE_KINDS.items() if name != "$Globals" and k.rep != "stream"   # streams: stage outputs
}

_DIM_CAPS: dict[tuple[str | None, bool], str] = {("1D", False): "Sampled1D", ("1D", True): "Image1D", ("Buffer", False): "SampledBuffer",
             ("Buffer", True): "ImageBuffer"}
_CUBE_ARRAY_CAPS = {False: "SampledCubeArray", True: "ImageCubeArray"}

# (scalar kind, width, components) -> SPIR-V ImageFormat for storage images
_FORMATS = {
    ("float", 32, 1): "R32f", ("float", 32, 2): "Rg32f", ("float", 32, 4): "Rgba32f",
    ("float", 16, 1): "R16f", ("float", 16, 2): "Rg16f", ("float", 16, 4): "Rgba16f",
    ("int", 32, 1): "R32i", ("int", 32, 2): "Rg32i", ("int", 32, 4): "Rgba32i",
    ("uint", 32, 1): "R32ui", ("uint", 32, 2): "Rg32ui", ("uint", 32, 4): "Rgba32ui",
    ("int", 16, 1): "R16i", ("int", 16, 2): "Rg16i", ("int", 16, 4): "Rgba16i",
    ("uint", 16, 1): "R16ui", ("uint", 16, 2): "Rg16ui", ("uint", 16, 4): "Rgba16ui",
}
_EXTENDED_FORMATS = frozenset(("Rg32f", "Rg16f", "R16f", "Rg32i", "Rg32ui", "R16i", "Rg16i", "R16ui", "Rg16ui"))
# [[vk::image_format("...")]] names (DXC's spelling: the ImageFormat lower-cased) -> ImageFormat; the formats
# a storage image may have without StorageImageExtendedFormats (SPIR-V spec, capability Shader)
_NAMED_FORMATS = {**{f.lower(): f for f in ENUMS["ImageFormat"] if not f.startswith("R64")}, "r11g11b10f": "R11fG11fB10f"}
_BASE_FORMATS = frozenset(("Rgba32f", "Rgba16f", "R32f", "Rgba8", "Rgba8Snorm", "Rgba32i", "Rgba16i", "Rgba8i", "R32i",
                           "Rgba32ui", "Rgba16ui", "Rgba8ui", "R32ui"))


def _named_format(name: str, s: Scalar) -> str:
    """The ImageFormat [[vk::image_format]] names; its numeric class must be the element's (Vulkan's
    VUID-StandaloneSpirv-Image-04965: a float/unorm/snorm format reads floats, *i ints, *ui uints)."""
    fmt = _NAMED_FORMATS.get(name.lower())
    if fmt is None:
        raise error(f"unknown or unsupported image format '{name}' in 'vk::image_format'")
    kind = "float" if fmt == "Unknown" else "uint" if fmt.endswith("ui") else "int" if fmt.endswith("i") else "float"
    if fmt != "Unknown" and kind != s.kind:
        raise error(f"image format '{name}' holds {kind} texels, the element type has {s.kind} components")
    return fmt


# a min-precision element held at 32 bits (`half` without -enable-16bit-types, min16float, ...): DXC's
# SPIR-V gives its storage image the 16-bit format of the element's kind (the image a D3D user binds there)
_MIN_PRECISION_FORMATS = {"half": "16f", "min16float": "16f", "min10float": "16f", "min16int": "16i",
                          "min12int": "16i", "min16uint": "16ui"}


def image_format(var: Variable) -> str | None:
    """The format [[vk::image_format]] names on a resource variable, else the 16-bit format of a
    min-precision element held at 32 bits (as DXC), if any."""
    b = var.binding
    if b is None:
        return None
    if b.vk_image_format is not None:
        return b.vk_image_format
    bits = _MIN_PRECISION_FORMATS.get(b.elem_spelling)
    t = var.type
    while isinstance(t, Array):
        t = t.elem
    if bits is None or not isinstance(t, Resource) or not kind_of(t).writable:
        return None
    s, n = element_scalar(t)
    return None if s.width != 32 or n == 3 else ("r", "rg", "", "rgba")[n - 1] + bits


def kind_of(t: Resource) -> Kind:
    k = KINDS.get(t.kind)
    if k is None:
        raise error(f"resource type '{t.kind}' is not supported by the SPIR-V backend")
    return k


def element_scalar(t: Resource) -> tuple[Scalar, int]:
    """Component scalar and count of a texture/typed buffer's element (float4 default)."""
    e = t.elem if t.elem is not None else Vector(Scalar("float"), 4)
    if isinstance(e, Scalar):
        return e, 1
    if isinstance(e, Vector):
        return e.elem, e.size
    raise error(f"invalid element type {e} for {t.kind}")


def texel_scalar(t: Resource) -> tuple[Scalar, int]:
    """Component scalar and count of the image itself.  A 64-bit element is stored as pairs of 32-bit
    uint words (as DXC splits it for DXIL): Vulkan has no 64-bit float images, and 64-bit integer
    images need Int64ImageEXT, which lavapipe and most drivers lack."""
    s, n = element_scalar(t)
    if s.width == 16:           # Vulkan images have 32-bit sampled types: 16-bit texels convert (as DXC)
        return Scalar(s.kind, 32), n
    if s.width != 64:
        return s, n
    if n > 2:
        raise error(f"the element type of '{t}' does not fit in four 32-bit components")
    return UINT, 2 * n


class ResourceVar(DataRecord):
    """How a resource global was lowered."""

    var: Variable
    id: int
    storage_class: str
    layout: str | None
    kind: Kind
    rtype: Resource
    block_type: int | None      # SPIR-V struct type of a buffer block
    set: int
    binding: int
    count: int | None           # array size; None = unbounded
    counter: int | None = None  # variable of the UAV counter (created on first use)
    counter_binding: int | None = None


def vk_binding(var: Variable) -> tuple[int, int]:
    """(set, binding): the core pass's assignment, else the HLSL register as DXC would map it."""
    bd = var.binding
    if bd is None:
        raise error(f"resource '{var.name}' has no binding", var.loc)
    if bd.vk is not None:
        return bd.vk.set, bd.vk.binding
    if bd.vk_explicit is not None:
        return bd.vk_explicit[1], bd.vk_explicit[0]
    return bd.space, bd.register or 0


class ResourceLowering:
    """Creates resource variables; keeps what the expression emitter needs."""

    def __init__(self, types: TypeLowering, spirv_14: bool, vk_layout: str = "default") -> None:
        self.T = types
        self.b = types.b
        self.spirv_14 = spirv_14
        self.vk_layout = vk_layout
        self.storage_rule = vulkan_rule("storage", vk_layout)    # DXC: -fvk-use-{dx,gl,scalar}-layout
        self.uniform_rule = vulkan_rule("uniform", vk_layout)
        self.used_bindings: dict[int, set[int]] = {}
        self.heap_counter: int | None = None    # the counter heap's variable (created on first use)

    def buffer_class(self) -> tuple[str, str]:
        """(storage class, block decoration) of storage buffers for the target version."""
        return ("StorageBuffer", "Block") if self.spirv_14 else ("Uniform", "BufferBlock")

    def lower(self, var: Variable) -> ResourceVar:
        t = var.type
        count: int | None = 1
        if isinstance(t, Array):
            count = t.size
            t = t.elem
        if not isinstance(t, Resource):
            if isinstance(t, Struct):   # a struct-typed block: Binding.kind says which (cbuffer, tbuffer, ...)
                kind = var.binding.kind if var.binding is not None and var.binding.kind in KINDS else "cbuffer"
                t = Resource(kind if kind != "$Globals" else "cbuffer", t)
            else:
                raise error(f"global '{var.name}' of type {var.type} cannot be bound as a resource", var.loc)
        k = kind_of(t)
        if k.rep == "image":     # a 64-bit element wider than two components: say where (fuzz finding)
            elem, n = element_scalar(t)
            if elem.width == 64 and n > 2:
                raise error(f"the element type of '{t}' does not fit in four 32-bit components", var.loc)
        try:
            sc, layout, block_type, inner = self._inner_type(var, t, k)
        except CompileError as exc:      # a type-level error (texel_scalar, ...): located at the variable
            if exc.diagnostics[0].loc is not None:
                raise
            raise error(exc.diagnostics[0].message, var.loc) from None
        outer = inner
        if isinstance(var.type, Array):
            if count is None:
                self.b.capability("RuntimeDescriptorArray")
                if self.b.version < (1, 5):
                    self.b.extension("SPV_EXT_descriptor_indexing")
                outer = self.b.type("OpTypeRuntimeArray", inner)
            else:
                outer = self.b.type("OpTypeArray", inner, self.T.uconst(count))
        vid = self.b.global_variable(self.T.ptr(sc, outer), sc)
        self.b.name(vid, var.name)
        s, bnd = vk_binding(var)
        self.b.decorate(vid, "DescriptorSet", s)
        self.b.decorate(vid, "Binding", bnd)
        if var.binding is not None and var.binding.globally_coherent:
            self.b.decorate(vid, "Coherent")        # DXC's: on the resource variable
        self.used_bindings.setdefault(s, set()).add(bnd)
        return ResourceVar(var, vid, sc, layout, k, t, block_type, s, bnd, count)

    def counter(self, rv: ResourceVar) -> int:
        """The counter variable of an RW/Append/Consume structured buffer (DXC: a separate
        `struct { int }` buffer in the same set); binding from [[vk::counter_binding]] or the
        core pass, else the next free binding of the set."""
        if rv.counter is not None:
            return rv.counter
        if rv.var.binding is not None and rv.var.binding.heap is not None:
            return self._heap_counter(rv)
        bd = binding_of(rv.var)
        b = bd.vk.counter_binding if bd.vk is not None else None
        if b is None:
            b = bd.vk_counter_explicit
        used = self.used_bindings.setdefault(rv.set, set())
        if b is None:
            b = next(n for n in range(len(used) + 1) if n not in used)
        used.add(b)
        sc, deco = self.buffer_class()
        st = Struct("type.ACSBuffer.counter", (StructField("counter", INT),))
        bt = self.T.block_struct(st.name, st, "std430")
        self.b.decorate(bt, deco)
        if isinstance(rv.var.type, Array):   # a resource array: an array of counters, one per element (DXC)
            bt = (self.b.type("OpTypeRuntimeArray", bt) if rv.count is None
                  else self.b.type("OpTypeArray", bt, self.T.uconst(rv.count)))
        vid = self.b.global_variable(self.T.ptr(sc, bt), sc)
        self.b.name(vid, f"counter.var.{rv.var.name}")
        self.b.decorate(vid, "DescriptorSet", rv.set)
        self.b.decorate(vid, "Binding", b)
        rv.counter, rv.counter_binding = vid, b
        return vid

    def _heap_counter(self, rv: ResourceVar) -> int:
        """DXC's counter heap: one runtime array of `struct { int }` counters for every heap view,
        at the binding vk_bindings gave (element i counts for the buffer at heap index i)."""
        vk = view_binding(rv.var)[0].vk
        assert vk is not None and vk.counter_binding is not None      # passes/vk_bindings.py
        if self.heap_counter is None:
            sc, deco = self.buffer_class()
            st = Struct("type.ACSBuffer.counter", (StructField("counter", INT),))
            bt = self.T.block_struct(st.name, st, "std430")
            self.b.decorate(bt, deco)
            arr = self.b.type("OpTypeRuntimeArray", bt)
            vid = self.b.global_variable(self.T.ptr(sc, arr), sc)
            self.b.name(vid, "counter.var.ResourceDescriptorHeap")
            set_ = vk.set if vk.counter_set is None else vk.counter_set
            self.b.decorate(vid, "DescriptorSet", set_)
            self.b.decorate(vid, "Binding", vk.counter_binding)
            self.used_bindings.setdefault(set_, set()).add(vk.counter_binding)
            self.heap_counter = vid
        rv.counter, rv.counter_binding = self.heap_counter, vk.counter_binding
        return self.heap_counter

    def _inner_type(self, var: Variable, t: Resource, k: Kind) -> tuple[str, str | None, int | None, int]:
        if k.rep in ("structured", "bytes"):
            elem = UINT if k.rep == "bytes" else t.elem
            if elem is None:
                raise error(f"{t.kind} needs an element type", var.loc)
            sc, deco = self.buffer_class()
            layout = self.storage_rule
            wrapper = Struct(f"type.{t.kind}.{elem}{'.row_major' if t.row_major else ''}",
                             (StructField("_", Array(elem, None), row_major=t.row_major),))
            self.T.note_storage(elem, "storage")
            bt = self.T.block_struct(wrapper.name, wrapper, layout)
            self.b.decorate(bt, deco)
            if not k.writable:
                self.b.member_decorate(bt, 0, "NonWritable")
            return sc, layout, bt, bt
        if k.rep in ("cbuffer", "tbuffer"):
            if not isinstance(t.elem, Struct):
                raise error(f"{t.kind} '{var.name}' needs a struct element type", var.loc)
            if k.rep == "cbuffer":
                sc, deco, layout = "Uniform", "Block", self.uniform_rule
            else:
                (sc, deco), layout = self.buffer_class(), self.storage_rule
            self.T.note_storage(t.elem, "uniform" if k.rep == "cbuffer" else "storage")
            # `cbuffer Foo {...}` arrives as a struct the front end already named (DXC: type.Foo)
            name = t.elem.name if t.kind in ("cbuffer", "tbuffer") else f"type.{t.kind}.{t.elem.name}"
            bt = self.T.block_struct(name, t.elem, layout)
            self.b.decorate(bt, deco)
            if k.rep == "tbuffer":
                for i in range(len(t.elem.fields)):
                    self.b.member_decorate(bt, i, "NonWritable")
            return sc, layout, bt, bt
        if k.rep == "sampler":
            return "UniformConstant", None, None, self.b.type("OpTypeSampler")
        if k.rep == "accel":
            return "UniformConstant", None, None, self.T.acceleration_structure()
        return "UniformConstant", None, None, self.image_type(t, k, image_format(var))

    def image_type(self, t: Resource, k: Kind, named: str | None = None) -> int:
        """named: the format a [[vk::image_format]] gives the variable, instead of the one of its element type."""
        assert k.dim is not None        # every image kind has a Dim
        s, n = texel_scalar(t)
        sampled_type = self.T.scalar(s)
        fmt: str | None = "Unknown"
        if named is not None:
            fmt = _named_format(named, s)
            if k.writable and fmt == "Unknown":
                self.b.capability("StorageImageWriteWithoutFormat")
                self.b.capability("StorageImageReadWithoutFormat")
            elif k.writable and fmt not in _BASE_FORMATS:
                self.b.capability("StorageImageExtendedFormats")
        elif k.writable:
            es = element_scalar(t)[0]       # the format keeps a 16-bit element's width (Rgba16f, R16ui, ...)
            fmt = _FORMATS.get((s.kind, es.width if es.width == 16 else s.width, n if n != 3 else 4))
            if fmt is None:
                fmt = "Unknown"
                self.b.capability("StorageImageWriteWithoutFormat")
                self.b.capability("StorageImageReadWithoutFormat")
            elif fmt in _EXTENDED_FORMATS:
                self.b.capability("StorageImageExtendedFormats")
        cap = _DIM_CAPS.get((k.dim, k.writable))
        if cap:
            self.b.capability(cap)
        if k.dim == "Cube" and k.arrayed:
            self.b.capability(_CUBE_ARRAY_CAPS[k.writable])
        if k.ms and k.arrayed and k.writable:
            self.b.capability("ImageMSArray")
        assert fmt is not None
        return self.b.type("OpTypeImage", sampled_type, enum("Dim", k.dim), 2, int(k.arrayed), int(k.ms),
                           2 if k.writable else 1, enum("ImageFormat", fmt))


def reflection_entries(r: ResourceVar) -> list[dict]:
    """The resource's descriptor, and its counter buffer's when it has one."""
    out = [{"name": r.var.name, "set": r.set, "binding": r.binding, "descriptor_type": r.kind.descriptor,
            "count": r.count, "type": str(r.rtype)}]
    if r.counter is not None:
        out.append({"name": f"counter.var.{r.var.name}", "set": r.set, "binding": r.counter_binding,
                    "descriptor_type": "storage_buffer", "count": r.count if isinstance(r.var.type, Array) else 1,
                    "type": "counter", "counter_of": r.var.name})
    return out


def block_member_type(r: ResourceVar) -> Type:
    """IR type of the runtime array inside a structured/byte-address buffer block."""
    return Array(UINT if r.kind.rep == "bytes" else resource_elem(r.rtype), None)
