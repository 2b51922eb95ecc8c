"""An RTS0 (serialized root signature) reader for the tests, written from the D3D12 structure
definitions (d3d12.h: D3D12_VERSIONED_ROOT_SIGNATURE_DESC, D3D12_ROOT_PARAMETER(1),
D3D12_DESCRIPTOR_RANGE(1), D3D12_ROOT_CONSTANTS, D3D12_ROOT_DESCRIPTOR(1), D3D12_STATIC_SAMPLER_DESC as
the runtime serializes them), not from shaderbuild's writer."""

from __future__ import annotations

import struct


def read_rts0(data: bytes) -> dict:
    """Decode a serialized versioned root signature into plain dicts named after the D3D12 fields."""
    def u32(off: int, n: int = 1):
        assert off + 4 * n <= len(data), "read past the end of the part"
        return struct.unpack_from(f"<{n}I", data, off)

    version, num_params, params_off, num_samplers, samplers_off, flags = u32(0, 6)
    assert version in (1, 2)
    v11 = version == 2
    params = []
    for i in range(num_params):
        ptype, vis, payload = u32(params_off + 12 * i, 3)
        p: dict = {"ParameterType": ptype, "ShaderVisibility": vis}
        if ptype == 0:          # D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE
            n, ranges_off = u32(payload, 2)
            ranges = []
            size = 24 if v11 else 20
            for k in range(n):
                if v11:
                    rt, nd, base, space, rflags, offset = u32(ranges_off + size * k, 6)
                    ranges.append({"RangeType": rt, "NumDescriptors": nd, "BaseShaderRegister": base,
                                   "RegisterSpace": space, "Flags": rflags, "OffsetInDescriptorsFromTableStart": offset})
                else:
                    rt, nd, base, space, offset = u32(ranges_off + size * k, 5)
                    ranges.append({"RangeType": rt, "NumDescriptors": nd, "BaseShaderRegister": base,
                                   "RegisterSpace": space, "OffsetInDescriptorsFromTableStart": offset})
            p["DescriptorRanges"] = ranges
        elif ptype == 1:        # D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS
            reg, space, num = u32(payload, 3)
            p["Constants"] = {"ShaderRegister": reg, "RegisterSpace": space, "Num32BitValues": num}
        else:                   # CBV 2, SRV 3, UAV 4
            assert ptype in (2, 3, 4)
            if v11:
                reg, space, dflags = u32(payload, 3)
                p["Descriptor"] = {"ShaderRegister": reg, "RegisterSpace": space, "Flags": dflags}
            else:
                reg, space = u32(payload, 2)
                p["Descriptor"] = {"ShaderRegister": reg, "RegisterSpace": space}
        params.append(p)
    samplers = []
    for i in range(num_samplers):
        off = samplers_off + 52 * i
        assert off + 52 <= len(data)
        f = struct.unpack_from("<4If3I2f3I", data, off)
        keys = ("Filter", "AddressU", "AddressV", "AddressW", "MipLODBias", "MaxAnisotropy", "ComparisonFunc",
                "BorderColor", "MinLOD", "MaxLOD", "ShaderRegister", "RegisterSpace", "ShaderVisibility")
        samplers.append(dict(zip(keys, f)))
    return {"Version": version, "Flags": flags, "Parameters": params, "StaticSamplers": samplers}
