"""Typed buffers and textures of bool (the whole suite's mutated batch found `Buffer<bool>` compiled to SPIR-V
with a bool image sampled type, which spirv-val refuses): no texel format holds a bool, so both targets refuse
it at the template argument."""

from __future__ import annotations

import pytest

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

DECLS = ["Buffer<$bool> R : register(t0);", "RWBuffer<$bool2> R : register(u1);",
         "Texture2D<$bool4> R : register(t0);", "RWTexture2D<$bool> R : register(u1);"]


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("decl", DECLS)
def test_bool_texels_are_refused_at_the_argument(decl: str, target: str) -> None:
    col = decl.index("$") + 1
    elem = decl[col:decl.index(">")]
    kind = decl[:decl.index("<")]
    src = (decl.replace("$", "") + "\nRWStructuredBuffer<uint> O : register(u0);\n"
           "[numthreads(1, 1, 1)] void main() { O[0] = 1; }\n")
    res = compile_file("t.hlsl", CompileOptions(entry="main", profile="cs_6_0", target=target), text=src)
    assert res.ok is False and res.binary is None
    assert [f"{d.loc}: {d.message}" for d in res.diagnostics if d.severity == "error"] == [
        f"t.hlsl:1:{col}: '{elem}' elements of '{kind}' are not supported: use uint and compare with 0"]


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_bool_structured_buffers_still_compile(target: str) -> None:
    src = ("StructuredBuffer<bool> B : register(t1);\nRWStructuredBuffer<uint> O : register(u0);\n"
           "[numthreads(1, 1, 1)] void main() { O[0] = B[0] ? 1 : 2; }\n")
    res = compile_file("t.hlsl", CompileOptions(entry="main", profile="cs_6_0", target=target), text=src)
    assert res.ok, res.diagnostics
