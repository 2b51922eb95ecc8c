"""Shared helper of the executed resource corpus (tests/test_res_*.py).

Every shader of the corpus goes through `build()`: compile with shaderbuild, and for SPIR-V
run spirv-val and `check_reflection` (the manifest's Vulkan view must equal what spirv-cross
--reflect reports for the binary).  `run_cs` / `draw` then bind descriptors *by manifest
name* (set/binding are never hard-coded in a test, so a wrong binding shows up as wrong data
or a reflection mismatch), execute on lavapipe and return the final contents.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import struct
from collections.abc import Iterable

import pytest
from harness import tools
from harness.vulkan_runner import register_unoptimised

from shaderbuild.compiler import CompileResult, compile_file
from shaderbuild.options import BindingShift, CompileOptions

SENTINEL = 0xCDCDCDCD

# ---------------------------------------------------------------- packing


def pack(code: str, values: Iterable) -> bytes:
    """Little-endian struct pack of a flat sequence: pack('f', [1.0, 2.0])."""
    vals = list(values)
    return struct.pack(f"<{len(vals)}{code}", *vals)


def unpack(code: str, data: bytes) -> list:
    n = len(data) // struct.calcsize(code)
    return list(struct.unpack(f"<{n}{code}", data[: n * struct.calcsize(code)]))


def sentinel(words: int) -> bytes:
    return struct.pack("<I", SENTINEL) * words


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def approx(got: Iterable[float], want: Iterable[float], tol: float = 1e-5) -> bool:
    g, w = list(got), list(want)
    return len(g) == len(w) and all(math.isclose(a, b, rel_tol=tol, abs_tol=tol) for a, b in zip(g, w))


# ---------------------------------------------------------------- compile


def _shifts(shifts: Iterable[tuple]) -> list[BindingShift]:
    return [BindingShift(c, n, s) for c, n, s in shifts]


@functools.lru_cache(maxsize=1024)
def _compile(src: str, entry: str, profile: str, target: str, shifts: tuple, env: str,
             defines: tuple, extra: tuple) -> CompileResult:
    opts = CompileOptions(entry=entry, profile=profile, target=target, binding_shifts=_shifts(shifts),
                          vk_target_env=env, defines=dict(defines),
                          **{k: list(v) if isinstance(v, tuple) and k != "vk_bind_globals" else v for k, v in extra})
    res = compile_file("res_test.hlsl", opts, text=src)
    if res.ok and target == "spirv" and opts.opt_level > 0:
        register_unoptimised(res.binary, functools.partial(_unoptimised, src, opts))
    return res


def _unoptimised(src: str, opts: CompileOptions) -> bytes:
    """The -O0 build that every execution of the optimised one is repeated with (harness/vulkan_runner.py)."""
    res = compile_file("res_test.hlsl", opts.replace(opt_level=0), text=src)
    assert res.ok and res.binary is not None, "the -O0 build failed where the optimised build compiled"
    if opts.vk_layout in ("dx", "scalar"):
        spirv_val_flags(res.binary, opts.vk_target_env, "--scalar-block-layout")
    else:
        tools.spirv_val(res.binary, _ENV_FOR_VAL.get(opts.vk_target_env, "vulkan1.1"))
    return res.binary


def compile_hlsl(src: str, entry: str = "main", profile: str = "cs_6_0", target: str = "spirv",
                 shifts: Iterable[tuple] = (), env: str = "vulkan1.1", defines: dict | None = None,
                 **options) -> CompileResult:
    """Compile (cached); never raises for bad input.  shifts: (class letter, shift, space | None);
    options: further CompileOptions fields (lists as tuples), e.g. vk_invert_y=True."""
    extra = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in options.items()))
    return _compile(src, entry, profile, target, tuple(shifts), env, tuple(sorted((defines or {}).items())), extra)


def diagnostics_text(res: CompileResult) -> str:
    return "\n".join(d.render(res.sources) for d in res.diagnostics)


def errors(res: CompileResult) -> list[str]:
    """'line:col: message' of every error (location-less errors as '?:?: message')."""
    return [f"{d.loc.line}:{d.loc.col}: {d.message}" if d.loc else f"?:?: {d.message}"
            for d in res.diagnostics if d.severity == "error"]


_ENV_FOR_VAL = {"vulkan1.0": "vulkan1.0", "vulkan1.1": "vulkan1.1", "vulkan1.2": "vulkan1.2", "vulkan1.3": "vulkan1.3"}


def build(src: str, entry: str = "main", profile: str = "cs_6_0", target: str = "spirv",
          shifts: Iterable[tuple] = (), env: str = "vulkan1.1", defines: dict | None = None,
          **options) -> CompileResult:
    """Compile, require success; SPIR-V is validated and its manifest checked against spirv-cross."""
    res = compile_hlsl(src, entry, profile, target, shifts, env, defines, **options)
    if not res.ok:
        raise AssertionError(f"{target} compile failed:\n{diagnostics_text(res)}\n--- source ---\n{src}")
    if target == "spirv":
        if options.get("vk_layout") in ("dx", "scalar"):
            spirv_val_flags(res.binary, env, "--scalar-block-layout")
        else:
            tools.spirv_val(res.binary, _ENV_FOR_VAL.get(env, "vulkan1.1"))
        check_reflection(res.manifest, res.binary)
        twin = dxil_twin(src, entry, profile, defines, options)
        if twin is not None:
            _DXIL_TWIN[id(res)] = (res, twin)
    return res


# ---------------------------------------------------------------- the DXIL twin of every SPIR-V build

class DxilBug(AssertionError):
    """The DXIL twin of a SPIR-V build failed: compile, LLVM read-back, or execution differing from
    lavapipe.  Raised after the test body (tests/conftest.py), so the SPIR-V checks still run; a
    known bug is marked with dxil_xfail(), which expects exactly this exception type."""


_deferred: list[DxilBug] = []


def defer(exc: DxilBug) -> None:
    _deferred.append(exc)


def take_deferred() -> list[DxilBug]:
    """The DXIL failures recorded since the last call (conftest raises the first after each test)."""
    out = list(_deferred)
    _deferred.clear()
    return out


def dxil_xfail(reason: str):
    """Strict xfail for a DXIL bug found by the twin checks; any other failure still fails the test."""
    return pytest.mark.xfail(strict=True, raises=DxilBug, reason=f"DXIL: {reason}")


# Options that only shape the Vulkan view (DXC's -fvk-* flags): the DXIL twin is compiled without
# them, as DXC ignores them when it emits DXIL.
_VULKAN_ONLY = frozenset({"vk_invert_y", "vk_use_dx_position_w", "vk_support_nonzero_base_vertex",
                          "vk_support_nonzero_base_instance", "vk_auto_shift_bindings", "vk_bind_registers",
                          "vk_bind_globals", "vk_layout"})
# Diagnostics of the DXIL compile that mean "this shader uses a SPIR-V-only feature": no twin.
# vk::ext_builtin_input/output: DXC parses vk:: attributes only for -spirv (for DXIL it warns and
# ignores them), so the variable has no DXIL meaning; shaderbuild rejects it for DXIL instead.
SPIRV_ONLY = {"is only supported when targeting SPIR-V": "vk::ext_builtin_* (Vulkan-only attribute)"}
# twin exclusions seen in this process: reason -> count (printed in the pytest summary, tests/conftest.py)
EXCLUDED: dict[str, int] = {}
_DXIL_TWIN: dict[int, tuple[CompileResult, CompileResult]] = {}


def dxil_twin(src: str, entry: str = "main", profile: str = "cs_6_0", defines: dict | None = None,
              options: dict | None = None) -> CompileResult | None:
    """The DXIL build of a shader the corpus builds for SPIR-V (issue 4: every SPIR-V shader of the
    tests is also compiled to DXIL and read back by obj2yaml/bcanalyzer/llvm-dis).  Cached per
    source/entry/profile/defines/DXIL-relevant options, so repeated builds check it once.  A failure
    is deferred as a DxilBug; None for a SPIR-V-only shader (SPIRV_ONLY) or a failed twin."""
    dx_opts = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in (options or {}).items()
                           if k not in _VULKAN_ONLY))
    res, failure = _checked_dxil(src, entry, profile, tuple(sorted((defines or {}).items())), dx_opts)
    if failure is not None:
        if failure in SPIRV_ONLY.values():
            EXCLUDED[failure] = EXCLUDED.get(failure, 0) + 1
        else:
            defer(DxilBug(failure))
    return res


@functools.lru_cache(maxsize=1024)
def _checked_dxil(src: str, entry: str, profile: str, defines: tuple, dx_opts: tuple
                  ) -> tuple[CompileResult | None, str | None]:
    """(result, None) or (None, why it failed / SPIRV_ONLY reason); failures are cached too."""
    from harness import dxil_tools
    res = compile_hlsl(src, entry, profile, "dxil", defines=dict(defines), **dict(dx_opts))
    if not res.ok:
        errs = errors(res)
        for needle, reason in SPIRV_ONLY.items():
            if errs and all(needle in e for e in errs):
                return None, reason
        return None, f"DXIL twin failed to compile:\n{diagnostics_text(res)}\n--- source ---\n{src}"
    try:
        dxil_tools.check_dxil(res.binary)
    except AssertionError as exc:
        return None, f"DXIL twin rejected by the LLVM tools: {exc}\n--- source ---\n{src}"
    return res, None


def twin_of(res: CompileResult) -> CompileResult | None:
    """The checked DXIL build of a SPIR-V result that build() returned (None for other results)."""
    pair = _DXIL_TWIN.get(id(res))
    return pair[1] if pair is not None and pair[0] is res else None


def spirv_val_flags(spirv: bytes, env: str, *flags: str) -> None:
    """spirv-val with extra validator options (e.g. --scalar-block-layout for dx/scalar layouts)."""
    with tools.TempInput(spirv, ".spv") as path:
        proc = tools.run_tool(["spirv-val", "--target-env", env, *flags, str(path)], check=False)
    if proc.returncode != 0:
        raise AssertionError(f"spirv-val {' '.join(flags)} rejected the module:\n"
                             f"{(proc.stderr + proc.stdout).decode(errors='replace')}\n{tools.spirv_dis(spirv)}")


def build_dxil(src: str, entry: str = "main", profile: str = "cs_6_0", **kw):
    """(CompileResult, DxilCheck): the DXIL build read back by obj2yaml/bcanalyzer/llvm-dis."""
    from harness import dxil_tools
    res = build(src, entry, profile, "dxil", **kw)
    return res, dxil_tools.check_dxil(res.binary)


def spirv_dis(res: CompileResult) -> str:
    return tools.spirv_dis(res.binary)


# ---------------------------------------------------------------- reflection


def _cross_descriptor_type(category: str, entry: dict) -> str:
    t = entry.get("type", "")
    if category == "separate_images":
        return "uniform_texel_buffer" if t.endswith("samplerBuffer") else "sampled_image"
    if category == "images":
        return "storage_texel_buffer" if t.endswith("imageBuffer") else "storage_image"
    return _CROSS_CATEGORIES[category]


_CROSS_CATEGORIES = {"ubos": "uniform_buffer", "ssbos": "storage_buffer", "separate_samplers": "sampler",
                     "separate_images": None, "images": None, "textures": "combined_image_sampler",
                     "acceleration_structures": "acceleration_structure"}


def _count(dims: list[int] | None) -> int | str:
    if not dims:
        return 1
    return "unbounded" if 0 in dims else math.prod(dims)


def _members(types: dict, type_id: str) -> list[tuple[str, int]]:
    return [(m["name"], m["offset"]) for m in types[type_id]["members"]]


def cross_resources(reflect: dict) -> dict[tuple[int, int], dict]:
    """(set, binding) -> {descriptor_type, count, block_size?, stride?, members?} from spirv-cross."""
    types = reflect.get("types", {})
    out: dict[tuple[int, int], dict] = {}
    for cat in _CROSS_CATEGORIES:
        for e in reflect.get(cat, []):
            key = (e["set"], e["binding"])
            assert key not in out, f"spirv-cross reports two resources at set {key[0]} binding {key[1]}"
            d = {"descriptor_type": _cross_descriptor_type(cat, e), "count": _count(e.get("array"))}
            if cat in ("ubos", "ssbos"):
                members = types[e["type"]]["members"]
                d["block_size"] = e.get("block_size")
                d["members"] = _members(types, e["type"])
                last = members[-1] if members else None
                if cat == "ssbos" and last is not None and last.get("array") == [0]:
                    d["stride"] = last.get("array_stride")
            out[key] = d
    return out


def check_reflection(manifest: dict, spirv: bytes) -> dict:
    """The manifest's Vulkan view must equal what spirv-cross --reflect says of the binary: the same
    (set, binding) keys, descriptor types and array sizes; structured-buffer strides; block sizes and
    member offsets of cbuffer-like blocks; push-constant member offsets; entry-point Locations.
    Returns the spirv-cross JSON."""
    reflect = tools.spirv_cross_reflect(spirv)
    cross = cross_resources(reflect)
    ours: dict[tuple[int, int], dict] = {}
    for r in manifest["resources"]:
        v = r.get("vulkan")
        assert v is not None, f"manifest resource {r['name']} has no Vulkan view"
        key = (v["set"], v["binding"])
        assert key not in ours, f"manifest puts {ours.get(key, {}).get('name')} and {r['name']} at {key}"
        ours[key] = {**v, "name": r["name"], "kind": r["kind"], "block": r.get("block")}
        if "counter_binding" in v:      # the hidden counter buffer of a structured buffer: an SSBO of one int
            ckey = (v["set"], v["counter_binding"])
            assert ckey not in ours, f"manifest puts {r['name']}'s counter on an occupied binding {ckey}"
            ours[ckey] = {"set": v["set"], "binding": v["counter_binding"], "descriptor_type": "storage_buffer",
                          "count": v["count"], "name": f"{r['name']}.counter", "kind": "counter",
                          "block": None}
    assert sorted(ours) == sorted(cross), (
        f"(set, binding) keys differ: manifest {sorted(ours)} ({[o['name'] for o in ours.values()]}), "
        f"spirv-cross {sorted(cross)}")
    for key, o in ours.items():
        c = cross[key]
        what = f"{o['name']} at set {key[0]} binding {key[1]}"
        assert o["descriptor_type"] == c["descriptor_type"], f"{what}: manifest {o['descriptor_type']}, spirv-cross {c['descriptor_type']}"
        assert o["count"] == c["count"], f"{what}: manifest count {o['count']}, spirv-cross {c['count']}"
        if "StructuredBuffer" in o["kind"]:
            assert o.get("stride") == c.get("stride"), f"{what}: manifest stride {o.get('stride')}, spirv-cross {c.get('stride')}"
        if o["block"] is not None:
            b = o["block"]
            assert b["vulkan_size"] == c.get("block_size"), f"{what}: block size {b['vulkan_size']} vs spirv-cross {c.get('block_size')}"
            got = [(m["name"], m["vulkan"]["offset"]) for m in b["members"]]
            assert got == c.get("members"), f"{what}: member offsets {got} vs spirv-cross {c.get('members')}"
        elif c["descriptor_type"] == "uniform_buffer":
            raise AssertionError(f"{what}: spirv-cross reports a uniform block, the manifest has no block layout")
    _check_push_constants(manifest, reflect)
    _check_io(manifest, reflect)
    return reflect


def _check_push_constants(manifest: dict, reflect: dict) -> None:
    types = reflect.get("types", {})
    cross = [_members(types, p["type"]) for p in reflect.get("push_constants", [])]
    ours = [[(m["name"], m["vulkan"]["offset"]) for m in p["block"]["members"]]
            for p in manifest.get("push_constants", [])]
    assert ours == cross, f"push constants: manifest {ours}, spirv-cross {cross}"


def _check_io(manifest: dict, reflect: dict) -> None:
    """Location-decorated stage I/O: manifest locations equal spirv-cross's (builtins are not listed there)."""
    for side in ("inputs", "outputs"):
        ours = sorted(e["location"] for e in manifest["entry"][side] if "location" in e)
        cross = sorted(e["location"] for e in reflect.get(side, []))
        assert ours == cross, f"entry {side}: manifest locations {ours}, spirv-cross {cross}"


# ---------------------------------------------------------------- execution


def vk_runner():
    try:
        import vulkan  # noqa: F401
    except ImportError:
        tools.missing_dependency("PyPI package 'vulkan'")
    from harness import vulkan_runner
    return vulkan_runner


def resource(manifest: dict, name: str) -> dict:
    for r in manifest["resources"]:
        if r["name"] == name:
            return r
    raise AssertionError(f"{name!r} is not in the manifest ({[r['name'] for r in manifest['resources']]})")


# manifest descriptor type -> harness descriptor kinds that may bind it
_ACCEPTS = {"storage_buffer": {"storage"}, "uniform_buffer": {"uniform"}, "sampler": {"sampler"},
            "sampled_image": {"sampled_image"}, "storage_image": {"storage_image"},
            "uniform_texel_buffer": {"uniform_texel_buffer"}, "storage_texel_buffer": {"storage_texel_buffer"}}


def bind(manifests: list[dict], specs: dict[str, object]) -> list:
    """Harness descriptors placed at the manifest's (set, binding) of each named resource.  A spec is a
    harness descriptor (its set/binding are replaced) or a list of them for a resource array."""
    out = []
    for name, spec in specs.items():
        entry = next((r for m in manifests for r in m["resources"] if r["name"] == name), None)
        if entry is None:
            raise AssertionError(f"{name!r} is not in the manifest")
        v = entry["vulkan"]
        elems = spec if isinstance(spec, list) else [spec]
        for i, e in enumerate(elems):
            kind = e.kind
            if kind not in _ACCEPTS[v["descriptor_type"]]:
                raise AssertionError(f"{name}: manifest says {v['descriptor_type']}, test binds {kind}")
            out.append(dataclasses.replace(e, set=v["set"], binding=v["binding"], index=i))
    return out


def storage(data: bytes):
    return vk_runner().Buf(-1, -1, data, "storage")


def uniform(data: bytes):
    return vk_runner().Buf(-1, -1, data, "uniform")


def texel(data: bytes, fmt: str = "r32f", writable: bool = True):
    return vk_runner().TexelBuffer(-1, -1, data, fmt, "storage_texel_buffer" if writable else "uniform_texel_buffer")


def image(data: bytes, width: int, height: int = 1, fmt: str = "rgba8", storage_image: bool = False, **kw):
    return vk_runner().Image(-1, -1, data, width, height, fmt, "storage_image" if storage_image else "sampled_image",
                             **kw)


def sampler(**kw):
    return vk_runner().Sampler(-1, -1, **kw)


def run_cs(res: CompileResult, specs: dict[str, object], groups=(1, 1, 1), push: bytes = b"",
           entry: str = "main", dxil_tol: float = 0.0, dxil_skip: str | None = None,
           dxil_data: dict[str, bytes] | None = None, dxil_check=None) -> dict[str, bytes]:
    """Run a built compute shader; final bytes of each named descriptor (arrays: element 0..n as name[i]).
    The DXIL twin of a build() result also runs on the lli interpreter with the same data, bound by its
    manifest's HLSL view, and every writable resource must end equal to lavapipe's (32-bit words exactly,
    or floats within dxil_tol where filtering precision differs); a difference is a deferred DxilBug.
    dxil_skip: a dxil_run.NOT_EXECUTABLE key the test knows applies (e.g. 'thread-order').
    dxil_data: {resource or push-constant name: bytes already in the D3D layout} (from the test's own model).
    dxil_check: callable({name: bytes}) judging the DXIL results itself, for thread-order-dependent results."""
    vk = vk_runner()
    descs = bind([res.manifest], specs)
    # results that depend on thread order are judged by the test's own check at -O0 too
    o0_check = (lambda again, _first: dxil_check(_by_name(specs, again))) if dxil_check is not None else None
    got = vk.run_compute(res.binary, entry, descs, groups=tuple(groups), push_constants=push, o0_check=o0_check)
    out = _by_name(specs, got)
    twin = twin_of(res)
    if twin is not None:
        from dxil_run import run_twin
        run_twin(res, twin, specs, out, groups, push, entry, dxil_tol, dxil_skip, dxil_data or {}, dxil_check)
    return out


def _by_name(specs: dict, got: list[bytes]) -> dict[str, bytes]:
    out, i = {}, 0
    for name, spec in specs.items():
        if isinstance(spec, list):
            for j in range(len(spec)):
                out[f"{name}[{j}]"] = got[i]
                i += 1
        else:
            out[name] = got[i]
            i += 1
    return out


def cs(src: str, specs: dict[str, object], groups=(1, 1, 1), **kw) -> dict[str, bytes]:
    """build + run_cs in one call."""
    push = kw.pop("push", b"")
    dx = {k: kw.pop(k) for k in ("dxil_tol", "dxil_skip", "dxil_data", "dxil_check") if k in kw}
    return run_cs(build(src, **kw), specs, groups, push, **dx)


FULLSCREEN_VS = """
struct VOut { float4 pos : SV_Position; float2 uv : TEXCOORD0; };
VOut main(uint id : SV_VertexID) {
    VOut o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.uv = uv;
    o.pos = float4(uv * 2.0 - 1.0, 0.0, 1.0);
    return o;
}
"""


def draw(vs_src: str, ps_src: str, width: int, height: int, specs: dict | None = None, vertex_buffers=None,
         vertex_count: int = 3, *, vs_entry: str = "main", ps_entry: str = "main", full: bool = False,
         gs_src: str | None = None, gs_entry: str = "main", gs_profile: str = "gs_6_0", ps_profile: str = "ps_6_0", **kw):
    """Build VS (vs_6_0), the optional GS (gs_src, gs_profile) and PS (ps_profile), draw; pixels of target 0 (or
    with full: (targets, {name: bytes})).  The DXIL twins draw again through dxil-spirv on lavapipe and must
    give the same pixels and buffers."""
    vs = build(vs_src, vs_entry, "vs_6_0")
    ps = build(ps_src, ps_entry, ps_profile)
    gs = build(gs_src, gs_entry, gs_profile) if gs_src is not None else None
    stages = [vs.manifest, ps.manifest] + ([gs.manifest] if gs is not None else [])
    specs = specs or {}
    vk = vk_runner()
    descs = bind(stages, specs)
    _check_shared_bindings(*stages)
    targets, got = vk.run_graphics(vs.binary, vs_entry, ps.binary, ps_entry, width, height, descs, vertex_buffers,
                                   vertex_count, full=True, gs=None if gs is None else (gs.binary, gs_entry), **kw)
    from dxil_run import draw_twin
    draw_twin(vs, ps, vs_entry, ps_entry, specs, width, height, vertex_buffers, vertex_count, targets,
              _by_name(specs, got), gs=gs, **kw)
    if full:
        return targets, _by_name(specs, got)
    return targets[0]


def _check_shared_bindings(*manifests: dict) -> None:
    seen: dict[tuple[int, int], tuple[str, str]] = {}
    for m in manifests:
        for r in m["resources"]:
            key = (r["vulkan"]["set"], r["vulkan"]["binding"])
            val = (r["name"], r["vulkan"]["descriptor_type"])
            assert seen.setdefault(key, val) == val, f"stages disagree at {key}: {seen[key]} vs {val}"


def pixel(pixels: bytes, width: int, x: int, y: int) -> tuple[int, int, int, int]:
    i = (y * width + x) * 4
    return tuple(pixels[i:i + 4])


def unorm8(x: float) -> int:
    """What an RGBA8_UNORM target stores for x (round to nearest)."""
    return int(math.floor(min(max(x, 0.0), 1.0) * 255.0 + 0.5))


# ---------------------------------------------------------------- xfail helpers


def xfail(reason: str):
    """A strict xfail mark; reason starts with the component ('front end: ...', 'SPIR-V: ...')."""
    return pytest.mark.xfail(strict=True, reason=reason)


def param(*values, id: str, bug: str | None = None, dxil: str | None = None):  # noqa: A002 - mirrors pytest.param
    """bug: strict xfail of the whole case; dxil: strict xfail expecting a DxilBug (reason without 'DXIL: ')."""
    marks = [xfail(bug)] if bug else [dxil_xfail(dxil)] if dxil else []
    return pytest.param(*values, id=id, marks=marks)

