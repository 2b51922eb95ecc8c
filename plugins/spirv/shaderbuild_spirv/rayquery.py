"""RayQuery methods -> SPV_KHR_ray_query: a query is a Function variable of OpTypeRayQueryKHR
whose pointer every instruction takes; getters name the candidate (0) or committed (1)
intersection.  The HLSL values of the ray flags and of the candidate/committed types are
SPIR-V's, so they pass through unchanged."""

from __future__ import annotations

from shaderbuild.diagnostics import error
from shaderbuild.ir.intrinsics import RAYQUERY_METHODS
from shaderbuild.ir.nodes import Const, Intrinsic
from shaderbuild.ir.raytracing import PRIMITIVE_CULLING_FLAGS
from shaderbuild.ir.types import BOOL, FLOAT, UINT, Matrix, RayQuery, Vector

from .emit_expr import ExprEmitter, Ptr

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

if TYPE_CHECKING:      # a type alias: for type checkers only (no collections.abc at run time)
    Lowering = Callable[[ExprEmitter, Intrinsic], "int | None"]
_CANDIDATE, _COMMITTED = 0, 1
_FLOAT3 = Vector(FLOAT, 3)


def _query(fe: ExprEmitter, e: Intrinsic) -> int:
    p = fe.place(e.args[0])
    if not isinstance(p, Ptr) or not isinstance(e.args[0].type, RayQuery):
        raise error(f"'{e.name}' must be called on a RayQuery")
    return fe.pointer(p)


def _trace(fe: ExprEmitter, e: Intrinsic) -> None:
    q = _query(fe, e)
    accel_place = fe.place(e.args[1])
    assert isinstance(accel_place, Ptr)          # sema: a RaytracingAccelerationStructure place
    accel = fe.op("OpLoad", fe.T.acceleration_structure(), fe.pointer(accel_place))
    template = e.args[0].type.flags if isinstance(e.args[0].type, RayQuery) else 0
    flags_arg = e.args[2]
    flags = fe.expr(flags_arg)
    if template:        # the object's flags apply to every trace (DXC ORs them in)
        flags = fe.op("OpBitwiseOr", fe.tid(UINT), flags, fe.const(UINT, template))
    runtime = int(flags_arg.value) if isinstance(flags_arg, Const) else PRIMITIVE_CULLING_FLAGS
    if (template | runtime) & PRIMITIVE_CULLING_FLAGS:
        fe.b.capability("RayTraversalPrimitiveCullingKHR")
    ray = fe.expr(e.args[4])
    origin, tmin, direction, tmax = (fe.op("OpCompositeExtract", fe.tid(t), ray, i)
                                     for i, t in enumerate((_FLOAT3, FLOAT, _FLOAT3, FLOAT)))
    fe.void_op("OpRayQueryInitializeKHR", q, accel, flags, fe.expr(e.args[3]), origin, tmin, direction, tmax)
    return None


def _void(opname: str) -> Lowering:
    def lower(fe: ExprEmitter, e: Intrinsic) -> None:
        fe.void_op(opname, _query(fe, e), *(fe.expr(a) for a in e.args[1:]))
        return None
    return lower


def _get(opname: str, which: int | None = None, transpose: bool = False, negate: bool = False) -> Lowering:
    """A getter: `opname` on the query (and the intersection `which`, when given)."""
    def lower(fe: ExprEmitter, e: Intrinsic) -> int:
        rt = e.type
        if transpose:            # SPIR-V gives the 4-column matrix, HLSL's 4x3; 3x4 is its transpose
            assert isinstance(rt, Matrix)
            rt = Matrix(rt.elem, rt.cols, rt.rows)
        ops = [_query(fe, e)] + ([] if which is None else [fe.T.uconst(which)])
        v = fe.op(opname, fe.tid(rt), *ops)
        if transpose:
            v = fe.op("OpTranspose", fe.tid(e.type), v)
        if negate:
            v = fe.op("OpLogicalNot", fe.tid(BOOL), v)
        return v
    return lower


# the per-intersection getters: HLSL name after Candidate/Committed -> (SPIR-V op suffix, transpose)
_HIT = {
    "InstanceIndex": ("InstanceId", False), "InstanceID": ("InstanceCustomIndex", False),
    "InstanceContributionToHitGroupIndex": ("InstanceShaderBindingTableRecordOffset", False),
    "GeometryIndex": ("GeometryIndex", False), "PrimitiveIndex": ("PrimitiveIndex", False),
    "ObjectRayOrigin": ("ObjectRayOrigin", False), "ObjectRayDirection": ("ObjectRayDirection", False),
    "ObjectToWorld4x3": ("ObjectToWorld", False), "ObjectToWorld3x4": ("ObjectToWorld", True),
    "WorldToObject4x3": ("WorldToObject", False), "WorldToObject3x4": ("WorldToObject", True),
    "TriangleBarycentrics": ("Barycentrics", False), "TriangleFrontFace": ("FrontFace", False),
}

RAYQUERY_LOWERINGS: dict[str, Lowering] = {
    "TraceRayInline": _trace,
    "Proceed": _get("OpRayQueryProceedKHR"),
    "Abort": _void("OpRayQueryTerminateKHR"),
    "CommitNonOpaqueTriangleHit": _void("OpRayQueryConfirmIntersectionKHR"),
    "CommitProceduralPrimitiveHit": _void("OpRayQueryGenerateIntersectionKHR"),
    "CandidateType": _get("OpRayQueryGetIntersectionTypeKHR", _CANDIDATE),
    "CommittedStatus": _get("OpRayQueryGetIntersectionTypeKHR", _COMMITTED),
    "CandidateProceduralPrimitiveNonOpaque": _get("OpRayQueryGetIntersectionCandidateAABBOpaqueKHR", negate=True),
    "CandidateTriangleRayT": _get("OpRayQueryGetIntersectionTKHR", _CANDIDATE),
    "CommittedRayT": _get("OpRayQueryGetIntersectionTKHR", _COMMITTED),
    "RayFlags": _get("OpRayQueryGetRayFlagsKHR"),
    "RayTMin": _get("OpRayQueryGetRayTMinKHR"),
    "WorldRayOrigin": _get("OpRayQueryGetWorldRayOriginKHR"),
    "WorldRayDirection": _get("OpRayQueryGetWorldRayDirectionKHR"),
    **{f"Candidate{k}": _get(f"OpRayQueryGetIntersection{op}KHR", _CANDIDATE, t) for k, (op, t) in _HIT.items()},
    **{f"Committed{k}": _get(f"OpRayQueryGetIntersection{op}KHR", _COMMITTED, t) for k, (op, t) in _HIT.items()},
}
assert set(RAYQUERY_LOWERINGS) == set(RAYQUERY_METHODS)

__all__ = ["RAYQUERY_LOWERINGS"]
