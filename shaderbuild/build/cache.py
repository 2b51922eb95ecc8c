"""The build database and cache keys.

One JSON file, `<output_dir>/.shaderbuild/db.json`, replaced atomically.  Per
target it records the key's parts, every dependency the preprocessor read
(path, mtime_ns, size, inode, sha256) and every output (same).  A record is only
added after its outputs are in place, so a killed build loses at most the records
of targets it finished since the last flush; they rebuild next time.

Cache key = sha256(config digest, sorted (dependency, sha256) pairs), where the
config digest covers the compile options (defines included), the compiler
version, the backend plugin version, the source path and the output paths.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os

from .. import __version__ as COMPILER_VERSION
from ..options import CompileOptions
from .outputs import atomic_write

DB_FORMAT = "shaderbuild.db/1"
STATE_DIR = ".shaderbuild"
DB_FILE = "db.json"


def state_dir(output_dir: str) -> str:
    return os.path.join(output_dir, STATE_DIR)


def _canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def sha_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def portable(path: str, root: str) -> str:
    """Paths inside `root` are stored relative to it, so keys and records survive a move.

    (A string prefix test, not os.path.relpath: this runs for every file of every
    target on the no-op path.)  Paths are absolute and normalised by the planner.
    """
    prefix = root.rstrip(os.sep) + os.sep
    if path.startswith(prefix):
        rel = path[len(prefix):]
        return rel if os.sep == "/" else rel.replace(os.sep, "/")
    return path


_OPTION_FIELDS = tuple(f for f in CompileOptions._fields if f not in CompileOptions._NOT_IN_CACHE_KEY)
_SCALARS = (str, int, float, bool, type(None))


def _plain(value):
    """JSON-shaped copy: records become lists of their fields in declaration order."""
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    fields = getattr(value, "__dataclass_fields__", None) or getattr(value, "_fields", None)   # or a Record
    if fields is None:
        raise TypeError(type(value).__name__)
    return [_plain(getattr(value, f)) for f in fields]


def options_fields(options: CompileOptions) -> dict:
    """The JSON value of `CompileOptions.cache_fields()`, without dataclasses.asdict's deep copy
    (3x faster on the no-op path).  tests/test_build_cache.py checks that both agree for every
    field; a value of an unexpected type falls back to cache_fields()."""
    try:
        d = {name: _plain(getattr(options, name)) for name in _OPTION_FIELDS}
    except TypeError:
        return options.cache_fields()
    d["defines"] = sorted(options.defines.items())
    return d


def key_parts(target, plugin_versions: dict[str, str], root: str, output_dir: str) -> dict:
    """Everything except the dependency contents that goes into a target's key."""
    options = options_fields(target.options)
    options["include_dirs"] = [portable(d, root) for d in options["include_dirs"]]
    return {
        "options": options,
        "compiler": COMPILER_VERSION,
        "plugin": plugin_versions.get(target.backend, "?"),
        "source": target.rel,
        "outputs": {k: portable(p, output_dir) for k, p in sorted(target.outputs.items())},
    }


def config_digest(parts: dict) -> str:
    return sha_text(_canonical(parts))


def full_key(cdigest: str, deps: list[list]) -> str:
    """deps rows are [portable path, mtime_ns, size, inode, sha256]."""
    return sha_text(cdigest + _canonical(sorted([d[0], d[4]] for d in deps)))


@functools.cache
def plugin_fingerprint() -> tuple:
    """Installed backend plugins from distribution metadata only (no plugin import)."""
    from ..plugin.discovery import entry_points
    from ..plugin.manager import ENTRY_POINT_GROUP

    return tuple(sorted((ep.name, ep.value, ep.dist_name, ep.dist_version) for ep in entry_points(ENTRY_POINT_GROUP)))


class BuildDB:
    """The persistent record of what was built from what."""

    def __init__(self, output_dir: str, root: str) -> None:
        self.output_dir = output_dir
        self.root = root
        self.path = os.path.join(state_dir(output_dir), DB_FILE)
        self.targets: dict[str, dict] = {}
        self.blobs: dict[str, dict] = {}
        self.meta: dict = {}
        self.dirty = False
        self.load_warning: str | None = None

    @classmethod
    def load(cls, output_dir: str, root: str) -> BuildDB:
        """`root` (the project directory) anchors the relative paths stored in records."""
        db = cls(output_dir, root)
        try:
            with open(db.path, "rb") as f:
                data = json.loads(f.read())
        except FileNotFoundError:
            return db
        except (OSError, ValueError) as exc:
            db.load_warning = f"build database {db.path} is unreadable ({exc}); rebuilding everything"
            return db
        if not isinstance(data, dict) or data.get("format") != DB_FORMAT:
            db.load_warning = f"build database {db.path} has an unknown format; rebuilding everything"
            return db
        db.targets = data.get("targets", {})
        db.blobs = data.get("blobs", {})
        db.meta = data.get("meta", {})
        return db

    def save(self) -> None:
        data = {"format": DB_FORMAT, "meta": self.meta, "targets": self.targets, "blobs": self.blobs}
        atomic_write(self.path, json.dumps(data, separators=(",", ":")).encode("utf-8"))
        self.dirty = False

    def plugin_versions(self) -> dict[str, str]:
        """Backend versions for keys; loads the plugins only when the installed set changed."""
        fp = [list(row) for row in plugin_fingerprint()]
        cached = self.meta.get("plugins")
        if cached and cached.get("fingerprint") == fp:
            return cached["versions"]
        from ..plugin import get_host

        versions = get_host().backend_versions()
        self.meta["plugins"] = {"fingerprint": fp, "versions": versions}
        self.dirty = True
        return versions

    def rel(self, path: str) -> str:
        return portable(path, self.root)

    def abs(self, path: str) -> str:
        return os.path.normpath(os.path.join(self.root, path))

    def put(self, tid: str, record: dict) -> None:
        self.targets[tid] = record
        self.dirty = True

    def drop(self, tid: str) -> None:
        if self.targets.pop(tid, None) is not None:
            self.dirty = True
