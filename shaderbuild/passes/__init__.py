"""Shared IR passes, one per module, run on every module before a backend.

`run_shared_passes` is the pipeline order; each pass mutates the module in place.
With `--validate-ir` (or SHADERBUILD_VALIDATE_IR=1, as the test suite sets) the IR
validator checks the module sema made and the module after every pass.
"""

from __future__ import annotations

import os

from .. import ir
from ..options import CompileOptions
from . import dx_registers, entry_wrapper, flatten_resource_arrays, resource_locals, vk_bindings

PIPELINE = (resource_locals.run, flatten_resource_arrays.run, entry_wrapper.run, dx_registers.run, vk_bindings.run)


def validation_requested(options: CompileOptions) -> bool:
    """Whether the IR validator runs for this compilation."""
    return options.validate_ir or os.environ.get("SHADERBUILD_VALIDATE_IR", "") not in ("", "0")


def run_shared_passes(module: ir.Module, options: CompileOptions) -> None:
    if not validation_requested(options):
        for p in PIPELINE:
            p(module, options)
        return
    from ..ir.validate import validate_module

    validate_module(module, "sema")
    for p in PIPELINE:
        p(module, options)
        validate_module(module, p.__module__.rsplit(".", 1)[-1])
