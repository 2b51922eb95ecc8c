"""pluggy entry point of the DXIL backend."""

from shaderbuild.capabilities import Capabilities
from shaderbuild.lightstd import cache
from shaderbuild.plugin import BackendInfo, BackendResult, hookimpl

from . import __version__


@cache
def capabilities() -> Capabilities:
    """DXIL's decisions, built when a compile for this target first asks (a SPIR-V compile does not
    import this backend's polyfill list)."""
    from shaderbuild.passes.inline import check_inlined_size

    from .polyfills import POLYFILLED

    # the backend inlines every call (DXIL entry points have none), -O0 too
    return Capabilities(polyfills=POLYFILLED, raise_passes=(check_inlined_size,))


@hookimpl
def shaderbuild_register_backends():
    return [BackendInfo(name="dxil", extension=".dxil", description="DXIL in a DXBC container for Direct3D 12", version=__version__,
                        capabilities=capabilities)]


@hookimpl
def shaderbuild_compile(module, target, options):
    """Compile `module` to a DXIL container when the target is 'dxil'."""
    if target != "dxil":
        return None
    from .backend import compile_dxil

    out = compile_dxil(module, options)
    # the --Fc text is produced only when somebody asks for it
    return BackendResult(binary=out.container, reflection={"dxil": out.reflection()},
                         disassembly=lambda: _disassemble(out), diagnostics=debug_warnings(options),
                         side_outputs={out.debug_path: out.debug_container} if out.debug_container else {})


def _disassemble(out) -> str:
    from .disasm import disassemble  # only when --Fc or a build asks for it (with the LLVM text printer)

    return disassemble(out)


def debug_warnings(options) -> list:
    """DXC warns when -Zi has nowhere to put the debug info but the container itself."""
    from shaderbuild.diagnostics import Diagnostic

    if options.debug_info and not options.debug_file and not options.embed_debug:
        return [Diagnostic("warning", "no output file specified for debug info (-Fd): embedding it in the "
                                      "shader container (ILDB); use -Qembed_debug to silence this warning")]
    return []
