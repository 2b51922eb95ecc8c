"""Issue 20 items the traceability map (tests/conformance_trace.py) found without an executed test on every
route: a register clause qualified with a shader-model-5 profile (`register(ps_5_0, c1)`), and the stride of a
`StructuredBuffer<float3>` read and written through DXIL on dxil-spirv (only the interpreter ran it).
Also: the programs of tests/front/test_dxc_rejects.py (compiled there for SPIR-V only) refused for DXIL with the
same located errors.  Expected values come from the layout rules written out here, not from the compiler."""

from __future__ import annotations

import pytest
from lang_util import run_backend

BACKENDS = ["spirv", "dxil", "dxil-vk"]

# `register(<profile>, cN)`: the clause whose profile names the compiled stage applies (any shader model:
# DXC's ParseDecl takes `cs_5_0` as profile-like), clauses for other stages are dropped; a member with no
# clause for this stage is unreserved and goes after the last reserved word.
SM5_REGISTERS = """
float a : register(ps_5_0, c1) : register(cs_5_0, c3);
float b : register(vs_5_0, c0);
float4 c : register(ps, c5) : register(cs_5_1, c1);
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main() { Out[0] = a; Out[1] = b; Out[2] = c.z; }
"""


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.vulkan
@pytest.mark.usefixtures("vk")
def test_shader_model_5_profile_register_clauses(backend):
    # word i of $Globals holds float(i); a register is four words
    a_word = 4 * 3               # cs_5_0 clause: c3.x
    c_word = 4 * 1 + 2           # cs_5_1 clause: c1, component z
    b_word = a_word + 1          # unreserved for cs: right after the highest reserved word (a at c3.x)
    got = run_backend(backend, SM5_REGISTERS, {"Out": ("float", 3)},
                      {"$Globals": ("float", [float(i) for i in range(32)])})["Out"]
    assert got == [float(a_word), float(b_word), float(c_word)]


FLOAT3_SB = """
StructuredBuffer<float3> In : register(t0);
RWStructuredBuffer<float3> Out : register(u1);
[numthreads(3, 1, 1)]
void main(uint i : SV_DispatchThreadID) { Out[i] = In[i].zxy * 2.0 + float3(i, 10 * i, 100 * i); }
"""


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.vulkan
@pytest.mark.usefixtures("vk")
def test_structured_buffer_of_float3_stride(backend):
    """D3D's structured-buffer stride of float3 is 12 bytes (DXIL, and so DXIL through dxil-spirv); DXC's
    default Vulkan layout pads each element to 16 (docs/CONFORMANCE.md)."""
    stride = 4 if backend == "spirv" else 3          # words per element
    elems = [(1.0 + 3 * i, 2.0 + 3 * i, 3.0 + 3 * i) for i in range(3)]

    def lay(vectors):
        words = []
        for v in vectors:
            words += list(v) + [0.0] * (stride - 3)
        return words

    want = [(z * 2 + i, x * 2 + 10 * i, y * 2 + 100 * i) for i, (x, y, z) in enumerate(elems)]
    got = run_backend(backend, FLOAT3_SB, {"Out": ("float", [0.0] * (3 * stride))},
                      {"In": ("float", lay(elems))})["Out"]
    assert got == lay(want)


def _dxc_rejects_cases() -> tuple[dict, dict]:
    """The refusal and acceptance cases of tests/front/test_dxc_rejects.py (which compiles them for SPIR-V only)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "front" / "test_dxc_rejects.py"
    spec = importlib.util.spec_from_file_location("dxc_rejects_cases", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.REJECTED, mod.ACCEPTED


REJECTED, ACCEPTED = _dxc_rejects_cases()


def _dxil(source: str, profile: str):
    from shaderbuild.compiler import compile_file
    from shaderbuild.options import CompileOptions

    return compile_file("t.hlsl", CompileOptions(entry="main", profile=profile, target="dxil"), text=source)


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_dxc_rejects_also_for_dxil(name):
    """Each program DXC rejects is refused for DXIL too, with the same located errors as for SPIR-V."""
    source, profile, expected = REJECTED[name]
    res = _dxil(source, profile)
    assert not res.ok and res.binary is None
    assert [f"{d.loc}: {d.message}" for d in res.diagnostics if d.severity == "error"] == expected


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_dxc_accepted_neighbours_also_for_dxil(name):
    res = _dxil(ACCEPTED[name], "ps_6_0")
    assert res.ok, [d.message for d in res.diagnostics]


MS_COUNTED = """static const uint N = 2;
Texture2DMS<float4, N * 2> T : register(t1);
RWStructuredBuffer<float> Out : register(u0);
[numthreads(2, 1, 1)]
void main(uint3 t : SV_GroupThreadID) {
    for (uint s = 0; s < (N << 1); ++s) { Out[t.x * 4 + s] = T.Load(int2(t.x, 0), s).y; }
    uint w, h, count;
    T.GetDimensions(w, h, count);
    if (t.x == 0) { Out[8] = count; }
}
"""


@pytest.mark.vulkan
@pytest.mark.spirv_tools
def test_texture2dms_with_a_sample_count_expression_executes():
    """`Texture2DMS<float4, N * 2>` reads each of its 4 samples (SPIR-V, and DXIL through dxil-spirv; the
    interpreter has no multisampled textures)."""
    import res_util as R

    def value(x: int, s: int, c: int) -> float:
        return 100.0 * s + 10.0 * x + c

    data = [value(x, s, c) for x in range(2) for s in range(4) for c in range(4)]   # texel, sample, component
    out = R.cs(MS_COUNTED, {"T": R.image(R.pack("f", data), 2, 1, "rgba32f", samples=4, per_sample=True),
                            "Out": R.storage(R.sentinel(9))}, dxil_skip="multisampled")
    assert R.unpack("f", out["Out"]) == [value(x, s, 1) for x in range(2) for s in range(4)] + [4.0]


# static initialisers convert as a run-time conversion does (saturating, NaN -> 0), and [unroll] loops left by
# break / continue or with a run-time trip count
STATIC_INIT = """
RWStructuredBuffer<uint> Out : register(u0);
StructuredBuffer<float> F : register(t1);
struct S { int a[2]; uint u; float f; };
static const S s = { {1.7, -2.9}, -3.6, 7 };
static const uint us[3] = { -3.6, 1e10, 4.5 };
static const int is2[2] = { 1e10, -1e10 };
static const uint sh = 1u << 33;
static const int rem = -7 % 3;
[numthreads(1, 1, 1)]
void main() {
    Out[0] = (uint)s.a[0]; Out[1] = (uint)s.a[1]; Out[2] = s.u; Out[3] = (uint)s.f;
    Out[4] = us[0]; Out[5] = us[1]; Out[6] = us[2];
    Out[7] = (uint)is2[0]; Out[8] = (uint)is2[1];
    Out[9] = sh; Out[10] = (uint)rem;
    uint acc = 0;
    [unroll] for (uint i = 0; i < 6; i++) { if (F[i] < 0) break; if (F[i] == 0) continue; acc = acc * 10 + (uint)F[i]; }
    Out[11] = acc;
    int v = (int)F[0]; int k = 0;
    [unroll(4)] while (true) { k++; if (k >= v) break; }
    Out[12] = k;
}
"""
M32 = 0xFFFFFFFF


def _saturate(x: float, lo: int, hi: int) -> int:
    """D3D's float -> integer conversion: NaN -> 0, toward zero, clamped to [lo, hi]."""
    if x != x:
        return 0
    return hi if x >= hi else lo if x <= lo else int(x)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.vulkan
@pytest.mark.usefixtures("vk")
def test_static_initialisers_convert_as_at_run_time(backend):
    f = [3.0, 0.0, 4.0, 5.0, -1.0, 9.0]
    i32, u32 = (-(1 << 31), (1 << 31) - 1), (0, M32)
    digits = 0
    for x in f:
        if x < 0:
            break
        if x:
            digits = digits * 10 + int(x)
    want = [_saturate(1.7, *i32), _saturate(-2.9, *i32) & M32, _saturate(-3.6, *u32), 7,
            _saturate(-3.6, *u32), _saturate(1e10, *u32), _saturate(4.5, *u32),
            _saturate(1e10, *i32), _saturate(-1e10, *i32) & M32,
            (1 << (33 & 31)), -1 & M32,            # shift masked to 5 bits; C's remainder takes the dividend's sign
            digits, max(1, int(f[0]))]
    got = run_backend(backend, STATIC_INIT, {"Out": ("uint", len(want))}, {"F": ("float", f)})["Out"]
    assert got == want


WIDE_CONVERSIONS = [   # (expression, its value computed from D / F below)
    ("(uint)(int)D[0]", lambda d, f: _saturate(d[0], -(1 << 31), (1 << 31) - 1)),
    ("(uint)D[1]", lambda d, f: _saturate(d[1], 0, M32)),
    ("(uint)(int)D[2]", lambda d, f: 0),
    ("(uint)D[2]", lambda d, f: 0),
    ("(uint)(int)D[3]", lambda d, f: _saturate(d[3], -(1 << 31), (1 << 31) - 1) & M32),
    ("(uint)((int64_t)D[0] >> 32)", lambda d, f: (_saturate(d[0], -(1 << 63), (1 << 63) - 1) >> 32) & M32),
    ("(uint)(uint64_t)D[1]", lambda d, f: _saturate(d[1], 0, (1 << 64) - 1) & M32),
    ("(uint)((int64_t)D[2] >> 32)", lambda d, f: 0),
    ("(uint)((uint64_t)D[0] >> 32)", lambda d, f: (_saturate(d[0], 0, (1 << 64) - 1) >> 32) & M32),
    ("(uint)((int64_t)D[3] >> 32)", lambda d, f: (_saturate(d[3], -(1 << 63), (1 << 63) - 1) >> 32) & M32),
    ("(uint)((uint64_t)F[0] >> 32)", lambda d, f: (_saturate(f[0], 0, (1 << 64) - 1) >> 32) & M32),
    ("(uint)((int64_t)F[1] >> 32)", lambda d, f: (_saturate(f[1], -(1 << 63), (1 << 63) - 1) >> 32) & M32),
    ("(uint)(int64_t)F[2]", lambda d, f: 0),
    ("(uint)(int)(double)-3.6", lambda d, f: -3 & M32),
    ("(uint)(double)-3.6", lambda d, f: 0),
    ("(uint)((int64_t)1e30 >> 32)", lambda d, f: ((1 << 63) - 1) >> 32),
    ("(uint)(int64_t)(0.0 / 0.0)", lambda d, f: 0),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.vulkan
@pytest.mark.usefixtures("vk")
def test_double_and_64_bit_conversions_saturate(backend):
    """The float -> integer rule at 64 bits and from double, on values read at run time and folded."""
    d, f = [1e300, -1e300, float("nan"), -3.6], [1e30, -1e30, float("nan")]
    src = ("StructuredBuffer<double> D : register(t0);\nStructuredBuffer<float> F : register(t1);\n"
           "RWStructuredBuffer<uint> Out : register(u2);\n[numthreads(1, 1, 1)] void main() {\n"
           + "\n".join(f"    Out[{i}] = {e};" for i, (e, _w) in enumerate(WIDE_CONVERSIONS)) + "\n}\n")
    got = run_backend(backend, src, {"Out": ("uint", len(WIDE_CONVERSIONS))}, {"D": ("double", d), "F": ("float", f)})
    assert got["Out"] == [w(d, f) for _e, w in WIDE_CONVERSIONS]


FLOAT3_MEMBERS = """
struct Q { float b; float3 a; };
struct P2 { float2 x; float3 y; float z; };
struct H { float3 a[2]; float b; };
StructuredBuffer<Q> In : register(t0);
StructuredBuffer<P2> In2 : register(t1);
StructuredBuffer<H> In3 : register(t2);
RWStructuredBuffer<float> Out : register(u3);
[numthreads(1, 1, 1)]
void main() {
    Out[0] = In[1].a.z; Out[1] = In[1].b; Out[2] = In2[1].y.x; Out[3] = In2[1].z; Out[4] = In3[1].a[1].y;
    Out[5] = In3[1].b;
}
"""


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.vulkan
@pytest.mark.usefixtures("vk")
def test_float3_members_of_structured_buffer_elements(backend):
    """Word offsets of float3 members and the element strides they give.  D3D (DXIL) packs structured
    buffers tightly: Q = {b@0, a@1} stride 4; P2 = {x@0, y@2, z@5} stride 6; H = {a@0, a[1]@3, b@6}
    stride 7.  DXC's Vulkan layout (relaxed std430): a float3 may start at any 4-byte offset that keeps it
    inside one 16-byte row, aligns structs to 16 and strides arrays of float3 by 16: Q = {b@0, a@1}
    stride 4; P2 = {x@0, y@4 (at word 2 it would cross a row), z@7} stride 8; H = {a@0, a[1]@4, b@8}
    stride 12.  Word i of each buffer holds float(i)."""
    if backend == "spirv":
        q, p2, h = (4, 1, 0), (8, 4, 7), (12, 4, 8)       # (stride, offset of a / y / a[1], offset of z / b)
    else:
        q, p2, h = (4, 1, 0), (6, 2, 5), (7, 3, 6)
    want = [q[0] + q[1] + 2, q[0] + q[2], p2[0] + p2[1], p2[0] + p2[2], h[0] + h[1] + 1, h[0] + h[2]]
    data = [float(i) for i in range(64)]
    got = run_backend(backend, FLOAT3_MEMBERS, {"Out": ("float", 6)},
                      {"In": ("float", data), "In2": ("float", data), "In3": ("float", data)})["Out"]
    assert got == [float(w) for w in want]


# A base struct's static members reached through a derived struct (C++ lookup into base classes; DXC is clang):
# `D::K()`, `D::X`, an unqualified `K()` / `X` inside D's methods, `d.K()` and `d.X` on an object (a static data
# member written through one too), a derived static hiding the base's, a base's statics inside a
# static member function of the derived struct, and the same two levels down.  Before,
# each was "use of undeclared identifier" or "no member (function) named".
INHERITED_STATICS = """
RWStructuredBuffer<uint> Out : register(u0);
StructuredBuffer<uint> In : register(t1);
struct A { static uint K() { return 2; } static const uint X = 5; static uint Twice(uint v) { return v * 2; }
           static uint Count; };
uint A::Count = 1;
struct B : A { uint g() { return K() * 10 + X; } static uint K() { return 7; } static uint H() { return Twice(X) + 1; } };
struct C : B { uint k() { return K() + A::K() * 100 + Twice(3) * 1000; } };
[numthreads(1, 1, 1)]
void main() {
    B b; C c;
    Out[0] = B::X + In[0];
    Out[1] = b.g();
    Out[2] = B::H() * 100 + B::Twice(B::X) + 1;
    Out[3] = C::Twice(In[1]);
    Out[4] = c.k();
    Out[5] = c.Twice(In[0]) + C::X * 10;
    Out[6] = B::K() * 10 + A::K();
    c.Count += In[1];
    Out[7] = b.X * 100 + A::Count * 10 + c.X / 5;
}
"""


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.vulkan
@pytest.mark.usefixtures("vk")
def test_static_members_of_a_base_struct(backend):
    a_k, x, b_k = 2, 5, 7          # A::K(), A::X, B::K() (B's own K hides A's in B and below)
    twice = lambda v: v * 2        # noqa: E731 - A::Twice
    i0, i1 = 3, 11
    want = [x + i0, b_k * 10 + x, (twice(x) + 1) * 100 + twice(x) + 1, twice(i1), b_k + a_k * 100 + twice(3) * 1000, twice(i0) + x * 10,
            b_k * 10 + a_k, x * 100 + (1 + i1) * 10 + x // 5]
    got = run_backend(backend, INHERITED_STATICS, {"Out": ("uint", len(want))}, {"In": ("uint", [i0, i1])})["Out"]
    assert got == want
