"""Bad input through the real `shaderbuild compile` process: a GNU-style
diagnostic with the source line and a caret, exit status 1, no traceback and
no output file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

GOOD = """RWStructuredBuffer<uint> Out : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    Out[id.x] = id.x * 2 + 1;
}
"""


def run_compile(tmp_path: Path, source: str, *extra: str, target: str = "spirv") -> subprocess.CompletedProcess:
    src = tmp_path / "shader.hlsl"
    src.write_text(source)
    cmd = [sys.executable, "-m", "shaderbuild", "compile", "shader.hlsl", "-T", "cs_6_0", "-E", "main",
           "--target", target, "-o", "out.bin", "--manifest", "out.json", *extra]
    return subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=60)


def assert_failed_cleanly(tmp_path: Path, proc: subprocess.CompletedProcess, expected_head: str, caret_col: int) -> None:
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert lines[0] == expected_head
    assert lines[2] == " " * (caret_col - 1) + "^"
    assert not (tmp_path / "out.bin").exists()
    assert not (tmp_path / "out.json").exists()
    assert not list(tmp_path.glob(".*.tmp"))


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_syntax_error(tmp_path, target):
    proc = run_compile(tmp_path, GOOD.replace("id.x * 2 + 1;", "id.x * 2 + ;"), target=target)
    assert_failed_cleanly(tmp_path, proc, "shader.hlsl:4:28: error: expected an expression, found ';'", 28)
    assert proc.stderr.splitlines()[1] == "    Out[id.x] = id.x * 2 + ;"


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_unknown_identifier(tmp_path, target):
    proc = run_compile(tmp_path, GOOD.replace("id.x * 2", "idx.x * 2"), target=target)
    assert_failed_cleanly(tmp_path, proc,
                          "shader.hlsl:4:17: error: use of undeclared identifier 'idx'; did you mean 'id'?", 17)


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_missing_include(tmp_path, target):
    proc = run_compile(tmp_path, '#include "lighting.hlsli"\n' + GOOD, target=target)
    assert proc.returncode == 1
    head = proc.stderr.splitlines()[0]
    assert head.startswith("shader.hlsl:1:10: error: ") and "'lighting.hlsli' file not found" in head
    assert_failed_cleanly(tmp_path, proc, head, 10)


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_missing_entry_point(tmp_path, target):
    proc = run_compile(tmp_path, GOOD.replace("void main(", "void main2("), target=target)
    assert_failed_cleanly(tmp_path, proc, "shader.hlsl:1:1: error: missing entry point definition 'main'", 1)


def test_unknown_profile_is_an_error_without_traceback(tmp_path):
    src = tmp_path / "shader.hlsl"
    src.write_text(GOOD)
    proc = subprocess.run([sys.executable, "-m", "shaderbuild", "compile", "shader.hlsl", "-T", "cs_5_0",
                           "-spirv", "-o", "out.bin"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "error: unknown or unsupported profile 'cs_5_0'" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out.bin").exists()


def test_error_inside_include_points_into_the_include(tmp_path):
    (tmp_path / "helpers.hlsli").write_text("uint twice(uint x)\n{\n    return x * two;\n}\n")
    proc = run_compile(tmp_path, '#include "helpers.hlsli"\n' + GOOD.replace("id.x * 2", "twice(id.x)"))
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[0] == "helpers.hlsli:3:16: error: use of undeclared identifier 'two'"
    assert proc.stderr.splitlines()[1] == "    return x * two;"


def test_usage_error_exits_1(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "shaderbuild", "compile", "x.hlsl"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "the following arguments are required: -T" in proc.stderr


@pytest.mark.parametrize("extra", [
    pytest.param(("-fvk-u-shift", "4294967296", "0"), id="shift"),
    pytest.param(("-fvk-u-shift", "1", "4294967296"), id="shift_space"),
    pytest.param(("-fvk-bind-register", "u0", "0", "4294967296", "0"), id="bind_register"),
])
def test_vulkan_shifts_past_32_bits_are_refused(tmp_path, extra):
    """Issue 21 item 8: a shift of 2^32 used to wrap every binding silently."""
    proc = run_compile(tmp_path, GOOD, *extra)
    assert proc.returncode == 1, proc.stderr
    assert "out of range (0 to 4294967295)" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "out.bin").exists()
