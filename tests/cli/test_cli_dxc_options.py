"""DXC's common command-line options through the real `shaderbuild compile` process (issue 22):
every option is accepted (implemented, or a warning naming it), joined and /T-style spellings,
-Fh/-Vn checked with a C compiler, -MD/-M checked with a real `make`, -WX, -Fo -, usage errors,
target environments, and a broken pipe."""

from __future__ import annotations

import os
import pty
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from tool_util import c_compiler

from shaderbuild import cli

SHADER = """#include "inc.hlsli"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    int2 v = int3(1, 2, 3);
    Out[id.x] = K + v.x;
}
"""


@pytest.fixture
def src(tmp_path: Path) -> Path:
    (tmp_path / "inc.hlsli").write_text("#define K 7\n")
    (tmp_path / "a.hlsl").write_text(SHADER)
    return tmp_path


def sb(cwd: Path, *args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "shaderbuild", *args], cwd=cwd, capture_output=True,
                          timeout=120, **kw)


def err(p: subprocess.CompletedProcess) -> str:
    text = p.stderr if isinstance(p.stderr, str) else p.stderr.decode()
    assert "Traceback" not in text
    return text


# option -> whether it is implemented (no warning) or accepted with a warning naming it
ACCEPTED = [
    (["-Zi", "-Qembed_debug"], False), (["-Zi", "-Fd", "a.pdb"], False), (["-Zss"], True), (["-Zsb"], True),
    (["-O0"], False), (["-O1"], False), (["-O2"], False), (["-O3"], False), (["-Od"], False),
    (["-Wno-conversion"], False), (["-Wconversion"], False), (["-Wall"], False),
    (["-Fh", "a.h"], False), (["-Fh", "a.h", "-Vn", "g_x"], False), (["-MD"], False), (["-MF", "a.d"], False),
    (["-Qstrip_debug"], True), (["-Qstrip_reflect"], True), (["-Qstrip_rootsignature"], False),
    (["-Fre", "r.json"], False), (["-fspv-reflect"], True), (["-fspv-debug=line"], True), (["-nologo"], False),
    (["-all-resources-bound"], False), (["-res-may-alias"], False), (["-Gis"], True), (["-Ges"], True),
    (["-enable-payload-qualifiers"], False), (["-HV", "2016"], False), (["-HV", "2018"], False),
    (["-HV", "2021"], False), (["-HV", "202x"], False), (["-HV2018"], False),
]


@pytest.mark.parametrize("extra,warns", ACCEPTED, ids=lambda a: " ".join(a) if isinstance(a, list) else str(a))
def test_dxc_option_accepted(src, extra, warns):
    p = sb(src, "compile", "a.hlsl", "-T", "cs_6_0", "-Fo", "a.dxil", *extra)
    e = err(p)
    assert p.returncode == 0, e
    flag = extra[0].split("=")[0]
    assert (f"warning: option '{flag}' is accepted but has no effect" in e) == warns, e
    assert "unknown warning option" not in e
    assert (src / "a.dxil").read_bytes()[:4] == b"DXBC"


def test_joined_and_slash_spellings(src):
    a = sb(src, "compile", "a.hlsl", "-T", "cs_6_0", "-Fo", "ref.dxil", "-D", "K2=1", "-I", ".")
    b = sb(src, "compile", "a.hlsl", "/Tcs_6_0", "/Fo", "slash.dxil", "/DK2=1", "/I.", "-Foj.dxil")
    c = sb(src, "compile", "/T", "cs_6_0", "/E", "main", "a.hlsl", "-Fojoined.dxil", "-Vng_v", "-Fhh.h")
    for p in (a, b, c):
        assert p.returncode == 0, err(p)
    ref = (src / "ref.dxil").read_bytes()
    assert (src / "j.dxil").read_bytes() == ref           # the last -Fo wins, as for every option
    assert not (src / "slash.dxil").exists()
    assert (src / "joined.dxil").read_bytes() == ref
    assert "unsigned char g_v[" in (src / "h.h").read_text()
    # an existing absolute path is never read as an option
    p = sb(src, "compile", str(src / "a.hlsl"), "/T", "cs_6_0", "/Fo", str(src / "abs.dxil"))
    assert p.returncode == 0, err(p)
    assert (src / "abs.dxil").read_bytes() == ref


def test_normalized_command_lines_parse_fast_as_argparse():
    argv = cli.normalize_compile_argv(
        ["compile", "/Tps_6_0", "s.hlsl", "-Foo.dxil", "-Vng_a", "-Fhh.h", "-Wno-conversion", "-WX", "-O1",
         "-fspv-target-env=vulkan1.2", "-MFd.d", "-MD", "-Zi", "-fspv-debug=line", "-Frer.json", "-HV", "202x"])
    assert argv == ["compile", "-Tps_6_0", "s.hlsl", "-Fo", "o.dxil", "-Vn", "g_a", "-Fh", "h.h", "-Wno-",
                    "conversion", "-WX", "-O1", "-fspv-target-env", "vulkan1.2", "-MF", "d.d", "-MD", "-Zi",
                    "-fspv-debug", "line", "-Fre", "r.json", "-HV", "202x"]
    fast = cli.parse_compile_fast(argv)
    assert fast is not None
    assert vars(fast) == vars(cli.build_parser("compile").parse_args(argv))
    assert (fast.opt_level, fast.warnings_as_errors, fast.disabled_warnings, fast.debug_info) == (1, True,
                                                                                                 ["conversion"], True)
    assert cli.parse_compile_fast(cli.normalize_compile_argv(["compile", "s.hlsl", "-T", "cs_6_0"])).opt_level == 3
    assert cli.parse_compile_fast(["compile", "s.hlsl", "-T", "cs_6_0", "-O2", "-Od"]).opt_level == 0
    for argv in (["compile", "s.hlsl", "-T", "cs_6_0", "-Fo", "-", "-HV", "202x", "-M", "-MT", "t.o", "-nologo"],
                 ["compile", "s.hlsl", "-T", "cs_6_0", "-Wconversion", "-Wall", "-Zss", "-Qstrip_reflect", "-Fd", "x"]):
        fast = cli.parse_compile_fast(argv)
        assert fast is not None and vars(fast) == vars(cli.build_parser("compile").parse_args(argv))


def test_options_reach_compile_options_and_cache_key():
    argv = cli.normalize_compile_argv(["compile", "s.hlsl", "-T", "cs_6_0", "-O1", "-Zi", "-WX", "-Wno-conversion"])
    opts = cli._compile_options(cli.parse_compile_fast(argv))
    assert (opts.opt_level, opts.debug_info, opts.warnings_as_errors, opts.disabled_warnings) == (
        1, True, True, ["conversion"])
    key = opts.cache_fields()
    assert (key["opt_level"], key["debug_info"], key["warnings_as_errors"], key["disabled_warnings"]) == (
        1, True, True, ["conversion"])


def test_fh_header_compiles_to_the_same_bytes(src):
    cc = c_compiler()
    p = sb(src, "compile", "a.hlsl", "-T", "cs_6_0", "-spirv", "-Fo", "a.spv", "-Fh", "a.h", "-Vn", "g_blob")
    assert p.returncode == 0, err(p)
    q = sb(src, "compile", "a.hlsl", "-T", "cs_6_0", "-Fh", "d.h")   # default name g_main
    assert q.returncode == 0, err(q)
    (src / "dump.c").write_text(textwrap.dedent("""\
        #include <stdio.h>
        #include "a.h"
        #include "d.h"
        int main(int argc, char **argv) {
            FILE *f = fopen(argv[1], "wb");
            fwrite(g_blob, 1, sizeof g_blob, f);
            fclose(f);
            return sizeof g_main > 4 && g_main[0] == 'D' ? 0 : 3;
        }
        """))
    subprocess.run([cc, "-Wall", "-Werror", "-o", "dump", "dump.c"], cwd=src, check=True, timeout=60)
    subprocess.run([str(src / "dump"), "out.bin"], cwd=src, check=True, timeout=60)
    assert (src / "out.bin").read_bytes() == (src / "a.spv").read_bytes()


def test_vn_without_fh_warns(src):
    p = sb(src, "compile", "a.hlsl", "-T", "cs_6_0", "-Fo", "a.dxil", "-Vn", "g_x", "-Wno-conversion", text=True)
    assert p.returncode == 0 and "-Vn names the -Fh array; without -Fh it has no effect" in err(p)


def test_bad_vn_is_an_error(src):
    p = sb(src, "compile", "a.hlsl", "-T", "cs_6_0", "-Fh", "a.h", "-Vn", "1bad")
    assert p.returncode == 1 and "-Vn '1bad' is not a C identifier" in err(p)


def test_md_depfile_drives_make(src):
    if shutil.which("make") is None:
        pytest.fail("GNU make is required for this test (apt-get install make)")
    (src / "Makefile").write_text(textwrap.dedent(f"""\
        a.dxil: a.hlsl
        \t{sys.executable} -m shaderbuild compile a.hlsl -T cs_6_0 -Fo a.dxil -MD -Wno-conversion
        other.dxil: a.hlsl
        \t{sys.executable} -m shaderbuild compile a.hlsl -T cs_6_0 -Fo other.dxil -MF other.d -Wno-conversion
        -include a.dxil.d other.d
        """))

    def make() -> str:
        p = subprocess.run(["make", "a.dxil", "other.dxil"], cwd=src, capture_output=True, text=True,
                           timeout=120, env=os.environ)
        assert p.returncode == 0, p.stderr
        return p.stdout

    assert "shaderbuild compile" in make()
    deps = (src / "a.dxil.d").read_text()
    assert deps.startswith("a.dxil:") and "inc.hlsli" in deps
    assert (src / "other.d").read_text().startswith("other.dxil:")
    assert "shaderbuild compile" not in make()             # up to date
    os.utime(src / "inc.hlsli", (os.path.getmtime(src / "a.dxil") + 5,) * 2)
    assert make().count("shaderbuild compile") == 2        # the include changed: both rebuilt


def test_m_prints_dependencies_without_compiling(src):
    p = sb(src, "compile", "a.hlsl", "-T", "cs_6_0", "-spirv", "-M", text=True)
    assert p.returncode == 0, err(p)
    target, _, deps = p.stdout.partition(":")
    assert target == "a.spv"
    assert sorted(Path(d.strip(" \\\n")).name for d in deps.split() if d.strip(" \\\n")) == ["a.hlsl", "inc.hlsli"]
    assert not list(src.glob("*.spv"))


def test_wx_turns_warnings_into_errors(src):
    p = sb(src, "compile", "a.hlsl", "-T", "cs_6_0", "-Fo", "a.dxil", text=True)
    assert p.returncode == 0 and "warning: implicit truncation" in err(p)
    p = sb(src, "compile", "a.hlsl", "-T", "cs_6_0", "-Fo", "b.dxil", "-WX", text=True)
    assert p.returncode == 1 and "a.hlsl:5:14: error: implicit truncation of vector type [-WX]" in err(p)
    assert not (src / "b.dxil").exists()
    p = sb(src, "compile", "a.hlsl", "-T", "cs_6_0", "-Fo", "c.dxil", "-WX", "-Wno-conversion", text=True)
    assert p.returncode == 0 and err(p) == ""
    p = sb(src, "compile", "a.hlsl", "-T", "cs_6_0", "-Fo", "c.dxil", "-Wno-bogus", text=True)
    assert p.returncode == 0 and "unknown warning option '-Wbogus'" in err(p)


def test_fo_dash_writes_to_a_pipe_and_refuses_a_terminal(src):
    ref = sb(src, "compile", "a.hlsl", "-T", "cs_6_0", "-Fo", "a.dxil")
    p = sb(src, "compile", "a.hlsl", "-T", "cs_6_0", "-Fo", "-")
    assert p.returncode == 0 and ref.returncode == 0
    assert p.stdout == (src / "a.dxil").read_bytes()
    master, slave = pty.openpty()
    try:
        q = subprocess.run([sys.executable, "-m", "shaderbuild", "compile", "a.hlsl", "-T", "cs_6_0", "-Fo", "-"],
                           cwd=src, stdout=slave, stderr=subprocess.PIPE, timeout=120)
    finally:
        os.close(slave)
        os.close(master)
    assert q.returncode == 1 and "stdout, which is a terminal" in err(q)


def test_usage_errors_show_the_compile_usage(src):
    p = sb(src, "compile", "a.hlsl", "-T", "cs_6_0", "-Zbogus", text=True)
    assert p.returncode == 1
    assert err(p).startswith("usage: shaderbuild compile ") and "unrecognized arguments: -Zbogus" in p.stderr


@pytest.mark.parametrize("command", [["compile", "a.hlsl", "-T", "cs_6_0", "-Fo", "-"], ["plugins"],
                                     ["compile", "a.hlsl", "-T", "cs_6_0", "-M"]])
def test_broken_pipe_is_quiet(src, command):
    r, w = os.pipe()
    os.close(r)                     # the reader is gone before the first write, as with `| head -1`
    try:
        p = subprocess.run([sys.executable, "-m", "shaderbuild", *command], cwd=src, stdout=w,
                           stderr=subprocess.PIPE, timeout=120)
    finally:
        os.close(w)
    assert "Traceback" not in p.stderr.decode() and "BrokenPipe" not in p.stderr.decode()
    assert p.returncode != 0


def test_universal15_target_env_is_valid_spirv_15(src):
    p = sb(src, "compile", "a.hlsl", "-T", "cs_6_0", "-spirv", "-fspv-target-env=universal1.5", "-o", "u.spv")
    assert p.returncode == 0, err(p)
    assert (src / "u.spv").read_bytes()[4:8] == bytes([0, 5, 1, 0])       # version word 1.5
    subprocess.run(["spirv-val", "--target-env", "spv1.5", str(src / "u.spv")], check=True, timeout=60)
    d = sb(src, "compile", "a.hlsl", "-T", "cs_6_0", "-fspv-target-env=universal1.5", "-o", "u.dxil")
    assert d.returncode == 0, err(d)


def test_unknown_target_env_lists_the_accepted_values(src):
    from shaderbuild_spirv.lower import TARGET_ENVS

    from shaderbuild.options import VK_TARGET_ENVS

    assert cli._VK_ENVS == VK_TARGET_ENVS == tuple(TARGET_ENVS)
    p = sb(src, "compile", "a.hlsl", "-T", "cs_6_0", "-fspv-target-env=vulkan9", text=True)
    assert p.returncode == 1
    assert "invalid choice: 'vulkan9'" in err(p) and all(e in p.stderr for e in VK_TARGET_ENVS)
