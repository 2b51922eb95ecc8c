"""Operating-system specifics of the build engine, in one place: file locks and child-process death.

POSIX: the project lock is an `fcntl` record lock (`lockf`).  The kernel drops it when its
holder dies, and, unlike `flock`, a forked pool worker does not inherit it, so a killed build
never leaves a lock behind held by its orphans.  Workers die with their parent: Linux asks the
kernel for SIGKILL on parent death (`prctl(PR_SET_PDEATHSIG)`); elsewhere a worker thread reads
a pipe whose write end only the parent keeps open and exits on EOF.

Windows: `msvcrt.locking` on one byte of the lock file (released when the handle closes, also
by process death) and a job object with KILL_ON_JOB_CLOSE holding the build and its workers.
CI exercises only the POSIX side.
"""

from __future__ import annotations

import errno
import os
import sys
import threading

WINDOWS = sys.platform == "win32"
LINUX = sys.platform.startswith("linux")
_LOCK_OFFSET = 1 << 20      # Windows: the locked byte lies past the holder text, so others can read it


# --- file locks -------------------------------------------------------------------------------


def try_lock(fd: int, *, shared: bool = False) -> bool:
    """Lock the open file `fd` without blocking; False when another process holds it."""
    try:
        _lock(fd, shared=shared, wait=False)
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EAGAIN, errno.EDEADLK):
            return False
        raise
    return True


def wait_lock(fd: int, *, shared: bool = False) -> None:
    """Block until `fd` is locked."""
    _lock(fd, shared=shared, wait=True)


def unlock(fd: int) -> None:
    if sys.platform == "win32":     # = WINDOWS, spelled so that type checkers know the platform
        import msvcrt

        os.lseek(fd, _LOCK_OFFSET, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
    else:
        import fcntl

        fcntl.lockf(fd, fcntl.LOCK_UN)


def _lock(fd: int, *, shared: bool, wait: bool) -> None:
    if sys.platform == "win32":     # = WINDOWS, spelled so that type checkers know the platform
        import msvcrt
        import time

        # msvcrt has no shared locks and its blocking mode gives up after 10 s: poll instead.
        while True:
            os.lseek(fd, _LOCK_OFFSET, os.SEEK_SET)
            try:
                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
                return
            except OSError as exc:
                if not wait:
                    raise OSError(errno.EACCES, "locked") from exc
            time.sleep(0.1)
    import fcntl

    op = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
    fcntl.lockf(fd, op if wait else op | fcntl.LOCK_NB)


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists (for the stale-lock message only)."""
    if pid <= 0:
        return False
    if sys.platform == "win32":     # = WINDOWS, spelled so that type checkers know the platform
        import ctypes

        handle = ctypes.windll.kernel32.OpenProcess(0x1000, False, pid)   # PROCESS_QUERY_LIMITED_INFORMATION
        if handle:
            ctypes.windll.kernel32.CloseHandle(handle)
        return bool(handle)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# --- workers die with their parent ------------------------------------------------------------


class ParentWatch:
    """Made in the parent before it starts workers; `initargs` go to `die_with_parent` in each worker.

    Linux needs nothing but the parent's pid; other POSIX systems get a pipe whose write end
    stays in the parent only; Windows puts this process (and so every child it starts later)
    in a job object that the kernel kills when the last handle, ours, closes.
    """

    def __init__(self) -> None:
        self.parent = os.getpid()
        self.read_fd = -1
        self._write_fd = -1
        if WINDOWS:
            _join_kill_on_close_job()
        elif not LINUX and _forks():
            self.read_fd, self._write_fd = os.pipe()

    @property
    def initargs(self) -> tuple[int, int, int]:
        return (self.parent, self.read_fd, self._write_fd)

    def close(self) -> None:
        for fd in (self.read_fd, self._write_fd):
            if fd >= 0:
                os.close(fd)
        self.read_fd = self._write_fd = -1


def _forks() -> bool:
    """Workers are forked (they inherit our pipe); spawned workers only watch their parent id."""
    import multiprocessing

    return multiprocessing.get_start_method(allow_none=False) == "fork"


def die_with_parent(parent: int, read_fd: int = -1, write_fd: int = -1) -> None:
    """In a worker: make sure this process ends when `parent` does (SIGKILL, or exit on pipe EOF)."""
    if WINDOWS:
        return      # the job object does it
    if read_fd < 0 and _pdeathsig():
        if os.getppid() != parent:      # the parent died before prctl: nobody will signal us
            os._exit(1)
        return
    if os.getppid() != parent:
        os._exit(1)
    watch_pipe(read_fd, write_fd, parent)


def watch_pipe(read_fd: int, write_fd: int = -1, parent: int | None = None) -> None:
    """Exit this process when every write end of the pipe is closed (the parent died), or, when
    the pipe was not inherited (a spawned worker), when this process is reparented.

    A forked worker inherits the parent's write end too: close it, or EOF never comes."""
    import select

    if write_fd >= 0:
        try:
            os.close(write_fd)
        except OSError:
            pass
    parent = os.getppid() if parent is None else parent

    def wait() -> None:
        fd = read_fd
        while os.getppid() == parent:
            try:
                if fd >= 0 and select.select([fd], [], [], 1.0)[0] and not os.read(fd, 1):
                    break
            except OSError:
                fd = -1      # not ours (spawned, not forked): poll the parent id only
            if fd < 0:
                threading.Event().wait(1.0)
        os._exit(1)

    threading.Thread(target=wait, name="shaderbuild-parent-watch", daemon=True).start()


def _pdeathsig() -> bool:
    """prctl(PR_SET_PDEATHSIG, SIGKILL) through ctypes; False when unavailable."""
    if not LINUX:
        return False
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(1, int(signal.SIGKILL), 0, 0, 0) == 0   # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return False


_JOB = None


def _join_kill_on_close_job() -> None:
    """Windows: put this process in a job object that kills every member when it closes."""
    global _JOB
    if _JOB is not None:
        return
    if sys.platform != "win32":     # called only there; spelled so that type checkers know the platform
        return
    import ctypes
    from ctypes import wintypes

    class IoCounters(ctypes.Structure):
        _fields_ = [(n, ctypes.c_ulonglong) for n in ("r", "w", "o", "rb", "wb", "ob")]

    class BasicLimits(ctypes.Structure):
        _fields_ = [("PerProcessUserTimeLimit", ctypes.c_int64), ("PerJobUserTimeLimit", ctypes.c_int64),
                    ("LimitFlags", wintypes.DWORD), ("MinimumWorkingSetSize", ctypes.c_size_t),
                    ("MaximumWorkingSetSize", ctypes.c_size_t), ("ActiveProcessLimit", wintypes.DWORD),
                    ("Affinity", ctypes.c_size_t), ("PriorityClass", wintypes.DWORD),
                    ("SchedulingClass", wintypes.DWORD)]

    class ExtendedLimits(ctypes.Structure):
        _fields_ = [("BasicLimitInformation", BasicLimits), ("IoInfo", IoCounters),
                    ("ProcessMemoryLimit", ctypes.c_size_t), ("JobMemoryLimit", ctypes.c_size_t),
                    ("PeakProcessMemoryUsed", ctypes.c_size_t), ("PeakJobMemoryUsed", ctypes.c_size_t)]

    kernel32 = ctypes.windll.kernel32
    job = kernel32.CreateJobObjectW(None, None)
    if not job:
        return
    info = ExtendedLimits()
    info.BasicLimitInformation.LimitFlags = 0x2000 | 0x800   # KILL_ON_JOB_CLOSE | BREAKAWAY_OK
    if kernel32.SetInformationJobObject(job, 9, ctypes.byref(info), ctypes.sizeof(info)) and \
            kernel32.AssignProcessToJobObject(job, kernel32.GetCurrentProcess()):
        _JOB = job      # kept open for the life of this process; closing it would kill us
    else:
        kernel32.CloseHandle(job)
