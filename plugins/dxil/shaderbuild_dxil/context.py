"""Module-wide lowering state: the LLVM module, its dx.op emitter, resources,
signature elements and memory for statics / groupshared variables."""

from __future__ import annotations

import sys

from shaderbuild import ir
from shaderbuild.diagnostics import CompileError, error, locate
from shaderbuild.lightstd import attrgetter

from .llvm import types as T
from .llvm.module import Module as LLModule
from .llvm.values import ConstNull, Undef, Value
from .ops import OpEmitter
from .places import VarStorage
from .resources import ResourceInfo, assign_ranges, classify, symbol_type
from .scalarize import leaf_layout, memory_scalar
from .signature import SigElement

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .debuginfo import DebugInfo  # -Zi only (backend._debug_info)

__all__ = ["ModuleContext", "used_globals", "TRIPLE", "DATALAYOUT_LEGACY", "DATALAYOUT_NATIVE16",
           "GROUPSHARED_ADDRSPACE"]

TRIPLE = "dxil-ms-dx"
DATALAYOUT_LEGACY = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64"
DATALAYOUT_NATIVE16 = "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64"
GROUPSHARED_ADDRSPACE = 3
MAX_GROUPSHARED_BYTES = 32768       # D3D12 thread-group shared memory per group
MAX_MESH_GROUPSHARED_BYTES = 28672  # a mesh shader's (DXC's validator: kMaxMSSMSize)


_CHILDREN: dict[type, Any] = {}


_UnionType = type(int | None)      # types.UnionType, without importing `types` (issue 23)

def _children_of(cls: type):
    """A C-level getter of a node class's fields (all but `type`) as a tuple, or None."""
    getter = _CHILDREN.get(cls, False)
    if getter is False:
        names = tuple(n for n in getattr(cls, "_fields", ()) if n != "type")
        if not names:
            getter = None
        elif len(names) == 1:
            one = attrgetter(names[0])
            getter = lambda e: (one(e),)  # noqa: E731
        else:
            getter = attrgetter(*names)
        _CHILDREN[cls] = getter
    return getter


def _expr_preorder(root: ir.Expr) -> list[ir.Expr]:
    """`ir.walk_expr`'s order (pre-order, fields in slot order) with an explicit stack:
    nested generators cost O(depth) per node on deep expressions."""
    out: list[ir.Expr] = []
    stack = [root]
    Expr = ir.Expr
    while stack:
        e = stack.pop()
        out.append(e)
        getter = _children_of(e.__class__)
        if getter is None:
            continue
        kids: list[ir.Expr] = []
        for v in getter(e):
            if isinstance(v, Expr):
                kids.append(v)
            elif isinstance(v, list):
                kids += [x for x in v if isinstance(x, Expr)]
        if kids:
            kids.reverse()
            stack += kids
    return out


COUNTER_INTRINSICS = frozenset({"IncrementCounter", "DecrementCounter"})

# How used_globals walks each node class, decided once per class from its fields' declared
# types (evaluated by _hints, see _field_kinds).  A class with a field that may
# hold an expression in some other way is walked generically (every field tested at run time).
_LEAF, _ONE, _MANY, _LIST, _GENERIC, _CALL, _INTRINSIC, _STMT = range(8)
_PLANS: dict[type, tuple[int, Any]] = {}            # node class -> (kind, getter / statement plan)
_ONE_CHILD: dict[type, Any] = {}                    # the _ONE classes' getters, looked up first
_NESTED_NONE, _NESTED_IF, _NESTED_LOOP, _NESTED_SWITCH = range(4)


_EXPR, _MAYBE_EXPR, _EXPRS, _STMTS, _DATA, _OTHER = "expr", "expr?", "exprs", "stmts", "data", "other"


def _field_kinds(cls: type) -> dict[str, str]:
    """What each field of an IR node class holds, by its declared type: an expression (_EXPR),
    an expression or None (_MAYBE_EXPR), a list of expressions (_EXPRS), statements or switch
    cases (_STMTS: walked as nested statement lists), no IR node (_DATA: types, names, numbers,
    variables, functions; `Any` is a Python value, Const.value), or possibly a node some other
    way (_OTHER)."""
    kinds = {}
    for name, hint in _hints(cls).items():
        args: tuple = getattr(hint, "__args__", ())
        origin = _UnionType if isinstance(hint, _UnionType) else getattr(hint, "__origin__", None)
        if hint is _ANY:
            kind = _DATA
        elif isinstance(hint, type) and not args:
            kind = _EXPR if issubclass(hint, ir.Expr) else _OTHER if issubclass(ir.Expr, hint) else _DATA
        elif origin is list and len(args) == 1 and isinstance(args[0], type):
            elem = args[0]
            kind = (_EXPRS if issubclass(elem, ir.Expr) else _STMTS if issubclass(elem, (ir.Stmt, ir.SwitchCase))
                    else _OTHER if issubclass(ir.Expr, elem) else _DATA)
        elif origin is _UnionType:
            parts = {_field_kind_of(a) for a in args}
            kind = _MAYBE_EXPR if parts == {_EXPR, _DATA} else _DATA if parts == {_DATA} else _OTHER
        elif origin is tuple and all(a is Ellipsis or isinstance(a, type) and not issubclass(ir.Expr, a)
                                     and not issubclass(a, ir.Expr) for a in args):
            kind = _DATA
        else:
            kind = _OTHER
        kinds[name] = kind
    return kinds


_ANY = object()     # `Any` in a field's declared type: any Python value


def _hints(cls: type) -> dict[str, object]:
    """The declared types of a class's fields, base classes first, as typing.get_type_hints
    evaluates them, without importing typing (~2 ms of a cold compile): the IR's modules name
    `Any` for type checkers only, and unions are written `X | Y`.  ClassVars are no fields."""
    hints: dict[str, object] = {}
    for base in reversed(cls.__mro__):
        scope = vars(sys.modules[base.__module__])
        for name, text in base.__dict__.get("__annotations__", {}).items():
            if not (isinstance(text, str) and text.startswith("ClassVar")):
                hints[name] = eval(text, scope, {"Any": _ANY}) if isinstance(text, str) else text
    return hints


def _field_kind_of(hint: object) -> str:
    """_field_kinds' verdict on one member of a union."""
    if hint is type(None):
        return _DATA
    if isinstance(hint, type) and not getattr(hint, "__args__", ()):
        return _EXPR if issubclass(hint, ir.Expr) else _OTHER if issubclass(ir.Expr, hint) else _DATA
    return _OTHER


def _expr_plan(cls: type) -> tuple[int, Any]:
    """(kind, getter) for an expression class: the kind says how its children are pushed."""
    if cls is ir.VarRef:
        plan: tuple[int, Any] = (_LEAF, None)       # the walk records the variable itself
    elif cls is ir.Call:
        plan = (_CALL, None)                        # the callee is walked later; the arguments now
    elif cls is ir.Intrinsic:
        plan = (_INTRINSIC, None)
    elif not issubclass(cls, ir.Expr):
        plan = (_LEAF, None)                        # None or a non-expression: nothing to walk
    else:
        kinds = _field_kinds(cls)
        names = [n for n in getattr(cls, "_fields", ()) if n != "type"]
        exprs = [n for n in names if kinds.get(n) == _EXPR]
        lists = [n for n in names if kinds.get(n) == _EXPRS]
        if any(kinds.get(n, _OTHER) not in (_EXPR, _EXPRS, _DATA) for n in names) or (exprs and lists) or len(lists) > 1:
            plan = (_GENERIC, _children_of(cls))
        elif lists:
            plan = (_LIST, attrgetter(lists[0]))
        elif len(exprs) == 1:
            plan = (_ONE, attrgetter(exprs[0]))
        elif exprs:
            plan = (_MANY, attrgetter(*reversed(exprs)))  # pushed last-first: popped in field order
        else:
            plan = (_LEAF, None)
    if plan[0] == _ONE:
        _ONE_CHILD[cls] = plan[1]
    return plan


def _stmt_plan(cls: type) -> tuple[tuple[str, ...], int]:
    """(the fields that may hold an expression, which nested statement lists it has), matching
    `ir.walk_stmts`."""
    kinds = _field_kinds(cls)
    names = tuple(n for n in (getattr(cls, "_fields", None) or cls.__slots__) if kinds.get(n, _OTHER) not in (_DATA, _STMTS))  # type: ignore[attr-defined]  # node classes have slots
    if any(kinds.get(n) == _EXPRS for n in names):
        raise TypeError(f"used_globals does not walk a statement's list of expressions ({cls.__name__})")
    nested = (_NESTED_IF if issubclass(cls, ir.If) else _NESTED_LOOP if issubclass(cls, ir.Loop)
              else _NESTED_SWITCH if issubclass(cls, ir.Switch) else _NESTED_NONE)
    return names, nested


def _plan(cls: type) -> tuple[int, Any]:
    """The used_globals plan of a node class (statement or expression), made once per class."""
    if issubclass(cls, ir.Stmt):
        names, nested = _stmt_plan(cls)
        plan: tuple[int, Any] = (_STMT, (names[::-1], nested))      # pushed last-first
    else:
        plan = _expr_plan(cls)
    _PLANS[cls] = plan
    return plan


def used_globals(fn: ir.Function) -> tuple[list[ir.Variable], list[ir.Function], set[int]]:
    """Globals referenced from fn and its callees (in first-use order), the callees, and the
    ids of the variables under the resource argument of IncrementCounter/DecrementCounter (the
    resources whose hidden counter is used: known before lowering because the SM 6.6
    annotateHandle properties, counter bit 15 as DXC sets it, are written at handle creation).
    One pre-order walk per function (fields in slot order) with one explicit stack holding
    statements and expressions alike, each node class handled by its plan; chains of one-child
    expressions (loads of field/swizzle/index references) are followed without the stack."""
    seen_vars: dict[int, ir.Variable] = {}
    seen_fns: dict[int, ir.Function] = {}
    counters: set[int] = set()
    fn_stack = [fn]
    Expr, VarRef = ir.Expr, ir.VarRef
    plans, single = _PLANS, _ONE_CHILD.get
    local_ids: set[int] = set()
    stack: list = []
    pop, push, extend = stack.pop, stack.append, stack.extend

    while fn_stack:
        f = fn_stack.pop()
        if id(f) in seen_fns:
            continue
        seen_fns[id(f)] = f
        local_ids.clear()
        local_ids.update(id(v) for v in f.locals)
        local_ids.update(id(p.var) for p in f.params)
        extend(reversed(f.body))
        while stack:
            e = pop()
            cls = e.__class__
            one = single(cls)
            while one is not None:                  # loads, field refs, swizzles, ...
                e = one(e)
                cls = e.__class__
                one = single(cls)
            if cls is VarRef:
                var = e.var
                if id(var) not in local_ids:
                    seen_vars.setdefault(id(var), var)
                continue
            plan = plans.get(cls)
            if plan is None:
                plan = _plan(cls)
                if plan[0] == _ONE:
                    push(e)
                    continue
            kind, getter = plan
            if kind == _LEAF:
                continue
            if kind == _MANY:
                extend(getter(e))
            elif kind == _STMT:
                names, nested = getter
                if nested == _NESTED_IF:
                    extend(reversed(e.else_))
                    extend(reversed(e.then))
                elif nested == _NESTED_LOOP:
                    extend(reversed(e.continuing))
                    extend(reversed(e.body))
                elif nested == _NESTED_SWITCH:
                    for c in reversed(e.cases):
                        extend(reversed(c.body))
                for name in names:
                    v = getattr(e, name, None)
                    if isinstance(v, Expr):
                        push(v)
            elif kind == _LIST:
                extend(reversed(getter(e)))
            elif kind == _CALL:
                fn_stack.append(e.func)
                extend(reversed(e.args))
            elif kind == _INTRINSIC:
                if e.name in COUNTER_INTRINSICS:
                    counters.update(id(r.var) for r in _expr_preorder(e.args[0]) if isinstance(r, VarRef))
                extend(reversed(e.args))
            else:
                kids: list[ir.Expr] = []
                for v in getter(e) if getter is not None else ():
                    if isinstance(v, Expr):
                        kids.append(v)
                    elif isinstance(v, list):
                        kids += [x for x in v if isinstance(x, Expr)]
                kids.reverse()
                extend(kids)
    return list(seen_vars.values()), list(seen_fns.values()), counters


class ModuleContext:
    """Module-wide state shared by the function lowerer."""

    def __init__(self, module: ir.Module, stage: str, sm: tuple[int, int], native16: bool,
                 optimize: bool = True) -> None:
        self.module = module
        self.optimize = optimize
        self.stage = stage
        self.sm = sm
        self.native16 = native16
        entries = ir.entry_points(module)
        self.entry_name = entries[0].name if entries else "library"     # a library's: its first shader's
        self.llmod = LLModule(self.entry_name, TRIPLE, DATALAYOUT_NATIVE16 if native16 else DATALAYOUT_LEGACY)
        self.ops = OpEmitter(self.llmod, stage, sm, native16)
        self.global_storages: dict[int, VarStorage] = {}
        self.resources: list[ResourceInfo] = []
        self._res_by_var: dict[int, ResourceInfo] = {}
        self.input_elems: dict[int, SigElement] = {}
        self.output_elems: dict[int, SigElement] = {}
        self.patch_elems: dict[int, SigElement] = {}       # hull/domain patch constants
        self.io_parts: dict[int, list[SigElement]] = {}    # an array-of-structs variable's elements (one per leaf)
        self.group_shared_bytes = 0
        self.payload_globals: dict[int, Value] = {}         # amplification: id(payload variable) -> its global
        self.folded_stores: set[int] = set()
        self.debug: DebugInfo | None = None       # -Zi (set by lower_module)

    def resource_of(self, var: ir.Variable) -> ResourceInfo:
        r = self._res_by_var.get(id(var))
        if r is None:
            raise error(f"resource '{var.name}' was not collected", var.loc)
        return r

    def add_payload_global(self, var: ir.Variable) -> None:
        """An amplification shader's payload: one groupshared global of the payload struct (dispatchMesh
        takes its address), read and written through a pointer per leaf (FunctionLowerer._mesh_payload)."""
        st = payload_struct(var)
        g = self.llmod.add_global(st, var.name, addrspace=GROUPSHARED_ADDRSPACE, initializer=Undef(st),
                                  linkage="internal", align=4)
        self.payload_globals[id(var)] = g
        self.group_shared_bytes += payload_bytes(st)

    def collect_globals(self, used_vars: list[ir.Variable], counter_users: set[int]) -> None:
        """The resources and static / groupshared storage the entry (or a library's shaders) use, in
        declaration order, then those not listed in the module's globals; UAV counters; register
        ranges; and in a library the global symbol naming each resource (DXIL.rst, field 1 of a record)."""
        used_ids = {id(v) for v in used_vars}
        declared = {id(g) for g in self.module.globals}
        for g in [g for g in self.module.globals if id(g) in used_ids] + [v for v in used_vars if id(v) not in declared]:
            if g.binding is not None:
                info = classify(g)
                if info.heap is None:       # heap views have no record, range or PSV0 entry
                    self.resources.append(info)
                self._res_by_var[id(g)] = info
            elif g.storage in (ir.Storage.PRIVATE, ir.Storage.WORKGROUP):
                self.add_global_storage(g)
            elif g.storage is ir.Storage.PAYLOAD and self.stage == "amplification" and id(g) not in self.payload_globals:
                self.add_payload_global(g)
        for vid in counter_users:
            if vid in self._res_by_var:
                self._res_by_var[vid].has_counter = True
        assign_ranges(self.resources)
        if self.stage == "library":
            for r in self.resources:
                r.symbol = self.llmod.add_global(symbol_type(r), r.var.name, constant=True)

    def add_global_storage(self, var: ir.Variable) -> None:
        try:
            lay = leaf_layout(var.type)
        except CompileError as exc:         # a size limit: at the declaration
            locate(exc, var.loc)
            raise
        space = GROUPSHARED_ADDRSPACE if var.storage == ir.Storage.WORKGROUP else 0
        ptrs: list[Value | None] = []
        for p, (s, n) in enumerate(zip(lay.leaves, lay.mult)):
            mt = memory_scalar(s)
            t = mt if n == 1 else T.ArrayType(mt, n)
            init = None if space == GROUPSHARED_ADDRSPACE else ConstNull(t)
            name = f"{var.name}" if len(lay.leaves) == 1 else f"{var.name}.{p}"
            g = self.llmod.add_global(t, name, addrspace=space, initializer=init,
                                      linkage="external" if init is None else "internal",
                                      align=max(4, mt.width // 8))
            if space == GROUPSHARED_ADDRSPACE:
                g.initializer = Undef(t)
                g.linkage = "internal"
                self.group_shared_bytes += (mt.width // 8 if mt != T.i1 else 4) * n
                limit = MAX_MESH_GROUPSHARED_BYTES if self.stage == "mesh" else MAX_GROUPSHARED_BYTES
                if self.group_shared_bytes > limit:
                    raise error(f"total groupshared memory ({self.group_shared_bytes} bytes with '{var.name}') "
                                f"exceeds the {limit}-byte limit" + (" of a mesh shader" if self.stage == "mesh" else ""),
                                var.loc)
            ptrs.append(g)
        self.global_storages[id(var)] = VarStorage(var, ptrs, list(lay.mult), list(lay.leaves))


def payload_struct(var: ir.Variable) -> T.StructType:
    """The LLVM type of a mesh/amplification payload: a named struct of the variable's leaves
    (scalarize.leaf_layout), so that both stages, compiled alike, agree on it."""
    lay = leaf_layout(var.type)
    elems = tuple(memory_scalar(s) if n == 1 else T.ArrayType(memory_scalar(s), n)
                  for s, n in zip(lay.leaves, lay.mult))
    name = var.type.name if isinstance(var.type, ir.Struct) else "payload"
    return T.StructType(elems, f"struct.{name}")


def payload_bytes(st: T.StructType) -> int:
    """A payload struct's size as LLVM allocates it: each leaf at its natural alignment, the whole
    rounded up to the largest (a double and a uint take 16 bytes)."""
    size, align = 0, 1
    for e in st.elems:
        n, s = (e.count, e.elem) if isinstance(e, T.ArrayType) else (1, e)
        assert isinstance(s, (T.IntType, T.FloatType))     # leaves are scalars (scalarize.memory_scalar)
        width = s.width // 8
        align = max(align, width)
        size = (size + width - 1) // width * width + width * n
    return (size + align - 1) // align * align
