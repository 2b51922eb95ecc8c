"""IR validator: checks the contract that sema establishes and every pass keeps
(ARCHITECTURE.md "What sema guarantees", ir/nodes.py).

A failure is a compiler bug, never a user error, so it raises `IRValidationError`
(which `compile_file` reports as an internal compiler error) naming the function and
the offending node in printer text.  It runs after sema and after every shared pass
under `--validate-ir` (CompileOptions.validate_ir) and in the test suite
(SHADERBUILD_VALIDATE_IR=1, set by tests/conftest.py).
"""

from __future__ import annotations

from . import nodes as n
from . import types as t
from .raytracing import is_ray_stage

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["IRValidationError", "validate_module"]

_COMPARISONS = frozenset(("eq", "ne", "lt", "le", "gt", "ge"))
_SHIFTS = frozenset(("shl", "shr"))
_LOGICAL = frozenset(("land", "lor"))
_INT_KINDS = ("int", "uint")


class IRValidationError(Exception):
    """The IR broke its contract (a bug in sema or in a pass)."""


def _shape(ty: t.Type) -> tuple[str, int, int]:
    """(class, rows, cols) of a numeric type: what conversions and component-wise ops keep."""
    if isinstance(ty, t.Scalar):
        return ("scalar", 1, 1)
    if isinstance(ty, t.Vector):
        return ("vector", ty.size, 1)
    if isinstance(ty, t.Matrix):
        return ("matrix", ty.rows, ty.cols)
    return (type(ty).__name__, 0, 0)


def _bool_like(ty: t.Type) -> t.Type:
    """The bool type of the same shape as numeric type `ty`."""
    if isinstance(ty, t.Vector):
        return t.Vector(t.BOOL, ty.size)
    if isinstance(ty, t.Matrix):
        return t.Matrix(t.BOOL, ty.rows, ty.cols)
    return t.BOOL


def _is_int_scalar(ty: t.Type) -> bool:
    return isinstance(ty, t.Scalar) and ty.kind in _INT_KINDS


def _fits_unsized(arg: t.Type, param: t.Type) -> bool:
    """A sized array passed for an unsized array parameter of the same element (resource
    arrays: resource_locals inlines such calls)."""
    return (isinstance(param, t.Array) and param.size is None and isinstance(arg, t.Array)
            and arg.elem is param.elem)


def _bits(ty: t.Type) -> int | None:
    s = t.scalar_of(ty)
    if s is None:
        return None
    return t.component_count(ty) * (32 if s.kind == "bool" else s.width)


class _FunctionChecker:
    """Checks one function's statements and expressions."""

    def __init__(self, module: n.Module, fn: n.Function, functions: set[int], globals_: set[int]) -> None:
        self.module = module
        self.fn = fn
        self.functions = functions
        self.visible = set(globals_)
        self.visible.update(id(p.var) for p in fn.params)
        self.visible.update(id(v) for v in fn.locals)

    def fail(self, message: str, node: n.Expr | n.Stmt | None = None) -> None:
        from .printer import expr_str  # only to report a failure (not imported by a cold compile)

        text = ""
        if isinstance(node, n.Expr):
            text = f": {expr_str(node)}"
        elif node is not None:
            text = f": {_stmt_text(node)}"
        raise IRValidationError(f"IR invalid in function '{self.fn.name}': {message}{text}")

    # ------------------------------------------------------------ statements

    def stmts(self, stmts: list[n.Stmt], in_loop: bool, in_switch: bool, in_continuing: bool) -> None:
        for s in stmts:
            self.stmt(s, in_loop, in_switch, in_continuing)

    def stmt(self, s: n.Stmt, in_loop: bool, in_switch: bool, in_continuing: bool) -> None:
        if isinstance(s, n.Store):
            self.place(s.place)
            self.expr(s.value)
            if s.value.type is not s.place.type:
                self.fail(f"store of {s.value.type} to a place of type {s.place.type}", s)
        elif isinstance(s, n.Eval):
            self.expr(s.expr)
        elif isinstance(s, n.If):
            self.expr(s.cond)
            if s.cond.type is not t.BOOL:
                self.fail(f"if condition has type {s.cond.type}, not bool", s.cond)
            self.stmts(s.then, in_loop, in_switch, in_continuing)
            self.stmts(s.else_, in_loop, in_switch, in_continuing)
        elif isinstance(s, n.Loop):
            self.stmts(s.body, True, False, False)
            self.stmts(s.continuing, True, False, True)
            if s.break_if is not None:
                self.expr(s.break_if)
                if s.break_if.type is not t.BOOL:
                    self.fail(f"loop break_if has type {s.break_if.type}, not bool", s.break_if)
        elif isinstance(s, n.Switch):
            self.expr(s.selector)
            if not _is_int_scalar(s.selector.type):
                self.fail(f"switch selector has type {s.selector.type}, not an integer scalar", s.selector)
            seen: set[int] = set()
            defaults = 0
            for case in s.cases:
                for v in case.values:
                    if v in seen:
                        self.fail(f"switch has case {v} twice", s)
                    seen.add(v)
                defaults += case.is_default
                self.stmts(case.body, in_loop, True, in_continuing)
            if defaults > 1:
                self.fail("switch has more than one default", s)
        elif isinstance(s, n.Break):
            if not (in_loop or in_switch):
                self.fail("break outside a loop or switch")
        elif isinstance(s, n.Continue):
            if not in_loop:
                self.fail("continue outside a loop")
            if in_continuing:
                self.fail("continue inside a loop's continuing block")
        elif isinstance(s, n.Return):
            ret = self.fn.return_type
            if s.value is None:
                if ret is not t.VOID:
                    self.fail(f"return without a value in a function returning {ret}")
            else:
                self.expr(s.value)
                if s.value.type is not ret:
                    self.fail(f"return of {s.value.type} from a function returning {ret}", s.value)
            if in_continuing:
                self.fail("return inside a loop's continuing block")
        elif isinstance(s, n.Discard):
            pass
        else:
            self.fail(f"unknown statement {type(s).__name__}")

    # ----------------------------------------------------------- expressions

    def place(self, e: n.Expr) -> None:
        """`e` must be a place (a memory location), well-formed down to its root variable."""
        if not isinstance(e, n.PLACE_TYPES):
            self.fail(f"{type(e).__name__} used where a place is required", e)
        self.expr(e)

    def expr(self, e: n.Expr) -> None:
        ty = getattr(e, "type", None)
        if not isinstance(ty, t.Type):
            self.fail(f"{type(e).__name__} has no IR type", e)
        check = _EXPR_CHECKS.get(type(e))
        if check is None:
            self.fail(f"unknown expression {type(e).__name__}", e)
        else:
            check(self, e)

    def _const(self, e: n.Const | n.SpecConst) -> None:
        if not isinstance(e.type, (t.Scalar, t.Vector, t.Matrix, t.Array, t.Struct)):
            self.fail(f"constant of type {e.type}", e)

    def _varref(self, e: n.VarRef) -> None:
        if e.type is not e.var.type:
            self.fail(f"reference typed {e.type} to a variable of type {e.var.type}", e)
        if id(e.var) not in self.visible:
            self.fail(f"variable '{e.var.name}' is not a global, parameter or local of this function", e)

    def _fieldref(self, e: n.FieldRef) -> None:
        self.place(e.base)
        base = e.base.type
        if isinstance(base, t.Resource) and base.kind == "ConstantBuffer" and base.elem is not None:
            base = base.elem        # a member of the block
        if not isinstance(base, t.Struct) or not 0 <= e.index < len(base.fields):
            self.fail(f"field {e.index} of a place of type {base}", e)
        elif e.type is not base.fields[e.index].type:
            self.fail(f"field typed {e.type}, declared {base.fields[e.index].type}", e)

    def _index(self, e: n.Expr, index: n.Expr) -> None:
        self.expr(index)
        if not _is_int_scalar(index.type):
            self.fail(f"index of type {index.type}, not an integer scalar", e)

    def _indexref(self, e: n.IndexRef) -> None:
        self.place(e.base)
        self._index(e, e.index)
        elem = t.element_of(e.base.type)
        if elem is None:
            self.fail(f"indexing a place of type {e.base.type}", e)
        elif e.type is not elem:
            self.fail(f"element typed {e.type}, expected {elem}", e)

    def _swizzle_common(self, e: n.Expr, base: t.Type, comps: tuple[int, ...]) -> None:
        size = base.size if isinstance(base, t.Vector) else 1 if isinstance(base, t.Scalar) else 0
        elem = t.scalar_of(base)
        if not comps or not size or any(not 0 <= c < size for c in comps) or len(comps) > 4:
            self.fail(f"swizzle {comps} of type {base}", e)
        elif elem is None or e.type is not t.vec(elem, len(comps)):
            self.fail(f"swizzle typed {e.type}, expected {t.vec(elem, len(comps)) if elem else '?'}", e)

    def _swizzleref(self, e: n.SwizzleRef) -> None:
        self.place(e.base)
        self._swizzle_common(e, e.base.type, e.comps)

    def _bufferelem(self, e: n.BufferElem) -> None:
        self.place(e.resource)
        if not isinstance(e.resource.type, t.Resource):
            self.fail(f"buffer element of a place of type {e.resource.type}", e)
        self.expr(e.index)
        comp = t.scalar_of(e.index.type)     # a texel's coordinates are an integer vector
        if comp is None or comp.kind not in _INT_KINDS or isinstance(e.index.type, t.Matrix):
            self.fail(f"element index of type {e.index.type}, not integer", e)

    def _load(self, e: n.Load) -> None:
        self.place(e.place)
        if e.type is not e.place.type:
            self.fail(f"load typed {e.type} of a place of type {e.place.type}", e)

    def _unary(self, e: n.Unary) -> None:
        self.expr(e.operand)
        if e.op not in n.UNARY_OPS:
            self.fail(f"unknown unary operator '{e.op}'", e)
        expected = _bool_like(e.operand.type) if e.op == "not" else e.operand.type
        if e.type is not expected:
            self.fail(f"{e.op} of {e.operand.type} typed {e.type}, expected {expected}", e)

    def _binary(self, e: n.Binary) -> None:
        self.expr(e.lhs)
        self.expr(e.rhs)
        lhs, rhs = e.lhs.type, e.rhs.type
        if e.op not in n.BINARY_OPS:
            self.fail(f"unknown binary operator '{e.op}'", e)
        if e.op in _SHIFTS:
            if _shape(lhs) != _shape(rhs):
                self.fail(f"shift of {lhs} by {rhs}: operand shapes differ", e)
            expected = lhs
        else:
            if lhs is not rhs:
                self.fail(f"{e.op} of {lhs} and {rhs}: operand types differ (a conversion is missing)", e)
            expected = _bool_like(lhs) if e.op in _COMPARISONS else lhs
            if e.op in _LOGICAL and t.scalar_of(lhs) is not t.BOOL:
                self.fail(f"{e.op} of {lhs}, not bool", e)
        if e.type is not expected:
            self.fail(f"{e.op} of {lhs} typed {e.type}, expected {expected}", e)

    def _select(self, e: n.Select) -> None:
        for part in (e.cond, e.true, e.false):
            self.expr(part)
        if e.true.type is not e.type or e.false.type is not e.type:
            self.fail(f"select of {e.true.type} and {e.false.type} typed {e.type}", e)
        cond = e.cond.type
        if cond is not t.BOOL and cond is not _bool_like(e.type):
            self.fail(f"select condition of type {cond} for a result of type {e.type}", e)

    def _convert(self, e: n.Convert) -> None:
        self.expr(e.value)
        if _shape(e.value.type) != _shape(e.type) or t.scalar_of(e.type) is None:
            self.fail(f"conversion from {e.value.type} to {e.type} changes the shape", e)

    def _bitcast(self, e: n.Bitcast) -> None:
        self.expr(e.value)
        if _bits(e.value.type) is None or _bits(e.value.type) != _bits(e.type):
            self.fail(f"bitcast from {e.value.type} to {e.type} changes the size", e)

    def _construct(self, e: n.Construct) -> None:
        for p in e.parts:
            self.expr(p)
        ty = e.type
        if isinstance(ty, t.Vector):
            if any(t.scalar_of(p.type) is not ty.elem or isinstance(p.type, t.Matrix) for p in e.parts):
                self.fail(f"vector {ty} built from parts of another component type", e)
            if sum(t.component_count(p.type) for p in e.parts) != ty.size:
                self.fail(f"vector {ty} built from a wrong number of components", e)
        elif isinstance(ty, t.Matrix):
            row = t.Vector(ty.elem, ty.cols) if ty.cols > 1 else ty.elem
            if len(e.parts) != ty.rows or any(p.type is not row for p in e.parts):
                self.fail(f"matrix {ty} not built from {ty.rows} rows of {row}", e)
        elif isinstance(ty, t.Array):
            if len(e.parts) != ty.size or any(p.type is not ty.elem for p in e.parts):
                self.fail(f"array {ty} not built from {ty.size} elements of {ty.elem}", e)
        elif isinstance(ty, t.Struct):
            if len(e.parts) != len(ty.fields) or any(p.type is not f.type for p, f in zip(e.parts, ty.fields)):
                self.fail(f"struct {ty} not built from one part per field, of the field's type", e)
        else:
            self.fail(f"construct of type {ty}", e)

    def _swizzle(self, e: n.Swizzle) -> None:
        self.expr(e.value)
        self._swizzle_common(e, e.value.type, e.comps)

    def _extract(self, e: n.Extract) -> None:
        self.expr(e.value)
        ty = e.value.type
        if isinstance(ty, t.Struct):
            ok = 0 <= e.index < len(ty.fields) and e.type is ty.fields[e.index].type
        elif isinstance(ty, t.Array):
            ok = (ty.size is None or 0 <= e.index < ty.size) and e.type is ty.elem
        elif isinstance(ty, t.Vector):
            ok = 0 <= e.index < ty.size and e.type is ty.elem
        elif isinstance(ty, t.Matrix):
            ok = 0 <= e.index < ty.rows and e.type is t.vec(ty.elem, ty.cols)
        else:
            ok = False
        if not ok:
            self.fail(f"extract {e.index} typed {e.type} from a value of type {ty}", e)

    def _call(self, e: n.Call) -> None:
        callee = e.func
        if id(callee) not in self.functions:
            self.fail(f"call of '{callee.name}', which is not a function of the module", e)
        if e.type is not callee.return_type:
            self.fail(f"call typed {e.type}, '{callee.name}' returns {callee.return_type}", e)
        if len(e.args) != len(callee.params):
            self.fail(f"call with {len(e.args)} arguments, '{callee.name}' has {len(callee.params)} parameters", e)
        for i, (arg, param) in enumerate(zip(e.args, callee.params)):
            if param.direction in ("out", "inout"):
                if not isinstance(arg, n.VarRef):
                    self.fail(f"argument {i} for {param.direction} parameter '{param.var.name}' is not a "
                              "caller temporary (VarRef)", e)
                self.place(arg)
            else:
                self.expr(arg)
            if arg.type is not param.var.type and not _fits_unsized(arg.type, param.var.type):
                self.fail(f"argument {i} of type {arg.type} for parameter '{param.var.name}' of type "
                          f"{param.var.type}", e)

    def _intrinsic(self, e: n.Intrinsic) -> None:
        if not e.name:
            self.fail("intrinsic without a name", e)
        for a in e.args:
            self.expr(a)


_EXPR_CHECKS: dict[type, Callable[[_FunctionChecker, Any], None]] = {
    n.Const: _FunctionChecker._const,
    n.SpecConst: _FunctionChecker._const,
    n.VarRef: _FunctionChecker._varref,
    n.FieldRef: _FunctionChecker._fieldref,
    n.IndexRef: _FunctionChecker._indexref,
    n.SwizzleRef: _FunctionChecker._swizzleref,
    n.BufferElem: _FunctionChecker._bufferelem,
    n.Load: _FunctionChecker._load,
    n.Unary: _FunctionChecker._unary,
    n.Binary: _FunctionChecker._binary,
    n.Select: _FunctionChecker._select,
    n.Convert: _FunctionChecker._convert,
    n.Bitcast: _FunctionChecker._bitcast,
    n.Construct: _FunctionChecker._construct,
    n.Swizzle: _FunctionChecker._swizzle,
    n.Extract: _FunctionChecker._extract,
    n.Call: _FunctionChecker._call,
    n.Intrinsic: _FunctionChecker._intrinsic,
}


def _stmt_text(s: n.Stmt) -> str:
    from .printer import _stmts

    out: list[str] = []
    _stmts([s], "", out)
    return out[0] if out else type(s).__name__


def validate_module(module: n.Module, after: str = "sema") -> None:
    """Raise IRValidationError if `module` breaks the IR contract; `after` names the
    step that produced it (for the message)."""
    try:
        _validate(module)
    except IRValidationError as e:
        raise IRValidationError(f"after {after}: {e}") from None


def _check_entry(entry: n.EntryPoint, functions: set[int]) -> None:
    if id(entry.source_function) not in functions and entry.function is None:
        raise IRValidationError(f"entry function '{entry.source_function.name}' is not a function of the module")
    if entry.function is not None:
        wrapper = entry.function
        if id(wrapper) not in functions:
            raise IRValidationError(f"entry wrapper '{wrapper.name}' is not a function of the module")
        # a ray-tracing shader's wrapper keeps its payload / attribute parameters (ir/raytracing.py)
        if (wrapper.params and not is_ray_stage(entry.stage)) or wrapper.return_type is not t.VOID:
            raise IRValidationError(f"entry wrapper '{wrapper.name}' is not a parameterless void function")
    if entry.static_init is not None and id(entry.static_init) not in functions:
        raise IRValidationError(f"static initialiser '{entry.static_init.name}' is not a function of the module")
    for v in entry.inputs + entry.outputs:
        if v.io is None or v.storage not in (n.Storage.INPUT, n.Storage.OUTPUT):
            raise IRValidationError(f"stage variable '{v.name}' has no IOInfo or is not input/output storage")


def _validate(module: n.Module) -> None:
    entries = n.entry_points(module)
    if not entries and not (module.stage == "library" and module.subobjects):    # a library of subobjects only
        raise IRValidationError("module has no entry point")
    functions = {id(f) for f in module.functions}
    if len(functions) != len(module.functions):
        raise IRValidationError("a function appears twice in the module")
    globals_ = {id(g) for g in module.globals}
    for entry in entries:
        _check_entry(entry, functions)
        globals_.update(id(v) for v in entry.inputs)
        globals_.update(id(v) for v in entry.outputs)
    for g in module.globals:
        if g.storage is n.Storage.FUNCTION:
            raise IRValidationError(f"global '{g.name}' has function storage")
    for fn in module.functions:
        for v in fn.locals:
            if v.storage is not n.Storage.FUNCTION:
                raise IRValidationError(f"local '{v.name}' of '{fn.name}' has {v.storage.value} storage")
        _FunctionChecker(module, fn, functions, globals_).stmts(fn.body, False, False, False)
