"""dxil-spirv, the DXIL front end of vkd3d-proton, as an independent consumer of our DXIL.

Every container that `dxil_tools.check_dxil` sees is converted to SPIR-V by `dxil-to-spirv` (a small
driver over the pinned dxil-spirv library in ../shared/tools/dxil-spirv) and the result must pass
`spirv-val --scalar-block-layout`.  The converter runs as a subprocess with a timeout: a crash (signal)
or an error exit is a failure.  Conversions are cached by container bytes, so a container the suite
checks from several places is converted once.

Descriptor mapping (dxil-spirv's, no bindless): set = register space, binding = SHIFTS[class] +
register, resource arrays as descriptor arrays at that binding; structured and byte-address buffers are
SSBOs (SRV and UAV), typed buffers texel buffers, CBVs UBOs; UAV counters are R32_UINT storage texel
buffers at set COUNTER_SET, binding = the UAV's range id.

What dxil-spirv itself cannot do is listed once, in LIMITS, each with the way its failure is recognised
(a test of the compiler whose DXIL hits one is not failed for it; tests/dxil/test_dxil_consumer.py keeps one
strict xfail per entry, so an entry that stops applying is noticed).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from .tools import TempInput, missing_dependency, run_tool

REPO = Path(__file__).resolve().parents[2]
PREFIX = REPO / ".ci" / "dxil-spirv"
BUILD_SCRIPT = REPO.parent / "shared" / "tools" / "dxil-spirv" / "build.sh"
EXE = "dxil-to-spirv"
CONVERT_TIMEOUT = 60.0
BUILD_TIMEOUT = 1800.0
# register class letter -> binding shift; dxil-to-spirv takes them in the order b t s u
SHIFTS = {"b": 0, "t": 32, "s": 64, "u": 96}
COUNTER_SET = 7

# key -> why dxil-spirv cannot take such DXIL (a limit of the consumer, not of our compiler)
LIMITS = {
    "ps-device-barrier": "dxil-spirv translates DeviceMemoryBarrier() in a pixel shader with Workgroup memory "
                         "scope (opcodes/dxil/dxil_compute.cpp, emit_barrier_instruction: Workgroup unless a "
                         "globallycoherent UAV is declared, in every stage), which Vulkan allows only in "
                         "compute-like stages (spirv-val VUID-07321); our barrier(80, 2) (UAVFenceGlobal) is "
                         "what DXC emits",
    "tbuffer": "dxil-spirv has no image dimension for the TBuffer resource kind (15) that DXC (an SRV of the "
               "cbuffer's kind TBuffer, read with bufferLoad) and we give a tbuffer or TextureBuffer<T> "
               "(dxil_converter.cpp, image_dimension_from_resource_kind: no TBuffer case, so DimMax); its "
               "SPIR-V gets Dim 0x7fffffff, which spirv-val rejects",
    "sv-builtin-in-stage": "dxil-spirv gives a system value its Vulkan built-in in every stage, also where "
                           "Vulkan has none (dxil_converter.cpp, the RenderTargetArrayIndex / ViewPortArrayIndex / "
                           "IsFrontFace cases of its built-in switch): SV_RenderTargetArrayIndex / "
                           "SV_ViewportArrayIndex read by a hull or geometry shader become Layer / ViewportIndex "
                           "inputs of TessellationControl / Geometry (VUID-Layer-Layer-04272, -04274), "
                           "SV_IsFrontFace written by a geometry shader a FrontFacing output; D3D allows all three "
                           "and our signature element is DXC's (DxilSigPoint.inl: SV at HSCPIn and GSVIn, SGV at "
                           "GSOut)",
    "mesh-derivatives": "not dxil-spirv's but the checker's: Debian 12's spirv-val (SPIRV-Tools 2023.1) knows "
                        "compute-shader derivatives only as SPV_NV_compute_shader_derivatives (the harness validates "
                        "the KHR modules of compute shaders under that name), which allows them in GLCompute only; "
                        "SPV_KHR_compute_shader_derivatives, which dxil-spirv declares, also allows them in the "
                        "TaskEXT / MeshEXT models of an SM 6.6 amplification or mesh shader",
    "ssbo-sparse-feedback": "dxil-spirv refuses the status (the ResRet's fifth element) of a load from a buffer "
                            "it maps to an SSBO ('Cannot use SSBOs and sparse feedback'): SPIR-V has no residency "
                            "query for storage buffers, which is also why our SPIR-V backend refuses such a status",
    "typed-uav-read-16bit": "dxil-spirv reads a typed UAV whose component type is not 32-bit (F16, I16, U16: "
                            "RWTexture2D<half4> with -enable-16bit-types, as DXC records it) only with its "
                            "typed_uav_read_without_format option, which vkd3d-proton sets from the device's "
                            "shaderStorageImageReadWithoutFormat and our driver (driver.c) does not",
    "float-bitwise-atomic": "dxil-spirv translates the i32 cmpxchg / atomicrmw xchg on a bitcast pointer that "
                            "Interlocked*FloatBitwise and a float InterlockedExchange on a groupshared float are in "
                            "DXIL (the integer operation on the float's bits, as LLVM writes it) into a uint "
                            "OpAtomicCompareExchange / OpAtomicExchange on its float Workgroup pointer, which "
                            "spirv-val rejects",
    "binding-past-int32": "dxil-spirv's SPIR-V builder takes a decoration's literal as a signed int and drops it "
                          "when negative (third_party/glslang-spirv/SpvBuilder.cpp, Builder::addDecoration: "
                          "`if (num >= 0)`), so a register or space of 2^31 or more (after the binding shift) "
                          "leaves a DescriptorSet / Binding decoration without its operand; DXIL keeps the 32-bit "
                          "register and space as they are written",
}


def _limit_of(stage_failed: str, message: str, disassembly: str = "") -> str | None:
    """The LIMITS key that explains a failure, or None (a real failure)."""
    if stage_failed == "spirv-val" and "Workgroup Memory Scope is limited to" in message:
        return "ps-device-barrier"
    if stage_failed == "spirv-val" and ("VUID-FrontFacing-FrontFacing-" in message or (
            "Vulkan spec allows BuiltIn" in message and "called with execution model TessellationControl" in message)
            or ("Layer and ViewportIndex to be used for variables with Input storage class" in message
                and "called with execution model Geometry" in message)):
        return "sv-builtin-in-stage"
    if (stage_failed == "spirv-val" and "Derivative instructions require Fragment or GLCompute execution model"
            in message and re.search(r"OpEntryPoint (TaskEXT|MeshEXT) ", disassembly)
            and 'OpExtension "SPV_KHR_compute_shader_derivatives"' in disassembly):
        return "mesh-derivatives"
    if stage_failed == "spirv-val" and "Invalid dimensionality operand: 2147483647" in message:
        return "tbuffer"
    if (stage_failed == "spirv-val" and re.search(r"Atomic(Compare)?Exchange: expected Pointer to point to a value "
                                                  r"of type Result Type", message)
            and re.search(r"OpAtomic(Compare)?Exchange %uint", message)
            and re.search(r"OpTypePointer Workgroup %float\b", disassembly)):
        return "float-bitwise-atomic"
    if (stage_failed == "spirv-val" and "End of input reached while decoding OpDecorate" in message
            and "expected more operands after 3 words" in message
            and re.search(r"Decorate [^\n]*\n\s*$", disassembly)):      # (spirv-dis stops there too)
        return "binding-past-int32"
    if stage_failed == "convert" and "Cannot use SSBOs and sparse feedback" in message:
        return "ssbo-sparse-feedback"
    if stage_failed == "convert" and "typed_uav_read_without_format option must be enabled" in message:
        return "typed-uav-read-16bit"
    return None


class ConsumerError(AssertionError):
    """dxil-spirv crashed on or rejected our DXIL, or spirv-val rejected what it made."""


class ConsumerLimit(ConsumerError):
    """The failure is a listed limit of dxil-spirv (key of LIMITS)."""

    def __init__(self, key: str, detail: str) -> None:
        super().__init__(f"known dxil-spirv limit {key!r}: {LIMITS[key]}\n{detail}")
        self.key = key


@dataclass
class Stats:
    converted: int = 0
    seconds: float = 0.0
    executed: int = 0  # runs on lavapipe through dxil-spirv compared with the SPIR-V run
    run_seconds: float = 0.0  # their time: reflection, binding and the lavapipe run

    def ran(self, since: float) -> None:
        """Count one run through dxil-spirv on lavapipe that started at perf_counter() == since."""
        self.executed += 1
        self.run_seconds += time.perf_counter() - since


STATS = Stats()
LIMIT_HITS: dict[str, int] = {}


@functools.cache
def _converter() -> str | AssertionError | None:
    """Path of dxil-to-spirv: $SHADERBUILD_DXIL_SPIRV, then <repo>/.ci/dxil-spirv/bin, then PATH; when none
    exists it is built once into <repo>/.ci/dxil-spirv (build.sh holds a flock on the prefix, so pytest-xdist
    workers wait for one build and then find its stamp)."""
    env = os.environ.get("SHADERBUILD_DXIL_SPIRV")
    if env:
        return env if os.access(env, os.X_OK) else None
    local = PREFIX / "bin" / EXE
    if local.exists():
        return str(local)
    found = shutil.which(EXE)
    if found:
        return found
    if not BUILD_SCRIPT.exists():
        return None
    print(f"\n[dxil-spirv] building {EXE} with {BUILD_SCRIPT} (2-4 minutes, once)", file=sys.stderr)
    proc = subprocess.run(["bash", str(BUILD_SCRIPT), str(PREFIX)], capture_output=True, timeout=BUILD_TIMEOUT)
    if proc.returncode != 0 or not local.exists():
        return AssertionError(f"building dxil-spirv failed (exit {proc.returncode}):\n"
                              f"{proc.stdout.decode(errors='replace')[-4000:]}{proc.stderr.decode(errors='replace')[-4000:]}")
    return str(local)


def converter() -> str:
    """dxil-to-spirv, found or built; missing (no build script) skips locally and fails in CI; a failed build
    fails every test that needs it (tried once per session)."""
    path = _converter()
    if isinstance(path, AssertionError):
        raise path
    if path is None:
        how = f"set SHADERBUILD_DXIL_SPIRV or run {BUILD_SCRIPT} {PREFIX}"
        missing_dependency(f"{EXE} (dxil-spirv consumer; {how})")
    return path


def target_env(spirv: bytes) -> str:
    """The oldest Vulkan environment whose SPIR-V version covers the module's header version: dxil-spirv
    writes SPIR-V 1.3 (vulkan1.1) unless a feature needs a later version, and a Vulkan env accepts exactly
    the SPIR-V versions up to its own (1.1: 1.3, 1.2: 1.5, 1.3: 1.6); lavapipe runs all three."""
    if len(spirv) < 8 or struct.unpack_from("<I", spirv, 0)[0] != 0x07230203:
        raise ConsumerError("dxil-spirv output is not SPIR-V (bad magic)")
    minor = (struct.unpack_from("<I", spirv, 4)[0] >> 8) & 0xFF
    return "vulkan1.1" if minor <= 3 else "vulkan1.2" if minor <= 5 else "vulkan1.3"


def _signal_name(rc: int) -> str:
    try:
        return signal.Signals(-rc).name
    except ValueError:
        return f"signal {-rc}"


def _convert_uncached(blob: bytes, entry: str | None = None) -> bytes:
    exe = converter()
    start = time.perf_counter()
    with TempInput(blob, ".dxil") as path:
        out = path.with_suffix(".spv")
        shifts = [str(SHIFTS[c]) for c in "btsu"]
        pick = ["--entry", entry] if entry is not None else []     # a library: one exported shader
        try:
            proc = subprocess.run([exe, str(path), str(out), *pick, "--binding-shift", *shifts],
                                  capture_output=True, timeout=CONVERT_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise ConsumerError(f"{EXE} did not finish within {CONVERT_TIMEOUT} s") from None
        msg = (proc.stderr + proc.stdout).decode(errors="replace")
        if proc.returncode != 0:
            crashed = -proc.returncode if proc.returncode < 0 else None
            what = f"crashed ({_signal_name(proc.returncode)})" if crashed else f"failed (exit {proc.returncode})"
            key = _limit_of("convert", msg)
            if key:
                raise ConsumerLimit(key, msg)
            raise ConsumerError(f"dxil-spirv {what} on our DXIL:\n{msg}")
        spirv = out.read_bytes()
    env = target_env(spirv)
    with TempInput(spirv, ".spv") as spv:
        val = run_tool(["spirv-val", "--target-env", env, "--scalar-block-layout", str(spv)], check=False)
    STATS.converted += 1
    STATS.seconds += time.perf_counter() - start
    if val.returncode != 0 and _KHR_DERIVATIVES in spirv:
        # Debian 12's spirv-val (SPIRV-Tools 2023.1) does not know SPV_KHR_compute_shader_derivatives, which
        # dxil-spirv declares for derivatives and quads of an SM 6.6 compute shader; the NV extension it knows
        # has the same capability and execution-mode numbers, so a copy naming it is validated instead (the
        # KHR module is what runs: lavapipe offers VK_KHR_compute_shader_derivatives)
        with TempInput(spirv.replace(_KHR_DERIVATIVES, _NV_DERIVATIVES), ".spv") as spv:
            val = run_tool(["spirv-val", "--target-env", env, "--scalar-block-layout", str(spv)], check=False)
    if val.returncode != 0:
        msg = (val.stderr + val.stdout).decode(errors="replace")
        dis = run_tool(["spirv-dis", "-"], stdin=spirv, check=False).stdout.decode(errors="replace")
        key = _limit_of("spirv-val", msg, dis)
        if key:
            raise ConsumerLimit(key, msg)
        raise ConsumerError(f"spirv-val --target-env {env} --scalar-block-layout rejects dxil-spirv's SPIR-V "
                            f"of our DXIL:\n{msg}\n--- disassembly ---\n{dis}")
    return spirv


# the two extension names as SPIR-V literal strings: 34 and 33 characters, both nine words with their padding
_KHR_DERIVATIVES = b"SPV_KHR_compute_shader_derivatives\0\0"
_NV_DERIVATIVES = b"SPV_NV_compute_shader_derivatives\0\0\0"
assert len(_KHR_DERIVATIVES) == len(_NV_DERIVATIVES) == 36


@functools.lru_cache(maxsize=2048)
def _convert_cached(blob: bytes, entry: str | None = None) -> bytes | ConsumerError:
    try:
        return _convert_uncached(blob, entry)
    except ConsumerError as exc:
        return exc


def to_spirv(blob: bytes, entry: str | None = None) -> bytes:
    """dxil-spirv's validated SPIR-V of a DXIL container (cached by bytes), of its shader `entry` for a
    library; ConsumerError (ConsumerLimit for a listed limit) otherwise."""
    got = _convert_cached(bytes(blob), entry)
    if isinstance(got, ConsumerError):
        raise got
    return got


def check(blob: bytes, entry: str | None = None) -> bytes | None:
    """Like to_spirv, but a listed limit is counted in LIMIT_HITS and gives None instead of failing."""
    try:
        return to_spirv(blob, entry)
    except ConsumerLimit as exc:
        LIMIT_HITS[exc.key] = LIMIT_HITS.get(exc.key, 0) + 1
        return None


def summary_lines() -> list[str]:
    """For the pytest terminal summary (tests/conftest.py)."""
    lines = [f"converted by dxil-spirv and passed spirv-val --scalar-block-layout: {STATS.converted} containers "
             f"in {STATS.seconds:.1f} s",
             f"executed on lavapipe through dxil-spirv and compared: {STATS.executed} runs in "
             f"{STATS.run_seconds:.1f} s"]
    lines += [f"known dxil-spirv limit hit ({n}): {key}: {LIMITS[key]}" for key, n in sorted(LIMIT_HITS.items())]
    return lines


def rdat_subobjects(blob: bytes) -> list[dict]:
    """The state-object subobjects dxil-spirv's own RDAT parser reads from a library container
    (dxil_spv_parsed_blob_get_rdat_subobject, through ctypes on the library the converter links):
    an independent reader of our RDAT part."""
    import ctypes

    lib = ctypes.CDLL(str(Path(converter()).resolve().parent.parent / "lib" / "libdxil-spirv-c-shared.so"))

    class Subobject(ctypes.Structure):
        _fields_ = [("kind", ctypes.c_int), ("subobject_name", ctypes.c_char_p), ("hit_group_type", ctypes.c_int),
                    ("exports", ctypes.POINTER(ctypes.c_char_p)), ("num_exports", ctypes.c_uint),
                    ("args", ctypes.c_uint * 2), ("payload", ctypes.c_void_p), ("payload_size", ctypes.c_size_t)]

    parsed = ctypes.c_void_p()
    lib.dxil_spv_begin_thread_allocator_context()
    try:
        if lib.dxil_spv_parse_dxil_blob(blob, ctypes.c_size_t(len(blob)), ctypes.byref(parsed)) != 0:
            raise ConsumerError("dxil-spirv could not parse the container")
        out = []
        try:
            lib.dxil_spv_parsed_blob_get_num_rdat_subobjects.restype = ctypes.c_uint
            for i in range(lib.dxil_spv_parsed_blob_get_num_rdat_subobjects(parsed)):
                s = Subobject()
                lib.dxil_spv_parsed_blob_get_rdat_subobject(parsed, ctypes.c_uint(i), ctypes.byref(s))
                out.append({"kind": s.kind, "name": s.subobject_name.decode(), "hit_group_type": s.hit_group_type,
                            "exports": [s.exports[k].decode() for k in range(s.num_exports)],
                            "args": tuple(s.args),
                            "payload": ctypes.string_at(s.payload, s.payload_size) if s.payload_size else b""})
        finally:
            lib.dxil_spv_parsed_blob_free(parsed)
    finally:
        lib.dxil_spv_end_thread_allocator_context()
    return out
