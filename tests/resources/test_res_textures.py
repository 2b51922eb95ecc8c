"""Textures with known contents, read in compute shaders on lavapipe: Load / subscripts / mips,
SampleLevel / SampleGrad / SampleCmpLevelZero / Gather*, GetDimensions, 1D/2D/3D/array/cube views,
and RWTexture* storage images written and read back.  Expected values come from the texel
generator below (and, for filtering, from the sampling rules computed here).
"""

from __future__ import annotations

import re

import pytest
import res_util as R

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]


def rgba(x: int, y: int, layer: int = 0, mip: int = 0, z: int = 0) -> tuple[int, int, int, int]:
    """Texel generator: distinct bytes per coordinate."""
    return ((x * 37 + y * 11 + z * 3) & 255, (y * 53 + layer * 29 + 7) & 255, (mip * 101 + x + y) & 255,
            (x * 5 + y * 7 + layer * 13 + z * 17 + 1) & 255)


def rgba_image_data(w: int, h: int, layers: int = 1, mips: int = 1, depth: int = 1) -> bytes:
    out = bytearray()
    for m in range(mips):
        mw, mh, md = max(1, w >> m), max(1, h >> m), max(1, depth >> m)
        for layer in range(layers):
            for z in range(md):
                for y in range(mh):
                    for x in range(mw):
                        out += bytes(rgba(x, y, layer, m, z))
    return bytes(out)


def unorm(t: tuple[int, ...]) -> list[float]:
    return [R.f32(c / 255.0) for c in t]


def r32f_value(x: int, y: int, mip: int = 0) -> float:
    return float(x * 10 + y + mip * 100)


def r32f_data(w: int, h: int, mips: int = 1) -> bytes:
    vals = []
    for m in range(mips):
        for y in range(max(1, h >> m)):
            for x in range(max(1, w >> m)):
                vals.append(r32f_value(x, y, m))
    return R.pack("f", vals)


GATHER_DXIL = None      # fixed: textureGather in the DXIL backend
DIMS_DXIL = None        # fixed: texture GetDimensions in the DXIL backend

OUT = "RWStructuredBuffer<float4> Out : register(u0);\n"
OUTU = "RWStructuredBuffer<uint4> Out : register(u0);\n"


class Case:
    def __init__(self, cid, decls, body, binds, want, code="f", tol=1e-6, bug=None, dxil_bug=None):
        self.id, self.decls, self.body, self.binds, self.want = cid, decls, body, binds, want
        self.code, self.tol, self.bug, self.dxil_bug = code, tol, bug, dxil_bug

    @property
    def src(self) -> str:
        out = OUTU if self.code == "I" else OUT
        return f"{out}{self.decls}\n[numthreads(1, 1, 1)]\nvoid main() {{\n{self.body}\n}}\n"


def tex2d(w=4, h=4, mips=1):
    return lambda: R.image(rgba_image_data(w, h, mips=mips), w, h, mips=mips)


def tex2d_f(w=4, h=4, mips=1):
    return lambda: R.image(r32f_data(w, h, mips), w, h, "r32f", mips=mips)


def samp(**kw):
    return lambda: R.sampler(**kw)


T2 = "Texture2D<float4> Tex : register(t1);"
T2S = T2 + "\nSamplerState S : register(s2);"
TF = "Texture2D<float> Tex : register(t1);\nSamplerState S : register(s2);"


def gather_quad(u: float, v: float, w: int, h: int) -> list[tuple[int, int]]:
    """Texel coords of a bilinear footprint in Gather order: (i0,j1), (i1,j1), (i1,j0), (i0,j0)."""
    x, y = u * w - 0.5, v * h - 0.5
    i0, j0 = int(x // 1), int(y // 1)
    i1, j1 = i0 + 1, j0 + 1
    return [(i0, j1), (i1, j1), (i1, j0), (i0, j0)]


def bilinear(u: float, v: float, w: int, h: int, value) -> float:
    x, y = u * w - 0.5, v * h - 0.5
    i0, j0 = int(x // 1), int(y // 1)
    a, b = x - i0, y - j0
    cl = lambda c, n: min(max(c, 0), n - 1)  # noqa: E731 - clamp-to-edge addressing
    t = lambda i, j: value(cl(i, w), cl(j, h))  # noqa: E731
    return (t(i0, j0) * (1 - a) * (1 - b) + t(i0 + 1, j0) * a * (1 - b) + t(i0, j0 + 1) * (1 - a) * b
            + t(i0 + 1, j0 + 1) * a * b)


CASES = [
    Case("load-int3", T2, "Out[0] = Tex.Load(int3(2, 1, 0)); Out[1] = Tex.Load(int3(3, 3, 0));",
         {"Tex": tex2d()}, unorm(rgba(2, 1)) + unorm(rgba(3, 3))),
    Case("load-mip1", T2, "Out[0] = Tex.Load(int3(1, 0, 1)); Out[1] = Tex.Load(int3(0, 1, 1));",
         {"Tex": tex2d(mips=2)}, unorm(rgba(1, 0, mip=1)) + unorm(rgba(0, 1, mip=1))),
    Case("load-offset", T2, "Out[0] = Tex.Load(int3(1, 1, 0), int2(1, 2));",
         {"Tex": tex2d()}, unorm(rgba(2, 3))),
    Case("subscript", T2, "Out[0] = Tex[uint2(3, 0)]; Out[1] = Tex[uint2(0, 2)];",
         {"Tex": tex2d()}, unorm(rgba(3, 0)) + unorm(rgba(0, 2))),
    Case("mips-subscript", T2, "Out[0] = Tex.mips[1][uint2(1, 1)];",
         {"Tex": tex2d(mips=2)}, unorm(rgba(1, 1, mip=1))),
    # the level is a run-time value (the level count - 1); the result is swizzled
    Case("mips-subscript-dynamic", T2, "uint w, h, n; Tex.GetDimensions(0, w, h, n);\n"
         "Out[0] = Tex.mips[n - 1][uint2(0, 1)].wzyx; Out[1] = Tex.mips[n - 2][uint2(3, 2)];",
         {"Tex": tex2d(mips=2)}, unorm(rgba(0, 1, mip=1))[::-1] + unorm(rgba(3, 2))),
    Case("mips-subscript-array", "Texture2DArray<float4> Tex : register(t1);",
         "Out[0] = Tex.mips[1][uint3(1, 0, 2)]; Out[1] = Tex.mips[0][uint3(3, 1, 1)];",
         {"Tex": lambda: R.image(rgba_image_data(4, 4, layers=3, mips=2), 4, 4, dim="2d_array", layers=3, mips=2)},
         unorm(rgba(1, 0, layer=2, mip=1)) + unorm(rgba(3, 1, layer=1))),
    Case("mips-subscript-1d", "Texture1D<float4> Tex : register(t1);", "Out[0] = Tex.mips[1][2];",
         {"Tex": lambda: R.image(rgba_image_data(8, 1, mips=2), 8, 1, dim="1d", mips=2)}, unorm(rgba(2, 0, mip=1))),
    Case("mips-subscript-3d", "Texture3D<float4> Tex : register(t1);",
         "Out[0] = Tex.mips[0][uint3(1, 1, 1)]; Out[1] = Tex.mips[1][uint3(0, 0, 0)];",
         {"Tex": lambda: R.image(rgba_image_data(2, 2, depth=2, mips=2), 2, 2, dim="3d", depth=2, mips=2)},
         unorm(rgba(1, 1, z=1)) + unorm(rgba(0, 0, mip=1))),
    Case("load-float-scalar", "Texture2D<float> Tex : register(t1);",
         "Out[0] = float4(Tex.Load(int3(3, 2, 0)), Tex.Load(int3(0, 1, 0)), Tex[uint2(2, 2)], 0);",
         {"Tex": tex2d_f()}, [r32f_value(3, 2), r32f_value(0, 1), r32f_value(2, 2), 0.0]),
    Case("load-uint", "Texture2D<uint> Tex : register(t1);",
         "Out[0] = uint4(Tex.Load(int3(1, 0, 0)), Tex.Load(int3(2, 1, 0)), 0, 0);",
         {"Tex": lambda: R.image(R.pack("I", range(100, 116)), 4, 4, "r32ui")}, [101, 106, 0, 0], code="I"),
    Case("samplelevel-nearest", T2S,
         "Out[0] = Tex.SampleLevel(S, float2(0.625, 0.375), 0); Out[1] = Tex.SampleLevel(S, float2(0.1, 0.9), 0);",
         {"Tex": tex2d(), "S": samp()}, unorm(rgba(2, 1)) + unorm(rgba(0, 3))),
    Case("samplelevel-lod1", T2S, "Out[0] = Tex.SampleLevel(S, float2(0.75, 0.25), 1);",
         {"Tex": tex2d(mips=2), "S": samp()}, unorm(rgba(1, 0, mip=1))),
    Case("samplelevel-wrap", T2S, "Out[0] = Tex.SampleLevel(S, float2(1.125, -0.875), 0);",
         {"Tex": tex2d(), "S": samp(address="wrap")}, unorm(rgba(0, 0))),
    Case("samplelevel-clamp", T2S, "Out[0] = Tex.SampleLevel(S, float2(1.7, -3.0), 0);",
         {"Tex": tex2d(), "S": samp(address="clamp")}, unorm(rgba(3, 0))),
    Case("samplelevel-border", T2S, "Out[0] = Tex.SampleLevel(S, float2(1.5, 0.5), 0);",
         {"Tex": tex2d(), "S": samp(address="border", border="opaque_white")}, [1.0, 1.0, 1.0, 1.0]),
    Case("samplelevel-offset", T2S, "Out[0] = Tex.SampleLevel(S, float2(0.125, 0.125), 0, int2(2, 1));",
         {"Tex": tex2d(), "S": samp()}, unorm(rgba(2, 1))),
    Case("samplelevel-linear", TF, "Out[0] = float4(Tex.SampleLevel(S, float2(0.5, 0.5), 0), "
         "Tex.SampleLevel(S, float2(0.3, 0.6), 0), 0, 0);",
         {"Tex": tex2d_f(), "S": samp(filter="linear")},
         [bilinear(0.5, 0.5, 4, 4, r32f_value), bilinear(0.3, 0.6, 4, 4, r32f_value), 0.0, 0.0], tol=2e-2),
    Case("samplegrad-selects-mip", T2S,
         "Out[0] = Tex.SampleGrad(S, float2(0.75, 0.25), float2(0.5, 0), float2(0, 0.5));",
         {"Tex": tex2d(mips=2), "S": samp()}, unorm(rgba(1, 0, mip=1))),
    Case("gather-red", TF, "Out[0] = Tex.Gather(S, float2(0.5, 0.5));",
         {"Tex": tex2d_f(), "S": samp()}, [r32f_value(*c) for c in gather_quad(0.5, 0.5, 4, 4)], dxil_bug=GATHER_DXIL),
    Case("gather-green", T2S, "Out[0] = Tex.GatherGreen(S, float2(0.25, 0.75));",
         {"Tex": tex2d(), "S": samp()}, [unorm(rgba(*c))[1] for c in gather_quad(0.25, 0.75, 4, 4)], dxil_bug=GATHER_DXIL),
    Case("gather-alpha", T2S, "Out[0] = Tex.GatherAlpha(S, float2(0.75, 0.5));",
         {"Tex": tex2d(), "S": samp()}, [unorm(rgba(*c))[3] for c in gather_quad(0.75, 0.5, 4, 4)], dxil_bug=GATHER_DXIL),
    Case("getdimensions-2d", T2, "uint w, h, n; Tex.GetDimensions(0, w, h, n); Out[0] = uint4(w, h, n, 0);"
         "uint w1, h1, n1; Tex.GetDimensions(1, w1, h1, n1); Out[1] = uint4(w1, h1, n1, 0);",
         {"Tex": lambda: R.image(rgba_image_data(8, 4, mips=3), 8, 4, mips=3)}, [8, 4, 3, 0, 4, 2, 3, 0], code="I", dxil_bug=DIMS_DXIL),
    Case("getdimensions-2d-wh", T2, "uint w, h; Tex.GetDimensions(w, h); Out[0] = uint4(w, h, 0, 0);",
         {"Tex": lambda: R.image(rgba_image_data(8, 2), 8, 2)}, [8, 2, 0, 0], code="I", dxil_bug=DIMS_DXIL),
    Case("getdimensions-float", T2, "float w, h; Tex.GetDimensions(w, h); Out[0] = float4(w, h, 0, 0);",
         {"Tex": lambda: R.image(rgba_image_data(8, 2), 8, 2)}, [8.0, 2.0, 0.0, 0.0], dxil_bug=DIMS_DXIL),
    Case("array-load", "Texture2DArray<float4> Tex : register(t1);",
         "Out[0] = Tex.Load(int4(1, 2, 1, 0)); Out[1] = Tex.Load(int4(3, 0, 2, 0));",
         {"Tex": lambda: R.image(rgba_image_data(4, 4, layers=3), 4, 4, dim="2d_array", layers=3)},
         unorm(rgba(1, 2, layer=1)) + unorm(rgba(3, 0, layer=2))),
    Case("array-samplelevel", "Texture2DArray<float4> Tex : register(t1);\nSamplerState S : register(s2);",
         "Out[0] = Tex.SampleLevel(S, float3(0.375, 0.625, 2), 0);",
         {"Tex": lambda: R.image(rgba_image_data(4, 4, layers=3), 4, 4, dim="2d_array", layers=3), "S": samp()},
         unorm(rgba(1, 2, layer=2))),
    Case("array-getdimensions", "Texture2DArray<float4> Tex : register(t1);",
         "uint w, h, e; Tex.GetDimensions(w, h, e); Out[0] = uint4(w, h, e, 0);",
         {"Tex": lambda: R.image(rgba_image_data(4, 2, layers=3), 4, 2, dim="2d_array", layers=3)},
         [4, 2, 3, 0], code="I", dxil_bug=DIMS_DXIL),
    Case("tex1d-load", "Texture1D<float4> Tex : register(t1);", "Out[0] = Tex.Load(int2(5, 0));",
         {"Tex": lambda: R.image(rgba_image_data(8, 1), 8, 1, dim="1d")}, unorm(rgba(5, 0))),
    Case("tex1d-getdimensions", "Texture1D<float4> Tex : register(t1);",
         "uint w; Tex.GetDimensions(w); Out[0] = uint4(w, 0, 0, 0);",
         {"Tex": lambda: R.image(rgba_image_data(8, 1), 8, 1, dim="1d")}, [8, 0, 0, 0], code="I", dxil_bug=DIMS_DXIL),
    Case("tex3d-load", "Texture3D<float4> Tex : register(t1);", "Out[0] = Tex.Load(int4(1, 0, 1, 0));",
         {"Tex": lambda: R.image(rgba_image_data(2, 2, depth=2), 2, 2, dim="3d", depth=2)}, unorm(rgba(1, 0, z=1))),
    Case("tex3d-getdimensions", "Texture3D<float4> Tex : register(t1);",
         "uint w, h, d; Tex.GetDimensions(w, h, d); Out[0] = uint4(w, h, d, 0);",
         {"Tex": lambda: R.image(rgba_image_data(2, 4, depth=2), 2, 4, dim="3d", depth=2)}, [2, 4, 2, 0], code="I",
         dxil_bug=DIMS_DXIL),
    # cube: +X face (layer 0) centre, -Y face (layer 3) centre
    Case("cube-samplelevel", "TextureCube<float4> Tex : register(t1);\nSamplerState S : register(s2);",
         "Out[0] = Tex.SampleLevel(S, float3(1, 0.01, 0.01), 0); Out[1] = Tex.SampleLevel(S, float3(0.01, -1, 0.01), 0);",
         {"Tex": lambda: R.image(rgba_image_data(2, 2, layers=6), 2, 2, dim="cube", layers=6), "S": samp()},
         None),
    Case("samplecmplevelzero", "Texture2D<float> Tex : register(t1);\nSamplerComparisonState S : register(s2);",
         "Out[0] = float4(Tex.SampleCmpLevelZero(S, float2(0.125, 0.125), 0.5), "
         "Tex.SampleCmpLevelZero(S, float2(0.875, 0.125), 0.5), Tex.SampleCmpLevelZero(S, float2(0.375, 0.125), 0.25), 0);",
         {"Tex": lambda: R.image(R.pack("f", [0.25, 0.5, 0.75, 1.0] * 4), 4, 4, "d32f"),
          "S": samp(compare="less_equal")},
         # less_equal: pass when reference <= texel depth
         [float(0.5 <= 0.25), float(0.5 <= 1.0), float(0.25 <= 0.5), 0.0]),
]


def _cube_want() -> list[float]:
    # direction (+1, ~0, ~0): face +X, sc = -z, tc = -y -> s,t slightly below 0.5 -> texel (0, 0) on a 2x2 face
    # direction (~0, -1, ~0): face -Y, sc = +x, tc = -z -> s slightly above 0.5, t slightly below -> texel (1, 0)
    return unorm(rgba(0, 0, layer=0)) + unorm(rgba(1, 0, layer=3))


@pytest.mark.parametrize("case", [R.param(c, id=c.id, bug=c.bug) for c in CASES])
def test_texture_read(case: Case):
    res = R.build(case.src)
    want = case.want if case.want is not None else _cube_want()
    n = (len(want) + 3) // 4
    specs = {name: make() for name, make in case.binds.items()}
    specs["Out"] = R.storage(R.sentinel(4 * n))
    out = R.run_cs(res, specs, dxil_tol=case.tol if case.code == "f" else 0.0)  # filtering precision
    got = R.unpack(case.code, out["Out"])
    if case.code == "f":
        assert R.approx(got, want, case.tol), f"got {got}, want {want}"
    else:
        assert got == want


@pytest.mark.llvm
@pytest.mark.parametrize("case", [R.param(c, id=c.id, bug=c.dxil_bug) for c in CASES])
def test_texture_dxil_builds(case: Case):
    R.build_dxil(case.src)


# ---------------------------------------------------------------- storage images

STORE_CASES = [
    ("rwtex2d-float4", "RWTexture2D<float4> Img : register(u1);",
     "Img[uint2(t.x, t.y)] = float4(t.x, t.y, t.x + t.y, 1) + Img[uint2(t.x, t.y)];",
     dict(fmt="rgba32f", w=4, h=2), lambda x, y, old: [x + old[0], y + old[1], x + y + old[2], 1 + old[3]]),
    ("rwtex2d-float", "RWTexture2D<float> Img : register(u1);",
     "Img[t.xy] = Img[t.xy] * 2 + 1;", dict(fmt="r32f", w=4, h=2), lambda x, y, old: [old[0] * 2 + 1]),
    ("rwtex2d-uint", "RWTexture2D<uint> Img : register(u1);",
     "Img[t.xy] = t.x * 16 + t.y;", dict(fmt="r32ui", w=4, h=2), lambda x, y, old: [x * 16 + y]),
    ("rwtex2d-int-load", "RWTexture2D<int> Img : register(u1);",
     "Img[t.xy] = -Img.Load(int2(t.x, t.y)) * 3;", dict(fmt="r32i", w=4, h=2), lambda x, y, old: [-old[0] * 3]),
]


def _old(fmt: str, w: int, h: int) -> list[list]:
    n = {"rgba32f": 4}.get(fmt, 1)
    return [[float(i * n + c) if fmt in ("rgba32f", "r32f") else i * n + c for c in range(n)] for i in range(w * h)]


@pytest.mark.parametrize("cid, decl, body, shape, fn", STORE_CASES, ids=[c[0] for c in STORE_CASES])
def test_storage_image(cid, decl, body, shape, fn):
    fmt, w, h = shape["fmt"], shape["w"], shape["h"]
    src = f"{decl}\n[numthreads({w}, {h}, 1)]\nvoid main(uint3 t : SV_DispatchThreadID) {{ {body} }}\n"
    old = _old(fmt, w, h)
    code = "f" if fmt.endswith("f") else ("I" if fmt.endswith("ui") else "i")
    data = R.pack(code, [c for px in old for c in px])
    # each thread reads only its own texel: reading texels other threads write is a data race
    out = R.cs(src, {"Img": R.image(data, w, h, fmt, storage_image=True)})
    got = R.unpack(code, out["Img"])
    want = [c for y in range(h) for x in range(w) for c in fn(x, y, old[y * w + x])]
    assert got == want


STORAGE_DIMS = [
    ("rwtex1d", "RWTexture1D<float> Img : register(u1);", "Img[t.x] = t.x + 0.5;", "1d", (4, 1, 1, 1),
     [i + 0.5 for i in range(4)]),
    ("rwtex2darray", "RWTexture2DArray<float> Img : register(u1);", "Img[uint3(t.x, 0, 1)] = t.x * 3;",
     "2d_array", (4, 1, 1, 2), [0.0] * 4 + [i * 3.0 for i in range(4)]),
    ("rwtex3d", "RWTexture3D<float> Img : register(u1);", "Img[uint3(t.x, 0, 1)] = t.x + 10;",
     "3d", (4, 1, 2, 1), [0.0] * 4 + [i + 10.0 for i in range(4)]),
]


@pytest.mark.parametrize("cid, decl, body, dim, shape, want", STORAGE_DIMS, ids=[c[0] for c in STORAGE_DIMS])
def test_storage_image_dims(cid, decl, body, dim, shape, want):
    w, h, d, layers = shape
    src = f"{decl}\n[numthreads(4, 1, 1)]\nvoid main(uint3 t : SV_DispatchThreadID) {{ {body} }}\n"
    data = bytes(4 * w * h * d * layers)
    out = R.cs(src, {"Img": R.image(data, w, h, "r32f", storage_image=True, dim=dim, depth=d, layers=layers)})
    assert R.unpack("f", out["Img"]) == want


def test_storage_image_getdimensions():
    src = ("RWTexture2D<float4> Img : register(u1);\nRWStructuredBuffer<uint> Out : register(u0);\n"
           "[numthreads(1,1,1)] void main() { uint w, h; Img.GetDimensions(w, h); Out[0] = w; Out[1] = h; }\n")
    out = R.cs(src, {"Img": R.image(bytes(16 * 6 * 3), 6, 3, "rgba32f", storage_image=True),
                     "Out": R.storage(R.sentinel(2))})
    assert R.unpack("I", out["Out"]) == [6, 3]


def test_storage_image_format_in_spirv():
    """RWTexture2D<float4> -> ImageFormat Rgba32f, <uint> -> R32ui (DXC's table), storage_image in the manifest."""
    src = ("RWTexture2D<float4> A : register(u0);\nRWTexture2D<uint> B : register(u1);\n"
           "[numthreads(1,1,1)] void main() { A[uint2(0,0)] = 1; B[uint2(0,0)] = 2; }\n")
    res = R.build(src)
    dis = R.spirv_dis(res)
    assert "2D 2 0 0 2 Rgba32f" in dis and "2D 2 0 0 2 R32ui" in dis, dis
    assert R.resource(res.manifest, "A")["vulkan"]["descriptor_type"] == "storage_image"


# ---------------------------------------------------------------- the harness's image support itself

ROUNDTRIP = """
RWTexture2DArray<float4> Img : register(u0);
[numthreads(1,1,1)] void main() { }
"""


def test_harness_storage_image_roundtrip_untouched():
    """A storage image the shader never writes comes back byte-identical (upload + readback layouts agree)."""
    data = R.pack("f", [float(i) for i in range(4 * 3 * 2 * 2)])
    out = R.cs(ROUNDTRIP, {"Img": R.image(data, 3, 2, "rgba32f", storage_image=True, dim="2d_array", layers=2)})
    assert out["Img"] == data


def test_harness_rejects_bad_image():
    """(Mesa 25's lavapipe allows 10^6 descriptors per stage, so the worker's per-stage limit guard can no
    longer be reached with a test-sized descriptor array.)"""
    vk = R.vk_runner()
    with pytest.raises(ValueError, match="shape needs"):
        vk.run_compute(b"\x03\x02\x23\x07", "main", [vk.Image(0, 0, bytes(10), 2, 2)])
    with pytest.raises(ValueError, match="unsupported image"):
        vk.run_compute(b"\x03\x02\x23\x07", "main", [vk.Image(0, 0, bytes(16), 2, 2, dim="4d")])


# ---------------------------------------------------------------- Texture2DMS.sample[s][coord]

MS_SRC = """
Texture2DMS<float4> Tex : register(t1);
RWStructuredBuffer<float4> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {{ Out[0] = {read}; }}
"""


def _fetch_lines(text: str, needle: str) -> list[str]:
    """The texel-fetch instructions of a disassembly with their result names dropped."""
    return [line.split("=", 1)[1] for line in text.splitlines() if needle in line and "=" in line]


def test_ms_sample_subscript_is_load_with_the_sample_index():
    """The harness has no multisampled images, so this compares the two spellings instruction by
    instruction: `Tex.sample[s][coord]` must fetch exactly what `Tex.Load(coord, s)` fetches, with
    the sample index in the Sample operand (SPIR-V) / the mip-or-sample slot (DXIL)."""
    sub = MS_SRC.format(read="Tex.sample[3][int2(1, 2)]")
    load = MS_SRC.format(read="Tex.Load(int2(1, 2), 3)")
    spv = [_fetch_lines(R.spirv_dis(R.build(s)), "OpImageFetch") for s in (sub, load)]
    assert len(spv[0]) == 1 and "Sample %int_3" in spv[0][0] and spv[0] == spv[1]
    dx = [_fetch_lines(R.build_dxil(s)[1].ir, "@dx.op.textureLoad") for s in (sub, load)]
    assert len(dx[0]) == 1 and "i32 66, %dx.types.Handle %0, i32 3, i32 1, i32 2, i32 undef" in dx[0][0], dx
    assert dx[0] == dx[1]


@pytest.mark.parametrize("body, want", [
    ("Tex.mips[0][uint2(0, 0)] = 1;", "6:7: 'Texture2D<float4>.mips' is read-only and is used as "
                                     "'mips[index][coordinate]'"),
    ("Out[0] = Tex.sample[0][uint2(0, 0)];", "6:16: 'Texture2D<float4>' has no member 'sample'"),
], ids=["mips-write", "sample-on-non-ms"])
def test_indexed_load_errors(body, want):
    src = f"{T2}\n{OUT}\n[numthreads(1, 1, 1)]\nvoid main() {{\n  {body}\n}}\n"
    assert R.errors(R.compile_hlsl(src)) == [want]


# ---------------------------------------------------------------- Texture2DMS<T, samples>

@pytest.mark.parametrize("samples", ["4", "N * 2", "(N << 1) + 0", "(8 >> 1)"])   # a bare >> ends the template
def test_ms_sample_count_is_a_constant_expression(samples):
    """The sample count is any integer constant expression (a static const included); the code is the
    code of Texture2DMS<float4> (the harness has no multisampled images: compared, not executed)."""
    head = "static const uint N = 2;\n"
    counted = head + MS_SRC.replace("Texture2DMS<float4>", f"Texture2DMS<float4, {samples}>").format(
        read="Tex.Load(int2(1, 2), 3)")
    plain = head + MS_SRC.format(read="Tex.Load(int2(1, 2), 3)")
    assert _fetch_lines(R.spirv_dis(R.build(counted)), "OpImageFetch") == \
        _fetch_lines(R.spirv_dis(R.build(plain)), "OpImageFetch")
    assert _fetch_lines(R.build_dxil(counted)[1].ir, "@dx.op.textureLoad") == \
        _fetch_lines(R.build_dxil(plain)[1].ir, "@dx.op.textureLoad")
    # DXIL.rst's SRV record: range id, symbol, name, space, lower bound, range size, shape, sample count
    assert _srv_record(R.build_dxil(counted)[1].ir, "Tex") == [0, 0, 1, 1, 3, 4]      # Texture2DMS, 4 samples
    assert _srv_record(R.build_dxil(plain)[1].ir, "Tex") == [0, 0, 1, 1, 3, 0]        # not given: 0, as DXC


def _srv_record(ir_text: str, name: str) -> list[int]:
    """The integer fields of a resource's metadata record (read back by llvm-dis)."""
    line = next(x for x in ir_text.splitlines() if f'!"{name}"' in x and x.startswith("!"))
    return [int(v) for v in re.findall(r"\bi32 (-?\d+)", line)]


@pytest.mark.parametrize(("decl", "col", "message"), [
    ("uniform uint U;\nTexture2DMS<float4, U> T;", 21, "expression is not an integer constant expression"),
    ("uniform uint U;\nTexture2DMS<float4, -1> T;", 21, "sample count -1 of 'Texture2DMS' is out of range [0, 128]"),
    ("uniform uint U;\nTexture2DMS<float4, 4, 1> T;", 24, "too many template arguments for 'Texture2DMS'"),
    ("uniform uint U;\nTexture2D<float4, 4> T;", 19, "too many template arguments for 'Texture2D'"),
])
def test_ms_sample_count_errors_are_located(decl, col, message):
    src = f"{decl}\n{OUT}\n[numthreads(1, 1, 1)]\nvoid main() {{ Out[0] = U; }}\n"
    for target in ("spirv", "dxil"):
        assert R.errors(R.compile_hlsl(src, target=target)) == [f"2:{col}: {message}"]
