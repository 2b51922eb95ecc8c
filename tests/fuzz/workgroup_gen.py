"""Multi-thread compute programs with every output computed here (issue 20: silent wrong values where threads
meet): groupshared arrays traded behind group-sync barriers, Interlocked* on groupshared memory and on RW
buffers, wave operations under divergent control flow, quad reads, and the SV_GroupThreadID / SV_GroupID /
SV_DispatchThreadID / SV_GroupIndex family over 3-D groups and dispatches.

Race- and UB-free by construction: each thread writes only its own output slots and its own groupshared
elements; a phase that reads what other threads wrote follows a barrier in uniform control flow (each section
has its own groupshared array, so no read is ever followed by another thread's write); atomics combine with
commutative operations, and an original value (the `out` argument) is checked only as what some order of the
threads gives (an add chain, an exchange multiset, one compare-exchange winner).  A wave operation's result
depends on its active lanes only: lane-indexed reads happen where every lane of the wave is active (the top
level: a group's threads fill its waves in order, the last one possibly partly) or read the first active lane.
Quad reads happen only in groups of a multiple of 4 threads (SM 6.5: a quad is four consecutive lanes).

The wave size is the device's: every thread stores WaveGetLaneCount, WaveGetLaneIndex and its wave's first
lane's SV_GroupIndex; `findings` rebuilds the waves from them (checking they are consistent) and only then
models the wave operations on those waves.  Float wave values are small integers, halves and quarters (sums
exact in any order) and products of +-1, 2 and 0.5 (exact too).
"""

from __future__ import annotations

import random
import struct
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

M32 = 0xFFFFFFFF
SENTINEL = 0xCDCDCDCD
NIN = 64
OPTIONS = {"profile": "cs_6_5"}
LANE_SLOTS = 3                   # WaveGetLaneCount, WaveGetLaneIndex, the first lane's SV_GroupIndex


@dataclass
class Thread:
    """What the model knows of one thread before the run (its lane comes from the run)."""
    ft: int                      # flat thread index over the dispatch: base slot / slots
    gi: int
    group: tuple[int, int, int]
    local: tuple[int, int, int]
    a: int
    b: int
    in0: int                     # In[0], a value uniform over the dispatch
    lane: int = -1
    wave: list[int] = field(default_factory=list)      # flat indices of the wave's threads in lane order


def _s32(v: int) -> int:
    v &= M32
    return v - (1 << 32) if v >> 31 else v


def _bits(ty: str, v) -> int:
    if ty == "float":
        return struct.unpack("<I", struct.pack("<f", v))[0]
    return v & M32


# (hlsl, python) value templates over the thread's a, b, gi
_VALUES: dict[str, list[tuple[str, Callable[[int, int, int], object]]]] = {
    "uint": [("a", lambda a, b, g: a), ("(a ^ gi)", lambda a, b, g: a ^ g),
             ("(a * 3u + b)", lambda a, b, g: (a * 3 + b) & M32), ("(b % 17u)", lambda a, b, g: b % 17),
             ("(gi * 5u + 1u)", lambda a, b, g: g * 5 + 1), ("(a >> 2u)", lambda a, b, g: a >> 2),
             ("(gi & 3u)", lambda a, b, g: g & 3)],
    "int": [("((int)(a % 61u) - 30)", lambda a, b, g: a % 61 - 30), ("((int)gi - 9)", lambda a, b, g: g - 9),
            ("(-(int)(b % 7u))", lambda a, b, g: -(b % 7)), ("((int)(b & 0xFFFFu) * 7919)", lambda a, b, g: (b & 0xFFFF) * 7919)],
    "float": [("(float)((int)(a % 41u) - 20)", lambda a, b, g: float(a % 41 - 20)),
              ("((float)(gi % 9u) * 0.5f)", lambda a, b, g: (g % 9) * 0.5),
              ("((float)(b % 100u) * 0.25f)", lambda a, b, g: (b % 100) * 0.25)],
}
# for products: factors whose products stay exact (floats) or merely wrap (integers)
_FACTORS: dict[str, list[tuple[str, Callable[[int, int, int], object]]]] = {
    "uint": [("(a | 1u)", lambda a, b, g: a | 1), ("(gi % 3u + 1u)", lambda a, b, g: g % 3 + 1)],
    "int": [("((int)(a % 5u) - 2)", lambda a, b, g: a % 5 - 2), ("((int)(b % 3u) - 1)", lambda a, b, g: b % 3 - 1)],
    "float": [("((a & 3u) == 0u ? -2.0f : ((a & 3u) == 1u ? 0.5f : 1.0f))",
               lambda a, b, g: -2.0 if a & 3 == 0 else 0.5 if a & 3 == 1 else 1.0),
              ("((gi & 1u) != 0u ? -1.0f : 2.0f)", lambda a, b, g: -1.0 if g & 1 else 2.0)],
}
_PREDS: list[tuple[str, Callable[[int, int, int], bool]]] = [
    ("(a & 1u) != 0u", lambda a, b, g: a & 1 != 0), ("gi % 3u == 0u", lambda a, b, g: g % 3 == 0),
    ("b > 500u", lambda a, b, g: b > 500), ("a < b", lambda a, b, g: a < b), ("true", lambda a, b, g: True)]
_KEYS: list[tuple[str, Callable[[int, int, int], int]]] = [
    ("a % 3u", lambda a, b, g: a % 3), ("gi / 3u", lambda a, b, g: g // 3), ("(b & 1u)", lambda a, b, g: b & 1)]

# the commutative atomics' combination (Min/Max compare as the counter's type: its values are signed for int)
_ATOMIC: dict[str, Callable[[int, int], int]] = {
    "Add": lambda x, y: (x + y) & M32, "Or": lambda x, y: (x | y) & M32, "And": lambda x, y: x & y & M32,
    "Xor": lambda x, y: (x ^ y) & M32, "Min": min, "Max": max, "CompareStore": lambda x, y: y,
    "Exchange": lambda x, y: y, "CompareExchange": lambda x, y: y}
REDUCTIONS = ("Sum", "Product", "Min", "Max", "BitAnd", "BitOr", "BitXor")


def _combine(op: str, ty: str, xs: list):
    """A wave reduction of `xs` (exact: any order gives it)."""
    if op in ("Sum", "Product"):
        acc = 0 if op == "Sum" else 1
        for x in xs:
            acc = acc + x if op == "Sum" else acc * x
        if ty == "float":
            return float(acc)
        return _s32(acc) if ty == "int" else acc & M32
    if op == "Min":
        return min(xs)
    if op == "Max":
        return max(xs)
    acc = M32 if op == "BitAnd" else 0
    for x in xs:
        acc = acc & x if op == "BitAnd" else acc | x if op == "BitOr" else acc ^ x
    return acc


def _mask(lanes: list[int]) -> list[int]:
    words = [0, 0, 0, 0]
    for lane in lanes:
        words[lane // 32] |= 1 << (lane % 32)
    return words


@dataclass
class Section:
    """Code for one part of main and its model: `model(threads)` gives {(ft, slot): word}; `check(got)` judges
    the order-dependent words (a list of findings)."""
    code: str
    slots: int
    model: Callable[[list[Thread]], dict[tuple[int, int], int]]
    check: Callable[[Callable[[int, int], int], list[Thread], dict[str, list[int]]], list[str]] | None = None


@dataclass
class WgProgram:
    source: str
    numthreads: tuple[int, int, int]
    groups: tuple[int, int, int]
    inputs: list[int]
    slots: int
    sections: list[Section]
    accs: dict[str, tuple[str, list[int]]]             # buffer -> (element type, initial words)
    acc_model: Callable[[list[Thread]], dict[str, list[int | None]]]
    relay: int = 0                                     # a is thread (gi + relay) % T's input (0: its own)

    @property
    def threads(self) -> int:
        return self.numthreads[0] * self.numthreads[1] * self.numthreads[2] * \
            self.groups[0] * self.groups[1] * self.groups[2]

    def buffers(self) -> dict[str, bytes]:
        out = {"In": struct.pack(f"<{NIN}I", *self.inputs),
               "Out": struct.pack("<I", SENTINEL) * (self.threads * self.slots)}
        for name, (_ty, init) in self.accs.items():
            out[name] = struct.pack(f"<{len(init)}I", *(w & M32 for w in init))
        return out


# ------------------------------------------------------------------ the generator

class _Gen:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        dims = rng.choice([(128, 1, 1), (8, 8, 4), (1, 1, 1), (1, 7, 1), (8, 1, 1), (16, 1, 1), (32, 1, 1),
                           (64, 1, 1), (12, 1, 1), (4, 4, 1), (8, 2, 2), (2, 3, 4), (4, 2, 3), (3, 5, 1), (5, 1, 2), (16, 2, 1), (7, 1, 1), (4, 4, 4)])
        self.nt = dims
        self.T = dims[0] * dims[1] * dims[2]
        self.groups = rng.choice([(1, 1, 1), (2, 1, 1), (1, 2, 1), (2, 1, 2), (3, 1, 1), (1, 1, 3), (2, 2, 1)])
        self.slot = LANE_SLOTS
        self.n = 0
        self.accs: dict[str, tuple[str, list[int]]] = {}
        self.acc_models: list[Callable[[list[Thread]], dict[str, list[int | None]]]] = []
        self.decls: list[str] = []
        self.funcs: list[str] = []

    def fresh(self) -> int:
        self.n += 1
        return self.n

    def take(self, k: int) -> int:
        at = self.slot
        self.slot += k
        return at

    def value(self, ty: str, table=None):
        return self.rng.choice((table or _VALUES)[ty])

    def barrier(self) -> str:
        return self.rng.choice(["GroupMemoryBarrierWithGroupSync", "AllMemoryBarrierWithGroupSync"]) + "();"

    # -- system values
    def ids(self) -> Section:
        gt_w, dt_w = self.rng.randint(1, 3), self.rng.randint(1, 3)
        self.id_ty = self.rng.choice(["uint", "uint", "int"])          # the system values convert to int too
        at = self.take(gt_w + dt_w + 3)
        comps = "xyz"
        lines = [f"    Out[o + {at + c}u] = gtid{'.' + comps[c] if gt_w > 1 else ''};" for c in range(gt_w)]
        lines += [f"    Out[o + {at + gt_w + c}u] = dtid{'.' + comps[c] if dt_w > 1 else ''};" for c in range(dt_w)]
        lines += [f"    Out[o + {at + gt_w + dt_w + c}u] = gid.{comps[c]};" for c in range(3)]
        self.gt_w, self.dt_w = gt_w, dt_w
        nt = self.nt

        def model(ths: list[Thread]) -> dict:
            out = {}
            for t in ths:
                dt = [t.group[c] * nt[c] + t.local[c] for c in range(3)]
                vals = [*t.local[:gt_w], *dt[:dt_w], *t.group]
                out.update({(t.ft, at + k): v for k, v in enumerate(vals)})
            return out
        return Section("\n".join(lines), 0, model)

    # -- groupshared arrays behind barriers
    def shared(self) -> Section:
        n, T, rng = self.fresh(), self.T, self.rng
        per = rng.choice([1, 1, 2])
        vals = [self.value("uint") for _ in range(per)]
        perms: list[tuple[str, Callable[[int], int]]] = [
            (f"(gi + {(s := rng.randint(1, T))}u) % {T}u", lambda g, s=s: (g + s) % T),
            (f"{T - 1}u - gi", lambda g: T - 1 - g)]
        odd = [p for p in (3, 5, 7, 11) if T % p and p < 2 * T]
        if odd:
            p = rng.choice(odd)
            perms.append((f"(gi * {p}u) % {T}u", lambda g, p=p: (g * p) % T))
        if T & (T - 1) == 0 and T > 1:
            m = rng.randint(1, T - 1)
            perms.append((f"gi ^ {m}u", lambda g, m=m: g ^ m))
        text, perm = rng.choice(perms)
        ety = rng.choice(["uint", "int", "float", "uint2", "struct"])
        # (element type, stores of value e into element x, reads of element x, words of the value)
        elem, sets, gets, words = {
            "uint": ("uint", ["{x} = {e};"], ["{x}"], lambda v: [v]),
            "int": ("int", ["{x} = (int)({e});"], ["asuint({x})"], lambda v: [v]),
            "float": ("float", ["{x} = (float)(({e}) & 0xFFFFu);"], ["asuint({x})"], lambda v: [_bits("float", float(v & 0xFFFF))]),
            "uint2": ("uint2", ["{x} = uint2({e}, ({e}) ^ 0x55u);"], ["{x}.x", "{x}.y"], lambda v: [v, v ^ 0x55]),
            "struct": (f"P{n}", ["{x}.u = {e};", "{x}.f = (float)(({e}) & 0xFFFFu);"], ["{x}.u", "asuint({x}.f)"],
                       lambda v: [v, _bits("float", float(v & 0xFFFF))]),
        }[ety]
        if ety == "struct":
            self.decls.append(f"struct P{n} {{ uint u; float f; }};")
        at = self.take(per * len(gets))
        two_d = rng.random() < 0.5
        def cell(i: str, j: int) -> str:
            return f"G{n}[{i}][{j}u]" if two_d else f"G{n}[{i} * {per}u + {j}u]"
        writes = "\n".join("    " + st.format(x=cell("gi", j), e=vals[j][0]) for j in range(per) for st in sets)
        reads = "\n".join(f"    Out[o + {at + j * len(gets) + c}u] = {gt.format(x=cell(f'p{n}', j))};"
                          for j in range(per) for c, gt in enumerate(gets))
        code = f"{writes}\n    {self.barrier()}\n    uint p{n} = {text};\n{reads}"
        self.decls.append(f"groupshared {elem} G{n}[{T}][{per}];" if two_d else f"groupshared {elem} G{n}[{T * per}];")

        def model(ths: list[Thread]) -> dict:
            out = {}
            for t in ths:
                src = ths[t.ft - t.gi + perm(t.gi)]
                for j in range(per):
                    ws = words(vals[j][1](src.a, src.b, src.gi) & M32)
                    out.update({(t.ft, at + j * len(gets) + c): w for c, w in enumerate(ws)})
            return out
        return Section(code, 0, model)

    def stencil(self) -> Section:
        """Rounds of read-the-neighbours, barrier, write-your-own, barrier, in a loop whose trip count is
        uniform but read at run time (In[0]); the phases keep every read and write apart."""
        n, T, rng = self.fresh(), self.T, self.rng
        at = self.take(1)
        d1, d2 = rng.randint(1, T), rng.randint(0, T)
        mul = rng.choice([1, 3, 0x9E3779B1])
        val = self.value("uint")
        wrap = rng.random() < 0.4
        code = (f"    S{n}[gi] = {val[0]};\n    {self.barrier()}\n"
                f"    for (uint k{n} = 0u; k{n} < In[0] % 3u + 1u; k{n}++) {{\n"
                f"        uint x{n} = S{n}[(gi + {d1}u) % {T}u] * {mul}u + S{n}[(gi + {d2}u) % {T}u] + k{n};\n"
                f"        {self.barrier()}\n        S{n}[gi] = x{n};\n        {self.barrier()}\n    }}\n"
                f"    Out[o + {at}u] = S{n}[{rng.choice(['gi', f'{T - 1}u - gi', '0u'])}];")
        pick = code.rsplit("S" + str(n) + "[", 1)[1].split("]")[0]
        if wrap:          # a branch every thread takes, on a value the compiler cannot know
            code = "    if (WaveGetLaneCount() != 0u) {\n    " + code.replace("\n", "\n    ") + "\n    }"
        self.decls.append(f"groupshared uint S{n}[{T}];")

        def model(ths: list[Thread]) -> dict:
            out = {}
            rounds = ths[0].in0 % 3 + 1
            for base in range(0, len(ths), T):
                s = [val[1](t.a, t.b, t.gi) & M32 for t in ths[base:base + T]]
                for k in range(rounds):
                    s = [(s[(g + d1) % T] * mul + s[(g + d2) % T] + k) & M32 for g in range(T)]
                for g in range(T):
                    src = {"gi": g, f"{T - 1}u - gi": T - 1 - g, "0u": 0}[pick]
                    out[(ths[base + g].ft, at)] = s[src]
            return out
        return Section(code, 0, model)

    def reduce(self) -> Section:
        """A tree reduction over the group (any group size: the upper half folds onto the lower)."""
        n, T = self.fresh(), self.T
        at = self.take(1)
        op, fn = self.rng.choice([("+", lambda x, y: (x + y) & M32), ("^", lambda x, y: x ^ y),
                                  ("|", lambda x, y: x | y), ("max", max), ("min", min)])
        val = self.value("uint")
        top = 1
        while top < T:
            top *= 2
        step = f"R{n}[gi] = max(R{n}[gi], R{n}[gi + s{n}]);" if op == "max" else \
            f"R{n}[gi] = min(R{n}[gi], R{n}[gi + s{n}]);" if op == "min" else f"R{n}[gi] {op}= R{n}[gi + s{n}];"
        code = (f"    R{n}[gi] = {val[0]};\n    {self.barrier()}\n"
                f"    for (uint s{n} = {top // 2}u; s{n} > 0u; s{n} >>= 1) {{\n"
                f"        if (gi < s{n} && gi + s{n} < {T}u)\n            {step}\n        {self.barrier()}\n    }}\n"
                f"    Out[o + {at}u] = R{n}[0];")
        self.decls.append(f"groupshared uint R{n}[{T}];")

        def model(ths: list[Thread]) -> dict:
            out = {}
            for base in range(0, len(ths), T):
                r = [val[1](t.a, t.b, t.gi) & M32 for t in ths[base:base + T]]
                s = top // 2
                while s:
                    for g in range(s):
                        if g + s < T:
                            r[g] = fn(r[g], r[g + s])
                    s //= 2
                out.update({(ths[base + g].ft, at): r[0] for g in range(T)})
            return out
        return Section(code, 0, model)

    # -- atomics
    def atomic(self, where: str) -> Section:
        """Interlocked* on K groupshared counters (per group) or K elements of a RWStructuredBuffer /
        RWByteAddressBuffer (over the whole dispatch); thread gi uses counter gi % K."""
        n, rng, T = self.fresh(), self.rng, self.T
        with_orig = rng.random() < 0.5
        op = rng.choice(["Add", "Exchange", "CompareExchange"] if with_orig else
                        ["Add", "Or", "And", "Xor", "Min", "Max", "CompareStore"])
        if op == "CompareStore" and where == "shared":
            op = "Add"
        signed = op in ("Min", "Max", "Add") and where != "raw" and rng.random() < 0.4
        ty = "int" if signed else "uint"
        K = rng.choice([1, 1, 2, 3]) if where != "shared" or T > 3 else 1
        init = rng.choice([0, 5, 1000, 0xFFFF]) if not signed else rng.choice([0, -7, 100, -100000])
        pred = rng.choice(_PREDS)
        if op == "Add":
            v = ("(b % 13u + 1u)", lambda a, b, g: b % 13 + 1) if rng.random() < 0.5 else \
                ("(gi % 5u + 1u)", lambda a, b, g: g % 5 + 1)
            if signed:
                v = (f"(int){v[0]}", v[1])
        elif op in ("Exchange", "CompareExchange", "CompareStore"):
            v = ("(ft + 1u)", None)           # distinct, never the initial value
            init = 0
        elif signed:
            v = self.value("int")
        else:
            v = self.value("uint")
        orig_at = self.take(1) if with_orig else None
        at = self.take(1) if where == "shared" else None
        cmp = f"{init}{'u' if ty == 'uint' else ''}, "
        args = cmp + v[0] if op in ("CompareExchange", "CompareStore") else v[0]
        tail = f", o{n}" if with_orig else ""
        name = {"shared": f"C{n}", "raw": "Raw", "buf": "AccI" if signed else "AccU"}[where]
        idx = 0
        which = "" if K == 1 else f" + gi % {K}u"
        part_of = ""
        if where == "shared":
            box = rng.choice(["scalar", "scalar", "vector", "struct"])       # the counter alone, .y, a member
            if box == "vector":
                part_of = ".y"
                self.decls.append(f"groupshared {ty}2 C{n}[{K}];")
            elif box == "struct":
                part_of = ".v"
                self.decls += [f"struct Q{n} {{ uint pad; {ty} v; }};", f"groupshared Q{n} C{n}[{K}];"]
            else:
                self.decls.append(f"groupshared {ty} C{n}[{K}];")
            target = f"C{n}[gi % {K}u]{part_of}"
        else:
            idx = len(self.accs.setdefault(name, (ty, []))[1])
            self.accs[name][1].extend([init] * K)
            target = f"{name}[{idx}u{which}]"
        call = (f"Raw.Interlocked{op}(({idx}u{which}) * 4u, {args}{tail});" if where == "raw"
                else f"Interlocked{op}({target}, {args}{tail});")
        body = f"{ty} o{n};\n        {call}\n        Out[o + {orig_at}u] = asuint(o{n});" if with_orig else call
        looped = not with_orig and rng.random() < 0.3      # gi % 3 times, in a loop of its own per thread
        if looped:
            body = f"for (uint r{n} = 0u; r{n} < gi % 3u; r{n}++)\n            {call}"
        lines = []
        if where == "shared":
            lines += [f"    if (gi < {K}u)\n        C{n}[gi]{part_of} = {init};", f"    {self.barrier()}"]
        lines.append(f"    if ({pred[0]}) {{\n        {body}\n    }}")
        if where == "shared":
            lines += [f"    {self.barrier()}", f"    Out[o + {at}u] = asuint({target});"]

        def operand(t: Thread) -> int:
            return t.ft + 1 if v[1] is None else v[1](t.a, t.b, t.gi)

        def reps(t: Thread) -> int:
            return (t.gi % 3 if looped else 1) if pred[1](t.a, t.b, t.gi) else 0

        def final(ths: list[Thread]) -> int:
            acc = init
            for t in ths:
                for _ in range(reps(t)):
                    acc = _ATOMIC[op](acc, operand(t))
            return acc

        def scopes(ths: list[Thread]) -> list[tuple[int, list[Thread]]]:
            """(counter, its threads): per group for groupshared counters."""
            groups = [ths[i:i + T] for i in range(0, len(ths), T)] if where == "shared" else [ths]
            return [(k, [t for t in grp if t.gi % K == k]) for grp in groups for k in range(K)]

        order_dependent = op in ("Exchange", "CompareExchange", "CompareStore")

        def model(ths: list[Thread]) -> dict:
            """The final values (Exchange's is checked with the originals), None for the originals."""
            out: dict = {}
            for _k, scope in scopes(ths):
                if at is not None:
                    out.update({(t.ft, at): None if order_dependent else final(scope) & M32 for t in scope})
                if orig_at is not None:
                    out.update({(t.ft, orig_at): None for t in scope if pred[1](t.a, t.b, t.gi)})
            return out

        if where != "shared":
            def acc_model(ths: list[Thread]) -> dict:
                words: list[int | None] = [None] * len(self.accs[name][1])
                if not order_dependent:
                    for k, scope in scopes(ths):
                        words[idx + k] = final(scope) & M32
                return {name: words}
            self.acc_models.append(acc_model)

        def check(word: Callable[[int, int], int], ths: list[Thread], accs: dict[str, list[int]]) -> list[str]:
            found = []
            for si, (k, scope) in enumerate(scopes(ths)):
                if where == "shared":
                    ends = {word(t.ft, at) for t in scope}
                    if len(ends) > 1:
                        found.append(f"C{n} scope {si}: threads read different final values {sorted(ends)[:4]}")
                        continue
                    if not ends:
                        continue
                    end = ends.pop()
                else:
                    end = accs[name][idx + k]
                part = [t for t in scope if reps(t)]
                if op == "CompareStore":
                    if end not in ({operand(t) for t in part} or {init}):
                        found.append(f"{name}[{idx + k}]: compare-store left {end:#x}, no participant's value")
                    continue
                origs = [(operand(t) & M32, word(t.ft, orig_at) if orig_at is not None else 0) for t in part]
                found += _order_check(op, with_orig, init & M32, end, origs, f"{name} (section {n}) scope {si}")
            return found
        return Section("\n".join(lines), 0, model, check)

    # -- wave operations
    def _wave_expr(self, kind: str) -> tuple[str, str, int, Callable[[list[Thread], int], list[int]]]:
        """(declaration type, expression, stored words, lanes-of-the-wave -> words) for one wave operation;
        the callable gets the active threads in lane order and the index of this thread among them."""
        rng = self.rng
        ty = rng.choice(["uint", "int", "float"])
        width = rng.choice([1, 1, 2, 3])
        if kind == "reduce":
            op = rng.choice([o for o in REDUCTIONS if ty == "uint" or not o.startswith("Bit")])
            prefix = op in ("Sum", "Product") and rng.random() < 0.4
            comps = [self.value(ty, _FACTORS if op == "Product" else None) for _ in range(width)]
            vty = ty if width == 1 else f"{ty}{width}"
            arg = comps[0][0] if width == 1 else f"{vty}({', '.join(c[0] for c in comps)})"
            name = f"Wave{'Prefix' if prefix else 'Active'}{op}"

            def fn(act: list[Thread], me: int) -> list[int]:
                use = act[:me] if prefix else act
                return [_bits(ty, _combine(op, ty, [c[1](t.a, t.b, t.gi) for t in use])) for c in comps]
            return vty, f"{name}({arg})", width, fn
        if kind == "vote":
            pred = rng.choice(_PREDS)
            op = rng.choice(["WaveActiveCountBits", "WavePrefixCountBits", "WaveActiveAllTrue", "WaveActiveAnyTrue",
                             "WaveActiveBallot", "WaveIsFirstLane"])

            def fn(act: list[Thread], me: int) -> list[int]:
                ps = [pred[1](t.a, t.b, t.gi) for t in act]
                return {"WaveActiveCountBits": lambda: [sum(ps)], "WavePrefixCountBits": lambda: [sum(ps[:me])],
                        "WaveActiveAllTrue": lambda: [int(all(ps))], "WaveActiveAnyTrue": lambda: [int(any(ps))],
                        "WaveActiveBallot": lambda: _mask([t.lane for t, p in zip(act, ps) if p]),
                        "WaveIsFirstLane": lambda: [int(me == 0)]}[op]()
            if op == "WaveIsFirstLane":
                return "bool", "WaveIsFirstLane()", 1, fn
            if op == "WaveActiveBallot":
                return "uint4", f"WaveActiveBallot({pred[0]})", 4, fn
            return ("bool" if "True" in op else "uint"), f"{op}({pred[0]})", 1, fn
        if kind == "read":
            if rng.random() < 0.25:          # bool values (vectors of them too)
                ty = "bool"
                comps = [(f"({p[0]})", lambda a, b, g, f=p[1]: int(f(a, b, g))) for p in
                         (rng.choice(_PREDS) for _ in range(width))]
            else:
                comps = [self.value(ty) for _ in range(width)]
            vty = ty if width == 1 else f"{ty}{width}"
            arg = comps[0][0] if width == 1 else f"{vty}({', '.join(c[0] for c in comps)})"
            op = rng.choice(["first", "equal"])

            def fn(act: list[Thread], me: int) -> list[int]:
                if op == "first":
                    return [_bits(ty, c[1](act[0].a, act[0].b, act[0].gi)) if ty != "bool" else
                            c[1](act[0].a, act[0].b, act[0].gi) for c in comps]
                return [int(len({c[1](t.a, t.b, t.gi) for t in act}) == 1) for c in comps]
            if op == "first":
                return vty, f"WaveReadLaneFirst({arg})", width, fn
            return ("bool" if width == 1 else f"bool{width}"), f"WaveActiveAllEqual({arg})", width, fn
        # kind == "match": a partition by key, then a multi-prefix over it
        key = rng.choice(_KEYS)
        op = rng.choice(["Match", "Sum", "Product", "BitAnd", "BitOr", "BitXor", "CountBits"])
        if op == "Match":
            def fn(act: list[Thread], me: int) -> list[int]:
                k = key[1](act[me].a, act[me].b, act[me].gi)
                return _mask([t.lane for t in act if key[1](t.a, t.b, t.gi) == k])
            return "uint4", f"WaveMatch({key[0]})", 4, fn
        if op.startswith("Bit"):
            ty = "uint"
        pred = rng.choice(_PREDS)
        val = self.value(ty, _FACTORS if op == "Product" else None)
        arg = pred[0] if op == "CountBits" else val[0]

        def fn(act: list[Thread], me: int) -> list[int]:
            k = key[1](act[me].a, act[me].b, act[me].gi)
            part = [t for t in act[:me] if key[1](t.a, t.b, t.gi) == k]
            if op == "CountBits":
                return [sum(1 for t in part if pred[1](t.a, t.b, t.gi))]
            return [_bits(ty, _combine(op, ty, [val[1](t.a, t.b, t.gi) for t in part]))]
        return ("uint" if op == "CountBits" else ty), f"WaveMultiPrefix{op}({arg}, WaveMatch({key[0]}))", 1, fn

    def wave(self, shape: str = "") -> Section:
        """A wave operation (or two) at the top level or under divergence; shape "return" (the last
        section only) leaves main early on the other lanes."""
        n, rng = self.fresh(), self.rng
        shape = shape or rng.choice(["top", "if", "ifelse", "loop", "func", "switch", "nested"])
        if shape == "loop":
            return self._wave_loop(n)
        kinds = ["reduce", "vote", "read", "match"]
        arms = []
        conds = [("true", lambda t: True)]
        pick = [("gi % 3u == 0u", lambda t: t.gi % 3 == 0), ("(a & 2u) != 0u", lambda t: t.a & 2 != 0),
                            ("WaveGetLaneIndex() % 3u != 1u", lambda t: t.lane % 3 != 1),
                            ("b % 4u < 3u", lambda t: t.b % 4 < 3),
                            (f"gi < {(k := rng.randint(1, self.T))}u", lambda t, k=k: t.gi < k)]
        if shape != "top":
            c = rng.choice(pick)
            if shape == "nested":            # the inner if's lanes: those of both conditions
                c2 = rng.choice(pick)
                c = (f"{c[0]}) {{\n        if ({c2[0]}", lambda t, f=c[1], f2=c2[1]: f(t) and f2(t))
            if shape == "switch":
                c = ("gi % 3u", lambda t: t.gi % 3 == 0)
            conds = [c] + ([(f"!({c[0]})", lambda t, f=c[1]: not f(t))] if shape in ("ifelse", "switch") else [])
        for cond in conds:
            vty, expr, words, fn = self._wave_expr(rng.choice(kinds))
            at = self.take(words)
            stores = _stores(f"w{n}_{len(arms)}", vty, words, at)
            arms.append((cond, f"{vty} w{n}_{len(arms)} = {expr};\n{stores}", at, fn))
        if shape == "top":
            code = "\n".join("    " + a[1].replace("\n", "\n    ") for a in arms)
            # a lane-indexed read: every lane of the wave is active here
            vty, fn2, at2, text2 = self._read_at(n)
            code += "\n" + text2
            arms.append((conds[0], "", at2, fn2))
        elif shape == "return":
            code = f"    if (!({conds[0][0]}))\n        return;\n    " + arms[0][1].replace("\n", "\n    ")
        elif shape == "if":
            code = f"    if ({conds[0][0]}) {{\n        " + arms[0][1].replace("\n", "\n        ") + "\n    }"
        elif shape == "nested":
            code = (f"    if ({conds[0][0]}) {{\n            " + arms[0][1].replace("\n", "\n            ")
                    + "\n        }\n    }")
        elif shape == "func":           # through a call (the wave operation's lanes are the caller's)
            self.funcs.append(f"void f{n}(uint a, uint b, uint gi, uint o) {{\n    "
                              + arms[0][1].replace("\n", "\n    ") + "\n}")
            code = f"    if ({conds[0][0]})\n        f{n}(a, b, gi, o);"
        elif shape == "switch":
            code = ("    switch (gi % 3u) {\n    case 0u: {\n        " + arms[0][1].replace("\n", "\n        ")
                    + "\n        break;\n    }\n    default: {\n        " + arms[1][1].replace("\n", "\n        ")
                    + "\n        break;\n    }\n    }")
        else:
            code = (f"    if ({conds[0][0]}) {{\n        " + arms[0][1].replace("\n", "\n        ") + "\n    } else {\n        "
                    + arms[1][1].replace("\n", "\n        ") + "\n    }")

        def model(ths: list[Thread]) -> dict:
            out = {}
            for t in ths:
                for cond, _c, at, fn in arms:
                    if not cond[1](t):
                        continue
                    act = [ths[u] for u in t.wave if cond[1](ths[u])]
                    out.update({(t.ft, at + k): w for k, w in enumerate(fn(act, act.index(t)))})
            return out
        return Section(code, 0, model)

    def _read_at(self, n: int):
        rng = self.rng
        ty = rng.choice(["uint", "int", "float"])
        val = self.value(ty)
        c = rng.randint(0, 40)
        quad = self.T % 4 == 0 and rng.random() < 0.6
        at = self.take(1)
        if quad:
            op, lane_of = rng.choice([("QuadReadAcrossX({})", lambda m: m ^ 1), ("QuadReadAcrossY({})", lambda m: m ^ 2),
                                      ("QuadReadAcrossDiagonal({})", lambda m: m ^ 3),
                                      (f"QuadReadLaneAt({{}}, {(q := rng.randint(0, 3))}u)", lambda m, q=q: m & ~3 | q)])
            expr = op.format(val[0])
        else:
            expr = f"WaveReadLaneAt({val[0]}, {c}u % WaveActiveCountBits(true))"
        text = f"    Out[o + {at}u] = asuint({expr});"

        def fn(act: list[Thread], me: int) -> list[int]:
            src = act[lane_of(me)] if quad else act[c % len(act)]
            return [_bits(ty, val[1](src.a, src.b, src.gi))]
        return ty, fn, at, text

    def _wave_loop(self, n: int) -> Section:
        """A loop whose trip count differs per lane: iteration i has the lanes with more than i trips (less
        those that skip it)."""
        rng = self.rng
        op = rng.choice(["Sum", "Max", "Min", "BitOr", "BitXor"])
        val = self.value("uint")
        trips = rng.choice([("a % 3u", lambda t: t.a % 3), ("gi % 4u", lambda t: t.gi % 4), ("b % 5u", lambda t: t.b % 5)])
        at = self.take(1)
        skip = rng.random() < 0.5          # a while loop left by break, skipping (continue) odd i + gi rounds
        if skip:
            code = (f"    uint r{n} = 7u;\n    uint i{n} = 0u;\n    while (true) {{\n"
                    f"        if (i{n} >= {trips[0]})\n            break;\n"
                    f"        if ((i{n} + gi) % 2u == 1u) {{\n            i{n}++;\n            continue;\n        }}\n"
                    f"        r{n} = r{n} * 31u + WaveActive{op}({val[0]} + i{n});\n        i{n}++;\n    }}\n"
                    f"    Out[o + {at}u] = r{n};")
        else:
            code = (f"    uint r{n} = 7u;\n    for (uint i{n} = 0u; i{n} < {trips[0]}; i{n}++)\n"
                    f"        r{n} = r{n} * 31u + WaveActive{op}({val[0]} + i{n});\n    Out[o + {at}u] = r{n};")

        def there(t: Thread, i: int) -> bool:
            return trips[1](t) > i and not (skip and (i + t.gi) % 2 == 1)

        def model(ths: list[Thread]) -> dict:
            out = {}
            for t in ths:
                r = 7
                for i in range(trips[1](t)):
                    if not there(t, i):
                        continue
                    act = [ths[u] for u in t.wave if there(ths[u], i)]
                    r = (r * 31 + _combine(op, "uint", [(val[1](s.a, s.b, s.gi) + i) & M32 for s in act])) & M32
                out[(t.ft, at)] = r
            return out
        return Section(code, 0, model)


def _stores(var: str, vty: str, words: int, at: int) -> str:
    comps = [var] if words == 1 else [f"{var}.{'xyzw'[c]}" for c in range(words)]
    if vty.startswith("bool"):
        return "\n".join(f"Out[o + {at + k}u] = {c} ? 1u : 0u;" for k, c in enumerate(comps))
    return "\n".join(f"Out[o + {at + k}u] = asuint({c});" for k, c in enumerate(comps))


def _order_check(op: str, with_orig: bool, init: int, end: int, parts: list[tuple[int, int]],
                 where: str) -> list[str]:
    """The final value and originals of one counter are what some order of its atomics gives."""
    if not with_orig or not parts:
        return []
    origs = [o for _v, o in parts]
    if op == "Add":
        order = sorted(parts, key=lambda p: (p[1] - init) & M32)       # the counter only grows from init
        at = init
        for v, o in order:
            if o != at:
                return [f"{where}: the add originals {sorted(origs)[:8]} chain no order (expected {at}, got {o})"]
            at = (at + v) & M32
        return [] if end == at else [f"{where}: final {end}, want {at}"]
    if op == "Exchange":
        if Counter([init, *(v for v, _o in parts)]) != Counter([*origs, end]):
            return [f"{where}: exchange originals {sorted(origs)[:8]} + final {end} are not the initial + operands"]
        return []
    winners = [v for v, o in parts if o == init]          # CompareExchange
    if len(winners) != 1 or end != winners[0] or any(o != end for _v, o in parts if o != init):
        return [f"{where}: compare-exchange originals {sorted(origs)[:8]}, final {end}: not one winner"]
    return []


def generate(rng: random.Random) -> WgProgram:
    g = _Gen(rng)
    sections = [g.ids()]
    for _ in range(rng.randint(2, 5)):
        kind = rng.choice(["shared", "reduce", "stencil", "atomic_shared", "atomic_buf", "atomic_raw", "wave", "wave", "wave"])
        if kind == "shared":
            sections.append(g.shared())
        elif kind == "reduce":
            sections.append(g.reduce())
        elif kind == "stencil":
            sections.append(g.stencil())
        elif kind.startswith("atomic"):
            sections.append(g.atomic(kind.split("_")[1]))
        else:
            sections.append(g.wave())
    if rng.random() < 0.25:
        sections.append(g.wave("return"))
    gx, gy, gz = g.groups
    nx, ny, nz = g.nt
    T = g.T
    gt_ty = g.id_ty if g.gt_w == 1 else f"{g.id_ty}{g.gt_w}"
    dt_ty = g.id_ty if g.dt_w == 1 else f"{g.id_ty}{g.dt_w}"
    params = ["uint gi : SV_GroupIndex", "uint3 gid : SV_GroupID", f"{gt_ty} gtid : SV_GroupThreadID",
              f"{dt_ty} dtid : SV_DispatchThreadID"]
    rng.shuffle(params)
    decls = ["StructuredBuffer<uint> In : register(t4);", "RWStructuredBuffer<uint> Out : register(u0);"]
    regs = {"AccU": ("RWStructuredBuffer<uint>", 1), "AccI": ("RWStructuredBuffer<int>", 2), "Raw": ("RWByteAddressBuffer", 3)}
    decls += [f"{regs[n][0]} {n} : register(u{regs[n][1]});" for n in g.accs]
    inputs = [rng.choice([rng.randrange(1000), rng.randrange(1 << 16), rng.randrange(1 << 32)]) for _ in range(NIN)]
    # a: this thread's input (or, relayed, the input of thread (gi + relay) % T, through groupshared memory)
    relay = rng.randrange(1, T) if T > 1 and rng.random() < 0.4 else 0
    load_a = [f"    uint a = In[ft % {NIN}u];"]
    if relay:
        g.decls.append(f"groupshared uint A0[{T}];")
        load_a = [f"    A0[gi] = In[ft % {NIN}u];", f"    {g.barrier()}", f"    uint a = A0[(gi + {relay}u) % {T}u];"]
    body = [f"    uint ft = ((gid.z * {gy}u + gid.y) * {gx}u + gid.x) * {T}u + gi;",
            f"    uint o = ft * {g.slot}u;", *load_a, f"    uint b = In[(ft * 7u + 3u) % {NIN}u];",
            "    Out[o + 0u] = WaveGetLaneCount();", "    Out[o + 1u] = WaveGetLaneIndex();",
            "    Out[o + 2u] = WaveReadLaneFirst(gi);"]
    body += [s.code for s in sections]
    source = ("\n".join(decls + g.decls + g.funcs) + f"\n[numthreads({nx}, {ny}, {nz})]\nvoid main({', '.join(params)}) {{\n"
              + "\n".join(body) + "\n}\n")
    models = g.acc_models

    def acc_model(ths: list[Thread]) -> dict[str, list[int | None]]:
        out: dict[str, list[int | None]] = {n: [None] * len(init) for n, (_t, init) in g.accs.items()}
        for m in models:
            for n, words in m(ths).items():
                out[n] = [w if w is not None else o for w, o in zip(words, out[n])]
        return out
    return WgProgram(source, g.nt, g.groups, inputs, g.slot, sections, g.accs, acc_model, relay)


# ------------------------------------------------------------------ the check

def threads(prog: WgProgram) -> list[Thread]:
    nx, ny, nz = prog.numthreads
    gx, gy, gz = prog.groups
    out = []
    for gzz in range(gz):
        for gyy in range(gy):
            for gxx in range(gx):
                for z in range(nz):
                    for y in range(ny):
                        for x in range(nx):
                            ft = len(out)
                            gi = (z * ny + y) * nx + x
                            T = nx * ny * nz
                            a = prog.inputs[(ft - gi + (gi + prog.relay) % T) % NIN]
                            b = prog.inputs[(ft * 7 + 3) % NIN]
                            out.append(Thread(ft, gi, (gxx, gyy, gzz), (x, y, z), a, b, prog.inputs[0]))
    return out


def _waves(ths: list[Thread], word: Callable[[int, int], int], T: int) -> list[str]:
    """Give each thread its lane and wave from the run's lane words; the findings if they are inconsistent."""
    for base in range(0, len(ths), T):
        by_head: dict[int, dict[int, int]] = {}
        for t in ths[base:base + T]:
            by_head.setdefault(word(t.ft, 2), {})[word(t.ft, 1)] = t.ft
        for head, lanes in by_head.items():
            size = word(lanes.get(0, base), 0)
            if head >= T or sorted(lanes) != list(range(len(lanes))) or lanes[0] != base + head or \
                    len(lanes) > size or any(word(u, 0) != size for u in lanes.values()):
                return [f"group at thread {base}: inconsistent lanes {sorted(lanes)} for first lane {head}"]
            wave = [lanes[i] for i in range(len(lanes))]
            for lane, u in enumerate(wave):
                ths[u].lane, ths[u].wave = lane, wave
    return []


def findings(prog: WgProgram, got: dict[str, bytes], route: str) -> list[str]:
    """What `route`'s buffers get wrong."""
    out = struct.unpack(f"<{len(got['Out']) // 4}I", got["Out"])
    S = prog.slots

    def word(ft: int, k: int) -> int:
        return out[ft * S + k]
    ths = threads(prog)
    T = prog.numthreads[0] * prog.numthreads[1] * prog.numthreads[2]
    bad = _waves(ths, word, T)
    if bad:
        return [f"{route} {b}" for b in bad]
    want: dict[tuple[int, int], int] = {}
    for s in prog.sections:
        want.update(s.model(ths))
    found = []
    for t in ths:
        for k in range(LANE_SLOTS, S):
            w = want.get((t.ft, k), SENTINEL)
            if w is not None and word(t.ft, k) != w:
                found.append(f"{route} thread {t.ft} (group {t.group}, gi {t.gi}, lane {t.lane}) Out slot {k}: "
                             f"{word(t.ft, k):#x}, want {w:#x}")
    accs = {n: list(struct.unpack(f"<{len(got[n]) // 4}I", got[n])) for n in prog.accs}
    for n, words in prog.acc_model(ths).items():
        found += [f"{route} {n}[{i}]: {accs[n][i]:#x}, want {w:#x}" for i, w in enumerate(words)
                  if w is not None and accs[n][i] != w]
    for s in prog.sections:
        if s.check is not None:
            found += [f"{route} {f}" for f in s.check(word, ths, accs)]
    return found[:40]



ROUTES = ("spirv", "dxil-vk")      # the serial DXIL interpreter runs no barrier or wave operation


def route_findings(prog: WgProgram, route: str) -> list[str]:
    """Run `prog` on `route` (SPIR-V on lavapipe with its -O0 rerun judged by the same model, or our DXIL
    through dxil-spirv on lavapipe) and give what it gets wrong.  A dxil-spirv limit raises ConsumerLimit."""
    from . import routes
    bufs = prog.buffers()

    def judge(again: list[bytes], _got: object) -> None:
        bad = findings(prog, dict(zip(bufs, again)), f"{route} -O0")
        if bad:
            raise AssertionError("\n".join(bad))
    got = routes.run(route, prog.source, bufs, groups=prog.groups, o0_check=judge, **OPTIONS)
    return findings(prog, got, route)
