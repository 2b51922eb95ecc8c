"""passes/dx_registers.py: IR text in -> IR text out."""

from __future__ import annotations

import pytest
from passutil import REGISTERS_SOURCE as SOURCE
from passutil import expected, sema_module, text

from shaderbuild.diagnostics import CompileError
from shaderbuild.passes import dx_registers

BODY = """\
    fn main(in id: uint3) -> void {
      store %Out<load(%id.x)> = add(add(add(load(%B[load(%id.y)]<0:uint>), convert<uint>(load(%C.f0))), \
convert<uint>(SampleLevel(%T, %S, (0.0, 0.0):float2, 0.0:float):float4.x)), \
convert<uint>(Load(%U, (0, 0, 0):int3):float4.x))
    }
"""

BEFORE = expected("""
    module compute sm6.0
    global uniform Out: RWStructuredBuffer<uint> register(uNone, space0) count=1
    global uniform B: RWStructuredBuffer<uint>[4] register(uNone, space0) count=4
    global uniform T: Texture2D<float4> register(t0, space0) count=1
    global uniform U: Texture2D<float4> register(tNone, space0) count=1
    global uniform S: SamplerState register(s1, space2) count=1
    global uniform C: type.C register(bNone, space0) count=1
""" + BODY)

# the lowest free range of each class in space 0, in declaration order: Out u0, B u1-u4,
# U t1 (t0 is taken by T), C b0; explicit registers stay
AFTER = expected("""
    module compute sm6.0
    global uniform Out: RWStructuredBuffer<uint> register(u0, space0) count=1
    global uniform B: RWStructuredBuffer<uint>[4] register(u1, space0) count=4
    global uniform T: Texture2D<float4> register(t0, space0) count=1
    global uniform U: Texture2D<float4> register(t1, space0) count=1
    global uniform S: SamplerState register(s1, space2) count=1
    global uniform C: type.C register(b0, space0) count=1
""" + BODY)


def test_implicit_registers_take_the_lowest_free_range():
    module, options = sema_module(SOURCE)
    assert text(module) == BEFORE
    dx_registers.run(module, options)
    assert text(module) == AFTER
    implicit = {v.name for v in module.resources if v.binding.implicit}
    assert implicit == {"Out", "B", "U", "C"}


def test_a_gap_too_small_is_skipped():
    module, options = sema_module("""
        RWStructuredBuffer<uint> A : register(u0);
        RWStructuredBuffer<uint> B : register(u3);
        RWStructuredBuffer<uint> N[3];
        [numthreads(1,1,1)]
        void main(uint3 id : SV_DispatchThreadID) { A[0] = B[0] + N[id.x][0]; }
    """)
    dx_registers.run(module, options)
    # u1-u2 is too small for three registers: N goes after B, at u4-u6
    assert "global uniform N: RWStructuredBuffer<uint>[3] register(u4, space0) count=3" in text(module)


def test_overlapping_explicit_registers_are_an_error():
    module, options = sema_module("""
        RWStructuredBuffer<uint> A[2] : register(u0);
        RWStructuredBuffer<uint> B : register(u1);
        [numthreads(1,1,1)]
        void main(uint3 id : SV_DispatchThreadID) { A[id.x][0] = B[0]; }
    """)
    with pytest.raises(CompileError, match="resource 'B' overlaps resource 'A' at register u1, space0"):
        dx_registers.run(module, options)
