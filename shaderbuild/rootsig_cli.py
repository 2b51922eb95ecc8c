"""`shaderbuild rootsig`: derive a minimal root signature from a set of shaders (or their manifests)
that binds every resource they use; print it as a string and/or write the blob (-Frs)."""

from __future__ import annotations

import json
import sys


def add_rootsig_command(sub) -> None:
    p = sub.add_parser("rootsig", help="derive a minimal root signature from shaders' resources",
                       description="Compile each SHADER (FILE:ENTRY:PROFILE, e.g. lit.hlsl:ps_main:ps_6_0, or a "
                                   "manifest .json) and derive one root signature binding every resource they use: "
                                   "one descriptor table per space and visibility, samplers in their own tables.")
    p.add_argument("shaders", nargs="+", metavar="SHADER", help="FILE:ENTRY:PROFILE or a manifest .json")
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]")
    p.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR")
    p.add_argument("--root-constants", dest="root_constants", type=int, default=0, metavar="N",
                   help="bind constant buffers of at most N 32-bit values (push-constant blocks) as root constants")
    p.add_argument("--version", dest="version", choices=("1.0", "1.1"), default="1.1")
    p.add_argument("--define", dest="define", metavar="NAME",
                   help="print the string as '#define NAME \"...\"' (for -rootsig-define NAME)")
    p.add_argument("-Frs", dest="blob", metavar="FILE", help="write the root signature blob (DXBC with RTS0)")
    p.add_argument("--diagnostics-format", dest="diagnostics_format", choices=("gnu", "msvc", "json"), default="gnu")
    p.set_defaults(func=cmd_rootsig)


def _shader(spec: str, args):
    """A shader's stage and used resources: compiled (for the DXIL target, as DXC would), or read
    from a manifest .json (which lists every declared resource)."""
    from .cli import _parse_defines
    from .compiler import compile_file
    from .diagnostics import CompileError, error, render_all
    from .options import CompileOptions
    from .rootsig.derive import Shader, from_module

    if spec.endswith(".json"):
        with open(spec, encoding="utf-8") as f:
            return Shader.from_manifest(json.load(f))
    parts = spec.rsplit(":", 2)
    if len(parts) != 3:
        raise error(f"expected FILE:ENTRY:PROFILE or a manifest .json, got '{spec}'")
    path, entry, profile = parts
    options = CompileOptions(entry=entry, profile=profile, target="dxil", defines=_parse_defines(args.defines),
                             include_dirs=args.include_dirs)
    res = compile_file(path, options, keep_module=True)
    if not res.ok:
        print(render_all(res.diagnostics, res.sources, args.diagnostics_format), file=sys.stderr)
        raise CompileError([])
    return from_module(res.module)


def cmd_rootsig(args) -> int:
    from .cli import write_atomic
    from .diagnostics import CompileError, render_all
    from .rootsig import serialize, standalone_container, to_string
    from .rootsig.derive import derive

    try:
        rs = derive([_shader(s, args) for s in args.shaders], root_constants=args.root_constants, version=args.version)
    except CompileError as e:
        if e.diagnostics:
            print(render_all(e.diagnostics, None, args.diagnostics_format), file=sys.stderr)
        return 1
    except (OSError, ValueError, KeyError) as e:
        print(f"shaderbuild: error: cannot read a manifest: {e}", file=sys.stderr)
        return 1
    if args.define:         # one clause per line: "A, " "B, " "C"
        clauses = to_string(rs, "\0", compact=True).split("\0")
        pieces = [f'    "{c}, "' for c in clauses[:-1]] + [f'    "{clauses[-1]}"']
        print(f"#define {args.define} \\\n" + " \\\n".join(pieces))
    else:
        print(to_string(rs, compact=True))
    if args.blob:
        try:
            write_atomic(args.blob, standalone_container(serialize(rs)))
        except OSError as e:
            print(f"shaderbuild: error: cannot write '{e.filename}': {e.strerror}", file=sys.stderr)
            return 1
    return 0
