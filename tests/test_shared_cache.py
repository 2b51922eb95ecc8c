"""The shared content-addressed cache (shaderbuild/build/remote_cache.py) and its use by builds.

A real redis-server is started on a free loopback port for this module and stopped
after it; the directory store is tested the same way on a temp directory.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from pathlib import Path

import pytest

from shaderbuild.build.config import ConfigFileError, load_project
from shaderbuild.build.database import BuildDB
from shaderbuild.build.distributed_config import (
    CacheSettings,
    ExecutorSettings,
    open_cache,
    open_executor,
    settings_for,
)
from shaderbuild.build.executors.backends import InlineBackend
from shaderbuild.build.executors.runner import RemoteExecutor
from shaderbuild.build.remote_cache import (
    REDIS_PREFIX,
    CacheEntry,
    DirectoryStore,
    SharedCache,
    decode_entry,
    encode_entry,
    open_store,
)
from shaderbuild.build.scheduler import build

_spec = importlib.util.spec_from_file_location(
    "distributed_bench", Path(__file__).resolve().parents[1] / "bench" / "distributed_bench.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

N_TARGETS = 40


def outputs_of(root: Path) -> dict[str, bytes]:
    out = root / "out"
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and ".shaderbuild" not in p.parts}


class NoCompile:
    """A backend that must never be used: proves a build compiled nothing."""

    name = "forbidden"

    def submit(self, inp):
        raise AssertionError(f"compiled {inp.name} although the shared cache has it")

    def slots(self):
        return 1

    def cancel(self, futures):
        pass

    def close(self):
        pass


def cached_build(root: Path, cache: SharedCache, backend=None):
    with RemoteExecutor(backend or InlineBackend(), cache, str(root)) as ex:
        report = build(load_project(str(root)), quiet=True, executor=ex)
    return report, ex.stats


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed (Debian package redis-server)")
    pytest.importorskip("redis")
    with bench.RedisServer(tmp_path_factory.mktemp("redis")) as server:
        yield server.url


@pytest.fixture(scope="module")
def source_tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("src") / "proj"
    assert bench.write_project(root, N_TARGETS) == N_TARGETS
    return root


def checkout(source_tree: Path, tmp_path: Path, name: str) -> Path:
    dest = tmp_path / name
    shutil.copytree(source_tree, dest)
    return dest


# --- entries ---------------------------------------------------------------------------------


def sample_entry(key: str = "ab" * 32) -> CacheEntry:
    return CacheEntry(key, {"binary": bytes(range(256)) * 3, "disassembly": b"; text\n"},
                      {"source": "k.hlsl", "resources": []}, "warning: x", [{"severity": "warning"}],
                      [["Out", "u0"]], ["shaders/k.hlsl"])


def test_entry_round_trip():
    e = sample_entry()
    assert decode_entry(encode_entry(e), e.key) == e


def test_every_truncation_and_bit_flip_is_a_miss():
    e = sample_entry()
    data = encode_entry(e)
    for n in range(len(data)):
        assert decode_entry(data[:n], e.key) is None
    for pos in range(0, len(data), 7):
        broken = bytearray(data)
        broken[pos] ^= 0x10
        assert decode_entry(bytes(broken), e.key) is None, pos
    assert decode_entry(data + b"\0", e.key) is None


def test_entry_under_another_key_is_a_miss():
    e = sample_entry()
    assert decode_entry(encode_entry(e), "cd" * 32) is None


def test_directory_store_and_tiers(tmp_path):
    local, shared = DirectoryStore(str(tmp_path / "l")), DirectoryStore(str(tmp_path / "s"))
    e = sample_entry()
    SharedCache(shared, mode="read-write").store(e)
    dev = SharedCache(shared, local=local, mode="read")
    assert dev.lookup(e.key) == e
    assert local.get(e.key) == shared.get(e.key)          # shared hit copied to the local tier
    e2 = sample_entry("ef" * 32)
    dev.store(e2)                                           # read-only: local tier only
    assert local.get(e2.key) is not None and shared.get(e2.key) is None
    Path(shared.path(e.key)).write_bytes(shared.get(e.key)[:-1])
    Path(local.path(e.key)).unlink()
    assert dev.lookup(e.key) is None and dev.stats.corrupt == 1
    assert shared.get(e.key) is not None                    # a read-only client never deletes shared entries
    assert not list((tmp_path / "s").rglob(".tmp-*"))


def test_open_store_kinds(tmp_path):
    assert isinstance(open_store(str(tmp_path)), DirectoryStore)
    assert isinstance(open_store(f"file://{tmp_path}"), DirectoryStore)
    assert type(open_store("redis://127.0.0.1:1/0")).__name__ == "RedisStore"


# --- builds against the shared cache ------------------------------------------------------------


def test_second_checkout_compiles_nothing(redis_url, source_tree, tmp_path, monkeypatch):
    ci = checkout(source_tree, tmp_path, "ci")
    rep, stats = cached_build(ci, SharedCache(open_store(redis_url), mode="read-write"))
    assert rep.ok and len(rep.built) == N_TARGETS and stats.compiled == N_TARGETS and stats.cache_hits == 0

    dev = checkout(source_tree, tmp_path, "dev")
    monkeypatch.chdir(dev)   # manifests name the source relative to the developer's working directory
    rep, stats = cached_build(dev, SharedCache(open_store(redis_url), mode="read"), NoCompile())
    assert rep.ok and len(rep.built) == N_TARGETS
    assert stats.cache_hits == N_TARGETS and stats.compiled == 0
    a, b = outputs_of(ci), outputs_of(dev)
    assert a.keys() == b.keys() and len(a) == 2 * N_TARGETS + 1
    for name in a:
        if name.endswith(".json") and name != "index.json":
            ma, mb = json.loads(a[name]), json.loads(b[name])
            assert mb["source"].startswith("shaders/k") and ma["source"] == mb["source"].split("/")[-1]
            ma["source"] = mb["source"]
            assert ma == mb
        else:
            assert a[name] == b[name], name
    # The build database is complete: a rebuild is a no-op, editing an include rebuilds (a miss).
    rep, _ = cached_build(dev, SharedCache(open_store(redis_url), mode="read"), NoCompile())
    assert len(rep.up_to_date) == N_TARGETS and not rep.built
    (dev / "shaders" / "common.hlsli").write_text("#define BIAS 4\n")
    rep, stats = cached_build(dev, SharedCache(open_store(redis_url), mode="read"))
    assert rep.ok and stats.compiled == N_TARGETS and stats.cache_hits == 0


def test_read_only_mode_writes_nothing_to_the_shared_store(redis_url, source_tree, tmp_path):
    import redis

    client = redis.Redis.from_url(redis_url)
    dev = checkout(source_tree, tmp_path, "dev")
    (dev / "shaders" / "common.hlsli").write_text("#define BIAS 11\n")
    before = set(client.keys(REDIS_PREFIX + "*"))
    local = tmp_path / "local-cache"
    rep, stats = cached_build(dev, SharedCache(open_store(redis_url), local=DirectoryStore(str(local)), mode="read"))
    assert rep.ok and stats.compiled == N_TARGETS
    assert set(client.keys(REDIS_PREFIX + "*")) == before
    assert len(list(local.rglob("*"))) >= N_TARGETS        # ...but the developer's local tier has them


def test_corrupted_entries_are_detected_and_rebuilt(redis_url, source_tree, tmp_path):
    import redis

    client = redis.Redis.from_url(redis_url)
    ci = checkout(source_tree, tmp_path, "ci")
    cached_build(ci, SharedCache(open_store(redis_url), mode="read-write"))
    reference = outputs_of(ci)
    keys = sorted(client.keys(REDIS_PREFIX + "*"))
    assert len(keys) >= N_TARGETS
    db = BuildDB.load(str(ci / "out"), str(ci))
    ours = {rec["key"] for rec in db.targets.values()}
    mine = [k for k in keys if k.decode()[len(REDIS_PREFIX):] in ours]
    assert len(mine) == N_TARGETS               # the cache keys are the build engine's keys
    flipped, truncated = mine[3], mine[7]
    value = bytearray(client.get(flipped))
    value[-10] ^= 0x01                          # one bit inside the stored binary: only the hashes can tell
    client.set(flipped, bytes(value))
    client.set(truncated, client.get(truncated)[:-20])

    again = checkout(source_tree, tmp_path, "again")
    rep, stats = cached_build(again, SharedCache(open_store(redis_url), mode="read-write"))
    assert rep.ok and len(rep.built) == N_TARGETS
    assert stats.compiled == 2 and stats.cache_hits == N_TARGETS - 2 and stats.corrupt == 2
    assert "2 corrupt cache entries ignored" in stats.summary()
    assert outputs_of(again) == reference
    for key in (flipped, truncated):            # rebuilt entries replaced the corrupt ones
        assert decode_entry(client.get(key), key.decode()[len(REDIS_PREFIX):]) is not None


def test_shared_directory_cache_between_checkouts(source_tree, tmp_path):
    share = tmp_path / "share"
    ci = checkout(source_tree, tmp_path, "ci")
    project = load_project(str(ci))
    with open_executor(project, ExecutorSettings("local", workers=2),       # a local process pool
                       CacheSettings(shared=str(share), mode="read-write")) as ex:
        rep = build(project, quiet=True, executor=ex)
    assert rep.ok and ex.stats.compiled == N_TARGETS
    assert ex.stats.workers and f"pid {os.getpid()}" not in ex.stats.workers     # compiled in other processes
    victim = sorted(p for p in share.rglob("*") if p.is_file())[5]
    victim.write_bytes(victim.read_bytes()[:100])
    dev = checkout(source_tree, tmp_path, "dev")
    rep, stats = cached_build(dev, SharedCache(DirectoryStore(str(share)), mode="read"))
    assert rep.ok and stats.cache_hits == N_TARGETS - 1 and stats.compiled == 1
    assert outputs_of(dev) == outputs_of(ci)


def test_disassembly_requested_but_not_cached_is_a_miss(source_tree, tmp_path):
    share = SharedCache(DirectoryStore(str(tmp_path / "share")), mode="read-write")
    ci = checkout(source_tree, tmp_path, "ci")
    cached_build(ci, share)
    dis = checkout(source_tree, tmp_path, "dis")
    toml = dis / "shaderbuild.toml"
    toml.write_text(toml.read_text().replace('include_dirs = ["shaders"]',
                                             'include_dirs = ["shaders"]\noutputs = ["disassembly", "header"]'))
    rep, stats = cached_build(dis, share)
    assert rep.ok and stats.compiled == N_TARGETS                 # output paths are part of the key
    dis2 = checkout(source_tree, tmp_path, "dis2")
    shutil.copy(toml, dis2 / "shaderbuild.toml")
    rep, stats = cached_build(dis2, share, NoCompile())
    assert stats.cache_hits == N_TARGETS and outputs_of(dis2) == outputs_of(dis)
    plain = checkout(source_tree, tmp_path, "plain")       # the local executor, no cache
    shutil.copy(toml, plain / "shaderbuild.toml")
    assert build(load_project(str(plain)), jobs=1, quiet=True).ok
    assert outputs_of(plain) == outputs_of(dis2)
    names = outputs_of(dis2)
    assert sum(n.endswith(".dis") for n in names) == N_TARGETS and sum(n.endswith(".h") for n in names) == N_TARGETS


# --- configuration ------------------------------------------------------------------------------


def test_cache_and_executor_tables_in_the_project_file(source_tree, tmp_path, monkeypatch):
    proj = checkout(source_tree, tmp_path, "p")
    toml = proj / "shaderbuild.toml"
    base = toml.read_text()
    toml.write_text(base + '\n[executor]\nkind = "dask"\naddress = "tcp://127.0.0.1:8786"\nretries = 3\n'
                    '[cache]\ndir = "cache"\nshared = "redis://127.0.0.1:6379/2"\nmode = "read-write"\n')
    project = load_project(str(proj))
    ex, cs = settings_for(project)
    assert (ex.kind, ex.address, ex.retries) == ("dask", "tcp://127.0.0.1:8786", 3)
    assert cs == CacheSettings(str(proj / "cache"), "redis://127.0.0.1:6379/2", "read-write")
    monkeypatch.chdir(tmp_path)
    ex, cs = settings_for(project, executor="local", cache="share", cache_mode="read")
    assert (ex.kind, ex.address, cs.shared, cs.mode) == ("local", None, str(tmp_path / "share"), "read")
    _, cs = settings_for(project, cache="off")
    assert not cs.enabled and open_cache(cs) is None
    ex, _ = settings_for(project, executor="dask=tcp://10.1.2.3:9000")
    assert ex.address == "tcp://10.1.2.3:9000"
    toml.write_text(base + '\n[cache]\nmode = "sometimes"\n[executor]\nkind = "cloud"\n')
    with pytest.raises(ConfigFileError) as err:
        load_project(str(proj))
    text = str(err.value)
    assert "cache.mode" in text and "executor.kind" in text


def test_executor_arg_validation():
    from shaderbuild.build.distributed_config import parse_executor_arg

    assert parse_executor_arg("dask") == ("dask", None)
    assert parse_executor_arg("dask=tcp://h:1") == ("dask", "tcp://h:1")
    for bad in ("ray", "local=tcp://h:1", ""):
        with pytest.raises(ValueError):
            parse_executor_arg(bad)


def test_cli_build_with_cache(source_tree, tmp_path, capsys):
    from shaderbuild.build_cli import main

    share = tmp_path / "share"
    ci = checkout(source_tree, tmp_path, "ci")
    assert main(["build", str(ci), "-j", "1", "--cache", str(share), "--cache-mode", "read-write", "-q"]) == 0
    assert f"0 from cache, {N_TARGETS} compiled" in capsys.readouterr().err
    dev = checkout(source_tree, tmp_path, "dev")
    assert main(["build", str(dev), "-j", "1", "--cache", str(share), "-q"]) == 0
    err = capsys.readouterr().err
    assert f"{N_TARGETS} from cache, 0 compiled" in err and "read-only" in err
    assert outputs_of(dev) == outputs_of(ci)
    with pytest.raises(SystemExit):
        main(["build", str(dev), "--executor", "ray"])


def test_cli_uses_the_project_file_cache_table(redis_url, source_tree, tmp_path, capsys):
    from shaderbuild.build_cli import main

    ci, dev = checkout(source_tree, tmp_path, "ci"), checkout(source_tree, tmp_path, "dev")
    for root in (ci, dev):
        with open(root / "shaderbuild.toml", "a") as f:
            f.write(f'\n[cache]\nshared = "{redis_url}"\ndir = ".cache"\n')
    (ci / "shaders" / "common.hlsli").write_text("#define BIAS 21\n")     # keys nobody has built yet
    (dev / "shaders" / "common.hlsli").write_text("#define BIAS 21\n")
    assert main(["build", str(ci), "-j", "1", "--cache-mode", "read-write", "-q"]) == 0
    assert f"0 from cache, {N_TARGETS} compiled" in capsys.readouterr().err
    assert main(["build", str(dev), "-j", "1", "-q"]) == 0                  # the file's mode: read
    err = capsys.readouterr().err
    assert f"{N_TARGETS} from cache, 0 compiled" in err and f"redis {redis_url} (read-only)" in err
    assert any((dev / ".cache").rglob("*"))                                 # the local tier was filled
    assert outputs_of(dev) == outputs_of(ci)


def test_unreachable_redis_is_a_miss_not_a_failure(source_tree, tmp_path):
    pytest.importorskip("redis")
    dead = open_store(f"redis://127.0.0.1:{bench.free_port()}/0")     # nothing listens there
    proj = checkout(source_tree, tmp_path, "p")
    rep, stats = cached_build(proj, SharedCache(dead, mode="read-write"))
    assert rep.ok and stats.compiled == N_TARGETS and stats.cache_hits == 0
    assert dead.error and "unavailable" in dead.describe()            # marked down after the first error


ODD_FIELDS = {
    "resources_as_a_string": lambda e: setattr(e, "resources", "u0"),
    "resource_rows_not_pairs": lambda e: setattr(e, "resources", [[1, 2, 3]]),
    "non_utf8_disassembly": lambda e: e.files.__setitem__("disassembly", b"\xff\xfe; not utf-8"),
    "messages_not_text": lambda e: setattr(e, "messages", {"x": 1}),
    "deps_not_paths": lambda e: setattr(e, "deps", [None]),
    "diagnostics_not_objects": lambda e: setattr(e, "diagnostics", ["warning"]),
}


@pytest.mark.parametrize("case", sorted(ODD_FIELDS))
def test_well_formed_entries_with_odd_fields_are_counted_misses(redis_url, source_tree, tmp_path, case):
    """Intact (checksummed) entries whose fields have the wrong shape crashed the client; they are
    held to the schema of local records now (issue 21, item 12)."""
    import redis

    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    ci = checkout(source_tree, tmp_path, "ci")
    (ci / "shaderbuild.toml").write_text((ci / "shaderbuild.toml").read_text().replace(
        "targets =", 'outputs = ["disassembly"]\ntargets =', 1))
    cached_build(ci, SharedCache(open_store(redis_url), mode="read-write"))
    reference = outputs_of(ci)
    keys = client.keys(REDIS_PREFIX + "*")
    assert len(keys) >= N_TARGETS
    for k in keys:
        entry = decode_entry(client.get(k), k.decode()[len(REDIS_PREFIX):])
        ODD_FIELDS[case](entry)
        client.set(k, encode_entry(entry))
    dev = checkout(source_tree, tmp_path, "dev")
    (dev / "shaderbuild.toml").write_text((ci / "shaderbuild.toml").read_text())
    report, stats = cached_build(dev, SharedCache(open_store(redis_url), mode="read"))
    assert report.ok and not report.mismatches and not report.warnings
    assert stats.cache_hits == 0 and stats.corrupt == len(keys)
    assert outputs_of(dev) == reference
