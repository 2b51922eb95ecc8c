"""The multi-thread compute generator (fuzz/workgroup_gen.py): its model's rules on hand-checked values, its
checker on corrupted buffers, and its programs on the Vulkan routes (SPIR-V on lavapipe, rerun at -O0 and
judged by the same model; our DXIL through dxil-spirv on lavapipe)."""

from __future__ import annotations

import random
import struct

import pytest

from fuzz import workgroup_gen as g

pytestmark = [pytest.mark.vulkan, pytest.mark.llvm, pytest.mark.usefixtures("vk")]

FEATURES = ("groupshared", "GroupMemoryBarrierWithGroupSync", "AllMemoryBarrierWithGroupSync", "InterlockedAdd(C",
            "(Acc", "Raw.Interlocked", "InterlockedCompareExchange", "InterlockedCompareStore", "InterlockedExchange",
            "InterlockedMin", "InterlockedMax", "AccI", "for (uint r", "WaveActiveSum", "WaveActiveProduct", "WavePrefix",
            "WaveActiveBallot", "WaveMatch(", "WaveMultiPrefix", "WaveReadLaneAt", "WaveReadLaneFirst",
            "WaveActiveAllEqual", "WaveActiveCountBits", "WaveIsFirstLane", "QuadRead", "} else {", "for (uint i",
            "switch", "void f", "return;", "struct P", "][", "uint2(", "bool2", "SV_GroupThreadID", "uint2 ", "3(",
            "In[0] % 3u", "WaveGetLaneCount() != 0u", "struct Q", "u].y", "continue;", "uint a = A0[")


def _seeds(count: int) -> list[int]:
    """The lowest seeds, after a greedy pick of the first 400 that together draw every feature (so the fixed
    seeds keep covering them when the generator changes)."""
    texts = {s: g.generate(random.Random(f"wg:{s}")).source for s in range(400)}
    picked: list[int] = []
    for needle in FEATURES:
        if not any(needle in texts[s] for s in picked):
            picked.append(next(s for s in texts if needle in texts[s]))
    return sorted(picked + [s for s in range(count) if s not in picked][:max(0, count - len(picked))])


SEEDS = _seeds(30)


def test_reductions_wrap_and_stay_exact() -> None:
    assert g._combine("Sum", "uint", [0xFFFFFFFF, 2]) == 1
    assert g._combine("Sum", "int", [0x7FFFFFFF, 1]) == -0x80000000
    assert g._combine("Product", "int", [-2, 3, -5]) == 30
    assert g._combine("Product", "float", [-2.0, 0.5, -1.0]) == 1.0
    assert g._combine("Product", "uint", []) == 1 and g._combine("Sum", "float", []) == 0.0
    assert g._combine("BitAnd", "uint", []) == 0xFFFFFFFF
    assert g._combine("BitXor", "uint", [5, 3, 1]) == 7
    assert g._combine("Min", "int", [3, -4, 2]) == -4
    assert g._mask([0, 3, 33, 127]) == [9, 2, 0, 1 << 31]


def test_original_values_are_judged_as_some_order() -> None:
    # three adds of 2, 5, 1 onto 10: the originals 10, 12, 17 chain (any order of the threads)
    assert g._order_check("Add", True, 10, 18, [(5, 12), (2, 10), (1, 17)], "c") == []
    assert g._order_check("Add", True, 10, 18, [(5, 12), (2, 10), (1, 12)], "c")       # two saw 12
    assert g._order_check("Add", True, 10, 17, [(5, 12), (2, 10), (1, 17)], "c")       # final lost one add
    assert g._order_check("Exchange", True, 0, 3, [(1, 0), (2, 1), (3, 2)], "c") == []
    assert g._order_check("Exchange", True, 0, 3, [(1, 0), (2, 1), (3, 1)], "c")
    assert g._order_check("CompareExchange", True, 0, 2, [(1, 2), (2, 0), (3, 2)], "c") == []
    assert g._order_check("CompareExchange", True, 0, 2, [(1, 0), (2, 0), (3, 2)], "c")  # two winners


def _synthetic_out(p: g.WgProgram, size: int) -> dict[str, bytes]:
    """Lane words of `size`-lane waves filled in order, every other word what the model says (originals and
    exchange results left to the order checks, so those sections are kept out of this check)."""
    ths = g.threads(p)
    T = p.numthreads[0] * p.numthreads[1] * p.numthreads[2]
    words = [g.SENTINEL] * (len(ths) * p.slots)
    for t in ths:
        lane, first = t.gi % size, t.gi - t.gi % size
        words[t.ft * p.slots:t.ft * p.slots + 3] = [size, lane, first]
        t.lane, t.wave = lane, [t.ft - lane + k for k in range(min(size, T - first))]
    for s in p.sections:
        for (ft, k), w in s.model(ths).items():
            words[ft * p.slots + k] = g.SENTINEL if w is None else w
    accs = {n: struct.pack(f"<{len(w)}I", *(x or 0 for x in w)) for n, w in p.acc_model(ths).items()}
    return {"Out": struct.pack(f"<{len(words)}I", *words), **accs}


def test_the_checker_reports_any_changed_word() -> None:
    """On programs without order checks, the model's own words pass and each changed word is reported."""
    done = 0
    for seed in range(200):
        p = g.generate(random.Random(f"wgcheck:{seed}"))
        if any(s.check for s in p.sections):
            continue
        got = _synthetic_out(p, 4)
        assert g.findings(p, got, "model") == []
        out = list(struct.unpack(f"<{len(got['Out']) // 4}I", got["Out"]))
        for i in random.Random(seed).sample(range(len(out)), 20):
            if i % p.slots < g.LANE_SLOTS:
                continue
            bad = out[:]
            bad[i] ^= 0x100
            assert g.findings(p, {**got, "Out": struct.pack(f"<{len(bad)}I", *bad)}, "model"), (seed, i)
        done += 1
        if done == 5:
            break
    assert done == 5


def test_inconsistent_lanes_are_a_finding() -> None:
    p = g.generate(random.Random("wgcheck:0"))
    got = _synthetic_out(p, 4)
    out = list(struct.unpack(f"<{len(got['Out']) // 4}I", got["Out"]))
    out[1] = 2                      # thread 0 claims lane 2 where lane 0 belongs
    assert "inconsistent lanes" in g.findings(p, {**got, "Out": struct.pack(f"<{len(out)}I", *out)}, "x")[0]


def test_the_seeds_cover_every_feature() -> None:
    text = "\n".join(g.generate(random.Random(f"wg:{s}")).source for s in SEEDS)
    for needle in FEATURES:
        assert needle in text, needle
    shapes = {(p.numthreads, p.groups) for p in (g.generate(random.Random(f"wg:{s}")) for s in SEEDS)}
    assert any(n[1] * n[2] > 1 for n, _ in shapes) and any(gr != (1, 1, 1) for _, gr in shapes)
    assert any((n[0] * n[1] * n[2]) % 8 for n, _ in shapes)           # a partly filled wave on lavapipe


@pytest.mark.parametrize("route", g.ROUTES)
@pytest.mark.parametrize("seed", SEEDS)
def test_workgroup_programs_give_the_models_values(seed: int, route: str) -> None:
    p = g.generate(random.Random(f"wg:{seed}"))
    assert g.route_findings(p, route) == [], p.source
