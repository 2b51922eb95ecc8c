"""The client side of remote compiles: gather a target's inputs, write its outputs.

`prepare` runs the preprocessor's dependency scan locally through a recording
reader: every file it reads is stat'ed *before* the read and hashed, which gives
(1) the contents to send with the task, (2) the build-database rows, and (3) the
content-addressed cache key, all from the same bytes.  `materialize` writes a
result (from a worker or from the cache) next to the project, atomically, and
returns the same `JobResult` the local worker would have returned.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from ...front.source_file import read_source
from ..cache import full_key, portable
from ..files import sha256_bytes, stat_sig
from ..outputs import header_symbol, write_all
from ..remote_cache import ROOT_TOKEN, CacheEntry
from ..terminal_text import sanitize, sanitize_value
from ..worker import Job, JobResult, resource_signature
from .task import TaskInput, TaskOutput, render_outputs

EXTRA_KINDS = ("disassembly", "header")


@dataclass(slots=True)
class Prepared:
    job: Job
    config: str                   # the config digest: the key's non-file part
    files: dict[str, bytes] = field(default_factory=dict)      # abs path -> bytes
    rows: dict[str, list] = field(default_factory=dict)        # abs path -> [path, mtime, size, inode, sha]
    dirs: dict[str, int] = field(default_factory=dict)         # directory -> mtime_ns
    key: str | None = None        # cache key; None when the scan failed (no caching)
    attempts: int = 0

    def kinds(self) -> tuple[str, ...]:
        return tuple(k for k in EXTRA_KINDS if k in self.job.outputs)

    def task(self) -> TaskInput:
        from ...compiler import source_display_name

        job = self.job
        return TaskInput(job.tid, job.name, job.source, job.options, self.files, job.diag_format, self.kinds(),
                         source_display_name(job.source), header_symbol(job.name))


class FileMemo:
    """Each file read (stat taken before the read) and hashed once per build: targets share includes."""

    def __init__(self) -> None:
        self.entries: dict[str, tuple[list, bytes]] = {}

    def read(self, path: str) -> tuple[list, bytes]:
        hit = self.entries.get(path)
        if hit is None:
            sig = stat_sig(path)
            data = read_source(path)    # regular files only, bounded
            if sig is None:   # vanished between stat and read: do not memoise
                return [path, 0, len(data), 0, sha256_bytes(data)], data
            hit = self.entries[path] = ([path, *sig, sha256_bytes(data)], data)
        return hit


def prepare(job: Job, config: str, root: str, scan_fn=None, extra: tuple[str, ...] | list[str] = (),
            memo: FileMemo | None = None) -> Prepared:
    """Scan and read the include closure of `job`; `config` is its config digest.

    `extra` files (those a worker asked for but was not sent) are read too, so a
    scan that missed a file cannot make the same task fail twice."""
    p = Prepared(job, config)
    p.dirs = {d: sig[0] for d in [os.path.dirname(job.source), *job.options.include_dirs]
              if (sig := stat_sig(d)) is not None}

    memo = memo or FileMemo()

    def reader(path: str) -> bytes:
        path = os.path.abspath(path)
        row, data = memo.read(path)
        p.files[path] = data
        p.rows[path] = row
        return data

    for path in extra:
        try:
            reader(path)
        except OSError:
            pass
    if scan_fn is None:
        from ...compiler import scan_dependencies as scan_fn
    try:
        scan_fn(job.source, job.options, reader=reader)
    except Exception:  # noqa: BLE001 - the worker's compile reports the error with full diagnostics
        return p
    for path in p.rows:
        d = os.path.dirname(path)
        if d not in p.dirs and (sig := stat_sig(d)) is not None:
            p.dirs[d] = sig[0]
    if job.source in p.rows:
        p.key = full_key(config, [[portable(path, root), *row[1:]] for path, row in p.rows.items()])
    return p


def stale_closure(out: TaskOutput) -> bool:
    """The worker asked for a file we did not send that exists now: the closure changed."""
    return any(os.path.isfile(path) for path in out.misses)


def _write(p: Prepared, files: dict[str, bytes]) -> dict[str, list]:
    job = p.job
    written = write_all({kind: (job.outputs[kind], data) for kind, data in files.items()})
    return {kind: [path, *sig, sha] for kind, (path, sig, sha) in written.items()}


def _deps(p: Prepared, paths) -> list[list] | None:
    rows = []
    for path in sorted({os.path.abspath(x) for x in paths} | {p.job.source}):
        row = p.rows.get(path)
        if row is None:
            return None
        rows.append(list(row))
    return rows


def materialize(p: Prepared, out: TaskOutput) -> JobResult:
    """Write a worker's result; failures come back as they were rendered remotely."""
    job = p.job
    if not out.ok:
        return JobResult(job.tid, False, sanitize(out.messages), sanitize_value(out.diagnostics), seconds=out.seconds)
    deps = _deps(p, out.dependencies)
    if deps is None:
        missing = sorted(set(out.dependencies) - set(p.rows))
        msg = f"{job.source}: error: the compiler of {job.name} read files that were not sent: {', '.join(missing)}"
        return JobResult(job.tid, False, msg, [{"severity": "error", "message": msg}], seconds=out.seconds)
    outputs = _write(p, out.files)
    return JobResult(job.tid, True, sanitize(out.messages), sanitize_value(out.diagnostics), deps, outputs,
                     resource_signature(out.manifest), [[d, m] for d, m in sorted(p.dirs.items())], out.seconds)


def entry_from(p: Prepared, out: TaskOutput, root: str) -> CacheEntry | None:
    """A cache entry for a successful result whose reads are all covered by the key."""
    if p.key is None or not out.ok or "binary" not in out.files:
        return None
    deps = _deps(p, out.dependencies)
    if deps is None:
        return None
    files: dict[str, bytes] = {k: out.files[k] for k in ("binary", "disassembly") if k in out.files}
    return CacheEntry(p.key, files, out.manifest or {}, out.messages.replace(root, ROOT_TOKEN),
                      _rooted(out.diagnostics, root, ROOT_TOKEN), resource_signature(out.manifest),
                      [portable(r[0], root) for r in deps])


def _rooted(diags: list[dict], old: str, new: str) -> list[dict]:
    return json.loads(json.dumps(diags).replace(json.dumps(old)[1:-1], json.dumps(new)[1:-1])) if diags else []


def from_cache(p: Prepared, entry: CacheEntry, root: str) -> JobResult | None:
    """Write a cached result; None when the entry cannot serve this job (e.g. no disassembly)."""
    job = p.job
    if "disassembly" in job.outputs and "disassembly" not in entry.files:
        return None
    paths = [os.path.normpath(os.path.join(root, d)) for d in entry.deps]
    deps = _deps(p, paths)
    if deps is None:
        return None
    from ...compiler import source_display_name

    dis = entry.files["disassembly"].decode("utf-8") if "disassembly" in entry.files else None
    files = render_outputs(entry.files["binary"], entry.manifest, dis, kinds=p.kinds(),
                           source_name=source_display_name(job.source),
                           header_symbol=header_symbol(job.name), name=job.name)
    outputs = _write(p, files)
    return JobResult(job.tid, True, sanitize(entry.messages.replace(ROOT_TOKEN, root)),
                     sanitize_value(_rooted(entry.diagnostics, ROOT_TOKEN, root)), deps, outputs, entry.resources,
                     [[d, m] for d, m in sorted(p.dirs.items())], 0.0)
