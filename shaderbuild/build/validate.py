"""Shape checks for data the build reads back: build-database records and shared-cache entries.

Both come from outside this process (a file that may be damaged, a cache anyone with write
access can fill), so nothing from them is used before it passed these checks; a failure makes
the record or entry a miss, never a traceback.  One definition serves both, so a cached entry
is held to the same schema as a local record.
"""

from __future__ import annotations

from typing import Any


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def file_row(row: Any) -> bool:
    """[path, mtime_ns, size, inode, sha256 hex]"""
    return (isinstance(row, list) and len(row) == 5 and isinstance(row[0], str) and all(_is_int(v) for v in row[1:4])
            and (isinstance(row[4], str) or row[4] is None))


def resources(value: Any) -> bool:
    """None, or the sorted [[name, hlsl binding], ...] signature of the cross-backend check."""
    return value is None or (isinstance(value, list) and all(
        isinstance(r, list) and len(r) == 2 and (r[0] is None or isinstance(r[0], str)) for r in value))


def diagnostics(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(d, dict) and all(isinstance(k, str) for k in d) and isinstance(d.get("message", ""), str)
        for d in value)


def target_record(rec: Any) -> bool:
    """A build-database record as scheduler._run writes it."""
    return (isinstance(rec, dict) and isinstance(rec.get("name"), str) and isinstance(rec.get("config"), str)
            and isinstance(rec.get("parts"), dict) and isinstance(rec.get("key"), str)
            and isinstance(rec.get("deps"), list) and all(file_row(r) for r in rec["deps"])
            and isinstance(rec.get("outputs"), dict) and "binary" in rec["outputs"]
            and all(isinstance(k, str) and file_row(r) for k, r in rec["outputs"].items())
            and isinstance(rec.get("dirs", []), list)
            and all(isinstance(r, list) and len(r) == 2 and isinstance(r[0], str) and _is_int(r[1])
                    for r in rec.get("dirs", []))
            and resources(rec.get("resources")) and _is_str_list(rec.get("reason", [])))


def blob_record(rec: Any) -> bool:
    return (isinstance(rec, dict) and isinstance(rec.get("digest"), str) and isinstance(rec.get("sig"), list)
            and all(_is_int(v) for v in rec["sig"]))


def cache_entry(entry: Any) -> bool:
    """A decoded shared-cache entry (remote_cache.CacheEntry): same field shapes as a local record,
    and text that is valid UTF-8 (the disassembly is written as text)."""
    files = getattr(entry, "files", None)
    if not (isinstance(files, dict) and isinstance(files.get("binary"), bytes)
            and all(isinstance(k, str) and isinstance(v, bytes) for k, v in files.items())):
        return False
    if "disassembly" in files:
        try:
            files["disassembly"].decode("utf-8")
        except UnicodeDecodeError:
            return False
    return (isinstance(entry.manifest, dict) and isinstance(entry.messages, str) and diagnostics(entry.diagnostics)
            and resources(entry.resources) and _is_str_list(entry.deps))
