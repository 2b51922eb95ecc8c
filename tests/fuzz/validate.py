"""External validators for a successful compile: spirv-val for SPIR-V, obj2yaml-19 plus
llvm-bcanalyzer-19 and dxil-spirv (its SPIR-V through spirv-val; a listed dxil-spirv limit is no finding)
for DXIL.  Returns an error message or None; never raises for a bad binary (the fuzz worker must keep
going), only for a missing tool."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

from harness.dxil_tools import extract_bitcode

TOOL_TIMEOUT = 60.0
SPIRV_ENV = "vulkan1.1"


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise FileNotFoundError(f"fuzz validator {name} is not on PATH")
    return path


def _run(args: list[str], data: bytes, suffix: str, workdir: str | None) -> str | None:
    """Run a tool on `data` written to a temp file; the tool's complaint or None."""
    fd, path = tempfile.mkstemp(suffix=suffix, dir=workdir)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        proc = subprocess.run([_tool(args[0]), *args[1:], path], capture_output=True, timeout=TOOL_TIMEOUT)
    except subprocess.TimeoutExpired:
        return f"{args[0]} timed out"
    finally:
        os.unlink(path)
    if proc.returncode != 0:
        return f"{args[0]} exit {proc.returncode}: " + (proc.stderr + proc.stdout).decode(errors="replace")[:2000]
    return None


# the Vulkan environment that first takes a SPIR-V version (mesh and ray-tracing seeds compile for vulkan1.2)
_ENV_OF_VERSION = {(1, 4): "vulkan1.2", (1, 5): "vulkan1.2", (1, 6): "vulkan1.3"}


def spirv_env(binary: bytes) -> str:
    """The Vulkan environment to validate a module in, from its header's version word."""
    if len(binary) < 8:
        return SPIRV_ENV
    version = int.from_bytes(binary[4:8], "little")
    return _ENV_OF_VERSION.get((version >> 16 & 0xFF, version >> 8 & 0xFF), SPIRV_ENV)


def check_spirv(binary: bytes, workdir: str | None = None) -> str | None:
    return _run(["spirv-val", "--target-env", spirv_env(binary)], binary, ".spv", workdir)


def check_dxil(binary: bytes, workdir: str | None = None) -> str | None:
    problem = _run(["obj2yaml-19"], binary, ".dxil", workdir)
    if problem:
        return problem
    try:
        bitcode = extract_bitcode(binary)
    except Exception as exc:  # noqa: BLE001 - any parse failure is the finding
        return f"container: {exc}"
    problem = _run(["llvm-bcanalyzer-19"], bitcode, ".bc", workdir)
    if problem:
        return problem
    return _consumer(binary)


def _consumer(binary: bytes) -> str | None:
    from harness import dxil_consumer
    exe = dxil_consumer._converter()
    if not isinstance(exe, str):
        raise FileNotFoundError(f"fuzz validator dxil-to-spirv is not available: {exe}")
    try:
        dxil_consumer.to_spirv(binary)
    except dxil_consumer.ConsumerLimit:
        return None
    except dxil_consumer.ConsumerError as exc:
        return f"dxil-spirv: {exc}"[:2000]
    return None


VALIDATORS = {"spirv": check_spirv, "dxil": check_dxil}
