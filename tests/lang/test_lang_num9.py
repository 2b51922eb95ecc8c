"""Issue 20, 16-bit and 64-bit types: what tests/lang/test_lang_types8.py (intrinsic x type sweep on run-time
values) does not reach, executed.

Every shader runs on lavapipe at -O3 and -O0, and its DXIL twin on the interpreter and through dxil-spirv
(res_util).  Each operator and conversion is written twice, on values read from a buffer (run time) and on
literals (folded by the front end); both must give the value computed here in Python with the struct module:
16-bit integer wrap, shift amounts masked to 4 (16-bit) and 6 (64-bit) bits, D3D's division rules at 16 and 64
bits, float -> integer saturation at every width (docs/CONFORMANCE.md), float constants rounded to their width,
mixed 16/32/64-bit promotion, 16-bit storage (structured, raw, groupshared, cbuffer packing, signatures),
min-precision types with and without -enable-16bit-types, 64-bit atomics, and the located refusals DXC has
(16-bit atomics, 32/16-bit-only reinterpretations, double `%`).  Half results are compared as their
16 bits (`asuint16`), so no narrowing conversion is widened back (lavapipe folds such round trips in
dxil-spirv's output: lang_util.LAVAPIPE_ROUND_TRIP).
"""

from __future__ import annotations

import math
import struct

import pytest
import res_util as R
from lang_util import compile_cs, run_backend

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

INF, NAN = math.inf, math.nan


# ---------------------------------------------------------------- Python models (no code under test)

def f16(x: float) -> float:
    """x rounded to nearest-even binary16; infinity from 65520 up (IEEE overflow)."""
    if math.isnan(x) or math.isinf(x):
        return x
    try:
        return struct.unpack("<e", struct.pack("<e", x))[0]
    except OverflowError:
        return math.copysign(INF, x)


def f32(x: float) -> float:
    if math.isnan(x) or math.isinf(x):
        return x
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(INF, x)


def bits16(x: float) -> int:
    return struct.unpack("<H", struct.pack("<e", f16(x)))[0]


def bits32(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", f32(x)))[0]


def bits64(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def f32_of_int(v: int) -> int:
    """Bits of the binary32 nearest to the integer v (ties to the even significand), by comparing the exact
    distances of the float next to float(v) and its two neighbours (float(v) alone may round twice)."""
    near = bits32(float(v))
    cands = [c for c in (near - 1, near, near + 1) if c & 0x7FFFFFFF < 0x7F800000]
    return min(cands, key=lambda c: (abs(int(struct.unpack("<f", struct.pack("<I", c))[0]) - v), c & 1))


def wrap(x: int, width: int, signed: bool) -> int:
    x &= (1 << width) - 1
    return x - (1 << width) if signed and x >> (width - 1) else x


def ftoi(x: float, width: int, signed: bool) -> int:
    """D3D ftoi/ftou at any width: NaN -> 0, toward zero, saturated to the type's range."""
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
    if math.isnan(x):
        return 0
    if x == INF or x >= hi:
        return hi
    if x == -INF or x <= lo:
        return lo
    return int(x)


def div(a: int, b: int, width: int, signed: bool) -> int:
    """D3D: udiv by 0 is all ones; signed division is udiv of the magnitudes with the sign fixed."""
    if not signed:
        return (1 << width) - 1 if b == 0 else a // b
    q = (1 << width) - 1 if b == 0 else abs(a) // abs(b)
    return wrap(-q if (a < 0) != (b < 0) else q, width, True)


def mod(a: int, b: int, width: int, signed: bool) -> int:
    if not signed:
        return (1 << width) - 1 if b == 0 else a % b
    r = (1 << width) - 1 if b == 0 else abs(a) % abs(b)
    return wrap(-r if a < 0 else r, width, True)


# ---------------------------------------------------------------- running a table of slots

def run(src: str, outs: dict, ins: dict | None = None, profile: str = "cs_6_2", e16: bool = True,
        **kw) -> dict[str, list]:
    """outs {name: (struct code, count)}, ins {name: (struct code, values)}; decoded final contents."""
    specs: dict[str, object] = {n: R.storage(R.pack(c, v)) for n, (c, v) in (ins or {}).items()}
    for n, (c, count) in outs.items():
        specs[n] = R.storage(R.sentinel((count * struct.calcsize(c) + 3) // 4))
    opts = {"enable_16bit_types": True} if e16 else {}
    got = R.cs(src, specs, profile=profile, **opts, **kw)
    return {n: R.unpack(c, got[n])[:count] for n, (c, count) in outs.items()}


def table(rows: list[tuple[str, str, int]], ins: dict, decls: str = "", out: str = "uint", e16: bool = True,
          profile: str = "cs_6_2", setup: str = "", **kw) -> list[str]:
    """One shader: Out[i] = rows[i]'s expression; the mismatching rows ('name: got x, want y').
    kw: res_util.run_cs options (dxil_skip='dxop-overloads' where the interpreter lacks a 16/64-bit dx.op)."""
    code = {"uint": "I", "uint64_t": "Q"}[out]
    lines = [f"RWStructuredBuffer<{out}> Out : register(u0);"]
    for i, (n, (c, _v)) in enumerate(ins.items()):
        t = {"i": "int", "I": "uint", "f": "float", "d": "double", "q": "int64_t", "Q": "uint64_t"}[c]
        lines.append(f"StructuredBuffer<{t}> {n} : register(t{i + 1});")
    body = "\n".join(f"    Out[{i}] = {e}; // {name}" for i, (name, e, _w) in enumerate(rows))
    src = "\n".join(lines) + "\n" + decls + "\n[numthreads(1, 1, 1)]\nvoid main() {\n" + setup + "\n" + body + "\n}\n"
    got = run(src, {"Out": (code, len(rows))}, ins, profile=profile, e16=e16, **kw)["Out"]
    mask = (1 << (8 * struct.calcsize(code))) - 1
    return [f"{name}: got {g:#x}, want {w & mask:#x}" for (name, _e, w), g in zip(rows, got) if g != w & mask]


def both(name: str, runtime: str, folded: str, want: int) -> list[tuple[str, str, int]]:
    return [(name, runtime, want), (name + "_folded", folded, want)]


def lit(x: float) -> str:
    """An HLSL literal for x (64-bit 'L' so the folded value starts exact)."""
    return repr(float(x)) + "L"


# ---------------------------------------------------------------- float constants rounded to their width

# (value, via): the float value converted to half (through a float buffer) and back out as its 16 bits
HALF_VALUES = [0.3, 65519.0, 65520.0, -65519.0, 1000.7, 1.0 / 3.0, 2049.0, 2051.0, 70000.0, -1.0e6, 0.1]
FLOAT_FROM_DOUBLE = [1.0 + 1e-8, 3.4028235677973366e38, 3.4028235e38, -3.4028236e38, 0.1, 16777217.0]


def test_float_constants_round_to_their_width():
    """A folded `(half)0.3` held 0.3 (and `(half)65519.0` infinity) while the run-time conversion rounds to
    0.300048828125 and 65504: folded constants now round to their type's width (d3d_numerics.round_float)."""
    rows: list[tuple[str, str, int]] = []
    for i, x in enumerate(HALF_VALUES):
        rows += both(f"half_{x!r}", f"(uint)asuint16((half)F[{i}])", f"(uint)asuint16((half){lit(f32(x))})",
                     bits16(f32(x)))
    for i, x in enumerate(FLOAT_FROM_DOUBLE):
        rows += both(f"float_{x!r}", f"asuint((float)D[{i}])", f"asuint((float){lit(x)})", bits32(x))
    # arithmetic on rounded constants: each operation rounds to half
    h3 = f16(f16(0.3) * 3.0)
    rows += both("half_mul", "(uint)asuint16((half)F[0] * (half)3)", "(uint)asuint16((half)0.3 * (half)3)", bits16(h3))
    rows.append(("half_suffix_literal", "(uint)asuint16(0.3h * 3.0h)", bits16(h3)))
    rows.append(("half_static_const", "(uint)asuint16(K * 3.0h)", bits16(h3)))
    rows += both("half_sub", "(uint)asuint16((half)F[4] - (half)1000)", "(uint)asuint16((half)1000.7 - (half)1000)",
                 bits16(f16(f16(f32(1000.7)) - 1000.0)))
    rows += both("float_sub", "asuint((float)D[0] - 1.0f)", "asuint((float)(1.0L + 1e-8L) - 1.0f)",
                 bits32(f32(1.0 + 1e-8) - 1.0))
    # a float constant widened to double keeps the float's value, not the literal's (the run-time twin reads
    # the float from F: a double -> float -> double round trip would be folded away by lavapipe in dxil-spirv's
    # output, lang_util.LAVAPIPE_ROUND_TRIP)
    lo = bits64(float(f32(0.1)) * 10.0) & 0xFFFFFFFF
    rows += both("double_of_float_low_word", "LowWord((double)F[10] * 10.0L)",
                 "LowWord((double)KF * 10.0L)", lo)
    decls = ("static const half K = 0.3;\nstatic const float KF = 0.1;\n"
             "uint LowWord(double d) { uint lo, hi; asuint(d, lo, hi); return lo; }\n")
    bad = table(rows, {"F": ("f", [f32(x) for x in HALF_VALUES]), "D": ("d", FLOAT_FROM_DOUBLE)}, decls)
    assert not bad, "\n".join(bad)


def test_float_constants_without_16bit_types_stay_32_bit():
    """Without -enable-16bit-types `half` is `float` (DXC): `(half)0.3` and `0.3h` are binary32 values."""
    rows = [("half_cast", "asuint((half)0.3)", bits32(0.3)), ("half_suffix", "asuint(0.3h)", bits32(0.3)),
            ("half_runtime", "asuint((half)F[0] * (half)3)", bits32(f32(0.3) * 3.0)),
            ("min16float", "asuint((min16float)F[0] * (min16float)3)", bits32(f32(0.3) * 3.0)),
            ("sizes", "sizeof(half) + 10 * sizeof(min16float) + 100 * sizeof(min16int) + 1000 * sizeof(min16uint)",
             4444),
            ("min16uint_wide", "(uint)(min16uint)(F[1] * 2.0)", 140000),
            ("min16int_mul", "(uint)((min16int)F[1] * (min16int)1000)", 70000000)]
    bad = table(rows, {"F": ("f", [f32(0.3), 70000.0])}, e16=False, profile="cs_6_0")
    assert not bad, "\n".join(bad)


def test_min_precision_types_are_16_bit_with_the_flag():
    """With -enable-16bit-types DXC maps min16float/min16int/min16uint to half/int16_t/uint16_t
    ("enable 16-bit types and disable min precision types")."""
    rows = [("sizes", "sizeof(min16float) + 10 * sizeof(min16int) + 100 * sizeof(min16uint)", 222),
            ("min16float_rounds", "(uint)asuint16((min16float)F[0])", bits16(f32(0.3))),
            ("min16uint_wraps", "(uint)((min16uint)65535 + (min16uint)I[0])", 0),
            ("min16int_wraps", "(uint)(int)((min16int)32767 + (min16int)I[0])", -32768),
            ("min16uint_sat", "(uint)(min16uint)(F[1] * 2.0)", 65535)]
    bad = table(rows, {"F": ("f", [f32(0.3), 70000.0]), "I": ("i", [1])})
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------- 16-bit integer arithmetic

I16 = [32767, -32768, -7, 3, 0, -1, 17, 20, 1000]     # read at run time as int16_t(I[k])
U16 = [65535, 0, 7, 3, 0x8000, 17, 300]                 # as uint16_t(U[k])


def _i16_lit(v: int) -> str:
    return f"(int16_t){v}" if v != -32768 else "(int16_t)-32768"


def _int16_rows() -> list[tuple[str, str, int]]:
    rows: list[tuple[str, str, int]] = []
    ops = {"add": ("+", lambda a, b, w, s: a + b), "sub": ("-", lambda a, b, w, s: a - b),
           "mul": ("*", lambda a, b, w, s: a * b), "div": ("/", div), "mod": ("%", mod),
           "and": ("&", lambda a, b, w, s: a & b), "or": ("|", lambda a, b, w, s: a | b),
           "xor": ("^", lambda a, b, w, s: a ^ b)}
    spairs = [(0, 3), (1, 5), (1, 2), (2, 3), (8, 8), (0, 0), (2, 4), (1, 1)]
    for name, (op, fn) in ops.items():
        for a, b in spairs:
            x, y = I16[a], I16[b]
            want = wrap(fn(x, y, 16, True), 16, True)
            rt = f"(uint)(int)(int16_t)((int16_t)I[{a}] {op} (int16_t)I[{b}])"
            rows.append((f"s{name}_{a}_{b}", rt, want))
            if y != 0 or op not in "/%":
                rows.append((f"s{name}_{a}_{b}_folded", f"(uint)(int)(int16_t)({_i16_lit(x)} {op} {_i16_lit(y)})",
                             want))
        for a, b in [(0, 3), (0, 1), (4, 6), (2, 3), (4, 5)]:
            x, y = U16[a], U16[b]
            want = wrap(fn(x, y, 16, False), 16, False)
            rows.append((f"u{name}_{a}_{b}", f"(uint)(uint16_t)((uint16_t)U[{a}] {op} (uint16_t)U[{b}])", want))
            if y != 0 or op not in "/%":
                rows.append((f"u{name}_{a}_{b}_folded", f"(uint)(uint16_t)((uint16_t){x} {op} (uint16_t){y})", want))
    for amount_k in (3, 6, 7):        # 3, 17, 20: masked to 4 bits
        n = I16[amount_k] & 15
        rows += both(f"shl_{amount_k}", f"(uint)(int)(int16_t)((int16_t)I[3] << (int16_t)I[{amount_k}])",
                     f"(uint)(int)(int16_t)((int16_t)3 << (int16_t){I16[amount_k]})", wrap(3 << n, 16, True))
        rows += both(f"sshr_{amount_k}", f"(uint)(int)((int16_t)I[1] >> (int16_t)I[{amount_k}])",
                     f"(uint)(int)((int16_t)-32768 >> (int16_t){I16[amount_k]})", -32768 >> n)
        rows += both(f"ushr_{amount_k}", f"(uint)((uint16_t)U[4] >> (uint16_t)I[{amount_k}])",
                     f"(uint)((uint16_t)0x8000 >> (uint16_t){I16[amount_k]})", 0x8000 >> n)
    rows += both("neg_min", "(uint)(int)(int16_t)(-(int16_t)I[1])", "(uint)(int)(int16_t)(-(int16_t)-32768)", -32768)
    rows += both("not_u", "(uint)(uint16_t)(~(uint16_t)U[2])", "(uint)(uint16_t)(~(uint16_t)7)", 0xFFF8)
    rows += both("lt_signed", "(uint)((int16_t)I[2] < (int16_t)I[3])", "(uint)((int16_t)-7 < (int16_t)3)", 1)
    rows += both("lt_unsigned", "(uint)((uint16_t)I[2] < (uint16_t)I[3])", "(uint)((uint16_t)-7 < (uint16_t)3)", 0)
    rows += both("inc_wraps", "(uint)(uint16_t)((uint16_t)U[0] + (uint16_t)1)", "(uint)(uint16_t)((uint16_t)65535 + (uint16_t)1)",
                 0)
    return rows


def test_16_bit_integer_operators_wrap_and_follow_d3d():
    """int16_t/uint16_t arithmetic wraps at 16 bits, shift amounts are masked to 4 bits, division and remainder
    by zero and INT16_MIN / -1 follow D3D's rules at 16 bits; folded and run-time results agree."""
    bad = table(_int16_rows(), {"I": ("i", I16), "U": ("I", U16)})
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------- mixed-width promotion

def test_mixed_16_32_64_bit_promotion():
    """Usual arithmetic conversions across widths (DXC = C++ ranks: the wider type wins, unsigned wins at
    equal width, any float beats any integer): the result's size and value."""
    s, w = -2, 65535
    rows = [
        ("half_plus_float_size", "sizeof(h + f)", 4), ("int16_plus_int_size", "sizeof(s + I[0])", 4),
        ("uint16_plus_int16_size", "sizeof(w + s)", 2), ("uint16_plus_int16", "(uint)(w + s)", wrap(w + s, 16, False)),
        ("half_times_double_size", "sizeof(h * d)", 8), ("int16_plus_half_size", "sizeof(s + h)", 2),
        ("int16_plus_int64_size", "sizeof(s + L)", 8), ("int16_plus_int64", "(uint)(s + L)", wrap(s + s, 32, False)),
        ("int16_lt_uint16", "(uint)(s < w)", int(wrap(s, 16, False) < w)),
        ("int16_lt_uint", "(uint)(s < (uint)I[0])", int(wrap(s, 32, False) < 3)),
        ("int16_lt_int", "(uint)(s < I[0])", 1),
        ("uint16_times_uint", "w * 2u", w * 2),
        ("int16_times_int", "(uint)(s * I[1])", wrap(s * 100000, 32, False)),
        ("half_plus_float_value", "asuint(h + f)", bits32(3.0 + 100000.0)),
        ("int16_plus_half_value", "(uint)asuint16(s + h)", bits16(1.0)),
        ("uint64_plus_int16", "(uint)((L2 + s) >> 32)", ((5 << 32) + s) >> 32),
        ("suffix_sizes", "sizeof(1.5h) + 10 * sizeof(1.5L) + 100 * sizeof(5ll) + 1000 * sizeof(5ull)", 8882),
    ]
    setup = ("    half h = (half)I[0]; float f = (float)I[1]; int16_t s = (int16_t)I[2]; uint16_t w = (uint16_t)I[3];\n"
             "    double d = (double)I[0]; int64_t L = (int64_t)s; uint64_t L2 = (uint64_t)(uint)I[4] << 32;")
    bad = table(rows, {"I": ("i", [3, 100000, s, w, 5])}, setup=setup)
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------- conversions with every other type

def _conv16_rows() -> list[tuple[str, str, int]]:
    rows: list[tuple[str, str, int]] = []
    half_in = [1000.5, -1000.5, 65504.0, -65504.0, INF, -INF, -3.5, NAN]   # exact halves (F[0..7])
    for k, x in enumerate(half_in):
        folded = f"(half){lit(x)}" if math.isfinite(x) else None
        for t, width, signed in (("int16_t", 16, True), ("uint16_t", 16, False), ("int", 32, True),
                                 ("uint", 32, False)):
            want = wrap(ftoi(x, width, signed), 32, False)
            cast = f"(uint)(int)({t})" if signed else f"(uint)({t})"
            rows.append((f"half{k}_to_{t}", f"{cast}(half)F[{k}]", want))
            if folded:
                rows.append((f"half{k}_to_{t}_folded", f"{cast}{folded}", want))
        for t, signed in (("int64_t", True), ("uint64_t", False)):
            want = ftoi(x, 64, signed) >> 32 & 0xFFFFFFFF
            rows.append((f"half{k}_to_{t}_high", f"(uint)((uint64_t)({t})(half)F[{k}] >> 32)", want))
        if not math.isnan(x):
            rows.append((f"half{k}_to_double", f"HighWord((double)(half)F[{k}])", bits64(x) >> 32))
    float_in = [70000.0, -70000.0, 40000.5, -0.9, 1e10, -1e10]     # F[8..13]
    for k, x in enumerate(float_in, start=8):
        for t, signed in (("int16_t", True), ("uint16_t", False)):
            want = wrap(ftoi(f32(x), 16, signed), 32, False)
            cast = f"(uint)(int)({t})" if signed else f"(uint)({t})"
            rows += both(f"float{k}_to_{t}", f"{cast}F[{k}]", f"{cast}{lit(f32(x))}", want)
    for k, x in enumerate([-40000.0, 1e300, 65535.9, NAN]):          # D[0..3]
        for t, signed in (("int16_t", True), ("uint16_t", False)):
            want = wrap(ftoi(x, 16, signed), 32, False)
            cast = f"(uint)(int)({t})" if signed else f"(uint)({t})"
            rows.append((f"double{k}_to_{t}", f"{cast}D[{k}]", want))
            if not math.isnan(x):
                rows.append((f"double{k}_to_{t}_folded", f"{cast}{lit(x)}", want))
    # integer <-> 16-bit integer: wrap, sign or zero extension
    ints = [70000, -70000, 65535, -2, 0x12345]                       # I[0..4]
    for k, v in enumerate(ints):
        for t, signed in (("int16_t", True), ("uint16_t", False)):
            want = wrap(wrap(v, 16, signed), 32, False)
            cast = f"(uint)(int)({t})" if signed else f"(uint)({t})"
            rows += both(f"int{k}_to_{t}", f"{cast}I[{k}]", f"{cast}{v}", want)
        rows += both(f"int16_{k}_to_uint64_high", f"(uint)((uint64_t)(int16_t)I[{k}] >> 32)",
                     f"(uint)((uint64_t)(int16_t){v} >> 32)", wrap(wrap(v, 16, True), 64, False) >> 32)
        rows += both(f"uint16_{k}_to_int64", f"(uint)(int64_t)(uint16_t)I[{k}]", f"(uint)(int64_t)(uint16_t){v}",
                     wrap(v, 16, False))
        rows += both(f"int64_{k}_to_uint16", f"(uint)(uint16_t)((int64_t)I[{k}] << 20 | 0x1234)",
                     f"(uint)(uint16_t)((int64_t){v} << 20 | 0x1234)", wrap((v << 20) | 0x1234, 16, False))
        # integer -> half rounds to nearest even, overflows to infinity
        rows += both(f"int{k}_to_half", f"(uint)asuint16((half)I[{k}])", f"(uint)asuint16((half){v})", bits16(float(v)))
    for k, v in enumerate([2049, 2051, 65519, -32768]):             # I[5..8]
        rows += both(f"int{k + 5}_to_half", f"(uint)asuint16((half)I[{k + 5}])", f"(uint)asuint16((half){v})",
                     bits16(float(v)))
    rows += both("uint64_to_half", "(uint)asuint16((half)((uint64_t)(uint)I[2] << 40))",
                 "(uint)asuint16((half)(65535ull << 40))", bits16(INF))
    # bool <-> 16-bit
    rows += both("half_to_bool", "(uint)(bool)((half)F[0] * (half)0.0001)", "(uint)(bool)(half)0.0001", 1)
    rows += both("bool_to_half", "(uint)asuint16((half)(I[2] > 0))", "(uint)asuint16((half)true)", bits16(1.0))
    rows += both("uint16_wrap_to_bool", "(uint)(bool)(uint16_t)(I[2] + 1)", "(uint)(bool)(uint16_t)65536", 0)
    return rows


def test_16_bit_conversions_with_every_other_type():
    """half/int16_t/uint16_t to and from float, double, int, uint, int64_t, uint64_t and bool: float -> integer
    saturates at the target width and maps NaN to 0 (D3D's ftoi/ftou extended to 16 and 64 bits, see
    docs/CONFORMANCE.md), integer -> integer wraps or extends, integer -> half rounds to nearest even."""
    floats = [1000.5, -1000.5, 65504.0, -65504.0, INF, -INF, -3.5, NAN, 70000.0, -70000.0, 40000.5, -0.9, 1e10, -1e10]
    ins = {"F": ("f", floats), "D": ("d", [-40000.0, 1e300, 65535.9, NAN]),
           "I": ("i", [70000, -70000, 65535, -2, 0x12345, 2049, 2051, 65519, -32768])}
    decls = "uint HighWord(double d) { uint lo, hi; asuint(d, lo, hi); return hi; }\n"
    bad = table(_conv16_rows(), ins, decls)
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------- 64-bit integers and doubles

I64_MIN, I64_MAX, U64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1
Q = [I64_MIN, -1, 0, 5, I64_MAX, 1 << 40, 3]                 # Q[k] read at run time


W_IN = [I64_MIN, (1 << 53) + 1, U64_MAX, (1 << 63) + 1025, 0x1000001000000001, -0x1000001000000001]


def _q_lit(v: int) -> str:
    return f"(int64_t){v & U64_MAX:#x}ull"


def _int64_rows() -> list[tuple[str, str, int]]:
    rows: list[tuple[str, str, int]] = []
    for a, b in [(0, 1), (0, 2), (3, 2), (1, 2), (4, 6), (0, 6), (5, 1)]:
        x, y = Q[a], Q[b]
        for name, op, fn in (("div", "/", div), ("mod", "%", mod)):
            want = fn(x, y, 64, True)
            rows.append((f"s{name}_{a}_{b}", f"(uint64_t)(Q[{a}] {op} Q[{b}])", want))
            if y:
                rows.append((f"s{name}_{a}_{b}_folded", f"(uint64_t)({_q_lit(x)} {op} {_q_lit(y)})", want))
            ux, uy = x & U64_MAX, y & U64_MAX
            uwant = fn(ux, uy, 64, False)
            rows.append((f"u{name}_{a}_{b}", f"(uint64_t)Q[{a}] {op} (uint64_t)Q[{b}]", uwant))
            if uy:
                rows.append((f"u{name}_{a}_{b}_folded", f"{ux:#x}ull {op} {uy:#x}ull", uwant))
    for amount in (3, 64, 65, 127):
        n = amount & 63
        rows += both(f"shl_{amount}", f"(uint64_t)Q[3] << ((uint)Q[6] * 0 + {amount}u + (uint)Q[2])",
                     f"5ull << {amount}", (5 << n) & U64_MAX)
        rows += both(f"sshr_{amount}", f"(uint64_t)(Q[0] >> ({amount}u + (uint)Q[2]))",
                     f"(uint64_t)({_q_lit(I64_MIN)} >> {amount})", (I64_MIN >> n) & U64_MAX)
        rows += both(f"ushr_{amount}", f"(uint64_t)Q[0] >> ({amount}u + (uint)Q[2])",
                     f"0x8000000000000000ull >> {amount}", (1 << 63) >> n)
    rows += both("mul_wraps", "(uint64_t)(Q[4] * Q[6])", f"(uint64_t)({_q_lit(I64_MAX)} * 3ll)", (I64_MAX * 3) & U64_MAX)
    rows += both("neg_min", "(uint64_t)(-Q[0])", f"(uint64_t)(-{_q_lit(I64_MIN)})", 1 << 63)
    rows += both("lt_signed", "(uint64_t)(Q[0] < Q[3])", f"(uint64_t)({_q_lit(I64_MIN)} < 5ll)", 1)
    rows += both("lt_unsigned", "(uint64_t)((uint64_t)Q[0] < (uint64_t)Q[3])", "(uint64_t)(0x8000000000000000ull < 5ull)", 0)
    rows += both("high_bits_compare", "(uint64_t)(Q[5] > (int64_t)0xFFFFFFFF)", "(uint64_t)((1ll << 40) > 0xFFFFFFFFll)", 1)
    # double <-> 64-bit integers: saturating, NaN -> 0; exact or rounded to nearest even the other way
    dv = [1e30, -1e30, -5.0, 2.0 ** 64, 2.0 ** 63, -9.2e18, 123456789012.75, NAN]      # D[k]
    for k, x in enumerate(dv):
        for t, signed in (("int64_t", True), ("uint64_t", False)):
            want = ftoi(x, 64, signed) & U64_MAX
            rows.append((f"double{k}_to_{t}", f"(uint64_t)({t})D[{k}]", want))
            if not math.isnan(x):
                rows.append((f"double{k}_to_{t}_folded", f"(uint64_t)({t}){lit(x)}", want))
    # 0x1000001000000001 to float: one rounding gives 2^60 + 2^37; rounding to double first (2^60 + 2^36, a tie)
    # and then to float gave 2^60 when folded
    for k, v in enumerate(W_IN):
        rows += both(f"uint64_{k}_to_double", f"Bits((double)(uint64_t)W[{k}])",
                     f"Bits((double){v & U64_MAX:#x}ull)", bits64(float(v & U64_MAX)))
        sv = wrap(v, 64, True)
        rows += both(f"int64_{k}_to_double", f"Bits((double)(int64_t)W[{k}])", f"Bits((double){_q_lit(sv)})",
                     bits64(float(sv)))
        rows += both(f"uint64_{k}_to_float", f"(uint64_t)asuint((float)(uint64_t)W[{k}])",
                     f"(uint64_t)asuint((float){v & U64_MAX:#x}ull)", f32_of_int(v & U64_MAX))
        rows += both(f"int64_{k}_to_float", f"(uint64_t)asuint((float)(int64_t)W[{k}])",
                     f"(uint64_t)asuint((float){_q_lit(sv)})", f32_of_int(sv))
    # asuint / asdouble split a double into its words, low first
    rows += both("asdouble", "Bits(asdouble((uint)Q[3] + 0x12345673u, 0x9abcdef0u))",
                 "Bits(asdouble(0x12345678u, 0x9abcdef0u))", 0x9ABCDEF012345678)
    rows.append(("asuint_split", "Bits(D[6])", bits64(123456789012.75)))
    return rows


def test_64_bit_integer_and_double_semantics():
    """int64_t/uint64_t: D3D division rules at 64 bits (INT64_MIN / -1, x / 0), shift amounts masked to 6 bits,
    signed and unsigned comparisons, double <-> 64-bit integer conversions saturating at 64 bits, asuint /
    asdouble splits; folded and run-time results agree."""
    ins = {"Q": ("q", Q), "D": ("d", [1e30, -1e30, -5.0, 2.0 ** 64, 2.0 ** 63, -9.2e18, 123456789012.75, NAN]),
           "W": ("Q", [v & U64_MAX for v in W_IN])}
    decls = "uint64_t Bits(double d) { uint lo, hi; asuint(d, lo, hi); return lo | ((uint64_t)hi << 32); }\n"
    bad = table(_int64_rows(), ins, decls, out="uint64_t")
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------- 16-bit storage

STORAGE16 = """
RWByteAddressBuffer B : register(u0);
RWStructuredBuffer<uint> Out : register(u1);
struct S { half a; uint16_t b; half3 c; int16_t d; float e; };
RWStructuredBuffer<S> SB : register(u2);
RWStructuredBuffer<uint16_t> W : register(u3);
groupshared uint16_t G[8];
groupshared half2 GV[4];
int16_t2 twice(int16_t2 v, out half h, inout uint16_t n) { h = (half)v.x * 0.5h; n += (uint16_t)1; return v * (int16_t)2; }
[numthreads(1, 1, 1)]
void main() {
    for (uint t = 0; t < 4; ++t) {                      // 16-bit elements: two in each 32-bit word
        W[t] = (uint16_t)(t * 0x1001 + 0xA000);
        G[t] = (uint16_t)(t * 0x1111); G[t + 4] = (uint16_t)((t + 4) * 0x1111);
        GV[t] = half2((half)t, (half)t * 0.5h);
    }
    half3 h3 = B.Load<half3>(2);                        // 2-byte aligned raw loads
    Out[0] = (uint)asuint16(h3.x) | (uint)asuint16(h3.y) << 16; Out[1] = asuint16(h3.z);
    B.Store<uint16_t2>(10, uint16_t2(0xBEEF, 0xCAFE));
    B.Store<half>(14, (half)2.5);
    uint16_t4 q = B.Load<uint16_t4>(0);
    Out[2] = q.x | ((uint)q.y << 16); Out[3] = q.z | ((uint)q.w << 16);
    Out[4] = G[7] + G[1];                               // promoted to int: no 16-bit wrap
    Out[5] = (uint)asuint16(GV[3].y + GV[2].x);
    half hh; uint16_t n = 65535;
    int16_t2 r = twice(int16_t2(20000, -3), hh, n);
    Out[6] = (uint)(int)r.x; Out[7] = (uint)(int)r.y; Out[8] = asuint16(hh); Out[9] = n;
    S s = SB[0];
    Out[10] = asuint16(s.a); Out[11] = s.b; Out[12] = asuint16(s.c.z); Out[13] = (uint)(int)s.d; Out[14] = asuint(s.e);
    s.b += (uint16_t)1; s.c.y = -s.c.y; SB[1] = s;
}
"""


def test_16_bit_storage_raw_structured_groupshared_and_signatures():
    """ByteAddressBuffer Load<half3>/Load<uint16_t4> at 2-byte addresses and Store<uint16_t2>/Store<half>; a
    struct of 16-bit members in a structured buffer (packed at 2-byte alignment: half3 at 4, float at 12);
    uint16_t elements sharing a word; groupshared 16-bit arrays; 16-bit out/inout parameters."""
    bab = struct.pack("<HHeee", 0x1234, 0, 1.0, -2.0, 0.5) + bytes(10)
    elem = struct.pack("<eHeeehf", 0.75, 7, 1.0, 2.0, 3.0, -9, 6.5)
    specs = {"B": R.storage(bab), "Out": R.storage(R.sentinel(15)), "SB": R.storage(elem * 2),
             "W": R.storage(R.sentinel(2))}
    got = R.cs(STORAGE16, specs, profile="cs_6_2", enable_16bit_types=True)
    out = R.unpack("I", got["Out"])
    half_bits = [bits16(x) for x in (0.0, 1.0, -2.0)]     # bytes 2..7: 0x0000, then the halves 1.0, -2.0
    want = [half_bits[0] | half_bits[1] << 16, half_bits[2], 0x1234, bits16(1.0) | bits16(-2.0) << 16,
            0x7777 + 0x1111, bits16(1.5 + 2.0),
            wrap(40000, 16, True) & 0xFFFFFFFF, wrap(-6, 32, False), bits16(10000.0), 0,
            bits16(0.75), 7, bits16(3.0), wrap(-9, 32, False), bits32(6.5)]
    assert out == want, [f"{i}: {g:#x} != {w:#x}" for i, (g, w) in enumerate(zip(out, want)) if g != w]
    assert got["B"] == bab[:10] + struct.pack("<HHe", 0xBEEF, 0xCAFE, 2.5) + bab[16:]
    assert got["SB"] == elem + struct.pack("<eHeeehf", 0.75, 8, 1.0, -2.0, 3.0, -9, 6.5)
    assert R.unpack("H", got["W"]) == [t * 0x1001 + 0xA000 for t in range(4)]


CBUFFER16 = """
cbuffer C : register(b0) {
    half a; half b; int16_t c; float d; half3 e; uint16_t f; half2 g; double h; uint16_t k; half arr[3];
    int64_t n; half z;
};
RWStructuredBuffer<uint> Out : register(u1);
uint Lo(double x) { uint lo, hi; asuint(x, lo, hi); return lo; }
uint Hi(double x) { uint lo, hi; asuint(x, lo, hi); return hi; }
[numthreads(1, 1, 1)]
void main() {
    Out[0] = asuint16(a); Out[1] = asuint16(b); Out[2] = (uint)(int)c; Out[3] = asuint(d);
    Out[4] = asuint16(e.x); Out[5] = asuint16(e.y); Out[6] = asuint16(e.z); Out[7] = f;
    Out[8] = asuint16(g.x); Out[9] = asuint16(g.y); Out[10] = Lo(h); Out[11] = Hi(h); Out[12] = k;
    Out[13] = asuint16(arr[0]); Out[14] = asuint16(arr[1]); Out[15] = asuint16(arr[2]);
    Out[16] = (uint)n; Out[17] = (uint)(n >> 32); Out[18] = asuint16(z);
}
"""
# member -> (D3D byte offset by HLSL's packing with -enable-16bit-types, struct code, value): 16-bit members packed
# at 2-byte alignment, nothing straddles a 16-byte row (half3 e moves to 16), an array element starts a row, 64-bit
# members at 8-byte alignment
CB16_D3D = {"a": (0, "e", 0.5), "b": (2, "e", -3.0), "c": (4, "h", -1234), "d": (8, "f", 6.25),
            "e": (16, "3e", (1.5, 2.5, -4.0)), "f": (22, "H", 0xFEDC), "g": (24, "2e", (7.0, 0.125)),
            "h": (32, "d", -2.75e10), "k": (40, "H", 0x1357), "arr": (48, "e", (10.0, 20.0, 30.0)),
            "n": (88, "q", -(1 << 40) - 5), "z": (96, "e", 65504.0)}


def _cb_bytes(offsets: dict[str, int], array_stride: int, spec: dict | None = None, size: int = 112) -> bytes:
    """The cbuffer's bytes with each member of `spec` (default CB16_D3D) at `offsets`."""
    buf = bytearray(size)
    for name, (_off, code, value) in (spec or CB16_D3D).items():
        off = offsets[name]
        if name == "arr":
            for i, v in enumerate(value):
                struct.pack_into("<e", buf, off + i * array_stride, v)
        else:
            struct.pack_into("<" + code, buf, off, *(value if isinstance(value, tuple) else (value,)))
    return bytes(buf)


@pytest.mark.parametrize("layout", ["default", "dx"])
def test_16_bit_cbuffer_packing_executed(layout):
    """cbuffer members of 16 and 64 bits: the D3D offsets (computed here from HLSL's packing rules) are the
    manifest's and what the DXIL reads; the SPIR-V build reads the same values at its Vulkan offsets (with
    -fvk-use-dx-layout the D3D ones)."""
    opts = {"vk_layout": "dx"} if layout == "dx" else {}
    res = R.build(CBUFFER16, profile="cs_6_2", enable_16bit_types=True, **opts)
    [block] = [r["block"] for r in res.manifest["resources"] if r["name"] == "C"]
    members = {m["name"]: m for m in block["members"]}
    assert {n: members[n]["hlsl"]["offset"] for n in CB16_D3D} == {n: v[0] for n, v in CB16_D3D.items()}
    assert block["hlsl_size"] == 98
    vk_offsets = {n: members[n]["vulkan"]["offset"] for n in CB16_D3D}
    if layout == "dx":
        assert vk_offsets == {n: v[0] for n, v in CB16_D3D.items()}
    vk = _cb_bytes(vk_offsets, 16)
    d3d = _cb_bytes({n: v[0] for n, v in CB16_D3D.items()}, 16)
    got = R.run_cs(res, {"C": R.uniform(vk), "Out": R.storage(R.sentinel(19))}, dxil_data={"C": d3d})
    v = {n: val for n, (_o, _c, val) in CB16_D3D.items()}
    h = bits64(v["h"])
    want = [bits16(v["a"]), bits16(v["b"]), wrap(v["c"], 32, False), bits32(v["d"]), *map(bits16, v["e"]), v["f"],
            *map(bits16, v["g"]), h & 0xFFFFFFFF, h >> 32, v["k"], *map(bits16, v["arr"]),
            v["n"] & 0xFFFFFFFF, (v["n"] >> 32) & 0xFFFFFFFF, bits16(v["z"])]
    assert R.unpack("I", got["Out"]) == want


# ---------------------------------------------------------------- 64-bit atomics

ATOMIC64_RAW = """
RWByteAddressBuffer B : register(u0);
RWStructuredBuffer<uint64_t> Out : register(u1);
[numthreads(1, 1, 1)]
void main() {
    uint64_t o0, o1, o2, o3, o4, o5;
    B.InterlockedAdd64(0, 0x100000001ull, o0);
    B.InterlockedMax64(8, 0xF000000000000000ull, o1);
    B.InterlockedMin64(16, 5ull, o2);
    B.InterlockedCompareExchange64(24, 7ull, 0x123456789ull, o3);
    B.InterlockedExchange64(32, 0xAAAAAAAABBBBBBBBull, o4);
    B.InterlockedOr64(40, 0x8000000000000000ull, o5);
    Out[0] = o0; Out[1] = o1; Out[2] = o2; Out[3] = o3; Out[4] = o4; Out[5] = o5;
}
"""
RAW_IN = [0xFFFFFFFF, 0x7000000000000000, 0xFFFFFFFF00000000, 7, 1, 0x22]


@pytest.mark.parametrize("backend", ["dxil", "dxil-vk"])
def test_64_bit_atomics_on_raw_buffers(backend):
    """SM 6.6 Interlocked*64 on a RWByteAddressBuffer (unsigned 64-bit arithmetic, carry across the words),
    on the DXIL interpreter and through dxil-spirv on lavapipe."""
    got = run_backend(backend, ATOMIC64_RAW, {"B": ("uint64_t", RAW_IN), "Out": ("uint64_t", 6)}, profile="cs_6_6")
    assert got["Out"] == RAW_IN
    assert got["B"] == [0x200000000, 0xF000000000000000, 5, 0x123456789, 0xAAAAAAAABBBBBBBB, 0x8000000000000022]


def test_64_bit_raw_buffer_atomics_are_a_located_spirv_error():
    """SPIR-V has no 64-bit view of a raw buffer's 32-bit words (DXC's SPIR-V refuses these too)."""
    res = compile_cs(ATOMIC64_RAW, "spirv", profile="cs_6_6")
    errs = [(d.loc.line, d.loc.col) for d in res.diagnostics if d.severity == "error"]
    assert not res.ok and errs[0] == (7, 7)
    assert "InterlockedAdd64" in res.diagnostics[0].message


ATOMIC64_TYPED = """
RWStructuredBuffer<uint64_t> S : register(u0);
RWStructuredBuffer<int64_t> SI : register(u1);
RWStructuredBuffer<uint64_t> Out : register(u2);
[numthreads(1, 1, 1)]
void main() {
    uint64_t o0, o1, o2, o3; int64_t o4, o5;
    InterlockedAdd(S[0], 0xFFFFFFFFull, o0);
    InterlockedOr(S[1], 0x8000000000000000ull, o1);
    InterlockedMin(S[2], 0x100000000ull, o2);           // unsigned: 0xFFFFFFFF stays
    InterlockedMax(S[3], 0x100000000ull, o3);
    InterlockedMax(SI[0], (int64_t)-5, o4);             // signed: max(-9, -5)
    InterlockedMin(SI[1], (int64_t)-1, o5);             // signed: min(3, -1)
    Out[0] = o0; Out[1] = o1; Out[2] = o2; Out[3] = o3; Out[4] = (uint64_t)o4; Out[5] = (uint64_t)o5;
}
"""


def test_64_bit_atomics_signedness_on_structured_buffers():
    """InterlockedMin/Max pick the signed or unsigned 64-bit operation by the element type; original values
    come back whole (both words)."""
    s_in, si_in = [1, 2, 0xFFFFFFFF, 0xFFFFFFFF], [-9, 3]
    specs = {"S": R.storage(R.pack("Q", s_in)), "SI": R.storage(R.pack("q", si_in)), "Out": R.storage(R.sentinel(12))}
    got = R.cs(ATOMIC64_TYPED, specs, profile="cs_6_6")
    assert R.unpack("Q", got["S"]) == [0x100000000, 0x8000000000000002, 0xFFFFFFFF, 0x100000000]
    assert R.unpack("q", got["SI"]) == [-5, -1]
    assert R.unpack("Q", got["Out"]) == s_in + [x & U64_MAX for x in si_in]


# ---------------------------------------------------------------- intrinsics, compound assignment, 64-bit shapes

def _fbh_signed(x: int, width: int) -> int:
    u = (~x if x < 0 else x) & ((1 << width) - 1)
    return u.bit_length() - 1 if u else -1


def test_16_and_64_bit_intrinsics_folded_and_at_run_time():
    """Bit, sign, min/max/clamp and float intrinsics on 16- and 64-bit operands: each on a value read at run time
    and on a literal (folded), against the value computed here."""
    u = [0xFFFF, 0xFFFFFFFF, 0xFFFF8000, 1, 2, 5, 3, 0x3C01, 1, bits32(0.3), 0x3C01]
    rows: list[tuple[str, str, int]] = []
    rows += both("countbits16", "countbits((uint16_t)U[0])", "countbits((uint16_t)0xFFFF)", 16)
    rows += both("firstbithigh16_neg1", "(uint)firstbithigh((int16_t)U[1])", "(uint)firstbithigh((int16_t)-1)",
                 _fbh_signed(-1, 16))
    rows += both("firstbithigh16_min", "(uint)firstbithigh((int16_t)U[2])", "(uint)firstbithigh((int16_t)-32768)",
                 _fbh_signed(-32768, 16))
    rows += both("reversebits16", "(uint)reversebits((uint16_t)U[3])", "(uint)reversebits((uint16_t)1)", 0x8000)
    rows += both("abs16_min", "(uint)(int)abs((int16_t)U[2])", "(uint)(int)abs((int16_t)-32768)", -32768)
    rows += both("countbits64", "countbits((uint64_t)U[1] | ((uint64_t)U[1] << 32))", "countbits(0xFFFFFFFFFFFFFFFFull)", 64)
    rows += both("firstbitlow64", "firstbitlow((uint64_t)U[3] << 40)", "firstbitlow(1ull << 40)", 40)
    rows += both("firstbithigh64", "firstbithigh((uint64_t)U[3] << 40)", "firstbithigh(1ull << 40)", 40)
    rows += both("firstbithigh64_signed", "(uint)firstbithigh((int64_t)(int)U[1] << 40)", "(uint)firstbithigh(-1ll << 40)",
                 _fbh_signed(-(1 << 40), 64))
    rows += both("reversebits64", "(uint)(reversebits((uint64_t)U[3]) >> 32)", "(uint)(reversebits(1ull) >> 32)", 1 << 31)
    rows += both("sign64", "(uint)sign((int64_t)(int)U[1])", "(uint)sign(-5ll)", -1)
    rows += both("sign16", "(uint)(int)sign((int16_t)U[1])", "(uint)(int)sign((int16_t)-5)", -1)
    rows += both("max64", "(uint)max((int64_t)(int)U[1], (int64_t)2)", "(uint)max(-1ll, 2ll)", 2)
    rows += both("min64_unsigned", "(uint)min((uint64_t)(int)U[1], 2ull)", "(uint)min((uint64_t)-1ll, 2ull)", 2)
    rows += both("clamp16", "(uint)(int)clamp((int16_t)U[2], (int16_t)-5, (int16_t)5)",
                 "(uint)(int)clamp((int16_t)-32768, (int16_t)-5, (int16_t)5)", -5)
    rows += both("sqrt_half", "(uint)asuint16(sqrt((half)U[4]))", "(uint)asuint16(sqrt((half)2))", bits16(math.sqrt(2)))
    rows += both("round_half_even", "(uint)asuint16(round((half)U[5] * 0.5h))", "(uint)asuint16(round((half)2.5))",
                 bits16(2.0))
    rows += both("frac_half", "(uint)asuint16(frac(-(half)U[6] * 0.25h))", "(uint)asuint16(frac((half)-0.75))",
                 bits16(0.25))
    rows += both("asfloat16", "(uint)asuint16(asfloat16((uint16_t)U[7]))", "(uint)asuint16(asfloat16((uint16_t)0x3C01))",
                 0x3C01)
    rows += both("asint16", "(uint)(int)asint16((half)U[8] * -1.0h)", "(uint)(int)asint16((half)-1.0)",
                 wrap(bits16(-1.0), 16, True))
    rows += both("f32tof16", "f32tof16(asfloat(U[9]))", "f32tof16(0.3f)", bits16(f32(0.3)))
    rows += both("f16tof32", "asuint(f16tof32(U[10]))", "asuint(f16tof32(0x3C01u))", bits32(1.0 + 2.0 ** -10))
    rows.append(("half_literal_overflow", "(uint)asuint16(1e5h)", bits16(INF)))
    rows += both("abs_half", "(uint)asuint16(abs(-(half)U[4]))", "(uint)asuint16(abs((half)-2.0))", bits16(2.0))
    rows += both("min_half", "(uint)asuint16(min((half)0.1, (half)U[4]))", "(uint)asuint16(min((half)0.1, (half)2.0))",
                 bits16(0.1))
    bad = table(rows, {"U": ("I", u)}, dxil_skip="dxop-overloads")
    assert not bad, "\n".join(bad)


COMPOUND16 = """
RWStructuredBuffer<uint> Out : register(u0);
StructuredBuffer<int> I : register(t1);
[numthreads(1, 1, 1)]
void main() {
    int16_t s = (int16_t)I[0]; s += 40000; Out[0] = (uint)(int)s;       // the literal becomes int16_t
    int16_t s2 = (int16_t)I[0]; s2 *= 3; Out[1] = (uint)(int)s2;
    uint16_t u = (uint16_t)I[1]; u -= 1; Out[2] = u;
    int16_t s3 = (int16_t)I[2]; s3 >>= 17; Out[3] = (uint)(int)s3;     // amount masked to 4 bits
    half h = (half)I[3]; h += 0.1; Out[4] = asuint16(h);               // 0.1 becomes half, the sum rounds
    uint16_t w = (uint16_t)I[4]; w++; Out[5] = w;
    int16_t s4 = (int16_t)I[0]; s4 += I[0]; Out[6] = (uint)(int)s4;    // int sum, narrowed on assignment
    uint16_t u2 = (uint16_t)I[1]; Out[7] = (uint)(-u2 - (uint16_t)1);  // stays uint16_t
    int64_t q = (int64_t)I[5]; q <<= 70; Out[8] = (uint)q;             // amount masked to 6 bits
    uint64_t uq = 0xFFFFFFFFull; uq += (uint)I[5]; Out[9] = (uint)(uq >> 32);
    half h2 = (half)I[6]; h2 /= 3.0; Out[10] = asuint16(h2);
    uint16_t u3 = (uint16_t)I[4]; u3 <<= 20; Out[11] = u3;
    int16_t t = I[0] > 0 ? (int16_t)I[2] : 7; Out[12] = (uint)(int)t;
    Out[13] = sizeof(I[0] > 0 ? (int16_t)1 : 2) + 10 * sizeof(I[0] > 0 ? (uint16_t)1 : (int16_t)2)
            + 100 * sizeof(I[0] > 0 ? (half)1 : 2.0);
    int16_t m = (int16_t)I[2]; m--; Out[14] = (uint)(int)m;
}
"""


def test_16_and_64_bit_compound_assignment():
    """Compound assignments and ++/-- keep the left side's width: the right side converts to it (a literal
    adopts it), the result wraps, shift amounts are masked; `?:` with a literal arm keeps the 16-bit type."""
    i = [30000, 0, -32768, 1, 65535, 3, 1]
    want = [wrap(30000 + wrap(40000, 16, True), 16, True), wrap(90000, 16, True), 65535, -32768 >> 1,
            bits16(1.0 + f16(0.1)), 0, wrap(60000, 16, True), 65535, 3 << 6, 1, bits16(1.0 / 3.0), 0xFFF0,
            -32768, 2 + 20 + 200, 32767]
    got = run(COMPOUND16, {"Out": ("I", len(want))}, {"I": ("i", i)})["Out"]
    assert got == [w & 0xFFFFFFFF for w in want]


SHAPES64 = """
RWStructuredBuffer<uint64_t> Out : register(u0);
StructuredBuffer<int64_t> Q : register(t1);
StructuredBuffer<double> D : register(t2);
uint64_t Bits(double d) { uint lo, hi; asuint(d, lo, hi); return lo | ((uint64_t)hi << 32); }
[numthreads(1, 1, 1)]
void main() {
    double2x2 m = double2x2(D[0], D[1], D[2], D[3]);
    double2 r = mul(m, double2(D[1], D[0]));
    Out[0] = Bits(r.x); Out[1] = Bits(r.y);
    int64_t3 v = int64_t3(Q[0], Q[1], Q[2]);
    v.zx = v.xz * 2;
    Out[2] = (uint64_t)v.x; Out[3] = (uint64_t)v.z;
    bool3 c = v > int64_t3(0, 0, 0);
    Out[4] = (uint64_t)c.x + 2 * (uint64_t)c.y + 4 * (uint64_t)c.z;
    Out[5] = (uint64_t)any(v == (int64_t)(1ull << 33)) + 2 * (uint64_t)all(v);
    Out[6] = dot(uint64_t2(Q[0], Q[1]), uint64_t2(3, 5));
    int64_t2 ir = mul(int64_t2(1, 1), int64_t2x2(Q[0], 1, 2, Q[1]));
    Out[7] = (uint64_t)ir.x; Out[8] = (uint64_t)ir.y;
    Out[9] = Bits(determinant(m));
    Out[10] = Bits(dot(double3(D[0], D[1], D[2]), double3(1, 2, 3)));
    Out[11] = (uint64_t)select(Q[0] > 0, Q[1], Q[2]);
    Out[12] = Bits(abs(-D[2]) + min(D[0], D[1]) + max(D[2], D[3]));
    Out[13] = Bits(saturate(D[3]) + sign(D[2]));
    Out[14] = Bits(rcp(D[1]));
    Out[15] = (uint64_t)(int)mad(D[0], D[1], D[2]);
}
"""


def test_64_bit_vectors_matrices_and_double_intrinsics():
    """double and int64_t vectors and matrices: mul, swizzled stores, comparisons, any/all, dot, determinant,
    select, and the intrinsics DXC has double overloads for (abs, min, max, saturate, sign, rcp, mad)."""
    q, d = [1 << 32, -3, 7], [1.5, 2.0, -0.25, 10.0]
    v = [14, -3, 1 << 33]
    want = [bits64(d[0] * d[1] + d[1] * d[0]), bits64(d[2] * d[1] + d[3] * d[0]), v[0], v[2],
            sum(1 << k for k, x in enumerate(v) if x > 0), 1 + 2,
            (q[0] * 3 + q[1] * 5) & U64_MAX, q[0] + 2, 1 + q[1],
            bits64(d[0] * d[3] - d[1] * d[2]), bits64(d[0] + 2 * d[1] + 3 * d[2]), q[1],
            bits64(abs(d[2]) + min(d[0], d[1]) + max(d[2], d[3])), bits64(1.0 - 1.0), bits64(1 / d[1]),
            int(d[0] * d[1] + d[2])]
    got = run(SHAPES64, {"Out": ("Q", len(want))}, {"Q": ("q", q), "D": ("d", d)}, profile="cs_6_3", e16=False,
              dxil_skip="dxop-overloads")["Out"]
    assert got == [w & U64_MAX for w in want]


# ---------------------------------------------------------------- layouts of 64-bit and min-precision members

STRUCT64 = """
struct S64 { uint a; double b; uint c; int64_t d; half e; uint64_t f; };
StructuredBuffer<S64> SB : register(t0);
ByteAddressBuffer BB : register(t1);
RWStructuredBuffer<uint64_t> Out : register(u2);
uint64_t Bits(double d) { uint lo, hi; asuint(d, lo, hi); return lo | ((uint64_t)hi << 32); }
[numthreads(1, 1, 1)]
void main() {
    S64 s = SB[1];
    Out[0] = s.a; Out[1] = Bits(s.b); Out[2] = s.c; Out[3] = (uint64_t)s.d; Out[4] = asuint16(s.e); Out[5] = s.f;
    S64 r = BB.Load<S64>(48);
    Out[6] = r.a; Out[7] = Bits(r.b); Out[8] = r.c; Out[9] = (uint64_t)r.d; Out[10] = asuint16(r.e); Out[11] = r.f;
    Out[12] = sizeof(S64);
}
"""


def _s64(k: int) -> tuple[bytes, list[int]]:
    """One S64 at D3D's offsets (64-bit members 8-byte aligned, the struct padded to 8), and its fields' bits."""
    vals = (10 + k, 1.5 + k, 20 + k, -(1 << 40) - k, 0.5 + k, (1 << 63) + k)
    raw = struct.pack("<I4xdI4xqe6xQ", *vals)
    return raw, [vals[0], bits64(vals[1]), vals[2], vals[3] & U64_MAX, bits16(vals[4]), vals[5]]


def test_64_bit_members_in_structured_and_raw_buffers():
    """A struct mixing 32-, 64- and 16-bit members: 64-bit members at 8-byte offsets, 48-byte stride, the same
    layout through StructuredBuffer and ByteAddressBuffer.Load<S64>."""
    (e0, _w0), (e1, w1) = _s64(0), _s64(1)
    assert len(e0) == 48
    specs = {"SB": R.storage(e0 + e1), "BB": R.storage(e0 + e1), "Out": R.storage(R.sentinel(26))}
    got = R.cs(STRUCT64, specs, profile="cs_6_2", enable_16bit_types=True)
    assert R.unpack("Q", got["Out"]) == w1 + w1 + [48]


MIN16_CB = """
cbuffer C : register(b3) { min16float ca; min16int cb; half cc; min16uint cd; };
StructuredBuffer<min16float> M : register(t1);
RWStructuredBuffer<uint> Out : register(u0);
min16float Triple(min16float x) { return x * (min16float)3; }
[numthreads(1, 1, 1)]
void main() {
    Out[0] = asuint((float)ca); Out[1] = (uint)(int)cb; Out[2] = asuint((float)cc); Out[3] = cd;
    Out[4] = asuint((float)M[1]); Out[5] = asuint((float)Triple(M[1])); Out[6] = sizeof(M[0]);
}
"""


def test_min_precision_storage_without_16bit_types_is_32_bit():
    """Without -enable-16bit-types min16float/min16int/min16uint/half take 32-bit slots in cbuffers (offsets
    0, 4, 8, 12) and structured buffers (stride 4), and compute at 32 bits (as DXC's layout)."""
    res = R.build(MIN16_CB, profile="cs_6_0")
    [block] = [r["block"] for r in res.manifest["resources"] if r["name"] == "C"]
    assert [(m["name"], m["hlsl"]["offset"], m["hlsl"]["size"]) for m in block["members"]] == \
        [("ca", 0, 4), ("cb", 4, 4), ("cc", 8, 4), ("cd", 12, 4)]
    specs = {"C": R.uniform(struct.pack("<fifI", 0.3, -4, 0.7, 9)), "M": R.storage(struct.pack("<2f", 0.1, 0.3)),
             "Out": R.storage(R.sentinel(7))}
    got = R.run_cs(res, specs)
    assert R.unpack("I", got["Out"]) == [bits32(0.3), wrap(-4, 32, False), bits32(0.7), 9, bits32(0.3),
                                         bits32(f32(0.3) * 3), 4]


# ---------------------------------------------------------------- refused as DXC refuses

ATOMIC16 = ("RWStructuredBuffer<uint16_t> W : register(u0);\nRWTexture1D<int16_t> T : register(u1);\n"
            "groupshared uint16_t g;\n[numthreads(1, 1, 1)]\nvoid main() {\n    CALL\n}\n")


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("call, col, dest", [
    ("InterlockedAdd(W[0], (uint16_t)1);", 21, "uint16_t"),      # (a subscript is located at its '[')
    ("InterlockedAdd(g, (uint16_t)1);", 20, "uint16_t"),
    ("uint16_t o; InterlockedExchange(W[1], (uint16_t)1, o);", 38, "uint16_t"),
    ("int16_t o; InterlockedMax(T[0], (int16_t)1, o);", 32, "int16_t"),
])
def test_16_bit_atomics_are_a_located_error(call, col, dest, target):
    """DXC declares the Interlocked* intrinsics for 32- and 64-bit destinations only (int32_only / int64_only):
    a 16-bit one was accepted, emitting an i16 atomicrmw on groupshared memory (invalid DXIL) and 16-bit
    OpAtomic* (no Vulkan device has 16-bit integer atomics)."""
    res = R.compile_hlsl(ATOMIC16.replace("CALL", call), profile="cs_6_6", target=target, enable_16bit_types=True)
    assert R.errors(res) == [f"6:{col}: no matching intrinsic for call to '{call.split('(')[0].split()[-1]}': the "
                             f"destination must be a 32- or 64-bit int or uint, not '{dest}'"]


HALF3_SB = """
StructuredBuffer<half3> H3 : register(t1);
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(1, 1, 1)]
void main() { Out[0] = asuint16(H3[1].x) | (uint)asuint16(H3[1].z) << 16; Out[1] = asuint16(H3[2].y); }
"""


@pytest.mark.parametrize("layout, stride", [("default", 8), ("dx", 6)])
def test_structured_half3_stride(layout, stride):
    """StructuredBuffer<half3>: D3D's stride is 6; on Vulkan DXC's default (relaxed std430) gives 8, as float3's 16,
    and -fvk-use-dx-layout gives 6 (whose DXIL twin then runs on the same bytes)."""
    vals = [(1.0, 2.0, 3.0), (0.5, -1.5, 2.25), (4.0, 8.0, -16.0)]
    data = b"".join(struct.pack("<3e", *v) + bytes(stride - 6) for v in vals)
    opts = {"vk_layout": "dx"} if layout == "dx" else {}
    res = R.build(HALF3_SB, profile="cs_6_2", enable_16bit_types=True, **opts)
    [h3] = [r for r in res.manifest["resources"] if r["name"] == "H3"]
    assert (h3["hlsl"]["stride"], h3["vulkan"]["stride"]) == (6, stride)
    got = R.run_cs(res, {"H3": R.storage(data), "Out": R.storage(R.sentinel(2))})
    assert R.unpack("I", got["Out"]) == [bits16(0.5) | bits16(2.25) << 16, bits16(8.0)]


def test_f16tof32_of_16_and_64_bit_integers():
    """f16tof32 takes DXC's uint<> (32-bit): a uint16_t or uint64_t argument converts to uint first.  A 16-bit
    argument was passed through as it was, and the DXIL backend stopped with an internal error."""
    rows: list[tuple[str, str, int]] = []
    rows += both("uint16", "asuint(f16tof32((uint16_t)U[0]))", "asuint(f16tof32((uint16_t)0x3C01))",
                 bits32(1.0 + 2.0 ** -10))
    rows += both("uint64_truncated", "asuint(f16tof32(((uint64_t)U[1] << 32) | U[2]))",
                 "asuint(f16tof32(0x100004000ull))", bits32(2.0))
    rows += both("int16_vector", "asuint(f16tof32((int16_t2)uint2(U[3], U[0])).x)",
                 "asuint(f16tof32(int16_t2((int16_t)0xC000, (int16_t)0x3C01)).x)", bits32(-2.0))
    bad = table(rows, {"U": ("I", [0x3C01, 1, 0x4000, 0xC000])})
    assert not bad, "\n".join(bad)


CBUFFER64 = """
cbuffer C : register(b0) {
    float a; double3 b; float c; double2 e; uint64_t f; int64_t2 g; float h; double4 k; half m;
};
RWStructuredBuffer<uint> Out : register(u1);
uint Lo(double x) { uint lo, hi; asuint(x, lo, hi); return lo; }
uint Hi(double x) { uint lo, hi; asuint(x, lo, hi); return hi; }
[numthreads(1, 1, 1)]
void main() {
    Out[0] = asuint(a); Out[1] = Lo(b.x); Out[2] = Hi(b.z); Out[3] = asuint(c); Out[4] = Hi(e.y); Out[5] = (uint)f;
    Out[6] = (uint)(f >> 32); Out[7] = (uint)g.x; Out[8] = (uint)(g.y >> 32); Out[9] = asuint(h); Out[10] = Hi(k.w);
    Out[11] = Lo(k.z); Out[12] = asuint16(m);
}
"""
# D3D offsets by HLSL's rules: a vector that does not fit in the rest of its 16-byte row starts the next one
# (double3 b at 16, spanning 24 bytes; double2 e at 48; int64_t2 g at 80; double4 k at 112, two rows)
CB64_D3D = {"a": (0, "f", 1.25), "b": (16, "3d", (2.5, -3.5, 1e100)), "c": (40, "f", -7.75),
            "e": (48, "2d", (0.5, -1e-300)), "f": (64, "Q", 0x123456789ABCDEF0), "g": (80, "2q", (-5, -(1 << 50))),
            "h": (96, "f", 9.5), "k": (112, "4d", (1.0, 2.0, 3.0000000000000004, -4.5)), "m": (144, "e", -0.125)}


def test_64_bit_cbuffer_rows_executed():
    """double3/double2/int64_t2/double4 cbuffer members straddle no 16-byte row except as HLSL packs them
    (a 24- or 32-byte vector starts a row and spans the next); offsets computed here, values read back."""
    res = R.build(CBUFFER64, profile="cs_6_2", enable_16bit_types=True)
    [block] = [r["block"] for r in res.manifest["resources"] if r["name"] == "C"]
    members = {m["name"]: m for m in block["members"]}
    assert {n: members[n]["hlsl"]["offset"] for n in CB64_D3D} == {n: v[0] for n, v in CB64_D3D.items()}
    assert block["hlsl_size"] == 146
    # Vulkan offsets as the manifest reflects them (DXC's relaxed std140 keeps a 64-bit vector's 32-byte
    # alignment: tests/fuzz/test_layout_gen.py checks them against rules of its own); its size rounded to a row
    vk = _cb_bytes({n: members[n]["vulkan"]["offset"] for n in CB64_D3D}, 16, CB64_D3D, -(-block["vulkan_size"] // 16) * 16)
    d3d = _cb_bytes({n: v[0] for n, v in CB64_D3D.items()}, 16, CB64_D3D, 160)
    got = R.run_cs(res, {"C": R.uniform(vk), "Out": R.storage(R.sentinel(13))}, dxil_data={"C": d3d})
    v = {n: val for n, (_o, _c, val) in CB64_D3D.items()}
    want = [bits32(v["a"]), bits64(v["b"][0]) & 0xFFFFFFFF, bits64(v["b"][2]) >> 32, bits32(v["c"]),
            bits64(v["e"][1]) >> 32, v["f"] & 0xFFFFFFFF, v["f"] >> 32, v["g"][0] & 0xFFFFFFFF,
            (v["g"][1] & U64_MAX) >> 32, bits32(v["h"]), bits64(v["k"][3]) >> 32, bits64(v["k"][2]) & 0xFFFFFFFF,
            bits16(v["m"])]
    assert R.unpack("I", got["Out"]) == want


REFUSED = "RWStructuredBuffer<uint> O : register(u0);\nStructuredBuffer<double> D : register(t1);\n" \
          "[numthreads(1, 1, 1)]\nvoid main() {\n    BODY\n}\n"


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("body, flag, message", [
    ("O[0] = (uint)(D[0] % 2.0L);", False, "modulo cannot be used with doubles, cast to float first"),
    ("half h = (half)D[0]; O[0] = (uint)fma(h, h, h);", True, "fma requires double arguments"),
    ("O[0] = asuint(D[0]);", False, "'asuint' cannot reinterpret a value of type 'double'"),
    ("O[0] = asuint((half)D[0]);", True, "'asuint' cannot reinterpret a value of type 'half'"),
    ("O[0] = asuint16(O[1]);", True, "'asuint16' cannot reinterpret a value of type 'uint'"),
    ("O[0] = (uint)asfloat((int16_t)O[1]);", True, "'asfloat' cannot reinterpret a value of type 'int16_t'"),
    ("int16_t s = 1; O[0] = s;", False, "'int16_t' requires -enable-16bit-types"),
    ("float16_t s = 1; O[0] = (uint)s;", False, "'float16_t' requires -enable-16bit-types"),
])
def test_16_and_64_bit_misuse_is_a_located_error(body, flag, message, target):
    """What DXC refuses on 16- and 64-bit types (double `%`, fma on non-doubles, the 32-bit-only and 16-bit-only
    reinterpretations, 16-bit type names without the flag): one located error on line 5."""
    opts = {"enable_16bit_types": True} if flag else {}
    res = R.compile_hlsl(REFUSED.replace("BODY", body), profile="cs_6_2", target=target, **opts)
    errs = [d for d in res.diagnostics if d.severity == "error"]
    assert not res.ok and [(e.loc.line, e.message) for e in errs] == [(5, message)]


@pytest.mark.parametrize("profile", ["cs_6_0", "cs_6_1"])
def test_16bit_types_flag_needs_sm_6_2(profile):
    res = R.compile_hlsl(REFUSED.replace("BODY", "O[0] = 1;"), profile=profile, enable_16bit_types=True)
    assert [d.message for d in res.diagnostics if d.severity == "error"] == \
        [f"-enable-16bit-types requires shader model 6.2 or higher (profile is {profile})"]


STATIC16 = """
RWStructuredBuffer<uint> Out : register(u0);
StructuredBuffer<int> I : register(t1);
static const half T[4] = { 0.3, 65519.0, 1e-3, -2.5 };
static const int16_t S[3] = { 40000, -1, 32767 };
struct P { half h; uint16_t u; int64_t q; double d; };
static const P PP = { 0.1, 70000, -5, 0.1 };
static const uint64_t Q[2] = { 0x123456789ull, -1 };
[numthreads(1, 1, 1)]
void main() {
    for (int i = 0; i < 4; ++i) Out[i] = asuint16(T[I[i]]);
    for (int j = 0; j < 3; ++j) Out[4 + j] = (uint)(int)S[I[j]];
    Out[7] = asuint16(PP.h); Out[8] = PP.u; Out[9] = (uint)PP.q; uint lo, hi; asuint(PP.d, lo, hi); Out[10] = lo;
    Out[11] = (uint)(Q[I[1]] >> 32); Out[12] = (uint)(Q[I[0]] >> 32);
    half4 hv = half4(0.1, 0.2, 65519.0, 1.0 / 3.0);
    Out[13] = asuint16(hv[I[3]]); Out[14] = asuint16(hv.z);
    half2x2 hm = { 0.1, 0.2, 0.3, 0.4 };
    Out[15] = asuint16(hm[I[1]][I[0]]);
}
"""


def test_static_tables_of_16_and_64_bit_values():
    """Initialisers of static const arrays, structs, vectors and matrices convert each literal to its element
    type (rounded to half, wrapped to 16 bits, a double literal kept at 64 bits), read at run-time indices."""
    want = [bits16(0.3), bits16(65519.0), bits16(1e-3), bits16(-2.5), wrap(40000, 16, True), -1, 32767,
            bits16(0.1), wrap(70000, 16, False), -5, bits64(0.1) & 0xFFFFFFFF, 0xFFFFFFFF, 1,
            bits16(1.0 / 3.0), bits16(65519.0), bits16(0.3)]
    got = run(STATIC16, {"Out": ("I", 16)}, {"I": ("i", [0, 1, 2, 3])})["Out"]
    assert got == [w & 0xFFFFFFFF for w in want]


CB16_MATRICES = """
cbuffer C : register(b0) { half a; half2x3 m; row_major int16_t2x3 r; half b; };
RWStructuredBuffer<uint> Out : register(u1);
[numthreads(1, 1, 1)]
void main() {
    for (uint i = 0; i < 2; ++i)
        for (uint j = 0; j < 3; ++j) { Out[i * 3 + j] = asuint16(m[i][j]); Out[6 + i * 3 + j] = (uint)(int)r[i][j]; }
    Out[12] = asuint16(a); Out[13] = asuint16(b);
}
"""


def test_16_bit_matrices_in_a_cbuffer():
    """16-bit matrices in a cbuffer: each column (column_major) or row (row_major) starts a 16-byte row and
    holds its components 2 bytes apart; the matrix ends after its last vector (half2x3: 16 + 3 rows, 36 bytes
    from 16; row_major int16_t2x3: 22 bytes from 64), so `b` packs at 86."""
    res = R.build(CB16_MATRICES, profile="cs_6_2", enable_16bit_types=True)
    [block] = [r["block"] for r in res.manifest["resources"] if r["name"] == "C"]
    mem = {m["name"]: m for m in block["members"]}
    assert [(n, mem[n]["hlsl"]["offset"], mem[n]["hlsl"]["size"]) for n in "amrb"] == \
        [("a", 0, 2), ("m", 16, 36), ("r", 64, 22), ("b", 86, 2)]
    mv = [[0.5, -1.0, 2.25], [3.5, -0.125, 8.0]]
    rv = [[-300, 7, 32767], [-32768, 1, -2]]

    def layout(view: str) -> bytes:
        buf = bytearray(112)
        struct.pack_into("<e", buf, mem["a"][view]["offset"], 1.5)
        struct.pack_into("<e", buf, mem["b"][view]["offset"], -6.0)
        ms, rs = mem["m"][view]["matrix_stride"], mem["r"][view]["matrix_stride"]
        for i in range(2):
            for j in range(3):
                struct.pack_into("<e", buf, mem["m"][view]["offset"] + ms * j + 2 * i, mv[i][j])   # column j
                struct.pack_into("<h", buf, mem["r"][view]["offset"] + rs * i + 2 * j, rv[i][j])   # row i
        return bytes(buf)

    assert (mem["m"]["hlsl"]["matrix_stride"], mem["r"]["hlsl"]["matrix_stride"]) == (16, 16)
    got = R.run_cs(res, {"C": R.uniform(layout("vulkan")), "Out": R.storage(R.sentinel(14))},
                   dxil_data={"C": layout("hlsl")})
    want = [bits16(x) for row in mv for x in row] + [wrap(x, 32, False) for row in rv for x in row] + \
        [bits16(1.5), bits16(-6.0)]
    assert R.unpack("I", got["Out"]) == want


def test_h_suffix_literals_are_half_values_in_wider_expressions():
    """With -enable-16bit-types `0.1h` is the half nearest 0.1 wherever it is used: widened to float or double,
    or combined with a float operand (which makes the operation float), folded or not."""
    h1 = f16(0.1)
    rows = [("times_float", "asuint(F[0] * 0.1h)", bits32(h1)), ("times_float_folded", "asuint(1.0f * 0.1h)", bits32(h1)),
            ("half_sum", "asuint((float)(0.1h + 0.2h))", bits32(f16(h1 + f16(0.2)))),
            ("to_double_high", "Hi(0.1h)", bits64(h1) >> 32), ("to_double_low", "Lo(0.1h)", bits64(h1) & 0xFFFFFFFF),
            ("unsuffixed_stays_float", "asuint(F[0] * 0.1)", bits32(0.1)),
            ("max_float_half", "asuint(max(F[0] * 0.3, 0.1h))", bits32(0.3))]
    decls = ("uint Hi(double d) { uint lo, hi; asuint(d, lo, hi); return hi; }\n"
             "uint Lo(double d) { uint lo, hi; asuint(d, lo, hi); return lo; }\n")
    bad = table(rows, {"F": ("f", [1.0])}, decls)
    assert not bad, "\n".join(bad)


# (expression over I = [-1, 1, -1, 5], expected): the common type decides signedness and width
MIXED_COMPARES = [
    ("(uint)((int64_t)I[0] < (uint)I[1])", 1),          # int64_t holds every uint: -1 < 1
    ("(uint)((int)I[0] < (uint)I[1])", 0),              # uint: 0xFFFFFFFF < 1 is false
    ("(uint)((uint64_t)(uint)I[1] < I[0])", 1),         # uint64_t: -1 is 2^64 - 1
    ("(uint)((int16_t)I[0] < (uint16_t)I[1])", 0),      # uint16_t: 65535 < 1 is false
    ("(uint)((int16_t)I[0] < (uint)I[1])", 0),          # uint
    ("(uint)((int16_t)I[0] < (int)I[1])", 1),           # int
    ("(uint)((uint16_t)I[0] < (int)I[1])", 0),          # int: 65535 < 1 is false
    ("(uint)((uint16_t)I[0] > (int)I[0])", 1),          # int: 65535 > -1
    ("(uint)((int64_t)I[0] == (uint64_t)I[2])", 1),
    ("(uint)((int)I[0] == (int64_t)I[2])", 1),
    ("(uint)(-1 < (uint)I[1])", 0), ("(uint)(-1 < (uint64_t)I[1])", 0), ("(uint)(-1 < (int64_t)I[1])", 1),
    ("(uint)(((int64_t)I[0] * (uint)I[3]) >> 32)", 0xFFFFFFFF),     # int64_t product -5
    ("(uint)((int)I[0] * (uint64_t)I[3] >> 32)", 0xFFFFFFFF),       # uint64_t product 2^64 - 5
]


def test_mixed_signedness_and_width_comparisons():
    """Comparisons and products across 16/32/64-bit signed and unsigned operands use the usual arithmetic
    conversions (wider wins, unsigned wins at equal width), at run time and folded."""
    rows: list[tuple[str, str, int]] = []
    for k, (e, want) in enumerate(MIXED_COMPARES):
        folded = e
        for i, v in enumerate([-1, 1, -1, 5]):
            folded = folded.replace(f"I[{i}]", f"(int){v}")
        rows += both(f"cmp{k}", e, folded, want)
    bad = table(rows, {"I": ("i", [-1, 1, -1, 5])})
    assert not bad, "\n".join(bad)


def test_an_explicitly_cast_literal_is_typed():
    """`(int)1` and `int(1)` are ints, not literals that adopt the other operand's type (DXC: a cast gives its
    type): with a 16-bit operand the operation is 32-bit.  Before, `(uint16_t)65535 + (int)1` wrapped to 0 and
    `(uint16_t)65535 > (int)-1` was false."""
    rows = [("cast_size", "sizeof((uint16_t)1 + (int)1)", 4), ("ctor_size", "sizeof((uint16_t)1 + int(1))", 4),
            ("literal_size", "sizeof((uint16_t)1 + 1)", 2),          # an uncast literal does adopt uint16_t
            ("cast_sum", "(uint)((uint16_t)65535 + (int)1)", 65536),
            ("cast_sum_runtime", "(uint)((uint16_t)I[0] + (int)1)", 65536),
            ("ctor_sum", "(uint)((uint16_t)I[0] + int(1))", 65536),
            ("cast_compare", "(uint)((uint16_t)65535 > (int)-1)", 1),
            ("cast_compare_runtime", "(uint)((uint16_t)I[0] > (int)-1)", 1),
            ("int64_cast", "(uint)(((int16_t)-2 * (int64_t)0x40000000) >> 32)", wrap((-2 * 0x40000000) >> 32, 32, False))]
    bad = table(rows, {"I": ("i", [65535])})
    assert not bad, "\n".join(bad)


# constants reach these operations only through calls: the front end does not fold them, the SPIR-V optimiser
# (after inlining, at -O3) may; the harness reruns every build at -O0, so a fold that differs fails the run
INLINED_CONSTANTS = """
RWStructuredBuffer<uint64_t> Out : register(u0);
int64_t sdiv(int64_t a, int64_t b) { return a / b; }
int64_t smod(int64_t a, int64_t b) { return a % b; }
uint64_t shl(uint64_t a, uint b) { return a << b; }
int64_t f2i(double d) { return (int64_t)d; }
uint64_t f2u(float d) { return (uint64_t)d; }
float u2f(uint64_t v) { return (float)v; }
double i2d(int64_t v) { return (double)v; }
int16_t wrap16(int16_t a, int16_t b) { return a * b; }
uint16_t f2u16(half h) { return (uint16_t)h; }
int16_t f2i16(float f) { return (int16_t)f; }
half i2h(int v) { return (half)v; }
uint64_t B(double d) { uint lo, hi; asuint(d, lo, hi); return lo | ((uint64_t)hi << 32); }
[numthreads(1,1,1)] void main() {
  Out[0] = (uint64_t)sdiv((int64_t)0x8000000000000000ull, -1);
  Out[1] = (uint64_t)smod((int64_t)0x8000000000000000ull, -1);
  Out[2] = (uint64_t)sdiv(7, 0);
  Out[3] = (uint64_t)smod(-7, 0);
  Out[4] = shl(3, 65);
  Out[5] = (uint64_t)f2i(1e30);
  Out[6] = f2u(-5.0);
  Out[7] = asuint(u2f(0x1000001000000001ull));
  Out[8] = B(i2d((int64_t)0x7FFFFFFFFFFFFFFFull));
  Out[9] = (uint64_t)(int)wrap16(300, 300);
  Out[10] = f2u16((half)-3.0);
  Out[11] = (uint64_t)(int)f2i16(1e6);
  Out[12] = asuint16(i2h(65519));
  Out[13] = asuint16(i2h(70000));
  Out[14] = (uint64_t)f2i(-1e30);
  Out[15] = f2u(1e30);
}
"""


def test_constants_through_calls_follow_d3d_rules_when_optimised():
    """D3D's 64- and 16-bit results for constants passed through functions (folded by the optimiser or not):
    INT64_MIN / -1, x / 0, x % 0, 6-bit shift masks, saturating conversions, once-rounded int -> float."""
    want = [1 << 63, 0, U64_MAX, 1, 6, I64_MAX, 0, f32_of_int(0x1000001000000001), bits64(float(I64_MAX)),
            wrap(300 * 300, 16, True) & U64_MAX, 0, 32767, bits16(65519.0), bits16(INF), 1 << 63, U64_MAX]
    assert run(INLINED_CONSTANTS, {"Out": ("Q", 16)})["Out"] == want


VECTOR_CONVERSIONS = """
RWStructuredBuffer<uint> Out : register(u0);
StructuredBuffer<float> F : register(t1);
StructuredBuffer<int> I : register(t2);
[numthreads(1, 1, 1)]
void main() {
    int16_t3 a = (int16_t3)float3(F[0], F[1], F[2]);
    Out[0] = (uint)(int)a.x; Out[1] = (uint)(int)a.y; Out[2] = (uint)(int)a.z;
    int16_t3 b = (int16_t3)float3(1e6, -1e6, 7.9);
    Out[3] = (uint)(int)b.x; Out[4] = (uint)(int)b.y; Out[5] = (uint)(int)b.z;
    uint16_t2 c = (uint16_t2)half2((half)F[3], (half)F[4]);
    Out[6] = c.x; Out[7] = c.y;
    half3 d = (half3)int3(I[0], I[1], I[2]);
    Out[8] = asuint16(d.x); Out[9] = asuint16(d.y); Out[10] = asuint16(d.z);
    int16_t2x2 m = (int16_t2x2)float2x2(F[0], F[1], F[2], F[3]);
    Out[11] = (uint)(int)m[0][0]; Out[12] = (uint)(int)m[1][1];
    uint64_t2 e = (uint64_t2)float2(F[1], F[5]);
    Out[13] = (uint)(e.x >> 32); Out[14] = (uint)(e.y >> 32);
    half2 h = (half2)double2(65519.0L, (double)F[2]);
    Out[15] = asuint16(h.x); Out[16] = asuint16(h.y);
}
"""


def test_vector_and_matrix_conversions_at_16_and_64_bits():
    """Component-wise conversions of vectors and matrices follow the scalar rules: saturation to 16 or 64
    bits, integer -> half rounding and overflow, double -> half rounding, folded (b) and at run time."""
    f = [1e6, -1e6, 7.9, -3.0, 1000.0, 1e10]
    want = [32767, -32768, 7, 32767, -32768, 7, 0, 1000, bits16(70000.0), bits16(-65519.0), bits16(2049.0),
            32767, -3, 0, int(f32(1e10)) >> 32, bits16(65519.0), bits16(f32(7.9))]
    got = run(VECTOR_CONVERSIONS, {"Out": ("I", 17)}, {"F": ("f", f), "I": ("i", [70000, -65519, 2049])})["Out"]
    assert got == [w & 0xFFFFFFFF for w in want]


MIN16_CB_FLAG = """
cbuffer C : register(b0) { min16float a; min16int b; min16uint c; float d; };
RWStructuredBuffer<uint> Out : register(u1);
[numthreads(1, 1, 1)]
void main() { Out[0] = asuint16(a) | (uint)asuint16(b) << 16; Out[1] = c; Out[2] = asuint(d); }
"""


def test_min_precision_cbuffer_members_are_16_bit_with_the_flag():
    """With -enable-16bit-types min16float/min16int/min16uint cbuffer members take 2 bytes each (DXC maps them to
    half/int16_t/uint16_t), so `d` packs at 8."""
    res = R.build(MIN16_CB_FLAG, profile="cs_6_2", enable_16bit_types=True)
    [block] = [r["block"] for r in res.manifest["resources"] if r["name"] == "C"]
    assert [(m["name"], m["hlsl"]["offset"], m["hlsl"]["size"]) for m in block["members"]] == \
        [("a", 0, 2), ("b", 2, 2), ("c", 4, 2), ("d", 8, 4)]
    data = struct.pack("<ehHxxf", -0.5, -3, 65535, 2.5)
    got = R.run_cs(res, {"C": R.uniform(data + bytes(4)), "Out": R.storage(R.sentinel(3))},
                   dxil_data={"C": data + bytes(4)})
    assert R.unpack("I", got["Out"]) == [bits16(-0.5) | wrap(-3, 16, False) << 16, 65535, bits32(2.5)]


def test_a_literal_intrinsic_argument_adopts_the_others_type_in_any_position():
    """A literal argument of a generic intrinsic adopts the type of the non-literal ones wherever it stands:
    `step(0.3, h)` and `max(0.3, h)` are half like `max(h, 0.3)`, `max(1, s16)` is int16_t.  Before, a literal
    in first position set the type (float / int), so the call was computed at 32 bits."""
    a, b = 0.25, 3.0
    rows = [("step_first", "(uint)asuint16(step(0.3, (half)F[0]))", bits16(0.0)),
            ("step_second", "(uint)asuint16(step((half)F[0], 0.3))", bits16(1.0)),
            ("max_first", "(uint)asuint16(max(0.3, (half)F[0]))", bits16(0.3)),
            ("clamp_first", "(uint)asuint16(clamp(0.1, (half)F[0], 0.7))", bits16(max(f16(0.1), a))),
            ("lerp_literals_first", "(uint)asuint16(lerp(0.1, 0.7, (half)F[0]))",
             bits16(f16(f16(0.1) + f16(a * f16(f16(0.7) - f16(0.1)))))),
            ("sizes", "sizeof(max(0.3, (half)F[0])) + 10 * sizeof(max(1, (int16_t)F[1])) + 100 * sizeof(min(2, (uint64_t)F[1]))",
             2 + 20 + 800),
            ("min_int16_first", "(uint)(int)min(-1, (int16_t)F[1] * (int16_t)20000)", wrap(3 * 20000, 16, True)),
            ("lerp_mixed", "(uint)asuint16(lerp((half)F[0], (half)F[1], 0.5))", bits16(f16(a + f16(0.5 * f16(b - a)))))]
    bad = table(rows, {"F": ("f", [a, b])}, dxil_skip="dxop-overloads")
    assert not bad, "\n".join(bad)
