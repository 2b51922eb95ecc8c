"""What `shaderbuild watch` tells the world: JSON lines for tools, text for people,
and the --on-success hook.

With ``--events=json`` stdout carries exactly one JSON object per line (never
anything else), so an engine or editor can hot-reload from it; human-readable
diagnostics still go to stderr.  Event kinds:

    ready    {"event","directory","targets","observer"}      after the first build, once watching
    target   {"event","target","status","source","backend","outputs","diagnostics","reasons"}
             status: built | failed | removed | up-to-date (a failed target whose source
             was reverted to the last good version: its outputs are current again)
    cycle    {"event","trigger","built","failed","removed","seconds","ok"}   after each rebuild
    error    {"event","message","file","line"}               project file problems
    hook     {"event","command","returncode"}                after --on-success ran
    stopped  {"event","signal"}                              on exit
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import TextIO


class EventSink:
    def __init__(self, mode: str = "text", *, out: TextIO | None = None, err: TextIO | None = None,
                 quiet: bool = False) -> None:
        self.mode = mode
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.quiet = quiet

    # -- low level ----------------------------------------------------------------------

    def _json(self, obj: dict) -> None:
        self.out.write(json.dumps(obj, sort_keys=True) + "\n")
        self.out.flush()

    def _text(self, line: str) -> None:
        self.err.write(line.rstrip("\n") + "\n")
        self.err.flush()

    def diagnostics_text(self, text: str) -> None:
        """Rendered compiler diagnostics: always for people, so always on stderr."""
        if text:
            self._text(text)

    # -- events -------------------------------------------------------------------------

    def ready(self, directory: str, targets: int, observer: str) -> None:
        if self.mode == "json":
            self._json({"event": "ready", "directory": directory, "targets": targets, "observer": observer})
        else:
            self._text(f"shaderbuild: watching {directory} ({targets} targets, {observer} observer); "
                       f"Ctrl-C to stop")

    def target(self, name: str, status: str, *, source: str = "", backend: str = "", outputs: dict | None = None,
               diagnostics: list | None = None, reasons: list | None = None, seconds: float = 0.0) -> None:
        if self.mode == "json":
            self._json({"event": "target", "target": name, "status": status, "source": source,
                        "backend": backend, "outputs": outputs or {}, "diagnostics": diagnostics or [],
                        "reasons": reasons or []})
        elif status == "failed" or not self.quiet:
            self._text(f"  {status:>7} {name}" + (f" ({seconds * 1000:.0f} ms)" if seconds else ""))

    def cycle(self, trigger: list[str], built: list[str], failed: list[str], removed: list[str],
              seconds: float) -> None:
        if self.mode == "json":
            self._json({"event": "cycle", "trigger": trigger, "built": built, "failed": failed,
                        "removed": removed, "seconds": round(seconds, 6), "ok": not failed})
        elif built or failed or removed or not self.quiet:
            status = "FAILED" if failed else "ok"
            self._text(f"shaderbuild: {status}: {len(built)} built, {len(failed)} failed, {len(removed)} removed "
                       f"in {seconds * 1000:.0f} ms")

    def error(self, message: str, file: str | None = None, line: int | None = None) -> None:
        if self.mode == "json":
            self._json({"event": "error", "message": message, "file": file, "line": line})
        where = f"{file}:{line}: " if file and line else (f"{file}: " if file else "")
        self._text(f"{where}error: {message}")

    def note(self, message: str) -> None:
        self._text(f"shaderbuild: {message}")

    def hook(self, command: str, returncode: int) -> None:
        if self.mode == "json":
            self._json({"event": "hook", "command": command, "returncode": returncode})
        elif returncode:
            self._text(f"shaderbuild: --on-success command exited with status {returncode}")

    def stopped(self, signal_name: str | None) -> None:
        if self.mode == "json":
            self._json({"event": "stopped", "signal": signal_name})
        else:
            self._text("shaderbuild: stopped watching")


def run_hook(command: str, built: list[str], binaries: list[str], err: TextIO) -> int:
    """Run the user's --on-success command through the shell (it is the user's own command line).

    Its stdout goes to our stderr so that a JSON event stream on stdout stays clean;
    SHADERBUILD_BUILT / SHADERBUILD_OUTPUTS list the rebuilt targets and binaries, one per line.
    """
    env = {**os.environ, "SHADERBUILD_BUILT": "\n".join(built), "SHADERBUILD_OUTPUTS": "\n".join(binaries)}
    err.flush()
    try:
        return subprocess.run(command, shell=True, env=env, stdout=err, stderr=err, check=False).returncode
    except OSError as exc:
        err.write(f"shaderbuild: cannot run --on-success command: {exc}\n")
        return 127
