"""Shared IR passes, one per module, run on every module before a backend.

`run_shared_passes` is the pipeline order; each pass mutates the module in place.
`run_passes` then runs the chosen backend's own raise passes (Capabilities.raise_passes):
target-specific transforms never run here for every target.  `vk_bindings` is not in
the shared pipeline: the SPIR-V backend runs it (strict), and the manifest derives the
informational Vulkan view of other targets with it.
"""

from __future__ import annotations

from .. import ir
from ..capabilities import Capabilities
from ..options import CompileOptions
from . import dx_registers, entry_wrapper, flatten_resource_arrays, resource_locals

PIPELINE = (resource_locals.run, flatten_resource_arrays.run, entry_wrapper.run, dx_registers.run)


def run_shared_passes(module: ir.Module, options: CompileOptions) -> None:
    for p in PIPELINE:
        p(module, options)


def run_passes(module: ir.Module, options: CompileOptions, caps: Capabilities) -> None:
    """The shared passes, then the target's raise passes."""
    run_shared_passes(module, options)
    for p in caps.raise_passes:
        p(module, options)
