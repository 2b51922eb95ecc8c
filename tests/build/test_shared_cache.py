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

from shaderbuild.build import cache_auth
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
    "distributed_bench", Path(__file__).resolve().parents[2] / "bench" / "distributed_bench.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

N_TARGETS = 40
KEY = b"test cache key 0123456789"     # what CI and developers share (cache_auth.py)


@pytest.fixture(autouse=True)
def cache_key(monkeypatch):
    """Builds through open_cache/the CLI read the key from the environment, as in CI."""
    monkeypatch.setenv("SHADERBUILD_CACHE_KEY", KEY.decode())
    monkeypatch.delenv("SHADERBUILD_CACHE_MODE", raising=False)


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
    SharedCache(shared, mode="read-write", key=KEY).store(e)
    dev = SharedCache(shared, local=local, mode="read", key=KEY)
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
    rep, stats = cached_build(ci, SharedCache(open_store(redis_url), mode="read-write", key=KEY))
    assert rep.ok and len(rep.built) == N_TARGETS and stats.compiled == N_TARGETS and stats.cache_hits == 0

    dev = checkout(source_tree, tmp_path, "dev")
    monkeypatch.chdir(dev)   # manifests name the source relative to the developer's working directory
    rep, stats = cached_build(dev, SharedCache(open_store(redis_url), mode="read", key=KEY), NoCompile())
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
    rep, _ = cached_build(dev, SharedCache(open_store(redis_url), mode="read", key=KEY), NoCompile())
    assert len(rep.up_to_date) == N_TARGETS and not rep.built
    (dev / "shaders" / "common.hlsli").write_text("#define BIAS 4\n")
    rep, stats = cached_build(dev, SharedCache(open_store(redis_url), mode="read", key=KEY))
    assert rep.ok and stats.compiled == N_TARGETS and stats.cache_hits == 0


def test_read_only_mode_writes_nothing_to_the_shared_store(redis_url, source_tree, tmp_path):
    import redis

    client = redis.Redis.from_url(redis_url)
    dev = checkout(source_tree, tmp_path, "dev")
    (dev / "shaders" / "common.hlsli").write_text("#define BIAS 11\n")
    before = set(client.keys(REDIS_PREFIX + "*"))
    local = tmp_path / "local-cache"
    rep, stats = cached_build(dev, SharedCache(open_store(redis_url), local=DirectoryStore(str(local)), mode="read", key=KEY))
    assert rep.ok and stats.compiled == N_TARGETS
    assert set(client.keys(REDIS_PREFIX + "*")) == before
    assert len(list(local.rglob("*"))) >= N_TARGETS        # ...but the developer's local tier has them


def test_corrupted_entries_are_detected_and_rebuilt(redis_url, source_tree, tmp_path):
    import redis

    client = redis.Redis.from_url(redis_url)
    ci = checkout(source_tree, tmp_path, "ci")
    cached_build(ci, SharedCache(open_store(redis_url), mode="read-write", key=KEY))
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
    rep, stats = cached_build(again, SharedCache(open_store(redis_url), mode="read-write", key=KEY))
    assert rep.ok and len(rep.built) == N_TARGETS
    assert stats.compiled == 2 and stats.cache_hits == N_TARGETS - 2 and stats.corrupt == 2
    assert "2 corrupt cache entries ignored" in stats.summary()
    assert outputs_of(again) == reference
    for key in (flipped, truncated):            # rebuilt entries replaced the corrupt ones
        assert decode_entry(cache_auth.split(client.get(key))[1], key.decode()[len(REDIS_PREFIX):]) is not None


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
    rep, stats = cached_build(dev, SharedCache(DirectoryStore(str(share)), mode="read", key=KEY))
    assert rep.ok and stats.cache_hits == N_TARGETS - 1 and stats.compiled == 1
    assert outputs_of(dev) == outputs_of(ci)


def test_disassembly_requested_but_not_cached_is_a_miss(source_tree, tmp_path):
    share = SharedCache(DirectoryStore(str(tmp_path / "share")), mode="read-write", key=KEY)
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
    rep, stats = cached_build(proj, SharedCache(dead, mode="read-write", key=KEY))
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
    cached_build(ci, SharedCache(open_store(redis_url), mode="read-write", key=KEY))
    reference = outputs_of(ci)
    keys = client.keys(REDIS_PREFIX + "*")
    assert len(keys) >= N_TARGETS
    for k in keys:                 # written by a holder of the key: sealed, but odd inside
        name = k.decode()[len(REDIS_PREFIX):]
        _tag, body = cache_auth.split(client.get(k))
        entry = decode_entry(body, name)
        ODD_FIELDS[case](entry)
        client.set(k, cache_auth.seal(KEY, name, encode_entry(entry)))
    dev = checkout(source_tree, tmp_path, "dev")
    (dev / "shaderbuild.toml").write_text((ci / "shaderbuild.toml").read_text())
    report, stats = cached_build(dev, SharedCache(open_store(redis_url), mode="read", key=KEY))
    assert report.ok and not report.mismatches and not report.warnings
    assert stats.cache_hits == 0 and stats.corrupt == len(keys)
    assert outputs_of(dev) == reference


# --- issue 21 item 1: authenticated entries; item 4: cached text is not terminal commands ----------


def _checkout(source_tree: Path, tmp_path: Path, name: str, bias: int) -> Path:
    """A checkout whose keys no other test has stored (the Redis server is shared by the module)."""
    root = checkout(source_tree, tmp_path, name)
    (root / "shaders" / "common.hlsli").write_text(f"#define BIAS {bias}\n")
    return root


def _ci_fill(source_tree: Path, tmp_path: Path, store, bias: int = 3) -> tuple[Path, dict[str, bytes]]:
    ci = _checkout(source_tree, tmp_path, "ci", bias)
    rep, stats = cached_build(ci, SharedCache(store, mode="read-write", key=KEY))
    assert rep.ok and stats.compiled == N_TARGETS
    return ci, outputs_of(ci)


def _keys(store) -> list[str]:
    if isinstance(store, DirectoryStore):
        return sorted(p.name for p in Path(store.root).rglob("*") if p.is_file())
    import redis

    client = redis.Redis.from_url(store.url)
    return sorted(k.decode()[len(REDIS_PREFIX):] for k in client.keys(REDIS_PREFIX + "*"))


def _entry(store, key: str) -> CacheEntry:
    tag, body = cache_auth.split(store.get(key))
    return decode_entry(body, key)


def _forge(store, ci: Path) -> list[str]:
    """What someone with write access but without the key can do: replace two real entries with
    well-formed ones (valid sha256 values) whose binary is 17 zero bytes, one unsealed, one sealed
    with a key of their own."""
    db = BuildDB.load(str(ci / "out"), str(ci))
    ours = sorted(rec["key"] for rec in db.targets.values())
    db.close()
    victims = ours[2], ours[5]
    for i, key in enumerate(victims):
        e = _entry(store, key)
        e.files["binary"] = bytes(17)
        data = encode_entry(e)
        store.put(key, data if i == 0 else cache_auth.seal(b"attacker's own key 0123", key, data))
    return list(victims)


@pytest.mark.parametrize("kind", ["directory", "redis"])
def test_forged_entries_are_ignored_counted_and_rebuilt(kind, source_tree, tmp_path, request):
    """Before: the forged 17-byte 'binary' was shipped and the build exited 0."""
    store = DirectoryStore(str(tmp_path / "share")) if kind == "directory" \
        else open_store(request.getfixturevalue("redis_url"))
    ci, reference = _ci_fill(source_tree, tmp_path, store, bias=31)
    _forge(store, ci)
    dev = _checkout(source_tree, tmp_path, "dev", 31)
    rep, stats = cached_build(dev, SharedCache(store, mode="read", key=KEY))
    assert rep.ok and stats.unauthenticated == 2 and stats.compiled == 2 and stats.cache_hits == N_TARGETS - 2
    assert "2 unauthenticated cache entries ignored" in stats.summary()
    assert outputs_of(dev) == reference
    assert not any(data == bytes(17) for data in outputs_of(dev).values())
    # --verify does not bring them back either: the rebuilt outputs are what the database holds
    rep = build(load_project(str(dev)), quiet=True, verify=True)
    assert rep.ok and not rep.built


def test_an_entry_sealed_with_another_key_is_not_trusted(tmp_path):
    store = DirectoryStore(str(tmp_path / "s"))
    e = sample_entry()
    SharedCache(store, mode="read-write", key=b"the other team's key 0123").store(e)
    ours = SharedCache(store, mode="read", key=KEY)
    assert ours.lookup(e.key) is None and ours.stats.unauthenticated == 1 and ours.stats.corrupt == 0
    SharedCache(store, mode="read-write", key=KEY).store(e)
    assert ours.lookup(e.key) == e


def test_every_flip_of_a_sealed_entry_is_a_miss():
    e = sample_entry()
    data = cache_auth.seal(KEY, e.key, encode_entry(e))
    cache = SharedCache(None, mode="read", key=KEY)
    for pos in range(0, len(data), 5):
        broken = bytearray(data)
        broken[pos] ^= 0x04
        assert cache._open(bytes(broken), e.key) in (None, False), pos
    assert cache._open(data, e.key) == e


def test_without_a_key_the_cache_is_not_used(source_tree, tmp_path, monkeypatch, capsys):
    from shaderbuild.build_cli import main

    monkeypatch.delenv("SHADERBUILD_CACHE_KEY")
    store = DirectoryStore(str(tmp_path / "share"))
    keyless = SharedCache(store, mode="read-write")
    keyless.store(sample_entry())
    assert _keys(store) == [] and keyless.lookup(sample_entry().key) is None
    proj = checkout(source_tree, tmp_path, "p")
    assert main(["build", str(proj), "-j", "1", "--cache", str(tmp_path / "share"), "--cache-mode", "read-write",
                 "-q"]) == 0
    err = capsys.readouterr().err
    assert "not used: no cache key" in err and f"0 from cache, {N_TARGETS} compiled" in err
    assert _keys(store) == []


def test_key_file_option_and_mode_environment(source_tree, tmp_path, monkeypatch, capsys):
    from shaderbuild.build_cli import main

    monkeypatch.delenv("SHADERBUILD_CACHE_KEY")
    key_file = tmp_path / "cache.key"
    key_file.write_text(KEY.decode() + "\n")
    share = tmp_path / "share"
    ci = checkout(source_tree, tmp_path, "ci")
    monkeypatch.setenv("SHADERBUILD_CACHE_MODE", "read-write")       # CI's environment
    assert main(["build", str(ci), "-j", "1", "--cache", str(share), "--cache-key-file", str(key_file), "-q"]) == 0
    assert f"0 from cache, {N_TARGETS} compiled" in capsys.readouterr().err
    assert len(_keys(DirectoryStore(str(share)))) == N_TARGETS
    monkeypatch.delenv("SHADERBUILD_CACHE_MODE")
    dev = checkout(source_tree, tmp_path, "dev")
    assert main(["build", str(dev), "-j", "1", "--cache", str(share), "--cache-key-file", str(key_file), "-q"]) == 0
    err = capsys.readouterr().err
    assert f"{N_TARGETS} from cache, 0 compiled" in err and "read-only" in err
    short = tmp_path / "short.key"
    short.write_text("tiny")
    with pytest.raises(SystemExit) as exc:
        main(["build", str(dev), "--cache", str(share), "--cache-key-file", str(short), "--force"])
    assert "at least 16" in str(exc.value)


def test_force_never_reads_the_cache(source_tree, tmp_path):
    """Before: --force made every target stale and then served each one from the cache again."""
    store = DirectoryStore(str(tmp_path / "share"))
    _ci_fill(source_tree, tmp_path, store)
    dev = _checkout(source_tree, tmp_path, "dev", 3)
    with RemoteExecutor(InlineBackend(), SharedCache(store, mode="read", key=KEY), str(dev)) as ex:
        rep = build(load_project(str(dev)), quiet=True, executor=ex, force=True)
    assert rep.ok and ex.stats.cache_hits == 0 and ex.stats.compiled == N_TARGETS


def test_cached_messages_cannot_drive_the_terminal(source_tree, tmp_path):
    """An entry's warnings come from another machine: ESC/CSI/BEL/CR are printed escaped (item 4)."""
    import io

    store = DirectoryStore(str(tmp_path / "share"))
    _ci_fill(source_tree, tmp_path, store)
    evil = "warning: \x1b]0;owned\x07\x1b[2J\rline\x9b31m\tend\n"
    for key in _keys(store):                    # a writer with the key (a compromised CI job, say)
        e = _entry(store, key)
        e.messages = evil
        e.diagnostics = [{"severity": "warning", "message": evil}]
        store.put(key, cache_auth.seal(KEY, key, encode_entry(e)))
    dev = _checkout(source_tree, tmp_path, "dev", 3)
    out = io.StringIO()
    with RemoteExecutor(NoCompile(), SharedCache(store, mode="read", key=KEY), str(dev)) as ex:
        rep = build(load_project(str(dev)), stream=out, tty=False, executor=ex, diag_format="json")
    assert rep.ok and ex.stats.cache_hits == N_TARGETS
    text = out.getvalue()
    assert "warning: \\x1b]0;owned\\x07\\x1b[2J\\x0dline\\x9b31m\tend" in text
    assert not any(c in text for c in "\x1b\x07\r\x9b")
    for diags in rep.diagnostics.values():
        assert diags[0]["message"] == "warning: \\x1b]0;owned\\x07\\x1b[2J\\x0dline\\x9b31m\tend\n"


def test_poisoned_entries_x100_are_never_accepted(tmp_path):
    """100 random poisonings of a sealed entry (bit flips, truncation, a changed binary, manifest,
    warning, diagnostic, resource or dependency re-encoded with valid sha256 values and either the
    old tag, no tag or a tag under another key): every lookup is a miss, each one counted."""
    import random

    rng = random.Random(21)
    store = DirectoryStore(str(tmp_path / "s"))
    e = sample_entry()
    good = cache_auth.seal(KEY, e.key, encode_entry(e))
    kinds = []
    for i in range(100):
        kind = rng.choice(["flip", "truncate", "old_tag", "no_tag", "other_key"])
        kinds.append(kind)
        if kind == "flip":
            data = bytearray(good)
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
            data = bytes(data)
        elif kind == "truncate":
            data = good[:rng.randrange(len(good))]
        else:
            forged = decode_entry(encode_entry(e), e.key)
            field = rng.choice(["binary", "manifest", "messages", "diagnostics", "resources", "deps"])
            if field == "binary":
                forged.files["binary"] = rng.randbytes(rng.choice([0, 17, 768]))
            elif field == "manifest":
                forged.manifest = {**forged.manifest, "resources": [{"name": "Evil", "binding": i}]}
            elif field == "messages":
                forged.messages = f"warning: {i}"
            elif field == "diagnostics":
                forged.diagnostics = [{"severity": "note", "message": str(i)}]
            elif field == "resources":
                forged.resources = [["Out", f"u{i + 1}"]]
            else:
                forged.deps = [f"shaders/other{i}.hlsl"]
            body = encode_entry(forged)
            if kind == "old_tag":
                data = good[:len(cache_auth.SEAL_MAGIC) + 32] + body
            elif kind == "no_tag":
                data = body
            else:
                data = cache_auth.seal(rng.randbytes(32), e.key, body)
        assert data != good
        store.put(e.key, data)
        cache = SharedCache(store, mode="read", key=KEY)
        assert cache.lookup(e.key) is None, (i, kind)
        assert cache.stats.corrupt + cache.stats.unauthenticated == 1
    assert set(kinds) == {"flip", "truncate", "old_tag", "no_tag", "other_key"}
    store.put(e.key, good)
    assert SharedCache(store, mode="read", key=KEY).lookup(e.key) == e
