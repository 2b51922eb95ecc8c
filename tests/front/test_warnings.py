"""Warnings: each belongs to a group (shown as `[-WNAME]`, as DXC does), -Wno-NAME drops a group,
-WX makes the rest errors, and docs/WARNINGS.md lists every group.  The wording is DXC's where DXC
has the warning (its DiagnosticSemaKinds.td)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from shaderbuild.compiler import compile_file
from shaderbuild.diagnostics import WARNING_GROUPS, render_all
from shaderbuild.options import CompileOptions

REPO = Path(__file__).resolve().parents[2]

# one shader that triggers every warning the compiler has (line numbers below)
SHADER = """#define A 1
#define A 2
#pragma pack_matrix(sideways)
#undef A extra
RWStructuredBuffer<float> O : register(u0);
float g = 3;
void F(out float x) { if (O[0] > 0) x = 1; }
[numthreads(1, 1, 1)]
void main() {
    double d = O[0];
    float f = d;
    float2 t = float3(1, 2, 3);
    float2x2 m = float3x3(1, 2, 3, 4, 5, 6, 7, 8, 9);
    float a[2] = {1, 2};
    float i = 0.5;
    f += a[i];
    [loop] if (f > 0) f = 1;
    [branch] for (int k = 0; k < 2; k++) f += k;
    [forcecase] if (f > 2) f = 2;
    f + 1;
    float y;
    F(y);
    O[0] = f + t.x + g + y + m[0][0];
}
int S(int v) { switch (v) { case 4294967297: return 1; } return 0; }
technique T { pass P { } }
static const uint B = 1 << 40;
uint Shift(uint n) { return 1 << n; }
cbuffer PO { float po : packoffset(c0) : packoffset(c1); };
float4 PS(sample centroid float4 v : V) : SV_Target { float2 w = (1, 2); return v + w.x; }
float;
typedef struct { float z; };
/* a /* b */
"""

EXPECTED = [
    "t.hlsl:2:9: warning: 'A' macro redefined [-Wmacro-redefined]",
    "t.hlsl:3:9: warning: unknown pack_matrix pragma value (expected row_major or column_major); pragma ignored "
    "[-Wignored-pragmas]",
    "t.hlsl:4:10: warning: extra tokens at end of #undef directive [-Wextra-tokens]",
    "t.hlsl:33:6: warning: '/*' within block comment [-Wcomment]",
    "t.hlsl:26:1: warning: effect technique ignored - effect syntax is deprecated [-Weffects-syntax]",   # parser's
    "t.hlsl:29:42: warning: packoffset is overridden by another packoffset annotation [-Wpackoffset-override]",
    "t.hlsl:30:18: warning: 'centroid' will be overridden by 'sample' [-Wspecifier-override]",
    "t.hlsl:30:67: warning: comma expression used where a constructor list may have been intended "
    "[-Wcomma-in-init]",
    "t.hlsl:31:1: warning: declaration does not declare anything [-Wmissing-declarations]",
    "t.hlsl:32:1: warning: typedef requires a name [-Wmissing-declarations]",
    "t.hlsl:6:11: warning: the initializer of uniform global 'g' is ignored; declare it 'static const' for a "
    "compile-time constant [-Wignored-attributes]",
    "t.hlsl:7:18: warning: 'out' parameter 'x' is not assigned on every path through 'F'; the caller receives "
    "zero there [-Wuninitialized]",
    "t.hlsl:11:15: warning: conversion from larger type 'double' to smaller type 'float', possible loss of data "
    "[-Wconversion]",
    "t.hlsl:12:16: warning: implicit truncation of vector type [-Wconversion]",
    "t.hlsl:13:18: warning: implicit truncation of matrix type [-Wconversion]",
    "t.hlsl:16:12: warning: array index is a floating-point value; it is truncated [-Wconversion]",
    "t.hlsl:17:6: warning: attribute 'loop' can only be applied to 'for', 'while' and 'do' loop statements "
    "[-Wattribute-statement]",
    "t.hlsl:18:6: warning: attribute 'branch' can only be applied to 'if' and 'switch' statements "
    "[-Wattribute-statement]",
    "t.hlsl:19:6: warning: attribute 'forcecase' can only be applied to 'switch' statements [-Wattribute-statement]",
    "t.hlsl:20:7: warning: expression result unused [-Wunused-value]",
    "t.hlsl:25:29: warning: overflow converting case value to switch condition type (4294967297 to 1) [-Wswitch]",
    "t.hlsl:27:25: warning: implicit conversion from 'literal int' to 'uint' changes value from 1099511627776 to 0 "
    "[-Wconstant-conversion]",
    "t.hlsl:28:31: warning: ambiguous type for bit shift; use a type suffix on literal values, like 'L' or 'U', or "
    "a cast [-Wambig-lit-shift]",
]


def _compile(source: str, profile: str = "cs_6_0", **opts):
    return compile_file("t.hlsl", CompileOptions(entry="main", profile=profile, target="spirv", **opts), text=source)


def _headers(res) -> list[str]:
    return [d.render(res.sources).splitlines()[0] for d in res.diagnostics]


# warnings off by default (clang's DefaultIgnore ones): only with -Wall or -W<group>
QUIET = """RWStructuredBuffer<float> O : register(u0);
[numthreads(1, 1, 1)]
void main() {
    float a;
    float b;
    float never;
    float2 v;
    v.x = 1;
    b = 2;
    O[0] = a + b + v.y;
    O[1] = a;
}
"""
QUIET_WARNINGS = [
    "t.hlsl:10:12: warning: variable 'a' is uninitialized when used here [-Wuninitialized]",
    "t.hlsl:6:11: warning: unused variable 'never' [-Wunused-variable]",
]


# warnings of forms only older language versions accept
HV2016 = ("RWStructuredBuffer<uint> O;\n[numthreads(2.0, 1, 1)]\nvoid main() { float a[3]; O[0] = a.Length;\n"
          "    for (int k = 0; k < 2; k++) {} for (int k = 0; k < 3; k++) {} O[1] = k; }\n")
HV2016_WARNINGS = ["t.hlsl:3:36: warning: Length is deprecated [-Wdeprecated-declarations]",
                   "t.hlsl:4:45: warning: redefinition of 'k' shadows declaration in the outer scope; most recent "
                   "declaration will be used [-Wfor-redefinition]",
                   "t.hlsl:2:13: warning: attribute numthreads must have a uint literal argument [-Wattribute-type]"]


# warnings only a vertex shader gets
VS = "float4 main(float4 p : P) : POSITION { return p; }\n"
VS_WARNINGS = ["t.hlsl:1:8: warning: 'POSITION' is a user-defined semantic; did you mean 'SV_Position'? "
               "[-Wdx9-deprecation]"]

# warnings of HLSL 202x only
HV202X = "RWStructuredBuffer<uint64_t> O;\n[numthreads(1, 1, 1)]\nvoid main() { O[0] = 18446744073709551615; }\n"
HV202X_WARNINGS = ["t.hlsl:3:22: warning: integer literal is too large to be represented in a signed integer type, "
                   "interpreting as unsigned [-Wimplicitly-unsigned-literal]"]

# the preprocessor's warnings of clang that DXC keeps (a file of its own: the main one's lines stay)
PP = ("#pragma once\n#define __LINE__ 3\n#pragma message(\"note this\")\n#if -1 < 0u\n#endif\n#line 010\n"
      "RWStructuredBuffer<uint> O;\n[numthreads(1, 1, 1)]\nvoid main() { O[0] = 1e-400 == 0; O[1] = '\\q'; }\n"
      "[spin] void g(int i) { if (i); if (i) if (i) O[2] = 1; else O[2] = 2; }\n"
      "void h(int i) { if (i = 2) O[3] = i && 1 || i; switch (i > 0) { default: break; } }\n")
PP_WARNINGS = ["t.hlsl:1:9: warning: #pragma once in main file [-Wpragma-once-outside-header]",
               "t.hlsl:2:9: warning: redefining builtin macro [-Wbuiltin-macro-redefined]",
               "t.hlsl:3:9: warning: note this [-W#pragma-messages]",
               "t.hlsl:4:8: warning: left side of operator converted from negative value to unsigned: -1 to "
               "18446744073709551615 [-Wpreprocessor-arithmetic]",
               "t.hlsl:6:7: warning: #line directive interprets number as decimal, not octal [-Wline-decimal]",
               "t.hlsl:12:43: warning: unknown escape sequence '\\q' [-Wunknown-escape-sequence]",    # the parser's
               "t.hlsl:13:2: warning: unknown attribute 'spin' ignored [-Wunknown-attributes]",
               "t.hlsl:13:30: warning: if statement has empty body [-Wempty-body]",
               "t.hlsl:13:56: warning: add explicit braces to avoid dangling else [-Wdangling-else]",
               "t.hlsl:14:23: warning: using the result of an assignment as a condition without parentheses "
               "[-Wparentheses]",
               "t.hlsl:14:37: warning: '&&' within '||' [-Wlogical-op-parentheses]",
               "t.hlsl:12:22: warning: magnitude of floating-point constant too small for type 'literal float'; "
               "minimum is 4.9406564584124654E-324 [-Wliteral-range]",
               "t.hlsl:14:48: warning: switch condition has boolean value [-Wswitch-bool]"]


def test_every_warning_has_its_group():
    res = _compile(SHADER)
    assert res.ok
    assert _headers(res) == EXPECTED
    old = _compile(HV2016, hlsl_version=2016)
    assert old.ok and _headers(old) == HV2016_WARNINGS
    vs = compile_file("t.hlsl", CompileOptions(entry="main", profile="vs_6_0", target="spirv"), text=VS)
    assert vs.ok and _headers(vs) == VS_WARNINGS
    new = _compile(HV202X, hlsl_version=2029, profile="cs_6_2")
    assert new.ok and _headers(new) == HV202X_WARNINGS
    pp = _compile(PP)
    assert pp.ok and _headers(pp) == PP_WARNINGS
    shown = {re.search(r"\[-W([#a-z0-9-]+)\]$", h).group(1)
             for h in EXPECTED + QUIET_WARNINGS + HV2016_WARNINGS + VS_WARNINGS + HV202X_WARNINGS + PP_WARNINGS}
    assert shown == set(WARNING_GROUPS)        # the shaders cover every group


@pytest.mark.parametrize("enabled, shown", [
    ([], []), (["all"], QUIET_WARNINGS), (["uninitialized"], QUIET_WARNINGS[:1]),
    (["unused-variable"], QUIET_WARNINGS[1:]), (["conversion"], []),
])
def test_default_off_warnings(enabled, shown):
    res = _compile(QUIET, enabled_warnings=enabled)
    assert res.ok
    assert _headers(res) == shown


def test_wall_with_wx_and_wno():
    res = _compile(QUIET, enabled_warnings=["all"], disabled_warnings=["unused-variable"], warnings_as_errors=True)
    assert not res.ok
    assert [(d.severity, d.message) for d in res.diagnostics] == [
        ("error", "variable 'a' is uninitialized when used here [-WX]")]


@pytest.mark.parametrize("group", sorted(WARNING_GROUPS))
def test_wno_drops_exactly_one_group(group):
    res = _compile(SHADER, disabled_warnings=[group])
    assert res.ok
    assert _headers(res) == [h for h in EXPECTED if not h.endswith(f"[-W{group}]")]


def test_wx_makes_every_warning_an_error():
    res = _compile(SHADER, warnings_as_errors=True, error_limit=0)
    assert not res.ok and res.binary is None
    assert [d.severity for d in res.diagnostics] == ["error"] * len(EXPECTED)
    assert all(d.message.endswith("[-WX]") for d in res.diagnostics)


def test_docs_list_every_group():
    text = (REPO / "docs" / "WARNINGS.md").read_text()
    listed = set(re.findall(r"^\| `([#a-z0-9-]+)` \|", text, re.M))
    assert listed == set(WARNING_GROUPS)


NARROWING = "conversion from larger type"


@pytest.mark.parametrize("code, warns", [
    ("double d = O[0]; float f = d;", True),
    ("int64_t b = (int64_t)O[0]; int i = b;", True),
    ("double2 d = O[0]; float2 f = d;", True),
    ("double d = O[0]; float f = (float)d;", False),      # explicit
    ("float f = 1.5;", False),                            # a literal
    ("float f = 1.5l;", False),                           # a double constant that fits
    ("int i = 7ll;", False),                              # an int64 constant that fits
    ("int i = 5000000000ll;", True),                      # one that does not
    ("float f = O[0]; double d = f;", False),             # widening
])
def test_narrowing_warning(code, warns):
    src = ("RWStructuredBuffer<float> O : register(u0);\n[numthreads(1, 1, 1)]\nvoid main() {\n    "
           + code + "\n    O[1] = 0;\n}\n")
    res = _compile(src)
    assert res.ok, [d.message for d in res.diagnostics]
    assert any(d.message.startswith(NARROWING) for d in res.diagnostics) == warns


@pytest.mark.parametrize("code, warns", [
    ("x + 1;", True), ("x;", True), ("-x;", True), ("v.x;", True),
    ("x++;", False), ("x = 1;", False), ("f(x);", False), ("x + f(x);", False),
])
def test_unused_value_warning(code, warns):
    src = ("RWStructuredBuffer<float> O : register(u0);\nfloat f(float a) { return a; }\n[numthreads(1, 1, 1)]\n"
           "void main() {\n    float x = O[0];\n    float2 v = x;\n    " + code + "\n    O[1] = x;\n}\n")
    res = _compile(src)
    assert res.ok, [d.message for d in res.diagnostics]
    assert ["expression result unused" in d.message for d in res.diagnostics] == ([True] if warns else [])


def test_json_names_each_warnings_option():
    rows = [json.loads(line) for line in render_all(_compile(SHADER).diagnostics, None, "json").splitlines()]
    assert [r["option"] for r in rows] == [re.search(r"\[(-W[a-z-]+)\]$", h).group(1) for h in EXPECTED]
    assert all(r["severity"] == "warning" for r in rows)
