"""Every generic intrinsic x argument shapes, against a model of DXC's matching rule (issue 20).

The model below is written from DXC's intrinsic table (utils/hct/gen_intrin_main.txt: `numeric<>`,
`$type1`, `float_like<c>`, `$match<t, c>`) and SemaHLSL.cpp's MatchArguments / CombineBasicTypes; it does
not look at our sema.  For one call it gives ACCEPT with the result type, or REFUSE:

- each parameter names a template (shape) slot and a component-type slot; `$type1` shares both with the
  first argument, `$match<t, c>` names them;
- shapes: the first argument fixes a slot's kind, a scalar fits any kind (and a later vector or matrix
  replaces a scalar kind), otherwise a vector and a matrix never meet; `<>` layouts share the rows `r`
  and columns `c` of the call (each the least over the non-scalar arguments: truncation), `<c>` is a
  vector (a scalar becomes one, a matrix is refused), `<3>` a vector of at least 3, a plain type a scalar;
- component types combine pairwise (CombineBasicTypes: int + uint is uint, int + float float, a literal
  takes the other side's type, bool with bool stays bool, half + float float); the combination must then
  be in the parameter's list, and where the list ends in NOCAST (numeric32_only, double_only, uint_only)
  an argument outside it is refused; otherwise a kind not in the list becomes the list's first
  (`sin(int)` is a float, `max(bool, bool)` a float);
- a literal argument that does not decide the result's component type takes a concrete type first.

Each call is compiled in-process (sema only, many calls a shader, one a line); accepted calls are compiled
again and the type of each call's expression is read from the IR.  One compile per group of intrinsics
then takes the accepted calls through both backends.  Our IR has no one-component vector (a `float1` is a
float), so results are compared as the IR spells them.
"""

from __future__ import annotations

import functools
import itertools
import random
import struct

import pytest
from harness import dxil_consumer, dxil_tools, tools
from lang_util import Case, SlotTable, case, compile_cs, diagnostics_text, f32, table_test

from shaderbuild import ir
from shaderbuild.compiler import predefined_macros
from shaderbuild.diagnostics import CompileError, DiagnosticSink
from shaderbuild.front.parser import parse
from shaderbuild.front.preprocessor import preprocess
from shaderbuild.front.sema.conversions import with_scalar
from shaderbuild.front.sema.lower import analyze
from shaderbuild.options import CompileOptions, parse_profile

PROFILE = "cs_6_6"

# ------------------------------------------------------------------ the model: component types

ELEMS = ("bool", "int", "uint", "float", "half", "double", "int64_t", "uint64_t")
LI, LF = "literal int", "literal float"
# (floating, integer, unsigned, boolean, literal, bits; 0 bits: a literal or bool)
PROPS = {
    "bool": (False, True, False, True, False, 0), "int": (False, True, False, False, False, 32),
    "uint": (False, True, True, False, False, 32), "int64_t": (False, True, False, False, False, 64),
    "uint64_t": (False, True, True, False, False, 64), "half": (True, False, False, False, False, 16),
    "float": (True, False, False, False, False, 32), "double": (True, False, False, False, False, 64),
    LI: (False, True, False, False, True, 0), LF: (True, False, False, False, True, 0),
}
FLOATS = {16: "half", 32: "float", 64: "double"}
INTS = {(32, False): "int", (32, True): "uint", (64, False): "int64_t", (64, True): "uint64_t"}


def combine(a: str, b: str) -> str:
    """CombineBasicTypes for the kinds of this sweep (no min precision)."""
    if a == b:
        return a
    fa, ia, ua, ba, la, bits_a = PROPS[a]
    fb, ib, ub, bb, lb, bits_b = PROPS[b]
    if ba and bb:
        return "bool"
    floating = fa or fb
    if la and lb:
        return LF if floating else LI
    if floating and not (fa and fb):        # one side is float: its kind and width
        bits = (bits_a if fa else bits_b) or 32
        return FLOATS[bits]
    bits = max(bits_a, bits_b) or 32
    if floating:
        return FLOATS[bits]
    return INTS[(bits, (ua or ub))]


NOCAST = "nocast"
C_FLOAT_LIKE = ("float", "half", LF)
C_ANY_FLOAT = ("float", "half", "double", LF)
C_FLOAT = ("float", LF)
C_NUMERIC = ("float", "half", "double", LF, LI, "int", "uint", "int64_t", "uint64_t")
C_ANY = (*C_NUMERIC, "bool")
C_ANY_INT = ("int", "uint", "int64_t", "uint64_t", LI)
C_UINT = ("uint", LI)
C_INT = ("int", LI)
C_BOOL = ("bool",)
C_UINT_ONLY = ("uint", "uint64_t", LI, NOCAST)
C_NUM32_ONLY = ("float", LF, LI, "int", "uint", NOCAST)
C_DOUBLE_ONLY = ("double", LF, NOCAST)


def in_list(kind: str, comps: tuple[str, ...]) -> bool:
    """Whether `kind` is one of the list's entries before NOCAST (a literal int and float stand in for each
    other in the per-argument check)."""
    for c in comps:
        if c == NOCAST:
            return False
        if c == kind or {c, kind} == {LI, LF}:
            return True
    return False


def legal_kind(kind: str, comps: tuple[str, ...]) -> str | None:
    """The slot's final kind: itself when listed, None (refused) when the list ends in NOCAST, else the
    list's first entry (the argument converts)."""
    for c in comps:
        if c == kind:
            return kind
        if c == NOCAST:
            return None
    return comps[0]


def concrete_literal(kind: str, comps: tuple[str, ...]) -> str:
    """ConcreteLiteralType: a literal that does not decide the result's type takes int / float where
    listed, else the list's first non-literal kind."""
    default = next((c for c in comps if c not in (LI, LF, NOCAST)), comps[0])
    if kind == LI:
        return "int" if "int" in comps else default
    for k in ("float", "double"):
        if k in comps:
            return k
    return default


# ------------------------------------------------------------------ the model: shapes and parameters

S, V, M = "scalar", "vector", "matrix"


class Arg:
    """An argument: a kind and a shape (rows x cols; a vector is one row, a scalar 1x1)."""

    def __init__(self, elem: str, shape: str, rows: int = 1, cols: int = 1, text: str = "") -> None:
        self.elem, self.shape, self.rows, self.cols, self.text = elem, shape, rows, cols, text

    def __repr__(self) -> str:
        return self.text


# layouts: "any" (<>: rows r, cols c), "vec" (<c>), ("vec", n) (<n>), "scalar", "mat_rr" (<r, r>),
# "mat_rc" (<r, c>), "mat_cr" (<c, r>, transpose's result)
LEGAL_SHAPES = {"any": (S, V, M), "vec": (V,), "scalar": (S,), "mat_rr": (M,), "mat_rc": (M,), "mat_cr": (M,)}


class P:
    """One parameter (or the return, index 0): template slot, component slot, kinds, layout, out."""

    def __init__(self, comps, layout="any", tid=None, cid=None, out=False) -> None:
        self.comps, self.layout, self.tid, self.cid, self.out = comps, layout, tid, cid, out


def t1(out: bool = False) -> P:
    """`$type1`: the first argument's slots, kinds and layout (filled in by intrinsic())."""
    return P(None, None, 1, 1, out)


INTRINSICS: dict[str, tuple[P, list[P]]] = {}


def intrinsic(names: str, ret: P | str, *params: P) -> None:
    ps = []
    for i, p in enumerate(params, 1):
        if p.comps is None:       # $type1
            p = P(params[0].comps, params[0].layout, 1, 1, p.out)
        ps.append(P(p.comps, p.layout, i if p.tid is None else p.tid, i if p.cid is None else p.cid, p.out))
    r = P(ps[0].comps, ps[0].layout, 1, 1) if ret == "$type1" else ret
    assert isinstance(r, P)
    r = P(r.comps, r.layout, 0 if r.tid is None else r.tid, 0 if r.cid is None else r.cid)
    for n in names.split():
        INTRINSICS[n] = (r, ps)


VOID = P(None, "void")
intrinsic("acos asin atan ceil cos cosh degrees exp exp2 floor frac log log10 log2 radians round rsqrt sin sinh "
          "sqrt tan tanh trunc", "$type1", P(C_FLOAT_LIKE))
intrinsic("rcp saturate", "$type1", P(C_ANY_FLOAT))
intrinsic("abs", "$type1", P(C_NUMERIC))
intrinsic("sign", P(C_INT, "any", 1, 0), P(C_NUMERIC))
intrinsic("atan2 fmod pow step ldexp", "$type1", P(C_FLOAT_LIKE), t1())
intrinsic("max min", "$type1", P(C_NUMERIC), t1())
intrinsic("clamp mad", "$type1", P(C_NUMERIC), t1(), t1())
intrinsic("lerp smoothstep", "$type1", P(C_FLOAT_LIKE), t1(), t1())
intrinsic("dot", P(C_NUMERIC, "scalar", 0, 1), P(C_NUMERIC, "vec"), t1())
intrinsic("distance", P(C_FLOAT_LIKE, "scalar", 0, 1), P(C_FLOAT_LIKE, "vec"), t1())
intrinsic("length", P(C_FLOAT_LIKE, "scalar", 0, 1), P(C_FLOAT_LIKE, "vec"))
intrinsic("normalize", "$type1", P(C_FLOAT_LIKE, "vec"))
intrinsic("reflect", "$type1", P(C_FLOAT_LIKE, "vec"), t1())
intrinsic("faceforward", "$type1", P(C_FLOAT_LIKE, "vec"), t1(), t1())
intrinsic("refract", "$type1", P(C_FLOAT_LIKE, "vec"), t1(), P(C_FLOAT_LIKE, "scalar", 3, 1))
intrinsic("cross", "$type1", P(C_FLOAT_LIKE, ("vec", 3)), t1())
intrinsic("all any", P(C_BOOL, "scalar"), P(C_ANY))
intrinsic("isnan isinf isfinite", P(C_BOOL, "any", 1, 0), P(C_FLOAT_LIKE))
intrinsic("countbits firstbitlow firstbithigh", P(C_UINT, "any", 1, 0), P(C_ANY_INT))
intrinsic("reversebits", "$type1", P(C_ANY_INT))
intrinsic("f32tof16", P(C_UINT, "any"), P(C_FLOAT))
intrinsic("f16tof32", P(C_FLOAT, "any"), P(C_UINT))
intrinsic("modf", "$type1", P(C_FLOAT_LIKE), t1(out=True))
intrinsic("frexp", "$type1", P(C_FLOAT), t1(out=True))
intrinsic("sincos", VOID, P(C_FLOAT_LIKE), t1(out=True), t1(out=True))
intrinsic("fma", "$type1", P(C_DOUBLE_ONLY), t1(), t1())
intrinsic("asuint asint asfloat", P({"asuint": C_UINT, "asint": C_INT, "asfloat": C_FLOAT}["asuint"], "any", 0, 0),
          P(C_NUM32_ONLY, "any", 0, 1))
INTRINSICS["asint"] = (P(C_INT, "any", 0, 0), INTRINSICS["asuint"][1])
INTRINSICS["asfloat"] = (P(C_FLOAT, "any", 0, 0), INTRINSICS["asuint"][1])
intrinsic("transpose", P(C_ANY, "mat_cr", 1, 1), P(C_ANY, "mat_rc"))
intrinsic("determinant", P(C_FLOAT_LIKE, "scalar", 0, 1), P(C_FLOAT_LIKE, "mat_rr"))
intrinsic("WaveActiveSum WaveActiveProduct WaveActiveMin WaveActiveMax WavePrefixSum WavePrefixProduct "
          "QuadReadAcrossX QuadReadAcrossY QuadReadAcrossDiagonal", "$type1", P(C_NUMERIC))
intrinsic("WaveReadLaneFirst", "$type1", P(C_ANY))
intrinsic("WaveReadLaneAt", "$type1", P(C_ANY), P(C_UINT, "scalar"))
intrinsic("QuadReadLaneAt", "$type1", P(C_NUMERIC), P(C_UINT, "scalar"))
intrinsic("WaveActiveAllEqual", P(C_BOOL, "any", 1, 0), P(C_ANY))
intrinsic("WaveActiveBitAnd WaveActiveBitOr WaveActiveBitXor", "$type1", P(C_UINT_ONLY))
intrinsic("WaveActiveAllTrue WaveActiveAnyTrue", P(C_BOOL, "scalar"), P(C_BOOL, "scalar"))
intrinsic("WaveActiveCountBits WavePrefixCountBits", P(C_UINT, "scalar"), P(C_BOOL, "scalar"))
intrinsic("ddx ddy ddx_coarse ddy_coarse ddx_fine ddy_fine fwidth", "$type1", P(C_FLOAT_LIKE))
intrinsic("WaveMatch", P(C_UINT, ("vec", 4)), P(C_NUMERIC))
intrinsic("WaveMultiPrefixSum WaveMultiPrefixProduct", "$type1", P(C_NUMERIC), P(C_UINT, ("vec", 4)))
intrinsic("WaveMultiPrefixBitAnd WaveMultiPrefixBitOr WaveMultiPrefixBitXor", "$type1", P(C_ANY_INT),
          P(C_UINT, ("vec", 4)))
intrinsic("WaveMultiPrefixCountBits", P(C_UINT, "scalar"), P(C_BOOL, "scalar"), P(C_UINT, ("vec", 4)))
intrinsic("and or", P(C_BOOL, "any", 1, 0), P(C_BOOL), t1())
intrinsic("select", P(C_ANY, "any", 2, 2), P(C_BOOL), P(C_ANY, "any", 1, 2), P(C_ANY, "any", 2, 2))
intrinsic("dst", "$type1", P(C_NUMERIC, ("vec", 4)), t1())
intrinsic("lit", P(C_FLOAT_LIKE, ("vec", 4), 0, 1), P(C_FLOAT_LIKE, "scalar"), P(C_FLOAT_LIKE, "scalar", 2, 1),
          P(C_FLOAT_LIKE, "scalar", 3, 1))
intrinsic("asdouble", P(("double", LF), "any", 0, 0), P(C_UINT, "any", 0, 1), P(C_UINT, "any", 0, 2))
intrinsic("NonUniformResourceIndex", "$type1", P(C_ANY))


def bounds(layout) -> tuple[str | int, str | int]:
    """(rows, cols) of a layout: a special size name or a fixed number."""
    if isinstance(layout, tuple):
        return 1, layout[1]
    return {"any": ("r", "c"), "vec": (1, "c"), "scalar": (1, 1), "mat_rr": ("r", "r"), "mat_rc": ("r", "c"),
            "mat_cr": ("c", "r")}[layout]


def legal_shapes(layout) -> tuple[str, ...]:
    return (V,) if isinstance(layout, tuple) else LEGAL_SHAPES[layout]


class Result:
    def __init__(self, elem: str, shape: str, rows: int, cols: int) -> None:
        self.elem, self.shape, self.rows, self.cols = elem, shape, rows, cols

    def hlsl(self) -> str:
        e = {LI: "int", LF: "float"}.get(self.elem, self.elem)
        return e if self.shape == S else f"{e}{self.cols}" if self.shape == V else f"{e}{self.rows}x{self.cols}"


def model(name: str, args: list[Arg]) -> Result | None:
    """DXC's MatchArguments for the one overload of `name`: the result, or None where it refuses."""
    return match(name, args)[0]


def match(name: str, args: list[Arg]) -> tuple[Result | None, int]:
    """The result or None, and where DXC refuses the argument it blames (badArgIdx: the least index
    flagged, 1 the first argument; a template slot found illegal after the arguments blames its index)."""
    if name == "mul":
        return model_mul(args), 0
    ret, params = INTRINSICS[name]
    if len(args) != len(params):
        return None, 0
    template: dict[int, str] = {}
    comp: dict[int, str] = {}
    special: dict[str, int] = {}
    bad = []
    for n, (p, a) in enumerate(zip(params, args), 1):
        elem = a.elem
        if p.out and elem in (LI, LF):
            bad.append(n)
        if any(c == NOCAST for c in p.comps) and not in_list(elem, p.comps):
            bad.append(n)
        if elem in (LI, LF) and p.cid != ret.cid:
            elem = concrete_literal(elem, p.comps)
        have = template.get(p.tid)
        if have is None or (have == S and a.shape in (V, M)):
            template[p.tid] = a.shape
        elif a.shape != S and a.shape != have:
            bad.append(n)
        comp[p.cid] = elem if p.cid not in comp else combine(comp[p.cid], elem)
        if a.shape != S:
            for size, want in zip((a.rows, a.cols), bounds(p.layout)):
                if isinstance(want, str):
                    special[want] = min(special.get(want, size), size)
                elif size < want:
                    bad.append(n)
    if ret.layout != "void" and ret.tid not in template:
        template[ret.tid] = legal_shapes(ret.layout)[0]
        comp.setdefault(ret.cid, ret.comps[0])
    for i, p in enumerate([ret, *params]):
        if p.layout == "void":
            continue
        legal = legal_shapes(p.layout)
        if i in template:
            if template[i] == S and legal[0] in (V, M):
                template[i] = legal[0]
            elif template[i] not in legal:
                bad.append(i)
        else:
            template[i] = legal[0]
        if i in comp:
            kind = legal_kind(comp[i], p.comps)
            if kind is None:
                bad.append(i)
            else:
                comp[i] = kind
        else:
            comp[i] = p.comps[0]
    if bad:
        return None, min(bad)
    for n, (p, a) in enumerate(zip(params, args), 1):      # an out argument takes the template back: not longer
        if p.out and a.shape != S and (a.rows, a.cols) != (special.get("r", 1), special.get("c", 1)):
            return None, n
    if ret.layout == "void":
        return Result("void", S, 1, 1), 0
    rows, cols = (special.get(b, 1) if isinstance(b, str) else b for b in bounds(ret.layout))
    shape = template[ret.tid]
    if rows > 1 or cols > 1 or shape in (V, M):
        shape = V if (rows == 1 and shape != M) or shape == V else M
    else:
        shape = S
    return Result(comp[ret.cid], shape, rows, cols), 0


def model_mul(args: list[Arg]) -> Result | None:
    """mul's nine overloads, one per pair of shapes (a vector's inner size meets a matrix's; the longer
    side truncates); both arguments share one component slot, numeric."""
    a, b = args
    kind = legal_kind(combine(a.elem, b.elem), C_NUMERIC)
    assert kind is not None
    if a.shape == S:
        return Result(kind, b.shape, b.rows, b.cols)
    if b.shape == S:
        return Result(kind, a.shape, a.rows, a.cols)
    if a.shape == V and b.shape == V:
        return Result(kind, S, 1, 1)
    if a.shape == V:
        return Result(kind, V, 1, b.cols)
    if b.shape == V:
        return Result(kind, V, 1, a.rows)
    return Result(kind, M, a.rows, b.cols)


INTRINSICS["mul"] = (P(C_NUMERIC), [P(C_NUMERIC), P(C_NUMERIC)])

# ------------------------------------------------------------------ the argument pool

SHAPES = {"s": (S, 1, 1), "v1": (V, 1, 1), "v2": (V, 1, 2), "v3": (V, 1, 3), "v4": (V, 1, 4), "m11": (M, 1, 1),
          "m13": (M, 1, 3), "m31": (M, 3, 1), "m22": (M, 2, 2), "m23": (M, 2, 3), "m32": (M, 3, 2),
          "m44": (M, 4, 4)}


def var(elem: str, tag: str) -> Arg:
    shape, rows, cols = SHAPES[tag]
    return Arg(elem, shape, rows, cols, f"{elem}_{tag}")


def decl(a: Arg) -> str:
    t = a.elem if a.shape == S else f"{a.elem}{a.cols}" if a.shape == V else f"{a.elem}{a.rows}x{a.cols}"
    return f"{t} {a.text} = ({t})In[0];"


POOL = [var(e, t) for e in ELEMS for t in SHAPES]
LITERALS = [Arg(LI, S, text="2"), Arg(LF, S, text="1.5")]
FLOAT_SHAPES = [var("float", t) for t in SHAPES]
MIXED_SHAPES = ("s", "v3", "v2", "m22")


def arg_lists(name: str) -> list[list[Arg]]:
    """The calls of one intrinsic: every kind and shape for one argument; for more, every pair of float
    shapes, every pair of kinds on a few shape pairs, literals beside each shape; three arguments: a
    deterministic sample.  `out` positions take variables only."""
    n = len(INTRINSICS[name][1])
    if n == 1:
        return [[a] for a in POOL + LITERALS]
    rng = random.Random(f"sweep11:{name}")
    pairs: list[list[Arg]] = [list(p) for p in itertools.product(FLOAT_SHAPES, repeat=2)]
    for ea, eb in itertools.product(ELEMS, repeat=2):
        for ta, tb in (("s", "s"), ("v3", "v3"), ("v2", "v4"), ("m22", "s")):
            pairs.append([var(ea, ta), var(eb, tb)])
    for lit in LITERALS:
        for a in FLOAT_SHAPES + [var(e, "v2") for e in ELEMS]:
            pairs += [[lit, a], [a, lit]]
    pairs += [[LITERALS[0], LITERALS[1]], [LITERALS[1], LITERALS[1]], [LITERALS[0], LITERALS[0]]]
    if n == 2:
        calls = pairs
    else:
        calls = [p + [c] for p in rng.sample(pairs, 160) for c in rng.sample(FLOAT_SHAPES + LITERALS, 2)]
        calls += [[var(e, t)] * 3 for e in ELEMS for t in MIXED_SHAPES]
    outs = [i for i, p in enumerate(INTRINSICS[name][1]) if p.out]
    return [c for c in calls if not any(c[i].elem in (LI, LF) for i in outs)]


# ------------------------------------------------------------------ compiling

def shader(calls: list[str]) -> tuple[str, int]:
    """A compute shader declaring the pool, then one call a line; the first call's line.  `probe(x)` takes
    any argument as it is: the IR's call to it has the type of the call."""
    head = ["RWStructuredBuffer<float> In : register(u0);", "template<typename T> void probe(T x) {}",
            "[numthreads(4, 1, 1)]", "void main() {"]     # (quads: the derivatives)
    head += ["    " + decl(a) for a in POOL]
    return "\n".join(head + ["    " + c for c in calls] + ["}", ""]), len(head) + 1


def front(src: str):
    """Sema only, in process: (the module or None, the diagnostics)."""
    opts = CompileOptions(entry="main", profile=PROFILE, target="spirv", enable_16bit_types=True)
    prof = parse_profile(PROFILE)
    sink = DiagnosticSink()
    pp = preprocess("sweep.hlsl", text=src, predefined=predefined_macros(opts, prof))
    tu = parse(pp.tokens, pp.pack_matrix, prof.stage)
    try:
        return analyze(tu, opts, prof, sink, list(pp.files), "sweep.hlsl"), sink.items
    except CompileError as e:
        return None, sink.items + e.diagnostics


def ir_type(r: Result) -> ir.Type:
    kind = {LI: "int", LF: "float"}.get(r.elem, r.elem)
    s = {"bool": ir.BOOL, "int": ir.INT, "uint": ir.UINT, "float": ir.FLOAT, "half": ir.HALF, "double": ir.DOUBLE,
         "int64_t": ir.Scalar("int", 64), "uint64_t": ir.Scalar("uint", 64)}[kind]
    if r.shape == S or (r.shape == V and r.cols == 1):
        return s
    return ir.Vector(s, r.cols) if r.shape == V else ir.Matrix(s, r.rows, r.cols)


def call_text(name: str, args: list[Arg]) -> str:
    call = f"{name}({', '.join(a.text for a in args)})"
    return f"{call};" if INTRINSICS[name][0].layout == "void" else f"probe({call});"


@functools.cache
def sweep(name: str) -> tuple[list[str], int, list[list[Arg]]]:
    """Compare our sema with the model on every call of `name`: the disagreements, the call count and
    the calls both accept with the same type."""
    calls = arg_lists(name)
    texts = [call_text(name, c) for c in calls]
    src, first = shader(texts)
    _, diags = front(src)
    errors: dict[int, list] = {}
    for d in diags:
        if d.severity == "error" and d.loc is not None:
            errors.setdefault(d.loc.line - first, []).append(d)
    bad: list[str] = []
    accepted = []
    for i, (c, text) in enumerate(zip(calls, texts)):
        want = model(name, c)
        got = errors.get(i, [])
        if want is None and not got:
            bad.append(f"{text} accepted, DXC refuses")
        elif want is not None and got:
            bad.append(f"{text} refused ({got[0].message}), DXC gives {want.hlsl()}")
        elif got:
            # one error, at the call or an argument of it (its note too).  (Which argument: DXC's badArgIdx
            # blames a template slot's first argument where the slot's kind is illegal, `dot(float, float2x2)`
            # the float; we blame the argument that makes it so.)
            spots = [(d.loc.line, d.loc.col) for e in got for d in (e, *e.notes) if d.loc is not None]
            if len(got) != 1 or any(line != first + i or not 5 <= col <= 4 + len(text) for line, col in spots):
                bad.append(f"{text} refused with {[(e.loc.col, e.message) for e in got]}: want one error in the call")
        else:
            accepted.append((c, text, want))
    src, first = shader([t for _, t, _ in accepted])
    module, diags = front(src)
    assert module is not None, "\n".join(d.message for d in diags if d.severity == "error")
    main = next(f for f in module.functions if f.name == "main")
    typed: dict[int, ir.Type] = {}
    for s in main.body:
        if isinstance(s, ir.Eval) and isinstance(s.expr, ir.Call) and s.loc is not None:
            typed[s.loc.line - first] = s.expr.args[0].type
    agreed = []
    for i, (c, text, want) in enumerate(accepted):
        got_t = typed.get(i, ir.VOID)
        got_s = ir.scalar_of(got_t) if ir.is_numeric(got_t) else None
        if want.elem in (LI, LF) and got_s is not None and got_s.kind in (("int", "uint") if want.elem == LI else ("float",)):
            got_t = with_scalar(got_t, ir.INT if want.elem == LI else ir.FLOAT)    # DXC's literal result: typed by its use
        if want.elem != "void" and got_t != ir_type(want):
            bad.append(f"{text} is {got_t}, DXC gives {want.hlsl()}")
        elif want.elem == "void" and got_t != ir.VOID:
            bad.append(f"{text} is {got_t}, DXC gives void")
        else:
            agreed.append(c)
    return bad, len(calls), agreed


NAMES = sorted(INTRINSICS)
# disagreements left (strict xfails, name -> reason)
KNOWN: dict[str, str] = {}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(reason=KNOWN[n], strict=True))
                                  if n in KNOWN else n for n in NAMES])
def test_intrinsic_sweep(name):
    bad, count, _ = sweep(name)
    assert count > 0
    assert not bad, f"{len(bad)} of {count} calls disagree with DXC's rule:\n" + "\n".join(bad[:40])


def test_sweep_size():
    """The sweep is as wide as it claims (the report's number)."""
    total = sum(len(arg_lists(n)) for n in NAMES)
    assert len(NAMES) >= 100 and total > 20000     # 108 names, 22975 calls


# ------------------------------------------------------------------ both backends

GROUPS = [NAMES[i::6] for i in range(6)]


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("group", range(len(GROUPS)))
def test_accepted_calls_compile_on_both_targets(group, target):
    """A sample of the accepted calls of each intrinsic, every result kept live, through a backend and its
    checks (spirv-val; the LLVM tools and dxil-spirv)."""
    body = []
    rng = random.Random(f"backend11:{group}")
    for name in GROUPS[group]:
        if name in KNOWN:
            continue
        ok = [c for c in sweep(name)[2] if model(name, c).elem != "void"]     # type: ignore[union-attr]
        for c in rng.sample(ok, min(6, len(ok))):
            body.append(f"acc += any({name}({', '.join(a.text for a in c)}) != 0) ? 1.0 : 0.5;")
    src, _ = shader(["float acc = 0;", *body, "In[1] = acc;"])
    res = compile_cs(src, target=target, profile=PROFILE)
    assert res.ok, diagnostics_text(res)
    if target == "spirv":
        tools.spirv_val(res.binary, "vulkan1.1")
    else:
        dxil_tools.check_dxil(res.binary)
        dxil_consumer.to_spirv(res.binary)


# ------------------------------------------------------------------ executed: a sample of mixed-shape calls

VALUES = {"float": (1.5, -2.0, 0.25, 3.0, -0.75, 2.5, 4.0, -1.25, 0.5, 6.0, -3.5, 1.0, 2.0, -0.5, 5.0, 0.75),
          "int": (3, -2, 5, 1, -4, 7, 2, -6, 9, 4, -1, 8, 6, -3, 11, 10),
          "uint": (3, 12, 5, 1, 40, 7, 2, 96, 9, 4, 255, 8, 6, 33, 11, 10),
          "bool": (True, False, True, True, False, True, False, False, True, True, False, True, False, True, True,
                   False)}


def _flat(a: Arg, k: int) -> list:
    """Argument k's run-time values, row by row."""
    vals = VALUES[a.elem]
    return [vals[(k * 5 + i) % 16] for i in range(a.rows * a.cols)]


def _hlsl_value(a: Arg, k: int) -> str:
    """Argument k as HLSL computed at run time from `one` (no argument is a constant)."""
    if a.elem in (LI, LF):
        return a.text
    vals = _flat(a, k)
    t = decl(a).split()[0]
    lit = ", ".join(("true" if v else "false") if a.elem == "bool" else str(v) for v in vals)
    if a.elem == "bool":
        return f"({t}({lit}) == (bool)one)"
    return f"({t}({lit}) * ({a.elem})one)"


def _convert(v, kind: str):
    if kind == "bool":
        return bool(v)
    if kind in ("int", "uint"):
        x = int(v)      # float -> int truncates; a negative int seen as uint wraps
        return x % 2**32 if kind == "uint" else (x + 2**31) % 2**32 - 2**31
    return float(v)


def _grid(a: Arg, k: int, rows: int, cols: int, kind: str) -> list[list]:
    """Argument k truncated (or splatted) to rows x cols, converted to `kind`."""
    if a.elem in (LI, LF):
        vals = [[float(a.text) if a.elem == LF else int(a.text)] * cols for _ in range(rows)]
    else:
        flat = _flat(a, k)
        vals = [[flat[0]] * cols for _ in range(rows)] if a.shape == S else \
            [[flat[r * a.cols + c] for c in range(cols)] for r in range(rows)]
    return [[_convert(v, kind) for v in row] for row in vals]


def _bits(x: int) -> int:
    return x % 2**32


PER_COMPONENT = {
    "max": max, "min": min, "clamp": lambda x, lo, hi: min(max(x, lo), hi), "mad": lambda a, b, c: a * b + c,
    "lerp": lambda a, b, s: a + s * (b - a), "abs": abs, "step": lambda e, x: float(x >= e),
    "sign": lambda x: (x > 0) - (x < 0), "countbits": lambda x: bin(_bits(x)).count("1"),
    "reversebits": lambda x: int(f"{_bits(x):032b}"[::-1], 2),
    "firstbitlow": lambda x: (_bits(x) & -_bits(x)).bit_length() - 1 if _bits(x) else 0xFFFFFFFF,
    "firstbithigh": lambda x: (x if x >= 0 else ~x).bit_length() - 1 if (x if x >= 0 else ~x) else 0xFFFFFFFF,
    "select": lambda c, a, b: a if c else b,
}


def expected(name: str, args: list[Arg], r: Result) -> list:
    """The result's components, row by row, computed here."""
    kind = {LI: "int", LF: "float"}.get(r.elem, r.elem)
    if name in PER_COMPONENT:
        rows, cols = (r.rows, r.cols) if r.shape != S else (1, 1)
        arg_kind = kind if name not in ("sign", "countbits", "firstbitlow", "firstbithigh", "step") else (
            model_arg_kind(name, args))
        grids = [_grid(a, k, rows, cols, "bool" if name == "select" and k == 0 else arg_kind)
                 for k, a in enumerate(args)]
        out = [PER_COMPONENT[name](*(g[i][j] for g in grids)) for i in range(rows) for j in range(cols)]
        return [_convert(v, kind) for v in out]
    if name == "dot":
        n = min(a.cols for a in args if a.shape != S) if any(a.shape != S for a in args) else 1
        g = [_grid(a, k, 1, n, kind)[0] for k, a in enumerate(args)]
        return [_convert(sum(x * y for x, y in zip(*g)), kind)]
    if name == "mul":
        return _mul(args, kind)
    if name == "transpose":
        g = _grid(args[0], 0, args[0].rows, args[0].cols, kind)
        return [g[i][j] for j in range(args[0].cols) for i in range(args[0].rows)]
    raise KeyError(name)


def model_arg_kind(name: str, args: list[Arg]) -> str:
    """The argument slot's kind (the result's may differ: sign, countbits, step on ints)."""
    kind = args[0].elem
    for a in args[1:]:
        kind = combine(kind, a.elem)
    comps = {"sign": C_NUMERIC, "step": C_FLOAT_LIKE}.get(name, C_ANY_INT)
    kind = legal_kind(kind, comps) or kind
    return {LI: "int", LF: "float"}.get(kind, kind)


def _mul(args: list[Arg], kind: str) -> list:
    a, b = args
    if a.shape == S or b.shape == S:
        m = b if a.shape == S else a
        ga, gb = _grid(a, 0, m.rows, m.cols, kind), _grid(b, 1, m.rows, m.cols, kind)
        return [ga[i][j] * gb[i][j] for i in range(m.rows) for j in range(m.cols)]
    ma = [_grid(a, 0, 1, a.cols, kind)[0]] if a.shape == V else _grid(a, 0, a.rows, a.cols, kind)
    mb = [[x] for x in _grid(b, 1, 1, b.cols, kind)[0]] if b.shape == V else _grid(b, 1, b.rows, b.cols, kind)
    n = min(len(ma[0]), len(mb))
    return [_convert(sum(ma[i][k] * mb[k][j] for k in range(n)), kind) for i in range(len(ma)) for j in range(len(mb[0]))]


EXEC_NAMES = (*PER_COMPONENT, "dot", "mul", "transpose")
EXEC_ELEMS = ("bool", "int", "uint", "float", LI, LF)


def _mixed(c: list[Arg]) -> bool:
    return len({(a.shape, a.rows, a.cols) for a in c}) > 1 or len({a.elem for a in c}) > 1


def _exec_case(name: str, c: list[Arg], i: int) -> Case:
    r = model(name, c)
    assert r is not None
    comps = ["r"] if r.shape == S else [f"r[{j}]" for j in range(r.cols)] if r.shape == V else \
        [f"r[{i}][{j}]" for i in range(r.rows) for j in range(r.cols)]
    comps = [f"(float){x}" for x in comps[:4]] + ["0"] * max(0, 4 - len(comps))
    code = f"{r.hlsl()} r = {name}({', '.join(_hlsl_value(a, k) for k, a in enumerate(c))}); " \
           f"R = float4({', '.join(comps)});"
    want = [float(v) for v in expected(name, c, r)][:4]
    want += [0.0] * (4 - len(want))
    return case(f"{name}_{i}", code, tuple(f32(w) for w in want), stmt=True, ulps=4)


def _exec_cases() -> list[Case]:
    rng = random.Random("exec11")
    cases = []
    for name in EXEC_NAMES:
        pool = [c for c in arg_lists(name) if (_mixed(c) or len(c) == 1) and all(a.elem in EXEC_ELEMS for a in c)
                and model(name, c) is not None and model(name, c).elem not in (LI, LF)]   # type: ignore[union-attr]
        cases += [_exec_case(name, c, i) for i, c in enumerate(rng.sample(pool, min(6, len(pool))))]
    assert len(cases) >= 60
    return cases


EXECUTED = SlotTable("intrinsic_sweep11_exec", "float4", _exec_cases(), setup="    float one = In[0];\n",
                     inputs={"In": ("float", [1.0])})
test_mixed_shape_calls_execute = table_test(EXECUTED)


# ------------------------------------------------------------------ executed: the shapes this sweep made accepted

def _double_words(*ds: float) -> tuple[list[int], list[int]]:
    words = [struct.unpack("<II", struct.pack("<d", d)) for d in ds]
    return [w[0] for w in words], [w[1] for w in words]


_LO, _HI = _double_words(1.5, -2.25, 3.0, 0.125)
NEW_SHAPES = SlotTable("intrinsic_sweep11_new_shapes", "float4", [
    # asdouble on vectors and matrices: component by component
    case("asdouble_uint2", f"double2 d = asdouble(uint2({_LO[0]}, {_LO[1]}) * u, uint2({_HI[0]}, {_HI[1]}) * u); "
         "R = float4((float2)d, 0, 0);", (1.5, -2.25, 0.0, 0.0), stmt=True),
    case("asdouble_uint2x2", f"double2x2 d = asdouble(uint2x2({', '.join(map(str, _LO))}) * u, "
         f"uint2x2({', '.join(map(str, _HI))}) * u); R = float4((float2)d[0], (float2)d[1]);",
         (1.5, -2.25, 3.0, 0.125), stmt=True),
    # countbits / reversebits / firstbithigh on a matrix: row by row
    case("countbits_uint2x2", "uint2x2 c = countbits(uint2x2(7, 255, 1, 0) * u); R = float4(c[0], c[1]);",
         (3.0, 8.0, 1.0, 0.0), stmt=True),
    case("firstbithigh_int1x3", "uint3 f = firstbithigh(int1x3(-1, 256, 5) * (int)u)[0]; R = float4(f, 0);",
         (float(0xFFFFFFFF), 8.0, 2.0, 0.0), stmt=True),
    # countbits of a float converts it to int first (-3.5 -> -3)
    case("countbits_float", "countbits(-3.5 * one)", (31.0,) * 4),
    # f32tof16 of a one-row matrix is a vector
    case("f32tof16_float1x3", "uint3 h = f32tof16(float1x3(1, -2, 0.5) * one); R = float4(h, 0);",
         (float(0x3C00), float(0xC000), float(0x3800), 0.0), stmt=True),
    # dst keeps its arguments' kind (int4 here)
    case("dst_int4", "int4 d = dst(int4(9, 2, 3, 4) * (int)u, int4(5, 6, 7, 8) * (int)u); R = (float4)d;",
         (1.0, 12.0, 3.0, 8.0), stmt=True),
    # select: the condition takes the true value's matrix template, the false value (a vector) the result's
    case("select_matrix_vector", "float2 s = select(bool2x2(true, false, true, true), float2x2(1, 2, 3, 4) * one, "
         "float2(8, 9) * one); R = float4(s, 0, 0);", (1.0, 9.0, 0.0, 0.0), stmt=True),
    case("select_matrix_rows", "float2x2 s = select(bool2x2(true, false, false, true), float2x2(1, 2, 3, 4) * one, "
         "float2x2(5, 6, 7, 8) * one); R = float4(s[0], s[1]);", (1.0, 6.0, 7.0, 4.0), stmt=True),
    # determinant of a non-square matrix: its top-left square
    case("determinant_2x3", "determinant(float2x3(1, 2, 9, 3, 4, 9) * one)", (-2.0,) * 4),
    # transpose of a scalar: a 1x1 matrix
    case("transpose_scalar", "float1x1 t = transpose(6.0 * one); R = t._m00;", (6.0,) * 4, stmt=True),
    # mul of a float1 with a matrix takes the vector overload: the matrix's first row, scaled
    case("mul_float1_float2x3", "float1 v = 2.0 * one; R = float4(mul(v, float2x3(1, 2, 3, 4, 5, 6) * one), 0);",
         (2.0, 4.0, 6.0, 0.0), stmt=True),
], setup="    float one = In[0];\n    uint u = (uint)one;\n", inputs={"In": ("float", [1.0])})
test_new_shapes_execute = table_test(NEW_SHAPES)
