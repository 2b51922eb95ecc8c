"""The build: decide what is stale, compile it on a process pool, then finish the project.

`build()` is the one entry point shared by the CLI, the watch mode and the SCons
tool.  The no-op path (everything fresh) imports neither the compiler nor any
plugin and hashes nothing whose stat is unchanged.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from collections.abc import Callable
from typing import TextIO

from . import confine
from . import report as rep
from .cache import config_digest, key_parts, sha_text, state_dir
from .database import BuildDB
from .config import Project
from .deps import Status, check, rescanner
from .files import FileState
from .lock import ProjectLock
from .outputs import TEMP_PREFIX, atomic_write
from .progress import Progress
from .report import BuildReport
from .targets import Target, plan

INLINE_CPU_SECONDS = 0.1     # -j N > 1: compile in the build process until it has spent this much CPU
INLINE_WALL_SECONDS = 0.5    # or this much time, then start a pool for the rest
INLINE_MAX_TARGETS_PER_WORKER = 4    # more stale targets than this per worker: the pool at once
SPAN_MAX = 1     # jobs per pool task at most: 8 cut this process's CPU by half again but was slower in wall time (bench/README.md)
SPAN_TAIL = 4    # spans shrink once fewer than SPAN_TAIL * SPAN_MAX jobs per worker are left


def is_up_to_date(project: Project, target: Target, *, db: BuildDB | None = None, fs: FileState | None = None,
                  explain: bool = False) -> Status:
    """Freshness of one target (reads the build database unless `db` is given)."""
    db = db or BuildDB.load(project.output_dir, project.root)
    parts = key_parts(target, db.plugin_versions(), project.root, project.output_dir)
    return check(db.targets.get(target.tid), config_digest(parts), parts, fs or FileState(project.root),
                 explain=explain, rescan=rescanner(target, db))


def build(
    project: Project,
    targets: list[Target] | None = None,
    *,
    jobs: int | None = None,
    force: bool = False,
    verify: bool = False,
    keep_going: bool = False,
    compile_fn: Callable | None = None,
    diag_format: str = "gnu",
    stream: TextIO | None = None,
    tty: bool | None = None,
    quiet: bool = False,
    wait: bool = True,
    prune: bool | None = None,
    plugin_versions: dict[str, str] | None = None,
    scan_fn: Callable | None = None,
    executor=None,
    on_finish: Callable[[BuildDB], None] | None = None,
) -> BuildReport:
    """Bring `targets` (default: the whole project) up to date; never raises for compile errors.

    `compile_fn(path, options, reader=...)` defaults to shaderbuild.compiler.compile_file;
    it must be a module-level function when jobs > 1 (it is pickled to the workers).
    `verify` hashes every dependency and output instead of trusting unchanged stats.
    `prune` removes outputs of targets that left the project (default: when building all).
    `scan_fn(path, options)` (default shaderbuild.compiler.scan_dependencies) re-reads the
    includes of a target whose search directories gained or lost files.
    `executor` (e.g. executors.runner.RemoteExecutor) replaces the local process pool.
    `on_finish(db)` is called with the saved (and closed) database of a build that raised nothing.
    """
    start = time.perf_counter()
    all_targets = plan(project)
    if targets is None:
        targets = all_targets
        prune = True if prune is None else prune
    report = BuildReport()
    progress_out = Progress(0, stream, tty=tty, quiet=quiet)
    confine.check(project.output_dir, os.path.join(state_dir(project.output_dir), "lock"))   # no link there
    with ProjectLock(state_dir(project.output_dir), wait=wait, on_wait=progress_out.message) as lock:
        # A read-only output directory: a build with nothing to do must not need to write.
        db = BuildDB.load(project.output_dir, project.root, writable=lock.read_only is None,
                          immutable=lock.read_only is not None)
        read_only = lock.read_only or db.read_only
        if db.load_warning:
            report.warnings.append(db.load_warning)
            progress_out.message(f"warning: {db.load_warning}")
        versions = plugin_versions if plugin_versions is not None else db.plugin_versions()
        fs = FileState(project.root)
        stale: list[tuple[Target, dict, str]] = []
        for t in targets:
            parts = key_parts(t, versions, project.root, project.output_dir)
            cd = config_digest(parts)
            status = check(db.targets.get(t.tid), cd, parts, fs, force=force, verify=verify,
                           rescan=rescanner(t, db, scan_fn))
            if status.refreshed:
                db.touch(t.tid)
            if status.fresh:
                report.up_to_date.append(t.name)
            else:
                stale.append((t, parts, cd))
                report.reasons[t.name] = status.reasons
        try:
            if stale and read_only is not None:
                raise read_only
            if stale:
                _confine_outputs(project.output_dir, [t for t, _, _ in stale])
                _remove_stale_temps({os.path.dirname(p) for t, _, _ in stale for p in t.outputs.values()}
                                    | {state_dir(project.output_dir)})
                progress = Progress(len(stale), stream, tty=tty, quiet=quiet)
                _run(stale, db, report, progress, jobs=jobs, keep_going=keep_going, compile_fn=compile_fn,
                     diag_format=diag_format, executor=executor, force=force)
                progress.close()
            _finish(project, all_targets, db, report, fs, progress_out, prune=bool(prune))
        finally:
            try:
                db.save()
            finally:
                db.close()
        if on_finish is not None:
            on_finish(db)
    report.seconds = time.perf_counter() - start
    return report



def _run(stale, db: BuildDB, report: BuildReport, progress: Progress, *, jobs, keep_going, compile_fn,
         diag_format, executor=None, force=False) -> None:
    from .worker import Job, JobResult, make_portable, run_job, target_record  # not needed on the no-op path

    work = [Job(t.tid, t.name, t.source, t.options, t.outputs, diag_format,
                {"name": t.name, "config": cd, "parts": parts, "reason": report.reasons.get(t.name, [])})
            for t, parts, cd in stale]
    by_tid = {job.tid: job for job in work}

    def handle(res) -> bool:
        job = by_tid[res.tid]
        if res.messages:
            progress.message(res.messages)
        if res.diagnostics:
            report.diagnostics[job.name] = res.diagnostics
        if res.ok:
            base = job.record
            assert base is not None      # (every Job made above has one)
            make_portable(res, base, db.root)
            _drop_orphans(db, db.targets.get(job.tid), res.outputs, report)
            record = target_record(base, res.key, res)
            if res.recorded:
                db.adopt(job.tid, record)     # the pool worker committed it
            else:
                db.put(job.tid, record)       # committed now: a killed build keeps every finished target
            report.built.append(job.name)
        else:
            report.failed.append(job.name)
            report.messages.append(res.messages)
        progress.finished(job.name, res.ok, res.seconds)
        return res.ok

    if executor is not None:
        executor.run(work, handle, configs={t.tid: cd for t, _, cd in stale}, keep_going=keep_going, report=report,
                     force=force)
        return
    workers = min(jobs or os.cpu_count() or 1, len(work))
    # A rebuild of a few targets compiles here first: that costs less CPU and no more wall time
    # than starting a pool (the compiler's import is not counted).  What is left once this
    # process has spent INLINE_CPU_SECONDS compiling (or INLINE_WALL_SECONDS waiting for
    # compiles that do not use the CPU) goes to the pool, whose workers fork with the compiler
    # warm; a larger build starts the pool at once.
    small = 1 < workers and len(work) <= INLINE_MAX_TARGETS_PER_WORKER * workers
    if small and compile_fn is None:
        from .worker import default_compile

        default_compile()
    cpu, wall = time.process_time(), time.perf_counter()
    done = 0
    for job in work:
        if workers > 1 and len(work) - done > 1 and (not small or time.process_time() - cpu >= INLINE_CPU_SECONDS
                                                     or time.perf_counter() - wall >= INLINE_WALL_SECONDS):
            break
        done += 1
        progress.started(job.name)
        if not handle(run_job(job, compile_fn)) and not keep_going:
            report.skipped.extend(j.name for j in work[done:])
            return
    warm = {job.options.target for job in work[:done]}
    work = work[done:]
    if not work:
        return
    workers = min(workers, len(work))
    from concurrent.futures import ProcessPoolExecutor, as_completed

    from .platform import ParentWatch
    from .worker import run_forked, run_pooled, share_with_forked_workers, start_worker, warm_up, worker_failed

    import gc
    import multiprocessing

    forked = multiprocessing.get_start_method(allow_none=False) == "fork"
    if compile_fn is None and forked:
        warm_up({job.options.target for job in work} - warm)   # the workers fork from here with it loaded
    if forked:
        share_with_forked_workers(work, compile_fn)
    gc.freeze()     # until the pool ends: the workers' collections leave the inherited objects' pages alone
    watch = ParentWatch()   # workers die with this process, even under SIGKILL
    # The workers commit the records of the targets they build (this process only adopts them).
    db_path = db.suspend()
    records = None if db_path is None else (db_path, db.root)
    pool = ProcessPoolExecutor(max_workers=workers, initializer=start_worker,
                               initargs=(watch.initargs, compile_fn is None, records))
    try:
        # Forked workers find the jobs in memory: a span of indices is all a submit sends.
        futures = {(pool.submit(run_forked, i, j) if forked else pool.submit(run_pooled, work[i:j], compile_fn)):
                   work[i:j] for i, j in _spans(len(work), workers)}
        stop = False
        for fut in as_completed(futures):
            jobs = futures[fut]
            if fut.cancelled():
                report.skipped.extend(job.name for job in jobs)
                continue
            try:
                results = fut.result()
            except Exception as exc:  # noqa: BLE001 - a dead worker fails its targets
                results = [worker_failed(job, exc) for job in jobs]
                for job in jobs:
                    db.discard(job.tid)    # the worker may have committed it: it rebuilds next time
            for res in results:
                if not handle(res) and not keep_going and not stop:
                    stop = True
                    for other in futures:
                        other.cancel()
    finally:
        # On Ctrl-C (or any error) drop queued work instead of finishing it; running jobs end
        # normally and their finished outputs are already atomic.
        pool.shutdown(wait=True, cancel_futures=True)
        share_with_forked_workers([], None)
        watch.close()
        gc.unfreeze()


def _spans(n: int, workers: int, span_max: int = SPAN_MAX) -> list[tuple[int, int]]:
    """Index ranges [i, j) of the pool's tasks: up to `span_max` jobs each while many remain, then
    smaller ones, down to single jobs at the end, so no worker idles long while another finishes."""
    spans, i = [], 0
    while i < n:
        size = max(1, min(span_max, (n - i) // (SPAN_TAIL * workers)))
        spans.append((i, i + size))
        i += size
    return spans


def _drop_orphans(db: BuildDB, old: dict | None, new_outputs: dict, report: BuildReport) -> None:
    """Outputs the previous build of a target wrote but this one does not (e.g. a header no longer requested)."""
    if old is None:
        return
    keep = {row[0] for row in new_outputs.values()}
    for row in old["outputs"].values():
        path = db.abs(row[0])
        if row[0] not in keep and path.startswith(db.output_dir + os.sep):
            if confine.unlink(db.output_dir, path):
                report.removed.append(path)


def _finish(project: Project, all_targets: list[Target], db: BuildDB, report: BuildReport, fs: FileState,
            progress: Progress, *, prune: bool) -> None:
    out = project.output_dir
    failed = set(report.failed)
    blob_keys = _write_blobs(all_targets, db, report, fs, failed)
    report.mismatches = rep.cross_backend_mismatches(all_targets, db.targets)
    for m in report.mismatches:
        progress.message(f"error: {m['variant']}: resources differ between {' and '.join(m['backends'])}: "
                         + "; ".join(m["differences"]))
    report.duplicates = rep.identical_outputs(all_targets, db.targets)
    if prune:
        _prune(all_targets, db, report, out)
    # The index only changes when the database did (or someone touched the file).
    index_path = os.path.join(out, rep.INDEX_FILE)
    sig = fs.stat(index_path)
    if db.dirty or report.built or sig is None or list(sig) != db.meta.get("index_sig"):
        data = rep.index_bytes(rep.index_document(all_targets, db.targets, project.root, out, blob_keys))
        digest = sha_text(data.decode("utf-8"))
        if db.meta.get("index") != digest or sig is None or fs.sha(index_path) != digest:
            atomic_write(index_path, data)
            fs.forget(index_path)
        db.meta["index"] = digest
        db.meta["index_sig"] = list(fs.stat(index_path) or ())
        db.dirty = True


def _write_blobs(all_targets, db: BuildDB, report: BuildReport, fs: FileState, failed: set[str]) -> dict:
    groups: dict[str, list[Target]] = defaultdict(list)
    for t in all_targets:
        if t.blob:
            groups[t.blob].append(t)
    keys_by_blob = {}
    for path, members in sorted(groups.items()):
        recs = [db.targets.get(t.tid) for t in members]
        if any(r is None for r in recs) or any(t.name in failed for t in members):
            continue   # incomplete: keep the previous blob, if any
        entries = sorted([t.perm_key, r["outputs"]["binary"][0], r["outputs"]["binary"][4]]
                         for t, r in zip(members, recs) if r is not None)   # (none is None: checked above)
        digest = sha_text(repr([(k, sha) for k, _, sha in entries]))
        keys_by_blob[path] = [k for k, _, _ in entries]
        prev = db.blobs.get(db.rel(path))
        sig = fs.stat(path)
        if prev is not None and prev["digest"] == digest and sig is not None and list(sig) == prev["sig"]:
            continue
        from .blob import pack

        payload = {}
        for key, bin_path, _ in entries:
            with open(db.abs(bin_path), "rb") as f:
                payload[key] = f.read()
        atomic_write(path, pack(payload))
        fs.forget(path)
        db.blobs[db.rel(path)] = {"digest": digest, "sig": list(fs.stat(path) or ())}
        db.dirty = True
        report.blobs.append(path)
    return keys_by_blob


def _prune(all_targets, db: BuildDB, report: BuildReport, out: str) -> None:
    live = {t.tid for t in all_targets}
    live_blobs = {db.rel(t.blob) for t in all_targets if t.blob}
    doomed = [tid for tid in db.targets if tid not in live]
    paths = [db.abs(row[0]) for tid in doomed for row in db.targets[tid]["outputs"].values()]
    paths += [db.abs(p) for p in db.blobs if p not in live_blobs]
    for path in paths:
        if os.path.normpath(path).startswith(out + os.sep) and confine.unlink(out, path):
            report.removed.append(path)
    for tid in doomed:
        db.drop(tid)
    for p in [p for p in db.blobs if p not in live_blobs]:
        del db.blobs[p]
        db.dirty = True


def _confine_outputs(out: str, targets: list[Target]) -> None:
    """Create the output directories, refusing any symbolic link below the output root (before a
    single file is written)."""
    seen: set[str] = set()
    for t in targets:
        for path in [*t.outputs.values(), *([t.blob] if t.blob else [])]:
            d = os.path.dirname(path)
            if d not in seen:
                seen.add(d)
                confine.ensure_dirs(out, path)


def _remove_stale_temps(directories: set[str]) -> None:
    """Temp files left by a killed build (we hold the lock: no other build is writing)."""
    for d in directories:
        try:
            entries = list(os.scandir(d))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith(TEMP_PREFIX):
                try:
                    os.unlink(entry.path)
                except OSError:
                    pass
