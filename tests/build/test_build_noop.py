"""The no-op fast path (shaderbuild/build/noop.py): taken only when nothing a full build reads changed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_build_engine import REPO, real_backends

from shaderbuild.build import noop
from shaderbuild.cli import main

TOML = """\
output_dir = "out"
targets = ["spirv"]
include_dirs = ["include"]

[[shader]]
files = "shaders/*.hlsl"
profile = "cs_6_0"
"""
SHADER = """\
#include "common.hlsli"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = id.x * SCALE + %d; }
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    if "spirv" not in real_backends():
        pytest.skip("the real compiler cannot compile the test shader yet")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))    # snapshots live in the user cache
    root = tmp_path / "p"
    (root / "shaders").mkdir(parents=True)
    (root / "include").mkdir()
    (root / "include/common.hlsli").write_text("#define SCALE 3\n")
    for k in range(2):
        (root / f"shaders/s{k}.hlsl").write_text(SHADER % k)
    (root / "shaderbuild.toml").write_text(TOML)
    settle(root)
    return root


def settle(root: Path) -> None:
    """Date the project file and directories a second back: a change within noop.RACY_NS of a
    build is not trusted, and these were all just written."""
    old = time.time() - 1
    for p in [root, root / "shaderbuild.toml", *(d for d in root.rglob("*") if d.is_dir() and "out" not in d.parts)]:
        os.utime(p, (old, old))


def fast(root: Path, *extra: str) -> bool:
    return noop.try_noop([str(root), "-q", *extra]) == 0


def build(root: Path, *extra: str) -> int:
    return main(["build", str(root), "-q", *extra])


def test_noop_after_a_build_and_each_change_takes_the_full_path(project, capsys):
    root = project
    assert not fast(root)                          # never built
    assert build(root) == 0
    assert fast(root) and fast(root, "-j", "2") and fast(root, "--jobs=2", "--keep-going")
    for other in (["--force"], ["--filter", "*"], ["-o", "elsewhere"], ["--verify"], ["-j"], ["-jx"], ["-qv"]):
        assert not fast(root, *other), other
    os.environ["SHADERBUILD_CACHE_MODE"] = "bogus"        # the full path reports it
    try:
        assert not fast(root)
    finally:
        del os.environ["SHADERBUILD_CACHE_MODE"]

    changes = {
        "source edited": lambda: (root / "shaders/s0.hlsl").write_text(SHADER % 7),
        "include edited": lambda: (root / "include/common.hlsli").write_text("#define SCALE 4\n"),
        "output removed": lambda: (root / "out/shaders/s1.spv").unlink(),
        "output overwritten": lambda: (root / "out/shaders/s1.spv").write_bytes(b"x"),
        "new file matches the glob": lambda: (root / "shaders/s2.hlsl").write_text(SHADER % 2),
        "file gone from the glob": lambda: (root / "shaders/s2.hlsl").unlink(),
        "project file edited": lambda: (root / "shaderbuild.toml").write_text(TOML + "\n[defines]\nX = 1\n"),
        "index.json removed": lambda: (root / "out/index.json").unlink(),
        "programs.json removed": lambda: (root / "out/programs.json").unlink(),
        "database damaged": lambda: (root / "out/.shaderbuild/build.db").write_bytes(b"garbage" * 100),
    }
    for what, change in changes.items():
        change()
        assert not fast(root), what
        settle(root)
        assert build(root) == 0, what
        if what == "database damaged":      # a build that warned saves no snapshot; the next one does
            assert not fast(root)
            assert build(root) == 0
        assert fast(root), what

    sub = root / "sub"          # a build started below the project directory finds its file...
    sub.mkdir()
    settle(root)
    assert build(sub) == 0 and fast(sub)
    (sub / "pyproject.toml").write_text("[tool.shaderbuild]\n")     # ...until a nearer one appears
    assert not fast(sub)
    capsys.readouterr()


def test_fast_path_prints_what_the_full_noop_prints(project, capsys):
    root = project
    (root / "shaderbuild.toml").write_text(TOML + "[shader.permutations]\nUNUSED = [0, 1]\n")   # a note
    settle(root)
    assert main(["build", str(root)]) == 0
    noop.forget(str(root))
    capsys.readouterr()
    assert main(["build", str(root)]) == 0                 # the full path, nothing to do
    full = capsys.readouterr().err
    assert noop.try_noop([str(root)]) == 0
    quick = capsys.readouterr().err
    assert "0 built, 4 up to date" in full and "note: " in full
    assert re.sub(r"in \d+\.\d\d s", "", quick) == re.sub(r"in \d+\.\d\d s", "", full)
    assert noop.try_noop([str(root), "-q"]) == 0 and capsys.readouterr().err == ""


def test_failed_build_leaves_no_snapshot(project):
    root = project
    assert build(root) == 0 and fast(root)
    (root / "shaders/s0.hlsl").write_text("this is not HLSL\n")
    assert build(root) == 1
    assert noop.try_noop([str(root), "-q"]) is None


def test_a_running_build_sends_the_noop_to_the_full_path(project):
    root = project
    assert build(root) == 0 and fast(root)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from shaderbuild.build.lock import ProjectLock\n"
         f"lock = ProjectLock({str(root / 'out/.shaderbuild')!r}); lock.acquire(); print('held', flush=True)\n"
         "sys.stdin.read()"], cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert not fast(root)
    finally:
        holder.communicate("")
    assert fast(root)
