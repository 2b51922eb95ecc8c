"""Prints a root signature model as an HLSL root signature string (what `parse` reads back).

The full form writes every field (flags only at 1.1, which has them); the compact form leaves out
what equals the parser's default."""

from __future__ import annotations

import math

from . import model as m


def _flags(table: dict[str, int], mask: int) -> str:
    return " | ".join(m.names_of(table, mask)) or "0"


def _num(v: float) -> str:
    return repr(float(v))


def _same(a: float, b: float) -> bool:
    """Equal including the sign of zero (-0.0 serializes differently from 0.0)."""
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


class _Printer:
    def __init__(self, version: str, compact: bool):
        self.version, self.compact = version, compact

    def args(self, pairs: list[tuple[str, str, bool]]) -> list[str]:
        """`name = value` for each (name, value, is_default) not left out."""
        return [f"{name} = {value}" for name, value, default in pairs if not (self.compact and default)]

    def range(self, r: m.DescriptorRange) -> str:
        pairs = [("numDescriptors", "unbounded" if r.count is None else str(r.count), r.count == 1),
                 ("space", str(r.space), r.space == 0),
                 ("offset", "DESCRIPTOR_RANGE_OFFSET_APPEND" if r.offset is None else str(r.offset), r.offset is None)]
        if self.version != "1.0":
            pairs.append(("flags", _flags(m.RANGE_FLAGS, r.flags), r.flags == 0))
        return f"{r.kind}({', '.join([f'{m.REGISTER_CLASS[r.kind]}{r.register}'] + self.args(pairs))})"

    def vis(self, v: str) -> tuple[str, str, bool]:
        return ("visibility", f"SHADER_VISIBILITY_{v}", v == "ALL")

    def parameter(self, p: m.RootParameter) -> str:
        if p.kind == "DescriptorTable":
            return f"DescriptorTable({', '.join([self.range(r) for r in p.ranges] + self.args([self.vis(p.visibility)]))})"
        space = ("space", str(p.space), p.space == 0)
        if p.kind == "RootConstants":
            head = [f"num32BitConstants = {p.num_32bit_values}", f"b{p.register}"]
            return f"RootConstants({', '.join(head + self.args([space, self.vis(p.visibility)]))})"
        pairs = [space, self.vis(p.visibility)]
        if self.version != "1.0":
            pairs.append(("flags", _flags(m.DESCRIPTOR_FLAGS, p.flags), p.flags == 0))
        return f"{p.kind}({', '.join([f'{m.REGISTER_CLASS[p.kind]}{p.register}'] + self.args(pairs))})"

    def sampler(self, s: m.StaticSampler) -> str:
        d = m.StaticSampler(0)
        pairs = [("filter", f"FILTER_{s.filter}", s.filter == d.filter),
                 *((f"address{c.upper()}", f"TEXTURE_ADDRESS_{getattr(s, 'address_' + c)}",
                    getattr(s, "address_" + c) == getattr(d, "address_" + c)) for c in "uvw"),
                 ("mipLODBias", _num(s.mip_lod_bias), _same(s.mip_lod_bias, d.mip_lod_bias)),
                 ("maxAnisotropy", str(s.max_anisotropy), s.max_anisotropy == d.max_anisotropy),
                 ("comparisonFunc", f"COMPARISON_{s.comparison_func}", s.comparison_func == d.comparison_func),
                 ("borderColor", f"STATIC_BORDER_COLOR_{s.border_color}", s.border_color == d.border_color),
                 ("minLOD", _num(s.min_lod), _same(s.min_lod, d.min_lod)),
                 ("maxLOD", _num(s.max_lod), _same(s.max_lod, d.max_lod)),
                 ("space", str(s.space), s.space == 0), self.vis(s.visibility)]
        return f"StaticSampler({', '.join([f's{s.register}'] + self.args(pairs))})"


def to_string(rs: m.RootSignature, separator: str = ", ", compact: bool = False) -> str:
    pr = _Printer(rs.version, compact)
    clauses = [] if compact and rs.flags == 0 else [f"RootFlags({_flags(m.ROOT_FLAGS, rs.flags)})"]
    clauses += [pr.parameter(p) for p in rs.parameters]
    clauses += [pr.sampler(s) for s in rs.static_samplers]
    return separator.join(clauses)
