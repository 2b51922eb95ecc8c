"""Build faults: outputs only via temp file + rename, interrupted builds, read-only output
directories, a full disk, output paths confined to the output directory, the project lock.

The property everywhere: a fault gives an error (a failed target or exit status 1 with a
message), never a Python traceback, and never leaves a truncated or half-written file where an
output belongs; the next healthy build repairs everything.  Faults are injected in-process with
monkeypatch (disk full: the writer raises OSError(ENOSPC) after writing part of the data;
read-only: as root, permissions are not enforced, so the writer raises PermissionError).
"""

from __future__ import annotations

import builtins
import errno
import importlib.util
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_build_engine import (
    PROJECT_TOML,
    fake_compile,
    make_project,
    output_bytes,
    run_build,
)

from shaderbuild import cli
from shaderbuild.build import outputs as outputs_mod
from shaderbuild.build.config import ConfigFileError, load_project
from shaderbuild.build.lock import LockBusy, ProjectLock
from shaderbuild.build.targets import plan
from shaderbuild.build_cli import main as build_main

REPO = Path(__file__).resolve().parents[2]
SHADER = "RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(1, 1, 1)]\nvoid main() { Out[0] = 7; }\n"
BACKENDS = ["spirv", "dxil"]


def project(tmp_path: Path, name: str = "p") -> Path:
    return make_project(tmp_path / name, BACKENDS, PROJECT_TOML.format(targets='["spirv", "dxil"]'))


def temp_leftovers(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.name.startswith(outputs_mod.TEMP_PREFIX) or p.name.endswith(".tmp")]


def edit_sources(root: Path) -> None:
    for p in (root / "shaders").glob("*.hlsl"):
        p.write_text(p.read_text() + "\n// edited\n")


class FaultyFile(io.RawIOBase):
    """A writable file that accepts `budget` bytes and then fails like a full or read-only disk."""

    def __init__(self, real, budget: int, err: int) -> None:
        self.real, self.budget, self.err = real, budget, err

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        data = bytes(data)
        if len(data) > self.budget:
            self.real.write(data[:self.budget])
            self.real.flush()
            self.budget = 0
            raise OSError(self.err, os.strerror(self.err))
        self.budget -= len(data)
        return self.real.write(data)

    def close(self) -> None:
        self.real.close()
        super().close()


@pytest.fixture
def faulty_writes(monkeypatch):
    """Make every write-mode open()/os.fdopen() under `root` fail with `err` after `budget` bytes."""

    def install(root: Path, err: int = errno.ENOSPC, budget: int = 10) -> None:
        real_fdopen, real_open = os.fdopen, builtins.open
        root_s = str(root)

        def fdopen(fd, mode="r", *a, **kw):
            f = real_fdopen(fd, mode, *a, **kw)
            path = os.readlink(f"/proc/self/fd/{fd}") if os.path.exists(f"/proc/self/fd/{fd}") else ""
            return FaultyFile(f, budget, err) if "w" in mode and path.startswith(root_s) else f

        def open_(file, mode="r", *a, **kw):
            f = real_open(file, mode, *a, **kw)
            if ("w" in mode or "a" in mode) and os.path.abspath(str(file)).startswith(root_s):
                return FaultyFile(f, budget, err)
            return f

        monkeypatch.setattr(os, "fdopen", fdopen)
        monkeypatch.setattr(builtins, "open", open_)

    return install


# ---------------------------------------------------------------- temp file + rename


def test_build_outputs_are_written_only_by_rename_from_a_temp_in_the_same_directory(tmp_path, monkeypatch):
    root = project(tmp_path)
    renames: list[tuple[str, str]] = []
    real_replace = os.replace

    def spy(src, dst, *a, **kw):
        renames.append((os.fspath(src), os.fspath(dst)))
        return real_replace(src, dst, *a, **kw)

    monkeypatch.setattr(os, "replace", spy)
    report = run_build(root, fake_compile)
    assert report.ok and report.built
    # (.shaderbuild holds the lock and the SQLite database, which commits atomically on its own)
    produced = {str(p) for p in (root / "out").rglob("*") if p.is_file() and ".shaderbuild" not in p.parts}
    by_dst = {dst: src for src, dst in renames}
    for path in produced:
        assert path in by_dst, f"{path} was not written by rename"
        src = by_dst[path]
        assert os.path.dirname(src) == os.path.dirname(path), (src, path)
        assert os.path.basename(src).startswith((outputs_mod.TEMP_PREFIX, ".")), src
    assert not temp_leftovers(root)


def test_cli_compile_writes_by_rename(tmp_path, monkeypatch):
    src = tmp_path / "s.hlsl"
    src.write_text(SHADER)
    out = tmp_path / "o" / "s.spv"
    renames: list[str] = []
    real_replace = os.replace
    monkeypatch.setattr(os, "replace", lambda a, b, *r, **k: (renames.append(os.fspath(b)), real_replace(a, b))[1])
    rc = cli.main(["compile", "-T", "cs_6_0", "-spirv", str(src), "-o", str(out),
                   "--manifest", str(tmp_path / "o" / "s.json")])
    assert rc == 0
    assert str(out) in renames and str(tmp_path / "o" / "s.json") in renames
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["s.json", "s.spv"]


# ---------------------------------------------------------------- disk full


def build_under_fault(root: Path, err: int):
    """run_build that may fail either way the API allows: failed targets, or the OSError itself."""
    try:
        report = run_build(root, fake_compile, keep_going=True)
    except OSError as exc:
        assert exc.errno == err, exc
        return None
    assert not report.ok and report.failed, "a failed write must fail its target"
    return report


def test_disk_full_on_first_build_leaves_no_partial_outputs(tmp_path, faulty_writes):
    root = project(tmp_path)
    faulty_writes(root / "out")
    build_under_fault(root, errno.ENOSPC)
    for p in (root / "out").rglob("*"):
        assert not p.is_file() or p.name == "lock" or p.stat().st_size == 0 or ".shaderbuild" in p.parts, p
    assert not temp_leftovers(root)


def test_disk_full_on_rebuild_keeps_old_outputs_then_recovers(tmp_path, faulty_writes, monkeypatch):
    root, ref = project(tmp_path), project(tmp_path, "ref")
    assert run_build(root, fake_compile).ok
    before = output_bytes(root / "out")
    edit_sources(root)
    edit_sources(ref)
    assert run_build(ref, fake_compile).ok
    faulty_writes(root / "out")
    build_under_fault(root, errno.ENOSPC)
    assert output_bytes(root / "out") == before, "a failed write changed an output"
    assert not temp_leftovers(root)
    monkeypatch.undo()
    report = run_build(root, fake_compile)
    assert report.ok and report.built
    assert output_bytes(root / "out") == output_bytes(ref / "out")


def test_disk_full_in_cli_build_is_exit_status_1_without_traceback(tmp_path, faulty_writes, capsys):
    root = project(tmp_path)
    faulty_writes(root / "out")
    rc = build_main(["build", str(root), "--quiet"])
    err = capsys.readouterr().err
    assert rc == 1
    assert "Traceback" not in err and "No space left on device" in err, err
    assert str(root / "out") + os.sep in err, "the message must name the file it could not write"


def test_disk_full_message_names_the_file_with_a_worker_pool(tmp_path, faulty_writes, capsys):
    root = project(tmp_path)
    faulty_writes(root / "out")
    rc = build_main(["build", str(root), "--quiet", "-j", "2", "--keep-going"])
    err = capsys.readouterr().err
    assert rc == 1 and "Traceback" not in err and "No space left on device" in err, err
    assert str(root / "out" / "shaders") + os.sep in err, err


def test_disk_full_in_cli_compile(tmp_path, faulty_writes, capsys):
    src = tmp_path / "s.hlsl"
    src.write_text(SHADER)
    out_dir = tmp_path / "o"
    out_dir.mkdir()
    (out_dir / "s.spv").write_bytes(b"old binary")
    faulty_writes(out_dir)
    rc = cli.main(["compile", "-T", "cs_6_0", "-spirv", str(src), "-o", str(out_dir / "s.spv")])
    err = capsys.readouterr().err
    assert rc == 1 and "Traceback" not in err and "No space left on device" in err, err
    assert (out_dir / "s.spv").read_bytes() == b"old binary"
    assert sorted(p.name for p in out_dir.iterdir()) == ["s.spv"]


# ---------------------------------------------------------------- read-only output directory


@pytest.fixture
def read_only(monkeypatch, faulty_writes):
    """Make `directory` unwritable: chmod when that is enforced, else injected EACCES."""

    locked: list[Path] = []

    def install(directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        if os.geteuid() != 0:
            for d in [directory, *[p for p in directory.rglob("*") if p.is_dir()]]:
                os.chmod(d, 0o555)
                locked.append(d)
            return
        real_os_open = os.open

        def os_open(path, flags, *a, **kw):
            if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT) and os.path.abspath(os.fspath(path)).startswith(
                    str(directory)):
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))
            return real_os_open(path, flags, *a, **kw)

        monkeypatch.setattr(os, "open", os_open)
        faulty_writes(directory, errno.EACCES, 0)

    yield install
    for d in locked:
        os.chmod(d, 0o755)


def test_read_only_output_dir_fails_cleanly_in_cli_build(tmp_path, read_only, capsys):
    root = project(tmp_path)
    assert run_build(root, fake_compile).ok
    before = output_bytes(root / "out")
    edit_sources(root)
    read_only(root / "out")
    try:
        rc = build_main(["build", str(root), "--quiet"])
    finally:
        assert output_bytes(root / "out") == before
    err = capsys.readouterr().err
    assert rc == 1
    assert "Traceback" not in err and ("Permission denied" in err or "read-only" in err), err


def test_an_up_to_date_build_succeeds_in_a_read_only_output_dir(tmp_path, read_only, capsys):
    """Nothing to do needs no write: no lock file, database or index is created or changed
    (it failed on the lock file before; issue 21, item 13).  `list --status` works too."""
    root = project(tmp_path)
    assert run_build(root, fake_compile).ok
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in (root / "out").rglob("*") if p.is_file()}
    read_only(root / "out")
    rc = build_main(["build", str(root), "--quiet"])
    err = capsys.readouterr().err
    assert rc == 0 and "Traceback" not in err, err
    after = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in (root / "out").rglob("*") if p.is_file()}
    assert after == before
    assert build_main(["list", str(root), "--status"]) == 0
    assert "stale" not in capsys.readouterr().out


def test_clean_removes_the_lock_file_and_the_state_directory(tmp_path):
    from shaderbuild.build.clean import clean

    root = project(tmp_path)
    assert run_build(root, fake_compile).ok
    clean(load_project(str(root)))
    assert not (root / "out" / ".shaderbuild").exists(), list((root / "out").rglob("*"))
    assert run_build(root, fake_compile, wait=False).ok


def test_read_only_output_dir_never_corrupts_outputs(tmp_path, read_only):
    root = project(tmp_path)
    assert run_build(root, fake_compile).ok
    before = output_bytes(root / "out")
    edit_sources(root)
    read_only(root / "out")
    build_under_fault(root, errno.EACCES)
    assert output_bytes(root / "out") == before


def test_read_only_output_dir_in_cli_compile(tmp_path, read_only, capsys):
    src = tmp_path / "s.hlsl"
    src.write_text(SHADER)
    read_only(tmp_path / "ro")
    rc = cli.main(["compile", "-T", "cs_6_0", "-spirv", str(src), "-o", str(tmp_path / "ro" / "s.spv")])
    err = capsys.readouterr().err
    assert rc == 1 and "Traceback" not in err and "Permission denied" in err, err
    assert list((tmp_path / "ro").iterdir()) == []


# ---------------------------------------------------------------- interrupted builds


def test_keyboard_interrupt_mid_build_leaves_complete_outputs(tmp_path):
    root, ref = project(tmp_path), project(tmp_path, "ref")
    assert run_build(ref, fake_compile).ok
    calls = []

    def interrupting(path, options, **kw):
        calls.append(path)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return fake_compile(path, options, **kw)

    with pytest.raises(KeyboardInterrupt):
        run_build(root, interrupting)
    expected = output_bytes(ref / "out")
    partial = output_bytes(root / "out")
    assert partial and len(partial) < len(expected)
    for rel, data in partial.items():
        if rel != "index.json":
            assert data == expected[rel], rel
    assert not temp_leftovers(root)
    assert run_build(root, fake_compile).ok
    assert output_bytes(root / "out") == expected


def test_interrupt_between_temp_write_and_rename(tmp_path, monkeypatch):
    """Ctrl-C after the temp file is written but before the rename: the old output survives and
    the temp file is gone."""
    target = tmp_path / "out.bin"
    target.write_bytes(b"old")

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        outputs_mod.atomic_write(str(target), b"new contents")
    with pytest.raises(KeyboardInterrupt):
        cli.write_atomic(str(target), b"new contents")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"]


def _slow_build_script(root: Path) -> str:
    return (f"import sys, time; sys.path.insert(0, {str(REPO / 'tests' / 'build')!r})\n"
            "from test_build_engine import fake_compile\n"
            "from shaderbuild.build.config import load_project\n"
            "from shaderbuild.build.scheduler import build\n"
            "def slow(*a, **k):\n    time.sleep(0.3)\n    return fake_compile(*a, **k)\n"
            f"build(load_project({str(root)!r}), compile_fn=slow, jobs=1, quiet=True)\n")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["sigint", "sigterm"])
def test_signal_mid_build_then_rebuild(tmp_path, sig):
    root, ref = project(tmp_path), project(tmp_path, "ref")
    assert run_build(ref, fake_compile).ok
    proc = subprocess.Popen([sys.executable, "-c", _slow_build_script(root)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=REPO)
    deadline = time.time() + 30
    while time.time() < deadline and not list((root / "out").rglob("*.json")):
        time.sleep(0.01)
    proc.send_signal(sig)
    _out, _err = proc.communicate(timeout=60)
    assert proc.returncode != 0, "the build should have been interrupted"
    expected = output_bytes(ref / "out")
    for rel, data in output_bytes(root / "out").items():
        if rel != "index.json" and not os.path.basename(rel).startswith(outputs_mod.TEMP_PREFIX):
            assert data == expected[rel], rel
    assert run_build(root, fake_compile).ok
    assert output_bytes(root / "out") == expected
    assert not temp_leftovers(root)


# ---------------------------------------------------------------- output confinement


CONFINEMENT = {
    "output_dir_parent": ('output_dir = "../elsewhere"\n', "output_dir"),
    "output_dir_absolute": ('output_dir = "/tmp/shaderbuild-elsewhere"\n', "output_dir"),
    "output_dir_is_root": ('output_dir = "."\n', "output_dir"),
    "subdir_escapes": ('output_dir = "out"\n', "subdir"),
    "subdir_absolute": ('output_dir = "out"\n', "subdir"),
}


@pytest.mark.parametrize("case", sorted(CONFINEMENT))
def test_outputs_outside_the_output_directory_are_rejected(tmp_path, case):
    head, key = CONFINEMENT[case]
    root = make_project(tmp_path / "p", BACKENDS)
    body = PROJECT_TOML.format(targets='["spirv"]').replace('output_dir = "out"\n', head)
    if case == "subdir_escapes":
        body = body.replace('files = "shaders/b.hlsl"\n', 'files = "shaders/b.hlsl"\nsubdir = "../../escaped"\n')
    if case == "subdir_absolute":
        body = body.replace('files = "shaders/b.hlsl"\n', 'files = "shaders/b.hlsl"\nsubdir = "/tmp/escaped"\n')
    (root / "shaderbuild.toml").write_text(body)
    with pytest.raises(ConfigFileError) as exc:
        plan(load_project(str(root)))
    text = str(exc.value) + " ".join(str(e) for e in getattr(exc.value, "errors", []))
    assert key in text or "outside" in text, text
    rc = build_main(["build", str(root), "--quiet"])
    assert rc == 1
    assert not (tmp_path / "elsewhere").exists() and not (tmp_path / "escaped").exists()


def test_sources_outside_the_project_still_write_inside_the_output_dir(tmp_path):
    """A shader reached through '..' gets an output path folded into the output directory."""
    root = make_project(tmp_path / "p", ["spirv"])
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "x.hlsl").write_text(SHADER)
    (root / "shaderbuild.toml").write_text('output_dir = "out"\ntargets = ["spirv"]\n[[shader]]\n'
                                           'files = "../shared/x.hlsl"\nprofile = "cs_6_0"\n')
    targets = plan(load_project(str(root)))
    out = str(root / "out") + os.sep
    for t in targets:
        for p in t.outputs.values():
            assert os.path.normpath(p).startswith(out), p


# ---------------------------------------------------------------- project lock


def test_lock_is_released_when_a_build_raises(tmp_path):
    root = project(tmp_path)

    def boom(*a, **k):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_build(root, boom)
    assert run_build(root, fake_compile, wait=False).ok


def test_lock_of_a_killed_build_is_not_stale(tmp_path):
    root = project(tmp_path)
    state = root / "out" / ".shaderbuild"
    holder = subprocess.Popen([sys.executable, "-c",
                               "import sys, time; from shaderbuild.build.lock import ProjectLock\n"
                               f"l = ProjectLock({str(state)!r}); l.acquire(); print('held', flush=True); "
                               "time.sleep(60)"], stdout=subprocess.PIPE, text=True, cwd=REPO)
    assert holder.stdout.readline().strip() == "held"
    with pytest.raises(LockBusy, match=f"pid {holder.pid}"):
        run_build(root, fake_compile, wait=False)
    holder.kill()
    holder.wait()
    assert run_build(root, fake_compile, wait=False).ok


def test_lock_excludes_a_second_holder_in_the_same_process(tmp_path):
    state = tmp_path / "s"
    with ProjectLock(str(state)):
        with pytest.raises(LockBusy):
            ProjectLock(str(state), wait=False).acquire()
    with ProjectLock(str(state), wait=False):
        pass


# ---------------------------------------------------------------- killing only the main process (issue 21, item 10)


_spec = importlib.util.spec_from_file_location("build_faults", REPO / "bench" / "build_faults.py")
_faults = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_faults)
_children, _alive = _faults._children, _faults._alive     # /proc helpers shared with the fault campaign


def test_killing_only_the_main_build_process_kills_its_workers_and_frees_the_lock(tmp_path):
    toml = PROJECT_TOML.format(targets='["spirv", "dxil"]').replace("MODE = [0, 1]", f"MODE = {list(range(10))}")
    root = make_project(tmp_path / "victim", [], toml)
    ref = make_project(tmp_path / "ref", [], toml)
    assert run_build(ref, fake_compile).ok
    script = (f"import sys; sys.path.insert(0, {str(REPO / 'tests' / 'build')!r})\n"
              "from test_build_engine import fake_compile\n"
              "from shaderbuild.build.config import load_project\n"
              "from shaderbuild.build.scheduler import build\n"
              f"build(load_project({str(root)!r}), compile_fn=fake_compile, jobs=2, quiet=True)\n")
    env = dict(os.environ, FAKE_COMPILE_SLEEP="0.3")
    proc = subprocess.Popen([sys.executable, "-c", script], env=env, cwd=REPO, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 30
        while time.time() < deadline and (len(list((root / "out").rglob("*.json"))) < 2 or len(_children(proc.pid)) < 2):
            time.sleep(0.01)
        workers = _children(proc.pid)
        assert len(workers) >= 2, "the build did not start its pool"
        proc.kill()                      # the main process only, not its process group
        proc.wait()
        deadline = time.time() + 5
        while time.time() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.02)
        assert not any(_alive(w) for w in workers), "pool workers outlived the killed build"
        report = run_build(root, fake_compile, wait=False)   # LockBusy if an orphan still held the lock
        assert report.ok and report.built
        assert output_bytes(root / "out") == output_bytes(ref / "out")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_lock_message_names_the_holder_pid_and_command(tmp_path):
    state = tmp_path / "s"
    holder = subprocess.Popen([sys.executable, "-c",
                               "import sys, time; from shaderbuild.build.lock import ProjectLock\n"
                               f"l = ProjectLock({str(state)!r}); l.acquire(); print('held', flush=True); "
                               "time.sleep(60)", "--marker"], stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(LockBusy, match=rf"pid {holder.pid}: -c --marker"):
            ProjectLock(str(state), wait=False).acquire()
    finally:
        holder.kill()
        holder.wait()
    with ProjectLock(str(state), wait=False):
        pass


def test_workers_watching_a_pipe_exit_when_the_parent_dies(tmp_path):
    """The portable fallback of PR_SET_PDEATHSIG (macOS, BSD): a thread reading a pipe that only
    the parent can write to."""
    script = ("import os, sys, time\n"
              "from shaderbuild.build import platform\n"
              "r, w = os.pipe()\n"
              "pid = os.fork()\n"
              "if pid == 0:\n"
              "    platform.watch_pipe(r, w)\n"
              "    time.sleep(60)\n"
              "    os._exit(0)\n"
              "print(pid, flush=True)\n"
              "time.sleep(60)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=REPO,
                            start_new_session=True)
    try:
        child = int(proc.stdout.readline())
        time.sleep(0.3)
        assert _alive(child), "the watcher exited while its parent lived"
        proc.kill()
        proc.wait()
        deadline = time.time() + 5
        while time.time() < deadline and _alive(child):
            time.sleep(0.02)
        assert not _alive(child)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


# ---------------------------------------------------------------- the build database (issue 21, item 11)


def _db_files(root: Path) -> list[Path]:
    state = root / "out" / ".shaderbuild"
    return [p for p in (state / "build.db", state / "db.json") if p.exists()]


def test_a_structurally_wrong_database_never_crashes_a_build(tmp_path):
    """Valid JSON of the wrong shape in the (old) JSON database: a traceback on every later build
    before; now its sound records are imported, the rest rebuild."""
    root, ref = project(tmp_path), project(tmp_path, "ref")
    assert run_build(ref, fake_compile).ok
    assert run_build(root, fake_compile).ok
    for p in _db_files(root):
        p.unlink()
    (root / "out/.shaderbuild/db.json").write_text(json.dumps(
        {"format": "shaderbuild.db/1", "meta": [], "targets": {"x": 5, "y": {"deps": "no"}}, "blobs": []}))
    for _ in range(2):
        report = run_build(root, fake_compile)
        assert report.ok and not report.mismatches
    assert output_bytes(root / "out") == output_bytes(ref / "out")


def test_a_flipped_digit_in_a_stored_resource_is_not_a_false_mismatch(tmp_path):
    """A byte flip that keeps the database readable changed a stored register: every later build
    failed with 'resources differ' before; now the damaged record is detected and rebuilt."""
    root = project(tmp_path)
    assert run_build(root, fake_compile).ok
    [path] = _db_files(root)
    data = bytearray(path.read_bytes())
    at = data.index(b'"register":') + len(b'"register":')
    assert chr(data[at]).isdigit()
    data[at] = ord("7") if data[at] != ord("7") else ord("8")
    path.write_bytes(bytes(data))
    for _ in range(2):
        report = run_build(root, fake_compile)
        assert report.ok and not report.mismatches, report.mismatches
