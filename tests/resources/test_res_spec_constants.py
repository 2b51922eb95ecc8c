"""[[vk::constant_id(N)]] specialisation constants (DXC SPIR-V.rst, "Specialization constants").

SPIR-V: OpSpecConstant* decorated SpecId N, executed on lavapipe with the default values and with a
VkSpecializationInfo overriding them; the manifest lists them (checked against spirv-cross).
DXIL has no specialisation: the default value is used as a constant.  Diagnostics for misuse.
"""

from __future__ import annotations

import re
import struct

import pytest
import res_util as R
from harness import tools

pytestmark = [pytest.mark.spirv_tools]

SRC = """
[[vk::constant_id(3)]] const int   KInt   = -7;
[[vk::constant_id(0)]] const uint  KUint  = 5u;
[[vk::constant_id(1)]] const float KFloat = 1.5;
[[vk::constant_id(2)]] const bool  KBool  = true;
[[vk::constant_id(9)]] const int   Unused = 4;
static const int Twice = KInt * 2;      // a static initialised from a specialisation constant
RWStructuredBuffer<uint> Out : register(u0);

int pick() { if (KBool) return 100; else return 200; }

[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    Out[0] = asuint(KInt);
    Out[1] = KUint;
    Out[2] = asuint(KFloat);
    Out[3] = KBool ? 1u : 0u;
    Out[4] = asuint(KInt * 3 + (int)KUint);     // arithmetic
    Out[5] = asuint(KFloat * 2.0f + 0.25f);
    Out[6] = asuint(pick());                       // a branch
    Out[7] = asuint(Twice);
    uint acc = 0;
    for (uint i = 0; i < KUint; ++i)               // a loop bound
        acc += i;
    Out[8] = acc;
}
"""

N = 9


def _f(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def _u(x: int) -> int:
    return x & 0xFFFFFFFF


def _expected(k_int: int, k_uint: int, k_float: float, k_bool: bool) -> list[int]:
    return [_u(k_int), k_uint, _f(k_float), int(k_bool), _u(k_int * 3 + k_uint), _f(k_float * 2.0 + 0.25),
            100 if k_bool else 200, _u(k_int * 2), sum(range(k_uint))]


def _run(res, spec: dict[int, bytes] | None) -> list[int]:
    vk = R.vk_runner()
    descs = R.bind([res.manifest], {"Out": R.storage(R.sentinel(N))})
    (out,) = vk.run_compute(res.binary, "main", descs, specialization=spec)
    return R.unpack("I", out)


def test_spirv_form_and_manifest():
    res = R.build(SRC)
    dis = R.spirv_dis(res)
    for name, sid in (("KInt", 3), ("KUint", 0), ("KFloat", 1), ("KBool", 2), ("Unused", 9)):
        assert re.search(rf"OpDecorate %{name} SpecId {sid}\b", dis), dis
    assert re.search(r"%KInt = OpSpecConstant %int -7\b", dis)
    assert re.search(r"%KUint = OpSpecConstant %uint 5\b", dis)
    assert re.search(r"%KFloat = OpSpecConstant %float 1\.5\b", dis)
    assert re.search(r"%KBool = OpSpecConstantTrue %bool\b", dis)
    assert "$Globals" not in dis and "Globals" not in str(res.manifest["resources"])
    assert not [d for d in res.diagnostics if d.severity == "warning"]
    want = [{"name": "KUint", "id": 0, "type": "uint", "default": 5},
            {"name": "KFloat", "id": 1, "type": "float", "default": 1.5},
            {"name": "KBool", "id": 2, "type": "bool", "default": True},
            {"name": "KInt", "id": 3, "type": "int", "default": -7},
            {"name": "Unused", "id": 9, "type": "int", "default": 4}]
    assert res.manifest["spec_constants"] == want
    cross = tools.spirv_cross_reflect(res.binary)["specialization_constants"]
    assert sorted((c["name"], c["id"], c["type"], c["default_value"]) for c in cross) == \
        sorted((c["name"], c["id"], c["type"], c["default"]) for c in want)


def test_manifest_deterministic_and_empty():
    a = R.compile_hlsl(SRC + "\n")
    b = R.compile_hlsl(SRC + "\n\n")
    assert a.ok and b.ok and a.manifest["spec_constants"] == b.manifest["spec_constants"]
    plain = R.build("RWStructuredBuffer<uint> O; [numthreads(1,1,1)] void main() { O[0] = 1; }")
    assert plain.manifest["spec_constants"] == []
    dx = R.compile_hlsl(SRC, target="dxil")
    assert dx.ok and "spec_constants" not in dx.manifest


@pytest.mark.vulkan
def test_defaults_executed():
    """Without specialisation; R.run_cs also runs the DXIL twin (DXIL takes the defaults as constants)."""
    out = R.run_cs(R.build(SRC), {"Out": R.storage(R.sentinel(N))})
    assert R.unpack("I", out["Out"]) == _expected(-7, 5, 1.5, True)


@pytest.mark.vulkan
@pytest.mark.parametrize("k_int,k_uint,k_float,k_bool", [
    (12, 3, -0.5, False),
    (-100, 10, 3.25, True),
    (0, 0, 0.0, False),
])
def test_overridden_executed(k_int, k_uint, k_float, k_bool):
    spec = {3: struct.pack("<i", k_int), 0: struct.pack("<I", k_uint), 1: struct.pack("<f", k_float),
            2: struct.pack("<I", int(k_bool))}
    assert _run(R.build(SRC), spec) == _expected(k_int, k_uint, k_float, k_bool)


@pytest.mark.vulkan
def test_partial_override_keeps_other_defaults():
    spec = {0: struct.pack("<I", 4), 9: struct.pack("<i", 1234)}   # 9 is declared but unused
    assert _run(R.build(SRC), spec) == _expected(-7, 4, 1.5, True)


@pytest.mark.vulkan
@pytest.mark.parametrize("decl,value,override,want", [
    ("const int K = -3", "asuint(K)", struct.pack("<i", 9), (_u(-3), 9)),
    ("const uint K = 0xFFFFFFF0u", "K + 1", struct.pack("<I", 41), (0xFFFFFFF1, 42)),
    ("const float K = 2", "asuint(K)", struct.pack("<f", 0.125), (_f(2.0), _f(0.125))),
    ("const bool K = false", "K ? 7u : 8u", struct.pack("<I", 1), (8, 7)),
    ("const int K = 1 + 2 * 3", "asuint(K)", struct.pack("<i", -1), (7, _u(-1))),
    ("const float K = -1.5e2", "asuint(K)", struct.pack("<f", 4.0), (_f(-150.0), _f(4.0))),
])
def test_scalar_kinds(decl, value, override, want):
    src = (f"[[vk::constant_id(5)]] {decl};\nRWStructuredBuffer<uint> Out;\n"
           f"[numthreads(1, 1, 1)] void main() {{ Out[0] = {value}; }}\n")
    res = R.build(src)
    vk = R.vk_runner()
    got = []
    for spec in (None, {5: override}):
        descs = R.bind([res.manifest], {"Out": R.storage(R.sentinel(1))})
        (out,) = vk.run_compute(res.binary, "main", descs, specialization=spec)
        got.append(R.unpack("I", out)[0])
    assert tuple(got) == want


def test_dxil_uses_default():
    """DXIL has no specialisation (DXC ignores the attribute there): the defaults are constants."""
    res, check = R.build_dxil(SRC)
    assert "spec_constants" not in res.manifest
    assert [p["Name"] for p in check.container["Parts"]][-1] == "DXIL"
    ll = check.ir
    stores = dict(re.findall(r"call void @dx\.op\.bufferStore\.i32\(i32 69, %dx\.types\.Handle %\w+, i32 (\d+), "
                             r"i32 0, i32 (-?\d+|%\d+)", ll))
    assert stores.get("0") == "-7" and stores.get("1") == "5", ll        # KInt, KUint: their defaults
    assert "bitcast float 1.500000e+00 to i32" in ll, ll                  # asuint(KFloat)
    assert "store i32 -14, ptr @Twice" in ll, ll                          # Twice = KInt * 2
    assert "KInt" not in ll and "$Globals" not in ll and "cbuffer" not in ll


# ---------------------------------------------------------------- diagnostics

BODY = "\nRWStructuredBuffer<uint> Out;\n[numthreads(1, 1, 1)] void main() { Out[0] = 0; }\n"


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("src,line,col,message", [
    ("[[vk::constant_id(1)]] const int K;", 1, 34, "requires an initializer"),
    ("uint U;\n[[vk::constant_id(1)]] const uint K = U;", 2, 39, "must be a constant expression"),
    ("[[vk::constant_id(1)]] const int A = 1;\n[[vk::constant_id(2)]] const int K = A + 1;", 2, 40,
     "must be a constant expression"),
    ("[[vk::constant_id(1)]] const float2 K = 1;", 1, 37, "must have a scalar type"),
    ("[[vk::constant_id(1)]] const int K[2] = {1, 2};", 1, 34, "must have a scalar type"),
    ("struct S { int a; };\n[[vk::constant_id(1)]] const S K = (S)0;", 2, 32, "must have a scalar type"),
    ("[[vk::constant_id(1)]] const int A = 1;\n[[vk::constant_id(1)]] const int K = 2;", 2, 19,
     "id 1 is already used by 'A'"),
    ("[[vk::constant_id(-1)]] const int K = 1;", 1, 19, "non-negative integer literal"),
    ("[[vk::constant_id(1.5)]] const int K = 1;", 1, 19, "non-negative integer literal"),
    ("static const int I = 2;\n[[vk::constant_id(I)]] const int K = 1;", 2, 19, "non-negative integer literal"),
    ("[[vk::constant_id(1)]] int K = 1;", 1, 28, "must be declared 'const'"),
    ("[[vk::constant_id(1)]] static const int K = 1;", 1, 41, "must be declared 'const'"),
    ("[[vk::constant_id(1)]] groupshared int K;", 1, 40, "must be declared 'const'"),
    ("void f() { [[vk::constant_id(1)]] const int K = 1; }", 1, 14, "only allowed on a global variable"),
])
def test_errors(src, line, col, message, target):
    res = R.compile_hlsl(src + BODY, target=target)
    assert not res.ok
    errs = R.errors(res)
    assert errs and errs[0].startswith(f"{line}:{col}: ") and message in errs[0], errs
    text = R.diagnostics_text(res)
    assert f"res_test.hlsl:{line}:{col}: error:" in text and "^" in text, text


def test_duplicate_id_note_points_at_first():
    res = R.compile_hlsl("[[vk::constant_id(4)]] const int A = 1;\n[[vk::constant_id(4)]] const int B = 2;" + BODY)
    text = R.diagnostics_text(res)
    assert "res_test.hlsl:1:" in text and "note: 'A' is declared here" in text, text


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("src,message", [
    ("[[vk::constant_id(1)]] const int K = 4;\nstatic int Arr[K];",
     "specialization constant 'K' is only known when the pipeline is created"),
    ("[[vk::constant_id(1)]] const uint K = 4;\nRWStructuredBuffer<uint> Out;\n"
     "[numthreads(K * 2, 1, 1)] void main() { Out[0] = 0; }",
     "specialization constant 'K' is only known when the pipeline is created"),
])
def test_not_a_compile_time_constant(src, message, target):
    if "main" not in src:
        src += BODY
    res = R.compile_hlsl(src, target=target)
    assert not res.ok
    errs = R.errors(res)
    assert errs and message in errs[0], errs


def test_cannot_assign():
    res = R.compile_hlsl("[[vk::constant_id(1)]] const int K = 4;\nRWStructuredBuffer<int> Out;\n"
                         "[numthreads(1, 1, 1)] void main() { K = 3; Out[0] = K; }")
    assert not res.ok and "'K' is a specialization constant, not a variable" in R.errors(res)[0]


def test_non_finite_default_is_valid_json():
    """JSON has no infinity: a default of 3.4e39f (float infinity) is written as "inf"."""
    import json
    from importlib import resources

    import jsonschema

    res = R.compile_hlsl("[[vk::constant_id(4)]] const float Big = 3.4e39f;\n"
                         "[[vk::constant_id(5)]] const float Small = -3.4e39f;\n"
                         "RWStructuredBuffer<float> O : register(u0);\n"
                         "[numthreads(1,1,1)] void main() { O[0] = Big + Small; }")
    tools.spirv_val(res.binary)        # (spirv-cross --reflect itself prints a bare `inf` here)
    assert [c["default"] for c in res.manifest["spec_constants"]] == ["inf", "-inf"]
    text = json.dumps(res.manifest, allow_nan=False)        # raises on Infinity/NaN
    schema = json.loads(resources.files("shaderbuild.reflect").joinpath("manifest.schema.json").read_text())
    jsonschema.validate(json.loads(text), schema)
