"""The SSA builder (plugins/dxil/shaderbuild_dxil/ssa.py) on hand-built CFGs: values found
through joins and loops, and the phis it makes.  Phis that Braun et al.'s order would make and
then forward (all operands one value) are not made at all: at a join that is not a loop header,
and at a built loop header for a variable the loop never assigned.  A join reached again through
a loop while its operands are read still gets its phi (the cycle needs it)."""

from __future__ import annotations

from shaderbuild_dxil.llvm import types as T
from shaderbuild_dxil.llvm.values import ConstInt, Function, Undef
from shaderbuild_dxil.ssa import EdgeRecordingBuilder, SSABuilder


def _cfg():
    fn = Function(T.FunctionType(T.void, ()), "f")
    ssa = SSABuilder()
    b = EdgeRecordingBuilder(None, ssa)
    return fn, ssa, b


def _made(ssa: SSABuilder) -> list:
    return [p for lst in ssa.phis.values() for p in lst]


def _live(ssa: SSABuilder) -> list:
    return [p for p in _made(ssa) if id(p) not in ssa.forward]


def _diamond(assign_right: bool):
    """entry: x = 1; if (c) {} else { [x = 2] }; read x at the join."""
    fn, ssa, b = _cfg()
    x = ssa.new_var(T.i32)
    entry, left, right, join = (fn.append_block() for _ in range(4))
    one, two = ConstInt(T.i32, 1), ConstInt(T.i32, 2)
    ssa.seal(entry)
    b.position_at_end(entry)
    ssa.write(x, entry, one)
    b.cbranch(ConstInt(T.i1, 1), left, right)
    for arm in (left, right):
        ssa.seal(arm)
        b.position_at_end(arm)
        if arm is right and assign_right:
            ssa.write(x, arm, two)
        b.br(join)
    ssa.seal(join)
    return ssa, x, join, left, right, one, two


def test_join_with_one_incoming_value_makes_no_phi():
    ssa, x, join, *_ , one, _two = _diamond(assign_right=False)
    assert ssa.read(x, join) is one
    assert _made(ssa) == []


def test_join_with_different_values_makes_one_phi():
    ssa, x, join, left, right, one, two = _diamond(assign_right=True)
    v = ssa.read(x, join)
    assert v.op == "phi" and v.attrs["incoming"] == [(one, left), (two, right)]
    assert ssa.read(x, join) is v                  # found again, not rebuilt
    assert _made(ssa) == [v]


def _loop(assign_in_body: bool):
    """pre: x = 1; loop { body: [x = 2] } (header seals after the back edge); exit reads x."""
    fn, ssa, b = _cfg()
    x = ssa.new_var(T.i32)
    pre, header, exit_ = fn.append_block(), fn.append_block(), fn.append_block()
    one, two = ConstInt(T.i32, 1), ConstInt(T.i32, 2)
    ssa.seal(pre)
    b.position_at_end(pre)
    ssa.write(x, pre, one)
    ssa.loop_header(header)
    b.br(header)
    ssa.loop_entered(header, pre)
    b.position_at_end(header)
    if assign_in_body:
        ssa.write(x, header, two)
    b.cbranch(ConstInt(T.i1, 1), exit_, header)
    ssa.seal(header)
    ssa.seal(exit_)
    return ssa, x, exit_, one, two


def test_variable_the_loop_never_assigns_needs_no_header_phi():
    ssa, x, exit_, one, _two = _loop(assign_in_body=False)
    assert ssa.read(x, exit_) is one
    assert _made(ssa) == []


def test_variable_the_loop_assigns_is_read_after_it():
    ssa, x, exit_, _one, two = _loop(assign_in_body=True)
    assert ssa.read(x, exit_) is two            # the exit leaves from the header, after the write
    assert _live(ssa) == []


def test_read_inside_a_loop_under_construction_completes_at_sealing():
    fn, ssa, b = _cfg()
    x = ssa.new_var(T.i32)
    pre, header, body, exit_ = (fn.append_block() for _ in range(4))
    one = ConstInt(T.i32, 1)
    ssa.seal(pre)
    b.position_at_end(pre)
    ssa.write(x, pre, one)
    ssa.loop_header(header)
    b.br(header)
    ssa.loop_entered(header, pre)
    b.position_at_end(header)
    b.cbranch(ConstInt(T.i1, 1), body, exit_)
    ssa.seal(body)
    b.position_at_end(body)
    inside = ssa.read(x, body)                  # the header is not sealed: an incomplete phi
    assert inside.op == "phi"
    two = ConstInt(T.i32, 2)
    ssa.write(x, body, two)
    b.br(header)
    ssa.seal(header)
    assert inside.attrs["incoming"] == [(one, pre), (two, body)]
    assert _live(ssa) == [inside]
    ssa.seal(exit_)
    assert ssa.read(x, exit_) is inside


def test_join_reached_again_through_a_loop_gets_its_phi():
    """A do-while whose latch is a join (two arms) and whose exit leaves from the latch: reading
    after the loop enters the loop at the latch, goes round through the header and comes back to
    the latch; the latch's phi breaks that cycle, as in Braun et al."""
    fn, ssa, b = _cfg()
    x = ssa.new_var(T.i32)
    pre, header, then, latch, exit_ = (fn.append_block() for _ in range(5))
    one, two = ConstInt(T.i32, 1), ConstInt(T.i32, 2)
    ssa.seal(pre)
    b.position_at_end(pre)
    ssa.write(x, pre, one)
    ssa.loop_header(header)
    b.br(header)
    ssa.loop_entered(header, pre)
    b.position_at_end(header)
    b.cbranch(ConstInt(T.i1, 1), then, latch)
    ssa.seal(then)
    b.position_at_end(then)
    ssa.write(x, then, two)
    b.br(latch)
    ssa.seal(latch)
    b.position_at_end(latch)
    b.cbranch(ConstInt(T.i1, 1), exit_, header)
    ssa.seal(header)
    ssa.seal(exit_)
    v = ssa.read(x, exit_)                      # not read inside the loop before
    assert v.op == "phi" and v.parent is latch
    head = [p for p in _live(ssa) if p.parent is header]
    assert len(head) == 1 and head[0].attrs["incoming"] == [(one, pre), (v, latch)]
    assert v.attrs["incoming"] == [(head[0], header), (two, then)]
    assert len(_live(ssa)) == 2


def test_never_assigned_variable_is_undefined():
    fn, ssa, b = _cfg()
    x = ssa.new_var(T.f32)
    entry = fn.append_block()
    ssa.seal(entry)
    v = ssa.read(x, entry)
    assert isinstance(v, Undef) and v.type is T.f32
