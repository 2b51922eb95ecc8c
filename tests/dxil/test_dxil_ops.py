"""The declarative DXIL operation table and everything derived from it."""

from __future__ import annotations

import pytest
from shaderbuild_dxil.llvm import FunctionType, Module, StructType, f16, f32, i1, i8, i32, void
from shaderbuild_dxil.ops import BY_OPCODE, OPS, OpEmitter, function_op

from shaderbuild.diagnostics import CompileError


def test_table_is_consistent():
    assert len(OPS) == len(BY_OPCODE) > 240                      # SM 6.0 - 6.8, reserved slots excluded
    assert sorted(BY_OPCODE) == sorted(o.opcode for o in OPS.values())
    for op in OPS.values():
        assert op.func_class[0].islower()
        assert (6, 0) <= op.min_sm <= (6, 8)
        assert op.ret and all(op.params) or not op.params


@pytest.mark.parametrize("name, opcode, cls, min_sm", [
    ("ThreadId", 93, "threadId", (6, 0)), ("CreateHandle", 57, "createHandle", (6, 0)),
    ("BufferStore", 69, "bufferStore", (6, 0)), ("RawBufferLoad", 139, "rawBufferLoad", (6, 2)),
    ("AnnotateHandle", 216, "annotateHandle", (6, 6)), ("CreateHandleFromBinding", 217, "createHandleFromBinding", (6, 6)),
    ("CBufferLoadLegacy", 59, "cbufferLoadLegacy", (6, 0)), ("Barrier", 80, "barrier", (6, 0)),
    ("BarrierByMemoryType", 244, "barrierByMemoryType", (6, 8)),
])
def test_known_operations(name, opcode, cls, min_sm):
    op = OPS[name]
    assert (op.opcode, op.func_class, op.min_sm) == (opcode, cls, min_sm)


def emitter(stage="compute", sm=(6, 0), native16=False) -> OpEmitter:
    return OpEmitter(Module("m"), stage, sm, native16)


def test_declarations_derive_name_type_and_attributes():
    e = emitter()
    f = e.declare("ThreadId", "i32")
    assert f.name == "dx.op.threadId.i32" and f.ftype == FunctionType(i32, (i32, i32))
    assert f.attrs == ("nounwind", "readnone")
    h = e.declare("CreateHandle")
    assert h.name == "dx.op.createHandle"
    assert h.ftype.params == (i32, i8, i32, i32, i1) and h.ftype.ret == StructType((i8.ptr(),), "dx.types.Handle")
    s = e.declare("Sin", "f16")
    assert s.name == "dx.op.unary.f16" and s.ftype == FunctionType(f16, (i32, f16))
    b = e.declare("Barrier")
    assert b.ftype == FunctionType(void, (i32, i32)) and "noduplicate" in b.attrs
    d = e.declare("Dot3", "f32")
    assert d.ftype.params == (i32,) + (f32,) * 6


def test_same_class_shares_one_declaration():
    e = emitter()
    assert e.declare("Sin", "f32") is e.declare("Cos", "f32")


@pytest.mark.parametrize("args, message", [
    (("ThreadId", "i32", "pixel", (6, 0)), "operation ThreadId is not allowed in pixel shaders (profile ps_6_0)"),
    (("RawBufferLoad", "i32", "compute", (6, 1)), "operation RawBufferLoad is not allowed in profile cs_6_1"),
    (("Sin", "f64", "compute", (6, 0)), "operation Sin has no f64 overload (allowed: f16, f32)"),
    (("AtomicBinOp", "i64", "compute", (6, 5)), "operation AtomicBinOp with i64 requires shader model 6.6"),
    (("CreateHandle", "i32", "compute", (6, 0)), "operation CreateHandle takes no overload"),
])
def test_profile_and_overload_diagnostics(args, message):
    name, ov, stage, sm = args
    with pytest.raises(CompileError) as exc:
        emitter(stage, sm).declare(name, ov)
    assert message in str(exc.value)


def test_function_name_maps_back_to_class():
    op, ov = function_op("dx.op.unary.f32")
    assert op.func_class == "unary" and ov == "f32"
    assert function_op("llvm.sqrt.f32") is None
