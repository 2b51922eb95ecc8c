"""What runs in a worker process: compile one target and write its outputs.

Workers import the compiler once (pool initializer) and compile in-process.  The
files the compiler reads go through `reader`, which records each file's stat
(taken *before* the read) and the sha256 of the exact bytes compiled, so the
database can never pair a new stat with old content.  A pool worker then commits
the target's record itself (database.RecordWriter), and the build process adopts it.
"""

from __future__ import annotations

import os
import time
import traceback
from collections.abc import Callable

from ..front.source_file import read_source
from ..options import CompileOptions
from ..records import DataRecord, Record
from .cache import full_key, portable
from .files import sha256_bytes, sha256_file, stat_sig
from .outputs import header_symbol, manifest_bytes, render_header, write_all


class Job(DataRecord):
    tid: str
    name: str
    source: str
    options: CompileOptions
    outputs: dict[str, str]          # kind -> path
    diag_format: str = "gnu"
    record: dict | None = None       # name, config, parts, reason: a pool worker completes the record and commits it


class JobResult(DataRecord):
    tid: str
    ok: bool
    messages: str = ""               # rendered diagnostics (errors and warnings)
    diagnostics: list[dict] = Record.factory(list)
    deps: list[list] = Record.factory(list)        # [path, mtime_ns, size, inode, sha256]
    outputs: dict[str, list] = Record.factory(dict)  # kind -> [path, mtime_ns, size, inode, sha256]
    resources: list | None = None    # [[name, hlsl], ...] sorted, for the cross-backend check
    dirs: list[list] = Record.factory(list)   # [dir, mtime_ns]: include search directories
    seconds: float = 0.0
    key: str = ""                    # set when the paths above are relative to the project (portable)
    recorded: bool = False           # the worker committed the target's record (database.RecordWriter)


def target_record(base: dict, key: str, res: JobResult) -> dict:
    """The build database's record of a target that built: what was known before compiling
    (`base`: name, config digest, key parts, reason) and what the compile read and wrote."""
    return {"name": base["name"], "config": base["config"], "parts": base["parts"], "key": key,
            "deps": res.deps, "outputs": res.outputs, "dirs": res.dirs, "resources": res.resources,
            "reason": base["reason"]}


def make_portable(res: JobResult, base: dict, root: str) -> None:
    """Paths relative to the project `root` (as records store them) and the target's full key."""
    if not res.key:
        for row in [*res.deps, *res.outputs.values(), *res.dirs]:
            row[0] = portable(row[0], root)
        res.key = full_key(base["config"], res.deps)


def default_compile() -> Callable:
    from ..compiler import compile_file

    return compile_file


def init_worker() -> None:
    """Pool initializer: import the compiler and load the plugins once per process."""
    default_compile()
    from ..plugin import get_host

    get_host().backends()


WARM_UP_SHADER = ("RWStructuredBuffer<uint> Out : register(u0);\n"
                  "[numthreads(1, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = id.x; }\n")


def warm_up(targets: set[str]) -> None:
    """Import the compiler, and each target's compile path (by compiling a tiny compute shader
    for it), in this process before a pool forks its workers from it: the workers inherit the
    modules instead of each importing them again (with -j2, a rebuild of a few targets spent
    more CPU importing than compiling)."""
    compile_file = default_compile()
    for target in sorted(targets):
        compile_file("<warm-up>.hlsl", CompileOptions(profile="cs_6_0", target=target), text=WARM_UP_SHADER)


_RECORDS: tuple = (None, "")     # (database.RecordWriter, project root) in a pool worker


def start_worker(parent_watch: tuple[int, int, int], load_compiler: bool = True,
                 records: tuple[str, str] | None = None) -> None:
    """Pool initializer: die with the build process (platform.ParentWatch), then warm up.
    `records` (database path, project root): commit the record of each target built here."""
    global _RECORDS
    from .platform import die_with_parent

    die_with_parent(*parent_watch)
    if records is not None:
        from .database import RecordWriter

        _RECORDS = (RecordWriter(records[0]), records[1])
    if load_compiler:
        init_worker()


def _record(job: Job, res: JobResult) -> JobResult:
    writer, root = _RECORDS
    if writer is not None and job.record is not None and res.ok:
        make_portable(res, job.record, root)
        res.recorded = writer.put(job.tid, target_record(job.record, res.key, res))
    return res


_FORKED: tuple[list[Job], Callable | None] = ([], None)


def share_with_forked_workers(work: list[Job], compile_fn: Callable | None) -> None:
    """Jobs that a pool forked from this process finds in its memory: `run_forked(i)` then
    sends an index instead of pickling a Job (its CompileOptions) per target."""
    global _FORKED
    _FORKED = (work, compile_fn)


def run_forked(start: int, stop: int) -> list[JobResult]:
    """Jobs start..stop-1 of the shared list, one after the other (a span per round trip: the
    build process's cost of a pool task is per task, issue 23)."""
    work, compile_fn = _FORKED
    return [_pooled(work[i], compile_fn) for i in range(start, stop)]


def run_pooled(jobs: list[Job], compile_fn: Callable | None = None) -> list[JobResult]:
    """run_forked for a pool worker that was not forked (the jobs were pickled)."""
    return [_pooled(job, compile_fn) for job in jobs]


def _pooled(job: Job, compile_fn: Callable | None) -> JobResult:
    try:
        return _record(job, run_job(job, compile_fn))
    except Exception as exc:  # noqa: BLE001 - e.g. a full disk fails this target, not its span
        return worker_failed(job, exc)


def worker_failed(job: Job, exc: BaseException) -> JobResult:
    return JobResult(job.tid, False, f"error: worker process failed while building {job.name}: "
                                     f"{type(exc).__name__}: {exc}")   # str(): it names the file


def resource_signature(manifest: dict | None) -> list | None:
    if not manifest or "resources" not in manifest:
        return None
    return sorted([r.get("name"), r.get("hlsl")] for r in manifest["resources"])


def run_job(job: Job, compile_fn: Callable | None = None) -> JobResult:
    start = time.perf_counter()
    compile_fn = compile_fn or default_compile()
    reads: dict[str, list] = {}
    # Directory mtimes change when entries are added, removed or renamed: a new header
    # that would shadow an include.  Taken before compiling so a race only causes a rescan.
    dir_mtimes = {d: sig[0] for d in [os.path.dirname(job.source), *job.options.include_dirs]
                  if (sig := stat_sig(d)) is not None}

    def reader(path: str) -> bytes:
        path = os.path.abspath(path)
        sig = stat_sig(path)
        data = read_source(path)    # regular files only, bounded (issue 21 item 5)
        if sig is not None:
            reads[path] = [path, *sig, sha256_bytes(data)]
        return data

    try:
        result = compile_fn(job.source, job.options, reader=reader)
    except Exception:  # noqa: BLE001 - a compiler crash fails this target, not the build
        msg = f"{job.source}: internal compiler error while building {job.name}\n{traceback.format_exc()}"
        return JobResult(job.tid, False, msg, [{"severity": "error", "message": msg}],
                         seconds=time.perf_counter() - start)
    from ..diagnostics import render_all

    messages = render_all(result.diagnostics, result.sources, job.diag_format) if result.diagnostics else ""
    diags = [d.to_json() for d in result.diagnostics]
    if not result.ok or result.binary is None:
        if not messages:
            messages = f"{job.source}: error: compilation of {job.name} failed without a diagnostic"
        return JobResult(job.tid, False, messages, diags, seconds=time.perf_counter() - start)

    deps = []
    for path in sorted({os.path.abspath(p) for p in result.dependencies} | {os.path.abspath(job.source)}):
        row = reads.get(path)
        if row is None:  # the compiler read it without our reader
            sig = stat_sig(path)
            if sig is None:
                continue
            row = [path, *sig, sha256_file(path)]
        deps.append(row)

    for row in deps:
        d = os.path.dirname(row[0])
        if d not in dir_mtimes and (sig := stat_sig(d)) is not None:
            dir_mtimes[d] = sig[0]
    files = {"binary": (job.outputs["binary"], result.binary),
             "manifest": (job.outputs["manifest"], manifest_bytes(result.manifest or {}))}
    if "disassembly" in job.outputs:
        files["disassembly"] = (job.outputs["disassembly"], (result.disassembly or "").encode("utf-8"))
    if "header" in job.outputs:
        symbol = header_symbol(job.name)
        files["header"] = (job.outputs["header"], render_header(symbol, result.binary, job.name))
    written = write_all(files)
    outputs = {kind: [path, *sig, sha] for kind, (path, sig, sha) in written.items()}
    return JobResult(job.tid, True, messages, diags, deps, outputs, resource_signature(result.manifest),
                     [[d, m] for d, m in sorted(dir_mtimes.items())], time.perf_counter() - start)
