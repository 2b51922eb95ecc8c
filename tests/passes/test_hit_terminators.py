"""passes/hit_terminators.py: IR text in -> IR text out.  IgnoreHit / AcceptHitAndEndSearch in an any-hit
shader (here one in a called function) record which and return; every caller returns after its
write-backs, and the wrapper ends the shader once the payload is written back (D3D12: payload
changes made before either intrinsic are kept)."""

from __future__ import annotations

from passutil import expected, sema_module, text

from shaderbuild.passes import entry_wrapper, hit_terminators

LIB = """
struct Payload { float4 color; };
struct Attr { float2 uv; };
float check(inout Payload p, float x) {
    p.color.x = x;
    if (x > 1) IgnoreHit();
    return x;
}
[shader("anyhit")]
void ah(inout Payload p, Attr a) {
    float y = check(p, a.uv.x);
    if (y < 0) AcceptHitAndEndSearch();
    p.color.y = y;
}
[shader("closesthit")]
void ch(inout Payload p, Attr a) { p.color.z = 1; }
"""

AFTER = expected("""
    module library sm6.3
    global private hit.end: uint
    fn check(inout p: Payload, in x: float) -> float {
      store %p.f0.x = load(%x)
      if gt(load(%x), 1.0:float) {
        store %hit.end = 1:uint
        return 0.0:float
      }
      return load(%x)
    }
    fn src.ah(inout p: Payload, in a: Attr) -> void {
      local tmp.1: Payload
      local tmp.2: float
      local y: float
      store %tmp.1 = load(%p)
      store %tmp.2 = call check(%tmp.1, load(%a.f0.x))
      store %p = load(%tmp.1)
      if ne(load(%hit.end), 0:uint) {
        return
      }
      store %y = load(%tmp.2)
      if lt(load(%y), 0.0:float) {
        store %hit.end = 2:uint
        return
      }
      store %p.f0.y = load(%y)
    }
    fn src.ch(inout p: Payload, in a: Attr) -> void {
      store %p.f0.z = 1.0:float
    }
    fn ah(inout p: Payload, in a: Attr) -> void {
      local p.arg: Payload
      store %hit.end = 0:uint
      store %p.arg = load(%p)
      eval call src.ah(%p.arg, load(%a))
      store %p = load(%p.arg)
      if eq(load(%hit.end), 1:uint) {
        eval IgnoreHit():void
      }
      if eq(load(%hit.end), 2:uint) {
        eval AcceptHitAndEndSearch():void
      }
      return
    }
    fn ch(inout p: Payload, in a: Attr) -> void {
      local p.arg: Payload
      store %p.arg = load(%p)
      eval call src.ch(%p.arg, load(%a))
      store %p = load(%p.arg)
      return
    }
""")


def test_terminators_return_through_the_write_backs():
    module, options = sema_module(LIB, profile="lib_6_3")
    entry_wrapper.run(module, options)
    hit_terminators.run(module, options)
    assert text(module) == AFTER


def test_no_terminator_no_change():
    module, options = sema_module(LIB.replace("IgnoreHit();", "{ }").replace("AcceptHitAndEndSearch();", "{ }"),
                                  profile="lib_6_3")
    entry_wrapper.run(module, options)
    before = text(module)
    hit_terminators.run(module, options)
    assert text(module) == before and "hit.end" not in before
