"""One build at a time per output directory: an fcntl.flock on `.shaderbuild/lock`.

The lock is advisory and released by the kernel when the process dies, so a
killed build never leaves a stale lock.  The holder writes its pid into the file
so a waiting build can say whom it waits for.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable


class LockBusy(Exception):
    """Another build holds the lock and we were told not to wait."""


class ProjectLock:
    def __init__(self, directory: str, *, wait: bool = True, on_wait: Callable[[str], None] | None = None) -> None:
        self.path = os.path.join(directory, "lock")
        self.wait = wait
        self.on_wait = on_wait
        self._fd: int | None = None

    def _holder(self) -> str:
        try:
            with open(self.path) as f:
                pid = f.read().strip()
        except OSError:
            pid = ""
        return f"pid {pid}" if pid else "another process"

    def acquire(self) -> None:
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            msg = f"another shaderbuild ({self._holder()}) is building into {os.path.dirname(os.path.dirname(self.path))}"
            if not self.wait:
                os.close(fd)
                raise LockBusy(msg + "; not waiting (--no-wait)") from None
            if self.on_wait is not None:
                self.on_wait(msg + "; waiting for it to finish...")
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> ProjectLock:
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()
