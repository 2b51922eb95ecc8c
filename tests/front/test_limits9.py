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
