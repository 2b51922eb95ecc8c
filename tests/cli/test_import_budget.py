"""What a cold `shaderbuild compile` imports (issue 23): the compile path of each target, run
in a fresh interpreter with `-X importtime`.

The deterministic checks are the guard: none of the modules whose cost the import diet removed
(pluggy and the `inspect`/`ast`/`dis`/`tokenize` it pulls in, dataclasses, argparse, OpenSSL's
hashlib, importlib.metadata, the build engine), and of the other backend only the modules that
register it; and at most so many modules and classes of ours (OWN_MODULES, OWN_CLASSES: the
two costs that grow with the code on the path).  The time bound is loose on purpose (a 2-core
CI machine shared with other jobs, and possibly no bytecode cache): it catches an import that
costs hundreds of milliseconds, not a slow millisecond.  Modules a plugin's entry point loads through `importlib.import_module` are
not in `-X importtime`'s log (it logs `import` statements only); they are small."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

# a struct: every sample shader declares one, and StructDecl's __init__ shape once went missing from
# _record_inits.py (the compile behind it, the process's first, cost ~10 M instructions)
CS = """struct P { uint a; float b; };
RWStructuredBuffer<P> Out : register(u0);
[numthreads(4, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { P p = { id.x * 3, 1.0 }; Out[id.x] = p; }
"""
# An editable install's finder (the development venv) imports typing before the driver runs: the
# driver forgets the modules it checks for, so that a compile importing one imports it anew.
DRIVER = """import sys
for name in [m for m in sys.modules if m.split(".")[0] in {"typing", "json", "contextlib", "re", "enum",
                                                            "functools", "collections", "operator", "types",
                                                            "contextvars", "_contextvars"}]:
    del sys.modules[name]
from shaderbuild import cli
status = cli.main(sys.argv[1:])
modules = sorted(sys.modules)
ours = [sys.modules[m] for m in modules if m.split(".")[0] in ("shaderbuild", "shaderbuild_spirv", "shaderbuild_dxil")]
classes = sum(1 for m in ours for v in list(vars(m).values()) if isinstance(v, type) and v.__module__ == m.__name__)
from shaderbuild import _record_inits, records
compiled = sorted(name for shape, post in records._templates
                  if not hasattr(_record_inits, name := records.template_name(shape, post)))
import json
print(json.dumps({"status": status, "modules": modules, "compiled": compiled, "classes": classes}))
"""
NEVER = {"pluggy", "inspect", "ast", "dis", "tokenize", "dataclasses", "argparse", "hashlib", "_hashlib",
         "importlib.metadata", "email", "zipfile", "subprocess", "threading", "shaderbuild.build",
         "shaderbuild.cli_parser", "shaderbuild.plugin.lazy",
         # json and typing (~1 and ~2 ms): a line format for the discovery cache, Python literals for the
         # SPIR-V grammar; typing's names only under TYPE_CHECKING guards
         "json", "typing",
         # contextlib (~5 M instructions): the lexer's and sema's `with` blocks are small classes; re and enum
         # (~13 M, with the functools and collections they import ~26 M): the lexer is a scanner, ir.Storage and
         # TokKind are records.Constant (a root signature's parser still uses re); functools and collections
         # (~10 M more): lightstd's lru_cache and Counter, collections.abc for type checkers only; operator and
         # types (~1.2 M each): lightstd's getters, `type(...)` of an object for types' classes
         "contextlib", "re", "enum", "functools", "collections", "operator", "types",
         # stage-specific modules, imported when a shader has such a stage (issue 15)
         "shaderbuild.passes.hit_terminators", "shaderbuild.passes.mesh_io", "shaderbuild_spirv.raytracing",
         "shaderbuild_spirv.rayquery", "shaderbuild_dxil.raytracing", "shaderbuild_dxil.rayquery",
         "shaderbuild.front.sema.subobjects",
         "shaderbuild.front.sema.mesh", "shaderbuild.front.sema.rayquery", "shaderbuild.front.sema.tess",
         "shaderbuild.passes.evaluate_attribute",
         # the IR printer: for error messages and local resource arrays only; DXIL's disassembler for --Fc
         "shaderbuild.ir.printer", "shaderbuild_dxil.disasm", "shaderbuild_dxil.llvm.printer",
         # DXIL's -Zi collector; the ViewID state (stages with signatures: not a compute shader)
         "shaderbuild_dxil.debuginfo", "shaderbuild_dxil.viewid",
         # counted-loop analysis for [unroll] loops; DXIL's dominator trees for --validate's SSA check (and ViewID)
         "shaderbuild.ir.loops", "shaderbuild_dxil.ctrldep",
         # (sixth pass) the unroll pass for [unroll] loops only; the shared polyfills for a call of one only; the
         # standalone root-signature compile for -T rootsig_1_x only; DXIL's intrinsic handlers for a shader that
         # calls an intrinsic (this one calls none)
         "shaderbuild.passes.unroll", "shaderbuild.passes.polyfill", "shaderbuild.rootsig.standalone",
         "shaderbuild_dxil.intrinsics",
         # SPIR-V's resource methods (Sample, Load, GetDimensions...): the intrinsic table's first miss loads them
         "shaderbuild_spirv.resource_ops",
         # (seventh pass) DXIL's retail container hash, for --dxil-hash retail only
         "shaderbuild_dxil.hash"}
OTHER_BACKEND_ALLOWED = {
    # the entry point registers the backend; its capabilities (and the modules they need) are built on
    # first use, by a compile for that target
    "spirv": {"shaderbuild_dxil", "shaderbuild_dxil.plugin"},
    "dxil": {"shaderbuild_spirv", "shaderbuild_spirv.plugin"},
}
OWN = ("shaderbuild", "shaderbuild_spirv", "shaderbuild_dxil")
# ms of CPU for the import of our own packages (self times summed); quiet machine with a bytecode
# cache, 2026-11-27: ~16 (SPIR-V) and ~28 (DXIL); at load ~10 (2026-11-28) 76 and 116
LOOSE_MS = {"spirv": 250, "dxil": 400}
# The two costs of a cold compile that grow with the code on its path, counted (no noise): each module of
# ours costs ~0.28 M instructions of import machinery before its body runs, each class ~0.1 M (CPython fixes
# up ~95 slots along its MRO), of ~165 M (SPIR-V) / ~185 M (DXIL) for the whole process (bench/README.md,
# cold seventh pass).  Counted on this compute compile on 2026-11-28: SPIR-V 89 modules and 210 classes,
# DXIL 101 and 267 (102 before hash.py left the default path); a few to spare.  A new module or class on every compile path raises these on purpose.
OWN_MODULES = {"spirv": 92, "dxil": 104}
OWN_CLASSES = {"spirv": 215, "dxil": 272}


def _cold_compile(tmp_path: Path, target: str, source: str = CS, profile: str = "cs_6_0",
                  counts: dict | None = None) -> tuple[set[str], float]:
    (tmp_path / "cs.hlsl").write_text(source)
    (tmp_path / "drv.py").write_text(DRIVER)
    flags = ["-spirv"] if target == "spirv" else []
    # a user cache of the test's own, filled by an untimed first compile (as any earlier compile on a machine
    # would): a missing or stale entry-point cache makes a compile discover plugins with importlib.metadata
    # (the suite's SHADERBUILD_VALIDATE self-checks are not what a user's compile runs: DXIL's SSA check)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "SHADERBUILD_VALIDATE")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    args = ["drv.py", "compile", "cs.hlsl", "-T", profile, *flags, "-o", "cs.out"]
    subprocess.run([sys.executable, *args], cwd=tmp_path, capture_output=True, timeout=120, env=env, check=True)
    proc = subprocess.run([sys.executable, "-X", "importtime", *args], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, env=env)
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["status"] == 0, proc.stderr[-2000:]
    own_us = 0
    for line in proc.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)", line)
        if m and m[2].split(".")[0] in OWN:
            own_us += int(m[1])
    assert not out["compiled"], f"Record __init__s compiled at run time (regenerate _record_inits.py): {out['compiled']}"
    if counts is not None:
        counts["classes"] = out["classes"]
    return set(out["modules"]), own_us / 1000


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_cold_compile_imports_only_its_path(tmp_path, target):
    counts: dict = {}
    modules, own_ms = _cold_compile(tmp_path, target, counts=counts)
    assert (tmp_path / "cs.out").stat().st_size > 0
    assert not modules & NEVER, sorted(modules & NEVER)
    other = "shaderbuild_dxil" if target == "spirv" else "shaderbuild_spirv"
    theirs = {m for m in modules if m.split(".")[0] == other}
    assert theirs <= OTHER_BACKEND_ALLOWED[target], sorted(theirs - OTHER_BACKEND_ALLOWED[target])
    mine = "shaderbuild_spirv" if target == "spirv" else "shaderbuild_dxil"
    assert f"{mine}.plugin" in modules and len({m for m in modules if m.startswith(mine + ".")}) > 5
    assert own_ms < LOOSE_MS[target], f"importing shaderbuild for a {target} compile took {own_ms:.0f} ms"
    own = {m for m in modules if m.split(".")[0] in OWN}
    assert len(own) <= OWN_MODULES[target], f"{len(own)} modules of ours on the {target} compute path"
    assert counts["classes"] <= OWN_CLASSES[target], f"{counts['classes']} classes of ours on the {target} path"


# a vertex shader with intrinsics (SPIR-V's intrinsics.py) and a root signature (rootsig/)
VS = """#define RS "RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT), CBV(b0)"
cbuffer C : register(b0) { float4x4 M; };
[RootSignature(RS)]
float4 main(float3 p : POSITION) : SV_Position { return normalize(mul(M, float4(p, 1))); }
"""
# never imported by a compile of any shader (the NEVER set above also lists stage-specific modules)
HEAVY = {"pluggy", "inspect", "ast", "dis", "tokenize", "dataclasses", "argparse", "hashlib", "_hashlib",
         "importlib.metadata", "json", "typing", "contextlib", "re", "enum", "functools", "collections"}


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_graphics_compile_with_root_signature_imports_no_heavy_module(tmp_path, target):
    modules, _ = _cold_compile(tmp_path, target, VS, "vs_6_0")
    assert "shaderbuild.rootsig.shader" in modules and not modules & HEAVY, sorted(modules & HEAVY)
    if target == "spirv":       # intrinsics (normalize, mul) but no resource method: their lowerings stay unloaded
        assert "shaderbuild_spirv.intrinsics" in modules and "shaderbuild_spirv.resource_ops" not in modules


# what `import shaderbuild.cli` may add to a fresh interpreter's modules
CLI_IMPORTS = {"shaderbuild", "shaderbuild.cli", "__future__", "gc"}


def test_cli_import_is_light():
    """The console script imports shaderbuild.cli before main() turns the cyclic collector off for a
    compile: importing `re` there (with enum, functools, collections) made the collector run five
    times first (~1 ms of a cold compile).  Run without `site` (-S), whose editable-install finders
    would import `re` themselves (it imports `os`, as site does), with this checkout first on the path."""
    root = str(Path(__file__).resolve().parents[2])
    code = (f"import os, sys; sys.path.insert(0, {root!r}); before = set(sys.modules); import shaderbuild.cli; "
            "print(' '.join(sorted(set(sys.modules) - before)))")
    proc = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60, check=True)
    new = set(proc.stdout.split())
    assert "shaderbuild.cli" in new and new <= CLI_IMPORTS, sorted(new - CLI_IMPORTS)


# a template, an [unroll] loop, resource methods and intrinsics DXIL polyfills (smoothstep, fmod, log10):
# each module the compute compile above must not import is loaded here, from a fresh process, by its first use
FEATURES = """template<typename T> T twice(T v) { return v + v; }
RWStructuredBuffer<float4> Out : register(u0);
Texture2D<float4> Tex : register(t1);
[numthreads(8, 1, 1)] void main(uint3 id : SV_DispatchThreadID) {
    float4 acc = 0;
    [unroll] for (int i = 0; i < 4; i++) acc += Tex.Load(int3(id.x + i, 0, 0));
    acc.x += smoothstep(0.0, 1.0, twice(acc.w)) + fmod(acc.y, 3.0) + log10(acc.z + 2.0);
    Out[id.x] = acc;
}
"""
FIRST_USE = {"spirv": {"shaderbuild.passes.unroll", "shaderbuild_spirv.resource_ops"},
             "dxil": {"shaderbuild.passes.unroll", "shaderbuild.passes.polyfill",
                      "shaderbuild_dxil.intrinsics"}}


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_modules_load_on_first_use(tmp_path, target):
    modules, _ = _cold_compile(tmp_path, target, FEATURES)
    assert (tmp_path / "cs.out").stat().st_size > 0
    assert FIRST_USE[target] <= modules, sorted(FIRST_USE[target] - modules)
