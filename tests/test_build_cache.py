"""Cache keys and the build database."""

from __future__ import annotations

import json

import pytest

from shaderbuild.build import cache
from shaderbuild.options import BindingShift, CompileOptions

OPTION_CASES = [
    CompileOptions(),
    CompileOptions(entry="alt", profile="ps_6_6", target="dxil", defines={"B": "2", "A": "1"},
                   include_dirs=["/x/inc", "/y"], binding_shifts=[BindingShift("t", 200, None),
                                                                  BindingShift("u", 400, 3)],
                   vk_target_env="vulkan1.3", dxil_hash="retail", hlsl_version=2018, enable_16bit_types=True),
]


@pytest.mark.parametrize("options", OPTION_CASES)
def test_fast_option_fields_match_cache_fields(options):
    fast = cache.options_fields(options)
    assert json.dumps(fast, sort_keys=True) == json.dumps(options.cache_fields(), sort_keys=True)


def test_every_option_field_changes_the_config_digest():
    base = CompileOptions()

    class T:
        backend = "spirv"
        rel = "a.hlsl"
        outputs = {"binary": "/out/a.spv"}

        def __init__(self, options):
            self.options = options

    def digest(options):
        return cache.config_digest(cache.key_parts(T(options), {"spirv": "1"}, "/p", "/out"))

    changed = {"entry": "x", "profile": "cs_6_1", "target": "dxil", "defines": {"A": "1"}, "include_dirs": ["/i"],
               "binding_shifts": [BindingShift("b", 1, None)], "vk_target_env": "vulkan1.2", "dxil_hash": "retail",
               "hlsl_version": 2018, "enable_16bit_types": True}
    missing = set(CompileOptions.__dataclass_fields__) - set(changed)
    assert not missing, f"add a case for new option fields: {missing}"
    seen = {digest(base)}
    for name, value in changed.items():
        opts = CompileOptions()
        setattr(opts, name, value)
        d = digest(opts)
        assert d not in seen, name
        seen.add(d)


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
