"""Binding manifest: the JSON reflection written beside every binary."""

from .manifest import build_manifest

__all__ = ["build_manifest"]
