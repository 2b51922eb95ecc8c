"""A switch inside a loop (and a loop body that continues from nested ifs): the CFG shapes our DXIL gives
them are ones dxil-spirv (vkd3d-proton's DXIL front end) structurizes.  They used not to be: a switch case
that returns out of the loop made its structurizer abort ("detected infinite loop"), one whose case may
`continue` lost a terminator, and nested ifs that `continue` gave a selection left other than through its
merge (the last two also in generated programs).  The lowering now leaves such a switch only through its
merge: a `return` sets a `returned` flag checked after each loop or switch it breaks out of (lower.py
`_leave`), a `continue` a `continued` flag checked after the switch (`_continue`); and the clean-up lets
continue paths branch straight to the loop's latch (cfg.bypass_continue_blocks) and break paths straight
to the loop's exit (cfg.bypass_break_blocks).

Each shader runs at -O0 (the DXIL backend's own inliner and lowering) and -O3 (the shared inliner first)
through dxil-spirv on lavapipe and on the lli interpreter; both must give what a Python model of the
HLSL, written here, computes for every thread's input row.  A dxil-spirv failure (a listed limit or not)
fails the test.
"""

from __future__ import annotations

import random
import struct
from collections.abc import Callable

import pytest
import res_util as R
from harness import dxil_consumer, dxil_tools
from harness.dxil_exec import run_dxil_compute
from shaderbuild_dxil import ctrldep
from shaderbuild_dxil.backend import compile_dxil

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

pytestmark = [pytest.mark.llvm, pytest.mark.spirv_tools]

THREADS = 8
ROW = 8          # In[t * ROW + i]: thread t's row; Out[2 t], Out[2 t + 1]: its two results
HEAD = """RWStructuredBuffer<uint> In : register(u0);
RWStructuredBuffer<uint> Out : register(u1);
"""
MAIN = f"""[numthreads({THREADS}, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {{ uint2 r = f(id.x * {ROW}); Out[2 * id.x] = r.x; Out[2 * id.x + 1] = r.y; }}
"""

# name -> (HLSL of uint2 f(uint b), or of a whole `main` when it starts with "[numthreads"; model(row) -> 2 values)
SHADERS: dict[str, tuple[str, Callable[[list[int]], tuple[int, int]]]] = {}


def shader(name: str, hlsl: str):
    def register(model):
        SHADERS[name] = (hlsl, model)
        return model
    return register


@shader("return_from_case", """
uint2 f(uint b) {
    uint acc = 0;
    for (uint i = 0; i < 8; i++) {
        switch (In[b + i]) { case 1: return uint2(i, acc); case 2: acc += 5; break; default: acc += 1; break; }
    }
    return uint2(99, acc);
}""")
def _return_from_case(row):
    acc = 0
    for i, v in enumerate(row):
        if v == 1:
            return i, acc
        acc += 5 if v == 2 else 1
    return 99, acc


@shader("return_from_entry", f"""
[numthreads({THREADS}, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {{
    uint b = id.x * {ROW}, acc = 0;
    Out[2 * id.x] = 77;
    for (uint i = 0; i < 8; i++) {{
        switch (In[b + i]) {{
        case 1: Out[2 * id.x + 1] = acc; return;
        case 3: acc += 7; break;
        default: acc += 1; break;
        }}
    }}
    Out[2 * id.x] = 99;
    Out[2 * id.x + 1] = acc;
}}""")
def _return_from_entry(row):
    acc = 0
    for v in row:
        if v == 1:
            return 77, acc
        acc += 7 if v == 3 else 1
    return 99, acc


@shader("switch_in_loop_in_loop", """
uint2 f(uint b) {
    uint acc = 0;
    for (uint j = 0; j < 2; j++) {
        for (uint i = 0; i < 4; i++) {
            switch (In[b + 4 * j + i]) {
            case 1: if (j == 1) return uint2(10 * j + i, acc); acc += 100; break;
            case 2: acc += 5; break;
            default: acc += 1; break;
            }
        }
        acc *= 2;
    }
    return uint2(99, acc);
}""")
def _switch_in_loop_in_loop(row):
    acc = 0
    for j in range(2):
        for i in range(4):
            v = row[4 * j + i]
            if v == 1:
                if j == 1:
                    return 10 * j + i, acc
                acc += 100
            else:
                acc += 5 if v == 2 else 1
        acc *= 2
    return 99, acc


@shader("several_returns_fallthrough_default", """
uint2 f(uint b) {
    uint acc = 0;
    for (uint i = 0; i < 8; i++) {
        switch (In[b + i]) {
        case 0: acc += 1; break;
        case 1: return uint2(i, acc);
        case 2: acc += 3;
        case 3: acc += 10; if (acc > 40) return uint2(100 + i, acc); break;
        default: if (i == 6) return uint2(200 + i, acc); acc += 2; break;
        }
    }
    return uint2(99, acc);
}""")
def _several_returns(row):
    acc = 0
    for i, v in enumerate(row):
        if v == 0:
            acc += 1
        elif v == 1:
            return i, acc
        elif v in (2, 3):
            acc += 13 if v == 2 else 10             # case 2 falls through into case 3
            if acc > 40:
                return 100 + i, acc
        else:
            if i == 6:
                return 200 + i, acc
            acc += 2
    return 99, acc


@shader("return_from_loop_in_switch_in_loop", """
uint2 f(uint b) {
    uint acc = 0;
    for (uint j = 0; j < 4; j++) {
        switch (In[b + j]) {
        case 1: for (uint i = 4; i < 8; i++) { if (In[b + i] == j) return uint2(10 * j + i, acc); acc += 1; } break;
        case 2: acc += 20; break;
        default: break;
        }
    }
    return uint2(99, acc);
}""")
def _loop_in_switch(row):
    acc = 0
    for j in range(4):
        if row[j] == 1:
            for i in range(4, 8):
                if row[i] == j:
                    return 10 * j + i, acc
                acc += 1
        elif row[j] == 2:
            acc += 20
    return 99, acc


@shader("return_from_switch_in_switch", """
uint2 f(uint b) {
    uint acc = 0;
    for (uint j = 0; j < 8; j++) {
        switch (In[b + j]) {
        case 1: switch (In[b + ((j + 1) & 7)]) { case 2: return uint2(j, acc); default: acc += 3; break; } break;
        case 2: acc += 1; break;
        default: break;
        }
    }
    return uint2(99, acc);
}""")
def _switch_in_switch(row):
    acc = 0
    for j, v in enumerate(row):
        if v == 1:
            if row[(j + 1) & 7] == 2:
                return j, acc
            acc += 3
        elif v == 2:
            acc += 1
    return 99, acc


# the shape of the former consumer limit's example: the case blocks, the continue path and the switch merge
# only branch on to the loop's continue block (so a `continue` and a `break` end alike here)
@shader("continue_from_case_while", """
uint2 f(uint b) {
    int w = 0;
    uint seen = 0;
    while (w < 8) {
        w++;
        seen += In[b + w - 1] * (uint)w;
        switch (w & 3) {
        case 2: { break; }
        case 3: { if (In[b + w - 1] == 0) continue; break; }
        default: { break; }
        }
    }
    return uint2(seen, w);
}""")
@shader("continue_from_fallthrough_case", """
uint2 f(uint b) {
    int w = 0;
    uint seen = 0;
    while (w < 8) {
        w++;
        seen += In[b + w - 1] * (uint)w;
        switch (In[b + w - 1]) {
        case 1: { if (w == 2) continue; }
        case 2: { if (In[b + 7] == 0) continue; break; }
        default: { break; }
        }
    }
    return uint2(seen, w);
}""")
def _weighted_sum(row):
    """Nothing runs after the continue points in these loops, so continuing and going on end alike."""
    return sum(v * w for w, v in enumerate(row, 1)), 8


@shader("continue_in_loop_in_loop", """
uint2 f(uint b) {
    uint seen = 0, n = 0;
    for (uint j = 0; j < 2; j++) {
        int w = 0;
        while (w < 4) {
            w++;
            seen += In[b + 4 * j + w - 1] * (uint)w;
            switch (w & 3) {
            case 2: { break; }
            case 3: { if (In[b + 4 * j + w - 1] == 0) continue; break; }
            default: { break; }
            }
        }
        n += (uint)w;
    }
    return uint2(seen, n);
}""")
def _continue_nested(row):
    return sum(v * (i % 4 + 1) for i, v in enumerate(row)), 8


@shader("continue_from_cases_for", """
uint2 f(uint b) {
    uint acc = 0, n = 0;
    for (uint i = 0; i < 8; i++) {
        switch (In[b + i]) {
        case 0: continue;
        case 1: acc += 1; break;
        case 2: acc += 10; continue;
        default: { continue; }
        }
        n++;
    }
    return uint2(acc, n);
}""")
def _continue_for(row):
    acc = n = 0
    for v in row:
        if v in (1, 2):
            acc += 1 if v == 1 else 10
        if v == 1:
            n += 1
    return acc, n


@shader("do_while_continue_return_fallthrough", """
uint2 f(uint b) {
    uint i = 0, acc = 0;
    do {
        i++;
        switch (In[b + (i & 7)]) {
        case 0: acc += 1; continue;
        case 1: if (i > 5) return uint2(i, acc); break;
        case 2: { if ((i & 1) == 0) continue; else acc += 10; }
        case 3: acc += 3; break;
        default: break;
        }
        acc *= 2;
    } while (i < 12);
    return uint2(99, acc);
}""")
def _do_while(row):
    i = acc = 0
    while True:
        i += 1
        v, cont = row[i & 7], False
        if v == 0:
            acc, cont = acc + 1, True               # `continue` goes to the `while` test
        elif v == 1:
            if i > 5:
                return i, acc
        elif v in (2, 3):
            if v == 2 and i % 2 == 0:
                cont = True
            else:
                acc += (10 if v == 2 else 0) + 3    # case 2 falls through into case 3
        if not cont:
            acc *= 2
        if i >= 12:
            return 99, acc


@shader("switches_and_loops_nested", """
uint2 f(uint b) {
    uint r = 0;
    for (uint a = 0; a < 4; a++) {
        switch (In[b + a]) {
        case 0:
            for (uint c = 4; c < 7; c++) {
                switch (In[b + c] % 3) {
                case 0: continue;
                case 1: if (a == 3 && c == 6) return uint2(1000, r); r += 1; break;
                default: r += 2;
                }
                r += 5;
            }
            break;
        case 1: if (In[b + 7] == 2) continue; r += 40; break;
        case 2: switch (In[b + 7] & 1) { case 0: continue; default: if (In[b + 7] == 3) return uint2(2000, r); } r += 300; break;
        default: r += 7;
        }
        r *= 3;
    }
    return uint2(r, 0);
}""")
def _nested(row):
    r = 0
    for a in range(4):
        v = row[a]
        if v == 0:
            for c in range(4, 7):
                w = row[c] % 3
                if w == 0:
                    continue
                if w == 1:
                    if a == 3 and c == 6:
                        return 1000, r
                    r += 1
                else:
                    r += 2
                r += 5
        elif v == 1:
            if row[7] == 2:
                continue
            r += 40
        elif v == 2:
            if row[7] & 1 == 0:
                continue
            if row[7] == 3:
                return 2000, r
            r += 300
        else:
            r += 7
        r *= 3
    return r, 0


# no switch: a loop body that ends in an if/else whose arms are empty or `continue` (a shape the fuzz
# generator found; dxil-spirv's SPIR-V left a selection other than through its merge before the empty
# blocks on the way to the latch were bypassed, cfg.bypass_continue_blocks)
shader("continue_from_nested_ifs", """
uint2 f(uint b) {
    uint w = 0, acc = 0;
    while (w < 8) {
        w++;
        acc += In[b + w - 1] * w;
        if (In[b + w - 1] > 2) {
        } else {
            if (In[b + w - 1] == 0) continue;
            if (w > 4) continue;
        }
    }
    return uint2(acc, w);
}""")(_weighted_sum)



# a `break` from an if nested in an if that also holds a `continue`, then an if at the end of the body
# (differential program 643): dxil-spirv took the empty break block for the outer selection's merge
@shader("break_and_continue_in_nested_if", """
uint2 f(uint b) {
    int w = 0;
    uint s = 0;
    while (w < 8) {
        w++;
        if (In[b + w - 1] != 0) {
            if (In[b + w - 1] == 4 && In[b] != 4) break;
            if (In[b + w - 1] == 2) continue;
            s += 10;
        }
        if (In[b + w - 1] == 3) s += 100;
        s += 1;
    }
    return uint2(s, w);
}""")
def _break_continue(row):
    s = w = 0
    while w < 8:
        w += 1
        v = row[w - 1]
        if v != 0:
            if v == 4 and row[0] != 4:
                break
            if v == 2:
                continue
            s += 10
        if v == 3:
            s += 100
        s += 1
    return s, w


# two loops in a row, each left by a `break`: the first loop's exit is the second's header
@shader("breaks_from_loops_in_a_row", """
uint2 f(uint b) {
    uint a = 0, i = 0, j = 0;
    for (i = 0; i < 4; i++) { if (In[b + i] == 1) break; a += In[b + i]; }
    for (j = 4; j < 8; j++) { if (In[b + j] == 0) break; a += 100; }
    return uint2(a, i * 16 + j);
}""")
def _breaks_in_a_row(row):
    a = 0
    for i in range(5):
        if i == 4 or row[i] == 1:
            break
        a += row[i]
    for j in range(4, 9):
        if j == 8 or row[j] == 0:
            break
        a += 100
    return a, i * 16 + j


# continues from ifs nested three deep into a latch that only joins values (a `for` without an increment):
# dxil-spirv left the innermost selection through the outer one's merge until the empty continue blocks
# were bypassed into the latch, its phis taking one incoming per predecessor (loops program 1 of tag probe)
@shader("continues_into_a_joining_latch", """
uint2 f(uint b) {
    uint s = 0, n = 0, i = 0;
    for (; i < 8; ) {
        uint x = In[b + i];
        i++;
        if (x != 0) {
            if (x == 4 && In[b] != 4) break;
            if (x & 1) {
                if (i > 2) {
                    if (x == 1) continue;
                    if (x == 3 && s > 2) continue;
                }
                s += x;
            }
        }
        n += 1;
    }
    return uint2(s, n * 16 + i);
}""")
def _continues_into_latch(row):
    s = n = i = 0
    while i < 8:
        x = row[i]
        i += 1
        if x != 0:
            if x == 4 and row[0] != 4:
                break
            if x & 1:
                if i > 2:
                    if x == 1:
                        continue
                    if x == 3 and s > 2:
                        continue
                s += x
        n += 1
    return s, n * 16 + i


# a `do ... while (true)` left by a break, a return and the end of the row, with continues before them:
# the latch's constant exit edge (`br i1 false`) shared the function's exit block with the return, and
# dxil-spirv's ladder switch did not dominate its cases; a constant latch test is now a plain back edge
# (loops programs 42 and 570 of tag hunt7l)
@shader("do_while_true_with_continue_break_and_return", """
uint2 f(uint b) {
    uint i = 0, s = 0;
    do {
        i++;
        if (i > 8) break;
        uint x = In[b + i - 1];
        if (x == 0) continue;
        if (x == 1) return uint2(99, s);
        if (x == 2) {
            if (i < 4) continue;
        }
        s += x * 10 + i;
        break;
    } while (true);
    return uint2(i, s);
}""")
def _do_while_true(row):
    i = s = 0
    while True:
        i += 1
        if i > 8:
            break
        x = row[i - 1]
        if x == 0:
            continue
        if x == 1:
            return 99, s
        if x == 2 and i < 4:
            continue
        s += x * 10 + i
        break
    return i, s


# in a loop inside an if, an arm that runs an inner loop and continues, beside continues and breaks from
# other ifs and a body whose end is empty: with every empty continue block bypassed into the joining latch,
# dxil-spirv took the inner loop's preheader for the merge of that arm's if and left the if's other path
# unstructured; the body's own end now keeps its block (loops program 1201 of tag hunt7l, since a3f475a)
@shader("inner_loop_then_continue_into_a_joining_latch", """
uint2 f(uint b) {
    uint s = 0, g = 5, i = 0;
    if (In[b] != 1) {
        for (; i < 8; i++) {
            uint x = In[b + i];
            if (x > 2) {
                if (x == 4) {
                    uint w = 0;
                    while (w < i) { w++; s += w; }
                    continue;
                }
                if (s > 5) break;
            }
            if (x < 2) {
                if (x == 0) { g = i; continue; }
                if (s > 2) break;
            }
            if (s > 30) break;
        }
    }
    return uint2(s, g * 16 + i);
}""")
def _inner_loop_then_continue(row):
    s, g, i = 0, 5, 0
    if row[0] != 1:
        while i < 8:
            x = row[i]
            i += 1                          # the for's increment, run by every continue and the body's end
            if x > 2:
                if x == 4:
                    s += sum(range(1, i))   # w runs 1 .. i - 1 (i before the increment)
                    continue
                if s > 5:
                    i -= 1                  # a break skips the increment
                    break
            if x < 2:
                if x == 0:
                    g = i - 1
                    continue
                if s > 2:
                    i -= 1
                    break
            if s > 30:
                i -= 1
                break
    return s, g * 16 + i


# a return from a switch inside a switch (no loop), with a loop after them: at -O0 the return branched
# straight to the function's exit and dxil-spirv aborted ("detected infinite loop"); it now sets the
# `returned` flag and leaves through each switch's merge, as it does from a switch inside a loop
# (shapes program 85 of tag hunt8x at -O0)
@shader("return_from_a_switch_in_a_switch", """
uint2 f(uint b) {
    uint s = 0;
    switch (In[b]) {
    case 4: {
        switch (In[b + 1]) {
        case 4: {
            if (In[b + 2] != In[b + 3]) return uint2(77, s);
            s += 5;
        }
        case 3: {
            s += 1;
            break;
        }
        }
        s += 10;
        break;
    }
    default:
        s += 100;
    }
    uint i = 0;
    do {
        i++;
        s += In[b + i];
    } while (i < 3);
    return uint2(s, i);
}""")
def _return_from_switch_in_switch(row):
    s = 0
    if row[0] == 4:
        if row[1] == 4:
            if row[2] != row[3]:
                return 77, s
            s += 5
        if row[1] in (4, 3):                # case 4 falls through into case 3
            s += 1
        s += 10
    else:
        s += 100
    return s + row[1] + row[2] + row[3], 3


def _rows(seed: int) -> list[list[int]]:
    """THREADS input rows: the all-default, first-value-returns, no-return and innermost-return rows, then
    random ones."""
    rng = random.Random(seed)
    fixed = [[4] * ROW, [1] + [0] * (ROW - 1), [2, 3, 0, 4, 2, 3, 0, 4], [0] * ROW, [4, 4, 4, 0, 0, 0, 1, 0]]
    return fixed + [[rng.randrange(5) for _ in range(ROW)] for _ in range(THREADS - len(fixed))]


def _source(hlsl: str) -> str:
    return HEAD + hlsl + ("\n" if hlsl.lstrip().startswith("[numthreads") else "\n" + MAIN)


@pytest.mark.vulkan
@pytest.mark.parametrize("opt", [0, 3])
@pytest.mark.parametrize("name", list(SHADERS))
def test_switch_in_loop_converts_and_runs(name, opt, vk):
    hlsl, model = SHADERS[name]
    res = R.compile_hlsl(_source(hlsl), "main", "cs_6_0", "dxil", opt_level=opt)
    assert res.ok, R.diagnostics_text(res)
    dxil_tools.read_dxil(res.binary)
    spirv = dxil_consumer.to_spirv(res.binary)         # any dxil-spirv failure fails the test
    for seed in (1, 2):
        rows = _rows(seed)
        data = struct.pack(f"<{THREADS * ROW}I", *(v for row in rows for v in row))
        want = [v for row in rows for v in model(row)]
        out0 = R.sentinel(2 * THREADS)
        u = dxil_consumer.SHIFTS["u"]
        got_vk = vk.run_compute(spirv, "main", [vk.Buf(0, u, data, "storage"), vk.Buf(0, u + 1, out0, "storage")])
        assert list(struct.unpack(f"<{2 * THREADS}I", got_vk[1])) == want, (seed, "dxil-spirv on lavapipe")
        got_lli = run_dxil_compute(res.binary, "main", [(0, 0, "u", data), (1, 0, "u", out0)])
        assert list(struct.unpack(f"<{2 * THREADS}I", got_lli[1])) == want, (seed, "lli")


def test_models_take_every_path():
    """The input rows reach each model's returns and continues (so the shaders' do too)."""
    rows = _rows(1) + _rows(2)
    assert {_return_from_case(r)[0] == 99 for r in rows} == {True, False}
    assert {_several_returns(r)[0] // 100 for r in rows} >= {0, 1, 2}
    assert {_loop_in_switch(r)[0] == 99 for r in rows} == {True, False}
    assert {_switch_in_switch(r)[0] == 99 for r in rows} == {True, False}
    assert {_switch_in_loop_in_loop(r)[0] == 99 for r in rows} == {True, False}
    assert {_continue_for(r)[1] > 0 for r in rows} == {True, False}
    assert {_do_while(r)[0] == 99 for r in rows} == {True, False}
    assert {_nested(r)[0] for r in rows} >= {1000, 2000}
    assert {_break_continue(r)[1] for r in rows} > {8}
    assert {(_breaks_in_a_row(r)[1] // 16, _breaks_in_a_row(r)[1] % 16 == 8) for r in rows} > {(4, True)}
    assert {_continues_into_latch(r)[1] % 16 == 8 for r in rows} == {True, False}
    assert {_do_while_true(r)[0] for r in rows} >= {99, 9} and {_do_while_true(r)[0] for r in rows} - {99, 9}
    assert len({_continues_into_latch(r)[1] // 16 for r in rows}) > 3      # threads continue different times
    assert {_return_from_switch_in_switch(r)[0] for r in rows} >= {77} and len({_return_from_switch_in_switch(r)[0] for r in rows}) > 3
    assert {_inner_loop_then_continue(r)[1] % 16 for r in rows} - {0, 8} and 8 in {_inner_loop_then_continue(r)[1] % 16 for r in rows}


@pytest.mark.parametrize("opt", [0, 3])
def test_a_switch_under_60_loops_converts(opt):
    """The depth at which a general forwarding-block fold made dxil-spirv crash: a switch that may return,
    continue or break, inside 60 nested loops, converts and validates."""
    inner = "switch (U[1]) { case 1: return; case 2: continue; case 3: if (U[2] == 0) continue; break; default: break; }"
    src = ("RWStructuredBuffer<uint> U : register(u0);\n[numthreads(1, 1, 1)]\nvoid main() {\n"
           + "for (uint i = 0; i < U[3]; ++i) {" * 60 + inner + "U[0] += 1;" + "}" * 60 + "\n}\n")
    res = R.compile_hlsl(src, "main", "cs_6_0", "dxil", opt_level=opt)
    assert res.ok, R.diagnostics_text(res)
    dxil_consumer.to_spirv(res.binary)


# ---------------------------------------------------------------- the shape itself


def _lowered_entry(src: str, opt: int):
    """The entry function of the lowered LLVM module (the compile's own IR lowered again, to the same
    container)."""
    opts = CompileOptions(entry="main", profile="cs_6_0", target="dxil", opt_level=opt)
    res = compile_file("switch_cfg.hlsl", opts, text=src, keep_module=True)
    assert res.ok and res.module is not None, R.diagnostics_text(res)
    out = compile_dxil(res.module, opts)
    assert out.container == res.binary
    return out.lowered.entry


@pytest.mark.parametrize("opt", [0, 3])
@pytest.mark.parametrize("name", [n for n, (hlsl, _m) in SHADERS.items()
                                  if "switch (" in hlsl and n != "return_from_a_switch_in_a_switch"])   # in no loop
def test_a_switch_in_a_loop_merges_inside_the_loop(name, opt):
    """Every path out of a switch that sits in a loop meets again inside that loop: the switch's immediate
    post-dominator reaches the switch again.  A case that returns out of the loop (the shape dxil-spirv
    aborted on) makes it the code after the loop instead."""
    f = _lowered_entry(_source(SHADERS[name][0]), opt)
    blocks = f.blocks
    succs = ctrldep.successors(blocks)
    ipdom = ctrldep.post_dominators(f, succs)

    def reaches(a: int, b: int) -> bool:
        seen, stack = {a}, [a]
        while stack:
            for s in succs[stack.pop()]:
                if s == b:
                    return True
                if s not in seen:
                    seen.add(s)
                    stack.append(s)
        return False

    switches = [i for i, bb in enumerate(blocks) if bb.instructions[-1].op == "switch" and reaches(i, i)]
    assert switches or opt == 3, "the -O0 build keeps a switch in a loop"
    for i in switches:
        m = ipdom[i]
        assert m >= 0 and reaches(m, i), f"a path leaves the loop of switch block {i} before its merge"
