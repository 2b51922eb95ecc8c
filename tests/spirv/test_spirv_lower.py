"""SPIR-V backend: structure and validity of what lower_module emits (spirv-val on every binary).

Execution is covered by test_spirv_exec.py; here we check the conventions (DXC's) that
execution cannot see: storage classes per version, decorations, interfaces, capabilities,
opcode choices, error diagnostics.
"""

from __future__ import annotations

import re

import pytest
from irbuild import (
    BOOL,
    FLOAT,
    INT,
    UINT,
    Array,
    Discard,
    If,
    IOInfo,
    Matrix,
    Select,
    Storage,
    Struct,
    StructField,
    Variable,
    VarRef,
    Vector,
    bin,
    compute_module,
    construct,
    conv,
    elem,
    ev,
    f,
    field,
    function,
    index,
    intr,
    load,
    ref,
    resource,
    spirv,
    store,
    swz,
    tid_x,
    u,
    var,
)
from shaderbuild_spirv.disasm import disassemble
from shaderbuild_spirv.lower import TARGET_ENVS, lower_module

from shaderbuild.diagnostics import CompileError
from shaderbuild.ir import DOUBLE, VOID, EntryPoint, Module
from shaderbuild.ir.layout import layout_of

pytestmark = pytest.mark.spirv_tools
F2, F4 = Vector(FLOAT, 2), Vector(FLOAT, 4)


def dis(binary: bytes) -> str:
    return disassemble(binary)


def simple_compute():
    out = resource("Out", "RWStructuredBuffer", UINT, 2, 5)
    ro = resource("In", "StructuredBuffer", FLOAT, 1, 3)
    tid, x = tid_x()
    body = [store(elem(out, x), conv(load(elem(ro, x)), UINT))]
    return compute_module(body, [out, ro], inputs=[tid], numthreads=(8, 4, 2))


@pytest.mark.parametrize("env,version", [("vulkan1.0", "1.0"), ("vulkan1.1", "1.3"), ("vulkan1.2", "1.5"),
                                         ("vulkan1.3", "1.6")])
def test_version_and_buffer_storage_class_follow_target_env(env, version):
    text = dis(spirv(simple_compute(), env))
    assert f"; Version: {version}" in text
    if version in ("1.0", "1.3"):
        assert "OpDecorate %type.RWStructuredBuffer.uint BufferBlock" in text
        assert re.search(r"%Out = OpVariable %\w+ Uniform$", text, re.M)
        assert re.search(r'OpEntryPoint GLCompute %main "main" %in.SV_DispatchThreadID$', text, re.M)
    else:
        assert "OpDecorate %type.RWStructuredBuffer.uint Block" in text
        assert "BufferBlock" not in text
        assert re.search(r"%Out = OpVariable %\w+ StorageBuffer$", text, re.M)
        ep = next(line for line in text.splitlines() if "OpEntryPoint" in line)
        assert {"%Out", "%In", "%in.SV_DispatchThreadID"} <= set(ep.split())
    assert "OpExecutionMode %main LocalSize 8 4 2" in text
    assert "OpDecorate %Out DescriptorSet 2" in text and "OpDecorate %Out Binding 5" in text
    assert "OpDecorate %In DescriptorSet 1" in text and "OpDecorate %In Binding 3" in text
    assert "OpMemberDecorate %type.StructuredBuffer.float 0 NonWritable" in text
    assert "OpMemberDecorate %type.RWStructuredBuffer.uint 0 NonWritable" not in text


def test_unknown_target_env_is_a_diagnostic():
    with pytest.raises(CompileError, match="vulkan1.1"):
        lower_module(simple_compute(), "vulkan9")
    assert TARGET_ENVS["vulkan1.1"] == (1, 3)


def test_output_is_deterministic_and_bound_is_exact():
    a = spirv(simple_compute(), validate=False)
    b_ = spirv(simple_compute(), validate=False)
    assert a == b_
    bound = int.from_bytes(a[12:16], "little")
    ids = {int(x) for x in re.findall(r"%(\d+)\b", dis(a))}
    assert max(ids) < bound


def test_operator_opcode_choices_follow_dxc_tables():
    out = resource("Out", "RWStructuredBuffer", INT)
    outf = resource("OutF", "RWStructuredBuffer", FLOAT, 0, 1)
    tid, x = tid_x()
    s = conv(x, INT)
    fx = conv(x, FLOAT)
    body = [
        store(elem(out, u(0)), bin("mod", s, conv(u(3), INT))),
        store(elem(out, u(1)), conv(bin("mod", x, u(3)), INT)),
        store(elem(out, u(2)), bin("shr", s, conv(u(1), INT))),
        store(elem(out, u(3)), conv(bin("shr", x, u(1)), INT)),
        store(elem(outf, u(0)), bin("mod", fx, f(1.5))),
        store(elem(out, u(4)), conv(bin("lt", fx, f(2.0)), INT)),
        store(elem(out, u(5)), conv(bin("ne", fx, f(2.0)), INT)),
    ]
    text = dis(spirv(compute_module(body, [out, outf], inputs=[tid])))
    # != is unordered as in DXC's DXIL (fcmp une; DXC's SPIR-V uses OpFOrdNotEqual: docs/CONFORMANCE.md)
    for opcode in ("OpSRem", "OpUMod", "OpFRem", "OpShiftRightArithmetic", "OpShiftRightLogical",
                   "OpFOrdLessThan", "OpFUnordNotEqual", "OpConvertUToF", "OpBitcast"):
        assert opcode in text, opcode
    assert "OpSMod" not in text
    # shift amounts are masked to the bit width, as DXC does
    assert re.search(r"OpBitwiseAnd %int %\w+ %int_31$", text, re.M)
    assert re.search(r"OpBitwiseAnd %uint %\w+ %uint_31$", text, re.M)


def test_matrix_types_are_transposed_and_decorated():
    M23 = Matrix(FLOAT, 2, 3)
    S = Struct("S", (StructField("cm", M23), StructField("rm", M23, row_major=True),
                     StructField("arr", Array(M23, 2))))
    buf = resource("B", "RWStructuredBuffer", S)
    tid, x = tid_x()
    body = [store(field(elem(buf, x), 0), load(field(elem(buf, x), 1)))]
    text = dis(spirv(compute_module(body, [buf], inputs=[tid])))
    lay = layout_of(S, "std430")
    # float2x3 -> OpTypeMatrix of 2 columns of float3 (HLSL rows become SPIR-V columns)
    m = re.search(r"%(\w+) = OpTypeVector %(\w+) 3\n", text)
    assert m and re.search(rf"= OpTypeMatrix %{m.group(1)} 2$", text, re.M)
    assert "OpMemberDecorate %S 0 RowMajor" in text           # HLSL column_major -> SPIR-V RowMajor
    assert "OpMemberDecorate %S 1 ColMajor" in text           # HLSL row_major -> SPIR-V ColMajor
    assert "OpMemberDecorate %S 2 RowMajor" in text
    for k in range(3):
        assert f"OpMemberDecorate %S {k} Offset {lay.offsets[k]}" in text
        assert f"OpMemberDecorate %S {k} MatrixStride {lay.members[k].matrix_stride}" in text


def test_struct_types_are_emitted_per_layout_context():
    """The same IR struct in a buffer (explicit layout) and as a local (no decorations)."""
    S = Struct("S", (StructField("a", FLOAT), StructField("b", Vector(FLOAT, 3))))
    buf = resource("B", "RWStructuredBuffer", S)
    t = var("t", S)
    tid, x = tid_x()
    body = [store(t, load(elem(buf, x))), store(elem(buf, bin("add", x, u(1))), load(t))]
    text = dis(spirv(compute_module(body, [buf], locals_=[t], inputs=[tid])))
    structs = re.findall(r"^\s*%(\w+) = OpTypeStruct", text, re.M)
    assert len([s for s in structs if s.startswith("S")]) == 2
    assert text.count("Offset 4") == 1


@pytest.mark.parametrize("env", ["vulkan1.1", "vulkan1.2"])
def test_all_intrinsics_in_the_table_that_compute_allows_validate(env):
    """One expression per intrinsic family; spirv-val must accept the whole module."""
    out = resource("Out", "RWStructuredBuffer", FLOAT)
    outu = resource("OutU", "RWStructuredBuffer", UINT, 0, 1)
    tid, x = tid_x()
    fx = conv(x, FLOAT)
    v3 = construct(Vector(FLOAT, 3), fx, f(1.0), f(2.0))
    M = Matrix(FLOAT, 3, 3)
    mat = construct(M, v3, v3, v3)
    ip, fp, ex = var("ip", FLOAT), var("fp", FLOAT), var("ex", FLOAT)
    s, c = var("s", FLOAT), var("c", FLOAT)
    vals_f = [
        intr("faceforward", Vector(FLOAT, 3), v3, v3, v3), intr("refract", Vector(FLOAT, 3), v3, v3, f(0.5)),
        intr("modf", FLOAT, fx, ref(ip)), intr("frexp", FLOAT, fx, ref(ex)),
        intr("determinant", FLOAT, mat), intr("transpose", M, mat), intr("mul", M, mat, mat),
        intr("abs", M, mat), intr("lit", F4, fx, fx, fx), intr("asdouble", DOUBLE, x, x),
        intr("isinf", BOOL, fx), Select(bin("lt", fx, f(1.0)), fx, f(2.0), FLOAT),
    ]
    body = [ev(intr("sincos", VOID, fx, ref(s), ref(c)))]
    for k, v in enumerate(vals_f):
        if isinstance(v.type, Matrix):
            v = swz(intr("mul", Vector(FLOAT, 3), v, v3), "x")
        elif isinstance(v.type, Vector):
            v = swz(v, "x")
        elif v.type != FLOAT:
            v = conv(v, FLOAT)
        body.append(store(elem(out, u(k)), v))
    vals_u = [intr("WaveActiveBallot", Vector(UINT, 4), bin("lt", x, u(3))),
              intr("WaveReadLaneAt", UINT, x, u(1)), intr("QuadReadAcrossX", UINT, x),
              intr("QuadReadAcrossDiagonal", UINT, x), intr("QuadReadLaneAt", UINT, x, u(2)),
              intr("WaveActiveMax", UINT, x), intr("WaveActiveBitXor", UINT, x),
              intr("WavePrefixCountBits", UINT, bin("lt", x, u(3))), intr("WavePrefixProduct", UINT, x),
              intr("WaveActiveAllEqual", BOOL, x), intr("WaveActiveAnyTrue", BOOL, bin("lt", x, u(3))),
              intr("WaveActiveAllTrue", BOOL, bin("lt", x, u(3))), intr("WaveActiveMin", FLOAT, fx)]
    for k, v in enumerate(vals_u):
        if isinstance(v.type, Vector):
            v = swz(v, "x")
        if v.type != UINT:
            v = conv(v, UINT)
        body.append(store(elem(outu, u(k)), v))
    for name in ("GroupMemoryBarrier", "DeviceMemoryBarrierWithGroupSync", "AllMemoryBarrier"):
        body.append(ev(intr(name, VOID)))
    m = compute_module(body, [out, outu], locals_=[ip, fp, ex, s, c], inputs=[tid])
    text = dis(spirv(m, env))
    for cap in ("GroupNonUniformBallot", "GroupNonUniformShuffle", "GroupNonUniformQuad",
                "GroupNonUniformArithmetic", "GroupNonUniformVote", "Float64"):
        assert f"OpCapability {cap}" in text
    assert "OpMemoryBarrier %uint_2 %uint_264" in text           # GroupMemoryBarrier
    assert "OpControlBarrier %uint_2 %uint_1 %uint_2120" in text  # DeviceMemoryBarrierWithGroupSync
    assert "OpMemoryBarrier %uint_1 %uint_2376" in text           # AllMemoryBarrier


def test_barrier_scopes_and_semantics_are_dxc_values():
    from shaderbuild_spirv.intrinsics import BARRIERS
    assert BARRIERS["GroupMemoryBarrierWithGroupSync"] == ("Workgroup", "Workgroup", 0x108)
    assert BARRIERS["DeviceMemoryBarrier"] == (None, "Device", 0x848)
    assert BARRIERS["AllMemoryBarrierWithGroupSync"] == ("Workgroup", "Device", 0x948)
    out = resource("Out", "RWStructuredBuffer", UINT)
    tid, x = tid_x()
    m = compute_module([ev(intr("GroupMemoryBarrierWithGroupSync", VOID)), store(elem(out, x), x)], [out],
                       inputs=[tid])
    text = dis(spirv(m))
    assert "OpControlBarrier %uint_2 %uint_2 %uint_264" in text


def test_unsupported_intrinsic_and_readonly_store_are_diagnostics():
    out = resource("Out", "StructuredBuffer", UINT)
    tid, x = tid_x()
    with pytest.raises(CompileError, match="read-only"):
        spirv(compute_module([store(elem(out, x), x)], [out], inputs=[tid]), validate=False)
    rw = resource("Out", "RWStructuredBuffer", UINT)
    with pytest.raises(CompileError, match="no_such_thing"):
        spirv(compute_module([store(elem(rw, x), intr("no_such_thing", UINT, x))], [rw], inputs=[tid]),
              validate=False)


# ------------------------------------------------------------------ graphics stages and textures

def _io(name, t, storage, semantic, location=None, builtin=None, interp=None):
    return Variable(name, t, storage, io=IOInfo(semantic, builtin=builtin, location=location, interpolation=interp))


def vertex_module():
    pos_in = _io("in.var.POSITION", F4, Storage.INPUT, "POSITION", 0)
    uv_in = _io("in.var.TEXCOORD", F2, Storage.INPUT, "TEXCOORD", 1)
    vid = _io("in.SV_VertexID", UINT, Storage.INPUT, "SV_VertexID", builtin="VertexIndex")
    pos = _io("out.SV_Position", F4, Storage.OUTPUT, "SV_Position", builtin="Position")
    uv = _io("out.var.TEXCOORD0", F2, Storage.OUTPUT, "TEXCOORD", 0, interp="noperspective")
    ident = _io("out.var.ID", UINT, Storage.OUTPUT, "ID", 1, interp="nointerpolation")
    body = [store(pos, load(pos_in)), store(uv, load(uv_in)), store(ident, load(vid))]
    wrapper = function("VSMain", body)
    entry = EntryPoint("VSMain", "vertex", function("src.VSMain", []), wrapper,
                       inputs=[pos_in, uv_in, vid], outputs=[pos, uv, ident])
    return Module("vertex", (6, 0), [], [wrapper], entry)


def pixel_module():
    tex = resource("Tex", "Texture2D", F4, 0, 0)
    smp = resource("Smp", "SamplerState", None, 0, 1)
    img = resource("Img", "RWTexture2D", FLOAT, 0, 2)
    params = Struct("Params", (StructField("tint", F4), StructField("cutoff", FLOAT)))
    cb = resource("CB", "ConstantBuffer", params, 0, 3)
    frag = _io("in.SV_Position", F4, Storage.INPUT, "SV_Position", builtin="FragCoord")
    uv = _io("in.var.TEXCOORD0", F2, Storage.INPUT, "TEXCOORD", 0, interp="noperspective")
    ident = _io("in.var.ID", UINT, Storage.INPUT, "ID", 1)
    color = _io("out.var.SV_Target0", F4, Storage.OUTPUT, "SV_Target", 0)
    depth = _io("out.SV_Depth", FLOAT, Storage.OUTPUT, "SV_Depth", builtin="FragDepth")
    w, h = var("w", UINT), var("h", UINT)
    c = var("c", F4)
    uvv = load(uv)
    body = [
        store(c, bin("mul", intr("Sample", F4, ref(tex), ref(smp), uvv), load(field(VarRef(cb), 0)))),
        store(c, bin("add", load(c), intr("SampleLevel", F4, ref(tex), ref(smp), uvv, f(0.0)))),
        store(c, bin("add", load(c), intr("Load", F4, ref(tex), construct(Vector(INT, 3), conv(swz(uvv, "x"), INT),
                                                                            conv(swz(uvv, "y"), INT), conv(u(0), INT))))),
        ev(intr("GetDimensions", VOID, ref(tex), ref(w), ref(h))),
        store(elem(img, construct(Vector(UINT, 2), load(w), load(ident))), swz(load(c), "x")),
        If(bin("lt", swz(load(c), "w"), load(field(VarRef(cb), 1))), [Discard()], []),
        ev(intr("clip", VOID, bin("sub", swz(load(c), "y"), f(0.5)))),
        store(color, bin("add", load(c), construct(F4, intr("ddx", FLOAT, swz(load(frag), "x")), f(0.0), f(0.0),
                                                      f(0.0)))),
        store(depth, swz(load(frag), "z")),
    ]
    wrapper = function("PSMain", body, locals_=[w, h, c])
    entry = EntryPoint("PSMain", "pixel", function("src.PSMain", []), wrapper, inputs=[frag, uv, ident],
                       outputs=[color, depth])
    return Module("pixel", (6, 0), [tex, smp, img, cb], [wrapper], entry)


@pytest.mark.parametrize("env", ["vulkan1.0", "vulkan1.1", "vulkan1.2", "vulkan1.3"])
def test_vertex_stage_io(env):
    text = dis(spirv(vertex_module(), env))
    assert 'OpEntryPoint Vertex %VSMain "VSMain"' in text
    assert "OpDecorate %in.var.POSITION Location 0" in text
    assert "OpDecorate %in.var.TEXCOORD Location 1" in text
    assert "OpDecorate %in.SV_VertexID BuiltIn VertexIndex" in text
    assert "OpDecorate %out.SV_Position BuiltIn Position" in text
    assert "OpDecorate %out.var.TEXCOORD0 NoPerspective" in text
    assert "OpDecorate %out.var.ID Flat" in text


@pytest.mark.parametrize("env", ["vulkan1.0", "vulkan1.1", "vulkan1.2", "vulkan1.3"])
def test_pixel_stage_textures_samplers_discard(env):
    text = dis(spirv(pixel_module(), env))
    assert "OpExecutionMode %PSMain OriginUpperLeft" in text
    assert "OpExecutionMode %PSMain DepthReplacing" in text
    assert "OpDecorate %in.var.ID Flat" in text                  # integer fragment input
    assert "OpDecorate %in.SV_Position BuiltIn FragCoord" in text
    assert "OpDecorate %CB DescriptorSet 0" in text and "OpDecorate %type.ConstantBuffer.Params Block" in text
    assert "OpImageSampleImplicitLod" in text and "OpImageSampleExplicitLod" in text
    assert "OpImageFetch" in text and "OpImageWrite" in text and "OpImageQuerySizeLod" in text
    assert re.search(r"OpTypeImage %float 2D 2 0 0 2 R32f$", text, re.M)
    assert re.search(r"OpTypeImage %float 2D 2 0 0 1 Unknown$", text, re.M)
    assert ("OpTerminateInvocation" if env == "vulkan1.3" else "OpKill") in text


def test_sample_in_compute_is_a_diagnostic():
    tex = resource("Tex", "Texture2D", F4, 0, 0)
    smp = resource("Smp", "SamplerState", None, 0, 1)
    out = resource("Out", "RWStructuredBuffer", F4, 0, 2)
    tid, x = tid_x()
    body = [store(elem(out, x), intr("Sample", F4, ref(tex), ref(smp), construct(F2, f(0.0), f(0.0))))]
    with pytest.raises(CompileError, match="SampleLevel"):
        spirv(compute_module(body, [tex, smp, out], inputs=[tid]), validate=False)


def test_resource_arrays_and_reflection():
    from shaderbuild_spirv.lower import reflection
    bufs = resource("Bufs", "RWStructuredBuffer", UINT, 1, 2, array=3)
    texs = resource("Texs", "Texture2D", F4, 1, 5, array=2)
    smp = resource("S", "SamplerState", None, 0, 0)
    tid, x = tid_x()
    body = [store(elem(index(ref(bufs), bin("mod", x, u(3))), x), x)]
    m = compute_module(body, [bufs, texs, smp], inputs=[tid])
    lowered = lower_module(m, "vulkan1.1")
    from harness.tools import spirv_val
    spirv_val(lowered.binary)
    refl = reflection(lowered)["vulkan"]
    assert refl["spirv_version"] == "1.3"
    by_name = {r["name"]: r for r in refl["resources"]}
    assert by_name["Bufs"] == {"name": "Bufs", "set": 1, "binding": 2, "descriptor_type": "storage_buffer",
                               "count": 3, "type": "RWStructuredBuffer<uint>"}
    assert by_name["Texs"]["descriptor_type"] == "sampled_image" and by_name["Texs"]["count"] == 2
    assert by_name["S"]["descriptor_type"] == "sampler"


@pytest.mark.parametrize("env", ["vulkan1.1", "vulkan1.2"])
def test_16_and_64_bit_types_request_their_capabilities(env):
    from shaderbuild.ir import HALF, INT64, UINT16
    S = Struct("Wide", (StructField("h", Vector(HALF, 2)), StructField("s", UINT16), StructField("d", DOUBLE),
                        StructField("l", INT64)))
    buf = resource("B", "RWStructuredBuffer", S)
    tid, x = tid_x()
    e = elem(buf, x)
    body = [
        store(field(e, 0), bin("mul", load(field(e, 0)), construct(Vector(HALF, 2), conv(f(2.0), HALF),
                                                                   conv(f(0.5), HALF)))),
        store(field(e, 1), conv(x, UINT16)),
        store(field(e, 2), conv(load(field(e, 3)), DOUBLE)),
        store(field(e, 3), conv(conv(x, INT), INT64)),
    ]
    text = dis(spirv(compute_module(body, [buf], inputs=[tid]), env))
    for cap in ("Float16", "Int16", "Float64", "Int64", "StorageBuffer16BitAccess"):
        assert f"OpCapability {cap}" in text
    lay = layout_of(S, "std430")
    assert [f"OpMemberDecorate %Wide {k} Offset {o}" in text for k, o in enumerate(lay.offsets)] == [True] * 4


@pytest.mark.parametrize("env", ["vulkan1.1", "vulkan1.2"])
def test_nonuniform_resource_index_on_texture_and_buffer_arrays(env):
    texs = resource("Texs", "Texture2D", F4, 0, 0, array=4)
    smps = resource("Smps", "SamplerState", None, 0, 4, array=2)
    bufs = resource("Bufs", "RWStructuredBuffer", F4, 0, 6, array=3)
    tid, x = tid_x()
    nu = intr("NonUniformResourceIndex", UINT, x)
    uv = construct(F2, f(0.5), f(0.5))
    body = [
        store(elem(index(ref(bufs), intr("NonUniformResourceIndex", UINT, bin("mod", x, u(3)))), x),
              intr("SampleLevel", F4, index(ref(texs), nu), index(ref(smps), bin("mod", x, u(2))), uv, f(0.0))),
        store(elem(index(ref(bufs), u(1)), x), intr("Load", F4, index(ref(texs), u(2)), construct(
            Vector(INT, 3), conv(x, INT), conv(u(0), INT), conv(u(0), INT)))),
    ]
    text = dis(spirv(compute_module(body, [texs, smps, bufs], inputs=[tid]), env))
    for cap in ("ShaderNonUniform", "SampledImageArrayNonUniformIndexing", "StorageBufferArrayNonUniformIndexing"):
        assert f"OpCapability {cap}" in text
    assert ('OpExtension "SPV_EXT_descriptor_indexing"' in text) == (env == "vulkan1.1")
    assert text.count(" NonUniform\n") >= 5     # the two indices, two access chains, loads / sampled image


@pytest.mark.parametrize("env", ["vulkan1.0", "vulkan1.2"])
def test_tricky_structured_control_flow_validates(env):
    """continue/return from a switch inside a loop, if-else that both break, an if in the continuing block,
    a loop that exits only by return, and dead statements after terminators."""
    from irbuild import Break, Continue, Loop, Param, Return, Switch, SwitchCase, call
    out = resource("Out", "RWStructuredBuffer", UINT)
    px, j = var("x", UINT), var("j", UINT)
    jv = load(j)
    helper = function("src.helper", [
        store(j, u(0)),
        Loop(body=[
            Switch(bin("mod", jv, u(4)), [
                SwitchCase([0], False, [store(j, bin("add", jv, u(3))), Continue(), store(j, u(9))]),
                SwitchCase([1, 5], False, [If(bin("gt", jv, load(px)), [Return(jv)], [Break()])]),
                SwitchCase([], True, []),
            ]),
            If(bin("gt", jv, u(100)), [Break()], [Break()]),
            store(j, u(7)),
        ], continuing=[If(bin("lt", jv, u(50)), [store(j, bin("add", jv, u(1)))], [store(j, bin("add", jv, u(2)))])],
            break_if=bin("gt", jv, u(1000))),
        Loop(body=[If(bin("gt", jv, load(px)), [Return(jv)], []), store(j, bin("add", jv, u(1)))]),
    ], ret=UINT, params=[Param(px)], locals_=[j])
    tid, x = tid_x()
    m = compute_module([store(elem(out, x), call(helper, x)), Return(), store(elem(out, x), u(0))], [out],
                       functions=[helper], inputs=[tid])
    spirv(m, env)


_CROSS_KINDS = {"ssbos": "storage_buffer", "ubos": "uniform_buffer", "separate_images": "sampled_image",
                "separate_samplers": "sampler", "images": "storage_image"}


@pytest.mark.parametrize("make", [pixel_module, simple_compute])
def test_reflection_agrees_with_spirv_cross(make):
    from harness.tools import spirv_cross_reflect
    from shaderbuild_spirv.lower import reflection
    lowered = lower_module(make(), "vulkan1.1")
    cross = spirv_cross_reflect(lowered.binary)
    theirs = sorted((_CROSS_KINDS[k], r["set"], r["binding"]) for k in _CROSS_KINDS for r in cross.get(k, ()))
    ours = sorted((r["descriptor_type"], r["set"], r["binding"]) for r in reflection(lowered)["vulkan"]["resources"])
    assert ours == theirs
    for block in cross.get("ubos", ()):
        members = cross["types"][block["type"]]["members"]
        lay = layout_of(make().globals[3].type.elem, "std140")
        assert [m["offset"] for m in members] == list(lay.offsets)


def test_non_float_matrix_members_match_the_layout():
    """int2x3 is an array of 2 int3 rows; its ArrayStride and the next member's offset agree with layout.py."""
    S = Struct("IM", (StructField("m", Matrix(INT, 2, 3)), StructField("after", FLOAT)))
    buf = resource("B", "RWStructuredBuffer", S)
    tid, x = tid_x()
    body = [store(field(elem(buf, x), 1), conv(swz(load(index(field(elem(buf, x), 0), u(1))), "z"), FLOAT))]
    text = dis(spirv(compute_module(body, [buf], inputs=[tid])))
    lay = layout_of(S, "std430")
    assert f"OpMemberDecorate %IM 1 Offset {lay.offsets[1]}" in text and lay.offsets[1] == 32
    assert re.search(r"OpDecorate %_arr_v3int_uint_2 ArrayStride 16$", text, re.M)
