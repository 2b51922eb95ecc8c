"""HLSL's implicit conversions and the usual arithmetic conversions.

Ranks follow DXC: bool < int < uint < half < float < double for the component
kind of a binary operation; shapes splat scalars and truncate vectors.
"""

from __future__ import annotations

from ... import ir

KIND_RANK = {("bool", 32): 0, ("int", 16): 1, ("uint", 16): 2, ("int", 32): 3, ("uint", 32): 4,
             ("int", 64): 5, ("uint", 64): 6, ("float", 16): 7, ("float", 32): 8, ("float", 64): 9}


def rank(s: ir.Scalar) -> int:
    return KIND_RANK[(s.kind, s.width)]


def common_scalar(a: ir.Scalar, b: ir.Scalar, a_literal: bool = False, b_literal: bool = False) -> ir.Scalar:
    """Component type of a binary arithmetic operation.

    An unsuffixed literal adopts the other operand's type (DXC's "literal int/
    float"), except that a float literal with an integer operand yields float.
    """
    if a_literal and not b_literal:
        return ir.FLOAT if (a.is_float and not b.is_float) else b
    if b_literal and not a_literal:
        return ir.FLOAT if (b.is_float and not a.is_float) else a
    return a if rank(a) >= rank(b) else b


def shape_of(t: ir.Type) -> tuple:
    """('s',) scalar, ('v', n) vector, ('m', r, c) matrix.  (Exact class tests: see ir.scalar_of.)"""
    cls = t.__class__
    if cls is ir.Scalar:
        return ("s",)
    if cls is ir.Vector:
        return ("v", t.size)  # type: ignore[attr-defined]
    if cls is ir.Matrix:
        return ("m", t.rows, t.cols)  # type: ignore[attr-defined]
    return ("x",)


def with_scalar(t: ir.Type, s: ir.Scalar) -> ir.Type:
    """The same shape as t with component type s."""
    if isinstance(t, ir.Scalar):
        return s
    if isinstance(t, ir.Vector):
        return ir.Vector(s, t.size)
    if isinstance(t, ir.Matrix):
        return ir.Matrix(s, t.rows, t.cols)
    raise TypeError(t)


def _components(sh: tuple) -> int:
    return 1 if sh[0] == "s" else sh[1] if sh[0] == "v" else sh[1] * sh[2]


def shape_accepts(target: tuple, source: tuple) -> bool:
    """Whether a value of shape `source` implicitly takes shape `target` in a
    binary operation (DXC's dimension rules for operands).

    A single component splats anywhere and anything truncates to one component;
    a vector truncates to a shorter vector, a matrix to a smaller matrix; a
    vector and a matrix meet when their component counts agree, or when the
    matrix has one row/column and the vector side is the shorter one."""
    nt, ns = _components(target), _components(source)
    if target == source or ns == 1 or nt == 1:
        return True
    if target[0] == "v" and source[0] == "v":
        return nt < ns
    if target[0] == "m" and source[0] == "m":
        return target[1] <= source[1] and target[2] <= source[2]
    matrix = target if target[0] == "m" else source
    return nt == ns or (matrix[1] == 1 or matrix[2] == 1) and nt < ns


def common_shape(a: ir.Type, b: ir.Type) -> tuple[ir.Type | None, bool]:
    """The shape both operands convert to and whether a truncation happened.

    DXC prefers the operand with more components (the left one on a tie) as
    the result shape, if the other converts to it; else the other operand's
    shape, if the first converts to that.  Returns a type whose component is a
    placeholder; None when neither converts (`float3 + float2x2`)."""
    sa, sb = shape_of(a), shape_of(b)
    if sa == sb:
        return a, False
    first, second = (a, b) if _components(sa) >= _components(sb) else (b, a)
    for target, source in ((first, second), (second, first)):
        st, ss = shape_of(target), shape_of(source)
        if shape_accepts(st, ss):
            return target, _components(ss) > _components(st)
    return None, False


def conversion_cost(src: ir.Type, dst: ir.Type, literal: bool = False) -> int | None:
    """Ranking for overload resolution: 0 exact, 1 promotion/literal, 2 conversion,
    3 splat, 4 truncation; None if not implicitly convertible."""
    if src == dst:
        return 0
    if isinstance(src, ir.Resource) and src.kind.endswith("DescriptorHeap") and isinstance(dst, ir.Resource):
        return 2        # a heap element (sema/heaps.py) converts to any resource type of its heap
    ss, sd = ir.scalar_of(src), ir.scalar_of(dst)
    if isinstance(src, (ir.Struct, ir.Array, ir.Resource)) or isinstance(dst, (ir.Struct, ir.Array, ir.Resource)):
        return None
    if ss is None or sd is None:
        return None
    shp_s, shp_d = shape_of(src), shape_of(dst)
    if ss == sd:
        kind_cost = 0
    elif literal and (ss.kind == "int" and sd.kind == "uint" and ss.width == sd.width or ss.is_float and sd.is_float):
        # DXC's literal int is as good an int as a uint, its literal float any float type: f(int)/f(uint) with
        # `3`, f(float)/f(double) with `1.5` are ambiguous
        kind_cost = 0
    elif literal:
        kind_cost = 1
    elif ss.kind == sd.kind and sd.width > ss.width or (ss.is_int and sd.is_int and ss.width == sd.width):
        kind_cost = 1 if ss.kind == sd.kind else 2
    else:
        kind_cost = 2
    if shp_s == shp_d:
        return kind_cost
    if shp_s[0] == "s":
        return 3 + kind_cost
    if shp_s[0] == "v" and shp_d[0] == "s":
        return 6 + kind_cost
    if shp_s[0] == "v" and shp_d[0] == "v" and shp_d[1] < shp_s[1]:
        return 6 + kind_cost
    if shp_s[0] == "m" and shp_d[0] == "m" and shp_d[1] <= shp_s[1] and shp_d[2] <= shp_s[2]:
        return 6 + kind_cost
    if shp_s[0] == "m" and shp_d[0] == "s":
        return 6 + kind_cost
    # 1xN / Nx1 matrix <-> vector
    if shp_s[0] == "m" and shp_d[0] == "v" and (shp_s[1] == 1 or shp_s[2] == 1) and shp_s[1] * shp_s[2] == shp_d[1]:
        return 2 + kind_cost
    if shp_s[0] == "v" and shp_d[0] == "m" and (shp_d[1] == 1 or shp_d[2] == 1) and shp_d[1] * shp_d[2] == shp_s[1]:
        return 2 + kind_cost
    if shape_accepts(shp_d, shp_s):     # the rest of DXC's implicit shape changes (float1 splat, float2x2 -> float4, ...)
        n_s, n_d = _components(shp_s), _components(shp_d)
        return (2 if n_s == n_d else 3 if n_s == 1 else 6) + kind_cost
    return None


# ---------------------------------------------------------------- overload ranking (DXC's ScoreCast)
# A component kind for ranking: (class 'bool' | 'int' | 'float', bits (0 for a literal or bool), unsigned, literal).
_Kind = tuple[str, int, bool, bool]

# The ranks of one argument's conversion, worst first.  DXC scores each argument with these flags (as bits of
# one number, spaced so that sums of up to 128 arguments never carry) and adds the arguments' scores: the
# candidate with the least sum wins, and a tie is ambiguous.  Summed flag counts compared worst first are that.
SCORE_FLAGS = ("truncation", "cast_from_argument", "cast_to_parameter", "int_cast_from_argument",
               "int_cast_to_parameter", "promotion_from_argument", "promotion_to_parameter", "splat")


def _kind(s: ir.Scalar, literal: bool) -> _Kind:
    cls = "bool" if s.kind == "bool" else "float" if s.is_float else "int"
    if literal and cls != "bool":
        return (cls, 0, False, True)
    return (cls, 0 if cls == "bool" else s.width, s.kind == "uint", False)


def _combine(a: _Kind, b: _Kind) -> _Kind:
    """The kind two component kinds meet in (DXC's usual arithmetic conversion of element kinds)."""
    if a == b:
        return a
    if a[0] == b[0] == "bool":
        return a
    is_float = "float" in (a[0], b[0])
    if a[3] and b[3]:
        return ("float" if is_float else "int", 0, False, True)
    if is_float and not (a[0] == b[0] == "float"):
        side = a if a[0] == "float" else b           # int with float: the float side's kind, not literal
        return ("float", side[1] or 32, False, False)
    bits = max(a[1], b[1]) or 32
    return ("float" if is_float else "int", bits, not is_float and (a[2] or b[2]), False)


def _promotes(to: _Kind, frm: _Kind) -> bool:
    """frm widens to `to` without loss: a wider float from a float, a wider int from an int (either sign)."""
    if to == frm or to[3] or frm[3] or "bool" in (to[0], frm[0]) or to[0] != frm[0]:
        return False
    return to[1] > frm[1]


def _casts(to: _Kind, frm: _Kind) -> bool:
    """A conversion that is neither exact nor a sign change of ints of one width nor a literal's adoption."""
    if to == frm:
        return False
    if to[3]:        # to a literal kind: a literal int from any int, a literal float from any float
        return not (to[0] == frm[0] and to[0] != "bool" and (to[0] == "float" or not frm[3]))
    if to[0] == "int":
        return not (frm[0] == "int" and (frm[3] or frm[1] == to[1]))
    if to[0] == "float":
        return not (frm[0] == "float" and frm[3])
    return True


def _int_casts(to: _Kind, frm: _Kind) -> bool:
    """Ints of one class that differ (in sign): anything but a literal's adoption."""
    if to == frm:
        return False
    if to[3]:
        return not (to[0] == frm[0] and to[0] != "bool")
    if to[0] in ("int", "float"):
        return not (frm[3] and frm[0] == to[0])
    return True


def overload_score(src: ir.Type, dst: ir.Type, literal: bool = False) -> tuple[int, ...]:
    """One argument's flags (SCORE_FLAGS order, 0 or 1 each) for converting a `src` argument to a `dst` parameter
    whose conversion is legal, as DXC ranks it (SemaHLSL's ScoreCast, read for its rules)."""
    if src == dst and not literal:
        return (0,) * len(SCORE_FLAGS)
    ss, sd = ir.scalar_of(src), ir.scalar_of(dst)
    assert ss is not None and sd is not None
    n_src, n_dst = _components(shape_of(src)), _components(shape_of(dst))
    p, a = _kind(sd, False), _kind(ss, literal)
    c = _combine(p, a)
    lp, ap = _promotes(p, c), _promotes(c, a)
    lc = not lp and _casts(p, c)
    rc = not ap and _casts(c, a)
    li = not lp and not lc and _int_casts(p, c)
    ri = not ap and not rc and _int_casts(c, a)
    return (int(n_dst < n_src), int(rc), int(lc), int(ri), int(li), int(ap), int(lp), int(n_src < n_dst))
