"""Shared helper of the executed HLSL language corpus (tests/test_lang_*.py).

`run_cs` compiles a compute shader with shaderbuild, validates the SPIR-V, runs it on
lavapipe with buffers bound from the manifest, and (optionally) compiles the same source to
DXIL, checks it with the LLVM 19 tools and runs it through the lli-based DXIL interpreter as
a differential check.  `SlotTable` turns a table of (expression, expected) rows into one
dispatch whose results are checked row by row, so each row is its own pytest case and can
carry its own xfail mark for the component that gets it wrong.
"""

from __future__ import annotations

import functools
import math
import os
import re
import struct
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import pytest
from harness import tools
from harness.vulkan_runner import register_unoptimised

from shaderbuild.compiler import CompileResult, compile_file
from shaderbuild.options import CompileOptions

ENTRY = "main"
SENTINEL = 0xCDCDCDCD  # initial word of every output element: "not written" is visible

# element type -> (struct code per component, component count, decoder of one component)
_SCALARS = {"uint": "I", "int": "i", "float": "f", "double": "d", "bool": "I", "dword": "I",
            "uint64_t": "Q", "int64_t": "q"}
_VEC_RE = re.compile(r"^(uint|int|float|double|bool)([1-4])$")
# Only these cannot run on the serial DXIL interpreter: a group-sync barrier needs the other threads of the
# group to have reached it, and wave/quad ops read other lanes.  Atomics (rt_atomic_i32, native atomicrmw
# on groupshared) and barriers without group sync (memory ordering only) run as they are.
_GROUP_SYNC_RE = re.compile(r"\b(?:\w*WithGroupSync|Wave\w+|Quad\w+)\s*\(")


def elem_format(t: str) -> tuple[str, int]:
    """(struct code, component count) of a buffer element type such as 'uint', 'float4'."""
    if t in _SCALARS:
        return _SCALARS[t], 1
    m = _VEC_RE.match(t)
    if m:
        return _SCALARS[m.group(1)], int(m.group(2))
    raise ValueError(f"unsupported buffer element type {t!r}")


def encode(t: str, values: Iterable) -> bytes:
    code, n = elem_format(t)
    flat: list = []
    for v in values:
        flat.extend(v if n > 1 else [v])
    return struct.pack(f"<{len(flat)}{code}", *flat)


def decode(t: str, data: bytes) -> list:
    code, n = elem_format(t)
    vals = list(struct.unpack(f"<{len(data) // struct.calcsize(code)}{code}", data))
    return vals if n == 1 else [tuple(vals[i:i + n]) for i in range(0, len(vals), n)]


def sentinel_bytes(t: str, count: int) -> bytes:
    code, n = elem_format(t)
    return struct.pack("<I", SENTINEL) * (count * n * struct.calcsize(code) // 4)


# ---------------------------------------------------------------- float helpers

def f32(x: float) -> float:
    """Round a Python float to binary32 (what the GPU stores)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def _ordered(x: float) -> int:
    i = struct.unpack("<i", struct.pack("<f", x))[0]
    return i if i >= 0 else -(i & 0x7FFFFFFF)


def ulp_diff(a: float, b: float) -> float:
    """Distance in binary32 ULPs (inf if exactly one is NaN)."""
    if math.isnan(a) or math.isnan(b):
        return 0 if math.isnan(a) and math.isnan(b) else math.inf
    return abs(_ordered(f32(a)) - _ordered(f32(b)))


def close(got: float, want: float, ulps: int = 0, abs_tol: float = 0.0, double: bool = False) -> bool:
    """got == want (rounded to binary32 unless `double`) within `ulps` binary32 ULPs or `abs_tol`."""
    if ulps == 0 and abs_tol == 0.0:
        return got == (want if double else f32(want)) or (math.isnan(got) and math.isnan(want))
    return ulp_diff(got, want) <= ulps or abs(got - want) <= abs_tol


def assert_close(got, want, ulps: int = 0, abs_tol: float = 0.0, what: str = "", double: bool = False) -> None:
    gs = got if isinstance(got, tuple) else (got,)
    ws = want if isinstance(want, tuple) else (want,)
    assert len(gs) == len(ws), f"{what}: got {got!r}, want {want!r}"
    for g, w in zip(gs, ws):
        if isinstance(w, float) or isinstance(g, float):
            assert close(g, w, ulps, abs_tol, double), f"{what}: got {got!r}, want {want!r} (ulps={ulps}, abs={abs_tol})"
        else:
            assert g == w, f"{what}: got {got!r}, want {want!r}"


# ---------------------------------------------------------------- compile

@functools.lru_cache(maxsize=512)
def _compile(hlsl: str, target: str, defines: tuple, profile: str, hlsl_version: int, entry: str) -> CompileResult:
    opts = CompileOptions(entry=entry, profile=profile, target=target, defines=dict(defines),
                          hlsl_version=hlsl_version)
    result = compile_file("lang_test.hlsl", opts, text=hlsl)
    _dump_for_benchmark(hlsl, opts, result)
    if result.ok and target == "spirv":
        register_unoptimised(result.binary, functools.partial(_unoptimised, hlsl, opts))
    return result


def _unoptimised(hlsl: str, opts: CompileOptions) -> bytes:
    """The -O0 build that every execution of the -O3 one is repeated with (harness/vulkan_runner.py)."""
    res = compile_file("lang_test.hlsl", opts.replace(opt_level=0), text=hlsl)
    assert res.ok and res.binary is not None, "the -O0 build failed where the -O3 build compiled"
    tools.spirv_val(res.binary, "vulkan1.1")
    return res.binary


def _dump_for_benchmark(hlsl: str, opts: CompileOptions, result: CompileResult) -> None:
    """With SHADERBUILD_DUMP_SHADERS=DIR, keep every shader that compiled to SPIR-V, so
    bench/lang_corpus.py can time the corpus against glslangValidator."""
    out = os.environ.get("SHADERBUILD_DUMP_SHADERS")
    if not out or not result.ok or opts.target != "spirv":
        return
    import hashlib
    import json

    digest = hashlib.sha256((hlsl + repr(sorted(opts.defines.items())) + opts.profile).encode()).hexdigest()[:16]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, f"{digest}.hlsl"), "w") as f:
        f.write(hlsl)
    with open(os.path.join(out, f"{digest}.json"), "w") as f:
        json.dump({"entry": opts.entry, "profile": opts.profile, "defines": opts.defines,
                   "hlsl_version": opts.hlsl_version}, f)


def compile_cs(hlsl: str, target: str = "spirv", defines: dict | None = None, profile: str = "cs_6_0",
               hlsl_version: int = 2021, entry: str = ENTRY) -> CompileResult:
    """Compile (cached per argument tuple); never raises for bad input."""
    return _compile(hlsl, target, tuple(sorted((defines or {}).items())), profile, hlsl_version, entry)


def diagnostics_text(res: CompileResult) -> str:
    return "\n".join(d.render(res.sources) for d in res.diagnostics)


def compile_ok(hlsl: str, target: str = "spirv", **kw) -> CompileResult:
    res = compile_cs(hlsl, target, **kw)
    if not res.ok:
        raise AssertionError(f"{target} compile failed:\n{diagnostics_text(res)}\n--- source ---\n{hlsl}")
    return res


def warnings_of(res: CompileResult) -> list[str]:
    return [d.message for d in res.diagnostics if d.severity == "warning"]


# ---------------------------------------------------------------- run

def _vk():
    try:
        import vulkan  # noqa: F401
    except ImportError:
        tools.missing_dependency("PyPI package 'vulkan'")
    from harness import vulkan_runner
    return vulkan_runner


def _resource_map(manifest: dict) -> dict[str, dict]:
    return {r["name"]: r for r in manifest["resources"]}


def _buffers(outputs: dict, inputs: dict) -> list[tuple[str, str, bytes]]:
    """(name, element type, initial bytes) for every buffer, inputs first."""
    bufs = []
    for name, (t, values) in inputs.items():
        bufs.append((name, t, encode(t, values)))
    for name, spec in outputs.items():
        t, init = spec
        data = sentinel_bytes(t, init) if isinstance(init, int) else encode(t, init)
        bufs.append((name, t, data))
    return bufs


# a typed buffer's (Buffer<T> / RWBuffer<T>) element -> the texel format it is bound with
_TEXEL_FORMATS = {("I", 1): "r32ui", ("i", 1): "r32i", ("f", 1): "r32f", ("I", 2): "rg32ui", ("f", 2): "rg32f",
                  ("I", 4): "rgba32ui", ("i", 4): "rgba32i", ("f", 4): "rgba32f"}


def _descriptor(vk, name: str, t: str, descriptor_type: str, where: tuple[int, int], data: bytes):
    """The harness descriptor for one named buffer: a storage/uniform buffer, or a texel buffer (a typed
    buffer, viewed with its element's format; with vk None, that format's name, for the DXIL interpreter).  Anything else is a clear error here (binding a typed buffer
    as a storage buffer used to kill the Vulkan worker with signal 11)."""
    if descriptor_type in ("storage_buffer", "uniform_buffer"):
        return vk.Buf(*where, data, "uniform" if descriptor_type == "uniform_buffer" else "storage")
    if descriptor_type in ("storage_texel_buffer", "uniform_texel_buffer"):
        fmt = _TEXEL_FORMATS.get(elem_format(t))
        if fmt is None:
            raise AssertionError(f"buffer {name!r}: no texel format for a typed buffer of {t!r} here "
                                 f"(have {sorted(_TEXEL_FORMATS.values())})")
        return fmt if vk is None else vk.TexelBuffer(*where, data, fmt, descriptor_type)
    raise AssertionError(f"buffer {name!r} is a {descriptor_type} descriptor: the compute runners bind buffers "
                         "and typed buffers only")


def run_spirv(hlsl: str, outputs: dict, inputs: dict | None = None, groups=(1, 1, 1), defines: dict | None = None,
              profile: str = "cs_6_0", hlsl_version: int = 2021,
              order_free: dict[str, Callable[[list], list]] | None = None) -> dict[str, bytes]:
    """Compile to SPIR-V, spirv-val it, run it on lavapipe; raw bytes of every buffer by name.
    order_free (see run_cs): the -O0 rerun of thread-order-dependent buffers is compared through it."""
    vk = _vk()
    res = compile_ok(hlsl, "spirv", defines=defines, profile=profile, hlsl_version=hlsl_version)
    tools.spirv_val(res.binary, "vulkan1.1")
    rmap = _resource_map(res.manifest)
    bufs = _buffers(outputs, inputs or {})
    descs = []
    for name, t, data in bufs:
        if name not in rmap:
            raise AssertionError(f"buffer {name!r} is not in the manifest ({sorted(rmap)})")
        v = rmap[name]["vulkan"]
        descs.append(_descriptor(vk, name, t, v["descriptor_type"], (v["set"], v["binding"]), data))
    o0_check = None
    if order_free:
        types = {n: t for n, t, _d in bufs}

        def o0_check(again: list[bytes], first: list[bytes]) -> None:
            for (n, _t, _d), a, g in zip(bufs, again, first):
                f = order_free.get(n)
                if f is None:
                    assert a == g, f"the -O0 build gives different {n}"
                else:
                    assert f(decode(types[n], a)) == f(decode(types[n], g)), f"the -O0 build gives different {n}"
    got = vk.run_compute(res.binary, ENTRY, descs, groups=tuple(groups), o0_check=o0_check)
    return {name: data for (name, _t, _d), data in zip(bufs, got)}


def run_dxil(hlsl: str, outputs: dict, inputs: dict | None = None, groups=(1, 1, 1), defines: dict | None = None,
             profile: str = "cs_6_0", hlsl_version: int = 2021) -> dict[str, bytes]:
    """Compile to DXIL, check it with obj2yaml/bcanalyzer/llvm-dis, run it with the lli interpreter."""
    from harness import dxil_exec, dxil_tools
    res = compile_ok(hlsl, "dxil", defines=defines, profile=profile, hlsl_version=hlsl_version)
    dxil_tools.check_dxil(res.binary)
    rmap = _resource_map(res.manifest)
    bufs = _buffers(outputs, inputs or {})
    specs = []
    for name, t, data in bufs:
        h = rmap[name]["hlsl"]
        if rmap[name]["vulkan"]["descriptor_type"].endswith("_texel_buffer"):     # a typed buffer: its format
            fmt = _descriptor(None, name, t, "storage_texel_buffer", (0, 0), b"")
            specs.append((h["register"], h["space"], h["class"], data, dxil_exec.View(fmt=fmt)))
        else:
            specs.append((h["register"], h["space"], h["class"], data))
    got = dxil_exec.run_dxil_compute(res.binary, ENTRY, specs, groups=tuple(groups))
    return {name: data for (name, _t, _d), data in zip(bufs, got)}


def run_dxil_vk(hlsl: str, outputs: dict, inputs: dict | None = None, groups=(1, 1, 1), defines: dict | None = None,
                profile: str = "cs_6_0", hlsl_version: int = 2021) -> dict[str, bytes]:
    """Compile to DXIL, convert it with dxil-spirv (check_dxil validates its SPIR-V), run that on lavapipe;
    buffers bound at dxil-spirv's (set = space, binding = shift[class] + register).  A listed dxil-spirv
    limit raises its ConsumerLimit (the shader still runs on the interpreter, run_dxil)."""
    from harness import dxil_consumer, dxil_tools
    vk = _vk()
    res = compile_ok(hlsl, "dxil", defines=defines, profile=profile, hlsl_version=hlsl_version)
    dxil_tools.check_dxil(res.binary)
    t0 = time.perf_counter()
    spirv = dxil_consumer.to_spirv(res.binary)
    reflect = tools.spirv_cross_reflect(spirv)
    # spirv-cross's categories -> descriptor types (typed buffers: the images of type *Buffer)
    cats = {"ssbos": "storage_buffer", "ubos": "uniform_buffer", "images": "storage_texel_buffer",
            "separate_images": "uniform_texel_buffer"}
    used = {(e["set"], e["binding"]): desc for cat, desc in cats.items() for e in reflect.get(cat, [])
            if cat in ("ssbos", "ubos") or e["type"].endswith("Buffer")}
    rmap = _resource_map(res.manifest)
    descs, order = [], []
    for name, t, data in _buffers(outputs, inputs or {}):
        h = rmap[name]["hlsl"]
        key = (h["space"], dxil_consumer.SHIFTS[h["class"]] + h["register"])
        if key in used:   # dxil-spirv declares only what the shader uses
            descs.append(_descriptor(vk, name, t, used[key], key, data))
        order.append((name, data, key in used))
    got = iter(vk.run_compute(spirv, reflect["entryPoints"][0]["name"], descs, groups=tuple(groups)))
    dxil_consumer.STATS.ran(t0)
    return {name: next(got) if bound else data for name, data, bound in order}


def uses_group_sync(hlsl: str) -> bool:
    """*WithGroupSync barriers and Wave*/Quad* ops cannot run on the serial DXIL interpreter (threads run
    one after another, so no thread can wait for or read another)."""
    return bool(_GROUP_SYNC_RE.search(hlsl))


def run_cs(hlsl: str, outputs: dict, inputs: dict | None = None, groups=(1, 1, 1), defines: dict | None = None,
           profile: str = "cs_6_0", check_dxil: bool = True, hlsl_version: int = 2021,
           float_ulps: int = 0, order_free: dict[str, Callable[[list], list]] | None = None) -> dict[str, list]:
    """Run on lavapipe and return decoded buffers {name: [elements]}.

    outputs: {name: (element type, count | initial values)}; inputs: {name: (type, values)}.
    With check_dxil the DXIL build is structurally checked, and, when the shader has no
    barriers or wave ops, executed and compared with the lavapipe results (floats within
    float_ulps, everything else exactly).  order_free: {buffer: f} for results that depend on thread
    order (atomics' original values, compare-exchange chains): both backends' values are compared as f(values),
    e.g. `sorted`; f must keep everything the test checks about them.
    """
    kw = dict(groups=groups, defines=defines, profile=profile, hlsl_version=hlsl_version)
    raw = run_spirv(hlsl, outputs, inputs, order_free=order_free, **kw)
    types = {n: t for n, (t, _v) in {**(inputs or {}), **outputs}.items()}
    decoded = {n: decode(types[n], b) for n, b in raw.items()}
    if check_dxil:
        from harness import dxil_consumer, dxil_tools
        dxil_tools.check_dxil(compile_ok(hlsl, "dxil", defines=defines, profile=profile,
                                         hlsl_version=hlsl_version).binary)
        runs = [("DXIL on lavapipe through dxil-spirv", run_dxil_vk)]
        if not uses_group_sync(hlsl):
            runs.append(("DXIL on the interpreter", run_dxil))
        norm = order_free or {}
        for where, runner in runs:
            try:
                draw = runner(hlsl, outputs, inputs, **kw)
            except dxil_consumer.ConsumerLimit:
                continue   # counted in the summary; the interpreter still runs it
            for n, b in draw.items():
                f = norm.get(n, lambda v: v)
                got, want = f(decode(types[n], b)), f(decoded[n])
                assert len(got) == len(want), f"{where} vs SPIR-V {n}: {len(got)} vs {len(want)} values"
                for i, (g, w) in enumerate(zip(got, want)):
                    assert_close(g, w, float_ulps, what=f"{where} vs SPIR-V {n}[{i}]")
    return decoded


def run_backend(backend: str, hlsl: str, outputs: dict, inputs: dict | None = None, **kw) -> dict[str, list]:
    """Decoded buffers from one backend alone ('spirv' on lavapipe, 'dxil' on the interpreter, 'dxil-vk'
    through dxil-spirv on lavapipe)."""
    runner = {"spirv": run_spirv, "dxil": run_dxil, "dxil-vk": run_dxil_vk}[backend]
    raw = runner(hlsl, outputs, inputs, **kw)
    types = {n: t for n, (t, _v) in {**(inputs or {}), **outputs}.items()}
    return {n: decode(types[n], b) for n, b in raw.items()}


# ---------------------------------------------------------------- slot tables

BACKENDS = ("spirv", "dxil", "dxil-vk")


# Mesa 25's lavapipe removes a float conversion round trip (narrow then widen back) as an inexact NIR
# optimisation when the narrowing carries no NoContraction.  Our SPIR-V decorates every narrowing conversion
# (emit_expr.convert, f32tof16); dxil-spirv translates DXIL's fptrunc / legacyF32ToF16 without it, so the
# DXIL run on lavapipe through dxil-spirv gets the unrounded value (the interpreter the rounded one).  Not
# avoidable in our DXIL: an LLVM 3.7 cast carries no flags, DXC's sitofp/fptosi are the same, and dxil-spirv's
# emit_cast_instruction_impl (opcodes_llvm_builtins.cpp) never decorates a conversion.  Our own SPIR-V with its
# NoContraction decorations removed gives the unrounded value on lavapipe too.
LAVAPIPE_ROUND_TRIP = ("dxil-spirv translates the narrowing conversion without NoContraction and lavapipe (Mesa 25) "
                       "folds its round trip away (inexact NIR optimisation); our own SPIR-V marks it")


def _xfail_reason(xfail: dict, backend: str) -> str | None:
    """A row's xfail reason for a backend: 'dxil-vk' (our DXIL through dxil-spirv) shares the 'dxil' entry
    (a DXIL bug fails both DXIL runs) unless it has its own; '' there means 'passes through dxil-spirv'."""
    if backend == "dxil-vk" and "dxil-vk" in xfail:
        return xfail["dxil-vk"] or None
    own = xfail.get("dxil" if backend == "dxil-vk" else backend)
    return own or xfail.get("all")


@dataclass
class Case:
    """One checked behaviour: `code` computes slot value(s); `want` is the Python-side expectation.

    code: an expression (assigned to the slot) or, with stmt=True, statements that assign `R`.
    xfail: {backend: reason}; backend 'all' marks every backend ('dxil' also marks 'dxil-vk', see _xfail_reason).
    """

    name: str
    code: str
    want: object
    ulps: int = 0
    abs_tol: float = 0.0
    stmt: bool = False
    xfail: dict = field(default_factory=dict)
    prelude: str = ""  # extra declarations this row needs (placed after the table's prelude)


def case(name: str, code: str, want, **kw) -> Case:
    return Case(name, code, want, **kw)


class SlotTable:
    """A table of Cases compiled into one shader: slot i of `Out` receives case i's value.

    prelude: helper declarations placed before the entry point; setup: statements at the top of
    main (e.g. reading inputs into locals so values are not compile-time constants).
    """

    def __init__(self, name: str, elem: str, cases: list[Case], prelude: str = "", setup: str = "",
                 inputs: dict | None = None, hlsl_version: int = 2021, defines: dict | None = None,
                 xfail: dict | None = None) -> None:
        self.name, self.elem, self.cases = name, elem, cases
        self.xfail = xfail or {}  # {backend: reason} for every row (a whole-shader failure)
        self.prelude, self.setup, self.inputs = prelude, setup, inputs or {}
        self.hlsl_version, self.defines = hlsl_version, defines or {}
        names = [c.name for c in cases]
        assert len(set(names)) == len(names), f"duplicate case names in {name}"
        self._results: dict[str, object] = {}

    def source(self, cases: list[Case] | None = None) -> str:
        """The shader for `cases` (default: all rows); slot i receives cases[i]."""
        cases = self.cases if cases is None else cases
        decls = [f"RWStructuredBuffer<{self.elem}> Out : register(u0);"]
        for i, (n, (t, _v)) in enumerate(self.inputs.items()):
            decls.append(f"StructuredBuffer<{t}> {n} : register(t{i + 1});")
        body = []
        for i, c in enumerate(cases):
            if c.stmt:
                body.append(f"    {{ // {c.name}\n        {self.elem} R = ({self.elem})0;\n        {c.code}\n"
                            f"        Out[{i}] = R;\n    }}")
            else:
                body.append(f"    Out[{i}] = {c.code}; // {c.name}")
        extra = "".join(c.prelude for c in cases)
        return ("\n".join(decls) + "\n" + self.prelude + extra + "\n[numthreads(1, 1, 1)]\nvoid main() {\n"
                + self.setup + "\n" + "\n".join(body) + "\n}\n")

    def _compiles(self, backend: str, cases: list[Case]) -> None:
        """Compile and statically check (spirv-val / LLVM tools); raise on failure."""
        target = "dxil" if backend == "dxil-vk" else backend
        res = compile_ok(self.source(cases), target, defines=self.defines, hlsl_version=self.hlsl_version)
        if backend == "spirv":
            tools.spirv_val(res.binary, "vulkan1.1")
        else:
            from harness import dxil_consumer, dxil_tools
            dxil_tools.check_dxil(res.binary)
            if backend == "dxil-vk":
                dxil_consumer.to_spirv(res.binary)   # a listed dxil-spirv limit fails the row here

    def _run(self, backend: str, cases: list[Case]) -> list:
        return run_backend(backend, self.source(cases), {"Out": (self.elem, len(cases))}, self.inputs,
                           defines=self.defines, hlsl_version=self.hlsl_version)["Out"]

    def results(self, backend: str) -> list:
        """Per-row value or exception.  A whole-shader failure is narrowed down by bisection (first on
        compile + static checks, which are cheap, then on execution) so it is charged only to the
        rows that cause it and every other row is still checked."""
        if backend not in self._results:
            out: dict[str, object] = {}
            good = _bisect(self.cases, lambda cs: self._compiles(backend, cs), out)
            values: dict[str, object] = {}

            def run(cs: list[Case]) -> None:
                values.update(zip((c.name for c in cs), self._run(backend, cs)))

            _bisect(good, run, out)
            out.update(values)
            self._results[backend] = [out[c.name] for c in self.cases]
        return self._results[backend]

    def params(self) -> list:
        """pytest params (case, backend) with per-backend xfail marks."""
        out = []
        for c in self.cases:
            for b in BACKENDS:
                reason = _xfail_reason(c.xfail, b) or _xfail_reason(self.xfail, b)
                marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
                out.append(pytest.param(c, b, id=f"{c.name}-{b}", marks=marks))
        return out

    def check(self, c: Case, backend: str) -> None:
        got = self.results(backend)[self.cases.index(c)]
        if isinstance(got, Exception):
            raise got
        want = c.want() if callable(c.want) else c.want
        assert_close(got, want, c.ulps, c.abs_tol, what=f"{self.name}/{c.name} [{backend}]",
                     double=self.elem.startswith("double"))


def _bisect(cases: list[Case], attempt: Callable[[list[Case]], None], failures: dict) -> list[Case]:
    """Cases for which attempt() succeeds (tried in as few groups as possible); the exception of a
    failing single case is stored in failures[name]."""
    if not cases:
        return []
    try:
        attempt(cases)
        return list(cases)
    except Exception as exc:  # noqa: BLE001 - a failing row is reported by its own test
        if len(cases) == 1:
            failures[cases[0].name] = exc
            return []
    mid = len(cases) // 2
    return _bisect(cases[:mid], attempt, failures) + _bisect(cases[mid:], attempt, failures)


def table_test(*tables: SlotTable) -> Callable:
    """A parametrized test function checking every row of `tables` on both backends."""
    params = []
    for t in tables:
        for p in t.params():
            c, b = p.values
            params.append(pytest.param(t, c, b, id=p.id, marks=p.marks))

    @pytest.mark.parametrize("table, c, backend", params)
    def test(table: SlotTable, c: Case, backend: str) -> None:
        table.check(c, backend)

    test.__name__ = f"test_{tables[0].name}"
    return test


def known_failures(tables: Iterable[SlotTable], backend: str, reasons: dict[str, str]) -> None:
    """Attach strict xfails for `backend` to rows named 'table/case' (a bug list kept in one place).
    A key naming no row is an error, so the list cannot go stale silently."""
    rows = {f"{t.name}/{c.name}": c for t in tables for c in t.cases}
    missing = sorted(set(reasons) - set(rows))
    if missing:
        raise KeyError(f"known_failures names unknown rows: {missing}")
    for key, reason in reasons.items():
        rows[key].xfail[backend] = reason


def solo_tables(name: str, elem: str, cases: list[Case], **kw) -> list[SlotTable]:
    """One shader per case: for rows that may fail to compile, so one failure hides no other row."""
    return [SlotTable(f"{name}.{c.name}", elem, [c], **kw) for c in cases]


def u32(x: int) -> int:
    return x & 0xFFFFFFFF


def i32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >= 1 << 31 else x


def trunc_div(a: int, b: int) -> int:
    """C/HLSL integer division (rounds toward zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def trunc_mod(a: int, b: int) -> int:
    return a - trunc_div(a, b) * b
