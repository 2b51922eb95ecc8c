"""Resource-typed locals and parameters, resolved at compile time (seed 001).

A resource value is a handle to a global resource (or a global resource
array, or a sub-array of one).  Functions taking resources are inlined, then
every function is walked once in program order, tracking which global each
resource-typed local holds; every use of such a local is rewritten to the
global place, and the assignments disappear.  Local arrays are copies, so
assigning `Arr[0] = Y` inside an inlined callee never changes the caller's
array - the DXC bug of seed 001 cannot happen.  Unresolvable cases are
errors: an uninitialised local resource, or one whose value depends on
control flow.  A local (or an inlined parameter) of a struct type with a
resource member is first split into one local per member (_split_structs),
so `m.tex` is a resource local like any other.
"""

from __future__ import annotations

from .. import ir
from ..diagnostics import SourceLoc, error
from ..options import CompileOptions
from .inline import inline_calls

CONFLICT = ("conflict",)


def has_resource(t: ir.Type) -> bool:
    while isinstance(t, ir.Array):
        t = t.elem
    return isinstance(t, ir.Resource)


def struct_with_resource(t: ir.Type) -> bool:
    """A struct with a resource member (at any depth): a local of it is split into one local per member."""
    return isinstance(t, ir.Struct) and any(has_resource(f.type) or struct_with_resource(f.type) for f in t.fields)


def _takes_resources(f: ir.Function) -> bool:
    """Resources, structs holding them, or a RayQuery (which names the caller's query): always inlined."""
    return any(has_resource(p.var.type) or struct_with_resource(p.var.type) or isinstance(p.var.type, ir.RayQuery)
               for p in f.params) \
        or has_resource(f.return_type) or struct_with_resource(f.return_type)


def _is_local_resource(v: ir.Variable) -> bool:
    return v.storage is ir.Storage.FUNCTION and has_resource(v.type)


def run(module: ir.Module, options: CompileOptions) -> None:
    entries = {id(e.source_function) for e in ir.entry_points(module)}
    targets = {id(f) for f in module.functions if _takes_resources(f) and id(f) not in entries}   # GS streams stay
    needs = targets or any(_is_local_resource(v) or struct_with_resource(v.type) for f in module.functions
                           for v in f.locals)
    if not needs:
        return
    counter = [0]
    for f in module.functions:
        if targets:
            f.body = inline_calls(f, f.body, targets, counter)
        if id(f) in targets:        # an inlined function goes: its copies are split and resolved where inlined
            continue                # (resolving it here emptied the body its later callers then inlined)
        _split_structs(f)
        if any(_is_local_resource(v) for v in f.locals):
            _Resolver(f).run()
    module.functions = [f for f in module.functions if id(f) not in targets]


def _split_structs(f: ir.Function) -> None:
    """Each local of a struct type with a resource member becomes one local per member (recursively), so the
    resource members are resource locals the resolver follows: `m.tex` is the local `m.tex`, `S b = a` one copy
    per member.  A use of such a struct as a whole value that is not a copy is an error."""
    while _split_round(f):
        pass


def _split_round(f: ir.Function) -> bool:
    """Split the struct locals with resource members one level (their members may be such structs again)."""
    split = {id(v): v for v in f.locals if struct_with_resource(v.type)}
    if not split:
        return False
    parts: dict[int, list[ir.Variable]] = {}
    for v in split.values():
        st = v.type
        assert isinstance(st, ir.Struct)      # struct_with_resource
        parts[id(v)] = [ir.Variable(f"{v.name}.{fd.name}", fd.type, ir.Storage.FUNCTION, v.loc, coherent=fd.coherent)
                        for fd in st.fields]
    f.locals = [x for v in f.locals for x in (parts[id(v)] if id(v) in split else [v])]

    def member(place: ir.Expr, i: int) -> ir.Expr | None:
        """Member i of a whole struct place held by a split local (as a place), else None."""
        if isinstance(place, ir.VarRef) and id(place.var) in parts:
            return ir.VarRef(parts[id(place.var)][i], place.loc)
        return None

    def change(e: ir.Expr) -> ir.Expr:
        if isinstance(e, ir.FieldRef) and (m := member(e.base, e.index)) is not None:
            return m
        if isinstance(e, ir.Load) and isinstance(e.place, ir.VarRef) and id(e.place.var) in parts:
            raise error(f"'{e.place.var.name}' holds a resource: a struct with resource members can only be "
                        f"copied whole or used member by member", e.place.loc or f.loc)
        return e

    def field_value(value: ir.Expr, i: int, t: ir.Type) -> ir.Expr:
        if isinstance(value, ir.Construct):
            return value.parts[i]
        if isinstance(value, ir.Load):
            return ir.Load(ir.FieldRef(value.place, i, t), t)
        return ir.Extract(value, i, t)

    def stores(s: ir.Store) -> list[ir.Stmt] | None:
        """A whole-struct store into (a member of) a split local: one store per member, nested structs too."""
        st = s.place.type
        if not struct_with_resource(st):
            return None
        assert isinstance(st, ir.Struct)      # struct_with_resource
        out: list[ir.Stmt] = []
        for i, fd in enumerate(st.fields):
            one = ir.Store(ir.FieldRef(s.place, i, fd.type), field_value(s.value, i, fd.type), s.loc)
            made = stores(one)
            if made is None:
                one.place, one.value = ir.rewrite_expr(one.place, change), ir.rewrite_expr(one.value, change)
                made = [one]
            out += made
        return out

    ir.rewrite_body(f.body, change, stores)
    return True


def _root(p: ir.Expr) -> ir.Expr:
    while isinstance(p, (ir.IndexRef, ir.FieldRef, ir.SwizzleRef)):
        p = p.base
    return p


def _make_coherent(place: ir.Expr) -> None:
    """An access through a `globallycoherent` local or parameter: the global resource it reaches becomes
    globally coherent as a whole (its binding: DXIL's UAV record and annotateHandle bit, SPIR-V's Coherent
    on its variable).  DXC marks only that access's handle at SM 6.6 (an annotateHandle of its own) and
    drops the attribute before; a whole coherent resource is never less coherent than either, and
    coherence only orders memory, it never changes a value."""
    root = _root(place)
    if isinstance(root, ir.VarRef) and root.var.binding is not None and root.var.binding.register_class == "u":
        root.var.binding.globally_coherent = True


def _place_name(p: ir.Expr) -> str:
    if isinstance(p, ir.VarRef):
        return p.var.name
    if isinstance(p, ir.IndexRef):
        i = str(p.index.value) if isinstance(p.index, ir.Const) else "..."
        return f"{_place_name(p.base)}[{i}]"
    return "resource"


def _key(v) -> str:
    if v is None:
        return "uninit"
    if v[0] == "ref":
        from ..ir.printer import expr_str  # only for local resources (not imported by a cold compile without them)

        return "ref:" + expr_str(v[1])
    if v[0] == "elems":
        return "[" + ",".join(_key(x) for x in v[1]) + "]"
    return "conflict"


class _Resolver:
    def __init__(self, f: ir.Function) -> None:
        self.f = f
        self.env: dict[int, tuple] = {}   # local resource -> ("ref", place) | ("elems", [...]) | CONFLICT
        self.names: dict[int, str] = {}
        self.loc: SourceLoc | None = f.loc
        for p in f.params:          # the entry's own resource parameters (GS streams) hold themselves
            if has_resource(p.var.type):
                self.env[id(p.var)] = ("ref", ir.VarRef(p.var))

    def run(self) -> None:
        self.f.body = self.block(self.f.body)
        self.f.locals = [v for v in self.f.locals if not _is_local_resource(v)]

    # ---------------------------------------------------------------- values
    def value_of_place(self, p: ir.Expr, name: str):
        if isinstance(p, ir.VarRef):
            if p.var.storage is ir.Storage.UNIFORM:
                return ("ref", p)
            if _is_local_resource(p.var):
                return self.env.get(id(p.var))
            raise error(f"'{p.var.name}' does not hold a resource", self.loc)
        if isinstance(p, ir.IndexRef):
            base = self.value_of_place(p.base, name)
            idx = self.expr(p.index)
            return self.index(base, idx, p.type, name)
        raise error("resources inside structs are not supported yet", self.loc)

    def index(self, base, idx: ir.Expr, t: ir.Type, name: str):
        if base is None or base is CONFLICT:
            return base
        if base[0] == "ref":
            return ("ref", ir.IndexRef(base[1], idx, t))
        elems = base[1]
        if isinstance(idx, ir.Const):
            if not 0 <= idx.value < len(elems):
                raise error(f"index {idx.value} is out of bounds for local resource array '{name}'", self.loc)
            return elems[idx.value]
        # a dynamic index is fine when the elements are consecutive elements of one global array
        refs = [e[1] for e in elems if e is not None and e[0] == "ref"]
        if len(refs) == len(elems) and all(isinstance(r, ir.IndexRef) and isinstance(r.index, ir.Const) for r in refs):
            from ..ir.printer import expr_str

            bases = {expr_str(r.base) for r in refs}
            first = refs[0].index.value
            if len(bases) == 1 and all(r.index.value == first + i for i, r in enumerate(refs)):
                shifted = idx if first == 0 else ir.Binary("add", idx, ir.Const(idx.type, first), idx.type)
                return ("ref", ir.IndexRef(refs[0].base, shifted, t))
        raise error(f"local resource array '{name}' is indexed dynamically but does not hold consecutive elements "
                    f"of one global array", self.loc)

    def value(self, e: ir.Expr, name: str):
        if isinstance(e, ir.Load):
            return self.value_of_place(e.place, name)
        if isinstance(e, ir.Construct) and isinstance(e.type, ir.Array):
            return ("elems", [self.value(p, name) for p in e.parts])
        raise error("unsupported resource expression", self.loc)

    def need_ref(self, v, place: ir.Expr) -> ir.Expr:
        name = _place_name(place)
        root = _root(place)
        if isinstance(root, ir.VarRef) and root.loc is not None:
            self.loc = root.loc      # point at the use, not at the statement
        if v is None:
            raise error(f"local resource '{name}' is used before it is assigned", self.loc)
        if v is CONFLICT:
            raise error(f"the resource held by '{name}' depends on control flow; assign local resources "
                        f"unconditionally", self.loc)
        if v[0] == "elems":
            missing = [i for i, x in enumerate(v[1]) if x is None or x is CONFLICT]
            if missing:
                raise error(f"local resource '{name}[{missing[0]}]' is used before it is assigned", self.loc)
            raise error(f"local resource array '{name}' cannot be used as a whole here", self.loc)
        return v[1]

    # ---------------------------------------------------------------- expressions
    def expr(self, e: ir.Expr) -> ir.Expr:
        root = _root(e)
        if isinstance(e, (ir.VarRef, ir.IndexRef)) and has_resource(e.type) and isinstance(root, ir.VarRef) \
                and _is_local_resource(root.var):
            if root.loc is not None:
                self.loc = root.loc      # errors while indexing point at the use, not at the statement
            place = self.need_ref(self.value_of_place(e, root.var.name), e)
            if root.var.coherent:
                _make_coherent(place)
            return place
        if isinstance(e, ir.VarRef):
            return e
        cls = type(e)
        changed = False
        values: list = []
        for f in cls._fields:
            v = getattr(e, f)
            if isinstance(v, ir.Expr):
                nv = self.expr(v)
                changed |= nv is not v
                v = nv
            elif isinstance(v, list) and v and isinstance(v[0], ir.Expr):
                nl = [self.expr(x) for x in v]
                changed |= any(a is not b for a, b in zip(nl, v))
                v = nl
            values.append(v)
        if not changed:
            return e
        c = object.__new__(cls)
        for f, v in zip(cls._fields, values):
            object.__setattr__(c, f, v)
        return c

    # ---------------------------------------------------------------- statements
    def assign(self, place: ir.Expr, value: ir.Expr) -> None:
        root = _root(place)
        assert isinstance(root, ir.VarRef)      # a local resource (see stmts)
        var = root.var
        new = self.value(value, var.name)
        if place is root:
            self.env[id(var)] = new
            return
        if not (isinstance(place, ir.IndexRef) and place.base is root):
            raise error("only whole local resource arrays and their elements can be assigned", self.loc)
        idx = self.expr(place.index)
        if not isinstance(idx, ir.Const):
            raise error(f"an element of local resource array '{var.name}' is assigned with a dynamic index",
                        self.loc)
        cur = self.env.get(id(var))
        array = var.type
        assert isinstance(array, ir.Array) and array.size is not None    # a local array has a size
        size = array.size
        if cur is None or cur is CONFLICT:
            cur = ("elems", [None] * size)
        elif cur[0] == "ref":     # a copy of a global (sub-)array: expand into its elements
            cur = ("elems", [("ref", ir.IndexRef(cur[1], ir.Const(ir.UINT, i), array.elem)) for i in range(size)])
        elems = list(cur[1])
        elems[idx.value] = new
        self.env[id(var)] = ("elems", elems)

    def block(self, stmts: list[ir.Stmt]) -> list[ir.Stmt]:
        out: list[ir.Stmt] = []
        for s in stmts:
            if isinstance(s, (ir.Store, ir.Eval)) and s.loc is not None:
                self.loc = s.loc
            if isinstance(s, ir.Store):
                root = _root(s.place)
                if has_resource(s.place.type) and isinstance(root, ir.VarRef) and _is_local_resource(root.var):
                    self.assign(s.place, s.value)
                    continue
                out.append(ir.Store(self.expr(s.place), self.expr(s.value), s.loc))
            elif isinstance(s, ir.Eval):
                out.append(ir.Eval(self.expr(s.expr), s.loc))
            elif isinstance(s, ir.If):
                cond = self.expr(s.cond)
                before = dict(self.env)
                then = self.block(s.then)
                after_then = self.env
                self.env = dict(before)
                else_ = self.block(s.else_)
                self.env = self.merge([after_then, self.env])
                out.append(ir.If(cond, then, else_, s.hint, s.loc))
            elif isinstance(s, ir.Loop):
                before = dict(self.env)
                body = self.block(s.body)
                cont = self.block(s.continuing)
                brk = self.expr(s.break_if) if s.break_if is not None else None
                self.env = self.merge([before, self.env])
                out.append(ir.Loop(body, cont, brk, s.hint, s.unroll_count, s.loc))
            elif isinstance(s, ir.Switch):
                sel = self.expr(s.selector)
                before = dict(self.env)
                envs = [] if any(c.is_default for c in s.cases) else [before]
                cases = []
                for c in s.cases:
                    self.env = dict(before)
                    cases.append(ir.SwitchCase(c.values, c.is_default, self.block(c.body)))
                    envs.append(self.env)
                self.env = self.merge(envs)
                out.append(ir.Switch(sel, cases, s.loc))
            elif isinstance(s, ir.Return):
                out.append(ir.Return(self.expr(s.value) if s.value is not None else None, s.loc))
            else:
                out.append(s)
        return out

    @staticmethod
    def merge(envs: list[dict]) -> dict:
        merged: dict = {}
        keys = set().union(*envs) if envs else set()
        for k in keys:
            vals = [e.get(k) for e in envs]
            merged[k] = vals[0] if len({_key(v) for v in vals}) == 1 else CONFLICT
        return merged
