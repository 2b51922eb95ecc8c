"""Serializes a root signature as D3D12 does a versioned one: the `RTS0` part's bytes.

Layout (all little-endian u32 unless noted; offsets from the start of the part):
header {Version, NumParameters, RootParametersOffset, NumStaticSamplers,
StaticSamplersOffset, Flags}; the parameter headers {ParameterType,
ShaderVisibility, PayloadOffset}; then each parameter's payload in order (a table:
{NumDescriptorRanges, DescriptorRangesOffset} followed by its ranges); then the static
samplers.  Version 1.0 ranges and root descriptors have no Flags field."""

from __future__ import annotations

import struct

from . import model as m

RTS0 = "RTS0"


def serialize(rs: m.RootSignature) -> bytes:
    v11 = rs.version == "1.1"
    n = len(rs.parameters)
    header_size = 24
    params_offset = header_size
    out = bytearray(header_size + 12 * n)
    for i, p in enumerate(rs.parameters):
        payload = len(out)
        if p.kind == "DescriptorTable":
            ranges_offset = payload + 8
            out += struct.pack("<II", len(p.ranges), ranges_offset)
            for r in p.ranges:
                count = m.UNBOUNDED if r.count is None else r.count
                offset = m.OFFSET_APPEND if r.offset is None else r.offset
                if v11:
                    out += struct.pack("<6I", m.RANGE_TYPES[r.kind], count, r.register, r.space, r.flags, offset)
                else:
                    out += struct.pack("<5I", m.RANGE_TYPES[r.kind], count, r.register, r.space, offset)
        elif p.kind == "RootConstants":
            out += struct.pack("<3I", p.register, p.space, p.num_32bit_values)
        elif v11:
            out += struct.pack("<3I", p.register, p.space, p.flags)
        else:
            out += struct.pack("<2I", p.register, p.space)
        struct.pack_into("<3I", out, params_offset + 12 * i, m.PARAMETER_TYPES[p.kind], m.VISIBILITY[p.visibility],
                         payload)
    samplers_offset = len(out)
    for s in rs.static_samplers:
        out += struct.pack("<4If3I2f3I", m.FILTERS[s.filter], m.ADDRESS_MODES[s.address_u],
                           m.ADDRESS_MODES[s.address_v], m.ADDRESS_MODES[s.address_w], s.mip_lod_bias,
                           s.max_anisotropy, m.COMPARISON_FUNCS[s.comparison_func], m.BORDER_COLORS[s.border_color],
                           s.min_lod, s.max_lod, s.register, s.space, m.VISIBILITY[s.visibility])
    struct.pack_into("<6I", out, 0, m.VERSIONS[rs.version], n, params_offset, len(rs.static_samplers),
                     samplers_offset, rs.flags)
    return bytes(out)


def standalone_container(rts0: bytes) -> bytes:
    """A DXBC container holding only the RTS0 part (what `-T rootsig_1_x` and -Frs write).

    DXC writes this container without a digest (the hash field is zero): only shader
    containers are signed by the validator."""
    header = 32 + 4
    total = header + 8 + len(rts0)
    return (struct.pack("<4s16sHHII", b"DXBC", b"\0" * 16, 1, 0, total, 1) + struct.pack("<I", header)
            + struct.pack("<4sI", RTS0.encode(), len(rts0)) + rts0)


def find_part(container: bytes, name: str = RTS0) -> bytes | None:
    """A part's data from a DXBC container, or None (for -extractrootsignature)."""
    if container[:4] != b"DXBC" or len(container) < 32:
        return None
    count = struct.unpack_from("<I", container, 28)[0]
    for i in range(count):
        off = struct.unpack_from("<I", container, 32 + 4 * i)[0]
        cc, size = struct.unpack_from("<4sI", container, off)
        if cc == name.encode():
            return container[off + 8:off + 8 + size]
    return None
