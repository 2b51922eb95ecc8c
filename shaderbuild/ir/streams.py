"""The geometry-shader tables: stream kinds (their output topology and methods) and
input primitives (their vertex counts).  Sema, the entry wrapper, both backends and the
manifest read them; the target's numbers for each row live in its backend."""

from __future__ import annotations

__all__ = ["STREAM_KINDS", "STREAM_METHODS", "INPUT_PRIMITIVES"]

# HLSL stream kind -> output topology ('point' | 'line' | 'triangle' strips)
STREAM_KINDS: dict[str, str] = {"PointStream": "point", "LineStream": "line", "TriangleStream": "triangle"}

# HLSL stream method -> IR intrinsic name; both take the stream place first
STREAM_METHODS: dict[str, str] = {"Append": "StreamAppend", "RestartStrip": "StreamRestart"}

# input primitive modifier of a GS parameter -> vertices per primitive
INPUT_PRIMITIVES: dict[str, int] = {"point": 1, "line": 2, "triangle": 3, "lineadj": 4, "triangleadj": 6}
