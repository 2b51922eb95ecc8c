"""Hook specifications for shaderbuild backends.

A backend is an ordinary pluggy plugin registered under the entry-point group
``shaderbuild``; the core never imports one directly.  The markers below follow pluggy's
protocol (options in a ``shaderbuild_spec`` / ``shaderbuild_impl`` attribute of the function), so
``pluggy.HookimplMarker("shaderbuild")`` works too, without importing pluggy on every start.  A backend module
implements the hooks below with ``@shaderbuild.plugin.hookimpl``::

    @hookimpl
    def shaderbuild_register_backends():
        return [BackendInfo(name="spirv", extension=".spv", description="...")]

    @hookimpl
    def shaderbuild_compile(module, target, options):
        if target != "spirv":
            return None
        return BackendResult(binary=..., reflection={...}, disassembly=...)
"""

from __future__ import annotations

from ..capabilities import DEFAULT, Capabilities
from ..records import DataRecord, Record, ValueRecord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from ..diagnostics import Diagnostic
    from ..ir import Module
    from ..options import CompileOptions

PROJECT = "shaderbuild"
SPEC_ATTR = PROJECT + "_spec"
IMPL_ATTR = PROJECT + "_impl"


def hookspec(function=None, *, firstresult: bool = False, historic: bool = False,
             warn_on_impl=None, warn_on_impl_args=None):
    """Mark a hook specification (pluggy's HookspecMarker for this project)."""
    def mark(func):
        setattr(func, SPEC_ATTR, {"firstresult": firstresult, "historic": historic,
                                  "warn_on_impl": warn_on_impl, "warn_on_impl_args": warn_on_impl_args})
        return func
    return mark if function is None else mark(function)


def hookimpl(function=None, *, wrapper: bool = False, hookwrapper: bool = False, optionalhook: bool = False,
             tryfirst: bool = False, trylast: bool = False, specname: str | None = None):
    """Mark a hook implementation (pluggy's HookimplMarker for this project)."""
    def mark(func):
        setattr(func, IMPL_ATTR, {"wrapper": wrapper, "hookwrapper": hookwrapper, "optionalhook": optionalhook,
                                  "tryfirst": tryfirst, "trylast": trylast, "specname": specname})
        return func
    return mark if function is None else mark(function)


class BackendInfo(ValueRecord):
    """What a backend declares about itself."""

    name: str            # the --target value, e.g. 'spirv'
    extension: str       # output file extension, e.g. '.spv'
    description: str = ""
    version: str = ""    # the backend's own version; part of every cache key
    # the target's decisions the core consults (capabilities.py), or a function returning them, called
    # when a compile for this target first needs them: every backend is registered in every process,
    # and building Capabilities may import the backend's passes
    capabilities: Capabilities | Callable[[], Capabilities] = DEFAULT

    def target_capabilities(self) -> Capabilities:
        """`capabilities`, built by its function if the backend gave one."""
        caps = self.capabilities
        return caps if isinstance(caps, Capabilities) else caps()


class BackendResult(DataRecord):
    """What a backend returns for one compiled module."""

    binary: bytes
    reflection: dict = Record.factory(dict)   # backend view merged into the manifest
    disassembly: object = None    # str, or a zero-argument callable producing it on demand
    diagnostics: list[Diagnostic] = Record.factory(list)  # warnings only
    side_outputs: dict[str, bytes] = Record.factory(dict)  # other files the options ask for (-Fd): path -> bytes


@hookspec
def shaderbuild_register_backends() -> list[BackendInfo]:
    """Return the backends this plugin provides."""
    raise NotImplementedError   # a specification: plugins implement it


@hookspec(firstresult=True)
def shaderbuild_compile(module: Module, target: str, options: CompileOptions) -> BackendResult | None:
    """Compile the IR module for `target`; return None when `target` is not yours.

    The module has been through the shared passes (entry wrapper, D3D registers)
    and this backend's own `capabilities.raise_passes`; a backend may transform it
    further in place.  Raise
    `diagnostics.CompileError` for user errors (e.g. an operation the profile
    does not allow); anything else is reported as an internal compiler error.
    """
