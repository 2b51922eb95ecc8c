"""Resource diagnostics with exact text and location: binding conflicts (Vulkan class-letter clashes,
D3D register overlaps, [[vk::binding]] clashes, array ranges), register classes that do not fit the
resource type, bad layout options, and seed 001's resource-array errors (F[4][], local unbounded
arrays, reading an uninitialised local resource).  Both targets must report the same front-end errors.
"""

from __future__ import annotations

import pytest
import res_util as R

pytestmark = [pytest.mark.spirv_tools]

TAIL = "RWStructuredBuffer<float> Out : register(u9);\n[numthreads(1,1,1)] void main() { Out[0] = 0; }\n"


def _reg(decl: str, reg: str, pre: str = "") -> str:
    return f"{pre}{decl} : register({reg});\n{TAIL}"


# (id, source, expected errors as 'line:col: message'); col points at `register`
REGISTER_CLASS = [
    ("texture-u", _reg("Texture2D<float4> T", "u0"),
     ["1:23: invalid register class 'u' for shader resource view 'T' of type 'Texture2D<float4>' (expected 't')"]),
    ("texture-x", _reg("Texture2D<float4> T", "x0"),
     ["1:23: invalid register class 'x' for shader resource view 'T' of type 'Texture2D<float4>' (expected 't')"]),
    ("rwsb-t", _reg("RWStructuredBuffer<float> B", "t0"),
     ["1:31: invalid register class 't' for unordered access view 'B' of type 'RWStructuredBuffer<float>' (expected 'u')"]),
    ("sampler-b", _reg("SamplerState S", "b0"),
     ["1:18: invalid register class 'b' for sampler 'S' of type 'SamplerState' (expected 's')"]),
    ("cmp-sampler-u", _reg("SamplerComparisonState S", "u0"),
     ["1:28: invalid register class 'u' for sampler 'S' of type 'SamplerComparisonState' (expected 's')"]),
    ("sb-u", _reg("StructuredBuffer<float> B", "u0"),
     ["1:29: invalid register class 'u' for shader resource view 'B' of type 'StructuredBuffer<float>' (expected 't')"]),
    ("bab-s", _reg("ByteAddressBuffer B", "s0"),
     ["1:23: invalid register class 's' for shader resource view 'B' of type 'ByteAddressBuffer' (expected 't')"]),
    ("rwbab-t", _reg("RWByteAddressBuffer B", "t0"),
     ["1:25: invalid register class 't' for unordered access view 'B' of type 'RWByteAddressBuffer' (expected 'u')"]),
    ("rwtexture-t", _reg("RWTexture2D<float> T", "t0"),
     ["1:24: invalid register class 't' for unordered access view 'T' of type 'RWTexture2D<float>' (expected 'u')"]),
    ("buffer-u", _reg("Buffer<float> B", "u0"),
     ["1:19: invalid register class 'u' for shader resource view 'B' of type 'Buffer<float>' (expected 't')"]),
    ("rwbuffer-b", _reg("RWBuffer<float> B", "b0"),
     ["1:21: invalid register class 'b' for unordered access view 'B' of type 'RWBuffer<float>' (expected 'u')"]),
    ("constantbuffer-t", _reg("ConstantBuffer<S> C", "t0", "struct S { float a; };\n"),
     ["2:23: invalid register class 't' for ConstantBuffer 'C' (expected 'b')"]),
    ("cbuffer-t", "cbuffer C : register(t0) { float a; };\n" + TAIL,
     ["1:13: invalid register class 't' for cbuffer 'C' (expected 'b')"]),
    ("bad-space", _reg("Texture2D<float4> T", "t0, space"), ["1:36: invalid register space 'space'"]),
]

CONFLICTS = [
    ("class-letter-ignored",
     "Texture2D<float4> T : register(t0);\nRWStructuredBuffer<float> U : register(u0);\n"
     "[numthreads(1,1,1)] void main() { U[0] = T.Load(int3(0,0,0)).x; }\n",
     ["2:27: resource 'U' and resource 'T' are both bound to descriptor set 0 binding 0; use [[vk::binding]] "
      "or -fvk-{b,t,s,u}-shift to separate them"]),
    ("same-register",
     "RWStructuredBuffer<float> U : register(u0);\nRWStructuredBuffer<float> V : register(u0);\n"
     "[numthreads(1,1,1)] void main() { U[0] = V[0]; }\n",
     ["2:27: resource 'V' overlaps resource 'U' at register u0, space0"]),
    ("vk-binding-clash",
     "[[vk::binding(1)]] RWStructuredBuffer<float> U;\n[[vk::binding(1)]] RWStructuredBuffer<float> V;\n"
     "[numthreads(1,1,1)] void main() { U[0] = V[0]; }\n",
     ["2:46: resource 'V' and resource 'U' are both bound to descriptor set 0 binding 1; use [[vk::binding]] "
      "or -fvk-{b,t,s,u}-shift to separate them"]),
    ("array-range-overlap",
     "RWStructuredBuffer<float> A[4] : register(u10);\nRWStructuredBuffer<float> B : register(u12);\n"
     "[numthreads(1,1,1)] void main() { B[0] = A[0][0]; }\n",
     ["2:27: resource 'B' overlaps resource 'A' at register u12, space0"]),
    ("unbounded-range-overlap",
     "RWStructuredBuffer<float> A[] : register(u10);\nRWStructuredBuffer<float> B : register(u12);\n"
     "[numthreads(1,1,1)] void main() { B[0] = A[0][0]; }\n",
     ["2:27: resource 'B' overlaps resource 'A' at register u12, space0"]),
]

SEED_001_ERRORS = [
    # seed: "RWBuffer<float> F[4][];" -- only the first dimension may be unbounded
    ("F[4][]", "RWBuffer<float> F[4][];\n[numthreads(1,1,1)] void main() { }\n",
     ["1:17: only the first dimension of a resource array may be unbounded"]),
    ("local-unbounded",
     "RWBuffer<float> Buf;\nRWBuffer<float> Out;\n\nfloat foo() {\n  RWBuffer<float> Unbounded[];\n"
     "  Unbounded[100] = Buf;\n  return Unbounded[100][0] + Unbounded[0][0];\n}\n\n"
     "[numthreads(4,1,1)]\nvoid main() {\n  Out[0] = foo();\n}\n",
     ["5:19: definition of variable 'Unbounded' with unsized array type 'RWBuffer<float>[]' is not allowed"]),
    ("uninitialised-local-array-element",
     "RWBuffer<float> Buf;\nRWBuffer<float> Out;\n\nfloat foo() {\n  RWBuffer<float> LocalArray[3];\n"
     "  LocalArray[2] = Buf;\n  // LocalArray[0] is not initialized\n"
     "  return LocalArray[2][0] + LocalArray[0][0];\n}\n\n[numthreads(4,1,1)]\nvoid main() {\n  Out[0] = foo();\n}\n",
     ["8:29: local resource 'LocalArray[0]' is used before it is assigned"]),
    ("uninitialised-local",
     "RWStructuredBuffer<float> Out : register(u9);\n"
     "[numthreads(1,1,1)] void main() { RWStructuredBuffer<float> L; Out[0] = L[0]; }\n",
     ["2:73: local resource 'L' is used before it is assigned"]),
]

ALL = [("register-class", *c) for c in REGISTER_CLASS] + [("conflict", *c) for c in CONFLICTS] + \
      [("seed001", *c) for c in SEED_001_ERRORS]


BUGS = {
}


# clashes of Vulkan bindings only: an error for SPIR-V, fine for DXIL (D3D registers do not overlap)
VULKAN_ONLY = {"class-letter-ignored", "vk-binding-clash"}


@pytest.mark.parametrize("target, group, cid, src, want", [
    R.param(target, *a, id=f"{target}-{a[0]}-{a[1]}", bug=BUGS.get(a[1]))
    for target in ("spirv", "dxil") for a in ALL if not (target == "dxil" and a[1] in VULKAN_ONLY)])
def test_resource_diagnostic(target, group, cid, src, want):
    res = R.compile_hlsl(src, target=target)
    assert not res.ok
    assert R.errors(res) == want


@pytest.mark.parametrize("cid", sorted(VULKAN_ONLY))
def test_vulkan_only_clash_compiles_for_dxil(cid):
    src = next(a[2] for a in ALL if a[1] == cid)
    res = R.compile_hlsl(src, target="dxil")
    assert res.ok, [d.message for d in res.diagnostics]


def test_conflict_has_note_at_first_declaration():
    res = R.compile_hlsl(CONFLICTS[0][1])
    (d,) = [d for d in res.diagnostics if d.severity == "error"]
    assert [(n.severity, n.message, n.loc.line, n.loc.col) for n in d.notes] == [("note", "'T' is declared here", 1, 19)]


def test_rendered_diagnostic_has_source_line_and_caret():
    res = R.compile_hlsl(REGISTER_CLASS[0][1])
    text = R.diagnostics_text(res)
    assert text == ("res_test.hlsl:1:23: error: invalid register class 'u' for shader resource view 'T' of type "
                    "'Texture2D<float4>' (expected 't')\n"
                    "Texture2D<float4> T : register(u0);\n"
                    "                      ^")


def test_unknown_layout_option_is_a_diagnostic():
    res = R.compile_hlsl("cbuffer C : register(b0) { float a; };\n" + TAIL, vk_layout="bogus")
    msgs = [d.message for d in res.diagnostics if d.severity == "error"]
    assert len(msgs) == 1 and "bogus" in msgs[0] and "internal compiler error" not in msgs[0], msgs




def test_no_traceback_for_any_case():
    """Every error above is a located diagnostic, never an internal compiler error."""
    for _g, _c, src, _w in ALL:
        for target in ("spirv", "dxil"):
            res = R.compile_hlsl(src, target=target)
            assert all("internal compiler error" not in d.message for d in res.diagnostics)
            assert all(d.loc is not None for d in res.diagnostics if d.severity == "error")
