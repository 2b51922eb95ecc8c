"""Shared IR passes, one per module, run on every module before a backend.

`run_shared_passes` is the pipeline order; each pass mutates the module in place.
`run_passes` then runs the chosen backend's own raise passes (Capabilities.raise_passes):
target-specific transforms never run here for every target.  `vk_bindings` is not in
the shared pipeline: the SPIR-V backend runs it (strict), and the manifest derives the
informational Vulkan view of other targets with it.

With `--validate-ir` (or SHADERBUILD_VALIDATE_IR=1, as the test suite sets) the IR
validator checks the module sema made and the module after every pass.

Read-only searches share one walk of a function (`ir.function_exprs`) between passes that change
no body; the driver forgets those walks before and after any other pass, and when the passes end.
"""

from __future__ import annotations

import os

from .. import ir
from ..capabilities import Capabilities
from ..options import CompileOptions
from . import dx_registers, entry_wrapper, flatten_resource_arrays, inline, resource_locals


def _end_hits(module: ir.Module, options: CompileOptions) -> None:
    """hit_terminators.run, imported when a library has entries (IgnoreHit and AcceptHitAndEndSearch
    are any-hit intrinsics, and any-hit shaders live in libraries only)."""
    if module.entries:
        from . import hit_terminators

        hit_terminators.run(module, options)


@ir.keeps_exprs
def _unroll(module: ir.Module, options: CompileOptions) -> None:
    """unroll.run, imported when a function holds an `[unroll]` loop (most shaders have none); it
    forgets the remembered expression lists before it rewrites."""
    if any(ir.has_unroll_loop(f.body) for f in module.functions):
        from . import unroll

        unroll.run(module, options)


PIPELINE = (resource_locals.run, flatten_resource_arrays.run, entry_wrapper.run, _end_hits, dx_registers.run,
            inline.run, _unroll)


def validation_requested(options: CompileOptions) -> bool:
    """Whether the IR validator runs for this compilation."""
    return options.validate_ir or os.environ.get("SHADERBUILD_VALIDATE_IR", "") not in ("", "0")


def _run(p, module: ir.Module, options: CompileOptions) -> None:
    """One pass; the remembered expression lists (ir.function_exprs) are forgotten before and after
    it unless the pass is marked `ir.keeps_exprs`."""
    if getattr(p, "keeps_exprs", False):
        p(module, options)
        return
    ir.forget_exprs(module)
    p(module, options)
    ir.forget_exprs(module)


def run_shared_passes(module: ir.Module, options: CompileOptions) -> None:
    try:
        _run_shared_passes(module, options)
    finally:
        ir.forget_exprs(module)


def _run_shared_passes(module: ir.Module, options: CompileOptions) -> None:
    if not validation_requested(options):
        for p in PIPELINE:
            _run(p, module, options)
        return
    from ..ir.validate import validate_module

    validate_module(module, "sema")
    for p in PIPELINE:
        _run(p, module, options)
        validate_module(module, p.__module__.rsplit(".", 1)[-1])


def run_passes(module: ir.Module, options: CompileOptions, caps: Capabilities) -> None:
    """The shared passes, then the target's raise passes (each validated when requested)."""
    try:
        _run_passes(module, options, caps)
    finally:
        ir.forget_exprs(module)     # the backend may change bodies


def _run_passes(module: ir.Module, options: CompileOptions, caps: Capabilities) -> None:
    _run_shared_passes(module, options)     # (its walks kept for the raise passes)
    validate = validation_requested(options)
    for p in caps.raise_passes:
        _run(p, module, options)
        if validate:
            from ..ir.validate import validate_module

            validate_module(module, getattr(p, "__module__", "raise").rsplit(".", 1)[-1])
    fns = ir.functions_calling(module, frozenset(caps.polyfills))
    if fns:     # polyfill's expansions (~55 KB of bytecode) load only for a shader that calls one (issue 23)
        from . import polyfill

        ir.forget_exprs(module)     # the rewriting walk changes bodies in place
        polyfill.rewrite(fns, caps.polyfills)
        if validate:
            from ..ir.validate import validate_module

            validate_module(module, "polyfill")
