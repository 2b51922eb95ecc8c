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
