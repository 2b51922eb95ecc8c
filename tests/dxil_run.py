"""Run the DXIL twin of a resource-corpus compute shader on the lli interpreter and compare with lavapipe.

res_util.run_cs calls `run_twin` after the lavapipe run.  The harness descriptors of the test are
re-bound by the DXIL manifest's HLSL view (class, register + array index, space); cbuffer and
push-constant bytes are moved from the Vulkan layout to D3D's legacy cbuffer layout member by member
(both offsets come from the manifests).  Each writable resource must end with the same bytes as on
lavapipe.  What the interpreter cannot run is listed in NOT_EXECUTABLE, the one place for such
exclusions; a shader hitting one is counted in NOT_RUN (printed in the pytest summary), not silently
passed.  A dx.op the runtime lacks fails the test as a DxilBug naming it: implement it in
tests/harness (dxil_exec.py / dxop_runtime.c) or add a key here.
"""

from __future__ import annotations

import math
import re
import struct

from res_util import DxilBug, defer

from shaderbuild.compiler import CompileResult

# key -> why the DXIL twin of such a shader is not executed (res_util.run_cs compares nothing then)
NOT_EXECUTABLE = {
    "structured-layout": "structured buffer whose D3D stride differs from its Vulkan stride: the test data is "
                         "laid out for Vulkan and its element layout is not in the manifest (test_res_buffers "
                         "runs those cases on the interpreter itself, with D3D expectations)",
    "cbuffer-member": "cbuffer member that is a struct or a matrix: its inner Vulkan/D3D layouts are not in the "
                      "manifest, so the test bytes cannot be moved to the D3D layout",
    "thread-order": "threads read what other threads of the dispatch write, without a barrier: the result "
                    "depends on the thread schedule (lavapipe runs a group in lockstep, the interpreter serially)",
}
NOT_RUN: dict[str, int] = {}
RAN = [0]  # DXIL twins executed and compared (tests/conftest.py prints these counts)
_WRITABLE = {"storage", "storage_texel_buffer", "storage_image"}


class NotExecutable(Exception):
    """This twin cannot run for a listed reason (key of NOT_EXECUTABLE)."""

    def __init__(self, key: str) -> None:
        assert key in NOT_EXECUTABLE, f"unlisted DXIL-execution exclusion {key!r}"
        super().__init__(key)
        self.key = key


def run_twin(res: CompileResult, twin: CompileResult, specs: dict, lavapipe: dict[str, bytes], groups, push: bytes,
             entry: str, tol: float, skip: str | None = None, d3d: dict[str, bytes] | None = None,
             check=None) -> None:
    """Run `twin` with the test's data; defer a DxilBug if a writable resource ends unlike `lavapipe`.
    check: the test's own judgement of {name: final bytes}, for results that depend on thread order
    (atomics): it replaces the byte comparison and raises AssertionError on a wrong answer."""
    from harness import dxil_exec
    try:
        if skip is not None:
            raise NotExecutable(skip)
        binds, names = _bindings(res.manifest, twin.manifest, specs, push, d3d or {})
    except NotExecutable as exc:
        NOT_RUN[exc.key] = NOT_RUN.get(exc.key, 0) + 1
        return
    try:
        got = dxil_exec.run_dxil_compute(twin.binary, entry, binds, groups=tuple(groups), allow_unused=True)
    except dxil_exec.DxilExecError as exc:
        defer(DxilBug(f"DXIL twin did not run on the interpreter: {exc}"))
        return
    RAN[0] += 1
    if check is not None:
        try:
            check({name: data for (name, writable), data in zip(names, got) if writable})
        except AssertionError as exc:
            defer(DxilBug(f"DXIL run fails the test's check: {exc}"))
        return
    for (name, writable), data in zip(names, got):
        if writable and name in lavapipe:
            why = _differs(data, lavapipe[name], tol)
            if why:
                defer(DxilBug(f"DXIL run differs from lavapipe in {name}: {why}"))
                return


def _differs(got: bytes, want: bytes, tol: float) -> str | None:
    if len(got) != len(want):
        return f"{len(got)} bytes vs {len(want)}"
    for i in range(0, len(got) - len(got) % 4, 4):
        g, w = got[i:i + 4], want[i:i + 4]
        if g == w:
            continue
        gf, wf = struct.unpack("<f", g)[0], struct.unpack("<f", w)[0]
        if tol and math.isfinite(gf) and math.isfinite(wf) and math.isclose(gf, wf, rel_tol=tol, abs_tol=tol):
            continue
        return (f"word {i // 4}: DXIL {g.hex()} (u32 {struct.unpack('<I', g)[0]}, f32 {gf!r}), "
                f"lavapipe {w.hex()} (u32 {struct.unpack('<I', w)[0]}, f32 {wf!r})")
    return None if got[len(got) - len(got) % 4:] == want[len(want) - len(want) % 4:] else "trailing bytes differ"


def _resource(manifest: dict, name: str) -> dict:
    for r in manifest["resources"]:
        if r["name"] == name:
            return r
    raise DxilBug(f"{name!r} is in the SPIR-V manifest but not in the DXIL twin's "
                  f"({[r['name'] for r in manifest['resources']]})")


def _bindings(vk_manifest: dict, dx_manifest: dict, specs: dict, push: bytes, d3d: dict[str, bytes]
              ) -> tuple[list[tuple], list]:
    """(dxil_exec bindings, [(output name, writable)] in the same order).  d3d: bytes the test laid out in
    the D3D packing itself, by name, used as they are."""
    from harness import dxil_exec
    binds, names = [], []
    for name, spec in specs.items():
        entry = _resource(dx_manifest, name)
        h = entry["hlsl"]
        elems = spec if isinstance(spec, list) else [spec]
        for i, e in enumerate(elems):
            if name in d3d:
                data, view = d3d[name], dxil_exec.View()
            else:
                data, view = _data_and_view(dxil_exec, entry, _vk_entry(vk_manifest, name), e)
            binds.append((h["register"] + i, h["space"], h["class"], data, view))
            writable = e.kind in _WRITABLE and entry.get("access") != "read-only"   # (a tbuffer is 'storage')
            names.append((f"{name}[{i}]" if isinstance(spec, list) else name, writable))
    for pc in vk_manifest.get("push_constants", []):
        entry = _resource(dx_manifest, pc["name"])
        h = entry["hlsl"]
        data = d3d[pc["name"]] if pc["name"] in d3d else _cbuffer_bytes(pc["block"], entry["block"], push)
        binds.append((h["register"], h["space"], h["class"], data, dxil_exec.View()))
        names.append((pc["name"], False))
    return binds, names


def _vk_entry(manifest: dict, name: str) -> dict:
    return next(r for r in manifest["resources"] if r["name"] == name)


def _data_and_view(dxil_exec, dx_entry: dict, vk_entry: dict, e) -> tuple[bytes, object]:
    kind = e.kind
    if kind == "sampler":
        return b"\0" * 4, dxil_exec.View(filter=e.filter, address=e.address, mipmap=e.mipmap, border=e.border,
                                         compare=e.compare, max_lod=e.max_lod)
    if kind in ("sampled_image", "storage_image"):
        return e.data, dxil_exec.View(fmt=e.format, width=e.width, height=e.height, depth=e.depth,
                                      layers=e.layers, mips=e.mips)
    if kind in ("uniform_texel_buffer", "storage_texel_buffer"):
        return e.data, dxil_exec.View(fmt=e.format)
    if kind == "uniform" or dx_entry.get("block") is not None:     # cbuffer, push constants, tbuffer
        return _cbuffer_bytes(vk_entry["block"], dx_entry["block"], e.data), dxil_exec.View()
    if dx_entry["hlsl"].get("stride") != vk_entry["vulkan"].get("stride"):
        raise NotExecutable("structured-layout")
    return e.data, dxil_exec.View()


_VECTOR = re.compile(r"^(?:bool|int|uint|dword|float|half|min16float|min16int|min16uint|int16_t|uint16_t|"
                     r"float16_t|float32_t|int32_t|uint32_t|double|int64_t|uint64_t)([1-4])?$")
_ARRAY = re.compile(r"^(.+)\[(\d+)\]$")


def _copies(mtype: str, v: dict, h: dict) -> list[tuple[int, int, int]]:
    """(Vulkan offset, D3D offset, bytes) moves for one block member."""
    if _VECTOR.match(mtype):
        return [(v["offset"], h["offset"], h["size"])]
    m = _ARRAY.match(mtype)
    if m and _VECTOR.match(m.group(1)):
        n = int(m.group(2))
        elem = h["size"] - 16 * (n - 1)  # D3D: each element starts a 16-byte row
        if n and 0 < elem <= 16:
            # Vulkan: 16-byte rows (std140 pads the last element, the dx layout does not) or tightly packed
            vstride = 16 if v["size"] in (16 * n, 16 * (n - 1) + elem) else v["size"] // n
            return [(v["offset"] + i * vstride, h["offset"] + i * 16, elem) for i in range(n)]
    raise NotExecutable("cbuffer-member")


def _cbuffer_bytes(vk_block: dict, dx_block: dict, data: bytes) -> bytes:
    """Test bytes in the Vulkan block layout moved to the D3D cbuffer layout (rows of 16 bytes)."""
    hmembers = {m["name"]: m for m in dx_block["members"]}
    out = bytearray(max(16, -(-dx_block["hlsl_size"] // 16) * 16))
    if any(m["hlsl"]["offset"] + m["hlsl"]["size"] > len(out) for m in dx_block["members"]):
        raise DxilBug(f"D3D cbuffer size {dx_block['hlsl_size']} does not cover its members {dx_block['members']}")
    for m in vk_block["members"]:
        for src, dst, n in _copies(m["type"], m["vulkan"], hmembers[m["name"]]["hlsl"]):
            out[dst:dst + n] = data[src:src + n].ljust(n, b"\0")
    return bytes(out)
