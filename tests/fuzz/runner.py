"""Run fuzz inputs in a pool of subprocess workers with a per-input timeout.

Each worker (worker.py) handles one input at a time.  A worker that dies is a `crash` for its
input, one that exceeds the timeout is killed and the input is a `hang`; either way a fresh
worker takes its place and the campaign goes on.
"""

from __future__ import annotations

import os
import pickle
import selectors
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from . import REPO_DIR, TESTS_DIR
from .outcome import CRASH, HANG, Outcome
from .worker import HDR

TARGETS = ("spirv", "dxil")
DEFAULT_TIMEOUT = 20.0
STARTUP_TIMEOUT = 120.0
MAX_STARTUP_FAILURES = 20
_BOOT = f"import sys; sys.path.insert(0, {str(TESTS_DIR)!r}); from fuzz.worker import main; main()"


@dataclass
class FuzzInput:
    """One source to compile: `origin` says how it was made (for the report and reproducers)."""

    name: str
    data: bytes
    origin: str
    targets: tuple[str, ...] = TARGETS
    validate: bool = True
    options: dict = field(default_factory=dict)


class _Worker:
    def __init__(self) -> None:
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([sys.executable, "-c", _BOOT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.stderr, cwd=str(REPO_DIR))
        self.buf = bytearray()
        self.job: FuzzInput | None = None
        self.deadline = time.monotonic() + STARTUP_TIMEOUT
        self.ready = False
        self.served = 0
        os.set_blocking(self.proc.stdout.fileno(), False)

    def send(self, job: FuzzInput, timeout: float) -> None:
        req = {"data": job.data, "name": job.name, "targets": job.targets, "validate": job.validate,
               "options": job.options}
        blob = pickle.dumps(req, protocol=pickle.HIGHEST_PROTOCOL)
        self.job, self.deadline = job, time.monotonic() + timeout
        self.proc.stdin.write(HDR.pack(len(blob)) + blob)
        self.proc.stdin.flush()

    def pump(self) -> tuple[bool, list]:
        """Read what is available: (eof, complete frames decoded, in order)."""
        eof = False
        try:
            chunk = os.read(self.proc.stdout.fileno(), 1 << 20)
            eof = not chunk
            self.buf += chunk
        except BlockingIOError:
            pass
        frames = []
        while len(self.buf) >= HDR.size:
            (n,) = HDR.unpack_from(self.buf)
            if len(self.buf) < HDR.size + n:
                break
            frame = bytes(self.buf[HDR.size:HDR.size + n])
            del self.buf[:HDR.size + n]
            frames.append(pickle.loads(frame) if n else "ready")
        return eof, frames

    def stderr_tail(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read()[-1500:].decode(errors="replace")

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        self.stderr.close()


class Pool:
    """`jobs` workers; `run(inputs)` yields (input, [Outcome per target]) in completion order."""

    def __init__(self, jobs: int = 2, timeout: float = DEFAULT_TIMEOUT, recycle: int = 0) -> None:
        """recycle > 0: replace each worker after that many inputs (bounds leaked state and memory,
        and picks up compiler changes during a long campaign)."""
        self.jobs, self.timeout, self.recycle = max(1, jobs), timeout, recycle
        self.workers: list[_Worker] = []
        self.restarts = 0
        self.retried: list[str] = []   # origins of inputs that timed out once and were retried
        self.startup_failures = 0      # workers that never became ready (e.g. a broken compiler tree)

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for w in self.workers:
            w.kill()
        self.workers.clear()

    def _failed(self, w: _Worker, cls: str, detail: str) -> tuple[FuzzInput, list[Outcome]]:
        job = w.job
        assert job is not None
        outs = [Outcome(t, cls, detail) for t in job.targets]
        self.workers.remove(w)
        w.kill()
        self.restarts += 1
        return job, outs

    def _startup_failed(self, w: _Worker) -> None:
        """A worker died or stalled before taking input: replace it, give up after a few in a row."""
        tail = w.stderr_tail()
        self.workers.remove(w)
        w.kill()
        self.startup_failures += 1
        print(f"fuzz: worker failed to start ({self.startup_failures}):\n{tail}", file=sys.stderr, flush=True)
        if self.startup_failures >= MAX_STARTUP_FAILURES:
            raise RuntimeError(f"{self.startup_failures} fuzz workers failed to start; last stderr:\n{tail}")

    def run(self, inputs: Iterable[FuzzInput]) -> Iterator[tuple[FuzzInput, list[Outcome]]]:
        source = iter(inputs)
        retry: list[FuzzInput] = []
        exhausted = False
        sel = selectors.DefaultSelector()
        try:
            while True:
                while (not exhausted or retry) and len(self.workers) < self.jobs:
                    w = _Worker()
                    self.workers.append(w)
                    sel.register(w.proc.stdout, selectors.EVENT_READ, w)
                idle = [w for w in self.workers if w.ready and w.job is None]
                for w in idle:
                    job = retry.pop() if retry else None if exhausted else next(source, None)
                    if job is None:
                        exhausted = True
                        break
                    w.send(job, self.timeout * (3 if job.origin in self.retried else 1))
                busy = [w for w in self.workers if w.job is not None or not w.ready]
                if exhausted and not retry and not any(w.job is not None for w in self.workers):
                    return
                if not busy:
                    continue
                wait = max(0.0, min(w.deadline for w in busy) - time.monotonic())
                for key, _ev in sel.select(timeout=wait):
                    w = key.data
                    eof, frames = w.pump()
                    for msg in frames:
                        if msg == "ready":
                            w.ready = True
                        else:
                            job, w.job = w.job, None
                            w.served += 1
                            self.startup_failures = 0
                            yield job, msg
                    if self.recycle and w.served >= self.recycle and w.job is None and not eof:
                        sel.unregister(w.proc.stdout)
                        self.workers.remove(w)
                        w.kill()
                        continue
                    if eof:
                        sel.unregister(w.proc.stdout)
                        if w.job is None:
                            self._startup_failed(w)
                            continue
                        yield self._failed(w, CRASH, f"worker died (exit {w.proc.wait()}): {w.stderr_tail()}")
                now = time.monotonic()
                for w in list(self.workers):
                    if w in self.workers and now > w.deadline and (w.job is not None or not w.ready):
                        sel.unregister(w.proc.stdout)
                        if w.job is None:
                            self._startup_failed(w)
                            continue
                        if w.job.origin not in self.retried:  # a load spike is not a hang: retry once, longer
                            self.retried.append(w.job.origin)
                            retry.append(w.job)
                            self.workers.remove(w)
                            w.kill()
                            continue
                        yield self._failed(w, HANG, f"no answer within {self.timeout:g} s, nor {3 * self.timeout:g} s "
                                                    "on a retry in a fresh worker")
        finally:
            sel.close()


def run_inputs(inputs: Iterable[FuzzInput], jobs: int = 2,
               timeout: float = DEFAULT_TIMEOUT) -> list[tuple[FuzzInput, list[Outcome]]]:
    """Convenience for tests: run everything, return all results."""
    with Pool(jobs, timeout) as pool:
        return list(pool.run(inputs))
