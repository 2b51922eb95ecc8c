"""Texture sampling and typed formats, executed with the values checked (issue 20, session 10).

Each shader reads its coordinates from a buffer and writes one result per thread, so one build checks a
whole table of cases: filtering (nearest, linear), address modes (wrap, clamp, mirror, border), explicit
LOD (SampleLevel, SampleGrad with known gradients), mip filtering, array-layer rounding, cube face
selection, Gather's texel order, offsets, Load with mips and offsets, GetDimensions, comparison sampling
and typed-UAV format conversions.  Every shader runs on lavapipe at -O3 and -O0 and its DXIL twin on the
interpreter and through dxil-spirv (res_util.run_cs).  Expected values come from the texel data and the
D3D / Vulkan sampling rules modelled in this file (`Ref`), never from the compiler.
"""

from __future__ import annotations

import math
import re

import pytest
import res_util as R

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

# ---------------------------------------------------------------- the reference sampler


def texel_value(x: int, y: int, layer: int = 0, mip: int = 0, z: int = 0) -> float:
    """Distinct small integers (exact in float32) that are not linear in x or y, so a wrong texel or a
    wrong filter weight shows."""
    return float((x * 7 + y * 13 + z * 5 + layer * 17 + mip * 29) % 31 + 40 * mip + 100 * layer)


class Ref:
    """One-channel image (levels x layers x depth x height x width of floats) and the sampling rules of
    D3D11 (and Vulkan, where the two agree): texel-space coordinates u * size - 0.5 for linear filtering,
    floor(u * size) for nearest, address modes on integer texel coordinates, LOD clamped to the mip range."""

    def __init__(self, w: int, h: int = 1, layers: int = 1, mips: int = 1, depth: int = 1, fn=texel_value):
        self.w, self.h, self.layers, self.mips, self.depth = w, h, layers, mips, depth
        self.fn = fn

    def size(self, mip: int) -> tuple[int, int, int]:
        return max(1, self.w >> mip), max(1, self.h >> mip), max(1, self.depth >> mip)

    def data(self) -> bytes:
        vals = []
        for m in range(self.mips):
            w, h, d = self.size(m)
            for layer in range(self.layers):
                for z in range(d):
                    for y in range(h):
                        for x in range(w):
                            vals.append(self.fn(x, y, layer, m, z))
        return R.pack("f", vals)

    def image(self, dim: str = "2d", fmt: str = "r32f"):
        return R.image(self.data(), self.w, self.h, fmt, dim=dim, layers=self.layers, mips=self.mips, depth=self.depth)

    @staticmethod
    def wrap(i: int, n: int, mode: str) -> int | None:
        """The texel index after the address mode; None for a border texel."""
        if mode == "wrap":
            return i % n
        if mode == "clamp":
            return min(max(i, 0), n - 1)
        if mode == "mirror":
            t = i % (2 * n)
            return t if t < n else 2 * n - 1 - t
        if mode == "border":
            return i if 0 <= i < n else None
        raise ValueError(mode)

    def fetch(self, x: int, y: int, layer: int, mip: int, mode: str, border: float, z: int = 0) -> float:
        w, h, d = self.size(mip)
        xi, yi, zi = self.wrap(x, w, mode), self.wrap(y, h, mode), self.wrap(z, d, mode)
        if xi is None or yi is None or zi is None:
            return border
        return self.fn(xi, yi, layer, mip, zi)

    def level(self, u: float, v: float, layer: int, mip: int, filt: str, mode: str, border: float = 0.0) -> float:
        w, h, _ = self.size(mip)
        if filt == "nearest":
            return self.fetch(math.floor(u * w), math.floor(v * h), layer, mip, mode, border)
        x, y = u * w - 0.5, v * h - 0.5
        x0, y0 = math.floor(x), math.floor(y)
        a, b = x - x0, y - y0
        t = [[self.fetch(x0 + i, y0 + j, layer, mip, mode, border) for i in (0, 1)] for j in (0, 1)]
        return (1 - a) * (1 - b) * t[0][0] + a * (1 - b) * t[0][1] + (1 - a) * b * t[1][0] + a * b * t[1][1]

    def sample(self, u: float, v: float, lod: float, filt: str = "nearest", mode: str = "clamp",
               mipmap: str = "nearest", layer: float = 0.0, border: float = 0.0) -> float:
        """Sample at an explicit LOD; the layer coordinate rounds to the nearest layer (ties to even, Vulkan's
        RNE: Python's round) and clamps."""
        li = min(max(round(layer), 0), self.layers - 1)
        lam = min(max(lod, 0.0), self.mips - 1)
        if mipmap == "nearest":
            return self.level(u, v, li, math.ceil(lam + 0.5) - 1 if lam > 0.5 else 0, filt, mode, border)
        d = math.floor(lam)
        f = lam - d
        lo = self.level(u, v, li, d, filt, mode, border)
        return lo if f == 0 else (1 - f) * lo + f * self.level(u, v, li, d + 1, filt, mode, border)


def coords(n: int, lo: float, hi: float, step: float) -> list[float]:
    """n coordinates from lo in steps of `step` wrapping into [lo, hi), plus 1/128: exact in float32 and
    never on a texel edge of an image up to 64 texels wide (where nearest filtering of a mirrored
    coordinate may round either way: lavapipe mirrors the float coordinate, the Vulkan spec the texel index)."""
    span = round((hi - lo) / step)
    return [lo + step * ((k * 37) % span) + 1 / 128 for k in range(n)]


def assert_values(got: list, want: list, pts: list, per_point: int, what: str, tol: float = 0.0) -> None:
    """Every result equals its expected value (within tol; None: not compared); a failure lists the wrong ones
    as (point, result of the point, the point's inputs, got, want)."""
    bad = [(k // per_point, k % per_point, pts[k // per_point], g, w) for k, (g, w) in enumerate(zip(got, want))
           if w is not None and not (g == w or (tol and math.isclose(g, w, abs_tol=tol)))]
    assert len(got) == len(want) and not bad, f"{len(bad)} wrong (point, result, {what}, got, want): {bad[:8]}"


# ---------------------------------------------------------------- SampleLevel: filters x address x mip filter

SAMPLE_LEVEL = """
Texture2D<float> Tex : register(t0);
SamplerState S : register(s1);
StructuredBuffer<float4> In : register(t2);
RWStructuredBuffer<float> Out : register(u3);
[numthreads(64, 1, 1)] void main(uint i : SV_DispatchThreadID) {
    float4 c = In[i];
    Out[i] = Tex.SampleLevel(S, c.xy, c.z);
}
"""
LEVEL_TEX = Ref(8, 4, mips=4)       # 8x4, 4x2, 2x1, 1x1: non-square so a swapped axis shows
LODS = [0.0, 0.25, 0.75, 1.0, 1.25, 1.75, 2.0, 2.25, 3.0, 5.0, -1.0]


def level_inputs(n: int = 64) -> list[tuple[float, float, float]]:
    us, vs = coords(n, -1.25, 2.25, 1 / 64), coords(n + 5, -1.25, 2.25, 3 / 64)
    return [(us[k], vs[k + 5], LODS[k % len(LODS)]) for k in range(n)]


@pytest.mark.parametrize("filt", ["nearest", "linear"])
@pytest.mark.parametrize("mode", ["wrap", "clamp", "mirror", "border"])
@pytest.mark.parametrize("mipmap", ["nearest", "linear"])
def test_sample_level_values(filt, mode, mipmap):
    """64 coordinates inside and outside [0, 1) at 11 LODs (negative, fractional, past the last level)."""
    pts = level_inputs()
    out = R.cs(SAMPLE_LEVEL, {"Tex": LEVEL_TEX.image(), "S": R.sampler(filter=filt, address=mode, mipmap=mipmap),
                              "In": R.storage(R.pack("f", [c for p in pts for c in (*p, 0.0)])),
                              "Out": R.storage(R.sentinel(len(pts)))}, dxil_tol=1e-3)
    got = R.unpack("f", out["Out"])
    want = [LEVEL_TEX.sample(u, v, lod, filt, mode, mipmap) for u, v, lod in pts]
    assert_values(got, want, pts, 1, "(u, v, lod)", 2e-2)


# ---------------------------------------------------------------- SampleGrad: LOD from known gradients

SAMPLE_GRAD = """
Texture2D<float> Tex : register(t0);
SamplerState S : register(s1);
StructuredBuffer<float4> In : register(t2);
RWStructuredBuffer<float> Out : register(u3);
[numthreads(32, 1, 1)] void main(uint i : SV_DispatchThreadID) {
    float4 c = In[i];
    Out[i] = Tex.SampleGrad(S, c.xy, float2(c.z, 0), float2(0, c.w));
}
"""
# lambda = log2(max(|ddx.x| * 8, |ddy.y| * 4)): (ddx.x, ddy.y) pairs giving lambda -1, 0, 1, 2, 3, 1.5 (linear
# mips: halfway), with the larger of the two axes deciding
GRADS = [(1 / 16, 1 / 16), (1 / 8, 1 / 8), (1 / 4, 1 / 8), (1 / 8, 1 / 2), (1, 1 / 4), (1 / 8, 2 ** 1.5 / 4),
         (2 ** 0.5 / 8, 1 / 16), (1 / 64, 1 / 2)]


def test_sample_grad_values():
    """SampleGrad with axis-aligned gradients: the LOD is log2 of the longer footprint axis in texels."""
    us, vs = coords(32, 0.0, 1.0, 1 / 64), coords(32, 0.0, 1.0, 5 / 64)
    pts = [(us[k], vs[k], *GRADS[k % len(GRADS)]) for k in range(32)]
    out = R.cs(SAMPLE_GRAD, {"Tex": LEVEL_TEX.image(), "S": R.sampler(filter="linear", mipmap="linear"),
                             "In": R.storage(R.pack("f", [c for p in pts for c in p])),
                             "Out": R.storage(R.sentinel(len(pts)))}, dxil_tol=1e-2)
    got = R.unpack("f", out["Out"])
    want = [LEVEL_TEX.sample(u, v, math.log2(max(gx * 8, gy * 4)), "linear", "clamp", "linear") for u, v, gx, gy in pts]
    assert_values(got, want, pts, 1, "(u, v, ddx, ddy)", 0.1)


# ---------------------------------------------------------------- array layers

ARRAY_LAYERS = """
Texture2DArray<float> Tex : register(t0);
Texture1DArray<float> Row : register(t4);
SamplerState S : register(s1);
StructuredBuffer<float4> In : register(t2);
RWStructuredBuffer<float2> Out : register(u3);
[numthreads(32, 1, 1)] void main(uint i : SV_DispatchThreadID) {
    float4 c = In[i];
    Out[i] = float2(Tex.SampleLevel(S, c.xyz, c.w), Row.SampleLevel(S, c.xz, c.w));
}
"""
LAYER_COORDS = [-3.0, -0.4, 0.0, 0.4, 0.6, 1.25, 1.75, 2.2, 2.8, 3.0, 3.3, 9.0, 0.5, 1.5, 2.5, -0.5]
ARRAY_TEX = Ref(4, 4, layers=4, mips=3)
ROW_TEX = Ref(8, 1, layers=4, mips=2)


@pytest.mark.parametrize("filt", ["nearest", "linear"])
def test_array_layer_rounding(filt):
    """The layer coordinate rounds to the nearest layer and clamps to [0, layers - 1] (no filtering across
    layers, even with a linear filter); 2D and 1D arrays, at explicit LODs.  A tie (0.5, 1.5, 2.5) goes to the
    even layer: Vulkan's RNE, which lavapipe follows and the interpreter models (it rounded half up before)."""
    us, vs = coords(32, -0.5, 1.5, 1 / 64), coords(32, 0.0, 1.0, 7 / 64)
    pts = [(us[k], vs[k], LAYER_COORDS[k % len(LAYER_COORDS)], [0.0, 1.0, 0.5, 2.0][k % 4]) for k in range(32)]
    out = R.cs(ARRAY_LAYERS, {"Tex": ARRAY_TEX.image("2d_array"), "Row": ROW_TEX.image("1d_array"),
                              "S": R.sampler(filter=filt, mipmap="linear"),
                              "In": R.storage(R.pack("f", [c for p in pts for c in p])),
                              "Out": R.storage(R.sentinel(2 * len(pts)))}, dxil_tol=1e-3)
    got = R.unpack("f", out["Out"])
    want = []
    for u, v, layer, lod in pts:
        want += [ARRAY_TEX.sample(u, v, lod, filt, "clamp", "linear", layer),
                 ROW_TEX.sample(u, 0.5, lod, filt, "clamp", "linear", layer)]
    assert_values(got, want, pts, 2, "(u, v, layer, lod)", 2e-2)


# ---------------------------------------------------------------- cube face selection

CUBE = """
TextureCube<float> Cube : register(t0);
TextureCubeArray<float> Cubes : register(t4);
SamplerState S : register(s1);
StructuredBuffer<float4> In : register(t2);
RWStructuredBuffer<float2> Out : register(u3);
[numthreads(32, 1, 1)] void main(uint i : SV_DispatchThreadID) {
    float4 c = In[i];
    Out[i] = float2(Cube.SampleLevel(S, c.xyz, 0), Cubes.SampleLevel(S, float4(c.xyz, c.w), 0));
}
"""


def cube_texel(d: tuple[float, float, float], size: int) -> tuple[int, int, int]:
    """(face, x, y) that a direction selects: the major axis picks the face (+X, -X, +Y, -Y, +Z, -Z) and
    the (sc, tc, ma) table of D3D / Vulkan the position on it (_cube_st)."""
    face, s, t = _cube_st(d)
    return face, min(math.floor(s * size), size - 1), min(math.floor(t * size), size - 1)


def cube_value(x: int, y: int, layer: int, mip: int = 0, z: int = 0) -> float:
    return float(100 * layer + 10 * y + x)


def test_cube_face_selection():
    """TextureCube and TextureCubeArray (4x4 faces, every texel distinct): the major axis picks the face and
    the direction's other two components the texel, for all six faces and both signs of the minor axes."""
    dirs = []
    for k in range(32):
        a = [((k * 5 + 3 * i) % 9 - 4) / 4.5 + (0.03 * (i + 1)) for i in range(3)]
        major = k % 3
        a[major] = (1 if (k // 3) % 2 == 0 else -1) * (1.2 + 0.1 * (k % 4))
        dirs.append(tuple(a))
    pts = [(*d, float(k % 2)) for k, d in enumerate(dirs)]
    cube = Ref(4, 4, layers=6, fn=cube_value)
    cubes = Ref(4, 4, layers=12, fn=cube_value)
    out = R.cs(CUBE, {"Cube": cube.image("cube"), "Cubes": cubes.image("cube_array"), "S": R.sampler(),
                      "In": R.storage(R.pack("f", [c for p in pts for c in p])),
                      "Out": R.storage(R.sentinel(2 * len(pts)))})
    got = R.unpack("f", out["Out"])
    want = []
    for *d, arr in pts:
        face, x, y = cube_texel(tuple(d), 4)
        want += [cube_value(x, y, face), cube_value(x, y, 6 * int(arr) + face)]
    assert_values(got, want, pts, 2, "(dir, cube index)")


# ---------------------------------------------------------------- Gather: component order, offsets, channels

GATHER = """
Texture2D<float4> Tex : register(t0);
SamplerState S : register(s1);
StructuredBuffer<float2> In : register(t2);
RWStructuredBuffer<float4> Out : register(u3);
static const int2 Off = int2(-2, 1);
[numthreads(16, 1, 1)] void main(uint i : SV_DispatchThreadID) {
    float2 c = In[i];
    Out[6 * i + 0] = Tex.Gather(S, c);
    Out[6 * i + 1] = Tex.GatherGreen(S, c, int2(1, -1));
    Out[6 * i + 2] = Tex.GatherBlue(S, c, Off);
    Out[6 * i + 3] = Tex.GatherAlpha(S, c);
    Out[6 * i + 4] = Tex.GatherRed(S, c, int2(3, 0));
    Out[6 * i + 5] = Tex.Gather(S, c, Off);
}
"""
GATHER_CALLS = [(0, (0, 0)), (1, (1, -1)), (2, (-2, 1)), (3, (0, 0)), (0, (3, 0)), (0, (-2, 1))]


def rgba_value(x: int, y: int, layer: int = 0, mip: int = 0, z: int = 0) -> float:
    return texel_value(x, y, layer, mip, z)


@pytest.mark.parametrize("mode", ["wrap", "clamp", "mirror", "border"])
def test_gather_order_and_offsets(mode):
    """Gather* on an 8x4 RGBA image (channel c of a texel = value + c / 4): D3D's texel order (-x,+y), (+x,+y),
    (+x,-y), (-x,-y) of the bilinear footprint, the offset applied before the address mode (immediate and
    static const offsets), each channel."""
    w, h = 8, 4
    vals = [texel_value(x, y) + c / 4 for y in range(h) for x in range(w) for c in range(4)]
    us, vs = coords(16, -0.5, 1.5, 1 / 64), coords(16, -0.5, 1.5, 3 / 64)
    pts = list(zip(us, vs))
    out = R.cs(GATHER, {"Tex": R.image(R.pack("f", vals), w, h, "rgba32f"), "S": R.sampler(address=mode),
                        "In": R.storage(R.pack("f", [c for p in pts for c in p])),
                        "Out": R.storage(R.sentinel(4 * 6 * len(pts)))})
    got = R.unpack("f", out["Out"])
    ref = Ref(w, h)
    want = []
    for u, v in pts:
        x0, y0 = math.floor(u * w - 0.5), math.floor(v * h - 0.5)
        for chan, (ox, oy) in GATHER_CALLS:
            for dx, dy in ((0, 1), (1, 1), (1, 0), (0, 0)):
                t = ref.fetch(x0 + ox + dx, y0 + oy + dy, 0, 0, mode, None)
                want.append(0.0 if t is None else t + chan / 4)
    assert_values(got, want, pts, 24, "(u, v)")


# ---------------------------------------------------------------- Load: mips, offsets, .mips[][]

LOAD = """
Texture2D<float> Tex : register(t0);
Texture2DArray<float> Arr : register(t4);
StructuredBuffer<int4> In : register(t2);
RWStructuredBuffer<float4> Out : register(u3);
static const int2 Off = int2(1, -1);
[numthreads(16, 1, 1)] void main(uint i : SV_DispatchThreadID) {
    int4 c = In[i];
    Out[i] = float4(Tex.Load(int3(c.xy, c.z)), Tex.Load(int3(c.xy, c.z), Off), Tex.mips[c.z][c.xy],
                    Arr.Load(int4(c.xy, c.w, c.z), int2(-1, 0)));
}
"""


def test_load_mips_and_offsets():
    """Load with a mip level, with an immediate offset (static const), .mips[level][pos], and Texture2DArray
    Load(x, y, layer, mip) with an offset; every position stays inside its level (out-of-range texel fetches
    are undefined in Vulkan without robustImageAccess)."""
    tex, arr = Ref(8, 4, mips=4), Ref(4, 4, layers=3, mips=3)
    pts = []
    for k in range(16):
        mip = k % 3
        w, h, _ = tex.size(mip)
        aw, ah, _ = arr.size(mip)
        x, y = 1 + (k * 3) % max(1, min(w, aw) - 1), (k * 5) % max(1, min(h, ah) - 1) + (1 if h > 1 and ah > 1 else 0)
        x, y = min(x, min(w, aw) - 1), min(y, min(h, ah) - 1)
        pts.append((x, y, mip, k % 3))
    # keep every offset position inside too: x+1 < w, y-1 >= 0, x-1 >= 0
    pts = [(x, y, m, layer) for x, y, m, layer in pts
           if x + 1 < tex.size(m)[0] and y >= 1 and x >= 1]
    assert len(pts) >= 6
    pts += [pts[0]] * (16 - len(pts))
    out = R.cs(LOAD, {"Tex": tex.image(), "Arr": arr.image("2d_array"),
                      "In": R.storage(R.pack("i", [c for p in pts for c in p])),
                      "Out": R.storage(R.sentinel(4 * len(pts)))})
    got = R.unpack("f", out["Out"])
    want = []
    for x, y, m, layer in pts:
        want += [tex.fn(x, y, 0, m), tex.fn(x + 1, y - 1, 0, m), tex.fn(x, y, 0, m), arr.fn(x - 1, y, layer, m)]
    assert got == want


# ---------------------------------------------------------------- typed UAV / SRV formats: conversions

def unorm_store(x: float, bits: int = 8) -> int:
    """D3D's float -> UNORM conversion: NaN -> 0, clamp to [0, 1], scale by 2^n - 1, round to nearest."""
    if x != x:
        return 0
    return math.floor(min(max(R.f32(x), 0.0), 1.0) * (2 ** bits - 1) + 0.5)


def snorm_store(x: float, bits: int = 8) -> int:
    """float -> SNORM: NaN -> 0, clamp to [-1, 1], scale by 2^(n-1) - 1, round to nearest (never -2^(n-1))."""
    if x != x:
        return 0
    return math.floor(min(max(R.f32(x), -1.0), 1.0) * (2 ** (bits - 1) - 1) + 0.5)


def snorm_load(b: int) -> float:
    """SNORM8 -> float: c / 127, with -128 giving -1 as -127 does."""
    s = b - 256 if b > 127 else b
    return max(s / 127, -1.0)


def half_bits(x: float) -> int:
    """float -> half rounded to nearest even."""
    return R.unpack("H", R.pack("e", [R.f32(x)]))[0]


def half_rtz_bits(x: float) -> int:
    """float -> half rounded toward zero: D3D's rule for a conversion to a narrower float format (its data
    conversion rules); Vulkan allows either rounding, lavapipe truncates."""
    f = R.f32(x)
    h = half_bits(f)
    back = R.unpack("e", R.pack("H", [h]))[0]
    return h - 1 if abs(back) > abs(f) and h & 0x7FFF else h


# values away from rounding ties of the 8-bit conversions (x * 255 and x * 127 never end in .5 +- 0.01)
STORE_VALUES = [0.0, 1.0, 0.2, 0.61, 0.999, 0.001, 0.0025, -0.2, 1.7, -1.5, 0.5019, 0.33, -0.61, -0.004, 0.75, 0.125]

TYPED_STORE = """
{decl}
StructuredBuffer<float4> In : register(t2);
[numthreads(4, 1, 1)] void main(uint i : SV_DispatchThreadID) {{
    {store}
}}
"""
# (id, declaration, store statement, harness format, kind, bytes -> stored values, value -> expected stored)
STORES = [
    ("unorm4-rgba8", '[[vk::image_format("rgba8")]] RWTexture2D<unorm float4> Img : register(u1);',
     "Img[uint2(i, 0)] = In[i];", "rgba8", "image", lambda b: list(b), unorm_store),
    ("unorm-r8-buffer", '[[vk::image_format("r8")]] RWBuffer<unorm float> Img : register(u1);',
     "for (uint c = 0; c < 4; c++) Img[4 * i + c] = In[i][c];", "r8", "texel", lambda b: list(b), unorm_store),
    ("snorm4-rgba8", '[[vk::image_format("rgba8snorm")]] RWTexture2D<snorm float4> Img : register(u1);',
     "Img[uint2(i, 0)] = In[i];", "rgba8_snorm", "image", lambda b: [x - 256 if x > 127 else x for x in b],
     snorm_store),
    ("float4-rgba16f", '[[vk::image_format("rgba16f")]] RWTexture2D<float4> Img : register(u1);',
     "Img[uint2(i, 0)] = In[i];", "rgba16f", "image", lambda b: R.unpack("H", b), half_rtz_bits),
    ("float-r16f-buffer", '[[vk::image_format("r16f")]] RWBuffer<float> Img : register(u1);',
     "for (uint c = 0; c < 4; c++) Img[4 * i + c] = In[i][c];", "r16f", "texel", lambda b: R.unpack("H", b),
     half_rtz_bits),
]


@pytest.mark.parametrize("cid, decl, store, fmt, kind, read, conv", STORES, ids=[s[0] for s in STORES])
def test_typed_store_conversion(cid, decl, store, fmt, kind, read, conv):
    """Float stores into UNORM8 / SNORM8 / half texels convert as D3D specifies (clamp, scale, round to nearest
    for the normalized formats; round toward zero into half), through typed UAV textures and typed buffers."""
    src = TYPED_STORE.format(decl=decl, store=store)
    size = 16 * R.vk_runner().TEXEL_SIZES[fmt] // (4 if kind == "image" else 1)
    init = bytes([0x5A]) * size
    img = R.image(init, 4, 1, fmt, storage_image=True) if kind == "image" else R.texel(init, fmt)
    out = R.cs(src, {"Img": img, "In": R.storage(R.pack("f", STORE_VALUES))})
    got = read(out["Img"])
    assert got == [conv(x) for x in STORE_VALUES]


TYPED_LOAD = """
Texture2D<unorm float4> U : register(t0);
Texture2D<snorm float4> S : register(t1);
Texture2D<half4> H : register(t2);
Buffer<float> HB : register(t3);
RWStructuredBuffer<float4> Out : register(u5);
[numthreads(4, 1, 1)] void main(uint i : SV_DispatchThreadID) {
    Out[3 * i] = U.Load(int3(i, 0, 0));
    Out[3 * i + 1] = S[uint2(i, 0)];
    Out[3 * i + 2] = float4(H.Load(int3(i, 0, 0)).xy, HB[i], HB[i + 4]);
}
"""


@pytest.mark.parametrize("bits16", [False, True], ids=["half-is-float", "enable-16bit-types"])
def test_typed_load_conversion(bits16):
    """Loads from UNORM8 / SNORM8 / half texels give the exact converted values (c / 255, c / 127 with -128
    clamped to -1, the half's value), half4 elements both with and without -enable-16bit-types."""
    ubytes = [0, 255, 1, 128, 77, 200, 3, 254, 51, 102, 153, 204, 10, 20, 30, 40]
    sbytes = [0, 127, 129, 128, 1, 255, 64, 192, 100, 156, 7, 249, 126, 130, 63, 193]
    halves = [0.5, -2.25, 65504.0, 6.1035156e-05, 0.333251953125, -0.0001, 1024.5, 3.0]
    hvals = [R.unpack("e", R.pack("e", [h]))[0] for h in halves]
    hb = [1.5, -0.75, 100.0, 2.0 ** -20, 7.0, -8.5, 0.1, 9.75]
    hbvals = [R.unpack("e", R.pack("e", [h]))[0] for h in hb]
    # the interpreter has no f16 dx.op overloads: with 16-bit types the twin runs through dxil-spirv only
    opts = {"enable_16bit_types": True, "profile": "cs_6_2", "dxil_skip": "dxop-overloads"} if bits16 else {}
    out = R.cs(TYPED_LOAD, {"U": R.image(bytes(ubytes), 4, 1, "rgba8"), "S": R.image(bytes(sbytes), 4, 1, "rgba8_snorm"),
                            "H": R.image(R.pack("e", halves * 2), 4, 1, "rgba16f"),
                            "HB": R.texel(R.pack("e", hb), "r16f", writable=False),
                            "Out": R.storage(R.sentinel(48))}, **opts)
    want = []
    for i in range(4):
        want += [R.f32(b / 255) for b in ubytes[4 * i:4 * i + 4]]
        want += [R.f32(snorm_load(b)) for b in sbytes[4 * i:4 * i + 4]]
        want += [hvals[(4 * i) % 8], hvals[(4 * i + 1) % 8], hbvals[i], hbvals[i + 4]]
    got = R.unpack("f", out["Out"])
    assert R.approx(got, want, 1e-6), list(zip(got, want))


HALF_RMW = """
RWTexture2D<half4> Img : register(u1);
RWBuffer<min16float> Buf : register(u2);
[numthreads(4, 1, 1)] void main(uint i : SV_DispatchThreadID) {
    Img[uint2(i, 0)] = Img[uint2(i, 0)].wzyx * 2 + half4(0.5, 0, 0, 0);
    Buf[i] = Buf[i] - 1.25;
}
"""


@pytest.mark.parametrize("bits16", [False, True], ids=["half-is-float", "enable-16bit-types"])
def test_half_elements_read_modify_write_16bit_images(bits16):
    """RWTexture2D<half4> / RWBuffer<min16float> bound to 16-bit float images, with no vk::image_format.
    Regression: without -enable-16bit-types the storage format was Rgba32f / R32f (the element held at 32
    bits), not the R16G16B16A16 / R16 image such a shader is written for (a format mismatch: undefined in
    Vulkan); now Rgba16f / R16f as DXC gives them.  All values are exact in half, so no rounding is involved."""
    img = [0.5, -1.0, 2.25, 8.0, 0.125, 3.0, -0.75, 64.0] * 2
    buf = [4.0, -2.5, 0.25, 100.0]
    opts = {"enable_16bit_types": True, "profile": "cs_6_2", "dxil_skip": "dxop-overloads"} if bits16 else {}
    out = R.cs(HALF_RMW, {"Img": R.image(R.pack("e", img), 4, 1, "rgba16f", storage_image=True),
                          "Buf": R.texel(R.pack("e", buf), "r16f")}, **opts)
    want = []
    for i in range(4):
        px = img[4 * i:4 * i + 4]
        want += [px[3] * 2 + 0.5, px[2] * 2, px[1] * 2, px[0] * 2]
    assert R.unpack("e", out["Img"]) == want
    assert R.unpack("e", out["Buf"]) == [b - 1.25 for b in buf]
    dis = R.spirv_dis(R.build(HALF_RMW, profile=opts.get("profile", "cs_6_0"),
                              **({"enable_16bit_types": True} if bits16 else {})))
    assert " 2D 2 0 0 2 Rgba16f\n" in dis and " Buffer 2 0 0 2 R16f\n" in dis, dis


def test_min_precision_storage_formats_in_spirv():
    """Every min-precision element kind picks its 16-bit format (float, int, uint; one, two and four
    components), an explicit vk::image_format still wins, and a sampled texture stays Unknown."""
    src = ("RWTexture2D<min16float2> A : register(u0);\nRWBuffer<min16uint> B : register(u1);\n"
           "RWTexture2D<min16int4> C[2] : register(u2);\nRWTexture2D<min10float> D : register(u4);\n"
           "RWTexture2D<min12int2> E : register(u5);\n[[vk::image_format(\"rgba32f\")]] RWTexture2D<half4> F : register(u6);\n"
           "Texture2D<half4> S : register(t7);\n"
           "[numthreads(1, 1, 1)] void main() { A[uint2(0, 0)] = 1; B[0] = 2; C[1][uint2(0, 0)] = 3; "
           "D[uint2(0, 0)] = S[uint2(0, 0)].x; E[uint2(0, 0)] = 4; F[uint2(0, 0)] = 5; }\n")
    dis = R.spirv_dis(R.build(src))
    for shape in ("%float 2D 2 0 0 2 Rg16f", "%uint Buffer 2 0 0 2 R16ui", "%int 2D 2 0 0 2 Rgba16i",
                  "%float 2D 2 0 0 2 R16f", "%int 2D 2 0 0 2 Rg16i", "%float 2D 2 0 0 2 Rgba32f",
                  "%float 2D 2 0 0 1 Unknown"):
        assert f"OpTypeImage {shape}\n" in dis, (shape, dis)


@pytest.mark.llvm
def test_norm_elements_have_norm_component_types_in_dxil():
    """Regression: `unorm` / `snorm` on a typed resource's element was dropped, and the DXIL resource record
    said F32 (9); DXC records UNormF32 (14) / SNormF32 (13), and UNormF16 (12) for a 16-bit half."""
    src = ("RWTexture2D<unorm float4> U : register(u1);\nRWBuffer<snorm float> S : register(u2);\n"
           "Texture2D<unorm half4> H : register(t0);\nRWTexture2D<float2> F : register(u3);\n"
           "[numthreads(1, 1, 1)] void main() { U[uint2(0, 0)] = H[uint2(0, 0)]; S[0] = -0.5; F[uint2(0, 0)] = 1; }\n")
    _, check = R.build_dxil(src, profile="cs_6_2", enable_16bit_types=True)
    tags = {}
    for line in check.ir.splitlines():
        for name in "USHF":
            if f'!"{name}", ' in line:
                tags[name] = line.rsplit("!", 1)[1].rstrip("}")
    meta = {line.split(" = ")[0].lstrip("!"): line for line in check.ir.splitlines() if line.startswith("!")}
    got = {name: meta[tag].split("i32 0, i32 ")[1].rstrip("}") for name, tag in tags.items()}
    assert got == {"U": "14", "S": "13", "H": "12", "F": "9"}, got


# ---------------------------------------------------------------- SampleCmp: comparison ops, PCF with a linear filter

CMP_PCF = """
Texture2D<float> Depth : register(t0);
Texture2DArray<float> Depths : register(t4);
SamplerComparisonState C : register(s1);
StructuredBuffer<float4> In : register(t2);
RWStructuredBuffer<float4> Out : register(u3);
[numthreads(32, 1, 1)] void main(uint i : SV_DispatchThreadID) {
    float4 c = In[i];
    Out[i] = float4(Depth.SampleCmpLevelZero(C, c.xy, c.z), Depth.SampleCmpLevelZero(C, c.xy, c.z, int2(-1, 1)),
                    Depths.SampleCmpLevelZero(C, float3(c.xy, c.w), c.z), Depth.SampleCmpLevelZero(C, c.yx, c.z));
}
"""
_CMP = {"less": lambda r, d: r < d, "less_equal": lambda r, d: r <= d, "greater": lambda r, d: r > d,
        "greater_equal": lambda r, d: r >= d, "equal": lambda r, d: r == d, "not_equal": lambda r, d: r != d,
        "never": lambda r, d: False, "always": lambda r, d: True}


def depth_value(x: int, y: int, layer: int = 0, mip: int = 0, z: int = 0) -> float:
    """Depths in [0, 1] that are exact in float32 (multiples of 1/16), several texels sharing a value."""
    return ((x * 5 + y * 3 + layer * 7) % 17) / 16


@pytest.mark.parametrize("filt", ["nearest", "linear"])
@pytest.mark.parametrize("op", ["less_equal", "greater", "equal", "not_equal"])
def test_sample_cmp_values(op, filt):
    """SampleCmpLevelZero on 8x4 depth images: each texel of the footprint is compared with the reference
    (the operator with the reference on the left, as D3D's and Vulkan's compare), then filtered: with a linear
    filter the result is the bilinear weight of the texels that pass (percentage-closer filtering).
    Immediate offsets, a 2D array, swapped coordinates; clamp addressing."""
    ref_img = Ref(8, 4, fn=depth_value)
    arr_img = Ref(8, 4, layers=3, fn=depth_value)
    us, vs = coords(32, -0.25, 1.25, 1 / 64), coords(32, 0.0, 1.0, 3 / 64)
    refs = [k / 16 for k in range(17)] + [0.3, 0.55, -0.1, 1.2]
    pts = [(us[k], vs[k], refs[(k * 7) % len(refs)], float(k % 4) * 0.8) for k in range(32)]
    img = R.image(ref_img.data(), 8, 4, "d32f")
    arr = R.image(arr_img.data(), 8, 4, "d32f", dim="2d_array", layers=3)
    out = R.cs(CMP_PCF, {"Depth": img, "Depths": arr, "C": R.sampler(compare=op, filter=filt),
                         "In": R.storage(R.pack("f", [c for p in pts for c in p])),
                         "Out": R.storage(R.sentinel(4 * len(pts)))}, dxil_tol=1e-3)
    got = R.unpack("f", out["Out"])
    passes = _CMP[op]

    def pcf(img: Ref, u: float, v: float, ref: float, layer: float = 0.0, off=(0, 0)) -> float:
        """The filter applied to the comparison results; an offset of whole texels shifts the coordinates."""
        results = Ref(img.w, img.h, img.layers, fn=lambda x, y, la, m, z: float(passes(ref, img.fn(x, y, la, m, z))))
        return results.sample(u + off[0] / img.w, v + off[1] / img.h, 0.0, filt, "clamp", "nearest", layer)

    want = []
    for u, v, ref, layer in pts:
        want += [pcf(ref_img, u, v, ref), pcf(ref_img, u, v, ref, off=(-1, 1)), pcf(arr_img, u, v, ref, layer),
                 pcf(ref_img, v, u, ref)]
    assert_values(got, want, pts, 4, "(u, v, ref, layer)", 1e-2)


# ---------------------------------------------------------------- GetDimensions at every mip level (dynamic level)

DIMS_SWEEP = """
Texture2D<float> T2 : register(t0);
Texture2DArray<float> TA : register(t1);
Texture3D<float> T3 : register(t2);
TextureCube<float> TC : register(t3);
Texture1D<float> T1 : register(t4);
TextureCubeArray<float> TCA : register(t6);
StructuredBuffer<uint> In : register(t5);
RWStructuredBuffer<uint4> Out : register(u7);
[numthreads(4, 1, 1)] void main(uint i : SV_DispatchThreadID) {
    uint m = In[i], w, h, d, n;
    float fw, fh, fd, fn;
    T2.GetDimensions(m, w, h, n);         Out[8 * i + 0] = uint4(w, h, n, 0);
    TA.GetDimensions(m, fw, fh, fd, fn);  Out[8 * i + 1] = uint4(fw, fh, fd, fn);
    T3.GetDimensions(m, w, h, d, n);      Out[8 * i + 2] = uint4(w, h, d, n);
    TC.GetDimensions(m, fw, fh, fn);      Out[8 * i + 3] = uint4(fw, fh, fn, 0);
    T1.GetDimensions(m, w, n);            Out[8 * i + 4] = uint4(w, n, 0, 0);
    TCA.GetDimensions(m, w, h, d, n);     Out[8 * i + 5] = uint4(w, h, d, n);
    TA.GetDimensions(w, h, d);            Out[8 * i + 6] = uint4(w, h, d, 0);
    T3.GetDimensions(fw, fh, fd);         Out[8 * i + 7] = uint4(fw * 2, fh * 2, fd * 2, 0);
}
"""


DIMS_SHAPES = {"T2": (Ref(13, 6, mips=4), "2d"), "TA": (Ref(7, 5, layers=3, mips=3), "2d_array"),
               "T3": (Ref(9, 4, depth=6, mips=4), "3d"), "TC": (Ref(8, 8, layers=6, mips=4), "cube"),
               "T1": (Ref(11, 1, mips=4), "1d"), "TCA": (Ref(6, 6, layers=12, mips=3), "cube_array")}


def dims_want(m: int) -> list[tuple[bool, list[int]]]:
    """(level exists in every image the call queries, the 4 words) of the 8 calls of DIMS_SWEEP at level m."""
    t2, ta, t3, tc, t1, tca = (DIMS_SHAPES[k][0] for k in ("T2", "TA", "T3", "TC", "T1", "TCA"))
    return [(m < t2.mips, [*t2.size(m)[:2], t2.mips, 0]), (m < ta.mips, [*ta.size(m)[:2], ta.layers, ta.mips]),
            (m < t3.mips, [*t3.size(m), t3.mips]), (m < tc.mips, [*tc.size(m)[:2], tc.mips, 0]),
            (m < t1.mips, [t1.size(m)[0], t1.mips, 0, 0]),
            (m < tca.mips, [*tca.size(m)[:2], tca.layers // 6, tca.mips]),
            (True, [ta.w, ta.h, ta.layers, 0]), (True, [2 * t3.w, 2 * t3.h, 2 * t3.depth, 0])]


def run_dims(levels: list[int]) -> list[tuple[int, int, list[int], list[int]]]:
    """The wrong calls, as (thread, call, got, want); a level past an image's last is undefined in both APIs."""
    specs = {k: r.image(dim) for k, (r, dim) in DIMS_SHAPES.items()}
    out = R.cs(DIMS_SWEEP, {**specs, "In": R.storage(R.pack("I", levels)),
                            "Out": R.storage(R.sentinel(4 * 8 * len(levels)))})
    got = R.unpack("I", out["Out"])
    bad = []
    for i, m in enumerate(levels):
        for c, (exists, want) in enumerate(dims_want(m)):
            g = got[32 * i + 4 * c:32 * i + 4 * c + 4]
            if exists and g != want:
                bad.append((i, c, g, want))
    return bad


@pytest.mark.parametrize("level", [0, 1, 2])   # every image has these levels
def test_get_dimensions_every_level(level):
    """GetDimensions with the mip level read from a buffer (uint and float outputs), on non-power-of-two sizes:
    level m of a w-wide image is max(1, w >> m) wide (3D depth too; array sizes and cube counts do not shrink),
    the level count is the view's.  Every thread asks for the same level (see the next test)."""
    bad = run_dims([level] * 4)
    assert not bad, f"(thread, call, got, want): {bad[:12]}"


@pytest.mark.xfail(strict=True, reason="lavapipe (Mesa 25.0.7): OpImageQuerySizeLod with a Lod that differs between "
                                       "the invocations of a SIMD group answers every invocation with the first "
                                       "one's level (the SPIR-V passes each thread's own level; the Lod operand "
                                       "need not be uniform)")
def test_get_dimensions_of_a_different_level_per_thread():
    """Threads 0..3 ask for levels 0, 1, 2, 1 in one dispatch; lavapipe gives all four level 0's sizes (through
    dxil-spirv too; glslangValidator's SPIR-V of GLSL `textureSize(sampler2D(T, S), int(i % 3u))` does the same,
    checked by hand on this Mesa)."""
    bad = run_dims([0, 1, 2, 1])
    assert not bad, f"(thread, call, got, want): {bad[:12]}"


# ---------------------------------------------------------------- 3D and 1D sampling, SampleLevel offsets

SAMPLE_3D = """
Texture3D<float> Vol : register(t0);
Texture1D<float> Line : register(t4);
Texture2D<float> Tex : register(t5);
SamplerState S : register(s1);
StructuredBuffer<float4> In : register(t2);
RWStructuredBuffer<float4> Out : register(u3);
[numthreads(32, 1, 1)] void main(uint i : SV_DispatchThreadID) {
    float4 c = In[i];
    Out[i] = float4(Vol.SampleLevel(S, c.xyz, c.w), Line.SampleLevel(S, c.x, c.w),
                    Tex.SampleLevel(S, c.xy, c.w, int2(-3, 2)), Vol.SampleLevel(S, c.zxy, 0, int3(1, 0, -1)));
}
"""


@pytest.mark.parametrize("filt", ["nearest", "linear"])
@pytest.mark.parametrize("mode", ["wrap", "mirror"])
def test_sample_3d_1d_and_offsets(filt, mode):
    """Texture3D (trilinear within a level: depth filtered like width and height, and halved per level),
    Texture1D, and SampleLevel with immediate offsets (2D and 3D), the offset applied in texels of the level
    before the address mode."""
    vol, line, tex = Ref(4, 4, depth=4, mips=3), Ref(8, 1, mips=4), Ref(8, 4, mips=3)
    us, vs, ws = coords(32, -0.5, 1.5, 1 / 64), coords(32, -0.5, 1.5, 3 / 64), coords(32, -0.5, 1.5, 5 / 64)
    lods = [0.0, 1.0, 2.0, 0.25]
    pts = [(us[k], vs[k], ws[k], lods[k % 4]) for k in range(32)]
    out = R.cs(SAMPLE_3D, {"Vol": vol.image("3d"), "Line": line.image("1d"), "Tex": tex.image(),
                           "S": R.sampler(filter=filt, address=mode),
                           "In": R.storage(R.pack("f", [c for p in pts for c in p])),
                           "Out": R.storage(R.sentinel(4 * len(pts)))}, dxil_tol=1e-3)
    got = R.unpack("f", out["Out"])

    def sample3(u: float, v: float, w: float, lod: float, off=(0, 0, 0)) -> float:
        m = min(max(math.ceil(lod + 0.5) - 1 if lod > 0.5 else 0, 0), vol.mips - 1)
        sw, sh, sd = vol.size(m)
        if filt == "nearest":
            return vol.fetch(math.floor(u * sw) + off[0], math.floor(v * sh) + off[1], 0, m, mode, 0.0,
                             math.floor(w * sd) + off[2])
        x, y, z = u * sw - 0.5, v * sh - 0.5, w * sd - 0.5
        x0, y0, z0 = math.floor(x), math.floor(y), math.floor(z)
        a, b, c = x - x0, y - y0, z - z0
        total = 0.0
        for i in (0, 1):
            for j in (0, 1):
                for k in (0, 1):
                    wt = (a if i else 1 - a) * (b if j else 1 - b) * (c if k else 1 - c)
                    total += wt * vol.fetch(x0 + i + off[0], y0 + j + off[1], 0, m, mode, 0.0, z0 + k + off[2])
        return total

    want = []
    for u, v, w, lod in pts:
        want += [sample3(u, v, w, lod), line.sample(u, 0.5, lod, filt, mode),
                 tex.sample(u - 3 / tex.size(_nearest_level(lod))[0], v + 2 / tex.size(_nearest_level(lod))[1],
                            lod, filt, mode),
                 sample3(w, u, v, 0.0, (1, 0, -1))]
    assert_values(got, want, pts, 4, "(u, v, w, lod)", 2e-2)


def _nearest_level(lod: float) -> int:
    return math.ceil(lod + 0.5) - 1 if lod > 0.5 else 0


# ---------------------------------------------------------------- out-of-range Load / store (robustness)

OOB = """
Texture2D<float> Tex : register(t0);
Texture2DArray<float> Arr : register(t1);
Buffer<float> Buf : register(t2);
RWTexture2D<float> Img : register(u3);
RWBuffer<float> RwBuf : register(u4);
StructuredBuffer<int4> In : register(t5);
RWStructuredBuffer<float4> Out : register(u6);
[numthreads(16, 1, 1)] void main(uint i : SV_DispatchThreadID) {
    int4 c = In[i];
    Out[2 * i] = float4(Tex.Load(int3(c.xy, c.z)), Tex.Load(int3(c.xy, 0), int2(2, -1)),
                        Arr.Load(int4(c.xy, c.w, c.z)), Buf[c.x + 4 * c.y]);
    Out[2 * i + 1] = float4(Img[c.xy], RwBuf[c.x + 4 * c.y], Tex.mips[c.z][c.xy], 0);
    Img[c.xy + int2(8, 0)] = 100.0 + i;      // out of range for every thread: the store is dropped
    RwBuf[c.x + 4 * c.y + 64] = 200.0 + i;   // past the end of the buffer: dropped
}
"""


def test_out_of_range_loads_are_zero():
    """D3D defines an out-of-range Load (texel, mip level or layer; typed buffer element) as 0 and drops an
    out-of-range store; Vulkan agrees for single-channel formats under robustImageAccess / robustBufferAccess,
    which the harness enables (for 4-channel formats Vulkan may return alpha 1, so only r32f is used here).
    Positions inside and outside, negative ones, levels and layers past the end."""
    tex, arr = Ref(4, 4, mips=2), Ref(4, 4, layers=2, mips=2)
    img_vals = [float(k) + 0.5 for k in range(16)]
    buf_vals = [float(k) * 3 for k in range(16)]
    pts = [(0, 0, 0, 0), (3, 3, 0, 1), (4, 0, 0, 0), (0, 4, 0, 1), (-1, 2, 0, 0), (1, 1, 1, 1), (2, 1, 1, 0),
           (1, 1, 2, 0), (1, 1, 5, 1), (1, 2, 0, 2), (1, 2, 0, -1), (2, 2, 1, 3), (3, 0, 0, 0), (0, -3, 0, 0),
           (100, 100, 0, 0), (2, 3, 0, 1)]
    out = R.cs(OOB, {"Tex": tex.image(), "Arr": arr.image("2d_array"),
                     "Buf": R.texel(R.pack("f", buf_vals), "r32f", writable=False),
                     "Img": R.image(R.pack("f", img_vals), 4, 4, "r32f", storage_image=True),
                     "RwBuf": R.texel(R.pack("f", buf_vals), "r32f"),
                     "In": R.storage(R.pack("i", [c for p in pts for c in p])), "Out": R.storage(R.sentinel(128))})

    def inside(x: int, y: int, m: int, r: Ref, layer: int = 0) -> bool:
        w, h, _ = r.size(m)
        return 0 <= m < r.mips and 0 <= x < w and 0 <= y < h and 0 <= layer < r.layers

    want = []
    for x, y, m, layer in pts:
        lin = x + 4 * y
        want += [tex.fn(x, y, 0, m) if inside(x, y, m, tex) else 0.0,
                 tex.fn(x + 2, y - 1, 0, 0) if inside(x + 2, y - 1, 0, tex) else 0.0,
                 arr.fn(x, y, layer, m) if inside(x, y, m, arr, layer) else 0.0,
                 buf_vals[lin] if 0 <= lin < 16 else 0.0]
        want += [img_vals[lin] if inside(x, y, 0, tex) else 0.0, buf_vals[lin] if 0 <= lin < 16 else 0.0,
                 tex.fn(x, y, 0, m) if inside(x, y, m, tex) else 0.0, 0.0]
    got = R.unpack("f", out["Out"])
    assert_values(got, want, pts, 8, "(x, y, mip, layer)")
    assert R.unpack("f", out["Img"]) == img_vals and R.unpack("f", out["RwBuf"]) == buf_vals


# ---------------------------------------------------------------- implicit LOD in a pixel shader: Sample, SampleBias,
# CalculateLevelOfDetail(Unclamped) with known derivatives

PS_LOD = """
Texture2D<float> Tex : register(t0);
SamplerState S : register(s1);
RWStructuredBuffer<float4> Out : register(u2);
float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target {
    float2 st = uv * float2(KX, KY);
    uint i = (uint)pos.y * 4 + (uint)pos.x;
    Out[i] = float4(Tex.CalculateLevelOfDetail(S, st), Tex.CalculateLevelOfDetailUnclamped(S, st),
                    Tex.Sample(S, st), Tex.SampleBias(S, st, BIAS));
    return float4(0, 0, 0, 1);
}
"""


@pytest.mark.parametrize("kx, ky, bias", [(0.25, 0.25, 0.5), (1.0, 1.0, -1.0), (0.5, 4.0, 0.75), (0.125, 0.125, 2.0),
                                          (8.0, 1.0, -2.5), (0.35, 0.1, 1.25), (0.0625, 2.5, 0.0)],
                         ids=["lod0", "lod2", "lod3-by-y", "lod-1", "lod5", "lod0.49", "lod2.3-by-y"])
def test_pixel_shader_lod(kx, ky, bias):
    """A 4x4 target draws uv in [0, 1); the shader samples a 16x8 texture at uv * (kx, ky), so one pixel steps
    kx * 16 / 4 texels in x and ky * 8 / 4 in y: LOD = log2(max of the two).  Each level of the texture holds
    1 + level, and the sampler filters linearly between levels, so Sample gives 1 + clamp(LOD, 0, 4) and
    SampleBias 1 + clamp(LOD + bias, 0, 4); CalculateLevelOfDetail clamps to the 5 levels, ...Unclamped not."""
    levels = Ref(16, 8, mips=5, fn=lambda x, y, layer, mip, z: 1.0 + mip)
    ps = PS_LOD.replace("KX", repr(kx)).replace("KY", repr(ky)).replace("BIAS", repr(bias))
    _t, got = R.draw(R.FULLSCREEN_VS, ps, 4, 4, {"Tex": levels.image(), "S": R.sampler(filter="linear", mipmap="linear"),
                                                 "Out": R.storage(R.sentinel(64))}, full=True)
    lod = math.log2(max(kx * 16 / 4, ky * 8 / 4))
    want = [min(max(lod, 0.0), 4.0), lod, 1 + min(max(lod, 0.0), 4.0), 1 + min(max(lod + bias, 0.0), 4.0)]
    vals = R.unpack("f", got["Out"])
    for p in range(16):
        assert R.approx(vals[4 * p:4 * p + 4], want, 2e-2), (p, vals[4 * p:4 * p + 4], want)


# ---------------------------------------------------------------- 16-bit element types: sampling returns converted texels

HALF_SAMPLING = """
Texture2D<half> Depth : register(t0);
Texture2D<half4> Color : register(t1);
SamplerComparisonState C : register(s2);
SamplerState S : register(s3);
RWStructuredBuffer<float4> Out : register(u4);
[numthreads(1, 1, 1)] void main() {
    half2 uv = half2(0.375, 0.625);
    Out[0] = Depth.GatherCmp(C, uv, 0.5);
    Out[1] = Depth.GatherCmpRed(C, uv, 0.5, int2(1, 0), int2(0, 1), int2(-1, 0), int2(0, -1));
    Out[2] = Depth.GatherCmp(C, uv, 0.5, int2(1, 1));
    Out[3] = float4(Color.Gather(S, uv), );
    Out[4] = Color.SampleLevel(S, uv, 0);
    Out[5] = float4(Depth.SampleCmpLevelZero(C, uv, 0.5), 1, Color.GatherAlpha(S, uv).xy);
}
""".replace(", );", ");")


def test_half_textures_gather_cmp_and_sample():
    """Texture2D<half> / <half4> with -enable-16bit-types: GatherCmp (plain, offset, four offsets), Gather,
    SampleLevel, SampleCmpLevelZero.  Regression: GatherCmp on a half texture made OpImageDrefGather return
    v4half, which spirv-val rejects (the result must be the image's 32-bit sampled type): it now gathers floats
    and converts, as Gather did.  The status form is built and validated only (lavapipe's worker dies on every
    OpImageSparse*: tests/lang/test_lang_gaps.py)."""
    status = HALF_SAMPLING.replace("Out[2] = Depth.GatherCmp(C, uv, 0.5, int2(1, 1));",
                                   "uint st; Out[2] = Depth.GatherCmp(C, uv, 0.5, int2(1, 1), st) + CheckAccessFullyMapped(st);")
    assert "OpImageSparseDrefGather %" in R.spirv_dis(R.build(status, profile="cs_6_2", enable_16bit_types=True))
    depth = Ref(4, 4, fn=depth_value)
    vals = [texel_value(x, y) / 32 + c / 4 for y in range(4) for x in range(4) for c in range(4)]
    out = R.cs(HALF_SAMPLING, {"Depth": R.image(depth.data(), 4, 4, "d32f"),
                               "Color": R.image(R.pack("f", vals), 4, 4, "rgba32f"),
                               "C": R.sampler(compare="less_equal"), "S": R.sampler(),
                               "Out": R.storage(R.sentinel(24))},
               profile="cs_6_2", enable_16bit_types=True, dxil_skip="dxop-overloads")
    got = R.unpack("f", out["Out"])
    h = lambda v: R.unpack("e", R.pack("e", [v]))[0]  # noqa: E731 - the texel as a half
    u, v = 0.375, 0.625
    x0, y0 = math.floor(u * 4 - 0.5), math.floor(v * 4 - 0.5)
    quad = [(0, 1), (1, 1), (1, 0), (0, 0)]

    def cmp(x: int, y: int) -> float:
        return float(0.5 <= depth.fn(min(max(x, 0), 3), min(max(y, 0), 3), 0, 0, 0))

    def color(x: int, y: int, c: int) -> float:
        return h(vals[(min(max(y, 0), 3) * 4 + min(max(x, 0), 3)) * 4 + c])

    offs = [(1, 0), (0, 1), (-1, 0), (0, -1)]
    want = [cmp(x0 + dx, y0 + dy) for dx, dy in quad]
    want += [cmp(x0 + ox + quad[k][0], y0 + oy + quad[k][1]) for k, (ox, oy) in enumerate(offs)]
    want += [cmp(x0 + 1 + dx, y0 + 1 + dy) for dx, dy in quad]
    want += [color(x0 + dx, y0 + dy, 0) for dx, dy in quad]
    nx, ny = math.floor(u * 4), math.floor(v * 4)
    want += [color(nx, ny, c) for c in range(4)]
    want += [cmp(nx, ny), 1.0, color(x0, y0 + 1, 3), color(x0 + 1, y0 + 1, 3)]
    assert got == want, list(zip(got, want))


# ---------------------------------------------------------------- SampleCmpGrad / SampleCmpBias (SM 6.8)

CMP_GRAD = """
Texture2D<float> Depth : register(t0);
SamplerComparisonState C : register(s1);
StructuredBuffer<float4> In : register(t2);
RWStructuredBuffer<float2> Out : register(u3);
[numthreads(16, 1, 1)] void main(uint i : SV_DispatchThreadID) {
    float4 c = In[i];
    Out[i] = float2(Depth.SampleCmpGrad(C, c.xy, c.w, float2(c.z, 0), float2(0, c.z)),
                    Depth.SampleCmpGrad(C, c.xy, c.w, float2(c.z, 0), float2(0, c.z * 0.5), int2(1, 0), 2.0));
}
"""
LEVEL_DEPTHS = [0.125, 0.375, 0.625, 0.875]     # an 8x8 depth image of 4 levels, each level one depth


def cmp_levels(ref: float, lod: float, op) -> float:
    """Linear mip filtering of the per-level comparison results at a LOD clamped to the 4 levels."""
    lam = min(max(lod, 0.0), 3.0)
    d = math.floor(lam)
    f = lam - d
    lo = float(op(ref, LEVEL_DEPTHS[d]))
    return lo if f == 0 else (1 - f) * lo + f * float(op(ref, LEVEL_DEPTHS[d + 1]))


def level_depths():
    return R.image(R.pack("f", [dep for m, dep in enumerate(LEVEL_DEPTHS) for _ in range((8 >> m) ** 2)]), 8, 8,
                   "d32f", mips=4)


@pytest.mark.parametrize("op", ["less_equal", "greater"])
def test_sample_cmp_grad_values(op):
    """SampleCmpGrad (SM 6.8): the gradients pick the LOD (log2 of the longer axis in texels) and linear mip
    filtering mixes the comparison results of the two levels; the clamp form raises the LOD to at least 2.
    Each level of the depth image is one depth, so the expected value depends on the LOD only."""
    grads = [1 / 16, 1 / 8, 2 ** 0.5 / 8, 1 / 4, 2 ** 1.25 / 8, 1 / 2, 1.0, 2.0]
    refs = [0.25, 0.5, 0.75, 1.0]
    pts = [((k * 5 % 16 + 0.5) / 16, (k * 3 % 16 + 0.5) / 16, grads[k % 8], refs[k // 4 % 4]) for k in range(16)]
    out = R.cs(CMP_GRAD, {"Depth": level_depths(), "C": R.sampler(compare=op, mipmap="linear"),
                          "In": R.storage(R.pack("f", [c for p in pts for c in p])),
                          "Out": R.storage(R.sentinel(2 * len(pts)))}, profile="cs_6_8", dxil_tol=1e-2)
    got = R.unpack("f", out["Out"])
    passes = _CMP[op]
    want = []
    for _u, _v, g, ref in pts:
        lod = math.log2(g * 8)
        want += [cmp_levels(ref, lod, passes), cmp_levels(ref, max(lod, 2.0), passes)]
    assert R.approx(got, want, 2e-2), list(zip(pts, zip(got[0::2], got[1::2]), zip(want[0::2], want[1::2])))


PS_CMP_BIAS = """
Texture2D<float> Depth : register(t0);
SamplerComparisonState C : register(s1);
RWStructuredBuffer<float2> Out : register(u2);
float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0) : SV_Target {
    uint i = (uint)pos.y * 4 + (uint)pos.x;
    Out[i] = float2(Depth.SampleCmpBias(C, uv * K, REF, BIAS), Depth.SampleCmpBias(C, uv * K, REF, BIAS, int2(0, 1)));
    return float4(0, 0, 0, 1);
}
"""


@pytest.mark.parametrize("k, ref, bias", [(0.5, 0.5, 0.5), (2.0, 0.25, -1.25), (1.0, 0.75, 1.5), (4.0, 0.5, -3.0)],
                         ids=["lod0+0.5", "lod2-1.25", "lod1+1.5", "lod3-3"])
def test_sample_cmp_bias_in_a_pixel_shader(k, ref, bias):
    """SampleCmpBias (SM 6.8) in a 4x4 draw: uv * k steps 2k texels of the 8x8 depth image per pixel (LOD
    log2(2k)), the bias is added, then linear mip filtering of the comparisons (less_equal); with an offset
    too.  The clamp form is checked as instructions (test_sample_cmp_bias_and_grad_instructions): lavapipe
    ignores MinLod on implicit-LOD samples (test_res_audit9.test_implicit_lod_sampling)."""
    ps = PS_CMP_BIAS.replace("K", repr(k)).replace("REF", repr(ref)).replace("BIAS", repr(bias))
    _t, got = R.draw(R.FULLSCREEN_VS, ps, 4, 4, {"Depth": level_depths(),
                                                 "C": R.sampler(compare="less_equal", mipmap="linear"),
                                                 "Out": R.storage(R.sentinel(32))}, full=True, ps_profile="ps_6_8")
    lod = math.log2(2 * k) + bias
    le = _CMP["less_equal"]
    want = [cmp_levels(ref, lod, le)] * 32
    assert R.approx(R.unpack("f", got["Out"]), want, 2e-2), (R.unpack("f", got["Out"])[:4], want[:2])


def test_sample_cmp_bias_and_grad_instructions():
    """SampleCmpBias -> OpImageSampleDrefImplicitLod with Bias (then ConstOffset, MinLod), SampleCmpGrad ->
    OpImageSampleDrefExplicitLod with Grad; DXIL's sampleCmpBias (255) / sampleCmpGrad (254) with DXC's operand
    order and the SM 6.8 shader flag SampleCmpGradientOrBias (bit 37); below SM 6.8 both are refused."""
    src = PS_CMP_BIAS.replace("K", "1.0").replace("REF", "0.5").replace("BIAS", "0.25").replace(
        "int2(0, 1))", "int2(0, 1), 1.5) + Depth.SampleCmpGrad(C, uv, 0.5, float2(0.25, 0), float2(0, 0.125), "
                       "int2(-1, 0), 0.5)")
    dis = R.spirv_dis(R.build(src, profile="ps_6_8"))
    assert re.search(r"OpImageSampleDrefImplicitLod %float %\d+ %\d+ %float_0_5 Bias\|ConstOffset\|MinLod "
                     r"%float_0_25 %\d+ %float_1_5\n", dis), dis
    assert re.search(r"OpImageSampleDrefExplicitLod %float %\d+ %\d+ %float_0_5 Grad\|ConstOffset\|MinLod "
                     r"%\d+ %\d+ %\d+ %float_0_5\n", dis), dis
    ir = R.build_dxil(src, profile="ps_6_8")[1].ir
    assert re.search(r"@dx\.op\.sampleCmpBias\.f32\(i32 255, .*i32 0, i32 1, i32 undef, float 5\.000000e-01, "
                     r"float 2\.500000e-01, float 1\.500000e\+00\)", ir), ir
    assert re.search(r"@dx\.op\.sampleCmpGrad\.f32\(i32 254, .*i32 -1, i32 0, i32 undef, float 5\.000000e-01, "
                     r"float 2\.500000e-01, float 0\.000000e\+00, float undef, float 0\.000000e\+00, "
                     r"float 1\.250000e-01, float undef, float 5\.000000e-01\)", ir), ir
    flags = re.search(r"!\{i32 0, i64 (\d+)\}", ir)
    assert flags and int(flags.group(1)) & (1 << 37), ir
    old = R.compile_hlsl(src, profile="ps_6_7")
    assert [e.split(": ", 1)[1] for e in R.errors(old)] == [
        "'SampleCmpBias' requires shader model 6.8 or higher (the profile is ps_6_7)"] * 2 + [
        "'SampleCmpGrad' requires shader model 6.8 or higher (the profile is ps_6_7)"]


NORM_SPECIALS = """
[[vk::image_format("rgba8")]] RWTexture2D<unorm float4> U : register(u1);
[[vk::image_format("rgba8snorm")]] RWTexture2D<snorm float4> S : register(u2);
StructuredBuffer<float4> In : register(t3);
[numthreads(2, 1, 1)] void main(uint i : SV_DispatchThreadID) {
    U[uint2(i, 0)] = In[i];
    S[uint2(i, 0)] = In[i];
    U[uint2(i, 1)] = U[uint2(i, 1)].wzyx * 0.75;     // read-modify-write: UNORM8 -> float -> UNORM8
    S[uint2(i, 1)] = -S[uint2(i, 1)];               // -128 reads as -1, its negation stores 127
}
"""


def test_norm_stores_of_infinities_and_nan_and_read_modify_write():
    """+-infinity and huge values clamp (D3D's rules; Vulkan's conversion agrees), and UNORM8 / SNORM8 texels read
    back as c / 255 and max(c / 127, -1) then store again (typed UAV loads of 8-bit formats).  A NaN is left
    out: D3D stores 0, Vulkan leaves it undefined (lavapipe stores 255 into UNORM8)."""
    inf = float("inf")
    vals = [0.25, inf, -inf, 0.5019, -0.4, 1e30, -1e30, 0.0]     # no x * 255 or x * 127 ends in .5
    rows = [200, 13, 255, 0, 1, 2, 128, 77]
    srows = [128, 129, 127, 0, 1, 255, 64, 200]
    u = R.image(bytes(8) + bytes(rows), 2, 2, "rgba8", storage_image=True)
    s = R.image(bytes(8) + bytes(srows), 2, 2, "rgba8_snorm", storage_image=True)
    out = R.cs(NORM_SPECIALS, {"U": u, "S": s, "In": R.storage(R.pack("f", vals))})
    want_u = [unorm_store(x) for x in vals]
    for i in range(2):
        px = rows[4 * i:4 * i + 4]
        want_u += [unorm_store(R.f32(px[3 - c] / 255) * 0.75) for c in range(4)]
    want_s = [snorm_store(x) & 0xFF for x in vals] + [snorm_store(-snorm_load(b)) & 0xFF for b in srows]
    assert list(out["U"]) == want_u
    assert list(out["S"]) == want_s


# ---------------------------------------------------------------- Gather on cubes and arrays, Load on 1D / 3D kinds

CUBE_GATHER = """
TextureCube<float4> Cube : register(t0);
TextureCubeArray<float4> Cubes : register(t1);
Texture2DArray<float4> Arr : register(t4);
SamplerState S : register(s2);
StructuredBuffer<float4> In : register(t3);
RWStructuredBuffer<float4> Out : register(u5);
[numthreads(16, 1, 1)] void main(uint i : SV_DispatchThreadID) {
    float4 c = In[i];
    Out[4 * i] = Cube.GatherGreen(S, c.xyz);
    Out[4 * i + 1] = Cubes.Gather(S, float4(c.xyz, c.w));
    Out[4 * i + 2] = Arr.GatherAlpha(S, float3(c.xy * 0.5 + 0.25, c.w * 1.5), int2(-1, 1));
    Out[4 * i + 3] = Cube.SampleLevel(S, c.xyz, 0);
}
"""


def test_cube_and_array_gather():
    """Gather* on TextureCube / TextureCubeArray at directions well inside a face (the 2x2 footprint never
    crosses an edge, where both APIs filter across faces), channel c of a texel = value + c / 4; Gather on a
    Texture2DArray with the layer rounded and an offset; a linear SampleLevel on the cube against the footprint's
    bilinear weights."""
    size = 8
    cube_vals = Ref(size, size, layers=12, fn=cube_value)

    def rgba(r: Ref) -> bytes:
        return R.pack("f", [v + c / 4 for v in R.unpack("f", r.data()) for c in range(4)])

    arr = Ref(8, 4, layers=3)
    pts = []
    for k in range(16):
        major = k % 3
        sign = 1 if (k // 3) % 2 == 0 else -1
        d = [((k * 5 + 3 * j) % 7 - 3) / 6 + 0.013 * (j + 1) for j in range(3)]    # |minor| < 0.55: inside
        d[major] = sign * 1.0
        pts.append((*d, float(k % 2) + 0.2))
    out = R.cs(CUBE_GATHER, {"Cube": R.image(rgba(Ref(size, size, layers=6, fn=cube_value)), size, size, "rgba32f",
                                             dim="cube", layers=6),
                             "Cubes": R.image(rgba(cube_vals), size, size, "rgba32f", dim="cube_array", layers=12),
                             "Arr": R.image(rgba(arr), 8, 4, "rgba32f", dim="2d_array", layers=3),
                             "S": R.sampler(filter="linear"),
                             "In": R.storage(R.pack("f", [c for p in pts for c in p])),
                             "Out": R.storage(R.sentinel(16 * len(pts)))}, dxil_tol=1e-3)
    got = R.unpack("f", out["Out"])
    quad = [(0, 1), (1, 1), (1, 0), (0, 0)]
    want = []
    for x, y, z, w in pts:
        face, s, t = _cube_st((x, y, z))
        fx, fy = s * size - 0.5, t * size - 0.5
        x0, y0 = math.floor(fx), math.floor(fy)
        want += [cube_value(x0 + dx, y0 + dy, face) + 1 / 4 for dx, dy in quad]
        cube = math.floor(w + 0.5)
        want += [cube_value(x0 + dx, y0 + dy, 6 * cube + face) for dx, dy in quad]
        au, av, layer = x * 0.5 + 0.25, y * 0.5 + 0.25, min(max(math.floor(w * 1.5 + 0.5), 0), 2)
        ax0, ay0 = math.floor(au * 8 - 0.5) - 1, math.floor(av * 4 - 0.5) + 1
        want += [arr.fetch(ax0 + dx, ay0 + dy, layer, 0, "clamp", 0.0) + 3 / 4 for dx, dy in quad]
        a, b = fx - x0, fy - y0
        want.append(sum(wt * cube_value(x0 + dx, y0 + dy, face) for wt, (dx, dy) in
                        zip([(1 - a) * b, a * b, a * (1 - b), (1 - a) * (1 - b)], quad)))
        want += [None, None, None]      # .yzw of the sample: channels 1..3 (not compared)
    assert_values(got, want, pts, 16, "(x, y, z, w)", 2e-2)


def _cube_st(d: tuple[float, float, float]) -> tuple[int, float, float]:
    """(face, s, t) of a direction: the major axis picks the face, the (sc, tc, ma) table of D3D / Vulkan the
    continuous position on it."""
    rx, ry, rz = d
    ax = max(range(3), key=lambda i: abs(d[i]))
    if ax == 0:
        face, sc, tc, ma = (0, -rz, -ry, rx) if rx > 0 else (1, rz, -ry, rx)
    elif ax == 1:
        face, sc, tc, ma = (2, rx, rz, ry) if ry > 0 else (3, rx, -rz, ry)
    else:
        face, sc, tc, ma = (4, rx, -ry, rz) if rz > 0 else (5, -rx, -ry, rz)
    return face, 0.5 * (sc / abs(ma) + 1), 0.5 * (tc / abs(ma) + 1)


LOAD_1D_3D = """
Texture1D<float> L : register(t0);
Texture1DArray<float> LA : register(t1);
Texture3D<float> V : register(t2);
StructuredBuffer<int4> In : register(t3);
RWStructuredBuffer<float4> Out : register(u4);
[numthreads(8, 1, 1)] void main(uint i : SV_DispatchThreadID) {
    int4 c = In[i];
    Out[i] = float4(L.Load(int2(c.x, c.w), 1), LA.Load(int3(c.x, c.y, c.w), -1), V.Load(c.xyzw, int3(-1, 1, 0)),
                    V.mips[c.w][uint3(c.xyz)]);
}
"""


def test_load_1d_and_3d_with_offsets_and_mips():
    """Load on Texture1D (offset +1), Texture1DArray (layer, offset -1), Texture3D (offset (-1, 1, 0)) and
    Texture3D.mips[level][x, y, z], every position inside its level."""
    line, rows, vol = Ref(16, mips=3), Ref(16, layers=3, mips=3), Ref(8, 8, depth=8, mips=3)
    pts = [(1 + k % 3, k % 3, k % 2, (k // 2) % 2) for k in range(8)]     # (x, y / layer, z, level)
    out = R.cs(LOAD_1D_3D, {"L": line.image("1d"), "LA": rows.image("1d_array"), "V": vol.image("3d"),
                            "In": R.storage(R.pack("i", [c for p in pts for c in p])),
                            "Out": R.storage(R.sentinel(4 * len(pts)))})
    want = []
    for x, y, z, m in pts:
        want += [line.fn(x + 1, 0, 0, m), rows.fn(x - 1, 0, y, m), vol.fn(x - 1, y + 1, 0, m, z), vol.fn(x, y, 0, m, z)]
    assert R.unpack("f", out["Out"]) == want


# ---------------------------------------------------------------- partial writes of typed texels

PARTIAL = """
RWTexture2D<float4> Img : register(u0);
RWBuffer<uint2> Buf : register(u1);
[[vk::image_format("rgba8")]] RWTexture2D<unorm float4> Px : register(u2);
RWTexture2DArray<int4> Arr : register(u3);
[numthreads(4, 1, 1)] void main(uint i : SV_DispatchThreadID) {
    uint2 p = uint2(i, 0);
    Img[p].y = 100.0 + i;                    // one component: the others keep their values
    Img[p].wx += float2(0.5, 1000.0);        // a swizzle, read-modify-write
    Img[p][i % 3] *= 2.0;                    // a component picked at run time
    Buf[i].x = Buf[i].y * 3;
    Buf[i + 4] = Buf[i + 4].yx;
    Px[p].zw = Px[p].xy;                     // UNORM8 channels copied
    Arr[uint3(i, 1, 1)].z -= 7;
    Arr[uint3(i, 0, 1)].xyz = Arr[uint3(i, 0, 0)].zyx;
}
"""


def test_partial_writes_of_typed_texels():
    """Writes of single components, swizzles and a run-time component of RWTexture2D / RWBuffer / RWTexture2DArray
    elements (and UNORM8 channels) keep the other components: each is a read of the texel, the change, and a
    write of the whole texel, as D3D (DXC) does."""
    img = [float(10 * k + c) for k in range(4) for c in range(4)]
    buf = [k * 2 + c + 1 for k in range(8) for c in range(2)]
    px = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160]
    arr = [(k * 4 + c) * (-1) ** c for k in range(16) for c in range(4)]     # 4 x 2 x 2 layers of int4
    out = R.cs(PARTIAL, {"Img": R.image(R.pack("f", img), 4, 1, "rgba32f", storage_image=True),
                         "Buf": R.texel(R.pack("I", buf), "rg32ui"),
                         "Px": R.image(bytes(px), 4, 1, "rgba8", storage_image=True),
                         "Arr": R.image(R.pack("i", arr), 4, 2, "rgba32i", storage_image=True, dim="2d_array",
                                        layers=2)})
    want_img = []
    for i in range(4):
        t = img[4 * i:4 * i + 4]
        t[1] = 100.0 + i
        t[3] += 0.5
        t[0] += 1000.0
        t[i % 3] *= 2.0
        want_img += t
    want_buf = list(buf)
    for i in range(4):
        want_buf[2 * i] = want_buf[2 * i + 1] * 3
        j = i + 4
        want_buf[2 * j], want_buf[2 * j + 1] = want_buf[2 * j + 1], want_buf[2 * j]
    want_px = []
    for i in range(4):
        t = px[4 * i:4 * i + 4]
        want_px += [t[0], t[1], t[0], t[1]]
    texel = lambda x, y, layer: arr[((layer * 2 + y) * 4 + x) * 4:((layer * 2 + y) * 4 + x) * 4 + 4]  # noqa: E731
    want_arr = list(arr)
    for i in range(4):
        base = ((1 * 2 + 1) * 4 + i) * 4
        want_arr[base + 2] -= 7
        src = texel(i, 0, 0)
        base = ((1 * 2 + 0) * 4 + i) * 4
        want_arr[base:base + 3] = [src[2], src[1], src[0]]
    assert R.unpack("f", out["Img"]) == want_img
    assert R.unpack("I", out["Buf"]) == want_buf
    assert list(out["Px"]) == want_px
    assert R.unpack("i", out["Arr"]) == want_arr


# ---------------------------------------------------------------- textures read in a vertex shader

VS_TEX = """
Texture2D<float4> Colors : register(t0);
Texture1D<float> Shift : register(t1);
SamplerState S : register(s2);
struct VOut { float4 pos : SV_Position; float4 color : COLOR0; };
VOut main(uint id : SV_VertexID) {
    VOut o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(uv * 2.0 - 1.0, 0.0, 1.0);
    // every vertex reads the same texels: the flat result is the color of the whole triangle
    o.color = Colors.SampleLevel(S, float2(0.625, 0.25), 0) * 0.5 + Colors.Load(int3(1, 1, 0)) * 0.25
              + Shift.SampleLevel(S, 0.875, 1);
    return o;
}
"""
PS_COLOR = "float4 main(float4 pos : SV_Position, float4 c : COLOR0) : SV_Target { return c; }\n"


def test_textures_sampled_in_a_vertex_shader():
    """SampleLevel and Load in a vertex shader (no derivatives there): texel (2, 0) of a 4x2 RGBA image at half
    weight, texel (1, 1) at a quarter, plus level 1 of a 1-D image; the pixels show the sum (UNORM8 target)."""
    colors = [[0.1 * ((x + 4 * y) % 5), 0.05 * (x + y), 0.2, 0.1 * y] for y in range(2) for x in range(4)]
    shift = [0.0] * 8 + [0.01, 0.02, 0.03, 0.125]        # level 0 (8 texels), level 1 (4 texels)
    specs = {"Colors": R.image(R.pack("f", [c for t in colors for c in t]), 4, 2, "rgba32f"),
             "Shift": R.image(R.pack("f", shift), 8, 1, "r32f", dim="1d", mips=2), "S": R.sampler()}
    px = R.draw(VS_TEX, PS_COLOR, 4, 4, specs)
    want = tuple(R.unorm8(R.f32(colors[2][c] * 0.5 + colors[5][c] * 0.25 + 0.125)) for c in range(4))
    for y in range(4):
        for x in range(4):
            assert all(abs(a - b) <= 1 for a, b in zip(R.pixel(px, 4, x, y), want)), (x, y, R.pixel(px, 4, x, y), want)


BORDER = """
Texture2D<float4> Tex : register(t0);
SamplerState S : register(s1);
RWStructuredBuffer<float4> Out : register(u2);
[numthreads(1, 1, 1)] void main() {
    Out[0] = Tex.SampleLevel(S, float2(-0.5, 0.5), 0);       // outside: the border color
    Out[1] = Tex.SampleLevel(S, float2(0.5, 1.75), 0);
    Out[2] = Tex.SampleLevel(S, float2(0.375, 0.625), 0);    // inside: texel (1, 2)
    Out[3] = Tex.Gather(S, float2(1.0, 1.0));                 // footprint (3, 3) inside, the rest border
}
"""


@pytest.mark.parametrize("border, color", [("transparent_black", (0.0, 0.0, 0.0, 0.0)),
                                           ("opaque_black", (0.0, 0.0, 0.0, 1.0)),
                                           ("opaque_white", (1.0, 1.0, 1.0, 1.0))])
def test_border_colors(border, color):
    """The three standard border colors of a float RGBA image (every component in the format, so both APIs
    return the color as it is); Gather's border texels give its red."""
    vals = [texel_value(x, y) + c / 4 for y in range(4) for x in range(4) for c in range(4)]
    out = R.cs(BORDER, {"Tex": R.image(R.pack("f", vals), 4, 4, "rgba32f"), "S": R.sampler(address="border", border=border),
                        "Out": R.storage(R.sentinel(16))})
    inside = [vals[(2 * 4 + 1) * 4 + c] for c in range(4)]
    gather = [color[0], color[0], color[0], vals[(3 * 4 + 3) * 4]]
    assert R.unpack("f", out["Out"]) == [*color, *color, *inside, *gather]


# ---------------------------------------------------------------- integer textures: Gather, Load, SM 6.7 sampling

INT_TEX = """
Texture2D<uint4> U : register(t0);
Texture2DArray<int4> I : register(t1);
SamplerState S : register(s2);
RWStructuredBuffer<uint4> Out : register(u3);
RWBuffer<unorm float4> Px : register(u4);
[numthreads(4, 1, 1)] void main(uint i : SV_DispatchThreadID) {
    float2 uv = float2(0.25 * i + 0.1, 0.6);
    Out[6 * i] = U.GatherRed(S, uv);
    Out[6 * i + 1] = U.GatherAlpha(S, uv, int2(1, -1));
    Out[6 * i + 2] = asuint(I.GatherGreen(S, float3(uv, 1)));
    Out[6 * i + 3] = U.SampleLevel(S, uv, 0);                 // SM 6.7: an integer texel, nearest only
    Out[6 * i + 4] = asuint(I.SampleLevel(S, float3(uv, 0.7), 0, int2(-1, 0)));
    Out[6 * i + 5] = U.Load(int3(i, 1, 0), int2(0, 1));
    Px[i] = Px[i].yzwx;                                       // a UNORM8 texel buffer
}
"""


def test_integer_textures_and_unorm_texel_buffer():
    """Gather* of uint4 / int4 textures returns the integer texels (D3D order), SampleLevel of integer textures
    (SM 6.7, nearest filtering) the texel itself, Load with an offset; a RWBuffer<unorm float4> with
    vk::image_format("rgba8") over an RGBA8 texel buffer reads and writes UNORM8 channels."""
    uvals = [[(x * 7 + y * 11 + c * 3) % 50 + 1000 * c for c in range(4)] for y in range(4) for x in range(4)]
    ivals = [[((x + 2 * y + 3 * layer) * (-1) ** c) * 5 - c for c in range(4)] for layer in range(2)
             for y in range(4) for x in range(4)]
    px = list(range(3, 3 + 16 * 7, 7))
    src = INT_TEX.replace("RWBuffer<unorm float4> Px", '[[vk::image_format("rgba8")]] RWBuffer<unorm float4> Px')
    out = R.cs(src, {"U": R.image(R.pack("I", [c for t in uvals for c in t]), 4, 4, "rgba32ui"),
                     "I": R.image(R.pack("i", [c for t in ivals for c in t]), 4, 4, "rgba32i", dim="2d_array",
                                  layers=2),
                     "S": R.sampler(), "Px": R.texel(bytes(px), "rgba8"), "Out": R.storage(R.sentinel(96))},
               profile="cs_6_7")
    quad = [(0, 1), (1, 1), (1, 0), (0, 0)]
    u_at = lambda x, y: uvals[min(max(y, 0), 3) * 4 + min(max(x, 0), 3)]  # noqa: E731
    i_at = lambda x, y, layer: ivals[layer * 16 + min(max(y, 0), 3) * 4 + min(max(x, 0), 3)]  # noqa: E731
    want = []
    for i in range(4):
        u, v = 0.25 * i + 0.1, 0.6
        x0, y0 = math.floor(u * 4 - 0.5), math.floor(v * 4 - 0.5)
        nx, ny = math.floor(R.f32(u) * 4), math.floor(R.f32(v) * 4)
        want += [u_at(x0 + dx, y0 + dy)[0] for dx, dy in quad]
        want += [u_at(x0 + 1 + dx, y0 - 1 + dy)[3] for dx, dy in quad]
        want += [i_at(x0 + dx, y0 + dy, 1)[1] & 0xFFFFFFFF for dx, dy in quad]
        want += u_at(nx, ny)
        want += [c & 0xFFFFFFFF for c in i_at(nx - 1, ny, 1)]
        want += u_at(i, 2)
    assert R.unpack("I", out["Out"]) == want
    want_px = []
    for i in range(4):
        t = px[4 * i:4 * i + 4]
        want_px += [t[1], t[2], t[3], t[0]]
    assert list(out["Px"]) == want_px


# ---------------------------------------------------------------- programmable Gather offsets (D3D gather4_po)

GATHER_PO = """
Texture2D<float4> Tex : register(t0);
Texture2D<float> Depth : register(t4);
SamplerState S : register(s1);
SamplerComparisonState C : register(s5);
StructuredBuffer<int4> In : register(t2);
RWStructuredBuffer<float4> Out : register(u3);
[numthreads(8, 1, 1)] void main(uint i : SV_DispatchThreadID) {
    int4 o = In[i];
    float2 uv = float2(0.5, 0.5);
    Out[4 * i] = Tex.Gather(S, uv, o.xy);                                  // an offset read at run time
    Out[4 * i + 1] = Tex.GatherBlue(S, uv, o.xy, o.zw, int2(31, -32), o.yx);
    Out[4 * i + 2] = Depth.GatherCmp(C, uv, 0.5, o.zw);
    Out[4 * i + 3] = Tex.GatherAlpha(S, uv, int2(-20, 12));                 // an immediate past [-8, 7]
}
"""


def test_programmable_gather_offsets():
    """Gather* offsets need not be immediates nor within [-8, 7] (D3D's gather4_po, [-32, 31]; DXC accepts them):
    SPIR-V's Offset operand (ImageGatherExtended) or a wide ConstOffset, DXIL's i32 operands.  Regression: both
    were refused ('texture offsets must be compile-time constants' / 'in the range [-8, 7]').  A 64x64 image
    with wrap addressing, so every offset lands on distinct texels."""
    w = h = 64
    vals = [float(x + 64 * y) + c / 4 for y in range(h) for x in range(w) for c in range(4)]
    depth = Ref(w, h, fn=lambda x, y, la, m, z: ((x * 3 + y * 5) % 8) / 8)
    offs = [(0, 0, 1, 1), (-8, 7, 31, -32), (12, -20, -3, 9), (-32, 31, 20, 5), (5, 5, -5, -5), (1, -1, 0, 30),
            (-17, 0, 17, -1), (3, 29, -29, 2)]
    out = R.cs(GATHER_PO, {"Tex": R.image(R.pack("f", vals), w, h, "rgba32f"), "Depth": R.image(depth.data(), w, h, "d32f"),
                           "S": R.sampler(address="wrap"), "C": R.sampler(address="wrap", compare="less_equal"),
                           "In": R.storage(R.pack("i", [c for o in offs for c in o])), "Out": R.storage(R.sentinel(128))})
    quad = [(0, 1), (1, 1), (1, 0), (0, 0)]
    x0 = y0 = math.floor(0.5 * 64 - 0.5)

    def texel(dx: int, dy: int, c: int) -> float:
        return vals[(((y0 + dy) % h) * w + (x0 + dx) % w) * 4 + c]

    want = []
    for ox, oy, oz, ow in offs:
        want += [texel(ox + qx, oy + qy, 0) for qx, qy in quad]
        want += [texel(o[0] + quad[k][0], o[1] + quad[k][1], 2)
                 for k, o in enumerate([(ox, oy), (oz, ow), (31, -32), (oy, ox)])]
        want += [float(0.5 <= depth.fn((x0 + oz + qx) % w, (y0 + ow + qy) % h, 0, 0, 0)) for qx, qy in quad]
        want += [texel(-20 + qx, 12 + qy, 3) for qx, qy in quad]
    assert R.unpack("f", out["Out"]) == want
    dis = R.spirv_dis(R.build(GATHER_PO))
    assert "OpCapability ImageGatherExtended" in dis and " Offset %" in dis
