"""passes/polyfill.py: IR text in -> IR text out."""

from __future__ import annotations

from passutil import expected, sema_module, text

from shaderbuild.ir.validate import validate_module
from shaderbuild.passes import polyfill

SOURCE = """
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1,1,1)]
void main(uint3 id : SV_DispatchThreadID) {
    float x = Out[0];
    Out[1] = clamp(x, 0.0, 1.0) + rcp(x);
    int i = 0;
    do { i++; } while (smoothstep(0.0, 8.0, x * i) < 0.5);
}
"""


def _run(names):
    module, _ = sema_module(SOURCE)
    before = text(module)
    polyfill.run(module, names)
    validate_module(module, "polyfill")
    return before, text(module)


def test_only_the_names_a_backend_asks_for_are_expanded():
    before, after = _run({"rcp"})
    assert "rcp(" in before and "rcp(" not in after
    assert after.count("clamp(") == before.count("clamp(") == 1
    assert after.count("smoothstep(") == 1


def test_nothing_asked_changes_nothing():
    before, after = _run(set())
    assert before == after


def test_expansions_and_a_do_while_condition_temporary():
    _, after = _run({"clamp", "rcp", "smoothstep"})
    # clamp -> min(max); rcp -> 1 / x; smoothstep's t (used three times) goes to a temporary stored in
    # the continuing block, just before the condition that reads it; 0.0 (a constant) is not stored
    assert after == expected("""
        module compute sm6.0
        global uniform Out: RWStructuredBuffer<float> register(u0, space0) count=1
        fn main(in id: uint3) -> void {
          local x: float
          local i: int
          local poly.2: float
          store %x = load(%Out<0:uint>)
          store %Out<1:uint> = add(min(max(load(%x), 0.0:float):float, 1.0:float):float, div(1.0:float, load(%x)))
          store %i = 0:int
          loop {
            store %i = add(load(%i), 1:int)
          } continuing {
            store %poly.2 = saturate(div(sub(mul(load(%x), convert<float>(load(%i))), 0.0:float), sub(8.0:float, 0.0:float))):float
            break_if not(lt(mul(mul(load(%poly.2), load(%poly.2)), sub(3.0:float, mul(2.0:float, load(%poly.2)))), 0.5:float))
          }
        }
    """)
