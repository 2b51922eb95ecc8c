"""pluggy entry point of the DXIL backend."""

from shaderbuild.plugin import BackendInfo, hookimpl

from . import __version__


@hookimpl
def shaderbuild_register_backends():
    return [BackendInfo(name="dxil", extension=".dxil", description="DXIL in a DXBC container for Direct3D 12", version=__version__)]
