"""Prints a root signature model as an HLSL root signature string (what `parse` reads back)."""

from __future__ import annotations

from . import model as m


def _flags(table: dict[str, int], mask: int) -> str:
    return " | ".join(m.names_of(table, mask)) or "0"


def _num(v: float) -> str:
    return repr(float(v))


def _range(r: m.DescriptorRange, version: str) -> str:
    cls = m.REGISTER_CLASS[r.kind]
    args = [f"{cls}{r.register}", f"numDescriptors = {'unbounded' if r.count is None else r.count}"]
    if r.space:
        args.append(f"space = {r.space}")
    args.append(f"offset = {'DESCRIPTOR_RANGE_OFFSET_APPEND' if r.offset is None else r.offset}")
    if version != "1.0":
        args.append(f"flags = {_flags(m.RANGE_FLAGS, r.flags)}")
    return f"{r.kind}({', '.join(args)})"


def _parameter(p: m.RootParameter, version: str) -> str:
    vis = f"visibility = SHADER_VISIBILITY_{p.visibility}"
    if p.kind == "DescriptorTable":
        return f"DescriptorTable({', '.join([_range(r, version) for r in p.ranges] + [vis])})"
    if p.kind == "RootConstants":
        return f"RootConstants(num32BitConstants = {p.num_32bit_values}, b{p.register}, space = {p.space}, {vis})"
    args = [f"{m.REGISTER_CLASS[p.kind]}{p.register}", f"space = {p.space}", vis]
    if version != "1.0":
        args.append(f"flags = {_flags(m.DESCRIPTOR_FLAGS, p.flags)}")
    return f"{p.kind}({', '.join(args)})"


def _sampler(s: m.StaticSampler) -> str:
    return (f"StaticSampler(s{s.register}, filter = FILTER_{s.filter}, addressU = TEXTURE_ADDRESS_{s.address_u}, "
            f"addressV = TEXTURE_ADDRESS_{s.address_v}, addressW = TEXTURE_ADDRESS_{s.address_w}, "
            f"mipLODBias = {_num(s.mip_lod_bias)}, maxAnisotropy = {s.max_anisotropy}, "
            f"comparisonFunc = COMPARISON_{s.comparison_func}, borderColor = STATIC_BORDER_COLOR_{s.border_color}, "
            f"minLOD = {_num(s.min_lod)}, maxLOD = {_num(s.max_lod)}, space = {s.space}, "
            f"visibility = SHADER_VISIBILITY_{s.visibility})")


def to_string(rs: m.RootSignature, separator: str = ", ") -> str:
    """Every field written out, flags included, so the string means the same at either version."""
    clauses = [f"RootFlags({_flags(m.ROOT_FLAGS, rs.flags)})"]
    clauses += [_parameter(p, rs.version) for p in rs.parameters]
    clauses += [_sampler(s) for s in rs.static_samplers]
    return separator.join(clauses)
