"""The no-op fast path of `shaderbuild build`: answer "up to date" from one snapshot of stats.

A successful full build saves (user_cache.py, one small JSON file per project directory) the
stat of every file and directory whose change could make the next build do anything: the
project file and the directories searched for it, the directories its `files` globs list,
every dependency, output and include directory as the build database records them, the blobs,
`index.json`, `programs.json` and the database itself, with the compiler version and the
installed plugins.  The next `shaderbuild build` with the same plain command line stats those
paths under a shared project lock (no build can be running) and, when every one is unchanged,
prints what the full no-op would print and exits: no TOML, SQLite, argparse or planner import.
Anything else (a changed stat, a running build, another option) takes the full path, which
trusts stats exactly as far as this does (deps.py: an unchanged stat is unchanged content).
"""

from __future__ import annotations

import os
import sys
import time

FORMAT = 1
RACY_NS = 100_000_000        # a directory or project file changed this close to the build is not trusted
_FLAGS_WITH_VALUE = {"-j": "jobs", "--jobs": "jobs", "--diagnostics-format": "format"}
_FLAGS = ("-q", "--quiet", "--keep-going", "--no-wait")
_FORMATS = ("gnu", "msvc", "json")


def _parse(argv: list[str]) -> tuple[str, bool] | None:
    """(project directory argument, quiet) for `build [DIR] [-j N] [-q] [--keep-going] [--no-wait]
    [--diagnostics-format F]`; None for any other command line."""
    directory, quiet, i = None, False, 0
    while i < len(argv):
        tok = argv[i]
        i += 1
        if tok in _FLAGS:
            quiet = quiet or tok in ("-q", "--quiet")
            continue
        name, eq, joined = tok.partition("=") if tok.startswith("--") else (tok[:2], "", tok[2:])
        value: str | None = joined if eq or joined else None
        kind = _FLAGS_WITH_VALUE.get(name)
        if kind is not None:
            if value is None:
                if i >= len(argv):
                    return None
                value, i = argv[i], i + 1
            if not (value.isdigit() if kind == "jobs" else value in _FORMATS):
                return None
            continue
        if tok.startswith("-") or directory is not None:
            return None
        directory = tok
    return (directory or "."), quiet


def cache_name(directory: str) -> str:
    from .files import sha256_text

    return "noop-" + sha256_text(os.path.abspath(directory))[:24]


def _stat(path: str) -> list[int] | None:
    """files.stat_sig as the snapshot's JSON holds it (a list)."""
    from .files import stat_sig

    sig = stat_sig(path)
    return None if sig is None else list(sig)


def try_noop(argv: list[str]) -> int | None:
    """The exit status of `shaderbuild build ARGV` when the snapshot proves it a no-op, else None."""
    start = time.perf_counter()
    if sys.platform == "win32" or "shaderbuild.build.lock" in sys.modules and sys.modules[
            "shaderbuild.build.lock"]._HELD:      # this process builds already: the full path decides
        return None
    parsed = _parse(argv)
    if parsed is None or os.environ.get("SHADERBUILD_CACHE_MODE"):   # (= cache_auth.MODE_ENV: checked by the full path)
        return None
    directory, quiet = parsed
    from .. import __version__, user_cache

    text = user_cache.load(cache_name(directory))
    try:
        import json     # the C decoder: the snapshot is data only, never code

        snap = json.loads(text) if text is not None else None
        if not isinstance(snap, dict) or snap.get("format") != FORMAT or snap.get("compiler") != __version__:
            return None
        fd = os.open(snap["lock"], os.O_RDONLY)
    except (OSError, TypeError, KeyError, ValueError):
        return None
    import fcntl

    try:
        fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)    # a build holds it exclusively: take the full path
        if not _unchanged(snap):
            return None
    except (OSError, TypeError, ValueError, KeyError, IndexError):
        return None
    finally:
        os.close(fd)              # (closing drops the lock)
    if not quiet:
        for note in snap["notes"]:
            print(note, file=sys.stderr)
        print(f"{snap['summary']} in {time.perf_counter() - start:.2f} s", file=sys.stderr)
    return 0


def _unchanged(snap: dict) -> bool:
    for path, *sig in snap["stats"]:
        if _stat(path) != (sig or None):
            return False
    for path, mtime in snap["mtimes"]:
        sig = _stat(path)
        if sig is None or sig[0] != mtime:
            return False
    from .cache import plugin_fingerprint

    return [list(row) for row in plugin_fingerprint()] == snap["plugins"]


def config_paths(start: str, config_path: str) -> list[str]:
    """What find_project_file looked at: the project file names in each directory from `start`
    up to the project file's (a new or changed nearer one would win)."""
    from .config import PROJECT_FILE, PYPROJECT_FILE

    if os.path.isfile(start):
        return [os.path.abspath(start)]
    out, directory, top = [], os.path.abspath(start), os.path.dirname(config_path)
    while True:
        out += [os.path.join(directory, PROJECT_FILE), os.path.join(directory, PYPROJECT_FILE)]
        parent = os.path.dirname(directory)
        if directory == top or parent == directory:
            return out
        directory = parent


def glob_dirs(root: str, pattern: str) -> list[str]:
    """The directories whose listing decides what `pattern` (targets._glob) matches: adding or
    removing a match changes one of their mtimes.  None for a plain path: the file is a
    dependency of its targets, whose stats the snapshot holds anyway."""
    import glob

    parts = pattern.replace(os.sep, "/").split("/")
    magic = next((i for i, p in enumerate(parts) if glob.has_magic(p)), None)
    if magic is None:
        return []
    base = os.path.normpath(os.path.join(root, *parts[:magic]))
    rest = parts[magic:]
    depth = None if any("**" in p for p in rest) else len(rest) - 1
    out = [base]
    for here, dirs, _ in os.walk(base, followlinks=True):
        level = 0 if here == base else here[len(base):].count(os.sep)
        if depth is not None and level >= depth:
            dirs.clear()
            continue
        out += [os.path.join(here, d) for d in sorted(dirs)]
    return out


def watched(start: str, project) -> list[str]:
    """The project-level paths of a snapshot (stat them before planning: see save())."""
    paths = config_paths(start, project.config_path) + [project.config_path]
    for shader in project.shaders:
        for pattern in shader.files:
            paths += glob_dirs(project.root, pattern)
    return list(dict.fromkeys(paths))


def forget(directory: str) -> None:
    """Drop the snapshot before a build that may change anything."""
    from .. import user_cache

    try:
        os.unlink(user_cache.path_of(cache_name(directory)))
    except OSError:
        pass


def save(directory: str, project, before: dict[str, list[int] | None], since_ns: int, db, notes: list[str],
         summary: str) -> bool:
    """Save the snapshot after a successful full build; `before` holds the stats of watched()
    taken when the project was read (at `since_ns`).  Saves nothing when any of those changed
    since, or changed so close to `since_ns` that a later change might keep its mtime, or when
    the database's write-ahead log is still there.  Returns whether it saved."""
    from .. import __version__, user_cache
    from .cache import plugin_fingerprint, state_dir
    from .integration import PROGRAMS_FILE
    from .report import INDEX_FILE

    for path, sig in before.items():
        if _stat(path) != sig or (sig is not None and sig[0] >= since_ns - RACY_NS):
            return False
    state = state_dir(project.output_dir)
    if _stat(db.path + "-wal") is not None or db.meta.get("index_sig") is None:
        return False
    stats: dict[str, list[int] | None] = dict(before)
    mtimes: dict[str, int] = {}
    for rec in db.targets.values():
        for row in [*rec["deps"], *rec["outputs"].values()]:
            if stats.setdefault(db.abs(row[0]), row[1:4]) != row[1:4]:
                return False      # two records disagree: the full path decides (and refreshes)
        for row in rec.get("dirs", []):
            if mtimes.setdefault(db.abs(row[0]), row[1]) != row[1]:
                return False
    for rel, blob in db.blobs.items():
        stats[db.abs(rel)] = blob["sig"]
    out = project.output_dir
    stats[os.path.join(out, INDEX_FILE)] = db.meta["index_sig"]
    for path in (os.path.join(out, PROGRAMS_FILE), db.path, db.path + "-wal"):
        stats[path] = _stat(path)
    import json

    user_cache.save(cache_name(directory), json.dumps({
        "format": FORMAT, "compiler": __version__, "lock": os.path.join(state, "lock"),
        "plugins": [list(row) for row in plugin_fingerprint()],
        "stats": [[p, *(s or ())] for p, s in sorted(stats.items())],
        "mtimes": sorted([p, m] for p, m in mtimes.items()), "notes": notes, "summary": summary}, separators=(",", ":")))
    return True
