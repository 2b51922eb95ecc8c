"""Resource methods -> SPIR-V: sampling, gathers, texel loads, raw-buffer loads/stores,
size queries and UAV counters.  Each IR intrinsic takes the resource place first
(front/sema/resources.py documents the argument lists); `RESOURCE_METHODS` is
merged into the intrinsic table.
"""

from __future__ import annotations

from shaderbuild.diagnostics import error
from shaderbuild.ir.layout import layout_of
from shaderbuild.ir.nodes import Const, Expr, Intrinsic
from shaderbuild.ir.resource_kinds import KINDS as RESOURCE_KINDS
from shaderbuild.ir.types import BOOL, FLOAT, INT, UINT, Array, Matrix, Type, Vector, numeric_scalar, resource_elem
from shaderbuild.lightstd import ContextVar

from .builder import enum
from .emit_expr import ExprEmitter, Ptr, ncomp
from .vulkan import compute_derivatives

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

if TYPE_CHECKING:      # a type alias: for type checkers only (no collections.abc at run time)
    Lowering = Callable[[ExprEmitter, Intrinsic], "int | None"]
_SCOPE_DEVICE = 1


def _resource(fe: ExprEmitter, e: Intrinsic) -> Ptr:
    p = fe.place(e.args[0])
    if not isinstance(p, Ptr) or p.res is None:
        raise error(f"'{e.name}' must be called on a resource")
    return p


def _image_operands(fe: ExprEmitter, ops: list[tuple[str, list[int]]]) -> list[int]:
    """ImageOperands mask followed by the operands' ids, in mask-bit order (spec §3.14)."""
    ops = sorted((o for o in ops if o[1]), key=lambda o: enum("ImageOperands", o[0]))
    if not ops:
        return []
    mask = 0
    ids: list[int] = []
    for name, vals in ops:
        mask |= enum("ImageOperands", name)
        ids += vals
    return [mask, *ids]


def _offset(fe: ExprEmitter, e: Intrinsic, index: int) -> list[int]:
    """A constant texel offset argument at `index`, if present."""
    if len(e.args) <= index:
        return []
    a = e.args[index]
    if not isinstance(a, Const):
        raise error("texture offsets must be compile-time constants")
    return [fe.expr(a)]


# ---------------------------------------------------------------- residency status
# while a `WithStatus` operation is emitted: the residency codes of its image operations (DXC's
# SPIR-V: each becomes its OpImageSparse* form, the code the status HLSL reads)
_RESIDENCY: ContextVar[list[int] | None] = ContextVar("_RESIDENCY", default=None)
SPARSE_FORM = {
    "OpImageSampleImplicitLod": "OpImageSparseSampleImplicitLod",
    "OpImageSampleExplicitLod": "OpImageSparseSampleExplicitLod",
    "OpImageSampleDrefImplicitLod": "OpImageSparseSampleDrefImplicitLod",
    "OpImageSampleDrefExplicitLod": "OpImageSparseSampleDrefExplicitLod",
    "OpImageFetch": "OpImageSparseFetch", "OpImageGather": "OpImageSparseGather",
    "OpImageDrefGather": "OpImageSparseDrefGather", "OpImageRead": "OpImageSparseRead",
}


def _image_op(fe: ExprEmitter, opname: str, type_id: int, *operands: int) -> int:
    """An image read; its OpImageSparse* form (residency code kept) inside a `WithStatus`."""
    codes = _RESIDENCY.get()
    if codes is None:
        return fe.op(opname, type_id, *operands)
    fe.b.capability("SparseResidency")
    st = fe.b.type("OpTypeStruct", fe.tid(INT), type_id)
    r = fe.op(SPARSE_FORM[opname], st, *operands)
    codes.append(fe.op("OpCompositeExtract", fe.tid(INT), r, 0))
    return fe.op("OpCompositeExtract", type_id, r, 1)


def _with_status(fe: ExprEmitter, e: Intrinsic) -> int:
    """WithStatus(texture read, status place): the read, and its residency code stored as the status
    (CheckAccessFullyMapped reads it back with OpImageSparseTexelsResident)."""
    codes: list[int] = []
    token = _RESIDENCY.set(codes)
    try:
        v = fe.expr(e.args[0])
    finally:
        _RESIDENCY.reset(token)
    if not codes:
        read = e.args[0]
        res = read.args[0].type if isinstance(read, Intrinsic) else read.type
        raise error(f"SPIR-V has no residency status for a storage buffer ('{res}'): "
                    "a status argument needs a texture or a typed buffer")
    code = codes[0]
    for nxt in codes[1:]:   # four-offset gathers: the first code not resident, else the last
        resident = fe.op("OpImageSparseTexelsResident", fe.tid(BOOL), code)
        code = fe.op("OpSelect", fe.tid(INT), resident, nxt, code)
    fe.store(fe.place(e.args[1]), fe.op("OpBitcast", fe.tid(UINT), code))
    return v


# ---------------------------------------------------------------- sampling

def _sampled_image(fe: ExprEmitter, e: Intrinsic, p: Ptr) -> int:
    img = fe.load_image(p)
    sp = fe.place(e.args[1])
    sampler = fe.load_image(sp)
    sit = fe.b.type("OpTypeSampledImage", fe.image_type(p))
    si = fe.op("OpSampledImage", sit, img, sampler)
    if p.nonuniform or sp.nonuniform:
        fe.nonuniform(si)
    return si


# name -> (image operand for the extra arguments, number of extra args, implicit LOD, depth comparison)
SAMPLES = {
    "Sample": (None, 0, True, False), "SampleBias": ("Bias", 1, True, False),
    "SampleLevel": ("Lod", 1, False, False), "SampleGrad": ("Grad", 2, False, False),
    "SampleCmp": (None, 0, True, True), "SampleCmpLevelZero": ("Lod", 0, False, True),
    "SampleCmpLevel": ("Lod", 1, False, True), "SampleCmpBias": ("Bias", 1, True, True),
    "SampleCmpGrad": ("Grad", 2, False, True),
}


def _sample(fe: ExprEmitter, e: Intrinsic) -> int:
    operand, nextra, implicit, dref = SAMPLES[e.name]
    if implicit:
        compute_derivatives(fe.ctx)
    p = _resource(fe, e)
    si = _sampled_image(fe, e, p)
    coord = fe.expr(e.args[2])
    pos = 3
    dref_id = None
    if dref:
        dref_id = fe.expr(e.args[3])
        pos = 4
    extra = [fe.expr(a) for a in e.args[pos:pos + nextra]]
    if e.name == "SampleCmpLevelZero":
        extra = [fe.const(FLOAT, 0.0)]
    operands = [(operand, extra)] if operand else []
    rest = e.args[pos + nextra:]
    if rest and numeric_scalar(rest[0].type).kind == "int":
        operands.append(("ConstOffset", _offset(fe, e, pos + nextra)))
        rest = rest[1:]
    if rest:                    # the clamp: the smallest level of detail read
        fe.b.capability("MinLod")
        operands.append(("MinLod", [fe.expr(rest[0])]))
    tail = _image_operands(fe, operands)
    if dref:
        assert dref_id is not None
        name = "OpImageSampleDrefImplicitLod" if implicit else "OpImageSampleDrefExplicitLod"
        return _image_op(fe, name, fe.tid(FLOAT), si, coord, dref_id, *tail)
    s, n, t4 = fe.texel4(p.rv.rtype)
    name = "OpImageSampleImplicitLod" if implicit else "OpImageSampleExplicitLod"
    return fe.shrink(_image_op(fe, name, fe.tid(t4), si, coord, *tail), s, n, e.type)


GATHER_COMPONENT = {"Gather": 0, "GatherRed": 0, "GatherGreen": 1, "GatherBlue": 2, "GatherAlpha": 3}


def _four_gathers(fe: ExprEmitter, e: Intrinsic, index: int, gather: Callable[[list[int]], int],
                  rt: Type) -> int | None:
    """Four offsets (one per gathered texel): texel k is texel k of the gather at offset k, D3D's meaning
    (DXC's DXIL; SPIR-V's ConstOffsets fetches the footprint's first texel moved by offset k instead)."""
    if len(e.args) - index != 4:
        return None
    parts = []
    for k, a in enumerate(e.args[index:]):
        g = gather(_image_operands(fe, [_gather_offset(fe, a)]))
        parts.append(fe.op("OpCompositeExtract", fe.tid(numeric_scalar(rt)), g, k))
    return fe.op("OpCompositeConstruct", fe.tid(rt), *parts)


def _gather_offset(fe: ExprEmitter, a: Expr) -> tuple[str, list[int]]:
    """A gather's texel offset: ConstOffset for an immediate, else Offset (D3D's programmable offsets), which a
    gather may take with ImageGatherExtended (Vulkan: shaderImageGatherExtended)."""
    if isinstance(a, Const):
        return ("ConstOffset", [fe.expr(a)])
    fe.b.capability("ImageGatherExtended")
    return ("Offset", [fe.expr(a)])


def _gather(fe: ExprEmitter, e: Intrinsic) -> int:
    p = _resource(fe, e)
    si = _sampled_image(fe, e, p)
    coord = fe.expr(e.args[2])
    comp = fe.const(INT, GATHER_COMPONENT[e.name])
    rt = e.type
    if numeric_scalar(e.type).width == 16:      # gathered as the image's 32-bit texels (texel_scalar)
        rt = fe.texel4(p.rv.rtype)[2]
    four = _four_gathers(fe, e, 3, lambda tail: _image_op(fe, "OpImageGather", fe.tid(rt), si, coord, comp, *tail),
                         rt)
    if four is None:
        tail = _image_operands(fe, [_gather_offset(fe, e.args[3])] if len(e.args) > 3 else [])
        four = _image_op(fe, "OpImageGather", fe.tid(rt), si, coord, comp, *tail)
    return fe.convert(four, rt, e.type)


def _gather_cmp(fe: ExprEmitter, e: Intrinsic) -> int:
    """GatherCmp / GatherCmpRed -> OpImageDrefGather (it has no component operand: the red channel)."""
    p = _resource(fe, e)
    si = _sampled_image(fe, e, p)
    coord, dref = fe.expr(e.args[2]), fe.expr(e.args[3])
    rt = e.type
    if numeric_scalar(e.type).width == 16:      # compared as the image's 32-bit texels, as _gather
        rt = fe.texel4(p.rv.rtype)[2]
    four = _four_gathers(fe, e, 4, lambda tail: _image_op(fe, "OpImageDrefGather", fe.tid(rt), si, coord, dref,
                                                          *tail), rt)
    if four is None:
        tail = _image_operands(fe, [_gather_offset(fe, e.args[4])] if len(e.args) > 4 else [])
        four = _image_op(fe, "OpImageDrefGather", fe.tid(rt), si, coord, dref, *tail)
    return fe.convert(four, rt, e.type)


def _lod(fe: ExprEmitter, e: Intrinsic) -> int:
    """CalculateLevelOfDetail -> OpImageQueryLod .x (clamped), ...Unclamped -> .y."""
    compute_derivatives(fe.ctx)
    fe.b.capability("ImageQuery")
    p = _resource(fe, e)
    si = _sampled_image(fe, e, p)
    v = fe.op("OpImageQueryLod", fe.tid(Vector(FLOAT, 2)), si, fe.expr(e.args[2]))
    return fe.op("OpCompositeExtract", fe.tid(FLOAT), v, 0 if e.name == "CalculateLevelOfDetail" else 1)


# ---------------------------------------------------------------- loads

def _load(fe: ExprEmitter, e: Intrinsic) -> int:
    p = _resource(fe, e)
    rv = p.rv
    rep = rv.kind.rep
    if rep == "bytes":
        return _bytes_load(fe, e, p)
    if rep == "structured":
        q = Ptr(p.base, [*p.chain, fe.T.uconst(0), fe.expr(e.args[1])], rv.storage_class, rv.layout, e.type, None, rv)
        return fe.load(q)
    if rep != "image":
        raise error(f"'Load' is not supported on {rv.rtype.kind}")
    s, n, t4 = fe.texel4(rv.rtype)
    img = fe.load_image(p)
    loc_t = e.args[1].type
    loc = fe.expr(e.args[1])
    k = rv.kind
    if k.writable:
        v4 = _image_op(fe, "OpImageRead", fe.tid(t4), img, loc)
    elif k.dim == "Buffer":
        v4 = _image_op(fe, "OpImageFetch", fe.tid(t4), img, loc)
    elif k.ms:
        tail = _image_operands(fe, [("ConstOffset", _offset(fe, e, 3)), ("Sample", [fe.expr(e.args[2])])])
        v4 = _image_op(fe, "OpImageFetch", fe.tid(t4), img, loc, *tail)
    else:
        # Texture.Load(int3(x, y, mip)[, offset]): the last coordinate is the level
        n_loc = ncomp(loc_t)
        cs = numeric_scalar(loc_t)
        coord_t = Vector(cs, n_loc - 1) if n_loc > 2 else cs
        coord = fe.swizzle(loc, loc_t, tuple(range(n_loc - 1)), coord_t)
        lod = fe.op("OpCompositeExtract", fe.tid(cs), loc, n_loc - 1)
        tail = _image_operands(fe, [("Lod", [lod]), ("ConstOffset", _offset(fe, e, 2))])
        v4 = _image_op(fe, "OpImageFetch", fe.tid(t4), img, coord, *tail)
    return fe.shrink(v4, s, n, e.type)


def _word_ptr(fe: ExprEmitter, p: Ptr, word: int) -> int:
    rv = p.rv
    return fe.pointer(Ptr(p.base, [*p.chain, fe.T.uconst(0), word], rv.storage_class, rv.layout, UINT, None, rv))


def _word_index(fe: ExprEmitter, base: int, i: int) -> int:
    return base if i == 0 else fe.op("OpIAdd", fe.tid(UINT), base, fe.const(UINT, i))


def _word_to(fe: ExprEmitter, s: Type, w: int) -> int:
    """A 32-bit buffer word as scalar s (a bool is any non-zero word)."""
    if s == UINT:
        return w
    if s == BOOL:
        return fe.op("OpINotEqual", fe.tid(BOOL), w, fe.const(UINT, 0))
    return fe.op("OpBitcast", fe.tid(s), w)


def _word_from(fe: ExprEmitter, s: Type, c: int) -> int:
    """Scalar s as a 32-bit buffer word (a bool is stored as 0 or 1)."""
    if s == UINT:
        return c
    if s == BOOL:
        return fe.op("OpSelect", fe.tid(UINT), c, fe.const(UINT, 1), fe.const(UINT, 0))
    return fe.op("OpBitcast", fe.tid(UINT), c)


def _word_order(t: Type) -> list[int]:
    """Word (from the load address) of each canonical component of t.  A matrix in a byte-address
    buffer is stored column_major, as DXC assumes for both DXIL and SPIR-V: element (r, c) of an
    R x C matrix is word c*R + r."""
    if isinstance(t, Matrix):
        return [c * t.rows + r for r in range(t.rows) for c in range(t.cols)]
    return list(range(ncomp(t) or 1))


def _bytes_load(fe: ExprEmitter, e: Intrinsic, p: Ptr) -> int:
    """Load/Load2/3/4/Load<T>: consecutive 32-bit words, bitcast to T's components."""
    t = e.type
    s = numeric_scalar(t)
    base = fe.op("OpShiftRightLogical", fe.tid(UINT), fe.expr(e.args[1]), fe.const(UINT, 2))
    comps = []
    for i in _word_order(t):
        w = fe.op("OpLoad", fe.tid(UINT), _word_ptr(fe, p, _word_index(fe, base, i)))
        comps.append(_word_to(fe, s, w))
    return fe.construct(t, [(s, c) for c in comps])


def _store(fe: ExprEmitter, e: Intrinsic) -> None:
    p = _resource(fe, e)
    if p.rv.kind.rep != "bytes" or not p.rv.kind.writable:
        raise error(f"'{e.name}' is only supported on RWByteAddressBuffer")
    vt = e.args[2].type
    base = fe.op("OpShiftRightLogical", fe.tid(UINT), fe.expr(e.args[1]), fe.const(UINT, 2))
    comps = fe.flatten(vt, fe.expr(e.args[2]))
    for i, c in zip(_word_order(vt), comps, strict=True):
        c = _word_from(fe, numeric_scalar(vt), c)
        fe.void_op("OpStore", _word_ptr(fe, p, _word_index(fe, base, i)), c)
    return None


# ---------------------------------------------------------------- sizes

def _array_length(fe: ExprEmitter, p: Ptr) -> int:
    if p.chain and p.pointee is None:   # an element of a buffer array (`sb[i].GetDimensions`): it points to a block
        p = Ptr(p.base, p.chain, p.sc, p.layout, p.type, p.rv.block_type, p.res, p.nonuniform)
    return fe.op("OpArrayLength", fe.tid(UINT), fe.pointer(p), 0)


def _get_dimensions(fe: ExprEmitter, e: Intrinsic) -> int | None:
    """Buffers: returns the element (structured) or byte (raw) count; the brief's form with
    trailing out places is accepted too.  Images: [res, mip?, out places...]."""
    p = _resource(fe, e)
    rv = p.rv
    assert rv is not None       # _resource refuses a place that is not a resource
    outs = list(e.args[1:])
    if rv.kind.rep in ("structured", "bytes"):
        n = _array_length(fe, p)
        if rv.kind.rep == "bytes":
            n = fe.op("OpIMul", fe.tid(UINT), n, fe.const(UINT, 4))
        if not outs:
            return n
        fe.store(fe.place(outs[0]), fe.convert(n, UINT, outs[0].type))
        if len(outs) > 1:
            stride = layout_of(Array(resource_elem(rv.rtype), 1), rv.layout).array_stride
            fe.store(fe.place(outs[1]), fe.convert(fe.const(UINT, stride), UINT, outs[1].type))
        return None
    if rv.kind.rep != "image":
        raise error(f"GetDimensions is not supported on {rv.rtype.kind}")
    fe.b.capability("ImageQuery")
    img = fe.load_image(p)
    k = rv.kind
    nsize = RESOURCE_KINDS[rv.rtype.kind].size_components
    st = UINT if nsize == 1 else Vector(UINT, nsize)
    sampled_mip = not k.writable and k.dim != "Buffer" and not k.ms
    if sampled_mip:
        mip = fe.const(UINT, 0)
        if len(outs) == nsize + 2:
            mip = fe.convert(fe.expr(outs[0]), outs[0].type, UINT)
            outs = outs[1:]
        size = fe.op("OpImageQuerySizeLod", fe.tid(st), img, mip)
    else:
        size = fe.op("OpImageQuerySize", fe.tid(st), img)
    for out, c in zip(outs, fe.flatten(st, size)):
        fe.store(fe.place(out), fe.convert(c, UINT, out.type))
    if len(outs) > nsize:
        name = "OpImageQueryLevels" if sampled_mip else "OpImageQuerySamples"
        fe.store(fe.place(outs[nsize]), fe.convert(fe.op(name, fe.tid(UINT), img), UINT, outs[nsize].type))
    return None


# ---------------------------------------------------------------- multisampled textures

# D3D's standard sample patterns (D3D11_STANDARD_MULTISAMPLE_PATTERN) for 1, 2, 4, 8 and 16 samples, in
# 1/16 pixel from the pixel centre; Vulkan has no query of a sample's position in an image, so GetSamplePosition
# reads these (as DXC's SPIR-V does) by the image's sample count
STANDARD_SAMPLE_POSITIONS = {
    1: [(0, 0)],
    2: [(4, 4), (-4, -4)],
    4: [(-2, -6), (6, -2), (-6, 2), (2, 6)],
    8: [(1, -3), (-1, 3), (5, 1), (-3, -5), (-5, 5), (-7, -1), (3, 7), (7, -7)],
    16: [(1, 1), (-1, -3), (-3, 2), (4, -1), (-5, -2), (2, 5), (5, 3), (3, -5), (-2, 6), (0, -7), (-4, -6),
         (-6, 4), (-8, 0), (7, -4), (6, 7), (-7, -8)],
}


def _sample_positions(fe: ExprEmitter) -> int:
    """A Private array of every pattern in turn (the n-sample one starts at element n - 1) and (0, 0) last;
    made once per module."""
    key = "$standard_sample_positions"
    vid = fe.ctx.builtins.get(key)
    if vid is None:
        f2 = Vector(FLOAT, 2)
        points = [p for n in sorted(STANDARD_SAMPLE_POSITIONS) for p in STANDARD_SAMPLE_POSITIONS[n]] + [(0, 0)]
        at = fe.b.type("OpTypeArray", fe.tid(f2), fe.T.uconst(len(points)))
        table = fe.b.constant("OpConstantComposite", at, *[fe.const(f2, (x / 16, y / 16)) for x, y in points])
        vid = fe.b.global_variable(fe.T.ptr("Private", at), "Private", table)
        fe.b.name(vid, "standard_sample_positions")
        fe.ctx.builtins[key] = vid
    if fe.b.version >= (1, 4) and vid not in fe.ctx.interface:
        fe.ctx.interface.append(vid)
    return vid


def _get_sample_position(fe: ExprEmitter, e: Intrinsic) -> int:
    """Element count - 1 + index of the table for a standard count (1, 2, 4, 8, 16) and an index below it;
    (0, 0) otherwise, as D3D returns for a sample that does not exist."""
    p = _resource(fe, e)
    fe.b.capability("ImageQuery")
    count = fe.op("OpImageQuerySamples", fe.tid(UINT), fe.load_image(p))
    index = fe.op("OpBitcast", fe.tid(UINT), fe.expr(e.args[1]))
    u = fe.T.uconst
    b = fe.tid(BOOL)
    power_of_two = fe.op("OpIEqual", b, fe.op("OpBitwiseAnd", fe.tid(UINT), count,
                                              fe.op("OpISub", fe.tid(UINT), count, u(1))), u(0))
    ok = fe.op("OpLogicalAnd", b, fe.op("OpLogicalAnd", b, power_of_two, fe.op("OpULessThanEqual", b, count, u(16))),
               fe.op("OpULessThan", b, index, count))
    at = fe.op("OpSelect", fe.tid(UINT), ok, fe.op("OpIAdd", fe.tid(UINT), fe.op("OpISub", fe.tid(UINT), count, u(1)),
                                                   index), u(31))
    f2 = Vector(FLOAT, 2)
    ptr = fe.op("OpAccessChain", fe.T.ptr("Private", fe.tid(f2)), _sample_positions(fe), at)
    return fe.op("OpLoad", fe.tid(f2), ptr)


# ---------------------------------------------------------------- counters

def _counter_ptr(fe: ExprEmitter, p: Ptr) -> int:
    rv = p.rv
    if rv.kind.rep != "structured" or not rv.kind.writable:
        raise error(f"{rv.rtype.kind} has no counter")
    vid = fe.ctx.R.counter(rv)
    if fe.b.version >= (1, 4) and vid not in fe.ctx.interface:
        fe.ctx.interface.append(vid)
    sc = rv.storage_class
    if (rv.var.binding is not None and rv.var.binding.heap is not None) or isinstance(rv.var.type, Array):
        # the counter heap, or a resource array's array of counters: the element's index
        ptr = fe.op("OpAccessChain", fe.T.ptr(sc, fe.tid(INT)), vid, p.chain[0], fe.T.uconst(0))
        if p.nonuniform:
            fe.nonuniform(ptr)
        return ptr
    return fe.op("OpAccessChain", fe.T.ptr(sc, fe.tid(INT)), vid, fe.T.uconst(0))


def _bump(fe: ExprEmitter, p: Ptr, opname: str) -> int:
    """Atomic +-1 on the counter; returns the *old* value as int."""
    ptr = _counter_ptr(fe, p)
    u = fe.T.uconst
    return fe.op(opname, fe.tid(INT), ptr, u(_SCOPE_DEVICE), u(0), fe.const(INT, 1))


def _increment(fe: ExprEmitter, e: Intrinsic) -> int:
    """IncrementCounter returns the value before the increment."""
    return fe.op("OpBitcast", fe.tid(UINT), _bump(fe, _resource(fe, e), "OpAtomicIAdd"))


def _decrement(fe: ExprEmitter, e: Intrinsic) -> int:
    """DecrementCounter returns the value after the decrement."""
    old = _bump(fe, _resource(fe, e), "OpAtomicISub")
    return fe.op("OpBitcast", fe.tid(UINT), fe.op("OpISub", fe.tid(INT), old, fe.const(INT, 1)))


def _element(fe: ExprEmitter, p: Ptr, index: int, t: Type) -> Ptr:
    rv = p.rv
    return Ptr(p.base, [*p.chain, fe.T.uconst(0), index], rv.storage_class, rv.layout, t, None, rv)


def _append(fe: ExprEmitter, e: Intrinsic) -> None:
    p = _resource(fe, e)
    value = fe.expr(e.args[1])
    idx = fe.op("OpBitcast", fe.tid(UINT), _bump(fe, p, "OpAtomicIAdd"))
    fe.store(_element(fe, p, idx, e.args[1].type), value)
    return None


def _consume(fe: ExprEmitter, e: Intrinsic) -> int:
    p = _resource(fe, e)
    old = _bump(fe, p, "OpAtomicISub")
    idx = fe.op("OpBitcast", fe.tid(UINT), fe.op("OpISub", fe.tid(INT), old, fe.const(INT, 1)))
    return fe.load(_element(fe, p, idx, e.type))


RESOURCE_METHODS: dict[str, Lowering] = {
    **{name: _sample for name in SAMPLES},
    **{name: _gather for name in GATHER_COMPONENT},
    "GatherCmp": _gather_cmp, "GatherCmpRed": _gather_cmp,
    "CalculateLevelOfDetail": _lod, "CalculateLevelOfDetailUnclamped": _lod,
    "Load": _load, "Store": _store,
    "GetDimensions": _get_dimensions, "WithStatus": _with_status, "GetSamplePosition": _get_sample_position,
    "IncrementCounter": _increment, "DecrementCounter": _decrement, "Append": _append, "Consume": _consume,
}

__all__ = ["GATHER_COMPONENT", "RESOURCE_METHODS", "SAMPLES"]
