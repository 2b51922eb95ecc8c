"""The argparse parser of the `shaderbuild` command line.

Only imported when `cli.parse_compile_fast` cannot handle the command line
(help, other commands, abbreviations, usage errors): argparse costs ~5 ms per
process start, a tenth of a cold `shaderbuild compile`.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from . import __version__
from .cli import BUILD_COMMANDS, COMPILE_ARGUMENTS, LIGHT_COMMANDS, cmd_compile, cmd_plugins


def _formatter(prog: str) -> argparse.HelpFormatter:
    """argparse's default formatter imports shutil (for the terminal width) whenever an argument is
    added, which costs several ms on every start; help is formatted for 100 columns instead."""
    return argparse.HelpFormatter(prog, width=100)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", _formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:  # usage errors: exit 1 like every other error, no traceback
        self.print_usage(sys.stderr)
        print(f"shaderbuild: error: {message}", file=sys.stderr)
        raise SystemExit(1)

    def parse_args(self, args=None, namespace=None):
        """Arguments no parser took are reported with the usage of the command they follow
        (`shaderbuild compile ... -Zx` shows compile's usage, not the top level's)."""
        ns, extras = self.parse_known_args(args, namespace)
        if extras:
            sub = self._subparsers._group_actions[0] if self._subparsers else None
            command = getattr(ns, "command", None)
            owner = sub.choices.get(command, self) if sub is not None and command else self
            owner.error(f"unrecognized arguments: {' '.join(extras)}")
        return ns


def _add_compile(sub) -> None:
    p = sub.add_parser("compile", help="compile one entry point of one HLSL file",
                       description="Compile one HLSL entry point to SPIR-V or DXIL (DXC-compatible spellings accepted).")
    groups: dict[str, argparse._MutuallyExclusiveGroup] = {}
    for flags, spec in COMPILE_ARGUMENTS:
        kwargs = dict(spec)
        group = kwargs.pop("group", None)
        if kwargs.pop("no_effect", None):
            kwargs["help"] = (kwargs.get("help", "DXC option") + " (accepted; no effect in shaderbuild yet: a warning)")
        if group and group not in groups:
            groups[group] = p.add_mutually_exclusive_group()
        if flags[0].startswith("-"):
            (groups[group] if group else p).add_argument(*flags, **kwargs)
        else:
            kwargs.pop("dest")              # a positional's dest is its name
            p.add_argument(*flags, **kwargs)
    p.set_defaults(func=cmd_compile)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; for the light commands only their own sub-parsers are
    built, so `shaderbuild compile` never imports the build engine or watchdog, and for the
    build commands only theirs."""
    parser = _Parser(prog="shaderbuild", description="HLSL to SPIR-V and DXIL compiler and shader build tool")
    parser.add_argument("--version", action="version", version=f"shaderbuild {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    if command not in BUILD_COMMANDS:   # compile's ~80 options cost a build command ~5 ms
        _add_compile(sub)
        p = sub.add_parser("plugins", help="list the installed backends")
        p.set_defaults(func=cmd_plugins)
        from .rootsig_cli import add_rootsig_command

        add_rootsig_command(sub)
    if command in LIGHT_COMMANDS:
        return parser
    if command != "watch":
        from .build_cli import add_build_commands

        add_build_commands(sub)
    if command not in BUILD_COMMANDS:   # `watch`, or no/unknown command (help lists everything)
        from .watch import add_watch_command

        add_watch_command(sub)
    return parser
