"""`RemoteExecutor`: the scheduler's stale targets through the shared cache and a backend.

Per target, in planning order: scan and read the include closure locally, look the
key up in the shared cache (a hit writes the outputs at once), otherwise submit a
compile task.  Results are written locally as they arrive and go through the
scheduler's `handle`, so progress, the build database, --keep-going and failure
reporting are the local executor's.  Ctrl-C (or any error) cancels every task still
queued on the backend.
"""

from __future__ import annotations

import queue
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from dataclasses import dataclass, field

from ..remote_cache import SharedCache
from ..report import BuildReport
from ..worker import Job, JobResult
from .backends import Backend
from .client import FileMemo, Prepared, entry_from, from_cache, materialize, prepare, stale_closure

MAX_BATCH = 32           # automatic batches: at most this many targets per task
MAX_RESCANS = 16         # resubmissions of a target whose include closure changed under the build
IO_THREADS = 4           # threads writing outputs (file creation dominates the client's time)
IO_CHUNK = 16            # cache hits written together


@dataclass(slots=True)
class ExecStats:
    cache_hits: int = 0
    compiled: int = 0
    failed_tasks: int = 0        # tasks whose worker raised or died beyond the retries
    rescans: int = 0
    corrupt: int = 0             # cache entries that failed verification (rebuilt)
    unauthenticated: int = 0     # cache entries not sealed with our key (ignored, rebuilt)
    workers: dict[str, int] = field(default_factory=dict)   # where tasks ran -> count

    def summary(self) -> str:
        text = f"{self.cache_hits} from cache, {self.compiled} compiled"
        text += f" ({self.corrupt} corrupt cache entries ignored)" if self.corrupt else ""
        return text + (f" ({self.unauthenticated} unauthenticated cache entries ignored)"
                       if self.unauthenticated else "")


class RemoteExecutor:
    """The executor seam of `scheduler.build(executor=...)`."""

    def __init__(self, backend: Backend, cache: SharedCache | None, root: str, *, scan_fn: Callable | None = None,
                 batch: int | None = None) -> None:
        self.backend, self.cache, self.root, self.scan_fn = backend, cache, root, scan_fn
        self.batch = batch   # targets per task (None: automatic)
        self._memo = FileMemo()
        self._io = ThreadPoolExecutor(IO_THREADS, thread_name_prefix="shaderbuild-write")
        self.stats = ExecStats()

    def describe(self) -> str:
        where = getattr(self.backend, "address", None)
        text = self.backend.name + (f" at {where}" if where else "")
        return text + (f"; cache: {self.cache.describe()}" if self.cache else "")

    def close(self) -> None:
        self._io.shutdown()
        self.backend.close()
        if self.cache is not None:
            self.cache.close()

    def __enter__(self) -> RemoteExecutor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def run(self, work: list[Job], handle: Callable[[JobResult], bool], *, configs: dict[str, str],
            keep_going: bool, report: BuildReport, force: bool = False) -> None:
        """Build `work`; `configs` maps target id -> config digest (the key's non-file part).
        `force` (build --force) compiles everything: the cache is not read, only written."""
        done: queue.Queue = queue.Queue()
        pending: dict = {}       # future -> [Prepared, ...] (one task compiles a batch)
        batch: list[Prepared] = []
        state: dict[str, Any] = {"stop": False, "size": 0}
        self._memo = FileMemo()

        def flush() -> None:
            if batch:
                items = batch[:]
                batch.clear()
                fut = self.backend.submit([p.task() for p in items])
                pending[fut] = items
                fut.add_done_callback(done.put)

        def submit(p: Prepared) -> None:
            if not state["size"]:   # first miss: only now ask (and maybe start) the backend
                try:
                    state["size"] = self.batch_size(len(work))
                except Exception as exc:  # noqa: BLE001 - an unreachable cluster fails the targets
                    state["size"], state["broken"] = 1, f"{type(exc).__name__}: {exc}"
            if state.get("broken"):
                msg = f"error: cannot build {p.job.name}: {self.describe()} is unavailable: {state['broken']}"
                finish(JobResult(p.job.tid, False, msg, [{"severity": "error", "message": msg}]))
                return
            batch.append(p)
            if len(batch) >= state["size"]:
                flush()

        def finish(res: JobResult) -> None:
            if not handle(res) and not keep_going:
                state["stop"] = True

        def drain(block: bool) -> None:
            while (pending or batch) and not state["stop"]:
                if block:
                    flush()
                try:
                    fut = done.get(timeout=0.2) if block else done.get_nowait()
                except queue.Empty:
                    if block:
                        continue
                    return
                items = pending.pop(fut, None)
                if items is not None:
                    self._complete(fut, items, submit, finish)

        hits: list[tuple[Prepared, object]] = []

        def flush_hits() -> None:
            results = list(self._io.map(lambda pe: from_cache(pe[0], pe[1], self.root), hits))
            for (p, _), res in zip(hits, results):
                if res is None:          # the entry cannot serve this target (e.g. no disassembly)
                    submit(p)
                else:
                    self.stats.cache_hits += 1
                    finish(res)
            hits.clear()

        try:
            for i, job in enumerate(work):
                if state["stop"]:
                    report.skipped.extend(j.name for j in work[i:])
                    break
                p = prepare(job, configs[job.tid], self.root, self.scan_fn, memo=self._memo)
                entry = self.cache.lookup(p.key) if self.cache is not None and p.key is not None and not force \
                    else None
                if entry is not None:
                    hits.append((p, entry))
                    if len(hits) >= IO_CHUNK:
                        flush_hits()
                else:
                    submit(p)
                drain(block=False)
            if not state["stop"]:
                flush_hits()
            drain(block=True)
        finally:
            if self.cache is not None:
                self.stats.corrupt = self.cache.stats.corrupt
                self.stats.unauthenticated = self.cache.stats.unauthenticated
            report.skipped.extend(p.job.name for p, _ in hits)
            leftover = list(pending)
            try:
                self.backend.cancel([f for f in leftover if not f.done()])
            except Exception:  # noqa: BLE001 - never hide the error that ended the build
                pass
            report.skipped.extend(p.job.name for fut in leftover for p in pending.pop(fut))
            report.skipped.extend(p.job.name for p in batch)

    def batch_size(self, n: int) -> int:
        """Targets per task: compiles take milliseconds and a task round trip about as long, so
        batch, but keep about four tasks per worker slot for balance (and for lost workers)."""
        if self.batch:
            return self.batch
        return max(1, min(MAX_BATCH, n // (4 * max(1, self.backend.slots()))))

    def _complete(self, fut, items: list[Prepared], submit: Callable, finish: Callable) -> None:
        try:
            outs = fut.result()
        except BaseException as exc:  # noqa: BLE001 - a lost worker fails these targets, not the build
            if isinstance(exc, KeyboardInterrupt):
                raise
            self.stats.failed_tasks += 1
            for p in items:
                msg = (f"error: {self.backend.name} worker failed while building {p.job.name}: "
                       f"{type(exc).__name__}: {exc}")
                finish(JobResult(p.job.tid, False, msg, [{"severity": "error", "message": msg}]))
            return
        ready = []
        for p, out in zip(items, outs):
            if stale_closure(out) and p.attempts < MAX_RESCANS:
                self.stats.rescans += 1
                q = prepare(p.job, p.config, self.root, self.scan_fn, [*p.files, *out.misses], memo=self._memo)
                q.attempts = p.attempts + 1
                submit(q)
            else:
                ready.append((p, out))
        # Writing is the client's main cost (a temp file + rename per output): overlap it.
        results = list(self._io.map(lambda po: materialize(*po), ready))
        for (p, out), res in zip(ready, results):
            self.stats.compiled += 1
            self.stats.workers[out.worker] = self.stats.workers.get(out.worker, 0) + 1
            if res.ok and self.cache is not None:
                entry = entry_from(p, out, self.root)
                if entry is not None:
                    self.cache.store(entry)
            finish(res)
