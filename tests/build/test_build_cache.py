"""Cache keys and the build database."""

from __future__ import annotations

import json
import sqlite3

import pytest

from shaderbuild.build import cache, database
from shaderbuild.options import BindingShift, BindRegister, CompileOptions

# A non-default value for every CompileOptions field whose type cannot be derived below.
EXPLICIT = {
    "entry": "alt", "profile": "ps_6_6", "target": "dxil", "defines": {"B": "2", "A": "1"},
    "include_dirs": ["/x/inc", "/y"], "binding_shifts": [BindingShift("t", 200, None), BindingShift("u", 400, 3)],
    "vk_target_env": "vulkan1.3", "dxil_hash": "retail", "hlsl_version": 2018, "vk_layout": "scalar",
    "vk_bind_registers": [BindRegister("t", 1, 2, 3, 4)], "vk_bind_globals": (5, 6),
    "rootsig_define": "MY_RS", "rootsig_version": "1.0", "disabled_warnings": ["conversion"], "enabled_warnings": ["all"],
    "vk_bind_resource_heap": (3, 1), "vk_bind_sampler_heap": (4, 2), "vk_bind_counter_heap": (5, 3),
    "debug_file": "out/x.pdb",
}


def changed_value(name: str):
    """A value different from the field's default (bools flip, ints grow); others from EXPLICIT."""
    if name in EXPLICIT:
        return EXPLICIT[name]
    default = getattr(CompileOptions(), name)
    if isinstance(default, bool):
        return not default
    if isinstance(default, int):
        return default + 7
    pytest.fail(f"CompileOptions.{name} is new: add a non-default value to EXPLICIT in {__file__}")


FIELDS = [f for f in CompileOptions._fields if f not in CompileOptions._NOT_IN_CACHE_KEY]   # validate_ir: no output byte


def everything_changed() -> CompileOptions:
    opts = CompileOptions()
    for name in FIELDS:
        setattr(opts, name, changed_value(name))
    return opts


@pytest.mark.parametrize("make", [CompileOptions, everything_changed], ids=["defaults", "all-changed"])
def test_fast_option_fields_match_cache_fields(make):
    options = make()
    fast = cache.options_fields(options)
    assert json.dumps(fast, sort_keys=True) == json.dumps(options.cache_fields(), sort_keys=True)


class _T:
    backend = "spirv"
    rel = "a.hlsl"
    outputs = {"binary": "/out/a.spv"}

    def __init__(self, options):
        self.options = options


def _digest(options) -> str:
    return cache.config_digest(cache.key_parts(_T(options), {"spirv": "1"}, "/p", "/out"))


@pytest.mark.parametrize("name", FIELDS)
def test_every_option_field_changes_the_config_digest(name):
    opts = CompileOptions()
    setattr(opts, name, changed_value(name))
    assert _digest(opts) != _digest(CompileOptions())


def test_unexpected_option_types_fall_back_to_cache_fields(monkeypatch):
    monkeypatch.setattr(CompileOptions, "cache_fields", lambda self: {"from": "cache_fields"})
    opts = CompileOptions()
    assert cache.options_fields(opts)["entry"] == "main"          # plain values: the fast path
    opts.include_dirs = [object()]                                 # not JSON-shaped: it must not guess
    assert cache.options_fields(opts) == {"from": "cache_fields"}


def test_portable_paths():
    assert cache.portable("/p/shaders/a.hlsl", "/p") == "shaders/a.hlsl"
    assert cache.portable("/p2/a.hlsl", "/p") == "/p2/a.hlsl"
    assert cache.portable("/usr/include/x.h", "/p/") == "/usr/include/x.h"


def test_full_key_depends_on_content_not_stats():
    deps = [["a.hlsl", 1, 2, 3, "aa"], ["b.hlsli", 4, 5, 6, "bb"]]
    same_content_other_stats = [["b.hlsli", 9, 9, 9, "bb"], ["a.hlsl", 7, 7, 7, "aa"]]
    assert cache.full_key("c", deps) == cache.full_key("c", same_content_other_stats)
    assert cache.full_key("c", deps) != cache.full_key("c", [deps[0], ["b.hlsli", 4, 5, 6, "bc"]])
    assert cache.full_key("c", deps) != cache.full_key("d", deps)


RECORD = {"name": "x", "config": "c", "parts": {}, "key": "k", "deps": [["a.hlsl", 1, 2, 3, "aa"]],
          "outputs": {"binary": ["out/a.spv", 4, 5, 6, "bb"]}, "dirs": [["shaders", 7]], "resources": None,
          "reason": []}


def test_database_round_trip_and_unknown_format(tmp_path):
    db = cache.BuildDB(str(tmp_path), str(tmp_path))
    db.put("t1", RECORD)
    db.save()
    db.close()
    assert cache.BuildDB.load(str(tmp_path), str(tmp_path)).targets == {"t1": RECORD}
    path = tmp_path / ".shaderbuild" / database.DB_FILE
    path.write_bytes(b"not a database at all" * 100)
    db = cache.BuildDB.load(str(tmp_path), str(tmp_path), writable=True)
    assert db.targets == {} and str(path) in db.load_warning and "rebuilding everything" in db.load_warning
    db.close()
    assert cache.BuildDB.load(str(tmp_path), str(tmp_path), writable=True).load_warning is None   # reported once


def _sqlite(path, script: str) -> None:
    conn = sqlite3.connect(path)
    conn.executescript(script)
    conn.commit()
    conn.close()


def test_a_foreign_or_other_version_database_is_reported_once_and_replaced(tmp_path):
    path = tmp_path / ".shaderbuild" / database.DB_FILE
    path.parent.mkdir()
    _sqlite(path, "CREATE TABLE targets(x); INSERT INTO targets VALUES (1);")   # some other program's file
    db = database.BuildDB.load(str(tmp_path), str(tmp_path), writable=True)
    assert "is not a shaderbuild build database" in db.load_warning and str(path) in db.load_warning
    db.put("t1", RECORD)
    db.close()
    _sqlite(path, f"PRAGMA user_version={database.SCHEMA_VERSION + 1};")
    db = database.BuildDB.load(str(tmp_path), str(tmp_path), writable=True)
    assert db.targets == {} and f"schema version {database.SCHEMA_VERSION + 1}" in db.load_warning
    db.close()
    assert database.BuildDB.load(str(tmp_path), str(tmp_path)).load_warning is None


def test_records_of_the_wrong_shape_or_with_a_bad_checksum_are_dropped_alone(tmp_path):
    db = database.BuildDB.load(str(tmp_path), str(tmp_path), writable=True)
    for tid in ("good", "shape", "crc"):
        db.put(tid, RECORD)
    db.close()
    path = str(tmp_path / ".shaderbuild" / database.DB_FILE)
    conn = sqlite3.connect(path)
    bad = {**RECORD, "resources": "u0"}     # valid JSON, right checksum, wrong shape
    conn.execute("UPDATE targets SET crc = ?, record = ? WHERE tid = 'shape'", database._row("shape", bad)[1:])
    conn.execute("UPDATE targets SET record = replace(record, 'a.hlsl', 'b.hlsl') WHERE tid = 'crc'")
    conn.commit()
    conn.close()
    assert database.BuildDB.load(str(tmp_path), str(tmp_path)).targets.keys() == {"good"}   # a reader only reads
    db = database.BuildDB.load(str(tmp_path), str(tmp_path), writable=True)
    assert db.targets == {"good": RECORD} and "2 damaged record(s) dropped" in db.load_warning
    db.close()
    assert database.BuildDB.load(str(tmp_path), str(tmp_path), writable=True).load_warning is None


def test_the_json_database_of_earlier_versions_is_imported_once_and_removed(tmp_path):
    legacy = tmp_path / ".shaderbuild" / "db.json"
    legacy.parent.mkdir()
    legacy.write_text(json.dumps({"format": "shaderbuild.db/1", "meta": {},
                                  "targets": {"t1": RECORD, "t2": {"name": 5}, "t3": []}, "blobs": {"b": 1}}))
    db = database.BuildDB.load(str(tmp_path), str(tmp_path), writable=True)
    db.close()
    assert not legacy.exists()
    assert database.BuildDB.load(str(tmp_path), str(tmp_path)).targets == {"t1": RECORD}


def test_readers_see_the_records_of_a_killed_build(tmp_path):
    """SIGKILL leaves committed rows in the WAL; a read-only connection cannot replay it
    (SQLITE_READONLY_RECOVERY), which made `list`/`explain` report the database unreadable
    (found by bench/build_faults.py)."""
    import signal
    import subprocess
    import sys

    script = (f"import os, signal\nfrom shaderbuild.build import database\n"
              f"db = database.BuildDB.load({str(tmp_path)!r}, {str(tmp_path)!r}, writable=True)\n"
              f"for i in range(20):\n    db.put(f't{{i}}', {RECORD!r})\n"
              "os.kill(os.getpid(), signal.SIGKILL)\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert (tmp_path / ".shaderbuild" / (database.DB_FILE + "-wal")).exists()
    db = database.BuildDB.load(str(tmp_path), str(tmp_path))
    assert db.load_warning is None and len(db.targets) == 20


def test_readers_see_the_records_behind_a_hot_journal(tmp_path):
    """A process killed inside a rollback-journal transaction (as when switching a new file to WAL)
    leaves a hot journal that a read-only connection cannot roll back: `list`/`explain` called
    the database unreadable (found by bench/build_faults.py, kill-main #54 of seed 2)."""
    import signal
    import subprocess
    import sys

    db = database.BuildDB.load(str(tmp_path), str(tmp_path), writable=True)
    db.put("t1", RECORD)
    db.close()
    path = tmp_path / ".shaderbuild" / database.DB_FILE
    script = ("import os, signal, sqlite3\n"
              f"conn = sqlite3.connect({str(path)!r}, isolation_level=None)\n"
              "conn.execute('PRAGMA journal_mode=DELETE'); conn.execute('PRAGMA cache_size=1')\n"
              "conn.execute('BEGIN')\n"
              "for i in range(2000):\n"
              "    conn.execute('INSERT INTO targets VALUES (?, 0, ?)', (f'x{i}', 'y' * 500))\n"
              "os.kill(os.getpid(), signal.SIGKILL)\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert (tmp_path / ".shaderbuild" / (database.DB_FILE + "-journal")).exists()
    db = database.BuildDB.load(str(tmp_path), str(tmp_path))
    assert db.load_warning is None and db.targets == {"t1": RECORD}


def test_readers_never_create_the_database(tmp_path):
    db = database.BuildDB.load(str(tmp_path), str(tmp_path))
    assert db.targets == {} and db.load_warning is None
    assert not (tmp_path / ".shaderbuild").exists()


def test_plugin_versions_are_cached_by_installed_plugin_set(tmp_path, monkeypatch):
    db = cache.BuildDB(str(tmp_path), str(tmp_path))
    versions = db.plugin_versions()
    assert set(versions) >= {"spirv"}
    calls = []
    import shaderbuild.plugin as plugin_pkg

    monkeypatch.setattr(plugin_pkg, "get_host", lambda: calls.append(1))
    assert db.plugin_versions() == versions and calls == []      # same fingerprint: no plugin import
    db.meta["plugins"]["fingerprint"] = [["spirv", "x", "y", "0"]]
    monkeypatch.setattr(plugin_pkg, "get_host", lambda: type("H", (), {"backend_versions": lambda self: {"z": "1"}})())
    assert db.plugin_versions() == {"z": "1"}
