"""The compile workers of `scons -j N` (N > 1): forked early, fed ahead of SCons.

Why not concurrent.futures (measured on the sample project, 74 targets, -j2):
1. its workers fork from the SCons process, so the compiler's warm-up ran there, serially, on the
   first compile; here the first worker forks as soon as a target with a missing binary is
   declared and warms up while SCons still reads the SConstruct, then forks the others;
2. SCons gives a -j N pool at most N jobs at once and spends ~1-2 ms of its own bookkeeping per
   target (plus two thread hops in the executor) between a compile's end and the next one's start:
   each worker idled ~20% of a clean build.  Here each worker holds up to DEPTH jobs, and once
   SCons runs a first compile the pool also compiles ahead the declared targets whose binary was
   missing, in declaration order (DEPTH_AHEAD queued per worker, AHEAD unclaimed results).  A result compiled
   ahead is staged under temporary names: the target's action (run after SCons decided to build it
   and removed its old outputs) renames the files into place if the job is the same and no file it
   read has changed since; otherwise it compiles again.  Unclaimed results are discarded at exit.

Each worker has its own job and result pipes (length-prefixed pickles), so a dead worker fails
only its own jobs (end of file on its result pipe), and a worker exits when SCons does (end of
file on its job pipe), even when SCons is killed.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import sys
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

DEPTH = 4            # jobs queued per worker: it has the next ones while SCons does its bookkeeping
DEPTH_AHEAD = 2      # ... of which compiled ahead: a job SCons asks for waits behind at most one
QUEUED_BYTES = 16384  # ... and only while they fit in a pipe: writing a job never waits for a worker
AHEAD = 4            # results compiled ahead and not taken yet, per worker: bounds the waste when SCons
                     # builds only some of the declared targets (`scons build/spirv`)
_HEADER = struct.Struct("<I")


def _message(obj) -> bytes:
    data = pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(data)) + data


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _write_msg(fd: int, obj) -> None:
    _write_all(fd, _message(obj))


def _read_exact(fd: int, size: int) -> bytes | None:
    chunks = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _read_msg(fd: int):
    """The next message, or None at end of file (the other side exited)."""
    head = _read_exact(fd, _HEADER.size)
    if head is None:
        return None
    body = _read_exact(fd, _HEADER.unpack(head)[0])
    return None if body is None else pickle.loads(body)


def _serve(jobs: int, results: int, run: Callable, failed: Callable[[str], Any]) -> None:
    """A worker's loop: run each job and send back (key, result) until the job pipe closes."""
    while (msg := _read_msg(jobs)) is not None:
        key, job = msg
        try:
            result = run(job)
        except Exception:  # noqa: BLE001 - a crash fails this job, not the worker
            import traceback

            result = failed(f"internal compiler error\n{traceback.format_exc()}")
        _write_msg(results, (key, result))


class Pool:
    """`workers` forked compile processes running `run(job)`; `prepare()` runs once in the first
    one before it forks the others (they inherit what it imported).  Thread-safe."""

    def __init__(self, workers: int, run: Callable, prepare: Callable[[], None], failed: Callable[[str], Any],
                 discard: Callable[[Any], None]):
        self._failed = failed            # message -> the result of a job whose worker died
        self._discard = discard          # called with each result nobody took
        self._cond = threading.Condition()
        self._pending: deque = deque()   # (key, job) requested by an action, not yet sent
        self._ahead: deque = deque()     # (key, job) to compile ahead, declaration order
        self._sent: dict[str, object] = {}     # key -> job, sent and not answered
        self._results: dict[str, tuple] = {}   # key -> (job, result), not taken yet
        self._claimed: set[str] = set()        # keys an action asked for: never compiled ahead
        self._backlog: dict[int, list[str]] = {}   # result fd -> keys sent to that worker, in order
        self._job_fd: dict[int, int] = {}          # result fd -> job fd of the same worker
        self._size: dict[str, int] = {}            # key -> bytes of its job message, while sent
        self._reading = False
        self._idle = True                # no job sent yet
        self.compiling_ahead = False
        pipes = [(os.pipe(), os.pipe()) for _ in range(workers)]
        sys.stdout.flush()
        sys.stderr.flush()
        self.pid = os.fork()
        if self.pid == 0:       # the first worker: never returns into SCons
            try:
                _first_worker(pipes, run, prepare, failed)
            finally:
                os._exit(0)
        for (job_r, job_w), (res_r, res_w) in pipes:
            os.close(job_r)
            os.close(res_w)
            self._backlog[res_r] = []
            self._job_fd[res_r] = job_w

    def ahead(self, key: str, job) -> None:
        """Declare a job to compile ahead once compiling_ahead is set (see run)."""
        with self._cond:
            self._ahead.append((key, job))

    def run(self, key: str, job, fresh: Callable[[Any], bool], ahead: bool = False):
        """The result of `job`: compiled ahead if that result is for the same job and `fresh`
        (its inputs did not change since), else compiled now.  `ahead`: from now on, compile the
        declared jobs ahead too (SCons has started building them), after this one."""
        with self._cond:
            self._claimed.add(key)
            self._poll()
            checked = False
            while True:
                got = self._results.pop(key, None)
                if got is not None:
                    done_job, result = got
                    if done_job == job and (checked or fresh(result)):
                        self.compiling_ahead = self.compiling_ahead or ahead
                        self._pump()
                        return result
                    self._discard(result)
                    checked = True       # compiled again below: that result is taken as it is
                if got is not None or key not in self._sent:
                    self._pending.appendleft((key, job))
                self.compiling_ahead = self.compiling_ahead or ahead
                self._pump()
                while key not in self._results:
                    if self._reading:
                        self._cond.wait()
                    else:
                        self._read_one()

    def _pump(self) -> None:
        """Send queued jobs to the workers with room (the least busy first); lock held.  A worker
        that holds jobs gets another only while their messages fit in its pipe (the lock is held:
        a blocked write could wait for a worker that waits for us to read its result)."""
        for fd in sorted(self._backlog, key=lambda f: len(self._backlog[f])):
            while len(self._backlog[fd]) < DEPTH:
                queued = sum(self._size[k] for k in self._backlog[fd])
                item = self._next_job(len(self._backlog[fd]) < DEPTH_AHEAD)
                if item is None:
                    break
                key, job = item
                data = _message((key, job))
                if self._backlog[fd] and queued + len(data) > QUEUED_BYTES:
                    (self._pending if key in self._claimed else self._ahead).appendleft(item)
                    break
                try:
                    _write_all(self._job_fd[fd], data)
                except OSError:          # the worker is gone (its result pipe will say so)
                    self._results[key] = (job, self._failed(f"compile worker died (pool of {self.pid})"))
                    break
                self._sent[key] = job
                self._size[key] = len(data)
                self._backlog[fd].append(key)
                self._idle = False

    def _next_job(self, ahead: bool):
        if self._pending:
            return self._pending.popleft()
        # compile ahead while SCons lets us and at most a few results wait unclaimed
        while ahead and self.compiling_ahead and self._ahead and len(self._results) < AHEAD * len(self._backlog):
            key, job = self._ahead.popleft()
            if key not in self._claimed and key not in self._sent and key not in self._results:
                return key, job
        return None

    def _read_one(self) -> None:
        """Wait for one result from any worker, without the lock (the caller holds it)."""
        self._reading = True
        self._cond.release()
        try:
            fds = list(self._backlog)
            ready = select.select(fds, [], [])[0][0] if fds else None
            msg = _read_msg(ready) if ready is not None else None
        finally:
            self._cond.acquire()
            self._reading = False
            self._cond.notify_all()
        if ready is None:                  # every worker is gone: fail what is left
            for key, job in [*self._pending, *self._sent.items()]:
                self._results[key] = (job, self._failed("no compile worker left"))
            self._pending.clear()
            self._sent.clear()
        else:
            self._receive(ready, msg)
        self._pump()

    def _poll(self) -> None:
        """Take the results that are there without waiting and refill the workers (lock held):
        when SCons is slower than the workers, its actions find their results ready and would
        otherwise never read the pipes, and the workers would run dry."""
        while not self._reading and self._backlog:
            ready = select.select(list(self._backlog), [], [], 0)[0]
            if not ready:
                break
            for fd in ready:
                self._receive(fd, _read_msg(fd))
        self._pump()

    def _receive(self, fd: int, msg) -> None:
        if msg is None:                     # this worker died: fail its jobs
            for key in self._backlog.pop(fd):
                self._size.pop(key, None)
                self._results[key] = (self._sent.pop(key), self._failed(f"compile worker died (pool of {self.pid})"))
            os.close(self._job_fd.pop(fd))
            os.close(fd)
        else:
            key, result = msg
            self._backlog[fd].remove(key)
            self._size.pop(key, None)
            self._results[key] = (self._sent.pop(key), result)

    def close(self) -> None:
        """Stop the workers and wait for them (their CPU time is then ours).  A worker finishes the
        jobs it holds first; their results, and the others nobody took, go to `discard`.  A pool
        that never got a job (SCons built none of the declared targets) is killed instead: the
        first worker may still be warming up."""
        if self._idle:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:
                pass
        with self._cond:
            for job_fd in self._job_fd.values():
                os.close(job_fd)
            self._job_fd.clear()
            fds = list(self._backlog)
            self._backlog.clear()
            leftovers = [result for _, result in self._results.values()]
            self._results.clear()
        while fds:
            for fd in select.select(fds, [], [])[0]:
                msg = _read_msg(fd)
                if msg is None:
                    fds.remove(fd)
                    os.close(fd)
                else:
                    leftovers.append(msg[1])
        for result in leftovers:
            self._discard(result)
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


def _first_worker(pipes: list, run: Callable, prepare: Callable[[], None], failed: Callable[[str], Any]) -> None:
    """Warm up, fork the other workers, serve as worker 0, then reap the others."""
    for (_, job_w), (res_r, _) in pipes:
        os.close(job_w)
        os.close(res_r)
    try:
        prepare()
    except Exception:  # noqa: BLE001 - only slower: each compile imports what it needs
        pass
    children = []
    for i in range(1, len(pipes)):
        pid = os.fork()
        if pid == 0:
            try:
                for j, ((job_r, _), (_, res_w)) in enumerate(pipes):
                    if j != i:
                        os.close(job_r)
                        os.close(res_w)
                _serve(pipes[i][0][0], pipes[i][1][1], run, failed)
            finally:
                os._exit(0)
        children.append(pid)
        os.close(pipes[i][0][0])
        os.close(pipes[i][1][1])
    _serve(pipes[0][0][0], pipes[0][1][1], run, failed)
    for pid in children:
        os.waitpid(pid, 0)
