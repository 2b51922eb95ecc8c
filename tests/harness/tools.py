"""Wrappers around the external SPIR-V tools (spirv-val, spirv-dis, spirv-cross, glslangValidator).

Every wrapper looks its tool up with shutil.which.  A missing tool skips the test locally and
fails it loudly in CI (env CI=true), so CI can never go green by skipping everything.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import NoReturn

import pytest

TOOL_TIMEOUT = 120.0
_TRUE = frozenset({"1", "true", "yes", "on"})


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in _TRUE


def missing_dependency(what: str) -> NoReturn:
    """Skip the test locally, fail it in CI: CI must never go green by skipping."""
    msg = f"missing test dependency: {what}"
    if in_ci():
        pytest.fail(msg, pytrace=False)
    pytest.skip(msg)


def require_tool(name: str) -> str:
    """Absolute path of `name`; pytest.skip (locally) or pytest.fail (CI) when it is missing."""
    path = shutil.which(name)
    if path is None:
        missing_dependency(f"tool {name} (not on PATH)")
    return path


def run_tool(args: list[str], *, check: bool = True, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    """Run a tool (args[0] is looked up with require_tool); raise AssertionError on failure if check."""
    exe = require_tool(args[0])
    proc = subprocess.run([exe, *args[1:]], input=stdin, capture_output=True, timeout=TOOL_TIMEOUT)
    if check and proc.returncode != 0:
        raise AssertionError(
            f"{' '.join(map(str, args))} failed with exit status {proc.returncode}:\n"
            f"{proc.stderr.decode(errors='replace')}{proc.stdout.decode(errors='replace')}"
        )
    return proc


class TempInput:
    """Context manager writing bytes to a named temp file (the tools want paths, not stdin)."""

    def __init__(self, data: bytes, suffix: str) -> None:
        self.data, self.suffix = data, suffix
        self._dir: tempfile.TemporaryDirectory | None = None

    def __enter__(self) -> Path:
        self._dir = tempfile.TemporaryDirectory(prefix="sbtool-")
        path = Path(self._dir.name) / f"input{self.suffix}"
        path.write_bytes(self.data)
        return path

    def __exit__(self, *exc: object) -> None:
        assert self._dir is not None
        self._dir.cleanup()


def spirv_dis(spirv: bytes) -> str:
    """Disassembly text of a SPIR-V binary (spirv-dis, friendly names)."""
    with TempInput(spirv, ".spv") as path:
        return run_tool(["spirv-dis", str(path)]).stdout.decode()


def spirv_val(spirv: bytes, env: str = "vulkan1.1") -> None:
    """Validate with spirv-val; AssertionError carries the validator message and the disassembly."""
    with TempInput(spirv, ".spv") as path:
        proc = run_tool(["spirv-val", "--target-env", env, str(path)], check=False)
    if proc.returncode != 0:
        try:
            dis = spirv_dis(spirv)
        except AssertionError as exc:  # not even disassemblable
            dis = f"<spirv-dis failed: {exc}>"
        msg = (proc.stderr + proc.stdout).decode(errors="replace")
        raise AssertionError(f"spirv-val --target-env {env} rejected the module:\n{msg}\n--- disassembly ---\n{dis}")


def spirv_cross_reflect(spirv: bytes) -> dict:
    """spirv-cross reflection JSON.  The file must come before --reflect (its value is optional)."""
    with TempInput(spirv, ".spv") as path:
        out = run_tool(["spirv-cross", str(path), "--reflect"]).stdout
    return json.loads(out)


def glslang_compile(hlsl_path: str | os.PathLike, stage: str, entry: str, extra_args: tuple[str, ...] = ()) -> bytes:
    """Compile HLSL with glslangValidator (-D -V) for stage ('comp', 'vert', 'frag', ...)."""
    with tempfile.TemporaryDirectory(prefix="sbglslang-") as tmp:
        out = Path(tmp) / "out.spv"
        run_tool(["glslangValidator", "--quiet", "-D", "-V", "-S", stage, "-e", entry,
                  *extra_args, str(hlsl_path), "-o", str(out)])
        return out.read_bytes()
