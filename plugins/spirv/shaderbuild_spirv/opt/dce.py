"""Dead code: unused pure instructions in functions, then whatever the module no longer
references (functions, global variables, types, constants, undefs, names, decorations).

Input/Output variables stay (they are the stage interface, used or not), and so do resources
(the manifest lists every declared resource with its binding); spec constants and debug-info
instructions stay.
"""

from __future__ import annotations

from .module import OP, Function, Inst, ModuleInfo, SpirvModule

_N = OP
PURE = frozenset(_N[n] for n in (
    "OpUndef", "OpPhi", "OpLoad", "OpAccessChain", "OpInBoundsAccessChain", "OpCompositeConstruct",
    "OpCompositeExtract", "OpCompositeInsert", "OpVectorShuffle", "OpVectorExtractDynamic",
    "OpVectorInsertDynamic", "OpCopyObject", "OpTranspose", "OpSampledImage", "OpImage",
    "OpImageSampleImplicitLod", "OpImageSampleExplicitLod", "OpImageSampleDrefImplicitLod",
    "OpImageSampleDrefExplicitLod", "OpImageFetch", "OpImageGather", "OpImageDrefGather", "OpImageRead",
    "OpImageQuerySizeLod", "OpImageQuerySize", "OpImageQueryLod", "OpImageQueryLevels",
    "OpImageQuerySamples", "OpImageTexelPointer", "OpArrayLength", "OpDot", "OpSelect",
    "OpVariable")) | frozenset(range(109, 125)) | frozenset(range(126, 153)) | frozenset(range(154, 192)) \
    | frozenset(range(194, 206)) | frozenset(range(207, 216))
_EXT_INST = OP["OpExtInst"]
_VAR, _STORE, _NAME, _MEMBER_NAME = OP["OpVariable"], OP["OpStore"], OP["OpName"], OP["OpMemberName"]


def is_pure(x: Inst, info: ModuleInfo) -> bool:
    if x.op == _EXT_INST:
        return x.w[2] == info.glsl and x.w[3] not in (35, 51)    # Modf, Frexp write through a pointer
    return x.op in PURE


def function_dce(f: Function, info: ModuleInfo) -> bool:
    """Remove pure instructions whose results nothing live uses, and local variables only stored to."""
    defs: dict[int, Inst] = {}
    variables: set[int] = set()
    total = 0
    for b in f.blocks:
        total += len(b.insts)
        for x in b.insts:
            if x.r >= 0:
                v = x.w[x.r]
                defs[v] = x
                if x.op == _VAR:
                    variables.add(v)
    # a function-local variable nothing loads from, whose stores are plain stores, is dead
    loaded: set[int] = set()
    if variables:
        for b in f.blocks:
            for x in b.insts:
                uses = x.uses
                if uses:
                    w = x.w
                    skip = 0 if x.op == _STORE else -1      # a store's pointer (word 0) does not read it
                    for p in uses:
                        if p != skip and w[p] in variables:
                            loaded.add(w[p])
    live: set[int] = set()
    work: list[Inst] = []
    dead_stores: set[int] = set()       # id() of the stores to variables nothing loads
    glsl = info.glsl
    for b in f.blocks:
        for x in b.insts:
            op = x.op
            if op in PURE:      # is_pure, inlined: this loop sees every instruction
                continue
            if op == _STORE:
                if x.w[0] in variables and x.w[0] not in loaded:
                    dead_stores.add(id(x))
                    continue
            elif op == _EXT_INST and x.w[2] == glsl and x.w[3] not in (35, 51):
                continue
            work.append(x)      # a root: kept whatever uses it
    # each root, and the definition of each value found live, is visited once: a definition is
    # pushed only when its value first becomes live (no set of visited instructions needed)
    kept = len(work)        # the roots, and below each pure definition found live: what stays
    while work:
        x = work.pop()
        w = x.w
        for p in x.uses:
            v = w[p]
            if v not in live:
                live.add(v)
                d = defs.get(v)
                if d is not None:
                    work.append(d)
                    if d.op in PURE or (d.op == _EXT_INST and d.w[2] == glsl and d.w[3] not in (35, 51)):
                        kept += 1
    if kept == total:       # nothing is dead (the usual case after the first call): no block rebuilt
        return False
    changed = False
    for b in f.blocks:
        # kept: a root (not pure, not a dead store) or the definition of a live value
        keep = [x for x in b.insts
                if (x.r >= 0 and x.w[x.r] in live and defs[x.w[x.r]] is x)
                or (x.op not in PURE and id(x) not in dead_stores and not is_pure(x, info))]
        if len(keep) != len(b.insts):
            changed = True
            b.insts = keep
    return changed


_ROOT_GLOBALS = frozenset(OP[n] for n in (
    "OpCapability", "OpExtension", "OpMemoryModel", "OpEntryPoint", "OpExecutionMode", "OpExecutionModeId",
    "OpSource", "OpSourceContinued", "OpSourceExtension", "OpString", "OpModuleProcessed",
    "OpSpecConstant", "OpSpecConstantTrue", "OpSpecConstantFalse", "OpSpecConstantComposite",
    "OpSpecConstantOp", "OpExtInst", "OpLine", "OpNoLine"))
_TARGETED = frozenset(OP[n] for n in (
    "OpName", "OpMemberName", "OpDecorate", "OpMemberDecorate", "OpDecorateId", "OpDecorateString",
    "OpMemberDecorateString"))


def global_dce(m: SpirvModule) -> None:
    """Keep what the entry points reach; drop every other function and global, with its names
    and decorations, and the interface entries of dropped globals."""
    defs: dict[int, Inst] = {}
    for x in m.globals:
        if x.r >= 0:
            defs[x.result] = x
    funcs = {f.id: f for f in m.functions}
    live: set[int] = set()
    work: list[int] = []

    def mark(v: int) -> None:
        if v not in live:
            live.add(v)
            work.append(v)

    entry_op = OP["OpEntryPoint"]
    for x in m.globals:
        if x.op == entry_op:
            mark(x.w[1])
        elif x.op in _ROOT_GLOBALS:
            for v in x.ids():
                mark(v)
            if x.r >= 0:
                mark(x.result)
            if x.t >= 0:
                mark(x.type)
        elif x.op == _VAR and x.w[2] not in (4, 6):     # all but Workgroup / Private: the stage
            mark(x.w[1])                                # interface and the resources the manifest lists
    while work:
        v = work.pop()
        d = defs.get(v)
        if d is not None:
            if d.t >= 0:
                mark(d.type)
            for u in d.ids():
                mark(u)
            continue
        f = funcs.get(v)
        if f is not None:
            for x in (f.head, *f.params):
                if x.t >= 0:
                    mark(x.type)
                for u in x.ids():
                    mark(u)
            add = live.add
            for b in f.blocks:      # (mark, inlined: this loop sees every instruction of the module)
                for x in b.insts:
                    w = x.w
                    if x.t >= 0 and w[x.t] not in live:
                        add(w[x.t])
                        work.append(w[x.t])
                    for i in x.uses:
                        if w[i] not in live:
                            add(w[i])
                            work.append(w[i])
                    if x.r >= 0:
                        add(w[x.r])     # a local value: only names and decorations look it up
                mark(b.label)
            for p in f.params:
                mark(p.result)
    out: list[Inst] = []
    for x in m.globals:
        if x.op in _TARGETED:
            if x.w[0] not in live:
                continue
        elif x.op == entry_op:
            iface = set(x.uses[1:])
            x = Inst.make("OpEntryPoint", [v for i, v in enumerate(x.w) if i not in iface or v in live])
        elif x.r >= 0 and x.op not in _ROOT_GLOBALS and x.result not in live:
            continue
        out.append(x)
    m.globals = out
    m.functions = [f for f in m.functions if f.id in live]

