"""Symbols and lexical scopes."""

from __future__ import annotations

from ... import ir
from ...diagnostics import ErrorReported, SourceLoc
from ...records import Record
from .. import ast


class VarSymbol(Record):
    var: ir.Variable
    const_value: object = None       # folded value of a `static const` scalar, if known
    is_param: bool = False


class FuncInfo(Record):
    decl: ast.FuncDecl
    param_types: list[ir.Type]
    param_dirs: list[str]
    return_type: ir.Type
    ir_func: ir.Function
    defined: bool = False
    method_of: ir.Struct | None = None
    calls: list[tuple[FuncInfo, SourceLoc]] = Record.factory(list)
    instances: dict = Record.factory(dict)
    stage_errors: list = Record.factory(list)   # reported only when reachable from the entry
    # a library's stage-limited intrinsics: (name, allowed stages, loc), checked against each shader reaching it
    stage_uses: list = Record.factory(list)    # specialisations for unsized array parameters
    derivatives: SourceLoc | None = None       # the first derivative outside a pixel shader (checks [numthreads])
    # `in` parameters used as texture offsets: each call compiles an instance with them bound to its constant arguments
    const_params: set[str] = Record.factory(set)
    # the parameters' typeresolve.precision_spelling: f(float) and f(half) are two overloads (None, a typedef's or
    # struct's, matches any: a prototype written with a typedef still declares its definition)
    param_spellings: tuple[str | None, ...] = ()

    def signature(self) -> str:
        spelled = self.param_spellings or (None,) * len(self.param_types)
        ps = ", ".join(f"{'' if d == 'in' else d + ' '}"
                       f"{str(t).replace(str(ir.scalar_of(t)), s, 1) if s and ir.scalar_of(t) else t}"
                       for t, d, s in zip(self.param_types, self.param_dirs, spelled))
        return f"{self.return_type} {self.decl.name}({ps})"


class UnrollOffset(Record):
    """A texture offset built from constants and local variables (sema/resources._counter_offset), let
    through inside an `[unroll]` loop: each enclosing loop lowered resolves its counter (stmts.loop)."""
    node: ir.Expr                       # the offset operand in the IR (found by identity)
    expr: ir.Expr                       # it, with the locals resolved so far replaced by their values
    unresolved: dict[int, ir.Variable]
    counters: dict[int, tuple[ir.Variable, list[int]]]     # resolved: each counter's iteration values
    loc: SourceLoc
    is_offset: bool = True              # False: a helper's argument, the helper's offset made of it (no range)


class LocalOffset(Record):
    """A texture offset outside [unroll] loops made of local variables (and constants): resolved when the
    function's body is complete, each variable by the one store the body makes to it, before the read."""
    node: ir.Expr                       # the offset operand in the IR (found by identity)
    expr: ir.Expr                       # it, with its constant parts folded
    loc: SourceLoc
    in_loop: bool                       # read in a loop (the error then hints at [unroll])


class FuncSymbol(Record):
    overloads: list[FuncInfo]


class EnumConstSymbol(Record):
    value: int
    type: ir.Type


class SpecConstSymbol(Record):
    """A `[[vk::constant_id(N)]]` constant: reads give `expr` (an ir.SpecConst)."""

    expr: ir.Expr


class TypeSymbol(Record):
    type: ir.Type


class SubobjectSymbol(Record):
    """A state-object subobject (sema/subobjects.py): a name, not a value code can read."""

    subobject: ir.Subobject


class StringSymbol(Record):
    """A global `string` (DXC accepts them): only printf reads one, as its format."""

    loc: SourceLoc
    value: str | None = None        # the text it is initialized with (its literal's, escapes as written)


class ErrorSymbol(Record):
    """A name whose declaration had an error (already reported): looking it up abandons the use silently."""


Symbol = (VarSymbol | FuncSymbol | EnumConstSymbol | SpecConstSymbol | TypeSymbol | SubobjectSymbol | StringSymbol
          | ErrorSymbol)


class Scope:
    def __init__(self, parent: Scope | None = None) -> None:
        self.parent = parent
        self.names: dict[str, Symbol] = {}
        # set on the global scope while code inside `namespace NS` (or struct S) is lowered: NS::name is
        # found for name, innermost namespace first, before a global name
        self.prefixes: tuple[str, ...] = ()
        # `using namespace N;` directives of this scope ('N::'): N's names (declared globally as N::name) are
        # found after every name declared in or around the scope
        self.used: list[str] = []
        # struct name -> its base struct's name (the analyzer's, shared by every scope): `D::x` and, inside
        # D's methods, `x` find a base's static member B::x (C++ lookup into base classes)
        self.bases: dict[str, str] = parent.bases if parent is not None else {}

    def lookup(self, name: str, bases: bool = True) -> Symbol | None:
        """The symbol `name` means here; bases=False: not a base struct's static member (for declarations)."""
        if name[:1] == ":":          # `::name`: the global one (the predefined scope is the global scope's parent)
            return self.global_lookup(name[2:])
        s: Scope | None = self
        used: tuple[str, ...] = ()
        while s is not None:
            if s.prefixes:
                for prefix in reversed(s.prefixes):
                    sym = s.names.get(prefix + name)
                    if sym is None and bases and prefix[:-2] in self.bases:
                        sym = self.in_bases(prefix[:-2], name)
                    if sym is not None:
                        return sym
            sym = s.names.get(name)
            if sym is not None:
                if sym.__class__ is ErrorSymbol:     # (exact: cheaper than a failed isinstance)
                    raise ErrorReported()
                if (used or s.used) and isinstance(sym, FuncSymbol) and s.parent is not None \
                        and s.parent.parent is None:
                    return self.with_used_overloads(sym, used + tuple(reversed(s.used)), name)
                return sym
            if s.used:
                used += tuple(reversed(s.used))
            s = s.parent
        for i, prefix in enumerate(used):         # (namespace members are declared in the global scope)
            s = self
            while s is not None:
                sym = s.names.get(prefix + name)
                if sym is not None:
                    if isinstance(sym, ErrorSymbol):
                        raise ErrorReported()
                    if isinstance(sym, FuncSymbol):     # C++: the later namespaces' overload sets join
                        return self.with_used_overloads(sym, used[i + 1:], name)
                    return sym
                s = s.parent
        if bases and self.bases and "::" in name:
            owner, _, member = name.rpartition("::")
            return self.in_bases(owner, member)
        return None

    def in_bases(self, owner: str, member: str) -> Symbol | None:
        """`owner::member` declared by a base struct of `owner` (the nearest): a base's static member
        function or data member, which a derived struct's name and methods reach."""
        base = self.bases.get(owner)
        while base is not None:
            sym = self.global_lookup(f"{base}::{member}")
            if sym is not None:
                return sym
            base = self.bases.get(base)
        return None

    def with_used_overloads(self, sym: FuncSymbol, used: tuple[str, ...], name: str) -> FuncSymbol:
        """A global function's overloads joined by those of the used namespaces' functions of its name: the
        directive's members count as declared in the global namespace (C++ [namespace.udir])."""
        joined = list(sym.overloads)
        for prefix in used:
            other = self.global_lookup(prefix + name)
            if isinstance(other, FuncSymbol) and other is not sym:
                joined += [f for f in other.overloads if all(f is not j for j in joined)]
        return sym if len(joined) == len(sym.overloads) else FuncSymbol(joined)

    def ambiguous(self, name: str) -> list[str]:
        """The namespaces (two or more) whose different `name`s a lookup reaches only through using-directives
        (clang's ambiguous reference; overloads of several namespaces join, so functions are not); [] else."""
        s: Scope | None = self
        used: tuple[str, ...] = ()
        found: dict[int, tuple[str, Symbol]] = {}
        while s is not None:
            if any(s.names.get(p + name) is not None for p in s.prefixes):
                return []
            sym = s.names.get(name)
            if sym is not None:
                if s.parent is None or s.parent.parent is not None:     # a local, or a predefined name
                    return []
                # a global name: a directive's namespace members count as declared in the global namespace
                # (C++ [namespace.udir]), so they meet it there
                found[id(sym)] = ("", sym)
                used += tuple(reversed(s.used))
                break
            used += tuple(reversed(s.used))
            s = s.parent
        for prefix in used:
            s = self
            while s is not None:
                sym = s.names.get(prefix + name)
                if sym is not None:
                    found.setdefault(id(sym), (prefix, sym))
                    break
                s = s.parent
        if len(found) < 2 or all(isinstance(sym, FuncSymbol) for _, sym in found.values()):
            return []
        return [prefix for prefix, _ in found.values()]

    def global_lookup(self, name: str) -> Symbol | None:
        chain = [self]
        parent = self.parent
        while parent is not None:
            chain.append(parent)
            parent = parent.parent
        for s in chain[-2:]:
            sym = s.names.get(name)
            if sym is not None:
                if isinstance(sym, ErrorSymbol):
                    raise ErrorReported()
                return sym
        return None

    def all_names(self) -> list[str]:
        out: list[str] = []
        s: Scope | None = self
        while s is not None:
            out.extend(s.names)
            s = s.parent
        return out
