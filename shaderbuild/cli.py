"""The `shaderbuild` command line.

Sub-commands: compile (one shader, DXC-style options), plugins, and the
project commands build / clean / list / explain (see build_cli.py).  Imports
are lazy so that start-up stays fast: a `compile` command line with exact
option spellings is parsed here from COMPILE_ARGUMENTS without argparse;
anything else (help, other commands, usage errors) goes to cli_parser.py,
which builds the argparse parser from the same table.
"""

from __future__ import annotations

import gc
import os
import sys

# No `re` (with enum, functools, collections) here: the cyclic collector runs until main() turns it off
# for a compile, and those imports made it collect five times (~1 ms of a cold compile, issue 23).

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import SimpleNamespace
    from typing import Any
else:
    SimpleNamespace = type(sys.implementation)      # not `types` (~1.2 M instructions, issue 23)

SHIFT_OPTIONS = ("b", "t", "s", "u")
_VK_ENVS = ("vulkan1.0", "vulkan1.1", "vulkan1.2", "vulkan1.3", "universal1.5")   # = options.VK_TARGET_ENVS
_HLSL_VERSIONS = {"2016": 2016, "2017": 2017, "2018": 2018, "2021": 2021, "202x": 2029}   # -HV -> __HLSL_VERSION

# `compile`'s arguments as (flags, argparse.add_argument keywords), plus "group" for mutually
# exclusive options.  Every entry names its dest; actions: store (default), store_true,
# store_false, store_const, append.
COMPILE_ARGUMENTS: tuple[tuple[tuple[str, ...], dict], ...] = (
    (("source",), {"dest": "source", "help": "HLSL source file"}),
    (("-T",), {"dest": "profile", "required": True,
               "help": "profile: cs_6_0..cs_6_8, vs_6_x, ps_6_x, gs_6_x, hs_6_x, ds_6_x, ms_6_x, as_6_x, lib_6_x, "
                       "rootsig_1_0, rootsig_1_1"}),
    (("-E",), {"dest": "entry", "default": None,
               "help": "entry point name (default: main; a lib_6_x library: every [shader] function)"}),
    (("--target",), {"dest": "target", "help": "backend: spirv or dxil (default: dxil, as DXC)"}),
    (("-spirv",), {"dest": "spirv", "action": "store_true", "help": "same as --target spirv"}),
    (("-o", "-Fo"), {"dest": "output", "help": "output binary path"}),
    (("-D",), {"dest": "defines", "action": "append", "default": [], "metavar": "NAME[=VALUE]"}),
    (("-I",), {"dest": "include_dirs", "action": "append", "default": [], "metavar": "DIR"}),
    (("--manifest",), {"dest": "manifest", "help": "write the binding manifest JSON here"}),
    (("--Fc", "-Fc"), {"dest": "disassembly", "help": "write the disassembly here"}),
    *(((f"-fvk-{cls}-shift",), {"dest": f"shift_{cls}", "nargs": 2, "action": "append", "default": [],
                                 "metavar": ("N", "SPACE"),
                                 "help": f"shift '{cls}' registers by N in SPACE (a number or 'all')"})
      for cls in SHIFT_OPTIONS),
    (("-fspv-target-env", "--vk-target-env"), {"dest": "vk_target_env", "default": "vulkan1.1", "choices": _VK_ENVS}),
    (("--dxil-hash",), {"dest": "dxil_hash", "choices": ("bypass", "retail"), "default": "bypass",
                        "help": "container hash: BYPASS pattern (default) or the retail algorithm"}),
    (("--validate",), {"dest": "validate", "action": "store_true",
                       "help": "run the backend's full self-check of its output (sets SHADERBUILD_VALIDATE=1)"}),
    (("-fvk-invert-y",), {"dest": "vk_invert_y", "action": "store_true", "help": "negate SV_Position.y (vertex stage)"}),
    (("-fvk-use-dx-position-w",), {"dest": "vk_use_dx_position_w", "action": "store_true",
                                   "help": "reciprocate SV_Position.w in the pixel stage, as D3D does"}),
    *(((f"-fvk-support-nonzero-base-{what}",), {"dest": f"vk_support_nonzero_base_{what}", "action": "store_true",
                                                "help": f"SV_{what.title()}ID leaves out the draw's first {what}, as "
                                                        f"D3D does ({what.title()}Index - Base{what.title()})"})
      for what in ("vertex", "instance")),
    (("-fvk-auto-shift-bindings",), {"dest": "vk_auto_shift_bindings", "action": "store_true",
                                     "help": "resources without register() get D3D's register, then the class shift"}),
    (("-fvk-bind-register", "-vkbr"), {"dest": "vk_bind_register", "nargs": 4, "action": "append", "default": [],
                                       "metavar": ("xX", "SPACE", "BINDING", "SET"),
                                       "help": "bind register xX in SPACE to BINDING in SET"}),
    (("-fvk-bind-globals",), {"dest": "vk_bind_globals", "nargs": 2, "type": int, "metavar": ("BINDING", "SET")}),
    *(((f"-fvk-bind-{h}-heap",), {"dest": f"vk_bind_{h}_heap", "nargs": 2, "type": int, "metavar": ("BINDING", "SET"),
                                   "help": f"bind SM 6.6 {h} descriptor heap views to BINDING in SET"})
      for h in ("resource", "sampler", "counter")),
    (("-auto-binding-space",), {"dest": "auto_binding_space", "type": int, "default": 0, "metavar": "SET"}),
    *(((f"-fvk-use-{name}-layout",), {"dest": "vk_layout", "action": "store_const", "const": name, "group": "layout"})
      for name in ("dx", "gl", "scalar")),
    (("-Zpr",), {"dest": "row_major", "action": "store_true", "group": "major",
                 "help": "matrices are row_major by default"}),
    (("-Zpc",), {"dest": "row_major", "action": "store_false", "group": "major",
                 "help": "matrices are column_major by default"}),
    (("-HV",), {"dest": "hlsl_version", "choices": tuple(_HLSL_VERSIONS), "default": "2021"}),
    (("-enable-16bit-types",), {"dest": "enable_16bit", "action": "store_true"}),
    (("-enable-payload-qualifiers",), {"dest": "enable_payload_qualifiers", "action": "store_true",
                                       "help": "DXR payload access qualifiers on lib_6_6 (always on from lib_6_7)"}),
    (("--diagnostics-format",), {"dest": "diagnostics_format", "choices": ("gnu", "msvc", "json"), "default": "gnu"}),
    (("--max-preprocessed-bytes",), {"dest": "max_preprocessed_bytes", "type": int, "default": 16 * 1024 * 1024,
                                     "metavar": "N", "help": "limit on the text of all files, counted at "
                                     "every #include (default 16 MiB)"}),
    (("--time-report",), {"dest": "time_report", "action": "store_true", "help": "print the time spent in each phase"}),
    (("--validate-ir",), {"dest": "validate_ir", "action": "store_true",
                          "help": "check the IR after sema and after every shared pass (a compiler self-check)"}),
    # root signatures (shaderbuild/rootsig)
    (("-rootsig-define",), {"dest": "rootsig_define", "metavar": "NAME",
                            "help": "the root signature is the string macro NAME (overrides [RootSignature])"}),
    (("-force-rootsig-ver",), {"dest": "rootsig_version", "choices": ("rootsig_1_0", "rootsig_1_1"),
                               "default": "rootsig_1_1", "help": "root signature version (default rootsig_1_1)"}),
    (("-Frs",), {"dest": "root_signature_out", "metavar": "FILE",
                 "help": "write the root signature blob (a DXBC container holding RTS0) here"}),
    (("-extractrootsignature",), {"dest": "extract_root_signature", "action": "store_true",
                                  "help": "-Fo writes the root signature blob instead of the shader"}),
    (("-Qstrip_rootsignature",), {"dest": "strip_root_signature", "action": "store_true",
                                  "help": "leave the RTS0 part out of the DXIL container"}),
    # DXC's other common options (issue 22).  "no_effect": accepted for DXC command lines, but
    # not implemented: using one prints a warning naming it (remove the key once implemented).
    (("-Zi",), {"dest": "debug_info", "action": "store_true", "help": "emit debug information (docs/DEBUG_INFO.md)"}),
    (("-Fd",), {"dest": "debug_file", "metavar": "FILE", "help": "DXIL: write the debug container (PDB) here"}),
    (("-Qembed_debug",), {"dest": "embed_debug", "action": "store_true",
                          "help": "DXIL: embed the debug part (ILDB) in the output container"}),
    (("-Zss",), {"dest": "debug_name_source", "action": "store_true", "no_effect": True}),
    (("-Zsb",), {"dest": "debug_name_binary", "action": "store_true", "no_effect": True}),
    *(((f"-O{n}",), {"dest": "opt_level", "action": "store_const", "const": n, "default": 3,
                     "help": f"optimisation level {n}" + (" (default)" if n == 3 else "")}) for n in range(4)),
    (("-Od",), {"dest": "opt_level", "action": "store_const", "const": 0, "default": 3, "help": "no optimisation"}),
    (("-WX",), {"dest": "warnings_as_errors", "action": "store_true", "help": "treat warnings as errors"}),
    (("-W",), {"dest": "enabled_warnings", "action": "append", "default": [], "metavar": "NAME",
               "help": "-WNAME, -Wall: also report the default-off warnings of group NAME / of every group "
                       "(docs/WARNINGS.md)"}),
    (("-ferror-limit",), {"dest": "error_limit", "type": int, "default": 20, "metavar": "N",
                          "help": "stop after N errors (default 20; 0: no limit)"}),
    (("-Wno-",), {"dest": "disabled_warnings", "action": "append", "default": [], "metavar": "NAME",
                  "help": "-Wno-NAME: do not report warning group NAME (e.g. conversion)"}),
    (("-Fh",), {"dest": "header", "metavar": "FILE", "help": "write the binary as a C header (a byte array)"}),
    (("-Vn",), {"dest": "header_variable", "metavar": "NAME", "help": "the -Fh array's name (default: g_<entry>)"}),
    (("-M",), {"dest": "deps_only", "action": "store_true",
               "help": "print the Make dependencies to stdout instead of compiling"}),
    (("-MD",), {"dest": "write_depfile", "action": "store_true", "help": "also write the dependencies to <output>.d"}),
    (("-MF",), {"dest": "depfile", "metavar": "FILE", "help": "write the dependencies here"}),
    (("-MT",), {"dest": "dep_target", "metavar": "TARGET", "help": "the target named in the dependencies"}),
    (("-Fre",), {"dest": "reflection", "metavar": "FILE", "help": "write the reflection (the manifest JSON) here"}),
    (("-Qstrip_debug",), {"dest": "strip_debug", "action": "store_true", "no_effect": True}),
    (("-Qstrip_reflect",), {"dest": "strip_reflect", "action": "store_true", "no_effect": True}),
    (("-fspv-reflect",), {"dest": "spv_reflect", "action": "store_true", "no_effect": True}),
    (("-fspv-debug",), {"dest": "spv_debug", "action": "append", "default": [], "no_effect": True,
                        "metavar": "KIND"}),
    (("-nologo",), {"dest": "nologo", "action": "store_true", "help": "no banner (shaderbuild prints none)"}),
    (("-all-resources-bound",), {"dest": "all_resources_bound", "action": "store_true",
                                 "help": "DXIL: declare every resource bound (the AllResourcesBound shader flag)"}),
    (("-res-may-alias",), {"dest": "res_may_alias", "action": "store_true",
                           "help": "DXIL: assume UAVs may alias (no ResMayNotAlias shader flag)"}),
    (("-Gis",), {"dest": "ieee_strict", "action": "store_true", "no_effect": True}),
    (("-Ges",), {"dest": "enable_strict", "action": "store_true", "no_effect": True}),
)
_COMPILE_FLAGS = {flag: spec for flags, spec in COMPILE_ARGUMENTS for flag in flags if flag.startswith("-")}
_IMPLICIT_DEFAULTS = {"store_true": False, "store_false": True}
# single-dash options of more than one letter that take one value: DXC also writes them joined (-Foout.dxil)
_JOINABLE = sorted((f for f, s in _COMPILE_FLAGS.items() if len(f) > 2 and f[1] != "-" and "nargs" not in s
                    and s.get("action", "store") in ("store", "append")), key=len, reverse=True)


def _takes_values(spec: dict) -> int:
    return spec.get("nargs", 1) if spec.get("action", "store") in ("store", "append") else 0


def _split_joined(tok: str) -> list[str] | None:
    """`-flag=value` and DXC's joined `-Foout.dxil`, `-Vng_x`, `-Wno-name` as two tokens; None if `tok` is neither."""
    name, eq, value = tok.partition("=")
    if eq and name in _COMPILE_FLAGS and _takes_values(_COMPILE_FLAGS[name]) == 1:
        return [name, value]
    for flag in _JOINABLE:
        if tok.startswith(flag) and len(tok) > len(flag):
            return [flag, tok[len(flag):]]
    return None


def _is_option_spelling(tok: str) -> bool:
    spec = _COMPILE_FLAGS.get(tok[:2])
    return tok in _COMPILE_FLAGS or _split_joined(tok) is not None or (spec is not None and _takes_values(spec) == 1)


def normalize_compile_argv(argv: list[str]) -> list[str]:
    """A `compile` command line in the spellings the parsers know: DXC's `/T ps_6_0`-style slashes
    (a token naming an existing path stays a path), joined values of multi-letter options and
    `-flag=value` become separate tokens.  Option values are never rewritten."""
    if not argv or argv[0] != "compile":
        return argv
    out, i = [argv[0]], 1
    while i < len(argv):
        tok = argv[i]
        i += 1
        if tok == "--":
            out.extend(argv[i - 1:])
            break
        if tok.startswith("/") and len(tok) > 1 and _is_option_spelling("-" + tok[1:]) and not os.path.exists(tok):
            tok = "-" + tok[1:]
        if tok.startswith("-") and tok not in _COMPILE_FLAGS:
            split = _split_joined(tok)
            if split is not None:
                out.extend(split)
                continue
        out.append(tok)
        spec = _COMPILE_FLAGS.get(tok)
        if spec is not None:
            n = _takes_values(spec)
            out.extend(argv[i:i + n])
            i += n
    return out


def _take_values(spec: dict, values: list[str]):
    """The converted value(s) of one option occurrence, or None when argparse must judge them."""
    if any(v.startswith("-") and v != "-" for v in values):
        return None                         # argparse decides whether that is an option or a value
    try:
        converted = [spec.get("type", str)(v) for v in values]
    except ValueError:
        return None
    if "choices" in spec and any(v not in spec["choices"] for v in converted):
        return None
    return converted if "nargs" in spec else converted[0]


def parse_compile_fast(argv: list[str]) -> SimpleNamespace | None:
    """`shaderbuild compile ...` parsed as argparse would, for exact option spellings (and DXC's
    `-DNAME`, `-Idir`); None for anything else, which then goes to argparse for its help,
    abbreviations and error messages.  tests/cli/test_cli_fast_args.py checks both agree."""
    if not argv or argv[0] != "compile":
        return None
    ns: dict[str, Any] = {"command": "compile", "func": cmd_compile}
    seen_groups: dict[str, str] = {}
    positionals: list[str] = []
    i, n = 1, len(argv)
    while i < n:
        tok = argv[i]
        i += 1
        if not tok.startswith("-"):
            positionals.append(tok)
            continue
        spec, flag, attached = _COMPILE_FLAGS.get(tok), tok, None
        if spec is None:                   # DXC style -DNAME=VALUE / -Idir: a one-letter flag and its value
            flag, attached = tok[:2], tok[2:]
            spec = _COMPILE_FLAGS.get(flag)
            if (spec is None or "nargs" in spec or spec.get("action", "store") not in ("store", "append")
                    or tok.split("=", 1)[0] in _COMPILE_FLAGS or any(f.startswith(tok) for f in _COMPILE_FLAGS)):
                return None
        action = spec.get("action", "store")
        group = spec.get("group")
        if group is not None:
            if seen_groups.setdefault(group, flag) != flag:
                return None                 # argparse: "not allowed with argument ..."
        if action in ("store", "append"):
            if attached is not None:
                values = [attached]
            else:
                count = spec.get("nargs", 1)
                values = argv[i:i + count]
                if len(values) < count:
                    return None
                i += count
            value = _take_values(spec, values)
            if value is None:
                return None
            if action == "append":
                ns.setdefault(spec["dest"], []).append(value)
            else:
                ns[spec["dest"]] = value
        elif action == "store_const":
            ns[spec["dest"]] = spec["const"]
        else:
            ns[spec["dest"]] = action == "store_true"
    if len(positionals) != 1:
        return None
    ns["source"] = positionals[0]
    for _, spec in COMPILE_ARGUMENTS:
        if spec["dest"] not in ns:
            if spec.get("required"):
                return None
            default = spec.get("default", _IMPLICIT_DEFAULTS.get(spec.get("action", "store")))
            ns[spec["dest"]] = list(default) if isinstance(default, list) else default
    return SimpleNamespace(**ns)


def _parse_defines(items: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        name, _, value = item.partition("=")
        out[name] = value if "=" in item else "1"
    return out


def _parse_shifts(args) -> list:
    from .diagnostics import error
    from .options import MAX_REGISTER, BindingShift

    shifts = []
    for cls in SHIFT_OPTIONS:
        for n, space in getattr(args, f"shift_{cls}"):
            try:
                shift = int(n)
                sp = None if space == "all" else int(space)
            except ValueError:
                raise error(f"-fvk-{cls}-shift expects a number and a space number or 'all', got '{n} {space}'") from None
            if not 0 <= shift <= MAX_REGISTER or not (sp is None or 0 <= sp <= MAX_REGISTER):
                raise error(f"-fvk-{cls}-shift {n} {space}: out of range (0 to {MAX_REGISTER})")
            shifts.append(BindingShift(cls, shift, sp))
    return shifts


def _parse_bind_registers(args) -> list:
    out: list = []
    if not args.vk_bind_register:
        return out          # no `re` (with enum, functools, collections: ~20 M instructions) unless needed
    import re

    from .diagnostics import error
    from .options import MAX_REGISTER, BindRegister

    for reg, space, binding, set_ in args.vk_bind_register:
        m = re.match(r"^([btsu])(\d+)$", reg)
        if not m or not (space.isdigit() and binding.isdigit() and set_.isdigit()):
            raise error(f"-fvk-bind-register expects xX SPACE BINDING SET (e.g. t3 0 5 1), got "
                        f"'{reg} {space} {binding} {set_}'")
        if max(int(m.group(2)), int(space), int(binding), int(set_)) > MAX_REGISTER:
            raise error(f"-fvk-bind-register {reg} {space} {binding} {set_}: out of range (0 to {MAX_REGISTER})")
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


def _warn_no_effect(args) -> None:
    """An accepted option that shaderbuild does not implement is a warning naming it, never a silent no-op."""
    for flags, spec in COMPILE_ARGUMENTS:
        if spec.get("no_effect") and getattr(args, spec["dest"]) not in (None, False, []):
            print(f"shaderbuild: warning: option '{flags[0]}' is accepted but has no effect in shaderbuild",
                  file=sys.stderr)


def make_depfile(target: str, deps: list[str]) -> bytes:
    """A Make/Ninja depfile line `target: dep ...` (spaces, '#' and '$' escaped as GNU Make reads them)."""
    def esc(path: str) -> str:
        return path.replace("$", "$$").replace("#", "\\#").replace(" ", "\\ ")
    return (f"{esc(target)}: " + " \\\n  ".join(esc(d) for d in deps) + "\n").encode()


def _compile_options(args):
    from .options import CompileOptions

    target = "spirv" if args.spirv else (args.target or "dxil")
    return CompileOptions(
        entry=args.entry, profile=args.profile, target=target, defines=_parse_defines(args.defines),
        include_dirs=args.include_dirs, binding_shifts=_parse_shifts(args), vk_target_env=args.vk_target_env,
        dxil_hash=args.dxil_hash, hlsl_version=_HLSL_VERSIONS[str(args.hlsl_version)],
        enable_16bit_types=args.enable_16bit, enable_payload_qualifiers=args.enable_payload_qualifiers,
        res_may_alias=args.res_may_alias, all_resources_bound=args.all_resources_bound,
        vk_invert_y=args.vk_invert_y, vk_use_dx_position_w=args.vk_use_dx_position_w,
        vk_support_nonzero_base_vertex=args.vk_support_nonzero_base_vertex,
        vk_support_nonzero_base_instance=args.vk_support_nonzero_base_instance,
        vk_auto_shift_bindings=args.vk_auto_shift_bindings, vk_bind_registers=_parse_bind_registers(args),
        vk_bind_globals=tuple(args.vk_bind_globals) if args.vk_bind_globals else None,
        **{f"vk_bind_{h}_heap": tuple(getattr(args, f"vk_bind_{h}_heap")) if getattr(args, f"vk_bind_{h}_heap")
           else None for h in ("resource", "sampler", "counter")},
        auto_binding_space=args.auto_binding_space, vk_layout=args.vk_layout or "default",
        row_major=args.row_major, validate_ir=args.validate_ir, opt_level=args.opt_level,
        debug_info=args.debug_info, debug_file=args.debug_file, embed_debug=args.embed_debug,
        warnings_as_errors=args.warnings_as_errors, error_limit=args.error_limit,
        enabled_warnings=sorted(set(args.enabled_warnings)),
        disabled_warnings=sorted(set(args.disabled_warnings)), rootsig_define=args.rootsig_define,
        rootsig_version=args.rootsig_version.removeprefix("rootsig_").replace("_", "."),
        strip_root_signature=args.strip_root_signature, max_preprocessed_bytes=args.max_preprocessed_bytes)


def cmd_compile(args) -> int:
    from .compiler import compile_file, scan_dependencies
    from .diagnostics import WARNING_GROUPS, CompileError, render_all

    _warn_no_effect(args)
    if args.validate:           # a self-check changes no output byte, so it is no CompileOptions field
        os.environ["SHADERBUILD_VALIDATE"] = "1"
    for name in [*args.enabled_warnings, *args.disabled_warnings]:
        if name not in WARNING_GROUPS and name != "all":
            print(f"shaderbuild: warning: unknown warning option '-W{name}' (known: {', '.join(WARNING_GROUPS)})",
                  file=sys.stderr)
    to_stdout = args.output == "-"
    if args.header_variable is not None and not args.header:
        print("shaderbuild: warning: -Vn names the -Fh array; without -Fh it has no effect", file=sys.stderr)
    if args.header_variable is not None:
        import re

        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", args.header_variable):
            print(f"shaderbuild: error: -Vn '{args.header_variable}' is not a C identifier", file=sys.stderr)
            return 1
    if to_stdout and sys.stdout.isatty():
        print("shaderbuild: error: -Fo - writes the binary to stdout, which is a terminal; redirect it",
              file=sys.stderr)
        return 1
    if args.entry is None:      # a library exports every shader unless -E names one
        args.entry = "" if str(args.profile).startswith("lib_") else "main"
    try:
        options = _compile_options(args)
        if args.deps_only:      # -M: the dependencies only (as glslc -M), no compilation
            deps = scan_dependencies(args.source, options)
            sys.stdout.buffer.write(make_depfile(args.dep_target or _default_output(args), deps))
            return 0
    except CompileError as e:
        print(render_all(e.diagnostics, None, args.diagnostics_format), file=sys.stderr)
        return 1
    if args.extract_root_signature and _is_container(args.source):
        return _extract_root_signature(args)
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
    assert result.binary is not None and result.manifest is not None     # result.ok
    outputs = []
    rs_blob = result.root_signature or b""
    if (args.root_signature_out or args.extract_root_signature) and not rs_blob:
        print(f"shaderbuild: error: '{args.source}' has no root signature to "
              f"{'extract' if args.extract_root_signature else 'write'} (entry point '{args.entry}')", file=sys.stderr)
        return 1
    binary = rs_blob if args.extract_root_signature else result.binary
    if args.output and not to_stdout:
        outputs.append((args.output, binary))
    if args.root_signature_out:
        outputs.append((args.root_signature_out, rs_blob))
    for path in (args.manifest, args.reflection):
        if path:
            from .reflect.manifest import dumps

            outputs.append((path, dumps(result.manifest).encode()))
    if args.disassembly:
        outputs.append((args.disassembly, (result.disassembly or "").encode()))
    outputs += result.side_outputs.items()      # -Fd's debug container
    if args.header:     # -Fh: the same C header a project build writes (build/outputs.py)
        from .build.outputs import render_header

        outputs.append((args.header, render_header(args.header_variable or f"g_{args.entry or 'library'}", result.binary,
                                                   f"{args.source}:{args.entry} ({args.profile})")))
    depfile = args.depfile or (f"{_default_output(args)}.d" if args.write_depfile else None)
    if depfile:
        outputs.append((depfile, make_depfile(args.dep_target or _default_output(args), result.dependencies)))
    if not outputs and not to_stdout:
        print("shaderbuild: warning: no output requested (use -o, --manifest, --Fc, -Fh or -Frs)", file=sys.stderr)
    try:
        for path, data in outputs:
            write_atomic(path, data)
    except OSError as e:
        print(f"shaderbuild: error: cannot write '{e.filename}': {e.strerror}", file=sys.stderr)
        return 1
    if to_stdout:
        sys.stdout.buffer.write(binary)
        sys.stdout.buffer.flush()
    return 0


def _is_container(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"DXBC"
    except OSError:
        return False                        # compile_file reports it


def _extract_root_signature(args) -> int:
    """-extractrootsignature on a compiled container (as DXC takes it): its RTS0 part as a blob."""
    from .rootsig.rts0 import find_part, standalone_container

    with open(args.source, "rb") as f:
        part = find_part(f.read())
    if part is None:
        print(f"shaderbuild: error: '{args.source}' has no root signature (RTS0) part", file=sys.stderr)
        return 1
    if not args.output:
        print("shaderbuild: error: -extractrootsignature needs -Fo FILE", file=sys.stderr)
        return 1
    try:
        write_atomic(args.output, standalone_container(part))
    except OSError as e:
        print(f"shaderbuild: error: cannot write '{e.filename}': {e.strerror}", file=sys.stderr)
        return 1
    return 0


def _default_output(args) -> str:
    """The target a depfile names: -Fo's path, else the first other output, else <source>.<ext>."""
    for path in (args.output, args.header, args.manifest, args.reflection, args.disassembly):
        if path and path != "-":
            return path
    ext = ".spv" if (args.spirv or args.target == "spirv") else ".dxil"
    return os.path.splitext(os.path.basename(args.source))[0] + ext


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


LIGHT_COMMANDS = ("compile", "plugins", "rootsig")
BUILD_COMMANDS = ("build", "clean", "list", "explain")


def build_parser(command: str | None = None):
    """The argparse parser (see cli_parser.build_parser)."""
    from .cli_parser import build_parser

    return build_parser(command)


def _end_process(status: int) -> None:
    """End a finished `compile` process without interpreter teardown: freeing every module and
    object at exit costs ~10 ms, as much as compiling a small shader.  Only for commands that
    start no threads or child processes and have closed every file they wrote."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):       # a closed or broken pipe: let the normal exit report it
        return
    os._exit(status)


def _alone() -> bool:
    """No thread or child process left (a build's pool and executors end before it returns)."""
    threading = sys.modules.get("threading")
    mp = sys.modules.get("multiprocessing")
    return (threading is None or threading.active_count() == 1) and (mp is None or not mp.active_children())


def main(argv: list[str] | None = None) -> int:
    """Run one command.  Called without `argv` (the console script, `python -m shaderbuild`), a
    `compile`, and a `build` that left no thread or child process, end the process itself when
    done (see _end_process)."""
    as_program = argv is None
    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] == "build":     # nothing changed since the last build: answered from one snapshot
        from .build.noop import try_noop

        noop_status = try_noop(argv[1:])
        if noop_status is not None:
            if as_program:
                _end_process(noop_status)
            return noop_status
    argv = normalize_compile_argv(argv)
    args = parse_compile_fast(argv)
    if args is None:
        args = build_parser(argv[0] if argv else None).parse_args(argv)
    if as_program and args.command == "compile":
        # compile_file pauses the cyclic collector while it compiles and resumes it after; in a
        # process that then writes its output and ends (_end_process), resuming only makes the
        # next allocation walk every object the imports and the compilation made: 2-7 ms of CPU
        gc.disable()
    try:
        status = args.func(args)
    except KeyboardInterrupt:
        print("shaderbuild: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (`shaderbuild list | head -1`): stop quietly, as `cat` does; stdout
        # is pointed at /dev/null so that the interpreter's final flush cannot fail again
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    if as_program and (args.command == "compile" or args.command == "build" and _alone()):
        _end_process(status)
    return status


if __name__ == "__main__":
    sys.exit(main())
