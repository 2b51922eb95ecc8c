"""Cache keys and the build database."""

from __future__ import annotations

import json

import pytest

from shaderbuild.build import cache
from shaderbuild.options import BindingShift, BindRegister, CompileOptions

# A non-default value for every CompileOptions field whose type cannot be derived below.
EXPLICIT = {
    "entry": "alt", "profile": "ps_6_6", "target": "dxil", "defines": {"B": "2", "A": "1"},
    "include_dirs": ["/x/inc", "/y"], "binding_shifts": [BindingShift("t", 200, None), BindingShift("u", 400, 3)],
    "vk_target_env": "vulkan1.3", "dxil_hash": "retail", "hlsl_version": 2018, "vk_layout": "scalar",
    "vk_bind_registers": [BindRegister("t", 1, 2, 3, 4)], "vk_bind_globals": (5, 6),
    "disabled_warnings": ["conversion"],
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


def test_database_round_trip_and_unknown_format(tmp_path):
    db = cache.BuildDB(str(tmp_path), str(tmp_path))
    db.put("t1", {"name": "x", "deps": [], "outputs": {}})
    db.save()
    assert cache.BuildDB.load(str(tmp_path), str(tmp_path)).targets == {"t1": {"name": "x", "deps": [], "outputs": {}}}
    (tmp_path / ".shaderbuild/db.json").write_text('{"format": "other/9", "targets": {"t1": {}}}')
    db = cache.BuildDB.load(str(tmp_path), str(tmp_path))
    assert db.targets == {} and "unknown format" in db.load_warning


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
