"""The unit of remote work: compile one target from file contents sent with it.

This module is what a Dask worker (or a local pool process) imports: it needs
`shaderbuild` and its backend plugins, nothing else, and touches no file.  The
compiler reads through `reader=`, served from `TaskInput.files`; a path that is not
there is reported missing to the preprocessor (it tries the next include
candidate) and listed in `TaskOutput.misses` so the client can tell a real
absence from an include closure that changed since it was scanned.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field

from ...options import CompileOptions


@dataclass(slots=True)
class TaskInput:
    tid: str
    name: str
    source: str                        # absolute path on the client (the key into `files`)
    options: CompileOptions
    files: dict[str, bytes]            # absolute client path -> contents (the include closure)
    diag_format: str = "gnu"
    kinds: tuple[str, ...] = ()        # extra outputs wanted: 'disassembly', 'header'
    source_name: str = ""              # the manifest's source name, as the client would write it
    header_symbol: str = ""            # C identifier for the 'header' output


@dataclass(slots=True)
class TaskOutput:
    tid: str
    ok: bool
    messages: str = ""
    diagnostics: list[dict] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)  # kind -> bytes, ready to write
    manifest: dict | None = None
    dependencies: list[str] = field(default_factory=list)   # absolute client paths the compiler read
    misses: list[str] = field(default_factory=list)         # paths asked for but not sent
    seconds: float = 0.0
    worker: str = ""


def render_outputs(binary: bytes, manifest: dict, disassembly: str | None, *, kinds, source_name: str,
                   header_symbol: str, name: str) -> dict[str, bytes]:
    """The bytes of every output file of a target, exactly as the local worker writes them
    (rendered on the worker, so the client only writes)."""
    from ..outputs import manifest_bytes, render_header

    if source_name and "source" in manifest:
        manifest = {**manifest, "source": source_name}
    files = {"binary": binary, "manifest": manifest_bytes(manifest)}
    if "disassembly" in kinds:
        files["disassembly"] = (disassembly or "").encode("utf-8")
    if "header" in kinds:
        files["header"] = render_header(header_symbol, binary, name)
    return files


def _worker_name() -> str:
    """The Dask worker's address inside a Dask worker (never imports Dask), else the pid."""
    import os
    import sys

    dist = sys.modules.get("distributed")
    if dist is not None:
        try:
            return dist.get_worker().address
        except ValueError:
            pass
    return f"pid {os.getpid()}"


def compile_task(inp: TaskInput) -> TaskOutput:
    """Compile `inp` with the default compiler; never raises for a bad shader."""
    start = time.perf_counter()
    misses: list[str] = []

    def reader(path: str) -> bytes:
        data = inp.files.get(path)
        if data is None:
            misses.append(path)
            raise FileNotFoundError(path)
        return data

    try:
        from ...compiler import compile_file
        from ...diagnostics import render_all

        result = compile_file(inp.source, inp.options, reader=reader)
        messages = render_all(result.diagnostics, result.sources, inp.diag_format) if result.diagnostics else ""
        out = TaskOutput(inp.tid, bool(result.ok and result.binary is not None), messages,
                         [d.to_json() for d in result.diagnostics], misses=misses, worker=_worker_name())
        if out.ok:
            assert result.binary is not None    # out.ok says so
            out.manifest = result.manifest or {}
            out.files = render_outputs(result.binary, out.manifest,
                                       result.disassembly if "disassembly" in inp.kinds else None, kinds=inp.kinds,
                                       source_name=inp.source_name, header_symbol=inp.header_symbol, name=inp.name)
            out.dependencies = list(result.dependencies)
        elif not messages:
            out.messages = f"{inp.source}: error: compilation of {inp.name} failed without a diagnostic"
    except Exception:  # noqa: BLE001 - a compiler crash fails this target, not the build
        msg = f"{inp.source}: internal compiler error while building {inp.name}\n{traceback.format_exc()}"
        out = TaskOutput(inp.tid, False, msg, [{"severity": "error", "message": msg}], misses=misses,
                         worker=_worker_name())
    out.seconds = time.perf_counter() - start
    return out


def compile_batch(inputs: list[TaskInput]) -> list[TaskOutput]:
    """Several small targets in one task: fewer scheduler round trips for millisecond compiles."""
    return [compile_task(i) for i in inputs]
