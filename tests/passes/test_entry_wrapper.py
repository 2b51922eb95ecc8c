"""passes/entry_wrapper.py: IR text in -> IR text out (stage I/O)."""

from __future__ import annotations

from passutil import expected, sema_module, text

from shaderbuild.passes import entry_wrapper

VS = """
struct VSOut { float4 pos : SV_Position; float2 uv : TEXCOORD1; };
VSOut main(float3 p : POSITION, uint vid : SV_VertexID) {
    VSOut o;
    o.pos = float4(p, 1);
    o.uv = float2(vid, 0);
    return o;
}
"""

VS_SOURCE_FN = """\
    fn main(in p: float3, in vid: uint) -> VSOut {
      local o: VSOut
      store %o.f0 = float4(extract(load(%p), 0), extract(load(%p), 1), extract(load(%p), 2), 1.0:float)
      store %o.f1 = float2(convert<float>(load(%vid)), 0.0:float)
      return load(%o)
    }
"""

# the HLSL function is renamed src.main; the wrapper `main` loads each input variable, calls it
# and stores each field of the returned struct to its output variable; locations are numbered
# per direction (POSITION input 0, TEXCOORD1 output 0); system values stay HLSL semantics here
# (the SPIR-V backend's raise pass gives them BuiltIns)
VS_AFTER = expected("""
    module vertex sm6.0
    input in.POSITION: float3 (POSITION, Location 0)
    input in.SV_VertexID: uint (SV_VertexID, system value)
    output out.SV_Position: float4 (SV_Position, system value)
    output out.TEXCOORD1: float2 (TEXCOORD1, Location 0)
    fn src.main(in p: float3, in vid: uint) -> VSOut {
      local o: VSOut
      store %o.f0 = float4(extract(load(%p), 0), extract(load(%p), 1), extract(load(%p), 2), 1.0:float)
      store %o.f1 = float2(convert<float>(load(%vid)), 0.0:float)
      return load(%o)
    }
    fn main() -> void {
      local ret: VSOut
      store %ret = call src.main(load(%in.POSITION), load(%in.SV_VertexID))
      store %out.SV_Position = extract(load(%ret), 0)
      store %out.TEXCOORD1 = extract(load(%ret), 1)
      return
    }
""")


def test_vertex_struct_output_and_inputs():
    module, options = sema_module(VS, "vs_6_0")
    assert text(module) == expected("    module vertex sm6.0\n" + VS_SOURCE_FN)
    entry_wrapper.run(module, options)
    assert text(module) == VS_AFTER
    entry = module.entry
    assert entry.function is module.functions[-1] and entry.source_function.name == "src.main"
    assert [v.name for v in entry.inputs] == ["in.POSITION", "in.SV_VertexID"]
    assert [v.name for v in entry.outputs] == ["out.SV_Position", "out.TEXCOORD1"]


def test_compute_system_value_input():
    module, options = sema_module("""
        RWStructuredBuffer<uint> Out : register(u0);
        [numthreads(4,1,1)]
        void main(uint3 id : SV_DispatchThreadID, uint gi : SV_GroupIndex) { Out[id.x] = gi; }
    """)
    entry_wrapper.run(module, options)
    assert text(module) == expected("""
        module compute sm6.0
        global uniform Out: RWStructuredBuffer<uint> register(u0, space0) count=1
        input in.SV_DispatchThreadID: uint3 (SV_DispatchThreadID, system value)
        input in.SV_GroupIndex: uint (SV_GroupIndex, system value)
        fn src.main(in id: uint3, in gi: uint) -> void {
          store %Out<load(%id.x)> = load(%gi)
        }
        fn main() -> void {
          eval call src.main(load(%in.SV_DispatchThreadID), load(%in.SV_GroupIndex))
          return
        }
    """)


def test_pixel_return_semantic():
    module, options = sema_module("""
        float4 main(float4 c : COLOR0) : SV_Target { return c; }
    """, "ps_6_0")
    entry_wrapper.run(module, options)
    assert text(module) == expected("""
        module pixel sm6.0
        input in.COLOR0: float4 (COLOR, Location 0)
        output out.SV_Target: float4 (SV_Target, Location 0)
        fn src.main(in c: float4) -> float4 {
          return load(%c)
        }
        fn main() -> void {
          local ret: float4
          store %ret = call src.main(load(%in.COLOR0))
          store %out.SV_Target = load(%ret)
          return
        }
    """)


# Vulkan-only options (-fvk-invert-y, -fvk-use-dx-position-w) are the SPIR-V backend's raise
# passes (shaderbuild_spirv.vulkan), run after the shared entry wrapper.

def _spirv_raised(source: str, profile: str, **options):
    from shaderbuild_spirv import vulkan

    module, opts = sema_module(source, profile, **options)
    entry_wrapper.run(module, opts)
    for p in (vulkan.system_values, vulkan.invert_y, vulkan.dx_position_w):
        p(module, opts)
    return module


def test_spirv_system_values_become_builtins():
    assert "(SV_Position, BuiltIn Position)" in text(_spirv_raised(VS, "vs_6_0"))


def test_vk_invert_y_negates_position_y():
    module = _spirv_raised(VS, "vs_6_0", vk_invert_y=True)
    pos = "extract(load(%ret), 0)"
    assert (f"  store %out.SV_Position = float4(extract({pos}, 0), neg(extract({pos}, 1)), "
            f"extract({pos}, 2), extract({pos}, 3))\n") in text(module)


def test_vk_invert_y_leaves_the_shared_pass_alone():
    module, options = sema_module(VS, "vs_6_0", vk_invert_y=True)
    entry_wrapper.run(module, options)
    assert "neg(" not in text(module)


def test_vk_use_dx_position_w_reciprocates_w():
    module = _spirv_raised("""
        float4 main(float4 pos : SV_Position) : SV_Target { return pos; }
    """, "ps_6_0", vk_use_dx_position_w=True)
    pos = "load(%in.SV_Position)"
    assert (f"  store %ret = call src.main(float4(extract({pos}, 0), extract({pos}, 1), extract({pos}, 2), "
            f"div(1.0:float, extract({pos}, 3))))\n") in text(module)


def test_system_value_of_a_matrix_type_is_a_located_error():
    """Found by the fuzzer with the IR validator on: a float4x4 SV_GroupIndex became a call with a
    float argument for a float4x4 parameter (invalid IR reaching both backends)."""
    import pytest

    from shaderbuild.diagnostics import CompileError

    module, options = sema_module("""
        RWStructuredBuffer<uint> Out : register(u0);
        [numthreads(1,1,1)]
        void main(float4x4 gi : SV_GroupIndex) { Out[0] = (uint)gi[0][0]; }
    """)
    with pytest.raises(CompileError) as e:
        entry_wrapper.run(module, options)
    d = e.value.diagnostics[0]
    assert d.message == "invalid type 'float4x4' for semantic 'SV_GroupIndex': it takes a scalar or vector (uint)"
    assert d.loc is not None and d.loc.line == 4
