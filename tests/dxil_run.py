"""Run the DXIL twin of a resource-corpus shader and compare it with the SPIR-V run on lavapipe, two ways:

1. on the lli interpreter (harness/dxil_exec.py): it reads our DXIL's dx.op calls itself, so it checks our
   DXIL semantics with no other consumer in between, and it also runs what dxil-spirv cannot (LIMITS in
   harness/dxil_consumer.py);
2. through dxil-spirv on lavapipe (`run_on_lavapipe`, graphics in `draw_twin`): vkd3d-proton's DXIL front
   end turns the container into SPIR-V, which runs with the same data, as a D3D12-on-Vulkan user runs it.

res_util.run_cs calls `run_twin` after the lavapipe run of the SPIR-V build.  The harness descriptors of
the test are re-bound by the DXIL manifest's HLSL view (class, register + array index, space); cbuffer
and push-constant bytes are moved from the Vulkan layout to D3D's legacy cbuffer layout member by member
(both offsets come from the manifests).  Each writable resource must end with the same bytes as on
lavapipe.  What cannot be run is listed in NOT_EXECUTABLE, the one place for such exclusions; a shader
hitting one is counted in NOT_RUN (printed in the pytest summary), not silently passed.  A dx.op the
interpreter lacks fails the test as a DxilBug naming it: implement it in tests/harness (dxil_exec.py /
dxop_runtime.c) or add a key here.
"""

from __future__ import annotations

import dataclasses
import math
import re
import struct
import time

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
    "quads": "SM 6.6 derivatives in a compute shader: they read the other threads of a 2x2 quad, and the "
             "interpreter runs one thread at a time",
    "wave": "wave and quad operations: they read the other lanes of the wave, and the interpreter runs one thread at "
            "a time",
    "multisampled": "multisampled textures (Texture2DMS*: sample counts and positions, per-sample texels) that the "
                    "interpreter runtime does not model: the twin runs through dxil-spirv on lavapipe only",
    "dxop-overloads": "i16 / f16 / i64 overloads of dx.ops (dx.op.binary.i16, .unary.f16, .tertiary.i64, ...) that "
                      "the interpreter runtime (harness/dxop_runtime.c) lacks: the twin runs through dxil-spirv on "
                      "lavapipe only",
}
NOT_RUN: dict[str, int] = {}
# keys that also stop the run through dxil-spirv (data the test cannot lay out for D3D); 'thread-order' does
# not: lavapipe runs the converted shader's group in lockstep like the SPIR-V build
_NOT_ON_LAVAPIPE = frozenset({"structured-layout", "cbuffer-member"})
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
    run_on_lavapipe(res, twin, specs, lavapipe, groups, push, tol, skip, d3d or {}, check)
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
    _compare("the interpreter", names, got, lavapipe, tol, check)


def _compare(where: str, names: list, got: list[bytes], lavapipe: dict[str, bytes], tol: float, check) -> None:
    """Defer a DxilBug if a writable resource of the DXIL run ends unlike the SPIR-V run (or fails `check`)."""
    if check is not None:
        try:
            check({name: data for (name, writable), data in zip(names, got) if writable})
        except AssertionError as exc:
            defer(DxilBug(f"DXIL run on {where} fails the test's check: {exc}"))
        return
    for (name, writable), data in zip(names, got):
        if writable and name in lavapipe:
            why = _differs(data, lavapipe[name], tol)
            if why:
                defer(DxilBug(f"DXIL run on {where} differs from the SPIR-V run in {name}: {why}"))
                return


# ---------------------------------------------------------------- through dxil-spirv on lavapipe

# spirv-cross descriptor type -> the harness descriptor kind
_KIND_OF = {"storage_buffer": "storage", "uniform_buffer": "uniform"}
# harness descriptor class -> the kinds it can take
_KINDS_OF_CLASS = {"Buf": {"storage", "uniform"}, "TexelBuffer": {"uniform_texel_buffer", "storage_texel_buffer"},
                   "Image": {"sampled_image", "storage_image"}, "Sampler": {"sampler"}}


def consumer_spirv(twin: CompileResult) -> tuple[bytes, dict] | None:
    """(dxil-spirv's SPIR-V of the twin, {(set, binding): spirv-cross facts}); None for a listed dxil-spirv
    limit (check_dxil already converted and validated it; this reads the cached result)."""
    from harness import dxil_tools, tools
    spirv = dxil_tools.check_dxil(twin.binary).spirv
    if spirv is None:
        return None
    reflect = tools.spirv_cross_reflect(spirv)
    return spirv, {"cross": descriptor_types(reflect), "entry": reflect["entryPoints"][0]["name"],
                   "reflect": reflect}


def descriptor_types(reflect: dict) -> dict[tuple[int, int], dict]:
    """(set, binding) -> {descriptor_type} from spirv-cross.  dxil-spirv declares one SSBO variable per
    element width it accesses a raw buffer with (uint, uint2, uint4 aliases at one binding), so a binding
    may appear several times, always with the same type."""
    from res_util import _CROSS_CATEGORIES, _cross_descriptor_type
    out: dict[tuple[int, int], dict] = {}
    for cat in _CROSS_CATEGORIES:
        for e in reflect.get(cat, []):
            key, dtype = (e["set"], e["binding"]), _cross_descriptor_type(cat, e)
            if out.setdefault(key, {"descriptor_type": dtype})["descriptor_type"] != dtype:
                raise DxilBug(f"dxil-spirv puts a {out[key]['descriptor_type']} and a {dtype} at {key}")
    return out


def vk_descriptors(vk_manifests: list[dict], dx_manifests: list[dict], specs: dict, push: bytes,
                   d3d: dict[str, bytes], cross: dict) -> tuple[list, list]:
    """Harness descriptors at dxil-spirv's (set = space, binding = shift[class] + register) for the test's
    specs, and [(output name, writable, initial bytes or None)]: a resource the converted SPIR-V does not use
    is left out of the descriptors and ends as the test gave it (its initial bytes); the others' results come
    back in order.  UAV counters (set 7, an R32_UINT storage texel buffer each), which the test does not see,
    start at 0."""
    from harness.dxil_consumer import COUNTER_SET, SHIFTS
    from harness.vulkan_runner import Buf, TexelBuffer
    descs, names = [], []

    def place(name: str, h: dict, i: int, e, data: bytes, writable: bool) -> None:
        key = (h["space"], SHIFTS[h["class"]] + h["register"])
        info = cross.get(key)
        if info is None:
            names.append((name, writable, e.data))
            return
        kind = _KIND_OF.get(info["descriptor_type"], info["descriptor_type"])
        if kind not in _KINDS_OF_CLASS[type(e).__name__]:
            raise DxilBug(f"{name}: dxil-spirv made a {info['descriptor_type']} at set {key[0]} binding {key[1]}, "
                          f"the test binds a {type(e).__name__} ({e.kind})")
        descs.append(dataclasses.replace(e, set=key[0], binding=key[1], index=i, data=data, kind=kind))
        names.append((name, writable, None))

    for name, spec in specs.items():
        entry = next((r for m in dx_manifests for r in m["resources"] if r["name"] == name), None)
        if entry is None:
            raise DxilBug(f"{name!r} is in the SPIR-V manifest but not in the DXIL twin's")
        vk_entry = next(r for m in vk_manifests for r in m["resources"] if r["name"] == name)
        elems = spec if isinstance(spec, list) else [spec]
        for i, e in enumerate(elems):
            data = d3d[name] if name in d3d else _data(entry, vk_entry, e)
            writable = e.kind in _WRITABLE and entry.get("access") != "read-only"
            place(f"{name}[{i}]" if isinstance(spec, list) else name, entry["hlsl"], i, e, data, writable)
    for pc in (p for m in vk_manifests for p in m.get("push_constants", [])):
        entry = next(r for m in dx_manifests for r in m["resources"] if r["name"] == pc["name"])
        data = d3d[pc["name"]] if pc["name"] in d3d else _cbuffer_bytes(pc["block"], entry["block"], push)
        place(pc["name"], entry["hlsl"], 0, Buf(0, 0, data, "uniform"), data, False)
    bound = {(d.set, d.binding) for d in descs}
    for (set_, binding), info in sorted(cross.items()):
        if (set_, binding) in bound:
            continue
        if set_ != COUNTER_SET or info["descriptor_type"] != "storage_texel_buffer":
            raise DxilBug(f"dxil-spirv's SPIR-V uses set {set_} binding {binding} ({info['descriptor_type']}), "
                          f"which no resource of the DXIL manifest maps to")
        descs.append(TexelBuffer(set_, binding, bytes(4), "r32ui", "storage_texel_buffer"))   # an R32_UINT counter
        names.append((f"counter@{binding}", False, None))
    return descs, names


def run_on_lavapipe(res: CompileResult, twin: CompileResult, specs: dict, lavapipe: dict[str, bytes], groups,
                    push: bytes, tol: float, skip: str | None, d3d: dict[str, bytes], check=None) -> None:
    """Run the twin through dxil-spirv on lavapipe with the test's data; defer a DxilBug if a writable
    resource ends unlike the SPIR-V run's."""
    from harness import dxil_consumer
    from harness.vulkan_runner import VulkanError, run_compute
    t0 = time.perf_counter()
    got = consumer_spirv(twin)
    if got is None:
        return
    spirv, facts = got
    try:
        if skip in _NOT_ON_LAVAPIPE:
            raise NotExecutable(skip)
        descs, names = vk_descriptors([res.manifest], [twin.manifest], specs, push, d3d, facts["cross"])
    except NotExecutable as exc:
        NOT_RUN[f"{exc.key} (dxil-spirv)"] = NOT_RUN.get(f"{exc.key} (dxil-spirv)", 0) + 1
        return
    except DxilBug as exc:
        defer(exc)
        return
    try:
        out = run_compute(spirv, facts["entry"], descs, groups=tuple(groups))
    except VulkanError as exc:
        defer(DxilBug(f"dxil-spirv's SPIR-V of the DXIL twin did not run on lavapipe: {exc}"))
        return
    dxil_consumer.STATS.ran(t0)
    results = iter(out)
    final = [initial if initial is not None else next(results) for _n, _w, initial in names]
    _compare("lavapipe through dxil-spirv", [(n, w) for n, w, _i in names], final, lavapipe, tol, check)


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
    return _data(dx_entry, vk_entry, e), dxil_exec.View()


def _data(dx_entry: dict, vk_entry: dict, e) -> bytes:
    """The test's bytes for one descriptor in the D3D layout (cbuffers moved member by member)."""
    if e.kind == "uniform" or (e.kind == "storage" and dx_entry.get("block") is not None):   # cbuffer, tbuffer
        return _cbuffer_bytes(vk_entry["block"], dx_entry["block"], e.data)
    if e.kind == "storage" and dx_entry["hlsl"].get("stride") != vk_entry["vulkan"].get("stride"):
        raise NotExecutable("structured-layout")
    return e.data


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


def _io_name(semantic: str, index: int) -> str:
    """dxil-spirv names a stage input after its signature element: SEMANTIC, or SEMANTIC_<index> past 0."""
    return (semantic if index == 0 else f"{semantic}_{index}").lower()


def _vertex_buffers(vs: CompileResult, reflect: dict, vertex_buffers: list) -> list:
    """The test's vertex buffers with each attribute moved from the SPIR-V build's input Location to the one
    dxil-spirv gave the same signature element (matched by semantic and index)."""
    from harness.vulkan_runner import VertexBuffer
    by_loc = {e["location"]: e for e in vs.manifest["entry"]["inputs"] if "location" in e}
    theirs = {e["name"].lower(): e["location"] for e in reflect.get("inputs", [])}
    out = []
    for vb in vertex_buffers or ():
        attrs = []
        for loc, fmt, off in vb.attributes:
            e = by_loc.get(loc)
            name = _io_name(e["semantic"], e["index"]) if e else None
            if name not in theirs:
                raise DxilBug(f"vertex input at Location {loc} ({name}) has no input in dxil-spirv's vertex "
                              f"shader ({sorted(theirs)})")
            attrs.append((theirs[name], fmt, off))
        out.append(VertexBuffer(vb.data, vb.stride, attrs))
    return out


def draw_twin(vs: CompileResult, ps: CompileResult, vs_entry: str, ps_entry: str, specs: dict, width: int,
              height: int, vertex_buffers, vertex_count: int, spirv_targets: list[bytes],
              spirv_results: dict[str, bytes], gs: CompileResult | None = None, **kw) -> None:
    """Draw again from the DXIL twins of vs, gs (when given) and ps through dxil-spirv on lavapipe; defer a
    DxilBug unless every target's pixels and every writable resource end equal to the SPIR-V draw's."""
    from harness import dxil_consumer
    from harness.vulkan_runner import VulkanError, run_graphics
    from res_util import twin_of
    t0 = time.perf_counter()
    stages = (vs, ps) if gs is None else (vs, ps, gs)
    twins = tuple(twin_of(r) for r in stages)
    if None in twins:
        return
    converted = [consumer_spirv(t) for t in twins]
    if None in converted:
        return
    (vs_spv, vs_facts), (ps_spv, ps_facts) = converted[:2]
    if gs is not None:
        kw["gs"] = (converted[2][0], converted[2][1]["entry"])
    cross = dict(vs_facts["cross"])
    try:
        for _spv, facts in converted[1:]:
            for key, info in facts["cross"].items():
                if cross.setdefault(key, info) != info:
                    raise DxilBug(f"dxil-spirv's shader stages disagree at {key}: {cross[key]} vs {info}")
        descs, names = vk_descriptors([r.manifest for r in stages], [t.manifest for t in twins], specs, b"", {},
                                      cross)
        vbs = _vertex_buffers(vs, vs_facts["reflect"], vertex_buffers)
        targets, out = run_graphics(vs_spv, vs_facts["entry"], ps_spv, ps_facts["entry"], width, height, descs,
                                    vbs, vertex_count, full=True, **kw)
    except NotExecutable as exc:
        NOT_RUN[f"{exc.key} (dxil-spirv)"] = NOT_RUN.get(f"{exc.key} (dxil-spirv)", 0) + 1
        return
    except DxilBug as exc:
        defer(exc)
        return
    except VulkanError as exc:
        defer(DxilBug(f"dxil-spirv's SPIR-V of the DXIL twins did not draw on lavapipe: {exc}"))
        return
    dxil_consumer.STATS.ran(t0)
    for i, (got, want) in enumerate(zip(targets, spirv_targets)):
        if got != want:
            px = next(j for j in range(0, len(got), 4) if got[j:j + 4] != want[j:j + 4]) // 4
            defer(DxilBug(f"DXIL draw through dxil-spirv differs from the SPIR-V draw in target {i}, first at "
                          f"pixel ({px % width}, {px // width}): DXIL {tuple(got[px * 4:px * 4 + 4])}, SPIR-V "
                          f"{tuple(want[px * 4:px * 4 + 4])}"))
            return
    results = iter(out)
    final = [initial if initial is not None else next(results) for _n, _w, initial in names]
    _compare("lavapipe through dxil-spirv", [(n, w) for n, w, _i in names], final, spirv_results, 0.0, None)
