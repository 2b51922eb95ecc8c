"""Builds the binding manifest (one JSON object per compiled entry point).

The manifest serves a D3D12 root signature (the "hlsl" view: class, register,
space, count) and a Vulkan descriptor-set layout (the "vulkan" view: set,
binding, descriptor type, count).  It is deterministic: no timestamps, no
absolute paths, keys sorted when serialised.
"""

from __future__ import annotations

import json

from .. import ir
from ..options import CompileOptions

FORMAT = "shaderbuild-manifest/1"

# resource kind prefix -> Vulkan descriptor type
DESCRIPTOR_TYPES: tuple[tuple[str, str], ...] = (
    ("RWStructuredBuffer", "storage_buffer"), ("StructuredBuffer", "storage_buffer"),
    ("AppendStructuredBuffer", "storage_buffer"), ("ConsumeStructuredBuffer", "storage_buffer"),
    ("RWByteAddressBuffer", "storage_buffer"), ("ByteAddressBuffer", "storage_buffer"),
    ("cbuffer", "uniform_buffer"), ("ConstantBuffer", "uniform_buffer"), ("$Globals", "uniform_buffer"),
    ("tbuffer", "storage_buffer"), ("TextureBuffer", "storage_buffer"),
    ("RWBuffer", "storage_texel_buffer"), ("Buffer", "uniform_texel_buffer"),
    ("RWTexture", "storage_image"), ("Texture", "sampled_image"),
    ("SamplerState", "sampler"), ("SamplerComparisonState", "sampler"),
)


def descriptor_type(kind: str) -> str:
    for prefix, dt in DESCRIPTOR_TYPES:
        if kind.startswith(prefix):
            return dt
    raise KeyError(kind)


def resource_kind(var: ir.Variable) -> str:
    t = var.type
    while isinstance(t, ir.Array):
        t = t.elem
    if isinstance(t, ir.Resource):
        return t.kind
    return "cbuffer"   # cbuffer/tbuffer blocks are typed as their member struct


def _resource_entry(var: ir.Variable) -> dict:
    b = var.binding
    kind = b.kind or resource_kind(var)
    count = "unbounded" if b.count is None else b.count
    entry = {
        "name": var.name,
        "kind": kind,
        "access": "read-write" if b.register_class == "u" else "read-only",
        "hlsl": {"class": b.register_class, "register": b.register, "space": b.space, "count": count},
    }
    if b.vk is not None:
        entry["vulkan"] = {"set": b.vk.set, "binding": b.vk.binding, "descriptor_type": descriptor_type(kind),
                           "count": count}
    elem = var.type
    while isinstance(elem, ir.Array):
        elem = elem.elem
    if isinstance(elem, ir.Resource) and elem.kind.endswith("StructuredBuffer") and elem.elem is not None:
        from ..ir.layout import layout_of
        entry["stride"] = layout_of(elem.elem, "std430").size
    return entry


def _io_entry(var: ir.Variable) -> dict:
    io = var.io
    d = {"semantic": io.semantic, "index": io.index, "type": str(var.type)}
    if io.builtin is not None:
        d["builtin"] = io.builtin
    else:
        d["location"] = io.location
    if io.interpolation:
        d["interpolation"] = io.interpolation
    return d


def build_manifest(module: ir.Module, options: CompileOptions, source_name: str, backend_reflection: dict) -> dict:
    ep = module.entry
    entry: dict = {"name": ep.name, "stage": ep.stage, "profile": options.profile,
                   "inputs": [_io_entry(v) for v in ep.inputs], "outputs": [_io_entry(v) for v in ep.outputs]}
    if ep.numthreads is not None:
        entry["numthreads"] = list(ep.numthreads)
    return {
        "format": FORMAT,
        "source": source_name,
        "target": options.target,
        "entry": entry,
        "resources": [_resource_entry(v) for v in module.resources],
        "backend": backend_reflection,
    }


def dumps(manifest: dict) -> str:
    return json.dumps(manifest, indent=2, sort_keys=True) + "\n"
