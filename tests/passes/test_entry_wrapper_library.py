"""passes/entry_wrapper.py on a ray-tracing library: IR text in -> IR text out.  Each shader gets a
wrapper named after it that keeps the payload / attribute parameters (each backend binds them its
own way), runs the static initialisers and calls the HLSL function with a caller temporary for the
inout payload."""

from __future__ import annotations

from passutil import expected, sema_module, text

from shaderbuild.passes import entry_wrapper

LIB = """
struct Payload { float4 color; };
static float scale = 2.0 * DispatchRaysIndex().x;
[shader("miss")]
void ms(inout Payload p) { p.color = float4(scale, 0, 0, 1); }
[shader("closesthit")]
void ch(inout Payload p, BuiltInTriangleIntersectionAttributes a) { p.color.xy = a.barycentrics * scale; }
"""

BEFORE = expected("""
    module library sm6.3
    global private scale: float
    fn ms(inout p: Payload) -> void {
      store %p.f0 = float4(load(%scale), 0.0:float, 0.0:float, 1.0:float)
    }
    fn ch(inout p: Payload, in a: BuiltInTriangleIntersectionAttributes) -> void {
      store %p.f0.xy = mul(load(%a.f0), float2(load(%scale), load(%scale)))
    }
""")

# the static's initialiser runs in each shader (a copy per wrapper); the 'in' attributes pass by value
AFTER = expected("""
    module library sm6.3
    global private scale: float
    fn src.ms(inout p: Payload) -> void {
      store %p.f0 = float4(load(%scale), 0.0:float, 0.0:float, 1.0:float)
    }
    fn src.ch(inout p: Payload, in a: BuiltInTriangleIntersectionAttributes) -> void {
      store %p.f0.xy = mul(load(%a.f0), float2(load(%scale), load(%scale)))
    }
    fn ms(inout p: Payload) -> void {
      local p.arg: Payload
      store %scale = mul(2.0:float, convert<float>(DispatchRaysIndex():uint3.x))
      store %p.arg = load(%p)
      eval call src.ms(%p.arg)
      store %p = load(%p.arg)
      return
    }
    fn ch(inout p: Payload, in a: BuiltInTriangleIntersectionAttributes) -> void {
      local p.arg: Payload
      store %scale = mul(2.0:float, convert<float>(DispatchRaysIndex():uint3.x))
      store %p.arg = load(%p)
      eval call src.ch(%p.arg, load(%a))
      store %p = load(%p.arg)
      return
    }
""")


def test_ray_wrappers():
    module, options = sema_module(LIB, profile="lib_6_3")
    assert text(module) == BEFORE
    entry_wrapper.run(module, options)
    assert text(module) == AFTER
    assert [(e.name, e.function.name, [p.direction for p in e.function.params]) for e in module.entries] == [
        ("ms", "ms", ["inout"]), ("ch", "ch", ["inout", "in"])]
