"""A generator of constant-buffer layouts with the word every read must return, computed here from
the packing rules alone (not from the compiler).

D3D (what DXIL reads): scalars and vectors pack into 16-byte registers without crossing one; arrays,
structs and matrices of more than one stored vector start a register; every array element but the
last fills whole registers, and the next member may use the rest of the last register of an array or
struct (as DXC does, shaderbuild/ir/layout.py); a row_major matrix stores each row in a register, a
column_major one each column (`#pragma pack_matrix` sets the default, a modifier on the member or on
a typedef wins); `packoffset(cN.c)` places a member explicitly.

Vulkan (what the SPIR-V reads under its default rule, DXC's relaxed std140): the same, except that an
array's and a matrix's size is its stride times its count and a struct's size is rounded up to 16
(nothing packs into their last register), a 1xN or Nx1 matrix is a plain vector at its vector base
alignment, and a non-float matrix is an array of row vectors whatever its orientation (SPIR-V has
float matrices only).

The buffer's word i holds BASE + i (a normal float's bits), and the shader stores `asuint` of every
scalar it reads, so each output element must equal BASE + the index of the word the rules name: an
independent expected value for all three runs (SPIR-V on lavapipe, DXIL on the interpreter and
through dxil-spirv), each given a buffer laid out by its own rule.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

# min16 types are 32-bit in memory at SM 6 without -enable-16bit-types (issue 20: values and uniforms)
KINDS = ("float", "int", "uint", "min16float", "min16int", "min16uint")
BASE = 0x3F800000       # word i holds BASE + i: as a float, a normal number near 1 (no denormal flushing)


@dataclass
class Layout:
    """A generated shader and, per rule ('dx', 'vk'), the expected word of each output element and the
    buffer's size in words."""

    source: str
    expected: dict[str, list[int]]
    words: dict[str, int]


def _align(pos: int) -> int:
    return (pos + 15) & ~15


VEC = 0     # placement of a vector: element-aligned, moved to the next register rather than cross one


def _place(pos: int, size: int, align: int) -> int:
    """Offset of a member of `size` bytes after `pos` (at a multiple of `align`, or placed as a VEC)."""
    if align != VEC:
        return -(-pos // align) * align
    return _align(pos) if (pos % 16) + size > 16 else pos


# type tree: ("vec", n) | ("mat", rows, cols, row_major, is_float) | ("arr", elem, length) | ("struct", [(name, node)])

def _layout(node: tuple, vk: bool) -> tuple[int, int, list[tuple[str, int]]]:
    """(size in bytes, placement (an alignment or VEC), [(access path, byte offset)]) of a node under a rule."""
    tag = node[0]
    if tag == "vec":
        n = node[1]
        return 4 * n, VEC, [("", 0)] if n == 1 else [(f".{'xyzw'[i]}", 4 * i) for i in range(n)]
    if tag == "mat":
        _t, rows, cols, row_major, is_float = node
        paths = [(r, c, f"._m{r}{c}") for r in range(rows) for c in range(cols)]
        if vk and (rows == 1 or cols == 1):
            n = rows * cols
            return 4 * n, 4 * (4 if n == 3 else n), [(p, 4 * (r * cols + c)) for r, c, p in paths]
        row_major = row_major or (vk and not is_float)
        count, n = (rows, cols) if row_major else (cols, rows)
        size = 16 * count if vk else 16 * (count - 1) + 4 * n
        place = 16 if vk or count > 1 else VEC
        return size, place, [(p, 16 * (r if row_major else c) + 4 * (c if row_major else r)) for r, c, p in paths]
    if tag == "arr":
        size, _a, reads = _layout(node[1], vk)
        length, stride = node[2], _align(size)
        total = stride * length if vk else stride * (length - 1) + size
        return total, 16, [(f"[{i}]{p}", i * stride + off) for i in range(length) for p, off in reads]
    pos, reads = 0, []
    for name, sub in node[1]:
        size, place, sub_reads = _layout(sub, vk)
        pos = _place(pos, size, place)
        reads += [(f".{name}{p}", pos + off) for p, off in sub_reads]
        pos += size
    return _align(pos) if vk else pos, 16, reads


class _Gen:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.decls: list[str] = []     # typedefs and structs, before the cbuffer
        self.counter = 0
        self.pragma = rng.choice((None, "row_major", "column_major"))

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def member(self, depth: int) -> tuple[str, str, tuple]:
        """(type text, declarator suffix, type tree) of a random member."""
        r = self.rng.random()
        kind = self.rng.choice(KINDS)
        if r < 0.35 or (r >= 0.8 and depth >= 2):
            n = self.rng.randint(1, 4)
            return kind if n == 1 else f"{kind}{n}", "", ("vec", n)
        if r < 0.6:
            return self.matrix(kind)
        if r < 0.8:
            ty, suffix, node = self.member(depth + 1) if depth < 2 else (f"{kind}2", "", ("vec", 2))
            if suffix:   # no arrays of arrays
                ty, node = f"{kind}2", ("vec", 2)
            length = self.rng.randint(1, 3)
            return ty, f"[{length}]", ("arr", node, length)
        name = self.fresh("S")
        fields = []
        lines = []
        for _ in range(self.rng.randint(1, 3)):
            fty, fsuffix, fnode = self.member(depth + 1)
            fname = self.fresh("f")
            lines.append(f"  {fty} {fname}{fsuffix};")
            fields.append((fname, fnode))
        self.decls.append(f"struct {name} {{\n" + "\n".join(lines) + "\n};")
        return name, "", ("struct", fields)

    def matrix(self, kind: str) -> tuple[str, str, tuple]:
        rows, cols = self.rng.randint(1, 4), self.rng.randint(1, 4)
        modifier = self.rng.choice(("", "", "row_major ", "column_major "))
        ty = f"{kind}{rows}x{cols}"
        row_major = modifier == "row_major " or (not modifier and self.pragma == "row_major")
        if self.rng.random() < 0.25:     # through a typedef, which keeps its own modifier
            name = self.fresh("M")
            self.decls.append(f"typedef {modifier}{ty} {name};")
            ty, modifier = name, ""
        return modifier + ty, "", ("mat", rows, cols, row_major, kind.endswith("float"))


def generate(rng: random.Random) -> Layout:
    g = _Gen(rng)
    packoffset = rng.random() < 0.3
    members, nodes = [], []
    pos = 0
    for _ in range(rng.randint(1, 6)):
        ty, suffix, node = g.member(0)
        name = g.fresh("c")
        where = ""
        if packoffset:   # explicit offsets, leaving room for the larger of the two rules' sizes
            size = max(_layout(node, vk)[0] for vk in (False, True))
            aligned = node[0] != "vec"
            pos = _align(pos) + 16 * rng.randint(0, 1) if aligned else _place(pos + 4 * rng.randint(0, 2), size, VEC)
            where = f" : packoffset(c{pos // 16}{'' if aligned else '.' + 'xyzw'[pos % 16 // 4]})"
            nodes.append((name, node, pos))
            pos += size
        else:
            nodes.append((name, node, None))
        members.append(f"  {ty} {name}{suffix}{where};")
    expected, words = {}, {}
    for rule, vk in (("dx", False), ("vk", True)):
        offs, end, at = [], 0, 0
        for name, node, fixed in nodes:
            size, place, reads = _layout(node, vk)
            at = fixed if fixed is not None else _place(at, size, place)
            offs += [(f"{name}{p}", at + off) for p, off in reads]
            at += size
            end = max(end, at)
        expected[rule] = [BASE + off // 4 for _p, off in offs]
        words[rule] = _align(end) // 4 + 4
        paths = [p for p, _o in offs]
    head = [f"#pragma pack_matrix({g.pragma})"] if g.pragma else []
    stores = [f"  Out[{k}] = asuint({path});" for k, path in enumerate(paths)]
    source = "\n".join([*head, "RWStructuredBuffer<uint> Out : register(u0);", *g.decls,
                        "cbuffer C : register(b1) {", *members, "};", "[numthreads(1, 1, 1)]", "void main() {",
                        *stores, "}"]) + "\n"
    return Layout(source, expected, words)
