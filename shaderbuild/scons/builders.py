"""The builders: `env.HLSL(...)` for one shader target and `env.ShaderProject(...)`
for a whole shaderbuild.toml (entries x permutations x backends).

`HLSL` is a pseudo-builder (SCons "AddMethod") in front of one real Builder,
`ShaderbuildCompile`: it turns friendly keywords into the canonical options
variable, picks a stable default target name and lets the real builder attach
the action (build signature via `varlist`), the emitter and the scanner.
Imported by the tool's generate() only, i.e. inside SCons.
"""

from __future__ import annotations

import os

import SCons.Action
import SCons.Builder
import SCons.Errors

from ..build.targets import DEFAULT_EXTENSIONS, digest, permutation_key
from .action import compile_action, describe, will_compile
from .emitter import emit
from .options import BINARY_VAR, LABEL_VAR, OPTIONS_VAR, OUTPUTS_VAR, SIGNATURE_VAR, absolute, encode, from_keywords
from .scanner import OWN_OUTPUT, make_scanner

BUILDER_NAME = "ShaderbuildCompile"
VERSION_VAR = "SHADERBUILD_VERSION"
# Construction variables holding the defaults of every HLSL() call -> CompileOptions field.
DEFAULT_VARS = {
    "SHADERBUILD_BACKEND": ("target", "spirv"),
    "SHADERBUILD_PROFILE": ("profile", "cs_6_0"),
    "SHADERBUILD_ENTRY": ("entry", "main"),
    "SHADERBUILD_DEFINES": ("defines", {}),
    "SHADERBUILD_INCLUDE_DIRS": ("include_dirs", []),
}


def _strfunction(target, source, env) -> str:
    custom = env.get("HLSLCOMSTR")
    return env.subst(custom, target=target, source=source) if custom else describe(target, source, env)


def make_builder():
    action = SCons.Action.Action(compile_action, strfunction=_strfunction, varlist=[SIGNATURE_VAR])
    return SCons.Builder.Builder(action=action, emitter=emit, source_scanner=make_scanner(), single_source=True)


def default_target_name(source: str, options) -> str:
    """`<stem>[_<entry>][_<digest of the defines>]<ext>`: unique per entry, defines and backend."""
    stem = os.path.splitext(os.path.basename(source))[0]
    if options.entry != "main":
        stem += f"_{options.entry}"
    key = permutation_key(options.defines)
    if key:
        stem += f"_{digest(key, 16)}"   # 64 bits, as the build engine (issue 21)
    return stem + DEFAULT_EXTENSIONS.get(options.target, f".{options.target}")


def _single(env, source):
    nodes = env.arg2nodes(source, env.fs.File)
    if len(nodes) != 1:
        raise SCons.Errors.UserError(f"HLSL() compiles one source file per call, got {len(nodes)}")
    return nodes[0]


def hlsl(env, target=None, source=None, *, outputs=(), options=None, label=None, **keywords):
    """env.HLSL([target,] source, entry=, profile=, defines=, backend='spirv'|'dxil', include_dirs=,
    outputs=['disassembly', 'header'], <any other CompileOptions field>=...) -> list of nodes.

    `options=CompileOptions(...)` may replace the keywords; `label` names the shader in a
    generated header.  Returns the binary node first, then the manifest and the extras.
    """
    if source is None:
        source, target = target, None
    src = _single(env, source)
    if options is None:
        defaults = {field: env.get(var, default) for var, (field, default) in DEFAULT_VARS.items()}
        base = env.Dir(".").srcnode().abspath
        options = from_keywords(defaults, keywords, lambda d: absolute(env.subst(d), base))
    elif keywords:
        raise TypeError("HLSL(): pass either options=... or keywords, not both")
    target = src.dir.File(default_target_name(src.abspath, options)) if target is None else \
        env.arg2nodes(target, env.fs.File)[0]
    text = encode(options)
    overrides = {OPTIONS_VAR: text, OUTPUTS_VAR: list(outputs), LABEL_VAR: label or "", BINARY_VAR: target.abspath,
                 SIGNATURE_VAR: digest(repr((env.get(VERSION_VAR), text, list(outputs), label or "")), 32)}
    nodes = _own(getattr(env, BUILDER_NAME)(target=target, source=src, **overrides))
    if not os.path.exists(target.abspath):     # the job as compile_action will make it (str(source) at
        # build time is relative to the top directory; a SConscript being read may be elsewhere)
        will_compile(env, (src.srcnode().abspath, text, target.abspath, tuple(outputs),
                           label or src.get_path(src.fs.Top), env.get("SHADERBUILD_DIAGNOSTICS_FORMAT", "gnu")))
    return nodes


def _own(nodes):
    """Mark the files we declare: they are no #include a compile could need built first (scanner.py)."""
    for node in nodes:
        setattr(node.attributes, OWN_OUTPUT, True)
    return nodes


def shader_project(env, project=".", *, backends=None, filters=None, output_dir=None) -> list:
    """Expand a shaderbuild.toml (or the directory holding it) into HLSL() targets.

    Planning (globs, permutations, output names) is the `shaderbuild build`
    planner's, so both tools write the same files.  Returns every output node.
    """
    from ..build.config import ConfigFileError, load_project
    from ..build.targets import plan, select

    path = env.File(project).srcnode().abspath if os.path.isfile(env.subst(project)) else \
        env.Dir(project).srcnode().abspath
    try:
        proj = load_project(path, output_dir=output_dir)
        targets = select(plan(proj, backends=backends), filters)
    except ConfigFileError as exc:
        raise SCons.Errors.UserError("\n".join(e.render("gnu") for e in exc.errors)) from None
    nodes = []
    for t in targets:
        extras = [k for k in t.outputs if k not in ("binary", "manifest")]
        nodes.extend(hlsl(env, t.outputs["binary"], t.source, options=t.options, outputs=extras, label=t.name))
    blobs = _blobs(env, targets)
    return nodes + blobs


def _blobs(env, targets) -> list:
    """One NVSP-style blob per shader entry and backend, when the project asks for it."""
    groups: dict[str, list] = {}
    for t in targets:
        if t.blob:
            groups.setdefault(t.blob, []).append(t)
    out = []
    for blob, members in sorted(groups.items()):
        members = sorted(members, key=lambda t: t.perm_key)
        keys = [t.perm_key for t in members]
        binaries = [t.outputs["binary"] for t in members]
        out.extend(_own(env.Command(blob, binaries, PACK_ACTION, SHADERBUILD_BLOB_KEYS=keys)))
    return out


def _pack(target, source, env) -> int:
    from ..build.blob import pack
    from ..build.outputs import atomic_write

    payload = {}
    for key, node in zip(env["SHADERBUILD_BLOB_KEYS"], source):
        with open(node.abspath, "rb") as f:
            payload[key] = f.read()
    atomic_write(target[0].abspath, pack(payload))
    return 0


PACK_ACTION = SCons.Action.Action(_pack, "shaderbuild: blob $TARGET", varlist=["SHADERBUILD_BLOB_KEYS"])
