"""Issue 20 language gaps (session 9): the width of integer and float literals in constant folding, DXC's
overload ranking (and user functions named as intrinsics), texture-offset and buffer edge cases.

Every executed case runs on lavapipe from SPIR-V (-O3, repeated at -O0), on the DXIL interpreter and
through dxil-spirv; expected values are computed here in Python from the inputs, never by the compiler.
Folded results are checked against the same operation done at run time on values the compiler cannot see.
"""

from __future__ import annotations

import pytest
from lang_util import BACKENDS, f32, run_backend

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

M32, M64 = (1 << 32) - 1, (1 << 64) - 1


def _compile(src: str, target: str = "spirv", profile: str = "cs_6_2"):
    return compile_file("gaps9.hlsl", CompileOptions(entry="main", profile=profile, target=target), text=src)


def _diags(res, severity: str) -> list[tuple[int, int, str]]:
    return [(d.loc.line, d.loc.col, d.message) for d in res.diagnostics if d.severity == severity]


def s64(x: int) -> int:
    """A Python int wrapped to a signed 64-bit value (DXC's "literal int" is 64 bits wide)."""
    x &= M64
    return x - (1 << 64) if x >> 63 else x


def s32(x: int) -> int:
    x &= M32
    return x - (1 << 32) if x >> 31 else x


# ---------------------------------------------------------------- 1. integer literal width in folding
# The run-time inputs: I[k] holds what the folded row writes as a literal, so the same operation is done by
# the device on values it cannot fold.
I_IN = [1, 0xFFFFFFFF, 2147483648, 4294967296, -1, 2147483647, 3, 40, 33, 65, 34, 0xF0000000, 36, 63, 4]

# (folded expression, run-time twin, expected value as stored to a uint64_t)
INT_ROWS = [
    ("1 << 40", "I[0] << I[7]", s64(1 << 40)),                               # 64-bit, not 1 << (40 & 31)
    ("(uint)(1 << 33)", "(uint)(I[0] << I[8])", (1 << 33) & M32),            # shifted in 64 bits, then truncated
    ("0xFFFFFFFF + 1", "I[1] + I[0]", 0xFFFFFFFF + 1),
    ("(uint)-2147483648", "(uint)(-I[2])", -2147483648 & M32),
    ("(uint)4294967296", "(uint)I[3]", 4294967296 & M32),
    ("1 << 65", "I[0] << I[9]", 1 << (65 & 63)),                             # a 64-bit shift masks to 6 bits
    ("-1 >> 40", "I[4] >> I[7]", -1),                                        # signed: arithmetic
    ("0xFFFFFFFF >> 4", "I[1] >> 4", 0xFFFFFFFF >> 4),                       # positive in 64 bits: no sign fill
    ("(float)(2147483647 + 1)", "(float)(I[5] + I[0])", 2147483648),         # no 32-bit wrap before the use
    ("(int)(2147483647 + 1)", "(int)(I[5] + I[0])", s32(2147483647 + 1)),    # the wrap happens at the use
    ("(1 << 34) / 3", "(I[0] << I[10]) / I[6]", (1 << 34) // 3),
    ("-7 / 2", "(-7 * I[0]) / 2", -3),                                       # truncating division
    ("3L << 34", "(int)I[6] << (int)I[10]", 3 << (34 & 31)),                 # L: HLSL's long is a 32-bit int
    ("0xF0000000L >> 36", "(uint)I[11] >> (uint)I[12]", 0xF0000000 >> (36 & 31)),   # ... an unsigned one here
    ("1ull << 63", "(uint64_t)I[0] << I[13]", 1 << 63),
    ("1ll << 40", "I[0] << I[7]", 1 << 40),
    ("~0 & 0xFFFFFFFF", "~(I[0] - I[0]) & I[1]", 0xFFFFFFFF),                 # ~0 stays a 64-bit literal
]


def _int_literal_shader() -> str:
    lines = []
    for k, (folded, runtime, _want) in enumerate(INT_ROWS):
        lines.append(f"    O[{2 * k}] = (uint64_t)({folded});")
        lines.append(f"    O[{2 * k + 1}] = (uint64_t)({runtime});")
    return """
RWStructuredBuffer<int64_t> I : register(u0);
RWStructuredBuffer<uint64_t> O : register(u1);
RWStructuredBuffer<uint> C : register(u2);
template<uint N> struct Count { uint get() { return N; } };
static const uint64_t K = 1 << 36;
[numthreads(1,1,1)] void main() {
""" + "\n".join(lines) + """
    uint sel = (uint)I[14];
    switch (sel) { case (1 << 33) >> 31: C[0] = 1; break; case 0: C[0] = 2; break; default: C[0] = 3; break; }
    float arr[(1 << 34) >> 32];
    C[1] = sizeof(arr) / sizeof(float);
    Count<((1 << 35) >> 33)> c;
    C[2] = c.get();
    C[3] = (uint)(K >> 32);
}
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_integer_literals_fold_in_64_bits(backend):
    """DXC's unsuffixed integer literal is a 64-bit "literal int": an operation on two of them folds in 64 bits
    (a shift masked to 6 bits) and the result converts only where it is used; `L` is a 32-bit long, `ll` and
    `ull` 64-bit.  Each folded row equals its run-time twin and the value computed here."""
    out = run_backend(backend, _int_literal_shader(), {"O": ("uint64_t", 2 * len(INT_ROWS)), "C": ("uint", 4)},
                      {"I": ("int64_t", I_IN)}, profile="cs_6_2")
    for k, (folded, runtime, want) in enumerate(INT_ROWS):
        assert out["O"][2 * k] == want & M64, folded
        assert out["O"][2 * k + 1] == want & M64, runtime
    # a case label, an array size, a template argument and a static initializer fold the same way:
    # (1 << 33) >> 31 == 4 in 64 bits (0 in 32), likewise the others
    assert out["C"] == [1, ((1 << 34) >> 32), ((1 << 35) >> 33), (1 << 36) >> 32]


# (folded expression, run-time twin over F = [1.0, 1e-9, 0.1, 0.2, 16777216.0], expected float)
FLOAT_ROWS = [
    ("(1.0f + 1e-9f) - 1.0f", "(F[0] + 1e-9f) - F[0]", f32(f32(1.0 + f32(1e-9)) - 1.0)),     # rounded per step
    ("1e-9f * 1e9f", "F[1] * 1e9f", f32(f32(1e-9) * f32(1e9))),
    ("(0.1f + 0.2f == 0.3f) ? 1.0f : 0.0f", "(F[2] + F[3] == 0.3f) ? 1.0f : 0.0f",
     1.0 if f32(f32(0.1) + f32(0.2)) == f32(0.3) else 0.0),
    ("16777216.0f + 1.0f", "F[4] + 1.0f", f32(16777216.0 + 1.0)),
    # unsuffixed float literals fold in double precision and round once where used; so does `L`
    ("(1.0 + 1e-9) - 1.0", "(float)(((double)F[0] + 1e-9L) - (double)F[0])", f32((1.0 + 1e-9) - 1.0)),
    ("(float)((1.0L + 1e-9L) - 1.0L)", "(float)(((double)F[0] + 1e-9L) - (double)F[0])", f32((1.0 + 1e-9) - 1.0)),
    ("(0.1 + 0.2 == 0.3) ? 1.0f : 0.0f", "((double)F[2] == 0.1L) ? 2.0f : 3.0f", 0.0 if 0.1 + 0.2 != 0.3 else 1.0),
]


@pytest.mark.parametrize("backend", BACKENDS)
def test_float_literals_fold_at_their_width(backend):
    """A `float` constant holds what the device holds: `1.0f + 1e-9f` folds to 1.0f as at run time (it had
    folded in double and kept 1e-9); unsuffixed literals and `L` fold in double."""
    lines = []
    for k, (folded, runtime, _want) in enumerate(FLOAT_ROWS):
        lines.append(f"    O[{2 * k}] = {folded};")
        lines.append(f"    precise float r{k} = {runtime};")    # lavapipe would reassociate (a + b) - a
        lines.append(f"    O[{2 * k + 1}] = r{k};")
    src = """
RWStructuredBuffer<float> F : register(u0);
RWStructuredBuffer<float> O : register(u1);
[numthreads(1,1,1)] void main() {
""" + "\n".join(lines) + "\n}\n"
    inputs = [1.0, 1e-9, 0.1, 0.2, 16777216.0]
    out = run_backend(backend, src, {"O": ("float", 2 * len(FLOAT_ROWS))}, {"F": ("float", inputs)},
                      profile="cs_6_2")
    for k, (folded, _runtime, want) in enumerate(FLOAT_ROWS):
        assert out["O"][2 * k] == want, folded
    for k, (_folded, runtime, want) in enumerate(FLOAT_ROWS[:-1]):
        assert out["O"][2 * k + 1] == want, runtime
    # the last twin only shows that F[2] is the float 0.1f, not the double 0.1
    assert out["O"][2 * len(FLOAT_ROWS) - 1] == (2.0 if f32(0.1) == 0.1 else 3.0)


def test_literal_narrowing_warnings():
    """clang's -Wconstant-conversion as DXC words it: an implicit conversion of a literal int that needs more
    than the target's 32 bits; none for an explicit cast or a value that fits (either sign)."""
    src = """RWStructuredBuffer<uint> O : register(u0);
[numthreads(1,1,1)] void main() {
    uint a = 4294967296;
    int b = 1 << 40;
    uint c = (uint)(1 << 40);
    uint d = -1;
    int e = 4294967295;
    O[0] = a + b + c + d + e;
}
"""
    res = _compile(src)
    assert _diags(res, "error") == []
    assert _diags(res, "warning") == [
        (3, 14, "implicit conversion from 'literal int' to 'uint' changes value from 4294967296 to 0"),
        (4, 15, "implicit conversion from 'literal int' to 'int' changes value from 1099511627776 to 0"),  # at '<<'

    ]


# ---------------------------------------------------------------- 2. overload ranking
OVERLOADS = """
RWStructuredBuffer<uint> Out : register(u0);
uint fi_u_f(int x) { return 1; } uint fi_u_f(uint x) { return 2; } uint fi_u_f(float x) { return 3; }
uint ff_d(float x) { return 1; } uint ff_d(double x) { return 2; }
uint fi_f(int x) { return 1; } uint fi_f(float x) { return 2; }
uint fv(float2 x) { return 1; } uint fv(float4 x) { return 2; } uint fv(int x) { return 3; }
uint fv2(float2 x) { return 1; } uint fv2(int4 x) { return 2; }
uint fu_d(uint x) { return 1; } uint fu_d(double x) { return 2; }
uint fb_i(bool x) { return 1; } uint fb_i(int x) { return 2; }
uint fi64(int64_t x) { return 1; } uint fi64(float x) { return 2; }
uint fsum(int x, float y) { return 1; } uint fsum(float x, float y) { return 2; }
uint fout(out int x) { x = 5; return 1; } uint fout(out float x) { x = 6; return 2; }
uint fm(float2x2 x) { return 1; } uint fm(float4 x) { return 2; }
uint fz(float x, float y) { return 1; } uint fz(int x, float2 y) { return 2; }
"""

# (call, the overload DXC picks).  DXC scores each argument's conversion with flags, worst first: truncation,
# cast, int (sign) cast, promotion, splat; the arguments' flags add up and the least sum wins.
RANKED_CALLS = [
    ("fi_u_f(i)", 1), ("fi_u_f(u)", 2), ("fi_u_f(f)", 3),    # exact matches
    ("fi_u_f(1.5)", 3),          # a literal float is as good as any float; to int/uint it is a cast
    ("fi_u_f(1u)", 2), ("fi_u_f(1L)", 1), ("fi_u_f(1.5f)", 3),   # suffixes give the literal a type
    ("fi_f(1)", 1), ("fi_f(1.5)", 2),
    ("ff_d(h)", 1),              # half is float without -enable-16bit-types
    ("fv(f3)", 1),               # truncation to float2 beats truncation plus a cast to int
    ("fv(i2)", 1),               # a cast keeping the shape beats a truncation (int2 -> int)
    ("fv2(f3)", 1), ("fv2(f)", 1),   # a splat to float2 beats a splat plus a cast to int4
    ("fu_d(i)", 1),              # int -> uint is a sign change, ranked below int -> double (a cast)
    ("fu_d(1.5)", 2),
    ("fb_i(u)", 2),              # uint -> int a sign change; uint -> bool a cast
    ("fi64(u)", 1), ("fi64(1)", 1),  # uint -> int64_t widens; to float it is a cast
    ("fsum(i, 2)", 1),           # (int, float): one cast (2 -> float); (float, float): two
    ("fout(i)", 1),              # an out parameter ranks its copy back too
    ("fz(i, f)", 2),             # (float, float): a cast; (int, float2): a splat, ranked below it (the flags of
                                 # all arguments add up: no argument need be at least as good in each)
]


@pytest.mark.parametrize("backend", BACKENDS)
def test_overload_ranking_follows_dxc(backend):
    body = "\n".join(f"    Out[{k}] = {c};" for k, (c, _) in enumerate(RANKED_CALLS))
    src = OVERLOADS + """[numthreads(1,1,1)] void main() {
    int i = Out[60]; uint u = Out[61]; float f = Out[62]; half h = Out[63];
    float3 f3 = f; int2 i2 = i; float4 f4 = f; float2x2 m2 = (float2x2)f;
""" + body + "\n}\n"
    out = run_backend(backend, src, {"Out": ("uint", 64)}, profile="cs_6_2")
    assert out["Out"][:len(RANKED_CALLS)] == [want for _, want in RANKED_CALLS]


@pytest.mark.parametrize("call", [
    "fi_u_f(2)",         # a literal int: int and uint both take it unchanged
    "fi_u_f(b)",         # bool -> int, uint and float are all casts
    "fi_u_f(d)",         # double -> int, uint and float are all casts to the parameter
    "ff_d(1)",           # literal int -> float and -> double both casts
    "ff_d(i)",
    "fi_f(d)",
    "fv(f)",             # a splat to float2 and to float4 rank alike
    "fm(f)",             # likewise a splat to float2x2 and to float4
    "fm(f4)",            # one float4 to float4 or to float2x2: as many components of one kind, no flag either
    "fm(m2)",            # way (DXC scores an exact match and a same-count shape change alike)
    "fi_u_f(1.5l)",      # a double, as fi_u_f(d)
])
def test_ambiguous_calls_are_located_errors(call):
    src = OVERLOADS + f"""[numthreads(1,1,1)] void main() {{
    int i = Out[60]; uint u = Out[61]; float f = Out[62]; bool b = Out[63]; double d = Out[59];
    float4 f4 = f; float2x2 m2 = (float2x2)f;
    Out[0] = {call};
}}
"""
    name = call.split("(")[0]
    line = OVERLOADS.count("\n") + 4
    col = src.splitlines()[line - 1].index(call) + 1
    for target in ("spirv", "dxil"):
        assert _diags(_compile(src, target), "error") == [(line, col, f"call to '{name}' is ambiguous")]


INTRINSIC_NAMES = """
RWStructuredBuffer<float> In : register(u0);
RWStructuredBuffer<float> Out : register(u1);
struct S { float v; };
float2 max(float2 a, float2 b) { return a * 100 + b; }
float lerp(float a, float b, float t) { return 100; }
float length(S s) { return s.v * 10; }
int asint(bool b) { return b ? 7 : 8; }
[numthreads(1,1,1)] void main() {
    float2 a = float2(In[0], 5), b = float2(3, 2);
    S s; s.v = 4;
    bool t = In[1] != 0;
    Out[0] = max(a, b).x; Out[1] = max(a, b).y;
    Out[2] = lerp(2.0f, 4.0f, 0.25f);
    Out[3] = length(s);
    Out[4] = length(float2(3, 4));
    Out[5] = asint(t);
    Out[6] = asint(1.0f) == 0x3F800000 ? 1 : 0;
}
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_user_functions_named_as_intrinsics(backend):
    """A user function named as an intrinsic takes precedence where it matches exactly (issue 20; FXC's rule,
    DXC's open bug #1887), then the intrinsic where it accepts the arguments, then the user's best overload."""
    out = run_backend(backend, INTRINSIC_NAMES, {"Out": ("float", 7)}, {"In": ("float", [1.0, 1.0])},
                      profile="cs_6_2")
    a, b = (1.0, 5.0), (3.0, 2.0)
    assert out["Out"][:7] == [a[0] * 100 + b[0], a[1] * 100 + b[1],   # the user's max(float2, float2)
                              100.0,                             # the user's lerp
                              4.0 * 10,                          # the user's length(S)
                              5.0,                               # length(float2): only the intrinsic accepts it
                              7.0,                               # the user's asint(bool): exact
                              1.0]                               # asint(float): the intrinsic's is exact


# ---------------------------------------------------------------- 3. texture offsets known after inlining/unrolling
N = 8


def texel(x: int, y: int) -> float:
    return float(x + N * y)


def _texture():
    import res_util as R
    return R.image(R.pack("f", [texel(x, y) for y in range(N) for x in range(N)]), N, N, "r32f")


OFFSETS = """
Texture2D<float> Tex : register(t0);
RWStructuredBuffer<float> Out : register(u2);
float tap(int2 o) { return Tex.Load(int3(4, 4, 0), o); }                 // an offset from a parameter
float twice(int2 o) { return tap(o * 2); }                                // ... passed on, changed
struct Probe {
    float k;
    float at(int2 o) { return k * Tex.Load(int3(4, 4, 0), o); }         // a method's parameter
};
[numthreads(1,1,1)] void main() {
    [unroll] for (int x = -1; x <= 1; ++x)
        Out[x + 1] = tap(int2(x, -x));                                    // [unroll] counters into a helper
    [unroll] for (int y = 0; y < 2; ++y)
        [unroll] for (int i = 0; i < 2; ++i)
            Out[3 + 2 * y + i] = twice(int2(i - y, y));                   // two levels, two loops
    [unroll] for (int j = 0; j < 6; ++j)                                  // % / << >> & on a counter
        Out[7 + j] = Tex.Load(int3(4, 4, 0), int2(j % 3 - 1, (j / 2) - 1) + int2((j << 1) & 3, j >> 2));
    Probe p; p.k = 2;
    Out[13] = p.at(int2(1, 2));
    Out[14] = p.at(int2(-2, 0));
}
"""


@pytest.mark.parametrize("opt", [3, 0])
def test_offsets_from_helpers_methods_and_counter_arithmetic(opt):
    import res_util as R
    out = R.cs(OFFSETS, {"Tex": _texture(), "Out": R.storage(R.sentinel(15))}, opt_level=opt)
    want = [texel(4 + x, 4 - x) for x in (-1, 0, 1)]
    want += [texel(4 + 2 * (i - y), 4 + 2 * y) for y in (0, 1) for i in (0, 1)]
    want += [texel(4 + j % 3 - 1 + ((j << 1) & 3), 4 + j // 2 - 1 + (j >> 2)) for j in range(6)]
    want += [2 * texel(5, 6), 2 * texel(2, 4)]
    assert R.unpack("f", out["Out"]) == want


def test_counter_into_helper_out_of_range_is_located():
    """The helper's offset is checked once the call is inlined and unrolled: an argument that makes it leave
    [-8, 7] is refused (by the backend, at the helper's offset), not miscompiled."""
    src = """Texture2D<float> Tex : register(t0);
RWStructuredBuffer<float> Out : register(u2);
float tap(int2 o) { return Tex.Load(int3(4, 4, 0), o * 4); }
[numthreads(1,1,1)] void main() {
    [unroll] for (int x = 0; x < 3; ++x) Out[x] = tap(int2(x, 0));
}
"""
    for target in ("spirv", "dxil"):
        res = _compile(src, target)
        assert not res.ok
        errs = _diags(res, "error")
        assert errs and all("texture offset" in m for _, _, m in errs), errs


STATIC_TEMPLATE_METHODS = """
Texture2D<float> Tex : register(t0);
RWStructuredBuffer<float> Out : register(u2);
template<typename T> struct W {
    static const T scale = 3;
    static T twice(T x) { return x + x; }
    static T scaled(T x) { return twice(x) * scale; }                 // calls a sibling, reads static data
    static float at(int2 o) { return Tex.Load(int3(4, 4, 0), o); }   // an offset from its parameter
};
struct P { static float half_of(float x) { return x / 2; } };
[numthreads(1,1,1)] void main() {
    Out[0] = W<float>::twice(1.25);
    Out[1] = W<int>::twice(7) / 2;                                    // int: 14 / 2, truncating
    Out[2] = W<float>::scaled(2);
    Out[3] = W<int2>::at(int2(-1, 2));
    Out[4] = P::half_of(5);
}
"""


@pytest.mark.parametrize("opt", [3, 0])
def test_static_member_functions_of_struct_templates(opt):
    import res_util as R
    out = R.cs(STATIC_TEMPLATE_METHODS, {"Tex": _texture(), "Out": R.storage(R.sentinel(5))}, opt_level=opt)
    assert R.unpack("f", out["Out"]) == [1.25 * 2, float(7 * 2 // 2), (2.0 + 2.0) * 3, texel(3, 6), 2.5]


LOAD_STRUCT_STATUS = """
struct S { float a; uint2 b; double d; };
ByteAddressBuffer B : register(t0);
RWStructuredBuffer<float> Out : register(u1);
#ifdef STATUS
#define LOAD(T, at, st) B.Load<T>(at, st)
#else
#define LOAD(T, at, st) B.Load<T>(at)
#endif
[numthreads(1,1,1)] void main() {
    uint st = 7, st2 = 7;
    S s = LOAD(S, 4, st);
    double2 w = LOAD(double2, 8, st2);              // 64-bit values are several word loads too
    Out[0] = s.a; Out[1] = s.b.x; Out[2] = s.b.y; Out[3] = (float)s.d;
    Out[4] = (float)(w.x + w.y);
#ifdef STATUS
    Out[5] = CheckAccessFullyMapped(st) + 2 * CheckAccessFullyMapped(st2);
#endif
}
"""


def _raw_words() -> tuple[list[int], bytes]:
    import struct as st
    # S at byte 4 in its structured layout (as DXC's Load<S>): a, b at 4..16, d aligned to 8 within S (at 16)
    data = (st.pack("<I", 0) + st.pack("<fII", 2.5, 9, 11) + st.pack("<I", 0) + st.pack("<d", -3.25)).ljust(48, b"\0")
    return list(st.unpack("<12I", data)), data


@pytest.mark.parametrize("backend", BACKENDS)
def test_templated_struct_loads(backend):
    import struct as st
    words, data = _raw_words()
    out = run_backend(backend, LOAD_STRUCT_STATUS, {"Out": ("float", 5)}, {"B": ("uint", words)}, profile="cs_6_2")
    lo, hi = st.unpack("<dd", data[8:24])
    assert out["Out"] == [2.5, 9.0, 11.0, -3.25, f32(lo + hi)]


def test_templated_struct_load_with_status_on_dxil():
    """`Load<S>(addr, status)` on a ByteAddressBuffer (it was refused): DXC sets the status from each load it
    splits the struct into (the last one's stays); ours from a word load at the same address, read by
    CheckAccessFullyMapped.  Neither the DXIL interpreter nor dxil-spirv runs a storage buffer's status (SPIR-V
    has none: our SPIR-V refuses it, as DXC's), so the DXIL is checked by the LLVM tools and read here."""
    import res_util as R
    res, check = R.build_dxil(LOAD_STRUCT_STATUS, profile="cs_6_2", defines={"STATUS": "1"})
    assert res.ok
    assert check.ir.count("call i1 @dx.op.checkAccessFullyMapped.i32(i32 71") == 2
    spirv = _compile("#define STATUS 1\n" + LOAD_STRUCT_STATUS, "spirv")
    errs = _diags(spirv, "error")
    assert errs and all("no residency status for a storage buffer" in m for _, _, m in errs)


GS_VECTOR_ATOMICS = """
groupshared uint4 g;
groupshared int2 h[2];
RWStructuredBuffer<uint> In : register(u0);
RWStructuredBuffer<int> Out : register(u1);
[numthreads(1,1,1)] void main() {
    g = uint4(1, 2, 3, 4); h[0] = int2(-5, 6); h[1] = int2(7, -8);
    uint i = In[0], j = In[1], k = In[2];
    uint o0, o1, o2, o3; int o4, o5;
    InterlockedAdd(g[i], 10, o0);                 // g.z += 10
    InterlockedOr(g[j], 0x30, o1);                // g.y |= 0x30
    InterlockedMax(g[k], 100, o2);                // g.w = max(g.w, 100)
    InterlockedCompareExchange(g[i], 13, 50, o3); // g.z == 13: becomes 50
    InterlockedMin(h[j][k - 2], -20, o4);         // h[1].y = min(-8, -20), signed
    InterlockedMax(h[j - 1][i - 2], 9, o5);       // h[0].x = max(-5, 9)
    Out[0] = g.x; Out[1] = g.y; Out[2] = g.z; Out[3] = g.w;
    Out[4] = h[0].x; Out[5] = h[0].y; Out[6] = h[1].x; Out[7] = h[1].y;
    Out[8] = o0; Out[9] = o1; Out[10] = o2; Out[11] = o3; Out[12] = o4; Out[13] = o5;
}
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_atomics_on_groupshared_vector_components_at_run_time_indices(backend):
    """DXIL keeps each component of a groupshared vector a variable of its own: an atomic on the component an
    index picks at run time is done on every component, the others with the operation's identity (it was
    refused); the old value is the chosen component's."""
    i, j, k = 2, 1, 3
    g, h = [1, 2, 3, 4], [[-5, 6], [7, -8]]
    olds = [g[i]]
    g[i] += 10
    olds.append(g[j])
    g[j] |= 0x30
    olds.append(g[k])
    g[k] = max(g[k], 100)
    olds.append(g[i])
    g[i] = 50 if g[i] == 13 else g[i]
    olds.append(h[j][k - 2])
    h[j][k - 2] = min(h[j][k - 2], -20)
    olds.append(h[j - 1][i - 2])
    h[j - 1][i - 2] = max(h[j - 1][i - 2], 9)
    out = run_backend(backend, GS_VECTOR_ATOMICS, {"Out": ("int", 14)}, {"In": ("uint", [i, j, k])})
    assert out["Out"] == g + h[0] + h[1] + olds


GS_VECTOR_EXCHANGE = """
groupshared uint4 g;
RWStructuredBuffer<uint> In : register(u0);
RWStructuredBuffer<uint> Out : register(u1);
[numthreads(1,1,1)] void main() {
    g = uint4(1, 2, 3, 4);
    uint o0, o1;
    InterlockedExchange(g[In[0]], 50, o0);
    InterlockedExchange(g[In[1]], 60, o1);
    Out[0] = g.x; Out[1] = g.y; Out[2] = g.z; Out[3] = g.w; Out[4] = o0; Out[5] = o1;
}
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_exchange_on_groupshared_vector_components_at_run_time_indices(backend):
    """An exchange has no identity: DXIL branches per component (`if (i == c) old = exchange(...)`)."""
    i, j = 2, 0
    g = [1, 2, 3, 4]
    o0, g[i] = g[i], 50
    o1, g[j] = g[j], 60
    out = run_backend(backend, GS_VECTOR_EXCHANGE, {"Out": ("uint", 6)}, {"In": ("uint", [i, j])})
    assert out["Out"] == g + [o0, o1]


LOCAL_OFFSETS = """
Texture2D<float> Tex : register(t0);
RWStructuredBuffer<float> Out : register(u2);
float fixed(int2 o) { o = int2(2, -3); return Tex.Load(int3(4, 4, 0), o); }    // the helper sets its parameter
int2 corner() { return int2(-2, 3); }                                          // a helper returning a constant
template<typename T> struct Off { static T get() { return T(3, -4); } };
[numthreads(1,1,1)] void main(uint3 id : SV_DispatchThreadID) {
    int2 a = int2(1, -1);                       // a local set once, then read
    int2 b;
    b = a * 2 + int2(0, 1);                     // set from another local
    Out[0] = Tex.Load(int3(4, 4, 0), a);
    Out[1] = Tex.Load(int3(4, 4, 0), b);
    Out[2] = fixed(int2(id.xy));                // the argument is not constant: the helper's store is
    for (uint i = 0; i < 2; ++i)                // a loop (not [unroll]) reading a local set before it
        Out[3 + i] = Tex.Load(int3(4, 4 + i, 0), -a);
    Out[5] = Tex.Load(int3(4, 4, 0), corner());
    Out[6] = Tex.Load(int3(4, 4, 0), Off<int2>::get());
}
"""


@pytest.mark.parametrize("opt", [3, 0])
def test_offsets_from_locals_set_once(opt):
    """DXC folds an offset held by a local variable after its optimisations; we take a local (or a helper's
    parameter the helper assigns) that the function stores to once, at its top level, before the read, and
    the result of a helper whose body is one `return` of a constant."""
    import res_util as R
    out = R.cs(LOCAL_OFFSETS, {"Tex": _texture(), "Out": R.storage(R.sentinel(7))}, opt_level=opt)
    assert R.unpack("f", out["Out"]) == [texel(5, 3), texel(6, 3), texel(6, 1), texel(3, 5), texel(3, 6),
                                         texel(2, 7), texel(7, 0)]


@pytest.mark.parametrize("body, want", [
    ("int2 a = int2(1, 1); if (id.x > 2) a = int2(0, 0);\n    Out[0] = Tex.Load(int3(0, 0, 0), a);",
     "texture offsets must be compile-time constants"),        # two stores
    ("int2 a = int2(id.xy);\n    Out[0] = Tex.Load(int3(0, 0, 0), a);",
     "texture offsets must be compile-time constants"),        # stored once, not a constant
    ("int2 a = int2(9, 0);\n    Out[0] = Tex.Load(int3(0, 0, 0), a);",
     "texture offsets must be in the range [-8, 7]"),
])
def test_offsets_from_locals_refused_are_located(body, want):
    src = ("Texture2D<float> Tex : register(t0);\nRWStructuredBuffer<float> Out : register(u2);\n"
           "[numthreads(1,1,1)] void main(uint3 id : SV_DispatchThreadID) {\n    " + body + "\n}\n")
    line = next(i for i, t in enumerate(src.splitlines(), 1) if "Tex.Load" in t)
    col = src.splitlines()[line - 1].index("a);") + 1
    for target in ("spirv", "dxil"):
        assert _diags(_compile(src, target), "error") == [(line, col, want)]


CONFORMING_LITERALS = """
RWStructuredBuffer<uint64_t> O : register(u0);
RWStructuredBuffer<float> F : register(u1);
uint fi(int x) { return 1; } uint fi(uint x) { return 2; }
[numthreads(1,1,1)] void main() {
    O[0] = 1 << 40;                     // int: a 32-bit shift
    O[1] = 0xFFFFFFFF >> 4;             // a hexadecimal literal beyond int is a uint: logical shift
    O[2] = 0x80000000 >> 4;
    O[3] = 4294967296;                  // a decimal one beyond int is an int64_t
    O[4] = fi(1);                       // int: an exact match, no longer ambiguous
    O[5] = fi(0xFFFFFFFF);
    O[6] = (uint64_t)(2147483647 + 1);  // int arithmetic wraps
    F[0] = (1.0 + 1e-9) - 1.0;          // float arithmetic, each step rounded
}
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_conforming_literals_at_hlsl_202x(backend):
    """-HV 202x (proposal 0017, conforming literals): no literal types; an unsuffixed integer literal is the
    first of int, int64_t (decimal) or int, uint, int64_t, uint64_t (hexadecimal, octal) that holds it, an
    unsuffixed float literal a float."""
    out = run_backend(backend, CONFORMING_LITERALS, {"O": ("uint64_t", 7), "F": ("float", 1)}, profile="cs_6_2",
                      hlsl_version=2029)
    assert out["O"] == [1 << (40 & 31), 0xFFFFFFFF >> 4, 0x80000000 >> 4, 4294967296, 1, 2,
                        s32(2147483647 + 1) & M64]
    assert out["F"] == [f32(f32(1.0 + f32(1e-9)) - 1.0)]
