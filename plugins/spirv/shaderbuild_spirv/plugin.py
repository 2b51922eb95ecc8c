"""pluggy entry point of the SPIR-V backend."""

from __future__ import annotations

from shaderbuild.capabilities import Capabilities
from shaderbuild.lightstd import cache
from shaderbuild.plugin import BackendInfo, BackendResult, hookimpl

from . import __version__


def _layout_rule(block: str, options) -> str:
    """Vulkan memory layouts: DXC's defaults, or what -fvk-use-*-layout asks for."""
    from shaderbuild.ir.layout import vulkan_rule

    return vulkan_rule(block, options.vk_layout)


@cache
def capabilities() -> Capabilities:
    """SPIR-V's decisions, built when a compile for this target first asks (a DXIL compile does not
    import vulkan.py's passes; tests/cli/test_import_budget.py)."""
    from .polyfills import POLYFILLED
    from .vulkan import EXT_BUILTINS, RAISE_PASSES

    return Capabilities(
        push_constants=True,
        vulkan_attributes=True,
        ext_builtins=EXT_BUILTINS,
        specialization_constants=True,
        predefined_macros=(("__spirv__", "1"),),
        layout_rule=_layout_rule,
        polyfills=POLYFILLED,
        raise_passes=RAISE_PASSES,
    )


@hookimpl
def shaderbuild_register_backends():
    return [BackendInfo(name="spirv", extension=".spv", description="SPIR-V for Vulkan", version=__version__,
                        capabilities=capabilities)]


@hookimpl
def shaderbuild_compile(module, target, options):
    """Compile for --target spirv; other targets are not ours (return None)."""
    if target != "spirv":
        return None
    from .lower import lower_module, reflection

    level = options.passes_level if hasattr(options, "passes_level") else 0
    lowered = lower_module(module, getattr(options, "vk_target_env", "vulkan1.1"), getattr(options, "vk_layout", "default"),
                           debug_command_line(options) if getattr(options, "debug_info", False) else None,
                           ssa=level >= 1)
    binary = lowered.binary
    if level >= 1:
        from .opt import optimize

        binary = optimize(binary, level)
    return BackendResult(binary=binary, reflection=reflection(lowered),
                         disassembly=lambda: _disassemble(binary),
                         diagnostics=_debug_warnings(options) + _wave_size_warnings(module))


def _wave_size_warnings(module) -> list:
    """[WaveSize] has no SPIR-V form for Vulkan (the SubgroupSize execution mode is the Kernel model's): the
    application picks the subgroup size (VK_EXT_subgroup_size_control).  DXC's warning, and the shader runs
    with the device's size."""
    from shaderbuild.diagnostics import Diagnostic

    entry = module.entry
    if entry is None or entry.wave_size is None:
        return []
    return [Diagnostic("warning", "Wave size is not supported by Vulkan SPIR-V. Consider using "
                                  "VK_EXT_subgroup_size_control.", entry.source_function.loc)]


def _debug_warnings(options) -> list:
    """-Fd and -Qembed_debug place DXIL's debug part; a SPIR-V module carries its debug info itself."""
    from shaderbuild.diagnostics import Diagnostic

    flags = [f for f, on in (("-Fd", getattr(options, "debug_file", None)),
                             ("-Qembed_debug", getattr(options, "embed_debug", False))) if on]
    if not flags:
        return []
    verb = "applies" if len(flags) == 1 else "apply"
    return [Diagnostic("warning", f"{' and '.join(flags)} only {verb} to DXIL: the SPIR-V debug information "
                                  "(-Zi) is in the module itself")]


def _disassemble(binary: bytes) -> str:
    from .disasm import disassemble  # only when --Fc or a build asks for it

    return disassemble(binary)


def debug_command_line(options) -> str:
    """The options recorded in DebugEntryPoint: those that change code, in a fixed order (no paths
    but the include directories as given, so the output is the same wherever it is built)."""
    parts = [f"-E {options.entry}", f"-T {options.profile}", "-spirv", "-Zi",
             f"-fspv-target-env={options.vk_target_env}"]
    parts += [f"-D{k}={v}" if v else f"-D{k}" for k, v in sorted(options.defines.items())]
    parts += [f"-I {d}" for d in options.include_dirs]
    return " ".join(parts)
