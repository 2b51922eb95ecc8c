"""Front-end gaps of issue 20 (round 12): DXC's element rule for the comparison samples (its
IsValidObjectElement refuses an integer texture for SampleCmp, SampleCmpLevel and SampleCmpLevelZero at every
shader model, while GatherCmp and SampleCmpBias/Grad are not restricted there; DXC's validator refuses the
latter two, see test_front_gaps13.py); case labels inside plain
blocks of a switch (legal C++; DXC's SPIR-V emitter looks for them in compound statements).  The shaders are
our own; the expected values come from the Python models here.  A function template declared, called, then
defined (C++ instantiates it at the end of the file).  A struct template named like a function (template): clang's
'redefinition of 'f' as different kind of symbol'.  A global next to a used namespace's member of its name:
clang's ambiguous reference (the directive's members count as declared in the global namespace)."""

from __future__ import annotations

import pytest
import res_util as R

CMP = """Texture2D<ELEM> T : register(t0);
SamplerComparisonState S : register(s1);
RWStructuredBuffer<ELEM> Out : register(u2);
[numthreads(1, 1, 1)]
void main() { Out[0] = CALL; }
"""


@pytest.mark.parametrize("call, profile", [("T.SampleCmpLevelZero(S, float2(0.5, 0.5), 0.5)", "cs_6_0"),
                                           ("T.SampleCmpLevelZero(S, float2(0.5, 0.5), 0.5)", "cs_6_7"),
                                           ("T.SampleCmpLevel(S, float2(0.5, 0.5), 0.5, 0)", "cs_6_7"),
                                           ("T.SampleCmp(S, float2(0.5, 0.5), 0.5)", "cs_6_7")])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_integer_texture_refused_by_sample_cmp(call, profile, target):
    """SM 6.7's integer sampling does not extend to the comparison samples (DXC: 'SampleCmp* cannot support
    integer resource')."""
    name = call.split(".")[1].split("(")[0]
    res = R.compile_hlsl(CMP.replace("ELEM", "int4").replace("CALL", call), profile=profile, target=target)
    assert R.errors(res) == [f"5:26: cannot {name} from resource containing int4"]


@pytest.mark.parametrize("elem", ["int4", "float4"])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_gather_cmp_is_not_restricted(elem, target):
    """DXC's rule leaves GatherCmp out: it compiles on an integer texture as on a float one (the control:
    the same shader with SampleCmpLevelZero on int4 is refused above)."""
    res = R.compile_hlsl(CMP.replace("ELEM", elem).replace("CALL", "T.GatherCmp(S, float2(0.5, 0.5), 0.5)"),
                         target=target)
    assert res.ok, R.diagnostics_text(res)


NESTED_CASES = """
RWStructuredBuffer<uint> Out : register(u0);
[numthreads(8, 1, 1)]
void main(uint t : SV_GroupThreadID) {
    uint r = 1;
    switch (t) {
    case 0:
        r += 10;
        {
            r *= 3;
    case 1:
            r += 100;
            {
    case 2:
                r += 1000;
                if (t == 2) break;
            }
            r += 7;
        }
        r *= 2;
        break;
    case 3: {
        r = 50;
        break;
    }
    default:
        {
            r = 9;
    case 5:
            r += 4;
        }
    }
    Out[t] = r;
}
"""


def nested_cases_model(t: int) -> int:
    """The switch above run by hand: entering at a label runs everything after it to a break."""
    entry = {0: 0, 1: 1, 2: 2, 3: 3, 5: 5}.get(t, 4)      # 4: default
    r = 1
    if entry == 3:
        return 50
    if entry >= 4:
        return (9 if entry == 4 else r) + 4
    if entry == 0:
        r = (r + 10) * 3
    if entry <= 1:
        r += 100
    r += 1000
    if t == 2:
        return r
    return (r + 7) * 2


def test_case_labels_in_nested_blocks_run():
    out = R.cs(NESTED_CASES, {"Out": R.storage(R.sentinel(8))})
    assert R.unpack("I", out["Out"]) == [nested_cases_model(t) for t in range(8)]


NESTED_REFUSED = """RWStructuredBuffer<uint> Out : register(u0);
[numthreads(1, 1, 1)]
void main(uint t : SV_GroupThreadID) {
    uint r = 0;
    switch (t) {
    case 0:
        BODY
    }
    Out[0] = r;
}
"""


@pytest.mark.parametrize("body, message", [
    ("if (r == 0) { case 1: r = 2; }", "7:23: a 'case' label inside an if or a loop of a switch is not supported"),
    ("{ uint k = 3; case 1: r = k; }", "7:11: a declaration in a block that holds a case label is not supported"),
], ids=["in-if", "declaring-block"])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_case_labels_we_do_not_flatten_are_refused(body, message, target):
    """A label in an if or a loop is an unstructured jump; a block's declaration would outlive the block once
    flattened: both refused, located, rather than compiled wrongly."""
    res = R.compile_hlsl(NESTED_REFUSED.replace("BODY", body), target=target)
    assert R.errors(res) == [message]


LATE_TEMPLATE = """RWStructuredBuffer<float> Out : register(u0);
template<typename T> T scaled(T x, T k);
template<typename T> T twice(T);
float viaHelper(float v) { return scaled(v, 4.0f) + twice<int>(3); }
[numthreads(1, 1, 1)]
void main() {
    Out[0] = twice(3.5);
    Out[1] = twice(2);
    Out[2] = viaHelper(1.25);
}
template<typename U> U twice(U y) { return y + y; }
template<typename T> T scaled(T x, T k) { return x * k - twice(x); }
"""


def test_template_called_before_its_definition_runs():
    out = R.cs(LATE_TEMPLATE, {"Out": R.storage(R.sentinel(3))})
    assert R.unpack("f", out["Out"]) == [3.5 * 2, 4.0, 1.25 * 4.0 - 1.25 * 2 + 3 * 2]


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_template_only_declared_later_is_undeclared(target):
    """C++ too: a name must be declared before its use; a declaration that is never defined is refused."""
    src = ("RWStructuredBuffer<float> Out : register(u0);\n[numthreads(1, 1, 1)]\n"
           "void main() { Out[0] = twice(3.5); }\ntemplate<typename T> T twice(T x) { return x + x; }\n")
    assert R.errors(R.compile_hlsl(src, target=target)) == ["3:24: use of undeclared identifier 'twice'"]
    never = "RWStructuredBuffer<float> Out : register(u0);\ntemplate<typename T> T twice(T x);\n" + src.split("\n", 1)[1]
    never = never.rsplit("template", 1)[0]
    assert R.errors(R.compile_hlsl(never, target=target)) == ["2:24: function 'twice' is declared but never defined"]


NAMED_TWICE = """RWStructuredBuffer<float> Out : register(u0);
FIRST
SECOND
[numthreads(1, 1, 1)]
void main() { Out[0] = 1; }
"""
STRUCT_TEMPLATE = "template<typename T> struct f { T v; };"


@pytest.mark.parametrize("first, second, col", [
    ("template<typename T> T f(T x) { return x; }", STRUCT_TEMPLATE, 29),
    ("float f(float x) { return x; }", STRUCT_TEMPLATE, 29),
    (STRUCT_TEMPLATE, "template<typename T> T f(T x) { return x; }", 24),
    (STRUCT_TEMPLATE, "float f(float x) { return x; }", 7),
], ids=["template-then-struct", "function-then-struct", "struct-then-template", "struct-then-function"])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_struct_template_named_like_a_function(first, second, col, target):
    res = R.compile_hlsl(NAMED_TWICE.replace("FIRST", first).replace("SECOND", second), target=target)
    assert R.errors(res) == [f"3:{col}: redefinition of 'f' as different kind of symbol"]


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_plain_struct_and_function_template_may_share_a_name(target):
    """C++ lets a function (template) hide a plain struct of its name (only a class template's name is its
    own): the control that the check above is about templates.  (Called, executed: test_front_gaps13.py.)"""
    src = NAMED_TWICE.replace("FIRST", "struct f { float v; };").replace(
        "SECOND", "template<typename T> T f(T x) { return x; }")
    res = R.compile_hlsl(src, target=target)
    assert res.ok, R.diagnostics_text(res)


USING = """RWStructuredBuffer<float> Out : register(u0);
static const float x = 1;
namespace N { static const float x = 2; float inside() { return x; } }
BODY
[numthreads(1, 1, 1)]
void main() { USE }
"""


@pytest.mark.parametrize("body, use, where", [
    ("using namespace N;", "Out[0] = x;", "6:24"),
    ("", "using namespace N; Out[0] = x;", "6:43"),
], ids=["global-directive", "local-directive"])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_global_and_used_namespace_member_are_ambiguous(body, use, where, target):
    res = R.compile_hlsl(USING.replace("BODY", body).replace("USE", use), target=target)
    assert R.errors(res) == [f"{where}: reference to 'x' is ambiguous"]


def test_names_that_settle_the_lookup_run():
    """A local hides both; `::x` and `N::x` name one each; inside N its own x wins: 1 + 2 + 5 + 2 + 2."""
    use = ("float x0 = ::x + N::x; { float x = 5; x0 += x; } Out[0] = x0 + N::inside() + q();")
    src = USING.replace("BODY", "using namespace N;\nfloat q() { return N::x; }").replace("USE", use)
    out = R.cs(src, {"Out": R.storage(R.sentinel(1))})
    assert R.unpack("f", out["Out"]) == [1 + 2 + 5 + 2 + 2]


CALLS = """RWStructuredBuffer<float> Out : register(u0);
namespace N { float g() { return 3; } float h(int k) { return k * 10; } }
float g() { return 4; }
float h(float v) { return v + 0.5; }
using namespace N;
[numthreads(1, 1, 1)]
void main() { USE }
"""


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_global_function_and_used_namespace_function_join(target):
    """The overload sets join: two g() of one signature make the call ambiguous (clang's words)."""
    res = R.compile_hlsl(CALLS.replace("USE", "Out[0] = g();"), target=target)
    assert R.errors(res) == ["7:24: call to 'g' is ambiguous"]


def test_joined_overloads_pick_the_best_run():
    """h(2) takes N::h(int) (an exact match), h(2.0) the global h(float): 20 + 2.5."""
    out = R.cs(CALLS.replace("USE", "Out[0] = h(2) + h(2.0);"), {"Out": R.storage(R.sentinel(1))})
    assert R.unpack("f", out["Out"]) == [2 * 10 + 2.0 + 0.5]
