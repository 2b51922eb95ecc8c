"""The SCons tool, driven through real `scons` runs on copies of a small project.

Every compile the tool performs appends a line to $SHADERBUILD_COMPILE_LOG, so
"nothing was compiled" and "exactly these were recompiled" are observed, not
inferred from SCons' messages.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from shaderbuild.options import CompileOptions
from shaderbuild.scons import toolpath
from shaderbuild.scons.options import decode, encode, normalise_defines

REPO = Path(__file__).resolve().parents[2]

SHADER_A = """\
#include "common.hlsli"
#if MODE
#include "mode.hlsli"
#else
#define EXTRA 0
#endif
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = id.x * SCALE + 1 + EXTRA; }
"""
SHADER_B = """\
#include "other.hlsli"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = id.x * SCALE + BIAS; }
"""
SHADER_C = """\
#include "common.hlsli"
RWStructuredBuffer<uint> Data : register(u1);
[numthreads(32,1,1)] void main(uint3 id : SV_DispatchThreadID) { Data[id.x] = id.x + SCALE; }
"""
PROJECT = """\
output_dir = "build/shaders"
targets = ["spirv"]
include_dirs = ["include"]
profile = "cs_6_0"
outputs = ["disassembly", "header"]

[defines]
BIAS = 1

[[shader]]
files = "shaders/a.hlsl"
[shader.permutations]
MODE = [0, 1]

[[shader]]
files = ["shaders/b.hlsl", "shaders/c.hlsl"]
"""
SCONSTRUCT = """\
import shaderbuild.scons
env = Environment(tools=[shaderbuild.scons.tool])
nodes = env.ShaderProject("shaderbuild.toml")
nodes += env.HLSL("build/direct/c.spv", "shaders/c.hlsl", include_dirs=["include"],
                  defines={"SCALE_OVERRIDE": ARGUMENTS.get("OVERRIDE", "0")}, backend="spirv")
Default(nodes)
"""


def scons_command() -> list[str]:
    exe = shutil.which("scons")
    return [exe] if exe else [sys.executable, "-m", "SCons"]


def make_project(root: Path, sconstruct: str = SCONSTRUCT) -> Path:
    (root / "shaders").mkdir(parents=True)
    (root / "include").mkdir()
    (root / "shaders" / "a.hlsl").write_text(SHADER_A)
    (root / "shaders" / "b.hlsl").write_text(SHADER_B)
    (root / "shaders" / "c.hlsl").write_text(SHADER_C)
    (root / "shaders" / "mode.hlsli").write_text("#define EXTRA 7\n")
    (root / "include" / "common.hlsli").write_text("#define SCALE 3\n")
    (root / "include" / "other.hlsli").write_text("#define SCALE 5\n")
    (root / "shaderbuild.toml").write_text(PROJECT)
    (root / "SConstruct").write_text(sconstruct)
    return root


def scons(root: Path, *args: str, ok: bool = True) -> tuple[subprocess.CompletedProcess, list[str]]:
    """Run scons; returns the process and the compile-log lines this run appended."""
    log = root / "compile.log"
    log.unlink(missing_ok=True)
    env = {**os.environ, "SHADERBUILD_COMPILE_LOG": str(log)}
    proc = subprocess.run([*scons_command(), "-Q", *args], cwd=root, env=env, capture_output=True, text=True,
                          timeout=120)
    if ok:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = log.read_text().splitlines() if log.exists() else []
    return proc, lines


def compiled(lines: list[str]) -> list[str]:
    """'shaders/a.hlsl[MODE=1]'-style names of the compiles in a log."""
    out = []
    for line in lines:
        source = line.split()[1]
        defines = line.rsplit("[", 1)[1].split("]")[0].split()[2:]
        rel = "/".join(Path(source).parts[-2:])
        out.append(f"{rel}[{' '.join(defines)}]")
    return sorted(out)


def output_files(root: Path) -> list[str]:
    build = root / "build"
    return sorted(str(p.relative_to(root)) for p in build.rglob("*") if p.is_file()) if build.exists() else []


ALL_COMPILES = sorted([
    "shaders/a.hlsl[BIAS=1 MODE=0]", "shaders/a.hlsl[BIAS=1 MODE=1]", "shaders/b.hlsl[BIAS=1]",
    "shaders/c.hlsl[BIAS=1]", "shaders/c.hlsl[SCALE_OVERRIDE=0]",
])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return make_project(tmp_path / "proj")


def test_full_build_then_noop(project: Path):
    _, lines = scons(project)
    assert compiled(lines) == ALL_COMPILES
    files = output_files(project)
    # every target: binary + manifest + disassembly + header (the TOML's outputs) ...
    for stem in ("a_", "b.spv", "c.spv"):
        assert any(f.startswith(f"build/shaders/shaders/{stem}") and f.endswith(".spv") for f in files), files
    assert len([f for f in files if f.startswith("build/shaders/")]) == 4 * 4
    # ... and the direct HLSL() call: binary + manifest only
    assert [f for f in files if f.startswith("build/direct/")] == ["build/direct/c.spv", "build/direct/c.spv.json"]
    spv = (project / "build/direct/c.spv").read_bytes()
    assert spv[:4] == b"\x03\x02\x23\x07"   # SPIR-V magic, little-endian

    proc, lines = scons(project, "--debug=explain")
    assert lines == []                                         # no compile ran
    assert "rebuilding" not in proc.stdout and "building" not in proc.stdout
    assert "is up to date" in proc.stdout


def test_hlsli_edit_rebuilds_only_dependents(project: Path):
    scons(project)
    (project / "include" / "other.hlsli").write_text("#define SCALE 6\n")
    proc, lines = scons(project, "--debug=explain")
    assert compiled(lines) == ["shaders/b.hlsl[BIAS=1]"]
    assert "because `include/other.hlsli' changed" in proc.stdout

    (project / "include" / "common.hlsli").write_text("#define SCALE 4\n")
    _, lines = scons(project)
    assert compiled(lines) == ["shaders/a.hlsl[BIAS=1 MODE=0]", "shaders/a.hlsl[BIAS=1 MODE=1]",
                               "shaders/c.hlsl[BIAS=1]", "shaders/c.hlsl[SCALE_OVERRIDE=0]"]


def test_scanner_follows_if_branches(project: Path):
    """mode.hlsli is included only under #if MODE: only the MODE=1 permutation depends on it."""
    scons(project)
    (project / "shaders" / "mode.hlsli").write_text("#define EXTRA 8\n")
    _, lines = scons(project)
    assert compiled(lines) == ["shaders/a.hlsl[BIAS=1 MODE=1]"]


def test_define_change_rebuilds(project: Path):
    scons(project)
    proc, lines = scons(project, "OVERRIDE=1", "--debug=explain")
    assert compiled(lines) == ["shaders/c.hlsl[SCALE_OVERRIDE=1]"]
    assert "build action changed" in proc.stdout
    # a define in the project file: every target that uses it
    toml = project / "shaderbuild.toml"
    toml.write_text(toml.read_text().replace("BIAS = 1", "BIAS = 2"))
    _, lines = scons(project, "OVERRIDE=1")
    assert compiled(lines) == sorted(["shaders/a.hlsl[BIAS=2 MODE=0]", "shaders/a.hlsl[BIAS=2 MODE=1]",
                                      "shaders/b.hlsl[BIAS=2]", "shaders/c.hlsl[BIAS=2]"])


def test_option_change_rebuilds(project: Path):
    scons(project)
    toml = project / "shaderbuild.toml"
    toml.write_text(toml.read_text().replace('profile = "cs_6_0"', 'profile = "cs_6_2"'))
    _, lines = scons(project)
    assert len(lines) == 4 and "SCALE_OVERRIDE" not in "".join(lines)


def test_clean_leaves_no_outputs(project: Path):
    scons(project)
    assert output_files(project)
    proc, lines = scons(project, "-c")
    assert lines == []
    assert output_files(project) == []
    assert proc.stdout.count("Removed ") == 4 * 4 + 2


def test_parallel_build_matches_serial(tmp_path: Path):
    serial = make_project(tmp_path / "serial")
    parallel = make_project(tmp_path / "parallel")
    _, serial_lines = scons(serial, "-j1")
    _, lines = scons(parallel, "-j2")
    assert compiled(lines) == compiled(serial_lines) == ALL_COMPILES
    assert len({line.rsplit("pid=", 1)[1] for line in serial_lines}) == 1    # -j1: in the SCons process
    # -j2: a pool of two long-lived worker processes (the GIL would serialise threads), not one per shader
    assert len({line.rsplit("pid=", 1)[1] for line in lines}) <= 2
    files = output_files(serial)
    assert files == output_files(parallel)
    for f in files:
        assert (serial / f).read_bytes() == (parallel / f).read_bytes(), f
    # the clean -j2 build recorded each target's includes from its compile (the scan was deferred)
    (parallel / "include" / "other.hlsli").write_text("#define SCALE 6\n")
    _, lines = scons(parallel, "-j2")
    assert compiled(lines) == ["shaders/b.hlsl[BIAS=1]"]


def test_cachedir_restores_every_output(project: Path):
    sconstruct = project / "SConstruct"
    sconstruct.write_text("CacheDir('cache')\n" + SCONSTRUCT)
    scons(project)
    before = {f: (project / f).read_bytes() for f in output_files(project)}
    scons(project, "-c")
    proc, lines = scons(project)
    assert lines == []                       # everything came from the cache
    assert "Retrieved" in proc.stdout
    assert {f: (project / f).read_bytes() for f in output_files(project)} == before


def test_compile_error_fails_the_build_and_fix_recovers(project: Path):
    scons(project)
    (project / "shaders" / "b.hlsl").write_text(SHADER_B.replace("Out[id.x] =", "Out[id.x] = = "))
    proc, lines = scons(project, ok=False)
    assert proc.returncode != 0
    assert compiled(lines) == ["shaders/b.hlsl[BIAS=1]"]
    assert "b.hlsl:3:" in proc.stderr and "error" in proc.stderr
    (project / "shaders" / "b.hlsl").write_text(SHADER_B)
    _, lines = scons(project)
    assert compiled(lines) == ["shaders/b.hlsl[BIAS=1]"]


def test_outputs_equal_the_build_engines(project: Path):
    """ShaderProject plans with the `shaderbuild build` planner: same files, same bytes (blobs too)."""
    toml = project / "shaderbuild.toml"
    toml.write_text(PROJECT.replace('outputs = ["disassembly", "header"]', 'outputs = ["disassembly", "header", "blob"]'))
    scons(project)
    assert len(list((project / "build/shaders").rglob("*.blob"))) == 3
    proc = subprocess.run([sys.executable, "-m", "shaderbuild", "build", ".", "-o", "engine", "-j1", "-q"],
                          cwd=project, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    ours = sorted(p.relative_to(project / "build/shaders") for p in (project / "build/shaders").rglob("*")
                  if p.is_file())
    assert ours
    for rel in ours:
        assert (project / "engine" / rel).read_bytes() == (project / "build/shaders" / rel).read_bytes(), rel


@pytest.mark.skipif(not (REPO / "sample_project" / "shaderbuild.toml").exists(), reason="no sample project file")
def test_sample_project_sconstruct(tmp_path: Path):
    """sample_project/SConstruct on a copy of the sample project: full build, no-op, clean."""
    root = tmp_path / "sample"
    shutil.copytree(REPO / "sample_project", root, ignore=shutil.ignore_patterns("out", "build", ".sconsign*"))
    proc, lines = scons(root, "-j2")
    built = sorted(p for p in (root / "build" / "scons").rglob("*") if p.is_file())
    assert lines and len(built) >= 2 * len(lines)       # every compile wrote a binary and a manifest
    _, lines = scons(root)
    assert lines == []
    scons(root, "-c")
    assert not [p for p in (root / "build").rglob("*") if p.is_file()]


def _dxil_works(tmp: Path) -> bool:
    from shaderbuild.compiler import compile_file

    make_project(tmp)
    res = compile_file(str(tmp / "shaders" / "c.hlsl"), CompileOptions(target="dxil", include_dirs=[str(tmp / "include")]))
    return res.ok


def test_both_backends(tmp_path: Path):
    if not _dxil_works(tmp_path / "probe"):
        pytest.skip("the DXIL backend cannot compile the test shader")
    root = make_project(tmp_path / "p")
    toml = root / "shaderbuild.toml"
    toml.write_text(PROJECT.replace('targets = ["spirv"]', 'targets = ["spirv", "dxil"]'))
    _, lines = scons(root)
    assert len(lines) == 2 * 4 + 1
    dxil = sorted(p for p in (root / "build/shaders").rglob("*.dxil"))
    assert len(dxil) == 4 and all(p.read_bytes()[:4] == b"DXBC" for p in dxil)
    _, lines = scons(root)
    assert lines == []


LOADERS = {
    "callable": "import shaderbuild.scons\nenv = Environment(tools=['default', shaderbuild.scons.tool])\n",
    "toolpath": "import shaderbuild.scons\n"
                "env = Environment(tools=['default', 'shaderbuild'], toolpath=[shaderbuild.scons.toolpath()])\n",
    "env.Tool": "env = Environment(tools=[])\nenv.Tool('shaderbuild', toolpath=[{toolpath!r}], profile='cs_6_1')\n",
    # what sconstool.loader.extend_toolpath() does: put the dir holding the sconstool/ namespace on the toolpath
    "sconstool": "import SCons.Tool\nSCons.Tool.DefaultToolpath.append({repo!r})\n"
                 "env = Environment(tools=['default', 'sconstool.shaderbuild'])\n",
    "sconstool-transparent": "import SCons.Tool\nSCons.Tool.DefaultToolpath.append({sconstool!r})\n"
                             "env = Environment(tools=['default', 'shaderbuild'])\n",
    # the real scons-tool-loader (optional): scan the checkout, as it would scan site-packages
    "loader": "import sconstool.loader\nsconstool.loader.extend_toolpath(scan=True, scan_dirs=[{repo!r}])\n"
              "env = Environment(tools=['default', 'sconstool.shaderbuild'])\n",
    "loader-transparent": "import sconstool.loader\n"
                          "sconstool.loader.extend_toolpath(transparent=True, scan=True, scan_dirs=[{repo!r}])\n"
                          "env = Environment(tools=['default', 'shaderbuild'])\n",
}


@pytest.mark.parametrize("how", sorted(LOADERS))
def test_tool_loads(tmp_path: Path, how: str):
    if how.startswith("loader"):
        pytest.importorskip("sconstool.loader", reason="scons-tool-loader is not installed")
    head = LOADERS[how].format(toolpath=toolpath(), repo=str(REPO), sconstool=str(REPO / "sconstool"))
    body = textwrap.dedent("""\
        env.HLSL("out/c.spv", "shaders/c.hlsl", include_dirs=["include"])
        import sys, shaderbuild
        assert sys.modules["shaderbuild"].__file__ == shaderbuild.__file__ and hasattr(shaderbuild, "__path__")
    """)
    root = make_project(tmp_path / "p", head + body)
    _, lines = scons(root)
    assert len(lines) == 1
    assert (root / "out" / "c.spv").read_bytes()[:4] == b"\x03\x02\x23\x07"
    profile = "cs_6_1" if how == "env.Tool" else "cs_6_0"
    manifest = (root / "out" / "c.spv.json").read_text()
    assert profile in manifest


def test_default_target_names_are_unique_per_variant(tmp_path: Path):
    body = textwrap.dedent("""\
        import shaderbuild.scons
        env = Environment(tools=[shaderbuild.scons.tool])
        for mode in ("0", "1"):
            env.HLSL("shaders/a.hlsl", include_dirs=["include"], defines={"MODE": mode}, outputs=["disassembly"])
        env.HLSL("shaders/c.hlsl", include_dirs=["include"])
    """)
    root = make_project(tmp_path / "p", body)
    _, lines = scons(root)
    assert len(lines) == 3
    names = sorted(p.name for p in (root / "shaders").iterdir() if ".spv" in p.name)
    assert len([n for n in names if n.startswith("a_") and n.endswith(".spv")]) == 2
    assert "c.spv" in names and "c.spv.json" in names
    assert len([n for n in names if n.endswith(".spv.dis")]) == 2


def test_options_roundtrip_and_signature_text():
    opts = CompileOptions(entry="cs", profile="cs_6_2", defines={"B": "2", "A": "1"}, include_dirs=["/x"])
    assert decode(encode(opts)) == opts
    same = CompileOptions(entry="cs", profile="cs_6_2", defines={"A": "1", "B": "2"}, include_dirs=["/x"])
    assert encode(same) == encode(opts)           # order of defines does not change the signature
    assert encode(CompileOptions(defines={"A": "2"})) != encode(CompileOptions(defines={"A": "1"}))
    assert normalise_defines(["A", "B=2"]) == {"A": "1", "B": "2"}
    assert normalise_defines("A B=3") == {"A": "1", "B": "3"}
    assert normalise_defines({"A": True, "B": False, "C": 4}) == {"A": "1", "C": "4"}


def test_scan_cache_sees_new_includes_and_shadowing_headers(project: Path):
    """The scanner's cache (.shaderbuild-scan.json) is reused only while nothing it read changed:
    an include that gains an #include, and a new header that shadows one in a search directory,
    are both seen on the next run."""
    scons(project)
    assert (project / ".shaderbuild-scan.json").exists()
    (project / "include" / "extra.hlsli").write_text("#define UNUSED_EXTRA 1\n")
    (project / "include" / "other.hlsli").write_text('#include "extra.hlsli"\n#define SCALE 5\n')
    _, lines = scons(project)
    assert compiled(lines) == ["shaders/b.hlsl[BIAS=1]"]
    (project / "include" / "extra.hlsli").write_text("#define UNUSED_EXTRA 2\n")
    _, lines = scons(project)
    assert compiled(lines) == ["shaders/b.hlsl[BIAS=1]"]        # the new include is a dependency now
    # a quoted include is searched next to the including file first: this one shadows include/other.hlsli
    (project / "shaders" / "other.hlsli").write_text("#define SCALE 9\n")
    _, lines = scons(project)
    assert compiled(lines) == ["shaders/b.hlsl[BIAS=1]"]
    _, lines = scons(project)
    assert lines == []


GENERATED_SCONSTRUCT = """\
import time
import shaderbuild.scons

def generate(target, source, env):
    time.sleep(0.5)      # a slow generator: a compile that did not wait for it would not find the header
    with open(str(target[0]), "w") as f:
        f.write("#define SCALE %s\\n" % ARGUMENTS.get("SCALE", "2"))

env = Environment(tools=[shaderbuild.scons.tool])
env.Command("gen/generated.hlsli", [], Action(generate, varlist=["GEN_SCALE"]), GEN_SCALE=ARGUMENTS.get("SCALE", "2"))
nodes = env.ShaderProject("shaderbuild.toml")
nodes += env.HLSL("build/direct/g.spv", "shaders/g.hlsl", include_dirs=["gen"], backend="spirv")
Default(nodes)
"""


def test_generated_include_is_built_before_the_compile(tmp_path: Path):
    """A target without a scan-cache entry defers its scan to the compile only when no other builder
    makes files.  Here a Command generates a header: the scan runs first, so SCons regenerates the
    header before the compile reads it (a deferred scan would compile against the old header)."""
    from shaderbuild.compiler import compile_file

    project = make_project(tmp_path / "proj", GENERATED_SCONSTRUCT)
    source = project / "shaders" / "g.hlsl"
    source.write_text('#include "generated.hlsli"\nRWStructuredBuffer<uint> Out : register(u0);\n'
                      "[numthreads(8,1,1)] void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = id.x * SCALE; }\n")
    scons(project, "-j2", "gen/generated.hlsli")     # the preprocessor scanner needs the header to exist
    _, lines = scons(project, "-j2")
    assert compiled(lines) == sorted([*ALL_COMPILES[:4], "shaders/g.hlsl[]"])
    _, lines = scons(project, "-j2")
    assert lines == []
    (project / ".shaderbuild-scan.json").unlink()     # no cache entry for g.spv, and its header goes stale
    (project / "build" / "direct" / "g.spv").unlink()
    _, lines = scons(project, "-j2", "SCALE=3")
    assert "shaders/g.hlsl[]" in compiled(lines)
    assert (project / "gen" / "generated.hlsli").read_text() == "#define SCALE 3\n"
    expected = compile_file(str(source), CompileOptions(target="spirv", profile="cs_6_0",
                                                        include_dirs=[str(project / "gen")]))
    assert expected.ok and (project / "build" / "direct" / "g.spv").read_bytes() == expected.binary


def test_parallel_build_of_one_target_writes_only_its_outputs(project: Path):
    """-j2 on a clean tree compiles declared targets ahead, but keeps what SCons did not ask for in
    memory: only the requested target's files appear, and no temporary file is left behind."""
    _, lines = scons(project, "-j2", "build/direct/c.spv")
    assert compiled(lines) == ["shaders/c.hlsl[SCALE_OVERRIDE=0]"]
    assert output_files(project) == ["build/direct/c.spv", "build/direct/c.spv.json"]
    _, lines = scons(project, "-j2")
    assert compiled(lines) == [c for c in ALL_COMPILES if c != "shaders/c.hlsl[SCALE_OVERRIDE=0]"]
    assert not [f for f in output_files(project) if ".tmp-" in f]


def test_parallel_build_with_a_cachedir_compiles_nothing_cached(project: Path):
    (project / "SConstruct").write_text("CacheDir('cache')\n" + SCONSTRUCT)
    _, lines = scons(project, "-j2")
    assert compiled(lines) == ALL_COMPILES
    before = {f: (project / f).read_bytes() for f in output_files(project)}
    scons(project, "-c")
    proc, lines = scons(project, "-j2")
    assert lines == [] and "Retrieved" in proc.stdout
    assert {f: (project / f).read_bytes() for f in output_files(project)} == before


def test_parallel_build_failure_reports_and_leaves_no_temporary_files(project: Path):
    (project / "shaders" / "b.hlsl").write_text(SHADER_B.replace("Out[id.x] =", "Out[id.x] = = "))
    proc, _ = scons(project, "-j2", ok=False)
    assert proc.returncode != 0 and "b.hlsl:3:" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not [f for f in output_files(project) if ".tmp-" in f]


SUB_SCONSTRUCT = """\
import os
import shaderbuild.scons
import shaderbuild.scons.action as action
_compile = action.compile_outputs
def counted(job):                      # runs in the workers: one line per compile they run
    with open(os.environ["WORKER_LOG"], "a") as f:
        f.write(os.path.basename(job[2]) + "\\n")
    return _compile(job)
action.compile_outputs = counted
env = Environment(tools=[shaderbuild.scons.tool])
Export("env")
Default(SConscript("shaders/SConscript"))
"""


def test_targets_compiled_ahead_in_a_sub_sconscript_are_compiled_once(project: Path):
    """A job compiled ahead is taken only if it equals the action's (label included: a target
    declared while SCons reads a SConscript in a subdirectory names its source relative to the top)."""
    (project / "SConstruct").write_text(SUB_SCONSTRUCT)
    (project / "shaders" / "SConscript").write_text(
        'Import("env")\nn = env.HLSL("c.hlsl", include_dirs=["../include"]) + '
        'env.HLSL("b.hlsl", include_dirs=["../include"], defines={"BIAS": 2})\nReturn("n")\n')
    worker_log = project / "workers.log"
    log = project / "compile.log"
    env = {**os.environ, "SHADERBUILD_COMPILE_LOG": str(log), "WORKER_LOG": str(worker_log)}
    proc = subprocess.run([*scons_command(), "-Q", "-j2"], cwd=project, env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len(log.read_text().splitlines()) == 2
    b, c = sorted(worker_log.read_text().split())      # each target once, none compiled again
    assert b.startswith("b_") and b.endswith(".spv") and c == "c.spv"


EARLY_SCONSTRUCT = """\
import shaderbuild.scons
import shaderbuild.scons.action
env = Environment(tools=[shaderbuild.scons.tool])
print("pool at tool load:", shaderbuild.scons.action._POOL is not None)
Default(env.ShaderProject("shaderbuild.toml"))
"""


def test_pool_starts_when_the_tool_loads_in_a_tree_scons_never_built(project: Path):
    """No .sconsign.dblite yet and -j2: the workers start warming up while SCons reads the rest
    of the SConstruct; not with -j1, -n or -c, nor once SCons has built the tree."""
    (project / "SConstruct").write_text(EARLY_SCONSTRUCT)
    assert "pool at tool load: False" in scons(project, "-j2", "-n")[0].stdout
    assert "pool at tool load: False" in scons(project, "-j1", "-n")[0].stdout
    (project / ".sconsign.dblite").unlink(missing_ok=True)     # (a dry run writes one too)
    proc, lines = scons(project, "-j2")
    assert "pool at tool load: True" in proc.stdout and len(lines) == 4
    proc, lines = scons(project, "-j2")
    assert "pool at tool load: False" in proc.stdout and lines == []
    assert "pool at tool load: False" in scons(project, "-j2", "-c")[0].stdout
