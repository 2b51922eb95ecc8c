"""cbuffer / ConstantBuffer<T> / $Globals / push constants: layouts computed here in Python from DXC's
documented Vulkan rules (vector-relaxed std140 for uniform blocks, std430 for push constants), checked
against spirv-cross's member offsets, and executed: every scalar of every member is uploaded at the
Python-computed offset and copied out by the shader.  Layout options and manual offsets too.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass

import pytest
import res_util as R

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

# ---------------------------------------------------------------- a small layout model (DXC SPIR-V.rst rules)

_VEC = re.compile(r"^(float|uint|int)([1-4])?(?:x([1-4]))?$")


@dataclass(frozen=True)
class T:
    """scalar kind, rows, cols (cols None = vector/scalar), array dims, struct fields, row_major."""

    kind: str
    n: int = 1
    cols: int | None = None
    array: tuple[int, ...] = ()
    fields: tuple = ()
    row_major: bool = False


def parse(decl: str, structs: dict) -> T:
    """'row_major float2x3', 'float2[2]', 'S' -> T."""
    rm = decl.startswith("row_major ")
    decl = decl.removeprefix("row_major ")
    base, *dims = decl.replace("]", "").split("[")
    arr = tuple(int(d) for d in dims)
    if base in structs:
        return T("struct", array=arr, fields=tuple((f, parse(t, structs)) for f, t in structs[base]))
    m = _VEC.match(base)
    assert m, decl
    return T(m.group(1), int(m.group(2) or 1), int(m.group(3)) if m.group(3) else None, arr, row_major=rm)


def _round(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def _inner(t: T) -> T:
    """The element type of an array type."""
    return T(t.kind, t.n, t.cols, t.array[1:], t.fields, t.row_major)


def align_size(t: T, rule: str) -> tuple[int, int]:
    """(alignment, size) under 'std140' or 'std430' with DXC's vector relaxation left to placement."""
    if t.array:
        ea, _es = align_size(_inner(t), rule)
        if rule == "std140":
            ea = _round(ea, 16)
        return ea, stride(t, rule) * t.array[0]
    if t.kind == "struct":
        offs = field_offsets(t, rule)
        al = max(align_size(ft, rule)[0] for _f, ft in t.fields)
        if rule == "std140":
            al = _round(al, 16)
        return al, _round(offs[-1] + align_size(t.fields[-1][1], rule)[1], al)
    if t.cols is not None:  # matrix: array of vectors (column_major: cols vectors of rows; row_major: rows of cols)
        count, length = (t.n, t.cols) if t.row_major else (t.cols, t.n)
        va = 4 * (2 if length == 2 else 4 if length > 2 else 1)
        if rule == "std140":
            va = 16
        return va, _round(4 * length, va) * count
    return (4 * (2 if t.n == 2 else 4 if t.n > 2 else 1), 4 * t.n)


def stride(t: T, rule: str) -> int:
    """Array stride: the element size rounded to its (std140: 16-rounded) alignment, and to 16 when some
    element position modulo 16 would make a nested vector straddle (see place)."""
    inner = _inner(t)
    ea, es = align_size(inner, rule)
    st = _round(es, _round(ea, 16) if rule == "std140" else ea)
    return _round(st, 16) if any(straddles(inner, b, rule) for b in range(0, 16, ea)) else st


def field_offsets(t: T, rule: str) -> list[int]:
    offs, off = [], 0
    for _f, ft in t.fields:
        a, sz = align_size(ft, rule)
        offs.append(place(off, ft, a, sz, rule))
        off = offs[-1] + sz
    return offs


def vectors(t: T, base: int, rule: str) -> list[tuple[int, int]]:
    """(absolute offset, size) of the vectors inside t placed at base (arrays: the first 16 elements,
    after which positions modulo 16 repeat)."""
    if t.array:
        st = stride(t, rule)
        return [v for i in range(min(t.array[0], 16)) for v in vectors(_inner(t), base + i * st, rule)]
    if t.kind == "struct":
        return [v for (_f, ft), o in zip(t.fields, field_offsets(t, rule)) for v in vectors(ft, base + o, rule)]
    return [(base, 4 * t.n)] if t.cols is None and t.n > 1 else []


def straddles(t: T, base: int, rule: str) -> bool:
    """Some vector inside t crosses a 16-byte boundary (or, above 16 bytes, is not 16-aligned)."""
    return any((o // 16 != (o + n - 1) // 16) if n <= 16 else o % 16 for o, n in vectors(t, base, rule))


def place(off: int, t: T, align: int, size: int, rule: str) -> int:
    """Offset of a member: vectors relax to scalar alignment unless that straddles a 16-byte boundary;
    structs/arrays take the first multiple of their alignment where no vector inside them straddles
    (at most 16 / alignment tries: a multiple of 16 always works)."""
    if t.cols is None and not t.array and t.kind != "struct" and t.n > 1:
        o = _round(off, 4)
        if (size <= 16 and o // 16 != (o + size - 1) // 16) or (size > 16 and o % 16):
            o = _round(off, 16)
        return o
    o = _round(off, align)
    if t.array or t.kind == "struct":
        for _ in range(16 // align):
            if not straddles(t, o, rule):
                break
            o += align
    return o


def layout(members: list[tuple[str, str]], structs: dict, rule: str) -> list[tuple[str, int, T]]:
    out, off = [], 0
    for name, decl in members:
        t = parse(decl, structs)
        a, s = align_size(t, rule)
        o = place(off, t, a, s, rule)
        out.append((name, o, t))
        off = o + s
    return out


def scalars(expr: str, t: T, base: int, rule: str) -> list[tuple[str, int, str]]:
    """(HLSL expression, byte offset, kind) of every scalar inside a member."""
    if t.array:
        st = stride(t, rule)
        return [s for i in range(t.array[0]) for s in scalars(f"{expr}[{i}]", _inner(t), base + i * st, rule)]
    if t.kind == "struct":
        return [s for (f, ft), o in zip(t.fields, field_offsets(t, rule))
                for s in scalars(f"{expr}.{f}", ft, base + o, rule)]
    if t.cols is not None:
        va, _ = align_size(T(t.kind, t.n, t.cols, row_major=t.row_major), rule)
        count, length = (t.n, t.cols) if t.row_major else (t.cols, t.n)
        vstride = _round(4 * length, va)
        out = []
        for r in range(t.n):
            for c in range(t.cols):
                vec, comp = (r, c) if t.row_major else (c, r)
                out.append((f"{expr}[{r}][{c}]", base + vec * vstride + comp * 4, t.kind))
        return out
    if t.n == 1:
        return [(expr, base, t.kind)]
    return [(f"{expr}.{'xyzw'[i]}", base + 4 * i, t.kind) for i in range(t.n)]


# ---------------------------------------------------------------- the D3D cbuffer packing (for the DXIL run)
# The model is fxc_scalars() below (DXC's legacy cbuffer rules: 16-byte rows, no straddling, arrays/structs/
# matrices start a row, the tail of an aggregate is not padded, so the next member may share its last row).


def d3d_fill(members: list[tuple[str, str]], vals: list) -> bytes:
    """fill()'s values at their D3D cbuffer offsets: the bytes the DXIL twin reads."""
    fields = tuple((name, parse(decl, STRUCTS)) for name, decl in members)
    sc = fxc_scalars("", T("struct", fields=fields), 0)
    buf = bytearray(_round(max(o for _e, o, _k in sc) + 4, 16))
    for (_e, o, kind), v in zip(sc, vals):
        struct.pack_into({"float": "<f", "int": "<i", "uint": "<I"}[kind], buf, o, v)
    return bytes(buf)


def test_d3d_model_matches_the_documented_example():
    """Microsoft's packing examples: float3 then float share a row; float2 after float3 starts a new one;
    a float after an array or a matrix shares its last row.  After a struct DXC does not start a new row
    (its reflection tests put a float3 right after a struct's last element), unlike FXC's documentation."""
    off = lambda ms: [o for _n, o, _t in fxc_layout(ms)]  # noqa: E731
    assert off([("a", "float3"), ("b", "float"), ("c", "float2"), ("d", "float2")]) == [0, 12, 16, 24]
    assert off([("a", "float[2]"), ("b", "float")]) == [0, 20]
    assert off([("m", "float2x2"), ("v", "float2")]) == [0, 24]
    assert off([("a", "float"), ("p", "P"), ("b", "float")]) == [0, 16, 28]


def test_layout_model_matches_the_documented_example():
    """SPIR-V.rst's worked example: cbuffer 0,4,16,32,80,112,160; storage 0,4,16,32,64,96,112."""
    structs = {"S": [("f", "float3")]}
    members = [("a", "float"), ("b", "float3"), ("c", "S"), ("d", "float2x3"), ("e", "row_major float2x3"),
               ("f", "int[3]"), ("g", "float2[2]")]
    assert [o for _n, o, _t in layout(members, structs, "std140")] == [0, 4, 16, 32, 80, 112, 160]
    assert [o for _n, o, _t in layout(members, structs, "std430")] == [0, 4, 16, 32, 64, 96, 112]


# ---------------------------------------------------------------- cases

STRUCTS = {"S": [("f", "float3")], "P": [("a", "float"), ("b", "float2")], "Q": [("p", "P"), ("w", "uint")]}
STRUCT_DECLS = "struct S { float3 f; };\nstruct P { float a; float2 b; };\nstruct Q { P p; uint w; };\n"

LAYOUTS = {
    "doc-example": [("a", "float"), ("b", "float3"), ("c", "S"), ("d", "float2x3"), ("e", "row_major float2x3"),
                    ("f", "int[3]"), ("g", "float2[2]")],
    "scalars": [("a", "float"), ("b", "uint"), ("c", "int"), ("d", "float")],
    "vec3-straddle": [("a", "float2"), ("b", "float3"), ("c", "float")],
    "vec2-after-float": [("a", "float"), ("b", "float2"), ("c", "float2"), ("d", "float")],
    "vec4-after-float": [("a", "float"), ("b", "float4")],
    "float-after-vec3": [("a", "float3"), ("b", "float"), ("c", "float3"), ("d", "float")],
    "scalar-array": [("a", "float"), ("b", "float[4]"), ("c", "float")],
    "vec3-array": [("a", "float3[2]"), ("b", "float")],
    "struct-member": [("a", "float"), ("p", "P"), ("b", "float")],
    "nested-struct-array": [("q", "Q[2]"), ("z", "float")],
    "matrix-4x4": [("m", "float4x4"), ("t", "float")],
    "matrix-row-major-3x2": [("a", "float"), ("m", "row_major float3x2"), ("b", "float2")],
    "matrix-col-major-2x2": [("m", "float2x2"), ("v", "float2")],
    "uint-vectors": [("a", "uint2"), ("b", "uint3"), ("c", "uint")],
    "array-2d": [("a", "float[2][3]"), ("b", "float")],
}


def fill(members: list[tuple[str, str]], rule: str) -> tuple[bytes, list[tuple[str, int, str]], list]:
    """(block bytes, scalars, values): value k of the k-th scalar is distinct and exact in float32."""
    lay = layout(members, STRUCTS, rule)
    sc = [s for name, off, t in lay for s in scalars(name, t, off, rule)]
    end = max(o for _e, o, _k in sc) + 4
    buf = bytearray(_round(end, 16))
    vals = []
    for k, (_e, o, kind) in enumerate(sc):
        v = k * 3 + 1
        vals.append(float(v) if kind == "float" else (-v if kind == "int" else v))
        struct.pack_into({"float": "<f", "int": "<i", "uint": "<I"}[kind], buf, o, vals[-1])
    return bytes(buf), sc, vals


def cbuffer_src(members, form: str) -> str:
    body = "".join(f"    {decl.split('[')[0]} {name}{''.join('[' + d for d in decl.split('[')[1:])};\n"
                   for name, decl in members)
    if form == "cbuffer":
        return STRUCT_DECLS + f"cbuffer CB : register(b0) {{\n{body}}};\n", ""
    if form == "ConstantBuffer":
        return STRUCT_DECLS + f"struct Blk {{\n{body}}};\nConstantBuffer<Blk> CB : register(b0);\n", "CB."
    if form == "push":
        return STRUCT_DECLS + f"struct Blk {{\n{body}}};\n[[vk::push_constant]] Blk PC;\n", "PC."
    return STRUCT_DECLS + "".join(f"{decl.split('[')[0]} {name}{''.join('[' + d for d in decl.split('[')[1:])};\n"
                                  for name, decl in members), ""


def shader(members, form: str) -> tuple[str, list, list, bytes]:
    decls, prefix = cbuffer_src(members, form)
    data, sc, vals = fill(members, "std430" if form == "push" else "std140")
    lines = []
    for i, (expr, _o, kind) in enumerate(sc):
        conv = "asuint" if kind == "float" else "(uint)"
        lines.append(f"    Out[{i}] = {conv}({prefix}{expr});")
    src = (decls + "RWStructuredBuffer<uint> Out : register(u1);\n[numthreads(1,1,1)]\nvoid main() {\n"
           + "\n".join(lines) + "\n}\n")
    return src, sc, vals, data


def _as_words(vals: list) -> list[int]:
    return [struct.unpack("<I", struct.pack("<f", v))[0] if isinstance(v, float) else v & 0xFFFFFFFF for v in vals]


FORMS = {"cbuffer": "CB", "ConstantBuffer": "CB", "globals": "$Globals", "push": None}


def _layout_params():
    return [pytest.param(name, form, id=f"{name}-{form}") for name in LAYOUTS for form in FORMS]


@pytest.mark.parametrize("name, form", _layout_params())
def test_block_layout_executes(name, form):
    members = LAYOUTS[name]
    src, sc, vals, data = shader(members, form)
    res = R.build(src)
    reflect = R.check_reflection(res.manifest, res.binary)
    d3d = {FORMS[form] or "PC": d3d_fill(members, vals)}  # the DXIL twin reads the D3D packing
    if form == "push":
        specs = {"Out": R.storage(R.sentinel(len(sc)))}
        out = R.run_cs(res, specs, push=data, dxil_data=d3d)
    else:
        specs = {FORMS[form]: R.uniform(data), "Out": R.storage(R.sentinel(len(sc)))}
        out = R.run_cs(res, specs, dxil_data=d3d)
    assert R.unpack("I", out["Out"]) == _as_words(vals)
    # spirv-cross's top-level member offsets equal the Python layout
    rule = "std430" if form == "push" else "std140"
    want = [(n, o) for n, o, _t in layout(members, STRUCTS, rule)]
    blocks = reflect.get("push_constants" if form == "push" else "ubos", [])
    got = [(m["name"], m["offset"]) for m in reflect["types"][blocks[0]["type"]]["members"]]
    assert got == want


def test_structured_buffer_of_nested_struct_elements():
    """StructuredBuffer<Q>: std430 Q is 24 bytes, but at stride 24 element 1's p.b would straddle 32, so the
    stride is 32 (the model's rule); every scalar of two elements is read back through the shader."""
    q = parse("Q[2]", STRUCTS)
    assert stride(q, "std430") == 32
    sc = scalars("Buf", q, 0, "std430")
    buf = bytearray(64)
    for k, (_e, o, kind) in enumerate(sc):
        struct.pack_into("<f" if kind == "float" else "<I", buf, o, float(k + 1) if kind == "float" else k + 1)
    reads = "\n".join(f"    Out[{k}] = asuint((float){e});" for k, (e, _o, _kind) in enumerate(sc))
    src = (STRUCT_DECLS + "StructuredBuffer<Q> Buf : register(t0);\nRWStructuredBuffer<uint> Out : register(u1);\n"
           "[numthreads(1,1,1)]\nvoid main() {\n" + reads + "\n}\n")
    # D3D packs structured elements tightly (Q: four 4-byte scalars, stride 16): the DXIL twin's bytes
    d3d = b"".join(struct.pack("<f" if kind == "float" else "<I", float(k + 1) if kind == "float" else k + 1)
                   for k, (_e, _o, kind) in enumerate(sc))
    out = R.cs(src, {"Buf": R.storage(bytes(buf)), "Out": R.storage(R.sentinel(len(sc)))}, dxil_data={"Buf": d3d})
    assert R.unpack("f", out["Out"]) == [float(k + 1) for k in range(len(sc))]


# ---------------------------------------------------------------- manifest block description

def test_manifest_block_sizes_and_offsets():
    members = LAYOUTS["doc-example"]
    src, *_ = shader(members, "cbuffer")
    cb = R.resource(R.build(src).manifest, "CB")
    lay = layout(members, STRUCTS, "std140")
    assert [(m["name"], m["vulkan"]["offset"]) for m in cb["block"]["members"]] == [(n, o) for n, o, _t in lay]
    # vulkan_size = bytes the descriptor must cover = end of the last member (g: 160 + 2 * 16, std140 stride)
    assert cb["block"]["vulkan_size"] == 192


def test_manifest_hlsl_cbuffer_offsets():
    """The D3D view packs cbuffers with FXC rules: b (float3) shares row 0 at 4; c starts a new row at 16."""
    src, *_ = shader(LAYOUTS["float-after-vec3"], "cbuffer")
    cb = R.resource(R.build(src).manifest, "CB")
    assert [m["hlsl"]["offset"] for m in cb["block"]["members"]] == [0, 12, 16, 28]


def test_push_constant_in_manifest():
    src, *_ = shader(LAYOUTS["vec2-after-float"], "push")
    pcs = R.build(src).manifest["push_constants"]
    want = [o for _n, o, _t in layout(LAYOUTS["vec2-after-float"], STRUCTS, "std430")]
    assert want == [0, 4, 16, 24]  # float2 relaxes to 4; the second float2 at 12 would straddle 16
    assert [(p["name"], [m["vulkan"]["offset"] for m in p["block"]["members"]]) for p in pcs] == [("PC", want)]


def test_globals_binding_and_kind():
    """Loose globals form $Globals, a uniform buffer at the next free binding of set 0 (here 0; Out has u1)."""
    src, *_ = shader(LAYOUTS["scalars"], "globals")
    g = R.resource(R.build(src).manifest, "$Globals")
    assert g["vulkan"]["descriptor_type"] == "uniform_buffer" and g["vulkan"]["set"] == 0
    assert g["vulkan"]["binding"] == 0


# ---------------------------------------------------------------- matrices through mul

MUL_SRC = """
cbuffer M : register(b0) { float2x3 A; row_major float2x3 B; };
RWStructuredBuffer<float> Out : register(u1);
[numthreads(1,1,1)] void main() {
    float3 v = float3(1, 2, 3);
    float2 r1 = mul(A, v);
    float2 r2 = mul(B, v);
    float3 r3 = mul(float2(1, -1), A);
    Out[0] = r1.x; Out[1] = r1.y; Out[2] = r2.x; Out[3] = r2.y; Out[4] = r3.x; Out[5] = r3.y; Out[6] = r3.z;
}
"""


def test_matrix_mul_from_cbuffer():
    a = [[1, 2, 3], [4, 5, 6]]
    b = [[-1, 0, 2], [3, -2, 1]]
    # std140: A column_major -> 3 columns of float2 at stride 16 (0..48); B row_major -> 2 rows of float3 at 48
    buf = bytearray(80)
    for r in range(2):
        for c in range(3):
            struct.pack_into("<f", buf, c * 16 + r * 4, a[r][c])
            struct.pack_into("<f", buf, 48 + r * 16 + c * 4, b[r][c])
    # D3D packs A as 3 column rows (size 40) and B from the next row (48): the same bytes for the DXIL twin
    out = R.cs(MUL_SRC, {"M": R.uniform(bytes(buf)), "Out": R.storage(R.sentinel(7))}, dxil_data={"M": bytes(buf)})
    v = [1, 2, 3]
    want = [sum(a[r][c] * v[c] for c in range(3)) for r in range(2)]
    want += [sum(b[r][c] * v[c] for c in range(3)) for r in range(2)]
    want += [a[0][c] * 1 + a[1][c] * -1 for c in range(3)]
    assert R.unpack("f", out["Out"]) == want


# ---------------------------------------------------------------- layout options and manual offsets

DX_LAYOUT_SRC = """
cbuffer CB : register(b0) { float x[2]; float y; float3 v; float w; };
RWStructuredBuffer<float> Out : register(u1);
[numthreads(1,1,1)] void main() { Out[0] = x[1]; Out[1] = y; Out[2] = v.z; Out[3] = w; }
"""


def _offsets(res, block="CB"):
    return [m["vulkan"]["offset"] for m in R.resource(res.manifest, block)["block"]["members"]]


# (x[2] offset, x stride, y, v, w) per layout option
_LAYOUT_WANT = {
    "default": (0, 16, 32, 36, 48),   # relaxed std140: array elements 16 apart, array size 32; float3 relaxes to 4
    "dx": (0, 16, 20, 32, 44),        # FXC packing: the last array element is not padded; float3 may not cross a row
    "gl": (0, 16, 32, 48, 60),        # strict std140: float3 aligned to 16
    "scalar": (0, 4, 8, 12, 24),      # scalar: everything at its scalar alignment
}


@pytest.mark.parametrize("opt", ["default", "dx", "gl", "scalar"])
def test_layout_options(opt):
    x, stride, y, v, w = _LAYOUT_WANT[opt]
    res = R.build(DX_LAYOUT_SRC, env="vulkan1.2", vk_layout=opt)
    assert _offsets(res) == [x, y, v, w]
    data = bytearray(80)
    struct.pack_into("<f", data, x + stride, 1.0)
    struct.pack_into("<f", data, y, 2.0)
    struct.pack_into("<f", data, v + 8, 3.0)
    struct.pack_into("<f", data, w, 4.0)
    out = R.run_cs(res, {"CB": R.uniform(bytes(data)), "Out": R.storage(R.sentinel(4))})
    assert R.unpack("f", out["Out"]) == [1.0, 2.0, 3.0, 4.0]


PACKOFFSET_SRC = """
cbuffer CB : register(b0) {
    float a : packoffset(c1.y);
    float2 b : packoffset(c0.z);
};
RWStructuredBuffer<float> Out : register(u1);
[numthreads(1,1,1)] void main() { Out[0] = a; Out[1] = b.y; }
"""

VK_OFFSET_SRC = """
cbuffer CB : register(b0) {
    [[vk::offset(32)]] float a;
    [[vk::offset(48)]] float2 b;
};
RWStructuredBuffer<float> Out : register(u1);
[numthreads(1,1,1)] void main() { Out[0] = a; Out[1] = b.y; }
"""


@pytest.mark.parametrize("src, offs", [
    pytest.param(PACKOFFSET_SRC, (20, 8), id="packoffset"),
    pytest.param(VK_OFFSET_SRC, (32, 48), id="vk-offset"),
])
def test_manual_member_offsets(src, offs):
    res = R.build(src)
    assert sorted(_offsets(res)) == sorted(offs)
    data = bytearray(64)
    struct.pack_into("<f", data, offs[0], 5.0)
    struct.pack_into("<f", data, offs[1] + 4, 6.0)
    out = R.run_cs(res, {"CB": R.uniform(bytes(data)), "Out": R.storage(R.sentinel(2))})
    assert R.unpack("f", out["Out"]) == [5.0, 6.0]


def test_two_cbuffers_and_constant_buffer_array_of_structs():
    src = """
struct L { float4 color; float intensity; };
cbuffer A : register(b0) { float scale; };
ConstantBuffer<L> Light : register(b1);
RWStructuredBuffer<float> Out : register(u2);
[numthreads(1,1,1)] void main() { Out[0] = Light.color.z * scale + Light.intensity; }
"""
    out = R.cs(src, {"A": R.uniform(R.pack("f", [2.0, 0, 0, 0])),
                     "Light": R.uniform(R.pack("f", [0.0, 0.0, 1.5, 0.0, 10.0, 0, 0, 0])),
                     "Out": R.storage(R.sentinel(1))})
    assert R.unpack("f", out["Out"]) == [1.5 * 2.0 + 10.0]


@pytest.mark.llvm
@pytest.mark.parametrize("name", list(LAYOUTS))
def test_cbuffer_dxil_builds(name):
    src, *_ = shader(LAYOUTS[name], "cbuffer")
    R.build_dxil(src)


# ---------------------------------------------------------------- D3D (FXC) cbuffer packing, executed as DXIL

def fxc_size(t: T) -> int:
    """Packed size under FXC's cbuffer rules (arrays/structs/matrices start rows; the tail is not padded)."""
    if t.array:
        es = fxc_size(_inner(t))
        return (t.array[0] - 1) * _round(es, 16) + es
    if t.kind == "struct":
        return _fxc_fields(t.fields)[1]
    if t.cols is not None:
        count, length = (t.n, t.cols) if t.row_major else (t.cols, t.n)
        return (count - 1) * 16 + 4 * length
    return 4 * t.n


def fxc_place(off: int, t: T) -> int:
    if t.array or t.kind == "struct" or t.cols is not None:
        return _round(off, 16)
    size = 4 * t.n
    return _round(off, 16) if off // 16 != (off + size - 1) // 16 else off


def _fxc_fields(fields) -> tuple[list[int], int]:
    """Offsets of (name, type) fields placed one after another, and the end of the last."""
    offs, off = [], 0
    for _f, ft in fields:
        o = fxc_place(off, ft)
        offs.append(o)
        off = o + fxc_size(ft)
    return offs, off


def fxc_scalars(expr: str, t: T, base: int) -> list[tuple[str, int, str]]:
    if t.array:
        inner = _inner(t)
        stride = _round(fxc_size(inner), 16)
        return [s for i in range(t.array[0]) for s in fxc_scalars(f"{expr}[{i}]", inner, base + i * stride)]
    if t.kind == "struct":
        return [s for (f, ft), o in zip(t.fields, _fxc_fields(t.fields)[0])
                for s in fxc_scalars(f"{expr}.{f}", ft, base + o)]
    if t.cols is not None:
        return [(f"{expr}[{r}][{c}]", base + ((r * 16 + c * 4) if t.row_major else (c * 16 + r * 4)), t.kind)
                for r in range(t.n) for c in range(t.cols)]
    if t.n == 1:
        return [(expr, base, t.kind)]
    return [(f"{expr}.{'xyzw'[i]}", base + 4 * i, t.kind) for i in range(t.n)]


def fxc_layout(members: list[tuple[str, str]]) -> list[tuple[str, int, T]]:
    fields = [(name, parse(decl, STRUCTS)) for name, decl in members]
    return [(name, o, t) for (name, t), o in zip(fields, _fxc_fields(fields)[0])]


# every layout, members after a struct included: as in DXC, a struct's tail is not padded, so the next
# member may share its last row (fxc_size)
_FXC_CASES = list(LAYOUTS)


@pytest.mark.parametrize("name", _FXC_CASES)
def test_manifest_hlsl_offsets_follow_fxc_packing(name):
    src, *_ = shader(LAYOUTS[name], "cbuffer")
    cb = R.resource(R.build(src).manifest, "CB")
    assert [m["hlsl"]["offset"] for m in cb["block"]["members"]] == [o for _n, o, _t in fxc_layout(LAYOUTS[name])]


# every layout as a cbuffer; the other block forms on a few (each run is an lli process, ~0.3 s)
_DXIL_RUNS = [(n, "cbuffer") for n in _FXC_CASES] + [
    (n, f) for n in ("doc-example", "matrix-row-major-3x2", "array-2d") for f in ("ConstantBuffer", "globals")]


@pytest.mark.llvm
@pytest.mark.parametrize("name, form", _DXIL_RUNS, ids=[f"{n}-{f}" for n, f in _DXIL_RUNS])
def test_block_layout_dxil_executes(name, form):
    """Upload with FXC offsets; the DXIL (cbufferLoadLegacy rows) must read every scalar back."""
    from harness import dxil_exec
    members = LAYOUTS[name]
    src, sc_vk, vals, _data = shader(members, form)
    sc = [s for n, o, t in fxc_layout(members) for s in fxc_scalars(n, t, o)]
    assert [e for e, _o, _k in sc] == [e for e, _o, _k in sc_vk]   # same scalar order as the SPIR-V test
    buf = bytearray(_round(max(o for _e, o, _k in sc) + 4, 16))
    for (_e, o, kind), v in zip(sc, vals):
        struct.pack_into({"float": "<f", "int": "<i", "uint": "<I"}[kind], buf, o, v)
    res, _chk = R.build_dxil(src)
    cbname = FORMS[form]
    h = R.resource(res.manifest, cbname)["hlsl"]
    o = R.resource(res.manifest, "Out")["hlsl"]
    got = dxil_exec.run_dxil_compute(res.binary, "main", [(h["register"], h["space"], "b", bytes(buf)),
                                                          (o["register"], o["space"], "u", R.sentinel(len(sc)))])
    assert R.unpack("I", got[1]) == _as_words(vals)


# ---------------------------------------------------------------- resources declared inside a cbuffer

RES_IN_CBUFFER = """
cbuffer Params : register(b0) {
    float scale;
    Texture2D<float> Tex : register(t3);       // a global, as if declared outside the cbuffer
    float bias;
    SamplerState Samp : register(s2);
    RWStructuredBuffer<float> Out : register(u1);
};
cbuffer OnlyResources { StructuredBuffer<float> Extra : register(t5); };   // no constant buffer at all
[numthreads(1,1,1)] void main() {
    Out[0] = Tex.SampleLevel(Samp, float2(0.625, 0.5), 0) * scale + bias;
    Out[1] = Extra[1] + bias;
}
"""


def test_resources_declared_in_a_cbuffer_are_globals():
    """Textures, samplers and UAVs declared inside a cbuffer keep their registers and are not members: the
    cbuffer holds scale and bias only (offsets 0 and 4); a cbuffer of resources only makes no buffer."""
    res = R.build(RES_IN_CBUFFER)
    hlsl = {r["name"]: (r["hlsl"]["class"], r["hlsl"]["register"]) for r in res.manifest["resources"]}
    assert hlsl == {"Params": ("b", 0), "Tex": ("t", 3), "Samp": ("s", 2), "Out": ("u", 1), "Extra": ("t", 5)}
    tex = R.image(R.pack("f", [1.0, 2.0, 3.0, 4.0]), 4, 1, "r32f")
    out = R.cs(RES_IN_CBUFFER, {"Params": R.uniform(R.pack("f", [10.0, 0.5, 0, 0])), "Tex": tex,
                                "Samp": R.sampler(), "Extra": R.storage(R.pack("f", [7.0, 8.0])),
                                "Out": R.storage(R.sentinel(2))})
    assert R.unpack("f", out["Out"]) == [3.0 * 10.0 + 0.5, 8.0 + 0.5]      # u = 0.625: texel 2


GLOBAL_STRUCT = """
struct Inner { RWStructuredBuffer<float> dst; float k; };
struct Mat { Texture2D<float> tex; float scale; SamplerState samp; Inner io; Buffer<float> extra[2]; };
Mat g : register(t1) : register(s5) : register(u3);
float bias;
float shade(Mat m, float u) { return m.tex.SampleLevel(m.samp, float2(u, 0.5), 0) * m.scale; }
[numthreads(1,1,1)] void main() {
    g.io.dst[0] = shade(g, 0.375);                  // tex texel 1 * scale
    g.io.dst[1] = g.extra[1][2] * g.io.k + bias;
    Mat copy = g;
    copy.io.dst[2] = copy.extra[0][1] + copy.scale;
}
"""


def test_global_struct_with_resource_members():
    """`Mat g : register(t1) : register(s5) : register(u3)`: each resource member is its own global named
    `g.member` (as DXC names them), the members of one register class on consecutive registers from the
    instance's register in declaration order (an array takes one per element); the data members stay in
    $Globals as a struct `g` without the resources (scale at 0, the nested struct's k at 16; bias at 32 in
    Vulkan's layout, which rounds a struct up to 16 bytes, and at 20 in the DXIL cbuffer layout)."""
    res = R.build(GLOBAL_STRUCT)
    hlsl = {r["name"]: (r["hlsl"]["class"], r["hlsl"]["register"], r["hlsl"]["count"])
            for r in res.manifest["resources"]}
    assert hlsl == {"$Globals": ("b", 0, 1), "g.tex": ("t", 1, 1), "g.extra": ("t", 2, 2), "g.samp": ("s", 5, 1),
                    "g.io.dst": ("u", 3, 1)}
    tex = R.image(R.pack("f", [1.0, 2.0, 3.0, 4.0]), 4, 1, "r32f")
    extra = [R.texel(R.pack("f", [10.0 * k + i for i in range(4)]), writable=False) for k in (1, 2)]
    cb = R.pack("f", [1.5, 0, 0, 0, 0.25, 0, 0, 0, 100.0, 0, 0, 0])
    out = R.cs(GLOBAL_STRUCT, {"$Globals": R.uniform(cb), "g.tex": tex, "g.samp": R.sampler(), "g.extra": extra,
                               "g.io.dst": R.storage(R.sentinel(3))},
               dxil_data={"$Globals": R.pack("f", [1.5, 0, 0, 0, 0.25, 100.0, 0, 0])})
    assert R.unpack("f", out["g.io.dst"]) == [2.0 * 1.5, 22.0 * 0.25 + 100.0, 11.0 + 1.5]


STRUCT_ARRAYS = """
struct A { RWStructuredBuffer<float> Buf; float k; };
A d[3] : register(u5);
A e[2] : register(u1);
float bias;
[numthreads(1,1,1)] void main() {
    d[2].Buf[0] = e[1].Buf[1] * d[0].k + bias;
    A a = d[1];
    a.Buf[0] = a.k + e[0].Buf[0];
}
"""


def test_global_arrays_of_structs_with_resource_members():
    """`A d[3] : register(u5)`: element k's resource is `d.k.Buf` (DXC's name) at u5 + k; the data members are
    an array of the struct without resources in $Globals (k at 0, 16, 32 and 48, 64; bias at 80 in Vulkan's
    layout, at 68 in the DXIL cbuffer layout, where the last element is not rounded up)."""
    res = R.build(STRUCT_ARRAYS)
    hlsl = {r["name"]: r["hlsl"]["register"] for r in res.manifest["resources"] if r["name"] != "$Globals"}
    assert {n: hlsl[n] for n in ("d.1.Buf", "d.2.Buf", "e.0.Buf", "e.1.Buf")} == \
        {"d.1.Buf": 6, "d.2.Buf": 7, "e.0.Buf": 1, "e.1.Buf": 2}
    ks = [0.5, 4.0, 0, 0, 0]             # d[0].k, d[1].k, d[2].k, e[0].k, e[1].k
    vk_cb = R.pack("f", [x for k in ks for x in (k, 0, 0, 0)] + [100.0, 0, 0, 0])
    dx_cb = R.pack("f", [x for k in ks[:4] for x in (k, 0, 0, 0)] + [ks[4], 100.0, 0, 0])
    bufs = {name: R.storage(R.pack("f", [10.0 * j + i for i in range(2)])) for j, name in
            enumerate(("d.1.Buf", "d.2.Buf", "e.0.Buf", "e.1.Buf"), 1)}
    out = R.cs(STRUCT_ARRAYS, {"$Globals": R.uniform(vk_cb), **bufs}, dxil_data={"$Globals": dx_cb})
    assert R.unpack("f", out["d.2.Buf"]) == [41.0 * 0.5 + 100.0, 21.0]      # e[1].Buf[1] * d[0].k + bias
    assert R.unpack("f", out["d.1.Buf"]) == [4.0 + 30.0, 11.0]               # d[1].k + e[0].Buf[0]


@pytest.mark.parametrize(("src", "message", "where"), [
    ("struct S { Texture2D t; };\nS g : register(t0, space1);\n", "register space cannot be specified", (2, 7)),
    ("struct S { Texture2D t; };\nS g[2];\n[numthreads(1,1,1)] void f(uint i) { float x = g[i].t.Load(0).x; }\n",
     "an array of structs with resource members can only be indexed with a constant", (3, 50)),
    ("struct S { Texture2D t; };\nS g : register(u0);\n", "no resource member of register class 'u'", (2, 7)),
    ("struct S { Texture2D t; };\nS g : register(t0) : register(t1);\n", "conflicting register semantics", (2, 22)),
    ("struct S { Texture2D t; };\nS g;\n[numthreads(1,1,1)] void f() { g.t = g.t; }\n",
     "cannot assign to a member of a global struct with resource members", (3, 34)),
    ("struct S { Texture2D t; float k; };\nS g;\n[numthreads(1,1,1)] void f() { g.k = 1; }\n",
     "cannot assign to a member of a global struct with resource members", (3, 34)),
    ("struct S { Texture2D t; };\nS g;\n[numthreads(1,1,1)] void f() { float x = g.u; }\n",
     "no member named 'u' in 'S'", (3, 44)),
])
def test_global_struct_with_resource_members_errors(src, message, where):
    src += "[numthreads(1,1,1)] void main() { f(); }\n" if "void f()" in src else "[numthreads(1,1,1)] void main() {}\n"
    for target in ("spirv", "dxil"):
        errs = R.errors(R.compile_hlsl(src, "main", "cs_6_0", target))
        assert errs and errs[0].startswith(f"{where[0]}:{where[1]}: ") and message in errs[0], errs


CBUFFER_STRUCT = """
struct Mat { Texture2D<float> tex; float scale; SamplerState samp; };
cbuffer Params : register(b0) { float4 tint; Mat m : register(t1) : register(s5); float bias; };
RWStructuredBuffer<float> Out : register(u3);
[numthreads(1,1,1)] void main() {
    Out[0] = m.tex.SampleLevel(m.samp, float2(0.375, 0.5), 0) * m.scale + bias + tint.y;
}
"""


def test_cbuffer_member_struct_with_resource_members():
    """A cbuffer member of a struct type with resource members: its resources are globals (`m.tex` at t1,
    `m.samp` at s5), its data a member of the cbuffer (tint at 0, m's scale at 16; bias at 32 in Vulkan's
    layout, which rounds the struct up to 16 bytes, at 20 in the DXIL cbuffer layout)."""
    res = R.build(CBUFFER_STRUCT)
    hlsl = {r["name"]: (r["hlsl"]["class"], r["hlsl"]["register"]) for r in res.manifest["resources"]}
    assert hlsl == {"Params": ("b", 0), "m.tex": ("t", 1), "m.samp": ("s", 5), "Out": ("u", 3)}
    tex = R.image(R.pack("f", [1.0, 2.0, 3.0, 4.0]), 4, 1, "r32f")
    out = R.cs(CBUFFER_STRUCT, {"Params": R.uniform(R.pack("f", [0, 0.5, 0, 0, 3.0, 0, 0, 0, 10.0, 0, 0, 0])),
                                "m.tex": tex, "m.samp": R.sampler(), "Out": R.storage(R.sentinel(1))},
               dxil_data={"Params": R.pack("f", [0, 0.5, 0, 0, 3.0, 10.0, 0, 0])})
    assert R.unpack("f", out["Out"]) == [2.0 * 3.0 + 10.0 + 0.5]      # u = 0.375: texel 1


@pytest.mark.parametrize(("src", "where"), [
    ("struct I { SamplerState s; };\nstruct S { float k; I i; };\nstatic S g;\n", (3, 10)),
])
def test_global_struct_with_a_resource_member_is_a_located_error(src, where):
    """Never an internal error ('... has no memory layout'): a located error at the variable (locals and
    parameters of such structs work: test_struct_locals_with_resource_members)."""
    src += "[numthreads(1,1,1)] void main() {}\n"
    for target in ("spirv", "dxil"):
        errs = R.errors(R.compile_hlsl(src, "main", "cs_6_0", target))
        assert errs and errs[0].startswith(f"{where[0]}:{where[1]}: ") and "has resource members: it needs an " \
            "initializer list naming a global resource for each of them" in errs[0], errs     # test_lang_struct_resources


# ---------------------------------------------------------------- arrays of ConstantBuffer<T>

CB_ARRAY = """
struct P { float4 v; uint k; float3 w; };
ConstantBuffer<P> Cbs[3] : register(b2, space1);
RWStructuredBuffer<float4> Out : register(u0);
[numthreads(1,1,1)] void main(uint3 g : SV_GroupID) {     // one thread per group: a uniform index
    Out[g.x] = Cbs[g.x].v * Cbs[2 - g.x].k + float4(Cbs[1].w, Cbs[g.x].k);
}
"""


def _cb_p(v: list[float], k: int, w: list[float]) -> bytes:
    """P in a constant buffer: v at 0, k at 16, w at 20 (a float3 fits after k in its 16-byte row)."""
    return R.pack("f", v) + R.pack("I", [k]) + R.pack("f", w) + bytes(8)


def test_constant_buffer_array_dynamic_index():
    """ConstantBuffer<P> Cbs[3]: three blocks at b2..b4 of space1 (SPIR-V: one array of three blocks at one
    binding, DXIL: a CBV range of three), indexed by a constant and by the group id."""
    res = R.build(CB_ARRAY)
    cb = R.resource(res.manifest, "Cbs")
    assert (cb["hlsl"]["class"], cb["hlsl"]["register"], cb["hlsl"]["space"], cb["hlsl"]["count"]) == ("b", 2, 1, 3)
    assert (cb["vulkan"]["descriptor_type"], cb["vulkan"]["count"]) == ("uniform_buffer", 3)
    blocks = [([1.0 + 10 * i, 2.0, 3.0, 4.0], i + 5, [0.5 * i, 0.25, 0.125]) for i in range(3)]
    out = R.cs(CB_ARRAY, {"Cbs": [R.uniform(_cb_p(*b)) for b in blocks], "Out": R.storage(R.sentinel(12))},
               groups=(3, 1, 1))
    want = []
    for g in range(3):
        v, k, _ = blocks[g]
        w = blocks[1][2]
        want += [v[c] * blocks[2 - g][1] + (w + [float(k)])[c] for c in range(4)]
    assert R.unpack("f", out["Out"]) == want


CB_ARRAY_COPY = """
struct P { float4 v; uint k; float3 w; };
ConstantBuffer<P> Cbs[3] : register(b2, space1);
RWStructuredBuffer<float4> Out : register(u0);
[numthreads(1,1,1)] void main(uint3 g : SV_GroupID) {
    P p = Cbs[g.x];                 // a whole block of the array, copied
    Out[g.x] = p.v * p.k + float4(p.w, 1);
}
"""


def test_constant_buffer_array_element_copied_whole():
    blocks = [([1.0 + 10 * i, 2.0, 3.0, 4.0], i + 5, [0.5 * i, 0.25, 0.125]) for i in range(3)]
    out = R.cs(CB_ARRAY_COPY, {"Cbs": [R.uniform(_cb_p(*b)) for b in blocks], "Out": R.storage(R.sentinel(12))},
               groups=(3, 1, 1))
    want = [x for v, k, w in blocks for x in [v[c] * k + (w + [1.0])[c] for c in range(4)]]
    assert R.unpack("f", out["Out"]) == want


CB_PARAMS = """
struct P { float4 v; uint k; float3 w; };
ConstantBuffer<P> One : register(b0);
ConstantBuffer<P> Cbs[2] : register(b2);
TextureBuffer<P> Tbs[2] : register(t4);
RWStructuredBuffer<float4> Out : register(u1);
float4 scaled(ConstantBuffer<P> c, float s) { return c.v * c.k * s; }
float4 offset(TextureBuffer<P> t) { return float4(t.w, t.k); }
[numthreads(1,1,1)] void main(uint3 g : SV_GroupID) {
    Out[g.x] = scaled(One, 2.0) + scaled(Cbs[g.x], 1.0) + offset(Tbs[1 - g.x]) + Tbs[g.x].v;
}
"""


def test_constant_and_texture_buffers_passed_to_functions():
    """A ConstantBuffer<P> / TextureBuffer<P> parameter takes a block (a whole one or an element of an array
    indexed by the group id); arrays of TextureBuffer are N blocks at registers t4, t5 (SPIR-V: an array of
    storage blocks)."""
    res = R.build(CB_PARAMS)
    tb = R.resource(res.manifest, "Tbs")
    assert (tb["hlsl"]["class"], tb["hlsl"]["register"], tb["hlsl"]["count"]) == ("t", 4, 2)
    assert (tb["vulkan"]["descriptor_type"], tb["vulkan"]["count"]) == ("storage_buffer", 2)
    one = ([1.0, 2.0, 3.0, 4.0], 3, [0.0, 0.0, 0.0])
    cbs = [([10.0 + i, 20.0, 30.0, 40.0], 2 + i, [0.0] * 3) for i in range(2)]
    tbs = [([0.5 + i, 0.25, 0.125, 1.0], 7 + i, [100.0 * (i + 1), 200.0, 300.0]) for i in range(2)]
    # std430 (the TextureBuffer's Vulkan view): v at 0, k at 16, w at 20 (as the std140/D3D cbuffer layouts)
    out = R.cs(CB_PARAMS, {"One": R.uniform(_cb_p(*one)), "Cbs": [R.uniform(_cb_p(*b)) for b in cbs],
                           "Tbs": [R.storage(_cb_p(*b)) for b in tbs], "Out": R.storage(R.sentinel(8))},
               groups=(2, 1, 1))
    want = []
    for g in range(2):
        o, c, t, u = one, cbs[g], tbs[1 - g], tbs[g]
        want += [o[0][i] * o[1] * 2.0 + c[0][i] * c[1] + (t[2] + [float(t[1])])[i] + u[0][i] for i in range(4)]
    assert R.unpack("f", out["Out"]) == want


@pytest.mark.parametrize(("src", "where", "message"), [
    ("void f(inout ConstantBuffer<P> c) {}\n[numthreads(1,1,1)] void main() { f(C); }\n", "3:32",
     "a 'ConstantBuffer' parameter cannot be 'inout'"),
    ("void f(ConstantBuffer<P> c) {}\n[numthreads(1,1,1)] void main() { P p = (P)0; f(p); }\n", "4:49",
     "the argument for parameter 'c' must be a ConstantBuffer (a copy of its block is passed), not a value of "
     "type 'P'"),
])
def test_constant_buffer_parameter_errors(src, where, message):
    src = "struct P { float4 v; };\nConstantBuffer<P> C;\n" + src
    for target in ("spirv", "dxil"):
        errs = R.errors(R.compile_hlsl(src, "main", "cs_6_0", target))
        assert errs and errs[0].startswith(f"{where}: {message}"), errs


CB_ARRAY_2D = """
struct P { float4 v; uint k; float3 w; };
ConstantBuffer<P> Cbs[2][3] : register(b2);
RWStructuredBuffer<float4> Out : register(u0);
[numthreads(1,1,1)] void main(uint3 g : SV_GroupID) {
    Out[g.x] = Cbs[g.x][2].v * Cbs[1][g.x].k + float4(Cbs[0][1].w, 0);
}
"""


def test_two_dimensional_constant_buffer_array():
    """ConstantBuffer<P> Cbs[2][3]: six blocks at b2..b7, Cbs[i][j] the block i * 3 + j (one flattened range,
    as D3D describes resource arrays; SPIR-V an array of six blocks), indexed by the group id and constants."""
    res = R.build(CB_ARRAY_2D)
    cb = R.resource(res.manifest, "Cbs")
    assert (cb["hlsl"]["register"], cb["hlsl"]["count"], cb["vulkan"]["count"]) == (2, 6, 6)
    blocks = [([1.0 + 10 * i, 2.0 + i, 3.0, 4.0], i + 5, [0.5 * i, 0.25, 0.125]) for i in range(6)]
    out = R.cs(CB_ARRAY_2D, {"Cbs": [R.uniform(_cb_p(*b)) for b in blocks], "Out": R.storage(R.sentinel(8))},
               groups=(2, 1, 1))
    want = []
    for g in range(2):
        v, k, w = blocks[g * 3 + 2][0], blocks[3 + g][1], blocks[1][2]
        want += [v[c] * k + (w + [0.0])[c] for c in range(4)]
    assert R.unpack("f", out["Out"]) == want


@pytest.mark.parametrize(("decl", "message"), [
    ("ConstantBuffer<P> C[];", "unbounded arrays of ConstantBuffer are not supported yet"),
    ("[[vk::push_constant]] ConstantBuffer<P> C[2];", "a push-constant block cannot be an array"),
])
def test_constant_buffer_array_errors_are_located(decl, message):
    src = f"struct P {{ float4 v; }};\n{decl}\n[numthreads(1,1,1)] void main() {{}}\n"
    col = decl.index(" C[") + 2       # at the declared name
    for target in ("spirv", "dxil"):
        errs = R.errors(R.compile_hlsl(src, "main", "cs_6_0", target))
        assert errs and errs[0].startswith(f"2:{col}: ") and message in errs[0], errs


STRUCT_LOCALS = """
struct Material { Texture2D<float> tex; float scale; SamplerState samp; };
struct Pair { Material m; RWStructuredBuffer<float> dst; };
Texture2D<float> TexA : register(t0);
Texture2D<float> TexB : register(t1);
SamplerState Samp : register(s2);
RWStructuredBuffer<float> Out : register(u3);
float shade(Material m, float u) { return m.tex.SampleLevel(m.samp, float2(u, 0.5), 0) * m.scale; }
void write(Pair p, uint i, float v) { p.dst[i] = v; }
[numthreads(1,1,1)] void main() {
    Material a;
    a.tex = TexA; a.samp = Samp; a.scale = 2.0;
    Material b = a;                 // a copy, member by member
    b.tex = TexB;
    Pair p; p.m = b; p.dst = Out;
    write(p, 0, shade(a, 0.375));   // TexA texel 1 * 2
    write(p, 1, shade(p.m, 0.875)); // TexB texel 3 * 2
    Out[2] = p.m.scale + a.tex.Load(int3(2, 0, 0));
}
"""


def test_struct_locals_with_resource_members():
    """Locals and parameters of structs with resource members (nested too) are split into one local per
    member, and the resource members resolved to the globals they hold (as DXC accepts them)."""
    texs = [R.image(R.pack("f", [k * 10.0 + i for i in range(4)]), 4, 1, "r32f") for k in (1, 2)]
    out = R.cs(STRUCT_LOCALS, {"TexA": texs[0], "TexB": texs[1], "Samp": R.sampler(), "Out": R.storage(R.sentinel(3))})
    assert R.unpack("f", out["Out"]) == [11.0 * 2, 23.0 * 2, 2.0 + 12.0]


STRUCT_RETURN = """
struct Material { Texture2D<float> tex; float scale; };
Texture2D<float> TexA : register(t0);
Texture2D<float> TexB : register(t1);
RWStructuredBuffer<float> Out : register(u3);
Material make(Texture2D<float> t, float s) { Material m; m.tex = t; m.scale = s; return m; }
[numthreads(1,1,1)] void main() {
    Material a = make(TexB, 3.0);
    Out[0] = a.tex.Load(int3(1, 0, 0)) * a.scale;
}
"""


def test_struct_with_resource_members_returned_by_a_function():
    texs = [R.image(R.pack("f", [k * 10.0 + i for i in range(4)]), 4, 1, "r32f") for k in (1, 2)]
    out = R.cs(STRUCT_RETURN, {"TexA": texs[0], "TexB": texs[1], "Out": R.storage(R.sentinel(1))})
    assert R.unpack("f", out["Out"]) == [21.0 * 3.0]


def test_array_of_structs_with_resource_members_is_a_located_error():
    src = ("struct S { Texture2D<float> t; };\nTexture2D<float> T : register(t0);\n"
           "RWStructuredBuffer<float> O : register(u0);\n"
           "[numthreads(1,1,1)] void main() { S a[2]; a[0].t = T; O[0] = a[0].t.Load(int3(0, 0, 0)); }\n")
    for target in ("spirv", "dxil"):
        errs = R.errors(R.compile_hlsl(src, "main", "cs_6_0", target))
        assert errs and errs[0].startswith("4:37: 'a' has type 'S[2]'") and "not supported yet" in errs[0], errs
