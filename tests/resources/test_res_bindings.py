"""Register -> Vulkan binding mapping (DXC SPIR-V.rst rules, compiler_notes §1.1): register(xN, spaceM) ->
set M binding N with the class letter ignored, -fvk-{b,t,s,u}-shift, [[vk::binding]] precedence,
next-free assignment, -fvk-bind-register, -fvk-bind-globals, -auto-binding-space,
-fvk-auto-shift-bindings.  Each shader is also executed with descriptors placed from the manifest,
so a binary whose decorations disagree with the manifest fails on data, not only on reflection.
"""

from __future__ import annotations

import pytest
import res_util as R

from shaderbuild.options import BindRegister

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

# One shader with one resource of each class; every case states where each must land.
FOUR = """
cbuffer CB {reg_b} {{ float k; }};
StructuredBuffer<float> In {reg_t};
SamplerState Smp {reg_s};
RWStructuredBuffer<float> Out {reg_u};
Texture2D<float4> Tex {reg_t2};
[numthreads(1,1,1)] void main() {{ Out[0] = In[0] * k + Tex.SampleLevel(Smp, float2(0.5, 0.5), 0).x; }}
"""


def four(reg_b="", reg_t="", reg_s="", reg_u="", reg_t2="", attrs=None) -> str:
    src = FOUR.format(reg_b=reg_b, reg_t=reg_t, reg_s=reg_s, reg_u=reg_u, reg_t2=reg_t2)
    for name, attr in (attrs or {}).items():
        src = src.replace(f"> {name} ", f"> {name} ").replace(f"\n{_decl_start(name)}", f"\n{attr} {_decl_start(name)}")
    return src


def _decl_start(name: str) -> str:
    return {"CB": "cbuffer CB", "In": "StructuredBuffer<float> In", "Smp": "SamplerState Smp",
            "Out": "RWStructuredBuffer<float> Out", "Tex": "Texture2D<float4> Tex"}[name]


def run_four(res) -> float:
    """Execute FOUR: Out[0] = In[0] * k + red(Tex at centre) with In[0] = 3, k = 2, Tex = 51/255 everywhere."""
    out = R.run_cs(res, {"CB": R.uniform(R.pack("f", [2.0, 0, 0, 0])), "In": R.storage(R.pack("f", [3.0])),
                         "Smp": R.sampler(), "Out": R.storage(R.sentinel(1)),
                         "Tex": R.image(bytes([51, 0, 0, 255]) * 4, 2, 2)})
    return R.unpack("f", out["Out"])[0]


WANT_VALUE = 3.0 * 2.0 + R.f32(51 / 255)


def bindings(res) -> dict[str, tuple[int, int]]:
    return {r["name"]: (r["vulkan"]["set"], r["vulkan"]["binding"]) for r in res.manifest["resources"]}


# (id, source, compile options, expected {name: (set, binding)}, bug)
CASES = [
    ("registers-distinct", four(": register(b0)", ": register(t1)", ": register(s2)", ": register(u3)",
                                ": register(t4)"), {},
     {"CB": (0, 0), "In": (0, 1), "Smp": (0, 2), "Out": (0, 3), "Tex": (0, 4)}, None),
    ("spaces", four(": register(b0, space1)", ": register(t0, space2)", ": register(s0, space3)",
                    ": register(u0)", ": register(t1, space2)"), {},
     {"CB": (1, 0), "In": (2, 0), "Smp": (3, 0), "Out": (0, 0), "Tex": (2, 1)}, None),
    ("next-free-declaration-order", four(), {},
     {"CB": (0, 0), "In": (0, 1), "Smp": (0, 2), "Out": (0, 3), "Tex": (0, 4)}, None),
    ("next-free-skips-explicit", four("", ": register(t0)", "", ": register(u2)", ""), {},
     {"CB": (0, 1), "In": (0, 0), "Smp": (0, 3), "Out": (0, 2), "Tex": (0, 4)}, None),
    ("shift-per-class", four(": register(b0)", ": register(t0)", ": register(s0)", ": register(u0)",
                             ": register(t1)"),
     {"shifts": [("b", 0, 0), ("t", 10, 0), ("s", 20, 0), ("u", 30, 0)]},
     {"CB": (0, 0), "In": (0, 10), "Smp": (0, 20), "Out": (0, 30), "Tex": (0, 11)}, None),
    ("shift-space-specific", four(": register(b0)", ": register(t0, space1)", ": register(s0, space1)",
                                  ": register(u0, space1)", ": register(t1)"),
     {"shifts": [("t", 5, 1), ("s", 7, 1), ("u", 9, 1)]},   # Tex is in space 0: not shifted
     {"CB": (0, 0), "In": (1, 5), "Smp": (1, 7), "Out": (1, 9), "Tex": (0, 1)}, None),
    ("shift-all-spaces", four(": register(b0)", ": register(t0, space1)", ": register(s0)",
                              ": register(u0, space2)", ": register(t1)"),
     {"shifts": [("t", 100, None), ("s", 50, None), ("u", 20, None)]},
     {"CB": (0, 0), "In": (1, 100), "Smp": (0, 50), "Out": (2, 20), "Tex": (0, 101)}, None),
    ("shift-repeated-last-wins", four(": register(b0)", ": register(t0)", ": register(s1)", ": register(u2)",
                                      ": register(t3)"),
     {"shifts": [("t", 10, 0), ("t", 20, 0)]},
     {"CB": (0, 0), "In": (0, 20), "Smp": (0, 1), "Out": (0, 2), "Tex": (0, 23)}, None),
    ("vk-binding-wins", four(": register(b0)", ": register(t1)", ": register(s2)", ": register(u3)",
                             ": register(t4)", attrs={"Out": "[[vk::binding(7, 2)]]", "In": "[[vk::binding(9)]]"}),
     {"shifts": [("u", 100, None)]},
     {"CB": (0, 0), "In": (0, 9), "Smp": (0, 2), "Out": (2, 7), "Tex": (0, 4)}, None),
    ("vk-binding-without-register", four(attrs={"Tex": "[[vk::binding(0, 1)]]", "CB": "[[vk::binding(3)]]"}), {},
     {"CB": (0, 3), "In": (0, 0), "Smp": (0, 1), "Out": (0, 2), "Tex": (1, 0)}, None),
    ("bind-register", four(": register(b0)", ": register(t0)", ": register(s0, space1)", ": register(u0)",
                           ": register(t1)"),
     {"vk_bind_registers": [BindRegister("b", 0, 0, 4, 0), BindRegister("t", 0, 0, 5, 1),
                            BindRegister("s", 0, 1, 6, 2), BindRegister("u", 0, 0, 7, 0),
                            BindRegister("t", 1, 0, 8, 0)]},
     {"CB": (0, 4), "In": (1, 5), "Smp": (2, 6), "Out": (0, 7), "Tex": (0, 8)}, None),
    ("auto-shift-bindings", four(), {"vk_auto_shift_bindings": True,
                                     "shifts": [("b", 0, 0), ("t", 10, 0), ("s", 20, 0), ("u", 30, 0)]},
     # without registers, each resource takes the next free register of its class, then the class shift
     {"CB": (0, 0), "In": (0, 10), "Smp": (0, 20), "Out": (0, 30), "Tex": (0, 11)}, None),
    ("auto-binding-space", four(), {"auto_binding_space": 3},
     {"CB": (3, 0), "In": (3, 1), "Smp": (3, 2), "Out": (3, 3), "Tex": (3, 4)}, None),
]


@pytest.mark.parametrize("cid, src, opts, want, bug", [R.param(*c, id=c[0], bug=c[4]) for c in CASES])
def test_binding_mapping(cid, src, opts, want, bug):
    opts = dict(opts)
    shifts = opts.pop("shifts", ())
    res = R.build(src, shifts=shifts, **opts)
    assert bindings(res) == want
    assert R.approx([run_four(res)], [WANT_VALUE])


@pytest.mark.parametrize("cid, src, opts, want, bug", [R.param(*c, id=c[0], bug=c[4]) for c in CASES])
def test_binding_hlsl_view_unchanged(cid, src, opts, want, bug):
    """Vulkan options never change the D3D view: class letters and registers stay as written/assigned."""
    opts = dict(opts)
    shifts = opts.pop("shifts", ())
    res = R.build(src, shifts=shifts, **opts)
    classes = {r["name"]: r["hlsl"]["class"] for r in res.manifest["resources"]}
    assert classes == {"CB": "b", "In": "t", "Smp": "s", "Out": "u", "Tex": "t"}


GLOBALS = """
float scale;
RWStructuredBuffer<float> Out : register(u0);
float4 bias;
[numthreads(1,1,1)] void main() { Out[0] = scale + bias.w; }
"""


@pytest.mark.parametrize("opts, want", [
    ({}, (0, 1)),                              # next free binding of set 0 after Out (u0 -> 0)
    ({"vk_bind_globals": (5, 2)}, (2, 5)),    # -fvk-bind-globals N M: binding N, set M
], ids=["default", "bind-globals"])
def test_globals_binding(opts, want):
    res = R.build(GLOBALS, **opts)
    g = R.resource(res.manifest, "$Globals")
    assert (g["vulkan"]["set"], g["vulkan"]["binding"]) == want
    out = R.run_cs(res, {"$Globals": R.uniform(R.pack("f", [1.5, 0, 0, 0, 0, 0, 0, 2.25])),
                         "Out": R.storage(R.sentinel(1))})
    assert R.unpack("f", out["Out"]) == [1.5 + 2.25]


def test_push_constant_takes_no_binding():
    src = """
struct P { uint a; float b; };
[[vk::push_constant]] P pc;
RWStructuredBuffer<float> Out;
[numthreads(1,1,1)] void main() { Out[0] = pc.a + pc.b; }
"""
    res = R.build(src)
    assert bindings(res) == {"Out": (0, 0)}
    out = R.run_cs(res, {"Out": R.storage(R.sentinel(1))}, push=R.pack("I", [7]) + R.pack("f", [0.5]))
    assert R.unpack("f", out["Out"]) == [7.5]


def test_dxil_keeps_d3d_registers_when_vulkan_bindings_collide():
    """t0 and u0 do not overlap in D3D: the DXIL build must succeed even though they share Vulkan binding 0."""
    src = four(": register(b0)", ": register(t0)", ": register(s0)", ": register(u0)", ": register(t1)")
    res = R.compile_hlsl(src, target="dxil")
    assert res.ok, R.diagnostics_text(res)




@pytest.mark.llvm
@pytest.mark.parametrize("cid, src, opts, want, bug", [R.param(*c, id=c[0], bug=c[4]) for c in CASES[:4]])
def test_binding_dxil_registers(cid, src, opts, want, bug):
    """The DXIL !dx.resources records carry the D3D registers of the manifest's hlsl view."""
    res, chk = R.build_dxil(src)
    from harness import dxil_exec
    recs = {(r.cls, r.space, r.lower) for r in dxil_exec.parse_resources(chk.ir)}
    cls = {"t": 0, "u": 1, "b": 2}
    for r in res.manifest["resources"]:
        h = r["hlsl"]
        if h["class"] in cls:
            assert (cls[h["class"]], h["space"], h["register"]) in recs, (r["name"], recs)


def test_static_resource_alias_is_not_a_new_resource():
    """`static RWStructuredBuffer<float> Alias = Out;` names Out again: no second binding (it was a fresh
    resource at u0 whose initializer was dropped, so the DXIL build wrote to an unbound u0)."""
    src = ("RWStructuredBuffer<float> Out : register(u9);\nstatic RWStructuredBuffer<float> Alias = Out;\n"
           "[numthreads(1,1,1)] void main() { Alias[0] = 3; }\n")
    for target in ("spirv", "dxil"):
        res = R.compile_hlsl(src, target=target)
        assert [(r["name"], r["hlsl"]["register"]) for r in res.manifest["resources"]] == [("Out", 9)]
    bad = src.replace("= Out;", "= 3;")
    assert R.errors(R.compile_hlsl(bad)) == [
        "2:42: static resource 'Alias' must be initialized with a global resource of type 'RWStructuredBuffer<float>'"]
