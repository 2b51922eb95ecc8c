"""A generator of well-typed HLSL compute shaders inside the compiler's supported subset.

Programs use int/uint/float scalars and vectors, arithmetic, bitwise and comparison operators,
casts, swizzles (reads and writes), if/else, for, while, do-while, switch, helper functions with
in/out/inout parameters, static const arrays and RWStructuredBuffer outputs.  Being well typed,
they get past the parser into sema, the shared passes and both backends.  With `loops=True` the control
flow gets denser: `break`/`continue`/`return` at the end of if/else arms and nested ifs at any depth,
loops left only by a `break` (`while (true)`, `for (;;)`, `do ... while (true)`), loops in a row, `[unroll]`
and `[loop]`, switch cases that break early or end in `continue` or `return`, early returns from `main` and
helpers (the CFG shapes the DXIL clean-up and dxil-spirv's structurizer must agree on).  With `shapes=True`
(on top of `loops`) they also hold int matrices (mul with vectors and matrices, transpose, rows and elements
read and written, a dynamically indexed row), float matrices kept exact, and switches whose cases share labels
and fall through into the next case.

With `safe=True` every program is also free of undefined behaviour (guarded division, masked
shifts, in-bounds indices, no float->int casts, floats stay small dyadic numbers), so its SPIR-V
and DXIL must produce the same buffers: the differential check.

Randomness comes through a `Chooser`, so the same code serves hypothesis (`programs()`, a
strategy that shrinks) and the campaign (`generate(random.Random)`, fast and reproducible).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Protocol

KINDS = ("int", "uint", "float")
SIZES = (1, 2, 3, 4)
SWIZZLE = "xyzw"
SLOTS = 8                       # output elements per thread and buffer
ARRAY_LEN = 4
EDGE_FLOATS = ("1e10", "(-1e10)", "(-3.6)", "3.99", "4294967040.0", "2147483520.0", "(-2147483904.0)", "(-0.5)",
               "asfloat(0x7f800000u)", "asfloat(0xff800000u)", "asfloat(0x7fc00000u)")
MAX_STMTS = 40                  # statement budget per program (keeps a compile in milliseconds)


class Chooser(Protocol):
    """The one source of randomness of the generator."""

    def int(self, lo: int, hi: int) -> int: ...  # inclusive


class RandomChooser:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def int(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)


class DrawChooser:
    """Adapter for hypothesis: every choice is a drawn integer, so examples shrink."""

    def __init__(self, draw, st) -> None:
        self.draw, self.st = draw, st

    def int(self, lo: int, hi: int) -> int:
        return self.draw(self.st.integers(lo, hi))


@dataclass(frozen=True)
class Ty:
    kind: str
    n: int = 1

    def __str__(self) -> str:
        return self.kind if self.n == 1 else f"{self.kind}{self.n}"

    def scalar(self) -> Ty:
        return Ty(self.kind)


@dataclass
class Output:
    name: str
    ty: Ty
    register: int
    count: int          # elements


@dataclass
class Program:
    """A generated shader: its source and what a dispatch needs (buffers, thread count)."""

    source: str
    outputs: list[Output]
    threads: int
    safe: bool


@dataclass
class _Func:
    name: str
    ret: Ty | None
    params: list[tuple[str, Ty, str]]     # (name, type, 'in'|'out'|'inout')


@dataclass
class _Var:
    ty: Ty
    writable: bool = True


@dataclass
class _Gen:
    c: Chooser
    safe: bool
    edges: bool = False
    scopes: list[dict[str, _Var]] = field(default_factory=list)
    funcs: list[_Func] = field(default_factory=list)
    arrays: dict[str, Ty] = field(default_factory=dict)
    outputs: list[Output] = field(default_factory=list)
    counter: int = 0
    budget: int = MAX_STMTS
    loop_depth: int = 0
    in_main: bool = False
    loops: bool = False
    shapes: bool = False                                   # matrices and switch fallthrough (see `generate`)
    breakable: list[str] = field(default_factory=list)   # enclosing "loop"/"switch" statements, innermost last
    ret: Ty | None = None                                  # the return type of the function being generated

    # ------------------------------------------------------------ helpers

    def pick(self, seq):
        return seq[self.c.int(0, len(seq) - 1)]

    def chance(self, percent: int) -> bool:
        return self.c.int(0, 99) < percent

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def ty(self, kinds: tuple[str, ...] = KINDS) -> Ty:
        return Ty(self.pick(kinds), self.pick(SIZES))

    def visible(self, pred) -> list[tuple[str, _Var]]:
        seen: dict[str, _Var] = {}
        for scope in self.scopes:
            seen.update(scope)
        return [(n, v) for n, v in seen.items() if pred(v)]

    def declare(self, name: str, ty: Ty, writable: bool = True) -> None:
        self.scopes[-1][name] = _Var(ty, writable)

    # ------------------------------------------------------------ expressions

    def literal(self, t: Ty) -> str:
        if t.kind == "float":
            k = self.c.int(-8, 8)
            s = f"{k / 2:.1f}" if k >= 0 else f"({k / 2:.1f})"
        elif t.kind == "uint":
            s = f"{self.pick((0, 1, 2, 3, 7, 100, 0xFFFFFFFF, 0x80000000))}u"
        else:
            s = str(self.pick((0, 1, -1, 2, 3, -7, 100, 2147483647)))
            s = f"({s})" if s.startswith("-") else s
        if t.n == 1:
            return s
        if self.chance(50):
            return f"(({t}){s})"
        return f"{t}({', '.join(self.literal(t.scalar()) for _ in range(t.n))})"

    def expr(self, t: Ty, depth: int = 2) -> str:
        if depth <= 0:
            return self.leaf(t)
        options = [self.leaf, self.binary, self.binary, self.unary, self.cast, self.ternary, self.construct,
                   self.intrinsic, self.call, self.array_elem]
        if t.kind != "float":
            options += [self.bitwise, self.shift, self.divide]
            if self.edges:
                options += [self.edge, self.edge]
        return self.pick(options)(t, depth - 1)

    def leaf(self, t: Ty, depth: int = 0) -> str:
        vars_ = self.visible(lambda v: v.ty.kind == t.kind and (v.ty.n == t.n or (v.ty.n > 1 and t.n <= v.ty.n)))
        if vars_ and self.chance(75):
            name, var = self.pick(vars_)
            if var.ty.n == t.n and (t.n == 1 or self.chance(60)):
                return name
            return f"{name}.{''.join(SWIZZLE[self.c.int(0, var.ty.n - 1)] for _ in range(t.n))}"
        if self.in_main and self.chance(30):
            return self.convert(t, "tid.x", Ty("uint"))
        return self.literal(t)

    def convert(self, t: Ty, text: str, src: Ty) -> str:
        """`text` of type `src` as a value of type t (an explicit cast, splat for vectors)."""
        return text if src == t else f"(({t}){text})" if src.n in (1, t.n) else f"(({t}){text}.x)"

    def binary(self, t: Ty, depth: int) -> str:
        op = self.pick(("+", "-", "*"))
        if self.safe and t.kind == "float" and op == "*":
            return f"({self.expr(t, depth)} * {self.pick(('0.5', '2.0', '-1.0', '0.25'))})"
        rhs_ty = t if t.n == 1 or self.chance(70) else t.scalar()
        return f"({self.expr(t, depth)} {op} {self.expr(rhs_ty, depth)})"

    def bitwise(self, t: Ty, depth: int) -> str:
        return f"({self.expr(t, depth)} {self.pick(('&', '|', '^'))} {self.expr(t, depth)})"

    def shift(self, t: Ty, depth: int) -> str:
        amount = self.expr(Ty(self.pick(("int", "uint")), t.n), depth)
        return f"({self.expr(t, depth)} {self.pick(('<<', '>>'))} ({amount} & 15))"

    def divide(self, t: Ty, depth: int) -> str:
        op = self.pick(("/", "%"))
        den = self.expr(t, depth)
        guard = f"(({den} & 7) + 1)" if t.kind == "int" else f"({den} | 1u)"
        return f"({self.expr(t, depth)} {op} {guard})"

    def edge(self, t: Ty, depth: int) -> str:
        """An integer operation at an edge D3D defines and SPIR-V/LLVM leave undefined (docs/CONFORMANCE.md):
        unguarded division and remainder (by zero, INT_MIN / -1), shift amounts >= the width or negative,
        float -> int conversion of NaN, infinities and out-of-range values, firstbithigh/low of 0, countbits,
        reversebits.  `EdgeZ` is a zero the front end cannot fold, so each edge is also reached at run time."""
        k = self.c.int(0, 3)
        if k == 0:
            num = f"(({t})(-2147483647 - 1))" if t.kind == "int" and self.chance(30) else self.expr(t, depth)
            den = self.pick((self.expr(t, depth), f"({self.expr(t, depth)} & 1)",
                             "(-1)" if t.kind == "int" else "0xFFFFFFFFu"))
            return f"({num} {self.pick(('/', '%'))} ({den} + (({t.scalar()})EdgeZ)))"
        if k == 1:
            amount = self.pick((self.expr(Ty(self.pick(("int", "uint")), t.n), depth), "32", "33", "(-1)", "31u"))
            return f"({self.expr(t, depth)} {self.pick(('<<', '>>'))} {amount})"
        if k == 2:
            edge = self.pick(EDGE_FLOATS)
            # the run-time form adds the zero in integer arithmetic: a float op on inf/NaN carries DXIL's `fast`
            # flags (as DXC emits them), which the lli interpreter may exploit (LLVM: poison on inf/NaN)
            src = self.pick((self.expr(Ty("float", t.n), depth), edge, f"asfloat(asuint({edge}) + (uint)EdgeZ)"))
            return f"(({t})({src}))"
        fn = self.pick(("firstbithigh", "firstbitlow") if t.kind == "int" else
                       ("firstbithigh", "firstbitlow", "countbits", "reversebits"))
        return f"{fn}({self.expr(t, depth)})"

    def unary(self, t: Ty, depth: int) -> str:
        ops = ("-", "+", "~") if t.kind != "float" else ("-", "+")
        return f"({self.pick(ops)}{self.expr(t, depth)})"

    def cast(self, t: Ty, depth: int) -> str:
        kinds = ("int", "uint") if self.safe and not self.edges and t.kind != "float" else KINDS
        src = Ty(self.pick(kinds), t.n if self.chance(70) else 1)
        return f"(({t}){self.expr(src, depth)})"

    def condition(self, depth: int = 1) -> str:
        t = Ty(self.pick(KINDS))
        cond = f"({self.expr(t, depth)} {self.pick(('<', '<=', '>', '>=', '==', '!='))} {self.expr(t, depth)})"
        if self.chance(20):
            cond = f"({cond} {self.pick(('&&', '||'))} {self.condition(0)})"
        if self.chance(10):
            cond = f"(!{cond})"
        return cond

    def ternary(self, t: Ty, depth: int) -> str:
        return f"({self.condition(depth)} ? {self.expr(t, depth)} : {self.expr(t, depth)})"

    def construct(self, t: Ty, depth: int) -> str:
        if t.n == 1:
            return f"(({t}){self.condition(depth)})" if self.chance(30) else self.leaf(t)
        parts, left = [], t.n
        while left:
            k = self.c.int(1, left)
            parts.append(self.expr(Ty(t.kind, k), depth))
            left -= k
        return f"{t}({', '.join(parts)})"

    def intrinsic(self, t: Ty, depth: int) -> str:
        name = self.pick(("min", "max", "clamp", "abs") if t.kind != "uint" else ("min", "max", "clamp"))
        if name == "abs":
            if t.kind == "int" and self.safe:  # abs(INT_MIN) is fine (wraps), but keep it obvious
                return f"abs({self.expr(t, depth)} & 0xFFFF)"
            return f"abs({self.expr(t, depth)})"
        if name == "clamp":
            lo, hi = sorted((self.c.int(-4, 4), self.c.int(-4, 4)))
            lo, hi = (abs(lo), abs(hi)) if t.kind == "uint" else (lo, hi)
            lo, hi = min(lo, hi), max(lo, hi)
            cv = (lambda v: f"(({t}){v}.0)") if t.kind == "float" else (lambda v: f"(({t}){v})")
            return f"clamp({self.expr(t, depth)}, {cv(lo)}, {cv(hi)})"
        return f"{name}({self.expr(t, depth)}, {self.expr(t, depth)})"

    def call(self, t: Ty, depth: int) -> str:
        fns = [f for f in self.funcs if f.ret == t and all(m == "in" for _n, _t, m in f.params)]
        if not fns:
            return self.leaf(t)
        f = self.pick(fns)
        return f"{f.name}({', '.join(self.expr(pt, depth) for _n, pt, _m in f.params)})"

    def array_elem(self, t: Ty, depth: int) -> str:
        names = [n for n, at in self.arrays.items() if at == t]
        if not names:
            return self.leaf(t)
        idx = self.expr(Ty(self.pick(("int", "uint"))), depth)
        return f"{self.pick(names)}[({idx}) & {ARRAY_LEN - 1}]"

    # ------------------------------------------------------------ statements

    def block(self, indent: str, count: int) -> list[str]:
        self.scopes.append({})
        out: list[str] = []
        for _ in range(count):
            if self.budget <= 0:
                break
            self.budget -= 1
            out += self.stmt(indent)
        self.scopes.pop()
        return out

    def stmt(self, indent: str) -> list[str]:
        depth = len(self.scopes)
        kinds = [self.decl, self.decl, self.assign, self.assign, self.swizzle_assign, self.store]
        if depth < 5:
            kinds += [self.if_stmt, self.for_stmt, self.while_stmt, self.do_stmt, self.switch_stmt]
            if self.loops:
                kinds += [self.forever_stmt, self.loops_in_a_row]
            if self.shapes:
                kinds += [self.fallthrough_switch, self.fallthrough_switch]
        if self.shapes:
            kinds += [self.matrix_stmt, self.matrix_stmt]
        if self.loops:
            if self.chance(20 if self.breakable else 6):
                return self.jump_stmt(indent)
        elif self.loop_depth and self.chance(15):
            return [f"{indent}if {self.condition(1)} {self.pick(('break', 'continue'))};"]
        if any(m != "in" for f in self.funcs for *_x, m in f.params):
            kinds.append(self.call_stmt)
        return self.pick(kinds)(indent)

    def decl(self, indent: str) -> list[str]:
        t = self.ty()
        name = self.fresh("v")
        init = self.expr(t)
        self.declare(name, t)
        return [f"{indent}{t} {name} = {init};"]

    def assign(self, indent: str) -> list[str]:
        vars_ = self.visible(lambda v: v.writable)
        if not vars_:
            return self.decl(indent)
        name, var = self.pick(vars_)
        op = self.pick(("=", "=", "+=", "-=", "*=") if var.ty.kind == "float" or not self.safe
                       else ("=", "+=", "-=", "*=", "&=", "|=", "^="))
        if self.safe and var.ty.kind == "float" and op == "*=":
            return [f"{indent}{name} *= {self.pick(('0.5', '2.0', '-1.0'))};"]
        return [f"{indent}{name} {op} {self.expr(var.ty)};"]

    def swizzle_assign(self, indent: str) -> list[str]:
        vars_ = self.visible(lambda v: v.writable and v.ty.n > 1)
        if not vars_:
            return self.assign(indent)
        name, var = self.pick(vars_)
        comps = list(SWIZZLE[:var.ty.n])
        k = self.c.int(1, var.ty.n)
        chosen = []
        for _ in range(k):
            chosen.append(comps.pop(self.c.int(0, len(comps) - 1)))
        return [f"{indent}{name}.{''.join(chosen)} = {self.expr(Ty(var.ty.kind, k))};"]

    def store(self, indent: str) -> list[str]:
        if not self.in_main:
            return self.assign(indent)
        out = self.pick(self.outputs)
        return [f"{indent}{out.name}[tid.x * {SLOTS} + {self.c.int(0, SLOTS - 1)}] = {self.expr(out.ty)};"]

    def if_stmt(self, indent: str) -> list[str]:
        lines = [f"{indent}if {self.condition()} {{", *self.block(indent + "    ", self.c.int(1, 3))]
        if self.chance(50):
            lines += [f"{indent}}} else {{", *self.block(indent + "    ", self.c.int(1, 3))]
        return [*lines, f"{indent}}}"]

    def jump(self) -> str:
        """`break`, `continue` or `return` (with a value in a function that has one), as the enclosing
        statements allow; loops mode only."""
        options = ["return"]
        if self.breakable:
            options += ["break", "break"]
        if "loop" in self.breakable:
            options += ["continue", "continue"]
        j = self.pick(options)
        return f"return {self.expr(self.ret)}" if j == "return" and self.ret is not None else j

    def jump_stmt(self, indent: str) -> list[str]:
        """A jump under an if: a one-line if, an if/else whose arms end in jumps after some statements, or
        a jump in an if nested in another."""
        shape = self.c.int(0, 2)
        if shape == 0:
            return [f"{indent}if {self.condition(1)} {self.jump()};"]
        inner = indent + "    "
        if shape == 1:
            lines = [f"{indent}if {self.condition()} {{", *self.block(inner, self.c.int(0, 2)), f"{inner}{self.jump()};"]
            if self.chance(50):
                lines += [f"{indent}}} else {{", *self.block(inner, self.c.int(0, 2))]
                if self.chance(50):
                    lines.append(f"{inner}{self.jump()};")
            return [*lines, f"{indent}}}"]
        return [f"{indent}if {self.condition()} {{", f"{inner}if {self.condition(1)} {{", *self.block(inner + "    ", self.c.int(0, 1)),
                f"{inner}    {self.jump()};", f"{inner}}}", *self.block(inner, self.c.int(0, 2)), f"{indent}}}"]

    def _loop_body(self, indent: str) -> list[str]:
        self.loop_depth += 1
        self.breakable.append("loop")
        body = self.block(indent + "    ", self.c.int(1, 3))
        self.breakable.pop()
        self.loop_depth -= 1
        return body

    def for_stmt(self, indent: str) -> list[str]:
        i = self.fresh("i")
        n = self.c.int(0, 4)
        attr = self.pick(("", "", "[unroll] ", "[loop] ")) if self.loops else ""
        self.scopes.append({i: _Var(Ty("int"), writable=False)})
        body = self._loop_body(indent)
        self.scopes.pop()
        return [f"{indent}{attr}for (int {i} = 0; {i} < {n}; {i}++) {{", *body, f"{indent}}}"]

    def forever_stmt(self, indent: str) -> list[str]:
        """A loop left only through a `break`: the counter's check comes first, so a `continue` cannot
        skip it."""
        w = self.fresh("f")
        n = self.c.int(0, 4)
        head = self.pick(("while (true) {", "for (;;) {", "do {"))
        self.scopes.append({w: _Var(Ty("int"), writable=False)})
        body = self._loop_body(indent)
        self.scopes.pop()
        return [f"{indent}{{", f"{indent}int {w} = 0;", f"{indent}{head}", f"{indent}    {w}++;",
                f"{indent}    if ({w} > {n}) break;", *body,
                f"{indent}}}{' while (true);' if head == 'do {' else ''}", f"{indent}}}"]

    def loops_in_a_row(self, indent: str) -> list[str]:
        loops = (self.for_stmt, self.while_stmt, self.do_stmt, self.forever_stmt)
        return [*self.pick(loops)(indent), *self.pick(loops)(indent)]

    def while_stmt(self, indent: str) -> list[str]:
        w = self.fresh("w")
        n = self.c.int(0, 4)
        self.scopes.append({w: _Var(Ty("int"), writable=False)})
        body = self._loop_body(indent)
        self.scopes.pop()
        return [f"{indent}{{", f"{indent}int {w} = 0;", f"{indent}while ({w} < {n}) {{", f"{indent}    {w}++;",
                *body, f"{indent}}}", f"{indent}}}"]

    def do_stmt(self, indent: str) -> list[str]:
        w = self.fresh("d")
        n = self.c.int(1, 3)
        self.scopes.append({w: _Var(Ty("int"), writable=False)})
        body = self._loop_body(indent)
        self.scopes.pop()
        return [f"{indent}{{", f"{indent}int {w} = 0;", f"{indent}do {{", f"{indent}    {w}++;",
                *body, f"{indent}}} while ({w} < {n});", f"{indent}}}"]

    def switch_stmt(self, indent: str) -> list[str]:
        sel = self.expr(Ty(self.pick(("int", "uint"))), 1)
        lines = [f"{indent}switch (({sel}) & 3) {{"]
        cases = sorted({self.c.int(0, 3) for _ in range(self.c.int(1, 3))})
        self.breakable.append("switch")
        for label in [*(f"case {k}:" for k in cases), *(["default:"] if self.chance(60) else [])]:
            body = self.block(indent + "    ", self.c.int(1, 2))
            end = self.jump() if self.loops and self.chance(40) else "break"
            lines += [f"{indent}{label} {{", *body, f"{indent}    {end};", f"{indent}}}"]
        self.breakable.pop()
        return [*lines, f"{indent}}}"]

    def fallthrough_switch(self, indent: str) -> list[str]:
        """A switch whose cases share labels (`case 1: case 2:`), fall through into the next case after some
        statements, and whose `default` may sit between cases (shapes mode)."""
        sel = self.expr(Ty(self.pick(("int", "uint"))), 1)
        labels = [f"case {k}:" for k in sorted({self.c.int(0, 5) for _ in range(self.c.int(2, 4))})]
        if self.chance(60):
            labels.insert(self.c.int(0, len(labels)), "default:")
        lines = [f"{indent}switch (({sel}) % 6) {{"]
        self.breakable.append("switch")
        for k, label in enumerate(labels):
            if k + 1 < len(labels) and self.chance(25):
                lines.append(f"{indent}{label}")                     # shares the next label's statements
                continue
            lines.append(f"{indent}{label} {{")
            lines += self.block(indent + "    ", self.c.int(1, 2))
            if k + 1 == len(labels) or self.chance(60):
                lines.append(f"{indent}    {self.jump() if self.loops and self.chance(30) else 'break'};")
            lines.append(f"{indent}}}")                               # else: falls through into the next case
        self.breakable.pop()
        return [*lines, f"{indent}}}"]

    def matrix_stmt(self, indent: str) -> list[str]:
        """An int matrix built from expressions, partly rewritten (a row, an element, a dynamically indexed
        row), then read through mul with a vector or another matrix, transpose, a row or an element into a
        new vector variable; or a float matrix that only adds its transpose and scales by powers of two, so
        its values stay exact (shapes mode)."""
        r, c = self.pick((2, 3, 4)), self.pick((2, 3, 4))
        kind = "int" if self.chance(75) else "float"
        if kind == "float":
            r = c
        m = self.fresh("m")
        mt = f"{kind}{r}x{c}"
        lines = [f"{indent}{mt} {m} = {mt}({', '.join(self.expr(Ty(kind), 1) for _ in range(r * c))});"]
        row = f"({self.expr(Ty('uint'), 1)} % {r}u)"
        edit = self.c.int(0, 3)
        if edit == 1:
            lines.append(f"{indent}{m}[{self.c.int(0, r - 1)}] = {self.expr(Ty(kind, c), 1)};")
        elif edit == 2:
            lines.append(f"{indent}{m}._m{self.c.int(0, r - 1)}{self.c.int(0, c - 1)} = {self.expr(Ty(kind), 1)};")
        elif edit == 3:
            lines.append(f"{indent}{m}[{row}] += {self.expr(Ty(kind, c), 1)};")
        v = self.fresh("v")
        if kind == "float":
            scale = self.pick(("0.5", "2.0", "-1.0"))
            lines.append(f"{indent}{m} = ({m} + transpose({m})) * {scale};")
            t, val = self.pick(((Ty(kind, c), f"{m}[{row}]"), (Ty(kind, c), f"transpose({m})[{self.c.int(0, c - 1)}]"),
                                (Ty(kind), f"{m}._m{self.c.int(0, r - 1)}{self.c.int(0, c - 1)}")))
        else:
            shape = self.c.int(0, 4)
            if shape == 0:
                t, val = Ty(kind, r), f"mul({m}, {self.expr(Ty(kind, c), 1)})"
            elif shape == 1:
                t, val = Ty(kind, c), f"mul({self.expr(Ty(kind, r), 1)}, {m})"
            elif shape == 2:
                k = self.pick((2, 3, 4))
                other = self.fresh("m")
                lines.append(f"{indent}int{c}x{k} {other} = int{c}x{k}("
                             f"{', '.join(self.expr(Ty(kind), 0) for _ in range(c * k))});")
                t, val = Ty(kind, k), f"mul({m}, {other})[{row}]"
            elif shape == 3:
                t, val = Ty(kind, r), f"transpose({m})[{self.c.int(0, c - 1)}]"
            else:
                t, val = Ty(kind), f"({m}[{row}].{SWIZZLE[self.c.int(0, c - 1)]} + {m}._m{r - 1}{c - 1})"
        self.declare(v, t)
        return [*lines, f"{indent}{t} {v} = {val};"]

    def call_stmt(self, indent: str) -> list[str]:
        fns = [f for f in self.funcs if any(m != "in" for *_x, m in f.params)]
        f = self.pick(fns)
        args, pre, used = [], [], set()
        for _n, pt, mode in f.params:
            if mode == "in":
                args.append(self.expr(pt, 1))
                continue
            cands = [n for n, v in self.visible(lambda v, pt=pt: v.writable and v.ty == pt) if n not in used]
            if cands and self.chance(70):
                name = self.pick(cands)
            else:
                name = self.fresh("a")
                pre.append(f"{indent}{pt} {name} = {self.expr(pt, 1)};")
                self.declare(name, pt)
            used.add(name)
            args.append(name)
        call = f"{f.name}({', '.join(args)})"
        if f.ret is not None and self.chance(50):
            name = self.fresh("r")
            self.declare(name, f.ret)
            return [*pre, f"{indent}{f.ret} {name} = {call};"]
        return [*pre, f"{indent}{call};"]

    # ------------------------------------------------------------ top level

    def function(self) -> list[str]:
        name = self.fresh("Fn")
        ret = None if self.chance(25) else self.ty()
        params = [(self.fresh("p"), self.ty(), self.pick(("in", "in", "out", "inout")))
                  for _ in range(self.c.int(0 if ret else 1, 3))]
        self.scopes = [{}]
        self.budget, saved = 8, self.budget
        self.ret = ret
        lines = []
        for pname, pt, mode in params:
            if mode == "out":
                lines.append(f"    {pname} = {self.expr(pt, 1)};")
            self.declare(pname, pt)
        lines += self.block("    ", self.c.int(1, 4))
        if ret is not None:
            lines.append(f"    return {self.expr(ret)};")
        self.budget, self.ret = saved, None
        head = ", ".join(f"{'' if m == 'in' and self.chance(70) else m + ' '}{pt} {pn}" for pn, pt, m in params)
        self.funcs.append(_Func(name, ret, params))
        return [f"{ret or 'void'} {name}({head}) {{", *lines, "}"]

    def program(self) -> Program:
        threads = self.pick((1, 2, 4))
        # 3-component elements have a different stride under Vulkan (std430: 16) and D3D (12); the
        # differential check compares raw buffers, so safe programs use 1-, 2- and 4-vectors
        out_sizes = (1, 2, 4) if self.safe else SIZES
        self.outputs = [Output(f"Out{k}", Ty(self.pick(KINDS), self.pick(out_sizes)), k, threads * SLOTS)
                        for k in range(self.c.int(1, 3))]
        lines = [f"RWStructuredBuffer<{o.ty}> {o.name} : register(u{o.register});" for o in self.outputs]
        if self.edges:
            lines.append("static int EdgeZ = 0;")
        self.scopes = [{}]
        for _ in range(self.c.int(0, 2)):
            t = Ty(self.pick(KINDS))
            name = self.fresh("T")
            self.arrays[name] = t
            lines.append(f"static const {t} {name}[{ARRAY_LEN}] = {{"
                         f"{', '.join(self.literal(t) for _ in range(ARRAY_LEN))}}};")
        for _ in range(self.c.int(0, 3)):
            lines += self.function()
        self.scopes = [{"tid": _Var(Ty("uint", 3), writable=False)}]
        self.in_main, self.budget = True, MAX_STMTS
        body = self.block("    ", self.c.int(2, 10))
        for o in self.outputs:  # every buffer gets at least one write
            body.append(f"    {o.name}[tid.x * {SLOTS} + {self.c.int(0, SLOTS - 1)}] = {self.expr(o.ty)};")
        lines += [f"[numthreads({threads}, 1, 1)]", "void main(uint3 tid : SV_DispatchThreadID) {", *body, "}"]
        return Program("\n".join(lines) + "\n", self.outputs, threads, self.safe)


def generate(rng: random.Random, safe: bool = False, edges: bool = False, loops: bool = False,
             shapes: bool = False) -> Program:
    """One program from a `random.Random` (the campaign's fast path); `edges` adds D3D-defined integer
    edge cases (see `_Gen.edge`), `loops` denser control flow (see the module's docstring), `shapes` int and
    float matrices and switches with fallthrough and shared labels.  Without `shapes` a seed gives the
    program it gave before shapes existed."""
    return _Gen(RandomChooser(rng), safe, edges, loops=loops, shapes=shapes).program()


def programs(safe: bool = False, edges: bool = False, loops: bool = False, shapes: bool = False):
    """A hypothesis strategy of `Program`s (shrinks towards small programs)."""
    from hypothesis import strategies as st

    @st.composite
    def build(draw):
        return _Gen(DrawChooser(draw, st), safe, edges, loops=loops, shapes=shapes).program()

    return build()
