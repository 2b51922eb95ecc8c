"""Programs DXC compiles that we refused (issue 20, a fresh sweep with other spellings): effects annotations
after a function's or a parameter's semantics and on typedefs, several names in one typedef, `struct S;`
declared before its definition, unnamed parameters, `sizeof x` without parentheses, `1.#INF`,
`unorm`/`snorm` template arguments, `_Pragma("...")`, GNU line markers (`# 12 "file"`), `defined` produced
by a macro in `#if`, and an array's `.Length` at `-HV 2016`.  DXC's parser is the reference for where each
form is legal (ParseDecl.cpp ParseDirectDeclarator: `: semantics` then `< annotations >`; LiteralSupport.cpp:
`.#INF`; SemaHLSL.cpp: `Length`).  Each compiles for both targets (spirv-val, the DXIL checks), and the ones
that compute something run with expected values worked out by hand from the inputs."""

from __future__ import annotations

import pytest
from harness import dxil_tools, tools
from lang_util import SlotTable, case, run_backend, table_test

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

EFFECT = " ignored - effect syntax is deprecated"
ANNOTATION = "possible effect annotation" + EFFECT
PS = "float4 main(float4 pos : SV_Position) : SV_Target {{ {body} }}\n"
CS = "RWStructuredBuffer<int> Out : register(u0);\n[numthreads(1, 1, 1)]\nvoid main() {{ {body} }}\n"

# name -> (source, profile, the warnings it gives, in order)
ACCEPTED = {
    "annotation_after_entry_semantic": (
        "float4 main(float4 pos : SV_Position) : SV_Target < string UIName = \"x\"; int n = 2; > { return pos; }\n",
        "ps_6_0", [ANNOTATION]),
    "annotation_on_helper_without_semantic": (
        "float4 Twice(float4 x) < int a = 1; > { return x * 2; }\n" + PS.format(body="return Twice(pos);"),
        "ps_6_0", [ANNOTATION]),
    "annotation_on_prototype": (
        "float4 Twice(float4 x) < int a = 1; >;\nfloat4 Twice(float4 x) { return x * 2; }\n"
        + PS.format(body="return Twice(pos);"), "ps_6_0", [ANNOTATION]),
    "annotation_after_parameter_semantic": (
        "float4 main(float4 pos : SV_Position < int a = 1; >, float4 c : COLOR < string s = \"c\"; >) : SV_Target "
        "{ return pos + c; }\n", "ps_6_0", [ANNOTATION, ANNOTATION]),
    "annotation_after_packoffset": (
        "cbuffer C { float4 scale : packoffset(c0) < string UIWidget = \"slider\"; >; float4 bias : packoffset(c1) "
        "< int a = 1; >; };\n" + PS.format(body="return pos * scale + bias;"), "ps_6_0", [ANNOTATION, ANNOTATION]),
    "annotation_on_typedef": (
        "typedef float4 V < int q = 1; >;\n" + PS.format(body="V v = pos; return v;"), "ps_6_0", [ANNOTATION]),
    "typedef_two_names_with_annotations": (
        "typedef float4 V < int q = 1; >, W[2] < int r = 2; >;\n" + PS.format(body="W w = { pos, pos }; V v = w[1]; "
                                                                          "return v;"),
        "ps_6_0", [ANNOTATION, ANNOTATION]),
    "unorm_texture_argument": (
        "RWTexture2D<unorm float4> T : register(u1);\n" + PS.format(body="T[uint2(pos.xy)] = pos; return pos;"),
        "ps_6_0", []),
    "snorm_buffer_argument": (
        "Buffer<snorm float> B : register(t0);\nRWBuffer<unorm float2> U : register(u1);\n"
        + PS.format(body="U[0] = B[1]; return B[0];"), "ps_6_0", []),
    "unorm_structured_element": (
        "StructuredBuffer<unorm float4> B : register(t0);\n" + PS.format(body="return B[1];"), "ps_6_0", []),
    "unnamed_parameter_of_prototype_and_definition": (
        "float Pick(float, float b);\nfloat Pick(float a, float b) { return b; }\nfloat Second(float, float b) "
        "{ return b; }\n" + PS.format(body="return Pick(pos.x, pos.y) + Second(1, 2);"), "ps_6_0", []),
    "struct_declared_before_definition": (
        "struct Light;\nstruct Light;\nstruct Light { float4 color; };\nstatic Light g_light = { float4(1, 2, 3, 4) };\n"
        + PS.format(body="return g_light.color * pos;"), "ps_6_0", []),
    "class_declared_before_definition_in_function": (
        PS.format(body="struct Local; struct Local { float4 v; }; Local l; l.v = pos; return l.v;"), "ps_6_0", []),
    "pragma_operator": (
        "_Pragma(\"once\")\n_Pragma(\"warning(disable : 3206)\")\n#define DO_PRAGMA(x) _Pragma(#x)\n"
        "DO_PRAGMA(pack_matrix(row_major))\n" + PS.format(body="return pos;"), "ps_6_0",
        ["#pragma once in main file"]),       # clang's (and DXC's) warning: the main file is read once anyway
    "gnu_line_marker": (
        "# 40 \"generated.hlsl\" 1 3\n" + PS.format(body="return pos + __LINE__;"), "ps_6_0", []),
    "defined_from_macro_in_if": (
        "#define HAS_FEATURE defined(FEATURE) && defined FEATURE\n#define HAS(x) defined(x)\n#define FEATURE 1\n"
        "#if HAS_FEATURE && !HAS(OTHER)\nstatic const float K = 2;\n#endif\n" + PS.format(body="return pos * K;"), "ps_6_0", []),
    "inf_literal": (PS.format(body="return min(pos, 1.#INF) + (-1.#INF < 0);"), "ps_6_0", []),
    "attributes_of_the_prototype_carry_over": (
        "RWStructuredBuffer<int> Out : register(u0);\n[numthreads(4, 1, 1)]\nvoid main(uint3 t : SV_DispatchThreadID);\n"
        "void main(uint3 t : SV_DispatchThreadID) { Out[t.x] = 1; }\n", "cs_6_0", []),
    "modifier_keyword_names_beside_modifiers": (
        "float4 main(sample float4 c : COLOR, float4 p : SV_Position) : SV_Target { precise float sample = c.x; "
        "return sample * p; }\n", "ps_6_0", []),
    # DXC skips a technique body, a state block and each annotation item to its closing bracket / `;`
    # (Parser.cpp ParseExternalDeclaration, ParseDecl.cpp): what they contain is not checked
    "technique_with_anything_inside": (
        "technique T < string s = \"x\"; > { foo {} pass { ; VertexShader = asm { mov r0, v0 }; } }\n"
        "Technique { }\n" + PS.format(body="return pos;"), "ps_6_0",
        ["effect technique" + EFFECT, "effect technique" + EFFECT]),
    "annotation_items_without_values": (
        "Texture2D t : register(t0) < int a = 1; string s; float2 r = { 0, 1 }; bool b = 1 > 2; >;\n"
        "SamplerState smp { Filter = MIN_MAG_MIP_LINEAR; AddressU[0] = Wrap; ; BorderColor = float4(0, 0, 0, 0); };\n"
        + PS.format(body="return t.Sample(smp, pos.xy);"), "ps_6_0",
        [ANNOTATION, "effect state block" + EFFECT + ". To use braces as an initializer use them with equal signs."]),
    "empty_attribute_brackets": (
        "RWStructuredBuffer<int> Out : register(u0);\n[]\n[numthreads(1, 1, 1)]\n[]\nvoid main() { [] for (int i = 0; i < 2; "
        "i++) Out[i] = i; }\n", "cs_6_0", []),
    "sizeof_without_parentheses": (
        CS.format(body="float3 v = 1; int a[5]; Out[0] = sizeof v + sizeof v.x + sizeof a / sizeof a[0] "
                       "+ sizeof -v.yz;"), "cs_6_0", []),
}


def _compile(source: str, profile: str, target: str, **kw):
    return compile_file("t.hlsl", CompileOptions(entry="main", profile=profile, target=target, **kw), text=source)


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_accepted_on_both_targets(name):
    source, profile, warnings = ACCEPTED[name]
    spirv = _compile(source, profile, "spirv")
    assert spirv.ok, [str(d) for d in spirv.diagnostics]
    assert [d.message for d in spirv.diagnostics] == warnings
    tools.spirv_val(spirv.binary)
    dxil = _compile(source, profile, "dxil")
    assert dxil.ok, [str(d) for d in dxil.diagnostics]
    dxil_tools.check_dxil(dxil.binary)


IN = [3, 7, 0, 1, 2, -5]
SETUP = "    int three = In[0], seven = In[1], zero = In[2], one = In[3], two = In[4], m5 = In[5];\n"
FORMS = SlotTable("accept8_forms", "int", [
    # Fw is declared, then defined: a plain struct of one int
    case("forward_declared_struct", "Fw f; f.v = seven; R = UseFw(f);", 8, stmt=True,
         prelude="struct Fw;\nclass Fw;\nstruct Fw { int v; };\nint UseFw(struct Fw f) { return f.v + 1; }\n"),
    # the prototype names no parameter; the definition names the second only: 7 * 10 + 3
    case("unnamed_parameters", "R = Unn(seven, three) + Second(m5, one);", 70 + 1, stmt=True,
         prelude="int Unn(int, int);\nint Unn(int a, int b) { return a * 10; }\nint Second(int, int b) { return b; }\n"),
    # float3 is 12 bytes, a float 4, int a[5] 20, a float2 8
    case("sizeof_unary", "float3 v = seven; int a[5]; R = sizeof v * 1000 + sizeof v.x * 100 + sizeof a / sizeof a[0] "
         "* 10 + sizeof -v.xy;", 12000 + 400 + 50 + 8, stmt=True),
    # (bit patterns: the DXIL interpreter runs float arithmetic with LLVM's fast-math flags, which assume no inf)
    case("inf_literal", "float x = one ? 1.#INF : 0.0; R = (asuint(x) == 0x7F800000) * 10 + "
         "(asuint(-1.#INF) == 0xFF800000u);", 11, stmt=True),
    # one typedef line names a vector, an array of it and an annotated scalar
    case("typedef_several_names", "P2 p = int2(seven, three); P2A a = { p, p * 2 }; One o = a[1].y; R = o * 10 + p.x;",
         67, stmt=True, prelude="typedef int2 P2, P2A[2] < int n = 2; >, One;\n"),
    case("annotated_function_and_parameter", "R = Annotated(seven);", 21, stmt=True,
         prelude="int Annotated(int x < string s = \"x\"; >) < string UIName = \"f\"; > { return x * 3; }\n"),
    # the marker says the next line is 500, whatever line it stands on
    case("gnu_line_marker", "R = kMarked + zero;", 500, stmt=True,
         prelude="# 500 \"marked.hlsl\"\nstatic const int kMarked = __LINE__;\n"),
    # `defined` written by an object-like macro reads the name after it unexpanded (ONE_ is 1, an empty TWO_
    # is defined too); a function-like macro's argument is expanded first, so HAS(x) serves undefined names only
    case("defined_from_macro", "R = kDefined + zero;", 21, stmt=True,
         prelude="#define HAS(x) defined(x) || defined x\n#define HAS_ONE defined(ONE_) && defined ONE_\n"
                 "#define ONE_ 1\n#define TWO_\n#define HAS_TWO defined TWO_\n"
                 "#if HAS_ONE && HAS_TWO && !HAS(THREE_)\nstatic const int kDefined = 21;\n#else\n"
                 "static const int kDefined = -1;\n#endif\n"),
    # DXC's parser takes these modifiers for names when punctuation follows (FXC compatibility)
    case("modifier_keywords_as_names", "int sample = seven; int precise = three; int globallycoherent = two; "
         "float left = 1, center = one, right = 3; sample += 1; R = KeywordNames(sample) + precise * 10 + "
         "globallycoherent + (int)center;", 8 * 100 + 30 + 2 + 1, stmt=True,
         prelude="int KeywordNames(int sample) { struct { int precise; } s; s.precise = sample; return s.precise * 100; }\n"),
], setup=SETUP, inputs={"In": ("int", IN)})

# `.Length` of an array is a constant: DXC accepts it at -HV 2016 (deprecated)
LENGTH_2016 = SlotTable("accept8_length_hv2016", "int", [
    case("local_array", "int a[5]; R = a.Length + zero;", 5, stmt=True),
    case("static_array_and_field", "R = kTable.Length * 10 + kHolder.parts.Length + zero;", 32, stmt=True,
         prelude="struct Holder { float4 parts[2]; };\nstatic const int kTable[3] = { 1, 2, 3 };\n"
                 "static const Holder kHolder = (Holder)0;\n"),
    case("unsized_initialised", "float4 p[] = { (float4)seven, (float4)three }; R = p.Length;", 2, stmt=True),
], setup=SETUP, inputs={"In": ("int", IN)}, hlsl_version=2016)

test_forms = pytest.mark.vulkan(pytest.mark.usefixtures("vk")(table_test(FORMS)))
test_length_hv2016 = pytest.mark.vulkan(pytest.mark.usefixtures("vk")(table_test(LENGTH_2016)))


# `_Pragma("pack_matrix(...)")` works as the #pragma line: the cbuffer words are float(i), so with
# row_major m._12 is word 1 and m._21 word 4; with column_major the other way round
PRAGMA_SOURCE = """RWStructuredBuffer<float> Out : register(u0);
#define PACK(x) _Pragma(#x)
PACK(pack_matrix(row_major))
cbuffer C : register(b1) { float2x2 a; };
_Pragma("pack_matrix(column_major)")
cbuffer D : register(b2) { float2x2 unused; };
[numthreads(1, 1, 1)]
void main() { Out[0] = a._12; Out[1] = a._21; }
"""


@pytest.mark.vulkan
@pytest.mark.usefixtures("vk")
@pytest.mark.parametrize("backend", ["spirv", "dxil", "dxil-vk"])
def test_pragma_operator_sets_matrix_packing(backend):
    got = run_backend(backend, PRAGMA_SOURCE, {"Out": ("float", 2)}, {"C": ("float", [float(i) for i in range(8)])})
    assert got["Out"] == [1.0, 4.0]


# #include forms: quoted, relative to the including file (`../`), include guards, `#pragma once`, `_Pragma("once")`,
# a macro naming the file, a Windows path with a backslash, angled through -I; each constant says where it came from
INCLUDES = {
    "common.hlsli": "#pragma once\nstatic const int kCommon = 5;\nint CommonLine() { return __LINE__; }\n",
    "guarded.hlsli": "#ifndef GUARDED_HLSLI\n#define GUARDED_HLSLI\nstatic const int kGuarded = 7;\n#endif\n",
    "sub/nested.hlsli": "#include \"../common.hlsli\"\n#include \"sibling.hlsli\"\n#include \"win\\dows.hlsli\"\n"
                        "static const int kNested = kCommon + kSibling + kWindows;\n",
    "sub/sibling.hlsli": "static const int kSibling = 11;\n",
    "sub/win/dows.hlsli": "static const int kWindows = 100;\n",
    "pragma_op.hlsli": "_Pragma(\"once\")\nstatic const int kPragmaOp = 17;\n",
    "sys/sysinc.hlsli": "static const int kSys = 1000;\n",
}


def _include_tree(root) -> str:
    for name, text in INCLUDES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return (f'#include "{root}/common.hlsli"\n#include "{root}/common.hlsli"\n#include "{root}/guarded.hlsli"\n'
            f'#include "{root}/guarded.hlsli"\n#include "{root}/sub/nested.hlsli"\n#define INC "{root}/pragma_op.hlsli"\n'
            "#include INC\n#include INC\n")


@pytest.mark.vulkan
@pytest.mark.usefixtures("vk")
def test_include_forms_run(tmp_path):
    src = _include_tree(tmp_path) + ("RWStructuredBuffer<int> Out : register(u0);\n[numthreads(1, 1, 1)]\n"
                                     "void main() { Out[0] = kCommon + kGuarded + kNested + kPragmaOp; Out[1] = CommonLine(); }\n")
    from lang_util import run_cs
    # 5 + 7 + (5 + 11 + 100) + 17; CommonLine() is on line 3 of common.hlsli
    assert run_cs(src, {"Out": ("int", 2)})["Out"] == [145, 3]


def test_angled_include_through_include_dirs(tmp_path):
    src = _include_tree(tmp_path) + "#include <sysinc.hlsli>\n" + CS.format(body="Out[0] = kSys + kNested;")
    main = tmp_path / "main.hlsl"
    main.write_text(src)
    for target in ("spirv", "dxil"):
        res = compile_file(str(main), CompileOptions(entry="main", profile="cs_6_0", target=target,
                                                     include_dirs=[str(tmp_path / "sys")]))
        assert res.ok, [str(d) for d in res.diagnostics]
        # every file read once, the backslash path found as sub/win/dows.hlsli
        assert sorted(res.dependencies) == sorted(str(tmp_path / n) for n in [*INCLUDES, "main.hlsl"])


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_float_numthreads_truncated_with_dxcs_warning(target):
    """DXC accepts `[numthreads(4.9, 2, 1)]` with -Wattribute-type's warning and truncates: 4 threads in x."""
    src = "RWStructuredBuffer<int> Out;\n[numthreads(4.9, 2, 1.0)]\nvoid main(uint3 t : SV_DispatchThreadID) { Out[t.x] = 1; }\n"
    res = _compile(src, "cs_6_0", target)
    assert res.ok
    assert [f"{d.loc}: {d.message}" for d in res.diagnostics] == [
        "t.hlsl:2:13: attribute numthreads must have a uint literal argument",
        "t.hlsl:2:21: attribute numthreads must have a uint literal argument"]
    assert res.manifest["entry"]["numthreads"] == [4, 2, 1]
