"""Every error is reported, not only the first: the parser resynchronises at declaration and
statement boundaries, sema goes on with the next statement/declaration, and a failed declaration
turns into an error symbol so its uses add nothing (one mistake, one error).  Each case asserts
the exact list of `file:line:col: error: text` headers, in source order.  Then -ferror-limit and
the CLI (exit 1, nothing written, every error printed, JSON lines too)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from shaderbuild.compiler import compile_file
from shaderbuild.diagnostics import TOO_MANY_ERRORS
from shaderbuild.options import CompileOptions

HEAD = "RWStructuredBuffer<float> Out : register(u0);\n"          # line 1
CS = "[numthreads(1, 1, 1)]\nvoid main() {\n"                      # the body starts two lines later


def _errors(source: str, **opts) -> list[str]:
    options = CompileOptions(entry="main", profile="cs_6_0", target="spirv", **opts)
    res = compile_file("t.hlsl", options, text=source)
    assert res.ok is False and res.binary is None and res.manifest is None
    return [f"{d.loc}: {d.severity}: {d.message}" if d.loc else f"{d.severity}: {d.message}"
            for d in res.diagnostics if d.severity != "warning"]


# name -> (source, the exact error list)
CASES = {
    # ---- parser: statements in a block
    "statement_missing_semicolon_at_line_end": (
        HEAD + CS + "    float a = 1\n    float b = 2;\n    Out[0] = a b;\n    Out[1] = b +;\n}\n",
        ["t.hlsl:5:5: error: expected ';' after declaration, found 'float'",
         "t.hlsl:6:16: error: expected ';' after expression, found 'b'",
         "t.hlsl:7:17: error: expected an expression, found ';'"]),
    "statement_error_inside_parentheses_skips_the_whole_for": (
        HEAD + CS + "    for (int i = 0; i < 3 i++) { Out[i] = i; }\n    Out[0] = ;\n}\n",
        ["t.hlsl:4:27: error: expected ';', found 'i'",
         "t.hlsl:5:14: error: expected an expression, found ';'"]),
    "statement_in_nested_block_and_after_it": (
        HEAD + CS + "    if (true) { Out[0] = 1 +; Out[1] = 2; }\n    Out[2] = (1;\n}\n",
        ["t.hlsl:4:29: error: expected an expression, found ';'",
         "t.hlsl:5:16: error: expected ')' to close the parenthesis, found ';'"]),
    "statement_in_switch_section": (
        HEAD + CS + "    switch (1) {\n    case 0: Out[0] = *; break;\n    default: Out[1] = 1 1; break;\n    }\n}\n",
        ["t.hlsl:5:22: error: expected an expression, found '*'",
         "t.hlsl:6:25: error: expected ';' after expression, found '1'"]),
    # ---- parser: declarations
    "top_level_declarations": (
        HEAD + "float f(float x) { return x +; }\nstatic float g = ;\n" + CS + "    Out[0] = 1\n}\n",
        ["t.hlsl:2:30: error: expected an expression, found ';'",
         "t.hlsl:3:18: error: expected an expression, found ';'",
         "t.hlsl:7:1: error: expected ';' after expression, found '}'"]),
    "cbuffer_member": (
        "cbuffer C { float a = ; float4 b; float c c; };\n" + HEAD + CS + "    Out[0] = 1;\n}\n",
        ["t.hlsl:1:23: error: expected an expression, found ';'",
         "t.hlsl:1:43: error: expected ';' after declaration, found 'c'"]),
    "stray_closing_brace_at_top_level": (
        HEAD + "}\nstatic int k = ;\n" + CS + "    Out[0] = 1;\n}\n",
        ["t.hlsl:2:1: error: expected a type, found '}'",
         "t.hlsl:3:16: error: expected an expression, found ';'"]),
    "unclosed_block_at_end_of_file": (
        HEAD + CS + "    Out[0] = 1 +;\n",
        ["t.hlsl:4:17: error: expected an expression, found ';'",
         "t.hlsl:3:13: error: expected '}' to close the block opened here"]),
    # ---- sema: statements and functions
    "sema_statements_in_one_function": (
        HEAD + "struct S { float a; };\n" + CS
        + "    S s = (S)0;\n    float4 v = s;\n    Out[0] = v.x + zzz;\n    Out[1] = nope(1);\n}\n",
        ["t.hlsl:6:16: error: cannot convert from 'S' to 'float4'",
         "t.hlsl:7:20: error: use of undeclared identifier 'zzz'",
         "t.hlsl:8:14: error: use of undeclared identifier 'nope'"]),
    "sema_errors_in_several_functions": (
        HEAD + "float f() { return y1; }\nfloat g() { return y2; }\n" + CS + "    Out[0] = f() + g() + y3;\n}\n",
        ["t.hlsl:2:20: error: use of undeclared identifier 'y1'",
         "t.hlsl:3:20: error: use of undeclared identifier 'y2'",
         "t.hlsl:6:26: error: use of undeclared identifier 'y3'"]),
    # as clang/DXC: each use of an undeclared name is its own error
    "undeclared_variable_used_three_times": (
        HEAD + CS + "    Out[0] = q;\n    Out[1] = q;\n    Out[2] = q;\n}\n",
        ["t.hlsl:4:14: error: use of undeclared identifier 'q'",
         "t.hlsl:5:14: error: use of undeclared identifier 'q'",
         "t.hlsl:6:14: error: use of undeclared identifier 'q'"]),
    # ---- no cascades: a failed declaration, then uses of it
    "bad_local_declaration_then_uses": (
        HEAD + CS + "    vector<float, 7> v = 0;\n    Out[0] = v.x;\n    Out[1] = v.y + v.z;\n}\n",
        ["t.hlsl:4:5: error: vector size must be between 1 and 4"]),
    "bad_global_declaration_then_uses": (
        HEAD + "static vector<int, 9> G;\n" + CS + "    Out[0] = G.x;\n    Out[1] = G.y;\n}\n",
        ["t.hlsl:2:8: error: vector size must be between 1 and 4"]),
    "bad_struct_then_uses_of_the_type": (
        HEAD + "struct S { float a; float a; };\nS make() { S s = (S)0; return s; }\n" + CS
        + "    S s = make();\n    Out[0] = s.a;\n}\n",
        ["t.hlsl:2:27: error: duplicate member 'a'"]),
    "bad_function_signature_then_calls": (
        HEAD + "float f(vector<float, 8> x) { return x.x; }\n" + CS + "    Out[0] = f(1);\n    Out[1] = f(2);\n}\n",
        ["t.hlsl:2:9: error: vector size must be between 1 and 4"]),
    "bad_initializer_keeps_the_variable": (
        HEAD + CS + "    float a = qqqq;\n    Out[0] = a;\n    Out[1] = a + other;\n}\n",
        ["t.hlsl:4:15: error: use of undeclared identifier 'qqqq'",
         "t.hlsl:6:18: error: use of undeclared identifier 'other'"]),
    "failed_return_adds_no_missing_return_error": (
        HEAD + "float f() { return nothing; }\n" + CS + "    Out[0] = f();\n}\n",
        ["t.hlsl:2:20: error: use of undeclared identifier 'nothing'"]),
    "bad_global_used_in_a_return_adds_no_missing_return_error": (
        HEAD + "static vector<float, 6> G;\nfloat f() { return G.x; }\n" + CS + "    Out[0] = f();\n}\n",
        ["t.hlsl:2:8: error: vector size must be between 1 and 4"]),
    "bad_cbuffer_member_then_uses": (
        "cbuffer C { vector<float, 5> Far; float Near; };\n" + HEAD + CS + "    Out[0] = Far.x + Near;\n}\n",
        ["t.hlsl:1:13: error: vector size must be between 1 and 4"]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_error_is_reported_once(name):
    source, expected = CASES[name]
    assert _errors(source) == expected


def _many(n: int) -> str:
    return HEAD + CS + "".join(f"    Out[{i}] = u{i};\n" for i in range(n)) + "}\n"


def test_error_limit_default_is_20_then_clangs_fatal_error():
    got = _errors(_many(25))
    assert got[:20] == [f"t.hlsl:{4 + i}:{14 + (i >= 10)}: error: use of undeclared identifier 'u{i}'" for i in range(20)]
    assert got[20:] == [f"fatal error: {TOO_MANY_ERRORS}"]
    assert TOO_MANY_ERRORS == "too many errors emitted, stopping now [-ferror-limit=]"


@pytest.mark.parametrize("limit, shown", [(0, 25), (3, 3), (25, 25), (24, 24)])
def test_error_limit_option(limit, shown):
    got = _errors(_many(25), error_limit=limit)
    assert len([g for g in got if ": error: " in g]) == shown
    assert (got[-1] == f"fatal error: {TOO_MANY_ERRORS}") == (shown < 25)


def test_warnings_made_errors_count_toward_the_limit():
    src = HEAD + CS + "    float f = 0;\n" + "".join(f"    f = float4({k}, 1, 2, 3);\n" for k in range(4)) + "    Out[0] = f;\n}\n"
    got = _errors(src, warnings_as_errors=True, error_limit=2)
    assert len(got) == 3 and all("[-WX]" in g for g in got[:2]) and got[2] == f"fatal error: {TOO_MANY_ERRORS}"


def _cli(tmp_path: Path, source: str, *extra: str) -> subprocess.CompletedProcess:
    (tmp_path / "shader.hlsl").write_text(source)
    cmd = [sys.executable, "-m", "shaderbuild", "compile", "shader.hlsl", "-T", "cs_6_0", "-E", "main",
           "--target", "spirv", "-o", "out.spv", "--manifest", "out.json", *extra]
    return subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=120)


def test_cli_prints_every_error_writes_nothing(tmp_path):
    source, expected = CASES["sema_statements_in_one_function"]
    proc = _cli(tmp_path, source)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    headers = [ln for ln in proc.stderr.splitlines() if ln.startswith("shader.hlsl:")]
    assert headers == [e.replace("t.hlsl", "shader.hlsl") for e in expected]
    assert not (tmp_path / "out.spv").exists() and not (tmp_path / "out.json").exists()


def test_cli_error_limit_and_json(tmp_path):
    proc = _cli(tmp_path, _many(5), "-ferror-limit=2", "--diagnostics-format", "json")
    assert proc.returncode == 1
    rows = [json.loads(ln) for ln in proc.stderr.splitlines() if ln.startswith("{")]
    assert [(r["severity"], r.get("line")) for r in rows] == [("error", 4), ("error", 5), ("fatal error", None)]
    proc = _cli(tmp_path, _many(5), "-ferror-limit", "0")
    assert len([ln for ln in proc.stderr.splitlines() if ": error: " in ln]) == 5
