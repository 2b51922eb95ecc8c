"""The DXBC container around DXIL: SFI0, ISG1, OSG1, [PSG1], PSV0, HASH, DXIL.

Part order and layouts follow DXC's container writer (DxilContainer.h,
DxilPipelineStateValidation.h).  The PSV0 runtime-info version follows
`dx.valver` exactly, because the validator rejects any other size.  PSV0's
ViewID masks and input->output dependency table come from viewid.py (the same
state `dx.viewIdState` serializes).
"""

from __future__ import annotations

import struct

from shaderbuild.records import DataRecord, Record

__all__ = ["BYPASS_HASH", "PREVIEW_HASH", "SignatureElement", "PSVResource", "ContainerInfo", "build_container", "psv_version", "fourcc",
           "SHADER_KIND", "MAX_STREAMS", "GeometryState", "PSV_RESOURCE_TYPE", "parse_container", "program_part",
           "debug_name_part", "assemble_container"]

LINE_DENSITY_TESS_FACTOR, LINE_DETAIL_TESS_FACTOR = 16, 15     # DxilProgramSigSemantic
SHADER_KIND = {"pixel": 0, "vertex": 1, "geometry": 2, "hull": 3, "domain": 4, "compute": 5, "library": 6,
               "mesh": 13, "amplification": 14}
PSV_RESOURCE_TYPE = {"Sampler": 1, "CBV": 2, "SRVTyped": 3, "SRVRaw": 4, "SRVStructured": 5, "UAVTyped": 6,
                     "UAVRaw": 7, "UAVStructured": 8, "UAVStructuredWithCounter": 9}
RUNTIME_INFO_SIZE = {0: 24, 1: 36, 2: 48, 3: 52, 4: 56}
MAX_STREAMS = 4
# The header digest's patterns for a container that is not hashed: BYPASS (our default) and PREVIEW
# (DXC's PreviewByPassHash).  The retail digest is hash.py's, imported for `--dxil-hash retail` only.
BYPASS_HASH = b"\x01" * 16
PREVIEW_HASH = b"\x02" * 16
PSV_SIG_ELEMENT_SIZE = 16          # PSVSignatureElement0: two u32 + eight u8


def fourcc(s: str) -> int:
    return int.from_bytes(s.encode(), "little")


def psv_version(valver: tuple[int, int]) -> int:
    """PSV0 version implied by the validator version (DXC GetPSVVersion)."""
    if valver < (1, 1):
        return 0
    if valver < (1, 6):
        return 1
    if valver < (1, 8):
        return 2
    if valver < (1, 10):
        return 3
    return 4


class SignatureElement(DataRecord):
    """One signature element, as both the ISG1/OSG1 part and PSV0 need it."""

    name: str
    index: int                 # semantic index
    system_value: int          # DxilProgramSigSemantic (0 = arbitrary)
    semantic_kind: int         # PSV semantic kind (DXIL::SemanticKind)
    comp_type: int             # DxilProgramSigCompType (1 u32, 2 s32, 3 f32, ...)
    register: int
    mask: int                  # component mask
    rw_mask: int = 0           # never-writes (outputs) / always-reads (inputs)
    cols: int = 1
    start_col: int = 0
    rows: int = 1
    interpolation: int = 0
    min_precision: int = 0
    stream: int = 0
    indices: tuple[int, ...] = ()     # each row's semantic index when not index, index + 1, ...

    def semantic_index(self, row: int) -> int:
        return self.indices[row] if self.indices else self.index + row


class GeometryState(DataRecord):
    """A geometry shader's PSV0 facts (DXIL numbers)."""

    input_primitive: int
    output_topology: int
    stream_mask: int
    max_vertex_count: int


class PSVResource(DataRecord):
    res_type: int              # PSV_RESOURCE_TYPE value
    space: int
    lower: int
    upper: int                 # inclusive; 0xFFFFFFFF unbounded
    kind: int                  # ResourceKind
    flags: int = 0


TYPE_CHECKING = False
if TYPE_CHECKING:     # for mypy only: typing and Protocol classes would cost a cold compile ~2 ms
    from typing import Any, Protocol

    class ViewIdTables(Protocol):
        """What this layer and the facts above it read of viewid.ViewIdState (defined in a higher layer)."""

        @property
        def num_inputs(self) -> int: ...

        @property
        def num_outputs(self) -> int: ...

        @property
        def inputs_of(self) -> tuple[int, ...]: ...

        @property
        def uses_view_id(self) -> bool: ...

        def serialize(self) -> list[int]: ...

        def psv_tables(self, in_vectors: int, out_vectors: int) -> list[int]: ...

        def psv_patch_tables(self, in_vectors: int, out_vectors: int, pc_vectors: int) -> list[int]: ...


    class StreamViewIdTables(Protocol):
        """What this layer reads of viewid.StreamsViewIdState (a geometry shader's, one state per stream)."""

        @property
        def uses_view_id(self) -> bool: ...

        def serialize(self) -> list[int]: ...

        def psv_tables(self, in_vectors: int, out_vectors: list[int]) -> list[int]: ...


class ContainerInfo(DataRecord):
    stage: str
    shader_model: tuple[int, int]
    dxil_version: tuple[int, int]
    valver: tuple[int, int]
    bitcode: bytes
    entry_name: str = "main"
    feature_flags: int = 0
    inputs: list[SignatureElement] = Record.factory(list)
    outputs: list[SignatureElement] = Record.factory(list)
    resources: list[PSVResource] = Record.factory(list)   # CBVs, samplers, SRVs, UAVs (PSV order)
    numthreads: tuple[int, int, int] = (0, 0, 0)
    group_shared_bytes: int = 0
    output_position: bool = False
    depth_output: bool = False
    sample_frequency: bool = False
    hash_mode: str = "bypass"
    # viewid.ViewIdState / StreamsViewIdState (geometry): the dependency tables after the elements
    view_id: ViewIdTables | StreamViewIdTables | None = None
    geometry: GeometryState | None = None
    root_signature: bytes | None = None    # the RTS0 part (shaderbuild.rootsig.rts0), after PSV0 as in DXC
    rdat: bytes | None = None              # a library's RDAT part (rdat.py): it has no ISG1/OSG1/PSV0
    debug_parts: list[tuple[str, bytes]] = Record.factory(list)   # -Zi: ILDB / ILDN, before HASH
    # hull/domain shaders: the patch-constant signature (PSG1) and the PSV0 tessellation facts
    patch_constants: list[SignatureElement] | None = None
    input_control_points: int = 0
    output_control_points: int = 0
    tess_domain: int = 0                   # DXIL::TessellatorDomain
    tess_output_primitive: int = 0         # DXIL::TessellatorOutputPrimitive
    # mesh shaders: the primitive signature (PSG1, in patch_constants' place) and PSV0's MSInfo; both
    # stages: the payload's bytes
    max_output_vertices: int = 0
    max_output_primitives: int = 0
    mesh_topology: int = 0                 # DXIL::MeshOutputTopology
    payload_bytes: int = 0


# ------------------------------------------------------------------ parts

def _signature_part(elems: list[SignatureElement]) -> bytes:
    """One 32-byte entry per element row (semantic index and register counting up), in register
    order, then by name offset (DXC's DxilProgramSignatureWriter); unallocated rows come last."""
    names: dict[str, int] = {}
    strings = bytearray()
    rows = [(e, r) for e in elems for r in range(e.rows)]
    base = 8 + 32 * len(rows)
    for e in elems:
        if e.name not in names:
            names[e.name] = base + len(strings)
            strings += e.name.encode() + b"\0"
    while len(strings) % 4:
        strings += b"\0"

    def register(e: SignatureElement, r: int) -> int:
        return e.register if e.register == 0xFFFFFFFF else e.register + r
    rows.sort(key=lambda er: (er[0].stream, register(*er), names[er[0].name]))

    def system_value(e: SignatureElement, r: int) -> int:
        # an isoline's SV_TessFactor: row 0 the line density, row 1 the line detail
        return LINE_DETAIL_TESS_FACTOR if e.system_value == LINE_DENSITY_TESS_FACTOR and r == 1 else e.system_value
    body = b"".join(
        struct.pack("<IIIIIIBBHI", e.stream, names[e.name], e.semantic_index(r), system_value(e, r), e.comp_type,
                    register(e, r), e.mask, e.rw_mask, 0, e.min_precision)
        for e, r in rows)
    return struct.pack("<II", len(rows), 8) + body + bytes(strings)


def _psv_part(info: ContainerInfo) -> bytes:
    ver = psv_version(info.valver)
    kind = SHADER_KIND[info.stage]
    stage_info = bytearray(16)
    if info.stage == "vertex":
        stage_info[0] = int(info.output_position)
    elif info.stage == "pixel":
        stage_info[0] = int(info.depth_output)
        stage_info[1] = int(info.sample_frequency)
    elif info.stage == "hull":       # HSInfo
        stage_info[:] = struct.pack("<IIII", info.input_control_points, info.output_control_points,
                                    info.tess_domain, info.tess_output_primitive)
    elif info.stage == "domain":     # DSInfo
        stage_info[:12] = struct.pack("<IB3xI", info.input_control_points, int(info.output_position),
                                    info.tess_domain)
    elif info.stage == "mesh":       # MSInfo: groupshared bytes (of them dependent on ViewID), payload, outputs
        stage_info[:] = struct.pack("<IIIHH", info.group_shared_bytes, 0, info.payload_bytes,
                                    info.max_output_vertices, info.max_output_primitives)
    elif info.stage == "amplification":       # ASInfo
        stage_info[:4] = struct.pack("<I", info.payload_bytes)
    elif info.geometry is not None:           # PSV GSInfo
        gs = info.geometry
        stage_info[:13] = struct.pack("<IIIB", gs.input_primitive, gs.output_topology, gs.stream_mask,
                                      int(info.output_position))
    patch = info.patch_constants or []
    rt = bytes(stage_info) + struct.pack("<II", 0, 0xFFFFFFFF)
    # system values that take no register (SV_Depth, SV_Coverage, ...) have register 0xFFFFFFFF
    in_vectors = max((e.register + e.rows for e in info.inputs if e.register != 0xFFFFFFFF), default=0)
    stream_vectors = [max((e.register + e.rows for e in info.outputs if e.register != 0xFFFFFFFF and e.stream == k),
                          default=0) for k in range(MAX_STREAMS)]
    out_vectors = stream_vectors[0]
    pc_vectors = max((e.register + e.rows for e in patch if e.register != 0xFFFFFFFF), default=0)
    strings = bytearray(b"\0")
    sem_index: list[int] = []
    sig_elems = bytearray()
    entry_name_offset = 0
    if ver >= 1:
        uses_view_id = int(info.view_id is not None and info.view_id.uses_view_id)
        if info.geometry is not None:     # the union holds MaxVertexCount; four output streams
            rt += struct.pack("<BBHBBBB4B", kind, uses_view_id, info.geometry.max_vertex_count, len(info.inputs),
                              len(info.outputs), 0, in_vectors, *stream_vectors)
        else:
            # the union: SigPatchConstOrPrimVectors, and a mesh shader's MeshOutputTopology (MSInfo1)
            rt += struct.pack("<BBBBBBBB4B", kind, uses_view_id, pc_vectors, info.mesh_topology, len(info.inputs),
                              len(info.outputs), len(patch), in_vectors, out_vectors, 0, 0, 0)
        for e in (*info.inputs, *info.outputs, *patch):
            name_off = 0
            if e.semantic_kind == 0 and e.name:
                name_off = len(strings)
                strings += e.name.encode() + b"\0"
            idx = [e.semantic_index(r) for r in range(e.rows)]
            pos = _find_run(sem_index, idx)
            if pos < 0:
                pos = len(sem_index)
                sem_index += idx
            allocated = e.register != 0xFFFFFFFF      # SV_Depth & co. have no register
            cols_start = (e.cols & 0xF) | ((e.start_col & 0x3) << 4 | 1 << 6 if allocated else 0)
            sig_elems += struct.pack("<IIBBBBBBBB", name_off, pos, e.rows, e.register if allocated else 0, cols_start,
                                     e.semantic_kind, e.comp_type, e.interpolation, e.stream << 4, 0)
    if ver >= 2:
        rt += struct.pack("<III", *info.numthreads)
    if ver >= 3:
        entry_name_offset = len(strings)
        strings += info.entry_name.encode() + b"\0"
        rt += struct.pack("<I", entry_name_offset)
    if ver >= 4:
        rt += struct.pack("<I", info.group_shared_bytes)
    assert len(rt) == RUNTIME_INFO_SIZE[ver]
    out = bytearray(struct.pack("<I", len(rt)) + rt)
    out += struct.pack("<I", len(info.resources))
    if info.resources:
        bind_size = 16 if ver < 2 else 24
        out += struct.pack("<I", bind_size)
        for r in info.resources:
            out += struct.pack("<IIII", r.res_type, r.space, r.lower, r.upper)
            if bind_size == 24:
                out += struct.pack("<II", r.kind, r.flags)
    if ver >= 1:
        while len(strings) % 4:
            strings += b"\0"
        out += struct.pack("<I", len(strings)) + strings
        out += struct.pack("<I", len(sem_index)) + struct.pack(f"<{len(sem_index)}I", *sem_index)
        if info.inputs or info.outputs or patch:
            out += struct.pack("<I", PSV_SIG_ELEMENT_SIZE) + sig_elems
        view_id: Any = info.view_id      # viewid.ViewIdState / StreamsViewIdState (a layer above this one)
        if view_id is not None and info.geometry is not None:           # the same, per stream
            words = view_id.psv_tables(in_vectors, stream_vectors)
            out += struct.pack(f"<{len(words)}I", *words)
        elif view_id is not None:               # [ViewID output mask], input -> output table
            words = view_id.psv_tables(in_vectors, out_vectors)
            out += struct.pack(f"<{len(words)}I", *words)
            # input -> patch constant / patch constant -> output; a mesh shader's primitive ViewID mask
            if info.stage in ("hull", "domain", "mesh"):
                words = view_id.psv_patch_tables(in_vectors, out_vectors, pc_vectors)
                out += struct.pack(f"<{len(words)}I", *words)
        elif in_vectors and out_vectors:             # no analysis (compute has no signatures)
            out += bytes(4 * ((out_vectors + 7) >> 3) * in_vectors * 4)
    return bytes(out)


def _find_run(haystack: list[int], needle: list[int]) -> int:
    """The first index where `needle` occurs as a run in `haystack`, -1 if nowhere (single
    rows, most elements, by list.index at C speed)."""
    n = len(needle)
    if n == 1:
        return haystack.index(needle[0]) if needle[0] in haystack else -1
    for i in range(len(haystack) - n + 1):
        if haystack[i:i + n] == needle:
            return i
    return -1


def _dxil_part(info: ContainerInfo) -> bytes:
    return program_part(info, info.bitcode)


def program_part(info: ContainerInfo, bitcode: bytes) -> bytes:
    """A DXIL program header + bitcode: the DXIL part, and the ILDB part with the debug bitcode."""
    bc = bitcode + bytes((4 - len(bitcode) % 4) % 4)
    major, minor = info.shader_model
    version = SHADER_KIND[info.stage] << 16 | major << 4 | minor
    dxil_version = info.dxil_version[0] << 8 | info.dxil_version[1]
    size_dwords = (24 + len(bc)) // 4
    return struct.pack("<IIIIII", version, size_dwords, fourcc("DXIL"), dxil_version, 16, len(bc)) + bc


def debug_name_part(name: str) -> bytes:
    """ILDN: flags u16 (0), name length u16, the name NUL-terminated and zero-padded to 4 bytes."""
    data = name.encode()
    body = struct.pack("<HH", 0, len(data)) + data + b"\0"
    return body + bytes(-len(body) % 4)


def _hash_part(info: ContainerInfo) -> bytes:
    try:        # CPython's own MD5 (hashlib's fallback): hashlib loads OpenSSL, ~1.5 ms more per process
        from _md5 import md5  # type: ignore[import-not-found]
    except ImportError:
        from hashlib import md5
    return struct.pack("<I", 0) + md5(info.bitcode).digest()


def build_container(info: ContainerInfo) -> bytes:
    """Assemble the container; the header digest is BYPASS unless hash_mode == 'retail'."""
    if info.rdat is not None:            # a library (DXC: SFI0, RDAT, then the program)
        return assemble_container([("SFI0", struct.pack("<Q", info.feature_flags)), ("RDAT", info.rdat),
                                   *info.debug_parts, ("HASH", _hash_part(info)), ("DXIL", _dxil_part(info))],
                                  info.hash_mode)
    parts: list[tuple[str, bytes]] = [
        ("SFI0", struct.pack("<Q", info.feature_flags)),
        ("ISG1", _signature_part(info.inputs)),
        ("OSG1", _signature_part(info.outputs)),
        *([("PSG1", _signature_part(info.patch_constants))] if info.patch_constants is not None else []),
        ("PSV0", _psv_part(info)),
        *([("RTS0", info.root_signature)] if info.root_signature is not None else []),
        *info.debug_parts,
        ("HASH", _hash_part(info)),
        ("DXIL", _dxil_part(info)),
    ]
    return assemble_container(parts, info.hash_mode)


def assemble_container(parts: list[tuple[str, bytes]], hash_mode: str = "bypass") -> bytes:
    """A DXBC container of `parts` in order (also the -Fd debug container: ILDB + ILDN)."""
    header_size = 32 + 4 * len(parts)
    offsets: list[int] = []
    body = bytearray()
    for name, data in parts:
        offsets.append(header_size + len(body))
        body += struct.pack("<II", fourcc(name), len(data)) + data
    total = header_size + len(body)
    head = struct.pack("<I16sHHII", fourcc("DXBC"), b"\0" * 16, 1, 0, total, len(parts))
    out = bytearray(head + struct.pack(f"<{len(parts)}I", *offsets) + body)
    if hash_mode == "retail":
        from .hash import container_hash  # not on the default path: ~0.65 M instructions of a cold compile
        out[4:20] = container_hash(bytes(out))
    else:
        out[4:20] = BYPASS_HASH
    return bytes(out)


def parse_container(data: bytes) -> dict[str, bytes]:
    """Part name -> part data (for tests, the checker and the disassembler)."""
    if data[:4] != b"DXBC":
        raise ValueError("not a DXBC container")
    count = struct.unpack_from("<I", data, 28)[0]
    parts: dict[str, bytes] = {}
    for i in range(count):
        off = struct.unpack_from("<I", data, 32 + 4 * i)[0]
        cc, size = struct.unpack_from("<II", data, off)
        parts[cc.to_bytes(4, "little").decode()] = data[off + 8:off + 8 + size]
    return parts
