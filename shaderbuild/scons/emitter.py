"""The emitter: declare every file one compile writes.

SCons only cleans (`scons -c`), caches (`CacheDir`) and tracks what the emitter
declares, so the manifest and each requested extra output (disassembly, C
header) become targets next to the binary, with the same names the
`shaderbuild build` engine uses (`<binary><suffix>`).
"""

from __future__ import annotations

from ..build.targets import SIDECAR_SUFFIX
from .options import OUTPUTS_VAR

EXTRA_KINDS = tuple(k for k in SIDECAR_SUFFIX if k != "manifest")


def side_outputs(binary: str, extras) -> dict[str, str]:
    """kind -> path for the manifest and the requested extras, in a fixed order."""
    unknown = [k for k in extras if k not in EXTRA_KINDS]
    if unknown:
        raise ValueError(f"unknown shader output kind(s) {unknown}; expected some of {list(EXTRA_KINDS)}")
    kinds = ["manifest", *(k for k in EXTRA_KINDS if k in extras)]
    return {k: binary + SIDECAR_SUFFIX[k] for k in kinds}


def emit(target, source, env):
    binary = target[0]
    extra = side_outputs(binary.abspath, env.get(OUTPUTS_VAR) or [])
    nodes = [env.File(p) for p in extra.values()]
    return [binary, *nodes], source
