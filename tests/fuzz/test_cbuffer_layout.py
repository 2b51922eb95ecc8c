"""Generated constant-buffer layouts (tests/fuzz/cbuffer_gen.py): scalars, vectors, matrices of every
shape and orientation (modifiers, typedefs, `#pragma pack_matrix`), arrays, nested structs and
`packoffset`.  Every scalar the shader reads must be the word the packing rules name, computed by the
generator from the rules alone: D3D's for the DXIL runs (interpreter and dxil-spirv), DXC's relaxed
std140 for our SPIR-V, each run given a buffer whose word i holds BASE + i."""

from __future__ import annotations

import random

import pytest
from harness.dxil_consumer import ConsumerLimit
from lang_util import run_backend

from fuzz import cbuffer_gen

pytestmark = [pytest.mark.vulkan, pytest.mark.llvm, pytest.mark.usefixtures("vk")]

BACKENDS = ("spirv", "dxil", "dxil-vk")


def reads(backend: str, layout: cbuffer_gen.Layout) -> tuple[list[int], list[int]]:
    """(got, expected) of one backend."""
    rule = "vk" if backend == "spirv" else "dx"
    want = layout.expected[rule]
    words = [cbuffer_gen.BASE + k for k in range(layout.words[rule])]
    got = run_backend(backend, layout.source, {"Out": ("uint", len(want))}, {"C": ("uint", words)})["Out"]
    return got, want


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("backend", BACKENDS)
def test_generated_cbuffer_reads_the_word_the_rules_name(seed: int, backend: str) -> None:
    layout = cbuffer_gen.generate(random.Random(f"cbuffer:{seed}"))
    try:
        got, want = reads(backend, layout)
    except ConsumerLimit:
        return
    bad = [f"Out[{k}]: word {g - cbuffer_gen.BASE}, want {w - cbuffer_gen.BASE}"
           for k, (g, w) in enumerate(zip(got, want)) if g != w]
    assert not bad, "\n".join(bad[:20]) + "\n--- program ---\n" + layout.source


@pytest.mark.parametrize("backend", BACKENDS)
def test_array_of_row_major_non_square_matrices(backend: str) -> None:
    """Layout finding: an array of row_major non-square matrices got the column_major stride in SPIR-V
    (ArrayStride from the default orientation): `float4x2 m[2]` gave spirv-val's "stride 32, element size
    64" with exit 0, and `float2x4 n[3]` a valid module reading n[1] from the wrong register."""
    layout = cbuffer_gen.Layout(
        "RWStructuredBuffer<uint> Out : register(u0);\ncbuffer C : register(b1) {\n"
        "  row_major float4x2 m[2];\n  row_major float2x4 n[3];\n  float k;\n};\n"
        "[numthreads(1, 1, 1)]\nvoid main() {\n  Out[0] = asuint(m[1]._m31);\n  Out[1] = asuint(n[1]._m12);\n"
        "  Out[2] = asuint(n[2]._m03);\n  Out[3] = asuint(k);\n}\n",
        # m: 2 x 4 rows (registers 0-7); n: 3 x 2 rows (8-13); k: register 14 under both rules (n's last
        # row is full)
        {rule: [cbuffer_gen.BASE + w for w in (4 * 7 + 1, 4 * 11 + 2, 4 * 12 + 3, 4 * 14)] for rule in ("dx", "vk")},
        {"dx": 64, "vk": 64})
    try:
        got, want = reads(backend, layout)
    except ConsumerLimit:
        return
    assert got == want


def test_layout_check_can_fail() -> None:
    """The comparison is not vacuous: a model that ignores orientation is wrong for a column_major read."""
    layout = cbuffer_gen.Layout(
        "RWStructuredBuffer<uint> Out : register(u0);\ncbuffer C : register(b1) { column_major float2x2 m; };\n"
        "[numthreads(1, 1, 1)]\nvoid main() { Out[0] = asuint(m._m01); }\n",
        {"dx": [cbuffer_gen.BASE + 1], "vk": [cbuffer_gen.BASE + 1]}, {"dx": 12, "vk": 12})
    got, want = reads("spirv", layout)
    assert got != want and got == [cbuffer_gen.BASE + 4]


DX_LAYOUT_HEAD = "RWStructuredBuffer<uint> Out : register(u0);\ncbuffer C : register(b1) {{ {decl} }};\n" \
                 "[numthreads(1, 1, 1)]\nvoid main() {{ Out[0] = asuint(m{index}._m00); }}\n"


@pytest.mark.parametrize("decl", ["column_major int2x4 m;", "uint3x2 m[2];", "row_major float3x1 m;",
                                  "column_major float1x2 m;"])
def test_dx_layout_matrix_spirv_cannot_store_is_refused(decl: str) -> None:
    """Layout finding: under -fvk-use-dx-layout the manifest placed a column_major non-float matrix by
    columns and an Nx1 row_major (1xN column_major) one one register per element, while the SPIR-V types
    (an array of rows; a packed vector) read other offsets: silent wrong values.  Now a located error."""
    from shaderbuild.compiler import compile_file
    from shaderbuild.diagnostics import render_all
    from shaderbuild.options import CompileOptions

    opts = CompileOptions(entry="main", profile="cs_6_0", target="spirv", vk_layout="dx")
    res = compile_file("dx.hlsl", opts, text=DX_LAYOUT_HEAD.format(decl=decl, index="[1]" if "[" in decl else ""))
    text = render_all(res.diagnostics, res.sources)
    assert not res.ok and text.startswith("dx.hlsl:2:1: error: ") and "is not supported by the SPIR-V backend" in text


@pytest.mark.parametrize("decl", ["row_major int2x4 m;", "float3x2 m[2];", "column_major float3x1 m;",
                                  "row_major float1x2 m;"])
def test_dx_layout_matrix_spirv_stores_as_hlsl_compiles(decl: str) -> None:
    """The shapes whose SPIR-V storage matches HLSL's packing still compile to valid SPIR-V."""
    from harness import tools

    from shaderbuild.compiler import compile_file
    from shaderbuild.options import CompileOptions

    opts = CompileOptions(entry="main", profile="cs_6_0", target="spirv", vk_layout="dx")
    res = compile_file("dx.hlsl", opts, text=DX_LAYOUT_HEAD.format(decl=decl, index="[1]" if "[" in decl else ""))
    assert res.ok and res.binary is not None
    tools.spirv_val(res.binary)
