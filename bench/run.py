"""shaderbuild compile-time benchmarks, compared side by side with glslangValidator.

    python bench/run.py [--check] [--repeat N] [--json FILE]

Measures, on the sample project's shaders plus generated 100/1,000/5,000-line shaders:
  1. warm in-process compile time per shader and backend, split by phase;
  2. the `shaderbuild compile` process, cold, end to end;
  3. `glslangValidator -D -V` on the same shader, in the same run;
  4. how compile time grows with shader size (per-line cost).
With --check it exits 1 when a target of issue 7 is missed:
  warm SPIR-V <= 1.0x glslang process; cold process <= 2.5x glslang;
  DXIL <= 1.5x our SPIR-V; per-line time 100 -> 5,000 lines within 1.5x;
and then runs issue 22's checks as their own processes, failing when either fails:
  `opt_size.py --check` (our -O3 SPIR-V <= 1.15x `spirv-opt -O --preserve-bindings
  --preserve-spec-constants` of our -O0, per sample shader and in total) and
  `scons_bench.py --check` (SCons clean <= 1.2x `shaderbuild build`, no-op <= 0.25 s of CPU).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from gen import shader  # noqa: E402

from shaderbuild.compiler import compile_file  # noqa: E402
from shaderbuild.options import CompileOptions  # noqa: E402

PHASES = ("preprocess", "parse", "sema", "passes", "emit")
TARGETS = {"warm_vs_glslang": 1.0, "cold_vs_glslang": 2.5, "dxil_vs_spirv": 1.5, "per_line_growth": 1.5}
CHECKS = ("opt_size.py", "scons_bench.py")     # issue 22's checks, each run by --check as its own process


def sample_shaders() -> list[tuple[str, Path, CompileOptions]]:
    """(name, path, options) for every SPIR-V target of the sample project (its shaderbuild.toml),
    one permutation per shader entry (the first), so each pass is measured once."""
    from shaderbuild.build import load_project, plan

    seen, out = set(), []
    for t in plan(load_project(str(ROOT / "sample_project")), backends=["spirv"]):
        key = (t.source, t.options.entry)
        if key not in seen:
            seen.add(key)
            out.append((f"{Path(t.source).stem}:{t.options.entry}", Path(t.source), t.options))
    return out


def median_time(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def warm(path: Path, base: CompileOptions, repeat: int) -> tuple[float, dict, float]:
    """Median warm SPIR-V time, its phases, and median warm DXIL time.  The two targets alternate
    within each repeat, so a load that comes and goes on the machine slows both alike."""
    targets = ("spirv", "dxil")
    opts = {t: base.replace(target=t) for t in targets}
    for t in targets:
        first = compile_file(str(path), opts[t])
        if not first.ok:
            raise SystemExit(f"{path}: {t} compile failed: {[d.message for d in first.diagnostics]}")
    phases: dict[str, list[float]] = {p: [] for p in PHASES}
    totals: dict[str, list[float]] = {t: [] for t in targets}
    for _ in range(repeat):
        for t in targets:
            start = time.perf_counter()
            r = compile_file(str(path), opts[t])
            totals[t].append(time.perf_counter() - start)
            if t == "spirv":
                for p in PHASES:
                    phases[p].append(r.timings.get(p, 0.0))
    return (statistics.median(totals["spirv"]), {p: statistics.median(v) for p, v in phases.items()},
            statistics.median(totals["dxil"]))


def run_process(cmd: list[str], cwd: str, env: dict[str, str] | None = None) -> None:
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        raise SystemExit(f"command failed: {' '.join(cmd)}\n{proc.stderr.decode()}")


def _cli_options(o: CompileOptions) -> list[str]:
    args = ["-T", o.profile, "-E", o.entry]
    for d in o.include_dirs:
        args += ["-I", d]
    for k, v in o.defines.items():
        args += ["-D", f"{k}={v}"]
    for s in o.binding_shifts:
        args += [f"-fvk-{s.register_class}-shift", str(s.shift), "all" if s.space is None else str(s.space)]
    return args


def cold(path: Path, o: CompileOptions, repeat: int, tmp: str) -> float:
    """A new `shaderbuild compile` process per run, as a user starts it from an installed
    environment: the console script beside this interpreter (not a version-manager shim on
    PATH, which is itself a shell script), with bytecode caching on, as after `pip install`
    (which byte-compiles); one untimed run first fills the cache of an editable install."""
    exe = Path(sys.executable).with_name("shaderbuild")
    base = [str(exe)] if exe.exists() else [sys.executable, "-m", "shaderbuild"]
    cmd = base + ["compile", str(path), *_cli_options(o), "-spirv", "-o", os.path.join(tmp, "x.spv")]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    run_process(cmd, tmp, env)
    return median_time(lambda: run_process(cmd, tmp, env), repeat)


GLSLANG_STAGES = {"cs": "comp", "vs": "vert", "ps": "frag", "gs": "geom", "hs": "tesc", "ds": "tese"}


def glslang(path: Path, o: CompileOptions, repeat: int, tmp: str) -> float | None:
    exe = shutil.which("glslangValidator")
    if exe is None or o.profile[:2] not in GLSLANG_STAGES:
        return None
    cmd = [exe, "-D", "-V", "-S", GLSLANG_STAGES[o.profile[:2]], "-e", o.entry, str(path), "-o", os.path.join(tmp, "g.spv")]
    cmd += [f"-I{d}" for d in o.include_dirs] + [f"-D{k}={v}" for k, v in o.defines.items()]
    if subprocess.run(cmd, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode != 0:
        return None        # glslang rejects it (HLSL it does not support): no ratio for this shader
    return median_time(lambda: run_process(cmd, tmp), repeat)


def ms(x: float | None) -> str:
    return "-" if x is None else f"{x * 1000:8.2f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    ap.add_argument("--repeat", type=int, default=15, help="runs per measurement (median)")
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args(argv)

    tmp = tempfile.mkdtemp(prefix="shaderbuild-bench-")
    corpus = sample_shaders()
    for lines in (100, 1000, 5000):
        p = Path(tmp) / f"gen{lines}.hlsl"
        p.write_text(shader(lines))
        corpus.append((f"gen{lines}", p, CompileOptions(entry="main", profile="cs_6_0")))

    rows = []
    header = (f"{'shader':<22}{'lines':>6} | {'pre':>6}{'parse':>7}{'sema':>7}{'pass':>6}{'emit':>7} | "
              f"{'spirv':>8}{'dxil':>9}{'cold':>9}{'glslang':>9} | {'warm/gl':>7}{'cold/gl':>8}{'dxil/sp':>8}")
    print(header)
    print("-" * len(header))
    for name, path, opts in corpus:
        n_lines = path.read_text().count("\n") + 1
        small = n_lines < 2000
        rep = args.repeat if small else max(3, args.repeat // 5)
        spirv, phases, dxil = warm(path, opts, rep)
        cold_t = cold(path, opts, max(5, rep // 2), tmp)
        gl = glslang(path, opts, max(5, rep // 2), tmp)
        row = {"shader": name, "lines": n_lines, "phases_ms": {k: v * 1000 for k, v in phases.items()},
               "spirv_ms": spirv * 1000, "dxil_ms": dxil * 1000, "cold_ms": cold_t * 1000,
               "glslang_ms": None if gl is None else gl * 1000,
               "warm_vs_glslang": None if gl is None else spirv / gl,
               "cold_vs_glslang": None if gl is None else cold_t / gl,
               "dxil_vs_spirv": dxil / spirv}
        rows.append(row)
        ph = "".join(f"{phases[p] * 1000:7.2f}" if p != "preprocess" else f"{phases[p] * 1000:6.2f}" for p in PHASES)
        ratio = lambda v: "      -" if v is None else f"{v:7.2f}"  # noqa: E731
        print(f"{name:<22}{n_lines:>6} | {ph} | {ms(spirv)}{ms(dxil)} {ms(cold_t)} {ms(gl)} | "
              f"{ratio(row['warm_vs_glslang'])} {ratio(row['cold_vs_glslang'])} {ratio(row['dxil_vs_spirv'])}")

    gen = {r["shader"]: r for r in rows if r["shader"].startswith("gen")}
    per_line = {k: gen[k]["spirv_ms"] / gen[k]["lines"] for k in gen}
    growth = per_line["gen5000"] / per_line["gen100"]
    print()
    print("per-line SPIR-V compile time (us/line): " + ", ".join(f"{k}: {v * 1000:.1f}" for k, v in per_line.items())
          + f"; growth 100 -> 5,000 lines: {growth:.2f}x")

    failures = []
    sample_rows = [r for r in rows if not r["shader"].startswith("gen")]
    for r in sample_rows:
        for key in ("warm_vs_glslang", "cold_vs_glslang"):
            if r[key] is not None and r[key] > TARGETS[key]:
                failures.append(f"{r['shader']}: {key} {r[key]:.2f} > {TARGETS[key]}")
    for r in rows:
        if r["dxil_vs_spirv"] > TARGETS["dxil_vs_spirv"]:
            failures.append(f"{r['shader']}: dxil_vs_spirv {r['dxil_vs_spirv']:.2f} > {TARGETS['dxil_vs_spirv']}")
    if growth > TARGETS["per_line_growth"]:
        failures.append(f"per-line growth {growth:.2f} > {TARGETS['per_line_growth']}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "per_line_growth": growth, "failures": failures},
                                              indent=2, sort_keys=True))
    shutil.rmtree(tmp, ignore_errors=True)
    if args.check:
        for script in CHECKS:
            print(f"\n== {script} --check")
            sys.stdout.flush()
            if subprocess.run([sys.executable, str(ROOT / "bench" / script), "--check"], cwd=ROOT).returncode != 0:
                failures.append(f"{script} --check failed")
    if failures:
        print("\ntargets missed:\n  " + "\n  ".join(failures))
    else:
        print("\nall targets met")
    return 1 if (args.check and failures) else 0


if __name__ == "__main__":
    sys.exit(main())
