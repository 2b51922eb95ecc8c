"""Recursive-descent parser: preprocessed tokens -> ast.TranslationUnit.

HLSL, like C, needs to know which identifiers name types; the parser tracks
built-in type names (a table-driven regex) and the structs, typedefs and enums
declared so far.
"""

from __future__ import annotations

from ..diagnostics import CompileError, Diagnostic, SourceLoc, error
from ..ir.resource_kinds import KINDS as RESOURCE_KINDS
from ..ir.subobjects import SUBOBJECT_KINDS
from ..options import MAX_REGISTER
from . import ast
from .attributes import FUNCTION_ONLY, VK_UNIMPLEMENTED, canonical_name, check_attribute, is_known
from .tokens import Token, TokKind

# operators HLSL 2021 does not let a struct overload (DXC: "overloading 'operator=' is not allowed")
_NOT_OVERLOADABLE = frozenset(("=", "+=", "-=", "*=", "/=", "%=", "^=", "&=", "|=", "<<", ">>", "<<=", ">>=",
                               "->", "++", "--"))
_WORD_KINDS = (TokKind.PUNCT, TokKind.IDENT)    # the kinds Parser.at matches by text

SCALAR_TYPE_NAMES = (
    "bool", "int", "uint", "dword", "float", "double", "half",
    "min16float", "min10float", "min16int", "min12int", "min16uint",
    "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
    "float16_t", "float32_t", "float64_t",
)
# every scalar, vector and matrix type name (a set: a regular expression compiled at import costs a cold start)
NUMERIC_TYPE_NAMES = frozenset(s + shape for s in SCALAR_TYPE_NAMES
                               for shape in ("", *"1234", *(f"{r}x{c}" for r in "1234" for c in "1234")))
# type names that may take <...>: the resource kinds of ir/resource_kinds.py (not the cbuffer/tbuffer
# block keywords), plus names parsed only to be refused later with a clear error
TEMPLATE_TYPES = frozenset({
    "vector", "matrix", "sampler", *(k for k in RESOURCE_KINDS if k not in ("cbuffer", "tbuffer", "$Globals")),
    "RasterizerOrderedBuffer", "RasterizerOrderedStructuredBuffer", "RasterizerOrderedByteAddressBuffer",
    "RasterizerOrderedTexture2D", "InputPatch", "OutputPatch", "RayQuery",
})
# legacy sampler spellings, all SamplerState (typeresolve.py)
SAMPLER_ALIASES = frozenset({"sampler", "sampler1D", "sampler2D", "sampler3D", "samplerCUBE"})
OTHER_TYPES = frozenset({"void", "string", *SAMPLER_ALIASES, "uint8_t4_packed", "int8_t4_packed", "RayDesc", "BuiltInTriangleIntersectionAttributes",  # (ir/raytracing.py)
                         *SUBOBJECT_KINDS})
# `unsigned T` spells the unsigned twin of an integer type (`unsigned` alone is `uint`); DXC reserves `signed`
_CHAR_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "a": 7, "b": 8, "f": 12, "v": 11,   # '\n' is 10, not 'n'
                 "e": 27, "E": 27}     # GNU's escape character, as clang
def _check_operator_arity(fn: ast.FuncDecl, static: bool) -> None:
    """clang's checks of an overloaded operator (a member: `this` is its first operand)."""
    if static:
        raise error(f"overloaded '{fn.name}' cannot be a static member function", fn.loc)
    op = fn.name[len("operator"):]
    if op in ("[]", "()"):
        return
    n = len(fn.params) + 1
    kinds = {"!": ("unary", (1,)), "~": ("unary", (1,))}
    kind, allowed = kinds.get(op, ("unary or binary", (1, 2)) if op in ("+", "-", "*", "&") else ("binary", (2,)))
    if n not in allowed:
        raise error(f"overloaded '{fn.name}' must be a {kind} operator (has {n} parameter{'s' * (n != 1)})", fn.loc)


_MULTI_CHAR = "unsupported style of char literal - use a single-character char-based literal"


# escapes clang reads without a word: C's, and GNU's \e and \( \{ \[ \% (extensions, silent by default)
_INFINITY = float("inf")
_PRECEDENCE_WARNED = frozenset(("&", "^", "|", "||"))
_COMPARISONS = frozenset(("==", "!=", "<", ">", "<=", ">="))
_BITWISE = frozenset(("&", "^", "|"))


def _literal_truth(e: ast.Expr) -> bool | None:
    """What a literal operand evaluates to as a condition (clang's EvaluatesAsTrue/False, for literals only: a
    string is true, as in `a || b && "why"`); None for anything else."""
    if isinstance(e, (ast.IntLit, ast.FloatLit, ast.BoolLit)):
        return bool(e.value)
    return True if isinstance(e, ast.StringLit) else None


_QUIET_ESCAPES = frozenset("\\'\"?eE({[%")


def _char_value(t: Token, warn: Callable[[str, SourceLoc], None] | None = None) -> int:
    """A character literal's value, C's escapes read as clang's LiteralSupport.cpp does: `\\x` takes every hex
    digit after it, an octal escape up to three digits, and one char's value must fit in 8 bits.  DXC makes
    the (signed) char a uint, so an escape above 0x7f is sign-extended."""
    body = t.text[1:-1]
    if not body:
        raise error("empty character constant", t.loc)
    if body[0] != "\\":
        if len(body) > 1:                       # 'ab': C's implementation-defined int
            raise error(_MULTI_CHAR, t.loc)
        return ord(body)
    e = body[1:]
    at = SourceLoc(t.loc.file, t.loc.line, t.loc.col + 1)      # clang points at the escape
    if e[:1] == "x":
        n = 1
        while n < len(e) and e[n] in "0123456789abcdefABCDEF":
            n += 1
        if n == 1:
            raise error("\\x used with no following hex digits", at)
        what = "hex"
        value = int(e[1:n], 16)
    elif e[:1] in tuple("01234567"):
        n = 1
        while n < min(3, len(e)) and e[n] in "01234567":
            n += 1
        what = "octal"
        value = int(e[:n], 8)
    else:
        n = 1
        what = ""
        value = _CHAR_ESCAPES.get(e[:1], ord(e[:1] or "\\"))
        if warn is not None and e[:1] and e[0] not in _CHAR_ESCAPES and e[0] not in _QUIET_ESCAPES:
            shown = e[0] if e[0].isprintable() else f"x{ord(e[0]):x}"
            warn(f"unknown escape sequence '\\{shown}'", at)      # clang's ext_unknown_escape: '\q' is 'q'
    if n < len(e):
        raise error(_MULTI_CHAR, t.loc)
    if value > 0xFF:
        raise error(f"{what} escape sequence out of range", at)
    return value - 0x100 + (1 << 32) if value > 0x7F else value


_UNSIGNED_RE = r"^(int|int16_t|int32_t|int64_t|min16int)((?:[1-4](?:x[1-4])?)?)$"    # compiled when first met
_UNSIGNED_OF = {"int": "uint", "int16_t": "uint16_t", "int32_t": "uint32_t", "int64_t": "uint64_t",
                "min16int": "min16uint"}
# Effects (FX) syntax that DXC parses and ignores at SM 6 (warning group effects-syntax): object types
# whose declarations are dropped, and the technique keywords (`technique` also capitalised, as DXC)
EFFECT_OBJECT_TYPES = frozenset({
    "texture", "Texture", "PixelShader", "pixelshader", "VertexShader", "vertexshader", "pixelfragment",
    "vertexfragment", "ComputeShader", "DomainShader", "GeometryShader", "HullShader", "BlendState",
    "DepthStencilState", "DepthStencilView", "RasterizerState", "RenderTargetView",
})
# C/C++ keywords DXC's parser refuses where a type or specifier may stand (ParseDecl.cpp HLSLReservedKeyword)
RESERVED_KEYWORDS = frozenset({
    "signed", "char", "char16_t", "char32_t", "wchar_t", "short", "long", "constexpr", "friend", "mutable", "register",
    "virtual", "typeof", "concept", "__int64", "__int128", "_Complex", "_Imaginary", "_Alignas", "_Atomic", "_Noreturn",
    "_Thread_local", "__thread", "__declspec", "__forceinline", "__module_private__",
})
# modifiers that are ordinary names when punctuation follows (`int sample = 1;`), as DXC's parser has it
NAME_KEYWORDS = frozenset({"sample", "precise", "globallycoherent", "reordercoherent", "center"})
# type names that are C/HLSL keywords in DXC (TokenKinds.def), never a declared name; the other built-in type
# names (uint, float4, min16float, vector, Texture2D, ...) are declarations DXC's sema makes
KEYWORD_TYPES = frozenset({"void", "bool", "int", "float", "double", "half"})
TECHNIQUE_KEYWORDS = frozenset({"technique", "Technique", "technique10", "technique11"})
_EFFECTS = " ignored - effect syntax is deprecated"

QUALIFIERS = frozenset({
    "static", "const", "uniform", "extern", "volatile", "groupshared", "shared", "precise",
    "in", "out", "inout", "row_major", "column_major", "nointerpolation", "noperspective",
    "linear", "centroid", "sample", "snorm", "unorm", "globallycoherent", "reordercoherent", "inline",
    "export", "point", "line", "triangle", "lineadj", "triangleadj",
})

# HLSL modifiers DXC's parser accepts only before the type (ParseDecl.cpp, err_hlsl_modifier_after_type)
# a parameter's usages: the directions each gives (`in out` is `inout`; `in in`, `out inout` are errors)
_USAGES = {"in": frozenset("i"), "out": frozenset("o"), "inout": frozenset("io")}
_INTERPOLATION = frozenset({"linear", "nointerpolation", "noperspective", "centroid", "sample"})
BEFORE_TYPE_ONLY = frozenset({
    "in", "out", "inout", "linear", "nointerpolation", "noperspective", "centroid", "row_major", "column_major",
    "snorm", "unorm", "point", "line", "lineadj", "triangle", "triangleadj", "shared", "groupshared", "uniform",
    "export",
})

# binary operator precedence (higher binds tighter), C rules
# mesh-shader parameter qualifiers: keywords only before a parameter's type (`out vertices V v[64]`),
# ordinary names everywhere else
MESH_QUALIFIERS = frozenset({"vertices", "indices", "primitives", "payload"})

BINARY_PREC = {
    "||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
    "<": 7, ">": 7, "<=": 7, ">=": 7, "<<": 8, ">>": 8,
    "+": 9, "-": 9, "*": 10, "/": 10, "%": 10,
}
ASSIGN_OPS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="})
# integer literals: 0x hex, 0 octal, decimal (sets: a regular expression compiled at import costs a cold start)
_HEX_DIGITS, _OCTAL_DIGITS, _DECIMAL_DIGITS = frozenset("0123456789abcdefABCDEF"), frozenset("01234567"), frozenset("0123456789")
MAX_NESTING = 128   # brackets, calls and nested statements; deep enough for real shaders
MAX_CHAIN = 2000    # operators in one chain such as a + b + c + ...
MAX_IDENTIFIER = 131072   # characters; SPIR-V strings end at 65535 words (~256K bytes, OpName)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import NoReturn, TypeVar

    _T = TypeVar("_T")
_OPENERS = {"(": ")", "[": "]", "{": "}"}


def is_builtin_type_name(name: str) -> bool:
    return name in TEMPLATE_TYPES or name in OTHER_TYPES or name in NUMERIC_TYPE_NAMES


class Parser:
    def __init__(self, tokens: list[Token], pack_matrix: Sequence[tuple[int, str]] = (), stage: str | None = None) -> None:
        self.toks = tokens
        self.pos = 0
        self.stage = stage      # Profile.stage: picks profile-qualified register clauses
        self.in_template_arg = False     # parsing a template argument: a bare `>` closes it
        # `#pragma pack_matrix` state per token (None before any pragma); kept aligned with toks
        self.pack: list[str | None] | None = None
        if pack_matrix:
            self.pack = [None] * len(tokens)
            for (start, state), nxt in zip(pack_matrix, [*[i for i, _ in pack_matrix[1:]], len(tokens)]):
                self.pack[start:nxt] = [state] * (nxt - start)
        self.user_types: set[str] = set()
        # C++ name hiding: a variable, parameter or member named like a type hides the type in expressions
        # from its declaration to the end of its scope (`ConstantBuffer<S> S;` then `S.x`); `struct S` still
        # names it. One dict per open scope, innermost last (True: hidden, False: a type declared again there)
        self.hiding: list[dict[str, bool]] = [{}]
        self.ever_hidden: set[str] = set()      # (a fast test: most programs hide nothing)
        self.typedef_names: set[str] = set()    # (a hidden typedef has no tag to name it by)
        self.template_funcs: set[str] = set()
        # alias templates: name -> (parameters, the non-type ones' types, defaults, the aliased type)
        self.alias_templates: dict[str, tuple[list[str], dict[str, ast.TypeRef], dict[str, ast.TypeRef | ast.Expr],
                                              ast.TypeRef]] = {}
        self.template_stack: list[tuple[list[str], dict[str, ast.TypeRef], dict[str, ast.TypeRef | ast.Expr]]] = []
        # a struct defined inside a struct template: a template of the outer's parameters, named without them there
        self.nested_templates: dict[str, tuple[list[str], dict[str, ast.TypeRef]]] = {}
        self.depth = 0
        self.switches = 0       # the switch bodies being read (a label outside their sections is refused)
        self.hoisted: list[ast.Node] = []    # struct definitions met inside another declaration, to emit first
        self.hoisted_after: list[ast.Node] = []  # static members of a struct of its own type, to emit after it
        self.static_data: dict[str, ast.VarDecl] = {}   # 'S::x' -> its declaration, which `T S::x = v;` completes
        self.template_head = False      # after `template<...>`: the declared name may take `<args>` (specialisation)
        self.template_structs: dict[str, list[ast.StructDecl]] = {}     # a struct template and its specialisations
        self.static_funcs: set[str] = set()     # 'S::f' of `static T f(...);` in S: `T S::f(...) {...}` defines it
        # enclosing namespaces and structs as name prefixes ('NS::', 'NS::S::'), innermost last: names declared
        # there are qualified with the innermost; unqualified type names are looked up innermost first
        self.ns: list[str] = []
        self.namespaces: set[str] = set()   # every namespace declared so far ('N::', 'N::M::')
        self.used: list[str] = []           # namespaces of `using namespace` directives in scope, innermost last
        self.warnings: list[Diagnostic] = []
        self.else_locs: dict[int, SourceLoc] = {}     # id of an IfStmt with an `else` -> the `else` (dangling else)
        self.parenthesized: set[int] = set()            # ids of the expressions written in parentheses
        self.vk_unimplemented: list[ast.Attribute] = []
        self.errors: list[Diagnostic] = []     # syntax errors recovered from (see item())

    # ------------------------------------------------------------ token helpers
    @property
    def tok(self) -> Token:
        return self.toks[self.pos]

    def peek(self, n: int = 1) -> Token:
        i = min(self.pos + n, len(self.toks) - 1)
        return self.toks[i]

    def advance(self) -> Token:
        t = self.toks[self.pos]
        if t.kind is not TokKind.EOF:
            self.pos += 1
        return t

    def at(self, text: str) -> bool:
        t = self.toks[self.pos]     # (self.tok without the property call: the parser's most frequent test)
        return t.text == text and t.kind in _WORD_KINDS

    def accept(self, text: str) -> bool:
        t = self.toks[self.pos]     # at() and advance() inlined: a matched PUNCT or IDENT token is not EOF
        if t.text == text and t.kind in _WORD_KINDS:
            self.pos += 1
            return True
        return False

    def expect(self, text: str, what: str | None = None) -> Token:
        t = self.toks[self.pos]     # (as in accept)
        if not (t.text == text and t.kind in _WORD_KINDS):
            self.fail(f"expected '{text}'" + (f" {what}" if what else ""))
        self.pos += 1
        return t

    def fail(self, message: str, tok: Token | None = None) -> NoReturn:
        tok = tok or self.tok
        found = "end of file" if tok.kind is TokKind.EOF else f"'{tok.text}'"
        raise error(f"{message}, found {found}" if "found" not in message else message, tok.loc)

    def ident(self, what: str = "identifier") -> Token:
        if self.tok.kind is not TokKind.IDENT:
            self.fail(f"expected {what}")
        return self.advance()

    def decl_name(self, what: str) -> Token:
        """The name a declarator declares: not a type keyword (`float float;` is two type specifiers to DXC)."""
        t = self.ident(what)
        if t.text in KEYWORD_TYPES:
            before = self.toks[self.pos - 2]
            if before.text == "operator":       # `operator float()` in a struct (DXC's words)
                raise error("conversion operator overloading is not allowed", before.loc)
            if before.text == "typedef":        # only a struct body gets here with one
                raise error("nested typedefs are not supported in HLSL", before.loc)
            raise error(f"cannot combine with previous '{before.text}' declaration specifier", t.loc)
        return t

    def is_type_name(self, name: str) -> bool:
        known = self.user_types
        return ((self.scoped(name, known) if self.ns or self.used else name) in known or is_builtin_type_name(name)
                or name in ("unsigned", "signed"))

    def hidden(self, name: str) -> bool:
        """`name` is a type hidden by a variable of that name in an enclosing scope."""
        if name not in self.ever_hidden:
            return False
        return next((scope[name] for scope in reversed(self.hiding) if name in scope), False)

    def names_value(self, name: str) -> None:
        """A variable named `name` is declared in the current scope: it hides a type of that name."""
        if self.scoped(name, self.user_types) in self.user_types:
            self.hiding[-1][name] = True
            self.ever_hidden.add(name)

    def names_type(self, name: str) -> None:
        """A type named `name` is declared in the current scope: it is visible again there (unless a function
        of its name is declared there too)."""
        if name in self.ever_hidden and "()" + name not in self.hiding[-1]:
            self.hiding[-1][name] = False

    def names_function(self, name: str) -> None:
        """A function (template) `name` is declared at file scope: it hides a struct of its name there, whichever
        comes first (C++ [basic.scope.declarative]: `f(2.5)` calls it; `struct f` still names the struct).
        ('()' + name marks the function for names_type; a namespace shares the file's scope dict: not marked.)"""
        if not self.ns and name not in self.typedef_names:     # (a typedef clashes instead: sema's error)
            self.hiding[-1][name] = self.hiding[-1]["()" + name] = True
            self.ever_hidden.add(name)

    def declared_type(self) -> ast.TypeRef:
        """The type of a declaration: a type name a variable hides needs its tag (C++)."""
        t = self.tok
        if t.kind is TokKind.IDENT and self.hidden(t.text):
            raise error(f"must use 'struct' tag to refer to type '{t.text}' in this scope"
                        if t.text not in self.typedef_names else
                        f"'{t.text}' names a variable here, which hides the type of that name", t.loc)
        return self.type_ref()

    def scoped(self, name: str, known: set[str]) -> str:
        """`name` qualified with the innermost enclosing namespace that declares it (else `name`).
        (Outside namespaces and `using namespace`, `name`: the hot callers test that themselves.)"""
        for prefix in reversed(self.ns):
            if prefix + name in known:
                return prefix + name
        if self.used and name not in known:
            for prefix in reversed(self.used):
                if prefix + name in known:
                    return prefix + name
        return name

    def qualified(self, name: str) -> str:
        """A type declared here: qualified with the enclosing namespace or struct (not inside a function)."""
        return self.ns[-1] + name if self.ns and self.depth == 0 else name

    def at_struct_specifier(self) -> bool:
        """`struct X` naming a declared struct (not `struct X {` or `struct X : Base {` defining one)."""
        return ((self.at("struct") or self.at("class")) and self.peek().kind is TokKind.IDENT
                and not (self.peek(2).is_punct("{") or self.peek(2).is_punct(":")
                         or self.template_head and self.peek(2).is_punct("<")))

    def at_effect_object(self) -> bool:
        """An effects object declaration such as `BlendState bs`: these names are types only there."""
        t = self.tok
        return (t.kind is TokKind.IDENT and t.text in EFFECT_OBJECT_TYPES and t.text not in self.user_types
                and self.peek().kind is TokKind.IDENT)

    def warn(self, message: str, loc: SourceLoc) -> None:
        self.warnings.append(Diagnostic("warning", message, loc))

    def precedence_warnings(self, op: Token, lhs: ast.Expr, rhs: ast.Expr) -> None:
        """Clang's DiagnoseBinOpPrecedence, which DXC runs before its own operand checks: `a & b == c` (a bitwise
        operator beside an unparenthesized comparison, unless both sides are comparisons or bitwise), `a && b ||
        c` (unless a literal operand makes the grouping irrelevant; not in a macro's expansion)."""
        def bare(e: ast.Expr, ops: frozenset[str] | tuple[str, ...]) -> bool:
            return isinstance(e, ast.BinaryOp) and e.op in ops and id(e) not in self.parenthesized

        if op.text == "||":
            if op.expansion is not None:
                return
            if (bare(lhs, ("&&",)) and isinstance(lhs, ast.BinaryOp) and _literal_truth(rhs) is not False
                    and _literal_truth(lhs.lhs) is not True):
                self.warn("'&&' within '||'", lhs.loc)
            if (bare(rhs, ("&&",)) and isinstance(rhs, ast.BinaryOp) and _literal_truth(lhs) is not False
                    and _literal_truth(rhs.rhs) is not True):
                self.warn("'&&' within '||'", rhs.loc)
            return
        left, right = bare(lhs, _COMPARISONS), bare(rhs, _COMPARISONS)
        if not (left or right) or ((left or bare(lhs, _BITWISE)) and (right or bare(rhs, _BITWISE))):
            return
        other = lhs if left else rhs
        assert isinstance(other, ast.BinaryOp)
        self.warn(f"'{op.text}' has lower precedence than '{other.op}'; '{other.op}' will be evaluated first", op.loc)

    def condition_warnings(self, cond: ast.Expr | None) -> None:
        """`if (x = 1)`: clang's DiagnoseAssignmentAsCondition (an `=` or `|=` not in parentheses), for the
        conditions of if, while, do and for."""
        if isinstance(cond, ast.Assign) and cond.op in ("=", "|=") and id(cond) not in self.parenthesized:
            self.warn("using the result of an assignment as a condition without parentheses", cond.loc)

    def if_warnings(self, cond_end: SourceLoc, then: ast.Stmt) -> None:
        """Clang's warnings on an `if` without `else`: `if (c);` (the `;` on the condition's line: ParseStmt.cpp,
        SemaStmt.cpp DiagnoseEmptyStmtBody), and an inner `if ... else` the `else` of which reads as the outer's
        (the inner `if` is the body, or ends the body of a loop that is: warn_dangling_else)."""
        if isinstance(then, ast.EmptyStmt) and then.loc.line == cond_end.line and then.loc.file == cond_end.file:
            self.warn("if statement has empty body", then.loc)
        inner: ast.Stmt | None = then
        while isinstance(inner, (ast.WhileStmt, ast.ForStmt)):
            inner = inner.body
        if isinstance(inner, ast.IfStmt) and id(inner) in self.else_locs:
            self.warn("add explicit braces to avoid dangling else", self.else_locs[id(inner)])

    def take_hoisted(self, new: list[ast.Node], mark: tuple[int, int] = (0, 0)) -> list[ast.Node]:
        """`new` declarations with the hoisted ones before (nested structs) and after (static members); mark:
        the lengths of both lists when `new` began (a local declaration in a method must leave its struct's
        static members, still pending, to the struct)."""
        out = [*self.hoisted[mark[0]:], *new, *self.hoisted_after[mark[1]:]]
        del self.hoisted[mark[0]:], self.hoisted_after[mark[1]:]
        return out

    def enter(self, loc: SourceLoc) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise error(f"nesting too deep (limit {MAX_NESTING})", loc)

    def leave(self) -> None:
        self.depth -= 1

    # ------------------------------------------------------------- error recovery
    def item(self, parse_one: Callable[[], _T], top_level: bool = False) -> _T | None:
        """Parse one declaration or statement.  On a syntax error, record it and skip to the item's
        end (the one place the parser resynchronises), so the next item is parsed and every syntax
        error is reported, each once; None then."""
        start, depth = self.pos, self.depth
        try:
            return parse_one()
        except CompileError as e:
            self.errors.extend(e.diagnostics)
            self.depth = depth
            message = e.diagnostics[0].message
            self.synchronize(start, top_level, message.startswith("expected ';'"),
                             message.startswith("expected '{' to begin the"))
            return None

    def synchronize(self, start: int, top_level: bool, missing_semicolon: bool = False,
                    missing_brace: bool = False) -> None:
        """Skip from the item that began at token `start` to just past its end: a ';' or a '}' that closes
        a '{' the item opened, at the item's own nesting level and not before the error.  A '}' the item
        did not open ends the enclosing block: stop before it (at top level it is a stray token, skipped).
        A ';' missing at the end of a line is taken as written: the next line starts the next item; a body's
        missing '{' too (`struct S float x; };`): the item ends after the '}' that closes the body."""
        err = self.pos
        toks = self.toks
        if err == start and toks[start].text in (")", "]", "}") and toks[start].kind is TokKind.PUNCT:
            self.pos += 1           # a stray closer where an item should start
            return
        stack: list[str] = []
        i = start
        while toks[i].kind is not TokKind.EOF:
            t = toks[i]
            if i == err and missing_semicolon and not stack and i > start and toks[i - 1].loc.line < t.loc.line:
                self.pos = i
                return
            if t.kind is TokKind.PUNCT:
                if t.text in _OPENERS:
                    stack.append(_OPENERS[t.text])
                elif t.text in (")", "]", "}"):
                    if t.text in stack:
                        while stack.pop() != t.text:
                            pass
                        if not stack and t.text == "}" and i >= err:
                            self.pos = i + 1
                            return
                    elif t.text == "}" and missing_brace and i >= err:
                        self.pos = i + 1
                        if toks[i + 1].is_punct(";"):
                            self.pos += 1
                        return
                    elif t.text == "}" and not top_level and i >= err:
                        self.pos = i
                        return
                elif t.text == ";" and not stack and i >= err and not missing_brace:
                    self.pos = i + 1
                    return
            i += 1
        self.pos = max(i, err)

    # ------------------------------------------------------------- top level
    def parse(self) -> ast.TranslationUnit:
        loc = self.tok.loc
        decls: list[ast.Node] = []
        while self.tok.kind is not TokKind.EOF:
            if self.accept(";"):
                continue
            decls.extend(self.take_hoisted(self.item(self.top_level_decl, top_level=True) or []))
        if self.errors:         # sema runs on a complete tree only: a skipped declaration would cascade
            raise CompileError(self.errors)
        return ast.TranslationUnit(loc, decls, self.warnings, self.vk_unimplemented)

    def attributes(self) -> list[ast.Attribute]:
        attrs: list[ast.Attribute] = []
        while self.at("["):
            double = self.peek().is_punct("[")
            self.advance()
            if double:
                self.advance()
            elif self.accept("]"):      # `[]` is valid and says nothing (DXC's ParseHLSLAttributeSpecifier)
                continue
            while True:
                name_tok = last = self.ident("attribute name")
                name = name_tok.text
                while self.accept("::"):
                    last = self.ident("attribute name")
                    name += "::" + last.text
                args: list[ast.Expr] = []
                if self.accept("("):
                    if not self.at(")"):
                        args.append(self.assignment())
                        while self.accept(","):
                            args.append(self.assignment())
                    self.expect(")")
                attr = ast.Attribute(name_tok.loc, canonical_name(name), args)
                check_attribute(attr)
                if not is_known(attr.name):         # clang's words (nothing reads an unknown one)
                    self.warn(f"unknown attribute '{last.text}' ignored", last.loc)
                if attr.name in VK_UNIMPLEMENTED:
                    self.vk_unimplemented.append(attr)
                attrs.append(attr)
                if not (double and self.accept(",")):
                    break
            self.expect("]", "to close the attribute")
            if double:
                self.expect("]", "to close the attribute")
        return attrs

    def qualifiers(self) -> set[str]:
        quals: set[str] = set()
        where: dict[str, SourceLoc] = {}
        while self.tok.kind is TokKind.IDENT and self.tok.text in QUALIFIERS and not self.at_keyword_name():
            t = self.advance()
            if t.text == "volatile":    # DXC's parser (reported; parsing goes on)
                self.errors.append(Diagnostic("error", "'volatile' is a reserved keyword in HLSL", t.loc))
            if t.text in _USAGES and any(_USAGES[t.text] & _USAGES[q] for q in quals if q in _USAGES):
                # `in in`, `out inout`: DXC's IsUsageAttributeCompatible (`in out` is inout)
                self.errors.append(Diagnostic("error", f"duplicate HLSL parameter usages '{t.text}'", t.loc))
            elif t.text in quals and t.text in _INTERPOLATION:
                self.warn(f"duplicate HLSL specifier '{t.text}'", t.loc)      # DXC's -Wignored-attributes
            where.setdefault(t.text, t.loc)
            if t.text in ("sample", "centroid") and {"sample", "centroid"} <= where.keys() and t.text not in quals:
                self.warn("'centroid' will be overridden by 'sample'", where["centroid"])
            quals.add(t.text)
        return quals

    def at_keyword_name(self) -> bool:
        """`sample`, `precise`, `globallycoherent` followed by punctuation name a variable (DXC, for FXC)."""
        return self.tok.text in NAME_KEYWORDS and self.peek().kind is TokKind.PUNCT

    def trailing_qualifiers(self) -> set[str]:
        """Qualifiers written after the type: C's (`float const x`) are fine, HLSL's are DXC's "modifiers
        must appear before type" (reported; parsing goes on)."""
        start = self.pos
        quals = self.qualifiers()
        for t in self.toks[start:self.pos]:
            if t.text in BEFORE_TYPE_ONLY:
                self.errors.append(Diagnostic("error", "modifiers must appear before type", t.loc))
        return quals

    def top_level_decl(self) -> list[ast.Node]:
        attrs = self.attributes()
        t = self.tok
        if t.kind is TokKind.IDENT:
            if t.text in ("cbuffer", "tbuffer"):
                return [self.cbuffer(attrs)]
            if t.text == "typedef":
                return [*self.typedef()]
            if t.text in TECHNIQUE_KEYWORDS and (self.peek().kind is TokKind.IDENT or self.peek().is_punct("{")
                                                 or self.peek().is_punct("<")):
                self.technique()
                return []
            if t.text == "enum":
                d = self.enum_decl()
                self.expect(";", "after enum")
                return [d]
            if t.text == "namespace":
                return self.namespace()
            if t.text == "using":
                return self.using()
            if t.text == "template":
                return self.template_decl(attrs)
            if t.text == "static_assert" and self.peek().is_punct("("):
                return [self.static_assert()]
        return self.declaration(attrs, top_level=True)

    def static_assert(self) -> ast.StaticAssert:
        loc = self.advance().loc
        self.expect("(", "after 'static_assert'")
        cond = self.assignment()
        message = None
        if self.accept(","):
            if self.tok.kind is not TokKind.STRING:
                self.fail("expected string literal")
            message = self.advance().text
        self.expect(")", "to close 'static_assert'")
        self.expect(";", "after static_assert")
        return ast.StaticAssert(loc, cond, message, namespaces=tuple(self.ns))

    def namespace(self) -> list[ast.Node]:
        """namespace N { declarations }: their names become N::name (the sema resolves unqualified ones
        inside, see lower.namespace_scope)."""
        self.advance()
        prefix = self.qualified(self.ident("a namespace name").text) + "::"
        lb = self.expect("{", "to begin the namespace body")
        self.ns.append(prefix)
        self.namespaces.add(prefix)
        used = len(self.used)
        out: list[ast.Node] = []
        try:
            while not self.at("}"):
                if self.tok.kind is TokKind.EOF:
                    raise error("expected '}' to close the namespace opened here", lb.loc)
                if self.accept(";"):
                    continue
                new = self.top_level_decl()
                for d in new:       # (a nested namespace has qualified its own already)
                    if isinstance(d, (ast.FuncDecl, ast.VarDecl)) and not d.name.startswith(prefix):
                        d.name = prefix + d.name
                    elif isinstance(d, ast.CBufferDecl):
                        for m in d.members:
                            m.name = m.name if m.name.startswith(prefix) else prefix + m.name
                out.extend(self.take_hoisted(new))
        finally:
            self.ns.pop()
            del self.used[used:]
        self.advance()
        return out

    def using(self) -> list[ast.Node]:
        """`using Name = type[dims];` (a typedef) or `using namespace N::M;` (HLSL 2021; DXC accepts both)."""
        kw = self.advance()
        if self.accept("namespace"):
            t = self.ident("a namespace name")
            name = t.text
            while self.accept("::"):
                name += "::" + self.ident("a namespace name").text
            self.expect(";", "after the using directive")
            prefix = self.scoped(name + "::", self.namespaces)
            if prefix not in self.namespaces:
                raise error(f"expected namespace name, '{name}' is not a namespace", t.loc)
            self.used.append(prefix)
            return [ast.UsingDirective(kw.loc, prefix)]
        t = self.decl_name("a type alias name")
        if not self.at("="):
            self.fail("expected '=' after the alias name (using-declarations of namespace members are not "
                      "supported; use `using namespace` or the qualified name)")
        self.advance()
        quals = self.qualifiers()
        ref = self.type_ref()
        quals |= self.trailing_qualifiers()
        name = self.qualified(t.text)
        decl = ast.TypedefDecl(t.loc, name, ref, self.dims(), frozenset(quals))     # located at its name
        self.user_types.add(name)
        self.expect(";", "after the alias declaration")
        return [decl]

    def template_decl(self, attrs) -> list[ast.Node]:
        """template<typename T, class U, uint N> followed by a function or struct (HLSL 2021)."""
        params, values, defaults, added = self.template_parameters()
        if self.at("using"):
            try:
                return self.alias_template(params, values, defaults)
            finally:
                self.user_types.difference_update(added)
        self.template_head = True
        self.template_stack.append((params, values, defaults))
        try:
            decls = self.declaration(attrs, top_level=True)
        finally:
            self.user_types.difference_update(added)
            self.template_head = False
            self.template_stack.pop()
        for d in decls:
            if isinstance(d, ast.FuncDecl) and d.spec_args is not None and params:
                raise error("function template partial specialization is not allowed", d.loc)
            if isinstance(d, ast.FuncDecl) and d.spec_args is None and not params:
                d.spec_args = []        # `template<> void f(Stuff x)`: the arguments follow from the parameters
            if isinstance(d, ast.StructDecl) and d.spec_args is None and not params:
                raise error(f"explicit specialization of '{d.name}' needs template arguments", d.loc)
            if isinstance(d, (ast.FuncDecl, ast.StructDecl)):
                d.template_params = params
                d.template_values = values
                d.template_defaults = defaults
                if isinstance(d, ast.FuncDecl) and d.owner is None:     # (S::f's is S's member template)
                    self.template_funcs.add(self.qualified(d.name))     # renamed so by namespace()
            else:
                raise error("only functions and structs can be templates", d.loc)
        return decls

    def alias_template(self, params: list[str], values: dict[str, ast.TypeRef],
                       defaults: dict[str, ast.TypeRef | ast.Expr]) -> list[ast.Node]:
        """`template<typename T> using Vec3 = vector<T, 3>;`: remembered here, and each use `Vec3<int>` is read as
        the aliased type with the arguments put in (type_ref), so sema never sees the alias."""
        self.advance()
        t = self.decl_name("a type alias name")
        self.expect("=", "after the alias name")
        ref = self.type_ref()
        if self.at("["):
            raise error("an alias template of an array type is not supported", self.tok.loc)
        self.expect(";", "after the alias declaration")
        name = self.qualified(t.text)
        if not params or name in self.user_types:
            raise error(f"redefinition of '{t.text}'" if params else "an alias template needs parameters", t.loc)
        self.alias_templates[name] = (params, values, defaults, ref)
        self.user_types.add(name)
        return []

    def expand_alias(self, use: ast.TypeRef) -> ast.TypeRef:
        """The type an alias template's use `A<args>` stands for."""
        params, values, defaults, target = self.alias_templates[use.name]
        args = [*use.args, *(defaults[p] for p in params[len(use.args):] if p in defaults)]
        if len(args) != len(params) or len(use.args) > len(params):
            raise error(f"'{use.name}' takes {len(params)} template argument{'s' if len(params) != 1 else ''}",
                        use.loc)
        for p, a in zip(params, args):
            if (p in values) != (not isinstance(a, ast.TypeRef)):
                kind = "an expression" if p in values else "a type"
                raise error(f"template argument for '{p}' of '{use.name}' must be {kind}", a.loc)
        bound = dict(zip(params, args))

        def put(r: ast.TypeRef) -> ast.TypeRef:
            got = bound.get(r.name)
            if isinstance(got, ast.TypeRef) and not r.args:
                return got
            return ast.TypeRef(r.loc, r.name, [put(a) if isinstance(a, ast.TypeRef) else
                                               bound.get(a.name, a) if isinstance(a, ast.Name) else a
                                               for a in r.args], r.pack, r.major, r.norm, r.hint)
        return put(target)

    def template_parameters(self) -> tuple[list[str], dict[str, ast.TypeRef], dict[str, ast.TypeRef | ast.Expr],
                                           list[str]]:
        """`template<...>`: the parameters, the non-type ones' types, the defaults, and the type parameters
        made type names here (the caller removes them after the declaration)."""
        self.advance()
        self.expect("<", "after 'template'")
        params: list[str] = []
        values: dict[str, ast.TypeRef] = {}
        defaults: dict[str, ast.TypeRef | ast.Expr] = {}
        added: list[str] = []           # type parameters are type names from here (`typename U = T`)
        while not self.at(">"):         # `template<>`: an explicit specialisation
            if self.accept("typename") or self.accept("class"):
                params.append(self.ident("a template parameter name").text)
                if params[-1] not in self.user_types:
                    added.append(params[-1])
                    self.user_types.add(params[-1])
            elif self.tok.kind is TokKind.IDENT and self.is_type_name(self.tok.text):
                vt = self.type_ref()            # a non-type parameter: `uint N`
                name = self.ident("a template parameter name").text
                params.append(name)
                values[name] = vt
            else:
                self.fail("expected 'typename' or an integer type for a template parameter")
            if params[-1] in params[:-1]:
                raise error(f"declaration of '{params[-1]}' shadows template parameter", self.toks[self.pos - 1].loc)
            if self.accept("="):
                defaults[params[-1]] = self.template_arg()
            elif defaults:
                raise error(f"template parameter '{params[-1]}' is missing a default argument (an earlier one has "
                            "one)", self.toks[self.pos - 1].loc)
            if not self.accept(","):
                break
        self.close_angle()
        return params, values, defaults, added

    def member_template(self, sd: ast.StructDecl, attrs, quals: set[str], templated: bool) -> None:
        """`template<typename T> T get() {...}` in a struct: a member function template (its instances are
        made by the calls, sema/templates.py)."""
        loc = self.tok.loc
        params, values, defaults, added = self.template_parameters()
        try:
            if not params:
                raise error("explicit specialization of a member function template is not supported", loc)
            quals |= self.qualifiers()
            ret = self.type_ref()
            quals |= self.trailing_qualifiers()
            fname = self.decl_name("a member function name")
            if not self.at("(") or "static" in quals and (templated or self.depth > 0):
                raise error("only non-static member functions can be member templates", fname.loc)
            fn = self.function(ret, fname, attrs, quals)
        finally:
            self.user_types.difference_update(added)
        fn.template_params, fn.template_values, fn.template_defaults = params, values, defaults
        if "static" in quals:       # `S::read<float>(...)`: a function template named S::read, as static members
            fn.name = f"{sd.name}::{fn.name}"
            self.template_funcs.add(fn.name)
            self.hoisted.append(fn)
            return
        sd.methods.append(fn)
        self.template_funcs.add(self.qualified(fn.name))     # `conv<float>()` in a later method: S::conv

    def declaration(self, attrs: list[ast.Attribute], top_level: bool) -> list[ast.Node]:
        """[qualifiers] type declarator (, declarator)* ;  or a function definition."""
        start = self.tok.loc
        quals = self.qualifiers()
        out: list[ast.Node] = []
        if (self.at("struct") or self.at("class")) and self.peek().kind is TokKind.IDENT and self.peek(2).is_punct(";"):
            self.advance()              # `struct S;` declares S, defined later (as in DXC)
            t = self.advance()
            self.user_types.add(self.qualified(t.text))
            self.advance()
            if self.template_head:      # a struct template declared only: its specialisations may follow
                out.append(ast.StructDecl(t.loc, self.qualified(t.text), [], [], None, namespaces=tuple(self.ns),
                                          attributes=[ast.Attribute(t.loc, ast.DECLARED_ONLY)]))
            return out
        effect = self.at_effect_object()
        if top_level and self.at("interface") and self.peek().kind is TokKind.IDENT and (
                self.peek(2).is_punct("{") or self.peek(2).is_punct(":")):
            sd = self.struct_decl()     # DXC's `interface I { float f(); };`: a struct of method declarations
            if sd.base is not None:
                raise error("interfaces cannot inherit from other types", sd.base.loc)
            if sd.fields or any(m.body is not None for m in sd.methods):
                raise error("an interface declares methods only, without bodies", sd.loc)
            sd.methods = []             # (pure: a class deriving from it defines them; nothing calls them here)
            self.expect(";", "after interface")
            return [sd]
        if (self.at("struct") or self.at("class")) and not self.at_struct_specifier():
            sd = self.struct_decl()
            out.append(sd)
            if self.accept(";"):
                return out
            if self.tok.kind is not TokKind.IDENT:
                end = self.toks[self.pos - 1].loc      # the closing brace
                raise error("expected ';' after struct", SourceLoc(end.file, end.line, end.col + 1))
            type_ref = ast.TypeRef(sd.loc, sd.name)
        elif effect:          # parsed, then dropped with the whole declaration
            t = self.advance()
            self.warn("effect object" + _EFFECTS, t.loc)
            type_ref = ast.TypeRef(t.loc, t.text)
        else:
            type_ref = self.declared_type()
        quals |= self.trailing_qualifiers()
        if self.at(";") and not effect:         # `float;`: clang's warning (an extension), nothing declared
            self.warn("declaration does not declare anything", start)
            self.advance()
            return out
        name_tok = self.decl_name("a name for the declaration")
        owner = self.scoped(name_tok.text, self.user_types) if self.at("::") and top_level else None
        if owner is not None and owner in self.user_types and self.peek().kind is TokKind.IDENT:
            self.advance()          # `int S::Get() { ... }` defines a method declared in S
            name_tok = self.ident("a member name")
            if not self.at("("):
                return self.static_member_definition(owner, type_ref, name_tok)
            self.ns.append(owner + "::")
            try:
                fn = self.function(type_ref, name_tok, attrs, quals)
            finally:
                self.ns.pop()
            if f"{owner}::{fn.name}" in self.static_funcs:
                fn.name = f"{owner}::{fn.name}"     # a static member function: the global S::f
            else:
                fn.owner = owner
            return [fn]
        spec_args = self.specialisation_args()
        if spec_args is not None and self.at("::") and name_tok.text in self.template_structs \
                and self.peek().kind is TokKind.IDENT and self.peek(2).is_punct("(") and self.template_stack:
            self.advance()          # `template<typename T> T Box<T>::get() {...}`
            return self.template_method_definition(type_ref, name_tok, spec_args, self.advance())
        if top_level and self.at("<") and name_tok.text in self.template_structs:
            return self.template_static_definition(type_ref, name_tok)
        if self.at("(") and top_level and not effect:
            self.names_function(name_tok.text)
            fn = self.function(type_ref, name_tok, attrs, quals)
            fn.spec_args = spec_args
            out.append(fn)
            return out
        while True:
            d = self.declarator(type_ref, name_tok, attrs, quals, effect)
            if not effect:
                out.append(d)
            if not self.accept(","):
                break
            name_tok = self.decl_name("a name for the declaration")
        self.expect(";", "after declaration")
        return out

    def specialisation_args(self) -> list[ast.TypeRef | ast.Expr] | None:
        """The `<args>` after the name a `template<...>` declaration declares (`S<int>`, `f<float>`); None
        elsewhere, or without them."""
        if not self.template_head:
            return None
        self.template_head = False
        if not self.at("<"):
            return None
        self.advance()
        args = [self.template_arg()]
        while self.accept(","):
            args.append(self.template_arg())
        self.close_angle()
        return args

    def template_static_definition(self, type_ref: ast.TypeRef, name_tok: Token) -> list[ast.Node]:
        """`const float W<2>::w = 7;`: the static member of the explicit specialisation `W<2>` (DXC defines
        template statics only through an explicit specialisation)."""
        self.advance()
        args = [self.template_arg()]
        while self.accept(","):
            args.append(self.template_arg())
        self.close_angle()
        self.expect("::", "after the template arguments")
        member = self.ident("a static member name")
        key = [_arg_key(a) for a in args]
        spec = next((sd for sd in self.template_structs[name_tok.text]
                     if sd.spec_args is not None and [_arg_key(a) for a in sd.spec_args] == key and None not in key),
                    None)
        if spec is None:
            raise error(f"no explicit specialization of '{name_tok.text}' for these template arguments declares "
                        f"static member '{member.text}'", member.loc)
        owner = spec.name
        d = next((v for v in spec.statics if v.name == member.text), None)
        if d is None:
            raise error(f"no static data member named '{member.text}' in '{owner}'", member.loc)
        return self.complete_static(d, f"{owner}<...>::{member.text}", type_ref, member)

    def template_method_definition(self, type_ref: ast.TypeRef, name_tok: Token, args: list, member: Token) -> list[ast.Node]:
        """`template<typename T> T Box<T>::get() {...}`: the body of a method declared in the struct template Box
        (the declaration takes the definition's parameters and body; every instance compiles it)."""
        params = self.template_stack[-1][0]
        sd = next((d for d in self.template_structs[name_tok.text] if d.spec_args is None), None)
        written = [a.name if isinstance(a, ast.Name) or isinstance(a, ast.TypeRef) and not a.args else None
                   for a in args]
        if sd is None or written != params:
            raise error(f"an out-of-line method definition of '{name_tok.text}' must name it with its own template "
                        "parameters", name_tok.loc)
        if (sd.template_params or []) != params:
            raise error("an out-of-line method definition must use the struct template's parameter names "
                        f"({', '.join(sd.template_params or [])})", name_tok.loc)
        self.ns.append(sd.name + "::")
        try:
            fn = self.function(type_ref, member, [], set())
        finally:
            self.ns.pop()
        decl = next((m for m in sd.methods if m.name == fn.name and m.body is None and not m.template_params
                     and len(m.params) == len(fn.params)), None)
        if decl is None or fn.body is None:
            raise error(f"out-of-line definition of '{fn.name}' does not match any declaration in '{sd.name}'",
                        member.loc)
        decl.params, decl.body = fn.params, fn.body
        return []

    def static_member_definition(self, owner: str, type_ref: ast.TypeRef, name_tok: Token) -> list[ast.Node]:
        """`float S::x = 2;` gives the static member `static float x;` of S its initializer (DXC allows
        `static` on it too); the declaration stays where S put it."""
        d = self.static_data.get(f"{owner}::{name_tok.text}")
        if d is None:
            raise error(f"no static data member named '{name_tok.text}' in '{owner}'", name_tok.loc)
        return self.complete_static(d, f"{owner}::{name_tok.text}", type_ref, name_tok)

    def complete_static(self, d: ast.VarDecl, what: str, type_ref: ast.TypeRef, name_tok: Token) -> list[ast.Node]:
        """The rest of an out-of-class static member definition: `[dims] [= init];` completes declaration d."""
        dims = self.dims()
        typedef = {type_ref.name, d.type.name} & self.user_types     # (a typedef may name the same type)
        if type_ref.name != d.type.name and not typedef or len(dims) != len(d.dims):
            raise error(f"the definition of '{what}' does not match its declaration", name_tok.loc)
        if self.accept("="):
            if d.init is not None:
                raise error(f"redefinition of '{what}'", name_tok.loc)
            d.init = self.initializer()
            d.dims = [n if n is not None else m for n, m in zip(d.dims, dims)]
        self.expect(";", "after declaration")
        return []

    def type_ref(self) -> ast.TypeRef:
        t = self.tok
        if t.kind is not TokKind.IDENT:
            self.fail("expected a type")
        if t.text in ("struct", "class") and self.peek().kind is TokKind.IDENT:
            self.advance()            # `struct X` as a type specifier: X must name a declared struct
            t = self.tok
            n, written = 1, t.text      # (`struct N::X`: qualified)
            while self.peek(n).is_punct("::") and self.peek(n + 1).kind is TokKind.IDENT:
                written += "::" + self.peek(n + 1).text
                n += 2
            if self.scoped(written, self.user_types) not in self.user_types:
                raise error(f"unknown type name '{written}'", t.loc)
        if t.text in RESERVED_KEYWORDS:
            raise error(f"'{t.text}' is a reserved keyword in HLSL", t.loc)
        if t.text == "unsigned":
            import re  # here: `re` (with enum, functools, collections) costs a cold compile ~20 M instructions

            self.advance()
            m = re.match(_UNSIGNED_RE, self.tok.text) if self.tok.kind is TokKind.IDENT else None
            if m:
                self.advance()
            name = _UNSIGNED_OF[m.group(1)] + m.group(2) if m else "uint"
            return ast.TypeRef(t.loc, name, pack=self.pack[self.pos - 1] if self.pack else None)
        name = self.scoped(t.text, self.user_types) if self.ns or self.used else t.text
        if not self.is_type_name(name):
            # allow scoped enum / qualified names
            if self.peek().is_punct("::"):
                pass
            elif self.peek().kind is TokKind.IDENT:
                # `flaot x`: a declaration of an unknown type; sema reports it, so the rest is still checked
                self.advance()
                return ast.TypeRef(t.loc, name, hint=self.similar_type(name))
            else:
                self.fail("expected a type")
        self.advance()
        while self.at("::"):
            self.advance()
            name += "::" + self.ident().text
        name = self.scoped(name, self.user_types)      # Inner::T inside a namespace holding Inner
        ref = ast.TypeRef(t.loc, name, pack=self.pack[self.pos - 1] if self.pack else None)
        if self.at("<") and (name in TEMPLATE_TYPES or name in self.user_types):
            open_at = self.pos - 1
            self.advance()
            if not self.at(">"):
                ref.args.append(self.template_arg())
                while self.accept(","):
                    ref.args.append(self.template_arg())
            self.close_angle()
            nested = f"{name}::{self.peek().text}"
            if self.at("::") and nested in self.nested_templates:
                self.advance()          # `Grid<float>::Cell`: the struct Cell of Grid<float>, as Grid::Cell<float>
                self.advance()
                ref.name = nested
            elif self.at("::") and nested in self.user_types and self.peek(2).kind is TokKind.IDENT:
                self.advance()          # `Modes<float>::E m`: an enum of the template, one for every instance
                self.advance()
                ref = ast.TypeRef(ref.loc, nested, pack=ref.pack)
            elif self.at("::") and self.peek().kind is TokKind.IDENT and self.peek(2).kind is TokKind.IDENT:
                written = "".join(x.text + " " * (x.text == ",") for x in self.toks[open_at:self.pos])
                raise error(f"no type named '{self.peek().text}' in '{written}'", self.peek().loc)
        if ref.name in self.nested_templates:
            ref = self.nested_args(ref)
        return self.expand_alias(ref) if ref.name in self.alias_templates else ref

    def nested_args(self, ref: ast.TypeRef) -> ast.TypeRef:
        """`Inner` written inside Box<T>, for a struct defined there: Box::Inner<T> (the outer's parameters)."""
        if ref.name in self.nested_templates and not ref.args:
            params, values = self.nested_templates[ref.name]
            ref.args = [ast.Name(ref.loc, p) if p in values else ast.TypeRef(ref.loc, p) for p in params]
        return ref

    def template_arg(self) -> ast.TypeRef | ast.Expr:
        if self.tok.kind is TokKind.IDENT and self.tok.text in ("snorm", "unorm"):
            # `RWTexture2D<unorm float4>`: the view's format converts; the shader reads and writes floats
            norm = self.advance()
            if self.tok.text in ("snorm", "unorm"):
                raise error("'unorm' and 'snorm' attributes are not compatible", self.tok.loc)
            ref = self.type_ref()
            if ref.name in NUMERIC_TYPE_NAMES and _element_type_name(ref.name) not in (
                    "float", "half", "min16float", "min10float", "float16_t", "float32_t", "float64_t", "double"):
                raise error("snorm and unorm qualifier can only be used on floating-point types", norm.loc)
            ref.norm = norm.text
            return ref
        if self.tok.kind is TokKind.IDENT and self.tok.text in ("row_major", "column_major"):
            quals = self.qualifiers()
            if quals != {"row_major"} and quals != {"column_major"}:
                raise error("'row_major' and 'column_major' attributes are not compatible",
                            self.toks[self.pos - 1].loc)
            ref = self.type_ref()
            ref.major = next(iter(quals))
            return ref
        if self.tok.kind is TokKind.IDENT and (self.is_type_name(self.tok.text) or self.at_struct_specifier()):
            return self.type_ref()
        # a constant expression up to the closing '>' (C++: the first '>' outside parentheses ends
        # it), so `RayQuery<RAY_FLAG_A | RAY_FLAG_B>` reads the whole flag expression
        saved, self.in_template_arg = self.in_template_arg, True
        try:
            return self.conditional()
        finally:
            self.in_template_arg = saved

    def close_angle(self) -> None:
        if self.at(">>"):
            # split '>>' into two '>' tokens
            t = self.tok
            second = Token(TokKind.PUNCT, ">", SourceLoc(t.loc.file, t.loc.line, t.loc.col + 1), None, False, False)
            self.toks[self.pos] = Token(TokKind.PUNCT, ">", t.loc, None, False, False)
            self.toks.insert(self.pos + 1, second)
            if self.pack:
                self.pack.insert(self.pos + 1, self.pack[self.pos])
        self.expect(">", "to close the template argument list")

    def dims(self) -> list[ast.Expr | None]:
        dims: list[ast.Expr | None] = []
        while self.accept("["):
            if self.accept("]"):
                dims.append(None)
                continue
            dims.append(self.expression())
            self.expect("]")
        return dims

    def semantics(self, decl: ast.VarDecl | ast.FuncDecl) -> None:
        while self.accept(":"):
            t = self.ident("a semantic, register or packoffset")
            if t.text == "register":
                reg = self.register_spec(t)
                if isinstance(decl, ast.VarDecl):
                    _check_register_conflict(decl.registers, reg)
                    decl.register = self.take_register(decl.register, reg)
                    if reg.profile is None or self.stage is None or _PROFILE_STAGES[reg.profile] == self.stage:
                        decl.registers.append(reg)
            elif t.text == "packoffset":
                reg = self.register_spec(t, "packoffset")
                if isinstance(decl, ast.VarDecl):
                    if decl.packoffset is not None:     # the last one is used, as DXC does
                        self.warn("packoffset is overridden by another packoffset annotation", t.loc)
                    decl.packoffset = reg
            elif t.text in ("read", "write") and self.at("(") and isinstance(decl, ast.VarDecl):
                self.payload_access(decl, t)
            elif decl.semantic is not None:     # DXC's code generators read the first one
                self.warn(f"semantic '{t.text}' is ignored: '{decl.semantic}' was given first", t.loc)
            else:
                decl.semantic = t.text

    def payload_access(self, decl: ast.VarDecl, kw: Token) -> None:
        """A [raypayload] field's `read(stage, ...)` / `write(stage, ...)` qualifier (sema checks the names)."""
        self.expect("(")
        stages = [] if self.at(")") else [self.ident("a shader stage").text]
        while self.accept(","):
            stages.append(self.ident("a shader stage").text)
        self.expect(")")
        access = decl.payload_access if decl.payload_access is not None else {}
        if kw.text in access:
            raise error(f"'{kw.text}' is given twice for payload field '{decl.name}'", kw.loc)
        access[kw.text] = tuple(stages)
        decl.payload_access = access

    def take_register(self, current: ast.Register | None, new: ast.Register) -> ast.Register | None:
        """Of several `register(...)` clauses, one qualified with the compiled stage's profile
        (`register(ps, b1)`, `register(ps_5_0, b1)`) wins; one for another stage is ignored."""
        if new.profile is not None:
            return new if self.stage is None or _PROFILE_STAGES[new.profile] == self.stage else current
        return current if current is not None and current.profile is not None else new

    def register_spec(self, kw: Token, kind: str = "register") -> ast.Register:
        self.expect("(")
        first = self.ident("a register such as u0")
        profile = None
        stage = _profile_stage(first.text)
        if kind == "register" and stage and self.at(","):
            profile = stage
            self.advance()
            first = self.ident("a register such as u0")
        text = first.text
        if kind == "register" and text.startswith("space"):
            self.fail("expected a register such as u0", first)
        letter, digits = text[:1], text[1:]      # [a-zA-Z][0-9]*
        if not (letter.isascii() and letter.isalpha() and (digits.isdecimal() or not digits)):
            raise error(f"invalid register '{text}'", first.loc)
        number = int(digits) if digits else 0
        _check_register_range(number, "register", first)
        reg = ast.Register(kw.loc, letter.lower(), number, None, kind, profile=profile)
        if kind == "register" and self.at("["):
            reg.subcomponent = self.register_subcomponent(f"{letter}{number}")
        if kind == "packoffset" and self.accept("."):
            reg.component = self.ident("a component").text
        if kind == "register" and self.accept(","):
            sp = self.ident("a register space such as space1")
            if not (sp.text.startswith("space") and sp.text[5:].isdecimal()):
                raise error(f"invalid register space '{sp.text}'", sp.loc)
            reg.space = int(sp.text[5:])
            _check_register_range(reg.space, "register space", sp)
        self.expect(")")
        return reg

    def register_subcomponent(self, register: str) -> int:
        """`register(c1[2])`: DXC's parser takes a constant subcomponent, which its code generators then ignore
        (the register is c1, for a $Globals member byte 16), so a warning says so.  Only a literal is taken
        here (DXC folds any constant expression: a difference)."""
        open_tok = self.advance()
        e = self.conditional()
        self.expect("]")
        value = e.value if isinstance(e, (ast.IntLit, ast.FloatLit)) else None
        if value is None or value < 0 or value != value or value == float("inf"):
            raise error("register subcomponent is not an integral constant", e.loc)     # DXC's words
        n = int(value)      # a float truncated toward zero, as DXC
        self.warn(f"register subcomponent [{n}] is ignored: the register is {register} (as DXC)", open_tok.loc)
        return n

    def declarator(self, type_ref: ast.TypeRef, name_tok: Token, attrs, quals, effect: bool = False,
                   field: bool = False) -> ast.VarDecl:
        """name[dims] semantics, then the effects syntax DXC ignores (`< annotations >`, a `{ state block }`,
        `= sampler_state {...}`) or `= initializer`; `effect`: an effects object, whose value is not HLSL;
        `field`: a struct member, which may be a bit-field (`uint lo : 4`)."""
        for a in attrs:
            if a.name in FUNCTION_ONLY:
                raise error("attribute is valid only on functions", a.loc)
        d = ast.VarDecl(name_tok.loc, name_tok.text, type_ref, self.dims(), None, frozenset(quals), attributes=attrs,
                        namespaces=tuple(self.ns) if self.depth == 0 else ())
        self.names_value(name_tok.text)     # (before its initializer, as in C++)
        if field and self.at(":") and self.peek().kind is TokKind.INT:
            self.advance()
            d.bitfield = self.conditional()
        self.semantics(d)
        self.maybe_annotations()
        if self.at("{"):
            self.warn("effect state block" + _EFFECTS + ". To use braces as an initializer use them with equal signs.",
                      self.tok.loc)
            self.state_block()
        elif self.at("="):
            if field and not {"static", "const"} <= set(quals):     # DXC allows `static const` members only
                raise error("struct/class members cannot have default values", self.tok.loc)
            self.advance()
            if self.at("sampler_state"):
                self.warn("effect sampler_state assignment" + _EFFECTS, self.advance().loc)
                self.state_block()
            elif effect:
                self.effect_value()
            else:
                d.init = self.initializer()
                if isinstance(d.init, ast.Comma):       # `float2 v = (1, 2);` is 2, not float2(1, 2)
                    self.warn("comma expression used where a constructor list may have been intended", d.init.loc)
        return d

    # ------------------------------------------------------------ effects (FX) syntax, skipped and dropped
    def maybe_annotations(self) -> None:
        """`< ... >` after a declarator's semantics (DXC's ParseDirectDeclarator: variables, fields, parameters,
        functions and typedefs alike), ignored with DXC's warning."""
        if self.at("<"):
            self.warn("possible effect annotation" + _EFFECTS, self.tok.loc)
            self.annotations()

    def annotations(self) -> None:
        """`< item; item; ... >`, each item skipped to its `;` (brackets balanced), as DXC's parser does: so a `>`
        inside a value is a comparison, and what the items say is not checked (DXC ignores them)."""
        lt = self.expect("<")
        while not self.at(">"):
            self.skip_past(";", lt, "expected '>' to end the annotations opened here")
        self.advance()

    def state_block(self) -> None:
        """`{ ... }` of a variable, sampler_state or pass: skipped to its matching `}`, as DXC does."""
        lb = self.expect("{")
        self.skip_past("}", lb, "expected '}' to close the state block opened here")

    def skip_past(self, end: str, opener: Token, message: str) -> None:
        """Skip to just past the next `end` outside brackets; EOF is `message` at `opener`."""
        stack: list[str] = []
        while True:
            t = self.advance()
            if t.kind is TokKind.EOF:
                raise error(message, opener.loc)
            if t.kind is not TokKind.PUNCT:
                continue
            if not stack and t.text == end:
                return
            if t.text in _OPENERS:
                stack.append(_OPENERS[t.text])
            elif stack and t.text == stack[-1]:
                stack.pop()

    def effect_value(self) -> None:
        """A state's value: `compile ps_5_0 F()`, `<tex>`, `{...}` or an expression (names are not resolved)."""
        if self.accept("compile"):
            self.ident("a shader profile")
            self.unary()
        elif self.at("<"):
            self.advance()
            self.ident("a variable name")
            self.expect(">")
        elif self.at("{"):          # { compile vs_2_0 A(), compile vs_2_0 B() }
            lb = self.advance()
            self.enter(lb.loc)
            while not self.at("}"):
                self.effect_value()
                if not self.accept(","):
                    break
            self.expect("}", "to close the initializer list")
            self.leave()
        else:
            self.assignment()

    def technique(self) -> None:
        """technique[10|11] [name] [< annotations >] { passes }: skipped to the body's matching `}`, as DXC does."""
        kw = self.advance()
        self.warn("effect technique" + _EFFECTS, kw.loc)
        while not self.at("{"):
            if self.tok.kind is TokKind.EOF:
                self.fail("expected '{' to begin the technique body")
            self.advance()
        lb = self.advance()
        self.skip_past("}", lb, "expected '}' to close the technique opened here")

    def similar_type(self, name: str) -> str | None:
        """A type name one swapped or replaced letter away from `name` (keeping a vector suffix), for 'did you mean'."""
        import re  # here: for error messages only

        m = re.match(r"^(.*?)((?:[1-4](?:x[1-4])?)?)$", name)
        base, suffix = (m.group(1), m.group(2)) if m else (name, "")
        for cand in sorted({*SCALAR_TYPE_NAMES, *self.user_types}):
            if len(cand) == len(base) and cand != base and _one_typo(base, cand):
                return cand + suffix if cand in SCALAR_TYPE_NAMES else cand
        return None

    def initializer(self) -> ast.Expr:
        if self.at("{"):
            loc = self.advance().loc
            items: list[ast.Expr] = []
            while not self.at("}"):
                items.append(self.initializer())
                if not self.accept(","):
                    break
            self.expect("}", "to close the initializer list")
            return ast.InitList(loc, items)
        return self.assignment()

    def function(self, ret: ast.TypeRef, name_tok: Token, attrs, quals) -> ast.FuncDecl:
        self.expect("(")
        params: list[ast.VarDecl] = []
        self.hiding.append({})      # the parameters' scope, which the body's block is inside
        try:
            return self.function_rest(ret, name_tok, attrs, quals, params)
        finally:
            self.hiding.pop()

    def function_rest(self, ret: ast.TypeRef, name_tok: Token, attrs, quals, params: list[ast.VarDecl]) -> ast.FuncDecl:
        if not self.at(")") and not (self.at("void") and self.peek().is_punct(")")):
            while True:
                p_attrs = self.attributes()
                spec = next((a for a in p_attrs if a.name == "vk::constant_id"), None)
                if spec is not None:        # DXC: its subject is a global scalar variable, so never a parameter
                    raise error("[[vk::constant_id]] is only allowed on a global variable", spec.loc)
                p_quals = self.qualifiers()
                if self.tok.kind is TokKind.IDENT and self.tok.text in MESH_QUALIFIERS \
                        and self.peek().kind is TokKind.IDENT:
                    p_quals.add(self.advance().text)
                    p_quals |= self.qualifiers()
                p_type = self.declared_type()
                p_quals |= self.trailing_qualifiers()
                if self.tok.kind is TokKind.IDENT:
                    p_name = self.decl_name("a parameter name")
                else:       # an unnamed parameter (`int F(int);`): a name no expression can spell
                    p_name = Token(TokKind.IDENT, f"<unnamed {len(params)}>", self.tok.loc, None, False, False)
                    if not (self.at(",") or self.at(")") or self.at("[") or self.at(":") or self.at("=")):
                        self.fail("expected a parameter name")
                p = ast.VarDecl(p_name.loc, p_name.text, p_type, self.dims(), None, frozenset(p_quals), attributes=p_attrs)
                self.names_value(p_name.text)
                self.semantics(p)
                self.maybe_annotations()
                if self.accept("="):
                    p.init = self.assignment()
                params.append(p)
                if not self.accept(","):
                    break
        elif self.at("void"):
            self.advance()
        self.expect(")", "to close the parameter list")
        fn = ast.FuncDecl(name_tok.loc, name_tok.text, ret, params, None, attributes=attrs, qualifiers=frozenset(quals),
                          namespaces=tuple(self.ns))
        self.semantics(fn)
        self.maybe_annotations()
        if self.accept(";"):
            return fn
        fn.body = self.block()
        return fn

    def struct_decl(self) -> ast.StructDecl:
        kw = self.advance()         # struct or class
        struct_attrs = self.attributes()       # `struct [raypayload] Payload`
        name_tok = self.ident("a struct name") if self.tok.kind is TokKind.IDENT else None
        name = self.qualified(name_tok.text) if name_tok else f"anon.{kw.loc.line}.{kw.loc.col}"
        self.user_types.add(name)
        self.names_type(name)
        templated = self.template_head
        spec_args = self.specialisation_args()
        base = None
        if self.accept(":"):
            base = self.type_ref()
            inherited = base.name + "::"        # the base's member templates, called unqualified in our methods
            self.template_funcs |= {f"{name}::{f[len(inherited):]}" for f in self.template_funcs
                                    if f.startswith(inherited) and "::" not in f[len(inherited):]}
        self.expect("{", "to begin the struct body")
        sd = ast.StructDecl(name_tok.loc if name_tok else kw.loc, name, [], [], base, attributes=struct_attrs, namespaces=tuple(self.ns),
                            spec_args=spec_args)
        if templated:
            self.template_structs.setdefault(name, []).append(sd)
        self.ns.append(name + "::")
        self.hiding.append({})      # members hide types in the methods that follow them
        try:
            self.struct_body(sd, templated)
        finally:
            self.ns.pop()
            self.hiding.pop()
        self.expect("}")
        return sd

    def struct_body(self, sd: ast.StructDecl, templated: bool = False) -> None:
        """`templated`: a struct template or specialisation, whose static data members each instance has."""
        name = sd.name
        statics: list[tuple[ast.FuncDecl, set[str]]] = []      # static member functions, the names their code uses
        while not self.at("}"):
            if self.tok.kind is TokKind.EOF:
                self.fail("expected '}' to end the struct")
            first = self.pos
            attrs = self.attributes()
            start = self.tok.loc
            quals = self.qualifiers()
            if self.at("template") and self.peek().is_punct("<"):
                self.member_template(sd, attrs, quals, templated)
                continue
            if self.tok.text == "static_assert" and self.peek().is_punct("(") and not quals:
                check = self.static_assert()        # checked once the struct (or each instance) is declared
                (sd.asserts if templated else self.hoisted_after).append(check)
                continue
            if self.at("typedef"):        # DXC's DiagnoseHLSLDecl (an alias declaration does not go through it)
                raise error("nested typedefs are not supported in HLSL", self.tok.loc)
            if self.at("using") and self.peek(2).is_punct("="):
                self.member_typedef(sd, templated)
                continue
            if self.at("enum"):                   # a nested enum: S::E, and S::A for its enumerators
                self.hoisted.append(self.enum_decl())
                self.expect(";", "after enum")
                continue
            if (self.at("struct") or self.at("class")) and not self.at_struct_specifier():
                inner = self.struct_decl()        # `struct { ... } member;`: the struct is declared first
                self.hoisted.append(inner)
                outer = self.template_stack[-1] if templated and self.template_stack else None
                if outer is not None and outer[0]:      # in Box<T>: the template Box::Inner<T>
                    inner.template_params, inner.template_values, inner.template_defaults = outer
                    self.template_structs.setdefault(inner.name, []).append(inner)
                    self.nested_templates[inner.name] = (outer[0], outer[1])
                if self.accept(";"):
                    continue
                ftype = self.nested_args(ast.TypeRef(inner.loc, inner.name))
            else:
                ftype = self.type_ref()
            quals |= self.trailing_qualifiers()
            if self.at(":"):        # an unnamed bit-field: `int : 4;` pads, `int : 0;` closes the unit
                colon = self.advance()
                pad = ast.VarDecl(colon.loc, "", ftype, [], None, frozenset(quals), attributes=attrs)
                pad.bitfield = self.conditional()
                sd.fields.append(pad)
                self.expect(";", "after struct field")
                continue
            if self.at(";"):        # `float;`: clang's warning, as at file scope; no member
                self.warn("declaration does not declare anything", start)
                self.advance()
                continue
            fname = self.decl_name("a field name")
            if fname.text == "operator":
                op = self.advance()
                if op.kind is TokKind.PUNCT and op.text in _NOT_OVERLOADABLE:    # DXC: they would need references
                    raise error(f"overloading 'operator{op.text}' is not allowed", op.loc)
                if op.kind is not TokKind.PUNCT or op.text not in BINARY_PREC and op.text not in ("[", "(", "!", "~"):
                    raise error("expected an operator after 'operator'", op.loc)
                if op.text in ("[", "("):
                    self.expect("]" if op.text == "[" else ")")
                fname = Token(TokKind.IDENT, "operator" + op.text + ("]" if op.text == "[" else ")" if op.text == "(" else ""),
                              fname.loc, None, False, False)
            if self.at("("):
                fn = self.function(ftype, fname, attrs, quals)
                if fname.text.startswith("operator"):
                    _check_operator_arity(fn, "static" in quals)
                if "static" in quals and templated:     # one global S<args>::name per instance (sema)
                    sd.static_methods.append(fn)
                elif "static" in quals and self.depth == 0:     # a static member function is a global S::name
                    fn.name = f"{name}::{fn.name}"
                    self.static_funcs.add(fn.name)
                    uses_self = name in (fn.return_type.name, *(p.type.name for p in fn.params))
                    (self.hoisted_after if uses_self else self.hoisted).append(fn)
                    statics.append((fn, {t.text for t in self.toks[first:self.pos] if t.kind is TokKind.IDENT}))
                else:
                    sd.methods.append(fn)
                continue
            if "static" in quals and self.depth > 0:
                raise error(f"static data member '{fname.text}' not allowed in local class '{name}'", fname.loc)
            while True:
                d = self.declarator(ftype, fname, attrs, quals, field=True)
                if "static" in quals and templated:
                    d.namespaces = tuple(self.ns)
                    sd.statics.append(d)
                elif "static" in quals:       # a static member is a global named S::member, declared before S
                    d.name, d.namespaces = f"{name}::{d.name}", tuple(self.ns)   # (after it when of type S)
                    self.static_data[d.name] = d
                    (self.hoisted_after if d.type.name == name else self.hoisted).append(d)
                else:
                    sd.fields.append(d)
                if not self.accept(","):
                    break
                fname = self.decl_name("a field name")
            self.expect(";", "after struct field")
        if len(statics) > 1:
            self.declare_later_statics(name, statics)

    def member_typedef(self, sd: ast.StructDecl, templated: bool) -> None:
        """`using F = float2;` in struct S: the type S::F (F inside S).  In a struct template Box<T>, Box::F is
        an alias template of Box's parameters, so `F` in Box and `Box<int>::F` outside it are read as types.
        (`typedef` there is DXC's error.)"""
        loc = self.tok.loc
        tds = [d for d in self.using() if isinstance(d, ast.TypedefDecl)]
        outer = self.template_stack[-1] if templated and self.template_stack else None
        if outer is None or not outer[0]:
            if templated:
                raise error("a type alias in a struct template specialization is not supported", loc)
            self.hoisted.extend(tds)
            return
        for td in tds:
            if td.dims:
                raise error("a type alias of an array type in a struct template is not supported", td.loc)
            self.alias_templates[td.name] = (outer[0], outer[1], outer[2], td.type)
            self.nested_templates[td.name] = (outer[0], outer[1])

    def declare_later_statics(self, name: str, statics: list[tuple[ast.FuncDecl, set[str]]]) -> None:
        """A static member function calling one declared after it in the struct (legal C++: the class is
        complete in its bodies): a declaration of the later one goes before the first caller.  Only then, so
        the order of every other program's functions stays as written."""
        for lst in (self.hoisted, self.hoisted_after):
            ours = [(fn, used) for fn, used in statics if any(x is fn for x in lst)]
            for i, (fn, used) in enumerate(ours):
                for later, _ in ours[i + 1:]:
                    short = later.name[len(name) + 2:]
                    if short not in used or any(isinstance(x, ast.FuncDecl) and x.body is None and x.name == later.name
                                                for x in lst):
                        continue
                    import copy  # here: only this rare case needs it (cold start, issue 23)

                    proto = copy.copy(later)
                    proto.body = None
                    proto.params = [copy.copy(p) for p in later.params]
                    for p in proto.params:
                        p.init = None       # (default arguments stay on the definition)
                    lst.insert(next(k for k, x in enumerate(lst) if x is fn), proto)

    def cbuffer(self, attrs) -> ast.CBufferDecl:
        kw = self.advance()
        name = self.ident("a cbuffer name")
        cb = ast.CBufferDecl(kw.loc, name.text, kw.text, [], None, attrs)
        given: list[ast.Register] = []
        while self.accept(":"):
            t = self.ident("register")
            if t.text != "register":
                raise error("expected 'register' after ':' in a cbuffer declaration", t.loc)
            reg = self.register_spec(t)
            _check_register_conflict(given, reg)
            given.append(reg)
            cb.register = self.take_register(cb.register, reg)
        self.expect("{", "to begin the cbuffer body")
        while not self.at("}"):
            if self.tok.kind is TokKind.EOF:
                self.fail("expected '}' to end the cbuffer")
            for d in self.item(lambda: self.declaration(self.attributes(), top_level=False)) or ():
                if isinstance(d, ast.VarDecl):
                    cb.members.append(d)
                else:
                    self.hoisted.append(d)      # a struct defined in the cbuffer is a global type
        self.expect("}")
        self.accept(";")
        return cb

    def typedef(self) -> list[ast.TypedefDecl]:
        """typedef [qualifiers] type name[dims] [< annotations >] (, name[dims])* ;"""
        kw = self.advance()      # typedef
        quals = self.qualifiers()
        if (self.at("struct") or self.at("class")) and not self.at_struct_specifier():
            sd = self.struct_decl()
            t = ast.TypeRef(sd.loc, sd.name)
            self.hoisted.append(sd)
        else:
            t = self.type_ref()
        quals |= self.trailing_qualifiers()
        out: list[ast.TypedefDecl] = []
        if self.at(";"):        # `typedef struct { ... };`: clang's warning (an extension); the struct stays
            self.warn("typedef requires a name", kw.loc)
            self.advance()
            return out
        while True:
            name_tok = self.ident("a typedef name")
            name = self.qualified(name_tok.text)
            out.append(ast.TypedefDecl(name_tok.loc, name, t, self.dims(), frozenset(quals)))   # at its name
            self.user_types.add(name)
            self.typedef_names.add(name)
            self.names_type(name)
            self.maybe_annotations()
            if not self.accept(","):
                break
        self.expect(";", "after typedef")
        return out

    def enum_decl(self) -> ast.EnumDecl:
        kw = self.expect("enum")
        scoped = self.accept("class") or self.accept("struct")
        name = self.qualified(self.ident("an enum name").text) if self.tok.kind is TokKind.IDENT else None
        underlying = None
        if self.accept(":"):
            underlying = self.type_ref()
        if name:
            self.user_types.add(name)
        self.expect("{", "to begin the enum body")
        members = []
        while not self.at("}"):
            m = self.ident("an enumerator")
            value = self.assignment() if self.accept("=") else None
            members.append((m.text if scoped else self.qualified(m.text), value, m.loc))
            if not self.accept(","):
                break
        self.expect("}")
        return ast.EnumDecl(kw.loc, name, scoped, underlying, members)

    # -------------------------------------------------------------- statements
    def block(self) -> ast.Block:
        lb = self.expect("{")
        self.enter(lb.loc)
        used = len(self.used)
        stmts: list[ast.Stmt] = []
        self.hiding.append({})
        try:
            while not self.at("}"):
                if self.tok.kind is TokKind.EOF:
                    raise error("expected '}' to close the block opened here", lb.loc)
                st = self.item(self.statement)
                if st is not None:
                    stmts.append(st)
        finally:
            self.hiding.pop()
        self.advance()
        del self.used[used:]      # a directive in a block ends with it
        self.leave()
        return ast.Block(lb.loc, stmts)

    def after_angles(self, n: int) -> Token:
        """The token after the template argument list that opens at peek(n) (`<`), by bracket depth."""
        return self.peek(self.angles_end(n))

    def angles_end(self, n: int) -> int:
        """after_angles's offset (that of EOF when the list does not close)."""
        depth = 0
        while True:
            t = self.peek(n)
            if t.kind is TokKind.EOF:
                return n
            depth += {"<": 1, ">": -1, ">>": -2}.get(t.text, 0) if t.kind is TokKind.PUNCT else 0
            n += 1
            if depth <= 0:
                return n

    def qualified_type_ahead(self) -> bool:
        """`N::Twice<float>(...)`, `N::S(...)`: a qualified type name, then its arguments or a constructor's."""
        n, name = 1, self.tok.text
        while self.peek(n).is_punct("::") and self.peek(n + 1).kind is TokKind.IDENT:
            name += "::" + self.peek(n + 1).text
            n += 2
        return self.scoped(name, self.user_types) in self.user_types and self.peek(n).is_punct("<")

    def starts_declaration(self) -> bool:
        t = self.tok
        if t.kind is not TokKind.IDENT:
            return False
        if (t.text in QUALIFIERS and not self.at_keyword_name()) or t.text in ("struct", "class", "typedef", "enum") \
                or self.at_effect_object() or (t.text == "using" and self.peek().kind is TokKind.IDENT):
            return True
        if not self.is_type_name(t.text):
            if self.peek().is_punct("::"):      # NS::S x, NS::Inner::T<...> x
                n, name = 1, t.text
                while self.peek(n).is_punct("::") and self.peek(n + 1).kind is TokKind.IDENT:
                    name += "::" + self.peek(n + 1).text
                    n += 2
                nxt = self.peek(n)
                return self.scoped(name, self.user_types) in self.user_types and (
                    nxt.kind is TokKind.IDENT or nxt.is_punct("<"))
            # `flaot x`: two names in a row start no expression, so this is a declaration of an unknown type
            return self.peek().kind is TokKind.IDENT
        if self.is_type_name(t.text):
            # `float4(…)` is a constructor expression; `float4 x` a declaration
            nxt = self.peek()
            if nxt.is_punct("<"):
                if t.text not in self.template_structs:
                    return True
                n = self.angles_end(1)      # S<int>::x is an expression; Grid<float>::Cell c a declaration
                return not self.peek(n).is_punct("::") or self.peek(n + 2).kind is TokKind.IDENT
            if nxt.is_punct("::"):
                return self.peek(2).kind is TokKind.IDENT and self.peek(3).kind is TokKind.IDENT
            return nxt.kind is TokKind.IDENT or nxt.is_punct(";")       # `float;` declares nothing (a warning)
        return False

    def statement(self) -> ast.Stmt:
        attrs = self.attributes() if self.at("[") else []
        t = self.tok
        loc = t.loc
        if t.kind is TokKind.PUNCT:
            if t.text == "{":
                return self.block()
            if t.text == ";":
                self.advance()
                return ast.EmptyStmt(loc)
        if t.kind is TokKind.IDENT:
            kw = t.text
            if kw == "if":
                self.advance()
                self.expect("(")
                cond = self.expression()
                self.condition_warnings(cond)
                cond_end = self.toks[self.pos - 1].loc
                self.expect(")")
                self.enter(loc)
                then = self.statement()
                else_tok = self.tok
                else_ = self.statement() if self.accept("else") else None
                self.leave()
                node = ast.IfStmt(loc, cond, then, else_, attrs)
                if else_ is not None:
                    self.else_locs[id(node)] = else_tok.loc
                else:
                    self.if_warnings(cond_end, then)
                return node
            if kw == "for":
                self.advance()
                self.expect("(")
                init: ast.Stmt | None = None
                if not self.at(";") and self.starts_declaration():
                    init = self.decl_statement()
                if init is None:
                    if not self.at(";"):
                        init = ast.ExprStmt(self.tok.loc, self.expression())
                    self.expect(";")
                for_cond = None if self.at(";") else self.expression()
                self.condition_warnings(for_cond)
                self.expect(";")
                step = None if self.at(")") else self.expression()
                self.expect(")")
                self.enter(loc)
                body = self.statement()
                self.leave()
                return ast.ForStmt(loc, init, for_cond, step, body, attrs)
            if kw == "while":
                self.advance()
                self.expect("(")
                cond = self.expression()
                self.condition_warnings(cond)
                self.expect(")")
                self.enter(loc)
                body = self.statement()
                self.leave()
                return ast.WhileStmt(loc, cond, body, attrs)
            if kw == "do":
                self.advance()
                self.enter(loc)
                body = self.statement()
                self.leave()
                self.expect("while")
                self.expect("(")
                cond = self.expression()
                self.condition_warnings(cond)
                self.expect(")")
                self.expect(";")
                return ast.DoStmt(loc, body, cond, attrs)
            if kw == "switch":
                return self.switch(attrs)
            if kw == "break":
                self.advance()
                self.expect(";")
                return ast.BreakStmt(loc)
            if kw == "continue":
                self.advance()
                self.expect(";")
                return ast.ContinueStmt(loc)
            if kw == "discard":
                self.advance()
                self.expect(";")
                return ast.DiscardStmt(loc)
            if kw == "return":
                self.advance()
                value = None if self.at(";") else self.expression()
                self.expect(";", "after return statement")
                return ast.ReturnStmt(loc, value)
            if kw in ("case", "default"):       # a switch section's labels are read by switch()
                if self.switches:               # clang takes it; its jump into an if or a loop is not structured
                    raise error(f"a '{kw}' label inside an if or a loop of a switch is not "
                                "supported", loc)
                raise error(f"'{kw}' statement not in switch statement", loc)
            if kw == "goto" or self.peek().is_punct(":"):      # as DXC's ParseStmt.cpp: both refused
                raise error(f"{'goto' if kw == 'goto' else 'label'} is unsupported in HLSL", loc)
            if kw == "else":
                raise error("expected expression", loc)
            if kw == "static_assert" and self.peek().is_punct("("):
                return self.decl_statement()
            if self.starts_declaration():
                spec = next((a for a in attrs if a.name == "vk::constant_id"), None)
                if spec is not None:
                    raise error("[[vk::constant_id]] is only allowed on a global variable", spec.loc)
                return self.decl_statement()
        expr = self.expression()
        self.expect(";", "after expression")
        return ast.ExprStmt(loc, expr)

    def decl_statement(self) -> ast.DeclStmt:
        loc = self.tok.loc
        mark = len(self.hoisted), len(self.hoisted_after)
        if self.at("typedef"):
            tds = self.typedef()
            return ast.DeclStmt(loc, self.take_hoisted([*tds], mark))  # type: ignore[arg-type]  # hoisted: structs
        if self.at("using"):
            return ast.DeclStmt(loc, self.using())  # type: ignore[arg-type]  # an alias or a directive
        if self.at("enum"):
            d = self.enum_decl()
            self.expect(";")
            return ast.DeclStmt(loc, [d])
        if self.at("static_assert"):
            return ast.DeclStmt(loc, [self.static_assert()])
        decls = self.declaration([], top_level=False)
        return ast.DeclStmt(loc, self.take_hoisted(decls, mark))  # type: ignore[arg-type]  # no functions below top level

    def switch(self, attrs) -> ast.SwitchStmt:
        loc = self.advance().loc
        self.expect("(")
        sel = self.expression()
        self.expect(")")
        self.expect("{", "to begin the switch body")
        self.enter(loc)
        sections: list[tuple[list[ast.CaseLabel], list[ast.Stmt]]] = []
        self.switches += 1
        try:
            self.switch_items(sections, False)
        finally:
            self.switches -= 1
        self.advance()
        self.leave()
        return ast.SwitchStmt(loc, sel, sections, attrs)

    def switch_items(self, sections: list[tuple[list[ast.CaseLabel], list[ast.Stmt]]], nested: bool) -> None:
        """The statements of a switch body up to its '}', cut into sections at the labels.  A plain block
        holding labels (`case 0: { a(); case 1: b(); }`, legal C++ that DXC's SPIR-V emitter looks for in
        compound statements) is flattened into the sections: entering at `case 1` runs b() alone."""
        while not self.at("}"):
            if self.tok.kind is TokKind.EOF:
                self.fail("expected '}' to end the switch")
            if self.at("case") or self.at("default"):
                labels: list[ast.CaseLabel] = []
                while self.at("case") or self.at("default"):
                    t = self.advance()
                    value = self.conditional() if t.text == "case" else None
                    colon = self.expect(":", "after case label")
                    labels.append(ast.CaseLabel(t.loc, value))
                if self.at("}"):    # `case 1: }` (clang's words, just after the colon); parsing goes on
                    self.errors.append(Diagnostic("error", "label at end of compound statement: expected statement",
                                                  SourceLoc(colon.loc.file, colon.loc.line, colon.loc.col + 1)))
                sections.append((labels, []))
                continue
            if self.at("{") and self.block_has_label():
                lb = self.advance()
                self.enter(lb.loc)
                self.switch_items(sections, True)
                self.advance()
                self.leave()
                continue
            if not sections:        # (clang takes it, never run; `{ case 0: ... }` first is the block above)
                self.fail("expected 'case' or 'default'")
            st = self.item(self.statement)
            if st is None:
                continue
            if nested and isinstance(st, ast.DeclStmt):     # flattening would widen its scope
                raise error("a declaration in a block that holds a case label is not supported", st.loc)
            sections[-1][1].append(st)

    def block_has_label(self) -> bool:
        """Whether the block opening here holds a `case` or `default` label of the enclosing switch: one
        outside any inner switch's parentheses and braces."""
        depth, inner = 0, []        # inner: the brace depths at which an inner switch's body opened
        i = self.pos
        while True:
            t = self.toks[i]
            if t.kind is TokKind.EOF:
                return False
            if t.kind is TokKind.PUNCT and t.text == "{":
                depth += 1
                if i > 0 and self.toks[i - 1].text == ")" and self._opens_switch(i - 1):
                    inner.append(depth)
            elif t.kind is TokKind.PUNCT and t.text == "}":
                if inner and inner[-1] == depth:
                    inner.pop()
                depth -= 1
                if depth == 0:
                    return False
            elif t.text in ("case", "default") and t.kind in _WORD_KINDS and not inner:
                return True
            i += 1

    def _opens_switch(self, close: int) -> bool:
        """Whether the ')' at token `close` ends a `switch (...)` head."""
        level = 0
        for j in range(close, -1, -1):
            t = self.toks[j]
            if t.kind is TokKind.PUNCT and t.text == ")":
                level += 1
            elif t.kind is TokKind.PUNCT and t.text == "(":
                level -= 1
                if level == 0:
                    return j > 0 and self.toks[j - 1].text == "switch"
        return False

    # ------------------------------------------------------------- expressions
    def expression(self) -> ast.Expr:
        e = self.assignment()
        if self.at(","):
            items = [e]
            while self.accept(","):
                items.append(self.assignment())
            return ast.Comma(e.loc, items)
        return e

    def assignment(self) -> ast.Expr:
        lhs = self.conditional()
        t = self.toks[self.pos]
        if t.kind is TokKind.PUNCT and t.text in ASSIGN_OPS:
            self.advance()
            self.enter(t.loc)
            rhs = self.assignment()
            self.leave()
            return ast.Assign(t.loc, t.text, lhs, rhs)
        return lhs

    def conditional(self) -> ast.Expr:
        cond = self.binary(1)
        if self.at("?"):
            q = self.advance()
            self.enter(q.loc)
            a = self.assignment()
            self.expect(":", "in conditional expression")
            b = self.assignment()
            self.leave()
            return ast.Conditional(q.loc, cond, a, b)
        return cond

    def binary(self, min_prec: int) -> ast.Expr:
        lhs = self.unary()
        operators = 0
        while True:
            t = self.toks[self.pos]
            prec = BINARY_PREC.get(t.text) if t.kind is TokKind.PUNCT else None
            if prec is None or prec < min_prec or (self.in_template_arg and t.text in (">", ">>", ">=")):
                return lhs
            operators += 1
            if operators > MAX_CHAIN:      # a left-deep tree this long would exhaust every later pass
                raise error(f"expression has too many operators (limit {MAX_CHAIN})", t.loc)
            self.advance()
            self.enter(t.loc)
            rhs = self.binary(prec + 1)
            self.leave()
            if t.text in _PRECEDENCE_WARNED:
                self.precedence_warnings(t, lhs, rhs)
            lhs = ast.BinaryOp(t.loc, t.text, lhs, rhs)

    def unary(self) -> ast.Expr:
        t = self.toks[self.pos]
        if t.kind is TokKind.PUNCT and t.text in ("-", "+", "!", "~", "++", "--"):
            self.advance()
            self.enter(t.loc)
            operand = self.unary()
            self.leave()
            return ast.UnaryOp(t.loc, t.text, operand)
        if t.is_punct("(") and self.peek().kind is TokKind.IDENT \
                and (self.is_type_name(self.peek().text) and not self.hidden(self.peek().text)
                     or self.peek().text == "struct") and not self.peek(2).is_punct("("):
            # C-style cast: (type[dims]) expr
            self.advance()
            type_ref = self.type_ref()
            dims = self.dims()
            self.expect(")", "to close the cast")
            self.enter(t.loc)
            operand = self.unary()
            self.leave()
            return ast.Cast(t.loc, type_ref, dims, operand)
        return self.postfix(self.primary())

    def postfix(self, e: ast.Expr) -> ast.Expr:
        """Each `.m`, `[i]`, `(args)` and `++` wraps the tree one level deeper, so it counts as nesting."""
        entered = 0
        try:
            while True:
                t = self.toks[self.pos]
                if t.kind is not TokKind.PUNCT or t.text not in (".", "[", "(", "++", "--"):
                    return e
                self.enter(t.loc)
                entered += 1
                e = self.postfix_one(e, t)
        finally:
            self.depth -= entered

    def postfix_one(self, e: ast.Expr, t: Token) -> ast.Expr:
        if t.text == ".":
            self.advance()
            name = self.ident("a member name")
            text = name.text
            if self.at("::") and text in self.user_types and self.peek().kind is TokKind.IDENT:
                self.advance()              # `d.Base::f()`: a base's member named through its struct
                text += "::" + self.ident("a member name").text
            e = ast.Member(name.loc, e, text)
            if self.at("<") and self.peek().kind is TokKind.IDENT and (
                    self.is_type_name(self.peek().text) or self.peek().text in ("row_major", "column_major")):
                self.advance()              # templated method: buf.Load<float4>(addr), Load<row_major float2x2>
                arg = self.template_arg()
                assert isinstance(arg, ast.TypeRef)     # a type name or an orientation starts a type
                e.template = arg
                e.template_dims = self.dims()           # Load<S[2]>: an array type
                while self.accept(","):                 # a member function template's further arguments
                    e.template_rest.append(self.template_arg())
                self.close_angle()
        elif t.text == "[":
            self.advance()
            idx = self.expression()
            self.expect("]")
            e = ast.Index(t.loc, e, idx)
        elif t.text == "(":
            e = ast.CallExpr(e.loc, e, self.call_args())
        else:
            self.advance()
            e = ast.UnaryOp(t.loc, "post" + t.text, e)
        return e

    def call_args(self) -> list[ast.Expr]:
        """The caller counts the call as one nesting level (postfix() or the constructor in primary())."""
        self.expect("(")
        args: list[ast.Expr] = []
        if not self.at(")"):
            args.append(self.assignment())
            while self.accept(","):
                args.append(self.assignment())
        self.expect(")", "to close the argument list")
        return args

    def primary(self) -> ast.Expr:
        t = self.toks[self.pos]
        if t.kind is TokKind.INT:
            self.advance()
            digits = t.text.rstrip("uUlL")
            hexadecimal = digits[:2].lower() == "0x"
            binary = digits[:2].lower() == "0b"         # the lexer made only 0/1 digits one INT token
            if hexadecimal or binary:
                valid = len(digits) > 2 and (_HEX_DIGITS.issuperset(digits[2:]) if hexadecimal else True)
            else:
                valid = bool(digits) and (_OCTAL_DIGITS if digits[0] == "0" else _DECIMAL_DIGITS).issuperset(digits)
            if not valid:
                raise error(f"invalid integer literal '{t.text}'", t.loc)
            if len(digits) > 24:
                raise error("integer literal is too large to be represented in any integer type", t.loc)
            value = int(digits, 16) if hexadecimal else int(digits[2:], 2) if binary else (
                int(digits, 8) if len(digits) > 1 and digits[0] == "0" else int(digits))
            return ast.IntLit(t.loc, value, t.text[len(digits):].lower(),
                              not hexadecimal and not binary and not (len(digits) > 1 and digits[0] == "0"))
        if t.kind is TokKind.FLOAT:
            self.advance()
            # the lexer makes FLOAT tokens only of well-formed literals (its _FLOAT): digits, then a suffix or not
            suffix = t.text[-1] if t.text[-1] in "fFhHlL" else ""
            if t.text.endswith(".") and self.tok.text == "#" and self.peek().text == "INF" \
                    and not self.tok.leading_space and not self.peek().leading_space:
                self.advance()          # `1.#INF`: DXC's legacy spelling of infinity
                self.advance()
                return ast.FloatLit(t.loc, float("inf"), "")
            body = t.text[:len(t.text) - len(suffix)]
            hexadecimal = body[:2] in ("0x", "0X")
            try:
                number = float.fromhex(body) if hexadecimal else float(body)
            except OverflowError:       # float.fromhex('0x1p2000'); float('1e400') is already infinite
                number = float("inf")
            out_of_range = ""
            if number == 0 or number == _INFINITY:      # rare: written finite or nonzero?
                mantissa = body[2:].lower().partition("p")[0] if hexadecimal else body.lower().partition("e")[0]
                out_of_range = "over" if number else "under" if mantissa.strip("0.") else ""
            return ast.FloatLit(t.loc, number, suffix.lower(), out_of_range)
        if t.kind is TokKind.STRING:
            toks = [t]                  # adjacent literals concatenate, as in C
            self.advance()
            while self.tok.kind is TokKind.STRING:
                toks.append(self.tok)
                self.advance()
            return ast.StringLit(t.loc, "".join(x.text[1:-1] for x in toks), toks)
        if t.kind is TokKind.CHAR:
            self.advance()
            value = _char_value(t, self.warn)
            return ast.IntLit(t.loc, value, "u" if value > 0xFF else "")
        if t.kind is TokKind.IDENT:
            if t.text in ("true", "false"):
                self.advance()
                return ast.BoolLit(t.loc, t.text == "true")
            if t.text == "sizeof" and self.peek().is_punct("("):
                self.advance()
                self.expect("(")
                operand: ast.TypeRef | ast.Expr
                dims: list[ast.Expr | None] = []
                if self.tok.kind is TokKind.IDENT and (self.is_type_name(self.tok.text) and not self.hidden(self.tok.text)
                                                       or self.at_struct_specifier()) and not self.peek().is_punct("("):
                    operand = self.type_ref()
                    dims = self.dims()          # sizeof(S[2])
                else:
                    operand = self.expression()
                self.expect(")", "to close 'sizeof'")
                return ast.SizeOf(t.loc, operand, dims)
            if t.text == "sizeof" and self.peek().kind is not TokKind.EOF and not self.peek().is_punct(";"):
                self.advance()              # `sizeof x`, `sizeof v.x`: C's unary form
                return ast.SizeOf(t.loc, self.unary())
            template = self.scoped(t.text, self.template_funcs) if self.ns or self.used else t.text
            if template in self.template_funcs and self.peek().is_punct("<"):
                self.advance()
                self.advance()
                targs = [self.template_arg()]
                while self.accept(","):
                    targs.append(self.template_arg())
                self.close_angle()
                return ast.Name(t.loc, template, targs)
            if template != t.text and not self.peek().is_punct("::"):
                self.advance()              # a function template of an enclosing namespace, called by deduction
                return ast.Name(t.loc, template)
            if (self.is_type_name(t.text) and not self.peek().is_punct("::") and not self.hidden(t.text)
                    or self.peek().is_punct("::") and self.qualified_type_ahead()):
                type_ref = self.type_ref()
                if type_ref.args and self.accept("::"):      # `S<int>::x`: a template instance's static member
                    member = self.ident("a static member name").text
                    while self.at("::") and self.peek().kind is TokKind.IDENT:
                        self.advance()      # `Modes<float>::E::B`: an enumerator of the template's scoped enum
                        member += "::" + self.advance().text
                    return ast.StaticMember(t.loc, type_ref, member)
                if self.at("{"):            # `float4{1, 2, 3, 4}` (DXC's words)
                    raise error("generalized initializer lists are incompatible with HLSL", self.tok.loc)
                if self.at("&") or self.at("*"):      # `float& r = x;`, `float* p;`
                    kind = "references" if self.at("&") else "pointers"
                    raise error(f"{kind} are unsupported in HLSL", self.tok.loc)
                if not self.at("("):
                    self.fail(f"expected '(' after type name '{type_ref.name}' in an expression")
                self.enter(self.tok.loc)     # float(float(...)): each constructor is one level
                call = ast.CallExpr(t.loc, type_ref, self.call_args())
                self.leave()
                return call
            self.advance()
            name = t.text
            while self.at("::"):
                self.advance()
                name += "::" + self.ident().text
            if name != t.text and self.at("<") and self.scoped(name, self.template_funcs) in self.template_funcs:
                self.advance()              # `M::sq<float>(x)`: a namespace's function template, arguments given
                targs = [self.template_arg()]
                while self.accept(","):
                    targs.append(self.template_arg())
                self.close_angle()
                return ast.Name(t.loc, self.scoped(name, self.template_funcs), targs)
            return ast.Name(t.loc, name)
        if t.is_punct("::") and self.peek().kind is TokKind.IDENT:     # `::f()`: the global name
            self.advance()
            name = "::" + self.ident().text
            while self.at("::"):
                self.advance()
                name += "::" + self.ident().text
            return ast.Name(t.loc, name)
        if t.is_punct("("):
            self.advance()
            self.enter(t.loc)
            saved, self.in_template_arg = self.in_template_arg, False     # `>` compares again inside
            e = self.expression()
            self.in_template_arg = saved
            self.leave()
            self.expect(")", "to close the parenthesis")
            self.parenthesized.add(id(e))       # clang's parentheses warnings look for the ones not written
            return e
        self.fail("expected an expression")


def parse(tokens: list[Token], pack_matrix: Sequence[tuple[int, str]] = (), stage: str | None = None) -> ast.TranslationUnit:
    """Parse a preprocessed token list (ending in EOF); `pack_matrix` is PPResult.pack_matrix, `stage` the
    compiled Profile.stage (None: every profile-qualified register clause applies)."""
    _check_identifier_lengths(tokens)
    return Parser(tokens, pack_matrix, stage).parse()


# `register(ps_5_0, b1)`: the profile prefix -> Profile.stage
_PROFILE_STAGES = {"vs": "vertex", "ps": "pixel", "gs": "geometry", "hs": "hull", "ds": "domain", "cs": "compute",
                   "ms": "mesh", "as": "amplification", "lib": "library"}


def _check_register_conflict(given: list[ast.Register], new: ast.Register) -> None:
    """DXC refuses two `register(...)` clauses that put one declaration at two slots of the same class for
    the same profile (SemaHLSL.cpp, err_hlsl_register_semantics_conflicting); another space is no conflict."""
    for old in given:
        if (old.reg_class == new.reg_class and (old.profile is None or new.profile is None or old.profile == new.profile)
                and (old.number, old.subcomponent) != (new.number, new.subcomponent)):
            raise error("conflicting register semantics", new.loc)


def _profile_stage(text: str) -> str | None:
    """The stage prefix of `ps`, `ps_5_0` or `lib_6_x` (a register's profile), else None."""
    stage, sep, version = text.partition("_")
    if stage not in _PROFILE_STAGES:
        return None
    major, sep, minor = version.partition("_") if sep else ("0", "_", "0")
    return stage if sep and major.isdecimal() and (minor.isdecimal() or minor == "x") else None


def _one_typo(a: str, b: str) -> bool:
    """Equal-length a and b differ by one replaced letter or one swap of adjacent letters."""
    diff = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
    if len(diff) == 1:
        return a[diff[0]].isalpha() and b[diff[0]].isalpha()
    return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]


def _check_register_range(number: int, what: str, tok: Token) -> None:
    if number > MAX_REGISTER:
        raise error(f"{what} number {number} is out of range (the maximum is {MAX_REGISTER})", tok.loc)


def _check_identifier_lengths(tokens: list[Token]) -> None:
    """A name longer than any backend can store is refused here, where it is located."""
    for t in tokens:
        if len(t.text) > MAX_IDENTIFIER and t.kind is TokKind.IDENT:
            raise error(f"identifier is too long ({len(t.text)} characters; the limit is {MAX_IDENTIFIER})", t.loc)


def _arg_key(a: ast.TypeRef | ast.Expr) -> tuple | None:
    """A written template argument compared by what it says (a type name with its arguments, an integer
    literal); None for anything else (no match)."""
    if isinstance(a, ast.TypeRef):
        inner = [_arg_key(x) for x in a.args]
        return None if None in inner else ("type", a.name, tuple(inner))
    if isinstance(a, ast.IntLit):
        return ("int", a.value)
    return None


def _element_type_name(name: str) -> str:
    """A numeric type name without its vector or matrix dimensions: `float4x3` -> `float`, `uint2` -> `uint`."""
    if len(name) > 3 and name[-2] == "x" and name[-1] in "1234" and name[-3] in "1234":
        return name[:-3]
    return name[:-1] if name[-1:] in ("1", "2", "3", "4") else name
