"""The per-user cache holds data, never code (issue 15): a compile and a build leave no
marshalled code under $XDG_CACHE_HOME/shaderbuild, and cache files planted there (code
objects in the old marshal format, the old JSON format, lines of the wrong shape) are never
executed or trusted."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shaderbuild import user_cache
from shaderbuild.plugin import discovery_cache

ROOT = Path(__file__).resolve().parents[2]
SHADER = ("RWStructuredBuffer<uint> O : register(u0);\n"
          "[numthreads(1, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { O[id.x] = 1; }\n")
TAG = sys.implementation.cache_tag


def _env(home: Path) -> dict[str, str]:
    return dict(os.environ, HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"))


def _compile(tmp_path: Path, env: dict[str, str]) -> bytes:
    src = tmp_path / "cs.hlsl"
    src.write_text(SHADER)
    out = tmp_path / "o.spv"
    subprocess.run([sys.executable, "-m", "shaderbuild", "compile", str(src), "-T", "cs_6_0", "-spirv",
                    "-o", str(out)], env=env, check=True, timeout=120)
    return out.read_bytes()


def _build(tmp_path: Path, env: dict[str, str]) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "cs.hlsl").write_text(SHADER)
    (proj / "shaderbuild.toml").write_text('targets = ["spirv", "dxil"]\n\n[[shader]]\nfiles = "cs.hlsl"\n'
                                           'profile = "cs_6_0"\n')
    past = os.stat(proj).st_mtime - 10      # older than the no-op snapshot's racy window: the build saves one
    for p in (proj / "cs.hlsl", proj / "shaderbuild.toml", proj, tmp_path):
        os.utime(p, (past, past))
    subprocess.run([sys.executable, "-m", "shaderbuild", "build", str(proj), "-j", "1", "--cache", "off", "-q"],
                   env=env, check=True, timeout=300)


def test_compile_and_build_leave_only_text_data_in_the_user_cache(tmp_path):
    home = tmp_path / "home"
    env = _env(home)
    assert _compile(tmp_path, env)[:4] == b"\x03\x02\x23\x07"
    _build(tmp_path, env)
    files = [p for p in home.rglob("*") if p.is_file()]
    assert not [p for p in files if p.suffix == ".marshal"]
    assert files, "the entry-point discovery cache is written"
    names = sorted(p.name for p in files)
    assert f"entry-points-{TAG}.txt" in names and any(n.startswith("noop-") for n in names), names
    for p in files:
        text = p.read_text(encoding="utf-8")
        assert text.startswith(f"shaderbuild-cache {user_cache.FORMAT}\n")
        body = text.partition("\n")[2]
        if p.name == f"entry-points-{TAG}.txt":          # the discovery cache's lines, each parsed as data
            assert discovery_cache._decode(body) and all(len(line.split("\t")) == 3 for line in text.splitlines()[1:])
        else:
            # the build's no-op snapshot (build/noop.py), saved unless the inputs changed within its racy
            # window of the build: JSON data of stats, never code
            assert p.name.startswith("noop-") and p.name.endswith(f"-{TAG}.txt"), names
            snap = json.loads(body)
            assert isinstance(snap, dict) and {"format", "compiler", "stats", "mtimes"} <= set(snap)


def _spy_script() -> str:
    """A script printing every record __init__ source a compilation uses (records takes each from
    _record_inits.py or compiles it; a spy on records._template sees both)."""
    script = ("import json, sys\nfrom shaderbuild import records\nseen = []\norig = records._template\n"
              "def spy(shape, post):\n    seen.append(records.template_source(shape, post))\n"
              "    return orig(shape, post)\n"
              "records._template = spy\n"
              "from shaderbuild.compiler import compile_file\nfrom shaderbuild.options import CompileOptions\n"
              "r = compile_file(sys.argv[1], CompileOptions(profile='cs_6_0', target='spirv'))\n"
              "assert r.ok, r.diagnostics\nprint(json.dumps(seen))\n")
    return script


def test_a_planted_cache_file_is_never_executed(tmp_path):
    home = tmp_path / "home"
    env = _env(home)
    src = tmp_path / "cs.hlsl"
    src.write_text(SHADER)
    run = subprocess.run([sys.executable, "-c", _spy_script(), str(src)], env=env, check=True, timeout=120,
                         capture_output=True, text=True)
    sources = json.loads(run.stdout.strip().splitlines()[-1])
    assert len(sources) > 10          # the spy saw the generated __init__s: the keys below are real
    marker = tmp_path / "EXECUTED"
    evil = compile(f"open({str(marker)!r}, 'w').close()\n", "<planted>", "exec")
    cache = home / ".cache" / "shaderbuild"
    cache.mkdir(parents=True, exist_ok=True)
    # the old formats: record __init__ code and entry-point data, both marshal, both holding code now
    (cache / f"record-inits-{TAG}.marshal").write_bytes(
        marshal.dumps({"format": 1, "data": {s: evil for s in sources}}))
    (cache / f"entry-points-{TAG}.marshal").write_bytes(marshal.dumps({"format": 1, "data": {("x", "y"): evil}}))
    # the JSON format, and the current name with well-formed lines in the wrong order
    (cache / f"entry-points-{TAG}.json").write_text(json.dumps({"format": 2, "data": [["shaderbuild", "/", 1, 2]]}))
    (cache / f"entry-points-{TAG}.txt").write_text(f"shaderbuild-cache {user_cache.FORMAT}\n"
                                                   "E\tspirv\tevil.plugin\nD\tshaderbuild\t/\n")
    try:
        spv = _compile(tmp_path, env)
        _build(tmp_path, env)
    finally:
        assert not marker.exists(), "code from the user cache was executed"
    assert spv[:4] == b"\x03\x02\x23\x07"


@pytest.mark.parametrize("text", [
    None, "", "junk\n", "D\tg\td",                                   # no final line break
    "D\tg\td\njunk\n", "S\tp\t5\n",                                  # a line before any D
    "D\tg\td\nS\tp\tnot an mtime\n", "D\tg\td\nS\tp\t05\n", "D\tg\td\nS\tp\t--5\n",
    "D\tg\td\nS\tp\t\u0665\n",                                        # an Arabic-Indic digit
    "D\tg\td\nP\tn\tv\nS\tp\t5\n",                                   # a stamp after a distribution
    "D\tg\td\nE\tep\tx\n",                                          # an entry point before any P
    "D\tg\td\nP\tn\tv\tx\n", "D\tg\n", "X\tg\td\n",
])
def test_discovery_cache_accepts_only_its_own_lines(text):
    assert discovery_cache._decode(text) == {}


def test_discovery_cache_round_trips_through_its_file(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    entry = ((("/site", 5), ("/site/a.dist-info/entry_points.txt", -6)),
             (("a", "1.0", (("spirv", "a.plugin"), ("x", "a.x:f"))), ("b", "?", ())))
    odd = ((("/s\udcff\rite", 1),), (("c", "2", (("e", "c.p"),)),))        # an undecodable byte, a CR
    tab = ((("/t\tab", 1),), ())
    user_cache.save(discovery_cache.CACHE_NAME, discovery_cache._encode(
        {("shaderbuild", "/site"): entry, ("shaderbuild", "/odd"): odd, ("shaderbuild", "/tab"): tab}))
    assert discovery_cache._decode(user_cache.load(discovery_cache.CACHE_NAME)) == {
        ("shaderbuild", "/site"): entry, ("shaderbuild", "/odd"): odd}        # the tab's entry is left out
    Path(user_cache.path_of(discovery_cache.CACHE_NAME)).write_bytes(b"\xff\xfe not a cache file")
    assert user_cache.load(discovery_cache.CACHE_NAME) is None
