"""The DXBC container: part layout, PSV0 version from dx.valver, signatures."""

from __future__ import annotations

import struct

import pytest
from harness.dxil_tools import parse_container as obj2yaml
from shaderbuild_dxil.container import (
    ContainerInfo,
    PSVResource,
    SignatureElement,
    build_container,
    parse_container,
    psv_version,
)
from test_dxil_compute import compile_ir, double_plus_one_module


@pytest.mark.parametrize("valver, version", [((1, 0), 0), ((1, 5), 1), ((1, 6), 2), ((1, 7), 2), ((1, 8), 3),
                                             ((1, 9), 3), ((1, 10), 4)])
def test_psv_version_follows_validator(valver, version):
    assert psv_version(valver) == version


def _info(**kw) -> ContainerInfo:
    bitcode = compile_ir(double_plus_one_module(), "cs_6_0").bitcode
    base = dict(stage="compute", shader_model=(6, 0), dxil_version=(1, 0), valver=(1, 7), bitcode=bitcode,
                numthreads=(8, 4, 2), resources=[PSVResource(8, 0, 0, 0, 12)])
    base.update(kw)
    return ContainerInfo(**base)


@pytest.mark.parametrize("valver, size", [((1, 5), 36), ((1, 7), 48), ((1, 8), 52)])
def test_runtime_info_size_by_version(valver, size):
    blob = build_container(_info(valver=valver))
    psv = parse_container(blob)["PSV0"]
    assert struct.unpack_from("<I", psv)[0] == size
    doc = obj2yaml(blob)
    info = next(p for p in doc["Parts"] if p["Name"] == "PSV0")["PSVInfo"]
    assert info["Version"] == psv_version(valver)
    if psv_version(valver) >= 2:
        assert (info["NumThreadsX"], info["NumThreadsY"], info["NumThreadsZ"]) == (8, 4, 2)


def test_header_offsets_and_sizes():
    blob = build_container(_info())
    magic, _digest, major, minor, size, count = struct.unpack_from("<4s16sHHII", blob)
    assert (magic, major, minor, size, count) == (b"DXBC", 1, 0, len(blob), 6)
    parts = parse_container(blob)
    assert list(parts) == ["SFI0", "ISG1", "OSG1", "PSV0", "HASH", "DXIL"]
    dxil = parts["DXIL"]
    version, dwords, magic2, dxver, off, bcsize = struct.unpack_from("<II4sIII", dxil)
    assert (version, magic2, dxver, off) == (5 << 16 | 6 << 4 | 0, b"DXIL", 0x100, 16)
    assert dwords * 4 == len(dxil) and dxil[24:28] == b"BC\xc0\xde"
    import hashlib
    flags, digest = struct.unpack("<I16s", parts["HASH"])
    assert flags == 0 and digest == hashlib.md5(_info().bitcode).digest()


def test_signature_parts_decode():
    pos = SignatureElement("SV_Position", 0, 1, 3, 3, 0, 0xF, 0, cols=4)
    tex = SignatureElement("TEXCOORD", 1, 0, 0, 3, 1, 0x3, 0, cols=2)
    blob = build_container(_info(stage="vertex", inputs=[tex], outputs=[pos, tex], numthreads=(0, 0, 0),
                                 resources=[]))
    doc = obj2yaml(blob)
    isg = next(p for p in doc["Parts"] if p["Name"] == "ISG1")["Signature"]["Parameters"]
    osg = next(p for p in doc["Parts"] if p["Name"] == "OSG1")["Signature"]["Parameters"]
    assert [(p["Name"], p["Index"], p["Register"]) for p in isg] == [("TEXCOORD", 1, 1)]
    assert [(p["Name"], p["SystemValue"]) for p in osg] == [("SV_Position", "Position"), ("TEXCOORD", "Undefined")]
    psv = next(p for p in doc["Parts"] if p["Name"] == "PSV0")["PSVInfo"]
    assert len(psv["SigInputElements"]) == 1 and len(psv["SigOutputElements"]) == 2
