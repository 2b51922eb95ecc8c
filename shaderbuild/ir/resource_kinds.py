"""The one resource-kind table: per HLSL resource kind, its access (the D3D
view: SRV, UAV, CBV or sampler), representation, dimension, coordinate and
offset sizes, element rule, Vulkan descriptor type and methods.  Sema, both
backends and the manifest read it; a new resource kind is one row here.
"""

from __future__ import annotations

from ..records import ValueRecord
from .intrinsics import (
    ATOMICS,
    ATOMICS64,
    FLOAT_BITWISE,
    FLOAT_EXCHANGE,
    GATHER_CMP_METHODS,
    GATHER_METHODS,
    LOD_METHODS,
    RAW_METHODS,
    SAMPLE_CMP_METHODS,
    SAMPLE_METHODS,
    STREAM_METHODS,
)

__all__ = ["KINDS", "REGISTER_CLASS", "ResourceKind", "kind_info"]

# D3D view -> register class letter
REGISTER_CLASS = {"SRV": "t", "UAV": "u", "CBV": "b", "Sampler": "s"}


class ResourceKind(ValueRecord):
    name: str
    access: str                  # 'SRV' | 'UAV' | 'CBV' | 'Sampler' | 'Stream' (a GS output stream: no view)
    rep: str                     # 'typed' (formatted texels) | 'structured' | 'raw' | 'cbuffer' | 'tbuffer' | 'sampler'
    #                              | 'stream' | 'accel' (a ray-tracing acceleration structure)
    descriptor: str              # Vulkan descriptor type (DXC's mapping; the manifest's Vulkan view)
    element: str                 # 'texel' (scalar/vector, float4 if omitted) | 'any' (a struct or numeric type)
    #                              | 'none' (no template argument) | 'block' (a cbuffer/tbuffer struct)
    methods: frozenset[str] = frozenset()
    dim: str | None = None       # '1D' | '2D' | '3D' | 'Cube' | 'Buffer' (formatted resources)
    arrayed: bool = False
    ms: bool = False
    coords: int = 0              # coordinate components, the array layer included
    offsets: int = 0             # components of a texel offset argument (0: takes none)
    size_components: int = 0     # sizes GetDimensions reports (width, height, depth / elements)
    indexed_load: str | None = None  # `tex.mips[level][coord]` / `ms.sample[i][coord]` member
    counter: bool = False        # Append/Consume: a hidden counter always in use
    topology: str | None = None  # geometry-shader streams: 'point' | 'line' | 'triangle' (strips)
    rov: bool = False            # a rasterizer-ordered view: its RW* twin, accesses ordered per pixel (pixel shaders)

    @property
    def register_class(self) -> str:
        return REGISTER_CLASS[self.access]


_SAMPLED = frozenset({*SAMPLE_METHODS, *LOD_METHODS, "Load", "GetDimensions"})
_GATHER = frozenset({*GATHER_METHODS, *GATHER_CMP_METHODS})
_STORAGE = frozenset({"Load", "GetDimensions"})
_STREAM = frozenset(STREAM_METHODS)


def _texture(name: str, dim: str, coords: int, offsets: int, sizes: int, arrayed: bool = False, ms: bool = False,
             gather: bool = False, indexed: str | None = "mips") -> ResourceKind:
    methods = frozenset({"Load", "GetDimensions", "GetSamplePosition"}) if ms else _SAMPLED | (
        _GATHER if gather else frozenset())
    if dim == "3D":     # no depth comparison on volumes (DXC's methods; Vulkan's VUID-...-OpImage-04777)
        methods -= frozenset(SAMPLE_CMP_METHODS)
    if dim == "Cube":   # cubes are only sampled: no Load (SPIR-V's OpImageFetch takes no Cube image either)
        methods -= {"Load"}
    return ResourceKind(name, "SRV", "typed", "sampled_image", "texel", methods, dim, arrayed, ms, coords, offsets,
                        sizes, indexed)


def _rw_texture(name: str, dim: str, coords: int, sizes: int, arrayed: bool = False) -> ResourceKind:
    return ResourceKind(name, "UAV", "typed", "storage_image", "texel", _STORAGE, dim, arrayed, False, coords, 0, sizes)


def _rov(rw: ResourceKind) -> ResourceKind:
    """RasterizerOrdered<X>: the row of RW<X> (same view, methods but the UAV counter), ordered."""
    name = "RasterizerOrdered" + rw.name.removeprefix("RW")
    fields = {f: getattr(rw, f) for f in ResourceKind._fields}
    fields.update(name=name, methods=rw.methods - {"IncrementCounter", "DecrementCounter"}, rov=True)
    return ResourceKind(**fields)


_ROWS = [
    _texture("Texture1D", "1D", 1, 1, 1),
    _texture("Texture1DArray", "1D", 2, 1, 2, arrayed=True),
    _texture("Texture2D", "2D", 2, 2, 2, gather=True),
    _texture("Texture2DArray", "2D", 3, 2, 3, arrayed=True, gather=True),
    _texture("Texture3D", "3D", 3, 3, 3),
    _texture("TextureCube", "Cube", 3, 0, 2, gather=True, indexed=None),
    _texture("TextureCubeArray", "Cube", 4, 0, 3, arrayed=True, gather=True, indexed=None),
    _texture("Texture2DMS", "2D", 2, 2, 2, ms=True, indexed="sample"),
    _texture("Texture2DMSArray", "2D", 3, 2, 3, arrayed=True, ms=True, indexed="sample"),
    _rw_texture("RWTexture1D", "1D", 1, 1),
    _rw_texture("RWTexture1DArray", "1D", 2, 2, arrayed=True),
    _rw_texture("RWTexture2D", "2D", 2, 2),
    _rw_texture("RWTexture2DArray", "2D", 3, 3, arrayed=True),
    _rw_texture("RWTexture3D", "3D", 3, 3),
    ResourceKind("Buffer", "SRV", "typed", "uniform_texel_buffer", "texel", _STORAGE, "Buffer", size_components=1),
    ResourceKind("RWBuffer", "UAV", "typed", "storage_texel_buffer", "texel", _STORAGE, "Buffer", size_components=1),
    ResourceKind("StructuredBuffer", "SRV", "structured", "storage_buffer", "any", _STORAGE),
    ResourceKind("RWStructuredBuffer", "UAV", "structured", "storage_buffer", "any",
                 _STORAGE | {"IncrementCounter", "DecrementCounter"}),
    ResourceKind("AppendStructuredBuffer", "UAV", "structured", "storage_buffer", "any",
                 frozenset({"Append", "GetDimensions"}), counter=True),
    ResourceKind("ConsumeStructuredBuffer", "UAV", "structured", "storage_buffer", "any",
                 frozenset({"Consume", "GetDimensions"}), counter=True),
    ResourceKind("ByteAddressBuffer", "SRV", "raw", "storage_buffer", "none",
                 frozenset({"Load", "Load2", "Load3", "Load4", "GetDimensions"})),
    ResourceKind("RWByteAddressBuffer", "UAV", "raw", "storage_buffer", "none",
                 frozenset({*RAW_METHODS, *ATOMICS, *ATOMICS64, *FLOAT_BITWISE, FLOAT_EXCHANGE,
                            "GetDimensions"})),
    ResourceKind("cbuffer", "CBV", "cbuffer", "uniform_buffer", "block"),
    ResourceKind("ConstantBuffer", "CBV", "cbuffer", "uniform_buffer", "block"),
    ResourceKind("$Globals", "CBV", "cbuffer", "uniform_buffer", "block"),
    ResourceKind("tbuffer", "SRV", "tbuffer", "storage_buffer", "block"),
    ResourceKind("TextureBuffer", "SRV", "tbuffer", "storage_buffer", "block"),
    ResourceKind("SamplerState", "Sampler", "sampler", "sampler", "none"),
    # a top-level acceleration structure (SM 6.5 inline ray tracing, DXR): read only by
    # RayQuery.TraceRayInline / TraceRay, which take it as an argument; no methods of its own
    ResourceKind("RaytracingAccelerationStructure", "SRV", "accel", "acceleration_structure", "none"),
    ResourceKind("SamplerComparisonState", "Sampler", "sampler", "sampler", "none"),
    # geometry-shader output streams: `inout` parameters of the entry point, not views (no register,
    # no descriptor); the entry wrapper makes each one the Output variables of its stream
    ResourceKind("PointStream", "Stream", "stream", "none", "any", _STREAM, topology="point"),
    ResourceKind("LineStream", "Stream", "stream", "none", "any", _STREAM, topology="line"),
    ResourceKind("TriangleStream", "Stream", "stream", "none", "any", _STREAM, topology="triangle"),
]

_ROWS += [_rov(k) for k in _ROWS if k.name in ("RWBuffer", "RWByteAddressBuffer", "RWStructuredBuffer", "RWTexture1D",
                                                 "RWTexture1DArray", "RWTexture2D", "RWTexture2DArray", "RWTexture3D")]
KINDS: dict[str, ResourceKind] = {k.name: k for k in _ROWS}


def kind_info(kind: str) -> ResourceKind | None:
    return KINDS.get(kind)
