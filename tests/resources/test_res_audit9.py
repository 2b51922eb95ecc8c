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
import struct

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


# ---------------------------------------------------------------- GetDimensions: every overload per kind

def _bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


# (id, declaration, the calls (each writes its outputs to w, h, d, n as uint or float), the image, want);
# `uint4 o` collects the outputs, float outputs as their bits (so a float 3.0 is told from a uint 3)
DIMS = [
    ("1d", "Texture1D<float> Tex : register(t1);",
     ["uint w; Tex.GetDimensions(w); Out[0] = uint4(w, 0, 0, 0);",
      "uint w, n; Tex.GetDimensions(1, w, n); Out[1] = uint4(w, n, 0, 0);",
      "float w, n; Tex.GetDimensions(2, w, n); Out[2] = uint4(asuint(w), asuint(n), 0, 0);",
      "float w; Tex.GetDimensions(w); Out[3] = uint4(asuint(w), 0, 0, 0);"],
     tex("1d", 8, mips=3), [8, 0, 0, 0, 4, 3, 0, 0, _bits(2.0), _bits(3.0), 0, 0, _bits(8.0), 0, 0, 0]),
    ("1d-array", "Texture1DArray<float> Tex : register(t1);",
     ["uint w, e; Tex.GetDimensions(w, e); Out[0] = uint4(w, e, 0, 0);",
      "uint w, e, n; Tex.GetDimensions(1, w, e, n); Out[1] = uint4(w, e, n, 0);",
      "float w, e, n; Tex.GetDimensions(1, w, e, n); Out[2] = uint4(asuint(w), asuint(e), asuint(n), 0);"],
     tex("1d_array", 8, layers=3, mips=2), [8, 3, 0, 0, 4, 3, 2, 0, _bits(4.0), _bits(3.0), _bits(2.0), 0]),
    ("2d-array", "Texture2DArray<float> Tex : register(t1);",
     ["uint w, h, e; Tex.GetDimensions(w, h, e); Out[0] = uint4(w, h, e, 0);",
      "uint w, h, e, n; Tex.GetDimensions(1, w, h, e, n); Out[1] = uint4(w, h, e, n);",
      "float w, h, e; Tex.GetDimensions(w, h, e); Out[2] = uint4(asuint(w), asuint(h), asuint(e), 0);"],
     tex("2d_array", 8, 4, layers=2, mips=2), [8, 4, 2, 0, 4, 2, 2, 2, _bits(8.0), _bits(4.0), _bits(2.0), 0]),
    ("3d", "Texture3D<float> Tex : register(t1);",
     ["uint w, h, d; Tex.GetDimensions(w, h, d); Out[0] = uint4(w, h, d, 0);",
      "uint w, h, d, n; Tex.GetDimensions(1, w, h, d, n); Out[1] = uint4(w, h, d, n);",
      "float w, h, d, n; Tex.GetDimensions(1, w, h, d, n); Out[2] = uint4(asuint(w), asuint(h), asuint(d), asuint(n));"],
     tex("3d", 8, 4, depth=2, mips=2), [8, 4, 2, 0, 4, 2, 1, 2, _bits(4.0), _bits(2.0), _bits(1.0), _bits(2.0)]),
    ("cube", "TextureCube<float> Tex : register(t1);",
     ["uint w, h; Tex.GetDimensions(w, h); Out[0] = uint4(w, h, 0, 0);",
      "uint w, h, n; Tex.GetDimensions(1, w, h, n); Out[1] = uint4(w, h, n, 0);",
      "float w, h, n; Tex.GetDimensions(0, w, h, n); Out[2] = uint4(asuint(w), asuint(h), asuint(n), 0);"],
     tex("cube", 4, 4, layers=6, mips=2), [4, 4, 0, 0, 2, 2, 2, 0, _bits(4.0), _bits(4.0), _bits(2.0), 0]),
    ("cube-array", "TextureCubeArray<float> Tex : register(t1);",
     ["uint w, h, e; Tex.GetDimensions(w, h, e); Out[0] = uint4(w, h, e, 0);",
      "uint w, h, e, n; Tex.GetDimensions(1, w, h, e, n); Out[1] = uint4(w, h, e, n);",
      "float w, h, e; Tex.GetDimensions(w, h, e); Out[2] = uint4(asuint(w), asuint(h), asuint(e), 0);"],
     tex("cube_array", 4, 4, layers=12, mips=2), [4, 4, 2, 0, 2, 2, 2, 2, _bits(4.0), _bits(4.0), _bits(2.0), 0]),
    ("rw-1d-array", "RWTexture1DArray<float> Tex : register(u1);",
     ["uint w, e; Tex.GetDimensions(w, e); Out[0] = uint4(w, e, 0, 0);",
      "float w, e; Tex.GetDimensions(w, e); Out[1] = uint4(asuint(w), asuint(e), 0, 0);"],
     lambda: R.image(bytes(4 * 8 * 3), 8, 1, "r32f", storage_image=True, dim="1d_array", layers=3),
     [8, 3, 0, 0, _bits(8.0), _bits(3.0), 0, 0]),
    ("rw-2d-array", "RWTexture2DArray<float> Tex : register(u1);",
     ["uint w, h, e; Tex.GetDimensions(w, h, e); Out[0] = uint4(w, h, e, 0);",
      "float w, h, e; Tex.GetDimensions(w, h, e); Out[1] = uint4(asuint(w), asuint(h), asuint(e), 0);"],
     lambda: R.image(bytes(4 * 4 * 2 * 3), 4, 2, "r32f", storage_image=True, dim="2d_array", layers=3),
     [4, 2, 3, 0, _bits(4.0), _bits(2.0), _bits(3.0), 0]),
    ("rw-3d", "RWTexture3D<float> Tex : register(u1);",
     ["uint w, h, d; Tex.GetDimensions(w, h, d); Out[0] = uint4(w, h, d, 0);",
      "float w, h, d; Tex.GetDimensions(w, h, d); Out[1] = uint4(asuint(w), asuint(h), asuint(d), 0);"],
     lambda: R.image(bytes(4 * 2 * 4 * 3), 2, 4, "r32f", storage_image=True, dim="3d", depth=3),
     [2, 4, 3, 0, _bits(2.0), _bits(4.0), _bits(3.0), 0]),
    ("rw-1d", "RWTexture1D<float> Tex : register(u1);",
     ["uint w; Tex.GetDimensions(w); Out[0] = uint4(w, 0, 0, 0);",
      "float w; Tex.GetDimensions(w); Out[1] = uint4(asuint(w), 0, 0, 0);"],
     lambda: R.image(bytes(4 * 5), 5, 1, "r32f", storage_image=True, dim="1d"), [5, 0, 0, 0, _bits(5.0), 0, 0, 0]),
    ("buffer", "Buffer<float> Tex : register(t1);", ["uint n; Tex.GetDimensions(n); Out[0] = uint4(n, 0, 0, 0);"],
     lambda: R.texel(bytes(4 * 7), "r32f", writable=False), [7, 0, 0, 0]),
    ("rwbuffer", "RWBuffer<float2> Tex : register(u1);", ["uint n; Tex.GetDimensions(n); Out[0] = uint4(n, 0, 0, 0);"],
     lambda: R.texel(bytes(8 * 6), "rg32f"), [6, 0, 0, 0]),
]


@pytest.mark.parametrize("cid, decl, calls, make, want", DIMS, ids=[d[0] for d in DIMS])
def test_get_dimensions(cid, decl, calls, make, want):
    body = "\n".join("{ " + c + " }" for c in calls)
    src = f"{OUTU}{decl}\n[numthreads(1, 1, 1)]\nvoid main() {{\n{body}\n}}\n"
    out = R.cs(src, {"Tex": make(), "Out": R.storage(R.sentinel(len(want)))})
    assert R.unpack("I", out["Out"]) == want


MS_DIMS = """
Texture2DMS<float4, 4> A : register(t1);
Texture2DMSArray<float4> B : register(t2);
RWStructuredBuffer<float4> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
    uint w, h, s; A.GetDimensions(w, h, s);
    float fw, fh, fe, fs; B.GetDimensions(fw, fh, fe, fs);
    Out[0] = float4(w, h, s, fw + fh + fe + fs) + A.Load(int2(1, 2), 3, int2(1, -1)) + B.sample[2][uint3(1, 0, 1)];
}
"""


def test_ms_get_dimensions_and_loads_instructions():
    """Multisampled kinds (the harness has no MS images: the instructions, validated): GetDimensions gives the
    sample count (OpImageQuerySamples / getDimensions' 4th value), Load takes a sample and an offset."""
    dis = R.spirv_dis(R.build(MS_DIMS))
    assert dis.count("OpImageQuerySamples") == 2 and dis.count("OpImageQuerySize ") == 2, dis
    assert "Sample|ConstOffset %int_3" in dis or "ConstOffset|Sample" in dis, dis
    ir = R.build_dxil(MS_DIMS)[1].ir
    assert ir.count("@dx.op.getDimensions(i32 72,") == 2, ir
    assert re.search(r"@dx\.op\.textureLoad\.f32\(i32 66, %dx\.types\.Handle %\d+, i32 3, i32 1, i32 2, i32 undef, "
                     r"i32 1, i32 -1, i32 undef\)", ir), ir


# ---------------------------------------------------------------- typed UAVs: element types, read-modify-write

# (id, declaration, per-thread statement (t: the thread's texel), (fmt, struct code, components), kind, f(i, old))
TYPED = [
    ("rwtex2d-float2", "RWTexture2D<float2> Img : register(u1);", "Img[t.xy] = Img[t.xy].yx * 2 + float2(t.x, 0.5);",
     ("rg32f", "f", 2), "image", lambda i, old: [old[1] * 2 + i, old[0] * 2 + 0.5]),
    ("rwtex2d-uint2", "RWTexture2D<uint2> Img : register(u1);", "Img[t.xy] += uint2(t.x, 100);",
     ("rg32ui", "I", 2), "image", lambda i, old: [old[0] + i, old[1] + 100]),
    ("rwtex2darray-int4", "RWTexture2DArray<int4> Img : register(u1);",
     "int4 v = Img[uint3(t.x, 0, 1)]; Img[uint3(t.x, 0, 1)] = -v.wzyx;", ("rgba32i", "i", 4), "image-array",
     lambda i, old: [-old[3], -old[2], -old[1], -old[0]]),
    ("rwbuffer-float2", "RWBuffer<float2> Img : register(u1);", "Img[t.x] = float2(Img[t.x].x * Img[t.x].y, -Img[t.x].y);",
     ("rg32f", "f", 2), "texel", lambda i, old: [old[0] * old[1], -old[1]]),
    ("rwbuffer-uint2", "RWBuffer<uint2> Img : register(u1);", "Img[t.x].y = Img[t.x].x + Img.Load(t.x).y;",
     ("rg32ui", "I", 2), "texel", lambda i, old: [old[0], old[0] + old[1]]),
    ("rwbuffer-int", "RWBuffer<int> Img : register(u1);", "Img[t.x] = Img[t.x] * -3 - 1;",
     ("r32i", "i", 1), "texel", lambda i, old: [old[0] * -3 - 1]),
]


def _old_texels(code: str, n: int, comps: int) -> list[list]:
    if code == "f":
        return [[float(i * comps + c) + 0.25 for c in range(comps)] for i in range(n)]
    if code == "i":
        return [[(i * comps + c) * (-1) ** c for c in range(comps)] for i in range(n)]
    return [[i * comps + c + 1 for c in range(comps)] for i in range(n)]


@pytest.mark.parametrize("cid, decl, stmt, fmt, kind, fn", TYPED, ids=[c[0] for c in TYPED])
def test_typed_uav_read_modify_write(cid, decl, stmt, fmt, kind, fn):
    name, code, comps = fmt
    n = 4
    src = f"{decl}\n[numthreads({n}, 1, 1)]\nvoid main(uint3 t : SV_DispatchThreadID) {{ {stmt} }}\n"
    layers = 2 if kind == "image-array" else 1
    old = _old_texels(code, n * layers, comps)
    data = R.pack(code, [c for px in old for c in px])
    if kind == "texel":
        spec = R.texel(data, name)
    else:
        spec = R.image(data, n, 1, name, storage_image=True, dim="2d_array" if layers > 1 else "2d", layers=layers)
    got = R.unpack(code, R.cs(src, {"Img": spec})["Img"])
    want = [c for px in old[:n * (layers - 1)] for c in px] + [c for i in range(n) for c in fn(i, old[n * (layers - 1) + i])]
    assert got == want


def test_image_format_by_element_type():
    """The storage formats the SPIR-V backend picks (DXC's inference, no -fvk-* option): float2 -> Rg32f (which
    needs StorageImageExtendedFormats), uint2 -> Rg32ui, int4 -> Rgba32i, and `vk::image_format` overrides it."""
    src = ("RWTexture2D<float2> A : register(u0);\nRWTexture2D<uint2> B : register(u1);\n"
           "RWTexture2D<int4> C : register(u2);\n[[vk::image_format(\"rgba8\")]] RWTexture2D<float4> D : register(u3);\n"
           "[numthreads(1, 1, 1)] void main() { A[uint2(0, 0)] = 1; B[uint2(0, 0)] = 2; C[uint2(0, 0)] = 3; "
           "D[uint2(0, 0)] = 0.5; }\n")
    dis = R.spirv_dis(R.build(src))
    for fmt in ("Rg32f", "Rg32ui", "Rgba32i", "Rgba8"):
        assert f" 2D 2 0 0 2 {fmt}\n" in dis, (fmt, dis)
    assert "OpCapability StorageImageExtendedFormats" in dis


# ---------------------------------------------------------------- Interlocked* on texture elements

INTERLOCKED = """
RWTexture2D<uint> U : register(u1);
RWTexture2D<int> I : register(u2);
RWStructuredBuffer<uint4> Out : register(u0);
[numthreads(4, 1, 1)]
void main(uint3 t : SV_DispatchThreadID) {
    uint2 p = uint2(t.x, 0), q = uint2(t.x, 1);
    uint a, b, c; int d, e;
    InterlockedAdd(U[p], 10 + t.x, a);                 // row 0 of U: each thread its own texel
    InterlockedMax(U[q], 0x80000000u, b);              // unsigned: 0xFFFFFFF0 stays, 5 becomes 0x80000000
    InterlockedMin(I[p], 2, d);                        // signed: -5 and -1 stay
    InterlockedExchange(I[q], -(int)t.x, e);
    InterlockedCompareExchange(U[uint2(t.x, 2)], t.x, 100u, c);   // replaced where the texel equals t.x
    InterlockedOr(U[uint2(t.x, 3)], 0x10u);
    InterlockedXor(I[uint2(t.x, 2)], -1);
    InterlockedAnd(I[uint2(t.x, 3)], 6);
    InterlockedAdd(U[uint2(0, 4)], 1);                 // shared by every thread: the total is exact
    Out[t.x] = uint4(a, b, c, 0);
    Out[t.x + 4] = uint4(asuint(d), asuint(e), 0, 0);
}
"""


def test_interlocked_on_texture_elements():
    u0 = [[3, 4, 5, 6], [0, 0xFFFFFFF0, 5, 0x80000001], [0, 7, 2, 9], [1, 2, 0x10, 0xF0], [0, 0, 0, 0]]
    i0 = [[5, -5, 0x7FFFFFFF, -1], [8, 9, -10, 11], [0, 1, -2, 3], [7, -7, 12, 5]]
    out = R.cs(INTERLOCKED, {"U": R.image(R.pack("I", sum(u0, [])), 4, 5, "r32ui", storage_image=True),
                             "I": R.image(R.pack("i", sum(i0, [])), 4, 4, "r32i", storage_image=True),
                             "Out": R.storage(R.sentinel(32))})
    u = [R.unpack("I", out["U"])[r * 4:r * 4 + 4] for r in range(5)]
    i = [R.unpack("i", out["I"])[r * 4:r * 4 + 4] for r in range(4)]
    assert u[0] == [v + 10 + k for k, v in enumerate(u0[0])]
    assert u[1] == [max(v, 0x80000000) for v in u0[1]]
    assert u[2] == [100 if v == k else v for k, v in enumerate(u0[2])]
    assert u[3] == [v | 0x10 for v in u0[3]]
    assert u[4] == [4, 0, 0, 0]
    assert i[0] == [min(v, 2) for v in i0[0]]
    assert i[1] == [-k for k in range(4)]
    assert i[2] == [~v for v in i0[2]]
    assert i[3] == [v & 6 for v in i0[3]]
    got = R.unpack("I", out["Out"])
    assert [got[k * 4:k * 4 + 3] for k in range(4)] == [[u0[0][k], u0[1][k], u0[2][k]] for k in range(4)]
    assert [struct.unpack("<2i", struct.pack("<2I", *got[16 + k * 4:18 + k * 4])) for k in range(4)] == \
        [(i0[0][k], i0[1][k]) for k in range(4)]


# ---------------------------------------------------------------- status of typed loads

STATUS = """
Buffer<float4> B : register(t1);
RWBuffer<uint> W : register(u2);
Texture2D<float> T : register(t3);
RWStructuredBuffer<float4> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
    uint s0, s1, s2;
    float4 b = B.Load(2, s0);
    uint w = W.Load(1, s1);
    float t = T.Load(int3(1, 1, 0), int2(1, 0), s2);
    Out[0] = b;
    Out[1] = float4(w, t, CheckAccessFullyMapped(s0) && CheckAccessFullyMapped(s1), CheckAccessFullyMapped(s2));
}
"""
RW_STATUS = """
RWBuffer<uint> W : register(u2);
RWTexture2D<float> I : register(u3);
RWStructuredBuffer<float4> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
    uint s1, s2;
    uint w = W.Load(1, s1);
    float i = I.Load(int2(1, 0), s2);
    Out[0] = float4(w, i, CheckAccessFullyMapped(s1), CheckAccessFullyMapped(s2));
}
"""


def test_typed_load_with_status_on_uavs():
    """RWBuffer / RWTexture2D Load(location, status): the value, and a status CheckAccessFullyMapped says is
    resident (OpImageSparseRead in SPIR-V; the status element of the ResRet in DXIL)."""
    out = R.cs(RW_STATUS, {"W": R.texel(R.pack("I", [7, 8, 9]), "r32ui"),
                           "I": R.image(R.pack("f", [1.5, 2.5]), 2, 1, "r32f", storage_image=True),
                           "Out": R.storage(R.sentinel(4))})
    assert R.unpack("f", out["Out"]) == [8.0, 2.5, 1.0, 1.0]


@pytest.mark.llvm
def test_typed_load_with_status_on_srvs():
    """Buffer / Texture2D Load(location, [offset,] status).  SPIR-V (OpImageSparseFetch, capability
    SparseResidency) needs the shaderResourceResidency feature, which lavapipe lacks (its worker crashes): the
    SPIR-V is validated only; the DXIL runs on the interpreter."""
    from harness import dxil_exec
    R.build(STATUS)         # spirv-val and reflection
    res, _chk = R.build_dxil(STATUS)
    got = dxil_exec.run_dxil_compute(res.binary, "main", [
        (1, 0, "t", R.pack("f", [float(k) for k in range(16)]), dxil_exec.View(fmt="rgba32f", width=4)),
        (2, 0, "u", R.pack("I", [7, 8, 9]), dxil_exec.View(fmt="r32ui", width=3)),
        (3, 0, "t", r32f(4, 4), dxil_exec.View(fmt="r32f", width=4, height=4)),
        (0, 0, "u", R.sentinel(8))])
    assert R.unpack("f", got[3]) == [8.0, 9.0, 10.0, 11.0, 8.0, val(2, 1), 1.0, 1.0]


# ---------------------------------------------------------------- [[vk::image_format]]

IMAGE_FORMAT = """
[[vk::image_format("rgba8")]] RWTexture2D<float4> Img : register(u1);
[numthreads(2, 1, 1)]
void main(uint3 t : SV_DispatchThreadID) { Img[t.xy] = Img[t.xy].wzyx * 0.5; }
"""


def test_vk_image_format_executes_on_an_rgba8_image():
    """Regression: [[vk::image_format]] was accepted and ignored (the image stayed Rgba32f, a format that does not
    match an rgba8 view: undefined in Vulkan).  Now the format it names, read and written as UNORM8 bytes."""
    dis = R.spirv_dis(R.build(IMAGE_FORMAT))
    assert " 2D 2 0 0 2 Rgba8\n" in dis, dis
    px = [10, 20, 200, 255, 0, 64, 128, 250]
    out = R.cs(IMAGE_FORMAT, {"Img": R.image(bytes(px), 2, 1, "rgba8", storage_image=True)})
    want = [R.unorm8(R.f32(px[i * 4 + 3 - c] / 255) * 0.5) for i in range(2) for c in range(4)]
    assert list(out["Img"]) == want


@pytest.mark.parametrize(("decl", "message"), [
    ('[[vk::image_format("rgba8ui")]] RWTexture2D<float4> Img : register(u1);',
     "2:53: image format 'rgba8ui' holds uint texels, the element type has float components"),
    ('[[vk::image_format("rgba33f")]] RWTexture2D<float4> Img : register(u1);',
     "2:53: unknown or unsupported image format 'rgba33f' in 'vk::image_format'"),
    ('[[vk::image_format("r32f")]] RWStructuredBuffer<float> Img : register(u1);',
     "2:3: 'vk::image_format' takes a format string and applies to textures and typed buffers"),
], ids=["class-mismatch", "unknown", "not-typed"])
def test_vk_image_format_errors(decl, message):
    src = f"{OUTF}{decl}\n[numthreads(1, 1, 1)]\nvoid main() {{ Out[0] = Img[0]; }}\n".replace("Img[0]", "1")
    assert R.errors(R.compile_hlsl(src)) == [message]


# ---------------------------------------------------------------- structured buffers: counters, strides

def run_counters(src: str, specs: dict, counters: dict[str, int], check, groups=(1, 1, 1)) -> None:
    """Run on lavapipe with each named buffer's hidden counter bound (at the manifest's counter_binding)
    holding the given value; check({name: bytes, 'name.counter': bytes}) judges the -O3 and -O0 runs (the
    results depend on thread order).  The DXIL twin runs on the interpreter with the same counters."""
    from harness import dxil_exec
    res = R.build(src)
    vk = R.vk_runner()
    descs = R.bind([res.manifest], specs)
    names = list(specs)
    for name, value in counters.items():
        v = R.resource(res.manifest, name)["vulkan"]
        descs.append(vk.Buf(v["set"], v["counter_binding"], R.pack("I", [value])))
        names.append(f"{name}.counter")

    def by_name(got: list[bytes]) -> dict[str, bytes]:
        return dict(zip(names, got))

    got = vk.run_compute(res.binary, "main", descs, groups=groups, o0_check=lambda again, _first: check(by_name(again)))
    check(by_name(got))
    dx, _chk = R.build_dxil(src)
    binds = []
    for name, spec in specs.items():
        h = R.resource(dx.manifest, name)["hlsl"]
        view = dxil_exec.View(counter=counters[name]) if name in counters else None
        binds.append((h["register"], h["space"], h["class"], spec.data, *([view] if view else [])))
    out = dxil_exec.run_dxil_compute(dx.binary, "main", binds, groups=groups)
    check(dict(zip(specs, out)))


COUNTERS = """
RWStructuredBuffer<uint> U : register(u1);
RWStructuredBuffer<uint> D : register(u2);
RWStructuredBuffer<uint2> Out : register(u0);
[numthreads(8, 1, 1)]
void main(uint3 t : SV_DispatchThreadID) {
    uint i = U.IncrementCounter();      // the value before the increment
    U[i] = 100 + t.x;
    uint d = D.DecrementCounter();      // the value after the decrement
    Out[t.x] = uint2(i, d);
}
"""


def test_increment_and_decrement_counter_values():
    def check(got: dict) -> None:
        pairs = R.unpack("I", got["Out"])
        incs, decs = sorted(pairs[0::2]), sorted(pairs[1::2])
        assert incs == list(range(2, 10)), incs          # U's counter starts at 2
        assert decs == list(range(0, 8)), decs           # D's at 8
        u = R.unpack("I", got["U"])
        assert u[:2] == [R.SENTINEL] * 2 and sorted(u[2:10]) == list(range(100, 108))
        assert all(u[i] == 100 + pairs[0::2].index(i) for i in range(2, 10))   # each thread wrote its own slot
        if "U.counter" in got:
            assert R.unpack("I", got["U.counter"]) == [10] and R.unpack("I", got["D.counter"]) == [0]
    run_counters(COUNTERS, {"U": R.storage(R.sentinel(12)), "D": R.storage(R.sentinel(8)),
                            "Out": R.storage(R.sentinel(16))}, {"U": 2, "D": 8}, check)


APPEND_CONSUME = """
struct E { float a0, a1; uint b; };     // 12 bytes in both layouts (a float2 would make Vulkan's stride 16)
ConsumeStructuredBuffer<E> C : register(u1);
AppendStructuredBuffer<E> A : register(u2);
[numthreads(4, 1, 1)]
void main(uint3 t : SV_DispatchThreadID) {
    E e = C.Consume();
    e.b += 1000;
    float x = e.a0; e.a0 = e.a1; e.a1 = x;
    A.Append(e);
}
"""


def test_append_and_consume_execute():
    """Consume reads element counter-1 (after the decrement), Append writes at the counter (before the
    increment): four threads move C's top four elements into A after its one existing element."""
    elems = [(float(k), float(k) + 0.5, k) for k in range(6)]
    data = b"".join(struct.pack("<2fI", *e) for e in elems)

    def check(got: dict) -> None:
        a = [struct.unpack_from("<2fI", got["A"], 12 * k) for k in range(6)]
        assert a[0] == (9.0, 9.0, 9)                       # A's element before the dispatch, untouched
        assert sorted(a[1:5]) == sorted((e[1], e[0], e[2] + 1000) for e in elems[2:6])
        assert got["A"][60:] == R.sentinel(3)
        if "C.counter" in got:
            assert R.unpack("I", got["C.counter"]) == [2] and R.unpack("I", got["A.counter"]) == [5]
    run_counters(APPEND_CONSUME, {"C": R.storage(data), "A": R.storage(struct.pack("<2fI", 9.0, 9.0, 9) + R.sentinel(15))},
                 {"C": 6, "A": 1}, check)


NESTED = """
struct In { float2x3 m; bool b[2]; int3 i; };
struct E { In a[2]; float f; bool c; };
StructuredBuffer<E> SB : register(t1);
RWStructuredBuffer<float4> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
    uint n, s; SB.GetDimensions(n, s);
    E e = SB[2];
    Out[0] = float4(n, s, e.f, e.c ? 1 : 0);
    Out[1] = float4(e.a[1].m[1][2], e.a[0].m[0][1], e.a[1].b[1] ? 1 : 0, e.a[0].i.z);
    Out[2] = float4(SB[1].a[0].i.x, SB[1].a[1].i.y, SB[0].a[1].m[1][0], SB.Load(0).f);
}
"""
# element layouts: (In's offset step, b, i, f, c, stride).  Vulkan (std430, DXC's default for structured
# buffers): the column_major float2x3 is 3 columns of float2 (24 bytes), bool[2] at 24, int3 aligned to 16 at 32,
# In rounded to 48, E to a multiple of 16.  D3D: 4-byte packing, no padding.
NESTED_LAYOUTS = {"vulkan": (48, 24, 32, 96, 100, 112), "d3d": (44, 24, 32, 88, 92, 96)}


def _nested_m(e: int, a: int, r: int, c: int) -> float:
    return 100 * e + 10 * a + 3 * r + c + 0.5


def _nested_data(layout: str, n: int = 3) -> bytes:
    step, ob, oi, of, oc, stride = NESTED_LAYOUTS[layout]
    buf = bytearray(stride * n)
    for e in range(n):
        base = e * stride
        for a in range(2):
            ia = base + a * step
            for r in range(2):
                for c in range(3):
                    struct.pack_into("<f", buf, ia + 8 * c + 4 * r, _nested_m(e, a, r, c))
            for k in range(2):
                struct.pack_into("<I", buf, ia + ob + 4 * k, (e + k + a) % 2)
            struct.pack_into("<3i", buf, ia + oi, e * 7 + a, -a, 3 * e + 1)
        struct.pack_into("<fI", buf, base + of, e + 0.25, e % 2)
    return bytes(buf)


def _nested_want(stride: int) -> list[float]:
    return [3.0, float(stride), 2.25, 0.0,
            _nested_m(2, 1, 1, 2), _nested_m(2, 0, 0, 1), float((2 + 1 + 1) % 2), 7.0,
            7.0, -1.0, _nested_m(0, 1, 1, 0), 0.25]


@pytest.mark.llvm
def test_structured_buffer_of_nested_structs():
    """GetDimensions(count, stride) and reads of matrices, bool arrays and int3 fields of a nested struct
    element: the stride is the target's layout (Vulkan std430 112, D3D 96), so the DXIL twin runs on the
    interpreter with D3D-laid-out data and the D3D stride."""
    from harness import dxil_exec
    out = R.cs(NESTED, {"SB": R.storage(_nested_data("vulkan")), "Out": R.storage(R.sentinel(12))},
               dxil_skip="structured-layout")
    assert R.unpack("f", out["Out"]) == _nested_want(112)
    res, _chk = R.build_dxil(NESTED)
    got = dxil_exec.run_dxil_compute(res.binary, "main", [(1, 0, "t", _nested_data("d3d")), (0, 0, "u", R.sentinel(12))])
    assert R.unpack("f", got[1]) == _nested_want(96)


# ---------------------------------------------------------------- resource arrays, samplers as values

SB_ARRAY = """
StructuredBuffer<float4> T[3] : register(t1);
RWStructuredBuffer<uint4> Out : register(u0);
[numthreads(1, 1, 1)]
void main(uint3 t : SV_GroupID) {
    uint n, s, m, r, k, q;
    T[t.x].GetDimensions(n, s);                             // dynamically uniform index
    T[NonUniformResourceIndex(2 - t.x)].GetDimensions(m, r);
    T[1].GetDimensions(k, q);                               // a constant index
    Out[t.x] = uint4(n, m, k, s + r + q);
}
"""


def test_get_dimensions_of_structured_buffer_array_elements():
    """Regression: `sb[i].GetDimensions(n, stride)` on an array of structured buffers failed in SPIR-V ('resource
    type ... cannot be used as a value here': OpArrayLength needs the element's block pointer)."""
    lens = [2, 5, 3]
    # one thread per group: the index is the group id, dynamically uniform (lavapipe, Mesa 25.0.7, gives every
    # invocation of a group the first one's OpArrayLength when the index varies inside the group, even with
    # NonUniform decorations: a driver limit, not the compiler's)
    out = R.cs(SB_ARRAY, {"T": [R.storage(R.sentinel(4 * n)) for n in lens], "Out": R.storage(R.sentinel(12))},
               groups=(3, 1, 1))
    assert R.unpack("I", out["Out"]) == [v for i in range(3) for v in (lens[i], lens[2 - i], lens[1], 48)]


SAMPLER_ARRAYS = """
Texture2D<float> Tex : register(t1);
SamplerState SS[2] : register(s2);                  // [0] wraps, [1] clamps
SamplerComparisonState CS[2] : register(s4);        // [0] less_equal, [1] greater
cbuffer K : register(b5) { uint pick; };
RWStructuredBuffer<float4> Out : register(u0);
struct Pair { Texture2D<float> t; SamplerState s; };
float through(Texture2D<float> t, SamplerState s, float2 uv) { return t.SampleLevel(s, uv, 0); }
float through_pair(Pair p, float2 uv) { return p.t.SampleLevel(p.s, uv, 0); }
float compare(SamplerComparisonState c, float ref) { return Tex.SampleCmpLevelZero(c, float2(0.1, 0.1), ref); }
[numthreads(1, 1, 1)]
void main(uint3 t : SV_GroupID) {                   // one thread per group: indices by t are dynamically uniform
    float2 uv = float2(1.3, 0.1);                   // wraps to x = 1, clamps to x = 3
    Pair p; p.t = Tex; p.s = SS[1 - t.x];
    Out[t.x * 2] = float4(Tex.SampleLevel(SS[NonUniformResourceIndex(t.x)], uv, 0), through(Tex, SS[0], uv),
                          through_pair(p, uv), Tex.SampleCmpLevelZero(CS[pick], float2(0.1, 0.1), 0.5));
    Out[t.x * 2 + 1] = float4(compare(CS[t.x], 0.5), compare(CS[1 - pick], 0.5), 0, 0);
}
"""


def test_sampler_arrays_parameters_and_struct_members():
    """Samplers (plain and comparison) in arrays indexed by constants, by NonUniformResourceIndex, by a
    dynamically uniform cbuffer value and by the thread id; passed to functions, and in a struct parameter."""
    texels = [0.25, 0.5, 0.75, 1.0] * 4         # texel (x, y) = 0.25 * (x + 1)
    out = R.cs(SAMPLER_ARRAYS, {"Tex": R.image(R.pack("f", texels), 4, 4, "d32f"),
                                "SS": [R.sampler(address="wrap"), R.sampler(address="clamp")],
                                "CS": [R.sampler(compare="less_equal"), R.sampler(compare="greater")],
                                "K": R.uniform(R.pack("I", [1, 0, 0, 0])), "Out": R.storage(R.sentinel(16))},
               groups=(2, 1, 1))
    wrap, clamp = 0.5, 1.0                          # u = 1.3: texel x = 1 wrapped, x = 3 clamped
    le, gt = float(0.5 <= 0.25), float(0.5 > 0.25)     # ref 0.5 against texel (0, 0) = 0.25
    assert R.unpack("f", out["Out"]) == [wrap, wrap, clamp, gt, le, le, 0.0, 0.0,
                                         clamp, wrap, wrap, gt, gt, le, 0.0, 0.0]


CB_ARRAY = """
struct C { float4 v; uint next; };
ConstantBuffer<C> CB[3] : register(b1);
cbuffer K : register(b5) { uint pick; };
RWStructuredBuffer<float4> Out : register(u0);
float4 read(ConstantBuffer<C> c) { return c.v * 2; }
[numthreads(1, 1, 1)]
void main(uint3 t : SV_GroupID) {                   // one thread per group: CB[t.x] is dynamically uniform
    Out[t.x] = CB[t.x].v + CB[CB[pick].next].v * 10 + read(CB[2]) * 100;
}
"""


def test_constant_buffer_arrays():
    """ConstantBuffer<T> arrays indexed by the thread id, by a value read from another element (dynamically
    uniform), by a constant, and passed to a function."""
    vals = [[float(i * 4 + c + 1) for c in range(4)] for i in range(3)]
    nexts = [2, 0, 1]
    cbs = [R.uniform(R.pack("f", vals[i]) + R.pack("I", [nexts[i], 0, 0, 0])) for i in range(3)]
    out = R.cs(CB_ARRAY, {"CB": cbs, "K": R.uniform(R.pack("I", [1, 0, 0, 0])), "Out": R.storage(R.sentinel(12))},
               groups=(3, 1, 1))
    far = nexts[1]
    want = [vals[i][c] + vals[far][c] * 10 + vals[2][c] * 200 for i in range(3) for c in range(4)]
    assert R.unpack("f", out["Out"]) == want


# ---------------------------------------------------------------- implicit-LOD sampling (compute quads, SM 6.6)

IMPLICIT = """
Texture2D<float> Tex : register(t1);
Texture2D<float> Dep : register(t2);
SamplerState S : register(s3);
SamplerComparisonState C : register(s4);
RWStructuredBuffer<float4> Out : register(u0);
[numthreads(2, 2, 1)]
void main(uint3 t : SV_DispatchThreadID, uint gi : SV_GroupIndex) {
    float2 uv = (t.xy + 0.5) * SCALE;           // the quad's uv step: SCALE per thread
    Out[gi * 3] = float4(Tex.Sample(S, uv), Tex.Sample(S, uv, int2(1, 0), 2.0),
                         Tex.SampleBias(S, uv, 1.0), Tex.SampleBias(S, uv, -8.0, int2(0, 0), 1.0));
    Out[gi * 3 + 1] = float4(Tex.CalculateLevelOfDetail(S, uv), Tex.CalculateLevelOfDetailUnclamped(S, uv),
                             Dep.SampleCmp(C, uv, 0.5), Dep.SampleCmp(C, uv, 0.5, int2(0, 0), 1.0));
    Out[gi * 3 + 2] = float4(uv, 0, 0);
}
"""


def _level_value(level: int) -> float:
    return level + 1.0


@pytest.mark.parametrize("scale, lod", [(1 / 16, 0.0), (1 / 4, 2.0), (4, 6.0)], ids=["lod0", "lod2", "lod6"])
def test_implicit_lod_sampling(scale, lod):
    """Sample / SampleBias / SampleCmp, CalculateLevelOfDetail(Unclamped), in a compute shader's quads: a uv step
    of `scale` per thread on a 16x16 texture is a level of detail log2(16 * scale).  Each level of Tex holds
    level + 1; Dep's level 0 is 0.25 and its level 1 0.75 (less_equal 0.5 fails at level 0, passes at 1).  The
    clamped LOD is clamped to the view's levels (0..4), the unclamped one is not.

    The clamp forms (offset, then the smallest level read) are checked as instructions, not values: lavapipe
    (Mesa 25.0.7) ignores MinLod on implicit-LOD samples (a pixel shader likewise; SampleGrad's clamp it honours,
    test_sample[samplegrad-clamp]), and the DXIL through dxil-spirv gives the same values as our SPIR-V."""
    levels = [16 >> k for k in range(5)]
    data = b"".join(R.pack("f", [_level_value(k)] * (n * n)) for k, n in enumerate(levels))
    dep = R.pack("f", [0.25] * 256 + [0.75] * 64)
    out = R.cs(IMPLICIT.replace("SCALE", repr(scale)),
               {"Tex": R.image(data, 16, 16, "r32f", mips=5), "Dep": R.image(dep, 16, 16, "d32f", mips=2),
                "S": R.sampler(), "C": R.sampler(compare="less_equal"), "Out": R.storage(R.sentinel(48))},
               profile="cs_6_6", dxil_skip="quads")
    got = R.unpack("f", out["Out"])
    nearest = lambda x: min(max(int(x + 0.5), 0), 4)  # noqa: E731 - Vulkan's nearest level: round(lod), .5 up
    for q in range(4):
        row = got[q * 12:q * 12 + 8]
        assert [row[0], row[2]] == [_level_value(nearest(lod)), _level_value(nearest(lod + 1.0))], (q, row)
        assert R.approx(row[4:6], [min(lod, 4.0), lod], 1e-3), (q, row)
        assert row[6] == (1.0 if nearest(lod) >= 1 else 0.0), (q, row)


def test_implicit_lod_clamp_operands():
    """The clamp of Sample / SampleBias / SampleCmp: SPIR-V's MinLod image operand after the ConstOffset, DXIL's
    clamp argument (the last float of dx.op.sample / sampleBias / sampleCmp)."""
    src = IMPLICIT.replace("SCALE", "0.25")
    dis = R.spirv_dis(R.build(src, profile="cs_6_6"))
    assert "OpCapability MinLod" in dis
    assert re.search(r"OpImageSampleImplicitLod %v4float %\d+ %\d+ ConstOffset\|MinLod %\d+ %float_2\n", dis), dis
    assert re.search(r"OpImageSampleImplicitLod %v4float %\d+ %\d+ Bias\|ConstOffset\|MinLod %float_n8 %\d+ %float_1\n",
                     dis), dis
    assert re.search(r"OpImageSampleDrefImplicitLod %float %\d+ %\d+ %float_0_5 ConstOffset\|MinLod %\d+ %float_1\n",
                     dis), dis
    ir = R.build_dxil(src, profile="cs_6_6")[1].ir
    assert re.search(r"@dx\.op\.sample\.f32\(i32 60, .*i32 1, i32 0, i32 undef, float 2\.000000e\+00\)", ir), ir
    assert re.search(r"@dx\.op\.sampleBias\.f32\(i32 61, .*float -8\.000000e\+00, float 1\.000000e\+00\)", ir), ir
    assert re.search(r"@dx\.op\.sampleCmp\.f32\(i32 64, .*float 5\.000000e-01, float 1\.000000e\+00\)", ir), ir


def test_cube_offset_is_refused_with_the_reason():
    """A cube has no texel offsets: `SampleLevel(s, dir, lod, int2(..))` reads as the status form, so the error
    says why the fourth argument is not an offset."""
    src = (f"{OUTF}TextureCube<float> Tex : register(t1);\n{S}\n[numthreads(1, 1, 1)]\nvoid main() {{\n"
           "  Out[0] = Tex.SampleLevel(S, float3(1, 0, 0), 0, int2(1, 1));\n}\n")
    assert R.errors(R.compile_hlsl(src)) == [
        "6:51: the status argument must be an lvalue of type uint ('TextureCube' takes no texel offset)"]


SAMPLER_IN_CBUFFER = """
cbuffer Material : register(b5) {
    float4 tint;
    SamplerState Clamp : register(s2);       // a global of its own register, not a member (as DXC)
    Texture2D<float> Tex : register(t1);
    float bias;
};
RWStructuredBuffer<float4> Out : register(u0);
[numthreads(1, 1, 1)]
void main() { Out[0] = Tex.SampleLevel(Clamp, float2(1.7, 0.1), 0) * tint + bias; }
"""


def test_sampler_and_texture_declared_in_a_cbuffer():
    out = R.cs(SAMPLER_IN_CBUFFER, {"Material": R.uniform(R.pack("f", [1, 2, 3, 4, 0.5, 0, 0, 0])),
                                    "Clamp": R.sampler(address="clamp"), "Tex": tex("2d", 4, 4)(),
                                    "Out": R.storage(R.sentinel(4))})
    assert R.unpack("f", out["Out"]) == [val(3, 0) * k + 0.5 for k in (1, 2, 3, 4)]


# ---------------------------------------------------------------- SM 6.6 heaps: kinds the heap tests do not cover

HEAP = """
RWStructuredBuffer<float4> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
    Texture1DArray<float> a = ResourceDescriptorHeap[0];
    TextureCubeArray<float> c = ResourceDescriptorHeap[1];
    Texture3D<float> v = ResourceDescriptorHeap[2];
    StructuredBuffer<float4> sb = ResourceDescriptorHeap[3];
    RWTexture2D<uint> img = ResourceDescriptorHeap[4];
    Texture2D<float> d = ResourceDescriptorHeap[5];
    SamplerComparisonState cmp = SamplerDescriptorHeap[12];
    uint w, e, n; a.GetDimensions(1, w, e, n);
    uint cw, ch, ce; c.GetDimensions(cw, ch, ce);
    uint sn, ss; sb.GetDimensions(sn, ss);
    uint old; InterlockedAdd(img[uint2(1, 0)], 5, old);
    Out[0] = float4(w, e, n, cw);
    Out[1] = float4(ch, ce, sn, ss);
    Out[2] = float4(a.Load(int3(2, 1, 1), 1), v.Load(int4(1, 2, 3, 0), int3(1, 0, -1)), sb[4].y, old);
    Out[3] = float4(d.SampleCmpLevelZero(cmp, float2(0.1, 0.1), 0.5), d.SampleCmpLevelZero(cmp, float2(0.9, 0.9), 0.5),
                    0, 0);
}
"""
HEAP_WANT = [4.0, 2.0, 2.0, 2.0, 2.0, 2.0, 5.0, 16.0, val(3, layer=1, mip=1), val(2, 2, 2), 4.5, 7.0, 0.0, 1.0, 0.0, 0.0]


def _heap_descs(vk, rs: int, rb: int, ss: int, sb: int) -> list:
    """Resource heap elements 0..5 as HEAP reads them, fillers to 16; sampler heap: a comparison sampler at 12.
    When both heaps are one binding (dxil-spirv), element 12 of the one heap is that sampler."""
    kinds = [
        lambda i: vk.Image(rs, rb, r32f(8, layers=2, mips=2), 8, 1, "r32f", "sampled_image", dim="1d_array", layers=2,
                           mips=2, index=i),
        lambda i: vk.Image(rs, rb, r32f(2, 2, layers=12), 2, 2, "r32f", "sampled_image", dim="cube_array", layers=12,
                           index=i),
        lambda i: vk.Image(rs, rb, r32f(4, 4, depth=4), 4, 4, "r32f", "sampled_image", dim="3d", depth=4, index=i),
        lambda i: vk.Buf(rs, rb, R.pack("f", [c + k / 2 for c in range(5) for k in range(4)]), "storage", index=i),
        lambda i: vk.Image(rs, rb, R.pack("I", [3, 7]), 2, 1, "r32ui", "storage_image", index=i),
        lambda i: vk.Image(rs, rb, R.pack("f", [0.25, 0.5, 0.75, 1.0] * 4), 4, 4, "d32f", "sampled_image", index=i),
    ]
    descs = [make(i) for i, make in enumerate(kinds)]
    shared = (rs, rb) == (ss, sb)
    for i in range(len(kinds), 16):
        descs.append(vk.Sampler(ss, sb, compare="less_equal", index=i) if shared and i == 12
                     else vk.Buf(rs, rb, R.pack("I", [i]), "storage", index=i))
    if not shared:
        descs += [vk.Sampler(ss, sb, compare="less_equal" if i == 12 else None, index=i) for i in range(16)]
    return descs


@pytest.mark.vulkan
def test_heap_kinds_execute():
    """Texture1DArray / TextureCubeArray / Texture3D / StructuredBuffer / RWTexture2D<uint> (an atomic) / a
    depth texture with a SamplerComparisonState, all taken from the heaps: SPIR-V on lavapipe, and the DXIL
    through dxil-spirv (its heaps: set 0 binding 0)."""
    from harness import dxil_consumer, tools
    res = R.compile_hlsl(HEAP, profile="cs_6_6", env="vulkan1.2")
    assert res.ok, R.diagnostics_text(res)
    tools.spirv_val(res.binary, "vulkan1.2")
    vk = R.vk_runner()
    heaps = {h["heap"]: h["vulkan"] for h in res.manifest["descriptor_heaps"]}
    out = R.resource(res.manifest, "Out")["vulkan"]
    descs = [vk.Buf(out["set"], out["binding"], R.sentinel(16), "storage"),
             *_heap_descs(vk, heaps["resource"]["set"], heaps["resource"]["binding"], heaps["sampler"]["set"],
                          heaps["sampler"]["binding"])]
    assert R.unpack("f", vk.run_compute(res.binary, "main", descs)[0]) == HEAP_WANT
    dx = R.compile_hlsl(HEAP, profile="cs_6_6", target="dxil")
    assert dx.ok, R.diagnostics_text(dx)
    spirv = dxil_consumer.to_spirv(dx.binary)
    descs = [vk.Buf(0, dxil_consumer.SHIFTS["u"], R.sentinel(16), "storage"), *_heap_descs(vk, 0, 0, 0, 0)]
    assert R.unpack("f", vk.run_compute(spirv, "main", descs)[0]) == HEAP_WANT


# ---------------------------------------------------------------- multisampled textures (executed: cleared images)

MS = """
Texture2DMS<float4> A : register(t1);
Texture2DMSArray<uint> B : register(t2);
RWStructuredBuffer<float4> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
    uint w, h, s; A.GetDimensions(w, h, s);
    float fw, fh, fe, fs; B.GetDimensions(fw, fh, fe, fs);
    Out[0] = float4(w, h, s, 0);
    Out[1] = float4(fw, fh, fe, fs);
    Out[2] = A.Load(int2(1, 2), 3) + A.sample[2][uint2(0, 1)];
    Out[3] = float4(B.Load(int3(1, 0, 1), 1), B.sample[3][uint3(2, 2, 0)], B.Load(int3(0, 0, 0), 0, int2(1, 1)), 0);
    for (int i = 0; i < 5; i++)
        Out[4 + i] = float4(A.GetSamplePosition(i), B.GetSamplePosition(i));
}
"""
# D3D's standard 4-sample pattern, in 1/16 pixel from the centre (D3D11_STANDARD_MULTISAMPLE_PATTERN)
FOUR_SAMPLES = [(-2, -6), (6, -2), (-6, 2), (2, 6)]


def test_multisampled_textures_execute():
    """Texture2DMS / Texture2DMSArray with 4 samples (images cleared to one texel: the harness has no per-sample
    upload): GetDimensions' sample count (uint and float outputs), Load with a sample index (and an offset),
    .sample[s][pos], and GetSamplePosition (D3D's standard pattern; (0, 0) for a sample that does not exist).
    Regression: GetSamplePosition was refused ('no member function')."""
    out = R.cs(MS, {"A": R.image(R.pack("f", [1, 2, 3, 4]), 4, 3, "rgba32f", samples=4),
                    "B": R.image(R.pack("I", [7]), 3, 3, "r32ui", dim="2d_array", layers=2, samples=4),
                    "Out": R.storage(R.sentinel(36))}, dxil_skip="multisampled")
    pos = [(x / 16, y / 16) for x, y in FOUR_SAMPLES] + [(0.0, 0.0)]
    want = [4.0, 3.0, 4.0, 0.0, 3.0, 3.0, 2.0, 4.0, 2.0, 4.0, 6.0, 8.0, 7.0, 7.0, 7.0, 0.0]
    want += [c for p in pos for c in (*p, *p)]
    assert R.unpack("f", out["Out"]) == want


def test_sample_position_table_in_spirv():
    """The SPIR-V table GetSamplePosition reads: every standard pattern (1, 2, 4, 8, 16 samples) in turn, then
    (0, 0), a Private array indexed by count - 1 + index (spirv-val at Vulkan 1.2 too: the variable is in the
    entry point's interface from SPIR-V 1.4)."""
    from harness import tools
    patterns = {1: [(0, 0)], 2: [(4, 4), (-4, -4)], 4: FOUR_SAMPLES,
                8: [(1, -3), (-1, 3), (5, 1), (-3, -5), (-5, 5), (-7, -1), (3, 7), (7, -7)],
                16: [(1, 1), (-1, -3), (-3, 2), (4, -1), (-5, -2), (2, 5), (5, 3), (3, -5), (-2, 6), (0, -7),
                     (-4, -6), (-6, 4), (-8, 0), (7, -4), (6, 7), (-7, -8)]}
    flat = [p for n in (1, 2, 4, 8, 16) for p in patterns[n]] + [(0, 0)]
    text = R.spirv_dis(R.build(MS))
    consts = {name: float(v) for name, v in re.findall(r"(%\w+) = OpConstant %float (\S+)", text)}
    pairs = {cid: (consts[x], consts[y])
             for cid, x, y in re.findall(r"(%\w+) = OpConstantComposite %v2float (%\w+) (%\w+)\n", text)}
    table = re.search(r"= OpConstantComposite %_arr_v2float_uint_32 ((?:%\w+ ?)+)\n", text)
    assert table, text
    assert [pairs[c] for c in table.group(1).split()] == [(x / 16, y / 16) for x, y in flat]
    v12 = R.compile_hlsl(MS, env="vulkan1.2")
    tools.spirv_val(v12.binary, "vulkan1.2")


# ---------------------------------------------------------------- 3-component elements, integer texels, atomics

FLOAT3_STORE = """
RWBuffer<float3> B : register(u1);
RWTexture2D<float3> T : register(u2);
[numthreads(2, 1, 1)]
void main(uint3 t : SV_DispatchThreadID) { B[t.x] = B[t.x].zyx * 2 + t.x; T[t.xy] = float3(t.x + 1, 5, 6); }
"""


def test_float3_element_store_fills_w_as_d3d():
    """Regression: a float3 element lives in an Rgba32f view; SPIR-V wrote its w as 0 where D3D (DXC's DXIL:
    the typed store repeats the first component) writes x, so the two targets left different bytes."""
    out = R.cs(FLOAT3_STORE, {"B": R.texel(R.pack("f", range(8)), "rgba32f"),
                              "T": R.image(bytes(32), 2, 1, "rgba32f", storage_image=True)})
    b = [[2 * v + i for v in (4 * i + 2, 4 * i + 1, 4 * i)] for i in range(2)]
    assert R.unpack("f", out["B"]) == [c for v in b for c in (*v, v[0])]
    assert R.unpack("f", out["T"]) == [1.0, 5.0, 6.0, 1.0, 2.0, 5.0, 6.0, 2.0]


MIXED = """
Buffer<float3> B : register(t1);
Texture2D<float3> T3 : register(t2);
Texture2D<uint4> TU : register(t3);
Texture1D<int4> TI : register(t4);
RWStructuredBuffer<float4> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
    Out[0] = float4(B[1], T3.Load(int3(0, 0, 0)).z);
    Out[1] = TU[uint2(1, 0)];
    Out[2] = TI.Load(int2(1, 0));
    Out[3] = TU.Load(int3(0, 0, 0), int2(1, 0)).wzyx;
}
"""


def test_three_component_and_integer_texels():
    out = R.cs(MIXED, {"B": R.texel(R.pack("f", range(8)), "rgba32f", writable=False),
                       "T3": R.image(R.pack("f", range(8)), 2, 1, "rgba32f"),
                       "TU": R.image(R.pack("I", range(8)), 2, 1, "rgba32ui"),
                       "TI": R.image(R.pack("i", [-1, -2, -3, -4, 5, -6, 7, -8]), 2, 1, "rgba32i", dim="1d"),
                       "Out": R.storage(R.sentinel(16))})
    assert R.unpack("f", out["Out"]) == [4.0, 5.0, 6.0, 2.0, 4.0, 5.0, 6.0, 7.0, 5.0, -6.0, 7.0, -8.0, 7.0, 6.0, 5.0, 4.0]


ATOMICS_MORE = """
RWBuffer<uint> U[2] : register(u1);
RWTexture1D<uint> A : register(u3);
RWTexture3D<int> B : register(u4);
RWTexture2DArray<uint> C : register(u5);
RWStructuredBuffer<uint4> Out : register(u0);
[numthreads(2, 1, 1)]
void main(uint3 t : SV_DispatchThreadID) {
    uint o, a, c; int b;
    InterlockedAdd(U[1][t.x], 10, o);
    InterlockedOr(U[0][0], 1u << t.x);
    InterlockedMax(A[t.x], 5u, a);
    InterlockedMin(B[uint3(t.x, 0, 1)], -2, b);
    InterlockedCompareExchange(C[uint3(t.x, 0, 1)], 9u, 4u, c);
    Out[t.x] = uint4(o, a, asuint(b), c);
}
"""


def test_interlocked_on_typed_buffer_arrays_and_other_texture_kinds():
    out = R.cs(ATOMICS_MORE, {
        "U": [R.texel(R.pack("I", [0, 0]), "r32ui"), R.texel(R.pack("I", [1, 2]), "r32ui")],
        "A": R.image(R.pack("I", [3, 8]), 2, 1, "r32ui", storage_image=True, dim="1d"),
        "B": R.image(R.pack("i", [0, 0, 7, -9]), 2, 1, "r32i", storage_image=True, dim="3d", depth=2),
        "C": R.image(R.pack("I", [0, 0, 9, 1]), 2, 1, "r32ui", storage_image=True, dim="2d_array", layers=2),
        "Out": R.storage(R.sentinel(8))})
    assert R.unpack("I", out["U[0]"]) == [3, 0] and R.unpack("I", out["U[1]"]) == [11, 12]
    assert R.unpack("I", out["A"]) == [5, 8]
    assert R.unpack("i", out["B"]) == [0, 0, -2, -9]
    assert R.unpack("I", out["C"]) == [0, 0, 4, 1]
    assert R.unpack("I", out["Out"]) == [1, 3, 7, 9, 2, 8, 2**32 - 9, 1]


@pytest.mark.parametrize(("decl", "call", "want"), [
    ("Texture2D<float> Tex : register(t1);", "uint a, b, c; Tex.GetDimensions(a, b, c);", "2 or 4 arguments, have 3"),
    ("Texture2DArray<float> Tex : register(t1);", "uint a, b, c, d; Tex.GetDimensions(a, b, c, d);",
     "3 or 5 arguments, have 4"),
    ("Texture2DMS<float> Tex : register(t1);", "uint a, b; Tex.GetDimensions(a, b);", "3 arguments, have 2"),
    ("RWTexture2D<float> Tex : register(u1);", "uint a, b, c; Tex.GetDimensions(a, b, c);", "2 arguments, have 3"),
], ids=["2d-three", "2d-array-four", "ms-without-samples", "rw-with-levels"])
def test_get_dimensions_overloads_dxc_does_not_have(decl, call, want):
    """Regression: a texture with mips also took (dims..., levels) without the mip argument, and a multisampled
    one (dims...) without the sample count; DXC has neither overload."""
    src = f"{OUTF}{decl}\n[numthreads(1, 1, 1)]\nvoid main() {{\n  {call}\n}}\n"
    kind = decl.split("<")[0]
    col = 3 + call.index("Tex.GetDimensions") + 4
    for target in ("spirv", "dxil"):
        assert R.errors(R.compile_hlsl(src, target=target)) == [
            f"5:{col}: no matching member function for call to 'GetDimensions' on '{kind}': expected {want}"]


# ---------------------------------------------------------------- sampling integer textures (SM 6.7)

INT_SAMPLE = """
Texture2D<uint> U : register(t1);
Texture2D<int4> I : register(t2);
SamplerState S : register(s3);
RWStructuredBuffer<uint4> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
    Out[0] = uint4(U.SampleLevel(S, float2(0.6, 0.1), 0), U.SampleGrad(S, float2(0.1, 0.9), 0, 0, int2(1, 0)), 0, 0);
    Out[1] = asuint(I.SampleLevel(S, float2(0.75, 0.25), 0));
}
"""


def test_integer_texture_sampling_needs_sm67():
    """Below SM 6.7 sampling an integer texture is an error, as in DXC ('cannot SampleLevel from resource
    containing uint'); SampleCmp, SampleCmpLevel and SampleCmpLevelZero refuse one at any model (DXC's
    IsValidObjectElement)."""
    for target in ("spirv", "dxil"):
        assert R.errors(R.compile_hlsl(INT_SAMPLE, profile="cs_6_6", target=target)) == [
            "8:22: cannot SampleLevel from resource containing uint", "8:61: cannot SampleGrad from resource containing uint",
            "9:23: cannot SampleLevel from resource containing int4"]
    cmp = (f"{OUTF}Texture2D<uint> U : register(t1);\n{C}\n[numthreads(1, 1, 1)]\n"
           "void main() {\n  Out[0] = U.SampleCmpLevelZero(C, 0.5, 0.5);\n}\n")
    for target in ("spirv", "dxil"):        # DXC refuses SampleCmp* on integers at every model (fnf12)
        assert R.errors(R.compile_hlsl(cmp, profile="cs_6_7", target=target)) == [
            "6:14: cannot SampleCmpLevelZero from resource containing uint"]


@pytest.mark.vulkan
def test_integer_texture_sampling_executes_at_sm67():
    """SM 6.7 integer sampling (nearest): SPIR-V on lavapipe and the DXIL (sampleLevel.i32 / sampleGrad.i32)
    through dxil-spirv; the interpreter samples float textures only, so the twin is run here directly."""
    from harness import dxil_consumer, tools
    u = list(range(100, 116))                         # texel (x, y) = 100 + x + 4y
    i = [v * (-1) ** (k % 2) for k, v in enumerate(range(64))]
    want = [100 + 2, 100 + 1 + 12, 0, 0] + [x & 0xFFFFFFFF for x in i[(1 * 4 + 3) * 4:(1 * 4 + 3) * 4 + 4]]
    vk = R.vk_runner()
    res = R.compile_hlsl(INT_SAMPLE, profile="cs_6_7")
    assert res.ok, R.diagnostics_text(res)
    tools.spirv_val(res.binary, "vulkan1.1")

    def descs(m: dict | None, shift=lambda c, r: r) -> list:
        where = {n: (R.resource(m, n)["vulkan"]["set"], R.resource(m, n)["vulkan"]["binding"]) for n in
                 ("U", "I", "S", "Out")} if m else {"U": (0, shift("t", 1)), "I": (0, shift("t", 2)),
                                                    "S": (0, shift("s", 3)), "Out": (0, shift("u", 0))}
        return [vk.Image(*where["U"], R.pack("I", u), 4, 4, "r32ui"),
                vk.Image(*where["I"], R.pack("i", i), 4, 4, "rgba32i"), vk.Sampler(*where["S"]),
                vk.Buf(*where["Out"], R.sentinel(8), "storage")]
    assert R.unpack("I", vk.run_compute(res.binary, "main", descs(res.manifest))[3]) == want
    dx = R.compile_hlsl(INT_SAMPLE, profile="cs_6_7", target="dxil")
    assert dx.ok, R.diagnostics_text(dx)
    spirv = dxil_consumer.to_spirv(dx.binary)
    got = vk.run_compute(spirv, "main", descs(None, lambda c, r: dxil_consumer.SHIFTS[c] + r))
    assert R.unpack("I", got[3]) == want


# ---------------------------------------------------------------- known gaps (strict xfails naming the component)

COUNTER_ARRAY = """
RWStructuredBuffer<uint> U[2] : register(u1);
AppendStructuredBuffer<uint> A[2] : register(u4);
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(4, 1, 1)]
void main(uint3 t : SV_DispatchThreadID) {
    uint k = t.x & 1;
    uint i = U[k].IncrementCounter();   // element k's own counter: the value before the increment
    U[k][i] = 100 + t.x;
    Out[t.x] = i;
    A[1].Append(200 + t.x);
}
"""


@pytest.mark.llvm
def test_counter_of_a_structured_buffer_array():
    """`U[i].IncrementCounter()` and `A[1].Append(..)` on structured-buffer arrays: DXC's SPIR-V makes an array
    of counter buffers (`counter.var.U`, one per element) at the manifest's counter_binding, the element's
    index choosing its counter.  Run on lavapipe with each element's counter bound at that binding (index k),
    and the DXIL twin on the interpreter (each element's UAV has its own hidden counter)."""
    res = R.build(COUNTER_ARRAY)
    vk = R.vk_runner()
    u, a = R.resource(res.manifest, "U")["vulkan"], R.resource(res.manifest, "A")["vulkan"]
    assert u["count"] == 2 and a["count"] == 2 and u["counter_binding"] != a["counter_binding"]
    # a root signature's Vulkan view of the same manifest: each counter binding holds two counters
    from shaderbuild.rootsig.manifest import vulkan_layout
    layout = vulkan_layout(res.manifest["resources"], [], "compute")["set_layouts"]
    assert sorted(b["count"] for s in layout for b in s["bindings"] if b["resource"].startswith("counter.")) == [2, 2]
    starts = {("U", 0): 3, ("U", 1): 7, ("A", 0): 0, ("A", 1): 2}
    descs = [vk.Buf(u["set"], u["binding"], R.sentinel(12), index=k) for k in range(2)]
    descs += [vk.Buf(a["set"], a["binding"], R.sentinel(8), index=k) for k in range(2)]
    descs += [vk.Buf(v["set"], v["counter_binding"], R.pack("I", [starts[(n, k)]]), index=k)
              for n, v in (("U", u), ("A", a)) for k in range(2)]
    descs.append(vk.Buf(*(R.resource(res.manifest, "Out")["vulkan"][f] for f in ("set", "binding")), R.sentinel(4)))

    def check(got: list[bytes]) -> None:     # U[0], U[1], A[0], A[1], [the four counters,] Out
        out = R.unpack("I", got[-1])
        assert sorted(out[0::2]) == [3, 4] and sorted(out[1::2]) == [7, 8], out      # even threads U[0], odd U[1]
        for k in range(2):
            vals = R.unpack("I", got[k])
            assert all(vals[out[t]] == 100 + t for t in range(k, 4, 2)), vals
        assert R.unpack("I", got[2]) == [R.SENTINEL] * 8                             # A[0] untouched
        a1 = R.unpack("I", got[3])
        assert a1[:2] == [R.SENTINEL] * 2 and sorted(a1[2:6]) == [200, 201, 202, 203], a1
        if len(got) == 9:       # lavapipe: the counter buffers are read back too
            assert [R.unpack("I", got[4 + j])[0] for j in range(4)] == [5, 9, 0, 6]   # U[0], U[1], A[0], A[1]

    check(vk.run_compute(res.binary, "main", descs, o0_check=lambda again, _first: check(again)))
    dis = R.spirv_dis(res)
    assert re.search(r"%counter_var_U = OpVariable %_ptr_\w+_arr_type_ACSBuffer_counter_uint_2 ", dis), dis
    # the DXIL twin on the interpreter: element k of U is register u1 + k with its own counter
    from harness import dxil_exec
    dx, _chk = R.build_dxil(COUNTER_ARRAY)
    check(dxil_exec.run_dxil_compute(dx.binary, "main", [
        *[(1 + k, 0, "u", R.sentinel(12), dxil_exec.View(counter=starts[("U", k)])) for k in range(2)],
        *[(4 + k, 0, "u", R.sentinel(8), dxil_exec.View(counter=starts[("A", k)])) for k in range(2)],
        (0, 0, "u", R.sentinel(4))]))


GATHER_FOUR_STATUS = f"""{OUTF}Texture2D<float4> Tex : register(t1);
{S}
[numthreads(1, 1, 1)]
void main() {{
    uint s, c;
    Out[0] = Tex.GatherGreen(S, float2(0.5, 0.5), int2(0, 0), int2(1, 0), int2(0, 1), int2(-1, -1), s);
    Out[1] = Tex.GatherRed(S, float2(0.3, 0.6), int2(1, 1), int2(0, -1), int2(-1, 0), int2(1, -1), c);
    Out[2] = float4(CheckAccessFullyMapped(s), CheckAccessFullyMapped(c), s == c, 0);
}}
"""


@pytest.mark.llvm
def test_gather_four_offsets_with_status():
    """The four-offset Gather* forms with an `out uint status` (DXC's overload): four gathers, texel k from the
    k-th, and one status that is fully mapped only when all four are (the first code not resident, else the
    last; DXC's DXIL keeps the first gather's status only).  SPIR-V: four OpImageSparseGather, the codes
    folded with OpImageSparseTexelsResident + OpSelect; lavapipe lacks shaderResourceResidency (its worker
    crashes on sparse reads), so the SPIR-V is validated only and the DXIL runs on the interpreter."""
    from harness import dxil_exec
    res = R.build(GATHER_FOUR_STATUS)       # spirv-val and reflection
    dis = R.spirv_dis(res)
    assert dis.count("OpImageSparseGather") == 8 and dis.count("OpImageSparseTexelsResident") == 2 + 6
    dx, chk = R.build_dxil(GATHER_FOUR_STATUS)
    # the interpreter's reads are all fully mapped: the fold's shape is checked in the IR (8 gathers; per
    # status three checkAccessFullyMapped + select steps, and the shader's own two calls)
    assert chk.ir.count("call %dx.types.ResRet.f32 @dx.op.textureGather.f32(") == 8
    assert chk.ir.count("call i1 @dx.op.checkAccessFullyMapped.i32(") == 2 * 3 + 2 and chk.ir.count("select i1") == 6
    got = dxil_exec.run_dxil_compute(dx.binary, "main", [
        (1, 0, "t", r32f(4, 4, channels=4), dxil_exec.View(fmt="rgba32f", width=4, height=4)),
        (2, 0, "s", b"", dxil_exec.View()), (0, 0, "u", R.sentinel(12))])
    want = (_gather_want(0.5, 0.5, [(0, 0), (1, 0), (0, 1), (-1, -1)], channel=1)
            + _gather_want(0.3, 0.6, [(1, 1), (0, -1), (-1, 0), (1, -1)]) + [1.0, 1.0, 1.0, 0.0])
    assert R.unpack("f", got[2]) == want


HEAP2 = """
RWStructuredBuffer<float4> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
    Texture2DMS<float4> ms = ResourceDescriptorHeap[0];
    RWBuffer<uint> rb = ResourceDescriptorHeap[1];
    Buffer<float4> tb = ResourceDescriptorHeap[2];
    ByteAddressBuffer raw = ResourceDescriptorHeap[3];
    TextureCube<float> cube = ResourceDescriptorHeap[4];
    SamplerState s = SamplerDescriptorHeap[13];
    uint w, h, n; ms.GetDimensions(w, h, n);
    uint old; InterlockedAdd(rb[1], 10, old);
    uint tn; tb.GetDimensions(tn);
    uint cw, ch, cl; cube.GetDimensions(0, cw, ch, cl);
    Out[0] = float4(w, h, n, old);
    Out[1] = float4(ms.GetSamplePosition(3), ms.Load(int2(1, 1), 2).y, tn);
    Out[2] = float4(tb[1].z, asfloat(raw.Load(8)), cube.SampleLevel(s, float3(0.01, -1, 0.01), 0), cw * 10 + cl);
}
"""
HEAP2_WANT = [4.0, 2.0, 4.0, 5.0, 2 / 16, 6 / 16, 2.0, 3.0, 6.0, 2.5, val(1, 0, layer=3), 21.0]


def _heap2_descs(vk, rs: int, rb: int, ss: int, sb: int) -> list:
    kinds = [
        lambda i: vk.Image(rs, rb, R.pack("f", [1, 2, 3, 4]), 4, 2, "rgba32f", "sampled_image", samples=4, index=i),
        lambda i: vk.TexelBuffer(rs, rb, R.pack("I", [4, 5, 6]), "r32ui", "storage_texel_buffer", index=i),
        lambda i: vk.TexelBuffer(rs, rb, R.pack("f", range(12)), "rgba32f", "uniform_texel_buffer", index=i),
        lambda i: vk.Buf(rs, rb, R.pack("f", [0.5, 1.5, 2.5, 3.5]), "storage", index=i),
        lambda i: vk.Image(rs, rb, r32f(2, 2, layers=6), 2, 2, "r32f", "sampled_image", dim="cube", layers=6, index=i),
    ]
    descs = [make(i) for i, make in enumerate(kinds)]
    shared = (rs, rb) == (ss, sb)
    for i in range(len(kinds), 16):
        descs.append(vk.Sampler(ss, sb, index=i) if shared and i == 13 else vk.Buf(rs, rb, R.pack("I", [i]), "storage",
                                                                                  index=i))
    if not shared:
        descs += [vk.Sampler(ss, sb, index=i) for i in range(16)]
    return descs


@pytest.mark.vulkan
def test_heap_kinds_execute_more():
    """Texture2DMS (sample count, position, a sample), RWBuffer<uint> (an atomic), Buffer<float4>,
    ByteAddressBuffer and TextureCube from the heaps, SPIR-V and DXIL through dxil-spirv."""
    from harness import dxil_consumer, tools
    res = R.compile_hlsl(HEAP2, profile="cs_6_6", env="vulkan1.2")
    assert res.ok, R.diagnostics_text(res)
    tools.spirv_val(res.binary, "vulkan1.2")
    vk = R.vk_runner()
    heaps = {h["heap"]: h["vulkan"] for h in res.manifest["descriptor_heaps"]}
    out = R.resource(res.manifest, "Out")["vulkan"]
    descs = [vk.Buf(out["set"], out["binding"], R.sentinel(12), "storage"),
             *_heap2_descs(vk, heaps["resource"]["set"], heaps["resource"]["binding"], heaps["sampler"]["set"],
                           heaps["sampler"]["binding"])]
    assert R.unpack("f", vk.run_compute(res.binary, "main", descs)[0]) == HEAP2_WANT
    dx = R.compile_hlsl(HEAP2, profile="cs_6_6", target="dxil")
    assert dx.ok, R.diagnostics_text(dx)
    descs = [vk.Buf(0, dxil_consumer.SHIFTS["u"], R.sentinel(12), "storage"), *_heap2_descs(vk, 0, 0, 0, 0)]
    assert R.unpack("f", vk.run_compute(dxil_consumer.to_spirv(dx.binary), "main", descs)[0]) == HEAP2_WANT


NESTED_WRITE = """
struct In { float2x3 m; bool b[2]; int3 i; };
struct E { In a[2]; float f; bool c; };
StructuredBuffer<E> SB : register(t1);
RWStructuredBuffer<E> W : register(u2);
AppendStructuredBuffer<E> A : register(u3);
[numthreads(1, 1, 1)]
void main() {
    E e = SB[2];
    W[0] = e;                               // a whole element
    W[1] = SB[1];
    W[1].a[1].b[1] = !e.c;                  // one bool of an array of a struct of an array
    W[1].a[0].m[1][2] = e.f * 4;            // one matrix element
    W[1].a[1].i.yz = int2(-7, 8);           // a swizzle of an int3 member
    e.a[0].b[0] = true;
    A.Append(e);
}
"""


def _nested_read(buf: bytes, layout: str, e: int) -> dict:
    step, ob, oi, of, oc, stride = NESTED_LAYOUTS[layout]
    base = e * stride
    out = {"f": struct.unpack_from("<f", buf, base + of)[0], "c": struct.unpack_from("<I", buf, base + oc)[0]}
    for a in range(2):
        ia = base + a * step
        out[f"m{a}"] = [struct.unpack_from("<f", buf, ia + 8 * c + 4 * r)[0] for r in range(2) for c in range(3)]
        out[f"b{a}"] = list(struct.unpack_from("<2I", buf, ia + ob))
        out[f"i{a}"] = list(struct.unpack_from("<3i", buf, ia + oi))
    return out


@pytest.mark.llvm
def test_structured_buffer_nested_struct_writes():
    """Writes into structured buffers of nested structs (a whole element, one bool of an array, one matrix
    element, a swizzle) and Append of one: checked field by field against the source element, Vulkan layout on
    lavapipe, D3D layout on the interpreter."""
    from harness import dxil_exec

    def check(layout: str, w: bytes, a: bytes) -> None:
        src = _nested_data(layout)
        want0, want1 = _nested_read(src, layout, 2), _nested_read(src, layout, 1)
        want1["b1"][1] = 1 - want0["c"]
        want1["m0"][5] = want0["f"] * 4                       # m[1][2]: row 1, column 2
        want1["i1"][1:] = [-7, 8]
        appended = dict(want0, b0=[1, want0["b0"][1]])
        assert _nested_read(w, layout, 0) == want0
        assert _nested_read(w, layout, 1) == want1
        assert _nested_read(a, layout, 0) == appended

    stride = NESTED_LAYOUTS["vulkan"][5]
    res = R.build(NESTED_WRITE)
    vk = R.vk_runner()
    descs = R.bind([res.manifest], {"SB": R.storage(_nested_data("vulkan")), "W": R.storage(bytes(2 * stride)),
                                    "A": R.storage(bytes(stride))})
    v = R.resource(res.manifest, "A")["vulkan"]
    descs.append(vk.Buf(v["set"], v["counter_binding"], R.pack("I", [0])))
    got = vk.run_compute(res.binary, "main", descs)
    check("vulkan", got[1], got[2])
    dx, _chk = R.build_dxil(NESTED_WRITE)
    d3d = NESTED_LAYOUTS["d3d"][5]
    got = dxil_exec.run_dxil_compute(dx.binary, "main", [(1, 0, "t", _nested_data("d3d")), (2, 0, "u", bytes(2 * d3d)),
                                                         (3, 0, "u", bytes(d3d), dxil_exec.View(counter=0))])
    check("d3d", got[1], got[2])


APPEND_CONSUME_DIMS = """
ConsumeStructuredBuffer<float2> C : register(u1);
AppendStructuredBuffer<uint> A : register(u2);
RWStructuredBuffer<uint4> Out : register(u0);
[numthreads(1, 1, 1)]
void main() { uint n, s, m, t; C.GetDimensions(n, s); A.GetDimensions(m, t); Out[0] = uint4(n, s, m, t); }
"""


def test_append_consume_get_dimensions_without_counter_use():
    """Regression: an Append/Consume buffer whose counter the code never touches (only GetDimensions) had its
    counter in the manifest but not in the SPIR-V (spirv-cross saw fewer descriptors); the counter is declared
    with the buffer now, so its binding does not depend on the code."""
    res = R.build(APPEND_CONSUME_DIMS)
    assert "counter.var.C" in R.spirv_dis(res) and "counter.var.A" in R.spirv_dis(res)
    out = R.run_cs(res, {"C": R.storage(bytes(40)), "A": R.storage(bytes(12)), "Out": R.storage(R.sentinel(4))})
    assert R.unpack("I", out["Out"]) == [5, 8, 3, 4]


UNBOUNDED = """
Texture2D<float> T[] : register(t1);
SamplerState S[] : register(s1, space1);
Buffer<float> B[] : register(t0, space2);
RWStructuredBuffer<float4> Out : register(u0);
[numthreads(4, 1, 1)]
void main(uint3 t : SV_DispatchThreadID) {
    uint i = NonUniformResourceIndex(t.x % 3);
    Out[t.x] = float4(T[i].SampleLevel(S[NonUniformResourceIndex(t.x % 2)], float2(1.3, 0.1), 0),
                      T[NonUniformResourceIndex(2 - t.x % 3)].Load(int3(0, 0, 0)), B[NonUniformResourceIndex(t.x % 2)][t.x], 0);
}
"""


def test_unbounded_arrays_with_non_uniform_indices():
    """Unbounded texture, sampler and typed-buffer arrays indexed per thread through NonUniformResourceIndex
    (the index kept in a local too): texture k holds 10k + x, sampler 0 wraps and 1 clamps (u = 1.3: x = 1 or 3),
    buffer k holds 100 + 10k + j."""
    out = R.cs(UNBOUNDED, {
        "T": [R.image(R.pack("f", [k * 10 + x for _y in range(4) for x in range(4)]), 4, 4, "r32f") for k in range(3)],
        "S": [R.sampler(address="wrap"), R.sampler(address="clamp")],
        "B": [R.texel(R.pack("f", [100 + k * 10 + j for j in range(4)]), "r32f", writable=False) for k in range(2)],
        "Out": R.storage(R.sentinel(16))})
    want = []
    for t in range(4):
        x = 1 if t % 2 == 0 else 3
        want += [10.0 * (t % 3) + x, 10.0 * (2 - t % 3), 100.0 + 10 * (t % 2) + t, 0.0]
    assert R.unpack("f", out["Out"]) == want


def _advanced_texture_ops(src: str) -> tuple[bool, int]:
    """(SFI0's AdvancedTextureOps as obj2yaml reads it, the entry's shader flags) of the SM 6.7 DXIL build."""
    res, chk = R.build_dxil(src, profile="cs_6_7")
    sfi0 = next(p for p in chk.container["Parts"] if p["Name"] == "SFI0").get("Flags", {})
    m = re.search(r"^!\d+ = !\{i32 0, i64 (\d+), ", chk.ir, re.M)
    assert m, chk.ir
    return bool(sfi0.get("AdvancedTextureOps", False)), int(m.group(1))


def test_advanced_texture_ops_flag():
    """SampleCmpLevel is an SM 6.7 "advanced texture op": DXIL shader flag bit 34 (DxilShaderFlags.h) and SFI0's
    AdvancedTextureOps (0x20000000), as DXC's flag collection sets them; a SampleCmpLevelZero module has
    neither, and neither has integer sampling (DXC's CollectShaderFlags has no such rule, since SM 6.7's
    introduction: flags13 removed the flag a validator would have refused; test_dxil_shader_flags13 has the rest)."""
    cmp = f"{OUTF}{T2}\n{C}\n[numthreads(1, 1, 1)]\nvoid main() {{ Out[0] = Tex.SampleCmpLevel(C, 0.5, 0.5, 1); }}\n"
    zero = cmp.replace("SampleCmpLevel(C, 0.5, 0.5, 1)", "SampleCmpLevelZero(C, 0.5, 0.5)")
    for src, want in ((cmp, True), (INT_SAMPLE, False), (zero, False)):
        sfi0, flags = _advanced_texture_ops(src)
        assert sfi0 is want and bool(flags >> 34 & 1) is want, (src, sfi0, flags)
