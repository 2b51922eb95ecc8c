"""What a backend declares about its target, so that the shared core holds no
`target == "..."` branches (issue 15: targets own their decisions).

Each backend returns one `Capabilities` inside its `BackendInfo`
(plugin/hookspecs.py).  The core reads it at the few places where HLSL means
different things on different targets (sema, the compile pipeline, the
manifest); everything else a target needs it does in its own `raise_passes`,
which the pipeline runs after the shared passes and before the backend's
`shaderbuild_compile`.  The defaults describe a target with no extensions
(Direct3D's view of HLSL).
"""

from __future__ import annotations

from .records import ValueRecord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from .ir import Module
    from .options import CompileOptions

# (module, options) -> None: a backend's own IR pass, run in place after the shared passes
if TYPE_CHECKING:      # a type alias: for type checkers only (no collections.abc at run time)
    RaisePass = Callable[["Module", "CompileOptions"], None]


def d3d_layout_rule(block: str, options: CompileOptions) -> str:
    """Direct3D's layout rule for a block kind: structured-buffer packing for 'storage'."""
    return {"storage": "dx_structured", "uniform": "dx_cbuffer", "push": "dx_cbuffer"}[block]


class Capabilities(ValueRecord):
    """A target's decisions, as data and passes the core consults."""

    # [[vk::push_constant]] makes a push-constant block; without it the block is an ordinary
    # ConstantBuffer with a register (Direct3D has no push constants)
    push_constants: bool = False
    # SPIR-V BuiltIns that [[vk::ext_builtin_input/output(N)]] may name: (N, name, 'in'|'out'|'inout');
    # empty: the attributes are refused for this target
    ext_builtins: tuple[tuple[int, str, str], ...] = ()
    # [[vk::...]] attributes are this target's: those the compiler does not implement (front/attributes.py
    # VK_UNIMPLEMENTED) are refused; without, every [[vk::...]] attribute means nothing here (DXC's DXIL)
    vulkan_attributes: bool = False
    # the manifest lists [[vk::constant_id]] specialisation constants (they are overridable)
    specialization_constants: bool = False
    # macros the preprocessor predefines for this target, e.g. (('__spirv__', '1'),)
    predefined_macros: tuple[tuple[str, str], ...] = ()
    # (block kind 'storage' | 'uniform' | 'push', options) -> ir.layout rule name of this target's memory
    layout_rule: Callable[[str, CompileOptions], str] = d3d_layout_rule
    # shared IR lowerings (polyfills) this backend asks for, by intrinsic name (filled from the
    # intrinsic table)
    polyfills: frozenset[str] = frozenset()
    # the backend's own pre-passes, in order
    raise_passes: tuple[RaisePass, ...] = ()


DEFAULT = Capabilities()
