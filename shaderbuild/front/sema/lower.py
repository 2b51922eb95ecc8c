"""The semantic analyser: declarations, scopes and the module it produces.

Expression, call and statement lowering live in the mixins exprs.py, calls.py
and stmts.py; this module owns declarations and assembles the ir.Module.
"""

from __future__ import annotations

import math
import struct

from ... import ir
from ...capabilities import DEFAULT, Capabilities
from ...diagnostics import CompileError, Diagnostic, DiagnosticSink, ErrorReported, SourceLoc, error
from ...ir.raytracing import CONSTANTS as RT_CONSTANTS
from ...ir.raytracing import RAYQUERY_MIN_SM, TRIANGLE_ATTRIBUTES
from ...ir.resource_kinds import KINDS
from ...ir.streams import INPUT_PRIMITIVES, STREAM_KINDS
from ...ir.subobjects import SUBOBJECT_CONSTANTS, SUBOBJECT_KINDS
from ...options import CompileOptions, Profile
from .. import ast
from ..attributes import entry_modes, wave_size_problems
from ..modifiers import (
    FIELD,
    FUNCTION,
    GLOBAL,
    METHOD,
    PARAMETER,
    TYPEDEF,
    check_modifiers,
    interpolation_mode,
    report_modifiers,
)
from ..parser import MESH_QUALIFIERS, TEMPLATE_TYPES, is_builtin_type_name
from .base import Undo
from .bitfields import Bitfield, BitfieldLowering
from .calls import CallLowering
from .coherence import is_uav, warn_mismatch
from .exprs import ExprLowering
from .heaps import used_heap_views_only
from .precise import mark_precise
from .raytracing import RayTracingLowering, shader_kind
from .resources import ResourceLowering
from .scope import (
    EnumConstSymbol,
    ErrorSymbol,
    FuncInfo,
    FuncSymbol,
    LocalOffset,
    Scope,
    SpecConstSymbol,
    StringSymbol,
    SubobjectSymbol,
    TypeSymbol,
    UnrollOffset,
    VarSymbol,
)
from .stmts import StmtLowering, ends_flow
from .struct_resources import (
    StructResourceLowering,
    StructResources,
    StructResourcesArray,
    set_data,
    struct_has_resource,
)
from .templates import TemplateLowering
from .typeresolve import PATCH_TYPES, TypeResolver, precision_spelling
from .typeresolve import unsized_value_array as _unsized_value_array

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    from .bitfields import WriteBack

# stages with thread groups, hence groupshared memory
GROUPSHARED_STAGES = frozenset({"compute", "mesh", "amplification"})
MESH_OUTPUTS = frozenset({"vertices", "indices", "primitives"})

# the min-precision types a declaration gets another precision for, without and with -enable-16bit-types
_PROMOTED = {False: {"min10float": "min16float", "min12int": "min16int"},
             True: {"min10float": "half", "min16float": "half", "min12int": "int16_t", "min16int": "int16_t",
                    "min16uint": "uint16_t"}}

MAX_ARRAY_ELEMENTS = 1 << 24
# one-element vector type names (a set: a regex here cost its compile on every cold start)
_ONE_VECTOR = frozenset(f"{t}1" for t in (
    "bool", "int", "uint", "dword", "half", "float", "double", "min16float", "min16int", "min16uint", "min10float",
    "min12int", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t", "float16_t", "float32_t",
    "float64_t"))
MAX_ARRAY_DIMENSIONS = 32
# [[vk::builtin("X")]] names DXC accepts (SPIR-V.rst, "Vulkan specific attributes")
VK_BUILTIN_ATTRIBUTE = ("PointSize", "HelperInvocation", "BaseVertex", "BaseInstance", "DrawIndex", "DeviceIndex",
                        "ViewportMaskNV")


class MemberSymbol(VarSymbol):
    """A cbuffer member, visible as a global name: FieldRef(VarRef(cbuffer), index)."""

    __slots__ = ("index",)
    if TYPE_CHECKING:
        index: int = 0      # a slot set after construction, not a field


class Analyzer(StructResourceLowering, ExprLowering, CallLowering, ResourceLowering, TemplateLowering, StmtLowering,
               RayTracingLowering, BitfieldLowering):
    """The mixins combined, with the state they share."""

    def __init__(self, options: CompileOptions, profile: Profile, sink: DiagnosticSink,
                 caps: Capabilities = DEFAULT) -> None:
        self.options = options
        self.caps = caps              # the target's decisions (push constants, layouts, ...)
        self.profile = profile
        self.sink = sink
        self.errors: list[Diagnostic] = []     # errors recovered from (see guarded), reported together
        self.failed_items = 0       # statements/declarations abandoned by guarded (silently or not)
        self.poisoned_params: set[str] = set()     # parameters whose type failed (check_body_of_bad_signature)
        # -Wuninitialized / -Wunused-variable (default off): locals not yet stored to, variables referenced,
        # the locals of the functions being analysed
        self.unset_vars: set[int] = set()
        self.used_vars: set[int] = set()
        self.const_locals: dict[int, ir.Expr] = {}     # id(const local) -> its initializer (sema/resources.py)
        # id(parameter) -> its constant argument, in an instance made by calls.const_specialize
        self.bound_params: dict[int, ir.Const] = {}
        self.param_bindings: dict[int, dict[str, ir.Const]] = {}    # id(FuncInfo instance) -> parameter values
        self.declared_locals: list[ir.Variable] = []
        self.patch_constant: FuncInfo | None = None     # a hull shader's [patchconstantfunc]
        self.scope = self.global_scope = Scope(_predefined_scope())
        self.types = TypeResolver(options.enable_16bit_types, self.const_int)
        self.types.named[TRIANGLE_ATTRIBUTES.name] = TRIANGLE_ATTRIBUTES
        self.payload_structs: set[str] = set()      # [raypayload] structs (sema/raytracing.py)
        self.payload_access: list[tuple[ir.Struct, tuple[dict[str, tuple[str, ...]], ...]]] = []   # Module's
        self.field_locs: dict[ir.Struct, tuple[SourceLoc | None, ...]] = {}     # Module's
        self.types.template_hook = self.template_struct_hook
        self.types.element_major = self.element_major
        self.func_templates: dict[str, list[ast.FuncDecl]] = {}
        self.struct_templates: dict[str, ast.StructDecl] = {}
        self.func_specs: dict[str, list[ast.FuncDecl]] = {}       # explicit specialisations, by template name
        self.struct_specs: dict[str, list[ast.StructDecl]] = {}   # explicit and partial ones
        self.typedef_major: dict[str, str] = {}   # typedef name -> the matrix orientation it carries
        # id(variable) -> its element type when written as a one-component vector (`RWBuffer<uint1>`; a local,
        # parameter or static `float1 x`): the IR makes it a scalar, but DXC's Interlocked* refuse it
        # (calls.special_interlocked) and intrinsic templates take it as a vector (calls._one_vector_arg)
        self.one_vector_elements: dict[int, str] = {}
        self.one_vector_locals: list[ir.Variable] = []     # keeps the locals above alive (a probed body's would
        #                                                    be freed and their ids reused)
        # id(variable) -> (it, its typeresolve.precision_spelling) for locals, parameters and statics: which of
        # two overloads that differ only by half/min-precision spelling a call picks (calls.resolve_overload)
        self.precision_spellings: dict[int, tuple[ir.Variable, str]] = {}
        self.function_instances: dict = {}
        self.literals: dict[int, ir.Const] = {}
        self.globals: list[ir.Variable] = []
        self.heap_views: dict[tuple[str, ir.Type, bool], ir.Variable] = {}   # sema/heaps.py (heap, type, coherent)
        self.funcs: list[FuncInfo] = []
        self.methods: dict[str, dict[str, list[FuncInfo]]] = {}
        self.method_templates: dict[str, dict[str, list[ast.FuncDecl]]] = {}    # struct -> name -> templates
        self.injected: dict[str, str] = {}     # a struct template being instantiated -> the instance's name
        self.deferred_bodies: list[FuncInfo] | None = None     # method bodies run() lowers after some statics
        self.instance_bindings: dict[str, tuple] = {}  # 'Box<float>' -> (template, parameters, arguments, values)
        self.typedef_symbols: set[int] = set()     # ids of the TypeSymbols typedefs declare (declare())
        self.saw_using = False
        self.fn: ir.Function | None = None
        self.fn_info: FuncInfo | None = None
        self.fn_return_type: ir.Type = ir.VOID
        self.out: list[ir.Stmt] = []
        self.loop_depth = 0
        self.unroll_offsets: list[list[UnrollOffset]] = []
        self.local_offsets: list[LocalOffset] = []
        self.switch_depth = 0
        self.temp_counter = 0
        self.decl_locs: dict[int, SourceLoc] = {}
        self.stmt_loc: SourceLoc | None = None      # the statement being lowered (debug line records)
        self.globals_block: tuple[ir.Variable, list[ir.StructField]] | None = None
        self.probing = False    # type-checking a body with unsized array parameters (no code is kept)
        # temporaries holding a multi-element matrix swizzle (`m._m00_m11`): id -> (temp, the element places)
        self.matrix_temps: dict[int, tuple[ir.Variable, list[ir.Expr]]] = {}
        self.method_origin: dict[int, str] = {}     # id(FuncInfo) of an inherited method -> the struct that wrote it
        self.struct_bases: dict[str, str] = {}      # struct name -> its base struct's name
        self.global_scope.bases = self.struct_bases     # (shared: scopes made later take the same dict)
        # temporaries standing for a place no target stores to directly (a multi-element matrix swizzle, a
        # bit-field): id -> (temp, the stores that put the temp's value back); emit() adds them after every
        # store to the temp
        self.scatter_temps: dict[int, tuple[ir.Variable, WriteBack]] = {}
        self.bitfields: dict[str, dict[str, Bitfield]] = {}     # struct name -> bit-field name -> where it lives
        self.write_roots: dict[int, ir.Expr] = {}   # id of a temp standing for a bit-field -> its unit (for out checks)
        # id of a call's argument list -> (the list, {index: the value a place argument had before a later
        # argument's code ran}): calls.lower_args reads arguments left to right, emit_call copies them in
        self.early_reads: dict[int, tuple[list[ir.Expr], dict[int, ir.Expr]]] = {}
        # non-constant static initialisers run, in declaration order, at the start of the entry wrapper
        self.static_init = ir.Function("static.init", [], ir.VOID)
        self.spec_constants: list[ir.SpecConst] = []
        self.subobjects: list[ir.Subobject] = []        # sema/subobjects.py (imported when a shader declares one)
        self.spec_locs: dict[int, SourceLoc] = {}
        self.static_init_info = FuncInfo(None, [], [], ir.VOID, self.static_init, defined=True)  # type: ignore[arg-type]  # no declaration

    # ------------------------------------------------------------ plumbing
    def emit(self, s: ir.Stmt) -> None:
        if getattr(s, "loc", self) is None:     # statements without their own position: the source statement's
            setattr(s, "loc", self.stmt_loc)  # noqa: B010 - Stmt itself declares no loc
        self.out.append(s)
        if isinstance(s, ir.Store) and self.scatter_temps:
            root = s.place
            while isinstance(root, (ir.SwizzleRef, ir.IndexRef, ir.FieldRef)):
                root = root.base
            entry = self.scatter_temps.get(id(root.var)) if isinstance(root, ir.VarRef) else None
            if entry is not None:
                tmp, write_back = entry
                self.out.extend(write_back(ir.Load(ir.VarRef(tmp), tmp.type), s.loc))

    def guarded(self, lower: Callable[[Any], object], decl: ast.Node) -> None:
        """Analyse one declaration or statement: `lower(decl)`.  An error is recorded and analysis goes on
        with the next one (the one place sema recovers); what `decl` declares becomes an error symbol,
        so its uses add no error: one mistake, one error."""
        try:
            lower(decl)
        except CompileError as e:
            self.failed_items += 1
            self.errors.extend(e.diagnostics)
            for name in _declared_names(decl):
                if name not in self.scope.names:
                    self.scope.names[name] = ErrorSymbol()
            if isinstance(decl, (ast.StructDecl, ast.TypedefDecl)) and decl.name not in self.types.named:
                self.types.poisoned.add(decl.name)

    def function_context(self) -> Undo:
        """Save and restore the current function (to lower another body in the middle of one)."""
        saved = (self.fn, self.fn_info, self.fn_return_type, self.out, self.loop_depth, self.switch_depth, self.scope,
                 self.unroll_offsets, self.local_offsets)
        self.unroll_offsets, self.local_offsets = [], []

        def restore() -> None:
            (self.fn, self.fn_info, self.fn_return_type, self.out, self.loop_depth, self.switch_depth,
             self.scope, self.unroll_offsets, self.local_offsets) = saved
        return Undo(restore)

    def collect(self, into: list[ir.Stmt]) -> Undo:
        """Statements emitted in the `with` block go to `into`."""
        saved = self.out
        self.out = into
        return Undo(lambda: setattr(self, "out", saved))

    def temp(self, t: ir.Type, name: str = "tmp") -> ir.Variable:
        self.temp_counter += 1
        v = ir.Variable(f"{name}.{self.temp_counter}", t, ir.Storage.FUNCTION)
        if self.fn is None:
            raise error("expression requires a function context")
        self.fn.locals.append(v)
        return v

    def push_scope(self) -> None:
        self.scope = Scope(self.scope)

    def namespace_scope(self, prefixes: tuple[str, ...]) -> Undo:
        """Lowering code written inside `namespace NS` (or struct S, for its static members): unqualified names
        find NS::name first (Scope.lookup); locals still shadow them."""
        scope = self.global_scope
        saved = scope.prefixes
        scope.prefixes = prefixes
        return Undo(lambda: setattr(scope, "prefixes", saved))

    def pop_scope(self) -> None:
        assert self.scope.parent is not None    # pushes and pops pair up: the global scope stays
        self.scope = self.scope.parent

    def declare(self, name: str, sym, loc: SourceLoc) -> None:
        prev = self.scope.names.get(name)
        if isinstance(prev, TypeSymbol) and not isinstance(sym, TypeSymbol | None):
            if id(prev) in self.typedef_symbols:
                raise error(f"redefinition of '{name}' as different kind of symbol", loc)
            prev = None     # a variable named like a struct hides it (C++); types resolve through self.types
        if prev is not None:
            prev_loc = self.decl_locs.get(id(prev))
            notes = [Diagnostic("note", "previous definition is here", prev_loc)] if prev_loc else []
            raise error(f"redefinition of '{name}'", loc, notes)
        self.scope.names[name] = sym
        self.decl_locs[id(sym)] = loc

    def declare_var(self, name: str, var: ir.Variable, loc: SourceLoc, const_value=None) -> VarSymbol:
        if var.storage is not ir.Storage.FUNCTION or isinstance(var.type, ir.Array):
            _refuse_struct_resource(name, var.type, loc)     # (struct) locals and parameters are split: resource_locals
        sym = VarSymbol(var, const_value)
        self.declare(name, sym, loc)
        return sym

    def note_spelling(self, var: ir.Variable, ref: ast.TypeRef, declared: bool = True) -> None:
        spelling = precision_spelling(ref)
        if spelling is not None:
            self.precision_spellings[id(var)] = (var, spelling)
        if declared:
            self.warn_promoted(ref)

    def warn_promoted(self, ref: ast.TypeRef) -> None:
        """DXC's note on a declaration of a min-precision type given another precision (SemaHLSL.cpp
        WarnMinPrecision); a declaration seen twice warns once (the sink keeps one per place)."""
        spelling = precision_spelling(ref)
        promoted = _PROMOTED[self.options.enable_16bit_types].get(spelling or "")
        if promoted:
            self.sink.warning(f"'{spelling}' is promoted to '{promoted}'", ref.loc)

    def note_one_vector(self, var: ir.Variable, type_name: str) -> None:
        """A scalar variable declared as a one-component vector (`float1 x`): calls.py's intrinsic templates."""
        if type_name in _ONE_VECTOR:
            self.one_vector_elements[id(var)] = type_name
            self.one_vector_locals.append(var)

    def mark_initialized(self, var: ir.Variable) -> None:
        pass

    def packoffset(self, m: ast.VarDecl, t: ir.Type) -> int | None:
        """`: packoffset(c3.y)` -> byte offset 3 * 16 + 4 (HLSL cbuffer registers are 16 bytes)."""
        p = m.packoffset
        if p is None:
            return None
        if p.reg_class != "c":
            raise error(f"packoffset must name a 'c' register, not '{p.reg_class}{p.number}'", p.loc)
        comps = "xyzw"
        comp = 0
        if p.component is not None:
            if p.component not in comps:
                raise error(f"invalid packoffset component '.{p.component}'", p.loc)
            comp = comps.index(p.component)
        offset = p.number * 16 + comp * 4
        from ...ir.layout import layout_of

        size = layout_of(t, "dx_cbuffer").size
        if comp and offset % 16 + size > 16:
            raise error(f"packoffset(c{p.number}.{p.component}) makes '{m.name}' straddle a 16-byte register", p.loc)
        return offset

    def global_offset(self, d: ast.VarDecl, t: ir.Type) -> int | None:
        """A `$Globals` member's reservation: `register(cN)` is packoffset(cN); packoffset itself too."""
        reg = d.register
        if reg is not None and reg.reg_class == "c" and d.packoffset is None:
            return reg.number * 16
        return self.packoffset(d, t)

    def check_overlaps(self, fields: list[ir.StructField], block: str, loc: SourceLoc) -> None:
        """The newest member's packoffset/register(c) range must not overlap an earlier one's (DXC refuses)."""
        from ...ir.layout import layout_of

        new = fields[-1]
        if new.packoffset is None:
            return
        size = layout_of(new.type, "dx_cbuffer", bool(new.row_major)).size
        for f in fields[:-1]:
            if f.packoffset is None:
                continue
            fsize = layout_of(f.type, "dx_cbuffer", bool(f.row_major)).size
            if new.packoffset < f.packoffset + fsize and f.packoffset < new.packoffset + size:
                raise error(f"'{new.name}' overlaps '{f.name}' in '{block}': their packoffset/register reservations "
                            f"share bytes", loc)

    def vk_io_attributes(self, attrs: list[ast.Attribute]) -> tuple[int | None, str | None]:
        """[[vk::location(N)]] and [[vk::builtin("Name")]] on a parameter, field or entry function."""
        location = builtin = None
        for a in attrs:
            if a.name == "vk::location":
                location = self.const_int(a.args[0])
            elif a.name == "vk::builtin":
                if len(a.args) != 1 or not isinstance(a.args[0], ast.StringLit):
                    raise error('[[vk::builtin]] takes a built-in name string, e.g. [[vk::builtin("PointSize")]]', a.loc)
                builtin = a.args[0].value
                if builtin not in VK_BUILTIN_ATTRIBUTE:
                    raise error(f"unknown [[vk::builtin]] '{builtin}' (one of {', '.join(VK_BUILTIN_ATTRIBUTE)})", a.loc)
        return location, builtin

    def written_major(self, qualifiers, ref: ast.TypeRef, loc: SourceLoc) -> str | None:
        """The orientation a declaration names: its own row_major/column_major, else its typedef's, else the
        `#pragma pack_matrix` state at its type (as DXC).  Conflicting orientations are errors."""
        own = [q for q in ("row_major", "column_major") if q in qualifiers]
        if len(own) == 2:
            raise error("'row_major' and 'column_major' attributes are not compatible", loc)     # DXC's words
        via = self.typedef_major.get(ref.name)
        if own and via and own[0] != via:
            raise error(f"'{own[0]}' cannot apply to '{ref.name}', a typedef of a '{via}' matrix", loc)
        return own[0] if own else via or ref.major or ref.pack

    @staticmethod
    def check_type_qualifiers(qualifiers, t: ir.Type, loc: SourceLoc) -> None:
        """Qualifiers that need a kind of type, in DXC's words: `row_major` / `column_major` a matrix (or an
        array of them), `snorm` / `unorm` a float type (and not both), `globallycoherent` a UAV (or an array of
        them) wherever it is written (sema/coherence.py).  `reordercoherent` needs SM 6.9, past this compiler's
        profiles: refused."""
        own = next((q for q in ("row_major", "column_major") if q in qualifiers), None)
        while isinstance(t, ir.Array):
            t = t.elem
        if "globallycoherent" in qualifiers and not is_uav(t):
            raise error("'globallycoherent' can only be applied to UAV objects", loc)
        if "reordercoherent" in qualifiers:
            if not is_uav(t):
                raise error("'reordercoherent' can only be applied to UAV objects", loc)
            # DXC's validator (Instr.ReorderCoherentRequiresSM69); this compiler's profiles end at SM 6.8
            raise error("reordercoherent requires SM 6.9 or later", loc)
        if own is not None and not isinstance(t, ir.Matrix):
            raise error(f"'{own}' can only be used with a matrix type", loc)
        if "snorm" in qualifiers and "unorm" in qualifiers:
            raise error("'unorm' and 'snorm' attributes are not compatible", loc)
        scalar = ir.scalar_of(t) if ir.is_numeric(t) else None
        if ("snorm" in qualifiers or "unorm" in qualifiers) and (scalar is None or not scalar.is_float):
            raise error("snorm and unorm qualifier can only be used on floating-point types", loc)

    def element_major(self, ref: ast.TypeRef) -> bool:
        """Orientation of a matrix template argument (`StructuredBuffer<row_major float2x2>`)."""
        major = self.written_major((ref.major,) if ref.major else (), ref, ref.loc)
        return self.options.row_major if major is None else major == "row_major"

    def majorness(self, d: ast.VarDecl) -> bool:
        """The declaration's orientation (written_major), else the -Zpr/-Zpc default."""
        major = self.written_major(d.qualifiers, d.type, d.loc)
        return self.options.row_major if major is None else major == "row_major"

    def unsemantic_member_loc(self, t: ir.Type) -> SourceLoc | None:
        """Where the member of an entry parameter's struct that lacks a semantic is declared (None: not a struct)."""
        found = _unsemantic_member(t) if isinstance(t, ir.Struct) else None
        if found is None:
            return None
        locs = self.field_locs.get(found[0], ())
        return locs[found[1]] if found[1] < len(locs) else None

    def stage_error(self, message: str, loc: SourceLoc) -> None:
        """An error that depends on the stage: reported only if the function that
        contains it is reachable from the entry point (a file may hold several stages)."""
        if self.fn_info is None:
            raise error(message, loc)
        self.fn_info.stage_errors.append(Diagnostic("error", message, loc))

    def note_use(self, var: ir.Variable) -> None:
        if var.storage is ir.Storage.WORKGROUP and self.profile.stage not in GROUPSHARED_STAGES:
            self.stage_error(f"groupshared variable '{var.name}' can only be used in compute, mesh and "
                             f"amplification shaders", self.use_loc)
        elem = var.type
        while isinstance(elem, ir.Array):
            elem = elem.elem
        rov = isinstance(elem, ir.Resource) and (k := KINDS.get(elem.kind)) is not None and k.rov
        if rov and self.profile.stage != "pixel":
            self.stage_error(f"rasterizer-ordered view '{var.name}' can only be used in pixel shaders", self.use_loc)

    def record_call(self, f: FuncInfo, loc: SourceLoc) -> None:
        if self.fn_info is not None:
            self.fn_info.calls.append((f, loc))

    # ------------------------------------------------------------ constants and types
    def attribute_uint(self, name: str, e: ast.Expr) -> int:
        """An attribute's integer argument; a float constant is truncated with DXC's warning."""
        tmp: list[ir.Stmt] = []
        v = self.constant_rvalue(e, tmp)
        if (not tmp and isinstance(v, ir.Const) and isinstance(v.type, ir.Scalar) and v.type.is_float
                and math.isfinite(v.value)):
            self.sink.warning(f"attribute {name} must have a uint literal argument", e.loc)
            return int(v.value)
        return self.const_int(e)

    def constant_rvalue(self, e: ast.Expr, tmp: list[ir.Stmt]) -> ir.Expr:
        """`e`'s value outside any function (statements it needs go to `tmp`); an error that has no location
        of its own (e.g. a call outside any function) is 'not an integer constant expression' at `e`."""
        saved_fn = self.fn
        try:
            with self.collect(tmp):
                v = self.rvalue(e)
        except CompileError as exc:
            if exc.diagnostics[0].loc is None:
                raise error("expression is not an integer constant expression", e.loc) from None
            raise
        self.fn = saved_fn
        return v

    def const_int(self, e: ast.Expr) -> int:
        tmp: list[ir.Stmt] = []
        v = self.constant_rvalue(e, tmp)
        spec = next((x for x in ir.walk_expr(v) if isinstance(x, ir.SpecConst)), None)
        if spec is not None:
            raise error(f"expression is not an integer constant expression: specialization constant "
                        f"'{spec.name}' is only known when the pipeline is created", e.loc)
        if tmp or not isinstance(v, ir.Const) or not isinstance(v.type, ir.Scalar) or v.type.is_float:
            raise error("expression is not an integer constant expression", e.loc)
        return int(v.value)

    def resolve_type(self, ref: ast.TypeRef, dims: list, allow_unsized: bool = False) -> ir.Type:
        t = self.types.resolve(ref)
        if isinstance(t, ir.RayQuery):
            if (self.profile.major, self.profile.minor) < RAYQUERY_MIN_SM:
                raise error(f"'RayQuery' requires shader model 6.5 or later (the profile is {self.profile})", ref.loc)
            if dims:
                raise error("arrays of 'RayQuery' are not supported", ref.loc)
        if len(dims) > MAX_ARRAY_DIMENSIONS:
            extra = dims[MAX_ARRAY_DIMENSIONS]      # the first dimension past the limit
            raise error(f"too many array dimensions ({len(dims)}; the limit is {MAX_ARRAY_DIMENSIONS})",
                        ref.loc if extra is None else extra.loc)
        if dims and isinstance(t, ir.VoidType):
            raise error("array has incomplete element type 'void'", ref.loc)
        total = 1
        for d in reversed(dims):
            if d is None:
                t = ir.Array(t, None)
                continue
            n = self.const_int(d)
            if n <= 0:
                raise error(f"array size must be greater than zero (is {n})", d.loc)
            total *= n
            if n > MAX_ARRAY_ELEMENTS or total > MAX_ARRAY_ELEMENTS:
                raise error(f"array size {total if n <= MAX_ARRAY_ELEMENTS else n} exceeds the limit of "
                            f"{MAX_ARRAY_ELEMENTS} elements", d.loc)
            t = ir.Array(t, n)
        return t

    def template_struct_hook(self, ref: ast.TypeRef) -> ir.Type | None:
        if ref.name in self.struct_templates:
            return self.instantiate_struct(ref)
        return None

    def declare_type_like(self, d) -> None:
        if isinstance(d, ast.StructDecl) and d.spec_args is not None:
            if d.name not in self.struct_templates:
                raise error(f"'{d.name}' is not a struct template", d.loc)
            self.struct_specs.setdefault(d.name, []).append(d)
        elif isinstance(d, ast.StructDecl) and d.template_params:
            declared = self.struct_templates.get(d.name)
            if declared is not None and _declared_only(declared):      # its definition, or another declaration
                self.struct_templates[d.name] = declared if _declared_only(d) else d
                return
            if d.name in self.struct_templates:
                raise error(f"redefinition of template '{d.name}'", d.loc)
            if d.name in self.func_templates or isinstance(self.scope.lookup(d.name, bases=False), FuncSymbol):
                raise error(f"redefinition of '{d.name}' as different kind of symbol", d.loc)
            self.struct_templates[d.name] = d
        elif isinstance(d, ast.StructDecl):
            self.struct(d)
        elif isinstance(d, ast.TypedefDecl):
            report_modifiers(d.qualifiers, TYPEDEF, d.loc, self.errors)
            if d.name in self.func_templates and self.scope is self.global_scope:
                raise error(f"redefinition of '{d.name}' as different kind of symbol", d.loc)
            t = self.resolve_type(d.type, d.dims)
            self.check_builtin_typedef(d, t)
            major = self.written_major(d.qualifiers, d.type, d.loc)
            if major is not None:
                self.typedef_major[d.name] = major
            self.types.named[d.name] = t
            sym = TypeSymbol(t)
            self.declare(d.name, sym, d.loc)
            self.typedef_symbols.add(id(sym))
        elif isinstance(d, ast.EnumDecl):
            self.enum(d)
        elif isinstance(d, ast.UsingDirective):
            self.scope.used.append(d.prefix)
            self.saw_using = True       # (rv_Name then checks for ambiguous names)
        elif isinstance(d, ast.StaticAssert):
            self.static_assert(d)

    def static_assert(self, d: ast.StaticAssert) -> None:
        """clang's messages: a false condition at the keyword, one that is not constant at the expression."""
        try:
            with self.namespace_scope(d.namespaces) if d.namespaces else Undo(lambda: None):
                value = self.const_int(d.cond)
        except CompileError as e:
            if e.diagnostics[0].message.startswith("expression is not an integer constant expression"):
                raise error("static_assert expression is not an integral constant expression", d.cond.loc) from None
            raise
        if not value:
            raise error("static_assert failed" + (f" {d.message}" if d.message else ""), d.loc)

    def check_builtin_typedef(self, d: ast.TypedefDecl, t: ir.Type) -> None:
        """A typedef may name a built-in type again only as that same type (`typedef uint dword;`), as in DXC;
        a template (`vector`, `Texture2D`) is another kind of symbol."""
        if d.name in TEMPLATE_TYPES:
            raise error(f"redefinition of '{d.name}' as different kind of symbol", d.loc)
        if d.name == "string" or is_builtin_type_name(d.name):
            builtin = "string" if d.name == "string" else str(self.types.resolve(ast.TypeRef(d.loc, d.name)))
            if builtin != str(t):
                raise error(f"typedef redefinition with different types ('{t}' vs '{builtin}')", d.loc)

    def struct(self, d: ast.StructDecl) -> ir.Struct:
        with self.namespace_scope(d.namespaces):
            return self._struct(d)

    def _struct(self, d: ast.StructDecl) -> ir.Struct:
        if d.name in TEMPLATE_TYPES and d.name != "sampler":   # templates DXC declares up front (vector, Texture2D)
            raise error(f"redefinition of '{d.name}' as different kind of symbol", d.loc)
        if isinstance(self.scope.names.get(d.name), TypeSymbol):
            self.declare(d.name, None, d.loc)       # the redefinition error; the first definition stays in use
        fields: list[ir.StructField] = []
        base: ir.Type | None = None
        if d.base is not None:
            crtp = next((a for a in d.base.args if isinstance(a, ast.TypeRef) and a.name == d.name), None)
            if crtp is not None:    # (clang instantiates the base's methods only when used: it takes them)
                raise error(f"'{d.name}' as a template argument of its own base struct is not supported", crtp.loc)
            base = self.types.resolve(d.base)
            if not isinstance(base, ir.Struct):
                raise error(f"base type '{base}' is not a struct", d.base.loc)
            fields.extend(base.fields)
        names = {f.name for f in fields}
        bits: dict[str, Bitfield] = dict(self.bitfields.get(base.name, {})) if isinstance(base, ir.Struct) else {}
        unit: list = []         # the open bit-field unit (add_bitfield)
        for f in d.fields:
            report_modifiers(f.qualifiers, FIELD, f.loc, self.errors)
            if f.name == d.name:
                self.errors.append(Diagnostic("error", f"member '{f.name}' has the same name as its class", f.loc))
            if f.bitfield is not None:
                if f.name and f.name in names:
                    raise error(f"duplicate member '{f.name}'", f.loc)
                names.add(f.name)
                self.add_bitfield(f, fields, bits, unit)
                continue
            unit.clear()
            if f.name in names:
                raise error(f"duplicate member '{f.name}'", f.loc)
            names.add(f.name)
            if f.dims:      # `int arr[K];` with a static member K: S::K (the field's namespaces end with 'S::')
                with self.namespace_scope(f.namespaces):
                    t = self.resolve_type(f.type, f.dims)
            else:
                t = self.resolve_type(f.type, f.dims)
            _local_only(t, f.type.loc, "a struct member")
            self.check_member_type(f.name, t, f.loc)
            self.check_type_qualifiers(f.qualifiers, t, f.loc)
            interp = interpolation_mode(f.qualifiers)
            row_major = self.majorness(f)
            vk_location, vk_builtin = self.vk_io_attributes(f.attributes)
            vk_offset = next((self.const_int(a.args[0]) for a in f.attributes if a.name == "vk::offset"), None)
            fields.append(ir.StructField(f.name, t, f.semantic, interp, row_major, vk_offset, vk_location, vk_builtin,
                                         per_primitive=any(a.name == "vk::perprimitive" for a in f.attributes),
                                         coherent="globallycoherent" in f.qualifiers))
        self.check_payload_access(d)
        st = ir.Struct(d.name, tuple(fields))
        member_locs = dict(zip((f.name for f in fields), self.field_locs.get(base, ()))) if isinstance(base, ir.Struct) else {}
        member_locs.update((f.name, f.loc) for f in d.fields)
        self.field_locs[st] = tuple(member_locs.get(f.name) for f in st.fields)
        if bits:
            self.bitfields[d.name] = bits
        self.types.named[d.name] = st
        if d.name in self.payload_structs and self.payload_qualifiers_on() and d.base is None:
            self.payload_access.append((st, tuple(dict(f.payload_access or {}) for f in d.fields)))
        if not isinstance(self.scope.names.get(d.name), FuncSymbol):     # (a function of its name hides it)
            self.declare(d.name, TypeSymbol(st), d.loc)
        own_fields = {f.name for f in d.fields}
        for m in d.methods:
            if m.name in own_fields:
                self.errors.append(Diagnostic("error", f"duplicate member '{m.name}'", m.loc))
                continue
            if m.template_params:       # instantiated by its calls (method_template_call)
                self.method_templates.setdefault(d.name, {}).setdefault(m.name, []).append(m)
                continue
            info = self.function_decl(m, method_of=st)
            overloads = self.methods.setdefault(d.name, {}).setdefault(m.name, [])
            if any(f.param_types == info.param_types for f in overloads):     # (C++: even a declaration)
                self.errors.append(Diagnostic("error", "class member cannot be redeclared", m.loc))
                continue
            overloads.append(info)
        if isinstance(base, ir.Struct):
            self.struct_bases[d.name] = base.name
        if isinstance(base, ir.Struct):     # a method the derived struct declares hides base methods of its name
            own = {m.name for m in d.methods}
            for name, infos in self.inherited_methods(st, base.name).items():
                if name not in own:
                    self.methods.setdefault(d.name, {}).setdefault(name, []).extend(infos)
            for name, decls in self.method_templates.get(base.name, {}).items():    # and its member templates
                if name not in own:
                    self.method_templates.setdefault(d.name, {})[name] = list(decls)
        for lst in self.methods.get(d.name, {}).values():
            for info in lst:
                if info.decl.body is not None and not info.defined:
                    if self.deferred_bodies is not None:    # (run(): after the struct's own-type statics)
                        self.deferred_bodies.append(info)
                        continue
                    with self.function_context():     # a struct may be declared inside a function
                        self.function_body(info)
        return st

    def define_method(self, d: ast.FuncDecl) -> None:
        """`int S::Get() { ... }`: the body of a method declared (without one) in struct S."""
        st = self.types.named.get(d.owner or "")
        if not isinstance(st, ir.Struct):
            raise error(f"'{d.owner}' is not a struct", d.loc)
        if d.template_params:       # `template<typename T> T S::conv() {...}`: a member template's definition
            decls = self.method_templates.get(st.name, {}).get(d.name, [])
            shaped = [k for k, decl in enumerate(decls) if len(decl.params) == len(d.params)
                      and len(decl.template_params or []) == len(d.template_params)]
            for k in sorted(shaped, key=lambda k: decls[k].body is not None):    # a declaration first
                if decls[k].body is not None:
                    raise error(f"redefinition of '{d.name}'", d.loc,
                                [Diagnostic("note", "previous definition is here", decls[k].loc)])
                decls[k] = d
                return
            raise error(f"out-of-line definition of '{d.name}' does not match any declaration in '{st.name}'", d.loc)
        ptypes = [_param_type(self.resolve_type(p.type, p.dims)) for p in d.params]
        for info in self.methods.get(st.name, {}).get(d.name, []):
            if info.param_types == ptypes and info.decl.body is None and not info.defined:
                if self.resolve_type(d.return_type, d.return_dims) != info.return_type:
                    raise error(f"return type of out-of-line definition of '{d.name}' differs from its declaration",
                                d.loc)
                info.decl = d
                with self.function_context():
                    self.scope = self.global_scope
                    self.function_body(info)
                return
        raise error(f"out-of-line definition of '{d.name}' does not match any declaration in '{st.name}'", d.loc)

    def inherited_methods(self, st: ir.Struct, origin: str) -> dict[str, list[FuncInfo]]:
        """The methods a method written in struct `origin` sees, compiled again with `this` of type `st` (whose
        fields start with origin's): calls inside them resolve as in `origin`, never to a method of `st` that
        hides one (HLSL methods are not virtual)."""
        if origin == st.name:
            return self.methods.get(st.name, {})
        key = f"{st.name}:{origin}"
        table = self.methods.get(key)
        if table is None:
            table = self.methods[key] = {}
            for name, infos in self.methods.get(origin, {}).items():
                for src in infos:
                    home = self.method_origin.get(id(src), origin)
                    with self.instance_context(home):       # (a struct template instance's T and own name)
                        info = self.function_decl(src.decl, method_of=st, name=f"{st.name}.{home}.{name}")
                    self.method_origin[id(info)] = home
                    table.setdefault(name, []).append(info)
            for infos in table.values():
                for info in infos:
                    if info.decl.body is not None and not info.defined:
                        with self.function_context(), self.instance_context(self.method_origin[id(info)]):
                            self.function_body(info)
        return table

    def enum(self, d: ast.EnumDecl) -> None:
        t = self.types.resolve(d.underlying) if d.underlying is not None else ir.INT
        if d.underlying is not None and not (isinstance(t, ir.Scalar) and not t.is_float):
            raise error(f"non-integral type '{t}' is an invalid underlying type", d.underlying.loc)
        if d.name:
            self.types.named[d.name] = t
        next_value = 0
        for name, value, loc in d.members:
            if value is not None:
                next_value = self.const_int(value)
            sym = EnumConstSymbol(next_value, t)
            if d.scoped and d.name:
                self.declare(f"{d.name}::{name}", sym, loc)
            else:
                self.declare(name, sym, loc)
                if d.name:      # also E::A (name may be qualified by a namespace: NS::A)
                    self.scope.names.setdefault(f"{d.name}::{name.rsplit('::', 1)[-1]}", sym)
            next_value += 1

    # ------------------------------------------------------------ globals
    def global_var(self, d: ast.VarDecl, local_static: bool = False) -> None:
        with self.namespace_scope(d.namespaces):
            self._global_var(d, local_static)

    def _global_var(self, d: ast.VarDecl, local_static: bool = False) -> None:
        if d.type.name in SUBOBJECT_KINDS:
            from .subobjects import subobject_global

            obj = subobject_global(self, d)
            self.declare(d.name, SubobjectSymbol(obj), d.loc)
            self.subobjects.append(obj)
            return
        if d.type.name == "string" and "string" not in self.types.named:
            self.string_global(d)
            return
        if not local_static:
            check_modifiers(d.qualifiers, GLOBAL, d.loc)
        self.written_major(d.qualifiers, d.type, d.loc)      # conflicting orientations are errors
        t = self.resolve_type(d.type, d.dims)
        self.check_type_qualifiers(d.qualifiers, t, d.loc)
        _local_only(t, d.type.loc, "a global or static variable")
        q = d.qualifiers
        base = t
        dims_count: int | None = 1
        while isinstance(base, ir.Array):
            if base.size is None:
                dims_count = None
            elif dims_count is not None:
                dims_count *= base.size
            base = base.elem
        if isinstance(base, ir.Resource) and KINDS[base.kind].element == "block":     # ConstantBuffer<T>, TextureBuffer<T>
            if not isinstance(base.elem, ir.Struct):
                raise error(f"'{base.kind}' requires a struct template argument, not '{base.elem}'", d.loc)
            var_type: ir.Type = base.elem
            binding = self.block_binding(base.kind, d.register, d.attributes, d.name)
            if t is not base:       # ConstantBuffer<T> cbs[N]: N blocks at registers b, b+1, ... (SPIR-V: an array of blocks)
                if dims_count is None:  # (cbs[M][N]: M * N blocks, flattened by passes/flatten_resource_arrays)
                    raise error(f"unbounded arrays of {base.kind} are not supported yet", d.loc)
                if any(a.name == "vk::push_constant" for a in d.attributes):
                    raise error("a push-constant block cannot be an array", d.loc)
                var_type, binding.count = _with_elem(t, base.elem), dims_count
            elif any(a.name == "vk::push_constant" for a in d.attributes):
                self.push_constant(d, base.elem)
                return
            var = ir.Variable(d.name, var_type, ir.Storage.UNIFORM, d.loc, const=True, binding=binding)
            self.globals.append(var)
            self.declare_var(d.name, var, d.loc)
            return
        if isinstance(base, ir.Resource):
            if local_static:
                raise error("static local resources are not supported", d.loc)
            if "static" in q and d.init is not None:
                self.resource_alias(d, t)
                return
            self.resource_global(d, t, base, dims_count)
            return
        if isinstance(t, ir.Array) and t.size is None and d.init is None:
            raise error(f"definition of variable '{d.name}' with unsized array type '{t}' is not allowed", d.loc)
        spec = next((a for a in d.attributes if a.name == "vk::constant_id"), None)
        if spec is not None:
            self.spec_constant(d, t, spec)
            return
        ext = next((a for a in d.attributes if a.name in ("vk::ext_builtin_input", "vk::ext_builtin_output")), None)
        if ext is not None:
            self.ext_builtin(d, t, ext)
            return
        if "groupshared" in q:
            var = ir.Variable(d.name, t, ir.Storage.WORKGROUP, d.loc)
            if d.init is not None:
                raise error("groupshared variables cannot have an initializer", d.init.loc)
            self.globals.append(var)
            self.declare_var(d.name, var, d.loc)
            if d.type.name in _ONE_VECTOR:
                self.one_vector_elements[id(var)] = d.type.name
            return
        if isinstance(t, ir.VoidType):
            raise error(f"variable '{d.name}' has incomplete type 'void'", d.loc)
        if ("static" in q or local_static) and struct_has_resource(t):
            if local_static:
                raise error(f"'{d.name}': a static local struct with resource members is not supported; declare it "
                            f"'static' at global scope", d.loc)
            self.static_struct_resources(d, t)
            return
        if "static" in q or local_static:
            init = None
            const_value = None
            runtime = False
            deferred: list[ir.Stmt] = []
            if d.init is not None:
                with self.function_context():
                    self.fn, self.fn_info, self.out = self.static_init, self.static_init_info, deferred
                    init = self.init_value(d.init, t, d.loc)
                t = init.type
                # not a constant (or it depends on a specialisation constant): computed when the shader
                # starts (as DXC does)
                # (or it reads a function's parameter or local: a static local's initializer)
                runtime = bool(deferred) or any(isinstance(x, ir.SpecConst) or (
                    isinstance(x, ir.VarRef) and x.var.storage is ir.Storage.FUNCTION) for x in ir.walk_expr(init))
                if runtime:
                    if local_static:
                        raise error("a static local variable needs a constant initializer", d.init.loc)
                    self.static_init.body.extend(deferred)
                    deferred_value, init = init, None
                if isinstance(init, ir.Const) and "const" in q:
                    const_value = init.value
            var = ir.Variable(d.name, t, ir.Storage.PRIVATE, d.loc, const="const" in q, init=init)
            if runtime:
                self.static_init.body.append(ir.Store(ir.VarRef(var), deferred_value, d.loc))
            if "const" in q and d.init is None:
                raise error(f"const variable '{d.name}' must be initialized", d.loc)
            self.globals.append(var)
            self.declare_var(d.name, var, d.loc, const_value if isinstance(t, (ir.Scalar, ir.Vector)) else None)
            self.note_spelling(var, d.type)
            if isinstance(t, ir.Scalar):
                self.note_one_vector(var, d.type.name)
            return
        if any(a.name == "vk::push_constant" for a in d.attributes):
            self.push_constant(d, t)
            return
        if struct_has_resource(t):      # a struct with resource members, or an array of them
            self.struct_resource_global(d, t)
            return
        self.loose_uniform(d, t)

    def string_global(self, d: ast.VarDecl) -> None:
        """`string s = "...";` at global scope: checked as DXC does; printf may read it as its format."""
        if d.dims:
            raise error("array of type string is not supported", d.loc)
        if "extern" in d.qualifiers:
            raise error("string cannot be declared with 'extern' storage specifier", d.loc)     # DXC's words
        init = d.init.items[0] if isinstance(d.init, ast.InitList) and len(d.init.items) == 1 else d.init
        if init is not None and not isinstance(init, ast.StringLit) and not (
                isinstance(init, ast.Name) and isinstance(self.scope.lookup(init.name), StringSymbol)):
            raise error("a string can only be initialized with a string literal or another string", init.loc)
        value = init.value if isinstance(init, ast.StringLit) else None
        if isinstance(init, ast.Name):
            source = self.scope.lookup(init.name)
            value = source.value if isinstance(source, StringSymbol) else None
        self.declare(d.name, StringSymbol(d.loc, value), d.loc)

    def spec_constant(self, d: ast.VarDecl, t: ir.Type, attr: ast.Attribute) -> None:
        """`[[vk::constant_id(N)]] const T name = literal;` (DXC SPIR-V.rst, "Specialization constants"):
        a scalar specialisation constant, not a $Globals member.  The DXIL backend uses the default.
        (The parser refuses the attribute on a local, static or not.)"""
        if len(attr.args) != 1 or not isinstance(attr.args[0], ast.IntLit) or not 0 <= attr.args[0].value <= 0xFFFFFFFF:
            where = attr.args[0].loc if len(attr.args) == 1 else attr.loc
            raise error("[[vk::constant_id]] takes one argument, a non-negative integer literal", where)
        spec_id = attr.args[0].value
        if "const" not in d.qualifiers or "static" in d.qualifiers or "groupshared" in d.qualifiers:
            raise error(f"specialization constant '{d.name}' must be declared 'const' (and not 'static' or "
                        f"'groupshared')", d.loc)
        if not isinstance(t, ir.Scalar):
            raise error(f"specialization constant '{d.name}' must have a scalar type (bool, int, uint, float, ...), "
                        f"not '{t}'", d.loc)
        if d.init is None:
            raise error(f"specialization constant '{d.name}' requires an initializer (its default value)", d.loc)
        tmp: list[ir.Stmt] = []
        with self.function_context():
            self.fn, self.fn_info, self.out = self.static_init, self.static_init_info, tmp
            init = self.init_value(d.init, t, d.loc)
        if tmp or not isinstance(init, ir.Const):
            raise error(f"the initializer of specialization constant '{d.name}' must be a constant expression "
                        f"(a literal)", d.init.loc)
        prev = next((c for c in self.spec_constants if c.spec_id == spec_id), None)
        if prev is not None:
            raise error(f"specialization constant id {spec_id} is already used by '{prev.name}'", attr.args[0].loc,
                        [Diagnostic("note", f"'{prev.name}' is declared here", self.spec_locs[id(prev)])])
        value = init.value
        if t.kind == "float":       # the value the binary holds (and the manifest reports)
            value = float(value)
            if t.width == 32:
                value = struct.unpack("<f", struct.pack("<f", value))[0]
        elif t.kind == "bool":
            value = bool(value)
        else:
            value = int(value)
        c = ir.SpecConst(t, value, spec_id, d.name)
        self.spec_constants.append(c)
        self.spec_locs[id(c)] = d.loc
        self.declare(d.name, SpecConstSymbol(c), d.loc)

    def ext_builtin(self, d: ast.VarDecl, t: ir.Type, attr: ast.Attribute) -> None:
        """Seed 004: `[[vk::ext_builtin_input(N)]] static const T x;` reads SPIR-V BuiltIn N,
        `[[vk::ext_builtin_output(N)]] static T x;` writes it; the target lists the BuiltIns it has."""
        is_input = attr.name == "vk::ext_builtin_input"
        number = self.const_int(attr.args[0])
        if "static" not in d.qualifiers or ("const" in d.qualifiers) != is_input:
            need = "'static const'" if is_input else "'static' and not 'const'"
            raise error(f"a variable with '{attr.name}' must be {need}", d.loc)
        if d.init is not None:
            raise error(f"a built-in {'input' if is_input else 'output'} variable cannot have an initializer", d.init.loc)
        if not self.caps.ext_builtins:
            raise error(f"'{attr.name}' is only supported when targeting SPIR-V", attr.loc)
        entry = next((e for e in self.caps.ext_builtins if e[0] == number), None)
        if entry is None:
            raise error(f"unknown or unsupported SPIR-V BuiltIn {number}", attr.args[0].loc)
        _, name, direction = entry
        if direction != "inout" and direction != ("in" if is_input else "out"):
            raise error(f"SPIR-V BuiltIn {number} ({name}) is not an {'input' if is_input else 'output'}", attr.loc)
        storage = ir.Storage.INPUT if is_input else ir.Storage.OUTPUT
        var = ir.Variable(d.name, t, storage, d.loc, const=is_input,
                          io=ir.IOInfo(f"{attr.name}({number})", 0, builtin=name))
        self.globals.append(var)
        self.declare_var(d.name, var, d.loc)

    # ------------------------------------------------------------ uniform blocks
    def block_binding(self, kind: str, reg: ast.Register | None, attrs: list[ast.Attribute], name: str) -> ir.Binding:
        cls = KINDS[kind].register_class
        binding = ir.Binding(cls, None, 0, 1, kind=kind)
        if reg is not None:
            if reg.reg_class != cls:
                raise error(f"invalid register class '{reg.reg_class}' for {kind} '{name}' (expected '{cls}')", reg.loc)
            binding.register = reg.number
            binding.space = reg.space or 0
        for a in attrs:
            if a.name == "vk::binding":
                vals = [self.const_int(x) for x in a.args]
                binding.vk_explicit = (vals[0], vals[1] if len(vals) > 1 else 0)
        return binding

    def loose_uniform(self, d: ast.VarDecl, t: ir.Type) -> int:
        """A global without `static` is a member of the implicit `$Globals` cbuffer (the field index returned)."""
        self.warn_promoted(d.type)
        if d.init is not None:
            self.sink.warning(f"the initializer of uniform global '{d.name}' is ignored; declare it 'static const' "
                              f"for a compile-time constant", d.init.loc)
        if isinstance(t, ir.Array) and t.size is None:
            raise error(f"uniform global '{d.name}' cannot have an unsized array type", d.loc)
        _refuse_struct_resource(d.name, t, d.loc)
        if self.globals_block is None:
            st = ir.Struct("type.$Globals", ())
            var = ir.Variable("$Globals", st, ir.Storage.UNIFORM, d.loc, binding=ir.Binding("b", None, 0, 1, kind="$Globals"),
                              const=True)
            self.globals.append(var)
            self.globals_block = (var, [])
        var, fields = self.globals_block
        row_major = self.majorness(d)
        fields.append(ir.StructField(d.name, t, None, None, row_major, packoffset=self.global_offset(d, t)))
        self.check_overlaps(fields, "$Globals", (d.packoffset or d.register or d).loc)
        sym = MemberSymbol(var)
        sym.index = len(fields) - 1
        self.declare(d.name, sym, d.loc)
        return sym.index

    def push_constant(self, d: ast.VarDecl, t: ir.Type) -> None:
        if not isinstance(t, ir.Struct):
            raise error(f"[[vk::push_constant]] requires a struct or ConstantBuffer<T> variable, not '{t}'", d.loc)
        if any(v.storage is ir.Storage.PUSH_CONSTANT for v in self.globals):
            raise error("only one [[vk::push_constant]] block is allowed per shader", d.loc)
        if self.caps.push_constants:
            var = ir.Variable(d.name, t, ir.Storage.PUSH_CONSTANT, d.loc, const=True)
        else:  # Direct3D has no push constants: the block is an ordinary constant buffer there
            binding = self.block_binding("ConstantBuffer", d.register, [], d.name)
            binding.push_constant = True      # the manifest's Vulkan view shows it as a push constant
            var = ir.Variable(d.name, t, ir.Storage.UNIFORM, d.loc, const=True, binding=binding)
        self.globals.append(var)
        self.declare_var(d.name, var, d.loc)

    def finish_globals_block(self, functions: list[ir.Function]) -> None:
        """Give `$Globals` its final member list and update references made while it grew."""
        if self.globals_block is None:
            return
        var, fields = self.globals_block
        var.type = ir.Struct("type.$Globals", tuple(fields))
        for f in functions:     # (body_exprs: one list, not a generator per statement and expression)
            for x in ir.nodes_of(ir.body_exprs(f.body), ir.VarRef):
                if x.var is var:
                    x.type = var.type
        for g in self.globals:      # a static initialized from a uniform (`static const uint x = hg;`) reads it too
            for x in ir.walk_expr(g.init) if g.init is not None else ():
                if isinstance(x, ir.VarRef) and x.var is var:
                    x.type = var.type

    def resource_global(self, d: ast.VarDecl, t: ir.Type, base: ir.Resource, count: int | None) -> None:
        if isinstance(t, ir.Array):
            a: ir.Type | ast.Attribute = t.elem   # (then the attributes, below)
            while isinstance(a, ir.Array):
                if a.size is None:
                    raise error("only the first dimension of a resource array may be unbounded", d.loc)
                a = a.elem
        if base.kind in STREAM_KINDS:
            raise error(f"'{base}' is a geometry-shader output stream: it can only be an 'inout' parameter of the "
                        f"geometry entry point", d.loc)
        cls = base.register_class
        reg = d.register
        binding = ir.Binding(cls, None, 0, count)
        if reg is not None:
            kinds = {"t": "shader resource view", "u": "unordered access view", "b": "constant buffer", "s": "sampler"}
            if reg.reg_class != cls and _other_class_accepted(base, reg.reg_class):
                binding.written_class = reg.reg_class
                self.warn(f"register class '{reg.reg_class}' on {kinds[cls]} '{d.name}' of type '{base}': it is "
                          f"bound as '{cls}{reg.number}' (DXC's binding; the written class only picks the Vulkan "
                          f"-fvk-{reg.reg_class}-shift / -fvk-bind-register entry)", reg.loc)
            elif reg.reg_class != cls:
                raise error(f"invalid register class '{reg.reg_class}' for {kinds[cls]} '{d.name}' of type '{base}' "
                            f"(expected '{cls}')", reg.loc)
            binding.register = reg.number
            binding.space = reg.space or 0
        binding.globally_coherent = "globallycoherent" in d.qualifiers     # (check_type_qualifiers: a UAV)
        for a in d.attributes:
            if a.name == "vk::binding":
                vals = [self.const_int(x) for x in a.args]
                binding.vk_explicit = (vals[0], vals[1] if len(vals) > 1 else 0)
            elif a.name == "vk::counter_binding":
                binding.vk_counter_explicit = self.const_int(a.args[0])
            elif a.name == "vk::image_format":
                if not isinstance(a.args[0], ast.StringLit) or KINDS[base.kind].rep != "typed":
                    raise error("'vk::image_format' takes a format string and applies to textures and typed "
                                "buffers", a.loc)
                binding.vk_image_format = a.args[0].value
        elem = d.type.args[0] if d.type.args else None
        if isinstance(elem, ast.TypeRef) and KINDS[base.kind].rep == "typed":
            binding.elem_norm = elem.norm
            binding.elem_spelling = precision_spelling(elem) or ""
        var = ir.Variable(d.name, t, ir.Storage.UNIFORM, d.loc, binding=binding)
        self.globals.append(var)
        self.declare_var(d.name, var, d.loc)
        if isinstance(elem, ast.TypeRef) and elem.name in _ONE_VECTOR:
            self.one_vector_elements[id(var)] = elem.name
        if isinstance(elem, ast.TypeRef):
            self.note_spelling(var, elem, declared=False)       # its elements' (calls._spelling of `Buf[i]`)

    def resource_alias(self, d: ast.VarDecl, t: ir.Type) -> None:
        """`static RWBuffer<T> A = B;` names the global resource B again (no new binding), as in DXC."""
        sym = self.scope.lookup(d.init.name) if isinstance(d.init, ast.Name) else None
        var = getattr(sym, "var", None)
        if var is None or var.binding is None or var.type != t:
            raise error(f"static resource '{d.name}' must be initialized with a global resource of type '{t}'",
                        d.init.loc if d.init is not None else d.loc)
        coherent = "globallycoherent" in d.qualifiers
        assert d.init is not None       # (global_var: a static resource with an initializer)
        warn_mismatch(self, ir.Load(ir.VarRef(var), t), t, coherent, d.init.loc)
        if coherent:        # every access through the alias is coherent: the resource it names is
            var.binding.globally_coherent = True
        self.declare(d.name, sym, d.loc)

    def check_member_type(self, name: str, t: ir.Type, loc: SourceLoc) -> None:
        """Struct and cbuffer members have a size: no void, no unsized array."""
        elem = t
        while isinstance(elem, ir.Array):
            if elem.size is None:
                raise error(f"field '{name}' has an unsized array type", loc)
            elem = elem.elem
        if isinstance(elem, ir.VoidType):
            raise error(f"field '{name}' has type 'void'", loc)

    def cbuffer(self, d: ast.CBufferDecl) -> None:
        fields: list[ir.StructField] = []
        members: list[ast.VarDecl | None] = []      # per field: its member (None: a struct's data, declared below)
        holding: list[StructResources | StructResourcesArray] = []     # members holding resources

        def add_data(data: ir.Type, m: ast.VarDecl) -> int:
            fields.append(ir.StructField(m.name, data))
            members.append(None)
            return len(fields) - 1

        for m in d.members:
            check_modifiers(m.qualifiers, GLOBAL, m.loc)
            self.warn_promoted(m.type)
            t = self.resolve_type(m.type, m.dims)
            elem = t
            while isinstance(elem, ir.Array):
                elem = elem.elem
            if isinstance(elem, ir.Resource):      # a texture or sampler declared in a cbuffer is a global (as in DXC)
                self.global_var(m)
                continue
            self.check_member_type(m.name, t, m.loc)
            if struct_has_resource(t):      # a struct with resource members (or an array): its resources are globals
                def add_member_data(data: ir.Type, m: ast.VarDecl = m) -> int:
                    return add_data(data, m)
                holding.append(self.struct_resource_global(m, t, add_member_data))
                continue
            _refuse_struct_resource(m.name, t, m.loc)
            self.check_type_qualifiers(m.qualifiers, t, m.loc)
            row_major = self.majorness(m)
            vk_offset = next((self.const_int(a.args[0]) for a in m.attributes if a.name == "vk::offset"), None)
            fields.append(ir.StructField(m.name, t, None, None, row_major, vk_offset, None, None,
                                         self.packoffset(m, t)))
            self.check_overlaps(fields, d.name, (m.packoffset or m).loc)
            members.append(m)
        if d.members and not fields:
            return      # only resources: no constant buffer (DXC makes none either)
        st = ir.Struct(f"type.{d.name}", tuple(fields))
        binding = self.block_binding(d.kind, d.register, d.attributes, d.name)
        var = ir.Variable(d.name, st, ir.Storage.UNIFORM, d.loc, binding=binding, const=True)
        self.globals.append(var)
        for sr in holding:
            set_data(sr, var)
        for i, member in enumerate(members):
            if member is not None:
                sym = MemberSymbol(var)
                sym.index = i
                self.declare(member.name, sym, member.loc)

    def place(self, e, for_write):  # cbuffer members resolve to fields
        if isinstance(e, ast.Name):
            sym = self.scope.lookup(e.name)
            if type(sym) is MemberOfThis:      # exact classes: cheaper than a failed isinstance
                st = sym.var.type
                return ir.FieldRef(ir.VarRef(sym.var), sym.index, st.fields[sym.index].type)
            if type(sym) is MemberSymbol:
                if for_write:
                    raise error(f"cannot assign to constant buffer member '{e.name}'", e.loc)
                if self.globals_block is not None and sym.var is self.globals_block[0]:
                    field_type = self.globals_block[1][sym.index].type   # $Globals is still growing
                else:
                    field_type = sym.var.type.fields[sym.index].type
                return ir.FieldRef(ir.VarRef(sym.var), sym.index, field_type)
        return super().place(e, for_write)

    # ------------------------------------------------------------ functions
    def function_decl(self, d: ast.FuncDecl, method_of: ir.Struct | None = None, register: bool = True,
                      name: str | None = None) -> FuncInfo:
        ptypes, pdirs = [], []
        # (reported; the function is still declared, so its calls add no error)
        report_modifiers(d.qualifiers, METHOD if method_of is not None else FUNCTION, d.loc, self.errors)
        for p in d.params:
            report_modifiers(p.qualifiers, PARAMETER, p.loc, self.errors)
            self.written_major(p.qualifiers, p.type, p.loc)     # conflicting orientations are errors here too
            t = _param_type(self.resolve_type(p.type, p.dims))   # a RayQuery parameter names the caller's query
            self.check_type_qualifiers(p.qualifiers, t, p.loc)
            direction = _param_direction(p)
            if direction != "in" and p.type.name in ("ConstantBuffer", "TextureBuffer"):
                raise error(f"a '{p.type.name}' parameter cannot be '{direction}': the buffer is read-only", p.loc)
            if t == ir.VOID:        # clang's order of checks (`f(void)` has no parameters: the parser drops it)
                message = ("'void' must be the first and only parameter if specified" if len(d.params) > 1
                           else "argument may not have 'void' type" if not p.name.startswith("<unnamed")
                           else "'void' as parameter must not have type qualifiers")
                self.errors.append(Diagnostic("error", message, p.loc))
            ptypes.append(t)
            pdirs.append(direction)
        self.check_default_arguments(d)
        if d.body is None:      # (a definition's parameters are declared in its body's scope: redefinition there)
            seen: set[str] = set()
            for p in d.params:
                if p.name in seen:      # (an unnamed one's placeholder names its position: never seen twice)
                    self.errors.append(Diagnostic("error", f"redefinition of parameter '{p.name}'", p.loc))
                seen.add(p.name)
        rt = self.resolve_type(d.return_type, d.return_dims)
        if "globallycoherent" in d.qualifiers:
            self.check_type_qualifiers(("globallycoherent",), rt, d.return_type.loc)
        if not isinstance(rt, ir.RayQuery):     # a returned RayQuery names the caller's (sema/rayquery.py)
            _local_only(rt, d.return_type.loc, "a return type")
        key_types = ptypes
        spellings = tuple(precision_spelling(p.type) for p in d.params)
        existing = None if method_of is not None or not register else self.scope.lookup(d.name, bases=False)
        if isinstance(existing, TypeSymbol) and id(existing) not in self.typedef_symbols \
                and isinstance(existing.type, ir.Struct) and d.name in self.scope.names:
            existing = None     # a function hides a struct of its name in its scope (C++); `struct f` names it
        if existing is not None and not isinstance(existing, FuncSymbol):
            raise error(f"redefinition of '{d.name}' as a different kind of symbol", d.loc)
        if isinstance(existing, FuncSymbol):
            for f in existing.overloads:
                if f.param_types == key_types and all(a == b or None in (a, b) for a, b in zip(f.param_spellings, spellings)):
                    if f.return_type != rt:
                        raise error("functions that differ only in their return type cannot be overloaded", d.loc)
                    if "static" in d.qualifiers and "static" not in f.decl.qualifiers:
                        raise error(f"static declaration of '{d.name}' follows non-static declaration", d.loc)
                    if d.body is not None and f.defined:
                        raise error(f"redefinition of '{d.name}'", d.loc,
                                    [Diagnostic("note", "previous definition is here", f.decl.loc)])
                    if d.body is not None:
                        for p, before in zip(d.params, f.decl.params):
                            if p.init is not None and before.init is not None:     # (even to the same value)
                                self.errors.append(Diagnostic("error", "redefinition of default argument",
                                                              p.init.loc))
                            elif before.init is not None:   # the declaration's default stands for the definition
                                p.init = before.init
                        # attributes of the earlier declaration carry over (clang's inherited attributes:
                        # `[numthreads(8, 1, 1)] void main();` then the definition)
                        written = {a.name for a in d.attributes}
                        d.attributes = [*d.attributes, *(a for a in f.decl.attributes if a.name not in written)]
                        f.decl = d
                    return f
        name = name or (d.name if method_of is None else f"{method_of.name}.{d.name}")
        irf = ir.Function(name, [], ir.VOID if isinstance(rt, ir.RayQuery) else rt, loc=d.loc)
        info = FuncInfo(d, ptypes, pdirs, rt, irf, method_of=method_of, param_spellings=spellings)
        if method_of is None and register:
            if isinstance(existing, FuncSymbol):
                existing.overloads.append(info)
            else:
                sym = FuncSymbol([info])
                self.scope.names[d.name] = sym
                self.decl_locs[id(sym)] = d.loc
        self.funcs.append(info)
        return info

    def check_default_arguments(self, d: ast.FuncDecl) -> None:
        """Every parameter after one with a default argument has one too (clang's CheckCXXDefaultArguments);
        a default argument names no parameter (it is evaluated where the call is)."""
        for k, p in enumerate(d.params):
            if p.init is not None:
                earlier = {q.name for q in d.params[:k + 1]}
                used = next((n for n in _names_in(p.init) if n.name in earlier), None)
                if used is not None:
                    self.errors.append(Diagnostic("error", f"default argument references parameter '{used.name}'",
                                                  used.loc))
        given = [p.init is not None for p in d.params]
        if True in given:
            for p in d.params[given.index(True):]:
                if p.init is None:
                    self.errors.append(Diagnostic("error", f"missing default argument on parameter '{p.name}'",
                                                  p.loc))

    def function_body(self, info: FuncInfo) -> None:
        with self.namespace_scope(info.decl.namespaces):
            self._function_body(info)

    def _function_body(self, info: FuncInfo) -> None:
        d = info.decl
        irf = info.ir_func
        info.defined = True
        self.fn, self.fn_info, self.fn_return_type = irf, info, info.return_type
        self.out = irf.body
        self.push_scope()
        try:
            params = list(d.params)
            if info.method_of is not None:
                this = ir.Variable("this", info.method_of, ir.Storage.FUNCTION, d.loc)
                irf.params.append(ir.Param(this, "inout"))
                for i, f in enumerate(info.method_of.fields):
                    sym = MemberOfThis(this)
                    sym.index = i
                    self.scope.names[f.name] = sym
                self.scope.names["this"] = VarSymbol(this)     # `this.x` as in HLSL 2021
            for p, t, direction in zip(params, info.param_types, info.param_dirs):
                var = ir.Variable(p.name, t, ir.Storage.FUNCTION, p.loc, const="const" in p.qualifiers,
                                  precise="precise" in p.qualifiers, coherent="globallycoherent" in p.qualifiers)
                per_primitive = any(a.name == "vk::perprimitive" for a in p.attributes)
                if p.semantic is not None:
                    loc_attr, builtin_attr = self.vk_io_attributes(p.attributes)
                    var.io = ir.IOInfo(p.semantic, interpolation=interpolation_mode(p.qualifiers), location=loc_attr,
                                       builtin=builtin_attr, row_major=self.majorness(p), per_primitive=per_primitive)
                elif per_primitive:     # a struct of values a mesh shader writes per primitive (no semantic of its own)
                    var.io = ir.IOInfo("", per_primitive=True)
                irf.params.append(ir.Param(var, direction))
                self.declare_var(p.name, var, p.loc)
                self.note_spelling(var, p.type)
                bound = self.param_bindings.get(id(info), {}).get(p.name)
                if bound is not None:
                    self.bound_params[id(var)] = bound
                if p.name in self.poisoned_params:      # its type failed (check_body_of_bad_signature)
                    self.scope.names[p.name] = ErrorSymbol()
                if isinstance(t, ir.Scalar):
                    self.note_one_vector(var, p.type.name)
            assert d.body is not None       # only definitions get a body
            if isinstance(info.return_type, ir.RayQuery):
                from .rayquery import returned_query

                returned_query(self, info)
            failed_before, locals_before = self.failed_items, len(self.declared_locals)
            self.local_offsets = []
            self.lower_block(d.body.stmts, new_scope=False)
            self.resolve_local_offsets(irf.body)
            unused = [v for v in self.declared_locals[locals_before:] if id(v) not in self.used_vars]
            del self.declared_locals[locals_before:]
            if self.failed_items > failed_before:
                return          # a statement was dropped: the flow checks below would only cascade
            for v in unused:
                self.sink.warning(f"unused variable '{v.name}'", v.loc)
            if not isinstance(info.return_type, ir.VoidType) and not ends_flow(irf.body):
                end = d.body.loc
                raise error(f"non-void function '{d.name}' does not return a value on all control paths", end)
            written_by_threads = {p.name for p in params if MESH_OUTPUTS & p.qualifiers}   # each thread writes some
            for ip in irf.params:
                if ip.direction == "out" and ip.var.name != "this" and ip.var.name not in written_by_threads \
                        and not definitely_assigned(irf.body, ip.var):
                    if isinstance(ip.var.type, ir.Resource):    # no zero to hand back: the caller's would be unknown
                        raise error(f"'out' parameter '{ip.var.name}' of resource type '{ip.var.type}' is not "
                                    f"assigned on every path through '{d.name}'", ip.var.loc)
                    self.sink.warning(f"'out' parameter '{ip.var.name}' is not assigned on every path through "
                                      f"'{d.name}'; the caller receives zero there", ip.var.loc)
            mark_precise(irf, "precise" in d.qualifiers)
        finally:
            self.pop_scope()
            self.fn, self.fn_info, self.out = None, None, []

    # ------------------------------------------------------------ top level
    def run(self, tu: ast.TranslationUnit, source_files: list[str], main_file: str) -> ir.Module:
        for d in tu.decls:      # bases as written, for the static members hoisted ahead of their struct (whose
            if isinstance(d, ast.StructDecl) and d.base is not None and not d.base.args and not d.template_params:
                self.struct_bases[d.name] = d.base.name     # bodies may name a base's statics); struct() resolves
        decls, i = tu.decls, 0
        while i < len(decls):
            d, i = decls[i], i + 1
            if not isinstance(d, ast.StructDecl) or d.template_params or i == len(decls) \
                    or not _member_of(decls[i], d.name):
                self.guarded(self.top_level, d)
                continue
            # static members of the struct's own type (declared after it): its method bodies wait for them
            self.deferred_bodies = []
            self.guarded(self.top_level, d)
            while i < len(decls) and _member_of(decls[i], d.name):
                self.guarded(self.top_level, decls[i])
                i += 1
            waiting, self.deferred_bodies = self.deferred_bodies, None
            for info in waiting:
                try:
                    with self.function_context():
                        self.function_body(info)
                except CompileError as e:       # (as guarded() records an error in the struct's own lowering)
                    self.failed_items += 1
                    self.errors.extend(e.diagnostics)
        if self.errors:
            raise CompileError(self.reported_errors())
        return self.build_module(main_file, source_files)

    def reported_errors(self) -> list[Diagnostic]:
        """The recovered errors in order, each once (a template instantiated twice fails twice), with the
        stage errors of the functions the entry point reaches when it can be found."""
        errors = list(self.errors)
        try:
            errors += [d for f in self.reachable(self.find_entry("")) for d in f.stage_errors]
        except CompileError:
            pass
        seen: set[tuple] = set()
        out = []
        for d in errors:
            key = (d.loc, d.message)
            if key not in seen:
                seen.add(key)
                out.append(d)
        return out

    def top_level(self, d: ast.Node) -> None:
        if isinstance(d, ast.FuncDecl) and d.owner is None and d.name in self.struct_templates:
            # a class template's name is its own in its scope (C++ [temp]); a plain struct's is not
            raise error(f"redefinition of '{d.name}' as different kind of symbol", d.loc)
        if isinstance(d, ast.FuncDecl) and d.spec_args is not None:
            if d.name not in self.func_templates:
                raise error(f"no function template '{d.name}' to specialize", d.loc)
            if all(self.specialised_arguments(t, d) is None for t in self.func_templates[d.name]):
                raise error(f"no function template matches function template specialization '{d.name}'", d.loc)
            self.func_specs.setdefault(d.name, []).append(d)
        elif isinstance(d, ast.FuncDecl) and d.template_params and d.owner is None:
            if id(self.global_scope.names.get(d.name)) in self.typedef_symbols:   # (a struct it hides: C++)
                raise error(f"redefinition of '{d.name}' as different kind of symbol", d.loc)
            same = self.func_templates.setdefault(d.name, [])
            signature = _template_signature(d)
            for k, t in enumerate(same):
                if _template_signature(t) == signature:
                    if t.body is not None and d.body is not None:
                        raise error(f"redefinition of '{d.name}'", d.loc)
                    if d.body is not None:      # the definition of a template declared before
                        same[k] = d
                        self.define_template(t, d)
                    return
            same.append(d)
        elif isinstance(d, ast.FuncDecl) and d.owner is not None:
            self.define_method(d)
        elif isinstance(d, ast.FuncDecl):
            try:
                info = self.function_decl(d)
            except (CompileError, ErrorReported) as e:
                self.check_body_of_bad_signature(d, e)
                raise
            if d.body is not None and not _has_unsized_param(info):
                self.function_body(info)
            elif d.body is not None:
                # type-check the body once with the unsized types (so `float[]` -> `float[4]` is an
                # error whatever the callers pass); code is generated per call size (calls.specialize)
                probe = FuncInfo(d, info.param_types, info.param_dirs, info.return_type,
                                 ir.Function(d.name, [], info.return_type, loc=d.loc))
                self.probing = True
                try:
                    self.function_body(probe)
                finally:
                    self.probing = False
                info.defined = True
        elif isinstance(d, ast.VarDecl):
            self.global_var(d)
        elif isinstance(d, ast.CBufferDecl):
            self.cbuffer(d)
        else:
            self.declare_type_like(d)

    def check_body_of_bad_signature(self, d: ast.FuncDecl, failure: Exception) -> None:
        """A function whose parameter types fail still has its body checked (its other errors are reported),
        with those parameters as error symbols so their uses add nothing; then the function stays an error
        symbol (ErrorReported).  Returns (the caller re-raises `failure`) when there is nothing to check."""
        if d.body is None or d.template_params or d.owner is not None:
            return
        try:
            rt = self.resolve_type(d.return_type, d.return_dims)
        except (CompileError, ErrorReported):
            return              # (a return type would only make every `return` cascade)
        found: list[Diagnostic] = list(failure.diagnostics) if isinstance(failure, CompileError) else []
        types: list[ir.Type] = []
        bad: set[str] = set()
        for p in d.params:
            try:
                types.append(_param_type(self.resolve_type(p.type, p.dims)))
                continue
            except CompileError as e:
                found.extend(e.diagnostics)
            except ErrorReported:
                pass
            types.append(ir.INT)
            bad.add(p.name)
        if not bad or any(isinstance(t, ir.Array) and t.size is None for t in types):
            return
        self.errors.extend(found)       # (reported_errors keeps the first of repeated diagnostics)
        dirs = [_param_direction(p) for p in d.params]
        probe = FuncInfo(d, types, dirs, rt, ir.Function(d.name, [], rt, loc=d.loc))
        self.probing, self.poisoned_params = True, bad
        try:
            self.function_body(probe)
        except CompileError as e:
            self.errors.extend(e.diagnostics)
        except ErrorReported:
            pass
        finally:
            self.probing, self.poisoned_params = False, set()
        raise ErrorReported()

    def build_module(self, main_file: str, source_files: list[str]) -> ir.Module:
        """The checked program's module (every declaration analysed without error)."""
        library = self.profile.stage == "library"
        self.specialize_late_calls()
        shaders = self.library_shaders(main_file) if library else []
        entry = None if library else self.find_entry(main_file)
        order: list[FuncInfo] = []
        seen_ids: set[int] = set()
        roots = shaders if entry is None else [(entry, "")]
        for root, kind in roots:                        # a library: every shader's functions, callees first
            self.check_recursion(root)
            reached = self.reachable(root)
            order += [f for f in reached if id(f) not in seen_ids]
            seen_ids.update(id(f) for f in reached)
            # a shader runs the static initialisers too (its wrapper calls them first)
            inits = self.reachable(self.static_init_info) if library else []
            stage_errors = self.check_shader_stages(root, kind, reached + inits) if library else []
            if stage_errors:
                raise CompileError(stage_errors)
        if self.profile.stage == "hull" and entry is not None:
            from .tess import find_patch_constant_function  # hull and domain stages only (test_import_budget)

            self.patch_constant = find_patch_constant_function(self, entry)
            self.check_recursion(self.patch_constant)
            seen = {id(f) for f in order}
            order = [f for f in self.reachable(self.patch_constant) if id(f) not in seen] + order
        if self.static_init.body:
            seen = {id(f) for f in order}
            order = [f for f in self.reachable(self.static_init_info) if id(f) not in seen] + order
        for f in order:      # the mesh parameters belong to the entry point (static_init has no declaration)
            params = f.decl.params if f.decl is not None else []
            q = _mesh_qualifier(params)
            if f is not entry and q is not None:
                p = next(p for p in params if q in p.qualifiers)
                raise error(f"'{q}' parameters are only allowed on a mesh shader's entry point", p.loc)
        errors = [d for f in order for d in f.stage_errors]
        if all(f is not self.static_init_info for f in order):
            # a static initialiser kept as its variable's `init` (no statements) is still compiled into
            # every entry: its stage errors count even when the static init function is not called
            errors += self.static_init_info.stage_errors
        if errors:
            raise CompileError(errors)
        if self.profile.stage not in GROUPSHARED_STAGES:
            self.globals = [g for g in self.globals if g.storage is not ir.Storage.WORKGROUP]
        undefined = [f for f in order if not f.defined]
        if undefined:
            f = undefined[0]
            raise error(f"function '{f.decl.name}' is declared but never defined", f.decl.loc)
        module = ir.Module(self.profile.stage, (self.profile.major, self.profile.minor))
        self.finish_globals_block([f.ir_func for f in self.funcs])
        module.functions = [f.ir_func for f in order]
        module.globals = used_heap_views_only(self.globals, module.functions)
        if entry is None:
            module.entries = [self.ray_entry_point(f, kind) for f, kind in shaders]
        else:
            module.entry = self.entry_point(entry)
        for ep in ir.entry_points(module):
            if self.static_init.body:
                ep.static_init = self.static_init
        module.source_files = source_files
        module.spec_constants = self.spec_constants
        module.subobjects = self.subobjects
        module.payload_access = self.payload_access
        module.field_locs = self.field_locs
        if library and self.subobjects:      # names the hit groups and associations refer to
            from .subobjects import check_exports, check_shader_config

            kinds = {info.decl.name: marked[0] for info in self.funcs
                     if info.defined and info.method_of is None and (marked := shader_kind(info.decl))}
            check_exports(self.subobjects, kinds, self.sink)
            check_shader_config(self.subobjects, module.entries, self.sink)
        return module

    def find_entry(self, main_file: str) -> FuncInfo:
        name = self.options.entry
        sym = self.scope.lookup(name)
        if not isinstance(sym, FuncSymbol) or not any(f.defined for f in sym.overloads):
            raise error(f"missing entry point definition '{name}'", SourceLoc(main_file, 1, 1))
        defined = [f for f in sym.overloads if f.defined]
        dropped = [f for f in defined if {"inline", "static"} & f.decl.qualifiers]
        if dropped and len(dropped) == len(defined):
            # DXC emits an inline or static function only when called, so such an entry point does not exist
            q = next(q for q in ("inline", "static") if q in dropped[0].decl.qualifiers)
            raise error(f"missing entry point definition '{name}'", SourceLoc(main_file, 1, 1),
                        [Diagnostic("note", f"'{name}' is declared '{q}': it is only emitted where it is called",
                                    dropped[0].decl.loc)])
        if len(defined) > 1:
            raise error(f"entry point '{name}' is overloaded", defined[1].decl.loc)
        return defined[0]

    def check_recursion(self, entry: FuncInfo) -> None:
        state: dict[int, int] = {}
        stack = [(entry, iter(entry.calls))]
        state[id(entry)] = 1
        while stack:
            f, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[id(f)] = 2
                stack.pop()
                continue
            callee, loc = nxt
            st = state.get(id(callee), 0)
            if st == 1:
                raise error(f"recursive call to function '{callee.decl.name}' is not allowed", loc)
            if st == 0:
                state[id(callee)] = 1
                stack.append((callee, iter(callee.calls)))

    def reachable(self, entry: FuncInfo) -> list[FuncInfo]:
        order: list[FuncInfo] = []
        seen: set[int] = set()

        def visit(f: FuncInfo) -> None:
            if id(f) in seen:
                return
            seen.add(id(f))
            for callee, _ in f.calls:
                visit(callee)
            order.append(f)

        visit(entry)
        return order

    def entry_point(self, info: FuncInfo) -> ir.EntryPoint:
        d = info.decl
        stage = self.profile.stage
        if stage == "vertex" and (d.semantic or "").upper() in ("POSITION", "POSITION0"):
            # SM 6 keeps D3D9's POSITION a user semantic: no clip-space position is written (DXC's hint)
            self.sink.warning(f"'{d.semantic}' is a user-defined semantic; did you mean 'SV_Position'?", d.loc)
        marked = shader_kind(d)
        if marked is not None and marked[0] != stage:
            at = next(a.loc for a in d.attributes if a.name == "shader")
            raise error(f"entry type '{stage}' from profile '{self.profile}' conflicts with shader attribute type "
                        f"'{marked[0]}' on entry function '{d.name}'.", at)      # DXC's words
        numthreads = None
        for a in d.attributes:
            if a.name == "numthreads":
                numthreads = tuple(self.attribute_uint(a.name, x) for x in a.args)
                for v, x in zip(numthreads, a.args):
                    if v < 1:
                        raise error("numthreads values must be at least 1", x.loc)
                if numthreads[0] * numthreads[1] * numthreads[2] > 1024:
                    raise error("numthreads total exceeds 1024 threads per group", a.loc)
                if numthreads[2] > 64:
                    raise error("numthreads Z value exceeds 64", a.args[2].loc)
                used = next((f.derivatives for f in self.reachable(info) if f.derivatives is not None), None)
                nx, ny, nz = numthreads
                if used is not None and (nx % 4 if ny == nz == 1 else nx % 2 or ny % 2):
                    raise error(f"derivatives need [numthreads] to be 1D and a multiple of 4, or 2D/3D with X and "
                                f"Y both multiples of 2 (not ({nx}, {ny}, {nz}))", a.loc,
                                notes=[Diagnostic("note", "a derivative is computed here", used)])
            if a.name == "wavesize":
                sizes = [self.attribute_uint(a.name, x) for x in a.args]
                problems = wave_size_problems(sizes, stage, self.profile.minor)
                if problems:
                    raise error(problems[0], a.loc)
        mesh = None
        if stage in ("mesh", "amplification"):
            from .mesh import mesh_info

            mesh = mesh_info(self, info, numthreads)
        if stage == "compute" and numthreads is None:
            raise error(f"compute entry point '{d.name}' requires the [numthreads(x, y, z)] attribute", d.loc)
        if stage == "compute" and not isinstance(info.return_type, ir.VoidType):
            raise error(f"compute entry point '{d.name}' must return void", d.loc)
        for p, t in zip(d.params, info.param_types):
            if isinstance(t, ir.Array) and isinstance(t.elem, ir.Resource) and t.elem.kind in STREAM_KINDS:
                raise error(f"entry parameter of type '{t.elem}' may not be an array", p.loc)     # DXC's words
            if isinstance(t, ir.Resource) and t.kind in STREAM_KINDS:
                if stage != "geometry":
                    raise error(f"stream parameter '{p.name}' is only allowed in a geometry shader", p.loc)
                continue
            if isinstance(t, ir.Resource) and p.type.name not in PATCH_TYPES:
                raise error(f"object '{t}' is not allowed in entry function parameters", p.loc)   # DXC's words
            if stage == "geometry" and isinstance(t, ir.Array):
                t = t.elem      # a primitive's vertices
            q = _mesh_qualifier([p])
            if stage == "mesh" and q is not None:
                continue        # vertices/primitives carry their semantics in their element type
            if q is not None:
                raise error(f"'{q}' parameters are only allowed in a mesh shader", p.loc)
            if p.semantic is None and not _has_field_semantics(t) and p.type.name not in PATCH_TYPES:
                raise error(f"parameter '{p.name}' of entry point '{d.name}' is missing a semantic",
                            self.unsemantic_member_loc(t) or p.loc)
        assert numthreads is None or len(numthreads) == 3   # the [numthreads] checks above index three
        geometry = self.geometry_info(info) if stage == "geometry" else None
        ep = ir.EntryPoint(d.name, stage, info.ir_func, numthreads=numthreads, return_semantic=d.semantic,
                           return_location=self.vk_io_attributes(d.attributes)[0], geometry=geometry)
        if stage in ("hull", "domain"):
            from .tess import tess_info

            ep.tess = tess_info(self, info, self.patch_constant)
        if stage in ("mesh", "amplification"):
            ep.mesh = mesh
        ep.modes = entry_modes(d.attributes, stage, self.sink.warning)
        ep.wave_size = next((tuple(self.attribute_uint(a.name, x) for x in a.args)
                             for a in d.attributes if a.name == "wavesize"), None)
        return ep

    def geometry_info(self, info: FuncInfo) -> ir.GeometryInfo:
        """A geometry entry's attributes, input primitive and streams, checked against D3D's rules."""
        d = info.decl
        attrs = {a.name: a for a in d.attributes}
        if "maxvertexcount" not in attrs:
            raise error(f"geometry entry point '{d.name}' requires the [maxvertexcount(N)] attribute", d.loc)
        a = attrs["maxvertexcount"]
        max_vertices = self.const_int(a.args[0])
        if not 1 <= max_vertices <= 1024:
            raise error(f"maxvertexcount must be between 1 and 1024, not {max_vertices}", a.args[0].loc)
        instances = 1
        if "instance" in attrs:
            a = attrs["instance"]
            instances = self.const_int(a.args[0])
            if not 1 <= instances <= 32:
                raise error(f"instance count must be between 1 and 32, not {instances}", a.args[0].loc)
        if not isinstance(info.return_type, ir.VoidType):
            raise error(f"geometry entry point '{d.name}' must return void: vertices are written with "
                        f"Append on a stream parameter", d.loc)
        primitive, streams, stream_locs = None, [], []
        for p, t, direction in zip(d.params, info.param_types, info.param_dirs):
            prims = [q for q in INPUT_PRIMITIVES if q in p.qualifiers]
            if isinstance(t, ir.Resource) and t.kind in STREAM_KINDS:
                if direction != "inout":
                    raise error(f"stream parameter '{p.name}' must be declared 'inout'", p.loc)
                streams.append(STREAM_KINDS[t.kind])
                stream_locs.append(p.loc)
            elif prims:
                if primitive is not None:
                    raise error("a geometry shader has one input primitive parameter", p.loc)
                primitive, input_param = prims[0], p.name
                want = INPUT_PRIMITIVES[primitive]
                if not isinstance(t, ir.Array) or t.size != want:
                    got = f"'{p.name}[{t.size}]'" if isinstance(t, ir.Array) else "a single vertex"
                    raise error(f"input primitive '{primitive}' has {want} vertices: declare '{p.name}[{want}]', "
                                f"not {got}", p.loc)
            elif isinstance(t, ir.Array) and p.semantic is None:
                raise error(f"geometry shader input '{p.name}' needs an input primitive type (point, line, "
                            f"triangle, lineadj or triangleadj)", p.loc)
        if primitive is None:
            raise error(f"geometry entry point '{d.name}' needs an input primitive parameter such as "
                        f"'triangle V input[3]'", d.loc)
        if not streams:
            raise error(f"geometry entry point '{d.name}' needs an 'inout' stream parameter (PointStream, "
                        f"LineStream or TriangleStream)", d.loc)
        if len(streams) > 4:
            raise error("a geometry shader has at most 4 output streams", stream_locs[4])
        if len(streams) > 1 and set(streams) != {"point"}:
            bad = next(i for i, s in enumerate(streams) if s != "point")
            raise error("a geometry shader with several output streams must write points: every stream must be a "
                        "PointStream", stream_locs[bad])
        return ir.GeometryInfo(max_vertices, instances, primitive, tuple(streams), input_param)


class MemberOfThis(VarSymbol):
    """A struct field seen from inside a method: FieldRef(VarRef(this), index)."""

    __slots__ = ("index",)
    if TYPE_CHECKING:
        index: int = 0      # a slot set after construction, not a field


def _stores_to(s: ir.Stmt, var: ir.Variable) -> bool:
    if not isinstance(s, ir.Store):
        return False
    root = s.place
    while isinstance(root, (ir.FieldRef, ir.IndexRef, ir.SwizzleRef)):
        root = root.base
    return isinstance(root, ir.VarRef) and root.var is var


def _assign_state(stmts: list[ir.Stmt], var: ir.Variable) -> tuple[bool, bool]:
    """(some path leaves the function with `var` unassigned, `var` is assigned at the end)."""
    exits = False
    for s in stmts:
        if _stores_to(s, var):
            return exits, True
        if isinstance(s, (ir.Return, ir.Discard)):
            return True, False
        if isinstance(s, ir.If):
            e1, a1 = _assign_state(s.then, var)
            e2, a2 = _assign_state(s.else_, var)
            exits = exits or e1 or e2
            if a1 and a2:
                return exits, True
        elif isinstance(s, ir.Loop):
            e, _ = _assign_state(s.body, var)
            exits = exits or e
        elif isinstance(s, ir.Switch):
            results = [_assign_state(c.body, var) for c in s.cases]
            exits = exits or any(e for e, _ in results)
            if any(c.is_default for c in s.cases) and all(a for _, a in results):
                return exits, True
    return exits, False


def definitely_assigned(body: list[ir.Stmt], var: ir.Variable) -> bool:
    """Conservative: True only when every path through `body` stores to `var`."""
    exits, assigned = _assign_state(body, var)
    return assigned and not exits


def _declared_names(d: ast.Node) -> list[str]:
    """The names a declaration (or declaration statement) introduces."""
    if isinstance(d, ast.DeclStmt):
        return [n for x in d.decls for n in _declared_names(x)]
    if isinstance(d, ast.CBufferDecl):
        return [d.name, *(m.name for m in d.members)]
    if isinstance(d, ast.EnumDecl):
        return [name if not (d.scoped and d.name) else f"{d.name}::{name}" for name, _, _ in d.members]
    if isinstance(d, (ast.VarDecl, ast.FuncDecl, ast.StructDecl, ast.TypedefDecl)):
        return [d.name]
    return []


def _names_in(e: ast.Expr) -> Iterator[ast.Name]:
    """The unqualified names an expression reads (not through a member or a call's callee name)."""
    if isinstance(e, ast.Name):
        yield e
    elif isinstance(e, ast.UnaryOp | ast.Cast):
        yield from _names_in(e.operand)
    elif isinstance(e, ast.BinaryOp):
        yield from _names_in(e.lhs)
        yield from _names_in(e.rhs)
    elif isinstance(e, ast.Conditional):
        for x in (e.cond, e.true, e.false):
            yield from _names_in(x)
    elif isinstance(e, ast.Comma | ast.InitList):
        for x in (e.exprs if isinstance(e, ast.Comma) else e.items):
            yield from _names_in(x)
    elif isinstance(e, ast.CallExpr):
        for x in e.args:
            yield from _names_in(x)
    elif isinstance(e, ast.Member):
        yield from _names_in(e.base)
    elif isinstance(e, ast.Index):
        yield from _names_in(e.base)
        yield from _names_in(e.index)


def _template_signature(d: ast.FuncDecl) -> tuple:
    """What makes two function templates the same one (their parameters' names do not): the parameter and
    return types written, template parameters numbered by position."""
    position = {name: f"#{k}" for k, name in enumerate(d.template_params or [])}

    def spelled(t: ast.TypeRef) -> str:
        args = ",".join(spelled(a) if isinstance(a, ast.TypeRef) else "?" for a in t.args)
        return position.get(t.name, t.name) + (f"<{args}>" if t.args else "")
    return (len(position), spelled(d.return_type), tuple((spelled(p.type), len(p.dims)) for p in d.params))


def _member_of(d: ast.Node, struct: str) -> bool:
    """A static member (data or function) of `struct` that the parser placed after it (it has the struct's type)."""
    return isinstance(d, ast.VarDecl | ast.FuncDecl) and d.name.startswith(struct + "::")


def _declared_only(d: ast.StructDecl) -> bool:
    """A struct template declared without a body (its use needs a specialisation)."""
    return bool(d.attributes) and d.attributes[0].name == ast.DECLARED_ONLY


def _has_unsized_param(info: FuncInfo) -> bool:
    return any(_unsized_value_array(t) for t in info.param_types)


def _unsemantic_member(t: ir.Struct) -> tuple[ir.Struct, int] | None:
    """The first (innermost) member of `t` that has no semantic and no struct type whose members all have one."""
    for i, f in enumerate(t.fields):
        if f.semantic is None and not _has_field_semantics(f.type):
            inner = _unsemantic_member(f.type) if isinstance(f.type, ir.Struct) else None
            return inner or (t, i)
    return None


def _has_field_semantics(t: ir.Type) -> bool:
    return isinstance(t, ir.Struct) and all(f.semantic is not None or _has_field_semantics(f.type) for f in t.fields)


def analyze(tu: ast.TranslationUnit, options: CompileOptions, profile: Profile, sink: DiagnosticSink,
            source_files: list[str], main_file: str, caps: Capabilities = DEFAULT) -> ir.Module:
    """Type-check the translation unit and lower it to an ir.Module for a target with `caps`."""
    if caps.vulkan_attributes and tu.vk_unimplemented:
        a = tu.vk_unimplemented[0]
        raise error(f"attribute '{a.name}' is not supported when compiling for Vulkan", a.loc)
    an = Analyzer(options, profile, sink, caps)
    return an.run(tu, source_files, main_file)


def _local_only(t: ir.Type, loc: SourceLoc, what: str) -> None:
    """A RayQuery is a function-local object (or a parameter naming the caller's): refuse it as `what`."""
    if isinstance(t, ir.RayQuery):
        raise error(f"'{t}' cannot be {what}: a RayQuery must be a local variable of the function that uses it", loc)


def _with_elem(t: ir.Type, elem: ir.Type) -> ir.Type:
    """The array type t with its innermost element replaced by elem."""
    return ir.Array(_with_elem(t.elem, elem), t.size) if isinstance(t, ir.Array) else elem


def _param_direction(p: ast.VarDecl) -> str:
    """'in', 'out' or 'inout' ('in out' written as two qualifiers is 'inout')."""
    q = p.qualifiers
    return "inout" if "inout" in q or ("in" in q and "out" in q) else "out" if "out" in q else "in"


def _param_type(t: ir.Type) -> ir.Type:
    """A `ConstantBuffer<T>` / `TextureBuffer<T>` parameter is an `in T`: the buffer cannot change during the
    invocation, so the callee reading a copy of the block reads what DXC's handle would (the argument, a
    block variable, already has type T)."""
    if isinstance(t, ir.Resource) and KINDS[t.kind].element == "block":
        assert t.elem is not None       # sema requires a struct template argument
        return t.elem
    return t


def _mesh_qualifier(params: list[ast.VarDecl]) -> str | None:
    """The first mesh-parameter qualifier of `params` in sema/mesh.py's order (PARAMS), which is
    imported only when there is one (cold start, issue 15)."""
    if not any(q in MESH_QUALIFIERS for p in params for q in p.qualifiers):
        return None
    from .mesh import PARAMS

    return next((q for p in params for q in PARAMS if q in p.qualifiers), None)


def _predefined_scope() -> Scope:
    """The predefined enumerations (RAY_FLAG_*, COMMITTED_*, ...: ir/raytracing.py; the subobjects'
    STATE_OBJECT_FLAG_*, ...: ir/subobjects.py), in a scope below the user's global scope, so that a
    declaration of the same name shadows them."""
    scope = Scope()
    for name, value in RT_CONSTANTS.items():
        scope.names[name] = EnumConstSymbol(value, ir.UINT)
    for name, value in SUBOBJECT_CONSTANTS.items():
        scope.names[name] = EnumConstSymbol(value, ir.UINT)
    return scope


def _struct_resource(t: ir.Type, path: str) -> tuple[str, ir.Resource] | None:
    """The first resource member (its path, e.g. 'S.t') of a struct type, through arrays."""
    while isinstance(t, ir.Array):
        t = t.elem
    if isinstance(t, ir.Struct):
        for f in t.fields:
            inner = f.type
            while isinstance(inner, ir.Array):
                inner = inner.elem
            if isinstance(inner, ir.Resource):
                return f"{path}.{f.name}", inner
            found = _struct_resource(f.type, f"{path}.{f.name}")
            if found is not None:
                return found
    return None


def _refuse_struct_resource(name: str, t: ir.Type, loc: SourceLoc) -> None:
    """A variable of a struct type with a resource member: a located error (the layout code has no place
    for a resource, and resource members are not split into separate resources)."""
    elem = t
    while isinstance(elem, ir.Array):
        elem = elem.elem
    if not isinstance(elem, ir.Struct):
        return
    found = _struct_resource(elem, elem.name)
    if found is not None:
        raise error(f"'{name}' has type '{t}', whose member '{found[0]}' is a resource ('{found[1]}'): structs with "
                    f"resource members are not supported yet; declare the resource as a global", loc)


def _other_class_accepted(base: ir.Resource, written: str) -> bool:
    """DXC's Sema (DiagnoseRegisterType) lets a texture take an 's' register and a sampler a 't' one; its
    codegen then uses the number in the resource's own class (DXIL) and the written letter's shift (SPIR-V)."""
    k = KINDS[base.kind]
    texture = k.access == "SRV" and k.rep == "typed" and k.dim not in (None, "Buffer")
    return (texture and written == "s") or (k.rep == "sampler" and written == "t")
