"""Every example of seed 000 (HLSL function calls: in/out/inout copy-in/copy-out through
temporaries, conversions both ways, arrays by value, unsized->sized array error, uninitialised
out write-back), executed with the result the seed states.  The seed's pixel-shader example is
also compiled as written and drawn on lavapipe."""

from __future__ import annotations

import re
import struct

import pytest
from lang_util import SlotTable, case, compile_cs, diagnostics_text, run_cs, table_test

pytestmark = [pytest.mark.vulkan, pytest.mark.usefixtures("vk")]

SETUP = "    int one = In[0];\n"
IN = {"In": ("int", [1])}

SEED_CASES = [
    # "Array Temporaries": fn modifies its copy; arr stays {1, 1, 1, 1} (C would give arr[0] == 3)
    case("array_temporary_unchanged",
         "float arr[4] = {1, 1, 1, 1}; fn(arr); R = float4(arr[0], arr[1], arr[2], arr[3]);", (1.0, 1.0, 1.0, 1.0),
         stmt=True, prelude="void fn(float a[4]) { a[0] = a[1] + a[2] + a[3]; }\n"),
    # "Out Parameter Temporaries": Init(V, V): write-backs in reverse order, X last -> V == 1 (Clang's result)
    case("init_v_v_is_1", "int V; Init(V, V); R = float4(V, 0, 0, 0);", (1.0, 0.0, 0.0, 0.0), stmt=True,
         prelude="void Init(inout int X, inout int Y) { Y = 2; X = 1; }\n"),
    # Trunc(F): float3 -> int3 temporary -> float3 write-back truncates even though Trunc is empty
    case("trunc_truncates", "float3 F = {1.5, 2.6, 3.3}; Trunc(F); R = float4(F, 0);", (1.0, 2.0, 3.0, 0.0),
         stmt=True, prelude="void Trunc(inout int3 V) { }\n"),
    # single-sub-expression form: same type, no cast
    case("init_same_type", "int V; Init1(V); R = float4(V, 0, 0, 0);", (1.0, 0.0, 0.0, 0.0), stmt=True,
         prelude="void Init1(inout int X) { X = 1; }\n"),
    # SizedArray(arr) and UnsizedArray(arr) both accept a float[4] argument
    case("sized_and_unsized_params",
         "float arr[4] = {1, 1, 1, 1}; R = float4(SizedArray(arr), UnsizedArray(arr), arr[0], arr[3]);",
         (4.0, 1.0, 1.0, 1.0), stmt=True,
         prelude="float SizedArray(float a[4]) { a[3] = 9; return a[0] + a[1] + a[2] + a[3] - 8; }\n"
                 "float UnsizedArray(float a[]) { a[0] = 5; return a[1]; }\n"),
    # sized -> unsized through a call chain is legal
    case("sized_to_unsized_chain", "float arr[4] = {2, 3, 4, 5}; R = float4(Outer4(arr), arr[0], 0, 0);",
         (3.0, 2.0, 0.0, 0.0), stmt=True,
         prelude="float Unsized2(float a[]) { return a[1]; }\nfloat Outer4(float a[4]) { return Unsized2(a); }\n"),
]
PARAM_FORMS = [
    # the six parameter annotations of the seed
    case("no_annotation_is_input", "float x = 3; R = float4(NoAnn(x), x, 0, 0);", (6.0, 3.0, 0.0, 0.0), stmt=True,
         prelude="float NoAnn(float v) { v *= 2; return v; }\n"),
    case("in_is_input", "float x = 3; R = float4(InAnn(x), x, 0, 0);", (6.0, 3.0, 0.0, 0.0), stmt=True,
         prelude="float InAnn(in float v) { v *= 2; return v; }\n"),
    case("out_is_output", "float x = 3; OutAnn(x); R = float4(x, 0, 0, 0);", (7.0, 0.0, 0.0, 0.0), stmt=True,
         prelude="void OutAnn(out float v) { v = 7; }\n"),
    case("in_out_is_inout", "float x = 3; InOutAnn(x); R = float4(x, 0, 0, 0);", (6.0, 0.0, 0.0, 0.0), stmt=True,
         prelude="void InOutAnn(in out float v) { v *= 2; }\n"),
    case("out_in_is_inout", "float x = 3; OutInAnn(x); R = float4(x, 0, 0, 0);", (9.0, 0.0, 0.0, 0.0), stmt=True,
         prelude="void OutInAnn(out in float v) { v *= 3; }\n"),
    case("inout_is_inout", "float x = 3; InoutAnn(x); R = float4(x, 0, 0, 0);", (4.0, 0.0, 0.0, 0.0), stmt=True,
         prelude="void InoutAnn(inout float v) { v += 1; }\n"),
    # inout temporary initialised through the conversion float -> int, written back int -> float
    case("inout_converts_both_ways", "float f = 2.75; AddOne(f); R = float4(f, 0, 0, 0);", (3.0, 0.0, 0.0, 0.0),
         stmt=True, prelude="void AddOne(inout int v) { v += 1; }\n"),
    # out of a narrower type: int written back into a float variable
    case("out_converts_back", "float f = 0.5; SetInt(f); R = float4(f, 0, 0, 0);", (-4.0, 0.0, 0.0, 0.0),
         stmt=True, prelude="void SetInt(out int v) { v = -4; }\n"),
    # the callee sees its own copy: writes to the inout temporary are not visible through the argument
    case("inout_is_not_by_reference", "float g = 1; Alias(g, g); R = float4(g, 0, 0, 0);", (10.0, 0.0, 0.0, 0.0),
         stmt=True, prelude="void Alias(inout float a, in float b) { a = 10; a += b * 0; }\n"),
    case("inout_no_alias_during_call", "float g = 1; R = float4(ReadBoth(g, g), g, 0, 0);", (1.0, 5.0, 0.0, 0.0),
         stmt=True, prelude="float ReadBoth(inout float a, inout float b) { a = 5; return b; }\n"),
]
SEED = SlotTable("seed000", "float4", SEED_CASES + PARAM_FORMS, setup=SETUP, inputs=IN)
test_seed000 = table_test(SEED)

UB_SHADER = """
RWStructuredBuffer<int> Out : register(u0);
void UB(out int X) {}
[numthreads(1, 1, 1)]
void main() {
    int X = 7;
    UB(X);
    Out[0] = X;
}
"""


def test_uninitialised_out_warns():
    """Seed: `UB(X)` writes an undefined value back; DESIGN.md asks for a warning (and no undef)."""
    res = compile_cs(UB_SHADER, "spirv")
    assert res.ok, diagnostics_text(res)
    assert [d.render(res.sources).splitlines()[0] for d in res.diagnostics] == [
        "lang_test.hlsl:3:17: warning: 'out' parameter 'X' is not assigned on every path through 'UB'; "
        "the caller receives zero there [-Wuninitialized]"]


_STORED_UNDEF = re.compile(r"@dx\.op\.bufferStore\.\w+\(i32 69, %dx\.types\.Handle %\w+, i32 [^,]+, i32 [^,]+, \w+ undef")


def test_uninitialised_out_is_zero_not_undef():
    """The write-back of an unassigned out parameter stores the documented zero on both backends;
    DXIL with a used undef would fail validation."""
    from harness import dxil_tools
    res = compile_cs(UB_SHADER, "dxil")
    assert res.ok, diagnostics_text(res)
    assert not _STORED_UNDEF.search(dxil_tools.check_dxil(res.binary).ir)
    assert run_cs(UB_SHADER, {"Out": ("int", 1)})["Out"] == [0]


UNSIZED_TO_SIZED = """
RWStructuredBuffer<float> Out : register(u0);
void SizedArray(float a[4]) { }
void UnsizedArray(float a[]) {
  SizedArray(a);
}
[numthreads(1, 1, 1)]
void main() { float arr[4] = {1, 1, 1, 1}; UnsizedArray(arr); Out[0] = arr[0]; }
"""


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_unsized_to_sized_is_an_error(target):
    """Seed: 'Cannot convert float[] to float[4]'."""
    res = compile_cs(UNSIZED_TO_SIZED, target)
    assert not res.ok
    first = res.diagnostics[0]
    assert first.severity == "error"
    assert first.render(res.sources).splitlines()[0] == \
        "lang_test.hlsl:5:14: error: cannot convert 'float[]' to 'float[4]'"


SEED_PS = """
void fn(float a[4]) {
  a[0] = a[1] + a[2] + a[3];
}

float4 main() : SV_Target {
  float arr[4] = {1, 1, 1, 1};
  fn(arr);
  return float4(arr[0], arr[1], arr[2], arr[3]);
}
"""
FULLSCREEN_VS = """
float4 main(uint id : SV_VertexID) : SV_Position {
    float2 uv = float2((id << 1) & 2, id & 2);
    return float4(uv * 2.0 - 1.0, 0.0, 1.0);
}
"""


def test_seed_pixel_shader_draws_ones(vk):
    """The seed's own pixel shader, unchanged: every pixel is float4(1, 1, 1, 1) -> RGBA8 255."""
    from harness import tools
    ps = compile_cs(SEED_PS, "spirv", profile="ps_6_0")
    vs = compile_cs(FULLSCREEN_VS, "spirv", profile="vs_6_0")
    assert ps.ok, diagnostics_text(ps)
    assert vs.ok, diagnostics_text(vs)
    tools.spirv_val(ps.binary)
    tools.spirv_val(vs.binary)
    pixels = vk.run_graphics(vs.binary, "main", ps.binary, "main", 4, 4)
    assert set(struct.unpack(f"<{len(pixels)}B", pixels)) == {255}


def test_seed_pixel_shader_dxil_checks():
    from harness import dxil_tools
    res = compile_cs(SEED_PS, "dxil", profile="ps_6_0")
    assert res.ok, diagnostics_text(res)
    dxil_tools.check_dxil(res.binary)


INIT_BUFFER = """
RWStructuredBuffer<int> Out : register(u0);
void Init(inout int X, inout int Y) { Y = 2; X = 1; }
void Swap(inout int A, inout int B) { int t = A; A = B; B = t; }
[numthreads(1, 1, 1)]
void main() {
    Init(Out[0], Out[0]);   // buffer element as the aliased argument: X written back last
    Swap(Out[1], Out[2]);
    int i = Out[3];         // 0: index evaluated once, element 0..
    Init(Out[4 + i], Out[5 + i]);
}
"""


def test_out_params_on_buffer_elements():
    got = run_cs(INIT_BUFFER, {"Out": ("int", [0, 10, 20, 0, 0, 0])})["Out"]
    assert got == [1, 20, 10, 0, 1, 2]
