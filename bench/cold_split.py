"""Where a cold `shaderbuild compile` spends its instructions: `python bench/cold_split.py [--case FILE:ENTRY:PROFILE ...]`.

This checkout is installed as users get it (installed.py); for each sample entry and target, valgrind's
callgrind counts the instructions of processes that each stop one step further (`os._exit`, as a compile
ends, so no teardown is counted; the cyclic collector off, as a compile has it):
  floor    the interpreter and `site`, nothing of ours
  cli      + the console script's `from shaderbuild.cli import main`
  imports  + every other module that compile loads (found by running it first; our modules counted)
  first    + the compile itself, in-process from the same command line (cli.cmd_compile, as main() runs it)
  second   + the same compile again (what a warm process pays)
  process  the console script's whole `shaderbuild compile`, for comparison with the sum of the steps
and the modules of ours the compile loads, the classes they define and the size of their bytecode (the
costs that grow with the code on the path).
The processes run from an empty directory: `python -c` puts the current directory first on `sys.path`, and
its first import lists it.  Counts do not move with the machine's load (issue 23, bench/README.md).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cold_pair import CASES, _args, _instructions  # noqa: E402
from installed import install  # noqa: E402

OURS = ("shaderbuild", "shaderbuild_spirv", "shaderbuild_dxil")
# finds the modules a compile loads: the compile in-process, then sys.modules
LIST_MODULES = """import os, sys
from shaderbuild import cli
cli.cmd_compile(cli.parse_compile_fast(cli.normalize_compile_argv(sys.argv[1:])))
modules = sorted(sys.modules)
ours = [sys.modules[m] for m in modules if m.split(".")[0] in {ours!r}]
classes = sum(1 for m in ours for v in list(vars(m).values()) if isinstance(v, type) and v.__module__ == m.__name__)
pyc = sum(os.path.getsize(m.__cached__) for m in ours if getattr(m, "__cached__", None) and os.path.exists(m.__cached__))
import json
print(json.dumps({{"modules": modules, "classes": classes, "pyc": pyc}}))
"""
STEP = """import os, gc
gc.disable()
from shaderbuild import cli
if {step} >= 1:
    import importlib, sys
    for name in os.environ["COLD_SPLIT_MODULES"].split():
        importlib.import_module(name)
for _ in range({step} - 1):
    cli.cmd_compile(cli.parse_compile_fast(cli.normalize_compile_argv(sys.argv[1:])))
os._exit(0)
"""


def _count(python: Path, code: str | None, argv: list[str], env: dict[str, str], cwd: Path) -> int:
    args = [str(python), *(["-c", code] if code is not None else []), *argv]
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *args],
                          env={**env, "PYTHONHASHSEED": "0"}, cwd=cwd, capture_output=True, text=True, check=True)
    line = next(ln for ln in proc.stderr.splitlines() if "refs:" in ln)
    return int(line.rsplit(None, 1)[1].replace(",", ""))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", action="append", metavar="FILE:ENTRY:PROFILE",
                    help="a sample entry instead of the three defaults (repeatable)")
    ap.add_argument("--json", metavar="FILE", help="also write the counts here")
    opts = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="cold_split_"))
    rows = []
    try:
        script, how = install(work / "tree")
        python = script.parent / "python"
        empty = work / "empty"
        empty.mkdir()
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
        env["XDG_CACHE_HOME"] = str(work / "cache")
        print(how)
        print("millions of instructions; each step adds to the one before (see the docstring)")
        print(f"{'entry':42} {'target':6} {'floor':>7} {'cli':>7} {'imports':>8} {'first':>7} {'second':>7} "
              f"{'process':>8} {'ours':>5} {'classes':>7} {'pyc KB':>7}")
        cases = [tuple(c.split(":")) for c in opts.case] if opts.case else CASES
        for case in cases:
            for target in ("spirv", "dxil"):
                argv = _args(script, case, target, work / "out.bin")
                subprocess.run(argv, env=env, cwd=empty, check=True, capture_output=True)  # fills the user cache
                listed = json.loads(subprocess.run([str(python), "-c", LIST_MODULES.format(ours=OURS), *argv[1:]],
                                                   env=env, cwd=empty, check=True, capture_output=True,
                                                   text=True).stdout.strip().splitlines()[-1])
                modules = [m for m in listed["modules"] if m != "__main__"]
                steps = [_count(python, "import os; os._exit(0)", [], env, empty)]
                step_env = {**env, "COLD_SPLIT_MODULES": " ".join(modules)}
                steps += [_count(python, STEP.format(step=step), argv[1:], step_env, empty) for step in (0, 1, 2, 3)]
                whole = _instructions(argv, env)
                parts = [steps[0], *(b - a for a, b in zip(steps, steps[1:]))]
                own = sum(1 for m in modules if m.split(".")[0] in OURS)
                name = f"{case[0]} {case[1] or '(library)'}"
                floor, cli, imports, first, second = (p / 1e6 for p in parts)
                print(f"{name:42} {target:6} {floor:7.1f} {cli:7.1f} {imports:8.1f} {first:7.1f} {second:7.1f} "
                      f"{whole / 1e6:8.1f} {own:5} {listed['classes']:7} {listed['pyc'] / 1000:7.0f}", flush=True)
                rows.append({"entry": name, "target": target, "floor": parts[0], "cli": parts[1],
                             "imports": parts[2], "first": parts[3], "second": parts[4], "process": whole,
                             "our_modules": own, "our_classes": listed["classes"], "our_pyc_bytes": listed["pyc"]})
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if opts.json:
        Path(opts.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
