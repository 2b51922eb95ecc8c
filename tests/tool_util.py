"""Helpers for tests that drive external build tools (a C compiler, make, CMake)."""

from __future__ import annotations

import shutil

import pytest


def c_compiler() -> str:
    """A C compiler on PATH (CI: gcc from build-essential, or clang-19)."""
    for name in ("cc", "gcc", "clang", "clang-19"):
        if shutil.which(name):
            return name
    pytest.fail("a C compiler is required for this test (apt-get install gcc or clang-19)")
