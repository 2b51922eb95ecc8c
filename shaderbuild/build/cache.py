"""Cache keys and the state directory (the build database itself is database.py).

Per target the database records the key's parts, every dependency the preprocessor
read (path, mtime_ns, size, inode, sha256) and every output (same).  A record is only
added after its outputs are in place.

Cache key = sha256(config digest, sorted (dependency, sha256) pairs), where the
config digest covers the compile options (defines included), the compiler
version, the backend plugin version, the source path and the output paths.
"""

from __future__ import annotations

import functools
import json
import os

from .. import __version__ as COMPILER_VERSION
from ..options import CompileOptions
from .files import sha256_text

STATE_DIR = ".shaderbuild"


def state_dir(output_dir: str) -> str:
    return os.path.join(output_dir, STATE_DIR)


def _canonical(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def sha_text(text: str) -> str:
    return sha256_text(text)


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


_SCALAR_TYPES = frozenset(_SCALARS)


def _plain(value):
    """JSON-shaped copy: records become lists of their fields in declaration order."""
    if type(value) in _SCALAR_TYPES or isinstance(value, _SCALARS):
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
    (3x faster on the no-op path).  tests/build/test_build_cache.py checks that both agree for every
    field; a value of an unexpected type falls back to cache_fields()."""
    d = {}
    try:
        for name in _OPTION_FIELDS:       # (most fields are scalars: no call for those)
            value = getattr(options, name)
            d[name] = value if type(value) in _SCALAR_TYPES else (
                sorted(options.defines.items()) if name == "defines" else _plain(value))
    except TypeError:
        return options.cache_fields()
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


def __getattr__(name: str):
    """`cache.BuildDB` moved to database.py (SQLite); kept importable from here."""
    if name == "BuildDB":
        from .database import BuildDB

        return BuildDB
    raise AttributeError(name)
