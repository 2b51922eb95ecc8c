"""Save-to-new-binary latency of `shaderbuild watch`.

Runs the real watcher (`python -m shaderbuild watch --events=json`) on a temp
project and measures, per save:

* binary: from the moment the edited file is written until every affected
  binary on disk has been replaced (polled with os.stat every 0.5 ms);
* event:  until the watcher's `cycle` event line arrives on its stdout.

Two scenarios: editing one shader (one target), and editing an .hlsli that 20
shaders include (20 targets).  The target for the one-shader edit is < 200 ms.

    python bench/watch_bench.py [--runs 20] [--debounce 0.05] [--poll] [--backends spirv,dxil]
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

SHADER = """\
#include "shared.hlsli"
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) {{ Out[id.x] = id.x * SCALE + {n}; }}
"""
SINGLE = """\
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) {{ Out[id.x] = id.x * 3 + {n}; }}
"""
PROJECT = """\
output_dir = "out"
targets = {targets}
layout = "by-backend"
profile = "cs_6_0"

[[shader]]
files = "shaders/*.hlsl"
"""
DEPENDENTS = 20


EXTENSIONS = {"spirv": ".spv", "dxil": ".dxil"}


def make_project(root: Path, backends: list[str]) -> None:
    (root / "shaders").mkdir(parents=True)
    (root / "shaderbuild.toml").write_text(PROJECT.format(targets=json.dumps(backends)))
    (root / "shaders" / "shared.hlsli").write_text("#define SCALE 1\n")
    (root / "shaders" / "single.hlsl").write_text(SINGLE.format(n=0))
    for i in range(DEPENDENTS):
        (root / "shaders" / f"dep{i:02d}.hlsl").write_text(SHADER.format(n=i))


def stat_key(path: Path):
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


class Watcher:
    def __init__(self, root: Path, extra: list[str]) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "shaderbuild", "watch", str(root), "--events=json",
                                      *extra], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put((time.perf_counter(), json.loads(line)))

    def wait(self, kind: str, timeout: float = 30.0) -> tuple[float, dict]:
        deadline = time.monotonic() + timeout
        while True:
            t, ev = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            if ev["event"] == kind:
                return t, ev

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=10)


def measure(w: Watcher, edit: Path, text: str, binaries: list[Path], expect: int) -> tuple[float, float]:
    before = {b: stat_key(b) for b in binaries}
    t0 = time.perf_counter()
    edit.write_text(text)
    pending = set(binaries)
    while pending:
        pending = {b for b in pending if stat_key(b) == before[b]}
        if pending:
            if time.perf_counter() - t0 > 30:
                raise RuntimeError(f"binaries not rebuilt: {sorted(map(str, pending))}")
            time.sleep(0.0005)
    t_bin = time.perf_counter()
    t_ev, ev = w.wait("cycle")
    if len(ev["built"]) != expect:
        raise RuntimeError(f"expected {expect} rebuilt targets, got {ev['built']}")
    return (t_bin - t0) * 1000, (t_ev - t0) * 1000


def summary(name: str, samples: list[tuple[float, float]]) -> str:
    def fmt(values: list[float]) -> str:
        values = sorted(values)
        p90 = values[min(len(values) - 1, int(round(0.9 * (len(values) - 1))))]
        return (f"median {statistics.median(values):6.1f}  p90 {p90:6.1f}  "
                f"min {values[0]:6.1f}  max {values[-1]:6.1f} ms")

    return (f"{name}\n  binary on disk: {fmt([s[0] for s in samples])}\n"
            f"  cycle event   : {fmt([s[1] for s in samples])}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--debounce", type=float, default=None, help="passed to the watcher (default: its own)")
    ap.add_argument("--poll", action="store_true", help="use the polling observer (interval 0.05 s)")
    ap.add_argument("--backends", default="spirv", help="comma-separated backends to build (default: spirv)")
    args = ap.parse_args()
    backends = [b for b in args.backends.split(",") if b]
    extra = [] if args.debounce is None else ["--debounce", str(args.debounce)]
    if args.poll:
        extra += ["--poll", "--poll-interval", "0.05"]
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        make_project(root, backends)
        w = Watcher(root, extra)
        try:
            w.wait("ready", timeout=120)

            def outputs(stem: str) -> list[Path]:
                return [root / "out" / b / "shaders" / f"{stem}{EXTENSIONS[b]}" for b in backends]

            single, shared = root / "shaders" / "single.hlsl", root / "shaders" / "shared.hlsli"
            one = [measure(w, single, SINGLE.format(n=i + 1), outputs("single"), len(backends))
                   for i in range(args.runs)]
            deps = [p for i in range(DEPENDENTS) for p in outputs(f"dep{i:02d}")]
            many = [measure(w, shared, f"#define SCALE {i + 2}\n", deps, DEPENDENTS * len(backends))
                    for i in range(args.runs)]
        finally:
            w.stop()
    mode = "polling" if args.poll else "native"
    n = len(backends)
    print(f"shaderbuild watch latency ({mode} observer, debounce {args.debounce or 'default'}, "
          f"backends {','.join(backends)}, {args.runs} runs)")
    print(summary(f"one-shader edit ({n} target{'s' if n > 1 else ''})", one))
    print(summary(f".hlsli edit ({DEPENDENTS} dependent shaders, {DEPENDENTS * n} targets)", many))
    return 0


if __name__ == "__main__":
    sys.exit(main())
