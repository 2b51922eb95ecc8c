"""Front-end gaps of issue 20 (round 12): DXC's element rule for the comparison samples (its
IsValidObjectElement refuses an integer texture for SampleCmp, SampleCmpLevel and SampleCmpLevelZero at every
shader model, while GatherCmp and SampleCmpBias/Grad are not restricted there).  The shaders are our own."""

from __future__ import annotations

import pytest
import res_util as R

CMP = """Texture2D<ELEM> T : register(t0);
SamplerComparisonState S : register(s1);
RWStructuredBuffer<ELEM> Out : register(u2);
[numthreads(1, 1, 1)]
void main() { Out[0] = CALL; }
"""


@pytest.mark.parametrize("call, profile", [("T.SampleCmpLevelZero(S, float2(0.5, 0.5), 0.5)", "cs_6_0"),
                                           ("T.SampleCmpLevelZero(S, float2(0.5, 0.5), 0.5)", "cs_6_7"),
                                           ("T.SampleCmpLevel(S, float2(0.5, 0.5), 0.5, 0)", "cs_6_7"),
                                           ("T.SampleCmp(S, float2(0.5, 0.5), 0.5)", "cs_6_7")])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_integer_texture_refused_by_sample_cmp(call, profile, target):
    """SM 6.7's integer sampling does not extend to the comparison samples (DXC: 'SampleCmp* cannot support
    integer resource')."""
    name = call.split(".")[1].split("(")[0]
    res = R.compile_hlsl(CMP.replace("ELEM", "int4").replace("CALL", call), profile=profile, target=target)
    assert R.errors(res) == [f"5:26: cannot {name} from resource containing int4"]


@pytest.mark.parametrize("elem", ["int4", "float4"])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_gather_cmp_is_not_restricted(elem, target):
    """DXC's rule leaves GatherCmp out: it compiles on an integer texture as on a float one (the control:
    the same shader with SampleCmpLevelZero on int4 is refused above)."""
    res = R.compile_hlsl(CMP.replace("ELEM", elem).replace("CALL", "T.GatherCmp(S, float2(0.5, 0.5), 0.5)"),
                         target=target)
    assert res.ok, R.diagnostics_text(res)
