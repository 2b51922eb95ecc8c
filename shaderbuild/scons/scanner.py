"""The SCons source scanner: dependencies from shaderbuild's own preprocessor.

A regex scanner (SCons' ClassicCPP) sees every `#include`, even those in dead
`#if` branches, and none reached through macros.  This one runs the real
preprocessor with the target's defines and include directories, so the
dependency list is exactly what the compiler will read.  The result is the
full include closure, hence `recursive=False`.
"""

from __future__ import annotations

import os

from .options import OPTIONS_VAR, decode


def scan(node, env, path=()) -> list:
    """Scanner function: File nodes of every file the preprocessor reads (the source excluded)."""
    from ..compiler import scan_dependencies
    from ..diagnostics import CompileError

    text = env.get(OPTIONS_VAR)
    src = node.srcnode()
    if not text or not src.exists():
        return []
    source = src.abspath
    try:
        files = scan_dependencies(source, decode(text))
    except CompileError:
        return []   # the compile reports the error; an unscannable target is never up to date
    return [env.File(f) for f in files if os.path.abspath(f) != source]


def make_scanner():
    import SCons.Scanner

    return SCons.Scanner.ScannerBase(scan, name="ShaderbuildHLSLScanner", recursive=False)
