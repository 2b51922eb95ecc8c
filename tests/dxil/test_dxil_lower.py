"""Lowering of structured control flow, inlined calls, scalarised vectors and
intrinsics: each shader is built as IR by hand, compiled for cs_6_0, checked
by llvm-dis-19 and executed with lli-19; expected values come from Python."""

from __future__ import annotations

import struct

import pytest
from harness.dxil_exec import run_dxil_compute
from harness.dxil_tools import check_dxil
from test_dxil_compute import compile_ir, compute_module, dx_calls, id_x, uav

from shaderbuild import ir
from shaderbuild.diagnostics import CompileError

U = ir.UINT
F = ir.FLOAT
N = 16


def c(v, t=U) -> ir.Const:
    return ir.Const(t, v)


def ld(var: ir.Variable) -> ir.Load:
    return ir.Load(ir.VarRef(var), var.type)


def bop(op: str, a: ir.Expr, b: ir.Expr, t: ir.Type | None = None) -> ir.Binary:
    return ir.Binary(op, a, b, t or (ir.BOOL if op in ("eq", "ne", "lt", "le", "gt", "ge") else a.type))


def st(var: ir.Variable, value: ir.Expr) -> ir.Store:
    return ir.Store(ir.VarRef(var), value)


def run(module: ir.Module, elem_size: int = 4, n: int = N, fmt: str = "I") -> list:
    out = compile_ir(module, "cs_6_0")
    check_dxil(out.container)
    (buf,) = run_dxil_compute(out.container, "main", [(0, 0, "u", bytes(elem_size * n))], numthreads=(n, 1, 1))
    return list(struct.unpack(f"<{len(buf) // struct.calcsize(fmt)}{fmt}", buf))


def store_out(out: ir.Variable, pid: ir.Variable, value: ir.Expr) -> ir.Store:
    return ir.Store(ir.BufferElem(ir.VarRef(out), id_x(pid), value.type), value)


def test_loop_with_continue_and_break():
    out = uav("Out")
    s = ir.Variable("s", U, ir.Storage.FUNCTION)
    i = ir.Variable("i", U, ir.Storage.FUNCTION)

    def body(pid):
        x = id_x(pid)
        loop = ir.Loop(
            body=[ir.If(bop("ge", ld(i), x), [ir.Break()], []),
                  ir.If(bop("eq", ld(i), c(3)), [ir.Continue()], []),
                  st(s, bop("add", ld(s), ld(i))),
                  ir.If(bop("gt", ld(s), c(40)), [ir.Break()], [])],
            continuing=[st(i, bop("add", ld(i), c(1)))])
        return [st(s, c(0)), st(i, c(0)), loop, store_out(out, pid, ld(s))]

    def expect(x):
        acc = 0
        for k in range(x):
            if k == 3:
                continue
            acc += k
            if acc > 40:
                break
        return acc
    module = compute_module(body, [out], numthreads=(N, 1, 1), locals_=[s, i])
    text = check_dxil(compile_ir(module, "cs_6_0").container).ir
    assert "phi i32" in text and "alloca" not in text          # scalar locals promoted to SSA
    assert run(module) == [expect(x) for x in range(N)]


def test_break_if_loop_and_switch_fallthrough():
    out = uav("Out")
    r = ir.Variable("r", U, ir.Storage.FUNCTION)

    def body(pid):
        x = id_x(pid)
        sw = ir.Switch(bop("mod", x, c(5)), [
            ir.SwitchCase([0], False, [st(r, c(10))]),                                   # falls through
            ir.SwitchCase([1], False, [st(r, bop("add", ld(r), c(1))), ir.Break()]),
            ir.SwitchCase([2, 3], False, [st(r, c(20)), ir.Break()]),
            ir.SwitchCase([], True, [st(r, c(30))]),
        ])
        # loop { r *= 2; } until r >= 100 (break_if)
        loop = ir.Loop(body=[st(r, bop("mul", ld(r), c(2)))], continuing=[], break_if=bop("ge", ld(r), c(100)))
        return [st(r, c(1)), sw, loop, store_out(out, pid, ld(r))]

    def expect(x):
        m = x % 5
        v = {0: 11, 1: 2, 2: 20, 3: 20}.get(m, 30)
        while True:
            v *= 2
            if v >= 100:
                return v
    module = compute_module(body, [out], numthreads=(N, 1, 1), locals_=[r])
    text = check_dxil(compile_ir(module, "cs_6_0").container).ir
    assert "switch i32" in text
    assert run(module) == [expect(x) for x in range(N)]


def test_inlined_call_with_out_param_and_early_return():
    """uint f(uint a, out uint b) { b = a * 3; if (a > 9) return 7; return a + 1; }"""
    out = uav("Out")
    a = ir.Variable("a", U, ir.Storage.FUNCTION)
    b = ir.Variable("b", U, ir.Storage.FUNCTION)
    f = ir.Function("f", [ir.Param(a), ir.Param(b, "out")], U, [
        st(b, bop("mul", ld(a), c(3))),
        ir.If(bop("gt", ld(a), c(9)), [ir.Return(c(7))], []),
        ir.Return(bop("add", ld(a), c(1)))])
    t = ir.Variable("t", U, ir.Storage.FUNCTION)
    rv = ir.Variable("rv", U, ir.Storage.FUNCTION)

    def body(pid):
        return [st(rv, ir.Call(f, [id_x(pid), ir.VarRef(t)], U)),
                store_out(out, pid, bop("add", bop("mul", ld(rv), c(100)), ld(t)))]
    module = compute_module(body, [out], numthreads=(N, 1, 1), extra_functions=[f], locals_=[t, rv])
    assert run(module) == [(7 if x > 9 else x + 1) * 100 + 3 * x for x in range(N)]


def test_vectors_swizzles_and_dynamic_index():
    """float3 v = float3(x, 10, 20); v.yz = v.zy; v[x % 3] += 0.5; Out[x] = float4(v, dot(v, v));"""
    f3, f4 = ir.Vector(F, 3), ir.Vector(F, 4)
    out = uav("Out", f4)
    v = ir.Variable("v", f3, ir.Storage.FUNCTION)

    def body(pid):
        xf = ir.Convert(id_x(pid), F)
        idx = bop("mod", id_x(pid), c(3))
        comp = ir.IndexRef(ir.VarRef(v), idx, F)
        return [
            st(v, ir.Construct(f3, [xf, c(10.0, F), c(20.0, F)])),
            ir.Store(ir.SwizzleRef(ir.VarRef(v), (1, 2), ir.Vector(F, 2)),
                     ir.Swizzle(ld(v), (2, 1), ir.Vector(F, 2))),
            ir.Store(comp, bop("add", ir.Load(comp, F), c(0.5, F))),
            store_out(out, pid, ir.Construct(f4, [ld(v), ir.Intrinsic("dot", [ld(v), ld(v)], F)])),
        ]
    got = run(compute_module(body, [out], numthreads=(N, 1, 1), locals_=[v]), elem_size=16, fmt="f")
    for x in range(N):
        vec = [float(x), 20.0, 10.0]
        vec[x % 3] += 0.5
        assert got[4 * x:4 * x + 3] == vec
        assert got[4 * x + 3] == pytest.approx(sum(k * k for k in vec), rel=1e-6)


def test_component_wise_intrinsics():
    """Out[x] = uint4(min(x, 5), max(x, 9), clamp(x, 3, 7), mad(x, x, 2))"""
    u4 = ir.Vector(U, 4)
    out = uav("Out", u4)

    def body(pid):
        x = id_x(pid)
        parts = [ir.Intrinsic("min", [x, c(5)], U), ir.Intrinsic("max", [x, c(9)], U),
                 ir.Intrinsic("clamp", [x, c(3), c(7)], U), ir.Intrinsic("mad", [x, x, c(2)], U)]
        return [store_out(out, pid, ir.Construct(u4, parts))]
    module = compute_module(body, [out], numthreads=(N, 1, 1))
    text = check_dxil(compile_ir(module, "cs_6_0").container).ir
    assert {n for n, _ in dx_calls(text)} >= {"dx.op.binary.i32", "dx.op.tertiary.i32"}
    got = run(module, elem_size=16)
    assert got == [v for x in range(N) for v in (min(x, 5), max(x, 9), min(max(x, 3), 7), x * x + 2)]


def test_float_math_and_conversions():
    """Out[x] = float2(sqrt(float(x)), abs(-float(x)) * 0.5)"""
    f2 = ir.Vector(F, 2)
    out = uav("Out", f2)

    def body(pid):
        xf = ir.Convert(id_x(pid), F)
        return [store_out(out, pid, ir.Construct(f2, [
            ir.Intrinsic("sqrt", [xf], F),
            bop("mul", ir.Intrinsic("abs", [ir.Unary("neg", xf, F)], F), c(0.5, F))]))]
    got = run(compute_module(body, [out], numthreads=(N, 1, 1)), elem_size=8, fmt="f")
    assert got[0::2] == pytest.approx([x ** 0.5 for x in range(N)], rel=1e-6)
    assert got[1::2] == [x * 0.5 for x in range(N)]


def test_groupshared_and_barrier_lowering():
    """groupshared uint g[64]; g[x] = x; GroupMemoryBarrierWithGroupSync(); InterlockedAdd(g[0], 1, old)"""
    out = uav("Out")
    g = ir.Variable("g", ir.Array(U, 64), ir.Storage.WORKGROUP)
    old = ir.Variable("old", U, ir.Storage.FUNCTION)

    def body(pid):
        elem = ir.IndexRef(ir.VarRef(g), id_x(pid), U)
        return [ir.Store(elem, id_x(pid)),
                ir.Eval(ir.Intrinsic("GroupMemoryBarrierWithGroupSync", [], ir.VOID)),
                st(old, ir.Intrinsic("InterlockedAdd", [ir.IndexRef(ir.VarRef(g), c(0), U), c(1)], U)),
                store_out(out, pid, ld(old))]
    text = check_dxil(compile_ir(compute_module(body, [out, g], locals_=[old]), "cs_6_0").container).ir
    assert "@dx.op.barrier(i32 80, i32 9)" in text
    assert "addrspace(3)" in text and "atomicrmw add ptr addrspace(3)" in text


def test_buffer_atomic_uses_dx_op():
    out = uav("Out")

    def body(pid):
        dest = ir.BufferElem(ir.VarRef(out), c(0), U)
        return [ir.Eval(ir.Intrinsic("InterlockedAdd", [dest, id_x(pid)], U))]
    text = check_dxil(compile_ir(compute_module(body, [out]), "cs_6_0").container).ir
    assert "@dx.op.atomicBinOp.i32(i32 78, %dx.types.Handle" in text
    assert "i32 0, i32 0, i32 0, i32 undef, i32 %" in text        # Add, element 0, offset 0


@pytest.mark.parametrize("name, profile, message", [
    ("WaveActiveSum", "cs_6_0", None),
    ("ddx", "cs_6_0", "operation DerivCoarseX is not allowed in compute shaders before shader model 6.6"),
    ("ddx", "cs_6_6", None),
    ("no_such_thing", "cs_6_0", "intrinsic 'no_such_thing' is not supported by the DXIL backend yet"),
])
def test_intrinsic_diagnostics(name, profile, message):
    out = uav("Out", F)

    def body(pid):
        return [store_out(out, pid, ir.Intrinsic(name, [ir.Convert(id_x(pid), F)], F))]
    module = compute_module(body, [out], sm=(6, int(profile[-1])))
    if message is None:
        text = check_dxil(compile_ir(module, profile).container).ir
        want = {"WaveActiveSum": "@dx.op.waveActiveOp.f32(i32 119, float %",
                "ddx": "@dx.op.unary.f32(i32 83, float %"}[name]
        assert want in text
        return
    with pytest.raises(CompileError) as exc:
        compile_ir(module, profile)
    assert message in str(exc.value)


def test_sm_too_old_for_operation():
    """rawBufferLoad needs SM 6.2, so SM 6.0/6.1 use bufferLoad; WaveMatch needs 6.5."""
    src = ir.Variable("Src", ir.Resource("StructuredBuffer", U), ir.Storage.UNIFORM, binding=ir.Binding("t", 0))
    out = uav("Out")

    def body(pid):
        return [store_out(out, pid, ir.Load(ir.BufferElem(ir.VarRef(src), id_x(pid), U), U))]
    t60 = check_dxil(compile_ir(compute_module(body, [src, out]), "cs_6_0").container).ir
    t62 = check_dxil(compile_ir(compute_module(body, [src, out], sm=(6, 2)), "cs_6_2").container).ir
    assert "@dx.op.bufferLoad.i32(i32 68" in t60 and "rawBufferLoad" not in t60
    assert "@dx.op.rawBufferLoad.i32(i32 139" in t62


def test_dynamically_indexed_local_array_stays_in_memory():
    """uint t[4] = {x, x+1, x+2, x+3}; Out[x] = t[x % 4] * 10"""
    out = uav("Out")
    arr = ir.Variable("t", ir.Array(U, 4), ir.Storage.FUNCTION)

    def body(pid):
        x = id_x(pid)
        init = ir.Construct(ir.Array(U, 4), [bop("add", x, c(k)) for k in range(4)])
        elem = ir.IndexRef(ir.VarRef(arr), bop("mod", x, c(4)), U)
        return [st(arr, init), store_out(out, pid, bop("mul", ir.Load(elem, U), c(10)))]
    module = compute_module(body, [out], numthreads=(N, 1, 1), locals_=[arr])
    text = check_dxil(compile_ir(module, "cs_6_0").container).ir
    assert "alloca [4 x i32]" in text and "getelementptr inbounds [4 x i32]" in text
    assert run(module) == [(x + x % 4) * 10 for x in range(N)]


def test_more_math_intrinsics_execute():
    """Out[x] = float4(atan2(y, -1), modf(x * 1.25, ip) + ip * 10, ldexp(1.5, 3), determinant(float2x2(x, 2, 3, 4)))"""
    f4 = ir.Vector(F, 4)
    out = uav("Out", f4)
    ip = ir.Variable("ip", F, ir.Storage.FUNCTION)
    tmp = ir.Variable("frac", F, ir.Storage.FUNCTION)
    m22 = ir.Matrix(F, 2, 2)

    def body(pid):
        xf = ir.Convert(id_x(pid), F)
        y = bop("sub", xf, c(7.0, F))
        mat = ir.Construct(m22, [ir.Construct(ir.Vector(F, 2), [xf, c(2.0, F)]),
                                 ir.Construct(ir.Vector(F, 2), [c(3.0, F), c(4.0, F)])])
        return [
            st(tmp, ir.Intrinsic("modf", [bop("mul", xf, c(1.25, F)), ir.VarRef(ip)], F)),
            store_out(out, pid, ir.Construct(f4, [
                ir.Intrinsic("atan2", [y, c(-1.0, F)], F),
                bop("add", ld(tmp), bop("mul", ld(ip), c(10.0, F))),
                ir.Intrinsic("ldexp", [c(1.5, F), c(3.0, F)], F),
                ir.Intrinsic("determinant", [mat], F)])),
        ]
    got = run(compute_module(body, [out], numthreads=(N, 1, 1), locals_=[ip, tmp]), elem_size=16, fmt="f")
    import math
    for x in range(N):
        v = x * 1.25
        assert got[4 * x] == pytest.approx(math.atan2(x - 7.0, -1.0), abs=1e-5)
        assert got[4 * x + 1] == pytest.approx((v - math.trunc(v)) + math.trunc(v) * 10, rel=1e-6)
        assert got[4 * x + 2] == pytest.approx(12.0, rel=1e-6)
        assert got[4 * x + 3] == pytest.approx(4.0 * x - 6.0, abs=1e-5)


def test_static_const_table_becomes_constant_global():
    """static const uint table[4] = {1, 2, 4, 8};  Out[x] = table[x % 4]  (the wrapper's init store is folded)"""
    out = uav("Out")
    arr_t = ir.Array(U, 4)
    table = ir.Variable("table", arr_t, ir.Storage.PRIVATE, const=True)

    def body(pid):
        return [store_out(out, pid, ir.Load(ir.IndexRef(ir.VarRef(table), bop("mod", id_x(pid), c(4)), U), U))]
    module = compute_module(body, [out, table], numthreads=(N, 1, 1))
    init = ir.Store(ir.VarRef(table), ir.Construct(arr_t, [c(1), c(2), c(4), c(8)]))
    module.entry.function.body.insert(0, init)
    text = check_dxil(compile_ir(module, "cs_6_0").container).ir
    assert "@table = internal constant [4 x i32] [i32 1, i32 2, i32 4, i32 8]" in text
    assert "store i32" not in text
    assert run(module) == [(1, 2, 4, 8)[x % 4] for x in range(N)]


def test_matrix_rows_and_struct_arrays_in_locals():
    """struct P { float2 v; uint k; };  P ps[3];  float3x2 m;
    ps[i].v = float2(i, x); ps[i].k = i*x;  m[x % 3] = ps[x % 3].v;  m[1][1] += 1;
    Out[x] = float4(m[x % 3], ps[2].k, m[1][1])"""
    f2, f4 = ir.Vector(F, 2), ir.Vector(F, 4)
    p_t = ir.Struct("P", (ir.StructField("v", f2), ir.StructField("k", U)))
    m_t = ir.Matrix(F, 3, 2)
    out = uav("Out", f4)
    ps = ir.Variable("ps", ir.Array(p_t, 3), ir.Storage.FUNCTION)
    m = ir.Variable("m", m_t, ir.Storage.FUNCTION)

    def body(pid):
        x = id_x(pid)
        xf = ir.Convert(x, F)
        stmts = [st(m, ir.Construct(m_t, [ir.Const(f2, (0.0, 0.0))] * 3))]
        for i in range(3):
            elem = ir.IndexRef(ir.VarRef(ps), c(i), p_t)
            stmts += [ir.Store(ir.FieldRef(elem, 0, f2), ir.Construct(f2, [c(float(i), F), xf])),
                      ir.Store(ir.FieldRef(elem, 1, U), bop("mul", c(i), x))]
        row = bop("mod", x, c(3))
        dyn_elem = ir.IndexRef(ir.VarRef(ps), row, p_t)
        stmts.append(ir.Store(ir.IndexRef(ir.VarRef(m), row, f2), ir.Load(ir.FieldRef(dyn_elem, 0, f2), f2)))
        m11 = ir.IndexRef(ir.IndexRef(ir.VarRef(m), c(1), f2), c(1), F)
        stmts.append(ir.Store(m11, bop("add", ir.Load(m11, F), c(1.0, F))))
        k2 = ir.Load(ir.FieldRef(ir.IndexRef(ir.VarRef(ps), c(2), p_t), 1, U), U)
        stmts.append(store_out(out, pid, ir.Construct(f4, [ir.Load(ir.IndexRef(ir.VarRef(m), row, f2), f2),
                                                           ir.Convert(k2, F), ir.Load(m11, F)])))
        return stmts
    got = run(compute_module(body, [out], numthreads=(N, 1, 1), locals_=[ps, m]), elem_size=16, fmt="f")
    for x in range(N):
        r = x % 3
        mat = [[0.0, 0.0] for _ in range(3)]
        mat[r] = [float(r), float(x)]
        mat[1][1] += 1
        assert got[4 * x:4 * x + 4] == [*mat[r], float(2 * x), mat[1][1]]


@pytest.mark.parametrize("storage, dims, message", [
    (ir.Storage.FUNCTION, (65536, 65536), "is too large for the DXIL backend"),
    (ir.Storage.PRIVATE, (65536, 65536), "is too large for the DXIL backend"),
    (ir.Storage.WORKGROUP, (10000,), "exceeds the 32768-byte limit"),
])
def test_oversized_arrays_are_errors_not_hangs(storage, dims, message):
    t: ir.Type = U
    for d in reversed(dims):
        t = ir.Array(t, d)
    big = ir.Variable("big", t, storage)
    out = uav("Out")

    def body(pid):
        elem: ir.Expr = ir.VarRef(big)
        for _ in dims:
            elem = ir.IndexRef(elem, id_x(pid), elem.type.elem)
        return [ir.Store(elem, c(1)), store_out(out, pid, ir.Load(elem, U))]
    module = compute_module(body, [out] + ([big] if storage != ir.Storage.FUNCTION else []),
                            locals_=[big] if storage == ir.Storage.FUNCTION else [])
    with pytest.raises(CompileError) as exc:
        compile_ir(module, "cs_6_0")
    assert message in str(exc.value)


def test_whole_aggregate_copies_are_bounded():
    """Copying a 100000-element local array as a value is refused rather than expanded."""
    a = ir.Variable("a", ir.Array(U, 100000), ir.Storage.FUNCTION)
    b = ir.Variable("b", ir.Array(U, 100000), ir.Storage.FUNCTION)
    out = uav("Out")

    def body(pid):
        return [st(b, ld(a)), store_out(out, pid, ir.Load(ir.IndexRef(ir.VarRef(b), id_x(pid), U), U))]
    with pytest.raises(CompileError) as exc:
        compile_ir(compute_module(body, [out], locals_=[a, b]), "cs_6_0")
    assert "too large for the DXIL backend" in str(exc.value)
