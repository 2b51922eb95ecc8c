"""The manifest's `descriptor_heaps`: SM 6.6 heap usage, for both pipeline layouts.

For each heap the entry point indexes: which resource types it is read as, whether any
index is non-uniform, the D3D12 heap type and root-signature flag it needs, and the Vulkan
binding that stands for it (one binding whose descriptors are of every type used, so a
`VK_DESCRIPTOR_TYPE_MUTABLE_EXT` binding when there are several, plus the counter heap).
"""

from __future__ import annotations

from .. import ir
from ..ir.resource_kinds import KINDS

_D3D12 = {"resource": ("CBV_SRV_UAV", "CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED", "ResourceDescriptorHeap"),
          "sampler": ("SAMPLER", "SAMPLER_HEAP_DIRECTLY_INDEXED", "SamplerDescriptorHeap")}


def used_heap_views(module: ir.Module) -> list[ir.Variable]:
    """The heap views the module's functions reference, in declaration order."""
    views = module.heap_views
    if not views:
        return []
    ids = {id(v) for v in views}
    seen: set[int] = set()
    fns = list(module.functions)
    if module.entry is not None and module.entry.function is not None:
        fns.append(module.entry.function)
    for f in fns:
        for s in ir.walk_stmts(f.body):
            for e in ir.stmt_exprs(s):
                for x in ir.walk_expr(e):
                    if isinstance(x, ir.VarRef) and id(x.var) in ids:
                        seen.add(id(x.var))
    return [v for v in views if id(v) in seen]


def heap_usage(module: ir.Module) -> list[dict]:
    """One entry per heap used (resource heap first)."""
    out = []
    views = used_heap_views(module)
    for heap in ("resource", "sampler"):
        mine = [ir.view_binding(v)[0] for v in views if ir.view_binding(v)[1] == heap]
        if not mine:
            continue
        heap_type, flag, name = _D3D12[heap]
        by_kind: dict[str, dict] = {}      # a type's globallycoherent view is the same type here
        for v in views:
            b, h = ir.view_binding(v)
            if h != heap:
                continue
            t = ir.view_type(v)
            kind = KINDS[t.kind]
            seen = by_kind.setdefault(str(t), {"kind": str(t), "access": "read-write" if kind.access == "UAV"
                                               else "read-only", "descriptor_type": kind.descriptor,
                                               "non_uniform": False})
            seen["non_uniform"] = seen["non_uniform"] or b.non_uniform
        types = list(by_kind.values())
        entry: dict = {"heap": heap, "name": name, "types": types,
                       "non_uniform": any(b.non_uniform for b in mine),
                       "d3d12": {"heap_type": heap_type, "root_signature_flag": flag}}
        vk = mine[0].vk
        if vk is not None:
            dts = sorted({t["descriptor_type"] for t in types})
            entry["vulkan"] = {"set": vk.set, "binding": vk.binding, "count": "unbounded",
                               "descriptor_type": dts[0] if len(dts) == 1 else "mutable",
                               "descriptor_types": dts}
            counted = [b.vk for b in mine if b.vk is not None and b.vk.counter_binding is not None]
            if counted:
                c = counted[0]
                entry["vulkan"]["counters"] = {"set": c.set if c.counter_set is None else c.counter_set,
                                               "binding": c.counter_binding, "descriptor_type": "storage_buffer",
                                               "count": "unbounded"}
        out.append(entry)
    return out
