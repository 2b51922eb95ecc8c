"""DXIL operations, derived from the declarative table in ops_table.py.

Everything about a `dx.op` call comes from here: its function name
(`dx.op.<class>.<overload>`), its LLVM signature, its function attributes,
which overloads / stages / shader models allow it, and the diagnostics when
they do not.  No opcode number appears anywhere else in the backend.
"""

from __future__ import annotations

from shaderbuild.diagnostics import SourceLoc, error
from shaderbuild.lightstd import ContextVar, attrgetter, lru_cache
from shaderbuild.records import ValueRecord

from .llvm import types as T
from .llvm.builder import IRBuilder
from .llvm.module import Module
from .llvm.values import ConstInt, Function, Instruction, Value
from .ops_table import OP_TABLE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["DxilOp", "get_op", "ops_of_class", "OVERLOAD_TYPES", "STAGE_SHORT", "OpEmitter", "op_llvm_type",
           "handle_type", "overload_name", "LOAD_INPUT", "STORE_OUTPUT", "VIEW_ID", "LOAD_PATCH_CONSTANT",
           "STORE_PATCH_CONSTANT", "STORE_VERTEX_OUTPUT", "STORE_PRIMITIVE_OUTPUT"]

# callee-name prefixes of the dx.op declarations the passes look for (one per overload)
LOAD_INPUT, STORE_OUTPUT, VIEW_ID = "dx.op.loadInput.", "dx.op.storeOutput.", "dx.op.viewID"
LOAD_PATCH_CONSTANT, STORE_PATCH_CONSTANT = "dx.op.loadPatchConstant.", "dx.op.storePatchConstant."
STORE_VERTEX_OUTPUT, STORE_PRIMITIVE_OUTPUT = "dx.op.storeVertexOutput.", "dx.op.storePrimitiveOutput."
STORE_OUTPUT_VALUE = 5      # a storeOutput call's operands: callee, opcode, signature id, row, column, value

OVERLOAD_LETTERS = {"h": "f16", "f": "f32", "d": "f64", "1": "i1", "8": "i8", "w": "i16", "i": "i32", "l": "i64",
                    "u": "udt", "o": "obj"}
OVERLOAD_TYPES: dict[str, T.IntType | T.FloatType] = {"f16": T.f16, "f32": T.f32, "f64": T.double, "i1": T.i1, "i8": T.i8,
                                     "i16": T.i16, "i32": T.i32, "i64": T.i64}
STAGE_SHORT = {"compute": "cs", "pixel": "ps", "vertex": "vs", "hull": "hs", "domain": "ds", "geometry": "gs",
               "mesh": "ms", "amplification": "as", "library": "lib", "raygeneration": "rg", "intersection": "is",
               "anyhit": "ah", "closesthit": "ch", "miss": "miss", "callable": "call"}
ATTRS = {"rn": ("nounwind", "readnone"), "ro": ("nounwind", "readonly"), "nd": ("noduplicate", "nounwind"),
         "nr": ("noreturn", "nounwind"), "-": ("nounwind",)}
FLAG_NAMES = {"w": "wave", "d": "derivative", "g": "gradient", "b": "barrier", "f": "feedback"}

# overloads that need a newer shader model than the operation itself
OVERLOAD_MIN_SM: dict[tuple[str, str], tuple[int, int]] = {
    ("AtomicBinOp", "i64"): (6, 6), ("AtomicCompareExchange", "i64"): (6, 6),
    ("RawBufferLoad", "f64"): (6, 3), ("RawBufferLoad", "i64"): (6, 3),
    ("RawBufferStore", "f64"): (6, 3), ("RawBufferStore", "i64"): (6, 3),
}
NATIVE_16BIT_MIN_SM = (6, 2)
# (flag, stage) -> shader model from which operations with that flag are allowed there
STAGE_FLAG_MIN_SM: dict[tuple[str, str], tuple[int, int]] = {
    ("gradient", "cs"): (6, 6), ("gradient", "ms"): (6, 6), ("gradient", "as"): (6, 6),
}


class DxilOp(ValueRecord):
    opcode: int
    name: str
    func_class: str
    overloads: tuple[str, ...]        # () means the void overload (no name suffix)
    attrs: tuple[str, ...]
    min_sm: tuple[int, int]
    stages: frozenset[str] | None     # None = every stage
    flags: frozenset[str]
    ret: str
    params: tuple[str, ...]           # without the leading i32 opcode

    def function_name(self, overload: str | None) -> str:
        return f"dx.op.{self.func_class}" + (f".{overload}" if overload else "")


def _parse(line: str) -> DxilOp:
    head, _, sig = line.partition(":")
    opcode, name, cls, ol, attr, sm, stages, flags = head.split()
    ret, _, params = sig.strip().partition(" ")
    major, minor = sm.split(".")
    return DxilOp(
        opcode=int(opcode), name=name, func_class=cls,
        overloads=() if ol == "v" else tuple(OVERLOAD_LETTERS[c] for c in ol),
        attrs=ATTRS[attr], min_sm=(int(major), int(minor)),
        stages=None if stages == "*" else frozenset(stages.split(",")),
        flags=frozenset() if flags == "-" else frozenset(FLAG_NAMES[c] for c in flags),
        ret=ret, params=tuple(params.split(",")) if params else ())


# Each operation is parsed from its OP_TABLE line when first used (get_op, ops_of_class): a shader
# uses a few of the ~250, and parsing them all at import cost a cold DXIL compile ~0.8 ms.
_LINES: dict[str, str] = {}                     # operation name -> its line
_CLASS_NAMES: dict[str, list[str]] = {}         # function class -> its operations' names, by opcode
for _line in OP_TABLE.splitlines():
    _name, _cls = _line.split(None, 3)[1:3]
    _LINES[_name] = _line
    _CLASS_NAMES.setdefault(_cls, []).append(_name)
_PARSED: dict[str, DxilOp] = {}


def get_op(name: str) -> DxilOp:
    """The operation called `name` (KeyError if there is none)."""
    op = _PARSED.get(name)
    if op is None:
        op = _PARSED[name] = _parse(_LINES[name])
    return op


def ops_of_class(func_class: str) -> list[DxilOp]:
    """The operations declared as `dx.op.<func_class>[.<overload>]`, by opcode ([] for none)."""
    return [get_op(n) for n in _CLASS_NAMES.get(func_class, ())]


def __getattr__(name: str) -> dict:
    """OPS (name -> operation) and BY_OPCODE (opcode -> operation): the whole table, for tests and tools."""
    if name == "OPS":
        return {n: get_op(n) for n in _LINES}
    if name == "BY_OPCODE":
        return {op.opcode: op for op in map(get_op, _LINES)}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def handle_type() -> T.StructType:
    return T.StructType((T.i8.ptr(),), "dx.types.Handle")


def _named(name: str, *elems: T.Type) -> T.StructType:
    return T.StructType(tuple(elems), f"dx.types.{name}")


def _cbufret(ov: T.Type, ovname: str, native16: bool) -> T.StructType:
    n = 2 if ovname in ("f64", "i64") else (8 if ovname in ("f16", "i16") and native16 else 4)
    return _named(f"CBufRet.{ovname}", *([ov] * n))


_FIXED_TOKENS: dict[str, T.Type] = {
    "void": T.void, "i1": T.i1, "i8": T.i8, "i16": T.i16, "i32": T.i32, "i64": T.i64, "f16": T.f16, "f32": T.f32,
    "f64": T.double,
}
_STRUCT_TOKENS: dict[str, tuple[T.Type, ...]] = {
    "Dimensions": (T.i32,) * 4, "SamplePos": (T.f32, T.f32), "ResBind": (T.i32, T.i32, T.i32, T.i8),
    "ResourceProperties": (T.i32, T.i32), "twoi32": (T.i32, T.i32), "fouri32": (T.i32,) * 4,
    "i32c": (T.i32, T.i1), "splitdouble": (T.i32, T.i32), "NodeHandle": (T.i8.ptr(),),
    "NodeRecordHandle": (T.i8.ptr(),), "NodeInfo": (T.i32, T.i32), "NodeRecordInfo": (T.i32, T.i32),
}


@lru_cache(maxsize=1024)
def op_llvm_type(token: str, overload: str | None, native16: bool = False) -> T.Type:
    """The LLVM type of one signature token for a given overload (types are immutable values:
    made once, shared by every module)."""
    if token in _FIXED_TOKENS:
        return _FIXED_TOKENS[token]
    if token == "Handle":
        return handle_type()
    if token in _STRUCT_TOKENS:
        return _named(token, *_STRUCT_TOKENS[token])
    ov = OVERLOAD_TYPES.get(overload or "")
    if ov is None:
        raise error(f"DXIL operand type '{token}' with overload '{overload}' is not supported by the DXIL backend yet")
    if token == "T":
        return ov
    if token == "ResRet":
        return _named(f"ResRet.{overload}", ov, ov, ov, ov, T.i32)
    if token == "CBufRet":
        assert overload is not None     # ov was found by it
        return _cbufret(ov, overload, native16)
    if token == "four":
        return _named(f"fouri{ov.width}", *([ov] * 4))
    raise error(f"DXIL operand type '{token}' is not supported by the DXIL backend yet")


_OVERLOAD_NAMES: dict[T.Type, str] = {v: k for k, v in OVERLOAD_TYPES.items()}


def overload_name(t: T.Type) -> str:
    name = _OVERLOAD_NAMES.get(t)
    if name is None:
        raise ValueError(f"{t} is not an overload type")
    return name


_type_of = attrgetter("type")


def _sm_text(sm: tuple[int, int]) -> str:
    return f"{sm[0]}.{sm[1]}"


# (operation, overload, stage, shader model, native16) -> (operation, signature, function name)
# of the combinations the profile checks allowed: a table of facts about profiles, shared by
# every module (OpEmitter.check is a pure function of these; a forbidden one is checked again,
# to raise its diagnostic at its own location)
_CHECKED: dict[tuple, tuple[DxilOp, T.FunctionType, str]] = {}


class OpEmitter:
    """Declares and calls dx.op functions in one module for one profile, with checks."""

    def __init__(self, module: Module, stage: str, sm: tuple[int, int], native16: bool = False) -> None:
        self.module = module
        self.stage = stage
        self.sm = sm
        self.native16 = native16
        self.used: dict[str, DxilOp] = {}
        # (name, overload) -> declaration: the profile checks and the signature are the same
        # for every call of one operation, so they run once per module, not once per call
        self._declared: dict[tuple[str, str | None], tuple[Function, ConstInt, tuple, T.Type]] = {}

    def clear_declared(self) -> None:
        """Forget the per-module declaration cache (its entries skip the profile check): a library
        checks each shader's operations against that shader's kind."""
        self._declared.clear()

    def retain(self, function_names: set[str]) -> None:
        """Forget operations whose declarations were removed (dead code)."""
        classes = {n.split(".")[2] for n in function_names if n.startswith("dx.op.")}
        self.used = {k: o for k, o in self.used.items() if o.func_class in classes}

    @property
    def profile(self) -> str:
        """The profile's name (vs_6_0), for diagnostics."""
        return f"{STAGE_SHORT.get(self.stage, self.stage)}_{self.sm[0]}_{self.sm[1]}"

    def check(self, op: DxilOp, overload: str | None, loc: SourceLoc | None = None) -> None:
        """Raise a user diagnostic when `op` with `overload` is illegal for this profile."""
        if self.sm < op.min_sm:
            raise error(f"operation {op.name} is not allowed in profile {self.profile} "
                        f"(requires shader model {_sm_text(op.min_sm)} or newer)", loc)
        short = STAGE_SHORT.get(self.stage, self.stage)
        if op.stages is not None and short not in op.stages:
            raise error(f"operation {op.name} is not allowed in {self.stage} shaders (profile {self.profile})", loc)
        for flag in op.flags:
            need_sm = STAGE_FLAG_MIN_SM.get((flag, short))
            if need_sm is not None and self.sm < need_sm:
                raise error(f"operation {op.name} is not allowed in {self.stage} shaders before shader model "
                            f"{_sm_text(need_sm)} (profile {self.profile})", loc)
        if not op.overloads:
            if overload:
                raise error(f"operation {op.name} takes no overload (got {overload})", loc)
            return
        if overload not in op.overloads:
            allowed = ", ".join(op.overloads)
            raise error(f"operation {op.name} has no {overload} overload (allowed: {allowed})", loc)
        need = OVERLOAD_MIN_SM.get((op.name, overload))
        if need is not None and self.sm < need:
            raise error(f"operation {op.name} with {overload} requires shader model {_sm_text(need)} "
                        f"(profile {self.profile})", loc)
        if self.native16 and overload in ("f16", "i16") and self.sm < NATIVE_16BIT_MIN_SM:
            raise error(f"16-bit types require shader model 6.2 (profile {self.profile})", loc)

    def function_type(self, op: DxilOp, overload: str | None) -> T.FunctionType:
        return _function_type(op.name, overload, self.native16)

    def declare(self, name: str, overload: str | None = None, loc: SourceLoc | None = None) -> Function:
        op = get_op(name)
        self.check(op, overload, loc)
        self.used[op.name] = op
        return self.module.declare(self.function_type(op, overload), op.function_name(overload), op.attrs)

    def declare_udt(self, name: str, udt: T.StructType, ret: T.Type, params: list[T.Type]) -> Function:
        """An operation overloaded on a user-defined type (the mesh payload struct):
        `dx.op.<class>.<struct name>`, its signature given by the caller."""
        op = get_op(name)
        self.check(op, "udt")
        self.used[op.name] = op
        return self.module.declare(T.FunctionType(ret, (T.i32, *params)), f"dx.op.{op.func_class}.{udt.name}", op.attrs)

    def _prepare(self, name: str, overload: str | None, loc: SourceLoc | None) -> tuple:
        """(declaration, opcode constant, parameter types after the opcode, return type) of an
        operation: the profile check, the signature and the opcode constant are made once per
        (operation, overload) in a module, and every call of it only builds its instruction."""
        key = (name, overload, self.stage, self.sm, self.native16)
        facts = _CHECKED.get(key)
        if facts is None:
            op = get_op(name)
            self.check(op, overload, loc)               # raises when the profile forbids it
            facts = _CHECKED[key] = (op, self.function_type(op, overload), op.function_name(overload))
        op, ft, fname = facts
        self.used[op.name] = op
        fn = self.module.declare(ft, fname, op.attrs)
        hit = self._declared[(name, overload)] = (fn, ConstInt(T.i32, get_op(name).opcode), ft.params[1:], ft.ret)
        return hit

    def call(self, b: IRBuilder, name: str, overload: str | None, args: list[Value],
             loc: SourceLoc | None = None) -> Instruction:
        """Emit `call dx.op.<class>.<overload>(i32 opcode, args...)` (IRBuilder.call's type
        check, with the operand list built once)."""
        hit = self._declared.get((name, overload))
        if hit is None:
            hit = self._prepare(name, overload, loc)
        fn, opcode, params, ret = hit
        if tuple(map(_type_of, args)) != params:           # element-wise: identity first, then ==
            b.call(fn, [opcode, *args])                     # raises IRBuilder.call's TypeError
        return b._emit("call", ret, [fn, opcode, *args], {}, "")


    def call_typed(self, b: IRBuilder, name: str, udt: T.StructType, args: list[Value],
                   loc: SourceLoc | None = None) -> Instruction:
        """Call an operation whose overload is a user type (`udt`: a pointer to the struct, as
        traceRay's payload; `obj`: the struct itself, as createHandleForLib's resource): the
        declaration is named after the struct, `dx.op.traceRay.struct.Payload`."""
        op = get_op(name)
        ov = op.overloads[0]
        self.check(op, ov, loc)
        self.used[op.name] = op
        arg_t = udt.ptr() if ov == "udt" else udt
        params = (T.i32, *(arg_t if p in ("udt", "obj") else op_llvm_type(p, None, self.native16) for p in op.params))
        ret = op_llvm_type(op.ret, "i32", self.native16) if op.ret == "T" else op_llvm_type(op.ret, None, self.native16)
        fn = self.module.declare(T.FunctionType(ret, params), op.function_name(udt.name or "anon"), op.attrs)
        return b.call(fn, [ConstInt(T.i32, op.opcode), *args])

    def emitter(self, b: IRBuilder, name: str, overload: str | None,
                loc: SourceLoc | None = None) -> Callable[[list[Value]], Instruction]:
        """`lambda args: self.call(b, name, overload, args)` with the operation looked up once:
        for loops emitting many calls of one operation (a matrix product's FMad chains)."""
        hit = self._declared.get((name, overload))
        if hit is None:
            hit = self._prepare(name, overload, loc)
        fn, opcode, params, ret = hit
        emit = b._emit

        def call(args: list[Value]) -> Instruction:
            if tuple(map(_type_of, args)) != params:       # as `call`
                b.call(fn, [opcode, *args])
            return emit("call", ret, [fn, opcode, *args], {}, "")
        return call


@lru_cache(maxsize=4096)
def _function_type(name: str, overload: str | None, native16: bool) -> T.FunctionType:
    """A dx.op declaration's type (types are immutable values: shared by every module)."""
    op = get_op(name)
    ret = op_llvm_type(op.ret, overload, native16)
    params = (T.i32, *(op_llvm_type(p, overload, native16) for p in op.params))
    return T.FunctionType(ret, params)


def function_op(fn_name: str) -> tuple[DxilOp, str | None] | None:
    """Map a declared function name back to its operation class + overload (for the checker)."""
    if not fn_name.startswith("dx.op."):
        return None
    rest = fn_name[len("dx.op."):]
    cls, _, ov = rest.partition(".")
    ops = ops_of_class(cls)
    if not ops:
        return None
    return ops[0], (ov or None)


# while a read with an `out uint status` is lowered (intrinsics.py, WithStatus): the ResRet values of
# its resource operations; the status is a ResRet's fifth element, as DXC reads it
RESRETS: ContextVar[list[Value] | None] = ContextVar("RESRETS", default=None)


def resret(rr: Value) -> Value:
    """Note `rr` (a resource read's ResRet) for the WithStatus being lowered, if any."""
    codes = RESRETS.get()
    if codes is not None:
        codes.append(rr)
    return rr
