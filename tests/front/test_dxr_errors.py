"""DXR ray-tracing libraries (issue 18): the front end finds every [shader("...")] function, checks
each kind's parameters, and refuses an intrinsic a shader kind may not call with a located
diagnostic (the intrinsic table's stage limits, checked per shader of the library)."""

from __future__ import annotations

import pytest
from passes.passutil import sema_module

from shaderbuild.compiler import compile_file
from shaderbuild.ir.raytracing import RAY_DESC, TRIANGLE_ATTRIBUTES
from shaderbuild.options import CompileOptions

LIB = """\
struct [raypayload] Payload { float4 color : read(caller) : write(closesthit, miss); };
struct Attr { float2 uv; };
struct Params { uint value; };
RaytracingAccelerationStructure scene : register(t0);
RWTexture2D<float4> image : register(u1);

[shader("raygeneration")]
void rg() {
    RayDesc ray;
    ray.Origin = float3(DispatchRaysIndex().xy, 0); ray.TMin = 0; ray.Direction = float3(0, 0, 1); ray.TMax = 9;
    Payload p = { float4(0, 0, 0, 0) };
    TraceRay(scene, RAY_FLAG_NONE, 0xff, 0, 1, 0, ray, p);
    Params c = { 7 };
    CallShader(0, c);
    image[DispatchRaysIndex().xy] = p.color + c.value;
}
[shader("miss")]
void ms(inout Payload p) { p.color = float4(WorldRayDirection(), 1); }
[shader("closesthit")]
void ch(inout Payload p, BuiltInTriangleIntersectionAttributes a) { p.color = float4(a.barycentrics, HitKind(), 1); }
[shader("anyhit")]
void ah(inout Payload p, Attr a) { if (PrimitiveIndex() % 2 == 1) IgnoreHit(); }
[shader("intersection")]
void isect() { Attr a = { float2(0, 0) }; ReportHit(RayTMin(), 0, a); }
[shader("callable")]
void cs(inout Params c) { c.value += DispatchRaysDimensions().x; }
"""


def _compile(src: str, profile: str = "lib_6_3", entry: str = "main", payload_qualifiers: bool = False):
    return compile_file("dxr.hlsl", CompileOptions(profile=profile, entry=entry, target="spirv",
                                                   enable_payload_qualifiers=payload_qualifiers), text=src)


def _error(src: str, **kw) -> str:
    res = _compile(src, **kw)
    assert not res.ok
    d = next(d for d in res.diagnostics if d.severity == "error")
    where = f"{d.loc.line}:{d.loc.col}: " if d.loc is not None else ""
    return where + d.message


def test_library_entries_in_source_order_with_their_kinds():
    module, _ = sema_module(LIB, profile="lib_6_3")
    assert module.stage == "library" and module.entry is None
    assert [(e.name, e.stage) for e in module.entries] == [
        ("rg", "raygeneration"), ("ms", "miss"), ("ch", "closesthit"), ("ah", "anyhit"), ("isect", "intersection"),
        ("cs", "callable")]
    ch = module.entries[2].source_function
    assert [p.direction for p in ch.params] == ["inout", "in"]
    assert ch.params[1].var.type == TRIANGLE_ATTRIBUTES


def test_minus_e_selects_one_shader():
    module, _ = sema_module(LIB, profile="lib_6_3", entry="ch")
    assert [(e.name, e.stage) for e in module.entries] == [("ch", "closesthit")]


def test_trace_ray_takes_a_ray_desc_and_a_payload_temporary():
    module, _ = sema_module(LIB, profile="lib_6_3", entry="rg")
    from shaderbuild import ir

    calls = [x for f in module.functions for s in ir.walk_stmts(f.body) for e in ir.stmt_exprs(s)
             for x in ir.walk_expr(e) if isinstance(x, ir.Intrinsic) and x.name == "TraceRay"]
    assert len(calls) == 1
    args = calls[0].args
    assert args[0].type.kind == "RaytracingAccelerationStructure"
    assert args[6].type == RAY_DESC
    assert isinstance(args[7], ir.VarRef) and args[7].var.storage is ir.Storage.FUNCTION


CASES = [
    # (edit of LIB, expected "line:col: message")
    (("void ch(inout Payload p, BuiltInTriangleIntersectionAttributes a) { p.color = float4(a.barycentrics, HitKind(), 1); }",
      "void ch() { }"),
     "20:6: closest-hit shader 'ch' needs a payload parameter ('inout Payload payload')"),
    ((", BuiltInTriangleIntersectionAttributes a) { p.color = float4(a.barycentrics, HitKind(), 1); }", ") { }"),
     "20:6: closest-hit shader 'ch' needs an attributes parameter ('BuiltInTriangleIntersectionAttributes attr' "
     "or a struct)"),
    (("void ms(inout Payload p)", "void ms(Payload p)"),
     "18:17: the payload parameter 'p' of miss shader 'ms' must be declared inout, not in"),
    (("void ms(inout Payload p) { p.color = float4(WorldRayDirection(), 1); }", "void ms(inout float4 p) { }"),
     "18:22: the payload of miss shader 'ms' must be a user-defined struct, not 'float4'"),
    (("void cs(inout Params c)", "void cs(inout Params c, uint extra)"),
     "26:30: callable shader 'cs' takes 1 parameter (callable data): 'extra' is one too many"),
    (("p.color = float4(WorldRayDirection(), 1); }", "ReportHit(1.0, 0, p); }"),
     "18:28: intrinsic 'ReportHit' is not allowed in miss shaders (allowed in: intersection)"),
    (("if (PrimitiveIndex() % 2 == 1) IgnoreHit();", "TraceRay(scene, 0, 0xff, 0, 1, 0, (RayDesc)0, p);"),
     "22:36: intrinsic 'TraceRay' is not allowed in anyhit shaders (allowed in: closesthit, miss, raygeneration)"),
    (("p.color = float4(a.barycentrics, HitKind(), 1);", "IgnoreHit();"),
     "20:69: intrinsic 'IgnoreHit' is not allowed in closesthit shaders (allowed in: anyhit)"),
    (("c.value += DispatchRaysDimensions().x;", "c.value += HitKind();"),
     "26:38: intrinsic 'HitKind' is not allowed in callable shaders (allowed in: anyhit, closesthit)"),
    (('[shader("callable")]', '[shader("compute")]'),
     "25:9: shader kind \"compute\" is not supported in a library (one of \"raygeneration\", \"intersection\", "
     "\"anyhit\", \"closesthit\", \"miss\", \"callable\")"),
    (("write(closesthit, miss)", "write(closesthit, pixel)"),
     "1:38: 'pixel' in write(...) of payload field 'color' is not a payload stage (caller, anyhit, closesthit "
     "or miss)"),
    (("TraceRay(scene, RAY_FLAG_NONE, 0xff, 0, 1, 0, ray, p);", "TraceRay(scene, RAY_FLAG_NONE, 0xff, 0, 1, 0, ray, "
                                                                  "p.color);"),
     "12:58: the payload argument of 'TraceRay' must be a user-defined struct, not 'float4'"),
]


@pytest.mark.parametrize("edit,message", CASES, ids=[m.split(": ", 1)[1][:50] for _, m in CASES])
def test_library_error_is_located(edit, message):
    old, new = edit
    assert old in LIB
    assert _error(LIB.replace(old, new, 1)) == message


def test_helper_function_checked_against_every_shader_that_calls_it():
    src = LIB.replace("[shader(\"miss\")]", "void helper() { IgnoreHit(); }\n[shader(\"miss\")]").replace(
        "p.color = float4(WorldRayDirection(), 1); }", "helper(); }")
    assert _error(src) == ("17:17: intrinsic 'IgnoreHit' is not allowed in miss shaders (allowed in: anyhit) "
                           "(reached from miss shader 'ms')")


def test_trace_ray_in_a_pixel_shader_is_refused():
    src = """\
struct P { float4 c; };
RaytracingAccelerationStructure scene;
float4 main() : SV_Target {
    P p = { float4(0, 0, 0, 0) };
    TraceRay(scene, 0, 0xff, 0, 1, 0, (RayDesc)0, p);
    return p.c;
}
"""
    assert _error(src, profile="ps_6_3") == ("5:5: intrinsic 'TraceRay' is not allowed in pixel shaders "
                                             "(allowed in: closesthit, miss, raygeneration)")


def test_library_profile_below_6_3_is_refused():
    assert _error(LIB, profile="lib_6_2") == "profile 'lib_6_2': ray-tracing libraries need shader model 6.3 or later"


def test_unknown_minus_e_and_empty_library():
    assert _error(LIB, entry="nothere").endswith("missing entry point definition 'nothere': no function of that "
                                                 "name is marked [shader(\"...\")]")
    assert _error("float f() { return 1; }").startswith("1:1: a library exports its shaders with")


def test_ray_flags_are_constants_a_program_may_shadow():
    module, _ = sema_module(LIB.replace("RAY_FLAG_NONE", "RAY_FLAG_FORCE_OPAQUE | RAY_FLAG_CULL_OPAQUE"),
                            profile="lib_6_3", entry="rg")
    assert module.entries[0].name == "rg"
    shadowed = "static const uint RAY_FLAG_NONE = 3;\n" + LIB
    module, _ = sema_module(shadowed, profile="lib_6_3", entry="rg")
    assert module.entries


def test_static_initialiser_checked_against_every_shader():
    src = "static uint kind = HitKind();\n" + LIB
    assert _error(src) == ("1:20: intrinsic 'HitKind' is not allowed in raygeneration shaders (allowed in: anyhit, "
                           "closesthit) (reached from ray-generation shader 'rg')")


QUALIFIED = """\
struct [raypayload] Payload { float4 color : read(caller) : write(closesthit, miss); uint depth : read(closesthit); };
struct Plain { float4 color; };
RaytracingAccelerationStructure scene : register(t0);
[shader("miss")]
void ms(inout Payload p) { p.color = float4(1, 0, 0, 1); }
"""


def test_payload_qualifiers_are_ignored_below_lib_6_7_with_a_warning():
    res = compile_file("q.hlsl", CompileOptions(profile="lib_6_3", entry="", target="spirv", vk_target_env="vulkan1.2"),
                       text=QUALIFIED)
    assert res.ok
    [w] = [d for d in res.diagnostics if d.severity == "warning"]
    assert (w.loc.line, w.loc.col) == (1, 38)
    assert w.message == ("payload access qualifiers are ignored: they take effect from lib_6_7, or on lib_6_6 "
                         "with -enable-payload-qualifiers")
    on = CompileOptions(profile="lib_6_6", entry="", target="spirv", vk_target_env="vulkan1.2",
                        enable_payload_qualifiers=True)
    res = compile_file("q.hlsl", on, text=QUALIFIED)
    assert res.ok and not res.diagnostics


@pytest.mark.parametrize("profile,flag", [("lib_6_7", False), ("lib_6_6", True)])
def test_payload_qualifiers_in_effect(profile, flag):
    src = QUALIFIED.replace("uint depth : read(closesthit);", "uint depth;")
    assert _error(src, profile=profile, payload_qualifiers=flag) == (
        "1:91: field 'depth' of payload 'Payload' has no access qualifier: add ': read(...) : write(...)' naming "
        "the stages that use it")
    src = QUALIFIED.replace("void ms(inout Payload p) { p.color", "void ms(inout Plain p) { p.color")
    with_flag = " with -enable-payload-qualifiers" if flag else ""
    assert _error(src, profile=profile, payload_qualifiers=flag) == (
        f"5:21: payload type 'Plain' must be declared 'struct [raypayload] Plain' with access qualifiers (payload "
        f"access qualifiers are in effect for {profile}{with_flag})")


def test_payload_qualifiers_need_a_raypayload_struct():
    assert _error(QUALIFIED.replace("struct [raypayload] Payload", "struct Payload")) == (
        "1:25: payload access qualifiers on 'color' need a [raypayload] struct: declare 'struct [raypayload] Payload'")


@pytest.mark.parametrize("src,message", [
    ('struct P { float a; };\n[shader("miss")] void ms(inout P p) { p.a = 1; }\n'
     '[shader("miss")] void ms(inout P p, inout P q) { p.a = 1; }',
     "3:23: a library exports one shader named 'ms' (another is at line 2)"),
    ('struct P { float a; [shader("miss")] void ms(inout P p) { } };\n[shader("raygeneration")] void rg() { }',
     "1:29: [shader(\"miss\")] marks a member function: a shader is a global function"),
    ('[shader("raygeneration")] void rg();', "1:32: shader 'rg' is declared but never defined"),
    ('struct P { Texture2D t; };\n[shader("miss")] void ms(inout P p) { }',
     "2:34: the payload 'P' of miss shader 'ms' contains the resource 'Texture2D<float4>': it is data passed "
     "between shaders"),
    ('groupshared float g;\n[shader("raygeneration")] void rg() { g = 1; }',
     "2:39: groupshared variable 'g' can only be used in compute, mesh and amplification shaders"),
    ('[shader(3)] void rg() { }', "1:9: the 'shader' attribute takes a string such as \"closesthit\""),
], ids=["duplicate-name", "member-function", "declared-only", "resource-in-payload", "groupshared", "kind-not-string"])
def test_library_declaration_errors(src, message):
    assert _error(src) == message
