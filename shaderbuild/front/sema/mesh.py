"""Mesh and amplification shader entries: [outputtopology], [numthreads] and the mesh parameters
(`out vertices`, `out indices`, `out primitives`, `in payload`) -> ir.MeshInfo, checked against
D3D's limits (each diagnostic points at the attribute or parameter that breaks the rule)."""

from __future__ import annotations

from ... import ir
from ...diagnostics import error
from ...ir.layout import layout_of
from .. import ast
from .scope import FuncInfo

TOPOLOGIES = ("triangle", "line")
INDEX_TYPES = {"triangle": ir.Vector(ir.UINT, 3), "line": ir.Vector(ir.UINT, 2)}
MAX_VERTICES = 256
MAX_PRIMITIVES = 256
MAX_PAYLOAD_BYTES = 16384
MAX_THREADS = 128
# the qualifier of each mesh parameter, and the direction it must have
PARAMS = {"vertices": "out", "indices": "out", "primitives": "out", "payload": "in"}


def payload_size(t: ir.Type) -> int:
    """A payload's bytes as D3D counts them: its structured-buffer layout (4-byte scalars, packed)."""
    return layout_of(t, "dx_structured").size


def _attr(d: ast.FuncDecl, name: str) -> ast.Attribute | None:
    return next((a for a in d.attributes if a.name == name), None)


def check_numthreads(d: ast.FuncDecl, stage: str, numthreads: tuple[int, ...] | None) -> None:
    if numthreads is None:
        raise error(f"{stage} entry point '{d.name}' requires the [numthreads(x, y, z)] attribute", d.loc)
    total = numthreads[0] * numthreads[1] * numthreads[2]
    if total > MAX_THREADS:
        a = _attr(d, "numthreads")
        raise error(f"{stage} shader numthreads total is {total}: at most {MAX_THREADS} threads per group",
                    a.loc if a is not None else d.loc)


def mesh_info(an, info: FuncInfo, numthreads: tuple[int, ...] | None) -> ir.MeshInfo:
    """A mesh or amplification entry's facts; the payload of an amplification shader is found
    by the entry wrapper (the variable DispatchMesh receives)."""
    d = info.decl
    stage = an.profile.stage
    check_numthreads(d, stage, numthreads)
    if not isinstance(info.return_type, ir.VoidType):
        raise error(f"{stage} entry point '{d.name}' must return void", d.loc)
    mi = ir.MeshInfo()
    for p, t, direction in zip(d.params, info.param_types, info.param_dirs):
        kind = next((q for q in PARAMS if q in p.qualifiers), None)
        if kind is None:
            if direction != "in":
                raise error(f"{stage} shader parameter '{p.name}' cannot be '{direction}': outputs are "
                            f"'out vertices', 'out indices' and 'out primitives' arrays", p.loc)
            continue
        if stage != "mesh":
            raise error(f"'{kind}' parameters are only allowed in a mesh shader", p.loc)
        if direction != PARAMS[kind] or PARAMS[kind] not in p.qualifiers:     # DXC wants `in payload` spelled
            raise error(f"a '{kind}' parameter must be declared '{PARAMS[kind]} {kind}'", p.loc)
        if getattr(mi, f"{kind}_param"):
            raise error(f"a mesh shader has one '{kind}' parameter", p.loc)
        setattr(mi, f"{kind}_param", p.name)
        if kind == "payload":
            if not isinstance(t, ir.Struct):
                raise error(f"the payload '{p.name}' must be a struct, not '{t}'", p.loc)
            mi.payload_size = payload_size(t)
            if mi.payload_size > MAX_PAYLOAD_BYTES:
                raise error(f"payload '{p.name}' is {mi.payload_size} bytes: at most {MAX_PAYLOAD_BYTES}", p.loc)
            continue
        if not isinstance(t, ir.Array) or t.size is None:
            raise error(f"'{kind}' parameter '{p.name}' must be an array: '{p.name}[N]'", p.loc)
        limit = MAX_PRIMITIVES if kind != "vertices" else MAX_VERTICES
        what = "vertices" if kind == "vertices" else "primitives"
        if not 1 <= t.size <= limit:
            raise error(f"'{p.name}' declares {t.size} {what}: a mesh shader outputs 1 to {limit} {what}", p.loc)
        if kind == "vertices":
            mi.max_vertices = t.size
        else:
            if mi.max_primitives and mi.max_primitives != t.size:
                raise error(f"'{p.name}' has {t.size} elements, but the mesh shader's other per-primitive array "
                            f"has {mi.max_primitives}: indices and primitives have one element per primitive",
                            p.loc)
            mi.max_primitives = t.size
    if stage == "mesh":
        a = _attr(d, "outputtopology")
        if a is None:
            raise error(f"mesh entry point '{d.name}' requires the [outputtopology(\"triangle\" | \"line\")] "
                        f"attribute", d.loc)
        arg = a.args[0]
        if not isinstance(arg, ast.StringLit) or arg.value not in TOPOLOGIES:
            raise error("invalid [outputtopology]: a mesh shader outputs \"triangle\" or \"line\"", arg.loc)
        mi.topology = arg.value
        if not mi.indices_param:
            raise error(f"mesh entry point '{d.name}' needs an 'out indices' parameter (uint3 for triangles, "
                        f"uint2 for lines)", d.loc)
        want = INDEX_TYPES[mi.topology]
        p, t = next((p, t) for p, t in zip(d.params, info.param_types) if p.name == mi.indices_param)
        assert isinstance(t, ir.Array)      # checked above
        if t.elem != want:
            raise error(f"[outputtopology(\"{mi.topology}\")] indices are '{want}', not '{t.elem}'", p.loc)
    return mi
