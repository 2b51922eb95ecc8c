"""Checks a root signature as DXC's validator does: well-formed ranges and flags, no two
register ranges overlapping, and every resource a shader uses bound by it.

Errors are located inside the root signature string (at the clause at fault), with
notes at the clause or declaration it conflicts with."""

from __future__ import annotations

from ..diagnostics import Diagnostic, SourceLoc, error
from ..records import DataRecord
from . import model as m

_MAX = 0xFFFFFFFF


class ShaderResource(DataRecord):
    """What coverage needs to know about one resource a shader uses (the HLSL view)."""

    name: str
    register_class: str         # 'b' | 't' | 'u' | 's'
    register: int
    space: int
    count: int | None           # None = unbounded
    kind: str                   # 'Texture2D', 'StructuredBuffer', 'cbuffer', ...
    size: int = 0               # a cbuffer's size in bytes (root constants must hold it)
    loc: SourceLoc | None = None


class _Span(DataRecord):
    kind: str                   # descriptor type: 'CBV' | 'SRV' | 'UAV' | 'Sampler'
    space: int
    lo: int
    hi: int
    visibility: str
    what: str                   # for messages: 'descriptor table range', 'root CBV', ...
    loc: SourceLoc | None
    param: m.RootParameter | None = None
    static_sampler: bool = False


def _vis_overlap(a: str, b: str) -> bool:
    return a == "ALL" or b == "ALL" or a == b


def _reg(kind: str, lo: int, hi: int) -> str:
    cls = m.REGISTER_CLASS[kind]
    if lo == hi:
        return f"{cls}{lo}"
    return f"{cls}{lo}-{cls}{'unbounded' if hi == _MAX else hi}"


def spans(rs: m.RootSignature) -> list[_Span]:
    """Every register range the root signature binds, in declaration order."""
    out: list[_Span] = []
    for p in rs.parameters:
        if p.kind == "DescriptorTable":
            for r in p.ranges:
                hi = _MAX if r.count is None else r.register + r.count - 1
                out.append(_Span(r.kind, r.space, r.register, hi, p.visibility, f"{r.kind} range", r.loc, p))
        elif p.kind == "RootConstants":
            out.append(_Span("CBV", p.space, p.register, p.register, p.visibility, "RootConstants", p.loc, p))
        else:
            out.append(_Span(p.kind, p.space, p.register, p.register, p.visibility, f"root {p.kind}", p.loc, p))
    for s in rs.static_samplers:
        out.append(_Span("Sampler", s.space, s.register, s.register, s.visibility, "StaticSampler", s.loc,
                         static_sampler=True))
    return out


def _flag_names(table: dict[str, int], mask: int) -> str:
    return " | ".join(m.names_of(table, mask))


def _check_data_flags(mask: int, table: dict[str, int], loc: SourceLoc | None, what: str) -> None:
    data = mask & m.DATA_FLAGS
    if data & (data - 1):
        raise error(f"root signature: {what} combines {_flag_names(table, data)}; at most one DATA_* flag is allowed",
                    loc)


def check_signature(rs: m.RootSignature) -> None:
    """The root signature on its own: counts, flags, table contents, overlaps."""
    for p in rs.parameters:
        if p.kind == "RootConstants" and p.num_32bit_values == 0:
            raise error("root signature: RootConstants must have at least one 32-bit constant", p.loc)
        if p.kind in ("CBV", "SRV", "UAV"):
            _check_data_flags(p.flags, m.DESCRIPTOR_FLAGS, p.loc, f"root {p.kind}")
        if p.kind != "DescriptorTable":
            continue
        kinds = {r.kind == "Sampler" for r in p.ranges}
        if len(kinds) > 1:
            first = next(r for r in p.ranges if (r.kind == "Sampler") != (p.ranges[0].kind == "Sampler"))
            raise error("root signature: a descriptor table cannot mix Sampler ranges with CBV, SRV or UAV ranges",
                        first.loc)
        after_unbounded = False
        slot = 0                                    # where an appended range starts in the table
        for r in p.ranges:
            if r.count == 0:
                raise error(f"root signature: {r.kind} range must have at least one descriptor", r.loc)
            if r.count is not None and r.register + r.count - 1 > _MAX:
                raise error(f"root signature: {r.kind} range {m.REGISTER_CLASS[r.kind]}{r.register} with "
                            f"{r.count} descriptors goes past the last register", r.loc)
            if after_unbounded and r.offset is None:
                raise error(f"root signature: {r.kind} range cannot be appended after an unbounded range "
                            f"(give it an explicit offset)", r.loc)
            start = slot if r.offset is None else r.offset
            if r.count is not None and start + r.count - 1 > _MAX:
                raise error(f"root signature: {r.kind} range's descriptors go past the end of the table "
                            f"(offset {start}, {r.count} descriptors)", r.loc)
            after_unbounded = r.count is None
            slot = start + (r.count or 0)
            if r.kind == "Sampler" and r.flags & m.DATA_FLAGS:
                raise error(f"root signature: Sampler range cannot have {_flag_names(m.RANGE_FLAGS, r.flags & m.DATA_FLAGS)}"
                            f" (samplers have no data)", r.loc)
            _check_data_flags(r.flags, m.RANGE_FLAGS, r.loc, f"{r.kind} range")
            if r.flags & m.RANGE_FLAGS["DESCRIPTORS_VOLATILE"] and r.flags & m.RANGE_FLAGS["DATA_STATIC"]:
                raise error(f"root signature: {r.kind} range cannot combine DESCRIPTORS_VOLATILE with DATA_STATIC",
                            r.loc)
    lo_bias, hi_bias = m.MIP_LOD_BIAS_RANGE
    for s in rs.static_samplers:
        if s.max_anisotropy > 16:
            raise error(f"root signature: StaticSampler maxAnisotropy {s.max_anisotropy} is above 16", s.loc)
        if not lo_bias <= s.mip_lod_bias <= hi_bias:
            raise error(f"root signature: StaticSampler mipLODBias {s.mip_lod_bias} is outside [{lo_bias}, {hi_bias}]",
                        s.loc)
    seen: list[_Span] = []
    for sp in spans(rs):
        if m.RESERVED_SPACES[0] <= sp.space <= m.RESERVED_SPACES[1]:
            raise error(f"root signature: space {sp.space:#x} of {sp.what} {_reg(sp.kind, sp.lo, sp.hi)} is reserved "
                        f"for system use ({m.RESERVED_SPACES[0]:#x}-{m.RESERVED_SPACES[1]:#x})", sp.loc)
        for other in seen:
            if (other.kind == sp.kind and other.space == sp.space and _vis_overlap(other.visibility, sp.visibility)
                    and other.lo <= sp.hi and sp.lo <= other.hi):
                note = Diagnostic("note", f"overlapping {other.what} {_reg(other.kind, other.lo, other.hi)} "
                                          f"(visibility {other.visibility}) is here", other.loc)
                raise error(f"root signature: {sp.what} {_reg(sp.kind, sp.lo, sp.hi)} in space {sp.space} "
                            f"(visibility {sp.visibility}) overlaps another {m.REGISTER_CLASS[sp.kind]} register range",
                            sp.loc, [note])
        seen.append(sp)


_DESCRIPTOR_OF_CLASS = {"b": "CBV", "t": "SRV", "u": "UAV", "s": "Sampler"}
_STAGE_VISIBILITY = {"vertex": "VERTEX", "pixel": "PIXEL", "compute": "ALL", "hull": "HULL", "domain": "DOMAIN",
                     "geometry": "GEOMETRY", "mesh": "MESH", "amplification": "AMPLIFICATION",
                     "library": "ALL"}     # ray-tracing shaders see only parameters visible to ALL
# what a root SRV/UAV descriptor can bind: raw and structured buffers without a counter
_ROOT_BUFFERS = ("StructuredBuffer", "RWStructuredBuffer", "ByteAddressBuffer", "RWByteAddressBuffer",
                 "RasterizerOrderedStructuredBuffer", "RasterizerOrderedByteAddressBuffer")


HEAP_FLAGS = {"resource": "CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED", "sampler": "SAMPLER_HEAP_DIRECTLY_INDEXED"}


def check_heaps(rs: m.RootSignature, stage: str, heaps: set[str]) -> None:
    """A shader indexing an SM 6.6 descriptor heap needs the root flag that lets it (D3D12 refuses
    the pipeline state otherwise)."""
    for heap in ("resource", "sampler"):
        flag = HEAP_FLAGS[heap]
        if heap in heaps and not rs.flags & m.ROOT_FLAGS[flag]:
            name = "ResourceDescriptorHeap" if heap == "resource" else "SamplerDescriptorHeap"
            raise error(f"root signature: the {stage} shader indexes '{name}' but RootFlags lacks {flag}",
                        rs.flags_loc or rs.loc)


def check_resources(rs: m.RootSignature, stage: str, resources: list[ShaderResource]) -> list[Diagnostic]:
    """Every resource must be bound by a range of its type, register, space and the stage's
    visibility (DXC checks only the first register of an unbounded array); returns warnings."""
    vis = _STAGE_VISIBILITY[stage]
    deny = m.ROOT_FLAGS.get(f"DENY_{vis}_SHADER_ROOT_ACCESS", 0)
    if resources and rs.flags & deny:
        raise error(f"root signature: the {stage} shader binds resources but RootFlags has "
                    f"DENY_{vis}_SHADER_ROOT_ACCESS", rs.flags_loc)
    warnings: list[Diagnostic] = []
    all_spans = spans(rs)
    for res in resources:
        kind = _DESCRIPTOR_OF_CLASS[res.register_class]
        hi = res.register if res.count is None else res.register + res.count - 1
        what = f"{res.register_class}{res.register}" + (f"-{res.register_class}{hi}" if hi != res.register else "")
        if res.count is None:
            what += "-unbounded"
        covering = [sp for sp in all_spans if sp.kind == kind and sp.space == res.space
                    and (sp.visibility == "ALL" or sp.visibility == vis) and sp.lo <= res.register and hi <= sp.hi]
        decl = [Diagnostic("note", f"'{res.name}' is declared here", res.loc)] if res.loc is not None else []
        if not covering:
            raise error(f"root signature: resource '{res.name}' ({what}, space {res.space}) used by the {stage} "
                        f"shader is not bound by the root signature (no {kind} range for it with visibility "
                        f"{'ALL' if vis == 'ALL' else 'ALL or ' + vis})", rs.loc, decl)
        sp = covering[0]
        p = sp.param
        if p is not None and p.kind in ("SRV", "UAV") and res.kind not in _ROOT_BUFFERS:
            raise error(f"root signature: root {p.kind} descriptor binds '{res.name}', a {res.kind}; root SRV/UAV "
                        f"descriptors can only bind raw or structured buffers without a counter (use a descriptor "
                        f"table)", p.loc, decl)
        if p is not None and p.kind == "RootConstants" and res.size > 4 * p.num_32bit_values:
            # not a DXC check: the runtime gives the shader only the root constants
            warnings.append(Diagnostic("warning", f"root signature: RootConstants holds {p.num_32bit_values} 32-bit "
                                                  f"constants ({4 * p.num_32bit_values} bytes) but '{res.name}' is "
                                                  f"{res.size} bytes", p.loc, decl))
    return warnings
