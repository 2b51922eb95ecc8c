"""passes/resource_locals.py: IR text in -> IR text out (seed 001's compile-time resources)."""

from __future__ import annotations

import pytest
from passutil import expected, sema_module, text

from shaderbuild.diagnostics import CompileError
from shaderbuild.passes import resource_locals

INLINE_SOURCE = """
RWStructuredBuffer<uint> Out : register(u0);
RWStructuredBuffer<uint> A[2] : register(u1);
void put(RWStructuredBuffer<uint> b, uint i, uint v) { b[i] = v; }
[numthreads(1,1,1)]
void main(uint3 id : SV_DispatchThreadID) {
    RWStructuredBuffer<uint> r = A[1];
    put(r, id.x, 7);
    Out[0] = 1;
}
"""

INLINE_BEFORE = expected("""
    module compute sm6.0
    global uniform Out: RWStructuredBuffer<uint> register(u0, space0) count=1
    global uniform A: RWStructuredBuffer<uint>[2] register(u1, space0) count=2
    fn put(in b: RWStructuredBuffer<uint>, in i: uint, in v: uint) -> void {
      store %b<load(%i)> = load(%v)
    }
    fn main(in id: uint3) -> void {
      local r: RWStructuredBuffer<uint>
      store %r = load(%A[1:uint])
      eval call put(load(%r), load(%id.x), 7:uint)
      store %Out<0:uint> = 1:uint
    }
""")

# put() takes a resource, so it is inlined (its `in` parameters become locals tagged .i1) and
# removed; the local `r` holds A[1], so its uses become A[1] and its assignment disappears
INLINE_AFTER = expected("""
    module compute sm6.0
    global uniform Out: RWStructuredBuffer<uint> register(u0, space0) count=1
    global uniform A: RWStructuredBuffer<uint>[2] register(u1, space0) count=2
    fn main(in id: uint3) -> void {
      local i.i1: uint
      local v.i1: uint
      store %i.i1 = load(%id.x)
      store %v.i1 = 7:uint
      store %A[1:uint]<load(%i.i1)> = load(%v.i1)
      store %Out<0:uint> = 1:uint
    }
""")


def test_resource_parameter_is_inlined_and_local_resolved():
    module, options = sema_module(INLINE_SOURCE)
    assert text(module) == INLINE_BEFORE
    resource_locals.run(module, options)
    assert text(module) == INLINE_AFTER


def test_local_array_is_a_copy():
    """Seed 001: assigning an element of a local resource array changes the local copy only."""
    module, options = sema_module("""
        RWStructuredBuffer<uint> A[2] : register(u1);
        [numthreads(1,1,1)]
        void main(uint3 id : SV_DispatchThreadID) {
            RWStructuredBuffer<uint> arr[2] = A;
            arr[0] = A[1];
            arr[0][id.x] = 5;
            A[0][0] = 6;
        }
    """)
    resource_locals.run(module, options)
    assert text(module) == expected("""
        module compute sm6.0
        global uniform A: RWStructuredBuffer<uint>[2] register(u1, space0) count=2
        fn main(in id: uint3) -> void {
          store %A[1:uint]<load(%id.x)> = 5:uint
          store %A[0:uint]<0:uint> = 6:uint
        }
    """)


def test_resource_chosen_by_control_flow_is_an_error():
    module, options = sema_module("""
        RWStructuredBuffer<uint> A[2] : register(u1);
        [numthreads(1,1,1)]
        void main(uint3 id : SV_DispatchThreadID) {
            RWStructuredBuffer<uint> r;
            if (id.x > 0) r = A[0]; else r = A[1];
            r[0] = 1;
        }
    """)
    with pytest.raises(CompileError, match="the resource held by 'r' depends on control flow"):
        resource_locals.run(module, options)


def test_module_without_resource_locals_is_unchanged():
    module, options = sema_module("""
        RWStructuredBuffer<uint> Out : register(u0);
        [numthreads(1,1,1)]
        void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = id.y; }
    """)
    before = text(module)
    resource_locals.run(module, options)
    assert text(module) == before
