"""Warm compile time of every shader in the language test corpus, against
glslangValidator on the same file (issue 3's benchmark).

    python bench/lang_corpus.py [--repeat N] [--limit N]

Runs the SPIR-V half of tests/test_lang_*.py once with SHADERBUILD_DUMP_SHADERS
set (each shader that compiled is saved), then, for each saved shader, times the
warm in-process compile (median of N) and one `glslangValidator -D -V` process
(median of N).  Shaders glslang rejects (HLSL 2021 features it lacks) are counted
and left out of the ratios.  Prints a per-shader table and the summary.
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
from pathlib import Path

from run import median_time  # bench/ is the script directory, so its sibling imports directly

ROOT = Path(__file__).resolve().parents[1]


def dump_corpus(out: str) -> None:
    env = dict(os.environ, SHADERBUILD_DUMP_SHADERS=out)
    files = sorted(str(p) for p in (ROOT / "tests" / "lang").glob("test_lang_*.py"))
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-k", "not dxil", "-p", "no:cacheprovider", *files],
                   cwd=ROOT, env=env, stdout=subprocess.DEVNULL, check=False)


def main(argv: list[str] | None = None) -> int:
    from shaderbuild.compiler import compile_file
    from shaderbuild.options import CompileOptions

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--limit", type=int, default=0, help="time at most this many shaders (0 = all)")
    args = ap.parse_args(argv)
    glslang = shutil.which("glslangValidator")
    tmp = tempfile.mkdtemp(prefix="shaderbuild-corpus-")
    dump_corpus(tmp)
    shaders = sorted(Path(tmp).glob("*.hlsl"))
    if args.limit:
        shaders = shaders[: args.limit]
    rows, skipped = [], 0
    for src in shaders:
        meta = json.loads(src.with_suffix(".json").read_text())
        opts = CompileOptions(entry=meta["entry"], profile=meta["profile"], target="spirv",
                              defines=meta["defines"], hlsl_version=meta["hlsl_version"])
        if not compile_file(str(src), opts).ok:
            continue
        ours = median_time(lambda: compile_file(str(src), opts), args.repeat)   # noqa: B023
        gl = None
        if glslang:
            cmd = [glslang, "-D", "-V", "-S", "comp", "-e", meta["entry"], str(src), "-o", os.path.join(tmp, "g.spv")]
            cmd += [f"-D{k}={v}" for k, v in meta["defines"].items()]
            if subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
                gl = median_time(lambda: subprocess.run(cmd, stdout=subprocess.DEVNULL,  # noqa: B023
                                                        stderr=subprocess.DEVNULL), args.repeat)
            else:
                skipped += 1
        rows.append((src.stem, ours, gl))
    print(f"{'shader':<18}{'ours ms':>9}{'glslang ms':>12}{'ratio':>8}")
    for name, ours, gl in rows:
        print(f"{name:<18}{ours * 1000:9.2f}{'-' if gl is None else f'{gl * 1000:.2f}':>12}"
              f"{'-' if gl is None else f'{ours / gl:.3f}':>8}")
    ratios = [o / g for _, o, g in rows if g]
    ours_all = [o for _, o, _ in rows]
    print(f"\n{len(rows)} shaders; warm in-process median {statistics.median(ours_all) * 1000:.2f} ms "
          f"(max {max(ours_all) * 1000:.2f} ms)")
    if ratios:
        print(f"ratio to one glslangValidator process: median {statistics.median(ratios):.3f}, "
              f"max {max(ratios):.3f} over {len(ratios)} shaders; {skipped} shaders glslang rejects")
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
