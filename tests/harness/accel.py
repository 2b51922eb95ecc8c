"""Acceleration structures for executed ray-tracing tests: the scene a test describes (bottom-level
geometry, top-level instances), the descriptor that binds it (the worker builds it on the device,
vkaccel.py), and an independent reference tracer in plain Python that computes what a ray query
against the scene must find (Moller-Trumbore for triangles, slabs for boxes)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

Vec3 = tuple[float, float, float]
IDENTITY: tuple[float, ...] = (1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0)

# D3D12_RAYTRACING_INSTANCE_FLAGS / VkGeometryInstanceFlagBitsKHR (same bits)
INSTANCE_TRIANGLE_CULL_DISABLE = 0x1
INSTANCE_TRIANGLE_FRONT_COUNTERCLOCKWISE = 0x2
INSTANCE_FORCE_OPAQUE = 0x4
INSTANCE_FORCE_NON_OPAQUE = 0x8

# the RAY_FLAG_* bits the reference tracer honours (HLSL and SPIR-V share the values)
RAY_FLAG_FORCE_OPAQUE = 0x1
RAY_FLAG_FORCE_NON_OPAQUE = 0x2
RAY_FLAG_CULL_BACK_FACING_TRIANGLES = 0x10
RAY_FLAG_CULL_FRONT_FACING_TRIANGLES = 0x20
RAY_FLAG_CULL_OPAQUE = 0x40
RAY_FLAG_CULL_NON_OPAQUE = 0x80
RAY_FLAG_SKIP_TRIANGLES = 0x100
RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES = 0x200


@dataclass(frozen=True)
class Triangles:
    """A triangle geometry: three vertices per triangle (object space), no index buffer."""

    vertices: tuple[Vec3, ...]
    opaque: bool = True

    def request(self) -> dict:
        if len(self.vertices) % 3:
            raise ValueError("a triangle geometry needs three vertices per triangle")
        return {"kind": "triangles", "vertices": [tuple(map(float, v)) for v in self.vertices],
                "opaque": self.opaque}


@dataclass(frozen=True)
class Boxes:
    """A procedural geometry: axis-aligned boxes (min corner, max corner) in object space."""

    boxes: tuple[tuple[Vec3, Vec3], ...]
    opaque: bool = True

    def request(self) -> dict:
        return {"kind": "aabbs", "boxes": [(tuple(map(float, lo)), tuple(map(float, hi))) for lo, hi in self.boxes],
                "opaque": self.opaque}


@dataclass(frozen=True)
class Instance:
    """One top-level instance: which bottom-level structure (index into Scene.blases), its
    object-to-world transform (3x4, row-major: three rows of x y z translation), InstanceID()
    (the 24-bit custom index), mask, hit-group offset and D3D12/Vulkan instance flags."""

    blas: int
    transform: tuple[float, ...] = IDENTITY
    instance_id: int = 0
    mask: int = 0xFF
    sbt_offset: int = 0
    flags: int = 0

    def request(self) -> dict:
        if len(self.transform) != 12:
            raise ValueError("an instance transform is 12 floats (3 rows of 4)")
        return {"blas": self.blas, "transform": [float(x) for x in self.transform],
                "instance_id": self.instance_id, "mask": self.mask, "sbt_offset": self.sbt_offset,
                "flags": self.flags}


@dataclass(frozen=True)
class Scene:
    """Bottom-level structures (each a tuple of geometries) and the instances of the top level."""

    blases: tuple[tuple[Triangles | Boxes, ...], ...]
    instances: tuple[Instance, ...]

    def request(self) -> dict:
        for i in self.instances:
            if not 0 <= i.blas < len(self.blases):
                raise ValueError(f"instance names bottom-level structure {i.blas}, the scene has {len(self.blases)}")
        return {"blases": [[g.request() for g in b] for b in self.blases],
                "instances": [i.request() for i in self.instances]}


@dataclass
class AccelStructure:
    """The descriptor binding a scene's top-level structure (VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR)
    at (set, binding); pass it among the descriptors of vulkan_runner.run_compute / run_graphics."""

    set: int
    binding: int
    scene: Scene
    index: int = 0
    kind: str = "acceleration_structure"
    data: bytes = field(default=b"", repr=False)

    def request(self) -> dict:
        return {"set": self.set, "binding": self.binding, "index": self.index, "kind": self.kind,
                "data": b"", "scene": self.scene.request()}


# ---- the reference tracer

@dataclass(frozen=True)
class Hit:
    """What a query commits (or offers as a candidate): the HLSL getters' values."""

    t: float
    instance_index: int
    instance_id: int
    geometry_index: int
    primitive_index: int
    procedural: bool
    barycentrics: tuple[float, float] = (0.0, 0.0)
    front_face: bool = True
    object_origin: Vec3 = (0.0, 0.0, 0.0)
    object_direction: Vec3 = (0.0, 0.0, 0.0)
    opaque: bool = True


def _sub(a: Vec3, b: Vec3) -> Vec3:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _dot(a: Vec3, b: Vec3) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _cross(a: Vec3, b: Vec3) -> Vec3:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def world_to_object(transform: tuple[float, ...]) -> tuple[float, ...]:
    """The inverse of a 3x4 affine transform, as 3x4 rows."""
    m = [transform[0:3], transform[4:7], transform[8:11]]
    t = (transform[3], transform[7], transform[11])
    det = _dot(m[0], _cross(m[1], m[2]))
    cols = (_cross(m[1], m[2]), _cross(m[2], m[0]), _cross(m[0], m[1]))   # rows of the inverse, * det
    inv = [[cols[c][r] / det for c in range(3)] for r in range(3)]
    out: list[float] = []
    for r in range(3):
        out += [*inv[r], -_dot(tuple(inv[r]), t)]
    return tuple(out)


def apply(transform: tuple[float, ...], p: Vec3, w: float = 1.0) -> Vec3:
    """transform (3x4 rows) times (p, w): w = 1 for a point, 0 for a direction."""
    return tuple(transform[4 * r] * p[0] + transform[4 * r + 1] * p[1] + transform[4 * r + 2] * p[2]
                 + transform[4 * r + 3] * w for r in range(3))  # type: ignore[return-value]


def intersect_triangle(o: Vec3, d: Vec3, v0: Vec3, v1: Vec3, v2: Vec3) -> tuple[float, float, float, bool] | None:
    """Moller-Trumbore: (t, u, v, front face) or None.  u and v weigh v1 and v2 (DXR's barycentrics);
    front face as D3D defines it: vertices clockwise seen from the ray origin (left-handed), i.e. the
    geometric normal cross(v1 - v0, v2 - v0) points back towards the origin."""
    e1, e2 = _sub(v1, v0), _sub(v2, v0)
    p = _cross(d, e2)
    det = _dot(e1, p)
    if det == 0.0:
        return None
    s = _sub(o, v0)
    u = _dot(s, p) / det
    q = _cross(s, e1)
    v = _dot(d, q) / det
    if u < 0.0 or v < 0.0 or u + v > 1.0:
        return None
    t = _dot(e2, q) / det
    return t, u, v, _dot(_cross(e1, e2), d) < 0.0


def intersect_box(o: Vec3, d: Vec3, lo: Vec3, hi: Vec3) -> tuple[float, float] | None:
    """Slab test: (t entry, t exit) of the ray's line with the box, or None."""
    t0, t1 = float("-inf"), float("inf")
    for a in range(3):
        if d[a] == 0.0:
            if not lo[a] <= o[a] <= hi[a]:
                return None
            continue
        n, f = (lo[a] - o[a]) / d[a], (hi[a] - o[a]) / d[a]
        t0, t1 = max(t0, min(n, f)), min(t1, max(n, f))
    return (t0, t1) if t0 <= t1 else None


def candidates(scene: Scene, origin: Vec3, direction: Vec3, tmin: float, tmax: float,
               flags: int = 0, mask: int = 0xFF) -> list[Hit]:
    """Every primitive the ray may meet in [tmin, tmax] after culling; a procedural candidate's t is
    its box entry (clamped to tmin), the shader decides its real t."""
    out = []
    for ii, inst in enumerate(scene.instances):
        if not inst.mask & mask:
            continue
        w2o = world_to_object(inst.transform)
        o, d = apply(w2o, origin), apply(w2o, direction, 0.0)
        for gi, geom in enumerate(scene.blases[inst.blas]):
            opaque = geom.opaque
            if inst.flags & INSTANCE_FORCE_OPAQUE:
                opaque = True
            if inst.flags & INSTANCE_FORCE_NON_OPAQUE:
                opaque = False
            if flags & RAY_FLAG_FORCE_OPAQUE:
                opaque = True
            if flags & RAY_FLAG_FORCE_NON_OPAQUE:
                opaque = False
            if flags & (RAY_FLAG_CULL_OPAQUE if opaque else RAY_FLAG_CULL_NON_OPAQUE):
                continue
            base = dict(instance_index=ii, instance_id=inst.instance_id, geometry_index=gi,
                        object_origin=o, object_direction=d, opaque=opaque)
            if isinstance(geom, Triangles):
                if flags & RAY_FLAG_SKIP_TRIANGLES:
                    continue
                for pi in range(len(geom.vertices) // 3):
                    hit = intersect_triangle(o, d, *geom.vertices[3 * pi:3 * pi + 3])
                    if hit is None or not tmin <= hit[0] <= tmax:
                        continue
                    front = hit[3] != bool(inst.flags & INSTANCE_TRIANGLE_FRONT_COUNTERCLOCKWISE)
                    if not inst.flags & INSTANCE_TRIANGLE_CULL_DISABLE and flags & (
                            RAY_FLAG_CULL_FRONT_FACING_TRIANGLES if front else RAY_FLAG_CULL_BACK_FACING_TRIANGLES):
                        continue
                    out.append(Hit(t=hit[0], primitive_index=pi, procedural=False, barycentrics=(hit[1], hit[2]),
                                   front_face=front, **base))
            else:
                if flags & RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES:
                    continue
                for pi, (lo, hi) in enumerate(geom.boxes):
                    span = intersect_box(o, d, lo, hi)
                    if span is None or span[1] < tmin or span[0] > tmax:
                        continue
                    out.append(Hit(t=max(span[0], tmin), primitive_index=pi, procedural=True, **base))
    return out


def trace(scene: Scene, origin: Vec3, direction: Vec3, tmin: float, tmax: float, flags: int = 0,
          mask: int = 0xFF, accept: Callable[[Hit], bool] = lambda h: True,
          procedural: Callable[[Hit], float | None] = lambda h: None) -> Hit | None:
    """The hit a ray query commits when it runs to completion: the closest of the opaque triangles,
    the non-opaque triangles `accept` commits, and the procedural candidates for which `procedural`
    gives a t (what the shader passes to CommitProceduralPrimitiveHit) inside [tmin, tmax]."""
    best: Hit | None = None
    for c in candidates(scene, origin, direction, tmin, tmax, flags, mask):
        if c.procedural:
            t = procedural(c)
            if t is None or not tmin <= t <= tmax:
                continue
            c = Hit(**{**c.__dict__, "t": t})
        elif not c.opaque and not accept(c):
            continue
        if best is None or c.t < best.t:
            best = c
    return best
