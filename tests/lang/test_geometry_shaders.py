"""Geometry shaders compiled, not drawn (tests/resources/test_res_geometry.py draws them): every gs_6_x profile to
both targets, SPIR-V execution modes per input primitive / output stream, DXIL GS state (dx.entryPoints,
PSV0 read back by obj2yaml-19), signatures with streams, and the located diagnostics of the GS rules.
Expected numbers are written here from the specifications (SPIR-V execution modes; DXIL.rst's
InputPrimitive / PrimitiveTopology enums), not read from the backends' tables.
"""

from __future__ import annotations

import re

import pytest
import res_util as R

pytestmark = [pytest.mark.spirv_tools]

VERTEX = "struct V { float4 pos : SV_Position; float2 uv : TEXCOORD0; };\n"


def gs(prim: str = "triangle", n: int = 3, stream: str = "TriangleStream", attrs: str = "[maxvertexcount(4)]",
       extra: str = "") -> str:
    return VERTEX + f"""{attrs}
void main({prim} V input[{n}]{extra}, inout {stream}<V> s) {{
    for (uint i = 0; i < {n}; i++) s.Append(input[i]);
    s.RestartStrip();
}}
"""


def test_output_budget_at_the_limit():
    R.build(gs(attrs="[maxvertexcount(170)]"), profile="gs_6_0")       # 170 * 6 = 1020 <= 1024


@pytest.mark.parametrize("minor", range(9))
def test_every_gs_profile_compiles_to_both_targets(minor):
    src = gs()
    R.build(src, profile=f"gs_6_{minor}")                        # spirv-val, reflection, DXIL twin
    res, check = R.build_dxil(src, profile=f"gs_6_{minor}")      # obj2yaml, bcanalyzer, llvm-dis, dxil-spirv
    assert f'!"gs", i32 6, i32 {minor}' in check.ir
    assert check.spirv is not None


# input primitive -> (vertices, SPIR-V execution mode, DXIL::InputPrimitive)
PRIMITIVES = {"point": (1, "InputPoints", 1), "line": (2, "InputLines", 2), "triangle": (3, "Triangles", 3),
              "lineadj": (4, "InputLinesAdjacency", 6), "triangleadj": (6, "InputTrianglesAdjacency", 7)}
# stream kind -> (SPIR-V execution mode, DXIL::PrimitiveTopology)
STREAMS = {"PointStream": ("OutputPoints", 1), "LineStream": ("OutputLineStrip", 3),
           "TriangleStream": ("OutputTriangleStrip", 5)}


def gs_state(ir_text: str) -> list[int]:
    """The five integers of the GS state (tag 1) in dx.entryPoints' properties."""
    entry = re.search(r"!dx\.entryPoints = !\{!(\d+)\}", ir_text).group(1)
    props = re.search(rf"^!{entry} = !{{.*, !(\d+)}}$", ir_text, re.M).group(1)
    nodes = re.search(rf"^!{props} = !{{(.*)}}$", ir_text, re.M).group(1)
    state = re.search(r"i32 1, !(\d+)", nodes).group(1)
    return [int(x) for x in re.findall(r"i32 (\d+)", re.search(rf"^!{state} = !{{(.*)}}$", ir_text, re.M).group(1))]


@pytest.mark.parametrize("prim", list(PRIMITIVES))
@pytest.mark.parametrize("stream", list(STREAMS))
def test_input_primitive_and_output_topology(prim, stream):
    n, spirv_mode, dxil_prim = PRIMITIVES[prim]
    out_mode, topology = STREAMS[stream]
    src = gs(prim, n, stream, "[maxvertexcount(7)] [instance(2)]")
    dis = R.spirv_dis(R.build(src, profile="gs_6_0"))
    assert "OpEntryPoint Geometry %main" in dis
    for mode in (spirv_mode, out_mode, "OutputVertices 7", "Invocations 2"):
        assert f"OpExecutionMode %main {mode}\n" in dis + "\n", mode
    assert re.search(rf"%_arr_v4float_uint_{n} = OpTypeArray %v4float %uint_{n}", dis)   # per-vertex inputs
    _, check = R.build_dxil(src, profile="gs_6_0")
    assert gs_state(check.ir) == [dxil_prim, 7, 1, topology, 2]
    psv = next(p for p in check.container["Parts"] if p["Name"] == "PSV0")["PSVInfo"]
    assert (psv["ShaderStage"], psv["InputPrimitive"], psv["OutputTopology"], psv["OutputStreamMask"],
            psv["MaxVertexCount"], psv["OutputPositionPresent"]) == (2, dxil_prim, topology, 1, 7, 1)
    # one loadInput per vertex and component of the position
    for v in range(n):
        assert f"call float @dx.op.loadInput.f32(i32 4, i32 0, i32 0, i8 0, i32 {v})" in check.ir
    assert "@dx.op.emitStream(i32 97, i8 0)" in check.ir and "@dx.op.cutStream(i32 98, i8 0)" in check.ir


GS_STREAMS = """
struct A { float4 pos : SV_Position; float4 color : COLOR0; };
struct B { float4 data : DATA0; uint layer : LAYER; };
[maxvertexcount(3)]
void main(point A input[1], uint prim : SV_PrimitiveID, uint inst : SV_GSInstanceID,
          inout PointStream<A> s0, inout PointStream<B> s1) {
    s0.Append(input[0]);
    B b;
    b.data = input[0].color * 2;
    b.layer = prim + inst;
    s1.Append(b);
    s1.RestartStrip();
    s0.RestartStrip();
}
"""


def test_two_streams_dxil():
    res, check = R.build_dxil(GS_STREAMS, profile="gs_6_0")
    assert gs_state(check.ir) == [1, 3, 0b11, 1, 1]
    assert "@dx.op.emitStream(i32 97, i8 1)" in check.ir and "@dx.op.cutStream(i32 98, i8 1)" in check.ir
    assert "@dx.op.primitiveID.i32(i32 108)" in check.ir and "@dx.op.gsInstanceID.i32(i32 100)" in check.ir
    osg = next(p for p in check.container["Parts"] if p["Name"] == "OSG1")["Signature"]["Parameters"]
    assert [(p["Stream"], p["Name"], p["Register"]) for p in osg] == [
        (0, "SV_Position", 0), (0, "COLOR", 1), (1, "DATA", 0), (1, "LAYER", 1)]   # each stream packed alone
    isg = next(p for p in check.container["Parts"] if p["Name"] == "ISG1")["Signature"]["Parameters"]
    # SV_PrimitiveID: DXC's Shadow element at GSIn (listed, no register: last); SV_GSInstanceID: no element
    assert [(p["Name"], p["Register"]) for p in isg] == [("SV_Position", 0), ("COLOR", 1),
                                                         ("SV_PrimitiveID", 0xFFFFFFFF)]
    psv = next(p for p in check.container["Parts"] if p["Name"] == "PSV0")["PSVInfo"]
    assert psv["SigOutputVectors"] == [2, 2, 0, 0]
    # stream 1's elements carry the output-stream tag (0) in their metadata
    assert re.search(r'!"DATA", i8 9, i8 0, !\d+, i8 2, i32 1, i8 4, i32 0, i8 0, !(\d+)', check.ir)
    assert "!{i32 0, i32 1, i32 3, i32 15}" in check.ir


def test_two_streams_spirv():
    dis = R.spirv_dis(R.build(GS_STREAMS, profile="gs_6_0"))
    assert "OpEmitStreamVertex %uint_1" in dis and "OpEndStreamPrimitive %uint_0" in dis
    assert "BuiltIn PrimitiveId" in dis and "BuiltIn InvocationId" in dis
    for name in ("out_DATA0", "out_LAYER"):       # spirv-dis's friendly names of out.DATA0, out.LAYER
        assert re.search(rf"OpDecorate %{name} Stream 1", dis), name
    assert dis.count(" Stream 1") == 2 and " Stream 0" not in dis


GS_LAYERED = VERTEX + """
struct L { float4 pos : SV_Position; uint layer : SV_RenderTargetArrayIndex; uint vp : SV_ViewportArrayIndex; };
[maxvertexcount(3)]
void main(triangle V input[3], inout TriangleStream<L> s) {
    for (uint i = 0; i < 3; i++) { L o; o.pos = input[i].pos; o.layer = 2; o.vp = 1; s.Append(o); }
}
"""


def test_layer_and_viewport_outputs():
    dis = R.spirv_dis(R.build(GS_LAYERED, profile="gs_6_1"))
    assert "BuiltIn Layer" in dis and "BuiltIn ViewportIndex" in dis and "OpCapability MultiViewport" in dis
    _, check = R.build_dxil(GS_LAYERED, profile="gs_6_1")
    osg = next(p for p in check.container["Parts"] if p["Name"] == "OSG1")["Signature"]["Parameters"]
    assert [(p["Name"], p["SystemValue"]) for p in osg] == [
        ("SV_Position", "Position"), ("SV_RenderTargetArrayIndex", "RenderTargetArrayIndex"),
        ("SV_ViewportArrayIndex", "ViewPortArrayIndex")]


HELPER_STREAM = VERTEX + """
void emit(inout TriangleStream<V> s, V v) { s.Append(v); }
[maxvertexcount(3)]
void main(triangle V input[3], inout TriangleStream<V> s) {
    for (uint i = 0; i < 3; i++) emit(s, input[i]);
}
"""


def test_stream_passed_to_a_helper():
    dis = R.spirv_dis(R.build(HELPER_STREAM, profile="gs_6_0"))
    assert dis.count("OpEmitVertex") == 1
    _, check = R.build_dxil(HELPER_STREAM, profile="gs_6_0")
    assert "@dx.op.emitStream(i32 97, i8 0)" in check.ir


# ---------------------------------------------------------------- the GS rules: located diagnostics

ERRORS = [
    pytest.param(gs(attrs=""), "3:6: geometry entry point 'main' requires the [maxvertexcount(N)] attribute",
                 id="missing-maxvertexcount"),
    pytest.param(gs(attrs="[maxvertexcount(0)]"), "2:17: maxvertexcount must be between 1 and 1024, not 0",
                 id="maxvertexcount-range"),
    pytest.param(gs(attrs="[maxvertexcount(3)] [instance(33)]"),
                 "2:31: instance count must be between 1 and 32, not 33", id="instance-range"),
    pytest.param(gs("triangle", 2), "3:22: input primitive 'triangle' has 3 vertices: declare 'input[3]', "
                 "not 'input[2]'", id="triangle-array-size"),
    pytest.param(gs("lineadj", 2), "3:21: input primitive 'lineadj' has 4 vertices: declare 'input[4]', "
                 "not 'input[2]'", id="lineadj-array-size"),
    pytest.param(VERTEX + "[maxvertexcount(3)]\nvoid main(triangle V input[3], inout TriangleStream<V> s) {\n"
                 "    float4 v = input[0].pos;\n    v.Append(input[0].pos);\n}\n",
                 "5:7: 'Append' requires a geometry-shader stream (PointStream, LineStream or TriangleStream) or an "
                 "AppendStructuredBuffer, not 'float4'", id="append-on-vector"),
    pytest.param(VERTEX + "RWStructuredBuffer<V> buf;\n[maxvertexcount(3)]\n"
                 "void main(triangle V input[3], inout TriangleStream<V> s) {\n    buf.Append(input[0]);\n}\n",
                 "5:9: 'Append' requires a geometry-shader stream (PointStream, LineStream or TriangleStream) or an "
                 "AppendStructuredBuffer, not 'RWStructuredBuffer<V>'", id="append-on-buffer"),
    pytest.param(VERTEX + "[maxvertexcount(3)]\nvoid main(triangle V input[3], inout TriangleStream<V> s) {\n"
                 "    V v = input[0];\n    v.RestartStrip();\n}\n",
                 "5:7: 'RestartStrip' requires a geometry-shader stream (PointStream, LineStream or TriangleStream), "
                 "not 'V'", id="restartstrip-on-struct"),
    pytest.param(VERTEX + "[maxvertexcount(3)]\nvoid main(triangle V input[3], TriangleStream<V> s) {\n"
                 "    s.Append(input[0]);\n}\n", "3:50: stream parameter 's' must be declared 'inout'",
                 id="stream-not-inout"),
    pytest.param(VERTEX + "[maxvertexcount(3)]\nvoid main(triangle V input[3], inout TriangleStream<V> a, "
                 "inout PointStream<V> b) {\n    a.Append(input[0]);\n}\n",
                 "3:56: a geometry shader with several output streams must write points: every stream must be a "
                 "PointStream", id="multi-stream-not-points"),
    pytest.param(VERTEX + "[maxvertexcount(3)]\nvoid main(V input[3], inout TriangleStream<V> s) {\n"
                 "    s.Append(input[0]);\n}\n",
                 "3:13: geometry shader input 'input' needs an input primitive type (point, line, triangle, lineadj "
                 "or triangleadj)", id="no-primitive"),
    pytest.param(VERTEX + "[maxvertexcount(3)]\nvoid main(triangle V input[3]) {\n}\n",
                 "3:6: geometry entry point 'main' needs an 'inout' stream parameter (PointStream, LineStream or "
                 "TriangleStream)", id="no-stream"),
    pytest.param(VERTEX + "[maxvertexcount(3)]\nV main(triangle V input[3], inout TriangleStream<V> s) {\n"
                 "    return input[0];\n}\n",
                 "3:3: geometry entry point 'main' must return void: vertices are written with Append on a stream "
                 "parameter", id="non-void"),
    pytest.param(gs(attrs="[maxvertexcount(171)]"), "3:6: geometry shader output too large: maxvertexcount (171) "
                 "times the 6 scalar components of an output vertex is 1026, more than 1024", id="output-budget"),
    pytest.param(VERTEX + "TriangleStream<V> g;\n[maxvertexcount(3)]\n"
                 "void main(triangle V input[3], inout TriangleStream<V> s) {\n    s.Append(input[0]);\n}\n",
                 "2:19: 'TriangleStream<V>' is a geometry-shader output stream: it can only be an 'inout' parameter "
                 "of the geometry entry point", id="stream-global"),
    pytest.param(VERTEX + "[maxvertexcount(3)]\nvoid main(triangle V input[3], inout TriangleStream<V> s) {\n"
                 "    s.Append(input[0]);\n    s.Emit();\n}\n",
                 "5:7: no member function named 'Emit' in 'TriangleStream<V>' (streams have Append and RestartStrip)",
                 id="unknown-method"),
]


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("src, want", ERRORS)
def test_gs_rule_errors(src, want, target):
    res = R.compile_hlsl(src, profile="gs_6_0", target=target)
    assert not res.ok and res.binary is None
    assert R.errors(res) == [want]
    text = R.diagnostics_text(res)
    assert "res_test.hlsl:" + want.split(":")[0] in text and "^" in text      # file:line:col, source and caret


def test_stream_parameter_outside_a_geometry_shader():
    src = VERTEX + "float4 main(inout TriangleStream<V> s) : SV_Target { return 0; }\n"
    res = R.compile_hlsl(src, profile="ps_6_0")
    assert R.errors(res) == ["2:37: stream parameter 's' is only allowed in a geometry shader"]


def test_cli_gs_error_exit_status(tmp_path):
    import subprocess
    import sys
    path = tmp_path / "gs.hlsl"
    path.write_text(gs(attrs=""))
    proc = subprocess.run([sys.executable, "-m", "shaderbuild", "compile", "-T", "gs_6_0", "-spirv", str(path),
                           "-o", str(tmp_path / "gs.spv")], capture_output=True, text=True)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert f"{path}:3:6: error: geometry entry point 'main' requires the [maxvertexcount(N)] attribute" in proc.stderr
    assert not (tmp_path / "gs.spv").exists()


# ---------------------------------------------------------------- manifest

@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_manifest_geometry_facts(target):
    import json
    from importlib import resources

    import jsonschema
    schema = json.loads(resources.files("shaderbuild.reflect").joinpath("manifest.schema.json").read_text())
    res = R.compile_hlsl(GS_STREAMS.replace("[maxvertexcount(3)]", "[maxvertexcount(3)] [instance(4)]"),
                         profile="gs_6_2", target=target)
    assert res.ok
    jsonschema.validate(res.manifest, schema)
    entry = res.manifest["entry"]
    assert entry["stage"] == "geometry"
    assert entry["geometry"] == {"max_vertex_count": 3, "instances": 4, "input_primitive": "point",
                                 "output_topology": "point_list",
                                 "streams": [{"stream": 0, "topology": "point_list"},
                                             {"stream": 1, "topology": "point_list"}]}
    assert [(o["semantic"], o["index"], o["stream"]) for o in entry["outputs"]] == [
        ("SV_Position", 0, 0), ("COLOR", 0, 0), ("DATA", 0, 1), ("LAYER", 0, 1)]
    ins = {i["semantic"]: i for i in entry["inputs"]}
    assert ins["SV_Position"]["vertices"] == 1 and ins["COLOR"]["vertices"] == 1
    assert "vertices" not in ins["SV_PrimitiveID"] and "vertices" not in ins["SV_GSInstanceID"]
    if target == "spirv":
        assert ins["SV_PrimitiveID"]["builtin"] == "PrimitiveId" and ins["SV_GSInstanceID"]["builtin"] == "InvocationId"
        assert [o.get("location") for o in entry["outputs"]] == [None, 0, 1, 2]


def test_manifest_triangle_strip():
    res = R.compile_hlsl(gs("lineadj", 4, "TriangleStream", "[maxvertexcount(12)]"), profile="gs_6_0")
    assert res.manifest["entry"]["geometry"] == {
        "max_vertex_count": 12, "instances": 1, "input_primitive": "lineadj", "output_topology": "triangle_strip",
        "streams": [{"stream": 0, "topology": "triangle_strip"}]}


def test_clip_distance_is_a_float_array_in_spirv():
    """A scalar SV_ClipDistance of a geometry shader's vertices is Vulkan's ClipDistance array anyway:
    float[1] per input vertex and float[1] out, whether declared `float` or `float[1]`."""
    src = VERTEX.replace("float2 uv : TEXCOORD0;", "float clip : SV_ClipDistance0;") + \
        "[maxvertexcount(3)]\nvoid main(triangle V input[3], inout TriangleStream<V> s) {\n" \
        "    for (uint i = 0; i < 3; i++) s.Append(input[i]);\n}\n"
    for form in (src, src.replace("float clip :", "float clip[1] :")):
        dis = R.spirv_dis(R.build(form, profile="gs_6_0"))
        assert "OpCapability ClipDistance" in dis
        assert re.search(r"%in_var_SV_ClipDistance = OpVariable %_ptr_Input__arr__arr_float_uint_1_uint_3 Input", dis)
        assert re.search(r"%out_var_SV_ClipDistance = OpVariable %_ptr_Output__arr_float_uint_1 Output", dis)


def test_invert_y_negates_the_gs_position_output():
    def position_stores(**kw) -> list[str]:
        dis = R.spirv_dis(R.build(gs(), profile="gs_6_0", **kw))
        return [line for line in dis.splitlines() if "OpFNegate" in line]
    assert position_stores() == [] and len(position_stores(vk_invert_y=True)) == 1


def test_buffer_element_with_a_resource_is_refused():
    """A fuzz finding that the GS test files' new seeds brought into the mutated batch (it was an internal
    compiler error on main): a structured buffer's element type cannot contain a resource."""
    src = ("struct S { Texture2D a; uint b; };\nRWStructuredBuffer<S> Out : register(u0);\n"
           "[numthreads(1, 1, 1)] void main() { Out[0].b = 1; }\n")
    for target in ("spirv", "dxil"):
        res = R.compile_hlsl(src, profile="cs_6_0", target=target)
        assert R.errors(res) == ["2:20: 'S' is not a valid element type for 'RWStructuredBuffer': it contains the "
                                 "resource 'Texture2D<float4>'"]


def test_wide_64bit_typed_element_is_located_for_spirv():
    """Another fuzz finding the new seeds brought in: the SPIR-V error for a 64-bit typed element wider than
    two components had no location."""
    res = R.compile_hlsl("RWBuffer<uint64_t3> B : register(u0);\n[numthreads(1,1,1)] void main() { B[0] = 1; }\n",
                         profile="cs_6_0")
    assert R.errors(res) == ["1:10: elements of typed buffers and textures must fit in four 32-bit quantities"]
