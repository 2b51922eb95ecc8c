"""Build-system integration (issue 22): `build --depfile`, cmake/ShaderBuild.cmake driven by CMake +
Ninja (touching an include rebuilds only the dependent shader), programs.json stage visibility,
readable header symbols, per-entry permutations, misplaced project keys, and `-q`."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from tool_util import c_compiler

from shaderbuild.build.config import ConfigFileError, load_project
from shaderbuild.build.outputs import header_symbol
from shaderbuild.build.targets import plan
from shaderbuild.build_cli import main as build_main

REPO = Path(__file__).resolve().parents[2]


def sb(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "shaderbuild", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def write_project(root: Path, toml: str, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "shaderbuild.toml").write_text(textwrap.dedent(toml))
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


GRAPHICS = """\
#include "common.hlsli"
cbuffer Frame : register(b0) { float4x4 mvp; float4 tint; };
Texture2D albedo : register(t0);
SamplerState samp : register(s0);
struct V { float4 pos : SV_Position; float2 uv : TEXCOORD0; };
V vs_main(float3 p : POSITION, float2 uv : TEXCOORD0) { V v; v.pos = mul(mvp, float4(p, 1)); v.uv = uv; return v; }
float4 ps_main(V v) : SV_Target {
    float4 c = albedo.Sample(samp, v.uv) * tint;
#if ALPHA_TEST
    if (c.a < 0.5) discard;
#endif
    return c * SCALE;
}
"""


def graphics_project(root: Path) -> Path:
    return write_project(root, """\
        output_dir = "out"
        targets = ["spirv", "dxil"]
        outputs = ["header"]
        [backends.spirv]
        binding_shifts = { t = 16, s = 32 }

        [[shader]]
        files = "lit.hlsl"
        [shader.permutations]
        ALPHA_TEST = [0, 1]
        NORMAL_MAP = [0, 1]

        [[shader.entry]]
        name = "vs_main"
        profile = "vs_6_0"
        [shader.entry.permutations]
        NORMAL_MAP = [0, 1]

        [[shader.entry]]
        name = "ps_main"
        profile = "ps_6_0"
        exclude = ["NORMAL_MAP=1 ALPHA_TEST=1"]
        """, {"lit.hlsl": GRAPHICS, "common.hlsli": "#define SCALE 2\n"})


def test_permutations_per_entry_point(tmp_path):
    project = load_project(str(graphics_project(tmp_path / "p")))
    keys = {}
    for t in plan(project, backends=["spirv"]):
        keys.setdefault(t.entry, []).append(t.perm_key)
    assert sorted(keys["vs_main"]) == ["NORMAL_MAP=0", "NORMAL_MAP=1"]
    assert sorted(keys["ps_main"]) == ["ALPHA_TEST=0 NORMAL_MAP=0", "ALPHA_TEST=0 NORMAL_MAP=1",
                                       "ALPHA_TEST=1 NORMAL_MAP=0"]


def test_exclude_after_the_permutations_header_is_an_error_with_its_line(tmp_path):
    root = write_project(tmp_path / "p", """\
        targets = ["spirv"]
        [[shader]]
        files = "a.hlsl"
        profile = "cs_6_0"

        [shader.permutations]
        MODE = [0, 1, 2]

        exclude = ["MODE=2"]
        """, {"a.hlsl": "[numthreads(1,1,1)] void main() {}\n"})
    with pytest.raises(ConfigFileError) as exc:
        load_project(str(root))
    [e] = exc.value.errors
    assert e.line == 9
    assert e.render().startswith(f"{root / 'shaderbuild.toml'}:9: error: shader[0].permutations.exclude: 'exclude' "
                                 "is a key of the shader table")


def test_the_project_file_doc_example_parses_as_documented(tmp_path):
    doc = (REPO / "docs/PROJECT_FILE.md").read_text()
    example = re.search(r"## Example\n\n```toml\n(.*?)```", doc, re.S).group(1)
    root = tmp_path / "p"
    for f in ("shaders/post/a.hlsl", "shaders/blit.hlsl", "shaders/lit.hlsl"):
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("")
    (root / "include").mkdir()
    (root / "shaderbuild.toml").write_text(example)
    project = load_project(str(root))
    post = project.shaders[0]
    assert [d.name for d in post.permutations] == ["MODE", "USE_FOG"]
    assert [r.text for r in post.exclude] == ["MODE=2 USE_FOG"]
    lit = project.shaders[2]
    assert [d.name for d in lit.entries[0].permutations] == ["NORMAL_MAP"]
    assert [r.text for r in lit.entries[1].exclude] == ["NORMAL_MAP=1 ALPHA_TEST=1"]


def test_header_symbols_are_readable_c_identifiers_without_hashes():
    assert header_symbol("shaders/blur.hlsl:main[MODE=1 USE_FOG=1]@spirv") == "g_blur_main_MODE_1_USE_FOG_1_spirv"
    assert header_symbol("a/b-c.hlsl:ps_main@dxil") == "g_b_c_ps_main_dxil"
    assert header_symbol("x.hlsl:main[Q=lo.w]@spirv") == "g_x_main_Q_lo_w_spirv"


def test_build_depfile_programs_headers_and_quiet(tmp_path):
    cc = c_compiler()
    root = graphics_project(tmp_path / "p")
    dep = tmp_path / "gen" / "shaders.stamp.d"
    p = sb("build", str(root), "-q", "--depfile", str(dep), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""                                   # -q: nothing but errors and warnings
    assert (tmp_path / "gen" / "shaders.stamp").exists()
    target, _, deps = dep.read_text().partition(": ")
    assert target == str(tmp_path / "gen" / "shaders.stamp")
    assert sorted(Path(d.strip(" \\\n")).name for d in deps.split() if d.strip(" \\\n")) == [
        "common.hlsli", "lit.hlsl", "shaderbuild.toml"]
    # a no-op build with -q prints nothing either (notes about identical permutations included)
    p = sb("build", str(root), "-q", cwd=tmp_path)
    assert p.returncode == 0 and p.stderr == ""
    assert "identical outputs" in sb("build", str(root), cwd=tmp_path).stderr     # without -q they are noted

    programs = json.loads((root / "out/programs.json").read_text())["programs"]
    prog = programs["lit.hlsl[ALPHA_TEST=0 NORMAL_MAP=0]@spirv"]
    assert prog["entries"] == {"pixel": ["ps_main"]}       # vs_main has no ALPHA_TEST permutations
    vs_prog = programs["lit.hlsl[NORMAL_MAP=0]@spirv"]
    assert vs_prog["entries"] == {"vertex": ["vs_main"]}
    stages = {r["name"]: r["stages"] for r in vs_prog["resources"]}
    assert stages == {"Frame": ["vertex"], "albedo": [], "samp": []}
    stages = {r["name"]: r["stages"] for r in prog["resources"]}
    assert stages == {"Frame": ["pixel"], "albedo": ["pixel"], "samp": ["pixel"]}

    # the headers: readable names, and the bytes of the binary
    t = next(t for t in plan(load_project(str(root)), backends=["spirv"]) if t.perm_key == "ALPHA_TEST=1 NORMAL_MAP=0")
    header = Path(t.outputs["header"])
    symbol = "g_lit_ps_main_ALPHA_TEST_1_NORMAL_MAP_0_spirv"
    assert f"unsigned char {symbol}[" in header.read_text()
    (tmp_path / "dump.c").write_text(f'#include <stdio.h>\n#include "{header}"\n'
                                     f"int main(void) {{ fwrite({symbol}, 1, {symbol}_size, stdout); return 0; }}\n")
    subprocess.run([cc, "-o", str(tmp_path / "dump"), str(tmp_path / "dump.c")], check=True, timeout=60)
    out = subprocess.run([str(tmp_path / "dump")], capture_output=True, check=True, timeout=60).stdout
    assert out == Path(t.outputs["binary"]).read_bytes()


def test_programs_json_via_the_in_process_cli(tmp_path, capsys):
    root = graphics_project(tmp_path / "p")
    assert build_main(["build", str(root), "--target", "dxil", "-q"]) == 0
    programs = json.loads((root / "out/programs.json").read_text())["programs"]
    # a build of some targets still writes the whole project's index; only built manifests count
    assert "lit.hlsl[NORMAL_MAP=1]@dxil" in programs and not any(k.endswith("@spirv") for k in programs)


def test_cmake_ninja_rebuilds_only_the_dependent_shader(tmp_path):
    for tool in ("cmake", "ninja"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is required (apt-get install cmake ninja-build)")
    src = tmp_path / "src"
    shutil.copytree(REPO / "cmake", src)
    build = tmp_path / "build"
    env = dict(os.environ, CC=shutil.which(c_compiler()) or "cc")
    command = f"{sys.executable};-m;shaderbuild"

    def run(*args: str) -> str:
        p = subprocess.run(list(args), cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)
        assert p.returncode == 0, p.stdout + p.stderr
        return p.stdout

    run("cmake", "-G", "Ninja", "-S", str(src / "example"), "-B", str(build), f"-DSHADERBUILD_COMMAND={command}")
    first = run("cmake", "--build", str(build))
    assert "shaderbuild: shaders" in first and "Linking C executable example" in first
    out_dir = build / "shaders"
    sizes = dict(line.split()[:2] for line in run(str(build / "example")).splitlines())
    assert sizes == {"fill": str((out_dir / "fill.spv").stat().st_size),
                     "blur": str((out_dir / "blur.spv").stat().st_size)}
    assert "no work to do" in run("cmake", "--build", str(build))

    before = {p.name: p.stat().st_mtime_ns for p in out_dir.iterdir() if p.suffix in (".spv", ".h")}
    blur_before = (out_dir / "blur.spv").read_bytes()
    (src / "example/shaders/include/kernel.hlsli").write_text("#define KERNEL_RADIUS 3\n")
    again = run("cmake", "--build", str(build))
    assert "shaderbuild: shaders" in again and "main.c" in again      # the header changed: the program too
    after = {p.name: p.stat().st_mtime_ns for p in out_dir.iterdir() if p.suffix in (".spv", ".h")}
    changed = sorted(n for n in before if before[n] != after[n])
    assert changed == ["blur.spv", "blur.spv.h"]            # fill.hlsl does not include kernel.hlsli
    assert (out_dir / "blur.spv").read_bytes() != blur_before
    assert "no work to do" in run("cmake", "--build", str(build))


def test_universal15_target_env_in_a_project_builds_valid_spirv(tmp_path):
    root = write_project(tmp_path / "p", """\
        targets = ["spirv", "dxil"]
        [backends.spirv]
        target_env = "universal1.5"
        [[shader]]
        files = "a.hlsl"
        profile = "cs_6_0"
        """, {"a.hlsl": "RWStructuredBuffer<uint> o : register(u0);\n[numthreads(1,1,1)] void main() { o[0] = 3; }\n"})
    p = sb("build", str(root), "-q", cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    spv = next((root / "build/shaders").rglob("*.spv"))
    assert spv.read_bytes()[4:8] == bytes([0, 5, 1, 0])
    subprocess.run(["spirv-val", "--target-env", "spv1.5", str(spv)], check=True, timeout=60)


def test_list_into_a_closed_pipe_prints_no_traceback(tmp_path):
    root = graphics_project(tmp_path / "p")
    r, w = os.pipe()
    os.close(r)                  # `shaderbuild list | head -1` after head exited
    try:
        p = subprocess.run([sys.executable, "-m", "shaderbuild", "list", str(root)], stdout=w, stderr=subprocess.PIPE,
                           timeout=120)
    finally:
        os.close(w)
    assert p.stderr.decode() == "" and p.returncode == 141
