"""DXR libraries to DXIL (issue 18): `-T lib_6_x` without -E gives one module exporting every
shader with its kind, no signatures and no PSV0, the RDAT part a state object is built from, the
DXR operations, library resources through createHandleForLib, and the subobjects (dx.subobjects and
RDAT).  Checked by the LLVM 19 tools and by dxil-spirv, which converts every exported shader on its
own; the RDAT part is read back with a reader written here from DXC's documented layout
(DxilRuntimeReflection.h, RDAT_LibraryTypes.inl, RDAT_SubobjectTypes.inl)."""

from __future__ import annotations

import re
import struct
import subprocess

import pytest
from harness.dxil_tools import check_dxil_library, container_parts

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

LIB = """\
struct Payload { float4 color; uint depth; };
struct Attr { float2 uv; };
struct Params { uint value; };
RaytracingAccelerationStructure scene : register(t0, space1);
RWTexture2D<float4> image : register(u2);
StructuredBuffer<float> weights : register(t3);

[shader("raygeneration")]
void rg() {
    uint2 at = DispatchRaysIndex().xy;
    RayDesc ray;
    ray.Origin = float3(at, 0); ray.TMin = 0.5; ray.Direction = float3(0, 0, 1); ray.TMax = 100;
    Payload p = { float4(0, 0, 0, 0), 0 };
    TraceRay(scene, RAY_FLAG_FORCE_OPAQUE, 0xff, 1, 2, 3, ray, p);
    Params c = { p.depth };
    CallShader(4, c);
    image[at] = p.color * c.value;
}
[shader("miss")]
void miss(inout Payload p) { p.color = float4(WorldRayDirection(), RayTCurrent()); }
[shader("closesthit")]
void hit(inout Payload p, BuiltInTriangleIntersectionAttributes a) {
    p.color = float4(a.barycentrics, weights[InstanceID()], 1);
    p.depth += 1;
}
[shader("anyhit")]
void any(inout Payload p, Attr a) {
    p.depth = 7;
    if (PrimitiveIndex() % 2 == 1) IgnoreHit();
    if (a.uv.x > 0.5) AcceptHitAndEndSearch();
}
[shader("intersection")]
void box() {
    Attr a = { float2(ObjectRayOrigin().x, 0) };
    ReportHit(RayTMin() + 1, 5, a);
}
[shader("callable")]
void call(inout Params c) { c.value += DispatchRaysDimensions().x; }

TriangleHitGroup tris = { "any", "hit" };
ProceduralPrimitiveHitGroup boxes = { "", "hit", "box" };
RaytracingShaderConfig sizes = { 20, 8 };
RaytracingPipelineConfig depth = { 2 };
LocalRootSignature local = { "RootConstants(num32BitConstants=3, b0)" };
SubobjectToExportsAssociation bind = { "local", "rg;tris" };
"""
EXPORTS = {"rg": 7, "miss": 11, "hit": 10, "any": 9, "box": 8, "call": 12}     # DXIL::ShaderKind
# payload / attribute sizes by hand: Payload = float4 + uint = 20 bytes, Attr and the built-in attributes
# float2 = 8, Params = uint = 4
SIZES = {"rg": (0, 0), "miss": (20, 0), "hit": (20, 8), "any": (20, 8), "box": (0, 0), "call": (4, 0)}


def _dxil(src: str = LIB, profile: str = "lib_6_3", entry: str = "main", **kw):
    res = compile_file("lib.hlsl", CompileOptions(profile=profile, entry=entry, target="dxil", validate_ir=True, **kw),
                       text=src)
    assert res.ok, "\n".join(str(d) for d in res.diagnostics)
    return res


# ------------------------------------------------------------------ an RDAT reader from the documented layout

def _read_rdat(data: bytes) -> dict:
    version, count = struct.unpack_from("<II", data, 0)
    assert version == 0x10
    parts = {}
    order = []
    for off in struct.unpack_from(f"<{count}I", data, 8):
        kind, size = struct.unpack_from("<II", data, off)
        assert size % 4 == 0
        parts[kind] = data[off + 8:off + 8 + size]
        order.append(kind)
    strings, index = parts.get(1, b""), parts.get(2, b"")

    def string(off: int) -> str:
        return strings[off:strings.index(b"\0", off)].decode()

    def array(off: int) -> list[int]:
        if off == 0xFFFFFFFF:
            return []
        n = struct.unpack_from("<I", index, 4 * off)[0]
        return list(struct.unpack_from(f"<{n}I", index, 4 * off + 4))

    def table(kind: int) -> list[tuple]:
        if kind not in parts:
            return []
        n, stride = struct.unpack_from("<II", parts[kind], 0)
        return [struct.unpack_from(f"<{stride // 4}I", parts[kind], 8 + i * stride) for i in range(n)]

    resources = [{"class": r[0], "kind": r[1], "id": r[2], "space": r[3], "lower": r[4], "upper": r[5],
                  "name": string(r[6]), "flags": r[7]} for r in table(3)]
    functions = [{"name": string(f[0]), "unmangled": string(f[1]), "resources": [resources[i]["name"] for i in array(f[2])],
                  "deps": [string(s) for s in array(f[3])], "kind": f[4], "payload": f[5], "attributes": f[6],
                  "features": f[7] | f[8] << 32, "stages": f[9], "min_target": f[10]} for f in table(4)]
    subobjects = []
    for s in table(6):
        kind, name, rest = s[0], string(s[1]), s[2:]
        o: dict = {"kind": kind, "name": name}
        if kind == 11:
            o.update(type=rest[0], any=string(rest[1]), closest=string(rest[2]), intersection=string(rest[3]))
        elif kind in (1, 2):
            o["bytes"] = parts[5][rest[0]:rest[0] + rest[1]]
        elif kind == 8:
            o.update(subobject=string(rest[0]), exports=[string(x) for x in array(rest[1])])
        else:
            o["values"] = rest
        subobjects.append(o)
    strides = {k: struct.unpack_from("<II", parts[k], 0)[1] for k in (3, 4, 6) if k in parts}
    return {"order": order, "resources": resources, "functions": functions, "subobjects": subobjects,
            "strides": strides}


@pytest.fixture(scope="module")
def library():
    res = _dxil()
    read, spirv = check_dxil_library(res.binary, list(EXPORTS))
    return res, read, spirv


def test_every_shader_converts_on_its_own(library):
    """dxil-spirv takes each exported shader by name; spirv-val accepted each (check_dxil_library)."""
    _, _, spirv = library
    models = {"rg": "RayGeneration", "miss": "Miss", "hit": "ClosestHit", "any": "AnyHit", "box": "Intersection",
              "call": "Callable"}
    for name, blob in spirv.items():
        assert blob is not None, name
        dis = subprocess.run(["spirv-dis", "-"], input=blob, capture_output=True, check=True).stdout.decode()
        entry = re.search(r"OpEntryPoint (\w+)", dis)
        assert entry is not None and entry.group(1).startswith(models[name]), (name, entry)
    dis = {n: subprocess.run(["spirv-dis", "-"], input=b, capture_output=True, check=True).stdout.decode()
           for n, b in spirv.items() if b is not None}
    assert "OpTraceRayKHR" in dis["rg"] and "OpExecuteCallableKHR" in dis["rg"]
    assert "OpIgnoreIntersectionKHR" in dis["any"] and "OpTerminateRayKHR" in dis["any"]
    assert "OpReportIntersectionKHR" in dis["box"]
    assert "IncomingRayPayload" in dis["hit"] and "HitAttribute" in dis["hit"]
    assert "IncomingCallableData" in dis["call"]


def test_library_container_has_rdat_and_no_signatures(library):
    res, read, _ = library
    parts = container_parts(res.binary)
    assert list(parts) == ["SFI0", "RDAT", "HASH", "DXIL"]
    names = [p["Name"] for p in read.container["Parts"]]
    assert names == ["SFI0", "RDAT", "HASH", "DXIL"]                 # obj2yaml-19 reads it
    program = next(p for p in read.container["Parts"] if p["Name"] == "DXIL")["Program"]
    assert program["ShaderKind"] == 6 and (program["MajorVersion"], program["MinorVersion"]) == (6, 3)
    # obj2yaml-19 decodes SFI0, HASH and DXIL; RDAT it knows only by name and size (read below instead)
    parts = {p["Name"]: p for p in read.container["Parts"]}
    assert set(parts["RDAT"]) == {"Name", "Size"} and parts["RDAT"]["Size"] == len(container_parts(res.binary)["RDAT"])
    assert parts["SFI0"]["Flags"]["UAVsAtEveryStage"] is True and parts["SFI0"]["Flags"]["Doubles"] is False


def test_dxr_operations_and_library_resources(library):
    _, read, _ = library
    ir = read.ir
    for name, opcode in (("traceRay.struct.Payload", 157), ("callShader.struct.Params", 159),
                         ("reportHit.struct.Attr", 158), ("ignoreHit", 155), ("acceptHitAndEndSearch", 156),
                         ("dispatchRaysIndex.i32", 145), ("dispatchRaysDimensions.i32", 146),
                         ("worldRayDirection.f32", 148), ("objectRayOrigin.f32", 149), ("rayTMin.f32", 153),
                         ("rayTCurrent.f32", 154), ("instanceID.i32", 141), ("primitiveIndex.i32", 161)):
        assert re.search(rf"@dx\.op\.{re.escape(name)}\(i32 {opcode}\b", ir), name
    # TraceRay's operands in DXIL order: flags, mask, hit-group offset, stride, miss index
    assert re.search(r"@dx\.op\.traceRay\.struct\.Payload\(i32 157, %dx\.types\.Handle %\w+, i32 1, i32 255, i32 1, "
                     r"i32 2, i32 3, ", ir)
    assert re.search(r"@dx\.op\.reportHit\.struct\.Attr\(i32 158, float %\w+, i32 5, ptr %\w+\)", ir)
    # IgnoreHit / AcceptHitAndEndSearch end their block: `unreachable` follows (DXIL's rule)
    for op in ("ignoreHit", "acceptHitAndEndSearch"):
        assert re.search(rf"call void @dx\.op\.{op}\(i32 \d+\)\n\s*unreachable", ir), op
    # library resources: global symbols read through createHandleForLib
    assert re.search(r"@scene = external constant %class\.RaytracingAccelerationStructure", ir)
    assert re.search(r"@dx\.op\.createHandleForLib\.class\.RaytracingAccelerationStructure\(i32 160, ", ir)
    assert "createHandleFromBinding" not in ir and "@dx.op.createHandle(" not in ir
    # shader functions take their payload / attributes by pointer
    assert re.search(r"define void @hit\(ptr %0, ptr %1\)", ir) and re.search(r"define void @rg\(\)", ir)


def test_entry_points_metadata(library):
    _, read, _ = library
    ir = read.ir
    md = dict(re.findall(r"^(!\d+) = (.*)$", ir, re.M))
    entries = re.search(r"^!dx\.entryPoints = !\{(.*)\}$", ir, re.M)
    assert entries is not None
    rows = [md[x.strip()] for x in entries.group(1).split(",")]
    assert rows[0].startswith("!{null, !\"\", null, ")       # the library's own entry: resources and flags
    props = {}
    for row in rows[1:]:
        m = re.match(r"!\{ptr @(\w+), !\"(\w+)\", null, null, (!\d+)\}", row)
        assert m is not None and m.group(1) == m.group(2), row
        tags = [int(v) for v in re.findall(r"i(?:32|64) (\d+)", md[m.group(3)])]
        props[m.group(1)] = dict(zip(tags[::2], tags[1::2]))
    assert set(props) == set(EXPORTS)
    for name, kind in EXPORTS.items():
        p = props[name]
        assert p[8] == kind                                     # kDxilShaderKindTag
        payload, attributes = SIZES[name]
        if name in ("hit", "any"):
            assert (p[6], p[7]) == (payload, attributes)        # kDxilRayPayloadSizeTag, kDxilRayAttribSizeTag
        elif name in ("miss", "call"):
            assert p[6] == payload and 7 not in p
        else:
            assert 6 not in p and 7 not in p
    assert list(props) == sorted(props)                   # sorted by name, as DXC writes them
    assert all(0 not in p for p in props.values())        # per-shader flags are in RDAT, not here
    library_props = md[re.match(r"!\{null, !\"\", null, !\d+, (!\d+)\}", rows[0]).group(1)]
    assert re.fullmatch(r"!\{i32 0, i64 (\d+)\}", library_props)           # the library's shader flags
    assert int(re.search(r"i64 (\d+)", library_props).group(1)) & (1 << 16)  # a UAV outside compute/pixel
    assert "!dx.viewIdState" not in ir


def test_rdat_function_resource_and_subobject_tables(library):
    res, _, _ = library
    rdat = _read_rdat(container_parts(res.binary)["RDAT"])
    assert rdat["order"] == [1, 3, 4, 2, 5, 6]        # strings, resources, functions, index, raw bytes, subobjects
    assert rdat["strides"] == {3: 32, 4: 44, 6: 24}
    # resources: CBVs, samplers, SRVs, UAVs (DXC's order); class SRV 0 / UAV 1, kind 16 = acceleration structure
    assert [(r["name"], r["class"], r["kind"], r["space"], r["lower"], r["upper"]) for r in rdat["resources"]] == [
        ("scene", 0, 16, 1, 0, 0), ("weights", 0, 12, 0, 3, 3), ("image", 1, 2, 0, 2, 2)]
    fns = {f["name"]: f for f in rdat["functions"]}
    assert set(fns) == set(EXPORTS)
    for name, kind in EXPORTS.items():
        f = fns[name]
        assert f["unmangled"] == name and f["kind"] == kind and f["stages"] == 1 << kind and f["deps"] == []
        assert (f["payload"], f["attributes"]) == SIZES[name]
        assert f["min_target"] >> 16 == kind and (f["min_target"] >> 4) & 0xF == 6
    assert sorted(fns["rg"]["resources"]) == ["image", "scene"] and fns["hit"]["resources"] == ["weights"]
    assert fns["miss"]["resources"] == []
    assert fns["rg"]["min_target"] & 0xF == 3                 # TraceRay needs 6.3
    # UAVsAtEveryStage is a module flag (DXC's CollectShaderFlagsForModule), never in a function's RDAT record
    assert not any(f["features"] & 0x4 for f in fns.values())
    subs = {s["name"]: s for s in rdat["subobjects"]}
    assert [s["name"] for s in rdat["subobjects"]] == ["tris", "boxes", "sizes", "depth", "local", "bind"]
    assert subs["tris"] == {"kind": 11, "name": "tris", "type": 0, "any": "any", "closest": "hit", "intersection": ""}
    assert subs["boxes"] == {"kind": 11, "name": "boxes", "type": 1, "any": "", "closest": "hit", "intersection": "box"}
    assert subs["sizes"]["kind"] == 9 and subs["sizes"]["values"][:2] == (20, 8)
    assert subs["depth"]["kind"] == 10 and subs["depth"]["values"][0] == 2
    assert subs["bind"] == {"kind": 8, "name": "bind", "subobject": "local", "exports": ["rg", "tris"]}
    # the local root signature's RTS0: version 1.1 (2), one parameter, no static samplers, flags
    # LOCAL_ROOT_SIGNATURE (0x80); the parameter is 32-bit constants (1) with 3 values at b0
    blob = subs["local"]["bytes"]
    version, nparams, params_at, nsamplers, _samplers_at, flags = struct.unpack_from("<6I", blob, 0)
    assert (version, nparams, nsamplers, flags) == (2, 1, 0, 0x80)
    ptype, _vis, body_at = struct.unpack_from("<3I", blob, params_at)
    assert ptype == 1 and struct.unpack_from("<3I", blob, body_at) == (0, 0, 3)


def test_subobjects_metadata(library):
    _, read, _ = library
    ir = read.ir
    assert re.search(r'!\{!"tris", i32 11, i32 0, !"", !"any", !"hit"\}', ir)
    assert re.search(r'!\{!"boxes", i32 11, i32 1, !"box", !"", !"hit"\}', ir)
    assert re.search(r'!\{!"sizes", i32 9, i32 20, i32 8\}', ir)
    assert re.search(r'!\{!"local", i32 2, !\d+, !"RootConstants\(num32BitConstants=3, b0\)"\}', ir)


def test_sm66_library_annotates_handles():
    res = _dxil(profile="lib_6_6")
    read, spirv = check_dxil_library(res.binary, list(EXPORTS))
    assert all(v is not None for v in spirv.values())
    assert re.search(r"@dx\.op\.annotateHandle\(i32 216, %dx\.types\.Handle %\w+, %dx\.types\.ResourceProperties "
                     r"\{ i32 16, i32 0 \}\)", read.ir)


def test_dash_e_selects_one_shader():
    res = _dxil(entry="hit")
    read, spirv = check_dxil_library(res.binary, ["hit"])
    assert spirv["hit"] is not None
    assert re.findall(r"^define void @(\w+)", read.ir, re.M) == ["hit"]
    rdat = _read_rdat(container_parts(res.binary)["RDAT"])
    assert [f["name"] for f in rdat["functions"]] == ["hit"]


def test_library_build_is_deterministic():
    assert _dxil().binary == _dxil().binary


def test_manifest_backend_lists_exports(library):
    import json
    from importlib import resources

    import jsonschema

    res, _, _ = library
    jsonschema.validate(res.manifest, json.loads(resources.files("shaderbuild.reflect")
                                                 .joinpath("manifest.schema.json").read_text()))
    assert [o["name"] for o in res.manifest["subobjects"]] == ["tris", "boxes", "sizes", "depth", "local", "bind"]
    backend = res.manifest["backend"]["dxil"] if "dxil" in res.manifest["backend"] else res.manifest["backend"]
    assert [(e["name"], e["kind"], e["payload_size"], e["attribute_size"]) for e in backend["exports"]] == [
        (n, k, *SIZES[n]) for n, k in zip(EXPORTS, ("raygeneration", "miss", "closesthit", "anyhit", "intersection",
                                                       "callable"))]


RESOURCES = """\
struct Inner { float2 a[2]; bool flag; };
struct [raypayload] Payload { float4 color : read(caller) : write(closesthit, miss); uint hits : read(caller, closesthit) : write(caller, closesthit); bool seen : read(caller) : write(closesthit); float2x2 m : read(caller) : write(miss); Inner deep : read(caller) : write(miss); };
struct Big { float3x3 m; Inner inner; int k; };
cbuffer Camera : register(b0) { float4x4 view; float3 eye; uint frame; };
ConstantBuffer<Big> local_data : register(b0, space1);
Texture2D<float4> albedo[4] : register(t1);
SamplerState samp : register(s0);
StructuredBuffer<Big> bigs : register(t0, space2);
ByteAddressBuffer raw : register(t5);
RWStructuredBuffer<uint> counters : register(u0);
RaytracingAccelerationStructure scene : register(t0, space3);
RWTexture2D<float4> output : register(u1);
static const float weights[3] = { 0.25, 0.5, 0.25 };
static float scale = 2.0;

float3 shade(float2 uv, uint i) {
    return albedo[i % 4].SampleLevel(samp, uv, 0).rgb * weights[i % 3] * scale;
}

[shader("raygeneration")]
void gen() {
    uint2 at = DispatchRaysIndex().xy;
    float4 acc = 0;
    for (uint s = 0; s < 3; ++s) {
        RayDesc r;
        r.Origin = eye; r.TMin = 0.01; r.Direction = normalize(mul((float3x3)view, float3(at, 1))); r.TMax = 1e4;
        Payload p;
        p.color = 0; p.hits = s;
        TraceRay(scene, RAY_FLAG_CULL_BACK_FACING_TRIANGLES, 0xff, 0, 1, 0, r, p);
        acc += p.color * (p.hits + 1) + p.m[1][0] + p.deep.a[1].y + (p.seen ? 1 : 0);
    }
    InterlockedAdd(counters[0], 1);
    output[at] = acc + float4(raw.Load3(frame * 4), 0);
}

[shader("closesthit")]
void hit(inout Payload p, BuiltInTriangleIntersectionAttributes attr) {
    Big b = bigs[PrimitiveIndex()];
    float3 c = shade(attr.barycentrics, InstanceIndex()) + mul(b.m, float3(1, 0, 0)) + local_data.inner.a[1].xyy;
    if (b.inner.flag && p.hits < 2) {
        RayDesc r;
        r.Origin = WorldRayOrigin() + WorldRayDirection() * RayTCurrent(); r.TMin = 0.001;
        r.Direction = mul(ObjectToWorld3x4(), float4(0, 1, 0, 0)); r.TMax = 100;
        Payload q; q.color = 0; q.hits = p.hits + 1;
        TraceRay(scene, RAY_FLAG_NONE, 0xff, 0, 1, 0, r, q);
        c += q.color.rgb * 0.5;
        p.hits = q.hits;
    }
    p.color = float4(c, 1) * local_data.k; p.seen = true;
}

[shader("miss")]
void sky(inout Payload p) { p.m = float2x2(1, 2, 3, 4); p.deep.a[1] = float2(5, 6); p.deep.flag = p.color.x > 0; p.color = float4(WorldRayDirection() * 0.5 + 0.5, 1); }
"""


@pytest.mark.parametrize("profile", ["lib_6_3", "lib_6_6"])
def test_library_with_every_resource_class_and_rich_payloads(profile):
    """cbuffers, ConstantBuffer<T> in another space, texture arrays, samplers, structured and raw buffers,
    a UAV with atomics, statics; a payload with bool, matrix, nested struct and array members, TraceRay in
    a loop and from a closest-hit shader: every shader converts, and the payload size is the DXIL
    layout's (float4 16 + uint 4 + bool 4 + float2x2 16 + {float2[2] 16, bool 4} = 60)."""
    res = _dxil(RESOURCES, profile=profile)
    read, spirv = check_dxil_library(res.binary, ["gen", "hit", "sky"])
    assert all(v is not None for v in spirv.values())
    rdat = _read_rdat(container_parts(res.binary)["RDAT"])
    fns = {f["name"]: f for f in rdat["functions"]}
    assert (fns["hit"]["payload"], fns["hit"]["attributes"], fns["sky"]["payload"]) == (60, 8, 60)
    assert sorted(fns["gen"]["resources"]) == ["Camera", "counters", "output", "raw", "scene"]
    assert sorted(fns["hit"]["resources"]) == ["albedo", "bigs", "local_data", "samp", "scene"]
    classes = {r["name"]: (r["class"], r["space"], r["lower"], r["upper"]) for r in rdat["resources"]}
    assert classes["albedo"] == (0, 0, 1, 4) and classes["local_data"] == (2, 1, 0, 0)
    assert classes["samp"] == (3, 0, 0, 0) and classes["counters"] == (1, 0, 0, 0)
    order = [r["class"] for r in rdat["resources"]]
    assert order == sorted(order, key=[2, 3, 0, 1].index) and len(order) == 9      # CBVs, samplers, SRVs, UAVs


def test_disassembly_lists_exports_and_subobjects(library):
    res, _, _ = library
    text = res.disassembly
    assert "Input signature" not in text
    exports = text.split("; Exports:\n")[1].split(";\n")[0].splitlines()[1:]
    assert [line.split()[1:] for line in exports] == [
        [n, k, str(SIZES[n][0]), str(SIZES[n][1])] for n, k in zip(EXPORTS, (
            "raygeneration", "miss", "closesthit", "anyhit", "intersection", "callable"))]
    assert "tris  TriangleHitGroup" in text and "bind  SubobjectToExportsAssociation" in text
    assert "define void @rg()" in text


def test_debug_info_for_every_shader():
    """-Zi: the ILDB part is the library's bitcode with one DISubprogram per exported shader (named as
    its HLSL function), whose statements' lines are those of the source; the DXIL part has none."""
    from harness import tools
    from harness.dxil_tools import patch_datalayout_i8

    res = _dxil(debug_info=True, embed_debug=True)
    check_dxil_library(res.binary, list(EXPORTS))
    parts = container_parts(res.binary)
    assert list(parts) == ["SFI0", "RDAT", "ILDB", "ILDN", "HASH", "DXIL"]
    offset, size = struct.unpack_from("<II", parts["ILDB"], 16)
    with tools.TempInput(patch_datalayout_i8(parts["ILDB"][8 + offset:8 + offset + size]), ".bc") as path:
        proc = tools.run_tool(["llvm-dis-19", str(path), "-o", "-"])
    assert b"invalid debug info" not in proc.stderr
    ir = proc.stdout.decode()
    subprograms = set(re.findall(r'!DISubprogram\(name: "(\w+)"', ir))
    assert set(EXPORTS) <= subprograms
    lines = {int(x) for x in re.findall(r"!DILocation\(line: (\d+)", ir)}
    src = LIB.splitlines()
    assert any("TraceRay(" in src[n - 1] for n in lines) and any("IgnoreHit()" in src[n - 1] for n in lines)
    assert "DILocation" not in _dxil().disassembly


def test_dxil_spirv_reads_the_subobjects_from_rdat(library):
    """dxil-spirv's RDAT parser (its C API, the one vkd3d-proton builds state objects with) finds every
    subobject with its values."""
    from harness.dxil_consumer import rdat_subobjects

    res, _, _ = library
    got = {s["name"]: s for s in rdat_subobjects(res.binary)}
    assert list(got) == ["tris", "boxes", "sizes", "depth", "local", "bind"]
    assert (got["tris"]["kind"], got["tris"]["hit_group_type"], got["tris"]["exports"]) == (11, 0, ["any", "hit", ""])
    assert (got["boxes"]["hit_group_type"], got["boxes"]["exports"]) == (1, ["", "hit", "box"])
    assert (got["sizes"]["kind"], got["sizes"]["args"]) == (9, (20, 8))
    assert (got["depth"]["kind"], got["depth"]["args"][0]) == (10, 2)
    assert (got["bind"]["kind"], got["bind"]["exports"]) == (8, ["local", "rg", "tris"])
    assert got["local"]["kind"] == 2 and struct.unpack_from("<I", got["local"]["payload"], 20)[0] == 0x80


INLINE = """\
struct Payload { float4 c; };
RaytracingAccelerationStructure scene : register(t0);
RWStructuredBuffer<float4> outb : register(u0);
[shader("raygeneration")]
void rg() {
    RayDesc r; r.Origin = float3(DispatchRaysIndex().xy, 0); r.TMin = 0; r.Direction = float3(0, 0, 1); r.TMax = 10;
    RayQuery<RAY_FLAG_FORCE_OPAQUE> q;
    q.TraceRayInline(scene, RAY_FLAG_NONE, 0xff, r);
    q.Proceed();
    Payload p = { float4(0, 0, 0, 0) };
    TraceRay(scene, RAY_FLAG_NONE, 0xff, 0, 1, 0, r, p);
    outb[DispatchRaysIndex().x] = p.c + float4(q.WorldRayOrigin(), q.RayTMin()) + (q.CommittedStatus() == COMMITTED_TRIANGLE_HIT ? q.CommittedRayT() : 0);
}
[shader("miss")]
void ms(inout Payload p) { p.c = float4(WorldRayOrigin(), RayTMin() + RayFlags()); }
"""


def test_ray_query_in_a_library_and_the_shared_names():
    """RayTMin / RayFlags / WorldRayOrigin are DXR system values without operands and RayQuery methods on a
    query: each call gets its own operation (rayTMin 153 vs rayQuery_StateScalar), inline ray tracing
    works inside a ray-generation shader, and both shaders convert."""
    res = _dxil(INLINE, profile="lib_6_5")
    read, spirv = check_dxil_library(res.binary, ["rg", "ms"])
    assert all(v is not None for v in spirv.values())
    ops = set(re.findall(r"@dx\.op\.([\w.]+)\(i32 (\d+)", read.ir))
    assert {("rayTMin.f32", "153"), ("worldRayOrigin.f32", "147"), ("rayFlags.i32", "144"),
            ("allocateRayQuery", "178"), ("rayQuery_TraceRayInline", "179"), ("traceRay.struct.Payload", "157"),
            ("rayQuery_StateVector.f32", "196")} <= ops
    rdat = _read_rdat(container_parts(res.binary)["RDAT"])
    rg = next(f for f in rdat["functions"] if f["name"] == "rg")
    assert rg["features"] & 0x100000 and rg["min_target"] & 0xFF == 0x65     # DXR 1.1, SM 6.5 (ray queries)


def test_every_subobject_kind_in_rdat_and_metadata():
    src = LIB.split("TriangleHitGroup tris")[0] + """
StateObjectConfig config = { STATE_OBJECT_FLAG_ALLOW_STATE_OBJECT_ADDITIONS };
GlobalRootSignature global = { "DescriptorTable(SRV(t0, space = 1), SRV(t3), UAV(u2))" };
RaytracingPipelineConfig1 pipeline = { 3, RAYTRACING_PIPELINE_FLAG_SKIP_PROCEDURAL_PRIMITIVES };
"""
    res = _dxil(src, profile="lib_6_5")
    read, spirv = check_dxil_library(res.binary, list(EXPORTS))
    assert all(v is not None for v in spirv.values())
    ours = {s["name"]: s for s in _read_rdat(container_parts(res.binary)["RDAT"])["subobjects"]}
    theirs = {s["name"]: s for s in dxil_consumer_subobjects(res.binary)}
    assert ours["config"]["kind"] == theirs["config"]["kind"] == 0
    assert ours["config"]["values"][0] == theirs["config"]["args"][0] == 0x4
    assert ours["pipeline"]["kind"] == theirs["pipeline"]["kind"] == 12
    assert ours["pipeline"]["values"][:2] == theirs["pipeline"]["args"] == (3, 0x200)
    rts0 = ours["global"]["bytes"]
    assert theirs["global"]["kind"] == 1 and theirs["global"]["payload"] == rts0
    version, nparams, _at, nsamplers, _sat, flags = struct.unpack_from("<6I", rts0, 0)
    assert (version, nparams, nsamplers, flags) == (2, 1, 0, 0)       # one descriptor table, no flags
    assert re.search(r'!\{!"config", i32 0, i32 4\}', read.ir)
    assert re.search(r'!\{!"pipeline", i32 12, i32 3, i32 512\}', read.ir)
    # a RaytracingPipelineConfig1 is DXR 1.1: every function gets the tier 1.1 feature (validator < 1.8)
    assert all(f["features"] & 0x100000 for f in _read_rdat(container_parts(res.binary)["RDAT"])["functions"])


def dxil_consumer_subobjects(blob: bytes) -> list[dict]:
    from harness.dxil_consumer import rdat_subobjects

    return rdat_subobjects(blob)


def test_exported_functions_keep_their_names():
    """LLVM's globals and functions share one namespace: a cbuffer or a static named like a shader is
    renamed, never the exported function (D3D12 links shaders by name)."""
    res = _dxil("""\
cbuffer rg { float x; };
struct P { float4 c; };
RWStructuredBuffer<float> o : register(u0);
float helper() { static float ms = 1; ms += 1; return ms; }
[shader("raygeneration")] void rg() { o[0] = x + helper(); }
[shader("miss")] void ms(inout P p) { p.c = helper(); }
""")
    read, spirv = check_dxil_library(res.binary, ["rg", "ms"])
    assert all(v is not None for v in spirv.values())
    assert re.findall(r"^define void @(\w+)\(", read.ir, re.M) == ["rg", "ms"]
    assert "@rg.global = external constant" in read.ir and "@ms.global = internal global" in read.ir
    assert [f["name"] for f in _read_rdat(container_parts(res.binary)["RDAT"])["functions"]] == ["rg", "ms"]


def test_payload_size_with_16_bit_types():
    """-enable-16bit-types: the DXIL layout packs half and uint16_t at 2 bytes (half 0, uint16_t 2, float 4,
    half2 8..12), and that is the payload size the metadata and RDAT carry."""
    src = ("struct P { half a; uint16_t b; float c; half2 d; };\n"
           "[shader(\"miss\")] void ms(inout P p) { p.a = 1; p.b = 2; p.c = 3; p.d = 4; }\n")
    res = _dxil(src, enable_16bit_types=True)
    read, spirv = check_dxil_library(res.binary, ["ms"])
    assert spirv["ms"] is not None
    assert "%struct.P = type { half, i16, float, [2 x half] }" in read.ir
    assert _read_rdat(container_parts(res.binary)["RDAT"])["functions"][0]["payload"] == 12


def test_rootsig_define_is_refused_for_a_library():
    """A library's root signatures are subobjects; -rootsig-define is refused, not silently dropped."""
    src = '#define RS "CBV(b0)"\nstruct P { float4 c; };\n[shader("miss")] void ms(inout P p) { p.c = 1; }\n'
    res = compile_file("lib.hlsl", CompileOptions(profile="lib_6_3", entry="", target="dxil", rootsig_define="RS"),
                       text=src)
    assert not res.ok
    assert [d.message for d in res.diagnostics if d.severity == "error"] == [
        "a DXIL library has no root signature part: declare GlobalRootSignature / LocalRootSignature subobjects "
        "instead of -rootsig-define"]


SUBOBJECTS_ONLY = """\
TriangleHitGroup hg = { "", "ch" };
RaytracingShaderConfig cfg = { 16, 8 };
GlobalRootSignature grs = { "DescriptorTable(SRV(t0))" };
"""


def test_a_library_of_subobjects_only():
    """As with DXC, a library may hold only subobjects (an engine links it with the libraries of its
    shaders): the DXIL library has no function and its RDAT part the subobjects; SPIR-V has no form for
    it and refuses it, the manifest (of the DXIL build) lists them."""
    from harness.dxil_tools import read_dxil

    res = _dxil(SUBOBJECTS_ONLY)
    read = read_dxil(res.binary)                              # obj2yaml-19, llvm-bcanalyzer-19, llvm-dis-19
    assert "define " not in read.ir
    assert re.search(r"^!dx\.entryPoints = !\{(!\d+)\}$", read.ir, re.M)
    rdat = _read_rdat(container_parts(res.binary)["RDAT"])
    assert rdat["functions"] == [] and [s["name"] for s in rdat["subobjects"]] == ["hg", "cfg", "grs"]
    assert [s["name"] for s in dxil_consumer_subobjects(res.binary)] == ["hg", "cfg", "grs"]
    assert res.manifest["library"]["shaders"] == [] and len(res.manifest["subobjects"]) == 3
    spirv = compile_file("lib.hlsl", CompileOptions(profile="lib_6_3", entry="", target="spirv",
                                                    vk_target_env="vulkan1.2"), text=SUBOBJECTS_ONLY)
    assert not spirv.ok
    assert [d.message for d in spirv.diagnostics if d.severity == "error"] == [
        "a SPIR-V module needs at least one shader: a library of subobjects only has no SPIR-V form (its "
        "subobjects are in the DXIL library and in the manifest)"]
    empty = compile_file("lib.hlsl", CompileOptions(profile="lib_6_3", entry="", target="dxil"), text="static int x;\n")
    assert not empty.ok          # neither shaders nor subobjects: still refused


def test_payload_access_qualifiers_in_dx_dxr_payload_annotations():
    """lib_6_7: each [raypayload] field's qualifiers as DXIL's mask, 4 bits per stage (caller 0, closesthit
    4, miss 8, anyhit 12; read 1, write 2): read(caller) write(closesthit, miss) = 0x1 | 0x20 | 0x200;
    read(caller, closesthit) write(anyhit) = 0x1 | 0x10 | 0x2000.  lib_6_3 has none (qualifiers ignored)."""
    src = """\
struct [raypayload] Payload {
    float4 color : read(caller) : write(closesthit, miss);
    uint hits : read(caller, closesthit) : write(anyhit);
};
[shader("miss")] void ms(inout Payload p) { p.color = 1; }
[shader("anyhit")] void ah(inout Payload p, BuiltInTriangleIntersectionAttributes a) { p.hits = 1; }
"""
    res = _dxil(src, profile="lib_6_7")
    read, spirv = check_dxil_library(res.binary, ["ms", "ah"])
    assert all(v is not None for v in spirv.values())
    md = dict(re.findall(r"^(!\d+) = (.*)$", read.ir, re.M))
    top = re.search(r"^!dx\.dxrPayloadAnnotations = !\{(!\d+)\}$", read.ir, re.M)
    assert top is not None
    m = re.fullmatch(r"!\{i32 0, %struct\.Payload undef, (!\d+)\}", md[top.group(1)])
    assert m is not None
    fields = [md[x.strip()] for x in md[m.group(1)][2:-1].split(",")]
    assert fields == [f"!{{i32 0, i32 {0x1 | 0x20 | 0x200}}}", f"!{{i32 0, i32 {0x1 | 0x10 | 0x2000}}}"]
    assert "dxrPayloadAnnotations" not in _dxil(src, profile="lib_6_3").disassembly
