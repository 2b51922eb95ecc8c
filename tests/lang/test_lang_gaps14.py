"""Issue 20, round 14: programs DXC compiles that we refused, and ones it refuses that we took, found last round.
Each shader is our own; expected values are worked out in the test."""

from __future__ import annotations

import struct

import pytest
import res_util as R

EXCHANGE_FLOAT = """RWByteAddressBuffer B : register(u0);
[numthreads(8, 1, 1)]
void main(uint t : SV_GroupThreadID) {
    float o;
    B.InterlockedExchangeFloat(4 * t, t * 0.5 + 0.25, o);
    B.Store(32 + 4 * t, o);
    int k;
    B.InterlockedExchangeFloat(64, (float)t + 100.0, k);
    B.Store(68 + 4 * t, k);
}
"""


def test_byte_address_exchange_float_runs():
    """RWByteAddressBuffer.InterlockedExchangeFloat (SM 6.6, DXC's table; was 'no member function'): each thread
    swaps its own word (the old float comes back, its bits kept), then all eight swap one shared word: the
    originals they get back and the word's final value are the initial value and the eight values, each once.
    The `int` out argument takes the original converted from float, as DXC's `out float original`."""
    initial = [-1.5, 2.0, 3.25, -0.0, 1e10, 7.0, -8.5, 0.125]
    shared0 = 42.0
    data = struct.pack("<8f", *initial) + R.sentinel(8) + struct.pack("<f", shared0) + R.sentinel(8)
    out = R.cs(EXCHANGE_FLOAT, {"B": R.storage(data)}, profile="cs_6_6")["B"]
    words = R.unpack("f", out)
    assert words[:8] == [R.f32(t * 0.5 + 0.25) for t in range(8)]
    assert [struct.pack("<f", w) for w in words[8:16]] == [struct.pack("<f", x) for x in initial]
    got = R.unpack("i", out[68:100])
    final = words[16]
    seen = sorted([int(g) for g in got] + [int(final)])
    assert seen == sorted([int(shared0)] + [t + 100 for t in range(8)])


@pytest.mark.parametrize("src, profile, where, message", [
    (EXCHANGE_FLOAT, "cs_6_5", "5:7", "intrinsic 'InterlockedExchangeFloat' requires shader model 6.6 or higher"),
    ("ByteAddressBuffer B : register(t0);\n[numthreads(1, 1, 1)]\nvoid main() {\n    float o;\n"
     "    B.InterlockedExchangeFloat(0, 1.0, o);\n}\n", "cs_6_6", "5:7",
     "'InterlockedExchangeFloat' requires a RWByteAddressBuffer, not 'ByteAddressBuffer'"),
    ("RWStructuredBuffer<float> S : register(u0);\n[numthreads(1, 1, 1)]\nvoid main() {\n    float o;\n"
     "    InterlockedExchangeFloat(S[0], 1.0, o);\n}\n", "cs_6_6", "5:5",
     "use of undeclared identifier 'InterlockedExchangeFloat'; did you mean 'InterlockedExchange'?"),
    ("RWByteAddressBuffer B : register(u0);\n[numthreads(1, 1, 1)]\nvoid main() {\n"
     "    B.InterlockedExchangeFloat(0, 1.0, 2.0);\n}\n", "cs_6_6", "4:40",
     "cannot bind non-lvalue argument to out parameter of 'InterlockedExchangeFloat'"),
], ids=["before-6.6", "read-only-buffer", "no-free-function", "out-not-lvalue"])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_exchange_float_refusals(src, profile, where, message, target):
    """DXC's table has InterlockedExchangeFloat only as a RWByteAddressBuffer method (a float buffer element or
    groupshared float takes InterlockedExchange itself), from SM 6.6, with an out original."""
    want = [f"{where}: {message}"]
    if src is EXCHANGE_FLOAT:       # both calls
        want.append(f"8:7: {message}")
    assert R.errors(R.compile_hlsl(src, profile=profile, target=target)) == want


SPEC_ON_PARAM = """RWStructuredBuffer<float> Out : register(u0);
float f([[vk::constant_id(1)]] float x) { return x; }
[numthreads(1, 1, 1)]
void main() { Out[0] = f(1); }
"""


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_constant_id_on_a_parameter_is_refused(target):
    """DXC's attribute subject is a global scalar variable (Attr.td's ScalarGlobalVar); a parameter carrying it
    was accepted silently and the attribute dropped.  Same words as on a local."""
    assert R.errors(R.compile_hlsl(SPEC_ON_PARAM, target=target)) == [
        "2:11: [[vk::constant_id]] is only allowed on a global variable"]


DOUBLE_IN = """float4 main(QUAL double d : TEXCOORD1, nointerpolation uint64_t k : K) : SV_Target {
    return float4((float)d, (float)k, 0, 1);
}
"""


@pytest.mark.parametrize("qual", ["", "nointerpolation"])
def test_double_pixel_input_is_refused_in_dxil(qual):
    """DXC lowers a 64-bit stage input to LoadInput's f64 / i64 overload, which DXIL does not have, and its
    validator refuses the shader (Instr.Oload); we refuse it at the parameter (it was the same refusal in the
    op table's words), the first one read."""
    src = DOUBLE_IN.replace("QUAL ", qual + " " if qual else "")
    col = 20 + (len(qual) + 1 if qual else 0)
    assert R.errors(R.compile_hlsl(src, profile="ps_6_0", target="dxil")) == [
        f"1:{col}: the 64-bit stage input 'TEXCOORD1' (double) is not supported in DXIL: LoadInput has no f64 "
        "overload (DXC's validator: 'DXIL intrinsic overload must be valid'); pass its halves as uints "
        "(asuint / asdouble)"]


def test_double_vertex_output_is_refused_in_dxil():
    src = ("struct V { float4 p : SV_Position; double d : TEXCOORD0; };\n"
           "V main(float4 p : POSITION) { V v; v.p = p; v.d = p.x; return v; }\n")
    assert R.errors(R.compile_hlsl(src, profile="vs_6_0", target="dxil")) == [
        "1:43: the 64-bit stage output 'TEXCOORD0' (double) is not supported in DXIL: StoreOutput has no f64 "
        "overload (DXC's validator: 'DXIL intrinsic overload must be valid'); pass its halves as uints "
        "(asuint / asdouble)"]


@pytest.mark.parametrize("qual", ["", "nointerpolation"])
def test_double_pixel_input_is_flat_in_spirv(qual):
    """SPIR-V has 64-bit fragment inputs; Vulkan requires them Flat, which we add whether or not the source says
    nointerpolation (a double is never interpolated).  Passes spirv-val (R.compile_hlsl + tools)."""
    src = DOUBLE_IN.replace("QUAL ", qual + " " if qual else "")
    res = R.compile_hlsl(src, profile="ps_6_0", target="spirv")
    assert res.ok, R.diagnostics_text(res)
    R.spirv_val_flags(res.binary, "vulkan1.1")
    dis = R.spirv_dis(res)
    flat = {line.split()[1] for line in dis.splitlines() if line.strip().startswith("OpDecorate") and "Flat" in line}
    assert {"%in_TEXCOORD1", "%in_K"} <= flat
