"""Build progress: one rewritten status line on a terminal, plain lines otherwise."""

from __future__ import annotations

import sys
from typing import TextIO


class Progress:
    def __init__(self, total: int, stream: TextIO | None = None, *, tty: bool | None = None,
                 quiet: bool = False) -> None:
        self.stream = stream or sys.stderr
        # -q: no status line on a terminal either, only failures (and the diagnostics)
        self.tty = False if quiet else (self.stream.isatty() if tty is None else tty)
        self.total = total
        self.done = 0
        self.failed = 0
        self.quiet = quiet
        self._width = len(str(total))
        self._status_shown = False

    def _clear(self) -> None:
        if self._status_shown:
            self.stream.write("\r\x1b[K")
            self._status_shown = False

    def message(self, text: str) -> None:
        """Print a message (diagnostics) above the status line."""
        self._clear()
        self.stream.write(text.rstrip("\n") + "\n")
        self.stream.flush()

    def started(self, name: str) -> None:
        """On a terminal, show the target being compiled (serial builds know it exactly)."""
        if self.tty:
            fails = f" {self.failed} failed |" if self.failed else ""
            self._clear()
            self.stream.write(f"[{self.done:>{self._width}}/{self.total}]{fails} building {name}"[:200])
            self._status_shown = True
            self.stream.flush()

    def finished(self, name: str, ok: bool, seconds: float = 0.0) -> None:
        self.done += 1
        self.failed += not ok
        counter = f"[{self.done:>{self._width}}/{self.total}]"
        if self.tty:
            fails = f" {self.failed} failed |" if self.failed else ""
            self._clear()
            self.stream.write(f"{counter}{fails} {name}"[:200])
            self._status_shown = True
        elif not self.quiet or not ok:
            self.stream.write(f"{counter} {'FAILED' if not ok else 'built '} {name} ({seconds * 1000:.0f} ms)\n")
        self.stream.flush()

    def close(self) -> None:
        self._clear()
        self.stream.flush()
