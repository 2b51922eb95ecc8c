"""HLSL source through the real front end and the DXIL plugin (integration)."""

from __future__ import annotations

import struct

import pytest
from harness.dxil_exec import run_dxil_compute
from harness.dxil_tools import check_dxil

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

CS = """
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(64,1,1)]
void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = id.x * 2 + 1; }
"""

LOOPS = """
RWStructuredBuffer<uint> Out : register(u0);
uint tri(uint n, out uint steps) { uint s = 0; steps = 0; for (uint i = 1; i <= n; ++i) { s += i; steps++; } return s; }
[numthreads(16,1,1)]
void main(uint3 id : SV_DispatchThreadID) {
  uint steps;
  uint t = tri(id.x, steps);
  switch (id.x & 3) { case 0: t += 1000; break; case 1: t += 2000; default: t += steps; break; }
  Out[id.x] = t;
}
"""


def compile_source(tmp_path, text: str, profile: str) -> bytes:
    src = tmp_path / "s.hlsl"
    src.write_text(text)
    res = compile_file(str(src), CompileOptions(profile=profile, target="dxil"))
    assert res.ok, [d.message for d in res.diagnostics]
    return res.binary


@pytest.mark.parametrize("profile", ["cs_6_0", "cs_6_6"])
def test_minimal_compute_shader(tmp_path, profile):
    blob = compile_source(tmp_path, CS, profile)
    c = check_dxil(blob)
    assert "@dx.op.threadId.i32(i32 93, i32 0)" in c.ir
    if profile == "cs_6_0":
        (buf,) = run_dxil_compute(blob, "main", [(0, 0, "u", bytes(4 * 64))], numthreads=(64, 1, 1))
        assert list(struct.unpack("<64I", buf)) == [2 * i + 1 for i in range(64)]


def test_loops_calls_and_switch_execute(tmp_path):
    blob = compile_source(tmp_path, LOOPS, "cs_6_0")
    (buf,) = run_dxil_compute(blob, "main", [(0, 0, "u", bytes(4 * 16))], numthreads=(16, 1, 1))

    def expect(x):
        t = x * (x + 1) // 2
        return t + {0: 1000, 1: 2000 + x}.get(x & 3, x)
    assert list(struct.unpack("<16I", buf)) == [expect(x) for x in range(16)]
