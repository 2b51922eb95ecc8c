"""Executed control flow: if/else chains, for/while/do loops, break/continue (also inside
switch), switch with fall-through and default, early return, and the loop/branch attributes
([unroll], [unroll(n)], [loop], [fastopt], [allow_uav_condition], [branch], [flatten]) which
must be accepted without changing results.  One test runs divergent per-thread loops."""

from __future__ import annotations

import pytest
from lang_util import SlotTable, case, run_backend, run_cs, table_test

pytestmark = [pytest.mark.vulkan, pytest.mark.usefixtures("vk")]

SETUP = "    int zero = In[0], one = In[1], two = In[2], three = In[3], five = In[4], ten = In[5];\n"
IN = {"In": ("int", [0, 1, 2, 3, 5, 10])}

PRELUDE = """
int Classify(int x) {
    if (x < 0) return -1;
    else if (x == 0) return 0;
    else if (x < 10) return 1;
    else return 2;
}
int SwitchFall(int x) {
    int r = 0;
    switch (x) {
        case 0: r += 1;
        case 1: r += 10;
        case 2: r += 100; break;
        case 3:
        case 4: r += 1000; break;
        default: r += 10000;
    }
    return r;
}
int SwitchReturn(int x) {
    switch (x) {
        case 1: return 11;
        case 2: { int t = x * 7; return t; }
        default: return -5;
    }
}
int SwitchDefaultFirst(int x) {
    int r = 0;
    switch (x) {
        default: r = 99; break;
        case 5: r = 55; break;
    }
    return r;
}
uint SwitchUint(uint x) {
    switch (x) { case 0xFFFFFFFFu: return 1u; case 7u: return 2u; default: return 3u; }
}
"""

CONTROL = SlotTable("control_flow", "int", [
    case("if_else_chain_neg", "Classify(-five)", -1),
    case("if_else_chain_zero", "Classify(zero)", 0),
    case("if_else_chain_mid", "Classify(five)", 1),
    case("if_else_chain_big", "Classify(ten * ten)", 2),
    case("if_without_else", "R = 1; if (one > two) R = 2;", 1, stmt=True),
    case("dangling_else_binds_inner", "R = 0; if (one) if (zero) R = 1; else R = 2;", 2, stmt=True),
    case("for_sum", "for (int i = 0; i < ten; i++) R += i;", sum(range(10)), stmt=True),
    case("for_decrement", "for (int i = ten; i > 0; i -= 3) R = R * 10 + i;", int("10741"), stmt=True),
    case("for_break", "for (int i = 0; i < 100; i++) { if (i == five) break; R += 1; }", 5, stmt=True),
    case("for_continue", "for (int i = 0; i < ten; i++) { if (i % 2 == 0) continue; R += i; }", 1 + 3 + 5 + 7 + 9,
         stmt=True),
    case("for_empty_clauses", "int i = 0; for (;;) { if (++i >= five) break; } R = i;", 5, stmt=True),
    case("nested_for_break_inner_only", "for (int i = 0; i < 3; i++) for (int j = 0; j < 10; j++) { if (j == two) break; R += 1; }",
         6, stmt=True),
    case("nested_continue_outer_unaffected", "for (int i = 0; i < 3; i++) { for (int j = 0; j < 3; j++) { if (j == i) continue; R += 1; } R += 100; }",
         306, stmt=True),
    case("while_loop", "int n = ten; while (n > 0) { R += n; n -= 3; }", 10 + 7 + 4 + 1, stmt=True),
    case("while_false_never_runs", "while (zero) { R = 99; }", 0, stmt=True),
    case("do_while_runs_once", "do { R += 7; } while (zero);", 7, stmt=True),
    case("do_while_loops", "int n = 0; do { n++; R += n; } while (n < five);", 15, stmt=True),
    case("do_while_continue_checks_condition", "int n = 0; do { n++; if (n < 3) continue; R += n; } while (n < five);",
         3 + 4 + 5, stmt=True),
    case("switch_fallthrough_0", "SwitchFall(zero)", 111),
    case("switch_fallthrough_1", "SwitchFall(one)", 110),
    case("switch_break_2", "SwitchFall(two)", 100),
    case("switch_shared_labels_3", "SwitchFall(three)", 1000),
    case("switch_shared_labels_4", "SwitchFall(two * two)", 1000),
    case("switch_default", "SwitchFall(ten)", 10000),
    case("switch_return_case", "SwitchReturn(one)", 11),
    case("switch_return_block_scope", "SwitchReturn(two)", 14),
    case("switch_return_default", "SwitchReturn(five)", -5),
    case("switch_default_first_matches_case", "SwitchDefaultFirst(five)", 55),
    case("switch_default_first_default", "SwitchDefaultFirst(one)", 99),
    case("switch_uint_selector", "(int)SwitchUint((uint)(zero - one))", 1),
    case("switch_in_loop_break_leaves_switch", "for (int i = 0; i < 4; i++) { switch (i) { case 1: R += 10; break; default: R += 1; } }",
         13, stmt=True),
    case("continue_inside_switch_in_loop", "for (int i = 0; i < 4; i++) { switch (i) { case 2: continue; default: break; } R += i; }",
         0 + 1 + 3, stmt=True),
    case("loop_var_scope", "int i = 100; for (int i = 0; i < 3; i++) { } R = i;", 100, stmt=True),
    case("block_scope_shadow", "int x = 1; { int x = 2; R += x; } R = R * 10 + x;", 21, stmt=True),
], prelude=PRELUDE, setup=SETUP, inputs=IN)

ATTRS = SlotTable("control_attributes", "int", [
    case("unroll", "[unroll] for (int i = 0; i < 4; i++) R += i * i;", 14, stmt=True),
    case("unroll_n", "[unroll(2)] for (int i = 0; i < five; i++) R += i;", 10, stmt=True),
    case("loop", "[loop] for (int i = 0; i < five; i++) R += 2;", 10, stmt=True),
    case("fastopt", "[fastopt] for (int i = 0; i < five; i++) R += 3;", 15, stmt=True),
    case("allow_uav_condition", "[allow_uav_condition] while (R < ten) R += four_(one);", 12, stmt=True),
    case("unroll_while", "int n = 0; [unroll] while (n < 3) { n++; R += n; }", 6, stmt=True),
    case("loop_do_while", "int n = 0; [loop] do { n++; } while (n < five); R = n;", 5, stmt=True),
    case("branch_if", "[branch] if (one > zero) R = 1; else R = 2;", 1, stmt=True),
    case("flatten_if", "[flatten] if (one < zero) R = 1; else R = 2;", 2, stmt=True),
    case("branch_switch", "[branch] switch (two) { case 2: R = 22; break; default: R = 0; }", 22, stmt=True),
    case("flatten_switch", "[flatten] switch (one) { case 2: R = 22; break; default: R = 7; }", 7, stmt=True),
    case("forcecase_switch", "[forcecase] switch (two) { case 2: R = 2; break; default: R = 0; }", 2, stmt=True),
    case("call_switch", "[call] switch (three) { case 3: R = 3; break; default: R = 0; }", 3, stmt=True),
], prelude="int four_(int x) { return x * 4; }\n", setup=SETUP, inputs=IN)

MORE_CONTROL = SlotTable("more_control", "int", [
    case("local_array_64_in_loops", "int a[64]; for (int i = 0; i < 64; i++) a[i] = i * i; for (int j = 63; j >= 0; j -= 3) R += a[j];",
         sum(j * j for j in range(63, -1, -3)), stmt=True),
    case("nested_loops_switch_break_continue",
         "for (int i = 0; i < five; i++) { for (int j = 0; j < five; j++) { switch ((i + j) % 3) { case 0: continue;"
         " case 1: R += 1; break; default: if (j > i) break; R += 10; } if (R > 100) break; } }", 59, stmt=True),
    case("switch_default_in_middle_falls_through", "switch (two) { case 1: R += 1; default: R += 10; case 3: R += 100; break;"
         " case 4: R += 1000; }", 110, stmt=True),
    case("switch_case_after_default", "switch (three) { case 1: R += 1; default: R += 10; case 3: R += 100; break; }", 100,
         stmt=True),
    case("while_true_break", "int n = 0; while (true) { n++; if (n == five) break; } R = n;", 5, stmt=True),
    case("do_while_false_once", "do { R += 7; } while (false);", 7, stmt=True),
    case("vector_index_in_loop", "float4 v = float4(1, 2, 3, 4); for (int i = 0; i < 4; i++) { v[i] *= 2; R += (int)v[i]; }",
         20, stmt=True),
], setup=SETUP, inputs=IN)

test_control_flow = table_test(CONTROL)
test_more_control = table_test(MORE_CONTROL)
test_control_attributes = table_test(ATTRS)

DIVERGENT = """
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(32, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
    uint n = tid.x + 1;
    uint steps = 0;
    while (n != 1) {
        if (n % 2 == 0) n /= 2; else n = 3 * n + 1;
        steps++;
        if (steps > 1000) break;
    }
    uint r = steps;
    switch (tid.x % 4) {
        case 0: r += 1000; break;
        case 1: r += 2000;
        case 2: r += 30000; break;
        default: if (tid.x > 16) return;
    }
    Out[tid.x] = r;
}
"""


def collatz(n: int) -> int:
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def test_divergent_loops_and_switch_per_thread():
    """Each thread runs a different number of iterations and takes a different switch path."""
    want = []
    for t in range(32):
        r = collatz(t + 1)
        k = t % 4
        if k == 0:
            r += 1000
        elif k == 1:
            r += 32000
        elif k == 2:
            r += 30000
        elif t > 16:
            want.append(0xCDCDCDCD)  # returned early: slot untouched
            continue
        want.append(r)
    assert run_cs(DIVERGENT, {"Out": ("uint", 32)}, groups=(1, 1, 1))["Out"] == want


LOOP_CONDITIONS = """
RWStructuredBuffer<int> Out : register(u0);
static int calls = 0;
bool Check(int i) { calls++; return i < 3; }
[numthreads(1, 1, 1)]
void main() {
    int arr[4] = {5, 6, 0, 7};
    int i = 0;
    while (i < 4 && arr[i] != 0) i++;
    Out[0] = i;
    int n = 0;
    for (int k = 0; k < 10 && Check(k); k++) n++;
    Out[1] = n; Out[2] = calls;
    calls = 0;
    int m = 0;
    do { m++; } while (m < 5 && Check(m));
    Out[3] = m; Out[4] = calls;
}
"""


def test_short_circuit_loop_conditions_reevaluated_each_iteration():
    """The side effects of a short-circuit loop condition happen once per test, in every loop form."""
    assert run_cs(LOOP_CONDITIONS, {"Out": ("int", 5)})["Out"] == [2, 3, 4, 3, 3]


SV_IDS = """
RWStructuredBuffer<uint4> Out : register(u0);
[numthreads(4, 2, 2)]
void main(uint3 dt : SV_DispatchThreadID, uint3 gt : SV_GroupThreadID, uint3 g : SV_GroupID, uint gi : SV_GroupIndex) {
    uint flat = (g.y * 2 + g.x) * 16 + gi;
    Out[flat * 2] = uint4(dt, gi);
    Out[flat * 2 + 1] = uint4(gt, g.x * 10 + g.y);
}
"""


def test_compute_system_values_3d():
    """SV_DispatchThreadID = group * numthreads + SV_GroupThreadID; SV_GroupIndex flattens x fastest."""
    got = run_cs(SV_IDS, {"Out": ("uint4", 6 * 16 * 2)}, groups=(2, 3, 1))["Out"]
    want = [None] * (6 * 16 * 2)
    for gy in range(3):
        for gx in range(2):
            for tz in range(2):
                for ty in range(2):
                    for tx in range(4):
                        gi = tz * 8 + ty * 4 + tx
                        flat = (gy * 2 + gx) * 16 + gi
                        want[flat * 2] = (gx * 4 + tx, gy * 2 + ty, tz, gi)
                        want[flat * 2 + 1] = (tx, ty, tz, gx * 10 + gy)
    assert got == want


ENTRY_STRUCT = """
RWStructuredBuffer<uint> Out : register(u0);
struct CSIn { uint3 id : SV_DispatchThreadID; uint gi : SV_GroupIndex; };
[numthreads(8, 1, 1)]
void main(CSIn i) { Out[i.id.x] = i.gi * 100 + i.id.x; }
"""


def test_entry_parameter_struct_with_semantics():
    got = run_cs(ENTRY_STRUCT, {"Out": ("uint", 16)}, groups=(2, 1, 1))["Out"]
    assert got == [(t % 8) * 100 + t for t in range(16)]


RETURN_FROM_NESTED = """
RWStructuredBuffer<int> Out : register(u0);
[numthreads(4, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
    int target = 12 + (int)tid.x * 6;
    for (int i = 0; i < 10; i++) {
        for (int j = 0; j < 10; j++) {
            if (i * j == target) { Out[tid.x] = i * 10 + j; return; }
        }
    }
    Out[tid.x] = -1;
}
"""


def test_return_from_nested_loops_in_entry():
    def first(target):
        for i in range(10):
            for j in range(10):
                if i * j == target:
                    return i * 10 + j
        return -1
    assert run_cs(RETURN_FROM_NESTED, {"Out": ("int", 4)})["Out"] == [first(12 + 6 * t) for t in range(4)]


SV_TYPES = {
    "uint2_dispatch_thread_id": (
        "RWStructuredBuffer<int> Out : register(u0);\n[numthreads(4, 2, 1)]\n"
        "void main(uint2 id : SV_DispatchThreadID) { Out[id.y * 4 + id.x] = id.x * 10 + id.y; }",
        [x * 10 + y for y in range(2) for x in range(4)]),
    "int3_dispatch_thread_id": (
        "RWStructuredBuffer<int> Out : register(u0);\n[numthreads(8, 1, 1)]\n"
        "void main(int3 id : SV_DispatchThreadID) { Out[id.x] = id.x - 4; }", [t - 4 for t in range(8)]),
    "scalar_dispatch_thread_id": (
        "RWStructuredBuffer<int> Out : register(u0);\n[numthreads(8, 1, 1)]\n"
        "void main(uint id : SV_DispatchThreadID) { Out[id] = id * 3; }", [t * 3 for t in range(8)]),
    "int_group_index": (
        "RWStructuredBuffer<int> Out : register(u0);\n[numthreads(8, 1, 1)]\n"
        "void main(int gi : SV_GroupIndex) { Out[gi] = gi * 2; }", [t * 2 for t in range(8)]),
    "numthreads_from_static_const": (
        "static const uint N = 8;\nRWStructuredBuffer<int> Out : register(u0);\n[numthreads(N, 1, 1)]\n"
        "void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = id.x; }", list(range(8))),
    "numthreads_from_macro_expression": (
        "#define N 8\nRWStructuredBuffer<int> Out : register(u0);\n[numthreads(N / 2 * 2, 1, 1)]\n"
        "void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = id.x + 1; }", [t + 1 for t in range(8)]),
}


@pytest.mark.parametrize("backend", ["spirv", "dxil", "dxil-vk"])
@pytest.mark.parametrize("name", sorted(SV_TYPES))
def test_entry_system_value_types(name, backend):
    """System values declared with fewer components or signed types, numthreads from constant expressions."""
    src, want = SV_TYPES[name]
    assert run_backend(backend, src, {"Out": ("int", 8)})["Out"] == want
