"""Constant buffers (cbufferLoadLegacy, 16-byte rows) and structured buffers of
structs ('dx_structured' offsets), executed on the CPU."""

from __future__ import annotations

import struct

from harness.dxil_exec import run_dxil_compute
from harness.dxil_tools import check_dxil
from test_dxil_compute import compile_ir, compute_module, id_x, uav

from shaderbuild import ir

U, F = ir.UINT, ir.FLOAT
U4, F3, F2 = ir.Vector(U, 4), ir.Vector(F, 3), ir.Vector(F, 2)


def test_cbuffer_fields_and_dynamic_array_index():
    """cbuffer CB : register(b0) { uint4 a; float b; uint c[3]; };  Out[x] = a.y + c[x % 3] + uint(b);"""
    st = ir.Struct("type.CB", (ir.StructField("a", U4), ir.StructField("b", F), ir.StructField("c", ir.Array(U, 3))))
    cb = ir.Variable("CB", st, ir.Storage.UNIFORM, binding=ir.Binding("b", 0), const=True)
    out = uav("Out")

    def body(pid):
        a_y = ir.Swizzle(ir.Load(ir.FieldRef(ir.VarRef(cb), 0, U4), U4), (1,), U)
        b = ir.Convert(ir.Load(ir.FieldRef(ir.VarRef(cb), 1, F), F), U)
        idx = ir.Binary("mod", id_x(pid), ir.Const(U, 3), U)
        c = ir.Load(ir.IndexRef(ir.FieldRef(ir.VarRef(cb), 2, ir.Array(U, 3)), idx, U), U)
        total = ir.Binary("add", ir.Binary("add", a_y, c, U), b, U)
        return [ir.Store(ir.BufferElem(ir.VarRef(out), id_x(pid), U), total)]
    module = compute_module(body, [cb, out], numthreads=(8, 1, 1))
    res = compile_ir(module, "cs_6_0")
    text = check_dxil(res.container).ir
    assert "@dx.op.cbufferLoadLegacy.i32(i32 59, %dx.types.Handle %" in text
    assert "@dx.op.cbufferLoadLegacy.f32(i32 59, %dx.types.Handle %" in text
    assert "i32 68, null}" in text                      # CBV record: 68 bytes (c[2] ends at 64 + 4; DXC does not round)
    data = bytearray(80)
    struct.pack_into("<4I", data, 0, 10, 20, 30, 40)
    struct.pack_into("<f", data, 16, 7.9)
    for k, v in enumerate((100, 200, 300)):
        struct.pack_into("<I", data, 32 + 16 * k, v)
    (_cb, buf) = run_dxil_compute(res.container, "main", [(0, 0, "b", bytes(data)), (0, 0, "u", bytes(32))],
                                  numthreads=(8, 1, 1))
    assert list(struct.unpack("<8I", buf)) == [20 + (100, 200, 300)[x % 3] + 7 for x in range(8)]


def test_structured_buffer_of_structs():
    """struct S { float3 p; uint k; float2 q; };  RWStructuredBuffer<S> Out;  Out[x] = S(float3(x,1,2), x*x, float2(.5, x))"""
    s = ir.Struct("S", (ir.StructField("p", F3), ir.StructField("k", U), ir.StructField("q", F2)))
    out = uav("Out", s)

    def body(pid):
        xf = ir.Convert(id_x(pid), F)
        val = ir.Construct(s, [ir.Construct(F3, [xf, ir.Const(F, 1.0), ir.Const(F, 2.0)]),
                               ir.Binary("mul", id_x(pid), id_x(pid), U),
                               ir.Construct(F2, [ir.Const(F, 0.5), xf])])
        return [ir.Store(ir.BufferElem(ir.VarRef(out), id_x(pid), s), val)]
    res = compile_ir(compute_module(body, [out], numthreads=(4, 1, 1)), "cs_6_0")
    text = check_dxil(res.container).ir
    assert '!{i32 1, i32 24}' in text                    # structured stride tag: 12 + 4 + 8
    (buf,) = run_dxil_compute(res.container, "main", [(0, 0, "u", bytes(24 * 4))], numthreads=(4, 1, 1))
    for x in range(4):
        p0, p1, p2, k, q0, q1 = struct.unpack_from("<3fI2f", buf, 24 * x)
        assert (p0, p1, p2, k, q0, q1) == (x, 1.0, 2.0, x * x, 0.5, x)


def test_partial_store_to_struct_member():
    """Out[x].k = x + 5  writes only the 4 bytes at offset 12 of each element."""
    s = ir.Struct("S", (ir.StructField("p", F3), ir.StructField("k", U), ir.StructField("q", F2)))
    out = uav("Out", s)

    def body(pid):
        place = ir.FieldRef(ir.BufferElem(ir.VarRef(out), id_x(pid), s), 1, U)
        return [ir.Store(place, ir.Binary("add", id_x(pid), ir.Const(U, 5), U))]
    res = compile_ir(compute_module(body, [out], numthreads=(4, 1, 1), sm=(6, 2)), "cs_6_2")
    text = check_dxil(res.container).ir
    assert "@dx.op.rawBufferStore.i32(i32 140, %dx.types.Handle %" in text and ", i32 12, i32 %" in text


def test_struct_with_bool_and_uint_members_round_trips():
    """struct B { uint a; bool f; uint c; };  Out[x] = B(x, x & 1, 7); Out2[x] = Out[x].f ? 1 : 2  (bool <-> i32)"""
    s = ir.Struct("B", (ir.StructField("a", U), ir.StructField("f", ir.BOOL), ir.StructField("c", U)))
    out = uav("Out", s)

    def body(pid):
        x = id_x(pid)
        flag = ir.Convert(ir.Binary("bitand", x, ir.Const(U, 1), U), ir.BOOL)
        elem = ir.BufferElem(ir.VarRef(out), x, s)
        back = ir.Load(ir.FieldRef(elem, 1, ir.BOOL), ir.BOOL)
        return [ir.Store(elem, ir.Construct(s, [x, flag, ir.Const(U, 7)])),
                ir.Store(ir.FieldRef(elem, 2, U), ir.Select(back, ir.Const(U, 1), ir.Const(U, 2), U))]
    res = compile_ir(compute_module(body, [out], numthreads=(4, 1, 1)), "cs_6_0")
    text = check_dxil(res.container).ir                       # llvm-dis rejects a mistyped cast
    assert "zext i1 %" in text
    (buf,) = run_dxil_compute(res.container, "main", [(0, 0, "u", bytes(12 * 4))], numthreads=(4, 1, 1))
    assert [struct.unpack_from("<3I", buf, 12 * x) for x in range(4)] == [(x, x & 1, 1 if x & 1 else 2)
                                                                          for x in range(4)]
