"""Attributes and qualifiers that change how a shader runs (front/attributes.py ENTRY_MODES and REFUSED, the
entry's `modes` / `wave_size`, the resource binding's `globally_coherent`): each is carried into both targets'
binaries or refused where written, never accepted and dropped.

Every check reads the binary through an independent tool: spirv-dis / spirv-val for SPIR-V; llvm-dis-19 /
obj2yaml-19 (harness.dxil_tools.check_dxil) for DXIL, whose container also goes through dxil-spirv, whose
SPIR-V must show the same effect.  [earlydepthstencil] is executed: two full-screen triangles, the nearer
drawn first, a pixel shader counting its invocations in a UAV; with the attribute the occluded triangle's
fragments never run the shader, without it they do (a UAV write makes the depth test late).
"""

from __future__ import annotations

import re

import pytest
import res_util as R
from harness import dxil_tools, tools

pytestmark = [pytest.mark.spirv_tools]

PS = "float4 main(float4 p : SV_Position) : SV_Target {{ return p; }}\n"


def _spirv(src: str, profile: str, env: str = "vulkan1.1", opt_level: int = 3) -> str:
    res = R.compile_hlsl(src, "main", profile, "spirv", env=env, opt_level=opt_level)
    assert res.ok, R.diagnostics_text(res)
    tools.spirv_val(res.binary, env)
    return tools.spirv_dis(res.binary)


def _dxil(src: str, profile: str) -> dxil_tools.DxilCheck:
    res = R.compile_hlsl(src, "main", profile, "dxil")
    assert res.ok, R.diagnostics_text(res)
    checked = dxil_tools.check_dxil(res.binary)
    assert checked.spirv is not None
    return checked


def _shader_flags(ir: str) -> int:
    """The kDxilShaderFlagsTag (0) entry property's i64, 0 when the entry has none."""
    props = _entry_properties(ir)
    m = re.match(r"i32 0, i64 (\d+)", props)
    return int(m.group(1)) if m else 0


def _entry_properties(ir: str) -> str:
    """The text of the entry's property list (the fifth operand of its dx.entryPoints node)."""
    node = re.search(r"!dx\.entryPoints = !\{!(\d+)\}", ir)
    assert node, ir
    entry = re.search(rf"^!{node.group(1)} = !\{{(.*)\}}$", ir, re.M)
    assert entry, ir
    last = entry.group(1).rsplit(", ", 1)[-1]
    if last == "null":
        return ""
    props = re.search(rf"^{re.escape(last)} = !\{{(.*)\}}$", ir, re.M)
    assert props, ir
    return props.group(1)


def _node(ir: str, ref: str) -> str:
    m = re.search(rf"^{re.escape(ref)} = !\{{(.*)\}}$", ir, re.M)
    assert m, (ref, ir)
    return m.group(1)


# ------------------------------------------------------------------ [earlydepthstencil]

EARLY_PS = "RWByteAddressBuffer c : register(u1);\n{attr}" \
           "float4 main(float4 p : SV_Position) : SV_Target {{\n    uint o;\n    c.InterlockedAdd(0, 1, o);\n" \
           "    return float4(p.z, 0, 0, 1);\n}}\n"


@pytest.mark.parametrize("spelling", ["[earlydepthstencil]\n", "[EarlyDepthStencil]\n"])
def test_early_depth_stencil_spirv(spelling):
    for env in ("vulkan1.1", "vulkan1.3"):
        dis = _spirv(EARLY_PS.format(attr=spelling), "ps_6_0", env)
        assert "OpExecutionMode %main EarlyFragmentTests" in dis
    assert "EarlyFragmentTests" not in _spirv(EARLY_PS.format(attr=""), "ps_6_0")


@pytest.mark.llvm
def test_early_depth_stencil_dxil_flag():
    """Shader flag bit 3 (DxilShaderFlags' ForceEarlyDepthStencil) with the attribute, not without; dxil-spirv
    reads it back as EarlyFragmentTests."""
    with_attr = _dxil(EARLY_PS.format(attr="[earlydepthstencil]\n"), "ps_6_0")
    without = _dxil(EARLY_PS.format(attr=""), "ps_6_0")
    assert _shader_flags(with_attr.ir) >> 3 & 1
    assert not _shader_flags(without.ir) >> 3 & 1
    assert _shader_flags(with_attr.ir) == _shader_flags(without.ir) | 8
    assert "OpExecutionMode %main EarlyFragmentTests" in tools.spirv_dis(with_attr.spirv)
    assert "EarlyFragmentTests" not in tools.spirv_dis(without.spirv)


DEPTH_VS = """
float4 main(uint v : SV_VertexID) : SV_Position {
    uint k = v % 3;
    return float4(k == 1 ? 3.0 : -1.0, k == 2 ? 3.0 : -1.0, v < 3 ? 0.25 : 0.75, 1.0);
}
"""


@pytest.mark.vulkan
@pytest.mark.parametrize(("attr", "runs"), [("[earlydepthstencil]\n", 1), ("", 2)])
def test_early_depth_stencil_executed(attr, runs):
    """Vertices 0-2 cover the target at depth 0.25, then 3-5 at 0.75 (depth test LESS): the far triangle is
    hidden.  Its fragments run the shader only without [earlydepthstencil]; the colour is the near one's
    either way.  R.draw runs the DXIL twin through dxil-spirv too and requires the same results."""
    w, h = 8, 4
    pixels, bufs = R.draw(DEPTH_VS, EARLY_PS.format(attr=attr), w, h, {"c": R.storage(bytes(4))}, vertex_count=6,
                          full=True, depth=1.0)
    assert R.unpack("I", bufs["c"][:4]) == [runs * w * h]
    assert {R.pixel(pixels[0], w, x, y) for x in range(w) for y in range(h)} == {(R.unorm8(0.25), 0, 0, 255)}


# ------------------------------------------------------------------ [[vk::...]] pixel modes

VK_MODES = {
    "vk::post_depth_coverage": ("PostDepthCoverage", "SampleMaskPostDepthCoverage", "SPV_KHR_post_depth_coverage"),
    "vk::early_and_late_tests": ("EarlyAndLateFragmentTestsAMD", None,
                                 "SPV_AMD_shader_early_and_late_fragment_tests"),
    "vk::depth_unchanged": ("DepthUnchanged", None, None),
    "vk::stencil_ref_unchanged_front": ("StencilRefUnchangedFrontAMD", "StencilExportEXT",
                                        "SPV_AMD_shader_early_and_late_fragment_tests"),
    "vk::stencil_ref_greater_equal_front": ("StencilRefGreaterFrontAMD", "StencilExportEXT",
                                            "SPV_AMD_shader_early_and_late_fragment_tests"),
    "vk::stencil_ref_less_equal_front": ("StencilRefLessFrontAMD", "StencilExportEXT",
                                         "SPV_AMD_shader_early_and_late_fragment_tests"),
    "vk::stencil_ref_unchanged_back": ("StencilRefUnchangedBackAMD", "StencilExportEXT",
                                       "SPV_AMD_shader_early_and_late_fragment_tests"),
    "vk::stencil_ref_greater_equal_back": ("StencilRefGreaterBackAMD", "StencilExportEXT",
                                           "SPV_AMD_shader_early_and_late_fragment_tests"),
    "vk::stencil_ref_less_equal_back": ("StencilRefLessBackAMD", "StencilExportEXT",
                                        "SPV_AMD_shader_early_and_late_fragment_tests"),
}


@pytest.mark.parametrize("name", list(VK_MODES))
def test_vk_pixel_modes_spirv(name):
    mode, cap, ext = VK_MODES[name]
    for env in ("vulkan1.1", "vulkan1.3"):
        dis = _spirv(f"[[{name}]]\n" + PS.format(), "ps_6_0", env)
        assert f"OpExecutionMode %main {mode}\n" in dis + "\n"
        if cap is not None:
            assert f"OpCapability {cap}\n" in dis
        if ext is not None:
            assert f'OpExtension "{ext}"' in dis


@pytest.mark.llvm
@pytest.mark.parametrize("name", ["vk::post_depth_coverage", "vk::early_and_late_tests", "vk::depth_unchanged",
                                  "vk::stencil_ref_less_equal_back"])
def test_vk_pixel_modes_leave_dxil_unchanged(name):
    """Vulkan's alone: the DXIL container is the one compiled without the attribute (DXC's DXIL ignores them)."""
    with_attr = R.compile_hlsl(f"[[{name}]]\n" + PS.format(), "main", "ps_6_0", "dxil")
    without = R.compile_hlsl(PS.format(), "main", "ps_6_0", "dxil")
    assert with_attr.ok and without.ok
    assert with_attr.binary == without.binary
    dxil_tools.check_dxil(with_attr.binary)


def test_two_stencil_front_modes_refused():
    src = "[[vk::stencil_ref_unchanged_front]]\n[[vk::stencil_ref_less_equal_front]]\n" + PS.format()
    for target in ("spirv", "dxil"):
        errs = R.errors(R.compile_hlsl(src, "main", "ps_6_0", target))
        assert errs and errs[0].startswith("2:3: ") and "cannot both be given" in errs[0], errs


@pytest.mark.parametrize(("attr", "profile", "body"), [
    ("[earlydepthstencil]", "cs_6_0", "[numthreads(1, 1, 1)] void main() {}\n"),
    ("[[vk::depth_unchanged]]", "vs_6_0", "float4 main() : SV_Position { return 0; }\n"),
])
def test_pixel_modes_warned_and_without_effect_on_other_stages(attr, profile, body):
    """DXC accepts them on any stage; they describe the pixel stage's tests, so elsewhere the binary is the one
    compiled without them, and a warning says so."""
    for target in ("spirv", "dxil"):
        res = R.compile_hlsl(attr + "\n" + body, "main", profile, target)
        plain = R.compile_hlsl("\n" + body, "main", profile, target)
        assert res.ok and plain.ok and res.binary == plain.binary
        warnings = [d for d in res.diagnostics if d.severity == "warning"]
        assert len(warnings) == 1 and "has no effect on a" in warnings[0].message, warnings
        assert warnings[0].loc.line == 1


# ------------------------------------------------------------------ globallycoherent

COHERENT_CS = """{q}RWStructuredBuffer<uint> b : register(u0);
{q}RWTexture2D<float4> t : register(u1);
RWBuffer<uint> plain : register(u2);
[numthreads(4, 1, 1)]
void main(uint i : SV_DispatchThreadID) {{
    b[i] = i;
    t[uint2(i, 0)] = 1;
    plain[i] = i;
}}
"""


def _decorations(dis: str, name: str) -> set[str]:
    ids = re.findall(rf'OpName (%\S+) "{name}"', dis)
    assert len(ids) == 1, dis
    return set(re.findall(rf"OpDecorate {re.escape(ids[0])} (\w+)", dis))


@pytest.mark.parametrize("opt_level", [0, 3])
@pytest.mark.parametrize("profile", ["cs_6_0", "cs_6_6"])
def test_globally_coherent_spirv(profile, opt_level):
    """DXC's choice (DeclResultIdMapper::decorateResourceCoherent): Coherent on the resource variable (the
    optimiser keeps it)."""
    dis = _spirv(COHERENT_CS.format(q="globallycoherent "), profile, opt_level=opt_level)
    assert "Coherent" in _decorations(dis, "b") and "Coherent" in _decorations(dis, "t")
    assert "Coherent" not in _decorations(dis, "plain")
    assert "Coherent" not in _spirv(COHERENT_CS.format(q=""), profile, opt_level=opt_level)


def _uav_records(ir: str) -> dict[str, list[str]]:
    """name -> the UAV record's fields (DXIL.rst: id, symbol, name, space, lower bound, range, shape, globally
    coherent, counter, ROV, extra)."""
    out = {}
    for m in re.finditer(r'^!\d+ = !\{(i32 \d+, [^,]+, !"(\w+)", .*)\}$', ir, re.M):
        out[m.group(2)] = [f.strip() for f in m.group(1).split(",")]
    return out


@pytest.mark.llvm
@pytest.mark.parametrize("profile", ["cs_6_0", "cs_6_6"])
def test_globally_coherent_dxil(profile):
    """The UAV record's globally-coherent field (index 7); at SM 6.6 also ResourceProperties bit 14 of
    annotateHandle; dxil-spirv's SPIR-V decorates the two resources Coherent."""
    checked = _dxil(COHERENT_CS.format(q="globallycoherent "), profile)
    recs = _uav_records(checked.ir)
    assert recs["b"][7] == recs["t"][7] == "i1 true" and recs["plain"][7] == "i1 false", recs
    plain = _uav_records(_dxil(COHERENT_CS.format(q=""), profile).ir)
    assert all(r[7] == "i1 false" for r in plain.values())
    if profile == "cs_6_6":
        props = [int(d0) for d0 in re.findall(r"%dx\.types\.ResourceProperties \{ i32 (\d+), i32 \d+ \}", checked.ir)]
        assert len(props) == 3 and sorted(d0 >> 14 & 1 for d0 in props) == [0, 1, 1], props
    dis = tools.spirv_dis(checked.spirv)
    assert len(re.findall(r"OpDecorate %\S+ Coherent", dis)) == 2, dis


def test_globally_coherent_on_a_read_only_resource_refused():
    src = "globallycoherent StructuredBuffer<uint> s : register(t0);\nRWBuffer<uint> o : register(u0);\n" \
          "[numthreads(1, 1, 1)] void main() { o[0] = s[0]; }\n"
    for target in ("spirv", "dxil"):
        errs = R.errors(R.compile_hlsl(src, "main", "cs_6_0", target))
        assert errs and errs[0].startswith("1:") and "'globallycoherent' can only be applied to UAV" in errs[0], errs


HEAP_CS = """[numthreads(4, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
    globallycoherent RWStructuredBuffer<uint> b = ResourceDescriptorHeap[0];
    RWStructuredBuffer<uint> c = ResourceDescriptorHeap[1];
    b[i] = 10 + i;
    c[i] = 20 + i;
}
"""


def _heap_views(dis: str) -> dict[int, set[str]]:
    """heap index a view is indexed with -> that view variable's decorations."""
    consts = dict(re.findall(r"(%\S+) = OpConstant %uint (\d+)", dis))
    out = {}
    for var, idx in re.findall(r"= OpAccessChain %\S+ (%ResourceDescriptorHeap\S*) (%\S+)", dis):
        out[int(consts[idx])] = set(re.findall(rf"OpDecorate {re.escape(var)} (\w+(?: \d+)?)", dis))
    return out


@pytest.mark.parametrize("opt_level", [0, 3])
def test_globally_coherent_heap_view_spirv(opt_level):
    """SM 6.6: a globallycoherent local taken from the heap reads a view of its own decorated Coherent (DXC's
    heap variable per attributed type), at the heap's one binding; the plain view stays undecorated."""
    views = _heap_views(_spirv(HEAP_CS, "cs_6_6", opt_level=opt_level))
    assert views == {0: {"Coherent", "DescriptorSet 0", "Binding 0"}, 1: {"DescriptorSet 0", "Binding 0"}}, views
    manifest = R.compile_hlsl(HEAP_CS, "main", "cs_6_6", "spirv", opt_level=opt_level).manifest
    [heap] = manifest["descriptor_heaps"]
    assert [t["kind"] for t in heap["types"]] == ["RWStructuredBuffer<uint>"], heap     # one type, listed once


@pytest.mark.vulkan
def test_globally_coherent_heap_view_executed():
    """Both views reach the heap's descriptors: the writes through the coherent one land in element 0."""
    res = R.compile_hlsl(HEAP_CS, "main", "cs_6_6", "spirv", env="vulkan1.2")
    assert res.ok, R.diagnostics_text(res)
    vk = R.vk_runner()
    got = vk.run_compute(res.binary, "main", [vk.Buf(0, 0, R.sentinel(4), "storage", index=k) for k in range(2)])
    assert R.unpack("I", got[0]) == [10, 11, 12, 13] and R.unpack("I", got[1]) == [20, 21, 22, 23]


@pytest.mark.llvm
def test_globally_coherent_heap_view_dxil():
    """DXIL: the handle of heap element 0 is annotated with ResourceProperties bit 14 (globally coherent), the
    other's not; heap views have no UAV record.  dxil-spirv converts the container (check_dxil)."""
    checked = _dxil(HEAP_CS, "cs_6_6")
    heap_handles = re.findall(r"call %dx\.types\.Handle @dx\.op\.createHandleFromHeap\(i32 218, i32 (\d+),", checked.ir)
    props = [int(d0) for d0 in re.findall(r"%dx\.types\.ResourceProperties \{ i32 (\d+), i32 \d+ \}", checked.ir)]
    assert sorted(heap_handles) == ["0", "1"] and len(props) == 2, checked.ir
    annotated = re.findall(r"@dx\.op\.createHandleFromHeap\(i32 218, i32 (\d+), [^\n]*\n(?:[^\n]*\n)*?[^\n]*"
                           r"@dx\.op\.annotateHandle\([^\n]*ResourceProperties \{ i32 (\d+),", checked.ir)
    assert {int(i): int(d0) >> 14 & 1 for i, d0 in annotated} == {0: 1, 1: 0}, annotated
    assert props[0] ^ props[1] == 1 << 14, props        # the same view otherwise


@pytest.mark.parametrize(("src", "expected"), [
    ("reordercoherent RWBuffer<uint> b : register(u0);\n[numthreads(1, 1, 1)] void main() { b[0] = 1; }\n",
     "1:32: reordercoherent requires SM 6.9 or later"),
    ("RWBuffer<uint> g : register(u0);\nvoid f(reordercoherent RWBuffer<uint> p) { p[0] = 1; }\n"
     "[numthreads(1, 1, 1)] void main() { f(g); }\n", "2:39: reordercoherent requires SM 6.9 or later"),
    ("RWBuffer<uint> g : register(u0);\n[numthreads(1, 1, 1)] void main() {\n"
     "    reordercoherent RWBuffer<uint> l = g;\n    l[0] = 1;\n}\n", "3:36: reordercoherent requires SM 6.9 or later"),
    ("reordercoherent Buffer<uint> s : register(t0);\nRWBuffer<uint> o : register(u0);\n"
     "[numthreads(1, 1, 1)] void main() { o[0] = s[0]; }\n", "1:30: 'reordercoherent' can only be applied to UAV objects"),
])
def test_reordercoherent_is_refused_where_written(src, expected):
    """DXC accepts `reordercoherent` from SM 6.9 only (its validator's Instr.ReorderCoherentRequiresSM69, in its
    words); this compiler's profiles end at SM 6.8, so it is refused at the declaration, never dropped; on a
    non-UAV it is Sema's type error first.  A variable may still be named `reordercoherent`."""
    for target in ("spirv", "dxil"):
        errs = R.errors(R.compile_hlsl(src, "main", "cs_6_6", target))
        assert errs == [expected], errs
    named = "RWBuffer<uint> o : register(u0);\n[numthreads(1, 1, 1)] void main() { uint reordercoherent = 3; " \
            "o[0] = reordercoherent; }\n"
    assert R.compile_hlsl(named, "main", "cs_6_0", "spirv").ok


# ------------------------------------------------------------------ [WaveSize]

@pytest.mark.llvm
@pytest.mark.parametrize(("attr", "profile", "tag", "values"), [
    ("[WaveSize(32)]", "cs_6_6", 11, [32]),
    ("[WaveSize(64)]", "cs_6_7", 11, [64]),
    ("[WaveSize(32)]", "cs_6_8", 23, [32, 0, 0]),
    ("[WaveSize(16, 64)]", "cs_6_8", 23, [16, 64, 0]),
    ("[WaveSize(16, 64, 32)]", "cs_6_8", 23, [16, 64, 32]),
])
def test_wave_size_dxil(attr, profile, tag, values):
    """kDxilWaveSizeTag {size} before SM 6.8, kDxilRangedWaveSizeTag {min, max, preferred} from it, with DxilWaveSize::
    Translate's zeros for a maximum (or preferred size) equal to the minimum."""
    checked = _dxil(attr + "\n[numthreads(64, 1, 1)] void main() {}\n", profile)
    props = [p.strip() for p in _entry_properties(checked.ir).split(",")]
    i = props.index(f"i32 {tag}")
    assert [int(v.split()[1]) for v in _node(checked.ir, props[i + 1]).split(",")] == values
    assert "i32 11" not in props[:i] + props[i + 2:] and "i32 23" not in props[:i] + props[i + 2:]


def test_wave_size_spirv_warns():
    """DXC's SPIR-V emitter: a warning, no execution mode (SubgroupSize is the Kernel model's)."""
    src = "RWBuffer<uint> o : register(u0);\n[WaveSize(32)]\n[numthreads(32, 1, 1)] void main(uint i : SV_GroupIndex) " \
          "{ o[i] = WaveGetLaneCount(); }\n"
    res = R.compile_hlsl(src, "main", "cs_6_6", "spirv")
    assert res.ok, R.diagnostics_text(res)
    tools.spirv_val(res.binary)
    warnings = [d for d in res.diagnostics if d.severity == "warning"]
    assert any("Wave size is not supported by Vulkan SPIR-V" in d.message for d in warnings), warnings
    modes = re.findall(r"OpExecutionMode %main (\w+)", tools.spirv_dis(res.binary))
    assert modes == ["LocalSize"], modes


# ------------------------------------------------------------------ refused

@pytest.mark.parametrize(("src", "profile", "where", "message"), [
    ("[WaveOpsIncludeHelperLanes]\n" + PS.format(), "ps_6_7", "1:2", "[WaveOpsIncludeHelperLanes] is not supported"),
    ("cbuffer C { float4 plane; };\n[clipplanes(plane)]\nfloat4 main(float4 p : POSITION) : SV_Position "
     "{ return p; }\n", "vs_6_0", "2:2", "[clipplanes] is not supported"),
    ("[NodeLaunch(\"broadcasting\")]\n[numthreads(1, 1, 1)] void main() {}\n", "cs_6_6", "1:2",
     "[nodelaunch] is not supported: work-graph node shaders"),
    ("[GroupSharedLimit(1024)]\n[numthreads(1, 1, 1)] void main() {}\n", "cs_6_6", "1:2",
     "[GroupSharedLimit] is not supported"),
])
def test_refused_attributes(src, profile, where, message):
    for target in ("spirv", "dxil"):
        errs = R.errors(R.compile_hlsl(src, "main", profile, target))
        assert errs and errs[0].startswith(where + ": ") and message in errs[0], errs


@pytest.mark.parametrize("attr", ["[noinline]", "[[maybe_unused]]", "[[nodiscard]]"])
def test_hints_without_effect_are_accepted(attr):
    """They change nothing a shader computes (inlining is invisible in HLSL; the others only silence warnings):
    both binaries equal the ones compiled without the attribute."""
    body = "RWBuffer<uint> o : register(u0);\n{a} uint f(uint x) {{ return x * 3; }}\n" \
           "[numthreads(1, 1, 1)] void main() {{ o[0] = f(5); }}\n"
    for target in ("spirv", "dxil"):
        res = R.compile_hlsl(body.format(a=attr), "main", "cs_6_0", target)
        plain = R.compile_hlsl(body.format(a=""), "main", "cs_6_0", target)
        assert res.ok and plain.ok and res.binary == plain.binary, R.diagnostics_text(res)


HS = """struct CP { float4 p : POSITION; };
struct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; };
PC constants(InputPatch<CP, 3> ip) { PC o; o.e[0] = 4; o.e[1] = 4; o.e[2] = 4; o.i = 4; return o; }
[domain("tri")] [partitioning("integer")] [outputtopology("triangle_cw")] [outputcontrolpoints(3)]
[patchconstantfunc("constants")] ATTR
CP main(InputPatch<CP, 3> ip, uint i : SV_OutputControlPointID) { return ip[i]; }
"""


@pytest.mark.llvm
@pytest.mark.parametrize(("attr", "value"), [("[maxtessfactor(12.0)]", 12.0), ("", 64.0)])
def test_max_tess_factor(attr, value):
    """DXIL: the HS state's last field (64 when not given, as DXC).  SPIR-V has no such execution mode and DXC's
    SPIR-V emits none: the value is the shader's promise about its own factors, so the module is unchanged."""
    checked = _dxil(HS.replace("ATTR", attr), "hs_6_0")
    props = [p.strip() for p in _entry_properties(checked.ir).split(",")]
    hs = _node(checked.ir, props[props.index("i32 3") + 1])
    assert float(hs.rsplit(", ", 1)[1].split()[1]) == value, hs
    with_attr = R.compile_hlsl(HS.replace("ATTR", attr), "main", "hs_6_0", "spirv")
    plain = R.compile_hlsl(HS.replace("ATTR", ""), "main", "hs_6_0", "spirv")
    assert with_attr.ok and with_attr.binary == plain.binary
    tools.spirv_val(with_attr.binary)


# ------------------------------------------------------------------ libraries

def _rdat_resource_flags(blob: bytes) -> dict[int, int]:
    """RDAT (DXC's RDAT_LibraryTypes.inl): a header {version, part count, offsets}, each part {type, size, data};
    the resource table (type 3) is {count, stride} then records {class, kind, id, space, lower, upper, name,
    flags}: lower bound -> flags."""
    import struct

    data = dxil_tools.container_parts(blob)["RDAT"]
    _version, count = struct.unpack_from("<II", data, 0)
    for off in struct.unpack_from(f"<{count}I", data, 8):
        kind, _size = struct.unpack_from("<II", data, off)
        if kind == 3:
            n, stride = struct.unpack_from("<II", data, off + 8)
            recs = [struct.unpack_from("<8I", data, off + 16 + i * stride) for i in range(n)]
            return {r[4]: r[7] for r in recs}
    raise AssertionError("no RDAT resource table")


@pytest.mark.llvm
def test_globally_coherent_in_a_library():
    """lib_6_6: the UAV record's field and the RDAT resource flag UAVGloballyCoherent (1 << 0)."""
    src = ("globallycoherent RWBuffer<uint> g : register(u0);\nRWBuffer<uint> h : register(u1);\n"
           "[shader(\"raygeneration\")] void rg() { g[DispatchRaysIndex().x] = 1; h[0] = 2; }\n")
    res = R.compile_hlsl(src, "", "lib_6_6", "dxil")
    assert res.ok, R.diagnostics_text(res)
    checked, _ = dxil_tools.check_dxil_library(res.binary, ["rg"])
    recs = _uav_records(checked.ir)
    assert recs["g"][7] == "i1 true" and recs["h"][7] == "i1 false", recs
    flags = _rdat_resource_flags(res.binary)
    assert flags[0] & 1 and not flags[1] & 1, flags


# ------------------------------------------------------------------ [[vk::...]] this compiler does not implement

VK_CASES = {
    "vk::index": ("struct PSOut {{ [[vk::location(0), {a}]] float4 a : SV_Target0; }};\n"
                  "PSOut main(float4 p : SV_Position) {{ PSOut o; o.a = p; return o; }}\n", "vk::index(1)", "ps_6_0"),
    "vk::shader_record_ext": ("struct R {{ float4 c; }};\n[[{a}]] ConstantBuffer<R> rec;\nRWBuffer<float> o : register(u0);\n"
                              "[numthreads(1, 1, 1)] void main() {{ o[0] = rec.c.x; }}\n", "vk::shader_record_ext",
                              "cs_6_0"),
    "vk::combinedImageSampler": ("[[{a}]] Texture2D t : register(t0);\n[[{a}]] SamplerState s : register(s0);\n"
                                 "float4 main(float2 uv : TEXCOORD0) : SV_Target {{ return t.Sample(s, uv); }}\n",
                                 "vk::combinedImageSampler", "ps_6_0"),
    "vk::spvexecutionmode": ("[[{a}]]\nfloat4 main(float4 p : SV_Position) : SV_Target {{ return p; }}\n",
                             "vk::spvexecutionmode(4446)", "ps_6_0"),
    "vk::ext_decorate": ("[[{a}]] RWBuffer<uint> o : register(u0);\n[numthreads(1, 1, 1)] void main() {{ o[0] = 1; }}\n",
                         "vk::ext_decorate(21)", "cs_6_0"),
}


@pytest.mark.parametrize("name", list(VK_CASES))
def test_unimplemented_vk_attributes(name):
    """SPIR-V: a located error at the attribute (DXC's SPIR-V would change the shader with it).  DXIL: the container
    compiled without it, as DXC's DXIL ignores Vulkan attributes."""
    template, attr, profile = VK_CASES[name]
    src = template.format(a=attr)
    errs = R.errors(R.compile_hlsl(src, "main", profile, "spirv"))
    line = next(i for i, text in enumerate(src.splitlines(), 1) if attr in text)
    col = src.splitlines()[line - 1].index(attr) + 1
    assert errs == [f"{line}:{col}: attribute '{name}' is not supported when compiling for Vulkan"], errs
    dx = R.compile_hlsl(src, "main", profile, "dxil")
    plain = R.compile_hlsl(template.format(a="vendor::none"), "main", profile, "dxil")
    assert dx.ok and plain.ok and dx.binary == plain.binary, R.diagnostics_text(dx)
