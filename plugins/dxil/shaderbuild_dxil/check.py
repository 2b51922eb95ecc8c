"""A DXIL self-checker, run before writing: catches backend bugs early, with
an internal-error diagnostic instead of a container the driver rejects.

The checks of declarations, metadata, signatures and the container are cheap and always run;
so are the rules on each instruction by itself (opcodes, types, dx.op operands, no undef
output).  The check of the SSA form (dominance) runs under --validate and in tests."""

from __future__ import annotations

import struct

from shaderbuild.diagnostics import CompileError, Diagnostic
from shaderbuild.lightstd import lru_cache
from shaderbuild.records import ValueRecord

from . import sigpack
from .container import ContainerInfo, parse_container
from .dxmeta import FEATURE_BITS, KNOWN_NAMED_METADATA, SHADER_FLAG_BITS, SHADER_KINDS, shader_flags
from .llvm import types as T
from .llvm.metadata import MDNode, MDValue
from .llvm.values import TERMINATORS, BasicBlock, ConstAggregate, ConstInt, Function, Instruction, Undef
from .lowered import LoweredModule
from .ops import STORE_OUTPUT, STORE_OUTPUT_VALUE, OpEmitter, ops_of_class

# viewid.py (the ViewID state's classes) is imported by the checks of a state only: compute and
# amplification shaders have none, and their cold compile does not import it

__all__ = ["check_module", "check_container_info", "check_container", "DxilCheckError"]

ALLOWED_INSTRUCTIONS = frozenset({
    "add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or", "xor", "fadd", "fsub",
    "fmul", "fdiv", "frem", "trunc", "zext", "sext", "fptoui", "fptosi", "uitofp", "sitofp", "fptrunc", "fpext",
    "bitcast", "icmp", "fcmp", "select", "call", "ret", "br", "switch", "unreachable", "phi", "alloca", "load",
    "store", "getelementptr", "extractvalue", "atomicrmw", "cmpxchg",
})
_SCALARS = frozenset({T.i1, T.i8, T.i16, T.i32, T.i64, T.f16, T.f32, T.double, T.void})


class DxilCheckError(CompileError):
    pass


def _fail(msg: str) -> DxilCheckError:
    return DxilCheckError(Diagnostic("error", f"internal compiler error: DXIL self-check failed: {msg}"))


@lru_cache(maxsize=256)
def _legal_value_type(t: T.Type) -> bool:
    if t in _SCALARS:
        return True
    if isinstance(t, T.StructType):     # (a library's resource value, createHandleForLib's operand, is its struct)
        return True
    if isinstance(t, T.PointerType):
        return True
    return False


def check_module(lm: LoweredModule, ops: OpEmitter, ssa: bool = True) -> None:
    """The module's declarations, every instruction by itself, named metadata and ViewID state;
    with `ssa`, also the SSA form of the entry function (_check_ssa: the costly part, 2-5% of a
    warm compile, so the backend asks for it only under --validate / SHADERBUILD_VALIDATE=1, as
    the test suite sets)."""
    m = lm.llmod
    defined = [f for f in m.functions if f.blocks]          # is_declaration: no blocks
    bodies = [lm.entry] if lm.patch_function is None else [lm.entry, lm.patch_function]
    if lm.stage == "library":
        bodies = [lf.function for lf in lm.library]
    if defined != bodies:
        raise _fail("exactly one defined function (the entry) is expected, and a hull shader's "
                    "patch-constant function after it (a library: one per exported shader)")
    stage, sm, native16 = ops.stage, ops.sm, ops.native16
    # a library's operations are allowed when some shader kind of it may call them
    stages = (sorted({lf.kind for lf in lm.library}) or [stage]) if lm.stage == "library" else [stage]
    for f in m.functions:
        if not f.blocks:
            _check_declaration_in(f.name, f.ftype, f.attrs, stages, sm, native16)
    for f in bodies:
        _check_instructions(f)
        if ssa:
            _check_ssa(f)
    names = [nmd.name for nmd in m.named_md]
    for name in names:
        if name not in KNOWN_NAMED_METADATA:
            raise _fail(f"unknown named metadata !{name}")
    for required in _REQUIRED_NAMED_METADATA:
        if required not in names:
            raise _fail(f"missing !{required}")
    _check_view_id_metadata(lm)
    if stage in ("mesh", "amplification"):
        _check_mesh_calls(lm)


def _check_mesh_calls(lm: LoweredModule) -> None:
    """The mesh / amplification rules of DXC's validator this backend could break: a mesh shader
    sets its output counts and reads its payload at most once, and addresses only its own vertex and
    primitive signature elements; an amplification shader calls dispatchMesh exactly once, with
    nothing but the return after it."""
    calls: dict[str, list[Instruction]] = {}
    for bb in lm.entry.blocks:
        for inst in bb.instructions:
            if inst.op == "call" and inst.operands[0].name.startswith("dx.op."):
                calls.setdefault(inst.operands[0].name.split(".")[2], []).append(inst)
    if lm.stage == "mesh":
        if not calls.get("setMeshOutputCounts"):
            raise _fail("a mesh shader without setMeshOutputCounts")
        if len(calls.get("getMeshPayload", [])) > 1 or (calls.get("getMeshPayload") and not lm.payload_bytes):
            raise _fail("getMeshPayload more than once, or without a payload")
        for cls, elems in (("storeVertexOutput", lm.outputs), ("storePrimitiveOutput", lm.patch_constants)):
            ids = {e.id for e in elems}
            for inst in calls.get(cls, []):
                sig_id = inst.operands[2]
                if not isinstance(sig_id, ConstInt) or sig_id.value not in ids:
                    raise _fail(f"{cls} addresses no element of its signature")
        if calls.get("dispatchMesh"):
            raise _fail("dispatchMesh in a mesh shader")
        return
    dispatch = calls.get("dispatchMesh", [])
    if len(dispatch) != 1:
        raise _fail(f"an amplification shader calls dispatchMesh {len(dispatch)} times, not once")
    block = dispatch[0].parent
    assert block is not None
    after = block.instructions[block.instructions.index(dispatch[0]) + 1:]
    nxt: list = list(after[-1].attrs.get("targets", ())) if after and after[-1].op == "br" else []
    last = len(after) == 1 and (after[0].op == "ret" or (
        len(nxt) == 1 and isinstance(nxt[0], BasicBlock) and [i.op for i in nxt[0].instructions] == ["ret"]))
    if not last:
        raise _fail("dispatchMesh is not the amplification shader's last operation")


_REQUIRED_NAMED_METADATA = ("dx.version", "dx.valver", "dx.shaderModel", "dx.entryPoints")


def _stream_states(lm: LoweredModule) -> list[tuple]:
    """(ViewIdState, output elements) per output stream: four for a geometry shader, else one."""
    from .viewid import StreamsViewIdState

    state = lm.view_id
    if isinstance(state, StreamsViewIdState):
        return [(st, [e for e in lm.outputs if e.stream == k]) for k, st in enumerate(state.streams)]
    return [(state, lm.outputs)]


def _covered(elems) -> int:
    """Bitmask of the packed scalars the allocated elements occupy: an element's row mask repeated
    every 4 bits for its rows (times 0b...00010001, (16**rows - 1) // 15)."""
    bits = 0
    for e in elems:
        if e.allocated:
            bits |= (((1 << e.cols) - 1) * ((16 ** e.rows - 1) // 15)) << (4 * e.start_row + e.start_col)
    return bits


def _check_view_id_metadata(lm: LoweredModule) -> None:
    """dx.viewIdState has the serialized size its own counts imply, the counts are the signatures'
    packed extents, and every dependency joins an input and an output component that exist."""
    nmd = lm.llmod.get_named_md("dx.viewIdState")
    state = lm.view_id
    if state is None:
        if nmd is not None:
            raise _fail("!dx.viewIdState on a stage without signatures")
        return
    from .viewid import StreamsViewIdState, ViewIdState, signature_scalars

    for st, outputs in _stream_states(lm):
        if (st.num_inputs, st.num_outputs) != (signature_scalars(lm.inputs), signature_scalars(outputs)):
            raise _fail("ViewID state scalar counts disagree with the packed signatures")
        if len(st.inputs_of) != st.num_outputs:
            raise _fail("ViewID state has a dependency set per output scalar")
        ins, outs = _covered(lm.inputs), _covered(outputs)
        for o, deps in enumerate(st.inputs_of):
            if deps & ~ins or (deps and not outs >> o & 1):
                raise _fail(f"ViewID state: output scalar {o} depends on inputs outside the signatures")
    if nmd is None:
        return
    md = nmd.nodes[0].ops[0]
    assert isinstance(md, MDValue) and isinstance(md.value, ConstAggregate)    # the emitter's shape
    data = md.value
    words = [c.value for c in data.elems if isinstance(c, ConstInt)]    # (an i32 array)
    if isinstance(state, StreamsViewIdState):
        want = 1
        for st, _outputs in _stream_states(lm):      # per stream: #outputs, [ViewID mask], table
            width = (st.num_outputs + 31) // 32
            want += 1 + (width if st.uses_view_id else 0) + words[0] * width
    else:
        width = (words[1] + 31) // 32 if len(words) > 1 else 0
        want = 2 + (width if state.uses_view_id else 0) + words[0] * width
    if isinstance(state, ViewIdState) and state.tess is not None:     # #patch constants after #outputs, then their table
        if (lm.stage, state.num_patch) != (state.tess, signature_scalars(lm.patch_constants)):
            raise _fail("ViewID state patch-constant count disagrees with the patch-constant signature")
        n_pc = words[2] if len(words) > 2 else 0
        want = 3 + (width if state.uses_view_id else 0) + (words[0] * width if words[1] else 0)
        if state.tess == "hull" and n_pc:
            want += words[0] * ((n_pc + 31) // 32)
        elif state.tess == "domain" and words[1]:
            want += n_pc * width
        elif state.tess == "mesh" and state.uses_view_id:      # the primitive outputs' ViewID mask
            want += (n_pc + 31) // 32
    if len(words) != want:
        raise _fail(f"!dx.viewIdState has {len(words)} words, its counts imply {want}")
    if words != state.serialize():
        raise _fail("!dx.viewIdState disagrees with the module's ViewID state")


@lru_cache(maxsize=1024)
def _check_declaration_cached(name: str, ftype: T.FunctionType, attrs: tuple[str, ...], stage: str,
                              sm: tuple[int, int], native16: bool) -> None:
    """`_check_declaration` depends only on these: each dx.op declaration of a profile is
    checked once per process, not once per compile (failures raise, so are not cached)."""
    _check_declaration(_Decl(name, ftype, attrs), OpEmitter(None, stage, sm, native16))  # type: ignore[arg-type]  # no module: declarations only


def _check_declaration_in(name: str, ftype: T.FunctionType, attrs: tuple[str, ...], stages: list[str],
                          sm: tuple[int, int], native16: bool) -> None:
    for i, stage in enumerate(stages):
        try:
            _check_declaration_cached(name, ftype, attrs, stage, sm, native16)
            return
        except CompileError:
            if i == len(stages) - 1:
                raise


def _check_udt_declaration(f, candidates, ops: OpEmitter, struct_name: str) -> None:
    """The op's signature with T a pointer to the struct the name gives (any address space)."""
    ft = f.ftype
    for op in candidates:
        if "udt" not in op.overloads or len(ft.params) != len(op.params) + 1:
            continue
        tokens = (op.ret, *op.params)
        types = (ft.ret, *ft.params[1:])
        t_types = [t for tok, t in zip(tokens, types) if tok == "T"]
        ok = ft.params[0] == T.i32 and bool(t_types) and all(
            isinstance(t, T.PointerType) and isinstance(t.pointee, T.StructType) and t.pointee.name == struct_name
            for t in t_types)
        ok = ok and all(tok == "T" or (tok == "void" and t == T.void) or (tok == "i32" and t == T.i32)
                        for tok, t in zip(tokens, types))
        if ok:
            ops.check(op, "udt")
            return
    raise _fail(f"{f.name} does not match any DXIL operation signature ({ft})")


class _Decl(ValueRecord):
    name: str
    ftype: T.FunctionType
    attrs: tuple[str, ...]


def _check_declaration(f, ops: OpEmitter) -> None:
    name = f.name
    if not name.startswith("dx.op."):
        raise _fail(f"call to unknown external function {name}")
    parts = name.split(".")
    cls, ov = parts[2], (parts[3] if len(parts) > 3 else None)
    candidates = ops_of_class(cls)
    if not candidates:
        raise _fail(f"unknown DXIL operation class in {name}")
    if ov == "struct" and any("T" in (op.ret, *op.params) for op in candidates):
        # an operation on a mesh payload: dx.op.<class>.struct.<Name>, T a pointer to that struct
        _check_udt_declaration(f, candidates, ops, ".".join(parts[3:]))
        return
    if any(op.overloads[:1] in (("udt",), ("obj",)) for op in candidates):   # dx.op.traceRay.struct.Payload
        for op in candidates:
            if op.overloads and op.overloads[0] in ("udt", "obj"):
                ops.check(op, op.overloads[0])
                if tuple(sorted(f.attrs)) != tuple(sorted(op.attrs)) or len(f.ftype.params) != len(op.params) + 1:
                    raise _fail(f"{name} does not match the operation {op.name} ({f.ftype})")
                return
        raise _fail(f"{name}: no DXIL operation of class {cls} takes a user type")
    for op in candidates:
        if (ov is None) != (not op.overloads):
            continue
        if ov is not None and ov not in op.overloads:
            continue
        try:
            ft = ops.function_type(op, ov)
        except CompileError:
            continue
        if ft == f.ftype:
            ops.check(op, ov)
            want = tuple(sorted(op.attrs))
            if tuple(sorted(f.attrs)) != want:
                raise _fail(f"{name} has attributes {f.attrs}, expected {want}")
            return
    raise _fail(f"{name} does not match any DXIL operation signature ({f.ftype})")


def check_container_info(lm: LoweredModule, info: ContainerInfo) -> None:
    res = lm.llmod.get_named_md("dx.resources")
    n_md = 0
    if res is not None:
        for lst in res.nodes[0].ops:
            n_md += len(lst.ops) if isinstance(lst, MDNode) else 0
    if n_md != len(info.resources):
        raise _fail(f"PSV0 lists {len(info.resources)} resources, dx.resources {n_md}")
    if len(info.inputs) != len(lm.inputs) or len(info.outputs) != len(lm.outputs):
        raise _fail("signature parts disagree with the module signature")
    if lm.stage in ("compute", "mesh", "amplification") and tuple(info.numthreads) != tuple(lm.numthreads):
        raise _fail("PSV0 numthreads disagree with the entry metadata")
    if lm.mesh is not None:
        if info.payload_bytes != lm.payload_bytes:
            raise _fail("PSV0 payload size disagrees with the MS/AS state")
        if lm.stage == "mesh" and (info.max_output_vertices, info.max_output_primitives) != (
                lm.mesh.max_vertices, lm.mesh.max_primitives):
            raise _fail("PSV0 output counts disagree with the MS state")
    flags = shader_flags(lm)
    for name, bit in SHADER_FLAG_BITS.items():
        feature = FEATURE_BITS.get(name)
        if feature is None or name in ("low_precision", "native_low_precision"):
            continue
        if bool(flags >> bit & 1) != bool(info.feature_flags & feature):
            raise _fail(f"SFI0 and the shader flags disagree about '{name}'")
    bounds = sorted((r.space, r.lower, r.upper) for r in lm.resources)
    if bounds != sorted((r.space, r.lower, r.upper) for r in info.resources):
        raise _fail("PSV0 resource ranges disagree with dx.resources")
    if lm.stage != "compute":
        for is_output, elems in ((False, lm.inputs), (True, lm.outputs)):
            for k in sorted({e.stream for e in elems}):         # GS streams are packed one by one
                _check_packing([e for e in elems if e.stream == k], sigpack.sig_point(lm.stage, is_output))


def _check_packing(elems, point: str) -> None:
    """Packed elements obey DXC's constraints: allocated exactly when their interpretation takes a
    register, inside 32 x 4 components, never overlapping, one interpolation mode per row where
    rows are interpolated, SV_Target<n> in row n.  Each row's taken components are a bitmask; on
    a collision or a misplaced element the component-by-component check (_packing_overlaps)
    decides and names the elements."""
    taken: dict[int, int] = {}
    row_interp: dict[int, int] = {}
    interpolated = point not in ("VSIn", "PSOut")
    for e in elems:
        allocated = e.allocated
        if allocated != sigpack.is_allocated(e.interpretation) or (
                e.start_col != -1 if not allocated else
                e.start_col < 0 or e.start_col + e.cols > 4 or e.start_row + e.rows > sigpack.MAX_ROWS
                or e.interpretation == sigpack.TARGET and e.start_row != e.index):
            _packing_overlaps(elems, point)         # reports the first failure, by the element's name
            return
        if not allocated:
            continue
        cols = ((1 << e.cols) - 1) << e.start_col
        for r in range(e.start_row, e.start_row + e.rows):
            if interpolated and row_interp.setdefault(r, e.interp) != e.interp:
                raise _fail(f"signature row {r} mixes interpolation modes")
            row = taken.get(r, 0)
            if row & cols:
                _packing_overlaps(elems, point)
                return
            taken[r] = row | cols


def _packing_overlaps(elems, point: str) -> None:
    """_check_packing one component at a time, with each component's first owner: raises for the
    first failure (an overlap of two differently named elements, or an element out of place), in
    element order, naming the element."""
    owner: dict[tuple[int, int], str] = {}
    row_interp: dict[int, int] = {}
    for e in elems:
        name = f"{e.name}{e.index}"
        if e.allocated != sigpack.is_allocated(e.interpretation):
            raise _fail(f"signature element {name} ({e.interpretation}) is {'' if e.allocated else 'not '}allocated")
        if not e.allocated:
            if e.start_col != -1:
                raise _fail(f"unallocated signature element {name} has start column {e.start_col}")
            continue
        if e.start_col < 0 or e.start_col + e.cols > 4 or e.start_row + e.rows > sigpack.MAX_ROWS:
            raise _fail(f"signature element {name} lies outside the register space")
        if e.interpretation == sigpack.TARGET and e.start_row != e.index:
            raise _fail(f"{name} is in row {e.start_row}")
        for r in range(e.start_row, e.start_row + e.rows):
            if point not in ("VSIn", "PSOut") and row_interp.setdefault(r, e.interp) != e.interp:
                raise _fail(f"signature row {r} mixes interpolation modes")
            for c in range(e.start_col, e.start_col + e.cols):
                other = owner.setdefault((r, c), name)
                if other != name:
                    raise _fail(f"signature elements {other} and {name} overlap at row {r} column {c}")


def check_library_container(lm: LoweredModule, blob: bytes) -> None:
    """A library's container: SFI0, RDAT, [ILDB, ILDN,] HASH, DXIL; RDAT read back has one function
    record per exported shader (in order, with its kind) and one subobject record per subobject."""
    parts = parse_container(blob)
    if [p for p in parts if p not in ("ILDB", "ILDN")] != ["SFI0", "RDAT", "HASH", "DXIL"]:
        raise _fail(f"library container parts {list(parts)}")
    from .rdat import FUNCTION_STRIDE, PART_TYPES, parse_rdat  # libraries only: not on a shader's cold path

    tables = parse_rdat(parts["RDAT"])
    fn = tables.get(PART_TYPES["functions"], b"")
    count, stride = struct.unpack_from("<II", fn, 0) if fn else (0, 0)
    if count != len(lm.library) or (count and stride != FUNCTION_STRIDE):
        raise _fail(f"RDAT has {count} function records of {stride} bytes for {len(lm.library)} shaders")
    kinds = [struct.unpack_from("<I", fn, 8 + i * stride + 16)[0] for i in range(count)]
    if kinds != [SHADER_KINDS[f.kind] for f in lm.library]:
        raise _fail(f"RDAT shader kinds {kinds}")
    so = tables.get(PART_TYPES["subobjects"], b"")
    if (struct.unpack_from("<I", so, 0)[0] if so else 0) != len(lm.subobjects):
        raise _fail("RDAT subobject table does not list every subobject")


def check_container(lm: LoweredModule, blob: bytes) -> None:
    """Decode the written ISG1/OSG1 and PSV0 parts and compare them with the module's signature
    elements (the rows and columns the dx.entryPoints metadata carries)."""
    parts = parse_container(blob)
    if lm.stage == "compute" or struct.unpack_from("<I", parts["PSV0"])[0] < 36:     # PSV0 v0: no signatures
        return
    psv_in, psv_out, in_vectors, out_vectors = _psv_signatures(parts["PSV0"])
    stream_vectors = list(struct.unpack_from("<4B", parts["PSV0"], 4 + 28 + 4))
    checks = [("ISG1", lm.inputs, psv_in, in_vectors), ("OSG1", lm.outputs, psv_out, out_vectors)]
    if lm.stage in ("hull", "domain", "mesh"):     # patch constants; a mesh shader's primitive outputs
        checks.append(("PSG1", lm.patch_constants, *_psv_patch_signature(parts["PSV0"])))
    for tag, elems, psv, vectors in checks:
        want_rows: list[tuple[int, int, int]] = []     # (register, semantic index, mask) per row
        want_psv: list[tuple] = []                       # as _psv_signatures reads them
        used = 0                                         # rows the allocated elements span
        for e in elems:
            allocated, rows, start_row = e.allocated, e.rows, e.start_row
            col = e.start_col if e.start_col > 0 else 0
            mask = ((1 << e.cols) - 1) << col
            if allocated:
                want_rows += [(start_row + r, e.semantic_index(r), mask) for r in range(rows)]
                if start_row + rows > used and e.stream == 0:
                    used = start_row + rows
            else:
                want_rows += [(0xFFFFFFFF, e.semantic_index(r), mask) for r in range(rows)]
            want_psv.append((rows, start_row if allocated else 0, e.cols, col, allocated))
        want_rows.sort()
        if sorted(_signature_rows(parts[tag])) != want_rows:
            raise _fail(f"{tag} registers or masks disagree with the signature metadata")
        if psv != want_psv:
            raise _fail(f"PSV0 {tag[:1]} signature elements disagree with the signature metadata")
        if vectors != used:
            raise _fail(f"PSV0 says {vectors} {tag[:1]} vectors, the signature uses {used}")
    for k in range(1, 4):
        used = max((e.start_row + e.rows for e in lm.outputs if e.allocated and e.stream == k), default=0)
        if stream_vectors[k] != used:
            raise _fail(f"PSV0 says {stream_vectors[k]} output vectors in stream {k}, the signature uses {used}")
    if lm.view_id is not None:
        from .viewid import StreamsViewIdState

        if isinstance(lm.view_id, StreamsViewIdState):
            _check_psv_stream_dependencies(lm, parts["PSV0"], in_vectors, stream_vectors)
            return
    _check_psv_dependencies(lm, parts["PSV0"], in_vectors, out_vectors)


def _check_psv_stream_dependencies(lm: LoweredModule, part: bytes, in_vectors: int, stream_vectors: list[int]) -> None:
    """A geometry shader's PSV0 tables: one input->output table per stream with outputs (no ViewID),
    each equal to that stream's part of dx.viewIdState."""
    if part[4 + 16 + 8 + 1]:
        raise _fail("PSV0 of a geometry shader says it uses ViewID")
    tail = part[_psv_elements_end(part):]
    words = list(struct.unpack(f"<{len(tail) // 4}I", tail))
    pos = 0
    for (st, _outputs), out_vectors in zip(_stream_states(lm), stream_vectors):
        if not (in_vectors and out_vectors):
            continue
        width = (out_vectors + 7) >> 3
        table, pos = words[pos:pos + 4 * in_vectors * width], pos + 4 * in_vectors * width
        md = st.serialize()[2:]
        n_in = st.num_inputs
        if table[:n_in * width] != md or any(table[n_in * width:]):
            raise _fail("PSV0 dependency table of a stream disagrees with dx.viewIdState")
    if pos != len(words):
        raise _fail(f"PSV0 dependency tables take {len(tail)} bytes, {4 * pos} expected")


def _check_psv_dependencies(lm: LoweredModule, part: bytes, in_vectors: int, out_vectors: int) -> None:
    """PSV0 ends with exactly the dependency table its vector counts imply, and reading it back the
    way the validator does (LoadViewIDStateFromPSV) gives the module's ViewID state."""
    width = (out_vectors + 7) >> 3
    uses_view_id = part[4 + 16 + 8 + 1]
    size = (width if uses_view_id and out_vectors else 0) + (4 * in_vectors * width if in_vectors and out_vectors else 0)
    tail = part[_psv_elements_end(part):]
    if lm.stage in ("hull", "domain", "mesh"):
        pc_vectors = part[4 + 16 + 8 + 2]
        if lm.stage == "hull" and in_vectors and pc_vectors:
            patch_words = 4 * in_vectors * ((pc_vectors + 7) >> 3)
        elif lm.stage == "domain" and out_vectors and pc_vectors:
            patch_words = 4 * pc_vectors * width
        elif lm.stage == "mesh" and uses_view_id and pc_vectors:       # the primitive outputs' ViewID mask
            patch_words = (pc_vectors + 7) >> 3
        else:
            patch_words = 0
        from .viewid import ViewIdState

        view = lm.view_id
        want_patch = view.psv_patch_tables(in_vectors, out_vectors, pc_vectors) \
            if isinstance(view, ViewIdState) else []
        if len(tail) < 4 * patch_words or list(struct.unpack(f"<{patch_words}I", tail[len(tail) - 4 * patch_words:])) \
                != want_patch:
            raise _fail("PSV0 patch-constant dependency table disagrees with the ViewID state")
        tail = tail[:len(tail) - 4 * patch_words]
    if len(tail) != 4 * size:
        raise _fail(f"PSV0 dependency tables take {len(tail)} bytes, {4 * size} expected")
    state = lm.view_id
    if state is None:
        return
    from .viewid import ViewIdState

    assert isinstance(state, ViewIdState)
    words = list(struct.unpack(f"<{size}I", tail))
    md = state.serialize()
    n_in, n_out, md = md[0], md[1], md[3 if state.tess else 2:]
    if state.tess:          # the main table only: the patch-constant table was checked above
        md = md[:(md_width_all := (n_out + 31) // 32) * (n_in + (1 if uses_view_id else 0))] if n_out else []
        del md_width_all
    md_width = (n_out + 31) // 32
    if n_out and md_width != width:
        raise _fail(f"PSV0 has {width} words per input row, dx.viewIdState {md_width}")
    if uses_view_id:
        if words[:width] != md[:md_width]:
            raise _fail("PSV0 ViewID output mask disagrees with dx.viewIdState")
        words, md = words[width:], md[md_width:]
    # the validator reads PSV0 with whole input vectors: our rows, then zero padding rows
    if words[:n_in * width] != md or any(words[n_in * width:]):
        raise _fail("PSV0 dependency table disagrees with dx.viewIdState")


def _signature_rows(part: bytes) -> list[tuple[int, int, int]]:
    count, offset = struct.unpack_from("<II", part, 0)
    rows = []
    for i in range(count):
        _, _, index, _, _, register, mask = struct.unpack_from("<IIIIIIB", part, offset + 32 * i)
        rows.append((register, index, mask))
    return rows


def _psv_element_table(part: bytes) -> tuple[int, int, int, int]:
    """(inputs, outputs, patch constants, offset of the element-size field) of a v1+ PSV0 part:
    the runtime info, then the resource table, the string table and the semantic-index table."""
    rt_size = struct.unpack_from("<I", part, 0)[0]
    n_in, n_out, n_pc = struct.unpack_from("<BBB", part, 4 + 28)
    pos = 4 + rt_size
    n_res = struct.unpack_from("<I", part, pos)[0]
    pos += 4
    if n_res:
        pos += 4 + n_res * struct.unpack_from("<I", part, pos)[0]
    pos += 4 + struct.unpack_from("<I", part, pos)[0]            # string table
    pos += 4 + 4 * struct.unpack_from("<I", part, pos)[0]        # semantic index table
    return n_in, n_out, n_pc, pos


def _psv_elements_end(part: bytes) -> int:
    """Offset just past the signature elements of a v1+ PSV0 part."""
    n_in, n_out, n_pc, pos = _psv_element_table(part)
    if n_in + n_out + n_pc:
        pos += 4 + (n_in + n_out + n_pc) * struct.unpack_from("<I", part, pos)[0]
    return pos


def _psv_element_rows(part: bytes, first: int, count: int) -> list[tuple]:
    """Elements first .. first+count-1 of a PSV0 part's element table, each as (rows, start row,
    cols, start col, allocated)."""
    *_counts, pos = _psv_element_table(part)
    size = struct.unpack_from("<I", part, pos)[0]
    pos += 4
    elems = []
    for i in range(first, first + count):
        rows, start_row, cols_start = struct.unpack_from("<BBB", part, pos + size * i + 8)
        elems.append((rows, start_row, cols_start & 0xF, cols_start >> 4 & 3, bool(cols_start & 0x40)))
    return elems


def _psv_signatures(part: bytes) -> tuple[list, list, int, int]:
    """(input elements, output elements, input vectors, output vectors) of a v1+ PSV0 part; each
    element as _psv_element_rows gives it."""
    n_in, n_out, n_pc, _pos = _psv_element_table(part)
    in_vectors, out_vectors = struct.unpack_from("<BB", part, 4 + 31)
    elems = _psv_element_rows(part, 0, n_in + n_out) if n_in + n_out + n_pc else []
    return elems[:n_in], elems[n_in:], in_vectors, out_vectors


def _psv_patch_signature(part: bytes) -> tuple[list, int]:
    """(patch-constant elements, patch-constant vectors) of a v1+ PSV0 part, as _psv_signatures."""
    n_in, n_out, n_pc, _pos = _psv_element_table(part)
    pc_vectors = part[4 + 28 - 2]
    return (_psv_element_rows(part, n_in + n_out, n_pc) if n_pc else []), pc_vectors


def _check_function(f: Function) -> None:
    """Every check of a function: its instructions one by one, then its SSA form."""
    _check_instructions(f)
    _check_ssa(f)


def _check_instructions(f: Function) -> None:
    """Each block ends in a terminator, and every instruction obeys the rules on it by itself
    (_check_instruction)."""
    for bb in f.blocks:
        insts = bb.instructions
        if not insts or insts[-1].op not in TERMINATORS:
            raise _fail(f"block without terminator in {f.name}")
        for inst in insts:
            _check_instruction(inst)


def _check_ssa(f: Function) -> None:
    """f is in SSA form: phis lead their block and list each predecessor edge once, and every
    operand is defined where its use can see it.

    The operands are checked by walking the dominator tree (ctrldep's) depth first with the set
    of definitions visible at each point: a block's definitions become visible after them in the
    block and in the blocks it dominates (its subtree), and stop being visible when the walk
    leaves that subtree.  So an operand is valid iff it is visible where it is used.  A phi
    reads its value along an edge at the end of the edge's predecessor: when the walk reaches
    the end of a block, the phis of its successors are checked for that edge.  Values that are
    not instructions (constants, globals, functions, arguments) are valid everywhere.  A block
    the entry does not reach is in no dominator tree: it is walked alone, seeing only its own
    definitions."""
    from .ctrldep import dominator_tree, successors  # only when asked to check (issue 23: not on the path)

    blocks = f.blocks
    succ = successors(blocks)                   # by layout index
    idom = dominator_tree(succ)                 # layout index -> its immediate dominator; -1: unreachable
    dominated: list[list[int]] = [[] for _ in blocks]
    for b in range(1, len(blocks)):
        if idom[b] >= 0:
            dominated[idom[b]].append(b)
    preds: list[list[int]] = [[] for _ in blocks]     # one entry per edge
    for b, targets in enumerate(succ):
        for t in targets:
            preds[t].append(b)
    index = {bb: i for i, bb in enumerate(blocks)}
    for b, bb in enumerate(blocks):
        for phi in _phis(bb):
            _check_phi_edges(phi, preds[b], index)
    roots = [0] + [b for b in range(1, len(blocks)) if idom[b] < 0] if blocks else []
    visible: set[Instruction] = set()
    for root in roots:
        stack = [(root, False)]
        while stack:
            b, leaving = stack.pop()
            bb = blocks[b]
            if leaving:
                visible.difference_update(bb.instructions)
                continue
            in_phis = True                          # phis come first in a block
            for inst in bb.instructions:
                if inst.op == "phi":
                    if not in_phis:
                        raise _fail(f"phi after other instructions in a block of {f.name}")
                else:
                    in_phis = False
                    for v in inst.operands:
                        if isinstance(v, Instruction) and v not in visible:
                            _fail_use(f, inst.op, v)
                visible.add(inst)
            for s in set(succ[b]):
                _check_phi_values(blocks[s], bb, visible, f)
            stack.append((b, True))
            stack += [(c, False) for c in reversed(dominated[b])]


def _phis(bb: BasicBlock) -> list[Instruction]:
    """The phis at the start of bb."""
    insts = bb.instructions
    n = 0
    while n < len(insts) and insts[n].op == "phi":
        n += 1
    return insts[:n]


def _check_phi_edges(phi: Instruction, preds: list[int], index: dict[BasicBlock, int]) -> None:
    """A phi lists each predecessor edge of its block once (`preds`: their layout indices)."""
    if sorted(index.get(b, -1) for _, b in phi.attrs["incoming"]) != sorted(preds):
        raise _fail("phi incoming blocks do not match the predecessors")


def _check_phi_values(bb: BasicBlock, pred: BasicBlock, visible: set[Instruction], f: Function) -> None:
    """The values the phis of bb take along the edge from pred are visible at the end of pred."""
    for phi in _phis(bb):
        for v, b in phi.attrs["incoming"]:
            if b is pred and isinstance(v, Instruction) and v not in visible:
                _fail_use(f, "phi", v)


def _check_instruction(inst: Instruction) -> None:
    """The rules on one instruction by itself: its opcode, its result type, its dx.op operands."""
    op = inst.op
    if op not in ALLOWED_INSTRUCTIONS:
        raise _fail(f"instruction '{op}' is not allowed in DXIL")
    if not _legal_value_type(inst.type):
        raise _fail(f"instruction '{op}' produces illegal type {inst.type}")
    if op == "call":
        callee = inst.operands[0]
        opcodes, is_store_output = _call_facts(callee.name)
        first = inst.operands[1] if len(inst.operands) > 1 else None
        if not isinstance(first, ConstInt) or first.value not in opcodes:
            raise _fail(f"call to {callee.name} has a wrong opcode operand")
        if is_store_output and isinstance(inst.operands[STORE_OUTPUT_VALUE], Undef):
            raise _fail("an undef value reaches an output (storeOutput)")
        offsets = _OFFSET_OPERANDS.get(first.value, ())
        if any(not isinstance(inst.operands[i], (ConstInt, Undef)) for i in offsets if i < len(inst.operands)):
            raise _fail(f"a texel offset of {callee.name} is not an immediate (texture offsets must be "
                        f"compile-time constants)")


# dx.op opcode -> the call operands (after the callee and the opcode) that are texel offsets, which DXIL requires
# immediate: Sample* 60-65 (handle, sampler, 4 coordinates, 3 offsets), TextureLoad 66 (handle, mip or sample,
# 3 coordinates, 3 offsets).  TextureGather 73 / TextureGatherCmp 74 take programmable offsets (D3D's gather4_po;
# DXC's validator checks only that both are given)
_OFFSET_OPERANDS = {**{op: (8, 9, 10) for op in range(60, 66)}, 66: (7, 8, 9)}


@lru_cache(maxsize=1024)
def _call_facts(name: str) -> tuple[frozenset[int], bool]:
    """(the opcodes of the callee's DXIL operation class, whether it is a storeOutput), by callee
    name: the same few dx.op functions recur in every shader."""
    classes = ops_of_class(name.split(".")[2])
    return frozenset(o.opcode for o in classes), name.startswith(STORE_OUTPUT)


def _fail_use(f: Function, op: str, v: Instruction) -> None:
    """Raise for an operand that is not visible where it is used: either it is not in the
    function at all, or its definition does not dominate the use."""
    if not any(i is v for bb in f.blocks for i in bb.instructions):
        raise _fail(f"operand of '{op}' is not in the function")
    raise _fail(f"use of a value in '{op}' is not dominated by its definition")
