"""The Python API (shaderbuild/api.py, docs/API.md): the documented example runs and prints
what the compiler really produced; results equal the command line's; the import stays lazy."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import shaderbuild

REPO = Path(__file__).resolve().parents[2]


def test_the_documented_example_runs(tmp_path):
    doc = (REPO / "docs/API.md").read_text()
    [example] = re.findall(r"```python\n(.*?)```", doc, re.S)
    script = tmp_path / "example.py"
    script.write_text(example)
    p = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("spirv: ") and "compute, numthreads (64, 1, 1)" in lines[0]
    # the resource lines: registers as declared, Unused flagged
    assert re.search(r"Input\s+t0 space0 .* used$", p.stdout, re.M)
    assert re.search(r"Unused\s+t1 space0 .* unused$", p.stdout, re.M)
    # D3D packs `count` right after the float4; the Vulkan (std140) view too
    assert "Params members: [('scale', 0, 0), ('count', 16, 16)]" in p.stdout
    assert any(line.startswith("dxil: ") for line in lines)
    assert "bad.hlsl:1:" in p.stdout and "CompileFailed: bad.hlsl:1:" in p.stdout


def test_api_equals_the_command_line(tmp_path):
    src = tmp_path / "k.hlsl"
    src.write_text("#include \"inc.hlsli\"\nRWStructuredBuffer<uint> o : register(u0);\n"
                   "[numthreads(1, 1, 1)] void main() { o[0] = K; }\n")
    (tmp_path / "inc.hlsli").write_text("#define K 5\n")
    for target in ("spirv", "dxil"):
        r = shaderbuild.compile_file(src, profile="cs_6_0", target=target)
        assert r.ok and r.manifest is not None
        out = tmp_path / f"k.{target}"
        man = tmp_path / f"k.{target}.json"
        p = subprocess.run([sys.executable, "-m", "shaderbuild", "compile", str(src), "-T", "cs_6_0", "--target", target,
                            "-o", str(out), "--manifest", str(man)], capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        assert r.binary == out.read_bytes()
        assert r.manifest.to_json() == man.read_text()
        assert sorted(Path(d).name for d in r.dependencies) == ["inc.hlsli", "k.hlsl"]


def test_options_and_diagnostics():
    text = "RWStructuredBuffer<int> o : register(u0);\n[numthreads(1, 1, 1)] void main() { int2 v = int3(1, 2, 3); o[0] = v.x; }\n"
    r = shaderbuild.compile_source(text, profile="cs_6_0")
    assert r.ok and [w.message for w in r.warnings] == ["implicit truncation of vector type"]
    assert r.warnings[0].loc.line == 2
    strict = shaderbuild.compile_source(text, profile="cs_6_0", warnings_as_errors=True)
    assert not strict.ok and strict.binary is None and strict.manifest is None
    with pytest.raises(shaderbuild.CompileFailed) as exc:
        strict.raise_for_errors()
    assert "shader.hlsl:2:" in str(exc.value) and exc.value.diagnostics == strict.diagnostics
    assert shaderbuild.compile_source(text, profile="cs_6_0", disabled_warnings=["conversion"]).warnings == []
    with pytest.raises(TypeError, match="unknown compile option.*no_such_option"):
        shaderbuild.compile_source(text, profile="cs_6_0", no_such_option=1)


def test_import_shaderbuild_stays_lazy():
    code = ("import sys, shaderbuild; "
            "print(sorted(m for m in sys.modules if m.startswith('shaderbuild.') or m in ('typing', 'dataclasses')))")
    p = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60,
                       env={"PYTHONPATH": str(REPO)})
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]"
    with pytest.raises(AttributeError):
        shaderbuild.no_such_name  # noqa: B018
