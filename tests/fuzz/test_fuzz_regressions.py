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


# (id, reproducer, finding, open bug or None).  `finding` says what the fuzzer saw before the fix;
# `open` is "<component>: <bug>" while the bug is unfixed (the case is then a strict xfail), or a
# {target: "<component>: <bug>"} dict when only some backends have it.
REGRESSIONS = [
    ("huge_decimal_literal", in_main("O[0] = " + "9" * 5000 + ";"),
     "parser: ValueError from int() on a 5000-digit literal -> internal compiler error", None),
    ("nested_parens_250", in_main("O[0] = " + "(" * 250 + "1" + ")" * 250 + ";"),
     "parser: Python recursion limit below MAX_NESTING; error without location", None),
    ("nested_calls_250", in_main("O[0] = " + "f(" * 250 + "1" + ")" * 250 + ";"),
     "parser: Python recursion limit; error without location", None),
    ("nested_ternary_250", in_main("O[0] = " + "true?(" * 250 + "1" + "):0" * 250 + ";"),
     "parser: Python recursion limit; error without location", None),
    ("nested_switch_1000", in_main("switch(0){default:" * 1000 + "}" * 1000),
     "parser: switch nesting not counted by the nesting limit; recursion error without location", None),
    ("inf_literal_as_index", in_main("O[1e999999] = 1;"),
     "sema: OverflowError converting an infinite float constant to int -> internal compiler error", None),
    ("inf_literal_to_int", in_main("int x = 1e999999; O[0] = x;"),
     "sema: OverflowError converting an infinite float constant to int -> internal compiler error", None),
    ("float_literal_overflows_binary32", in_main("F[0] = 1e39;"),
     "backends: struct.pack('f') OverflowError on a constant beyond binary32 range",
     None),
    ("float_suffixed_literal_overflows_binary32", in_main("F[0] = 3.4e39f;"),
     "backends: struct.pack('f') OverflowError on an f-suffixed constant beyond binary32 range",
     None),
    ("folded_float_infinity", in_main("F[0] = 1e300 * 10;"),
     "backends: constant folding to infinity -> struct.pack OverflowError",
     None),
    ("numthreads_ternary_argument", (HEAD + "[numthreads(4, 1, true ? 1 : 0)]\nvoid main() { O[0] = 1; }\n").encode(),
     "sema: 'expression requires a function context' without file:line:col", None),
    ("numthreads_call_argument", (HEAD + "[numthreads(4, 1, f(1))]\nvoid main() { O[0] = 1; }\n").encode(),
     "sema: 'expression requires a function context' without file:line:col", None),
    ("local_struct_with_method",
     b"RWStructuredBuffer<int> O : register(u0);\n[numthreads(1,1,1)] void main() {\n"
     b"    struct S { int id; int Id() { return id; } };\n    S s; s.id = 1; O[0] = s.Id();\n}\n",
     "sema: AttributeError at stmts.py:96 ('NoneType' has no attribute 'locals') -> internal compiler error",
     None),
    ("buffer_empty_template_get_dimensions",
     b"Buffer<> In : register(t0);\nRWStructuredBuffer<uint> Out : register(u1);\n"
     b"[numthreads(1,1,1)] void main() { uint n; In.GetDimensions(n); Out[0] = n; }\n",
     "dxil: \"type 'void' cannot be used as a value in the DXIL backend\" without file:line:col", None),
    ("byte_address_store_scalar",
     b"RWByteAddressBuffer Out : register(u0);\n"
     b"[numthreads(4,1,1)] void main(uint3 t : SV_DispatchThreadID) { Out.Store(t.x * 4, 1); }\n",
     "dxil: \"intrinsic 'Store' is not supported by the DXIL backend yet\" without file:line:col", None),
    ("byte_address_load3",
     b"ByteAddressBuffer In : register(t0);\nRWStructuredBuffer<uint> Out : register(u1);\n"
     b"[numthreads(1,1,1)] void main() { uint3 v = In.Load3(16); Out[0] = v.x; }\n",
     "dxil: \"'ByteAddressBuffer' is not a texture\" without file:line:col", None),
    ("texture_get_dimensions",
     b"RWTexture2D<float4> Img : register(u1);\nRWStructuredBuffer<uint> Out : register(u0);\n"
     b"[numthreads(1,1,1)] void main() { uint w, h; Img.GetDimensions(w, h); Out[0] = w; }\n",
     "dxil: \"type 'void' cannot be used as a value in the DXIL backend\" without file:line:col", None),
    ("case_label_wraps_to_duplicate",
     b"RWStructuredBuffer<int> O : register(u0);\n[numthreads(1,1,1)] void main(uint3 tid : SV_DispatchThreadID) {\n"
     b"    switch (tid.x) { case 0: O[0] = 1; break; case 4294967296: O[0] = 2; break; }\n}\n",
     "dxil: 'duplicate case value 4294967296' without file:line:col",
     None),
    ("structured_buffer_increment_counter",
     b"RWStructuredBuffer<uint> Items : register(u0);\n[numthreads(4,1,1)] void main(uint3 t : SV_DispatchThreadID) {\n"
     b"    uint i = Items.IncrementCounter();\n    Items[i] = t.x;\n}\n",
     "dxil: \"intrinsic 'IncrementCounter' is not supported by the DXIL backend yet\" without file:line:col",
     None),
    ("unsized_array_in_cbuffer",
     b"RWStructuredBuffer<float> Out : register(u0);\n"
     b"cbuffer C : register(b1) { float a[]; float b; };\n"
     b"[numthreads(1, 1, 1)]\nvoid main() { Out[0] = a[1]; Out[1] = b; }\n",
     "spirv: invalid output - spirv-val: OpTypeRuntimeArray not the last member of the cbuffer struct",
     None),
    ("vk_offset_without_argument",
     b"cbuffer CB : register(b0) { [[vk::offset()]] float2 b; };\nRWStructuredBuffer<float2> O : register(u0);\n"
     b"[numthreads(1,1,1)] void main() { O[0] = b; }\n",
     "sema: IndexError at lower.py:478 -> internal compiler error",
     None),
    ("texture_as_texture_element",
     b"RWTexture2DArray<Texture2D> Img : register(u0);\n[numthreads(1,1,1)] void main() { }\n",
     "spirv: 'invalid element type Texture2D<float4> for RWTexture2DArray' without file:line:col",
     None),
    ("void_struct_member",
     b"struct S { float a; void c; };\nRWStructuredBuffer<S> Out : register(u0);\n"
     b"[numthreads(1,1,1)] void main() { uint n, s; Out.GetDimensions(n, s); }\n",
     "sema: a struct member of type void is accepted; SPIR-V layout raises TypeError (layout.py:81)",
     None),
    ("constant_switch_break_inside_if",
     b"RWStructuredBuffer<int> O : register(u0);\n[numthreads(1,1,1)] void main(uint3 tid : SV_DispatchThreadID) {\n"
     b"    int p = (int)tid.x;\n    switch (0u & 3) { case 0: { if (p < 3) break; p += 1; } }\n    O[0] = p;\n}\n",
     "spirv -O3: folding the constant switch dropped its merge while the `if` inside the case still broke out "
     "to it (differential campaign, switch-in-loop batch) -> spirv-val: branches to the selection construct",
     None),
    ("void_struct_member_local",
     b"struct S { float a; void c; };\nRWStructuredBuffer<float> Out : register(u0);\n"
     b"[numthreads(1,1,1)] void main() { S s; s.a = 1; Out[0] = s.a; }\n",
     "spirv: invalid output (spirv-val: structures cannot contain a void type); dxil: error without location",
     None),
    ("endless_loop_in_an_if_in_a_switch_case",
     b"RWStructuredBuffer<int> O : register(u0);\n[numthreads(1,1,1)] void main(uint3 tid : SV_DispatchThreadID) {\n"
     b"    switch (tid.z & 3) { case 3: { if (tid.x < 4) { for (;;) {} } break; } }\n    O[0] = 1;\n}\n",
     "dxil: exit 0, but dxil-spirv's SPIR-V of the DXIL fails spirv-val (a block branches to the selection "
     "construct, not to its header); test_mutated_batch input 2126 (deep_nesting put 16 for(;;) in a loop in a "
     "case; the loop's first test is the if here).  Ours: the loop's never-taken exit went to a block holding only "
     "`unreachable`; it now joins the if's other side (cfg.give_endless_loops_an_exit)",
     None),
    ("byte_address_load_struct_holding_a_sampler",
     b"struct S { float a; SamplerState d; };\nRWByteAddressBuffer B : register(u0);\n"
     b"[numthreads(1,1,1)] void main() { S s = B.Load<S>(4); B.Store(0, s.a); }\n",
     "sema: Load<S> of a struct holding a resource reached the layout -> TypeError at layout.py:84 -> internal "
     "compiler error (campaign seed 10102, swap_type on a test_lang_gaps9 seed)", None),
    ("byte_address_store_deduced_struct_holding_a_sampler",
     b"struct S { float a; SamplerState d; };\nRWByteAddressBuffer B : register(u0);\n"
     b"[numthreads(1,1,1)] void main() { S s; s.a = 1; B.Store(0, s); }\n",
     "sema: Store of a deduced struct holding a resource -> TypeError at layout.py:84 -> internal compiler error",
     None),
]


def _open_bug(bug: str | dict | None, target: str) -> str | None:
    return bug.get(target) if isinstance(bug, dict) else bug


CASES = [pytest.param(data, target, id=f"{name}-{target}",
                      marks=[pytest.mark.xfail(strict=True, reason=reason)] if reason else [])
         for name, data, _finding, bug in REGRESSIONS for target in TARGETS
         for reason in [_open_bug(bug, target)]]


@pytest.mark.parametrize(("data", "target"), CASES)
def test_fuzz_regression(data: bytes, target: str, tmp_path) -> None:
    assert_clean(data, target, tmp_path)


LIBRARY = {"profile": "lib_6_5", "entry": "", "vk_target_env": "vulkan1.2"}
# (id, reproducer, compile options, finding): shaders of the stages the stage-aware seeds reach
STAGE_REGRESSIONS = [
    ("library_with_an_error", b'struct P { uint16_t b; };\n[shader("miss")] void ms(inout P p) { p.b = 1; }\n',
     LIBRARY, "sema: any error in a library (no entry name): collecting the entry's stage errors looked up the "
              "name '' -> IndexError at scope.py:117 -> internal compiler error"),
    ("per_primitive_pixel_input_below_spirv_1_4",
     b"struct P { [[vk::location(2)]] [[vk::perprimitive]] nointerpolation float4 tint : TINT; };\n"
     b"float4 main(P p) : SV_Target { return p.tint; }\n", {"profile": "ps_6_0"},
     "spirv: a [[vk::perprimitive]] pixel input for vulkan1.1 emitted SPV_EXT_mesh_shader into SPIR-V 1.3 -> "
     "exit 0 with output spirv-val refuses (4 unmutated test_mesh_* seeds)"),
    ("semantic_index_beyond_32_bits",
     b"struct V { float4 pos : SV_Position; float4x4 c : A4294967295; };\n"
     b"V main(uint i : SV_VertexID) { V v; v.pos = i; v.c = (float4x4)1; return v; }\n", {"profile": "vs_6_0"},
     "dxil: a semantic index past 2^32-1 (here rows 4294967295..4294967298) reached the signature writer -> "
     "struct.error at container.py:188 -> internal compiler error (focus run, semantic mutator on a mesh seed)"),
    ("cbuffer_register_past_int32",
     b"cbuffer C : register(b4294967295) { uint k; };\nstruct VOut { float4 pos : SV_Position; };\n"
     b"VOut main(uint id : SV_VertexID) { VOut o; o.pos = float4(k, id, 0, 1); return o; }\n", {"profile": "vs_6_0"},
     "not ours: dxil-spirv drops a Binding/DescriptorSet literal of 2^31 or more (its SpvBuilder takes an int), so "
     "the DXIL validation failed; now the consumer limit 'binding-past-int32' (focus run, register mutator)"),
]


@pytest.mark.parametrize(("data", "options", "target"),
                         [pytest.param(d, o, t, id=f"{n}-{t}") for n, d, o, _f in STAGE_REGRESSIONS for t in TARGETS])
def test_stage_fuzz_regression(data: bytes, options: dict, target: str, tmp_path) -> None:
    out = compile_one(data, "repro.hlsl", target, True, options, str(tmp_path))
    assert out.acceptable, f"{out.cls}: {out.detail}"


# ---------------------------------------------------------------- executed: the differential generators' findings

STRUCT_FROM_A_LOOP = """RWStructuredBuffer<int> Out : register(u0);
StructuredBuffer<int> In : register(t1);
struct S0 { int x; int f0[3]; };
S0 walk(S0 p, int n) {
    for (int i = 0; i < 4; i++) {
        if (i == n) {
            return p;
        }
        p.x += 1;
    }
    return p;
}
[numthreads(1, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
    S0 v1 = {1, 2, 3, 4};
    S0 v2 = walk(v1, In[0]);
    S0 v3 = walk(v1, In[1]);
    Out[0] = v2.x;
    Out[1] = v3.x;
    Out[2] = v2.f0[2];
}
"""


@pytest.mark.vulkan
@pytest.mark.llvm
@pytest.mark.usefixtures("vk")
@pytest.mark.parametrize("backend", ["spirv", "dxil", "dxil-vk"])
def test_struct_with_an_array_returned_from_a_loop(backend: str) -> None:
    """aggregate_gen finding (tag try, programs 1-11): a struct with an array member returned from inside a
    loop stopped the DXIL backend with an internal error (KeyError in the writer): alloca promotion pruned a
    phi that a phi forwarded by the SSA construction still led to.  x starts at 1 and grows once per
    iteration before the return: n = 2 returns at i == 2 (x = 3), n = 9 runs all 4 iterations (x = 5)."""
    from lang_util import run_backend
    got = run_backend(backend, STRUCT_FROM_A_LOOP, {"Out": ("int", 3)}, {"In": ("int", [2, 9])})["Out"]
    assert got == [3, 5, 4]


STRUCT_FLAT_CAST = """RWStructuredBuffer<int> Out : register(u0);
StructuredBuffer<int> In : register(t1);
struct S0 { int x; int2 v; int a[2]; };
struct T0 { int g0; int2 g1; int g2[2]; };
struct U { int p; int q; };
[numthreads(1, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
    S0 s = {In[0], 20, 30, 40, In[1]};
    T0 t = (T0)s;
    U u = (U)s;
    Out[0] = t.g0;
    Out[1] = t.g1.y;
    Out[2] = t.g2[1];
    Out[3] = u.p;
    Out[4] = u.q;
}
"""


@pytest.mark.vulkan
@pytest.mark.llvm
@pytest.mark.usefixtures("vk")
@pytest.mark.parametrize("backend", ["spirv", "dxil", "dxil-vk"])
def test_explicit_cast_between_struct_types(backend: str) -> None:
    """aggregate_gen finding: `(T0)s` between two struct types was refused ('cannot convert from S0 to T0');
    DXC's CanConvert (SemaHLSL.cpp) allows an explicit cast between aggregates whose elements convert when
    the source has at least as many: the target takes the source's leading components in declaration order.
    s flattens to (10, 20, 30, 40, 50)."""
    from lang_util import run_backend
    got = run_backend(backend, STRUCT_FLAT_CAST, {"Out": ("int", 5)}, {"In": ("int", [10, 50])})["Out"]
    assert got == [10, 30, 50, 10, 20]


NARROWED_AND_WIDENED = """ByteAddressBuffer In : register(t1);
RWByteAddressBuffer Out : register(u0);
[numthreads(1, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
    int64_t a = In.Load<int64_t>(0);
    Out.Store<double>(0, 1.0L / (double)((float)(a)));
    int b = In.Load<int>(8);
    Out.Store<int>(8, (int)((half)(b)));
    double c = In.Load<double>(16);
    Out.Store<double>(16, (double)((float)(c)));
    uint64_t d = In.Load<uint64_t>(24);
    Out.Store<int64_t>(24, (int64_t)((double)(d)));
}
"""


@pytest.mark.vulkan
@pytest.mark.llvm
@pytest.mark.usefixtures("vk")
@pytest.mark.parametrize("route", [
    "spirv", "dxil",
    pytest.param("dxil-vk", marks=pytest.mark.xfail(strict=True, reason="dxil-spirv + lavapipe: "
                                                    "lang_util.LAVAPIPE_ROUND_TRIP (narrowing float conversions "
                                                    "between wider values)")),
])
def test_narrowing_conversions_round_before_widening(route: str) -> None:
    """wide campaign findings (fz10w program 51, fz10w5 programs 141, 144 and 942), each the only dxil-vk difference
    of its program, reduced: (float)(int64_t)0xFFFFFFFF is 2^32 (24 significant bits), so 1 / (double)(float)a is
    2^-32; (half)32767 is 32768 (11 significant bits); (float)(double)(2^32 + 1) is 2^32; (double)(2^53 + 1) is
    2^53 (53 significant bits).  Through dxil-spirv, lavapipe drops each rounding step."""
    import struct

    from fuzz import routes
    data = struct.pack("<qi4xdQ", 0xFFFFFFFF, 32767, 2.0 ** 32 + 1, 2 ** 53 + 1)
    got = routes.run(route, NARROWED_AND_WIDENED, {"In": data, "Out": bytes(32)},
                     profile="cs_6_2", enable_16bit_types=True)["Out"]
    assert struct.unpack("<di4xdq", got) == (2.0 ** -32, 32768, 2.0 ** 32, 2 ** 53)


ZERO_AFTER_MINUS_ONE = """RWByteAddressBuffer Out : register(u0);
ByteAddressBuffer In : register(t1);
[numthreads(1, 1, 1)]
void main() {
    float2 g = {-1.0, 0.0};
    Out.Store<float>(0, g[In.Load<int>(0)]);
}
"""

_NEGATIVE_ZERO = pytest.mark.xfail(strict=True, reason="lavapipe: LAVAPIPE_NEGATIVE_ZERO (a 0.0 read from the "
                                   "constant {-1.0, 0.0} at a run-time index is stored as -0.0; our SPIR-V is an "
                                   "OpStore of the constant, an OpAccessChain and an OpLoad)")


@pytest.mark.vulkan
@pytest.mark.llvm
@pytest.mark.usefixtures("vk")
@pytest.mark.parametrize("route", [pytest.param("spirv", marks=_NEGATIVE_ZERO), "dxil",
                                   pytest.param("dxil-vk", marks=_NEGATIVE_ZERO)])
def test_a_zero_read_at_a_run_time_index_keeps_its_sign(route: str) -> None:
    """aggregates_wide campaign aw10 (programs 627, 633, ...), reduced: a static or local float vector holding
    -1.0 then 0.0, read at index 1 from the buffer, stores the bits 0x80000000 on lavapipe by both Vulkan
    routes (it stores 0 with {1.0, 0.0}); the DXIL interpreter stores 0.  aggregate_gen keeps floats non-zero."""
    import struct

    from fuzz import routes
    got = routes.run(route, ZERO_AFTER_MINUS_ONE, {"In": struct.pack("<i", 1), "Out": bytes([0xEE]) * 4},
                     profile="cs_6_2", enable_16bit_types=True)["Out"]
    assert got == bytes(4)
