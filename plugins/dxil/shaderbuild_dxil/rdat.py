"""The RDAT part (runtime data) of a DXIL library: what D3D12's state-object creation reads
instead of parsing the bitcode.  Layout from DXC's DxilRuntimeReflection.h, RDAT_LibraryTypes.inl
and RDAT_SubobjectTypes.inl (facts only; the code is ours):

    header   u32 version (0x10), u32 part count, u32 offset of each part (from the header)
    part     u32 type, u32 size (4-byte aligned), the bytes
    parts    string buffer (1), resource table (3), function table (4), index arrays (2),
             raw bytes (5), subobject table (6): in that order, empty ones left out
    table    u32 record count, u32 record stride, the records

Strings are NUL-terminated UTF-8 in the string buffer (offset 0 is the empty string); an array
reference is the offset (in u32s) of a count followed by that many u32s in the index arrays;
RDAT_NULL_REF (0xFFFFFFFF) is no array."""

from __future__ import annotations

import struct

from shaderbuild.records import DataRecord, Record

__all__ = ["RdatResource", "RdatFunction", "RdatSubobject", "rdat_part", "NULL_REF", "RDAT_VERSION", "PART_TYPES",
           "FUNCTION_STRIDE", "RESOURCE_STRIDE", "SUBOBJECT_STRIDE", "encode_min_target", "parse_rdat",
           "RESOURCE_FLAG_UAV_COUNTER", "RESOURCE_FLAG_GLOBALLY_COHERENT", "RESOURCE_FLAG_ATOMICS64"]

RDAT_VERSION = 0x10
NULL_REF = 0xFFFFFFFF
PART_TYPES = {"strings": 1, "index": 2, "resources": 3, "functions": 4, "raw": 5, "subobjects": 6}
RESOURCE_STRIDE = 8 * 4      # Class, Kind, ID, Space, LowerBound, UpperBound, Name, Flags
FUNCTION_STRIDE = 11 * 4     # Name, UnmangledName, Resources, FunctionDependencies, ShaderKind, PayloadSize,
#                              AttributeSize, FeatureInfo1, FeatureInfo2, ShaderStageFlag, MinShaderTarget
SUBOBJECT_STRIDE = 6 * 4     # Kind, Name, then the union of the kinds' records (a hit group's 4 u32s)
RESOURCE_FLAG_UAV_COUNTER = 1 << 1
RESOURCE_FLAG_GLOBALLY_COHERENT = 1 << 0
RESOURCE_FLAG_ATOMICS64 = 1 << 4     # RDAT::DxilResourceFlag::Atomics64Use


class RdatResource(DataRecord):
    res_class: int          # DXIL::ResourceClass: SRV 0, UAV 1, CBuffer 2, Sampler 3
    kind: int               # DXIL::ResourceKind
    id: int
    space: int
    lower: int
    upper: int              # 0xFFFFFFFF for unbounded
    name: str
    flags: int = 0


class RdatFunction(DataRecord):
    name: str
    unmangled: str
    kind: int                                   # DXIL::ShaderKind (6: a library function)
    resources: list[int] = Record.factory(list)    # indices into the resource table
    dependencies: list[str] = Record.factory(list)  # external functions it calls
    payload_size: int = 0
    attribute_size: int = 0
    feature_flags: int = 0                      # the 64-bit SFI0 feature bits of this function
    stage_mask: int = 0                         # the shader kinds it may run in (bit per DXIL::ShaderKind)
    min_target: int = 0                         # encode_min_target(kind, major, minor)


class RdatSubobject(DataRecord):
    kind: int               # DXIL::SubobjectKind (D3D12_STATE_SUBOBJECT_TYPE)
    name: str
    values: tuple           # per kind, see _subobject_record
    data: bytes = b""       # a root signature's serialized RTS0


def encode_min_target(kind: int, major: int, minor: int) -> int:
    return kind << 16 | major << 4 | minor


class _Builder:
    def __init__(self) -> None:
        self.strings = bytearray(b"\0")
        self.string_offsets: dict[str, int] = {"": 0}
        self.index: list[int] = []
        self.index_offsets: dict[tuple[int, ...], int] = {}
        self.raw = bytearray()
        self.raw_offsets: dict[bytes, int] = {}

    def string(self, s: str) -> int:
        off = self.string_offsets.get(s)
        if off is None:
            off = self.string_offsets[s] = len(self.strings)
            self.strings += s.encode() + b"\0"
        return off

    def array(self, items: list[int]) -> int:
        """An index array, shared with an equal one already written (as DXC deduplicates them)."""
        key = tuple(items)
        off = self.index_offsets.get(key)
        if off is None:
            off = self.index_offsets[key] = len(self.index)
            self.index += [len(items), *items]
        return off

    def bytes_ref(self, data: bytes) -> tuple[int, int]:
        off = self.raw_offsets.get(data)
        if off is None:
            off = self.raw_offsets[data] = len(self.raw)
            self.raw += data
        return off, len(data)


def _table(records: list[bytes], stride: int) -> bytes:
    if not records:
        return b""
    assert all(len(r) == stride for r in records)
    return struct.pack("<II", len(records), stride) + b"".join(records)


def _subobject_record(b: _Builder, o: RdatSubobject) -> bytes:
    """Kind, Name, and the kind's record padded to the union's size (16 bytes)."""
    k, v = o.kind, o.values
    if k == 0:                                  # StateObjectConfig: Flags
        body = struct.pack("<I", v[0])
    elif k in (1, 2):                           # Global/LocalRootSignature: Data (offset, size in raw bytes)
        body = struct.pack("<II", *b.bytes_ref(o.data))
    elif k == 8:                                # SubobjectToExportsAssociation: Subobject, Exports (string array)
        subobject = b.string(v[0])
        body = struct.pack("<II", subobject, b.array([b.string(e) for e in v[1]]))
    elif k == 9:                                # RaytracingShaderConfig: MaxPayloadSize, MaxAttributeSize
        body = struct.pack("<II", v[0], v[1])
    elif k == 10:                               # RaytracingPipelineConfig: MaxTraceRecursionDepth
        body = struct.pack("<I", v[0])
    elif k == 11:                               # HitGroup: Type, AnyHit, ClosestHit, Intersection
        body = struct.pack("<IIII", v[0], b.string(v[1]), b.string(v[2]), b.string(v[3]))
    elif k == 12:                               # RaytracingPipelineConfig1: MaxTraceRecursionDepth, Flags
        body = struct.pack("<II", v[0], v[1])
    else:
        raise ValueError(f"subobject kind {k} has no RDAT record")
    return struct.pack("<II", k, b.string(o.name)) + body.ljust(SUBOBJECT_STRIDE - 8, b"\0")


def rdat_part(resources: list[RdatResource], functions: list[RdatFunction],
              subobjects: list[RdatSubobject]) -> bytes:
    """The RDAT part's bytes.  Strings are added in DXC's order (resource names, then per function
    its names, then subobjects), so equal inputs give the offsets DXC's builder gives."""
    b = _Builder()
    res_records = []
    for r in resources:
        name = b.string(r.name)
        res_records.append(struct.pack("<8I", r.res_class, r.kind, r.id, r.space, r.lower, r.upper, name, r.flags))
    fn_records = []
    for f in functions:
        deps = [b.string(d) for d in f.dependencies]
        name, unmangled = b.string(f.name), b.string(f.unmangled)
        res_ref = b.array(f.resources) if f.resources else NULL_REF
        dep_ref = b.array(deps) if deps else NULL_REF
        fn_records.append(struct.pack("<11I", name, unmangled, res_ref, dep_ref, f.kind, f.payload_size,
                                      f.attribute_size, f.feature_flags & 0xFFFFFFFF, f.feature_flags >> 32,
                                      f.stage_mask, f.min_target))
    so_records = [_subobject_record(b, o) for o in subobjects]
    parts = [
        (PART_TYPES["strings"], bytes(b.strings)),
        (PART_TYPES["resources"], _table(res_records, RESOURCE_STRIDE)),
        (PART_TYPES["functions"], _table(fn_records, FUNCTION_STRIDE)),
        (PART_TYPES["index"], struct.pack(f"<{len(b.index)}I", *b.index)),
        (PART_TYPES["raw"], bytes(b.raw)),
        (PART_TYPES["subobjects"], _table(so_records, SUBOBJECT_STRIDE)),
    ]
    parts = [(t, data + bytes(-len(data) % 4)) for t, data in parts if data]
    head = 8 + 4 * len(parts)
    offsets, body = [], bytearray()
    for t, data in parts:
        offsets.append(head + len(body))
        body += struct.pack("<II", t, len(data)) + data
    return struct.pack(f"<II{len(parts)}I", RDAT_VERSION, len(parts), *offsets) + bytes(body)


def parse_rdat(data: bytes) -> dict[int, bytes]:
    """The parts of an RDAT blob by type (for tests and the self-check)."""
    version, count = struct.unpack_from("<II", data, 0)
    if version != RDAT_VERSION:
        raise ValueError(f"RDAT version 0x{version:x}")
    out = {}
    for off in struct.unpack_from(f"<{count}I", data, 8):
        t, size = struct.unpack_from("<II", data, off)
        out[t] = data[off + 8:off + 8 + size]
    return out
