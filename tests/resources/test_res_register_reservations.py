"""Register and offset reservations on `$Globals` and cbuffers (issue 20, "silent wrong values"):
`register(cN)` on a global, `packoffset(cN.comp)` in every component form (also on a global),
profile-qualified `register(cs, ...)` / `register(vs_6_0, ...)` clauses (the compiled stage's wins,
another stage's is ignored), `register(bN, spaceM)` on a cbuffer; members without a reservation go
after the highest reserved byte (as DXC allocates them); overlapping reservations are errors.
Word i of the constant buffer holds float(i); the expected word comes from the register arithmetic."""

from __future__ import annotations

import pytest
from lang_util import compile_cs, run_backend

pytestmark = [pytest.mark.vulkan, pytest.mark.usefixtures("vk")]
BACKENDS = ["spirv", "dxil", "dxil-vk"]
COMP = "xyzw"


def word(reg: int, comp: str = "x") -> int:
    """Word of `c<reg>.<comp>`: registers are 16 bytes."""
    return 4 * reg + COMP.index(comp)


def after(end_word: int, size: int) -> int:
    """First word for an unreserved member of `size` words after `end_word` (no 16-byte straddle)."""
    w = end_word
    if w // 4 != (w + size - 1) // 4:
        w = (w + 3) // 4 * 4
    return w


# name -> (declarations, buffer name, reads, expected words)
CASES = {
    "global_register_c": ("float4 a : register(c3);\nfloat b;\n", "$Globals", ["a.y", "b"],
                          [word(3, "y"), after(word(4), 1)]),
    "global_register_profiles": (
        "float a : register(cs, c2) : register(ps, c5);\nfloat4 b : register(c0);\nfloat c : register(vs_6_0, c7);\n",
        "$Globals", ["a", "b.w", "c"], [word(2), word(0, "w"), after(word(2) + 1, 1)]),
    # DXC parses a register subcomponent and its code generators ignore it: c3[2] is c3 (with a warning)
    "global_register_subcomponent": ("float4 a : register(c3[2]);\nfloat b : register(c1[1.5]);\n", "$Globals",
                                     ["a.y", "b"], [word(3, "y"), word(1)]),
    "global_packoffset": ("float a : packoffset(c1.y);\nfloat2 b;\n", "$Globals", ["a", "b.y"],
                          [word(1, "y"), after(word(1, "z"), 2) + 1]),
    "cbuffer_packoffset_every_component": (
        "cbuffer C : register(b1) { float a : packoffset(c1.y); float2 b : packoffset(c2.z); float c : packoffset(c0.w);"
        " float d : packoffset(c3); float e : packoffset(c4.x); float3 f : packoffset(c5.y); };\n",
        "C", ["a", "b.y", "c", "d", "e", "f.z"],
        [word(1, "y"), word(2, "w"), word(0, "w"), word(3), word(4), word(5, "w")]),
    "cbuffer_unreserved_after_reserved": (
        "cbuffer C : register(b1) { float a; float4 b : packoffset(c2); float c; };\n",
        "C", ["a", "b.x", "c"], [word(3), word(2), word(3, "y")]),
    "cbuffer_register_space": ("cbuffer C : register(b2, space1) { float a; float b; };\n", "C", ["b"], [1]),
    "cbuffer_profile_register": ("cbuffer C : register(cs_6_0, b1) : register(vs, b4) { float a; float b; };\n",
                                 "C", ["b"], [1]),
}


def _params():
    for name in CASES:
        for b in BACKENDS:
            yield pytest.param(name, b, id=f"{name}-{b}")


@pytest.mark.parametrize("name, backend", list(_params()))
def test_reservation_honoured(name, backend):
    decls, buf, reads, words = CASES[name]
    src = ("RWStructuredBuffer<float> Out : register(u0);\n" + decls + "[numthreads(1, 1, 1)]\nvoid main() { "
           + " ".join(f"Out[{i}] = {r};" for i, r in enumerate(reads)) + " }\n")
    got = run_backend(backend, src, {"Out": ("float", len(reads))}, {buf: ("float", [float(i) for i in range(48)])})
    assert got["Out"] == [float(w) for w in words]


OVERLAPS = {
    "packoffset_inside_a_vector": ("cbuffer C : register(b1) { float4 a : packoffset(c0); float b : packoffset(c0.y); };\n",
                                   "'b' overlaps 'a' in 'C'", 2),
    "two_globals_on_one_register": ("float4 a : register(c1);\nfloat2 b : register(c1);\n", "'b' overlaps 'a' in '$Globals'", 3),
    "global_register_inside_array": ("float4 arr[3] : register(c0);\nfloat x : packoffset(c2.w);\n",
                                     "'x' overlaps 'arr' in '$Globals'", 3),
}


@pytest.mark.parametrize("name", list(OVERLAPS))
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_overlapping_reservations_are_errors(name, target):
    decls, start, line = OVERLAPS[name]
    src = ("RWStructuredBuffer<float> Out : register(u0);\n" + decls
           + "[numthreads(1, 1, 1)]\nvoid main() { Out[0] = 1; }\n")
    res = compile_cs(src, target)
    assert not res.ok
    [err] = [d for d in res.diagnostics if d.severity == "error"]
    assert err.message.startswith(start) and err.loc.line == line
