"""A few trials of bench/build_faults.py (the full campaign's figures are in docs/RELIABILITY.md):
SIGKILL of the main build process only and of its process group at random moments, concurrent
builds, and random byte flips in the build database.  Nothing lost, no wrong binary accepted."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "build_faults", Path(__file__).resolve().parents[2] / "bench" / "build_faults.py")
faults = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(faults)


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    return faults.Campaign(tmp_path_factory.mktemp("faults"), seed=7)


@pytest.mark.parametrize("group", [False, True], ids=["main-only", "process-group"])
def test_sigkill_at_random_points(campaign, group):
    results = [campaign.kill(i, group=group) for i in range(3)]
    assert [f for r in results for f in r["failures"]] == []


def test_concurrent_builds(campaign):
    results = [campaign.concurrent(i) for i in range(2)]
    assert [f for r in results for f in r["failures"]] == []


def test_random_byte_flips_in_the_database(campaign):
    results = campaign.flips(10)
    assert [f"#{r['trial']} at {r['offset']}: {f}" for r in results for f in r["failures"]] == []
