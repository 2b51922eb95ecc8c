"""Run SPIR-V on lavapipe (Mesa's CPU Vulkan driver) through a persistent worker process.

The worker (vkworker.py) owns the Vulkan instance and device; a driver crash on a bad
binary kills only the worker.  The next call then starts a fresh one.
"""

from __future__ import annotations

import os
import pickle
import selectors
import struct
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

LAVAPIPE_ICD = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
WORKER = Path(__file__).with_name("vkworker.py")
DEFAULT_TIMEOUT = 60.0
_HDR = struct.Struct("<Q")
_KINDS = frozenset({"storage", "uniform"})


class VulkanError(RuntimeError):
    """The Vulkan work failed (validation of inputs, VkResult error); the worker survived."""


class VulkanCrash(VulkanError):
    """The worker process died (driver segfault, abort) or hung; its stderr is in the message."""


@dataclass
class Buf:
    """One buffer descriptor: its (set, binding), initial contents and descriptor kind."""

    set: int
    binding: int
    data: bytes
    kind: str = "storage"  # 'storage' -> STORAGE_BUFFER, 'uniform' -> UNIFORM_BUFFER


@dataclass
class VertexBuffer:
    """Per-vertex data for run_graphics: attributes are (location, format, byte offset); formats as in vkworker."""

    data: bytes
    stride: int
    attributes: list[tuple[int, str, int]]


class _Worker:
    """One live worker process with its stderr captured in a temp file."""

    def __init__(self) -> None:
        self.runtime_dir = tempfile.TemporaryDirectory(prefix="vkrt-")
        self.stderr = tempfile.TemporaryFile()
        env = dict(os.environ)
        icd = os.environ.get("SHADERBUILD_VK_ICD", LAVAPIPE_ICD)
        env.update(VK_ICD_FILENAMES=icd, VK_DRIVER_FILES=icd, XDG_RUNTIME_DIR=self.runtime_dir.name)
        self.proc = subprocess.Popen(
            [sys.executable, str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.stderr, env=env,
        )

    def stderr_text(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")

    def request(self, req: dict, timeout: float) -> object:
        blob = pickle.dumps(req, protocol=pickle.HIGHEST_PROTOCOL)
        try:
            self.proc.stdin.write(_HDR.pack(len(blob)) + blob)
            self.proc.stdin.flush()
            (n,) = _HDR.unpack(self._read(_HDR.size, timeout))
            status, value = pickle.loads(self._read(n, timeout))
        except (BrokenPipeError, EOFError, TimeoutError) as exc:
            raise self._crashed(exc) from None
        if status != "ok":
            raise VulkanError(value)
        return value

    def _read(self, n: int, timeout: float) -> bytes:
        out = bytearray()
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while len(out) < n:
                if not sel.select(timeout):
                    raise TimeoutError(f"no reply within {timeout} s")
                chunk = os.read(fd, n - len(out))
                if not chunk:
                    raise EOFError
                out += chunk
        return bytes(out)

    def _crashed(self, exc: Exception) -> VulkanCrash:
        if isinstance(exc, TimeoutError):
            self.proc.kill()
        rc = self.proc.wait()
        why = str(exc) if isinstance(exc, TimeoutError) else f"exit status {rc}"
        return VulkanCrash(f"Vulkan worker died ({why}); stderr:\n{self.stderr_text()}")

    def close(self) -> None:
        try:
            self.proc.stdin.close()  # EOF: a live worker exits its loop
        except BrokenPipeError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        self.stderr.close()
        self.runtime_dir.cleanup()


_worker: _Worker | None = None


def _call(req: dict, timeout: float = DEFAULT_TIMEOUT) -> object:
    """Send one request to the (lazily started) worker; replace the worker if it died."""
    global _worker
    if _worker is None or _worker.proc.poll() is not None:
        if _worker is not None:
            _worker.close()
        _worker = _Worker()
    try:
        return _worker.request(req, timeout)
    except VulkanCrash:
        _worker.close()
        _worker = None
        raise


def shutdown() -> None:
    """Stop the worker (tests call this at session end; also safe to call twice)."""
    global _worker
    if _worker is not None:
        _worker.close()
        _worker = None


def device_info() -> dict:
    """{'device': name, 'api': packed version, 'features': {name: enabled}} of the worker's device."""
    return _call({"op": "info"})


def run_compute(
    spirv: bytes,
    entry: str,
    buffers: list[Buf],
    groups: tuple[int, int, int] = (1, 1, 1),
    push_constants: bytes = b"",
    timeout: float = DEFAULT_TIMEOUT,
) -> list[bytes]:
    """Dispatch `entry` of `spirv` over `groups`; return every buffer's final contents, same order."""
    req = {
        "op": "compute", "spirv": bytes(spirv), "entry": entry, "groups": tuple(groups),
        "push": bytes(push_constants), "buffers": _check_bufs(buffers),
    }
    return _call(req, timeout)


def _check_bufs(buffers: list[Buf]) -> list[tuple]:
    for b in buffers:
        if b.kind not in _KINDS:
            raise ValueError(f"unsupported buffer kind {b.kind!r} (have {sorted(_KINDS)})")
        if not b.data:
            raise ValueError(f"buffer set={b.set} binding={b.binding} is empty")
    return [(b.set, b.binding, bytes(b.data), b.kind) for b in buffers]


def run_graphics(
    vs_spirv: bytes,
    vs_entry: str,
    ps_spirv: bytes,
    ps_entry: str,
    width: int,
    height: int,
    descriptors: list[Buf] = (),
    vertex_buffers: list[VertexBuffer] | None = None,
    vertex_count: int = 3,
    clear: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0),
    timeout: float = DEFAULT_TIMEOUT,
) -> bytes:
    """Draw vertex_count vertices (triangle list) into a width x height RGBA8_UNORM target; return its
    pixels, row-major from the top row (Vulkan conventions: y down, no D3D flip), 4 bytes per pixel."""
    req = {
        "op": "graphics", "vs": (bytes(vs_spirv), vs_entry), "ps": (bytes(ps_spirv), ps_entry),
        "size": (int(width), int(height)), "buffers": _check_bufs(list(descriptors)),
        "vertex_buffers": [(bytes(v.data), v.stride, list(v.attributes)) for v in vertex_buffers or ()],
        "vertex_count": vertex_count, "clear": tuple(float(c) for c in clear),
    }
    return _call(req, timeout)


def crash_worker(how: str = "segv") -> None:
    """Test hook: make the worker die ('segv' or 'exit'); always raises VulkanCrash."""
    _call({"op": "crash", "how": how})
