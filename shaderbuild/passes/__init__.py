"""Shared IR passes, one per module, run on every module before a backend.

`run_shared_passes` is the pipeline order; each pass mutates the module in place.
"""

from __future__ import annotations

from .. import ir
from ..options import CompileOptions
from . import dx_registers, entry_wrapper, flatten_resource_arrays, resource_locals, vk_bindings

PIPELINE = (resource_locals.run, flatten_resource_arrays.run, entry_wrapper.run, dx_registers.run, vk_bindings.run)


def run_shared_passes(module: ir.Module, options: CompileOptions) -> None:
    for p in PIPELINE:
        p(module, options)
