"""Global structs with resource members: each resource member becomes its own global resource.

DXC's rules (as documented for its DXIL output): `S g : register(u5) : register(t3);` makes one global
resource per resource member, named `g.member` (`g.inner.member` when nested); the resources of one
register class take consecutive registers from the instance's register of that class, in declaration
order (an array member takes one register per element); without a register they are bound implicitly;
a register space on the instance is an error.  The remaining (data) members stay a member `g` of
`$Globals` (of the cbuffer declaring g) whose struct type has the resource members removed.  `g.t` is
then the global `g.t`, `g.v` the `$Globals` field, and `g` as a whole value a constructor of its members
(locals and parameters of the struct type are split member by member by passes/resource_locals).  An
array `S d[N]` is N such structs (`d.k.t`, registers following element k-1's; `S d[M][N]` M * N in row-major
order, `d.j.k.t`), indexed with constants.
"""

from __future__ import annotations

from ... import ir
from ...diagnostics import CompileError, SourceLoc, error
from ...ir.resource_kinds import KINDS
from ...ir.streams import STREAM_KINDS
from ...records import Record
from .. import ast
from .base import SemaBase

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


class StructResources(Record):
    """The symbol of a global struct with resource members (or of a nested struct member or an element of one).
    A data member is a path of steps from the `$Globals` (cbuffer) field data_index: ('f', field) / ('i', k)."""

    type: ir.Struct
    # member name -> the global resource, the path of a data member, or a nested struct
    members: dict
    data: ir.Variable | None = None     # `$Globals` (or the cbuffer), whose field data_index holds the data members
    data_index: int = 0
    static: bool = False                # a `static` struct (its data a private variable, its resources aliases)


class StructResourcesArray(Record):
    """The symbol of a global array of structs with resource members: one StructResources per element, or
    per row a StructResourcesArray of a multi-dimensional array (indexed with constants only, as DXC requires)."""

    type: ir.Array
    elems: list


def struct_has_resource(t: ir.Type) -> bool:
    while isinstance(t, ir.Array):
        t = t.elem
    return isinstance(t, ir.Resource) or isinstance(t, ir.Struct) and any(struct_has_resource(f.type)
                                                                        for f in t.fields)


def data_type(st: ir.Struct) -> ir.Struct | None:
    """The struct without its resource members (nested structs likewise); None when nothing is left."""
    fields = []
    for f in st.fields:
        if isinstance(f.type, ir.Struct) and struct_has_resource(f.type):
            inner = data_type(f.type)
            if inner is not None:
                fields.append(ir.StructField(f.name, inner, f.semantic, f.interpolation, f.row_major))
        elif not struct_has_resource(f.type):
            fields.append(f)
    return ir.Struct(f"{st.name}.data", tuple(fields)) if fields else None


class StructResourceLowering(SemaBase):
    # set by the two declarations below: until then no scope holds a StructResources symbol, and
    # struct_part (asked for every name, member and index expression) has nothing to look up
    has_struct_resources = False

    def struct_resource_global(self, d: ast.VarDecl, t: ir.Type,
                               add_data: Callable[[ir.Type], int] | None = None) -> StructResources | StructResourcesArray:
        """Declare `S g` (S holding resources): its resources as globals, its data as a `$Globals` member (or,
        for a cbuffer member, the field add_data makes: its index; the caller sets the cbuffer with set_data)."""
        self.has_struct_resources = True
        regs: dict[str, ast.Register] = {}
        for r in d.registers or ([d.register] if d.register is not None else []):
            if r.space is not None:
                raise error("register space cannot be specified on global constants", r.loc)
            if r.reg_class in regs:
                raise error(f"'{d.name}' has two registers of class '{r.reg_class}'", r.loc)
            regs[r.reg_class] = r
        if d.packoffset is not None or any(a.name.startswith("vk::") for a in d.attributes):
            what = "packoffset" if d.packoffset is not None else f"[[{next(a.name for a in d.attributes)}]]"
            raise error(f"{what} is not supported on '{d.name}', a struct with resource members", d.loc)
        used = {cls: 0 for cls in regs}
        st: ir.Type = t
        sizes: list[int] = []
        while isinstance(st, ir.Array):
            if st.size is None:
                raise error(f"'{d.name}' has type '{t}': an array of structs with resource members needs a size",
                            d.loc)
            sizes.append(st.size)
            st = st.elem
        if not isinstance(st, ir.Struct):
            raise error(f"'{d.name}' has type '{t}': only structs with resource members and sized arrays of them "
                        f"are supported", d.loc)
        data: ir.Type | None = data_type(st)
        for size in reversed(sizes):        # S d[2][3]: the data members as a float.data[2][3]
            data = ir.Array(data, size) if data is not None else None
        var, index = None, 0
        if data is not None and add_data is not None:
            index = add_data(data)
        elif data is not None:
            index = self.loose_uniform(d, data)
            del self.scope.names[d.name]        # `g` is declared below as this symbol
            assert self.globals_block is not None
            var = self.globals_block[0]
        sym: StructResources | StructResourcesArray
        if isinstance(t, ir.Array):
            sym = self._elements(t, st, d, d.name, (), var, index, regs, used)
        else:
            sym = StructResources(st, {}, var, index)
            self._members(sym, st, d, d.name, (), regs, used)
        self.declare(d.name, sym, d.loc)
        for cls, r in regs.items():
            if not used[cls]:
                raise error(f"'{d.name}' has no resource member of register class '{cls}'", r.loc)
        return sym

    def static_struct_resources(self, d: ast.VarDecl, t: ir.Type) -> None:
        """`static S s = { Out, 2.0 };` (S holding resources): each resource member names the global resource
        its initializer gives (as `static RWBuffer<T> A = B;` does), fixed for the whole program; the data
        members are a private variable `s` of the struct without its resources (read and written as usual)."""
        self.has_struct_resources = True
        if not isinstance(t, ir.Struct):
            raise error(f"'{d.name}' has type '{t}': a static array of structs with resource members is not "
                        f"supported (without 'static' its resources are globals)", d.loc)
        if not isinstance(d.init, ast.InitList):
            raise error(f"static '{d.name}' has resource members: it needs an initializer list naming a global "
                        f"resource for each of them (they cannot be assigned later)",
                        d.init.loc if d.init is not None else d.loc)
        items = _flat_items(d.init)
        is_resource = [struct_has_resource(self.peek_type(x) or ir.VOID) for x in items]
        resources = iter([x for x, r in zip(items, is_resource) if r])
        sym = StructResources(t, {}, static=True)
        self._static_members(sym, t, d, (), resources)
        extra = next(resources, None)
        if extra is not None:
            raise error(f"too many resources in the initializer of static '{d.name}'", extra.loc)
        data = data_type(t)
        data_items = [x for x, r in zip(items, is_resource) if not r]
        if data is None:
            if data_items:
                raise error(f"too many elements in the initializer of static '{d.name}'", data_items[0].loc)
        else:
            deferred: list[ir.Stmt] = []
            with self.function_context():
                self.fn, self.fn_info, self.out = self.static_init, self.static_init_info, deferred
                try:
                    init = self.init_value(ast.InitList(loc=d.init.loc, items=data_items), data, d.loc)
                except CompileError as e:     # a count error names the data part, an internal struct: name 's'
                    m = e.diagnostics[0].message if e.diagnostics else ""
                    if f"'{data.name}'" not in m or not m.startswith(("too many", "too few")):
                        raise
                    raise error(f"{' '.join(m.split()[:2])} elements in the initializer of static '{d.name}'",
                                e.diagnostics[0].loc) from None
            runtime = bool(deferred) or any(isinstance(x, ir.SpecConst) for x in ir.walk_expr(init))
            var = ir.Variable(d.name, data, ir.Storage.PRIVATE, d.loc, const="const" in d.qualifiers,
                              init=None if runtime else init)
            if runtime:     # computed when the shader starts, as other static initializers
                self.static_init.body.extend(deferred)
                self.static_init.body.append(ir.Store(ir.VarRef(var), init, d.loc))
            self.globals.append(var)
            set_data(sym, var)
        self.declare(d.name, sym, d.loc)

    def _static_members(self, sym: StructResources, st: ir.Struct, d: ast.VarDecl, path: tuple, resources) -> None:
        data_index = 0
        for f in st.fields:
            if isinstance(f.type, ir.Struct) and struct_has_resource(f.type):
                inner = StructResources(f.type, {}, static=True)
                self._static_members(inner, f.type, d, (*path, ("f", data_index)), resources)
                sym.members[f.name] = inner
                data_index += data_type(f.type) is not None
            elif struct_has_resource(f.type):
                e = next(resources, None)
                if e is None:
                    raise error(f"the initializer of static '{d.name}' names no global resource for member "
                                f"'{f.name}' ('{f.type}')", d.init.loc if d.init is not None else d.loc)
                part = self.struct_part(e)
                sym_e = self.scope.lookup(e.name) if isinstance(e, ast.Name) else None
                var = part if isinstance(part, ir.Variable) else getattr(sym_e, "var", None)
                if not isinstance(var, ir.Variable) or var.binding is None or var.type != f.type:
                    raise error(f"member '{f.name}' of static '{d.name}' must be initialized with a global resource "
                                f"of type '{f.type}'", e.loc)
                sym.members[f.name] = var
            else:
                sym.members[f.name] = (*path, ("f", data_index))
                data_index += 1

    def _elements(self, t: ir.Array, st: ir.Struct, d: ast.VarDecl, name: str, path: tuple, var: ir.Variable | None,
                  index: int, regs: dict[str, ast.Register], used: dict[str, int]) -> StructResourcesArray:
        """Element k of an array: resources `d.k.member` (`d.j.k.member` for `d[j][k]`), in row-major order
        on consecutive registers after the element before's."""
        assert t.size is not None       # checked by the caller
        elems: list[StructResources | StructResourcesArray] = []
        for k in range(t.size):
            if isinstance(t.elem, ir.Array):
                elems.append(self._elements(t.elem, st, d, f"{name}.{k}", (*path, ("i", k)), var, index, regs, used))
            else:
                el = StructResources(st, {}, var, index)
                self._members(el, st, d, f"{name}.{k}", (*path, ("i", k)), regs, used)
                elems.append(el)
        return StructResourcesArray(t, elems)

    def _members(self, sym: StructResources, st: ir.Struct, d: ast.VarDecl, name: str, path: tuple,
                 regs: dict[str, ast.Register], used: dict[str, int]) -> None:
        data_index = 0
        locs = self.field_locs.get(st, ())
        for i, f in enumerate(st.fields):
            full = f"{name}.{f.name}"
            if isinstance(f.type, ir.Struct) and struct_has_resource(f.type):
                inner = StructResources(f.type, {}, sym.data, sym.data_index)
                self._members(inner, f.type, d, full, (*path, ("f", data_index)), regs, used)
                sym.members[f.name] = inner
                data_index += data_type(f.type) is not None
            elif struct_has_resource(f.type):
                member_loc = locs[i] if i < len(locs) and locs[i] is not None else d.loc
                sym.members[f.name] = self._member_resource(d, full, f.type, regs, used, member_loc, f.coherent)
            else:
                sym.members[f.name] = (*path, ("f", data_index))
                data_index += 1

    def _member_resource(self, d: ast.VarDecl, name: str, t: ir.Type, regs: dict[str, ast.Register],
                         used: dict[str, int], loc: SourceLoc | None, coherent: bool = False) -> ir.Variable:
        """`loc`: the member's declaration, where an error about its type points."""
        count, base = 1, t
        while isinstance(base, ir.Array):
            if base.size is None or not isinstance(base.elem, ir.Resource):
                raise error(f"member '{name}' of '{d.name}': only one-dimensional sized arrays of resources are "
                            f"supported in a struct", loc)
            count, base = count * base.size, base.elem
        if not isinstance(base, ir.Resource):      # an array of structs with resources
            raise error(f"member '{name}' of '{d.name}' is an array of structs with resource members: not supported",
                        loc)
        if KINDS[base.kind].element == "block" or base.kind in STREAM_KINDS:
            raise error(f"member '{name}' of '{d.name}' has type '{base}', which cannot be a struct member "
                        f"resource here", loc)
        cls = base.register_class
        binding = ir.Binding(cls, None, 0, count, globally_coherent=coherent)      # DXC: the member's type's
        r = regs.get(cls)
        if r is not None:
            binding.register = r.number + used[cls]
            used[cls] += count
        var = ir.Variable(name, t, ir.Storage.UNIFORM, d.loc, binding=binding)
        self.globals.append(var)
        return var

    # ------------------------------------------------------------ uses
    def struct_part(self, e: ast.Expr):
        """What `g`, `g.m`, `g.m.n` or `d[k].m` names when g (d) is a StructResources(Array) symbol: the
        resource global, a data member's (owner, path), a StructResources(Array); None for other expressions."""
        if not self.has_struct_resources:
            return None
        if isinstance(e, ast.Name):
            sym = self.scope.lookup(e.name)
            return sym if isinstance(sym, (StructResources, StructResourcesArray)) else None
        if isinstance(e, ast.Member):
            base = self.struct_part(e.base)
            if not isinstance(base, StructResources):
                return None
            if e.name not in base.members:
                raise error(f"no member named '{e.name}' in '{base.type}'", e.loc)
            m = base.members[e.name]
            return (base, m) if isinstance(m, tuple) else m
        if isinstance(e, ast.Index):
            base = self.struct_part(e.base)
            if not isinstance(base, StructResourcesArray):
                return None
            try:
                k = self.const_int(e.index)
            except CompileError:
                raise error("an array of structs with resource members can only be indexed with a constant "
                            "(as in DXC)", e.index.loc) from None
            if not 0 <= k < len(base.elems):
                raise error(f"array index {k} is out of bounds for '{base.type}'", e.index.loc)
            return base.elems[k]
        return None

    def struct_part_place(self, part, e: ast.Expr, for_write: bool) -> ir.Expr:
        if for_write and isinstance(part, ir.Variable) and _static_member(e, self):
            raise error("cannot assign to a resource member of a static struct: it names the global resource of "
                        "the initializer for the whole program", e.loc)
        if for_write and not (isinstance(part, tuple) and part[0].static):
            raise error("cannot assign to a member of a global struct with resource members", e.loc)
        if for_write and part[0].data.const:
            raise error(f"cannot assign to const-qualified variable '{part[0].data.name}'", e.loc)
        if isinstance(part, ir.Variable):
            self.note_use(part)
            return ir.VarRef(part, e.loc)
        owner, path = part
        place = self._data_place(owner, e)
        for kind, i in path:
            t = place.type
            if kind == "i":
                assert isinstance(t, ir.Array)
                place = ir.IndexRef(place, ir.Const(ir.UINT, i), t.elem)
            else:
                assert isinstance(t, ir.Struct)
                place = ir.FieldRef(place, i, t.fields[i].type)
        return place

    def _data_place(self, owner: StructResources, e: ast.Expr) -> ir.Expr:
        var, index = owner.data, owner.data_index
        assert var is not None
        if var.storage is ir.Storage.PRIVATE:       # a static struct's data members: the variable itself
            return ir.VarRef(var, e.loc)
        block = self.globals_block      # $Globals may still be growing: its fields are in the list
        if block is not None and var is block[0]:
            fields = block[1]
        else:
            assert isinstance(var.type, ir.Struct)     # a cbuffer
            fields = list(var.type.fields)
        return ir.FieldRef(ir.VarRef(var, e.loc), index, fields[index].type)

    def struct_value(self, part: StructResources | StructResourcesArray, e: ast.Expr) -> ir.Expr:
        """`g` (or a nested struct member or an element of it) as a value: a constructor of its members."""
        if isinstance(part, StructResourcesArray):
            return ir.Construct(part.type, [self.struct_value(el, e) for el in part.elems])
        values = []
        for f in part.type.fields:
            m = part.members[f.name]
            if isinstance(m, StructResources):
                values.append(self.struct_value(m, e))
            else:
                values.append(self.load(self.struct_part_place(m if isinstance(m, ir.Variable) else (part, m), e,
                                                                False)))
        return ir.Construct(part.type, values)

    def is_place_expr(self, e: ast.Expr) -> bool:
        part = self.struct_part(e)
        if part is not None:
            return not isinstance(part, (StructResources, StructResourcesArray))
        return super().is_place_expr(e)

    def place(self, e: ast.Expr, for_write: bool) -> ir.Expr:
        part = self.struct_part(e)
        if part is None:
            return super().place(e, for_write)
        if isinstance(part, (StructResources, StructResourcesArray)):
            if for_write:
                raise error("cannot assign to a global struct with resource members", e.loc)
            raise error("a global struct with resource members can only be used whole as a value", e.loc)
        return self.struct_part_place(part, e, for_write)

    def peek_type(self, e: ast.Expr) -> ir.Type | None:
        part = self.struct_part(e)
        if isinstance(part, ir.Variable):
            return part.type
        return super().peek_type(e) if part is None else None

    def rv_Name(self, e: ast.Name) -> ir.Expr:
        part = self.struct_part(e)
        if part is not None:
            return self.struct_value(part, e)
        return super().rv_Name(e)

    def rv_Member(self, e: ast.Member) -> ir.Expr:
        part = self.struct_part(e)
        if isinstance(part, (StructResources, StructResourcesArray)):
            return self.struct_value(part, e)
        if part is not None:
            return self.load(self.struct_part_place(part, e, False))
        return super().rv_Member(e)

    def rv_Index(self, e: ast.Index) -> ir.Expr:
        part = self.struct_part(e)
        if isinstance(part, (StructResources, StructResourcesArray)):
            return self.struct_value(part, e)
        return super().rv_Index(e)


def _flat_items(init: ast.InitList) -> list[ast.Expr]:
    """The leaves of a (nested) initializer list, in order."""
    out: list[ast.Expr] = []
    for x in init.items:
        out.extend(_flat_items(x) if isinstance(x, ast.InitList) else [x])
    return out


def _static_member(e: ast.Expr, sema) -> bool:
    """Whether a member expression `s.m` (`s.inner.m`) starts at a static struct with resource members."""
    while isinstance(e, (ast.Member, ast.Index)):
        e = e.base
    sym = sema.scope.lookup(e.name) if isinstance(e, ast.Name) else None
    return isinstance(sym, StructResources) and sym.static


def set_data(sym: StructResources | StructResourcesArray, var: ir.Variable) -> None:
    """A cbuffer member's symbol (its nested ones, its elements) gets the cbuffer holding its data members."""
    if isinstance(sym, StructResourcesArray):
        for el in sym.elems:
            set_data(el, var)
        return
    sym.data = var
    for m in sym.members.values():
        if isinstance(m, StructResources):
            set_data(m, var)
