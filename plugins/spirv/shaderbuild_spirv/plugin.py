"""pluggy entry point of the SPIR-V backend."""

from __future__ import annotations

from shaderbuild.plugin import BackendInfo, BackendResult, hookimpl

from . import __version__


@hookimpl
def shaderbuild_register_backends():
    return [BackendInfo(name="spirv", extension=".spv", description="SPIR-V for Vulkan", version=__version__)]


@hookimpl
def shaderbuild_compile(module, target, options):
    """Compile for --target spirv; other targets are not ours (return None)."""
    if target != "spirv":
        return None
    from .lower import lower_module, reflection

    lowered = lower_module(module, getattr(options, "vk_target_env", "vulkan1.1"), getattr(options, "vk_layout", "default"))
    return BackendResult(binary=lowered.binary, reflection=reflection(lowered),
                         disassembly=lambda: _disassemble(lowered.binary))


def _disassemble(binary: bytes) -> str:
    from .disasm import disassemble  # only when --Fc or a build asks for it

    return disassemble(binary)
