"""-Zi debug information, checked against the source by tools we did not write.

The line numbers of every statement of a small hand-written shader (and of the function it
includes) are computed here from the source text alone (a statement line ends in ';' or starts
an `if`/`for`), and compared with the lines spirv-dis shows in the SPIR-V DebugLine
instructions and llvm-dis-19 shows in the DXIL debug bitcode's DILocations (of the ILDB part).
The -Zi SPIR-V runs on lavapipe and gives the same results as the build without -Zi and as
the values computed here.
"""

from __future__ import annotations

import os
import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from harness import tools
from harness.dxil_tools import check_dxil, llvm_dis, patch_datalayout_i8

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

ROOT = Path(__file__).resolve().parents[2]

HELPER = """\
float twice(float v, float k)
{
    float w = v * k;
    return w + w;
}
"""

SAMPLE = """\
// debug info sample: one statement per line
#include "helper.hlsli"

StructuredBuffer<float> In : register(t0);
RWStructuredBuffer<float> Out : register(u1);

[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float a = In[id.x];
    float b = twice(a, In[8]);
    if (a > b)
    {
        Out[id.x + 4] = a;
    }
    for (uint i = 0; i < id.x; ++i)
    {
        b = b + In[i];
    }
    Out[id.x] = a + b;
}
"""
IN_VALUES = [1.5, -2.0, 3.25, 0.5, 7.0, 0.0, 0.0, 0.0, 0.75]


def statement_lines(text: str) -> set[int]:
    """Lines of statements inside function bodies: they end in ';' or open an if/for."""
    lines, depth = set(), 0
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if depth > 0 and (s.endswith(";") or s.startswith(("if (", "for ("))):
            lines.add(n)
        depth += s.count("{") - s.count("}")
    return lines


EXPECTED = {("sample.hlsl", n) for n in statement_lines(SAMPLE)} | \
           {("helper.hlsli", n) for n in statement_lines(HELPER)}


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    (tmp_path / "sample.hlsl").write_text(SAMPLE)
    (tmp_path / "helper.hlsli").write_text(HELPER)
    monkeypatch.chdir(tmp_path)       # the path is given as "sample.hlsl", as on a command line
    return tmp_path


def compile_ok(target: str, **opts):
    res = compile_file("sample.hlsl", CompileOptions(profile="cs_6_0", target=target, **opts))
    assert res.ok, [str(d) for d in res.diagnostics]
    return res


def test_statement_lines_of_the_sample():
    """The independent computation itself, on the sample: 7 statements in main, 2 in twice."""
    assert statement_lines(SAMPLE) == {10, 11, 12, 14, 16, 18, 20}
    assert statement_lines(HELPER) == {3, 4}


# ------------------------------------------------------------------ SPIR-V

def _spirv_text(binary: bytes) -> str:
    tools.spirv_val(binary, "vulkan1.1")
    with tools.TempInput(binary, ".spv") as path:
        return tools.run_tool(["spirv-dis", "--raw-id", str(path)]).stdout.decode()


def _unescape(s: str) -> str:
    return re.sub(r"\\(.)", r"\1", s)


def _spirv_records(text: str) -> tuple[dict, dict, dict]:
    """(OpString id -> text, OpConstant id -> literal, DebugSource id -> file name)."""
    strings = {m[1]: _unescape(m[2]) for m in re.finditer(r'(%\d+) = OpString "((?:[^"\\]|\\.)*)"', text)}
    consts = {m[1]: m[2] for m in re.finditer(r"(%\d+) = OpConstant %\d+ (-?[\d.e+-]+)\n", text)}
    sources = {m[1]: strings[m[2]] for m in re.finditer(r"(%\d+) = OpExtInst %\d+ %\d+ DebugSource (%\d+)", text)}
    return strings, consts, sources


def test_spirv_debug_lines_are_the_statements(project):
    text = _spirv_text(compile_ok("spirv", debug_info=True).binary)
    _strings, consts, sources = _spirv_records(text)
    lines = {(sources[m[1]], int(consts[m[2]]))
             for m in re.finditer(r"DebugLine (%\d+) (%\d+) (%\d+) (%\d+) (%\d+)", text)}
    assert lines == EXPECTED
    assert "DebugNoLine" in text        # the entry wrapper's I/O copies have no source line


def test_spirv_debug_records(project):
    text = _spirv_text(compile_ok("spirv", debug_info=True).binary)
    strings, consts, sources = _spirv_records(text)
    assert 'OpExtension "SPV_KHR_non_semantic_info"' in text
    assert 'OpExtInstImport "NonSemantic.Shader.DebugInfo.100"' in text
    # each file's DebugSource carries its text
    texts = {strings[m[2]]: strings[m[3]] for m in
             re.finditer(r"(%\d+) = OpExtInst %\d+ %\d+ DebugSource (%\d+) (%\d+)", text)}
    assert texts == {"sample.hlsl": SAMPLE, "helper.hlsli": HELPER}
    for name in ("DebugCompilationUnit", "DebugTypeBasic", "DebugTypeVector", "DebugTypeFunction",
                 "DebugFunctionDefinition", "DebugScope", "DebugEntryPoint", "DebugExpression"):
        assert f" {name} " in text or f" {name}\n" in text, name
    functions = {strings[m[1]]: int(consts[m[2]]) for m in
                 re.finditer(r"DebugFunction (%\d+) %\d+ %\d+ (%\d+)", text)}
    assert functions["twice"] == 1 and functions["src.main"] == 8
    variables = {(strings[m[1]], sources[m[2]], int(consts[m[3]])) for m in
                 re.finditer(r"DebugLocalVariable (%\d+) %\d+ (%\d+) (%\d+)", text)}
    assert {("a", "sample.hlsl", 10), ("b", "sample.hlsl", 11), ("i", "sample.hlsl", 16),
            ("id", "sample.hlsl", 8), ("v", "helper.hlsli", 1), ("k", "helper.hlsli", 1),
            ("w", "helper.hlsli", 3)} <= variables
    assert text.count(" DebugDeclare ") >= 7


def test_spirv_without_zi_has_no_debug_info(project):
    binary = compile_ok("spirv").binary
    assert b"NonSemantic.Shader.DebugInfo.100" not in binary and b"SPV_KHR_non_semantic_info" not in binary


# ------------------------------------------------------------------ DXIL

def _parts(blob: bytes) -> dict[str, bytes]:
    count = struct.unpack_from("<I", blob, 28)[0]
    parts = {}
    for k in range(count):
        off = struct.unpack_from("<I", blob, 32 + 4 * k)[0]
        name, size = blob[off:off + 4].decode(), struct.unpack_from("<I", blob, off + 4)[0]
        parts[name] = blob[off + 8:off + 8 + size]
    return parts


def _program_bitcode(part: bytes) -> bytes:
    """The bitcode of a DXIL/ILDB part: after the program header, at its offset/size fields."""
    offset, size = struct.unpack_from("<II", part, 16)
    return part[8 + offset:8 + offset + size]


def _debug_name(part: bytes) -> str:
    flags, length = struct.unpack_from("<HH", part)
    assert flags == 0 and part[4 + length] == 0 and len(part) % 4 == 0
    return part[4:4 + length].decode()


def _llvm_dis_checked(bitcode: bytes) -> str:
    """llvm-dis-19 text; its verifier drops debug info it finds invalid, with a warning: none allowed."""
    with tools.TempInput(patch_datalayout_i8(bitcode), ".bc") as path:
        proc = tools.run_tool(["llvm-dis-19", str(path), "-o", "-"])
    assert b"invalid debug info" not in proc.stderr, proc.stderr.decode()
    return proc.stdout.decode()


def _dxil_locations(ir: str) -> set[tuple[str, int]]:
    """(file, line) of every DILocation, the file being its scope's DISubprogram's DIFile."""
    nodes = dict(re.findall(r"^(!\d+) = (.*)$", ir, re.M))
    files = {k: re.search(r'filename: "([^"]*)"', v)[1] for k, v in nodes.items() if "!DIFile(" in v}
    sp_file = {k: files[re.search(r"file: (!\d+)", v)[1]] for k, v in nodes.items() if "!DISubprogram(" in v}
    return {(sp_file[m[2]], int(m[1])) for v in nodes.values()
            for m in [re.search(r"!DILocation\(line: (\d+), column: \d+, scope: (!\d+)", v)] if m}


def test_dxil_debug_lines_are_the_statements(project):
    blob = compile_ok("dxil", debug_info=True, embed_debug=True).binary
    check_dxil(blob)                                  # obj2yaml, bcanalyzer and llvm-dis read it
    parts = _parts(blob)
    ir = _llvm_dis_checked(_program_bitcode(parts["ILDB"]))
    assert _dxil_locations(ir) == EXPECTED
    assert re.search(r'!DISubprogram\(name: "main",.*spFlags: DISPFlagDefinition, unit: !\d+, retainedNodes: !\d+\)', ir)
    assert re.search(r'define void @main\(\) !dbg !\d+', ir)
    assert re.search(r'!DISubprogram\(name: "twice",', ir)
    assert "!llvm.dbg.cu = !{" in ir
    assert '!"Dwarf Version", i32 4}' in ir and '!"Debug Info Version", i32 3}' in ir
    assert re.search(r'^!dx.source.mainFileName = !{(!\d+)}', ir, re.M)
    assert '!{!"sample.hlsl"}' in ir
    assert re.search(r'!\{!"-E", !"main", !"-T", !"cs_6_0", !"-Zi", !"-Qembed_debug"\}', ir)
    contents = re.search(r"^!dx.source.contents = !\{(.*)\}$", ir, re.M)[1].split(", ")
    assert len(contents) == 2
    nodes = dict(re.findall(r"^(!\d+) = (.*)$", ir, re.M))
    files = {k: re.search(r'filename: "([^"]*)"', v)[1] for k, v in nodes.items() if "!DIFile(" in v}
    variables = {(m[1], int(m[2] or 0), files[m[3]], int(m[4])) for v in nodes.values() for m in
                 [re.search(r'!DILocalVariable\(name: "(\w+)",(?: arg: (\d+),)? scope: !\d+, file: (!\d+), '
                            r'line: (\d+)', v)] if m}
    assert variables == {("id", 1, "sample.hlsl", 8), ("a", 0, "sample.hlsl", 10), ("b", 0, "sample.hlsl", 11),
                         ("i", 0, "sample.hlsl", 16), ("v", 1, "helper.hlsli", 1), ("k", 2, "helper.hlsli", 1),
                         ("w", 0, "helper.hlsli", 3)}
    # the SSA values of the locals: llvm.dbg.value (LLVM 19 prints them as #dbg_value records)
    named = {re.search(r'name: "(\w+)"', nodes[m[1]])[1] for m in re.finditer(r"#dbg_value\([^,]+, (!\d+),", ir)}
    assert {"a", "b", "w", "i"} <= named


def test_dxil_part_stays_without_debug_info(project):
    """The part drivers read is the build without -Zi, byte for byte; ILDB carries the debug module."""
    plain = _parts(compile_ok("dxil").binary)
    parts = _parts(compile_ok("dxil", debug_info=True, embed_debug=True).binary)
    assert parts["DXIL"] == plain["DXIL"]
    assert "ILDB" not in plain and "ILDN" not in plain
    assert list(parts) == ["SFI0", "ISG1", "OSG1", "PSV0", "ILDB", "ILDN", "HASH", "DXIL"]
    ir = llvm_dis(_program_bitcode(parts["DXIL"]))
    assert "!dbg" not in ir and "DILocation" not in ir and "dx.source" not in ir
    # the ILDB part has the DXIL part's program header (shader kind/model, DXIL version)
    assert parts["ILDB"][:4] == parts["DXIL"][:4] and parts["ILDB"][8:16] == parts["DXIL"][8:16]
    assert _debug_name(parts["ILDN"]).endswith(".pdb")


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "plugins" / "spirv"),
                                                        str(ROOT / "plugins" / "dxil")])}
    return subprocess.run([sys.executable, "-m", "shaderbuild", "compile", "sample.hlsl", "-T", "cs_6_0", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_fd_writes_the_debug_container(project):
    proc = _cli("--target", "dxil", "-Zi", "-Fd", "sample.pdb", "-o", "sample.dxil", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert "warning" not in proc.stderr
    main, pdb = _parts((project / "sample.dxil").read_bytes()), _parts((project / "sample.pdb").read_bytes())
    assert "ILDB" not in main and _debug_name(main["ILDN"]) == "sample.pdb"    # the name as given
    assert list(pdb) == ["ILDB", "ILDN"] and _debug_name(pdb["ILDN"]) == "sample.pdb"
    ir = _llvm_dis_checked(_program_bitcode(pdb["ILDB"]))
    assert _dxil_locations(ir) == EXPECTED
    check_dxil((project / "sample.dxil").read_bytes())


def test_zi_alone_embeds_with_a_warning_and_the_others_need_zi(project):
    proc = _cli("--target", "dxil", "-Zi", "-o", "a.dxil", cwd=project)
    assert proc.returncode == 0 and "warning: no output file specified for debug info" in proc.stderr
    assert "ILDB" in _parts((project / "a.dxil").read_bytes())
    proc = _cli("--target", "dxil", "-Zi", "-Qembed_debug", "-o", "b.dxil", cwd=project)
    assert proc.returncode == 0 and "warning" not in proc.stderr
    proc = _cli("--target", "dxil", "-Qembed_debug", "-o", "c.dxil", cwd=project)     # an error, as in DXC
    assert proc.returncode == 1 and "add -Zi" in proc.stderr and not (project / "c.dxil").exists()
    proc = _cli("--target", "dxil", "-Fd", "x.pdb", "-o", "d.dxil", cwd=project)
    assert proc.returncode == 0 and "warning: -Fd has no effect without -Zi" in proc.stderr
    assert not (project / "x.pdb").exists() and "ILDN" not in _parts((project / "d.dxil").read_bytes())


def test_debug_output_is_deterministic(project):
    for target, opts in (("spirv", {}), ("dxil", {"embed_debug": True})):
        first = compile_ok(target, debug_info=True, **opts).binary
        assert compile_ok(target, debug_info=True, **opts).binary == first
        assert str(project).encode() not in first        # no absolute path: the one given is relative


def test_dxil_spirv_converts_a_zi_container(project):
    tool = ROOT / ".ci" / "dxil-spirv" / "bin" / "dxil-to-spirv"
    if not tool.exists():
        tools.missing_dependency(f"{tool} (shared/tools/dxil-spirv/build.sh)")
    (project / "a.dxil").write_bytes(compile_ok("dxil", debug_info=True, embed_debug=True).binary)
    proc = subprocess.run([str(tool), "a.dxil", "a.spv"], cwd=project, capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    tools.spirv_val((project / "a.spv").read_bytes(), "vulkan1.1")


# ------------------------------------------------------------------ executed

def _expected_out() -> list[float]:
    """What the sample computes, from the source's arithmetic (float32 rounding at each step)."""
    def f32(x: float) -> float:
        return struct.unpack("<f", struct.pack("<f", x))[0]

    out = [0.0] * 8
    for x in range(4):
        a = IN_VALUES[x]
        w = f32(a * IN_VALUES[8])
        b = f32(w + w)
        if a > b:
            out[x + 4] = a
        for i in range(x):
            b = f32(b + IN_VALUES[i])
        out[x] = f32(a + b)
    return out


@pytest.mark.vulkan
def test_zi_spirv_runs_as_without(project, vk):
    results = []
    for debug in (False, True):
        res = compile_ok("spirv", debug_info=debug)
        tools.spirv_val(res.binary, "vulkan1.1")
        binding = {r["name"]: r["vulkan"] for r in res.manifest["resources"]}
        bufs = [vk.Buf(binding["In"]["set"], binding["In"]["binding"], struct.pack("<9f", *IN_VALUES)),
                vk.Buf(binding["Out"]["set"], binding["Out"]["binding"], bytes(32))]
        results.append(vk.run_compute(res.binary, "main", bufs)[1])
    assert results[0] == results[1]
    assert list(struct.unpack("<8f", results[1])) == _expected_out()


def test_fc_disassembly_names_the_debug_instructions_as_spirv_dis(project):
    """--Fc's disassembler names each extended instruction from its own set, as spirv-dis does."""
    res = compile_ok("spirv", debug_info=True)
    with tools.TempInput(res.binary, ".spv") as path:
        theirs = tools.run_tool(["spirv-dis", str(path)]).stdout.decode()
    names = re.compile(r"OpExtInst %\w+ %\w+ (\w+)")
    ours = names.findall(res.disassembly)
    assert ours == names.findall(theirs) and "DebugLine" in ours and "DebugEntryPoint" in ours


def test_dxil_only_debug_flags_warn_for_spirv(project):
    proc = _cli("-spirv", "-Zi", "-Fd", "x.pdb", "-o", "a.spv", cwd=project)
    assert proc.returncode == 0 and "warning: -Fd only applies to DXIL" in proc.stderr
    assert not (project / "x.pdb").exists()


def test_fd_directory_names_the_pdb_after_the_hash(project):
    """-Fd DIR/ (as ShaderMake passes it): DIR/<hash>.pdb, and ILDN names that file."""
    (project / "pdb").mkdir()
    proc = _cli("--target", "dxil", "-Zi", "-Fd", "pdb/", "-o", "sample.dxil", cwd=project)
    assert proc.returncode == 0, proc.stderr
    main = _parts((project / "sample.dxil").read_bytes())
    name = _debug_name(main["ILDN"])
    assert re.fullmatch(r"[0-9a-f]{32}\.pdb", name) and [p.name for p in (project / "pdb").iterdir()] == [name]
    assert _debug_name(_parts((project / "pdb" / name).read_bytes())["ILDN"]) == name


def _sample_project_builds():
    """(file, entry, profile, defines, {target: Vulkan target env}) of the sample project, its first
    permutations of each shader."""
    import itertools

    import tomllib

    cfg = tomllib.loads((ROOT / "sample_project" / "shaderbuild.toml").read_text())
    for sh in cfg["shader"]:
        files = sh["files"] if isinstance(sh["files"], list) else [sh["files"]]
        entries = sh["entry"] if isinstance(sh.get("entry"), list) else [{"name": sh.get("entry", "main"),
                                                                          "profile": sh["profile"]}]
        perms = {k: v for k, v in sh.get("permutations", {}).items() if isinstance(v, list)}
        combos = list(itertools.product(*perms.values()))[:2]
        env = sh.get("backends", {}).get("spirv", {}).get("target_env", cfg["backends"]["spirv"]["target_env"])
        targets = {t: env for t in sh.get("targets", ("spirv", "dxil"))}
        for f, e, combo in itertools.product(files, entries, combos):
            yield f, e["name"], e["profile"], {k: str(v) for k, v in zip(perms, combo)}, targets


def test_sample_project_with_debug_info(monkeypatch):
    """Every sample-project shader with -Zi: SPIR-V passes spirv-val, and llvm-dis-19 keeps the
    ILDB part's debug info (its verifier drops invalid debug info with a warning)."""
    from shaderbuild.options import BindingShift

    monkeypatch.chdir(ROOT / "sample_project")
    shifts = [BindingShift("t", 16, None), BindingShift("s", 32, None), BindingShift("u", 48, None)]
    n = 0
    for f, entry, profile, defines, targets in _sample_project_builds():
        for target, env in targets.items():
            res = compile_file(f, CompileOptions(entry=entry, profile=profile, target=target, defines=defines,
                                                 include_dirs=["shaders"], debug_info=True, embed_debug=True,
                                                 binding_shifts=shifts if target == "spirv" else [],
                                                 vk_target_env=env))
            assert res.ok, (f, entry, [str(d) for d in res.diagnostics])
            if target == "spirv":
                tools.spirv_val(res.binary, env)
            else:
                # kept, not stripped as invalid (a pass-through shader such as terrain's vs_main has only
                # the wrapper's I/O calls, which carry no line, so DILocation is not required)
                assert "DISubprogram" in _llvm_dis_checked(_program_bitcode(_parts(res.binary)["ILDB"]))
            n += 1
    assert n >= 26


def test_long_source_continues_in_debug_source_continued(project):
    """An OpString holds at most 65535 words: a long file goes on in DebugSourceContinued."""
    long = "// " + "x" * 200 + "\n"
    (project / "sample.hlsl").write_text(long * 400 + SAMPLE)
    text = _spirv_text(compile_ok("spirv", debug_info=True).binary)
    strings, _consts, _sources = _spirv_records(text)
    first = re.search(r"DebugSource %\d+ (%\d+)\n((?:.*DebugSourceContinued %\d+\n)*)", text)
    pieces = [strings[first[1]]] + [strings[m] for m in re.findall(r"DebugSourceContinued (%\d+)", first[2])]
    assert len(pieces) > 1 and "".join(pieces) == long * 400 + SAMPLE


def test_polyfilled_code_keeps_its_statements_line(project):
    """A polyfilled intrinsic's temporaries (lit() on SPIR-V) are part of the statement: its line,
    not DebugNoLine (which only the entry wrapper's I/O copies get)."""
    (project / "sample.hlsl").write_text(
        "StructuredBuffer<float> In : register(t0);\n"
        "RWStructuredBuffer<float> Out : register(u1);\n"
        "[numthreads(1, 1, 1)]\n"
        "void main(uint3 id : SV_DispatchThreadID)\n"
        "{\n"
        "    float4 r = lit(In[id.x], In[1], In[2]);\n"
        "    Out[id.x] = r.y + r.z;\n"
        "}\n")
    text = _spirv_text(compile_ok("spirv", debug_info=True).binary)
    _strings, consts, _sources = _spirv_records(text)
    body = text[text.index("OpFunction", text.index("= OpFunction")):]
    src_main = body[:body.index("OpFunctionEnd")]
    assert "DebugNoLine" not in src_main
    assert {int(consts[m]) for m in re.findall(r"DebugLine %\d+ (%\d+)", src_main)} == {6, 7}


RESOURCE_HELPER = """\
RWStructuredBuffer<float> Out : register(u1);
float pick(RWStructuredBuffer<float> b, uint i)
{
    if (i > 2)
        return b[i];
    return b[0] * 2.0;
}
[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    Out[id.x] = pick(Out, id.x);
}
"""


def test_functions_inlined_for_their_resource_parameters_keep_their_lines(project):
    """resource_locals inlines functions that take resources before the backends: their if and
    return statements keep their lines through the rewrite (returns become stores and breaks)."""
    (project / "sample.hlsl").write_text(RESOURCE_HELPER)
    text = _spirv_text(compile_ok("spirv", debug_info=True).binary)
    _strings, consts, _sources = _spirv_records(text)
    lines = {int(consts[m]) for m in re.findall(r"DebugLine %\d+ (%\d+)", text)}
    assert lines == statement_lines(RESOURCE_HELPER) == {4, 5, 6, 11}
    ir = _llvm_dis_checked(_program_bitcode(_parts(compile_ok("dxil", debug_info=True, embed_debug=True).binary)["ILDB"]))
    assert {line for _f, line in _dxil_locations(ir)} <= {4, 5, 6, 11} and {5, 6} <= {line for _f, line in _dxil_locations(ir)}
