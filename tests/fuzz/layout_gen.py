"""A generator of buffer memory layouts (issue 20): a struct of bool / 32-bit / 64-bit / 16-bit members
(vectors, matrices of every element type in both majorities, arrays, nested structs) in a cbuffer,
ConstantBuffer<T>, push-constant block, StructuredBuffer<T>, RWStructuredBuffer<T>, ByteAddressBuffer.Load<T>
or RWByteAddressBuffer.Load<T> / Store<T>, under DXC's default Vulkan rules or -fvk-use-{dx,gl,scalar}-layout,
with the bytes every read returns and, for the RW buffers, the whole buffer after whole-struct (and, for
RWStructuredBuffer, single-member) stores: untouched bytes keep their value.  The offsets are computed here
from the rules alone (not from shaderbuild/ir/layout.py):

  dx_cb   D3D cbuffer packing: 16-byte registers, nothing of 16 bytes or less crosses one, larger
          vectors start one; arrays, structs and matrices of more than one stored vector start a
          register; an array element but the last fills whole registers; the next member may use the
          rest of an array's or struct's last register; a matrix stores each row (row_major) or column
          in a register of its own (64-bit vectors of 3 or 4: two).
  dx_sb   D3D structured/raw buffers (DXIL's data layout): C-like, every type aligned to its element's size.
  std140 / std430  DXC's vector-relaxed GLSL rules (docs/SPIR-V.rst "Memory layout rules",
          AlignmentSizeCalculator.cpp): a 16/32-bit vector member aligned to its element unless that makes
          it straddle a 16-byte boundary (then 16); a 64-bit one to its GLSL base alignment.  Arrays,
          structs (and matrix columns) round to 16 under std140 only; Nx1/1xN matrices are vectors; a
          non-float matrix is an array of row vectors.
  gl140 / gl430    the same without the vector relaxation (-fvk-use-gl-layout).
  scalar  VK_EXT_scalar_block_layout: every type aligned to its element; a struct's size rounds to its
          alignment (-fvk-use-scalar-layout).

The buffer's 16-bit halfword k holds 0x3C00 + k (every 32- and 64-bit view of it is a normal float), except
that some words a bool is read from hold 0; the shader stores every scalar it reads as 32-bit words
(64-bit: low word then high; 16-bit: zero-extended; bool: 0 or 1).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

SIZES = {"bool": 4, "int": 4, "uint": 4, "float": 4, "double": 8, "int64_t": 8, "uint64_t": 8,
         "half": 2, "int16_t": 2, "uint16_t": 2, "min16float": 2, "min16int": 2, "min16uint": 2}
K32 = ("bool", "int", "uint", "float", "half", "double", "int64_t", "uint64_t")    # half: 32-bit without the flag
K16 = ("bool", "int", "uint", "float", "double", "int64_t", "uint64_t", "half", "int16_t", "uint16_t", "min16float",
       "min16int", "min16uint")                     # min16*: 16-bit with the flag (DXC's SPIR-V.rst table)
CORE = ("bool", "int", "uint", "float", "double", "half", "min16float", "min16int", "min16uint")   # NxM type names
CONTAINERS = ("cbuffer", "cbt", "push", "sb", "rw", "bab", "rwbab")
FLAGS = ("default", "dx", "gl", "scalar")
# (D3D rule, Vulkan rule per flag) of each container
UNIFORM = {"default": "std140", "dx": "dx_cb", "gl": "gl140", "scalar": "scalar"}
STORAGE = {"default": "std430", "dx": "dx_sb", "gl": "gl430", "scalar": "scalar"}
RULES = {"cbuffer": ("dx_cb", UNIFORM), "cbt": ("dx_cb", UNIFORM), "push": ("dx_cb", STORAGE),
         "sb": ("dx_sb", STORAGE), "rw": ("dx_sb", STORAGE), "bab": ("dx_sb", dict.fromkeys(FLAGS, "dx_sb")),
         "rwbab": ("dx_sb", dict.fromkeys(FLAGS, "dx_sb"))}
# ByteAddressBuffer.Load<T>: shaderbuild reads T at D3D's offsets on both targets whatever the flag
# (docs/CONFORMANCE.md "Raw buffers"); DXC's SPIR-V uses its structured-buffer rule (RawBufferMethods.cpp,
# sBufferLayoutRule), so this is the project's rule, not DXC's
RELAXED = ("std140", "std430")
ROUND16 = ("std140", "gl140")
ELEMENT_ALIGNED = ("dx_cb", "dx_sb", "scalar")
ELEMS = 4                       # elements of a structured/raw buffer
BAB_BASE = 64                   # ByteAddressBuffer.Load<T>(BAB_BASE)
STRADDLE_ELEMS = 16             # structured-buffer elements checked for a vector straddling 16 bytes


def _up(n: int, a: int) -> int:
    return -(-n // a) * a


def _straddles(off: int, size: int) -> bool:
    """Vulkan's improper straddle of a vector."""
    return off // 16 != (off + size - 1) // 16 if size <= 16 else off % 16 != 0


# type tree: ("v", kind, n) | ("m", kind, rows, cols, row_major) | ("a", elem, length) | ("t", name, [(field, node)])
Leaf = tuple[str, int, str]         # (access path, byte offset, kind)


@dataclass
class Lay:
    size: int
    align: int
    leaves: list[Leaf]
    vectors: list[tuple[int, int]] = field(default_factory=list)   # (offset, size) of relaxed-placed vectors
    vec_place: bool = False         # placed as a vector (relaxed or cbuffer rules)
    starts_register: bool = False   # dx_cb: starts a 16-byte register
    fields: list[tuple[str, int]] = field(default_factory=list)   # a struct's (member, offset)
    stride: int | None = None       # an array's


def _as_vector(node: tuple, rule: str) -> tuple | None:
    """The vector a Vulkan rule stores a 1xN / Nx1 matrix as."""
    if node[0] == "m" and rule not in ("dx_cb", "dx_sb") and (node[2] == 1 or node[3] == 1):
        return ("v", node[1], node[2] * node[3])
    return None


def layout(node: tuple, rule: str) -> Lay:
    vec = _as_vector(node, rule)
    if vec is not None:
        lay = layout(vec, rule)
        names = [f"._m{r}{c}" for r in range(node[2]) for c in range(node[3])]
        lay.leaves = [(names[i], off, k) for i, (_p, off, k) in enumerate(lay.leaves)]
        return lay
    tag = node[0]
    if tag == "v":
        _t, kind, n = node
        e = SIZES[kind]
        base = e * (4 if n == 3 else n)
        leaves = [("", 0, kind)] if n == 1 else [(f".{'xyzw'[i]}", e * i, kind) for i in range(n)]
        align = e if rule in ELEMENT_ALIGNED else base
        return Lay(e * n, align, leaves, [(0, e * n)] if n > 1 else [], vec_place=rule in (*RELAXED, "dx_cb"))
    if tag == "m":
        _t, kind, rows, cols, row_major = node
        e = SIZES[kind]
        if rule not in ("dx_cb", "dx_sb") and kind not in ("float", "half", "double", "min16float"):
            row_major = True
        count, n = (rows, cols) if row_major else (cols, rows)
        if rule == "dx_cb":
            stride = _up(e * n, 16)
            size, align = stride * (count - 1) + e * n, e
        elif rule in ("dx_sb", "scalar"):
            stride = e * n
            size, align = stride * count, e
        else:
            align = e * (4 if n == 3 else n)
            if rule in ROUND16:
                align = _up(align, 16)
            stride = align
            size = stride * count
        leaves = [(f"._m{r}{c}", stride * (r if row_major else c) + e * (c if row_major else r), kind)
                  for r in range(rows) for c in range(cols)]
        return Lay(size, align, leaves, vec_place=rule == "dx_cb" and count == 1,
                   starts_register=rule == "dx_cb" and count > 1)
    if tag == "a":
        el = layout(node[1], rule)
        length = node[2]
        if rule == "dx_cb":
            stride = _up(el.size, 16)
            size, align = stride * (length - 1) + el.size, 16
        else:
            align = _up(el.align, 16) if rule in ROUND16 else el.align
            stride = _up(el.size, align)
            size = stride * length
        leaves = [(f"[{i}]{p}", i * stride + off, k) for i in range(length) for p, off, k in el.leaves]
        vectors = [(i * stride + off, s) for i in range(length) for off, s in el.vectors]
        return Lay(size, align, leaves, vectors, starts_register=rule == "dx_cb", stride=stride)
    return _struct(node[2], rule)


def place(pos: int, lay: Lay, rule: str) -> int:
    """Offset of a struct member after `pos`."""
    if rule == "dx_cb" and lay.starts_register:
        return _up(pos, 16)
    pos = _up(pos, lay.align if not (lay.vec_place and rule in RELAXED) else min(lay.align, _elem_align(lay)))
    if lay.vec_place and _straddles(pos, lay.size):
        pos = _up(pos, 16)
    return pos


def _elem_align(lay: Lay) -> int:
    """DXC's relaxation: a vector of elements of at most 4 bytes aligns to its element; a 64-bit one keeps its
    base alignment."""
    e = SIZES[lay.leaves[0][2]]
    return e if e <= 4 else lay.align


def _struct(fields: list, rule: str) -> Lay:
    pos, align, leaves, vectors, offsets = 0, 1, [], [], []
    for name, sub in fields:
        lay = layout(sub, rule)
        pos = place(pos, lay, rule)
        offsets.append((name, pos))
        leaves += [(f".{name}{p}", pos + off, k) for p, off, k in lay.leaves]
        vectors += [(pos + off, s) for off, s in lay.vectors]
        pos += lay.size
        align = max(align, lay.align)
    if rule == "dx_cb":
        return Lay(pos, 16, leaves, vectors, starts_register=True, fields=offsets)
    if rule in ROUND16:
        align = _up(align, 16)
    return Lay(_up(pos, align), align, leaves, vectors, fields=offsets)


class _Gen:
    def __init__(self, rng: random.Random, kinds: tuple[str, ...], flag: str) -> None:
        self.rng, self.kinds, self.flag = rng, kinds, flag
        self.decls: list[str] = []
        self.counter = 0

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def member(self, depth: int) -> tuple[str, str, tuple]:
        """(type text, declarator suffix, type tree)."""
        r = self.rng.random()
        kind = self.rng.choice(self.kinds)
        if r < 0.4 or (r >= 0.8 and depth >= 2):
            n = self.rng.randint(1, 4)
            return kind if n == 1 else f"{kind}{n}", "", ("v", kind, n)
        if r < 0.6:
            rows, cols = self.rng.randint(1, 4), self.rng.randint(1, 4)
            rm = self.rng.random() < 0.5
            ty = f"{kind}{rows}x{cols}" if kind in CORE else f"matrix<{kind}, {rows}, {cols}>"
            return f"{'row' if rm else 'column'}_major {ty}", "", ("m", kind, rows, cols, rm)
        if r < 0.8:
            ty, suffix, node = self.member(depth + 1) if depth < 2 else (f"{kind}2", "", ("v", kind, 2))
            length = self.rng.randint(1, 3)
            return ty, f"[{length}]{suffix}", ("a", node, length)      # suffix: an array of arrays
        return self.struct(depth + 1, self.rng.randint(1, 3)), "", self.last

    def struct(self, depth: int, n: int) -> str:
        name = self.fresh("S")
        fields, lines = [], []
        for _ in range(n):
            ty, suffix, node = self.member(depth)
            fname = self.fresh("f")
            lines.append(f"  {ty} {fname}{suffix};")
            fields.append((fname, node))
        self.decls.append(f"struct {name} {{\n" + "\n".join(lines) + "\n};")
        self.last = ("t", name, fields)
        return name


@dataclass
class Case:
    """A generated shader, its options, and per route ('vk', 'dx') the rule, the container's initial bytes,
    the expected Out words and (RWStructuredBuffer) the expected final bytes of the buffer."""

    source: str
    container: str
    flag: str
    enable_16bit: bool
    rule: dict[str, str]
    data: dict[str, bytes]
    expected: dict[str, list[int]]
    final: dict[str, bytes | None]
    layouts: dict[str, Lay]
    tree: tuple = ()                # the struct T (a cbuffer's members: T's fields)


def _store(kind: str, path: str, k: int) -> tuple[str, int]:
    """(statements storing the scalar at `path` from Out[k], how many words)."""
    if kind == "bool":
        return f"  Out[{k}] = {path} ? 1u : 0u;", 1
    if kind == "double":
        return f"  {{ uint lo, hi; asuint({path}, lo, hi); Out[{k}] = lo; Out[{k + 1}] = hi; }}", 2
    if kind in ("int64_t", "uint64_t"):
        return f"  Out[{k}] = uint({path}); Out[{k + 1}] = uint({path} >> 32);", 2
    if SIZES[kind] == 2:
        return f"  Out[{k}] = uint(asuint16({path}));", 1
    if kind == "uint":
        return f"  Out[{k}] = {path};", 1
    return f"  Out[{k}] = asuint({path});", 1


def _halfwords(n_bytes: int, zero_words: set[int]) -> bytearray:
    data = bytearray()
    for k in range(n_bytes // 2):
        data += (0 if k // 2 in zero_words else 0x3C00 + k).to_bytes(2, "little")
    return data


def _word(data: bytes, off: int, size: int) -> list[int]:
    if size == 2:
        return [int.from_bytes(data[off:off + 2], "little")]
    words = [int.from_bytes(data[off + i:off + i + 4], "little") for i in range(0, size, 4)]
    return words


def _read(data: bytes, off: int, kind: str) -> list[int]:
    w = _word(data, off, SIZES[kind])
    return [int(w[0] != 0)] if kind == "bool" else w


def generate(rng: random.Random, container: str | None = None, flag: str | None = None,
             sixteen: bool | None = None) -> Case:
    container = container or rng.choice(CONTAINERS)
    flag = flag or rng.choice(FLAGS)
    sixteen = rng.random() < 0.4 if sixteen is None else sixteen
    kinds = K16 if sixteen else K32
    for _attempt in range(50):
        case = _attempt_case(random.Random(rng.random()), container, flag, sixteen, kinds)
        if case is not None:
            return case
    raise AssertionError("no layout without an improper straddle in 50 attempts")


def _sized(node: tuple, sixteen: bool) -> tuple:
    """The tree with `half` as a 32-bit float when 16-bit types are off."""
    if node[0] == "v":
        return ("v", "float" if node[1] == "half" and not sixteen else node[1], node[2])
    if node[0] == "m":
        return ("m", "float" if node[1] == "half" and not sixteen else node[1], *node[2:])
    if node[0] == "a":
        return ("a", _sized(node[1], sixteen), node[2])
    return ("t", node[1], [(n, _sized(s, sixteen)) for n, s in node[2]])


def _attempt_case(rng: random.Random, container: str, flag: str, sixteen: bool, kinds: tuple) -> Case | None:
    g = _Gen(rng, kinds, flag)
    tname = g.struct(0, rng.randint(1, 5))
    tree = _sized(g.last, sixteen)
    dx_rule, vk_rules = RULES[container]
    rules = {"dx": dx_rule, "vk": vk_rules[flag]}
    lays = {route: layout(tree, rule) for route, rule in rules.items()}
    vk_stride = _up(lays["vk"].size, lays["vk"].align)
    if rules["vk"] in RELAXED and any(_straddles(i * vk_stride + o, s) for o, s in lays["vk"].vectors
                                      for i in range(STRADDLE_ELEMS if container in ("sb", "rw") else 1)):
        return None         # DXC's own layout (of some buffer element) is invalid for Vulkan; ir/layout.py
        # moves such a struct, or rounds the stride of an array of them to 16, on purpose
    if container == "push" and lays["vk"].size > 128:
        return None         # Vulkan's guaranteed push-constant size
    stride = {r: _up(lay.size, lay.align) for r, lay in lays.items()}
    reader = {"cbuffer": "", "cbt": "C.", "push": "C.", "sb": "B[1].", "rw": "B[1].", "bab": "t.", "rwbab": "t."}[container]
    base = {r: (stride[r] if container in ("sb", "rw") else BAB_BASE if container in ("bab", "rwbab") else 0) for r in rules}
    leaves = lays["vk"].leaves
    stores, k = [], 0
    for path, _off, kind in leaves:
        text, n = _store(kind, reader + path.lstrip("."), k)
        stores.append(text)
        k += n
    writes: list[str] = []
    copied: list[str] = []
    if container == "rw":
        writes.append("  B[2] = B[0];")
        tops = [name for name, _s in tree[2]]
        for name in rng.sample(tops, min(len(tops), rng.randint(1, 2))):
            sub = [p for p, _o, _k in leaves if p.startswith(f".{name}")]
            path = rng.choice([f".{name}", rng.choice(sub)])
            writes.append(f"  B[3]{path} = B[1]{path};")
            copied.append(path)
    data, expected, final = {}, {}, {}
    for route, lay in lays.items():
        nbytes = base[route] + ELEMS * _up(stride[route], 16) if container in ("sb", "rw", "bab", "rwbab") \
            else _up(lay.size, 16)
        nbytes = _up(nbytes + 16, 16)
        bools = sorted({(base[route] + off) // 4 for _p, off, kind in lay.leaves if kind == "bool"})
        if container == "rw":
            bools = sorted({(i * stride[route] + off) // 4 for i in range(ELEMS)
                            for _p, off, kind in lay.leaves if kind == "bool"})
        zero = {w for w in bools if rng.random() < 0.5}
        buf = _halfwords(nbytes, zero)
        data[route] = bytes(buf)
        expected[route] = [w for _p, off, kind in lay.leaves for w in _read(buf, base[route] + off, kind)]
        final[route] = None
        st = stride[route]
        copies = [(0, 2 * st, None)] + [(st, 3 * st, p) for p in copied] if container == "rw" else \
            [(BAB_BASE, BAB_BASE + 2 * _up(st, 16), None)] if container == "rwbab" else []
        if copies:
            out = bytearray(buf)
            for src, dst, pick in copies:
                for p, off, kind in lay.leaves:
                    if pick is not None and not (p == pick or p.startswith(pick + ".") or p.startswith(pick + "[")):
                        continue
                    size = SIZES[kind]
                    s, d = src + off, dst + off
                    chunk = buf[s:s + size]
                    if kind == "bool":
                        chunk = bytearray(int(any(chunk)).to_bytes(4, "little"))
                    out[d:d + size] = chunk
            final[route] = bytes(out)
    decl = {
        "cbuffer": None,
        "cbt": f"ConstantBuffer<{tname}> C : register(b1);",
        "push": f"[[vk::push_constant]] ConstantBuffer<{tname}> C;",
        "sb": f"StructuredBuffer<{tname}> B : register(t2);",
        "rw": f"RWStructuredBuffer<{tname}> B : register(u2);",
        "bab": "ByteAddressBuffer B : register(t2);",
        "rwbab": "RWByteAddressBuffer B : register(u2);",
    }[container]
    body = [f"  {tname} t = B.Load<{tname}>({BAB_BASE});"] if container in ("bab", "rwbab") else []
    if container == "rwbab":        # a whole-struct Store<T>: only T's members' bytes change
        writes.append(f"  B.Store<{tname}>({BAB_BASE + 2 * _up(stride['dx'], 16)}, t);")
    if container == "cbuffer":
        # the cbuffer's members are T's fields (the last struct declared is T; move its body into the cbuffer)
        tdecl = g.decls.pop()
        inner = tdecl.split("{", 1)[1].rsplit("}", 1)[0]
        decl = "cbuffer C : register(b1) {" + inner + "};"
    source = "\n".join(["RWStructuredBuffer<uint> Out : register(u0);", *g.decls, decl, "[numthreads(1, 1, 1)]",
                        "void main() {", *body, *stores, *writes, "}"]) + "\n"
    return Case(source, container, flag, sixteen, rules, data, expected, final, lays, tree)
