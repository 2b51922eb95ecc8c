"""Resource methods, audited (issue 20, session 9): every texture kind's Load / subscript / .mips with mip
levels and offsets, Sample* with offsets and clamps, SampleCmpLevel (SM 6.7), Gather* with one and four
offsets, GetDimensions overloads (uint and float outputs, mip input, levels / elements / samples), typed
UAVs of several element types, Interlocked* on texture elements, structured-buffer counters and strides,
resource arrays, samplers as parameters and in arrays.

Every shader runs on lavapipe (at -O3 and, by the harness, -O0) and its DXIL twin on the interpreter and
through dxil-spirv (res_util.run_cs).  Expected values come from the texel generators here and D3D's
addressing rules computed in Python, never from the compiler.  Each found bug has its regression test here
(named in the test's docstring).
"""

from __future__ import annotations

import re

import pytest
import res_util as R

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

OUTF = "RWStructuredBuffer<float4> Out : register(u0);\n"
OUTU = "RWStructuredBuffer<uint4> Out : register(u0);\n"


def val(x: int, y: int = 0, z: int = 0, layer: int = 0, mip: int = 0) -> float:
    """The texel generator of the float textures: distinct, exact in float32, one digit block per coordinate."""
    return float(x + 8 * y + 64 * z + 512 * layer + 4096 * mip)


def r32f(w: int, h: int = 1, depth: int = 1, layers: int = 1, mips: int = 1, channels: int = 1) -> bytes:
    """Texel data in the harness layout (mip, layer, z, y, x); channel c of a texel is val + c / 4."""
    vals: list[float] = []
    for m in range(mips):
        for layer in range(layers):
            for z in range(max(1, depth >> m)):
                for y in range(max(1, h >> m)):
                    for x in range(max(1, w >> m)):
                        vals += [val(x, y, z, layer, m) + c / 4 for c in range(channels)]
    return R.pack("f", vals)


def tex(dim: str, w: int, h: int = 1, depth: int = 1, layers: int = 1, mips: int = 1, channels: int = 1):
    fmt = {1: "r32f", 2: "rg32f", 4: "rgba32f"}[channels]
    return lambda: R.image(r32f(w, h, depth, layers, mips, channels), w, h, fmt, dim=dim, depth=depth, layers=layers,
                           mips=mips)


def samp(**kw):
    return lambda: R.sampler(**kw)


class Case:
    def __init__(self, cid: str, decls: str, body: str, binds: dict, want: list, code: str = "f",
                 profile: str = "cs_6_0", tol: float = 0.0):
        self.id, self.decls, self.body, self.binds, self.want = cid, decls, body, binds, want
        self.code, self.profile, self.tol = code, profile, tol

    @property
    def src(self) -> str:
        return f"{OUTU if self.code == 'I' else OUTF}{self.decls}\n[numthreads(1, 1, 1)]\nvoid main() {{\n{self.body}\n}}\n"


def run_case(case: Case) -> None:
    res = R.build(case.src, profile=case.profile)
    specs = {name: make() for name, make in case.binds.items()}
    specs["Out"] = R.storage(R.sentinel(len(case.want)))
    got = R.unpack(case.code, R.run_cs(res, specs, dxil_tol=case.tol)["Out"])
    if case.code == "f" and case.tol:
        assert R.approx(got, case.want, case.tol), f"got {got}, want {case.want}"
    else:
        assert got == case.want, f"got {got}, want {case.want}"


# ---------------------------------------------------------------- Load, subscripts, .mips[m][pos]

T1 = "Texture1D<float> Tex : register(t1);"
T1A = "Texture1DArray<float> Tex : register(t1);"
T2 = "Texture2D<float> Tex : register(t1);"
T2A = "Texture2DArray<float> Tex : register(t1);"
T3 = "Texture3D<float> Tex : register(t1);"

LOADS = [
    Case("1d", T1, "Out[0] = float4(Tex.Load(int2(1, 1), 2), Tex.Load(int2(6, 0), -3), Tex.mips[1][3], Tex[7]);",
         {"Tex": tex("1d", 8, mips=2)}, [val(3, mip=1), val(3), val(3, mip=1), val(7)]),
    Case("1d-array", T1A, "Out[0] = float4(Tex.Load(int3(1, 2, 1), 1), Tex[uint2(5, 1)], Tex.mips[1][uint2(3, 0)], "
         "Tex.Load(int3(0, 1, 0), 4));",
         {"Tex": tex("1d_array", 8, layers=3, mips=2)},
         [val(2, layer=2, mip=1), val(5, layer=1), val(3, mip=1), val(4, layer=1)]),
    Case("2d-array", T2A, "Out[0] = float4(Tex.Load(int4(0, 1, 1, 1), int2(1, 0)), Tex[uint3(3, 2, 1)], "
         "Tex.mips[1][uint3(1, 0, 0)], Tex.Load(int4(3, 3, 0, 0), int2(-2, -1)));",
         {"Tex": tex("2d_array", 4, 4, layers=2, mips=2)},
         [val(1, 1, layer=1, mip=1), val(3, 2, layer=1), val(1, 0, mip=1), val(1, 2)]),
    Case("3d", T3, "Out[0] = float4(Tex.Load(int4(1, 0, 1, 1), int3(0, 1, 0)), Tex[uint3(3, 2, 1)], "
         "Tex.mips[1][uint3(1, 1, 0)], Tex.Load(int4(2, 2, 2, 0), int3(1, -1, -2)));",
         {"Tex": tex("3d", 4, 4, depth=4, mips=2)},
         [val(1, 1, 1, mip=1), val(3, 2, 1), val(1, 1, 0, mip=1), val(3, 1, 0)]),
    # the mip level as a run-time value, and a load at the last level (1x1)
    Case("2d-mip-runtime", T2, "uint w, h, n; Tex.GetDimensions(0, w, h, n);\n"
         "Out[0] = float4(Tex.Load(int3(0, 0, n - 1)), Tex.mips[n - 2][uint2(1, 0)], Tex.Load(int3(w - 1, h - 1, 0)), n);",
         {"Tex": tex("2d", 4, 4, mips=3)}, [val(0, mip=2), val(1, mip=1), val(3, 3), 3.0]),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in LOADS])
def test_load(case: Case):
    run_case(case)


# ---------------------------------------------------------------- Sample* with offsets, clamps and levels

S = "SamplerState S : register(s2);"

SAMPLES = [
    # nearest filtering: texel floor(u * width) of the level, moved by the offset
    Case("1d-offset", f"{T1}\n{S}", "Out[0] = float4(Tex.SampleLevel(S, 2.5 / 8, 0, 3), "
         "Tex.SampleLevel(S, 1.5 / 4, 1, -1), Tex.SampleGrad(S, 4.5 / 8, 0.25, 0.25, 2), 0);",
         {"Tex": tex("1d", 8, mips=2), "S": samp()},
         # SampleGrad: a derivative of 2 texels per unit step selects level 1 (4 wide): x = 2, + 2
         [val(5), val(0, mip=1), val(3, mip=1), 0.0]),
    # the array layer is round(coordinate), not moved by the offset
    Case("1d-array-offset", f"{T1A}\n{S}", "Out[0] = float4(Tex.SampleLevel(S, float2(2.5 / 8, 1.6), 0, 2), "
         "Tex.SampleLevel(S, float2(0.9, 0.2), 1, -2), 0, 0);",
         {"Tex": tex("1d_array", 8, layers=3, mips=2), "S": samp()}, [val(4, layer=2), val(1, mip=1), 0.0, 0.0]),
    Case("2d-array-offset", f"{T2A}\n{S}", "Out[0] = float4(Tex.SampleLevel(S, float3(0.25, 0.75, 1), 1, int2(1, -1)), "
         "Tex.SampleLevel(S, float3(0.6, 0.1, 0), 0, int2(-2, 3)), 0, 0);",
         {"Tex": tex("2d_array", 4, 4, layers=2, mips=2), "S": samp()},
         [val(1, 0, layer=1, mip=1), val(0, 3), 0.0, 0.0]),
    Case("3d-offset", f"{T3}\n{S}", "Out[0] = float4(Tex.SampleLevel(S, float3(0.5, 1.5, 2.5) / 4, 0, int3(2, 1, -1)), "
         "Tex.SampleLevel(S, float3(0.5, 0.5, 0.5) / 2, 1, int3(1, 0, 1)), 0, 0);",
         {"Tex": tex("3d", 4, 4, depth=4, mips=2), "S": samp()}, [val(2, 2, 1), val(1, 0, 1, mip=1), 0.0, 0.0]),
    # the clamp is the smallest level read: level 0 by the gradients, 1 and 2 by the clamp
    Case("samplegrad-clamp", f"{T2}\n{S}", "float2 uv = float2(0.6, 0.3);\n"
         "Out[0] = float4(Tex.SampleGrad(S, uv, float2(0, 0), float2(0, 0), int2(0, 0), 1.0), "
         "Tex.SampleGrad(S, uv, float2(0.5, 0), float2(0, 0.5)), Tex.SampleGrad(S, uv, 0, 0, int2(0, 0), 2.0), "
         "Tex.SampleGrad(S, uv, 0, 0, int2(1, 1), 0.0));",
         {"Tex": tex("2d", 4, 4, mips=3), "S": samp()},
         [val(1, 0, mip=1), val(1, 0, mip=1), val(0, 0, mip=2), val(3, 2)]),
    # TextureCubeArray: the fourth coordinate picks the cube (6 faces each); +X face centre -> texel (0, 0)
    # (sc = -z, tc = -y slightly below 0.5 on a 2x2 face), -Y face -> texel (1, 0) (sc = +x, tc = -z)
    Case("cube-array", f"TextureCubeArray<float> Tex : register(t1);\n{S}",
         "Out[0] = float4(Tex.SampleLevel(S, float4(1, 0.01, 0.01, 1), 0), Tex.SampleLevel(S, float4(0.01, -1, 0.01, 0), 0), "
         "Tex.SampleLevel(S, float4(0.01, -1, 0.01, 1), 1), 0);",
         {"Tex": tex("cube_array", 2, 2, layers=12, mips=2), "S": samp()},
         [val(0, 0, layer=6), val(1, 0, layer=3), val(0, 0, layer=9, mip=1), 0.0]),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in SAMPLES])
def test_sample(case: Case):
    run_case(case)


# ---------------------------------------------------------------- comparison sampling: SampleCmpLevel (SM 6.7)

C = "SamplerComparisonState C : register(s3);"


def depth(x: int, y: int, layer: int = 0, mip: int = 0) -> float:
    """Depth texels in [0, 1]: level 0 below 0.5, level 1 from 0.5 up (so a level mix-up changes a comparison)."""
    return R.f32(0.5 * mip + (x + 4 * y) / 32 + layer / 64)


def depth_data(w: int, h: int, layers: int = 1, mips: int = 1) -> bytes:
    vals = [depth(x, y, layer, m) for m in range(mips) for layer in range(layers)
            for y in range(max(1, h >> m)) for x in range(max(1, w >> m))]
    return R.pack("f", vals)


def _le(ref: float, texel: float) -> float:
    return 1.0 if R.f32(ref) <= texel else 0.0      # less_equal: pass when the reference <= the texel


CMP = [
    Case("samplecmplevel-2d", f"{T2}\n{C}",
         "Out[0] = float4(Tex.SampleCmpLevel(C, float2(0.3, 0.3), 0.5, 1), Tex.SampleCmpLevel(C, float2(0.3, 0.3), 0.5, 0), "
         "Tex.SampleCmpLevel(C, float2(0.25, 0.25), 0.52, 1, int2(1, 0)), Tex.SampleCmpLevel(C, float2(0.25, 0.25), 0.52, 1));",
         {"Tex": lambda: R.image(depth_data(4, 4, mips=2), 4, 4, "d32f", mips=2), "C": samp(compare="less_equal")},
         [_le(0.5, depth(0, 0, mip=1)), _le(0.5, depth(1, 1)), _le(0.52, depth(1, 0, mip=1)), _le(0.52, depth(0, 0, mip=1))],
         profile="cs_6_7"),
    Case("samplecmplevel-2d-array", f"{T2A}\n{C}",
         "Out[0] = float4(Tex.SampleCmpLevel(C, float3(0.75, 0.75, 1), 0.55, 1), "
         "Tex.SampleCmpLevelZero(C, float3(0.9, 0.9, 1), 0.95), Tex.SampleCmpLevelZero(C, float3(0.9, 0.9, 0), 0.47), 0);",
         {"Tex": lambda: R.image(depth_data(4, 4, layers=2, mips=2), 4, 4, "d32f", dim="2d_array", layers=2, mips=2),
          "C": samp(compare="less_equal")},
         [_le(0.55, depth(1, 1, 1, 1)), _le(0.95, depth(3, 3, 1)), _le(0.47, depth(3, 3, 0)), 0.0], profile="cs_6_7"),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CMP])
def test_sample_cmp(case: Case):
    run_case(case)


def test_samplecmplevel_needs_sm67():
    src = f"{OUTF}{T2}\n{C}\n[numthreads(1, 1, 1)]\nvoid main() {{\n  Out[0] = Tex.SampleCmpLevel(C, 0.5, 0.5, 1);\n}}\n"
    for target in ("spirv", "dxil"):
        assert R.errors(R.compile_hlsl(src, profile="cs_6_6", target=target)) == [
            "6:16: 'SampleCmpLevel' requires shader model 6.7 or higher (the profile is cs_6_6)"]


def test_samplecmplevel_instructions():
    """SPIR-V: OpImageSampleDrefExplicitLod with the Lod operand; DXIL: dx.op.sampleCmpLevel (224) with the level
    after the compare value."""
    src = (f"{OUTF}{T2}\n{C}\n[numthreads(1, 1, 1)]\nvoid main() {{\n"
           "  Out[0] = Tex.SampleCmpLevel(C, float2(0.25, 0.5), 0.75, 1.5, int2(1, -1));\n}\n")
    dis = R.spirv_dis(R.build(src, profile="cs_6_7"))
    assert "OpImageSampleDrefExplicitLod %float" in dis and "Lod|ConstOffset %float_1_5" in dis, dis
    ir = R.build_dxil(src, profile="cs_6_7")[1].ir
    assert re.search(r"@dx\.op\.sampleCmpLevel\.f32\(i32 224, %dx\.types\.Handle %\d+, %dx\.types\.Handle %\d+, "
                     r"float 2\.500000e-01, float 5\.000000e-01, float undef, float undef, i32 1, i32 -1, i32 undef, "
                     r"float 7\.500000e-01, float 1\.500000e\+00\)", ir), ir


# ---------------------------------------------------------------- methods a kind does not have

@pytest.mark.parametrize(("decl", "call", "message"), [
    # regression: Texture3D took SampleCmp*, giving SPIR-V that spirv-val refuses (no Dref on 3-D images)
    (T3, "Tex.SampleCmpLevelZero(C, float3(0.5, 0.5, 0.5), 0.5)", "'SampleCmpLevelZero' is not available on 'Texture3D'"),
    (T3, "Tex.SampleCmpLevel(C, float3(0.5, 0.5, 0.5), 0.5, 0)", "'SampleCmpLevel' is not available on 'Texture3D'"),
    # regression: TextureCube took Load (int4 location), giving an OpImageFetch of a cube (invalid SPIR-V)
    ("TextureCube<float> Tex : register(t1);", "Tex.Load(int4(0, 0, 0, 0))",
     "no member function named 'Load' in 'TextureCube<float>'"),
    ("TextureCubeArray<float> Tex : register(t1);", "Tex.Load(int4(0, 0, 0, 0))",
     "no member function named 'Load' in 'TextureCubeArray<float>'"),
    ("Texture1D<float> Tex : register(t1);", "Tex.Gather(S, 0.5)", "'Gather' is not available on 'Texture1D'"),
    ("Texture2DMS<float> Tex : register(t1);", "Tex.SampleLevel(S, 0.5, 0)", "'Texture2DMS' cannot be sampled"),
    ("RWTexture2D<float> Tex : register(u1);", "Tex.SampleLevel(S, 0.5, 0)", "'RWTexture2D' cannot be sampled"),
], ids=["3d-samplecmplevelzero", "3d-samplecmplevel", "cube-load", "cube-array-load", "1d-gather", "ms-sample",
        "rw-sample"])
def test_method_not_on_kind(decl, call, message):
    src = f"{OUTF}{decl}\n{S}\n{C}\n[numthreads(1, 1, 1)]\nvoid main() {{\n  Out[0] = {call};\n}}\n"
    for target in ("spirv", "dxil"):
        errs = R.errors(R.compile_hlsl(src, profile="cs_6_7", target=target))
        assert errs == [f"7:16: {message}"], errs


# ---------------------------------------------------------------- Gather with offsets (one and four)

def gather_quad(u: float, v: float, w: int, h: int, off=(0, 0)) -> list[tuple[int, int]]:
    """The texels of a bilinear footprint in Gather order (-x,+y), (+x,+y), (+x,-y), (-x,-y), moved by off."""
    x0, y0 = int((u * w - 0.5) // 1) + off[0], int((v * h - 0.5) // 1) + off[1]
    return [(x0, y0 + 1), (x0 + 1, y0 + 1), (x0 + 1, y0), (x0, y0)]


def _clamp(c: tuple[int, int], w: int, h: int) -> tuple[int, int]:
    return min(max(c[0], 0), w - 1), min(max(c[1], 0), h - 1)


def _gather_want(u, v, offs, channel=0, layer=0, w=4, h=4) -> list[float]:
    if len(offs) == 1:
        return [val(*_clamp(c, w, h), layer=layer) + channel / 4 for c in gather_quad(u, v, w, h, offs[0])]
    return [val(*_clamp(gather_quad(u, v, w, h, o)[k], w, h), layer=layer) + channel / 4 for k, o in enumerate(offs)]


GATHERS = [
    Case("green-offset-array", f"Texture2DArray<float4> Tex : register(t1);\n{S}",
         "Out[0] = Tex.GatherGreen(S, float3(0.5, 0.5, 1), int2(-1, 1));",
         {"Tex": tex("2d_array", 4, 4, layers=2, channels=4), "S": samp()},
         _gather_want(0.5, 0.5, [(-1, 1)], channel=1, layer=1)),
    Case("alpha-offset", f"Texture2D<float4> Tex : register(t1);\n{S}",
         "Out[0] = Tex.GatherAlpha(S, float2(0.3, 0.6), int2(1, -1));",
         {"Tex": tex("2d", 4, 4, channels=4), "S": samp()}, _gather_want(0.3, 0.6, [(1, -1)], channel=3)),
    # four offsets: texel k of the result is texel k of the gather at offset k
    Case("red-four-offsets", f"Texture2D<float4> Tex : register(t1);\n{S}",
         "Out[0] = Tex.GatherRed(S, float2(0.5, 0.5), int2(0, 0), int2(1, 0), int2(-1, -1), int2(0, 1));",
         {"Tex": tex("2d", 4, 4, channels=4), "S": samp()},
         _gather_want(0.5, 0.5, [(0, 0), (1, 0), (-1, -1), (0, 1)])),
    Case("blue-four-offsets-array", f"Texture2DArray<float4> Tex : register(t1);\n{S}",
         "Out[0] = Tex.GatherBlue(S, float3(0.4, 0.6, 1), int2(1, 1), int2(0, -1), int2(-1, 0), int2(1, -1));",
         {"Tex": tex("2d_array", 4, 4, layers=2, channels=4), "S": samp()},
         _gather_want(0.4, 0.6, [(1, 1), (0, -1), (-1, 0), (1, -1)], channel=2, layer=1)),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in GATHERS])
def test_gather(case: Case):
    run_case(case)


def _cmp_quad(u, v, ref, offs) -> list[float]:
    if len(offs) == 1:
        return [_le(ref, depth(*_clamp(c, 4, 4))) for c in gather_quad(u, v, 4, 4, offs[0])]
    return [_le(ref, depth(*_clamp(gather_quad(u, v, 4, 4, o)[k], 4, 4))) for k, o in enumerate(offs)]


GATHER_CMPS = [
    Case("gathercmp-offset", f"{T2}\n{C}", "Out[0] = Tex.GatherCmp(C, float2(0.5, 0.5), 0.3, int2(1, 0));",
         {"Tex": lambda: R.image(depth_data(4, 4), 4, 4, "d32f"), "C": samp(compare="less_equal")},
         _cmp_quad(0.5, 0.5, 0.3, [(1, 0)])),
    Case("gathercmpred-four-offsets", f"{T2}\n{C}",
         "Out[0] = Tex.GatherCmpRed(C, float2(0.5, 0.5), 0.3, int2(0, 0), int2(1, 1), int2(-1, 0), int2(1, -1));",
         {"Tex": lambda: R.image(depth_data(4, 4), 4, 4, "d32f"), "C": samp(compare="less_equal")},
         _cmp_quad(0.5, 0.5, 0.3, [(0, 0), (1, 1), (-1, 0), (1, -1)])),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in GATHER_CMPS])
def test_gather_cmp(case: Case):
    run_case(case)
