"""Entry-point discovery (shaderbuild.plugin.discovery) reads dist-info/egg-info
directories directly; it must find what importlib.metadata finds."""

from __future__ import annotations

import importlib.metadata
import marshal
import os
import shutil
import sys
from pathlib import Path

import pytest

from shaderbuild.plugin import discovery, discovery_cache


def _dist(site: Path, dirname: str, entry_points: str | None, metadata: str | None = None) -> None:
    d = site / dirname
    d.mkdir(parents=True)
    if entry_points is not None:
        (d / "entry_points.txt").write_text(entry_points)
    if metadata is not None:
        (d / "METADATA").write_text(metadata)


@pytest.mark.parametrize("dirname, expected", [
    ("acme_metal-2.0.1.dist-info", ("acme_metal", "2.0.1")),
    ("acme-1.0-py3.11.egg-info", ("acme", "1.0")),
    ("acme.egg-info", ("acme.egg-info", "?")),
    ("a-b-c.dist-info", ("a-b-c.dist-info", "?")),
])
def test_name_and_version_from_the_directory_name(dirname, expected):
    assert discovery._name_version_from_dirname(dirname) == expected


def test_finds_the_group_like_importlib_metadata(tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    _dist(first, "acme_metal-2.0.dist-info", "[console_scripts]\nx = y:z\n\n[shaderbuild]\nmetal = acme_metal.plugin\n",
          "Metadata-Version: 2.1\nName: acme-metal\nVersion: 2.0\n\nName: not-a-header\n")
    _dist(first, "other-1.0.dist-info", "[console_scripts]\nshaderbuild = x:y\n", "Name: other\nVersion: 1.0\n")
    _dist(first, "nometa-0.3.dist-info", "# comment\n[shaderbuild]\nwgsl = nometa.plugin:hooks\n")
    _dist(first, "noeps-1.0.dist-info", None, "Name: noeps\nVersion: 1.0\n")
    # the same distribution later on the path is shadowed by the first, as for importlib.metadata
    _dist(second, "acme_metal-1.0.dist-info", "[shaderbuild]\nmetal = old.plugin\n", "Name: acme-metal\nVersion: 1.0\n")
    path = [str(first), str(second), str(tmp_path / "missing")]

    found = {(e.name, e.value, e.dist_name, e.dist_version) for e in discovery.entry_points("shaderbuild", path=path)}
    assert found == {("metal", "acme_metal.plugin", "acme-metal", "2.0"), ("wgsl", "nometa.plugin:hooks", "nometa", "0.3")}
    # (name, value) only: a dist-info without METADATA makes some importlib_metadata versions raise on .metadata
    expected = {(ep.name, ep.value) for dist in importlib.metadata.distributions(path=path[:1])
                for ep in dist.entry_points if ep.group == "shaderbuild"}
    assert {f[:2] for f in found} == expected


# ---------------------------------------------------------------------------- the cache


def _settle(root: Path) -> None:
    """Backdate every mtime under root: the cache trusts only stamps older than RACY_NS."""
    old = 1_600_000_000
    for p in [root, *root.rglob("*")]:
        os.utime(p, (old, old))


def _found(site: Path) -> set[tuple[str, str, str]]:
    return {(e.name, e.value, e.dist_version) for e in discovery.entry_points("shaderbuild")}


@pytest.fixture
def cached_site(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    site = tmp_path / "site"
    _dist(site, "acme_metal-2.0.dist-info", "[shaderbuild]\nmetal = acme_metal.plugin\n", "Name: acme-metal\nVersion: 2.0\n")
    _dist(site, "other-1.0.dist-info", "[console_scripts]\nx = y:z\n", "Name: other\nVersion: 1.0\n")
    _dist(site, "legacy.egg-info", "[console_scripts]\nx = y:z\n")
    _settle(site)
    monkeypatch.setattr(sys, "path", [str(site)])
    return site


def test_cache_is_written_and_reused(cached_site, monkeypatch):
    assert _found(cached_site) == {("metal", "acme_metal.plugin", "2.0")}
    assert Path(discovery_cache.cache_path()).is_file()
    monkeypatch.setattr(discovery, "scan_dir", lambda *a: pytest.fail("a settled directory was rescanned"))
    monkeypatch.setattr(discovery_cache, "scan_dir", lambda *a: pytest.fail("a settled directory was rescanned"))
    assert _found(cached_site) == {("metal", "acme_metal.plugin", "2.0")}


def test_cache_sees_installs_upgrades_and_removals(cached_site):
    assert _found(cached_site) == {("metal", "acme_metal.plugin", "2.0")}
    _dist(cached_site, "acme_wgsl-0.1.dist-info", "[shaderbuild]\nwgsl = acme_wgsl.plugin\n", "Name: acme-wgsl\nVersion: 0.1\n")
    assert _found(cached_site) == {("metal", "acme_metal.plugin", "2.0"), ("wgsl", "acme_wgsl.plugin", "0.1")}
    _settle(cached_site)
    assert len(_found(cached_site)) == 2
    shutil.rmtree(cached_site / "acme_metal-2.0.dist-info")                     # uninstall ...
    _dist(cached_site, "acme_metal-2.1.dist-info", "[shaderbuild]\nmetal = acme_metal.v2\n",  # ... and upgrade
          "Name: acme-metal\nVersion: 2.1\n")
    assert _found(cached_site) == {("metal", "acme_metal.v2", "2.1"), ("wgsl", "acme_wgsl.plugin", "0.1")}
    _settle(cached_site)
    shutil.rmtree(cached_site / "acme_wgsl-0.1.dist-info")
    assert _found(cached_site) == {("metal", "acme_metal.v2", "2.1")}


def test_cache_sees_entry_points_rewritten_in_place(cached_site):
    assert len(_found(cached_site)) == 1
    (cached_site / "legacy.egg-info" / "entry_points.txt").write_text("[shaderbuild]\nold = legacy.plugin\n")
    assert ("old", "legacy.plugin", "?") in _found(cached_site)
    _settle(cached_site)
    assert len(_found(cached_site)) == 2
    (cached_site / "acme_metal-2.0.dist-info" / "entry_points.txt").write_text("[shaderbuild]\nmetal = moved.plugin\n")
    assert ("metal", "moved.plugin", "2.0") in _found(cached_site)


def test_a_broken_cache_file_means_a_rescan(cached_site):
    path = Path(discovery_cache.cache_path())
    path.parent.mkdir(parents=True)
    for junk in (b"", b"\x00garbage", marshal.dumps({"format": 999}), marshal.dumps([1, 2])):
        path.write_bytes(junk)
        assert _found(cached_site) == {("metal", "acme_metal.plugin", "2.0")}
