"""Shared lowerings of intrinsics, written once in IR.

A backend passes the names it wants expanded (its POLYFILLED set) to `run`;
each `ir.Intrinsic` of such a name is replaced by plain IR (arithmetic,
selects, simpler intrinsics).  An argument used more than once is evaluated
once into a temporary stored just before the statement (the IR's
expressions are pure, so only where the value is computed moves).
Which names have a polyfill is listed in ir/intrinsics.py (POLYFILLABLE).
"""

from __future__ import annotations

import math

from .. import ir
from ..diagnostics import SourceLoc

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

__all__ = ["POLYFILLS", "rewrite", "run"]


class _Fn:
    """Builds the expansion inside one function: temporaries and the stores that fill them."""

    def __init__(self, fn: ir.Function) -> None:
        self.fn = fn
        self.pre: list[ir.Stmt] = []

    def once(self, e: ir.Expr) -> Callable[[], ir.Expr]:
        """A maker of fresh reads of e's value, evaluated once."""
        if isinstance(e, ir.Const):
            return lambda: ir.Const(e.type, e.value)
        place = e.place if isinstance(e, ir.Load) else None
        if isinstance(place, ir.VarRef):
            var = place.var
            return lambda: ir.Load(ir.VarRef(var), var.type)
        tmp = self.local(e.type, e)
        return lambda: ir.Load(ir.VarRef(tmp), tmp.type)

    def local(self, t: ir.Type, init: ir.Expr | None = None) -> ir.Variable:
        """A new temporary of the function, stored `init` first when given."""
        v = ir.Variable(f"poly.{len(self.fn.locals)}", t, ir.Storage.FUNCTION)
        self.fn.locals.append(v)
        if init is not None:
            self.pre.append(ir.Store(ir.VarRef(v), init))
        return v


# ------------------------------------------------------------------ IR helpers
def _scalar(t: ir.Type) -> ir.Scalar:
    s = ir.scalar_of(t)
    assert s is not None, f"'{t}' has no component type"
    return s


def _matrix(t: ir.Type) -> ir.Matrix:
    assert isinstance(t, ir.Matrix), f"'{t}' is not a matrix"
    return t


def _splat(t: ir.Type, x: ir.Expr) -> ir.Expr:
    """x (a scalar) as a value of t's shape; a repeated node is evaluated once by the backends."""
    if isinstance(t, ir.Vector):
        return ir.Construct(t, [x] * t.size)
    if isinstance(t, ir.Matrix):
        return ir.Construct(t, [_splat(ir.vec(t.elem, t.cols), x)] * t.rows)     # a one-column row is a scalar
    return x


def _const(t: ir.Type, value: float | int | bool) -> ir.Expr:
    s = _scalar(t)
    v = float(value) if s.is_float else bool(value) if s.kind == "bool" else int(value)
    if isinstance(t, ir.Vector):
        return ir.Const(t, (v,) * t.size)
    if isinstance(t, ir.Matrix):
        return _splat(t, ir.Const(s, v))
    return ir.Const(s, v)


def _bin(op: str, a: ir.Expr, b: ir.Expr, t: ir.Type | None = None) -> ir.Expr:
    return ir.Binary(op, a, b, a.type if t is None else t)


def _cmp(op: str, a: ir.Expr, b: ir.Expr) -> ir.Expr:
    return ir.Binary(op, a, b, _with_scalar(a.type, ir.BOOL))


def _with_scalar(t: ir.Type, s: ir.Scalar) -> ir.Type:
    if isinstance(t, ir.Vector):
        return ir.Vector(s, t.size)
    if isinstance(t, ir.Matrix):
        return ir.Matrix(s, t.rows, t.cols)
    return s


def _call(name: str, t: ir.Type, *args: ir.Expr) -> ir.Expr:
    return ir.Intrinsic(name, list(args), t)


# ------------------------------------------------------------------ the polyfills
if TYPE_CHECKING:      # a type alias: for type checkers only (no collections.abc at run time)
    Polyfill = Callable[[_Fn, ir.Intrinsic], ir.Expr]
POLYFILLS: dict[str, Polyfill] = {}


def _polyfill(*names: str) -> Callable[[Polyfill], Polyfill]:
    def deco(f: Polyfill) -> Polyfill:
        for n in names:
            POLYFILLS[n] = f
        return f
    return deco


def _scaled(factor: float, inner: str | None = None, before: bool = False) -> Polyfill:
    """x * factor, inner(x) * factor or inner(x * factor)."""
    def f(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
        (x,) = e.args
        k = _const(e.type, factor)
        if inner is None:
            return _bin("mul", x, k)
        if before:
            return _call(inner, e.type, _bin("mul", x, k))
        return _bin("mul", _call(inner, e.type, x), k)
    return f


POLYFILLS["degrees"] = _scaled(180.0 / math.pi)
POLYFILLS["radians"] = _scaled(math.pi / 180.0)
POLYFILLS["exp"] = _scaled(math.log2(math.e), "exp2", before=True)
POLYFILLS["log"] = _scaled(math.log(2.0), "log2")
POLYFILLS["log10"] = _scaled(math.log10(2.0), "log2")


@_polyfill("rcp")
def _rcp(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    return _bin("div", _const(e.type, 1.0), e.args[0])


@_polyfill("clamp")
def _clamp(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    x, lo, hi = e.args
    return _call("min", e.type, _call("max", e.type, x, lo), hi)


@_polyfill("step")
def _step(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    y, x = e.args                          # step(y, x) = x < y ? 0 : 1 (as DXC: a NaN operand gives 1)
    return ir.Select(_cmp("lt", x, y), _const(e.type, 0.0), _const(e.type, 1.0), e.type)


@_polyfill("ldexp")
def _ldexp(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    x, p = e.args
    return _bin("mul", x, _call("exp2", e.type, p))


@_polyfill("smoothstep")
def _smoothstep(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    lo, hi, x = e.args
    lo_ = b.once(lo)
    t = b.once(_call("saturate", e.type, _bin("div", _bin("sub", x, lo_()), _bin("sub", hi, lo_()))))
    poly = _bin("sub", _const(e.type, 3.0), _bin("mul", _const(e.type, 2.0), t()))
    return _bin("mul", _bin("mul", t(), t()), poly)


@_polyfill("fwidth")
def _fwidth(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    x = b.once(e.args[0])
    dx = _call("abs", e.type, _call("ddx_coarse", e.type, x()))
    dy = _call("abs", e.type, _call("ddy_coarse", e.type, x()))
    return _bin("add", dx, dy)


@_polyfill("distance")
def _distance(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    x, y = e.args
    return _call("length", e.type, _bin("sub", x, y))


@_polyfill("atan2")
def _atan2(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    y, x = (b.once(a) for a in e.args)
    t = e.type
    r = b.once(_call("atan", t, _bin("div", y(), x())))
    y_neg = b.once(_cmp("lt", y(), _const(t, 0.0)))
    shifted = ir.Select(y_neg(), _bin("sub", r(), _const(t, math.pi)), _bin("add", r(), _const(t, math.pi)), t)
    r2 = ir.Select(_cmp("lt", x(), _const(t, 0.0)), shifted, r(), t)
    half_pi = ir.Select(y_neg(), _const(t, -math.pi / 2), _const(t, math.pi / 2), t)
    return ir.Select(_cmp("eq", x(), _const(t, 0.0)), half_pi, r2, t)


@_polyfill("reflect")
def _reflect(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    i, n = (b.once(a) for a in e.args)
    s = _scalar(e.type)
    d2 = _bin("mul", _call("dot", s, i(), n()), _const(s, 2.0))
    return _bin("sub", i(), _bin("mul", _splat(e.type, d2), n()))


@_polyfill("refract")
def _refract(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    i, n, eta = (b.once(a) for a in e.args)
    s = _scalar(e.type)
    d = b.once(_call("dot", s, n(), i()))
    one = _const(s, 1.0)
    k = b.once(_bin("sub", one, _bin("mul", _bin("mul", eta(), eta()), _bin("sub", one, _bin("mul", d(), d())))))
    neg = _cmp("lt", k(), _const(s, 0.0))
    scale = _bin("add", _bin("mul", eta(), d()), _call("sqrt", s, k()))
    value = _bin("sub", _bin("mul", _splat(e.type, eta()), i()), _bin("mul", _splat(e.type, scale), n()))
    return ir.Select(_splat(_with_scalar(e.type, ir.BOOL), neg), _const(e.type, 0.0), value, e.type)


@_polyfill("faceforward")
def _faceforward(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    n_, i, ng = e.args
    n = b.once(n_)
    s = _scalar(e.type)
    flip = _cmp("lt", _call("dot", s, i, ng), _const(s, 0.0))
    return ir.Select(_splat(_with_scalar(e.type, ir.BOOL), flip), n(), ir.Unary("neg", n(), e.type), e.type)


@_polyfill("determinant")
def _determinant(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    m = b.once(e.args[0])
    t = _matrix(e.args[0].type)
    s = t.elem
    row_t = ir.vec(s, t.cols)

    def at(r: int, c: int) -> ir.Expr:
        row = ir.Extract(m(), r, row_t)
        return row if t.cols == 1 else ir.Extract(row, c, s)      # a 1x1 matrix's row is its scalar

    def det(rows: list[int], cols: list[int]) -> ir.Expr:
        if len(rows) == 1:
            return at(rows[0], cols[0])
        if len(rows) == 2:
            (r0, r1), (c0, c1) = rows, cols
            return _bin("sub", _bin("mul", at(r0, c0), at(r1, c1)), _bin("mul", at(r0, c1), at(r1, c0)))
        acc: ir.Expr | None = None
        for j, c in enumerate(cols):
            term = _bin("mul", at(rows[0], c), det(rows[1:], cols[:j] + cols[j + 1:]))
            acc = term if acc is None else _bin("sub" if j % 2 else "add", acc, term)
        assert acc is not None
        return acc
    return det(list(range(t.rows)), list(range(t.cols)))


def _as(e: ir.Expr, t: ir.Type) -> ir.Expr:
    return e if e.type == t else ir.Convert(e, t)


def _components(b: _Fn, e: ir.Expr) -> list[ir.Expr]:
    """e's scalar components, row by row (e evaluated once)."""
    t = e.type
    if isinstance(t, ir.Scalar):
        return [e]
    v = b.once(e)
    if isinstance(t, ir.Vector):
        return [ir.Extract(v(), i, t.elem) for i in range(t.size)]
    t = _matrix(t)
    return [_element(v(), t, r, c) for r in range(t.rows) for c in range(t.cols)]


def _element(m: ir.Expr, t: ir.Matrix, r: int, c: int) -> ir.Expr:
    """m[r][c]: a row of an Rx1 matrix is its scalar (the IR's row type is ir.vec(elem, cols))."""
    row = ir.Extract(m, r, ir.vec(t.elem, t.cols))
    return row if t.cols == 1 else ir.Extract(row, c, t.elem)


@_polyfill("sign")
def _sign(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    """(x > 0) - (x < 0), as integers."""
    x = b.once(e.args[0])
    zero = _const(e.args[0].type, 0)
    return _bin("sub", _as(_cmp("gt", x(), zero), e.type), _as(_cmp("lt", x(), zero), e.type), e.type)


@_polyfill("all", "any")
def _all_any(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    x = e.args[0]
    bits = _components(b, _as(x, _with_scalar(x.type, ir.BOOL)))
    acc = bits[0]
    for bit in bits[1:]:
        acc = _bin("land" if e.name == "all" else "lor", acc, bit, ir.BOOL)
    return acc


@_polyfill("and", "or")
def _and_or(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    x, y = (_as(a, e.type) for a in e.args)
    return _bin("land" if e.name == "and" else "lor", x, y, e.type)


@_polyfill("transpose")
def _transpose(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    m = b.once(e.args[0])
    t = _matrix(e.args[0].type)
    out_row = ir.vec(t.elem, t.rows)
    rows: list[list[ir.Expr]] = [[_element(m(), t, r, c) for r in range(t.rows)] for c in range(t.cols)]
    return ir.Construct(e.type, [ir.Construct(out_row, r) if t.rows > 1 else r[0] for r in rows])


@_polyfill("lit")
def _lit(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    """lit(n.l, n.h, m) = (1, max(n.l, 0), (n.l < 0 || n.h < 0) ? 0 : pow(n.h, m), 1)."""
    ndl_, ndh_, m = e.args
    ndl, ndh = b.once(ndl_), b.once(ndh_)
    f = ir.FLOAT
    zero, one = ir.Const(f, 0.0), ir.Const(f, 1.0)
    diffuse = _call("max", f, ndl(), ir.Const(f, 0.0))
    dark = _bin("lor", _cmp("lt", ndl(), zero), _cmp("lt", ndh(), ir.Const(f, 0.0)), ir.BOOL)
    spec = ir.Select(dark, ir.Const(f, 0.0), _call("pow", f, ndh(), m), f)
    return ir.Construct(e.type, [one, diffuse, spec, ir.Const(f, 1.0)])


@_polyfill("dst")
def _dst(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    """dst(a, b) = (1, a.y * b.y, a.z, b.w) (the distance vector of the fixed-function pipeline), of the
    arguments' kind."""
    x, y = (b.once(a) for a in e.args)
    f = _scalar(e.type)
    c = lambda v, i: ir.Extract(v(), i, f)  # noqa: E731
    return ir.Construct(e.type, [_const(f, 1), _bin("mul", c(x, 1), c(y, 1)), c(x, 2), c(y, 3)])


@_polyfill("D3DCOLORtoUBYTE4")
def _d3dcolor_to_ubyte4(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    """int4(x.zyxw * 255.001953): BGRA float color to bytes, as D3D defines it."""
    (v,) = e.args
    f4 = ir.Vector(ir.FLOAT, 4)
    scaled = _bin("mul", ir.Swizzle(v, (2, 1, 0, 3), f4), ir.Const(f4, (255.001953,) * 4))
    return ir.Convert(scaled, e.type)


@_polyfill("msad4")
def _msad4(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    """msad4(reference, source, accum): for each of 4 byte offsets i, accum[i] + the sum over the
    reference's non-zero bytes j of |ref_j - src_(i+j)|, src being the 8 bytes of source.xy."""
    ref, src, acc = (b.once(a) for a in e.args)
    u = ir.UINT
    k = lambda n: ir.Const(u, n)  # noqa: E731

    def byte(word: ir.Expr, shift: int) -> ir.Expr:
        return _bin("bitand", _bin("shr", word, k(shift)) if shift else word, k(255))

    def src_byte(n: int) -> ir.Expr:
        return byte(ir.Extract(src(), n // 4, u), 8 * (n % 4))

    parts = []
    for i in range(4):
        total: ir.Expr = ir.Extract(acc(), i, u)
        for j in range(4):
            r, s = byte(ref(), 8 * j), src_byte(i + j)
            diff = ir.Select(_cmp("gt", r, s), _bin("sub", r, s), _bin("sub", s, r), u)
            term = ir.Select(_cmp("eq", r, k(0)), k(0), diff, u)
            total = _bin("add", total, term)
        parts.append(total)
    return ir.Construct(e.type, parts)


# ------------------------------------------------------------------ packed bytes (SM 6.4 / 6.6)
def _k(n: int, t: ir.Scalar = ir.UINT) -> ir.Expr:
    return ir.Const(t, n)


def _byte(word: Callable[[], ir.Expr], i: int, signed: bool) -> ir.Expr:
    """Byte i of a packed uint: zero-extended, or sign-extended as an int."""
    if not signed:
        return _bin("bitand", _bin("shr", word(), _k(8 * i)) if i else word(), _k(255))
    high = _bin("shl", word(), _k(24 - 8 * i)) if i < 3 else word()
    return _bin("shr", ir.Bitcast(high, ir.INT), _k(24, ir.INT))


@_polyfill("dot4add_u8packed", "dot4add_i8packed")
def _dot4add(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    """acc + the sum of the products of the four byte pairs (unsigned, or signed bytes and sum)."""
    x, y = b.once(e.args[0]), b.once(e.args[1])
    signed = e.name == "dot4add_i8packed"
    total = e.args[2]
    for i in range(4):
        total = _bin("add", total, _bin("mul", _byte(x, i, signed), _byte(y, i, signed)))
    return total


@_polyfill("dot2add")
def _dot2add(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    """acc + a.x * b.x + a.y * b.y, the products and sum in float."""
    x, y = (b.once(ir.Convert(a, ir.Vector(ir.FLOAT, 2)) if _scalar(a.type) != ir.FLOAT else a) for a in e.args[:2])
    c = lambda v, i: ir.Extract(v(), i, ir.FLOAT)  # noqa: E731
    return _bin("add", _bin("add", e.args[2], _bin("mul", c(x, 0), c(y, 0))), _bin("mul", c(x, 1), c(y, 1)))


@_polyfill("pack_u8", "pack_s8", "pack_clamp_u8", "pack_clamp_s8")
def _pack(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    """The low byte of each component (clamped to [0, 255] / [-128, 127] first by the _clamp forms), x in the
    lowest byte."""
    (v,) = e.args
    s = _scalar(v.type)
    if e.name.startswith("pack_clamp"):
        lo, hi = (0, 255) if e.name.endswith("u8") else (-128, 127)
        v = _call("min", v.type, _call("max", v.type, v, _const(v.type, lo)), _const(v.type, hi))
    wide = ir.Vector(ir.INT if s.kind == "int" else ir.UINT, 4)
    if s.width != 32:
        v = ir.Convert(v, wide)
    if wide.elem.kind == "int":
        v = ir.Bitcast(v, ir.Vector(ir.UINT, 4))
    w = b.once(v)
    out: ir.Expr | None = None
    for i in range(4):
        part = _bin("bitand", ir.Extract(w(), i, ir.UINT), _k(255))
        part = _bin("shl", part, _k(8 * i)) if i else part
        out = part if out is None else _bin("bitor", out, part)
    assert out is not None
    return out


@_polyfill("unpack_u8u32", "unpack_s8s32", "unpack_u8u16", "unpack_s8s16")
def _unpack(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    """The four bytes, zero- or sign-extended to the result's components."""
    w = b.once(e.args[0])
    signed = e.name.startswith("unpack_s")
    parts = [_byte(w, i, signed) for i in range(4)]
    wide = ir.Vector(ir.INT if signed else ir.UINT, 4)
    value: ir.Expr = ir.Construct(wide, parts)
    return value if e.type == wide else ir.Convert(value, e.type)


@_polyfill("QuadAny", "QuadAll")
def _quad_vote(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    """The condition of the four lanes of the quad combined (DXC's SPIR-V without SPV_KHR_quad_control reads
    them with quad swaps the same way), as a uint through the quad reads."""
    u = b.once(ir.Select(e.args[0], _k(1), _k(0), ir.UINT))
    op = "bitor" if e.name == "QuadAny" else "bitand"
    total = u()
    for read in ("QuadReadAcrossX", "QuadReadAcrossY", "QuadReadAcrossDiagonal"):
        total = _bin(op, total, _call(read, ir.UINT, u()))
    return _cmp("ne", total, _k(0))


# ------------------------------------------------------------------ SM 6.5 partitioned wave operations
_UINT4 = ir.Vector(ir.UINT, 4)


def _get(v: ir.Variable) -> ir.Expr:
    return ir.Load(ir.VarRef(v), v.type)


@_polyfill("WaveMatch")
def _wave_match(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    """A loop over the distinct values (SPIR-V has no portable WaveMatch; DXC's needs
    SPV_NV_shader_subgroup_partitioned): the lanes equal to the first active lane's value take the ballot
    of themselves and leave, until none is left.  Values compare as bits, so a NaN matches itself."""
    t = e.args[0].type
    s = _scalar(t)
    bits_t = _with_scalar(t, ir.Scalar("uint", s.width))
    key = b.local(bits_t, ir.Bitcast(e.args[0], bits_t) if s.kind != "uint" else e.args[0])
    out = b.local(_UINT4)
    same = _cmp("eq", _get(key), _call("WaveReadLaneFirst", bits_t, _get(key)))
    if isinstance(bits_t, (ir.Vector, ir.Matrix)):     # every component equal
        same = _call("all", ir.BOOL, same)
    take = [ir.Store(ir.VarRef(out), _call("WaveActiveBallot", _UINT4, ir.Const(ir.BOOL, True))), ir.Break()]
    b.pre.append(ir.Loop([ir.If(same, take, [])]))
    return _get(out)


_MULTI_PREFIX = {"WaveMultiPrefixSum": ("add", 0), "WaveMultiPrefixProduct": ("mul", 1),
                 "WaveMultiPrefixBitAnd": ("bitand", -1), "WaveMultiPrefixBitOr": ("bitor", 0),
                 "WaveMultiPrefixBitXor": ("bitxor", 0), "WaveMultiPrefixCountBits": ("add", 0)}


@_polyfill(*_MULTI_PREFIX)
def _wave_multi_prefix(b: _Fn, e: ir.Intrinsic) -> ir.Expr:
    """op over the active lanes below this one that are in its mask: every lane reads each lane j of the
    wave in turn (a uniform loop, so WaveReadLaneAt's lane is uniform) and keeps the ones it includes."""
    op, identity = _MULTI_PREFIX[e.name]
    value, mask = e.args
    if e.name == "WaveMultiPrefixCountBits":
        value = ir.Select(value, _k(1), _k(0), ir.UINT)
    t = value.type
    s = _scalar(t)
    if identity == -1:
        identity = (1 << s.width) - 1 if s.kind == "uint" else -1
    v = b.local(t, value)
    lanes = b.local(_UINT4, _bin("bitand", mask, _call("WaveActiveBallot", _UINT4, ir.Const(ir.BOOL, True))))
    me = b.local(ir.UINT, _call("WaveGetLaneIndex", ir.UINT))
    acc = b.local(t, _const(t, identity))
    j = b.local(ir.UINT, _k(0))
    x = b.local(t)
    word = ir.Load(ir.IndexRef(ir.VarRef(lanes), _bin("shr", _get(j), _k(5)), ir.UINT), ir.UINT)
    bit = _bin("bitand", _bin("shr", word, _bin("bitand", _get(j), _k(31))), _k(1))
    keep = _bin("land", _cmp("lt", _get(j), _get(me)), _cmp("ne", bit, _k(0)), ir.BOOL)
    body: list[ir.Stmt] = [
        ir.If(_cmp("ge", _get(j), _call("WaveGetLaneCount", ir.UINT)), [ir.Break()], []),
        ir.Store(ir.VarRef(x), _call("WaveReadLaneAt", t, _get(v), _get(j))),
        ir.If(keep, [ir.Store(ir.VarRef(acc), _bin(op, _get(acc), _get(x)))], []),
    ]
    b.pre.append(ir.Loop(body, [ir.Store(ir.VarRef(j), _bin("add", _get(j), _k(1)))]))
    return _get(acc)


# ------------------------------------------------------------------ the walk
def run(module: ir.Module, names: Iterable[str]) -> None:
    """Expand every intrinsic named in `names` in every function of `module`, in place."""
    fns = ir.functions_calling(module, frozenset(names) & POLYFILLS.keys())
    ir.forget_exprs(module)     # the rewriting walk changes bodies in place
    rewrite(fns, names)


def rewrite(fns: list[ir.Function], names: Iterable[str]) -> None:
    """Expand the intrinsics named in `names` in `fns`, the functions found calling one
    (ir.functions_calling: the pipeline searches before it imports this module)."""
    wanted = frozenset(names) & POLYFILLS.keys()
    for fn in fns:
        _Walk(fn, wanted).stmts(fn.body)    # (the search costs less than this rewriting walk)


# per expression class, the fields that can hold expressions (never: types, operators, names, ...)
_DATA_FIELDS = frozenset({"type", "op", "name", "comps", "spec_id", "loc", "var", "func", "precise"})
_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields_of(cls: type) -> tuple[str, ...]:
    leaf = issubclass(cls, (ir.Const, ir.SpecConst))
    fields = _FIELDS[cls] = () if leaf else tuple(f for f in getattr(cls, "_fields", ()) if f not in _DATA_FIELDS)
    return fields


class _Walk:
    def __init__(self, fn: ir.Function, wanted: frozenset[str]) -> None:
        self.b = _Fn(fn)
        self.wanted = wanted
        # a node shared within a statement is rewritten once (the node is kept, so its id stays unique)
        self.done: dict[int, tuple[ir.Expr, ir.Expr]] = {}
        self.loc: SourceLoc | None = None     # the statement being rewritten: its temporaries' stores take its line

    def expr(self, e: ir.Expr) -> ir.Expr:
        fields = _FIELDS.get(type(e))
        if fields is None:
            fields = _fields_of(type(e))
        if not fields:                                   # a leaf (Const, VarRef, ...)
            return e
        hit = self.done.get(id(e))
        if hit is None:
            hit = self.done[id(e)] = (e, self._expr(e, fields))
        return hit[1]

    def _expr(self, e: ir.Expr, fields: tuple[str, ...]) -> ir.Expr:
        for f in fields:
            v = getattr(e, f)
            if isinstance(v, ir.Expr):
                nv = self.expr(v)
                if nv is not v:
                    object.__setattr__(e, f, nv)
            elif isinstance(v, list):
                for i, x in enumerate(v):
                    if isinstance(x, ir.Expr):
                        v[i] = self.expr(x)
        if isinstance(e, ir.Intrinsic) and e.name in self.wanted:
            return self.expr(POLYFILLS[e.name](self.b, e))   # an expansion may use other polyfilled names
        return e

    def hoisted(self, e: ir.Expr, out: list[ir.Stmt]) -> ir.Expr:
        """e rewritten; the stores of its temporaries go to `out`."""
        r = self.expr(e)
        for p in self.b.pre:
            setattr(p, "loc", self.loc)  # noqa: B010 - the pre statements are Stores (Stmt declares no loc)
        out += self.b.pre
        self.b.pre = []
        self.done.clear()
        return r

    def stmts(self, body: list[ir.Stmt]) -> None:
        out: list[ir.Stmt] = []
        for s in body:
            self.loc = getattr(s, "loc", None)
            if isinstance(s, ir.Store):
                s.place = self.hoisted(s.place, out)
                s.value = self.hoisted(s.value, out)
            elif isinstance(s, ir.Eval):
                s.expr = self.hoisted(s.expr, out)
            elif isinstance(s, ir.Return) and s.value is not None:
                s.value = self.hoisted(s.value, out)
            elif isinstance(s, ir.If):
                s.cond = self.hoisted(s.cond, out)
                self.stmts(s.then)
                self.stmts(s.else_)
            elif isinstance(s, ir.Switch):
                s.selector = self.hoisted(s.selector, out)
                for c in s.cases:
                    self.stmts(c.body)
            elif isinstance(s, ir.Loop):
                self.stmts(s.body)
                self.stmts(s.continuing)
                if s.break_if is not None:
                    self.loc = s.loc
                    s.break_if = self.hoisted(s.break_if, s.continuing)
            out.append(s)
        body[:] = out
