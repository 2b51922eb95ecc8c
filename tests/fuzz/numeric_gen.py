"""Scalar expressions at D3D's numeric edges, with their values computed here (issue 20: silent wrong values).

Each program stores a list of 32-bit words.  An expression tree over int, uint, float and bool is drawn
with edge leaves (INT_MIN, -1, 0xFFFFFFFF, shift amounts >= 32, NaN, +-inf, +-0, denormals, floats beyond
the int range) and operators whose D3D result is defined there: wrapping + - *, / and % by zero and
INT_MIN / -1, shifts masked to 5 bits, saturating float -> int with NaN -> 0, IEEE comparisons (ordered,
`!=` unordered), min/max returning the non-NaN operand, round to nearest even, saturate(NaN) = 0,
firstbithigh/firstbitlow/countbits/reversebits.  `evaluate` computes the value in Python from those
rules (written here from the D3D rules in docs/CONFORMANCE.md, not taken from the compiler), and the tree
is emitted twice: once over leaves read from a buffer (run time) and once over literals (constant folding),
so folded and run-time results must both equal it.  Where D3D or Vulkan leave a result open (a NaN's payload,
the sign of a zero result, arithmetic on denormals, which may be flushed) the draw is rejected and redrawn.
"""

from __future__ import annotations

import math
import random
import struct
from dataclasses import dataclass

INT_MIN, INT_MAX, MASK = -(1 << 31), (1 << 31) - 1, 0xFFFFFFFF
INT_LEAVES = (0, 1, -1, 2, 3, 7, 31, 32, 33, -32, 100, -100, 0x7FFF, -0x8000, INT_MAX, INT_MIN, INT_MIN + 1)
UINT_LEAVES = (0, 1, 2, 3, 31, 32, 33, 64, 100, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, MASK)
DENORM = struct.unpack("<f", struct.pack("<I", 1))[0]
FLOAT_LEAVES = (0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.75, -3.75, 2147483520.0, 2147483648.0,
                -2147483648.0, -2147483904.0, 4294967040.0, 4294967296.0, 1e10, -1e10,
                math.inf, -math.inf, math.nan, DENORM, -DENORM)
OUT_SLOTS = 8


class Unspecified(Exception):
    """D3D does not pin this result down (the generator redraws)."""


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0] if math.isfinite(x) else x


def bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def signed(v: int) -> int:
    v &= MASK
    return v - (1 << 32) if v >> 31 else v


def _denormal(x: float) -> bool:
    return x != 0 and abs(x) < 2.0 ** -126


@dataclass(frozen=True)
class Node:
    op: str                 # "leaf" or an operator / intrinsic name
    ty: str                 # int, uint, float, bool
    args: tuple = ()
    value: object = None    # a leaf's value
    slot: int = -1          # a leaf's input word


# ------------------------------------------------------------------ evaluation (D3D's rules)

def _to_int(x: float, kind: str) -> int:
    """ftoi / ftou: NaN -> 0, toward zero, saturated."""
    lo, hi = (INT_MIN, INT_MAX) if kind == "int" else (0, MASK)
    if math.isnan(x):
        return 0
    return hi if x >= hi else lo if x <= lo else int(x)


def _div(a: int, b: int, kind: str, mod: bool) -> int:
    """udiv/urem by 0 give all ones; signed ones are the unsigned op on magnitudes, then the sign fixed
    (quotient negated when the signs differ, remainder takes the dividend's)."""
    if kind == "uint":
        return MASK if b == 0 else (a % b if mod else a // b)
    m = MASK if b == 0 else (abs(a) % abs(b) if mod else abs(a) // abs(b))
    neg = a < 0 if mod else (a < 0) != (b < 0)
    return signed(-m if neg else m)


def _fmin_max(a: float, b: float, is_max: bool) -> float:
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    if a == b == 0 and math.copysign(1, a) != math.copysign(1, b):
        raise Unspecified("min/max of +0 and -0")
    return max(a, b) if is_max else min(a, b)


def _firstbithigh(v: int, kind: str) -> int:
    if kind == "int" and v < 0:
        v = ~v & MASK                     # the first 0 bit from the top for negative values
    return v.bit_length() - 1 if v else -1


def _reversebits(v: int) -> int:
    return int(f"{v & MASK:032b}"[::-1], 2)


def _wrap(v: int, kind: str) -> int:
    return signed(v) if kind == "int" else v & MASK


def evaluate(n: Node):
    """The value of `n` under D3D's rules (int and uint as Python ints in their ranges, floats rounded to 32
    bits, bools)."""
    if n.op == "leaf":
        return n.value
    a = [evaluate(x) for x in n.args]
    k = n.args[0].ty if n.args else n.ty
    floats = [v for v, x in zip(a, n.args) if x.ty == "float"]
    if any(_denormal(v) for v in floats) and n.op not in ("isnan", "isinf", "isfinite", "cast"):
        raise Unspecified("a denormal operand (may be flushed)")
    op = n.op
    if op == "cast":
        v, src = a[0], n.args[0].ty
        if n.ty == "bool":
            if src == "float" and _denormal(v):
                raise Unspecified("a denormal operand (may be flushed)")
            return v != 0
        if n.ty == "float":
            return f32(float(v))
        if src == "float":
            return _to_int(v, n.ty)
        return _wrap(int(v), n.ty)
    if op in ("+", "-", "*"):
        if k == "float":
            raise AssertionError("no float arithmetic is drawn")
        r = a[0] + a[1] if op == "+" else a[0] - a[1] if op == "-" else a[0] * a[1]
        return _wrap(r, k)
    if op in ("/", "%"):
        return _div(a[0], a[1], k, op == "%")
    if op in ("&", "|", "^"):
        u = [x & MASK for x in a]
        r = u[0] & u[1] if op == "&" else u[0] | u[1] if op == "|" else u[0] ^ u[1]
        return _wrap(r, k)
    if op == "<<":
        return _wrap((a[0] & MASK) << (a[1] & 31), k)
    if op == ">>":
        return a[0] >> (a[1] & 31)        # arithmetic for int (Python's >> on negatives), logical for uint
    if op == "neg":
        return -a[0] if k == "float" else _wrap(-a[0], k)
    if op == "~":
        return _wrap(~a[0], k)
    if op in ("<", "<=", ">", ">=", "==", "!="):
        x, y = a
        if k == "float" and (math.isnan(x) or math.isnan(y)):
            return op == "!="
        return {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "==": x == y, "!=": x != y}[op]
    if op == "select":
        return a[1] if a[0] else a[2]
    if op == "abs":
        if k == "float":
            return abs(a[0])
        return _wrap(abs(a[0]), k)
    if op in ("min", "max"):
        if k == "float":
            return _fmin_max(a[0], a[1], op == "max")
        return max(a) if op == "max" else min(a)
    if op in ("floor", "ceil", "trunc", "round"):
        x = a[0]
        if not math.isfinite(x) or x == 0:
            return x
        r = {"floor": math.floor, "ceil": math.ceil, "trunc": math.trunc, "round": round}[op](x)
        return f32(math.copysign(float(r), x)) if r == 0 else f32(float(r))
    if op == "saturate":
        x = a[0]
        if math.isnan(x):
            return 0.0
        if x == 0:
            raise Unspecified("the sign of saturate(+-0)")
        return min(max(x, 0.0), 1.0)
    if op == "isnan":
        return math.isnan(a[0])
    if op == "isinf":
        return math.isinf(a[0])
    if op == "isfinite":
        return math.isfinite(a[0])
    if op == "countbits":
        return bin(a[0] & MASK).count("1")
    if op == "reversebits":
        return _wrap(_reversebits(a[0]), n.ty)
    if op == "firstbithigh":
        return _wrap(_firstbithigh(a[0], k), n.ty)
    if op == "firstbitlow":
        v = a[0] & MASK
        return _wrap((v & -v).bit_length() - 1 if v else -1, n.ty)
    raise AssertionError(op)


# ------------------------------------------------------------------ drawing

INT_BINARY = ("+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "min", "max")
COMPARE = ("<", "<=", ">", ">=", "==", "!=")
FLOAT_UNARY = ("abs", "neg", "floor", "ceil", "trunc", "round", "saturate")


class _Draw:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.slots: list[int] = []

    def leaf(self, ty: str) -> Node:
        value = self.rng.choice({"int": INT_LEAVES, "uint": UINT_LEAVES, "float": FLOAT_LEAVES}[ty])
        word = bits(value) if ty == "float" else value & MASK
        self.slots.append(word)
        return Node("leaf", ty, value=value, slot=len(self.slots) - 1)

    def expr(self, ty: str, depth: int) -> Node:
        r = self.rng
        if ty == "bool":
            k = r.choice(("int", "uint", "float", "float"))
            if k == "float" and r.random() < 0.3:
                return Node(r.choice(("isnan", "isinf", "isfinite")), "bool", (self.expr("float", depth - 1),))
            return Node(r.choice(COMPARE), "bool", (self.expr(k, depth - 1), self.expr(k, depth - 1)))
        if depth <= 0 or r.random() < 0.25:
            return self.leaf(ty)
        if ty == "float":
            c = r.random()
            if c < 0.45:
                return Node(r.choice(FLOAT_UNARY), "float", (self.expr("float", depth - 1),))
            if c < 0.65:
                return Node(r.choice(("min", "max")), "float", (self.expr("float", depth - 1),
                                                                 self.expr("float", depth - 1)))
            if c < 0.8:
                return Node("cast", "float", (self.expr(r.choice(("int", "uint")), depth - 1),))
            return Node("select", "float", (self.expr("bool", depth - 1), self.expr("float", depth - 1),
                                             self.expr("float", depth - 1)))
        c = r.random()
        if c < 0.45:
            return Node(r.choice(INT_BINARY), ty, (self.expr(ty, depth - 1), self.expr(ty, depth - 1)))
        if c < 0.6:
            src = r.choice(("int", "uint", "float", "float"))
            return Node("cast", ty, (self.expr(src, depth - 1),))
        if c < 0.72:
            return Node(r.choice(("neg", "~", "abs") if ty == "int" else ("~", "neg")), ty, (self.expr(ty, depth - 1),))
        if c < 0.85:
            name = r.choice(("countbits", "reversebits", "firstbithigh", "firstbitlow"))
            src = ty if name != "firstbithigh" else r.choice(("int", "uint"))
            return Node(name, ty, (self.expr(src, depth - 1),))
        if c < 0.93:
            return Node("cast", ty, (self.expr("bool", depth - 1),))
        return Node("select", ty, (self.expr("bool", depth - 1), self.expr(ty, depth - 1), self.expr(ty, depth - 1)))


# ------------------------------------------------------------------ HLSL text

def _literal(n: Node) -> str:
    v = n.value
    if n.ty == "uint":
        return f"0x{v:X}u"
    if n.ty == "int":                     # typed, so no literal-int (64-bit) folding is involved
        return "int(-2147483647 - 1)" if v == INT_MIN else f"int({v})"
    if not math.isfinite(v) or v == 0 or _denormal(v):
        return f"asfloat(0x{bits(v):08X}u)"
    return f"float({v!r})"


def text(n: Node, folded: bool) -> str:
    """`n` in HLSL over literals (`folded`) or over the leaf variables `aK`."""
    if n.op == "leaf":
        return _literal(n) if folded else f"a{n.slot}"
    op = n.op
    if folded and op in ("/", "%") and evaluate(n.args[1]) == 0:   # a constant 0 divisor is a compile error
        a = [text(n.args[0], True), text(n.args[1], False)]
    else:
        a = [text(x, folded) for x in n.args]
    if op in ("countbits", "firstbithigh", "firstbitlow", "reversebits"):
        arg = f"(uint)({a[0]})" if op == "reversebits" else a[0]
        return f"(({n.ty}){op}({arg}))"            # they return uint (reversebits its argument's type)
    if op == "cast":
        return f"(({n.ty})({a[0]}))"
    if op == "neg":
        return f"(-{a[0]})"
    if op == "~":
        return f"(~{a[0]})"
    if op == "select":
        return f"({a[0]} ? {a[1]} : {a[2]})"
    if op in INT_BINARY[:10] or op in COMPARE:
        return f"({a[0]} {op} {a[1]})"
    return f"{op}({', '.join(a)})"


def _word(n: Node, v) -> int:
    if n.ty == "float":
        if math.isnan(v):
            raise Unspecified("a NaN's payload")
        if v == 0:     # Vulkan keeps the sign of a zero only under SignedZeroInfNanPreserve (lavapipe's -(+0) is +0)
            raise Unspecified("the sign of a zero result")
        return bits(v)
    return int(v) & MASK


def _out(n: Node, folded: bool) -> str:
    t = text(n, folded)
    return f"asuint({t})" if n.ty in ("int", "float") else f"(uint)({t})"


@dataclass
class NumProgram:
    source: str
    inputs: list[int]        # the In buffer's words
    expected: list[int]      # the Out buffer's words: each tree at run time, then folded


def generate(rng: random.Random, depth: int = 4) -> NumProgram:
    """A program of OUT_SLOTS // 2 trees, each stored from run-time leaves and from literals."""
    d = _Draw(rng)
    trees, want = [], []
    while len(trees) < OUT_SLOTS // 2:
        mark = len(d.slots)
        tree = d.expr(rng.choice(("int", "uint", "float", "bool")), depth)
        try:
            w = _word(tree, evaluate(tree))
        except Unspecified:
            del d.slots[mark:]
            continue
        trees.append(tree)
        want.append(w)
    kinds: dict[int, str] = {}

    def note(n: Node) -> None:
        if n.op == "leaf":
            kinds[n.slot] = n.ty
        for x in n.args:
            note(x)

    for t in trees:
        note(t)
    read = {"int": "asint(In[{k}])", "uint": "In[{k}]", "float": "asfloat(In[{k}])"}
    lines = ["RWStructuredBuffer<uint> In : register(u0);", "RWStructuredBuffer<uint> Out : register(u1);",
             "[numthreads(1, 1, 1)]", "void main(uint3 tid : SV_DispatchThreadID) {"]
    lines += [f"    {kinds[k]} a{k} = {read[kinds[k]].format(k=k)};" for k in sorted(kinds)]
    lines += [f"    Out[{2 * i}] = {_out(t, False)};\n    Out[{2 * i + 1}] = {_out(t, True)};" for i, t in enumerate(trees)]
    lines.append("}")
    return NumProgram("\n".join(lines) + "\n", list(d.slots), [w for w in want for _ in (0, 1)])
