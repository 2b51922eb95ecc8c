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
HEAD = "RWStructuredBuffer<int> O : register(u0);\nint f(int x) { return x; }\n"


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
]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("data", CASES)
def test_fuzz_regression(data: bytes, target: str, tmp_path) -> None:
    assert_clean(data, target, tmp_path)
