"""The build action: compile and write every declared output atomically.

`scons -j1`: the compiler runs inside the SCons process (no subprocess per shader).
`scons -j N`: SCons runs N actions at once on worker threads, and each hands its compile to a
pool of N long-lived forked worker processes (shaderbuild's compiler is pure Python, so threads
alone would be serialised by the GIL); pool.py says how the pool starts early and compiles ahead.
The workers return the outputs' bytes, which the action writes: SCons removes a target's old
outputs just before its action, so a worker compiling ahead must not write them.

`SHADERBUILD_COMPILE_LOG=<file>` in the process environment appends one line per compile (with
the id of the process that compiled): tests and users can prove that a rebuild compiled
nothing, and how many processes compiled.

A successful compile also returns the files its preprocessor read: when the scanner deferred
this target's scan (a clean build, scanner.py), they become the targets' implicit dependencies.
"""

from __future__ import annotations

import json
import os
import sys
import threading

from ..build.outputs import TEMP_PREFIX
from .emitter import side_outputs
from .options import LABEL_VAR, OPTIONS_VAR, OUTPUTS_VAR, decode
from .pool import Pool
from .scanner import may_compile_ahead, record

COMPILE_LOG_ENV = "SHADERBUILD_COMPILE_LOG"
_COMPILE_LOCK = threading.Lock()
_LOG_LOCK = threading.Lock()
_POOL_LOCK = threading.Lock()
_POOL: Pool | None = None


def _log_compile(source: str, binary: str, options_text: str, pid: int) -> None:
    path = os.environ.get(COMPILE_LOG_ENV)
    if not path:
        return
    options = decode(options_text)
    defines = " ".join(f"{k}={v}" for k, v in sorted(options.defines.items()))
    with _LOG_LOCK, open(path, "a", encoding="utf-8") as f:
        f.write(f"compile {source} -> {binary} [{options.target} {options.entry} {defines}] pid={pid}\n")


def compile_outputs(job: tuple) -> tuple:
    """Compile one job (src, options text, binary, extras, label, diagnostics style) and write its
    outputs under temporary names next to them: (ok, rendered diagnostics, pid, the files the
    preprocessor read, {kind: (path, temporary path)}, [[path, stat] of each file read, taken
    before reading it]).  Runs in the SCons process (-j1) or in a pool worker (-j N)."""
    from ..build.files import stat_sig
    from ..build.outputs import c_identifier, header_symbol, manifest_bytes, render_header
    from ..compiler import compile_file
    from ..diagnostics import render_all
    from ..front.source_file import read_source

    src, options_text, binary, extras, label, style = job
    options = decode(options_text)
    inputs: list[list] = []

    def reader(path: str) -> bytes:
        path = os.path.abspath(path)
        inputs.append([path, stat_sig(path)])
        return read_source(path)

    result = compile_file(src, options, reader=reader)
    text = render_all(result.diagnostics, result.sources, style) + "\n" if result.diagnostics else ""
    if not result.ok or result.binary is None:
        return False, text, os.getpid(), [], {}, inputs
    binary_bytes = result.binary
    contents = {
        "manifest": lambda: manifest_bytes(result.manifest or {}),
        "disassembly": lambda: (result.disassembly or "").encode("utf-8"),
        "header": lambda: render_header(header_symbol(label) if "@" in label else c_identifier(binary), binary_bytes,
                                        label),
    }
    staged = {"binary": (binary, _stage(binary, binary_bytes))}
    try:
        for kind, path in side_outputs(binary, extras).items():
            staged[kind] = (path, _stage(path, contents[kind]()))
    except BaseException:
        _discard((True, "", 0, [], staged, []))
        raise
    return True, text, os.getpid(), list(result.dependencies), staged, inputs


def _stage(path: str, data: bytes) -> str:
    """Write `data` to a new temporary file next to `path`; the action renames it into place."""
    global _staged
    directory = os.path.dirname(path)
    while True:
        _staged += 1
        tmp = os.path.join(directory, f"{TEMP_PREFIX}{os.getpid()}-{_staged}-{os.path.basename(path)}")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            continue
        except FileNotFoundError:
            os.makedirs(directory, exist_ok=True)     # raises if it cannot be made
            continue
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        except BaseException:
            os.unlink(tmp)
            raise
        return tmp


_staged = 0


def _discard(result: tuple) -> None:
    """Remove the temporary files of a result that will not be used."""
    for _, tmp in result[4].values():
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _failed(message: str) -> tuple:
    """The result of a job no worker could run."""
    return False, f"error: {message}\n", 0, [], {}, []


def _fresh(result: tuple) -> bool:
    """A result compiled ahead is used only if it succeeded and nothing it read changed since."""
    from ..build.files import stat_sig

    return result[0] and all(stat_sig(path) == (tuple(sig) if sig else sig) for path, sig in result[5])


def num_jobs() -> int:
    """SCons' -j (1 outside a SCons run, e.g. tests calling the action: compile in-process)."""
    try:
        import SCons.Script

        return max(1, int(SCons.Script.GetOption("num_jobs") or 1))
    except Exception:  # noqa: BLE001 - outside a SCons run
        return 1


def _prepare_worker() -> None:
    """Run once in the first worker before it forks the others: its standard streams are replaced
    (workers return their diagnostics as text), the compiler and the plugins are imported and a
    tiny shader is compiled per backend (the compiler imports its front end, passes and backend
    modules on first use: each worker would otherwise pay for that itself), then the collector is
    told to leave the inherited objects alone (so their pages are not copied)."""
    import gc

    from ..build.worker import init_worker, warm_up
    from ..plugin import get_host

    sys.stdout = open(os.devnull, "w")        # noqa: SIM115 - lives as long as the worker
    sys.stderr = open(os.devnull, "w")        # noqa: SIM115
    init_worker()
    warm_up(set(get_host().backends()))
    gc.freeze()


def pool(workers: int) -> Pool | None:
    """The worker pool of this SCons run, started on first use (None where processes cannot fork)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None and hasattr(os, "fork"):
            import atexit

            _POOL = Pool(workers, compile_outputs, _prepare_worker, _failed, _discard)
            atexit.register(_shutdown_pool)
        return _POOL


def _shutdown_pool() -> None:
    global _POOL
    if _POOL is not None:
        _POOL.close()
        _POOL = None


def _building_jobs() -> int:
    """SCons' -j when it will build with more than one job, else 0 (-j1, or SCons only cleans,
    asks, prints the help or runs without executing)."""
    jobs = num_jobs()
    if jobs <= 1:
        return 0
    import SCons.Script

    return 0 if any(SCons.Script.GetOption(o) for o in ("clean", "no_exec", "question", "help", "interactive")) \
        else jobs


def _never_built(env) -> bool:
    """No SCons database at the top of the tree (the default single-file one): a first build."""
    import SCons.dblite
    import SCons.SConsign

    if SCons.SConsign.DB_Module is not SCons.dblite:
        return False
    name = SCons.SConsign.DB_Name or SCons.SConsign.current_sconsign_filename()
    path = name if os.path.isabs(name) else os.path.join(env.Dir("#").abspath, name)
    return not os.path.exists(path if path.endswith(".dblite") else path + ".dblite")


def start_early(env) -> None:
    """The tool was loaded in a tree SCons never built: start the pool now (-j N > 1), so that the
    first worker warms up while SCons reads the SConstruct (the tool's own imports, the project
    file, the declarations: ~0.03 s of the sample's clean build)."""
    jobs = _building_jobs()
    if jobs and _never_built(env):
        pool(jobs)


def will_compile(env, job: tuple) -> None:
    """A target was declared whose binary is missing: SCons will probably build it (a clean
    build).  With -j N > 1, start the pool now if it is not running, so that the workers warm up
    while SCons reads the rest of the SConstruct, and let the pool compile this job ahead (see
    pool.py)."""
    jobs = _building_jobs()
    p = pool(jobs) if jobs else None
    if p is not None:
        p.ahead(job[2], job)


def compile_action(target, source, env) -> int:
    """SCons function action; returns non-zero (SCons: build error) when compilation fails."""
    options_text = env[OPTIONS_VAR]
    src = source[0].srcnode().abspath
    binary = target[0].abspath
    extras = tuple(env.get(OUTPUTS_VAR) or ())
    label = env.get(LABEL_VAR) or str(source[0])      # a project target's name (see ShaderProject)
    style = env.get("SHADERBUILD_DIAGNOSTICS_FORMAT", "gnu")
    side_outputs(binary, extras)                       # unknown kinds fail here, before compiling
    job = (src, options_text, binary, extras, label, style)
    jobs = num_jobs()
    workers = pool(jobs) if jobs > 1 else None
    if workers is not None:
        ahead = not workers.compiling_ahead and may_compile_ahead(env)
        ok, text, pid, deps, files, _ = workers.run(binary, job, _fresh, ahead)
    else:
        with _COMPILE_LOCK:
            ok, text, pid, deps, files, _ = compile_outputs(job)
    for path, tmp in files.values():       # staged by the compile (ok only)
        os.replace(tmp, path)
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
    options = json.loads(env[OPTIONS_VAR])      # (not decode(): this runs for every target)
    defines = " ".join(f"-D{k}={v}" for k, v in sorted(options["defines"]))
    return (f"hlsl {options['target']} {options['profile']} -E {options['entry']} {defines} "
            f"{source[0]} -> {target[0]}").replace("  ", " ")
