"""A long fuzz campaign: `python -m tests.fuzz.campaign --inputs N --jobs 2 --seed S --out report.json`.

Inputs alternate between generated well-typed programs (hlsl_gen) and mutations (mutators) of
our own shaders and of generated programs; a share of the shader mutations use the grammar-aware
mutators alone.  Every input is compiled for both backends in a
subprocess worker with a per-input timeout.  Successful compiles are validated externally for
a random `--validate-fraction` of inputs (1.0 in CI).  The report holds the figures and one
reproducer per finding signature (written beside the report in `<out stem>_repro/`).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from . import hlsl_gen, mutators
from .outcome import FINDINGS
from .runner import DEFAULT_TIMEOUT, TARGETS, FuzzInput, Pool

GRAMMAR_SHARE = 0.3    # mutations of test seeds made by the grammar-aware mutators alone (they get past the parser)


def _targets(rng: random.Random, both_fraction: float) -> tuple[str, ...]:
    return TARGETS if rng.random() < both_fraction else (rng.choice(TARGETS),)


def make_inputs(count: int, seed: int, validate_fraction: float = 1.0, gen_fraction: float = 0.5,
                start: int = 0, both_fraction: float = 1.0) -> Iterator[FuzzInput]:
    """The campaign's input stream; input i depends only on (seed, i), so any one is reproducible.
    Each input is compiled for both backends with probability `both_fraction`, else for one."""
    seeds = mutators.load_seeds()
    weights = [s.weight for s in seeds]
    donors = [s.data for s in seeds]
    for i in range(start, start + count):
        rng = random.Random(f"{seed}:{i}")
        validate = rng.random() < validate_fraction
        targets = _targets(rng, both_fraction)
        if rng.random() < gen_fraction:
            prog = hlsl_gen.generate(rng)
            yield FuzzInput(f"gen_{i}.hlsl", prog.source.encode(), f"gen seed={seed} i={i}", targets, validate)
            continue
        if rng.random() < 0.3:  # mutate a generated program: mutations then reach sema and the backends
            base, name, options = hlsl_gen.generate(rng).source.encode(), "generated", {}
        else:
            s = rng.choices(seeds, weights)[0]
            base, name, options = s.data, s.name, s.compile_options()
        if name != "generated" and rng.random() < GRAMMAR_SHARE:
            data, applied = mutators.mutate_grammar(rng, base)
        else:
            data, applied = mutators.mutate(rng, base, donors)
        yield FuzzInput(f"mut_{i}.hlsl", data, f"mutate {name} [{','.join(applied)}] seed={seed} i={i}",
                        targets, validate, options=options)


class Tally:
    """Counts, timings and first reproducers, as the report JSON."""

    def __init__(self, repro_dir: Path | None) -> None:
        self.inputs = 0
        self.compiles: Counter[str] = Counter()
        self.by_kind: Counter[str] = Counter()
        self.findings: dict[str, dict] = {}
        self.validated = 0
        self.repro_dir = repro_dir
        self.t0 = time.monotonic()

    def add(self, job: FuzzInput, outcomes: list) -> list[str]:
        """Record one input; returns the signatures seen for the first time."""
        self.inputs += 1
        self.by_kind[job.name.split("_")[0]] += 1
        new = []
        for o in outcomes:
            self.compiles[f"{o.target}:{o.cls}"] += 1
            self.validated += job.validate and o.cls == "ok"
            if o.cls not in FINDINGS:
                continue
            sig = o.signature
            entry = self.findings.get(sig)
            if entry is None:
                path = None
                if self.repro_dir is not None:
                    self.repro_dir.mkdir(parents=True, exist_ok=True)
                    path = self.repro_dir / f"{len(self.findings):03d}_{o.cls}_{o.target}_{job.name}"
                    path.write_bytes(job.data)
                entry = self.findings[sig] = {"class": o.cls, "target": o.target, "count": 0, "origin": job.origin,
                                              "detail": o.detail[:3000], "reproducer": str(path) if path else None,
                                              "options": job.options}
                new.append(sig)
            entry["count"] += 1
        return new

    def report(self, args: dict, retried: list[str] | None = None, startup_failures: int = 0) -> dict:
        elapsed = time.monotonic() - self.t0
        bad = sum(f["count"] for f in self.findings.values())
        return {"args": args, "inputs": self.inputs, "by_kind": dict(self.by_kind), "compiles": dict(self.compiles),
                "validated_ok_compiles": self.validated, "finding_compiles": bad,
                "distinct_findings": len(self.findings), "seconds": round(elapsed, 1),
                "inputs_per_second": round(self.inputs / elapsed, 2) if elapsed else None,
                "timeouts_retried": len(retried or []), "worker_startup_failures": startup_failures, "retried_origins": (retried or [])[:50],
                "findings": self.findings}


def findings_markdown(report: dict) -> str:
    lines = [f"# Fuzz findings ({report['inputs']} inputs, {report['seconds']} s)", ""]
    for sig, f in report["findings"].items():
        lines += [f"## {f['class']} ({f['target']}) x{f['count']}", f"- signature: `{sig}`",
                  f"- origin: {f['origin']}", f"- reproducer: {f['reproducer']}", f"- options: {f['options']}",
                  "```", f["detail"][:1500], "```", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz.campaign", description=__doc__.split("\n\n")[0])
    ap.add_argument("--inputs", type=int, default=100_000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=0, help="index of the first input (to resume or shard)")
    ap.add_argument("--out", default="fuzz_report.json")
    ap.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per input (a hang beyond)")
    ap.add_argument("--validate-fraction", type=float, default=0.1)
    ap.add_argument("--gen-fraction", type=float, default=0.4)
    ap.add_argument("--both-fraction", type=float, default=0.2, help="share of inputs compiled for both backends")
    ap.add_argument("--recycle", type=int, default=2000, help="restart each worker after N inputs")
    ap.add_argument("--findings-md", default=None, help="also keep a markdown list of findings up to date here")
    ap.add_argument("--progress", type=int, default=1000, help="report progress every N inputs")
    args = ap.parse_args(argv)
    out = Path(args.out)
    tally = Tally(out.with_name(out.stem + "_repro"))

    pool = Pool(args.jobs, args.timeout, args.recycle)

    def flush() -> dict:
        report = tally.report(vars(args), pool.retried, pool.startup_failures)
        out.write_text(json.dumps(report, indent=1, sort_keys=True))
        if args.findings_md:
            Path(args.findings_md).write_text(findings_markdown(report))
        return report

    stream = make_inputs(args.inputs, args.seed, args.validate_fraction, args.gen_fraction, args.start,
                         args.both_fraction)
    with pool:
        for job, outcomes in pool.run(stream):
            new = tally.add(job, outcomes)
            for sig in new:
                print(f"NEW FINDING {sig}\n  {job.origin}", file=sys.stderr, flush=True)
            if new or tally.inputs % args.progress == 0:
                r = flush()
                print(f"[{r['seconds']:>8.1f}s] {r['inputs']} inputs, {r['distinct_findings']} findings, "
                      f"{r['inputs_per_second']}/s", file=sys.stderr, flush=True)
    report = flush()
    print(json.dumps({k: v for k, v in report.items() if k != "findings"}, indent=1))
    return 1 if report["findings"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
