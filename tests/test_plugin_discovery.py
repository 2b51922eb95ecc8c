"""Entry-point discovery (shaderbuild.plugin.discovery) reads dist-info/egg-info
directories directly; it must find what importlib.metadata finds."""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

import pytest

from shaderbuild.plugin import discovery


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
    expected = {(ep.name, ep.value, ep.dist.metadata["Name"] or ep.dist.name)
                for dist in importlib.metadata.distributions(path=path[:1])
                for ep in dist.entry_points if ep.group == "shaderbuild"}
    assert {f[:2] for f in found} == {e[:2] for e in expected}
