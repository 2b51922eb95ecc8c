"""Regression tests for the crashes, internal errors and bad diagnostics the fuzzers found.

Each case is the minimised reproducer of one finding (tests/fuzz, docs/RELIABILITY.md).  The
property is the fuzz property: the compile succeeds with a valid binary, or fails with
located error diagnostics.  Cases still open carry `xfail(strict=True)` with the component
and the bug; when the fix lands the strict xfail turns into a failure and the mark goes.
"""

from __future__ import annotations

import pytest
from fuzz.worker import compile_one

TARGETS = ("spirv", "dxil")
HEAD = ("RWStructuredBuffer<int> O : register(u0);\nRWStructuredBuffer<float> F : register(u1);\n"
        "int f(int x) { return x; }\n")


def in_main(body: str) -> bytes:
    return (HEAD + "[numthreads(1, 1, 1)]\nvoid main() {\n" + body + "\n}\n").encode()


def assert_clean(data: bytes, target: str, tmp_path) -> None:
    out = compile_one(data, "repro.hlsl", target, True, {}, str(tmp_path))
    assert out.acceptable, f"{out.cls}: {out.detail}"


def xfail(component: str, bug: str):
    return pytest.mark.xfail(strict=True, reason=f"{component}: {bug}")


CASES = [
    pytest.param(in_main("O[0] = " + "9" * 5000 + ";"),
                 marks=xfail("parser", "a 5000-digit integer literal raises ValueError (int max str digits) "
                                       "-> internal compiler error instead of 'literal too large'"),
                 id="huge_decimal_literal"),
    pytest.param(in_main("O[0] = " + "(" * 250 + "1" + ")" * 250 + ";"),
                 marks=xfail("parser", "250 nested parentheses (below MAX_NESTING) exhaust Python recursion; "
                                       "the 'too deeply nested' error has no file:line:col"),
                 id="nested_parens_250"),
    pytest.param(in_main("O[0] = " + "f(" * 250 + "1" + ")" * 250 + ";"),
                 marks=xfail("parser", "250 nested calls exhaust Python recursion; error without location"),
                 id="nested_calls_250"),
    pytest.param(in_main("O[0] = " + "true?(" * 250 + "1" + "):0" * 250 + ";"),
                 marks=xfail("parser", "250 nested conditionals exhaust Python recursion; error without location"),
                 id="nested_ternary_250"),
    pytest.param(in_main("switch(0){default:" * 1000 + "}" * 1000),
                 marks=xfail("parser", "switch nesting is not counted by MAX_NESTING; 1000 levels exhaust "
                                       "Python recursion; error without location"),
                 id="nested_switch_1000"),
    pytest.param(in_main("O[1e999999] = 1;"),
                 marks=xfail("sema", "an infinite float literal converted to int raises OverflowError "
                                     "(exprs.py) -> internal compiler error"),
                 id="inf_literal_as_index"),
    pytest.param(in_main("int x = 1e999999; O[0] = x;"),
                 marks=xfail("sema", "constant float->int conversion of infinity -> internal compiler error"),
                 id="inf_literal_to_int"),
    pytest.param(in_main("F[0] = 1e39;"),
                 marks=xfail("backends", "a float constant beyond binary32 range (1e39 -> +inf) makes "
                                         "struct.pack('f') raise: emit_types.py (SPIR-V) / values.py (DXIL)"),
                 id="float_literal_overflows_binary32"),
    pytest.param(in_main("F[0] = 1e300 * 10;"),
                 marks=xfail("backends", "constant folding to infinity -> struct.pack OverflowError"),
                 id="folded_float_infinity"),
    pytest.param((HEAD + "[numthreads(4, 1, true ? 1 : 0)]\nvoid main() { O[0] = 1; }\n").encode(),
                 marks=xfail("sema", "a non-literal expression in [numthreads] reports 'expression requires a "
                                     "function context' without file:line:col"),
                 id="numthreads_ternary_argument"),
    pytest.param((HEAD + "[numthreads(4, 1, f(1))]\nvoid main() { O[0] = 1; }\n").encode(),
                 marks=xfail("sema", "a call in [numthreads]: error without file:line:col"),
                 id="numthreads_call_argument"),
]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("data", CASES)
def test_fuzz_regression(data: bytes, target: str, tmp_path) -> None:
    assert_clean(data, target, tmp_path)
