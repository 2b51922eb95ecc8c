"""Expression lowering: typing, implicit conversions, places and swizzles."""

from __future__ import annotations

import math

from ... import ir
from ...diagnostics import CompileError, Diagnostic, SourceLoc, error
from ...ir.d3d_numerics import float_to_int, int_div, int_mod, int_to_float, round_float
from ...ir.resource_kinds import KINDS
from .. import ast
from .base import SemaBase
from .coherence import place_coherence, warn_mismatch
from .conversions import common_scalar, common_shape, shape_accepts, shape_of, with_scalar
from .heaps import HeapElement, HeapLowering
from .scope import (
    EnumConstSymbol,
    FuncSymbol,
    SpecConstSymbol,
    StringSymbol,
    SubobjectSymbol,
    TypeSymbol,
    VarSymbol,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

_SWIZZLE_SETS = ("xyzw", "rgba")
# (swizzle, vector size) -> its components: a pure result, remembered (at most 2 x 340 names per size)
_SWIZZLE_COMPS: dict[tuple[str, int], tuple[int, ...]] = {}

ARITH_OPS = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "mod"}
BIT_OPS = {"&": "bitand", "|": "bitor", "^": "bitxor", "<<": "shl", ">>": "shr"}
CMP_OPS = {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}


def const_of(t: ir.Type, v) -> ir.Const:
    return ir.Const(t, v)


FLOAT_MAX = {16: 65504.0, 32: 3.4028234663852886e38, 64: float("inf")}
HLSL_202X = 2029        # options.hlsl_version of -HV 202x (cli._HLSL_VERSIONS)


def scalar_value(s: ir.Scalar, v):
    """Coerce a Python number to the representation of scalar type s (C conversion
    rules; a float is rounded to its width, infinity beyond its range)."""
    if s.kind == "bool":
        return bool(v)
    if s.kind == "float":
        if isinstance(v, int) and not isinstance(v, bool):
            return int_to_float(v, s.width)
        return round_float(float(v), s.width)
    if isinstance(v, float):          # D3D's saturating ftoi/ftou, as at run time
        return float_to_int(v, s.kind, s.width)
    iv = int(v)
    bits = s.width
    iv &= (1 << bits) - 1
    if s.kind == "int" and iv >= 1 << (bits - 1):
        iv -= 1 << bits
    return iv


# the largest finite and the least positive value, as clang's APFloat::toString prints them in its warnings
_DOUBLE_RANGE = ("1.7976931348623157E+308", "4.9406564584124654E-324")
_FLOAT_RANGE = ("3.40282347E+38", "1.40129846E-45")


def literal_int(v: int) -> ir.Const:
    """An integer literal's constant: int, or a 64-bit int when the value does not fit in 32 bits."""
    return ir.Const(ir.INT if -0x80000000 <= v <= 0x7FFFFFFF else ir.INT64, v)


def _plain_int(e: ast.Expr) -> bool:
    """An integer literal without a suffix: it takes the type of the other operand."""
    return isinstance(e, ast.IntLit) and not e.suffix


def _check_increment(t: ir.Type, loc: SourceLoc) -> None:
    """`++`/`--` need a numeric, non-bool place (DXC's words for a bool)."""
    if ir.is_numeric(t) and ir.scalar_of(t) == ir.BOOL:
        raise error("operator cannot be used with a bool lvalue", loc)
    if not ir.is_numeric(t):
        raise error(f"cannot increment value of type '{t}'", loc)


def _fits(x: ir.Expr, to: ir.Scalar) -> bool:
    """A constant whose every component is in `to`'s range (DXC does not warn about its narrowing)."""
    if not isinstance(x, ir.Const):
        return False
    values = x.value if isinstance(x.value, tuple) else (x.value,)
    for v in values:
        if isinstance(v, tuple) or not isinstance(v, (int, float)):
            return False
        if to.is_float:
            if math.isfinite(v) and abs(v) > FLOAT_MAX[to.width]:
                return False
        elif not (isinstance(v, int) or float(v).is_integer()):
            return False
        else:
            lo, hi = (-(1 << (to.width - 1)), (1 << (to.width - 1)) - 1) if to.kind == "int" else (0, (1 << to.width) - 1)
            if not lo <= v <= hi:
                return False
    return True


_ROW0, _ROW1 = frozenset("0123"), frozenset("1234")      # digits of `_mRC` and of `_RC`


def matrix_swizzle_pairs(name: str) -> list[tuple[int, int]] | None:
    """(row, column) of each element a matrix swizzle names, zero-based: `_m01_m10` or `_12_21`; None if
    `name` is neither.  String tests, not a regular expression (`re` costs a cold compile ~20 M
    instructions, issue 23; tests/front/test_matrix_swizzle_names.py compares them with the patterns)."""
    if name[:2] == "_m":
        if len(name) % 4 or not all(name[i:i + 2] == "_m" and name[i + 2] in _ROW0 and name[i + 3] in _ROW0
                                    for i in range(0, len(name), 4)):
            return None
        return [(int(name[i + 2]), int(name[i + 3])) for i in range(0, len(name), 4)]
    if not name or len(name) % 3 or not all(name[i] == "_" and name[i + 1] in _ROW1 and name[i + 2] in _ROW1
                                            for i in range(0, len(name), 3)):
        return None
    return [(int(name[i + 1]) - 1, int(name[i + 2]) - 1) for i in range(0, len(name), 3)]


class ExprLowering(HeapLowering, SemaBase):
    """Mixin of Analyzer: lowers ast expressions to IR expressions."""

    # ---------------------------------------------------------------- helpers
    def lit(self, e: ir.Const) -> ir.Const:
        self.literals[id(e)] = e   # keeps e alive, so its id is never reused
        return e

    def is_literal(self, e: ir.Expr) -> bool:
        return id(e) in self.literals

    def load(self, place: ir.Expr) -> ir.Expr:
        return ir.Load(place, place.type)

    def warn(self, msg: str, loc: SourceLoc) -> None:
        self.sink.warning(msg, loc)

    def undeclared(self, name: str, loc: SourceLoc) -> CompileError:
        if name == "this":          # (a method's `this` is a declared name)
            return error("invalid use of 'this' outside of a non-static member function", loc)
        owner, _, member = name.rpartition("::")
        st = self.types.named.get(owner) if owner else None
        if isinstance(st, ir.Struct):       # `S::a`, `S::f()` name members that need an object (clang's words)
            if any(f.name == member for f in st.fields):
                return error(f"invalid use of non-static data member '{member}'", loc)
            if member in self.methods.get(owner, {}):
                return error("call to non-static member function without an object argument", loc)
        import difflib  # only for this error's hint: ~1 ms of every cold start otherwise

        from ...ir.intrinsics import INTRINSICS, SPECIAL

        candidates = self.scope.all_names() + list(INTRINSICS) + list(SPECIAL)
        close = difflib.get_close_matches(name, candidates, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        return error(f"use of undeclared identifier '{name}'{hint}", loc)

    # ---------------------------------------------------------------- conversions
    def convert(self, x: ir.Expr, to: ir.Type, loc: SourceLoc, explicit: bool = False, what: str = "") -> ir.Expr:
        if x.__class__ is HeapElement:      # (exact: cheaper than a failed isinstance)
            return self.heap_view_element(x, to, loc)
        src = x.type
        if src == to:
            if isinstance(x, ir.Const) and isinstance(to, ir.Scalar) and to.is_float and self.is_literal(x):
                return ir.Const(to, scalar_value(to, x.value))   # a literal used as a float: inf if out of range
            if explicit and isinstance(x, ir.Const) and self.is_literal(x):
                return ir.Const(to, x.value)    # `(int)1`, `int(1)`: an int, no literal adopting the other operand's type
            return x
        if isinstance(to, ir.Array) and isinstance(src, ir.Array):
            if to.size is not None and src.size is None:
                raise error(f"cannot convert '{src}' to '{to}'", loc)
            if to.elem == src.elem and (to.size is None or to.size == src.size):
                return x
        if isinstance(to, ir.Struct) and isinstance(src, ir.Struct) and self.derives_from(src, to):
            # derived to base: the base's fields are the derived struct's first ones
            x = self.stable(x)
            return ir.Construct(to, [ir.Extract(x, i, f.type) for i, f in enumerate(to.fields)])
        if isinstance(to, ir.Struct) or isinstance(src, (ir.Struct, ir.Array, ir.Resource)) or isinstance(to, (ir.Array, ir.Resource)):
            if explicit and ir.is_numeric(src) and isinstance(to, (ir.Struct, ir.Array)):
                return self.build_from_components(self.components(x, loc) * self.flat_count(to), to, loc) \
                    if self.flat_count(src) == 1 else self.build_from_components(self.components(x, loc), to, loc)
            if explicit and isinstance(src, (ir.Struct, ir.Array)) and (ir.is_numeric(to) or isinstance(to, (ir.Struct, ir.Array))):
                # DXC's flat conversion: `(T)s` between aggregates takes the source's leading components
                comps = self.components(x, loc)
                if len(comps) >= self.flat_count(to):
                    return self.build_from_components(comps[: self.flat_count(to)], to, loc)
            raise error(f"cannot convert from '{src}' to '{to}'{what}", loc)
        if isinstance(to, ir.VoidType) or isinstance(src, ir.VoidType):
            raise error(f"cannot convert from '{src}' to '{to}'{what}", loc)
        ss, sd = ir.scalar_of(src), ir.scalar_of(to)
        assert ss is not None and sd is not None     # both numeric: every other type was handled above
        shp_s, shp_d = shape_of(src), shape_of(to)
        if not explicit and sd.width < ss.width and sd.kind != "bool" and not self.is_literal(x) \
                and not _fits(x, sd):       # DXC's -Wconversion narrowing warning, in its words
            self.warn(f"conversion from larger type '{src}' to smaller type '{to}', possible loss of data", loc)
        # constant folding of scalar literals keeps literal typing precise
        if isinstance(x, ir.Const) and shp_s == ("s",):
            try:
                v = scalar_value(sd, x.value)
            except (OverflowError, ValueError):
                raise error(f"constant value {x.value} is out of range for type '{sd}'", loc) from None
            if not explicit and isinstance(v, int) and self.is_literal(x) and sd.is_int \
                    and not -(1 << (sd.width - 1)) <= x.value < 1 << sd.width:     # clang's -Wconstant-conversion
                self.warn(f"implicit conversion from 'literal int' to '{to}' changes value from {x.value} to {v}", loc)
            if shp_d == ("s",):
                return ir.Const(to, v)
            if shp_d[0] == "v":
                return ir.Const(to, (v,) * shp_d[1])
        if shp_s == ("m", 1, 1) and shp_d != ("s",):       # a 1x1 matrix converts as its one scalar
            assert isinstance(src, ir.Matrix)
            return self.convert(ir.Extract(x, 0, ss), to, loc, explicit, what)
        if shp_s == ("v", 1) and shp_d != ("s",):           # so does a one-component vector (DXC splats it)
            return self.convert(ir.Extract(x, 0, ss), to, loc, explicit, what)
        if shp_s != shp_d:
            if shp_s[0] == "s":
                x = self.convert(x, sd, loc, explicit)
                if shp_d[0] == "v":
                    return ir.Construct(to, [x] * shp_d[1])
                assert isinstance(to, ir.Matrix)
                row = ir.vec(sd, to.cols)
                r = ir.Construct(row, [x] * to.cols) if to.cols > 1 else x
                return ir.Construct(to, [r] * to.rows)
            if shp_s[0] == "v" and shp_d[0] == "s":
                if not explicit:
                    self.warn("implicit truncation of vector type", loc)
                return self.convert(ir.Swizzle(x, (0,), ss), to, loc, explicit)
            if shp_s[0] == "v" and shp_d[0] == "v" and shp_d[1] < shp_s[1]:
                if not explicit:
                    self.warn("implicit truncation of vector type", loc)
                return self.convert(ir.Swizzle(x, tuple(range(shp_d[1])), ir.Vector(ss, shp_d[1])), to, loc, explicit)
            if shp_s[0] == "m" and shp_d[0] == "m" and shp_d[1] <= shp_s[1] and shp_d[2] <= shp_s[2]:
                if not explicit:
                    self.warn("implicit truncation of matrix type", loc)
                assert isinstance(src, ir.Matrix) and isinstance(to, ir.Matrix)
                rows: list[ir.Expr] = [ir.Extract(x, r, ir.vec(ss, src.cols)) for r in range(to.rows)]
                rows = [ir.Swizzle(r, tuple(range(to.cols)), ir.vec(ss, to.cols)) if to.cols < src.cols else r for r in rows]
                if to.cols == 1:
                    rows = [ir.Extract(r, 0, ss) if isinstance(r.type, ir.Vector) else r for r in rows]
                return self.convert(ir.Construct(ir.Matrix(ss, to.rows, to.cols), rows), to, loc, explicit)
            if shp_s[0] == "m" and shp_d[0] == "s":
                if not explicit:
                    self.warn("implicit truncation of matrix type", loc)
                assert isinstance(src, ir.Matrix)
                return self.convert(ir.Extract(ir.Extract(x, 0, ir.vec(ss, src.cols)), 0, ss) if src.cols > 1 else ir.Extract(x, 0, ss), to, loc, explicit)
            # matrix <-> vector, as DXC (shape_accepts): the same number of components, or fewer taken from a
            # one-row/one-column matrix or into one (implicitly too, with DXC's warning), or one component;
            # a matrix never changes shape except by truncation (above)
            comps_s = ir.component_count(src)
            comps_d = ir.component_count(to)
            if shp_s[0] != shp_d[0] and shape_accepts(shp_d, shp_s):
                if comps_d < comps_s and not explicit:
                    self.warn("implicit truncation of vector type", loc)
                return self.build_from_components(self.components(x, loc)[:comps_d], to, loc)
            raise error(f"cannot convert from '{src}' to '{to}'{what}", loc)
        return ir.Convert(x, to)

    def components(self, x: ir.Expr, loc: SourceLoc) -> list[ir.Expr]:
        """The scalar components of a value in HLSL memory order (row-major for matrices)."""
        t = x.type
        if isinstance(t, ir.Scalar):
            return [x]
        if isinstance(t, ir.Vector):
            if isinstance(x, ir.Construct):
                out: list[ir.Expr] = []
                for p in x.parts:
                    out.extend(self.components(p, loc))
                return out
            if isinstance(x, ir.Const):
                return [ir.Const(t.elem, v) for v in x.value]
            x = self.stable(x)
            return [ir.Extract(x, i, t.elem) for i in range(t.size)]
        if isinstance(t, ir.Matrix):
            x = self.stable(x)
            out = []
            for r in range(t.rows):
                row = ir.Extract(x, r, ir.vec(t.elem, t.cols))
                out.extend(self.components(row, loc))
            return out
        if isinstance(t, ir.Array):
            x = self.stable(x)
            out = []
            for i in range(t.size or 0):
                out.extend(self.components(ir.Extract(x, i, t.elem), loc))
            return out
        if isinstance(t, ir.Struct) and t.name in self.bitfields:
            return self.bitfield_components(self.stable(x), t, loc)
        if isinstance(t, ir.Struct):
            x = self.stable(x)
            out = []
            for i, f in enumerate(t.fields):
                out.extend(self.components(ir.Extract(x, i, f.type), loc))
            return out
        raise error(f"cannot use a value of type '{t}' here", loc)

    def stable(self, x: ir.Expr) -> ir.Expr:
        """Evaluate x once into a temporary if it is not trivially re-evaluable."""
        if isinstance(x, (ir.Const,)) or (isinstance(x, ir.Load) and isinstance(x.place, ir.VarRef)):
            return x
        tmp = self.temp(x.type)
        self.emit(ir.Store(ir.VarRef(tmp), x))
        return self.load(ir.VarRef(tmp))

    def build_from_components(self, comps: list[ir.Expr], t: ir.Type, loc: SourceLoc) -> ir.Expr:
        """Rebuild a value of type t from scalar components (initializer-list flattening)."""
        need = self.flat_count(t)
        if len(comps) != need:
            raise error(f"{'too few' if len(comps) < need else 'too many'} elements in initializer for type '{t}' "
                        f"(expected {need}, have {len(comps)})", loc)
        it = iter(comps)
        return self._build(it, t, loc)

    def _build(self, it, t: ir.Type, loc: SourceLoc) -> ir.Expr:
        if isinstance(t, ir.Scalar):
            return self.convert(next(it), t, loc)
        if isinstance(t, ir.Vector):
            parts = [self.convert(next(it), t.elem, loc) for _ in range(t.size)]
            consts = [p for p in parts if isinstance(p, ir.Const)]
            if len(consts) == len(parts):
                return ir.Const(t, tuple(p.value for p in consts))
            return ir.Construct(t, parts)
        if isinstance(t, ir.Matrix):
            rows = [self._build(it, ir.vec(t.elem, t.cols), loc) for _ in range(t.rows)]
            return ir.Construct(t, rows)
        if isinstance(t, ir.Array):
            return ir.Construct(t, [self._build(it, t.elem, loc) for _ in range(t.size or 0)])
        if isinstance(t, ir.Struct) and t.name in self.bitfields:
            return self.build_bitfield_struct(it, t, loc)
        if isinstance(t, ir.Struct):
            return ir.Construct(t, [self._build(it, f.type, loc) for f in t.fields])
        raise error(f"cannot initialize a value of type '{t}' from a list", loc)

    def init_value(self, init: ast.Expr, t: ir.Type, loc: SourceLoc) -> ir.Expr:
        """Initializer: `{...}` lists flatten; anything else converts implicitly."""
        if isinstance(init, ast.InitList) and isinstance(t, ir.Array) and _holds_resources(t):
            return self.resource_list(init, t)
        if isinstance(init, ast.InitList):
            comps: list[ir.Expr] = []
            for item in self.flatten_init(init):
                comps.extend(self.components(item, item_loc(init)))
            if isinstance(t, ir.Array) and t.size is None:
                per = self.flat_count(t.elem)
                if per == 0 or len(comps) % per:
                    raise error(f"cannot infer the size of '{t}' from the initializer", loc)
                t = ir.Array(t.elem, len(comps) // per)
            return self.build_from_components(comps, t, init.loc)
        value = self.rvalue(init)
        return self.convert(value, t, init.loc)

    def resource_list(self, init: ast.InitList, t: ir.Array) -> ir.Expr:
        """`RWBuffer<int> Arr[2] = {X, Y};` - resources do not flatten into components."""
        items: list[ir.Expr] = []
        for item in init.items:
            if isinstance(item, ast.InitList):
                if not isinstance(t.elem, ir.Array):
                    raise error("too many braces in resource array initializer", item.loc)
                items.append(self.resource_list(item, t.elem))
            else:
                v = self.rvalue(item)
                if isinstance(t.elem, ir.Array) and isinstance(v.type, ir.Array):
                    items.append(self.convert(v, t.elem, item.loc))
                else:
                    items.append(self.convert(v, t.elem, item.loc))
        if t.size is not None and len(items) != t.size:
            raise error(f"{'too few' if len(items) < t.size else 'too many'} elements in initializer for type '{t}' "
                        f"(expected {t.size}, have {len(items)})", init.loc)
        return ir.Construct(ir.Array(t.elem, len(items)), items)

    def flatten_init(self, init: ast.InitList) -> list[ir.Expr]:
        items: list[ast.Expr] = []
        todo = list(reversed(init.items))
        while todo:
            item = todo.pop()
            if isinstance(item, ast.InitList):
                todo.extend(reversed(item.items))
            else:
                items.append(item)
        return self.rvalues(items)

    # ---------------------------------------------------------------- rvalues
    def rvalue(self, e: ast.Expr) -> ir.Expr:
        method = getattr(self, "rv_" + type(e).__name__, None)
        if method is None:
            raise error("unsupported expression", e.loc)
        v = method(e)
        if type(v.type) is ir.RayQuery:
            raise error(f"a '{v.type}' is not a value: it cannot be copied, passed or returned; call its methods", e.loc)
        return v

    def rv_IntLit(self, e: ast.IntLit) -> ir.Expr:
        s = e.suffix
        if "u" in s:
            t = ir.UINT64 if "ll" in s else ir.UINT
        elif "ll" in s:
            t = ir.INT64
        elif s == "l":      # HLSL's long is 32 bits: int, else (C's rule, as DXC) uint or a 64-bit int; not a literal
            t = ir.INT if e.value <= 0x7FFFFFFF else ir.UINT if e.value <= 0xFFFFFFFF else ir.INT64
        elif self.options.hlsl_version >= HLSL_202X:
            # conforming literals (HLSL 202x, proposal 0017): no literal types; C's first type that holds the
            # value, from int and int64_t, or for a hexadecimal/octal one int, uint, int64_t and uint64_t
            kinds = (ir.INT, ir.INT64) if e.decimal else (ir.INT, ir.UINT, ir.INT64, ir.UINT64)
            t = next((k for k in kinds if e.value <= (1 << (k.width - (k.kind == "int"))) - 1), ir.UINT64)
            if e.value > (1 << (t.width - (t.kind == "int"))) - 1:
                raise error("integer literal is too large to be represented in any integer type", e.loc)
            if e.decimal and t is ir.UINT64:        # clang's C rule (SemaExpr.cpp ActOnNumericConstant)
                self.warn("integer literal is too large to be represented in a signed integer type, interpreting "
                          "as unsigned", e.loc)
        else:
            # an unsuffixed literal is DXC's "literal int", a signed 64-bit value: it adopts the other operand's
            # type; alone it is int, or a 64-bit int when it does not fit (so -2147483648 stays negative).  One
            # of 2**63 to 2**64 - 1 wraps to a negative value without a word, as DXC's (18446744073709551615 is -1)
            if e.value > 0xFFFFFFFFFFFFFFFF:
                raise error("integer literal is too large to be represented in any integer type", e.loc)
            return self.lit(literal_int(e.value - (1 << 64) if e.value >> 63 else e.value))
        return ir.Const(t, scalar_value(t, e.value))

    def float_literal_range(self, e: ast.FloatLit) -> None:
        """Clang's warnings for a literal its type cannot hold (SemaExpr.cpp BuildFloatingLiteral): infinite, or
        zero though written nonzero.  An unsuffixed literal is DXC's 'literal float', a double (HLSL 2021); `f`,
        `h` without 16-bit types and a 202x unsuffixed one are floats.  (A 16-bit `h` is not checked.)"""
        if e.suffix == "l" or (not e.suffix and self.options.hlsl_version < HLSL_202X):
            name, largest, smallest = ("double" if e.suffix else "literal float"), _DOUBLE_RANGE[0], _DOUBLE_RANGE[1]
            over, under = e.out_of_range == "over", e.out_of_range == "under"
        elif e.suffix == "h" and self.options.enable_16bit_types:
            return
        else:       # float: rounds to infinity from FLT_MAX plus half an ulp, to zero up to half the least denormal
            name, largest, smallest = "float", _FLOAT_RANGE[0], _FLOAT_RANGE[1]
            over = e.out_of_range == "over" or abs(e.value) >= 2.0**128 - 2.0**103
            under = e.out_of_range == "under" or 0 < abs(e.value) <= 2.0**-150
        if over:
            self.warn(f"magnitude of floating-point constant too large for type '{name}'; maximum is {largest}", e.loc)
        elif under:
            self.warn(f"magnitude of floating-point constant too small for type '{name}'; minimum is {smallest}",
                      e.loc)

    def rv_FloatLit(self, e: ast.FloatLit) -> ir.Expr:
        if e.out_of_range or e.suffix == "f" or (not e.suffix and self.options.hlsl_version >= HLSL_202X) or (
                e.suffix == "h" and not self.options.enable_16bit_types):
            self.float_literal_range(e)
        if e.suffix == "l":
            return ir.Const(ir.DOUBLE, e.value)
        if e.suffix == "h":
            t = ir.HALF if self.options.enable_16bit_types else ir.FLOAT
            return ir.Const(t, scalar_value(t, e.value))
        if e.suffix == "f" or self.options.hlsl_version >= HLSL_202X:     # 202x: an unsuffixed one is a float
            return ir.Const(ir.FLOAT, scalar_value(ir.FLOAT, e.value))   # 3.4e39f is infinity
        return self.lit(ir.Const(ir.FLOAT, e.value))

    def rv_BoolLit(self, e: ast.BoolLit) -> ir.Expr:
        return ir.Const(ir.BOOL, e.value)

    def rv_StaticMember(self, e: ast.StaticMember) -> ir.Expr:
        return self.rv_Name(self.static_member_name(e))

    def static_member_name(self, e: ast.StaticMember) -> ast.Name:
        """`S<int>::x` as the name of its global (`S<int>::x`, made when S<int> is instantiated)."""
        t = self.resolve_type(e.type, [])
        if not isinstance(t, ir.Struct):
            raise error(f"'{e.type.name}' is not a struct: it has no static member '{e.name}'", e.loc)
        shared = f"{e.type.name}::{e.name}"     # an enumerator of the template's enum: one for every instance
        if self.scope.lookup(f"{t.name}::{e.name}") is None and isinstance(self.scope.lookup(shared), EnumConstSymbol):
            return ast.Name(e.loc, shared)
        return ast.Name(e.loc, f"{t.name}::{e.name}")

    def rv_StringLit(self, e: ast.StringLit) -> ir.Expr:
        raise error("string literals are not supported in shader code", e.loc)

    def rv_InitList(self, e: ast.InitList) -> ir.Expr:
        raise error("an initializer list is only allowed in a declaration", e.loc)

    def rv_Name(self, e: ast.Name) -> ir.Expr:
        sym = self.scope.lookup(e.name)
        if self.saw_using and sym is not None and self.scope.ambiguous(e.name):
            raise error(f"reference to '{e.name}' is ambiguous", e.loc)
        if sym is None and "::" in e.name:
            sym = self.scope.lookup(e.name.split("::")[-1])
        if isinstance(sym, EnumConstSymbol):
            return ir.Const(sym.type, sym.value)
        if isinstance(sym, SpecConstSymbol):
            return sym.expr
        if isinstance(sym, VarSymbol) and sym.const_value is not None and isinstance(sym.var.type, (ir.Scalar, ir.Vector)):
            return ir.Const(sym.var.type, sym.const_value)   # a `static const` scalar or vector: its value
        return self.load(self.place(e, for_write=False))

    def rv_Member(self, e: ast.Member) -> ir.Expr:
        base_ast = e.base
        if e.name == "Length":
            t = self.length_base_type(base_ast)
            if isinstance(t, ir.Array):
                return self.array_length(t, e.loc)
        if self.is_place_expr(base_ast):
            p = self.place(e, for_write=False)
            return self.load(p)
        base = self.rvalue(base_ast)
        return self.member_of_value(base, e.name, e.loc)

    def rv_Index(self, e: ast.Index) -> ir.Expr:
        if self.is_heap_index(e):
            return self.heap_element(e)
        parts = self.indexed_load_parts(e)
        if parts is not None:
            return self.indexed_load(*parts)
        t = self.peek_type(e.base)
        if isinstance(t, ir.Struct) and "operator[]" in self.methods.get(t.name, {}):
            # `a[i]` on a struct with `operator[]` (HLSL 2021): a method call on `a`
            this = self.place(e.base, for_write=False)
            return self.user_call("operator[]", self.methods[t.name]["operator[]"], [e.index], e.loc, this=this)
        if self.is_place_expr(e.base):
            return self.load(self.place(e, for_write=False))
        base = self.rvalue(e.base)
        bt = base.type
        if isinstance(bt, ir.Struct) and "operator[]" in self.methods.get(bt.name, {}):
            held = self.temp(bt, "operand")     # a value such as another operator[]'s result (`m[i][j]`)
            self.emit(ir.Store(ir.VarRef(held), base, e.loc))
            return self.user_call("operator[]", self.methods[bt.name]["operator[]"], [e.index], e.loc,
                                  this=ir.VarRef(held))
        idx = self.index_value(e.index)
        if self.one_component(base):
            return self.only_component(base, idx, e)
        if isinstance(idx, ir.Const):
            n = self.index_bound(base.type)
            if n is not None and not 0 <= idx.value < n:
                raise error(f"index {idx.value} is out of bounds for type '{base.type}'", e.index.loc)
            return ir.Extract(base, idx.value, self.element_type(base.type, e.loc))
        tmp = self.temp(base.type)
        self.emit(ir.Store(ir.VarRef(tmp), base))
        return self.load(ir.IndexRef(ir.VarRef(tmp), idx, self.element_type(base.type, e.loc)))

    def rv_UnaryOp(self, e: ast.UnaryOp) -> ir.Expr:
        op = e.op
        if op in ("++", "--", "post++", "post--"):
            return self.increment(e)
        if self.is_struct_operand(e.operand):     # `-v` on a struct with `operator-()` (HLSL 2021)
            this = self.place(e.operand, for_write=False)
            assert isinstance(this.type, ir.Struct)
            unary = [f for f in self.methods.get(this.type.name, {}).get("operator" + op, []) if not f.decl.params]
            if not unary:
                raise error(f"invalid argument type '{this.type}' to unary operator '{op}'", e.loc)
            return self.user_call("operator" + op, unary, [], e.loc, this=this)
        x = self.rvalue(e.operand)
        t = x.type
        if not ir.is_numeric(t):
            raise error(f"invalid argument type '{t}' to unary operator '{op}'", e.loc)
        s = ir.scalar_of(t)
        if op == "+":
            return self.convert(x, with_scalar(t, ir.INT), e.loc) if s.kind == "bool" else x
        if op == "-":
            if s.kind == "bool":
                x = self.convert(x, with_scalar(t, ir.INT), e.loc)
                t = x.type
            if isinstance(x, ir.Const) and isinstance(t, ir.Scalar):
                if self.is_literal(x) and s.is_int:       # literal int: 64-bit, `-(-2147483648)` stays positive
                    return self.lit(literal_int(scalar_value(ir.INT64, -x.value)))
                c = ir.Const(t, scalar_value(t, -x.value))
                return self.lit(c) if self.is_literal(x) else c
            return ir.Unary("neg", x, t)
        if op == "!":
            x = self.convert(x, with_scalar(t, ir.BOOL), e.loc)
            return ir.Unary("not", x, x.type)
        if op == "~":
            if not s.is_int:
                if s.kind == "bool":
                    x = self.convert(x, with_scalar(t, ir.INT), e.loc)
                else:
                    raise error(f"invalid argument type '{t}' to unary operator '~'", e.loc)
            if isinstance(x, ir.Const) and isinstance(x.type, ir.Scalar):
                if self.is_literal(x):      # a literal int stays one (64-bit): `~0 & 0xFFFFFFFF` is 0xFFFFFFFF
                    return self.lit(literal_int(scalar_value(ir.INT64, ~x.value)))
                return ir.Const(x.type, scalar_value(x.type, ~x.value))
            return ir.Unary("bitnot", x, x.type)
        raise error(f"unsupported unary operator '{op}'", e.loc)

    def increment(self, e: ast.UnaryOp) -> ir.Expr:
        place = self.place(e.operand, for_write=True)
        t = place.type
        _check_increment(t, e.loc)
        one = self.convert(ir.Const(ir.INT, 1), t, e.loc)
        old = self.temp(t)
        self.emit(ir.Store(ir.VarRef(old), self.load(place)))
        new = ir.Binary("add" if "++" in e.op else "sub", self.load(ir.VarRef(old)), one, t)
        self.emit(ir.Store(place, new, e.loc))
        return self.load(ir.VarRef(old)) if e.op.startswith("post") else self.load(place)

    def rv_BinaryOp(self, e: ast.BinaryOp) -> ir.Expr:
        op = e.op
        if self.is_struct_operand(e.lhs):       # (before &&/||: a struct may overload them, and then both sides
            return self.operator_call(e)        # are evaluated, as for any call)
        if op in ("&&", "||"):
            return self.logical(e)
        self.check_min_int_division(op, e.lhs, e.rhs, e.loc)
        a = self.rvalue(e.lhs)
        if isinstance(a.type, ir.Struct) and "operator" + op in self.methods.get(a.type.name, {}):
            held = self.temp(a.type, "operand")      # a struct value such as `(x + y) * k`'s left side
            self.emit(ir.Store(ir.VarRef(held), a, e.loc))
            return self.user_call("operator" + op, self.methods[a.type.name]["operator" + op], [e.rhs], e.loc,
                                  this=ir.VarRef(held))
        out, mark = self.out, len(self.out)
        b = self.rvalue(e.rhs)
        if len(out) > mark and changed_by(a, out[mark:]):
            # the right side emitted code (a call, ++, an assignment) that may change what `a` reads: `a` is
            # read first, left to right as DXC evaluates `g + next()`
            held = self.temp(a.type, "operand")
            out.insert(mark, ir.Store(ir.VarRef(held), a, e.loc))
            a = self.load(ir.VarRef(held))
        return self.binary(op, a, b, e.loc)

    def check_min_int_division(self, op: str, lhs: ast.Expr, rhs: ast.Expr, loc: SourceLoc) -> None:
        """DXC refuses a signed `/` or `%` whose result is a minimum-precision int (min16int, min12int) unless
        -enable-16bit-types makes them int16_t; the written spelling says so (the IR type is a 32-bit int)."""
        if op not in ("/", "%", "/=", "%=") or self.options.enable_16bit_types:
            return
        mins = ("min16int", "min12int")
        left, right = self._spelling(lhs), self._spelling(rhs)
        if op.endswith("="):        # a compound assignment has the target's type
            bad = left in mins
        else:                       # an unsuffixed literal takes the other operand's type
            bad = (left in mins and (right in mins or _plain_int(rhs))) or (right in mins and _plain_int(lhs))
        if bad:
            raise error("signed integer division is not supported on minimum-precision types, cast to int to use "
                        "32-bit division", loc)      # DXC's words

    def is_struct_operand(self, e: ast.Expr) -> bool:
        t = self.peek_type(e)
        return isinstance(t, ir.Struct) and bool(self.methods.get(t.name))

    def operator_call(self, e: ast.BinaryOp) -> ir.Expr:
        """`a + b` on a struct with `operator+` (HLSL 2021): a method call on `a`."""
        this = self.place(e.lhs, for_write=False)
        assert isinstance(this.type, ir.Struct)        # is_struct_operand() checked it
        methods = self.methods.get(this.type.name, {}).get("operator" + e.op)
        if not methods:
            raise error(f"invalid operands to binary expression: '{this.type}' has no 'operator{e.op}'", e.loc)
        return self.user_call("operator" + e.op, methods, [e.rhs], e.loc, this=this)

    def rv_SizeOf(self, e: ast.SizeOf) -> ir.Expr:
        from ...ir.layout import layout_of

        if isinstance(e.operand, ast.TypeRef):
            t = self.resolve_type(e.operand, e.dims)
        else:
            if isinstance(e.operand, ast.Member):
                owner = self.peek_type(e.operand.base)
                if isinstance(owner, ir.Struct) and e.operand.name in self.bitfields.get(owner.name, {}):
                    raise error("invalid application of 'sizeof' to bit-field", e.operand.loc)
            with self.collect([]):            # sizeof does not evaluate its operand
                operand = self.rvalue(e.operand)
            t = operand.type
            if self.is_literal(operand) and isinstance(t, ir.Scalar):     # a literal's width is not fixed
                kind = "float" if t.is_float else "int"
                raise error(f"invalid application of 'sizeof' to literal type 'literal {kind}'", e.loc)
        try:
            size = layout_of(t, "dx_structured").size
        except TypeError:
            raise error(f"invalid application of 'sizeof' to type '{t}'", e.loc) from None
        return self.lit(ir.Const(ir.UINT, size))

    def binary(self, op: str, a: ir.Expr, b: ir.Expr, loc: SourceLoc) -> ir.Expr:
        ta, tb = a.type, b.type
        if not ir.is_numeric(ta) or not ir.is_numeric(tb):
            raise error(f"invalid operands to binary expression ('{ta}' and '{tb}')", loc)
        sa, sb = ir.scalar_of(ta), ir.scalar_of(tb)
        shape, _ = common_shape(ta, tb)
        if shape is None:       # DXC then converts the right operand to the left one's type, and fails
            raise error(f"cannot convert from '{tb}' to '{ta}'", loc)
        s = common_scalar(sa, sb, self.is_literal(a), self.is_literal(b))
        if op in BIT_OPS:
            if s.is_float:
                raise error(f"invalid operands to binary expression ('{ta}' and '{tb}'): "
                            f"bitwise operators require integer operands", loc)
            if s.kind == "bool":
                s = ir.INT
            if op in ("<<", ">>") and not self.is_literal(a):
                s = sa if sa.is_int else ir.INT
            elif op in ("<<", ">>") and not self.is_literal(b):
                s = ir.UINT if sb == ir.UINT else ir.INT     # DXC types `1 << x` by x: uint for a uint x, else int
                self.warn("ambiguous type for bit shift; use a type suffix on literal values, like 'L' or 'U', or a "
                          "cast", loc)
        elif op in ARITH_OPS and s.kind == "bool":
            s = ir.INT
        elif op in ("<", "<=", ">", ">=") and s.kind == "bool":
            s = ir.INT      # bools order as the ints 0 and 1 (no backend orders bools)
        if op == "%" and s == ir.DOUBLE:
            raise error("modulo cannot be used with doubles, cast to float first", loc)     # DXC's words
        literal = self.is_literal(a) and self.is_literal(b)
        if literal and s.is_int and isinstance(ta, ir.Scalar) and isinstance(tb, ir.Scalar):
            return self.literal_int_binary(op, a, b, loc)
        t = with_scalar(shape, s)
        if literal and ta == tb == t:
            ca, cb = a, b     # two literals fold unclamped: `1e300 * 10.0` is finite in a double context
        else:
            ca = self.convert(a, t, loc)
            cb = self.convert(b, t, loc)
        if op in CMP_OPS:
            rt = with_scalar(shape, ir.BOOL)
            folded = self.fold(CMP_OPS[op], ca, cb, rt)
            return folded if folded is not None else ir.Binary(CMP_OPS[op], ca, cb, rt)
        irop = ARITH_OPS.get(op) or BIT_OPS[op]
        if irop in ("div", "mod") and s.is_int and isinstance(cb, ir.Const) and cb.value == 0 and isinstance(t, ir.Scalar):
            raise error("division by zero", loc)
        folded = self.fold(irop, ca, cb, t, literal)
        if folded is not None:
            return self.lit(folded) if literal else folded
        return ir.Binary(irop, ca, cb, t)

    def literal_int_binary(self, op: str, a: ir.Expr, b: ir.Expr, loc: SourceLoc) -> ir.Expr:
        """Two unsuffixed integer literals: DXC's "literal int" is 64-bit, so the operation folds in 64 bits (a
        shift masked to 6 bits) and the result stays a literal, converted (truncated) only where it is used:
        `(uint)(1 << 33)` is 0 and `uint64_t x = 1 << 40` is 2^40."""
        ca, cb = self.convert(a, ir.INT64, loc), self.convert(b, ir.INT64, loc)
        if op in CMP_OPS:
            folded = self.fold(CMP_OPS[op], ca, cb, ir.BOOL)
            assert folded is not None
            return folded
        irop = ARITH_OPS.get(op) or BIT_OPS[op]
        if irop in ("div", "mod") and isinstance(cb, ir.Const) and cb.value == 0:
            raise error("division by zero", loc)
        folded = self.fold(irop, ca, cb, ir.INT64)
        assert folded is not None
        return self.lit(literal_int(folded.value))

    def fold(self, op: str, a: ir.Expr, b: ir.Expr, t: ir.Type, literal: bool = False) -> ir.Const | None:
        """Fold scalar constants (used for array sizes, case labels and static consts).

        Two unsuffixed literals fold in full (double) precision and stay a literal, so
        `double d = 1.0 / 3.0` is exact and `1e300 * 10` is only infinite in a float context."""
        if not (isinstance(a, ir.Const) and isinstance(b, ir.Const) and isinstance(t, ir.Scalar)):
            return None
        x, y = a.value, b.value
        s = a.type
        assert isinstance(s, ir.Scalar)     # operands have the result's (or, comparing, a common) scalar type
        try:
            if op == "add":
                r = x + y
            elif op == "sub":
                r = x - y
            elif op == "mul":
                r = x * y
            elif op == "div":
                if s.is_float:
                    if not (literal and y):
                        return None
                    r = x / y
                else:
                    r = int_div(int(x), int(y), s.kind, s.width)
            elif op == "mod":
                if s.is_float:
                    return None
                r = int_mod(int(x), int(y), s.kind, s.width)
            elif op == "shl":
                r = x << (y & (s.width - 1))
            elif op == "shr":
                r = (x if s.kind == "int" else x & ((1 << s.width) - 1)) >> (y & (s.width - 1))
            elif op == "bitand":
                r = x & y
            elif op == "bitor":
                r = x | y
            elif op == "bitxor":
                r = x ^ y
            elif op in ("eq", "ne", "lt", "le", "gt", "ge"):
                r = {"eq": x == y, "ne": x != y, "lt": x < y, "le": x <= y, "gt": x > y, "ge": x >= y}[op]
            else:
                return None
        except (TypeError, OverflowError):
            return None
        if r is None:
            return None
        if literal and t.is_float:
            return ir.Const(t, float(r))         # keeps double precision until the literal is used
        return ir.Const(t, scalar_value(t, r))

    def logical(self, e: ast.BinaryOp) -> ir.Expr:
        a = self.rvalue(e.lhs)
        if not ir.is_numeric(a.type):
            raise error(f"invalid operand of type '{a.type}' to '{e.op}'", e.lhs.loc)
        if self.options.hlsl_version >= 2021:
            if not isinstance(a.type, ir.Scalar):
                raise error(f"operands for short-circuiting logical binary operator must be scalar, "
                            f"for non-scalar types use '{'and' if e.op == '&&' else 'or'}'", e.loc)
            ca = self.convert(a, ir.BOOL, e.lhs.loc)
            result = self.temp(ir.BOOL)
            self.emit(ir.Store(ir.VarRef(result), ca))
            body: list[ir.Stmt] = []
            with self.collect(body):
                b = self.rvalue(e.rhs)
                if not isinstance(b.type, ir.Scalar):
                    raise error(f"operands for short-circuiting logical binary operator must be scalar, "
                                f"for non-scalar types use '{'and' if e.op == '&&' else 'or'}'", e.loc)
                self.emit(ir.Store(ir.VarRef(result), self.convert(b, ir.BOOL, e.rhs.loc)))
            cond = self.load(ir.VarRef(result))
            if e.op == "||":
                cond = ir.Unary("not", cond, ir.BOOL)
            self.emit(ir.If(cond, body, []))
            return self.load(ir.VarRef(result))
        b = self.rvalue(e.rhs)
        shape, _ = common_shape(a.type, b.type)
        if shape is None:
            raise error(f"cannot convert from '{b.type}' to '{a.type}'", e.loc)
        t = with_scalar(shape, ir.BOOL)
        return ir.Binary("land" if e.op == "&&" else "lor", self.convert(a, t, e.loc), self.convert(b, t, e.loc), t)

    def rv_Conditional(self, e: ast.Conditional) -> ir.Expr:
        c = self.rvalue(e.cond)
        if self.options.hlsl_version >= 2021:       # before HLSL 2021 both arms are evaluated
            if not isinstance(c.type, ir.Scalar):
                raise error("condition for short-circuiting ternary operator must be scalar, "
                            "for non-scalar types use 'select'", e.cond.loc)
            cb = self.convert(c, ir.BOOL, e.cond.loc)
            then_body: list[ir.Stmt] = []
            else_body: list[ir.Stmt] = []
            with self.collect(then_body):
                a = self.rvalue(e.true)
            with self.collect(else_body):
                b = self.rvalue(e.false)
            t = self.conditional_type(a, b, e.loc)
            result = self.temp(t)
            with self.collect(then_body):
                self.emit(ir.Store(ir.VarRef(result), self.convert(a, t, e.true.loc)))
            with self.collect(else_body):
                self.emit(ir.Store(ir.VarRef(result), self.convert(b, t, e.false.loc)))
            self.emit(ir.If(cb, then_body, else_body))
            return self.load(ir.VarRef(result))
        a = self.rvalue(e.true)
        b = self.rvalue(e.false)
        t = self.conditional_type(a, b, e.loc)
        if not isinstance(c.type, ir.Scalar) and not isinstance(t, ir.Scalar) and shape_of(c.type) != shape_of(t):
            # a vector condition selects per component: its shape is the result's (or a scalar result's)
            raise error("conditional operator condition and result dimensions mismatch.", e.loc)     # DXC's words
        return self.select(c, a, b, e.loc, t)

    def conditional_type(self, a: ir.Expr, b: ir.Expr, loc: SourceLoc) -> ir.Type:
        """`c ? a : b`'s type: DXC's HLSL 2021 rules (SemaHLSL.cpp CheckVectorConditional) take numeric
        scalars, vectors and matrices, or two resources of one type; a struct or an array is refused."""
        if isinstance(a.type, (ir.Struct, ir.Array)) or isinstance(b.type, (ir.Struct, ir.Array)):
            raise error("conditional operator only supports results with numeric scalar, vector, or matrix types.",
                        loc)     # DXC's words
        return _conditional_type(self.result_type_of_pair(a, b, loc))

    def result_type_of_pair(self, a: ir.Expr, b: ir.Expr, loc: SourceLoc) -> ir.Type:
        if a.type == b.type:
            return a.type
        if ir.is_numeric(a.type) and ir.is_numeric(b.type):
            shape, _ = common_shape(a.type, b.type)
            if shape is None:
                raise error("conditional operator result dimensions mismatch.", loc)     # DXC's words
            return with_scalar(shape, common_scalar(ir.scalar_of(a.type), ir.scalar_of(b.type),
                                                    self.is_literal(a), self.is_literal(b)))
        raise error(f"incompatible operand types ('{a.type}' and '{b.type}')", loc)

    def select(self, c: ir.Expr, a: ir.Expr, b: ir.Expr, loc: SourceLoc, t: ir.Type | None = None) -> ir.Expr:
        t = self.result_type_of_pair(a, b, loc) if t is None else t
        if isinstance(c.type, ir.Vector) and isinstance(t, ir.Scalar):
            t = ir.Vector(t, c.type.size)
        ct = with_scalar(t, ir.BOOL) if ir.is_numeric(t) and not isinstance(t, ir.Matrix) else ir.BOOL
        return ir.Select(self.convert(c, ct, loc), self.convert(a, t, loc), self.convert(b, t, loc), t)

    def rv_Comma(self, e: ast.Comma) -> ir.Expr:
        for x in e.exprs[:-1]:
            self.effect(x)
        return self.rvalue(e.exprs[-1])

    def rv_Assign(self, e: ast.Assign) -> ir.Expr:
        place = self.assign(e)
        return self.load(place)

    def assign(self, e: ast.Assign) -> ir.Expr:
        # the right side first, then the target, as DXC (clang) emits an assignment: `a[next()] = g` stores
        # the g read before next() runs
        rhs = self.rvalue(e.value)
        out, mark = self.out, len(self.out)
        place = self.place(e.target, for_write=True)
        if len(out) > mark and any(isinstance(x, ir.Load) for x in ir.walk_expr(rhs)):
            held = self.temp(rhs.type, "value")
            out.insert(mark, ir.Store(ir.VarRef(held), rhs, e.loc))
            rhs = self.load(ir.VarRef(held))
        if e.op == "=":
            warn_mismatch(self, rhs, place.type, place_coherence(place), e.value.loc)
            value = self.convert(rhs, place.type, e.value.loc)
        else:
            self.check_min_int_division(e.op, e.target, e.value, e.loc)
            if e.op not in ("&=", "|=", "^=") and ir.scalar_of(place.type) == ir.BOOL:
                raise error("operator cannot be used with a bool lvalue", e.loc)     # DXC's words
            if ir.is_numeric(rhs.type) and ir.is_numeric(place.type) \
                    and not shape_accepts(shape_of(place.type), shape_of(rhs.type)):
                # DXC converts the right side to the left side's type first (`float3 v; v += float2x2` fails)
                raise error(f"cannot convert from '{rhs.type}' to '{place.type}'", e.loc)
            cur = self.load(place)
            value = self.convert(self.binary(e.op[:-1], cur, rhs, e.loc), place.type, e.loc)
        self.emit(ir.Store(place, value, e.loc))
        return place

    def rv_Cast(self, e: ast.Cast) -> ir.Expr:
        t = self.resolve_type(e.type, e.dims)
        x = self.rvalue(e.operand)
        if (self.options.hlsl_version < 2021 and isinstance(t, ir.Struct) and isinstance(x.type, ir.Struct)
                and x.type != t and _flat_scalars(x.type) == _flat_scalars(t)):
            # HLSL 2018 casts between structs of the same component layout, member by member
            return self.build_from_components(self.components(x, e.loc), t, e.loc)
        return self.convert(x, t, e.loc, explicit=True)

    def rv_CallExpr(self, e: ast.CallExpr) -> ir.Expr:
        return self.call(e)

    # ---------------------------------------------------------------- places
    def is_place_expr(self, e: ast.Expr) -> bool:
        if type(e) is ast.StaticMember:     # exact classes (tests/ir/test_types_exact.py): isinstance is slow here
            e = self.static_member_name(e)
        if type(e) is ast.Name:
            sym = self.scope.lookup(e.name)
            return isinstance(sym, VarSymbol) and not (sym.const_value is not None and isinstance(sym.var.type, ir.Scalar))
        if isinstance(e, ast.Index) and self.has_index_operator(e.base):
            return False            # an operator[] call gives a value
        if isinstance(e, (ast.Member, ast.Index)):
            return self.is_place_expr(e.base) and self.indexed_load_parts(e) is None
        return False

    def has_index_operator(self, e: ast.Expr) -> bool:
        t = self.peek_type(e)
        return isinstance(t, ir.Struct) and "operator[]" in self.methods.get(t.name, {})

    def place(self, e: ast.Expr, for_write: bool) -> ir.Expr:
        if type(e) is ast.StaticMember:     # exact classes, as in is_place_expr
            e = self.static_member_name(e)
        if type(e) is ast.Name:
            sym = self.scope.lookup(e.name)
            if sym is None:
                raise self.undeclared(e.name, e.loc)
            if not isinstance(sym, VarSymbol):
                kind = ("function" if isinstance(sym, FuncSymbol) else "type" if isinstance(sym, TypeSymbol)
                        else "specialization constant" if isinstance(sym, SpecConstSymbol)
                        else "state-object subobject" if isinstance(sym, SubobjectSymbol)
                        else "string (only printf reads strings, as its format)"
                        if isinstance(sym, StringSymbol) else "constant")
                raise error(f"'{e.name}' is a {kind}, not a variable", e.loc)
            var = sym.var
            if for_write and (var.const or var.storage is ir.Storage.UNIFORM):
                what = "const-qualified" if var.const else "uniform"
                raise error(f"cannot assign to {what} variable '{e.name}'", e.loc)
            self.use_loc = e.loc
            self.note_use(var)
            self.used_vars.add(id(var))
            if id(var) in self.unset_vars:      # a local declared without a value: its first use in source order
                self.unset_vars.discard(id(var))
                if not for_write:
                    self.warn(f"variable '{e.name}' is uninitialized when used here", e.loc)
            return ir.VarRef(var, e.loc)
        if isinstance(e, ast.Member):
            if not self.is_place_expr(e.base):
                raise error("expression is not assignable", e.loc)
            # a resource's members (`.mips`) are never written through the variable holding it
            base = self.place(e.base, for_write and not isinstance(self.peek_type(e.base), ir.Resource))
            return self.member_place(base, e.name, e.loc, for_write)
        if isinstance(e, ast.Index):
            if not self.is_place_expr(e.base):
                raise error("expression is not assignable", e.loc)
            # writing `Buf[i]` or `Bufs[k][i]` writes the resource, not the (uniform) variable holding it
            base = self.place(e.base, for_write and not _holds_resources(self.peek_type(e.base)))
            bt = base.type
            if isinstance(bt, ir.Resource):
                return self.resource_index(base, e, for_write)
            if isinstance(bt, ir.Struct) and "operator[]" in self.methods.get(bt.name, {}):
                raise error(f"expression is not assignable: '{bt}' has an 'operator[]' that returns a value", e.loc)
            idx = self.index_value(e.index)
            if isinstance(idx, ir.Const):
                n = self.index_bound(bt)
                if n is not None and not 0 <= idx.value < n:
                    raise error(f"index {idx.value} is out of bounds for type '{bt}'", e.index.loc)
            if isinstance(base, ir.SwizzleRef):
                return self.swizzle_element(base, idx)
            if self.one_component(base):
                return self.only_component(base, idx, e)
            return self.component(base, idx, self.element_type(bt, e.loc))
        raise error("expression is not assignable", e.loc)

    def derives_from(self, t: ir.Struct, base: ir.Struct) -> int:
        """How many levels up `base` is from `t` (0: not a base of it)."""
        name: str | None = t.name
        depth = 0
        while name is not None:
            name = self.struct_bases.get(name)
            depth += 1
            if name == base.name:
                return depth
        return 0

    def swizzle_element(self, sw: ir.SwizzleRef, idx: ir.Expr) -> ir.Expr:
        """`v.zyx[i]`: component comps[i] of the vector itself (no target indexes a swizzle dynamically)."""
        elem = sw.type.elem if isinstance(sw.type, ir.Vector) else sw.type
        while isinstance(sw.base, ir.SwizzleRef):      # v.zyx.yx: one swizzle of v
            sw = ir.SwizzleRef(sw.base.base, tuple(sw.base.comps[c] for c in sw.comps), sw.type)
        if isinstance(sw.base.type, ir.Scalar):
            return sw.base
        if isinstance(idx, ir.Const):
            return self.component(sw.base, ir.Const(ir.UINT, sw.comps[idx.value]), elem)
        if sw.comps == tuple(range(len(sw.comps))):
            return self.component(sw.base, idx, elem)
        idx = self.stable(idx)      # index_value made it a uint
        mapped: ir.Expr = ir.Const(ir.UINT, sw.comps[-1])
        for i in range(len(sw.comps) - 2, -1, -1):      # comps[i] where idx == i, innermost last
            mapped = ir.Select(ir.Binary("eq", idx, ir.Const(ir.UINT, i), ir.BOOL), ir.Const(ir.UINT, sw.comps[i]),
                               mapped, ir.UINT)
        return self.component(sw.base, mapped, elem)

    def one_component(self, x: ir.Expr) -> bool:
        """A scalar that is a one-component vector in HLSL (our IR has no float1): a row of an Nx1 matrix or a
        variable declared `float1`; `x[0]` subscripts it (DXC accepts `m[i][0]`, `v[0]`)."""
        if not isinstance(x.type, ir.Scalar):
            return False
        if isinstance(x, ir.Load):
            x = x.place
        if isinstance(x, (ir.IndexRef, ir.Extract)):
            return isinstance((x.base if isinstance(x, ir.IndexRef) else x.value).type, ir.Matrix)
        return isinstance(x, ir.VarRef) and id(x.var) in self.one_vector_elements

    def only_component(self, base: ir.Expr, idx: ir.Expr, e: ast.Index) -> ir.Expr:
        if isinstance(idx, ir.Const) and idx.value != 0:
            raise error(f"index {idx.value} is out of bounds for a one-component vector", e.index.loc)
        return base

    def component(self, base: ir.Expr, idx: ir.Expr, elem: ir.Type) -> ir.Expr:
        """Element `idx` of `base`; a texel (a typed buffer's or texture's element: not memory) indexed
        (`B[i][k]`) goes through a temporary copy of it that is written back whole when stored to."""
        if not (isinstance(base, ir.BufferElem) and isinstance(base.resource.type, ir.Resource)
                and KINDS[base.resource.type.kind].rep == "typed"):
            return ir.IndexRef(base, idx, elem)
        tmp = self.temp(base.type)
        self.emit(ir.Store(ir.VarRef(tmp), self.load(base)))

        def write_back(value: ir.Expr, loc: SourceLoc | None) -> list[ir.Stmt]:
            return [ir.Store(base, value, loc)]
        self.scatter_temps[id(tmp)] = (tmp, write_back)
        return ir.IndexRef(ir.VarRef(tmp), idx, elem)

    def peek_type(self, e: ast.Expr) -> ir.Type | None:
        """The type of a place expression without lowering it (None when unknown)."""
        if isinstance(e, ast.Name):
            sym = self.scope.lookup(e.name)
            if not isinstance(sym, VarSymbol):
                return None
            index = getattr(sym, "index", None)     # a cbuffer member or a field seen from a method
            if index is not None:
                st = sym.var.type
                return st.fields[index].type if isinstance(st, ir.Struct) and index < len(st.fields) else None
            return sym.var.type
        if isinstance(e, ast.Index):
            t = self.peek_type(e.base)
            return t.elem if isinstance(t, ir.Array) else None
        return None

    def note_use(self, var: ir.Variable) -> None:
        """Hook for uninitialised-resource checks (see lower.py)."""

    def index_value(self, e: ast.Expr) -> ir.Expr:
        idx = self.rvalue(e)
        if not isinstance(idx.type, ir.Scalar):
            raise error(f"array subscript is not an integer (type '{idx.type}')", e.loc)
        if idx.type.kind == "float":
            self.warn("array index is a floating-point value; it is truncated", e.loc)
        if idx.type.kind == "bool":
            raise error(f"array subscript is not an integer (type '{idx.type}')", e.loc)
        return self.convert(idx, ir.UINT if not (isinstance(idx, ir.Const) and idx.value < 0) else ir.INT, e.loc)

    def index_bound(self, t: ir.Type) -> int | None:
        if isinstance(t, ir.Array):
            return t.size
        if isinstance(t, ir.Vector):
            return t.size
        if isinstance(t, ir.Matrix):
            return t.rows
        return None

    def element_type(self, t: ir.Type, loc: SourceLoc) -> ir.Type:
        elem = ir.element_of(t)
        if elem is not None:
            return elem
        raise error(f"subscripted value of type '{t}' is not an array, vector or matrix", loc)

    def resource_index(self, base: ir.Expr, e: ast.Index, for_write: bool) -> ir.Expr:
        from .resources import texel_index_type

        r = base.type
        assert isinstance(r, ir.Resource)
        if r.kind in ("StructuredBuffer", "RWStructuredBuffer", "RasterizerOrderedStructuredBuffer"):
            idx = self.index_value(e.index)
        else:
            it = texel_index_type(r.kind)
            if it is None:
                raise error(f"type '{r}' does not support the subscript operator", e.loc)
            value = self.rvalue(e.index)
            if not ir.is_numeric(value.type) or ir.component_count(value.type) != ir.component_count(it):
                # DXC's operator[] takes exactly the texel coordinate: no splat, no truncation
                raise error(f"no viable overloaded operator[] for type '{r}'", e.loc, [Diagnostic(
                    "note", f"candidate function not viable: no known conversion from '{value.type}' to '{it}' for 1st "
                            f"argument", e.index.loc)])
            idx = self.convert(value, it, e.index.loc)
        if for_write and KINDS[r.kind].access != "UAV":
            raise error(f"cannot assign to an element of read-only resource type '{r}'", e.loc)
        assert r.elem is not None           # every subscriptable resource has an element type
        return ir.BufferElem(base, idx, r.elem)

    # ------------------------------------------------------------- members
    def member_place(self, base: ir.Expr, name: str, loc: SourceLoc, for_write: bool) -> ir.Expr:
        t = base.type
        if isinstance(t, ir.Struct) and name in self.bitfields.get(t.name, {}):
            return self.bitfield_place(base, t, self.bitfields[t.name][name])
        if isinstance(t, ir.Struct):
            try:
                i = t.field_index(name)
            except KeyError:
                return self.place(self.static_of_object(t, name, loc), for_write)   # `s.X` of a static X
            return ir.FieldRef(base, i, t.fields[i].type)
        if isinstance(t, (ir.Vector, ir.Scalar)):
            comps = self.swizzle_comps(t, name, loc)
            s = ir.scalar_of(t)
            if for_write and len(set(comps)) != len(comps):
                raise error(f"vector swizzle '{name}' has duplicate components and cannot be assigned", loc)
            if isinstance(t, ir.Scalar) and len(comps) == 1:
                return base
            return ir.SwizzleRef(base, comps, ir.vec(s, len(comps)))
        if isinstance(t, ir.Matrix):
            elems = self.matrix_comps(t, name, loc)
            if len(elems) == 1:
                r, c = elems[0]
                row = ir.IndexRef(base, ir.Const(ir.UINT, r), ir.vec(t.elem, t.cols))
                return ir.IndexRef(row, ir.Const(ir.UINT, c), t.elem) if t.cols > 1 else row
            if for_write and len(set(elems)) != len(elems):
                raise error(f"matrix swizzle '{name}' has duplicate components and cannot be assigned", loc)
            # materialise into a temporary; when written, every store to it is copied back element by element
            # (emit() in lower.py), so `m._m00_m11 = v`, `+=`, `++` and out arguments all reach the matrix
            tmp = self.temp(ir.vec(t.elem, len(elems)))
            places: list[ir.Expr] = []
            for r, c in elems:
                row = ir.IndexRef(base, ir.Const(ir.UINT, r), ir.vec(t.elem, t.cols))
                places.append(ir.IndexRef(row, ir.Const(ir.UINT, c), t.elem) if t.cols > 1 else row)
            self.emit(ir.Store(ir.VarRef(tmp), ir.Construct(tmp.type, [self.load(p) for p in places])))
            self.matrix_temps[id(tmp)] = (tmp, places if len(set(elems)) == len(elems) else [])
            if for_write:
                self.scatter_temps[id(tmp)] = (tmp, scatter(places))
            return ir.VarRef(tmp)
        if isinstance(t, ir.Resource) and t.kind == "ConstantBuffer" and isinstance(t.elem, ir.Struct):
            # a ConstantBuffer<T> held by a local (from a descriptor heap): its members are the block's
            if for_write:
                raise error(f"cannot assign to a member of '{t}'", loc)
            i = _field_index(t.elem, name, loc, self.methods)
            return ir.FieldRef(base, i, t.elem.fields[i].type)
        if isinstance(t, ir.Resource):
            info = KINDS.get(t.kind)
            if info is not None and info.indexed_load == name:
                raise error(f"'{t}.{name}' is read-only and is used as '{name}[index][coordinate]'", loc)
            raise error(f"'{t}' has no member '{name}'", loc)
        raise error(f"member reference base type '{t}' is not a structure", loc)

    def length_base_type(self, base: ast.Expr) -> ir.Type | None:
        """The type of `base` in `base.Length` (not evaluated: its statements are dropped), None if unknown."""
        t = self.peek_type(base) if self.is_place_expr(base) else None
        if t is None:
            try:
                with self.collect([]):
                    t = self.rvalue(base).type
            except CompileError:
                return None         # reported by the member access itself
        return t

    def array_length(self, t: ir.Array, loc: SourceLoc) -> ir.Expr:
        """`a.Length`: the element count, a constant; DXC keeps it for HLSL 2016 and before only."""
        if self.options.hlsl_version > 2016 or t.size is None:
            raise error("Length is only allowed for HLSL 2016 and lower.", loc)
        self.warn("Length is deprecated", loc)
        return self.lit(ir.Const(ir.UINT, t.size))

    def static_of_object(self, t: ir.Struct, name: str, loc: SourceLoc) -> ast.Name:
        """`s.X` where X is no field of s's struct: the name of the static data member X of the struct or of a
        base (C++ allows naming a static member through an object); else the error for a missing member."""
        qualified = f"{t.name}::{name}"
        if isinstance(self.scope.lookup(qualified), VarSymbol):
            return ast.Name(loc, qualified)
        _field_index(t, name, loc, self.methods)      # raises: a method named without a call, or no member
        raise AssertionError("unreachable: no field named " + name)

    def member_of_value(self, base: ir.Expr, name: str, loc: SourceLoc) -> ir.Expr:
        t = base.type
        if isinstance(t, ir.Array) and name == "Length":
            return self.array_length(t, loc)
        if isinstance(t, ir.Struct) and name in self.bitfields.get(t.name, {}):
            b = self.bitfields[t.name][name]
            return self.bitfield_value(ir.Extract(base, b.unit, t.fields[b.unit].type), b)
        if isinstance(t, ir.Struct):
            try:
                i = t.field_index(name)
            except KeyError:
                return self.rv_Name(self.static_of_object(t, name, loc))
            return ir.Extract(base, i, t.fields[i].type)
        if isinstance(t, (ir.Vector, ir.Scalar)):
            comps = self.swizzle_comps(t, name, loc)
            s = ir.scalar_of(t)
            if isinstance(t, ir.Scalar):
                base = self.stable(base)
                return base if len(comps) == 1 else ir.Construct(ir.Vector(s, len(comps)), [base] * len(comps))
            if isinstance(base, ir.Const):
                vals = tuple(base.value[c] for c in comps)
                return ir.Const(ir.vec(s, len(comps)), vals if len(vals) > 1 else vals[0])
            return ir.Swizzle(base, comps, ir.vec(s, len(comps)))
        if isinstance(t, ir.Matrix):
            elems = self.matrix_comps(t, name, loc)
            base = self.stable(base)
            parts: list[ir.Expr] = []
            for r, c in elems:
                row = ir.Extract(base, r, ir.vec(t.elem, t.cols))
                parts.append(ir.Extract(row, c, t.elem) if t.cols > 1 else row)
            return parts[0] if len(parts) == 1 else ir.Construct(ir.Vector(t.elem, len(parts)), parts)
        raise error(f"member reference base type '{t}' is not a structure", loc)

    def swizzle_comps(self, t: ir.Type, name: str, loc: SourceLoc) -> tuple[int, ...]:
        n = t.size if isinstance(t, ir.Vector) else 1
        comps = _SWIZZLE_COMPS.get((name, n))
        if comps is not None:
            return comps
        for letters in _SWIZZLE_SETS:
            if all(ch in letters for ch in name):
                comps = tuple(letters.index(ch) for ch in name)
                if len(comps) > 4:
                    break
                bad = [name[i] for i, c in enumerate(comps) if c >= n]
                if bad:
                    raise error(f"vector swizzle '{name}' is out of bounds for type '{t}'", loc)
                _SWIZZLE_COMPS[name, n] = comps
                return comps
        raise error(f"invalid swizzle '{name}' on type '{t}'", loc)

    def matrix_comps(self, t: ir.Matrix, name: str, loc: SourceLoc) -> list[tuple[int, int]]:
        pairs = matrix_swizzle_pairs(name)
        if pairs is None:
            raise error(f"invalid matrix swizzle '{name}' on type '{t}'", loc)
        for r, c in pairs:
            if r >= t.rows or c >= t.cols:
                raise error(f"matrix swizzle '{name}' is out of bounds for type '{t}'", loc)
        if len(pairs) > 4:
            raise error(f"matrix swizzle '{name}' has too many components", loc)
        return pairs

    def effect(self, e: ast.Expr) -> None:
        """Lower an expression evaluated only for its side effects."""
        if isinstance(e, ast.Assign):
            self.assign(e)
            return
        if isinstance(e, ast.UnaryOp) and e.op in ("++", "--", "post++", "post--"):
            place = self.place(e.operand, for_write=True)
            t = place.type
            _check_increment(t, e.loc)
            one = self.convert(ir.Const(ir.INT, 1), t, e.loc)
            self.emit(ir.Store(place, ir.Binary("add" if "++" in e.op else "sub", self.load(place), one, t), e.loc))
            return
        if isinstance(e, ast.Comma):
            for x in e.exprs:
                self.effect(x)
            return
        if isinstance(e, ast.Cast) and e.type.name == "void" and not e.dims:    # `(void)x;` (C++, and DXC)
            self.effect(e.operand)
            return
        v = self.call(e) if isinstance(e, ast.CallExpr) else self.rvalue(e)    # (a discarded RayQuery result too)
        if isinstance(v, (ir.Call, ir.Intrinsic)):
            self.emit(ir.Eval(v, e.loc))


def changed_by(v: ir.Expr, code: list[ir.Stmt]) -> bool:
    """Whether running `code` may change what `v` reads (left to right, `v` is then read before it): a
    resource's contents and a variable other than a local may change, a local only if `code` names it (no
    callee reaches a caller's local it is not given): a call's result temporary and constants do not.
    RayTCurrent() changes with an accepted ReportHit, in `code` or in a function it calls (DXIL's
    rayTCurrent is a read-only operation, read where the source reads it)."""
    walked = list(ir.walk_expr(v))
    refs = [x for x in walked if isinstance(x, ir.VarRef) or isinstance(x.type, ir.Resource)]
    reads_t = any(isinstance(x, ir.Intrinsic) and x.name == "RayTCurrent" for x in walked)
    if not refs and not reads_t:
        return False
    exprs = ir.body_exprs(code)
    if reads_t and _may_report_hit(exprs, set()):
        return True
    named = {id(x.var) for x in exprs if isinstance(x, ir.VarRef)}
    return any(not isinstance(x, ir.VarRef) or isinstance(x.type, ir.Resource) or x.var.storage is not ir.Storage.FUNCTION
               or id(x.var) in named for x in refs)


def _may_report_hit(exprs: list[ir.Expr], seen: set[int]) -> bool:
    """Whether these expressions call ReportHit, directly or through a function (one whose body is not
    lowered yet, a prototype defined later, may)."""
    for x in exprs:
        if isinstance(x, ir.Intrinsic) and x.name == "ReportHit":
            return True
        if isinstance(x, ir.Call) and id(x.func) not in seen:
            seen.add(id(x.func))
            if not x.func.body or _may_report_hit(ir.body_exprs(x.func.body), seen):
                return True
    return False


def _conditional_type(t: ir.Type) -> ir.Type:
    """DXC types `?:` from the rows and columns of the combined operands without their kind
    (SemaHLSL.cpp CheckVectorConditional: NewSimpleAggregateType(AR_TOBJ_INVALID, ...)): one row is a
    vector, so a `float1x3` result is a `float3` and a `float1x1` a scalar; `float3x1` stays a matrix."""
    if isinstance(t, ir.Matrix) and t.rows == 1:
        return ir.vec(t.elem, t.cols)
    return t


def _flat_scalars(t: ir.Type) -> list:
    """The scalar component types of an aggregate, in order."""
    if isinstance(t, ir.Struct):
        return [s for f in t.fields for s in _flat_scalars(f.type)]
    if isinstance(t, ir.Array):
        return _flat_scalars(t.elem) * (t.size or 0)
    s = ir.scalar_of(t)
    return [s] * ir.component_count(t) if s is not None else [t]


def scatter(places: list[ir.Expr]) -> Callable[[ir.Expr, SourceLoc | None], list[ir.Stmt]]:
    """The write-back of a multi-element matrix swizzle: component k of the value into places[k]."""
    def write_back(value: ir.Expr, loc: SourceLoc | None) -> list[ir.Stmt]:
        if len(places) == 1:
            return [ir.Store(places[0], value, loc)]
        return [ir.Store(p, ir.Extract(value, k, p.type), loc) for k, p in enumerate(places)]
    return write_back


def _field_index(t: ir.Struct, name: str, loc: SourceLoc, methods: dict[str, dict]) -> int:
    try:
        return t.field_index(name)
    except KeyError:
        if name in methods.get(t.name, {}):     # `s.f` without a call
            raise error("reference to non-static member function must be called", loc) from None
        raise error(f"no member named '{name}' in '{t}'", loc) from None


def _holds_resources(t: ir.Type | None) -> bool:
    while isinstance(t, ir.Array):
        t = t.elem
    return isinstance(t, ir.Resource)


def item_loc(init: ast.InitList) -> SourceLoc:
    return init.loc


__all__ = ["ExprLowering", "Diagnostic"]
