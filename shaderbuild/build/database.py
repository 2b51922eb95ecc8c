"""The build database: `<output_dir>/.shaderbuild/build.db`, SQLite (stdlib) in WAL mode.

One row per target (its record as JSON, upserted as soon as the target finishes: a build
killed at any point loses nothing it finished), one per blob and one per meta key.  Every row
carries a CRC-32 of its key and value: SQLite checks its page structure, not the bytes of a
value, and a flipped byte inside a record must not become a wrong record.

On open, `application_id` and `user_version` identify the format and `PRAGMA integrity_check`
the structure (4 ms on a 7 MB database of 5,000 targets, 1 % of reading it; quick_check saves
1.5 ms of that, so the full check stays; docs/RELIABILITY.md).  A foreign, corrupt or other-version file is
reported once (a warning naming it) and replaced by an empty database: everything rebuilds.
A row that fails its CRC or the record shape check (validate.py) is dropped the same way,
and only its target rebuilds.  The old `db.json` is imported once (valid records only) and
removed.

WAL with synchronous=NORMAL: a commit is atomic under SIGKILL and power loss (a power loss
may roll back the last commits, whose targets then rebuild; it never tears a record).
While a local pool runs, each worker commits the records of the targets it built over a
connection of its own (`RecordWriter`), and the build process only adopts them in memory: one
transaction per target was the largest part of the build process's work (issue 23).
Readers (explain, list, watch, SCons) open the file read-only and never create it.
"""

from __future__ import annotations

import json
import os
import sqlite3
import zlib
from typing import Any
from urllib.parse import quote

from . import validate
from .cache import plugin_fingerprint, portable, state_dir

DB_FILE = "build.db"
LEGACY_FILE = "db.json"
APPLICATION_ID = 0x53424442          # "SBDB"
SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE targets(tid TEXT PRIMARY KEY, crc INTEGER NOT NULL, record TEXT NOT NULL);
CREATE TABLE blobs(path TEXT PRIMARY KEY, crc INTEGER NOT NULL, record TEXT NOT NULL);
CREATE TABLE meta(key TEXT PRIMARY KEY, crc INTEGER NOT NULL, record TEXT NOT NULL);
"""
_TABLES = ("targets", "blobs", "meta")
# SQLite result codes that mean "cannot write here" (read-only directory or medium, disk full),
# as opposed to a damaged file.
_ENVIRONMENT = {3: "permission denied", 8: "read-only", 10: "I/O error", 13: "disk full", 14: "cannot open"}


def _crc(key: str, text: str) -> int:
    return zlib.crc32(f"{key}\0{text}".encode())


def _dump(record) -> str:
    return json.dumps(record, separators=(",", ":"))


def _row(key: str, record) -> tuple[str, int, str]:
    text = _dump(record)
    return key, _crc(key, text), text


def _environmental(exc: sqlite3.Error) -> bool:
    return (getattr(exc, "sqlite_errorcode", 0) & 0xFF) in _ENVIRONMENT


class DatabaseWriteError(OSError):
    """The database cannot be written (read-only directory, disk full); names the file."""


class BuildDB:
    """The persistent record of what was built from what (in memory: targets, blobs, meta)."""

    def __init__(self, output_dir: str, root: str) -> None:
        self.output_dir = output_dir
        self.root = root
        self.path = os.path.join(state_dir(output_dir), DB_FILE)
        self.targets: dict[str, dict] = {}
        self.blobs: dict[str, dict] = {}
        self.meta: dict = {}
        self.dirty = False
        self.load_warning: str | None = None
        self.read_only: OSError | None = None    # set when a writable open fell back to reading
        self._conn: sqlite3.Connection | None = None
        self._writable = False
        self._touched: set[str] = set()          # targets changed while there was no writable connection
        self._dropped: set[str] = set()
        self._reader = False                     # loaded for reading: save() writes nothing
        self._empty = False                      # a file without our schema yet (read-only open)
        self._suspended = False                  # writable connection closed while pool workers write

    # -- opening ---------------------------------------------------------------------------

    @classmethod
    def load(cls, output_dir: str, root: str, *, writable: bool = False, immutable: bool = False) -> BuildDB:
        """`root` (the project directory) anchors the relative paths stored in records.

        `writable`: the build's own connection (creates, repairs, migrates); otherwise the
        file is only read, and a missing one is an empty database.  `immutable`: read without
        creating SQLite's -wal/-shm files (a read-only output directory)."""
        db = cls(output_dir, root)
        db._reader = not writable
        try:
            db._open(writable, immutable)
        except sqlite3.Error as exc:
            db.close()
            if _environmental(exc):      # cannot read or write here: not a reason to delete the file
                db.targets, db.blobs, db.meta = {}, {}, {}
                db.read_only = db._write_error(exc)
                db.load_warning = f"build database {db.path} cannot be read ({exc})"
            else:                        # e.g. a damaged page that integrity_check let through
                db._reset(f"is unreadable ({exc})", writable)
        return db

    def _open(self, writable: bool, immutable: bool = False) -> None:
        exists = os.path.exists(self.path)
        if writable:
            try:
                self._connect("rwc")
            except sqlite3.Error as exc:
                if not _environmental(exc):
                    raise
                self.read_only = self._write_error(exc)
                writable = False
        if writable:
            self._load_rows(writable=True)
            self._import_legacy()
            return
        if not exists:
            return
        # Read-only: "ro" cannot replay the WAL of a killed build (SQLITE_READONLY_RECOVERY),
        # "rw" can (it never creates the file), "immutable" works in a read-only directory.
        modes = ["immutable"] if immutable else ["ro", "rw", "immutable"]
        for i, mode in enumerate(modes):
            try:
                self._connect(mode)
                self._load_rows(writable=False)
                break
            except sqlite3.Error as exc:
                self.close()
                self.targets, self.blobs, self.meta = {}, {}, {}
                if not _environmental(exc) or i == len(modes) - 1:
                    raise
        self.close()     # readers keep no connection (and no read lock) open

    def _load_rows(self, *, writable: bool) -> None:
        problem = self._check()
        if problem:
            self._reset(problem, writable)
        elif not self._empty:
            self._read()

    def _connect(self, mode: str) -> None:
        """mode: 'rwc' (the build's connection: create, WAL), 'rw', 'ro' or 'immutable'."""
        if mode == "rwc":
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
            except sqlite3.Error:
                conn.close()
                raise
        else:
            query = "mode=ro&immutable=1" if mode == "immutable" else f"mode={mode}"
            conn = sqlite3.connect(f"file:{quote(self.path)}?{query}", uri=True, isolation_level=None,
                                   check_same_thread=False)
        conn.text_factory = lambda b: b.decode("utf-8", "surrogateescape")   # a damaged row is dropped, not fatal
        self._conn, self._writable = conn, mode == "rwc"

    def _check(self) -> str | None:
        """None when the file is ours and sound (creating the schema in a new file)."""
        conn = self._conn
        assert conn is not None     # _open ran
        app = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if app == 0 and version == 0 and not conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
            if self._writable:     # new, or a build was killed before it committed the schema
                self._create()
            else:
                self._empty = True
            return None
        if app != APPLICATION_ID:
            return "is not a shaderbuild build database"
        if version != SCHEMA_VERSION:
            return f"has schema version {version}, not {SCHEMA_VERSION}"
        result = conn.execute("PRAGMA integrity_check").fetchall()
        if result != [("ok",)]:
            return f"is corrupt ({result[0][0]})"
        return None

    def _create(self) -> None:
        with self._transaction() as conn:
            conn.executescript("BEGIN;" + _SCHEMA + f"PRAGMA application_id={APPLICATION_ID};"
                               f"PRAGMA user_version={SCHEMA_VERSION};COMMIT;")

    def _read(self) -> None:
        bad: list[tuple[str, int]] = []
        assert self._conn is not None   # _open ran
        for table, store, check in (("targets", self.targets, validate.target_record),
                                    ("blobs", self.blobs, validate.blob_record), ("meta", self.meta, None)):
            for rowid, key, crc, text in self._conn.execute(
                    f"SELECT rowid, * FROM {table}").fetchall():   # noqa: S608 - fixed names
                try:
                    ok = isinstance(key, str) and isinstance(text, str) and _crc(key, text) == crc
                    value: Any = json.loads(text) if ok else None   # whatever JSON value its check accepts
                except ValueError:
                    ok = False
                if ok and (check is None or check(value)):
                    store[key] = value
                else:
                    bad.append((table, rowid))
        if bad:
            self.load_warning = (f"build database {self.path}: {len(bad)} damaged record(s) dropped; "
                                 "their targets rebuild")
            if self._writable:
                with self._transaction() as conn:
                    for table, rowid in bad:
                        conn.execute(f"DELETE FROM {table} WHERE rowid = ?", (rowid,))   # noqa: S608

    def _reset(self, problem: str, writable: bool) -> None:
        """Report `problem` once and start from an empty database (removing the bad file)."""
        self.load_warning = f"build database {self.path} {problem}; rebuilding everything"
        self.close()
        self.targets, self.blobs, self.meta = {}, {}, {}
        if not writable:
            return
        try:
            _remove_files(self.path)
            self._connect("rwc")
            self._create()
        except (OSError, sqlite3.Error) as exc:
            self.close()
            self.read_only = exc if isinstance(exc, OSError) else self._write_error(exc)

    def _import_legacy(self) -> None:
        """The JSON database of earlier versions: import its sound records once, then remove it."""
        legacy = os.path.join(os.path.dirname(self.path), LEGACY_FILE)
        if not os.path.exists(legacy):
            return
        try:
            with open(legacy, "rb") as f:
                data = json.loads(f.read())
        except (OSError, ValueError):
            data = None
        if isinstance(data, dict) and data.get("format") == "shaderbuild.db/1" and not self.targets:
            for store, value, check in ((self.targets, data.get("targets"), validate.target_record),
                                        (self.blobs, data.get("blobs"), validate.blob_record)):
                if isinstance(value, dict):
                    store.update({k: v for k, v in value.items() if isinstance(k, str) and check(v)})
            self._touched.update(self.targets)
            self.dirty = True
            self.save()
        try:
            os.unlink(legacy)
        except OSError:
            pass

    # -- writing -----------------------------------------------------------------------------

    def _write_error(self, exc: sqlite3.Error) -> DatabaseWriteError:
        code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
        return DatabaseWriteError(f"cannot write the build database ({_ENVIRONMENT.get(code, exc)})", self.path)

    def _transaction(self) -> _Tx:
        return _Tx(self)

    def suspend(self) -> str | None:
        """Before a pool forks its workers: close the writable connection (an SQLite connection
        must not cross a fork) until the next write, and return the path the workers may commit
        to with a RecordWriter (None: they must not; the build process records their targets)."""
        if self._conn is None or not self._writable or self._reader:
            return None
        self.close()
        self._suspended = True
        return self.path

    def _resume(self) -> None:
        if self._suspended:
            self._suspended = False
            try:
                self._connect("rwc")
            except sqlite3.Error as exc:
                self.close()
                raise self._write_error(exc) from exc

    def adopt(self, tid: str, record: dict) -> None:
        """A target's record that a pool worker has already committed (RecordWriter)."""
        self.targets[tid] = record
        self._dropped.discard(tid)
        self._touched.discard(tid)
        self.dirty = True

    def put(self, tid: str, record: dict) -> None:
        """Store one target's record; with a writable connection it is committed at once."""
        self.targets[tid] = record
        self._dropped.discard(tid)
        self.dirty = True
        self._resume()
        if self._conn is not None and self._writable:
            with self._transaction() as conn:
                conn.execute("INSERT OR REPLACE INTO targets VALUES (?, ?, ?)", _row(tid, record))
            self._touched.discard(tid)
        else:
            self._touched.add(tid)

    def touch(self, tid: str) -> None:
        """The record was updated in place (fresher stats); written by the next save()."""
        self._touched.add(tid)
        self.dirty = True

    def discard(self, tid: str) -> None:
        """Forget a target whatever its row holds (a pool worker that died may have committed
        one this process never saw): the next save() deletes the row, so it rebuilds."""
        self.targets.pop(tid, None)
        self._touched.discard(tid)
        self._dropped.add(tid)
        self.dirty = True

    def drop(self, tid: str) -> None:
        if self.targets.pop(tid, None) is not None:
            self._touched.discard(tid)
            self._dropped.add(tid)
            self.dirty = True

    def save(self) -> None:
        """Commit touched and dropped targets, blobs and meta in one transaction.
        A database opened read-only (a read-only output directory) is not written."""
        if not self.dirty or self._reader:
            return
        self._resume()
        if self._conn is None and self.read_only is None:   # made with BuildDB(...), not load()
            mine = (dict(self.targets), dict(self.blobs), dict(self.meta))
            self._open(writable=True)
            self.targets.update(mine[0])
            self.blobs, self.meta = mine[1], mine[2]
            for tid in self._dropped:
                self.targets.pop(tid, None)
        if self._conn is None or not self._writable:
            return
        with self._transaction() as conn:
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany("INSERT OR REPLACE INTO targets VALUES (?, ?, ?)",
                             [_row(t, self.targets[t]) for t in sorted(self._touched) if t in self.targets])
            conn.executemany("DELETE FROM targets WHERE tid = ?", [(t,) for t in sorted(self._dropped)])
            for table, store in (("blobs", self.blobs), ("meta", self.meta)):
                conn.execute(f"DELETE FROM {table}")   # noqa: S608 - fixed names; both are small
                conn.executemany(f"INSERT INTO {table} VALUES (?, ?, ?)",   # noqa: S608
                                 [_row(k, v) for k, v in sorted(store.items())])
            conn.execute("COMMIT")
        self._touched.clear()
        self._dropped.clear()
        self.dirty = False

    def close(self) -> None:
        self._suspended = False
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def remove(self) -> list[str]:
        """Delete the database files (for `clean`); returns those that existed."""
        self.close()
        return _remove_files(self.path)

    # -- queries -------------------------------------------------------------------------------

    def plugin_versions(self) -> dict[str, str]:
        """Backend versions for keys; loads the plugins only when the installed set changed."""
        fp = [list(row) for row in plugin_fingerprint()]
        cached = self.meta.get("plugins")
        if isinstance(cached, dict) and cached.get("fingerprint") == fp and isinstance(cached.get("versions"), dict):
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


class RecordWriter:
    """A pool worker's own connection to the build database (BuildDB.suspend gave the path):
    it commits each target the worker built as soon as its outputs are in place, so a killed
    build keeps every finished target and the build process commits nothing per target.
    The file must exist (mode=rw: a worker never creates one)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None

    def put(self, tid: str, record: dict) -> bool:
        """Commit one record; False when that failed (the build process then records it, and
        reports why if it cannot either)."""
        try:
            if self._conn is None:
                conn = sqlite3.connect(f"file:{quote(self.path)}?mode=rw", uri=True, isolation_level=None)
                conn.execute("PRAGMA synchronous=NORMAL")      # per connection (WAL is the file's)
                # No checkpoints here (their fsync would idle this worker, and they make the other
                # workers wait for the lock): the build process checkpoints when it saves and closes.
                conn.execute("PRAGMA wal_autocheckpoint=0")
                self._conn = conn
            self._conn.execute("INSERT OR REPLACE INTO targets VALUES (?, ?, ?)", _row(tid, record))
            return True
        except sqlite3.Error:      # (an autocommit statement that fails leaves no transaction)
            return False


class _Tx:
    """`with db._transaction() as conn`: an SQLite error rolls back and becomes a DatabaseWriteError
    (a class of its own, not one made per call: the build opens one per finished target)."""

    __slots__ = ("db",)

    def __init__(self, db: BuildDB) -> None:
        self.db = db

    def __enter__(self):
        return self.db._conn

    def __exit__(self, typ, exc, tb):
        conn = self.db._conn
        if isinstance(exc, sqlite3.Error):
            if conn is not None and conn.in_transaction:
                conn.rollback()
            raise self.db._write_error(exc) from exc
        return False


def _remove_files(path: str) -> list[str]:
    removed = []
    for p in (path, path + "-wal", path + "-shm", os.path.join(os.path.dirname(path), LEGACY_FILE)):
        try:
            os.unlink(p)
            removed.append(p)
        except FileNotFoundError:
            pass
    return removed
