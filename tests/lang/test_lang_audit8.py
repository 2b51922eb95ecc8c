"""Issue 20 adversarial audit (session 8): values a conformance suite checks, in contexts the other corpora
do not reach, each executed on all three paths (SPIR-V on lavapipe at -O3 and -O0, DXIL on the interpreter,
DXIL through dxil-spirv on lavapipe) and compared with a Python model written here, never with the compiler.

Covered: `RWByteAddressBuffer.Store(addr, v)` without a template argument stores v as it is (DXC declares it
`template<T> void Store(uint, T)`; it was converted to uint); float -> integer conversions in every implicit
context (initialisation, assignment, compound assignment, return, argument, out / inout copy-back, vector,
matrix, array element, struct field, ternary, static const, 64-bit and double sources); 64-bit division,
remainder and shifts with D3D's results at 0, INT64_MIN / -1 and amounts >= 64, folded and at run time;
16-bit division, shifts and saturating conversions; NaN and signed-zero cases of min/max/clamp/saturate/fmod/
frac/round/sign/step/smoothstep folded and at run time; mul() of every shape pair, matrix swizzles, truncation
casts and orientation in function parameters, typedefs, statics and groupshared; ByteAddressBuffer
Load<matrix>/Load<struct with matrices> (column-major unless the member says row_major).
"""

from __future__ import annotations

import math
import struct

import pytest
from lang_util import run_backend

pytestmark = [pytest.mark.vulkan, pytest.mark.usefixtures("vk")]
BACKENDS = ["spirv", "dxil", "dxil-vk"]
M32, M64 = (1 << 32) - 1, (1 << 64) - 1


def _run_opts(backend: str, src: str, outputs: dict, inputs: dict, profile: str = "cs_6_0", **options) -> dict:
    """run_backend with compile options lang_util does not pass (-Zpr, -enable-16bit-types): the SPIR-V build is
    validated and run on lavapipe (its -O0 build too), the DXIL build checked by the LLVM tools and run on the
    interpreter ('dxil') or through dxil-spirv on lavapipe ('dxil-vk')."""
    from harness import dxil_consumer, dxil_exec, dxil_tools, tools
    from harness import vulkan_runner as vk
    from lang_util import _buffers, decode

    from shaderbuild.compiler import compile_file
    from shaderbuild.options import CompileOptions

    def build(target: str, opt_level: int = 3) -> bytes:
        own = {k: v for k, v in options.items() if target == "spirv" or k != "vk_layout"}   # DXC ignores -fvk-*
        opts = CompileOptions(entry="main", profile=profile, target=target, opt_level=opt_level, **own)
        res = compile_file("audit8.hlsl", opts, text=src)
        assert res.ok, "\n".join(d.render(res.sources) for d in res.diagnostics)
        if target == "spirv" and own.get("vk_layout") in ("dx", "scalar"):
            import res_util
            res_util.spirv_val_flags(res.binary, "vulkan1.1", "--scalar-block-layout")
        elif target == "spirv":
            tools.spirv_val(res.binary, "vulkan1.1")
        else:
            dxil_tools.check_dxil(res.binary)
        manifest[target] = {r["name"]: r for r in res.manifest["resources"]}
        return res.binary

    manifest: dict[str, dict] = {}
    bufs = _buffers(outputs, inputs)
    types = {n: t for n, t, _d in bufs}
    if backend == "spirv":
        binary = build("spirv")
        vk.register_unoptimised(binary, lambda: build("spirv", 0))
        descs = []
        for n, _t, data in bufs:
            v = manifest["spirv"][n]["vulkan"]
            descs.append(vk.Buf(v["set"], v["binding"], data,
                                "uniform" if v["descriptor_type"] == "uniform_buffer" else "storage"))
        got = vk.run_compute(binary, "main", descs)
    elif backend == "dxil":
        binary = build("dxil")
        specs = [(h["register"], h["space"], h["class"], data)
                 for n, _t, data in bufs for h in [manifest["dxil"][n]["hlsl"]]]
        got = dxil_exec.run_dxil_compute(binary, "main", specs)
    else:
        spirv = dxil_consumer.to_spirv(build("dxil"))
        reflect = tools.spirv_cross_reflect(spirv)
        used = {(e["set"], e["binding"]): cat for cat in ("ssbos", "ubos") for e in reflect.get(cat, [])}
        keys = []
        for n, _t, _data in bufs:
            h = manifest["dxil"][n]["hlsl"]
            keys.append((h["space"], dxil_consumer.SHIFTS[h["class"]] + h["register"]))
        descs = [vk.Buf(*key, data, "uniform" if used[key] == "ubos" else "storage")
                 for key, (_n, _t, data) in zip(keys, bufs) if key in used]
        ran = iter(vk.run_compute(spirv, reflect["entryPoints"][0]["name"], descs))
        got = [next(ran) if key in used else data for key, (_n, _t, data) in zip(keys, bufs)]
    return {n: decode(types[n], g) for (n, _t, _d), g in zip(bufs, got)}


def fbits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def dwords(x: float) -> list[int]:
    return list(struct.unpack("<II", struct.pack("<d", x)))


# ---------------------------------------------------------------- Store(addr, v) stores v's own type

STORE_DEDUCED = """
StructuredBuffer<float> F : register(t1);
RWByteAddressBuffer B : register(u2);
RWStructuredBuffer<uint> Out : register(u0);
struct S { float a; int b; };
[numthreads(1,1,1)] void main() {
    float x = F[0];
    B.Store(0, x);                          // a float: its bits
    B.Store(4, float3(x, 2 * x, -x));       // a float3: three words
    B.Store(16, 1.5);                       // a float literal: a float
    B.Store(20, -3);                        // an int literal: its 32 bits
    B.Store(24, (int)x - 4);                // an int
    B.Store(28, x > 0);                     // a bool: 1
    B.Store(32, (double)x);                 // a double: two words, low first
    B.Store(40, (uint64_t)0x123456789ull);  // a uint64_t: two words
    S s = { x, 7 };
    B.Store(48, s);                         // a struct: its members
    B.Store(56, float2x2(x, 2, 3, 4));      // a matrix: column-major
    B.Store2(72, float2(x, 3.7));           // Store2/3/4 take uints: converted
    for (uint i = 0; i < 20; i++) Out[i] = B.Load(4 * i);
}
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_byte_address_store_without_template_stores_the_value_type(backend):
    x = 2.25
    want = [fbits(x), fbits(x), fbits(2 * x), fbits(-x), fbits(1.5), -3 & M32, (int(x) - 4) & M32, 1,
            *dwords(x), 0x23456789, 0x1, fbits(x), 7, fbits(x), fbits(3.0), fbits(2.0), fbits(4.0), int(x), 3]
    got = run_backend(backend, STORE_DEDUCED, {"Out": ("uint", 20)}, {"F": ("float", [x]), "B": ("uint", [0] * 20)})
    assert got["Out"] == want


# ---------------------------------------------------------------- NaN, infinities and signed zeros, folded and not

NAN, INF = math.nan, math.inf


def d3d_min(a: float, b: float) -> float:
    """D3D min/max: IEEE minNum/maxNum, a NaN operand gives the other operand."""
    return b if math.isnan(a) else a if math.isnan(b) else min(a, b)


def d3d_max(a: float, b: float) -> float:
    return b if math.isnan(a) else a if math.isnan(b) else max(a, b)


def d3d_saturate(x: float) -> float:
    return 0.0 if math.isnan(x) else min(max(x, 0.0), 1.0)


def d3d_round(x: float) -> float:
    """round(): to nearest, ties to even (D3D round_ne)."""
    return float(round(x))


def d3d_fmod(a: float, b: float) -> float:
    return math.nan if b == 0 or math.isinf(a) or math.isnan(a) or math.isnan(b) else math.fmod(a, b)


def d3d_smoothstep(lo: float, hi: float, x: float) -> float:
    t = d3d_saturate((x - lo) / (hi - lo)) if not math.isnan(x) else 0.0
    return t * t * (3 - 2 * t)


# (name, run-time expression, folded expression, model); run time reads nan, one, z(ero), nz (-0.0), m25 (-2.5),
# p25, h(alf), inf from a buffer; SNAN is a static const NaN, so the folded form has only constants
FLOAT_EDGES = [
    ("min_nan_first", "min(nan, one)", "min(SNAN, 1.0)", d3d_min(NAN, 1.0)),
    ("min_nan_second", "min(one, nan)", "min(1.0, SNAN)", d3d_min(1.0, NAN)),
    ("max_nan_first", "max(nan, one)", "max(SNAN, 1.0)", d3d_max(NAN, 1.0)),
    ("max_nan_second", "max(one, nan)", "max(1.0, SNAN)", d3d_max(1.0, NAN)),
    ("clamp_nan_value", "clamp(nan, z, one)", "clamp(SNAN, 0.0, 1.0)", d3d_min(d3d_max(NAN, 0.0), 1.0)),
    ("clamp_nan_low", "clamp(h, nan, one)", "clamp(0.5, SNAN, 1.0)", d3d_min(d3d_max(0.5, NAN), 1.0)),
    ("clamp_nan_high", "clamp(h, z, nan)", "clamp(0.5, 0.0, SNAN)", d3d_min(d3d_max(0.5, 0.0), NAN)),
    ("saturate_nan", "saturate(nan)", "saturate(SNAN)", d3d_saturate(NAN)),
    ("saturate_minus_inf", "saturate(-inf)", "saturate(-1.0 / 0.0)", d3d_saturate(-INF)),
    ("smoothstep_nan", "smoothstep(z, one, nan)", "smoothstep(0.0, 1.0, SNAN)", d3d_smoothstep(0.0, 1.0, NAN)),
    ("step_nan_edge", "step(nan, one)", "step(SNAN, 1.0)", 1.0),   # x < edge ? 0 : 1 (DXC); unordered is false
    ("fmod_negative_dividend", "fmod(m25, 2.0 * one)", "fmod(-2.5, 2.0)", d3d_fmod(-2.5, 2.0)),
    ("fmod_negative_divisor", "fmod(p25, -2.0 * one)", "fmod(2.5, -2.0)", d3d_fmod(2.5, -2.0)),
    ("fmod_by_zero", "fmod(one, z)", "fmod(1.0, 0.0)", d3d_fmod(1.0, 0.0)),
    ("percent_float_by_zero", "one % nz", "1.0 % -0.0", d3d_fmod(1.0, -0.0)),
    ("percent_float_int_literal", "m25 % 2", "-2.5 % 2", d3d_fmod(-2.5, 2.0)),
    ("frac_negative", "frac(-0.25 * one)", "frac(-0.25)", 0.75),
    ("round_half_even_zero", "round(h)", "round(0.5)", d3d_round(0.5)),
    ("round_half_even_neg", "round(m25)", "round(-2.5)", d3d_round(-2.5)),
    ("round_half_even_two", "round(1.5 * one)", "round(1.5)", d3d_round(1.5)),
    ("round_minus_half", "round(-h)", "round(-0.5)", d3d_round(-0.5)),
    ("sign_nan", "sign(nan)", "sign(SNAN)", 0.0),
    ("one_over_minus_zero", "one / nz", "1.0 / -0.0", -INF),
    ("rsqrt_minus_zero", "rsqrt(nz)", "rsqrt(-0.0)", -INF),
    ("sqrt_negative", "sqrt(-one)", "sqrt(-1.0)", NAN),
    ("log_zero", "log(z)", "log(0.0)", -INF),
    ("log_negative", "log(-one)", "log(-1.0)", NAN),
    ("eq_nan", "nan == nan", "SNAN == SNAN", 0.0),
    ("ne_nan", "nan != nan", "SNAN != SNAN", 1.0),
    ("lt_nan", "nan < one", "SNAN < 1.0", 0.0),
    ("not_lt_nan", "!(nan < one)", "!(SNAN < 1.0)", 1.0),
    ("ge_nan", "nan >= one", "SNAN >= 1.0", 0.0),
    ("all_eq_vector_nan", "all(float2(nan, one) == float2(nan, one))", "all(float2(SNAN, 1.0) == float2(SNAN, 1.0))", 0.0),
    ("any_ne_vector_nan", "any(float2(nan, one) != float2(nan, one))", "any(float2(SNAN, 1.0) != float2(SNAN, 1.0))", 1.0),
    ("ternary_gt_nan", "nan > one ? 1.0 : 2.0", "SNAN > 1.0 ? 1.0 : 2.0", 2.0),
    ("ternary_eq_nan", "nan == nan ? 1.0 : 2.0", "SNAN == SNAN ? 1.0 : 2.0", 2.0),
    ("isnan", "isnan(nan)", "isnan(SNAN)", 1.0),
    ("isfinite_inf", "isfinite(inf)", "isfinite(1.0 / 0.0)", 0.0),
    ("ldexp", "ldexp(one, 3.0 * one)", "ldexp(1.0, 3.0)", 8.0),
]
FLOAT_EDGE_IN = [NAN, 1.0, 0.0, -0.0, -2.5, 2.5, 0.5, INF]


def _float_edges_src() -> str:
    lines = []
    for i, (_n, run, folded, _w) in enumerate(FLOAT_EDGES):
        lines.append(f"    Out[{2 * i}] = (float)({run});\n    Out[{2 * i + 1}] = (float)({folded});")
    return ("StructuredBuffer<float> F : register(t1);\nRWStructuredBuffer<float> Out : register(u0);\n"
            "static const float SNAN = asfloat(0x7FC00000);\n[numthreads(1,1,1)] void main() {\n"
            "    float nan = F[0], one = F[1], z = F[2], nz = F[3], m25 = F[4], p25 = F[5], h = F[6], inf = F[7];\n"
            + "\n".join(lines) + "\n}\n")


@pytest.mark.parametrize("backend", BACKENDS)
def test_float_edges_folded_and_at_run_time(backend):
    """Each row twice: on values read from a buffer and on constants (folded by the front end or the optimiser).
    Zeros compare by value: Vulkan (without SignedZeroInfNanPreserve) and lavapipe may drop a zero's sign."""
    got = run_backend(backend, _float_edges_src(), {"Out": ("float", 2 * len(FLOAT_EDGES))},
                      {"F": ("float", FLOAT_EDGE_IN)})["Out"]
    bad = []
    for i, (name, _r, _f, want) in enumerate(FLOAT_EDGES):
        for form, g in (("run time", got[2 * i]), ("folded", got[2 * i + 1])):
            if not (g == want or (math.isnan(g) and math.isnan(want))):
                bad.append(f"{name} ({form}): got {g!r}, want {want!r}")
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------- ByteAddressBuffer matrices: orientation

# Word i of B holds float(i).  A matrix read from a raw buffer is column-major unless its type says row_major
# (an explicit modifier in the template argument, a row_major typedef) or -Zpr is given; Store<T> writes the
# same way.  Load<row_major T> was refused (parse error) and a top-level matrix ignored -Zpr and typedefs
# (struct members already followed them).
BAB_MATRIX = """
RWByteAddressBuffer B : register(u1);
RWStructuredBuffer<float> Out : register(u0);
typedef row_major float2x3 RM;
struct S { float a; float2x2 m; row_major float2x3 r; };
[numthreads(1,1,1)] void main() {
    uint k = 0;
    float2x3 a = B.Load<row_major float2x3>(0);     Out[k++] = a._12; Out[k++] = a._21; Out[k++] = a._23;
    float2x3 b = B.Load<column_major float2x3>(0);  Out[k++] = b._12; Out[k++] = b._21; Out[k++] = b._23;
    float2x3 c = B.Load<RM>(0);                     Out[k++] = c._12; Out[k++] = c._21; Out[k++] = c._23;
    float2x3 d = B.Load<float2x3>(0);               Out[k++] = d._12; Out[k++] = d._21; Out[k++] = d._23;
    S s = B.Load<S>(0);                  Out[k++] = s.m._12; Out[k++] = s.m._21; Out[k++] = s.r._12; Out[k++] = s.r._21;
    Out[k++] = B.Load<float2x3>(24)[1].x;
    B.Store<row_major float2x2>(100, float2x2(1, 2, 3, 4));
    B.Store<column_major float2x2>(116, float2x2(1, 2, 3, 4));
    B.Store<float2x2>(132, float2x2(1, 2, 3, 4));
    row_major float2x2 local = float2x2(1, 2, 3, 4);
    B.Store(148, local);             // T deduced: the default orientation, as Store<float2x2>
    for (uint i = 0; i < 16; i++) Out[k++] = B.Load<float>(100 + 4 * i);
}
"""


def _bab_matrix_want(zpr: bool) -> list[float]:
    def rm(rows: int, cols: int, base: int = 0):
        return lambda r, c: float(base + r * cols + c)

    def cm(rows: int, cols: int, base: int = 0):
        return lambda r, c: float(base + c * rows + r)

    default = rm if zpr else cm
    want = []
    for m in (rm(2, 3), cm(2, 3), rm(2, 3), default(2, 3)):
        want += [m(0, 1), m(1, 0), m(1, 2)]
    sm, sr = default(2, 2, 1), rm(2, 3, 5)         # S: a at word 0, m at words 1..4, r at words 5..10
    want += [sm(0, 1), sm(1, 0), sr(0, 1), sr(1, 0), default(2, 3, 6)(1, 0)]
    stored = {True: [1.0, 2.0, 3.0, 4.0], False: [1.0, 3.0, 2.0, 4.0]}
    return want + stored[True] + stored[False] + stored[zpr] + stored[zpr]


@pytest.mark.parametrize("zpr", [False, True], ids=["Zpc", "Zpr"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_byte_address_matrix_orientation(backend, zpr):
    got = _run_opts(backend, BAB_MATRIX, {"Out": ("float", 33)}, {"B": ("float", [float(i) for i in range(48)])},
                    row_major=zpr)
    assert got["Out"] == _bab_matrix_want(zpr)


# ---------------------------------------------------------------- float -> integer in every implicit context

CONV_IN = [math.nan, -3.6, 1e10, -1e10, 2.7, -0.5, 1.0]
CONVERSIONS = """
StructuredBuffer<float> F : register(t1);
RWStructuredBuffer<uint> Out : register(u0);
struct S { int a; uint b; };
int ret_int(float x) { return x; }
uint ret_uint(float x) { return x; }
uint take_uint(uint x) { return x; }
int take_int(int x) { return x; }
void out_f(out float x, float v) { x = v; }
void inout_f(inout float x, float v) { x = x + v; }
void inout_i(inout int x) { x = x * 2; }
static const uint SK = -3.6;
static const int SK2 = 1e10;
[numthreads(1,1,1)] void main() {
    float nan = F[0], m36 = F[1], big = F[2], nbig = F[3], p27 = F[4], mh = F[5];
    uint k = 0;
    { int i = nan; Out[k++] = (uint)i; }
    { uint u = m36; Out[k++] = u; }
    { int i = 1; i += m36; Out[k++] = (uint)i; }
    { uint u = 1; u += m36; Out[k++] = u; }
    { uint u = 5; u -= big; Out[k++] = u; }
    { int i = 5; i *= big; Out[k++] = (uint)i; }
    { int i = 5; i *= nan; Out[k++] = (uint)i; }
    { int i = 7; i /= mh; Out[k++] = (uint)i; }
    { int i = 10; i %= m36; Out[k++] = (uint)i; }
    { Out[k++] = (uint)ret_int(nbig); }
    { Out[k++] = ret_uint(m36); }
    { Out[k++] = take_uint(big); }
    { Out[k++] = (uint)take_int(nan); }
    { int i; out_f(i, big); Out[k++] = (uint)i; }
    { uint u; out_f(u, m36); Out[k++] = u; }
    { int i = 3; inout_f(i, p27); Out[k++] = (uint)i; }
    { float f = p27; inout_i(f); Out[k++] = asuint(f); }
    { int2 v = float2(nan, big); Out[k++] = (uint)v.x; Out[k++] = (uint)v.y; }
    { uint3 v = float3(m36, nbig, p27); Out[k++] = v.x; Out[k++] = v.y; Out[k++] = v.z; }
    { int2x2 m = float2x2(nan, big, nbig, m36);
      Out[k++] = (uint)m._11; Out[k++] = (uint)m._12; Out[k++] = (uint)m._21; Out[k++] = (uint)m._22; }
    { uint2x2 m = float2x2(nan, big, nbig, m36); Out[k++] = m._11; Out[k++] = m._12; Out[k++] = m._21; Out[k++] = m._22; }
    { int arr[2]; arr[0] = big; arr[1] = nan; Out[k++] = (uint)arr[0]; Out[k++] = (uint)arr[1]; }
    { S s = { nbig, m36 }; Out[k++] = (uint)s.a; Out[k++] = s.b; }
    { S s; s.a = nan; s.b = big; Out[k++] = (uint)s.a; Out[k++] = s.b; }
    { int x = (F[6] > 0) ? m36 : big; Out[k++] = (uint)x; }
    { Out[k++] = SK; Out[k++] = (uint)SK2; }
    { uint u = -3.6; int i = 1e10; Out[k++] = u; Out[k++] = (uint)i; }
    { int i = 1; i += 2.7; Out[k++] = (uint)i; }
    { uint u = 1; u -= 3.5; Out[k++] = u; }
    { int64_t l = big * big; Out[k++] = (uint)(l >> 32); Out[k++] = (uint)l; }
    { uint64_t l = m36; Out[k++] = (uint)(l >> 32); Out[k++] = (uint)l; }
    { int64_t l = nan; Out[k++] = (uint)(l >> 32); Out[k++] = (uint)l; }
    { double d = (double)big * 1e30; int i = d; Out[k++] = (uint)i; }
    { double d = (double)nbig; uint u = d; Out[k++] = u; }
    { bool b = nan; Out[k++] = b ? 1 : 0; }
    { bool2 b = float2(mh, 0); Out[k++] = b.x ? 1 : 0; Out[k++] = b.y ? 1 : 0; }
}
"""


def ftoi(x: float, width: int = 32, signed: bool = True) -> int:
    """D3D ftoi / ftou: NaN -> 0, toward zero, saturated; returned as the low 32 bits (uint view)."""
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
    v = 0 if math.isnan(x) else hi if x >= hi else lo if x <= lo else int(x)
    return v & ((1 << width) - 1)


def _f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def _conversions_want() -> list[int]:
    nan, m36, big, nbig, p27, mh = (_f32(x) for x in CONV_IN[:6])
    i64 = ftoi(_f32(big * big), 64)
    u64 = ftoi(m36, 64, signed=False)
    want = [ftoi(nan), ftoi(m36, signed=False), ftoi(_f32(1 + m36)), ftoi(_f32(1 + m36), signed=False),
            ftoi(_f32(5 - big), signed=False), ftoi(_f32(5 * big)), ftoi(nan), ftoi(_f32(7 / mh)),
            ftoi(_f32(math.fmod(10, m36))), ftoi(nbig), ftoi(m36, signed=False), ftoi(big, signed=False), ftoi(nan),
            ftoi(big), ftoi(m36, signed=False), ftoi(_f32(3 + p27)), fbits(float(ftoi(p27) * 2)),
            ftoi(nan), ftoi(big), ftoi(m36, signed=False), ftoi(nbig, signed=False), ftoi(p27, signed=False),
            ftoi(nan), ftoi(big), ftoi(nbig), ftoi(m36),
            ftoi(nan, signed=False), ftoi(big, signed=False), ftoi(nbig, signed=False), ftoi(m36, signed=False),
            ftoi(big), ftoi(nan), ftoi(nbig), ftoi(m36, signed=False), ftoi(nan), ftoi(big, signed=False),
            ftoi(m36), ftoi(-3.6, signed=False), ftoi(1e10), ftoi(-3.6, signed=False), ftoi(1e10),
            ftoi(1 + 2.7), ftoi(1 - 3.5, signed=False),
            i64 >> 32, i64 & M32, u64 >> 32, u64 & M32, 0, 0,
            ftoi(big * 1e30), ftoi(nbig, signed=False), 1, 1, 0]
    return want


@pytest.mark.parametrize("backend", BACKENDS)
def test_float_to_integer_in_every_implicit_context(backend):
    want = _conversions_want()
    got = run_backend(backend, CONVERSIONS, {"Out": ("uint", len(want))}, {"F": ("float", CONV_IN)})["Out"]
    assert got == want


# ---------------------------------------------------------------- 64-bit and 16-bit integer edges

INT64 = """
StructuredBuffer<int> I : register(t1);
RWStructuredBuffer<uint> Out : register(u0);
void put(inout uint k, uint64_t v) { Out[k++] = (uint)v; Out[k++] = (uint)(v >> 32); }
[numthreads(1,1,1)] void main() {
    int64_t zero = I[0], m1 = I[1], seven = I[2], m7 = I[3];
    int64_t mn = (int64_t)I[4] << 32;      // INT64_MIN
    uint64_t uz = (uint64_t)zero, u7 = (uint64_t)seven, umax = ~uz;
    uint k = 0;
    put(k, seven / zero); put(k, m7 / zero); put(k, seven % zero); put(k, m7 % zero);
    put(k, mn / m1); put(k, mn % m1); put(k, m7 / 2); put(k, m7 % 2);
    put(k, u7 / uz); put(k, u7 % uz); put(k, umax / u7); put(k, umax % u7);
    put(k, seven << (uint)I[5]); put(k, mn >> (uint)I[6]); put(k, umax >> (uint)I[5]); put(k, u7 << (seven * 9));
    put(k, (-9223372036854775807ll - 1) / -1ll); put(k, (-9223372036854775807ll - 1) % -1ll);
    put(k, 7ll << 65); put(k, 0xFFFFFFFFFFFFFFFFull >> 65); put(k, (int64_t)0x8000000000000000ull >> 127);
    Out[k++] = countbits(umax); Out[k++] = countbits((uint64_t)mn);
    Out[k++] = firstbithigh(m1); Out[k++] = firstbithigh(mn); Out[k++] = firstbitlow(mn);
    put(k, reversebits(u7)); Out[k++] = countbits(0xF0F0F0F0F0F0F0F0ull); put(k, reversebits(7ull));
    Out[k++] = firstbithigh(-9223372036854775807ll - 1); Out[k++] = firstbithigh(seven << 40);
    Out[k++] = (uint)firstbithigh(m7);
}
"""
INT64_IN = [0, -1, 7, -7, -(1 << 31), 65, 127]


def _div(a: int, b: int, width: int, signed: bool) -> int:
    """D3D division: udiv by 0 is all ones; signed is udiv on magnitudes with the sign fixed afterwards."""
    mask = (1 << width) - 1
    if not signed:
        return mask if b == 0 else (a & mask) // (b & mask)
    q = mask if b == 0 else abs(a) // abs(b)
    return (-q if (a < 0) != (b < 0) else q) & mask


def _rem(a: int, b: int, width: int, signed: bool) -> int:
    mask = (1 << width) - 1
    if not signed:
        return mask if b == 0 else (a & mask) % (b & mask)
    r = mask if b == 0 else abs(a) % abs(b)
    return (-r if a < 0 else r) & mask


def _fbh(x: int, signed: bool) -> int:
    """firstbithigh: the highest set bit (signed: the highest bit differing from the sign), 0xFFFFFFFF if none."""
    if signed and x < 0:
        x = ~x
    return M32 if x == 0 else x.bit_length() - 1


def _int64_want() -> list[int]:
    mn, mx = -(1 << 63), M64
    words = [_div(7, 0, 64, True), _div(-7, 0, 64, True), _rem(7, 0, 64, True), _rem(-7, 0, 64, True),
             _div(mn, -1, 64, True), _rem(mn, -1, 64, True), _div(-7, 2, 64, True), _rem(-7, 2, 64, True),
             _div(7, 0, 64, False), _rem(7, 0, 64, False), _div(mx, 7, 64, False), _rem(mx, 7, 64, False),
             7 << (65 & 63), (mn >> (127 & 63)) & M64, mx >> (65 & 63), (7 << 63) & M64,
             _div(mn, -1, 64, True), _rem(mn, -1, 64, True), 7 << (65 & 63), mx >> (65 & 63),
             (mn >> (127 & 63)) & M64]
    want = [w for v in words for w in (v & M32, v >> 32)]
    rev7 = int(f"{7:064b}"[::-1], 2)
    want += [64, 1, _fbh(-1, True), _fbh(mn, True), 63, rev7 & M32, rev7 >> 32, 32, rev7 & M32, rev7 >> 32,
             _fbh(mn, True), 42, _fbh(-7, True)]
    return want


@pytest.mark.parametrize("backend", BACKENDS)
def test_int64_division_shifts_and_bits(backend):
    want = _int64_want()
    got = run_backend(backend, INT64, {"Out": ("uint", len(want))}, {"I": ("int", INT64_IN)})["Out"]
    assert got == want


INT16 = """
StructuredBuffer<int> I : register(t1);
StructuredBuffer<float> F : register(t2);
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(1,1,1)] void main() {
    int16_t zero = (int16_t)I[0], m1 = (int16_t)I[1], seven = (int16_t)I[2], m7 = (int16_t)I[3];
    int16_t mn = (int16_t)I[4];
    uint16_t uz = (uint16_t)zero, u7 = (uint16_t)seven, umax = (uint16_t)0xFFFF;
    uint k = 0;
    Out[k++] = (uint16_t)(seven / zero); Out[k++] = (uint16_t)(m7 / zero);
    Out[k++] = (uint16_t)(seven % zero); Out[k++] = (uint16_t)(m7 % zero);
    Out[k++] = (uint16_t)(mn / m1); Out[k++] = (uint16_t)(mn % m1);
    Out[k++] = u7 / uz; Out[k++] = u7 % uz;
    Out[k++] = (uint16_t)(seven << (uint16_t)I[5]); Out[k++] = (uint16_t)(mn >> (uint16_t)I[5]);
    Out[k++] = umax >> (uint16_t)I[6]; Out[k++] = (uint16_t)(seven << (int16_t)16);
    Out[k++] = (uint16_t)((int16_t)-32768 / (int16_t)-1);
    Out[k++] = (uint16_t)(mn * m1); Out[k++] = (uint16_t)(seven * (int16_t)10000);
    Out[k++] = (uint)(int)(seven * (int16_t)10000);
    half hnan = (half)F[0], hbig = (half)F[1], hneg = (half)F[2];
    Out[k++] = (uint16_t)(int16_t)hbig; Out[k++] = (uint16_t)hneg; Out[k++] = (uint16_t)(int16_t)hnan;
    Out[k++] = (uint16_t)(int16_t)F[3]; Out[k++] = (uint16_t)F[3]; Out[k++] = (uint16_t)(int16_t)F[4];
    Out[k++] = (uint16_t)(int16_t)-1e10; Out[k++] = (uint16_t)70000.0; Out[k++] = (uint16_t)(int16_t)(half)60000.0;
}
"""
INT16_IN = [0, -1, 7, -7, -32768, 17, 31]
INT16_F = [math.nan, 60000.0, -3.5, 1e10, -1e10]


def _int16_want() -> list[int]:
    m16 = 0xFFFF
    return [_div(7, 0, 16, True), _div(-7, 0, 16, True), _rem(7, 0, 16, True), _rem(-7, 0, 16, True),
            _div(-32768, -1, 16, True), _rem(-32768, -1, 16, True), _div(7, 0, 16, False), _rem(7, 0, 16, False),
            (7 << (17 & 15)) & m16, (-32768 >> (17 & 15)) & m16, m16 >> (31 & 15), (7 << (16 & 15)) & m16,
            _div(-32768, -1, 16, True), (-32768 * -1) & m16, (7 * 10000) & m16, (7 * 10000) & m16,
            ftoi(60000.0, 16), ftoi(-3.5, 16, signed=False), ftoi(math.nan, 16),
            ftoi(1e10, 16), ftoi(1e10, 16, signed=False), ftoi(-1e10, 16),
            ftoi(-1e10, 16), ftoi(70000.0, 16, signed=False), ftoi(60000.0, 16)]


@pytest.mark.parametrize("backend", ["spirv", "dxil-vk"])   # the DXIL interpreter does not model 16-bit values
def test_int16_division_shifts_and_saturating_conversions(backend):
    want = _int16_want()
    got = _run_opts(backend, INT16, {"Out": ("uint", len(want))}, {"I": ("int", INT16_IN), "F": ("float", INT16_F)},
                    profile="cs_6_2", enable_16bit_types=True)["Out"]
    assert got == want


# ---------------------------------------------------------------- atomics on one vector component

# `InterlockedAdd(buf[i].y, v)` on a vector element (or a struct member's vector) of a structured buffer and on a
# groupshared vector: DXC accepts them (one 32-bit word); both backends refused them ("needs a memory location").
# P's members sit at the same offsets in D3D's and Vulkan's layouts, so one set of test words serves both.
ATOMIC_COMPONENTS = """
struct P { int4 w; uint2 v; uint a; int b[2]; };
RWStructuredBuffer<P> S : register(u1);
RWStructuredBuffer<uint2> V : register(u2);
RWStructuredBuffer<uint> Out : register(u0);
groupshared uint2 GV;
groupshared int4 GW[2];
[numthreads(4,1,1)] void main(uint3 id : SV_GroupThreadID) {
    uint t = id.x;
    if (t == 0) { GV = uint2(1, 2); GW[1] = int4(0, 0, -5, 0); }
    GroupMemoryBarrierWithGroupSync();
    InterlockedAdd(V[1].y, t + 1);
    InterlockedMax(S[0].v.y, t * 10);
    InterlockedMin(S[0].w.z, -(int)t);
    uint prev;
    InterlockedCompareExchange(S[0].v.x, 7, 100 + t, prev);      // only one thread sees 7
    InterlockedOr(GV.y, 1u << (t + 4));
    InterlockedMin(GW[1].z, (int)t - 7);
    GroupMemoryBarrierWithGroupSync();
    Out[4 + t] = prev;
    if (t == 0) {
        Out[0] = V[1].y; Out[1] = S[0].v.y; Out[2] = (uint)S[0].w.z; Out[3] = GV.y;
        Out[8] = (uint)GW[1].z; Out[9] = S[0].v.x; Out[10] = V[1].x; Out[11] = (uint)S[0].w.w;
    }
}
"""


@pytest.mark.parametrize("backend", ["spirv", "dxil-vk"])   # group barriers: not on the serial interpreter
def test_atomics_on_one_vector_component(backend):
    p = [1, 2, -1, 9, 7, 3, 0, 11, 5]      # w, v, a, b[2]
    got = run_backend(backend, ATOMIC_COMPONENTS, {"Out": ("uint", 12)},
                      {"S": ("int", p), "V": ("uint", [40, 50, 60, 70])})
    out = got["Out"]
    prevs = out[4:8]
    winner = [t for t in range(4) if prevs[t] == 7]
    assert len(winner) == 1 and all(pv >= 100 for t, pv in enumerate(prevs) if t not in winner)
    assert out[:4] == [70 + 1 + 2 + 3 + 4, 30, -3 & M32, 2 | 0xF0]
    assert out[8:] == [-7 & M32, 100 + winner[0], 60, 9]
    assert got["V"] == [40, 50, 60, 80] and got["S"][:4] == [1, 2, -3, 9]   # the neighbouring words are untouched


def test_atomic_on_a_vector_component_runs_on_the_interpreter():
    src = ("RWStructuredBuffer<uint4> V : register(u1);\nRWStructuredBuffer<uint> Out : register(u0);\n"
           "[numthreads(1,1,1)] void main() { uint o; InterlockedAdd(V[1].z, 5, o); Out[0] = o; "
           "InterlockedMax(V[0].w, 9); }\n")
    for backend in BACKENDS:
        got = run_backend(backend, src, {"Out": ("uint", 1)}, {"V": ("uint", [1, 2, 3, 4, 5, 6, 7, 8])})
        assert got["V"] == [1, 2, 3, 9, 5, 6, 12, 8] and got["Out"] == [7], backend


# ---------------------------------------------------------------- ByteAddressBuffer Load<T[N]> / Store<T[N]>

# An array type as the template argument (DXC accepts `Load<S[2]>`) was a parse error; an array value stored
# without a template argument is Store<T[N]> with T[N] deduced.  Words of B hold float(i).
BAB_ARRAYS = """
RWByteAddressBuffer B : register(u1);
RWStructuredBuffer<uint> Out : register(u0);
struct S { float a; uint2 b; };
[numthreads(1,1,1)] void main() {
    uint k = 0;
    float arr[3] = B.Load<float[3]>(4);          Out[k++] = asuint(arr[0]); Out[k++] = asuint(arr[2]);
    S s2[2] = B.Load<S[2]>(0);                   Out[k++] = asuint(s2[1].a); Out[k++] = s2[1].b.y;
    float2x2 m2[2] = B.Load<float2x2[2]>(0);     Out[k++] = asuint(m2[1]._12);
    B.Store<float[3]>(64, arr);
    int ia[2] = { 5, -6 };
    B.Store(72, ia);
    for (uint i = 16; i < 20; i++) Out[k++] = B.Load(4 * i);
}
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_byte_address_array_template_arguments(backend):
    words = [float(i) for i in range(20)]
    got = run_backend(backend, BAB_ARRAYS, {"Out": ("uint", 9)}, {"B": ("float", words)})["Out"]
    # S is 12 bytes (a, b at 4): s2[1] starts at word 3; float2x2 is 16 bytes, column-major: m2[1]._12 is word 6
    assert got == [fbits(1.0), fbits(3.0), fbits(3.0), fbits(5.0), fbits(6.0),
                   fbits(1.0), fbits(2.0), 5, -6 & M32]


# ---------------------------------------------------------------- integer operators and intrinsics, folded and not

IMIN = -(1 << 31)
# (name, run-time expression, folded expression, model as a 32-bit pattern); run time reads m1 = -1,
# imin = INT_MIN, seven, m7 and big (0x80000000 as uint) from a buffer, IMIN is a static const
INT_EDGES = [
    ("abs_int_min", "abs(imin)", "abs(IMIN)", IMIN & M32),
    ("abs_negative", "abs(m7)", "abs(-7)", 7),
    ("sign_negative", "sign(m7)", "sign(-7)", M32),
    ("sign_int_min", "sign(imin)", "sign(IMIN)", M32),
    ("min_int_uint_is_unsigned", "min(m1, big)", "min(-1, 0x80000000u)", 0x80000000),
    ("max_uint_zero_is_unsigned", "max(m1, 0u)", "max(-1, 0u)", M32),
    ("clamp_signed", "clamp(m7, -3, 3)", "clamp(-7, -3, 3)", -3 & M32),
    ("clamp_unsigned", "clamp(big, 1u, 5u)", "clamp(0x80000000u, 1u, 5u)", 5),
    ("countbits_minus_one", "countbits(m1)", "countbits(-1)", 32),
    ("countbits_int_min", "countbits(imin)", "countbits(IMIN)", 1),
    ("reversebits", "reversebits((uint)seven)", "reversebits(7u)", 0xE0000000),
    ("mad_int", "mad(m7, seven, m1)", "mad(-7, 7, -1)", -50 & M32),
    ("mul_wraps", "imin * m1", "IMIN * -1", IMIN & M32),
    ("sub_wraps", "imin - 1", "IMIN - 1", 0x7FFFFFFF),
    ("negate_int_min", "-imin", "-IMIN", IMIN & M32),
    ("bitnot", "~seven", "~7", ~7 & M32),
    ("shr_uint", "big >> 31", "0x80000000u >> 31", 1),
    ("shr_int_arithmetic", "imin >> 31", "IMIN >> 31", M32),
    ("div_truncates", "seven / m7", "7 / -7", M32),
    ("mod_sign_of_dividend", "m7 % 3", "-7 % 3", -1 & M32),
    ("mod_negative_divisor", "7 % m7", "7 % -7", 0),
    ("udiv", "big / 3u", "0x80000000u / 3u", 0x80000000 // 3),
    ("firstbithigh_negative", "firstbithigh(m7)", "firstbithigh(-7)", 2),
    ("firstbitlow_int_min", "firstbitlow(imin)", "firstbitlow(IMIN)", 31),
    ("dot_int", "dot(int2(m7, seven), int2(seven, seven))", "dot(int2(-7, 7), int2(7, 7))", 0),
    ("all_int", "all(int2(seven, 0))", "all(int2(7, 0))", 0),
    ("any_int", "any(int2(0, m1))", "any(int2(0, -1))", 1),
    ("mul_overflow", "seven * 0x20000000", "7 * 0x20000000", (7 * 0x20000000) & M32),
    ("lt_int_uint_is_unsigned", "m7 < big", "-7 < 0x80000000u", 0),
]


def _int_edges_src() -> str:
    rows = "\n".join(f"    Out[{2 * i}] = (uint)({r});\n    Out[{2 * i + 1}] = (uint)({f});"
                     for i, (_n, r, f, _w) in enumerate(INT_EDGES))
    return ("StructuredBuffer<int> I : register(t1);\nRWStructuredBuffer<uint> Out : register(u0);\n"
            "static const int IMIN = (int)0x80000000;\n[numthreads(1,1,1)] void main() {\n"
            "    int m1 = I[0], imin = I[1], seven = I[2], m7 = I[3]; uint big = (uint)I[4];\n" + rows + "\n}\n")


@pytest.mark.parametrize("backend", BACKENDS)
def test_integer_edges_folded_and_at_run_time(backend):
    got = run_backend(backend, _int_edges_src(), {"Out": ("uint", 2 * len(INT_EDGES))},
                      {"I": ("int", [-1, IMIN, 7, -7, IMIN])})["Out"]
    bad = [f"{name} ({form}): got {g:#x}, want {want:#x}"
           for i, (name, _r, _f, want) in enumerate(INT_EDGES)
           for form, g in (("run time", got[2 * i]), ("folded", got[2 * i + 1])) if g != want]
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------- ByteAddressBuffer 16- and 64-bit matrices

# Load<half2x3>, Load<double2x2>, Load<uint16_t3x2> and structs holding them (DXC's templated raw loads take any
# numeric matrix) were refused ("needs 32-bit components"): each component now takes the 16- or 64-bit path at
# its dx_structured offset, column-major unless row_major.
BAB_WIDE_MATRICES = """
RWByteAddressBuffer B : register(u1);
RWStructuredBuffer<float> Out : register(u0);
struct S { half a; half2x3 m; double2x2 d; };
[numthreads(1,1,1)] void main() {
    uint k = 0;
    half2x3 h = B.Load<half2x3>(0);                     Out[k++] = h._12; Out[k++] = h._21; Out[k++] = h._23;
    row_major half2x3 r = B.Load<row_major half2x3>(0); Out[k++] = r._12; Out[k++] = r._21;
    double2x2 d = B.Load<double2x2>(16);                Out[k++] = (float)d._12; Out[k++] = (float)d._21;
    uint16_t3x2 u = B.Load<uint16_t3x2>(0);             Out[k++] = u._31; Out[k++] = u._12;
    S s = B.Load<S>(0);                                 Out[k++] = s.m._11; Out[k++] = (float)s.d._22;
    B.Store<half2x2>(48, half2x2(1, 2, 3, 4));
    B.Store(56, d);
    for (uint i = 12; i < 14; i++) { uint w = B.Load(4 * i); Out[k++] = f16tof32(w); Out[k++] = f16tof32(w >> 16); }
    Out[k++] = (float)B.Load<double>(56 + 8);
}
"""


def _bab_wide_matrices() -> tuple[list[int], list[float]]:
    buf = bytearray(96)
    hv, dv = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0], [10.0, 20.0, 30.0, 40.0]
    struct.pack_into("<6e", buf, 0, *hv)       # as half2x3 column-major: _11 _21 _12 _22 _13 _23
    struct.pack_into("<4d", buf, 16, *dv)      # as double2x2 column-major: _11 _21 _12 _22

    def cm(vals, rows):
        return lambda r, c: float(vals[c * rows + r])

    def rm(vals, cols):
        return lambda r, c: float(vals[r * cols + c])

    h, r, d = cm(hv, 2), rm(hv, 3), cm(dv, 2)
    u = cm(struct.unpack("<6H", bytes(buf[:12])), 3)
    sm = cm(struct.unpack("<6e", bytes(buf[2:14])), 2)     # S: a at 0, m at 2 (2-aligned), d at 16
    want = [h(0, 1), h(1, 0), h(1, 2), r(0, 1), r(1, 0), d(0, 1), d(1, 0), u(2, 0), u(0, 1), sm(0, 0), d(1, 1),
            1.0, 3.0, 2.0, 4.0, d(1, 0)]
    return list(struct.unpack("<24I", bytes(buf))), want


@pytest.mark.parametrize("backend", ["spirv", "dxil-vk"])   # the DXIL interpreter does not model 16-bit values
def test_byte_address_16_and_64_bit_matrices(backend):
    words, want = _bab_wide_matrices()
    got = _run_opts(backend, BAB_WIDE_MATRICES, {"Out": ("float", len(want))}, {"B": ("uint", words)},
                    profile="cs_6_2", enable_16bit_types=True)["Out"]
    assert got == want


@pytest.mark.parametrize("backend", BACKENDS)
def test_byte_address_double_matrix(backend):
    src = ("RWByteAddressBuffer B : register(u1);\nRWStructuredBuffer<float> Out : register(u0);\n"
           "[numthreads(1,1,1)] void main() {\n"
           "    double2x2 d = B.Load<double2x2>(0); Out[0] = (float)d._12; Out[1] = (float)d._21;\n"
           "    row_major double2x2 r = B.Load<row_major double2x2>(0); Out[2] = (float)r._12;\n"
           "    B.Store<double2x2>(32, d * 2); Out[3] = (float)B.Load<double>(48);\n}\n")
    words = list(struct.unpack("<16I", struct.pack("<4d", 10.0, 20.0, 30.0, 40.0) + bytes(32)))
    got = run_backend(backend, src, {"Out": ("float", 4)}, {"B": ("uint", words)})["Out"]
    assert got == [30.0, 20.0, 20.0, 60.0]      # column-major words: _11 _21 _12 _22; row-major: _11 _12 _21 _22


STORE_SHAPES = """
RWByteAddressBuffer B : register(u1);
RWStructuredBuffer<uint> Out : register(u0);
struct S { int16_t i; float f; };
[numthreads(1,1,1)] void main() {
    B.Store(0, (int2x2)7);
    B.Store(16, (int[2])8);
    B.Store(24, (S)9);
    B.Store(32, (S[2])3);
    B.Store(48, (half)1.5);
    B.Store(50, (int16_t)-2);
    for (uint i = 0; i < 13; i++) Out[i] = B.Load(4 * i);
}
"""


@pytest.mark.parametrize("backend", ["spirv", "dxil-vk"])   # the DXIL interpreter does not model 16-bit values
def test_byte_address_store_deduces_every_shape(backend):
    """Store(addr, v) of a matrix, an array, a struct (16-bit member: two bytes, then padding kept), an array of
    structs and 16-bit scalars: v's own layout, bytes the value does not cover untouched."""
    fill = 0x11111111
    want = bytearray(struct.pack("<13I", *[fill] * 13))
    struct.pack_into("<4i2i", want, 0, 7, 7, 7, 7, 8, 8)
    struct.pack_into("<hxxf", want, 24, 9, 9.0)
    want[26:28] = b"\x11\x11"
    for off in (32, 40):
        struct.pack_into("<h", want, off, 3)
        struct.pack_into("<f", want, off + 4, 3.0)
    struct.pack_into("<eh", want, 48, 1.5, -2)
    got = _run_opts(backend, STORE_SHAPES, {"Out": ("uint", 13)}, {"B": ("uint", [fill] * 13)},
                    profile="cs_6_2", enable_16bit_types=True)["Out"]
    assert got == list(struct.unpack("<13I", bytes(want)))


# ---------------------------------------------------------------- overlapping swizzle writes, chained assignment

SWIZZLE_OVERLAP = """
StructuredBuffer<float> F : register(t1);
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1,1,1)] void main() {
    uint k = 0;
    float x = F[0];
    int i; float f;
    i = f = x;                      Out[k++] = i; Out[k++] = f;
    f = i = x;                      Out[k++] = f;
    int a = 1; float y = (a += x);  Out[k++] = y; Out[k++] = a;
    float4 v = float4(1, 2, 3, 4);
    v.xy = v.yx;                    Out[k++] = v.x; Out[k++] = v.y;
    v.xyz = v.zxy;                  Out[k++] = v.x; Out[k++] = v.y; Out[k++] = v.z;
    v.xy += v.yx;                   Out[k++] = v.x; Out[k++] = v.y;
    float2x2 m = float2x2(1, 2, 3, 4);
    m._11_12 = m._12_11;            Out[k++] = m._11; Out[k++] = m._12;
    m[0] = m[1].yx;                 Out[k++] = m._11;
    m = transpose(m);               Out[k++] = m._12;
    float2 p = float2(5, 6); float old = p.x++; Out[k++] = old; Out[k++] = p.x;
    float4 w = float4(1, 2, 3, 4); w.wzyx = w; Out[k++] = w.x; Out[k++] = w.w;
    int2 iv = int2(3, 7); iv.yx = iv * 2; Out[k++] = iv.x; Out[k++] = iv.y;
}
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_overlapping_swizzle_writes_and_chained_assignment(backend):
    x = _f32(2.7)
    # every right-hand side is read in full before any component is written
    want = [2.0, x, 2.0, 3.0, 3.0, 2.0, 1.0, 3.0, 2.0, 1.0, 5.0, 5.0, 2.0, 1.0, 4.0, 3.0, 5.0, 6.0, 4.0, 1.0, 14.0, 6.0]
    got = run_backend(backend, SWIZZLE_OVERLAP, {"Out": ("float", len(want))}, {"F": ("float", [2.7])})["Out"]
    assert got == want


# ---------------------------------------------------------------- cbuffer matrices indexed at run time

CBUFFER_DYNAMIC_MATRICES = """
cbuffer C : register(b1) {
    float2x3 cm;                 // column-major: 3 registers, one per column
    row_major float2x3 rm;       // 2 registers, one per row
    float3x2 arr[2];             // 2 registers each
    row_major float3x3 rarr[2];  // 3 registers each
};
StructuredBuffer<int> I : register(t2);
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1,1,1)] void main() {
    uint k = 0;
    int i = I[0], j = I[1];
    float3 r = cm[i];            Out[k++] = r.x; Out[k++] = r.y; Out[k++] = r.z;
    Out[k++] = cm[i][j];         Out[k++] = cm[0][j];  Out[k++] = cm[i].z;
    float3 q = rm[i];            Out[k++] = q.x; Out[k++] = q.z;  Out[k++] = rm[i][j]; Out[k++] = rm[j - 2][i];
    Out[k++] = arr[i]._32;       Out[k++] = arr[i][j].y; Out[k++] = arr[j - 1][i].x;
    Out[k++] = rarr[i][j].x;     Out[k++] = rarr[i][j][i]; Out[k++] = rarr[0]._m21;
    float3x3 whole = rarr[i];    Out[k++] = whole._23;
    float2x3 cw = cm;            Out[k++] = cw[i][j];
}
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_cbuffer_matrices_indexed_at_run_time(backend):
    """Matrices whose every row / column is one 16-byte register lay out the same in D3D's cbuffer packing and
    std140, so word w = float(w) serves both targets; the expected word follows from the orientation alone."""
    def col(base):
        return lambda r, c: float(4 * (base + c) + r)

    def row(base):
        return lambda r, c: float(4 * (base + r) + c)

    cm, rm, arr, rarr = col(0), row(3), [col(5), col(7)], [row(9), row(12)]
    i, j = 1, 2
    want = [cm(i, 0), cm(i, 1), cm(i, 2), cm(i, j), cm(0, j), cm(i, 2), rm(i, 0), rm(i, 2), rm(i, j), rm(j - 2, i),
            arr[i](2, 1), arr[i](j, 1), arr[j - 1](i, 0), rarr[i](j, 0), rarr[i](j, i), rarr[0](2, 1), rarr[i](1, 2),
            cm(i, j)]
    got = run_backend(backend, CBUFFER_DYNAMIC_MATRICES, {"Out": ("float", len(want))},
                      {"C": ("float", [float(w) for w in range(64)]), "I": ("int", [i, j])})["Out"]
    assert got == want


# ---------------------------------------------------------------- InterlockedExchange of a float

# SM 6.6's float overload of InterlockedExchange (buffer elements, vector components and groupshared floats) was
# refused ("requires an int or uint destination"): SPIR-V exchanges the float (OpAtomicExchange %float, as DXC),
# DXIL the float's bits (AtomicBinOp / atomicrmw xchg on i32, as DXC lowers it).
FLOAT_EXCHANGE_BUFFERS = """
RWStructuredBuffer<float> V : register(u1);
RWStructuredBuffer<float2> V2 : register(u2);
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1,1,1)] void main() {
    float o; InterlockedExchange(V[1], 5.5, o); Out[0] = o;
    InterlockedExchange(V2[0].y, o * 2, o); Out[1] = o;
    float unused; InterlockedExchange(V[0], -0.25, unused);
}
"""
FLOAT_EXCHANGE_GROUPSHARED = """
RWStructuredBuffer<float> Out : register(u0);
groupshared float G;
groupshared float GA[2];
[numthreads(1,1,1)] void main() {
    G = 1.25; GA[1] = -3.5;
    float o; InterlockedExchange(G, 9.0, o); Out[0] = o; Out[1] = G;
    InterlockedExchange(GA[1], o * 2, o); Out[2] = o; Out[3] = GA[1];
}
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_float_interlocked_exchange_on_buffers(backend):
    got = run_backend(backend, FLOAT_EXCHANGE_BUFFERS, {"Out": ("float", 2)},
                      {"V": ("float", [1.0, 2.0]), "V2": ("float", [10.0, 20.0])})
    assert got["Out"] == [2.0, 20.0] and got["V"] == [-0.25, 5.5] and got["V2"] == [10.0, 4.0]


# dxil-spirv mistranslates the i32 atomicrmw on the bitcast groupshared pointer (LIMITS 'float-bitwise-atomic')
@pytest.mark.parametrize("backend", ["spirv", "dxil"])
def test_float_interlocked_exchange_on_groupshared(backend):
    got = run_backend(backend, FLOAT_EXCHANGE_GROUPSHARED, {"Out": ("float", 4)})["Out"]
    assert got == [1.25, 9.0, -3.5, 2.5]


def test_float_exchange_on_groupshared_is_a_listed_dxil_spirv_limit():
    from harness import dxil_consumer

    with pytest.raises(dxil_consumer.ConsumerLimit, match="float-bitwise-atomic"):
        run_backend("dxil-vk", FLOAT_EXCHANGE_GROUPSHARED, {"Out": ("float", 4)})


# ---------------------------------------------------------------- mul() of every shape pair; one-component subscripts

# word i of F; no zeros: a product of zero has a sign that lavapipe may drop differently in the -O3 and -O0
# builds (no SignedZeroInfNanPreserve), and the harness compares them bit for bit
MUL_VALUES = [float(i % 7 - 3) + 0.5 for i in range(16)]


def _mul_table() -> tuple[str, list[float]]:
    """mul(RxN, NxC) for R, N, C in 1..4, mul(floatN, MxC) and mul(RxM, floatN) for every size pair that differs
    (the longer side truncates) and mul(scalar, RxC); each result reduced to one float with per-element weights, so a wrong
    element or orientation shows."""
    import itertools

    def mat(r, c, off):
        return [[MUL_VALUES[(off + i * c + j) % 16] for j in range(c)] for i in range(r)]

    def ctor(r, c, off):
        return f"float{r}x{c}(" + ", ".join(f"F[{(off + i) % 16}]" for i in range(r * c)) + ")"

    lines, want = [], []
    for r, n, c in itertools.product(range(1, 5), repeat=3):
        a, b = mat(r, n, 0), mat(n, c, 5)
        lines.append(f"{{ float{r}x{c} p = mul({ctor(r, n, 0)}, {ctor(n, c, 5)}); float s = 0; "
                     f"[unroll] for (int i = 0; i < {r}; i++) [unroll] for (int j = 0; j < {c}; j++) "
                     f"s += p[i][j] * (1 + i * 4 + j); Out[{len(want)}] = s; }}")
        want.append(sum(sum(a[i][t] * b[t][j] for t in range(n)) * (1 + i * 4 + j) for i in range(r) for j in range(c)))
    for n, m, c in itertools.product(range(2, 5), range(1, 5), range(1, 5)):
        if n == m:
            continue            # (equal sizes: the matrix x matrix rows above)
        v, mm = [MUL_VALUES[(3 + i) % 16] for i in range(n)], mat(m, c, 9)
        vec = f"float{n}(" + ", ".join(f"F[{(3 + i) % 16}]" for i in range(n)) + ")"
        lines.append(f"{{ float{c} p = mul({vec}, {ctor(m, c, 9)}); float s = 0; "
                     f"[unroll] for (int j = 0; j < {c}; j++) s += p[j] * (j + 1); Out[{len(want)}] = s; }}")
        want.append(sum(sum(v[i] * mm[i][j] for i in range(min(n, m))) * (j + 1) for j in range(c)))
    for r, m, n in itertools.product(range(1, 5), range(1, 5), range(2, 5)):     # mul(RxM, floatN)
        if n == m:
            continue
        mm, v = mat(r, m, 2), [MUL_VALUES[(7 + i) % 16] for i in range(n)]
        vec = f"float{n}(" + ", ".join(f"F[{(7 + i) % 16}]" for i in range(n)) + ")"
        lines.append(f"{{ float{r} p = mul({ctor(r, m, 2)}, {vec}); float s = 0; "
                     f"[unroll] for (int j = 0; j < {r}; j++) s += p[j] * (j + 1); Out[{len(want)}] = s; }}")
        want.append(sum(sum(mm[i][t] * v[t] for t in range(min(m, n))) * (i + 1) for i in range(r)))
    for r, c in ((1, 1), (1, 4), (3, 1), (2, 3)):                                  # mul(scalar, RxC)
        mm = mat(r, c, 4)
        lines.append(f"{{ float{r}x{c} p = mul(F[1], {ctor(r, c, 4)}); float s = 0; [unroll] for (int i = 0; i < {r}; "
                     f"i++) [unroll] for (int j = 0; j < {c}; j++) s += p[i][j] * (1 + i * 4 + j); Out[{len(want)}] = s; }}")
        want.append(sum(MUL_VALUES[1] * mm[i][j] * (1 + i * 4 + j) for i in range(r) for j in range(c)))
    src = ("StructuredBuffer<float> F : register(t1);\nRWStructuredBuffer<float> Out : register(u0);\n"
           "[numthreads(1,1,1)] void main() {\n" + "\n".join(lines) + "\n}\n")
    return src, want


@pytest.mark.parametrize("backend", BACKENDS)
def test_mul_of_every_shape_pair(backend):
    """(`p[i][0]` of an Nx1 result and `p[0][0]` of a 1x1 were refused: a one-component row is a scalar in our IR.)"""
    src, want = _mul_table()
    got = run_backend(backend, src, {"Out": ("float", len(want))}, {"F": ("float", MUL_VALUES)})["Out"]
    assert got == want


ONE_COMPONENT = """
StructuredBuffer<float> F : register(t1);
RWStructuredBuffer<float> Out : register(u0);
float first(float1 v) { return v[0]; }
[numthreads(1,1,1)] void main() {
    float1 v = F[0];               Out[0] = v[0];
    float2x1 m = float2x1(F[0], F[1]);
    Out[1] = m[1][0];
    m[0][0] = 5;                   Out[2] = m._11;
    float1x1 s = F[1];             Out[3] = s[0][0] * 2;
    Out[4] = first(F[1]);
    uint i = (uint)F[2];           Out[5] = m[i][0];
}
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_one_component_vector_subscripts(backend):
    got = run_backend(backend, ONE_COMPONENT, {"Out": ("float", 6)}, {"F": ("float", [1.5, 2.5, 1.0])})["Out"]
    assert got == [1.5, 2.5, 5.0, 5.0, 2.5, 2.5]


@pytest.mark.parametrize("body, message", [
    ("float f = 1; Out[0] = f[0];", "subscripted value of type 'float' is not an array, vector or matrix"),
    ("float2x1 m = 1; Out[0] = m[1][1];", "index 1 is out of bounds for a one-component vector"),
])
def test_subscripting_a_scalar_is_still_an_error(body, message):
    from lang_util import compile_cs

    src = f"RWStructuredBuffer<float> Out : register(u0);\n[numthreads(1,1,1)] void main() {{ {body} }}\n"
    res = compile_cs(src)
    assert not res.ok and [d.message for d in res.diagnostics if d.severity == "error"] == [message]


# An atomic on one matrix component of a structured-buffer element (`InterlockedAdd(buf[i].m._12, v)`): the DXIL
# backend refused it; row_major keeps D3D's layout equal to SPIR-V's (where integer matrices are stored as rows).
ATOMIC_MATRIX_COMPONENT = """
struct P { row_major uint2x2 m; };
RWStructuredBuffer<P> S : register(u1);
RWStructuredBuffer<uint> Out : register(u0);
groupshared uint2x2 G;
[numthreads(1,1,1)] void main() {
    G = uint2x2(1, 2, 3, 4);
    InterlockedAdd(S[0].m._12, 100);
    uint o; InterlockedAdd(S[0].m[1][0], 1000, o);
    InterlockedAdd(G._21, 7);
    Out[0] = S[0].m._12; Out[1] = S[0].m._21; Out[2] = G._21; Out[3] = o;
}
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_atomic_on_one_matrix_component(backend):
    got = run_backend(backend, ATOMIC_MATRIX_COMPONENT, {"Out": ("uint", 4)}, {"S": ("uint", [1, 3, 2, 4])})
    assert got["Out"] == [103, 1002, 10, 2] and got["S"] == [1, 103, 1002, 4]


@pytest.mark.parametrize("backend", BACKENDS)
def test_atomic_on_a_vector_component_chosen_at_run_time(backend):
    """`InterlockedAdd(buf[j][i], v)` with i known only at run time: the DXIL backend refused it."""
    src = ("RWStructuredBuffer<uint4> U4 : register(u1);\nRWStructuredBuffer<uint> Out : register(u0);\n"
           "StructuredBuffer<uint> I : register(t2);\n[numthreads(1,1,1)] void main() {\n"
           "    uint i = I[0], j = I[1];\n    uint o; InterlockedAdd(U4[j][i], 100, o); Out[0] = o;\n"
           "    InterlockedMax(U4[0][j + 2], 50);\n}\n")
    got = run_backend(backend, src, {"Out": ("uint", 1)}, {"U4": ("uint", [1, 2, 3, 4, 5, 6, 7, 8]), "I": ("uint", [2, 1])})
    assert got["Out"] == [7] and got["U4"] == [1, 2, 3, 50, 5, 6, 107, 8]


def test_sizeof_of_an_array_type():
    """`sizeof(T[N])` (was a parse error: "expected ')'"): N elements at T's structured-buffer stride."""
    src = ("RWStructuredBuffer<uint> Out : register(u0);\nstruct D { float3 v; };\nstruct E { half h; double d; };\n"
           "[numthreads(1,1,1)] void main() {\n    Out[0] = sizeof(D[2]); Out[1] = sizeof(float[3]);\n"
           "    Out[2] = sizeof(float2x3[2][2]); Out[3] = sizeof(E[2]); float arr[5]; Out[4] = sizeof(arr);\n"
           "    Out[5] = sizeof(uint64_t[3]);\n}\n")
    for backend in BACKENDS:
        # D: 12 bytes; float2x3: 24; E: half (32-bit without -enable-16bit-types) then a double 8-aligned: 16
        assert run_backend(backend, src, {"Out": ("uint", 6)})["Out"] == [24, 12, 96, 32, 20, 24], backend


# ---------------------------------------------------------------- -fvk-use-dx-layout: HLSL cbuffer packing in SPIR-V

# Under D3D's cbuffer packing a member may sit in the unused end of a row_major matrix's last row (`float c` right
# after `row_major float2x3 m`: m ends at 28, c at 28).  A SPIR-V matrix spans its whole MatrixStride vectors, so
# the module was invalid (spirv-val: "member overlaps previous member") yet compiled with exit 0; now a located
# error.  A column_major matrix (SPIR-V RowMajor) ends where HLSL ends it and is fine, so is a member after a struct
# that ends with a row_major matrix (spirv-val sizes the struct as HLSL does), and the default Vulkan layout never
# packs into a matrix.
DX_TAIL = "cbuffer C : register(b1) {{ {decl} }};\nRWStructuredBuffer<float> Out : register(u0);\n" \
          "[numthreads(1,1,1)] void main() {{ Out[0] = {use}; }}\n"


def _dx_layout(src: str, vk_layout: str = "dx"):
    from shaderbuild.compiler import compile_file
    from shaderbuild.options import CompileOptions

    return compile_file("dx.hlsl", CompileOptions(entry="main", profile="cs_6_0", target="spirv", vk_layout=vk_layout),
                        text=src)


@pytest.mark.parametrize("decl, use, culprit", [
    ("row_major float2x3 m; float c;", "m._11 + c", ("c", "m")),
    ("row_major float3x2 m[2]; float2 c;", "m[1]._11 + c.y", ("c", "m")),
], ids=["after_matrix", "after_array"])
def test_dx_layout_member_in_a_matrix_tail_is_refused(decl, use, culprit):
    """(at the cbuffer, where layout errors of its members are reported)"""
    from harness import tools

    src = DX_TAIL.format(decl=decl, use=use)
    res = _dx_layout(src)
    errors = [d for d in res.diagnostics if d.severity == "error"]
    assert not res.ok and len(errors) == 1 and errors[0].loc.line == src.splitlines().index(
        next(line for line in src.splitlines() if line.startswith("cbuffer"))) + 1
    assert errors[0].message.startswith(f"'{culprit[0]}' is packed into the unused end of the last row of the "
                                        f"matrix in '{culprit[1]}'")
    ok = _dx_layout(src, "default")       # the default Vulkan layout: valid
    assert ok.ok
    tools.spirv_val(ok.binary, "vulkan1.1")


@pytest.mark.parametrize("head, decl, use", [
    ("", "float2x3 m; float c;", "m._23"),
    ("struct S { float x; row_major float2x2 m; };\n", "S m; float c;", "m.m._22"),
], ids=["column_major_matrix", "struct_ending_in_a_matrix"])
def test_dx_layout_packing_after_a_matrix_that_stays_valid(head, decl, use):
    """A float in the same register as the end of a column_major float2x3 (3 registers, the last one 2 floats)
    or of a struct ending in a row_major matrix: valid SPIR-V with -fvk-use-dx-layout at D3D's offset (40)."""
    src = head + DX_TAIL.format(decl=decl, use=use + " + c")
    res = _dx_layout(src)
    assert res.ok, [d.message for d in res.diagnostics]
    import res_util
    res_util.spirv_val_flags(res.binary, "vulkan1.1", "--scalar-block-layout")
    members = {m["name"]: m for r in res.manifest["resources"] if r["name"] == "C" for m in r["block"]["members"]}
    assert members["c"]["vulkan"]["offset"] == members["c"]["hlsl"]["offset"] == 40


# Arrays of non-square integer matrices under -fvk-use-dx-layout: the SPIR-V array stride was computed as if the
# matrices were column_major (Vulkan's rules store integer matrices by rows whatever their orientation, HLSL's only
# when row_major), so `row_major int3x2 a[3]` got stride 32 for D3D's 48 (invalid SPIR-V) and `row_major uint2x3
# b[2]` 48 for 32 (valid SPIR-V reading the wrong words).  Word w of the cbuffer holds w.
DX_INT_MATRIX_ARRAYS = """
struct S { row_major int3x2 a[3]; uint f; row_major uint2x3 b[2]; };
ConstantBuffer<S> R : register(b1);
RWStructuredBuffer<uint> Out : register(u0);
StructuredBuffer<uint> I : register(t2);
[numthreads(1,1,1)] void main() {
    S v = R; uint i = I[0];
    Out[0] = v.a[1]._32; Out[1] = v.f; Out[2] = R.a[i]._21; Out[3] = R.b[1]._23; Out[4] = R.b[i][0].y;
}
"""


DX_ONE_ROW_ARRAYS = """
struct S { row_major int1x3 c[2]; row_major float1x3 d[2]; column_major float3x1 e[2]; };
ConstantBuffer<S> R : register(b1);
RWStructuredBuffer<uint> Out : register(u0);
StructuredBuffer<uint> I : register(t2);
[numthreads(1,1,1)] void main() {
    uint i = I[0];
    Out[0] = R.c[1]._13; Out[1] = asuint(R.d[i]._12); Out[2] = asuint(R.e[1]._21); Out[3] = R.c[i][0].y;
}
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_dx_layout_arrays_of_one_row_matrices(backend):
    """1xN row_major / Nx1 column_major matrices (one register each, stored as a vector in SPIR-V) had the
    stride of the other orientation (48 for D3D's 16) in arrays under -fvk-use-dx-layout."""
    want = [16 // 4 + 2, 48 // 4 + 1, (64 + 16) // 4 + 1, 16 // 4 + 1]     # c at 0, d at 32, e at 64; stride 16
    got = _run_opts(backend, DX_ONE_ROW_ARRAYS, {"Out": ("uint", 4)},
                    {"R": ("uint", list(range(64))), "I": ("uint", [1])}, vk_layout="dx")["Out"]
    assert got == want


@pytest.mark.parametrize("backend", BACKENDS)
def test_dx_layout_arrays_of_integer_matrices(backend):
    # a: 3 rows of int2 in registers, 40 bytes, stride 48; f at 136; b: 2 rows of uint3 (28 bytes), stride 32, at 144
    want = [(48 + 2 * 16 + 4) // 4, 136 // 4, (48 + 16) // 4, (144 + 32 + 16 + 8) // 4, (144 + 32 + 4) // 4]
    got = _run_opts(backend, DX_INT_MATRIX_ARRAYS, {"Out": ("uint", 5)},
                    {"R": ("uint", list(range(64))), "I": ("uint", [1])}, vk_layout="dx")["Out"]
    assert got == want


# 64-bit matrices in a cbuffer: D3D stores each vector from a 16-byte row, and a double3 / double4 vector takes two
# rows, so the distance between vectors is 32 bytes; the DXIL layout used 16 for every matrix (the vectors
# overlapped: silent wrong values from the second column on).  The default Vulkan layout (std140) agrees.
CBUFFER_DOUBLE_MATRICES = """
cbuffer C : register(b1) { double3x3 a; row_major double2x4 b; float c; };
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1,1,1)] void main() {
    Out[0] = (float)a._11; Out[1] = (float)a._31; Out[2] = (float)a._12; Out[3] = (float)a._33;
    Out[4] = (float)b._14; Out[5] = (float)b._21; Out[6] = c;
}
"""


def _double_matrix_cbuffer() -> list[int]:
    buf = bytearray(256)
    for col in range(3):            # a: column-major, columns at 0, 32, 64 (24 bytes each); 88 bytes
        for row in range(3):
            struct.pack_into("<d", buf, 32 * col + 8 * row, 10.0 * (row + 1) + col + 1)
    for row in range(2):            # b: at 96 (a row of its own), rows at 96 and 128 (32 bytes each)
        for col in range(4):
            struct.pack_into("<d", buf, 96 + 32 * row + 8 * col, 100.0 * (row + 1) + col + 1)
    struct.pack_into("<f", buf, 160, 7.5)
    return list(struct.unpack("<64I", bytes(buf)))


@pytest.mark.parametrize("vk_layout", ["default", "dx"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_cbuffer_64_bit_matrices(backend, vk_layout):
    got = _run_opts(backend, CBUFFER_DOUBLE_MATRICES, {"Out": ("float", 7)}, {"C": ("uint", _double_matrix_cbuffer())},
                    vk_layout=vk_layout)["Out"]
    assert got == [11.0, 31.0, 12.0, 33.0, 104.0, 201.0, 7.5]
