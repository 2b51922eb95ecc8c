"""Distributed build benchmark: the same generated project through three paths.

    python bench/distributed_bench.py [--targets 500] [--workers 2] [--keep DIR]

Reports, for a project of ~N targets (small compute shaders x permutation matrix x
{spirv, dxil}):
  * a clean build with the local executor (the scheduler's process pool, -j WORKERS)
  * a clean build through a Dask LocalCluster of WORKERS worker processes
    (cluster start-up reported separately: a real cluster is started once)
  * a clean build of a second checkout that finds everything in the shared cache
    (a Redis server on loopback when `redis-server` is installed, else a directory)
Timings only; correctness lives in tests/build/test_dask_executor.py and tests/build/test_shared_cache.py.
`write_project` is shared with those tests.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SHADER = """\
#include "common.hlsli"
#if USE_EXTRA
#include "extra.hlsli"
#endif
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(64,1,1)]
void main(uint3 id : SV_DispatchThreadID)
{{
    Out[id.x] = id.x * SCALE + OFFSET + BIAS{extra} + {salt}u;
}}
"""
COMMON = "#define BIAS 3\n"
EXTRA = "#define EXTRA_TERM 5u\n"


def write_project(root: Path, targets: int = 500, *, shaders: int = 2, extra_output: str | None = None) -> int:
    """A project of about `targets` targets (rounded to the permutation grid); returns the count."""
    per_shader = max(1, targets // (2 * shaders))          # permutations per shader (2 backends)
    scales = max(1, min(25, per_shader))
    offsets = max(1, -(-per_shader // scales))
    (root / "shaders").mkdir(parents=True, exist_ok=True)
    (root / "shaders" / "common.hlsli").write_text(COMMON)
    (root / "shaders" / "extra.hlsli").write_text(EXTRA)
    for s in range(shaders):
        extra = " + EXTRA_TERM" if s % 2 else ""
        (root / "shaders" / f"k{s}.hlsl").write_text(SHADER.format(extra=extra, salt=s))
    outputs = f'outputs = ["{extra_output}"]\n' if extra_output else ""
    toml = [
        'output_dir = "out"', 'targets = ["spirv", "dxil"]', 'profile = "cs_6_0"', 'include_dirs = ["shaders"]',
        outputs,
    ]
    for s in range(shaders):
        toml += ["[[shader]]", f'files = "shaders/k{s}.hlsl"', f"defines = {{ USE_EXTRA = {s % 2} }}",
                 "[shader.permutations]",
                 f"SCALE = [{', '.join(str(i + 1) for i in range(scales))}]",
                 f"OFFSET = [{', '.join(str(i) for i in range(offsets))}]", ""]
    (root / "shaderbuild.toml").write_text("\n".join(toml))
    return shaders * scales * offsets * 2


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """A throwaway redis-server on a free loopback port (no persistence), stopped on exit."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(workdir), "--protected-mode", "yes"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.stop()
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> RedisServer:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def _timed(fn):
    t = time.perf_counter()
    value = fn()
    return time.perf_counter() - t, value


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--targets", type=int, default=500)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=None, help="targets per task (default: the executor's)")
    ap.add_argument("--keep", help="generate into this directory and keep it")
    args = ap.parse_args(argv)

    from shaderbuild.build.config import load_project
    from shaderbuild.build.distributed_config import CacheSettings, ExecutorSettings, open_executor
    from shaderbuild.build.scheduler import build

    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="sb-dist-bench-"))
    try:
        n = write_project(base / "local", args.targets)
        for name in ("dask", "ci", "dev"):
            shutil.copytree(base / "local", base / name)
        print(f"project: {n} targets (spirv + dxil), {args.workers} workers, {os.cpu_count()} cores")
        rows = []

        t, rep = _timed(lambda: build(load_project(str(base / "local")), jobs=args.workers, quiet=True))
        assert rep.ok and len(rep.built) == n
        rows.append(("local executor (process pool), clean build", t))

        project = load_project(str(base / "dask"))
        ex = open_executor(project, ExecutorSettings("dask", workers=args.workers, batch=args.batch), CacheSettings())
        t_start, _ = _timed(ex.backend.slots)     # the cluster starts on first use
        with ex:
            t, rep = _timed(lambda: build(project, jobs=args.workers, quiet=True, executor=ex))
        assert rep.ok and len(rep.built) == n
        rows.append((f"dask LocalCluster start ({args.workers} worker processes)", t_start))
        rows.append(("dask executor, clean build", t))

        server = RedisServer(base) if shutil.which("redis-server") else None
        try:
            shared = server.url if server else str(base / "shared-cache")
            for name, mode in (("ci", "read-write"), ("dev", "read")):
                project = load_project(str(base / name))
                ex = open_executor(project, ExecutorSettings("local", workers=args.workers, batch=args.batch),
                                   CacheSettings(shared=shared, mode=mode))
                with ex:
                    t, rep = _timed(lambda p=project, e=ex: build(p, jobs=args.workers, quiet=True, executor=e))
                assert rep.ok and len(rep.built) == n
                label = ("CI build filling the shared cache" if mode == "read-write"
                         else "second checkout, fully cached")
                rows.append((f"{label} ({'redis' if server else 'directory'}): {ex.stats.summary()}", t))
        finally:
            if server:
                server.stop()
        width = max(len(r[0]) for r in rows)
        for label, seconds in rows:
            print(f"  {label:<{width}}  {seconds:7.2f} s")
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
