"""SPIR-V backend, executed: hand-built IR -> SPIR-V -> spirv-val -> lavapipe.

Every expected value is computed independently in Python from the inputs.
"""

from __future__ import annotations

import math
import struct

import pytest
from irbuild import (
    BOOL,
    FLOAT,
    INT,
    UINT,
    Array,
    Break,
    Continue,
    If,
    Loop,
    Matrix,
    Param,
    Return,
    Storage,
    Struct,
    StructField,
    Switch,
    SwitchCase,
    Vector,
    b,
    bin,
    builtin_in,
    call,
    compute_module,
    construct,
    conv,
    cvec,
    elem,
    ev,
    extract,
    f,
    field,
    function,
    i,
    index,
    intr,
    load,
    ref,
    resource,
    sel,
    spirv,
    store,
    swz,
    swzref,
    tid_x,
    u,
    un,
    var,
)

from shaderbuild.ir import VOID, Bitcast, Construct, VarRef
from shaderbuild.ir.layout import layout_of

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

ENVS = ["vulkan1.0", "vulkan1.1", "vulkan1.2", "vulkan1.3"]
F3 = Vector(FLOAT, 3)
F4 = Vector(FLOAT, 4)
U2 = Vector(UINT, 2)


def words(data: bytes, fmt: str = "I") -> tuple:
    return struct.unpack(f"<{len(data) // 4}{fmt}", data)


def run(vk, module, buffers, groups=(1, 1, 1), env="vulkan1.1"):
    return vk.run_compute(spirv(module, env), module.entry.name, buffers, groups)


# ------------------------------------------------------------------ basics

@pytest.mark.parametrize("env", ENVS)
def test_store_to_structured_buffer(vk, env):
    """RWStructuredBuffer<uint> Out; Out[id.x] = id.x * 2 + 1, numthreads(64,1,1), 2 groups."""
    out = resource("Out", "RWStructuredBuffer", UINT)
    tid, x = tid_x()
    m = compute_module([store(elem(out, x), bin("add", bin("mul", x, u(2)), u(1)))], [out], inputs=[tid])
    (res,) = run(vk, m, [vk.Buf(0, 0, bytes(4 * 128))], (2, 1, 1), env)
    assert words(res) == tuple(2 * n + 1 for n in range(128))


def test_wrapper_calls_source_function(vk):
    """The entry-wrapper shape: main() copies the input to a local and calls src.main(uint3 id)."""
    out = resource("Out", "RWStructuredBuffer", UINT, 0, 3)
    pid = var("id", Vector(UINT, 3))
    x = swz(load(pid), "x")
    src = function("src.main", [store(elem(out, x), bin("mul", x, x))], params=[Param(pid)])
    tid, _ = tid_x()
    param = var("param_var_id", Vector(UINT, 3))
    body = [store(param, load(tid)), ev(call(src, load(param)))]
    m = compute_module(body, [out], locals_=[param], functions=[src], inputs=[tid])
    m.entry.source_function = src
    (res,) = run(vk, m, [vk.Buf(0, 3, bytes(4 * 64))])
    assert words(res) == tuple(n * n for n in range(64))


# ------------------------------------------------------------------ control flow

def test_loop_break_continue_and_do_while(vk):
    """sum of j < i with j % 3 != 0 (for-loop with break/continue); and a do-while via break_if."""
    out = resource("Out", "RWStructuredBuffer", UINT)
    out2 = resource("Out2", "RWStructuredBuffer", UINT, 0, 1)
    tid, x = tid_x()
    s, j, k = var("sum", UINT), var("j", UINT), var("k", UINT)
    loop = Loop(
        body=[If(bin("ge", load(j), x), [Break()], []),
              If(bin("eq", bin("mod", load(j), u(3)), u(0)), [Continue()], []),
              store(s, bin("add", load(s), load(j)))],
        continuing=[store(j, bin("add", load(j), u(1)))])
    do_while = Loop(body=[store(k, bin("add", load(k), u(2)))], break_if=bin("ge", load(k), x))
    body = [store(s, u(0)), store(j, u(0)), loop, store(elem(out, x), load(s)),
            store(k, u(0)), do_while, store(elem(out2, x), load(k))]
    m = compute_module(body, [out, out2], locals_=[s, j, k], inputs=[tid])
    r1, r2 = run(vk, m, [vk.Buf(0, 0, bytes(256)), vk.Buf(0, 1, bytes(256))])
    assert words(r1) == tuple(sum(j for j in range(n) if j % 3) for n in range(64))
    assert words(r2) == tuple(max(2, 2 * math.ceil(n / 2)) for n in range(64))


def test_nested_loops_with_unroll_hint(vk):
    out = resource("Out", "RWStructuredBuffer", UINT)
    tid, x = tid_x()
    a, b_, acc = var("a", UINT), var("b", UINT), var("acc", UINT)
    inner = Loop(body=[If(bin("ge", load(b_), u(3)), [Break()], []),
                       store(acc, bin("add", load(acc), bin("mul", load(a), load(b_))))],
                 continuing=[store(b_, bin("add", load(b_), u(1)))], hint="unroll")
    outer = Loop(body=[If(bin("gt", load(a), x), [Break()], []), store(b_, u(0)), inner],
                 continuing=[store(a, bin("add", load(a), u(1)))], hint="loop")
    body = [store(a, u(0)), store(acc, u(0)), outer, store(elem(out, x), load(acc))]
    m = compute_module(body, [out], locals_=[a, b_, acc], inputs=[tid])
    (r,) = run(vk, m, [vk.Buf(0, 0, bytes(256))])
    assert words(r) == tuple(sum(p * q for p in range(n + 1) for q in range(3)) for n in range(64))


def test_switch_fallthrough_and_default_in_the_middle(vk):
    """switch (i % 6) {case 0: r=10; break; case 1: r=20; case 2: r+=5; break;
    case 3: default: r=99; break; case 4: r=40; break;}"""
    out = resource("Out", "RWStructuredBuffer", UINT)
    tid, x = tid_x()
    r = var("r", UINT)
    sw = Switch(bin("mod", x, u(6)), [
        SwitchCase([0], False, [store(r, u(10)), Break()]),
        SwitchCase([1], False, [store(r, u(20))]),
        SwitchCase([2], False, [store(r, bin("add", load(r), u(5))), Break()]),
        SwitchCase([3], True, [store(r, u(99)), Break()]),
        SwitchCase([4], False, [store(r, u(40)), Break()]),
    ])
    m = compute_module([store(r, u(1)), sw, store(elem(out, x), load(r))], [out], locals_=[r], inputs=[tid])
    (res,) = run(vk, m, [vk.Buf(0, 0, bytes(256))])
    expect = {0: 10, 1: 25, 2: 6, 3: 99, 4: 40, 5: 99}
    assert words(res) == tuple(expect[n % 6] for n in range(64))


def test_if_else_with_returns_and_dead_code(vk):
    """A helper that returns from inside a loop and from both if branches (dead code after)."""
    out = resource("Out", "RWStructuredBuffer", UINT)
    px = var("x", UINT)
    j = var("j", UINT)
    # uint first_square_above(uint x) { for (j = 0;; j++) if (j*j > x) return j; }
    fsa = function("src.first_square_above", [
        store(j, u(0)),
        Loop(body=[If(bin("gt", bin("mul", load(j), load(j)), load(px)), [Return(load(j))], [])],
             continuing=[store(j, bin("add", load(j), u(1)))]),
    ], ret=UINT, params=[Param(px)], locals_=[j])
    py = var("y", UINT)
    # uint parity(uint y) { if (y & 1) { return 1; store... } else { return 0; } }
    parity = function("src.parity", [
        If(bin("ne", bin("bitand", load(py), u(1)), u(0)), [Return(u(1)), store(py, u(7))], [Return(u(0))]),
    ], ret=UINT, params=[Param(py)])
    tid, x = tid_x()
    val = bin("add", bin("mul", call(fsa, x), u(10)), call(parity, x))
    m = compute_module([store(elem(out, x), val)], [out], functions=[fsa, parity], inputs=[tid])
    (res,) = run(vk, m, [vk.Buf(0, 0, bytes(256))])
    expect = [next(q for q in range(100) if q * q > n) * 10 + (n & 1) for n in range(64)]
    assert list(words(res)) == expect


def test_out_and_inout_parameters(vk):
    """uint helper(uint x, out uint dbl, inout uint acc)."""
    out = resource("Out", "RWStructuredBuffer", UINT)
    px, pd, pa = var("x", UINT), var("dbl", UINT), var("acc", UINT)
    helper = function("src.helper", [
        store(pd, bin("mul", load(px), u(2))),
        store(pa, bin("add", load(pa), load(px))),
        If(bin("gt", load(px), u(10)), [Return(u(1))], []),
        Return(u(0)),
    ], ret=UINT, params=[Param(px), Param(pd, "out"), Param(pa, "inout")])
    tid, x = tid_x()
    td, ta, r = var("tmp_dbl", UINT), var("tmp_acc", UINT), var("r", UINT)
    base = bin("mul", x, u(3))
    body = [store(ta, u(100)), store(r, call(helper, x, ref(td), ref(ta))),
            store(elem(out, base), load(r)),
            store(elem(out, bin("add", base, u(1))), load(td)),
            store(elem(out, bin("add", base, u(2))), load(ta))]
    m = compute_module(body, [out], locals_=[td, ta, r], functions=[helper], inputs=[tid])
    (res,) = run(vk, m, [vk.Buf(0, 0, bytes(4 * 3 * 64))])
    expect = [v for n in range(64) for v in (int(n > 10), 2 * n, 100 + n)]
    assert list(words(res)) == expect


# ------------------------------------------------------------------ vectors, swizzles, structs

def test_vectors_swizzles_and_component_stores(vk):
    out = resource("Out", "RWStructuredBuffer", F4)
    out2 = resource("Out2", "RWStructuredBuffer", FLOAT, 0, 1)
    tid, x = tid_x()
    v = var("v", F4)
    fx = conv(x, FLOAT)
    body = [
        store(v, construct(F4, fx, f(1.0), f(2.0), f(3.0))),
        store(swzref(ref(v), "wy"), construct(Vector(FLOAT, 2), f(7.0), bin("mul", fx, f(2.0)))),
        store(index(ref(v), u(2)), f(5.0)),
        store(swzref(ref(v), "x"), bin("add", swz(load(v), "x"), f(0.5))),
        store(elem(out, x), bin("mul", swz(load(v), "zyxw"), construct(F4, f(2.0), f(2.0), f(2.0), f(2.0)))),
        store(elem(out2, x), load(index(ref(v), bin("mod", x, u(4))))),
    ]
    m = compute_module(body, [out, out2], locals_=[v], inputs=[tid])
    r1, r2 = run(vk, m, [vk.Buf(0, 0, bytes(16 * 64)), vk.Buf(0, 1, bytes(4 * 64))])
    got = words(r1, "f")
    for n in range(64):
        vec = (n + 0.5, 2.0 * n, 5.0, 7.0)
        assert got[4 * n:4 * n + 4] == (10.0, 4.0 * n, 2 * n + 1.0, 14.0)
        assert words(r2, "f")[n] == vec[n % 4]


def test_struct_elements_with_bool_roundtrip(vk):
    """Whole-struct load/store through std430 buffers (bool stored as uint) and field access."""
    S = Struct("S", (StructField("a", UINT), StructField("flag", BOOL), StructField("v", F3),
                     StructField("w", Vector(FLOAT, 2))))
    lay = layout_of(S, "std430")
    src = resource("In", "StructuredBuffer", S, 0, 0)
    dst = resource("Out", "RWStructuredBuffer", S, 0, 1)
    tid, x = tid_x()
    t = var("t", S)
    body = [
        store(t, load(elem(src, x))),
        store(field(ref(t), 1), un("not", load(field(ref(t), 1)))),
        store(field(ref(t), 0), bin("add", load(field(ref(t), 0)), u(1000))),
        store(index(field(ref(t), 2), u(1)), f(-1.0)),
        store(elem(dst, x), load(t)),
    ]
    m = compute_module(body, [src, dst], locals_=[t], inputs=[tid], numthreads=(8, 1, 1))
    data = bytearray(lay.size * 8)
    for n in range(8):
        o = n * lay.size
        struct.pack_into("<I", data, o + lay.offsets[0], n)
        struct.pack_into("<I", data, o + lay.offsets[1], n % 2)
        struct.pack_into("<3f", data, o + lay.offsets[2], n, n + 0.25, n + 0.5)
        struct.pack_into("<2f", data, o + lay.offsets[3], -n, 3.0)
    _, res = run(vk, m, [vk.Buf(0, 0, bytes(data)), vk.Buf(0, 1, bytes(len(data)))])
    for n in range(8):
        o = n * lay.size
        assert struct.unpack_from("<I", res, o + lay.offsets[0])[0] == n + 1000
        assert struct.unpack_from("<I", res, o + lay.offsets[1])[0] == 1 - n % 2
        assert struct.unpack_from("<3f", res, o + lay.offsets[2]) == (n, -1.0, n + 0.5)
        assert struct.unpack_from("<2f", res, o + lay.offsets[3]) == (-n, 3.0)


def test_static_const_table_and_private_global(vk):
    out = resource("Out", "RWStructuredBuffer", UINT)
    table_t = Array(UINT, 4)
    table = var("table", table_t, Storage.PRIVATE, const=True,
                init=Construct(table_t, [u(7), u(11), u(13), u(17)]))
    counter = var("counter", UINT, Storage.PRIVATE, init=bin("add", u(2), u(3)))  # not folded: runs in wrapper
    tid, x = tid_x()
    body = [store(elem(out, x), bin("add", load(index(ref(table), bin("mod", x, u(4)))), load(counter)))]
    m = compute_module(body, [out, table, counter], inputs=[tid])
    (res,) = run(vk, m, [vk.Buf(0, 0, bytes(256))])
    assert words(res) == tuple((7, 11, 13, 17)[n % 4] + 5 for n in range(64))


# ------------------------------------------------------------------ matrices

def _mat_rows(vals, rows, cols):
    return [list(vals[r * cols:(r + 1) * cols]) for r in range(rows)]


def _matmul(a, b):
    return [[sum(a[r][k] * b[k][c] for k in range(len(b))) for c in range(len(b[0]))] for r in range(len(a))]


def _pack_colmajor(m, rule, t):
    """Host bytes of HLSL matrix m (list of rows) in a column_major layout."""
    lay = layout_of(t, rule)
    buf = bytearray(lay.size)
    for c in range(t.cols):
        for r in range(t.rows):
            struct.pack_into("<f", buf, c * lay.matrix_stride + 4 * r, m[r][c])
    return bytes(buf)


def _unpack_colmajor(data, rule, t):
    lay = layout_of(t, rule)
    return [[struct.unpack_from("<f", data, c * lay.matrix_stride + 4 * r)[0] for c in range(t.cols)]
            for r in range(t.rows)]


def test_matrix_multiplications_and_transpose(vk):
    M23 = Matrix(FLOAT, 2, 3)
    M32 = Matrix(FLOAT, 3, 2)
    M22 = Matrix(FLOAT, 2, 2)
    A = resource("A", "StructuredBuffer", M23, 0, 0)
    B = resource("B", "StructuredBuffer", M32, 0, 1)
    O1 = resource("VM", "RWStructuredBuffer", F3, 0, 2)      # mul(float2, A)
    O2 = resource("MV", "RWStructuredBuffer", Vector(FLOAT, 2), 0, 3)  # mul(A, float3)
    O3 = resource("MM", "RWStructuredBuffer", M22, 0, 4)     # mul(A, B)
    O4 = resource("T", "RWStructuredBuffer", M32, 0, 5)      # transpose(A) + B
    tid, x = tid_x()
    fx = conv(x, FLOAT)
    a, b_ = load(elem(A, x)), load(elem(B, x))
    v2 = construct(Vector(FLOAT, 2), fx, f(1.0))
    v3 = construct(F3, f(1.0), fx, f(-2.0))
    body = [
        store(elem(O1, x), intr("mul", F3, v2, a)),
        store(elem(O2, x), intr("mul", Vector(FLOAT, 2), a, v3)),
        store(elem(O3, x), intr("mul", M22, a, b_)),
        store(elem(O4, x), bin("add", intr("transpose", M32, a), b_)),
    ]
    n = 4
    m = compute_module(body, [A, B, O1, O2, O3, O4], inputs=[tid], numthreads=(n, 1, 1))
    mats_a = [_mat_rows([k + 2.0 * t for k in range(6)], 2, 3) for t in range(n)]
    mats_b = [_mat_rows([(k * 3 % 7) - t for k in range(6)], 3, 2) for t in range(n)]
    sa, sb = layout_of(Array(M23, 1), "std430").array_stride, layout_of(Array(M32, 1), "std430").array_stride
    da = b"".join(_pack_colmajor(mm, "std430", M23).ljust(sa, b"\0") for mm in mats_a)
    db = b"".join(_pack_colmajor(mm, "std430", M32).ljust(sb, b"\0") for mm in mats_b)
    s22 = layout_of(Array(M22, 1), "std430").array_stride
    res = run(vk, m, [vk.Buf(0, 0, da), vk.Buf(0, 1, db), vk.Buf(0, 2, bytes(16 * n)), vk.Buf(0, 3, bytes(8 * n)),
                      vk.Buf(0, 4, bytes(s22 * n)), vk.Buf(0, 5, bytes(sb * n))])
    for t in range(n):
        ma, mb = mats_a[t], mats_b[t]
        assert list(words(res[2], "f")[4 * t:4 * t + 3]) == _matmul([[t, 1.0]], ma)[0]
        assert list(words(res[3], "f")[2 * t:2 * t + 2]) == [r[0] for r in _matmul(ma, [[1.0], [t], [-2.0]])]
        assert _unpack_colmajor(res[4][s22 * t:], "std430", M22) == _matmul(ma, mb)
        expect_t = [[ma[c][r] + mb[r][c] for c in range(2)] for r in range(3)]
        assert _unpack_colmajor(res[5][sb * t:], "std430", M32) == expect_t


def test_matrix_rows_elements_and_determinant(vk):
    M33 = Matrix(FLOAT, 3, 3)
    out = resource("Out", "RWStructuredBuffer", FLOAT)
    tid, x = tid_x()
    mv = var("m", M33)
    fx = conv(x, FLOAT)
    rows = [construct(F3, f(2.0), fx, f(0.0)), construct(F3, f(1.0), f(3.0), f(1.0)),
            construct(F3, f(0.0), f(1.0), fx)]
    base = bin("mul", x, u(4))
    body = [
        store(mv, construct(M33, *rows)),
        store(index(index(ref(mv), u(1)), u(2)), f(4.0)),            # m[1][2] = 4
        store(elem(out, base), intr("determinant", FLOAT, load(mv))),
        store(elem(out, bin("add", base, u(1))), load(index(index(ref(mv), u(2)), u(2)))),
        store(elem(out, bin("add", base, u(2))), swz(load(index(ref(mv), bin("mod", x, u(3)))), "y")),
        store(elem(out, bin("add", base, u(3))), intr("dot", FLOAT, load(index(ref(mv), u(0))), rows[1])),
    ]
    m = compute_module(body, [out], locals_=[mv], inputs=[tid], numthreads=(8, 1, 1))
    (res,) = run(vk, m, [vk.Buf(0, 0, bytes(4 * 4 * 8))])
    got = words(res, "f")
    for t in range(8):
        mm = [[2.0, t, 0.0], [1.0, 3.0, 4.0], [0.0, 1.0, t]]
        det = (mm[0][0] * (mm[1][1] * mm[2][2] - mm[1][2] * mm[2][1]) - mm[0][1] * (mm[1][0] * mm[2][2] - mm[1][2] * mm[2][0])
               + mm[0][2] * (mm[1][0] * mm[2][1] - mm[1][1] * mm[2][0]))
        assert got[4 * t] == pytest.approx(det, rel=1e-5, abs=1e-4)
        assert got[4 * t + 1] == t
        assert got[4 * t + 2] == mm[t % 3][1]
        assert got[4 * t + 3] == 2.0 * 1 + t * 3.0


# ------------------------------------------------------------------ intrinsics

XS = [0.1 + 0.07 * k for k in range(32)]
# Vulkan's precision for these is only "inherited" from their formulas; lavapipe is off by ~4e-4
_LOOSE = {"asin": 2e-3, "acos": 2e-3}


def _float_cases():
    """(name, IR builder(x), python reference(x))."""
    def g(name, *rest):
        return lambda x: intr(name, FLOAT, x, *rest)
    two = [f(2.0)]
    return [
        ("sqrt", g("sqrt"), math.sqrt), ("rsqrt", g("rsqrt"), lambda v: 1 / math.sqrt(v)),
        ("exp", g("exp"), math.exp), ("exp2", g("exp2"), lambda v: 2 ** v), ("log", g("log"), math.log),
        ("log2", g("log2"), math.log2), ("log10", g("log10"), math.log10), ("sin", g("sin"), math.sin),
        ("cos", g("cos"), math.cos), ("tan", g("tan"), math.tan),
        ("asin", lambda x: intr("asin", FLOAT, bin("div", x, f(3.0))), lambda v: math.asin(v / 3)),
        ("acos", lambda x: intr("acos", FLOAT, bin("div", x, f(3.0))), lambda v: math.acos(v / 3)),
        ("atan", g("atan"), math.atan), ("atan2", g("atan2", f(0.5)), lambda v: math.atan2(v, 0.5)),
        ("sinh", g("sinh"), math.sinh), ("cosh", g("cosh"), math.cosh), ("tanh", g("tanh"), math.tanh),
        ("floor", lambda x: intr("floor", FLOAT, bin("mul", x, f(3.0))), lambda v: math.floor(v * 3)),
        ("ceil", lambda x: intr("ceil", FLOAT, bin("mul", x, f(3.0))), lambda v: math.ceil(v * 3)),
        ("round", lambda x: intr("round", FLOAT, bin("mul", x, f(3.0))), lambda v: round(v * 3)),
        ("trunc", lambda x: intr("trunc", FLOAT, un("neg", bin("mul", x, f(3.0)))), lambda v: math.trunc(-v * 3)),
        ("frac", lambda x: intr("frac", FLOAT, bin("mul", x, f(3.0))), lambda v: v * 3 - math.floor(v * 3)),
        ("pow", g("pow", f(1.5)), lambda v: v ** 1.5),
        ("lerp", lambda x: intr("lerp", FLOAT, x, f(3.0), f(0.25)), lambda v: v + (3 - v) * 0.25),
        ("step", lambda x: intr("step", FLOAT, f(1.0), x), lambda v: 1.0 if v >= 1 else 0.0),
        ("smoothstep", lambda x: intr("smoothstep", FLOAT, f(0.0), f(2.5), x),
         lambda v: (lambda t: t * t * (3 - 2 * t))(min(max(v / 2.5, 0), 1))),
        ("saturate", lambda x: intr("saturate", FLOAT, bin("sub", x, f(0.5))), lambda v: min(max(v - 0.5, 0), 1)),
        ("fmod", lambda x: intr("fmod", FLOAT, bin("mul", x, f(3.0)), f(0.7)), lambda v: math.fmod(v * 3, 0.7)),
        ("rcp", g("rcp"), lambda v: 1 / v), ("degrees", g("degrees"), math.degrees),
        ("radians", g("radians"), math.radians),
        ("min", g("min", f(1.0)), lambda v: min(v, 1.0)), ("max", g("max", f(1.0)), lambda v: max(v, 1.0)),
        ("clamp", g("clamp", f(0.5), f(1.5)), lambda v: min(max(v, 0.5), 1.5)),
        ("abs", lambda x: intr("abs", FLOAT, un("neg", x)), abs),
        ("sign", lambda x: conv(intr("sign", INT, bin("sub", x, f(1.0))), FLOAT),
         lambda v: float((v > 1) - (v < 1))),
        ("mad", g("mad", *two, f(1.0)), lambda v: v * 2 + 1),
        ("length", lambda x: intr("length", FLOAT, construct(Vector(FLOAT, 2), x, f(1.0))), lambda v: math.hypot(v, 1)),
        ("distance", lambda x: intr("distance", FLOAT, construct(Vector(FLOAT, 2), x, f(1.0)), cvec(FLOAT, 0.0, 3.0)),
         lambda v: math.hypot(v, -2)),
        ("normalize", lambda x: swz(intr("normalize", Vector(FLOAT, 2), construct(Vector(FLOAT, 2), x, f(1.0))), "x"),
         lambda v: v / math.hypot(v, 1)),
        ("dot", lambda x: intr("dot", FLOAT, construct(F3, x, f(1.0), f(2.0)), cvec(FLOAT, 1.0, 2.0, 3.0)),
         lambda v: v + 8),
        ("cross", lambda x: swz(intr("cross", F3, construct(F3, x, f(1.0), f(0.0)), cvec(FLOAT, 0.0, 1.0, 2.0)), "y"),
         lambda v: -2 * v),
        ("reflect", lambda x: swz(intr("reflect", Vector(FLOAT, 2), construct(Vector(FLOAT, 2), x, f(1.0)),
                                       cvec(FLOAT, 0.0, 1.0)), "y"), lambda v: -1.0),
        ("ldexp", g("ldexp", f(3.0)), lambda v: v * 8),
        ("isfinite", lambda x: conv(intr("isfinite", BOOL, x), FLOAT), lambda v: 1.0),
        ("isnan", lambda x: conv(intr("isnan", BOOL, bin("div", f(0.0), bin("sub", x, x))), FLOAT), lambda v: 1.0),
    ]


@pytest.mark.parametrize("env", ["vulkan1.1", "vulkan1.3"])
def test_float_intrinsics(vk, env):
    cases = _float_cases()
    src = resource("X", "StructuredBuffer", FLOAT, 0, 0)
    out = resource("Out", "RWStructuredBuffer", FLOAT, 0, 1)
    tid, x = tid_x()
    xv = var("xv", FLOAT)
    body = [store(xv, load(elem(src, x)))]
    for k, (_name, build, _py) in enumerate(cases):
        body.append(store(elem(out, bin("add", bin("mul", x, u(len(cases))), u(k))), build(load(xv))))
    m = compute_module(body, [src, out], locals_=[xv], inputs=[tid], numthreads=(len(XS), 1, 1))
    _, res = run(vk, m, [vk.Buf(0, 0, struct.pack(f"<{len(XS)}f", *XS)),
                         vk.Buf(0, 1, bytes(4 * len(XS) * len(cases)))], env=env)
    got = words(res, "f")
    for t, xval in enumerate(XS):
        xval = struct.unpack("<f", struct.pack("<f", xval))[0]
        for k, (name, _b, py) in enumerate(cases):
            tol = _LOOSE.get(name, 2e-4)
            assert got[t * len(cases) + k] == pytest.approx(py(xval), rel=tol, abs=tol), (name, xval)


def _int_cases():
    def gu(name, *rest):
        return lambda x: intr(name, UINT, x, *rest)
    s = lambda x: bin("sub", conv(x, INT), i(20))  # noqa: E731 - signed view of the input
    return [
        ("countbits", gu("countbits"), lambda v: bin_(v).count("1")),
        ("reversebits", gu("reversebits"), lambda v: int(f"{v:032b}"[::-1], 2)),
        ("firstbithigh", gu("firstbithigh"), lambda v: v.bit_length() - 1 if v else 0xFFFFFFFF),
        ("firstbitlow", gu("firstbitlow"), lambda v: (v & -v).bit_length() - 1 if v else 0xFFFFFFFF),
        ("firstbithigh_int", lambda x: conv(intr("firstbithigh", INT, s(x)), UINT),
         lambda v: _fbh_signed(v - 20)),
        ("umin", gu("min", u(7)), lambda v: min(v, 7)), ("umax", gu("max", u(7)), lambda v: max(v, 7)),
        ("uclamp", gu("clamp", u(5), u(9)), lambda v: min(max(v, 5), 9)),
        ("sabs", lambda x: conv(intr("abs", INT, s(x)), UINT), lambda v: abs(v - 20)),
        ("smin", lambda x: conv(intr("min", INT, s(x), i(-3)), UINT), lambda v: min(v - 20, -3) & 0xFFFFFFFF),
        ("sclamp", lambda x: conv(intr("clamp", INT, s(x), i(-5), i(5)), UINT),
         lambda v: min(max(v - 20, -5), 5) & 0xFFFFFFFF),
        ("sign_int", lambda x: conv(intr("sign", INT, s(x)), UINT), lambda v: ((v > 20) - (v < 20)) & 0xFFFFFFFF),
        ("idot", lambda x: intr("dot", UINT, construct(U2, x, u(3)), cvec(UINT, 2, 5)), lambda v: 2 * v + 15),
        ("sdiv", lambda x: conv(bin("div", s(x), i(3)), UINT), lambda v: int((v - 20) / 3) & 0xFFFFFFFF),
        ("srem", lambda x: conv(bin("mod", s(x), i(3)), UINT), lambda v: int(math.fmod(v - 20, 3)) & 0xFFFFFFFF),
        ("shl_masked", lambda x: bin("shl", x, u(33)), lambda v: (v << 1) & 0xFFFFFFFF),
        ("ashr", lambda x: conv(bin("shr", s(x), i(1)), UINT), lambda v: ((v - 20) >> 1) & 0xFFFFFFFF),
        ("ftoi", lambda x: conv(conv(bin("mul", conv(s(x), FLOAT), f(0.75)), INT), UINT),
         lambda v: int((v - 20) * 0.75) & 0xFFFFFFFF),
        ("bool", lambda x: conv(conv(bin("bitand", x, u(3)), BOOL), UINT), lambda v: int(v & 3 != 0)),
        ("select", lambda x: sel(bin("lt", x, u(10)), u(111), x), lambda v: 111 if v < 10 else v),
        ("asuint", lambda x: Bitcast(conv(x, FLOAT), UINT), lambda v: words(struct.pack("<f", v))[0]),
        ("f16", lambda x: intr("f32tof16", UINT, bin("add", conv(x, FLOAT), f(0.5))),
         lambda v: struct.unpack("<H", struct.pack("<e", v + 0.5))[0]),
        ("f16rt", lambda x: conv(intr("f16tof32", FLOAT, intr("f32tof16", UINT, conv(x, FLOAT))), UINT),
         lambda v: v),
        ("bitnot", lambda x: un("bitnot", x), lambda v: ~v & 0xFFFFFFFF),
        ("logic", lambda x: conv(bin("lor", bin("lt", x, u(5)), bin("land", bin("gt", x, u(30)), bin("ne", x, u(35)))),
                                 UINT), lambda v: int(v < 5 or (v > 30 and v != 35))),
        ("any", lambda x: conv(intr("any", BOOL, conv(construct(U2, bin("bitand", x, u(1)), u(0)), Vector(BOOL, 2))),
                               UINT), lambda v: v & 1),
        ("all", lambda x: conv(intr("all", BOOL, conv(construct(U2, bin("bitand", x, u(1)), u(1)), Vector(BOOL, 2))),
                               UINT), lambda v: v & 1),
    ]


def bin_(v: int) -> str:
    return f"{v:b}"


def _fbh_signed(v: int) -> int:
    if v in (0, -1):
        return 0xFFFFFFFF
    return (v if v > 0 else ~v).bit_length() - 1


def test_integer_intrinsics_and_conversions(vk):
    cases = _int_cases()
    n = 48
    out = resource("Out", "RWStructuredBuffer", UINT)
    tid, x = tid_x()
    xv = var("xv", UINT)
    body = [store(xv, bin("mul", x, bin("add", x, u(1))))]   # x*(x+1): spreads the bits
    for k, (_name, build, _py) in enumerate(cases):
        body.append(store(elem(out, bin("add", bin("mul", x, u(len(cases))), u(k))), build(load(xv))))
    m = compute_module(body, [out], locals_=[xv], inputs=[tid], numthreads=(n, 1, 1))
    (res,) = run(vk, m, [vk.Buf(0, 0, bytes(4 * n * len(cases)))])
    got = words(res)
    for t in range(n):
        v = t * (t + 1)
        for k, (name, _b, py) in enumerate(cases):
            assert got[t * len(cases) + k] == py(v), (name, v)


# ------------------------------------------------------------------ memory: atomics, groupshared, buffers

def test_groupshared_histogram_with_atomics_and_barriers(vk):
    """groupshared uint bins[8]; clear; barrier; InterlockedAdd(bins[v % 8], 1); barrier; merge."""
    vals = resource("Values", "StructuredBuffer", UINT, 0, 0)
    out = resource("Bins", "RWStructuredBuffer", UINT, 0, 1)
    mx = resource("Max", "RWStructuredBuffer", UINT, 0, 2)
    bins = var("bins", Array(UINT, 8), Storage.WORKGROUP)
    gi = builtin_in("in.SV_GroupIndex", UINT, "SV_GroupIndex", "LocalInvocationIndex")
    tid, x = tid_x()
    g = load(gi)
    orig = var("orig", UINT)
    body = [
        If(bin("lt", g, u(8)), [store(index(ref(bins), g), u(0))], []),
        ev(intr("GroupMemoryBarrierWithGroupSync", VOID)),
        ev(intr("InterlockedAdd", UINT, index(ref(bins), bin("mod", load(elem(vals, x)), u(8))), u(1))),
        ev(intr("InterlockedMax", UINT, elem(mx, u(0)), load(elem(vals, x)), ref(orig))),
        ev(intr("GroupMemoryBarrierWithGroupSync", VOID)),
        If(bin("lt", g, u(8)), [ev(intr("InterlockedAdd", UINT, elem(out, g), load(index(ref(bins), g))))], []),
        ev(intr("DeviceMemoryBarrier", VOID)),
        ev(intr("AllMemoryBarrierWithGroupSync", VOID)),
    ]
    m = compute_module(body, [vals, out, mx, bins], locals_=[orig], inputs=[tid, gi], numthreads=(32, 1, 1))
    values = [(k * 7 + 3) % 23 for k in range(128)]
    res = run(vk, m, [vk.Buf(0, 0, struct.pack("<128I", *values)), vk.Buf(0, 1, bytes(32)), vk.Buf(0, 2, bytes(4))],
              (4, 1, 1))
    assert list(words(res[1])) == [sum(1 for v in values if v % 8 == b) for b in range(8)]
    assert words(res[2])[0] == max(values)


def test_compare_exchange_and_returned_original(vk):
    """Each thread appends itself with InterlockedAdd's return value as slot (a counter idiom)."""
    counter = resource("Counter", "RWStructuredBuffer", UINT, 0, 0)
    slots = resource("Slots", "RWStructuredBuffer", UINT, 0, 1)
    flag = resource("Flag", "RWStructuredBuffer", UINT, 0, 2)
    tid, x = tid_x()
    slot = var("slot", UINT)
    body = [
        store(slot, intr("InterlockedAdd", UINT, elem(counter, u(0)), u(1))),
        store(elem(slots, load(slot)), bin("add", x, u(1))),
        ev(intr("InterlockedCompareStore", UINT, elem(flag, u(0)), u(0), bin("add", x, u(100)))),
    ]
    m = compute_module(body, [counter, slots, flag], locals_=[slot], inputs=[tid], numthreads=(64, 1, 1))
    res = run(vk, m, [vk.Buf(0, 0, bytes(4)), vk.Buf(0, 1, bytes(256)), vk.Buf(0, 2, bytes(4))])
    assert words(res[0])[0] == 64
    assert sorted(words(res[1])) == list(range(1, 65))
    assert 100 <= words(res[2])[0] < 164


@pytest.mark.parametrize("env", ["vulkan1.1", "vulkan1.2"])
def test_byte_address_buffers(vk, env):
    src = resource("Src", "ByteAddressBuffer", None, 0, 0)
    dst = resource("Dst", "RWByteAddressBuffer", None, 0, 1)
    tid, x = tid_x()
    v2 = intr("Load", U2, ref(src), bin("mul", x, u(8)))
    body = [
        ev(intr("Store", VOID, ref(dst), bin("mul", x, u(8)), bin("add", v2, cvec(UINT, 1, 2)))),
        ev(intr("InterlockedAdd", UINT, ref(dst), u(8 * 16), u(1))),
    ]
    m = compute_module(body, [src, dst], inputs=[tid], numthreads=(16, 1, 1))
    data = struct.pack("<32I", *range(1000, 1032))
    _, res = run(vk, m, [vk.Buf(0, 0, data), vk.Buf(0, 1, bytes(4 * 33))], env=env)
    got = words(res)
    assert got[:32] == tuple(1000 + k + 1 + (k % 2) for k in range(32))
    assert got[32] == 16


def test_constant_buffer_std140(vk):
    """ConstantBuffer<Params> read at the offsets layout.py computes (vector-relaxed std140)."""
    P = Struct("Params", (StructField("scale", FLOAT), StructField("offset", F3), StructField("count", UINT),
                          StructField("table", Array(FLOAT, 3)), StructField("m", Matrix(FLOAT, 2, 2)),
                          StructField("enabled", BOOL)))
    cb = resource("params", "ConstantBuffer", P, 0, 0)
    out = resource("Out", "RWStructuredBuffer", FLOAT, 0, 1)
    tid, x = tid_x()
    c = VarRef(cb)
    vals = [
        load(field(c, 0)),
        swz(load(field(c, 1)), "z"),
        conv(load(field(c, 2)), FLOAT),
        load(index(field(c, 3), u(2))),
        load(index(index(field(c, 4), u(1)), u(0))),          # m[1][0]
        conv(load(field(c, 5)), FLOAT),
        swz(intr("mul", Vector(FLOAT, 2), load(field(c, 4)), cvec(FLOAT, 1.0, 10.0)), "x"),
    ]
    body = [store(elem(out, u(k)), v) for k, v in enumerate(vals)]
    m = compute_module(body, [cb, out], inputs=[tid], numthreads=(1, 1, 1))
    lay = layout_of(P, "std140")
    data = bytearray(lay.size)
    struct.pack_into("<f", data, lay.offsets[0], 2.5)
    struct.pack_into("<3f", data, lay.offsets[1], 1.0, 2.0, 3.0)
    struct.pack_into("<I", data, lay.offsets[2], 42)
    for k in range(3):
        struct.pack_into("<f", data, lay.offsets[3] + k * lay.members[3].array_stride, 10.0 + k)
    mm = [[1.0, 2.0], [3.0, 4.0]]
    for col in range(2):
        for row in range(2):
            struct.pack_into("<f", data, lay.offsets[4] + col * lay.members[4].matrix_stride + 4 * row, mm[row][col])
    struct.pack_into("<I", data, lay.offsets[5], 1)
    assert lay.offsets[:3] == (0, 4, 16)
    _, res = run(vk, m, [vk.Buf(0, 0, bytes(data), "uniform"), vk.Buf(0, 1, bytes(4 * len(vals)))])
    assert words(res, "f") == (2.5, 3.0, 42.0, 12.0, 3.0, 1.0, 1.0 + 20.0)


def test_push_constants(vk):
    P = Struct("PC", (StructField("mul", UINT), StructField("add", UINT)))
    pc = var("pc", P, Storage.PUSH_CONSTANT)
    out = resource("Out", "RWStructuredBuffer", UINT)
    tid, x = tid_x()
    body = [store(elem(out, x), bin("add", bin("mul", x, load(field(VarRef(pc), 0))), load(field(VarRef(pc), 1))))]
    m = compute_module(body, [pc, out], inputs=[tid], numthreads=(16, 1, 1))
    (res,) = vk.run_compute(spirv(m), "main", [vk.Buf(0, 0, bytes(64))], (1, 1, 1), push_constants=struct.pack("<2I", 3, 5))
    assert words(res) == tuple(3 * n + 5 for n in range(16))


# ------------------------------------------------------------------ waves

def test_wave_intrinsics(vk):
    out = resource("Out", "RWStructuredBuffer", UINT)
    tid, x = tid_x()
    base = bin("mul", x, u(6))
    vals = [
        intr("WaveGetLaneIndex", UINT), intr("WaveGetLaneCount", UINT), intr("WaveActiveSum", UINT, x),
        intr("WavePrefixSum", UINT, u(1)), intr("WaveReadLaneFirst", UINT, x),
        intr("WaveActiveCountBits", UINT, bin("eq", bin("mod", x, u(2)), u(0))),
    ]
    body = [store(elem(out, bin("add", base, u(k))), v) for k, v in enumerate(vals)]
    body.append(If(intr("WaveIsFirstLane", BOOL), [store(elem(out, bin("add", base, u(5))), u(777))], []))
    m = compute_module(body, [out], inputs=[tid], numthreads=(32, 1, 1))
    (res,) = run(vk, m, [vk.Buf(0, 0, bytes(4 * 6 * 32))])
    got = [words(res)[6 * t:6 * t + 6] for t in range(32)]
    size = got[0][1]
    assert size in (1, 2, 4, 8, 16, 32, 64) and size <= 32
    for t in range(32):
        lane, cnt, total, prefix, first, evens = got[t]
        start = t - t % size
        assert (lane, cnt, prefix, first) == (t % size, size, t % size, start)
        assert total == sum(range(start, start + size))
        assert evens == (777 if lane == 0 else sum(1 for k in range(start, start + size) if k % 2 == 0))


def test_wave_op_needs_spirv_1_3():
    from shaderbuild.diagnostics import CompileError
    out = resource("Out", "RWStructuredBuffer", UINT)
    tid, x = tid_x()
    m = compute_module([store(elem(out, x), intr("WaveActiveSum", UINT, x))], [out], inputs=[tid])
    with pytest.raises(CompileError, match="SPIR-V 1.3"):
        spirv(m, "vulkan1.0")



def test_composites_extract_bitcast_select_and_splat(vk):
    """Struct return values, array constructors, Bitcast, vector Select, scalar splats, matrix ops."""
    P = Struct("Pair", (StructField("lo", UINT), StructField("hi", Vector(FLOAT, 2))))
    px = var("x", UINT)
    make = function("src.make", [Return(construct(P, bin("mul", load(px), u(3)),
                                                  construct(Vector(FLOAT, 2), conv(load(px), FLOAT), f(0.5))))],
                    ret=P, params=[Param(px)])
    out = resource("Out", "RWStructuredBuffer", UINT)
    tid, x = tid_x()
    arr_t = Array(UINT, 3)
    arr = var("arr", arr_t)
    p = var("p", P)
    M = Matrix(FLOAT, 2, 2)
    mm = var("mm", M)
    c = construct(M, cvec(FLOAT, 1.0, -2.0), construct(Vector(FLOAT, 2), conv(x, FLOAT), f(4.0)))
    U4 = Vector(UINT, 4)
    vals = [
        extract(load(p), 0),
        conv(swz(extract(load(p), 1), "x"), UINT),
        load(index(ref(arr), bin("mod", x, u(3)))),
        Bitcast(f(1.0), UINT),
        swz(sel(construct(Vector(BOOL, 2), bin("lt", x, u(5)), b(False)), cvec(UINT, 1, 2), cvec(UINT, 3, 4)), "x"),
        swz(swz(x, "xxxx"), "w"),
        conv(extract(extract(un("neg", load(mm)), 0), 1), INT),
        conv(swz(extract(conv(load(mm), Matrix(INT, 2, 2)), 1), "x"), UINT),
        un("neg", swz(conv(construct(Vector(INT, 2), conv(x, INT), i(-3)), Vector(FLOAT, 2)), "y")),
        intr("GetDimensions", UINT, ref(out)),
        swz(bin("add", construct(U4, x, x, x, x), cvec(UINT, 1, 2, 3, 4)), "z"),
    ]
    body = [store(p, call(make, x)), store(arr, construct(arr_t, x, u(20), bin("add", x, u(30)))), store(mm, c)]
    base = bin("mul", x, u(len(vals)))
    body += [store(elem(out, bin("add", base, u(k))), conv(v, UINT) if v.type != UINT else v)
             for k, v in enumerate(vals)]
    m = compute_module(body, [out], locals_=[arr, p, mm], functions=[make], inputs=[tid], numthreads=(8, 1, 1))
    (res,) = run(vk, m, [vk.Buf(0, 0, bytes(4 * len(vals) * 8))])
    got = words(res)
    for t in range(8):
        expect = [3 * t, t, (t, 20, t + 30)[t % 3], 0x3F800000, 1 if t < 5 else 3, t, 2, t, 3, len(vals) * 8, t + 3]
        assert list(got[t * len(vals):(t + 1) * len(vals)]) == expect, t


def test_uav_counters_append_and_consume(vk):
    """IncrementCounter / Append / Consume through counter buffers bound where reflection says."""
    from harness.tools import spirv_val
    from shaderbuild_spirv.lower import lower_module, reflection
    out = resource("Out", "RWStructuredBuffer", UINT, 0, 0)
    app = resource("App", "AppendStructuredBuffer", UINT, 0, 1)
    con = resource("Con", "ConsumeStructuredBuffer", UINT, 0, 2)
    got = resource("Got", "RWStructuredBuffer", UINT, 0, 3)
    tid, x = tid_x()
    slot = var("slot", UINT)
    body = [
        store(slot, intr("IncrementCounter", UINT, ref(out))),
        store(elem(out, load(slot)), bin("add", x, u(1))),
        ev(intr("Append", VOID, ref(app), bin("mul", x, u(3)))),
        store(elem(got, x), intr("Consume", UINT, ref(con))),
    ]
    n = 16
    m = compute_module(body, [out, app, con, got], locals_=[slot], inputs=[tid], numthreads=(n, 1, 1))
    lowered = lower_module(m, "vulkan1.1")
    spirv_val(lowered.binary)
    counters = {r["counter_of"]: r["binding"] for r in reflection(lowered)["vulkan"]["resources"] if "counter_of" in r}
    assert set(counters) == {"Out", "App", "Con"} and len(set(counters.values())) == 3
    assert not set(counters.values()) & {0, 1, 2, 3}
    bufs = [vk.Buf(0, 0, bytes(4 * n)), vk.Buf(0, 1, bytes(4 * n)), vk.Buf(0, 2, struct.pack(f"<{n}I", *range(100, 100 + n))),
            vk.Buf(0, 3, bytes(4 * n)), vk.Buf(0, counters["Out"], bytes(4)), vk.Buf(0, counters["App"], bytes(4)),
            vk.Buf(0, counters["Con"], struct.pack("<I", n))]
    r_out, r_app, _, r_got, c_out, c_app, c_con = vk.run_compute(lowered.binary, "main", bufs)
    assert sorted(words(r_out)) == list(range(1, n + 1))
    assert sorted(words(r_app)) == [3 * k for k in range(n)]
    assert sorted(words(r_got)) == list(range(100, 100 + n))
    assert (words(c_out)[0], words(c_app)[0], words(c_con)[0]) == (n, n, 0)


def test_templated_raw_buffer_load_store(vk):
    """Load<T>/Store<T> on raw buffers: words in component order, matrices column by column (DXC's
    column_major rule for byte-address buffers, as the DXIL backend stores them)."""
    raw = resource("Raw", "RWByteAddressBuffer", None, 0, 0)
    tid, x = tid_x()
    M = Matrix(FLOAT, 2, 2)
    addr = bin("mul", x, u(16))
    fx = conv(x, FLOAT)
    mat = construct(M, construct(Vector(FLOAT, 2), fx, f(1.0)), construct(Vector(FLOAT, 2), f(2.0), f(-1.0)))
    loaded = intr("Load", Vector(INT, 2), ref(raw), bin("add", addr, u(64 * 16)))
    body = [
        ev(intr("Store", VOID, ref(raw), addr, bin("mul", mat, construct(M, cvec(FLOAT, 2.0, 2.0),
                                                                      cvec(FLOAT, 2.0, 2.0))))),
        ev(intr("Store", VOID, ref(raw), bin("add", addr, u(64 * 16 + 8)), un("neg", loaded))),
    ]
    m = compute_module(body, [raw], inputs=[tid], numthreads=(64, 1, 1))
    init = bytes(64 * 16) + b"".join(struct.pack("<2i4x4x", k, -2 * k) for k in range(64))
    (res,) = run(vk, m, [vk.Buf(0, 0, init)])
    for k in range(64):
        assert struct.unpack_from("<4f", res, 16 * k) == (2.0 * k, 4.0, 2.0, -2.0)    # _11 _21 _12 _22
        assert struct.unpack_from("<2i2i", res, 64 * 16 + 16 * k) == (k, -2 * k, -k, 2 * k)


def test_64_bit_bit_intrinsics_split_into_halves(vk):
    from shaderbuild.ir import INT64, UINT64
    src = resource("In", "StructuredBuffer", UINT64, 0, 0)
    out = resource("Out", "RWStructuredBuffer", UINT, 0, 1)
    tid, x = tid_x()
    v = load(elem(src, x))
    s = conv(v, INT64)
    vals = [intr("countbits", UINT, v), conv(intr("firstbithigh", UINT64, v), UINT), intr("firstbitlow", UINT, v),
            conv(intr("firstbithigh", INT64, s), UINT)]
    body = [store(elem(out, bin("add", bin("mul", x, u(4)), u(k))), e) for k, e in enumerate(vals)]
    m = compute_module(body, [src, out], inputs=[tid], numthreads=(8, 1, 1))
    data = [0, 1, 1 << 32, (1 << 63) | 5, 0xFFFFFFFFFFFFFFFF, 0xF00000000, 0x8000, (1 << 64) - (1 << 40)]
    _, res = run(vk, m, [vk.Buf(0, 0, struct.pack("<8Q", *data)), vk.Buf(0, 1, bytes(4 * 4 * 8))])
    got = words(res)
    none = 0xFFFFFFFF

    def fbh_signed(n):
        sv = n - (1 << 64) if n >> 63 else n
        return none if sv in (0, -1) else (sv if sv > 0 else ~sv).bit_length() - 1
    for t, n in enumerate(data):
        expect = [bin_(n).count("1"), n.bit_length() - 1 if n else none, (n & -n).bit_length() - 1 if n else none,
                  fbh_signed(n)]
        assert list(got[4 * t:4 * t + 4]) == expect, hex(n)
