"""Raw buffers of one compute program on every route, with compile options lang_util's runners do not take
(`-enable-16bit-types` for wide_gen): SPIR-V on lavapipe (its -O0 build rerun and required byte-identical),
DXIL on the lli interpreter, DXIL through dxil-spirv on lavapipe, and the -O0 DXIL converted by dxil-spirv."""

from __future__ import annotations

import functools
from collections.abc import Callable

from harness import dxil_consumer, dxil_exec, dxil_tools, tools
from harness import vulkan_runner as vk
from harness.dxil_consumer import ConsumerLimit

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

ENTRY = "main"
ROUTES = ("spirv", "dxil", "dxil-vk")


def _build(source: str, target: str, opt_level: int, options: dict) -> bytes:
    opts = CompileOptions(entry=ENTRY, target=target, opt_level=opt_level, **options)
    res = compile_file("routes.hlsl", opts, text=source)
    if not res.ok or res.binary is None:
        raise AssertionError(f"{target} -O{opt_level} compile failed:\n"
                             + "\n".join(d.render(res.sources) for d in res.diagnostics))
    if target == "spirv":
        tools.spirv_val(res.binary, "vulkan1.1")
    else:
        dxil_tools.check_dxil(res.binary)
    return res.binary


def _manifest(source: str, options: dict) -> dict[str, dict]:
    res = compile_file("routes.hlsl", CompileOptions(entry=ENTRY, target="spirv", **options), text=source)
    if not res.ok or res.manifest is None:
        raise AssertionError("spirv compile failed:\n" + "\n".join(d.render(res.sources) for d in res.diagnostics))
    return {r["name"]: r for r in res.manifest["resources"]}


def run(route: str, source: str, buffers: dict[str, bytes], *, groups: tuple[int, int, int] = (1, 1, 1),
        o0_check: Callable[[list[bytes], object], None] | None = None, **options) -> dict[str, bytes]:
    """Every buffer's final bytes after one dispatch of `groups` groups of `source` on `route` (all buffers are
    UAVs or SRVs bound by the manifest).  A listed dxil-spirv limit raises its ConsumerLimit.  o0_check judges
    the SPIR-V -O0 rerun's buffers instead of byte equality (results that depend on thread order)."""
    rmap = _manifest(source, options)
    names = list(buffers)
    if route == "spirv":
        o3 = _build(source, "spirv", 3, options)
        vk.register_unoptimised(o3, functools.partial(_build, source, "spirv", 0, options))
        descs = [vk.Buf(rmap[n]["vulkan"]["set"], rmap[n]["vulkan"]["binding"], buffers[n]) for n in names]
        return dict(zip(names, vk.run_compute(o3, ENTRY, descs, groups=groups, o0_check=o0_check)))
    dxil = _build(source, "dxil", 3, options)
    if route == "dxil":
        specs = [(rmap[n]["hlsl"]["register"], rmap[n]["hlsl"]["space"], rmap[n]["hlsl"]["class"], buffers[n])
                 for n in names]
        return dict(zip(names, dxil_exec.run_dxil_compute(dxil, ENTRY, specs, groups=groups)))
    assert route == "dxil-vk", route
    spirv = dxil_consumer.to_spirv(dxil)
    dxil_consumer.to_spirv(_build(source, "dxil", 0, options))      # the -O0 DXIL converts too
    reflect = tools.spirv_cross_reflect(spirv)
    used = {(e["set"], e["binding"]) for e in reflect.get("ssbos", [])}
    keys = {n: (rmap[n]["hlsl"]["space"], dxil_consumer.SHIFTS[rmap[n]["hlsl"]["class"]] + rmap[n]["hlsl"]["register"])
            for n in names}
    bound = [n for n in names if keys[n] in used]       # dxil-spirv declares only what the shader uses
    got = dict(zip(bound, vk.run_compute(spirv, reflect["entryPoints"][0]["name"],
                                         [vk.Buf(*keys[n], buffers[n]) for n in bound], groups=groups)))
    return {n: got.get(n, buffers[n]) for n in names}


def every_route(source: str, buffers: dict[str, bytes], **options) -> dict[str, dict[str, bytes]]:
    """run() on each route; a route dxil-spirv cannot take (ConsumerLimit) is left out."""
    out = {}
    for route in ROUTES:
        try:
            out[route] = run(route, source, buffers, **options)
        except ConsumerLimit:
            continue
    return out
