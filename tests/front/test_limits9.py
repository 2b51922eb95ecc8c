"""Blow-ups past the front end's limits: inputs whose compiled form grows exponentially or to
gigabytes (call trees, unrolled loops, huge arrays, attribute values past the D3D limits).  Each
must end, within seconds and in bounded memory, in a located error and exit 1 through the CLI.

The pathological inputs run in a child process with 2 GB of address space and a timeout, so a
missing limit fails the test (a MemoryError, a traceback or a hang) instead of stalling the suite.
"""

from __future__ import annotations

import re
import resource
import subprocess
import sys

import pytest

from shaderbuild.passes.inline import MAX_INLINED_STMTS

TIMEOUT = 60            # seconds; every case here ends in under 5 on a loaded 2-core host
ADDRESS_SPACE = 2 << 30


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def cli(tmp_path, src: str, *args: str, target: str = "spirv", profile: str = "cs_6_0") -> subprocess.CompletedProcess:
    (tmp_path / "big.hlsl").write_text(src)
    out = tmp_path / f"out.{target}"
    try:
        proc = subprocess.run([sys.executable, "-m", "shaderbuild", "compile", "big.hlsl", "-T", profile,
                               "--target", target, "-o", str(out), *args], cwd=tmp_path, capture_output=True,
                              text=True, timeout=TIMEOUT, preexec_fn=_limit)
    except subprocess.TimeoutExpired:
        pytest.fail(f"compiling for {target} {args} did not end within {TIMEOUT} s")
    assert "Traceback" not in proc.stderr and "MemoryError" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode == 0 or not out.exists(), "a failed compile wrote its output"
    return proc


def assert_cli_error(proc: subprocess.CompletedProcess, pattern: str, line: int, col: int | None = None) -> str:
    """Exit 1, nothing written, and a first diagnostic `big.hlsl:LINE:COL: error: ...` matching
    `pattern`, with the source line and a caret under it."""
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])
    lines = proc.stderr.splitlines()
    m = re.match(r"big\.hlsl:(\d+):(\d+): error: (.*)", lines[0])
    assert m, proc.stderr[:2000]
    assert int(m.group(1)) == line, lines[0]
    if col is not None:
        assert int(m.group(2)) == col, lines[0]
    assert re.search(pattern, m.group(3)), m.group(3)
    assert lines[2].strip() == "^" and len(lines[2]) == int(m.group(2)), lines[:3]
    return m.group(3)


# ---------------------------------------------------------------- inlining


def call_tree(levels: int, resource_param: bool = False) -> str:
    """f<k> calls f<k-1> twice: 2^levels copies of f0 once every call is inlined."""
    b, a = ("RWStructuredBuffer<float> b, ", "b, ") if resource_param else ("", "")
    lines = ["RWStructuredBuffer<float> O : register(u0);",
             f"float f0({b}float x) {{ return x * 1.5 + 1; }}"]
    lines += [f"float f{i}({b}float x) {{ return f{i - 1}({a}x) + f{i - 1}({a}x * 0.5); }}" for i in range(1, levels + 1)]
    lines.append(f"[numthreads(1,1,1)] void main(uint i : SV_DispatchThreadID) {{ O[i] = f{levels}({'O, ' if b else ''}O[i]); }}")
    return "\n".join(lines) + "\n"


def _crossing_level() -> int:
    """The first f<k> whose own tree is within the limit but which, called twice, crosses it: f<k> has
    3 statements (two call temporaries and a return) plus its two callees' and f0 one (computed here from
    the shader's shape, not by the compiler)."""
    def size(k: int) -> int:
        return 1 if k == 0 else 3 + 2 * size(k - 1)
    k = 0
    while 2 * size(k) + 3 <= MAX_INLINED_STMTS:
        k += 1
    return k


@pytest.mark.parametrize("target,level", [("spirv", "-O3"), ("dxil", "-O3"), ("dxil", "-O0")])
def test_exponential_call_tree_is_a_located_error(tmp_path, target: str, level: str) -> None:
    """The lead's finding: 2^39 copies of f0 hung for over a minute.  DXIL inlines at every level; SPIR-V
    from -O1 on (at -O0 the calls stay calls and the tree is small)."""
    k = _crossing_level()
    proc = cli(tmp_path, call_tree(39), level, target=target)
    msg = assert_cli_error(proc, rf"more than the limit of {MAX_INLINED_STMTS:,}", line=k + 3)
    assert "main -> f39 -> f38" in msg and msg.endswith(f"-> f{k + 1} -> f{k})"), msg
    assert not (tmp_path / f"out.{target}").exists()


def test_exponential_call_tree_keeps_its_calls_at_O0_for_spirv(tmp_path) -> None:
    proc = cli(tmp_path, call_tree(39), "-O0")
    assert proc.returncode == 0, proc.stderr[-2000:]


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_exponential_tree_of_resource_parameters_is_a_located_error(tmp_path, target: str) -> None:
    """Functions taking resources are inlined at every level on both targets (resource_locals)."""
    proc = cli(tmp_path, call_tree(39, resource_param=True), "-O0", target=target)
    assert_cli_error(proc, rf"more than the limit of {MAX_INLINED_STMTS:,}", line=_crossing_level() + 3)


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_moderate_call_tree_compiles(tmp_path, target: str) -> None:
    proc = cli(tmp_path, call_tree(8), target=target)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_call_tree_of_half_the_limit_compiles(tmp_path) -> None:
    """The largest tree of this shape under the limit (f<k> alone is within it, two calls of it are not):
    about 65,000 statements inlined, a second or two."""
    proc = cli(tmp_path, call_tree(_crossing_level()), target="dxil")
    assert proc.returncode == 0, proc.stderr[-2000:]


# ---------------------------------------------------------------- one value or instruction too large


def _cs(body: str, before: str = "") -> str:
    return ("RWStructuredBuffer<float> O : register(u0);\n" + before
            + f"[numthreads(1,1,1)] void main(uint i : SV_DispatchThreadID) {{\n{body}\n}}\n")


BIG_TABLE = _cs("O[i] = a[i];", "static const float a[70000] = {" + ",".join(["1"] * 70000) + "};\n")
BIG_SWITCH = _cs("float s = 0;\nswitch (i) {\n" + "".join(f"case {k}: s = {k}; break;\n" for k in range(33000))
                 + "}\nO[i] = s;")
BIG_STRUCT = ("struct S {\n" + "".join(f"float f{k};\n" for k in range(70000)) + "};\n"
              + _cs("S s = (S)0; s.f5 = 1; O[i] = s.f5;"))


@pytest.mark.parametrize("src,target,pattern,line", [
    # SPIR-V: an instruction's word count is 16 bits; the table is one OpCompositeConstruct of 70,003 words
    pytest.param(BIG_TABLE, "spirv", r"too large for SPIR-V: one OpComposite\w+ of 70,00\d words", 2, id="table-spirv"),
    pytest.param(BIG_TABLE, "dxil", r"70000 components, too large for the DXIL backend", 2, id="table-dxil"),
    # 33,000 cases: OpSwitch has 3 + 2 * 33,000 words
    pytest.param(BIG_SWITCH, "spirv", r"one OpSwitch of 66,003 words", 4, id="switch-spirv"),
    pytest.param(BIG_STRUCT, "spirv", r"one OpTypeStruct of 70,002 words", 70005, id="struct-spirv"),
    pytest.param(BIG_STRUCT, "dxil", r"'S' has 70000 components, too large for the DXIL backend", 70005,
                 id="struct-dxil"),
])
def test_value_or_instruction_past_the_target_limit_is_located(tmp_path, src: str, target: str, pattern: str,
                                                               line: int) -> None:
    """Was an internal compiler error (SPIR-V: a word count past 16 bits reached struct.pack) or an error
    without a location (DXIL: the check sits in a type-level helper)."""
    assert_cli_error(cli(tmp_path, src, target=target), pattern, line=line)


def test_huge_static_array_is_located_for_dxil(tmp_path) -> None:
    proc = cli(tmp_path, _cs("O[i] = a[i];", "static float a[1 << 24];\n"), target="dxil")
    assert_cli_error(proc, r"array 'float\[16777216\]' is too large for the DXIL backend", line=2, col=14)


def test_groupshared_past_32_kib_is_located_for_dxil(tmp_path) -> None:
    """D3D12: 32 KiB of groupshared memory per compute thread group (8,193 floats is 32,772 bytes)."""
    proc = cli(tmp_path, _cs("a[i] = 1; O[i] = a[i];", "groupshared float a[8193];\n"), target="dxil")
    assert_cli_error(proc, r"groupshared memory \(32772 bytes.*exceeds the 32768-byte limit", line=2)


# ---------------------------------------------------------------- [unroll] for texel offsets


def offset_loops(counters: str, trips: int = 8) -> str:
    """Nested `[unroll]` loops around a Load whose offset reads the two outer counters: every loop is
    unrolled whatever its size (offsets must be immediates), so the copies multiply."""
    loops = "".join(f"  [unroll] for (int {v} = 0; {v} < {trips}; {v}++)\n" for v in counters)
    return ("Texture2D<float4> T : register(t0);\nRWStructuredBuffer<float4> O : register(u1);\n"
            "[numthreads(1,1,1)] void main(uint i : SV_DispatchThreadID) {\n  float4 s = 0;\n" + loops
            + f"    s += T.Load(int3(i, 0, 0), int2({counters[0]} - 4, {counters[1]} - 4));\n  O[i] = s;\n}}\n")


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_nested_offset_unrolls_past_the_limit_are_located(tmp_path, target: str) -> None:
    """8^7 copies of the Load hung (over 60 s); the outermost loop is where the count crosses the limit."""
    from shaderbuild.passes.unroll import MAX_OFFSET_STMTS

    proc = cli(tmp_path, offset_loops("abcdefg"), target=target)
    assert_cli_error(proc, rf"would give 8 copies of .* statements .*more than the limit of {MAX_OFFSET_STMTS:,}",
                     line=7, col=12)


def test_offset_unrolls_below_the_limit_compile(tmp_path) -> None:
    """8^4 Loads, each with its own immediate offset."""
    proc = cli(tmp_path, offset_loops("abcd"), "-Fc", "out.dis", target="dxil")
    assert proc.returncode == 0, proc.stderr[-2000:]


# ---------------------------------------------------------------- pixel outputs


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("src,semantic,index,line", [
    ("float4 main() : SV_Target8 { return 1; }\n", "SV_Target8", 8, 1),
    ("struct O { float4 c[9] : SV_Target; };\nO main() { O o = (O)0; return o; }\n", "SV_Target", 8, 1),  # the member
    ("struct O { float4 a : SV_Target0; float4 c[2] : SV_Target7; };\nO main() { O o = (O)0; return o; }\n",
     "SV_Target7", 8, 1),
])
def test_render_target_past_7_is_a_located_error(tmp_path, target: str, src: str, semantic: str, index: int,
                                                  line: int) -> None:
    """D3D12 has 8 render targets; DXC says the same words for SV_Target12345 (were accepted)."""
    proc = cli(tmp_path, src, target=target, profile="ps_6_0")
    assert_cli_error(proc, rf"'{semantic}' is defined with semantic index {index}, but only values 0 through 7 "
                           r"are supported", line=line)


def test_eight_render_targets_compile(tmp_path) -> None:
    src = "struct O { float4 a : SV_Target0; float4 c[7] : SV_Target1; };\nO main() { O o = (O)0; return o; }\n"
    proc = cli(tmp_path, src, target="dxil", profile="ps_6_0")
    assert proc.returncode == 0, proc.stderr[-2000:]


MESH_GS = """struct V {{ float4 p : SV_Position; }};
groupshared float g[{n}];
[outputtopology("triangle")] [numthreads(1,1,1)]
void main(uint i : SV_GroupIndex, out vertices V v[3], out indices uint3 t[1]) {{
  g[i] = 1; SetMeshOutputCounts(0, 0); v[0].p = g[0];
}}
"""


def test_mesh_groupshared_past_28_kib_is_located_for_dxil(tmp_path) -> None:
    """DXIL validation gives a mesh shader 28,672 bytes of groupshared memory, not 32,768 (was accepted)."""
    proc = cli(tmp_path, MESH_GS.format(n=7169), target="dxil", profile="ms_6_5")
    assert_cli_error(proc, r"groupshared memory \(28676 bytes with 'g'\) exceeds the 28672-byte limit of a mesh shader",
                     line=2)


def test_mesh_groupshared_at_28_kib_compiles_for_dxil(tmp_path) -> None:
    proc = cli(tmp_path, MESH_GS.format(n=7168), target="dxil", profile="ms_6_5")
    assert proc.returncode == 0, proc.stderr[-2000:]


# ---------------------------------------------------------------- numthreads


@pytest.mark.parametrize("numthreads,pattern,col", [
    ("1,1,65", r"numthreads Z value exceeds 64", 17),       # the Z argument
    ("1025,1,1", r"numthreads total exceeds 1024 threads per group", 2),
    ("4294967295,4294967295,4294967295", r"numthreads total exceeds 1024 threads per group", 2),
])
def test_numthreads_past_the_d3d_limits_is_located(tmp_path, numthreads: str, pattern: str, col: int) -> None:
    proc = cli(tmp_path, f"RWStructuredBuffer<float> O : register(u0);\n[numthreads({numthreads})] void main() "
                         "{ O[0] = 1; }\n")
    assert_cli_error(proc, pattern, line=2, col=col)


# ---------------------------------------------------------------- templates


TEMPLATE_GROWTH = """RWStructuredBuffer<float> O : register(u0);
template<typename T> struct W {{ T a; T b; }};
template<typename T> float g(T x) {{ W<T> w = {init}; w.a = x; return g(w); }}
[numthreads(1,1,1)] void main(uint i : SV_DispatchThreadID) {{ O[i] = g(O[i]); }}
"""


@pytest.mark.parametrize("src,line,col", [
    # each call deduces W<T> of the last type: the struct doubles at every level (hung past 20 levels)
    pytest.param(TEMPLATE_GROWTH.format(init="(W<T>)0"), 3, 37, id="doubling-call"),
    pytest.param(TEMPLATE_GROWTH.format(init="(W<T>)0").replace("W<T> w = (W<T>)0; ", "W<T> w; "), 3, 37,
                 id="doubling-call-uninitialised"),
    # a struct template holding itself one level deeper (was a recursion-limit error at 1:1)
    pytest.param("RWStructuredBuffer<float> O : register(u0);\ntemplate<typename T> struct W { T v; W<W<T> > n; };\n"
                 "[numthreads(1,1,1)] void main(uint i : SV_DispatchThreadID) { W<float> w; O[i] = 1; }\n", 2, 40,
                 id="nested-struct"),
])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_runaway_template_instantiation_is_located(tmp_path, target: str, src: str, line: int, col: int) -> None:
    from shaderbuild.front.sema.templates import MAX_TEMPLATE_DEPTH

    proc = cli(tmp_path, src, target=target)
    assert_cli_error(proc, rf"recursive template instantiation of 'W' exceeded the maximum depth of "
                           rf"{MAX_TEMPLATE_DEPTH}", line=line, col=col)
