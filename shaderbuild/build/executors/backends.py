"""Where compile tasks run: in this process, a local process pool, or a Dask cluster.

A backend only submits `compile_batch([TaskInput, ...])` and returns a future with
`add_done_callback`, `result`, `done` and `cancel` (concurrent.futures and
distributed futures both have them); the runner does everything else.
"""

from __future__ import annotations

import logging
import os
import uuid
from concurrent.futures import Future
from typing import Protocol

from .task import TaskInput, compile_batch

DEFAULT_RETRIES = 2
CONNECT_TIMEOUT = 10     # seconds to reach a scheduler before its targets fail


class Backend(Protocol):
    name: str

    def submit(self, inputs: list[TaskInput]): ...

    def slots(self) -> int: ...

    def cancel(self, futures: list) -> None: ...

    def close(self) -> None: ...


class InlineBackend:
    """Compiles in the calling process (one worker, tests, debugging)."""

    name = "inline"

    def slots(self) -> int:
        return 1

    def submit(self, inputs: list[TaskInput]) -> Future:
        fut: Future = Future()
        fut.set_result(compile_batch(inputs))
        return fut

    def cancel(self, futures: list) -> None:
        pass

    def close(self) -> None:
        pass


class PoolBackend:
    """A local process pool (the `local` executor when a shared cache is configured)."""

    name = "local"

    def __init__(self, workers: int) -> None:
        from concurrent.futures import ProcessPoolExecutor

        from ..platform import ParentWatch
        from ..worker import start_worker

        self.workers = workers
        self.watch = ParentWatch()     # workers die with the build process
        self.pool = ProcessPoolExecutor(max_workers=workers, initializer=start_worker,
                                        initargs=(self.watch.initargs,))

    def slots(self) -> int:
        return self.workers

    def submit(self, inputs: list[TaskInput]) -> Future:
        return self.pool.submit(compile_batch, inputs)

    def cancel(self, futures: list) -> None:
        for f in futures:
            f.cancel()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)
        self.watch.close()


def _import_distributed():
    """`distributed` reads `importlib.metadata` as an attribute of `importlib`; the plugin
    host's lazy loader (shaderbuild/plugin/lazy.py) registers the module in sys.modules
    without setting that attribute, so set it before importing Dask."""
    import importlib
    import sys

    lazy = sys.modules.get("importlib.metadata")
    if lazy is not None and "metadata" not in vars(importlib):
        importlib.metadata = lazy
    import distributed

    return distributed


class DaskBackend:
    """A Dask `distributed` cluster: the scheduler at `address`, or a LocalCluster of
    `workers` single-threaded worker processes when no address is given.

    Tasks are submitted with `retries=`: a task whose worker raised is run again
    elsewhere; a task whose worker *died* is rescheduled by the Dask scheduler itself
    (up to its `distributed.scheduler.allowed-failures`).
    """

    name = "dask"

    def __init__(self, address: str | None = None, *, workers: int | None = None, retries: int = DEFAULT_RETRIES,
                 client=None) -> None:
        self.retries = retries
        self.cluster = None
        self.owns_client = client is None
        self._client = client
        self._address, self._workers = address, workers

    @property
    def client(self):
        """Connected (or the LocalCluster started) on first use: a build with nothing to
        compile never pays for it."""
        if self._client is None:
            distributed = _import_distributed()
            if self._address:
                self._client = distributed.Client(self._address, timeout=CONNECT_TIMEOUT)
            else:
                self.cluster = distributed.LocalCluster(
                    n_workers=self._workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                    dashboard_address=None, silence_logs=logging.ERROR)
                self._client = distributed.Client(self.cluster)
        return self._client

    @property
    def address(self) -> str:
        if self._client is not None:
            return self._client.scheduler.address
        return self._address or "a LocalCluster (not started: nothing to compile)"

    def slots(self) -> int:
        return sum(self.client.nthreads().values()) or 1

    def submit(self, inputs: list[TaskInput]):
        return self.client.submit(compile_batch, inputs, key=f"shaderbuild-{inputs[0].tid}-{uuid.uuid4().hex[:12]}",
                                  pure=False, retries=self.retries)

    def cancel(self, futures: list) -> None:
        if futures:
            self.client.cancel(futures, force=True)

    def close(self) -> None:
        if self.owns_client and self._client is not None:
            self._client.close()
        if self.cluster is not None:
            self.cluster.close()
