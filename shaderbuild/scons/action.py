"""The build action: compile and write every declared output atomically.

`scons -j1`: the compiler runs inside the SCons process (no subprocess per shader).
`scons -j N`: SCons runs N actions at once on worker threads, and each hands its compile to a
pool of N long-lived worker processes (shaderbuild's compiler is pure Python, so threads alone
would be serialised by the GIL).  The pool starts on the first compile by forking the SCons
process after it imported the compiler, loaded the plugins and compiled a tiny shader per backend
(a fork server would import them all again: ~0.2 s of CPU per build); the workers replace their standard
streams first, so no lock another SCons thread held at the fork can block them.  The pool is shut
down when SCons exits.

`SHADERBUILD_COMPILE_LOG=<file>` in the process environment appends one line per compile (with
the id of the process that compiled): tests and users can prove that a rebuild compiled
nothing, and how many processes compiled.

A successful compile also returns the files its preprocessor read: when the scanner deferred
this target's scan (a clean build, scanner.py), they become the targets' implicit dependencies.
"""

from __future__ import annotations

import os
import sys
import threading

from .emitter import side_outputs
from .options import LABEL_VAR, OPTIONS_VAR, OUTPUTS_VAR, decode
from .scanner import record

COMPILE_LOG_ENV = "SHADERBUILD_COMPILE_LOG"
_COMPILE_LOCK = threading.Lock()
_LOG_LOCK = threading.Lock()
_POOL_LOCK = threading.Lock()
_POOL = None


def _log_compile(source: str, binary: str, options_text: str, pid: int) -> None:
    path = os.environ.get(COMPILE_LOG_ENV)
    if not path:
        return
    options = decode(options_text)
    defines = " ".join(f"{k}={v}" for k, v in sorted(options.defines.items()))
    with _LOG_LOCK, open(path, "a", encoding="utf-8") as f:
        f.write(f"compile {source} -> {binary} [{options.target} {options.entry} {defines}] pid={pid}\n")


def compile_to_files(src: str, options_text: str, binary: str, extras: list[str], label: str,
                     style: str) -> tuple[bool, str, int, list[str]]:
    """Compile `src` and write the binary and its side outputs; (ok, rendered diagnostics, pid,
    the files the preprocessor read).  Runs in the SCons process (-j1) or in a pool worker (-j N)."""
    from ..build.outputs import c_identifier, header_symbol, manifest_bytes, render_header, write_all
    from ..compiler import compile_file
    from ..diagnostics import render_all

    result = compile_file(src, decode(options_text))
    text = render_all(result.diagnostics, result.sources, style) + "\n" if result.diagnostics else ""
    if not result.ok or result.binary is None:
        return False, text, os.getpid(), []
    binary_bytes = result.binary
    contents = {
        "manifest": lambda: manifest_bytes(result.manifest or {}),
        "disassembly": lambda: (result.disassembly or "").encode("utf-8"),
        "header": lambda: render_header(header_symbol(label) if "@" in label else c_identifier(binary), binary_bytes,
                                        label),
    }
    files = {"binary": (binary, binary_bytes)}
    files.update({kind: (path, contents[kind]()) for kind, path in side_outputs(binary, extras).items()})
    write_all(files)
    return True, text, os.getpid(), list(result.dependencies)


def _num_jobs() -> int:
    try:
        import SCons.Script

        return max(1, int(SCons.Script.GetOption("num_jobs") or 1))
    except Exception:  # noqa: BLE001 - outside a SCons run (tests calling the action): in-process
        return 1


def _pool(workers: int):
    """The process pool of this SCons run (created on first use, from a thread-safe fork server)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            import atexit
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            from ..build.worker import init_worker

            init_worker()          # imported and loaded once here, inherited by every worker
            _warm_up()
            import gc

            gc.freeze()            # the collector must not touch (and so copy) the inherited objects
            ctx = multiprocessing.get_context("fork")
            _POOL = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_streams)
            atexit.register(_shutdown_pool)
        return _POOL


def _warm_up() -> None:
    """Compile a tiny shader for every backend once in the SCons process before the pool forks: the
    compiler imports its front end, passes and backend modules on first use, and every worker would
    otherwise pay for that itself (the build engine's pool does the same: build/worker.py)."""
    from ..build.worker import warm_up
    from ..plugin import get_host

    warm_up(set(get_host().backends()))


def _worker_streams() -> None:
    """Pool initializer: fresh stdout/stderr objects (the inherited ones may be locked by a thread
    that was printing when SCons forked); workers return their diagnostics as text instead."""
    sys.stdout = open(os.devnull, "w")        # noqa: SIM115 - lives as long as the worker
    sys.stderr = open(os.devnull, "w")        # noqa: SIM115


def _shutdown_pool() -> None:
    """Stop the workers and wait for them (their CPU time is then accounted to this process)."""
    global _POOL
    if _POOL is not None:
        _POOL.shutdown(wait=True)
        _POOL = None


def compile_action(target, source, env) -> int:
    """SCons function action; returns non-zero (SCons: build error) when compilation fails."""
    options_text = env[OPTIONS_VAR]
    src = source[0].srcnode().abspath
    binary = target[0].abspath
    extras = list(env.get(OUTPUTS_VAR) or [])
    label = env.get(LABEL_VAR) or str(source[0])      # a project target's name (see ShaderProject)
    style = env.get("SHADERBUILD_DIAGNOSTICS_FORMAT", "gnu")
    side_outputs(binary, extras)                       # unknown kinds fail here, before compiling
    jobs = _num_jobs()
    if jobs > 1:
        ok, text, pid, deps = _pool(jobs).submit(compile_to_files, src, options_text, binary, extras, label,
                                                 style).result()
    else:
        with _COMPILE_LOCK:
            ok, text, pid, deps = compile_to_files(src, options_text, binary, extras, label, style)
    _log_compile(src, binary, options_text, pid)
    includes = record(env, src, options_text, deps) if ok else []
    if includes:      # the scan was deferred to this compile: SCons stores these with the targets
        for node in target:
            node.add_to_implicit(includes)
    if text:
        sys.stderr.write(text)
    return 0 if ok else 1


def describe(target, source, env) -> str:
    """The line SCons prints for a compile (overridable with $HLSLCOMSTR)."""
    options = decode(env[OPTIONS_VAR])
    defines = " ".join(f"-D{k}={v}" for k, v in sorted(options.defines.items()))
    return (f"hlsl {options.target} {options.profile} -E {options.entry} {defines} "
            f"{source[0]} -> {target[0]}").replace("  ", " ")
