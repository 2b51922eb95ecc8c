"""The shaderbuild SCons tool (generate/exists), loadable three ways:

1. as a callable:      ``env.Tool(shaderbuild.scons.tool)`` or ``Environment(tools=["default", shaderbuild.scons.tool])``
2. through a toolpath: ``env.Tool("shaderbuild", toolpath=[shaderbuild.scons.toolpath()])``
3. the sconstool convention (scons-tool-loader): the package ships ``sconstool.shaderbuild``;
   ``import sconstool.loader; sconstool.loader.extend_toolpath()`` then ``tools=["sconstool.shaderbuild"]``.

It adds ``env.HLSL(...)`` (one shader target) and ``env.ShaderProject(...)`` (a
whole shaderbuild.toml).  See docs/SCONS_AND_WATCH.md.  Importing this module
does not import SCons.
"""

from __future__ import annotations

import os
import sys

# The shaderbuild package object.  A toolpath shim named "shaderbuild" is imported by
# SCons under that very name, shadowing this package in sys.modules; the shims put it back.
PACKAGE = sys.modules[__name__.rsplit(".", 1)[0]]

_HERE = os.path.dirname(os.path.abspath(__file__))


def toolpath() -> str:
    """A directory to put in SCons' ``toolpath`` so that ``env.Tool("shaderbuild")`` finds the tool."""
    return os.path.join(_HERE, "site_tools")


def generate(env, **kw) -> None:
    """Add the HLSL builders to `env`; keywords set defaults (backend=, profile=, defines=, include_dirs=)."""
    from ..build.cache import plugin_fingerprint
    from .action import start_early
    from .builders import BUILDER_NAME, DEFAULT_VARS, VERSION_VAR, hlsl, make_builder, shader_project

    for var, (field, default) in DEFAULT_VARS.items():
        key = "backend" if field == "target" else field
        if key in kw:
            env[var] = kw.pop(key)
        else:
            env.SetDefault(**{var: default})
    if kw:
        raise TypeError(f"shaderbuild tool: unknown option(s) {sorted(kw)}")
    env.SetDefault(SHADERBUILD_DIAGNOSTICS_FORMAT="gnu")
    # Part of every target's build signature: a new compiler or backend plugin rebuilds everything.
    env[VERSION_VAR] = f"shaderbuild {PACKAGE.__version__} " + " ".join(
        f"{name}={dist}-{ver}" for name, _, dist, ver in plugin_fingerprint())
    env["BUILDERS"][BUILDER_NAME] = make_builder()
    env.AddMethod(hlsl, "HLSL")
    env.AddMethod(shader_project, "ShaderProject")
    start_early(env)


def exists(env) -> bool:
    """The tool needs nothing outside Python: true when the compiler imports."""
    try:
        from .. import compiler  # noqa: F401
    except ImportError:
        return False
    return True


tool = generate   # the callable form: env.Tool(shaderbuild.scons.tool)

__all__ = ["PACKAGE", "exists", "generate", "tool", "toolpath"]
