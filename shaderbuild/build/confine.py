"""Keeping writes and deletions inside the output directory: no symlink below its root.

`out/shaders -> /elsewhere` would make a build write to /elsewhere, and `clean` or pruning
delete files there.  Every directory between the output root and a file is therefore opened
one component at a time without following links (POSIX: `O_NOFOLLOW | O_DIRECTORY` relative to
the parent's descriptor, so a link swapped in between two checks is refused too); a link
anywhere below the root is an `OutsideOutputDir` error naming it.  The root itself may be a
link (a build directory on another disk): it is resolved once.  The last component needs no
check: outputs are replaced by rename and removed by unlink, and both act on a link itself.

Windows has no `dir_fd`: there each component is checked with `lstat` (links and junctions).
"""

from __future__ import annotations

import errno
import os
import stat
import sys

_POSIX = sys.platform != "win32" and os.open in os.supports_dir_fd and hasattr(os, "O_NOFOLLOW")


class OutsideOutputDir(OSError):
    """A path that is not inside the output directory, or reaches it through a symbolic link."""


def _parts(root: str, path: str) -> list[str]:
    """Directory components of `path` below `root` (lexically); raises when `path` is not below it."""
    root, path = os.path.normpath(os.path.abspath(root)), os.path.normpath(os.path.abspath(path))
    rel = os.path.relpath(path, root)
    if rel == os.curdir or rel == os.pardir or rel.startswith(os.pardir + os.sep) or os.path.isabs(rel):
        raise OutsideOutputDir(errno.EPERM, f"is outside the output directory {root}", path)
    return rel.split(os.sep)[:-1]


def _refuse(root: str, parts: list[str], i: int, path: str) -> OutsideOutputDir:
    link = os.path.join(root, *parts[:i + 1])
    try:
        where = f" -> {os.readlink(link)}"
    except OSError:
        where = ""
    return OutsideOutputDir(errno.ELOOP, f"goes through the symbolic link {link}{where} inside the output "
                                         f"directory; refusing to write or delete outside {root}", path)


def _walk_posix(root: str, parts: list[str], path: str, create: bool) -> int | None:
    """A descriptor of the file's directory (caller closes), or None when a directory is missing."""
    if create:
        os.makedirs(root, exist_ok=True)     # the root itself may be (or go through) a link
    try:
        fd = os.open(os.path.realpath(root), os.O_RDONLY | os.O_DIRECTORY)
    except FileNotFoundError:
        return None
    try:
        for i, name in enumerate(parts):
            try:
                nxt = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    os.close(fd)
                    return None
                try:
                    os.mkdir(name, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass
                nxt = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK) and \
                        stat.S_ISLNK(os.lstat(name, dir_fd=fd).st_mode):
                    raise _refuse(root, parts, i, path) from None
                raise
            os.close(fd)
            fd = nxt
        return fd
    except BaseException:
        os.close(fd)
        raise


def _walk_lstat(root: str, parts: list[str], path: str, create: bool) -> bool:
    """Windows: the same check with lstat (no descriptors for directories there)."""
    if create:
        os.makedirs(root, exist_ok=True)
    current = os.path.realpath(root)
    for i, name in enumerate(parts):
        current = os.path.join(current, name)
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            if not create:
                return False
            os.makedirs(os.path.join(current, *parts[i + 1:]), exist_ok=True)
            return True
        if stat.S_ISLNK(st.st_mode) or bool(getattr(st, "st_reparse_tag", None)):
            raise _refuse(root, parts, i, path)
    return True


def ensure_dirs(root: str, path: str) -> None:
    """Create the directories of `path` below `root`; OutsideOutputDir if any of them is a link."""
    _walk(root, path, True)


def check(root: str, path: str) -> None:
    """OutsideOutputDir when `path` is outside `root` or an existing directory on the way is a link."""
    _walk(root, path, False)


def _walk(root: str, path: str, create: bool) -> None:
    parts = _parts(root, path)
    if _POSIX:
        fd = _walk_posix(root, parts, path, create)
        if fd is not None:
            os.close(fd)
    else:
        _walk_lstat(root, parts, path, create)


def unlink(root: str, path: str) -> bool:
    """Remove the file `path` (a link itself, never its target); False when it does not exist."""
    parts = _parts(root, path)
    if not _POSIX:
        if not _walk_lstat(root, parts, path, False):
            return False
        try:
            os.unlink(path)
        except FileNotFoundError:
            return False
        return True
    fd = _walk_posix(root, parts, path, False)
    if fd is None:
        return False
    try:
        os.unlink(os.path.basename(path), dir_fd=fd)
        return True
    except FileNotFoundError:
        return False
    finally:
        os.close(fd)
