"""Shared fixtures: the Vulkan runner (lavapipe), tool markers, and importability of tests/harness.

tests/ is deliberately not a package; this directory is put on sys.path so test modules
can `from harness import ...` whether pytest runs from the repo root or from tests/.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

# every DXIL compile in the test suite runs the backend's full self-check (check.py: every
# instruction, as `--validate` does); subprocesses (CLI tests) inherit it
os.environ.setdefault("SHADERBUILD_VALIDATE", "1")

TESTS_DIR = Path(__file__).resolve().parent
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))

from harness import tools  # noqa: E402

MARKERS = {
    "vulkan": "executes SPIR-V on lavapipe (needs PyPI vulkan + mesa-vulkan-drivers)",
    "spirv_tools": "needs spirv-val/spirv-dis/spirv-cross/glslangValidator",
    "llvm": "needs the llvm-19 tools (obj2yaml-19, llvm-bcanalyzer-19, llvm-dis-19, lli-19)",
}


def pytest_configure(config: pytest.Config) -> None:
    for name, doc in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {doc}")


@pytest.fixture(scope="session")
def vk():
    """The harness.vulkan_runner module, with its worker stopped at session end."""
    try:
        import vulkan  # noqa: F401  (only checks the binding is installed; the worker uses it)
    except ImportError:
        tools.missing_dependency("PyPI package 'vulkan'")
    from harness import vulkan_runner

    icd = os.environ.get("SHADERBUILD_VK_ICD", vulkan_runner.LAVAPIPE_ICD)
    if not os.path.exists(icd):
        tools.missing_dependency(f"Vulkan ICD {icd} (apt mesa-vulkan-drivers)")
    yield vulkan_runner
    vulkan_runner.shutdown()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """Raise a DXIL-twin failure that res_util deferred during the test body (after the body, so the
    SPIR-V checks of the test still ran; see res_util.DxilBug)."""
    res_util = sys.modules.get("res_util")
    if res_util is not None:
        res_util.take_deferred()
    out = yield
    res_util = sys.modules.get("res_util")   # the test body may have imported it
    if res_util is not None:
        pending = res_util.take_deferred()
        if pending:
            raise pending[0]
    return out


def pytest_terminal_summary(terminalreporter) -> None:
    """How many DXIL twins of the resource corpus ran, and which were excluded and why (never silent)."""
    tr = terminalreporter
    consumer = sys.modules.get("harness.dxil_consumer")
    if consumer is not None and (consumer.STATS.converted or consumer.LIMIT_HITS):
        tr.write_sep("-", "DXIL through dxil-spirv (vkd3d-proton's DXIL front end)")
        for line in consumer.summary_lines():
            tr.write_line(line)
    res_util, dxil_run = sys.modules.get("res_util"), sys.modules.get("dxil_run")
    if res_util is None or (not res_util.EXCLUDED and dxil_run is None):
        return
    tr.write_sep("-", "DXIL twins of the resource corpus")
    for reason, n in sorted(res_util.EXCLUDED.items()):
        tr.write_line(f"not compiled for DXIL ({n}): {reason}")
    if dxil_run is not None:
        tr.write_line(f"executed on the interpreter and compared with lavapipe: {dxil_run.RAN[0]}")
        for key, n in sorted(dxil_run.NOT_RUN.items()):
            tr.write_line(f"not executed ({n}): {key}: {dxil_run.NOT_EXECUTABLE[key.split(' (')[0]]}")


# every compilation in the test suite checks the IR after sema and after each shared pass
# (shaderbuild/ir/validate.py); subprocesses (CLI tests) inherit it
os.environ.setdefault("SHADERBUILD_VALIDATE_IR", "1")
