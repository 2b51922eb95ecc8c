"""shaderbuild IR -> DXIL-shaped LLVM module.

One `FunctionLowerer` turns the entry wrapper into a single LLVM function:
calls are inlined (out/inout arguments alias the caller's temporaries),
values are scalarised (lists of LLVM scalars), locals live in per-leaf
allocas, structured control flow becomes branches/switches, and stage I/O,
resources and intrinsics become dx.op calls.  `lower_module` wraps it with
the module-level parts (resources, signatures, metadata inputs).
"""

from __future__ import annotations

from shaderbuild import ir
from shaderbuild.diagnostics import CompileError, error, locate, stmt_loc
from shaderbuild.ir.d3d_numerics import conversion_bounds, float_to_int, int_div, int_mod, int_range
from shaderbuild.ir.layout import layout_of
from shaderbuild.lightstd import cache
from shaderbuild.records import DataRecord

from .buffers import BufferAccess
from .cleanup import clean_up
from .context import (
    DATALAYOUT_LEGACY,
    DATALAYOUT_NATIVE16,
    TRIPLE,
    ModuleContext,
    payload_bytes,
    payload_struct,
    used_globals,
)
from .llvm import types as T
from .llvm.builder import IRBuilder
from .llvm.metadata import DINode
from .llvm.values import TERMINATORS, BasicBlock, ConstFloat, ConstInt, Function, Undef, Value, int_type_of
from .lowered import LoweredModule
from .ops import (
    LOAD_INPUT,
    LOAD_PATCH_CONSTANT,
    STORE_OUTPUT,
    STORE_PATCH_CONSTANT,
    STORE_PRIMITIVE_OUTPUT,
    STORE_VERTEX_OUTPUT,
    get_op,
    overload_name,
)
from .places import (
    AddrPlace,
    BufferPlace,
    CBufPlace,
    CompPlace,
    DynCompPlace,
    IOPlace,
    LocalResourcePlace,
    MemPlace,
    Place,
    ResourcePlace,
    VarStorage,
)
from .resources import KIND_CBUFFER, KIND_TBUFFER, HandleFactory
from .scalarize import (
    component_types,
    field_leaf_base,
    leaf_layout,
    leaf_of_components,
    llvm_scalar,
    memory_scalar,
    subrange,
)
from .signature import (
    COMPUTE_BUILTINS,
    GS_INTRINSIC_INPUTS,
    INTRINSIC_INPUTS,
    TESS_INTRINSIC_INPUTS,
    THREAD_GROUP_STAGES,
    SigElement,
    build_signature,
    check_mesh_signatures,
    record_call_usage,
    struct_array_leaves,
)
from .ssa import EdgeRecordingBuilder, SSABuilder
from .statics import fold_static_initializers

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from .debuginfo import DebugInfo  # -Zi only (backend._debug_info)

__all__ = ["lower_module", "LoweredModule", "FunctionLowerer", "DATALAYOUT_LEGACY", "DATALAYOUT_NATIVE16",
           "TRIPLE"]

MAX_INLINE_DEPTH = 64

_FLOAT_BINOPS = {"add": "fadd", "sub": "fsub", "mul": "fmul", "div": "fdiv", "mod": "frem"}
_INT_BINOPS = {"add": "add", "sub": "sub", "mul": "mul", "shl": "shl", "bitand": "and", "bitor": "or",
               "bitxor": "xor", "land": "and", "lor": "or"}
_SIGNED_BINOPS = {"div": ("sdiv", "udiv"), "mod": ("srem", "urem"), "shr": ("ashr", "lshr")}
_INT_FOLD = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
             "and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b}
_ZERO = ConstInt(T.i32, 0)      # a variable place's element index (folded away before use as an operand)
_FCMP = {"eq": "oeq", "ne": "une", "lt": "olt", "le": "ole", "gt": "ogt", "ge": "oge"}
_ICMP_SIGNED = {"eq": "eq", "ne": "ne", "lt": "slt", "le": "sle", "gt": "sgt", "ge": "sge"}
# enum members read once (a class attribute read of an Enum member is slow in CPython 3.11);
# tested by identity (members are singletons)
_IO_STORAGES = (ir.Storage.INPUT, ir.Storage.OUTPUT)
_FUNCTION_STORAGE = ir.Storage.FUNCTION
_ICMP_UNSIGNED = {"eq": "eq", "ne": "ne", "lt": "ult", "le": "ule", "gt": "ugt", "ge": "uge"}


class _Frame(DataRecord):
    storages: dict[int, VarStorage]
    ret_slot: VarStorage | None
    exit_block: BasicBlock                 # where a `return` branches to
    returned: VarStorage | None = None     # set by a return inside a loop or switch (see _leave)
    continued: VarStorage | None = None    # set by a `continue` inside a switch (see _continue)


class _LoopTargets(DataRecord):
    brk: BasicBlock
    cont: BasicBlock | None                # None: a switch
    returned: bool = False                 # a return breaks out of it: the flag is checked at `brk`
    continued: bool = False                # a switch a `continue` breaks out of: the flag is checked at `brk`


@cache
def _lower_intrinsic() -> Callable[[FunctionLowerer, ir.Intrinsic], list[Value]]:
    """intrinsics.lower_intrinsic, imported on a shader's first intrinsic call: its handler table is
    ~87 KB of bytecode that a shader calling none never runs (issue 23)."""
    from .intrinsics import lower_intrinsic

    return lower_intrinsic


class FunctionLowerer:
    """Lowers the entry wrapper (and, by inlining, everything it calls)."""

    def __init__(self, mod: ModuleContext, name: str | None = None, params: tuple[T.Type, ...] = (),
                 source: ir.Function | None = None) -> None:
        self.m = mod
        self.source = source         # a library shader's HLSL function (-Zi: its DISubprogram describes ours)
        self.ops = mod.ops
        self.sm = mod.sm
        self.native16 = mod.native16
        self.optimize = mod.optimize
        self.fn = mod.llmod.add_function(T.FunctionType(T.void, params), name or mod.entry_name)
        # a ray-tracing entry's struct parameters: (IR variable, its pointer argument, written back?)
        self.struct_params: list[tuple[ir.Variable, Value, bool]] = []
        self.alloca_block = self.fn.append_block("entry")
        self.alloca_builder = IRBuilder(self.alloca_block)
        first = self.fn.append_block()
        # locals' scalar components become SSA values as they are lowered (ssa.py); without
        # optimisation every local stays in an alloca
        self.ssa = SSABuilder() if mod.optimize else None
        self.b = EdgeRecordingBuilder(first, self.ssa)
        self.seal(first)                 # entered only from the alloca block: no local is defined there
        self.buffers = BufferAccess(self)
        self.handles = HandleFactory(self.ops, self.sm)
        self._handle_cache: dict[tuple[int, int], Value] = {}
        self._handle_builder = self.alloca_builder
        self.frames: list[_Frame] = []
        self.loops: list[_LoopTargets] = []
        self.local_resources: dict[int, list[ResourcePlace | None]] = {}
        self.ray_queries: dict[int, Value] = {}          # RayQuery local -> its allocateRayQuery handle
        self.control_depth = 0
        self._local_res_depth: dict[int, int] = {}
        self._consts: dict[tuple, Value] = {}             # scalar_const
        self.debug = mod.debug                            # -Zi: a DebugInfo, else None
        self.dbg_scope: DINode | None = None              # the DISubprogram and inlinedAt being lowered
        self.dbg_inlined: DINode | None = None
        if self.debug is not None:
            self.b.dbg_locs = self.debug.locs

    # ------------------------------------------------------------------ helpers
    def add(self, a: Value, b: Value) -> Value:
        if isinstance(a, ConstInt) and isinstance(b, ConstInt):
            return ConstInt(a.type, a.value + b.value)
        if isinstance(b, ConstInt) and b.value == 0:
            return a
        if isinstance(a, ConstInt) and a.value == 0:
            return b
        return self.b.add(a, b)

    def add_const(self, a: Value, k: int) -> Value:
        return self.add(a, ConstInt(T.i32, k))

    def mul_add(self, idx: Value, m: int, k: int) -> Value:
        """idx * m + k with constant folding (element addressing)."""
        if isinstance(idx, ConstInt):
            return ConstInt(T.i32, idx.value * m + k)
        v = idx if m == 1 else self.b.mul(idx, ConstInt(T.i32, m))
        return self.add_const(v, k) if k else v

    def mul(self, a: Value, b: Value) -> Value:
        return self.b.fmul(a, b) if isinstance(a.type, T.FloatType) else self.b.mul(a, b)

    def truthy(self, v: Value) -> Value:
        if v.type == T.i1:
            return v
        if isinstance(v, ConstInt):
            return ConstInt(T.i1, v.value != 0)
        if isinstance(v.type, T.FloatType):
            return self.b.fcmp("une", v, ConstFloat(v.type, 0.0))
        return self.b.icmp("ne", v, ConstInt(int_type_of(v), 0))

    def const_values(self, t: ir.Type, value: object) -> list[Value]:
        kinds = _const_kinds(t)
        c = self.scalar_const
        if isinstance(value, (tuple, list)):
            if len(value) != len(kinds):
                raise ValueError(f"constant of '{t}' has {len(value)} components, expected {len(kinds)}")
            return [c(lt, f, v) for (lt, f), v in zip(kinds, value)]
        if not kinds:
            return []
        lt, f = kinds[0]
        if len(kinds) == 1 or kinds.count(kinds[0]) == len(kinds):   # a splat: one constant, n uses
            return [c(lt, f, value)] * len(kinds)
        return [c(lt, f, value) for lt, f in kinds]

    def scalar_const(self, lt: T.IntType | T.FloatType, is_float: bool, v: Any) -> Value:     # v: a Python number
        """The constant `v` of register type `lt`: one object per (type, value) in the function
        (equal constants are one value in the output anyway), except zeros and NaNs of floats,
        whose equality does not follow their bits (-0.0 == 0.0, NaN != NaN)."""
        if is_float:
            assert isinstance(lt, T.FloatType)
            fv = float(v)
            if fv == 0.0 or fv != fv:
                return ConstFloat(lt, fv)
            key: tuple = (lt, fv)
        else:
            key = (lt, int(v))
        c = self._consts.get(key)
        if c is None:
            c = self._consts[key] = ConstFloat(lt, fv) if isinstance(lt, T.FloatType) else ConstInt(lt, key[1])
        return c

    def new_block(self, name: str = "") -> BasicBlock:
        return self.fn.append_block(name)

    def set_block(self, bb: BasicBlock) -> None:
        self.b.position_at_end(bb)

    def seal(self, bb: BasicBlock) -> None:
        """Every predecessor of `bb` has been built (SSA construction may complete its phis)."""
        if self.ssa is not None:
            self.ssa.seal(bb)

    def branch_to(self, bb: BasicBlock) -> None:
        assert self.b.block is not None     # lowering always has an insertion block
        if self.b.block.terminator is None:
            self.b.br(bb)

    # ------------------------------------------------------------------ storage
    def make_storage(self, var: ir.Variable) -> VarStorage:
        try:
            return self._make_storage(var)
        except CompileError as exc:         # a size limit: at the declaration
            locate(exc, var.loc)
            raise

    def _make_storage(self, var: ir.Variable) -> VarStorage:
        lay = leaf_layout(var.type)
        ssa = self.ssa
        if ssa is not None:
            regs = _single_leaf_registers(var.type)
            if regs is not None:             # every leaf one element: SSA variables only, no memory
                return VarStorage.registers(var, ssa.new_vars(regs), list(lay.mult), list(lay.leaves))
        ptrs: list[Value | None] = []
        nums: list[int] | None = [] if ssa is not None else None
        for s, n in zip(lay.leaves, lay.mult):
            if ssa is not None:
                assert nums is not None
                if n == 1:                       # a scalar component: an SSA variable, no memory
                    nums.append(ssa.new_var(llvm_scalar(s)))
                    ptrs.append(None)
                    continue
                nums.append(-1)                  # an indexable array stays in memory
            mt = memory_scalar(s)
            t = mt if n == 1 else T.ArrayType(mt, n)
            ptrs.append(self.alloca_builder.alloca(t, align=max(1, mt.width // 8) if not mt == T.i1 else 4))
        return VarStorage(var, ptrs, list(lay.mult), list(lay.leaves), nums)

    def storage_of(self, var: ir.Variable) -> VarStorage:
        for fr in reversed(self.frames):
            st = fr.storages.get(id(var))
            if st is not None:
                return st
        st = self.m.global_storages.get(id(var))
        if st is not None:
            return st
        if var.storage is ir.Storage.PAYLOAD:          # a mesh shader's `in payload`: getMeshPayload
            st = self.m.global_storages[id(var)] = self._mesh_payload(var)
            return st
        if var.storage is _FUNCTION_STORAGE:           # a local not listed in Function.locals
            st = self.make_storage(var)
            self.frames[-1].storages[id(var)] = st
            return st
        raise error(f"variable '{var.name}' ({var.storage.value}) is not supported by the DXIL backend yet", var.loc)

    def _mesh_payload(self, var: ir.Variable) -> VarStorage:
        """The payload: an amplification shader's groupshared global, the pointer a mesh shader's
        getMeshPayload returns (once, in the entry block); one GEP per leaf."""
        b = self._handle_builder
        ptr = self.m.payload_globals.get(id(var))
        if ptr is None:
            st_type = payload_struct(var)
            fn = self.m.ops.declare_udt("GetMeshPayload", st_type, T.PointerType(st_type), [])
            ptr = b.call(fn, [ConstInt(T.i32, get_op("GetMeshPayload").opcode)])
        lay = leaf_layout(var.type)
        return VarStorage(var, [ptr] * len(lay.leaves), list(lay.mult), list(lay.leaves), base=ptr)

    def payload_pointer(self, var: ir.Variable) -> Value:
        g = self.m.payload_globals.get(id(var))
        if g is None:
            raise error(f"'{var.name}' is not an amplification shader's payload", var.loc)
        return g

    # ------------------------------------------------------------------ places
    def place(self, e: ir.Expr) -> Place:
        if type(e) is ir.VarRef:
            return self._var_place(e.var)
        if type(e) is ir.SwizzleRef:
            return self._components(self.place(e.base), list(e.comps), e.type)
        if type(e) is ir.FieldRef:
            return self._field(self.place(e.base), e.index, e.type)
        if isinstance(e, ir.VarRef):
            return self._var_place(e.var)
        if isinstance(e, ir.FieldRef):
            base = self.place(e.base)
            return self._field(base, e.index, e.type)
        if isinstance(e, ir.IndexRef):
            base = self.place(e.base)
            return self._index(base, e.index, e.type)
        if isinstance(e, ir.SwizzleRef):
            base = self.place(e.base)
            return self._components(base, list(e.comps), e.type)
        if isinstance(e, ir.BufferElem):
            res = self.resource_place(e.resource)
            idx = self.expr(e.index)
            index: Value | list[Value] = idx[0] if len(idx) == 1 else idx
            rt = e.resource.type
            return BufferPlace(res.res, self.handle(res), index, e.type,
                               row_major=rt.row_major if isinstance(rt, ir.Resource) else None)
        raise error(f"expression '{type(e).__name__}' is not a place")

    def _var_place(self, var: ir.Variable) -> Place:
        st = self.frames[-1].storages.get(id(var)) if self.frames else None
        if st is not None:               # a local of the current function (the common case)
            return MemPlace(st, var.type, 0, _ZERO)
        if var.binding is not None:
            info = self.m.resource_of(var)
            if info.shape in (KIND_CBUFFER, KIND_TBUFFER) and not _is_resource_type(var.type) \
                    and not isinstance(var.type, ir.Array):     # an array of ConstantBuffer: a CBV range (_index)
                return CBufPlace(info, self.handle(ResourcePlace(info, var.type, ConstInt(T.i32, 0))), var.type)
            return ResourcePlace(info, var.type, ConstInt(T.i32, 0))
        if var.storage in _IO_STORAGES:
            return IOPlace(var, var.type, list(range(len(component_types(var.type)))))
        if _is_resource_type(var.type):
            slots = self.local_resources.setdefault(id(var), [None] * _resource_slots(var.type))
            return LocalResourcePlace(var, var.type, list(range(len(slots))))
        st = self.storage_of(var)
        return MemPlace(st, var.type, 0, _ZERO)

    def _field(self, base: Place, index: int, t: ir.Type) -> Place:
        if isinstance(base, MemPlace):
            return MemPlace(base.storage, t, base.leafbase + field_leaf_base(base.type, index), base.idx)
        if isinstance(base, BufferPlace):
            lay = layout_of(base.type, "dx_structured", bool(base.row_major))
            assert isinstance(base.type, ir.Struct)     # a field of a struct
            f = base.type.fields[index]
            rm = base.row_major if f.row_major is None else f.row_major
            return BufferPlace(base.res, base.handle, base.index, t, base.offset + lay.offsets[index],
                               base.dyn_offset, row_major=rm)
        if isinstance(base, ResourcePlace) and base.res.shape in (KIND_CBUFFER, KIND_TBUFFER):  # ConstantBuffer<T>
            assert base.res.elem is not None    # ConstantBuffer<T>: T
            base = CBufPlace(base.res, self.handle(base), base.res.elem)
        if isinstance(base, CBufPlace):
            st = base.type
            assert isinstance(st, ir.Struct)    # a field of a struct
            lay = layout_of(st, "dx_cbuffer")
            f = st.fields[index]
            rm = base.row_major if f.row_major is None else f.row_major
            return CBufPlace(base.res, base.handle, t, base.offset + lay.offsets[index], base.dyn_row, rm)
        start, n, _ = subrange(base.type, index)
        return self._components(base, list(range(start, start + n)), t)

    def _index(self, base: Place, index_expr: ir.Expr, t: ir.Type) -> Place:
        bt = base.type
        iv = self.expr(index_expr)[0]
        if isinstance(base, ResourcePlace):
            n = bt.size if isinstance(bt, ir.Array) and bt.size is not None else 1
            flat = iv if isinstance(base.index, ConstInt) and base.index.value == 0 else \
                self.add(self.mul_add(base.index, n, 0), iv)
            non_uniform = base.non_uniform or any(isinstance(x, ir.Intrinsic) and x.name == "NonUniformResourceIndex"
                                                  for x in ir.walk_expr(index_expr))
            place = ResourcePlace(base.res, t, flat, non_uniform)
            if base.res.shape in (KIND_CBUFFER, KIND_TBUFFER) and isinstance(t, ir.Struct):   # cbs[N]: cbs[i]
                return CBufPlace(base.res, self.handle(place), t)
            return place
        if isinstance(base, LocalResourcePlace):
            assert isinstance(iv, ConstInt)     # (passes/resource_locals.py: see resource_place)
            per = _resource_slots(t)
            return LocalResourcePlace(base.var, t, base.slots[iv.value * per:(iv.value + 1) * per])
        if isinstance(base, IOPlace) and _point_type(base.var) is not base.var.type and base.vertex is None:
            # one control point of a per-control-point variable: its element, at that vertex
            return IOPlace(base.var, t, list(range(len(component_types(t)))), iv)
        if isinstance(base, IOPlace) and base.vertex is not None and isinstance(bt, ir.Array) \
                and not isinstance(iv, ConstInt) and ir.io_of(base.var).mesh:
            raise error(f"an array-typed mesh shader output ('{ir.io_of(base.var).semantic}') is indexed with a "
                        f"value known only at run time: the DXIL backend needs a constant index there", base.var.loc)
        if isinstance(bt, ir.Array):
            if isinstance(base, MemPlace):
                assert bt.size is not None      # a variable's arrays are sized
                return MemPlace(base.storage, t, base.leafbase, self.add(self.mul_add(base.idx, bt.size, 0), iv))
            if isinstance(base, BufferPlace):
                stride = layout_of(bt, "dx_structured", bool(base.row_major)).array_stride
                assert stride is not None       # an array's layout has one
                return self._buffer_offset(base, t, iv, stride)
            if isinstance(base, CBufPlace):
                stride = layout_of(bt, "dx_cbuffer", bool(base.row_major)).array_stride
                assert stride is not None       # an array's layout has one
                if isinstance(iv, ConstInt):
                    return CBufPlace(base.res, base.handle, t, base.offset + iv.value * stride, base.dyn_row,
                                     base.row_major)
                if stride % 16:
                    raise error("dynamic cbuffer array indexing with a stride not a multiple of 16")
                rows = self.mul_add(iv, stride // 16, 0)
                dyn = rows if base.dyn_row is None else self.add(base.dyn_row, rows)
                return CBufPlace(base.res, base.handle, t, base.offset, dyn, base.row_major)
            n = len(component_types(t))
            assert bt.size is not None          # a variable's arrays are sized
            groups = [list(range(k * n, (k + 1) * n)) for k in range(bt.size)]
        else:
            if isinstance(bt, ir.Vector):
                groups = [[k] for k in range(bt.size)]
            elif isinstance(bt, ir.Matrix):
                groups = [list(range(r * bt.cols, (r + 1) * bt.cols)) for r in range(bt.rows)]
            else:
                raise error(f"cannot index '{bt}'")
        if isinstance(iv, ConstInt):
            return self._components(base, groups[iv.value] if iv.value < len(groups) else groups[-1], t)
        if isinstance(base, MemPlace):
            base = base.as_addr(self)
        return DynCompPlace(base, groups, iv, t)

    def _buffer_offset(self, base: BufferPlace, t: ir.Type, iv: Value, stride: int) -> BufferPlace:
        if isinstance(iv, ConstInt):
            return BufferPlace(base.res, base.handle, base.index, t, base.offset + iv.value * stride, base.dyn_offset,
                               row_major=base.row_major)
        off = self.mul_add(iv, stride, 0)
        dyn = off if base.dyn_offset is None else self.add(base.dyn_offset, off)
        return BufferPlace(base.res, base.handle, base.index, t, base.offset, dyn, row_major=base.row_major)

    def _components(self, base: Place, comps: list[int], t: ir.Type) -> Place:
        if isinstance(base, MemPlace):
            return base.pick(self, comps, t)
        if isinstance(base, AddrPlace):
            return base.pick(comps, t)
        if isinstance(base, IOPlace):
            return IOPlace(base.var, t, [base.comps[c] for c in comps], base.vertex)
        return CompPlace(base, comps, t)

    # ------------------------------------------------------------------ resources
    def handle(self, p: ResourcePlace) -> Value:
        if isinstance(p.index, ConstInt):
            key = (id(p.res), p.index.value)
            h = self._handle_cache.get(key)
            if h is None:
                term = self.alloca_block.instructions
                h = self.handles.create(self._handle_builder, p.res, p.index)
                assert term[-1] is h
                self._handle_cache[key] = h
            return h
        return self.handles.create(self.b, p.res, p.index, p.non_uniform)

    def _allocate_ray_query(self, v: ir.Variable) -> None:
        """A RayQuery local: one allocateRayQuery (with the object's template flags) in the entry
        block, for the local's whole life (each inlined copy of a function gets its own)."""
        assert isinstance(v.type, ir.RayQuery)
        self.ray_queries[id(v)] = self.ops.call(self.alloca_builder, "AllocateRayQuery", None,
                                                [ConstInt(T.i32, v.type.flags)])

    def ray_query(self, e: ir.Expr) -> Value:
        """The allocateRayQuery handle of the RayQuery local `e` names."""
        if not (isinstance(e, ir.VarRef) and id(e.var) in self.ray_queries):
            raise error("a RayQuery method must be called on a RayQuery local variable")
        return self.ray_queries[id(e.var)]

    def resource_place(self, e: ir.Expr) -> ResourcePlace:
        """The single resource an expression (global, array element or local copy) refers to."""
        p = self.place(e.place if isinstance(e, ir.Load) else e)
        if isinstance(p, LocalResourcePlace):
            slots = self._resolve_resource(p)
            # passes/resource_locals.py rewrote every use of a local resource from a program to its global and
            # refused the rest ('used before it is assigned', 'indexed dynamically but does not hold ...',
            # 'depends on control flow', 'cannot be used as a whole here'): only IR built by hand gets here
            assert len(slots) == 1 and slots[0] is not None
            return slots[0]
        if not isinstance(p, ResourcePlace):
            raise error("expected a resource")
        return p

    def _resolve_resource(self, p: Place) -> list[ResourcePlace | None]:
        if isinstance(p, ResourcePlace):
            n = _resource_slots(p.type)
            return [ResourcePlace(p.res, _resource_elem(p.type), self.add_const(self.mul_add(p.index, n, 0), k))
                    for k in range(n)]
        if isinstance(p, LocalResourcePlace):
            slots = self.local_resources[id(p.var)]
            return [slots[k] for k in p.slots]
        raise error("expected a resource")

    # ------------------------------------------------------------------ I/O
    def io_read(self, p: IOPlace) -> list[Value]:
        io = ir.io_of(p.var)
        if self.m.stage in THREAD_GROUP_STAGES and io.semantic != "SV_ViewID":
            op = COMPUTE_BUILTINS.get(io.semantic)
            if op is None:
                raise error(f"semantic '{io.semantic}' is not supported for {self.m.stage} shaders", p.var.loc)
            if op == "FlattenedThreadIdInGroup":
                return [self.ops.call(self.b, op, "i32", []) for _ in p.comps]
            return [self.ops.call(self.b, op, "i32", [ConstInt(T.i32, c)]) for c in p.comps]
        op = INTRINSIC_INPUTS.get(io.semantic) or TESS_INTRINSIC_INPUTS.get((self.m.stage, io.semantic))
        if op is None and self.m.stage == "geometry" and not io.vertices:
            op = GS_INTRINSIC_INPUTS.get(io.semantic)
        if op is not None:          # SV_SampleIndex / SV_Coverage / GS SV_PrimitiveID / ...: an operation, not loadInput
            if op == "DomainLocation":
                return [self.ops.call(self.b, op, "f32", [ConstInt(T.i8, c)]) for c in p.comps]
            return [self.ops.call(self.b, op, "i32", []) for _ in p.comps]
        read = "LoadInput"
        el = self.m.input_elems.get(id(p.var))
        if el is None and (el := self.m.patch_elems.get(id(p.var))) is not None:
            read = "LoadPatchConstant"          # a domain shader's patch constants
        elif el is None and (el := self.m.output_elems.get(id(p.var))) is not None and io.arrayed:
            read = "LoadOutputControlPoint"     # the output patch, in a hull shader's patch-constant function
        if el is None:
            raise error(f"cannot read output '{io.semantic}'", p.var.loc)
        plan = self._io_targets(p.var, el)          # per control point / GS: per vertex
        _no_64bit_io(p.var, read, plan)
        per_vertex = len(plan)
        call, b = self.ops.call, self.b
        undef = Undef(T.i32)
        vertex = p.vertex if p.vertex is not None else undef
        out: list[Value] = []
        for c in p.comps:
            k, c = divmod(c, per_vertex)
            elem_id, row, col, ov, is_bool = plan[c]
            if io.vertices and p.vertex is None:    # a whole GS input: the components run over the vertices
                vertex = ConstInt(T.i32, k)
            args: list[Value] = [elem_id, row, col] if read == "LoadPatchConstant" else [elem_id, row, col, vertex]
            v = call(b, read, ov, args, p.var.loc)
            out.append(b.icmp("ne", v, ConstInt(T.i32, 0)) if is_bool else v)
        return out

    def io_evaluate(self, p: IOPlace, op: str, extra: list[Value]) -> list[Value]:
        """evalSampleIndex / evalCentroid / evalSnapped (op) of the input's components."""
        el = self.m.input_elems.get(id(p.var))
        assert el is not None and p.var.io is not None      # a stage input: passes/evaluate_attribute.py
        plan = self._io_targets(p.var, el)
        return [self.ops.call(self.b, op, plan[c][3], [plan[c][0], plan[c][1], plan[c][2], *extra]) for c in p.comps]

    def _io_targets(self, var: ir.Variable, el: SigElement) -> tuple[tuple[ConstInt, ConstInt, ConstInt, str, bool],
                                                                      ...]:
        """Per component of the variable (one control point / vertex of it): the element id, _io_plan's
        row, column, overload and bool flag.  An array of structs is several elements, one per leaf
        member (signature.struct_array_leaves): component k of its element i is that leaf's array
        element i, component k."""
        parts = self.m.io_parts.get(id(var))
        if parts is None:
            eid = ConstInt(T.i32, el.id)
            return tuple((eid, *step) for step in _io_plan(_point_type(var), el.cols, ir.io_of(var).row_major))
        vt = _point_type(var)
        assert isinstance(vt, ir.Array) and vt.size is not None     # struct_array_leaves made the parts
        leaves = struct_array_leaves(vt)
        assert leaves is not None and len(leaves) == len(parts)
        plans = [(ConstInt(T.i32, e.id), _io_plan(lt, e.cols, rm)) for e, (lt, rm, _o) in zip(parts, leaves)]
        out = []
        for i in range(vt.size):
            for eid, plan in plans:
                n = len(plan) // vt.size
                out += [(eid, *step) for step in plan[i * n:(i + 1) * n]]
        return tuple(out)

    def io_write(self, p: IOPlace, values: list[Value], comps: list[int] | None) -> None:
        write = "StoreOutput"       # a hull shader's control-point outputs too: the point is implicit
        mesh = ir.io_of(p.var).mesh
        if mesh == "indices":
            self._emit_indices(p, values, comps)
            return
        el = self.m.output_elems.get(id(p.var))
        if el is None and (el := self.m.patch_elems.get(id(p.var))) is not None:
            write = "StorePatchConstant"
        if mesh is not None:        # one vertex / primitive of a mesh shader's outputs: its index is an operand
            write = "StorePrimitiveOutput" if mesh == "primitive" else "StoreVertexOutput"
            assert p.vertex is not None     # (passes/mesh_io.py: outputs are written one element at a time)
        if el is None:
            raise error(f"cannot write input '{ir.io_of(p.var).semantic}'", p.var.loc)
        sel = p.comps if comps is None else [p.comps[c] for c in comps]
        plan = self._io_targets(p.var, el)
        _no_64bit_io(p.var, write, plan)
        call, b = self.ops.call, self.b
        extra = [p.vertex] if mesh is not None and p.vertex is not None else []
        for c, v in zip(sel, values, strict=True):
            elem_id, row, col, _, is_bool = plan[c]
            if is_bool:
                v = b.zext(v, T.i32)
            call(b, write, _ov(v.type), [elem_id, row, col, v, *extra], p.var.loc)

    def _emit_indices(self, p: IOPlace, values: list[Value], comps: list[int] | None) -> None:
        """A mesh shader's `indices[i] = uint3(...)`: emitIndices(i, a, b, c), the whole vector at once."""
        sel = p.comps if comps is None else [p.comps[c] for c in comps]
        n = len(component_types(_point_type(p.var)))
        assert p.vertex is not None and sorted(sel) == list(range(n))      # (passes/mesh_io.py)
        by_comp = dict(zip(sel, values, strict=True))
        self.ops.call(self.b, "EmitIndices", None, [p.vertex, *(by_comp[c] for c in range(n)),
                                                    *[Undef(T.i32)] * (3 - n)])

    # ------------------------------------------------------------------ expressions
    def expr(self, e: ir.Expr) -> list[Value]:
        h = _EXPR.get(type(e))
        if h is None:
            raise error(f"expression '{type(e).__name__}' is not supported by the DXIL backend yet")
        return h(self, e)

    def _const(self, e: ir.Const) -> list[Value]:
        return self.const_values(e.type, e.value)

    def _load(self, e: ir.Load) -> list[Value]:
        p = e.place
        if type(p) is ir.VarRef and self.frames:        # the commonest load: a whole register local
            st = self.frames[-1].storages.get(id(p.var))
            if st is not None and st.comp_nums is not None:
                assert self.ssa is not None and self.b.block is not None    # comp_nums: SSA variables
                return self.ssa.read_all(st.comp_nums, self.b.block)
        nums = self._ssa_components(p)
        if nums is not None:
            assert self.ssa is not None and self.b.block is not None        # SSA variables
            return self.ssa.read_all(nums, self.b.block)
        return self.place(e.place).read(self)

    def _ssa_components(self, p: ir.Expr) -> list[int] | None:
        """The SSA variables of `var`, `var.field...` or either swizzled, when var is a local of
        the current function kept wholly in SSA variables (most loads and stores): no place
        objects (the components MemPlace / AddrPlace would address)."""
        comps = None
        if type(p) is ir.SwizzleRef:
            comps = p.comps
            p = p.base
        if type(p) is ir.VarRef:
            st = self.frames[-1].storages.get(id(p.var)) if self.frames else None
            if st is None or st.comp_nums is None:
                return None
            nums = st.comp_nums
        elif type(p) is ir.FieldRef:
            chain = [p]
            base = p.base
            while type(base) is ir.FieldRef:
                chain.append(base)
                base = base.base
            if type(base) is not ir.VarRef:
                return None
            st = self.frames[-1].storages.get(id(base.var)) if self.frames else None
            if st is None or st.comp_nums is None:
                return None
            t, leaf = base.var.type, 0
            for f in reversed(chain):                   # as _field: leaf bases of the fields
                leaf += field_leaf_base(t, f.index)
                t = f.type
            if _is_resource_type(t):                    # resources are tracked, not stored
                return None
            ssa = st.ssa
            assert ssa is not None          # comp_nums: SSA variables
            nums = [ssa[leaf + q] for q in leaf_of_components(t)]
        else:
            return None
        return nums if comps is None else [nums[c] for c in comps]

    def _precise(self, e: ir.Expr) -> list[Value]:
        """Lower a `precise` expression (and what it contains): its float ops carry no fast-math flags."""
        b, saved = self.b, self.b.fp_flags
        b.fp_flags = 0
        try:
            return self.expr(e)
        finally:
            b.fp_flags = saved

    def _unary(self, e: ir.Unary) -> list[Value]:
        if e.precise and self.b.fp_flags:
            return self._precise(e)
        vals = self.expr(e.operand)
        out: list[Value] = []
        for v in vals:
            t = v.type
            if e.op == "neg":
                out.append(self.b.fsub(ConstFloat(t, -0.0), v) if isinstance(t, T.FloatType)
                           else self.b.sub(ConstInt(int_type_of(v), 0), v))
            elif e.op == "not":
                out.append(self.int_binop("xor", self.truthy(v), ConstInt(T.i1, 1)))
            else:
                out.append(self.b.xor(v, ConstInt(int_type_of(v), -1)))
        return out

    def _binary(self, e: ir.Binary) -> list[Value]:
        if e.precise and self.b.fp_flags:
            return self._precise(e)
        a, b = self.expr(e.lhs), self.expr(e.rhs)
        if len(a) == 1 and len(b) > 1:
            a = a * len(b)
        if len(b) == 1 and len(a) > 1:
            b = b * len(a)
        if not a:
            return []
        op = e.op
        # every component has the type of the first: the instruction is chosen once
        is_float = isinstance(a[0].type, T.FloatType)
        bld = self.b
        if op in _FCMP:
            if is_float:
                return bld.compares("fcmp", _FCMP[op], a, b)
            pred = (_ICMP_SIGNED if ir.numeric_scalar(e.lhs.type).kind == "int" else _ICMP_UNSIGNED)[op]
            return bld.compares("icmp", pred, a, b)
        if is_float:
            name = _FLOAT_BINOPS.get(op)
            if name is None:
                raise error(f"operator '{op}' on floating point is not supported")
            return bld.binops(name, a, b)
        if op in ("shl", "shr"):
            name = "shl" if op == "shl" else _SIGNED_BINOPS["shr"][0 if ir.numeric_scalar(e.lhs.type).kind == "int" else 1]
            out: list[Value] = []
            for x, y in zip(a, b):
                xt = int_type_of(x)
                if y.type != xt:
                    y = bld.trunc(y, xt) if int_type_of(y).width > xt.width else bld.zext(y, xt)
                y = bld.and_(y, ConstInt(xt, xt.width - 1)) if not isinstance(y, ConstInt) else \
                    ConstInt(xt, y.value & (xt.width - 1))
                out.append(bld.binop(name, x, y))
            return out
        if op in _SIGNED_BINOPS:
            signed = ir.numeric_scalar(e.lhs.type).kind == "int"
            name = _SIGNED_BINOPS[op][0 if signed else 1]
            return [self.int_divide(name, x, y, signed) for x, y in zip(a, b)]
        name = _INT_BINOPS[op]
        return [self.int_binop(name, x, y) for x, y in zip(a, b)]

    def int_divide(self, name: str, x: Value, y: Value, signed: bool) -> Value:
        """sdiv/udiv/srem/urem with D3D's results (ir/d3d_numerics.py) where LLVM's are undefined (and trap
        on the CPU): a zero divisor (or -1 under INT_MIN, where x / 1 and x % 1 are D3D's INT_MIN and 0)
        is replaced by 1 and a zero divisor's result selected afterwards; constants fold by the same rules."""
        t = x.type
        assert isinstance(t, T.IntType)
        kind = "int" if signed else "uint"
        if isinstance(y, ConstInt):
            yv = y.signed if signed else y.value
            if isinstance(x, ConstInt):
                fold = int_div if name in ("sdiv", "udiv") else int_mod
                return ConstInt(t, fold(x.signed if signed else x.value, yv, kind, t.width))
            if yv != 0 and not (signed and yv == -1):
                return self.b.binop(name, x, y)
        b = self.b
        zero, one = ConstInt(t, 0), ConstInt(t, 1)
        by_zero = b.icmp("eq", y, zero)
        if not signed:
            return b.select(by_zero, ConstInt(t, -1), b.binop(name, x, b.select(by_zero, one, y)))
        overflow = b.and_(b.icmp("eq", x, ConstInt(t, int_range("int", t.width)[0])), b.icmp("eq", y, ConstInt(t, -1)))
        r = b.binop(name, x, b.select(b.or_(by_zero, overflow), one, y))
        zero_result = b.select(b.icmp("slt", x, zero), one, ConstInt(t, -1))
        return b.select(by_zero, zero_result, r)

    def float_to_int(self, v: Value, s: ir.Scalar, d: ir.Scalar, dt) -> Value:
        """fptosi/fptoui with D3D's saturation and NaN -> 0 (ir/d3d_numerics.py): LLVM's out-of-range
        result is poison and differs between consumers, so the bounds are selected explicitly."""
        ft = v.type
        assert isinstance(dt, T.IntType) and isinstance(ft, T.FloatType)
        if isinstance(v, ConstFloat):
            return ConstInt(dt, float_to_int(v.value, d.kind, d.width))
        b = self.b
        r = b.fptosi(v, dt) if d.kind == "int" else b.fptoui(v, dt)
        lo_f, lo, hi_f, hi = conversion_bounds(d.kind, d.width, s.width)
        r = b.select(b.fcmp("oge", v, ConstFloat(ft, hi_f)), ConstInt(dt, hi), r)
        r = b.select(b.fcmp("ole", v, ConstFloat(ft, lo_f)), ConstInt(dt, lo), r)
        return b.select(b.fcmp("uno", v, v), ConstInt(dt, 0), r)

    def int_binop(self, name: str, x: Value, y: Value) -> Value:
        """An integer binop, folded when both operands are constants."""
        fold = _INT_FOLD.get(name)
        if fold is not None and isinstance(x, ConstInt) and isinstance(y, ConstInt):
            return ConstInt(x.type, fold(x.value, y.value))
        return self.b.binop(name, x, y)

    def _select(self, e: ir.Select) -> list[Value]:
        c, a, b = self.expr(e.cond), self.expr(e.true), self.expr(e.false)
        n = max(len(a), len(b))
        c, a, b = (c * n if len(c) == 1 else c), (a * n if len(a) == 1 else a), (b * n if len(b) == 1 else b)
        return [self.b.select(self.truthy(x), y, z) for x, y, z in zip(c, a, b)]

    def _convert(self, e: ir.Convert) -> list[Value]:
        vals = self.expr(e.value)
        src = component_types(e.value.type)
        dst = component_types(e.type)
        if len(vals) == 1 and len(dst) > 1:
            vals, src = vals * len(dst), src * len(dst)
        return [self.convert_scalar(v, s, d) for v, s, d in zip(vals, src, dst)]

    def convert_scalar(self, v: Value, s: ir.Scalar, d: ir.Scalar) -> Value:
        if s == d:
            return v
        dt = llvm_scalar(d)
        b = self.b
        if d.kind == "bool":
            return self.truthy(v)
        if s.kind == "bool":
            return b.uitofp(v, dt) if d.kind == "float" else b.zext(v, dt)
        if s.kind == "float" and d.kind == "float":
            return b.fpext(v, dt) if d.width > s.width else b.fptrunc(v, dt)
        if s.kind == "float":
            return self.float_to_int(v, s, d, dt)
        if d.kind == "float":
            return b.sitofp(v, dt) if s.kind == "int" else b.uitofp(v, dt)
        if d.width == s.width:
            return v
        if d.width < s.width:
            return b.trunc(v, dt)
        return b.sext(v, dt) if s.kind == "int" else b.zext(v, dt)

    def _bitcast(self, e: ir.Bitcast) -> list[Value]:
        vals = self.expr(e.value)
        dst = [llvm_scalar(s) for s in component_types(e.type)]
        if len(vals) == len(dst):
            return [v if v.type == t else self.b.bitcast(v, t) for v, t in zip(vals, dst)]
        if all(t == T.double for t in dst) and len(vals) == 2 * len(dst):
            return [self.ops.call(self.b, "MakeDouble", "f64", [vals[2 * k], vals[2 * k + 1]]) for k in range(len(dst))]
        if all(v.type == T.double for v in vals) and len(dst) == 2 * len(vals):
            out: list[Value] = []
            for v in vals:
                pair = self.ops.call(self.b, "SplitDouble", "f64", [v])
                out += [self.b.extract_value(pair, 0), self.b.extract_value(pair, 1)]
            return [x if x.type == t else self.b.bitcast(x, t) for x, t in zip(out, dst)]
        raise error(f"bit cast from '{e.value.type}' to '{e.type}' is not supported by the DXIL backend yet")

    def _construct(self, e: ir.Construct) -> list[Value]:
        out: list[Value] = []
        prev: ir.Expr | None = None
        vals: list[Value] = []
        for p in e.parts:
            if p is not prev:         # a splat repeats one node (`[x] * n`): x is evaluated once
                vals = self.expr(p)
                prev = p
            out += vals
        n = len(component_types(e.type))
        if len(out) == 1 and n > 1:
            out = out * n
        if len(out) != n:
            raise error(f"constructor of '{e.type}' has {len(out)} components, expected {n}")
        return out

    def _swizzle(self, e: ir.Swizzle) -> list[Value]:
        vals = self.expr(e.value)
        return [vals[c] if c < len(vals) else vals[0] for c in e.comps]

    def _extract(self, e: ir.Extract) -> list[Value]:
        vals = self.expr(e.value)
        start, n, _ = subrange(e.value.type, e.index)
        return vals[start:start + n]

    def _intrinsic(self, e: ir.Intrinsic) -> list[Value]:
        if e.precise and self.b.fp_flags:
            return self._precise(e)
        return _lower_intrinsic()(self, e)

    # ------------------------------------------------------------------ calls (inlined)
    def _call(self, e: ir.Call) -> list[Value]:
        if len(self.frames) > MAX_INLINE_DEPTH:   # sema already refuses recursion: this is a deep chain
            raise error(f"function '{e.func.name}' is reached through more than {MAX_INLINE_DEPTH} nested calls; "
                        f"the DXIL backend inlines every call (limit {MAX_INLINE_DEPTH})", e.func.loc)
        f = e.func
        storages: dict[int, VarStorage] = {}
        pending: list[tuple[ir.Param, ir.Expr]] = []
        for p, a in zip(f.params, e.args, strict=True):
            if p.direction in ("out", "inout") and isinstance(a, ir.VarRef):
                target = self._var_place(a.var)
                if isinstance(target, LocalResourcePlace):
                    self.local_resources[id(p.var)] = self.local_resources[id(a.var)]
                    continue
                if isinstance(target, MemPlace):
                    storages[id(p.var)] = target.storage
                    continue
            pending.append((p, a))
        ret_slot = None
        if not isinstance(f.return_type, ir.VoidType):
            ret_slot = self.make_storage(ir.Variable(f"{f.name}.ret", f.return_type, _FUNCTION_STORAGE))
        exit_bb = self.new_block()
        frame = _Frame(storages, ret_slot, exit_bb)
        self._flag_returns(frame, f)
        # evaluate `in` arguments in the caller's frame, then bind them
        for p, a in pending:
            if _is_resource_type(p.var.type):
                self.local_resources[id(p.var)] = list(self._resource_value(a))      # a local copy (seed 001)
                continue
            vals = self.expr(a)
            st = self.make_storage(p.var)
            storages[id(p.var)] = st
            MemPlace(st, p.var.type, 0, _ZERO).write(self, vals)
        for v in f.locals:
            if isinstance(v.type, ir.RayQuery):
                self._allocate_ray_query(v)
            elif id(v) not in storages and not _is_resource_type(v.type):
                storages[id(v)] = self.make_storage(v)
        self.frames.append(frame)
        saved_loops, self.loops = self.loops, []
        saved_debug = self._enter_debug_scope(f) if self.debug is not None else None
        self.stmts(f.body)
        if saved_debug is not None:
            self.dbg_scope, self.dbg_inlined, self.b.dbg_loc = saved_debug
        self.loops = saved_loops
        self.frames.pop()
        self.branch_to(exit_bb)
        self._enter(exit_bb, move=False)
        if ret_slot is None:
            return []
        return MemPlace(ret_slot, f.return_type, 0, _ZERO).read(self)

    def _enter_debug_scope(self, f: ir.Function) -> tuple:
        """-Zi: lower `f`'s body in its own DISubprogram, inlined at the call's location (the
        entry's source function is the DXIL function's own body: no inlining there)."""
        saved = (self.dbg_scope, self.dbg_inlined, self.b.dbg_loc)
        debug = self.debug
        assert debug is not None
        entry = self.m.module.entry
        if entry is not None and f is entry.source_function and self.dbg_inlined is None:
            return saved
        call = self.b.dbg_loc
        if call is None:             # a call without a position: its body stays in the caller's scope
            return saved
        self.dbg_inlined = debug.inlined_at(call)
        self.dbg_scope = debug.subprogram(f, f.name, f.loc)
        return saved

    # ------------------------------------------------------------------ statements
    def stmts(self, body: list[ir.Stmt]) -> None:
        folded = self.m.folded_stores
        b = self.b
        for s in body:
            if folded and id(s) in folded:
                continue
            assert b.block is not None                  # lowering always has an insertion block
            insts = b.block.instructions                # (BasicBlock.terminator, without the call)
            if insts and insts[-1].op in TERMINATORS:
                dead = self.new_block()                 # dead code after break/return; dropped later
                self.seal(dead)
                self.set_block(dead)
            h = _STMT.get(s.__class__)
            if h is None:
                raise error(f"statement '{type(s).__name__}' is not supported by the DXIL backend yet")
            if self.debug is not None and hasattr(s, "loc"):
                b.dbg_loc = self.debug.loc(s.loc, self.dbg_scope, self.dbg_inlined)
            try:
                h(self, s)
            except CompileError as exc:       # an operation the profile forbids: located at its statement
                locate(exc, stmt_loc(s))
                raise

    def _store(self, s: ir.Store) -> None:
        nums = self._ssa_components(s.place)
        if nums is not None:             # not a resource: those have no storage
            vals = self.expr(s.value)    # first: it may end the current block
            assert self.ssa is not None and self.b.block is not None    # SSA variables
            self.ssa.write_all(nums, self.b.block, vals)
            if self.debug is not None and isinstance(s.place, ir.VarRef):
                self.debug.assigned(s.place.var, vals, self.b.dbg_loc)
            return
        if _is_resource_type(s.place.type):
            self._store_resource(s)
            return
        vals = self.expr(s.value)
        self.place(s.place).write(self, vals)

    def _store_resource(self, s: ir.Store) -> None:
        dest = self.place(s.place)
        assert isinstance(dest, LocalResourcePlace)     # (sema: a global resource is not assignable)
        depth = self._local_res_depth.setdefault(id(dest.var), self.control_depth)
        assert depth == self.control_depth      # (passes/resource_locals.py: see resource_place)
        src = self._resource_value(s.value)
        slots = self.local_resources[id(dest.var)]
        for k, v in zip(dest.slots, src, strict=True):
            slots[k] = v

    def _resource_value(self, e: ir.Expr) -> list[ResourcePlace | None]:
        if isinstance(e, ir.Load):
            return self._resolve_resource(self.place(e.place))
        if isinstance(e, ir.Construct):
            out: list[ResourcePlace | None] = []
            for p in e.parts:
                out += self._resource_value(p)
            return out
        return self._resolve_resource(self.place(e))

    def _eval(self, s: ir.Eval) -> None:
        self.expr(s.expr)

    def _if(self, s: ir.If) -> None:
        cond = self.truthy(self.expr(s.cond)[0])
        then_bb, merge = self.new_block(), self.new_block()
        else_bb = self.new_block() if s.else_ else merge
        self.b.cbranch(cond, then_bb, else_bb)
        self.control_depth += 1
        self.seal(then_bb)
        self.set_block(then_bb)
        self.stmts(s.then)
        self.branch_to(merge)
        if s.else_:
            self.seal(else_bb)
            self.set_block(else_bb)
            self.stmts(s.else_)
            self.branch_to(merge)
        self.control_depth -= 1
        self._enter(merge)

    def _enter(self, bb: BasicBlock, move: bool = True) -> None:
        """Go on lowering in join block `bb`, all of whose predecessors are built, at the end of
        the block list (`move`; a merge follows its construct).  A join block with a single
        predecessor is left for the clean-up (cfg.merge_straight_line_blocks) to fold."""
        if move:
            self._move_to_end(bb)
        self.seal(bb)
        self.set_block(bb)

    def enter_join(self, bb: BasicBlock) -> None:
        """_enter for the intrinsic handlers (lowering.Lowering): a join block after their own branches."""
        self._enter(bb)

    def _move_to_end(self, bb: BasicBlock) -> None:
        """Keep blocks in a dominance-friendly order: a merge block follows its arms.
        The block was created just before its construct's arms, so it is searched for from
        the end (list.remove would scan from the front: quadratic in the function size)."""
        blocks = self.fn.blocks
        for i in range(len(blocks) - 1, -1, -1):
            if blocks[i] is bb:
                del blocks[i]
                break
        else:
            raise ValueError("block is not in the function")
        blocks.append(bb)

    def _loop(self, s: ir.Loop) -> None:
        header = self.new_block()
        cont = self.new_block()
        merge = self.new_block()
        pre = self.b.block
        assert pre is not None
        if self.ssa is not None:
            self.ssa.loop_header(header)
        self.branch_to(header)
        if self.ssa is not None:
            self.ssa.loop_entered(header, pre)
        self.set_block(header)
        targets = _LoopTargets(merge, cont)
        self.loops.append(targets)
        self.control_depth += 1
        self.stmts(s.body)
        self.branch_to(cont)
        self._move_to_end(cont)
        self.seal(cont)                  # reached from the body's end and its `continue`s
        self.set_block(cont)
        self.stmts(s.continuing)
        assert self.b.block is not None
        if self.b.block.terminator is None:
            brk = None if s.break_if is None else self.truthy(self.expr(s.break_if)[0])
            if isinstance(brk, ConstInt):    # `do ... while (true)`: no edge out of the latch (dxil-spirv
                self.b.br(merge if brk.value else header)  # mis-structurized one into a shared exit block)
            elif brk is not None:
                self.b.cbranch(brk, merge, header)
            else:
                self.b.br(header)
        self.seal(header)                # the back edge is built
        self.control_depth -= 1
        self.loops.pop()
        self._enter(merge)
        if targets.returned:
            self._return_if_flagged()

    def _break(self, s: ir.Break) -> None:
        self.b.br(self.loops[-1].brk)

    def _continue(self, s: ir.Continue) -> None:
        """Branch to the loop's continue block; from inside a switch, break out of the switch with the
        frame's `continued` flag set (reset before the switch), checked after it.  dxil-spirv's
        structurizer mishandles a switch case that branches to the loop's continue path (it left a
        block without a terminator); a switch whose cases all end at its merge is a plain selection."""
        self._continue_from_here()

    def _continue_from_here(self) -> None:
        inner = self.loops[-1]
        if inner.cont is not None:
            self.b.br(inner.cont)
            return
        flag = self.frames[-1].continued
        assert flag is not None              # made by _switch, which saw this continue
        self._set_flag(flag, True)
        inner.continued = True
        self.b.br(inner.brk)

    def _continue_if_flagged(self) -> None:
        """After a switch a `continue` broke out of: if the flag is set, continue from here (the flag is
        reset where the branch reaches the loop)."""
        flag = self.frames[-1].continued
        assert flag is not None
        out, rest = self._branch_on(flag)
        self.set_block(out)
        if self.loops[-1].cont is not None:
            self._set_flag(flag, False)
        self._continue_from_here()
        self._enter(rest)

    def _return(self, s: ir.Return) -> None:
        fr = self.frames[-1]
        if s.value is not None and fr.ret_slot is not None:
            vals = self.expr(s.value)
            MemPlace(fr.ret_slot, s.value.type, 0, _ZERO).write(self, vals)
        self._leave(fr)

    def _flag_returns(self, fr: _Frame, f: ir.Function) -> None:
        """Give the frame its `returned` flag, false at its start, when a return of `f` is inside a
        loop or switch."""
        if _returns_from_construct(f.body, False):
            fr.returned = self.make_storage(ir.Variable(f"{f.name}.returned", ir.BOOL, _FUNCTION_STORAGE))
            self._set_flag(fr.returned, False)

    def _set_flag(self, flag: VarStorage, value: bool) -> None:
        MemPlace(flag, ir.BOOL, 0, _ZERO).write(self, [ConstInt(T.i1, int(value))])

    def _branch_on(self, flag: VarStorage) -> tuple[BasicBlock, BasicBlock]:
        """Branch on the flag: (the block taken when it is set, sealed; the other, to be entered)."""
        cond = self.truthy(MemPlace(flag, ir.BOOL, 0, _ZERO).read(self)[0])
        out, rest = self.new_block(), self.new_block()
        self.b.cbranch(cond, out, rest)
        self.seal(out)
        return out, rest

    def _leave(self, fr: _Frame) -> None:
        """Branch where a `return` goes: the frame's exit block, or, inside a loop or switch, out of the
        innermost one with the `returned` flag set, checked again after it (as the shared inliner does at
        -O1 and up, and DXC's structurize-returns), so each is left only through its merge.  A switch case
        that leaves its loop, or the switch around it, made dxil-spirv's structurizer abort ("detected
        infinite loop"; the second in shapes program 85 of tag hunt8x at -O0), and a return straight out
        of a loop that a `break` also leaves made it build selections left unstructured (loops programs at
        -O0: 17 of 200 of tag hunt8l rejected, 3 with the flag, the 3 the -O3 build has)."""
        loops = self.loops
        if fr.returned is not None and loops:
            self._set_flag(fr.returned, True)
            loops[-1].returned = True
            self.b.br(loops[-1].brk)
        else:
            self.b.br(fr.exit_block)

    def _return_if_flagged(self) -> None:
        """After a loop or switch a return broke out of: return on if the flag is set."""
        fr = self.frames[-1]
        assert fr.returned is not None
        out, rest = self._branch_on(fr.returned)
        self.set_block(out)
        self._leave(fr)
        self._enter(rest)

    def _discard(self, s: ir.Discard) -> None:
        self.ops.call(self.b, "Discard", None, [ConstInt(T.i1, 1)])

    def _switch(self, s: ir.Switch) -> None:
        sel = self.expr(s.selector)[0]
        merge = self.new_block()
        blocks = [self.new_block() for _ in s.cases]
        default = merge
        cases: list[tuple[ConstInt, BasicBlock]] = []
        for c, bb in zip(s.cases, blocks):
            if c.is_default:
                default = bb
            for v in c.values:
                cv = ConstInt(int_type_of(sel), v)
                cases.append((cv, bb))
        if _continues_out_of(s):
            fr = self.frames[-1]
            if fr.continued is None:
                fr.continued = self.make_storage(ir.Variable("continued", ir.BOOL, _FUNCTION_STORAGE))
            self._set_flag(fr.continued, False)
        self.b.switch(sel, default, cases)
        targets = _LoopTargets(merge, None)
        self.loops.append(targets)
        self.control_depth += 1
        for k, (c, bb) in enumerate(zip(s.cases, blocks)):
            self.seal(bb)                # from the switch and the previous case's fall-through
            self.set_block(bb)
            self.stmts(c.body)
            self.branch_to(blocks[k + 1] if k + 1 < len(blocks) else merge)    # fall through
        self.control_depth -= 1
        self.loops.pop()
        self._enter(merge)
        if targets.returned:
            self._return_if_flagged()
        if targets.continued:
            self._continue_if_flagged()

    def alloca(self, t: T.Type) -> Value:
        return self.alloca_builder.alloca(t, align=4)

    def write_back_payload(self) -> None:
        if self.struct_params:
            from .raytracing import store_udt  # ray-tracing entry points only

            for var, ptr, inout in self.struct_params:
                if inout:
                    store_udt(self, ptr, var.type, self.place(ir.VarRef(var)).read(self))

    # ------------------------------------------------------------------ driver
    def lower_entry(self, fn: ir.Function) -> Function:
        if self.debug is not None:
            entry = self.m.module.entry
            src = self.source or (entry.source_function if entry is not None else fn)
            self.dbg_scope = self.debug.subprogram(fn, self.fn.name, src.loc, src)
            self.debug.describe(self.dbg_scope, self.fn)
        exit_bb = self.new_block()
        frame = _Frame({}, None, exit_bb)
        self._flag_returns(frame, fn)
        for v in fn.locals:
            if isinstance(v.type, ir.RayQuery):
                self._allocate_ray_query(v)
            elif not _is_resource_type(v.type):
                frame.storages[id(v)] = self.make_storage(v)
        for p, arg in zip(fn.params, self.fn.args):    # a ray-tracing entry's payload / attributes
            frame.storages[id(p.var)] = self.make_storage(p.var)
            self.struct_params.append((p.var, arg, p.direction != "in"))
        self.frames.append(frame)
        if self.struct_params:
            from .raytracing import load_udt  # ray-tracing entry points only

            for var, ptr, _inout in self.struct_params:
                self.place(ir.VarRef(var)).write(self, load_udt(self, ptr, var.type))
        self.stmts(fn.body)
        self.branch_to(exit_bb)
        self._enter(exit_bb)
        self.write_back_payload()
        self.frames.pop()
        self.b.ret()
        self.alloca_builder.br(self.fn.blocks[1])
        forwarded = self.ssa.finish(self.fn) if self.ssa is not None else {}
        # finish keys the forwarded phis by id; every one of them is among the builder's phis
        by_phi: dict[Value, Value] = {p: forwarded[id(p)] for lst in self.ssa.phis.values() for p in lst
                  if id(p) in forwarded} if forwarded and self.ssa is not None else {}
        self.cleaned = clean_up(self.fn, by_phi, self.m.optimize, self.debug.locs if self.debug is not None else None)
        return self.fn


_EXPR: dict[type, Callable[..., list[Value]]] = {
    ir.Const: FunctionLowerer._const, ir.Load: FunctionLowerer._load, ir.Unary: FunctionLowerer._unary,
    ir.SpecConst: FunctionLowerer._const,    # no specialisation in DXIL: the default value (as DXC)
    ir.Binary: FunctionLowerer._binary, ir.Select: FunctionLowerer._select, ir.Convert: FunctionLowerer._convert,
    ir.Bitcast: FunctionLowerer._bitcast, ir.Construct: FunctionLowerer._construct,
    ir.Swizzle: FunctionLowerer._swizzle, ir.Extract: FunctionLowerer._extract, ir.Call: FunctionLowerer._call,
    ir.Intrinsic: FunctionLowerer._intrinsic,
}
_STMT: dict[type, Callable[..., None]] = {
    ir.Store: FunctionLowerer._store, ir.Eval: FunctionLowerer._eval, ir.If: FunctionLowerer._if,
    ir.Loop: FunctionLowerer._loop, ir.Break: FunctionLowerer._break, ir.Continue: FunctionLowerer._continue,
    ir.Return: FunctionLowerer._return, ir.Discard: FunctionLowerer._discard, ir.Switch: FunctionLowerer._switch,
}


def _returns_from_construct(stmts: list[ir.Stmt], inside: bool) -> bool:
    """Is a return among `stmts` inside a loop or switch (`inside`: that far already)?  Calls are other
    frames: not looked into."""
    for s in stmts:
        if isinstance(s, ir.Return):
            if inside:
                return True
        elif isinstance(s, ir.If):
            if _returns_from_construct(s.then, inside) or _returns_from_construct(s.else_, inside):
                return True
        elif isinstance(s, ir.Loop):
            if _returns_from_construct(s.body, True) or _returns_from_construct(s.continuing, True):
                return True
        elif isinstance(s, ir.Switch):
            if any(_returns_from_construct(c.body, True) for c in s.cases):
                return True
    return False


def _continues_out_of(s: ir.Switch) -> bool:
    """Does a `continue` in the switch's cases (not inside a loop of theirs) leave it?"""
    stack: list[ir.Stmt] = [x for c in s.cases for x in c.body]
    while stack:
        x = stack.pop()
        if isinstance(x, ir.Continue):
            return True
        if isinstance(x, ir.If):
            stack += x.then + x.else_
        elif isinstance(x, ir.Switch):
            stack += [y for c in x.cases for y in c.body]
    return False


@cache
def _no_64bit_io(var: ir.Variable, op: str, plan: tuple) -> None:
    """A double / 64-bit integer stage input or output: DXIL's LoadInput, StoreOutput and kin have no 64-bit
    overload, so DXC emits one and its validator refuses the shader (Instr.Oload); refused here, at the
    variable, in words that say what to do instead."""
    ov = plan[0][3] if plan else None
    if ov in ("f64", "i64"):
        io = ir.io_of(var)
        raise error(f"the 64-bit stage {'output' if op.startswith('Store') else 'input'} '{io.semantic}{io.index}' "
                    f"({var.type}) is not supported in DXIL: {op} has no {ov} overload (DXC's validator: 'DXIL "
                    f"intrinsic overload must be valid'); pass its halves as uints (asuint / asdouble)",
                    var.loc)


def _io_plan(t: ir.Type, cols: int, row_major: bool = False) -> tuple[tuple[ConstInt, ConstInt, str, bool], ...]:
    """Per component of a signature element of type t with `cols` columns: the loadInput /
    storeOutput operands it fixes (row and column relative to the element's start, as
    constants), the memory overload, and whether it is a bool (i32 in the signature).  A
    column_major matrix (signature.element_layout) has component (r, c) at row c, column r."""
    m = t.elem if isinstance(t, ir.Array) else t
    transposed = isinstance(m, ir.Matrix) and not row_major
    out = []
    for c, s in enumerate(component_types(t)):
        row, col = divmod(c, cols)
        if transposed:
            assert isinstance(m, ir.Matrix)
            k, rc = divmod(c, m.rows * m.cols)          # matrix k of an array, component (r, c) in it
            r, cc = divmod(rc, m.cols)
            row, col = k * m.cols + cc, r
        out.append((ConstInt(T.i32, row), ConstInt(T.i8, col), _ov(memory_scalar(s)), s.kind == "bool"))
    return tuple(out)


@cache
def _single_leaf_registers(t: ir.Type) -> tuple[T.Type, ...] | None:
    """The register type of every leaf of t when every leaf has one element, else None."""
    lay = leaf_layout(t)
    if any(n != 1 for n in lay.mult):
        return None
    return tuple(llvm_scalar(s) for s in lay.leaves)


@cache
def _const_kinds(t: ir.Type) -> tuple[tuple[T.IntType | T.FloatType, bool], ...]:
    """(LLVM register type, is float) of every component of a constant of type t."""
    return tuple((llvm_scalar(s), s.kind == "float") for s in component_types(t))


@cache
def _is_resource_type(t: ir.Type) -> bool:
    while isinstance(t, ir.Array):
        t = t.elem
    return isinstance(t, ir.Resource)


def _resource_elem(t: ir.Type) -> ir.Type:
    while isinstance(t, ir.Array):
        t = t.elem
    return t


def _resource_slots(t: ir.Type) -> int:
    n = 1
    while isinstance(t, ir.Array):
        n *= t.size or 1
        t = t.elem
    return n


_ov = overload_name


def _point_type(var: ir.Variable) -> ir.Type:
    """The type of one control point of a per-control-point variable, or of one vertex of a GS
    per-vertex input (else the variable's type)."""
    t = var.type
    io = var.io
    return t.elem if io is not None and (io.arrayed or io.vertices or io.mesh) and isinstance(t, ir.Array) else t
def lower_module(module: ir.Module, stage: str, sm: tuple[int, int], native16: bool = False,
                 optimize: bool = True, debug: DebugInfo | None = None) -> LoweredModule:
    """Lower the module's entry point into a DXIL-shaped LLVM module (optimize: locals as SSA values + DCE)."""
    entry = module.entry
    if entry is None or entry.function is None:
        raise error("the module has no entry point wrapper (run the entry wrapper pass first)")
    if module.stage != stage:
        raise error(f"profile stage '{stage}' does not match the entry point's stage '{module.stage}'")
    if native16 and sm < (6, 2):
        raise error("-enable-16bit-types requires shader model 6.2 or newer")
    ctx = ModuleContext(module, stage, sm, native16, optimize)
    ctx.debug = debug
    used_vars, _fns, counter_users = used_globals(entry.function)
    if entry.tess is not None and entry.tess.patch_function is not None:   # a hull shader's second function
        more, _more_fns, more_counters = used_globals(entry.tess.patch_function)
        seen = {id(v) for v in used_vars}
        used_vars = list(used_vars) + [v for v in more if id(v) not in seen]
        counter_users = set(counter_users) | set(more_counters)
    ctx.collect_globals(list(used_vars), set(counter_users))
    fold_static_initializers(ctx, entry.function.body)
    # a hull shader's patch constants are outputs, a domain shader's inputs: their own signature
    # a mesh shader's per-primitive outputs take that place (PSG1), its indices are no signature element
    patch_vars = [v for v in (*entry.inputs, *entry.outputs) if v.io is not None
                  and (v.io.patch or v.io.mesh == "primitive")]
    patch_ids = {id(v) for v in patch_vars} | {id(v) for v in entry.outputs if v.io is not None
                                               and v.io.mesh == "indices"}
    domain = entry.tess.domain if entry.tess is not None else None
    inputs = build_signature([v for v in entry.inputs if id(v) not in patch_ids], stage, is_output=False,
                             native16=native16)
    outputs = build_signature([v for v in entry.outputs if id(v) not in patch_ids], stage, is_output=True,
                              native16=native16)
    patch = build_signature(patch_vars, stage, "patch", native16, domain) if stage in ("hull", "domain", "mesh") \
        else []
    if stage == "mesh" and entry.mesh is not None:
        check_mesh_signatures(outputs, patch, entry.mesh, entry.function.loc)
    ctx.input_elems = {id(e.var): e for e in reversed(inputs)}       # a variable's first element
    ctx.output_elems = {id(e.var): e for e in reversed(outputs)}
    ctx.patch_elems = {id(e.var): e for e in reversed(patch)}
    for e in (*inputs, *outputs):       # an array of structs: one element per leaf member
        if e.indices:
            ctx.io_parts.setdefault(id(e.var), []).append(e)
    lowerer = FunctionLowerer(ctx)
    fn = lowerer.lower_entry(entry.function)
    keep = [fn]
    called = set(lowerer.cleaned.callees)
    io_calls = list(lowerer.cleaned.io_calls)
    patch_fn = None
    if stage == "hull" and entry.tess is not None and entry.tess.patch_function is not None:
        # the patch-constant function: a second void() function, named by the HS state metadata
        pc_lowerer = FunctionLowerer(ctx, entry.tess.patch_function.name)
        patch_fn = pc_lowerer.lower_entry(entry.tess.patch_function)
        keep.append(patch_fn)
        called |= set(pc_lowerer.cleaned.callees)
        io_calls += pc_lowerer.cleaned.io_calls
    # the entry function comes first, as in DXC's output; unused declarations go
    ctx.llmod.retain_functions(keep + [f for f in ctx.llmod.functions if f not in keep and f in called])
    ctx.ops.retain({f.name for f in ctx.llmod.functions})
    record_call_usage(io_calls, inputs, outputs, LOAD_INPUT, STORE_OUTPUT)
    if stage == "mesh":     # vertex and primitive outputs: their own operations
        calls = [i for f in keep for bb in f.blocks for i in bb.instructions if i.op == "call"]
        record_call_usage(calls, [], outputs, LOAD_INPUT, STORE_VERTEX_OUTPUT)
        record_call_usage(calls, [], patch, LOAD_INPUT, STORE_PRIMITIVE_OUTPUT)
    elif patch:     # the patch constants' usage (their calls are not among the clean-up's I/O calls)
        calls = [i for f in keep for bb in f.blocks for i in bb.instructions if i.op == "call"]
        if stage == "hull":
            record_call_usage(calls, [], patch, LOAD_INPUT, STORE_PATCH_CONSTANT)
        else:
            record_call_usage(calls, patch, [], LOAD_PATCH_CONSTANT, STORE_OUTPUT)
    if stage == "amplification" and not any(i.op == "call" and i.operands[0].name.startswith("dx.op.dispatchMesh")
                                            for bb in fn.blocks for i in bb.instructions):
        where = next((st.loc for st in entry.function.body if isinstance(st, ir.Eval)
                      and isinstance(st.expr, ir.Intrinsic) and st.expr.name == "DispatchMesh"), None)
        raise error("DispatchMesh is never reached: the amplification shader's code before it never ends", where)
    if stage in THREAD_GROUP_STAGES and entry.numthreads is None:
        raise error(f"{stage} shaders need a [numthreads(x, y, z)] attribute")
    lm = LoweredModule(ctx.llmod, fn, ctx.ops, ctx.resources, inputs, outputs, stage, sm, native16,
                       entry.numthreads or (0, 0, 0), ctx.group_shared_bytes, geometry=entry.geometry)
    lm.patch_constants = patch
    lm.patch_function = patch_fn
    lm.tess = entry.tess
    lm.mesh = entry.mesh
    lm.modes, lm.wave_size = entry.modes, entry.wave_size
    payload = next((g for g in module.globals if g.storage is ir.Storage.PAYLOAD), None)
    lm.payload_bytes = payload_bytes(payload_struct(payload)) if payload is not None else 0
    return lm

