"""The DXIL clean-up passes on hand-built functions: the paths the sample shaders rarely take
(uses laid out before their definition's block, stale `parent` links, forwarded values)."""

from __future__ import annotations

import pytest
from shaderbuild_dxil.cfg import (
    bypass_break_blocks,
    bypass_continue_blocks,
    duplicate_fallen_into_cases,
    fold_constant_branches,
    fold_trivial_switches,
    give_endless_loops_an_exit,
    merge_straight_line_blocks,
    remove_unreachable_blocks,
)
from shaderbuild_dxil.cleanup import clean_up
from shaderbuild_dxil.cse import eliminate_common_calls
from shaderbuild_dxil.dce import eliminate_dead_code, remove_dead_code
from shaderbuild_dxil.llvm import FunctionType, IRBuilder, f32, i1, i8, i32, void
from shaderbuild_dxil.llvm.values import ConstFloat, ConstInt, Function, Instruction, Undef
from shaderbuild_dxil.mem2reg import prune_trivial_phis
from shaderbuild_dxil.undef_outputs import remove_undef_among


def function(*names: str) -> tuple[Function, list]:
    f = Function(FunctionType(void, ()), "main")
    return f, [f.append_block(n) for n in names]


def readnone(name: str = "dx.op.unary.f32") -> Function:
    return Function(FunctionType(f32, (i32, f32)), name, ("nounwind", "readnone"))


def all_instructions(f: Function) -> list[Instruction]:
    return [i for bb in f.blocks for i in bb.instructions]


def test_cse_rewrites_a_use_laid_out_before_the_merged_block():
    """Block `late` (laid out last) merges a duplicate call; `early` is laid out first but runs
    after `late`, so its use is only rewritten by the pass after the walk."""
    f, (entry, early, late) = function("entry", "early", "late")
    fn = readnone()
    b = IRBuilder(entry)
    b.br(late)
    b.position_at_end(late)
    first = b.call(fn, [ConstInt(i32, 13), ConstFloat(f32, 1.0)])
    dup = b.call(fn, [ConstInt(i32, 13), ConstFloat(f32, 1.0)])      # equal constants, new objects
    b.br(early)
    b.position_at_end(early)
    user = b.fadd(dup, first)
    b.ret()
    assert eliminate_common_calls(f) == 1
    assert dup not in all_instructions(f)
    assert user.operands == [first, first]


def test_cse_rewrites_phis_and_keeps_calls_of_different_opcodes():
    f, (entry, left, join) = function("entry", "left", "join")
    fn = readnone()
    b = IRBuilder(entry)
    a = b.call(fn, [ConstInt(i32, 13), ConstFloat(f32, 2.0)])
    other = b.call(fn, [ConstInt(i32, 14), ConstFloat(f32, 2.0)])    # another opcode: kept
    dup = b.call(fn, [ConstInt(i32, 13), ConstFloat(f32, 2.0)])
    b.cbranch(b.fcmp("olt", a, other), left, join)
    b.position_at_end(left)
    b.br(join)
    b.position_at_end(join)
    phi = b.phi(f32, [(dup, entry), (other, left)])
    b.ret()
    assert eliminate_common_calls(f) == 1
    assert [v for v, _ in phi.attrs["incoming"]] == [a, other]


def test_dce_removes_chains_even_with_a_stale_parent():
    f, (entry,) = function("entry")
    fn = readnone()
    b = IRBuilder(entry)
    x = b.call(fn, [ConstInt(i32, 13), ConstFloat(f32, 3.0)])
    y = b.fmul(x, x)
    z = b.fadd(y, ConstFloat(f32, 1.0))               # nothing uses z: z, y and x die
    keep = b.call(Function(FunctionType(void, (i32,)), "dx.op.barrier", ()), [ConstInt(i32, 80)])
    b.ret()
    elsewhere, = function("elsewhere")[1]
    for inst in (x, y, z):
        inst.parent = elsewhere                       # stale: the pass must not trust it blindly
    assert eliminate_dead_code(f) == 3
    assert all_instructions(f) == [keep, entry.instructions[-1]]
    assert z not in all_instructions(f)


def test_prune_applies_forwarded_values_and_keeps_the_last_equal_constant():
    f, (entry, left, right, join) = function("entry", "left", "right", "join")
    b = IRBuilder(entry)
    c = b.fcmp("olt", ConstFloat(f32, 0.0), ConstFloat(f32, 1.0))
    b.cbranch(c, left, right)
    for bb in (left, right):
        b.position_at_end(bb)
        b.br(join)
    b.position_at_end(join)
    one_a, one_b = ConstFloat(f32, 1.0), ConstFloat(f32, 1.0)
    trivial = b.phi(f32, [(one_a, left), (one_b, right)])       # `c ? 1.0 : 1.0`
    forwarded = Instruction("phi", f32, [], incoming=[])         # made by SSA construction, not placed
    real = b.phi(f32, [(forwarded, left), (one_a, right)])
    user = b.fadd(trivial, forwarded)
    b.ret()
    prune_trivial_phis(f, {forwarded: ConstFloat(f32, 5.0)})
    assert trivial not in join.instructions and real in join.instructions
    assert user.operands[0] is one_b
    assert user.operands[1].value == 5.0 and real.attrs["incoming"][0][0].value == 5.0


@pytest.mark.parametrize("given_preds", [False, True])
def test_merge_folds_a_chain_and_repoints_phis(given_preds):
    """The same with the predecessor table built here or handed over by the unreachable-block
    search (whose search order differs from the layout order)."""
    f, (entry, mid, tail, other, join) = function("entry", "mid", "tail", "other", "join")
    b = IRBuilder(entry)
    c = b.fcmp("olt", ConstFloat(f32, 0.0), ConstFloat(f32, 1.0))
    b.cbranch(c, mid, other)
    b.position_at_end(mid)
    v = b.fadd(ConstFloat(f32, 1.0), ConstFloat(f32, 2.0))
    b.br(tail)
    b.position_at_end(tail)
    w = b.fmul(v, v)
    b.br(join)
    b.position_at_end(other)
    b.br(join)
    b.position_at_end(join)
    phi = b.phi(f32, [(w, tail), (v, other)])
    b.ret()
    merge_straight_line_blocks(f, remove_unreachable_blocks(f) if given_preds else None)
    assert f.blocks == [entry, mid, other, join]
    assert [i.op for i in mid.instructions] == ["fadd", "fmul", "br"] and w.parent is mid
    assert [blk for _, blk in phi.attrs["incoming"]] == [mid, other]


def test_cse_pending_target_merged_later_is_followed():
    """A pending replacement (forwarded phi -> x) whose target x is itself merged by CSE: the
    phi's later uses get the kept call, not x (no chains)."""
    f, (entry,) = function("entry")
    fn = readnone()
    b = IRBuilder(entry)
    first = b.call(fn, [ConstInt(i32, 13), ConstFloat(f32, 4.0)])
    x = b.call(fn, [ConstInt(i32, 13), ConstFloat(f32, 4.0)])          # merged into `first`
    forwarded = Instruction("phi", f32, [], incoming=[])
    user = b.fadd(forwarded, x)
    b.ret()
    assert eliminate_common_calls(f, {forwarded: x}) == 1
    assert user.operands == [first, first]


def test_cse_hooks_see_rewritten_calls():
    f, (entry,) = function("entry")
    store = Function(FunctionType(void, (i32, i32, i8, f32)), "dx.op.storeOutput.f32", ("nounwind",))
    fn = readnone()
    b = IRBuilder(entry)
    forwarded = Instruction("phi", f32, [], incoming=[])
    s1 = b.call(store, [ConstInt(i32, 5), ConstInt(i32, 0), ConstInt(i8, 0), forwarded])
    s2 = b.call(store, [ConstInt(i32, 5), ConstInt(i32, 0), ConstInt(i8, 1), ConstFloat(f32, 1.0)])
    b.call(fn, [ConstInt(i32, 13), ConstFloat(f32, 4.0)])
    b.ret()
    asked, seen = [], []

    def hook_for(callee):
        asked.append(callee)
        return seen.append if callee is store else None

    eliminate_common_calls(f, {forwarded: Undef(f32)}, hook_for)
    assert asked == [store, fn]                       # once per callee
    assert seen == [s1, s2] and isinstance(s1.operands[4], Undef)     # after the rewrite


def test_undef_stores_among_given_ones_go_even_with_a_stale_parent():
    f, (entry,) = function("entry")
    store = Function(FunctionType(void, (i32, i32, i32, i8, f32)), "dx.op.storeOutput.f32", ("nounwind",))
    b = IRBuilder(entry)
    s1 = b.call(store, [ConstInt(i32, 5), ConstInt(i32, 0), ConstInt(i32, 0), ConstInt(i8, 0), Undef(f32)])
    s2 = b.call(store, [ConstInt(i32, 5), ConstInt(i32, 0), ConstInt(i32, 0), ConstInt(i8, 1), ConstFloat(f32, 1.0)])
    b.ret()
    s1.parent = function("elsewhere")[1][0]
    assert remove_undef_among(f, [s1, s2]) == [s2]
    assert all_instructions(f) == [s2, entry.instructions[-1]]


def test_dce_counts_tell_what_is_left():
    f, (entry,) = function("entry")
    fn = readnone()
    b = IRBuilder(entry)
    x = b.call(fn, [ConstInt(i32, 13), ConstFloat(f32, 3.0)])
    dead = b.call(readnone("dx.op.unary.other"), [ConstInt(i32, 14), x])
    store = Function(FunctionType(void, (i32, i32, i8, f32)), "dx.op.storeOutput.f32", ("nounwind",))
    b.call(store, [ConstInt(i32, 5), ConstInt(i32, 0), ConstInt(i8, 0), x])
    b.ret()
    removed, uses = remove_dead_code(f)
    assert removed == 1 and dead not in all_instructions(f)
    assert uses[x] > 0 and uses[fn] > 0 and uses[store] > 0
    assert uses[dead.operands[0]] == 0                # its only call died


def test_clean_up_reports_callees_and_io_calls_left():
    """The fused clean-up: the undef store goes, the duplicate and the unused input reads go,
    and what it reports matches a walk of what is left."""
    f, (entry, body) = function("entry", "body")
    load = Function(FunctionType(f32, (i32, i32, i32, i8, i32)), "dx.op.loadInput.f32", ("nounwind", "readnone"))
    store = Function(FunctionType(void, (i32, i32, i32, i8, f32)), "dx.op.storeOutput.f32", ("nounwind",))
    b = IRBuilder(entry)
    b.br(body)
    b.position_at_end(body)
    args = [ConstInt(i32, 4), ConstInt(i32, 0), ConstInt(i32, 0), ConstInt(i8, 0), Undef(i32)]
    a = b.call(load, args)
    dup = b.call(load, [ConstInt(i32, 4), ConstInt(i32, 0), ConstInt(i32, 0), ConstInt(i8, 0), Undef(i32)])
    unused = b.call(load, [ConstInt(i32, 4), ConstInt(i32, 1), ConstInt(i32, 0), ConstInt(i8, 0), Undef(i32)])
    forwarded = Instruction("phi", f32, [], incoming=[])
    s1 = b.call(store, [ConstInt(i32, 5), ConstInt(i32, 0), ConstInt(i32, 0), ConstInt(i8, 0), b.fadd(a, dup)])
    s2 = b.call(store, [ConstInt(i32, 5), ConstInt(i32, 0), ConstInt(i32, 0), ConstInt(i8, 1), forwarded])
    b.ret()
    cleaned = clean_up(f, {forwarded: Undef(f32)}, optimize=True)
    left = all_instructions(f)
    assert dup not in left and unused not in left and s2 not in left
    assert f.blocks == [entry]                        # body folded into the entry
    assert cleaned.callees == {load, store}
    assert sorted(map(id, cleaned.io_calls)) == sorted(map(id, [a, s1]))
    assert cleaned.callees == {i.operands[0] for i in left if i.op == "call"}


def test_unreachable_blocks_go_with_their_phi_incomings():
    f, (entry, orphan, join) = function("entry", "orphan", "join")
    b = IRBuilder(entry)
    b.br(join)
    b.position_at_end(orphan)                         # nothing branches here
    b.br(join)
    b.position_at_end(join)
    one, two = ConstFloat(f32, 1.0), ConstFloat(f32, 2.0)
    phi = b.phi(f32, [(one, entry), (two, orphan)])
    other = b.phi(f32, [(two, entry)])
    b.ret()
    remove_unreachable_blocks(f)
    assert f.blocks == [entry, join]
    assert phi.attrs["incoming"] == [(one, entry)] and other.attrs["incoming"] == [(two, entry)]


def _loop_with_continue_blocks(latch_phi: bool = False, switch: bool = False):
    """entry -> head; head: br c, exit, body; body: br c2 | switch -> cont, rest; cont: br latch (a
    `continue`); rest: store, br join; join: br latch (the end of the body); latch: br head."""
    f, (entry, head, body, cont, rest, join, latch, exit_) = function(
        "entry", "head", "body", "cont", "rest", "join", "latch", "exit")
    store = Function(FunctionType(void, (i32,)), "dx.op.store", ())
    b = IRBuilder(entry)
    b.br(head)
    b.position_at_end(head)
    c = b.fcmp("olt", ConstFloat(f32, 0.0), ConstFloat(f32, 1.0))
    b.cbranch(c, exit_, body)
    b.position_at_end(body)
    if switch:
        b.switch(ConstInt(i32, 3), rest, [(ConstInt(i32, 1), cont)])
    else:
        b.cbranch(b.fcmp("olt", ConstFloat(f32, 2.0), ConstFloat(f32, 1.0)), cont, rest)
    b.position_at_end(cont)
    b.br(latch)
    b.position_at_end(rest)
    b.call(store, [ConstInt(i32, 1)])
    b.br(join)
    b.position_at_end(join)
    b.br(latch)
    b.position_at_end(latch)
    if latch_phi:
        b.phi(i32, [(ConstInt(i32, 1), cont), (ConstInt(i32, 2), join)])
    b.br(head)
    b.position_at_end(exit_)
    b.ret()
    return f, (entry, head, body, cont, rest, join, latch, exit_)


def test_continue_blocks_are_bypassed_and_the_latch_stays():
    f, (entry, head, body, cont, rest, join, latch, exit_) = _loop_with_continue_blocks()
    assert bypass_continue_blocks(f)
    assert f.blocks == [entry, head, body, rest, latch, exit_]
    assert body.instructions[-1].attrs["targets"] == (latch, rest)
    assert rest.instructions[-1].attrs["targets"] == (latch,)
    assert latch.instructions[-1].attrs["targets"] == (head,)        # one latch, still its own block


def test_a_latch_with_phis_takes_one_incoming_per_predecessor():
    """The `continue` block goes; the body's own end (join, the latch's last predecessor) keeps its block
    into a latch with phis (dxil-spirv mis-structured an inner loop before a continue without it)."""
    f, (entry, head, body, cont, rest, join, latch, exit_) = _loop_with_continue_blocks(latch_phi=True)
    assert bypass_continue_blocks(f)
    assert f.blocks == [entry, head, body, rest, join, latch, exit_]
    assert body.instructions[-1].attrs["targets"] == (latch, rest)
    assert rest.instructions[-1].attrs["targets"] == (join,)
    phi = latch.instructions[0]
    assert [(v.value, bb) for v, bb in phi.attrs["incoming"]] == [(1, body), (2, join)]


def test_a_block_whose_predecessor_already_enters_a_latch_with_phis_stays():
    """One edge cannot carry two phi values: body's second empty arm into the latch keeps its block."""
    f, (entry, head, body, cont, rest, join, latch, exit_) = _loop_with_continue_blocks(latch_phi=True)
    body.instructions[-1].attrs["targets"] = (cont, join)       # both arms empty: br c, cont, join
    f.blocks.remove(rest)
    assert bypass_continue_blocks(f)
    assert f.blocks == [entry, head, body, join, latch, exit_]
    assert body.instructions[-1].attrs["targets"] == (latch, join)
    phi = latch.instructions[0]
    assert [(v.value, bb) for v, bb in phi.attrs["incoming"]] == [(1, body), (2, join)]


def test_a_block_a_switch_enters_stays():
    f, (entry, head, body, cont, rest, join, latch, exit_) = _loop_with_continue_blocks(switch=True)
    assert bypass_continue_blocks(f)                                   # join (entered by a br) goes
    assert f.blocks == [entry, head, body, cont, rest, latch, exit_]
    assert cont.instructions[-1].attrs["targets"] == (latch,)


def test_a_branch_whose_two_targets_become_the_latch_is_unconditional():
    f, (entry, head, body, cont, rest, join, latch, exit_) = _loop_with_continue_blocks()
    body.instructions[-1].attrs["targets"] = (cont, join)       # both arms empty: br c, cont, join
    f.blocks.remove(rest)
    assert bypass_continue_blocks(f)
    term = body.instructions[-1]
    assert term.attrs["targets"] == (latch,) and not term.operands


def _loop_with_an_early_exit(shared: bool):
    """entry -> head; head: br c, out, body; out: br exit (the header's exit); body: br c2, early, latch;
    early: br exit (a `break`, or a `return` when `shared`); latch: br head; exit: ret.  With `shared`, exit is
    the function's return block, also entered after the loop: out: store, br after; after: br exit."""
    names = ["entry", "head", "out", "body", "early", "latch", "exit"] + (["after"] if shared else [])
    f, blocks = function(*names)
    entry, head, out, body, early, latch, exit_ = blocks[:7]
    store = Function(FunctionType(void, (i32,)), "dx.op.store", ())
    b = IRBuilder(entry)
    b.br(head)
    b.position_at_end(head)
    b.cbranch(b.fcmp("olt", ConstFloat(f32, 0.0), ConstFloat(f32, 1.0)), out, body)
    b.position_at_end(out)
    if shared:
        b.call(store, [ConstInt(i32, 1)])
        b.br(blocks[7])
        b.position_at_end(blocks[7])
        b.call(store, [ConstInt(i32, 2)])
    b.br(exit_)
    b.position_at_end(body)
    b.cbranch(b.fcmp("olt", ConstFloat(f32, 2.0), ConstFloat(f32, 1.0)), early, latch)
    b.position_at_end(early)
    b.br(exit_)
    b.position_at_end(latch)
    b.br(head)
    b.position_at_end(exit_)
    b.ret()
    return f, blocks


def test_break_blocks_into_the_loops_own_exit_are_bypassed():
    f, (entry, head, out, body, early, latch, exit_) = _loop_with_an_early_exit(shared=False)
    assert bypass_break_blocks(f)
    assert f.blocks == [entry, head, body, latch, exit_]
    assert head.instructions[-1].attrs["targets"] == (exit_, body)
    assert body.instructions[-1].attrs["targets"] == (exit_, latch)


def test_a_return_block_entered_after_the_loop_keeps_its_break_block():
    """dxil-spirv did not finish converting a `return` inside a loop sent straight to the shared return block."""
    f, blocks = _loop_with_an_early_exit(shared=True)
    assert not bypass_break_blocks(f)
    assert f.blocks == list(blocks)


def _switch_into_phis(selector) -> tuple:
    """entry: switch selector, b (default), [1 -> a, 2 -> a]; a, b: br join; join: phi [10, a] [20, b], ret."""
    f, (entry, a, b, join) = function("entry", "a", "b", "join")
    bld = IRBuilder(entry)
    bld.switch(selector, b, [(ConstInt(i32, 1), a), (ConstInt(i32, 2), a)])
    for bb in (a, b):
        bld.position_at_end(bb)
        bld.br(join)
    bld.position_at_end(join)
    phi = bld.phi(i32, [(ConstInt(i32, 10), a), (ConstInt(i32, 20), b)])
    bld.ret()
    return f, (entry, a, b, join), phi



def test_a_case_fallen_into_gets_a_copy_for_the_falling_case():
    """entry: switch x, m (default), [1 -> a, 0 -> c]; a: br c (falls through); c: phi [1, entry] [2, a],
    s = c.phi + 3, br m; m: phi [0, entry] [s, c], ret.  a now enters a copy of c (its phi read as 2, the add
    copied), m's phi takes the copy's sum from it, and c keeps the switch's incoming only.  A switch whose
    cases do not fall through is left alone (a second run)."""
    f, (entry, a, c, m) = function("entry", "a", "c", "m")
    x = Function(FunctionType(i32, ()), "x")
    b = IRBuilder(entry)
    sel = b.call(x, [])
    b.switch(sel, m, [(ConstInt(i32, 1), a), (ConstInt(i32, 0), c)])
    b.position_at_end(a)
    b.br(c)
    b.position_at_end(c)
    cphi = b.phi(i32, [(ConstInt(i32, 1), entry), (ConstInt(i32, 2), a)])
    s = b.add(cphi, ConstInt(i32, 3))
    b.br(m)
    b.position_at_end(m)
    mphi = b.phi(i32, [(ConstInt(i32, 0), entry), (s, c)])
    b.ret()
    assert duplicate_fallen_into_cases(f)
    assert [bb.name for bb in f.blocks] == ["entry", "a", "c.dup", "c", "m"]
    copy = f.blocks[2]
    assert a.instructions[-1].attrs["targets"] == (copy,)
    add, br = copy.instructions
    assert add.op == "add" and add is not s and [o.value for o in add.operands] == [2, 3]
    assert br.attrs["targets"] == (m,)
    assert [(v.value, bb) for v, bb in cphi.attrs["incoming"]] == [(1, entry)]
    assert [(v, bb) for v, bb in mphi.attrs["incoming"]][1:] == [(s, c), (add, copy)]
    assert not duplicate_fallen_into_cases(f)



def test_a_case_of_several_blocks_fallen_into_is_copied_whole():
    """entry: switch x, m (default), [1 -> a, 0 -> c]; a: br c; c: br y, d, e; d, e: br m; m: phi [0, entry]
    [1, d] [2, e].  The case's three blocks are copied before c, the copy of c branching to the copies of d
    and e; a enters the copy; m's phi takes 1 and 2 from the copies too."""
    f, (entry, a, c, d, e, m) = function("entry", "a", "c", "d", "e", "m")
    x = Function(FunctionType(i32, ()), "x")
    y = Function(FunctionType(i1, ()), "y")
    b = IRBuilder(entry)
    b.switch(b.call(x, []), m, [(ConstInt(i32, 1), a), (ConstInt(i32, 0), c)])
    b.position_at_end(a)
    b.br(c)
    b.position_at_end(c)
    b.cbranch(b.call(y, []), d, e)
    for bb in (d, e):
        b.position_at_end(bb)
        b.br(m)
    b.position_at_end(m)
    phi = b.phi(i32, [(ConstInt(i32, 0), entry), (ConstInt(i32, 1), d), (ConstInt(i32, 2), e)])
    b.ret()
    assert duplicate_fallen_into_cases(f)
    assert [bb.name for bb in f.blocks] == ["entry", "a", "c.dup", "d.dup", "e.dup", "c", "d", "e", "m"]
    c2, d2, e2 = f.blocks[2:5]
    assert a.instructions[-1].attrs["targets"] == (c2,)
    call, br = c2.instructions
    assert call.op == "call" and call is not c.instructions[0] and br.operands == [call]
    assert br.attrs["targets"] == (d2, e2) and c.instructions[-1].attrs["targets"] == (d, e)
    assert [(v.value, bb.name) for v, bb in phi.attrs["incoming"]] == [
        (0, "entry"), (1, "d"), (2, "e"), (1, "d.dup"), (2, "e.dup")]
    assert not duplicate_fallen_into_cases(f)


@pytest.mark.parametrize(("value", "taken"), [(2, "a"), (7, "b")])
def test_a_switch_on_a_constant_becomes_a_branch_to_its_case(value, taken):
    f, (entry, a, b, join), phi = _switch_into_phis(ConstInt(i32, value))
    assert fold_trivial_switches(f)
    remove_unreachable_blocks(f)
    to = {"a": a, "b": b}[taken]
    term = entry.instructions[-1]
    assert term.op == "br" and term.attrs["targets"] == (to,) and not term.operands
    assert f.blocks == [entry, to, join]
    assert [(v.value, bb) for v, bb in phi.attrs["incoming"]] == [({"a": 10, "b": 20}[taken], to)]


def test_a_switch_to_one_block_becomes_a_branch_and_its_phi_keeps_one_incoming():
    """Every case and the default into `a`: the phi of `a` had one incoming per edge; it keeps one."""
    f, (entry, a, b, join) = function("entry", "a", "b", "join")
    bld = IRBuilder(entry)
    sel = bld.fcmp("olt", ConstFloat(f32, 0.0), ConstFloat(f32, 1.0))
    bld.switch(bld.zext(sel, i32), a, [(ConstInt(i32, 0), a), (ConstInt(i32, 4), a)])
    bld.position_at_end(a)
    phi = bld.phi(i32, [(ConstInt(i32, 5), entry)] * 3)
    bld.br(join)
    bld.position_at_end(b)
    bld.br(join)
    bld.position_at_end(join)
    bld.ret()
    assert fold_trivial_switches(f)
    assert entry.instructions[-1].op == "br" and entry.instructions[-1].attrs["targets"] == (a,)
    assert [(v.value, bb) for v, bb in phi.attrs["incoming"]] == [(5, entry)]


def test_a_switch_whose_targets_forward_to_one_block_becomes_a_branch():
    """entry: switch undef, d [0 -> a, 3 -> a, 4 -> b]; a: br b; b: br d; d: br head (head has a phi, so the
    forwarding stops at d); the switch becomes `br d` and a, b become unreachable (shapes program 182)."""
    f, (head, entry, a, b, d, out) = function("head", "entry", "a", "b", "d", "out")
    bld = IRBuilder(head)
    bld.phi(i32, [(ConstInt(i32, 0), d)])
    bld.br(entry)
    bld.position_at_end(entry)
    bld.switch(Undef(i32), d, [(ConstInt(i32, 0), a), (ConstInt(i32, 3), a), (ConstInt(i32, 4), b)])
    for bb, to in ((a, b), (b, d), (d, head)):
        bld.position_at_end(bb)
        bld.br(to)
    bld.position_at_end(out)
    bld.ret()
    assert fold_trivial_switches(f)
    term = entry.instructions[-1]
    assert term.op == "br" and term.attrs["targets"] == (d,)
    remove_unreachable_blocks(f)
    assert a not in f.blocks and b not in f.blocks


def test_a_case_block_with_dead_code_does_not_forward():
    """-O0 runs no DCE and the fold runs before it: entry: switch undef, d [1 -> a]; a: x = add 1, 2; br d; d: ret.
    `a` holds dead code, so the switch stays: folding switches past such blocks made dxil-spirv abort ('detected
    infinite loop') on shapes program 1 of test_differential's seeds."""
    f, (entry, a, d) = function("entry", "a", "d")
    bld = IRBuilder(entry)
    bld.switch(Undef(i32), d, [(ConstInt(i32, 1), a)])
    bld.position_at_end(a)
    bld.add(ConstInt(i32, 1), ConstInt(i32, 2))
    bld.br(d)
    bld.position_at_end(d)
    bld.ret()
    assert not fold_trivial_switches(f)
    assert entry.instructions[-1].op == "switch"


@pytest.mark.parametrize("same", [True, False])
def test_a_case_into_the_default_block_with_the_same_phi_values_goes(same):
    """entry: switch undef, m [1 -> a, 4 -> c]; a: br m; c: br m; m: phi [0, entry] [5, a] [0 or 9, c]; br out.
    Case 4 reaches m as the default does and, when m's phi takes the same value from c as from entry, it goes
    and the phi drops c's incoming once c is unreachable (182 of tag campaign: a `continue` flag's phi)."""
    f, (entry, a, c, m, out) = function("entry", "a", "c", "m", "out")
    bld = IRBuilder(entry)
    bld.switch(Undef(i32), m, [(ConstInt(i32, 1), a), (ConstInt(i32, 4), c)])
    for bb in (a, c):
        bld.position_at_end(bb)
        bld.br(m)
    bld.position_at_end(m)
    phi = bld.phi(i32, [(ConstInt(i32, 0), entry), (ConstInt(i32, 5), a), (ConstInt(i32, 0 if same else 9), c)])
    bld.br(out)
    bld.position_at_end(out)
    bld.ret()
    assert fold_trivial_switches(f) is same
    assert [v.value for v, _b in entry.instructions[-1].attrs["cases"]] == ([1] if same else [1, 4])
    remove_unreachable_blocks(f)
    assert (c in f.blocks) is not same and len(phi.attrs["incoming"]) == (2 if same else 3)


@pytest.mark.parametrize("cond", [1, 0])
def test_a_branch_on_a_constant_goes_to_its_target(cond):
    """entry: br i1 cond, a, b; a: br b; b: phi [7, entry] [8, a]; br join.  When entry takes a, b's phi drops
    entry's incoming; a second run finds nothing to fold."""
    f, (entry, a, b, join) = function("entry", "a", "b", "join")
    bld = IRBuilder(entry)
    bld.cbranch(ConstInt(i1, cond), a, b)
    bld.position_at_end(a)
    bld.br(b)
    bld.position_at_end(b)
    phi_b = bld.phi(i32, [(ConstInt(i32, 7), entry), (ConstInt(i32, 8), a)])
    bld.br(join)
    bld.position_at_end(join)
    bld.ret()
    assert fold_constant_branches(f)
    term = entry.instructions[-1]
    assert term.op == "br" and not term.operands and term.attrs["targets"] == ((a,) if cond else (b,))
    assert [(v.value, bb) for v, bb in phi_b.attrs["incoming"]] == ([(8, a)] if cond else [(7, entry), (8, a)])
    assert not fold_constant_branches(f)


def test_a_branch_on_a_constant_that_is_its_loops_last_exit_stays():
    """entry: br w; h: br body; body: br i1 false, x, h; w: br i1 true, h, x; x: phi [1, w] [2, body] (in that
    layout, body's fold before w's).  Folding body's branch would leave the loop h without an exit: it stays, and
    x's phi keeps body's incoming; w's fold (outside the loop) stays, and the phi drops w's."""
    f, (entry, h, body, w, x) = function("entry", "h", "body", "w", "x")
    bld = IRBuilder(entry)
    bld.br(w)
    bld.position_at_end(h)
    bld.br(body)
    bld.position_at_end(body)
    bld.cbranch(ConstInt(i1, 0), x, h)
    bld.position_at_end(w)
    bld.cbranch(ConstInt(i1, 1), h, x)
    bld.position_at_end(x)
    phi = bld.phi(i32, [(ConstInt(i32, 1), w), (ConstInt(i32, 2), body)])
    bld.ret()
    assert fold_constant_branches(f)
    assert w.instructions[-1].attrs["targets"] == (h,) and not w.instructions[-1].operands
    assert body.instructions[-1].attrs["targets"] == (x, h) and body.instructions[-1].operands[0].value == 0
    assert [(v.value, bb) for v, bb in phi.attrs["incoming"]] == [(2, body)]


def test_a_switch_forwarding_to_a_block_with_phis_keeps_its_cases():
    """a and b forward to join, which has a phi naming them: the switch stays (no case enters its default)."""
    f, (entry, a, b, c, join) = function("entry", "a", "b", "c", "join")
    bld = IRBuilder(entry)
    bld.switch(Undef(i32), c, [(ConstInt(i32, 1), a), (ConstInt(i32, 2), b)])
    for bb in (a, b, c):
        bld.position_at_end(bb)
        bld.br(join)
    bld.position_at_end(join)
    bld.phi(i32, [(ConstInt(i32, 1), a), (ConstInt(i32, 2), b), (ConstInt(i32, 3), c)])
    bld.ret()
    assert not fold_trivial_switches(f)
    assert entry.instructions[-1].op == "switch" and len(entry.instructions[-1].attrs["cases"]) == 2


def test_the_cases_of_a_switch_into_its_default_go_and_its_phi_keeps_one_incoming():
    """`case 5: default:` sharing a body: switch undef, b [1 -> a, 5 -> b, 6 -> b]; the cases 5 and 6 go (as
    LLVM's ConstantFoldTerminator drops them), b's phi had an incoming per edge from entry and keeps one."""
    f, (entry, a, b, join) = function("entry", "a", "b", "join")
    bld = IRBuilder(entry)
    bld.switch(Undef(i32), b, [(ConstInt(i32, 1), a), (ConstInt(i32, 5), b), (ConstInt(i32, 6), b)])
    bld.position_at_end(a)
    bld.br(b)
    bld.position_at_end(b)
    phi = bld.phi(i32, [(ConstInt(i32, 7), entry), (ConstInt(i32, 8), a), (ConstInt(i32, 7), entry),
                        (ConstInt(i32, 7), entry)])
    bld.br(join)
    bld.position_at_end(join)
    bld.ret()
    assert fold_trivial_switches(f)
    term = entry.instructions[-1]
    assert term.op == "switch" and [(v.value, t) for v, t in term.attrs["cases"]] == [(1, a)]
    assert sorted((v.value, bb.name) for v, bb in phi.attrs["incoming"]) == [(7, "entry"), (8, "a")]


def test_a_switch_with_two_targets_on_a_run_time_value_stays():
    f, blocks, phi = _switch_into_phis(Undef(i32))
    assert not fold_trivial_switches(f)
    assert blocks[0].instructions[-1].op == "switch" and len(phi.attrs["incoming"]) == 2



def test_an_endless_loop_gets_a_never_taken_exit_and_a_loop_with_an_exit_does_not():
    """entry: br c, out, head; head: br body; body: br head (no exit); out: ret.  The back edge becomes
    br true, head, out: the exit joins the other side of the branch the loop sits on.  A second run finds
    every loop with an exit."""
    f, (entry, head, body, out) = function("entry", "head", "body", "out")
    b = IRBuilder(entry)
    b.cbranch(b.fcmp("olt", ConstFloat(f32, 0.0), ConstFloat(f32, 1.0)), out, head)
    b.position_at_end(head)
    b.br(body)
    b.position_at_end(body)
    b.br(head)
    b.position_at_end(out)
    b.ret()
    assert give_endless_loops_an_exit(f)
    term = body.instructions[-1]
    assert term.attrs["targets"] == (head, out) and isinstance(term.operands[0], ConstInt)
    assert term.operands[0].value == 1
    assert [bb.name for bb in f.blocks] == ["entry", "head", "body", "out"]
    assert not give_endless_loops_an_exit(f)


def test_an_endless_loop_on_every_path_exits_into_unreachable_and_a_joined_phi_takes_undef():
    """entry: br head; head: br body; body: br head.  Nothing joins beside the loop, so the exit is a new
    block holding only `unreachable`.  And entry: br c, head, out; out's phi from entry: the back edge
    joins out, whose phi takes undef from body."""
    f, (entry, head, body) = function("entry", "head", "body")
    b = IRBuilder(entry)
    b.br(head)
    b.position_at_end(head)
    b.br(body)
    b.position_at_end(body)
    b.br(head)
    assert give_endless_loops_an_exit(f)
    never = f.blocks[-1]
    assert body.instructions[-1].attrs["targets"] == (head, never)
    assert [i.op for i in never.instructions] == ["unreachable"]

    f, (entry, head, body, out) = function("entry", "head", "body", "out")
    b = IRBuilder(entry)
    b.cbranch(b.fcmp("olt", ConstFloat(f32, 0.0), ConstFloat(f32, 1.0)), head, out)
    b.position_at_end(head)
    b.br(body)
    b.position_at_end(body)
    b.br(head)
    b.position_at_end(out)
    phi = b.phi(i32, [(ConstInt(i32, 7), entry)])
    b.ret()
    assert give_endless_loops_an_exit(f)
    assert body.instructions[-1].attrs["targets"] == (head, out)
    (v7, from_entry), (u, from_body) = phi.attrs["incoming"]
    assert (v7.value, from_entry, from_body) == (7, entry, body) and isinstance(u, Undef) and u.type == i32
