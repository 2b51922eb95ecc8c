"""The fuzz worker process: reads requests on stdin, compiles, classifies, answers on stdout.

Frames are a little-endian u64 length followed by a pickle.  The worker never sees a test
framework; if the compiler kills it (segfault, abort, memory) or loops forever, the pool
(runner.py) notices and records a crash or a hang for the input in flight.
"""

from __future__ import annotations

import os
import pickle
import resource
import struct
import sys
import tempfile
import time

HDR = struct.Struct("<Q")
MEMORY_LIMIT = 3 << 30
WARMUP = "RWStructuredBuffer<uint> O : register(u0);\n[numthreads(1,1,1)] void main() { O[0] = 1; }\n"


def compile_one(data: bytes, name: str, target: str, validate: bool, options: dict, workdir: str):
    """Outcome of compiling `data` for `target` (in-process; used by the worker and by tests)."""
    from shaderbuild.compiler import compile_file
    from shaderbuild.options import CompileOptions

    from .outcome import ERROR, INVALID, OK, TRACEBACK, Outcome, classify_diagnostics
    from .validate import VALIDATORS

    opts = CompileOptions(target=target, **options)
    t0 = time.perf_counter()
    try:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        if text is None:  # byte-level input: go through the file reader like a real build
            path = os.path.join(workdir, os.path.basename(name))
            with open(path, "wb") as f:
                f.write(data)
            res = compile_file(path, opts)
        else:
            res = compile_file(name, opts, text=text)
    except BaseException as exc:  # noqa: BLE001 - escaping compile_file is the finding
        import traceback

        frame = traceback.extract_tb(exc.__traceback__)[-1]
        return Outcome(target, TRACEBACK, f"{type(exc).__name__}: {exc} (at {os.path.basename(frame.filename)}:"
                                          f"{frame.lineno})", time.perf_counter() - t0)
    if res.ok:
        cls, detail = OK, ""
        if res.binary is None or not res.binary:
            cls, detail = INVALID, "ok result without a binary"
        elif validate:
            problem = VALIDATORS[target](res.binary, workdir)
            if problem:
                cls, detail = INVALID, problem
        if cls == OK and res.manifest is None:
            cls, detail = INVALID, "ok result without a manifest"
    else:
        cls, detail = classify_diagnostics(res.diagnostics)
    out = Outcome(target, cls, detail, time.perf_counter() - t0)
    assert out.cls in (OK, ERROR) or out.detail
    return out


def _read_exact(fd: int, n: int) -> bytes | None:
    buf = bytearray()
    while len(buf) < n:
        chunk = os.read(fd, n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def main() -> None:
    """Serve requests until stdin closes.  stdout is reserved for frames: prints go to stderr."""
    in_fd, out_fd = sys.stdin.fileno(), os.dup(sys.stdout.fileno())
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    try:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    except (ValueError, OSError):
        pass
    with tempfile.TemporaryDirectory(prefix="sbfuzz-") as workdir:
        for target in ("spirv", "dxil"):  # load plugins before the first timed input
            compile_one(WARMUP.encode(), "warmup.hlsl", target, False, {}, workdir)
        _write_all(out_fd, HDR.pack(0))
        while True:
            head = _read_exact(in_fd, HDR.size)
            if head is None:
                return
            req = pickle.loads(_read_exact(in_fd, HDR.unpack(head)[0]) or b"")
            outcomes = [compile_one(req["data"], req["name"], t, req["validate"], req.get("options", {}), workdir)
                        for t in req["targets"]]
            _write_all(out_fd, _frame(outcomes))


def _frame(obj: object) -> bytes:
    blob = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return HDR.pack(len(blob)) + blob
