"""passes/unroll.py: IR text in -> IR text out for [unroll] loops, unrolled or left alone."""

from __future__ import annotations

from passutil import expected, sema_module, text

from shaderbuild.ir.validate import validate_module
from shaderbuild.passes import unroll

SOURCE = """
RWStructuredBuffer<int> Out : register(u0);
[numthreads(1,1,1)]
void main(uint3 id : SV_DispatchThreadID) {
    int s = 0;
    [unroll] for (int i = 3; i >= 0; i -= 2) { s += i; }
    [unroll] for (int j = 0; j < 3; j++) { if (s > 10) break; s += j; }
    [unroll] for (uint k = 0; k < id.x; k++) { s += 1; }
    for (int n = 0; n < 2; n++) { s += n; }
    Out[0] = s;
}
"""

# the loops after the first, as sema makes them: a break in the body, a bound that is not a
# constant, no [unroll]; none of them is unrolled
KEPT = """\
  store %j = 0:int
  loop [unroll] {
    if not(lt(load(%j), 3:int)) {
      break
    }
    if gt(load(%s), 10:int) {
      break
    }
    store %s = add(load(%s), load(%j))
  } continuing {
    store %j = add(load(%j), 1:int)
  }
  store %k = 0:uint
  loop [unroll] {
    if not(lt(load(%k), load(%id.x))) {
      break
    }
    store %s = add(load(%s), 1:int)
  } continuing {
    store %k = add(load(%k), 1:uint)
  }
  store %n = 0:int
  loop {
    if not(lt(load(%n), 2:int)) {
      break
    }
    store %s = add(load(%s), load(%n))
  } continuing {
    store %n = add(load(%n), 1:int)
  }
  store %Out<0:uint> = load(%s)
}
"""

FIRST_BEFORE = """\
  store %s = 0:int
  store %i = 3:int
  loop [unroll] {
    if not(ge(load(%i), 0:int)) {
      break
    }
    store %s = add(load(%s), load(%i))
  } continuing {
    store %i = sub(load(%i), 2:int)
  }
"""

# i = 3, 1 pass the test, -1 does not: two copies of body + continuing, the stores to i kept
FIRST_AFTER = """\
  store %s = 0:int
  store %i = 3:int
  store %s = add(load(%s), load(%i))
  store %i = sub(load(%i), 2:int)
  store %s = add(load(%s), load(%i))
  store %i = sub(load(%i), 2:int)
"""

HEADER = expected("""
    module compute sm6.0
    global uniform Out: RWStructuredBuffer<int> register(u0, space0) count=1
    fn main(in id: uint3) -> void {
      local s: int
      local i: int
      local j: int
      local k: uint
      local n: int
""")


def test_counted_loop_unrolled_others_kept():
    module, opts = sema_module(SOURCE)
    assert text(module) == HEADER + FIRST_BEFORE + KEPT
    unroll.run(module, opts)
    validate_module(module, "unroll")
    assert text(module) == HEADER + FIRST_AFTER + KEPT


def test_nothing_at_O0():
    module, opts = sema_module(SOURCE, opt_level=0)
    unroll.run(module, opts)
    assert text(module) == HEADER + FIRST_BEFORE + KEPT


def test_trip_count_limits():
    # 65 trips is above MAX_TRIPS; [unroll(2)] below the trip count of 3 asks for a partial unroll
    src = """
    RWStructuredBuffer<uint> Out : register(u0);
    [numthreads(1,1,1)]
    void main() {
        uint s = 0;
        [unroll] for (uint i = 0; i < 65; i++) { s += i; }
        [unroll(2)] for (uint j = 0; j < 3; j++) { s += j; }
        [unroll(3)] for (uint k = 0; k < 3; k++) { s += k; }
        Out[0] = s;
    }
    """
    module, opts = sema_module(src)
    unroll.run(module, opts)
    out = text(module)
    assert out.count("loop [unroll") == 2, out
    assert out.count("store %s = add(load(%s), load(%k))") == 3, out
