"""Targets own their decisions (issue 15): an option of one target cannot change another
target's binary.  Every sample-project shader is compiled to DXIL with and without each
Vulkan-only option and the containers are compared byte for byte; the DXIL-only option is
checked the same way on SPIR-V.  That SPIR-V still honours -fvk-invert-y and
-fvk-use-dx-position-w is shown by rendering on lavapipe in test_res_graphics.py
(test_invert_y_flips_the_image, test_dx_position_w); here the SPIR-V words are at least
checked to change, so the comparison above is not vacuous."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest

from shaderbuild.build.config import load_project
from shaderbuild.build.targets import plan
from shaderbuild.compiler import compile_file
from shaderbuild.options import BindingShift

SAMPLE = Path(__file__).resolve().parents[2] / "sample_project"

# DXC's -fvk-* / -fspv-* options (and -auto-binding-space): they shape only the Vulkan binary
VULKAN_ONLY = {
    "vk_invert_y": True,
    "vk_use_dx_position_w": True,
    "vk_support_nonzero_base_vertex": True,
    "vk_support_nonzero_base_instance": True,
    "vk_auto_shift_bindings": True,
    "vk_bind_globals": (5, 3),
    "auto_binding_space": 4,
    "vk_layout": "scalar",
    "vk_target_env": "vulkan1.3",
    "binding_shifts": [BindingShift("t", 100, None), BindingShift("u", 200, None)],
}
DXIL_ONLY = {"dxil_hash": "retail"}


@functools.cache
def _targets(backend: str) -> tuple:
    cwd = os.getcwd()
    try:   # the project's include_dirs are relative to the project
        os.chdir(SAMPLE)
        return tuple(plan(load_project(str(SAMPLE)), backends=[backend]))
    finally:
        os.chdir(cwd)


def _binary(target, **changes) -> bytes:
    options = target.options.replace(**changes)
    res = compile_file(target.source, options)
    assert res.ok, [d.message for d in res.diagnostics]
    return res.binary


def _ids(backend: str) -> list[str]:
    return [t.name for t in _targets(backend)]


@pytest.mark.parametrize("name", _ids("dxil"))
def test_invert_y_and_dx_position_w_do_not_change_dxil(name):
    target = next(t for t in _targets("dxil") if t.name == name)
    plain = _binary(target)
    assert plain[:4] == b"DXBC"
    for changes in ({"vk_invert_y": True}, {"vk_use_dx_position_w": True},
                    {"vk_invert_y": True, "vk_use_dx_position_w": True}):
        assert _binary(target, **changes) == plain, changes


@pytest.mark.parametrize("option", sorted(VULKAN_ONLY))
def test_no_vulkan_only_option_changes_dxil(option):
    for target in _targets("dxil")[::3]:       # every third sample target: all stages are among them
        assert _binary(target, **{option: VULKAN_ONLY[option]}) == _binary(target), target.name


@pytest.mark.parametrize("option", sorted(DXIL_ONLY))
def test_no_dxil_only_option_changes_spirv(option):
    for target in _targets("spirv")[::3]:
        assert _binary(target, **{option: DXIL_ONLY[option]}) == _binary(target), target.name


def test_dxil_only_option_does_change_dxil():
    target = _targets("dxil")[0]
    assert _binary(target, dxil_hash="retail") != _binary(target)


def _writes_position(target) -> bool:
    """A vertex, domain or geometry shader that writes SV_Position (a terrain's vertex shader writes
    control points)."""
    if not target.options.profile.startswith(("vs_", "ds_", "gs_")):
        return False
    res = compile_file(target.source, target.options)
    return any(o.get("builtin") == "Position" for o in res.manifest["entry"]["outputs"])


def test_spirv_still_honours_invert_y_and_dx_position_w():
    targets = _targets("spirv")
    # the last stage before the rasterizer writes the position: the GS where a file has one
    with_gs = {t.source for t in targets if t.options.profile.startswith("gs_")}
    vs = [t for t in targets if _writes_position(t)
          and not (t.options.profile.startswith("vs_") and t.source in with_gs)]
    assert len(with_gs) == 1 and vs and all(_binary(t, vk_invert_y=True) != _binary(t) for t in vs)
    reads_w = [t for t in _targets("spirv") if t.options.profile.startswith("ps_")
               and "SV_Position" in Path(t.source).read_text()]
    assert reads_w and all(_binary(t, vk_use_dx_position_w=True) != _binary(t) for t in reads_w)


def test_dependency_scan_sees_the_targets_own_macros(tmp_path):
    """__spirv__ is the SPIR-V backend's predefined macro (its capabilities), in the dependency
    scan as in the compile: a build must see the files a SPIR-V compile would read."""
    from shaderbuild.compiler import scan_dependencies
    from shaderbuild.options import CompileOptions

    (tmp_path / "vk.hlsli").write_text("")
    (tmp_path / "dx.hlsli").write_text("")
    src = tmp_path / "s.hlsl"
    src.write_text('#ifdef __spirv__\n#include "vk.hlsli"\n#else\n#include "dx.hlsli"\n#endif\n')
    names = {t: {Path(p).name for p in scan_dependencies(str(src), CompileOptions(target=t))} for t in ("spirv", "dxil")}
    assert names == {"spirv": {"s.hlsl", "vk.hlsli"}, "dxil": {"s.hlsl", "dx.hlsli"}}


def test_a_vulkan_binding_option_that_cannot_apply_does_not_fail_dxil():
    """-fvk-bind-register with no mapping for a resource is an error for SPIR-V; a DXIL build
    keeps its binary and leaves the (informational) Vulkan view out of its manifest."""
    from shaderbuild.options import BindRegister

    target = next(t for t in _targets("dxil") if "histogram" in t.name)
    options = target.options.replace(vk_bind_registers=[BindRegister("b", 9, 9, 0, 0)])
    res = compile_file(target.source, options)
    assert res.ok, [d.message for d in res.diagnostics]
    assert res.binary == _binary(target)
    assert res.manifest["resources"] and all("vulkan" not in r for r in res.manifest["resources"])
    spirv = next(t for t in _targets("spirv") if "histogram" in t.name)
    res = compile_file(spirv.source, spirv.options.replace(binding_shifts=[], vk_bind_registers=options.vk_bind_registers))
    assert not res.ok and "has no -fvk-bind-register mapping" in res.diagnostics[0].message
