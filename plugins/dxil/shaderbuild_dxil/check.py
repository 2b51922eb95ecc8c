"""A DXIL self-checker, run before writing: catches backend bugs early, with
an internal-error diagnostic instead of a container the driver rejects."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from shaderbuild.diagnostics import CompileError, Diagnostic

from .cfg import predecessors
from .container import ContainerInfo
from .dxmeta import FEATURE_BITS, KNOWN_NAMED_METADATA, SHADER_FLAG_BITS, shader_flags
from .llvm import types as T
from .llvm.metadata import MDNode
from .llvm.values import ConstInt, Instruction
from .lower import LoweredModule
from .mem2reg import dominators
from .ops import BY_FUNCTION_CLASS, OpEmitter

__all__ = ["check_module", "check_container_info", "DxilCheckError"]

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


def _legal_value_type(t: T.Type) -> bool:
    if t in _SCALARS:
        return True
    if isinstance(t, T.StructType):
        return t.name is not None and t.name.startswith("dx.types.") or t.name is None
    if isinstance(t, T.PointerType):
        return True
    return False


def check_module(lm: LoweredModule, ops: OpEmitter) -> None:
    m = lm.llmod
    defined = [f for f in m.functions if not f.is_declaration]
    if defined != [lm.entry]:
        raise _fail("exactly one defined function (the entry) is expected")
    for f in m.functions:
        if f.is_declaration:
            _check_declaration_cached(f.name, f.ftype, f.attrs, ops.stage, ops.sm, ops.native16)
    opcodes: dict[int, frozenset[int]] = {}          # callee -> its class's opcodes (once per callee)
    legal_types: set[T.Type] = set()
    for bb in lm.entry.blocks:
        if bb.terminator is None:
            raise _fail(f"block without terminator in {lm.entry.name}")
        for inst in bb.instructions:
            if inst.op not in ALLOWED_INSTRUCTIONS:
                raise _fail(f"instruction '{inst.op}' is not allowed in DXIL")
            if inst.type not in legal_types:
                if not _legal_value_type(inst.type):
                    raise _fail(f"instruction '{inst.op}' produces illegal type {inst.type}")
                legal_types.add(inst.type)
            if inst.op == "call":
                callee = inst.operands[0]
                first = inst.operands[1] if len(inst.operands) > 1 else None
                allowed = opcodes.get(id(callee))
                if allowed is None:
                    classes = BY_FUNCTION_CLASS.get(callee.name.split(".")[2], [])
                    allowed = opcodes[id(callee)] = frozenset(o.opcode for o in classes)
                if not isinstance(first, ConstInt) or first.value not in allowed:
                    raise _fail(f"call to {callee.name} has a wrong opcode operand")
    _check_ssa(lm.entry)
    for nmd in m.named_md:
        if nmd.name not in KNOWN_NAMED_METADATA:
            raise _fail(f"unknown named metadata !{nmd.name}")
    for required in ("dx.version", "dx.valver", "dx.shaderModel", "dx.entryPoints"):
        if m.get_named_md(required) is None:
            raise _fail(f"missing !{required}")


@lru_cache(maxsize=1024)
def _check_declaration_cached(name: str, ftype: T.FunctionType, attrs: tuple[str, ...], stage: str,
                              sm: tuple[int, int], native16: bool) -> None:
    """`_check_declaration` depends only on these: each dx.op declaration of a profile is
    checked once per process, not once per compile (failures raise, so are not cached)."""
    _check_declaration(_Decl(name, ftype, attrs), OpEmitter(None, stage, sm, native16))


@dataclass(frozen=True, slots=True)
class _Decl:
    name: str
    ftype: T.FunctionType
    attrs: tuple[str, ...]


def _check_declaration(f, ops: OpEmitter) -> None:
    name = f.name
    if not name.startswith("dx.op."):
        raise _fail(f"call to unknown external function {name}")
    parts = name.split(".")
    cls, ov = parts[2], (parts[3] if len(parts) > 3 else None)
    candidates = BY_FUNCTION_CLASS.get(cls)
    if not candidates:
        raise _fail(f"unknown DXIL operation class in {name}")
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
    if lm.stage == "compute" and tuple(info.numthreads) != tuple(lm.numthreads):
        raise _fail("PSV0 numthreads disagree with the entry metadata")
    flags = shader_flags(lm)
    for name, bit in SHADER_FLAG_BITS.items():
        feature = FEATURE_BITS.get(name)
        if feature is None or name == "low_precision":
            continue
        if bool(flags >> bit & 1) != bool(info.feature_flags & feature):
            raise _fail(f"SFI0 and the shader flags disagree about '{name}'")
    bounds = sorted((r.space, r.lower, r.upper) for r in lm.resources)
    if bounds != sorted((r.space, r.lower, r.upper) for r in info.resources):
        raise _fail("PSV0 resource ranges disagree with dx.resources")


def _dominator_intervals(rpo: list, idom: dict[int, object]) -> dict[int, tuple[int, int]]:
    """Pre/post numbers of the dominator tree: a dominates b iff a's interval encloses b's
    (O(1) per query instead of a walk up the tree, so the check stays linear)."""
    children: dict[int, list] = {}
    for bb in rpo[1:]:
        parent = idom.get(id(bb))
        if parent is not None and parent is not bb:
            children.setdefault(id(parent), []).append(bb)
    span: dict[int, tuple[int, int]] = {}
    clock = 0
    stack: list[tuple[object, bool]] = [(rpo[0], False)] if rpo else []
    pre: dict[int, int] = {}
    while stack:
        bb, done = stack.pop()
        if done:
            span[id(bb)] = (pre[id(bb)], clock)
            clock += 1
            continue
        pre[id(bb)] = clock
        clock += 1
        stack.append((bb, True))
        for c in reversed(children.get(id(bb), ())):
            stack.append((c, False))
    return span


def _check_ssa(f) -> None:
    """Phis have one incoming value per predecessor edge; every use is dominated by its definition."""
    preds = predecessors(f)
    rpo, idom = dominators(f, preds)
    span = _dominator_intervals(rpo, idom)
    pos: dict[int, tuple[object, int]] = {}
    for bb in f.blocks:
        for ii, inst in enumerate(bb.instructions):
            pos[id(inst)] = (bb, ii)

    def dominates(a, b) -> bool:
        if a is b:
            return True
        sa, sb = span.get(id(a)), span.get(id(b))
        return sa is not None and sb is not None and sa[0] <= sb[0] and sb[1] <= sa[1]
    where_of = pos.get
    for bb in f.blocks:
        want = sorted(id(p) for p in preds[id(bb)])
        for ii, inst in enumerate(bb.instructions):
            if inst.op == "phi":
                incoming = inst.attrs["incoming"]
                if sorted(id(b) for _, b in incoming) != want:
                    raise _fail("phi incoming blocks do not match the predecessors")
                for v, b in incoming:
                    where = where_of(id(v))
                    if where is None:
                        if isinstance(v, Instruction):
                            raise _fail(f"operand of '{inst.op}' is not in the function")
                        continue
                    if not (where[1] < len(b.instructions) if where[0] is b else dominates(where[0], b)):
                        raise _fail(f"use of a value in '{inst.op}' is not dominated by its definition")
                continue
            for v in inst.operands:
                where = where_of(id(v))
                if where is None:
                    if isinstance(v, Instruction):
                        raise _fail(f"operand of '{inst.op}' is not in the function")
                    continue
                if not (where[1] < ii if where[0] is bb else dominates(where[0], bb)):
                    raise _fail(f"use of a value in '{inst.op}' is not dominated by its definition")
