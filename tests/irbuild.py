"""Tiny helpers to build IR modules by hand in backend tests (no front end needed).

Types are inferred where the IR rules make them obvious (loads, fields, indices,
arithmetic, comparisons), so a test reads close to the HLSL it stands for.
"""

from __future__ import annotations

from shaderbuild.ir import (  # noqa: F401 - re-exported for tests
    BOOL,
    FLOAT,
    INT,
    UINT,
    VOID,
    Array,
    Binary,
    Binding,
    Break,
    BufferElem,
    Call,
    Const,
    Construct,
    Continue,
    Convert,
    Discard,
    EntryPoint,
    Eval,
    Expr,
    Extract,
    FieldRef,
    Function,
    If,
    IndexRef,
    Intrinsic,
    IOInfo,
    Load,
    Loop,
    Matrix,
    Module,
    Param,
    Resource,
    Return,
    Scalar,
    Select,
    Storage,
    Store,
    Struct,
    StructField,
    Switch,
    SwitchCase,
    Swizzle,
    SwizzleRef,
    Type,
    Unary,
    Variable,
    VarRef,
    Vector,
    VkBinding,
)

_COMPARE = frozenset(("eq", "ne", "lt", "le", "gt", "ge"))
_SWZ = {"x": 0, "y": 1, "z": 2, "w": 3, "r": 0, "g": 1, "b": 2, "a": 3}


def u(v: int) -> Const:
    return Const(UINT, v)


def i(v: int) -> Const:
    return Const(INT, v)


def f(v: float) -> Const:
    return Const(FLOAT, v)


def b(v: bool) -> Const:
    return Const(BOOL, v)


def cvec(elem: Scalar, *vals) -> Const:
    return Const(Vector(elem, len(vals)), tuple(vals))


def var(name: str, t: Type, storage: Storage = Storage.FUNCTION, **kw) -> Variable:
    return Variable(name, t, storage, **kw)


def ref(v: Variable) -> VarRef:
    return VarRef(v)


def load(place: Expr | Variable) -> Load:
    if isinstance(place, Variable):
        place = VarRef(place)
    return Load(place, place.type)


def store(place: Expr | Variable, value: Expr) -> Store:
    if isinstance(place, Variable):
        place = VarRef(place)
    return Store(place, value)


def field(base: Expr, idx: int) -> FieldRef:
    t = base.type
    if isinstance(t, Resource):
        t = t.elem
    return FieldRef(base, idx, t.fields[idx].type)


def _elem_type(t: Type) -> Type:
    if isinstance(t, Array):
        return t.elem
    if isinstance(t, Vector):
        return t.elem
    if isinstance(t, Matrix):
        return t.elem if t.cols == 1 else Vector(t.elem, t.cols)
    raise TypeError(f"cannot index {t}")


def index(base: Expr, idx: Expr | int) -> IndexRef:
    if isinstance(idx, int):
        idx = u(idx)
    return IndexRef(base, idx, _elem_type(base.type))


def extract(value: Expr, idx: int) -> Extract:
    t = value.type
    et = t.fields[idx].type if isinstance(t, Struct) else _elem_type(t)
    return Extract(value, idx, et)


def _comps(spec: str | tuple[int, ...]) -> tuple[int, ...]:
    return tuple(_SWZ[c] for c in spec) if isinstance(spec, str) else tuple(spec)


def _swz_type(t: Type, n: int) -> Type:
    s = t.elem if isinstance(t, Vector) else t
    return s if n == 1 else Vector(s, n)


def swz(value: Expr, spec) -> Swizzle:
    c = _comps(spec)
    return Swizzle(value, c, _swz_type(value.type, len(c)))


def swzref(place: Expr, spec) -> SwizzleRef:
    c = _comps(spec)
    return SwizzleRef(place, c, _swz_type(place.type, len(c)))


def elem(resource: Expr | Variable, idx: Expr) -> BufferElem:
    if isinstance(resource, Variable):
        resource = VarRef(resource)
    t = resource.type
    while isinstance(t, Array):
        t = t.elem
    return BufferElem(resource, idx, t.elem)


def bin(op: str, lhs: Expr, rhs: Expr) -> Binary:
    t = lhs.type
    if op in _COMPARE:
        t = BOOL if isinstance(t, Scalar) else Vector(BOOL, t.size) if isinstance(t, Vector) else \
            Matrix(BOOL, t.rows, t.cols)
    return Binary(op, lhs, rhs, t)


def un(op: str, x: Expr) -> Unary:
    return Unary(op, x, x.type)


def conv(x: Expr, t: Type) -> Convert:
    return Convert(x, t)


def construct(t: Type, *parts: Expr) -> Construct:
    return Construct(t, list(parts))


def sel(c: Expr, a: Expr, b_: Expr) -> Select:
    return Select(c, a, b_, a.type)


def intr(name: str, t: Type, *args: Expr) -> Intrinsic:
    return Intrinsic(name, list(args), t)


def call(fn: Function, *args: Expr) -> Call:
    return Call(fn, list(args), fn.return_type)


def ev(e: Expr) -> Eval:
    return Eval(e)


def resource(name: str, kind: str, elem_t: Type | None = None, set_: int = 0, binding: int = 0,
             array: int = 0) -> Variable:
    """A bound resource global (binding already assigned, as the core pass would).
    array: 0 = not an array, N = fixed array of N, -1 = unbounded."""
    rt = Resource(kind, elem_t)
    t: Type = rt if array == 0 else Array(rt, None if array < 0 else array)
    count = 1 if array == 0 else (None if array < 0 else array)
    bd = Binding(rt.register_class, binding, set_, count=count, vk=VkBinding(set_, binding))
    return Variable(name, t, Storage.UNIFORM, binding=bd)


def builtin_in(name: str, t: Type, semantic: str, builtin: str) -> Variable:
    return Variable(name, t, Storage.INPUT, io=IOInfo(semantic, builtin=builtin))


def location_io(name: str, t: Type, storage: Storage, semantic: str, location: int,
                interpolation: str | None = None) -> Variable:
    return Variable(name, t, storage, io=IOInfo(semantic, location=location, interpolation=interpolation))


def function(name: str, body: list, ret: Type = VOID, params: list[Param] | None = None,
             locals_: list[Variable] | None = None) -> Function:
    return Function(name, params or [], ret, body, locals_ or [])


def compute_module(body: list, globals_: list[Variable], locals_: list[Variable] | None = None,
                   numthreads=(64, 1, 1), functions: list[Function] | None = None,
                   inputs: list[Variable] | None = None, name: str = "main") -> Module:
    """A compute module whose wrapper function is `body` (statements inlined into the wrapper)."""
    wrapper = function(name, body, locals_=locals_)
    src = function(f"src.{name}", [])
    entry = EntryPoint(name, "compute", src, wrapper, numthreads=numthreads, inputs=inputs or [], outputs=[])
    return Module("compute", (6, 0), list(globals_), [*(functions or []), wrapper], entry)




def spirv(module: Module, env: str = "vulkan1.1", validate: bool = True) -> bytes:
    """Lower with the SPIR-V backend and (by default) check the result with spirv-val (after the
    shared polyfills the backend asks for, which the compile pipeline would run)."""
    from shaderbuild_spirv.lower import lower_module
    from shaderbuild_spirv.polyfills import POLYFILLED

    from shaderbuild.passes import polyfill

    polyfill.run(module, POLYFILLED)
    binary = lower_module(module, env).binary
    if validate:
        from harness.tools import spirv_val

        spirv_val(binary, env)
    return binary


def tid_x() -> tuple[Variable, Expr]:
    """The SV_DispatchThreadID input and an expression for its .x."""
    v = builtin_in("in.SV_DispatchThreadID", Vector(UINT, 3), "SV_DispatchThreadID", "GlobalInvocationId")
    return v, swz(load(v), "x")


__all__ = [n for n in dir() if not n.startswith("_")]
