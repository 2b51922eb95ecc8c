"""pluggy entry point of the SPIR-V backend."""

from __future__ import annotations

from shaderbuild.capabilities import Capabilities
from shaderbuild.plugin import BackendInfo, BackendResult, hookimpl

from . import __version__
from .polyfills import POLYFILLED
from .vulkan import EXT_BUILTINS, RAISE_PASSES


def _layout_rule(block: str, options) -> str:
    """Vulkan memory layouts: DXC's defaults, or what -fvk-use-*-layout asks for."""
    from shaderbuild.ir.layout import vulkan_rule

    return vulkan_rule(block, options.vk_layout)


CAPABILITIES = Capabilities(
    push_constants=True,
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
                        capabilities=CAPABILITIES)]


@hookimpl
def shaderbuild_compile(module, target, options):
    """Compile for --target spirv; other targets are not ours (return None)."""
    if target != "spirv":
        return None
    from .lower import lower_module, reflection

    lowered = lower_module(module, getattr(options, "vk_target_env", "vulkan1.1"), getattr(options, "vk_layout", "default"))
    binary = lowered.binary
    if getattr(options, "opt_level", 0) >= 1:
        from .opt import optimize

        binary = optimize(binary, options.opt_level)
    return BackendResult(binary=binary, reflection=reflection(lowered),
                         disassembly=lambda: _disassemble(binary))


def _disassemble(binary: bytes) -> str:
    from .disasm import disassemble  # only when --Fc or a build asks for it

    return disassemble(binary)
