"""shaderbuild: an HLSL compiler and shader build tool written in Python.

The Python API (docs/API.md) is `shaderbuild.compile_source`, `shaderbuild.compile_file` and the
result and manifest classes of `shaderbuild.api`; they are imported on first use, so that
`import shaderbuild` (every command-line start) stays as cheap as before (no `typing` either).
"""

__version__ = "0.1.0"

__all__ = ["CompileFailed", "Diagnostic", "HlslBinding", "Manifest", "Member", "PushConstant", "Resource", "Result",
           "VulkanBinding", "compile_file", "compile_source"]

TYPE_CHECKING = False           # typing.TYPE_CHECKING without importing typing (mypy knows the name)
if TYPE_CHECKING:
    from .api import (
        CompileFailed,
        Diagnostic,
        HlslBinding,
        Manifest,
        Member,
        PushConstant,
        Resource,
        Result,
        VulkanBinding,
        compile_file,
        compile_source,
    )


def __getattr__(name: str):
    if name in __all__:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'shaderbuild' has no attribute '{name}'")
