"""shaderbuild compile-time benchmarks, compared side by side with glslangValidator (and glslc).

    python bench/run.py [--check] [--repeat N] [--json FILE] [--no-project]

Measures, in CPU time (user + sys: `time.process_time` in-process, `os.wait4` for processes) and
in wall time, on the sample project's shaders plus generated 100/1,000/5,000/20,000-line shaders:
  1. warm in-process compile time per shader and backend, split by phase (SPIR-V);
  2. the `shaderbuild compile` process, cold, end to end, to SPIR-V and to DXIL, of a regular
     (non-editable) install of this tree in a temporary venv, as README.md installs it
     (installed.py; the printed header says which install was timed);
  3. `glslangValidator -D -V` (and `glslc`, when installed) on the same shader, interleaved
     with our runs;
  4. how compile time grows with shader size (per-line cost, both backends);
  5. the sample project's no-op build and edit-one-file rebuild against make + glslangValidator
     (project_bench.py).
With --check it exits 1 when a goal of issues 7 and 23 is missed (TARGETS below, all on CPU
medians), and then runs issue 22's checks as their own processes, failing when either fails:
`opt_size.py --check` and `scons_bench.py --check`.
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
from project_bench import cold_env, run_tree, shaderbuild_cmd, timed_install  # noqa: E402

from shaderbuild.compiler import compile_file  # noqa: E402
from shaderbuild.options import CompileOptions  # noqa: E402

PHASES = ("preprocess", "parse", "sema", "passes", "emit")
GEN_SIZES = (100, 1000, 5000, 20000)
# the goals, each a limit on a median of CPU times (issue 7's first three, issue 23's others)
TARGETS = {
    "warm_vs_glslang": 1.0,        # warm in-process SPIR-V compile / one glslangValidator process, per sample shader
    "dxil_vs_spirv": 1.5,          # warm DXIL / warm SPIR-V, per shader
    "cold_vs_glslang": 1.0,        # cold `shaderbuild compile` to SPIR-V / glslangValidator, per sample shader
    "cold_dxil_vs_glslang": 1.5,   # cold `shaderbuild compile` to DXIL / glslangValidator, per sample shader
    "us_per_line": 35.0,           # warm SPIR-V CPU per source line, every generated size from 1,000 lines
    "per_line_growth": 1.5,        # per-line cost, 100 -> 20,000 lines, each backend (linear)
    "edit_vs_make": 1.5,           # sample project: edit one file, rebuild / make + glslangValidator
    "noop_ms": 40.0,               # sample project: no-op build, ms of CPU
}
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


def warm(path: Path, base: CompileOptions, repeat: int) -> dict:
    """Median warm CPU and wall time per target, and the SPIR-V phases.  The two targets alternate
    within each repeat, so a load that comes and goes on the machine slows both alike."""
    targets = ("spirv", "dxil")
    opts = {t: base.replace(target=t) for t in targets}
    for t in targets:
        first = compile_file(str(path), opts[t])
        if not first.ok:
            raise SystemExit(f"{path}: {t} compile failed: {[d.message for d in first.diagnostics]}")
    phases: dict[str, list[float]] = {p: [] for p in PHASES}
    cpu: dict[str, list[float]] = {t: [] for t in targets}
    wall: dict[str, list[float]] = {t: [] for t in targets}
    for _ in range(repeat):
        for t in targets:
            c, w = time.process_time(), time.perf_counter()
            r = compile_file(str(path), opts[t])
            cpu[t].append(time.process_time() - c)
            wall[t].append(time.perf_counter() - w)
            if t == "spirv":
                for p in PHASES:
                    phases[p].append(r.timings.get(p, 0.0))
    out = {f"{t}_cpu": statistics.median(cpu[t]) for t in targets}
    out.update({f"{t}_wall": statistics.median(wall[t]) for t in targets})
    out["phases"] = {p: statistics.median(v) for p, v in phases.items()}
    return out


def _cli_options(o: CompileOptions) -> list[str]:
    args = ["-T", o.profile, "-E", o.entry]
    for d in o.include_dirs:
        args += ["-I", d]
    for k, v in o.defines.items():
        args += ["-D", f"{k}={v}"]
    for s in o.binding_shifts:
        args += [f"-fvk-{s.register_class}-shift", str(s.shift), "all" if s.space is None else str(s.space)]
    return args + [f"-fspv-target-env={o.vk_target_env}"]


GLSLANG_STAGES = {"cs": "comp", "vs": "vert", "ps": "frag", "gs": "geom", "hs": "tesc", "ds": "tese"}


def peer_commands(path: Path, o: CompileOptions, tmp: str) -> dict[str, list[str]]:
    """The processes timed side by side: our cold compile to each target (a regular `pip install` of
    this tree, as README.md installs it: project_bench.shaderbuild_cmd), to SPIR-V also from the
    development venv (editable install: slower start-up, shown, not checked), and each installed
    native compiler that accepts the shader."""
    spirv = ["compile", str(path), *_cli_options(o), "-spirv", "-o", os.path.join(tmp, "x.spv")]
    cmds = {"cold_spirv": shaderbuild_cmd() + spirv,
            "cold_dxil": shaderbuild_cmd() + ["compile", str(path), *_cli_options(o), "-o", os.path.join(tmp, "x.dxil")],
            "cold_spirv_dev": shaderbuild_cmd(dev=True) + spirv}
    stage = GLSLANG_STAGES.get(o.profile[:2])
    defines = [f"-D{k}={v}" for k, v in o.defines.items()]
    includes = [f"-I{d}" for d in o.include_dirs]
    if stage and shutil.which("glslangValidator"):
        cmds["glslang"] = [shutil.which("glslangValidator"), "-D", "-V", "-S", stage, "-e", o.entry, str(path),
                           "-o", os.path.join(tmp, "g.spv"), *includes, *defines]
    if stage and shutil.which("glslc"):
        cmds["glslc"] = [shutil.which("glslc"), "-x", "hlsl", f"-fshader-stage={stage}", f"-fentry-point={o.entry}",
                         str(path), "-o", os.path.join(tmp, "c.spv"), *includes, *defines]
    for name in ("glslang", "glslc"):     # a peer that rejects the shader (HLSL it lacks) gives no ratio
        if name in cmds and subprocess.run(cmds[name], cwd=tmp, stdout=subprocess.DEVNULL,
                                           stderr=subprocess.DEVNULL).returncode != 0:
            del cmds[name]
    return cmds


def processes(cmds: dict[str, list[str]], repeat: int, tmp: str) -> dict[str, tuple[float, float]]:
    """name -> (median CPU, median wall) of `repeat` runs, the commands interleaved in each round
    after one untimed round (which also fills an editable install's bytecode cache)."""
    envs = {False: cold_env(), True: cold_env(dev=True)}
    runs: dict[str, list[tuple[float, float]]] = {k: [] for k in cmds}
    for i in range(repeat + 1):
        for name, cmd in cmds.items():
            sample = run_tree(cmd, tmp, envs[name.endswith("_dev")])
            if i:
                runs[name].append(sample)
    return {k: (statistics.median(c for c, _ in v), statistics.median(w for _, w in v)) for k, v in runs.items()}


def ms(x: float | None) -> str:
    return "       -" if x is None else f"{x * 1000:8.2f}"


def ratio(v: float | None) -> str:
    return "      -" if v is None else f"{v:7.2f}"


def div(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a / b


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    ap.add_argument("--repeat", type=int, default=15, help="runs per measurement (median)")
    ap.add_argument("--json", help="also write the results here")
    ap.add_argument("--no-project", action="store_true", help="skip the sample project's build rows")
    args = ap.parse_args(argv)

    tmp = tempfile.mkdtemp(prefix="shaderbuild-bench-")
    corpus = sample_shaders()
    for lines in GEN_SIZES:
        p = Path(tmp) / f"gen{lines}.hlsl"
        p.write_text(shader(lines))
        corpus.append((f"gen{lines}", p, CompileOptions(entry="main", profile="cs_6_0")))

    rows = []
    print("CPU ms (user + sys), medians; cold = a new `shaderbuild compile` process; the phases (pre ... emit) are "
          "wall ms, the compiler's own laps")
    print(f"cold-sp, cold-dx: {timed_install()}; cold-dev: SPIR-V from the development venv, {shaderbuild_cmd(dev=True)[0]}")
    header = (f"{'shader':<22}{'lines':>6} | {'pre':>6}{'parse':>7}{'sema':>7}{'pass':>6}{'emit':>7} | "
              f"{'spirv':>8}{'dxil':>9} | {'cold-sp':>8}{'cold-dx':>9}{'cold-dev':>9}{'glslang':>9}{'glslc':>9} | "
              f"{'warm/gl':>7}{'dxil/sp':>8}{'cold/gl':>8}{'cdx/gl':>8}")
    print(header)
    print("-" * len(header))
    for name, path, opts in corpus:
        n_lines = path.read_text().count("\n") + 1
        rep = args.repeat if n_lines < 2000 else max(3, args.repeat // 5)
        w = warm(path, opts, rep)
        procs = processes(peer_commands(path, opts, tmp), max(5, rep // 2), tmp) if n_lines < 2000 else {}
        gl = procs.get("glslang", (None, None))[0]
        row = {"shader": name, "lines": n_lines, "phases_ms": {k: v * 1000 for k, v in w["phases"].items()},
               **{k: v for k, v in w.items() if k != "phases"},
               **{f"{k}_cpu": v[0] for k, v in procs.items()}, **{f"{k}_wall": v[1] for k, v in procs.items()}}
        row["warm_vs_glslang"] = div(row["spirv_cpu"], gl)
        row["dxil_vs_spirv"] = row["dxil_cpu"] / row["spirv_cpu"]
        row["cold_vs_glslang"] = div(row.get("cold_spirv_cpu"), gl)
        row["cold_dxil_vs_glslang"] = div(row.get("cold_dxil_cpu"), gl)
        rows.append(row)
        ph = "".join(f"{w['phases'][p] * 1000:7.2f}" if p != "preprocess" else f"{w['phases'][p] * 1000:6.2f}"
                     for p in PHASES)
        print(f"{name:<22}{n_lines:>6} | {ph} | {ms(row['spirv_cpu'])} {ms(row['dxil_cpu'])} | "
              f"{ms(row.get('cold_spirv_cpu'))} {ms(row.get('cold_dxil_cpu'))} {ms(row.get('cold_spirv_dev_cpu'))} {ms(gl)} {ms(row.get('glslc_cpu'))} | "
              f"{ratio(row['warm_vs_glslang'])} {ratio(row['dxil_vs_spirv'])} {ratio(row['cold_vs_glslang'])} "
              f"{ratio(row['cold_dxil_vs_glslang'])}")

    gen = {r["lines"]: r for r in rows if r["shader"].startswith("gen")}
    per_line = {t: {n: gen[n][f"{t}_cpu"] / gen[n]["lines"] for n in sorted(gen)} for t in ("spirv", "dxil")}
    growth = {t: v[max(v)] / v[min(v)] for t, v in per_line.items()}
    print()
    for t, v in per_line.items():
        print(f"per-line {t} CPU (us/line): " + ", ".join(f"{n}: {x * 1e6:.1f}" for n, x in v.items())
              + f"; growth {min(v):,} -> {max(v):,} lines: {growth[t]:.2f}x")

    project = None
    if not args.no_project:
        from project_bench import measure

        project = measure(max(5, args.repeat // 2))
        print(f"\nsample project ({project['make_rules']} make rules): "
              f"no-op {project['noop_cpu'] * 1000:.1f} ms CPU / {project['noop_wall'] * 1000:.1f} ms wall "
              f"(make {project['make_noop_cpu'] * 1000:.1f} / {project['make_noop_wall'] * 1000:.1f}); "
              f"edit one file {project['edit_cpu'] * 1000:.1f} ms CPU / {project['edit_wall'] * 1000:.1f} ms wall "
              f"(make + glslangValidator {project['make_edit_cpu'] * 1000:.1f} / {project['make_edit_wall'] * 1000:.1f}): "
              f"{project['edit_cpu'] / project['make_edit_cpu']:.2f}x CPU")

    failures = []
    sample_rows = [r for r in rows if not r["shader"].startswith("gen")]
    for r in sample_rows:
        for key in ("warm_vs_glslang", "cold_vs_glslang", "cold_dxil_vs_glslang"):
            if r[key] is not None and r[key] > TARGETS[key]:
                failures.append(f"{r['shader']}: {key} {r[key]:.2f} > {TARGETS[key]}")
    for r in rows:
        if r["dxil_vs_spirv"] > TARGETS["dxil_vs_spirv"]:
            failures.append(f"{r['shader']}: dxil_vs_spirv {r['dxil_vs_spirv']:.2f} > {TARGETS['dxil_vs_spirv']}")
    for n, x in per_line["spirv"].items():
        if n >= 1000 and x * 1e6 > TARGETS["us_per_line"]:
            failures.append(f"generated {n} lines: SPIR-V {x * 1e6:.1f} us/line > {TARGETS['us_per_line']}")
    for t, g in growth.items():
        if g > TARGETS["per_line_growth"]:
            failures.append(f"{t} per-line growth {g:.2f} > {TARGETS['per_line_growth']}")
    if project is not None:
        if project["edit_cpu"] / project["make_edit_cpu"] > TARGETS["edit_vs_make"]:
            failures.append(f"edit-one-file rebuild {project['edit_cpu'] / project['make_edit_cpu']:.2f}x make "
                            f"> {TARGETS['edit_vs_make']}")
        if project["noop_cpu"] * 1000 > TARGETS["noop_ms"]:
            failures.append(f"no-op build {project['noop_cpu'] * 1000:.1f} ms CPU > {TARGETS['noop_ms']}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "per_line": per_line, "growth": growth,
                                               "project": project, "failures": failures}, indent=2, sort_keys=True))
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
