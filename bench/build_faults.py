"""Fault campaign for the build engine: kills, concurrent builds, a damaged database.

    python bench/build_faults.py [--kills 100] [--concurrent 20] [--flips 100] [--seed 1] [--json FILE]

Every trial checks the same property: nothing lost, no wrong binary accepted.

* kill-main / kill-group: a `-j 2` build is SIGKILLed at a random moment, the main process only
  or its whole process group.  Then: every output present is byte-identical to a reference
  build (no truncated or wrong file), the database opens without a warning, no pool worker is
  alive 5 s later, the lock is free at once (a `--no-wait` build succeeds), that build
  rebuilds only targets without a record (a recorded target is never lost), and afterwards
  every output equals the reference and a further build compiles nothing.
* concurrent: three builds start at once after an edit; all exit 0, together they compile
  each stale target exactly once, and the outputs equal the reference of the edited tree.
* db-flip: one random byte of `.shaderbuild/build.db` is XORed with a random non-zero value,
  then a build runs: it must succeed with outputs equal to the reference and no cross-backend
  mismatch; a second build must compile nothing and warn about nothing (reported once).

The compiler is tests/test_build_engine.fake_compile (with a sleep, so kills land mid-build):
the campaign tests the engine, not the compiler.  tests/build/test_build_fault_campaign.py runs a
few trials of each in CI; docs/RELIABILITY.md has the figures of a full run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TESTS = REPO / "tests" / "build"     # test_build_engine.py, whose helpers the campaign uses
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

from test_build_engine import PROJECT_TOML, fake_compile, make_project, output_bytes, run_build  # noqa: E402

from shaderbuild.build.config import load_project  # noqa: E402
from shaderbuild.build.database import BuildDB  # noqa: E402
from shaderbuild.build.lock import LockBusy  # noqa: E402
from shaderbuild.build.scheduler import is_up_to_date  # noqa: E402
from shaderbuild.build.targets import plan  # noqa: E402

MODES = 20                 # a.hlsl permutations: (MODES + 1) x 2 backends = 42 targets
SLEEP = "0.02"             # seconds per fake compile in the killed builds
TOML = PROJECT_TOML.format(targets='["spirv", "dxil"]').replace("MODE = [0, 1]", f"MODE = {list(range(MODES))}")


def _script(root: Path, jobs: int) -> str:
    return (f"import sys; sys.path.insert(0, {str(TESTS)!r})\n"
            "from test_build_engine import fake_compile\n"
            "from shaderbuild.build.config import load_project\n"
            "from shaderbuild.build.scheduler import build\n"
            f"r = build(load_project({str(root)!r}), compile_fn=fake_compile, jobs={jobs}, quiet=True)\n"
            "print('BUILT', len(r.built), flush=True)\n"
            "sys.exit(0 if r.ok else 1)\n")


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == pid:
                out.append(int(entry))
    return out


def _clean_outputs(out: dict[str, bytes]) -> dict[str, bytes]:
    return {k: v for k, v in out.items() if not os.path.basename(k).startswith(".tmp-")}


class Campaign:
    def __init__(self, work: Path, seed: int) -> None:
        self.work = work
        self.rng = random.Random(seed)
        self.ref = make_project(work / "ref", [], TOML)
        assert run_build(self.ref, fake_compile).ok
        self.reference = output_bytes(self.ref / "out")
        self.total = len(plan(load_project(str(self.ref))))
        self.build_seconds = self._timed_build()

    def _timed_build(self) -> float:
        root = make_project(self.work / "timing", [], TOML)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", _script(root, 2)], env=dict(os.environ, FAKE_COMPILE_SLEEP=SLEEP),
                       cwd=REPO, check=True, capture_output=True)
        shutil.rmtree(root)
        return time.perf_counter() - start

    # -- SIGKILL -------------------------------------------------------------------------------

    def kill(self, trial: int, group: bool) -> dict:
        root = make_project(self.work / f"kill-{'group' if group else 'main'}-{trial}", [], TOML)
        proc = subprocess.Popen([sys.executable, "-c", _script(root, 2)], cwd=REPO, start_new_session=True,
                                env=dict(os.environ, FAKE_COMPILE_SLEEP=SLEEP),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        delay = self.rng.uniform(0.0, self.build_seconds * 1.1)
        time.sleep(delay)
        workers = _children(proc.pid)
        if group:
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
        proc.wait()
        result = {"trial": trial, "delay": round(delay, 3), "failures": []}
        fail = result["failures"].append
        deadline = time.time() + 5
        while time.time() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.02)
        result["orphans"] = sum(_alive(w) for w in workers)
        if result["orphans"]:
            fail(f"{result['orphans']} worker(s) alive 5 s after the kill")
        for rel, data in _clean_outputs(output_bytes(root / "out")).items():
            if rel != "index.json" and data != self.reference.get(rel):
                fail(f"wrong or truncated output after the kill: {rel}")
        db = BuildDB.load(str(root / "out"), str(root))
        recorded = set(db.targets)
        result["recorded"] = len(recorded)
        if db.load_warning:
            fail(f"database after the kill: {db.load_warning}")
        try:
            report = run_build(root, fake_compile, wait=False)
        except LockBusy as exc:
            fail(f"lock still held after the kill: {exc}")
            report = run_build(root, fake_compile)
        by_name = {t.name: t.tid for t in plan(load_project(str(root)))}
        rebuilt_recorded = [n for n in report.built if by_name[n] in recorded]
        result["rebuilt"] = len(report.built)
        if not report.ok or report.warnings:
            fail(f"recovery build: ok={report.ok} warnings={report.warnings}")
        if rebuilt_recorded:
            fail(f"recorded targets were rebuilt (lost): {rebuilt_recorded[:3]}")
        if len(report.built) + len(report.up_to_date) != self.total or \
                len(report.built) != self.total - len(recorded):
            fail(f"recovery built {len(report.built)}, expected {self.total - len(recorded)}")
        if _clean_outputs(output_bytes(root / "out")) != self.reference:
            fail("outputs differ from the reference after recovery")
        if run_build(root, fake_compile).built:
            fail("a build after recovery compiled something")
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        shutil.rmtree(root, ignore_errors=True)
        return result

    # -- concurrent builds ---------------------------------------------------------------------

    def concurrent(self, trial: int, n: int = 3) -> dict:
        root = make_project(self.work / f"concurrent-{trial}", [], TOML)
        assert run_build(root, fake_compile).ok
        edited = self.rng.choice(["include/common.hlsli", "shaders/mode.hlsli", "shaders/b.hlsl"])
        (root / edited).write_text((root / edited).read_text() + f"// edit {trial}\n")
        ref = self.work / f"concurrent-ref-{trial}"
        shutil.copytree(root, ref)
        shutil.rmtree(ref / "out")
        assert run_build(ref, fake_compile).ok
        project = load_project(str(root))
        stale = sum(not is_up_to_date(project, t).fresh for t in plan(project))
        procs = [subprocess.Popen([sys.executable, "-c", _script(root, 2)], cwd=REPO, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True, env=dict(os.environ, FAKE_COMPILE_SLEEP="0.005"))
                 for _ in range(n)]
        outs = [p.communicate(timeout=120) for p in procs]
        result = {"trial": trial, "edited": edited, "failures": []}
        fail = result["failures"].append
        built = []
        for p, (out, err) in zip(procs, outs):
            if p.returncode != 0 or "Traceback" in err:
                fail(f"a concurrent build failed (exit {p.returncode}): {err[-300:]}")
            built += [int(line.split()[1]) for line in out.splitlines() if line.startswith("BUILT")]
        result["built"] = sorted(built)
        if output_bytes(root / "out") != output_bytes(ref / "out"):
            fail("outputs differ from the reference of the edited tree")
        if sorted(built) != [0] * (n - 1) + [stale]:
            fail(f"targets compiled per build: {sorted(built)} (one build should do all the work)")
        if run_build(root, fake_compile).built:
            fail("a build after the concurrent builds compiled something")
        shutil.rmtree(root, ignore_errors=True)
        shutil.rmtree(ref, ignore_errors=True)
        return result

    # -- a damaged database ----------------------------------------------------------------------

    def flips(self, count: int) -> list[dict]:
        root = make_project(self.work / "flips", [], TOML)
        assert run_build(root, fake_compile).ok
        path = root / "out" / ".shaderbuild" / "build.db"
        results = []
        for trial in range(count):
            data = bytearray(path.read_bytes())
            pos, xor = self.rng.randrange(len(data)), self.rng.randrange(1, 256)
            data[pos] ^= xor
            path.write_bytes(bytes(data))
            result = {"trial": trial, "offset": pos, "xor": xor, "size": len(data), "failures": []}
            fail = result["failures"].append
            try:
                report = run_build(root, fake_compile)
            except Exception as exc:  # noqa: BLE001 - a traceback is the finding
                fail(f"build raised {type(exc).__name__}: {exc}")
                results.append(result)
                continue
            result["warning"] = report.warnings[0] if report.warnings else None
            result["rebuilt"] = len(report.built)
            if not report.ok or report.mismatches:
                fail(f"build failed: ok={report.ok} mismatches={report.mismatches[:1]}")
            if output_bytes(root / "out") != self.reference:
                fail("outputs differ from the reference")
            again = run_build(root, fake_compile)
            if again.built or again.warnings:
                fail(f"second build: built {len(again.built)}, warnings {again.warnings}")
            results.append(result)
        return results


def summarize(name: str, results: list[dict]) -> dict:
    failures = [f"{name} #{r['trial']}: {f}" for r in results for f in r["failures"]]
    out = {"trials": len(results), "failed_trials": sum(bool(r["failures"]) for r in results), "failures": failures}
    if name.startswith("kill"):
        # where the kill landed: before the first record was committed (start-up, planning, creating
        # the database), between records, or after the last one (finishing: blobs, index, meta)
        out["killed_before_first_record"] = sum(r["recorded"] == 0 for r in results)
        out["killed_mid_build"] = sum(0 < r["recorded"] < r["recorded"] + r["rebuilt"] for r in results)
        out["killed_after_last_record"] = sum(r["rebuilt"] == 0 for r in results)
        out["orphans"] = sum(r["orphans"] for r in results)
    if name == "db-flip":
        out["no_effect"] = sum(r.get("warning") is None and r.get("rebuilt") == 0 for r in results)
        out["records_dropped"] = sum("damaged record" in (r.get("warning") or "") for r in results)
        out["database_replaced"] = sum("rebuilding everything" in (r.get("warning") or "") for r in results)
        out["rebuilt_without_warning"] = sum(r.get("warning") is None and r.get("rebuilt", 0) > 0 for r in results)
    return out


def run(kills: int, concurrent: int, flips: int, seed: int, work: Path | None = None) -> dict:
    with tempfile.TemporaryDirectory(prefix="shaderbuild-faults-") as tmp:
        c = Campaign(Path(work or tmp), seed)
        start = time.perf_counter()
        summary = {"targets": c.total, "build_seconds": round(c.build_seconds, 2)}
        summary["kill-main"] = summarize("kill-main", [c.kill(i, group=False) for i in range(kills)])
        summary["kill-group"] = summarize("kill-group", [c.kill(i, group=True) for i in range(kills)])
        summary["concurrent"] = summarize("concurrent", [c.concurrent(i) for i in range(concurrent)])
        summary["db-flip"] = summarize("db-flip", c.flips(flips))
        summary["seconds"] = round(time.perf_counter() - start, 1)
    return summary


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kills", type=int, default=100)
    ap.add_argument("--concurrent", type=int, default=20)
    ap.add_argument("--flips", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="write the summary here")
    args = ap.parse_args()
    summary = run(args.kills, args.concurrent, args.flips, args.seed)
    text = json.dumps(summary, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")
    return 1 if any(summary[k]["failures"] for k in ("kill-main", "kill-group", "concurrent", "db-flip")) else 0


if __name__ == "__main__":
    sys.exit(main())
