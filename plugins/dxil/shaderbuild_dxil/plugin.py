"""pluggy entry point of the DXIL backend."""

from shaderbuild.capabilities import Capabilities
from shaderbuild.plugin import BackendInfo, BackendResult, hookimpl

from . import __version__
from .polyfills import POLYFILLED

CAPABILITIES = Capabilities(polyfills=POLYFILLED)


@hookimpl
def shaderbuild_register_backends():
    return [BackendInfo(name="dxil", extension=".dxil", description="DXIL in a DXBC container for Direct3D 12", version=__version__,
                        capabilities=CAPABILITIES)]


@hookimpl
def shaderbuild_compile(module, target, options):
    """Compile `module` to a DXIL container when the target is 'dxil'."""
    if target != "dxil":
        return None
    from .backend import compile_dxil
    from .disasm import disassemble

    out = compile_dxil(module, options)
    # the --Fc text is produced only when somebody asks for it
    return BackendResult(binary=out.container, reflection={"dxil": out.reflection()},
                         disassembly=lambda: disassemble(out))
