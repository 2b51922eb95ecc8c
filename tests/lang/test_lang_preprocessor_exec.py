"""The preprocessor seen through executed results: object/function/variadic macros, token
pasting, conditional compilation, command-line defines, and the predefined macros
(__HLSL_VERSION, __SHADER_TARGET_*, __spirv__ only for SPIR-V, __LINE__)."""

from __future__ import annotations

import pytest
from lang_util import SlotTable, case, run_backend, table_test

pytestmark = [pytest.mark.vulkan, pytest.mark.usefixtures("vk")]

PRELUDE = r"""
#define SEVEN 7
#define SQUARE(x) ((x) * (x))
#define NAIVE_SQUARE(x) x * x
#define ADD3(a, b, c) (a + b + c)
#define PASTE(a, b) a##b
#define FIRST(x, ...) (x)
#define COUNT_REST(x, ...) Count(__VA_ARGS__)
#define MULTI_LINE(a) \
    ((a) + \
     100)
#define NESTED(x) SQUARE(ADD3(x, 0, 0))
#define EMPTY
#define SELF SELF
int Count(int a, int b) { return 2; }
int Count(int a, int b, int c) { return 3; }
static const int value12 = 12;
#if defined(SEVEN) && SEVEN > 5
static const int IfDefined = 1;
#else
static const int IfDefined = 0;
#endif
#ifdef NOT_DEFINED_ANYWHERE
static const int Ifdef = 1;
#elif (1 << 4) == 16 && !defined(NOT_DEFINED_ANYWHERE)
static const int Ifdef = 2;
#else
static const int Ifdef = 3;
#endif
#ifndef SEVEN
static const int Ifndef = 1;
#else
static const int Ifndef = 0;
#endif
#define TEMP 5
static const int BeforeUndef = TEMP;
#undef TEMP
#ifdef TEMP
static const int AfterUndef = 1;
#else
static const int AfterUndef = 0;
#endif
#if 0
this is not HLSL and must be skipped
#endif
#pragma message("pragmas are accepted")
"""

SETUP = "    int one = In[0], two = In[1];\n"
MACROS = SlotTable("macros", "int", [
    case("object_macro", "SEVEN", 7),
    case("function_macro", "SQUARE(two + one)", 9),
    case("naive_macro_precedence", "NAIVE_SQUARE(two + one)", 2 + 1 * 2 + 1),
    case("three_args", "ADD3(one, two, SEVEN)", 10),
    case("token_paste_identifier", "PASTE(value, 12)", 12),
    case("token_paste_number", "PASTE(1, 5) + one", 16),
    case("variadic_first", "FIRST(SEVEN, one, two)", 7),
    case("variadic_rest", "COUNT_REST(0, one, two, SEVEN)", 3),
    case("multi_line_macro", "MULTI_LINE(one)", 101),
    case("nested_expansion", "NESTED(two)", 4),
    case("empty_macro", "EMPTY two EMPTY", 2),
    case("self_reference_stops", "int SELF = 3; R = SELF;", 3, stmt=True),
    case("if_defined_and_compare", "IfDefined", 1),
    case("elif_branch", "Ifdef", 2),
    case("ifndef", "Ifndef", 0),
    case("undef", "BeforeUndef * 10 + AfterUndef", 50),
    case("line_macro", "__LINE__ - __LINE__", 0),
    case("hlsl_version_2021", "__HLSL_VERSION", 2021),
    case("shader_target_stage_compute", "__SHADER_TARGET_STAGE", 5),
    case("shader_target_major_minor", "__SHADER_TARGET_MAJOR * 10 + __SHADER_TARGET_MINOR", 60),
    case("cmdline_define_value", "FROM_CMDLINE", 42),
    case("cmdline_define_empty_is_defined", "R = 0;\n#ifdef FLAG_ONLY\n        R = 1;\n#endif", 1, stmt=True),
    case("cmdline_define_expression", "SCALE_EXPR", 2 * 3 + 1),
    case("macro_in_directive_if", "R = 0;\n#if FROM_CMDLINE == 42\n        R = 5;\n#endif", 5, stmt=True),
], prelude=PRELUDE, setup=SETUP, inputs={"In": ("int", [1, 2])},
    defines={"FROM_CMDLINE": "42", "FLAG_ONLY": "", "SCALE_EXPR": "2*3+1"})

VERSION_2018 = SlotTable("hlsl_version_2018", "int", [
    case("hlsl_version_macro", "__HLSL_VERSION", 2018),
], hlsl_version=2018)

test_macros = table_test(MACROS)
test_hlsl_version_2018 = table_test(VERSION_2018)

SPIRV_MACRO = """
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
#ifdef __spirv__
    Out[0] = 1u;
#else
    Out[0] = 2u;
#endif
#if defined(__SHADERBUILD__)
    Out[1] = 3u;
#endif
}
"""


@pytest.mark.parametrize("backend, want", [("spirv", [1, 3]), ("dxil", [2, 3]), ("dxil-vk", [2, 3])])
def test_spirv_macro_only_for_spirv(backend, want):
    """DXC defines __spirv__ only when generating SPIR-V."""
    assert run_backend(backend, SPIRV_MACRO, {"Out": ("uint", 2)})["Out"] == want
