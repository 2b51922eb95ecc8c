"""Constant folding of 32- and 64-bit integer, float and bool operations (scalars and vectors).

Only what every Vulkan implementation computes exactly as D3D specifies is folded, so a folded
and an unfolded build agree: integer arithmetic wraps; division and remainder by zero, the
INT_MIN / -1 overflow, shifts by the bit width or more, float-to-integer conversions out of range
or of NaN (D3D saturates, SPIR-V leaves it undefined) stay for the device; float arithmetic is
folded only when inputs and result are normal or zero and finite (no denormal that a device may
flush, no NaN or infinity), with IEEE round-to-nearest-even (float32 results computed in double
then rounded are correctly rounded for + - * /; doubles are Python's own floats).
"""

from __future__ import annotations

import math
import struct

from .module import OP, Inst, ModuleInfo

M32 = 0xFFFFFFFF
_N = OP
_FMT = {32: ("<f", "<I"), 64: ("<d", "<Q")}


def _mask(w: int) -> int:
    return (1 << w) - 1


def _float(bits: int, w: int) -> float:
    f, i = _FMT[w]
    return struct.unpack(f, struct.pack(i, bits))[0]


def _bits(x: float, w: int) -> int | None:
    f, i = _FMT[w]
    try:
        b = struct.unpack(i, struct.pack(f, x))[0]
    except OverflowError:
        return None
    return b if _tame(b, w) else None


def _tame(bits: int, w: int) -> bool:
    """Finite, and normal or zero (a device may flush denormals)."""
    ebits, mbits = (8, 23) if w == 32 else (11, 52)
    e = (bits >> mbits) & _mask(ebits)
    return e != _mask(ebits) and (e != 0 or bits & _mask(mbits) == 0)


def _s(v: int, w: int = 32) -> int:
    return v - (1 << w) if v >> (w - 1) else v


def _sdiv(a: int, b: int, w: int) -> int | None:
    a, b = _s(a, w), _s(b, w)
    if b == 0 or (a == -(1 << (w - 1)) and b == -1):
        return None
    q = abs(a) // abs(b)
    return (q if (a < 0) == (b < 0) else -q) & _mask(w)


def _srem(a: int, b: int, w: int) -> int | None:
    q = _sdiv(a, b, w)
    return None if q is None else (_s(a, w) - _s(q, w) * _s(b, w)) & _mask(w)


def _fop(f):
    def run(a: int, b: int, w: int) -> int | None:
        if not (_tame(a, w) and _tame(b, w)):
            return None
        try:
            return _bits(f(_float(a, w), _float(b, w)), w)
        except ZeroDivisionError:
            return None
    return run


def _fcmp(f):
    def run(a: int, b: int, w: int) -> bool | None:
        return f(_float(a, w), _float(b, w)) if _tame(a, w) and _tame(b, w) else None
    return run


_INT_BIN = {
    "OpIAdd": lambda a, b, w: (a + b) & _mask(w), "OpISub": lambda a, b, w: (a - b) & _mask(w),
    "OpIMul": lambda a, b, w: (a * b) & _mask(w), "OpBitwiseAnd": lambda a, b, w: a & b,
    "OpBitwiseOr": lambda a, b, w: a | b, "OpBitwiseXor": lambda a, b, w: a ^ b,
    "OpShiftLeftLogical": lambda a, b, w: (a << b) & _mask(w) if b < w else None,
    "OpShiftRightLogical": lambda a, b, w: a >> b if b < w else None,
    "OpShiftRightArithmetic": lambda a, b, w: (_s(a, w) >> b) & _mask(w) if b < w else None,
    "OpUDiv": lambda a, b, w: a // b if b else None, "OpUMod": lambda a, b, w: a % b if b else None,
    "OpSDiv": _sdiv, "OpSRem": _srem,
}
_INT_CMP = {
    "OpIEqual": lambda a, b, w: a == b, "OpINotEqual": lambda a, b, w: a != b,
    "OpUGreaterThan": lambda a, b, w: a > b, "OpUGreaterThanEqual": lambda a, b, w: a >= b,
    "OpULessThan": lambda a, b, w: a < b, "OpULessThanEqual": lambda a, b, w: a <= b,
    "OpSGreaterThan": lambda a, b, w: _s(a, w) > _s(b, w), "OpSGreaterThanEqual": lambda a, b, w: _s(a, w) >= _s(b, w),
    "OpSLessThan": lambda a, b, w: _s(a, w) < _s(b, w), "OpSLessThanEqual": lambda a, b, w: _s(a, w) <= _s(b, w),
}
_BOOL_BIN = {
    "OpLogicalAnd": lambda a, b, w: a and b, "OpLogicalOr": lambda a, b, w: a or b,
    "OpLogicalEqual": lambda a, b, w: a == b, "OpLogicalNotEqual": lambda a, b, w: a != b,
}
_FLOAT_BIN = {
    "OpFAdd": _fop(lambda a, b: a + b), "OpFSub": _fop(lambda a, b: a - b),
    "OpFMul": _fop(lambda a, b: a * b), "OpFDiv": _fop(lambda a, b: a / b),
}
_FLOAT_CMP = {
    "OpFOrdEqual": _fcmp(lambda a, b: a == b), "OpFOrdNotEqual": _fcmp(lambda a, b: a != b),
    "OpFOrdLessThan": _fcmp(lambda a, b: a < b), "OpFOrdGreaterThan": _fcmp(lambda a, b: a > b),
    "OpFOrdLessThanEqual": _fcmp(lambda a, b: a <= b), "OpFOrdGreaterThanEqual": _fcmp(lambda a, b: a >= b),
    "OpFUnordEqual": _fcmp(lambda a, b: a == b), "OpFUnordNotEqual": _fcmp(lambda a, b: a != b),
    "OpFUnordLessThan": _fcmp(lambda a, b: a < b), "OpFUnordGreaterThan": _fcmp(lambda a, b: a > b),
    "OpFUnordLessThanEqual": _fcmp(lambda a, b: a <= b),
    "OpFUnordGreaterThanEqual": _fcmp(lambda a, b: a >= b),
}


def _f_to_int(signed: bool):
    def run(a: int, w: int, out_w: int) -> int | None:
        if not _tame(a, w):
            return None
        v = math.trunc(_float(a, w))
        lo, hi = (-(1 << (out_w - 1)), (1 << (out_w - 1)) - 1) if signed else (0, _mask(out_w))
        return v & _mask(out_w) if lo <= v <= hi else None
    return run


def _i_to_f(v: int, ow: int) -> int | None:
    """Only integers a double holds exactly: a float32 result is then rounded once, not twice."""
    return _bits(float(v), ow) if abs(v) <= 1 << 53 else None


# op -> (operand kind, result kind, fn(value, operand width, result width))
_UNARY = {
    "OpNot": ("int", "int", lambda a, w, ow: ~a & _mask(w)),
    "OpSNegate": ("int", "int", lambda a, w, ow: -a & _mask(w)),
    "OpLogicalNot": ("bool", "bool", lambda a, w, ow: not a),
    "OpIsNan": ("float", "bool", lambda a, w, ow: False if _tame(a, w) else None),
    "OpIsInf": ("float", "bool", lambda a, w, ow: False if _tame(a, w) else None),
    "OpFNegate": ("float", "float", lambda a, w, ow: a ^ (1 << (w - 1)) if _tame(a, w) else None),
    "OpConvertSToF": ("int", "float", lambda a, w, ow: _i_to_f(_s(a, w), ow)),
    "OpConvertUToF": ("int", "float", lambda a, w, ow: _i_to_f(a, ow)),
    "OpConvertFToS": ("float", "int", _f_to_int(True)),
    "OpConvertFToU": ("float", "int", _f_to_int(False)),
    "OpSConvert": ("int", "int", lambda a, w, ow: _s(a, w) & _mask(ow)),
    "OpUConvert": ("int", "int", lambda a, w, ow: a & _mask(ow)),
    "OpFConvert": ("float", "float", lambda a, w, ow: _bits(_float(a, w), ow) if _tame(a, w) else None),
}
# ordered integer comparisons, monotonic in each operand: op -> whether its operands are read as signed
_ORDERED = {OP[n]: n.startswith("OpS") for n in _INT_CMP if "Than" in n}
_BINARY: dict[int, tuple[str, str, object]] = {}
for _table, _kin, _kout in ((_INT_BIN, "int", "int"), (_INT_CMP, "int", "bool"), (_BOOL_BIN, "bool", "bool"),
                            (_FLOAT_BIN, "float", "float"), (_FLOAT_CMP, "float", "bool")):
    for _name, _fn in _table.items():
        _BINARY[OP[_name]] = (_kin, _kout, _fn)
_UNARY_OPS = {OP[k]: v for k, v in _UNARY.items()}
_SELECT, _CONSTRUCT, _BITCAST = OP["OpSelect"], OP["OpCompositeConstruct"], OP["OpBitcast"]
FOLDED = frozenset((_SELECT, _CONSTRUCT, _BITCAST, *_BINARY, *_UNARY_OPS))    # the opcodes Folder.fold looks at
_FMUL, _FDIV, _FSUB = OP["OpFMul"], OP["OpFDiv"], OP["OpFSub"]
_IADD, _ISUB, _IMUL, _IAND, _IOR, _IXOR, _SHL, _SHR, _SHRA = (OP[n] for n in (
    "OpIAdd", "OpISub", "OpIMul", "OpBitwiseAnd", "OpBitwiseOr", "OpBitwiseXor", "OpShiftLeftLogical",
    "OpShiftRightLogical", "OpShiftRightArithmetic"))
_C, _CT, _CF, _CC, _CN = (OP[n] for n in ("OpConstant", "OpConstantTrue", "OpConstantFalse",
                                          "OpConstantComposite", "OpConstantNull"))


class Folder:
    """Constants of the module by value, and the folding of one instruction."""

    def __init__(self, info: ModuleInfo) -> None:
        self.info = info
        self.scalar_kind: dict[int, str] = {}        # type -> 'int' | 'float' | 'bool' (32/64-bit and bool)
        self.width: dict[int, int] = {}              # scalar type -> bits (bool: 1)
        self.vector: dict[int, tuple[int, int]] = {}  # vector type -> (component type, count)
        self.interned: dict[tuple, int] = {}
        for x in info.m.globals:
            if x.op in (OP["OpTypeInt"], OP["OpTypeFloat"]) and x.w[1] in (32, 64):
                self.scalar_kind[x.w[0]] = "int" if x.op == OP["OpTypeInt"] else "float"
                self.width[x.w[0]] = x.w[1]
            elif x.op == OP["OpTypeBool"]:
                self.scalar_kind[x.w[0]] = "bool"
                self.width[x.w[0]] = 1
            elif x.op == OP["OpTypeVector"]:
                self.vector[x.w[0]] = (x.w[1], x.w[2])
            elif x.op in (_C, _CT, _CF, _CC):
                self.interned.setdefault((x.op, x.w[0], *x.w[2:]), x.w[1])

    def lanes(self, cid: int) -> tuple[int, list] | None:
        """(scalar type, lane values) of a constant: ints/float bits as integers, bools as bool."""
        d = self.info.defs.get(cid)
        if d is None:
            return None
        t = d.w[0]
        if t in self.scalar_kind:
            if d.op == _C and len(d.w) == 2 + self.width[t] // 32:
                return t, [d.w[2] | (d.w[3] << 32 if len(d.w) == 4 else 0)]
            if d.op in (_CT, _CF):
                return t, [d.op == _CT]
            if d.op == _CN:
                return t, [False if self.scalar_kind[t] == "bool" else 0]
            return None
        if t in self.vector:
            comp, n = self.vector[t]
            if d.op == _CN:
                return comp, [False if self.scalar_kind.get(comp) == "bool" else 0] * n
            if d.op == _CC:
                vals = []
                for part in d.w[2:]:
                    r = self.lanes(part)
                    if r is None:
                        return None
                    vals += r[1]
                return comp, vals
        return None

    def const(self, t: int, lanes: list) -> int:
        if t in self.vector:
            comp = self.vector[t][0]
            return self._intern(_CC, t, [self.const(comp, [v]) for v in lanes])
        v = lanes[0]
        if self.scalar_kind[t] == "bool":
            return self._intern(_CT if v else _CF, t, [])
        return self._intern(_C, t, [v & M32, v >> 32] if self.width[t] == 64 else [v])

    def _intern(self, op: int, t: int, words: list[int]) -> int:
        k = (op, t, *words)
        cid = self.interned.get(k)
        if cid is None:
            m = self.info.m
            cid = self.interned[k] = m.new_id()
            x = Inst(op, [t, cid, *words], 0, 1, tuple(range(2, 2 + len(words))) if op == _CC else ())
            m.globals.append(x)
            self.info.defs[cid] = x
            if op == _C and self.scalar_kind.get(t) == "int" and self.width[t] == 32:
                self.info.int_const[cid] = words[0]
        return cid

    def _identity(self, op: int, x: Inst, a, b, type_of) -> int | None:
        """Integer x+0, 0+x, x-0, x*1, 1*x, x|0, x^0 are x; x*0, 0*x, x&0 are 0 (exact for integers)."""
        const, other = (a, x.w[3]) if a is not None else (b, x.w[2])
        vals = set(const[1])
        if len(vals) != 1:
            return None
        v = vals.pop()
        t = x.w[0]
        if t not in self.vector and t not in self.scalar_kind:
            return None
        keeps = type_of(other) == t          # operands may differ from the result in signedness only
        if v == 0 and op in (_IADD, _IOR, _IXOR) or (v == 0 and op in (_ISUB, _SHL, _SHR, _SHRA) and b is not None):
            return other if keeps else None
        if v == 1 and op == _IMUL:
            return other if keeps else None
        if v == 0 and op in (_IMUL, _IAND):
            return self.const(t, [0] * (self.vector[t][1] if t in self.vector else 1))
        return None

    def _float_identity(self, op: int, x: Inst, a, b) -> int | None:
        """x*1.0, 1.0*x, x/1.0 and x-0.0 are x, bit for bit (also for -0, infinities and NaNs)."""
        const, other = (a, x.w[3]) if a is not None else (b, x.w[2])
        vals = set(const[1])
        if len(vals) != 1:
            return None
        one = 0x3F800000 if self.width[const[0]] == 32 else 0x3FF0000000000000
        v = vals.pop()
        if (v == one and (op == _FMUL or (op == _FDIV and b is not None))) or (v == 0 and op == _FSUB and b is not None):
            return other
        return None

    def _bound_compare(self, op: int, x: Inst, a, b) -> int | None:
        """`x > INT_MAX`, `x < 0u`, `x >= INT_MIN`, `UINT_MAX >= x`...: an ordered comparison against its type's
        extreme has one answer for every x (it is monotonic in x, so its answers at x's least and greatest
        values decide).  Lavapipe (Mesa 25.0) hangs compiling a loop with `i > INT_MAX` in it (shapes
        program 611); LLVM's instcombine folds these too."""
        const = a if a is not None else b
        if self.scalar_kind.get(const[0]) != "int":
            return None
        w = self.width[const[0]]
        lo, hi = ((1 << (w - 1), (1 << (w - 1)) - 1) if _ORDERED[op] else (0, _mask(w)))
        fn = _BINARY[op][2]
        out: list[bool] = []
        for c in const[1]:
            ends = {fn(v, c, w) if a is None else fn(c, v, w) for v in (lo, hi)}     # type: ignore[operator]
            if len(ends) != 1:
                return None
            out += ends
        return self.const(x.w[0], out)

    def _bitcast(self, t: int, rt: int, operand: int) -> int | None:
        """A constant reinterpreted: all lanes as one little-endian bit string, cut into the result's."""
        a = self.lanes(operand)
        if a is None or a[0] not in self.scalar_kind or self.scalar_kind[a[0]] == "bool" \
                or self.scalar_kind[rt] == "bool":
            return None
        w, ow = self.width[a[0]], self.width[rt]
        bits = sum(v << (i * w) for i, v in enumerate(a[1]))
        n = self.vector[t][1] if t in self.vector else 1
        if n * ow != len(a[1]) * w:
            return None
        return self.const(t, [(bits >> (i * ow)) & _mask(ow) for i in range(n)])

    def fold(self, x: Inst, type_of) -> int | None:
        """The constant (or operand) `x` always yields, or None; type_of(id) gives a value's type."""
        op = x.op
        if op == _SELECT:
            if x.w[3] == x.w[4]:
                return x.w[3]
            c = self.lanes(x.w[2])
            if c is not None and len(c[1]) == 1:
                return x.w[3] if c[1][0] else x.w[4]
            return None
        if op == _CONSTRUCT:
            t = x.w[0]
            if t in self.vector and all(self.lanes(p) is not None for p in x.w[2:]):
                comp = self.vector[t][0]
                vals: list = []
                for p in x.w[2:]:
                    vals += self.lanes(p)[1]      # type: ignore[index]
                if len(vals) == self.vector[t][1] and comp in self.scalar_kind:
                    return self.const(t, vals)
            return None
        t = x.w[0]
        rt = self.vector[t][0] if t in self.vector else t
        if rt not in self.scalar_kind:
            return None
        if op == _BITCAST:
            return self._bitcast(t, rt, x.w[2])
        spec = _BINARY.get(op)
        if spec is not None:
            kin, kout, fn = spec
            a, b = self.lanes(x.w[2]), self.lanes(x.w[3])
            if kin == "int" and kout == "int" and (a is None) != (b is None):
                return self._identity(op, x, a, b, type_of)
            if kout == "bool" and op in _ORDERED and (a is None) != (b is None):
                return self._bound_compare(op, x, a, b)
            if kin == "float" and kout == "float" and (a is None) != (b is None):
                return self._float_identity(op, x, a, b)
            if a is None or b is None or len(a[1]) != len(b[1]) or self.scalar_kind.get(a[0]) != kin \
                    or self.scalar_kind.get(b[0]) != kin or self.width[a[0]] != self.width[b[0]]:
                return None
            w = self.width[a[0]]
            if kout != "bool" and w != self.width[rt]:
                return None
            out = [fn(p, q, w) for p, q in zip(a[1], b[1])]     # type: ignore[operator]
        else:
            u = _UNARY_OPS.get(op)
            if u is None:
                return None
            kin, kout, fn = u
            a = self.lanes(x.w[2])
            if a is None or a[0] not in self.scalar_kind or self.scalar_kind[a[0]] != kin:
                return None
            out = [fn(p, self.width[a[0]], self.width[rt]) for p in a[1]]
        if any(v is None for v in out) or len(out) != (self.vector[t][1] if t in self.vector else 1):
            return None
        if self.scalar_kind[rt] != kout:
            return None
        return self.const(t, out)
