"""The SPIR-V optimiser (-O1..-O3, plugins/spirv/shaderbuild_spirv/opt): what it removes, what
it must leave for the device, that its output is valid, deterministic and executes as -O0's
(every executed test repeats its dispatches with the -O0 build: harness/vulkan_runner.py), and
its size against spirv-opt -O."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from harness import tools
from lang_util import run_cs

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

ROOT = Path(__file__).resolve().parents[2]


def _build(src: str, level: int, profile: str = "cs_6_0", entry: str = "main", **opts) -> bytes:
    res = compile_file("opt_test.hlsl", CompileOptions(entry=entry, profile=profile, target="spirv",
                                                       opt_level=level, **opts), text=src)
    assert res.ok, [d.message for d in res.diagnostics]
    tools.spirv_val(res.binary, opts.get("vk_target_env", "vulkan1.1"))
    return res.binary


def _body(binary: bytes) -> str:
    """The disassembly from the first function on."""
    dis = tools.spirv_dis(binary)
    return dis[dis.index(" OpFunction "):]


CALLS = """
RWStructuredBuffer<uint> Out : register(u0);
static uint Scale = 3;
uint sum_to(uint n, out uint last) {
    uint s = 0;
    for (uint i = 0; i < n; i++) { s += i * Scale; last = i; }
    return s;
}
[numthreads(4,1,1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint last = 0;
    float3 v = float3(id.x, 2, 3);
    v.y = v.x + v.z;
    Out[id.x] = sum_to(id.x + 2, last) + last * 100 + (uint)v.y * 1000;
}
"""


def _calls_want(x: int) -> int:
    n = x + 2
    return sum(i * 3 for i in range(n)) + (n - 1) * 100 + (x + 3) * 1000


def test_calls_locals_and_statics_become_values():
    o0, o3 = _build(CALLS, 0), _build(CALLS, 3)
    assert "OpFunctionCall" in _body(o0) and "OpFunctionCall" not in _body(o3)
    assert "Function\n" in _body(o0).replace(" Function ", " Function\n")
    body = _body(o3)
    assert "OpVariable" not in body and "OpStore %Scale" not in body, body
    assert "OpPhi" in body                                   # the loop's s and i
    assert len(o3) < len(o0)
    got = run_cs(CALLS, {"Out": ("uint", 4)})                 # runs the -O0 build too
    assert got["Out"] == [_calls_want(x) for x in range(4)]


FOLDS = """
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(1,1,1)]
void main() {
    uint seven = 7, zero = 0;
    int n7 = -7, imin = -2147483647 - 1, m1 = -1;
    float a = 0.1, b = 0.2, big = 3e9;
    Out[0] = seven / 2;
    Out[1] = (uint)(n7 / 2);
    Out[2] = (uint)(n7 % 2);
    Out[3] = seven << 33;
    Out[4] = asuint(a + b);
    Out[5] = seven * 0 + seven;
    Out[6] = seven / zero;
    Out[7] = seven % zero;
    Out[8] = (uint)(imin / m1);
    Out[9] = (uint)(int)big;
}
"""


def test_folding_folds_exact_cases():
    body = _body(_build(FOLDS, 3))
    # folded: the exact integer and float cases
    for op in ("OpShiftLeftLogical", "OpFAdd", "OpIMul"):
        assert op not in body, f"{op} not folded:\n{body}"


def test_folded_values_execute_as_unfolded():
    """Every value at -O3 (the harness reruns each dispatch at -O0 and requires the same bytes),
    including the cases SPIR-V leaves undefined, which follow D3D's rules (docs/CONFORMANCE.md):
    unsigned x / 0 and x % 0 give 0xFFFFFFFF, INT_MIN / -1 gives INT_MIN, and an out-of-range
    float -> int conversion saturates.  Expected values: C semantics of 32-bit integers and IEEE
    float32 (0.1f + 0.2f == 0.3f), and those rules, written out by hand."""
    got = run_cs(FOLDS, {"Out": ("uint", 10)})
    assert got["Out"] == [3, 0xFFFFFFFD, 0xFFFFFFFF, 14, struct.unpack("<I", struct.pack("<f", 0.3))[0], 7,
                          0xFFFFFFFF, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF]


DYNAMIC = """
RWStructuredBuffer<float> Out : register(u0);
[numthreads(4,1,1)]
void main(uint3 id : SV_DispatchThreadID) {
    float t[4] = { 1.5, 2.5, 3.5, 4.5 };
    t[id.x] *= 2;
    Out[id.x] = t[id.x] + t[(id.x + 1) & 3];
}
"""


def test_dynamically_indexed_local_stays_in_memory():
    body = _body(_build(DYNAMIC, 3))
    assert "OpVariable" in body
    got = run_cs(DYNAMIC, {"Out": ("float", 4)})
    t = [1.5, 2.5, 3.5, 4.5]
    assert got["Out"] == [t[i] * 2 + t[(i + 1) & 3] for i in range(4)]


def test_unroll_makes_indices_constant():
    src = """
    RWStructuredBuffer<uint> Out : register(u0);
    [numthreads(1,1,1)]
    void main(uint3 id : SV_DispatchThreadID) {
        uint v[3] = { 5, 6, 7 };
        uint s = 0;
        [unroll] for (uint i = 0; i < 3; i++) { s += v[i] * (id.x + i); }
        Out[0] = s;
    }
    """
    body = _body(_build(src, 3))
    assert "OpLoopMerge" not in body and "OpVariable" not in body, body
    assert run_cs(src, {"Out": ("uint", 1)})["Out"] == [5 * 0 + 6 * 1 + 7 * 2]


def test_levels_and_determinism():
    src = (ROOT / "sample_project/shaders/forward/forward_lit.hlsl").read_text()
    opts = dict(profile="ps_6_0", entry="ps_main", include_dirs=[str(ROOT / "sample_project/shaders")],
                defines={"NORMAL_MAP": "1", "SHADOWS": "1", "ALPHA_TEST": "1"},
                binding_shifts=[])
    from shaderbuild.options import BindingShift
    opts["binding_shifts"] = [BindingShift(c, n, None) for c, n in (("t", 16), ("s", 32), ("u", 48))]
    sizes = [len(_build(src, level, **opts)) for level in range(4)]
    assert sizes[0] > sizes[1] >= sizes[2] >= sizes[3], sizes
    assert _build(src, 3, **opts) == _build(src, 3, **opts)
    assert CompileOptions().opt_level == 3


def test_against_spirv_opt():
    """-O3 of the sample PBR pixel shader within 1.15x of spirv-opt -O on our -O0 output (keeping
    bindings, as we do: the manifest lists every declared resource)."""
    tools.require_tool("spirv-opt")
    src = (ROOT / "sample_project/shaders/forward/forward_lit.hlsl").read_text()
    from shaderbuild.options import BindingShift
    opts = dict(profile="ps_6_0", entry="ps_main", include_dirs=[str(ROOT / "sample_project/shaders")],
                defines={"NORMAL_MAP": "1", "SHADOWS": "1", "ALPHA_TEST": "1"},
                binding_shifts=[BindingShift(c, n, None) for c, n in (("t", 16), ("s", 32), ("u", 48))])
    o0, o3 = _build(src, 0, **opts), _build(src, 3, **opts)
    with tempfile.TemporaryDirectory() as d:
        src_path, out = os.path.join(d, "in.spv"), os.path.join(d, "out.spv")
        Path(src_path).write_bytes(o0)
        tools.run_tool(["spirv-opt", "-O", "--preserve-bindings", src_path, "-o", out])
        ref = Path(out).read_bytes()
    assert len(o3) <= 1.15 * len(ref), (len(o3), len(ref))


@pytest.mark.parametrize("flag,level", [("-O0", 0), ("-Od", 0), ("-O1", 1), ("-O3", 3)])
def test_cli_flags(tmp_path, flag, level):
    (tmp_path / "s.hlsl").write_text(CALLS)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = tmp_path / "s.spv"
    proc = subprocess.run([sys.executable, "-m", "shaderbuild", "compile", "s.hlsl", "-T", "cs_6_0", "-spirv",
                           flag, "-o", str(out)], cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes() == _build(CALLS, level)


TERNARY = """
RWStructuredBuffer<int> Out : register(u0);
[numthreads(4,1,1)]
void main(uint3 id : SV_DispatchThreadID) {
    int s = (id.x > 1) ? 10 : 20;
    int3 v = (id.x & 1) ? int3(1, 2, 3) : int3(4, 5, 6);
    Out[id.x] = s + v.x * 100 + v.z * 1000;
}
"""


@pytest.mark.parametrize("env", ["vulkan1.1", "vulkan1.3"])
def test_empty_diamonds_become_selects(env):
    body = _body(_build(TERNARY, 3, vk_target_env=env))
    # the scalar ternary is always a select; the vector one only from SPIR-V 1.4 (vulkan1.2 and up),
    # where a scalar condition may select vectors
    assert body.count(" OpSelect ") == (1 if env == "vulkan1.1" else 2), body
    assert body.count("OpBranchConditional") == (1 if env == "vulkan1.1" else 0), body
    if env == "vulkan1.1":
        got = run_cs(TERNARY, {"Out": ("int", 4)})["Out"]
        assert got == [(10 if x > 1 else 20) + (1 if x & 1 else 4) * 100 + (3 if x & 1 else 6) * 1000
                       for x in range(4)]


def test_debug_info_keeps_the_code_as_written():
    # -Zi describes every source function and statement (no inlined scopes): the passes run as at -Od
    body = _body(_build(CALLS, 3, debug_info=True))
    assert "OpFunctionCall" in body and "OpLoopMerge" in body


INSERTS = """
struct P { float e[3]; uint b; };
RWStructuredBuffer<P> Out : register(u0);
[numthreads(4,1,1)]
void main(uint3 id : SV_DispatchThreadID) {
    P p;
    p.b = id.x * 3;
    p.e[1] = 1.5;
    p.e[0] = id.x + 0.25;
    p.e[2] = id.x;
    Out[id.x] = p;
}
"""


def test_complete_insert_chain_becomes_one_construct(monkeypatch):
    from shaderbuild_spirv.opt import simplify
    body = _body(_build(INSERTS, 3))
    assert "OpCompositeInsert" not in body, body
    small = len(_build(INSERTS, 3))
    monkeypatch.setattr(simplify, "insert_chains", lambda f, info: False)
    without = _build(INSERTS, 3)
    assert "OpCompositeInsert" in _body(without)
    assert small < len(without)
    got = run_cs(INSERTS, {"Out": ("uint", 16)})       # -O3, then repeated at -O0 by the harness
    f = lambda v: struct.unpack("<I", struct.pack("<f", v))[0]    # noqa: E731
    assert got["Out"] == [w for x in range(4) for w in (f(x + 0.25), f(1.5), f(float(x)), 3 * x)]


SHUFFLED = """
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(4,1,1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint4 v = uint4(id.x, id.x * 2, id.x * 3, 7);
    uint2 t = v.wy;
    Out[id.x] = t.x * 10 + t.y;
}
"""


def test_extract_looks_through_a_shuffle():
    body = _body(_build(SHUFFLED, 3))
    assert "OpVectorShuffle" not in body and "OpCompositeConstruct" not in body, body
    got = run_cs(SHUFFLED, {"Out": ("uint", 4)})       # -O3, then repeated at -O0 by the harness
    assert got["Out"] == [70 + 2 * x for x in range(4)]


REORDERED = """
RWStructuredBuffer<uint4> Out : register(u0);
[numthreads(4,1,1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint4 v = Out[id.x];
    uint3 n = uint3(v.z, v.y, v.x);
    Out[id.x] = uint4(n * 2, 9);
}
"""


def test_construct_of_another_vectors_components_is_a_shuffle():
    import re
    body = _body(_build(REORDERED, 3))
    assert re.search(r"OpVectorShuffle %v3uint %\d+ %\d+ 2 1 0\n", body) and "OpCompositeConstruct %v3uint" not in body, body
    start = list(range(1, 17))
    got = run_cs(REORDERED, {"Out": ("uint", start)})
    assert got["Out"] == [w for x in range(4) for w in (2 * start[4 * x + 2], 2 * start[4 * x + 1], 2 * start[4 * x], 9)]


WIDE = """
RWStructuredBuffer<int> Out : register(u0);
[numthreads(1,1,1)]
void main() {
    double d = 1.0 / 4.0;
    Out[0] = (int)((d - 0.125l) * 64.0l);              // 8
    int64_t a = -2147483648;
    Out[1] = (int)(a >> 32) * 10 + (int)(a < 0);        // -9
    uint64_t g = -1;
    Out[2] = (int)(g >> 60);                            // 15
    Out[3] = (int)(asdouble(0u, 0x3FF00000u) * 3.0l);  // 3
    float f = 2.5;
    Out[4] = (int)(f * 1.0 * 4.0) + (int)isnan(f) + (int)isinf(f);   // 10
}
"""


def test_64_bit_and_double_constants_fold():
    """64-bit integer and double arithmetic, width conversions, bitcasts of constant
    composites and isnan/isinf of finite constants fold; every store is then a constant."""
    body = _body(_build(WIDE, 3))
    for op in ("OpFSub", "OpFMul", "OpShiftRightArithmetic", "OpShiftRightLogical", "OpSConvert",
               "OpBitcast", "OpIsNan", "OpIsInf", "OpConvertFToS"):
        assert op not in body, (op, body)
    got = run_cs(WIDE, {"Out": ("int", 5)})          # -O3, then repeated at -O0 by the harness
    assert got["Out"] == [8, -9, 15, 3, 10]


CONST_BRANCHES = """
RWStructuredBuffer<int> Out : register(u0);
StructuredBuffer<int> In : register(t1);
static const bool kFast = false;
int Pick(int x) { switch (x) { case 0: return 1; default: return 2; } }
int Spin(int x) { for (;;) { if (x > 0) return 7; x++; } }
[numthreads(1,1,1)]
void main() {
    int v = In[0];
    if (kFast) { Out[3] = 99; } else { v += 1; }
    Out[0] = v;
    Out[1] = Pick(In[1]);
    Out[2] = Spin(In[2]);
}
"""


def test_constant_branches_run_once_loops_and_dead_loops_go():
    """A branch on a constant takes its target (the other arm goes); an inlined callee's
    run-once loop stops being a loop; a loop computing nothing used later goes."""
    o0, o3 = _build(CONST_BRANCHES, 0), _build(CONST_BRANCHES, 3)
    body = _body(o3)
    assert "OpLoopMerge" in _body(o0)
    assert "OpLoopMerge" not in body and "OpBranchConditional" not in body, body
    assert "%int_99" not in tools.spirv_dis(o3)
    got = run_cs(CONST_BRANCHES, {"Out": ("int", [0, 0, 0, 0])}, inputs={"In": ("int", [4, 0, -3])})
    assert got["Out"] == [5, 1, 7, 0]


PRECISE_CSE = """
RWStructuredBuffer<float> Out : register(u0);
StructuredBuffer<int> In : register(t1);
[numthreads(1,1,1)]
void main() {
    int v = In[0];
    Out[0] = (float)v;
    Out[1] = (float)v;
    int w = In[1];
    precise float p = (float)w * 3.0;
    Out[2] = p;
    Out[3] = (float)w * 3.0;
}
"""


def test_cse_merges_equal_no_contraction_values_only_with_each_other():
    """Two equal int->float conversions (NoContraction: they may round) become one that keeps the
    decoration; a `precise` product is not merged with the plain product of the same operands."""
    dis = _body(_build(PRECISE_CSE, 3))
    full = tools.spirv_dis(_build(PRECISE_CSE, 3))
    assert dis.count("OpConvertSToF") == 2, dis                  # v's once, w's once
    muls = [line.split("=")[0].strip() for line in dis.splitlines() if "OpFMul" in line]
    assert len(muls) == 2, dis                                    # the precise one and the plain one
    precise = [m for m in muls if f"OpDecorate {m} NoContraction" in full]
    assert len(precise) == 1, full
    for line in dis.splitlines():
        if "OpConvertSToF" in line:
            assert f"OpDecorate {line.split('=')[0].strip()} NoContraction" in full
    big = 16777217                                                 # rounds to 16777216 as a float
    got = run_cs(PRECISE_CSE, {"Out": ("float", 4)}, inputs={"In": ("int", [big, 5])})
    assert got["Out"] == [16777216.0, 16777216.0, 15.0, 15.0]


def test_loop_with_an_effect_stays():
    """A loop that stores stays, even when nothing reads its values afterwards."""
    src = """
RWStructuredBuffer<int> Out : register(u0);
[numthreads(1,1,1)]
void main() { for (int i = 0; i < Out[0]; i++) Out[1 + i] = i * 3; }
"""
    assert "OpLoopMerge" in _body(_build(src, 3))
    got = run_cs(src, {"Out": ("int", [3, 0, 0, 0, 0])})
    assert got["Out"] == [3, 0, 3, 6, 0]


def test_pure_loop_used_after_its_merge_block_stays_and_an_unused_one_goes():
    """_dead_loops: a loop with only pure instructions whose value is read past its merge block (inside
    a later `if`: found by the scan of the candidates' uses, not by the merge-block test) stays; a pure
    loop whose value nothing reads goes."""
    src = """
RWStructuredBuffer<int> Out : register(u0);
[numthreads(1,1,1)]
void main() {
    int s = 0;
    for (int i = 0; i < Out[0]; i++) s += i * 3;
    if (Out[1] > 0) Out[2] = s;
    int t = 0;
    for (int j = 0; j < Out[3]; j++) t += j;
    Out[4] = 1;
}
"""
    assert _body(_build(src, 0)).count("OpLoopMerge") == 2
    assert _body(_build(src, 3)).count("OpLoopMerge") == 1
    got = run_cs(src, {"Out": ("int", [3, 1, 0, 2, 0])})
    assert got["Out"] == [3, 1, sum(i * 3 for i in range(3)), 2, 1]


def test_layouts_looked_up_by_word_count_equal_the_decoded_ones():
    """opt/module.py reuses an instruction's layout for every instruction of its opcode and word
    count unless a word's value steered the decoding: each instruction of the sample project's
    -O0 modules (names, decorations, loop controls, memory operands...) gets from the shared
    table what the grammar decoding gives it alone."""
    from shaderbuild_spirv.opt import module as m

    from shaderbuild.build import load_project, plan

    root = Path(__file__).resolve().parents[2] / "sample_project"
    checked = set()
    for t in plan(load_project(str(root)), backends=["spirv"]):
        res = compile_file(t.source, t.options.replace(opt_level=0))
        assert res.ok
        words = struct.unpack(f"<{len(res.binary) // 4}I", res.binary)
        i = 5
        while i < len(words):
            n, op = words[i] >> 16, words[i] & 0xFFFF
            w = list(words[i + 1:i + n])
            assert m._layout(op, w) == m._decode_layout(op, w)[0], (op, w)
            checked.add(op)
            i += n
    assert len(checked) > 60


def _brute_dominators(succ: dict[int, list[int]], entry: int) -> dict[int, set[int]]:
    """Dominators by the definition: a dominates b when b cannot be reached from the entry
    once a is removed (independent of cfg.py's algorithm)."""
    def reach(skip: int | None) -> set[int]:
        seen, stack = set(), [entry]
        while stack:
            n = stack.pop()
            if n == skip or n in seen:
                continue
            seen.add(n)
            stack += succ[n]
        return seen
    everything = reach(None)
    return {b: {a for a in everything if a == b or b not in reach(a)} for b in everything}


@pytest.mark.parametrize("edges", [
    # structured: a loop with an if inside, exit after it
    {1: [2], 2: [3, 6], 3: [4, 5], 4: [5], 5: [2], 6: []},
    # irreducible: two blocks entered from the entry that branch to each other (one pass is not enough)
    {1: [2, 3], 2: [3, 4], 3: [2], 4: []},
    {1: [2, 5], 2: [3], 3: [4, 6], 4: [3, 2], 5: [4], 6: []},
])
def test_cfg_dominators_match_the_definition(edges):
    from shaderbuild_spirv.opt.cfg import CFG
    from shaderbuild_spirv.opt.module import Block, Function, Inst

    def term(targets: list[int]) -> Inst:
        if not targets:
            return Inst.make("OpReturn", [])
        if len(targets) == 1:
            return Inst.make("OpBranch", targets)
        return Inst.make("OpBranchConditional", [99, *targets])

    f = Function.__new__(Function)
    f.head, f.params = Inst.make("OpFunction", [1, 100, 0, 2]), []
    f.blocks = [Block(label, [term(out)]) for label, out in edges.items()]
    cfg = CFG(f)
    want = _brute_dominators(edges, 1)
    for b in want:
        assert {a for a in want if cfg.dominates(a, b)} == want[b], b


def _endless_inner_loop() -> str:
    """The reduced program of test_differential's never-taken-break test (shapes program 818)."""
    from fuzz.test_differential import NEVER_TAKEN_BREAK_OF_A_LOOP_NOT_ENTERED
    return NEVER_TAKEN_BREAK_OF_A_LOOP_NOT_ENTERED


@pytest.mark.parametrize("level", [1, 2, 3])
def test_a_loop_with_an_endless_inner_path_stays_a_loop(level):
    """Folding `if (false) break;` leaves the inner `while (true)` endless and the outer loop's continue
    target unreachable; the outer loop's one exit is a break from inside a selection whose merge is on the
    endless path.  flatten kept removing the outer loop (`_run_once_loops`), which turned that break into a
    branch out of the selection other than through its merge: spirv-val refused the -O1..-O3 module (a
    reduction of hunt9's shapes program 818).  No thread enters the loop (n = t - 4 < 0).  (The DXIL side is
    tests/fuzz/test_differential.py's test_a_never_taken_break_keeps_its_loop_from_becoming_endless.)"""
    src = _endless_inner_loop()
    _build(src, level)       # spirv-val
    want = [2 if t == 2 else 3 + t for t in range(4)]
    assert run_cs(src, {"Out": ("int", 4)}, check_dxil=False)["Out"] == want


# (HLSL comparison of the unknown x, Python's answer for every x): each compares against its type's least or
# greatest value, so each has one answer; `x > 2147483646` is the control that must stay
EXTREMES = {
    "x > 2147483647": lambda x, u: 0, "2147483647 < x": lambda x, u: 0, "x <= 2147483647": lambda x, u: 1,
    "2147483647 >= x": lambda x, u: 1, "x < (-2147483647 - 1)": lambda x, u: 0, "x >= (-2147483647 - 1)": lambda x, u: 1,
    "(-2147483647 - 1) > x": lambda x, u: 0, "(-2147483647 - 1) <= x": lambda x, u: 1,
    "u > 4294967295u": lambda x, u: 0, "u <= 4294967295u": lambda x, u: 1, "u < 0u": lambda x, u: 0,
    "0u <= u": lambda x, u: 1, "4294967295u >= u": lambda x, u: 1, "0u > u": lambda x, u: 0,
    "x > 2147483646": lambda x, u: int(x > 2147483646),
}


def test_comparisons_against_a_types_extremes_fold():
    """An ordered integer comparison against its type's least or greatest value has one answer for every x
    (lavapipe hangs compiling a loop that exits on `i > INT_MAX`, tests/fuzz/test_differential.py's
    test_a_loop_exit_on_a_counter_above_int_max); only the control keeps its comparison at -O3.  Run at -O3
    and -O0 (and as DXIL) over x at both ends and between; the answers are Python's."""
    xs = [-2147483648, -1, 0, 7, 2147483646, 2147483647]
    exprs = list(EXTREMES)
    src = ("StructuredBuffer<int> In : register(t1);\nRWStructuredBuffer<int> Out : register(u0);\n"
           f"[numthreads({len(xs)}, 1, 1)]\nvoid main(uint3 id : SV_DispatchThreadID) {{\n"
           "    int x = In[id.x];\n    uint u = (uint)x;\n"
           + "".join(f"    Out[id.x * {len(exprs)} + {k}] = ({e}) ? 1 : 0;\n" for k, e in enumerate(exprs)) + "}\n")
    body = _body(_build(src, 3))
    compares = [ln for ln in body.splitlines() if "GreaterThan" in ln or "LessThan" in ln]
    assert len(compares) == 1 and "OpSGreaterThan" in compares[0], compares
    got = run_cs(src, {"Out": ("int", len(xs) * len(exprs))}, {"In": ("int", xs)})["Out"]
    assert got == [EXTREMES[e](x, x & 0xFFFFFFFF) for x in xs for e in exprs]
