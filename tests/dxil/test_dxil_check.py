"""The self-checker turns backend mistakes into internal-error diagnostics."""

from __future__ import annotations

import re

import pytest
from shaderbuild_dxil import check
from shaderbuild_dxil.dxmeta import add_metadata
from shaderbuild_dxil.llvm import FunctionType, IRBuilder, MDNode, f32, i32
from shaderbuild_dxil.llvm.values import ConstFloat, ConstInt, Instruction
from shaderbuild_dxil.lower import lower_module
from test_dxil_compute import double_plus_one_module


def lowered():
    lm = lower_module(double_plus_one_module(), "compute", (6, 0))
    add_metadata(lm)
    return lm


def insert_before_ret(lm, inst: Instruction) -> None:
    bb = lm.entry.blocks[-1]
    inst.parent = bb
    bb.instructions.insert(len(bb.instructions) - 1, inst)


def test_clean_module_passes():
    lm = lowered()
    check.check_module(lm, lm.ops)


def expect_failure(lm, text: str) -> None:
    with pytest.raises(check.DxilCheckError) as exc:
        check.check_module(lm, lm.ops)
    msg = str(exc.value)
    assert "internal compiler error: DXIL self-check failed" in msg and text in msg


def test_unknown_external_function():
    lm = lowered()
    f = lm.llmod.declare(FunctionType(f32, (f32,)), "llvm.sqrt.f32")
    insert_before_ret(lm, Instruction("call", f32, [f, ConstFloat(f32, 2.0)]))
    expect_failure(lm, "unknown external function llvm.sqrt.f32")


def test_wrong_signature_for_class():
    lm = lowered()
    f = lm.llmod.declare(FunctionType(i32, (i32, f32)), "dx.op.threadId.f32", ("nounwind", "readnone"))
    insert_before_ret(lm, Instruction("call", i32, [f, ConstInt(i32, 93), ConstFloat(f32, 0.0)]))
    expect_failure(lm, "dx.op.threadId.f32 does not match any DXIL operation signature")


def test_wrong_opcode_operand():
    lm = lowered()
    fn = lm.llmod.get_function("dx.op.threadId.i32")
    b = IRBuilder(lm.entry.blocks[-1])
    call = Instruction("call", i32, [fn, ConstInt(i32, 94), ConstInt(i32, 0)])   # GroupId's opcode
    insert_before_ret(lm, call)
    _ = b
    expect_failure(lm, "wrong opcode operand")


def test_unknown_named_metadata():
    lm = lowered()
    lm.llmod.add_named_md("my.private", [MDNode([])])
    expect_failure(lm, "unknown named metadata !my.private")


def test_missing_terminator():
    lm = lowered()
    lm.entry.blocks[-1].instructions.pop()
    expect_failure(lm, "block without terminator")


def test_container_info_consistency():
    from shaderbuild_dxil.backend import compile_dxil

    from shaderbuild.options import CompileOptions
    out = compile_dxil(double_plus_one_module(), CompileOptions(profile="cs_6_0", target="dxil"))
    check.check_container_info(out.lowered, out.info)
    out.info.numthreads = (1, 1, 1)
    with pytest.raises(check.DxilCheckError, match="numthreads"):
        check.check_container_info(out.lowered, out.info)
    out.info.numthreads = out.lowered.numthreads
    out.info.resources[0].lower = 7
    with pytest.raises(check.DxilCheckError, match="resource ranges"):
        check.check_container_info(out.lowered, out.info)


def test_use_before_definition_is_caught():
    lm = lowered()
    bb = lm.entry.blocks[0]
    calls = [i for i in bb.instructions if i.op == "call" and i.has_value]
    handle, tid = calls[0], calls[1]
    bb.instructions.remove(tid)
    bb.instructions.insert(len(bb.instructions) - 1, tid)      # now defined after its users
    expect_failure(lm, "not dominated by its definition")
    _ = handle


# ---- SSA form on hand-built CFGs: entry -> (left | right) -> join, plus an unreachable block

def diamond():
    """A function whose blocks are entry, left, right, join (each with a terminator) and the
    values x (entry), l (left), r (right) and the phi of l and r in join."""
    from shaderbuild_dxil.llvm import void
    from shaderbuild_dxil.llvm.values import Function

    f = Function(FunctionType(void, ()), "main")
    entry, left, right, join = (f.append_block(n) for n in ("entry", "left", "right", "join"))
    b = IRBuilder(entry)
    x = b.add(ConstInt(i32, 1), ConstInt(i32, 2))
    b.cbranch(b.icmp("eq", x, ConstInt(i32, 3)), left, right)
    b.position_at_end(left)
    lv = b.mul(x, ConstInt(i32, 2))
    b.br(join)
    b.position_at_end(right)
    rv = b.mul(x, ConstInt(i32, 3))
    b.br(join)
    b.position_at_end(join)
    phi = b.phi(i32, [(lv, left), (rv, right)])
    b.add(phi, x)
    b.ret()
    return f, dict(entry=entry, left=left, right=right, join=join, x=x, l=lv, r=rv, phi=phi)


def expect_ssa_failure(f, text: str) -> None:
    with pytest.raises(check.DxilCheckError, match=text):
        check._check_function(f)


def test_diamond_is_valid():
    f, _ = diamond()
    check._check_function(f)


def test_use_of_a_value_from_a_sibling_block():
    f, v = diamond()
    join = v["join"]
    join.instructions.insert(1, Instruction("add", i32, [v["l"], v["x"]]))    # l is defined in `left` only
    expect_ssa_failure(f, "not dominated by its definition")


def test_phi_value_along_the_wrong_edge():
    f, v = diamond()
    v["phi"].attrs["incoming"] = [(v["r"], v["left"]), (v["l"], v["right"])]
    expect_ssa_failure(f, "not dominated by its definition")


def test_phi_value_defined_later_in_a_dominating_block_is_fine():
    f, v = diamond()
    v["phi"].attrs["incoming"] = [(v["x"], v["left"]), (v["r"], v["right"])]
    check._check_function(f)


def test_phi_missing_an_edge():
    f, v = diamond()
    v["phi"].attrs["incoming"] = [(v["l"], v["left"])]
    expect_ssa_failure(f, "phi incoming blocks do not match")


def test_second_phi_of_a_block_with_other_edges():
    """Phis of one block listing the same incoming blocks share one edge test; a later phi whose
    incoming blocks differ (a missing edge, or its values along the wrong edges) is still caught."""
    f, v = diamond()
    join = v["join"]
    second = Instruction("phi", i32, [], incoming=[(v["l"], v["left"]), (v["r"], v["right"])])
    join.instructions.insert(1, second)
    check._check_function(f)
    second.attrs["incoming"] = [(v["l"], v["left"])]
    expect_ssa_failure(f, "phi incoming blocks do not match")
    second.attrs["incoming"] = [(v["r"], v["right"]), (v["l"], v["right"])]
    expect_ssa_failure(f, "phi incoming blocks do not match")
    second.attrs["incoming"] = [(v["r"], v["left"]), (v["l"], v["right"])]
    expect_ssa_failure(f, "not dominated by its definition")


def test_operand_from_outside_the_function():
    f, v = diamond()
    stray = Instruction("add", i32, [ConstInt(i32, 1), ConstInt(i32, 1)])
    v["join"].instructions.insert(1, Instruction("add", i32, [stray, v["x"]]))
    expect_ssa_failure(f, "operand of 'add' is not in the function")


def test_phi_operand_from_outside_the_function():
    f, v = diamond()
    stray = Instruction("add", i32, [ConstInt(i32, 1), ConstInt(i32, 1)])
    v["phi"].attrs["incoming"] = [(stray, v["left"]), (v["r"], v["right"])]
    expect_ssa_failure(f, "operand of 'phi' is not in the function")


def test_instruction_using_itself():
    f, v = diamond()
    x = v["x"]
    x.operands = [x, ConstInt(i32, 2)]
    expect_ssa_failure(f, "not dominated by its definition")


def test_unreachable_block_sees_only_its_own_values():
    f, v = diamond()
    dead = f.append_block("dead")
    b = IRBuilder(dead)
    y = b.add(ConstInt(i32, 4), ConstInt(i32, 5))
    b.add(y, y)                                     # its own earlier value: fine
    b.ret()
    check._check_function(f)
    dead.instructions.insert(2, Instruction("add", i32, [v["x"], y]))   # entry's x: no dominator tree holds `dead`
    expect_ssa_failure(f, "not dominated by its definition")
    dead.instructions.pop(2)
    v["join"].instructions.insert(1, Instruction("add", i32, [y, v["x"]]))  # and the reachable blocks cannot see y
    expect_ssa_failure(f, "not dominated by its definition")


# ---- signature packing rules (check_container_info), on hand-placed elements

def _sig(name: str, row: int, col: int, rows: int = 1, cols: int = 4, interpretation: str = "Arb", interp: int = 2,
         index: int = 0):
    from shaderbuild_dxil.signature import SigElement
    return SigElement(var=None, id=0, name=name, index=index, kind=0, system_value=0, comp_type=9, sig_comp_type=3,
                      rows=rows, cols=cols, interp=interp, interpretation=interpretation, data_width=32,
                      start_row=row, start_col=col)


@pytest.mark.parametrize("elems, text", [
    ([_sig("A", 0, 0), _sig("B", 32, 0)], "signature element B0 lies outside the register space"),
    ([_sig("A", 0, 0), _sig("B", 1, 2, cols=3)], "signature element B0 lies outside the register space"),
    ([_sig("A", 0, 0), _sig("B", -1, 2, interpretation="NotPacked")], "unallocated signature element B0 has start column 2"),
    ([_sig("A", 0, 0), _sig("B", 1, 0, interpretation="NotPacked")], "signature element B0 (NotPacked) is allocated"),
    ([_sig("A", 0, 0), _sig("B", -1, -1)], "signature element B0 (Arb) is not allocated"),
    ([_sig("A", 0, 0, rows=2), _sig("B", 1, 3, cols=1), _sig("C", 1, 3, cols=1)],
     "signature elements A0 and B0 overlap at row 1 column 3"),
    ([_sig("A", 0, 0, cols=2), _sig("B", 0, 2, cols=2, interp=1)], "signature row 0 mixes interpolation modes"),
    ([_sig("SV_Target", 1, 0, interpretation="Target", index=2)], "SV_Target2 is in row 1"),
])
def test_packing_failures_name_the_first_offending_element(elems, text):
    with pytest.raises(check.DxilCheckError, match=re.escape(text)):
        check._check_packing(elems, "VSOut")


def test_packing_of_disjoint_elements_and_same_named_halves_passes():
    check._check_packing([_sig("A", 0, 0, cols=2), _sig("B", 0, 2, cols=2), _sig("C", 1, 0, rows=2)], "VSOut")
    check._check_packing([_sig("A", 0, 0, cols=2), _sig("A", 0, 1, cols=2)], "VSOut")   # one name: not an overlap
    check._check_packing([_sig("A", 0, 0, cols=2), _sig("B", 0, 2, cols=2, interp=1)], "VSIn")   # not interpolated


# ---- which checks run: the SSA-form check under --validate / SHADERBUILD_VALIDATE=1 only (the
# test suite sets it, conftest.py; it costs 2-5% of a warm compile), the rest always

def _compile_counting(monkeypatch, tmp_path, cli_args: list[str]) -> dict[str, int]:
    """Compile a small compute shader through the CLI; how often each function check ran."""
    from shaderbuild.cli import main

    seen = {"_check_ssa": 0, "_check_instructions": 0}

    def counting(name: str):
        real = getattr(check, name)

        def run(f) -> None:
            seen[name] += 1
            real(f)
        return run

    for name in seen:
        monkeypatch.setattr(check, name, counting(name))
    src = tmp_path / "k.hlsl"
    src.write_text("RWStructuredBuffer<uint> o : register(u0);\n"
                   "[numthreads(1, 1, 1)] void main(uint3 t : SV_DispatchThreadID) { o[t.x] = t.x * 2; }\n")
    assert main(["compile", str(src), "-T", "cs_6_0", "-o", str(tmp_path / "k.dxil"), *cli_args]) == 0
    return seen


def test_ssa_check_runs_under_validate(monkeypatch, tmp_path):
    monkeypatch.delenv("SHADERBUILD_VALIDATE", raising=False)
    assert _compile_counting(monkeypatch, tmp_path, ["--validate"]) == {"_check_ssa": 1, "_check_instructions": 1}


def test_plain_compile_checks_instructions_but_not_ssa(monkeypatch, tmp_path):
    monkeypatch.delenv("SHADERBUILD_VALIDATE", raising=False)
    assert _compile_counting(monkeypatch, tmp_path, []) == {"_check_ssa": 0, "_check_instructions": 1}


def test_library_container_self_check():
    """check_library_container reads the RDAT part back: a function table that lost a shader is an
    internal error, not a container the runtime rejects."""
    import pytest as _pytest
    from shaderbuild_dxil import check as dxcheck
    from shaderbuild_dxil.backend import compile_dxil
    from shaderbuild_dxil.container import build_container
    from shaderbuild_dxil.rdat import rdat_part

    from shaderbuild.compiler import compile_file
    from shaderbuild.options import CompileOptions

    src = ("struct P { float4 c; };\n"
           "[shader(\"miss\")] void ms(inout P p) { p.c = 1; }\n"
           "[shader(\"closesthit\")] void ch(inout P p, BuiltInTriangleIntersectionAttributes a) { p.c = 2; }\n")
    opts = CompileOptions(profile="lib_6_3", entry="", target="dxil")
    res = compile_file("lib.hlsl", opts, text=src, keep_module=True)
    assert res.ok
    out = compile_dxil(res.module, opts)      # the module after the passes (kept by compile_file)
    dxcheck.check_library_container(out.lowered, out.container)
    out.info.rdat = rdat_part([], [], [])     # no function records
    with _pytest.raises(dxcheck.DxilCheckError, match="function records"):
        dxcheck.check_library_container(out.lowered, build_container(out.info))
