"""Derives a minimal root signature that binds every resource of a set of shaders (from their
manifests' HLSL view): one descriptor table per space and visibility (samplers in tables of
their own, as D3D12 requires), and, when asked, root constants for small constant buffers.

A register used by one stage gets that stage's visibility; used by several stages (or by a
compute shader) it is visible to ALL.  If that makes two ranges overlap, everything is made
visible to ALL instead.  The result is checked against every shader before it is returned."""

from __future__ import annotations

import math

from ..diagnostics import CompileError
from . import model as m
from .validate import HEAP_FLAGS, ShaderResource, check_resources, check_signature

_KIND_OF_CLASS = {"b": "CBV", "t": "SRV", "u": "UAV", "s": "Sampler"}
_STAGE_VIS = {"vertex": "VERTEX", "pixel": "PIXEL", "compute": "ALL", "library": "ALL"}
_VIS_ORDER = list(m.VISIBILITY)
_CLASS_ORDER = ("CBV", "SRV", "UAV", "Sampler")


class Shader:
    """What derivation needs of one entry point: its stage, whether it reads vertex attributes
    (an input assembler layout), and the resources it uses."""

    def __init__(self, stage: str, vertex_inputs: bool, resources: list[ShaderResource],
                 heaps: frozenset[str] = frozenset()):
        self.stage, self.vertex_inputs, self.resources = stage, vertex_inputs, resources
        self.heaps = heaps      # SM 6.6 descriptor heaps indexed: 'resource', 'sampler'

    @classmethod
    def from_manifest(cls, manifest: dict) -> Shader:
        """From a manifest, which lists every declared resource (used or not)."""
        out = []
        for r in manifest.get("resources", []):
            h = r["hlsl"]
            count = None if h["count"] == "unbounded" else h["count"]
            size = r["block"]["hlsl_size"] if "block" in r else 0
            out.append(ShaderResource(r["name"], h["class"], h["register"], h["space"], count, r["kind"], size))
        heaps = frozenset(h["heap"] for h in manifest.get("descriptor_heaps", []))
        if "library" in manifest:       # a ray-tracing library: a global root signature, visible to ALL
            return cls("library", False, out, heaps)
        entry = manifest["entry"]
        return cls(entry["stage"], _reads_vertex_attributes(entry["stage"], [i["semantic"] for i in entry["inputs"]]),
                   out, heaps)


def _reads_vertex_attributes(stage: str, semantics: list[str]) -> bool:
    return stage == "vertex" and any(not s.upper().startswith("SV_") for s in semantics)


def _intervals(items: list[tuple[int, int | None]]) -> list[tuple[int, int | None]]:
    """Union of [register, register+count) intervals; count None = unbounded (to the end)."""
    out: list[tuple[int, int | None]] = []
    for lo, count in sorted(items, key=lambda x: x[0]):
        hi = None if count is None else lo + count          # exclusive end; None = unbounded
        if out:
            plo, phi = out[-1]
            if phi is None or lo <= phi:                    # overlaps or touches: merge
                out[-1] = (plo, None if (phi is None or hi is None) else max(phi, hi))
                continue
        out.append((lo, hi))
    return [(lo, None if hi is None else hi - lo) for lo, hi in out]


def _build(uses: dict, constants: dict, all_visible: bool, version: str, flags: int) -> m.RootSignature:
    rs = m.RootSignature(version=version, flags=flags)
    groups: dict[tuple[int, str, bool], dict[str, list[tuple[int, int | None]]]] = {}
    for (cls, space, reg), (count, stages) in sorted(uses.items(), key=lambda kv: (kv[0][1], kv[0][0], kv[0][2])):
        vis = "ALL" if all_visible or len(stages) > 1 else _STAGE_VIS[next(iter(stages))]
        if (cls, space, reg) in constants:
            n = constants[(cls, space, reg)]
            rs.parameters.append(m.RootParameter("RootConstants", vis, reg, space, num_32bit_values=n))
            continue
        kind = _KIND_OF_CLASS[cls]
        groups.setdefault((space, vis, kind == "Sampler"), {}).setdefault(kind, []).append((reg, count))
    for (space, vis, _), by_kind in sorted(groups.items(), key=lambda kv: (kv[0][0], _VIS_ORDER.index(kv[0][1]), kv[0][2])):
        ranges = [m.DescriptorRange(kind, lo, count, space) for kind in _CLASS_ORDER
                  for lo, count in _intervals(by_kind.get(kind, []))]
        # an unbounded range must end its table (nothing can be appended after it)
        bounded = [r for r in ranges if r.count is not None]
        unbounded = [r for r in ranges if r.count is None]
        tables = [bounded + unbounded[:1]] + [[r] for r in unbounded[1:]]
        for table in tables:
            if table:
                rs.parameters.append(m.RootParameter("DescriptorTable", vis, ranges=table))
    return rs


def from_module(module) -> Shader:
    """From a compiled module (ir.Module): only the resources its code uses."""
    from .shader import shader_resources, used_heaps

    ep = module.entry
    if ep is None:      # a ray-tracing library
        return Shader("library", False, shader_resources(module), frozenset(used_heaps(module)))
    return Shader(ep.stage, _reads_vertex_attributes(ep.stage, [v.io.semantic for v in ep.inputs]),
                  shader_resources(module), frozenset(used_heaps(module)))


def derive(shaders: list[Shader], *, root_constants: int = 0, version: str = "1.1") -> m.RootSignature:
    """The minimal root signature binding every resource of `shaders`.

    `root_constants` > 0 binds each single constant buffer of at most that many 32-bit values
    (a [[vk::push_constant]] block is one in D3D) as root constants instead of a table range."""
    uses: dict[tuple[str, int, int], tuple[int | None, set[str]]] = {}
    dwords: dict[tuple[str, int, int], int] = {}      # constant buffers: the most 32-bit values any shader reads
    flags = 0
    for sh in shaders:
        stage = sh.stage
        if sh.vertex_inputs:
            flags |= m.ROOT_FLAGS["ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT"]
        for heap in sh.heaps:
            flags |= m.ROOT_FLAGS[HEAP_FLAGS[heap]]
        for r in sh.resources:
            key = (r.register_class, r.space, r.register)
            count, stages = uses.get(key, (r.count, set()))
            if count is not None:
                count = None if r.count is None else max(count, r.count)
            uses[key] = (count, stages | {stage})
            if r.register_class == "b":
                # an array or an empty block can never be root constants
                n = math.ceil(r.size / 4) if r.count == 1 and r.size else root_constants + 1
                dwords[key] = max(dwords.get(key, 0), n)
    constants = {k: n for k, n in dwords.items() if 0 < n <= root_constants}
    rs = _build(uses, constants, False, version, flags)
    try:
        check_signature(rs)
    except CompileError:        # per-stage visibilities overlap: everything visible to ALL instead
        rs = _build(uses, constants, True, version, flags)
        check_signature(rs)
    for sh in shaders:
        check_resources(rs, sh.stage, sh.resources)
    return rs
