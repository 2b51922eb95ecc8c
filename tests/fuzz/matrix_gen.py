"""Int matrix programs with their values computed here (issue 20: silent wrong values).

A program loads float matrices (holding ints) from structured buffers declared `row_major` or `column_major`
(on the template argument, on a typedef, or by `#pragma pack_matrix`), converts them to int matrices, then
builds locals from them: `mul` of every shape pair
(matrix x matrix, vector x matrix, matrix x vector, scalar x matrix), `transpose`, component-wise `+` and `*`,
truncating casts to a smaller matrix, rows (`m[1]`), swizzles (`_m01_m10`, `_12_21`), element and multi-element
swizzle writes, and matrices built from scalars.  Every local's value is tracked in Python (ints wrap to 32
bits), and the program stores elements of the locals; `expected` is what the stores must write, computed from
HLSL's rules (a `row_major` RxC matrix is R rows of C ints in memory, a `column_major` one C columns of R ints),
not by the compiler.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

OUT_SLOTS = 16
VALUES = (0, 1, -1, 2, 3, -3, 5, 7, -8, 100, 0x7FFFFFFF, -0x80000000, 0x10000)


def wrap(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >> 31 else v


Mat = list[list[int]]          # rows


@dataclass
class MatProgram:
    source: str
    inputs: dict[str, list[int]]      # buffer name -> its values (floats holding these ints)
    expected: list[int]               # Out's ints


def _mul(a: Mat, b: Mat) -> Mat:
    return [[wrap(sum(a[r][k] * b[k][c] for k in range(len(b)))) for c in range(len(b[0]))] for r in range(len(a))]


def _t(m: Mat) -> Mat:
    return [list(col) for col in zip(*m)]


def _ty(r: int, c: int) -> str:
    return f"int{r}x{c}"


class _Draw:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.mats: dict[str, Mat] = {}        # local matrices
        self.vecs: dict[str, list[int]] = {}  # local vectors
        self.lines: list[str] = []
        self.n = 0

    def fresh(self, p: str) -> str:
        self.n += 1
        return f"{p}{self.n}"

    def mat(self, pred=lambda m: True) -> tuple[str, Mat] | None:
        names = [n for n, m in self.mats.items() if pred(m)]
        if not names:
            return None
        n = self.rng.choice(names)
        return n, self.mats[n]

    def define(self, m: Mat, expr: str) -> None:
        name = self.fresh("m")
        self.lines.append(f"    {_ty(len(m), len(m[0]))} {name} = {expr};")
        self.mats[name] = m

    def step(self) -> None:
        r = self.rng
        kind = r.choice(("mul", "mul", "mulvec", "transpose", "add", "trunc", "scalar", "construct", "write",
                         "swizzle", "row"))
        got = self.mat()
        assert got is not None
        an, a = got
        ra, ca = len(a), len(a[0])
        if kind == "mul":
            bt = self.mat(lambda m: len(m) == ca)
            if bt is None:           # no right operand yet: multiply by a transposed copy
                self.define(_mul(a, _t(a)), f"mul({an}, transpose({an}))")
                return
            bn, b = bt
            self.define(_mul(a, b), f"mul({an}, {bn})")
        elif kind == "mulvec":
            name = self.fresh("v")
            if r.random() < 0.5:
                vec = [r.choice(VALUES) for _ in range(ra)]
                val = [wrap(sum(vec[i] * a[i][c] for i in range(ra))) for c in range(ca)]
                self.lines.append(f"    int{ca} {name} = mul(int{ra}({', '.join(map(_lit, vec))}), {an});")
            else:
                vec = [r.choice(VALUES) for _ in range(ca)]
                val = [wrap(sum(a[i][k] * vec[k] for k in range(ca))) for i in range(ra)]
                self.lines.append(f"    int{ra} {name} = mul({an}, int{ca}({', '.join(map(_lit, vec))}));")
            self.vecs[name] = val
        elif kind == "transpose":
            self.define(_t(a), f"transpose({an})")
        elif kind == "add":
            bt = self.mat(lambda m: len(m) == ra and len(m[0]) == ca)
            assert bt is not None       # a itself at least
            bn, b = bt
            op = r.choice(("+", "*", "-"))
            f = {"+": lambda x, y: x + y, "*": lambda x, y: x * y, "-": lambda x, y: x - y}[op]
            self.define([[wrap(f(a[i][j], b[i][j])) for j in range(ca)] for i in range(ra)], f"({an} {op} {bn})")
        elif kind == "trunc":
            rr, cc = r.randint(1, ra), r.randint(1, ca)
            if (rr, cc) == (ra, ca) or (rr == 1 and cc == 1):
                return
            self.define([row[:cc] for row in a[:rr]], f"({_ty(rr, cc)}){an}")
        elif kind == "scalar":
            s = r.choice(VALUES)
            self.define([[wrap(s * x) for x in row] for row in a], f"mul({_lit(s)}, {an})")
        elif kind == "construct":
            rr, cc = r.randint(1, 4), r.randint(1, 4)
            if rr == 1 and cc == 1:
                return
            picks = [self._element() for _ in range(rr * cc)]
            self.define([[picks[i * cc + j][1] for j in range(cc)] for i in range(rr)],
                        f"{_ty(rr, cc)}({', '.join(p[0] for p in picks)})")
        elif kind == "write":
            cells = r.sample([(i, j) for i in range(ra) for j in range(ca)], r.randint(1, min(3, ra * ca)))
            vals = [self._element() for _ in cells]
            for (i, j), (_text, v) in zip(cells, vals):
                a[i][j] = v
            form = r.random()
            if len(cells) == 1 and form < 0.5:
                (i, j), = cells
                self.lines.append(f"    {an}[{i}][{j}] = {vals[0][0]};")
            elif len(cells) > 1 and form < 0.5:
                sw = "".join(f"_m{i}{j}" for i, j in cells)
                self.lines.append(f"    {an}.{sw} = int{len(cells)}({', '.join(v[0] for v in vals)});")
            else:       # the right sides read vectors only, so the order of the writes does not matter
                for (i, j), v in zip(cells, vals):
                    self.lines.append(f"    {an}._{i + 1}{j + 1} = {v[0]};")
        elif kind == "swizzle":
            cells = [(r.randrange(ra), r.randrange(ca)) for _ in range(r.randint(2, 4))]
            name = self.fresh("v")
            one_based = r.random() < 0.5
            sw = "".join(f"_{i + 1}{j + 1}" if one_based else f"_m{i}{j}" for i, j in cells)
            self.lines.append(f"    int{len(cells)} {name} = {an}.{sw};")
            self.vecs[name] = [a[i][j] for i, j in cells]
        elif kind == "row":
            i = r.randrange(ra)
            name = self.fresh("v")
            self.lines.append(f"    int{ca} {name} = {an}[{i}];")
            self.vecs[name] = list(a[i])

    def _element(self) -> tuple[str, int]:
        """A scalar: a literal, or an element of a local vector (never of a matrix being written)."""
        if self.vecs and self.rng.random() < 0.5:
            n = self.rng.choice(sorted(self.vecs))
            k = self.rng.randrange(len(self.vecs[n]))
            return f"{n}[{k}]", self.vecs[n][k]
        v = self.rng.choice(VALUES)
        return _lit(v), v


def _lit(v: int) -> str:
    return "int(-2147483647 - 1)" if v == -0x80000000 else f"({v})" if v < 0 else str(v)


PACKINGS = ("row_major", "column_major")


def generate(rng: random.Random, steps: int = 8) -> MatProgram:
    d = _Draw(rng)
    decls, inputs = [], {}
    pragma = rng.choice((None, "row_major", "column_major"))
    head = [f"#pragma pack_matrix({pragma})"] if pragma else []
    for k in range(rng.randint(1, 3)):
        how = rng.choice(("template", "typedef", "default"))
        packing = (pragma or "column_major") if how == "default" else rng.choice(PACKINGS)
        while True:
            rr, cc = rng.randint(1, 4), rng.randint(1, 4)
            # float matrices in the buffers: SPIR-V stores non-float ones by rows whatever their packing, and
            # Vulkan's std430 gives a stored 3-vector a 16-byte stride, D3D 12 (a deliberate target difference)
            if (rr, cc) != (1, 1) and (1 in (rr, cc) or (rr if packing == "column_major" else cc) != 3):
                break
        ft = f"float{rr}x{cc}"
        if how == "default":                         # HLSL's default, unless the pragma says otherwise
            elem = ft
        elif how == "typedef":
            decls.append(f"typedef {packing} {ft} M{k}_t;")
            elem = f"M{k}_t"
        else:
            elem = f"{packing} {ft}"
        name = f"B{k}"
        decls.append(f"StructuredBuffer<{elem}> {name} : register(t{k + 1});")
        m = [[rng.choice(VALUES) for _ in range(cc)] for _ in range(rr)]
        # every value is exact in float32 but 0x7FFFFFFF, which becomes 2^31 and converts back saturated
        inputs[name] = [x for row in m for x in row] if packing == "row_major" else [x for col in _t(m) for x in col]
        var = d.fresh("m")
        d.lines.append(f"    {_ty(rr, cc)} {var} = ({_ty(rr, cc)}){name}[0];")
        d.mats[var] = m
    for _ in range(steps):
        d.step()
    outs, want = [], []
    for _ in range(OUT_SLOTS):
        if d.vecs and rng.random() < 0.3:
            n = rng.choice(sorted(d.vecs))
            k = rng.randrange(len(d.vecs[n]))
            outs.append(f"{n}[{k}]")
            want.append(d.vecs[n][k])
        else:
            n = rng.choice(sorted(d.mats))
            m = d.mats[n]
            i, j = rng.randrange(len(m)), rng.randrange(len(m[0]))
            outs.append(rng.choice((f"{n}[{i}][{j}]", f"{n}._m{i}{j}", f"{n}._{i + 1}{j + 1}")))
            want.append(m[i][j])
    body = d.lines + [f"    Out[{k}] = {e};" for k, e in enumerate(outs)]
    src = "\n".join([*head, "RWStructuredBuffer<int> Out : register(u0);", *decls, "[numthreads(1, 1, 1)]",
                     "void main(uint3 tid : SV_DispatchThreadID) {", *body, "}"]) + "\n"
    return MatProgram(src, inputs, want)
