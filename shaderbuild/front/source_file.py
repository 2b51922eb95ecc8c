"""Reading one source file safely: regular files only, never more than the size limit + 1 bytes.

`/dev/zero`, `/dev/urandom`, a FIFO or a directory named as a shader or an include must be a
clear error at once, not a read that grows until memory runs out or blocks forever.  The file
is opened without blocking (a FIFO with no writer would block `open`), its type is checked on
the open descriptor (no race with a rename), and at most `limit + 1` bytes are read, so the
caller can tell "too large" without holding more than that.
"""

from __future__ import annotations

import errno
import os
import stat

DEFAULT_LIMIT = 16 * 1024 * 1024   # PPLimits.max_file_size
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
_CHUNK = 1 << 20


class NotARegularFile(OSError):
    """A device, FIFO, socket or directory where a source file was expected."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_source(path: str, limit: int = DEFAULT_LIMIT) -> bytes:
    """The file's bytes, at most `limit + 1` of them; NotARegularFile for anything but a file."""
    try:
        fd = os.open(path, _FLAGS)
    except IsADirectoryError:
        raise NotARegularFile(errno.EISDIR, "is a directory, not a file", path) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            what = _kind(mode)
            raise NotARegularFile(errno.EINVAL, f"is {what}, not a regular file" if what[0] == "a" else what, path)
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            data = os.read(fd, min(left, _CHUNK))
            if not data:
                break
            chunks.append(data)
            left -= len(data)
        return b"".join(chunks)
    finally:
        os.close(fd)
