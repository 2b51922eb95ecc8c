"""The manifest's `root_signature` object: the D3D12 view an engine builds its root signature from,
and (for a compiled shader) the Vulkan pipeline layout that binds the same resources."""

from __future__ import annotations

from . import model as m
from .printer import to_string

TYPE_CHECKING = False
if TYPE_CHECKING:       # no typing at run time (issue 23)
    from typing import Any


def _count(n: int | None) -> int | str:
    return "unbounded" if n is None else n


def _parameter(p: m.RootParameter, version: str) -> dict:
    """`flags` as serialized; `effective_flags` as the D3D12 runtime reads them (NONE means the
    version's defaults)."""
    d: dict[str, Any] = {"type": p.kind, "visibility": p.visibility}
    if p.kind == "DescriptorTable":
        d["ranges"] = [{"type": r.kind, "register": r.register, "space": r.space, "count": _count(r.count),
                        "offset": "append" if r.offset is None else r.offset,
                        "flags": m.names_of(m.RANGE_FLAGS, r.flags),
                        "effective_flags": m.names_of(m.RANGE_FLAGS,
                                                      r.flags or m.EFFECTIVE_RANGE_FLAGS[version][r.kind])}
                       for r in p.ranges]
        return d
    d["register"] = p.register
    d["space"] = p.space
    if p.kind == "RootConstants":
        d["num_32bit_values"] = p.num_32bit_values
    else:
        d["flags"] = m.names_of(m.DESCRIPTOR_FLAGS, p.flags)
        d["effective_flags"] = m.names_of(m.DESCRIPTOR_FLAGS,
                                          p.flags or m.EFFECTIVE_DESCRIPTOR_FLAGS[version][p.kind])
    return d


def _sampler(s: m.StaticSampler) -> dict:
    return {"register": s.register, "space": s.space, "filter": s.filter, "address_u": s.address_u,
            "address_v": s.address_v, "address_w": s.address_w, "mip_lod_bias": s.mip_lod_bias,
            "max_anisotropy": s.max_anisotropy, "comparison_func": s.comparison_func,
            "border_color": s.border_color, "min_lod": s.min_lod, "max_lod": s.max_lod, "visibility": s.visibility}


def manifest_view(rs: m.RootSignature) -> dict:
    return {"version": rs.version, "flags": m.names_of(m.ROOT_FLAGS, rs.flags),
            "parameters": [_parameter(p, rs.version) for p in rs.parameters],
            "static_samplers": [_sampler(s) for s in rs.static_samplers],
            "string": to_string(rs)}


def vulkan_layout(resources: list[dict], push_constants: list[dict], stage: str) -> dict:
    """The Vulkan pipeline layout binding the same resources (from the manifest's resource entries):
    one set layout per set, bindings sorted, and the push-constant ranges."""
    sets: dict[int, list[dict]] = {}
    for r in resources:
        vk = r.get("vulkan")
        if vk is None:
            continue
        sets.setdefault(vk["set"], []).append({"binding": vk["binding"], "descriptor_type": vk["descriptor_type"],
                                               "count": vk["count"], "stages": [stage], "resource": r["name"]})
        if "counter_binding" in vk:
            sets[vk["set"]].append({"binding": vk["counter_binding"], "descriptor_type": "storage_buffer",
                                    "count": vk["count"], "stages": [stage], "resource": f"counter.{r['name']}"})
    ranges = []
    offset = 0
    for pc in push_constants:
        size = pc["block"]["vulkan_size"]
        ranges.append({"offset": offset, "size": size, "stages": [stage], "block": pc["name"]})
        offset += size
    return {"set_layouts": [{"set": s, "bindings": sorted(b, key=lambda x: x["binding"])} for s, b in sorted(sets.items())],
            "push_constant_ranges": ranges}
