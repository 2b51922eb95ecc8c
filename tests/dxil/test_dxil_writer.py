"""The LLVM 3.7 bitcode writer, checked against llvm-dis-19's reading of every
record kind it emits, and the printer against the same module."""

from __future__ import annotations

import re

from harness.dxil_tools import bcanalyzer, llvm_dis
from shaderbuild_dxil.llvm import (
    ArrayType,
    ConstAggregate,
    ConstFloat,
    ConstInt,
    ConstNull,
    FunctionType,
    IRBuilder,
    MDNode,
    MDString,
    MDValue,
    Module,
    StructType,
    Undef,
    double,
    f16,
    f32,
    i1,
    i8,
    i32,
    i64,
    void,
)
from shaderbuild_dxil.llvm.metadata import md_int, md_ints
from shaderbuild_dxil.llvm.printer import print_module
from shaderbuild_dxil.lower import DATALAYOUT_LEGACY, TRIPLE
from shaderbuild_dxil.writer import BITCODE_MAGIC, write_bitcode


def kitchen_sink() -> Module:
    m = Module("t", TRIPLE, DATALAYOUT_LEGACY)
    table_t = ArrayType(i32, 3)
    m.add_global(table_t, "table", initializer=ConstAggregate(table_t, [ConstInt(i32, 5), ConstInt(i32, -7),
                                                                         ConstInt(i32, 0)]),
                 linkage="internal", align=4, constant=True)
    gs = m.add_global(ArrayType(i32, 8), "gs", addrspace=3, initializer=Undef(ArrayType(i32, 8)),
                      linkage="internal", align=4)
    pair = StructType((i32, i1))
    ext = m.declare(FunctionType(f32, (i32, f32)), "dx.op.unary.f32", ("nounwind", "readnone"))
    f = m.add_function(FunctionType(i32, (i32, f32)), "kitchen")
    a, x = f.args
    entry, loop, body, done, other, dead = (f.append_block(n) for n in ("entry", "loop", "body", "done", "other",
                                                                        "dead"))
    b = IRBuilder(entry)
    slot = b.alloca(ArrayType(f32, 4), align=4)
    p = b.gep(slot, [ConstInt(i32, 0), a])
    b.store(b.fadd(x, ConstFloat(f32, 1.5)), p)
    ld = b.load(p)
    h = b.fptrunc(ld, f16)
    d = b.fpext(h, double)
    back = b.fptosi(b.fptrunc(d, f32), i32)
    c = b.call(ext, [ConstInt(i32, 13), ld])
    isneg = b.fcmp("olt", c, ConstFloat(f32, 0.0))
    sel = b.select(isneg, back, ConstInt(i32, 42))
    wide = b.sext(sel, i64)
    narrow = b.trunc(b.mul(wide, ConstInt(i64, -3), flags=2), i32)
    gp = b.gep(gs, [ConstInt(i32, 0), ConstInt(i32, 2)])
    old = b.atomic_rmw("add", gp, narrow)
    cx = b.cmpxchg(gp, old, ConstInt(i32, 9))
    got = b.extract_value(cx, 0)
    b.switch(got, other, [(ConstInt(i32, 1), loop), (ConstInt(i32, 2), done)])
    b.position_at_end(loop)
    phi = b.phi(i32, [])
    nxt = b.add(phi, ConstInt(i32, 1))
    phi.attrs["incoming"] = [(got, entry), (nxt, body)]           # forward reference to %nxt
    b.cbranch(b.icmp("slt", nxt, ConstInt(i32, 10)), body, done)
    b.position_at_end(body)
    b.br(loop)
    b.position_at_end(done)
    r = b.phi(i32, [(got, entry), (nxt, loop)])
    b.ret(b.xor(r, b.lshr(ConstInt(i32, -1), ConstInt(i32, 28))))
    b.position_at_end(other)
    b.ret(ConstInt(i32, 0))
    b.position_at_end(dead)
    b.unreachable()
    m.add_named_md("llvm.ident", [MDNode([MDString("writer test")])])
    inner = MDNode([MDValue(ConstInt(i64, 1 << 40)), None, MDValue(ConstFloat(f32, 0.25))])
    m.add_named_md("dx.entryPoints", [MDNode([MDValue(f), MDString("kitchen"), inner, inner,
                                              MDValue(ConstNull(pair))])])
    _ = (i8, void)
    return m


def test_bitcode_magic_and_alignment():
    bc = write_bitcode(kitchen_sink())
    assert bc[:4] == BITCODE_MAGIC and len(bc) % 4 == 0


def test_bcanalyzer_structure():
    dump = bcanalyzer(write_bitcode(kitchen_sink()))
    for block in ("BLOCKINFO_BLOCK", "PARAMATTR_GROUP_BLOCK_ID", "PARAMATTR_BLOCK", "TYPE_BLOCK_ID",
                  "CONSTANTS_BLOCK", "METADATA_BLOCK", "VALUE_SYMTAB", "FUNCTION_BLOCK"):
        assert block in dump, block
    assert "<VERSION op0=1/>" in dump
    assert "IDENTIFICATION" not in dump and "STRTAB" not in dump


def test_llvm_dis_reads_every_record():
    text = llvm_dis(write_bitcode(kitchen_sink()))
    body = text[text.index("define i32 @kitchen"):]
    expected = [
        r"@table = internal constant \[3 x i32\] \[i32 5, i32 -7, i32 0\], align 4",
        r"@gs = internal addrspace\(3\) global \[8 x i32\] undef, align 4",
        r"%\d+ = alloca \[4 x float\], align 4",
        r"getelementptr inbounds \[4 x float\], ptr %\d+, i32 0, i32 %0",
        r"fadd fast float %1, 1\.500000e\+00",
        r"fptrunc float %\d+ to half", r"fpext half %\d+ to double", r"fptosi float %\d+ to i32",
        r"call float @dx\.op\.unary\.f32\(i32 13, float %\d+\)",
        r"fcmp olt float %\d+, 0\.000000e\+00",
        r"select i1 %\d+, i32 %\d+, i32 42",
        r"mul nsw i64 %\d+, -3",
        r"getelementptr inbounds \[8 x i32\], ptr addrspace\(3\) @gs, i32 0, i32 2",
        r"atomicrmw add ptr addrspace\(3\) %\d+, i32 %\d+ seq_cst",
        r"cmpxchg ptr addrspace\(3\) .* seq_cst seq_cst",
        r"extractvalue \{ i32, i1 \} %\d+, 0",
        r"switch i32 %\d+, label %other \[\s+i32 1, label %loop\s+i32 2, label %done\s+\]",
        r"phi i32 \[ %\d+, %entry \], \[ %\d+, %body \]",
        r"icmp slt i32 %\d+, 10",
        r"br i1 %\d+, label %body, label %done",
        r"xor i32 %\d+, %\d+|xor i32 %\d+, 15",
        r"ret i32 0",
        r"unreachable",
    ]
    for pat in expected:
        assert re.search(pat, text), pat
    assert "declare float @dx.op.unary.f32(i32, float) #" in text
    assert "memory(none)" in text and "nounwind" in text
    assert "!llvm.ident = !{!" in text and '!"writer test"' in text
    assert re.search(r"!\{ptr @kitchen, !\"kitchen\", !(\d+), !\1, \{ i32, i1 \} zeroinitializer\}", text)
    assert re.search(r"!\{i64 1099511627776, null, float 2\.500000e-01\}", text)
    assert "label %loop" in body


def test_printer_matches_module_shape():
    text = print_module(kitchen_sink())
    assert "define i32 @kitchen(i32 %0, float %1) {" in text
    assert "declare float @dx.op.unary.f32(i32, float) #0" in text
    assert "attributes #0 = { nounwind readnone }" in text
    assert "switch i32" in text and "phi i32 [" in text and "cmpxchg" in text


def test_relative_ids_and_deterministic_output():
    a, b = write_bitcode(kitchen_sink()), write_bitcode(kitchen_sink())
    assert a == b
    dump = bcanalyzer(a)
    # MODULE_CODE_VERSION 1: operands are relative, so the first call's function operand is a small delta
    assert re.search(r"<INST_CALL op0=0 op1=32768 op2=\d+ op3=\d+", dump)


def test_forward_references_in_calls_binops_and_extractvalue():
    """A block laid out before the block defining its operands (valid: the definitions
    dominate the uses): calls, binary operators and extractvalue then refer forward, which the
    writer's inline encoders hand to the general path (a call's argument never carries a type,
    a binop's first operand does)."""
    m = Module("t", TRIPLE, DATALAYOUT_LEGACY)
    pair = StructType((i32, i1))
    unary = m.declare(FunctionType(f32, (i32, f32)), "dx.op.unary.f32", ("nounwind", "readnone"))
    make = m.declare(FunctionType(pair, (i32,)), "make.pair", ("nounwind",))
    f = m.add_function(FunctionType(f32, (f32,)), "fwd")
    (x,) = f.args
    entry, use, define = (f.append_block(n) for n in ("entry", "use", "define"))
    b = IRBuilder(entry)
    b.br(define)
    b.position_at_end(define)
    y = b.fmul(x, ConstFloat(f32, 2.0), name="y")
    s = b.call(make, [ConstInt(i32, 7)], name="s")
    b.br(use)
    b.position_at_end(use)
    c = b.call(unary, [ConstInt(i32, 13), y], name="c")
    z = b.fadd(y, c, name="z")
    k = b.extract_value(s, 0, name="k")
    b.ret(b.fadd(z, b.sitofp(k, f32, name="kf"), name="r"))
    bc = write_bitcode(m)
    text = llvm_dis(bc)
    body = text[text.index("define float @fwd"):]
    assert body.index("use:") < body.index("define:")
    for pat in (r"%c = call float @dx\.op\.unary\.f32\(i32 13, float %y\)", r"%z = fadd fast float %y, %c",
                r"%k = extractvalue \{ i32, i1 \} %s, 0", r"%y = fmul fast float %0, 2\.000000e\+00",
                r"%s = call \{ i32, i1 \} @make\.pair\(i32 7\)"):
        assert re.search(pat, body), pat
    assert write_bitcode(m) == bc


def _md_module(name: str, values: list[int]) -> Module:
    m = Module(name, TRIPLE, DATALAYOUT_LEGACY)
    f = m.add_function(FunctionType(void, ()), name)
    IRBuilder(f.append_block("entry")).ret()
    ints = md_ints(i32)
    m.add_named_md("t.ints", [MDNode([ints[v] for v in values]), MDNode([md_int(i8, values[0]), ints[values[-1]]])])
    return m


def test_shared_metadata_integers_across_modules():
    """md_int objects are shared by every module (numbered by identity per write): writing
    other modules in between does not change a module's bitcode, and each module numbers
    and prints its own integers."""
    assert md_int(i32, 7) is md_ints(i32)[7] and md_int(i8, 7) is not md_int(i32, 7)
    first = write_bitcode(_md_module("a", [7, 3, 7]))
    other = write_bitcode(_md_module("b", [3, 9]))
    assert write_bitcode(_md_module("a", [7, 3, 7])) == first != other
    text_a, text_b = llvm_dis(first), llvm_dis(other)
    assert re.search(r"!\{i32 7, i32 3, i32 7\}", text_a) and re.search(r"!\{i8 7, i32 7\}", text_a)
    assert re.search(r"!\{i32 3, i32 9\}", text_b) and re.search(r"!\{i8 3, i32 9\}", text_b)
