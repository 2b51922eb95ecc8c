"""Issue 20 items the traceability map (tests/conformance_trace.py) found without an executed test on every
route: a register clause qualified with a shader-model-5 profile (`register(ps_5_0, c1)`), and the stride of a
`StructuredBuffer<float3>` read and written through DXIL on dxil-spirv (only the interpreter ran it).
Also: the programs of tests/front/test_dxc_rejects.py (compiled there for SPIR-V only) refused for DXIL with the
same located errors.  Expected values come from the layout rules written out here, not from the compiler."""

from __future__ import annotations

import pytest
from lang_util import run_backend

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
@pytest.mark.vulkan
@pytest.mark.usefixtures("vk")
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
@pytest.mark.vulkan
@pytest.mark.usefixtures("vk")
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


def _dxc_rejects_cases() -> tuple[dict, dict]:
    """The refusal and acceptance cases of tests/front/test_dxc_rejects.py (which compiles them for SPIR-V only)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "front" / "test_dxc_rejects.py"
    spec = importlib.util.spec_from_file_location("dxc_rejects_cases", path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.REJECTED, mod.ACCEPTED


REJECTED, ACCEPTED = _dxc_rejects_cases()


def _dxil(source: str, profile: str):
    from shaderbuild.compiler import compile_file
    from shaderbuild.options import CompileOptions

    return compile_file("t.hlsl", CompileOptions(entry="main", profile=profile, target="dxil"), text=source)


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_dxc_rejects_also_for_dxil(name):
    """Each program DXC rejects is refused for DXIL too, with the same located errors as for SPIR-V."""
    source, profile, expected = REJECTED[name]
    res = _dxil(source, profile)
    assert not res.ok and res.binary is None
    assert [f"{d.loc}: {d.message}" for d in res.diagnostics if d.severity == "error"] == expected


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_dxc_accepted_neighbours_also_for_dxil(name):
    res = _dxil(ACCEPTED[name], "ps_6_0")
    assert res.ok, [d.message for d in res.diagnostics]


MS_COUNTED = """static const uint N = 2;
Texture2DMS<float4, N * 2> T : register(t1);
RWStructuredBuffer<float> Out : register(u0);
[numthreads(2, 1, 1)]
void main(uint3 t : SV_GroupThreadID) {
    for (uint s = 0; s < (N << 1); ++s) { Out[t.x * 4 + s] = T.Load(int2(t.x, 0), s).y; }
    uint w, h, count;
    T.GetDimensions(w, h, count);
    if (t.x == 0) { Out[8] = count; }
}
"""


@pytest.mark.vulkan
@pytest.mark.spirv_tools
def test_texture2dms_with_a_sample_count_expression_executes():
    """`Texture2DMS<float4, N * 2>` reads each of its 4 samples (SPIR-V, and DXIL through dxil-spirv; the
    interpreter has no multisampled textures)."""
    import res_util as R

    def value(x: int, s: int, c: int) -> float:
        return 100.0 * s + 10.0 * x + c

    data = [value(x, s, c) for x in range(2) for s in range(4) for c in range(4)]   # texel, sample, component
    out = R.cs(MS_COUNTED, {"T": R.image(R.pack("f", data), 2, 1, "rgba32f", samples=4, per_sample=True),
                            "Out": R.storage(R.sentinel(9))}, dxil_skip="multisampled")
    assert R.unpack("f", out["Out"]) == [value(x, s, 1) for x in range(2) for s in range(4)] + [4.0]
