"""passes/vk_bindings.py: IR text in -> IR text out (DXC's Vulkan binding rules).

Kept small: the pass is moving into the SPIR-V backend; re-point the import then."""

from __future__ import annotations

from passutil import REGISTERS_SOURCE as SOURCE
from passutil import sema_module, text

from shaderbuild.passes import dx_registers, vk_bindings


def _globals(module) -> list[str]:
    return [line for line in text(module).splitlines() if line.startswith("global ")]


def test_explicit_registers_then_next_free_binding():
    module, options = sema_module(SOURCE)
    dx_registers.run(module, options)
    vk_bindings.run(module, options)
    # explicit registers keep their number as the binding and their space as the set (T: t0 -> 0,
    # S: s1, space2 -> set 2 binding 1); resources without register() take the next free binding
    # of set 0 in declaration order, an array taking one binding (Out 1, B 2, U 3, C 4)
    assert _globals(module) == [
        "global uniform Out: RWStructuredBuffer<uint> register(u0, space0) count=1 vk(set=0, binding=1)",
        "global uniform B: RWStructuredBuffer<uint>[4] register(u1, space0) count=4 vk(set=0, binding=2)",
        "global uniform T: Texture2D<float4> register(t0, space0) count=1 vk(set=0, binding=0)",
        "global uniform U: Texture2D<float4> register(t1, space0) count=1 vk(set=0, binding=3)",
        "global uniform S: SamplerState register(s1, space2) count=1 vk(set=2, binding=1)",
        "global uniform C: type.C register(b0, space0) count=1 vk(set=0, binding=4)",
    ]


def test_class_shift_moves_explicit_registers():
    from shaderbuild.options import BindingShift

    module, options = sema_module("""
        RWStructuredBuffer<uint> Out : register(u2);
        Texture2D T : register(t2);
        [numthreads(1,1,1)]
        void main(uint3 id : SV_DispatchThreadID) { Out[0] = (uint)T.Load(int3(0,0,0)).x; }
    """, binding_shifts=[BindingShift("u", 10, 0)])
    dx_registers.run(module, options)
    vk_bindings.run(module, options)
    assert _globals(module) == [
        "global uniform Out: RWStructuredBuffer<uint> register(u2, space0) count=1 vk(set=0, binding=12)",
        "global uniform T: Texture2D<float4> register(t2, space0) count=1 vk(set=0, binding=2)",
    ]
