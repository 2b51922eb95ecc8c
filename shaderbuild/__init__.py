"""shaderbuild: an HLSL compiler and shader build tool written in Python."""

__version__ = "0.1.0"
