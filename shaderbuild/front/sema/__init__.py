"""Semantic analysis: resolves names, types, conversions and overloads while
lowering the syntax tree to the IR (see lower.py)."""

from .lower import analyze

__all__ = ["analyze"]
