"""`-T rootsig_1_0|rootsig_1_1 -E NAME`: the `#define`d string NAME compiled on its own to a
standalone blob (a DXBC container holding only RTS0, as DXC writes it)."""

from __future__ import annotations

from . import ROOTSIG_PROFILES


def compile_standalone(path: str, options, text, reader, sources, display_name: str) -> tuple[bytes, dict, list[str]]:
    """(blob, manifest, files read); raises CompileError."""
    from ..front.preprocessor import preprocess
    from ..reflect.manifest import FORMAT, MANIFEST_VERSION
    from .manifest import manifest_view
    from .rts0 import serialize, standalone_container
    from .shader import root_signature_for

    pp = preprocess(path, text=text, defines=options.defines, include_dirs=options.include_dirs,
                    predefined={"__SHADERBUILD__": "1"}, sources=sources, reader=reader)
    version = ROOTSIG_PROFILES[options.profile]
    rs = root_signature_for(None, pp.macros, options.replace(rootsig_define=options.entry, rootsig_version=version),
                            standalone=True)
    assert rs is not None           # a missing macro raised
    manifest = {"format": FORMAT, "manifest_version": MANIFEST_VERSION, "source": display_name, "target": options.target, "root_signature": manifest_view(rs)}
    return standalone_container(serialize(rs)), manifest, list(pp.files)
