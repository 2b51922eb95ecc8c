"""Structs and arrays moved through assignments, functions and storage, their values tracked here (issue 20:
silent wrong values).

A program declares a few struct types (nested; fields of int, int vectors, int matrices, arrays and arrays of
arrays of them, structs and arrays of structs; the innermost struct has member functions, one of them
mutating `this`) and a twin of the innermost struct with the same layout, then runs statements over locals,
a `static` global and a `groupshared` variable: declarations with initializer lists (flattened, or with braces
nested as the type), whole and partial assignments (a scalar, a vector, a row, a nested struct or an array
element, vector lanes through a swizzle), indices read at run time from a buffer (always in range), calls passing
aggregates (structs, arrays of structs) `in` (the callee's writes to its copy stay there), `out` and `inout`, and
parts of them (a nested struct, an element at a run-time index, a vector field) `inout`, calls of functions
returning a struct from inside
a loop or a switch (early returns), member function calls, and casts to the same-layout twin.  Arguments of
one call never alias each other (the order of copy-out is pinned nowhere we rely on).  Every variable's value
is tracked in Python by HLSL's rules (value semantics for aggregates, copy-in/copy-out for parameters,
initializer lists flattened in declaration order, matrices by rows), and the program stores some of their
components; `expected` is what the stores must write, computed here, not by the compiler.

`generate_wide` draws the same programs over components of float, half, double, int16_t, uint16_t, int64_t,
uint64_t, bool and int (-enable-16bit-types): integers wrap at their width, floats are small integers and halves
whose sums stay exact and non-zero (a draw that would round or give a zero is redrawn), `d` arguments convert to
each component's type exactly, and casts between component types are drawn only where they are exact.  The
program stores components with RWByteAddressBuffer.Store<T>, one struct with Store<T> and one as a
RWStructuredBuffer<T> element; their bytes are placed by layout_gen's rules (D3D's dx_sb, DXC's std430 for the
SPIR-V structured buffer) and every other byte must keep its sentinel.
"""

from __future__ import annotations

import copy
import random
import struct
from dataclasses import dataclass

from . import layout_gen, wide_gen

OUT_SLOTS = 48


def wrap(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v


# ------------------------------------------------------------------ types and values

@dataclass(frozen=True)
class Ty:
    kind: str                       # int, vec, mat, arr, struct
    n: int = 0                      # vec size, mat rows, arr length
    c: int = 0                      # mat columns
    elem: Ty | None = None          # arr element
    name: str = ""                  # struct name
    fields: tuple = ()              # struct (name, Ty) pairs
    s: str = "int"                  # the scalar type of an int (a scalar), vec or mat

    def hlsl(self) -> str:
        """The type's name (arrays: the element's; dims() gives the brackets)."""
        if self.kind == "int":
            return self.s
        if self.kind == "vec":
            return f"{self.s}{self.n}"
        if self.kind == "mat":
            return f"{self.s}{self.n}x{self.c}"
        if self.kind == "arr":
            assert self.elem is not None
            return self.elem.hlsl()
        return self.name

    def dims(self) -> str:
        t, out = self, ""
        while t.kind == "arr":
            out += f"[{t.n}]"
            assert t.elem is not None
            t = t.elem
        return out


INT = Ty("int")


def zero(t: Ty):
    if t.kind == "int":
        return 0
    if t.kind == "vec":
        return [0] * t.n
    if t.kind == "mat":
        return [[0] * t.c for _ in range(t.n)]
    if t.kind == "arr":
        assert t.elem is not None
        return [zero(t.elem) for _ in range(t.n)]
    return {f: zero(ft) for f, ft in t.fields}


def flatten(t: Ty, v) -> list[int]:
    """The components in HLSL's initializer-list order (struct fields, array elements, matrix rows)."""
    if t.kind == "int":
        return [v]
    if t.kind == "vec":
        return list(v)
    if t.kind == "mat":
        return [x for row in v for x in row]
    if t.kind == "arr":
        assert t.elem is not None
        return [x for e in v for x in flatten(t.elem, e)]
    return [x for f, ft in t.fields for x in flatten(ft, v[f])]


def unflatten(t: Ty, comps: list[int]):
    it = iter(comps)

    def build(t: Ty):
        if t.kind == "int":
            return next(it)
        if t.kind == "vec":
            return [next(it) for _ in range(t.n)]
        if t.kind == "mat":
            return [[next(it) for _ in range(t.c)] for _ in range(t.n)]
        if t.kind == "arr":
            assert t.elem is not None
            return [build(t.elem) for _ in range(t.n)]
        return {f: build(ft) for f, ft in t.fields}
    return build(t)


def braces(t: Ty, v, lit, ctor=lambda: False) -> str:
    """An initializer with braces nested as the type; a vector or matrix as braces, or as a constructor where
    `ctor()` says so (`int2(1, 2)`, `int2x2(1, 2, 3, 4)`: the same components).  lit(value, scalar type)."""
    if t.kind == "int":
        return lit(v, t.s)
    if t.kind in ("vec", "mat") and ctor():
        return f"{t.hlsl()}({', '.join(lit(x, t.s) for x in flatten(t, v))})"
    if t.kind == "vec":
        return "{" + ", ".join(lit(x, t.s) for x in v) + "}"
    if t.kind == "mat":
        return "{" + ", ".join("{" + ", ".join(lit(x, t.s) for x in r) + "}" for r in v) + "}"
    if t.kind == "arr":
        assert t.elem is not None
        return "{" + ", ".join(braces(t.elem, e, lit, ctor) for e in v) + "}"
    return "{" + ", ".join(braces(ft, v[f], lit, ctor) for f, ft in t.fields) + "}"


# A step of an access path: ("f", name) a field, ("i", k) an array element / vector component / matrix row,
Step = tuple


def subpaths(t: Ty, prefix: tuple = ()) -> list[tuple[tuple, Ty]]:
    """Every (path, type) inside t, t itself first (matrix rows are int vectors)."""
    out = [(prefix, t)]
    if t.kind == "vec":
        out += [((*prefix, ("i", k)), Ty("int", s=t.s)) for k in range(t.n)]
    elif t.kind == "mat":
        for r in range(t.n):
            out += subpaths(Ty("vec", t.c, s=t.s), (*prefix, ("i", r)))
    elif t.kind == "arr":
        assert t.elem is not None
        for k in range(t.n):
            out += subpaths(t.elem, (*prefix, ("i", k)))
    elif t.kind == "struct":
        for f, ft in t.fields:
            out += subpaths(ft, (*prefix, ("f", f)))
    return out


def get(v, path: tuple):
    for _kind, key in path:
        v = v[key]
    return v


def put(v, path: tuple, x):
    """v with the value at path replaced by x (v is changed in place unless path is empty)."""
    if not path:
        return x
    target = get(v, path[:-1])
    target[path[-1][1]] = x
    return v


# ------------------------------------------------------------------ drawing

@dataclass
class _Fn:
    name: str
    text: str


@dataclass
class AggProgram:
    source: str
    inputs: list[int]
    expected: list[int]


VALUES = (0, 1, -1, 2, 3, 5, 7, -8, 10, 100, -1000, 0x7FFFFFFF, -0x80000000)
# wide programs (generate_wide): scalars of every type, floats exact (small integers and halves) and never zero:
# Vulkan does not pin a zero's sign (lavapipe stores -0.0 for a 0.0 read from {-1.0, 0.0} at a run-time index:
# test_fuzz_regressions.py, LAVAPIPE_NEGATIVE_ZERO)
WIDE_SCALARS = ("float", "half", "double", "int16_t", "uint16_t", "int64_t", "uint64_t", "bool", "int")
_FLOAT_VALUES = (1.5, 1.0, -1.0, 0.5, 2.0, -2.5, 3.0, 7.5, 10.0, -8.0, 100.0)
WIDE_VALUES = {
    "int": VALUES, "float": _FLOAT_VALUES, "half": _FLOAT_VALUES, "double": _FLOAT_VALUES,
    "int16_t": (0, 1, -1, 2, 7, -8, 100, 0x7FFF, -0x8000), "uint16_t": (0, 1, 2, 7, 100, 0x8000, 0xFFFF),
    "int64_t": (0, 1, -1, 3, -8, 100, 1 << 32, -(1 << 40) + 3, (1 << 63) - 1, -(1 << 63)),
    "uint64_t": (0, 1, 2, 7, 100, 1 << 32, 1 << 63, (1 << 64) - 1), "bool": (False, True)}
D_VALUES = (1, -1, 2, 3, 5, 7, -8, 10)     # a wide program's `d` arguments: exact and non-zero in every type
FLOAT_LIMIT = 1024.0                          # |float result| beyond which a half may round: the program is redrawn
SLOT = 8                                      # bytes per In / Out value of a wide program
RAW_AT = 16                                   # RWByteAddressBuffer.Store<T>(RAW_AT, ...)
OPTIONS = wide_gen.OPTIONS


def _lit(v: int) -> str:
    return "int(-2147483647 - 1)" if v == -0x80000000 else f"({v})" if v < 0 else str(v)


def wide_lit(v, s: str) -> str:
    if s == "bool":
        return "true" if v else "false"
    if s in wide_gen.FLOATS:
        return wide_gen._float_literal(float(v), s)
    return _lit(v) if s == "int" else wide_gen._int_literal(v, s)


class Inexact(Exception):
    """A float result that may round, or a zero (the program is redrawn: every float value stays exact and
    non-zero)."""


def ops_of(s: str) -> tuple[str, ...]:
    return ("=",) if s == "bool" else ("=", "+=") if s in wide_gen.FLOATS else ("=", "+=", "^=")


def arith(cur, op: str, v, s: str):
    """`cur op v` in scalar type s (v already of type s)."""
    if op == "=":
        return v
    if s in wide_gen.FLOATS:
        assert op == "+="
        r = cur + v
        if r == 0 or abs(r) > FLOAT_LIMIT or wide_gen.round_to(r, wide_gen.TYPES[s][1]) != r:
            raise Inexact(f"{cur} + {v} in {s}")
        return r
    return wide_gen.wrap(cur + v if op == "+=" else cur ^ v, s)


def scalar_types(t: Ty) -> list[str]:
    """The scalar type of every component, in flatten()'s order."""
    return [pt.s for _p, pt in subpaths(t) if pt.kind == "int"]


def castable(v, src: str, dst: str) -> bool:
    """Whether `(dst)v` is exact and defined (no float -> integer out of range, no rounding)."""
    sk, dk = wide_gen.TYPES[src][0], wide_gen.TYPES[dst][0]
    if dk == "float" and v == 0:
        return False            # a zero float: see _FLOAT_VALUES
    if dk == "float" and sk in ("int", "uint"):
        return abs(v) <= 2048
    if sk == "float" and dk in ("int", "uint"):
        kind, width = wide_gen.TYPES[dst]
        lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if kind == "int" else (0, (1 << width) - 1)
        return lo <= v <= hi
    return True


class _Draw:
    def __init__(self, rng: random.Random, wide: bool = False) -> None:
        self.rng = rng
        self.wide = wide
        self.inputs: list = []                           # ints; wide: (type, value)
        self.vars: dict[str, tuple[Ty, object]] = {}     # name -> (type, value)
        self.lines: list[str] = []
        self.fns: list[_Fn] = []
        self.structs: list[Ty] = []
        self.globals: list[str] = []
        self.sum_paths: list[tuple] = []
        self.sum_s = "int"
        self.bump_path: tuple = ()
        self.bump_s = "int"
        self.n = 0

    def fresh(self, p: str) -> str:
        self.n += 1
        return f"{p}{self.n}"

    def input(self, v, s: str = "int") -> str:
        """A run-time read of v (of type s)."""
        if not self.wide:
            self.inputs.append(v)
            return f"In[{len(self.inputs) - 1}]"
        self.inputs.append((s, v))
        at = SLOT * (len(self.inputs) - 1)
        return f"(In.Load<uint>({at}) != 0u)" if s == "bool" else f"In.Load<{s}>({at})"

    def values(self, s: str) -> tuple:
        return WIDE_VALUES[s] if self.wide else VALUES

    def lit(self, v, s: str = "int") -> str:
        return wide_lit(v, s) if self.wide else _lit(v)

    # ---------------------------------------------------------------- types
    def leaf_type(self) -> Ty:
        r = self.rng
        s = r.choice(WIDE_SCALARS) if self.wide else "int"
        one = Ty("int", s=s)
        c = r.random()
        if c < 0.3:
            return one
        if c < 0.55:
            return Ty("vec", r.randint(2, 4), s=s)
        if c < 0.7:
            return Ty("mat", r.randint(1, 3), r.randint(2, 3), s=s)
        if c < 0.85:
            return Ty("arr", r.randint(2, 3), elem=r.choice((one, Ty("vec", 2, s=s))))
        return Ty("arr", 2, elem=Ty("arr", r.randint(2, 3), elem=one))

    def make_structs(self) -> None:
        r = self.rng
        inner = Ty("struct", name="S0", fields=tuple((f"f{k}", self.leaf_type()) for k in range(r.randint(2, 3))))
        inner = Ty("struct", name="S0", fields=((("x", INT),) + inner.fields))
        twin = Ty("struct", name="T0", fields=tuple((f"g{k}", ft) for k, (_f, ft) in enumerate(inner.fields)))
        mid_fields = [("s", inner), ("arr", Ty("arr", 2, elem=inner))] + [(f"h{k}", self.leaf_type())
                                                                          for k in range(r.randint(1, 2))]
        r.shuffle(mid_fields)
        mid = Ty("struct", name="S1", fields=tuple(mid_fields))
        top = Ty("struct", name="S2", fields=(("m", mid), ("y", INT), ("ms", Ty("arr", 2, elem=mid))))
        self.structs = [inner, twin, mid] + ([top] if r.random() < 0.4 else [])

    def _scalars(self, t: Ty, arith_only: bool = False) -> list[tuple[tuple, str]]:
        """(path, scalar type) of t's components below t (arith_only: no bools)."""
        return [(p, pt.s) for p, pt in subpaths(t) if pt.kind == "int" and p and not (arith_only and pt.s == "bool")]

    def struct_text(self, t: Ty) -> str:
        lines = [f"struct {t.name} {{"]
        lines += [f"    {ft.hlsl()} {f}{ft.dims()};" for f, ft in t.fields]
        if t.name == "S0":
            scalars = self._scalars(t)
            if self.wide:      # sum() adds fields of one type (x is an int, so there is one)
                self.sum_s = self.rng.choice(sorted({s for _p, s in scalars if s != "bool"}))
            same = [p for p, s in scalars if s == self.sum_s]
            self.sum_paths = self.rng.sample(same, min(3, len(same)))
            lines.append(f"    {self.sum_s} sum() {{ return "
                         + " + ".join(self.text(p, False)[1:] for p in self.sum_paths) + "; }")
            self.bump_path, self.bump_s = self.rng.choice(scalars)
            op = "=" if self.bump_s == "bool" else "+="
            cast = "" if self.bump_s == "int" else f"({self.bump_s})"
            lines.append(f"    void bump(int d) {{ {self.text(self.bump_path, False)[1:]} {op} {cast}d; }}")
        lines.append("};")
        return "\n".join(lines)

    # ---------------------------------------------------------------- paths
    def text(self, path: tuple, runtime: bool | None = None) -> str:
        """HLSL for a path; indices literal, or read at run time (runtime None: drawn)."""
        out = ""
        for kind, key in path:
            if kind == "f":
                out += f".{key}"
            else:
                dyn = self.rng.random() < 0.35 if runtime is None else runtime
                out += f"[{self.input(key)}]" if dyn else f"[{key}]"
        return out

    def scalar(self, s: str = "int", small: bool = False) -> tuple[str, object]:
        """An expression of scalar type s and its value: a literal, an input, or a component of a variable
        (wide: perhaps of another type, cast where the conversion is exact); small: a `d` argument."""
        r = self.rng
        if small:
            v = r.choice(D_VALUES)
            return (self.input(v, s) if r.random() < 0.5 else self.lit(v, s)), v
        c = r.random()
        if c < 0.3 or not self.vars:
            v = r.choice(self.values(s))
            return self.lit(v, s), v
        if c < 0.45:
            v = r.choice(self.values(s))
            return self.input(v, s), v
        name = r.choice(sorted(self.vars))
        t, val = self.vars[name]
        cands = [(p, pt.s) for p, pt in subpaths(t) if pt.kind == "int"
                 and (pt.s == s or castable(get(val, p), pt.s, s))]
        if not cands:
            v = r.choice(self.values(s))
            return self.lit(v, s), v
        p, ps = r.choice(cands)
        e, v = name + self.text(p), get(val, p)
        return (e, v) if ps == s else (f"(({s})({e}))", wide_gen.convert(v, ps, s))

    def var_of(self, pred) -> tuple[str, Ty] | None:
        names = [n for n, (t, _v) in self.vars.items() if pred(t)]
        if not names:
            return None
        n = self.rng.choice(sorted(names))
        return n, self.vars[n][0]

    # ---------------------------------------------------------------- statements
    def init_text(self, t: Ty, v) -> str:
        r = self.rng
        def lit(x, s: str) -> str:
            return self.input(x, s) if r.random() < 0.3 else self.lit(x, s)
        if r.random() < 0.5:
            return "{" + ", ".join(lit(x, s) for x, s in zip(flatten(t, v), scalar_types(t))) + "}"
        return braces(t, v, lit, lambda: r.random() < 0.4)

    def drawn(self, t: Ty):
        return unflatten(t, [self.rng.choice(self.values(s)) for s in scalar_types(t)])

    def declare(self, t: Ty) -> None:
        name = self.fresh("v")
        v = self.drawn(t)
        self.lines.append(f"    {t.hlsl()} {name}{t.dims()} = {self.init_text(t, v)};")
        self.vars[name] = (t, v)

    def step(self) -> None:
        r = self.rng
        kind = r.choice(("declare", "declare_arr", "whole", "scalar", "part", "part", "inout", "inout_part", "swizzle", "out", "in",
                         "loop_ret", "switch_ret", "member", "cast", "static", "shared"))
        getattr(self, f"s_{kind}")()

    def s_declare(self) -> None:
        self.declare(self.rng.choice(self.structs))

    def s_declare_arr(self) -> None:
        self.declare(Ty("arr", self.rng.randint(2, 3), elem=self.rng.choice(self.structs[:1] + self.structs[2:])))

    def s_whole(self) -> None:
        a = self.var_of(lambda t: True)
        assert a is not None
        an, at = a
        b = self.var_of(lambda t: t == at)
        assert b is not None
        bn, _bt = b
        self.lines.append(f"    {an} = {bn};")
        self.vars[an] = (at, copy.deepcopy(self.vars[bn][1]))

    def s_scalar(self) -> None:
        a = self.var_of(lambda t: True)
        assert a is not None
        an, at = a
        p, s = self.rng.choice([(p, pt.s) for p, pt in subpaths(at) if pt.kind == "int"])
        e, v = self.scalar(s)
        op = self.rng.choice(ops_of(s))
        new = arith(get(self.vars[an][1], p), op, v, s)
        self.lines.append(f"    {an}{self.text(p)} {op} {e};")
        self.vars[an] = (at, put(self.vars[an][1], p, new))      # an int variable's path is empty

    def s_swizzle(self) -> None:
        """A vector field (or matrix row) written through a swizzle of distinct components, `=` or `+=`."""
        refs = [(n, q, qt) for n, (t, _v) in sorted(self.vars.items()) for q, qt in subpaths(t)
                if qt.kind == "vec"]
        if not refs:
            return self.s_scalar()
        n, q, qt = self.rng.choice(refs)
        lanes = self.rng.sample(range(qt.n), self.rng.randint(1, qt.n))
        vals = [self.scalar(qt.s) for _ in lanes]      # read before the write: the right side is evaluated first
        op = self.rng.choice(ops_of(qt.s)[:2])
        sw = "".join("xyzw"[k] for k in lanes)
        rhs = vals[0][0] if len(lanes) == 1 else f"{qt.s}{len(lanes)}({', '.join(e for e, _v in vals)})"
        news = [arith(get(self.vars[n][1], q)[k], op, v, qt.s) for k, (_e, v) in zip(lanes, vals)]
        self.lines.append(f"    {n}{self.text(q)}.{sw} {op} {rhs};")
        vec = get(self.vars[n][1], q)
        for k, v in zip(lanes, news):
            vec[k] = v

    def s_part(self) -> None:
        """A sub-aggregate (vector, row, struct, array element) assigned from a same-typed one elsewhere."""
        r = self.rng
        a = self.var_of(lambda t: True)
        assert a is not None
        an, at = a
        choices = [(p, pt) for p, pt in subpaths(at) if p and pt.kind != "int"]
        if not choices:
            return self.s_scalar()
        p, pt = r.choice(choices)
        sources = [(n, q) for n, (t, _v) in sorted(self.vars.items()) for q, qt in subpaths(t) if qt == pt]
        sn, q = r.choice(sources)
        val = copy.deepcopy(get(self.vars[sn][1], q))
        self.lines.append(f"    {an}{self.text(p)} = {sn}{self.text(q)};")
        put(self.vars[an][1], p, val)

    def _mutations(self, t: Ty, param: str) -> tuple[list[str], list[tuple]]:
        """Statements changing scalars of `param` by `d` (an int parameter, cast to the scalar's type) and their
        model."""
        scalars = self._scalars(t)
        lines, ops = [], []
        for _ in range(self.rng.randint(1, 3)):
            p, s = self.rng.choice(scalars)
            op = self.rng.choice([o for o in ("+=", "=", "^=") if o in ops_of(s)])
            cast = "" if s == "int" else f"({s})"
            lines.append(f"    {param}{self.text(p, False)} {op} {cast}d;")
            ops.append((p, op, s))
        return lines, ops

    @staticmethod
    def _apply(v, ops: list[tuple], d: int) -> None:
        for p, op, s in ops:
            put(v, p, arith(get(v, p), op, wide_gen.convert(d, "int", s), s))

    def _struct_var(self) -> tuple[str, Ty]:
        a = self.var_of(lambda t: t.kind == "struct")
        if a is None:
            self.declare(self.rng.choice(self.structs))
            a = self.var_of(lambda t: t.kind == "struct")
        assert a is not None
        return a

    def _aggregate_var(self) -> tuple[str, Ty]:
        """A struct or an array of structs (a parameter is declared `T p[N]` for an array)."""
        a = self.var_of(lambda t: t.kind == "struct" or t.kind == "arr" and t.elem is not None and t.elem.kind == "struct")
        return a if a is not None else self._struct_var()

    @staticmethod
    def param(t: Ty, name: str) -> str:
        return f"{t.hlsl()} {name}{t.dims()}"

    def s_inout(self) -> None:
        an, at = self._aggregate_var()
        fn = self.fresh("mod")
        body, ops = self._mutations(at, "p")
        self.fns.append(_Fn(fn, f"void {fn}(inout {self.param(at, 'p')}, int d) {{\n" + "\n".join(body) + "\n}"))
        e, d = self.scalar(small=self.wide)
        self._apply(self.vars[an][1], ops, d)
        self.lines.append(f"    {fn}({an}, {e});")

    def s_inout_part(self) -> None:
        """A part of a variable (a nested struct, an array element at a run-time index, a vector field, a matrix
        row) passed `inout`: the copy-out lands in the element the index named when the call began."""
        refs = [(n, q, qt) for n, (t, _v) in sorted(self.vars.items()) for q, qt in subpaths(t)
                if q and qt.kind in ("struct", "arr", "vec")]
        if not refs:
            return self.s_inout()
        n, q, qt = self.rng.choice(refs)
        fn = self.fresh("mod")
        body, ops = self._mutations(qt, "p")
        self.fns.append(_Fn(fn, f"void {fn}(inout {self.param(qt, 'p')}, int d) {{\n" + "\n".join(body) + "\n}"))
        e, d = self.scalar(small=self.wide)
        self._apply(get(self.vars[n][1], q), ops, d)
        self.lines.append(f"    {fn}({n}{self.text(q)}, {e});")

    def s_in(self) -> None:
        """An `in` aggregate changed inside the callee: the caller's copy keeps its value."""
        an, at = self._aggregate_var()
        fn = self.fresh("peek")
        body, ops = self._mutations(at, "p")
        p, s = self.rng.choice(self._scalars(at))
        self.fns.append(_Fn(fn, f"{s} {fn}({self.param(at, 'p')}, int d) {{\n" + "\n".join(body)
                            + f"\n    return p{self.text(p, False)};\n}}"))
        e, d = self.scalar(small=self.wide)
        copy_v = copy.deepcopy(self.vars[an][1])
        self._apply(copy_v, ops, d)
        res = self.fresh("r")
        self.lines.append(f"    {s} {res} = {fn}({an}, {e});")
        self.vars[res] = (Ty("int", s=s), get(copy_v, p))

    def s_out(self) -> None:
        an, at = self._aggregate_var()
        src = self.var_of(lambda t: t == at and True)
        assert src is not None
        sn, _ = src
        fn = self.fresh("make")
        body, ops = self._mutations(at, "o")
        self.fns.append(_Fn(fn, f"void {fn}({self.param(at, 'q')}, out {self.param(at, 'o')}, int d) {{\n    o = q;\n"
                            + "\n".join(body) + "\n}"))
        e, d = self.scalar(small=self.wide)
        if sn == an:          # no aliasing of the two arguments: copy first
            tmp = self.fresh("v")
            self.lines.append(f"    {self.param(at, tmp)} = {an};")
            self.vars[tmp] = (at, copy.deepcopy(self.vars[an][1]))
            sn = tmp
        val = copy.deepcopy(self.vars[sn][1])
        self._apply(val, ops, d)
        self.lines.append(f"    {fn}({sn}, {an}, {e});")
        self.vars[an] = (at, val)

    def s_loop_ret(self) -> None:
        """A struct returned from inside a loop: the scalar at p grows by one per iteration before the return."""
        an, at = self._struct_var()
        p, s = self.rng.choice(self._scalars(at, arith_only=True))
        fn = self.fresh("walk")
        pt = self.text(p, False)
        self.fns.append(_Fn(fn, f"{at.name} {fn}({at.name} p, int n) {{\n"
                            f"    for (int i = 0; i < 4; i++) {{\n        if (i == n) {{\n            return p;\n        }}\n"
                            f"        p{pt} += 1;\n    }}\n    return p;\n}}"))
        n = self.rng.choice((-1, 0, 1, 2, 3, 4, 7))
        val = copy.deepcopy(self.vars[an][1])
        for _ in range(n if 0 <= n < 4 else 4):
            put(val, p, arith(get(val, p), "+=", wide_gen.convert(1, "int", s), s))
        res = self.fresh("v")
        self.lines.append(f"    {at.name} {res} = {fn}({an}, {self.input(n)});")
        self.vars[res] = (at, val)

    def s_switch_ret(self) -> None:
        an, at = self._struct_var()
        scalars = self._scalars(at, arith_only=True)
        (p1, s1), (p2, s2) = self.rng.choice(scalars), self.rng.choice(scalars)
        x5 = "^=" if "^=" in ops_of(s1) else "+="
        fn = self.fresh("pick")
        self.fns.append(_Fn(fn, f"{at.name} {fn}({at.name} p, int n) {{\n    switch (n) {{\n"
                            f"    case 0:\n        return p;\n    case 1:\n        p{self.text(p1, False)} = 7;\n"
                            f"        break;\n    case 2:\n    case 3:\n        p{self.text(p2, False)} += 3;\n"
                            f"        return p;\n    default:\n        p{self.text(p1, False)} {x5} 5;\n        break;\n"
                            f"    }}\n    p{self.text(p2, False)} += 100;\n    return p;\n}}"))
        n = self.rng.choice((0, 1, 2, 3, 4, -1))
        val = copy.deepcopy(self.vars[an][1])

        def upd(p: tuple, s: str, op: str, k: int) -> None:
            put(val, p, arith(get(val, p), op, wide_gen.convert(k, "int", s), s))
        if n == 1:
            upd(p1, s1, "=", 7)
        elif n in (2, 3):
            upd(p2, s2, "+=", 3)
        elif n != 0:
            upd(p1, s1, x5, 5)
        if n not in (0, 2, 3):
            upd(p2, s2, "+=", 100)
        res = self.fresh("v")
        self.lines.append(f"    {at.name} {res} = {fn}({an}, {self.input(n)});")
        self.vars[res] = (at, val)

    def _inner_ref(self) -> tuple[str, object, tuple] | None:
        """(text, owning value, path) of an S0 somewhere in a variable."""
        refs = [(n, q) for n, (t, _v) in sorted(self.vars.items()) for q, qt in subpaths(t) if qt.name == "S0"]
        if not refs:
            return None
        n, q = self.rng.choice(refs)
        return n + self.text(q), self.vars[n][1], q

    def s_member(self) -> None:
        ref = self._inner_ref()
        if ref is None:
            return self.declare(self.structs[0])
        t, owner, q = ref
        s0 = get(owner, q)
        if self.rng.random() < 0.5:
            res = self.fresh("r")
            acc = get(s0, self.sum_paths[0])
            for p in self.sum_paths[1:]:
                acc = arith(acc, "+=", get(s0, p), self.sum_s)
            self.lines.append(f"    {self.sum_s} {res} = {t}.sum();")
            self.vars[res] = (Ty("int", s=self.sum_s), acc)
        else:
            e, d = self.scalar(small=self.wide)
            new = arith(get(s0, self.bump_path), "=" if self.bump_s == "bool" else "+=",
                        wide_gen.convert(d, "int", self.bump_s), self.bump_s)
            self.lines.append(f"    {t}.bump({e});")
            put(s0, self.bump_path, new)

    def s_cast(self) -> None:
        ref = self._inner_ref()
        if ref is None:
            return self.declare(self.structs[0])
        t, owner, q = ref
        res = self.fresh("v")
        twin = self.structs[1]
        self.lines.append(f"    T0 {res} = (T0){t};")
        s0 = get(owner, q)
        self.vars[res] = (twin, {g: copy.deepcopy(s0[f]) for (f, _), (g, _) in zip(self.structs[0].fields, twin.fields)})

    def s_static(self) -> None:
        self._global("static", self.rng.choice(self.structs), initialised=True)

    def s_shared(self) -> None:
        self._global("groupshared", self.rng.choice(self.structs), initialised=False)

    def _global(self, storage: str, t: Ty, initialised: bool) -> None:
        name = self.fresh("g")
        v = self.drawn(t)
        if initialised:       # a static initializer takes constants only
            self.globals.append(f"{storage} {t.hlsl()} {name}{t.dims()} = {braces(t, v, self.lit)};")
        else:
            self.globals.append(f"{storage} {t.hlsl()} {name}{t.dims()};")
            src = self.var_of(lambda u: u == t)
            if src is None:
                self.declare(t)
                src = self.var_of(lambda u: u == t)
            assert src is not None
            self.lines.append(f"    {name} = {src[0]};")
            v = copy.deepcopy(self.vars[src[0]][1])
        self.vars[name] = (t, v)



def generate(rng: random.Random, steps: int = 10) -> AggProgram:
    d = _Draw(rng)
    d.make_structs()
    head = [d.struct_text(t) for t in d.structs]
    d.declare(rng.choice(d.structs))
    for _ in range(steps):
        d.step()
    comps = [(n + d.text(p), get(v, p)) for n, (t, v) in sorted(d.vars.items())
             for p, pt in subpaths(t) if pt.kind == "int"]
    picks = comps if len(comps) <= OUT_SLOTS else rng.sample(comps, OUT_SLOTS)
    body = d.lines + [f"    Out[{k}] = {e};" for k, (e, _v) in enumerate(picks)]
    src = "\n".join(["RWStructuredBuffer<int> Out : register(u0);", "StructuredBuffer<int> In : register(t1);",
                     *head, *d.globals, *(f.text for f in d.fns), "[numthreads(1, 1, 1)]",
                     "void main(uint3 tid : SV_DispatchThreadID) {", *body, "}"]) + "\n"
    return AggProgram(src, d.inputs or [0], [v for _e, v in picks])


# ------------------------------------------------------------------ wide programs

@dataclass
class WideAggProgram:
    source: str
    buffers: dict[str, bytes]              # every buffer's bytes before the dispatch
    expected: dict[str, dict[str, bytes]]  # per route ("spirv", "dxil", "dxil-vk"), the buffers after it


def node(t: Ty) -> tuple:
    """t as a layout_gen type tree (matrices column_major, HLSL's default)."""
    if t.kind == "int":
        return ("v", t.s, 1)
    if t.kind == "vec":
        return ("v", t.s, t.n)
    if t.kind == "mat":
        return ("m", t.s, t.n, t.c, False)
    if t.kind == "arr":
        assert t.elem is not None
        return ("a", node(t.elem), t.n)
    return ("t", t.name, [(f, node(ft)) for f, ft in t.fields])


def scalar_bytes(v, s: str) -> bytes:
    kind, width = wide_gen.TYPES[s]
    if kind == "bool":
        return int(bool(v)).to_bytes(4, "little")
    if kind == "float":
        return struct.pack(wide_gen._PACK[width], v)
    return (v & ((1 << width) - 1)).to_bytes(width // 8, "little")


def write(buf: bytearray, at: int, t: Ty, v, rule: str) -> None:
    """v stored at `at` under layout_gen's `rule`: only its components' bytes change."""
    lay = layout_gen.layout(node(t), rule)
    for (_path, off, _kind), x, s in zip(lay.leaves, flatten(t, v), scalar_types(t), strict=True):
        b = scalar_bytes(x, s)
        buf[at + off:at + off + len(b)] = b


def _straddles(t: Ty, elems: int = layout_gen.STRADDLE_ELEMS) -> bool:
    """Whether DXC's std430 layout of t puts a vector across a 16-byte boundary in one of the first `elems`
    buffer elements (shaderbuild then rounds the structured buffer's stride to 16 on purpose, whichever element
    is stored: layout_gen leaves those out too)."""
    lay = layout_gen.layout(node(t), "std430")
    stride = layout_gen._up(lay.size, lay.align)
    return any(layout_gen._straddles(i * stride + o, n) for o, n in lay.vectors for i in range(elems))


STRUCTURED_RULE = {"spirv": "std430", "dxil": "dx_sb", "dxil-vk": "dx_sb"}   # RWStructuredBuffer<T>, default flags


def generate_wide(rng: random.Random, steps: int = 10) -> WideAggProgram:
    """A program over structs and arrays of every scalar type (-enable-16bit-types), its values stored with
    Store<T> to a RWByteAddressBuffer, and two whole structs stored to a RWStructuredBuffer<T> element and
    with RWByteAddressBuffer.Store<T>.  A draw whose float arithmetic would round is redrawn."""
    while True:
        try:
            return _generate_wide(rng, steps)
        except Inexact:
            continue


def _generate_wide(rng: random.Random, steps: int) -> WideAggProgram:
    d = _Draw(rng, wide=True)
    d.make_structs()
    head = [d.struct_text(t) for t in d.structs]
    d.declare(rng.choice(d.structs))
    for _ in range(steps):
        d.step()
    comps = [(n + d.text(p), get(v, p), pt.s) for n, (t, v) in sorted(d.vars.items())
             for p, pt in subpaths(t) if pt.kind == "int"]
    picks = comps if len(comps) <= OUT_SLOTS else rng.sample(comps, OUT_SLOTS)
    body = list(d.lines)
    out = bytearray([wide_gen.SENTINEL]) * (SLOT * len(picks))
    for k, (e, v, s) in enumerate(picks):
        body.append(f"    Out.Store<uint>({SLOT * k}, ({e}) ? 1u : 0u);" if s == "bool"
                    else f"    Out.Store<{s}>({SLOT * k}, {e});")
        b = scalar_bytes(v, s)
        out[SLOT * k:SLOT * k + len(b)] = b
    structs = sorted(n for n, (t, _v) in d.vars.items() if t.kind == "struct")
    an, rn = rng.choice(structs), rng.choice(structs)
    at_, av = d.vars[an]
    rt, rv = d.vars[rn]
    decls = ["RWByteAddressBuffer Out : register(u0);", "ByteAddressBuffer In : register(t1);",
             "RWByteAddressBuffer Raw : register(u3);"]
    raw_lay = layout_gen.layout(node(rt), "dx_sb")
    raw = bytearray([wide_gen.SENTINEL]) * (RAW_AT + layout_gen._up(raw_lay.size, 16) + 16)
    body.append(f"    Raw.Store<{rt.name}>({RAW_AT}, {rn});")
    buffers = {"In": b"".join(scalar_bytes(v, s).ljust(SLOT, b"\0") for s, v in d.inputs) or bytes(SLOT),
               "Out": bytes([wide_gen.SENTINEL]) * len(out), "Raw": bytes(raw)}
    write(raw, RAW_AT, rt, rv, "dx_sb")
    expected = {route: {"Out": bytes(out), "Raw": bytes(raw)} for route in STRUCTURED_RULE}
    if not _straddles(at_):           # the struct's element 1 of RWStructuredBuffer<T>: element 0 keeps its bytes
        decls.append(f"RWStructuredBuffer<{at_.name}> Agg : register(u2);")
        body.append(f"    Agg[1] = {an};")
        size = 2 * max(layout_gen._up(lay.size, lay.align) for lay in
                       (layout_gen.layout(node(at_), r) for r in ("std430", "dx_sb"))) + 16
        buffers["Agg"] = bytes([wide_gen.SENTINEL]) * size
        for route, rule in STRUCTURED_RULE.items():
            lay = layout_gen.layout(node(at_), rule)
            agg = bytearray(buffers["Agg"])
            write(agg, layout_gen._up(lay.size, lay.align), at_, av, rule)
            expected[route]["Agg"] = bytes(agg)
    src = "\n".join([*head, *decls, *d.globals, *(f.text for f in d.fns), "[numthreads(1, 1, 1)]",
                     "void main(uint3 tid : SV_DispatchThreadID) {", *body, "}"]) + "\n"
    return WideAggProgram(src, buffers, expected)


def wide_findings(got: dict[str, dict[str, bytes]], prog: WideAggProgram) -> list[str]:
    """Per route and buffer, the first bytes that differ from the model's."""
    out = []
    for route, bufs in got.items():
        for name, want in prog.expected[route].items():
            have = bufs[name]
            if have != want:
                k = next(i for i, (a, b) in enumerate(zip(have, want)) if a != b)
                lo = k - k % SLOT
                out.append(f"{route} {name}[{lo}:{lo + 16}]: {have[lo:lo + 16].hex()}, want {want[lo:lo + 16].hex()}")
    return out
