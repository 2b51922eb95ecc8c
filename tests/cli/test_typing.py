"""mypy on the core and both backend plugins with the project's config ([tool.mypy] in
pyproject.toml), as CI runs it (mypy comes with the 'test' extra)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_mypy_is_clean():
    proc = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, f"mypy is not clean:\n{proc.stdout[-5000:]}{proc.stderr[-2000:]}"
    assert proc.stdout.splitlines()[-1].startswith("Success: no issues found"), proc.stdout[-2000:]
