"""Issue 20 items the traceability map (tests/conformance_trace.py) found without an executed test on every
route: a register clause qualified with a shader-model-5 profile (`register(ps_5_0, c1)`), and the stride of a
`StructuredBuffer<float3>` read and written through DXIL on dxil-spirv (only the interpreter ran it).
Expected values come from the layout rules written out here, not from the compiler."""

from __future__ import annotations

import pytest
from lang_util import run_backend

pytestmark = [pytest.mark.vulkan, pytest.mark.usefixtures("vk")]
BACKENDS = ["spirv", "dxil", "dxil-vk"]

# `register(<profile>, cN)`: the clause whose profile names the compiled stage applies (any shader model:
# DXC's ParseDecl takes `cs_5_0` as profile-like), clauses for other stages are dropped; a member with no
# clause for this stage is unreserved and goes after the last reserved word.
SM5_REGISTERS = """
float a : register(ps_5_0, c1) : register(cs_5_0, c3);
float b : register(vs_5_0, c0);
float4 c : register(ps, c5) : register(cs_5_1, c1);
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main() { Out[0] = a; Out[1] = b; Out[2] = c.z; }
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_shader_model_5_profile_register_clauses(backend):
    # word i of $Globals holds float(i); a register is four words
    a_word = 4 * 3               # cs_5_0 clause: c3.x
    c_word = 4 * 1 + 2           # cs_5_1 clause: c1, component z
    b_word = a_word + 1          # unreserved for cs: right after the highest reserved word (a at c3.x)
    got = run_backend(backend, SM5_REGISTERS, {"Out": ("float", 3)},
                      {"$Globals": ("float", [float(i) for i in range(32)])})["Out"]
    assert got == [float(a_word), float(b_word), float(c_word)]


FLOAT3_SB = """
StructuredBuffer<float3> In : register(t0);
RWStructuredBuffer<float3> Out : register(u1);
[numthreads(3, 1, 1)]
void main(uint i : SV_DispatchThreadID) { Out[i] = In[i].zxy * 2.0 + float3(i, 10 * i, 100 * i); }
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_structured_buffer_of_float3_stride(backend):
    """D3D's structured-buffer stride of float3 is 12 bytes (DXIL, and so DXIL through dxil-spirv); DXC's
    default Vulkan layout pads each element to 16 (docs/CONFORMANCE.md)."""
    stride = 4 if backend == "spirv" else 3          # words per element
    elems = [(1.0 + 3 * i, 2.0 + 3 * i, 3.0 + 3 * i) for i in range(3)]

    def lay(vectors):
        words = []
        for v in vectors:
            words += list(v) + [0.0] * (stride - 3)
        return words

    want = [(z * 2 + i, x * 2 + 10 * i, y * 2 + 100 * i) for i, (x, y, z) in enumerate(elems)]
    got = run_backend(backend, FLOAT3_SB, {"Out": ("float", [0.0] * (3 * stride))},
                      {"In": ("float", lay(elems))})["Out"]
    assert got == lay(want)
