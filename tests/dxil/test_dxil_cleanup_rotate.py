"""Loop rotation (rotate.rotate_loops) on hand-built functions: the shape it leaves, the loops it leaves alone,
and the values a small evaluator of the functions gives before and after (the same evaluator on the function
as built is the reference)."""

from __future__ import annotations

import pytest
from shaderbuild_dxil.llvm import FunctionType, IRBuilder, i1, i32, void
from shaderbuild_dxil.llvm.values import BasicBlock, ConstInt, Function, Instruction, Value
from shaderbuild_dxil.rotate import rotate_loops


def c(v: int) -> ConstInt:
    return ConstInt(i32, v)


def record_fn() -> Function:
    """`record(x)`: the evaluator appends x to what the function gives."""
    return Function(FunctionType(void, (i32,)), "record")


def evaluate(f: Function, args: tuple[int, ...] = (), fuel: int = 10_000) -> list[int]:
    """Run `f` on `args` (phi, add, sub, xor, icmp slt/eq, br, call record, ret) and list what it records."""
    vals: dict[Value, int] = dict(zip(f.args, args))
    out: list[int] = []

    def val(v: Value) -> int:
        return v.value if isinstance(v, ConstInt) else vals[v]

    bb, prev = f.blocks[0], None
    while fuel:
        fuel -= 1
        insts = bb.instructions
        phis = [i for i in insts if i.op == "phi"]
        new = {p: val(next(v for v, q in p.attrs["incoming"] if q is prev)) for p in phis}
        vals.update(new)
        for i in insts[len(phis):]:
            ops = [o for o in i.operands if not isinstance(o, Function)]
            if i.op in ("add", "sub", "xor"):
                a, b = map(val, ops)
                vals[i] = a + b if i.op == "add" else a - b if i.op == "sub" else a ^ b
            elif i.op == "icmp":
                a, b = map(val, ops)
                vals[i] = int(a < b if i.attrs["pred"] == "slt" else a == b)
            elif i.op == "call":
                out.append(val(ops[0]))
            elif i.op == "ret":
                return out
            elif i.op == "br":
                targets = i.attrs["targets"]
                prev, bb = bb, targets[0] if not ops or val(ops[0]) else targets[1]
            else:
                raise AssertionError(i.op)
    raise AssertionError("out of fuel")


def counting_loop(n: int | None = None) -> tuple[Function, dict[str, BasicBlock], dict[str, Instruction]]:
    """entry: br head; head: i = phi [0, entry], [next, latch]; t = i < n; br t, body, exit;
    body: record(i); br latch; latch: next = i + 1; br head; exit: record(i + 100); ret.  `n`: a constant,
    or (None) the function's argument."""
    f = Function(FunctionType(void, (i32,)), "main")
    blocks = {name: f.append_block(name) for name in ("entry", "head", "body", "latch", "exit")}
    rec = record_fn()
    b = IRBuilder(blocks["entry"])
    b.br(blocks["head"])
    b.position_at_end(blocks["head"])
    i = b.phi(i32, [(c(0), blocks["entry"])])
    t = b.icmp("slt", i, f.args[0] if n is None else c(n))
    b.cbranch(t, blocks["body"], blocks["exit"])
    b.position_at_end(blocks["body"])
    b.call(rec, [i])
    b.br(blocks["latch"])
    b.position_at_end(blocks["latch"])
    nxt = b.add(i, c(1))
    b.br(blocks["head"])
    i.attrs["incoming"].append((nxt, blocks["latch"]))
    b.position_at_end(blocks["exit"])
    after = b.add(i, c(100))
    b.call(rec, [after])
    b.ret()
    return f, blocks, {"i": i, "t": t, "next": nxt, "after": after}


@pytest.mark.parametrize("n", [0, 1, 3])
def test_a_loop_testing_in_its_header_becomes_a_guarded_do_while(n):
    f, bl, v = counting_loop()
    want = evaluate(f, (n,))
    assert want == [*range(n), max(n, 0) + 100]            # the evaluator itself, on the loop as built
    assert rotate_loops(f)
    assert bl["head"] not in f.blocks
    entry, body, latch, exit_ = bl["entry"], bl["body"], bl["latch"], bl["exit"]
    guard = entry.instructions[-1]
    assert guard.attrs["targets"] == (body, exit_)
    copy = guard.operands[0]
    assert copy is not v["t"] and copy.op == "icmp" and copy.operands[0].value == 0 and copy.parent is entry
    assert copy.operands[1] is f.args[0]
    bottom = latch.instructions[-1]
    assert bottom.operands == [v["t"]] and bottom.attrs["targets"] == (body, exit_)
    assert v["t"].parent is latch and v["t"].operands[0] is v["next"]   # the test reads the next value
    phi = body.instructions[0]
    assert phi.op == "phi" and [(getattr(x, "value", x), q) for x, q in phi.attrs["incoming"]] == [
        (0, entry), (v["next"], latch)]
    assert v["next"].operands[0] is phi                                 # the body reads this iteration's i
    at_exit = exit_.instructions[0]
    assert at_exit.op == "phi" and v["after"].operands[0] is at_exit
    assert evaluate(f, (n,)) == want
    assert not rotate_loops(f)                                          # the latch tests now: nothing to rotate


@pytest.mark.parametrize("n", [0, 2])
def test_a_loop_whose_guard_would_be_constant_stays(n):
    """`for (i = 0; i < n; i++)` with n constant: the guard would be `0 < n`; such loops are not rotated (with
    the guard folded or not, rotating them made dxil-spirv reject campaign programs it converted unrotated)."""
    f, bl, v = counting_loop(n)
    assert not rotate_loops(f)
    assert bl["head"] in f.blocks and bl["entry"].instructions[-1].attrs["targets"] == (bl["head"],)


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_a_header_phi_whose_back_edge_value_is_another_header_phi(n):
    """A swap: head: a = phi [1, entry], [b, latch]; b = phi [2, entry], [a, latch]; the rotated body's phis
    take the previous iteration's values, not the ones the moved header code computes."""
    f = Function(FunctionType(void, (i32,)), "main")
    entry, head, body, exit_ = (f.append_block(x) for x in ("entry", "head", "body", "exit"))
    rec = record_fn()
    bld = IRBuilder(entry)
    bld.br(head)
    bld.position_at_end(head)
    k = bld.phi(i32, [(c(0), entry)])
    a = bld.phi(i32, [(c(1), entry)])
    b = bld.phi(i32, [(c(2), entry)])
    bld.cbranch(bld.icmp("slt", k, f.args[0]), body, exit_)
    bld.position_at_end(body)
    bld.call(rec, [bld.sub(a, b)])
    k1 = bld.add(k, c(1))
    bld.br(head)
    k.attrs["incoming"].append((k1, body))
    a.attrs["incoming"].append((b, body))
    b.attrs["incoming"].append((a, body))
    bld.position_at_end(exit_)
    bld.call(rec, [a])
    bld.call(rec, [b])
    bld.ret()
    want = evaluate(f, (n,))
    assert want == [(-1, 1)[j % 2] for j in range(n)] + ([1, 2] if n % 2 == 0 else [2, 1])
    assert rotate_loops(f)
    assert head not in f.blocks and evaluate(f, (n,)) == want


def test_a_forwarded_phi_standing_for_a_header_value_is_rewritten():
    """The SSA construction's trivial phis are still used when the clean-up rotates: a use of one that
    stands for the header's phi reads the body's phi after rotation (not the header's, which goes)."""
    f, bl, v = counting_loop()
    want = evaluate(f, (2,))
    fwd = Instruction("phi", i32, [], incoming=[])                # forwarded to i; used in the body
    call = bl["body"].instructions[0]
    call.operands[1] = fwd
    assert rotate_loops(f, {fwd: v["i"]})
    assert call.operands[1] is bl["body"].instructions[0] and call.operands[1].op == "phi"
    assert evaluate(f, (2,)) == want


def test_the_copies_get_the_originals_locations():
    f, bl, v = counting_loop()
    locs = {v["t"]: (7, 3, None, None)}
    assert rotate_loops(f, None, locs)
    copy = bl["entry"].instructions[-1].operands[0]
    assert locs[copy] == (7, 3, None, None)


def test_loops_left_alone():
    """A header with a call (a copy would run it in other control flow), a loop testing at the bottom
    already (a do-while), and a header entered from two blocks outside the loop stay as they are."""
    f, bl, v = counting_loop(2)
    head = bl["head"].instructions
    call = Instruction("call", void, [record_fn(), c(5)])
    call.parent = bl["head"]
    head.insert(len(head) - 1, call)
    assert not rotate_loops(f)
    d = Function(FunctionType(void, ()), "main")
    entry, body, exit_ = (d.append_block(x) for x in ("entry", "body", "exit"))
    bld = IRBuilder(entry)
    bld.br(body)
    bld.position_at_end(body)
    i = bld.phi(i32, [(c(0), entry)])
    nxt = bld.add(i, c(1))
    bld.cbranch(bld.icmp("slt", nxt, c(3)), body, exit_)
    i.attrs["incoming"].append((nxt, body))
    bld.position_at_end(exit_)
    bld.ret()
    assert not rotate_loops(d)
    g = Function(FunctionType(void, ()), "main")
    entry, other, head, body, exit_ = (g.append_block(x) for x in ("entry", "other", "head", "body", "exit"))
    bld = IRBuilder(entry)
    bld.cbranch(ConstInt(i1, 1), head, other)
    bld.position_at_end(other)
    bld.br(head)
    bld.position_at_end(head)
    i = bld.phi(i32, [(c(0), entry), (c(1), other)])
    bld.cbranch(bld.icmp("slt", i, c(3)), body, exit_)
    bld.position_at_end(body)
    nxt = bld.add(i, c(1))
    bld.br(head)
    i.attrs["incoming"].append((nxt, body))
    bld.position_at_end(exit_)
    bld.ret()
    assert not rotate_loops(g)


ZI_SOURCE = """RWStructuredBuffer<int> Out : register(u0);
[numthreads(4, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
    int v = 0;
    switch ((int)tid.x) {
    case 0: {
        if (tid.y > 5) break;
        v += 1;
    }
    case 1: {
        v = v * 7 + 10;
        break;
    }
    }
    int i = 0;
    while (i * 3 < v) { i++; }
    Out[tid.x] = v + i;
}
"""


def test_copies_keep_their_debug_locations():
    """-Zi: the case copied for the case falling into it (`v = v * 7 + 10`, line 11) and the rotated loop's
    guard (`i * 3 < v`, line 16) carry their originals' locations: every mul of the debug module's function
    has a !dbg, at the line of its statement."""
    import re
    import struct

    from harness import tools
    from harness.dxil_tools import container_parts, patch_datalayout_i8

    from shaderbuild.compiler import compile_file
    from shaderbuild.options import CompileOptions

    opts = CompileOptions(entry="main", profile="cs_6_0", target="dxil", debug_info=True, embed_debug=True)
    res = compile_file("zi.hlsl", opts, text=ZI_SOURCE)
    assert res.ok and res.binary is not None
    part = container_parts(res.binary)["ILDB"]
    offset, size = struct.unpack_from("<II", part, 16)
    with tools.TempInput(patch_datalayout_i8(part[8 + offset:8 + offset + size]), ".bc") as path:
        ir = tools.run_tool(["llvm-dis-19", str(path), "-o", "-"]).stdout.decode()
    nodes = dict(re.findall(r"^(!\d+) = (.*)$", ir, re.M))
    muls = re.findall(r"= mul i32 .*", ir)
    assert len(muls) >= 4                       # v * 7 twice (the case and its copy), i * 3 twice (guard, bottom)
    lines = []
    for m in muls:
        ref = re.search(r"!dbg (!\d+)", m)
        assert ref, f"no location: {m}"
        lines.append(int(re.search(r"line: (\d+)", nodes[ref[1]])[1]))
    assert sorted(set(lines)) == [11, 16] and lines.count(11) >= 2 and lines.count(16) >= 2


@pytest.mark.parametrize(("pred", "a", "b", "negate", "taken"), [
    ("slt", 0, 0, False, "no"), ("slt", -1, 0, False, "yes"), ("ult", -1, 0, False, "no"),
    ("uge", -1, 0, False, "yes"), ("eq", 3, 3, True, "yes"), ("sgt", 2, -5, True, "yes")])
def test_a_branch_on_a_compare_of_constants_goes_to_its_target(pred, a, b, negate, taken):
    """`br (icmp pred a, b)` (or its i1 xor with true) folds as InstCombine would fold the compare: signed
    predicates read the constants signed, unsigned ones as they are stored; one operand a forwarded phi.
    `taken`: the target the compare itself picks (the xor then picks the other)."""
    from shaderbuild_dxil.cfg import fold_constant_branches

    f = Function(FunctionType(void, ()), "main")
    entry, yes, no = (f.append_block(x) for x in ("entry", "yes", "no"))
    bld = IRBuilder(entry)
    fwd = Instruction("phi", i32, [], incoming=[])
    cond = bld.icmp(pred, fwd, c(b))
    if negate:
        cond = bld.xor(cond, ConstInt(i1, 1))
    bld.cbranch(cond, yes, no)
    for bb in (yes, no):
        bld.position_at_end(bb)
        bld.ret()
    assert fold_constant_branches(f, {fwd: c(a)})
    want = {"yes": yes, "no": no}[taken]
    if negate:
        want = no if want is yes else yes
    assert entry.instructions[-1].attrs["targets"] == (want,)
