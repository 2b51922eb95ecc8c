"""SPIR-V module builder, generated grammar tables and disassembler."""

from __future__ import annotations

import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from harness.tools import spirv_dis, spirv_val
from shaderbuild_spirv import grammar
from shaderbuild_spirv.builder import ModuleBuilder, enum, inst, string_words
from shaderbuild_spirv.disasm import disassemble

GEN = Path(__file__).resolve().parents[2] / "plugins" / "spirv" / "tools" / "gen_grammar.py"
GRAMMAR_DIR = Path("/usr/include/spirv/unified1")


def test_grammar_tables_have_the_spec_values():
    assert grammar.MAGIC == 0x07230203
    assert grammar.OPCODES["OpIAdd"] == 128 and grammar.OPCODES["OpFunctionEnd"] == 56
    assert grammar.INSTRUCTIONS[128] == ("OpIAdd", ("IdResultType", "IdResult", "IdRef", "IdRef"))
    assert grammar.ENUMS["Decoration"]["BuiltIn"] == 11
    assert grammar.ENUM_PARAMS["Decoration"][11] == ("BuiltIn",)
    assert grammar.ENUMS["BuiltIn"]["GlobalInvocationId"] == 28
    assert grammar.ENUMS["MemorySemantics"]["WorkgroupMemory"] == 0x100
    assert grammar.GLSL_STD_450["FClamp"] == 43 and grammar.GLSL_STD_450["InverseSqrt"] == 32


@pytest.mark.skipif(not (GRAMMAR_DIR / "spirv.core.grammar.json").exists(), reason="spirv-headers not installed")
def test_committed_grammar_module_matches_the_generator():
    sys.path.insert(0, str(GEN.parent))
    try:
        import gen_grammar
    finally:
        sys.path.pop(0)
    assert gen_grammar.generate(GRAMMAR_DIR) == Path(grammar.__file__).read_text()


def test_grammar_imports_quickly():
    code = "import time; t=time.perf_counter(); import shaderbuild_spirv.grammar; print(time.perf_counter()-t)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert float(out.stdout) < 0.25   # generous: no bytecode cache in some environments


def test_instruction_encoding_and_strings():
    assert string_words("main") == [int.from_bytes(b"main", "little"), 0]
    assert string_words("abc") == [int.from_bytes(b"abc\0", "little")]
    words = inst("OpName", [5, "ab"])
    assert words[0] == (3 << 16) | grammar.OPCODES["OpName"]
    assert inst("OpTypeInt", [1, 32, 1]) == [(4 << 16) | 21, 1, 32, 1]
    assert inst("OpConstant", [1, 2, -1])[-1] == 0xFFFFFFFF


def _tiny_module(version=(1, 3)) -> bytes:
    b = ModuleBuilder(version)
    b.capability("Shader")
    b.capability("Shader")                       # deduplicated
    void = b.type("OpTypeVoid")
    assert b.type("OpTypeVoid") == void          # interned
    fn_t = b.type("OpTypeFunction", void)
    uint = b.type("OpTypeInt", 32, 0)
    c1 = b.constant("OpConstant", uint, 7)
    assert b.constant("OpConstant", uint, 7) == c1
    assert b.constant("OpConstant", uint, 8) != c1
    fid = b.new_id()
    b.name(fid, "main")
    b.entry_point("GLCompute", fid, "main", [])
    b.execution_mode(fid, "LocalSize", 1, 1, 1)
    b.decorate(c1, "RelaxedPrecision")
    b.decorate(c1, "RelaxedPrecision")           # deduplicated
    b.functions += inst("OpFunction", [void, fid, enum("FunctionControl", "None"), fn_t])
    b.functions += inst("OpLabel", [b.new_id()]) + inst("OpReturn", []) + inst("OpFunctionEnd", [])
    return b.assemble()


def test_builder_header_sections_and_validity():
    binary = _tiny_module()
    magic, version, generator, bound, schema = struct.unpack("<5I", binary[:20])
    assert (magic, version, generator, schema) == (0x07230203, 0x00010300, 0, 0)
    assert bound == 8   # void, fn type, uint, 7, 8, main, label: ids 1..7
    spirv_val(binary, "vulkan1.1")
    text = disassemble(binary)
    assert text.count("OpCapability Shader") == 1
    assert text.count("RelaxedPrecision") == 1
    ops = re.findall(r"\bOp\w+", text)
    order = [ops.index(o) for o in ("OpCapability", "OpMemoryModel", "OpEntryPoint", "OpExecutionMode", "OpName",
                                    "OpDecorate", "OpTypeVoid", "OpFunction")]
    assert order == sorted(order)
    assert _tiny_module() == binary   # deterministic


def _opnames(text: str) -> list[str]:
    return [m.group(0) for line in text.splitlines() if not line.startswith(";")
            for m in [re.search(r"\bOp\w+", line)] if m]


@pytest.mark.spirv_tools
def test_disassembler_agrees_with_spirv_dis():
    """Same instruction sequence and the same literal operands as spirv-dis on a real module."""
    sys.path.insert(0, str(Path(__file__).parent))
    from irbuild import spirv
    from test_spirv_lower import pixel_module, simple_compute
    for module in (simple_compute(), pixel_module()):
        binary = spirv(module)
        ours, theirs = disassemble(binary), spirv_dis(binary)
        assert _opnames(ours) == _opnames(theirs)
        lits = re.compile(r'"[^"]*"|\b(?:LocalSize|Location|Binding|DescriptorSet|Offset|ArrayStride)\s+\d+')
        assert lits.findall(ours) == lits.findall(theirs)


def test_disassembler_rejects_garbage():
    with pytest.raises(ValueError, match="magic"):
        disassemble(b"\0" * 20)
    with pytest.raises(ValueError, match="size"):
        disassemble(b"\x03\x02\x23\x07")


def test_scalar_constants_are_remembered_by_value_but_signed_zeros_stay_apart():
    """TypeLowering remembers scalar constants by value; 0.0 == -0.0 in Python, so the two float
    zeros must still become two constants (bits 0x00000000 and 0x80000000), whichever comes first."""
    from shaderbuild_spirv.emit_types import TypeLowering

    from shaderbuild.ir.types import BOOL, FLOAT, INT, UINT

    for first, second in ((0.0, -0.0), (-0.0, 0.0)):
        b = ModuleBuilder()
        T = TypeLowering(b)
        a, c = T.scalar_const(FLOAT, first), T.scalar_const(FLOAT, second)
        assert a != c
        assert T.scalar_const(FLOAT, first) == a and T.scalar_const(FLOAT, second) == c
        words = {w[1]: w[2] for w in _constants(b.globals)}
        assert words[a] == struct.unpack("<I", struct.pack("<f", first))[0]
        assert words[c] == struct.unpack("<I", struct.pack("<f", second))[0]
    b = ModuleBuilder()
    T = TypeLowering(b)
    one_f, one_i, one_u = T.scalar_const(FLOAT, 1), T.scalar_const(INT, 1), T.scalar_const(UINT, 1.0)
    assert len({one_f, one_i, one_u}) == 3                   # same value, three types
    assert T.scalar_const(FLOAT, 1.0) == one_f and T.scalar_const(BOOL, True) != T.scalar_const(BOOL, False)
    assert {w[1]: w[2] for w in _constants(b.globals)}[one_f] == 0x3F800000


def _constants(words: list[int]) -> list[list[int]]:
    """The operand words of each OpConstant in an instruction stream."""
    out, i = [], 0
    while i < len(words):
        n = words[i] >> 16
        if words[i] & 0xFFFF == grammar.OPCODES["OpConstant"]:
            out.append(words[i + 1:i + n])
        i += n
    return out
