"""Generated buffer layouts (tests/fuzz/layout_gen.py): bool, 32/64-bit and (-enable-16bit-types) 16-bit
members, vectors, matrices of every element type in both majorities, arrays and nested structs, in every
container (cbuffer, ConstantBuffer<T>, push constants, StructuredBuffer, RWStructuredBuffer with whole-struct
and single-member stores, ByteAddressBuffer.Load<T>) under every -fvk-use-*-layout flag.  Every word read
(and every word of the RWStructuredBuffer afterwards) must be the one the rules name, computed by the
generator from the rules alone; the compiler may refuse a case only with a located error."""

from __future__ import annotations

import random
import re

import pytest

from fuzz import layout_gen, layout_run

pytestmark = [pytest.mark.vulkan, pytest.mark.llvm, pytest.mark.usefixtures("vk")]

BACKENDS = ("spirv", "dxil", "dxil-vk")
LOCATED = re.compile(r"^layout\.hlsl:\d+:\d+: error: ")


def _check(case: layout_gen.Case, backend: str) -> None:
    try:
        bad = layout_run.findings(case, (backend,))
    except layout_run.Refused as exc:
        assert LOCATED.match(str(exc)) and "internal compiler error" not in str(exc), str(exc)
        return
    assert not bad, "\n".join(bad[:20]) + "\n--- program ---\n" + case.source


@pytest.mark.parametrize("flag", layout_gen.FLAGS)
@pytest.mark.parametrize("container", layout_gen.CONTAINERS)
def test_generated_layout_spirv(container: str, flag: str) -> None:
    """Two layouts per (container, flag) on our SPIR-V, one with 16-bit types."""
    for sixteen in (False, True):
        _check(layout_gen.generate(random.Random(f"layout:{container}:{flag}:{sixteen}"), container, flag, sixteen),
               "spirv")


@pytest.mark.parametrize("backend", ("dxil", "dxil-vk"))
@pytest.mark.parametrize("container", layout_gen.CONTAINERS)
def test_generated_layout_dxil(container: str, backend: str) -> None:
    """The D3D rules on our DXIL (the Vulkan flags do not apply), with and without 16-bit types."""
    for sixteen in (False, True):
        _check(layout_gen.generate(random.Random(f"layout:{container}:{sixteen}"), container, "default", sixteen),
               backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_struct_store_with_64bit_array_after_a_32bit_member(backend: str) -> None:
    """Layout finding: storing a whole struct whose first member is 32-bit and which holds a run of more
    than two 64-bit values (`float f; double2 a[2];`) was an internal compiler error in DXIL below SM 6.3
    (one bufferStore of eight words: the 64-bit run limit came from the struct's first member)."""
    src = ("RWStructuredBuffer<uint> Out : register(u0);\nstruct S { float f; double2 a[2]; int64_t2 b; };\n"
           "RWStructuredBuffer<S> B : register(u2);\n[numthreads(1, 1, 1)]\nvoid main() {\n"
           "  Out[0] = asuint(B[1].f);\n  B[2] = B[0];\n  B[3].a = B[1].a;\n}\n")
    tree = ("t", "S", [("f", ("v", "float", 1)), ("a", ("a", ("v", "double", 2), 2)), ("b", ("v", "int64_t", 2))])
    case = _hand_case(src, tree, copies=[(0, 2, None), (1, 3, ".a")], reads=[(1, ".f")])
    _check(case, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_struct_store_with_bool_row_matrix(backend: str) -> None:
    """Layout finding: copying a struct holding a `bool1x3` (a 1xN bool matrix, stored as a uint vector) gave
    SPIR-V that spirv-val rejects (OpCompositeExtract of a row from the vector) with exit 0, under every layout."""
    src = ("RWStructuredBuffer<uint> Out : register(u0);\n"
           "struct S { row_major bool1x3 m; column_major bool3x1 n; bool1x1 o; bool2 p; };\n"
           "RWStructuredBuffer<S> B : register(u2);\n[numthreads(1, 1, 1)]\nvoid main() {\n"
           "  Out[0] = B[1].m._m02 ? 1u : 0u;\n  B[2] = B[0];\n  B[3].m = B[1].m;\n}\n")
    tree = ("t", "S", [("m", ("m", "bool", 1, 3, True)), ("n", ("m", "bool", 3, 1, False)),
                       ("o", ("m", "bool", 1, 1, False)), ("p", ("v", "bool", 2))])
    case = _hand_case(src, tree, copies=[(0, 2, None), (1, 3, ".m")], reads=[(1, ".m._m02")])
    _check(case, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_raw_load_of_struct_with_column_matrices(backend: str) -> None:
    """Layout finding: ByteAddressBuffer.Load<S> of a struct holding an Nx1 matrix (`uint4x1`) was an internal
    compiler error (the IR validator's "element typed uint1, expected uint": a row of an Nx1 matrix is a scalar)."""
    src = ("RWStructuredBuffer<uint> Out : register(u0);\n"
           "struct S { int a; column_major uint4x1 m; row_major float3x1 n; uint1x1 o; };\n"
           "ByteAddressBuffer B : register(t2);\n[numthreads(1, 1, 1)]\nvoid main() {\n"
           "  S t = B.Load<S>(16);\n  Out[0] = t.m._m30;\n  Out[1] = asuint(t.n._m20);\n  Out[2] = t.o;\n}\n")
    tree = ("t", "S", [("a", ("v", "int", 1)), ("m", ("m", "uint", 4, 1, False)), ("n", ("m", "float", 3, 1, True)),
                       ("o", ("m", "uint", 1, 1, False))])
    lay = layout_gen.layout(tree, "dx_sb")      # D3D's offsets on both targets (layout_gen's BAB note)
    buf = bytes(layout_gen._halfwords(128, set()))
    at = {p: off for p, off, _k in lay.leaves}
    want = [layout_gen._read(buf, 16 + at[p], k)[0] for p, k in ((".m._m30", "uint"), (".n._m20", "float"),
                                                                  (".o._m00", "uint"))]
    assert [at[".m._m30"], at[".n._m20"], at[".o._m00"]] == [16, 28, 32]     # C-like: 4 + 12, 20 + 8, 32
    case = layout_gen.Case(src, "bab", "default", False, {"vk": "dx_sb", "dx": "dx_sb"}, {"vk": buf, "dx": buf},
                           {"vk": want, "dx": want}, {"vk": None, "dx": None}, {"vk": lay, "dx": lay})
    _check(case, backend)


@pytest.mark.parametrize("block", ("cbuffer", "sb"))
def test_relaxed_64bit_vector_and_row_matrix_members_as_dxc(block: str) -> None:
    """Layout finding (DXC's AlignmentSizeCalculator::alignUsingHLSLRelaxedLayout): under the vector-relaxed
    std140/std430 rules a vector of 64-bit elements keeps its base alignment (double3: 32; we put it at 16),
    and a 1xN / Nx1 matrix member is relaxed like a vector (float1x3 after a float: 4-aligned unless it
    straddles; we used its full alignment).  Offsets by hand: a 0, d 32 (base alignment 32), b 56, m 60 would
    straddle 64, so 64; n (float2x1) right after at 76 -> straddles 80, so 80."""
    tree = ("t", "S", [("a", ("v", "float", 1)), ("d", ("v", "double", 3)), ("b", ("v", "float", 1)),
                       ("m", ("m", "float", 1, 3, False)), ("n", ("m", "float", 2, 1, True))])
    rule = "std140" if block == "cbuffer" else "std430"
    lay = layout_gen.layout(tree, rule)
    at = {p: off for p, off, _k in lay.leaves}
    assert [at[".a"], at[".d.x"], at[".b"], at[".m._m00"], at[".n._m00"]] == [0, 32, 56, 64, 80]
    fields = "float a; double3 d; float b; column_major float1x3 m; row_major float2x1 n;"
    decl = f"cbuffer C : register(b1) {{ {fields} }};" if block == "cbuffer" else \
        f"struct S {{ {fields} }};\nStructuredBuffer<S> B : register(t2);"
    pre = "" if block == "cbuffer" else "B[0]."
    src = (f"RWStructuredBuffer<uint> Out : register(u0);\n{decl}\n[numthreads(1, 1, 1)]\nvoid main() {{\n"
           f"  {{ uint lo, hi; asuint({pre}d.z, lo, hi); Out[0] = lo; Out[1] = hi; }}\n"
           f"  Out[2] = asuint({pre}b);\n  Out[3] = asuint({pre}m._m02);\n  Out[4] = asuint({pre}n._m10);\n}}\n")
    buf = bytes(layout_gen._halfwords(256, set()))
    want = [*layout_gen._read(buf, at[".d.z"], "double"), *(layout_gen._read(buf, at[p], "float")[0]
                                                            for p in (".b", ".m._m02", ".n._m10"))]
    case = layout_gen.Case(src, "cbuffer" if block == "cbuffer" else "sb", "default", False,
                           {"vk": rule, "dx": rule}, {"vk": buf, "dx": buf}, {"vk": want, "dx": want},
                           {"vk": None, "dx": None}, {"vk": lay, "dx": lay})
    _check(case, "spirv")


def _manifest_mismatches(case: layout_gen.Case) -> list[str]:
    """Where the binding manifest's reflected offsets, sizes and strides (both sides: "hlsl" and "vulkan")
    differ from the generator's layout of the same struct."""
    m = layout_run.compile_case(case, "spirv").manifest
    res = {r["name"]: r for r in m["resources"]}
    if case.container == "push":
        top = m["push_constants"][0]["block"]
    elif case.container in ("cbuffer", "cbt"):
        top = res["C"]["block"]
    else:
        top = res["B"]["element"]
        for side, route in (("hlsl", "dx"), ("vulkan", "vk")):
            lay = case.layouts[route]
            if res["B"][side]["stride"] != -(-lay.size // lay.align) * lay.align:
                return [f"{side} stride {res['B'][side]['stride']}, want {lay.size} rounded to {lay.align}"]
    want = {side: case.layouts[route].size for side, route in (("hlsl", "dx"), ("vulkan", "vk"))}
    if case.container in ("cbuffer", "cbt", "push"):     # a block's Vulkan size: the byte range it covers
        lay = case.layouts["vk"]
        want["vulkan"] = max(off + layout_gen.layout(sub, case.rule["vk"]).size
                             for (_n, off), (_m, sub) in zip(lay.fields, case.tree[2]))
    bad = [f"{side}_size {top[f'{side}_size']}, want {size}" for side, size in want.items()
           if top[f"{side}_size"] != size]

    def walk(node: tuple, members: list[dict], where: str) -> None:
        for (name, sub), mj in zip(node[2], members, strict=True):
            assert mj["name"] == name
            for side, route in (("hlsl", "dx"), ("vulkan", "vk")):
                rule = case.rule[route]
                off = dict(layout_gen.layout(node, rule).fields)[name]
                sub_lay = layout_gen.layout(sub, rule)
                got = (mj[side]["offset"], mj[side]["size"], mj[side].get("array_stride"))
                want = (off, sub_lay.size, sub_lay.stride)
                if got != want:
                    bad.append(f"{where}{name} {side}: (offset, size, stride) {got}, want {want}")
            inner = sub[1] if sub[0] == "a" else sub
            if inner[0] == "t":
                walk(inner, mj["members"], f"{where}{name}.")

    walk(case.tree, top["members"], "")
    return bad


@pytest.mark.parametrize("container", ("cbuffer", "cbt", "push", "sb", "rw"))
def test_manifest_reflects_the_generated_layout(container: str) -> None:
    """The manifest's reflected layout (hlsl and vulkan sides) is the generator's, for a sample of cases per
    container and flag."""
    checked = 0
    for flag in layout_gen.FLAGS:
        for k in range(3):
            case = layout_gen.generate(random.Random(f"manifest:{container}:{flag}:{k}"), container, flag)
            try:
                bad = _manifest_mismatches(case)
            except layout_run.Refused:
                continue
            checked += 1
            assert not bad, "\n".join(bad[:20]) + "\n--- program ---\n" + case.source
    assert checked >= 8


def _hand_case(src: str, tree: tuple, copies: list, reads: list) -> layout_gen.Case:
    """A case written by hand, its expectations computed by the generator's rule functions."""
    rules = {"vk": "std430", "dx": "dx_sb"}
    lays = {r: layout_gen.layout(tree, rule) for r, rule in rules.items()}
    data, expected, final = {}, {}, {}
    for r, lay in lays.items():
        stride = -(-lay.size // lay.align) * lay.align
        buf = bytes(layout_gen._halfwords(stride * layout_gen.ELEMS + 16, set()))
        out = bytearray(buf)
        for src_i, dst_i, pick in copies:
            for p, off, kind in lay.leaves:
                if pick is None or p.startswith(pick):
                    n = layout_gen.SIZES[kind]
                    chunk = buf[src_i * stride + off:src_i * stride + off + n]
                    if kind == "bool":         # stored back as 0 / 1
                        chunk = int(any(chunk)).to_bytes(4, "little")
                    out[dst_i * stride + off:dst_i * stride + off + n] = chunk
        leaves = {p: (off, kind) for p, off, kind in lay.leaves}
        expected[r] = [w for i, p in reads for w in layout_gen._read(buf, i * stride + leaves[p][0], leaves[p][1])]
        data[r], final[r] = buf, bytes(out)
    return layout_gen.Case(src, "rw", "default", False, rules, data, expected, final, lays)


def test_layout_check_can_fail() -> None:
    """The comparison is not vacuous: expecting std140 offsets where the buffer holds std430 data fails."""
    case = layout_gen.generate(random.Random("layout:can-fail"), "sb", "default", False)
    wrong = layout_gen.layout(("t", "T", [("a", ("v", "float", 1)), ("b", ("a", ("v", "float", 1), 2))]), "std140")
    right = layout_gen.layout(("t", "T", [("a", ("v", "float", 1)), ("b", ("a", ("v", "float", 1), 2))]), "std430")
    assert [o for _p, o, _k in wrong.leaves] == [0, 16, 32] and [o for _p, o, _k in right.leaves] == [0, 4, 8]
    case.expected["vk"] = [w ^ 1 for w in case.expected["vk"]]
    assert layout_run.findings(case, ("spirv",))


@pytest.mark.parametrize("decl", ["column_major int3x4 m;", "column_major uint2x2 m[2];"])
def test_dx_layout_push_constant_refusal_is_located(decl: str) -> None:
    """Layout finding (campaign): under -fvk-use-dx-layout a push-constant block holding a matrix the SPIR-V
    types cannot store as HLSL packs it was refused without a location ("error: ..." only); now the error
    points at the push-constant variable, as it does for every other buffer."""
    from shaderbuild.compiler import compile_file
    from shaderbuild.diagnostics import render_all
    from shaderbuild.options import CompileOptions

    src = (f"RWStructuredBuffer<uint> Out : register(u0);\nstruct S {{ uint a; {decl} }};\n"
           "[[vk::push_constant]] ConstantBuffer<S> P;\n[numthreads(1, 1, 1)]\nvoid main() { Out[0] = P.a; }\n")
    opts = CompileOptions(entry="main", profile="cs_6_0", target="spirv", vk_layout="dx")
    res = compile_file("dx.hlsl", opts, text=src)
    text = render_all(res.diagnostics, res.sources)
    assert not res.ok and text.startswith("dx.hlsl:3:41: error: ") and "not supported by the SPIR-V backend" in text
