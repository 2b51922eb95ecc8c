"""File-system events for `shaderbuild watch`: watchdog in, debounced batches of `Change`s out.

Editors save in many ways (in place, write-temp-then-rename, rename-to-backup
then write), fire several events per save and litter the tree with swap and
temp files.  This module only *records* what happened; the watcher decides
what it means by looking at the files afterwards (an atomically saved file
simply still exists, with new content).  Handlers run on watchdog's thread and
only enqueue, so a slow build never blocks the observer.
"""

from __future__ import annotations

import errno
import os
import queue
import re
import threading
import time
from dataclasses import dataclass

# Names editors and tools create next to the real files (vim swap/backup/probe, emacs
# lock/autosave, gedit, JetBrains safe-write, LibreOffice locks, generic temp files).
_IGNORED_NAME = re.compile(
    r"""^\.\#|^\#.*\#$|~$|\.sw[a-px]$|^4913$|^\.goutputstream-|___jb_(?:tmp|old)___$|
        \.(?:tmp|temp|bak|orig|part)$|^\.~lock\.|^\.tmp-""",
    re.VERBOSE,
)
# Directories whose contents never matter (version control, caches, build state).
_IGNORED_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", ".shaderbuild", ".pytest_cache"})
# watchdog event type -> what happened to the path (None: not interesting)
_KINDS = {"created": "created", "deleted": "deleted", "modified": "modified", "closed": "modified",
          "moved": None, "opened": None, "closed_no_write": None}


@dataclass(frozen=True, slots=True)
class Change:
    kind: str          # 'created' | 'deleted' | 'modified' | 'dir-gone' (a directory deleted or moved away)
    path: str          # absolute, normalised


def is_ignored_name(path: str) -> bool:
    """Editor and tool litter, or anything inside a version-control or cache directory."""
    if _IGNORED_NAME.search(os.path.basename(path)) is not None:
        return True
    return not _IGNORED_DIRS.isdisjoint(path.split(os.sep))


class Collector:
    """A watchdog event handler (duck-typed `dispatch`) feeding a queue of Changes."""

    def __init__(self, skip_dirs: list[str]) -> None:
        # Not SimpleQueue: on CPython 3.11 its get(timeout=...) can block forever when a signal
        # handler runs during the wait and the deadline passes meanwhile (negative = no timeout).
        self.queue: queue.Queue[Change] = queue.Queue()
        self.skip = tuple(os.path.join(os.path.abspath(d), "") for d in skip_dirs)

    def set_skip_dirs(self, skip_dirs: list[str]) -> None:
        self.skip = tuple(os.path.join(os.path.abspath(d), "") for d in skip_dirs)

    def _put(self, kind: str, path) -> None:
        path = os.path.normpath(os.fsdecode(path))
        if path.startswith(self.skip) or is_ignored_name(path):
            return
        self.queue.put(Change(kind, path))

    def dispatch(self, event) -> None:
        etype = event.event_type
        if event.is_directory:
            if etype == "deleted" or etype == "moved":
                self._put("dir-gone", event.src_path)
            if etype == "moved":
                self._put("created", event.dest_path)
            return
        if etype == "moved":
            self._put("deleted", event.src_path)
            self._put("created", event.dest_path)
            return
        kind = _KINDS.get(etype)
        if kind is not None:
            self._put(kind, event.src_path)

    def next_batch(self, debounce: float, stop: threading.Event, *, max_wait: float = 1.0,
                   poll: float = 0.1) -> list[Change]:
        """Block until a change arrives (or `stop` is set), then collect until `debounce`
        seconds pass without one (at most `max_wait` seconds, so a busy tree still builds)."""
        first = None
        while first is None:
            if stop.is_set():
                return []
            try:
                first = self.queue.get(timeout=poll)
            except queue.Empty:
                continue
        batch = [first]
        deadline = time.monotonic() + max_wait
        while not stop.is_set():
            timeout = min(debounce, deadline - time.monotonic())
            if timeout <= 0:
                break
            try:
                batch.append(self.queue.get(timeout=timeout))
            except queue.Empty:
                break
        return batch


def start_observer(collector: Collector, directories: list[str], *, poll: bool, poll_interval: float,
                   on_fallback=None):
    """Start a watchdog observer on `directories` (recursive).  Returns (observer, kind).

    Falls back to polling when inotify runs out of watches or instances (ENOSPC / EMFILE).
    """
    from watchdog.observers import Observer
    from watchdog.observers.polling import PollingObserver

    def make(polling: bool):
        obs = PollingObserver(timeout=poll_interval) if polling else Observer()
        for d in directories:
            obs.schedule(collector, d, recursive=True)  # type: ignore[arg-type]  # duck-typed: watchdog only calls dispatch()
        obs.daemon = True
        obs.start()
        return obs

    if poll:
        return make(True), "polling"
    try:
        return make(False), "native"
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EMFILE):
            raise
        if on_fallback is not None:
            on_fallback(f"native file watching failed ({exc.strerror}); falling back to polling. Raise "
                        f"fs.inotify.max_user_watches / max_user_instances to avoid this")
        return make(True), "polling"


def stop_observer(observer) -> None:
    observer.stop()
    observer.join(timeout=5)
