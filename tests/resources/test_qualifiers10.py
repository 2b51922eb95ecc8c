"""Register forms DXC accepts that look wrong (issue 20): each is taken as DXC's codegen takes it, with a
warning where the written form does not say what the binding becomes, and checked in both targets' binaries
through independent tools (spirv-dis / spirv-val; llvm-dis-19 via harness.dxil_tools.check_dxil, whose
container also goes through dxil-spirv).
"""

from __future__ import annotations

import re

import pytest
import res_util as R
from harness import dxil_tools, tools

from shaderbuild.options import BindRegister

pytestmark = [pytest.mark.spirv_tools]


def _bindings(dis: str) -> dict[str, int]:
    """variable name -> its Binding decoration."""
    names = dict(re.findall(r'OpName (%\S+) "(\w+)"', dis))
    return {names[i]: int(n) for i, n in re.findall(r"OpDecorate (%\S+) Binding (\d+)", dis) if i in names}


def _dxil_resources(ir: str) -> dict[str, tuple[str, int, int]]:
    """name -> (class, space, lower bound) from !dx.resources = !{SRVs, UAVs, CBVs, samplers} (DXIL.rst: each
    record is id, symbol, name, space, lower bound, range, ...)."""
    top = re.search(r"^!dx\.resources = !\{(!\d+)\}$", ir, re.M)
    assert top, ir
    out = {}
    lists = [f.strip() for f in _node(ir, top.group(1)).split(",")]
    for cls, ref in zip("tubs", lists, strict=True):
        if ref == "null":
            continue
        for rec in _node(ir, ref).split(", "):
            fields = [f.strip() for f in _node(ir, rec).split(",")]
            name = re.fullmatch(r'!"(\w+)"', fields[2])
            assert name, fields
            out[name.group(1)] = (cls, int(fields[3].split()[1]), int(fields[4].split()[1]))
    return out


def _node(ir: str, ref: str) -> str:
    m = re.search(rf"^{re.escape(ref)} = !\{{(.*)\}}$", ir, re.M)
    assert m, (ref, ir)
    return m.group(1)


# ------------------------------------------------------------------ a texture's 's', a sampler's 't'

OTHER_CLASS_PS = """Texture2D tex : register(s0);
SamplerState smp : register(t1);
Texture2D plain : register(t3);
float4 main(float2 uv : TEXCOORD0) : SV_Target { return tex.Sample(smp, uv) + plain.Sample(smp, uv); }
"""


def _warnings(res) -> list[str]:
    return [f"{d.loc.line}:{d.loc.col}: {d.message}" for d in res.diagnostics if d.severity == "warning"]


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_other_class_register_warns(target):
    """DXC's Sema (DiagnoseRegisterType) takes `register(sN)` on a texture and `register(tN)` on a sampler; the
    binding is not the written one in every target, so a warning at the register says what it becomes."""
    res = R.compile_hlsl(OTHER_CLASS_PS, "main", "ps_6_0", target)
    assert res.ok, R.diagnostics_text(res)
    warns = _warnings(res)
    assert len(warns) == 2, warns
    assert warns[0].startswith("1:17: register class 's' on shader resource view 'tex'") and "'t0'" in warns[0]
    assert warns[1].startswith("2:20: register class 't' on sampler 'smp'") and "'s1'" in warns[1]


@pytest.mark.parametrize(("shifts", "expected"), [
    ((), {"tex": 0, "smp": 1, "plain": 3}),
    # DXC's SPIR-V adds the shift of the letter written (DeclResultIdMapper): tex takes s's 10, smp t's 20
    ((("s", 10, 0), ("t", 20, 0)), {"tex": 10, "smp": 21, "plain": 23}),
])
def test_other_class_register_spirv_bindings(shifts, expected):
    res = R.compile_hlsl(OTHER_CLASS_PS, "main", "ps_6_0", "spirv", shifts=shifts)
    assert res.ok, R.diagnostics_text(res)
    tools.spirv_val(res.binary, "vulkan1.1")
    assert _bindings(tools.spirv_dis(res.binary)) == expected


def test_other_class_register_bind_register_matches_the_written_letter():
    """-fvk-bind-register entries match the letter written (DXC's RegisterBindingMapper reads RegisterType):
    `s0` maps the texture, `t1` the sampler; an entry for the resource's own class would not."""
    maps = [BindRegister("s", 0, 0, 5, 1), BindRegister("t", 1, 0, 6, 1), BindRegister("t", 3, 0, 7, 1)]
    res = R.compile_hlsl(OTHER_CLASS_PS, "main", "ps_6_0", "spirv", vk_bind_registers=maps)
    assert res.ok, R.diagnostics_text(res)
    tools.spirv_val(res.binary, "vulkan1.1")
    assert _bindings(tools.spirv_dis(res.binary)) == {"tex": 5, "smp": 6, "plain": 7}
    own = [BindRegister("t", 0, 0, 5, 1), BindRegister("s", 1, 0, 6, 1), BindRegister("t", 3, 0, 7, 1)]
    errs = R.errors(R.compile_hlsl(OTHER_CLASS_PS, "main", "ps_6_0", "spirv", vk_bind_registers=own))
    assert errs and "'tex' (s0, space0) has no -fvk-bind-register mapping" in errs[0], errs


@pytest.mark.llvm
def test_other_class_register_dxil_records():
    """DXC's codegen (InitFromUnusualAnnotations) keeps the number in the resource's own class: the texture is
    SRV t0, the sampler s1."""
    res = R.compile_hlsl(OTHER_CLASS_PS, "main", "ps_6_0", "dxil")
    assert res.ok, R.diagnostics_text(res)
    recs = _dxil_resources(dxil_tools.check_dxil(res.binary).ir)
    assert recs == {"tex": ("t", 0, 0), "smp": ("s", 0, 1), "plain": ("t", 0, 3)}, recs


@pytest.mark.parametrize(("decl", "where"), [
    ("Buffer<float4> b : register(s0);", "1:20"),           # only textures take 's'
    ("SamplerState s : register(u0);", "1:18"),
    ("RWTexture2D<float4> r : register(s0);", "1:25"),
])
def test_other_classes_still_refused(decl, where):
    src = decl + "\nRWBuffer<float4> o : register(u1);\n[numthreads(1, 1, 1)] void main() { o[0] = 0; }\n"
    errs = R.errors(R.compile_hlsl(src, "main", "cs_6_0", "spirv"))
    assert errs and errs[0].startswith(where + ": invalid register class"), errs


# ------------------------------------------------------------------ register(c1[2]) / register(c0.z)

SUB_TAIL = "RWBuffer<float4> o : register(u0);\n[numthreads(1, 1, 1)] void main() { o[0] = a; }\n"


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_register_subcomponent_ignored_with_a_warning(target):
    """DXC's parser takes `[constant]` after the register and neither code generator reads it (the
    placement itself is executed in test_res_register_reservations.py's global_register_subcomponent)."""
    src = "float4 a : register(c1[2]);\nTexture2D<float4> t : register(t2[0], space1);\n" + SUB_TAIL
    res = R.compile_hlsl(src, "main", "cs_6_0", target)
    assert res.ok, R.diagnostics_text(res)
    assert _warnings(res) == ["1:23: register subcomponent [2] is ignored: the register is c1 (as DXC)",
                              "2:34: register subcomponent [0] is ignored: the register is t2 (as DXC)"]


@pytest.mark.parametrize(("decl", "expected"), [
    ("float4 a : register(c0.z);", "1:23: expected ')', found '.'"),       # DXC: expected ')' (no component form)
    ("float4 a : register(c0[-1]);", "1:24: register subcomponent is not an integral constant"),
    ('float4 a : register(c0["x"]);', "1:24: register subcomponent is not an integral constant"),
    ("float4 a : register(c1[1]) : register(c1[2]);", "1:30: conflicting register semantics"),
])
def test_register_subcomponent_errors(decl, expected):
    for target in ("spirv", "dxil"):
        errs = R.errors(R.compile_hlsl(decl + "\n" + SUB_TAIL, "main", "cs_6_0", target))
        assert errs[:1] == [expected], errs


@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_other_class_register_takes_its_own_class_slot(target):
    """`register(s0)` on a texture takes SRV t0: a second texture at t0 overlaps it (a sampler at s0 would not)."""
    src = "Texture2D a : register(s0);\nTexture2D b : register(t0);\nSamplerState s : register(s1);\n" \
          "float4 main(float2 uv : TEXCOORD0) : SV_Target { return a.Sample(s, uv) + b.Sample(s, uv); }\n"
    assert R.errors(R.compile_hlsl(src, "main", "ps_6_0", target)) == [
        "2:11: resource 'b' overlaps resource 'a' at register t0, space0"]
    beside = src.replace("register(t0)", "register(t1)").replace("register(s1)", "register(s0)")
    assert R.compile_hlsl(beside, "main", "ps_6_0", target).ok


OTHER_CLASS_CS = """
Texture2D<float> Tex : register(s0);
Texture2D<float> Other : register(t3);
SamplerState Linear : register(t1);
SamplerState Nearest : register(s2);
RWStructuredBuffer<float> Out : register(u5);
[numthreads(1, 1, 1)] void main() {
    Out[0] = Tex.SampleLevel(Linear, float2(0.5, 0.5), 0);      // halfway between texels 1 and 2
    Out[1] = Other.SampleLevel(Nearest, float2(0.3, 0.5), 0);   // texel 1
}
"""


@pytest.mark.vulkan
def test_other_class_register_executed():
    """Executed (SPIR-V on lavapipe, its DXIL twin through dxil-spirv): each resource is bound where the
    manifest says and reads its own data; the linear sampler at `register(t1)` filters."""
    row = R.pack("f", [0.0, 10.0, 20.0, 30.0])
    other = R.pack("f", [1.0, 2.0, 3.0, 4.0])
    out = R.cs(OTHER_CLASS_CS, {"Tex": R.image(row, 4, 1, "r32f"), "Other": R.image(other, 4, 1, "r32f"),
                                "Linear": R.sampler(filter="linear"), "Nearest": R.sampler(),
                                "Out": R.storage(R.sentinel(2))})
    assert R.approx(R.unpack("f", out["Out"]), [15.0, 2.0], 1e-2)
