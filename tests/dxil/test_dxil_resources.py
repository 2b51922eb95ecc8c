"""Resource arrays (seed 001): flattened binding ranges and handle indices, in
the SM 6.0 form (createHandle: range id + index) and the SM 6.6 form
(createHandleFromBinding: ResBind {lower, upper, space, class} + index)."""

from __future__ import annotations

import re
import struct

import pytest
from harness.dxil_exec import run_dxil_compute
from harness.dxil_tools import check_dxil
from test_dxil_compute import compile_ir, compute_module, dx_calls

from shaderbuild import ir

RWBUF = ir.Resource("RWBuffer", ir.FLOAT)


def res_array(name: str, dims: list[int | None], reg: int, space: int = 0, res=RWBUF) -> ir.Variable:
    t: ir.Type = res
    count: int | None = 1
    for d in reversed(dims):
        t = ir.Array(t, d)
        count = None if (d is None or count is None) else count * d
    return ir.Variable(name, t, ir.Storage.UNIFORM, binding=ir.Binding("u", reg, space, count))


def element(var_expr: ir.Expr, indices: list[int]) -> ir.Expr:
    e = var_expr
    for i in indices:
        e = ir.IndexRef(e, ir.Const(ir.UINT, i), e.type.elem)
    return e


def store_one(res_place: ir.Expr, value: float = 1.0) -> ir.Stmt:
    return ir.Store(ir.BufferElem(res_place, ir.Const(ir.UINT, 0), ir.FLOAT), ir.Const(ir.FLOAT, value))


def handles_for(var: ir.Variable, indices: list[int], profile: str) -> str:
    module = compute_module(lambda pid: [store_one(element(ir.VarRef(var), indices))], [var],
                            sm=(6, int(profile[-1])))
    return check_dxil(compile_ir(module, profile).container).ir


# (declaration dims, register, space, accessed indices, lower, upper, flattened index)
SEED_CASES = {
    "A[2] of A[4] : register(u10)": ([4], 10, 0, [2], 10, 13, 12),
    "C[1][0][3] of C[2][2][5] : register(u10, space1)": ([2, 2, 5], 10, 1, [1, 0, 3], 10, 29, 23),
    "D[100] of D[] : register(u5)": ([None], 5, 0, [100], 5, -1, 105),
    "E[100][3] of E[][4] : register(u5)": ([None, 4], 5, 0, [100, 3], 5, -1, 408),
}


@pytest.mark.parametrize("case", SEED_CASES)
def test_sm66_resbind_and_index(case):
    dims, reg, space, idx, lower, upper, flat = SEED_CASES[case]
    text = handles_for(res_array("R", dims, reg, space), idx, "cs_6_6")
    want = (f"@dx.op.createHandleFromBinding(i32 217, %dx.types.ResBind {{ i32 {lower}, i32 {upper}, "
            f"i32 {space}, i8 1 }}, i32 {flat}, i1 false)")
    assert want in text


@pytest.mark.parametrize("case", SEED_CASES)
def test_sm60_range_and_index(case):
    dims, reg, space, idx, lower, upper, flat = SEED_CASES[case]
    text = handles_for(res_array("R", dims, reg, space), idx, "cs_6_0")
    assert f"@dx.op.createHandle(i32 57, i8 1, i32 0, i32 {flat}, i1 false)" in text
    size = -1 if upper == -1 else upper - lower + 1
    # resource record: id 0, undef symbol (no resource globals outside libraries, as DXC), space,
    # lower bound, range size (-1 unbounded), TypedBuffer shape 10
    assert "@R =" not in text and "external constant" not in text
    assert re.search(rf'!\{{i32 0, ptr undef, !"R", i32 {space}, i32 {lower}, i32 {size}, i32 10, ', text)


def test_sub_array_argument_keeps_the_original_range():
    """float foo(RWBuffer<float> P[5]) { return P[3][0]; }   Out[0] = foo(N[7]);   N[10][5] : register(u0)"""
    n = res_array("N", [10, 5], 0)
    out = ir.Variable("Out", ir.Resource("RWBuffer", ir.FLOAT), ir.Storage.UNIFORM, binding=ir.Binding("u", 60))
    p = ir.Variable("P", ir.Array(RWBUF, 5), ir.Storage.FUNCTION)
    foo = ir.Function("foo", [ir.Param(p)], ir.FLOAT, [ir.Return(ir.Load(
        ir.BufferElem(element(ir.VarRef(p), [3]), ir.Const(ir.UINT, 0), ir.FLOAT), ir.FLOAT))])
    sub = ir.IndexRef(ir.VarRef(n), ir.Const(ir.UINT, 7), ir.Array(RWBUF, 5))
    call = ir.Call(foo, [ir.Load(sub, sub.type)], ir.FLOAT)
    module = compute_module(lambda pid: [ir.Store(ir.BufferElem(ir.VarRef(out), ir.Const(ir.UINT, 0), ir.FLOAT),
                                                  call)], [n, out], sm=(6, 6), extra_functions=[foo])
    text = check_dxil(compile_ir(module, "cs_6_6").container).ir
    assert "%dx.types.ResBind { i32 0, i32 49, i32 0, i8 1 }, i32 38, i1 false)" in text


def _dxc_bug_module(kind: str, sm=(6, 0)) -> tuple[ir.Module, ir.Variable, ir.Variable]:
    """The seed's example DXC gets wrong: must write 1 to Y and 2 to X.

        void SomeFn(RWBuffer<int> Arr[2], uint Idx, int Val0) { Arr[0] = Y; Arr[0][Idx] = Val0; }
        void main(uint GI : SV_GroupIndex) { RWBuffer<int> Arr[2] = {X, Y}; SomeFn(Arr, GI, 1); Arr[0][GI] = 2; }
    """
    res = ir.Resource(kind, ir.INT)
    x = ir.Variable("X", res, ir.Storage.UNIFORM, binding=ir.Binding("u", 0))
    y = ir.Variable("Y", res, ir.Storage.UNIFORM, binding=ir.Binding("u", 1))
    arr_t = ir.Array(res, 2)
    p_arr = ir.Variable("Arr", arr_t, ir.Storage.FUNCTION)
    p_idx = ir.Variable("Idx", ir.UINT, ir.Storage.FUNCTION)
    p_val = ir.Variable("Val0", ir.INT, ir.Storage.FUNCTION)
    arr0 = element(ir.VarRef(p_arr), [0])
    some_fn = ir.Function("SomeFn", [ir.Param(p_arr), ir.Param(p_idx), ir.Param(p_val)], ir.VOID, [
        ir.Store(arr0, ir.Load(ir.VarRef(y), res)),
        ir.Store(ir.BufferElem(arr0, ir.Load(ir.VarRef(p_idx), ir.UINT), ir.INT), ir.Load(ir.VarRef(p_val), ir.INT)),
    ])
    local = ir.Variable("Arr", arr_t, ir.Storage.FUNCTION)

    def body(pid):
        gi = ir.Swizzle(ir.Load(ir.VarRef(pid), ir.Vector(ir.UINT, 3)), (0,), ir.UINT)
        return [
            ir.Store(ir.VarRef(local), ir.Construct(arr_t, [ir.Load(ir.VarRef(x), res), ir.Load(ir.VarRef(y), res)])),
            ir.Eval(ir.Call(some_fn, [ir.Load(ir.VarRef(local), arr_t), gi, ir.Const(ir.INT, 1)], ir.VOID)),
            ir.Store(ir.BufferElem(element(ir.VarRef(local), [0]), gi, ir.INT), ir.Const(ir.INT, 2)),
        ]
    return compute_module(body, [x, y], numthreads=(4, 1, 1), sm=sm, extra_functions=[some_fn],
                          locals_=[local]), x, y


def test_local_resource_array_copy_sm60_handles():
    module, _x, _y = _dxc_bug_module("RWBuffer")
    text = check_dxil(compile_ir(module, "cs_6_0").container).ir
    stores = [line for line in text.splitlines() if "call void @dx.op.bufferStore.i32(" in line]
    assert len(stores) == 2
    assert stores[1].endswith("i32 2, i32 2, i32 2, i32 2, i8 15)")     # typed stores write all 4 components
    handles = re.findall(r"@dx.op.createHandle\(i32 57, i8 1, i32 (\d), i32 (\d), i1 false\)", text)
    assert sorted(handles) == [("0", "0"), ("1", "1")]                    # X: range 0 / u0, Y: range 1 / u1
    # the first store (value 1) goes through Y's handle, the second (value 2) through X's
    h = {m.group(1): (m.group(2), m.group(3)) for m in
         re.finditer(r"(%\d+) = call %dx.types.Handle @dx.op.createHandle\(i32 57, i8 1, i32 (\d), i32 (\d)", text)}
    used = [re.search(r"%dx.types.Handle (%\d+)", s).group(1) for s in stores]
    assert [h[u] for u in used] == [("1", "1"), ("0", "0")]


def test_local_resource_array_copy_executes():
    module, _x, _y = _dxc_bug_module("RWStructuredBuffer")
    out = compile_ir(module, "cs_6_0")
    bx, by = run_dxil_compute(out.container, "main", [(0, 0, "u", bytes(16)), (1, 0, "u", bytes(16))],
                              numthreads=(4, 1, 1))
    assert struct.unpack("<4i", bx) == (2, 2, 2, 2)
    assert struct.unpack("<4i", by) == (1, 1, 1, 1)


def test_range_ids_follow_declaration_order_per_class():
    a = ir.Variable("A", ir.Resource("RWStructuredBuffer", ir.UINT), ir.Storage.UNIFORM, binding=ir.Binding("u", 3))
    b = ir.Variable("B", ir.Resource("RWStructuredBuffer", ir.UINT), ir.Storage.UNIFORM, binding=ir.Binding("u", 1))
    t = ir.Variable("T", ir.Resource("StructuredBuffer", ir.UINT), ir.Storage.UNIFORM, binding=ir.Binding("t", 2))

    def body(pid):
        z = ir.Const(ir.UINT, 0)
        v = ir.Load(ir.BufferElem(ir.VarRef(t), z, ir.UINT), ir.UINT)
        return [ir.Store(ir.BufferElem(ir.VarRef(b), z, ir.UINT), v), ir.Store(ir.BufferElem(ir.VarRef(a), z, ir.UINT), v)]
    text = check_dxil(compile_ir(compute_module(body, [a, b, t]), "cs_6_0").container).ir
    calls = dx_calls(text)
    assert calls[0][0] == "dx.op.createHandle"
    assert '!"A", i32 0, i32 3, i32 1' in text and '!"B", i32 0, i32 1, i32 1' in text
    assert re.search(r'!\{i32 0, ptr undef, !"A"', text) and re.search(r'!\{i32 1, ptr undef, !"B"', text)
    assert re.search(r'!\{i32 0, ptr undef, !"T", i32 0, i32 2, i32 1, i32 12, i32 0, ', text)


@pytest.mark.parametrize("profile", ["cs_6_0", "cs_6_6"])
def test_non_uniform_resource_index_sets_the_flag(profile):
    """Arr[NonUniformResourceIndex(id.x)][0] = 1 -> the handle's nonUniform operand is true."""
    arr = res_array("Arr", [8], 0)

    def body(pid):
        idx = ir.Intrinsic("NonUniformResourceIndex", [ir.Swizzle(ir.Load(ir.VarRef(pid), ir.Vector(ir.UINT, 3)),
                                                                  (0,), ir.UINT)], ir.UINT)
        return [store_one(ir.IndexRef(ir.VarRef(arr), idx, RWBUF))]
    text = check_dxil(compile_ir(compute_module(body, [arr], sm=(6, int(profile[-1]))), profile).container).ir
    assert re.search(r"@dx\.op\.createHandle(FromBinding)?\(i32 \d+, .*, i32 %\d+, i1 true\)", text)


TBUFFERS = """
struct S { float a; float4 b; };
TextureBuffer<S> TB2 : register(t3);
tbuffer TB : register(t0) { float a; float4 b; };
RWStructuredBuffer<float> Out : register(u1);
[numthreads(1, 1, 1)] void main() { Out[0] = a + b.w + TB2.b.y; }
"""


def test_tbuffer_records_carry_the_u32_element_type():
    """A tbuffer / TextureBuffer<T> is an SRV of kind TBuffer (15) whose record's extra properties give
    the element type (tag 0) U32 (DXIL ComponentType 5), as DXC's InitTBuffer sets it: its validator
    rejects a typed SRV without a valid component type (Sm.InvalidResourceCompType)."""
    import res_util as R
    from harness.dxil_tools import read_dxil
    res = R.compile_hlsl(TBUFFERS, "main", "cs_6_0", "dxil")
    assert res.ok, R.diagnostics_text(res)
    text = read_dxil(res.binary).ir
    for name in ("TB", "TB2"):
        m = re.search(rf'!"{name}", i32 0, i32 \d+, i32 1, i32 15, i32 0, (![0-9]+)\}}', text)
        assert m, f"no TBuffer SRV record for {name}"
        assert re.search(rf"^{m.group(1)} = !\{{i32 0, i32 5\}}$", text, re.M), name
