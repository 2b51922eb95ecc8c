"""The function lowerer as the modules it calls see it: places (places.py), buffer access
(buffers.py) and intrinsic handlers (intrinsics.py) receive a `Lowering` and use only what is
listed here.  lower.FunctionLowerer implements it; defining the interface below those modules
keeps them from importing the lowerer (no import cycle), and says what each may reach."""

from __future__ import annotations

from shaderbuild import ir

from .llvm.values import Value
from .ops import OpEmitter
from .ssa import EdgeRecordingBuilder, SSABuilder

__all__ = ["Lowering", "BufferIO"]

TYPE_CHECKING = False
if TYPE_CHECKING:     # for mypy only: typing and Protocol classes would cost a cold compile ~2 ms
    from typing import Any, Protocol

    class BufferIO(Protocol):
        """Reads and writes of buffer and cbuffer places (buffers.BufferAccess)."""

        def read(self, p: Any) -> list[Value]: ...                   # p: places.BufferPlace

        def write(self, p: Any, values: list[Value], comps: list[int] | None) -> None: ...

        def read_cbuffer(self, p: Any) -> list[Value]: ...           # p: places.CBufPlace


    class Lowering(Protocol):
        """What places, buffer access and intrinsic handlers may use of the function lowerer.
        Places are typed `Any` here (they are defined above this module, in places.py)."""

        b: EdgeRecordingBuilder              # the builder at the current block
        ops: OpEmitter                       # dx.op declarations and calls
        ssa: SSABuilder | None               # locals as SSA values (None: without optimisation)
        sm: tuple[int, int]
        native16: bool
        optimize: bool

        @property
        def buffers(self) -> BufferIO: ...   # read-only here, so that BufferAccess satisfies it

        def expr(self, e: ir.Expr) -> list[Value]: ...

        def place(self, e: ir.Expr) -> Any: ...

        def resource_place(self, e: ir.Expr) -> Any: ...

        def handle(self, p: Any) -> Value: ...

        def ray_query(self, e: ir.Expr) -> Value: ...                # a RayQuery local's allocateRayQuery handle

        def io_read(self, p: Any) -> list[Value]: ...

        def io_write(self, p: Any, values: list[Value], comps: list[int] | None) -> None: ...

        def io_evaluate(self, p: Any, op: str, extra: list[Value]) -> list[Value]: ...

        def payload_pointer(self, var: ir.Variable) -> Value: ...     # an amplification shader's payload global

        def add(self, a: Value, b: Value) -> Value: ...

        def add_const(self, a: Value, k: int) -> Value: ...

        def mul(self, a: Value, b: Value) -> Value: ...

        def mul_add(self, idx: Value, m: int, k: int) -> Value: ...

        def truthy(self, v: Value) -> Value: ...

        def convert_scalar(self, v: Value, s: ir.Scalar, d: ir.Scalar) -> Value: ...

        def alloca(self, t: Any) -> Value: ...          # t: an LLVM type; the alloca sits in the entry block

        def write_back_payload(self) -> None: ...       # a ray-tracing entry: its payload back to the caller

        # branches inside an expression (an atomic exchange on a component chosen at run time); bb: BasicBlock
        def new_block(self, name: str = "") -> Any: ...

        def seal(self, bb: Any) -> None: ...

        def set_block(self, bb: Any) -> None: ...

        def branch_to(self, bb: Any) -> None: ...

        def enter_join(self, bb: Any) -> None: ...
