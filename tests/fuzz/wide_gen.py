"""16- and 64-bit scalar expressions with `-enable-16bit-types`, their values computed here (issue 20: silent
wrong values).

Types: half, float, double, int16_t, uint16_t, int, uint, int64_t, uint64_t and bool.  A tree mixes them:
binary operators promote as docs/CONFORMANCE.md ("16-bit and 64-bit types") says HLSL does (any float type
beats any integer type, the wider type wins, unsigned wins at equal width, no promotion of 16-bit operands to
int), shifts keep the left operand's type and mask the amount to its width, casts go between every pair
(float -> integer saturates to the target width and maps NaN to 0; integer -> float rounds once to nearest
even; integer -> integer wraps), ternaries promote their arms, comparisons promote their operands.  Leaves are
read from a ByteAddressBuffer with `Load<T>` (run time) or written as literals (folded), and each tree's value
is stored with `RWByteAddressBuffer.Store<T>` of its own type into a 32-byte slot, at a multiple of its component
size (2-byte addresses for 16-bit values), so the store's width and placement are checked too (the bytes around
the value keep their sentinel); leaves are loaded from such places too.

`evaluate` computes every value in Python from those rules (written from the documents, not from the
compiler).  What a backend may legitimately do differently is avoided by redrawing (`Unspecified`): a NaN's
payload and the sign of a zero in a stored float; denormal operands or results (a device may flush them);
`min`/`max` of +0 and -0; float arithmetic (`+ - * /`, negation) on or giving an infinity or a NaN (DXIL's
float operations carry `fast` flags, as DXC's do, so a consumer may assume neither: dxil-spirv's output on lavapipe
folds `inf * 0.0` to 0; conversions, comparisons, min/max and abs keep them); float division except for doubles (half and float division are not correctly
rounded in D3D or Vulkan), a double division by zero (the sign of the zero divisor decides); a float `*`
feeding a float `+`/`-` (a backend may contract them into an fma: the generator never draws that shape).
Half, float and double `+ - *` are correctly rounded in IEEE 754, and a wider format holds their exact
result closely enough that rounding it twice is innocuous (binary64 for float and half operands).
"""

from __future__ import annotations

import math
import random
import struct
from dataclasses import dataclass

# (kind, width) of each HLSL type
TYPES = {"int16_t": ("int", 16), "uint16_t": ("uint", 16), "int": ("int", 32), "uint": ("uint", 32),
         "int64_t": ("int", 64), "uint64_t": ("uint", 64), "half": ("float", 16), "float": ("float", 32),
         "double": ("float", 64), "bool": ("bool", 32)}
INTS = ("int16_t", "uint16_t", "int", "uint", "int64_t", "uint64_t")
FLOATS = ("half", "float", "double")
SLOT = 32                       # bytes per input leaf and per output value (a 4-vector of 64 bits)
OUT_SLOTS = 8
SENTINEL = 0xEE

_NAN = math.nan
_INF = math.inf
LEAVES = {
    "int16_t": (0, 1, -1, 2, 7, 15, 16, 17, -16, 100, -300, 0x7FFF, -0x8000, -0x7FFF),
    "uint16_t": (0, 1, 2, 15, 16, 17, 300, 0x7FFF, 0x8000, 0xFFFE, 0xFFFF),
    "int": (0, 1, -1, 3, 31, 32, 33, -100, 0x7FFF, -0x8000, 65536, 0x7FFFFFFF, -0x80000000),
    "uint": (0, 1, 2, 31, 32, 33, 0xFFFF, 0x10000, 0x80000000, 0xFFFFFFFF),
    "int64_t": (0, 1, -1, 5, 63, 64, 65, -7, 1 << 31, -(1 << 31), 1 << 32, (1 << 32) + 1, 0xFFFFFFFF,
                -(1 << 40) + 3, (1 << 63) - 1, -(1 << 63)),
    "uint64_t": (0, 1, 3, 63, 64, 65, 0xFFFFFFFF, 1 << 32, (1 << 53) + 1, 0x123456789, 1 << 63,
                 (1 << 64) - 1, (1 << 64) - 2),
    "half": (0.0, -0.0, 0.5, -1.5, 2.5, -3.75, 1000.0, 32768.0, 65504.0, -65504.0, 0.333251953125,
             _INF, -_INF, _NAN),
    "float": (0.0, -0.0, 0.5, -2.5, 3.75, 65520.0, 70000.5, 1.0000001192092896, 2147483648.0, 1e10, -1e10,
              9.223372036854775808e18, _INF, -_INF, _NAN),
    "double": (0.0, -0.0, 0.5, -2.5, 0.1, 1.0000000000000002, 32767.5, 65520.0, 9007199254740992.0,
               9.223372036854775808e18, -9.223372036854775808e18, 1.8446744073709552e19, 1e300, -1e300,
               _INF, -_INF, _NAN),
}


class Unspecified(Exception):
    """A result a backend may legitimately give differently (the generator redraws)."""


# ------------------------------------------------------------------ the rules

def wrap(v: int, ty: str) -> int:
    kind, width = TYPES[ty]
    v &= (1 << width) - 1
    return v - (1 << width) if kind == "int" and v >> (width - 1) else v


_PACK = {16: "<e", 32: "<f", 64: "<d"}
_MAX = {16: 65504.0, 32: 3.4028234663852886e38, 64: 1.7976931348623157e308}
_MIN_NORMAL = {16: 2.0 ** -14, 32: 2.0 ** -126, 64: 2.0 ** -1022}
_MANT = {16: 11, 32: 24, 64: 53}


def round_to(x: float, width: int) -> float:
    """x (exact, or a binary64 close enough) rounded to nearest even in a `width`-bit float; overflow gives
    infinity (IEEE 754 round-to-nearest)."""
    if not math.isfinite(x) or width == 64:
        return x
    try:
        return struct.unpack(_PACK[width], struct.pack(_PACK[width], x))[0]
    except OverflowError:
        return math.copysign(_INF, x)


def int_to_float(v: int, width: int) -> float:
    """An integer rounded once to nearest even in a `width`-bit float (never through a wider float)."""
    extra = abs(v).bit_length() - _MANT[width]
    if extra > 0:
        q, r = divmod(abs(v), 1 << extra)
        half = 1 << (extra - 1)
        q += r > half or (r == half and q & 1)
        v = (q << extra) * (1 if v >= 0 else -1)
    if abs(v) > _MAX[width]:
        return math.copysign(_INF, v)
    return round_to(float(v), width)


def float_to_int(x: float, ty: str) -> int:
    """Toward zero, saturated to the target type's range, NaN -> 0 (D3D's ftoi/ftou, extended to 16 and 64
    bits as docs/CONFORMANCE.md says)."""
    kind, width = TYPES[ty]
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if kind == "int" else (0, (1 << width) - 1)
    if math.isnan(x):
        return 0
    if x >= hi:
        return hi
    if x <= lo:
        return lo
    return int(x)


def convert(v, src: str, dst: str):
    """HLSL's conversion of value v of type src to dst."""
    sk, _sw = TYPES[src]
    dk, dw = TYPES[dst]
    if dk == "bool":
        return v != 0
    if sk == "bool":
        v = int(v)
        sk = "int"
    if dk == "float":
        if sk == "float":
            return round_to(v, dw)
        return int_to_float(v, dw)
    if sk == "float":
        return float_to_int(v, dst)
    return wrap(v, dst)


_RANK = {"int16_t": 0, "uint16_t": 1, "int": 2, "uint": 3, "int64_t": 4, "uint64_t": 5, "half": 10,
         "float": 11, "double": 12}


def promote(a: str, b: str) -> str:
    """The type of a binary arithmetic expression: the float type if either is one (the wider one), else the
    wider integer, unsigned at equal width (bool operands act as int)."""
    a, b = ("int" if t == "bool" else t for t in (a, b))
    return a if _RANK[a] >= _RANK[b] else b


def div(x: int, y: int, ty: str, mod: bool) -> int:
    """D3D's udiv/urem (all ones by 0); signed: the unsigned op on magnitudes, the sign fixed afterwards."""
    kind, width = TYPES[ty]
    mask = (1 << width) - 1
    if kind == "uint":
        return mask if y == 0 else (x % y if mod else x // y)
    m = mask if y == 0 else (abs(x) % abs(y) if mod else abs(x) // abs(y))
    neg = x < 0 if mod else (x < 0) != (y < 0)
    return wrap(-m if neg else m, ty)


def _check_float(x: float, width: int) -> float:
    if x != 0 and math.isfinite(x) and abs(x) < _MIN_NORMAL[width]:
        raise Unspecified("a denormal (may be flushed)")
    return x


@dataclass(frozen=True)
class Node:
    op: str                 # "leaf", "cast", "?:", "neg", "~", "abs", "min", "max" or a binary operator
    ty: str
    args: tuple = ()
    value: object = None    # a leaf's value
    slot: int = -1          # a leaf's input slot


ARITH = ("+", "-", "*", "/", "%", "&", "|", "^")
SHIFT = ("<<", ">>")
COMPARE = ("<", "<=", ">", ">=", "==", "!=")


def evaluate(n: Node):
    if n.op == "leaf":
        if TYPES[n.ty][0] == "float":
            _check_float(n.value, TYPES[n.ty][1])
        return n.value
    a = [evaluate(x) for x in n.args]
    op, ty = n.op, n.ty
    kind, width = TYPES[ty]
    if op == "cast":
        r = convert(a[0], n.args[0].ty, ty)
    elif op == "?:":
        r = convert(a[1], n.args[1].ty, ty) if a[0] else convert(a[2], n.args[2].ty, ty)
    elif op in COMPARE:
        t = promote(n.args[0].ty, n.args[1].ty)
        x, y = (convert(v, c.ty, t) for v, c in zip(a, n.args))
        if TYPES[t][0] == "float" and (math.isnan(x) or math.isnan(y)):
            return op == "!="
        r = {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "==": x == y, "!=": x != y}[op]
    elif op in SHIFT:
        x = convert(a[0], n.args[0].ty, ty)
        s = convert(a[1], n.args[1].ty, ty) & (width - 1)
        r = wrap((x % (1 << width)) << s, ty) if op == "<<" else x >> s
    elif op in ("neg", "~", "abs"):
        x = a[0]
        if kind == "float":
            if op == "neg" and not math.isfinite(x):    # fsub fast -0.0, x
                raise Unspecified("float negation of infinity or NaN (DXIL's `fast` flags let a consumer assume neither)")
            r = -x if op == "neg" else abs(x)
        else:
            r = wrap(-x if op == "neg" else ~x if op == "~" else abs(x), ty)
    else:
        x, y = (convert(v, c.ty, ty) for v, c in zip(a, n.args))
        if kind == "float":
            _check_float(x, width)
            _check_float(y, width)
            r = _float_binary(op, x, y, width)
        elif op in ("/", "%"):
            r = div(x, y, ty, op == "%")
        elif op in ("min", "max"):
            r = min(x, y) if op == "min" else max(x, y)
        else:
            mask = (1 << width) - 1
            xu, yu = x & mask, y & mask
            r = wrap({"+": x + y, "-": x - y, "*": x * y, "&": xu & yu, "|": xu | yu, "^": xu ^ yu}[op], ty)
    if kind == "float":
        _check_float(r, width)
    return r


def _float_binary(op: str, x: float, y: float, width: int) -> float:
    if op in ("min", "max"):
        if math.isnan(x):
            return y
        if math.isnan(y):
            return x
        if x == y == 0 and math.copysign(1, x) != math.copysign(1, y):
            raise Unspecified("min/max of +0 and -0")
        return min(x, y) if op == "min" else max(x, y)
    if not (math.isfinite(x) and math.isfinite(y)):
        raise Unspecified("float arithmetic on infinity or NaN (DXIL's `fast` flags let a consumer assume neither)")
    if op == "/":
        assert width == 64
        if y == 0:
            raise Unspecified("a double division by zero (the zero's sign decides)")
        r = x / y
    else:
        r = round_to({"+": x + y, "-": x - y, "*": x * y}[op], width)
    if not math.isfinite(r):
        raise Unspecified("float arithmetic overflowing to infinity (DXIL's `fast` flags let a consumer assume not)")
    return r


# ------------------------------------------------------------------ drawing

def _binary_ops(ty: str) -> tuple[str, ...]:
    if ty in FLOATS:
        return ("+", "-", "*", "min", "max") + (("/",) if ty == "double" else ())
    return ARITH + ("min", "max")


class _Draw:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.leaves: list[tuple[str, object]] = []

    def leaf(self, ty: str) -> Node:
        self.leaves.append((ty, self.rng.choice(LEAVES[ty])))
        return Node("leaf", ty, value=self.leaves[-1][1], slot=len(self.leaves) - 1)

    def operand_types(self, ty: str) -> tuple[str, str]:
        """Two operand types whose promotion is ty (one of them ty itself)."""
        r = self.rng
        lower = [t for t in _RANK if _RANK[t] <= _RANK[ty] and promote(t, ty) == ty]
        other = r.choice(lower)
        return (ty, other) if r.random() < 0.5 else (other, ty)

    def expr(self, ty: str, depth: int, no_mul: bool = False) -> Node:
        """A tree of type ty; no_mul: not a float `*` (its parent is a float + or -, which may contract)."""
        r = self.rng
        if ty == "bool":
            t = r.choice(INTS + FLOATS)
            a, b = self.operand_types(t)
            return Node(r.choice(COMPARE), "bool", (self.expr(a, depth - 1), self.expr(b, depth - 1)))
        if depth <= 0 or r.random() < 0.2:
            return self.leaf(ty)
        c = r.random()
        is_float = ty in FLOATS
        if c < 0.45:
            op = r.choice([o for o in _binary_ops(ty) if not (no_mul and o == "*")])
            a, b = self.operand_types(ty)
            child_no_mul = is_float and op in ("+", "-")
            return Node(op, ty, (self.expr(a, depth - 1, child_no_mul), self.expr(b, depth - 1, child_no_mul)))
        if c < 0.55 and not is_float:
            amount = r.choice(INTS)
            return Node(r.choice(SHIFT), ty, (self.expr(ty, depth - 1), self.expr(amount, depth - 1)))
        if c < 0.75:
            return Node("cast", ty, (self.expr(r.choice(INTS + FLOATS + ("bool",)), depth - 1, no_mul),))
        if c < 0.87:
            ops = ("neg", "abs") if is_float else ("neg", "~", "abs") if TYPES[ty][0] == "int" else ("neg", "~")
            return Node(r.choice(ops), ty, (self.expr(ty, depth - 1, is_float),))
        a, b = self.operand_types(ty)
        return Node("?:", ty, (self.expr("bool", depth - 1), self.expr(a, depth - 1, no_mul),
                               self.expr(b, depth - 1, no_mul)))


# ------------------------------------------------------------------ HLSL text

def _float_literal(v: float, ty: str) -> str:
    if math.isnan(v) or math.isinf(v) or (v == 0 and math.copysign(1, v) < 0):
        word = struct.unpack("<I", struct.pack("<f", v))[0]
        return f"(({ty})asfloat(0x{word:08X}u))"         # float inf/nan/-0 convert exactly to every width
    if ty == "double":
        return f"{v!r}L"
    return f"{ty}({v!r})"


def _int_literal(v: int, ty: str) -> str:
    kind, width = TYPES[ty]
    if width == 64:
        return f"(({ty})0x{v & ((1 << 64) - 1):X}ull)"
    if width == 16:
        return f"(({ty})0x{v & 0xFFFF:X}u)"
    return f"int({v})" if kind == "int" and v > -(1 << 31) else f"(({ty})0x{v & 0xFFFFFFFF:X}u)"


def literal(n: Node) -> str:
    return _float_literal(n.value, n.ty) if n.ty in FLOATS else _int_literal(n.value, n.ty)


def _bare(n: Node) -> str | None:
    """A leaf as an untyped literal (`5`, `(-3)`, `2.5`), which adopts the other operand's type, or None where its
    value has no such spelling (beyond 32 bits, non-finite, -0, every other leaf only)."""
    v = n.value
    if n.slot % 2:
        return None
    if n.ty in FLOATS:
        return f"{v!r}" if math.isfinite(v) and v > 0 else f"({v!r})" if math.isfinite(v) and v < 0 else None
    return (f"{v}" if v >= 0 else f"({v})") if -(1 << 31) < v < (1 << 31) else None


@dataclass
class Vec:
    """A vector program's context: its width and every leaf slot's component values."""
    n: int
    comps: dict[int, list]

    def ty(self, t: str) -> str:
        return f"{t}{self.n}"


def _evaluates_to_zero(n: Node, vec: Vec | None) -> bool:
    if vec is None:
        return evaluate(n) == 0
    return any(evaluate(_component(n, vec.comps, c)) == 0 for c in range(vec.n))


def _component(n: Node, comps: dict[int, list], c: int) -> Node:
    """Component c of a vector tree: the same tree over the leaves' component c."""
    if n.op == "leaf":
        return Node("leaf", n.ty, value=comps[n.slot][c], slot=n.slot)
    return Node(n.op, n.ty, tuple(_component(x, comps, c) for x in n.args))


def text(n: Node, folded: bool, vec: Vec | None = None) -> str:
    """`n` in HLSL over literals (`folded`) or over the leaf variables `aK`; with `vec`, over vectors of its width
    (component-wise: `select` for `?:`, as HLSL 2021 refuses vector conditions in `?:`).  A scalar leaf beside a
    non-leaf operand of its own type in an arithmetic operator or a comparison may be written as an untyped literal."""
    if n.op == "leaf":
        if not folded:
            return f"a{n.slot}"
        if vec is None:
            return literal(n)
        lits = (literal(Node("leaf", n.ty, value=v)) for v in vec.comps[n.slot])
        return f"{vec.ty(n.ty)}({', '.join(lits)})"
    op = n.op
    a = [text(x, folded, vec) for x in n.args]
    if vec is None and op in ARITH + COMPARE and n.args[0].ty == n.args[1].ty:
        for k in (0, 1):
            x, other = n.args[k], n.args[1 - k]
            if x.op == "leaf" and other.op != "leaf" and not (k == 1 and op in ("/", "%")):
                a[k] = _bare(x) or a[k]
    if folded and op in ("/", "%") and n.ty in INTS and _evaluates_to_zero(n.args[1], vec):
        a[1] = text(n.args[1], False, vec)            # a constant 0 divisor is a compile error
    ty = n.ty if vec is None else vec.ty(n.ty)
    if op == "cast":
        return f"(({ty})({a[0]}))"
    if op == "neg":
        return f"(-({a[0]}))"
    if op == "~":
        return f"(~{a[0]})"
    if op == "abs":
        return f"abs({a[0]})"
    if op in ("min", "max"):        # the intrinsics want one type: both operands cast to the result's
        return f"{op}(({ty})({a[0]}), ({ty})({a[1]}))"
    if op == "?:" and vec is not None:
        return f"select({a[0]}, ({ty})({a[1]}), ({ty})({a[2]}))"
    if op == "?:":
        return f"({a[0]} ? {a[1]} : {a[2]})"
    return f"({a[0]} {op} {a[1]})"


def _store_bytes(ty: str, v) -> bytes:
    kind, width = TYPES[ty]
    if kind == "bool":
        return struct.pack("<I", int(v))
    if kind == "float":
        if math.isnan(v):
            raise Unspecified("a NaN's payload")
        if v == 0:
            raise Unspecified("the sign of a zero result")
        return struct.pack(_PACK[width], v)
    return (v & ((1 << width) - 1)).to_bytes(width // 8, "little")


def _leaf_bytes(ty: str, v) -> bytes:
    kind, width = TYPES[ty]
    if kind == "float":
        return struct.pack(_PACK[width], v)
    return (v & ((1 << width) - 1)).to_bytes(width // 8, "little")


@dataclass
class WideProgram:
    source: str
    inputs: bytes          # the In buffer
    expected: bytes        # the Out buffer after the dispatch (SENTINEL where nothing is stored)


OPTIONS = {"profile": "cs_6_2", "enable_16bit_types": True}


def _store(at: int, n: Node, folded: bool, vec: Vec | None) -> str:
    t = text(n, folded, vec)
    if n.ty == "bool":
        if vec is None:
            return f"    Out.Store<uint>({at}, ({t}) ? 1u : 0u);"
        return f"    Out.Store<uint{vec.n}>({at}, (uint{vec.n})({t}));"
    return f"    Out.Store<{n.ty if vec is None else vec.ty(n.ty)}>({at}, {t});"


def _shift(rng: random.Random, ty: str, lanes: int) -> int:
    """Where in its slot a value goes: a multiple of its component size (2-byte addresses for 16-bit values)."""
    size = 4 if ty == "bool" else TYPES[ty][1] // 8
    return size * rng.randrange((SLOT - size * lanes) // size + 1)


def _redraw_leaves(n: Node, rng: random.Random, comps: dict[int, list]) -> None:
    """One more component for every leaf slot of n (a vector's next lane)."""
    if n.op == "leaf":
        comps[n.slot].append(rng.choice(LEAVES[n.ty]))
    for x in n.args:
        _redraw_leaves(x, rng, comps)


def generate(rng: random.Random, depth: int = 4) -> WideProgram:
    """OUT_SLOTS // 2 trees, each stored from run-time leaves and from literals; scalars, or (one program in two)
    vectors of 2 to 4 components, each lane its own leaves, evaluated lane by lane."""
    width = rng.choice((1, 1, 2, 3, 4))
    d = _Draw(rng)
    comps: dict[int, list] = {}
    trees, vals = [], []
    while len(trees) < OUT_SLOTS // 2:
        mark = len(d.leaves)
        tree = d.expr(rng.choice(INTS + FLOATS + INTS + ("bool",)), depth)
        for k in range(mark, len(d.leaves)):
            comps[k] = [d.leaves[k][1]]
        for _ in range(width - 1):
            _redraw_leaves(tree, rng, comps)
        try:
            vals.append(b"".join(_store_bytes(tree.ty, evaluate(_component(tree, comps, c))) for c in range(width)))
        except Unspecified:
            del d.leaves[mark:]
            for k in [k for k in comps if k >= mark]:
                del comps[k]
            continue
        trees.append(tree)
    vec = Vec(width, comps) if width > 1 else None
    tn = (lambda t: t) if vec is None else vec.ty
    lines = ["ByteAddressBuffer In : register(t1);", "RWByteAddressBuffer Out : register(u0);",
             "[numthreads(1, 1, 1)]", "void main(uint3 tid : SV_DispatchThreadID) {"]
    ins = [_shift(rng, ty, width) for ty, _v in d.leaves]
    outs = [_shift(rng, t.ty, width) for t in trees for _ in (0, 1)]
    lines += [f"    {tn(ty)} a{k} = In.Load<{tn(ty)}>({SLOT * k + ins[k]});" for k, (ty, _v) in enumerate(d.leaves)]
    for i, t in enumerate(trees):
        lines += [_store(SLOT * 2 * i + outs[2 * i], t, False, vec),
                  _store(SLOT * (2 * i + 1) + outs[2 * i + 1], t, True, vec)]
    lines.append("}")
    inputs = b"".join((bytes(ins[k]) + b"".join(_leaf_bytes(ty, v) for v in comps[k])).ljust(SLOT, b"\0")
                      for k, (ty, _v) in enumerate(d.leaves)) or bytes(SLOT)
    expected = b"".join((bytes([SENTINEL]) * outs[2 * i + j] + v).ljust(SLOT, bytes([SENTINEL]))
                        for i, v in enumerate(vals) for j in (0, 1))
    return WideProgram("\n".join(lines) + "\n", inputs, expected)


def findings(got: bytes, prog: WideProgram, route: str) -> list[str]:
    """The slots where `got` (Out's bytes) differs from the expected ones."""
    out = []
    for k in range(OUT_SLOTS):
        g, w = got[SLOT * k:SLOT * (k + 1)], prog.expected[SLOT * k:SLOT * (k + 1)]
        if g != w:
            out.append(f"{route} slot {k} ({'folded' if k % 2 else 'run time'}): {g.hex()}, want {w.hex()}")
    return out
