"""Execute DXIL compute shaders on the CPU: llvm-dis-19 -> dx.op shim -> llvm-link-19 with a C runtime -> lli-19.

There is no DXIL driver here; this route gives DXIL output an executed check.  The module
text (typed pointers already upgraded to `ptr` by llvm-dis) gets:
  * its target triple/datalayout removed (lli JITs for the host),
  * its entry renamed to `__dxil_entry` (the runtime owns `main`),
  * its fast-math flags dropped: DXC's and our DXIL mark float ops `fast`, which to LLVM 19 makes an infinity or a
    NaN poison (lli-19 read `2.5 >= -inf` as false, numeric program 48 of tag n1); D3D computes them as IEEE,
    as dxil-spirv's SPIR-V on lavapipe does,
  * every known `dx.op.*` declaration replaced by a definition generated from a table below,
    which addresses buffers through `rt_addr` in dxop_runtime.c.
Resources are bound by (register, space, class letter) using the module's !dx.resources records;
typed buffers, textures and samplers carry a `View` (texel format, extent, sampler state), and the
runtime implements typed loads/stores, getDimensions, texture loads/stores and sampling (nearest and
linear, clamp/wrap/mirror/border, mip selection, depth compare, gather) for 1D/2D/3D/array/cube textures.
Threads run serially: group-sync barriers abort (the runtime refuses them for >1 thread).
"""

from __future__ import annotations

import atexit
import re
import shutil
import struct
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .dxil_tools import extract_bitcode, llvm_dis
from .tools import run_tool

RUNTIME_C = Path(__file__).with_name("dxop_runtime.c")

# overload suffix -> (LLVM type, size in bytes)
OVERLOADS = {"f16": ("half", 2), "f32": ("float", 4), "f64": ("double", 8),
             "i1": ("i1", 1), "i8": ("i8", 1), "i16": ("i16", 2), "i32": ("i32", 4), "i64": ("i64", 8)}
# resource class index in !dx.resources -> (class letter, default ResourceKind, field of shape, field of tags)
CLASSES = {0: ("t", None, 6, 8), 1: ("u", None, 6, 10), 2: ("b", 13, None, 7), 3: ("s", 14, None, 7)}
KIND_CBUFFER, KIND_STRUCTURED, TAG_STRIDE = 13, 12, 1
KIND_UNUSED = 0  # a bound resource the module does not declare (never addressed)


class DxilExecError(AssertionError):
    """The module could not be prepared, linked or run; the message says which step and why."""


@dataclass(frozen=True)
class OpDecl:
    name: str  # dx.op.bufferLoad.i32
    op_class: str  # bufferLoad
    overload: str  # i32 ('' for void-overload ops)
    ret: str
    params: list[str]


# ---------------------------------------------------------------- IR text parsing

_DECL = re.compile(r"^declare (?:[a-z_]+ )*(.+?) @(dx\.op\.[\w.]+)\((.*)\)[^\n]*$", re.M)
_PARAM_ATTR = re.compile(r"\s+(?:noundef|zeroext|signext|nocapture|readonly|readnone)\b")
_MD_NODE = re.compile(r"^!(\d+) = (?:distinct )?!\{(.*)\}\s*$", re.M)
_NAMED_MD = re.compile(r"^!dx\.resources = !\{(.*)\}\s*$", re.M)
_TARGET = re.compile(r"^target (?:datalayout|triple) = .*$\n?", re.M)
_FAST = re.compile(r"\b(fadd|fsub|fmul|fdiv|frem|fcmp|fneg) fast\b")
_INT = re.compile(r"^i\d+ (-?\d+)$")


def split_top(text: str) -> list[str]:
    """Split an operand list on commas outside braces, parentheses and quotes."""
    out, depth, quote, cur = [], 0, False, []
    for ch in text:
        if ch == '"':
            quote = not quote
        elif not quote and ch in "{([<":
            depth += 1
        elif not quote and ch in "})]>":
            depth -= 1
        elif ch == "," and not depth and not quote:
            out.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def parse_decls(ir: str) -> list[OpDecl]:
    decls = []
    for m in _DECL.finditer(ir):
        ret, name, params = m.group(1), m.group(2), m.group(3)
        parts = name.split(".")
        op_class = parts[2]
        overload = parts[3] if len(parts) > 3 else ""
        decls.append(OpDecl(name, op_class, overload, ret, [_PARAM_ATTR.sub("", p) for p in split_top(params)]))
    return decls


def _md_int(field: str) -> int:
    m = _INT.match(field.strip())
    if not m:
        raise DxilExecError(f"expected an integer metadata operand, got {field!r}")
    return int(m.group(1))


@dataclass(frozen=True)
class Resource:
    cls: int  # 0 SRV, 1 UAV, 2 CBV
    range_id: int
    space: int
    lower: int
    count: int  # -1 when unbounded
    kind: int  # ResourceKind
    stride: int  # structured stride (0 if none)


def parse_resources(ir: str) -> list[Resource]:
    """Resource records of !dx.resources (SRV, UAV, CBV and sampler lists)."""
    named = _NAMED_MD.search(ir)
    if not named:
        return []
    nodes = {int(m.group(1)): split_top(m.group(2)) for m in _MD_NODE.finditer(ir)}

    def node(ref: str) -> list[str] | None:
        ref = ref.strip()
        return None if ref == "null" else nodes[int(ref.lstrip("!"))]

    out = []
    lists = node(split_top(named.group(1))[0]) or []  # !dx.resources = !{!{SRVs, UAVs, CBVs, Samplers}}
    for cls, ref in enumerate(lists):
        if cls not in CLASSES or node(ref) is None:
            continue
        _letter, default_kind, shape_field, tags_field = CLASSES[cls]
        for rec_ref in node(ref):
            rec = node(rec_ref)
            kind = default_kind if shape_field is None else _md_int(rec[shape_field])
            stride = 0
            if len(rec) > tags_field and rec[tags_field].strip() != "null":
                tags = node(rec[tags_field])
                for i in range(0, len(tags) - 1, 2):
                    if _md_int(tags[i]) == TAG_STRIDE:
                        stride = _md_int(tags[i + 1])
            size = _md_int(rec[5])
            out.append(Resource(cls, _md_int(rec[0]), _md_int(rec[3]), _md_int(rec[4]),
                                -1 if size in (-1, 0xFFFFFFFF) else size, kind, stride))
    return out


_ENTRY_POINTS = re.compile(r"^!dx\.entryPoints = !\{(.*)\}\s*$", re.M)
TAG_NUMTHREADS = 4


TAG_MESH_STATES = (9, 10)     # kDxilMSStateTag, kDxilASStateTag


def parse_numthreads(ir: str, entry: str) -> tuple[int, int, int]:
    """numthreads of `entry` from !dx.entryPoints (record: fn, name, signatures, resources, tag/value props)."""
    nodes = {int(m.group(1)): split_top(m.group(2)) for m in _MD_NODE.finditer(ir)}
    named = _ENTRY_POINTS.search(ir)
    for ref in split_top(named.group(1)) if named else []:
        rec = nodes[int(ref.lstrip("!"))]
        if len(rec) < 5 or rec[1] != f'!"{entry}"' or rec[4] == "null":
            continue
        props = nodes[int(rec[4].lstrip("!"))]
        for i in range(0, len(props) - 1, 2):
            if _md_int(props[i]) == TAG_NUMTHREADS:
                x, y, z = (_md_int(v) for v in nodes[int(props[i + 1].lstrip("!"))])
                return x, y, z
            if _md_int(props[i]) in TAG_MESH_STATES:      # MS / AS state: {numthreads, ...}
                state = nodes[int(props[i + 1].lstrip("!"))]
                x, y, z = (_md_int(v) for v in nodes[int(state[0].lstrip("!"))])
                return x, y, z
    raise DxilExecError(f"no numthreads for entry {entry!r} in !dx.entryPoints; pass numthreads=")


# ---------------------------------------------------------------- shim generation (one function per op class)


def _sig(d: OpDecl) -> str:
    return ", ".join(f"{t} %a{i}" for i, t in enumerate(d.params))


def _forward(rt_name: str, args: Callable[[OpDecl], str]) -> Callable[[OpDecl], str]:
    def gen(d: OpDecl) -> str:
        return (f"define {d.ret} @{d.name}({_sig(d)}) {{\n"
                f"  %r = call {d.ret} @{rt_name}({args(d)})\n  ret {d.ret} %r\n}}\n")
    return gen


def _create_handle(d: OpDecl) -> str:
    return (f"define {d.ret} @{d.name}({_sig(d)}) {{\n"
            "  %c = zext i8 %a1 to i32\n"
            "  %p = call ptr @rt_create_handle(i32 %c, i32 %a2, i32 %a3)\n"
            f"  %h = insertvalue {d.ret} undef, ptr %p, 0\n  ret {d.ret} %h\n}}\n")


def _load(ncomp: Callable[[int], int], offset: str, with_status: bool) -> Callable[[OpDecl], str]:
    """Load components of the overload type from rt_addr; ResRet also gets status 0 (fully mapped)."""

    def gen(d: OpDecl) -> str:
        ty, size = OVERLOADS[d.overload]
        n = ncomp(size)
        body, prev = [], "undef"
        for k in range(n):
            body += [f"  %p{k} = call ptr @rt_addr(ptr %h, i32 %a2, i32 {offset}, i32 {k * size}, i32 {size})",
                     f"  %v{k} = load {ty}, ptr %p{k}, align 1",
                     f"  %s{k} = insertvalue {d.ret} {prev}, {ty} %v{k}, {k}"]
            prev = f"%s{k}"
        if with_status:
            body.append(f"  %st = insertvalue {d.ret} {prev}, i32 0, {n}")
            prev = "%st"
        return (f"define {d.ret} @{d.name}({_sig(d)}) {{\n  %h = extractvalue {d.params[1]} %a1, 0\n"
                + "\n".join(body) + f"\n  ret {d.ret} {prev}\n}}\n")
    return gen


def _store(d: OpDecl) -> str:
    """bufferStore/rawBufferStore: (op, h, index, offset, v0..v3, i8 mask[, align])."""
    ty, size = OVERLOADS[d.overload]
    lines = [f"define void @{d.name}({_sig(d)}) {{", f"  %h = extractvalue {d.params[1]} %a1, 0",
             "  %m = zext i8 %a8 to i32", "  br label %c0"]
    for k in range(4):
        lines += [f"c{k}:", f"  %b{k} = and i32 %m, {1 << k}", f"  %t{k} = icmp ne i32 %b{k}, 0",
                  f"  br i1 %t{k}, label %w{k}, label %c{k + 1}", f"w{k}:",
                  f"  %p{k} = call ptr @rt_addr(ptr %h, i32 %a2, i32 %a3, i32 {k * size}, i32 {size})",
                  f"  store {ty} %a{4 + k}, ptr %p{k}, align 1", f"  br label %c{k + 1}"]
    lines += ["c4:", "  ret void", "}"]
    return "\n".join(lines) + "\n"


def _create_handle_from_binding(d: OpDecl) -> str:
    """(op, %dx.types.ResBind {lower, upper, space, i8 class}, i32 index, i1 nonUniform)."""
    return (f"define {d.ret} @{d.name}({_sig(d)}) {{\n"
            f"  %sp = extractvalue {d.params[1]} %a1, 2\n  %c8 = extractvalue {d.params[1]} %a1, 3\n"
            "  %c = zext i8 %c8 to i32\n"
            "  %p = call ptr @rt_create_handle_binding(i32 %c, i32 %sp, i32 %a2)\n"
            f"  %h = insertvalue {d.ret} undef, ptr %p, 0\n  ret {d.ret} %h\n}}\n")


def _annotate_handle(d: OpDecl) -> str:
    return f"define {d.ret} @{d.name}({_sig(d)}) {{\n  ret {d.ret} %a1\n}}\n"


def _make_double(d: OpDecl) -> str:
    return (f"define double @{d.name}({_sig(d)}) {{\n  %lo = zext i32 %a1 to i64\n  %hi0 = zext i32 %a2 to i64\n"
            "  %hi = shl i64 %hi0, 32\n  %x = or i64 %hi, %lo\n  %r = bitcast i64 %x to double\n  ret double %r\n}\n")


def _split_double(d: OpDecl) -> str:
    return (f"define {d.ret} @{d.name}({_sig(d)}) {{\n  %x = bitcast double %a1 to i64\n"
            "  %lo = trunc i64 %x to i32\n  %h64 = lshr i64 %x, 32\n  %hi = trunc i64 %h64 to i32\n"
            f"  %s0 = insertvalue {d.ret} undef, i32 %lo, 0\n  %s1 = insertvalue {d.ret} %s0, i32 %hi, 1\n"
            f"  ret {d.ret} %s1\n}}\n")


def _f32_to_f16(d: OpDecl) -> str:
    return (f"define i32 @{d.name}({_sig(d)}) {{\n  %h = fptrunc float %a1 to half\n  %b = bitcast half %h to i16\n"
            "  %r = zext i16 %b to i32\n  ret i32 %r\n}\n")


def _f16_to_f32(d: OpDecl) -> str:
    return (f"define float @{d.name}({_sig(d)}) {{\n  %b = trunc i32 %a1 to i16\n  %h = bitcast i16 %b to half\n"
            "  %r = fpext half %h to float\n  ret float %r\n}\n")


def _is_special_float(d: OpDecl) -> str:
    """IsNaN 8, IsInf 9, IsFinite 10, IsNormal 11 on a float/half."""
    ty = d.params[1]
    inf = "0x7FF0000000000000" if ty in ("float", "double") else "0xH7C00"
    return (f"define i1 @{d.name}({_sig(d)}) {{\n"
            f"  %nan = fcmp uno {ty} %a1, %a1\n  %abs = call {ty} @llvm.fabs.{_LLVM_SUFFIX[ty]}({ty} %a1)\n"
            f"  %inf = fcmp oeq {ty} %abs, {inf}\n  %fin = fcmp one {ty} %abs, {inf}\n"
            f"  %r0 = icmp eq i32 %a0, 8\n  %r1 = icmp eq i32 %a0, 9\n"
            "  %v1 = select i1 %r1, i1 %inf, i1 %fin\n  %v = select i1 %r0, i1 %nan, i1 %v1\n  ret i1 %v\n}\n"
            f"declare {ty} @llvm.fabs.{_LLVM_SUFFIX[ty]}({ty})\n")


_LLVM_SUFFIX = {"float": "f32", "half": "f16", "double": "f64"}


def _atomic_bin_op(d: OpDecl) -> str:
    """(op, handle, i32 atomicOp, c0, c1, c2, i32 value) -> old value."""
    if d.overload == "i64":
        return (f"define i64 @{d.name}({_sig(d)}) {{\n  %h = extractvalue {d.params[1]} %a1, 0\n"
                "  %p = call ptr @rt_atomic_addr64(ptr %h, i32 %a3, i32 %a4, i32 %a5)\n"
                "  %r = call i64 @rt_atomic_i64(ptr %p, i32 %a2, i64 %a6)\n  ret i64 %r\n}\n")
    return (f"define i32 @{d.name}({_sig(d)}) {{\n  %h = extractvalue {d.params[1]} %a1, 0\n"
            "  %p = call ptr @rt_atomic_addr(ptr %h, i32 %a3, i32 %a4, i32 %a5)\n"
            "  %r = call i32 @rt_atomic_i32(ptr %p, i32 %a2, i32 %a6)\n  ret i32 %r\n}\n")


def _atomic_cmpxchg(d: OpDecl) -> str:
    """(op, handle, c0, c1, c2, i32 compare, i32 value) -> old value."""
    if d.overload == "i64":
        return (f"define i64 @{d.name}({_sig(d)}) {{\n  %h = extractvalue {d.params[1]} %a1, 0\n"
                "  %p = call ptr @rt_atomic_addr64(ptr %h, i32 %a2, i32 %a3, i32 %a4)\n"
                "  %r = call i64 @rt_cmpxchg_i64(ptr %p, i64 %a5, i64 %a6)\n  ret i64 %r\n}\n")
    return (f"define i32 @{d.name}({_sig(d)}) {{\n  %h = extractvalue {d.params[1]} %a1, 0\n"
            "  %p = call ptr @rt_atomic_addr(ptr %h, i32 %a2, i32 %a3, i32 %a4)\n"
            "  %r = call i32 @rt_cmpxchg_i32(ptr %p, i32 %a5, i32 %a6)\n  ret i32 %r\n}\n")


def _typed(d: OpDecl, k: int, call: str, rt_ret: str = "i32") -> list[str]:
    """Lines computing component k as the overload type from `call` (an rt_* call returning rt_ret bits)."""
    ty = OVERLOADS[d.overload][0]
    if ty == rt_ret:
        return [f"  %v{k} = {call}"]
    # a sample of an integer texture: the runtime's float of the texel (exact below 2^24) back to an integer
    conv = "fptosi" if (rt_ret, ty) == ("float", "i32") else "bitcast"
    return [f"  %r{k} = {call}", f"  %v{k} = {conv} {rt_ret} %r{k} to {ty}"]


def _per_component(call: Callable[[int], str], rt_ret: str = "i32", pre: Callable[[OpDecl], str] = lambda d: ""
                   ) -> Callable[[OpDecl], str]:
    """A ResRet-returning op computed one component at a time by an rt_* function (status 0 appended)."""

    def gen(d: OpDecl) -> str:
        body, prev = [pre(d)] if pre(d) else [], "undef"
        for k in range(4):
            body += _typed(d, k, call(k), rt_ret)
            body.append(f"  %s{k} = insertvalue {d.ret} {prev}, {OVERLOADS[d.overload][0]} %v{k}, {k}")
            prev = f"%s{k}"
        body.append(f"  %st = insertvalue {d.ret} {prev}, i32 0, 4")
        return (f"define {d.ret} @{d.name}({_sig(d)}) {{\n  %h = extractvalue {d.params[1]} %a1, 0\n"
                + "\n".join(body) + f"\n  ret {d.ret} %st\n}}\n")
    return gen


def _bits32(d: OpDecl) -> bool:
    return d.overload in ("f32", "i32")


def _buffer_load(d: OpDecl) -> str:
    """bufferLoad: 32-bit overloads through rt_load32 (typed buffers convert from their format)."""
    if not _bits32(d):
        return _load(lambda _s: 4, "%a3", True)(d)
    return _per_component(lambda k: f"call i32 @rt_load32(ptr %h, i32 %a2, i32 %a3, i32 {k})")(d)


def _buffer_store(d: OpDecl) -> str:
    """bufferStore: 32-bit overloads through rt_store32 (typed buffers convert to their format)."""
    if not _bits32(d):
        return _store(d)
    ty = OVERLOADS[d.overload][0]
    lines = [f"define void @{d.name}({_sig(d)}) {{", f"  %h = extractvalue {d.params[1]} %a1, 0",
             "  %m = zext i8 %a8 to i32", "  br label %c0"]
    for k in range(4):
        val = f"%a{4 + k}" if ty == "i32" else f"%b{k}x"
        lines += [f"c{k}:", f"  %b{k} = and i32 %m, {1 << k}", f"  %t{k} = icmp ne i32 %b{k}, 0",
                  f"  br i1 %t{k}, label %w{k}, label %c{k + 1}", f"w{k}:"]
        if ty != "i32":
            lines.append(f"  %b{k}x = bitcast {ty} %a{4 + k} to i32")
        lines += [f"  call void @rt_store32(ptr %h, i32 %a2, i32 %a3, i32 {k}, i32 {val})", f"  br label %c{k + 1}"]
    lines += ["c4:", "  ret void", "}"]
    return "\n".join(lines) + "\n"


def _texture_store(d: OpDecl) -> str:
    """(op, h, c0, c1, c2, v0..v3, i8 mask)."""
    ty = OVERLOADS[d.overload][0]
    lines = [f"define void @{d.name}({_sig(d)}) {{", f"  %h = extractvalue {d.params[1]} %a1, 0",
             "  %m = zext i8 %a9 to i32", "  br label %c0"]
    for k in range(4):
        lines += [f"c{k}:", f"  %b{k} = and i32 %m, {1 << k}", f"  %t{k} = icmp ne i32 %b{k}, 0",
                  f"  br i1 %t{k}, label %w{k}, label %c{k + 1}", f"w{k}:"]
        val = f"%a{5 + k}"
        if ty != "i32":
            lines.append(f"  %x{k} = bitcast {ty} %a{5 + k} to i32")
            val = f"%x{k}"
        lines += [f"  call void @rt_tex_store32(ptr %h, i32 %a2, i32 %a3, i32 %a4, i32 {k}, i32 {val})",
                  f"  br label %c{k + 1}"]
    lines += ["c4:", "  ret void", "}"]
    return "\n".join(lines) + "\n"


def _get_dimensions(d: OpDecl) -> str:
    body, prev = [], "undef"
    for k in range(4):
        body += [f"  %v{k} = call i32 @rt_dims(ptr %h, i32 %a2, i32 {k})",
                 f"  %s{k} = insertvalue {d.ret} {prev}, i32 %v{k}, {k}"]
        prev = f"%s{k}"
    return (f"define {d.ret} @{d.name}({_sig(d)}) {{\n  %h = extractvalue {d.params[1]} %a1, 0\n"
            + "\n".join(body) + f"\n  ret {d.ret} {prev}\n}}\n")


def _sampler_pre(offsets: str) -> Callable[[OpDecl], str]:
    """Extract the sampler pointer and set the immediate offsets before the per-component calls."""
    return lambda d: (f"  %s = extractvalue {d.params[2]} %a2, 0\n"
                      f"  call void @rt_sample_offsets({offsets})")


_SAMPLE_OFFSETS = "i32 %a7, i32 %a8, i32 %a9"
_float_sample = {
    # (op, t, s, c0..c3, o0..o2, lod)
    "sampleLevel": (lambda k: f"call float @rt_sample_level(ptr %h, ptr %s, float %a3, float %a4, float %a5, "
                              f"float %a6, float %a10, i32 {k})", _SAMPLE_OFFSETS),
    # (op, t, s, c0..c3, o0..o2, compare)
    "sampleCmpLevelZero": (lambda k: "call float @rt_sample_cmp(ptr %h, ptr %s, float %a3, float %a4, float %a5, "
                                     "float %a6, float %a10)", _SAMPLE_OFFSETS),
    # (op, t, s, c0..c3, o0..o2, compare, lod)
    "sampleCmpLevel": (lambda k: "call float @rt_sample_cmp_level(ptr %h, ptr %s, float %a3, float %a4, float %a5, "
                                 "float %a6, float %a10, float %a11)", _SAMPLE_OFFSETS),
    # (op, t, s, c0..c3, o0..o2, ddx0..2, ddy0..2, clamp)
    "sampleGrad": (lambda k: "call float @rt_sample_grad(ptr %h, ptr %s, float %a3, float %a4, float %a5, "
                             f"float %a10, float %a11, float %a12, float %a13, float %a14, float %a15, float %a16, i32 {k})",
                   _SAMPLE_OFFSETS),
    # (op, t, s, c0..c3, o0..o2, compare, ddx0..2, ddy0..2, clamp)
    "sampleCmpGrad": (lambda k: "call float @rt_sample_cmp_grad(ptr %h, ptr %s, float %a3, float %a4, float %a5, "
                                "float %a10, float %a11, float %a12, float %a13, float %a14, float %a15, float %a16, "
                                "float %a17)", _SAMPLE_OFFSETS),
    # (op, t, s, c0..c3, o0, o1, channel)
    "textureGather": (lambda k: "call float @rt_gather(ptr %h, ptr %s, float %a3, float %a4, float %a5, "
                                f"float %a6, i32 %a9, i32 {k})", "i32 %a7, i32 %a8, i32 0"),
    # (op, t, s, c0..c3, o0, o1, channel, compare)
    "textureGatherCmp": (lambda k: "call float @rt_gather_cmp(ptr %h, ptr %s, float %a3, float %a4, float %a5, "
                                   f"float %a6, float %a10, i32 {k})", "i32 %a7, i32 %a8, i32 0"),
}


def _sample(op_class: str) -> Callable[[OpDecl], str]:
    call, offsets = _float_sample[op_class]

    def gen(d: OpDecl) -> str:
        if d.overload not in ("f32", "i32"):
            raise DxilExecError(f"{d.name}: the runtime samples float and 32-bit integer textures only")
        return _per_component(call, "float", _sampler_pre(offsets))(d)
    return gen


def _update_counter(d: OpDecl) -> str:
    """(op, handle, i8 step) -> i32."""
    return (f"define i32 @{d.name}({_sig(d)}) {{\n  %h = extractvalue {d.params[1]} %a1, 0\n"
            "  %s = sext i8 %a2 to i32\n  %r = call i32 @rt_update_counter(ptr %h, i32 %s)\n  ret i32 %r\n}\n")


def _all_args(skip: int) -> Callable[[OpDecl], str]:
    return lambda d: ", ".join(f"{t} %a{i}" for i, t in enumerate(d.params) if i >= skip)


def _mesh_store(primitive: int) -> Callable[[OpDecl], str]:
    """storeVertexOutput / storePrimitiveOutput (sigId, row, col, value, index): the value's 32 bits captured."""
    def gen(d: OpDecl) -> str:
        t = d.params[4]
        bits = "%a4" if t == "i32" else "%b"
        conv = "" if t == "i32" else f"  %b = bitcast {t} %a4 to i32\n" if t == "float" else \
            f"  %b = zext {t} %a4 to i32\n"
        return (f"define void @{d.name}({_sig(d)}) {{\n{conv}  %c = zext i8 %a3 to i32\n"
                f"  call void @rt_mesh_store(i32 {primitive}, i32 %a1, i32 %a2, i32 %c, i32 {bits}, i32 %a5)\n"
                "  ret void\n}\n")
    return gen


# op class -> generator; math classes forward to rt_<class>_<overload> when the runtime defines it
SHIMS: dict[str, Callable[[OpDecl], str]] = {
    "threadId": _forward("rt_thread_id", _all_args(1)),
    "groupId": _forward("rt_group_id", _all_args(1)),
    "threadIdInGroup": _forward("rt_thread_id_in_group", _all_args(1)),
    "flattenedThreadIdInGroup": _forward("rt_flattened_thread_id_in_group", _all_args(1)),
    "createHandle": _create_handle,
    "bufferLoad": _buffer_load,
    "rawBufferLoad": _load(lambda _s: 4, "%a3", True),
    "cbufferLoadLegacy": _load(lambda s: 16 // s, "0", False),
    "bufferStore": _buffer_store,
    "textureLoad": _per_component(lambda k: f"call i32 @rt_tex_load32(ptr %h, i32 %a2, i32 %a3, i32 %a4, i32 %a5, "
                                            f"i32 %a6, i32 %a7, i32 %a8, i32 {k})"),
    "textureStore": _texture_store,
    "getDimensions": _get_dimensions,
    **{name: _sample(name) for name in _float_sample},
    "rawBufferStore": _store,
    "createHandleFromBinding": _create_handle_from_binding,
    "annotateHandle": _annotate_handle,
    "makeDouble": _make_double,
    "splitDouble": _split_double,
    "legacyF32ToF16": _f32_to_f16,
    "legacyF16ToF32": _f16_to_f32,
    "isSpecialFloat": _is_special_float,
    "atomicBinOp": _atomic_bin_op,
    "bufferUpdateCounter": _update_counter,
    # the runtime's reads store status 0 (every resource is fully mapped)
    "checkAccessFullyMapped": lambda d: (f"define {d.ret} @{d.name}({_sig(d)}) {{\n  %r = icmp eq i32 %a1, 0\n"
                                         f"  ret {d.ret} %r\n}}\n"),
    "atomicCompareExchange": _atomic_cmpxchg,
    # mesh shaders (run_dxil_mesh): outputs captured per group, the payload from the test
    "storeVertexOutput": _mesh_store(0),
    "storePrimitiveOutput": _mesh_store(1),
    "getMeshPayload": lambda d: f"define ptr @{d.name}({_sig(d)}) {{\n  %p = call ptr @rt_mesh_payload()\n  ret ptr %p\n}}\n",
}
FORWARDED_CLASSES = ("unary", "unaryBits", "binary", "tertiary", "dot2", "dot3", "dot4")
VOID_SHIMS = {"barrier": "rt_barrier", "setMeshOutputCounts": "rt_mesh_counts", "emitIndices": "rt_mesh_indices"}
RT_DECLS = """
declare ptr @rt_create_handle(i32, i32, i32)
declare ptr @rt_create_handle_binding(i32, i32, i32)
declare i32 @rt_atomic_i32(ptr, i32, i32)
declare i32 @rt_cmpxchg_i32(ptr, i32, i32)
declare ptr @rt_addr(ptr, i32, i32, i32, i32)
declare ptr @rt_atomic_addr(ptr, i32, i32, i32)
declare ptr @rt_atomic_addr64(ptr, i32, i32, i32)
declare i64 @rt_atomic_i64(ptr, i32, i64)
declare i64 @rt_cmpxchg_i64(ptr, i64, i64)
declare i32 @rt_update_counter(ptr, i32)
declare i32 @rt_load32(ptr, i32, i32, i32)
declare void @rt_store32(ptr, i32, i32, i32, i32)
declare i32 @rt_tex_load32(ptr, i32, i32, i32, i32, i32, i32, i32, i32)
declare void @rt_tex_store32(ptr, i32, i32, i32, i32, i32)
declare i32 @rt_dims(ptr, i32, i32)
declare void @rt_sample_offsets(i32, i32, i32)
declare float @rt_sample_level(ptr, ptr, float, float, float, float, float, i32)
declare float @rt_sample_cmp(ptr, ptr, float, float, float, float, float)
declare float @rt_sample_cmp_level(ptr, ptr, float, float, float, float, float, float)
declare float @rt_sample_grad(ptr, ptr, float, float, float, float, float, float, float, float, float, float, i32)
declare float @rt_sample_cmp_grad(ptr, ptr, float, float, float, float, float, float, float, float, float, float, float)
declare float @rt_gather(ptr, ptr, float, float, float, float, i32, i32)
declare float @rt_gather_cmp(ptr, ptr, float, float, float, float, float, i32)
declare i32 @rt_thread_id(i32)
declare i32 @rt_group_id(i32)
declare i32 @rt_thread_id_in_group(i32)
declare i32 @rt_flattened_thread_id_in_group()
declare void @rt_mesh_store(i32, i32, i32, i32, i32, i32)
declare ptr @rt_mesh_payload()
"""


def _shim_for(d: OpDecl, runtime_fns: dict[str, str]) -> tuple[str, str] | None:
    """(definition, extra declaration) for one dx.op declaration, or None if unsupported."""
    if d.op_class in SHIMS:
        return SHIMS[d.op_class](d), ""
    if d.op_class in VOID_SHIMS:
        rt = VOID_SHIMS[d.op_class]
        body = f"define void @{d.name}({_sig(d)}) {{\n  call void @{rt}({_all_args(0)(d)})\n  ret void\n}}\n"
        return body, runtime_fns.get(rt, "")
    rt = f"rt_{d.op_class}_{d.overload}"
    if d.op_class in FORWARDED_CLASSES and rt in runtime_fns:
        return _forward(rt, _all_args(0))(d), runtime_fns[rt]
    return None


# dx.op call lines: their undef operands (unused coordinates, offsets, mip of a UAV load) become zero, so
# the runtime can read every operand (an undef reaching C code would be an arbitrary register value).
_DX_CALL = re.compile(r"^.*\bcall\b[^\n]*@dx\.op\.[^\n]*$", re.M)
_UNDEF = re.compile(r"\b(i1|i8|i16|i32|i64|half|float|double) undef\b")
_ZERO = {"i1": "false", "i8": "0", "i16": "0", "i32": "0", "i64": "0", "half": "0xH0000", "float": "0.000000e+00",
         "double": "0.000000e+00"}


def prepare_module(ir: str, entry: str, runtime_fns: dict[str, str]) -> str:
    """The shader IR made runnable: shims instead of dx.op declarations, renamed entry, host target."""
    decls = parse_decls(ir)
    shims, extra, missing = [], [], []
    for d in decls:
        got = _shim_for(d, runtime_fns)
        if got is None:
            missing.append(d.name)
        else:
            shims.append(got[0])
            extra.append(got[1])
    if missing:
        raise DxilExecError(f"dx.op functions the interpreter runtime does not implement: {', '.join(missing)}")
    text = _DX_CALL.sub(lambda m: _UNDEF.sub(lambda u: f"{u.group(1)} {_ZERO[u.group(1)]}", m.group(0)),
                        _DECL.sub("", ir))
    text = _FAST.sub(r"\1", _TARGET.sub("", text))
    entry_ref = re.compile(rf"@{re.escape(entry)}(?![-\w$.])")
    if not re.search(rf"^define [^\n]*@{re.escape(entry)}\(", text, re.M):
        raise DxilExecError(f"entry function @{entry} is not defined in the module")
    text = entry_ref.sub("@__dxil_entry", text)
    return text + RT_DECLS + "\n".join(sorted(set(filter(None, extra)))) + "\n" + "\n".join(shims)


# ---------------------------------------------------------------- runtime build (once per process)

_RT_DEFINE = re.compile(r"^define [^@\n]*@(rt_\w+)\(([^)]*)\)", re.M)
_runtime: tuple[Path, dict[str, str]] | None = None


def runtime() -> tuple[Path, dict[str, str]]:
    """(runtime .ll path, {rt function: declaration}) — compiled with clang-19 once per process."""
    global _runtime
    if _runtime is None:
        tmp = Path(tempfile.mkdtemp(prefix="dxoprt-"))
        atexit.register(shutil.rmtree, tmp, True)
        out = tmp / "dxop_runtime.ll"
        run_tool(["clang-19", "-O1", "-S", "-emit-llvm", "-fno-math-errno", str(RUNTIME_C), "-o", str(out)])
        text = out.read_text()
        fns = {}
        for m in _RT_DEFINE.finditer(text):
            ret = text[m.start():m.start(1)].split()[-2]  # type just before '@name'
            params = ", ".join(p.split()[0] for p in split_top(m.group(2)))
            fns[m.group(1)] = f"declare {ret} @{m.group(1)}({params})"
        _runtime = (out, fns)
    return _runtime


# ---------------------------------------------------------------- public entry points

CLASS_LETTERS = {letter: cls for cls, (letter, *_rest) in CLASSES.items()}


@dataclass(frozen=True)
class View:
    """How the runtime reads a bound resource that is not plain memory.  fmt: a TEXEL_FORMATS key for typed
    buffers and textures; extent and mips for textures (data laid out as vulkan_runner.Image documents);
    sampler state with the names of vulkan_runner.Sampler."""

    fmt: str = ""
    width: int = 0
    height: int = 1
    depth: int = 1
    layers: int = 1
    mips: int = 1
    filter: str = "nearest"
    address: str = "clamp"
    mipmap: str = "nearest"
    border: str = "transparent_black"
    compare: str | None = None
    max_lod: float = 1000.0
    counter: int = 0  # initial hidden counter of a structured UAV (Append/Consume/IncrementCounter)

    def fields(self) -> str:
        cmp = 0 if self.compare is None else 1 + COMPARE_OPS.index(self.compare)
        return " ".join(map(str, (TEXEL_FORMATS.index(self.fmt) if self.fmt else 0, self.width, self.height,
                                  self.depth, self.layers, self.mips, FILTERS.index(self.filter),
                                  ADDRESS_MODES.index(self.address), FILTERS.index(self.mipmap),
                                  BORDERS.index(self.border), cmp, float(self.max_lod), self.counter)))


# code tables shared with dxop_runtime.c (FORMATS, sampler fields); index = code
TEXEL_FORMATS = ("", "rgba8", "r32f", "rg32f", "rgba32f", "r32ui", "r32i", "rgba32ui", "rgba32i", "d32f",
                 "rg32ui", "r8", "rgba8_snorm", "r16f", "rgba16f")
FILTERS = ("nearest", "linear")
ADDRESS_MODES = ("clamp", "wrap", "mirror", "border")
BORDERS = ("transparent_black", "opaque_black", "opaque_white")
COMPARE_OPS = ("never", "less", "equal", "less_equal", "greater", "not_equal", "greater_equal", "always")
_PLAIN = View()


def _bind(resources: list[Resource], buffers: list[tuple], allow_unused: bool = False) -> tuple[list[str], list[str]]:
    """Spec lines for slots (one per binding, same order) and ranges; errors on unmatched bindings unless
    allow_unused (a resource the shader never touches is not in !dx.resources; its data comes back as is).
    A binding is (register, space, class letter, data[, View])."""
    slot_lines, range_lines = [], []
    for slot, (reg, space, letter, data, *rest) in enumerate(buffers):
        view = rest[0] if rest else _PLAIN
        cls = CLASS_LETTERS.get(letter)
        match = next((r for r in resources if r.cls == cls and r.space == space and r.lower <= reg
                      and (r.count < 0 or reg < r.lower + r.count)), None)
        if match is None and allow_unused:
            slot_lines.append(f"{KIND_UNUSED} 4 {len(data)} {view.fields()}")
            continue
        if match is None:
            raise DxilExecError(f"binding {letter}{reg}, space{space} matches no resource in !dx.resources")
        slot_lines.append(f"{match.kind} {match.stride or 4} {len(data)} {view.fields()}")
        range_lines.append(f"{match.cls} {match.range_id} {reg} 1 {slot} {space}")
    return slot_lines, range_lines


def run_dxil_ir(
    ir: str,
    entry: str,
    buffers: list[tuple],
    groups: tuple[int, int, int] = (1, 1, 1),
    numthreads: tuple[int, int, int] | None = None,
    allow_unused: bool = False,
) -> list[bytes]:
    """Run already-disassembled DXIL IR text (opaque pointers) over the grid; final buffer contents.
    numthreads=None reads it from the module's !dx.entryPoints metadata."""
    return _execute(ir, entry, buffers, groups, numthreads, allow_unused)[0]


def _execute(ir: str, entry: str, buffers: list[tuple], groups: tuple[int, int, int],
             numthreads: tuple[int, int, int] | None, allow_unused: bool,
             payload: bytes | None = None) -> tuple[list[bytes], bytes | None]:
    """run_dxil_ir, and the mesh outputs the runtime captured (mesh.bin) if the module wrote any."""
    if numthreads is None:
        numthreads = parse_numthreads(ir, entry)
    rt_path, rt_fns = runtime()
    module = prepare_module(ir, entry, rt_fns)
    slot_lines, range_lines = _bind(parse_resources(ir), buffers, allow_unused)
    with tempfile.TemporaryDirectory(prefix="dxilexec-") as tmp:
        d = Path(tmp)
        (d / "shader.ll").write_text(module)
        for i, (_r, _s, _c, data, *_v) in enumerate(buffers):
            (d / f"buf{i}.bin").write_bytes(data)
        if payload is not None:
            (d / "payload.bin").write_bytes(payload)
        spec = [" ".join(map(str, (*groups, *numthreads))) + f" {len(buffers)}", *slot_lines,
                str(len(range_lines)), *range_lines]
        (d / "spec.txt").write_text("\n".join(spec) + "\n")
        proc = run_tool(["llvm-link-19", str(d / "shader.ll"), str(rt_path), "-o", str(d / "linked.bc")], check=False)
        if proc.returncode != 0:
            raise DxilExecError(f"llvm-link-19 failed:\n{proc.stderr.decode(errors='replace')}\n--- module ---\n{module}")
        proc = run_tool(["lli-19", str(d / "linked.bc"), str(d)], check=False)
        if proc.returncode != 0:
            raise DxilExecError(f"lli-19 exited with {proc.returncode}:\n{proc.stderr.decode(errors='replace')}")
        mesh = d / "mesh.bin"
        return ([(d / f"buf{i}.bin").read_bytes() for i in range(len(buffers))],
                mesh.read_bytes() if mesh.exists() else None)


# the runtime's capture of one mesh shader group (dxop_runtime.c, "mesh shaders")
MESH_MAX, MESH_SIGS, MESH_ROWS = 256, 8, 4


@dataclass(frozen=True)
class MeshGroup:
    """What one mesh shader group output: SetMeshOutputCounts' counts, each primitive's indices, and the
    32-bit words stored to each (signature element, row, column) of each vertex / primitive."""

    counts: tuple[int, int]
    indices: list[tuple[int, int, int]]
    words: bytes        # vertex values, then primitive values: [MESH_MAX][MESH_SIGS][MESH_ROWS][4] u32 each

    def value(self, primitive: bool, sig: int, index: int, row: int = 0, cols: int = 4, kind: str = "f") -> tuple:
        """The stored components (kind 'f' float, 'I' uint) of signature element `sig` of vertex/primitive `index`."""
        base = (MESH_MAX * MESH_SIGS * MESH_ROWS * 4 if primitive else 0) + ((index * MESH_SIGS + sig) * MESH_ROWS + row) * 4
        return struct.unpack_from(f"<{cols}{kind}", self.words, 4 * base)


def run_dxil_mesh(container: bytes, entry: str, buffers: list[tuple], groups: tuple[int, int, int] = (1, 1, 1),
                  payload: bytes | None = None) -> list[MeshGroup]:
    """Run a DXIL mesh shader's groups one thread after another (no group-sync barrier), with `payload` as what
    getMeshPayload returns; per group (x fastest) what it output."""
    _bufs, mesh = _execute(llvm_dis(extract_bitcode(container)), entry, buffers, groups, None, True, payload)
    if mesh is None:
        raise DxilExecError("the mesh shader output nothing (no setMeshOutputCounts, store or emitIndices ran)")
    attr = MESH_MAX * MESH_SIGS * MESH_ROWS * 4
    per_group = 2 + MESH_MAX * 3 + 2 * attr
    out = []
    for g in range(groups[0] * groups[1] * groups[2]):
        words = mesh[4 * per_group * g:4 * per_group * (g + 1)]
        counts = struct.unpack_from("<2I", words, 0)
        flat = struct.unpack_from(f"<{3 * counts[1]}I", words, 8)
        out.append(MeshGroup((counts[0], counts[1]), [tuple(flat[i:i + 3]) for i in range(0, len(flat), 3)],
                             words[4 * (2 + MESH_MAX * 3):]))
    return out


def run_dxil_compute(
    container: bytes,
    entry: str,
    buffers: list[tuple],
    groups: tuple[int, int, int] = (1, 1, 1),
    numthreads: tuple[int, int, int] | None = None,
    allow_unused: bool = False,
) -> list[bytes]:
    """Run a DXIL compute shader from a DXContainer; buffers are (register, space, 'u'|'t'|'b'|'s', data[, View]).
    numthreads=None reads it from the module's !dx.entryPoints metadata."""
    return run_dxil_ir(llvm_dis(extract_bitcode(container)), entry, buffers, groups, numthreads, allow_unused)
