"""Seed 004 (SPIR-V input/output built-ins), executed: SV_* semantics -> BuiltIn, user semantics ->
Location, [[vk::ext_builtin_input(N)]] static const and [[vk::ext_builtin_output(N)]] static globals
read/written in compute, vertex and pixel shaders, with the attribute's placement rules diagnosed.
BuiltIn numbers below are the SPIR-V spec's (NumWorkgroups 24, GlobalInvocationId 28, ...).
"""

from __future__ import annotations

import re

import pytest
import res_util as R

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

# ---------------------------------------------------------------- the seed's vsmain example

SEED_VS = """
float4 vsmain(float4 Position : POSITION) : SV_POSITION
{
  return Position;
}
"""


def test_seed_vsmain_decorations():
    """POSITION: Input, Location 0; SV_POSITION: Output, BuiltIn Position."""
    res = R.build(SEED_VS, entry="vsmain", profile="vs_6_0")
    dis = R.spirv_dis(res)
    assert re.search(r"OpDecorate %\S+ Location 0", dis) and "BuiltIn Position" in dis, dis
    (inp,) = res.manifest["entry"]["inputs"]
    (out,) = res.manifest["entry"]["outputs"]
    assert (inp["semantic"], inp.get("location"), inp.get("builtin")) == ("POSITION", 0, None)
    assert (out["semantic"].upper(), out.get("builtin")) == ("SV_POSITION", "Position")


def test_seed_vsmain_draws():
    """The seed VS fed by a vertex buffer: the triangle lands where its POSITION says."""
    vk = R.vk_runner()
    tri = R.pack("f", [-1, -1, 0, 1, 0, -1, 0, 1, -1, 0, 0, 1])   # top-left quarter-ish triangle
    vb = vk.VertexBuffer(tri, 16, [(0, "float4", 0)])
    ps = "float4 main() : SV_Target { return float4(0, 1, 1, 1); }\n"
    px = R.draw(SEED_VS, ps, 8, 8, vertex_buffers=[vb], vs_entry="vsmain")
    assert R.pixel(px, 8, 0, 0) == (0, 255, 255, 255)
    assert R.pixel(px, 8, 7, 7) == (0, 0, 0, 0)


# ---------------------------------------------------------------- ext_builtin_input in compute

EXT_NUM_WORKGROUPS = """
[[vk::ext_builtin_input(/* NumWorkgroups */ 24)]]
static const uint3 myBuiltIn;
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(1, 1, 1)]
void main(uint3 g : SV_GroupID) {
  uint i = g.y * myBuiltIn.x + g.x;
  Out[i * 3 + 0] = myBuiltIn.x; Out[i * 3 + 1] = myBuiltIn.y; Out[i * 3 + 2] = myBuiltIn.z;
}
"""


def test_ext_builtin_input_num_workgroups():
    out = R.cs(EXT_NUM_WORKGROUPS, {"Out": R.storage(R.sentinel(18))}, groups=(3, 2, 1))
    assert R.unpack("I", out["Out"]) == [3, 2, 1] * 6


EXT_GLOBAL_ID = """
[[vk::ext_builtin_input(/* GlobalInvocationId */ 28)]]
static const uint3 myBuiltIn;
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(4, 1, 1)]
void main(uint3 thread_id_from_param : SV_DispatchThreadID) {
  Out[thread_id_from_param.x] = myBuiltIn.x * 100 + thread_id_from_param.x;
}
"""


def test_seed_ext_builtin_input_alongside_semantic_parameter():
    """The seed's GlobalInvocationId example: the global and the SV_DispatchThreadID parameter agree."""
    out = R.cs(EXT_GLOBAL_ID, {"Out": R.storage(R.sentinel(8))}, groups=(2, 1, 1))
    assert R.unpack("I", out["Out"]) == [i * 100 + i for i in range(8)]


def test_seed_ext_builtin_input_is_an_input_builtin():
    """Both routes read BuiltIn GlobalInvocationId through Input variables listed in OpEntryPoint."""
    dis = R.spirv_dis(R.build(EXT_GLOBAL_ID))
    assert dis.count("BuiltIn GlobalInvocationId") >= 1
    var = re.search(r"OpDecorate %(\w+) BuiltIn GlobalInvocationId", dis).group(1)
    assert re.search(rf"%{var} = OpVariable %_ptr_Input_v3uint Input", dis)
    assert re.search(rf"OpEntryPoint GLCompute %main \"main\".*%{var}\b", dis)


EXT_OUTPUT_SEED = """
[[vk::ext_builtin_input(/* GlobalInvocationId */ 28)]]
static const uint3 myBuiltIn;

[[vk::ext_builtin_output(/* SomeUnknownOutput */ 1234)]]
static uint3 myOutputBuiltIn;

RWStructuredBuffer<uint> Out : register(u0);
[numthreads(1, 1, 1)]
void main(uint3 thread_id_from_param : SV_DispatchThreadID) {
  Out[0] = myBuiltIn.x;
}
"""


def test_seed_unknown_output_builtin_is_diagnosed():
    """The seed's 1234 ("SomeUnknownOutput") names no SPIR-V BuiltIn, so no valid module exists: an error
    at the attribute argument (the rest of the seed example is executed above with real BuiltIns)."""
    assert R.errors(R.compile_hlsl(EXT_OUTPUT_SEED)) == ["5:50: unknown or unsupported SPIR-V BuiltIn 1234"]


def test_seed_output_builtin_example_with_a_real_builtin():
    """The seed's ctor/dtor example with a real compute-readable input and no unknown output: runs."""
    src = EXT_OUTPUT_SEED.replace("[[vk::ext_builtin_output(/* SomeUnknownOutput */ 1234)]]\nstatic uint3 myOutputBuiltIn;\n", "")
    out = R.cs(src, {"Out": R.storage(R.sentinel(1))}, groups=(1, 1, 1))
    assert R.unpack("I", out["Out"]) == [0]


# ---------------------------------------------------------------- compute SV_* semantics

CS_IDS = """
RWStructuredBuffer<uint4> Out : register(u0);
[numthreads(2, 2, 1)]
void main(uint3 dt : SV_DispatchThreadID, uint3 g : SV_GroupID, uint3 gt : SV_GroupThreadID, uint gi : SV_GroupIndex) {
  uint i = dt.y * 4 + dt.x;
  Out[i] = uint4(dt.x | (dt.y << 8), g.x | (g.y << 8), gt.x | (gt.y << 8), gi);
}
"""


def test_compute_sv_semantics():
    out = R.cs(CS_IDS, {"Out": R.storage(R.sentinel(64))}, groups=(2, 2, 1))
    got = R.unpack("I", out["Out"])
    want = []
    for y in range(4):
        for x in range(4):
            gx, gy, tx, ty = x // 2, y // 2, x % 2, y % 2
            want += [x | (y << 8), gx | (gy << 8), tx | (ty << 8), ty * 2 + tx]
    assert got == want


SEMANTIC_TABLE = [
    # (semantic, stage profile, shader, expected BuiltIn)  -- compiler_notes §1.7
    ("SV_DispatchThreadID", "cs_6_0", "RWStructuredBuffer<uint> O; [numthreads(1,1,1)] void main(uint3 v : {s}) {{ O[0] = v.x; }}", "GlobalInvocationId"),
    ("SV_GroupID", "cs_6_0", "RWStructuredBuffer<uint> O; [numthreads(1,1,1)] void main(uint3 v : {s}) {{ O[0] = v.x; }}", "WorkgroupId"),
    ("SV_GroupThreadID", "cs_6_0", "RWStructuredBuffer<uint> O; [numthreads(1,1,1)] void main(uint3 v : {s}) {{ O[0] = v.x; }}", "LocalInvocationId"),
    ("SV_GroupIndex", "cs_6_0", "RWStructuredBuffer<uint> O; [numthreads(1,1,1)] void main(uint v : {s}) {{ O[0] = v; }}", "LocalInvocationIndex"),
    ("SV_VertexID", "vs_6_0", "float4 main(uint v : {s}) : SV_Position {{ return v; }}", "VertexIndex"),
    ("SV_InstanceID", "vs_6_0", "float4 main(uint v : {s}) : SV_Position {{ return v; }}", "InstanceIndex"),
    ("SV_Position", "vs_6_0", "float4 main() : {s} {{ return 1; }}", "Position"),
    ("SV_Position", "ps_6_0", "float4 main(float4 v : {s}) : SV_Target {{ return v; }}", "FragCoord"),
    ("SV_IsFrontFace", "ps_6_0", "float4 main(bool v : {s}) : SV_Target {{ return v; }}", "FrontFacing"),
    ("SV_Depth", "ps_6_0", "float main() : {s} {{ return 0.5; }}", "FragDepth"),
    ("SV_Target", "ps_6_0", "float4 main() : {s} {{ return 1; }}", None),
    ("SV_Target3", "ps_6_0", "float4 main() : {s} {{ return 1; }}", None),
    ("TEXCOORD5", "ps_6_0", "float4 main(float4 v : {s}) : SV_Target {{ return v; }}", None),
]


@pytest.mark.parametrize("sem, profile, tmpl, builtin", SEMANTIC_TABLE,
                         ids=[f"{s}-{p[:2]}" for s, p, _t, _b in SEMANTIC_TABLE])
def test_semantic_mapping(sem, profile, tmpl, builtin):
    res = R.build(tmpl.format(s=sem), profile=profile)
    dis = R.spirv_dis(res)
    entries = res.manifest["entry"]["inputs"] + res.manifest["entry"]["outputs"]
    mine = [e for e in entries if e["semantic"].upper() == re.sub(r"\d+$", "", sem).upper()]
    assert len(mine) == 1, entries
    if builtin:
        assert mine[0].get("builtin") == builtin and f"BuiltIn {builtin}" in dis
    else:
        want_loc = int(re.search(r"(\d+)$", sem).group(1)) if sem.startswith("SV_Target") and sem[-1].isdigit() else 0
        assert mine[0].get("location") == want_loc and "builtin" not in mine[0]


# ---------------------------------------------------------------- ext built-ins in graphics

VS_EXT_VERTEX_INDEX = """
[[vk::ext_builtin_input(/* VertexIndex */ 42)]]
static const uint vid;
struct VOut { float4 pos : SV_Position; float2 uv : TEXCOORD0; };
VOut main() {
    VOut o;
    float2 uv = float2((vid << 1) & 2, vid & 2);
    o.uv = uv;
    o.pos = float4(uv * 2.0 - 1.0, 0.0, 1.0);
    return o;
}
"""

VS_EXT_POSITION_OUT = """
[[vk::ext_builtin_output(/* Position */ 0)]]
static float4 myPosition;
void main(uint id : SV_VertexID, out float2 uv : TEXCOORD0) {
    uv = float2((id << 1) & 2, id & 2);
    myPosition = float4(uv * 2.0 - 1.0, 0.0, 1.0);
}
"""

PS_EXT_FRAGCOORD = """
[[vk::ext_builtin_input(/* FragCoord */ 15)]]
static const float4 fc;
float4 main(float2 uv : TEXCOORD0) : SV_Target { return float4(fc.x / 8.0, fc.y / 8.0, uv.x, 1); }
"""

PS_UV = "float4 main(float2 uv : TEXCOORD0) : SV_Target { return float4(uv, 0, 1); }\n"


@pytest.mark.parametrize("vs, ps, fn", [
    pytest.param(VS_EXT_VERTEX_INDEX, PS_UV, lambda u, v: (u, v, 0.0), id="vs-input-VertexIndex"),
    pytest.param(VS_EXT_POSITION_OUT, PS_UV, lambda u, v: (u, v, 0.0), id="vs-output-Position"),
    pytest.param(R.FULLSCREEN_VS, PS_EXT_FRAGCOORD, lambda u, v: (u, v, u), id="ps-input-FragCoord"),
])
def test_ext_builtins_in_graphics(vs, ps, fn):
    px = R.draw(vs, ps, 8, 8)
    for x, y in [(0, 0), (5, 3), (7, 7)]:
        u, v = (x + 0.5) / 8, (y + 0.5) / 8
        want = tuple(R.unorm8(c) for c in fn(u, v)) + (255,)
        got = R.pixel(px, 8, x, y)
        assert all(abs(g - w) <= 1 for g, w in zip(got, want)), (x, y, got, want)


EXT_OUT_CONDITIONAL = """
[[vk::ext_builtin_output(/* FragDepth */ 22)]]
static float depth;
float4 main(float4 pos : SV_Position) : SV_Target {
    if (pos.x > 4) depth = 0.25;
    return 1;
}
"""


def test_conditionally_written_output_builtin_validates():
    """Seed: a conditionally stored output built-in keeps correct code (load initial value, store back)."""
    res = R.build(EXT_OUT_CONDITIONAL, profile="ps_6_0")
    assert "BuiltIn FragDepth" in R.spirv_dis(res)


# ---------------------------------------------------------------- rules (exact diagnostics)

DIAG = [
    ("input-not-const", "[[vk::ext_builtin_input(24)]] static uint3 nwg;\nRWStructuredBuffer<uint> Out : register(u0);\n"
     "[numthreads(1,1,1)] void main() { Out[0] = nwg.x; }\n", "cs_6_0", "spirv",
     ["1:44: a variable with 'vk::ext_builtin_input' must be 'static const'"]),
    ("input-not-static", "[[vk::ext_builtin_input(24)]] const uint3 nwg;\nRWStructuredBuffer<uint> Out : register(u0);\n"
     "[numthreads(1,1,1)] void main() { Out[0] = nwg.x; }\n", "cs_6_0", "spirv",
     ["1:43: a variable with 'vk::ext_builtin_input' must be 'static const'"]),
    ("output-const", "[[vk::ext_builtin_output(0)]] static const float4 p;\nfloat4 main() : SV_Position { return p; }\n",
     "vs_6_0", "spirv", ["1:51: a variable with 'vk::ext_builtin_output' must be 'static' and not 'const'"]),
    ("input-on-dxil", "[[vk::ext_builtin_input(24)]] static const uint3 nwg;\nRWStructuredBuffer<uint> Out : register(u0);\n"
     "[numthreads(1,1,1)] void main() { Out[0] = nwg.x; }\n", "cs_6_0", "dxil",
     ["1:3: 'vk::ext_builtin_input' is only supported when targeting SPIR-V"]),
    ("output-on-dxil", "[[vk::ext_builtin_output(0)]] static float4 p;\nfloat4 main() : SV_Position { p = 1; return p; }\n",
     "vs_6_0", "dxil", ["1:3: 'vk::ext_builtin_output' is only supported when targeting SPIR-V"]),
    # a type Vulkan does not give the built-in (exit 0 with output spirv-val refuses before: fuzz, swap_type)
    ("output-wrong-type", "[[vk::ext_builtin_output(0)]] static int p;\nfloat4 main() : SV_Position { p = 1; return p; }\n",
     "vs_6_0", "spirv", ["1:42: 'p' cannot be SPIR-V BuiltIn 0: Vulkan's Position is float4, not 'int'"]),
    ("input-wrong-width", "[[vk::ext_builtin_input(24)]] static const uint2 nwg;\n"
     "RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(1,1,1)] void main() { Out[0] = nwg.x; }\n", "cs_6_0",
     "spirv", ["1:50: 'nwg' cannot be SPIR-V BuiltIn 24: Vulkan's NumWorkgroups is a uint3 or int3, not 'uint2'"]),
    ("input-float-index", "[[vk::ext_builtin_input(42)]] static const float v;\nfloat4 main() : SV_Position { return v; }\n",
     "vs_6_0", "spirv", ["1:50: 'v' cannot be SPIR-V BuiltIn 42: Vulkan's VertexIndex is a 32-bit int or uint, not 'float'"]),
    # [[vk::builtin("PointSize")]] on an int field (fuzz, swap_type on a test_res_reflection seed: exit 0, spirv-val
    # VUID-PointSize-PointSize-04317)
    ("vk-builtin-wrong-type", 'struct VOut { float4 pos : SV_Position; [[vk::builtin("PointSize")]] int ps : PSIZE; };\n'
     "VOut main() { VOut o; o.pos = 0; o.ps = 1; return o; }\n", "vs_6_0", "spirv",
     ["1:74: 'out.PSIZE' cannot be SPIR-V BuiltIn 1: Vulkan's PointSize is float, not 'int'"]),
]


@pytest.mark.parametrize("cid, src, profile, target, want", DIAG, ids=[d[0] for d in DIAG])
def test_ext_builtin_diagnostics(cid, src, profile, target, want):
    assert R.errors(R.compile_hlsl(src, profile=profile, target=target)) == want


@pytest.mark.llvm
def test_compute_sv_semantics_dxil_execute():
    """The same CS through the DXIL interpreter (threadId/groupId/threadIdInGroup/flattenedThreadIdInGroup)."""
    from harness import dxil_exec
    res, _chk = R.build_dxil(CS_IDS)
    (got,) = dxil_exec.run_dxil_compute(res.binary, "main", [(0, 0, "u", R.sentinel(64))], groups=(2, 2, 1))
    want = R.cs(CS_IDS, {"Out": R.storage(R.sentinel(64))}, groups=(2, 2, 1))["Out"]
    assert got == want


