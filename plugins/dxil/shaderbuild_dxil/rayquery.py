"""RayQuery methods -> the DXIL rayQuery_* operations (SM 6.5).  A query is the i32 handle
allocateRayQuery gave its local (the lowerer allocates one per RayQuery local, with the
object's template flags); TraceRayInline passes only the call's own flags.  Vectors are read
component by component (rayQuery_StateVector), matrices element by element from the 3x4 form
(rayQuery_StateMatrix): a 4x3 getter reads the same operation transposed."""

from __future__ import annotations

from shaderbuild import ir
from shaderbuild.ir.intrinsics import RAYQUERY_METHODS

from .llvm import types as T
from .llvm.values import ConstInt, Value

TYPE_CHECKING = False

if TYPE_CHECKING:       # handlers receive the lowerer through its interface (lowering.py)
    from collections.abc import Callable

    from .lowering import Lowering

__all__ = ["RAYQUERY_HANDLERS"]

if TYPE_CHECKING:      # a type alias: for type checkers only (no collections.abc at run time)
    Handler = Callable[["Lowering", ir.Intrinsic], list[Value]]


def _trace(L: Lowering, e: ir.Intrinsic) -> list[Value]:
    q = L.ray_query(e.args[0])
    accel = L.handle(L.resource_place(e.args[1]))
    flags, mask = L.expr(e.args[2])[0], L.expr(e.args[3])[0]
    ray = L.expr(e.args[4])         # Origin.xyz, TMin, Direction.xyz, TMax
    L.ops.call(L.b, "RayQuery_TraceRayInline", None, [q, accel, flags, mask, *ray])
    return []


def _void(op: str) -> Handler:
    def lower(L: Lowering, e: ir.Intrinsic) -> list[Value]:
        args = [v for a in e.args[1:] for v in L.expr(a)]
        L.ops.call(L.b, op, None, [L.ray_query(e.args[0]), *args])
        return []
    return lower


_OVERLOAD = {"float": "f32", "uint": "i32", "int": "i32", "bool": "i1"}


def _scalar(op: str) -> Handler:
    def lower(L: Lowering, e: ir.Intrinsic) -> list[Value]:
        s = ir.numeric_scalar(e.type)
        return [L.ops.call(L.b, op, _OVERLOAD[s.kind], [L.ray_query(e.args[0])])]
    return lower


def _vector(op: str) -> Handler:
    def lower(L: Lowering, e: ir.Intrinsic) -> list[Value]:
        q = L.ray_query(e.args[0])
        n = e.type.size if isinstance(e.type, ir.Vector) else 1
        return [L.ops.call(L.b, op, "f32", [q, ConstInt(T.i8, c)]) for c in range(n)]
    return lower


def _matrix(op: str) -> Handler:
    def lower(L: Lowering, e: ir.Intrinsic) -> list[Value]:
        q = L.ray_query(e.args[0])
        t = e.type
        assert isinstance(t, ir.Matrix)     # float3x4 or float4x3 (the table's rows)
        transposed = t.rows == 4
        out: list[Value] = []
        for r in range(t.rows):
            for c in range(t.cols):
                row, col = (c, r) if transposed else (r, c)
                out.append(L.ops.call(L.b, op, "f32", [q, ConstInt(T.i32, row), ConstInt(T.i8, col)]))
        return out
    return lower




# getters per intersection: HLSL name after Candidate/Committed -> (handler kind, op suffix)
_HIT = {
    "InstanceIndex": (_scalar, "InstanceIndex"), "InstanceID": (_scalar, "InstanceID"),
    "InstanceContributionToHitGroupIndex": (_scalar, "InstanceContributionToHitGroupIndex"),
    "GeometryIndex": (_scalar, "GeometryIndex"), "PrimitiveIndex": (_scalar, "PrimitiveIndex"),
    "ObjectRayOrigin": (_vector, "ObjectRayOrigin"), "ObjectRayDirection": (_vector, "ObjectRayDirection"),
    "ObjectToWorld3x4": (_matrix, "ObjectToWorld3x4"), "ObjectToWorld4x3": (_matrix, "ObjectToWorld3x4"),
    "WorldToObject3x4": (_matrix, "WorldToObject3x4"), "WorldToObject4x3": (_matrix, "WorldToObject3x4"),
    "TriangleBarycentrics": (_vector, "TriangleBarycentrics"), "TriangleFrontFace": (_scalar, "TriangleFrontFace"),
}

RAYQUERY_HANDLERS: dict[str, Handler] = {
    "TraceRayInline": _trace,
    "Proceed": _scalar("RayQuery_Proceed"),
    "Abort": _void("RayQuery_Abort"),
    "CommitNonOpaqueTriangleHit": _void("RayQuery_CommitNonOpaqueTriangleHit"),
    "CommitProceduralPrimitiveHit": _void("RayQuery_CommitProceduralPrimitiveHit"),
    "CandidateType": _scalar("RayQuery_CandidateType"),
    "CommittedStatus": _scalar("RayQuery_CommittedStatus"),
    "CandidateProceduralPrimitiveNonOpaque": _scalar("RayQuery_CandidateProceduralPrimitiveNonOpaque"),
    "CandidateTriangleRayT": _scalar("RayQuery_CandidateTriangleRayT"),
    "CommittedRayT": _scalar("RayQuery_CommittedRayT"),
    "RayFlags": _scalar("RayQuery_RayFlags"),
    "RayTMin": _scalar("RayQuery_RayTMin"),
    "WorldRayOrigin": _vector("RayQuery_WorldRayOrigin"),
    "WorldRayDirection": _vector("RayQuery_WorldRayDirection"),
    **{f"Candidate{k}": kind(f"RayQuery_Candidate{op}") for k, (kind, op) in _HIT.items()},
    **{f"Committed{k}": kind(f"RayQuery_Committed{op}") for k, (kind, op) in _HIT.items()},
}
assert set(RAYQUERY_HANDLERS) == set(RAYQUERY_METHODS)
