"""The pluggy hook: registration, target dispatch, result shape."""

from __future__ import annotations

from shaderbuild_dxil import plugin
from test_dxil_compute import double_plus_one_module

from shaderbuild.options import CompileOptions
from shaderbuild.plugin import BackendResult, PluginHost


def test_registered_through_entry_points():
    host = PluginHost()
    assert "dxil" in host.backends()
    assert host.backends()["dxil"].info.extension == ".dxil"


def test_other_targets_are_ignored():
    assert plugin.shaderbuild_compile(double_plus_one_module(), "spirv", CompileOptions()) is None


def test_compile_hook_returns_container_reflection_and_disassembly():
    host = PluginHost(load_entry_points=False)
    host.register(plugin, "dxil")
    res = host.pm.hook.shaderbuild_compile(module=double_plus_one_module(), target="dxil",
                                           options=CompileOptions(profile="cs_6_0", target="dxil"))
    assert isinstance(res, BackendResult)
    assert res.binary[:4] == b"DXBC"
    refl = res.reflection["dxil"]
    assert refl["numthreads"] == [64, 1, 1] and refl["shader_model"] == "6.0"
    assert refl["resources"] == [{"name": "Out", "class": "UAV", "range_id": 0, "space": 0, "lower_bound": 0,
                                  "count": 1, "kind": 12}]
    assert refl["dx_ops"] == ["BufferStore", "CreateHandle", "ThreadId"]
    text = res.disassembly() if callable(res.disassembly) else res.disassembly
    assert "; Resource bindings:" in text and "define void @main()" in text
    assert "call void @dx.op.bufferStore.i32(i32 69" in text
