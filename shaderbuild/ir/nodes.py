"""IR nodes: module, variables, functions, structured statements, typed expressions.

Design (after naga/Tint): expressions are side-effect-free typed trees except
`Call` and `Intrinsic`, whose evaluation order is left-to-right, depth-first;
statements form a structured tree (if / loop / switch), so the SPIR-V backend
can emit structured control flow directly and the DXIL backend lowers it to a
reducible CFG.  Memory locations are *places* (VarRef, FieldRef, IndexRef,
SwizzleRef, BufferElem); a place is read with `Load` and written with `Store`.

Semantic analysis has already:
  * resolved every name, overload and intrinsic;
  * inserted every implicit conversion (operands of Binary have equal types,
    except shifts; comparisons yield bool / bool vectors);
  * lowered `&&`, `||` and `?:` on scalars to control flow (HLSL 2021
    short-circuit), so `Binary('land'|'lor')` and `Select` are component-wise;
  * made out/inout arguments caller temporaries: a `Call` argument for an
    out/inout parameter is always a `VarRef` to a function-local temporary;
  * lowered compound assignment, ++/--, and the comma operator.
"""

from __future__ import annotations

from itertools import compress

from ..diagnostics import SourceLoc
from ..records import Constant, DataRecord, Record
from .subobjects import Subobject
from .types import Array, Resource, Struct, Type

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any, ClassVar, TypeVar

    _E = TypeVar("_E", bound="Expr")
    _P = TypeVar("_P", bound=Callable[..., Any])

__all__ = [
    "Storage", "Binding", "VkBinding", "IOInfo", "Variable", "Expr", "Const", "SpecConst", "VarRef",
    "FieldRef", "IndexRef", "SwizzleRef", "BufferElem", "Load", "Unary", "Binary", "Select",
    "Convert", "Bitcast", "Construct", "Swizzle", "Extract", "Call", "Intrinsic", "Stmt",
    "Store", "Eval", "If", "Loop", "Break", "Continue", "Return", "Discard", "SwitchCase",
    "Switch", "Param", "Function", "TessInfo", "GeometryInfo", "MeshInfo", "EntryPoint", "Module", "Subobject",
    "PLACE_TYPES", "UNARY_OPS", "BINARY_OPS", "walk_stmts", "stmt_list", "rewrite_stmts", "walk_expr", "rewrite_expr",
    "rewrite_body", "stmt_exprs", "body_exprs", "function_exprs", "forget_exprs", "remembered_exprs", "keeps_exprs",
    "nodes_of", "referenced_variables", "view_binding", "view_type", "entry_points", "functions_calling",
    "has_unroll_loop",
]


class Storage(Constant):
    """Where a variable lives (`records.Constant`: no `enum` on the compile path)."""

    __slots__ = ()
    FUNCTION: ClassVar[Storage]         # a local or a temporary
    PRIVATE: ClassVar[Storage]          # `static` globals
    WORKGROUP: ClassVar[Storage]
    UNIFORM: ClassVar[Storage]          # resources, cbuffers, $Globals
    PUSH_CONSTANT: ClassVar[Storage]
    INPUT: ClassVar[Storage]            # stage inputs (created by the entry wrapper pass)
    OUTPUT: ClassVar[Storage]
    # ray-tracing shader interfaces, for a target that binds them to variables (SPIR-V's raise passes):
    # a TraceRay / CallShader call site's payload or callable data, and what a shader receives
    RAY_PAYLOAD: ClassVar[Storage]
    INCOMING_RAY_PAYLOAD: ClassVar[Storage]
    HIT_ATTRIBUTE: ClassVar[Storage]
    CALLABLE_DATA: ClassVar[Storage]
    INCOMING_CALLABLE_DATA: ClassVar[Storage]
    PAYLOAD: ClassVar[Storage]          # the task payload: an amplification shader's groupshared variable given to
                                        # DispatchMesh, a mesh shader's `in payload` (read-only there)


Storage.define(FUNCTION="function", PRIVATE="private", WORKGROUP="groupshared", UNIFORM="uniform",
               PUSH_CONSTANT="push_constant", INPUT="input", OUTPUT="output", RAY_PAYLOAD="ray_payload",
               INCOMING_RAY_PAYLOAD="incoming_ray_payload", HIT_ATTRIBUTE="hit_attribute",
               CALLABLE_DATA="callable_data", INCOMING_CALLABLE_DATA="incoming_callable_data", PAYLOAD="payload")


class VkBinding(DataRecord):
    """Vulkan view of a resource, assigned by passes/vk_bindings.py."""

    set: int
    binding: int
    counter_binding: int | None = None
    counter_set: int | None = None  # None: `set` (a heap view's counters may live in another set)


class Binding(DataRecord):
    """HLSL view of a resource binding.  `register` None means "not given"."""

    register_class: str          # 't' | 'u' | 'b' | 's'
    register: int | None
    space: int = 0
    count: int | None = 1        # flattened array size; None = unbounded
    vk_explicit: tuple[int, int] | None = None  # [[vk::binding(b, s)]]
    vk_counter_explicit: int | None = None      # [[vk::counter_binding(b)]]
    vk_image_format: str | None = None          # [[vk::image_format("rgba8")]] (the SPIR-V backend reads it)
    elem_norm: str | None = None     # 'unorm' / 'snorm' written on a typed resource's element (DXIL's component type)
    elem_spelling: str = ""          # typeresolve.PRECISION_SPELLINGS name of the element ('half', 'min16float', ...)
    vk: VkBinding | None = None
    implicit: bool = False       # register assigned by passes/dx_registers.py, not written in the source
    kind: str | None = None      # for struct-typed blocks: 'cbuffer' | 'tbuffer' | 'ConstantBuffer' | '$Globals' ...
    heap: str | None = None      # SM 6.6 'resource' | 'sampler': one view of a descriptor heap (no register)
    non_uniform: bool = False    # a heap view indexed through NonUniformResourceIndex somewhere
    push_constant: bool = False  # a [[vk::push_constant]] block made a constant buffer (a target without them)
    globally_coherent: bool = False  # `globallycoherent` UAV: its writes are seen by every thread group
    written_class: str | None = None  # register() letter DXC accepts for another class (a texture's 's', a
    #                                   sampler's 't'): SPIR-V shifts / -fvk-bind-register map by it


class IOInfo(DataRecord):
    """Stage input/output: semantic and where it lands in each target."""

    semantic: str                # as written, upper-cased index stripped: 'SV_DispatchThreadID', 'TEXCOORD'
    index: int = 0               # semantic index (TEXCOORD3 -> 3)
    builtin: str | None = None   # SPIR-V BuiltIn name, or None for a Location
    location: int | None = None
    interpolation: str | None = None
    row_major: bool = False      # a matrix element's majorness (DXIL: one signature row per row / column)
    arrayed: bool = False        # tessellation per-control-point I/O: the variable is an array, one element per point
    patch: bool = False          # tessellation per-patch I/O (the patch-constant function's outputs, DS patch inputs)
    vertices: int = 0            # geometry-shader input: an array of this many per-vertex values (0: not arrayed)
    stream: int = 0              # geometry-shader output: the stream it belongs to
    mesh: str | None = None      # mesh-shader output array: 'vertex' | 'primitive' | 'indices' (one element each)
    per_primitive: bool = False  # a pixel-shader input a mesh shader writes per primitive ([[vk::perprimitive]])
    parts: tuple | None = None   # a built-in array several semantics share (SPIR-V ClipDistance):
                                 # ((semantic index, array offset, HLSL type), ...)


class Variable(Record):
    name: str
    type: Type
    storage: Storage
    loc: SourceLoc | None = None
    binding: Binding | None = None
    io: IOInfo | None = None
    const: bool = False
    init: Expr | None = None     # constant initializer of a global (static const tables)
    precise: bool = False        # HLSL `precise`: what is stored here is computed exactly as written
    coherent: bool = False       # a `globallycoherent` resource local or parameter (passes/resource_locals.py)

    def __repr__(self) -> str:
        return f"Variable({self.name}: {self.type}, {self.storage.value})"


# ---------------------------------------------------------------- expressions

class Expr(Record):
    """Base class; every expression has `.type` (an ir.types.Type)."""

    __slots__ = ()

    if TYPE_CHECKING:   # each subclass declares (or, VarRef, sets) its own `type` field
        @property
        def type(self) -> Type: ...


class Const(Expr):
    """A scalar or vector constant: value is a Python bool/int/float, or a tuple for vectors."""

    type: Type
    value: Any


class SpecConst(Expr):
    """`[[vk::constant_id(N)]] const T name = value;`: a scalar specialisation constant.
    SPIR-V emits OpSpecConstant* decorated SpecId N; other targets use `value` (as DXC does for DXIL).
    Never folded: its value is only known when the pipeline is created."""

    type: Type
    value: Any
    spec_id: int
    name: str


class VarRef(Expr):
    var: Variable
    loc: SourceLoc | None = None        # where the name was written (for diagnostics of later passes)

    if TYPE_CHECKING:   # not a constructor argument: the variable's type, set in __post_init__
        @property
        def type(self) -> Type: ...

        @type.setter
        def type(self, value: Type) -> None: ...

    def __post_init__(self) -> None:
        self.type = self.var.type


class FieldRef(Expr):
    """Place: field `index` of a struct place."""

    base: Expr
    index: int
    type: Type


class IndexRef(Expr):
    """Place: element of an array place, component of a vector place, row of a matrix place."""

    base: Expr
    index: Expr
    type: Type


class SwizzleRef(Expr):
    """Place: components of a vector place (distinct components when stored to)."""

    base: Expr
    comps: tuple[int, ...]
    type: Type


class BufferElem(Expr):
    """Place: element `index` of a buffer resource; `resource` is a place of Resource type."""

    resource: Expr
    index: Expr
    type: Type


PLACE_TYPES = (VarRef, FieldRef, IndexRef, SwizzleRef, BufferElem)


class Load(Expr):
    place: Expr
    type: Type


UNARY_OPS = ("neg", "not", "bitnot")
BINARY_OPS = (
    "add", "sub", "mul", "div", "mod",      # component-wise arithmetic; mod is fmod/srem/urem
    "shl", "shr",                           # shr is arithmetic for int, logical for uint
    "bitand", "bitor", "bitxor",
    "land", "lor",                          # component-wise on bool values (no short circuit)
    "eq", "ne", "lt", "le", "gt", "ge",     # yield bool / bool vector
)


class Unary(Expr):
    op: str
    operand: Expr
    type: Type
    precise: bool = False   # feeds a `precise` value (front/sema/precise.py): no fast math, no contraction


class Binary(Expr):
    op: str
    lhs: Expr
    rhs: Expr
    type: Type
    precise: bool = False   # as Unary.precise


class Select(Expr):
    """Component-wise select: cond is bool or bool vector of the result's size."""

    cond: Expr
    true: Expr
    false: Expr
    type: Type


class Convert(Expr):
    """Numeric conversion between scalar/vector/matrix types of equal shape
    (bool <-> int <-> float, widths).  Shape changes are explicit via
    Swizzle (truncation) or Construct (splat)."""

    value: Expr
    type: Type


class Bitcast(Expr):
    """Reinterpret bits between types of equal size (asuint, asfloat, ...)."""

    value: Expr
    type: Type


class Construct(Expr):
    """Build a vector/matrix/array/struct from parts whose components, in order,
    fill the result.  For vectors the parts are scalars or vectors; for matrices
    the parts are the row vectors; for arrays/structs one part per element/field."""

    type: Type
    parts: list[Expr]


class Swizzle(Expr):
    value: Expr
    comps: tuple[int, ...]
    type: Type


class Extract(Expr):
    """Constant-index extraction: struct field, array element, vector component, matrix row."""

    value: Expr
    index: int
    type: Type


class Call(Expr):
    """Call of a user function.  Arguments of out/inout parameters are VarRef places."""

    func: Function
    args: list[Expr]
    type: Type


class Intrinsic(Expr):
    """A built-in function or resource method, by its table name (see
    front/intrinsics.py).  Resource methods take the resource place first."""

    name: str
    args: list[Expr]
    type: Type
    precise: bool = False   # as Unary.precise (the float arithmetic the intrinsic expands to)


# ----------------------------------------------------------------- statements

class Stmt(Record):
    __slots__ = ()


class Store(Stmt):
    place: Expr
    value: Expr
    loc: SourceLoc | None = None


class Eval(Stmt):
    """Evaluate an expression for its side effects (a call, an atomic, a barrier)."""

    expr: Expr
    loc: SourceLoc | None = None


class If(Stmt):
    cond: Expr
    then: list[Stmt]
    else_: list[Stmt]
    hint: str | None = None      # 'branch' | 'flatten'
    loc: SourceLoc | None = None     # the statement's position (debug line records)


class Loop(Stmt):
    """`loop { body; continuing: continuing; if (break_if) break; }` - exits only by Break/Return."""

    body: list[Stmt]
    continuing: list[Stmt] = Record.factory(list)
    break_if: Expr | None = None
    hint: str | None = None      # 'unroll' | 'loop' | 'fastopt'
    unroll_count: int | None = None
    loc: SourceLoc | None = None


class Break(Stmt):
    pass


class Continue(Stmt):
    pass


class Return(Stmt):
    value: Expr | None = None
    loc: SourceLoc | None = None


class Discard(Stmt):
    loc: SourceLoc | None = None


class SwitchCase(Record):
    """values: the case labels (empty for a pure `default:`); a body that does
    not end in Break/Return/Continue falls through into the next case."""

    values: list[int]
    is_default: bool
    body: list[Stmt]


class Switch(Stmt):
    selector: Expr
    cases: list[SwitchCase]
    loc: SourceLoc | None = None


# -------------------------------------------------------------- functions etc.

class Param(Record):
    var: Variable
    direction: str = "in"        # 'in' | 'out' | 'inout'


class Function(Record):
    name: str
    params: list[Param]
    return_type: Type
    body: list[Stmt] = Record.factory(list)
    locals: list[Variable] = Record.factory(list)
    loc: SourceLoc | None = None

    def __repr__(self) -> str:
        return f"Function({self.name})"


class TessInfo(Record):
    """A hull or domain shader's tessellation attributes ([domain], [partitioning], ...).
    The hull shader's patch-constant function is `patch_source` (its HLSL function) and,
    after passes/entry_wrapper.py, `patch_function` (a parameterless wrapper that loads the
    input/output patch, calls it and stores the patch constants)."""

    domain: str                              # 'tri' | 'quad' | 'isoline'
    partitioning: str | None = None          # hull: 'integer' | 'fractional_even' | 'fractional_odd' | 'pow2'
    output_topology: str | None = None       # hull: 'point' | 'line' | 'triangle_cw' | 'triangle_ccw'
    output_control_points: int | None = None  # hull
    input_control_points: int | None = None  # InputPatch size (hull) / OutputPatch size (domain)
    max_tess_factor: float | None = None
    patch_source: Function | None = None
    patch_function: Function | None = None
    # the parameters declared OutputPatch<T, N> (the hull patch-constant function's, the domain
    # entry's); the other control-point arrays are InputPatch
    output_patch_params: list[Variable] = Record.factory(list)


class GeometryInfo(DataRecord):
    """A geometry shader's pipeline facts (ir/streams.py names the values)."""

    max_vertex_count: int
    instances: int = 1
    input_primitive: str = "triangle"    # 'point' | 'line' | 'triangle' | 'lineadj' | 'triangleadj'
    streams: tuple[str, ...] = ()        # per stream (index = position): 'point' | 'line' | 'triangle'
    input_param: str = ""                # the parameter holding the input primitive's vertices


class MeshInfo(DataRecord):
    """A mesh or amplification shader's pipeline facts (front/sema/mesh.py checks them)."""

    topology: str | None = None          # mesh: 'triangle' | 'line'
    max_vertices: int = 0                # mesh: the `out vertices` array's size
    max_primitives: int = 0              # mesh: the `out indices` (and `out primitives`) array's size
    payload_size: int = 0                # bytes: the mesh shader's `in payload`, the amplification shader's
                                         # DispatchMesh payload (0: none)
    vertices_param: str = ""             # mesh: the parameters holding each kind of output, and the payload
    indices_param: str = ""
    primitives_param: str = ""
    payload_param: str = ""


class EntryPoint(Record):
    """The shader entry.  After passes/entry_wrapper.py, `function` is a
    parameterless void wrapper that loads `inputs`, calls `source_function`
    and stores `outputs` (all Storage.INPUT/OUTPUT globals with IOInfo)."""

    name: str
    stage: str                   # 'compute' | 'vertex' | 'pixel' | 'geometry' | ... | a ray-tracing kind
    #                              ('raygeneration', 'closesthit', ...: ir/raytracing.py; its wrapper keeps the
    #                              payload/attribute parameters, which each backend binds its own way)
    source_function: Function
    function: Function | None = None
    numthreads: tuple[int, int, int] | None = None
    geometry: GeometryInfo | None = None
    return_semantic: str | None = None
    return_location: int | None = None      # [[vk::location(N)]] on the entry function
    static_init: Function | None = None     # runs first: non-constant static initialisers
    inputs: list[Variable] = Record.factory(list)
    outputs: list[Variable] = Record.factory(list)
    tess: TessInfo | None = None            # hull and domain shaders
    mesh: MeshInfo | None = None            # mesh and amplification shaders
    modes: tuple[str, ...] = ()             # front/attributes.py ENTRY_MODES written on the entry, sorted
    wave_size: tuple[int, ...] | None = None  # [WaveSize(min[, max[, preferred]])] as written


class Module(Record):
    stage: str
    shader_model: tuple[int, int]
    globals: list[Variable] = Record.factory(list)
    functions: list[Function] = Record.factory(list)   # callees before callers
    entry: EntryPoint | None = None
    source_files: list[str] = Record.factory(list)     # every file the preprocessor read
    spec_constants: list[SpecConst] = Record.factory(list)  # [[vk::constant_id]] constants, in declaration order
    source_texts: dict[str, str] = Record.factory(dict)  # -Zi: file name as in SourceLoc -> text (debug info)
    root_signature: object = None    # shaderbuild.rootsig.RootSignature: [RootSignature] or -rootsig-define
    subobjects: list[Subobject] = Record.factory(list)   # DXR state-object subobjects (ir/subobjects.py)
    # [raypayload] structs where access qualifiers are in effect: (struct, per field {'read'|'write': stages})
    payload_access: list[tuple[Struct, tuple[dict[str, tuple[str, ...]], ...]]] = Record.factory(list)
    # a library (lib_6_x, stage 'library'): every exported shader, in source order (`entry` is None)
    entries: list[EntryPoint] = Record.factory(list)
    # each struct's members' declarations, in field order: a later pass's error about a member points at it
    field_locs: dict[Struct, tuple[SourceLoc | None, ...]] = Record.factory(dict)
    # function_exprs' remembered walks: {id(function): (function, its body list, body_exprs)}; valid
    # from a pass until a body may change (the pass driver and the manifest forget them)
    expr_lists: dict[int, tuple[Function, list[Stmt], list[Expr]]] = Record.factory(dict)

    @property
    def resources(self) -> list[Variable]:
        """The bound resources (registers, Vulkan bindings); descriptor-heap views are `heap_views`."""
        return [g for g in self.globals if g.binding is not None and g.binding.heap is None]

    @property
    def heap_views(self) -> list[Variable]:
        """SM 6.6 `ResourceDescriptorHeap` / `SamplerDescriptorHeap` views: one runtime array per
        (heap, resource type) used, indexed by the heap index."""
        return [g for g in self.globals if g.binding is not None and g.binding.heap is not None]


# ------------------------------------------------------------------- walking

def walk_stmts(stmts: list[Stmt]):
    """Yield every statement in a statement list, depth-first, pre-order.  (Exact class tests
    here and in stmt_exprs: cheaper than a failed `isinstance`, which searches the statement
    class's MRO; tests/ir/test_types_exact.py keeps these classes without subclasses.)"""
    for s in stmts:
        yield s
        cls = s.__class__
        if cls is If:
            yield from walk_stmts(s.then)  # type: ignore[attr-defined]
            yield from walk_stmts(s.else_)  # type: ignore[attr-defined]
        elif cls is Loop:
            yield from walk_stmts(s.body)  # type: ignore[attr-defined]
            yield from walk_stmts(s.continuing)  # type: ignore[attr-defined]
        elif cls is Switch:
            for c in s.cases:  # type: ignore[attr-defined]
                yield from walk_stmts(c.body)


def _stmt_list(stmts: list, out: list[Stmt]) -> list[Stmt]:   # list: `type(s) is` does not narrow
    """`walk_stmts(stmts)` appended to `out` as a list: for walks that read the statements and
    change none, ~4x faster than the generator (which resumes a generator per nesting level
    for every statement it yields)."""
    add = out.append
    for s in stmts:
        add(s)
        cls = type(s)
        if cls is If:
            _stmt_list(s.then, out)
            _stmt_list(s.else_, out)
        elif cls is Loop:
            _stmt_list(s.body, out)
            _stmt_list(s.continuing, out)
        elif cls is Switch:
            for c in s.cases:
                _stmt_list(c.body, out)
    return out


def has_unroll_loop(stmts: list[Stmt]) -> bool:
    """Whether `stmts` hold an `[unroll]` loop, nested statements included (a recursive loop: cheaper
    than the generators of walk_stmts on every statement of an inlined entry).  The pipeline asks
    before it imports passes/unroll.py, which unrolls them."""
    for s in stmts:
        if type(s) is Loop:      # exact classes (tests/ir/test_types_exact.py): see ir.walk_stmts
            if s.hint == "unroll" or has_unroll_loop(s.body) or has_unroll_loop(s.continuing):
                return True
        elif type(s) is If:
            if has_unroll_loop(s.then) or has_unroll_loop(s.else_):
                return True
        elif type(s) is Switch:
            if any(has_unroll_loop(c.body) for c in s.cases):
                return True
    return False


def stmt_list(stmts: list[Stmt]) -> list[Stmt]:
    """`list(walk_stmts(stmts))`, built without generators: for a search that changes nothing."""
    return _stmt_list(stmts, [])


def rewrite_stmts(stmts: list[Stmt], change) -> list[Stmt]:
    """A statement list with each statement (nested ones first, in place) replaced by what
    change(statement) returns: a list of statements, or None to keep it."""
    out: list[Stmt] = []
    for s in stmts:
        if isinstance(s, If):
            s.then, s.else_ = rewrite_stmts(s.then, change), rewrite_stmts(s.else_, change)
        elif isinstance(s, Loop):
            s.body, s.continuing = rewrite_stmts(s.body, change), rewrite_stmts(s.continuing, change)
        elif isinstance(s, Switch):
            for c in s.cases:
                c.body = rewrite_stmts(c.body, change)
        new = change(s)
        out += [s] if new is None else new
    return out


def walk_expr(e: Expr):
    """Yield an expression and all its sub-expressions, pre-order (with an explicit stack:
    nested generators cost a frame per level for every node they yield)."""
    stack = [e]
    pop, push = stack.pop, stack.append
    plans = _CHILD_PLANS
    while stack:
        e = pop()
        yield e
        cls = type(e)
        try:
            plan = plans[cls]
        except KeyError:
            plan = plans[cls] = child_plan(cls)
        if plan is None:                    # no table: every field tested at run time
            _push_children(e, stack)
        elif plan:
            for name, many in plan:
                v = getattr(e, name)
                if many:
                    stack += [x for x in reversed(v) if isinstance(x, Expr)]
                else:
                    push(v)


def body_exprs(stmts: list[Stmt]) -> list[Expr]:
    """Every expression node of a statement list, nested statements' too: the nodes of
    `walk_expr(e) for e in stmt_exprs(s) for s in walk_stmts(stmts)`, in that order, as one
    list (one loop instead of a generator per statement expression: ~25% faster for the
    whole-function searches of the passes and backends).  A `list[Expr]` field's items are pushed
    untested: the IR validator refuses anything else in one."""
    out: list[Expr] = []
    add = out.append
    stack: list[Expr] = []
    push = stack.append
    pop = stack.pop
    plans = _CHILD_PLANS
    for s in _stmt_list(stmts, []):
        if type(s) is Store:
            push(s.value)
            push(s.place)
        else:
            stack += reversed(stmt_exprs(s))
        while stack:
            e = pop()
            add(e)
            cls = type(e)
            try:
                plan = plans[cls]
            except KeyError:
                plan = plans[cls] = child_plan(cls)
            if plan is None:
                _push_children(e, stack)
            elif plan:
                for name, many in plan:
                    v = getattr(e, name)
                    if many:
                        stack += reversed(v)
                    else:
                        push(v)
    return out


def function_exprs(module: Module, fn: Function) -> list[Expr]:
    """`body_exprs(fn.body)`, remembered for the module: the read-only searches of the later passes
    (the inliner's reachability, SPIR-V's unsupported intrinsics and bindings, the polyfill search,
    the manifest's used globals) each walked the whole inlined entry.  Valid while no body changes:
    the pass driver forgets the lists before and after every pass not marked `keeps_exprs` and
    when the passes end, `build_manifest` before and after it, and a marked pass forgets them before it writes.
    A body replaced as a whole (`f.body = ...`) is noticed here.  The list is shared: read it only."""
    held = module.expr_lists
    got = held.get(id(fn))
    if got is not None and got[0] is fn and got[1] is fn.body:
        return got[2]
    exprs = body_exprs(fn.body)
    held[id(fn)] = (fn, fn.body, exprs)
    return exprs


def forget_exprs(module: Module) -> None:
    """Drop function_exprs' lists for `module`: a body may change from here on."""
    module.expr_lists.clear()


def remembered_exprs(module: Module) -> int:
    """How many functions' lists function_exprs holds for `module` (tests: none outside the passes)."""
    return len(module.expr_lists)


def keeps_exprs(p: _P) -> _P:
    """Mark a pass that changes no function body in place, or calls forget_exprs before it does: the
    pass driver keeps function_exprs' lists across it."""
    p.keeps_exprs = True  # type: ignore[attr-defined]
    return p


def nodes_of(exprs: list[Expr], cls: type[_E]) -> Iterator[_E]:
    """The `cls` nodes of `exprs` (a `body_exprs` list), in order, selected at C speed: a search
    testing every node in a Python loop costs ~110 ns a node, ~3.5 ms for a 5,700-line entry."""
    return compress(exprs, map(cls.__instancecheck__, exprs))  # type: ignore[arg-type]


def _push_children(e: Expr, stack: list[Expr]) -> None:
    kids: list[Expr] = []
    for name in getattr(type(e), "_fields", ()):
        if name != "type":
            v = getattr(e, name)
            if isinstance(v, Expr):
                kids.append(v)
            elif isinstance(v, list):
                kids.extend(x for x in v if isinstance(x, Expr))
    kids.reverse()
    stack += kids


def child_plan(cls: type) -> tuple[tuple[str, bool], ...] | None:
    """walk_expr's (and clone_expr's) plan for a class, read from its fields' declared types: (field, is a list)
    for each field declared `Expr` or `list[Expr]`, last field first (the stack pops the first
    one first); None when a field could hold an expression some other way."""
    if cls in LEAF_EXPRS:
        return ()
    declared: dict[str, str] = {}
    for c in reversed(cls.__mro__):
        declared.update({k: str(v) for k, v in c.__dict__.get("__annotations__", {}).items()})
    plan = []
    for name in getattr(cls, "_fields", ()):
        kind = declared.get(name, "Any").removeprefix("ir.")
        if kind in ("Expr", "list[Expr]", "list[ir.Expr]"):
            plan.append((name, kind != "Expr"))
        elif name != "type" and ("Expr" in kind or kind in ("Any", "object")):
            return None
    return tuple(reversed(plan))


_CHILD_PLANS: dict[type, tuple[tuple[str, bool], ...] | None] = {}  # expression class -> walk_expr's plan
LEAF_EXPRS = frozenset({Const, SpecConst, VarRef})   # no sub-expressions: most nodes of every tree


def rewrite_expr(e: Expr, change: Callable[[Expr], Expr]) -> Expr:
    """Apply `change` bottom-up to every sub-expression of `e` (in place); return e's replacement."""
    for f in type(e)._fields:
        v = getattr(e, f)
        if isinstance(v, Expr):
            setattr(e, f, rewrite_expr(v, change))
        elif isinstance(v, list):
            v[:] = [rewrite_expr(x, change) if isinstance(x, Expr) else x for x in v]
    return change(e)


def rewrite_body(stmts: list[Stmt], change: Callable[[Expr], Expr],
                 expand: Callable[[Store], list[Stmt] | None] | None = None) -> None:
    """In place, nested statement lists too: every expression through `change` (rewrite_expr), and each
    store for which `expand` returns statements replaced by them (used as they are: already rewritten)."""
    out: list[Stmt] = []
    for s in stmts:
        if expand is not None and isinstance(s, Store) and (made := expand(s)) is not None:
            out.extend(made)
            continue
        for name in type(s)._fields:
            v = getattr(s, name)
            if isinstance(v, Expr):
                setattr(s, name, rewrite_expr(v, change))
        if isinstance(s, If):
            rewrite_body(s.then, change, expand)
            rewrite_body(s.else_, change, expand)
        elif isinstance(s, Loop):
            rewrite_body(s.body, change, expand)
            rewrite_body(s.continuing, change, expand)
        elif isinstance(s, Switch):
            for c in s.cases:
                rewrite_body(c.body, change, expand)
        out.append(s)
    stmts[:] = out


def stmt_exprs(s: Stmt) -> list[Expr]:
    """The expressions a statement evaluates itself (not those of nested statements)."""
    cls = s.__class__
    if cls is Store:
        return [s.place, s.value]  # type: ignore[attr-defined]
    if cls is Eval:
        return [s.expr]  # type: ignore[attr-defined]
    if cls is If:
        return [s.cond]  # type: ignore[attr-defined]
    if cls is Loop:
        return [s.break_if] if s.break_if is not None else []  # type: ignore[attr-defined]
    if cls is Switch:
        return [s.selector]  # type: ignore[attr-defined]
    if cls is Return and s.value is not None:  # type: ignore[attr-defined]
        return [s.value]  # type: ignore[attr-defined]
    return []


def view_binding(var: Variable) -> tuple[Binding, str]:
    """A heap view's binding and heap ('resource' | 'sampler'), see `Module.heap_views`."""
    b = var.binding
    assert b is not None and b.heap is not None, var.name
    return b, b.heap


def view_type(var: Variable) -> Resource:
    """The resource type a heap view reads its heap as (the view is an unbounded array of it)."""
    t = var.type
    assert isinstance(t, Array) and isinstance(t.elem, Resource), var.name
    return t.elem


def referenced_variables(functions: list[Function]) -> set[int]:
    """The ids of every variable a VarRef in `functions` names (which globals the code uses)."""
    used: set[int] = set()
    for f in functions:
        for x in body_exprs(f.body):
            if isinstance(x, VarRef):
                used.add(id(x.var))
    return used


def binding_of(var: Variable) -> Binding:
    """The binding of a resource variable (every global with Storage.UNIFORM that is a resource has one)."""
    assert var.binding is not None, f"{var.name} is not a bound resource"
    return var.binding


def io_of(var: Variable) -> IOInfo:
    """The IOInfo of a stage input/output (the entry wrapper gives every INPUT/OUTPUT global one)."""
    assert var.io is not None, f"{var.name} is not a stage input/output"
    return var.io


def entry_points(module: Module) -> list[EntryPoint]:
    """Every entry point: a library's shaders, else the one entry (none for hand-built test modules)."""
    if module.entries:
        return module.entries
    return [module.entry] if module.entry is not None else []


def functions_calling(module: Module, names: frozenset[str]) -> list[Function]:
    """Each function of `module` (entry functions, static initialisers and entry sources too), once,
    that calls an intrinsic named in `names`: a pass searches with it before importing its rewriter."""
    if not names:
        return []
    fns = [*module.functions]
    for entry in entry_points(module):
        fns += [f for f in (entry.function, entry.static_init, entry.source_function) if f]
    seen: set[int] = set()
    out = []
    for fn in fns:
        if id(fn) not in seen:
            seen.add(id(fn))
            if any(x.name in names for x in nodes_of(function_exprs(module, fn), Intrinsic)):
                out.append(fn)
    return out


def entry_of(module: Module) -> EntryPoint:
    """The module's entry point (sema always sets it; only hand-built test modules lack one)."""
    assert module.entry is not None, "module has no entry point"
    return module.entry


def wrapper_of(entry: EntryPoint) -> Function:
    """The parameterless wrapper function (set by passes/entry_wrapper.py before any backend runs)."""
    assert entry.function is not None, "entry wrapper has not run"
    return entry.function
