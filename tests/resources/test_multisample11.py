"""Multisampled textures read sample by sample, checked by value (issue 20).

The harness gives every sample of a multisampled image its own value (vulkan_runner.Image
per_sample=True: harness/vkmsfill.py stores each one with a compute shader, as Vulkan has no copy
into a multisampled image), so `Load(pos, s)`, `Load(pos, s, offset)`, `.sample[s][pos]` and the
sample count of GetDimensions are checked against values this test computes from the data it gave,
for Texture2DMS and Texture2DMSArray, float, uint and int texels, 2, 4 and 8 samples, in compute and
in a pixel shader.  Each program runs on lavapipe as SPIR-V and, as DXIL, through dxil-spirv on
lavapipe (R.cs / R.draw; the interpreter does not model multisampled textures: dxil_skip
'multisampled').
"""

from __future__ import annotations

import pytest
import res_util as R

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

W, H = 3, 2


def _texels(width: int, height: int, layers: int, samples: int, comps: int, value) -> list:
    """The per-sample data in vkmsfill's layout: layer, row, texel, sample, component."""
    return [value(x, y, layer, s, c) for layer in range(layers) for y in range(height) for x in range(width)
            for s in range(samples) for c in range(comps)]


def _float_value(x: int, y: int, layer: int, s: int, c: int) -> float:
    return 1000.0 * s + 100.0 * layer + 10.0 * x + y + 0.25 * c


MS_FLOAT = """Texture2DMS<float4, {n}> A : register(t1);
RWStructuredBuffer<float4> Out : register(u0);
[numthreads({w}, {h}, 1)]
void main(uint3 t : SV_GroupThreadID) {{
    uint base = (t.y * {w} + t.x) * {n};
    for (uint s = 0; s < {n}; ++s) {{
        Out[base + s] = A.Load(int2(t.xy), s);
        Out[{w} * {h} * {n} + base + s] = A.sample[s][t.xy];
    }}
    if (all(t == 0)) {{
        uint w, h, count;
        A.GetDimensions(w, h, count);
        Out[2 * {w} * {h} * {n}] = float4(w, h, count, 0);
    }}
}}
"""


@pytest.mark.parametrize("samples", [2, 4, 8])
def test_texture2dms_every_sample(samples):
    """Every sample of every texel through Load and .sample, and the sample count, on both targets."""
    data = _texels(W, H, 1, samples, 4, _float_value)
    texels = W * H * samples
    out = R.cs(MS_FLOAT.format(n=samples, w=W, h=H),
               {"A": R.image(R.pack("f", data), W, H, "rgba32f", samples=samples, per_sample=True),
                "Out": R.storage(R.sentinel(4 * (2 * texels + 1)))}, dxil_skip="multisampled")
    want = [_float_value(x, y, 0, s, c) for y in range(H) for x in range(W) for s in range(samples)
            for c in range(4)]
    got = R.unpack("f", out["Out"])
    assert got[:4 * texels] == want
    assert got[4 * texels:8 * texels] == want
    assert got[8 * texels:] == [W, H, samples, 0]


MS_ARRAY_UINT = """Texture2DMSArray<uint, 4> B : register(t1);
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(2, 2, 2)]
void main(uint3 t : SV_GroupThreadID) {
    uint base = ((t.z * 2 + t.y) * 2 + t.x) * 4;
    for (uint s = 0; s < 4; ++s) {
        Out[base + s] = B.Load(int3(t), s);
        Out[32 + base + s] = B.sample[s][t];
        Out[64 + base + s] = B.Load(int3(t.x + 1, t.y, t.z), s, int2(-1, 0));    // back to texel t
    }
}
"""


def test_texture2dms_array_every_sample_of_every_layer():
    """Texture2DMSArray<uint>: each layer's samples apart, Load with and without an offset and .sample."""
    def value(x: int, y: int, layer: int, s: int, _c: int) -> int:
        return (layer << 12) | (y << 8) | (x << 4) | s
    data = _texels(2, 2, 2, 4, 1, value)
    out = R.cs(MS_ARRAY_UINT, {"B": R.image(R.pack("I", data), 2, 2, "r32ui", dim="2d_array", layers=2, samples=4,
                                            per_sample=True),
                               "Out": R.storage(R.sentinel(96))}, dxil_skip="multisampled")
    want = [value(x, y, z, s, 0) for z in range(2) for y in range(2) for x in range(2) for s in range(4)]
    assert R.unpack("I", out["Out"]) == want * 3


MS_INT_POSITIONS = """Texture2DMS<int2, 4> C : register(t1);
RWStructuredBuffer<float4> Out : register(u0);
[numthreads(1, 1, 1)]
void main(uint3 g : SV_GroupID) {
    uint s = g.x;
    int2 v = C.Load(int2(1, 1), s);
    Out[s] = float4(v, C.GetSamplePosition(s) * 16);
}
"""
# D3D's standard 4-sample pattern, in 1/16 pixel from the centre (D3D11_STANDARD_MULTISAMPLE_PATTERN)
FOUR_SAMPLES = [(-2, -6), (6, -2), (-6, 2), (2, 6)]


def test_texture2dms_signed_samples_with_their_positions():
    """Texture2DMS<int2>: negative per-sample values read apart, next to each sample's standard position."""
    def value(x: int, y: int, _layer: int, s: int, c: int) -> int:
        return -(100 * s + 10 * x + y) if c == 0 else s * 7 - 20
    data = _texels(2, 2, 1, 4, 4, value)        # rgba32i: the image's 4 components, the texture reads 2
    out = R.cs(MS_INT_POSITIONS, {"C": R.image(R.pack("i", data), 2, 2, "rgba32i", samples=4, per_sample=True),
                                  "Out": R.storage(R.sentinel(16))}, groups=(4, 1, 1), dxil_skip="multisampled")
    want = [float(v) for s in range(4) for v in (value(1, 1, 0, s, 0), value(1, 1, 0, s, 1), *FOUR_SAMPLES[s])]
    assert R.unpack("f", out["Out"]) == want


MS_PS = """Texture2DMS<float, 4> T : register(t1);
float4 main(float4 p : SV_Position) : SV_Target {
    int2 q = int2(p.xy);
    return float4(T.Load(q, 0), T.Load(q, 1), T.Load(q, 2), T.sample[3][q]);
}
"""


def test_pixel_shader_reads_each_sample_of_its_pixel():
    """A draw (the fill runs before the render pass too): each pixel's four samples land in its four channels
    of an RGBA8 target, values k / 255 so the target stores k exactly."""
    def k(x: int, y: int, s: int) -> int:
        return 40 * s + 8 * y + x
    data = _texels(4, 4, 1, 4, 1, lambda x, y, _layer, s, _c: k(x, y, s) / 255)
    pixels = R.draw(R.FULLSCREEN_VS, MS_PS, 4, 4,
                    {"T": R.image(R.pack("f", data), 4, 4, "r32f", samples=4, per_sample=True)})
    for y in range(4):
        for x in range(4):
            want = tuple(R.unorm8(R.f32(k(x, y, s) / 255)) for s in range(4))
            assert R.pixel(pixels, 4, x, y) == want, (x, y)


def test_per_sample_data_is_checked_before_the_work():
    """The harness refuses per-sample data it cannot store (a format the fill shader does not write) and data
    of the wrong size, before anything runs."""
    res = R.build(MS_FLOAT.format(n=4, w=W, h=H))
    vk = R.vk_runner()
    out = vk.Buf(0, 0, R.sentinel(4 * (2 * W * H * 4 + 1)), "storage")
    bad_format = vk.Image(0, 1, bytes(8 * W * H * 4), W, H, "rgba16f", samples=4, per_sample=True)
    with pytest.raises(ValueError, match="per-sample data needs one of"):
        vk.run_compute(res.binary, "main", [out, bad_format])
    short = vk.Image(0, 1, bytes(16), W, H, "rgba32f", samples=4, per_sample=True)
    with pytest.raises(ValueError, match="bytes of data, its shape needs"):
        vk.run_compute(res.binary, "main", [out, short])
