"""Issue 20, graphics stages: interpolation modifiers, SV_Position in the pixel stage, system values
with their values checked.  Executed on lavapipe from SPIR-V (res_util.draw: -O3 and again at -O0) and
from DXIL through dxil-spirv (the twin draw must give the same pixels); expected pixels are computed
here from the vertex data (screen-space barycentrics, perspective division), not by the compiler.

DXC's rules the errors follow: SemaHLSL refuses `nointerpolation` beside `linear` / `sample` /
`noperspective` / `centroid` ("'nointerpolation' and 'centroid' cannot be used together for a field"),
`sample` overrides `centroid` (DxilInterpolationMode), the DXIL validator wants integer pixel inputs
nointerpolation (MetaIntegerInterpMode), HLSignatureLower refuses a nointerpolation SV_Position.
"""

from __future__ import annotations

import re

import pytest
import res_util as R
from harness import tools

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

W = H = 8

# ---------------------------------------------------------------- helpers


def _ndc(i: int, n: int) -> float:
    return (i + 0.5) / n * 2 - 1


def _bary(p, a, b, c) -> tuple[float, float, float]:
    """Screen-space barycentrics of point p in triangle abc (2D)."""
    (px, py), (ax, ay), (bx, by), (cx, cy) = p, a, b, c
    det = (bx - ax) * (cy - ay) - (cx - ax) * (by - ay)
    l1 = ((px - ax) * (cy - ay) - (cx - ax) * (py - ay)) / det
    l2 = ((bx - ax) * (py - ay) - (px - ax) * (by - ay)) / det
    return 1 - l1 - l2, l1, l2


def _close(got, want, tol: int = 1) -> bool:
    return all(abs(g - w) <= tol for g, w in zip(got, want))


# ---------------------------------------------------------------- modifier errors (DXC refuses)

ERRORS = [
    ("float4 main(nointerpolation centroid float4 c : COLOR) : SV_Target { return c; }", "ps_6_0",
     "1:45: 'nointerpolation' and 'centroid' cannot be used together for a parameter"),
    ("float4 main(centroid nointerpolation float4 c : COLOR) : SV_Target { return c; }", "ps_6_0",
     "1:45: 'nointerpolation' and 'centroid' cannot be used together for a parameter"),
    ("float4 main(nointerpolation sample float c : C) : SV_Target { return c; }", "ps_6_0",
     "1:42: 'nointerpolation' and 'sample' cannot be used together for a parameter"),
    ("float4 main(nointerpolation linear float c : C) : SV_Target { return c; }", "ps_6_0",
     "1:42: 'nointerpolation' and 'linear' cannot be used together for a parameter"),
    ("struct O { float4 p : SV_Position; nointerpolation noperspective float c : C; };\n"
     "O main() { O o = (O)0; return o; }", "vs_6_0",
     "1:72: 'nointerpolation' and 'noperspective' cannot be used together for a field"),
    ("float4 main(uniform linear float4 c : C) : SV_Target { return c; }", "ps_6_0",
     "1:35: 'linear' and 'uniform' cannot be used together for a parameter"),
    ("struct O { float4 p : SV_Position; };\n[maxvertexcount(1)]\n"
     "void main(triangle nointerpolation float4 v[3] : P, inout PointStream<O> s) { O o; o.p = v[0]; s.Append(o); }",
     "gs_6_0", "3:43: 'triangle' and 'nointerpolation' cannot be used together for a parameter"),
]


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize(("src", "profile", "want"), ERRORS, ids=[f"e{i}" for i in range(len(ERRORS))])
def test_interpolation_errors_are_located(src, profile, want, target):
    res = R.compile_hlsl(src, "main", profile, target)
    assert not res.ok
    assert R.errors(res) == [want], R.errors(res)


# DXIL's own refusals (DXC's validator: MetaIntegerInterpMode on every element of a signature whose elements have
# modes; HLSignatureLower: a nointerpolation SV_Position); DXC's SPIR-V path runs neither, and Vulkan's integer
# fragment inputs are Flat whatever the modifier
DXIL_ERRORS = [
    ("float4 main(linear int c : C) : SV_Target { return c; }", "ps_6_0",
     "1:24: signature element 'C' specifies invalid interpolation mode 'linear' for integer component type: "
     "integer and bool elements are nointerpolation"),
    ("struct I { centroid uint2 c : C; };\nfloat4 main(I i) : SV_Target { return i.c.xyxy; }", "ps_6_0",
     "1:27: signature element 'C' specifies invalid interpolation mode 'centroid' for integer component type: "
     "integer and bool elements are nointerpolation"),
    ("float4 main(sample bool c : C) : SV_Target { return c; }", "ps_6_0",
     "1:25: signature element 'C' specifies invalid interpolation mode 'sample' for integer component type: "
     "integer and bool elements are nointerpolation"),
    ("float4 main(float4 p : SV_Position, linear uint prim : SV_PrimitiveID) : SV_Target { return prim; }",
     "ps_6_0", "1:49: signature element 'SV_PrimitiveID' specifies invalid interpolation mode 'linear' for integer "
     "component type: integer and bool elements are nointerpolation"),
    ("struct O { float4 p : SV_Position; noperspective int c : C; };\nO main() { O o = (O)0; return o; }", "vs_6_0",
     "1:54: signature element 'C' specifies invalid interpolation mode 'noperspective' for integer component type: "
     "integer and bool elements are nointerpolation"),
    ("float4 main(nointerpolation float4 p : SV_Position) : SV_Target { return p; }", "ps_6_0",
     "1:36: invalid interpolation mode for SV_Position: it cannot be nointerpolation"),
]


@pytest.mark.parametrize(("src", "profile", "want"), DXIL_ERRORS, ids=[f"e{i}" for i in range(len(DXIL_ERRORS))])
def test_dxil_interpolation_errors_are_located(src, profile, want):
    res = R.compile_hlsl(src, "main", profile, "dxil")
    assert not res.ok
    assert R.errors(res) == [want], R.errors(res)


@pytest.mark.parametrize(("src", "profile", "_want"), DXIL_ERRORS, ids=[f"e{i}" for i in range(len(DXIL_ERRORS))])
def test_spirv_takes_what_only_dxil_refuses(src, profile, _want):
    """Valid SPIR-V; an integer pixel input is Flat."""
    res = R.compile_hlsl(src, "main", profile, "spirv")
    assert res.ok, R.diagnostics_text(res)
    tools.spirv_val(res.binary, "vulkan1.1")
    dis = tools.spirv_dis(res.binary)
    if profile == "ps_6_0" and "nointerpolation float4 p" not in src:     # the integer pixel inputs
        assert re.search(r"OpDecorate %in_\w+ Flat", dis), dis


ACCEPTED = [
    # an integer vertex output or pixel input with no modifier (flat implied), or nointerpolation
    "float4 main(int c : C, nointerpolation uint d : D) : SV_Target { return c + d; }",
    # SV_Position's linear modes are its noperspective ones (HLSignatureLower)
    "float4 main(linear float4 p : SV_Position) : SV_Target { return p; }",
    "float4 main(centroid float4 p : SV_Position) : SV_Target { return p; }",
    "float4 main(noperspective sample float4 p : SV_Position) : SV_Target { return p; }",
]


@pytest.mark.parametrize("src", ACCEPTED)
def test_accepted_interpolation_forms_give_valid_output(src):
    R.build(src, "main", "ps_6_0")


# ---------------------------------------------------------------- which mode a set of modifiers names

MODES = """
struct I {
    centroid sample float a : A;              // sample overrides centroid
    noperspective centroid float b : B;       // both kept
    linear noperspective float c : C;         // noperspective
    noperspective sample centroid float d : D;
};
float4 main(I i, sample centroid float e : E, noperspective centroid float f : F) : SV_Target {
    return float4(i.a + i.b, i.c + i.d, e, f);
}
"""
# semantic -> (D3D interpolation mode, SPIR-V decorations), from DXC's DxilInterpolationMode table
MODE_WANT = {"A": ("sample", {"Sample"}), "B": ("noperspective centroid", {"NoPerspective", "Centroid"}),
             "C": ("noperspective", {"NoPerspective"}), "D": ("noperspective sample", {"NoPerspective", "Sample"}),
             "E": ("sample", {"Sample"}), "F": ("noperspective centroid", {"NoPerspective", "Centroid"})}


def test_modifier_combinations_name_dxcs_modes():
    """Struct members and parameters combine modifiers alike (a struct member's `noperspective centroid` had
    lost its centroid, `centroid sample` had been centroid): the DXIL signature's mode and SPIR-V's decorations."""
    res = R.compile_hlsl(MODES, "main", "ps_6_0", "dxil")
    assert res.ok, R.diagnostics_text(res)
    sig = {e["semantic"]: e["interpolation"] for e in res.manifest["entry"]["inputs"]}
    assert {k: sig[k] for k in MODE_WANT} == {k: m for k, (m, _d) in MODE_WANT.items()}
    spv = R.build(MODES, "main", "ps_6_0")
    dis = tools.spirv_dis(spv.binary)
    decos: dict[str, set[str]] = {}
    for var, deco in re.findall(r"OpDecorate %in_(\w+) (NoPerspective|Centroid|Sample|Flat)\b", dis):
        decos.setdefault(var.rsplit("_", 1)[-1], set()).add(deco)
    assert {k: decos.get(k, set()) for k in MODE_WANT} == {k: d for k, (_m, d) in MODE_WANT.items()}


# ---------------------------------------------------------------- executed interpolation

# one triangle over the target's upper-left half, its vertices at different depths w; inside the view volume:
# lavapipe's clipper gives 0 for noperspective values in part of a clipped triangle (SPIR-V and DXIL alike)
CORNERS = ((-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0))
WS = (1.0, 2.0, 4.0)
VALUE = (0.2, 0.9, 0.5)      # the attribute at each vertex
ZS = (0.1, 0.5, 0.3)         # NDC depth at each vertex
VS_PERSPECTIVE = """
struct Inner { noperspective float np : NP; };
struct O {
    float4 pos : SV_Position;
    float smooth : SMOOTH;
    Inner inner;
    nointerpolation float flat : FLAT;
    noperspective centroid float npc : NPC;
    centroid sample float cs : CS;
};
O main(uint id : SV_VertexID) {
    const float2 corners[3] = { float2(-1, -1), float2(1, -1), float2(-1, 1) };
    const float ws[3] = { 1.0, 2.0, 4.0 };
    const float values[3] = { 0.2, 0.9, 0.5 };
    const float zs[3] = { 0.1, 0.5, 0.3 };
    O o;
    o.pos = float4(corners[id] * ws[id], zs[id] * ws[id], ws[id]);
    o.smooth = values[id];
    o.inner.np = values[id];
    o.flat = values[id];
    o.npc = values[id];
    o.cs = values[id];
    return o;
}
"""
PS_PERSPECTIVE = """
struct Inner { noperspective float np : NP; };
struct I {
    float smooth : SMOOTH;
    Inner inner;
    nointerpolation float flat : FLAT;
    noperspective centroid float npc : NPC;
    centroid sample float cs : CS;
};
float4 main(float4 pos : SV_Position, I i) : SV_Target {
    return float4(i.smooth, i.inner.np, i.flat, SELECT);
}
"""


def _expected(x: int, y: int) -> dict[str, float]:
    """What each interpolation gives at pixel (x, y): b are the screen-space barycentrics."""
    b = _bary((_ndc(x, W), _ndc(y, H)), *CORNERS)
    persp = sum(bi / wi * v for bi, wi, v in zip(b, WS, VALUE)) / sum(bi / wi for bi, wi in zip(b, WS))
    return {"smooth": persp, "noperspective": sum(bi * v for bi, v in zip(b, VALUE)), "flat": VALUE[0],
            "z": sum(bi * z for bi, z in zip(b, ZS)), "inv_w": sum(bi / wi for bi, wi in zip(b, WS))}


# a geometry shader passing the vertex shader's struct on: the modes are its output's
GS_PERSPECTIVE = """
struct Inner { noperspective float np : NP; };
struct V {
    float4 pos : SV_Position;
    float smooth : SMOOTH;
    Inner inner;
    nointerpolation float flat : FLAT;
    noperspective centroid float npc : NPC;
    centroid sample float cs : CS;
};
[maxvertexcount(3)]
void main(triangle V v[3], inout TriangleStream<V> s) {
    for (uint i = 0; i < 3; i++) s.Append(v[i]);
}
"""


@pytest.mark.parametrize("gs", [None, GS_PERSPECTIVE], ids=["vs-ps", "vs-gs-ps"])
@pytest.mark.parametrize(("select", "key"), [("i.npc", "noperspective"), ("i.cs", "smooth")])
def test_interpolation_modes_give_their_values(select, key, gs):
    """Perspective-correct (no modifier), noperspective (a nested struct's member), nointerpolation (the
    provoking vertex, the first) and, single-sampled, `noperspective centroid` and `centroid sample` as their
    centre-sampled modes, on a triangle whose vertices have w = 1, 2, 4; also through a geometry shader."""
    px = R.draw(VS_PERSPECTIVE, PS_PERSPECTIVE.replace("SELECT", select), W, H, gs_src=gs)
    for y in range(H):
        for x in range(W):
            if x + y >= W - 1:      # on the diagonal edge (the fill rule decides) or outside
                assert x + y == W - 1 or R.pixel(px, W, x, y) == (0, 0, 0, 0), (x, y)
                continue
            e = _expected(x, y)
            want = (R.unorm8(e["smooth"]), R.unorm8(e["noperspective"]), R.unorm8(e["flat"]), R.unorm8(e[key]))
            assert _close(R.pixel(px, W, x, y), want), (x, y, R.pixel(px, W, x, y), want)


# ---------------------------------------------------------------- SV_Position in the pixel stage

PS_POSITION = """
float4 main(float4 pos : SV_Position) : SV_Target {
    return float4(pos.x / 8.0, pos.y / 8.0, pos.z, frac(pos.x) == 0.5 && frac(pos.y) == 0.5 ? 1.0 : 0.0);
}
"""


def test_pixel_position_xyz():
    """.xy are the pixel centres (x + 0.5, y + 0.5), .z the depth interpolated linearly in screen space
    (the NDC z of each vertex: z / w), on the perspective triangle."""
    px = R.draw(VS_PERSPECTIVE, PS_POSITION, W, H)
    for y in range(H):
        for x in range(W):
            if x + y >= W - 1:
                continue
            want = (R.unorm8((x + 0.5) / 8), R.unorm8((y + 0.5) / 8), R.unorm8(_expected(x, y)["z"]), 255)
            assert _close(R.pixel(px, W, x, y), want), (x, y, R.pixel(px, W, x, y), want)


PS_POSITION_W = "float4 main(float4 pos : SV_Position) : SV_Target { return float4(pos.w / 4.0, 0, 0, 1); }"


def _w_draw(target: str, **options) -> bytes:
    """Draw the perspective triangle with PS_POSITION_W from the SPIR-V build (options: -fvk-* ones) or from
    the DXIL build through dxil-spirv."""
    run = R.vk_runner().run_graphics
    if target == "spirv":
        vs, ps = R.build(VS_PERSPECTIVE, "main", "vs_6_0"), R.build(PS_POSITION_W, "main", "ps_6_0", **options)
        return run(vs.binary, "main", ps.binary, "main", W, H)
    from dxil_run import consumer_spirv
    vs2, ps2 = (consumer_spirv(R.compile_hlsl(s, "main", p, "dxil"))
                for s, p in ((VS_PERSPECTIVE, "vs_6_0"), (PS_POSITION_W, "ps_6_0")))
    assert vs2 is not None and ps2 is not None
    return run(vs2[0], vs2[1]["entry"], ps2[0], ps2[1]["entry"], W, H)


@pytest.mark.parametrize(("target", "options", "d3d"), [("spirv", {}, False),
                                                        ("spirv", {"vk_use_dx_position_w": True}, True),
                                                        ("dxil", {}, True)],
                         ids=["spirv", "spirv-dx-position-w", "dxil"])
def test_pixel_position_w(target, options, d3d):
    """D3D's SV_Position.w is the interpolated clip w (1 / the screen-space interpolation of 1/w); Vulkan's
    FragCoord.w is that 1/w, and DXC's SPIR-V hands it over as is unless -fvk-use-dx-position-w (documented
    in docs/CONFORMANCE.md).  The DXIL build, run through dxil-spirv, gives D3D's."""
    px = _w_draw(target, **options)
    for y in range(H):
        for x in range(W):
            if x + y >= W - 1:
                continue
            inv_w = _expected(x, y)["inv_w"]
            want = (R.unorm8((1 / inv_w if d3d else inv_w) / 4), 0, 0, 255)
            assert _close(R.pixel(px, W, x, y), want), (x, y, R.pixel(px, W, x, y), want)


# ---------------------------------------------------------------- semantics cascading through structs and arrays

def _leaves(prefix: str, shape) -> list[str]:
    """Access paths of every scalar: shape is 'f' (float), an int n (floatn), ('a', n, shape) (array),
    ('m', r, c) (floatrxc) or a dict of members."""
    if shape == "f":
        return [prefix]
    if isinstance(shape, int):
        return [f"{prefix}.{'xyzw'[i]}" for i in range(shape)]
    if isinstance(shape, dict):
        return [p for name, s in shape.items() for p in _leaves(f"{prefix}.{name}", s)]
    if shape[0] == "a":
        return [p for i in range(shape[1]) for p in _leaves(f"{prefix}[{i}]", shape[2])]
    return [f"{prefix}[{r}][{c}]" for r in range(shape[1]) for c in range(shape[2])]


CASCADES = {
    # struct S { ... } s : TEXCOORD1 — members numbered on from TEXCOORD1, arrays and matrices taking several
    "member-arrays": ("struct S { float c; float2 b[3]; float4x2 m; row_major float2x3 r; float d; };",
                      {"c": "f", "b": ("a", 3, 2), "m": ("m", 4, 2), "r": ("m", 2, 3), "d": "f"}, "S", " : TEXCOORD1"),
    "nested": ("struct Inner { float2 a; float b[2]; };\nstruct S { float c; Inner i; float3 d; };",
               {"c": "f", "i": {"a": 2, "b": ("a", 2, "f")}, "d": 3}, "S", " : TEXCOORD1"),
    # members with their own semantics, a nested struct without one
    "own-semantics": ("struct Inner { float2 a : COLOR0; float b[2] : COLOR1; };\n"
                      "struct S { float c : TEXCOORD0; Inner i; float3 d : NORMAL; };",
                      {"c": "f", "i": {"a": 2, "b": ("a", 2, "f")}, "d": 3}, "S", ""),
    # a derived struct: the base's members first
    "derived": ("struct A { float a; float2 c; };\nstruct S : A { float b; float2x2 m; };",
                {"a": "f", "c": 2, "b": "f", "m": ("m", 2, 2)}, "S", " : TEXCOORD2"),
    "struct-array": ("struct Inner { float2 a; float b; };\nstruct S { float c; Inner i[2]; float d; };",
                     {"c": "f", "i": ("a", 2, {"a": 2, "b": "f"}), "d": "f"}, "S", " : TEXCOORD2"),
    # an array of structs holding matrices (either majorness) and a nested struct: DXIL numbers the rows
    # element by element, leaf by leaf (DXC's AllocateSemanticIndex), one signature element per leaf
    "struct-array-nested": ("struct Deep { float a; float2 b; };\n"
                            "struct Inner { row_major float2x3 m; Deep d; float2x2 n; };\nstruct S { float c; Inner i[3]; };",
                            {"c": "f", "i": ("a", 3, {"m": ("m", 2, 3), "d": {"a": "f", "b": 2}, "n": ("m", 2, 2)})},
                            "S", " : TEXCOORD1"),
}
CASCADE_VS = """{decls}
struct VOut {{ float4 pos : SV_Position; nointerpolation {t} s{sem}; }};
VOut main(uint id : SV_VertexID) {{
    VOut o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(uv * 2.0 - 1.0, 0.0, 1.0);
{stores}
    return o;
}}
"""
CASCADE_PS = """{decls}
RWStructuredBuffer<float> Out : register(u0);
float4 main(float4 pos : SV_Position, nointerpolation {t} s{sem}) : SV_Target {{
{stores}
    return float4(1, 0, 0, 1);
}}
"""


@pytest.mark.parametrize("case", [
    R.param("member-arrays", id="member-arrays"), R.param("nested", id="nested"),
    R.param("own-semantics", id="own-semantics"), R.param("derived", id="derived"),
    R.param("struct-array", id="struct-array"), R.param("struct-array-nested", id="struct-array-nested"),
])
def test_semantics_cascade_through_structs_and_arrays(case):
    """Every scalar of a nested struct (arrays, matrices, nested structs, members with their own semantics)
    written by the vertex shader arrives at the pixel shader: leaf k carries (k + 1) / 64 and lands in Out[k]."""
    decls, shape, t, sem = CASCADES[case]
    leaves = _leaves("s", shape)
    vs = CASCADE_VS.format(decls=decls, t=t, sem=sem,
                           stores="\n".join(f"    o.{p} = {k + 1} / 64.0;" for k, p in enumerate(leaves)))
    ps = CASCADE_PS.format(decls=decls, t=t, sem=sem,
                           stores="\n".join(f"    Out[{k}] = {p};" for k, p in enumerate(leaves)))
    _t, got = R.draw(vs, ps, W, H, {"Out": R.storage(R.sentinel(len(leaves)))}, full=True)
    assert R.unpack("f", got["Out"]) == [(k + 1) / 64 for k in range(len(leaves))]


def test_struct_array_signature_rows_numbered_element_by_element():
    """DXIL: `S s : TEXCOORD2` with `Inner i[2]` (Inner { float2 a; float b; }) is one element per leaf member,
    its rows numbered in memory order (DXC's AllocateSemanticIndex): c 2, i[0].a 3, i[0].b 4, i[1].a 5, i[1].b 6,
    d 7, so i.a is a two-row element of semantic indices 3 and 5 and i.b one of 4 and 6."""
    decls, shape, t, sem = CASCADES["struct-array"]
    leaves = _leaves("s", shape)
    vs = CASCADE_VS.format(decls=decls, t=t, sem=sem, stores="\n".join(f"    o.{p} = {k};" for k, p in enumerate(leaves)))
    _res, check = R.build_dxil(vs, profile="vs_6_0")
    rows = re.findall(r'!\{i32 \d+, !"TEXCOORD", i8 9, i8 0, (!\d+), i8 1, i32 (\d+), i8 (\d+),', check.ir)
    nodes = dict(re.findall(r"^(!\d+) = !\{(.*)\}$", check.ir, re.M))
    got = sorted((tuple(int(x.split()[1]) for x in nodes[n].split(", ")), int(r), int(c)) for n, r, c in rows)
    assert got == [((2,), 1, 1), ((3, 5), 2, 2), ((4, 6), 2, 1), ((7,), 1, 1)], got


# ---------------------------------------------------------------- vertex and instance ids with a non-zero base

def _draw_each(target: str, vs_src: str, ps_src: str, vs_profile: str = "vs_6_0", vs_options: dict | None = None,
               **kw) -> bytes:
    """Draw from the SPIR-V builds (vs_options: -fvk-* options of the vertex shader) or from the DXIL builds
    through dxil-spirv, separately: for values where DXC's SPIR-V and D3D differ on purpose (each is checked
    against its own rule)."""
    run = R.vk_runner().run_graphics
    if target == "spirv":
        vs, ps = R.build(vs_src, "main", vs_profile, **(vs_options or {})), R.build(ps_src, "main", "ps_6_0")
        return run(vs.binary, "main", ps.binary, "main", W, H, **kw)
    from dxil_run import consumer_spirv
    vs2, ps2 = (consumer_spirv(R.compile_hlsl(s, "main", p, "dxil")) for s, p in ((vs_src, vs_profile),
                                                                                  (ps_src, "ps_6_0")))
    assert vs2 is not None and ps2 is not None
    return run(vs2[0], vs2[1]["entry"], ps2[0], ps2[1]["entry"], W, H, **kw)


VS_IDS = """
struct O { float4 pos : SV_Position; nointerpolation uint4 ids : IDS; };
O main(uint vid : SV_VertexID, uint iid : SV_InstanceID START_PARAMS) {
    const float2 corners[3] = { float2(-1, -1), float2(0, -1), float2(-1, 1) };
    O o;
    o.pos = float4(corners[vid % 3] + float2(iid % 2, 0), 0, 1);    // odd instances: the right half
    o.ids = uint4(vid, iid, START_VALUES);
    return o;
}
"""
PS_IDS = """
float4 main(float4 pos : SV_Position, nointerpolation uint4 ids : IDS) : SV_Target { return ids / 255.0; }
"""
FIRST_VERTEX, FIRST_INSTANCE = 5, 7


NONZERO_BASE = {"vk_support_nonzero_base_vertex": True, "vk_support_nonzero_base_instance": True}


@pytest.mark.parametrize("profile", ["vs_6_0", "vs_6_8"])
@pytest.mark.parametrize("target", ["spirv", "spirv-nonzero-base", "dxil"])
def test_vertex_and_instance_ids_with_a_base(target, profile):
    """vkCmdDraw(3 vertices, 2 instances, firstVertex 5, firstInstance 7).  D3D's SV_VertexID and
    SV_InstanceID leave the draw's start locations out (HLSL spec proposal 0015, which adds
    SV_StartVertexLocation / SV_StartInstanceLocation at SM 6.8 to read them); DXC's SPIR-V maps them to
    VertexIndex / InstanceIndex, which include them, unless -fvk-support-nonzero-base-vertex / -instance
    (docs/CONFORMANCE.md).  Each pixel shows the ids of its triangle's provoking (first) vertex."""
    start = profile == "vs_6_8"
    vs = VS_IDS.replace("START_PARAMS", ", int sv : SV_StartVertexLocation, uint si : SV_StartInstanceLocation"
                        if start else "").replace("START_VALUES", "(uint)sv, si" if start else "0, 0")
    px = _draw_each(target.split("-")[0], vs, PS_IDS, profile, NONZERO_BASE if "nonzero" in target else None,
                    vertex_count=3, instance_count=2, first_vertex=FIRST_VERTEX, first_instance=FIRST_INSTANCE)
    base_v, base_i = (FIRST_VERTEX, FIRST_INSTANCE) if target == "spirv" else (0, 0)
    for j in range(2):
        iid = base_i + j
        x = 4 * (iid % 2)          # a pixel inside that instance's triangle
        want = (base_v, iid, FIRST_VERTEX if start else 0, FIRST_INSTANCE if start else 0)
        assert R.pixel(px, W, x, 0) == want, (j, R.pixel(px, W, x, 0), want)


# ---------------------------------------------------------------- conservative depth, primitive id, layer, cull

VS_TWO_DEPTHS = """
float4 main(uint id : SV_VertexID) : SV_Position {
    uint k = id % 3;
    float2 uv = float2((k << 1) & 2, k & 2);
    return float4(uv * 2.0 - 1.0, id < 3 ? 0.5 : SECOND_Z, 1.0);
}
"""
PS_CONSERVATIVE = """
struct O { float4 color : SV_Target; float depth : SEMANTIC; };
O main(float4 pos : SV_Position) {
    O o;
    bool first = abs(pos.z - 0.5) < 0.01;
    o.color = first ? float4(1, 0, 0, 1) : float4(0, 1, 0, 1);
    o.depth = first && pos.x < 4.0 ? MOVED : pos.z;      // on the side the semantic allows
    return o;
}
"""


@pytest.mark.parametrize(("semantic", "moved", "second_z"), [("SV_DepthGreaterEqual", 0.8, 0.6),
                                                             ("SV_DepthLessEqual", 0.2, 0.4)])
def test_conservative_depth_outputs_are_depth_tested(semantic, moved, second_z):
    """The first triangle (z 0.5) moves its depth to `moved` in the left half; the second (drawn after, depth
    test LESS) shows where its z is less than the first's depth."""
    vs = VS_TWO_DEPTHS.replace("SECOND_Z", repr(second_z))
    ps = PS_CONSERVATIVE.replace("SEMANTIC", semantic).replace("MOVED", repr(moved))
    px = R.draw(vs, ps, W, H, vertex_count=6, depth=1.0)
    red, green = (255, 0, 0, 255), (0, 255, 0, 255)
    for y in range(H):
        for x in range(W):
            first_depth = moved if x < 4 else 0.5
            assert R.pixel(px, W, x, y) == (green if second_z < first_depth else red), (x, y)
    spv = R.spirv_dis(R.build(ps, "main", "ps_6_0"))
    assert ("OpExecutionMode %main DepthGreater" if "Greater" in semantic else "OpExecutionMode %main DepthLess") \
        in spv and "DepthReplacing" in spv


VS_HALVES = """
float4 main(uint id : SV_VertexID) : SV_Position {
    const float2 corners[6] = { float2(-1, -1), float2(1, -1), float2(-1, 1),
                                float2(1, -1), float2(1, 1), float2(-1, 1) };
    return float4(corners[id], 0, 1);
}
"""
GS_WRITES_PRIMITIVE_ID = """
struct O { float4 pos : SV_Position; uint prim : SV_PrimitiveID; };
[maxvertexcount(3)]
void main(triangle float4 pos[3] : SV_Position, uint id : SV_PrimitiveID, inout TriangleStream<O> s) {
    for (uint i = 0; i < 3; i++) {
        O o;
        o.pos = pos[i];
        o.prim = id * 3 + 5;        // the pixel shader's SV_PrimitiveID is what the GS wrote
        s.Append(o);
    }
}
"""
PS_PRIMITIVE_ID = "float4 main(uint prim : SV_PrimitiveID) : SV_Target { return float4(prim / 255.0, 0, 0, 1); }"


def test_geometry_shader_writes_primitive_id():
    px = R.draw(VS_HALVES, PS_PRIMITIVE_ID, W, H, vertex_count=6, gs_src=GS_WRITES_PRIMITIVE_ID)
    for y in range(H):
        for x in range(W):
            if x + y == W - 1:
                continue            # on the shared diagonal
            prim = 0 if x + y < W - 1 else 1
            assert R.pixel(px, W, x, y) == (prim * 3 + 5, 0, 0, 255), (x, y)


# (a pixel shader declares the vertex shader's outputs in the same order: D3D links the two signatures by
# register, and both DXC and shaderbuild pack each signature in declaration order)
VS_LAYER = """
struct O { float4 pos : SV_Position; uint layer : SV_RenderTargetArrayIndex; nointerpolation uint inst : INST; };
O main(uint id : SV_VertexID, uint inst : SV_InstanceID) {
    O o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(uv * 2.0 - 1.0, 0.0, 1.0);
    o.layer = 2 - inst;             // instance 0 -> layer 2, 1 -> 1, 2 -> 0
    o.inst = inst;
    return o;
}
"""
PS_LAYER = """
float4 main(float4 pos : SV_Position, uint layer : SV_RenderTargetArrayIndex, nointerpolation uint inst : INST)
    : SV_Target {
    return float4(inst / 255.0, layer / 255.0, 0.5, 1);
}
"""


def test_vertex_shader_writes_render_target_array_index():
    """SV_RenderTargetArrayIndex from the vertex stage (SPIR-V: Layer, ShaderLayer); the pixel shader reads it."""
    px = R.draw(VS_LAYER, PS_LAYER, W, H, instance_count=3, layers=3)
    for layer in range(3):
        inst = 2 - layer
        layer_px = px[layer * W * H * 4:(layer + 1) * W * H * 4]
        assert {R.pixel(layer_px, W, x, y) for y in range(H) for x in range(W)} == {(inst, layer, 128, 255)}, layer


VS_CULL = """
struct O { float4 pos : SV_Position; float2 cull : SV_CullDistance0; float clip[2] : SV_ClipDistance1;
           float seen : SEEN; };
O main(uint id : SV_VertexID) {
    uint k = id % 3;
    float2 uv = float2((k << 1) & 2, k & 2);
    O o;
    o.pos = float4(uv * 2.0 - 1.0, 0.0, 1.0);
    o.cull = float2(1.0, id < 3 ? 1.0 : -1.0);      // the second triangle: every vertex negative, culled
    o.clip[0] = 1.0;
    o.clip[1] = o.pos.x + 0.5;                       // clips x < -0.5
    o.seen = id < 3 ? 0.25 : 0.75;
    return o;
}
"""
PS_CULL = """
float4 main(float4 pos : SV_Position, float2 cull : SV_CullDistance0, float clip[2] : SV_ClipDistance1,
            float seen : SEEN) : SV_Target {
    return float4(seen, clip[1] / 4.0, 0, 1);        // the pixel stage reads the interpolated distance too
}
"""


def test_cull_and_clip_distance_arrays():
    """A float2 SV_CullDistance0 culls the triangle whose vertices all have a negative distance; a float[2]
    SV_ClipDistance1 clips x < -0.5 and reaches the pixel shader interpolated (x + 0.5 at the pixel)."""
    px = R.draw(VS_CULL, PS_CULL, W, H, vertex_count=6)
    for y in range(H):
        for x in range(W):
            ndc_x = _ndc(x, W)
            want = (R.unorm8(0.25), R.unorm8((ndc_x + 0.5) / 4), 0, 255) if ndc_x > -0.5 else (0, 0, 0, 0)
            assert _close(R.pixel(px, W, x, y), want), (x, y, R.pixel(px, W, x, y), want)


# ---------------------------------------------------------------- tessellation: what the domain shader reads

VS_CP = """
struct CP { float4 pos : POSITION0; };
CP main(uint id : SV_VertexID) {
    const float2 pts[4] = { float2(-1, -1), float2(1, -1), float2(1, 1), float2(-1, 1) };
    CP o; o.pos = float4(pts[id], 0, 1); return o;
}
"""
HS_TESS = """
struct CP { float4 pos : POSITION0; };
struct PC { float edges[EDGES] : SV_TessFactor; INSIDE_DECL };
PC constants(InputPatch<CP, POINTS> patch) {
    PC o;
    [unroll] for (int i = 0; i < EDGES; i++) o.edges[i] = EDGE_VALUES[i];
    INSIDE_SET
    return o;
}
[domain("DOMAIN")] [partitioning("integer")] [outputtopology("OUTPUT_TOPOLOGY")]
[outputcontrolpoints(POINTS)] [patchconstantfunc("constants")]
CP main(InputPatch<CP, POINTS> patch, uint i : SV_OutputControlPointID) {
    CP o;
    o.pos = patch[(i + 1) % POINTS].pos;    // control point i is input point i + 1: the DS sees the rotation
    return o;
}
"""
DS_TESS = """
struct CP { float4 pos : POSITION0; };
struct PC { float edges[EDGES] : SV_TessFactor; INSIDE_DECL };
RWStructuredBuffer<float4> Out : register(u0);
struct DSOut { float4 pos : SV_Position; };
[domain("DOMAIN")]
DSOut main(PC pc, LOCATION_TYPE loc : SV_DomainLocation, const OutputPatch<CP, POINTS> p) {
    // one slot per location (its coordinates are multiples of 1/12 here): whatever order the invocations run
    // in, and however often one location is evaluated, the buffer ends the same
    uint n = (uint)round(loc.x * 12) * 13 + (uint)round(loc.y * 12);
    Out[2 * n] = float4(LOCATION_XYZ, p[0].pos.x);
    Out[2 * n + 1] = float4(FACTORS);
    DSOut o;
    o.pos = float4(0, 0, 0, 1);
    return o;
}
"""
PS_NONE = "float4 main() : SV_Target { return 1; }"

TESS_CASES = {
    # domain: (control points, edge factors, inside factors, the points the tessellator makes (integer partitioning))
    "quad": (4, (3.0, 3.0, 3.0, 3.0), (3.0, 3.0), {(i / 3, j / 3, 0.0) for i in range(4) for j in range(4)}),
    "tri": (3, (2.0, 2.0, 2.0), (2.0,),
            {(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0), (0.5, 0.5, 0.0), (0.0, 0.5, 0.5), (0.5, 0.0, 0.5),
             (1 / 3, 1 / 3, 1 / 3)}),
    # isolines: edges[0] the number of lines (v = j / lines), edges[1] the segments of each (u = i / segments)
    "isoline": (4, (2.0, 4.0), (), {(i / 4, j / 2, 0.0) for i in range(5) for j in range(2)}),
}


def _tess_sources(domain: str) -> tuple[str, str]:
    points, edges, inside, _want = TESS_CASES[domain]
    subs = {"DOMAIN": domain, "POINTS": str(points), "EDGES": str(len(edges)),
            "EDGE_VALUES": f"float{len(edges)}({', '.join(map(repr, edges))})",
            "OUTPUT_TOPOLOGY": "line" if domain == "isoline" else "triangle_cw",
            "LOCATION_TYPE": "float3" if domain == "tri" else "float2",
            "LOCATION_XYZ": "loc" if domain == "tri" else "loc, 0"}
    if not inside:
        subs.update(INSIDE_DECL="", INSIDE_SET="", FACTORS="pc.edges[0], pc.edges[1], 0, 0")
    elif len(inside) == 1:
        subs.update(INSIDE_DECL="float inside : SV_InsideTessFactor;", INSIDE_SET=f"o.inside = {inside[0]!r};",
                    FACTORS="pc.edges[0], pc.edges[1], pc.edges[2], pc.inside")
    else:
        subs.update(INSIDE_DECL="float inside[2] : SV_InsideTessFactor;",
                    INSIDE_SET=f"o.inside[0] = {inside[0]!r}; o.inside[1] = {inside[1]!r};",
                    FACTORS="pc.edges[0] + pc.edges[3], pc.edges[1], pc.inside[0], pc.inside[1]")
    hs, ds = HS_TESS, DS_TESS
    for k, v in subs.items():
        hs, ds = hs.replace(k, v), ds.replace(k, v)
    return hs, ds


def _tess_run(target: str, hs: str, ds: str, points: int) -> bytes:
    """Draw one patch from the SPIR-V builds or the DXIL builds through dxil-spirv; the final bytes of Out."""
    specs = {"Out": R.storage(bytes(16 * 2 * 13 * 13))}
    run = R.vk_runner().run_graphics
    stages = [(VS_CP, "vs_6_0"), (hs, "hs_6_0"), (ds, "ds_6_0"), (PS_NONE, "ps_6_0")]
    builds = [R.build(s, "main", p) for s, p in stages]
    if target == "spirv":
        v, h, d, p = builds
        _t, got = run(v.binary, "main", p.binary, "main", W, H, R.bind([d.manifest], specs), vertex_count=points,
                      full=True, tessellation=(h.binary, "main", d.binary, "main", points))
        return got[0]
    from dxil_run import consumer_spirv, vk_descriptors
    twins = [R.compile_hlsl(s, "main", p, "dxil") for s, p in stages]
    conv = [consumer_spirv(t) for t in twins]
    assert all(c is not None for c in conv)
    descs, names = vk_descriptors([builds[2].manifest], [twins[2].manifest], specs, b"", {}, conv[2][1]["cross"])
    (v, ve), (h, he), (d, de), (p, pe) = ((c[0], c[1]["entry"]) for c in conv)
    _t, got = run(v, ve, p, pe, W, H, descs, vertex_count=points, full=True, tessellation=(h, he, d, de, points))
    assert [n for n, _w, _i in names] == ["Out"] and all(i is None for _n, _w, i in names)
    return got[0]


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("domain", list(TESS_CASES))
def test_domain_shader_reads_location_and_factors(domain, target):
    """Each domain-shader invocation records SV_DomainLocation, control point 0 of the OutputPatch (the hull
    shader's output point 0, which SV_OutputControlPointID made input point 1) and the SV_TessFactor /
    SV_InsideTessFactor values the patch-constant function wrote; the locations are the points integer
    partitioning makes for those factors."""
    points, edges, inside, want = TESS_CASES[domain]
    hs, ds = _tess_sources(domain)
    data = R.unpack("f", _tess_run(target, hs, ds, points))
    records = [(tuple(data[8 * n:8 * n + 4]), tuple(data[8 * n + 4:8 * n + 8])) for n in range(13 * 13)]
    records = [r for r in records if r != ((0.0,) * 4, (0.0,) * 4)]
    assert records, "the domain shader did not run"
    got = {tuple(round(c, 4) for c in loc[:3]) for loc, _f in records}
    assert got == {tuple(round(c, 4) for c in w) for w in want}
    assert {loc[3] for loc, _f in records} == {1.0}        # input point 1 is (1, -1)
    if domain == "quad":
        factors = (edges[0] + edges[3], edges[1], inside[0], inside[1])
    elif domain == "tri":
        factors = (*edges, inside[0])
    else:
        factors = (edges[0], edges[1], 0.0, 0.0)
    assert {f for _loc, f in records} == {factors}


VS_VIEWPORT = """
struct O { float4 pos : SV_Position; uint vp : SV_ViewportArrayIndex; nointerpolation uint inst : INST; };
O main(uint id : SV_VertexID, uint inst : SV_InstanceID) {
    O o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(uv * 2.0 - 1.0, 0.0, 1.0);
    o.vp = 3 - inst;                // instance 0 -> viewport 3 (the right strip), ...
    o.inst = inst;
    return o;
}
"""
GS_VIEWPORT = """
struct I { float4 pos : SV_Position; nointerpolation uint inst : INST; };
struct O { float4 pos : SV_Position; uint vp : SV_ViewportArrayIndex; nointerpolation uint inst : INST; };
[maxvertexcount(3)]
void main(triangle I v[3], inout TriangleStream<O> s) {
    for (uint i = 0; i < 3; i++) {
        O o; o.pos = v[i].pos; o.vp = 3 - v[i].inst; o.inst = v[i].inst; s.Append(o);
    }
}
"""
VS_INSTANCE = """
struct O { float4 pos : SV_Position; nointerpolation uint inst : INST; };
O main(uint id : SV_VertexID, uint inst : SV_InstanceID) {
    O o; float2 uv = float2((id << 1) & 2, id & 2); o.pos = float4(uv * 2.0 - 1.0, 0.0, 1.0); o.inst = inst; return o;
}
"""
PS_VIEWPORT = """
float4 main(float4 pos : SV_Position, uint vp : SV_ViewportArrayIndex, nointerpolation uint inst : INST) : SV_Target {
    return float4(inst / 255.0, vp / 255.0, 0.5, 1);
}
"""


@pytest.mark.parametrize("stage", ["vertex", "geometry"])
def test_viewport_array_index(stage):
    """Four viewports side by side (two pixels wide each); instance k's full-screen triangle goes to viewport
    3 - k by SV_ViewportArrayIndex written in the vertex (SPIR-V: ViewportIndex, ShaderViewportIndex) or the
    geometry stage, and the pixel shader reads the index back."""
    if stage == "vertex":
        px = R.draw(VS_VIEWPORT, PS_VIEWPORT, W, H, instance_count=4, viewports=4)
    else:
        px = R.draw(VS_INSTANCE, PS_VIEWPORT, W, H, gs_src=GS_VIEWPORT, instance_count=4, viewports=4)
    for y in range(H):
        for x in range(W):
            vp = x // 2
            assert R.pixel(px, W, x, y) == (3 - vp, vp, 128, 255), (x, y)


# ---------------------------------------------------------------- multisampled: per-sample values

# Vulkan's standard 4-sample locations, which are D3D's standard 4-sample pattern too
SAMPLE_LOCATIONS = ((0.375, 0.125), (0.875, 0.375), (0.125, 0.625), (0.625, 0.875))
VS_NDC = """
struct O { float4 pos : SV_Position; float2 ndc : NDC; nointerpolation uint flat : FLAT; };
O main(uint id : SV_VertexID) {
    O o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(uv * 2.0 - 1.0, 0.0, 1.0);
    o.ndc = o.pos.xy;
    o.flat = 40 + id;
    return o;
}
"""
PS_PER_SAMPLE = """
RWStructuredBuffer<float4> Out : register(u0);
float4 main(float4 pos : SV_Position, sample float2 ndc : NDC, nointerpolation uint flat : FLAT,
            uint s : SV_SampleIndex, uint cov : SV_Coverage) : SV_Target {
    uint i = ((uint)pos.y * 8 + (uint)pos.x) * 4 + s;
    Out[i] = float4((ndc + 1) * 4, flat, cov * 16 + s);
    return float4(s * 0.25, 0, 0, 1);
}
"""


def test_per_sample_shading_reads_sample_values():
    """Four samples per pixel: SV_SampleIndex makes the pixel shader run once per sample; a `sample` input is
    interpolated at that sample's location, SV_Coverage holds that sample's bit, a nointerpolation input is the
    provoking vertex's; the target resolves to the average of the four samples' colours.  (Where an input
    without `sample` is interpolated in a per-sample invocation is left to the implementation: not checked.)"""
    px, got = R.draw(VS_NDC, PS_PER_SAMPLE, W, H, {"Out": R.storage(bytes(16 * W * H * 4))}, samples=4, full=True)
    out = R.unpack("f", got["Out"])
    for y in range(H):
        for x in range(W):
            for s, (sx, sy) in enumerate(SAMPLE_LOCATIONS):
                i = ((y * W + x) * 4 + s) * 4
                assert out[i:i + 4] == [x + sx, y + sy, 40, (1 << s) * 16 + s], (x, y, s, out[i:i + 4])
            want = sum(R.unorm8(s * 0.25) for s in range(4)) / 4
            assert abs(R.pixel(px[0], W, x, y)[0] - want) <= 1, (x, y)


PS_COVERAGE_OUT = """
float4 main(float4 pos : SV_Position, out uint mask : SV_Coverage) : SV_Target {
    mask = pos.x < 4.0 ? 0x5u : 0xEu;      // samples 0 and 2 on the left, 1, 2 and 3 on the right
    return float4(1, 0, 0, 1);
}
"""


def test_coverage_output_with_four_samples():
    """SV_Coverage written by a pixel-rate shader keeps only those samples: the resolved target is the fraction
    of samples written (2/4 on the left, 3/4 on the right)."""
    px = R.draw(R.FULLSCREEN_VS, PS_COVERAGE_OUT, W, H, samples=4)
    for y in range(H):
        for x in range(W):
            want = 255 * (2 if x < 4 else 3) / 4
            got = R.pixel(px, W, x, y)
            assert abs(got[0] - want) <= 1 and got[1:3] == (0, 0), (x, y, got)


# (the vertex shader declares the modes too: D3D packs each signature by them, and links the two by register)
VS_EDGE = """
struct O { float4 pos : SV_Position; centroid float2 a : A; float2 b : B; };
O main(uint id : SV_VertexID) {
    const float2 corners[3] = { float2(-1, -1), float2(0.075, -1), float2(0.075, 3) };   // right edge at x = 4.3 px
    O o;
    o.pos = float4(corners[id], 0, 1);
    o.a = o.pos.xy;
    o.b = o.pos.xy;
    return o;
}
"""
PS_CENTROID = """
RWStructuredBuffer<float2> Out : register(u0);
float4 main(float4 pos : SV_Position, centroid float2 a : A, float2 b : B) : SV_Target {
    if ((uint)pos.x == 4) {                 // the column the edge crosses: only sample 2 (x + 0.125) covered
        Out[(uint)pos.y * 2] = (a + 1) * 4;
        Out[(uint)pos.y * 2 + 1] = (b + 1) * 4;
    }
    return 1;
}
"""


def test_centroid_input_stays_inside_the_primitive():
    """In pixels the primitive covers partly (four samples), a `centroid` input is interpolated at a point the
    primitive covers (its x at most the edge's 4.3), a plain one at the pixel centre (4.5, outside)."""
    _t, got = R.draw(VS_EDGE, PS_CENTROID, W, H, {"Out": R.storage(bytes(8 * 2 * H))}, samples=4, full=True)
    out = R.unpack("f", got["Out"])
    for y in range(H):
        ax, _ay, bx, by = out[4 * y:4 * y + 4]
        assert 4.0 <= ax <= 4.3 + 1e-4, (y, ax)
        assert (bx, by) == (4.5, y + 0.5), (y, bx, by)


VS_STRIP_SOURCE = """
float4 main(uint id : SV_VertexID) : SV_Position { return float4(0, 0, 0, 1); }
"""
# four vertices of a strip covering the target; which way each triangle turns decides its facing
STRIP = ((-1.0, -1.0), (-1.0, 1.0), (1.0, -1.0), (1.0, 1.0))
GS_STRIP = """
struct O { float4 pos : SV_Position; };
[maxvertexcount(4)]
void main(point float4 p[1] : SV_Position, inout TriangleStream<O> s) {
    const float2 v[4] = { float2(-1, -1), float2(-1, 1), float2(1, -1), float2(1, 1) };
    for (uint i = 0; i < 4; i++) { O o; o.pos = float4(v[i], 0, 1); s.Append(o); }
}
"""
PS_FACE = """
float4 main(bool front : SV_IsFrontFace) : SV_Target { return front ? float4(1, 1, 1, 1) : float4(0, 0, 1, 1); }
"""


def _front_facing(tri) -> bool:
    """Vulkan's rule in framebuffer coordinates (y down): a = -1/2 sum(x_i y_i+1 - x_i+1 y_i) > 0 is front
    facing for VK_FRONT_FACE_COUNTER_CLOCKWISE (the harness's state)."""
    pts = [((x + 1) * W / 2, (y + 1) * H / 2) for x, y in tri]
    a = -0.5 * sum(pts[i][0] * pts[(i + 1) % 3][1] - pts[(i + 1) % 3][0] * pts[i][1] for i in range(3))
    return a > 0


def test_front_face_of_a_geometry_shader_strip():
    """A geometry shader's triangle strip: Vulkan takes strip triangle k as (k, k+1, k+2), odd k as
    (k+1, k, k+2), so both triangles of the strip face the same way; SV_IsFrontFace says which."""
    tris = [(STRIP[0], STRIP[1], STRIP[2]), (STRIP[2], STRIP[1], STRIP[3])]
    facing = {_front_facing(t) for t in tris}
    assert len(facing) == 1
    want = (255, 255, 255, 255) if facing.pop() else (0, 0, 255, 255)
    px = R.draw(VS_STRIP_SOURCE, PS_FACE, W, H, vertex_count=1, gs_src=GS_STRIP, topology="point_list")
    assert {R.pixel(px, W, x, y) for y in range(H) for x in range(W)} == {want}



PS_TARGET_ARRAY = """
struct O { float4 first : SV_Target0; float4 rest[2] : SV_Target1; };
O main(float4 pos : SV_Position) {
    O o;
    o.first = float4(0.25, 0, 0, 1);
    o.rest[0] = float4(0, 0.5, 0, 1);       // SV_Target1
    o.rest[1] = float4(0, 0, 0.75, 1);      // SV_Target2
    return o;
}
"""


def test_render_target_array_member():
    """An array member `float4 rest[2] : SV_Target1` writes targets 1 and 2."""
    targets, _ = R.draw(R.FULLSCREEN_VS, PS_TARGET_ARRAY, W, H, targets=3, full=True)
    wants = [(R.unorm8(0.25), 0, 0, 255), (0, R.unorm8(0.5), 0, 255), (0, 0, R.unorm8(0.75), 255)]
    for t, want in zip(targets, wants):
        assert {R.pixel(t, W, x, y) for y in range(H) for x in range(W)} == {want}


MS_PERSPECTIVE = """
struct V { float4 pos : SV_Position; [[vk::location(1)]] float smooth : SMOOTH;
           [[vk::location(2)]] noperspective float np : NP; };
[outputtopology("triangle")]
[numthreads(3, 1, 1)]
void main(uint t : SV_GroupThreadID, out vertices V verts[3], out indices uint3 tris[1]) {
    SetMeshOutputCounts(3, 1);
    const float2 corners[3] = { float2(-1, -1), float2(1, -1), float2(-1, 1) };
    const float ws[3] = { 1.0, 2.0, 4.0 };
    const float values[3] = { 0.2, 0.9, 0.5 };
    V v;
    v.pos = float4(corners[t] * ws[t], 0.5 * ws[t], ws[t]);
    v.smooth = values[t];
    v.np = values[t];
    verts[t] = v;
    if (t == 0) tris[0] = uint3(0, 1, 2);
}
"""
PS_MESH_PERSPECTIVE = """
struct V { float4 pos : SV_Position; [[vk::location(1)]] float smooth : SMOOTH;
           [[vk::location(2)]] noperspective float np : NP; };
float4 main(V v) : SV_Target { return float4(v.smooth, v.np, 0, 1); }
"""


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_mesh_shader_vertex_interpolation(target):
    """A mesh shader's per-vertex outputs interpolate by their modes like a vertex shader's (the perspective
    triangle of the tests above); the pixel shader's SPIR-V build or its DXIL through dxil-spirv, after our
    SPIR-V mesh shader (dxil-spirv's mesh shaders store Position one component at a time, which lavapipe
    loses: the strict xfail in tests/resources/test_mesh_shaders.py; here it drew nothing on a worker's
    first mesh draw).  The Locations are the signature rows dxil-spirv gives the pixel shader's inputs."""
    from harness.vulkan_runner import run_mesh
    ms = R.build(MS_PERSPECTIVE, "main", "ms_6_5", env="vulkan1.2")
    ps = R.build(PS_MESH_PERSPECTIVE, "main", "ps_6_5", env="vulkan1.2")
    if target == "spirv":
        px = run_mesh(ms.binary, "main", ps.binary, "main", W, H)
    else:
        from dxil_run import consumer_spirv
        converted = consumer_spirv(R.twin_of(ps))
        assert converted is not None
        px = run_mesh(ms.binary, "main", converted[0], converted[1]["entry"], W, H)
    for y in range(H):
        for x in range(W):
            if x + y >= W - 1:
                continue
            e = _expected(x, y)
            want = (R.unorm8(e["smooth"]), R.unorm8(e["noperspective"]), 0, 255)
            assert _close(R.pixel(px, W, x, y), want), (x, y, R.pixel(px, W, x, y), want)


PS_STENCIL = """
float4 main(float4 pos : SV_Position, out uint ref : SV_StencilRef) : SV_Target {
    ref = (uint)pos.x;              // the column; the stencil test passes where it equals the stored value
    return float4(0, 1, 0, 1);
}
"""


def test_stencil_ref_output_is_the_stencil_test_reference():
    """The stencil buffer holds 3 everywhere and the test is EQUAL: with SV_StencilRef (SPIR-V: FragStencilRefEXT,
    StencilRefReplacingEXT) the reference is the pixel shader's value, so only column 3 is drawn."""
    px = R.draw(R.FULLSCREEN_VS, PS_STENCIL, W, H, stencil=3)
    for y in range(H):
        for x in range(W):
            assert R.pixel(px, W, x, y) == ((0, 255, 0, 255) if x == 3 else (0, 0, 0, 0)), (x, y)


PS_COVERAGE_IN = """
RWStructuredBuffer<uint> Out : register(u0);
float4 main(float4 pos : SV_Position, uint cov : SV_Coverage) : SV_Target {
    InterlockedOr(Out[(uint)pos.y * 8 + (uint)pos.x], cov);    // a pixel may be shaded by two fragments
    return 1;
}
"""


def test_coverage_input_is_the_covered_samples():
    """SV_Coverage in a pixel-rate shader, four samples: bit s set when the primitive (VS_EDGE's triangle,
    (0, 0), (4.3, 0), (4.3, 16) in pixels of this 8 x 8 target) covers sample s at its standard location.  The
    masks of a pixel's fragments are ORed: clipped to the view, the triangle is two, and pixels on the inner
    edge are shaded once by each with the samples each covers."""
    _t, got = R.draw(VS_EDGE, PS_COVERAGE_IN, W, H, {"Out": R.storage(bytes(4 * W * H))}, samples=4, full=True)
    out = R.unpack("I", got["Out"])
    tri = ((0.0, 0.0), (4.3, 0.0), (4.3, 16.0))
    for y in range(H):
        for x in range(W):
            samples = [(x + sx, y + sy) for sx, sy in SAMPLE_LOCATIONS]
            if any(_near_edge(tri, p) for p in samples):
                continue
            mask = sum(1 << s for s, p in enumerate(samples) if _inside(tri, p))
            assert out[y * W + x] == mask, (x, y, out[y * W + x], mask)


def _inside(tri, p) -> bool:
    b = _bary(p, *tri)
    return all(c > 0 for c in b)


def _near_edge(tri, p) -> bool:
    return any(abs(c) < 1e-6 for c in _bary(p, *tri))


PS_EVALUATE_MS = """
RWStructuredBuffer<float4> Out : register(u0);
float4 main(float4 pos : SV_Position, float2 ndc : NDC) : SV_Target {
    uint base = ((uint)pos.y * 8 + (uint)pos.x) * 6;
    [unroll] for (uint s = 0; s < 4; s++)
        Out[base + s] = float4((EvaluateAttributeAtSample(ndc, s) + 1) * 4, 0, 0);
    Out[base + 4] = float4((EvaluateAttributeSnapped(ndc, int2(-8, 7)) + 1) * 4, 0, 0);
    Out[base + 5] = float4((EvaluateAttributeSnapped(ndc, int2(3, -5)) + 1) * 4, 0, 0);
    return 1;
}
"""


def test_evaluate_attribute_at_samples_and_offsets():
    """With four samples, EvaluateAttributeAtSample(v, s) is v at sample s's standard location and
    EvaluateAttributeSnapped(v, o) v at the pixel centre + o / 16 pixel (x right, y down), for every pixel."""
    _t, got = R.draw(VS_NDC, PS_EVALUATE_MS, W, H, {"Out": R.storage(bytes(16 * 6 * W * H))}, samples=4,
                     full=True)
    out = R.unpack("f", got["Out"])
    for y in range(H):
        for x in range(W):
            base = (y * W + x) * 6 * 4
            wants = [(x + sx, y + sy) for sx, sy in SAMPLE_LOCATIONS]
            wants += [(x + 0.5 - 8 / 16, y + 0.5 + 7 / 16), (x + 0.5 + 3 / 16, y + 0.5 - 5 / 16)]
            for k, want in enumerate(wants):
                assert R.approx(out[base + 4 * k:base + 4 * k + 2], want, 1e-4), (x, y, k, out[base + 4 * k:][:2], want)


VS_MATRIX_ARRAY = """
struct O { float4 pos : SV_Position; noperspective float2x2 m : M; float a[2] : ARR; noperspective float2 b[2] : B; };
O main(uint id : SV_VertexID) {
    const float2 corners[3] = { float2(-1, -1), float2(1, -1), float2(-1, 1) };
    const float ws[3] = { 1.0, 2.0, 4.0 };
    const float values[3] = { 0.2, 0.9, 0.5 };
    float v = values[id];
    O o;
    o.pos = float4(corners[id] * ws[id], 0.5 * ws[id], ws[id]);
    o.m = float2x2(v, v / 2, v / 3, v / 4);
    o.a[0] = v / 5; o.a[1] = v / 2;
    o.b[0] = float2(0, 0); o.b[1] = float2(v / 8, v);
    return o;
}
"""
PS_MATRIX_ARRAY = """
struct O { float4 pos : SV_Position; noperspective float2x2 m : M; float a[2] : ARR; noperspective float2 b[2] : B; };
float4 main(O i) : SV_Target { return float4(i.m[1][0] * 3, i.a[1] * 2, i.m[0][1] * 2, i.b[1].y); }
"""


def test_interpolation_modes_of_matrices_and_arrays():
    """A noperspective matrix (every row), a perspective array, a noperspective array of vectors: each
    element interpolates by its declaration's mode (the perspective triangle above)."""
    px = R.draw(VS_MATRIX_ARRAY, PS_MATRIX_ARRAY, W, H)
    for y in range(H):
        for x in range(W):
            if x + y >= W - 1:
                continue
            e = _expected(x, y)
            want = (R.unorm8(e["noperspective"]), R.unorm8(e["smooth"]), R.unorm8(e["noperspective"]),
                    R.unorm8(e["noperspective"]))
            assert _close(R.pixel(px, W, x, y), want), (x, y, R.pixel(px, W, x, y), want)


# DXC's validator limits the semantic index of a system value in a DXIL signature (MetaSemanticIndexMax); its
# SPIR-V path has no such check (a Location / BuiltIn either way)
SV_INDEX_ERRORS = [
    ("float4 main(float4 p : SV_Position1) : SV_Target { return p; }", "ps_6_0",
     "1:20: SV_Position semantic index exceeds maximum (0)"),
    ("float4 main(uint v : SV_VertexID1) : SV_Position { return v; }", "vs_6_0",
     "1:18: SV_VertexID semantic index exceeds maximum (0)"),
    ("float4 main(bool f : SV_IsFrontFace1) : SV_Target { return f; }", "ps_6_0",
     "1:18: SV_IsFrontFace semantic index exceeds maximum (0)"),
    ("float4 main(out float d : SV_Depth1) : SV_Target { d = 0; return 1; }", "ps_6_0",
     "1:23: SV_Depth semantic index exceeds maximum (0)"),
    ("float4 main(float3 b : SV_Barycentrics2) : SV_Target { return b.xyzx; }", "ps_6_1",
     "1:20: SV_Barycentrics semantic index exceeds maximum (1)"),
]


# SV_Target's index is DXC's front-end check (SemaHLSL: eight render targets), so both targets refuse it
TARGET_INDEX_ERRORS = [
    ("float4 main() : SV_Target8 { return 1; }",
     "1:8: 'SV_Target8' is defined with semantic index 8, but only values 0 through 7 are supported"),
    ("void main(out float4 t[2] : SV_Target7) { t[0] = 1; t[1] = 2; }",
     "1:22: 'SV_Target7' is defined with semantic index 8, but only values 0 through 7 are supported"),
]


@pytest.mark.parametrize(("src", "want"), TARGET_INDEX_ERRORS, ids=["one", "array"])
def test_render_target_index_limit_on_both_targets(src, want):
    for target in ("dxil", "spirv"):
        assert R.errors(R.compile_hlsl(src, "main", "ps_6_0", target)) == [want], target


@pytest.mark.parametrize(("src", "profile", "want"), SV_INDEX_ERRORS, ids=[f"e{i}" for i in range(len(SV_INDEX_ERRORS))])
def test_system_value_semantic_index_limits_in_dxil(src, profile, want):
    res = R.compile_hlsl(src, "main", profile, "dxil")
    assert R.errors(res) == [want]
    spv = R.compile_hlsl(src, "main", profile, "spirv")
    assert spv.ok, R.diagnostics_text(spv)
    tools.spirv_val(spv.binary, "vulkan1.1")


def test_system_value_semantic_indices_dxil_allows():
    """SV_Target0..7 (an array reaching 7), SV_Barycentrics1, two clip-distance rows: accepted."""
    for src, profile in (("void main(out float4 t[2] : SV_Target6) { t[0] = 1; t[1] = 2; }", "ps_6_0"),
                         ("float4 main(float3 b : SV_Barycentrics1) : SV_Target { return b.xyzx; }", "ps_6_1"),
                         ("struct O { float4 p : SV_Position; float4 c : SV_ClipDistance0; float4 d : "
                          "SV_ClipDistance1; }; O main() { O o = (O)0; return o; }", "vs_6_0")):
        R.build_dxil(src, "main", profile)


VS_CLIP_PARTS = """
struct O { float4 pos : SV_Position; float2 c0 : SV_ClipDistance0; float c1 : SV_ClipDistance1; };
O main(uint id : SV_VertexID) {
    float2 uv = float2((id << 1) & 2, id & 2);
    O o;
    o.pos = float4(uv * 2.0 - 1.0, 0.0, 1.0);
    o.c0 = float2(1.0, o.pos.x + 0.5);      // clips x < -0.5
    o.c1 = o.pos.y + 0.5;                    // clips y < -0.5
    return o;
}
"""
GS_CLIP_REGROUP = """
struct I { float4 pos : SV_Position; float2 c0 : SV_ClipDistance0; float c1 : SV_ClipDistance1; };
struct O { float4 pos : SV_Position; float3 c : SV_ClipDistance0; float4 seen : SEEN; };
[maxvertexcount(3)]
void main(triangle I v[3], inout TriangleStream<O> s) {
    for (uint i = 0; i < 3; i++) {
        O o;
        o.pos = v[i].pos;
        o.c = float3(v[i].c0, v[i].c1);     // the two semantics regrouped as one float3
        o.seen = float4(v[i].c0.y, v[i].c1, 0, 1);
        s.Append(o);
    }
}
"""
# (the pixel shader declares the clip distances too: its signature's rows are the geometry shader's)
PS_SEEN = """
float4 main(float4 pos : SV_Position, float3 c : SV_ClipDistance0, float4 seen : SEEN) : SV_Target {
    return float4(seen.xy, c.z, seen.w) / 4;
}
"""


def test_clip_distances_regrouped_by_a_geometry_shader():
    """The vertex shader's SV_ClipDistance0 (float2) and SV_ClipDistance1 (float), read by a geometry shader
    that writes them as one float3 SV_ClipDistance0: both planes clip, the distances arrive intact."""
    px = R.draw(VS_CLIP_PARTS, PS_SEEN, W, H, gs_src=GS_CLIP_REGROUP)
    for y in range(H):
        for x in range(W):
            nx, ny = _ndc(x, W), _ndc(y, H)
            inside = nx > -0.5 and ny > -0.5
            want = (R.unorm8((nx + 0.5) / 4), R.unorm8((ny + 0.5) / 4), R.unorm8((ny + 0.5) / 4), R.unorm8(0.25)) \
                if inside else (0, 0, 0, 0)
            assert _close(R.pixel(px, W, x, y), want), (x, y, R.pixel(px, W, x, y), want)


VS_THREE = """
struct V { float4 pos : SV_Position; float a : A; float2 b : B; nointerpolation uint c : C; float4 d : D; };
V main(uint id : SV_VertexID) {
    float2 uv = float2((id << 1) & 2, id & 2);
    V o;
    o.pos = float4(uv * 2.0 - 1.0, 0.0, 1.0);
    o.a = 0.125; o.b = float2(0.25, 0.375); o.c = 77; o.d = float4(0.5, 0.625, 0.75, 0.875);
    return o;
}
"""
PS_ONE_READ = """
struct V { float4 pos : SV_Position; float a : A; float2 b : B; nointerpolation uint c : C; float4 d : D; };
float4 main(V v) : SV_Target { return float4(v.d.yw, v.c / 255.0, v.b.y); }   // a and pos never read
"""


def test_inputs_the_pixel_shader_does_not_read_keep_their_places():
    """The pixel shader declares the vertex shader's outputs but reads only some (a and SV_Position never, b and
    d in part): the unread ones keep their rows and Locations, so the read ones link to the right values."""
    px = R.draw(VS_THREE, PS_ONE_READ, W, H)
    want = (R.unorm8(0.625), R.unorm8(0.875), 77, R.unorm8(0.375))
    assert {R.pixel(px, W, x, y) for y in range(H) for x in range(W)} == {want}


VS_TWO_WINDINGS = """
float4 main(uint id : SV_VertexID) : SV_Position {
    const float2 v[6] = { float2(-1, -1), float2(0, -1), float2(-1, 1),     // left half
                          float2(0, -1), float2(0, 1), float2(1, -1) };     // right half, the other winding
    return float4(v[id], 0, 1);
}
"""
PS_FACE_TYPED = """
float4 main(float4 pos : SV_Position, TYPE f : SV_IsFrontFace) : SV_Target { return float4(f, 0.5, 0, 1); }
"""


@pytest.mark.parametrize("type_", ["uint", "int", "float", "bool"])
def test_is_front_face_converted_to_its_declared_type(type_):
    """SV_IsFrontFace declared uint / int / float / bool is 1 on the front-facing triangle, 0 on the other
    (the bool converted as HLSL converts a bool, on both windings)."""
    px = R.draw(VS_TWO_WINDINGS, PS_FACE_TYPED.replace("TYPE", type_), W, H, vertex_count=6)
    left = _front_facing(((-1, -1), (0, -1), (-1, 1)))
    right = _front_facing(((0, -1), (0, 1), (1, -1)))
    assert left != right
    for x, front in ((0, left), (6, right)):
        assert R.pixel(px, W, x, 1) == (255 if front else 0, 128, 0, 255), (x, R.pixel(px, W, x, 1))


MS_PRIMITIVE_MODE = """
struct V { float4 p : SV_Position; };
struct P { centroid float f : F; };
[outputtopology("triangle")]
[numthreads(1, 1, 1)]
void main(out vertices V v[3], out indices uint3 t[1], out primitives P pr[1]) {
    SetMeshOutputCounts(3, 1);
    v[0] = (V)0; v[1] = (V)0; v[2] = (V)0;
    t[0] = uint3(0, 1, 2);
    pr[0].f = 1;
}
"""


def test_interpolated_mesh_primitive_output_is_a_dxil_error():
    """DXC's HLSignatureLower refuses an interpolation mode on a mesh shader's primitive output (DXIL); the
    SPIR-V build takes it (a per-primitive value is flat whatever its decorations)."""
    res = R.compile_hlsl(MS_PRIMITIVE_MODE, "main", "ms_6_5", "dxil")
    assert R.errors(res) == ["3:27: mesh shader's primitive outputs' interpolation mode must be constant or "
                             "undefined: 'F' is centroid"]
    spv = R.compile_hlsl(MS_PRIMITIVE_MODE, "main", "ms_6_5", "spirv", env="vulkan1.2")
    assert spv.ok, R.diagnostics_text(spv)
    tools.spirv_val(spv.binary, "vulkan1.2")
