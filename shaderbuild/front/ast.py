"""Syntax tree produced by the parser.  Every node carries `loc` for diagnostics.

The tree is deliberately close to the source; name resolution, typing and
conversions happen in sema, which lowers it to the IR.
"""

from __future__ import annotations

from ..diagnostics import SourceLoc
from ..records import Record


class Node(Record):
    loc: SourceLoc


# ---------------------------------------------------------------- types, attributes

class TypeRef(Node):
    """A type as written: a name with optional template arguments (types or ints)."""

    name: str
    args: list[TypeRef | Expr] = Record.factory(list)
    pack: str | None = None       # `#pragma pack_matrix` state where the type is written (None: no pragma yet)
    major: str | None = None      # row_major / column_major written on a template argument
    norm: str | None = None       # unorm / snorm written on a template argument (`RWTexture2D<unorm float4>`)
    hint: str | None = None       # a name not declared where written: the type one typo away, for sema's error


# the attribute name marking a struct template declared without a body (`template<typename T> struct Traits;`)
DECLARED_ONLY = "<declared only>"


class Attribute(Node):
    """`[name(args)]` or `[[ns::name(args)]]`; name includes the namespace ('vk::binding')."""

    name: str
    args: list[Expr] = Record.factory(list)


class Register(Node):
    """`: register(u3, space1)`; `packoffset` uses the same node with kind 'packoffset'."""

    reg_class: str
    number: int
    space: int | None = None
    kind: str = "register"
    component: str | None = None
    profile: str | None = None    # `register(ps_5_0, b1)`: the profile prefix ('ps')
    subcomponent: int = 0         # `register(c1[2])`: parsed and ignored, as DXC (only conflicts compare it)


# --------------------------------------------------------------------- expressions

class Expr(Node):
    pass


class IntLit(Expr):
    value: int
    suffix: str = ""          # 'u', 'l', 'ul', ... lower-cased
    decimal: bool = True      # written in base 10 (HLSL 202x types a hexadecimal or octal one as C does)


class FloatLit(Expr):
    value: float
    suffix: str = ""          # '', 'f', 'h', 'l'
    out_of_range: str = ""    # "over"/"under": written finite/nonzero, infinite/zero as a double (clang warns)


class BoolLit(Expr):
    value: bool


class StringLit(Expr):
    value: str
    tokens: list = Record.factory(list)   # the adjacent literal tokens it was concatenated from


class Name(Expr):
    name: str                 # may be qualified: 'Color::Red'
    template_args: list[TypeRef | Expr] | None = None   # Add<float>(...), Fill<4>(...)


class UnaryOp(Expr):
    op: str                   # '-', '+', '!', '~', '++', '--' (prefix), 'post++', 'post--'
    operand: Expr


class BinaryOp(Expr):
    op: str                   # C spelling: '+', '&&', '<<', '==', ...
    lhs: Expr
    rhs: Expr


class Assign(Expr):
    op: str                   # '=', '+=', ...
    target: Expr
    value: Expr


class Conditional(Expr):
    cond: Expr
    true: Expr
    false: Expr


class Comma(Expr):
    exprs: list[Expr]


class CallExpr(Expr):
    """A call of a function, method (callee is a Member) or constructor (callee is a TypeRef)."""

    callee: Expr | TypeRef
    args: list[Expr]


class Member(Expr):
    base: Expr
    name: str
    template: TypeRef | None = None     # buf.Load<float4>(...)
    template_dims: list[Expr | None] = Record.factory(list)     # buf.Load<S[2]>(...): the array sizes
    template_rest: list[TypeRef | Expr] = Record.factory(list)  # s.mix<float, int>(...): the arguments after the first


class Index(Expr):
    base: Expr
    index: Expr


class Cast(Expr):
    type: TypeRef
    dims: list[Expr | None]
    operand: Expr


class InitList(Expr):
    items: list[Expr]


# ------------------------------------------------------------------- declarations

class VarDecl(Node):
    name: str
    type: TypeRef
    dims: list[Expr | None] = Record.factory(list)   # None = unsized []
    init: Expr | None = None
    qualifiers: frozenset[str] = frozenset()
    semantic: str | None = None
    register: Register | None = None
    # every `register(...)` clause for this stage: a struct holding resources of several classes takes one each
    registers: list[Register] = Record.factory(list)
    packoffset: Register | None = None
    attributes: list[Attribute] = Record.factory(list)
    # a [raypayload] field's `: read(caller, ...) : write(closesthit, ...)` qualifiers: kind -> stages
    payload_access: dict[str, tuple[str, ...]] | None = None
    bitfield: Expr | None = None      # `uint lo : 4;` in a struct (HLSL 2021): the width
    namespaces: tuple[str, ...] = ()  # enclosing namespaces/structs ('NS::', 'NS::S::'): where unqualified names look


class FuncDecl(Node):
    name: str
    return_type: TypeRef
    params: list[VarDecl]
    body: Block | None
    semantic: str | None = None
    attributes: list[Attribute] = Record.factory(list)
    qualifiers: frozenset[str] = frozenset()
    return_dims: list[Expr | None] = Record.factory(list)
    template_params: list[str] | None = None     # template<typename T> ...
    template_values: dict[str, TypeRef] = Record.factory(dict)   # the non-type ones (`uint N`) and their types
    template_defaults: dict[str, TypeRef | Expr] = Record.factory(dict)   # `typename T = float`, `uint N = 4`
    namespaces: tuple[str, ...] = ()  # as VarDecl.namespaces
    owner: str | None = None          # `int S::Get() { ... }`: the struct whose declared method this defines
    spec_args: list[TypeRef | Expr] | None = None   # `template<> T f<float>(...)`: an explicit specialisation


class StructDecl(Node):
    name: str
    fields: list[VarDecl]
    methods: list[FuncDecl] = Record.factory(list)
    base: TypeRef | None = None
    template_params: list[str] | None = None
    attributes: list[Attribute] = Record.factory(list)   # `struct [raypayload] P { ... }`
    template_values: dict[str, TypeRef] = Record.factory(dict)
    template_defaults: dict[str, TypeRef | Expr] = Record.factory(dict)
    namespaces: tuple[str, ...] = ()  # as VarDecl.namespaces
    spec_args: list[TypeRef | Expr] | None = None   # `template<...> struct S<int, U>`: a (partial) specialisation
    statics: list[VarDecl] = Record.factory(list)   # a template's static data members (one set per instance)
    static_methods: list[FuncDecl] = Record.factory(list)   # a template's static member functions (likewise)
    asserts: list[StaticAssert] = Record.factory(list)  # a template's static_asserts (checked per instance)


class SizeOf(Expr):
    """sizeof(type) or sizeof(expression), in bytes."""

    operand: TypeRef | Expr
    dims: list[Expr | None] = Record.factory(list)     # sizeof(T[2]): the array sizes of a type operand


class StaticMember(Expr):
    """`S<int>::x`: a static data member of a struct template's instance."""

    type: TypeRef
    name: str


class CBufferDecl(Node):
    name: str
    kind: str                 # 'cbuffer' | 'tbuffer'
    members: list[VarDecl]
    register: Register | None = None
    attributes: list[Attribute] = Record.factory(list)


class TypedefDecl(Node):
    name: str
    type: TypeRef
    dims: list[Expr | None] = Record.factory(list)
    qualifiers: frozenset[str] = frozenset()


class EnumDecl(Node):
    name: str | None
    scoped: bool
    underlying: TypeRef | None
    members: list[tuple[str, Expr | None, SourceLoc]]   # (name, value, loc)


# ---------------------------------------------------------------------- statements

class Stmt(Node):
    pass


class Block(Stmt):
    stmts: list[Stmt]


class StaticAssert(Node):
    """`static_assert(cond, "message");` (C++11, which DXC accepts in HLSL) at file, block or struct scope."""
    cond: Expr
    message: str | None = None
    namespaces: tuple[str, ...] = ()  # as VarDecl.namespaces: a namespace's or struct's names are seen


class UsingDirective(Node):
    """`using namespace N;`: names of N (prefix 'N::') found unqualified in the rest of the scope."""
    prefix: str


class DeclStmt(Stmt):
    decls: list[VarDecl | StructDecl | TypedefDecl | EnumDecl | UsingDirective | StaticAssert]


class ExprStmt(Stmt):
    expr: Expr


class EmptyStmt(Stmt):
    pass


class IfStmt(Stmt):
    cond: Expr
    then: Stmt
    else_: Stmt | None
    attributes: list[Attribute] = Record.factory(list)


class ForStmt(Stmt):
    init: Stmt | None
    cond: Expr | None
    step: Expr | None
    body: Stmt
    attributes: list[Attribute] = Record.factory(list)


class WhileStmt(Stmt):
    cond: Expr
    body: Stmt
    attributes: list[Attribute] = Record.factory(list)


class DoStmt(Stmt):
    body: Stmt
    cond: Expr
    attributes: list[Attribute] = Record.factory(list)


class CaseLabel(Node):
    value: Expr | None        # None for default


class SwitchStmt(Stmt):
    selector: Expr
    sections: list[tuple[list[CaseLabel], list[Stmt]]]
    attributes: list[Attribute] = Record.factory(list)


class BreakStmt(Stmt):
    pass


class ContinueStmt(Stmt):
    pass


class ReturnStmt(Stmt):
    value: Expr | None


class DiscardStmt(Stmt):
    pass


class TranslationUnit(Node):
    decls: list[Node]
    warnings: list = Record.factory(list)     # the parser's warnings (ignored effects syntax), as Diagnostics
    vk_unimplemented: list = Record.factory(list)  # front/attributes.py VK_UNIMPLEMENTED attributes written
