"""D3D register assignment for resources declared without `register(...)`.

Direct3D needs every resource at a register; like DXC, a resource without one
gets the lowest free range of its class in space 0, in declaration order, and
is marked `implicit`: vk_bindings gives such resources the next free Vulkan
binding instead, unless -fvk-auto-shift-bindings asks for the D3D register plus
the class shift.

A shared pass, not DXIL's: `register(...)` is HLSL's own binding model, the
manifest's "hlsl" view (class, register, space) is written for every target,
overlaps are errors in every target (as in DXC), and the Vulkan rules are
defined in terms of it.
"""

from __future__ import annotations

from .. import ir
from ..diagnostics import Diagnostic, error
from ..options import MAX_REGISTER, CompileOptions


def _overlaps(a: tuple[int, float], b: tuple[int, float]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def run(module: ir.Module, options: CompileOptions) -> None:
    taken: dict[tuple[str, int], list[tuple[tuple[int, float], ir.Variable]]] = {}
    pending: list[ir.Variable] = []
    for var in module.resources:
        b = var.binding
        assert b is not None            # Module.resources: the variables with a binding
        if b.register is None:
            pending.append(var)
            continue
        rng = (b.register, float("inf") if b.count is None else b.register + b.count - 1)
        if rng[1] != float("inf") and rng[1] > MAX_REGISTER:
            raise error(f"resource '{var.name}' ({b.count} registers from {b.register_class}{b.register}) ends past "
                        f"register {b.register_class}{MAX_REGISTER}", var.loc)
        for other_rng, other in taken.get((b.register_class, b.space), []):
            if _overlaps(rng, other_rng):
                raise error(f"resource '{var.name}' overlaps resource '{other.name}' at register "
                            f"{b.register_class}{b.register}, space{b.space}", var.loc,
                            [Diagnostic("note", f"'{other.name}' is declared here", other.loc)])
        taken.setdefault((b.register_class, b.space), []).append((rng, var))
    for var in pending:
        b = var.binding
        assert b is not None and b.register is None
        if b.count is None:
            raise error(f"unbounded resource array '{var.name}' needs an explicit register", var.loc)
        used = sorted(r for r, _ in taken.get((b.register_class, 0), []))
        slot = 0
        for lo, hi in used:
            if slot + b.count - 1 < lo:
                break
            slot = max(slot, int(hi) + 1 if hi != float("inf") else slot)
            if hi == float("inf"):
                raise error(f"no free {b.register_class} register for '{var.name}' (an unbounded array takes "
                            f"every register from {b.register_class}{lo})", var.loc)
        if slot + b.count - 1 > MAX_REGISTER:
            raise error(f"no free {b.register_class} register for '{var.name}'", var.loc)
        b.register = slot
        b.space = 0
        b.implicit = True
        taken.setdefault((b.register_class, 0), []).append(((slot, slot + b.count - 1), var))
