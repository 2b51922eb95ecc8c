"""passes/inline.py: IR text in -> IR text out for one inlined call."""

from __future__ import annotations

from passutil import expected, sema_module, text

from shaderbuild import ir
from shaderbuild.ir.validate import validate_module
from shaderbuild.passes import inline
from shaderbuild.passes.inline import inline_call

SOURCE = """
RWStructuredBuffer<uint> Out : register(u0);
uint f(uint x, out uint y) { y = x + 1; if (x > 3) return 1; return 2; }
[numthreads(1,1,1)]
void main(uint3 id : SV_DispatchThreadID) {
    uint t;
    uint r = f(id.x, t);
    Out[0] = r + t;
}
"""

MAIN_BEFORE = """\
    fn main(in id: uint3) -> void {
      local t: uint
      local tmp.1: uint
      local tmp.2: uint
      local r: uint
      store %tmp.1 = 0:uint
      store %tmp.2 = call f(load(%id.x), %tmp.1)
      store %t = load(%tmp.1)
      store %r = load(%tmp.2)
      store %Out<0:uint> = add(load(%r), load(%t))
    }
"""

# `in x` becomes the local x.i1 set from the argument; `out y` writes the caller's temporary
# tmp.1 directly; the early return becomes "result = v; returned = true; break" out of a
# run-once loop (the loop's own closing break follows the last return's break)
MAIN_AFTER = expected("""
    module compute sm6.0
    global uniform Out: RWStructuredBuffer<uint> register(u0, space0) count=1
    fn main(in id: uint3) -> void {
      local t: uint
      local tmp.1: uint
      local tmp.2: uint
      local r: uint
      local x.i1: uint
      local returned.i1: bool
      store %tmp.1 = 0:uint
      store %x.i1 = load(%id.x)
      store %returned.i1 = False:bool
      loop {
        store %tmp.1 = add(load(%x.i1), 1:uint)
        if gt(load(%x.i1), 3:uint) {
          store %tmp.2 = 1:uint
          store %returned.i1 = True:bool
          break
        }
        store %tmp.2 = 2:uint
        store %returned.i1 = True:bool
        break
        break
      }
      store %t = load(%tmp.1)
      store %r = load(%tmp.2)
      store %Out<0:uint> = add(load(%r), load(%t))
    }
""")


def _inline_first_call(module: ir.Module) -> None:
    main = module.functions[-1]
    for i, s in enumerate(main.body):
        if isinstance(s, ir.Store) and isinstance(s.value, ir.Call):
            main.body[i:i + 1] = inline_call(main, s.value, s.place.var, [0])
            module.functions = [f for f in module.functions if f is not s.value.func]
            return
    raise AssertionError("no call to inline")


def test_early_return_and_out_parameter():
    module, _ = sema_module(SOURCE)
    assert text(module).endswith(expected(MAIN_BEFORE))
    _inline_first_call(module)
    assert text(module) == MAIN_AFTER
    validate_module(module, "inline")


def test_single_exit_callee_needs_no_loop():
    module, _ = sema_module("""
        RWStructuredBuffer<uint> Out : register(u0);
        uint twice(uint x) { return x * 2; }
        [numthreads(1,1,1)]
        void main(uint3 id : SV_DispatchThreadID) { uint r = twice(id.x); Out[0] = r; }
    """)
    _inline_first_call(module)
    assert text(module) == expected("""
        module compute sm6.0
        global uniform Out: RWStructuredBuffer<uint> register(u0, space0) count=1
        fn main(in id: uint3) -> void {
          local tmp.1: uint
          local r: uint
          local x.i1: uint
          store %x.i1 = load(%id.x)
          store %tmp.1 = mul(load(%x.i1), 2:uint)
          store %r = load(%tmp.1)
          store %Out<0:uint> = load(%r)
        }
    """)
    validate_module(module, "inline")


def test_run_inlines_every_call_from_O1_and_drops_the_callees():
    # the pass itself (-O1 and up): the same result as inlining the one call by hand, and f goes
    module, opts = sema_module(SOURCE)
    inline.run(module, opts)
    assert text(module) == MAIN_AFTER
    validate_module(module, "inline")


def test_run_nested_calls_inline_callees_first():
    module, opts = sema_module("""
        RWStructuredBuffer<uint> Out : register(u0);
        uint inc(uint x) { return x + 1; }
        uint twice_inc(uint x) { return inc(x) * 2; }
        [numthreads(1,1,1)]
        void main(uint3 id : SV_DispatchThreadID) { Out[0] = twice_inc(id.x); }
    """)
    inline.run(module, opts)
    validate_module(module, "inline")
    assert [f.name for f in module.functions] == ["main"]
    assert "call " not in text(module)


def test_run_keeps_calls_at_O0():
    module, opts = sema_module(SOURCE, opt_level=0)
    before = text(module)
    inline.run(module, opts)
    assert text(module) == before


def test_returns_from_the_closing_loop_break_out_of_it():
    # every return is in the loop that ends the body, outside nested loops: `break` leaves the
    # function there as the return did, so no run-once loop and no flag
    module, _ = sema_module("""
        RWStructuredBuffer<uint> Out : register(u0);
        uint first(uint x) { for (;;) { if (x > 3) return x; x += 2; } }
        [numthreads(1,1,1)]
        void main(uint3 id : SV_DispatchThreadID) { uint r = first(id.x); Out[0] = r; }
    """)
    _inline_first_call(module)
    assert text(module) == expected("""
        module compute sm6.0
        global uniform Out: RWStructuredBuffer<uint> register(u0, space0) count=1
        fn main(in id: uint3) -> void {
          local tmp.1: uint
          local r: uint
          local x.i1: uint
          store %x.i1 = load(%id.x)
          loop {
            if gt(load(%x.i1), 3:uint) {
              store %tmp.1 = load(%x.i1)
              break
            }
            store %x.i1 = add(load(%x.i1), 2:uint)
          }
          store %r = load(%tmp.1)
          store %Out<0:uint> = load(%r)
        }
    """)
    validate_module(module, "inline")


def test_return_from_a_nested_loop_keeps_the_flag():
    module, _ = sema_module("""
        RWStructuredBuffer<uint> Out : register(u0);
        uint first(uint x) { for (;;) { for (;;) { if (x > 3) return x; x += 2; } } }
        [numthreads(1,1,1)]
        void main(uint3 id : SV_DispatchThreadID) { uint r = first(id.x); Out[0] = r; }
    """)
    _inline_first_call(module)
    assert "store %returned.i1 = True:bool" in text(module) and "if load(%returned.i1) {" in text(module)
    validate_module(module, "inline")


CHAIN_SOURCE = """
    RWStructuredBuffer<uint> Out : register(u0);
    uint leaf(uint v) { return v + 1; }
    uint mid(uint x) { return leaf(x) * 2; }
    uint solo(uint y) { return y + 7; }
    [numthreads(1,1,1)]
    void main(uint3 id : SV_DispatchThreadID) { Out[0] = mid(id.x) + mid(id.y) + solo(id.z); }
"""


def test_only_a_body_inlined_once_is_moved():
    # mid is called twice, so leaf (called once, from mid) is inlined twice: only solo's body is
    # inlined exactly once (and may be used without a copy)
    module, _ = sema_module(CHAIN_SOURCE)
    names = {id(f): f.name for f in module.functions}
    once = inline._inlined_once(inline._roots(ir.entry_points(module)))
    assert sorted(names[i] for i in once) == ["solo"]


def test_a_moved_body_and_the_copies_read_their_own_locals():
    # the two copies of leaf read v.i2 and v.i4 (tags count inlined calls in order: mid, leaf, mid,
    # leaf, solo); solo's moved body reads its own y.i5
    module, opts = sema_module(CHAIN_SOURCE)
    inline.run(module, opts)
    validate_module(module, "inline")
    out = text(module)
    assert [f.name for f in module.functions] == ["main"]
    for local in ("v.i2", "v.i4", "y.i5"):
        assert f"store %{local} = " in out and f"load(%{local})" in out, local
    assert "%y)" not in out and "%v)" not in out      # no reference to a callee's own variable is left
