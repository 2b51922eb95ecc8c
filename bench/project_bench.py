"""The sample project's incremental builds against make + glslangValidator (issue 23).

    python bench/project_bench.py [--repeat N] [-j J]

In a copy of `sample_project/`, after one full build:
  * no-op: `shaderbuild build -j J` with nothing changed, against `make` over a Makefile with a
    rule per target that glslangValidator compiles (the same sources, entries and defines);
  * edit one file: a comment appended to `post/tonemap.hlsl` (4 targets: 2 entries x 2 backends),
    then `shaderbuild build -j J`, against `make -j J` rebuilding the same 4 targets with
    glslangValidator (-V for both: glslang has no DXIL).
Each figure is the CPU time (user + sys) of the whole process tree, from `os.wait4` (the build
engine's workers are its children), and the wall time; medians of interleaved runs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EDITED = "shaders/post/tonemap.hlsl"
GLSLANG_STAGES = {"cs": "comp", "vs": "vert", "ps": "frag", "gs": "geom", "hs": "tesc", "ds": "tese"}


def run_tree(cmd: list[str], cwd: str, env: dict[str, str] | None = None) -> tuple[float, float]:
    """(CPU seconds of the process and every child it waited for, wall seconds)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{err}")
    return usage.ru_utime + usage.ru_stime, wall


_INSTALLED: list[str] = []     # this run's installed copy: [console script, description]


def shaderbuild_cmd(dev: bool = False) -> list[str]:
    """The `shaderbuild` console script of a regular `pip install` of this tree, as README.md installs
    it, built once per run in a temporary venv (installed.py); with `dev`, or when that install
    fails, the one beside this interpreter (the development venv's editable install)."""
    if not dev and not _INSTALLED:
        import atexit

        from installed import install

        dest = Path(tempfile.mkdtemp(prefix="shaderbuild-installed-"))
        atexit.register(shutil.rmtree, dest, True)
        try:
            _INSTALLED.extend(map(str, install(dest)))
        except (RuntimeError, OSError) as e:
            _INSTALLED.extend(["", f"development venv (installing a copy failed: {str(e).splitlines()[0]})"])
    if not dev and _INSTALLED[0]:
        return [_INSTALLED[0]]
    exe = Path(sys.executable).with_name("shaderbuild")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "shaderbuild"]


def timed_install() -> str:
    """Which install `shaderbuild_cmd()` runs, for the printed results."""
    shaderbuild_cmd()
    return _INSTALLED[1]


def cold_env(dev: bool = False) -> dict[str, str]:
    """Bytecode caching on, as after `pip install` (see README.md); the installed copy also without
    PYTHONPATH, which would make it import a development tree instead."""
    drop = {"PYTHONDONTWRITEBYTECODE"} if dev else {"PYTHONDONTWRITEBYTECODE", "PYTHONPATH", "PYTHONHOME"}
    return {k: v for k, v in os.environ.items() if k not in drop}


def write_makefile(project: Path) -> int:
    """A Makefile with one glslangValidator rule per target of the project that glslang compiles;
    returns the number of rules."""
    sys.path.insert(0, str(ROOT))
    from shaderbuild.build import load_project, plan

    glslang = shutil.which("glslangValidator")
    rules, outs = [], []
    for t in plan(load_project(str(project))):
        o = t.options
        stage = GLSLANG_STAGES.get(o.profile[:2])
        if stage is None:
            continue
        out = f"mk/{t.tid}.spv"
        args = [glslang, "-D", "-V", "-S", stage, "-e", o.entry, t.source, "-o", out]
        args += [f"-I{d}" for d in o.include_dirs] + [f"-D{k}={v}" for k, v in o.defines.items()]
        if subprocess.run(args, cwd=project, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode:
            continue            # HLSL glslang does not accept: no rule
        deps = " ".join(sorted({t.source, *(str(p) for p in (project / "shaders" / "include").glob("*.hlsli"))}))
        rules.append(f"{out}: {deps}\n\t@{' '.join(args)} > /dev/null\n")
        outs.append(out)
    (project / "Makefile").write_text(f"all: {' '.join(outs)}\n\n" + "\n".join(rules))
    return len(rules)


def measure(repeat: int = 7, jobs: int = 2) -> dict:
    """The no-op and edit-one-file figures (seconds), ours and make's."""
    tmp = Path(tempfile.mkdtemp(prefix="shaderbuild-project-bench-"))
    try:
        project = tmp / "p"
        shutil.copytree(ROOT / "sample_project", project, ignore=shutil.ignore_patterns("out", ".shaderbuild*"))
        (project / "mk").mkdir()
        rules = write_makefile(project)
        ours = shaderbuild_cmd() + ["build", "-j", str(jobs), "-q"]
        env = cold_env()
        run_tree(ours, str(project), env)
        run_tree(["make", "-s"], str(project))
        edited = project / EDITED
        text = edited.read_text()
        samples: dict[str, list[tuple[float, float]]] = {k: [] for k in ("noop", "make_noop", "edit", "make_edit")}
        for i in range(repeat + 1):
            samples["noop"].append(run_tree(ours, str(project), env))
            samples["make_noop"].append(run_tree(["make", "-s"], str(project)))
            edited.write_text(text + f"// edit {i}\n")      # one edit that both then rebuild
            samples["edit"].append(run_tree(ours, str(project), env))
            samples["make_edit"].append(run_tree(["make", "-s", "-j", str(jobs)], str(project)))
        out = {"make_rules": rules}
        for k, v in samples.items():
            v = v[1:]           # the first round warms the page cache after the edits
            out[f"{k}_cpu"] = statistics.median(c for c, _ in v)
            out[f"{k}_wall"] = statistics.median(w for _, w in v)
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    r = measure(args.repeat, args.jobs)
    print(f"timed: {timed_install()}")
    print(f"make rules (targets glslang compiles): {r['make_rules']}")
    for k, label in (("noop", "no-op"), ("edit", "edit one file (4 targets)")):
        print(f"{label:28} shaderbuild {r[k + '_cpu'] * 1000:7.1f} ms CPU {r[k + '_wall'] * 1000:7.1f} ms wall | "
              f"make {r['make_' + k + '_cpu'] * 1000:7.1f} ms CPU {r['make_' + k + '_wall'] * 1000:7.1f} ms wall | "
              f"CPU ratio {r[k + '_cpu'] / r['make_' + k + '_cpu']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
