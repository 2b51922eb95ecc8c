"""Fuzzing for the compiler: generated well-typed HLSL (hlsl_gen), mutated seed shaders
(mutators), a subprocess worker pool with per-input timeouts (runner) and a long campaign
driver (`python -m tests.fuzz.campaign`).

tests/ is not a package; this package puts tests/ on sys.path so `harness` is importable
both under pytest (`from fuzz import ...`) and as `python -m tests.fuzz.campaign`.
"""

from __future__ import annotations

import sys
from pathlib import Path

TESTS_DIR = Path(__file__).resolve().parent.parent
REPO_DIR = TESTS_DIR.parent
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))
