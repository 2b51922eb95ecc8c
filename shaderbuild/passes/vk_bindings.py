"""Vulkan descriptor bindings, following DXC's SPIR-V rules.

Precedence: [[vk::binding(b, s)]], then `register(xN, spaceM)` -> set M,
binding N + the class shift (-fvk-{b,t,s,u}-shift), then the next free binding
in set 0 for everything else, in declaration order.  Two resources landing on
the same (set, binding) is an error naming both.
"""

from __future__ import annotations

from .. import ir
from ..diagnostics import Diagnostic, error
from ..options import CompileOptions


def class_shift(options: CompileOptions, register_class: str, space: int) -> int:
    shift = 0
    for s in options.binding_shifts:   # later options win, as in DXC
        if s.register_class == register_class and (s.space is None or s.space == space):
            shift = s.shift
    return shift


def run(module: ir.Module, options: CompileOptions) -> None:
    used: dict[tuple[int, int], ir.Variable] = {}
    pending: list[ir.Variable] = []

    def claim(var: ir.Variable, set_: int, binding: int) -> None:
        other = used.get((set_, binding))
        if other is not None:
            raise error(
                f"resource '{var.name}' and resource '{other.name}' are both bound to descriptor set {set_} "
                f"binding {binding}; use [[vk::binding]] or -fvk-{{b,t,s,u}}-shift to separate them",
                var.loc, [Diagnostic("note", f"'{other.name}' is declared here", other.loc)])
        used[(set_, binding)] = var
        var.binding.vk = ir.VkBinding(set_, binding)

    for var in module.resources:
        b = var.binding
        if b.vk_explicit is not None:
            claim(var, b.vk_explicit[1], b.vk_explicit[0])
        elif b.register is not None:
            claim(var, b.space, b.register + class_shift(options, b.register_class, b.space))
        else:
            pending.append(var)
    for var in pending:
        n = 0
        while (0, n) in used:
            n += 1
        claim(var, 0, n)
