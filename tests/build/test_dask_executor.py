"""The Dask executor (shaderbuild/build/executors/) against a real LocalCluster.

One cluster of three single-threaded worker processes serves the module.  The
500-target project is built once with the plain local executor as the reference;
Dask builds must produce byte-identical outputs, also when a worker process is
killed mid-build.
"""

from __future__ import annotations

import importlib.util
import io
import json
import logging
import os
import shutil
import signal
import threading
import time
from pathlib import Path

import pytest

from shaderbuild.build.config import load_project
from shaderbuild.build.executors.backends import DaskBackend, InlineBackend, _import_distributed
from shaderbuild.build.executors.runner import RemoteExecutor
from shaderbuild.build.executors.task import TaskInput, compile_task
from shaderbuild.build.scheduler import build
from shaderbuild.options import CompileOptions

if importlib.util.find_spec("distributed") is None:
    pytest.skip("Dask 'distributed' is not installed (pip install 'shaderbuild[distributed]')", allow_module_level=True)

_spec = importlib.util.spec_from_file_location(
    "distributed_bench", Path(__file__).resolve().parents[2] / "bench" / "distributed_bench.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

N_TARGETS = 500
WORKERS = 3


def outputs_of(root: Path) -> dict[str, bytes]:
    out = root / "out"
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and ".shaderbuild" not in p.parts}


class chdir:   # noqa: N801 - contextlib.chdir is Python >= 3.11 only
    def __init__(self, path: Path) -> None:
        self.path, self.old = path, os.getcwd()

    def __enter__(self) -> None:
        os.chdir(self.path)

    def __exit__(self, *exc) -> None:
        os.chdir(self.old)


@pytest.fixture(scope="module")
def client():
    distributed = _import_distributed()
    cluster = distributed.LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=logging.CRITICAL)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(scope="module")
def source_tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("src") / "proj"
    assert bench.write_project(root, N_TARGETS) == N_TARGETS
    return root


@pytest.fixture(scope="module")
def reference(source_tree, tmp_path_factory) -> dict[str, bytes]:
    """The local executor's outputs (the scheduler's own process pool), built from the project root."""
    root = tmp_path_factory.mktemp("ref") / "proj"
    shutil.copytree(source_tree, root)
    with chdir(root):
        report = build(load_project(str(root)), jobs=2, quiet=True)
    assert report.ok and len(report.built) == N_TARGETS
    return outputs_of(root)


def dask_build(client, root: Path, executor_batch: int | None = None, **kw):
    with RemoteExecutor(DaskBackend(client=client), None, str(root), batch=executor_batch) as ex, chdir(root):
        report = build(load_project(str(root)), quiet=True, executor=ex, **kw)
    return report, ex.stats


def checkout(source_tree: Path, tmp_path: Path) -> Path:
    dest = tmp_path / "proj"
    shutil.copytree(source_tree, dest)
    return dest


def test_dask_build_is_byte_identical_to_local(client, source_tree, reference, tmp_path):
    root = checkout(source_tree, tmp_path)
    report, stats = dask_build(client, root)
    assert report.ok and len(report.built) == N_TARGETS and not report.failed
    assert stats.compiled == N_TARGETS
    assert len([w for w in stats.workers if w.startswith("tcp://")]) >= 2   # really spread over the cluster
    ours = outputs_of(root)
    assert ours.keys() == reference.keys() and len(ours) == 2 * N_TARGETS + 1
    assert [name for name in ours if ours[name] != reference[name]] == []
    manifest = json.loads(ours[next(n for n in ours if n.endswith(".spv.json"))])
    assert manifest["source"].startswith("shaders/k")    # named relative to the client's cwd, not the worker's
    report, stats = dask_build(client, root)
    assert len(report.up_to_date) == N_TARGETS and stats.compiled == 0   # the database records are complete


def test_killed_worker_still_finishes_the_build(client, source_tree, reference, tmp_path):
    root = checkout(source_tree, tmp_path)
    pids = client.run(os.getpid)
    seen: dict = {}

    def killer() -> None:
        """Once the build is under way, SIGKILL a worker process that has a task in flight."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            n = sum(1 for _ in (root / "out").rglob("*.spv")) if (root / "out").exists() else 0
            if n >= 20:
                processing = client.processing()     # one snapshot: a second call may find the batch done
                busy = [addr for addr, keys in processing.items() if keys and addr in pids]
                if busy:
                    seen.update(outputs_at_kill=n, victim=pids[busy[0]], in_flight=processing[busy[0]])
                    os.kill(pids[busy[0]], signal.SIGKILL)
                    return
            time.sleep(0.005)

    thread = threading.Thread(target=killer)
    thread.start()
    try:
        report, stats = dask_build(client, root, executor_batch=4)
    finally:
        thread.join()
    assert 0 < seen["outputs_at_kill"] < N_TARGETS               # the kill happened mid-build...
    assert seen["in_flight"]                                     # ...while that worker was compiling
    assert report.ok and len(report.built) == N_TARGETS and stats.failed_tasks == 0
    assert outputs_of(root) == reference
    deadline = time.monotonic() + 30
    while seen["victim"] in client.run(os.getpid).values() and time.monotonic() < deadline:  # pragma: no cover
        time.sleep(0.2)
    assert seen["victim"] not in client.run(os.getpid).values()    # that process is really gone


def broken_project(root: Path) -> None:
    bench.write_project(root, 8)
    (root / "shaders" / "bad.hlsl").write_text(
        "RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(1,1,1)] void main() { Out[0] = undefined_name; }\n")
    with open(root / "shaderbuild.toml", "a") as f:
        f.write('\n[[shader]]\nfiles = "shaders/bad.hlsl"\n')


def test_keep_going_and_failure_reporting(client, tmp_path):
    root = tmp_path / "proj"
    broken_project(root)
    report, stats = dask_build(client, root, keep_going=True)
    assert sorted(report.failed) == ["shaders/bad.hlsl:main@dxil", "shaders/bad.hlsl:main@spirv"]
    assert len(report.built) == 8 and not report.skipped and not report.ok
    assert any("undefined_name" in m and "bad.hlsl:2" in m for m in report.messages)


def test_stop_after_first_failure_without_keep_going(client, tmp_path):
    root = tmp_path / "proj"
    broken_project(root)
    toml = root / "shaderbuild.toml"
    text = toml.read_text()
    toml.write_text(text[:text.index("[[shader]]")] + text[text.rindex("[[shader]]"):]
                    + text[text.index("[[shader]]"):text.rindex("[[shader]]")])   # the broken shader first
    report, _ = dask_build(client, root)
    assert report.failed and not report.ok
    assert len(report.failed) + len(report.built) + len(report.skipped) == 10
    assert report.skipped                     # queued work was cancelled, not run


class InterruptingStream(io.StringIO):
    """Progress output that raises KeyboardInterrupt (as Ctrl-C would) after `after` lines."""

    def __init__(self, after: int) -> None:
        super().__init__()
        self.after = after

    def write(self, s: str) -> int:
        if s.endswith("\n") and self.getvalue().count("\n") >= self.after:
            raise KeyboardInterrupt
        return super().write(s)


def test_ctrl_c_cancels_queued_tasks(client, tmp_path):
    root = tmp_path / "proj"
    n = bench.write_project(root, 160)
    ex = RemoteExecutor(DaskBackend(client=client), None, str(root), batch=4)
    with ex, pytest.raises(KeyboardInterrupt):
        build(load_project(str(root)), executor=ex, stream=InterruptingStream(20), tty=False)
    deadline = time.monotonic() + 20
    while client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.tasks)) == 0
    # What finished before the interrupt is recorded; the next build does only the rest.
    report, stats = dask_build(client, root)
    assert report.ok and 20 <= len(report.up_to_date) < n
    assert len(report.up_to_date) + stats.compiled == n


def test_cli_executor_option_with_scheduler_address(client, tmp_path, capsys):
    from shaderbuild.build_cli import main

    root = tmp_path / "proj"
    n = bench.write_project(root, 12)
    address = client.scheduler.address
    assert main(["build", str(root), "--executor", f"dask={address}", "-q"]) == 0
    err = capsys.readouterr().err
    assert f"dask at {address}" in err and f"{n} compiled" in err
    assert len(list((root / "out").rglob("*.dxil"))) == n // 2


def test_task_needs_no_filesystem():
    src = "/nonexistent/proj/shaders/k.hlsl"
    files = {src: b'#include "inc.hlsli"\nRWStructuredBuffer<uint> Out : register(u0);\n'
                  b'[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = id.x * K; }\n',
             "/nonexistent/proj/inc/inc.hlsli": b"#define K 9u\n"}
    opts = CompileOptions(entry="main", profile="cs_6_0", target="spirv", include_dirs=["/nonexistent/proj/inc"])
    out = compile_task(TaskInput("t", "k", src, opts, files, kinds=("header",), source_name="shaders/k.hlsl",
                                 header_symbol="g_k"))
    assert out.ok and out.files["binary"][:4] == b"\x03\x02\x23\x07"
    assert json.loads(out.files["manifest"])["source"] == "shaders/k.hlsl"
    assert b"g_k[" in out.files["header"] and "disassembly" not in out.files
    assert sorted(out.dependencies) == sorted(files)
    assert out.misses == ["/nonexistent/proj/shaders/inc.hlsli"]   # probed first, absent: not an error
    del files["/nonexistent/proj/inc/inc.hlsli"]
    out = compile_task(TaskInput("t", "k", src, opts, files))
    assert not out.ok and "inc.hlsli" in out.messages


def test_incomplete_scan_is_repaired_by_resubmission(tmp_path):
    """A closure scan that misses includes: each worker miss makes the client send the file."""
    ref, root = tmp_path / "ref", tmp_path / "proj"
    n = bench.write_project(ref, 40)
    shutil.copytree(ref, root)
    with chdir(ref):
        assert build(load_project(str(ref)), jobs=1, quiet=True).ok

    def main_file_only(path, options, *, reader):
        reader(path)
        return [path]

    with RemoteExecutor(InlineBackend(), None, str(root), scan_fn=main_file_only) as ex, chdir(root):
        report = build(load_project(str(root)), quiet=True, executor=ex)
    # k0.hlsl misses common.hlsli (one resubmission), k1.hlsl then also extra.hlsli (two).
    assert report.ok and ex.stats.rescans == n // 2 * 3 and ex.stats.compiled == n
    assert outputs_of(root) == outputs_of(ref)
