"""What lowering hands to the later stages (analysis, metadata, writer, verifier): the LLVM
module with its entry function and the facts about it.  Defined below the lowering modules so
that the stages after lowering never import the lowerer."""

from __future__ import annotations

from shaderbuild import ir
from shaderbuild.ir import TessInfo
from shaderbuild.records import DataRecord, Record

from .llvm.module import Module as LLModule
from .llvm.values import Function
from .ops import OpEmitter
from .resources import ResourceInfo
from .signature import SigElement

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .container import StreamViewIdTables, ViewIdTables

__all__ = ["LoweredModule", "LibraryFunction"]


class LibraryFunction(DataRecord):
    """One exported shader of a library (-T lib_6_x): its function and the facts its entry
    properties and RDAT record carry."""

    function: Function
    name: str
    kind: str                       # 'raygeneration' | 'closesthit' | ... (ir/raytracing.py)
    payload_size: int = 0           # payload (callable: parameter) size in bytes
    attribute_size: int = 0
    resources: list[ResourceInfo] = Record.factory(list)    # the resources it uses


class LoweredModule(DataRecord):
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
    uses: set[str] = Record.factory(set)       # feature notes: 'int64', 'double', 'wave', ...
    features: frozenset[str] | None = None            # memo of dxmeta._used_features
    # viewid.ViewIdState (graphics stages) / StreamsViewIdState (geometry), set by the backend
    view_id: ViewIdTables | StreamViewIdTables | None = None
    # hull/domain shaders: the patch-constant signature, the hull shader's patch-constant function,
    # the tessellation attributes (shaderbuild.ir.TessInfo)
    patch_constants: list[SigElement] = Record.factory(list)
    patch_function: Function | None = None
    tess: TessInfo | None = None
    geometry: ir.GeometryInfo | None = None           # a geometry shader's attributes, primitive, streams
    # a library: its exported shaders (entry is the first one's function) and state-object subobjects
    library: list[LibraryFunction] = Record.factory(list)
    subobjects: list = Record.factory(list)    # shaderbuild.ir.Subobject
    mesh: ir.MeshInfo | None = None                   # a mesh / amplification shader's outputs and payload
    modes: tuple[str, ...] = ()                       # the entry's ir.EntryPoint.modes
    wave_size: tuple[int, ...] | None = None          # the entry's [WaveSize]
    payload_bytes: int = 0                            # the payload struct's size (context.payload_struct)
    payload_access: list = Record.factory(list)  # shaderbuild.ir.Module.payload_access
    res_may_alias: bool = False                       # -res-may-alias: no ResMayNotAlias shader flag
    all_resources_bound: bool = False                 # -all-resources-bound: the AllResourcesBound shader flag
