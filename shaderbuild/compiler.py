"""The compile pipeline as one in-process call: source file -> binary + manifest.

    preprocess -> parse -> sema (-> IR) -> shared passes -> backend plugin -> manifest

`compile_file` never raises for bad input: user errors come back as
diagnostics in the result.
"""

from __future__ import annotations

import gc
import os
import sys
import time

from .capabilities import DEFAULT, Capabilities
from .diagnostics import (
    CompileError,
    Diagnostic,
    DiagnosticSink,
    SourceCache,
    SourceLoc,
    apply_warning_options,
    error,
    limit_errors,
)
from .options import VK_LAYOUTS, VK_TARGET_ENVS, CompileOptions, Profile, parse_profile
from .records import DataRecord, Record
from .rootsig import ROOTSIG_PROFILES


class CompileResult(DataRecord):
    """Everything one compilation produced.  `disassembly` is computed on first
    access when the backend supplied it as a callable (most callers never ask)."""

    ok: bool
    binary: bytes | None = None
    manifest: dict | None = None
    disassembly_source: object = None    # str, or a zero-argument callable returning it
    diagnostics: list[Diagnostic] = Record.factory(list)
    dependencies: list[str] = Record.factory(list)   # every file the preprocessor read
    sources: SourceCache = Record.factory(SourceCache)
    timings: dict[str, float] = Record.factory(dict)  # phase -> seconds
    side_outputs: dict[str, bytes] = Record.factory(dict)  # other files the options ask for (-Fd): path -> bytes
    root_signature: bytes | None = None   # the root signature blob (a DXBC container holding RTS0), if any
    module: object = None                 # the ir.Module, when compile_file(keep_module=True)

    @property
    def disassembly(self) -> str | None:
        src = self.disassembly_source
        if callable(src):
            src = self.disassembly_source = src()
        assert src is None or isinstance(src, str)
        return src



def predefined_macros(options: CompileOptions, profile: Profile, caps: Capabilities = DEFAULT) -> dict[str, str]:
    """Macros the compiler defines, as DXC does (the target's own, e.g. __spirv__, from `caps`)."""
    stage_numbers = {"pixel": 0, "vertex": 1, "geometry": 2, "hull": 3, "domain": 4, "compute": 5, "library": 6,
                     "mesh": 13, "amplification": 14}   # DXIL shader kinds
    macros = {
        "__HLSL_VERSION": str(options.hlsl_version),
        "__SHADER_TARGET_STAGE": str(stage_numbers[profile.stage]),
        "__SHADER_TARGET_MAJOR": str(profile.major),
        "__SHADER_TARGET_MINOR": str(profile.minor),
        "__SHADERBUILD__": "1",
    }
    if options.enable_16bit_types:
        macros["__HLSL_ENABLE_16_BIT"] = "1"
    macros.update(caps.predefined_macros)
    return macros


def source_display_name(path: str) -> str:
    """The name recorded in manifests: relative to the working directory when
    the file lies below it, else the base name (never an absolute path)."""
    rel = os.path.relpath(os.path.abspath(path))
    return os.path.basename(path) if rel.startswith("..") else rel.replace(os.sep, "/")


def _check_target(host, target: str) -> Capabilities:
    """The capabilities of `target`'s backend; a located error when it is not installed."""
    backends = host.backends()
    if target in backends:
        return backends[target].info.target_capabilities()
    for failed in host.failed:
        if failed.name == target:
            raise error(f"backend '{target}' ({failed.distribution}) failed to load: {failed.error}")
    available = ", ".join(backends) or "none"
    raise error(f"no backend for target '{target}' is installed (available: {available}); "
                f"install shaderbuild-{target}")


def compile_file(
    path: str,
    options: CompileOptions,
    *,
    text: str | None = None,
    reader=None,
    host=None,
    keep_module: bool = False,
) -> CompileResult:
    """Compile one entry point of one HLSL file for `options.target`.

    `text` overrides the file's contents; `reader(path) -> bytes` lets the build
    engine share a file cache; `host` is a PluginHost (default: the process-wide
    one).  Never raises for bad input; see CompileResult.ok / .diagnostics.
    """
    # nesting is bounded by the parser (MAX_NESTING), so every pass stays far below this;
    # CPython 3.11 keeps Python frames off the C stack, so a high limit is safe
    if sys.getrecursionlimit() < 20000:
        sys.setrecursionlimit(20000)
    result = CompileResult(ok=False)
    # a compilation allocates many small acyclic objects; the cyclic collector only slows it
    # down (superlinearly in shader size), so it is paused and the garbage freed at the end
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        _compile_into(result, path, options, text, reader, host, keep_module)
    finally:
        if gc_was_enabled:
            gc.enable()
    return result


def _compile_into(result: CompileResult, path: str, options: CompileOptions, text, reader, host,
                  keep_module: bool = False) -> None:
    """The pipeline proper; fills `result` (see compile_file)."""
    from .front.parser import parse
    from .front.preprocessor import preprocess
    from .front.sema import analyze
    from .passes import run_passes
    from .plugin import get_host
    from .reflect import build_manifest
    from .rootsig.source import has_root_signature

    timings = result.timings
    sink = DiagnosticSink()
    t = time.perf_counter()

    def lap(phase: str) -> None:
        nonlocal t
        now = time.perf_counter()
        timings[phase] = timings.get(phase, 0.0) + now - t
        t = now

    try:
        if options.profile in ROOTSIG_PROFILES:         # -T rootsig_1_x -E NAME: a standalone blob
            from .rootsig.standalone import compile_standalone

            result.binary, result.manifest, files = compile_standalone(path, options, text, reader, result.sources,
                                                                       source_display_name(path))
            result.root_signature, result.dependencies, result.ok = result.binary, files, True
            return
        profile = parse_profile(options.profile)
        if options.vk_layout not in VK_LAYOUTS:
            raise error(f"unknown Vulkan layout '{options.vk_layout}' (one of {', '.join(VK_LAYOUTS)})")
        if options.vk_target_env not in VK_TARGET_ENVS:
            raise error(f"unknown target environment '{options.vk_target_env}' (one of {', '.join(VK_TARGET_ENVS)})")
        if options.embed_debug and not options.debug_info:     # DXC: "Must enable debug info with /Zi for /Qembed_debug"
            raise error("-Qembed_debug needs debug information: add -Zi")
        if options.debug_file and not options.debug_info:
            sink.warning("-Fd has no effect without -Zi: no debug information is generated")
        if options.enable_16bit_types and (profile.major, profile.minor) < (6, 2):
            raise error(f"-enable-16bit-types requires shader model 6.2 or higher (profile is {options.profile})")
        host = host or get_host()
        caps = _check_target(host, options.target)
        pp = preprocess(path, text=text, defines=options.defines, include_dirs=options.include_dirs,
                        predefined=predefined_macros(options, profile, caps), sources=result.sources, reader=reader,
                        limits=_pp_limits(options), recover=True)
        result.dependencies = list(pp.files)
        sink.items.extend(pp.warnings)
        lap("preprocess")
        if pp.errors:       # the syntax errors are still worth reporting; sema would only cascade
            try:
                parse(pp.tokens, pp.pack_matrix, profile.stage)
            except CompileError as e:
                raise CompileError(pp.errors + e.diagnostics) from None
            raise CompileError(pp.errors)
        tu = parse(pp.tokens, pp.pack_matrix, profile.stage)
        sink.items.extend(tu.warnings)
        lap("parse")
        module = analyze(tu, options, profile, sink, list(pp.files), path, caps)
        if has_root_signature(tu, options):       # the rootsig package loads only for shaders with one
            from .rootsig.shader import root_signature_for

            module.root_signature = root_signature_for(tu, pp.macros, options)
        if any(o.row.dxil_kind in (1, 2) for o in module.subobjects):     # Global/LocalRootSignature
            from .rootsig.shader import parse_subobject_signatures

            parse_subobject_signatures(module, options.rootsig_version)
        lap("sema")
        if options.debug_info:
            module.source_texts = {name: result.sources.text(name) for name in result.sources.names()}
        run_passes(module, options, caps)
        if module.root_signature is not None:
            from .rootsig.shader import check_module

            sink.items.extend(check_module(module))
        lap("passes")
        backend = host.call("shaderbuild_compile", module=module, target=options.target, options=options)
        if backend is None:
            raise error(f"backend '{options.target}' returned no result")
        sink.items.extend(backend.diagnostics)
        lap("emit")
        result.binary = backend.binary
        result.disassembly_source = backend.disassembly
        result.side_outputs = dict(backend.side_outputs)
        result.manifest = build_manifest(module, options, source_display_name(path), backend.reflection, caps)
        if module.root_signature is not None:
            from .rootsig import serialize, standalone_container

            result.root_signature = standalone_container(serialize(module.root_signature))
        if keep_module:
            result.module = module
        result.ok = True
    except CompileError as e:
        sink.items.extend(e.diagnostics)
    except RecursionError:
        sink.items.append(Diagnostic("error", "program too deeply nested for the compiler (recursion limit)",
                                     SourceLoc(path, 1, 1)))
    except Exception as e:  # noqa: BLE001 - a bug must become a diagnostic, never a traceback
        import traceback

        frame = traceback.extract_tb(e.__traceback__)[-1]
        where = f"{os.path.basename(frame.filename)}:{frame.lineno}"
        sink.items.append(Diagnostic("error", f"internal compiler error: {type(e).__name__}: {e} (at {where}); "
                                              f"please report this with the shader"))
    result.diagnostics = sink.items
    if any(d.severity == "warning" for d in sink.items):
        result.diagnostics = apply_warning_options(sink.items, options.disabled_warnings, options.warnings_as_errors,
                                                   options.enabled_warnings)
    result.diagnostics = limit_errors(result.diagnostics, options.error_limit)
    if result.ok and any(d.severity == "error" for d in result.diagnostics):
        result.ok = False
    if not result.ok:
        result.binary = result.manifest = result.disassembly_source = result.root_signature = None
        result.side_outputs = {}


def scan_dependencies(path: str, options: CompileOptions, *, reader=None) -> list[str]:
    """Every file the preprocessor reads for this file and options (absolute paths).

    Raises CompileError when preprocessing fails (e.g. a missing include)."""
    from .front.preprocessor import preprocess
    from .plugin import get_host

    profile = parse_profile(options.profile)
    backend = get_host().backends().get(options.target)   # its predefined macros (__spirv__) steer #if
    caps = backend.info.target_capabilities() if backend is not None else DEFAULT
    pp = preprocess(path, defines=options.defines, include_dirs=options.include_dirs,
                    predefined=predefined_macros(options, profile, caps), reader=reader, limits=_pp_limits(options))
    return list(pp.files)


def _pp_limits(options: CompileOptions):
    from .front.preprocessor import PPLimits

    return PPLimits(max_total_size=options.max_preprocessed_bytes)
