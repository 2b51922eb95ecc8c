"""The SCons tool's worker pool (shaderbuild/scons/pool.py) and the action's staged outputs.

The pool runs a test function in forked workers; each run appends a line to a log file, so
"compiled ahead", "compiled once" and "compiled again" are observed, not inferred.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from shaderbuild.options import CompileOptions
from shaderbuild.scons.action import _discard, _fresh, compile_outputs
from shaderbuild.scons.options import encode
from shaderbuild.scons.pool import Pool

LOG: Path | None = None
PREPARED: list[int] = []


def _run(job):
    """A worker's job: ("die",) exits the worker; else log the job and return (job, pid, prepared)."""
    if job[0] == "die":
        os._exit(3)
    assert LOG is not None
    with open(LOG, "a") as f:
        f.write(f"{job[0]} {os.getpid()}\n")
    return job, os.getpid(), list(PREPARED)


def _prepare():
    PREPARED.append(os.getpid())


def _failed(message: str):
    return ("failed", message)


def _runs() -> list[tuple[str, str]]:
    """(job key, worker pid) per run, in the order the runs started."""
    assert LOG is not None
    return [tuple(line.split()) for line in LOG.read_text().splitlines()] if LOG.exists() else []


def _logged() -> list[str]:
    return [key for key, _ in _runs()]


@pytest.fixture
def pool(tmp_path: Path):
    global LOG
    LOG = tmp_path / "runs.log"
    discarded: list = []
    p = Pool(2, _run, _prepare, _failed, discarded.append)
    p.discarded = discarded          # type: ignore[attr-defined]
    yield p
    p.close()


def _fresh_always(result) -> bool:
    return True


def test_jobs_run_in_two_forked_workers_prepared_once(pool: Pool):
    results = [pool.run(f"k{i}", (f"k{i}", i), _fresh_always) for i in range(8)]
    assert [r[0] for r in results] == [(f"k{i}", i) for i in range(8)]
    pids = {r[1] for r in results}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2
    # prepare() ran in the first worker only, before it forked the second (which inherited its effect)
    assert {tuple(r[2]) for r in results} == {(pool.pid,)}
    assert PREPARED == []                       # never in this (the SCons) process
    assert sorted(_logged()) == sorted(f"k{i}" for i in range(8))


def _wait_for(predicate, seconds: float = 20.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return False


def test_declared_jobs_compile_ahead_once_started(pool: Pool):
    for key in ("a", "b", "c", "d"):
        pool.ahead(key, (key, 0))
    time.sleep(0.2)
    assert _logged() == []                      # not before SCons runs a first action
    assert pool.run("a", ("a", 0), _fresh_always, ahead=True)[0] == ("a", 0)
    a_pid = dict(_runs())["a"]                  # the job asked for ran first on its worker
    assert [key for key, pid in _runs() if pid == a_pid][0] == "a"
    assert _wait_for(lambda: sorted(_logged()) == ["a", "b", "c", "d"])   # nobody asked yet
    for key in ("c", "b", "d"):
        assert pool.run(key, (key, 0), _fresh_always)[0] == (key, 0)
    assert sorted(_logged()) == ["a", "b", "c", "d"]                      # each compiled once


def test_a_stale_or_different_result_is_compiled_again(pool: Pool):
    pool.ahead("stale", ("stale", 0))
    pool.ahead("changed", ("changed", 1))
    pool.run("go", ("go", 0), _fresh_always, ahead=True)
    assert _wait_for(lambda: sorted(_logged()) == ["changed", "go", "stale"])
    checks = []

    def stale_once(result) -> bool:
        checks.append(result)
        return False

    assert pool.run("stale", ("stale", 0), stale_once)[0] == ("stale", 0)
    assert len(checks) == 1                     # the recompiled result is taken as it is
    assert pool.run("changed", ("changed", 2), _fresh_always)[0] == ("changed", 2)
    assert sorted(_logged()) == ["changed", "changed", "go", "stale", "stale"]
    assert len(pool.discarded) == 2             # type: ignore[attr-defined]


def test_a_dead_worker_fails_only_its_job(pool: Pool):
    assert pool.run("die", ("die",), _fresh_always)[0] == "failed"
    results = [pool.run(f"k{i}", (f"k{i}", i), _fresh_always) for i in range(4)]
    assert [r[0] for r in results] == [(f"k{i}", i) for i in range(4)]
    assert len({r[1] for r in results}) == 1    # the surviving worker


def test_close_discards_what_nobody_took(tmp_path: Path):
    global LOG
    LOG = tmp_path / "runs.log"
    discarded: list = []
    p = Pool(2, _run, _prepare, _failed, discarded.append)
    for i in range(6):
        p.ahead(f"k{i}", (f"k{i}", i))
    taken = p.run("k0", ("k0", 0), _fresh_always, ahead=True)
    p.close()
    ran = _logged()
    assert taken[0] == ("k0", 0)
    assert sorted(r[0][0] for r in discarded) == sorted(k for k in ran if k != "k0")


def test_staged_outputs_and_freshness(tmp_path: Path):
    src = tmp_path / "s.hlsl"
    inc = tmp_path / "inc.hlsli"
    inc.write_text("#define V 3\n")
    src.write_text('#include "inc.hlsli"\nRWStructuredBuffer<uint> O : register(u0);\n'
                   "[numthreads(1,1,1)] void main(uint3 i : SV_DispatchThreadID) { O[i.x] = V; }\n")
    binary = str(tmp_path / "out" / "s.spv")
    job = (str(src), encode(CompileOptions(target="spirv", profile="cs_6_0")), binary, ("disassembly",), "s", "gnu")
    ok, text, pid, deps, files, inputs = result = compile_outputs(job)
    assert ok and text == "" and pid == os.getpid()
    assert sorted(files) == ["binary", "disassembly", "manifest"]
    assert [p for p, _ in files.values()] == [binary, binary + ".json", binary + ".dis"]   # docs/PROJECT_FILE.md: <binary>.json, .dis
    assert not os.path.exists(binary)           # staged under temporary names, next to the outputs
    staged = [t for _, t in files.values()]
    assert all(os.path.dirname(t) == os.path.dirname(binary) and os.path.exists(t) for t in staged)
    assert open(staged[0], "rb").read()[:4] == b"\x03\x02\x23\x07"
    assert {str(src), str(inc)} <= {p for p, _ in inputs}
    assert _fresh(result)
    os.utime(inc, ns=(1, 1))                    # an include changed since the compile read it
    assert not _fresh(result)
    _discard(result)
    assert not any(os.path.exists(t) for t in staged) and os.listdir(tmp_path / "out") == []


def _slow_prepare():
    time.sleep(30)


def test_a_pool_that_got_no_job_is_stopped_at_once(tmp_path: Path):
    """SCons built none of the declared targets: close() does not wait for the warm-up."""
    p = Pool(2, _run, _slow_prepare, _failed, lambda result: None)
    p.ahead("k", ("k", 0))          # declared, never started nor asked for
    start = time.monotonic()
    p.close()
    assert time.monotonic() - start < 10
    with pytest.raises(ChildProcessError):
        os.waitpid(p.pid, os.WNOHANG)            # reaped


def _alarm(signum, frame):
    raise TimeoutError("the pool blocked")


def test_jobs_and_results_larger_than_a_pipe_do_not_block(tmp_path: Path):
    """A job of 100 KB and its 100 KB result: writing the next job must not wait for a worker that
    waits for its result to be read."""
    import signal

    global LOG
    LOG = tmp_path / "runs.log"
    p = Pool(2, _run, _prepare, _failed, lambda result: None)
    big = "x" * 100_000
    for i in range(8):
        p.ahead(f"k{i}", (f"k{i}", big))
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(60)
    try:
        results = [p.run(f"k{i}", (f"k{i}", big), _fresh_always, ahead=True) for i in range(8)]
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        p.close()
    assert [r[0] for r in results] == [(f"k{i}", big) for i in range(8)]
    assert sorted(_logged()) == sorted(f"k{i}" for i in range(8))
