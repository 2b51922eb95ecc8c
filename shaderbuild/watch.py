"""`shaderbuild watch [DIR]`: build, then rebuild what each file change affects.

The loop: a watchdog observer records changes (watch_events), a debounce turns
bursts into one batch, and the batch is classified:

* a **modification** (in place or an atomic save: the file still exists and is
  already known) rebuilds the targets that read it (watch_graph), nothing else;
* a **structural** change (a file created, deleted or renamed, or the project
  file edited) re-plans the project: new sources are built, vanished targets
  lose their outputs, failed targets retry (a missing include may now exist).

Builds go through the build engine (shaderbuild.build.build) in-process, so the
compiler stays warm between saves and content hashes drop no-op events.  Errors
never stop the watcher; SIGINT and SIGTERM end it cleanly.
"""

from __future__ import annotations

import io
import os
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING

from .watch_events import Change, Collector, start_observer, stop_observer
from .watch_graph import DepGraph, from_database
from .watch_output import EventSink, run_hook

if TYPE_CHECKING:
    from .build.config import Project

DEFAULT_DEBOUNCE = 0.05       # seconds of quiet before a batch is built
DEFAULT_POLL_INTERVAL = 0.5   # seconds between scans with --poll
# Beyond the suffixes of the project's globs, files that are likely #included.
INCLUDE_SUFFIXES = frozenset({".hlsl", ".hlsli", ".h", ".hlslh", ".fx", ".fxh", ".inc", ".sh"})


class Watcher:
    """One watch session; `run()` returns the exit status."""

    def __init__(self, start: str, sink: EventSink, *, output_dir: str | None = None,
                 backends: list[str] | None = None, debounce: float = DEFAULT_DEBOUNCE, poll: bool = False,
                 poll_interval: float = DEFAULT_POLL_INTERVAL, on_success: str | None = None,
                 diag_format: str = "gnu") -> None:
        self.start = start
        self.sink = sink
        self.output_override = output_dir
        self.backends = backends
        self.debounce = debounce
        self.poll = poll
        self.poll_interval = poll_interval
        self.on_success = on_success
        self.diag_format = diag_format
        self.stop = threading.Event()
        self.stop_signal: str | None = None
        self.project: Project | None = None
        self.targets: dict = {}           # name -> Target
        self.failed: set[str] = set()
        self.graph = DepGraph()
        self.suffixes: frozenset[str] = INCLUDE_SUFFIXES
        self.config_path = ""
        self.collector: Collector | None = None
        self.observer = None
        self.watched: list[str] = []

    # -- planning ---------------------------------------------------------------------------

    def _load(self) -> bool:
        """(Re)load the project and plan it; on errors report them and keep the previous plan."""
        from .build.config import ConfigFileError, load_project
        from .build.targets import plan

        try:
            project = load_project(self.config_path or self.start, output_dir=self.output_override)
            targets = plan(project, backends=self.backends)
        except ConfigFileError as exc:
            for e in exc.errors:
                self.sink.error(e.message, e.file, e.line)
            return False
        self.project = project
        self.targets = {t.name: t for t in targets}
        self.failed &= set(self.targets)
        self.graph.retain(set(self.targets))
        globs = [p for s in project.shaders for p in s.files]
        self.suffixes = INCLUDE_SUFFIXES | {os.path.splitext(g)[1] for g in globs if os.path.splitext(g)[1]}
        if self.collector is not None:
            self.collector.set_skip_dirs([project.output_dir])
        return True

    # -- building ---------------------------------------------------------------------------

    def _build(self, names: list[str] | None, trigger: list[str], removed: dict | None = None) -> None:
        """Build `names` (None: the whole project, pruning vanished targets) and report."""
        from .build.config import ConfigFileError
        from .build.scheduler import build
        from .compiler import compile_file

        start = time.perf_counter()
        captured: dict[int, object] = {}

        def compile_and_keep(path, options, **kw):
            result = compile_file(path, options, **kw)
            captured[id(options)] = result
            return result

        everything = names is None
        selected = list(self.targets.values()) if names is None else [self.targets[n] for n in names
                                                                      if n in self.targets]
        if not selected and not everything:
            return
        assert self.project is not None     # loaded before the first build
        try:
            report = build(self.project, selected, jobs=1, compile_fn=compile_and_keep, stream=io.StringIO(),
                           quiet=True, tty=False, prune=everything, diag_format=self.diag_format)
        except ConfigFileError as exc:   # the tree changed between our plan and the build's
            for e in exc.errors:
                self.sink.error(e.message, e.file, e.line)
            return
        except OSError as exc:
            self.sink.error(f"build failed: {exc}")
            return
        for w in report.warnings:
            self.sink.note(w)
        failed_messages = dict(zip(report.failed, report.messages))
        for name in [*report.built, *report.failed]:
            self._record(name, name in report.built, captured.get(id(self.targets[name].options)),
                         failed_messages.get(name, ""), report.reasons.get(name, []))
        for name in [n for n in report.up_to_date if n in self.failed]:   # reverted to the last good source
            self.failed.discard(name)
            t = self.targets[name]
            self.sink.target(name, "up-to-date", source=t.rel, backend=t.backend, outputs=dict(t.outputs))
        removed = removed or {}
        for name, t in sorted(removed.items()):
            self.sink.target(name, "removed", source=t.rel, backend=t.backend)
        for m in report.mismatches:
            self.sink.error(f"{m['variant']}: resources differ between {' and '.join(m['backends'])}: "
                            + "; ".join(m["differences"]))
        captured.clear()
        self.sink.cycle(trigger, list(report.built), list(report.failed), list(removed),
                        time.perf_counter() - start)
        if self.on_success and report.built and not report.failed:
            binaries = [self.targets[n].outputs["binary"] for n in report.built]
            self.sink.hook(self.on_success, run_hook(self.on_success, list(report.built), binaries, self.sink.err))

    def _record(self, name: str, ok: bool, result, message: str, reasons: list[str]) -> None:
        """Update the graph and the failed set from one compile, and report it."""
        from .diagnostics import render_all

        t = self.targets[name]
        diags = [d.to_json() for d in result.diagnostics] if result is not None else []
        if result is not None and result.diagnostics:
            self.sink.diagnostics_text(render_all(result.diagnostics, result.sources, self.diag_format))
        elif not ok:   # the compiler raised: the engine's message is all there is
            self.sink.diagnostics_text(message)
            diags = [{"severity": "error", "message": message or "compile failed"}]
        deps = [t.source, *(result.dependencies if result is not None else [])]
        if ok:
            self.graph.set(name, deps)
            self.failed.discard(name)
        else:   # keep what the last good build read: a fix may land in any of those files
            self.graph.add(name, deps)
            self.failed.add(name)
        self.sink.target(name, "built" if ok else "failed", source=t.rel, backend=t.backend,
                         outputs=dict(t.outputs) if ok else {}, diagnostics=diags, reasons=reasons)

    # -- classifying changes ------------------------------------------------------------------

    def _relevant(self, c: Change) -> bool:
        return (c.kind == "dir-gone" or c.path == self.config_path or self.graph.knows(c.path)
                or os.path.splitext(c.path)[1] in self.suffixes)

    def _handle(self, batch: list[Change]) -> None:
        changes = [c for c in batch if self._relevant(c)]
        if not changes:
            return
        paths = sorted({c.path for c in changes})
        structural = any(
            c.path == self.config_path or c.kind == "dir-gone"
            or (c.kind in ("created", "deleted") and not (self.graph.knows(c.path) and os.path.exists(c.path)))
            for c in changes)
        if not structural:
            self._build(sorted(self.graph.affected(paths)), paths)
            return
        before = dict(self.targets)
        if not self._load():
            return
        removed = {name: t for name, t in before.items() if name not in self.targets}
        for name in removed:
            self.graph.drop(name)
        self._watch_new_roots()
        if self.project is not None:
            self._build(None, paths, removed)

    # -- the session ------------------------------------------------------------------------

    def _on_signal(self, signum, frame) -> None:
        self.stop_signal = signal.Signals(signum).name
        self.stop.set()

    def run(self) -> int:
        from .build.config import ConfigFileError, find_project_file

        try:
            self.config_path = find_project_file(self.start)
        except ConfigFileError as exc:
            for e in exc.errors:
                self.sink.error(e.message, e.file, e.line)
            return 1
        root = os.path.dirname(self.config_path)
        previous = {}
        if threading.current_thread() is threading.main_thread():
            previous = {s: signal.signal(s, self._on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
        self.collector = Collector([])
        observer = None
        gone = threading.Event()
        threading.Thread(target=self._watch_root, args=(root, gone), name="shaderbuild-watch-root",
                         daemon=True).start()
        try:
            loaded = self._load()
            self.watched = self._watch_roots(root)
            observer, kind = start_observer(self.collector, self.watched, poll=self.poll,
                                            poll_interval=self.poll_interval, on_fallback=self.sink.note)
            self.observer = observer
            if loaded:
                self.graph = from_database(self.project, self.targets.values())
                self._build(None, [])
            self.sink.ready(root, len(self.targets), kind)
            while not self.stop.is_set():
                batch = self.collector.next_batch(self.debounce, self.stop)
                if gone.is_set():
                    self.sink.error(f"the project directory {root} was deleted; stopping")
                    break
                if not batch:
                    continue
                try:
                    self._handle(batch)
                except Exception as exc:  # noqa: BLE001 - the watcher outlives any one failed rebuild
                    self.sink.error(f"internal error while rebuilding ({type(exc).__name__}: {exc}); "
                                    f"still watching")
        finally:
            if observer is not None:
                stop_observer(observer)
            for s, handler in previous.items():
                signal.signal(s, handler)
            self.stop.set()
            self.sink.stopped(self.stop_signal)
        return 1 if gone.is_set() else 0

    def _watch_root(self, root: str, gone: threading.Event) -> None:
        """Nothing to watch once the project directory itself is gone: end the session (exit 1)."""
        while not self.stop.wait(0.5):
            if not os.path.isdir(root):
                gone.set()
                self.stop.set()
                return

    def _watch_new_roots(self) -> None:
        """Include directories outside the project added by a project-file edit get watched too."""
        if self.observer is None or self.project is None:
            return
        for d in self._watch_roots(self.project.root):
            if not any(d == w or d.startswith(w + os.sep) for w in self.watched):
                try:
                    self.observer.schedule(self.collector, d, recursive=True)
                except OSError as exc:
                    self.sink.note(f"cannot watch {d}: {exc.strerror}")
                    continue
                self.watched.append(d)

    def _watch_roots(self, root: str) -> list[str]:
        """The project directory plus include directories outside it (never nested twice)."""
        dirs = [root]
        if self.project is not None:
            for shader in self.project.shaders:
                for entry in shader.entries:
                    dirs.extend(entry.settings.include_dirs)
        out: list[str] = []
        for d in sorted({os.path.realpath(d) for d in dirs if os.path.isdir(d)}, key=len):
            if not any(d == o or d.startswith(o + os.sep) for o in out):
                out.append(d)
        return out


# -- command line ---------------------------------------------------------------------------


def add_watch_command(subparsers) -> None:
    """Register `watch` on an argparse subparsers object (handler in args.func)."""
    w = subparsers.add_parser("watch", help="build, then rebuild affected targets on every file change",
                              description="Build the project, then watch it and rebuild only what each change "
                                          "affects. Ctrl-C (or SIGTERM) stops.")
    w.add_argument("directory", nargs="?", default=".", help="project directory or project file (default: .)")
    w.add_argument("-o", "--output-dir", help="build into this directory instead of the project's output_dir")
    w.add_argument("--target", dest="backends", action="append", metavar="BACKEND",
                   help="only this backend (spirv, dxil, ...); repeatable")
    w.add_argument("--events", choices=("text", "json"), default="text",
                   help="json: one JSON object per line on stdout (for engines and editors)")
    w.add_argument("--on-success", metavar="CMD", help="shell command to run after each successful rebuild")
    w.add_argument("--poll", action="store_true", help="poll the file system (no inotify: network or WSL mounts)")
    w.add_argument("--poll-interval", type=float, default=DEFAULT_POLL_INTERVAL, metavar="SECONDS")
    w.add_argument("--debounce", type=float, default=DEFAULT_DEBOUNCE, metavar="SECONDS",
                   help=f"quiet time before a burst of changes is built (default {DEFAULT_DEBOUNCE})")
    w.add_argument("--diagnostics-format", choices=("gnu", "msvc", "json"), default="gnu")
    w.add_argument("-q", "--quiet", action="store_true", help="text mode: only failures and summaries")
    w.set_defaults(func=cmd_watch)


def cmd_watch(args) -> int:
    sink = EventSink(args.events, quiet=args.quiet)
    watcher = Watcher(args.directory, sink, output_dir=args.output_dir, backends=args.backends,
                      debounce=max(0.0, args.debounce), poll=args.poll, poll_interval=max(0.01, args.poll_interval),
                      on_success=args.on_success, diag_format=args.diagnostics_format)
    return watcher.run()


def main(argv: list[str] | None = None) -> int:
    """Standalone entry (`python -m shaderbuild.watch`)."""
    import argparse

    parser = argparse.ArgumentParser(prog="shaderbuild")
    add_watch_command(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["watch", *(sys.argv[1:] if argv is None else argv)])
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
