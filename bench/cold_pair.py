"""Cold `shaderbuild compile` of two trees side by side: `python bench/cold_pair.py BASE_REV [--runs N] [--count]`.

Each tree (the commit BASE_REV, from `git archive`, and this checkout as it is) is installed the way
users get it (installed.py) into a temporary venv, then the two console scripts compile the same
shaders in turns (the order alternating round by round), timed in CPU time (user + sys of the child,
`os.wait4`).  It prints per shader and target the median of each tree, and the median of the per-round
ratios (the pairs share the machine's load of that moment).  `--count` also counts the instructions
of one run of each under valgrind's callgrind (hash seed fixed, a private warmed user cache): those do
not move with the machine's load, so they show a change of 1% on a busy machine where CPU medians do
not.  Outputs of the two trees are compared byte for byte.  glslangValidator, when installed, compiles
the same shader in the same rounds (the issue's reference): each tree's median ratio to it is printed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from installed import ROOT, install  # noqa: E402

SHADERS = ROOT / "sample_project" / "shaders"
SHIFTS = ["-fvk-t-shift", "16", "all", "-fvk-s-shift", "32", "all", "-fvk-u-shift", "48", "all"]
CASES = (("compute/particles.hlsl", "main", "cs_6_0"), ("forward/forward_lit.hlsl", "vs_main", "vs_6_0"),
         ("post/tonemap.hlsl", "ps_main", "ps_6_0"))


GLSLANG_STAGES = {"cs": "comp", "vs": "vert", "ps": "frag"}


def _glslang(case: tuple[str, str, str], out: Path) -> list[str] | None:
    exe = shutil.which("glslangValidator")
    path, entry, profile = case
    if exe is None or profile[:2] not in GLSLANG_STAGES:
        return None
    return [exe, "-D", "-V", "-S", GLSLANG_STAGES[profile[:2]], "-e", entry, str(SHADERS / path), "-I" + str(SHADERS),
            "-o", str(out)]


def _args(script: Path, case: tuple[str, str, str], target: str, out: Path) -> list[str]:
    path, entry, profile = case
    flags = ["-spirv", *SHIFTS] if target == "spirv" else []
    if target == "spirv" and profile[:2] in ("ms", "as", "li"):     # mesh and ray-tracing stages need SPIR-V 1.4
        flags.append("-fspv-target-env=vulkan1.2")
    return [str(script), "compile", str(SHADERS / path), "-T", profile, *(["-E", entry] if entry else []), *flags,
            "-I", str(SHADERS), "-o", str(out)]


def _cpu_ms(args: list[str], env: dict[str, str]) -> float:
    pid = os.posix_spawn(args[0], args, env, file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
    _, status, usage = os.wait4(pid, 0)
    if status:
        raise RuntimeError(f"{' '.join(args)}: status {status}")
    return (usage.ru_utime + usage.ru_stime) * 1000


def _instructions(args: list[str], env: dict[str, str]) -> int:
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *args],
                          env={**env, "PYTHONHASHSEED": "0"}, capture_output=True, text=True, check=True)
    line = next(ln for ln in proc.stderr.splitlines() if "refs:" in ln)
    return int(line.rsplit(None, 1)[1].replace(",", ""))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("base", help="the commit to compare this checkout with")
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--count", action="store_true", help="also count instructions under valgrind")
    ap.add_argument("--case", action="append", metavar="FILE:ENTRY:PROFILE",
                    help="a sample entry instead of the three defaults, e.g. meshlet/meshlet.hlsl:ms_main:ms_6_5 "
                         "or raytracing/rt_shadows.hlsl::lib_6_3 (repeatable)")
    opts = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cold_pair_"))
    try:
        src = work / "base_src"
        src.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", opts.base], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
        scripts = {"base": install(work / "base", src)[0], "this": install(work / "this", ROOT)[0]}
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
        env["XDG_CACHE_HOME"] = str(work / "cache")
        print(f"base {opts.base} against {ROOT}; CPU ms, medians of {opts.runs} interleaved runs")
        cases = [tuple(c.split(":")) for c in opts.case] if opts.case else CASES
        for case in cases:
            for target in ("dxil", "spirv"):
                cmds = {name: _args(script, case, target, work / f"{name}.out") for name, script in scripts.items()}
                glslang = _glslang(case, work / "g.spv")
                if glslang is not None:
                    cmds["glslang"] = glslang
                for args in cmds.values():      # untimed: fills the user cache, pages in the files
                    _cpu_ms(args, env)
                same = (work / "base.out").read_bytes() == (work / "this.out").read_bytes()
                times: dict[str, list[float]] = {name: [] for name in cmds}
                for i in range(opts.runs):
                    for name in (list(cmds) if i % 2 == 0 else list(cmds)[::-1]):
                        times[name].append(_cpu_ms(cmds[name], env))
                base, this = statistics.median(times["base"]), statistics.median(times["this"])
                ratio = statistics.median(t / b for t, b in zip(times["this"], times["base"]))
                line = (f"{case[0]} {case[1]} {target}: {base:.1f} -> {this:.1f} ms (paired ratio {ratio:.3f})"
                        f"{'' if same else '  OUTPUTS DIFFER'}")
                if glslang is not None:
                    g = times["glslang"]
                    line += (f"; glslangValidator {statistics.median(g):.1f} ms, x glslang "
                             f"{statistics.median(b / x for b, x in zip(times['base'], g)):.2f} -> "
                             f"{statistics.median(t / x for t, x in zip(times['this'], g)):.2f}")
                if opts.count:
                    b, t = (_instructions(cmds[name], env) for name in ("base", "this"))
                    line += f"; instructions {b / 1e6:.1f}M -> {t / 1e6:.1f}M ({(t / b - 1) * 100:+.1f}%)"
                print(line, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
