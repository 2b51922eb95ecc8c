"""`[executor]` and `[cache]` in shaderbuild.toml, their command-line overrides, and
opening the executor they describe.

    [executor]
    kind = "dask"                  # "local" (default) or "dask"
    address = "tcp://sched:8786"   # optional: no address = a LocalCluster on this machine
    workers = 2                    # LocalCluster worker processes (default: all cores)
    retries = 2                    # re-runs of a task whose worker failed
    batch = 8                      # targets per task (default: automatic, up to 32)

    [cache]
    dir = "~/.cache/shaderbuild"   # optional local content-addressed cache
    shared = "redis://cache:6379/0"  # or a directory (network share)
    mode = "read"                  # "read" (developers) or "read-write" (CI)
    key_file = "~/.config/shaderbuild/cache.key"   # the HMAC key (or $SHADERBUILD_CACHE_KEY)

The command line wins: `--executor local|dask[=ADDRESS]`, `--cache DIR|URL|off`,
`--cache-mode read|read-write` (or $SHADERBUILD_CACHE_MODE), `--cache-key-file PATH`.
Without a key the cache is not used at all (cache_auth.py, docs/RELIABILITY.md).  This module imports only the schema validators;
Dask and Redis are imported when an executor is actually opened.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..records import DataRecord
from .schema import Enum, Int, Str, Table

if TYPE_CHECKING:
    import argparse

    from .config import Project
    from .executors.runner import RemoteExecutor
    from .remote_cache import SharedCache

EXECUTOR_KINDS = ("local", "dask")
CACHE_MODES = ("read", "read-write")

EXECUTOR_SCHEMA = Table({
    "kind": Enum(*EXECUTOR_KINDS),
    "address": Str(),
    "workers": Int(1, 4096),
    "retries": Int(0, 100),
    "batch": Int(1, 1024),
})
CACHE_SCHEMA = Table({
    "dir": Str(),
    "shared": Str(),
    "mode": Enum(*CACHE_MODES),
    "key_file": Str(),
})


class ExecutorSettings(DataRecord):
    kind: str = "local"
    address: str | None = None
    workers: int | None = None
    retries: int = 2
    batch: int | None = None


class CacheSettings(DataRecord):
    dir: str | None = None
    shared: str | None = None
    mode: str = "read"
    key_file: str | None = None      # the project's [cache] key_file or --cache-key-file

    @property
    def enabled(self) -> bool:
        return bool(self.dir or self.shared)


def parse_executor_arg(text: str) -> tuple[str, str | None]:
    """'local' | 'dask' | 'dask=ADDRESS' -> (kind, address); ValueError otherwise."""
    kind, _, address = text.partition("=")
    if kind not in EXECUTOR_KINDS or (address and kind != "dask"):
        raise ValueError(f"--executor must be local, dask or dask=ADDRESS, not {text!r}")
    return kind, address or None


def _resolve(path: str | None, root: str) -> str | None:
    if not path or "://" in path:
        return path
    return os.path.normpath(os.path.join(root, os.path.expanduser(path)))


def settings_for(project: Project, *, executor: str | None = None, cache: str | None = None,
                 cache_mode: str | None = None, jobs: int | None = None,
                 cache_key_file: str | None = None) -> tuple[ExecutorSettings, CacheSettings]:
    """The project's `[executor]`/`[cache]` tables with command-line values applied."""
    ex_table = getattr(project, "executor", None) or {}
    cache_table = getattr(project, "cache", None) or {}
    ex = ExecutorSettings(ex_table.get("kind", "local"), ex_table.get("address"), ex_table.get("workers"),
                          ex_table.get("retries", 2), ex_table.get("batch"))
    if executor is not None:
        ex.kind, address = parse_executor_arg(executor)
        ex.address = address if address is not None else (ex.address if ex.kind == "dask" else None)
    if jobs is not None and not ex.address:
        ex.workers = jobs
    cs = CacheSettings(_resolve(cache_table.get("dir"), project.root), _resolve(cache_table.get("shared"), project.root),
                       cache_table.get("mode", "read"), _resolve(cache_table.get("key_file"), project.root))
    if cache_key_file is not None:
        cs.key_file = _resolve(cache_key_file, os.getcwd())
    if cache_mode is None:
        from .cache_auth import MODE_ENV

        cache_mode = os.environ.get(MODE_ENV) or None
    if cache is not None:
        if cache == "off":
            cs.dir = cs.shared = None
        else:
            cs.shared = _resolve(cache, os.getcwd())
    if cache_mode is not None:
        if cache_mode not in CACHE_MODES:
            raise ValueError(f"--cache-mode (or $SHADERBUILD_CACHE_MODE) must be read or read-write, "
                             f"not {cache_mode!r}")
        cs.mode = cache_mode
    return ex, cs


def open_cache(cs: CacheSettings) -> SharedCache | None:
    """A SharedCache for the settings, or None when no cache is configured."""
    if not cs.enabled:
        return None
    from .cache_auth import load_key
    from .remote_cache import DirectoryStore, SharedCache, open_store

    key = load_key(cs.key_file)
    return SharedCache(open_store(cs.shared) if cs.shared else None,
                       local=DirectoryStore(cs.dir) if cs.dir else None, mode=cs.mode, key=key)


def open_executor(project: Project, ex: ExecutorSettings, cs: CacheSettings, *,
                  client=None) -> RemoteExecutor | None:
    """A RemoteExecutor (use it as a context manager), or None for the plain local build.

    The local executor without a cache is the scheduler's own process pool; with a
    cache, cache misses are compiled by a local process pool of `workers` processes.
    """
    cache = open_cache(cs)
    if ex.kind == "local" and cache is None:
        return None
    from .executors.backends import Backend, DaskBackend, InlineBackend, PoolBackend
    from .executors.runner import RemoteExecutor

    backend: Backend
    if ex.kind == "dask":
        backend = DaskBackend(ex.address, workers=ex.workers, retries=ex.retries, client=client)
    else:
        workers = ex.workers or os.cpu_count() or 1
        backend = PoolBackend(workers) if workers > 1 else InlineBackend()
    return RemoteExecutor(backend, cache, project.root, batch=ex.batch)


# --- command line -------------------------------------------------------------------------


def _executor_type(text: str) -> str:
    import argparse

    try:
        parse_executor_arg(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def add_cli_options(parser: argparse.ArgumentParser) -> None:
    """`--executor`, `--cache`, `--cache-mode` on the `build` subcommand."""
    parser.add_argument("--executor", type=_executor_type, metavar="local|dask[=ADDRESS]",
                        help="where cache misses compile: this machine (default) or a Dask cluster "
                             "(a scheduler address, or a LocalCluster of -j workers when none is given)")
    parser.add_argument("--cache", metavar="DIR|URL|off",
                        help="shared cache: a directory (network share) or redis://host:port/db; 'off' disables")
    parser.add_argument("--cache-mode", choices=CACHE_MODES,
                        help="read: use the shared cache only (developers); read-write: also fill it (CI); "
                             "default $SHADERBUILD_CACHE_MODE, else the project's [cache] mode, else read")
    parser.add_argument("--cache-key-file", metavar="PATH",
                        help="a file holding the secret that authenticates cache entries (instead of [cache] key_file; "
                             "$SHADERBUILD_CACHE_KEY wins over both); without a key the cache is not used")


def executor_from_args(project: Project, args: argparse.Namespace):
    """A context manager yielding the executor the command line and project ask for (or None)."""
    import contextlib

    ex, cs = settings_for(project, executor=getattr(args, "executor", None), cache=getattr(args, "cache", None),
                          cache_mode=getattr(args, "cache_mode", None), jobs=getattr(args, "jobs", None),
                          cache_key_file=getattr(args, "cache_key_file", None))
    try:
        executor = open_executor(project, ex, cs)
    except ValueError as exc:    # cache_auth.CacheKeyError: an unreadable or short key
        raise SystemExit(f"shaderbuild: error: {exc}") from None
    except ImportError as exc:
        raise SystemExit(f"shaderbuild: error: {exc.name or exc} is not installed "
                         f"(pip install 'shaderbuild[distributed]')") from None
    return executor if executor is not None else contextlib.nullcontext()
