"""The SCons source scanner: dependencies from shaderbuild's own preprocessor.

A regex scanner (SCons' ClassicCPP) sees every `#include`, even those in dead
`#if` branches, and none reached through macros.  This one runs the real
preprocessor with the target's defines and include directories, so the
dependency list is exactly what the compiler will read.  The result is the
full include closure, hence `recursive=False`.
"""

from __future__ import annotations

import json
import os
import threading

from .options import OPTIONS_VAR, decode

# The scan results of earlier runs (`<top>/.shaderbuild-scan.json`): a no-op `scons` would otherwise
# preprocess every shader again.  An entry holds for the same source and options while no file it
# read changed (mtime, size) and no search directory gained or lost a file (directory mtime).
SCAN_CACHE_FILE = ".shaderbuild-scan.json"
_FORMAT = 1
_lock = threading.Lock()
_cache: dict | None = None
_used: dict[str, dict] = {}
_cache_path: str | None = None


def _sig(path: str) -> list[int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [st.st_mtime_ns, st.st_size]


def _dir_mtime(path: str) -> int | None:
    sig = _sig(path)
    return None if sig is None else sig[0]


def _load(top: str) -> dict:
    global _cache, _cache_path
    if _cache is None:
        import atexit

        _cache_path = os.path.join(top, SCAN_CACHE_FILE)
        try:
            with open(_cache_path, "rb") as f:
                data = json.loads(f.read())
            _cache = data["entries"] if data.get("format") == _FORMAT else {}
        except (OSError, ValueError, KeyError, AttributeError):
            _cache = {}
        atexit.register(_save)
    return _cache


def _save() -> None:
    if _cache_path is None or not _used or _used == _cache:
        return
    from ..build.outputs import atomic_write

    try:
        atomic_write(_cache_path, json.dumps({"format": _FORMAT, "entries": _used}, sort_keys=True).encode())
    except OSError:
        pass        # a read-only tree only loses the cache


def _fresh(entry: dict) -> bool:
    return all(_sig(p) == sig for p, sig in entry["files"]) and all(
        _dir_mtime(d) == m for d, m in entry["dirs"])


def _scan_files(source: str, text: str, key: str) -> list[str] | None:
    """Every file the preprocessor reads for `source` under the options `text` (None: unscannable)."""
    from ..compiler import scan_dependencies
    from ..diagnostics import CompileError

    options = decode(text)
    try:
        files = [os.path.abspath(f) for f in scan_dependencies(source, options)]
    except CompileError:
        return None   # the compile reports the error; an unscannable target is never up to date
    dirs = sorted({os.path.dirname(f) for f in files} | {os.path.abspath(d) for d in options.include_dirs})
    sigs = [[f, _sig(f)] for f in files]
    if all(sig is not None for _, sig in sigs):
        _used[key] = {"files": sigs, "dirs": [[d, _dir_mtime(d)] for d in dirs]}
    return files


# the options the preprocessor sees (its predefined macros come from the target, profile, language
# version and 16-bit types); the entry point and backend options do not change what it reads
_PREPROCESSOR_FIELDS = ("target", "profile", "hlsl_version", "enable_16bit_types", "defines", "include_dirs")


def _key(source: str, text: str) -> str:
    data = json.loads(text)
    return source + "\0" + json.dumps([data.get(k) for k in _PREPROCESSOR_FIELDS], separators=(",", ":"))


def scan(node, env, path=()) -> list:
    """Scanner function: File nodes of every file the preprocessor reads (the source excluded)."""
    text = env.get(OPTIONS_VAR)
    src = node.srcnode()
    if not text or not src.exists():
        return []
    source = src.abspath
    key = _key(source, text)
    files: list[str] | None
    with _lock:
        entry = _used.get(key) or _load(env.Dir("#").abspath).get(key)
        if entry is not None and (key in _used or _fresh(entry)):
            _used[key] = entry
            files = [p for p, _ in entry["files"]]
        else:
            files = _scan_files(source, text, key)
    if files is None:
        return []
    return [env.File(f) for f in files if f != source]


def make_scanner():
    import SCons.Scanner

    return SCons.Scanner.ScannerBase(scan, name="ShaderbuildHLSLScanner", recursive=False)
