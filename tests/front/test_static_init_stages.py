"""A static initialiser without statements (kept as the variable's `init`) is compiled into every
entry point, so a stage-limited intrinsic in it is refused with a located diagnostic, as in a static
initialiser that runs statements (fuzz finding: a compute shader with `static float s =
DispatchRaysIndex().x` gave invalid SPIR-V and an unlocated DXIL error)."""

from __future__ import annotations

import pytest
import res_util as R

SRC = """\
static float scale = 2.0 * DispatchRaysIndex().x;
RWStructuredBuffer<float> o : register(u0);
[numthreads(1, 1, 1)] void main() { o[0] = USE; }
"""
WANT = ("1:28: intrinsic 'DispatchRaysIndex' is not allowed in compute shaders (allowed in: anyhit, callable, "
        "closesthit, intersection, miss, raygeneration)")


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("use", ["scale", "1"])
def test_ray_system_value_in_a_compute_shaders_static(target, use):
    res = R.compile_hlsl(SRC.replace("USE", use), "main", "cs_6_5", target)
    assert not res.ok
    assert R.errors(res) == [WANT]
