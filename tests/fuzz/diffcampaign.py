"""A differential campaign outside pytest (issue 20: silent wrong results), one JSON line per finding.

    cd tests && python -m fuzz.diffcampaign --kind edges --tag night1 --count 2000 --out /tmp/edges.jsonl

Kinds: `programs` (hlsl_gen safe programs: SPIR-V on lavapipe at -O3 and -O0, DXIL on the interpreter and
through dxil-spirv must agree, and dxil-spirv must convert the -O0 DXIL too), `edges` (the same with D3D's integer edges), `loops` (the same with hlsl_gen's
denser control flow: jumps in nested ifs, loops left by `break` only, early returns), `shapes` (loops plus matrices
and switches with fallthrough and shared labels), `switchloop` (programs with
a switch and a loop only), `cbuffer` (cbuffer_gen layouts: every read must be the word the packing rules
name), `layout` (layout_gen structs of bool/16/32/64-bit members in every buffer kind under every
-fvk-use-*-layout flag: every read and every word after RWStructuredBuffer stores must be what the rules name;
a refusal must be a located error; one line per run with the case's container and flag goes to stderr with -v), `matrix` (matrix_gen int matrix programs over row_major/column_major buffers: every route must store
what matrix_gen computes), `numeric` (numeric_gen expressions at D3D's integer and float edges, run time and folded: every route
must store the words numeric_gen's own evaluator computes), `aggregates` (aggregate_gen structs and arrays through
functions, storage and casts: every route must store what aggregate_gen tracks), `aggregates_wide` (the same with
float, half, double, 16/64-bit integer and bool components, -enable-16bit-types; whole structs stored to a
RWStructuredBuffer<T> element and with Store<T>, their bytes placed by layout_gen's rules), `wide` (wide_gen 16/64-bit expressions
with -enable-16bit-types, stored with Store<T>: every route must write the bytes wide_gen's evaluator computes),
`workgroup` (workgroup_gen multi-thread programs: groupshared memory behind barriers, atomics, wave and quad
operations under divergence, the thread-id system values; SPIR-V (and its -O0 rerun) and DXIL through dxil-spirv
must store what workgroup_gen's model computes on the waves the device formed).  Input i depends only on (tag, i), so a finding is rerun with --start i --count 1.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import re
import sys
import time
import traceback

import lang_util
from harness import dxil_consumer, dxil_exec, dxil_tools, vulkan_runner
from harness.dxil_consumer import ConsumerError, ConsumerLimit
from lang_util import run_backend

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

from . import (
    aggregate_gen,
    cbuffer_gen,
    hlsl_gen,
    layout_gen,
    layout_run,
    matrix_gen,
    numeric_gen,
    routes,
    wide_gen,
    workgroup_gen,
)
from .test_differential import _zero_sign_free, differences, same


def _program_findings(prog: hlsl_gen.Program) -> list[str]:
    """The differences; when dxil-spirv rejects our DXIL, the rejection and what SPIR-V on lavapipe and the
    DXIL on the interpreter still disagree on (the rejection would otherwise hide a wrong value).  Then the
    -O0 DXIL through dxil-spirv (the runs check the -O3 build; the DXIL backend lowers -O0 on its own)."""
    try:
        found = differences(prog)
    except ConsumerError as exc:
        found = [f"ConsumerError: {exc}"[:3000], *_interpreter_differences(prog)]
    return found + _unoptimised_dxil_findings(prog)


def _unoptimised_dxil_findings(prog: hlsl_gen.Program) -> list[str]:
    opts = CompileOptions(entry=lang_util.ENTRY, profile="cs_6_0", target="dxil", opt_level=0)
    res = compile_file("diffcampaign.hlsl", opts, text=prog.source)
    if not res.ok or res.binary is None:
        return ["the -O0 DXIL build failed where the -O3 build compiled"]
    try:
        dxil_consumer.to_spirv(res.binary)
    except ConsumerLimit:
        pass
    except ConsumerError as exc:
        return [f"-O0 DXIL: ConsumerError: {exc}"[:3000]]
    return []


def _interpreter_differences(prog: hlsl_gen.Program) -> list[str]:
    """SPIR-V on lavapipe against our DXIL on the interpreter, without the dxil-spirv check."""
    outputs = {o.name: (str(o.ty), o.count) for o in prog.outputs}
    spirv = lang_util.run_spirv(prog.source, outputs)
    res = lang_util.compile_ok(prog.source, "dxil")
    dxil_tools.read_dxil(res.binary)
    rmap = lang_util._resource_map(res.manifest)
    bufs = lang_util._buffers(outputs, {})
    got = dxil_exec.run_dxil_compute(res.binary, lang_util.ENTRY, [
        (rmap[n]["hlsl"]["register"], rmap[n]["hlsl"]["space"], rmap[n]["hlsl"]["class"], data) for n, _t, data in bufs])
    diffs = []
    for o, data in zip(prog.outputs, got):
        want, have = (lang_util.decode(str(o.ty), b) for b in (spirv[o.name], data))
        if o.ty.kind == "float":                     # as differences() compares them: -0.0 reads as +0.0
            want, have = _zero_sign_free(want), _zero_sign_free(have)
        diffs += [f"{o.name}[{i}]: spirv {a!r} != lli {b!r}" for i, (a, b) in enumerate(zip(want, have)) if not same(a, b)]
    return diffs


def _cbuffer_findings(layout: cbuffer_gen.Layout) -> list[str]:
    found = []
    for backend in ("spirv", "dxil", "dxil-vk"):
        rule = "vk" if backend == "spirv" else "dx"
        want = layout.expected[rule]
        words = [cbuffer_gen.BASE + k for k in range(layout.words[rule])]
        try:
            got = run_backend(backend, layout.source, {"Out": ("uint", len(want))}, {"C": ("uint", words)})["Out"]
        except ConsumerLimit:
            continue
        found += [f"{backend} Out[{k}]: word {g - cbuffer_gen.BASE}, want {w - cbuffer_gen.BASE}"
                  for k, (g, w) in enumerate(zip(got, want)) if g != w]
    return found


REFUSED: collections.Counter[str] = collections.Counter()     # layout: the located refusals, by message


def _layout_findings(case: layout_gen.Case) -> list[str]:
    try:
        return layout_run.findings(case)
    except layout_run.Refused as exc:
        text = str(exc)
        located = text.startswith("layout.hlsl:") and ": error: " in text and "internal compiler error" not in text
        REFUSED[text.splitlines()[0].split(": error: ")[-1][:60]] += 1
        return [] if located else [f"unlocated refusal: {text}"[:3000]]


def _numeric_findings(prog: numeric_gen.NumProgram) -> list[str]:
    found = []
    for backend in ("spirv", "dxil", "dxil-vk"):
        try:
            got = run_backend(backend, prog.source, {"Out": ("uint", len(prog.expected))},
                              {"In": ("uint", prog.inputs)})["Out"]
        except ConsumerLimit:
            continue
        # dxil-spirv's int -> float conversion has no NoContraction and lavapipe folds its round trip back
        known = "known LAVAPIPE_ROUND_TRIP? " if backend == "dxil-vk" and "((float)(" in prog.source else ""
        found += [f"{known}{backend} Out[{k}]: {g:#x}, want {w:#x}"
                  for k, (g, w) in enumerate(zip(got, prog.expected)) if g != w]
    return found


def _matrix_findings(prog: matrix_gen.MatProgram) -> list[str]:
    inputs = {n: ("float", [float(x) for x in v]) for n, v in prog.inputs.items()}
    return _int_out_findings(prog.source, prog.expected, inputs)


def _aggregate_findings(prog: aggregate_gen.AggProgram) -> list[str]:
    return _int_out_findings(prog.source, prog.expected, {"In": ("int", prog.inputs)})


def _int_out_findings(source: str, expected: list[int], inputs: dict) -> list[str]:
    """The routes' differences from `expected`, the ints the program stores to Out."""
    found = []
    for backend in ("spirv", "dxil", "dxil-vk"):
        try:
            got = run_backend(backend, source, {"Out": ("int", len(expected))}, inputs)["Out"]
        except ConsumerLimit:
            continue
        found += [f"{backend} Out[{k}]: {g}, want {w}" for k, (g, w) in enumerate(zip(got, expected)) if g != w]
    return found


def _aggregate_wide_findings(prog: aggregate_gen.WideAggProgram) -> list[str]:
    return aggregate_gen.wide_findings(routes.every_route(prog.source, prog.buffers, **aggregate_gen.OPTIONS), prog)


def _wide_findings(prog: wide_gen.WideProgram) -> list[str]:
    bufs = {"In": prog.inputs, "Out": bytes([wide_gen.SENTINEL]) * len(prog.expected)}
    found = [f for route, got in routes.every_route(prog.source, bufs, **wide_gen.OPTIONS).items()
             for f in wide_gen.findings(got["Out"], prog, route)]
    # a rounding conversion to a float type converted on: dxil-spirv gives it no NoContraction, lavapipe folds it away
    narrowing = re.search(r"\((float|half|double)[234]?\)\(", prog.source) is not None
    return [f"known LAVAPIPE_ROUND_TRIP? {f}" if narrowing and f.startswith("dxil-vk ") else f for f in found]


def _workgroup_findings(prog: workgroup_gen.WgProgram) -> list[str]:
    found = []
    for route in workgroup_gen.ROUTES:
        try:
            found += workgroup_gen.route_findings(prog, route)
        except ConsumerLimit:
            continue
    return found


def _input(kind: str, tag: str, i: int):
    """(source, thunk giving the findings) of input i, or None when the kind filters it out."""
    rng = random.Random(f"{tag}:{i}")
    if kind == "cbuffer":
        layout = cbuffer_gen.generate(rng)
        return layout.source, lambda: _cbuffer_findings(layout)
    if kind == "layout":
        case = layout_gen.generate(rng)
        head = f"// {case.container} -fvk-use-{case.flag}-layout 16bit={case.enable_16bit}\n"
        return head + case.source, lambda: _layout_findings(case)
    if kind == "matrix":
        mat = matrix_gen.generate(rng)
        return mat.source, lambda: _matrix_findings(mat)
    if kind == "numeric":
        num = numeric_gen.generate(rng)
        return num.source, lambda: _numeric_findings(num)
    if kind == "aggregates":
        agg = aggregate_gen.generate(rng)
        return agg.source, lambda: _aggregate_findings(agg)
    if kind == "aggregates_wide":
        aw = aggregate_gen.generate_wide(rng)
        return aw.source, lambda: _aggregate_wide_findings(aw)
    if kind == "wide":
        wide = wide_gen.generate(rng)
        return wide.source, lambda: _wide_findings(wide)
    if kind == "workgroup":
        wg = workgroup_gen.generate(rng)
        return f"// groups {wg.groups}\n" + wg.source, lambda: _workgroup_findings(wg)
    prog = hlsl_gen.generate(rng, safe=True, edges=kind == "edges", loops=kind in ("loops", "shapes"),
                             shapes=kind == "shapes")
    if kind == "switchloop" and not ("switch" in prog.source and any(
            k in prog.source for k in ("for (", "while (", "do {"))):
        return None
    return prog.source, lambda: _program_findings(prog)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fuzz.diffcampaign", description=__doc__.split("\n\n")[0])
    ap.add_argument("--kind", choices=("programs", "edges", "loops", "shapes", "switchloop", "cbuffer", "numeric", "matrix",
                                          "layout", "aggregates", "aggregates_wide", "wide", "workgroup"),
                    default="programs")
    ap.add_argument("--tag", default="campaign", help="seed: input i is generated from (tag, i)")
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--out", default="diffcampaign.jsonl")
    args = ap.parse_args(argv)
    sys.setrecursionlimit(10_000)
    run = bad = 0
    t0 = time.monotonic()
    with open(args.out, "a") as out:
        for i in range(args.start, args.start + args.count):
            made = _input(args.kind, args.tag, i)
            if made is None:
                continue
            source, findings = made
            run += 1
            try:
                found = findings()
            except Exception as exc:       # a compile error, a validator's rejection, an -O0/-O3 difference
                found = [f"{type(exc).__name__}: {exc}"[:3000], traceback.format_exc()[-1500:]]
            if found:
                bad += 1
                out.write(json.dumps({"kind": args.kind, "tag": args.tag, "i": i, "findings": found[:20],
                                      "source": source}) + "\n")
                out.flush()
            if run % 50 == 0:
                print(f"{run} run, {bad} with findings, {time.monotonic() - t0:.0f} s", file=sys.stderr, flush=True)
    vulkan_runner.shutdown()
    print(json.dumps({"kind": args.kind, "tag": args.tag, "run": run, "with_findings": bad,
                      "seconds": round(time.monotonic() - t0, 1), **({"refused": dict(REFUSED)} if REFUSED else {})}))
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
