"""The `shaderbuild` command line.

Sub-commands: compile (one shader, DXC-style options), plugins, and the
project commands build / clean / list / explain (see build_cli.py).  Imports
are lazy so that start-up stays fast.
"""

from __future__ import annotations

import argparse
import os
import sys

SHIFT_OPTIONS = ("b", "t", "s", "u")


def _formatter(prog: str) -> argparse.HelpFormatter:
    """argparse's default formatter imports shutil (for the terminal width) whenever an argument is
    added, which costs several ms on every start; help is formatted for 100 columns instead."""
    return argparse.HelpFormatter(prog, width=100)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", _formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # usage errors: exit 1 like every other error, no traceback
        self.print_usage(sys.stderr)
        print(f"shaderbuild: error: {message}", file=sys.stderr)
        raise SystemExit(1)


def _add_compile(sub) -> None:
    p = sub.add_parser("compile", help="compile one entry point of one HLSL file",
                       description="Compile one HLSL entry point to SPIR-V or DXIL (DXC-compatible spellings accepted).")
    p.add_argument("source", help="HLSL source file")
    p.add_argument("-T", dest="profile", required=True, help="profile: cs_6_0..cs_6_8, vs_6_x, ps_6_x")
    p.add_argument("-E", dest="entry", default="main", help="entry point name (default: main)")
    p.add_argument("--target", choices=None, default=None, help="backend: spirv or dxil (default: dxil, as DXC)")
    p.add_argument("-spirv", action="store_true", help="same as --target spirv")
    p.add_argument("-o", "-Fo", dest="output", help="output binary path")
    p.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]")
    p.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR")
    p.add_argument("--manifest", help="write the binding manifest JSON here")
    p.add_argument("--Fc", "-Fc", dest="disassembly", help="write the disassembly here")
    for cls in SHIFT_OPTIONS:
        p.add_argument(f"-fvk-{cls}-shift", dest=f"shift_{cls}", nargs=2, action="append", default=[],
                       metavar=("N", "SPACE"), help=f"shift '{cls}' registers by N in SPACE (a number or 'all')")
    p.add_argument("-fspv-target-env", "--vk-target-env", dest="vk_target_env", default="vulkan1.1",
                   choices=["vulkan1.0", "vulkan1.1", "vulkan1.2", "vulkan1.3"])
    p.add_argument("--dxil-hash", choices=["bypass", "retail"], default="bypass",
                   help="container hash: BYPASS pattern (default) or the retail algorithm")
    p.add_argument("-fvk-invert-y", dest="vk_invert_y", action="store_true", help="negate SV_Position.y (vertex stage)")
    p.add_argument("-fvk-use-dx-position-w", dest="vk_use_dx_position_w", action="store_true",
                   help="reciprocate SV_Position.w in the pixel stage, as D3D does")
    p.add_argument("-fvk-auto-shift-bindings", dest="vk_auto_shift_bindings", action="store_true",
                   help="resources without register() get D3D's register, then the class shift")
    p.add_argument("-fvk-bind-register", "-vkbr", dest="vk_bind_register", nargs=4, action="append", default=[],
                   metavar=("xX", "SPACE", "BINDING", "SET"), help="bind register xX in SPACE to BINDING in SET")
    p.add_argument("-fvk-bind-globals", dest="vk_bind_globals", nargs=2, type=int, metavar=("BINDING", "SET"))
    p.add_argument("-auto-binding-space", dest="auto_binding_space", type=int, default=0, metavar="SET")
    layout = p.add_mutually_exclusive_group()
    for name in ("dx", "gl", "scalar"):
        layout.add_argument(f"-fvk-use-{name}-layout", dest="vk_layout", action="store_const", const=name)
    major = p.add_mutually_exclusive_group()
    major.add_argument("-Zpr", dest="row_major", action="store_true", help="matrices are row_major by default")
    major.add_argument("-Zpc", dest="row_major", action="store_false", help="matrices are column_major by default")
    p.add_argument("-HV", dest="hlsl_version", type=int, choices=[2016, 2017, 2018, 2021], default=2021)
    p.add_argument("-enable-16bit-types", dest="enable_16bit", action="store_true")
    p.add_argument("--diagnostics-format", choices=["gnu", "msvc", "json"], default="gnu")
    p.add_argument("--time-report", action="store_true", help="print the time spent in each phase")
    p.set_defaults(func=cmd_compile)


def _parse_defines(items: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        name, _, value = item.partition("=")
        out[name] = value if "=" in item else "1"
    return out


def _parse_shifts(args) -> list:
    from .diagnostics import error
    from .options import BindingShift

    shifts = []
    for cls in SHIFT_OPTIONS:
        for n, space in getattr(args, f"shift_{cls}"):
            try:
                shift = int(n)
                sp = None if space == "all" else int(space)
            except ValueError:
                raise error(f"-fvk-{cls}-shift expects a number and a space number or 'all', got '{n} {space}'") from None
            shifts.append(BindingShift(cls, shift, sp))
    return shifts


def _parse_bind_registers(args) -> list:
    import re

    from .diagnostics import error
    from .options import BindRegister

    out = []
    for reg, space, binding, set_ in args.vk_bind_register:
        m = re.match(r"^([btsu])(\d+)$", reg)
        if not m or not (space.isdigit() and binding.isdigit() and set_.isdigit()):
            raise error(f"-fvk-bind-register expects xX SPACE BINDING SET (e.g. t3 0 5 1), got "
                        f"'{reg} {space} {binding} {set_}'")
        out.append(BindRegister(m.group(1), int(m.group(2)), int(space), int(binding), int(set_)))
    return out


def write_atomic(path: str, data: bytes) -> None:
    """Write via a temporary file in the same directory and os.replace."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    tmp = os.path.join(d, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def cmd_compile(args) -> int:
    from .compiler import compile_file
    from .diagnostics import CompileError, render_all
    from .options import CompileOptions
    from .reflect.manifest import dumps

    target = "spirv" if args.spirv else (args.target or "dxil")
    try:
        options = CompileOptions(
            entry=args.entry, profile=args.profile, target=target, defines=_parse_defines(args.defines),
            include_dirs=args.include_dirs, binding_shifts=_parse_shifts(args), vk_target_env=args.vk_target_env,
            dxil_hash=args.dxil_hash, hlsl_version=args.hlsl_version, enable_16bit_types=args.enable_16bit,
            vk_invert_y=args.vk_invert_y, vk_use_dx_position_w=args.vk_use_dx_position_w,
            vk_auto_shift_bindings=args.vk_auto_shift_bindings, vk_bind_registers=_parse_bind_registers(args),
            vk_bind_globals=tuple(args.vk_bind_globals) if args.vk_bind_globals else None,
            auto_binding_space=args.auto_binding_space, vk_layout=args.vk_layout or "default",
            row_major=args.row_major)
    except CompileError as e:
        print(render_all(e.diagnostics, None, args.diagnostics_format), file=sys.stderr)
        return 1
    result = compile_file(args.source, options)
    if result.diagnostics:
        print(render_all(result.diagnostics, result.sources, args.diagnostics_format), file=sys.stderr)
    if args.time_report:
        total = sum(result.timings.values())
        for phase, secs in result.timings.items():
            print(f"{phase:>12}: {secs * 1000:8.2f} ms", file=sys.stderr)
        print(f"{'total':>12}: {total * 1000:8.2f} ms", file=sys.stderr)
    if not result.ok:
        return 1
    outputs = []
    if args.output:
        outputs.append((args.output, result.binary))
    if args.manifest:
        outputs.append((args.manifest, dumps(result.manifest).encode()))
    if args.disassembly:
        outputs.append((args.disassembly, (result.disassembly or "").encode()))
    if not outputs:
        print("shaderbuild: warning: no output requested (use -o, --manifest or --Fc)", file=sys.stderr)
    try:
        for path, data in outputs:
            write_atomic(path, data)
    except OSError as e:
        print(f"shaderbuild: error: cannot write '{e.filename}': {e.strerror}", file=sys.stderr)
        return 1
    return 0


def cmd_plugins(args) -> int:
    from .plugin import get_host

    host = get_host()
    backends = host.backends()
    if not backends and not host.failed:
        print("no backends installed (pip install shaderbuild-spirv shaderbuild-dxil)")
    for name, b in backends.items():
        print(f"{name:8} {b.distribution} {b.dist_version}  {b.info.description}")
    for f in host.failed:
        print(f"{f.name:8} {f.distribution}  FAILED TO LOAD: {f.error}")
    return 0


LIGHT_COMMANDS = ("compile", "plugins")
BUILD_COMMANDS = ("build", "clean", "list", "explain")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; for the light commands only their own sub-parsers are
    built, so `shaderbuild compile` never imports the build engine or watchdog."""
    from . import __version__

    parser = _Parser(prog="shaderbuild", description="HLSL to SPIR-V and DXIL compiler and shader build tool")
    parser.add_argument("--version", action="version", version=f"shaderbuild {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    _add_compile(sub)
    p = sub.add_parser("plugins", help="list the installed backends")
    p.set_defaults(func=cmd_plugins)
    if command in LIGHT_COMMANDS:
        return parser
    if command != "watch":
        from .build_cli import add_build_commands

        add_build_commands(sub)
    if command not in BUILD_COMMANDS:   # `watch`, or no/unknown command (help lists everything)
        from .watch import add_watch_command

        add_watch_command(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("shaderbuild: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
