"""The SCons source scanner: dependencies from shaderbuild's own preprocessor.

A regex scanner (SCons' ClassicCPP) sees every `#include`, even those in dead
`#if` branches, and none reached through macros.  This one runs the real
preprocessor with the target's defines and include directories, so the
dependency list is exactly what the compiler will read.  The result is the
full include closure, hence `recursive=False`.

A target whose binary is missing and which the cache has no entry for (a clean build) is not
preprocessed here: it is built whatever its includes are, so the scan is deferred to its compile,
which preprocesses anyway and hands back the files it read (`record`); the action adds them to
the targets' implicit dependencies before SCons stores them, and to the cache.  Not with a
CacheDir (its signatures include the implicit dependencies), nor when a file node in the tree has
a builder other than shaderbuild's outputs (a generated header must be ordered before the
compile).  Scanning here too preprocessed every target twice on a clean build (~0.09 s of CPU for
the sample project, in the SCons process while the workers compiled).
"""

from __future__ import annotations

import json
import os
import threading

from .options import BINARY_VAR, OPTIONS_VAR, decode

# The scan results of earlier runs (`<top>/.shaderbuild-scan.json`): a no-op `scons` would otherwise
# preprocess every shader again.  An entry holds for the same source and options while no file it
# read changed (mtime, size) and no search directory gained or lost a file (directory mtime).
SCAN_CACHE_FILE = ".shaderbuild-scan.json"
_FORMAT = 1
_lock = threading.Lock()
_cache: dict | None = None
_used: dict[str, dict] = {}
_cache_path: str | None = None
_deferred: set[str] = set()          # keys whose scan waits for the compile (see record)
_generated: bool | None = None       # does any SCons builder other than ours make files?
OWN_OUTPUT = "shaderbuild_output"    # node attribute marking the files HLSL()/ShaderProject() declare


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

    try:
        files = [os.path.abspath(f) for f in scan_dependencies(source, decode(text))]
    except CompileError:
        return None   # the compile reports the error; an unscannable target is never up to date
    _remember(key, text, files)
    return files


def _remember(key: str, text: str, files: list[str]) -> None:
    dirs = sorted({os.path.dirname(f) for f in files} | {os.path.abspath(d) for d in json.loads(text)["include_dirs"]})
    sigs = [[f, _sig(f)] for f in files]
    if all(sig is not None for _, sig in sigs):
        _used[key] = {"files": sigs, "dirs": [[d, _dir_mtime(d)] for d in dirs]}


def _may_generate_includes(fs) -> bool:
    """True when some file node has a builder that is not shaderbuild's (it could be an #include
    that SCons must build before the compile reads it), or a directory has a builder of its own."""
    global _generated
    if _generated is None:
        import SCons.Node.FS

        mkdir = SCons.Node.FS.get_MkdirBuilder()
        stack = list(fs.Root.values())
        _generated = False
        while stack and not _generated:
            for name, node in stack.pop().entries.items():
                if name in (".", ".."):
                    continue
                if isinstance(node, SCons.Node.FS.Dir):
                    stack.append(node)
                    _generated = node.has_builder() and node.builder is not mkdir
                else:
                    _generated = node.has_builder() and not getattr(node.attributes, OWN_OUTPUT, False)
                if _generated:
                    break
    return _generated


def _may_defer(env, key: str) -> bool:
    """Defer the scan to the compile: the binary is missing (so it is built whatever its includes
    are), no CacheDir (its signatures include the implicit dependencies) and no generated files."""
    binary = env.get(BINARY_VAR)
    if not binary or os.path.exists(binary) or getattr(env.get_CacheDir(), "path", None):
        return False
    return key in _deferred or not _may_generate_includes(env.fs)


def may_compile_ahead(env) -> bool:
    """May the pool compile declared targets before SCons runs their actions?  Not with a CacheDir
    (SCons would fetch them instead) nor when some file is generated (it may be an #include)."""
    with _lock:
        return not getattr(env.get_CacheDir(), "path", None) and not _may_generate_includes(env.fs)


def record(env, source: str, text: str, files: list[str]) -> list:
    """After a compile: when this target's scan was deferred, cache the files the compile read and
    return their File nodes without the source (the implicit dependencies to add); else []."""
    key = _key(source, text)
    with _lock:      # SCons' node lookup is not thread-safe: every lookup of ours holds the lock
        if key not in _deferred:
            return []
        files = [os.path.abspath(f) for f in files]
        _remember(key, text, files)
        return [env.File(f) for f in files if f != source]


# the options the preprocessor sees (its predefined macros come from the target, profile, language
# version and 16-bit types); the entry point and backend options do not change what it reads
_PREPROCESSOR_FIELDS = ("target", "profile", "hlsl_version", "enable_16bit_types", "defines", "include_dirs")


_PP_TEXT: dict[str, str] = {}        # options text -> its preprocessor part (scan and record ask for each target)


def _key(source: str, text: str) -> str:
    part = _PP_TEXT.get(text)
    if part is None:
        data = json.loads(text)
        part = _PP_TEXT[text] = json.dumps([data.get(k) for k in _PREPROCESSOR_FIELDS], separators=(",", ":"))
    return source + "\0" + part


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
        elif entry is None and _may_defer(env, key):
            _deferred.add(key)
            return []
        else:
            files = _scan_files(source, text, key)
        return [] if files is None else [env.File(f) for f in files if f != source]


def make_scanner():
    import SCons.Scanner

    return SCons.Scanner.ScannerBase(scan, name="ShaderbuildHLSLScanner", recursive=False)
