"""D3D's results where SPIR-V and LLVM leave integer arithmetic undefined (docs/CONFORMANCE.md):
float -> integer conversion saturates and maps NaN to 0, unsigned division and remainder by zero give
all ones, signed ones follow from D3D's udiv on magnitudes.  One definition for the front end's
constant folding and for the bounds and guards both backends emit, so folded and run-time results agree."""

from __future__ import annotations

import math
import struct

# largest finite value of each float width (a bound beyond it is compared as infinity)
_FLOAT_MAX = {16: 65504.0, 32: 3.4028234663852886e38, 64: 1.7976931348623157e308}


_FLOAT_CODE = {16: struct.Struct("<e"), 32: struct.Struct("<f")}


def round_float(x: float, width: int) -> float:
    """x rounded to nearest-even in a `width`-bit float, as a run-time conversion rounds: a folded
    `(half)0.3` or `(float)(1.0 + 1e-8)` holds the narrow value; beyond the largest finite value plus half an
    ulp it is infinity (`(half)65519.0` is 65504, `(half)65520.0` infinity)."""
    code = _FLOAT_CODE.get(width)
    if code is None or not math.isfinite(x):
        return x
    try:
        return float(code.unpack(code.pack(x))[0])
    except OverflowError:
        return math.copysign(math.inf, x)


_SIGNIFICAND_BITS = {16: 11, 32: 24, 64: 53}


def int_to_float(v: int, width: int) -> float:
    """An integer converted to a `width`-bit float, rounded once to nearest-even as the run-time conversion
    does: rounding first to double and then to float would round twice ((float)0x1000001000000001ull)."""
    keep = _SIGNIFICAND_BITS[width]
    extra = abs(v).bit_length() - keep
    if extra > 0:
        q, r = divmod(abs(v), 1 << extra)
        half = 1 << (extra - 1)
        q += r > half or (r == half and q & 1)
        v = (q << extra) * (1 if v >= 0 else -1)
    return round_float(float(v), width)     # exact now, or beyond the range (infinity)


def int_range(kind: str, width: int) -> tuple[int, int]:
    """(min, max) of an integer type."""
    return (-(1 << (width - 1)), (1 << (width - 1)) - 1) if kind == "int" else (0, (1 << width) - 1)


def float_to_int(x: float, kind: str, width: int) -> int:
    """D3D ftoi/ftou: NaN -> 0, rounded toward zero, saturated to the type's range."""
    lo, hi = int_range(kind, width)
    if math.isnan(x):
        return 0
    if x >= hi:
        return hi
    if x <= lo:
        return lo
    return int(x)


def conversion_bounds(kind: str, width: int, float_width: int) -> tuple[float, int, float, int]:
    """(low float, its result, high float, its result) for a run-time conversion: a value <= low gives
    the minimum, >= high the maximum (both powers of two, exact in every float width that holds them;
    bounds beyond `float_width`'s range become infinities, so only infinities reach them)."""
    lo, hi = int_range(kind, width)
    lo_f, hi_f = float(lo), float(hi + 1)
    top = _FLOAT_MAX[float_width]
    return (lo_f if -lo_f <= top else -math.inf), lo, (hi_f if hi_f <= top else math.inf), hi


def int_div(x: int, y: int, kind: str, width: int) -> int:
    """Quotient as D3D computes it: udiv by 0 is all ones; signed division is udiv on the magnitudes with
    the sign fixed afterwards, so x / 0 is -1 for x >= 0 and 1 for x < 0, and INT_MIN / -1 is INT_MIN."""
    mask = (1 << width) - 1
    if kind != "int":
        return mask if y == 0 else (x & mask) // (y & mask)
    q = mask if y == 0 else abs(x) // abs(y)
    if (x < 0) != (y < 0):
        q = -q
    return _signed(q & mask, width)


def int_mod(x: int, y: int, kind: str, width: int) -> int:
    """Remainder as D3D computes it: urem by 0 is all ones; the signed remainder has the dividend's sign
    (|x| urem |y|, negated when x < 0), so x % 0 is -1 for x >= 0 and 1 for x < 0, INT_MIN % -1 is 0."""
    mask = (1 << width) - 1
    if kind != "int":
        return mask if y == 0 else (x & mask) % (y & mask)
    r = mask if y == 0 else abs(x) % abs(y)
    return _signed((-r if x < 0 else r) & mask, width)


def _signed(v: int, width: int) -> int:
    return v - (1 << width) if v >> (width - 1) else v
