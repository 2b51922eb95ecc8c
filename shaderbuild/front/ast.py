"""Syntax tree produced by the parser.  Every node carries `loc` for diagnostics.

The tree is deliberately close to the source; name resolution, typing and
conversions happen in sema, which lowers it to the IR.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..diagnostics import SourceLoc


@dataclass(slots=True, eq=False)
class Node:
    loc: SourceLoc


# ---------------------------------------------------------------- types, attributes

@dataclass(slots=True, eq=False)
class TypeRef(Node):
    """A type as written: a name with optional template arguments (types or ints)."""

    name: str
    args: list[TypeRef | Expr] = field(default_factory=list)


@dataclass(slots=True, eq=False)
class Attribute(Node):
    """`[name(args)]` or `[[ns::name(args)]]`; name includes the namespace ('vk::binding')."""

    name: str
    args: list[Expr] = field(default_factory=list)


@dataclass(slots=True, eq=False)
class Register(Node):
    """`: register(u3, space1)`; `packoffset` uses the same node with kind 'packoffset'."""

    reg_class: str
    number: int
    space: int | None = None
    kind: str = "register"
    component: str | None = None


# --------------------------------------------------------------------- expressions

@dataclass(slots=True, eq=False)
class Expr(Node):
    pass


@dataclass(slots=True, eq=False)
class IntLit(Expr):
    value: int
    suffix: str = ""          # 'u', 'l', 'ul', ... lower-cased


@dataclass(slots=True, eq=False)
class FloatLit(Expr):
    value: float
    suffix: str = ""          # '', 'f', 'h', 'l'


@dataclass(slots=True, eq=False)
class BoolLit(Expr):
    value: bool


@dataclass(slots=True, eq=False)
class StringLit(Expr):
    value: str


@dataclass(slots=True, eq=False)
class Name(Expr):
    name: str                 # may be qualified: 'Color::Red'


@dataclass(slots=True, eq=False)
class UnaryOp(Expr):
    op: str                   # '-', '+', '!', '~', '++', '--' (prefix), 'post++', 'post--'
    operand: Expr


@dataclass(slots=True, eq=False)
class BinaryOp(Expr):
    op: str                   # C spelling: '+', '&&', '<<', '==', ...
    lhs: Expr
    rhs: Expr


@dataclass(slots=True, eq=False)
class Assign(Expr):
    op: str                   # '=', '+=', ...
    target: Expr
    value: Expr


@dataclass(slots=True, eq=False)
class Conditional(Expr):
    cond: Expr
    true: Expr
    false: Expr


@dataclass(slots=True, eq=False)
class Comma(Expr):
    exprs: list[Expr]


@dataclass(slots=True, eq=False)
class CallExpr(Expr):
    """A call of a function, method (callee is a Member) or constructor (callee is a TypeRef)."""

    callee: Expr | TypeRef
    args: list[Expr]


@dataclass(slots=True, eq=False)
class Member(Expr):
    base: Expr
    name: str


@dataclass(slots=True, eq=False)
class Index(Expr):
    base: Expr
    index: Expr


@dataclass(slots=True, eq=False)
class Cast(Expr):
    type: TypeRef
    dims: list[Expr]
    operand: Expr


@dataclass(slots=True, eq=False)
class InitList(Expr):
    items: list[Expr]


# ------------------------------------------------------------------- declarations

@dataclass(slots=True, eq=False)
class VarDecl(Node):
    name: str
    type: TypeRef
    dims: list[Expr | None] = field(default_factory=list)   # None = unsized []
    init: Expr | None = None
    qualifiers: frozenset[str] = frozenset()
    semantic: str | None = None
    register: Register | None = None
    packoffset: Register | None = None
    attributes: list[Attribute] = field(default_factory=list)


@dataclass(slots=True, eq=False)
class FuncDecl(Node):
    name: str
    return_type: TypeRef
    params: list[VarDecl]
    body: Block | None
    semantic: str | None = None
    attributes: list[Attribute] = field(default_factory=list)
    qualifiers: frozenset[str] = frozenset()
    return_dims: list[Expr | None] = field(default_factory=list)


@dataclass(slots=True, eq=False)
class StructDecl(Node):
    name: str
    fields: list[VarDecl]
    methods: list[FuncDecl] = field(default_factory=list)
    base: TypeRef | None = None


@dataclass(slots=True, eq=False)
class CBufferDecl(Node):
    name: str
    kind: str                 # 'cbuffer' | 'tbuffer'
    members: list[VarDecl]
    register: Register | None = None
    attributes: list[Attribute] = field(default_factory=list)


@dataclass(slots=True, eq=False)
class TypedefDecl(Node):
    name: str
    type: TypeRef
    dims: list[Expr | None] = field(default_factory=list)


@dataclass(slots=True, eq=False)
class EnumDecl(Node):
    name: str | None
    scoped: bool
    underlying: TypeRef | None
    members: list[tuple[str, Expr | None, object]]   # (name, value, loc)


# ---------------------------------------------------------------------- statements

@dataclass(slots=True, eq=False)
class Stmt(Node):
    pass


@dataclass(slots=True, eq=False)
class Block(Stmt):
    stmts: list[Stmt]


@dataclass(slots=True, eq=False)
class DeclStmt(Stmt):
    decls: list[VarDecl | StructDecl | TypedefDecl | EnumDecl]


@dataclass(slots=True, eq=False)
class ExprStmt(Stmt):
    expr: Expr


@dataclass(slots=True, eq=False)
class EmptyStmt(Stmt):
    pass


@dataclass(slots=True, eq=False)
class IfStmt(Stmt):
    cond: Expr
    then: Stmt
    else_: Stmt | None
    attributes: list[Attribute] = field(default_factory=list)


@dataclass(slots=True, eq=False)
class ForStmt(Stmt):
    init: Stmt | None
    cond: Expr | None
    step: Expr | None
    body: Stmt
    attributes: list[Attribute] = field(default_factory=list)


@dataclass(slots=True, eq=False)
class WhileStmt(Stmt):
    cond: Expr
    body: Stmt
    attributes: list[Attribute] = field(default_factory=list)


@dataclass(slots=True, eq=False)
class DoStmt(Stmt):
    body: Stmt
    cond: Expr
    attributes: list[Attribute] = field(default_factory=list)


@dataclass(slots=True, eq=False)
class CaseLabel(Node):
    value: Expr | None        # None for default


@dataclass(slots=True, eq=False)
class SwitchStmt(Stmt):
    selector: Expr
    sections: list[tuple[list[CaseLabel], list[Stmt]]]
    attributes: list[Attribute] = field(default_factory=list)


@dataclass(slots=True, eq=False)
class BreakStmt(Stmt):
    pass


@dataclass(slots=True, eq=False)
class ContinueStmt(Stmt):
    pass


@dataclass(slots=True, eq=False)
class ReturnStmt(Stmt):
    value: Expr | None


@dataclass(slots=True, eq=False)
class DiscardStmt(Stmt):
    pass


@dataclass(slots=True, eq=False)
class TranslationUnit(Node):
    decls: list[Node]
