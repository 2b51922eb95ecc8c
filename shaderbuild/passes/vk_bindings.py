"""Vulkan descriptor bindings, following DXC's SPIR-V rules (SPIR-V.rst,
"HLSL register and Vulkan binding").

Precedence, most specific first:
  1. -fvk-bind-register xX Y N M (exclusive with shifts and [[vk::binding]]);
  2. [[vk::binding(b, s)]];
  3. `register(xN, spaceM)` -> set M, binding N + the class shift
     (-fvk-{b,t,s,u}-shift; the class letter is otherwise ignored);
     with -fvk-auto-shift-bindings, resources without `register` are treated as
     if D3D's register had been written;
  4. -fvk-bind-globals for `$Globals`;
  5. everything else: the next free binding in set -auto-binding-space (0), in
     declaration order.
Two resources landing on the same (set, binding) is an error naming both when
`strict` (the SPIR-V backend runs this as one of its raise passes); the manifest
derives the informational Vulkan view of other targets' builds with the same
rules, not strict (reflect/manifest.py).
"""

from __future__ import annotations

from .. import ir
from ..diagnostics import Diagnostic, error
from ..options import MAX_REGISTER, CompileOptions


def class_shift(options: CompileOptions, register_class: str, space: int) -> int:
    shift = 0
    for s in options.binding_shifts:   # later options win, as in DXC
        if s.register_class == register_class and (s.space is None or s.space == space):
            shift = s.shift
    return shift


def run(module: ir.Module, options: CompileOptions, strict: bool = False) -> None:
    """Fill `Binding.vk` of every resource; `strict`: the bindings are a binary's (collisions are errors)."""
    if options.vk_bind_registers and options.binding_shifts:
        raise error("-fvk-bind-register cannot be combined with -fvk-{b,t,s,u}-shift")
    explicit_map = {(b.register_class, b.register, b.space): (b.set, b.binding) for b in options.vk_bind_registers}
    used: dict[tuple[int, int], ir.Variable] = {}
    pending: list[ir.Variable] = []

    def claim(var: ir.Variable, set_: int, binding: int) -> None:
        if not (0 <= set_ <= MAX_REGISTER and 0 <= binding <= MAX_REGISTER):   # a shift can push it past
            raise error(f"resource '{var.name}' would be bound to descriptor set {set_} binding {binding}, "
                        f"outside the 32-bit range", var.loc)
        other = used.get((set_, binding))
        if other is not None and strict:   # only a Vulkan binary has these bindings
            raise error(
                f"resource '{var.name}' and resource '{other.name}' are both bound to descriptor set {set_} "
                f"binding {binding}; use [[vk::binding]] or -fvk-{{b,t,s,u}}-shift to separate them",
                var.loc, [Diagnostic("note", f"'{other.name}' is declared here", other.loc)])
        used[(set_, binding)] = var
        var.binding.vk = ir.VkBinding(set_, binding)

    for var in module.resources:
        b = var.binding
        if explicit_map:
            if b.vk_explicit is not None:
                raise error("-fvk-bind-register cannot be combined with [[vk::binding]]", var.loc)
            target = explicit_map.get((b.register_class, b.register, b.space)) if not b.implicit else None
            if target is None:
                if b.kind == "$Globals" and options.vk_bind_globals is not None:
                    claim(var, options.vk_bind_globals[1], options.vk_bind_globals[0])
                    continue
                raise error(f"resource '{var.name}' ({b.register_class}{b.register}, space{b.space}) has no "
                            f"-fvk-bind-register mapping", var.loc)
            claim(var, *target)
        elif b.vk_explicit is not None:
            claim(var, b.vk_explicit[1], b.vk_explicit[0])
        elif b.kind == "$Globals" and options.vk_bind_globals is not None:
            claim(var, options.vk_bind_globals[1], options.vk_bind_globals[0])
        elif b.register is not None and (not b.implicit or options.vk_auto_shift_bindings):
            claim(var, b.space, b.register + class_shift(options, b.register_class, b.space))
        else:
            pending.append(var)
    space = options.auto_binding_space
    for var in pending:
        n = 0
        while (space, n) in used:
            n += 1
        claim(var, space, n)
    _counter_bindings(module, used)


def _counter_users(module: ir.Module) -> set[int]:
    """Structured buffers whose hidden counter is used (Append/Consume always have one)."""
    users: set[int] = set()
    for f in module.functions:
        for s in ir.walk_stmts(f.body):
            for e in ir.stmt_exprs(s):
                for x in ir.walk_expr(e):
                    if isinstance(x, ir.Intrinsic) and x.name in ("IncrementCounter", "DecrementCounter") \
                            and isinstance(x.args[0], ir.VarRef):
                        users.add(id(x.args[0].var))
    return users


def _counter_bindings(module: ir.Module, used: dict[tuple[int, int], ir.Variable]) -> None:
    """DXC gives a structured buffer's counter its own binding in the same set:
    [[vk::counter_binding(N)]], else the next free binding."""
    users = _counter_users(module)
    for var in module.resources:
        kind = var.type.kind if isinstance(var.type, ir.Resource) else None
        if kind not in ("AppendStructuredBuffer", "ConsumeStructuredBuffer") and id(var) not in users:
            continue
        b = var.binding
        set_ = b.vk.set
        n = b.vk_counter_explicit
        if n is None:
            n = 0
            while (set_, n) in used:
                n += 1
        elif (set_, n) in used:
            other = used[(set_, n)]
            raise error(f"the counter of '{var.name}' and resource '{other.name}' are both bound to descriptor "
                        f"set {set_} binding {n}", var.loc)
        used[(set_, n)] = var
        b.vk.counter_binding = n
