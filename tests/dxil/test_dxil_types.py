"""64-bit and native 16-bit types: buffer access forms per shader model, shader
flags (dx.entryPoints tag 0) and SFI0 feature bits."""

from __future__ import annotations

import struct

from harness.dxil_tools import check_dxil, container_parts
from test_dxil_compute import compile_ir, compute_module, id_x, uav

from shaderbuild import ir


def store_scaled(elem: ir.Scalar, sm, factor) -> ir.Module:
    out = uav("Out", elem)

    def body(pid):
        v = ir.Binary("mul", ir.Convert(id_x(pid), elem), ir.Const(elem, factor), elem)
        return [ir.Store(ir.BufferElem(ir.VarRef(out), id_x(pid), elem), v)]
    return compute_module(body, [out], sm=sm)


def flags_of(text: str) -> int:
    import re
    return int(re.search(r"!\{i32 0, i64 (\d+), i32 4, ", text).group(1))


def sfi0(blob: bytes) -> int:
    return struct.unpack("<Q", container_parts(blob)["SFI0"])[0]


def test_double_store_before_sm63_splits_into_words():
    res = compile_ir(store_scaled(ir.DOUBLE, (6, 0), 2.5), "cs_6_0")
    text = check_dxil(res.container).ir
    assert "@dx.op.splitDouble.f64(i32 102, double %" in text
    assert "@dx.op.bufferStore.i32(i32 69, %dx.types.Handle %" in text and "i8 3)" in text
    assert flags_of(text) & (1 << 2)                       # doubles
    assert sfi0(res.container) & 0x1


def test_double_store_from_sm63_is_native():
    text = check_dxil(compile_ir(store_scaled(ir.DOUBLE, (6, 3), 2.5), "cs_6_3").container).ir
    assert "@dx.op.rawBufferStore.f64(i32 140, %dx.types.Handle %" in text and "i8 1, i32 8)" in text


def test_int64_flags():
    res = compile_ir(store_scaled(ir.UINT64, (6, 3), 3), "cs_6_3")
    text = check_dxil(res.container).ir
    assert "@dx.op.rawBufferStore.i64(" in text
    assert flags_of(text) & (1 << 20) and sfi0(res.container) & 0x8000


def test_native_16bit_half():
    res = compile_ir(store_scaled(ir.HALF, (6, 2), 0.5), "cs_6_2", enable_16bit_types=True)
    text = check_dxil(res.container).ir
    assert "@dx.op.rawBufferStore.f16(i32 140, %dx.types.Handle %" in text and "i8 1, i32 2)" in text
    assert "uitofp i32 %" in text and "to half" in text
    assert flags_of(text) & (1 << 23) and flags_of(text) & (1 << 5)
    assert sfi0(res.container) & 0x40000 and not sfi0(res.container) & 0x10


def test_16bit_types_need_sm62():
    import pytest

    from shaderbuild.diagnostics import CompileError
    with pytest.raises(CompileError) as exc:
        compile_ir(store_scaled(ir.HALF, (6, 0), 0.5), "cs_6_0", enable_16bit_types=True)
    assert "requires shader model 6.2" in str(exc.value)
