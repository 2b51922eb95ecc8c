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
Two resources the code uses landing on the same (set, binding) is an error naming both when
`strict` (the SPIR-V backend runs this as one of its raise passes), unless they are a sampled texture and a
sampler (a combined image sampler); the manifest
derives the informational Vulkan view of other targets' builds with the same
rules, not strict (reflect/manifest.py).
"""

from __future__ import annotations

from .. import ir
from ..diagnostics import Diagnostic, error
from ..ir.resource_kinds import KINDS
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
    explicit_map: dict[tuple[str, int | None, int], tuple[int, int]] = {(b.register_class, b.register, b.space): (b.set, b.binding) for b in options.vk_bind_registers}
    used: dict[tuple[int, int], ir.Variable] = {}
    pending: list[ir.Variable] = []
    # a resource the code never names may share a binding (DXC's optimiser removes it; Vulkan requires
    # matching descriptors for statically used variables only)
    named, counters = _uses(module, strict)

    def claim(var: ir.Variable, set_: int, binding: int) -> None:
        if not (0 <= set_ <= MAX_REGISTER and 0 <= binding <= MAX_REGISTER):   # a shift can push it past
            raise error(f"resource '{var.name}' would be bound to descriptor set {set_} binding {binding}, "
                        f"outside the 32-bit range", var.loc)
        other = used.get((set_, binding))
        if other is not None and strict and id(var) in named and id(other) in named \
                and not _image_and_sampler(var, other):   # only a Vulkan binary has these bindings
            raise error(
                f"resource '{var.name}' and resource '{other.name}' are both bound to descriptor set {set_} "
                f"binding {binding}; use [[vk::binding]] or -fvk-{{b,t,s,u}}-shift to separate them",
                var.loc, [Diagnostic("note", f"'{other.name}' is declared here", other.loc)])
        if other is None or not strict or id(var) in named or id(other) not in named:
            used[(set_, binding)] = var     # (an unused resource never hides a used one from later checks)
        ir.binding_of(var).vk = ir.VkBinding(set_, binding)

    for var in module.resources:
        b = ir.binding_of(var)
        if explicit_map:
            if b.vk_explicit is not None:
                raise error("-fvk-bind-register cannot be combined with [[vk::binding]]", var.loc)
            letter = b.written_class or b.register_class
            target = explicit_map.get((letter, b.register, b.space)) if not b.implicit else None
            if target is None:
                if b.kind == "$Globals" and options.vk_bind_globals is not None:
                    claim(var, options.vk_bind_globals[1], options.vk_bind_globals[0])
                    continue
                raise error(f"resource '{var.name}' ({letter}{b.register}, space{b.space}) has no "
                            f"-fvk-bind-register mapping", var.loc)
            claim(var, *target)
        elif b.vk_explicit is not None:
            claim(var, b.vk_explicit[1], b.vk_explicit[0])
        elif b.kind == "$Globals" and options.vk_bind_globals is not None:
            claim(var, options.vk_bind_globals[1], options.vk_bind_globals[0])
        elif b.register is not None and (not b.implicit or options.vk_auto_shift_bindings):
            claim(var, b.space, b.register + class_shift(options, b.written_class or b.register_class, b.space))
        else:
            pending.append(var)
    space = options.auto_binding_space
    for var in pending:
        n = 0
        while (space, n) in used:
            n += 1
        claim(var, space, n)
    _counter_bindings(module, used, counters)
    _heap_bindings(module, options, used, strict, counters)


def _kind_of(var: ir.Variable):
    t = var.type
    while isinstance(t, ir.Array):
        t = t.elem
    return KINDS.get(t.kind) if isinstance(t, ir.Resource) else None


def _image_and_sampler(a: ir.Variable, b: ir.Variable) -> bool:
    """A sampled texture and a sampler may share a binding (`register(t0)` beside `register(s0)`): Vulkan
    reads a combined image sampler descriptor through separate image and sampler variables, and DXC
    binds them so."""
    ka, kb = _kind_of(a), _kind_of(b)
    if ka is None or kb is None:
        return False
    texture = lambda k: k.access == "SRV" and k.rep == "typed" and k.dim not in (None, "Buffer")  # noqa: E731
    return (ka.rep == "sampler" and texture(kb)) or (kb.rep == "sampler" and texture(ka))


_HEAP_OPTIONS = {"resource": "vk_bind_resource_heap", "sampler": "vk_bind_sampler_heap"}


def _heap_bindings(module: ir.Module, options: CompileOptions, used: dict[tuple[int, int], ir.Variable],
                   strict: bool, users: set[int]) -> None:
    """SM 6.6 heap views (DXC): every view of a heap is a runtime array at the heap's one binding,
    -fvk-bind-{resource,sampler}-heap N M, else the first free binding of set 0, taken lazily
    (resource heap first, then sampler heap) after every other resource and counter."""
    places: dict[str, tuple[int, int]] = {}
    views = module.heap_views
    for var in views:
        b, heap = ir.view_binding(var)
        if heap not in places:
            given = getattr(options, _HEAP_OPTIONS[heap])
            if given is not None:
                set_, n = given[1], given[0]
                other = used.get((set_, n))
                if other is not None and strict:
                    raise error(f"'{var.name}' (-fvk-bind-{heap}-heap) and resource '{other.name}' are both bound "
                                f"to descriptor set {set_} binding {n}", var.loc)
            elif options.vk_bind_registers:
                raise error(f"'{var.name}' needs -fvk-bind-{heap}-heap when -fvk-bind-register is used", var.loc)
            else:
                set_, n = 0, 0
                while (set_, n) in used:
                    n += 1
            places[heap] = (set_, n)
            used[(set_, n)] = var
        b.vk = ir.VkBinding(*places[heap])
    counted = [v for v in views if id(v) in users or _always_counted(ir.view_type(v))]
    if counted:     # one counter heap: a runtime array of counters, indexed like the resource heap
        given = options.vk_bind_counter_heap
        if given is not None:
            set_, n = given[1], given[0]
        elif options.vk_bind_registers:
            raise error(f"the counters of '{counted[0].name}' need -fvk-bind-counter-heap when -fvk-bind-register "
                        f"is used", counted[0].loc)
        else:
            set_, n = 0, 0
            while (set_, n) in used:
                n += 1
        other = used.get((set_, n))
        if other is not None and strict:
            raise error(f"the counter heap and resource '{other.name}' are both bound to descriptor set {set_} "
                        f"binding {n}", counted[0].loc)
        used[(set_, n)] = counted[0]
        for v in counted:
            vk = ir.view_binding(v)[0].vk
            assert vk is not None       # given above
            vk.counter_binding, vk.counter_set = n, set_


def _always_counted(t: ir.Resource) -> bool:
    """Append/Consume structured buffers: a hidden counter always in use (ir/resource_kinds.py)."""
    info = KINDS.get(t.kind)
    return info is not None and info.counter


def _uses(module: ir.Module, strict: bool) -> tuple[set[int], set[int]]:
    """In one walk of the code: the ids of the variables it names (when `strict`, else none: what
    ir.referenced_variables finds), and of the structured buffers whose hidden counter it uses
    (Append/Consume always have one); for a heap view, any element's counter."""
    named: set[int] = set()
    users: set[int] = set()
    for f in module.functions:
        exprs = ir.function_exprs(module, f)
        if strict:
            named.update([id(x.var) for x in ir.nodes_of(exprs, ir.VarRef)])
        for x in ir.nodes_of(exprs, ir.Intrinsic):
            if x.name in ("IncrementCounter", "DecrementCounter"):
                r = x.args[0]
                if isinstance(r, ir.IndexRef) and isinstance(r.base, ir.VarRef):  # a heap view, an array element
                    r = r.base
                if isinstance(r, ir.VarRef):
                    users.add(id(r.var))
    return named, users


def _counter_bindings(module: ir.Module, used: dict[tuple[int, int], ir.Variable], users: set[int]) -> None:
    """DXC gives a structured buffer's counter its own binding in the same set:
    [[vk::counter_binding(N)]], else the next free binding (`users`: _uses's counters)."""
    for var in module.resources:
        t = var.type.elem if isinstance(var.type, ir.Array) else var.type
        if not (isinstance(t, ir.Resource) and _always_counted(t)) and id(var) not in users:
            continue
        b = ir.binding_of(var)
        assert b.vk is not None   # every resource got one above
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
