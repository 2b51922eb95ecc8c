"""Issue 20: texture offsets built from the counters of `[unroll]` loops (the PCF shadow-filter pattern).

DXC accepts `Tex.SampleCmpLevelZero(S, uv, z, int2(x, y))` inside fully unrolled loops: after unrolling every
offset is an immediate.  shaderbuild's sema lets such an offset through when every variable it reads is the
counter of an enclosing `[unroll]` loop the unroll pass can unroll fully (checking each iteration's value is
in [-8, 7]); the pass then unrolls those loops at every optimisation level and folds the offsets.  Executed
on lavapipe (SPIR-V at -O3, repeated at -O0 by the harness, and built at -O0 here) and as the DXIL twin (the
interpreter and dxil-spirv); expected values are computed here from the texel data.  Refused forms are
checked with their exact locations.
"""

from __future__ import annotations

import pytest
import res_util as R

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

N = 8                                                   # the textures are N x N r32f


def depth(x: int, y: int) -> float:
    """Depth texel (x, y): eighths plus a sixteenth, never equal to the 0.5 reference."""
    return ((x * 5 + y * 3) % 8 + 0.5) / 8


def value(x: int, y: int) -> float:
    return float(x + N * y)


def _tex(f) -> object:
    return R.image(R.pack("f", [f(x, y) for y in range(N) for x in range(N)]), N, N, "r32f")


PCF = """
Texture2D<float> Depth : register(t0);
SamplerComparisonState C : register(s1);
RWStructuredBuffer<float> Out : register(u2);
[numthreads(1,1,1)] void main() {
    float2 uv = float2(4.5, 4.5) / 8.0;             // the centre of texel (4, 4)
    float sum = 0, bits = 0;
    [unroll] for (int y = -1; y <= 1; ++y)
        [unroll] for (int x = -1; x <= 1; ++x) {
            float lit = Depth.SampleCmpLevelZero(C, uv, 0.5, int2(x, y));
            sum += lit;
            bits += lit * (1 << ((y + 1) * 3 + x + 1));
        }
    Out[0] = sum;
    Out[1] = bits;
    float wide = 0;
    [unroll] for (int j = 0; j < 4; j++)
        [unroll] for (uint i = 0; i < 4; i++)
            wide += Depth.SampleCmpLevelZero(C, uv, 0.5, int2(i, j) - 2) * (1 << (i + 4 * j));
    Out[2] = wide;
}
"""


def _lit(x: int, y: int) -> int:
    return int(0.5 < depth(x, y))                     # the 'less' comparison: reference < texel passes


@pytest.mark.parametrize("opt", [3, 0])
def test_pcf_3x3_and_4x4(opt):
    out = R.cs(PCF, {"Depth": _tex(depth), "C": R.sampler(compare="less"), "Out": R.storage(R.sentinel(3))},
               opt_level=opt)
    taps = [(x, y) for y in (-1, 0, 1) for x in (-1, 0, 1)]
    want_sum = sum(_lit(4 + x, 4 + y) for x, y in taps)
    want_bits = sum(_lit(4 + x, 4 + y) << ((y + 1) * 3 + x + 1) for x, y in taps)
    want_wide = sum(_lit(4 + i - 2, 4 + j - 2) << (i + 4 * j) for j in range(4) for i in range(4))
    assert 0 < want_sum < 9 and 0 < want_wide < 0xFFFF          # the data mixes lit and shadowed texels
    assert R.unpack("f", out["Out"]) == [float(want_sum), float(want_bits), float(want_wide)]


LOAD_GATHER = """
Texture2D<float> Tex : register(t0);
SamplerState S : register(s1);
RWStructuredBuffer<float> Out : register(u2);
[numthreads(1,1,1)] void main() {
    [unroll] for (int k = -3; k <= 3; k += 3)
        Out[(k + 3) / 3] = Tex.Load(int3(4, 4, 0), int2(k, -k));
    [unroll(3)] for (int m = 3; m > -4; m -= 3)     // counting down (unroll(N) at the trip count), scaled, swizzled
        Out[3 + (3 - m) / 3] = Tex.Load(int3(4, 4, 0), (int2(m, 1) * 2 - int2(m, 2)).yx);
    [unroll] for (int g = 0; g < 2; ++g) {
        const int2 moved = int2(g, -g);             // a const local of the counter
        float4 t = Tex.Gather(S, float2(4, 4) / 8.0, moved);
        Out[6 + 4 * g] = t.x; Out[7 + 4 * g] = t.y; Out[8 + 4 * g] = t.z; Out[9 + 4 * g] = t.w;
    }
}
"""


@pytest.mark.parametrize("opt", [3, 0])
def test_load_and_gather_offsets_from_counters(opt):
    out = R.cs(LOAD_GATHER, {"Tex": _tex(value), "S": R.sampler(), "Out": R.storage(R.sentinel(14))}, opt_level=opt)
    want = [value(4 + k, 4 - k) for k in (-3, 0, 3)]
    want += [value(4 + 0, 4 + m) for m in (3, 0, -3)]          # (2m - m, 2 - 2).yx = (0, m)
    for g in (0, 1):
        i0, j0 = 3 + g, 3 - g                                    # the footprint's top-left texel, moved
        want += [value(i0, j0 + 1), value(i0 + 1, j0 + 1), value(i0 + 1, j0), value(i0, j0)]
    assert R.unpack("f", out["Out"]) == want


def test_offsets_are_immediates_in_both_targets():
    # -O0: one sample per iteration; -O3: the 3x3 taps (offsets -1..1) repeat 4x4 taps (-2..1) and are merged
    for opt, samples in ((3, 16), (0, 9 + 16)):
        dis = R.spirv_dis(R.compile_hlsl(PCF, opt_level=opt))
        assert dis.count("ConstOffset") == samples, opt
        image_ops = [t for t in dis.splitlines() if "OpImage" in t]
        assert not any("Offset" in t.replace("ConstOffset", "") for t in image_ops)   # no variable Offset
        res, _check = R.build_dxil(PCF, opt_level=opt)        # check.py requires immediate offset operands
        assert res.ok


def _errors(src: str, target: str) -> list[str]:
    res = compile_file("u8.hlsl", CompileOptions(entry="main", profile="cs_6_0", target=target), text=src)
    assert not res.ok, f"{target}: compiled, expected an error"
    return [f"{d.loc.line}:{d.loc.col}: {d.message}" for d in res.diagnostics if d.severity == "error"]


HEAD = """Texture2D<float> Tex : register(t0);
RWStructuredBuffer<float> Out : register(u2);
[numthreads(1,1,1)] void main(uint3 id : SV_DispatchThreadID) {
"""
NOT_CONST = "texture offsets must be compile-time constants"
HINT = " (a loop counter is one in a loop marked [unroll] that can be unrolled fully)"
UNROLLABLE = (" changes in an [unroll] loop that cannot be unrolled fully (it needs a counter stepping by a "
              "constant from a constant to a constant bound, at most 64 iterations, not assigned in the body)")

REFUSED = [
    # no [unroll]: DXC too asks for unrolling ("Offsets to texture access operations must be immediate values")
    ("for (int x = 0; x < 2; ++x)\n    Out[x] = Tex.Load(int3(0, 0, 0), int2(x, 0));", f"{NOT_CONST}{HINT}"),
    ("[loop] for (int y = 0; y < 2; ++y) [unroll] for (int x = 0; x < 2; ++x)\n"
     "    Out[x] = Tex.Load(int3(0, 0, 0), int2(x, y));", f"{NOT_CONST}{HINT}"),
    # a bound that is not constant
    ("[unroll] for (int x = 0; x < (int)id.x; ++x)\n    Out[x] = Tex.Load(int3(0, 0, 0), int2(x, 0));",
     f"{NOT_CONST}: 'x'{UNROLLABLE}"),
    # the counter assigned in the body
    ("[unroll] for (int x = 0; x < 4; ++x) {\n    Out[x] = Tex.Load(int3(0, 0, 0), int2(x, 0)); x += 1; }",
     f"{NOT_CONST}: 'x'{UNROLLABLE}"),
    # [unroll(N)] below the trip count: a partial unroll leaves the counter a variable
    ("[unroll(2)] for (int x = 0; x < 4; ++x)\n    Out[x] = Tex.Load(int3(0, 0, 0), int2(x, 0));",
     f"{NOT_CONST}: 'x'{UNROLLABLE}"),
    # more iterations than the pass unrolls
    ("[unroll] for (int x = 0; x < 100; ++x)\n    Out[0] += Tex.Load(int3(0, 0, 0), int2(x % 2, 0));",
     f"{NOT_CONST}: 'x'{UNROLLABLE}"),
    ("[unroll] for (int x = 0; x < 100; ++x)\n    Out[0] += Tex.Load(int3(0, 0, 0), int2(x - x, 0));",
     f"{NOT_CONST}: 'x'{UNROLLABLE}"),
    # a local that is not a counter, and a runtime value next to a counter
    ("int k = 1;\n[unroll] for (int x = 0; x < 2; ++x)\n    Out[x] = Tex.Load(int3(0, 0, 0), int2(x, k));",
     f"{NOT_CONST}"),
    ("[unroll] for (int x = 0; x < 2; ++x)\n    Out[x] = Tex.Load(int3(0, 0, 0), int2(x, id.x));",
     f"{NOT_CONST}"),
    # a local set from the counter twice, or after the read (a local set once before it is accepted: LOCALS)
    ("[unroll] for (int x = 0; x < 2; ++x) {\n    int2 o = int2(x, 0); if (id.x > 2) o.y = 1;\n"
     "    Out[x] = Tex.Load(int3(0, 0, 0), o); }",
     f"{NOT_CONST}: 'o' is not set once in the [unroll] loop, before the offset, to a value of constants and loop "
     "counters"),
    ("[unroll] for (int x = 0; x < 2; ++x) {\n    int o = 0;\n"
     "    Out[x] = Tex.Load(int3(0, 0, 0), int2(o, 0)); o = x; }",
     f"{NOT_CONST}: 'o' is not set once in the [unroll] loop, before the offset, to a value of constants and loop "
     "counters"),
    ("[unroll] for (int x = 0; x < 2; ++x) {\n    int o = (int)id.x;\n"
     "    Out[x] = Tex.Load(int3(0, 0, 0), int2(o, x)); }",
     f"{NOT_CONST}: 'o' is not set once in the [unroll] loop, before the offset, to a value of constants and loop "
     "counters"),
    # out of range in one iteration (DXC: "... integer literal in the range -8 to 7")
    ("[unroll] for (int y = 0; y < 2; ++y) [unroll] for (int x = 6; x < 9; x += 2)\n"
     "    Out[x] = Tex.Load(int3(0, 0, 0), int2(x, -y));",
     "texture offsets must be in the range [-8, 7] (is (8, 0) when x = 8, y = 0)"),
]


@pytest.mark.parametrize("body, want", REFUSED)
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_refused_offsets_are_located(body, want, target):
    src = HEAD + body + "\n}\n"
    line = next(i for i, t in enumerate(src.splitlines(), 1) if "Tex.Load" in t)
    text = src.splitlines()[line - 1]
    call = "Tex.Load(int3(0, 0, 0), "
    col = text.index(call) + len(call) + 1        # the offset argument, after the coordinate
    assert _errors(src, target) == [f"{line}:{col}: {want}"]


LOCALS = """
Texture2D<float> Tex : register(t0);
RWStructuredBuffer<float> Out : register(u2);
[numthreads(1,1,1)] void main() {
    [unroll] for (int y = 0; y < 2; ++y) {
        int2 row = int2(0, y * 2 - 1);              // set once per outer iteration, read in the inner loop
        [unroll] for (int x = -1; x <= 1; ++x) {
            int2 o = row + int2(x, 0);              // DXC's engine pattern: the offset in a local first
            Out[y * 3 + x + 1] = Tex.Load(int3(4, 4, 0), o);
        }
    }
}
"""


@pytest.mark.parametrize("opt", [3, 0])
def test_offsets_through_locals_set_once(opt):
    out = R.cs(LOCALS, {"Tex": _tex(value), "Out": R.storage(R.sentinel(6))}, opt_level=opt)
    assert R.unpack("f", out["Out"]) == [value(4 + x, 4 + y * 2 - 1) for y in (0, 1) for x in (-1, 0, 1)]


PS_PCF = """
Texture2D<float> Depth : register(t0);
SamplerComparisonState C : register(s1);
float pcf(float2 uv, float z) {                     // a helper, inlined into the pixel shader
    float sum = 0;
    [unroll] for (int y = -1; y <= 1; ++y)
        [unroll] for (int x = -1; x <= 1; ++x)
            sum += Depth.SampleCmp(C, uv, z, int2(x, y) * 2);
    return sum;
}
float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target {
    return float4(pcf(uv, 0.5) / 9, Depth.SampleCmp(C, uv, 0.5), 0, 1);
}
"""


def scattered(x: int, y: int) -> float:
    """Depths in elevenths, scattered enough that neighbouring 3x3 footprints count differently."""
    return ((x * x * 3 + y * 5 + x * y * 7) % 11 + 0.5) / 11


def test_pcf_helper_in_a_pixel_shader():
    px = R.draw(R.FULLSCREEN_VS, PS_PCF, N, N, {"Depth": _tex(scattered), "C": R.sampler(compare="less")})

    def lit(x: int, y: int) -> int:
        return int(0.5 < scattered(x, y))

    def count(x: int, y: int) -> int:
        return sum(lit(x + 2 * dx, y + 2 * dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1))
    inside = [(x, y) for y in range(2, N - 2) for x in range(2, N - 2)]   # taps two texels away stay inside
    assert len({count(x, y) for x, y in inside}) > 3          # the pixels differ: a wrong offset shows
    for x, y in inside:
        assert R.pixel(px, N, x, y)[:2] == (R.unorm8(count(x, y) / 9), R.unorm8(lit(x, y))), (x, y)
