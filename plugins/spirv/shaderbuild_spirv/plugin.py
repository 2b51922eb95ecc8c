"""pluggy entry point of the SPIR-V backend."""

from shaderbuild.plugin import BackendInfo, hookimpl

from . import __version__


@hookimpl
def shaderbuild_register_backends():
    return [BackendInfo(name="spirv", extension=".spv", description="SPIR-V for Vulkan", version=__version__)]
