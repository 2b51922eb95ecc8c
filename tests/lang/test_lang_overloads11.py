"""Overload ranking (issue 20): user overload sets with int / uint / float / literal arguments, component-count
changes, ambiguity, and user functions named as intrinsics.

Each case's expected choice is written by hand and also derived here from a model of DXC's ranking
(SemaHLSL.cpp: ScoreCast per argument, summed per candidate by ScoreFunction, least wins and a tie is
ambiguous in GetBestViableFunction).  ScoreCast compares the parameter kind P and the argument kind A through
their combination C = CombineBasicTypes(P, A) and sets, worst first: truncation (the argument has more
components), a cast from the argument (C from A), a cast to the parameter (P from C), an int sign change from
the argument, one to the parameter, a promotion from the argument, one to the parameter, a splat.  Casts:
anything but equal kinds, int <-> uint of one width, a literal int to any int, a literal float to any float;
promotions: a wider float from a float, a wider int from an int.  An out argument scores the copy back too.

A user function named as an intrinsic wins where it matches exactly (the rule issue 20 asks for, FXC's);
otherwise the intrinsic is called.  Each overload returns its own number, so the accepted calls are executed
on every backend; refused calls must give one located error.
"""

from __future__ import annotations

import pytest
from lang_util import SlotTable, case, compile_cs, table_test

# kinds: (class, bits, unsigned, literal); bool is its own class
KINDS = {"bool": ("bool", 0, False, False), "int": ("int", 32, False, False), "uint": ("int", 32, True, False),
         "int64_t": ("int", 64, False, False), "uint64_t": ("int", 64, True, False),
         "float": ("float", 32, False, False), "double": ("float", 64, False, False),
         "LI": ("int", 0, False, True), "LF": ("float", 0, False, True)}


def _combine(p: str, a: str) -> str:
    """CombineBasicTypes on the kinds above."""
    if p == a:
        return p
    (cp, bp, up, lp), (ca, ba, ua, la) = KINDS[p], KINDS[a]
    if cp == ca == "bool":
        return "bool"
    floating = "float" in (cp, ca)
    if lp and la:
        return "LF" if floating else "LI"
    if floating and not cp == ca == "float":
        bits = (bp if cp == "float" else ba) or 32
        return {32: "float", 64: "double"}[bits]
    bits = max(bp, ba) or 32
    if floating:
        return {32: "float", 64: "double"}[bits]
    return {(32, False): "int", (32, True): "uint", (64, False): "int64_t", (64, True): "uint64_t"}[(bits, up or ua)]


def _promotion(to: str, frm: str) -> bool:
    return (frm, to) in {("float", "double"), ("int", "int64_t"), ("int", "uint64_t"), ("uint", "int64_t"),
                         ("uint", "uint64_t")}


def _cast(to: str, frm: str) -> bool:
    if to == frm:
        return False
    ints = ("int", "uint", "int64_t", "uint64_t")
    if to == "LI":
        return frm not in ints
    if to in ints:
        return frm != "LI" and {to, frm} not in ({"int", "uint"}, {"int64_t", "uint64_t"})
    if to == "LF":
        return frm not in ("LF", "float", "double")
    if to in ("float", "double"):
        return frm != "LF"
    return True


def _int_cast(to: str, frm: str) -> bool:
    if to == frm:
        return False
    ints = ("int", "uint", "int64_t", "uint64_t")
    if to == "LI":
        return frm not in ints
    if to in ints:
        return frm != "LI"
    if to == "LF":
        return frm not in ("LF", "float", "double")
    if to in ("float", "double"):
        return frm != "LF"
    return True


def score_cast(p: tuple[str, int], a: tuple[str, int]) -> int:
    """ScoreCast(parameter, argument) for (kind, component count) types."""
    if p == a:
        return 0
    (pk, pn), (ak, an) = p, a
    c = _combine(pk, ak)
    # IsPromotion(left, right): right widens to left; the parameter side compares P with C, the argument C with A
    l_promo, r_promo = _promotion(pk, c), _promotion(c, ak)
    l_cast = not l_promo and _cast(pk, c)
    r_cast = not r_promo and _cast(c, ak)
    l_int = not l_promo and not l_cast and _int_cast(pk, c)
    r_int = not r_promo and not r_cast and _int_cast(c, ak)
    flags = (an < pn, l_promo, r_promo, l_int, r_int, l_cast, r_cast, pn < an)
    return sum(1 << (2 + 7 * i) for i, f in enumerate(flags) if f)


def viable(p: tuple[str, int], a: tuple[str, int]) -> bool:
    """Implicit conversions of this table's shapes: a scalar splats, a vector truncates (to a scalar too)."""
    return a[1] == 1 or p[1] <= a[1]


def choose(params: list[list[tuple[str, int]]], args: list[tuple[str, int]], outs: tuple[int, ...] = ()):
    """The index of the winning overload, 'ambiguous' or 'none'."""
    scores = {}
    for i, ps in enumerate(params):
        if len(ps) != len(args) or not all(viable(p, a) for p, a in zip(ps, args)):
            continue
        if any(not viable(a, p) for j, (p, a) in enumerate(zip(ps, args)) if j in outs):
            continue
        scores[i] = sum(score_cast(p, a) + (score_cast(a, p) if j in outs else 0)
                        for j, (p, a) in enumerate(zip(ps, args)))
    if not scores:
        return "none"
    best = min(scores.values())
    winners = [i for i, s in scores.items() if s == best]
    return winners[0] if len(winners) == 1 else "ambiguous"


def _t(spelled: str) -> tuple[str, int]:
    """'float3' -> ('float', 3); literal arguments are 'LI' / 'LF'."""
    base = spelled.rstrip("1234")
    return base, int(spelled[len(base):] or 1)


# (name, parameter lists, argument types, the HLSL arguments, expected: overload index | 'ambiguous' | 'none')
ARGS = {"int": "i", "uint": "u", "float": "f", "double": "d", "int64_t": "l", "bool": "b", "float2": "f2",
        "float3": "f3", "float4": "f4", "int2": "i2", "LI": "1", "LF": "1.5"}
CASES = [
    ("int_exact", [["int"], ["uint"], ["float"]], ["int"], 0),
    ("uint_exact", [["int"], ["uint"], ["float"]], ["uint"], 1),
    ("float_exact", [["int"], ["uint"], ["float"]], ["float"], 2),
    ("literal_int_int_or_uint", [["int"], ["uint"], ["float"]], ["LI"], "ambiguous"),
    ("literal_int_prefers_int_to_float", [["int"], ["float"]], ["LI"], 0),
    ("literal_float_float_or_double", [["float"], ["double"]], ["LF"], "ambiguous"),
    ("literal_float_prefers_float_to_int", [["int"], ["float"]], ["LF"], 1),
    ("int_to_float_or_double", [["float"], ["double"]], ["int"], "ambiguous"),
    ("int_promotes_to_int64", [["int64_t"], ["float"]], ["int"], 0),
    ("int_sign_change_beats_float", [["uint"], ["float"]], ["int"], 0),
    ("float_promotes_to_double_not_int", [["int"], ["double"]], ["float"], 1),
    ("promotion_beats_sign_change", [["uint"], ["int64_t"]], ["int"], 1),
    ("int_from_uint_beats_bool", [["bool"], ["int"]], ["uint"], 1),
    ("bool_exact", [["bool"], ["int"]], ["bool"], 0),
    ("double_to_float_or_int", [["int"], ["float"]], ["double"], "ambiguous"),
    ("truncate_float3_to_float2", [["float2"], ["float4"]], ["float3"], 0),
    ("truncate_float2_to_scalar", [["float"], ["float4"]], ["float2"], 0),
    ("splat_float_to_float2_or_float4", [["float4"], ["float2"]], ["float"], "ambiguous"),
    ("splat_beats_splat_and_cast", [["float4"], ["int4"]], ["float"], 0),
    ("vector_exact_by_kind", [["float2"], ["int2"]], ["int2"], 1),
    ("cast_beats_truncation", [["float2"], ["int"]], ["int2"], 0),
    ("cast_alone_beats_splat_and_cast", [["float2"], ["float"]], ["int"], 1),
    ("crossed_casts_tie", [["float", "int"], ["int", "float"]], ["int", "int"], "ambiguous"),
    ("crossed_literals", [["float", "int"], ["int", "float"]], ["LF", "LI"], 0),
    ("two_exact_beat_one", [["float", "float"], ["float", "int"]], ["float", "int"], 1),
    ("sum_of_arguments", [["int", "int", "int"], ["float", "float", "float"]], ["int", "int", "float"], 0),
    ("no_wider_vector", [["float4"]], ["float3"], "none"),
    ("no_candidate_takes_float3", [["float4"], ["int4"]], ["float3"], "none"),
]


def _arg_exprs(args: list[str]) -> str:
    return ", ".join(ARGS[a] for a in args)


def _prelude(name: str, params: list[list[str]]) -> str:
    return "".join(f"int {name}({', '.join(f'{p} p{j}' for j, p in enumerate(ps))}) {{ return {i + 1}; }}\n"
                   for i, ps in enumerate(params))


SETUP = ("    float one = In[0];\n    int i = (int)one; uint u = (uint)one; float f = one; double d = one;\n"
         "    int64_t l = (int64_t)one; bool b = one > 0; float2 f2 = one; float3 f3 = one; float4 f4 = one;\n"
         "    int2 i2 = (int)one;\n")


@pytest.mark.parametrize("name, params, args, want", CASES, ids=[c[0] for c in CASES])
def test_model_agrees_with_the_hand_derived_choice(name, params, args, want):
    """The hand-derived expectation and the model of ScoreCast agree (a typo in either fails here)."""
    assert choose([[_t(p) for p in ps] for ps in params], [_t(a) for a in args]) == want


ACCEPTED = [c for c in CASES if isinstance(c[3], int)]
CHOSEN = SlotTable("overloads11", "int", [
    case(name, f"f_{name}({_arg_exprs(args)})", want + 1, prelude=_prelude(f"f_{name}", params))
    for name, params, args, want in ACCEPTED], setup=SETUP, inputs={"In": ("float", [1.0])})
test_overload_choice = table_test(CHOSEN)


def _refused(name: str, params: list[list[str]], args: list[str]):
    src = ("RWStructuredBuffer<float> In : register(u0);\n" + _prelude("pick", params) +
           "[numthreads(1, 1, 1)]\nvoid main() {\n" + SETUP + f"    In[1] = pick({_arg_exprs(args)});\n}}\n")
    return compile_cs(src), src.count("\n", 0, src.index("    In[1] = pick(")) + 1


@pytest.mark.parametrize("name, params, args, want", [c for c in CASES if not isinstance(c[3], int)],
                         ids=[c[0] for c in CASES if not isinstance(c[3], int)])
def test_refused_overload_calls(name, params, args, want):
    """One error, at the call (column 13), naming the ambiguity or the missing match."""
    res, line = _refused(name, params, args)
    assert not res.ok
    errors = [d for d in res.diagnostics if d.severity == "error"]
    assert len(errors) == 1, [e.message for e in errors]
    e = errors[0]
    if want == "ambiguous":
        assert (e.message, e.loc.line, e.loc.col) == ("call to 'pick' is ambiguous", line, 13)
        assert len(e.notes) == 2
    elif len(params) == 1:          # one candidate: the argument that does not convert
        assert e.message.startswith("cannot convert") and e.loc.line == line
    else:
        assert e.message.startswith("no matching function for call to 'pick'") and (e.loc.line, e.loc.col) == (line, 13)


# out parameters: the copy back scores too (DXC adds ScoreCast(argument, parameter))
OUT_CASES = [
    ("out_int_exact", [["int"], ["float"]], ["int"], 0),
    ("out_uint_to_int_beats_float", [["int"], ["float"]], ["uint"], 0),
    ("out_float_to_double_both_ways", [["double"], ["int"]], ["float"], 0),
    ("out_int_to_float_or_double", [["float"], ["double"]], ["int"], "ambiguous"),
]


@pytest.mark.parametrize("name, params, args, want", OUT_CASES, ids=[c[0] for c in OUT_CASES])
def test_model_out_choice(name, params, args, want):
    assert choose([[_t(p) for p in ps] for ps in params], [_t(a) for a in args], outs=(0,)) == want


def _out_prelude(name: str, params: list[list[str]]) -> str:
    return "".join(f"int {name}(out {ps[0]} p0) {{ p0 = 0; return {i + 1}; }}\n" for i, ps in enumerate(params))


OUT_CHOSEN = SlotTable("overloads11_out", "int", [
    case(name, f"o_{name}({ARGS[args[0]]})", want + 1, prelude=_out_prelude(f"o_{name}", params))
    for name, params, args, want in OUT_CASES if isinstance(want, int)], setup=SETUP, inputs={"In": ("float", [1.0])})
test_out_overload_choice = table_test(OUT_CHOSEN)


def test_out_overload_ambiguity():
    src = ("RWStructuredBuffer<float> In : register(u0);\n" + _out_prelude("pick", [["float"], ["double"]]) +
           "[numthreads(1, 1, 1)]\nvoid main() {\n" + SETUP + "    In[1] = pick(i);\n}\n")
    res = compile_cs(src)
    errors = [d for d in res.diagnostics if d.severity == "error"]
    assert not res.ok and [(e.message, e.loc.col) for e in errors] == [("call to 'pick' is ambiguous", 13)]


# ------------------------------------------------------------------ user functions named as intrinsics

NAMED = SlotTable("overloads11_intrinsic_names", "float", [
    # an exact match: the user's function (it returns its own number)
    case("user_max_float2_exact", "max(f2, f2).x", 100.0, prelude="float2 max(float2 a, float2 b) { return 100; }\n"),
    case("user_dot_exact", "dot(f3, f3)", 200.0, prelude="float dot(float3 a, float3 b) { return 200; }\n"),
    case("user_out_exact", "frexp(f, e1)", 300.0,
         prelude="float frexp(float x, out float e) { e = 7; return 300; }\n"),
    # a literal int takes a uint parameter at no cost in DXC's ranking: an exact match
    case("user_min_literal", "min(i, 5)", 400.0, prelude="int min(int a, uint b) { return 400; }\n"),
    # not exact (float3 for the user's float2, a float for int): the intrinsic
    case("intrinsic_max_float3", "max(f3 * 2, f3).x", 2.0),
    case("intrinsic_abs_float", "abs(-2.5 * f)", 2.5, prelude="int abs(int a) { return 500; }\n"),
], setup=SETUP + "    float e1 = 0;\n", inputs={"In": ("float", [1.0])})
test_user_functions_named_as_intrinsics = table_test(NAMED)
