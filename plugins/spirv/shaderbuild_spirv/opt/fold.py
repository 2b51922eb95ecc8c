"""Constant folding of 32-bit integer, float and bool operations (scalars and vectors).

Only what every Vulkan implementation computes exactly as D3D specifies is folded, so a folded
and an unfolded build agree: integer arithmetic wraps; division and remainder by zero, the
INT_MIN / -1 overflow, shifts by 32 or more, float-to-integer conversions out of range or of
NaN (D3D saturates, SPIR-V leaves it undefined) stay for the device; float arithmetic is
folded only when inputs and result are normal or zero and finite (no denormal that a device may
flush, no NaN or infinity), with IEEE round-to-nearest-even (float32 results computed in double
then rounded are correctly rounded for + - * /).
"""

from __future__ import annotations

import math
import struct

from .module import OP, Inst, ModuleInfo

M32 = 0xFFFFFFFF
_N = OP


def _f32(bits: int) -> float:
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def _bits(x: float) -> int | None:
    try:
        b = struct.unpack("<I", struct.pack("<f", x))[0]
    except OverflowError:
        return None
    return b if _tame(b) else None


def _tame(bits: int) -> bool:
    """Finite, and normal or zero (a device may flush denormals)."""
    e = (bits >> 23) & 0xFF
    return e != 0xFF and (e != 0 or bits & 0x7FFFFF == 0)


def _s(v: int) -> int:
    return v - (1 << 32) if v >> 31 else v


def _sdiv(a: int, b: int) -> int | None:
    a, b = _s(a), _s(b)
    if b == 0 or (a == -(1 << 31) and b == -1):
        return None
    q = abs(a) // abs(b)
    return (q if (a < 0) == (b < 0) else -q) & M32


def _srem(a: int, b: int) -> int | None:
    q = _sdiv(a, b)
    return None if q is None else (_s(a) - _s(q) * _s(b)) & M32


def _fop(f):
    def run(a: int, b: int) -> int | None:
        if not (_tame(a) and _tame(b)):
            return None
        try:
            return _bits(f(_f32(a), _f32(b)))
        except ZeroDivisionError:
            return None
    return run


def _fcmp(f):
    def run(a: int, b: int) -> bool | None:
        return f(_f32(a), _f32(b)) if _tame(a) and _tame(b) else None
    return run


_INT_BIN = {
    "OpIAdd": lambda a, b: (a + b) & M32, "OpISub": lambda a, b: (a - b) & M32,
    "OpIMul": lambda a, b: (a * b) & M32, "OpBitwiseAnd": lambda a, b: a & b,
    "OpBitwiseOr": lambda a, b: a | b, "OpBitwiseXor": lambda a, b: a ^ b,
    "OpShiftLeftLogical": lambda a, b: (a << b) & M32 if b < 32 else None,
    "OpShiftRightLogical": lambda a, b: a >> b if b < 32 else None,
    "OpShiftRightArithmetic": lambda a, b: (_s(a) >> b) & M32 if b < 32 else None,
    "OpUDiv": lambda a, b: a // b if b else None, "OpUMod": lambda a, b: a % b if b else None,
    "OpSDiv": _sdiv, "OpSRem": _srem,
}
_INT_CMP = {
    "OpIEqual": lambda a, b: a == b, "OpINotEqual": lambda a, b: a != b,
    "OpUGreaterThan": lambda a, b: a > b, "OpUGreaterThanEqual": lambda a, b: a >= b,
    "OpULessThan": lambda a, b: a < b, "OpULessThanEqual": lambda a, b: a <= b,
    "OpSGreaterThan": lambda a, b: _s(a) > _s(b), "OpSGreaterThanEqual": lambda a, b: _s(a) >= _s(b),
    "OpSLessThan": lambda a, b: _s(a) < _s(b), "OpSLessThanEqual": lambda a, b: _s(a) <= _s(b),
}
_BOOL_BIN = {
    "OpLogicalAnd": lambda a, b: a and b, "OpLogicalOr": lambda a, b: a or b,
    "OpLogicalEqual": lambda a, b: a == b, "OpLogicalNotEqual": lambda a, b: a != b,
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
    def run(a: int) -> int | None:
        if not _tame(a):
            return None
        v = math.trunc(_f32(a))
        lo, hi = (-(1 << 31), (1 << 31) - 1) if signed else (0, M32)
        return v & M32 if lo <= v <= hi else None
    return run


_UNARY = {
    "OpNot": ("int", "int", lambda a: ~a & M32), "OpSNegate": ("int", "int", lambda a: -a & M32),
    "OpLogicalNot": ("bool", "bool", lambda a: not a),
    "OpFNegate": ("float", "float", lambda a: a ^ 0x80000000 if _tame(a) else None),
    "OpConvertSToF": ("int", "float", lambda a: _bits(float(_s(a)))),
    "OpConvertUToF": ("int", "float", lambda a: _bits(float(a))),
    "OpConvertFToS": ("float", "int", _f_to_int(True)),
    "OpConvertFToU": ("float", "int", _f_to_int(False)),
    "OpBitcast": ("any", "any", lambda a: a),
}
_BINARY: dict[int, tuple[str, str, object]] = {}
for _table, _kin, _kout in ((_INT_BIN, "int", "int"), (_INT_CMP, "int", "bool"), (_BOOL_BIN, "bool", "bool"),
                            (_FLOAT_BIN, "float", "float"), (_FLOAT_CMP, "float", "bool")):
    for _name, _fn in _table.items():
        _BINARY[OP[_name]] = (_kin, _kout, _fn)
_UNARY_OPS = {OP[k]: v for k, v in _UNARY.items()}
_SELECT, _CONSTRUCT = OP["OpSelect"], OP["OpCompositeConstruct"]
_IADD, _ISUB, _IMUL, _IAND, _IOR, _IXOR, _SHL, _SHR, _SHRA = (OP[n] for n in (
    "OpIAdd", "OpISub", "OpIMul", "OpBitwiseAnd", "OpBitwiseOr", "OpBitwiseXor", "OpShiftLeftLogical",
    "OpShiftRightLogical", "OpShiftRightArithmetic"))
_C, _CT, _CF, _CC, _CN = (OP[n] for n in ("OpConstant", "OpConstantTrue", "OpConstantFalse",
                                          "OpConstantComposite", "OpConstantNull"))


class Folder:
    """Constants of the module by value, and the folding of one instruction."""

    def __init__(self, info: ModuleInfo) -> None:
        self.info = info
        self.scalar_kind: dict[int, str] = {}        # type -> 'int' | 'float' | 'bool' (32-bit / bool only)
        self.vector: dict[int, tuple[int, int]] = {}  # vector type -> (component type, count)
        self.interned: dict[tuple, int] = {}
        for x in info.m.globals:
            if x.op == OP["OpTypeInt"] and x.w[1] == 32:
                self.scalar_kind[x.w[0]] = "int"
            elif x.op == OP["OpTypeFloat"] and x.w[1] == 32:
                self.scalar_kind[x.w[0]] = "float"
            elif x.op == OP["OpTypeBool"]:
                self.scalar_kind[x.w[0]] = "bool"
            elif x.op == OP["OpTypeVector"]:
                self.vector[x.w[0]] = (x.w[1], x.w[2])
            elif x.op in (_C, _CT, _CF, _CC):
                self.interned.setdefault((x.op, x.w[0], *x.w[2:]), x.w[1])

    def lanes(self, cid: int) -> tuple[int, list] | None:
        """(scalar type, lane values) of a constant: ints/float bits as words, bools as bool."""
        d = self.info.defs.get(cid)
        if d is None:
            return None
        t = d.w[0]
        if t in self.scalar_kind:
            if d.op == _C and len(d.w) == 3:
                return t, [d.w[2]]
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
        return self._intern(_C, t, [v])

    def _intern(self, op: int, t: int, words: list[int]) -> int:
        k = (op, t, *words)
        cid = self.interned.get(k)
        if cid is None:
            m = self.info.m
            cid = self.interned[k] = m.new_id()
            x = Inst(op, [t, cid, *words], 0, 1, tuple(range(2, 2 + len(words))) if op == _CC else ())
            m.globals.append(x)
            self.info.defs[cid] = x
            if op == _C and self.scalar_kind.get(t) == "int":
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

    def fold(self, x: Inst, type_of) -> int | None:
        """The constant (or operand) `x` always yields, or None; type_of(id) gives a value's type."""
        op = x.op
        if op == _SELECT:
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
        spec = _BINARY.get(op)
        if spec is not None:
            kin, kout, fn = spec
            a, b = self.lanes(x.w[2]), self.lanes(x.w[3])
            if kin == "int" and kout == "int" and (a is None) != (b is None):
                return self._identity(op, x, a, b, type_of)
            if a is None or b is None or len(a[1]) != len(b[1]) or self.scalar_kind.get(a[0]) != kin \
                    or self.scalar_kind.get(b[0]) != kin:
                return None
            out = [fn(p, q) for p, q in zip(a[1], b[1])]     # type: ignore[operator]
        else:
            u = _UNARY_OPS.get(op)
            if u is None:
                return None
            kin, kout, fn = u
            a = self.lanes(x.w[2])
            if a is None or (kin != "any" and self.scalar_kind.get(a[0]) != kin) or a[0] not in self.scalar_kind:
                return None
            out = [fn(p) for p in a[1]]
        t = x.w[0]
        if any(v is None for v in out) or len(out) != (self.vector[t][1] if t in self.vector else 1):
            return None
        rt = self.vector[t][0] if t in self.vector else t
        if rt not in self.scalar_kind or (kout != "any" and self.scalar_kind[rt] != kout):
            return None
        if kout == "any" and (self.scalar_kind[rt] == "bool") != (self.scalar_kind[a[0]] == "bool"):
            return None
        return self.const(t, out)
