"""The DXIL-twin checks of the resource corpus themselves (tests/dxil_run.py, res_util.build/run_cs):
they must be able to fail, move cbuffer bytes correctly and refuse unlisted exclusions."""

from __future__ import annotations

import struct

import dxil_run
import pytest
import res_util as R

pytestmark = [pytest.mark.llvm]

SRC = """
cbuffer CB : register(b0) { float k; float2 v[2]; };
RWStructuredBuffer<float> Out : register(u1);
[numthreads(2,1,1)] void main(uint3 t : SV_DispatchThreadID) { Out[t.x] = k + v[t.x].y; }
"""


def _words(*vals: float) -> bytes:
    return struct.pack(f"<{len(vals)}f", *vals)


def test_differs_is_exact_unless_a_tolerance_is_given():
    a, b = _words(1.0, 2.0), _words(1.0, 2.0000002)
    assert dxil_run._differs(a, a, 0.0) is None
    assert "word 1" in dxil_run._differs(a, b, 0.0)
    assert dxil_run._differs(a, b, 1e-5) is None
    assert "bytes" in dxil_run._differs(a, a + b"\0\0\0\0", 0.0)


def test_cbuffer_bytes_move_from_std140_to_d3d_rows():
    """k at 0; v[i] at 16 + 16 i in both layouts (std140 pads the last element, D3D does not): the
    D3D buffer is the members copied element by element, 40 bytes rounded up to 48."""
    res = R.compile_hlsl(SRC, target="dxil")
    vk = R.compile_hlsl(SRC)
    data = _words(1.0, 0, 0, 0, 2.0, 3.0, 0, 0, 4.0, 5.0, 0, 0)
    out = dxil_run._cbuffer_bytes(R.resource(vk.manifest, "CB")["block"], R.resource(res.manifest, "CB")["block"], data)
    assert struct.unpack("<12f", out) == (1.0, 0, 0, 0, 2.0, 3.0, 0, 0, 4.0, 5.0, 0, 0)


def test_a_wrong_lavapipe_result_is_a_deferred_dxil_bug():
    """run_twin compares every writable resource, of the interpreter run and of the run through dxil-spirv on
    lavapipe: feed it a 'lavapipe' result neither DXIL run can match."""
    res = R.compile_hlsl(SRC)
    twin = R.dxil_twin(SRC)
    specs = {"CB": R.uniform(_words(1.0, 0, 0, 0, 2.0, 3.0, 0, 0, 4.0, 5.0, 0, 0)), "Out": R.storage(R.sentinel(2))}
    R.take_deferred()
    dxil_run.run_twin(res, twin, specs, {"Out": _words(4.0, 6.0)}, (1, 1, 1), b"", "main", 0.0)
    assert R.take_deferred() == []                    # right answer: 1 + 3, 1 + 5
    dxil_run.run_twin(res, twin, specs, {"Out": _words(4.0, 7.0)}, (1, 1, 1), b"", "main", 0.0)
    bugs = R.take_deferred()
    assert len(bugs) == 2 and all(isinstance(b, R.DxilBug) and "word 1" in str(b) for b in bugs)
    assert sorted("dxil-spirv" in str(b) for b in bugs) == [False, True]


def test_exclusions_must_be_listed():
    with pytest.raises(AssertionError, match="unlisted"):
        dxil_run.NotExecutable("no-such-reason")
    res, twin = R.compile_hlsl(SRC), R.dxil_twin(SRC)
    before = dxil_run.NOT_RUN.get("thread-order", 0)
    specs = {"CB": R.uniform(_words(1.0, 0, 0, 0, 2.0, 3.0, 0, 0, 4.0, 5.0, 0, 0)), "Out": R.storage(R.sentinel(2))}
    R.take_deferred()
    dxil_run.run_twin(res, twin, specs, {"Out": _words(4.0, 6.0)}, (1, 1, 1), b"", "main", 0.0, skip="thread-order")
    assert dxil_run.NOT_RUN["thread-order"] == before + 1
    assert R.take_deferred() == []      # the run through dxil-spirv on lavapipe is not a serial interpreter
    dxil_run.NOT_RUN["thread-order"] = before       # the summary counts the corpus, not this probe
    if not before:
        del dxil_run.NOT_RUN["thread-order"]


def test_spirv_only_shader_has_no_twin_and_is_counted():
    src = ("[[vk::ext_builtin_input(/* NumWorkgroups */ 24)]]\nstatic const uint3 n;\n"
           "RWStructuredBuffer<uint> Out : register(u0);\n[numthreads(1,1,1)] void main() { Out[0] = n.x; }\n")
    before = sum(R.EXCLUDED.values())
    assert R.dxil_twin(src) is None
    assert sum(R.EXCLUDED.values()) == before + 1 and R.take_deferred() == []


def test_twin_compile_failure_is_deferred_not_raised():
    R.take_deferred()
    bad = R.dxil_twin("[numthreads(1,1,1)] void main() { undefined_function(); }")
    assert bad is None and isinstance(R.take_deferred()[0], R.DxilBug)


PS_RED = "float4 main(float4 p : SV_Position) : SV_Target { return float4(1, 0, 0, 1); }"


@pytest.mark.vulkan
def test_a_wrong_pixel_of_the_dxil_draw_is_a_deferred_dxil_bug(vk):
    """draw_twin draws again from the DXIL twins through dxil-spirv: the SPIR-V draw's pixels pass, a
    changed pixel is a DxilBug naming it."""
    vs, ps = R.build(R.FULLSCREEN_VS, "main", "vs_6_0"), R.build(PS_RED, "main", "ps_6_0")
    red = bytes([255, 0, 0, 255]) * 4
    R.take_deferred()
    dxil_run.draw_twin(vs, ps, "main", "main", {}, 2, 2, None, 3, [red], {})
    assert R.take_deferred() == []
    wrong = red[:4] + bytes([0, 255, 0, 255]) + red[8:]
    dxil_run.draw_twin(vs, ps, "main", "main", {}, 2, 2, None, 3, [wrong], {})
    bugs = R.take_deferred()
    assert len(bugs) == 1 and "pixel (1, 0)" in str(bugs[0])
