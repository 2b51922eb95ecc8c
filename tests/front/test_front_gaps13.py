"""Front-end gaps of issue 20 (round 13).  The comparison samples on integer textures: one rule for both
targets, read from DXC — SampleCmp, SampleCmpLevel and SampleCmpLevelZero are refused by its
IsValidObjectElement, SampleCmpBias and SampleCmpGrad by its validator (Instr.SampleCompType: the SM 6.7
widening to integer formats leaves the comparisons out), while the GatherCmp family takes integer textures
(DXIL's TextureGatherCmp has i32 forms; SPIR-V's OpImageDrefGather integer results).  The shaders are our own."""

from __future__ import annotations

import pytest
import res_util as R

CMP = """Texture2D<ELEM> T : register(t0);
SamplerComparisonState S : register(s1);
RWStructuredBuffer<ELEM> Out : register(u2);
[numthreads(4, 1, 1)]
void main() { Out[0] = CALL; }
"""
SAMPLE_CMP = {
    "SampleCmp": "T.SampleCmp(S, float2(0.5, 0.5), 0.5)",
    "SampleCmpLevelZero": "T.SampleCmpLevelZero(S, float2(0.5, 0.5), 0.5)",
    "SampleCmpLevel": "T.SampleCmpLevel(S, float2(0.5, 0.5), 0.5, 0)",
    "SampleCmpBias": "T.SampleCmpBias(S, float2(0.5, 0.5), 0.5, 0.0)",
    "SampleCmpGrad": "T.SampleCmpGrad(S, float2(0.5, 0.5), 0.5, float2(0, 0), float2(0, 0))",
}
GATHER_CMP = {
    "GatherCmp": "T.GatherCmp(S, float2(0.5, 0.5), 0.5)",
    "GatherCmpRed": "T.GatherCmpRed(S, float2(0.5, 0.5), 0.5)",
}


@pytest.mark.parametrize("method", sorted(SAMPLE_CMP))
@pytest.mark.parametrize("elem", ["int4", "uint", "int2"])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_sample_cmp_refuses_integer_textures(method, elem, target):
    """At SM 6.8, where all five exist and integer Sample is allowed: refused in sema, located at the method
    (SampleCmpGrad on an integer texture was refused by the SPIR-V backend only and compiled for DXIL)."""
    src = CMP.replace("ELEM", elem).replace("CALL", SAMPLE_CMP[method])
    res = R.compile_hlsl(src, profile="cs_6_8", target=target)
    assert R.errors(res) == [f"5:26: cannot {method} from resource containing {elem}"]


@pytest.mark.parametrize("method", sorted(SAMPLE_CMP))
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_sample_cmp_takes_float_textures(method, target):
    """The control: the same shaders on a float texture build (SPIR-V through spirv-val, DXIL read back)."""
    src = CMP.replace("ELEM", "float").replace("CALL", SAMPLE_CMP[method])
    if target == "spirv":
        R.build(src, profile="cs_6_8")
    else:
        R.build_dxil(src, profile="cs_6_8")


@pytest.mark.parametrize("method", sorted(GATHER_CMP))
@pytest.mark.parametrize("elem", ["int4", "uint4", "float4"])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_gather_cmp_takes_integer_textures(method, elem, target):
    src = CMP.replace("ELEM", elem).replace("CALL", GATHER_CMP[method])
    if target == "spirv":
        res = R.build(src, profile="cs_6_0")
        assert "OpImageDrefGather" in R.spirv_dis(res)
    else:
        R.build_dxil(src, profile="cs_6_0")


OPENING_BLOCK = """RWStructuredBuffer<uint> Out : register(u0);
[numthreads(8, 1, 1)]
void main(uint t : SV_GroupThreadID) {
    uint r = 2;
    switch (t) {
        {
    case 0:
            r += 5;
    case 1:
            r *= 3;
            {
    case 4:
                r += 40;
            }
            if (t == 1) break;
        }
        r += 1000;
        break;
    default:
        r = 77;
    }
    Out[t] = r;
}
"""


def opening_block_model(t: int) -> int:
    """The switch above by hand: a label inside the block that opens the body is entered like any other."""
    if t not in (0, 1, 4):
        return 77
    r = 2
    if t == 0:
        r += 5
    if t in (0, 1):
        r *= 3
    r += 40
    if t == 1:
        return r
    return r + 1000


def test_case_labels_in_a_block_opening_the_switch_run():
    """`switch (x) { { case 0: ... } }` was 'expected 'case' or 'default'' (fnf12 flattened blocks holding labels
    only after a first label)."""
    out = R.cs(OPENING_BLOCK, {"Out": R.storage(R.sentinel(8))})
    assert R.unpack("I", out["Out"]) == [opening_block_model(t) for t in range(8)]


@pytest.mark.parametrize("body, where, found", [
    ("{ r = 1; case 0: r = 2; }", "7:11", "'r'"),
    ("{ r = 1; } case 0: r = 2;", "7:9", "'{'"),
    ("r = 1; { case 0: r = 2; }", "7:9", "'r'"),
], ids=["statement-first-in-block", "block-without-label-first", "statement-first"])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_statement_before_the_first_label_is_refused(body, where, found, target):
    """Code before the first label never runs (clang takes it); we refuse it, located, at any depth."""
    src = NESTED_REFUSED.replace("BODY", body)
    assert R.errors(R.compile_hlsl(src, target=target)) == [f"{where}: expected 'case' or 'default', found {found}"]


NESTED_REFUSED = """RWStructuredBuffer<uint> Out : register(u0);
[numthreads(1, 1, 1)]
void main(uint t : SV_GroupThreadID) {
    uint r = 0;
    switch (t) {

        BODY
    }
    Out[0] = r;
}
"""


DEDUCE = """RWStructuredBuffer<int> Out : register(u0);
template<typename T> T add(T a, T b) { return a + b; }
[numthreads(1, 1, 1)]
void main() {
    float x = Out[1]; int k = Out[2];
    USE
}
"""


@pytest.mark.parametrize("call, first, second", [
    ("add(1.0, 2)", "literal float", "literal int"),
    ("add(x, 1.0)", "float", "literal float"),
    ("add(k, 3)", "int", "literal int"),
    ("add(1, 2.0f)", "literal int", "float"),
    ("add(-1.5, x)", "literal float", "float"),
])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_a_literal_deduces_its_own_type(call, first, second, target):
    """clang (DXC) deduces T from a literal as 'literal float' / 'literal int', a type no other argument has:
    mixing it with a typed argument or the other literal kind is a conflict (DXC's 'deduced conflicting types for
    parameter 'T''); `add(x, 1.0)` and `add(1.0, 2)` compiled before, taking T from the typed or first argument."""
    res = R.compile_hlsl(DEDUCE.replace("USE", f"Out[0] = {call};"), target=target)
    assert R.errors(res) == [f"6:14: no matching function template for call to 'add': conflicting types '{first}' "
                             f"and '{second}' deduced for template parameter 'T'"]


def wrap32(v: int) -> int:
    return (v + 2**31) % 2**32 - 2**31


def test_literals_of_one_kind_instantiate_int_and_float_run():
    """Two literal ints make T int (not the 64-bit literal): the sum wraps at 32 bits; two literal floats make T
    float; a cast or suffix gives the typed argument's type; explicit arguments settle a mix."""
    use = ("Out[0] = add(2000000000, 2000000000); Out[3] = (int)(add(0.25, 1.5) * 4);"
           " Out[4] = add(k, (int)3); Out[5] = (int)add(x, 1.0f); Out[6] = (int)add<float>(x, 2);")
    out = R.cs(DEDUCE.replace("USE", use), {"Out": R.storage(R.pack("i", [0, 7, 40, 0, 0, 0, 0]))})
    assert R.unpack("i", out["Out"]) == [wrap32(2 * 2000000000), 7, 40, int((0.25 + 1.5) * 4), 40 + 3, 7 + 1, 7 + 2]


HIDDEN_STRUCT = """RWStructuredBuffer<float> Out : register(u0);
struct f { float v; };
template<typename T> T f(T x) { return x + x; }
template<typename T> T g(T x) { return x * 3; }
struct g { int k; };
[numthreads(1, 1, 1)]
void main() {
    Out[0] = f(2.5);
    struct f s; s.v = 1.25; Out[1] = s.v + f(3);
    struct g t = { 4 }; Out[2] = g(t.k);
    { struct f { float w; }; f q; q.w = 7; Out[3] = q.w; }
}
"""


def test_function_template_hides_a_struct_of_its_name_run():
    """C++ [basic.scope.declarative]: a function template and a struct may share a name in one scope, the struct
    hidden, in either order: `f(2.5)` calls the template (it was taken as a cast to struct f: 'cannot convert');
    `struct f` still names the struct; a local struct hides the template in its block."""
    out = R.cs(HIDDEN_STRUCT, {"Out": R.storage(R.sentinel(4))})
    assert R.unpack("f", out["Out"]) == [2.5 + 2.5, 1.25 + (3 + 3), 4 * 3, 7]


@pytest.mark.parametrize("first, second, use, where, message", [
    ("struct f { float v; };", "template<typename T> T f(T x) { return x; }", "f s; s.v = 1; Out[0] = s.v;",
     "5:15", "must use 'struct' tag to refer to type 'f' in this scope"),
    ("template<typename T> T f(T x) { return x; }", "struct f { float v; };", "f s; s.v = 1; Out[0] = s.v;",
     "5:15", "must use 'struct' tag to refer to type 'f' in this scope"),
    ("typedef float f;", "template<typename T> T f(T x) { return x; }", "Out[0] = f(2);",
     "3:24", "redefinition of 'f' as different kind of symbol"),
    ("template<typename T> T f(T x) { return x; }", "typedef float f;", "Out[0] = f(2);",
     "3:15", "redefinition of 'f' as different kind of symbol"),
], ids=["struct-then-template", "template-then-struct", "typedef-then-template", "template-then-typedef"])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_hidden_struct_needs_its_tag_and_typedefs_clash(first, second, use, where, message, target):
    """clang's words: a hidden struct named without `struct` in a declaration; a typedef is never hidden."""
    src = f"RWStructuredBuffer<float> Out : register(u0);\n{first}\n{second}\n[numthreads(1, 1, 1)]\nvoid main() {{ {use} }}\n"
    assert R.errors(R.compile_hlsl(src, target=target)) == [f"{where}: {message}"]


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_a_function_does_not_hide_a_typedef(target):
    """A typedef is never hidden (C++): a function named like one stays sema's clash, even with later uses of the
    typedef (the parser must not read them as hidden)."""
    src = ("RWStructuredBuffer<float> Out : register(u0);\ntypedef float Foo;\nfloat Foo(float x) { return x; }\n"
           "[numthreads(1, 1, 1)]\nvoid main() { Foo y = 1; Out[0] = y; }\n")
    assert R.errors(R.compile_hlsl(src, target=target)) == ["3:7: redefinition of 'Foo' as a different kind of symbol"]
