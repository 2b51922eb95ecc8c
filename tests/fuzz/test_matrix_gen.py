"""The matrix generator (fuzz/matrix_gen.py): its arithmetic on hand-checked values, and its programs on every
route (SPIR-V on lavapipe at -O3 and -O0, DXIL on the interpreter, DXIL through dxil-spirv on lavapipe)."""

from __future__ import annotations

import random

import pytest
from lang_util import run_backend

from fuzz import matrix_gen as g

pytestmark = [pytest.mark.vulkan, pytest.mark.llvm, pytest.mark.usefixtures("vk")]


def test_mul_and_transpose_by_hand() -> None:
    a = [[1, 2, 3], [4, 5, 6]]                        # 2x3
    b = [[7, 8], [9, 10], [11, 12]]                   # 3x2
    assert g._mul(a, b) == [[58, 64], [139, 154]]
    assert g._t(a) == [[1, 4], [2, 5], [3, 6]]
    assert g._mul([[0x7FFFFFFF]], [[2]]) == [[-2]]    # wraps to 32 bits


def test_programs_store_by_the_declared_packing() -> None:
    """The inputs hold each buffer's matrix in the order its packing names: rows for row_major, columns else."""
    for seed in range(20):
        p = g.generate(random.Random(f"pack:{seed}"))
        assert len(p.expected) == g.OUT_SLOTS and p.inputs
        assert all("StructuredBuffer<" in line for line in p.source.splitlines() if ": register(t" in line)
    src = g.generate(random.Random("pack:0")).source
    assert src == g.generate(random.Random("pack:0")).source


@pytest.mark.parametrize("backend", ["spirv", "dxil", "dxil-vk"])
@pytest.mark.parametrize("seed", range(5))
def test_matrix_programs_give_the_generators_values(seed: int, backend: str) -> None:
    p = g.generate(random.Random(f"matrix:{seed}"))
    inputs = {n: ("float", [float(x) for x in v]) for n, v in p.inputs.items()}
    got = run_backend(backend, p.source, {"Out": ("int", len(p.expected))}, inputs)["Out"]
    assert got == p.expected, p.source


TRANSPOSE_OF_A_COLUMN = """RWStructuredBuffer<int> Out : register(u0);
StructuredBuffer<float2x1> B : register(t1);
[numthreads(1, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
    int2x1 m = (int2x1)B[0];
    int2x2 outer = mul(m, transpose(m));
    int1x2 t = transpose(m);
    Out[0] = outer._m00;
    Out[1] = outer._m01;
    Out[2] = outer._m11;
    Out[3] = t._m01;
    Out[4] = all(m) ? 1 : 0;
    Out[5] = any(int3x1(0, 0, m._m10)) ? 1 : 0;
}
"""


@pytest.mark.parametrize("backend", ["spirv", "dxil", "dxil-vk"])
def test_transpose_and_components_of_an_rx1_matrix(backend: str) -> None:
    """Matrix finding (program 3 of tag matrix): the DXIL polyfills of `transpose` and of `all`/`any` on an Rx1
    matrix took its rows for 1-vectors, which the IR validator refuses (internal compiler error under
    SHADERBUILD_VALIDATE_IR): an Rx1 matrix's row is a scalar.  m = (3, -5): the outer product m m^T, m^T, all, any."""
    got = run_backend(backend, TRANSPOSE_OF_A_COLUMN, {"Out": ("int", 6)}, {"B": ("float", [3.0, -5.0])})["Out"]
    assert got == [9, -15, 25, -5, 1, 1]
