"""The build engine end to end: incremental decisions, robustness, outputs.

Every behavioural test runs twice: with the real compiler (shaderbuild.compiler)
and with `fake_compile`, a tiny deterministic stand-in that lets the engine be
tested on cases the real compiler never produces (backend disagreements, slow
compiles for the SIGKILL test).  Other test_build_* modules import the helpers.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from shaderbuild.build import blob as blobfmt
from shaderbuild.build import cache
from shaderbuild.build.config import load_project
from shaderbuild.build.lock import LockBusy, ProjectLock
from shaderbuild.build.scheduler import build
from shaderbuild.build.targets import plan
from shaderbuild.compiler import CompileResult
from shaderbuild.diagnostics import Diagnostic, SourceCache, SourceLoc

TESTS_DIR = Path(__file__).resolve().parent
REPO = TESTS_DIR.parents[1]

# --- a deterministic stand-in compiler ------------------------------------------------------

# CompileResult.disassembly became a lazy property over `disassembly_source`
_DISASSEMBLY_FIELD = "disassembly_source" if hasattr(CompileResult, "disassembly_source") else "disassembly"
_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
_RESOURCE = re.compile(r"(\w+)\s*:\s*register\(\s*([a-z])(\d+)\s*\)")


def fake_compile(path, options, *, text=None, reader=None, host=None):
    """Preprocesses #include/#if/#ifdef/#else/#endif/#error; the 'binary' hashes what survived."""
    reader = reader or (lambda p: Path(p).read_bytes())
    deps: list[str] = []
    kept: list[str] = []
    diags: list[Diagnostic] = []
    sources = SourceCache()
    defines = options.defines

    def run(p: str) -> None:
        p = os.path.abspath(p)
        deps.append(p)
        src = reader(p).decode()
        sources.add(p, src)
        live = [True]
        for lineno, line in enumerate(src.splitlines(), 1):
            s = line.strip()
            if s.startswith("#if ") or s.startswith("#ifdef "):
                name = s.split()[1]
                cond = name in defines if s.startswith("#ifdef") else defines.get(name, "0") not in ("0", "")
                live.append(live[-1] and cond)
            elif s.startswith("#else"):
                live[-1] = not live[-1] and live[-2]
            elif s.startswith("#endif"):
                live.pop()
            elif not live[-1]:
                continue
            elif (m := _INCLUDE.match(line)) is not None:
                dirs = [os.path.dirname(p), *options.include_dirs]
                run(next((os.path.join(d, m.group(1)) for d in dirs if os.path.isfile(os.path.join(d, m.group(1)))),
                         m.group(1)))
            elif s.startswith("#error"):
                diags.append(Diagnostic("error", s[6:].strip() or "#error", SourceLoc(p, lineno, line.index("#") + 1)))
            else:
                kept.append(line)

    run(path)
    if os.environ.get("FAKE_COMPILE_SLEEP"):
        time.sleep(float(os.environ["FAKE_COMPILE_SLEEP"]))
    if diags:
        return CompileResult(ok=False, diagnostics=diags, dependencies=deps, sources=sources)
    body = "\n".join(kept)
    for name, value in sorted(defines.items()):
        body = re.sub(rf"\b{name}\b", value, body)
    resources = []
    for name, cls, reg in _RESOURCE.findall(body):
        if options.target == "dxil" and "MISMATCH" in defines:
            reg = str(int(reg) + 1)
        resources.append({"name": name, "hlsl": {"class": cls, "register": int(reg), "space": 0, "count": 1}})
    digest = hashlib.sha256(f"{options.target}|{options.profile}|{options.entry}|{body}".encode()).digest()
    result = CompileResult(ok=True, binary=digest * 4, manifest={"resources": resources}, dependencies=deps,
                           sources=sources)
    setattr(result, _DISASSEMBLY_FIELD, f"; {options.target}\n{body}\n")
    return result


# --- the real compiler, when it works ------------------------------------------------------

SHADER = """\
#include "common.hlsli"
#if MODE
#include "mode.hlsli"
#else
#define EXTRA 0
#endif
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(64,1,1)] void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = id.x * SCALE + BIAS + EXTRA; }
"""
OTHER = """\
#include "common.hlsli"
RWStructuredBuffer<uint> Data : register(u1);
[numthreads(32,1,1)] void main(uint3 id : SV_DispatchThreadID) { Data[id.x] = id.x + SCALE; }
"""
COMMON = "#define SCALE 3\n"
MODE_H = "#define EXTRA 7\n"
PROJECT_TOML = """\
output_dir = "out"
targets = {targets}
include_dirs = ["include"]

[defines]
BIAS = 1

[[shader]]
files = "shaders/a.hlsl"
profile = "cs_6_0"
[shader.permutations]
MODE = [0, 1]

[[shader]]
files = "shaders/b.hlsl"
profile = "cs_6_0"
"""

_REAL_BACKENDS: list[str] | None = None


def real_backends() -> list[str]:
    """Backends the real compiler can already build the test shaders for."""
    global _REAL_BACKENDS
    if _REAL_BACKENDS is None:
        import tempfile

        from shaderbuild.compiler import compile_file
        from shaderbuild.options import CompileOptions

        ok = []
        with tempfile.TemporaryDirectory() as d:
            Path(d, "common.hlsli").write_text(COMMON)
            Path(d, "mode.hlsli").write_text(MODE_H)
            Path(d, "a.hlsl").write_text(SHADER)
            for backend in ("spirv", "dxil"):
                try:
                    res = compile_file(str(Path(d, "a.hlsl")), CompileOptions(target=backend,
                                                                                defines={"BIAS": "1", "MODE": "1"}))
                except NotImplementedError:
                    res = None
                except Exception:  # noqa: BLE001 - a crashing backend is not usable yet
                    res = None
                if res is not None and res.ok:
                    ok.append(backend)
        _REAL_BACKENDS = ok
    return _REAL_BACKENDS


def real_compile(path, options, **kw):
    from shaderbuild.compiler import compile_file

    return compile_file(path, options, **kw)


@pytest.fixture(params=["real", "fake"])
def compiler(request):
    """(compile_fn, backends) for the real compiler (skipped until it works) and the fake."""
    if request.param == "fake":
        return fake_compile, ["spirv", "dxil"]
    backends = real_backends()
    if not backends:
        pytest.skip("the real compiler cannot compile the test shader yet")
    return real_compile, backends


def make_project(root: Path, backends: list[str], toml: str | None = None) -> Path:
    (root / "shaders").mkdir(parents=True, exist_ok=True)
    (root / "include").mkdir(exist_ok=True)
    (root / "shaders" / "a.hlsl").write_text(SHADER)
    (root / "shaders" / "b.hlsl").write_text(OTHER)
    (root / "include" / "common.hlsli").write_text(COMMON)
    (root / "shaders" / "mode.hlsli").write_text(MODE_H)
    (root / "shaderbuild.toml").write_text(toml or PROJECT_TOML.format(targets=json.dumps(backends)))
    return root


def run_build(root: Path, compile_fn, **kw):
    project = load_project(str(root))
    kw.setdefault("jobs", 1)
    kw.setdefault("quiet", True)
    kw.setdefault("stream", open(os.devnull, "w"))  # noqa: SIM115
    return build(project, compile_fn=compile_fn, **kw)


def names(backends, *variants) -> set[str]:
    return {f"{v}@{b}" for v in variants for b in backends}


def output_bytes(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and ".shaderbuild" not in p.parts}


A0, A1, B = "shaders/a.hlsl:main[MODE=0]", "shaders/a.hlsl:main[MODE=1]", "shaders/b.hlsl:main"


# --- incremental decisions -----------------------------------------------------------------


def test_first_build_builds_all_then_nothing(tmp_path, compiler):
    fn, backends = compiler
    root = make_project(tmp_path, backends)
    first = run_build(root, fn)
    assert first.ok, first.messages
    assert set(first.built) == names(backends, A0, A1, B)
    second = run_build(root, fn)
    assert second.built == [] and set(second.up_to_date) == names(backends, A0, A1, B)


def test_touch_without_change_rebuilds_nothing(tmp_path, compiler):
    fn, backends = compiler
    root = make_project(tmp_path, backends)
    run_build(root, fn)
    later = time.time() + 100
    for p in [root / "shaders/a.hlsl", root / "include/common.hlsli", root / "shaders/mode.hlsli",
              root / "shaderbuild.toml"]:
        os.utime(p, (later, later))
    assert run_build(root, fn).built == []
    # the refreshed stats were saved: the record now matches the touched files
    db = cache.BuildDB.load(str(root / "out"), str(root))
    rows = [row for rec in db.targets.values() for row in rec["deps"] if row[0].endswith("common.hlsli")]
    assert rows and all(row[1] == os.stat(root / "include/common.hlsli").st_mtime_ns for row in rows)


def test_editing_a_header_rebuilds_exactly_its_readers(tmp_path, compiler):
    fn, backends = compiler
    root = make_project(tmp_path, backends)
    run_build(root, fn)
    # mode.hlsli is read only when MODE=1 (#if-excluded for MODE=0, never included by b)
    (root / "shaders/mode.hlsli").write_text(MODE_H + "#define EXTRA 2\n")
    report = run_build(root, fn)
    assert set(report.built) == names(backends, A1)
    assert all("mode.hlsli changed" in r[0] for r in report.reasons.values())
    (root / "include/common.hlsli").write_text("#define SCALE 5\n")
    assert set(run_build(root, fn).built) == names(backends, A0, A1, B)


def test_changing_a_define_rebuilds_exactly_the_affected_targets(tmp_path, compiler):
    fn, backends = compiler
    root = make_project(tmp_path, backends)
    run_build(root, fn)
    toml = root / "shaderbuild.toml"
    # a define on the second shader only
    toml.write_text(toml.read_text() + "defines = { EXTRA = 1 }\n")
    report = run_build(root, fn)
    assert set(report.built) == names(backends, B)
    assert report.reasons[f"{B}@{backends[0]}"] == ["define EXTRA changed: (absent) -> '1'"]
    # a global define: everything
    toml.write_text(toml.read_text().replace("BIAS = 1", "BIAS = 2"))
    assert set(run_build(root, fn).built) == names(backends, A0, A1, B)


def test_backend_option_rebuilds_only_that_backend(tmp_path, compiler):
    fn, backends = compiler
    if "spirv" not in backends:
        pytest.skip("needs the spirv backend")
    root = make_project(tmp_path, backends)
    run_build(root, fn)
    toml = root / "shaderbuild.toml"
    toml.write_text(toml.read_text().replace('include_dirs = ["include"]',
                                             'include_dirs = ["include"]\nbackends.spirv.target_env = "vulkan1.2"'))
    report = run_build(root, fn)
    assert set(report.built) == names(["spirv"], A0, A1, B)
    assert any("vk_target_env" in r for r in report.reasons[f"{B}@spirv"])


def test_compiler_and_plugin_versions_are_in_the_key(tmp_path, compiler, monkeypatch):
    fn, backends = compiler
    root = make_project(tmp_path, backends)
    versions = {b: f"{b}-1" for b in backends}
    run_build(root, fn, plugin_versions=versions)
    assert run_build(root, fn, plugin_versions=versions).built == []
    bumped = dict(versions, **{backends[0]: f"{backends[0]}-2"})
    report = run_build(root, fn, plugin_versions=bumped)
    assert set(report.built) == names(backends[:1], A0, A1, B)
    monkeypatch.setattr(cache, "COMPILER_VERSION", "999.0")
    report = run_build(root, fn, plugin_versions=bumped)
    assert set(report.built) == names(backends, A0, A1, B)
    assert any("compiler version changed" in r for r in report.reasons[f"{B}@{backends[0]}"])


def test_force_rebuilds_everything(tmp_path, compiler):
    fn, backends = compiler
    root = make_project(tmp_path, backends)
    run_build(root, fn)
    assert set(run_build(root, fn, force=True).built) == names(backends, A0, A1, B)


# --- robustness ------------------------------------------------------------------------------


def test_corrupted_or_missing_outputs_are_rebuilt(tmp_path, compiler):
    fn, backends = compiler
    root = make_project(tmp_path, backends)
    run_build(root, fn)
    project = load_project(str(root))
    by_name = {t.name: t for t in plan(project)}
    target = by_name[f"{A1}@{backends[0]}"]
    good = Path(target.outputs["binary"]).read_bytes()
    Path(target.outputs["binary"]).write_bytes(b"garbage" + good[7:])
    os.unlink(by_name[f"{B}@{backends[-1]}"].outputs["manifest"])
    report = run_build(root, fn)
    assert set(report.built) == {target.name, f"{B}@{backends[-1]}"}
    assert "hash mismatch" in report.reasons[target.name][0]
    assert Path(target.outputs["binary"]).read_bytes() == good
    # a corrupt database: warn and rebuild everything
    (root / "out/.shaderbuild/build.db").write_bytes(b"{ not a database" * 300)
    report = run_build(root, fn)
    assert report.warnings and set(report.built) == names(backends, A0, A1, B)


def test_parallel_build_is_byte_identical_to_serial(tmp_path, compiler):
    fn, backends = compiler
    serial = make_project(tmp_path / "serial", backends)
    parallel = make_project(tmp_path / "parallel", backends)
    for root in (serial, parallel):
        toml = root / "shaderbuild.toml"
        toml.write_text(toml.read_text().replace("targets =", 'outputs = ["blob", "header", "disassembly"]\ntargets ='))
    r1 = run_build(serial, fn, jobs=1)
    r2 = run_build(parallel, fn, jobs=2)
    assert r1.ok and r2.ok and len(r2.built) == len(r1.built)
    a, b = output_bytes(serial / "out"), output_bytes(parallel / "out")
    assert sorted(a) == sorted(b) and a == b


def test_pool_accounts_for_every_target_after_failures(tmp_path):
    """-j2 over 80 targets (the pool at once, its forked workers given job indices): each target
    ends up built, failed or not started exactly once, with and without --keep-going."""
    root = tmp_path / "p"
    (root / "shaders").mkdir(parents=True)
    (root / "shaders/a.hlsl").write_text("#if BAD\n#error bad permutation\n#endif\nvoid main() {}\n")
    (root / "shaderbuild.toml").write_text('output_dir = "out"\ntargets = ["spirv"]\n[[shader]]\n'
                                           'files = "shaders/a.hlsl"\nprofile = "cs_6_0"\n'
                                           '[shader.permutations]\nMODE = ' + str(list(range(40))) + '\nBAD = [0, 1]\n')
    total = 80
    kept = run_build(root, fake_compile, jobs=2, keep_going=True)
    assert len(kept.failed) == 40 and len(kept.built) == 40 and not kept.skipped
    assert all("BAD=1" in n for n in kept.failed) and all("BAD=0" in n for n in kept.built)
    shutil.rmtree(root / "out")
    stopped = run_build(root, fake_compile, jobs=2)
    names_seen = stopped.built + stopped.failed + stopped.skipped
    assert stopped.failed and len(names_seen) == len(set(names_seen)) == total
    assert all("BAD=1" in n for n in stopped.failed) and all("BAD=0" in n for n in stopped.built)


def pid_compile(path, options, **kw):
    """fake_compile that notes which process compiled (and sleeps PID_SLEEP seconds)."""
    with open(os.environ["PID_LOG"], "a") as f:
        f.write(f"{os.getpid()}\n")
    time.sleep(float(os.environ.get("PID_SLEEP", "0")))
    return fake_compile(path, options, **kw)


@pytest.mark.parametrize(("modes", "sleep", "expect"), [
    (2, "0", "here"),             # 3 targets, -j2: compiled in the build process, no pool
    (19, "0", "workers"),         # 20 targets: more than 4 per worker, the pool at once
    (5, "0.3", "both"),           # 6 slow targets: here until 0.5 s have passed, then the pool
])
def test_where_a_parallel_build_compiles(tmp_path, monkeypatch, modes, sleep, expect):
    root = make_project(tmp_path / "p", [], PROJECT_TOML.format(targets='["spirv"]').replace(
        "MODE = [0, 1]", f"MODE = {list(range(modes))}"))
    log = tmp_path / "pids"
    monkeypatch.setenv("PID_LOG", str(log))
    monkeypatch.setenv("PID_SLEEP", sleep)
    report = run_build(root, pid_compile, jobs=2)
    assert report.ok and len(report.built) == modes + 1
    pids = [int(line) for line in log.read_text().split()]
    here = sum(p == os.getpid() for p in pids)
    assert len(pids) == modes + 1
    assert {"here": here == len(pids), "workers": here == 0, "both": 0 < here < len(pids)}[expect], (here, pids)


def _pool_project(root: Path, modes: int = 19) -> Path:
    """modes + 1 targets: with -j2 the pool starts at once (more than 4 per worker)."""
    return make_project(root, [], PROJECT_TOML.format(targets='["spirv"]').replace(
        "MODE = [0, 1]", f"MODE = {list(range(modes))}"))


def test_pool_workers_commit_the_records_the_build_process_adopts(tmp_path, monkeypatch):
    """Each pool worker commits its target's record itself (issue 23: not the build process):
    when the build process hears of a target, its row is already in build.db, holding the
    record the build process keeps in memory."""
    import sqlite3

    from shaderbuild.build.database import BuildDB

    root = _pool_project(tmp_path / "p")
    db_file = root / "out" / ".shaderbuild" / "build.db"
    seen: dict[str, tuple] = {}
    adopt = BuildDB.adopt

    def spy(self, tid, record):
        with sqlite3.connect(f"file:{db_file}?mode=ro", uri=True) as conn:
            row = conn.execute("SELECT record FROM targets WHERE tid = ?", (tid,)).fetchone()
        seen[tid] = (row and json.loads(row[0]), json.loads(json.dumps(record)))   # (tuples as lists)
        adopt(self, tid, record)

    monkeypatch.setattr(BuildDB, "adopt", spy)
    report = run_build(root, fake_compile, jobs=2)
    assert report.ok and len(report.built) == 20
    assert len(seen) == 20 and all(row == record for row, record in seen.values())
    assert {r["name"] for _, r in seen.values()} == set(report.built)
    project = load_project(str(root))
    on_disk = BuildDB.load(project.output_dir, project.root).targets
    assert {tid: on_disk[tid] for tid in seen} == {tid: record for tid, (_, record) in seen.items()}
    again = run_build(root, fake_compile, jobs=2)
    assert again.built == [] and len(again.up_to_date) == 20


def test_a_worker_that_cannot_commit_leaves_the_record_to_the_build_process(tmp_path, monkeypatch):
    from shaderbuild.build.database import BuildDB, RecordWriter

    monkeypatch.setattr(RecordWriter, "put", lambda self, tid, record: False)   # forked workers inherit it
    root = _pool_project(tmp_path / "p")
    report = run_build(root, fake_compile, jobs=2)
    assert report.ok and len(report.built) == 20
    project = load_project(str(root))
    assert len(BuildDB.load(project.output_dir, project.root).targets) == 20
    again = run_build(root, fake_compile, jobs=2)
    assert again.built == [] and len(again.up_to_date) == 20


@pytest.mark.parametrize("span_max", [1, 8])
def test_pool_spans_cover_every_job_once_and_shrink_at_the_end(span_max):
    """SPAN_MAX is 1 (spans of 8 were slower in wall time: bench/README.md); larger spans stay correct."""
    from shaderbuild.build.scheduler import _spans

    for n, workers in [(1, 2), (7, 2), (20, 2), (1000, 2), (1000, 8), (37, 3)]:
        spans = _spans(n, workers, span_max)
        assert [i for a, b in spans for i in range(a, b)] == list(range(n))
        assert all(1 <= b - a <= span_max for a, b in spans)
        assert spans[-1][1] - spans[-1][0] == 1          # the last task is one job
    assert len(_spans(1000, 2, span_max)) == 1000 if span_max == 1 else len(_spans(1000, 2, span_max)) < 1000 / 4


_COMPILES = [0]


def die_compile(path, options, **kw):
    """fake_compile, except that a pool worker is killed at its third compile, after it committed
    two targets (80 targets, -j2)."""
    if os.getpid() != int(os.environ["DIE_PARENT"]):
        _COMPILES[0] += 1
        if _COMPILES[0] == 3:
            os.kill(os.getpid(), signal.SIGKILL)
    return fake_compile(path, options, **kw)


def test_a_dead_worker_leaves_no_record_of_the_targets_it_failed(tmp_path, monkeypatch):
    """A worker commits each target it builds, so a worker that dies may have recorded targets of
    its task that the build process reports failed: those records are deleted, and exactly the
    failed targets rebuild."""
    from shaderbuild.build.database import BuildDB

    monkeypatch.setenv("DIE_PARENT", str(os.getpid()))
    root = _pool_project(tmp_path / "p", 79)
    first = run_build(root, die_compile, jobs=2, keep_going=True)
    assert first.failed and len(first.built) + len(first.failed) == 80
    assert all("worker process failed" in m for m in first.messages)
    project = load_project(str(root))
    recorded = {r["name"] for r in BuildDB.load(project.output_dir, project.root).targets.values()}
    assert recorded == set(first.built)
    second = run_build(root, fake_compile, jobs=2)
    assert second.ok and set(second.built) == set(first.failed)


def _build_script(root: Path, jobs: int, fn) -> str:
    return textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(TESTS_DIR)!r})
        from test_build_engine import {fn.__name__} as compile_fn
        from shaderbuild.build.config import load_project
        from shaderbuild.build.scheduler import build
        r = build(load_project({str(root)!r}), compile_fn=compile_fn, jobs={jobs}, quiet=True)
        print("DONE", len(r.built))
    """)


def test_sigkill_mid_build_then_rebuild_is_correct(tmp_path, compiler):
    fn, backends = compiler
    modes = list(range(8 if fn is fake_compile else 40))
    toml = PROJECT_TOML.format(targets=json.dumps(backends)).replace("MODE = [0, 1]", f"MODE = {modes}")
    root = make_project(tmp_path / "victim", [], toml + 'outputs = ["header"]\n')
    ref = make_project(tmp_path / "ref", [], toml + 'outputs = ["header"]\n')
    run_build(ref, fn)
    total = (len(modes) + 1) * len(backends)
    env = dict(os.environ, FAKE_COMPILE_SLEEP="0.05")
    proc = subprocess.Popen([sys.executable, "-c", _build_script(root, 2, fn)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    out_dir = root / "out"
    deadline = time.time() + 20
    while time.time() < deadline and len(list(out_dir.rglob("*.json"))) < 3:
        time.sleep(0.002)
    os.killpg(proc.pid, signal.SIGKILL)   # the build and its workers
    proc.wait()
    expected = output_bytes(ref / "out")
    partial = output_bytes(out_dir)
    assert 0 < len([p for p in partial if p.endswith(".json")]) < total, "kill was not mid-build"
    for rel, data in partial.items():   # whatever exists is complete and correct
        if not os.path.basename(rel).startswith(".tmp-") and rel != "index.json":
            assert data == expected[rel], rel
    report = run_build(root, fn)
    assert report.ok and report.built, "the rebuild had work left"
    assert len(report.built) + len(report.up_to_date) == total
    after = {k: v for k, v in output_bytes(out_dir).items() if not os.path.basename(k).startswith(".tmp-")}
    assert after == expected


def test_second_build_with_no_wait_is_refused_while_locked(tmp_path):
    root = make_project(tmp_path, ["spirv"])
    with ProjectLock(str(root / "out/.shaderbuild")):
        with pytest.raises(LockBusy, match="another shaderbuild"):
            run_build(root, fake_compile, wait=False)
        proc = subprocess.run([sys.executable, "-m", "shaderbuild.build_cli", "build", str(root), "--no-wait"],
                              capture_output=True, text=True, cwd=REPO)
        assert proc.returncode == 1 and "not waiting (--no-wait)" in proc.stderr


def test_second_build_waits_for_the_first(tmp_path):
    root = make_project(tmp_path, ["spirv", "dxil"])
    lock = ProjectLock(str(root / "out/.shaderbuild"))
    lock.acquire()
    messages: list[str] = []
    result = {}

    class Stream:
        def write(self, s):
            messages.append(s)

        def flush(self):
            pass

        def isatty(self):
            return False

    t = threading.Thread(target=lambda: result.setdefault("r", run_build(root, fake_compile, stream=Stream())))
    t.start()
    time.sleep(0.3)
    assert "r" not in result and any("waiting for it to finish" in m for m in messages)
    lock.release()
    t.join(10)
    assert result["r"].ok and len(result["r"].built) == 6


def test_two_concurrent_builds_do_not_corrupt_anything(tmp_path, compiler):
    fn, backends = compiler
    root = make_project(tmp_path / "p", backends)
    ref = make_project(tmp_path / "ref", backends)
    run_build(ref, fn)
    env = dict(os.environ, FAKE_COMPILE_SLEEP="0.02")
    procs = [subprocess.Popen([sys.executable, "-c", _build_script(root, 2, fn)], env=env, stdout=subprocess.PIPE,
                              text=True) for _ in range(2)]
    outs = [p.communicate(timeout=60)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs)
    built = sorted(int(o.split()[-1]) for o in outs)
    assert built == [0, 3 * len(backends)]   # the second waited, then found everything fresh
    assert output_bytes(root / "out") == output_bytes(ref / "out")


# --- errors and reports ------------------------------------------------------------------------


def _broken(root: Path) -> None:
    (root / "shaders/b.hlsl").write_text('#include "common.hlsli"\n  #error broken on purpose\n' + OTHER)


def test_failure_stops_unless_keep_going(tmp_path):
    root = make_project(tmp_path, ["spirv", "dxil"])
    _broken(root)
    report = run_build(root, fake_compile)
    assert not report.ok and report.failed == [f"{B}@spirv"] and report.skipped
    assert f"{root}/shaders/b.hlsl:2:3: error: broken on purpose" in report.messages[0]
    assert report.diagnostics == {f"{B}@spirv": [{"severity": "error", "message": "broken on purpose",
                                                  "file": f"{root}/shaders/b.hlsl", "line": 2, "column": 3}]}
    report = run_build(root, fake_compile, keep_going=True)
    assert set(report.failed) == names(["spirv", "dxil"], B) and not report.skipped
    assert set(report.built) | set(report.up_to_date) == names(["spirv", "dxil"], A0, A1)


def test_msvc_diagnostics_format(tmp_path):
    root = make_project(tmp_path, ["spirv"])
    _broken(root)
    report = run_build(root, fake_compile, diag_format="msvc")
    assert f"{root}/shaders/b.hlsl(2,3): error: broken on purpose" in report.messages[0]


def test_real_compiler_errors_are_reported_with_locations(tmp_path):
    backends = real_backends()
    if not backends:
        pytest.skip("the real compiler cannot compile the test shader yet")
    root = make_project(tmp_path, backends)
    (root / "shaders/b.hlsl").write_text(OTHER.replace("id.x + SCALE", "id.x + undeclared_name"))
    report = run_build(root, real_compile, keep_going=True)
    assert set(report.failed) == names(backends, B)
    assert re.search(rf"{re.escape(str(root))}/shaders/b\.hlsl:3:\d+: error: ", report.messages[0])


def test_real_compiler_reports_every_error(tmp_path):
    """A shader with three independent mistakes: the build report shows all three (not only the first)."""
    backends = real_backends()
    if not backends:
        pytest.skip("the real compiler cannot compile the test shader yet")
    root = make_project(tmp_path, backends)
    body = "{ Data[id.x] = id.x + nope1;\n  Data[0] = nope2;\n  Data[1] = nope3; }\n"
    (root / "shaders/b.hlsl").write_text(OTHER.replace("{ Data[id.x] = id.x + SCALE; }\n", body))
    report = run_build(root, real_compile, keep_going=True)
    assert set(report.failed) == names(backends, B)
    for name in ("nope1", "nope2", "nope3"):
        assert f"error: use of undeclared identifier '{name}'" in report.messages[0]
    for diags in report.diagnostics.values():
        assert [d["line"] for d in diags if d["severity"] == "error"] == [3, 4, 5]


def test_cross_backend_resource_mismatch_is_an_error(tmp_path):
    root = make_project(tmp_path, ["spirv", "dxil"])
    toml = root / "shaderbuild.toml"
    toml.write_text(toml.read_text() + "defines = { MISMATCH = 1 }\n")
    report = run_build(root, fake_compile)
    assert not report.ok and not report.failed
    assert [m["variant"] for m in report.mismatches] == [B]
    assert report.mismatches[0]["backends"] == ["spirv", "dxil"]
    [diff] = report.mismatches[0]["differences"]
    assert diff.startswith("Data: spirv=") and "'register': 1" in diff and "'register': 2" in diff


def test_real_backends_agree_on_resources(tmp_path):
    backends = real_backends()
    if len(backends) < 2:
        pytest.skip("needs both real backends")
    root = make_project(tmp_path, backends)
    report = run_build(root, real_compile)
    assert report.ok and report.mismatches == []


def test_identical_permutation_outputs_are_reported(tmp_path, compiler):
    fn, backends = compiler
    root = make_project(tmp_path, backends)
    toml = root / "shaderbuild.toml"
    # UNUSED is never referenced by b.hlsl: both permutations compile to the same bytes
    toml.write_text(toml.read_text() + "[shader.permutations]\nUNUSED = [0, 1]\n")
    report = run_build(root, fn)
    dups = {d["shader"]: d["permutations"] for d in report.duplicates}
    assert dups == {f"shaders/b.hlsl:main@{b}": ["UNUSED=0", "UNUSED=1"] for b in backends}


def test_blob_header_and_index_outputs(tmp_path, compiler):
    fn, backends = compiler
    root = make_project(tmp_path, backends)
    toml = root / "shaderbuild.toml"
    toml.write_text(toml.read_text().replace("targets =", 'outputs = ["blob", "header", "disassembly"]\ntargets ='))
    report = run_build(root, fn)
    assert report.ok
    targets = {t.name: t for t in plan(load_project(str(root)))}
    for backend in backends:
        blob = blobfmt.read(str(root / f"out/shaders/a.{backend}.blob"))
        assert sorted(blob) == ["MODE=0", "MODE=1"]
        for key in blob:
            t = targets[f"shaders/a.hlsl:main[{key}]@{backend}"]
            assert blob[key] == Path(t.outputs["binary"]).read_bytes()
        assert Path(targets[f"{A1}@{backend}"].outputs["disassembly"]).read_text().startswith(";")
        header = Path(targets[f"{A1}@{backend}"].outputs["header"]).read_text()
        data = Path(targets[f"{A1}@{backend}"].outputs["binary"]).read_bytes()
        assert f"_size = {len(data)}u;" in header
        hexed = re.findall(r"0x([0-9a-f]{2})", header)
        assert bytes(int(h, 16) for h in hexed) == data
    index = json.loads((root / "out/index.json").read_text())
    assert {row["name"] for row in index["targets"]} == names(backends, A0, A1, B)
    db = cache.BuildDB.load(str(root / "out"), str(root))
    for row in index["targets"]:
        assert row["key"] == db.targets[targets[row["name"]].tid]["key"]
        assert (root / "out" / row["outputs"]["binary"]).is_file()
    # a no-op build rewrites no output (mtimes unchanged)
    # (.shaderbuild: the lock and the database, whose WAL files readers may leave behind)
    before = {p: p.stat().st_mtime_ns for p in (root / "out").rglob("*") if p.is_file() and ".shaderbuild" not in p.parts}
    time.sleep(0.01)
    run_build(root, fn)
    after = {p: p.stat().st_mtime_ns for p in (root / "out").rglob("*") if p.is_file() and ".shaderbuild" not in p.parts}
    assert {p for p in before if before[p] != after.get(p)} == set()


def test_removed_targets_are_pruned_and_clean_removes_everything(tmp_path):
    from shaderbuild.build.clean import clean

    root = make_project(tmp_path, ["spirv"])
    run_build(root, fake_compile)
    toml = root / "shaderbuild.toml"
    toml.write_text(toml.read_text().replace("MODE = [0, 1]", "MODE = [0]"))
    report = run_build(root, fake_compile)
    assert report.built == [] and len(report.removed) == 2   # MODE=1: binary + manifest
    assert all(not os.path.exists(p) for p in report.removed)
    removed = clean(load_project(str(root)))
    assert removed and [p for p in (root / "out").rglob("*") if p.is_file() and p.name != "lock"] == []


def test_explain_shows_key_parts_and_reasons(tmp_path, compiler):
    from shaderbuild.build.explain import explain, explain_data

    fn, backends = compiler
    root = make_project(tmp_path, backends)
    run_build(root, fn)
    project = load_project(str(root))
    target = next(t for t in plan(project) if t.name == f"{A1}@{backends[0]}")
    data = explain_data(project, target)
    assert data["fresh"] and data["reasons"] == []
    assert {os.path.basename(p) for p, _ in data["dependencies"]} == {"a.hlsl", "common.hlsli", "mode.hlsli"}
    (root / "shaders/mode.hlsli").write_text("#define OTHER 1\n")
    text = explain(project, [target])
    assert "would rebuild" in text and "mode.hlsli changed" in text and "never built" in explain_data(
        project, next(t for t in plan(project) if t.name == f"{A0}@{backends[0]}"), cache.BuildDB("/nonexistent", str(root))
    )["reasons"][0]


def test_noop_build_does_not_import_the_compiler(tmp_path):
    root = make_project(tmp_path, ["spirv", "dxil"])
    run_build(root, fake_compile)
    script = textwrap.dedent(f"""
        import sys
        from shaderbuild.build_cli import main
        rc = main(["build", {str(root)!r}, "-q"])
        heavy = [m for m in ("shaderbuild.compiler", "shaderbuild_spirv", "shaderbuild_dxil", "SCons", "watchdog",
                             "concurrent.futures.process") if m in sys.modules]
        print(rc, heavy)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO)
    assert proc.stdout.strip() == "0 []", proc.stderr


def test_cli_build_report_and_list(tmp_path):
    root = make_project(tmp_path, ["spirv", "dxil"])
    run_build(root, fake_compile)
    report_file = tmp_path / "report.json"
    proc = subprocess.run([sys.executable, "-m", "shaderbuild.build_cli", "build", str(root), "--report",
                           str(report_file)], capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(report_file.read_text())
    assert data["ok"] and data["built"] == [] and len(data["up_to_date"]) == 6
    proc = subprocess.run([sys.executable, "-m", "shaderbuild.build_cli", "list", str(root), "--status",
                           "--target", "dxil", "--filter", "shaders/a.hlsl"], capture_output=True, text=True, cwd=REPO)
    lines = proc.stdout.splitlines()
    assert len(lines) == 2 and all(line.endswith("up-to-date") and "@dxil" in line for line in lines)


def test_a_copied_project_is_still_up_to_date_and_independent(tmp_path):
    """Records hold project-relative paths: a copied tree is fresh and never reads the original."""
    root = make_project(tmp_path / "one", ["spirv"])
    run_build(root, fake_compile)
    moved = tmp_path / "two"
    shutil.copytree(root, moved)
    assert run_build(moved, fake_compile).built == []
    (root / "shaders/mode.hlsli").write_text("#define CHANGED_IN_ORIGINAL 1\n")
    assert run_build(moved, fake_compile).built == []
    (moved / "include/common.hlsli").write_text("#define SCALE 7\n")
    assert set(run_build(moved, fake_compile).built) == names(["spirv"], A0, A1, B)
    assert set(run_build(root, fake_compile).built) == names(["spirv"], A1)


def test_a_new_header_shadowing_an_include_is_detected(tmp_path, compiler):
    fn, backends = compiler
    root = make_project(tmp_path, backends)
    run_build(root, fn)
    # an unrelated new file in a search directory: rescanned, nothing rebuilt
    (root / "shaders/notes.txt").write_text("hello\n")
    (root / "include/unused.hlsli").write_text("#define UNUSED 1\n")
    assert run_build(root, fn).built == []
    # shaders/common.hlsli now wins over include/common.hlsli for "common.hlsli" (the includer's dir first)
    (root / "shaders/common.hlsli").write_text("#define SCALE 11\n")
    report = run_build(root, fn)
    assert set(report.built) == names(backends, A0, A1, B)
    assert report.reasons[f"{B}@{backends[0]}"] == [
        "include resolution changed: now reads shaders/common.hlsli; no longer reads include/common.hlsli"]
    assert run_build(root, fn).built == []


def test_temp_files_of_a_killed_build_are_removed(tmp_path):
    root = make_project(tmp_path, ["spirv"])
    run_build(root, fake_compile)
    leftover = root / "out/shaders/.tmp-abc123"
    leftover.write_bytes(b"partial")
    (root / "shaders/b.hlsl").write_text(OTHER + "\n// edited\n")
    assert run_build(root, fake_compile).built == [f"{B}@spirv"]
    assert not leftover.exists()


def test_verify_catches_a_corruption_that_kept_its_stat(tmp_path):
    root = make_project(tmp_path, ["spirv"])
    run_build(root, fake_compile)
    target = next(t for t in plan(load_project(str(root))) if t.name == f"{B}@spirv")
    path = Path(target.outputs["binary"])
    st = path.stat()
    data = bytearray(path.read_bytes())
    data[0] ^= 0xFF
    with open(path, "r+b") as f:   # same inode, same size, mtime restored
        f.write(data)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert run_build(root, fake_compile).built == []        # the stat fast path trusts it
    report = run_build(root, fake_compile, verify=True)
    assert report.built == [target.name] and "hash mismatch" in report.reasons[target.name][0]


def test_query_dependencies_and_affected_targets(tmp_path, compiler):
    from shaderbuild.build.query import affected, all_outputs, dependencies

    fn, backends = compiler
    root = make_project(tmp_path, backends)
    project = load_project(str(root))
    targets = plan(project)
    by_name = {t.name: t for t in targets}
    a1 = by_name[f"{A1}@{backends[0]}"]
    # never built: a preprocessor scan
    assert set(dependencies(project, a1)) == {str(root / "shaders/a.hlsl"), str(root / "include/common.hlsli"),
                                              str(root / "shaders/mode.hlsli")}
    assert len(affected(project, targets, [])) == len(targets)
    run_build(root, fn)
    assert {t.name for t in affected(project, targets, [str(root / "shaders/mode.hlsli")])} == names(backends, A1)
    assert {t.name for t in affected(project, targets, [str(root / "include/common.hlsli")])} == names(
        backends, A0, A1, B)
    assert all_outputs(a1) == [a1.outputs["binary"], a1.outputs["manifest"]]


def test_outputs_no_longer_requested_are_removed(tmp_path):
    root = make_project(tmp_path, ["spirv"])
    toml = root / "shaderbuild.toml"
    toml.write_text(toml.read_text() + 'outputs = ["header", "disassembly"]\n')
    run_build(root, fake_compile)
    [target] = [t for t in plan(load_project(str(root))) if t.name == f"{B}@spirv"]
    assert os.path.exists(target.outputs["header"]) and os.path.exists(target.outputs["disassembly"])
    toml.write_text(toml.read_text().replace('outputs = ["header", "disassembly"]', 'outputs = ["header"]'))
    report = run_build(root, fake_compile)
    assert report.built == [target.name] and report.reasons[target.name][0].startswith("output paths changed")
    assert report.removed == [target.outputs["disassembly"]] and not os.path.exists(target.outputs["disassembly"])
    assert os.path.exists(target.outputs["header"])
