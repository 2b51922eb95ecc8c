"""Outputs stay inside the output directory: a symbolic link below it is refused for writing
(build), deleting (clean, pruning, orphans) and creating directories (issue 21 item 3)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from shaderbuild.build import confine
from shaderbuild.build.clean import clean
from shaderbuild.build.config import load_project
from shaderbuild.build.scheduler import build

SHADER = "RWStructuredBuffer<uint> O : register(u0);\n[numthreads(1, 1, 1)]\nvoid main() { O[0] = 1; }\n"


def project(root: Path, files=("shaders/a.hlsl", "shaders/b.hlsl")) -> Path:
    for f in files:
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text(SHADER)
    (root / "shaderbuild.toml").write_text(textwrap.dedent(f"""\
        output_dir = "out"
        targets = ["spirv"]
        [[shader]]
        files = {list(files)!r}
        profile = "cs_6_0"
        """).replace("'", '"'))
    return root


def files_under(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def planted(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    """Files outside the project with the names a build would write: the victims."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    for name in ("a.spv", "a.spv.json", "b.spv", "b.spv.json", "keep.txt"):
        (elsewhere / name).write_bytes(b"precious " + name.encode())
    return elsewhere, files_under(elsewhere)


def test_build_refuses_to_write_through_a_symlinked_output_subdirectory(tmp_path):
    root = project(tmp_path / "p")
    elsewhere, before = planted(tmp_path)
    (root / "out").mkdir()
    (root / "out" / "shaders").symlink_to(elsewhere)
    with pytest.raises(confine.OutsideOutputDir) as exc:
        build(load_project(str(root)), jobs=1, quiet=True)
    assert "symbolic link" in str(exc.value) and str(root / "out" / "shaders") in str(exc.value)
    assert files_under(elsewhere) == before          # before the fix: a.spv and b.spv were replaced


def test_cli_build_reports_the_link(tmp_path):
    root = project(tmp_path / "p")
    elsewhere, before = planted(tmp_path)
    (root / "out").mkdir()
    (root / "out" / "shaders").symlink_to(elsewhere)
    proc = subprocess.run([sys.executable, "-m", "shaderbuild", "build", str(root), "-j", "1"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert f"goes through the symbolic link {root}/out/shaders -> {elsewhere}" in proc.stderr, proc.stderr
    assert files_under(elsewhere) == before


def _swap_for_link(root: Path, elsewhere: Path) -> None:
    """After a real build: the output subdirectory becomes a link to the victims (same names)."""
    out = root / "out" / "shaders"
    for p in out.iterdir():
        p.unlink()
    out.rmdir()
    out.symlink_to(elsewhere)


def test_clean_does_not_delete_through_a_link(tmp_path):
    root = project(tmp_path / "p")
    assert build(load_project(str(root)), jobs=1, quiet=True).ok
    elsewhere, before = planted(tmp_path)
    _swap_for_link(root, elsewhere)
    with pytest.raises(confine.OutsideOutputDir):
        clean(load_project(str(root)))
    assert files_under(elsewhere) == before          # before the fix: a.spv, b.spv and manifests deleted
    proc = subprocess.run([sys.executable, "-m", "shaderbuild", "clean", str(root)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 1 and "cannot remove" in proc.stderr and "symbolic link" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and files_under(elsewhere) == before


def test_pruning_does_not_delete_through_a_link(tmp_path):
    root = project(tmp_path / "p", files=("shaders/a.hlsl", "shaders/b.hlsl", "other/c.hlsl"))
    assert build(load_project(str(root)), jobs=1, quiet=True).ok
    elsewhere, before = planted(tmp_path)
    _swap_for_link(root, elsewhere)
    project(root, files=("other/c.hlsl",))            # a and b leave the project: their outputs are pruned
    with pytest.raises(confine.OutsideOutputDir):
        build(load_project(str(root)), jobs=1, quiet=True)
    assert files_under(elsewhere) == before


def test_output_root_itself_may_be_a_link(tmp_path):
    """A build directory on another disk: the root is resolved once, only links below it are refused."""
    root = project(tmp_path / "p")
    real = tmp_path / "disk" / "out"
    real.mkdir(parents=True)
    (tmp_path / "out-link").symlink_to(real)
    assert build(load_project(str(root), output_dir=str(tmp_path / "out-link")), jobs=1, quiet=True).ok
    assert (real / "shaders" / "a.spv").is_file()
    removed = clean(load_project(str(root), output_dir=str(tmp_path / "out-link")))
    assert len(removed) >= 4 and not (real / "shaders" / "a.spv").exists()


def test_confine_primitives(tmp_path):
    out = tmp_path / "out"
    (out / "d").mkdir(parents=True)
    (out / "d" / "f").write_text("x")
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "f").write_text("keep")
    (out / "link").symlink_to(victim)
    (out / "d" / "file_link").symlink_to(victim / "f")
    confine.check(str(out), str(out / "d" / "f"))
    confine.check(str(out), str(out / "missing" / "deeper" / "f"))      # nothing there yet: nothing to refuse
    for bad in (out / "link" / "f", out / "link" / "new" / "f"):
        with pytest.raises(confine.OutsideOutputDir):
            confine.check(str(out), str(bad))
        with pytest.raises(confine.OutsideOutputDir):
            confine.unlink(str(out), str(bad))
        with pytest.raises(confine.OutsideOutputDir):
            confine.ensure_dirs(str(out), str(bad))
    with pytest.raises(confine.OutsideOutputDir):
        confine.check(str(out), str(tmp_path / "sibling" / "f"))
    with pytest.raises(confine.OutsideOutputDir):
        confine.check(str(out), str(out / ".." / "victim" / "f"))
    assert confine.unlink(str(out), str(out / "d" / "file_link"))       # the link itself, not its target
    assert (victim / "f").read_text() == "keep" and not os.path.lexists(out / "d" / "file_link")
    assert not confine.unlink(str(out), str(out / "d" / "gone"))
    confine.ensure_dirs(str(out), str(out / "n1" / "n2" / "f"))
    assert (out / "n1" / "n2").is_dir()
    assert (victim / "f").read_text() == "keep"


def test_state_directory_link_is_refused(tmp_path):
    """.shaderbuild (database, lock) linked elsewhere: refused before anything is written there."""
    root = project(tmp_path / "p")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (root / "out").mkdir()
    (root / "out" / ".shaderbuild").symlink_to(elsewhere)
    with pytest.raises(confine.OutsideOutputDir):
        build(load_project(str(root)), jobs=1, quiet=True)
    assert list(elsewhere.iterdir()) == []
