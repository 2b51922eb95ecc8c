"""Runs a layout_gen case on one route: 'spirv' (our SPIR-V on lavapipe, Vulkan rule), 'dxil' (our DXIL on the
interpreter, D3D rule) or 'dxil-vk' (our DXIL through dxil-spirv on lavapipe, D3D rule), each given the
container bytes laid out by its own rule.  Compiles with the case's options (-enable-16bit-types,
-fvk-use-*-layout), which lang_util's runners do not take."""

from __future__ import annotations

import functools

from harness import tools

from shaderbuild.compiler import CompileResult, compile_file
from shaderbuild.diagnostics import render_all
from shaderbuild.options import CompileOptions

from .layout_gen import Case

SENTINEL = 0xCDCDCDCD


class Refused(Exception):
    """The compiler refused the case with diagnostics (the rendered text)."""


@functools.lru_cache(maxsize=64)
def _compile(source: str, target: str, opt_level: int, flag: str, sixteen: bool) -> CompileResult:
    opts = CompileOptions(entry="main", profile="cs_6_2" if sixteen else "cs_6_0", target=target,
                          enable_16bit_types=sixteen, vk_layout=flag, opt_level=opt_level)
    return compile_file("layout.hlsl", opts, text=source)


def compile_case(case: Case, target: str, opt_level: int = 3) -> CompileResult:
    res = _compile(case.source, target, opt_level, case.flag, case.enable_16bit)
    if not res.ok or res.binary is None:
        raise Refused(render_all(res.diagnostics, res.sources))
    return res


def spirv_val(binary: bytes, case: Case) -> None:
    """spirv-val under the block layout the case's flag asks Vulkan for."""
    extra = ["--scalar-block-layout"] if case.flag in ("dx", "scalar") else []
    with tools.TempInput(binary, ".spv") as path:
        proc = tools.run_tool(["spirv-val", "--target-env", "vulkan1.1", *extra, str(path)], check=False)
    if proc.returncode:
        raise AssertionError("spirv-val: " + (proc.stderr + proc.stdout).decode(errors="replace")[:2000])


def _out_bytes(n: int) -> bytes:
    return SENTINEL.to_bytes(4, "little") * n


def _words(data: bytes) -> list[int]:
    return [int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data) - len(data) % 4, 4)]


def run(case: Case, backend: str) -> tuple[list[int], bytes | None]:
    """(Out words, the RWStructuredBuffer's final bytes or None)."""
    route = "vk" if backend == "spirv" else "dx"
    n = len(case.expected[route])
    data = case.data[route]
    name = "C" if case.container in ("cbuffer", "cbt", "push") else "B"
    if backend == "spirv":
        return _run_spirv(case, n, name, data)
    res = compile_case(case, "dxil")
    from harness import dxil_tools
    dxil_tools.check_dxil(res.binary)
    rmap = {r["name"]: r for r in res.manifest["resources"]}
    bufs = [(name, data), ("Out", _out_bytes(n))]
    if backend == "dxil":
        from harness import dxil_exec
        specs = [(rmap[b]["hlsl"]["register"], rmap[b]["hlsl"]["space"], rmap[b]["hlsl"]["class"], d) for b, d in bufs]
        got = dxil_exec.run_dxil_compute(res.binary, "main", specs)
        return _words(got[1])[:n], got[0] if case.container in ("rw", "rwbab") else None
    from harness import dxil_consumer, vulkan_runner
    spirv = dxil_consumer.to_spirv(res.binary)
    reflect = tools.spirv_cross_reflect(spirv)
    used = {(e["set"], e["binding"]): cat for cat in ("ssbos", "ubos") for e in reflect.get(cat, [])}
    descs, order = [], []
    for b, d in bufs:
        h = rmap[b]["hlsl"]
        key = (h["space"], dxil_consumer.SHIFTS[h["class"]] + h["register"])
        if key in used:
            descs.append(vulkan_runner.Buf(*key, d, "uniform" if used[key] == "ubos" else "storage"))
        order.append((d, key in used))
    got = iter(vulkan_runner.run_compute(spirv, reflect["entryPoints"][0]["name"], descs))
    outs = [next(got) if bound else d for d, bound in order]
    return _words(outs[1])[:n], outs[0] if case.container in ("rw", "rwbab") else None


def _run_spirv(case: Case, n: int, name: str, data: bytes) -> tuple[list[int], bytes | None]:
    from harness import vulkan_runner
    res = compile_case(case, "spirv")
    spirv_val(res.binary, case)

    def unoptimised() -> bytes:
        binary = compile_case(case, "spirv", 0).binary
        assert binary is not None
        spirv_val(binary, case)
        return binary
    vulkan_runner.register_unoptimised(res.binary, unoptimised)
    rmap = {r["name"]: r for r in res.manifest["backend"]["vulkan"]["resources"]}
    descs, push = [], b""
    for b, d in ((name, data), ("Out", _out_bytes(n))):
        if b not in rmap:               # the push-constant block
            push = d
            continue
        v = rmap[b]
        descs.append(vulkan_runner.Buf(v["set"], v["binding"], d,
                                       "uniform" if v["descriptor_type"] == "uniform_buffer" else "storage"))
    got = vulkan_runner.run_compute(res.binary, "main", descs, push_constants=push)
    out = got[-1]
    return _words(out)[:n], got[0] if case.container in ("rw", "rwbab") else None


def findings(case: Case, backends: tuple[str, ...] = ("spirv", "dxil", "dxil-vk")) -> list[str]:
    """Every word that differs from what the rules name, per route; refusals raise Refused."""
    from harness.dxil_consumer import ConsumerLimit
    found = []
    for backend in backends:
        route = "vk" if backend == "spirv" else "dx"
        try:
            got, final = run(case, backend)
        except ConsumerLimit:
            continue
        want = case.expected[route]
        found += [f"{backend} Out[{k}]: {g:#x}, want {w:#x}" for k, (g, w) in enumerate(zip(got, want)) if g != w]
        if len(got) != len(want):
            found.append(f"{backend}: {len(got)} words, want {len(want)}")
        if case.final[route] is not None and final is not None:
            want_b, got_b = _words(case.final[route] or b""), _words(final)
            found += [f"{backend} B word {k}: {g:#x}, want {w:#x}" for k, (g, w) in enumerate(zip(got_b, want_b))
                      if g != w]
    return found
