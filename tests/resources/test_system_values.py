"""Issue 17: every system value in every stage and direction, to both targets.

Where D3D allows a system value (the table below, written from D3D's documentation and
DXIL.rst's semantic interpretation table, not from the compiler's own table) the shader
compiles for SPIR-V under vulkan1.1 and vulkan1.3, and spirv-val accepts each in its own
environment; it compiles for DXIL and passes the DXIL checks (LLVM readers, dxil-spirv, spirv-val
of dxil-spirv's output).  Where D3D forbids it the compile fails with a located error.

Stages are rows of STAGES (a shader template per stage and direction): the geometry, hull and
domain stages add theirs, and their system values add their (stage, direction) pairs to D3D.
"""

from __future__ import annotations

import re

import pytest
import res_util as R
from harness import dxil_consumer, dxil_tools, tools

from shaderbuild.front.semantics import SYSTEM_VALUES

# (stage, direction) -> shader template: {DECL} declares the value v of the declared type with the
# semantic {S}, {USE} is an expression of it as a float, {SET} assigns it a value; {T} is the type
STAGES: dict[tuple[str, str], tuple[str, str]] = {
    ("vertex", "in"): ("vs", "float4 main({DECL}) : SV_Position {{ return float4({USE}, 0, 0, 1); }}"),
    ("vertex", "out"): ("vs", "float4 main(out {DECL}) : SV_Position {{ {SET} return float4(0, 0, 0, 1); }}"),
    ("pixel", "in"): ("ps", "float4 main({DECL}) : SV_Target {{ return float4({USE}, 0, 0, 1); }}"),
    ("pixel", "out"): ("ps", "float4 main(out {DECL}) : SV_Target {{ {SET} return float4(1, 0, 0, 1); }}"),
    ("compute", "in"): ("cs", "RWStructuredBuffer<float> o;\n[numthreads(1, 1, 1)]\n"
                              "void main({DECL}) {{ o[0] = {USE}; }}"),
    # per-vertex values arrive as the input primitive's array
    ("geometry", "in"): ("gs", "struct O {{ float4 pos : P; }};\n[maxvertexcount(1)]\n"
                               "void main(point {DECL}, inout PointStream<O> s) {{ O o; o.pos = {USE}; s.Append(o); }}"),
    ("geometry", "out"): ("gs", "struct O {{ {DECL}; }};\n[maxvertexcount(1)]\n"
                                "void main(point float4 p[1] : P, inout PointStream<O> s) {{ O o; {SET} s.Append(o); }}"),
    # per control point: a member of the input patch's points
    ("hull", "in"): ("hs", "struct CP {{ {DECL}; }};\nstruct OUT {{ float4 p : P; }};\n"
                           "struct PC {{ float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; }};\n"
                           "PC pc() {{ PC c; c.e[0] = 1; c.e[1] = 1; c.e[2] = 1; c.i = 1; return c; }}\n"
                           "[domain(\"tri\")] [partitioning(\"integer\")] [outputtopology(\"triangle_cw\")] "
                           "[outputcontrolpoints(3)] [patchconstantfunc(\"pc\")]\n"
                           "OUT main(InputPatch<CP, 3> ip) {{ OUT o; o.p = {USE}; return o; }}"),
    ("hull", "out"): ("hs", "struct CP {{ float4 p : P; }};\n"
                            "struct PC {{ float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; }};\n"
                            "PC pc() {{ PC c; c.e[0] = 1; c.e[1] = 1; c.e[2] = 1; c.i = 1; return c; }}\n"
                            "[domain(\"tri\")] [partitioning(\"integer\")] [outputtopology(\"triangle_cw\")] "
                            "[outputcontrolpoints(3)] [patchconstantfunc(\"pc\")]\n"
                            "CP main(InputPatch<CP, 3> ip, out {DECL}) {{ {SET} return ip[0]; }}"),
    ("domain", "in"): ("ds", "struct CP {{ {DECL}; }};\n[domain(\"tri\")]\n"
                             "float4 main(OutputPatch<CP, 3> op) : P {{ return {USE}; }}"),
    ("domain", "out"): ("ds", "struct CP {{ float4 p : P; }};\n[domain(\"tri\")]\n"
                              "void main(OutputPatch<CP, 3> op, out {DECL}) {{ {SET} }}"),
    # mesh shaders: thread ids in, a vertex's members out ('out'), a primitive's members ('prim')
    ("mesh", "in"): ("ms", "struct V {{ float4 p : SV_Position; }};\n[outputtopology(\"triangle\")] [numthreads(1, 1, 1)]\n"
                           "void main({DECL}, out vertices V verts[3], out indices uint3 tris[1]) {{\n"
                           "SetMeshOutputCounts(3, 1); verts[0].p = float4({USE}, 0, 0, 1); tris[0] = uint3(0, 1, 2); }}"),
    ("mesh", "out"): ("ms", "struct V {{ float4 p : P; {DECL}; }};\n[outputtopology(\"triangle\")] [numthreads(1, 1, 1)]\n"
                            "void main(out vertices V verts[3], out indices uint3 tris[1]) {{\n"
                            "SetMeshOutputCounts(3, 1); V o = (V)0; {SET} verts[0] = o; tris[0] = uint3(0, 1, 2); }}"),
    ("mesh", "prim"): ("ms", "struct V {{ float4 p : SV_Position; }};\nstruct Q {{ {DECL}; }};\n"
                             "[outputtopology(\"triangle\")] [numthreads(1, 1, 1)]\n"
                             "void main(out vertices V verts[3], out indices uint3 tris[1], out primitives Q prims[1]) {{\n"
                             "SetMeshOutputCounts(3, 1); Q o = (Q)0; {SET} prims[0] = o; verts[0].p = 0; "
                             "tris[0] = uint3(0, 1, 2); }}"),
    ("amplification", "in"): ("as", "struct P {{ uint x; }};\ngroupshared P pl;\n[numthreads(1, 1, 1)]\n"
                                    "void main({DECL}) {{ pl.x = (uint){USE}; DispatchMesh(1, 1, 1, pl); }}"),
}
# values that are not per vertex / control point: a parameter of their own
PER_PRIMITIVE: dict[tuple[str, str], tuple[str, str]] = {
    ("geometry", "in"): ("gs", "struct O {{ float4 pos : P; }};\n[maxvertexcount(1)]\n"
                               "void main(point float4 p[1] : P, {DECL}, inout PointStream<O> s) "
                               "{{ O o; o.pos = p[0] + {USE}; s.Append(o); }}"),
    ("hull", "in"): ("hs", "struct CP {{ float4 p : P; }};\n"
                           "struct PC {{ float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; }};\n"
                           "PC pc() {{ PC c; c.e[0] = 1; c.e[1] = 1; c.e[2] = 1; c.i = 1; return c; }}\n"
                           "[domain(\"tri\")] [partitioning(\"integer\")] [outputtopology(\"triangle_cw\")] "
                           "[outputcontrolpoints(3)] [patchconstantfunc(\"pc\")]\n"
                           "CP main(InputPatch<CP, 3> ip, {DECL}) {{ CP o; o.p = ip[0].p + {USE}; return o; }}"),
    # the patch-constant function's output (the other tess factor beside it)
    ("hull", "out"): ("hs", "struct CP {{ float4 p : P; }};\n"
                            "struct PC {{ {OTHER}; }};\n"
                            "PC pc(out {DECL}) {{ PC c = (PC)0; {SET} return c; }}\n"
                            "[domain(\"tri\")] [partitioning(\"integer\")] [outputtopology(\"triangle_cw\")] "
                            "[outputcontrolpoints(3)] [patchconstantfunc(\"pc\")]\n"
                            "CP main(InputPatch<CP, 3> ip) {{ return ip[0]; }}"),
    ("domain", "in"): ("ds", "struct CP {{ float4 p : P; }};\n[domain(\"tri\")]\n"
                             "float4 main(OutputPatch<CP, 3> op, {DECL}) : P {{ return op[0].p + {USE}; }}"),
}
_PER_PRIMITIVE_SVS = {"SV_PrimitiveID", "SV_GSInstanceID", "SV_OutputControlPointID", "SV_DomainLocation",
                      "SV_TessFactor", "SV_InsideTessFactor", "SV_ViewID"}
# where the compiler reports an error for the value: the first match's group 1 (default: v's name)
# (a member of a control point, a stream's vertex or a mesh output is located at the member itself: the default)
_ANCHORS: dict[tuple[str, str], str] = {}

_VS_OUT_PS_IN = {("vertex", "out"), ("pixel", "in")}
_TESS = {("hull", "in"), ("hull", "out"), ("domain", "in"), ("domain", "out")}
_GS = {("geometry", "in"), ("geometry", "out")}
_EVERY_VERTEX_STAGE = {("vertex", "in"), ("vertex", "out"), ("pixel", "in")} | _TESS | _GS
_THREADS = {("compute", "in"), ("mesh", "in"), ("amplification", "in")}
_MS_VERTEX, _MS_PRIM = {("mesh", "out")}, {("mesh", "prim")}
# system value -> (declared type, first shader model, (stage, direction) pairs D3D allows it in;
# a value D3D takes as an ordinary attribute there counts as allowed). The tessellation templates
# use [domain("tri")]: three edge factors and one inside factor.
D3D: dict[str, tuple[str, int, set[tuple[str, str]]]] = {
    "SV_DispatchThreadID": ("uint3", 0, _THREADS),
    "SV_GroupID": ("uint3", 0, _THREADS),
    "SV_GroupThreadID": ("uint3", 0, _THREADS),
    "SV_GroupIndex": ("uint", 0, _THREADS),
    "SV_Position": ("float4", 0, _EVERY_VERTEX_STAGE | _MS_VERTEX),
    "SV_VertexID": ("uint", 0, {("vertex", "in")}),
    "SV_InstanceID": ("uint", 0, _EVERY_VERTEX_STAGE),
    "SV_IsFrontFace": ("bool", 0, {("pixel", "in"), ("geometry", "out")}),
    "SV_Depth": ("float", 0, {("pixel", "out")}),
    "SV_DepthGreaterEqual": ("float", 0, {("pixel", "out")}),
    "SV_DepthLessEqual": ("float", 0, {("pixel", "out")}),
    "SV_StencilRef": ("uint", 0, {("pixel", "out")}),
    "SV_Coverage": ("uint", 0, {("pixel", "in"), ("pixel", "out")}),
    "SV_InnerCoverage": ("uint", 0, {("pixel", "in")}),
    "SV_SampleIndex": ("uint", 0, {("pixel", "in")}),
    "SV_PrimitiveID": ("uint", 0, {("pixel", "in"), ("hull", "in"), ("domain", "in"), ("geometry", "in"),
                                   ("geometry", "out")} | _MS_PRIM),
    "SV_GSInstanceID": ("uint", 0, {("geometry", "in")}),
    "SV_OutputControlPointID": ("uint", 0, {("hull", "in")}),
    "SV_DomainLocation": ("float3", 0, {("domain", "in")}),
    "SV_TessFactor": ("float[3]", 0, {("hull", "out"), ("domain", "in")}),
    "SV_InsideTessFactor": ("float", 0, {("hull", "out"), ("domain", "in")}),
    "SV_ClipDistance": ("float", 0, _EVERY_VERTEX_STAGE | _MS_VERTEX),
    "SV_CullDistance": ("float", 0, _EVERY_VERTEX_STAGE | _MS_VERTEX),
    "SV_RenderTargetArrayIndex": ("uint", 0, _EVERY_VERTEX_STAGE | _MS_PRIM),
    "SV_ViewportArrayIndex": ("uint", 0, _EVERY_VERTEX_STAGE | _MS_PRIM),
    "SV_ViewID": ("uint", 1, {("vertex", "in"), ("pixel", "in"), ("hull", "in"), ("domain", "in"),
                              ("geometry", "in"), ("mesh", "in")}),
    "SV_Barycentrics": ("float3", 1, {("pixel", "in")}),
    "SV_ShadingRate": ("uint", 4, _VS_OUT_PS_IN | {("geometry", "out")} | _MS_PRIM),
    "SV_CullPrimitive": ("bool", 5, _MS_PRIM | {("pixel", "in")}),     # pixel: the constant false
    "SV_StartVertexLocation": ("int", 8, {("vertex", "in")}),
    "SV_StartInstanceLocation": ("uint", 8, {("vertex", "in")}),
    "SV_Target": ("float4", 0, {("pixel", "out")}),
}
# the templates cannot hold these (the template itself declares SV_Position / SV_Target)
_TEMPLATE_CLASH = {("SV_Position", "vertex", "out"), ("SV_Target", "pixel", "out"), ("SV_Position", "mesh", "prim")}
# D3D allows these; the SPIR-V backend refuses them on purpose with a located error, because the
# SPIR-V it would write does not pass this machine's spirv-val (test_unsupported_system_value_...)
NOT_SUPPORTED: dict[tuple[str, str, str], str] = {
    ("SV_ShadingRate", "mesh", "prim"): "SPIR-V: refused in a mesh shader (spirv-val of the SPIRV-Tools here rejects "
                                        "the per-primitive PrimitiveShadingRateKHR array Vulkan specifies for MeshEXT)",
}


def _use(t: str, name: str = "v") -> str:
    if t == "bool":
        return f"({name} ? 1.0 : 0.0)"
    if t.endswith("]"):
        return f"{name}[0]"
    return f"(float){name}{'.x' if t[-1].isdigit() else ''}"


def _per_primitive(sv: str, stage: str, direction: str) -> bool:
    return sv in _PER_PRIMITIVE_SVS and (stage, direction) in PER_PRIMITIVE


def _source(sv: str, stage: str, direction: str, t: str | None = None) -> tuple[str, str]:
    t = t or D3D[sv][0]
    per_primitive = _per_primitive(sv, stage, direction)
    prefix, template = (PER_PRIMITIVE if per_primitive else STAGES)[(stage, direction)]
    base, _, dims = t.partition("[")
    decl = f"{base} v{'[' + dims if dims else ''} : {sv}"
    one = "true" if t == "bool" else f"({base})1"
    count = int(dims[:-1]) if dims else 0
    assign = " ".join(f"v[{i}] = {one};" for i in range(count)) if count else f"v = {one};"
    use = _use(t)
    if stage == "geometry" and direction == "in" and not per_primitive:    # the primitive's vertices
        decl, use = f"{t} v[1] : {sv}", _use(t, "v[0]")
    if stage in ("hull", "domain") and direction == "in" and not per_primitive:     # a control point's member
        use = _use(t, ("ip" if stage == "hull" else "op") + "[0].v")
    if stage in ("geometry", "mesh") and direction in ("out", "prim"):
        assign = assign.replace("v", "o.v")
    other = [f for f in ("float e[3] : SV_TessFactor", "float i : SV_InsideTessFactor") if not f.endswith(sv)]
    return prefix, template.format(T=t, S=sv, DECL=decl, USE=use, SET=assign, OTHER="; ".join(other) or "float x : X")


def _profile(prefix: str, sm: int) -> str:
    return f"{prefix}_6_{max(sm, 5) if prefix in ('ms', 'as') else sm}"     # mesh stages start at SM 6.5


def _matrix(allowed: bool) -> list:
    out = []
    for sv, (_t, _sm, uses) in D3D.items():
        for stage, direction in STAGES:
            if (sv, stage, direction) in _TEMPLATE_CLASH or ((stage, direction) in uses) != allowed:
                continue
            if allowed and (sv, stage, direction) in NOT_SUPPORTED:
                continue
            out.append(pytest.param(sv, stage, direction, id=f"{sv}-{stage}-{direction}"))
    return out


def test_table_covers_every_system_value():
    """Every system value the compiler knows is a row of D3D (so each one is in the matrix)."""
    assert {sv.name for sv in SYSTEM_VALUES.values()} <= set(D3D)


def test_every_stage_has_a_template():
    assert {(st, d) for _t, _sm, uses in D3D.values() for st, d in uses} <= set(STAGES)


def _check_spirv(src: str, profile: str) -> None:
    # mesh and amplification shaders are SPIR-V 1.4 (SPV_EXT_mesh_shader): Vulkan 1.2 and later
    for env in ("vulkan1.2", "vulkan1.3") if profile[:2] in ("ms", "as") else ("vulkan1.1", "vulkan1.3"):
        res = R.compile_hlsl(src, "main", profile, "spirv", env=env)
        assert res.ok, f"SPIR-V {env}:\n{R.diagnostics_text(res)}\n{src}"
        tools.spirv_val(res.binary, env)


def _check_dxil(src: str, profile: str) -> dxil_tools.DxilCheck:
    res = R.compile_hlsl(src, "main", profile, "dxil")
    assert res.ok, f"DXIL:\n{R.diagnostics_text(res)}\n{src}"
    return dxil_tools.check_dxil(res.binary)


# D3D allows these and our DXIL has the signature element DXC gives, but dxil-spirv maps them to a
# Vulkan built-in that the stage does not have (harness/dxil_consumer.LIMITS["sv-builtin-in-stage"])
CONSUMER_LIMITED = {("SV_RenderTargetArrayIndex", "hull", "in"), ("SV_ViewportArrayIndex", "hull", "in"),
                    ("SV_RenderTargetArrayIndex", "geometry", "in"), ("SV_ViewportArrayIndex", "geometry", "in"),
                    ("SV_IsFrontFace", "geometry", "out")}


@pytest.mark.parametrize(("sv", "stage", "direction"), _matrix(allowed=True))
def test_allowed_system_value_gives_valid_output(sv, stage, direction):
    prefix, src = _source(sv, stage, direction)
    profile = _profile(prefix, D3D[sv][1])
    _check_spirv(src, profile)
    if (sv, stage, direction) in CONSUMER_LIMITED:
        res = R.compile_hlsl(src, "main", profile, "dxil")
        assert res.ok, R.diagnostics_text(res)
        dxil_tools.read_dxil(res.binary)        # the LLVM readers take it
        with pytest.raises(dxil_consumer.ConsumerLimit) as info:
            dxil_consumer.to_spirv(res.binary)
        assert info.value.key == "sv-builtin-in-stage"
        return
    checked = _check_dxil(src, profile)
    assert checked.spirv is not None, "dxil-spirv did not convert the DXIL (a listed limit)"


@pytest.mark.parametrize(("sv", "kind"), [("SV_RenderTargetArrayIndex", "RenderTargetArrayIndex"),
                                          ("SV_ViewportArrayIndex", "ViewPortArrayIndex")])
def test_geometry_shader_layer_and_viewport_inputs_are_system_values(sv, kind):
    """DXC's signature-point table (DxilSigPoint.inl) gives SV_RenderTargetArrayIndex / SV_ViewportArrayIndex in a
    geometry shader's per-vertex input (GSVIn) the interpretation SV, as in a hull shader's: the ISG1 element
    carries the system value (not an arbitrary semantic)."""
    prefix, src = _source(sv, "geometry", "in")
    res = R.compile_hlsl(src, "main", _profile(prefix, D3D[sv][1]), "dxil")
    assert res.ok, R.diagnostics_text(res)
    isg = next(p for p in dxil_tools.read_dxil(res.binary).container["Parts"] if p["Name"] == "ISG1")
    assert [(e["Name"], e["SystemValue"]) for e in isg["Signature"]["Parameters"] if e["Name"] == sv] == [(sv, kind)]


@pytest.mark.parametrize(("sv", "stage", "direction"), sorted(NOT_SUPPORTED))
def test_unsupported_system_value_is_a_located_spirv_error(sv, stage, direction):
    """A deliberate refusal: the DXIL build is complete and checked, the SPIR-V build is a located
    error naming the system value (never SPIR-V that spirv-val rejects)."""
    prefix, src = _source(sv, stage, direction)
    profile = _profile(prefix, D3D[sv][1])
    assert (stage, direction) in D3D[sv][2]          # D3D allows it: only the SPIR-V backend refuses
    res = R.compile_hlsl(src, "main", profile, "spirv", env="vulkan1.2")
    errs = R.errors(res)
    assert not res.ok and errs and not res.binary, f"spirv: compiled\n{src}"
    line, col = _location(src, sv, stage, direction)
    assert errs[0].startswith(f"{line}:{col}: {sv} in a mesh shader is not supported by the SPIR-V backend"), errs
    res = R.compile_hlsl(src, "main", profile, "dxil")
    assert res.ok, R.diagnostics_text(res)
    dxil_tools.read_dxil(res.binary)        # the LLVM readers take it
    # the refusal's reason, shown on dxil-spirv's own SPIR-V of the same shader: this spirv-val rejects the
    # per-primitive array the Vulkan spec gives MeshEXT (it wants a scalar, the rule for other stages)
    with pytest.raises(dxil_consumer.ConsumerError, match="PrimitiveShadingRateKHR-04486"):
        dxil_consumer.to_spirv(res.binary)


def _location(src: str, sv: str, stage: str, direction: str) -> tuple[int, int]:
    """line:col of the anchor's group 1 in the source (computed from the text, not the compiler)."""
    default = r" (v)(\[\d+\])? : "
    anchor = default if _per_primitive(sv, stage, direction) else _ANCHORS.get((stage, direction), default)
    for line, text in enumerate(src.splitlines(), 1):
        m = re.search(anchor, text)
        if m:
            return line, m.start(1) + 1
    raise AssertionError(f"no anchor {anchor!r} in\n{src}")


@pytest.mark.parametrize(("sv", "stage", "direction"), _matrix(allowed=False))
def test_forbidden_system_value_is_a_located_error(sv, stage, direction):
    prefix, src = _source(sv, stage, direction)
    for target in ("spirv", "dxil"):
        res = R.compile_hlsl(src, "main", _profile(prefix, 4), target)
        errs = R.errors(res)
        assert not res.ok and errs, f"{target}: compiled\n{src}"
        line, col = _location(src, sv, stage, direction)
        assert errs[0].startswith(f"{line}:{col}: invalid semantic '{sv}' for {stage} shader "
                                  f"{'input' if direction == 'in' else 'output'}"), errs


# (SV_CullPrimitive is as old as the mesh stage, and DXC's table gives a pixel shader's input of it (NotInSig: the
# constant false) no shader-model gate)
@pytest.mark.parametrize("sv", [sv for sv, row in D3D.items() if row[1] > 0 and sv != "SV_CullPrimitive"
                                and any(st in ("vertex", "pixel", "compute") for st, _d in row[2])])
def test_system_value_needs_its_shader_model(sv):
    stage, direction = sorted(p for p in D3D[sv][2] if p[0] in ("vertex", "pixel", "compute"))[0]
    prefix, src = _source(sv, stage, direction)
    res = R.compile_hlsl(src, "main", _profile(prefix, D3D[sv][1] - 1), "spirv")
    assert [e for e in R.errors(res) if "needs shader model 6." in e and e.startswith("1:")], R.errors(res)


def test_unknown_system_value_is_a_located_error():
    res = R.compile_hlsl("float4 main(uint v : SV_Bogus) : SV_Target { return v; }", "main", "ps_6_0")
    assert R.errors(res) == ["1:18: unknown system value semantic 'SV_Bogus'"]


# ---------------------------------------------------------------- shapes and interstage values

VARIANTS = [
    # (id, profile, source): each must give valid output for both targets
    ("clip-float2-out", "vs_6_0",
     "float4 main(out float2 c : SV_ClipDistance) : SV_Position { c = float2(1, -1); return 1; }"),
    ("clip-array-out", "vs_6_0",
     "float4 main(out float c[2] : SV_ClipDistance1, out float d : SV_ClipDistance0) : SV_Position"
     " { c[0] = 1; c[1] = -1; d = 2; return 1; }"),
    ("clip-two-semantics-out", "vs_6_0",
     "float4 main(out float c : SV_ClipDistance0, out float3 d : SV_ClipDistance1, out float e : SV_CullDistance)"
     " : SV_Position { c = 1; d = 2; e = 3; return 1; }"),
    ("clip-cull-struct-in", "ps_6_0",
     "struct I { float4 p : SV_Position; float2 c : SV_ClipDistance0; float d : SV_ClipDistance1;"
     " float4 e : SV_CullDistance; }; float4 main(I i) : SV_Target { return i.c.y + i.d + i.e.w; }"),
    ("bool-out", "vs_6_0",
     "struct O { float4 p : SV_Position; bool b : B; bool3 c : C; }; O main() { O o; o.p = 1; o.b = true;"
     " o.c = bool3(true, false, true); return o; }"),
    ("bool-in", "ps_6_0",
     "float4 main(nointerpolation bool b : B, nointerpolation bool3 c : C) : SV_Target"
     " { return b && c.z ? 1 : 0; }"),
    ("int-in-no-nointerpolation", "ps_6_0",
     "struct I { int a : A; uint2 b : B; int4 c[2] : C; }; float4 main(I i) : SV_Target"
     " { return i.a + i.b.y + i.c[1].w; }"),
    ("coverage-inout", "ps_6_0",
     "float4 main(uint c : SV_Coverage, out uint o : SV_Coverage) : SV_Target { o = c & 1; return 1; }"),
    ("sample-index-and-primitive", "ps_6_0",
     "float4 main(uint s : SV_SampleIndex, uint p : SV_PrimitiveID) : SV_Target { return s + p; }"),
    ("depth-and-stencil", "ps_6_0",
     "float4 main(out float d : SV_DepthLessEqual, out uint s : SV_StencilRef) : SV_Target"
     " { d = 0.25; s = 7; return 1; }"),
    ("barycentrics-noperspective", "ps_6_1",
     "float4 main(noperspective float3 b : SV_Barycentrics) : SV_Target { return b.xyzz; }"),
    ("barycentrics-centroid", "ps_6_1",
     "float4 main(centroid float3 b : SV_Barycentrics) : SV_Target { return b.xyzz; }"),
    ("barycentrics-sample", "ps_6_1",
     "float4 main(sample float3 b : SV_Barycentrics) : SV_Target { return b.xyzz; }"),
    ("layer-viewport-out", "vs_6_0",
     "struct O { float4 p : SV_Position; uint l : SV_RenderTargetArrayIndex; uint v : SV_ViewportArrayIndex; };"
     " O main(uint id : SV_VertexID) { O o; o.p = 1; o.l = id; o.v = 0; return o; }"),
    ("front-face-as-uint", "ps_6_0",
     "float4 main(uint f : SV_IsFrontFace) : SV_Target { return f; }"),
]


@pytest.mark.parametrize(("profile", "src"), [pytest.param(p, s, id=i) for i, p, s in VARIANTS])
def test_variant_gives_valid_output(profile, src):
    _check_spirv(src, profile)
    assert _check_dxil(src, profile).spirv is not None


def test_clip_distances_combine_into_one_array():
    """SV_ClipDistance0 (float) and SV_ClipDistance1 (float3) are one float[4] ClipDistance (DXC's layout)."""
    src = next(s for i, _, s in VARIANTS if i == "clip-two-semantics-out")
    res = R.compile_hlsl(src, "main", "vs_6_0", "spirv")
    dis = tools.spirv_dis(res.binary)
    assert len(re.findall(r"OpDecorate %\S+ BuiltIn ClipDistance", dis)) == 1, dis
    assert re.search(r"%_arr_float_uint_4 = OpTypeArray", dis), dis
    clip = [o for o in res.manifest["entry"]["outputs"] if o["semantic"] == "SV_ClipDistance"]
    assert [(o["index"], o["builtin"], o["array_offset"], o["type"]) for o in clip] == [
        (0, "ClipDistance", 0, "float"), (1, "ClipDistance", 1, "float3")]


@pytest.mark.parametrize(("src", "message"), [
    ("float4 main(out float4 c : SV_ClipDistance0, out float4 d : SV_ClipDistance1, out float e : SV_CullDistance)"
     " : SV_Position { c = 1; d = 1; e = 1; return 1; }", "at most 8 clip and cull distance components"),
    ("float4 main(out uint2 c : SV_ClipDistance) : SV_Position { c = 1; return 1; }",
     "requires a float, float2, float3, float4 or float[n]"),
    ("float4 main(out float2 c[2] : SV_ClipDistance) : SV_Position { c[0] = 1; c[1] = 1; return 1; }",
     "requires a float, float2, float3, float4 or float[n]"),
])
def test_clip_distance_errors_are_located(src, message):
    res = R.compile_hlsl(src, "main", "vs_6_0", "spirv")
    errs = R.errors(res)
    assert errs and errs[0].startswith("1:") and message in errs[0], errs


# ---------------------------------------------------------------- executed on lavapipe (and from DXIL)
# R.draw builds both shaders (spirv-val), draws on lavapipe, then draws the DXIL twins through
# dxil-spirv and requires the same pixels.  Pixels are row-major from the top (Vulkan: NDC y = +1 is
# the bottom row).  Not executed (the harness has no multisampling, stencil buffer, layered target,
# multiview render pass, or the barycentric / conservative-rasterisation / shading-rate features):
# SV_DepthGreaterEqual, SV_DepthLessEqual, SV_StencilRef, SV_RenderTargetArrayIndex,
# SV_ViewportArrayIndex, SV_ViewID, SV_Barycentrics, GetAttributeAtVertex, SV_ShadingRate,
# SV_InnerCoverage (compiled and validated above); SV_SampleIndex and SV_Coverage run single-sampled.

W = H = 8
RED, CLEAR = (255, 0, 0, 255), (0, 0, 0, 0)


def _ndc(i: int, n: int) -> float:
    return (i + 0.5) / n * 2 - 1


VS_CLIP = """
struct O { float4 pos : SV_Position; float c0 : SV_ClipDistance0; float2 c1 : SV_ClipDistance1; };
O main(uint id : SV_VertexID) {
    O o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(uv * 2.0 - 1.0, 0.0, 1.0);
    o.c0 = o.pos.x;                  // clips x < 0
    o.c1 = float2(1.0, o.pos.y);     // .y clips y < 0
    return o;
}
"""
PS_RED = "float4 main() : SV_Target { return float4(1, 0, 0, 1); }"


def test_clip_distances_clip_the_triangle():
    """Two SV_ClipDistance semantics (one float array in SPIR-V, two elements in DXIL) both clip."""
    px = R.draw(VS_CLIP, PS_RED, W, H)
    for y in range(H):
        for x in range(W):
            want = RED if _ndc(x, W) > 0 and _ndc(y, H) > 0 else CLEAR
            assert R.pixel(px, W, x, y) == want, (x, y)


VS_CLIP_IN = """
struct O { float4 pos : SV_Position; float c : SV_ClipDistance; };
O main(uint id : SV_VertexID) {
    O o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(uv * 2.0 - 1.0, 0.0, 1.0);
    o.c = o.pos.x;
    return o;
}
"""
GS_CLIP = """
struct I { float4 pos : SV_Position; float c : SV_ClipDistance; };
struct O { float4 pos : SV_Position; float c0 : SV_ClipDistance0; float2 c1 : SV_ClipDistance1; };
[maxvertexcount(3)]
void main(triangle I v[3], inout TriangleStream<O> s) {
    for (uint i = 0; i < 3; i++) {
        O o;
        o.pos = v[i].pos;
        o.c0 = v[i].c;                      // the vertex shader's distance: clips x < 0
        o.c1 = float2(1.0, v[i].pos.y);     // .y clips y < 0
        s.Append(o);
    }
}
"""


def test_geometry_shader_reads_and_writes_clip_distances():
    """A geometry shader reads the per-vertex SV_ClipDistance and writes two clip-distance semantics
    (SPIR-V: float arrays per vertex and one float[3] output, written at each Append): both clip."""
    px = R.draw(VS_CLIP_IN, PS_RED, W, H, gs_src=GS_CLIP)
    for y in range(H):
        for x in range(W):
            want = RED if _ndc(x, W) > 0 and _ndc(y, H) > 0 else CLEAR
            assert R.pixel(px, W, x, y) == want, (x, y)


VS_QUAD = """
struct O { float4 pos : SV_Position; nointerpolation bool second : FLAG; uint tenfold : TEN; };
O main(uint id : SV_VertexID) {
    float2 v[6] = { float2(-1, -1), float2(1, -1), float2(-1, 1),    // primitive 0: x + y < 0
                    float2(1, 1), float2(-1, 1), float2(1, -1) };    // primitive 1 (provoking vertex 3)
    O o;
    o.pos = float4(v[id], 0, 1);
    o.second = id >= 3;
    o.tenfold = id * 10;            // an integer without nointerpolation: flat from the provoking vertex
    return o;
}
"""
PS_QUAD = """
float4 main(uint prim : SV_PrimitiveID, nointerpolation bool second : FLAG, uint tenfold : TEN) : SV_Target {
    return float4(second ? 1.0 : 0.0, tenfold / 255.0, prim * 100 / 255.0, 1);
}
"""


def test_primitive_id_bool_and_integer_interstage_values():
    px = R.draw(VS_QUAD, PS_QUAD, W, H, vertex_count=6)
    for y in range(H):
        for x in range(W):
            s = _ndc(x, W) + _ndc(y, H)
            if abs(s) < 1e-6:
                continue                # on the shared edge: the fill rule picks one
            prim = 0 if s < 0 else 1
            want = (255 * prim, 30 * prim, 100 * prim, 255)   # provoking vertex 0 or 3: tenfold 0 or 30
            assert R.pixel(px, W, x, y) == want, (x, y)


PS_COVERAGE = """
float4 main(float4 pos : SV_Position, out uint mask : SV_Coverage) : SV_Target {
    mask = pos.x < 4.0 ? 0u : 0xFFFFFFFFu;     // no samples left: the pixel is not written
    return float4(1, 0, 0, 1);
}
"""


def test_coverage_output_masks_samples():
    px = R.draw(R.FULLSCREEN_VS, PS_COVERAGE, W, H)
    for y in range(H):
        for x in range(W):
            assert R.pixel(px, W, x, y) == (CLEAR if x < 4 else RED), (x, y)


# ---------------------------------------------------------------- the manifest's signatures

VS_SIG = """
struct O { float4 p : SV_Position; float c : SV_ClipDistance0; float2 d : SV_ClipDistance1;
           nointerpolation uint id : ID; float2 uv : TEXCOORD3; noperspective float3 n : NORMAL; float4x2 m : M; };
O main(uint v : SV_VertexID, float3 pos : POSITION, float2 t[2] : T) {
    O o = (O)0; o.p = pos.xyzz; o.c = 1; o.d = t[1]; o.id = v; o.uv = t[0]; o.n = pos; o.m[1] = t[1]; return o;
}
"""


def _mask_letters(mask: int) -> str:
    return "".join(c for i, c in enumerate("xyzw") if mask >> i & 1)


def test_manifest_dxil_signature_matches_the_container():
    """Every ISG1/OSG1 row (obj2yaml's decoding of the container) is in the manifest's entry
    signature with the same register and mask; the manifest's rows cover exactly those rows."""
    res = R.compile_hlsl(VS_SIG, "main", "vs_6_0", "dxil")
    assert res.ok, R.diagnostics_text(res)
    parts = {p["Name"]: p for p in dxil_tools.read_dxil(res.binary).container["Parts"]}
    for side, tag in (("inputs", "ISG1"), ("outputs", "OSG1")):
        rows = {(p["Name"].upper(), p["Index"]): (p["Register"], _mask_letters(p["Mask"]))
                for p in parts[tag]["Signature"]["Parameters"]}
        got = {}
        for e in res.manifest["entry"][side]:
            for r in range(e["rows"]):
                got[(e["semantic"].upper(), e["index"] + r)] = (e["register"] + r, e["mask"])
        assert got == rows, side
    interp = {(e["semantic"], e["index"]): e.get("interpolation") for e in res.manifest["entry"]["outputs"]}
    assert interp[("ID", 0)] == "nointerpolation" and interp[("NORMAL", 0)] == "noperspective"
    assert interp[("SV_Position", 0)] == "noperspective" and interp[("TEXCOORD", 3)] == "linear"


def test_manifest_spirv_signature_has_locations_and_builtins():
    res = R.compile_hlsl(VS_SIG, "main", "vs_6_0", "spirv")
    assert res.ok, R.diagnostics_text(res)
    dis = tools.spirv_dis(res.binary)
    names = dict(re.findall(r'OpName (%\S+) "([^"]+)"', dis))
    locations = {names[v]: int(n) for v, n in re.findall(r"OpDecorate (%\S+) Location (\d+)", dis)}
    out = {(e["semantic"], e["index"]): e for e in res.manifest["entry"]["outputs"]}
    assert out[("SV_Position", 0)]["builtin"] == "Position"
    assert [(out[("SV_ClipDistance", i)]["array_offset"], out[("SV_ClipDistance", i)]["type"])
            for i in (0, 1)] == [(0, "float"), (1, "float2")]
    # each Location in the manifest is the one decorated on the variable named after the semantic
    # (the entry wrapper names them in.<semantic as written> / out.<...>)
    listed = {}
    for side, prefix in (("inputs", "in"), ("outputs", "out")):
        for e in res.manifest["entry"][side]:
            if "location" in e:
                listed[f"{prefix}.{e['semantic']}{e['index'] or ''}"] = e["location"]
    assert listed == locations == {"in.POSITION": 0, "in.T": 1, "out.ID": 0, "out.TEXCOORD3": 1, "out.NORMAL": 2,
                                   "out.M": 3}


# ---------------------------------------------------------------- EvaluateAttribute*

PS_EVALUATE = """
struct I { float4 pos : SV_Position; float2 uv : TEXCOORD0; };
float4 main(I i) : SV_Target {
    float2 s = EvaluateAttributeAtSample(i.uv, 0);         // one sample: the pixel centre
    float c = EvaluateAttributeCentroid(i.uv.y);           // fully covered: the pixel centre
    float2 o = EvaluateAttributeSnapped(i.uv, int2(8, 0));  // 8/16 pixel to the right
    return float4(s.x, c, o.x, s.y);
}
"""


def test_evaluate_attribute_runs():
    """Single-sampled, every evaluation is at the centre except the snapped offset (+1/2 pixel in x)."""
    px = R.draw(R.FULLSCREEN_VS, PS_EVALUATE, W, H)
    for y in range(H):
        for x in range(W):
            want = (R.unorm8((x + 0.5) / W), R.unorm8((y + 0.5) / H), R.unorm8((x + 1.0) / W),
                    R.unorm8((y + 0.5) / H))
            got = R.pixel(px, W, x, y)
            assert all(abs(g - w) <= 1 for g, w in zip(got, want)), ((x, y), got, want)


EVALUATE_VALID = [
    ("member-array-element", "struct I { float4 c[2] : COLOR; }; float4 main(I i) : SV_Target"
                             " { return EvaluateAttributeSnapped(i.c[1], int2(-8, 7)); }"),
    ("swizzled-parameter", "float4 main(float3 n : NORMAL, sample float s : S) : SV_Target"
                           " { return EvaluateAttributeCentroid(n.zy).xyxy + EvaluateAttributeAtSample(s, 1); }"),
    ("noperspective", "float4 main(noperspective float2 t : T) : SV_Target"
                      " { return EvaluateAttributeCentroid(t).xyxy; }"),
]


@pytest.mark.parametrize("src", [pytest.param(s, id=i) for i, s in EVALUATE_VALID])
def test_evaluate_attribute_gives_valid_output(src):
    _check_spirv(src, "ps_6_0")
    assert _check_dxil(src, "ps_6_0").spirv is not None


@pytest.mark.parametrize(("src", "where", "message"), [
    ("float4 main(float2 t : T) : SV_Target { t *= 2; return EvaluateAttributeCentroid(t).xyxy; }",
     "arg", "needs an unmodified pixel shader input: 't' is assigned"),
    ("float4 main(float2 t : T) : SV_Target { float2 u = t; return EvaluateAttributeCentroid(u).xyxy; }",
     "arg", "needs a pixel shader input"),
    ("float4 main(nointerpolation float2 t : T) : SV_Target { return EvaluateAttributeCentroid(t).xyxy; }",
     "arg", "needs an interpolated float input"),
    ("float4 main(float4 p : SV_Position) : SV_Target { return EvaluateAttributeCentroid(p); }",
     "arg", "cannot evaluate system value 'SV_Position'"),
    ("float f(float2 t) { return EvaluateAttributeCentroid(t).x; }\n"      # a helper's parameter: not an input
     "float4 main(float2 t : T) : SV_Target { return f(t * 2); }",
     "arg", "needs a pixel shader input"),
    ("float4 main(float4 p : P) : SV_Position { return EvaluateAttributeCentroid(p); }",
     "call", "is not allowed in vertex shaders"),
])
def test_evaluate_attribute_errors_are_located(src, where, message):
    """Located at the attribute argument (or, for a stage error, at the call), found in the text."""
    profile = "vs_6_0" if "SV_Position {" in src else "ps_6_0"
    line = next(i for i, text in enumerate(src.splitlines(), 1) if "EvaluateAttribute" in text)
    text = src.splitlines()[line - 1]
    col = text.index("EvaluateAttribute") + 1 + (text[text.index("EvaluateAttribute"):].index("(") + 1
                                                  if where == "arg" else 0)
    where = f"{line}:{col}"
    for target in ("spirv", "dxil"):
        errs = R.errors(R.compile_hlsl(src, "main", profile, target))
        assert errs and errs[0].startswith(where + ":") and message in errs[0], errs


# ---------------------------------------------------------------- GetAttributeAtVertex (SM 6.1)

PS_AT_VERTEX = """
float4 main(float3 b : SV_Barycentrics, nointerpolation float4 c : COLOR, nointerpolation uint2 k : K) : SV_Target {
    float4 v = GetAttributeAtVertex(c, 0) * b.x + GetAttributeAtVertex(c, 1) * b.y + GetAttributeAtVertex(c, 2) * b.z;
    return v + c + GetAttributeAtVertex(k, 2).y;
}
"""


def test_attribute_at_vertex_gives_valid_output():
    """SPIR-V: the inputs become PerVertexKHR arrays; DXIL: attributeAtVertex per component."""
    _check_spirv(PS_AT_VERTEX, "ps_6_1")
    assert _check_dxil(PS_AT_VERTEX, "ps_6_1").spirv is not None
    dis = tools.spirv_dis(R.compile_hlsl(PS_AT_VERTEX, "main", "ps_6_1", "spirv").binary)
    assert re.search(r"OpDecorate %in_COLOR PerVertexKHR", dis) and re.search(r"OpDecorate %in_K PerVertexKHR", dis)
    ir_text = dxil_tools.read_dxil(R.compile_hlsl(PS_AT_VERTEX, "main", "ps_6_1", "dxil").binary).ir
    # c at vertices 0, 1, 2 (4 components each) and k.y at vertex 2
    assert len(re.findall(r"call float @dx\.op\.attributeAtVertex\.f32\(i32 137", ir_text)) == 12
    assert len(re.findall(r"call i32 @dx\.op\.attributeAtVertex\.i32\(i32 137, i32 2, i32 0, i8 1, i8 2\)", ir_text)) == 1


@pytest.mark.parametrize(("src", "profile", "message"), [
    ("float4 main(float4 c : COLOR) : SV_Target { return GetAttributeAtVertex(c, 1); }", "ps_6_1",
     "needs a nointerpolation input"),
    ("float4 main(nointerpolation float4 c : COLOR, nointerpolation uint i : I) : SV_Target"
     " { return GetAttributeAtVertex(c, i); }", "ps_6_1", "needs a constant vertex index 0, 1 or 2"),
    ("float4 main(nointerpolation float4 c : COLOR) : SV_Target { return GetAttributeAtVertex(c, 3); }", "ps_6_1",
     "needs a constant vertex index 0, 1 or 2"),
    ("float4 main(nointerpolation float4 c : COLOR) : SV_Target { return GetAttributeAtVertex(c, 1); }", "ps_6_0",
     "requires shader model 6.1"),
])
def test_attribute_at_vertex_errors_are_located(src, profile, message):
    for target in ("spirv", "dxil"):
        errs = R.errors(R.compile_hlsl(src, "main", profile, target))
        assert errs and errs[0].startswith("1:") and message in errs[0], errs


def test_view_id_is_recorded_in_psv0():
    """SV_ViewID (the viewID op): PSV0 says UsesViewID and masks the output components computed
    from it: here c (register 1, all four) in the VS, and component y of the target in the PS."""
    cases = [("vs_6_1", "struct O { float4 p : SV_Position; float4 c : C; };"
                        " O main(uint v : SV_ViewID, float4 x : X) { O o; o.p = x; o.c = x * v; return o; }",
              [0b1111 << 4]),
             ("ps_6_1", "float4 main(uint v : SV_ViewID, float4 x : X) : SV_Target { return float4(x.x, v, 0, 1); }",
              [0b0010])]
    for profile, src, masks in cases:
        checked = _check_dxil(src, profile)
        psv = {p["Name"]: p for p in checked.container["Parts"]}["PSV0"]["PSVInfo"]
        assert psv["UsesViewID"] == 1
        assert psv["OutputVectorMasks"][0] == masks
        assert checked.spirv is not None


VS_DEPTH = """
float4 main(uint id : SV_VertexID) : SV_Position {
    // two full-screen triangles, drawn in order: the first at z = 0.9 (its pixel shader replaces
    // that depth), the second at z = 0.5
    float2 uv = float2(((id % 3) << 1) & 2, (id % 3) & 2);
    return float4(uv * 2.0 - 1.0, id < 3 ? 0.9 : 0.5, 1.0);
}
"""
PS_DEPTH = """
struct O { float4 color : SV_Target; float depth : SV_Depth; };
O main(float4 pos : SV_Position) {
    O o;
    bool first = pos.z > 0.7;                           // the interpolated z says which triangle
    o.color = first ? float4(1, 0, 0, 1) : float4(0, 1, 0, 1);
    o.depth = first ? (pos.x < 4.0 ? 0.25 : 0.75) : pos.z;   // left: in front of the second triangle
    return o;
}
"""


def test_depth_output_is_depth_tested():
    """SV_Depth replaces the first triangle's depth: where it wrote 0.25 the second triangle
    (z = 0.5, depth test LESS) is hidden and red stays; where it wrote 0.75 green covers it."""
    px = R.draw(VS_DEPTH, PS_DEPTH, W, H, vertex_count=6, depth=1.0)
    for y in range(H):
        for x in range(W):
            assert R.pixel(px, W, x, y) == ((255, 0, 0, 255) if x < 4 else (0, 255, 0, 255)), (x, y)


PS_SAMPLE_COVERAGE = """
float4 main(float4 pos : SV_Position, uint s : SV_SampleIndex, uint c : SV_Coverage) : SV_Target {
    return float4(s == 0 ? 1.0 : 0.0, c / 255.0, (s + 7) / 255.0, 1);
}
"""


def test_sample_index_and_coverage_inputs_run():
    """The harness draws single-sampled: sample 0 and coverage mask 1 in every pixel
    (SV_SampleIndex makes the shader run per sample; with one sample that is per pixel)."""
    px = R.draw(R.FULLSCREEN_VS, PS_SAMPLE_COVERAGE, W, H)
    for y in range(H):
        for x in range(W):
            assert R.pixel(px, W, x, y) == (255, 1, 7, 255), (x, y)


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_signature_manifests_match_the_schema(target):
    """The signature fields (register, mask, rows, array_offset, interpolation) are in the schema."""
    import json
    from importlib import resources

    import jsonschema
    schema = json.loads(resources.files("shaderbuild.reflect").joinpath("manifest.schema.json").read_text())
    for profile, src in (("vs_6_0", VS_SIG), ("ps_6_1", PS_AT_VERTEX), ("ps_6_0", PS_SAMPLE_COVERAGE)):
        res = R.compile_hlsl(src, "main", profile, target)
        assert res.ok, R.diagnostics_text(res)
        jsonschema.validate(res.manifest, schema)


@pytest.mark.parametrize(("sv", "stage", "direction"), [("SV_RenderTargetArrayIndex", "hull", "in"),
                                                       ("SV_ViewportArrayIndex", "hull", "out"),
                                                       ("SV_IsFrontFace", "geometry", "out"),
                                                       ("SV_InstanceID", "geometry", "in")])
def test_system_value_without_a_vulkan_builtin_is_a_location(sv, stage, direction):
    """Where Vulkan has no built-in for a system value D3D allows, it is an ordinary Location (DXC's SPIR-V.rst),
    after the entry's other Locations (a viewport index one further: the layer's Location comes first, taken or
    not, docs/CONFORMANCE.md)."""
    prefix, src = _source(sv, stage, direction)
    res = R.compile_hlsl(src, "main", _profile(prefix, D3D[sv][1]), "spirv")
    assert res.ok, R.diagnostics_text(res)
    dis = tools.spirv_dis(res.binary)
    names = dict(re.findall(r'OpName (%\S+) "([^"]+)"', dis))
    located = {names[v]: int(n) for v, n in re.findall(r"OpDecorate (%\S+) Location (\d+)", dis)}
    side = "in" if direction == "in" else "out"
    mine = [n for n in located if n.startswith(f"{side}.") and sv.upper() in n.upper()]
    assert len(mine) == 1, located
    others = [loc for n, loc in located.items() if n.startswith(f"{side}.") and n != mine[0]]
    assert located[mine[0]] == max(others, default=-1) + 1 + (sv == "SV_ViewportArrayIndex")
