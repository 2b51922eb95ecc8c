"""Diagnostic sites the rest of the suite did not reach (tests/error_sites.py; the ones no user program can
reach are classified in tests/error_sites_classes.tsv or deleted): each program here reaches one, and gets
exactly one error at the offending token, on both targets (issue 20's bar).

A `$` marks where the error must point; line:col come from the marker's place in the text, never from the
compiler.  Programs are our own."""

from __future__ import annotations

import pytest

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

PS = "float4 main() : SV_Target { return 1; }\n"
PB = "float4 main() : SV_Target {\n"       # a body from line 2
OUT = "void f(out float v) { v = 1; }\n"

# name -> (source with one `$`, profile, message)
CASES: dict[str, tuple[str, str, str]] = {
    # out arguments (front/sema/calls.py check_writable)
    "out_arg_duplicate_swizzle": ("void f(out float2 v) { v = 1; }\n" + PB + " float4 x = 0; f(x.$xx); return x; }\n",
                                  "ps_6_0", "vector swizzle 'xx' has duplicate components and cannot be assigned"),
    "out_arg_duplicate_matrix_swizzle": ("void f(out float2 v) { v = 1; }\n" + PB
                                         + " float2x2 m = 0; f(m.$_m00_m00); return m[0].xyxy; }\n", "ps_6_0",
                                         "a matrix swizzle with duplicate components cannot be assigned"),
    "out_arg_const_local": (OUT + PB + " const float c = 1; f($c); return c; }\n", "ps_6_0",
                            "cannot assign to const-qualified variable 'c'"),
    # a global is a member of $Globals: it used to be "cannot assign to const-qualified variable '$Globals'"
    "out_arg_global": ("float g;\n" + OUT + PB + " f($g); return g; }\n", "ps_6_0",
                       "cannot assign to constant buffer member 'g'"),
    "out_arg_cbuffer_member": ("cbuffer CB { float4 g; };\n" + OUT + PB + " f(g.$x); return g; }\n", "ps_6_0",
                               "cannot assign to constant buffer member 'g'"),
    "out_arg_read_only_buffer": ("StructuredBuffer<float> b;\n" + OUT + PB + " f(b$[0]); return 1; }\n", "ps_6_0",
                                 "cannot assign to an element of read-only resource type 'StructuredBuffer<float>'"),
    # calls and intrinsics (front/sema/calls.py)
    "call_of_an_array_element": ("float a[2];\n" + PB + " return a$[0](2); }\n", "ps_6_0",
                                 "called object is not a function"),
    "construct_a_texture": ("Texture2D t;\n" + PB + " return $Texture2D(1).Load(0); }\n", "ps_6_0",
                            "cannot construct a value of type 'Texture2D<float4>'"),
    "no_static_member_function": ("template<typename T> struct S { T x; };\n" + PB + " return $S<float>::f(1); }\n",
                                  "ps_6_0", "no static member function 'S<float>::f'"),
    "transpose_of_a_vector": (PB + " return $transpose(float4(1, 2, 3, 4)); }\n", "ps_6_0",
                              "transpose requires a matrix argument"),
    "determinant_of_a_vector": (PB + " return $determinant(float4(1, 2, 3, 4)); }\n", "ps_6_0",
                                "determinant requires a square matrix argument"),
    "fma_of_floats": (PB + " return $fma(1.0f, 2.0f, 3.0f); }\n", "ps_6_0", "fma requires double arguments"),
    "printf_of_a_float": (PB + " float s = 1; printf($s); return 1; }\n", "ps_6_0",
                          "the first argument of 'printf' must be a string literal or a global string"),
    "printf_of_a_struct": ("struct S { float a; };\n" + PB + ' S s = (S)0; printf("%f", $s); return 1; }\n', "ps_6_0",
                           "a 'printf' argument must be a scalar or vector, not 'S'"),
}

# Vulkan-only rules: DXIL ignores them, and the program compiles there (checked below)
SPIRV_ONLY: set[str] = set()
# rules of the DXIL backend: the program compiles for SPIR-V (checked below)
DXIL_ONLY: set[str] = set()


def _marked(src: str) -> tuple[str, int, int]:
    """The source without its `$`, and the marker's 1-based line and column."""
    i = src.index("$")
    before = src[:i]
    return src[:i] + src[i + 1:], before.count("\n") + 1, i - before.rfind("\n")


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_one_located_error(name: str, target: str) -> None:
    src, profile, message = CASES[name]
    text, line, col = _marked(src)
    res = compile_file("t.hlsl", CompileOptions(entry="main", profile=profile, target=target), text=text)
    if (target == "dxil" and name in SPIRV_ONLY) or (target == "spirv" and name in DXIL_ONLY):
        assert res.ok, res.diagnostics
        return
    assert res.ok is False and res.binary is None
    assert [f"{d.loc}: {d.message}" for d in res.diagnostics if d.severity == "error"] == [
        f"t.hlsl:{line}:{col}: {message}"]
