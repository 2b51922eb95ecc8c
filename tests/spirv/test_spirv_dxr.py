"""DXR libraries in SPIR-V (issue 18): one module, one OpEntryPoint per shader with its ray-tracing
execution model, payloads / hit attributes / callable data in the SPV_KHR_ray_tracing storage classes
with unique Locations per entry point, every global an entry point uses in its interface, the
ray-tracing instructions (IgnoreHit and AcceptHitAndEndSearch end their block), and spirv-val
(Vulkan 1.2 and 1.3) accepting the module at -O0, -O3 and with -Zi."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from harness import tools
from passes.passutil import expected, sema_module, text
from shaderbuild_spirv.raytracing import ray_interface

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions
from shaderbuild.passes import entry_wrapper

LIB = """
struct Payload { float4 color; };
struct Attr { float2 uv; };
struct Params { uint value; };
RaytracingAccelerationStructure scene : register(t0);
RWTexture2D<float4> image : register(u1);
StructuredBuffer<float4> colors : register(t2);

[shader("raygeneration")]
void rg() {
    RayDesc ray = { float3(DispatchRaysIndex().xy, 0), 0.0, float3(0, 0, 1), 9.0 };
    Payload p = { float4(0, 0, 0, 0) };
    TraceRay(scene, RAY_FLAG_NONE, 0xff, 0, 1, 0, ray, p);
    Params c = { 7 };
    CallShader(0, c);
    image[DispatchRaysIndex().xy] = p.color + c.value;
}
[shader("miss")]
void ms(inout Payload p) { p.color = colors[0]; }
[shader("closesthit")]
void ch(inout Payload p, BuiltInTriangleIntersectionAttributes a) {
    p.color = float4(a.barycentrics, ObjectToWorld3x4()[0][3], WorldToObject4x3()[3][0]);
}
[shader("anyhit")]
void ah(inout Payload p, Attr a) {
    if (a.uv.x > 0.5) IgnoreHit();
    if (a.uv.y > 0.5) AcceptHitAndEndSearch();
    p.color.x += 1;
}
[shader("intersection")]
void isect() { Attr a = { float2(RayTCurrent(), 0) }; ReportHit(RayTMin(), 0, a); }
[shader("callable")]
void cs(inout Params c) { c.value += DispatchRaysDimensions().x; }
"""
MODELS = {"rg": "RayGeneration", "ms": "Miss", "ch": "ClosestHit", "ah": "AnyHit", "isect": "Intersection",
          "cs": "Callable"}


def _compile(src: str = LIB, env: str = "vulkan1.2", profile: str = "lib_6_3", **kw):
    return compile_file("dxr.hlsl", CompileOptions(profile=profile, entry="", target="spirv", vk_target_env=env,
                                                   **kw), text=src)


def _spirv(src: str = LIB, **kw) -> str:
    res = _compile(src, **kw)
    assert res.ok, [d.message for d in res.diagnostics]
    for env in ("vulkan1.2", "vulkan1.3"):
        tools.spirv_val(res.binary, env=env)
    return tools.spirv_dis(res.binary)


def _entry_points(dis: str) -> dict[str, tuple[str, list[str]]]:
    """name -> (execution model without its KHR/NV suffix, interface variable names)."""
    out = {}
    for m in re.finditer(r"OpEntryPoint (\w+?)(?:KHR|NV) %\w+ \"(\w+)\"((?: %\w+)*)", dis):
        out[m.group(2)] = (m.group(1), m.group(3).split())
    return out


def _decorations(dis: str, name: str) -> set[str]:
    return {m.group(1) for m in re.finditer(rf"OpDecorate %{re.escape(name)} (.+)", dis)}


@pytest.mark.parametrize("opt", [0, 3])
def test_one_entry_point_per_shader_with_its_interface(opt):
    dis = _spirv(opt_level=opt)
    eps = _entry_points(dis)
    assert {n: model for n, (model, _) in eps.items()} == MODELS
    # the storage class of every ray-tracing variable, and who lists it
    assert "%ms_p = OpVariable %_ptr_IncomingRayPayload" in dis and "%ch_a = OpVariable %_ptr_HitAttribute" in dis
    assert re.search(r"%cs_c = OpVariable %_ptr_IncomingCallableData\w+ IncomingCallableData", dis)
    trace = re.search(r"%(TraceRay_\w+) = OpVariable %_ptr_RayPayload\w+ RayPayload", dis).group(1)
    call = re.search(r"%(CallShader_\w+) = OpVariable %_ptr_CallableData\w+ CallableData", dis).group(1)
    attr = re.search(r"%(hit_attributes_\w+) = OpVariable %_ptr_HitAttribute\w+ HitAttribute", dis).group(1)
    assert {"%scene", "%image", f"%{trace}", f"%{call}", "%gl_LaunchIdKHR"} <= set(eps["rg"][1])
    assert f"%{trace}" not in eps["ms"][1] and "%colors" in eps["ms"][1] and "%ms_p" in eps["ms"][1]
    assert "%scene" not in eps["ms"][1]
    assert {"%ch_p", "%ch_a"} <= set(eps["ch"][1])
    assert f"%{attr}" in eps["isect"][1] and "%ch_a" not in eps["isect"][1]
    assert "%cs_c" in eps["cs"][1] and "%gl_LaunchSizeKHR" in eps["cs"][1]


def test_payload_and_callable_locations_are_unique_per_entry_point():
    dis = _spirv()
    trace = re.search(r"%(TraceRay_\w+) = OpVariable", dis).group(1)
    call = re.search(r"%(CallShader_\w+) = OpVariable", dis).group(1)
    # payloads: the shaders' own in shader order (ms, ch, ah), then the call site; callable data likewise
    assert [_decorations(dis, n) for n in ("ms_p", "ch_p", "ah_p", trace)] == [
        {"Location 0"}, {"Location 1"}, {"Location 2"}, {"Location 3"}]
    assert [_decorations(dis, n) for n in ("cs_c", call)] == [{"Location 0"}, {"Location 1"}]
    assert _decorations(dis, "ch_a") == set()      # hit attributes have no Location


def test_ray_tracing_instructions():
    dis = _spirv(opt_level=0)
    assert re.search(r"OpTraceRayKHR %\w+ %uint_0 %uint_255 %uint_0 %uint_1 %uint_0 %\w+ %\w+ %\w+ %\w+ %TraceRay_\w+",
                     dis)
    assert re.search(r"OpExecuteCallableKHR %uint_0 %CallShader_\w+", dis)
    assert re.search(r"= OpReportIntersectionKHR %bool %\w+ %uint_0", dis)
    assert "OpTranspose %mat3v4float" in dis        # ObjectToWorld3x4 is the transposed 4x3 built-in
    for op in ("OpIgnoreIntersectionKHR", "OpTerminateRayKHR"):     # each ends its block
        lines = dis.splitlines()
        i = next(k for k, line in enumerate(lines) if line.strip() == op)
        assert "OpLabel" in lines[i + 1]
    for builtin in ("LaunchId", "LaunchSize", "ObjectToWorld", "WorldToObject", "RayTmin", "RayTmax"):
        assert re.search(rf"OpDecorate %\w+ BuiltIn {builtin}(KHR|NV)", dis), builtin


def test_minus_e_selects_one_shader():
    res = compile_file("dxr.hlsl", CompileOptions(profile="lib_6_3", entry="ch", target="spirv",
                                                  vk_target_env="vulkan1.2"), text=LIB)
    assert res.ok
    assert list(_entry_points(tools.spirv_dis(res.binary))) == ["ch"]


def test_debug_info_and_determinism():
    dis = _spirv(debug_info=True)
    assert dis.count("DebugEntryPoint") == len(MODELS)
    assert _compile().binary == _compile().binary


def test_vulkan_1_1_is_refused_with_a_located_diagnostic():
    res = _compile(env="vulkan1.1")
    assert not res.ok
    d = res.diagnostics[0]
    assert d.loc is not None and d.loc.line == 10
    assert d.message == ("ray-tracing libraries need SPIR-V 1.4 (SPV_KHR_ray_tracing); the target environment "
                         "vulkan1.1 is SPIR-V 1.3: use -fspv-target-env=vulkan1.2 or newer")


def test_two_attribute_types_in_one_intersection_shader_are_refused():
    src = LIB.replace("ReportHit(RayTMin(), 0, a); }",
                      "ReportHit(RayTMin(), 0, a); Params b = { 1 }; ReportHit(RayTMin(), 1, b); }")
    res = _compile(src)
    assert not res.ok
    assert res.diagnostics[0].message == (
        "intersection shader 'isect' reports hits with two attribute types ('Attr' and 'Params'); Vulkan gives "
        "an entry point one hit-attribute variable")


def test_cli_compiles_every_shader_without_minus_e(tmp_path):
    src = tmp_path / "lib.hlsl"
    src.write_text(LIB)
    out = tmp_path / "lib.spv"
    proc = subprocess.run([sys.executable, "-m", "shaderbuild", "compile", "-T", "lib_6_3", "-spirv",
                           "-fspv-target-env=vulkan1.2", str(src), "-Fo", str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert set(_entry_points(tools.spirv_dis(out.read_bytes()))) == set(MODELS)


SPACES = """
struct Payload { float4 color; uint depth; };
RaytracingAccelerationStructure scene : register(t0, space1);
RWTexture2D<float4> image : register(u1, space1);
cbuffer Local : register(b0, space2) { float4 tint; };     // a local root signature's constants
static float3 dir = normalize(float3(0, 0, 1) + tint.xyz * 0);

void shoot(inout Payload p, float3 o) {     // called by two shaders: a payload variable per call site
    RayDesc ray = { o, 0.0, dir, 100.0 };
    TraceRay(scene, RAY_FLAG_NONE, 0xff, 0, 1, 0, ray, p);
}
[shader("raygeneration")]
void rg() {
    Payload p = { float4(0, 0, 0, 0), 0 };
    shoot(p, float3(DispatchRaysIndex().xy, 0));
    image[DispatchRaysIndex().xy] = p.color;
}
[shader("closesthit")]
void ch(inout Payload p, BuiltInTriangleIntersectionAttributes a) {
    if (p.depth < 2) { p.depth++; shoot(p, WorldRayOrigin() + WorldRayDirection() * RayTCurrent()); }
    p.color += tint;
}
[shader("miss")]
void ms(inout Payload p) { p.color = float4(dir, 1); }
"""


@pytest.mark.parametrize("opt", [0, 3])
def test_resources_in_spaces_shared_helpers_statics_and_recursion(opt):
    dis = _spirv(SPACES, opt_level=opt)
    assert [_decorations(dis, n) for n in ("scene", "image", "Local")] == [
        {"DescriptorSet 1", "Binding 0"}, {"DescriptorSet 1", "Binding 1"}, {"DescriptorSet 2", "Binding 0"}]
    eps = _entry_points(dis)
    assert set(eps) == {"rg", "ch", "ms"}
    assert "%scene" in eps["ch"][1] and "%dir" in eps["ms"][1]     # the static, initialised in each shader


def test_ray_query_in_a_library_shares_method_names_with_the_system_values():
    """q.RayTMin() (a RayQuery method) and RayTMin() (the DXR system value) are different intrinsics of
    one name; a library without ray queries declares no RayQueryKHR capability."""
    assert "RayQueryKHR" not in _spirv()
    src = LIB.replace("void ms(inout Payload p) { p.color = colors[0]; }", """void ms(inout Payload p) {
    RayQuery<RAY_FLAG_NONE> q;
    RayDesc ray = { WorldRayOrigin(), 0.5, WorldRayDirection(), 2.0 };
    q.TraceRayInline(scene, 0, 0xff, ray);
    q.Proceed();
    p.color = float4(q.RayTMin(), RayTMin(), q.WorldRayDirection().x, WorldRayDirection().x);
}""")
    dis = _spirv(src, opt_level=0, profile="lib_6_5")
    assert "OpCapability RayQueryKHR" in dis and "OpRayQueryGetRayTMinKHR" in dis
    assert re.search(r"OpDecorate %\w+ BuiltIn RayTmin(KHR|NV)", dis)


def test_ray_interface_raise_pass():
    """IR in -> IR out: the wrappers' parameters become incoming variables, and every TraceRay /
    CallShader / ReportHit passes a variable of its storage class, copied in (and out, when inout)."""
    module, options = sema_module("""
struct Payload { float4 color; };
struct Attr { float t; };
struct Params { uint n; };
RaytracingAccelerationStructure scene;
[shader("miss")]
void ms(inout Payload p) { Params c = { 1 }; CallShader(0, c); p.color = c.n; }
[shader("closesthit")]
void ch(inout Payload p, Attr a) { TraceRay(scene, 0, 0xff, 0, 1, 0, (RayDesc)0, p); }
[shader("intersection")]
void is() { Attr a = { 1.0 }; ReportHit(1.0, 0, a); }
""", profile="lib_6_3")
    entry_wrapper.run(module, options)
    ray_interface(module, options)
    got = text(module)
    assert got.split("fn src.ms")[0] == expected("""
        module library sm6.3
        global uniform scene: RaytracingAccelerationStructure register(tNone, space0) count=1
        global incoming_ray_payload ms.p: Payload
        global incoming_ray_payload ch.p: Payload
        global hit_attribute ch.a: Attr
        global callable_data CallShader.callable_data.1: Params
        global ray_payload TraceRay.payload.2: Payload
        global hit_attribute hit.attributes.Attr: Attr
    """)
    for block in ("""
        fn src.is() -> void {
          local a: Attr
          local attributes.3: Attr
          local accepted.4: bool
          store %a = Attr(1.0:float)
          store %attributes.3 = load(%a)
          store %hit.attributes.Attr = load(%attributes.3)
          store %accepted.4 = ReportHit(1.0:float, 0:uint, %hit.attributes.Attr):bool
        }
    """, """
        fn ch() -> void {
          local p.arg: Payload
          store %p.arg = load(%ch.p)
          eval call src.ch(%p.arg, load(%ch.a))
          store %ch.p = load(%p.arg)
          return
        }
    """, """
        fn src.ms(inout p: Payload) -> void {
          local c: Params
          local callable_data.1: Params
          store %c = Params(1:uint)
          store %callable_data.1 = load(%c)
          store %CallShader.callable_data.1 = load(%callable_data.1)
          eval CallShader(0:uint, %CallShader.callable_data.1):void
          store %callable_data.1 = load(%CallShader.callable_data.1)
          store %c = load(%callable_data.1)
    """):
        assert expected(block).strip("\n") in got
    locations = {g.name: g.io.location for g in module.globals if g.io is not None}
    assert locations == {"ms.p": 0, "ch.p": 1, "TraceRay.payload.2": 2, "CallShader.callable_data.1": 0}


RAY_STATE = """
struct Payload { float4 color; };
struct Attr { float t; };
RaytracingAccelerationStructure scene;
float tnow() { return RayTCurrent(); }
uint which() { return InstanceID() + PrimitiveIndex(); }
[shader("closesthit")]
void ch(inout Payload p, Attr a) {
    TraceRay(scene, 0, 0xff, 0, 1, 0, (RayDesc)0, p);
    p.color = float4(which(), tnow(), RayTCurrent(), HitKind());
}
[shader("intersection")]
void is() { Attr a = { tnow() }; ReportHit(RayTMin(), 0, a); a.t = RayTCurrent() + which(); ReportHit(a.t, 0, a); }
"""


def test_hit_shaders_read_their_ray_state_once_at_their_start():
    """Each hit / intersection shader stores the ray-state built-ins it reads into Private variables before
    anything else, and every read (in helpers too) loads the variable; an intersection shader's RayTCurrent,
    which ReportHit may change, stays a read where it is written, also in a helper it shares with a
    closest-hit shader."""
    module, options = sema_module(RAY_STATE, profile="lib_6_3")
    entry_wrapper.run(module, options)
    ray_interface(module, options)
    got = "\n".join(line.strip() for line in text(module).splitlines())     # blocks compared without indents
    for block in ("""
        fn which() -> uint {
          return add(load(%ray.InstanceID), load(%ray.PrimitiveIndex))
        }
        fn tnow() -> float {
          return RayTCurrent():float
        }
    """, """
          store %tmp.2 = call which()
          store %tmp.3 = call tnow()
          store %p.f0 = float4(convert<float>(load(%tmp.2)), load(%tmp.3), load(%ray.RayTCurrent), convert<float>(load(%ray.HitKind)))
    """, """
          store %accepted.6 = ReportHit(load(%ray.RayTMin), 0:uint, %hit.attributes.Attr):bool
          store %tmp.7 = call which()
          store %a.f0 = add(RayTCurrent():float, convert<float>(load(%tmp.7)))
    """, """
        fn ch() -> void {
          local p.arg: Payload
          store %ray.RayTCurrent = RayTCurrent():float
          store %ray.InstanceID = InstanceID():uint
          store %ray.PrimitiveIndex = PrimitiveIndex():uint
          store %ray.HitKind = HitKind():uint
          store %p.arg = load(%ch.p)
    """, """
        fn is() -> void {
          store %ray.RayTMin = RayTMin():float
          store %ray.InstanceID = InstanceID():uint
          store %ray.PrimitiveIndex = PrimitiveIndex():uint
          eval call src.is()
    """):
        assert "\n".join(line.strip() for line in block.strip("\n").splitlines()) in got
    assert "global private ray.RayTCurrent: float" in got

    dis = _spirv(RAY_STATE, opt_level=0)                # the helpers stay functions: spirv-val accepts it
    dis = _spirv(RAY_STATE, opt_level=3)                # inlined: the Private variables become SSA values

    def body(name: str) -> list[str]:
        lines = dis.splitlines()
        start = next(i for i, line in enumerate(lines) if line.strip().startswith(f"%{name} = OpFunction "))
        end = next(i for i in range(start, len(lines)) if lines[i].strip() == "OpFunctionEnd")
        return lines[start:end]

    def first(lines: list[str], pattern: str) -> int:
        return next(i for i, line in enumerate(lines) if re.search(pattern, line))

    ch, isect = body("ch"), body("is")
    assert "Private" not in dis
    for builtin in ("InstanceCustomIndexKHR", "PrimitiveId", "HitKindKHR", "RayTmaxKHR"):
        assert first(ch, rf"OpLoad %\w+ %gl_{builtin}") < first(ch, "OpTraceRayKHR"), builtin
    assert [line for line in ch if "OpLoad" in line and "%gl_" in line][4:] == []     # each loaded once
    tmax = [i for i, line in enumerate(isect) if re.search(r"OpLoad %float %gl_RayTmaxKHR", line)]
    assert tmax[-1] > first(isect, "OpReportIntersectionKHR")
