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
    ("float4 main(linear int c : C) : SV_Target { return c; }", "ps_6_0",
     "1:24: signature element 'C' specifies invalid interpolation mode 'linear' for integer component type: "
     "an integer or bool pixel input must be nointerpolation"),
    ("struct I { centroid uint2 c : C; };\nfloat4 main(I i) : SV_Target { return i.c.xyxy; }", "ps_6_0",
     "2:15: signature element 'C' specifies invalid interpolation mode 'centroid' for integer component type: "
     "an integer or bool pixel input must be nointerpolation"),
    ("float4 main(sample bool c : C) : SV_Target { return c; }", "ps_6_0",
     "1:25: signature element 'C' specifies invalid interpolation mode 'sample' for integer component type: "
     "an integer or bool pixel input must be nointerpolation"),
    ("float4 main(nointerpolation float4 p : SV_Position) : SV_Target { return p; }", "ps_6_0",
     "1:36: invalid interpolation mode for SV_Position: it cannot be nointerpolation"),
]


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize(("src", "profile", "want"), ERRORS, ids=[f"e{i}" for i in range(len(ERRORS))])
def test_interpolation_errors_are_located(src, profile, want, target):
    res = R.compile_hlsl(src, "main", profile, target)
    assert not res.ok
    assert R.errors(res) == [want], R.errors(res)


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


@pytest.mark.parametrize(("select", "key"), [("i.npc", "noperspective"), ("i.cs", "smooth")])
def test_interpolation_modes_give_their_values(select, key):
    """Perspective-correct (no modifier), noperspective (a nested struct's member), nointerpolation (the
    provoking vertex, the first) and, single-sampled, `noperspective centroid` and `centroid sample` as their
    centre-sampled modes, on a triangle whose vertices have w = 1, 2, 4."""
    px = R.draw(VS_PERSPECTIVE, PS_PERSPECTIVE.replace("SELECT", select), W, H)
    for y in range(H):
        for x in range(W):
            if x + y >= W - 1:      # on the diagonal edge (the fill rule decides) or outside
                assert x + y == W - 1 or R.pixel(px, W, x, y) == (0, 0, 0, 0), (x, y)
                continue
            e = _expected(x, y)
            want = (R.unorm8(e["smooth"]), R.unorm8(e["noperspective"]), R.unorm8(e["flat"]), R.unorm8(e[key]))
            assert _close(R.pixel(px, W, x, y), want), (x, y, R.pixel(px, W, x, y), want)
