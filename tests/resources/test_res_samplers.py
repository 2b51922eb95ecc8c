"""SamplerState / SamplerComparisonState executed on lavapipe: filters, address modes, mip filtering,
comparison ops, sampler and texture arrays, samplers passed to functions and held in locals.
Expected values come from the texel values and the sampling rules computed here.
"""

from __future__ import annotations

import pytest
import res_util as R

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

# a 4x1 r32f row: 0, 10, 20, 30
ROW = R.pack("f", [0.0, 10.0, 20.0, 30.0])


def row_tex():
    return R.image(ROW, 4, 1, "r32f")


TWO_SAMPLERS = """
Texture2D<float> Tex : register(t0);
SamplerState Nearest : register(s1);
SamplerState Linear : register(s2);
RWStructuredBuffer<float> Out : register(u3);
[numthreads(1,1,1)] void main() {
    Out[0] = Tex.SampleLevel(Nearest, float2(0.5, 0.5), 0);   // u = 0.5 -> texel 2 (boundary rounds up)
    Out[1] = Tex.SampleLevel(Linear, float2(0.5, 0.5), 0);    // halfway between texels 1 and 2
    Out[2] = Tex.SampleLevel(Linear, float2(0.25, 0.5), 0);   // halfway between 0 and 1
    Out[3] = Tex.SampleLevel(Nearest, float2(0.3, 0.5), 0);   // texel 1
}
"""


def test_nearest_and_linear_samplers_side_by_side():
    out = R.cs(TWO_SAMPLERS, {"Tex": row_tex(), "Nearest": R.sampler(), "Linear": R.sampler(filter="linear"),
                              "Out": R.storage(R.sentinel(4))})
    assert R.approx(R.unpack("f", out["Out"]), [20.0, 15.0, 5.0, 10.0], 1e-2)


ADDRESS = """
Texture2D<float> Tex : register(t0);
SamplerState S : register(s1);
RWStructuredBuffer<float> Out : register(u2);
[numthreads(1,1,1)] void main() {
    Out[0] = Tex.SampleLevel(S, float2(1.125, 0.5), 0);
    Out[1] = Tex.SampleLevel(S, float2(-0.125, 0.5), 0);
    Out[2] = Tex.SampleLevel(S, float2(1.875, 0.5), 0);
}
"""


def _address(mode: str, u: float) -> int:
    n = 4
    x = u * n
    i = int(x // 1)
    if mode == "wrap":
        return i % n
    if mode == "clamp":
        return min(max(i, 0), n - 1)
    if mode == "mirror":
        period = i % (2 * n)
        return period if period < n else 2 * n - 1 - period
    raise ValueError(mode)


@pytest.mark.parametrize("mode", ["wrap", "clamp", "mirror"])
def test_address_modes(mode):
    out = R.cs(ADDRESS, {"Tex": row_tex(), "S": R.sampler(address=mode), "Out": R.storage(R.sentinel(3))})
    assert R.unpack("f", out["Out"]) == [10.0 * _address(mode, u) for u in (1.125, -0.125, 1.875)]


MIPS = """
Texture2D<float> Tex : register(t0);
SamplerState S : register(s1);
RWStructuredBuffer<float> Out : register(u2);
[numthreads(1,1,1)] void main() {
    Out[0] = Tex.SampleLevel(S, float2(0.5, 0.5), 0.0);
    Out[1] = Tex.SampleLevel(S, float2(0.5, 0.5), 0.25);
    Out[2] = Tex.SampleLevel(S, float2(0.5, 0.5), 1.0);
}
"""


def _mip_tex():
    # 2x2 level 0 all 100, 1x1 level 1 = 200
    return R.image(R.pack("f", [100.0] * 4 + [200.0]), 2, 2, "r32f", mips=2)


@pytest.mark.parametrize("mipmap, want", [("nearest", [100.0, 100.0, 200.0]), ("linear", [100.0, 125.0, 200.0])])
def test_mipmap_modes(mipmap, want):
    out = R.cs(MIPS, {"Tex": _mip_tex(), "S": R.sampler(mipmap=mipmap), "Out": R.storage(R.sentinel(3))})
    assert R.approx(R.unpack("f", out["Out"]), want, 1e-2)


def test_max_lod_clamps():
    out = R.cs(MIPS, {"Tex": _mip_tex(), "S": R.sampler(max_lod=0.0), "Out": R.storage(R.sentinel(3))})
    assert R.unpack("f", out["Out"]) == [100.0, 100.0, 100.0]


CMP = """
Texture2D<float> Depth : register(t0);
SamplerComparisonState C : register(s1);
RWStructuredBuffer<float> Out : register(u2);
[numthreads(1,1,1)] void main() {
    Out[0] = Depth.SampleCmpLevelZero(C, float2(0.125, 0.5), 0.5);  // texel 0.25
    Out[1] = Depth.SampleCmpLevelZero(C, float2(0.375, 0.5), 0.5);  // texel 0.5
    Out[2] = Depth.SampleCmpLevelZero(C, float2(0.625, 0.5), 0.5);  // texel 0.75
}
"""
_OPS = {"less": lambda r, d: r < d, "less_equal": lambda r, d: r <= d, "greater": lambda r, d: r > d,
        "equal": lambda r, d: r == d, "not_equal": lambda r, d: r != d, "always": lambda r, d: True,
        "never": lambda r, d: False, "greater_equal": lambda r, d: r >= d}


@pytest.mark.parametrize("op", list(_OPS))
def test_comparison_ops(op):
    depth = R.image(R.pack("f", [0.25, 0.5, 0.75, 1.0]), 4, 1, "d32f")
    out = R.cs(CMP, {"Depth": depth, "C": R.sampler(compare=op), "Out": R.storage(R.sentinel(3))})
    assert R.unpack("f", out["Out"]) == [float(_OPS[op](0.5, d)) for d in (0.25, 0.5, 0.75)]


SAMPLER_ARRAY = """
Texture2D<float> Tex : register(t0);
SamplerState S[2] : register(s1);
RWStructuredBuffer<float> Out : register(u3);
// one thread per group: the index is dynamically uniform, as Vulkan requires without NonUniform
[numthreads(1,1,1)] void main(uint3 t : SV_GroupID) {
    Out[t.x] = Tex.SampleLevel(S[t.x], float2(1.125, 0.5), 0);   // S[0] wrap -> texel 0, S[1] clamp -> texel 3
}
"""


def test_sampler_array_constant_index():
    src = SAMPLER_ARRAY.replace("Out[t.x] = Tex.SampleLevel(S[t.x]", "Out[0] = Tex.SampleLevel(S[0], float2(1.125, 0.5), 0);\n"
                                "    Out[1] = Tex.SampleLevel(S[1]")
    out = R.cs(src, {"Tex": row_tex(), "S": [R.sampler(address="wrap"), R.sampler(address="clamp")],
                     "Out": R.storage(R.sentinel(2))})
    assert R.unpack("f", out["Out"]) == [0.0, 30.0]


def test_sampler_array_dynamic_index_structure():
    """Executing a dynamically indexed sampler array is not possible here: lavapipe returns element 0 for any
    dynamically uniform index (a glslang-compiled GLSL equivalent does the same).  Check the access chain."""
    dis = R.spirv_dis(R.build(SAMPLER_ARRAY))
    assert "OpTypeArray %type_sampler" in dis or "OpTypeArray" in dis
    import re
    m = re.search(r"OpAccessChain %\S+ %S %(\S+)", dis)
    assert m and not m.group(1).startswith("uint_") and not m.group(1).startswith("int_"), dis


TEXTURE_ARRAY = """
Texture2D<float> T[3] : register(t0);
SamplerState S : register(s3);
RWStructuredBuffer<float> Out : register(u4);
[numthreads(1,1,1)] void main(uint3 t : SV_GroupID) {   // uniform index per group
    Out[t.x] = T[2 - t.x].SampleLevel(S, float2(0.375, 0.5), 0) + T[t.x].Load(int3(0, 0, 0));
}
"""


def test_texture_array_dynamic_index():
    texs = [R.image(R.pack("f", [k * 100.0 + i for i in range(4)]), 4, 1, "r32f") for k in range(3)]
    out = R.cs(TEXTURE_ARRAY, {"T": texs, "S": R.sampler(), "Out": R.storage(R.sentinel(3))}, groups=(3, 1, 1))
    assert R.unpack("f", out["Out"]) == [(2 - k) * 100.0 + 1 + k * 100.0 for k in range(3)]


FN_SAMPLER = """
Texture2D<float> Tex : register(t0);
SamplerState A : register(s1);
SamplerState B : register(s2);
RWStructuredBuffer<float> Out : register(u3);
float fetch(Texture2D<float> t, SamplerState s, float u) { return t.SampleLevel(s, float2(u, 0.5), 0); }
[numthreads(1,1,1)] void main() {
    SamplerState local = B;
    Out[0] = fetch(Tex, A, 1.125);
    Out[1] = fetch(Tex, local, 1.125);
}
"""


def test_samplers_through_functions_and_locals():
    out = R.cs(FN_SAMPLER, {"Tex": row_tex(), "A": R.sampler(address="wrap"), "B": R.sampler(address="clamp"),
                            "Out": R.storage(R.sentinel(2))})
    assert R.unpack("f", out["Out"]) == [0.0, 30.0]


def test_sampler_manifest_entries():
    res = R.build(SAMPLER_ARRAY)
    s = R.resource(res.manifest, "S")
    assert s["kind"] == "SamplerState"
    assert (s["hlsl"]["class"], s["hlsl"]["register"], s["hlsl"]["space"], s["hlsl"]["count"]) == ("s", 1, 0, 2)
    assert s["vulkan"] == {"set": 0, "binding": 1, "descriptor_type": "sampler", "count": 2}
    c = R.resource(R.build(CMP).manifest, "C")
    assert c["kind"] == "SamplerComparisonState" and c["vulkan"]["descriptor_type"] == "sampler"


@pytest.mark.llvm
@pytest.mark.parametrize("src", [TWO_SAMPLERS, ADDRESS, MIPS, CMP, SAMPLER_ARRAY, TEXTURE_ARRAY, FN_SAMPLER],
                         ids=["two", "address", "mips", "cmp", "sampler-array", "texture-array", "functions"])
def test_sampler_dxil_builds(src):
    R.build_dxil(src)


# ---------------------------------------------------------------- GatherCmp* and static const offsets

# a 4x2 depth texture, rows from the top (v = 0)
GATHER_TEXELS = [[0.1, 0.2, 0.3, 0.9],
                 [0.8, 0.7, 0.6, 0.1]]


def _gathered(u: float, v: float, offset: tuple[int, int] = (0, 0)) -> list[float]:
    """The four texels a bilinear footprint at (u, v) covers, in Gather's order: (i0, j1), (i1, j1),
    (i1, j0), (i0, j0) (the D3D and Vulkan order), wrapping addresses."""
    w, h = len(GATHER_TEXELS[0]), len(GATHER_TEXELS)
    i0 = int((u * w - 0.5) // 1) + offset[0]
    j0 = int((v * h - 0.5) // 1) + offset[1]

    def t(i: int, j: int) -> float:
        return GATHER_TEXELS[j % h][i % w]
    return [t(i0, j0 + 1), t(i0 + 1, j0 + 1), t(i0 + 1, j0), t(i0, j0)]


GATHER_CMP = """
Texture2D<float> Depth : register(t0);
SamplerComparisonState C : register(s1);
RWStructuredBuffer<float4> Out : register(u2);
static const int2 RIGHT = int2(1, 0);      // a static const offset
static const int K = 1;
[numthreads(1,1,1)] void main() {
    Out[0] = Depth.GatherCmp(C, float2(0.25, 0.5), 0.5);
    Out[1] = Depth.GatherCmpRed(C, float2(0.25, 0.5), 0.5, RIGHT);
    Out[2] = Depth.GatherCmp(C, float2(0.5, 0.5), 0.65, int2(K, K - 1) * 2 - RIGHT);
}
"""


@pytest.mark.parametrize("op", ["less", "greater_equal"])
def test_gather_cmp_compares_four_texels(op):
    """GatherCmp / GatherCmpRed: the comparison of each of the four texels, in Gather's order; the offsets
    are static const expressions (RIGHT and int2(K, K - 1) * 2 - RIGHT = (1, -2): wraps in y)."""
    depth = R.image(R.pack("f", [x for row in GATHER_TEXELS for x in row]), 4, 2, "d32f")
    out = R.cs(GATHER_CMP, {"Depth": depth, "C": R.sampler(compare=op, address="wrap"),
                            "Out": R.storage(R.sentinel(12))})
    cmp = _OPS[op]
    want = [[float(cmp(ref, d)) for d in _gathered(*uv, off)]
            for uv, ref, off in (((0.25, 0.5), 0.5, (0, 0)), ((0.25, 0.5), 0.5, (1, 0)), ((0.5, 0.5), 0.65, (1, -2)))]
    assert R.unpack("f", out["Out"]) == [x for row in want for x in row]


GATHER_OFFSET = """
Texture2D<float> Tex : register(t0);
SamplerState S : register(s1);
RWStructuredBuffer<float4> Out : register(u2);
static const int2 O = int2(-1, 1);
[numthreads(1,1,1)] void main() {
    Out[0] = Tex.GatherRed(S, float2(0.5, 0.5), O);
    Out[1] = Tex.SampleLevel(S, float2(0.375, 0.25), 0, O).xxxx;
}
"""


def test_static_const_offsets():
    """A `static const int2` as the offset of Gather and SampleLevel (nearest, wrapping)."""
    tex = R.image(R.pack("f", [x for row in GATHER_TEXELS for x in row]), 4, 2, "r32f")
    out = R.cs(GATHER_OFFSET, {"Tex": tex, "S": R.sampler(address="wrap"), "Out": R.storage(R.sentinel(8))})
    sample = GATHER_TEXELS[(0 + 1) % 2][(1 - 1) % 4]       # texel (1, 0) moved by (-1, 1)
    want = [R.f32(x) for x in _gathered(0.5, 0.5, (-1, 1))] + [R.f32(sample)] * 4
    assert R.unpack("f", out["Out"]) == want


@pytest.mark.llvm
@pytest.mark.parametrize("method", ["GatherCmp", "GatherCmpRed", "GatherCmpGreen", "GatherCmpBlue", "GatherCmpAlpha"])
def test_gather_cmp_dxil_channel(method):
    """DXIL: textureGatherCmp with the method's channel and the compare value last (DXIL.rst)."""
    import re

    from harness import dxil_tools
    src = GATHER_CMP.replace("Depth.GatherCmpRed(", f"Depth.{method}(")
    res = R.compile_hlsl(src, "main", "cs_6_0", "dxil")
    assert res.ok, R.diagnostics_text(res)
    ir_text = dxil_tools.check_dxil(res.binary).ir
    channel = {"GatherCmp": 0, "GatherCmpRed": 0, "GatherCmpGreen": 1, "GatherCmpBlue": 2, "GatherCmpAlpha": 3}[method]
    calls = re.findall(r"call %dx\.types\.ResRet\.f32 @dx\.op\.textureGatherCmp\.f32\(i32 74, [^)]*", ir_text)
    assert len(calls) == 3, ir_text
    assert calls[1].endswith(f"i32 1, i32 0, i32 {channel}, float 5.000000e-01"), calls[1]


@pytest.mark.parametrize("method", ["GatherCmpGreen", "GatherCmpBlue", "GatherCmpAlpha"])
def test_gather_cmp_channel_is_refused_for_spirv(method):
    """OpImageDrefGather has no component operand: refused at the call, as DXC does."""
    src = GATHER_CMP.replace("Depth.GatherCmpRed(", f"Depth.{method}(")
    res = R.compile_hlsl(src, "main", "cs_6_0", "spirv")
    line = next(i for i, text in enumerate(src.splitlines(), 1) if method in text)
    assert R.errors(res) and R.errors(res)[0].startswith(f"{line}:"), R.errors(res)
    assert f"'{method}' is not supported when targeting SPIR-V" in R.errors(res)[0]


@pytest.mark.parametrize(("call", "message"), [
    ("Depth.GatherCmp(S, float2(0, 0), 0.5)", "'GatherCmp' requires a SamplerComparisonState as its first argument"),
    ("Depth.GatherCmp(C, float2(0, 0))", "no matching member function for call to 'GatherCmp': expected 3 or 4"),
    ("Depth.GatherCmp(C, float2(0, 0), 0.5, int2(40, 0))", "gather offsets must be in the range [-32, 31]"),
    ("Vol.GatherCmp(C, float3(0, 0, 0), 0.5)", "'GatherCmp' is not available on 'Texture3D'"),
])
def test_gather_cmp_errors_are_located(call, message):
    src = ("Texture2D<float> Depth : register(t0);\nTexture3D<float> Vol : register(t1);\n"
           "SamplerComparisonState C : register(s1);\nSamplerState S : register(s2);\n"
           "RWStructuredBuffer<float4> Out : register(u2);\n"
           f"[numthreads(1,1,1)] void main(uint i : SV_GroupIndex) {{\n    Out[0] = {call};\n}}\n")
    for target in ("spirv", "dxil"):
        errs = R.errors(R.compile_hlsl(src, "main", "cs_6_0", target))
        assert errs and errs[0].startswith("7:") and message in errs[0], errs
