"""The sample project builds to both backends, and its shaders do what they say
when executed (lavapipe for SPIR-V, LLVM's interpreter for DXIL)."""

from __future__ import annotations

import json
import math
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from harness import dxil_exec, dxil_tools, tools

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    proj = tmp_path_factory.mktemp("sample") / "sample_project"
    shutil.copytree(REPO / "sample_project", proj, ignore=shutil.ignore_patterns("out"))
    proc = subprocess.run([sys.executable, "-m", "shaderbuild", "build", str(proj)], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proj / "out"


def outputs(out: Path, backend: str, ext: str) -> list[Path]:
    return sorted((out / backend).rglob(f"*{ext}"))


def binding(manifest_path: Path) -> dict[str, dict]:
    m = json.loads(manifest_path.read_text())
    return {r["name"]: r for r in m["resources"]}


def test_every_spirv_validates_and_has_a_manifest(built):
    spvs = outputs(built, "spirv", ".spv")
    assert len(spvs) >= 4
    for spv in spvs:
        tools.spirv_val(spv.read_bytes(), env="vulkan1.1")
        assert json.loads(Path(str(spv) + ".json").read_text())["target"] == "spirv"


def test_every_dxil_parses(built):
    dxils = outputs(built, "dxil", ".dxil")
    assert len(dxils) == len(outputs(built, "spirv", ".spv"))
    for d in dxils:
        check = dxil_tools.check_dxil(d.read_bytes())
        assert "call void @dx.op.bufferStore" in check.ir or "call void @dx.op.rawBufferStore" in check.ir
        assert json.loads(Path(str(d) + ".json").read_text())["target"] == "dxil"


def test_manifests_agree_across_backends(built):
    for spv in outputs(built, "spirv", ".spv"):
        rel = spv.relative_to(built / "spirv")
        dx = built / "dxil" / rel.with_suffix(".dxil")
        a, b = binding(Path(str(spv) + ".json")), binding(Path(str(dx) + ".json"))
        assert {k: v["hlsl"] for k, v in a.items()} == {k: v["hlsl"] for k, v in b.items()}


def run_both(vk, built: Path, stem: str, inputs: dict[str, bytes], out_name: str, out_size: int,
             groups=(1, 1, 1)) -> tuple[bytes, bytes]:
    spv = next(p for p in outputs(built, "spirv", ".spv") if p.stem == stem)
    dx = built / "dxil" / spv.relative_to(built / "spirv").with_suffix(".dxil")
    res = binding(Path(str(spv) + ".json"))
    names = list(inputs) + [out_name]
    data = {**inputs, out_name: bytes(out_size)}
    bufs = [vk.Buf(res[n]["vulkan"]["set"], res[n]["vulkan"]["binding"], data[n]) for n in names]
    got_vk = vk.run_compute(spv.read_bytes(), "main", bufs, groups=groups)[-1]
    dbufs = [(res[n]["hlsl"]["register"], res[n]["hlsl"]["space"], res[n]["hlsl"]["class"], data[n]) for n in names]
    got_dx = dxil_exec.run_dxil_compute(dx.read_bytes(), "main", dbufs, groups=groups)[-1]
    return got_vk, got_dx


def test_fill_permutations_execute(vk, built):
    for spv in outputs(built, "spirv", ".spv"):
        if not spv.stem.startswith("fill"):
            continue
        idx = json.loads((built / "index.json").read_text())
        key = next(t["permutation"] for t in idx["targets"] if t["outputs"]["binary"].endswith(spv.name))
        scale = int(key.split("=")[1])
        got_vk, got_dx = run_both(vk, built, spv.stem, {}, "Out", 4 * 128, groups=(2, 1, 1))
        expect = [i * scale + 1 for i in range(128)]
        assert list(struct.unpack("128I", got_vk)) == expect
        assert got_dx == got_vk


def hash_u32(x: int) -> int:
    m = 0xFFFFFFFF
    x ^= x >> 16
    x = (x * 0x7FEB352D) & m
    x ^= x >> 15
    x = (x * 0x846CA68B) & m
    x ^= x >> 16
    return x


def f32(x: float) -> float:
    return struct.unpack("f", struct.pack("f", x))[0]


def test_particles_execute(vk, built):
    n = 64
    parts = []
    for i in range(n):
        pos = (float(i), 1.0, -float(i))
        vel = (0.5, float(i % 5), 0.0)
        age, life = (0.5 if i % 3 else 2.0), 1.0
        parts.append((pos, age, vel, life))
    raw = b"".join(struct.pack("8f", *p[0], p[1], *p[2], p[3]) for p in parts)
    got_vk, got_dx = run_both(vk, built, "particles", {"ParticlesIn": raw}, "ParticlesOut", len(raw))
    dt = f32(1.0 / 60.0)
    for i, (pos, age, vel, life) in enumerate(parts):
        out = struct.unpack_from("8f", got_vk, 32 * i)
        vy = f32(vel[1] - f32(9.81 * dt))
        new_age = f32(age + dt)
        if new_age >= life:
            h = hash_u32(i)
            expect = (0.0, 0.0, 0.0, 0.0, (h & 255) / 255.0 - 0.5, 4.0, ((h >> 8) & 255) / 255.0 - 0.5, life)
        else:
            expect = (pos[0] + vel[0] * dt, pos[1] + vy * dt, pos[2] + vel[2] * dt, new_age, vel[0], vy, vel[2], life)
        for a, b in zip(out, expect):
            assert math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6), (i, out, expect)
    assert got_dx == got_vk


def test_histogram_executes(vk, built):
    values = [(i * 37 + 11) % 256 for i in range(64)]
    got_vk, got_dx = run_both(vk, built, "histogram", {"Values": struct.pack("64I", *values)}, "Bins", 64)
    expect = [sum(1 for v in values if v >> 4 == b) for b in range(16)]
    assert list(struct.unpack("16I", got_vk)) == expect
    assert got_dx == got_vk
