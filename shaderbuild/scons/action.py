"""The build action: compile in-process and write every declared output atomically.

No subprocess per shader: the compiler runs inside the SCons process.  SCons
runs actions of `-j N` builds on worker threads; compiles are serialised by a
lock (they are pure Python, so the GIL would serialise them anyway) while
SCons still overlaps its own scanning and signature work.

`SHADERBUILD_COMPILE_LOG=<file>` in the process environment appends one line
per compile (with the compiling process id): tests and users can prove that a
rebuild compiled nothing, and that compiles ran inside the SCons process.
"""

from __future__ import annotations

import os
import sys
import threading

from .emitter import side_outputs
from .options import LABEL_VAR, OPTIONS_VAR, OUTPUTS_VAR, decode

COMPILE_LOG_ENV = "SHADERBUILD_COMPILE_LOG"
_COMPILE_LOCK = threading.Lock()
_LOG_LOCK = threading.Lock()


def _log_compile(source: str, binary: str, options) -> None:
    path = os.environ.get(COMPILE_LOG_ENV)
    if not path:
        return
    defines = " ".join(f"{k}={v}" for k, v in sorted(options.defines.items()))
    with _LOG_LOCK, open(path, "a", encoding="utf-8") as f:
        f.write(f"compile {source} -> {binary} [{options.target} {options.entry} {defines}] pid={os.getpid()}\n")


def compile_action(target, source, env) -> int:
    """SCons function action; returns non-zero (SCons: build error) when compilation fails."""
    from ..build.outputs import c_identifier, header_symbol, manifest_bytes, render_header, write_all
    from ..compiler import compile_file
    from ..diagnostics import render_all

    options = decode(env[OPTIONS_VAR])
    src = source[0].srcnode().abspath
    binary = target[0].abspath
    with _COMPILE_LOCK:
        _log_compile(src, binary, options)
        result = compile_file(src, options)
    if result.diagnostics:
        style = env.get("SHADERBUILD_DIAGNOSTICS_FORMAT", "gnu")
        sys.stderr.write(render_all(result.diagnostics, result.sources, style) + "\n")
    if not result.ok or result.binary is None:
        return 1
    paths = side_outputs(binary, env.get(OUTPUTS_VAR) or [])
    label = env.get(LABEL_VAR) or str(source[0])      # a project target's name (see ShaderProject)
    contents = {
        "manifest": lambda: manifest_bytes(result.manifest or {}),
        "disassembly": lambda: (result.disassembly or "").encode("utf-8"),
        "header": lambda: render_header(header_symbol(label) if "@" in label else c_identifier(binary), result.binary,
                                        label),
    }
    files = {"binary": (binary, result.binary)}
    files.update({kind: (path, contents[kind]()) for kind, path in paths.items()})
    write_all(files)
    return 0


def describe(target, source, env) -> str:
    """The line SCons prints for a compile (overridable with $HLSLCOMSTR)."""
    options = decode(env[OPTIONS_VAR])
    defines = " ".join(f"-D{k}={v}" for k, v in sorted(options.defines.items()))
    return (f"hlsl {options.target} {options.profile} -E {options.entry} {defines} "
            f"{source[0]} -> {target[0]}").replace("  ", " ")
