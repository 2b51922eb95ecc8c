"""`shaderbuild build | clean | list | explain`: argparse front end of shaderbuild.build.

The lead's shaderbuild/cli.py calls `add_build_commands(subparsers)`; each
subcommand stores its handler in `args.func(args) -> int` (exit status).
Imports are lazy so `shaderbuild build` on an up-to-date tree stays fast.
"""

from __future__ import annotations

import argparse
import json
import sys

DIAG_FORMATS = ("gnu", "msvc", "json")


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("directory", nargs="?", default=".", help="project directory or project file (default: .)")
    p.add_argument("-o", "--output-dir", help="build into this directory instead of the project's output_dir")
    p.add_argument("--target", dest="backends", action="append", metavar="BACKEND",
                   help="only this backend (spirv, dxil, ...); repeatable")
    p.add_argument("--filter", dest="filters", action="append", metavar="GLOB",
                   help="only targets whose name, id or source path matches; repeatable")


def add_build_commands(subparsers) -> None:
    """Register build/clean/list/explain on an argparse subparsers object."""
    b = subparsers.add_parser("build", help="compile a shader project incrementally")
    _common(b)
    b.add_argument("-j", "--jobs", type=int, default=None, help="worker processes (default: all cores)")
    b.add_argument("--force", action="store_true", help="rebuild every selected target")
    b.add_argument("--keep-going", action="store_true", help="continue after a failed target")
    b.add_argument("--verify", action="store_true",
                   help="hash every input and output instead of trusting unchanged file stats")
    b.add_argument("--no-wait", action="store_true", help="fail instead of waiting for a concurrent build")
    b.add_argument("--diagnostics-format", choices=DIAG_FORMATS, default="gnu")
    b.add_argument("--report", metavar="FILE", help="write the build report as JSON ('-' for stdout)")
    b.add_argument("-q", "--quiet", action="store_true",
                   help="print only errors and warnings: no progress, notes or summary")
    b.add_argument("--depfile", metavar="FILE",
                   help="write a Make/Ninja depfile for the whole build: its target is FILE without '.d' (a stamp "
                        "touched after a successful build), its prerequisites every file the build read")
    from .build.distributed_config import add_cli_options

    add_cli_options(b)
    b.set_defaults(func=cmd_build)

    c = subparsers.add_parser("clean", help="remove everything a build wrote")
    c.add_argument("directory", nargs="?", default=".")
    c.add_argument("-o", "--output-dir")
    c.add_argument("--no-wait", action="store_true")
    c.set_defaults(func=cmd_clean)

    ls = subparsers.add_parser("list", help="list the project's targets")
    _common(ls)
    ls.add_argument("--status", action="store_true", help="also show whether each target is up to date")
    ls.add_argument("--json", action="store_true", help="machine-readable output")
    ls.set_defaults(func=cmd_list)

    e = subparsers.add_parser("explain", help="show a target's cache key and why it would (not) rebuild")
    e.add_argument("target", help="target name, id, or glob")
    _common(e)
    e.add_argument("--json", action="store_true")
    e.set_defaults(func=cmd_explain)


def _load(args):
    from .build.config import load_project

    return load_project(args.directory, output_dir=args.output_dir)


def _config_errors(exc, style: str = "gnu") -> int:
    for err in exc.errors:
        print(err.render("msvc" if style == "msvc" else "gnu"), file=sys.stderr)
    return 1


def _planned(args):
    from .build.targets import plan, select

    project = _load(args)
    return project, select(plan(project, backends=args.backends), args.filters)


def cmd_build(args) -> int:
    import time

    from .build import noop
    from .build.config import ConfigFileError
    from .build.lock import LockBusy
    from .build.scheduler import build

    full = not args.filters and not args.backends
    # a plain full build saves the stats that let the next plain one be answered by build/noop.py
    snapshot = full and args.output_dir is None and not args.force and not args.verify
    since = time.time_ns()
    dbs: list = []
    try:
        if snapshot:
            noop.forget(args.directory)
        project, targets = _planned(args)
        before = {p: noop._stat(p) for p in noop.watched(args.directory, project)} if snapshot else {}
        from .build.distributed_config import executor_from_args

        with executor_from_args(project, args) as executor:
            report = build(project, None if full else targets, jobs=args.jobs, force=args.force, verify=args.verify,
                           keep_going=args.keep_going, diag_format=args.diagnostics_format,
                           wait=not args.no_wait, quiet=args.quiet, executor=executor, on_finish=dbs.append)
            if executor is not None:
                snapshot = False
                print(f"shaderbuild: {executor.describe()}: {executor.stats.summary()}", file=sys.stderr)
    except ConfigFileError as exc:
        return _config_errors(exc, args.diagnostics_format)
    except LockBusy as exc:
        print(f"shaderbuild: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:      # disk full, read-only output directory, ...: a message, not a traceback
        where = f"'{exc.filename}': " if exc.filename else ""
        print(f"shaderbuild: error: cannot write {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    notes = [f"note: {dup['shader']}: identical outputs for permutations " + ", ".join(
        f"[{k}]" for k in dup["permutations"]) for dup in report.duplicates]
    if report.ok:
        from .build.integration import write_depfile, write_programs
        from .build.targets import plan

        try:
            write_programs(project, targets if full else plan(project), changed=bool(report.built))
            if args.depfile:
                write_depfile(args.depfile, project, targets)
        except OSError as exc:      # e.g. a read-only output directory: an error only if the build wrote
            where = f"'{exc.filename}': " if exc.filename else ""
            print(f"shaderbuild: {'error' if report.built else 'warning'}: cannot write {where}"
                  f"{exc.strerror or exc}", file=sys.stderr)
            if report.built:
                return 1
            snapshot = False
        if snapshot and not report.warnings and dbs and dbs[0].read_only is None:
            from .build.report import BuildReport

            summary = BuildReport(up_to_date=[t.name for t in targets], duplicates=report.duplicates).summary()
            noop.save(args.directory, project, before, since, dbs[0], notes, summary.rpartition(" in ")[0])
    for note in notes if not args.quiet else ():
        print(note, file=sys.stderr)
    for name in report.failed:
        print(f"  FAILED   {name}", file=sys.stderr)
    for m in report.mismatches:
        print(f"  MISMATCH {m['variant']} ({' vs '.join(m['backends'])})", file=sys.stderr)
    if not args.quiet or not report.ok:
        print(report.summary(), file=sys.stderr)
    if args.report:
        text = json.dumps(report.to_json(), indent=2, sort_keys=True)
        if args.report == "-":
            print(text)
        else:
            with open(args.report, "w") as f:
                f.write(text + "\n")
    return 0 if report.ok else 1


def cmd_clean(args) -> int:
    from .build.clean import clean
    from .build.config import ConfigFileError
    from .build.lock import LockBusy

    try:
        removed = clean(_load(args), wait=not args.no_wait, on_wait=lambda m: print(m, file=sys.stderr))
    except ConfigFileError as exc:
        return _config_errors(exc)
    except LockBusy as exc:
        print(f"shaderbuild: error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:      # confine.OutsideOutputDir: a symbolic link inside the output directory
        where = f"'{exc.filename}': " if exc.filename else ""
        print(f"shaderbuild: error: cannot remove {where}{exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"shaderbuild: removed {len(removed)} file(s)", file=sys.stderr)
    return 0


def cmd_list(args) -> int:
    from .build.config import ConfigFileError
    from .build.database import BuildDB
    from .build.files import FileState
    from .build.scheduler import is_up_to_date

    try:
        project, targets = _planned(args)
    except ConfigFileError as exc:
        return _config_errors(exc)
    db = BuildDB.load(project.output_dir, project.root) if args.status else None
    fs = FileState(project.root)
    rows = []
    for t in targets:
        row = {"name": t.name, "id": t.tid, "binary": t.outputs["binary"],
               "outputs": sorted([*t.outputs.values(), *([t.blob] if t.blob else [])])}
        if db is not None:
            row["fresh"] = is_up_to_date(project, t, db=db, fs=fs).fresh
        rows.append(row)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for row in rows:
            state = "" if db is None else ("  up-to-date" if row["fresh"] else "  stale")
            print(f"{row['id']}  {row['name']}{state}")
    return 0


def cmd_explain(args) -> int:
    from .build.config import ConfigFileError
    from .build.explain import explain, explain_data
    from .build.targets import plan, select

    try:
        project = _load(args)
        targets = select(select(plan(project, backends=args.backends), [args.target]), args.filters)
    except ConfigFileError as exc:
        return _config_errors(exc)
    if not targets:
        print(f"shaderbuild: error: no target matches '{args.target}' (see 'shaderbuild list')", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps([explain_data(project, t) for t in targets], indent=2, sort_keys=True))
    else:
        print(explain(project, targets))
    return 0


def main(argv: list[str] | None = None) -> int:
    """Standalone entry (`python -m shaderbuild.build_cli`) until the main CLI wires these in."""
    parser = argparse.ArgumentParser(prog="shaderbuild")
    sub = parser.add_subparsers(dest="command", required=True)
    add_build_commands(sub)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
