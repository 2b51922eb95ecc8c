"""SPIR-V size of our optimiser against spirv-opt (issue 22's optimisation table).

    python bench/opt_size.py [--check] [--limit 1.15] [--corpus DIR | --no-corpus] [--json out.json]

For every SPIR-V target of sample_project/ (all entries and permutations) and every shader of
the language test corpus (tests/lang/test_lang_*.py, dumped as bench/lang_corpus.py does, or the
`--corpus` directory of an earlier dump), compiles at -O0 and -O3, runs `spirv-opt -O` on the
-O0 binary, plain and with --preserve-bindings --preserve-spec-constants (the contract our -O3
keeps: every declared resource and spec constant stays, as the manifest lists them), and prints
the sizes and the ratios ours -O3 / spirv-opt.  Each -O3 binary is checked with spirv-val.
`--check` exits 1 when a sample-project or corpus shader's ratio to the binding-keeping
spirv-opt, the sample project's total ratio to plain spirv-opt -O, or the corpus's total ratio
is above the limit, when an -O3 binary is invalid, or when a shader does not compile.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


PRESERVE = ("--preserve-bindings", "--preserve-spec-constants")
FAILED: list[str] = []       # shaders that did not compile at -O0 or -O3, or that spirv-opt refused


def _spirv_opt(binary: bytes, *flags: str) -> bytes | None:
    with tempfile.TemporaryDirectory() as d:
        src, dst = os.path.join(d, "in.spv"), os.path.join(d, "out.spv")
        Path(src).write_bytes(binary)
        proc = subprocess.run(["spirv-opt", "-O", *flags, src, "-o", dst], capture_output=True)
        return Path(dst).read_bytes() if proc.returncode == 0 else None


def _valid(binary: bytes, env: str) -> bool:
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "x.spv")
        Path(p).write_bytes(binary)
        return subprocess.run(["spirv-val", "--target-env", env, p], capture_output=True).returncode == 0


def measure(name: str, compile_at, env: str) -> dict | None:
    o0, o3 = compile_at(0), compile_at(3)
    if o0 is None or o3 is None:
        return None
    ref, kept = _spirv_opt(o0), _spirv_opt(o0, *PRESERVE)
    if ref is None or kept is None:
        return None
    return {"name": name, "o0": len(o0), "o3": len(o3), "spirv_opt": len(ref), "ratio": len(o3) / len(ref),
            "spirv_opt_kept": len(kept), "ratio_kept": len(o3) / len(kept), "valid": _valid(o3, env)}


def sample_rows() -> list[dict]:
    from shaderbuild.build.config import load_project
    from shaderbuild.build.targets import plan
    from shaderbuild.compiler import compile_file

    rows = []
    for t in plan(load_project(str(ROOT / "sample_project")), backends=["spirv"]):
        def at(level: int, t=t) -> bytes | None:
            res = compile_file(t.source, t.options.replace(opt_level=level))
            return res.binary if res.ok else None

        row = measure(t.variant.replace("shaders/", ""), at, t.options.vk_target_env)
        if row is None:
            FAILED.append(t.variant)
        else:
            rows.append(row)
    return rows


def corpus_rows(directory: str) -> list[dict]:
    from shaderbuild.compiler import compile_file
    from shaderbuild.options import CompileOptions

    rows = []
    for meta in sorted(Path(directory).glob("*.json")):
        spec = json.loads(meta.read_text())
        text = meta.with_suffix(".hlsl").read_text()
        opts = CompileOptions(entry=spec["entry"], profile=spec["profile"], target="spirv",
                              defines=spec["defines"], hlsl_version=spec["hlsl_version"])

        def at(level: int, opts=opts, text=text) -> bytes | None:
            res = compile_file("lang_test.hlsl", opts.replace(opt_level=level), text=text)
            return res.binary if res.ok else None

        row = measure(meta.stem, at, "vulkan1.1")
        if row is None:
            FAILED.append(meta.stem)
        else:
            rows.append(row)
    return rows


def _dump_corpus(out: str) -> None:
    """Every SPIR-V shader the language tests compile, saved by tests/lang_util.py (not stopping at
    a failing test, unlike lang_corpus.py's timing run: the sizes do not depend on one)."""
    env = dict(os.environ, SHADERBUILD_DUMP_SHADERS=out)
    files = sorted(str(p) for p in (ROOT / "tests" / "lang").glob("test_lang_*.py"))
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-k", "not dxil", "-p", "no:cacheprovider", *files],
                   cwd=ROOT, env=env, stdout=subprocess.DEVNULL, check=False)


def _table(rows: list[dict]) -> list[str]:
    out = ["| shader | ours -O0 | ours -O3 | spirv-opt -O of our -O0 | ratio | spirv-opt -O, bindings kept | ratio |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| {r['name']} | {r['o0']} | {r['o3']} | {r['spirv_opt']} | {r['ratio']:.3f} "
                   f"| {r['spirv_opt_kept']} | {r['ratio_kept']:.3f} |")
    return out


def _total(rows: list[dict]) -> dict:
    o0, o3, ref, kept = (sum(r[k] for r in rows) for k in ("o0", "o3", "spirv_opt", "spirv_opt_kept"))
    return {"shaders": len(rows), "o0": o0, "o3": o3, "spirv_opt": ref, "ratio": o3 / ref if ref else 0.0,
            "spirv_opt_kept": kept, "ratio_kept": o3 / kept if kept else 0.0,
            "max_ratio": max((r["ratio"] for r in rows), default=0.0),
            "max_ratio_kept": max((r["ratio_kept"] for r in rows), default=0.0),
            "over_limit": 0, "invalid": sum(not r["valid"] for r in rows)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--limit", type=float, default=1.15)
    ap.add_argument("--corpus", help="directory of a SHADERBUILD_DUMP_SHADERS dump (default: dump it now)")
    ap.add_argument("--no-corpus", action="store_true", help="the sample project only")
    ap.add_argument("--json")
    args = ap.parse_args(argv)

    sample = sample_rows()
    print("## sample_project")
    print("\n".join(_table(sample)))
    st = _total(sample)
    print(f"| **total ({st['shaders']} shaders)** | {st['o0']} | {st['o3']} | {st['spirv_opt']} | {st['ratio']:.3f} "
          f"| {st['spirv_opt_kept']} | {st['ratio_kept']:.3f} |")
    corpus: list[dict] = []
    if not args.no_corpus:
        directory = args.corpus
        tmp = None
        if directory is None:
            tmp = tempfile.TemporaryDirectory()
            directory = tmp.name
            _dump_corpus(directory)
        corpus = corpus_rows(directory)
        ct = _total(corpus)
        ct["over_limit"] = sum(r["ratio_kept"] > args.limit for r in corpus)
        over = [r["name"] for r in corpus if r["ratio_kept"] > args.limit]
        worst = sorted(corpus, key=lambda r: -r["ratio_kept"])[:10]
        print("\n## language test corpus: the 10 largest ratios")
        print("\n".join(_table(worst)))
        print(f"\ncorpus: {ct['shaders']} shaders, -O0 {ct['o0']} B, -O3 {ct['o3']} B; spirv-opt -O {ct['spirv_opt']} B: "
              f"total ratio {ct['ratio']:.3f}, largest {ct['max_ratio']:.3f}; with bindings kept {ct['spirv_opt_kept']} B: "
              f"total ratio {ct['ratio_kept']:.3f}, largest {ct['max_ratio_kept']:.3f}, above {args.limit}: "
              f"{ct['over_limit']}; -O3 failing spirv-val: {ct['invalid']}")
    if args.json:
        Path(args.json).write_text(json.dumps({"sample": sample, "corpus": corpus}, indent=1))
    bad = [r["name"] for r in sample if r["ratio_kept"] > args.limit or not r["valid"]]
    if st["ratio"] > args.limit:
        bad.append(f"sample total against plain spirv-opt -O {st['ratio']:.3f}")
    if corpus:
        ct = _total(corpus)
        if ct["ratio_kept"] > args.limit or ct["invalid"]:
            bad.append(f"corpus total {ct['ratio_kept']:.3f} / invalid {ct['invalid']}")
        bad += [f"corpus shader {n}" for n in over]
    bad += [f"{n} did not compile (or spirv-opt refused it)" for n in FAILED]
    if bad:
        print(f"\nabove {args.limit}x spirv-opt -O or invalid: {', '.join(bad)}")
    return 1 if args.check and bad else 0


if __name__ == "__main__":
    sys.exit(main())
