"""`shaderbuild build | clean | list | explain` through the real command line."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from test_build_engine import A0, A1, REPO, B, make_project, names, real_backends

from shaderbuild.cli import main


@pytest.fixture
def backends():
    found = real_backends()
    if not found:
        pytest.skip("the real compiler cannot compile the test shader yet")
    return found


def test_build_then_noop_then_explain_and_list(tmp_path, capsys, backends):
    root = make_project(tmp_path, backends)
    report = tmp_path / "r.json"
    assert main(["build", str(root), "-j", "2", "--report", str(report)]) == 0
    assert set(json.loads(report.read_text())["built"]) == names(backends, A0, A1, B)
    spirv_val = shutil.which("spirv-val")
    for spv in (root / "out").rglob("*.spv") if spirv_val else ():
        proc = subprocess.run([spirv_val, "--target-env", "vulkan1.1", str(spv)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    assert main(["build", str(root), "--report", str(report)]) == 0
    data = json.loads(report.read_text())
    assert data["built"] == [] and data["ok"] is True
    err = capsys.readouterr().err
    assert f"shaderbuild: 0 built, {3 * len(backends)} up to date" in err

    (root / "shaders/mode.hlsli").write_text("#define EXTRA 9\n")
    assert main(["explain", f"{A1}@{backends[0]}", str(root)]) == 0
    out = capsys.readouterr().out
    assert f"target   {A1}@{backends[0]}" in out and "dependency shaders/mode.hlsli changed" in out
    assert "defines         BIAS=1 MODE=1" in out
    assert main(["explain", "no-such-target", str(root)]) == 1

    assert main(["list", str(root), "--status", "--json"]) == 0
    rows = {r["name"]: r["fresh"] for r in json.loads(capsys.readouterr().out)}
    assert {n for n, fresh in rows.items() if not fresh} == names(backends, A1)

    assert main(["build", str(root), "--filter", "shaders/b.hlsl", "--force"]) == 0
    assert main(["clean", str(root)]) == 0
    assert not any(p.is_file() for p in (root / "out").rglob("*") if p.name != "lock")


def test_compile_error_exit_status_and_formats(tmp_path, capsys, backends):
    root = make_project(tmp_path, backends)
    (root / "shaders/b.hlsl").write_text((root / "shaders/b.hlsl").read_text().replace("SCALE;", "SCALE"))
    assert main(["build", str(root), "--keep-going", "--diagnostics-format", "msvc"]) == 1
    err = capsys.readouterr().err
    assert f"{root}/shaders/b.hlsl(" in err and "): error: " in err
    assert f"  FAILED   {B}@{backends[0]}" in err
    assert main(["build", str(root)]) == 1
    err = capsys.readouterr().err
    assert f"{root}/shaders/b.hlsl:" in err and ": error: " in err


def test_config_errors_exit_1_with_location(tmp_path, capsys):
    root = make_project(tmp_path, ["spirv"])
    toml = root / "shaderbuild.toml"
    toml.write_text(toml.read_text().replace('profile = "cs_6_0"', 'profile = "cs_9_9"', 1))
    assert main(["build", str(root)]) == 1
    assert capsys.readouterr().err.strip() == (
        f"{toml}:10: error: shader[0].profile: invalid value 'cs_9_9': expected cs_6_x, vs_6_x, ps_6_x, gs_6_x, hs_6_x, ds_6_x, ms_6_x, as_6_x or lib_6_x")
    assert main(["build", str(root), "--diagnostics-format", "msvc"]) == 1
    assert capsys.readouterr().err.startswith(f"{toml}(10): error: shader[0].profile")


def test_console_script_entry_point(tmp_path):
    root = make_project(tmp_path, ["spirv"])
    proc = subprocess.run([sys.executable, "-m", "shaderbuild", "list", str(root)], capture_output=True, text=True,
                          cwd=REPO)
    assert proc.returncode == 0
    assert [line.split()[1] for line in proc.stdout.splitlines()] == [f"{A0}@spirv", f"{A1}@spirv", f"{B}@spirv"]
