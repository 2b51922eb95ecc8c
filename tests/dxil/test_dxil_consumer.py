"""dxil-spirv (vkd3d-proton's DXIL front end) as the independent consumer of our DXIL.

Every container the suite checks goes through it in harness/dxil_tools.check_dxil; this file tests the
consumer harness itself, keeps one strict xfail per listed dxil-spirv limit (so an entry that stops
applying is noticed), and runs SM 6.0 DXIL with every resource class through it on lavapipe.
"""

from __future__ import annotations

import struct

import pytest
import res_util as R
from harness import dxil_consumer, dxil_tools

pytestmark = [pytest.mark.llvm, pytest.mark.spirv_tools]

# one shader per listed limit: (profile, source)
LIMIT_EXAMPLES = {
    "ps-device-barrier": ("ps_6_0", """
RWStructuredBuffer<uint> U : register(u1);
float4 main(float4 p : SV_Position) : SV_Target { U[0] = 1; DeviceMemoryBarrier(); return p; }
"""),
    "tbuffer": ("cs_6_0", """
tbuffer TB : register(t0) { float a; float4 b; };
RWStructuredBuffer<float> Out : register(u1);
[numthreads(1, 1, 1)] void main() { Out[0] = a + b.w; }
"""),
    "sv-builtin-in-stage": ("hs_6_0", """
struct CP { float4 p : P; uint layer : SV_RenderTargetArrayIndex; };
struct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; };
PC pc() { PC c = (PC)0; return c; }
[domain("tri")] [partitioning("integer")] [outputtopology("triangle_cw")] [outputcontrolpoints(3)]
[patchconstantfunc("pc")]
float4 main(InputPatch<CP, 3> ip) : P { return ip[0].p + ip[1].layer; }
"""),
    "ssbo-sparse-feedback": ("cs_6_0", """
StructuredBuffer<uint> B : register(t0);
RWStructuredBuffer<uint> Out : register(u1);
[numthreads(1, 1, 1)] void main() { uint s; uint v = B.Load(0, s); Out[0] = v + CheckAccessFullyMapped(s); }
"""),
    "float-bitwise-atomic": ("cs_6_0", """
RWStructuredBuffer<float> Out : register(u1);
groupshared float g;
[numthreads(1, 1, 1)] void main() { float o; g = 0.0; InterlockedCompareExchangeFloatBitwise(g, 0.0, 4.5, o); Out[0] = o; }
"""),
    "binding-past-int32": ("cs_6_0", """
cbuffer C : register(b2147483648) { uint k; };
RWStructuredBuffer<uint> Out : register(u1);
[numthreads(1, 1, 1)] void main() { Out[0] = k; }
"""),
    "mesh-derivatives": ("as_6_6", """
struct Payload { float d; };
groupshared Payload pl;
[numthreads(4, 1, 1)]
void main(uint t : SV_GroupThreadID) { pl.d = ddx_fine((float)t * t); DispatchMesh(1, 1, 1, pl); }
"""),
    # compiled with -enable-16bit-types (the '16:' prefix): a typed UAV of F16 components, read
    "typed-uav-read-16bit": ("16:cs_6_2", """
RWTexture2D<half4> Img : register(u1);
[numthreads(1, 1, 1)] void main() { Img[uint2(0, 0)] = Img[uint2(1, 0)] * (half)2; }
"""),
}


def _ddx_in_compute() -> bytes:
    from test_dxil_compute import compile_ir, compute_module, id_x, uav
    from test_dxil_lower import store_out

    from shaderbuild import ir
    out = uav("Out", ir.FLOAT)

    def body(pid):
        return [store_out(out, pid, ir.Intrinsic("ddx", [ir.Convert(id_x(pid), ir.FLOAT)], ir.FLOAT))]
    return compile_ir(compute_module(body, [out], sm=(6, 6)), "cs_6_6").container


def _dxil(src: str, profile: str, opt_level: int = 3) -> bytes:
    bits16 = profile.startswith("16:")
    res = R.compile_hlsl(src, "main", profile.removeprefix("16:"), "dxil", opt_level=opt_level,
                         **({"enable_16bit_types": True} if bits16 else {}))
    assert res.ok, R.diagnostics_text(res)
    return res.binary


def test_every_limit_has_an_example():
    assert sorted(LIMIT_EXAMPLES) == sorted(dxil_consumer.LIMITS)


@pytest.mark.parametrize("key", [
    pytest.param(k, marks=pytest.mark.xfail(strict=True, raises=dxil_consumer.ConsumerLimit,
                                            reason=f"dxil-spirv limit: {r}"))
    for k, r in dxil_consumer.LIMITS.items()])
def test_known_consumer_limit(key):
    """dxil-spirv fails on this valid DXIL for the listed reason (recognised as that limit, not another
    failure); when a dxil-spirv update lifts it, this XPASSes and the entry must go."""
    profile, src = LIMIT_EXAMPLES[key]
    blob = _dxil(src, profile) if src is not None else _ddx_in_compute()
    dxil_tools.read_dxil(blob)  # our DXIL itself reads back with the LLVM tools
    try:
        dxil_consumer.to_spirv(blob)
    except dxil_consumer.ConsumerLimit as exc:
        assert exc.key == key, f"hit limit {exc.key!r}, expected {key!r}"
        raise


def test_compute_derivatives_convert_and_validate():
    """A former limit of the checker: dxil-spirv declares SPV_KHR_compute_shader_derivatives for ddx in an SM 6.6
    compute shader, which Debian's spirv-val does not know; the harness validates a copy naming the NV extension
    (same capability and mode numbers) and keeps the KHR module, which lavapipe runs
    (tests/resources/test_wide_waves12.py executes such shaders through it)."""
    from harness import tools
    spirv = dxil_consumer.to_spirv(_ddx_in_compute())
    text = tools.spirv_dis(spirv)
    assert 'OpExtension "SPV_KHR_compute_shader_derivatives"' in text
    assert "Capability ComputeDerivativeGroup" in text and "DerivativeGroup" in text.split("OpExecutionMode", 1)[1]


# Former limits, lifted by our CFG (tests/dxil/test_dxil_switch_cfg.py has the variants): their examples
# now convert and run.  name -> (source, U before, the model: U after, computed here)
SWITCH_RETURN_IN_LOOP = """
RWStructuredBuffer<uint> U : register(u0);
uint f(uint n) {
    for (uint i = 0; i < n; i++) {
        switch (U[i]) { case 1: return i; case 2: U[i] = 5; break; default: break; }
    }
    return 99;
}
[numthreads(1, 1, 1)] void main() { U[0] = f(U[1]); }
"""
SWITCH_CONTINUE_IN_LOOP = """
RWStructuredBuffer<uint> U : register(u0);
[numthreads(1,1,1)] void main() {
    int w2 = 0;
    while (w2 < (int)U[9]) {
        w2++;
        switch (w2 & 3) {
        case 2: { break; }
        case 3: { if (U[4] == 0) continue; break; }
        default: { break; }
        }
    }
    U[0] = 5;
}
"""


def _switch_return_model(u: list[int]) -> list[int]:
    u, r = list(u), 99
    for i in range(u[1]):
        if u[i] == 1:
            r = i
            break
        if u[i] == 2:
            u[i] = 5
    u[0] = r
    return u


FORMER_LIMITS = {
    "switch-return-in-loop": (SWITCH_RETURN_IN_LOOP, _switch_return_model),
    "switch-continue-in-loop": (SWITCH_CONTINUE_IN_LOOP, lambda u: [5, *u[1:]]),
}
FORMER_INPUTS = [[0, 6, 2, 3, 2, 1, 2, 0, 0, 10], [0, 4, 2, 0, 0, 0, 1, 0, 0, 3], [3, 0, 0, 0, 0, 0, 0, 0, 0, 0]]


@pytest.mark.vulkan
@pytest.mark.parametrize("opt", [0, 3])
@pytest.mark.parametrize("key", list(FORMER_LIMITS))
def test_former_limit_example_converts_and_runs(key, opt, vk):
    """dxil-spirv once failed on these (a switch case returning out of its loop: its structurizer aborted;
    one that may `continue` past empty blocks: a block without terminator).  Converted without any error
    (a listed limit or not) and run on lavapipe, the DXIL leaves U as the model says."""
    src, model = FORMER_LIMITS[key]
    blob = _dxil(src, "cs_6_0", opt)
    spirv = dxil_consumer.to_spirv(blob)
    for u in FORMER_INPUTS:
        data = struct.pack("<10I", *u)
        out = vk.run_compute(spirv, "main", [vk.Buf(0, dxil_consumer.SHIFTS["u"], data, "storage")])[0]
        assert list(struct.unpack("<10I", out)) == model(u), u


def test_a_corrupt_container_is_a_failure_not_a_skip():
    """Bitcode the consumer cannot parse: an error (exit status or signal), reported as a ConsumerError."""
    blob = _dxil("RWStructuredBuffer<uint> U; [numthreads(1,1,1)] void main() { U[0] = 7; }", "cs_6_0")
    bc = dxil_tools.extract_bitcode(blob)
    junk = bc[:8] + bytes((b * 37 + 11) & 0xFF for b in bc[8:])
    broken = dxil_tools.make_container([("DXIL", dxil_tools.dxil_part(junk, 5))])
    with pytest.raises(dxil_consumer.ConsumerError) as info:
        dxil_consumer.to_spirv(broken)
    assert not isinstance(info.value, dxil_consumer.ConsumerLimit)
    assert "dxil-spirv" in str(info.value)


@pytest.mark.parametrize("minor, env", [(0, "vulkan1.1"), (3, "vulkan1.1"), (4, "vulkan1.2"), (5, "vulkan1.2"),
                                        (6, "vulkan1.3")])
def test_target_env_follows_the_spirv_version(minor, env):
    header = struct.pack("<5I", 0x07230203, (1 << 16) | (minor << 8), 0, 1, 0)
    assert dxil_consumer.target_env(header) == env


SM60_ALL_CLASSES = """
cbuffer Params : register(b0) { float4 scale; uint base; };
Texture2D<float4> Tex : register(t0);
SamplerState Samp : register(s0);
RWStructuredBuffer<float4> Out : register(u0);
[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    float4 t = Tex.SampleLevel(Samp, float2((id.x + 0.5) / 4.0, 0.5), 0);
    Out[id.x] = t * scale + (float)(base + id.x);
}
"""


@pytest.mark.vulkan
def test_sm60_cbuffer_texture_sampler_uav_converts_and_runs(vk):
    """SM 6.0 DXIL with one resource of each class (b, t, s, u) converts, validates and computes what the
    HLSL says, computed here from the texel bytes: texel(x) * scale + base + x."""
    blob = _dxil(SM60_ALL_CLASSES, "cs_6_0")
    spirv = dxil_tools.check_dxil(blob).spirv
    assert spirv is not None
    texels = [(10 * x + 1, 20 * x + 2, 30 * x + 3, 255) for x in range(4)]
    scale, base = (2.0, 0.5, -1.0, 1.0), 100
    sh = dxil_consumer.SHIFTS
    descs = [
        vk.Buf(0, sh["b"] + 0, struct.pack("<4fI12x", *scale, base), "uniform"),
        vk.Image(0, sh["t"] + 0, bytes(c for t in texels for c in t), 4, 1, "rgba8"),
        vk.Sampler(0, sh["s"] + 0),
        vk.Buf(0, sh["u"] + 0, bytes(64), "storage"),
    ]
    out = vk.run_compute(spirv, "main", descs)[3]
    got = struct.unpack("<16f", out)
    for x in range(4):
        want = [R.f32(c / 255.0) * s + (base + x) for c, s in zip(texels[x], scale)]
        assert R.approx(got[4 * x:4 * x + 4], want, 1e-6), (x, got[4 * x:4 * x + 4], want)


def test_an_absent_consumer_fails_in_ci(monkeypatch):
    """CI must never go green by skipping the consumer: a converter that is not there fails the test."""
    monkeypatch.setenv("SHADERBUILD_DXIL_SPIRV", "/nonexistent/dxil-to-spirv")
    monkeypatch.setenv("CI", "true")
    dxil_consumer._converter.cache_clear()
    try:
        with pytest.raises(pytest.fail.Exception, match="dxil-to-spirv"):
            dxil_consumer.converter()
    finally:
        monkeypatch.undo()
        dxil_consumer._converter.cache_clear()


@pytest.mark.vulkan
def test_uav_counter_through_dxil_spirv(vk):
    """IncrementCounter: dxil-spirv keeps the counter in an R32_UINT storage texel buffer at set 7, binding =
    the UAV's range id; four threads get the distinct slots 0..3 and leave the counter at 4."""
    src = ("RWStructuredBuffer<uint> U : register(u3);\n[numthreads(4, 1, 1)]\n"
           "void main(uint3 id : SV_DispatchThreadID) { U[U.IncrementCounter()] = id.x + 10; }\n")
    res = R.compile_hlsl(src, "main", "cs_6_0", "dxil")
    spirv = dxil_tools.check_dxil(res.binary).spirv
    range_id = res.manifest["backend"]["dxil"]["resources"][0]["range_id"]
    descs = [vk.Buf(0, dxil_consumer.SHIFTS["u"] + 3, R.sentinel(4), "storage"),
             vk.TexelBuffer(dxil_consumer.COUNTER_SET, range_id, bytes(4), "r32ui", "storage_texel_buffer")]
    out, counter = vk.run_compute(spirv, "main", descs)
    assert sorted(struct.unpack("<4I", out)) == [10, 11, 12, 13]
    assert struct.unpack("<I", counter) == (4,)
