"""What lowering hands to the later stages (analysis, metadata, writer, verifier): the LLVM
module with its entry function and the facts about it.  Defined below the lowering modules so
that the stages after lowering never import the lowerer."""

from __future__ import annotations

from dataclasses import dataclass, field

from shaderbuild import ir
from shaderbuild.ir import TessInfo

from .container import StreamViewIdTables, ViewIdTables
from .llvm.module import Module as LLModule
from .llvm.values import Function
from .ops import OpEmitter
from .resources import ResourceInfo
from .signature import SigElement

__all__ = ["LoweredModule", "LibraryFunction"]


@dataclass(slots=True)
class LibraryFunction:
    """One exported shader of a library (-T lib_6_x): its function and the facts its entry
    properties and RDAT record carry."""

    function: Function
    name: str
    kind: str                       # 'raygeneration' | 'closesthit' | ... (ir/raytracing.py)
    payload_size: int = 0           # payload (callable: parameter) size in bytes
    attribute_size: int = 0
    resources: list[ResourceInfo] = field(default_factory=list)    # the resources it uses


@dataclass(slots=True)
class LoweredModule:
    llmod: LLModule
    entry: Function
    ops: OpEmitter
    resources: list[ResourceInfo]
    inputs: list[SigElement]
    outputs: list[SigElement]
    stage: str
    sm: tuple[int, int]
    native16: bool
    numthreads: tuple[int, int, int]
    group_shared_bytes: int = 0
    uses: set[str] = field(default_factory=set)       # feature notes: 'int64', 'double', 'wave', ...
    features: frozenset[str] | None = None            # memo of dxmeta._used_features
    # viewid.ViewIdState (graphics stages) / StreamsViewIdState (geometry), set by the backend
    view_id: ViewIdTables | StreamViewIdTables | None = None
    # hull/domain shaders: the patch-constant signature, the hull shader's patch-constant function,
    # the tessellation attributes (shaderbuild.ir.TessInfo)
    patch_constants: list[SigElement] = field(default_factory=list)
    patch_function: Function | None = None
    tess: TessInfo | None = None
    geometry: ir.GeometryInfo | None = None           # a geometry shader's attributes, primitive, streams
    # a library: its exported shaders (entry is the first one's function) and state-object subobjects
    library: list[LibraryFunction] = field(default_factory=list)
    subobjects: list = field(default_factory=list)    # shaderbuild.ir.Subobject
    payload_access: list = field(default_factory=list)  # shaderbuild.ir.Module.payload_access
