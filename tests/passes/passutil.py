"""Helpers of the shared-pass tests: HLSL -> sema IR, one pass, printed text.

Each test builds its input IR from a small HLSL source through the front end, runs
only the pass under test, and compares `ir/printer.py`'s text with the expected text
written in the test (the input text is checked too, so a front-end change that moves
the starting point shows up as such).
"""

from __future__ import annotations

import textwrap

from shaderbuild import ir
from shaderbuild.compiler import predefined_macros
from shaderbuild.diagnostics import DiagnosticSink
from shaderbuild.front.parser import parse
from shaderbuild.front.preprocessor import preprocess
from shaderbuild.front.sema import analyze
from shaderbuild.ir.printer import module_str
from shaderbuild.ir.validate import validate_module
from shaderbuild.options import CompileOptions, parse_profile

# resources with and without register(): dx_registers and vk_bindings
REGISTERS_SOURCE = """
RWStructuredBuffer<uint> Out;
RWStructuredBuffer<uint> B[4];
Texture2D T : register(t0);
Texture2D U;
SamplerState S : register(s1, space2);
cbuffer C { float k; };
[numthreads(1,1,1)]
void main(uint3 id : SV_DispatchThreadID) {
    Out[id.x] = B[id.y][0] + (uint)k + (uint)T.SampleLevel(S, float2(0,0), 0).x + (uint)U.Load(int3(0,0,0)).x;
}
"""


def sema_module(hlsl: str, profile: str = "cs_6_0", **options) -> tuple[ir.Module, CompileOptions]:
    """The module sema makes for `hlsl` (validated), and the options it was made with."""
    opts = CompileOptions(profile=profile, **options)
    prof = parse_profile(profile)
    pp = preprocess("pass_test.hlsl", text=textwrap.dedent(hlsl), predefined=predefined_macros(opts, prof))
    sink = DiagnosticSink()
    module = analyze(parse(pp.tokens), opts, prof, sink, list(pp.files), "pass_test.hlsl")
    assert not [d for d in sink.items if d.severity == "error"], sink.items
    validate_module(module, "sema")
    return module, opts


def text(module: ir.Module) -> str:
    return module_str(module)


def expected(s: str) -> str:
    return textwrap.dedent(s).lstrip("\n")
