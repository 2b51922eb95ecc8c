"""CI-sized fuzzing (tests/fuzz): generated well-typed programs and mutated test shaders.

Property: every compile either succeeds with a binary that passes spirv-val / obj2yaml-19 +
llvm-bcanalyzer-19 (all validated here, unlike the long campaign), or fails with located
error diagnostics; no internal compiler error, no escaped exception, no worker crash, no hang.

* test_generated_programs_hypothesis: hypothesis drives the generator in-process (derandomized,
  so CI is reproducible) and shrinks a failing program to a small one.
* test_generated_batch / test_mutated_batch: fixed seeded batches through the subprocess pool
  with a per-input timeout, as the campaign runs them.
* test_cli_exit_status: the command line on mutated inputs exits 0 or 1, never a traceback.

Known findings that already have a strict-xfail regression test (test_fuzz_regressions.py)
are tolerated here by signature, so one open bug does not hide new ones; delete a KNOWN entry
when its fix lands.
"""

from __future__ import annotations

import random
import re
import signal
import subprocess
import sys

import pytest
from harness.tools import require_tool
from hypothesis import HealthCheck, given, settings

from fuzz import campaign, hlsl_gen, mutators
from fuzz.outcome import Outcome
from fuzz.runner import FuzzInput, run_inputs
from fuzz.worker import compile_one

pytestmark = [pytest.mark.spirv_tools, pytest.mark.llvm]

SEED = 20261121
GENERATED = 400          # programs, each for both backends, all validated
MUTATED = 5000           # mutated inputs (a third mutate generated programs), all validated
HYPOTHESIS_EXAMPLES = 200
TIMEOUT = 30.0           # per input, in the pool

# signature pattern -> the regression test that tracks it (remove when fixed)
KNOWN: dict[str, str] = {}
_KNOWN = [re.compile(p) for p in KNOWN]


@pytest.fixture(scope="module", autouse=True)
def _tools() -> None:
    for tool in ("spirv-val", "obj2yaml-19", "llvm-bcanalyzer-19"):
        require_tool(tool)


def unexpected(outcomes: list[Outcome]) -> list[Outcome]:
    """Findings no KNOWN pattern names; a pattern reads the signature and the detail's second line (a
    validator's complaint, which the signature's first line does not hold)."""
    return [o for o in outcomes if not o.acceptable and not any(
        k.search(o.signature + "\n" + "".join(o.detail.splitlines()[1:2])) for k in _KNOWN)]


def describe(bad: list[tuple[FuzzInput, Outcome]]) -> str:
    return "\n".join(f"{o.cls} [{o.target}] {job.origin}: {o.detail[:500]}\n--- input ---\n"
                     f"{job.data[:3000].decode(errors='replace')}" for job, o in bad[:5])


def run_batch(inputs: list[FuzzInput]) -> None:
    results = run_inputs(inputs, jobs=2, timeout=TIMEOUT)
    assert len(results) == len(inputs)
    bad = [(job, o) for job, outs in results for o in unexpected(outs)]
    assert not bad, f"{len(bad)} findings:\n{describe(bad)}"


class _Alarm(Exception):
    pass


def _on_alarm(_sig, _frame):
    raise _Alarm("per-input timeout")


@settings(max_examples=HYPOTHESIS_EXAMPLES, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(prog=hlsl_gen.programs())
def test_generated_programs_hypothesis(prog: hlsl_gen.Program, tmp_path_factory) -> None:
    """Generated programs are well typed: both backends must compile them to valid binaries."""
    workdir = str(tmp_path_factory.getbasetemp())
    old = signal.signal(signal.SIGALRM, _on_alarm)
    try:
        for target in ("spirv", "dxil"):
            signal.setitimer(signal.ITIMER_REAL, TIMEOUT)
            try:
                out = compile_one(prog.source.encode(), "gen.hlsl", target, True, {}, workdir)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            assert out.cls == "ok", f"{target}: {out.cls}: {out.detail}\n--- program ---\n{prog.source}"
    finally:
        signal.signal(signal.SIGALRM, old)


def test_generated_batch() -> None:
    inputs = list(campaign.make_inputs(GENERATED, SEED, validate_fraction=1.0, gen_fraction=1.0))
    run_batch(inputs)


def test_mutated_batch() -> None:
    inputs = list(campaign.make_inputs(MUTATED, SEED + 1, validate_fraction=1.0, gen_fraction=0.0))
    assert len({job.data for job in inputs}) > MUTATED * 0.9, "mutations should be mostly distinct"
    run_batch(inputs)


def test_every_mutator_changes_its_input() -> None:
    """Each mutator does something on a real seed (a no-op mutator would test nothing)."""
    seed = max(mutators.load_seeds(), key=lambda s: len(s.data))
    for name, fn in mutators.MUTATORS.items():
        changed = sum(fn(random.Random(k), seed.data) != seed.data for k in range(20))
        assert changed >= 15, f"mutator {name} changed only {changed}/20 inputs"


def test_generated_programs_are_diverse() -> None:
    """The generator reaches every construct it promises (guards against a silently narrow generator)."""
    text = "\n".join(hlsl_gen.generate(random.Random(k)).source for k in range(200))
    for construct in ("for (", "while (", "do {", "switch (", "inout ", "out ", "static const", "? ",
                      "<<", "%", ".xy", "(int", "(uint", "(float", "float4", "uint3", "int2", "clamp(",
                      "RWStructuredBuffer<", "break;", "continue;", "else"):
        assert construct in text, f"generator never produced {construct!r}"


def test_runner_reports_hang_and_crash(monkeypatch) -> None:
    """The pool turns a hang (twice: the retry in a fresh worker hangs too) into 'hang' and a dead
    worker into 'crash', then carries on."""
    import fuzz.runner as runner

    monkeypatch.setattr(runner, "_BOOT", runner._BOOT.replace(
        "main()", "import fuzz.worker as w; orig = w.compile_one; "
                  "w.compile_one = lambda d, *a: __import__('time').sleep(60) if d == b'HANG' else "
                  "(__import__('os')._exit(3) if d == b'CRASH' else orig(d, *a)); main()"))
    ok = b"RWStructuredBuffer<uint> O : register(u0);\n[numthreads(1,1,1)] void main() { O[0] = 1; }\n"
    inputs = [FuzzInput(f"{k}.hlsl", d, k) for k, d in (("hang", b"HANG"), ("crash", b"CRASH"), ("ok", ok))]
    results = {job.origin: [o.cls for o in outs] for job, outs in run_inputs(inputs, jobs=2, timeout=1.5)}
    assert results == {"hang": ["hang", "hang"], "crash": ["crash", "crash"], "ok": ["ok", "ok"]}


def test_cli_exit_status(tmp_path) -> None:
    """`shaderbuild compile` on mutated inputs: exit 0 with an output, or 1 with 'path:line:col: error'."""
    rng = random.Random(SEED)
    seeds = mutators.load_seeds()
    for k in range(12):
        seed = rng.choice(seeds)
        data, applied = mutators.mutate(rng, seed.data)
        src = tmp_path / f"m{k}.hlsl"
        src.write_bytes(data)
        out = tmp_path / f"m{k}.bin"
        args = [sys.executable, "-m", "shaderbuild", "compile", "-T", "cs_6_0", "-spirv", str(src), "-o", str(out)]
        for d in seed.include_dirs:
            args += ["-I", d]
        proc = subprocess.run(args, capture_output=True, text=True, timeout=120)
        assert "Traceback" not in proc.stderr and "internal compiler error" not in proc.stderr, proc.stderr
        assert proc.returncode in (0, 1), (applied, proc.returncode, proc.stderr)
        if proc.returncode == 0:
            assert out.stat().st_size > 0
        else:
            assert not out.exists()
            assert re.search(r":\d+:\d+: error: ", proc.stderr), proc.stderr


def test_known_findings_have_open_regression_tests() -> None:
    """Every tolerated finding is tracked by a still-open strict xfail in test_fuzz_regressions;
    once its bug is fixed (the xfail removed) this fails until the KNOWN entry goes too."""
    from fuzz import test_fuzz_regressions as reg

    open_ids = {(name, target) for name, _d, _f, bug in reg.REGRESSIONS for target in reg.TARGETS
                if reg._open_bug(bug, target)}
    for pattern, test_id in KNOWN.items():
        m = re.match(r"test_fuzz_regression\[(\w+)-(\*|spirv|dxil)\]$", test_id)
        assert m, test_id
        name, target = m.groups()
        targets = reg.TARGETS if target == "*" else (target,)
        assert any((name, t) in open_ids for t in targets), f"{pattern!r}: {test_id} is not an open regression"


RESOURCE_INPUTS = 60     # special files, huge includes, deep nesting (issue 21), both backends, validated


def test_resource_limit_batch(tmp_path) -> None:
    """Special files, huge includes and deep nesting: a valid binary or a located error, never a
    hang, crash or traceback (the pool's per-input timeout and 3 GB worker limit apply)."""
    from fuzz import resources

    inputs = list(resources.make_inputs(RESOURCE_INPUTS, SEED, tmp_path / "scratch"))
    kinds = {job.origin.split()[1] for job in inputs}
    assert kinds == set(resources.GENERATORS)
    run_batch(inputs)


def test_resource_generators_reach_past_every_limit(tmp_path) -> None:
    """The batch is only meaningful if it crosses the limits it targets."""
    from fuzz import resources

    labels = [job.origin.split()[2] for job in resources.make_inputs(300, SEED, tmp_path / "scratch")]
    depths = [int(lbl.rsplit("_", 1)[1]) for lbl in labels if lbl.rsplit("_", 1)[-1].isdigit()
              and not lbl.startswith(("big", "identifier"))]
    assert max(depths) > 1000 and min(depths) < 128
    assert {"fifo", "dir", "zero", "urandom"} <= set(labels)
    assert "self_include" in labels and any(lbl.startswith("identifier_3") for lbl in labels)


# ---------------------------------------------------------------- grammar-aware mutators, stage seeds

SMALL = (b"struct S { float4 p : SV_Position; int n; };\n"
         b"RWStructuredBuffer<int> O : register(u3);\nTexture2D<float4> T : register(t1, space2);\n"
         b"static const uint K = 7;\n"
         b"[numthreads(4, 2, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) { O[id.x] = int(K) + 1; }\n")


def _diff_tokens(a: bytes, b: bytes) -> tuple[list[bytes], list[bytes]]:
    """The differing middle of two token lists (what a one-place edit replaced, and by what)."""
    ta, tb = mutators._tokens(a), mutators._tokens(b)
    i = 0
    while i < min(len(ta), len(tb)) and ta[i] == tb[i]:
        i += 1
    j = 0
    while j < min(len(ta), len(tb)) - i and ta[-1 - j] == tb[-1 - j]:
        j += 1
    return ta[i:len(ta) - j], tb[i:len(tb) - j]


def test_swap_type_replaces_one_type_by_another() -> None:
    for k in range(30):
        old, new = _diff_tokens(SMALL, mutators.swap_type(random.Random(k), SMALL))
        assert len(old) == 1 and old[0] in mutators._TYPE_TOKENS, (k, old, new)
        assert b"".join(new) in mutators.TYPES and b"".join(new) != old[0], (k, old, new)


def test_literal_to_identifier_puts_a_name_where_a_number_was() -> None:
    names = {t for t in mutators._tokens(SMALL) if t[:1].isalpha() or t[:1] == b"_"} | {b"undeclared_name"}
    for k in range(30):
        old, new = _diff_tokens(SMALL, mutators.literal_to_identifier(random.Random(k), SMALL))
        assert len(old) == 1 and old[0].isdigit() and len(new) == 1 and new[0] in names, (k, old, new)


def test_template_argument_edits_one_argument_list() -> None:
    lists = {m.group(0) for m in mutators._TEMPLATE_ARGS.finditer(SMALL)}
    kinds = set()
    for k in range(60):
        out = mutators.template_argument(random.Random(k), SMALL)
        edited = [m.group(0) for m in mutators._TEMPLATE_ARGS.finditer(out) if m.group(0) not in lists]
        assert len(edited) == 1, (k, out)
        n = len(mutators._split_args(edited[0].split(b"<", 1)[1][:-1]))
        kinds.add("dropped" if n == 0 else "more" if n > 1 else "one")
    assert kinds == {"dropped", "more", "one"}


def test_attribute_argument_changes_the_attribute() -> None:
    seen = set()
    for k in range(60):
        out = mutators.attribute_argument(random.Random(k), SMALL)
        attrs = re.findall(rb"\[numthreads\(([^)]*)\)\]", out)
        seen.add(len(attrs))
        assert out != SMALL and (len(attrs) != 1 or attrs[0] != b"4, 2, 1"), (k, out)
        assert out.count(b"void main") == 1 and b"SV_DispatchThreadID" in out
    assert seen == {0, 1, 2}, "drop, edit and duplicate the attribute"


def test_semantic_edits_one_semantic_and_keeps_registers() -> None:
    for k in range(40):
        out = mutators.semantic(random.Random(k), SMALL)
        assert out != SMALL, k
        assert out.count(b"register(") == 2, (k, out)
        sems = re.findall(rb":\s*(\w+)", out)
        assert [s for s in sems if s != b"register"] != [b"SV_Position", b"SV_DispatchThreadID"], (k, out)


def test_register_edits_one_binding() -> None:
    for k in range(40):
        out = mutators.register(random.Random(k), SMALL)
        assert out != SMALL and out.count(b"void main") == 1, k
        regs = re.findall(rb"register\([^)]*\)", out)
        assert regs != [b"register(u3)", b"register(t1, space2)"], (k, out)


def test_nest_declaration_wraps_one_top_level_declaration() -> None:
    toks = mutators._tokens(SMALL)
    items = [b"".join(toks[i:j + 1]) for i, j in mutators._top_level_items(toks)]
    assert len(items) == 5 and items[0].startswith(b"struct S") and items[-1].endswith(b"+ 1; }")
    wrappers = [(b"namespace Nz {\n", b"\n}\n"), (b"struct Wz {\n", b"\n};\n"),
                (b"namespace Nz { namespace Ny {\n", b"\n} }\n"), (b"cbuffer CBz {\n", b"\n};\n")]
    for k in range(30):
        out = mutators.nest_declaration(random.Random(k), SMALL)
        inner = [out.split(o, 1)[1].split(c, 1)[0] for o, c in wrappers if o in out]
        assert len(inner) == 1 and inner[0] in items, (k, out)
        assert any(out.replace(o, b"", 1).replace(c, b"", 1) == SMALL for o, c in wrappers), (k, out)


@pytest.mark.parametrize(("text", "want"), [
    ('[shader("intersection")] void isect() { ReportHit(1.0, 0, A()); }', {"profile": "lib_6_5", "entry": "",
                                                                            "vk_target_env": "vulkan1.2"}),
    ("[outputtopology(\"triangle\")] [numthreads(8, 1, 1)] void ms_main(out vertices V v[3]) {}",
     {"profile": "ms_6_5", "entry": "ms_main", "vk_target_env": "vulkan1.2"}),
    ('[domain("tri")] [outputtopology("triangle_cw")] [outputcontrolpoints(3)] [patchconstantfunc("pc")]\n'
     "CP hull(InputPatch<CP, 3> p) { return p[0]; }", {"profile": "hs_6_0", "entry": "hull"}),
    ('[domain("tri")] float4 main(const OutputPatch<CP, 3> p) : SV_Position { return 0; }',
     {"profile": "ds_6_0"}),
    ("[maxvertexcount(3)] void gs(point V v[1], inout TriangleStream<V> s) {}", {"profile": "gs_6_0", "entry": "gs"}),
    ("[numthreads(1, 1, 1)] void main() {}", {"profile": "cs_6_0"}),
    ("float4 main(float4 p : SV_Position) : SV_Target { return p; }", {"profile": "ps_6_0"}),
    ("float4 main(uint v : SV_VertexID) : SV_Position { return v; }", {"profile": "vs_6_0"}),
    ("float4 shade(float4 p : SV_Position) : SV_Target { return p; }", None),   # no entry to name
    ("int helper(int x) { return x; }", None),
])
def test_stage_options_from_the_shader_text(text, want) -> None:
    assert mutators.stage_options(text) == want


def test_seeds_cover_every_stage_and_weigh_the_rare_ones() -> None:
    seeds = mutators.load_seeds()
    profiles = {dict(s.options).get("profile", "cs_6_0") for s in seeds}
    assert {"cs_6_0", "ps_6_0", "vs_6_0", "gs_6_0", "hs_6_0", "ds_6_0", "ms_6_5", "lib_6_5"} <= profiles
    assert any(s.name.startswith(("test_mesh_audit9", "test_rt_audit9")) and s.weight == 6 for s in seeds)
    job = next(j for j in campaign.make_inputs(400, SEED, gen_fraction=0.0) if j.options.get("profile") == "lib_6_5")
    assert job.options["entry"] == "" and job.options["vk_target_env"] == "vulkan1.2"


def test_spirv_validator_env_follows_the_module_version() -> None:
    from fuzz.validate import spirv_env

    head = (0x07230203).to_bytes(4, "little")
    assert [spirv_env(head + (v << 8 | 0x10000).to_bytes(4, "little")) for v in (0, 3, 4, 5, 6)] == [
        "vulkan1.1", "vulkan1.1", "vulkan1.2", "vulkan1.2", "vulkan1.3"]


def test_grammar_mutations_are_a_share_of_the_campaign() -> None:
    """mutate_grammar applies grammar-aware mutators only, and the campaign stream uses it for a share of
    the seed mutations (which then compile more often than token-level mutants: they get past the parser)."""
    for k in range(20):
        out, applied = mutators.mutate_grammar(random.Random(k), SMALL)
        assert applied and set(applied) <= set(mutators.GRAMMAR) and out != SMALL, (k, applied)
    origins = [job.origin for job in campaign.make_inputs(300, SEED, gen_fraction=0.0)
               if not job.origin.startswith("mutate generated")]
    grammar = [o for o in origins if set(o.split("[")[1].split("]")[0].split(",")) <= set(mutators.GRAMMAR)]
    assert 0.15 * len(origins) < len(grammar) < 0.6 * len(origins)
