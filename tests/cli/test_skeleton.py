"""The walking skeleton end to end, through the real CLI process:
HLSL -> SPIR-V (validated, executed on lavapipe) and DXIL (parsed by LLVM's tools)."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

from harness import dxil_tools, tools

SHADER = """RWStructuredBuffer<uint> Out : register(u0);

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Out[id.x] = id.x * 2 + 1;
}
"""


def compile_cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "cs.hlsl").write_text(SHADER)
    proc = subprocess.run([sys.executable, "-m", "shaderbuild", "compile", "cs.hlsl", *args],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc


def test_spirv_validates_and_writes_the_values(tmp_path, vk):
    compile_cli(tmp_path, "-T", "cs_6_0", "-E", "main", "--target", "spirv", "-o", "cs.spv",
                "--manifest", "cs.json", "--Fc", "cs.spvasm")
    spv = (tmp_path / "cs.spv").read_bytes()
    tools.spirv_val(spv, env="vulkan1.1")
    manifest = json.loads((tmp_path / "cs.json").read_text())
    (res,) = manifest["resources"]
    vkb = res["vulkan"]
    groups = 3
    size = 64 * groups
    sentinel = 0xDEADBEEF
    data = struct.pack(f"{size + 4}I", *([0] * size + [sentinel] * 4))
    (out,) = vk.run_compute(spv, "main", [vk.Buf(vkb["set"], vkb["binding"], data)], groups=(groups, 1, 1))
    values = struct.unpack(f"{size + 4}I", out)
    assert list(values[:size]) == [i * 2 + 1 for i in range(size)]
    assert list(values[size:]) == [sentinel] * 4
    assert "OpEntryPoint GLCompute" in (tmp_path / "cs.spvasm").read_text()


def test_manifest_describes_entry_and_both_binding_views(tmp_path):
    compile_cli(tmp_path, "-T", "cs_6_0", "-E", "main", "-spirv", "-Fo", "cs.spv", "--manifest", "cs.json",
                "-fvk-u-shift", "10", "0")
    m = json.loads((tmp_path / "cs.json").read_text())
    assert m["entry"]["stage"] == "compute"
    assert m["entry"]["numthreads"] == [64, 1, 1]
    assert m["source"] == "cs.hlsl"
    (res,) = m["resources"]
    assert res["name"] == "Out" and res["kind"] == "RWStructuredBuffer"
    assert res["hlsl"] == {"class": "u", "register": 0, "space": 0, "count": 1, "stride": 4}
    assert res["vulkan"] == {"set": 0, "binding": 10, "descriptor_type": "storage_buffer", "count": 1, "stride": 4}
    reflect = tools.spirv_cross_reflect((tmp_path / "cs.spv").read_bytes())
    (ssbo,) = reflect["ssbos"]
    assert (ssbo["set"], ssbo["binding"]) == (0, 10)


def test_dxil_container_parses_with_llvm_tools(tmp_path):
    compile_cli(tmp_path, "-T", "cs_6_0", "-E", "main", "--target", "dxil", "-o", "cs.dxil",
                "--manifest", "cs.json")
    blob = (tmp_path / "cs.dxil").read_bytes()
    check = dxil_tools.check_dxil(blob)
    part_names = [p["Name"] for p in check.container["Parts"]]
    for needed in ("SFI0", "ISG1", "OSG1", "PSV0", "HASH", "DXIL"):
        assert needed in part_names
    assert blob[4:20] == b"\x01" * 16          # BYPASS hash by default
    assert "MODULE_BLOCK" in check.bcanalyzer
    assert "dx.op.threadId.i32(i32 93" in check.ir
    assert check.ir.count("call ") >= 2


def test_dxil_same_values_through_llvm_interpreter(tmp_path):
    from harness import dxil_exec

    compile_cli(tmp_path, "-T", "cs_6_0", "-E", "main", "--target", "dxil", "-o", "cs.dxil")
    blob = (tmp_path / "cs.dxil").read_bytes()
    size = 128
    (out,) = dxil_exec.run_dxil_compute(blob, "main", [(0, 0, "u", bytes(4 * size))], groups=(2, 1, 1))
    assert list(struct.unpack(f"{size}I", out)) == [i * 2 + 1 for i in range(size)]


def test_outputs_are_deterministic(tmp_path):
    for target, ext in (("spirv", "spv"), ("dxil", "dxil")):
        compile_cli(tmp_path, "-T", "cs_6_0", "--target", target, "-o", f"a.{ext}", "--manifest", "a.json")
        compile_cli(tmp_path, "-T", "cs_6_0", "--target", target, "-o", f"b.{ext}", "--manifest", "b.json")
        assert (tmp_path / f"a.{ext}").read_bytes() == (tmp_path / f"b.{ext}").read_bytes()
        assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
