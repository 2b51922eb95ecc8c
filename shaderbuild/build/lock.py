"""One build at a time per output directory: a kernel lock on `.shaderbuild/lock`.

The lock (see platform.py) dies with its holder, so a killed build never leaves a stale
lock, and pool workers do not inherit it.  The holder writes its pid and command line
into the file only so that a waiting build can say whom it waits for.  Record locks do
not exclude two holders in one process, so a registry of held paths does that.

When the lock file cannot be opened for writing (a read-only output directory) the lock
is taken shared on the existing file, or not at all, and `read_only` holds the error: a
build that finds everything up to date needs no write and succeeds.
"""

from __future__ import annotations

import errno
import os
import sys
import threading
from collections.abc import Callable

from . import platform

_HELD: set[str] = set()             # lock paths held by this process
_COND = threading.Condition()
_READ_ONLY = (errno.EACCES, errno.EPERM, errno.EROFS)


class LockBusy(Exception):
    """Another build holds the lock and we were told not to wait."""


class ProjectLock:
    def __init__(self, directory: str, *, wait: bool = True, on_wait: Callable[[str], None] | None = None) -> None:
        self.path = os.path.join(directory, "lock")
        self.wait = wait
        self.on_wait = on_wait
        self.read_only: OSError | None = None   # why the output directory cannot be written
        self._fd: int | None = None
        self._mine = False
        self._key = os.path.abspath(self.path)

    def _busy(self, who: str) -> str:
        out = os.path.dirname(os.path.dirname(self.path))
        return f"another shaderbuild ({who}) is building into {out}"

    def _holder(self, fd: int) -> str:
        try:
            os.lseek(fd, 0, os.SEEK_SET)
            pid, _, command = os.read(fd, 4096).decode("utf-8", "replace").partition("\n")
            pid_n = int(pid)
        except (OSError, ValueError):
            return "another process"
        who = f"pid {pid_n}" + (f": {command.strip()}" if command.strip() else "")
        if not platform.pid_alive(pid_n):
            who += ", which has exited: the lock is held by a process it left running or by another machine"
        return who

    def acquire(self) -> None:
        with _COND:
            if self._key in _HELD:
                msg = self._busy(f"pid {os.getpid()}")   # this process
                if not self.wait:
                    raise LockBusy(msg + "; not waiting (--no-wait)")
                if self.on_wait is not None:
                    self.on_wait(msg + "; waiting for it to finish...")
                while self._key in _HELD:
                    _COND.wait()
            _HELD.add(self._key)
            self._mine = True
        try:
            self._acquire_file()
        except BaseException:
            self._forget()
            raise

    def _open(self) -> tuple[int | None, bool]:
        """(fd, shared): write access for an exclusive lock, else a read-only fd or None."""
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            return os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644), False
        except OSError as exc:
            if exc.errno not in _READ_ONLY:
                raise
            self.read_only = OSError(exc.errno, exc.strerror, exc.filename or self.path)
        try:
            return os.open(self.path, os.O_RDONLY), True
        except OSError:
            return None, True

    def _acquire_file(self) -> None:
        while True:
            fd, shared = self._open()
            if fd is None:
                return
            if not platform.try_lock(fd, shared=shared):
                msg = self._busy(self._holder(fd))
                if not self.wait:
                    os.close(fd)
                    raise LockBusy(msg + "; not waiting (--no-wait)")
                if self.on_wait is not None:
                    self.on_wait(msg + "; waiting for it to finish...")
                platform.wait_lock(fd, shared=shared)
            if _same_file(fd, self.path):
                break
            os.close(fd)            # `clean` removed the file we waited on: lock the current one
        if not shared:
            os.ftruncate(fd, 0)
            command = " ".join([os.path.basename(sys.argv[0] or "python"), *sys.argv[1:]])[:1000]
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, f"{os.getpid()}\n{command}\n".encode("utf-8", "replace"))
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            platform.unlock(self._fd)
            os.close(self._fd)
            self._fd = None
        self._forget()

    def _forget(self) -> None:
        if not self._mine:
            return
        self._mine = False
        with _COND:
            _HELD.discard(self._key)
            _COND.notify_all()

    def __enter__(self) -> ProjectLock:
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def _same_file(fd: int, path: str) -> bool:
    try:
        a, b = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)
