"""Front-end gaps of issue 20 (round 13).  The comparison samples on integer textures: one rule for both
targets, read from DXC — SampleCmp, SampleCmpLevel and SampleCmpLevelZero are refused by its
IsValidObjectElement, SampleCmpBias and SampleCmpGrad by its validator (Instr.SampleCompType: the SM 6.7
widening to integer formats leaves the comparisons out), while the GatherCmp family takes integer textures
(DXIL's TextureGatherCmp has i32 forms; SPIR-V's OpImageDrefGather integer results).  The shaders are our own."""

from __future__ import annotations

import pytest
import res_util as R

CMP = """Texture2D<ELEM> T : register(t0);
SamplerComparisonState S : register(s1);
RWStructuredBuffer<ELEM> Out : register(u2);
[numthreads(4, 1, 1)]
void main() { Out[0] = CALL; }
"""
SAMPLE_CMP = {
    "SampleCmp": "T.SampleCmp(S, float2(0.5, 0.5), 0.5)",
    "SampleCmpLevelZero": "T.SampleCmpLevelZero(S, float2(0.5, 0.5), 0.5)",
    "SampleCmpLevel": "T.SampleCmpLevel(S, float2(0.5, 0.5), 0.5, 0)",
    "SampleCmpBias": "T.SampleCmpBias(S, float2(0.5, 0.5), 0.5, 0.0)",
    "SampleCmpGrad": "T.SampleCmpGrad(S, float2(0.5, 0.5), 0.5, float2(0, 0), float2(0, 0))",
}
GATHER_CMP = {
    "GatherCmp": "T.GatherCmp(S, float2(0.5, 0.5), 0.5)",
    "GatherCmpRed": "T.GatherCmpRed(S, float2(0.5, 0.5), 0.5)",
}


@pytest.mark.parametrize("method", sorted(SAMPLE_CMP))
@pytest.mark.parametrize("elem", ["int4", "uint", "int2"])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_sample_cmp_refuses_integer_textures(method, elem, target):
    """At SM 6.8, where all five exist and integer Sample is allowed: refused in sema, located at the method
    (SampleCmpGrad on an integer texture was refused by the SPIR-V backend only and compiled for DXIL)."""
    src = CMP.replace("ELEM", elem).replace("CALL", SAMPLE_CMP[method])
    res = R.compile_hlsl(src, profile="cs_6_8", target=target)
    assert R.errors(res) == [f"5:26: cannot {method} from resource containing {elem}"]


@pytest.mark.parametrize("method", sorted(SAMPLE_CMP))
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_sample_cmp_takes_float_textures(method, target):
    """The control: the same shaders on a float texture build (SPIR-V through spirv-val, DXIL read back)."""
    src = CMP.replace("ELEM", "float").replace("CALL", SAMPLE_CMP[method])
    if target == "spirv":
        R.build(src, profile="cs_6_8")
    else:
        R.build_dxil(src, profile="cs_6_8")


@pytest.mark.parametrize("method", sorted(GATHER_CMP))
@pytest.mark.parametrize("elem", ["int4", "uint4", "float4"])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_gather_cmp_takes_integer_textures(method, elem, target):
    src = CMP.replace("ELEM", elem).replace("CALL", GATHER_CMP[method])
    if target == "spirv":
        res = R.build(src, profile="cs_6_0")
        assert "OpImageDrefGather" in R.spirv_dis(res)
    else:
        R.build_dxil(src, profile="cs_6_0")
