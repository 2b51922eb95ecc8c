"""The geometry-shader facts sema and the entry wrapper share: the stream kinds (rows of the
resource-kind table, ir/resource_kinds.py, with their output topology; their methods are in the
intrinsic table, ir/intrinsics.py) and the input primitives.  The target's numbers for each live in
its backend."""

from __future__ import annotations

from .resource_kinds import KINDS

__all__ = ["STREAM_KINDS", "INPUT_PRIMITIVES"]

# stream kind -> output topology ('point' | 'line' | 'triangle' strips)
STREAM_KINDS: dict[str, str] = {k.name: k.topology for k in KINDS.values() if k.topology is not None}

# input primitive modifier of a GS parameter -> vertices per primitive
INPUT_PRIMITIVES: dict[str, int] = {"point": 1, "line": 2, "triangle": 3, "lineadj": 4, "triangleadj": 6}
