"""The root signature model and the D3D12 enumerations it serializes to.

One table per concept: each maps the spelling used in HLSL root signature strings
to the D3D12 value (d3d12.h), so the parser, the printer, the serializer and the
manifest all read the same rows."""

from __future__ import annotations

from ..diagnostics import SourceLoc
from ..records import DataRecord, Record

# D3D_ROOT_SIGNATURE_VERSION: the RTS0 header's Version
VERSIONS = {"1.0": 1, "1.1": 2}

# D3D12_SHADER_VISIBILITY (spelled SHADER_VISIBILITY_<name>)
VISIBILITY = {"ALL": 0, "VERTEX": 1, "HULL": 2, "DOMAIN": 3, "GEOMETRY": 4, "PIXEL": 5,
              "AMPLIFICATION": 6, "MESH": 7}

# D3D12_ROOT_SIGNATURE_FLAGS (spelled without the D3D12_ROOT_SIGNATURE_FLAG_ prefix)
ROOT_FLAGS = {
    "ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT": 0x1,
    "DENY_VERTEX_SHADER_ROOT_ACCESS": 0x2,
    "DENY_HULL_SHADER_ROOT_ACCESS": 0x4,
    "DENY_DOMAIN_SHADER_ROOT_ACCESS": 0x8,
    "DENY_GEOMETRY_SHADER_ROOT_ACCESS": 0x10,
    "DENY_PIXEL_SHADER_ROOT_ACCESS": 0x20,
    "ALLOW_STREAM_OUTPUT": 0x40,
    "LOCAL_ROOT_SIGNATURE": 0x80,
    "DENY_AMPLIFICATION_SHADER_ROOT_ACCESS": 0x100,
    "DENY_MESH_SHADER_ROOT_ACCESS": 0x200,
    "CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED": 0x400,
    "SAMPLER_HEAP_DIRECTLY_INDEXED": 0x800,
}

# D3D12_ROOT_PARAMETER_TYPE
PARAMETER_TYPES = {"DescriptorTable": 0, "RootConstants": 1, "CBV": 2, "SRV": 3, "UAV": 4}

# D3D12_DESCRIPTOR_RANGE_TYPE
RANGE_TYPES = {"SRV": 0, "UAV": 1, "CBV": 2, "Sampler": 3}

# the HLSL register class each descriptor type binds
REGISTER_CLASS = {"CBV": "b", "SRV": "t", "UAV": "u", "Sampler": "s"}

# D3D12_ROOT_DESCRIPTOR_FLAGS (1.1)
DESCRIPTOR_FLAGS = {"DATA_VOLATILE": 0x2, "DATA_STATIC_WHILE_SET_AT_EXECUTE": 0x4, "DATA_STATIC": 0x8}

# D3D12_DESCRIPTOR_RANGE_FLAGS (1.1)
RANGE_FLAGS = {"DESCRIPTORS_VOLATILE": 0x1, "DATA_VOLATILE": 0x2, "DATA_STATIC_WHILE_SET_AT_EXECUTE": 0x4,
               "DATA_STATIC": 0x8, "DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS": 0x10000}

DATA_FLAGS = 0x2 | 0x4 | 0x8

# What the D3D12 runtime assumes for flags NONE.  DXC serializes an omitted `flags` as NONE (0),
# and the runtime reads NONE in 1.1 as: CBV/SRV data static while set at execute, UAV data
# volatile, descriptors static; a 1.0 root signature (no flags field) as everything volatile.
EFFECTIVE_DESCRIPTOR_FLAGS = {"1.1": {"CBV": 0x4, "SRV": 0x4, "UAV": 0x2},
                              "1.0": {"CBV": 0x2, "SRV": 0x2, "UAV": 0x2}}
EFFECTIVE_RANGE_FLAGS = {"1.1": {"CBV": 0x4, "SRV": 0x4, "UAV": 0x2, "Sampler": 0},
                         "1.0": {"CBV": 0x3, "SRV": 0x3, "UAV": 0x3, "Sampler": 0x1}}

RESERVED_SPACES = (0xFFFFFFF0, 0xFFFFFFFF)     # register spaces reserved for the system
MIP_LOD_BIAS_RANGE = (-16.0, 15.99)            # D3D12_MIP_LOD_BIAS_MIN / _MAX

UNBOUNDED = 0xFFFFFFFF           # numDescriptors = unbounded
OFFSET_APPEND = 0xFFFFFFFF       # D3D12_DESCRIPTOR_RANGE_OFFSET_APPEND

_FILTER_BASE = {
    "MIN_MAG_MIP_POINT": 0x0, "MIN_MAG_POINT_MIP_LINEAR": 0x1, "MIN_POINT_MAG_LINEAR_MIP_POINT": 0x4,
    "MIN_POINT_MAG_MIP_LINEAR": 0x5, "MIN_LINEAR_MAG_MIP_POINT": 0x10, "MIN_LINEAR_MAG_POINT_MIP_LINEAR": 0x11,
    "MIN_MAG_LINEAR_MIP_POINT": 0x14, "MIN_MAG_MIP_LINEAR": 0x15, "ANISOTROPIC": 0x55,
}
# D3D12_FILTER (spelled FILTER_<name>): the base filters, then their COMPARISON_, MINIMUM_, MAXIMUM_ reductions
FILTERS = {name: value | reduction for prefix, reduction in (("", 0), ("COMPARISON_", 0x80), ("MINIMUM_", 0x100),
                                                              ("MAXIMUM_", 0x180))
           for base, value in _FILTER_BASE.items() for name in (prefix + base,)}

# D3D12_TEXTURE_ADDRESS_MODE (spelled TEXTURE_ADDRESS_<name>)
ADDRESS_MODES = {"WRAP": 1, "MIRROR": 2, "CLAMP": 3, "BORDER": 4, "MIRROR_ONCE": 5}

# D3D12_COMPARISON_FUNC (spelled COMPARISON_<name>)
COMPARISON_FUNCS = {"NEVER": 1, "LESS": 2, "EQUAL": 3, "LESS_EQUAL": 4, "GREATER": 5, "NOT_EQUAL": 6,
                    "GREATER_EQUAL": 7, "ALWAYS": 8}

# D3D12_STATIC_BORDER_COLOR (spelled STATIC_BORDER_COLOR_<name>)
BORDER_COLORS = {"TRANSPARENT_BLACK": 0, "OPAQUE_BLACK": 1, "OPAQUE_WHITE": 2, "OPAQUE_BLACK_UINT": 3,
                 "OPAQUE_WHITE_UINT": 4}

FLOAT32_MAX = 3.402823466e38     # D3D12_FLOAT32_MAX, StaticSampler's default maxLOD


def names_of(table: dict[str, int], mask: int) -> list[str]:
    """The names of the bits set in `mask` (a flags table), in table order."""
    return [name for name, bit in table.items() if mask & bit]


def name_of(table: dict[str, int], value: int) -> str:
    return next(name for name, v in table.items() if v == value)


class _Model(DataRecord):
    """Compared by its fields but where it was written (`loc`, ...): records rather than dataclasses, whose
    module imports `inspect` (~5 ms of a cold compile of a shader with a root signature, issue 23)."""

    __slots__ = ()
    _UNCOMPARED = frozenset({"loc", "flags_loc", "text"})

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self._fields if f not in self._UNCOMPARED)


class DescriptorRange(_Model):
    """One range of a descriptor table (D3D12_DESCRIPTOR_RANGE1)."""

    kind: str                       # 'CBV' | 'SRV' | 'UAV' | 'Sampler'
    register: int
    count: int | None = 1           # None = unbounded
    space: int = 0
    offset: int | None = None       # None = DESCRIPTOR_RANGE_OFFSET_APPEND
    flags: int = 0
    loc: SourceLoc | None = None


class RootParameter(_Model):
    """One root parameter (D3D12_ROOT_PARAMETER1): a table, root constants or a root descriptor."""

    kind: str                       # 'DescriptorTable' | 'RootConstants' | 'CBV' | 'SRV' | 'UAV'
    visibility: str = "ALL"
    register: int = 0               # constants and descriptors
    space: int = 0
    num_32bit_values: int = 0       # RootConstants
    flags: int = 0                  # root descriptors (1.1)
    ranges: list[DescriptorRange] = Record.factory(list)
    loc: SourceLoc | None = None


class StaticSampler(_Model):
    """D3D12_STATIC_SAMPLER_DESC, with DXC's defaults."""

    register: int
    space: int = 0
    filter: str = "ANISOTROPIC"
    address_u: str = "WRAP"
    address_v: str = "WRAP"
    address_w: str = "WRAP"
    mip_lod_bias: float = 0.0
    max_anisotropy: int = 16
    comparison_func: str = "LESS_EQUAL"
    border_color: str = "OPAQUE_WHITE"
    min_lod: float = 0.0
    max_lod: float = FLOAT32_MAX
    visibility: str = "ALL"
    loc: SourceLoc | None = None


class RootSignature(_Model):
    """A versioned root signature (D3D12_VERSIONED_ROOT_SIGNATURE_DESC)."""

    version: str = "1.1"            # '1.0' | '1.1'
    flags: int = 0
    parameters: list[RootParameter] = Record.factory(list)
    static_samplers: list[StaticSampler] = Record.factory(list)
    loc: SourceLoc | None = None
    flags_loc: SourceLoc | None = None    # the RootFlags clause
    text: str = ""    # the string it was parsed from
