"""Run SPIR-V on lavapipe (Mesa's CPU Vulkan driver) through a persistent worker process.

The worker (vkworker.py) owns the Vulkan instance and device; a driver crash on a bad
binary kills only the worker.  The next call then starts a fresh one.
"""

from __future__ import annotations

import glob
import os
import pickle
import selectors
import struct
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


def _lavapipe_icd() -> str:
    """Mesa names the manifest lvp_icd.json (25.x) or lvp_icd.<arch>.json (22.x): found by pattern."""
    found = sorted(glob.glob("/usr/share/vulkan/icd.d/lvp_icd*.json"))
    return found[0] if found else "/usr/share/vulkan/icd.d/lvp_icd.json"


LAVAPIPE_ICD = _lavapipe_icd()
WORKER = Path(__file__).with_name("vkworker.py")
DEFAULT_TIMEOUT = 60.0
_HDR = struct.Struct("<Q")
_KINDS = frozenset({"storage", "uniform"})
_TEXEL_KINDS = frozenset({"uniform_texel_buffer", "storage_texel_buffer"})
_IMAGE_KINDS = frozenset({"sampled_image", "storage_image"})
_DIMS = frozenset({"1d", "1d_array", "2d", "2d_array", "3d", "cube", "cube_array"})
_PER_SAMPLE_FORMATS = ("r32f", "rg32f", "rgba32f", "r32ui", "rg32ui", "rgba32ui", "r32i", "rgba32i")  # vkmsfill
# texel format -> bytes per texel (the worker maps the names to VkFormats)
TEXEL_SIZES = {"rgba8": 4, "r32f": 4, "rg32f": 8, "rgba32f": 16, "r32ui": 4, "r32i": 4,
               "rgba32ui": 16, "rgba32i": 16, "d32f": 4, "rg32ui": 8,
               "r8": 1, "rgba8_snorm": 4, "r16f": 2, "rgba16f": 8}


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
    index: int = 0  # element of a descriptor array at (set, binding)


@dataclass
class TexelBuffer:
    """A texel-buffer descriptor (HLSL Buffer<T> / RWBuffer<T>): data viewed with `format`."""

    set: int
    binding: int
    data: bytes
    format: str = "r32f"  # a TEXEL_SIZES key
    kind: str = "storage_texel_buffer"  # or 'uniform_texel_buffer'
    index: int = 0


@dataclass
class Image:
    """A sampled or storage image, uploaded from `data` before the work (storage images are read
    back after it).  Data layout: mip level by mip level; within a level, layer by layer (cube
    faces are layers), each layer depth x height x width texels, rows from y = 0."""

    set: int
    binding: int
    data: bytes
    width: int
    height: int = 1
    format: str = "rgba8"  # a TEXEL_SIZES key
    kind: str = "sampled_image"  # or 'storage_image'
    dim: str = "2d"  # 1d, 1d_array, 2d, 2d_array, 3d, cube, cube_array
    depth: int = 1
    layers: int = 1
    mips: int = 1
    index: int = 0
    samples: int = 1  # > 1: a multisampled image, every sample cleared to `data`, one texel (no upload path)
    per_sample: bool = False  # with samples > 1: `data` holds every sample (vkmsfill's layout: each texel's samples)

    def levels(self) -> list[tuple[int, int, int]]:
        """(width, height, depth) of each mip level."""
        return [(max(1, self.width >> m), max(1, self.height >> m), max(1, self.depth >> m))
                for m in range(self.mips)]

    def data_size(self) -> int:
        if self.samples > 1 and self.per_sample:
            return self.width * self.height * self.layers * self.samples * TEXEL_SIZES[self.format]
        if self.samples > 1:
            return TEXEL_SIZES[self.format]
        return sum(w * h * d for w, h, d in self.levels()) * self.layers * TEXEL_SIZES[self.format]


@dataclass
class Sampler:
    """A sampler descriptor; compare (e.g. 'less_equal') makes it a comparison sampler."""

    set: int
    binding: int
    filter: str = "nearest"  # or 'linear' (min and mag)
    address: str = "clamp"  # clamp, wrap, mirror, border (all three axes)
    mipmap: str = "nearest"  # or 'linear'
    compare: str | None = None
    border: str = "transparent_black"  # or opaque_black, opaque_white
    max_lod: float = 1000.0
    index: int = 0
    kind: str = "sampler"
    data: bytes = b""


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
    """{'device': name, 'api': packed version, 'features': {name: enabled}, 'available_extensions': [name]} of
    the worker's device."""
    return _call({"op": "info"})


# -O3 binary -> a thunk giving its -O0 build, validated (registered by the compile helpers of
# lang_util and res_util): every dispatch or draw of a registered binary runs the -O0 build too, and the two
# must leave every descriptor and render target byte-identical (the optimiser changes no result)
_UNOPTIMISED: dict[bytes, Callable[[], bytes]] = {}


def register_unoptimised(optimised: bytes, unoptimised: Callable[[], bytes]) -> None:
    _UNOPTIMISED.setdefault(bytes(optimised), unoptimised)


def _unoptimised(spirv: bytes) -> bytes | None:
    thunk = _UNOPTIMISED.get(bytes(spirv))
    if thunk is None:
        return None
    o0 = thunk()
    return None if o0 == bytes(spirv) else o0


def _same_at_o0(req: dict, got: object, keys: tuple[str, ...], timeout: float,
                judge: Callable | None = None) -> object:
    """Run `req` again with the -O0 builds of its shaders; they must give `got` exactly, or, for results
    that depend on thread order, satisfy `judge(again, got)` (the test's own check, raising if not)."""
    twins = {}
    for k in keys:
        code = req[k] if isinstance(req[k], bytes) else req[k][0]
        o0 = _unoptimised(code)
        if o0 is not None:
            twins[k] = o0 if isinstance(req[k], bytes) else (o0, req[k][1])
    if twins:
        again = _call({**req, **twins}, timeout)
        if judge is not None:
            judge(again, got)
        elif again != got:
            raise AssertionError(f"the -O0 build of {'/'.join(twins)} gives different results from the -O3 build: "
                                 f"-O3 {_short(got)} vs -O0 {_short(again)}")
    return got


def _short(x: object) -> str:
    text = repr(x)
    return text if len(text) < 400 else text[:400] + "..."


def run_compute(
    spirv: bytes,
    entry: str,
    buffers: list,
    groups: tuple[int, int, int] = (1, 1, 1),
    push_constants: bytes = b"",
    timeout: float = DEFAULT_TIMEOUT,
    specialization: dict[int, bytes] | None = None,
    o0_check: Callable[[list[bytes]], None] | None = None,
) -> list[bytes]:
    """Dispatch `entry` of `spirv` over `groups`; return every descriptor's final contents, same order.
    Descriptors may be Buf, TexelBuffer, Image (storage images are read back), Sampler (b"") or
    accel.AccelStructure (b"").
    specialization: {constant id: value bytes} passed as the compute stage's VkSpecializationInfo.
    o0_check: judges the -O0 rerun's results instead of byte equality (thread-order-dependent results)."""
    req = {
        "op": "compute", "spirv": bytes(spirv), "entry": entry, "groups": tuple(groups),
        "push": bytes(push_constants), "buffers": _check_bufs(buffers),
    }
    if specialization:
        req["spec"] = {int(k): bytes(v) for k, v in specialization.items()}
    return _same_at_o0(req, _call(req, timeout), ("spirv",), timeout, o0_check)


def run_raytracing(
    spirv: bytes,
    raygen: str,
    size: tuple[int, int] | tuple[int, int, int],
    descriptors: list,
    *,
    miss: tuple[str, ...] = (),
    hit_groups: tuple[dict, ...] = (),
    callables: tuple[str, ...] = (),
    max_recursion: int = 1,
    timeout: float = DEFAULT_TIMEOUT,
    modules: dict[str, bytes] | None = None,
) -> dict:
    """Trace size[0] x size[1] (x size[2]) rays through a ray-tracing pipeline made of entry points of one SPIR-V
    library (or, with `modules` and empty `spirv`, of one module per shader name, entry point "main":
    what dxil-spirv makes of each shader of a DXIL library): shader groups raygen, then `miss` (miss index i = group 1 + i), `hit_groups` (dicts with
    'closest', 'any' and 'intersection' entry names; with an intersection shader the group is
    procedural), then `callables` (CallShader index i), in a shader binding table built with the
    device's handle size and alignments (vkraytrace.py).  Descriptors as run_compute's (an
    accel.AccelStructure for the scene).  Returns {"buffers": every descriptor's final contents,
    "sbt": {"properties": handle size/alignments, "regions": [(offset, stride, size)] x 4}}."""
    req = {
        "op": "raytrace", "spirv": bytes(spirv), "raygen": raygen, "miss": list(miss),
        "hit_groups": [dict(h) for h in hit_groups], "callables": list(callables), "size": tuple(size),
        "buffers": _check_bufs(list(descriptors)), "max_recursion": int(max_recursion),
        "modules": {k: bytes(v) for k, v in (modules or {}).items()},
    }
    return _same_at_o0(req, _call(req, timeout), ("spirv",), timeout)


def _check_bufs(buffers: list) -> list[dict]:
    """Validate descriptors (Buf, TexelBuffer, Image, Sampler) and turn them into worker request dicts."""
    return [_describe(b) for b in buffers]


def _describe(b) -> dict:
    if b.kind == "acceleration_structure":     # accel.AccelStructure: the worker builds its scene
        return b.request()
    d = {"set": b.set, "binding": b.binding, "index": b.index, "kind": b.kind, "data": bytes(b.data)}
    where = f"set={b.set} binding={b.binding}"
    if isinstance(b, Sampler):
        d.update(filter=b.filter, address=b.address, mipmap=b.mipmap, compare=b.compare, border=b.border,
                 max_lod=b.max_lod)
        return d
    if not b.data:
        raise ValueError(f"descriptor {where} is empty")
    if isinstance(b, Image):
        if b.kind not in _IMAGE_KINDS or b.format not in TEXEL_SIZES or b.dim not in _DIMS:
            raise ValueError(f"unsupported image {where}: kind {b.kind!r}, format {b.format!r}, dim {b.dim!r}")
        if len(b.data) != b.data_size():
            raise ValueError(f"image {where}: {len(b.data)} bytes of data, its shape needs {b.data_size()}")
        d.update(format=b.format, width=b.width, height=b.height, depth=b.depth, layers=b.layers, mips=b.mips,
                 dim=b.dim)
        if b.samples > 1:
            if b.mips != 1 or b.dim not in ("2d", "2d_array") or b.format in ("d32f", "rgba8") or b.kind != "sampled_image":
                raise ValueError(f"multisampled image {where}: one level of a sampled 2d/2d_array 32-bit color image")
            d["samples"] = b.samples
            if b.per_sample:
                if b.format not in _PER_SAMPLE_FORMATS:
                    raise ValueError(f"multisampled image {where}: per-sample data needs one of {_PER_SAMPLE_FORMATS}")
                d["per_sample"] = True
        return d
    if isinstance(b, TexelBuffer):
        if b.kind not in _TEXEL_KINDS or b.format not in TEXEL_SIZES or b.format == "d32f":
            raise ValueError(f"unsupported texel buffer {where}: kind {b.kind!r}, format {b.format!r}")
        d["format"] = b.format
        return d
    if b.kind not in _KINDS:
        raise ValueError(f"unsupported buffer kind {b.kind!r} (have {sorted(_KINDS)})")
    return d


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
    *,
    instance_count: int = 1,
    targets: int = 1,
    full: bool = False,
    tessellation: tuple[bytes, str, bytes, str, int] | None = None,
    gs: tuple[bytes, str] | None = None,
    topology: str = "triangle_list",
    layers: int = 1,
    xfb: int = 0,
    depth: float | None = None,
    first_vertex: int = 0,
    first_instance: int = 0,
    viewports: int = 1,
    samples: int = 1,
    stencil: int | None = None,
    cull: str = "none",
):
    """Draw vertex_count vertices (triangle list, instance_count instances) into `targets` width x height
    RGBA8_UNORM targets; return target 0's pixels, row-major from the top row (Vulkan conventions: y down,
    no D3D flip), 4 bytes per pixel.  With full=True return (pixels of every target, final contents of
    every descriptor) instead.  Descriptors may be Buf, TexelBuffer, Image or Sampler.
    tessellation=(hs_spirv, hs_entry, ds_spirv, ds_entry, control_points) adds the hull and domain
    stages and draws a patch list of that many control points per patch.
    gs = (spirv, entry) adds a geometry stage; topology names the input assembly's primitive topology;
    with layers > 1 each target is a 2D array image and its pixels are the layers one after another.
    xfb = N bytes: transform feedback into an N-byte buffer bound as buffer 0 (VK_EXT_transform_feedback; the
    shader's XfbBuffer/Offset decorations pick what is captured); returns (pixels of every target, its bytes).
    depth: a D32 depth buffer cleared to it, with depth test LESS and depth writes (primitives are drawn
    in order).  first_vertex / first_instance: vkCmdDraw's firstVertex and firstInstance.
    viewports = n: n viewports (and scissors), side-by-side vertical strips of the target, viewport i the i-th.
    samples = n: rasterize into n-sample targets (standard sample locations) resolved into the returned ones.
    stencil = n: a stencil buffer cleared to n, the stencil test EQUAL against the reference (0, or the pixel
    shader's SV_StencilRef), nothing written to it.
    cull: 'none', 'front' or 'back' faces culled (front faces are counter-clockwise in framebuffer coordinates)."""
    req = {
        "op": "graphics", "vs": (bytes(vs_spirv), vs_entry), "ps": (bytes(ps_spirv), ps_entry),
        "size": (int(width), int(height)), "buffers": _check_bufs(list(descriptors)),
        "vertex_buffers": [(bytes(v.data), v.stride, list(v.attributes)) for v in vertex_buffers or ()],
        "vertex_count": vertex_count, "clear": tuple(float(c) for c in clear),
        "instance_count": int(instance_count), "targets": int(targets), "full": bool(full),
        "gs": None if gs is None else (bytes(gs[0]), gs[1]), "topology": topology, "layers": int(layers),
        "xfb": int(xfb),
        "depth": None if depth is None else float(depth),
        "first_vertex": int(first_vertex), "first_instance": int(first_instance), "viewports": int(viewports),
        "samples": int(samples), "stencil": None if stencil is None else int(stencil), "cull": cull,
    }
    if tessellation is not None:
        hs, hs_entry, ds, ds_entry, points = tessellation
        req.update(hs=(bytes(hs), hs_entry), ds=(bytes(ds), ds_entry), patch_control_points=int(points))
    stages = ("vs", "ps", "hs", "ds") if tessellation is not None else ("vs", "ps")
    stages += ("gs",) if gs is not None else ()
    return _same_at_o0(req, _call(req, timeout), stages, timeout)


def run_mesh(
    ms_spirv: bytes,
    ms_entry: str,
    ps_spirv: bytes,
    ps_entry: str,
    width: int,
    height: int,
    groups: tuple[int, int, int] = (1, 1, 1),
    *,
    task: tuple[bytes, str] | None = None,
    descriptors: list[Buf] = (),
    clear: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0),
    timeout: float = DEFAULT_TIMEOUT,
    layers: int = 1,
    viewports: int = 1,
):
    """Draw with a mesh pipeline (VK_EXT_mesh_shader): vkCmdDrawMeshTasksEXT(groups) through the
    task stage (task = (spirv, entry)) when given, else straight to the mesh stage; returns the
    RGBA8 target's pixels as run_graphics does (layers > 1: a 2D array target, layer after layer;
    viewports as run_graphics's)."""
    req = {
        "op": "graphics", "vs": None, "ms": (bytes(ms_spirv), ms_entry), "ps": (bytes(ps_spirv), ps_entry),
        "as": None if task is None else (bytes(task[0]), task[1]), "mesh_groups": tuple(int(g) for g in groups),
        "size": (int(width), int(height)), "buffers": _check_bufs(list(descriptors)), "vertex_buffers": [],
        "vertex_count": 0, "clear": tuple(float(c) for c in clear), "targets": 1, "full": False,
        "layers": int(layers), "viewports": int(viewports),
    }
    return _same_at_o0(req, _call(req, timeout), ("ms", "ps", "as") if task is not None else ("ms", "ps"), timeout)


def crash_worker(how: str = "segv") -> None:
    """Test hook: make the worker die ('segv' or 'exit'); always raises VulkanCrash."""
    _call({"op": "crash", "how": how})
