"""Manifest version 2 (issue 22): "used" agrees with the DXIL resource table, nested members in
both packings (Vulkan checked against spirv-cross, D3D against hand-packed offsets), one
spelling of unbounded counts, the DXIL build's Vulkan view equal to the SPIR-V build's, and the
schema."""

from __future__ import annotations

import json
import subprocess
from importlib import resources

import jsonschema
import pytest

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions
from shaderbuild.reflect.manifest import MANIFEST_VERSION

SCHEMA = json.loads(resources.files("shaderbuild.reflect").joinpath("manifest.schema.json").read_text())

NESTED = """
struct Inner { float3 a; float b[2]; float2x3 m; };
struct Light { Inner in1; float4 c; };
cbuffer CB : register(b0) { Light lights[2]; float4x4 xf; row_major float3x3 r; };
struct PC { float4 tint; Inner i; };
[[vk::push_constant]] PC pc;
StructuredBuffer<Light> sb : register(t5);
Texture2D unused_tex : register(t1);
Texture2D tarr[] : register(t2, space1);
Texture2D used_arr[] : register(t0, space2);
RWStructuredBuffer<uint> o : register(u7);
AppendStructuredBuffer<uint> app;
Texture2D implicit_tex;
SamplerState samp;
uint helper() { return (uint)used_arr[1].Load(int3(0, 0, 0)).x; }
[numthreads(1, 1, 1)]
void main(uint3 i : SV_DispatchThreadID) {
    o[0] = (uint)(lights[1].c.x + sb[0].in1.b[1] + pc.tint.x + xf[0][0]) + helper();
    app.Append(2);
}
"""


def compile_both(tmp_path, text: str = NESTED):
    src = tmp_path / "m.hlsl"
    src.write_text(text)
    out = {}
    for target in ("spirv", "dxil"):
        res = compile_file(str(src), CompileOptions(profile="cs_6_6", target=target))
        assert res.ok, [d.render() for d in res.diagnostics]
        jsonschema.validate(res.manifest, SCHEMA)
        out[target] = res
    return out


def test_used_agrees_with_the_dxil_resource_table(tmp_path):
    res = compile_both(tmp_path)
    for target, r in res.items():
        used = {e["name"]: e["used"] for e in r.manifest["resources"]}
        assert used == {"CB": True, "sb": True, "unused_tex": False, "tarr": False, "used_arr": True, "o": True,
                        "app": True, "implicit_tex": False, "samp": False,
                        **({"pc": True} if target == "dxil" else {})}, target
        assert [(p["name"], p["used"]) for p in r.manifest["push_constants"]] == [("pc", True)]
    dxil = res["dxil"].manifest
    table = {e["name"] for e in dxil["backend"]["dxil"]["resources"]}
    assert table == {e["name"] for e in dxil["resources"] if e["used"]}


def test_dxil_build_vulkan_view_equals_the_spirv_build(tmp_path):
    res = compile_both(tmp_path)
    views = {t: {e["name"]: e.get("vulkan") for e in r.manifest["resources"]} for t, r in res.items()}
    assert views["dxil"].pop("pc") is None              # a push constant: no descriptor in the Vulkan view
    assert views["dxil"] == views["spirv"]
    assert views["spirv"]["app"]["counter_binding"] is not None
    assert res["dxil"].manifest["push_constants"] == res["spirv"].manifest["push_constants"]


def _no_null_counts(value, path="$"):
    if isinstance(value, dict):
        for k, v in value.items():
            assert not (k == "count" and v is None), f"{path}.{k} is null"
            _no_null_counts(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            _no_null_counts(v, f"{path}[{i}]")


def test_unbounded_has_one_spelling(tmp_path):
    res = compile_both(tmp_path)
    for r in res.values():
        _no_null_counts(r.manifest)
        tarr = next(e for e in r.manifest["resources"] if e["name"] == "tarr")
        assert tarr["hlsl"]["count"] == tarr["vulkan"]["count"] == "unbounded"
    spirv_backend = {e["name"]: e["count"] for e in res["spirv"].manifest["backend"]["vulkan"]["resources"]}
    assert spirv_backend["tarr"] == "unbounded"
    dxil_backend = {e["name"]: e["count"] for e in res["dxil"].manifest["backend"]["dxil"]["resources"]}
    assert dxil_backend["used_arr"] == "unbounded"          # unused arrays are not in DXIL's table
    assert res["spirv"].manifest["manifest_version"] == MANIFEST_VERSION == 2


def _by_name(members):
    return {m["name"]: m for m in members}


def test_nested_cbuffer_members_in_d3d_packing(tmp_path):
    """Offsets packed by hand with D3D's cbuffer rules (16-byte rows, nothing straddles a row,
    arrays and structs start a row, array elements one row apart at least)."""
    cb = next(e for e in compile_both(tmp_path)["dxil"].manifest["resources"] if e["name"] == "CB")
    top = _by_name(cb["block"]["members"])
    assert top["lights"]["hlsl"] == {"offset": 0, "size": 112 + 112, "array_stride": 112}
    assert top["lights"]["array_dims"] == [2]
    light = _by_name(top["lights"]["members"])
    assert light["in1"]["hlsl"] == {"offset": 0, "size": 88}
    assert light["c"]["hlsl"] == {"offset": 96, "size": 16}
    inner = _by_name(light["in1"]["members"])
    assert inner["a"]["hlsl"] == {"offset": 0, "size": 12}
    assert inner["b"]["hlsl"] == {"offset": 16, "size": 20, "array_stride": 16}
    # float2x3 column_major: three float2 columns, one per row
    assert inner["m"]["hlsl"] == {"offset": 48, "size": 40, "matrix_stride": 16, "row_major": False}
    assert top["xf"]["hlsl"] == {"offset": 224, "size": 64, "matrix_stride": 16, "row_major": False}
    assert top["r"]["hlsl"] == {"offset": 288, "size": 44, "matrix_stride": 16, "row_major": True}
    assert top["r"]["row_major"] is True and top["xf"]["row_major"] is False
    sb = next(e for e in compile_both(tmp_path)["dxil"].manifest["resources"] if e["name"] == "sb")
    # structured buffers pack tightly (4-byte alignment): Inner = 12 + 8 + 24, Light = 44 + 16
    assert (sb["element"]["hlsl_size"], sb["hlsl"]["stride"]) == (60, 60)
    sb_inner = _by_name(_by_name(sb["element"]["members"])["in1"]["members"])
    assert [sb_inner[n]["hlsl"]["offset"] for n in ("a", "b", "m")] == [0, 12, 20]


def _compare_with_cross(ours: list[dict], types: dict, type_id: str, where: str) -> int:
    """Recursively compare our Vulkan placements with spirv-cross's; returns the members checked."""
    checked = 0
    cross = types[type_id]["members"]
    assert [m["name"] for m in ours] == [c["name"] for c in cross], where
    for m, c in zip(ours, cross):
        vk = m["vulkan"]
        w = f"{where}.{m['name']}"
        assert vk["offset"] == c["offset"], w
        assert vk.get("array_stride") == c.get("array_stride"), w
        assert vk.get("matrix_stride") == c.get("matrix_stride"), w
        if "matrix_stride" in vk:   # SPIR-V's RowMajor is HLSL's column_major (rows and columns swap)
            assert vk["row_major"] == (not c.get("row_major", False)), w
        checked += 1
        if "members" in m:
            checked += _compare_with_cross(m["members"], types, c["type"], w)
    return checked


def test_nested_members_in_vulkan_packing_equal_spirv_cross(tmp_path):
    res = compile_both(tmp_path)["spirv"]
    spv = tmp_path / "m.spv"
    spv.write_bytes(res.binary)
    cross = json.loads(subprocess.run(["spirv-cross", str(spv), "--reflect"], capture_output=True, text=True,
                                      check=True, timeout=60).stdout)
    types = cross["types"]
    man = res.manifest
    cb = next(e for e in man["resources"] if e["name"] == "CB")
    ubo = next(u for u in cross["ubos"] if u["binding"] == cb["vulkan"]["binding"])
    n = _compare_with_cross(cb["block"]["members"], types, ubo["type"], "CB")
    n += _compare_with_cross(man["push_constants"][0]["block"]["members"], types, cross["push_constants"][0]["type"],
                             "pc")
    sb = next(e for e in man["resources"] if e["name"] == "sb")
    ssbo = next(s for s in cross["ssbos"] if s["binding"] == sb["vulkan"]["binding"])
    runtime_array = types[ssbo["type"]]["members"][0]
    assert runtime_array["array_stride"] == sb["vulkan"]["stride"] == sb["element"]["vulkan_size"]
    n += _compare_with_cross(sb["element"]["members"], types, runtime_array["type"], "sb")
    assert n == 8 + 5 + 5          # every member of CB, pc and the Light element, nested ones included


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_manifest_version_in_every_manifest(tmp_path, target):
    assert compile_both(tmp_path)[target].manifest["manifest_version"] == 2
