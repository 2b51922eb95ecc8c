"""Issue 20: every numeric intrinsic and operator on every element type and vector width DXC accepts, executed.

One shader per element type (float, half, double, int, uint, int16_t, uint16_t, int64_t, uint64_t) computes each
intrinsic of the table (shaderbuild/ir/intrinsics.py) that DXC overloads for that type, for the scalar and for
a vector (each width 1..4 met across the types of a kind), on values read from StructuredBuffers (so nothing folds); it runs on lavapipe at -O3
and -O0 and, through res_util's DXIL twin, on the DXIL interpreter and through dxil-spirv.  Expected values are
computed here in Python from the inputs (struct-packed widths; D3D's rules from docs/CONFORMANCE.md for division
by zero, shifts and float-to-int conversions).  Casts between every pair of types and buffer element types
(structured, typed and byte-address) are swept the same way.
"""

from __future__ import annotations

import math
import struct

import pytest
import res_util as R
from harness import tools

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

# HLSL type -> (struct code, kind: f float, i signed, u unsigned)
TYPES = {
    "float": ("f", "f"), "half": ("e", "f"), "double": ("d", "f"),
    "int": ("i", "i"), "uint": ("I", "u"), "int16_t": ("h", "i"), "uint16_t": ("H", "u"),
    "int64_t": ("q", "i"), "uint64_t": ("Q", "u"),
}
SIXTEEN = {"half", "int16_t", "uint16_t"}
# The scalar or a one-component vector, and one wider vector, per type; across the types of each kind every
# width 1..4 is met.  (Every width of every type in one shader took lavapipe over 30 s to compile for 16-bit ones.)
WIDTHS = {"float": ("", "4"), "half": ("1", "3"), "double": ("", "2"), "int": ("", "3"), "uint": ("1", "4"),
          "int16_t": ("", "2"), "uint16_t": ("1", "4"), "int64_t": ("", "3"), "uint64_t": ("1", "2")}
THREADS = 3
LANES = 4                                # inputs per thread: component c of every width reads A[i * 4 + c]


def bits(t: str) -> int:
    return 8 * struct.calcsize(TYPES[t][0])


def kind(t: str) -> str:
    return TYPES[t][1]


def wrap(t: str, x: int) -> int:
    n = bits(t)
    x &= (1 << n) - 1
    return x - (1 << n) if kind(t) == "i" and x >= 1 << (n - 1) else x


def rnd(t: str, x: float) -> float:
    """x rounded to the float type t (overflow to infinity)."""
    code = TYPES[t][0]
    if code == "d" or math.isnan(x) or math.isinf(x):
        return x
    try:
        return struct.unpack("<" + code, struct.pack("<" + code, x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def to_type(t: str, x):
    return rnd(t, float(x)) if kind(t) == "f" else wrap(t, int(x))


def ordered(t: str, x: float) -> int:
    code = {"e": ("<e", "<h"), "f": ("<f", "<i"), "d": ("<d", "<q")}[TYPES[t][0]]
    i = struct.unpack(code[1], struct.pack(code[0], x))[0]
    return i if i >= 0 else -(i & ((1 << (bits(t) - 1)) - 1))


def same(t: str, got, want, ulps: int) -> bool:
    """ulps < 0: exact, but the sign of a zero is free (D3D leaves min/max of +0 and -0 open)."""
    if kind(t) != "f":
        return got == want
    if ulps < 0:
        return got == want
    if math.isnan(want) or math.isnan(got):
        return math.isnan(want) and math.isnan(got)
    if ulps == 0:
        return got == want and math.copysign(1, got) == math.copysign(1, want)
    return abs(ordered(t, got) - ordered(t, want)) <= ulps


# ---------------------------------------------------------------- inputs

FLOAT_A = [-2.5, 1.5, 0.5, -0.5, 3.75, -7.25, 2.5, 100.25, 0.0, 5.5, -1.0, 0.75]
FLOAT_B = [1.5, -3.0, 2.0, 0.75, -0.25, 4.5, 2.5, -6.0, 8.0, -1.5, 0.375, 3.0]
FLOAT_C = [0.5, 0.25, -1.0, 1.5, 2.0, 0.0, 0.75, 1.0, 0.0, 0.5, 0.25, -4.0]

INT_VALUES = {
    32: ([-7, 13, 0, 2**31 - 1, -2**31, 5, -1, 1000000, 123456789, -98765, 3, 65535],
         [3, -5, 7, 2, -1, -2**31, 9, -3, 37, 11, -1, 65537],
         [1, 33, -2, 31, 4, 0, 40, -7, 2, 12, 63, 16]),
    16: ([-7, 13, 0, 2**15 - 1, -2**15, 5, -1, 1000, 12345, -9876, 3, 255],
         [3, -5, 7, 2, -1, -2**15, 9, -3, 37, 11, -1, 257],
         [1, 17, -2, 15, 4, 0, 20, -7, 2, 12, 31, 8]),
    64: ([-7, 13, 0, 2**63 - 1, -2**63, 5, -1, 10**12, 123456789012345, -98765432109, 3, 2**40 + 1],
         [3, -5, 7, 2, -1, -2**63, 9, -3, 37, 11, -1, 2**33 + 5],
         [1, 65, -2, 63, 4, 0, 70, -7, 2, 40, 127, 33]),
}


def inputs(t: str) -> tuple[list, list, list]:
    if kind(t) == "f":
        return FLOAT_A, FLOAT_B, FLOAT_C
    a, b, c = INT_VALUES[bits(t)]
    return [wrap(t, x) for x in a], [wrap(t, x) for x in b], [wrap(t, x) for x in c]


# ---------------------------------------------------------------- expectations per component

def _round_even(x: float) -> float:
    return math.copysign(float(round(x)), x)


def _ieee(f, x: float) -> float:
    """floor/ceil/trunc keeping the sign of a zero result (IEEE: ceil(-0.5) == -0.0)."""
    return math.copysign(float(f(x)), x)


def _sign(x) -> int:
    return 0 if x == 0 or (isinstance(x, float) and math.isnan(x)) else (1 if x > 0 else -1)


def _fmod(a: float, b: float) -> float:
    return math.fmod(a, b) if b != 0 else math.nan


def _firstbithigh(t: str, x: int) -> int:
    n = bits(t)
    u = x & ((1 << n) - 1)
    if kind(t) == "i" and x < 0:
        u = ~u & ((1 << n) - 1)
    return -1 if u == 0 else u.bit_length() - 1


def _firstbitlow(t: str, x: int) -> int:
    u = x & ((1 << bits(t)) - 1)
    return -1 if u == 0 else (u & -u).bit_length() - 1


def _reverse(t: str, x: int) -> int:
    n = bits(t)
    return int(format(x & ((1 << n) - 1), f"0{n}b")[::-1], 2)


def _div(t: str, a: int, b: int) -> int:
    """D3D's quotient (docs/CONFORMANCE.md): x/0 is all ones unsigned, -1 (a >= 0) or 1 (a < 0) signed."""
    if b == 0:
        return -1 if kind(t) == "u" or a >= 0 else 1
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _rem(t: str, a: int, b: int) -> int:
    if b == 0:
        return -1 if kind(t) == "u" or a >= 0 else 1
    return a - _div(t, a, b) * b


def _shr(t: str, a: int, b: int) -> int:
    return a >> (b & (bits(t) - 1))     # Python's >> is arithmetic on negative ints, logical on unsigned values


# (name, HLSL expression over a, b, c of the vector type, Python function (t, a, b, c) -> value, ulps of the
# float type allowed, type kinds it applies to, component-wise)
class Op:
    def __init__(self, name: str, code: str, fn, kinds: str, ulps: int = 0, ret32: str = "") -> None:
        self.name, self.code, self.fn, self.kinds, self.ulps = name, code, fn, kinds, ulps
        self.ret32 = ret32   # 'uint' / 'int' / 'same-sign': a 32-bit result whatever the operand width

    def value(self, t: str, a, b, c):
        v = self.fn(t, a, b, c)
        if self.ret32:
            v = wrap("int" if self.ret32 == "int" or (self.ret32 == "same-sign" and kind(t) == "i") else "uint", v)
        return to_type(t, v)


OPS = [
    Op("abs", "abs(a)", lambda t, a, b, c: abs(a), "fiu"),
    Op("min", "min(a, b)", lambda t, a, b, c: min(a, b), "fiu", -1),
    Op("max", "max(a, b)", lambda t, a, b, c: max(a, b), "fiu", -1),
    Op("clamp", "clamp(a, min(b, c), max(b, c))", lambda t, a, b, c: min(max(a, min(b, c)), max(b, c)), "fiu", -1),
    Op("mad", "mad(a, b, c)", lambda t, a, b, c: a * b + c, "fiu"),
    Op("sign", "sign(a)", lambda t, a, b, c: _sign(a), "fiu"),
    Op("floor", "floor(a)", lambda t, a, b, c: _ieee(math.floor, a), "f"),
    Op("ceil", "ceil(a)", lambda t, a, b, c: _ieee(math.ceil, a), "f"),
    Op("round", "round(a)", lambda t, a, b, c: _round_even(a), "f"),
    Op("trunc", "trunc(a)", lambda t, a, b, c: _ieee(math.trunc, a), "f"),
    Op("frac", "frac(a)", lambda t, a, b, c: a - _ieee(math.floor, a) + 0.0, "f"),
    Op("saturate", "saturate(a)", lambda t, a, b, c: min(max(a, 0.0), 1.0), "f", -1),
    Op("step", "step(a, b)", lambda t, a, b, c: 1.0 if b >= a else 0.0, "f"),
    Op("lerp", "lerp(a, b, c)", lambda t, a, b, c: a + c * (b - a), "f", 2),
    Op("fmod", "fmod(a, b)", lambda t, a, b, c: _fmod(a, b), "f", 1),
    Op("sqrt", "sqrt(abs(a))", lambda t, a, b, c: math.sqrt(abs(a)), "f", 1),
    Op("rcp", "rcp(b)", lambda t, a, b, c: 1.0 / b, "f", 1),
    Op("isfinite", "isfinite(a / c)", lambda t, a, b, c: float(c != 0), "f"),
    Op("isinf", "isinf(a / c)", lambda t, a, b, c: float(c == 0 and a != 0), "f"),
    Op("isnan", "isnan(a / c)", lambda t, a, b, c: float(c == 0 and a == 0), "f"),
    Op("countbits", "countbits(a)", lambda t, a, b, c: bin(a & ((1 << bits(t)) - 1)).count("1"), "iu",
       ret32="uint"),
    Op("firstbitlow", "firstbitlow(a)", lambda t, a, b, c: _firstbitlow(t, a), "iu", ret32="uint"),
    Op("firstbithigh", "firstbithigh(a)", lambda t, a, b, c: _firstbithigh(t, a), "iu",
       ret32="uint"),      # DXC's table: `$match<1, 0> uint<> firstbithigh(any_int<>)`, uint for int operands too
    Op("reversebits", "reversebits(a)", lambda t, a, b, c: _reverse(t, a), "iu"),
    # operators
    Op("add", "a + b", lambda t, a, b, c: a + b, "fiu"),
    Op("sub", "a - b", lambda t, a, b, c: a - b, "fiu"),
    Op("mul", "a * b", lambda t, a, b, c: a * b, "fiu"),
    Op("div", "a / b", lambda t, a, b, c: (a / b if kind(t) == "f" else _div(t, a, b)), "fiu", 1),
    Op("rem", "a % b", lambda t, a, b, c: (_fmod(a, b) if kind(t) == "f" else _rem(t, a, b)), "fiu", 1),  # not double (DXC refuses)
    Op("divc", "a / c", lambda t, a, b, c: _div(t, a, c), "iu"),     # c holds a 0
    Op("remc", "a % c", lambda t, a, b, c: _rem(t, a, c), "iu"),
    Op("neg", "-a", lambda t, a, b, c: -a, "fiu"),
    Op("lt", "a < b", lambda t, a, b, c: int(a < b), "fiu"),
    Op("ge", "a >= b", lambda t, a, b, c: int(a >= b), "fiu"),
    Op("eq", "a == c", lambda t, a, b, c: int(a == c), "fiu"),
    Op("shl", "a << c", lambda t, a, b, c: a << (c & (bits(t) - 1)), "iu"),
    Op("shr", "a >> c", lambda t, a, b, c: _shr(t, a, c), "iu"),
    Op("and", "a & b", lambda t, a, b, c: a & b, "iu"),
    Op("or", "a | b", lambda t, a, b, c: a | b, "iu"),
    Op("xor", "a ^ b", lambda t, a, b, c: a ^ b, "iu"),
    Op("not", "~a", lambda t, a, b, c: ~a, "iu"),
    Op("inc", "a + 1", lambda t, a, b, c: a + 1, "iu"),
    # not component-wise: every component of r is the dot product over the width (expected_intrinsics)
    Op("dot", "dot(a, b)", None, "fiu"),
]


# DXC's float_like<> intrinsics: a double argument converts to float and so does the result
DOUBLE_AS_FLOAT = frozenset("floor ceil round trunc frac step lerp fmod sqrt isnan isinf isfinite".split())


def compare_type(t: str, op: Op) -> str:
    return "float" if t == "double" and op.name in DOUBLE_AS_FLOAT else t


def ops_for(t: str) -> list[Op]:
    return [op for op in OPS if kind(t) in op.kinds and not (t == "double" and op.name == "rem")]


def vtype(t: str, w: str) -> str:
    return t + w


def profile_of(t: str) -> tuple[str, dict]:
    # float results: the interpreter's correctly rounded a / b against lavapipe's a * (1 / b) (D3D allows 2.5 ulps)
    opts: dict = {"dxil_tol": 1e-6} if t in ("float", "double") else {}
    if bits(t) in (16, 64) and t != "double":
        opts["no_interpreter"] = True
    if t not in SIXTEEN:
        return "cs_6_0", opts
    return "cs_6_2", {"enable_16bit_types": True, **opts}


def widths(t: str) -> tuple[str, ...]:
    return WIDTHS[t]


def intrinsic_shader(t: str) -> str:
    """Out[((i * |widths| + w) * |ops| + j) * 4 + c] = component c of op j at width w in thread i."""
    ops, ws = ops_for(t), widths(t)
    lines = [f"StructuredBuffer<{t}> A : register(t0);", f"StructuredBuffer<{t}> B : register(t1);",
             f"StructuredBuffer<{t}> C : register(t2);", f"RWStructuredBuffer<{t}> Out : register(u3);",
             f"[numthreads({THREADS}, 1, 1)] void main(uint i : SV_DispatchThreadID) {{"]
    for wi, w in enumerate(ws):
        n = int(w or 1)
        vt = vtype(t, w)
        lines.append("    {")
        for v in "ABC":
            comps = ", ".join(f"{v}[i * {LANES} + {k}]" for k in range(n))
            lines.append(f"        {vt} {v.lower()} = {vt}({comps});")
        for j, op in enumerate(ops):
            lines.append(f"        {{ {vt} r = ({vt})({op.code}); // {op.name}")
            for k in range(n):
                comp = "r" if not w else f"r.{'xyzw'[k]}"
                lines.append(f"          Out[((i * {len(ws)} + {wi}) * {len(ops)} + {j}) * 4 + {k}] = {comp};")
            lines.append("        }")
        lines.append("    }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def expected_intrinsics(t: str) -> dict[int, tuple[Op, float | int]]:
    ops, ws = ops_for(t), widths(t)
    a_in, b_in, c_in = inputs(t)
    want: dict[int, tuple[Op, float | int]] = {}
    for i in range(THREADS):
        for wi, w in enumerate(ws):
            for j, op in enumerate(ops):
                n = int(w or 1)
                for k in range(n):
                    a, b, c = (to_type(t, v[i * LANES + k]) for v in (a_in, b_in, c_in))
                    if op.fn is None:    # dot: the products summed in component order, in the type
                        acc = to_type(t, 0)
                        for m in range(n):
                            acc = to_type(t, acc + to_type(t, to_type(t, a_in[i * LANES + m])
                                                            * to_type(t, b_in[i * LANES + m])))
                        want[((i * len(ws) + wi) * len(ops) + j) * 4 + k] = (op, acc)
                        continue
                    want[((i * len(ws) + wi) * len(ops) + j) * 4 + k] = (op, op.value(t, a, b, c))
    return want


def run_buffers(src: str, t_in: dict[str, tuple[str, list]], outs: dict[str, tuple[str, int]], profile: str,
                **opts) -> dict[str, list]:
    """Run on lavapipe (-O3 and -O0) with the DXIL twin on the interpreter and dxil-spirv; decoded outputs."""
    specs: dict[str, object] = {}
    for name, (t, vals) in t_in.items():
        specs[name] = R.storage(R.pack(TYPES[t][0], [to_type(t, v) for v in vals]))
    for name, (t, count) in outs.items():
        size = count * struct.calcsize(TYPES[t][0])
        specs[name] = R.storage(R.sentinel((size + 3) // 4))
    skip = {"dxil_skip": "dxop-overloads"} if opts.pop("no_interpreter", False) else {}
    got = R.cs(src, specs, profile=profile, **skip, **opts)
    return {name: R.unpack(TYPES[t][0], got[name]) for name, (t, _n) in outs.items()}


@pytest.mark.parametrize("t", list(TYPES))
def test_intrinsics_and_operators_per_type(t):
    profile, opts = profile_of(t)
    a, b, c = inputs(t)
    want = expected_intrinsics(t)
    count = THREADS * len(widths(t)) * len(ops_for(t)) * 4
    got = run_buffers(intrinsic_shader(t), {"A": (t, a), "B": (t, b), "C": (t, c)}, {"Out": (t, count)},
                      profile, **opts)["Out"]
    bad = [f"{op.name} slot {i}: got {got[i]!r}, want {w!r}" for i, (op, w) in sorted(want.items())
           if not same(compare_type(t, op), got[i], rnd(compare_type(t, op), w) if kind(t) == "f" else w, op.ulps)]
    assert not bad, f"{t}: {len(bad)} wrong:\n" + "\n".join(bad[:40])


# ---------------------------------------------------------------- casts between every pair of types

CAST_FLOATS = [math.nan, math.inf, -math.inf, -3.6, 3.6, 2.5, -0.5, 0.0, 1e10, -1e10, 70000.0, 40000.5, -40000.5,
               2.0**31, -2.0**31 - 4096, 2.0**63, 16777217.0, 65519.0, 65520.0, -129.75]
CAST_INTS = [-1, 0, 1, 0x7FFF, 0x8000, -32769, 70000, 2**31 - 1, -2**31, 2**40 + 3, 2**53 + 1, 16777217, -16777217,
             65505, 65520, 2**63 - 1, -2**63, 0xFFFF, 300, -129]
CAST_DESTS = [*TYPES, "bool"]


def cast_inputs(t: str) -> list:
    return [to_type(t, v) for v in (CAST_FLOATS if kind(t) == "f" else CAST_INTS)]


def cast_value(src: str, dst: str, x):
    """D3D's conversion of x (already a value of type src) to dst; bool stored as 0/1."""
    if dst == "bool":
        return int(x != 0)
    if kind(dst) == "f":
        return rnd(dst, float(x))
    if kind(src) != "f":
        return wrap(dst, x)
    if math.isnan(x):
        return 0
    lo, hi = (-(1 << (bits(dst) - 1)), (1 << (bits(dst) - 1)) - 1) if kind(dst) == "i" else (0, (1 << bits(dst)) - 1)
    return min(max(math.trunc(x) if math.isfinite(x) else (hi if x > 0 else lo), lo), hi)


def cast_shader(src: str) -> str:
    n = len(cast_inputs(src))
    lines = [f"StructuredBuffer<{src}> In : register(t0);"]
    lines += [f"RWStructuredBuffer<{'uint' if d == 'bool' else d}> O_{d} : register(u{k + 1});"
              for k, d in enumerate(CAST_DESTS)]
    lines.append(f"[numthreads({n}, 1, 1)] void main(uint i : SV_DispatchThreadID) {{\n    {src} x = In[i];")
    lines += [f"    O_{d}[i] = {'(uint)(bool)x' if d == 'bool' else f'({d})x'};" for d in CAST_DESTS]
    return "\n".join(lines) + "\n}\n"


def _needs_16(*ts: str) -> bool:
    return any(t in SIXTEEN for t in ts)


@pytest.mark.parametrize("src", list(TYPES))
def test_casts_from_every_type_to_every_type(src):
    xs = cast_inputs(src)
    outs = {f"O_{d}": ("uint" if d == "bool" else d, len(xs)) for d in CAST_DESTS}
    opts: dict = {"dxil_skip": "dxop-overloads"} if bits(src) != 32 else {}
    got = R.cs(cast_shader(src), {"In": R.storage(R.pack(TYPES[src][0], xs)),
                                  **{n: R.storage(R.sentinel((c * struct.calcsize(TYPES[t][0]) + 3) // 4))
                                     for n, (t, c) in outs.items()}},
               profile="cs_6_2", enable_16bit_types=True, **opts)
    bad = []
    for d in CAST_DESTS:
        t = "uint" if d == "bool" else d
        vals = R.unpack(TYPES[t][0], got[f"O_{d}"])
        for x, g in zip(xs, vals):
            w = cast_value(src, d, x)
            if not same(t, g, w, 0):
                bad.append(f"({d}){src} {x!r}: got {g!r}, want {w!r}")
    assert not bad, f"{len(bad)} wrong:\n" + "\n".join(bad)


# ---------------------------------------------------------------- buffer element types

BUF_WIDTHS = ("", "2", "3", "4")
ELEMS = 4


def buffer_shader(t: str) -> str:
    """Per width w: OS_w[k] = S_w[3 - k] + S_w.Load(k); the byte-address region of w (at w * 256) gets
    Store<T>(k) of Load<T>(3 - k) * 2."""
    lines = ["ByteAddressBuffer BA : register(t0);", "RWByteAddressBuffer OB : register(u1);"]
    body = []
    for wi, w in enumerate(BUF_WIDTHS):
        vt, size = t + w, struct.calcsize(TYPES[t][0]) * int(w or 1)
        lines += [f"StructuredBuffer<{vt}> S{wi} : register(t{2 + wi});",
                  f"RWStructuredBuffer<{vt}> OS{wi} : register(u{6 + wi});"]
        for k in range(ELEMS):
            body.append(f"    OS{wi}[{k}] = S{wi}[{ELEMS - 1 - k}] + S{wi}.Load({k});")
            body.append(f"    OB.Store<{vt}>({wi * 256 + k * size}, BA.Load<{vt}>({wi * 256 + (ELEMS - 1 - k) * size}) "
                        f"* ({vt})2);")
    return "\n".join(lines) + "\n[numthreads(1, 1, 1)] void main() {\n" + "\n".join(body) + "\n}\n"


@pytest.mark.parametrize("t", list(TYPES))
def test_buffer_element_types(t):
    code = TYPES[t][0]
    vals = [to_type(t, v) for v in inputs(t)[0]] * 2      # 24 values: enough for 4 elements of 4 components
    region = 256 // struct.calcsize(code)
    ba = [vals[i % len(vals)] if i % region < 16 else to_type(t, 0) for i in range(region * len(BUF_WIDTHS))]
    specs: dict[str, object] = {"BA": R.storage(R.pack(code, ba)), "OB": R.storage(R.sentinel(64 * len(BUF_WIDTHS)))}
    for wi, w in enumerate(BUF_WIDTHS):
        n = int(w or 1)
        specs[f"S{wi}"] = R.storage(R.pack(code, vals[:ELEMS * n]))
        specs[f"OS{wi}"] = R.storage(R.sentinel((ELEMS * n * struct.calcsize(code) + 3) // 4))
    profile, opts = profile_of(t)
    opts.pop("dxil_tol", None)
    skip = {"dxil_skip": "dxop-overloads"} if opts.pop("no_interpreter", False) else {}
    # D3D's tightly packed strides (float3: 12 bytes) on the Vulkan side too, so the DXIL twin runs on the same data
    got = R.cs(buffer_shader(t), specs, profile=profile, vk_layout="dx", **skip, **opts)
    bad = []
    ob = R.unpack(code, got["OB"])
    for wi, w in enumerate(BUF_WIDTHS):
        n = int(w or 1)
        s = [vals[k * n:(k + 1) * n] for k in range(ELEMS)]
        os_ = R.unpack(code, got[f"OS{wi}"])
        for k in range(ELEMS):
            want = [to_type(t, x + y) for x, y in zip(s[ELEMS - 1 - k], s[k])]
            if os_[k * n:(k + 1) * n] != want:
                bad.append(f"StructuredBuffer<{t}{w}>[{k}]: got {os_[k * n:(k + 1) * n]}, want {want}")
            base = wi * region + k * n
            src = wi * region + (ELEMS - 1 - k) * n
            want = [to_type(t, 2 * x) for x in ba[src:src + n]]
            if ob[base:base + n] != want:
                bad.append(f"Load/Store<{t}{w}>[{k}]: got {ob[base:base + n]}, want {want}")
    assert not bad, f"{len(bad)} wrong:\n" + "\n".join(bad)


# ---------------------------------------------------------------- NaN, infinities and -0.0

SPECIALS = [math.nan, math.inf, -math.inf, -0.0, 0.5, -2.0]
# (expression over x and one == 1 read from a buffer, Python function of x); float results
SPECIAL_F = [
    ("saturate(x)", lambda x: 0.0 if math.isnan(x) else min(max(x, 0.0), 1.0)),
    ("min(x, one)", lambda x: 1.0 if math.isnan(x) else min(x, 1.0)),        # D3D: a NaN operand is ignored
    ("max(x, one)", lambda x: 1.0 if math.isnan(x) else max(x, 1.0)),
    ("min(one, x)", lambda x: 1.0 if math.isnan(x) else min(x, 1.0)),
    ("max(one, x)", lambda x: 1.0 if math.isnan(x) else max(x, 1.0)),
    ("clamp(x, -one, one)", lambda x: -1.0 if math.isnan(x) else min(max(x, -1.0), 1.0)),
    ("abs(x)", abs),
    ("sign(x)", lambda x: float(_sign(x))),
    ("-x", lambda x: -x),
]
SPECIAL_U = [
    ("isnan(x)", math.isnan), ("isinf(x)", math.isinf), ("isfinite(x)", math.isfinite),
    ("x == x", lambda x: x == x), ("x != x", lambda x: x != x),       # unordered !=: true for NaN
    ("x < one", lambda x: x < 1.0), ("!(x >= one)", lambda x: not x >= 1.0), ("x > -one", lambda x: x > -1.0),
]


@pytest.mark.parametrize("t", ["float", "half", "double"])
def test_nan_inf_and_signed_zero(t):
    n = len(SPECIALS)
    body = [f"    Out_f[i * {len(SPECIAL_F)} + {j}] = ({t})({e});" for j, (e, _f) in enumerate(SPECIAL_F)]
    body += [f"    Out_u[i * {len(SPECIAL_U)} + {j}] = (uint)({e});" for j, (e, _f) in enumerate(SPECIAL_U)]
    src = (f"StructuredBuffer<{t}> X : register(t0);\nStructuredBuffer<{t}> One : register(t1);\n"
           f"RWStructuredBuffer<{t}> Out_f : register(u2);\nRWStructuredBuffer<uint> Out_u : register(u3);\n"
           f"[numthreads({n}, 1, 1)] void main(uint i : SV_DispatchThreadID) {{\n"
           f"    {t} x = X[i], one = One[i];\n" + "\n".join(body) + "\n}\n")
    code = TYPES[t][0]
    profile, opts = profile_of(t)
    opts.pop("dxil_tol", None)
    skip = {"dxil_skip": "dxop-overloads"} if opts.pop("no_interpreter", False) else {}
    got = R.cs(src, {"X": R.storage(R.pack(code, SPECIALS)), "One": R.storage(R.pack(code, [1.0] * n)),
                     "Out_f": R.storage(R.sentinel((n * len(SPECIAL_F) * struct.calcsize(code) + 3) // 4)),
                     "Out_u": R.storage(R.sentinel(n * len(SPECIAL_U)))}, profile=profile, **skip, **opts)
    f, u = R.unpack(code, got["Out_f"]), R.unpack("I", got["Out_u"])
    bad = []
    for i, x in enumerate(SPECIALS):
        for j, (e, fn) in enumerate(SPECIAL_F):
            g, w = f[i * len(SPECIAL_F) + j], fn(x)
            if not same(t, g, w, 0 if e in ("abs(x)", "-x") else -1):
                bad.append(f"{e} at x={x}: got {g!r}, want {w!r}")
        for j, (e, fn) in enumerate(SPECIAL_U):
            g, w = u[i * len(SPECIAL_U) + j], int(fn(x))
            if g != w:
                bad.append(f"{e} at x={x}: got {g!r}, want {w!r}")
    assert not bad, f"{t}: {len(bad)} wrong:\n" + "\n".join(bad)


def test_one_component_vector_subscript():
    """DXC indexes float1 (was refused: 'subscripted value of type float'; fixed by audit8's 7d09f9b)."""
    src = ("StructuredBuffer<float> A : register(t0);\nRWStructuredBuffer<float> Out : register(u1);\n"
           "[numthreads(1, 1, 1)] void main() { float1 r = A[0] * 2; Out[0] = r[0]; }\n")
    got = R.cs(src, {"A": R.storage(R.pack("f", [1.25])), "Out": R.storage(R.sentinel(1))})
    assert R.unpack("f", got["Out"]) == [2.5]


# ---------------------------------------------------------------- component-wise on matrices

MAT_SKIP = frozenset({"dot", "countbits", "firstbitlow", "firstbithigh", "reversebits"})


def mat_ops(t: str) -> list[Op]:
    return [op for op in ops_for(t) if op.name not in MAT_SKIP]


# each kind and width at least once (the lowering is per kind; lavapipe's compile time is the cost)
MATRIX_TYPES = ["float", "half", "double", "int", "uint16_t", "int64_t"]


@pytest.mark.parametrize("t", MATRIX_TYPES)
def test_componentwise_on_matrices(t):
    """Every component-wise intrinsic and operator of the per-type sweep on a matrix of the type (2x3 for float and
    int, 2x2 for the others: lavapipe's compile time grows with the element count)."""
    cols = 3 if t in ("float", "int") else 2
    ops, mt, threads = mat_ops(t), f"{t}2x{cols}", 2
    lines = [f"StructuredBuffer<{t}> {v} : register(t{k});" for k, v in enumerate("ABC")]
    lines += [f"RWStructuredBuffer<{t}> Out : register(u3);",
              f"[numthreads({threads}, 1, 1)] void main(uint i : SV_DispatchThreadID) {{"]
    for v in "ABC":
        lines.append(f"    {mt} {v.lower()} = {mt}({', '.join(f'{v}[i * 6 + {e}]' for e in range(2 * cols))});")
    for j, op in enumerate(ops):
        lines.append(f"    {{ {mt} r = ({mt})({op.code}); // {op.name}")
        lines += [f"      Out[(i * {len(ops)} + {j}) * 6 + {e}] = r[{e // cols}][{e % cols}];" for e in range(2 * cols)]
        lines.append("    }")
    src = "\n".join(lines) + "\n}\n"
    a_in, b_in, c_in = inputs(t)
    profile, opts = profile_of(t)
    got = run_buffers(src, {"A": (t, a_in), "B": (t, b_in), "C": (t, c_in)},
                      {"Out": (t, threads * len(ops) * 6)}, profile, **opts)["Out"]
    bad = []
    for i in range(threads):
        for j, op in enumerate(ops):
            for e in range(2 * cols):
                a, b, c = (to_type(t, v[i * 6 + e]) for v in (a_in, b_in, c_in))
                w, ct = op.value(t, a, b, c), compare_type(t, op)
                g = got[(i * len(ops) + j) * 6 + e]
                if not same(ct, g, rnd(ct, w) if kind(t) == "f" else w, op.ulps):
                    bad.append(f"{op.name} [{i}][{e}]: got {g!r}, want {w!r}")
    assert not bad, f"{mt}: {len(bad)} wrong:\n" + "\n".join(bad[:40])


# ---------------------------------------------------------------- typed buffers (Buffer<T> / RWBuffer<T>)

# element type -> texel format the test binds (the harness has 32-bit formats of 1, 2 and 4 channels)
TYPED = {"float": "r32f", "float2": "rg32f", "float4": "rgba32f", "uint": "r32ui", "uint2": "rg32ui",
         "uint4": "rgba32ui", "int": "r32i", "int4": "rgba32i"}


@pytest.mark.parametrize("vt", list(TYPED))
def test_typed_buffer_elements(vt):
    """RW[k] = T[3 - k] * 2 + T.Load(k) + RW[k] (operator[] and Load on Buffer<T>, read-modify-write on RWBuffer<T>)."""
    t = vt.rstrip("1234")
    n = int(vt[len(t):] or 1)
    code = TYPES[t][0]
    src_vals = [to_type(t, v) for v in (inputs(t)[0] * 2)[:4 * n]]
    rw_vals = [to_type(t, v) for v in (inputs(t)[1] * 2)[:4 * n]]
    src = (f"Buffer<{vt}> T : register(t0);\nRWBuffer<{vt}> RW : register(u1);\n"
           "[numthreads(4, 1, 1)] void main(uint k : SV_DispatchThreadID) {\n"
           f"    RW[k] = T[3 - k] * ({vt})2 + T.Load(k) + RW[k];\n}}\n")
    got = R.cs(src, {"T": R.texel(R.pack(code, src_vals), TYPED[vt], writable=False),
                     "RW": R.texel(R.pack(code, rw_vals), TYPED[vt])})
    out = R.unpack(code, got["RW"])
    want = [to_type(t, to_type(t, 2 * src_vals[(3 - k) * n + c]) + src_vals[k * n + c] + rw_vals[k * n + c])
            for k in range(4) for c in range(n)]
    assert out == want


# ---------------------------------------------------------------- minimum-precision types (SM 6.0, no 16-bit types)

MIN16 = [  # (expression over x, y of the min16 type, Python value from x, y); values exact at 16 bits
    ("min16float", "abs(x) + floor(y)", lambda x, y: abs(x) + math.floor(y)),
    ("min16float", "mad(x, y, x)", lambda x, y: x * y + x),
    ("min16float", "max(x, y) - round(y)", lambda x, y: max(x, y) - _round_even(y)),
    ("min16float", "clamp(x, -one, one) + sign(y)", lambda x, y: min(max(x, -1.0), 1.0) + _sign(y)),
    ("min16float", "frac(x) + trunc(y)", lambda x, y: x - math.floor(x) + math.trunc(y)),
    ("min16int", "abs(x) * 3 + min(x, y)", lambda x, y: abs(x) * 3 + min(x, y)),
    ("min16int", "mad(x, y, x) + sign(y)", lambda x, y: x * y + x + _sign(y)),
    ("min16int", "(x >> 1) + (y << 2)", lambda x, y: (x >> 1) + (y << 2)),
    ("min16uint", "max(x, y) + countbits(x)", lambda x, y: max(x, y) + bin(x).count("1")),
    ("min16uint", "(x | y) - (x & y) + firstbitlow(y)", lambda x, y: (x | y) - (x & y) + _firstbitlow("uint", y)),
]
MIN16_X = {"min16float": [-2.5, 3.75, 0.5, -7.25], "min16int": [-7, 13, 100, -250], "min16uint": [7, 13, 100, 250]}
MIN16_Y = {"min16float": [1.5, -3.5, 2.5, 0.75], "min16int": [3, -5, 7, 2], "min16uint": [3, 5, 7, 2]}


def test_min_precision_types():
    base = {"min16float": "float", "min16int": "int", "min16uint": "uint"}
    body = []
    for j, (mt, expr, _f) in enumerate(MIN16):
        bt = base[mt]
        body.append(f"    {{ {mt} x = ({mt})X_{bt}[i], y = ({mt})Y_{bt}[i], one = ({mt})1;\n"
                    f"      Out_{bt}[i * {len(MIN16)} + {j}] = ({bt})({expr}); }}")
    src = "\n".join(f"StructuredBuffer<{bt}> X_{bt} : register(t{k});\nStructuredBuffer<{bt}> Y_{bt} : register(t{k + 3});\n"
                    f"RWStructuredBuffer<{bt}> Out_{bt} : register(u{k + 6});"
                    for k, bt in enumerate(("float", "int", "uint")))
    src += "\n[numthreads(4, 1, 1)] void main(uint i : SV_DispatchThreadID) {\n" + "\n".join(body) + "\n}\n"
    specs: dict[str, object] = {}
    for mt, bt in base.items():
        code = TYPES[bt][0]
        specs[f"X_{bt}"] = R.storage(R.pack(code, MIN16_X[mt]))
        specs[f"Y_{bt}"] = R.storage(R.pack(code, MIN16_Y[mt]))
    for bt in ("float", "int", "uint"):
        specs[f"Out_{bt}"] = R.storage(R.sentinel(4 * len(MIN16)))
    got = R.cs(src, specs)
    bad = []
    for j, (mt, expr, fn) in enumerate(MIN16):
        bt = base[mt]
        out = R.unpack(TYPES[bt][0], got[f"Out_{bt}"])
        for i in range(4):
            w, g = fn(MIN16_X[mt][i], MIN16_Y[mt][i]), out[i * len(MIN16) + j]
            if g != w:
                bad.append(f"{mt} {expr} at {i}: got {g!r}, want {w!r}")
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------- transcendental and float-only intrinsics

TX = [0.25, 0.5, 0.75, 0.125]
TY = [1.5, 2.0, -0.5, 3.0]
# (expression over x in (0, 1) and y, Python value); results written as float
TRANSCENDENTAL = [
    ("exp(x)", lambda x, y: math.exp(x)), ("exp2(y)", lambda x, y: 2.0 ** y), ("log(x)", lambda x, y: math.log(x)),
    ("log2(x)", lambda x, y: math.log2(x)), ("log10(x)", lambda x, y: math.log10(x)),
    ("sin(y)", lambda x, y: math.sin(y)), ("cos(y)", lambda x, y: math.cos(y)), ("tan(x)", lambda x, y: math.tan(x)),
    ("asin(x)", lambda x, y: math.asin(x)), ("acos(x)", lambda x, y: math.acos(x)),
    ("atan(y)", lambda x, y: math.atan(y)), ("atan2(y, x)", lambda x, y: math.atan2(y, x)),
    ("sinh(x)", lambda x, y: math.sinh(x)), ("cosh(x)", lambda x, y: math.cosh(x)),
    ("tanh(y)", lambda x, y: math.tanh(y)), ("pow(x, y)", lambda x, y: x ** y), ("rsqrt(x)", lambda x, y: x ** -0.5),
    ("ldexp(x, y)", lambda x, y: x * 2.0 ** y), ("degrees(x)", lambda x, y: math.degrees(x)),
    ("radians(y)", lambda x, y: math.radians(y)),
    ("smoothstep(0, 1, x)", lambda x, y: x * x * (3 - 2 * x)),
    ("modf(y + x, w)", lambda x, y: math.modf(y + x)[0]), ("w", lambda x, y: math.modf(y + x)[1]),
    ("frexp(y * 10, w)", lambda x, y: math.frexp(y * 10)[0]), ("w", lambda x, y: math.frexp(y * 10)[1]),
]


@pytest.mark.parametrize("t", ["float", "half", "double"])
def test_transcendental_intrinsics(t):
    """Relative error within 1e-3 (half: 4e-3): D3D's bounds are a few ulps for exp/log and absolute for sin/cos."""
    body = []
    for j, (e, _f) in enumerate(TRANSCENDENTAL):
        if e == "w":
            continue
        uses_w = ", w)" in e
        slot = f"i * {len(TRANSCENDENTAL)} + {j}"
        body.append(f"    {{ {t} w = 0; Out[{slot}] = (float)({e});"
                    + (f" Out[{slot} + 1] = (float)w;" if uses_w else "") + " }")
    src = (f"StructuredBuffer<{t}> X : register(t0);\nStructuredBuffer<{t}> Y : register(t1);\n"
           "RWStructuredBuffer<float> Out : register(u2);\n"
           f"[numthreads(4, 1, 1)] void main(uint i : SV_DispatchThreadID) {{\n    {t} x = X[i], y = Y[i];\n"
           + "\n".join(body) + "\n}\n")
    code = TYPES[t][0]
    profile, opts = profile_of(t)
    opts["dxil_tol"] = 1e-3 if t != "half" else 4e-3
    skip = {"dxil_skip": "dxop-overloads"} if opts.pop("no_interpreter", False) or t == "half" else {}
    got = R.cs(src, {"X": R.storage(R.pack(code, TX)), "Y": R.storage(R.pack(code, TY)),
                     "Out": R.storage(R.sentinel(4 * len(TRANSCENDENTAL)))}, profile=profile, **skip, **opts)
    out = R.unpack("f", got["Out"])
    tol = 4e-3 if t == "half" else 1e-3
    bad = []
    for i in range(4):
        for j, (e, fn) in enumerate(TRANSCENDENTAL):
            w, g = fn(TX[i], TY[i]), out[i * len(TRANSCENDENTAL) + j]
            if not math.isclose(g, w, rel_tol=tol, abs_tol=tol):
                bad.append(f"{e} at x={TX[i]}, y={TY[i]}: got {g!r}, want {w!r}")
    assert not bad, f"{t}: {len(bad)} wrong:\n" + "\n".join(bad)


# ---------------------------------------------------------------- compound assignment, ++/-- (wrap-around per width)

COMPOUND = [("+=", "b"), ("*=", "c"), ("-=", "a"), ("<<=", "c"), ("^=", "b"), (">>=", "c"), ("%=", "b"), ("++", ""),
            ("/=", "c"), ("|=", "a"), ("--", ""), ("&=", "b")]


def _step(t: str, op: str, x: int, v: int) -> int:
    r = {"+=": lambda: x + v, "*=": lambda: x * v, "-=": lambda: x - v, "<<=": lambda: x << (v & (bits(t) - 1)),
         "^=": lambda: x ^ v, ">>=": lambda: _shr(t, x, v), "%=": lambda: _rem(t, x, v), "++": lambda: x + 1,
         "/=": lambda: _div(t, x, v), "|=": lambda: x | v, "--": lambda: x - 1, "&=": lambda: x & v}[op]()
    return wrap(t, r)


@pytest.mark.parametrize("t", [t for t in TYPES if kind(t) != "f"])
def test_compound_assignment_wraps(t):
    """x = a, then every compound assignment in turn; each intermediate x stored (a 16-bit x wraps at 16 bits)."""
    body = [f"    {t} x = A[i], a = A[i], b = B[i], c = C[i];"]
    for j, (op, v) in enumerate(COMPOUND):
        body.append(f"    {'x' + op if op in ('++', '--') else f'x {op} {v}'}; Out[i * {len(COMPOUND)} + {j}] = x;")
    src = (f"StructuredBuffer<{t}> A : register(t0);\nStructuredBuffer<{t}> B : register(t1);\n"
           f"StructuredBuffer<{t}> C : register(t2);\nRWStructuredBuffer<{t}> Out : register(u3);\n"
           "[numthreads(12, 1, 1)] void main(uint i : SV_DispatchThreadID) {\n" + "\n".join(body) + "\n}\n")
    a_in, b_in, c_in = inputs(t)
    profile, opts = profile_of(t)
    got = run_buffers(src, {"A": (t, a_in), "B": (t, b_in), "C": (t, c_in)}, {"Out": (t, 12 * len(COMPOUND))},
                      profile, **opts)["Out"]
    bad = []
    for i in range(12):
        x, vals = a_in[i], {"a": a_in[i], "b": b_in[i], "c": c_in[i], "": 0}
        for j, (op, v) in enumerate(COMPOUND):
            x = _step(t, op, x, vals[v])
            if got[i * len(COMPOUND) + j] != x:
                bad.append(f"x {op} {v} in thread {i}: got {got[i * len(COMPOUND) + j]}, want {x}")
                break
    assert not bad, f"{t}: " + "\n".join(bad)


# ---------------------------------------------------------------- bool vectors, any/all of numeric vectors, bit casts

def _h(x: float) -> int:
    return struct.unpack("<H", struct.pack("<e", x))[0]


def _fbits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


BOOLS_AND_BITS = [  # (expression, Python value from f = F[i] (float3), n = N[i] (int3)); results are uint
    ("any(n)", lambda f, n: int(any(n))), ("all(n)", lambda f, n: int(all(n))),
    ("any(f)", lambda f, n: int(any(x != 0 for x in f))), ("all(f)", lambda f, n: int(all(x != 0 for x in f))),
    ("dot((uint3)and(f < 1, n > 0), uint3(1, 2, 4))",
     lambda f, n: sum(1 << k for k in range(3) if f[k] < 1 and n[k] > 0)),
    ("dot((uint3)or(f < 1, n > 0), uint3(1, 2, 4))", lambda f, n: sum(1 << k for k in range(3) if f[k] < 1 or n[k] > 0)),
    ("dot((uint3)!(n > 0), uint3(1, 2, 4))", lambda f, n: sum(1 << k for k in range(3) if not n[k] > 0)),
    ("dot((uint3)((f < 1) == (n > 0)), uint3(1, 2, 4))",
     lambda f, n: sum(1 << k for k in range(3) if (f[k] < 1) == (n[k] > 0))),
    ("(uint)dot((int3)(f < 1) + (int3)(n > 0), int3(1, 10, 100))",
     lambda f, n: sum((int(f[k] < 1) + int(n[k] > 0)) * 10 ** k for k in range(3))),
    ("select(n > 0, (int3)f, n).x + 1000", lambda f, n: (int(f[0]) if n[0] > 0 else n[0]) + 1000),
    ("asuint(f).y", lambda f, n: _fbits(f[1])), ("asuint(asfloat(asuint(f) ^ 0x80000000u)).z",
                                                   lambda f, n: _fbits(f[2]) ^ 0x80000000),
    ("asuint(-f.x)", lambda f, n: _fbits(-f[0])), ("asuint(asint(f.x) - n.y)", lambda f, n: (_fbits(f[0]) - n[1]) & 0xFFFFFFFF),
    ("f32tof16(f.y)", lambda f, n: _h(f[1])), ("asuint(f16tof32(f32tof16(f.z)))",
                                               lambda f, n: _fbits(struct.unpack("<e", struct.pack("<e", f[2]))[0])),
    ("asuint((float)asdouble(asuint(f.x), 0x40000000u))",
     lambda f, n: _fbits(struct.unpack("<d", struct.pack("<II", _fbits(f[0]), 0x40000000))[0])),
]
BF = [(1.5, -0.0, 2.0), (0.25, 3.0, -0.5), (-2.0, 0.0, 0.0), (1.0, 1.0, 65504.0)]
BN = [(0, 0, -1), (3, 5, 7), (-4, 0, 2), (1, 1, 1)]


def test_bool_vectors_any_all_and_bit_casts():
    body = [f"    Out[i * {len(BOOLS_AND_BITS)} + {j}] = {e};" for j, (e, _f) in enumerate(BOOLS_AND_BITS)]
    src = ("StructuredBuffer<float> F : register(t0);\nStructuredBuffer<int> N : register(t1);\n"
           "RWStructuredBuffer<uint> Out : register(u2);\n[numthreads(4, 1, 1)] void main(uint i : SV_DispatchThreadID) {\n"
           "    float3 f = float3(F[i * 3], F[i * 3 + 1], F[i * 3 + 2]);\n"
           "    int3 n = int3(N[i * 3], N[i * 3 + 1], N[i * 3 + 2]);\n" + "\n".join(body) + "\n}\n")
    got = R.cs(src, {"F": R.storage(R.pack("f", [x for v in BF for x in v])),
                     "N": R.storage(R.pack("i", [x for v in BN for x in v])),
                     "Out": R.storage(R.sentinel(4 * len(BOOLS_AND_BITS)))})
    out = R.unpack("I", got["Out"])
    bad = [f"{e} at {i}: got {out[i * len(BOOLS_AND_BITS) + j]:#x}, want {fn(BF[i], BN[i]) & 0xFFFFFFFF:#x}"
           for i in range(4) for j, (e, fn) in enumerate(BOOLS_AND_BITS)
           if out[i * len(BOOLS_AND_BITS) + j] != fn(BF[i], BN[i]) & 0xFFFFFFFF]
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------- mul / transpose / determinant per element type

def _mul_expected(t: str, a: list) -> list:
    m = [a[0:3], a[3:6]]
    n = [[a[5], a[4]], [a[3], a[2]], [a[1], a[0]]]
    v, u = [a[1], a[2], a[3]], [a[4], a[0]]
    r = [sum(m[i][k] * v[k] for k in range(3)) for i in range(2)]
    s = [sum(u[k] * m[k][j] for k in range(2)) for j in range(3)]
    p = [[sum(m[i][k] * n[k][j] for k in range(3)) for j in range(2)] for i in range(2)]
    det = p[0][0] * p[1][1] - p[0][1] * p[1][0]      # determinant is float_like<>: computed in float, converted back
    return [*(to_type(t, x) for x in (r[0], r[1], s[0], s[2], p[0][0], p[1][1], sum(x * x for x in v), a[2] * m[1][2],
                                      m[1][2])), cast_value("float", t, float(det))]


@pytest.mark.parametrize("t", ["float", "half", "double", "int", "uint", "int16_t", "uint64_t"])
def test_mul_transpose_determinant(t):
    src = f"""StructuredBuffer<{t}> A : register(t0);
RWStructuredBuffer<{t}> Out : register(u1);
[numthreads(1, 1, 1)] void main() {{
    {t}2x3 m = {t}2x3(A[0], A[1], A[2], A[3], A[4], A[5]);
    {t}3x2 n = {t}3x2(A[5], A[4], A[3], A[2], A[1], A[0]);
    {t}3 v = {t}3(A[1], A[2], A[3]);
    {t}2 u = {t}2(A[4], A[0]);
    {t}2 r = mul(m, v); {t}3 s = mul(u, m); {t}2x2 p = mul(m, n);
    Out[0] = r.x; Out[1] = r.y; Out[2] = s.x; Out[3] = s.z; Out[4] = p._11; Out[5] = p._22; Out[6] = mul(v, v);
    Out[7] = mul(A[2], m)._23; Out[8] = transpose(m)._32; Out[9] = ({t})determinant(p);
}}
"""
    a = [to_type(t, x) for x in ([1, 2, 3, 4, 1, 2] if kind(t) == "u" else [1, -2, 3, 4, -1, 2])]
    profile, opts = profile_of(t)
    opts.pop("dxil_tol", None)
    got = run_buffers(src, {"A": (t, a)}, {"Out": (t, 10)}, profile, **opts)["Out"]
    assert got == _mul_expected(t, a)


# ---------------------------------------------------------------- matrices: modf/frexp executed, the bit intrinsics taken

@pytest.mark.parametrize("t", ["float", "half", "double"])
def test_modf_frexp_on_matrices(t):
    """modf/frexp of a matrix (float_like<> takes any shape) per element: the SPIR-V build used ModfStruct/FrexpStruct
    on the whole matrix and failed spirv-val."""
    src = (f"StructuredBuffer<{t}> A : register(t0);\nRWStructuredBuffer<float> Out : register(u1);\n"
           f"[numthreads(1, 1, 1)] void main() {{\n    {t}2x2 m = {t}2x2(A[0], A[1], A[2], A[3]), w, e;\n"
           f"    {t}2x2 f = modf(m, w); {t}2x2 g = frexp(m, e);\n"
           "    for (uint k = 0; k < 4; k++) {\n"
           "        Out[k] = f[k / 2][k % 2]; Out[4 + k] = w[k / 2][k % 2];\n"
           "        Out[8 + k] = g[k / 2][k % 2]; Out[12 + k] = e[k / 2][k % 2];\n    }\n}\n")
    a = [2.75, -1.5, 40.25, -0.375]
    profile, opts = profile_of(t)
    opts.pop("dxil_tol", None)
    skip = {"dxil_skip": "dxop-overloads"} if opts.pop("no_interpreter", False) or t == "half" else {}
    got = R.cs(src, {"A": R.storage(R.pack(TYPES[t][0], a)), "Out": R.storage(R.sentinel(16))},
               profile=profile, **skip, **opts)
    want = ([math.modf(x)[0] for x in a] + [math.modf(x)[1] for x in a] + [math.frexp(x)[0] for x in a]
            + [float(math.frexp(x)[1]) for x in a])
    assert R.unpack("f", got["Out"]) == want


@pytest.mark.parametrize("call", ["countbits(m)", "firstbitlow(m)", "firstbithigh(m)", "reversebits(m)",
                                  "f16tof32(m)", "f32tof16((float2x2)m)"])
def test_bit_intrinsics_take_matrices(call):
    """DXC's table declares these on any layout (`any_int<>`, `uint<>`, `float<>`): a matrix is taken, row by row
    (it was refused here; test_lang_intrinsic_sweep11 executes such calls), and the SPIR-V validates."""
    src = ("RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(1, 1, 1)] void main() {\n"
           f"    uint2x2 m = Out[0];\n    Out[1] = (uint)({call})._11;\n}}\n")
    for target in ("spirv", "dxil"):
        res = R.compile_hlsl(src, target=target)
        assert res.ok, (target, R.errors(res))
        if target == "spirv":
            tools.spirv_val(res.binary, "vulkan1.1")


def test_relational_operators_on_bools():
    """bool < bool (and <=, >, >=) compares the ints 0 and 1, for scalars, vectors and matrices (both backends
    refused or emitted an unsigned compare of bools that dxil-spirv made invalid SPIR-V)."""
    src = """StructuredBuffer<uint> A : register(t0);
RWStructuredBuffer<uint> Out : register(u1);
[numthreads(4, 1, 1)] void main(uint i : SV_DispatchThreadID) {
    bool a = A[i] & 1, b = A[i] & 2;
    bool2 v = bool2(a, b), w = bool2(b, a);
    bool2x2 m = bool2x2(a, b, b, a), n = bool2x2(b, b, a, a);
    Out[i * 4 + 0] = (a < b) + 2 * (a <= b) + 4 * (a > b) + 8 * (a >= b);
    Out[i * 4 + 1] = dot((uint2)(v < w), uint2(1, 2)) + 4 * dot((uint2)(v >= w), uint2(1, 2));
    bool2x2 lt = m < n, ge = m >= n;
    Out[i * 4 + 2] = lt._11 + 2 * lt._12 + 4 * lt._21 + 8 * lt._22;
    Out[i * 4 + 3] = ge._11 + 2 * ge._12 + 4 * ge._21 + 8 * ge._22;
}
"""
    got = R.unpack("I", R.cs(src, {"A": R.storage(R.pack("I", [0, 1, 2, 3])), "Out": R.storage(R.sentinel(16))})["Out"])
    want = []
    for x in range(4):
        a, b = x & 1, (x >> 1) & 1
        m, n = (a, b, b, a), (b, b, a, a)
        want += [(a < b) + 2 * (a <= b) + 4 * (a > b) + 8 * (a >= b),
                 (a < b) + 2 * (b < a) + 4 * ((a >= b) + 2 * (b >= a)),
                 sum((p < q) << k for k, (p, q) in enumerate(zip(m, n))),
                 sum((p >= q) << k for k, (p, q) in enumerate(zip(m, n)))]
    assert got == want
