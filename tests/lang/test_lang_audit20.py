"""Issue 20 conformance audit: programs probed in contexts the other corpora do not reach, each a
refusal, a wrong value, invalid output or an unlocated error found by a probe, now fixed.

Covered here: legacy `sampler1D/2D/3D/CUBE` (sampler states) and global `string`s; texture offsets folded
through const data; 64-bit switches; operator[] / binary operators on struct values and `Base::f()`; the
order of static initialisers; step() with NaN; parameter orientation conflicts; IsHelperLane; packed-byte
intrinsics (dot4add, dot2add, pack/unpack); QuadAny/QuadAll; noperspective + centroid/sample; 64-bit atomics;
float_like<> / float<> intrinsics given a double or a half; backend errors located; 16-bit
ByteAddressBuffer access, texels and bit intrinsics; texture/sampler and unused-resource binding sharing;
asfloat16/asint16/asuint16; SV_StartVertexLocation/SV_StartInstanceLocation; the Sample* clamp operand;
four-offset gathers.  Expected values are computed here in Python from the inputs, never by the compiler.
"""

from __future__ import annotations

import re

import pytest
import res_util as R

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]


def _compile(src: str, target: str = "spirv", profile: str = "cs_6_0"):
    return compile_file("a20.hlsl", CompileOptions(entry="main", profile=profile, target=target), text=src)


def _errors(src: str, target: str = "spirv") -> list[str]:
    res = _compile(src, target)
    assert not res.ok, f"{target}: compiled, expected an error"
    return [f"{d.loc.line}:{d.loc.col}: {d.message}" for d in res.diagnostics if d.severity == "error"]


# a 4x1 r32f row: 0, 10, 20, 30; nearest sampling of u in texel i gives 10 * i
ROW = R.pack("f", [0.0, 10.0, 20.0, 30.0])

LEGACY_SAMPLERS = """
Texture2D<float> Tex : register(t0);
sampler2D S2 : register(s1);
sampler1D S1 : register(s2);
samplerCUBE SC : register(s3);
sampler3D S3 = sampler_state { Filter = MIN_MAG_MIP_POINT; };
RWStructuredBuffer<float> Out : register(u4);
float fetch(sampler2D s, float u) { return Tex.SampleLevel(s, float2(u, 0.5), 0); }
[numthreads(1,1,1)] void main() {
    Out[0] = fetch(S2, 0.3);
    Out[1] = Tex.SampleLevel(S1, float2(0.6, 0.5), 0);
    Out[2] = Tex.SampleLevel(SC, float2(0.9, 0.5), 0);
}
"""


def test_legacy_sampler_spellings_are_sampler_states():
    out = R.cs(LEGACY_SAMPLERS, {"Tex": R.image(ROW, 4, 1, "r32f"), "S2": R.sampler(), "S1": R.sampler(),
                                 "SC": R.sampler(), "Out": R.storage(R.sentinel(3))})
    assert R.unpack("f", out["Out"]) == [10.0 * int(u * 4) for u in (0.3, 0.6, 0.9)]
    R.build_dxil(LEGACY_SAMPLERS)


def test_user_struct_named_sampler2D_wins():
    src = """
struct sampler2D { Texture2D<float> t; SamplerState s; };
float tex2D(sampler2D x, float2 v) { return x.t.SampleLevel(x.s, v, 0); }
sampler2D g;
RWStructuredBuffer<float> Out : register(u4);
[numthreads(1,1,1)] void main() { Out[0] = tex2D(g, float2(0.6, 0.5)); }
"""
    for target in ("spirv", "dxil"):
        res = _compile(src, target)
        assert res.ok, target
        kinds = sorted(r["kind"] for r in res.manifest["resources"])
        assert "Texture2D" in kinds and "SamplerState" in kinds, kinds


STRINGS = """
string first = "first string";
static const string joined = "a " "b";
const string copy = first;
string none;
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(1,1,1)] void main() { Out[0] = 5; }
"""


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_global_strings_are_accepted_and_dropped(target):
    res = _compile(STRINGS, target)
    assert res.ok and not [d for d in res.diagnostics if d.severity == "error"]
    assert [r["name"] for r in res.manifest["resources"]] == ["Out"]     # no $Globals for the strings


HEAD = "RWStructuredBuffer<uint> Out : register(u0);\n"
ONLY_GLOBAL = ("a string declaration may only appear at global scope (not as an array, field, parameter, "
               "return value or local)")


@pytest.mark.parametrize("body, want", [
    ("string a[2];\n[numthreads(1,1,1)] void main() { Out[0] = 1; }", ["2:8: array of type string is not supported"]),
    ('string a = "x";\n[numthreads(1,1,1)] void main() { Out[0] = a; }',
     ["3:44: 'a' is a string (only printf reads strings, as its format), not a variable"]),
    ("string a = 3;\n[numthreads(1,1,1)] void main() { Out[0] = 1; }",
     ["2:12: a string can only be initialized with a string literal or another string"]),
    ('[numthreads(1,1,1)] void main() { string s = "a"; Out[0] = 1; }', [f"2:35: {ONLY_GLOBAL}"]),
    ("void f(string s) {}\n[numthreads(1,1,1)] void main() { Out[0] = 1; }", [f"2:8: {ONLY_GLOBAL}"]),
    ("struct S { string s; };\n[numthreads(1,1,1)] void main() { Out[0] = 1; }", [f"2:12: {ONLY_GLOBAL}"]),
], ids=["array", "read", "bad_init", "local", "parameter", "field"])
def test_string_misuse_is_a_located_error(body, want):
    for target in ("spirv", "dxil"):
        assert _errors(HEAD + body, target) == want


# Texture offsets must be constants after folding (DXC: immediate after optimisation / legalisation); these
# spell them through a static const array element, a static const struct field, a swizzle of a static const
# vector, a cast, min/max and a const local.  An 8x1 r32f row holds 100 * x at texel x.
ROW8 = R.pack("f", [100.0 * x for x in range(8)])
OFFSETS = """
Texture2D<float> Tex : register(t0);
SamplerState S : register(s1);
RWStructuredBuffer<float> Out : register(u2);
static const int K = 2;
static const int2 V = int2(-1, 3);
static const int TABLE[3] = { 1, -2, 3 };
struct Offs { int2 a; int b; };
static const Offs OS = { int2(2, 0), -3 };
[numthreads(1,1,1)] void main() {
    const int2 local_off = int2(K + 1, 0);
    Out[0] = Tex.Load(int3(2, 0, 0), int2(TABLE[2], 0));          // 2 + 3
    Out[1] = Tex.Load(int3(4, 0, 0), int2(TABLE[K - 1], 0));      // 4 - 2
    Out[2] = Tex.Load(int3(1, 0, 0), OS.a);                       // 1 + 2
    Out[3] = Tex.Load(int3(5, 0, 0), int2(OS.b, 0));              // 5 - 3
    Out[4] = Tex.Load(int3(2, 0, 0), V.yx - int2(0, -1));         // 2 + 3 (the y offset is 0)
    Out[5] = Tex.Load(int3(6, 0, 0), (int2)uint2(0xFFFFFFFEu, 0)); // 6 - 2
    Out[6] = Tex.Load(int3(0, 0, 0), int2(max(K, 5), min(K, 0))); // 0 + 5
    Out[7] = Tex.Load(int3(3, 0, 0), local_off);                  // 3 + 3
    Out[8] = Tex.SampleLevel(S, float2(0.0625, 0.5), 0, int2(TABLE[0], 0));   // texel 0 + 1
}
"""


def test_texture_offsets_folded_from_const_data():
    out = R.cs(OFFSETS, {"Tex": R.image(ROW8, 8, 1, "r32f"), "S": R.sampler(), "Out": R.storage(R.sentinel(9))})
    texels = [2 + 3, 4 - 2, 1 + 2, 5 - 3, 2 + 3, 6 - 2, 0 + 5, 3 + 3, 0 + 1]
    assert R.unpack("f", out["Out"]) == [100.0 * x for x in texels]
    R.build_dxil(OFFSETS)


def test_offset_from_a_runtime_value_is_still_an_error():
    src = """
Texture2D<float> Tex : register(t0);
RWStructuredBuffer<float> Out : register(u2);
static int2 mutable_off = int2(1, 0);
[numthreads(1,1,1)] void main(uint3 id : SV_DispatchThreadID) {
    const int2 from_id = int2(id.x, 0);
    Out[0] = Tex.Load(int3(0, 0, 0), mutable_off);
    Out[1] = Tex.Load(int3(0, 0, 0), from_id);
}
"""
    for target in ("spirv", "dxil"):
        assert _errors(src, target) == ["7:38: texture offsets must be compile-time constants",
                                        "8:38: texture offsets must be compile-time constants"]


# A switch on a 64-bit value keeps all 64 bits (clang's rules, as DXC): `case 0x100000000` and `case 0` are
# different labels, a value that only matches modulo 2^32 falls to the default, and fall-through still works.
SWITCH64 = """
StructuredBuffer<uint64_t> U : register(t1);
StructuredBuffer<int64_t> S : register(t2);
RWStructuredBuffer<uint> Out : register(u0);
uint classify(uint64_t v) {
    uint r = 0;
    switch (v) {
    case 0: r = 1; break;
    case 0x100000000: r = 2; break;
    case 0xFFFFFFFF: r = 3;          // falls through
    case 0x1FFFFFFFFull: r += 40; break;
    default: r = 9; break;
    case 5: r = 5;
    }
    return r;
}
[numthreads(1,1,1)] void main() {
    for (uint i = 0; i < 6; i++) {
        Out[i] = classify(U[i]);
        int64_t s = S[i];
        uint t = 7;
        switch (s) { case -1: t = 1; break; case 0xFFFFFFFF: t = 2; break; case -0x100000000: t = 3; break; }
        Out[6 + i] = t;
    }
}
"""
U64 = [0, 1 << 32, 0xFFFFFFFF, 0x1FFFFFFFF, 5 + (1 << 32), 5]
S64 = [-1, 0xFFFFFFFF, -(1 << 32), (1 << 32) - 1 - (1 << 33), 1, -(1 << 32) + 0xFFFFFFFF]


def _classify(v: int) -> int:
    return {0: 1, 1 << 32: 2, 0xFFFFFFFF: 43, 0x1FFFFFFFF: 40, 5: 5}.get(v, 9)


def test_switch_on_64_bit_values_keeps_every_bit():
    from lang_util import run_cs

    out = run_cs(SWITCH64, {"Out": ("uint", 12)}, {"U": ("uint64_t", U64), "S": ("int64_t", S64)})
    signed = [{-1: 1, 0xFFFFFFFF: 2, -(1 << 32): 3}.get(s, 7) for s in S64]
    assert out["Out"] == [_classify(v) for v in U64] + signed


# HLSL 2021 operators on struct values that are not variables: `m[i][j]` where m[i] is an operator[] result,
# `(a + b) * k` where the left side is an operator+ result, and `Base::f()` naming a hidden base method
# inside a derived one.
STRUCT_OPERATORS = """
StructuredBuffer<int> In : register(t1);
RWStructuredBuffer<int> Out : register(u0);
struct Row { int e[4]; int operator[](uint i) { return e[i]; } };
struct Grid { Row rows[2]; Row operator[](uint i) { return rows[i]; } };
struct C {
    int r, i;
    C operator+(C o) { C x; x.r = r + o.r; x.i = i + o.i; return x; }
    C operator*(int k) { C x; x.r = r * k; x.i = i * k; return x; }
};
struct Base { int f() { return 1; } int g() { return 10 * f(); } };
struct Der : Base { int f() { return 2; } int h() { return Base::f() * 100 + f() * 10 + Base::g(); } };
[numthreads(1,1,1)] void main() {
    Grid m;
    for (uint r = 0; r < 2; r++)
        for (uint c = 0; c < 4; c++)
            m.rows[r].e[c] = In[0] * (int)(r * 4 + c);
    Out[0] = m[1][In[1]];                 // row 1, column 2: 3 * 6
    Out[1] = m[In[2]][3];                 // row 0, column 3: 3 * 3
    C a = { In[0], 1 };
    C b = { 4, In[1] };
    C c = (a + b) * In[1];                // (7, 3) * 2
    Out[2] = c.r;
    Out[3] = c.i;
    Der d;
    Out[4] = d.h();                       // 1 * 100 + 2 * 10 + 10 * 1 (g calls Base's f)
}
"""


def test_struct_operators_on_values_and_qualified_base_calls():
    from lang_util import run_cs

    out = run_cs(STRUCT_OPERATORS, {"Out": ("int", 5)}, {"In": ("int", [3, 2, 0])})
    assert out["Out"] == [3 * 6, 3 * 3, 7 * 2, 3 * 2, 100 + 20 + 10]


# A static initialised at run time may read a static const table: the constant initialisers are stored
# before the run-time ones run (the SPIR-V build read the table before it was written).
STATIC_FROM_TABLE = """
StructuredBuffer<float> F : register(t1);
RWStructuredBuffer<float> Out : register(u0);
struct P { float a; float2 b; };
static const P TABLE[2] = { {1, float2(2, 3)}, {4, 5, 6} };
static const float2 PAIRS[2] = { float2(1, 2), float2(3, 4) };
static P swapped[2] = { TABLE[1], TABLE[0] };
static float2 mixed[2] = { PAIRS[1], float2(F[0], PAIRS[0].y) };
float pick(uint i) { return swapped[i].b.y + mixed[i].x; }
[numthreads(1,1,1)] void main() {
    Out[0] = pick(0);            // 6 + 3
    Out[1] = pick(1);            // 3 + F[0]
    swapped[1].a += 10;
    Out[2] = swapped[1].a + TABLE[1].a;   // 11 + 4
}
"""


def test_runtime_static_initialiser_reads_a_constant_table():
    from lang_util import run_cs

    out = run_cs(STATIC_FROM_TABLE, {"Out": ("float", 3)}, {"F": ("float", [0.5])})
    assert out["Out"] == [6.0 + 3.0, 3.0 + 0.5, 11.0 + 4.0]


# step(edge, x) is `x < edge ? 0 : 1` (DXC's expansion for DXIL, GLSL's Step for SPIR-V): an unordered
# comparison is false, so a NaN operand gives 1.
STEP_NAN = """
StructuredBuffer<float> F : register(t1);
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1,1,1)] void main() {
    float nan = F[0], one = F[1];
    Out[0] = step(nan, one);
    Out[1] = step(one, nan);
    float2 v = step(float2(nan, 2), float2(one, one));
    Out[2] = v.x;
    Out[3] = v.y;
    Out[4] = step(one, one);
}
"""


def test_step_with_nan_operands():
    from lang_util import run_cs

    out = run_cs(STEP_NAN, {"Out": ("float", 5)}, {"F": ("float", [float("nan"), 1.0])})
    assert out["Out"] == [1.0, 1.0, 1.0, 0.0, 1.0]


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_conflicting_orientation_on_a_parameter_is_an_error(target):
    src = ("RWStructuredBuffer<float> Out : register(u0);\ntypedef row_major float2x2 RM;\n"
           "float f(column_major RM m) { return m._11; }\n"
           "[numthreads(1,1,1)] void main() { Out[0] = f((RM)1); }\n")
    assert _errors(src, target) == ["3:25: 'column_major' cannot apply to 'RM', a typedef of a 'row_major' matrix"]


# IsHelperLane (SM 6.6): a triangle covering only pixel (1, 1)'s centre of a 4x4 target runs its 2x2 quad
# with three helper lanes; the covered lane sees them across x and y and is not one itself.
TINY_TRIANGLE_VS = """
float4 main(uint id : SV_VertexID) : SV_Position {
    float2 c = float2(-0.25, -0.25);          // pixel (1, 1)'s centre in NDC
    float2 o = id == 0 ? float2(-0.1, -0.1) : id == 1 ? float2(0.1, -0.1) : float2(0.0, 0.1);
    return float4(c + o, 0, 1);
}
"""
HELPER_PS = """
float4 main(float4 p : SV_Position) : SV_Target {
    float h = IsHelperLane() ? 1.0 : 0.0;
    return float4(QuadReadAcrossX(h), QuadReadAcrossY(h), h, 1);
}
"""


def test_is_helper_lane_in_a_partly_covered_quad():
    from dxil_run import draw_twin

    vs, ps = R.build(TINY_TRIANGLE_VS, profile="vs_6_6"), R.build(HELPER_PS, profile="ps_6_6")
    targets, got = R.vk_runner().run_graphics(vs.binary, "main", ps.binary, "main", 4, 4, [], None, 3, full=True)
    draw_twin(vs, ps, "main", "main", {}, 4, 4, None, 3, targets, {})
    px = targets[0]
    assert R.pixel(px, 4, 1, 1) == (255, 255, 0, 255)
    assert all(R.pixel(px, 4, x, y) == (0, 0, 0, 0) for x in range(4) for y in range(4) if (x, y) != (1, 1))


@pytest.mark.parametrize("profile", ["cs_6_6", "vs_6_6"])
def test_is_helper_lane_is_false_outside_pixel_shaders(profile):
    src = ("RWStructuredBuffer<uint> Out : register(u0);\n"
           + ("[numthreads(1,1,1)] void main() { Out[0] = IsHelperLane() ? 7 : 3; }" if profile[0] == "c" else
              "float4 main(float4 p : POSITION) : SV_Position { Out[0] = IsHelperLane() ? 7 : 3; return p; }"))
    for target in ("spirv", "dxil"):
        res = _compile(src, target, profile)
        assert res.ok, target
    if profile[0] == "c":
        out = R.cs(src, {"Out": R.storage(R.sentinel(1))}, profile=profile)
        assert R.unpack("I", out["Out"]) == [3]


# SM 6.4 / 6.6 packed bytes: dot4add_u8packed / dot4add_i8packed, dot2add, pack_u8 / pack_s8 /
# pack_clamp_u8 / pack_clamp_s8, unpack_u8u32 / unpack_s8s32 (byte 0 is the lowest).  Expected values from
# the byte lists in Python.
PACKED = """
StructuredBuffer<uint> U : register(t1);
StructuredBuffer<int> I : register(t2);
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(1,1,1)] void main() {
    uint k = 0;
    for (uint i = 0; i < 4; i++) {
        uint a = U[2 * i], b = U[2 * i + 1];
        Out[k++] = dot4add_u8packed(a, b, 5u);
        Out[k++] = (uint)dot4add_i8packed(a, b, -7);
        uint8_t4_packed p = pack_u8(uint4(a, b, a >> 8, b >> 16));
        Out[k++] = p;
        Out[k++] = pack_s8(int4(I[i], -I[i], I[i] * 3, 5));
        Out[k++] = pack_clamp_u8(int4(I[i], -I[i], I[i] * 3, 300));
        Out[k++] = pack_clamp_s8(int4(I[i], -I[i], I[i] * 3, -300));
        uint4 u = unpack_u8u32(a);
        int4 s = unpack_s8s32((int8_t4_packed)b);
        Out[k++] = u.x + 10 * u.w;
        Out[k++] = (uint)(s.y * 1000 + s.w);
    }
}
"""
PACKED_U = [0x01020304, 0x05060708, 0xFFFEFD80, 0x7F01FF02, 0x80808080, 0xFFFFFFFF, 0x12345678, 0x9ABCDEF0]
PACKED_I = [5, -100, 200, 77]


def _bytes(w: int) -> list[int]:
    return [(w >> (8 * i)) & 255 for i in range(4)]


def _sbyte(x: int) -> int:
    return x - 256 if x >= 128 else x


def _pack(values) -> int:
    return sum((v & 255) << (8 * i) for i, v in enumerate(values))


def _packed_want() -> list[int]:
    want = []
    for i in range(4):
        a, b, v = PACKED_U[2 * i], PACKED_U[2 * i + 1], PACKED_I[i]
        want.append((5 + sum(x * y for x, y in zip(_bytes(a), _bytes(b)))) & 0xFFFFFFFF)
        want.append((-7 + sum(_sbyte(x) * _sbyte(y) for x, y in zip(_bytes(a), _bytes(b)))) & 0xFFFFFFFF)
        want.append(_pack([a, b, a >> 8, b >> 16]))
        want.append(_pack([v, -v, v * 3, 5]))
        want.append(_pack([min(max(x, 0), 255) for x in (v, -v, v * 3, 300)]))
        want.append(_pack([min(max(x, -128), 127) for x in (v, -v, v * 3, -300)]))
        sb = [_sbyte(x) for x in _bytes(b)]
        want.append(_bytes(a)[0] + 10 * _bytes(a)[3])
        want.append((sb[1] * 1000 + sb[3]) & 0xFFFFFFFF)
    return want


def test_packed_byte_intrinsics():
    from lang_util import run_cs

    want = _packed_want()
    out = run_cs(PACKED, {"Out": ("uint", len(want))}, {"U": ("uint", PACKED_U), "I": ("int", PACKED_I)},
                 profile="cs_6_6")
    assert out["Out"] == want


DOT2ADD = """
StructuredBuffer<float4> F : register(t1);
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1,1,1)] void main() {
    Out[0] = dot2add(F[0].xy, F[0].zw, F[1].x);
    Out[1] = dot2add(half2(1, 2), half2(3, 4), F[1].y);
}
"""


def test_dot2add():
    from lang_util import run_cs

    out = run_cs(DOT2ADD, {"Out": ("float", 2)}, {"F": ("float4", [(1.5, -2.0, 4.0, 0.25), (10.0, 0.5, 0, 0)])},
                 profile="cs_6_4")
    assert out["Out"] == [10.0 + 1.5 * 4.0 - 2.0 * 0.25, 0.5 + 1 * 3 + 2 * 4]


@pytest.mark.parametrize("src, profile, want", [
    ("Out[0] = dot4add_u8packed(1u, 2u, 3u);", "cs_6_0",
     "intrinsic 'dot4add_u8packed' requires shader model 6.4 or higher"),
    ("Out[0] = pack_u8(float4(1, 2, 3, 4));", "cs_6_6",
     "no matching intrinsic for call to 'pack_u8': the argument must be a 4-vector of 32- or 16-bit integers, "
     "not 'float4'"),
    ("Out[0] = pack_clamp_u8(uint4(1, 2, 3, 4));", "cs_6_6",
     "no matching intrinsic for call to 'pack_clamp_u8': the argument must be int4 or int16_t4, not 'uint4'"),
    ("Out[0] = unpack_u8u16(Out[1]).x;", "cs_6_6", "'uint16_t' requires -enable-16bit-types"),
])
def test_packed_byte_misuse(src, profile, want):
    full = f"RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(1,1,1)] void main() {{ {src} }}\n"
    for target in ("spirv", "dxil"):
        res = _compile(full, target, profile)
        assert not res.ok
        assert [d.message for d in res.diagnostics if d.severity == "error"] == [want]


# QuadAny / QuadAll (SM 6.7) in a compute shader: quads are lanes 4k .. 4k+3 (QuadReadAcrossX is t ^ 1).
QUAD_VOTE = """
StructuredBuffer<uint> In : register(t1);
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(16, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
    uint t = tid.x;
    Out[t] = (QuadAny(In[t] == 1) ? 1u : 0u) | (QuadAll(In[t] != 2) ? 2u : 0u);
}
"""
QUAD_IN = [0, 0, 0, 0, 1, 0, 0, 0, 2, 1, 1, 1, 1, 1, 1, 1]


def test_quad_any_and_all_in_compute():
    from lang_util import run_cs

    out = run_cs(QUAD_VOTE, {"Out": ("uint", 16)}, {"In": ("uint", QUAD_IN)}, profile="cs_6_7")
    want = []
    for t in range(16):
        quad = QUAD_IN[t - t % 4:t - t % 4 + 4]
        want.append((1 if any(v == 1 for v in quad) else 0) | (2 if all(v != 2 for v in quad) else 0))
    assert out["Out"] == want


# `noperspective centroid` / `noperspective sample` keep both parts: SPIR-V NoPerspective + Centroid / Sample
# (as DXC decorates), DXIL LinearNoperspectiveCentroid / LinearNoperspectiveSample (modes 5 and 7).
INTERPOLATION_PS = """
float4 main(float4 p : SV_Position, noperspective centroid float2 q : Q, sample noperspective float r : R,
            centroid float s : S, nointerpolation float4 c : C) : SV_Target { return q.xyxy + r + s + c; }
"""
# (`nointerpolation centroid` is DXC's error "'nointerpolation' and 'centroid' cannot be used together":
# tests/lang/test_lang_stages9.py)


def test_noperspective_keeps_centroid_and_sample():
    from harness import dxil_tools, tools

    res = _compile(INTERPOLATION_PS, "spirv", "ps_6_0")
    assert res.ok
    tools.spirv_val(res.binary, "vulkan1.1")
    dis = tools.spirv_dis(res.binary)
    decorations = {name: sorted(re.findall(rf"OpDecorate %in_{name} (NoPerspective|Centroid|Sample|Flat)\b", dis))
                   for name in "QRSC"}
    assert decorations == {"Q": ["Centroid", "NoPerspective"], "R": ["NoPerspective", "Sample"], "S": ["Centroid"],
                           "C": ["Flat"]}
    dx = _compile(INTERPOLATION_PS, "dxil", "ps_6_0")
    assert dx.ok
    psv = next(p for p in dxil_tools.parse_container(dx.binary)["Parts"] if p["Name"] == "PSV0")
    modes = {e["Name"]: e["Interpolation"] for e in psv["PSVInfo"]["SigInputElements"] if e["Name"]}
    assert modes == {"Q": "LinearNoperspectiveCentroid", "R": "LinearNoperspectiveSample", "S": "LinearCentroid",
                     "C": "Constant"}


# 64-bit atomics (SM 6.6) on a structured buffer and on groupshared memory: the SPIR-V module declares
# Int64Atomics (spirv-val refused it before); results are independent of thread order.
ATOMIC64 = """
RWStructuredBuffer<uint64_t> B : register(u0);
RWStructuredBuffer<int64_t> S : register(u1);
groupshared int64_t g;
[numthreads(8, 1, 1)]
void main(uint3 t : SV_DispatchThreadID) {
    if (t.x == 0) g = 0;
    GroupMemoryBarrierWithGroupSync();
    InterlockedAdd(B[0], 0x100000001ull);
    InterlockedMax(B[1], (uint64_t)t.x << 40);
    InterlockedOr(B[2], 1ull << (t.x * 8));
    InterlockedMin(g, -((int64_t)t.x << 35));
    uint64_t seen;
    InterlockedCompareExchange(B[3], 0ull, 0xABCDEF0123ull, seen);
    GroupMemoryBarrierWithGroupSync();
    if (t.x == 0) S[0] = g;
}
"""


def test_64_bit_atomics():
    from lang_util import run_cs

    out = run_cs(ATOMIC64, {"B": ("uint64_t", [5, 0, 0, 0]), "S": ("int64_t", 1)}, profile="cs_6_6")
    assert out["B"] == [5 + 8 * 0x100000001, 7 << 40, sum(1 << (8 * t) for t in range(8)), 0xABCDEF0123]
    assert out["S"] == [-(7 << 35)]


def test_64_bit_atomic_before_sm_6_6_is_a_located_dxil_error():
    src = "RWStructuredBuffer<uint64_t> B : register(u0);\n[numthreads(4,1,1)] void main() { InterlockedAdd(B[0], 1ull); }"
    assert _errors(src, "dxil") == ["2:35: operation AtomicBinOp with i64 requires shader model 6.6 (profile cs_6_0)"]


# DXC's float_like<> intrinsics (sqrt, frac, floor, pow, lerp, length, ...) have no double overload: a double
# argument converts to float (with the narrowing warning) and the result is a float.  frac(1 + 2^-30) is 0 and
# floor(2^30 - 2^-10) is 2^30 once the argument is a float (in double they would be 2^-30 and 2^30 - 1);
# saturate, abs, min and mad keep doubles.
DOUBLE_ARGS = """
StructuredBuffer<double> D : register(t1);
RWStructuredBuffer<double> Out : register(u0);
[numthreads(1,1,1)] void main() {
    double a = D[0], b = D[1];
    Out[0] = frac(a);
    Out[1] = floor(b);
    Out[2] = abs(-a) - 1.0;
    Out[3] = min(b, 2e9) - 1073741823.0;
}
"""


@pytest.mark.parametrize("backend", ["spirv", "dxil", "dxil-vk"])
def test_double_arguments_of_float_like_intrinsics_become_float(backend):
    from lang_util import run_backend

    a, b = 1.0 + 2.0 ** -30, 2.0 ** 30 - 2.0 ** -10
    out = run_backend(backend, DOUBLE_ARGS, {"Out": ("double", 4)}, {"D": ("double", [a, b])})
    assert out["Out"] == [0.0, 2.0 ** 30, 2.0 ** -30, b - 1073741823.0]
    res = _compile(DOUBLE_ARGS, "dxil")
    assert res.ok
    narrowing = [d for d in res.diagnostics if d.severity == "warning"]
    assert [(d.loc.line, d.message) for d in narrowing] == [
        (6, "conversion from larger type 'double' to smaller type 'float', possible loss of data"),
        (7, "conversion from larger type 'double' to smaller type 'float', possible loss of data")]


# Errors a backend raises while lowering carry the location of the statement or variable involved.
@pytest.mark.parametrize("target, profile, src, want", [
    ("spirv", "cs_6_6", "RWTexture2D<uint64_t> T : register(u0);\n"
     "[numthreads(1,1,1)] void main() { InterlockedAdd(T[uint2(1,0)], 1ull); }",
     "2:35: 'InterlockedAdd' on a 64-bit element of RWTexture2D is not supported"),
    ("dxil", "ps_6_0", "float4 main(nointerpolation double d : D, float4 p : SV_Position) : SV_Target {\n"
     "    return (float)d;\n}\n", "1:36: the 64-bit stage input 'D0' (double) is not supported in DXIL: LoadInput has no f64 overload "
     "(DXC's validator: 'DXIL intrinsic overload must be valid'); pass its halves as uints (asuint / asdouble)"),
])
def test_backend_errors_are_located(target, profile, src, want):
    res = _compile(src, target, profile)
    assert not res.ok
    assert [f"{d.loc.line}:{d.loc.col}: {d.message}" for d in res.diagnostics if d.severity == "error"] == [want]


# RWByteAddressBuffer Load<T>/Store<T> of 16-bit scalars, vectors and struct members (-enable-16bit-types):
# the 16 bits at the byte address, a store leaving the other half of the word alone (the SPIR-V build
# bit-cast a half to a uint and failed spirv-val; loads were refused).  Expected bytes packed in Python.
BAB16 = """
RWByteAddressBuffer B : register(u0);
RWStructuredBuffer<float> Out : register(u1);
struct S { half h; uint16_t u; float f; int16_t3 v; };
[numthreads(1,1,1)] void main() {
    half a = B.Load<half>(2);
    uint16_t2 v = B.Load<uint16_t2>(6);
    int16_t neg = B.Load<int16_t>(12);
    S s = B.Load<S>(16);
    Out[0] = a; Out[1] = v.x; Out[2] = v.y; Out[3] = neg; Out[4] = s.h; Out[5] = s.u; Out[6] = s.f; Out[7] = s.v.z;
    B.Store<half>(34, (half)1.5);
    B.Store<uint16_t2>(38, uint16_t2(0x1234, 0xABCD));
    B.Store<int16_t>(44, (int16_t)-2);
    s.h = (half)-0.5; s.u = 7; s.v.y = -9;
    B.Store<S>(48, s);
}
"""


def test_byte_address_16_bit_loads_and_stores():
    import struct

    buf = bytearray(b"\x11" * 64)
    struct.pack_into("<e", buf, 2, 2.5)
    struct.pack_into("<HH", buf, 6, 5, 9)
    struct.pack_into("<h", buf, 12, -3)
    struct.pack_into("<eHf3h", buf, 16, 0.25, 77, 3.5, 1, 2, -4)
    want = bytearray(buf)
    struct.pack_into("<e", want, 34, 1.5)
    struct.pack_into("<HH", want, 38, 0x1234, 0xABCD)
    struct.pack_into("<h", want, 44, -2)
    struct.pack_into("<eHf3h", want, 48, -0.5, 7, 3.5, 1, -9, -4)
    out = R.cs(BAB16, {"B": R.storage(bytes(buf)), "Out": R.storage(R.sentinel(8))}, profile="cs_6_2",
               enable_16bit_types=True)
    assert R.unpack("f", out["Out"]) == [2.5, 5.0, 9.0, -3.0, 0.25, 77.0, 3.5, -4.0]
    assert out["B"] == bytes(want)


# A struct with 64-bit members through RWByteAddressBuffer Load<S>/Store<S> (was refused): members at the
# structured-buffer offsets (a double 8-aligned), each 64-bit value two words, low word first.
BAB_WIDE_STRUCT = """
struct H { float a; double d; uint64_t u; };
RWByteAddressBuffer B : register(u0);
RWStructuredBuffer<double> Out : register(u1);
[numthreads(1,1,1)] void main() {
    H h = B.Load<H>(0);
    Out[0] = h.a; Out[1] = h.d; Out[2] = (double)(h.u >> 20);
    h.d *= 2; h.u += 1;
    B.Store<H>(32, h);
}
"""


def test_byte_address_struct_with_64_bit_members():
    import struct

    buf = bytearray(64)
    struct.pack_into("<f4xdQ", buf, 0, 1.25, 1.0 / 3.0, (5 << 40) + 7)
    want = bytearray(buf)
    struct.pack_into("<f4xdQ", want, 32, 1.25, 2.0 / 3.0, (5 << 40) + 8)
    out = R.cs(BAB_WIDE_STRUCT, {"B": R.storage(bytes(buf)), "Out": R.storage(R.sentinel(6))})
    assert R.unpack("d", out["Out"]) == [1.25, 1.0 / 3.0, float(((5 << 40) + 7) >> 20)]
    assert out["B"][32:] == bytes(want[32:])


# Textures of 16-bit texels (-enable-16bit-types): Vulkan images have 32-bit sampled types, so the image is
# declared with float / int and the texels convert (the module declared a half image and failed spirv-val).
HALF_TEXTURE = """
Texture2D<half2> T : register(t0);
SamplerState S : register(s1);
RWStructuredBuffer<float> Out : register(u2);
[numthreads(1,1,1)] void main() {
    half2 a = T.Load(int3(1, 0, 0));
    half2 b = T.SampleLevel(S, float2(0.375, 0.5), 0);
    half4 g = T.GatherRed(S, float2(0.25, 0.5));
    Out[0] = a.x; Out[1] = b.x; Out[2] = g.w + g.z;
}
"""


def test_half_texture_reads():
    """Run on lavapipe only: the DXIL build (checked structurally here) samples with an f16 overload the
    interpreter of tests/harness does not model."""
    from harness import tools

    res = R.compile_hlsl(HALF_TEXTURE, profile="cs_6_2", enable_16bit_types=True)
    assert res.ok, R.errors(res)
    tools.spirv_val(res.binary, "vulkan1.1")
    R.check_reflection(res.manifest, res.binary)
    R.build_dxil(HALF_TEXTURE, profile="cs_6_2", enable_16bit_types=True)
    row = R.pack("f", [0.5, 2.0, -3.0, 8.0])
    out = R.run_cs(res, {"T": R.image(row, 4, 1, "r32f"), "S": R.sampler(), "Out": R.storage(R.sentinel(3))})
    # texel 1 (2.0); u = 0.375 is texel 1; the 2x2 gather at u = 0.25 covers texels 0 and 1 (w: x0, z: x1)
    assert R.unpack("f", out["Out"]) == [2.0, 2.0, 0.5 + 2.0]


def test_half_storage_image_is_valid_spirv():
    from harness import tools

    src = ("RWTexture2D<half4> T : register(u0);\nRWBuffer<uint16_t> B : register(u1);\n"
           "[numthreads(1,1,1)] void main() { T[uint2(0,0)] = T[uint2(1,1)] * (half)2; B[0] = B[1] + 1; }")
    res = compile_file("a20.hlsl", CompileOptions(entry="main", profile="cs_6_2", enable_16bit_types=True), text=src)
    assert res.ok
    tools.spirv_val(res.binary, "vulkan1.1")
    dis = tools.spirv_dis(res.binary)
    assert "OpTypeImage %float 2D 2 0 0 2 Rgba16f" in dis and "OpTypeImage %uint Buffer 2 0 0 2 R16ui" in dis


# countbits / firstbithigh / firstbitlow / reversebits of 16-bit values (-enable-16bit-types): Vulkan's bit
# instructions take 32-bit operands (the module failed spirv-val), so the value widens first.
BITS16 = """
StructuredBuffer<int> In : register(t0);
RWStructuredBuffer<uint> Out : register(u1);
[numthreads(1,1,1)] void main() {
    for (uint i = 0; i < 4; i++) {
        int16_t s = (int16_t)In[i];
        uint16_t u = (uint16_t)In[i];
        Out[6 * i + 0] = countbits(s);
        Out[6 * i + 1] = firstbithigh(s);
        Out[6 * i + 2] = firstbithigh(u);
        Out[6 * i + 3] = firstbitlow(u);
        Out[6 * i + 4] = (uint)(uint16_t)reversebits(s);
        Out[6 * i + 5] = reversebits(u);
    }
}
"""
BITS16_IN = [0x0001, -2, 0x1230, 0]


def _bits16_want(v: int) -> list[int]:
    u = v & 0xFFFF
    signed = u - 0x10000 if u & 0x8000 else u
    fbh_s = (~signed if signed < 0 else signed).bit_length() - 1 if signed not in (0, -1) else 0xFFFFFFFF
    rev = int(f"{u:016b}"[::-1], 2)
    return [bin(u).count("1"), fbh_s, u.bit_length() - 1 if u else 0xFFFFFFFF,
            (u & -u).bit_length() - 1 if u else 0xFFFFFFFF, rev, rev]


def _spirv_run_and_dxil_check(src: str, specs: dict, **options) -> dict[str, bytes]:
    """Lavapipe run of the SPIR-V build (validated, reflection checked) and a structural check of the DXIL
    build: for 16-bit operations the interpreter of tests/harness does not model."""
    from harness import tools

    res = R.compile_hlsl(src, **options)
    assert res.ok, R.errors(res)
    tools.spirv_val(res.binary, "vulkan1.1")
    R.check_reflection(res.manifest, res.binary)
    R.build_dxil(src, **options)
    return R.run_cs(res, specs)


def test_bit_intrinsics_on_16_bit_values():
    out = _spirv_run_and_dxil_check(BITS16, {"In": R.storage(R.pack("i", BITS16_IN)),
                                             "Out": R.storage(R.sentinel(24))}, profile="cs_6_2",
                                    enable_16bit_types=True)
    assert R.unpack("I", out["Out"]) == [w for v in BITS16_IN for w in _bits16_want(v)]


# `Texture2D t : register(t0); SamplerState s : register(s0);` - both land on binding 0 of set 0 without
# shifts; a sampled image and a sampler may share a binding (a combined image sampler descriptor read through
# separate variables, as DXC binds them), so this is not the collision error other overlaps are.
SHARED_BINDING = """
Texture2D<float4> T : register(t0);
SamplerState S : register(s0);
RWStructuredBuffer<float4> Out : register(u1);
[numthreads(1,1,1)] void main() { Out[0] = T.SampleLevel(S, float2(0.5, 0.5), 0); }
"""


def test_texture_and_sampler_may_share_a_binding():
    from harness import tools

    res = _compile(SHARED_BINDING)
    assert res.ok, [d.message for d in res.diagnostics]
    tools.spirv_val(res.binary, "vulkan1.1")
    vk = {r["name"]: (r["vulkan"]["set"], r["vulkan"]["binding"]) for r in res.manifest["resources"]}
    assert vk["T"] == vk["S"] == (0, 0)
    reflect = tools.spirv_cross_reflect(res.binary)
    assert [(e["name"], e["set"], e["binding"]) for e in reflect["separate_images"]] == [("T", 0, 0)]
    assert [(e["name"], e["set"], e["binding"]) for e in reflect["separate_samplers"]] == [("S", 0, 0)]
    clash = SHARED_BINDING.replace("register(u1)", "register(u0)")     # a storage buffer is no sampler
    assert _errors(clash) == ["4:28: resource 'Out' and resource 'S' are both bound to descriptor set 0 binding 0; "
                              "use [[vk::binding]] or -fvk-{b,t,s,u}-shift to separate them"]


# asfloat16 / asint16 / asuint16 (SM 6.2, -enable-16bit-types): reinterpret 16 bits (were undeclared).
AS16 = """
StructuredBuffer<uint> In : register(t0);
RWStructuredBuffer<float> Out : register(u1);
[numthreads(1,1,1)] void main() {
    uint16_t bits = (uint16_t)In[0];                 // 0xC100: half -2.5
    Out[0] = asfloat16(bits);
    Out[1] = asint16(bits);                           // -16128
    Out[2] = asuint16(asfloat16(bits));               // 49408
    half2 v = asfloat16(uint16_t2(0x3C00, (uint16_t)In[1]));
    Out[3] = v.x + v.y;                               // 1 + 0.5
}
"""


def test_as16_reinterpretations():
    import struct

    out = _spirv_run_and_dxil_check(AS16, {"In": R.storage(R.pack("I", [0xC100, 0x3800])),
                                           "Out": R.storage(R.sentinel(4))}, profile="cs_6_2",
                                    enable_16bit_types=True)
    assert R.unpack("f", out["Out"]) == [struct.unpack("<e", b"\x00\xc1")[0], -16128.0, 49408.0, 1.5]


def test_an_unused_resource_may_share_a_binding():
    """DXC's optimiser drops a resource the code never uses, so its binding cannot collide; ours stays
    declared (Vulkan matches descriptors only for the variables a shader uses)."""
    src = ("Texture2D<float4> Unused : register(t0);\nRWStructuredBuffer<float> Out : register(u0);\n"
           "StructuredBuffer<float> In : register(t1);\nRWStructuredBuffer<float> Also : register(u1);\n"
           "[numthreads(1,1,1)] void main() { Out[0] = 1; }\n")
    assert _errors(src.replace("Out[0] = 1;", "Out[0] = In[0]; Also[0] = 2;")) == [
        "4:27: resource 'Also' and resource 'In' are both bound to descriptor set 0 binding 1; use [[vk::binding]] "
        "or -fvk-{b,t,s,u}-shift to separate them"]
    res = _compile(src)
    assert res.ok, [d.message for d in res.diagnostics]
    out = R.run_cs(res, {"Out": R.storage(R.sentinel(1))})
    assert R.unpack("f", out["Out"]) == [1.0]


# SV_StartVertexLocation / SV_StartInstanceLocation (SM 6.8): SPIR-V BaseVertex / BaseInstance, DXIL
# startVertexLocation / startInstanceLocation.  The harness draws with first vertex and instance 0.
START_VS = """
struct VOut { float4 pos : SV_Position; float4 c : COLOR; };
VOut main(uint id : SV_VertexID, int sv : SV_StartVertexLocation, uint si : SV_StartInstanceLocation) {
    VOut o;
    float2 uv = float2((id << 1) & 2, id & 2);
    o.pos = float4(uv * 2.0 - 1.0, 0.0, 1.0);
    o.c = float4(sv + 0.25, si + 0.5, 0, 1);
    return o;
}
"""
START_PS = "float4 main(float4 p : SV_Position, float4 c : COLOR) : SV_Target { return c; }\n"


def test_start_vertex_and_instance_location():
    from harness import tools

    vs = R.compile_hlsl(START_VS, profile="vs_6_8")
    ps = R.compile_hlsl(START_PS, profile="ps_6_0")
    assert vs.ok and ps.ok, R.errors(vs)
    tools.spirv_val(vs.binary, "vulkan1.1")
    assert "BuiltIn BaseVertex" in tools.spirv_dis(vs.binary) and "BuiltIn BaseInstance" in tools.spirv_dis(vs.binary)
    _res, check = R.build_dxil(START_VS, profile="vs_6_8")
    px = R.vk_runner().run_graphics(vs.binary, "main", ps.binary, "main", 4, 4)
    assert R.pixel(px, 4, 1, 2) == (R.unorm8(0.25), R.unorm8(0.5), 0, 255)


# f32tof16 and frexp take DXC's float<> (32-bit only): a half argument converts to float first (with 16-bit
# types the SPIR-V build packed a half and failed spirv-val; the DXIL build refused frexp of a half).
HALF_TO_FLOAT_ONLY = """
StructuredBuffer<float> In : register(t0);
RWStructuredBuffer<float> Out : register(u1);
[numthreads(1,1,1)] void main() {
    half h = (half)In[0];                  // 12
    Out[0] = f32tof16(h);                  // 0x4A00
    half e;
    Out[1] = frexp(h, e);                  // 0.75
    Out[2] = e;                            // 4
}
"""


def test_float_only_intrinsics_take_a_half_as_float():
    out = _spirv_run_and_dxil_check(HALF_TO_FLOAT_ONLY, {"In": R.storage(R.pack("f", [12.0])),
                                                         "Out": R.storage(R.sentinel(3))},
                                    profile="cs_6_2", enable_16bit_types=True)
    assert R.unpack("f", out["Out"]) == [float(0x4A00), 0.75, 4.0]


# The optional clamp of Sample / SampleBias / SampleGrad / SampleCmp (after the offset; a cube texture has no
# offset): the smallest mip level read (SPIR-V MinLod, DXIL's clamp operand).  Level 0 holds 1, level 1
# holds 2, level 2 holds 3; zero gradients select level 0 unless clamped.
CLAMPED = """
Texture2D<float> Tex : register(t0);
SamplerState S : register(s1);
RWStructuredBuffer<float> Out : register(u2);
[numthreads(1,1,1)] void main() {
    Out[0] = Tex.SampleGrad(S, float2(0.5, 0.5), float2(0, 0), float2(0, 0), int2(0, 0));
    Out[1] = Tex.SampleGrad(S, float2(0.5, 0.5), float2(0, 0), float2(0, 0), int2(0, 0), 1.0);
    Out[2] = Tex.SampleGrad(S, float2(0.5, 0.5), float2(0, 0), float2(0, 0), int2(1, 0), 2.0);
}
"""


def test_sample_with_a_level_of_detail_clamp():
    """Lavapipe runs the SPIR-V; the DXIL build is checked structurally and its clamp operand read back
    (the interpreter of tests/harness ignores sampleGrad's clamp)."""
    tex = R.image(R.pack("f", [1.0] * 16 + [2.0] * 4 + [3.0]), 4, 4, "r32f", mips=3)
    out = _spirv_run_and_dxil_check(CLAMPED, {"Tex": tex, "S": R.sampler(), "Out": R.storage(R.sentinel(3))})
    assert R.unpack("f", out["Out"]) == [1.0, 2.0, 3.0]
    from harness import dxil_tools

    text = dxil_tools.llvm_dis(dxil_tools.extract_bitcode(R.build_dxil(CLAMPED)[0].binary))
    grads = [line for line in text.splitlines() if "@dx.op.sampleGrad.f32(i32 63" in line]
    assert [line.rstrip(")").rsplit(", ", 1)[1] for line in grads] == ["float undef", "float 1.000000e+00",
                                                                        "float 2.000000e+00"]


def test_sample_clamp_forms_compile():
    src = ("Texture2D T : register(t0); SamplerState S : register(s1); TextureCube C : register(t2);\n"
           "Texture2D<float> D : register(t3); SamplerComparisonState SC : register(s4);\n"
           "float4 main(float4 p : SV_Position) : SV_Target {\n"
           "    return T.Sample(S, p.xy, int2(0,0), 1.0) + T.SampleBias(S, p.xy, 0.5, int2(1,0), 2.0)\n"
           "         + C.Sample(S, p.xyz, 1.5) + D.SampleCmp(SC, p.xy, 0.5, int2(0,0), 3.0);\n}\n")
    from harness import tools

    res = _compile(src, "spirv", "ps_6_0")
    assert res.ok
    tools.spirv_val(res.binary, "vulkan1.1")
    assert tools.spirv_dis(res.binary).count("MinLod") >= 4
    R.build_dxil(src, profile="ps_6_0")


# GatherRed/Green/Blue/Alpha and GatherCmpRed/... with four offsets, one per gathered texel (SPIR-V
# ConstOffsets; DXIL four gathers, texel k from the k-th, as DXC).  A 4x4 texture holds 4 y + x at (x, y);
# at uv (0.5, 0.5) the footprint's corner is (1, 1) and texel k sits at (1, 1) + (0,1 | 1,1 | 1,0 | 0,0)[k].
GATHER4 = """
Texture2D<float> Tex : register(t0);
SamplerState S : register(s1);
RWStructuredBuffer<float4> Out : register(u2);
[numthreads(1,1,1)] void main() {
    Out[0] = Tex.GatherRed(S, float2(0.5, 0.5), int2(0, 0), int2(1, 0), int2(0, 1), int2(-1, -1));
    Out[1] = Tex.GatherRed(S, float2(0.5, 0.5));
}
"""


def test_gather_with_four_offsets():
    tex = R.image(R.pack("f", [float(i) for i in range(16)]), 4, 4, "r32f")
    out = R.cs(GATHER4, {"Tex": tex, "S": R.sampler(), "Out": R.storage(R.sentinel(8))})
    corner, order = (1, 1), [(0, 1), (1, 1), (1, 0), (0, 0)]
    offsets = [(0, 0), (1, 0), (0, 1), (-1, -1)]
    want = [4.0 * (corner[1] + d[1] + o[1]) + corner[0] + d[0] + o[0] for d, o in zip(order, offsets)]
    plain = [4.0 * (corner[1] + d[1]) + corner[0] + d[0] for d in order]
    assert R.unpack("f", out["Out"]) == want + plain


# A method called on a struct in read-only memory (a ConstantBuffer<T>, a cbuffer member, a StructuredBuffer
# element) runs on a copy: the backends refused to write `this` back into the read-only resource.
METHODS_ON_READ_ONLY = """
struct P {
    float4 v;
    float4 twice() { return v * 2; }
    float sum() { v.x += 100; return v.x + v.y + v.z + v.w; }     // changes only the copy
};
ConstantBuffer<P> CB : register(b0);
cbuffer Legacy : register(b1) { P inCbuffer; };
StructuredBuffer<P> SB : register(t2);
RWStructuredBuffer<float4> Out : register(u3);
[numthreads(1,1,1)] void main() {
    Out[0] = CB.twice();
    Out[1] = float4(inCbuffer.sum(), inCbuffer.v.x, 0, 0);
    Out[2] = SB[1].twice();
    Out[3] = float4(SB[0].sum(), SB[0].v.x, 0, 0);
}
"""


def test_methods_on_read_only_structs():
    out = R.cs(METHODS_ON_READ_ONLY, {"CB": R.uniform(R.pack("f", [1, 2, 3, 4])),
                                       "Legacy": R.uniform(R.pack("f", [5, 6, 7, 8])),
                                       "SB": R.storage(R.pack("f", [1, 1, 1, 1, 9, 8, 7, 6])),
                                       "Out": R.storage(R.sentinel(16))})
    assert R.unpack("f", out["Out"]) == [2, 4, 6, 8, 126, 5, 0, 0, 18, 16, 14, 12, 104, 1, 0, 0]


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_export_on_a_function(target):
    """`export` (library linkage) is accepted on a function of any target, refused elsewhere as DXC does."""
    src = ("RWStructuredBuffer<float> Out : register(u0);\nexport float f(float x) { return x * 3; }\n"
           "[numthreads(1,1,1)] void main() { Out[0] = f(2); }\n")
    assert _compile(src, target).ok
    bad = src.replace("export float f", "export static float v = 1;\nfloat f")
    assert _errors(bad, target) == ["2:21: 'export' is not a valid modifier for a global variable"]


QUALIFIED_MEMBER_CALL = """
StructuredBuffer<int> In : register(t1);
RWStructuredBuffer<int> Out : register(u0);
struct Base { int v; int get() { return v; } int tag() { return 1; } };
struct Mid : Base { int tag() { return 2; } };
struct Der : Mid { int tag() { return 3; } };
[numthreads(1,1,1)] void main() {
    Der d;
    d.v = In[0];
    Out[0] = d.Base::get() + d.get();                      // 2 * v
    Out[1] = d.tag() * 100 + d.Mid::tag() * 10 + d.Base::tag();
}
"""


def test_member_call_qualified_with_a_base():
    """`d.Base::f()` calls the base's version of a hidden method (was a parse error)."""
    from lang_util import run_cs

    out = run_cs(QUALIFIED_MEMBER_CALL, {"Out": ("int", 2)}, {"In": ("int", [21])})
    assert out["Out"] == [42, 321]


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_a_second_semantic_is_ignored_with_a_warning(target):
    """`float4 p : SV_Position : COLOR`: DXC's code generators read the first semantic (SetSemantic,
    getStageVarSemantic); we did the last.  The second gets a located warning."""
    res = _compile("float4 main(float4 p : SV_Position : COLOR) : SV_Target { return p; }\n", target, "ps_6_0")
    assert res.ok
    assert [i["semantic"] for i in res.manifest["entry"]["inputs"]] == ["SV_Position"]
    assert [(d.loc.line, d.loc.col, d.message) for d in res.diagnostics if d.severity == "warning"] == [
        (1, 38, "semantic 'COLOR' is ignored: 'SV_Position' was given first")]
