"""Resource methods and subscripts: textures, samplers, typed/raw/structured
buffers.  Lowered to ir.Intrinsic(<method>, [resource place, ...]) so both
backends see one spelling per operation (see ARCHITECTURE.md)."""

from __future__ import annotations

from ... import ir
from ...diagnostics import Diagnostic, SourceLoc, error
from ...ir.intrinsics import (
    ATOMICS,
    ATOMICS64,
    FLOAT_BITWISE,
    FLOAT_EXCHANGE,
    GATHER_CMP_METHODS,
    GATHER_METHODS,
    LOD_METHODS,
    STREAM_METHODS,
    WITH_STATUS,
)
from ...ir.resource_kinds import KINDS
from ...ir.streams import STREAM_KINDS
from .. import ast
from .base import SemaBase
from .conversions import with_scalar
from .exprs import scalar_value
from .heaps import HeapElement
from .scope import LocalOffset, UnrollOffset

LOOP_HINT = " (a loop counter is one in a loop marked [unroll] that can be unrolled fully)"

# sample method -> (names of the float arguments after the coordinates, comparison sampler, implicit derivatives)
SAMPLE_METHODS = {
    "Sample": ((), False, True), "SampleBias": (("bias",), False, True), "SampleLevel": (("lod",), False, False),
    "SampleGrad": (("ddx", "ddy"), False, False), "SampleCmp": (("compare value",), True, True),
    "SampleCmpLevelZero": (("compare value",), True, False), "SampleCmpLevel": (("compare value", "lod"), True, False),
    "SampleCmpBias": (("compare value", "bias"), True, True), "SampleCmpGrad": (("compare value", "ddx", "ddy"), True, False),
}
# the forms with a trailing clamp (the smallest mip level read) after the offset
CLAMPED_SAMPLES = frozenset({"Sample", "SampleBias", "SampleGrad", "SampleCmp", "SampleCmpBias", "SampleCmpGrad"})
# the sample methods newer than SM 6.0: name -> the shader model that has them
SAMPLE_MIN_SM = {"SampleCmpLevel": (6, 7), "SampleCmpBias": (6, 8), "SampleCmpGrad": (6, 8)}


def texel_index_type(kind: str) -> ir.Type | None:
    """The coordinate type of `tex[coord]` (RW textures and Texture* subscripts)."""
    info = KINDS.get(kind)
    if info is None or info.rep != "typed" or info.dim == "Cube":
        return None
    return ir.vec(ir.UINT, info.coords) if info.dim != "Buffer" else ir.UINT


class ResourceLowering(SemaBase):
    """Mixin of Analyzer."""

    def resource_method(self, res: ir.Expr, name: str, args: list[ast.Expr], loc: SourceLoc,
                        template: ir.Type | None = None, template_row_major: bool | None = None) -> ir.Expr:
        """template_row_major: the orientation of a matrix template argument (`Load<row_major float2x3>`)."""
        r = res.type
        assert isinstance(r, ir.Resource)   # only called on resource places
        if r.kind in STREAM_KINDS:
            return self._stream_method(res, r, name, args, loc)
        info = KINDS.get(r.kind)
        if info is None or name not in info.methods:
            raise self._no_method(r, name, loc)
        if template is not None and info.rep != "raw":     # only a byte-address buffer's Load<T>/Store<T> take one
            raise error(f"Explicit template arguments on intrinsic {name} are not supported", loc)    # DXC's words
        if (info.rep in ("structured", "raw") or info.dim == "Buffer") and name.startswith("Load") and len(args) == 2:
            if info.rep == "raw":
                return self._byte_address_method(res, r, name, args[:1], loc, template, template_row_major,
                                                 status=args[1])
            else:
                assert r.elem is not None       # structured and typed buffers have an element type
                read = ir.Intrinsic("Load", [res, self.convert(self.rvalue(args[0]), ir.UINT, args[0].loc)], r.elem)
            return self._with_status(read, args[1], loc)
        if info.rep == "structured" or info.dim == "Buffer":
            return self._buffer_method(res, r, name, args, loc)
        if info.rep == "raw":
            return self._byte_address_method(res, r, name, args, loc, template, template_row_major)
        if args and len(args) - 1 in self._full_arities(r, name):
            return self._with_status(self._texture_method(res, r, name, args[:-1], loc), args[-1], loc)
        return self._texture_method(res, r, name, args, loc)

    @staticmethod
    def _full_arities(r: ir.Resource, name: str) -> tuple[int, ...]:
        """The argument counts of a texture method's longest forms: one more argument is an `out uint status`."""
        info = KINDS[r.kind]
        noff = info.offsets
        if name in SAMPLE_METHODS:
            return (2 + len(SAMPLE_METHODS[name][0]) + int(bool(noff)) + int(name in CLAMPED_SAMPLES),)
        if name in GATHER_METHODS or name in GATHER_CMP_METHODS:
            n = 3 if name in GATHER_CMP_METHODS else 2
            return (n + 1, n + 4) if noff == 2 and name not in ("Gather", "GatherCmp") else (n + int(bool(noff)),)
        if name == "Load":
            return (3,) if info.ms else (1,) if info.access != "SRV" or not noff else (2,)
        return ()

    def _with_status(self, read: ir.Expr, arg: ast.Expr, loc: SourceLoc) -> ir.Expr:
        """A texture read with an `out uint status`: WithStatus(read, temporary), the temporary written back."""
        if not isinstance(read, ir.Intrinsic) or read.name not in ("Load", *SAMPLE_METHODS, *GATHER_METHODS,
                                                                   *GATHER_CMP_METHODS):
            raise error(f"a status argument is supported on 32-bit loads only, not on a load of '{read.type}'", loc)
        if not self.is_place_expr(arg):
            r = read.args[0].type
            info = KINDS.get(r.kind) if isinstance(r, ir.Resource) else None
            no_offset = f" ('{info.name}' takes no texel offset)" if info is not None and not info.offsets else ""
            raise error(f"the status argument must be an lvalue of type uint{no_offset}", arg.loc)
        place = self.place(arg, for_write=True)
        if place.type != ir.UINT:
            raise error(f"the status argument must be a uint, not '{place.type}'", arg.loc)
        status = self.temp(ir.UINT)
        value = self._side_effect(ir.Intrinsic(WITH_STATUS, [read, ir.VarRef(status)], read.type), loc)
        self.emit(ir.Store(place, self.load(ir.VarRef(status)), loc))
        return value

    @staticmethod
    def _no_method(r: ir.Resource, name: str, loc: SourceLoc) -> Exception:
        """The error for a method the resource-kind table does not list for r's kind."""
        info = KINDS.get(r.kind)
        if info is not None and info.rep == "typed" and name in SAMPLE_METHODS and "Sample" not in info.methods:
            return error(f"'{r.kind}' cannot be sampled", loc)
        if info is not None and info.rep == "typed" and (name in GATHER_METHODS or name in GATHER_CMP_METHODS
                                                         or name in SAMPLE_METHODS):
            return error(f"'{name}' is not available on '{r.kind}'", loc)
        if info is not None and info.rep == "raw" and name in KINDS["RWByteAddressBuffer"].methods:
            return error(f"'{name}' requires a RWByteAddressBuffer, not '{r}'", loc)
        if info is not None and info.rep == "sampler":
            return error(f"'{r.kind}' has no member function '{name}'", loc)
        return error(f"no member function named '{name}' in '{r}'", loc)

    # -------------------------------------------------------------- geometry-shader streams
    def _stream_method(self, res, r: ir.Resource, name, args, loc) -> ir.Expr:
        if name not in STREAM_METHODS:
            raise error(f"no member function named '{name}' in '{r}' (streams have Append and RestartStrip)", loc)
        if name == "Append":
            self._arity(name, args, (1,), loc)
            assert r.elem is not None       # a stream always has a vertex type
            operands = [res, self.convert(self.rvalue(args[0]), r.elem, args[0].loc)]
        else:
            self._arity(name, args, (0,), loc)
            operands = [res]
        self.emit(ir.Eval(ir.Intrinsic(name, operands, ir.VOID), loc))
        return self.void_value(loc)

    # -------------------------------------------------------------- buffers
    def _buffer_method(self, res, r: ir.Resource, name, args, loc) -> ir.Expr:
        assert r.elem is not None       # structured and typed buffers have an element type (Buffer: float4)
        if name == "Load":
            self._arity(name, args, (1,), loc)
            idx = self.convert(self.rvalue(args[0]), ir.UINT, args[0].loc)
            return self.load(ir.BufferElem(res, idx, r.elem))
        if name == "GetDimensions":
            if KINDS[r.kind].rep == "typed":
                return self._get_dimensions(res, r, args, loc)
            if len(args) != 2 or not all(self.is_place_expr(a) for a in args):
                bad = next((a.loc for a in args if not self.is_place_expr(a)), loc) if len(args) == 2 else loc
                raise error("GetDimensions(out uint numStructs, out uint stride) requires two lvalue arguments", bad)
            count = self.temp(ir.UINT)
            self.emit(ir.Store(ir.VarRef(count), ir.Intrinsic("GetDimensions", [res], ir.UINT), loc))
            p0 = self.place(args[0], for_write=True)
            self.emit(ir.Store(p0, self.convert(self.load(ir.VarRef(count)), p0.type, loc), loc))
            from ...ir.layout import layout_of
            stride = layout_of(ir.Array(r.elem, 1), self.caps.layout_rule("storage", self.options)).array_stride
            p1 = self.place(args[1], for_write=True)
            self.emit(ir.Store(p1, self.convert(ir.Const(ir.UINT, stride), p1.type, loc), loc))
            return self.void_value(loc)
        if name in ("IncrementCounter", "DecrementCounter"):
            self._arity(name, args, (0,), loc)
            return self._side_effect(ir.Intrinsic(name, [res], ir.UINT), loc)
        if name == "Append":
            self._arity(name, args, (1,), loc)
            value = self.convert(self.rvalue(args[0]), r.elem, args[0].loc)
            self.emit(ir.Eval(ir.Intrinsic("Append", [res, value], ir.VOID), loc))
            return self.void_value(loc)
        if name == "Consume":
            self._arity(name, args, (0,), loc)
            return self._side_effect(ir.Intrinsic("Consume", [res], r.elem), loc)
        raise error(f"no member function named '{name}' in '{r}'", loc)

    # -------------------------------------------------------------- raw buffers
    def _byte_address_method(self, res, r: ir.Resource, name, args, loc, template,
                             row_major: bool | None = None, status: ast.Expr | None = None) -> ir.Expr:
        """status: a Load's `out uint status` argument."""
        widths = {"Load": 1, "Load2": 2, "Load3": 3, "Load4": 4, "Store": 1, "Store2": 2, "Store3": 3, "Store4": 4}
        if name in widths and name.startswith("Load"):
            self._arity(name, args, (1,), loc)
            addr = self.convert(self.rvalue(args[0]), ir.UINT, args[0].loc)
            t = template if template is not None else ir.vec(ir.UINT, widths[name])
            if template is not None and name != "Load":
                raise error(f"'{name}' does not take a template argument; use Load<T>", loc)
            if status is not None:
                if ir.is_numeric(t) and not row_major and ir.scalar_of(t).width == 32:      # one load
                    return self._with_status(ir.Intrinsic("Load", [res, addr], t), status, loc)
                # several loads (a struct, an array, 16- or 64-bit values): DXC sets the status from each (the
                # last one's stays); all read the same buffer, so a word load's at the same address is theirs
                addr = self.stable(addr)
                self._with_status(ir.Intrinsic("Load", [res, addr], ir.UINT), status, loc)
            if isinstance(t, (ir.Struct, ir.Array)) or row_major or (isinstance(t, ir.Matrix) and t.elem.width != 32):
                loaded = self._byte_address_aggregate(res, addr, t, None, loc, row_major)
                assert loaded is not None   # a load (value None) returns the loaded value
                return loaded
            if isinstance(t, (ir.Scalar, ir.Vector)) and ir.scalar_of(t).width == 64:
                return self._byte_address_wide(res, addr, t, None)
            if isinstance(t, (ir.Scalar, ir.Vector)) and ir.scalar_of(t).width == 16:
                return self._byte_address_narrow(res, addr, t, None)
            if not ir.is_numeric(t) or ir.scalar_of(t).width != 32:
                raise error(f"Load<{t}> supports 32-bit scalar, vector and matrix types", loc)
            return ir.Intrinsic("Load", [res, addr], t)
        if name in widths:
            self._arity(name, args, (2,), loc)
            addr = self.convert(self.rvalue(args[0]), ir.UINT, args[0].loc)
            if template is not None and name != "Store":
                raise error(f"'{name}' does not take a template argument; use Store<T>", loc)
            given = self.rvalue(args[1])
            want = template if template is not None else \
                self._store_deduced(given) if name == "Store" else ir.vec(ir.UINT, widths[name])
            value = self.convert(given, want, args[1].loc)
            if template is None and isinstance(want, ir.Matrix):
                row_major = bool(self.options.row_major)     # a deduced T carries no orientation of its own
            if isinstance(want, (ir.Struct, ir.Array)) or row_major or \
                    (isinstance(want, ir.Matrix) and want.elem.width != 32):
                self._byte_address_aggregate(res, addr, want, value, loc, row_major, template is not None)
                return self.void_value(loc)
            if isinstance(want, (ir.Scalar, ir.Vector)) and ir.scalar_of(want).width == 64:
                self._byte_address_wide(res, addr, want, value)
                return self.void_value(loc)
            if isinstance(want, (ir.Scalar, ir.Vector)) and ir.scalar_of(want).width == 16:
                self._byte_address_narrow(res, addr, want, value)
                return self.void_value(loc)
            if ir.is_numeric(want) and ir.scalar_of(want).width != 32:
                raise error(f"Store<{want}> supports 16-, 32- and 64-bit scalar and vector types", loc)
            self.emit(ir.Eval(ir.Intrinsic("Store", [res, addr, value], ir.VOID), loc))
            return self.void_value(loc)
        if name in ATOMICS or name in ATOMICS64:
            return self._byte_address_atomic(res, r, name, args, loc)
        if name == FLOAT_EXCHANGE:     # SM 6.6 (DXC's table): the exchange on the word's float value
            self.check_stage(name, None, (6, 6), loc)
            self._arity(name, args, (3,), loc)
            addr = self.convert(self.rvalue(args[0]), ir.UINT, args[0].loc)
            bits = ir.Bitcast(self.convert(self.rvalue(args[1]), ir.FLOAT, args[1].loc), ir.UINT)
            if not self.is_place_expr(args[2]):
                raise error(f"cannot bind non-lvalue argument to out parameter of '{name}'", args[2].loc)
            out_place = self.place(args[2], for_write=True)
            tmp = self.temp(ir.UINT)        # the word's bits, exchanged as a uint (the word is uint on both targets)
            self.emit(ir.Store(ir.VarRef(tmp), ir.Intrinsic("InterlockedExchange", [res, addr, bits], ir.UINT), loc))
            original = ir.Bitcast(self.load(ir.VarRef(tmp)), ir.FLOAT)
            self.emit(ir.Store(out_place, self.convert(original, out_place.type, args[2].loc), loc))
            return self.void_value(loc)
        if name in FLOAT_BITWISE:
            n = 4 if name == "InterlockedCompareExchangeFloatBitwise" else 3
            self._arity(name, args, (n,), loc)
            addr = self.convert(self.rvalue(args[0]), ir.UINT, args[0].loc)
            return self.float_bitwise_atomic(name, [res, addr], args[1:], loc)
        if name == "GetDimensions":
            self._arity(name, args, (1,), loc)
            if not self.is_place_expr(args[0]):
                raise error("GetDimensions(out uint size) requires an lvalue argument", args[0].loc)
            count = self.temp(ir.UINT)
            self.emit(ir.Store(ir.VarRef(count), ir.Intrinsic("GetDimensions", [res], ir.UINT), loc))
            p = self.place(args[0], for_write=True)
            self.emit(ir.Store(p, self.convert(self.load(ir.VarRef(count)), p.type, loc), loc))
            return self.void_value(loc)
        raise error(f"no member function named '{name}' in '{r}'", loc)

    def _store_deduced(self, value: ir.Expr) -> ir.Type:
        """T of `Store(addr, value)` without a template argument: DXC declares Store as `template<T> void
        Store(uint, T)`, so the value is stored as it is (a float's bits, a float3 as three words, a matrix, a
        struct), not converted to uint as Store2/3/4 convert.  Bools are stored as uints (0 / 1); a literal
        stores as a 32-bit value of its kind; 32-bit ints and integer literals as uints (the same bits, and the
        code the uint conversion always gave)."""
        t = value.type
        s = ir.scalar_of(t) if ir.is_numeric(t) else None
        if s is not None and (s.kind == "bool" or (not isinstance(t, ir.Matrix) and (
                self.is_literal(value) or (s.kind == "int" and s.width == 32)))):
            return with_scalar(t, ir.FLOAT if s.is_float else ir.UINT)
        return t

    def _byte_address_atomic(self, res, r: ir.Resource, name, args, loc) -> ir.Expr:
        """B.Interlocked*(byteOffset, value[, out original]) and the compare forms:
        Intrinsic(name, [resource, byte offset, values...], value type), the 32-bit word at
        byteOffset (DXC: SPIR-V element byteOffset/4, DXIL coord0 = byteOffset)."""
        wide = name in ATOMICS64        # Interlocked*64 (SM 6.6): the 64-bit word at byteOffset
        written = name
        if wide:
            self.check_stage(name, None, (6, 6), loc)
            name = name[:-2]
        n_values = 2 if name in ("InterlockedCompareExchange", "InterlockedCompareStore") else 1
        has_out = name != "InterlockedCompareStore"
        forms = (1 + n_values + 1,) if name in ("InterlockedCompareExchange", "InterlockedExchange") else \
            ((1 + n_values, 2 + n_values) if has_out else (1 + n_values,))
        self._arity(written, args, forms, loc)
        addr = self.convert(self.rvalue(args[0]), ir.UINT, args[0].loc)
        vals = [self.rvalue(a) for a in args[1: 1 + n_values]]
        # the value's type picks the signedness (Min/Max), as DXC: int stays int, else uint
        t = ir.INT if isinstance(vals[-1].type, ir.Scalar) and vals[-1].type.kind == "int" else ir.UINT
        if wide:
            t = ir.Scalar(t.kind, 64)
        operands = [res, addr] + [self.convert(v, t, a.loc) for v, a in zip(vals, args[1: 1 + n_values])]
        return self.emit_atomic(name, operands, t, args[1 + n_values:], loc)

    def _byte_address_wide(self, res, addr: ir.Expr, t: ir.Scalar | ir.Vector, value: ir.Expr | None) -> ir.Expr:
        """Load<T>/Store<T> of 64-bit scalars and vectors (double, int64_t, uint64_t): each component is
        two 32-bit words at addr + 8 i, low word first, as D3D lays them out (the bits, not a conversion)."""
        s = ir.scalar_of(t)
        n = t.size if isinstance(t, ir.Vector) else 1
        addr = self.stable(addr)
        words = ir.Vector(ir.UINT, 2)
        value = None if value is None else self.stable(value)
        comps: list[ir.Expr] = []
        for i in range(n):
            a = ir.Binary("add", addr, ir.Const(ir.UINT, 8 * i), ir.UINT) if i else addr
            if value is None:
                w = self.stable(ir.Intrinsic("Load", [res, a], words))
                lo, hi = ir.Extract(w, 0, ir.UINT), ir.Extract(w, 1, ir.UINT)
                if s.kind == "float":
                    comps.append(ir.Intrinsic("asdouble", [lo, hi], ir.DOUBLE))
                    continue
                bits = ir.Binary("bitor", ir.Convert(lo, ir.UINT64),
                                 ir.Binary("shl", ir.Convert(hi, ir.UINT64), ir.Const(ir.UINT, 32), ir.UINT64), ir.UINT64)
                comps.append(bits if s == ir.UINT64 else ir.Convert(bits, s))
                continue
            c = ir.Swizzle(value, (i,), s) if n > 1 else value
            if s.kind == "float":
                halves: ir.Expr = ir.Bitcast(c, words)
            else:
                u = self.stable(c if s == ir.UINT64 else ir.Convert(c, ir.UINT64))
                halves = ir.Construct(words, [ir.Convert(u, ir.UINT), ir.Convert(
                    ir.Binary("shr", u, ir.Const(ir.UINT, 32), ir.UINT64), ir.UINT)])
            self.emit(ir.Eval(ir.Intrinsic("Store", [res, a, halves], ir.VOID)))
        if value is not None:
            return value
        return comps[0] if n == 1 else ir.Construct(t, comps)

    def _byte_address_narrow(self, res, addr: ir.Expr, t: ir.Scalar | ir.Vector, value: ir.Expr | None) -> ir.Expr:
        """Load<T>/Store<T> of 16-bit scalars and vectors (half, int16_t, uint16_t with -enable-16bit-types):
        component i is the 16 bits at addr + 2 i, in the 32-bit word holding them (low half first); a store
        rewrites only its half of the word (read, mask, write: the words hold 32-bit units on both targets)."""
        s = ir.scalar_of(t)
        n = t.size if isinstance(t, ir.Vector) else 1
        u = ir.UINT
        k = lambda x: ir.Const(u, x)  # noqa: E731
        addr = self.stable(addr)
        value = None if value is None else self.stable(value)
        comps: list[ir.Expr] = []
        for i in range(n):
            a = self.stable(ir.Binary("add", addr, k(2 * i), u) if i else addr)
            word_addr = self.stable(ir.Binary("bitand", a, k(0xFFFFFFFC), u))
            shift = self.stable(ir.Binary("shl", ir.Binary("bitand", a, k(2), u), k(3), u))
            word = self.stable(ir.Intrinsic("Load", [res, word_addr], u))
            if value is None:
                bits = ir.Convert(ir.Binary("shr", word, shift, u), ir.UINT16)
                comps.append(bits if s == ir.UINT16 else ir.Bitcast(bits, s))
                continue
            c = ir.Swizzle(value, (i,), s) if n > 1 else value
            bits16 = c if s == ir.UINT16 else ir.Bitcast(c, ir.UINT16)
            keep = ir.Binary("bitand", word, ir.Unary("bitnot", ir.Binary("shl", k(0xFFFF), shift, u), u), u)
            new = ir.Binary("bitor", keep, ir.Binary("shl", ir.Convert(bits16, u), shift, u), u)
            self.emit(ir.Eval(ir.Intrinsic("Store", [res, word_addr, new], ir.VOID)))
        if value is not None:
            return value
        return comps[0] if n == 1 else ir.Construct(t, comps)

    def _byte_address_aggregate(self, res, addr: ir.Expr, t: ir.Type, value: ir.Expr | None,
                                loc: SourceLoc, row_major: bool | None = None, explicit: bool = True) -> ir.Expr | None:
        """Load<S>/Store<S> for a struct or array S (or a row-major matrix): per-member Load/Store intrinsics
        of the scalar/vector paths at S's StructuredBuffer (dx_structured) offsets; row_major: the orientation
        of matrices that do not carry their own (default: -Zpr / -Zpc); explicit: S was written (Load<S>), not
        deduced from a stored value."""
        from ...ir.layout import layout_of
        from .typeresolve import resource_inside
        if resource_inside(t) is not None:     # (DXC: IsHLSLNumericOrAggregateOfNumericType fails)
            op = "Load" if value is None else "Store"
            if not explicit:
                raise error(f"'{op}' of a '{t}' value: a type holding a resource has no layout in a raw buffer", loc)
            raise error(f"Explicit template arguments on intrinsic {op} must be a single numeric type", loc)
        base = self.temp(ir.UINT)
        self.emit(ir.Store(ir.VarRef(base), addr, loc))
        var = self.temp(t)
        if value is not None:
            self.emit(ir.Store(ir.VarRef(var), value, loc))
        leaves: list[tuple[ir.Expr, int, ir.Type]] = []

        def walk(place: ir.Expr, ty: ir.Type, off: int, row_major: bool) -> None:
            if isinstance(ty, ir.Struct):
                lay = layout_of(ty, "dx_structured", row_major)
                for i, (f, o) in enumerate(zip(ty.fields, lay.offsets)):
                    rm = row_major if f.row_major is None else f.row_major
                    walk(ir.FieldRef(place, i, f.type), f.type, off + o, rm)
            elif isinstance(ty, ir.Array):
                if ty.size is None:
                    raise error(f"Load<{t}>/Store<{t}>: runtime-sized arrays have no fixed layout", loc)
                stride = layout_of(ty, "dx_structured", row_major).array_stride
                assert stride is not None   # an array's layout has a stride
                for j in range(ty.size):
                    walk(ir.IndexRef(place, ir.Const(ir.UINT, j), ty.elem), ty.elem, off + j * stride, row_major)
            elif isinstance(ty, ir.Matrix):      # one leaf per component (16- and 64-bit ones on their paths)
                lay = layout_of(ty, "dx_structured", row_major)
                rm = lay.row_major if lay.row_major is not None else row_major
                ms, es = lay.matrix_stride or 0, ty.elem.width // 8
                for rr in range(ty.rows):
                    # a row of an Nx1 matrix is its scalar
                    row = ir.IndexRef(place, ir.Const(ir.UINT, rr), ir.Vector(ty.elem, ty.cols) if ty.cols > 1 else ty.elem)
                    for c in range(ty.cols):
                        walk(ir.IndexRef(row, ir.Const(ir.UINT, c), ty.elem) if ty.cols > 1 else row, ty.elem,
                             off + (rr * ms + c * es if rm else c * ms + rr * es), rm)
            else:
                elem = ir.scalar_of(ty) if ir.is_numeric(ty) else None
                if elem is None or elem.width not in (16, 32, 64):
                    raise error(f"Load<{t}>/Store<{t}>: member type '{ty}' is not a 16-, 32- or 64-bit scalar or "
                                f"vector", loc)
                leaves.append((place, off, ty))

        walk(ir.VarRef(var), t, 0, bool(self.options.row_major) if row_major is None else row_major)
        for place, off, ty in leaves:
            a = self.load(ir.VarRef(base))
            if off:
                a = ir.Binary("add", a, ir.Const(ir.UINT, off), ir.UINT)
            width = ir.numeric_scalar(ty).width
            if width != 32:         # 16- and 64-bit members: the narrow / wide paths
                assert isinstance(ty, (ir.Scalar, ir.Vector))
                wide_or_narrow = self._byte_address_narrow if width == 16 else self._byte_address_wide
                if value is None:
                    self.emit(ir.Store(place, wide_or_narrow(res, a, ty, None), loc))
                else:
                    wide_or_narrow(res, a, ty, self.load(place))
                continue
            # bool members are 32-bit words (0 / 1), as in a StructuredBuffer
            wt = ir.vec(ir.UINT, ty.size) if isinstance(ty, ir.Vector) else ir.UINT
            wt = wt if ir.scalar_of(ty) == ir.BOOL else ty
            if value is None:
                self.emit(ir.Store(place, self.convert(ir.Intrinsic("Load", [res, a], wt), ty, loc), loc))
            else:
                v = self.convert(self.load(place), wt, loc)
                self.emit(ir.Eval(ir.Intrinsic("Store", [res, a, v], ir.VOID), loc))
        return None if value is not None else self.load(ir.VarRef(var))

    # -------------------------------------------------------------- textures
    def _texture_method(self, res, r: ir.Resource, name, args, loc) -> ir.Expr:
        kind = r.kind
        info = KINDS[kind]
        ncoord, noff = info.coords, info.offsets
        elem = r.elem or ir.Vector(ir.FLOAT, 4)
        if name in SAMPLE_METHODS:
            extras, comparison, implicit = SAMPLE_METHODS[name]
            sm = (self.profile.major, self.profile.minor)
            sm67 = sm >= (6, 7)
            need = SAMPLE_MIN_SM.get(name)
            if need is not None and sm < need:
                self.stage_error(f"'{name}' requires shader model {need[0]}.{need[1]} or higher (the profile is "
                                 f"{self.profile})", loc)
            assert ir.is_numeric(elem)      # texture elements are scalars or vectors
            # integer sampling is SM 6.7; the comparison samples never take integers: SampleCmp(Level(Zero))
            # by DXC's IsValidObjectElement, SampleCmpBias/Grad by its validator (Instr.SampleCompType, whose
            # SM 6.7 widening excludes comparisons); GatherCmp* take them (TextureGatherCmp has i32 forms)
            if ir.scalar_of(elem).kind in ("int", "uint") and (not sm67 or comparison):
                self.stage_error(f"cannot {name} from resource containing {elem}", loc)
            if implicit:
                self.derivative_stage(f"'{name}'", loc)
            n = 2 + len(extras)
            # a trailing float clamp (the smallest mip level read) after the offset: Sample, SampleBias,
            # SampleGrad and SampleCmp; in the IR the offset is an int operand, the clamp a float one
            clamps = name in CLAMPED_SAMPLES
            self._arity(name, args, tuple(range(n, n + 1 + int(bool(noff)) + int(clamps))), loc)
            samp = self._sampler(args[0], comparison, name)
            coord = self.convert(self.rvalue(args[1]), ir.vec(ir.FLOAT, ncoord), args[1].loc)
            ops = [res, samp, coord]
            for i, what in enumerate(extras):
                a = args[2 + i]
                t = ir.vec(ir.FLOAT, ncoord - int(info.arrayed)) if what in ("ddx", "ddy") else ir.FLOAT
                ops.append(self.convert(self.rvalue(a), t, a.loc))
            rest = args[n:]
            if noff and rest:
                ops.append(self._offset(rest[0], noff))
                rest = rest[1:]
            if rest:
                ops.append(self.convert(self.rvalue(rest[0]), ir.FLOAT, rest[0].loc))
            rt = ir.FLOAT if comparison else elem
            return ir.Intrinsic(name, ops, rt)
        if name in GATHER_METHODS or name in GATHER_CMP_METHODS:
            cmp = name in GATHER_CMP_METHODS      # (s, location, compare value[, offset, or 4 offsets])
            n = 3 if cmp else 2
            # four offsets (one per gathered texel) for the single-channel forms of 2-D textures
            four = noff == 2 and name not in ("Gather", "GatherCmp")
            self._arity(name, args, (n, n + 1, n + 4) if four else (n, n + 1) if noff else (n,), loc)
            samp = self._sampler(args[0], cmp, name)
            coord = self.convert(self.rvalue(args[1]), ir.vec(ir.FLOAT, ncoord), args[1].loc)
            ops = [res, samp, coord] + ([self.convert(self.rvalue(args[2]), ir.FLOAT, args[2].loc)] if cmp else [])
            ops += [self._gather_offset(a, noff) for a in args[n:]]
            assert ir.is_numeric(elem)      # texture elements are scalars or vectors
            return ir.Intrinsic(name, ops, ir.Vector(ir.scalar_of(elem), 4))
        if name in LOD_METHODS:
            self.derivative_stage(f"'{name}'", loc)
            self._arity(name, args, (2,), loc)
            samp = self._sampler(args[0], False, name)
            n = ncoord - int(info.arrayed)
            coord = self.convert(self.rvalue(args[1]), ir.vec(ir.FLOAT, n), args[1].loc)
            return ir.Intrinsic(name, [res, samp, coord], ir.FLOAT)
        if name == "Load":
            if info.ms:
                self._arity(name, args, (2, 3), loc)
                loc_t = ir.vec(ir.INT, ncoord)
                ops = [res, self.convert(self.rvalue(args[0]), loc_t, args[0].loc),
                       self.convert(self.rvalue(args[1]), ir.INT, args[1].loc)]
                if len(args) > 2:
                    ops.append(self._offset(args[2], noff))
                return ir.Intrinsic("Load", ops, elem)
            with_mip = info.access == "SRV"
            self._arity(name, args, (1, 2) if noff else (1,), loc)
            loc_t = ir.vec(ir.INT, ncoord + (1 if with_mip else 0))
            ops = [res, self.convert(self.rvalue(args[0]), loc_t, args[0].loc)]
            if len(args) > 1:
                ops.append(self._offset(args[1], noff))
            return ir.Intrinsic("Load", ops, elem)
        if name == "GetDimensions":
            return self._get_dimensions(res, r, args, loc)
        if name == "GetSamplePosition":     # (sample index) -> the sample's offset from the pixel centre
            self._arity(name, args, (1,), loc)
            return ir.Intrinsic(name, [res, self.convert(self.rvalue(args[0]), ir.INT, args[0].loc)],
                                ir.Vector(ir.FLOAT, 2))
        raise error(f"no member function named '{name}' in '{r}'", loc)

    def _get_dimensions(self, res, r: ir.Resource, args, loc) -> ir.Expr:
        """tex.GetDimensions([mip,] out width[, out height][, out depth/elements][, out levels/samples]).

        IR form: Eval(Intrinsic('GetDimensions', [res, mip?, out places...], void)), the
        places in the order written; a backend stores each query result into its place."""
        kind = r.kind
        info = KINDS[kind]
        nsize = info.size_components
        # DXC's overloads: (dims...) and, for a texture with mips, (mip, dims..., levels); a multisampled
        # texture has only (dims..., samples)
        if info.ms:
            forms = {nsize + 1}
        elif info.access == "SRV" and info.dim != "Buffer":
            forms = {nsize, nsize + 2}
        else:
            forms = {nsize}
        if len(args) not in forms:
            want = " or ".join(str(n) for n in sorted(forms))
            raise error(f"no matching member function for call to 'GetDimensions' on '{kind}': expected "
                        f"{want} arguments, have {len(args)}", loc)
        ops: list[ir.Expr] = [res]
        outs = args
        if len(args) == nsize + 2:
            ops.append(self.convert(self.rvalue(args[0]), ir.UINT, args[0].loc))
            outs = args[1:]
        for a in outs:
            if not self.is_place_expr(a):
                raise error("GetDimensions writes its results to lvalue arguments", a.loc)
            p = self.place(a, for_write=True)
            if not isinstance(p.type, ir.Scalar) or p.type.kind not in ("uint", "float", "int"):
                raise error(f"GetDimensions output must be a uint or float scalar, not '{p.type}'", a.loc)
            ops.append(p)
        self.emit(ir.Eval(ir.Intrinsic("GetDimensions", ops, ir.VOID), loc))
        return self.void_value(loc)

    def indexed_load_parts(self, e: ast.Expr) -> tuple[ast.Expr, ast.Index, ast.Expr] | None:
        """(texture, level/sample subscript, coordinate) when `e` is `tex.mips[level][coord]` or
        `tex.sample[s][coord]` on a texture that has them; None otherwise (a purely syntactic check, so
        `is_place_expr` can route these reads to `indexed_load` instead of the place path)."""
        if not (isinstance(e, ast.Index) and isinstance(e.base, ast.Index) and isinstance(e.base.base, ast.Member)):
            return None
        member = e.base.base
        t = self.peek_type(member.base)
        if not isinstance(t, ir.Resource) or KINDS[t.kind].indexed_load != member.name:
            return None
        return member.base, e.base, e.index

    def indexed_load(self, tex_ast: ast.Expr, level: ast.Index, coord_ast: ast.Expr) -> ir.Expr:
        """`tex.mips[level][coord]` is `tex.Load(int(coord, level))`; `ms.sample[s][coord]` is
        `ms.Load(coord, s)`: the same IR as the Load method, so both backends handle it unchanged."""
        res = self.place(tex_ast, for_write=False)
        r = res.type
        assert isinstance(r, ir.Resource)   # only called on resource places
        elem = r.elem or ir.Vector(ir.FLOAT, 4)
        info = KINDS[r.kind]
        ncoord = info.coords
        value = self.rvalue(coord_ast)
        if not ir.is_numeric(value.type) or ir.component_count(value.type) != ncoord:
            # as `tex[coord]`: DXC's operator[] of a mips/sample slice takes exactly the coordinate
            raise error(f"no viable overloaded operator[] for type '{r}'", coord_ast.loc, [Diagnostic(
                "note", f"candidate function not viable: no known conversion from '{value.type}' to "
                        f"'{ir.vec(ir.UINT, ncoord)}' for 1st argument", coord_ast.loc)])
        coord = self.convert(value, ir.vec(ir.INT, ncoord), coord_ast.loc)
        index = self.convert(self.rvalue(level.index), ir.INT, level.index.loc)
        if info.ms:
            return ir.Intrinsic("Load", [res, coord, index], elem)
        return ir.Intrinsic("Load", [res, ir.Construct(ir.vec(ir.INT, ncoord + 1), [coord, index])], elem)

    # -------------------------------------------------------------- helpers
    def _sampler(self, a: ast.Expr, comparison: bool, method: str) -> ir.Expr:
        want = "SamplerComparisonState" if comparison else "SamplerState"
        if not self.is_place_expr(a):
            # `SamplerDescriptorHeap[i]` (converted to the sampler the method takes) or a cast of one
            v = self.rvalue(a)
            if isinstance(v, HeapElement):
                v = self.heap_view_element(v, ir.Resource(want), a.loc)   # type: ignore[attr-defined]
            if not (isinstance(v, ir.Load) and isinstance(v.type, ir.Resource)):
                raise error(f"the first argument of '{method}' must be a sampler", a.loc)
            s = v.place
        else:
            s = self.place(a, for_write=False)
        if not (isinstance(s.type, ir.Resource) and s.type.kind == want):
            raise error(f"'{method}' requires a {want} as its first argument, not '{s.type}'", a.loc)
        return s

    def _offset(self, a: ast.Expr, noff: int) -> ir.Expr:
        if noff == 0:
            raise error("this texture type does not take an offset", a.loc)
        e = self.convert(self.rvalue(a), ir.vec(ir.INT, noff), a.loc)
        v = self._constant(e)
        if v is None and (params := self.constant_parameters(e)):
            # a helper's parameter (DXC: constant after inlining): each call binds it (calls.const_specialize)
            assert self.fn_info is not None     # constant_parameters found parameters of a function
            self.fn_info.const_params.update(params)
            return e
        found = self._counter_offset(e) if v is None else None
        if found is not None and self.unroll_offsets:
            # built from counters of enclosing [unroll] loops: checked when they are lowered (stmts.loop)
            self.unroll_offsets[-1].append(UnrollOffset(found[0], found[0], found[1], {}, a.loc))
            return found[0]
        if found is not None and found[1]:
            # locals (a helper's parameter it assigns too): each set once before, the body's end tells
            self.local_offsets.append(LocalOffset(found[0], found[0], a.loc, self.loop_depth > 0))
            return found[0]
        found = found if self.loop_depth else None
        if v is None:
            # DXC's hint in a loop: unrolling may make the counter an immediate; shaderbuild unrolls [unroll] loops
            raise error("texture offsets must be compile-time constants" + (LOOP_HINT if found else ""), a.loc)
        vals = v.value if isinstance(v.value, tuple) else (v.value,)
        if any(not -8 <= x <= 7 for x in vals):
            raise error("texture offsets must be in the range [-8, 7]", a.loc)
        return v

    def _gather_offset(self, a: ast.Expr, noff: int) -> ir.Expr:
        """A Gather* offset: D3D's programmable offsets (gather4_po), so any int expression, as DXC accepts; an
        immediate one must fit their 6-bit range [-32, 31] (the hardware reads the low 6 bits)."""
        if noff == 0:
            raise error("this texture type does not take an offset", a.loc)
        e = self.convert(self.rvalue(a), ir.vec(ir.INT, noff), a.loc)
        v = self._constant(e)
        if v is None:
            return e
        if any(not -32 <= x <= 31 for x in (v.value if isinstance(v.value, tuple) else (v.value,))):
            raise error("gather offsets must be in the range [-32, 31]", a.loc)
        return v

    def resolve_local_offsets(self, body: list[ir.Stmt]) -> None:
        """Fold each pending LocalOffset of the function whose `body` is complete: every local it reads (again,
        for locals set from locals) is replaced by the value of the one top-level store the body makes to it,
        before the statement reading it (DXC folds such offsets after inlining); else a located error."""
        pending, self.local_offsets = self.local_offsets, []
        if pending:
            from ...ir.loops import const_int, follow_stores  # offsets held by locals only (issue 23)
        found: dict[int, tuple[int, ir.Expr] | None] = {}
        for o in pending:
            use = next((i for i, s in enumerate(body) if any(y is o.node for y in ir.body_exprs([s]))), None)
            e = o.expr if use is None else follow_stores(o.expr, body, use, found=found)
            if isinstance(e, ir.Call) and len(body_of := e.func.body) == 1 and isinstance(ret := body_of[0], ir.Return) \
                    and ret.value is not None:
                e = ret.value       # a helper returning a constant (`int2 off() { return int2(1, 2); }`)
            c = const_int(e)
            if c is None or use is None:
                raise error("texture offsets must be compile-time constants" + (LOOP_HINT if o.in_loop else ""),
                            o.loc)
            if any(not -8 <= x <= 7 for x in c):
                raise error("texture offsets must be in the range [-8, 7]", o.loc)
            value = ir.Const(o.node.type, c[0] if isinstance(o.node.type, ir.Scalar) else tuple(c))
            for x in ir.body_exprs([body[use]]):
                if isinstance(x, ir.Intrinsic):
                    x.args = [value if a is o.node else a for a in x.args]

    def _counter_offset(self, e: ir.Expr) -> tuple[ir.Expr, dict[int, ir.Variable]] | None:
        """`e` with its constant parts folded, and the local int variables it reads, when it is built from
        constants and such variables by the operations the unroll pass folds (ir/loops.const_int)."""
        c = self._constant(e)
        if c is not None:
            return c, {}
        if isinstance(e, ir.Load) and (held := self._held_value(e.place)) is not None:
            return self._counter_offset(held)     # a const local: its initializer (of counters unchanged since)
        if isinstance(e, ir.Load) and isinstance(e.place, ir.VarRef):
            var = e.place.var
            t = var.type
            ok = var.storage is ir.Storage.FUNCTION and isinstance(t, (ir.Scalar, ir.Vector)) \
                and ir.scalar_of(t) in (ir.INT, ir.UINT)
            return (e, {id(var): var}) if ok else None
        if isinstance(e, ir.Construct):
            kids = e.parts
        elif isinstance(e, ir.Binary) and e.op in ("add", "sub", "mul", "div", "mod", "shl", "shr", "bitand", "bitor",
                                                   "bitxor"):
            kids = [e.lhs, e.rhs]
        elif (isinstance(e, ir.Unary) and e.op == "neg") or isinstance(e, (ir.Convert, ir.Swizzle)):
            kids = [e.operand if isinstance(e, ir.Unary) else e.value]
        else:
            return None
        parts: list[ir.Expr] = []
        used: dict[int, ir.Variable] = {}
        for k in kids:
            f = self._counter_offset(k)
            if f is None:
                return None
            parts.append(f[0])
            used.update(f[1])
        if isinstance(e, ir.Construct):
            return ir.Construct(e.type, parts), used
        if isinstance(e, ir.Binary):
            return ir.Binary(e.op, parts[0], parts[1], e.type), used
        if isinstance(e, ir.Unary):
            return ir.Unary(e.op, parts[0], e.type), used
        if isinstance(e, ir.Convert):
            if ir.scalar_of(parts[0].type) not in (ir.INT, ir.UINT):
                return None
            return ir.Convert(parts[0], e.type), used
        assert isinstance(e, ir.Swizzle)
        return ir.Swizzle(parts[0], e.comps, e.type), used

    def _constant(self, e: ir.Expr) -> ir.Const | None:
        """An integer scalar or vector expression of constants (static consts, constructors, arithmetic)
        as one constant, component by component with sema's scalar folding; None if it is not constant."""
        if isinstance(e, ir.Const):
            return e
        s = ir.scalar_of(e.type) if isinstance(e.type, (ir.Scalar, ir.Vector)) else None
        if s is None or s.is_float:
            return None
        n = e.type.size if isinstance(e.type, ir.Vector) else 1

        def comps(x: ir.Expr) -> list | None:
            c = self._constant(x)
            if c is None:
                return None
            return list(c.value) if isinstance(c.value, tuple) else [c.value]
        vals: list | None = None
        if isinstance(e, ir.Construct):
            parts = [comps(p) for p in e.parts]
            if all(p is not None for p in parts):
                vals = [x for p in parts for x in p]        # type: ignore[union-attr]
                vals = vals * n if len(vals) == 1 else vals
        elif isinstance(e, ir.Binary):
            a, b = comps(e.lhs), comps(e.rhs)
            if a is not None and b is not None and len(a) == len(b) == n:
                folded = [self.fold(e.op, ir.Const(s, x), ir.Const(s, y), s) for x, y in zip(a, b)]
                vals = [f.value for f in folded if f is not None] if all(f is not None for f in folded) else None
        elif isinstance(e, ir.Unary) and e.op == "neg":
            a = comps(e.operand)
            vals = None if a is None else [-x for x in a]
        elif isinstance(e, ir.Swizzle):
            a = comps(e.value)
            vals = None if a is None else [a[i] for i in e.comps]
        elif isinstance(e, ir.Load):        # a const variable's element, field or swizzle
            held = self._held_value(e.place)
            return None if held is None else self._constant(held)
        elif isinstance(e, ir.Convert) and ir.scalar_of(e.value.type) in (ir.INT, ir.UINT):
            a = comps(e.value)
            vals = None if a is None else [scalar_value(s, x) for x in a]
            vals = vals * n if vals is not None and len(vals) == 1 else vals
        elif isinstance(e, ir.Select):
            c = self._constant(e.cond) if isinstance(e.cond.type, ir.Scalar) else None
            vals = None if c is None else comps(e.true if c.value else e.false)
        elif isinstance(e, ir.Intrinsic) and e.name in ("min", "max", "abs") and not e.precise:
            args = [comps(a) for a in e.args]
            if all(a is not None and len(a) == n for a in args):
                pick = {"min": min, "max": max, "abs": lambda x: scalar_value(s, abs(x))}[e.name]
                vals = [pick(*xs) for xs in zip(*args)]        # type: ignore[operator]
        if vals is None or len(vals) != n:
            return None
        return ir.Const(e.type, tuple(vals) if n > 1 else vals[0])

    def constant_parameters(self, e: ir.Expr) -> set[str]:
        """Names of the current helper function's `in` parameters (never assigned in it) that `e` reads: a call
        with constant arguments for them makes `e` constant.  Empty in the entry function (its parameters are
        stage inputs) and when `e` reads an assigned parameter."""
        fn, info = self.fn, self.fn_info
        if fn is None or info is None or info.decl.name == self.options.entry:
            return set()
        params = {id(p.var): p for p in fn.params if p.direction == "in"}
        read = {id(x.place.var) for x in ir.walk_expr(e) if isinstance(x, ir.Load) and isinstance(x.place, ir.VarRef)}
        names = {params[i].var.name for i in read if i in params}
        return names if names and not names & _assigned_names(info.decl.body) else set()

    def _held_value(self, p: ir.Expr) -> ir.Expr | None:
        """The initializer expression for what place `p` of a `const` variable holds (a static const or a
        const local with an initializer), through constant indices, fields and swizzles; None otherwise."""
        if isinstance(p, ir.VarRef):
            v = p.var
            if not v.const:
                return self.bound_params.get(id(v))
            return v.init if v.storage is ir.Storage.PRIVATE else self.const_locals.get(id(v))
        if not isinstance(p, (ir.FieldRef, ir.IndexRef, ir.SwizzleRef)):
            return None
        base = self._held_value(p.base)
        if base is None:
            return None
        if isinstance(p, ir.SwizzleRef):
            return ir.Swizzle(base, p.comps, p.type)
        if isinstance(p, ir.FieldRef):
            i: int | None = p.index
        else:
            c = self._constant(p.index)
            i = c.value if c is not None and isinstance(c.value, int) else None
        if i is None or not isinstance(base.type, (ir.Array, ir.Struct)):
            return None
        if isinstance(base, ir.Construct) and 0 <= i < len(base.parts) and base.parts[i].type == p.type:
            return base.parts[i]
        if isinstance(base, ir.Const) and isinstance(base.value, tuple) and 0 <= i < len(base.value):
            return ir.Const(p.type, base.value[i])
        return None

    def _arity(self, name: str, args: list, counts: tuple[int, ...], loc: SourceLoc) -> None:
        if len(args) not in counts:
            want = " or ".join(str(c) for c in counts)
            raise error(f"no matching member function for call to '{name}': expected {want} argument"
                        f"{'s' if counts != (1,) else ''}, have {len(args)}", loc)

    def _side_effect(self, node: ir.Intrinsic, loc: SourceLoc) -> ir.Expr:
        tmp = self.temp(node.type)
        self.emit(ir.Store(ir.VarRef(tmp), node, loc))
        return self.load(ir.VarRef(tmp))


def _assigned_names(body: ast.Node | None) -> set[str]:
    """Names assigned in a function body (`x = ...`, `x.y += ...`, `x++`): a parameter among them is no
    constant even when its argument is."""
    out: set[str] = set()

    def root(e: ast.Expr) -> str | None:
        while isinstance(e, (ast.Member, ast.Index)):
            e = e.base
        return e.name if isinstance(e, ast.Name) else None

    def visit(n: object) -> None:
        if isinstance(n, ast.Assign) and (r := root(n.target)) is not None:
            out.add(r)
        elif isinstance(n, ast.UnaryOp) and n.op in ("++", "--", "post++", "post--") and (r := root(n.operand)):
            out.add(r)
        if isinstance(n, ast.Node):
            for f in type(n)._fields:
                visit(getattr(n, f))
        elif isinstance(n, list):
            for x in n:
                visit(x)
    visit(body)
    return out
