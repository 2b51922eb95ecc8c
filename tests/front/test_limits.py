"""Resource limits end in clear, located errors (never a traceback, a hang or a crash), and odd
encodings (non-UTF-8, NUL, CRLF, BOM) are handled.

Limits: include depth, macro expansion depth and size, preprocessor-expression depth, nesting of
expressions, statements and types, array sizes, source size.  Each deep input is far beyond the
limit so the test pins the behaviour, not the exact threshold.  Bugs found here are tracked like
fuzz findings: a strict xfail naming the component until the fix lands.
"""

from __future__ import annotations

import re

import pytest
from fuzz.runner import FuzzInput, run_inputs

from shaderbuild.compiler import compile_file
from shaderbuild.diagnostics import Diagnostic
from shaderbuild.options import CompileOptions

HEAD = "RWStructuredBuffer<int> O : register(u0);\nint f(int x) { return x; }\n"
DEEP = 1000
ISOLATED_TIMEOUT = 15.0  # seconds; a compile at a limit takes milliseconds


def main_with(body: str, before: str = "") -> str:
    return before + HEAD + "[numthreads(1, 1, 1)]\nvoid main() {\n" + body + "\n}\n"


def compile_text(src: str, target: str = "spirv", path: str = "limits.hlsl", **kw):
    return compile_file(path, CompileOptions(target=target, **kw), text=src)


def first_error(res) -> Diagnostic:
    assert not res.ok, "expected the compile to fail"
    errors = [d for d in res.diagnostics if d.severity == "error"]
    assert errors, "failed without an error diagnostic"
    for d in res.diagnostics:
        assert "internal compiler error" not in d.message, d.message
    return errors[0]


def assert_located_error(res, pattern: str, line: int | None = None, col: int | None = None,
                         file: str | None = None) -> Diagnostic:
    """The first error matches `pattern` and carries file:line:col (optionally the given ones)."""
    d = first_error(res)
    assert re.search(pattern, d.message), f"unexpected message: {d.message}"
    assert d.loc is not None and d.loc.line >= 1 and d.loc.col >= 1, f"error without location: {d.message}"
    if file is not None:
        assert d.loc.file.endswith(file), d.loc
    if line is not None:
        assert d.loc.line == line, d.loc
    if col is not None:
        assert d.loc.col == col, d.loc
    return d


def assert_clean(res) -> None:
    """Success, or a located error: what a limit may do below its threshold."""
    if res.ok:
        return
    d = first_error(res)
    assert d.loc is not None, f"error without location: {d.message}"


# ---------------------------------------------------------------- include depth


def test_recursive_include_is_cut_at_the_include_depth_limit(tmp_path) -> None:
    src = tmp_path / "self.hlsl"
    src.write_text('#include "self.hlsl"\n' + main_with("O[0] = 1;"))
    res = compile_file(str(src), CompileOptions(target="spirv"))
    assert_located_error(res, r"#include nested too deeply \(limit \d+\)", line=1, file="self.hlsl")


def test_long_include_chain_is_cut_at_the_include_depth_limit(tmp_path) -> None:
    for i in range(200):
        (tmp_path / f"c{i}.hlsli").write_text(f'#include "c{i + 1}.hlsli"\n')
    (tmp_path / "c200.hlsli").write_text("#define DONE 1\n")
    src = tmp_path / "main.hlsl"
    src.write_text('#include "c0.hlsli"\n' + main_with("O[0] = DONE;"))
    res = compile_file(str(src), CompileOptions(target="spirv"))
    assert_located_error(res, r"#include nested too deeply", line=1)


def test_include_chain_below_the_limit_compiles(tmp_path) -> None:
    for i in range(20):
        (tmp_path / f"c{i}.hlsli").write_text(f'#include "c{i + 1}.hlsli"\n')
    (tmp_path / "c20.hlsli").write_text("#define DONE 1\n")
    src = tmp_path / "main.hlsl"
    src.write_text('#include "c0.hlsli"\n' + main_with("O[0] = DONE;"))
    assert compile_file(str(src), CompileOptions(target="spirv")).ok


# ---------------------------------------------------------------- macros


def test_macro_argument_nesting_depth() -> None:
    src = main_with("O[0] = " + "F(" * DEEP + "1" + ")" * DEEP + ";", before="#define F(x) x\n")
    assert_located_error(compile_text(src), r"macro expansion nested too deeply \(limit \d+\)", line=6)


def test_macro_chain_depth() -> None:
    defs = "".join(f"#define M{i} M{i + 1}\n" for i in range(DEEP)) + f"#define M{DEEP} 1\n"
    assert_located_error(compile_text(main_with("O[0] = M0;", before=defs)), r"macro expansion nested too deeply")


def test_self_referential_macros_do_not_loop() -> None:
    """A macro naming itself (directly or mutually) is not re-expanded: no hang, a plain error."""
    src = main_with("O[0] = A;", before="#define A B + 1\n#define B A + 1\n")
    assert_located_error(compile_text(src), r"A|undeclared|unknown|identifier")


def test_macro_expansion_size() -> None:
    """2^30 tokens from 30 doubling macros: stopped by the expanded-token limit, not memory or time."""
    defs = "#define A0 1+\n" + "".join(f"#define A{i + 1} A{i} A{i}\n" for i in range(30))
    res = compile_text(main_with("O[0] = A30 1;", before=defs))
    assert_located_error(res, r"macro expansion produced too many tokens \(limit \d+\)")


def test_preprocessor_expression_nesting() -> None:
    src = "#if " + "(" * DEEP + "1" + ")" * DEEP + "\n#endif\n" + main_with("O[0] = 1;")
    assert_located_error(compile_text(src), r"nested too deeply", line=1)


def test_conditional_nesting_is_fine() -> None:
    assert compile_text("#if 1\n" * DEEP + "#endif\n" * DEEP + main_with("O[0] = 1;")).ok


# ---------------------------------------------------------------- nesting of expressions


EXPRESSIONS = [
    pytest.param("(" * DEEP + "1" + ")" * DEEP, id="parentheses"),
    pytest.param("-" * DEEP + "1", id="unary_minus"),
    pytest.param("!" * DEEP + "1", id="logical_not"),
    pytest.param("(int)" * DEEP + "1", id="casts"),
    pytest.param("1+(" * DEEP + "1" + ")" * DEEP, id="binary_right_nested"),
    pytest.param("f(" * DEEP + "1" + ")" * DEEP, id="calls"),
    pytest.param("true?(" * DEEP + "1" + "):0" * DEEP, id="conditionals"),
    pytest.param("int2(" * DEEP + "1" + ",1).x" * DEEP, id="constructors"),
    pytest.param("1" + ".x" * DEEP, id="member_chain"),
    pytest.param("1+" * 20000 + "1", id="binary_left_chain"),
]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_expression_nesting(expr: str) -> None:
    """Far beyond any sane depth: compiled, or refused with a located nesting error."""
    res = compile_text(main_with(f"O[0] = {expr};"))
    if not res.ok:
        assert_located_error(res, r"nest|deep|limit", line=5)


def test_index_chain_nesting() -> None:
    res = compile_text(main_with("int a[1] = {1};\nO[0] = a" + "[0]" * DEEP + ";"))
    assert_clean(res)


def test_assignment_chain_nesting() -> None:
    res = compile_text(main_with("int a; a" + " = a" * 2000 + " = 1; O[0] = a;"))
    assert_located_error(res, r"nesting too deep")


# ---------------------------------------------------------------- nesting of statements


STATEMENTS = [
    pytest.param("{" * DEEP + "}" * DEEP, id="blocks"),
    pytest.param("if (true) " * DEEP + ";", id="if"),
    pytest.param("for (;;) {" * DEEP + "}" * DEEP, id="for"),
    pytest.param("while (false) {" * DEEP + "}" * DEEP, id="while"),
    pytest.param("do {" * DEEP + "} while (false);" * DEEP, id="do_while"),
    pytest.param("switch (0) { default:" * DEEP + "}" * DEEP, id="switch"),
]


@pytest.mark.parametrize("stmts", STATEMENTS)
def test_statement_nesting(stmts: str) -> None:
    assert_located_error(compile_text(main_with(stmts + "\nO[0] = 1;")), r"nest|deep|limit", line=5)


# ---------------------------------------------------------------- nesting of types


def test_array_declarator_nesting() -> None:
    src = HEAD + "static int A" + "[1]" * DEEP + ";\n[numthreads(1, 1, 1)]\nvoid main() { O[0] = 1; }\n"
    assert_located_error(compile_text(src), r"nest|deep|limit|dimension")


def test_struct_nesting() -> None:
    structs = "struct S0 { int m; };\n" + "".join(f"struct S{i + 1} {{ S{i} m; }};\n" for i in range(DEEP))
    res = compile_text(main_with(f"S{DEEP} s = (S{DEEP})0;\nO[0] = 1;", before=structs))
    assert_clean(res)


def test_typedef_chain() -> None:
    defs = "typedef int T0;\n" + "".join(f"typedef T{i} T{i + 1};\n" for i in range(DEEP))
    assert_clean(compile_text(main_with(f"T{DEEP} x = 1;\nO[0] = x;", before=defs)))


def test_moderate_type_nesting_compiles() -> None:
    structs = "struct S0 { int m; };\n" + "".join(f"struct S{i + 1} {{ S{i} m; }};\n" for i in range(30))
    res = compile_text(main_with("S30 s = (S30)0;\nO[0] = s" + ".m" * 31 + ";", before=structs))
    assert res.ok, [d.message for d in res.diagnostics]


# ---------------------------------------------------------------- array sizes


ARRAYS = [
    pytest.param(main_with("int a[100000000]; a[0] = 1; O[0] = a[0];"), id="local"),
    pytest.param(HEAD + "static int A[2147483647];\n[numthreads(1,1,1)] void main() { O[0] = A[0]; }\n", id="static"),
    pytest.param(HEAD + "groupshared int A[268435456];\n[numthreads(1,1,1)] void main() { O[0] = A[0]; }\n",
                 id="groupshared"),
    pytest.param("RWStructuredBuffer<int> O[4294967295] : register(u0);\n"
                 "[numthreads(1,1,1)] void main() { O[0][0] = 1; }\n", id="resource_array"),
    pytest.param(main_with("int a[65536][65536]; a[0][0] = 1; O[0] = a[0][0];"), id="total_size_2d"),
    pytest.param(main_with("int a[99999999999999999999]; O[0] = 1;"), id="beyond_64_bits"),
]


@pytest.mark.parametrize("src", ARRAYS)
def test_array_size_limit(src: str) -> None:
    """Run in the fuzz worker pool: a missing limit can mean minutes and gigabytes, not an error."""
    results = run_inputs([FuzzInput("arrays.hlsl", src.encode(), "limits")], jobs=1, timeout=ISOLATED_TIMEOUT)
    for out in results[0][1]:
        assert out.cls == "error", f"{out.target}: {out.cls} {out.detail}"
        assert re.search(r"array size|too large|exceeds|limit", out.detail), out.detail


# ---------------------------------------------------------------- source size


BIG = 16 * 1024 * 1024 + 16


def test_source_text_over_the_size_limit() -> None:
    res = compile_text(main_with("O[0] = 1;") + "//" + "x" * BIG)
    d = first_error(res)
    assert re.search(r"too large .*limit", d.message), d.message
    assert "limits.hlsl" in d.message or d.loc is not None


def test_source_file_over_the_size_limit(tmp_path) -> None:
    src = tmp_path / "big.hlsl"
    src.write_bytes(main_with("O[0] = 1;").encode() + b"//" + b"x" * BIG)
    d = first_error(compile_file(str(src), CompileOptions(target="spirv")))
    assert re.search(r"too large .*limit", d.message) and "big.hlsl" in d.message, d.message


def test_included_file_over_the_size_limit(tmp_path) -> None:
    (tmp_path / "big.hlsli").write_bytes(b"//" + b"x" * BIG)
    src = tmp_path / "main.hlsl"
    src.write_text('#include "big.hlsli"\n' + main_with("O[0] = 1;"))
    res = compile_file(str(src), CompileOptions(target="spirv"))
    assert_located_error(res, r"too large", line=1, file="main.hlsl")


def test_long_lines_and_identifiers_are_fine() -> None:
    assert compile_text(main_with("int " + "a" * 100_000 + " = 1;\nO[0] = 1;")).ok


# ---------------------------------------------------------------- encodings


def test_non_utf8_byte_is_a_located_error(tmp_path) -> None:
    src = tmp_path / "latin1.hlsl"
    src.write_bytes(HEAD.encode() + b"// caf\xe9\n[numthreads(1,1,1)] void main() { O[0] = 1; }\n")
    res = compile_file(str(src), CompileOptions(target="spirv"))
    assert_located_error(res, r"not valid UTF-8", line=3, col=7, file="latin1.hlsl")


def test_non_utf8_in_an_included_file(tmp_path) -> None:
    (tmp_path / "bad.hlsli").write_bytes(b"#define X 1\n\xff\xfe\n")
    src = tmp_path / "main.hlsl"
    src.write_text('#include "bad.hlsli"\n' + main_with("O[0] = X;"))
    res = compile_file(str(src), CompileOptions(target="spirv"))
    assert_located_error(res, r"not valid UTF-8", line=2, col=1, file="bad.hlsli")


@pytest.mark.parametrize("via_file", [False, True], ids=["text", "file"])
def test_nul_byte_is_a_located_error(tmp_path, via_file: bool) -> None:
    text = HEAD + "int g\0 = 1;\n" + main_with("O[0] = 1;")
    if via_file:
        src = tmp_path / "nul.hlsl"
        src.write_bytes(text.encode())
        res = compile_file(str(src), CompileOptions(target="spirv"))
    else:
        res = compile_text(text, path="nul.hlsl")
    assert_located_error(res, r"null character", line=3, col=6, file="nul.hlsl")


@pytest.mark.parametrize("prefix", [b"", b"\xef\xbb\xbf"], ids=["plain", "bom"])
@pytest.mark.parametrize("newline", [b"\n", b"\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize("target", ["spirv", "dxil"])
def test_crlf_and_bom_compile(tmp_path, prefix: bytes, newline: bytes, target: str) -> None:
    text = ("#define V \\\n  7\n" + main_with("O[0] = V;")).encode().replace(b"\n", newline)
    src = tmp_path / "enc.hlsl"
    src.write_bytes(prefix + text)
    res = compile_file(str(src), CompileOptions(target=target))
    assert res.ok, [d.render(res.sources) for d in res.diagnostics]


@pytest.mark.parametrize("prefix", [b"", b"\xef\xbb\xbf"], ids=["plain", "bom"])
@pytest.mark.parametrize("newline", [b"\n", b"\r\n"], ids=["lf", "crlf"])
def test_crlf_and_bom_keep_error_positions(tmp_path, prefix: bytes, newline: bytes) -> None:
    """Neither the BOM nor CR characters shift a diagnostic's line or column."""
    text = (HEAD + "[numthreads(1,1,1)]\nvoid main() {\n    O[0] = undefined_name;\n}\n").encode()
    src = tmp_path / "pos.hlsl"
    src.write_bytes(prefix + text.replace(b"\n", newline))
    res = compile_file(str(src), CompileOptions(target="spirv"))
    d = assert_located_error(res, r"undefined_name|undeclared", line=5, col=12)
    rendered = d.render(res.sources)
    assert "\r" not in rendered and "\ufeff" not in rendered, repr(rendered)


def test_bom_in_text_argument_and_first_line_column() -> None:
    line = "RWStructuredBuffer<int> O : register(u0); [numthreads(1,1,1)] void main() { O[0] = y; }\n"
    res = compile_text("\ufeff" + line)
    assert_located_error(res, r"'y'|undeclared", line=1, col=line.index("y;") + 1)


def test_lone_cr_line_endings_do_not_crash() -> None:
    assert_clean(compile_text(main_with("O[0] = 1;").replace("\n", "\r")))


# ---------------------------------------------------------------- issue 21 item 7: one nesting limit


CALL_HEAD = "RWStructuredBuffer<float> O : register(u0);\n[numthreads(1, 1, 1)]\nvoid main() {\n"
DEEPER = 5000    # far beyond the compiler's recursion headroom without a parser limit


@pytest.mark.parametrize("expr", [
    pytest.param("abs(" * DEEPER + "1.0" + ")" * DEEPER, id="intrinsic_calls"),
    pytest.param("float(" * DEEPER + "1" + ")" * DEEPER, id="constructors"),
    pytest.param("float2(" * DEEPER + "1.0" + ", 1.0).x" * DEEPER, id="vector_constructors"),
    pytest.param("1.0" + ".x" * DEEPER, id="member_chain"),
])
def test_deep_calls_stop_at_the_nesting_limit_at_the_construct(expr: str) -> None:
    """Calls and constructors count like parentheses: a located 'nesting too deep' on line 4, not a
    generic recursion error at 1:1."""
    res = compile_file("deep.hlsl", CompileOptions(target="spirv"), text=CALL_HEAD + f"O[0] = {expr};\n}}\n")
    d = assert_located_error(res, r"nesting too deep \(limit \d+\)", line=4)
    assert d.loc.col > 100, d.loc      # at the construct past the limit, not at the statement


def test_moderate_call_nesting_compiles() -> None:
    res = compile_text(CALL_HEAD + "O[0] = " + "abs(" * 60 + "1.0" + ")" * 60 + ";\n}\n")
    assert res.ok, [d.message for d in res.diagnostics]
    res = compile_text(CALL_HEAD + "O[0] = " + "float2(" * 40 + "1.0" + ", 1.0).x" * 40 + ";\n}\n")
    assert res.ok, [d.message for d in res.diagnostics]


def test_identifier_length_limit_is_a_located_error() -> None:
    """300K characters once crashed the SPIR-V builder (a string longer than 65535 words)."""
    res = compile_text(CALL_HEAD + "float " + "a" * 300_000 + " = 1; O[0] = 1;\n}\n")
    assert_located_error(res, r"identifier is too long .*limit", line=4, col=7)


# ---------------------------------------------------------------- issue 21 item 8: 32-bit registers


def _two_buffers(first: str) -> str:
    return (f"RWStructuredBuffer<int> A : register({first});\nRWStructuredBuffer<int> C : register(u0);\n"
            "[numthreads(1, 1, 1)]\nvoid main() { A[0] = 1; C[0] = 2; }\n")


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize(("first", "pattern", "col"), [
    pytest.param("u4294967296", r"register number 4294967296 is out of range", 38, id="register_2_32"),
    pytest.param("u0, space4294967296", r"register space number 4294967296 is out of range", 42, id="space_2_32"),
    pytest.param("u18446744073709551616", r"register number \d+ is out of range", 38, id="register_2_64"),
])
def test_register_numbers_past_32_bits_are_located_errors(target: str, first: str, pattern: str, col: int) -> None:
    """u4294967296 used to wrap to Vulkan binding 0 (colliding with C, while the manifest said 4294967296)
    and crash the DXIL container writer."""
    assert_located_error(compile_text(_two_buffers(first), target=target), pattern, line=1, col=col)


def test_register_u_max_compiles_for_dxil() -> None:
    """2^32 - 1 itself is a valid register."""
    res = compile_text(_two_buffers("u4294967295"), target="dxil")
    assert res.ok, [d.message for d in res.diagnostics]


@pytest.mark.parametrize("src", [
    pytest.param("RWStructuredBuffer<int> A[4] : register(u4294967294);\n"
                 "[numthreads(1, 1, 1)]\nvoid main() { A[0][0] = 1; }\n", id="array_past_the_end"),
    pytest.param("[[vk::binding(4294967296, 0)]] RWStructuredBuffer<int> A;\n"
                 "[numthreads(1, 1, 1)]\nvoid main() { A[0] = 1; }\n", id="vk_binding_attribute"),
])
def test_register_ranges_past_32_bits_are_located_errors(src: str) -> None:
    assert_located_error(compile_text(src), r"past register|outside the 32-bit range", line=1)


def test_shifted_binding_past_32_bits_is_an_error() -> None:
    from shaderbuild.options import BindingShift

    res = compile_text(_two_buffers("u4294967295"), binding_shifts=[BindingShift("u", 1, None)])
    assert_located_error(res, r"descriptor set 0 binding 4294967296, outside the 32-bit range", line=1)


# ---------------------------------------------------------------- issue 21 item 5: special files


def _special(tmp_path, kind: str) -> str:
    import os

    if kind == "fifo":
        path = tmp_path / "pipe.hlsli"
        os.mkfifo(path)
        return str(path)
    if kind == "directory":
        (tmp_path / "dir.hlsli").mkdir()
        return str(tmp_path / "dir.hlsli")
    return kind          # /dev/zero, /dev/urandom


def _compile_process(tmp_path, source: str):
    """In a child with 1 GB of address space and a timeout: the unfixed reader grew without bound
    (/dev/zero) or blocked forever (a FIFO)."""
    import resource
    import subprocess
    import sys

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    try:
        return subprocess.run([sys.executable, "-m", "shaderbuild", "compile", source, "-T", "cs_6_0", "-spirv",
                               "-o", str(tmp_path / "out.spv")], cwd=tmp_path, capture_output=True, text=True,
                              timeout=30, preexec_fn=limit)
    except subprocess.TimeoutExpired:
        pytest.fail(f"compiling {source} hung")


SPECIAL = ["/dev/zero", "/dev/urandom", "fifo", "directory"]


@pytest.mark.parametrize("kind", SPECIAL)
def test_special_file_as_the_main_file_is_refused_at_once(tmp_path, kind: str) -> None:
    path = _special(tmp_path, kind)
    proc = _compile_process(tmp_path, path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert re.search(rf"cannot open '{re.escape(path)}': is a (device|FIFO|directory), not a regular file",
                     proc.stderr), proc.stderr
    assert not (tmp_path / "out.spv").exists()


@pytest.mark.parametrize("kind", SPECIAL)
def test_special_file_as_an_include_is_a_located_error(tmp_path, kind: str) -> None:
    path = _special(tmp_path, kind)
    (tmp_path / "main.hlsl").write_text(f'\n#include "{path}"\n' + main_with("O[0] = 1;"))
    proc = _compile_process(tmp_path, "main.hlsl")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert re.search(r"^main\.hlsl:2:10: error: cannot read '.*': is a (device|FIFO|directory), not a regular file$",
                     proc.stderr, re.M), proc.stderr


# ---------------------------------------------------------------- issue 21 item 6: total included text


def test_self_include_of_a_large_header_stops_at_the_total_text_limit(tmp_path) -> None:
    """A self-include plus a 1 MiB include used to be processed 64 times (the include depth);
    the total counts every inclusion, so it stops after 16 MiB, at the #include."""
    import time

    (tmp_path / "big.hlsli").write_text("//" + "x" * (1 << 20) + "\n")
    (tmp_path / "self.hlsl").write_text('#include "big.hlsli"\n#include "self.hlsl"\n' + main_with("O[0] = 1;"))
    start = time.perf_counter()
    res = compile_file(str(tmp_path / "self.hlsl"), CompileOptions(target="spirv"))
    assert_located_error(res, r"preprocessed text is too large \(over 16777216 bytes .*--max-preprocessed-bytes",
                         file="self.hlsl")
    assert time.perf_counter() - start < 30


def test_total_text_limit_is_an_option(tmp_path) -> None:
    (tmp_path / "a.hlsli").write_text("#define A 1\n" + "// padding\n" * 100)
    src = '#include "a.hlsli"\n' * 3 + main_with("O[0] = A;")
    (tmp_path / "m.hlsl").write_text(src)
    ok = compile_file(str(tmp_path / "m.hlsl"), CompileOptions(target="spirv"))
    assert ok.ok, [d.message for d in ok.diagnostics]
    small = CompileOptions(target="spirv", max_preprocessed_bytes=len(src) + 2 * 1200)
    assert_located_error(compile_file(str(tmp_path / "m.hlsl"), small), r"preprocessed text is too large", line=3)


def test_max_preprocessed_bytes_flag(tmp_path) -> None:
    import subprocess
    import sys

    (tmp_path / "m.hlsl").write_text(main_with("O[0] = 1;"))
    cmd = [sys.executable, "-m", "shaderbuild", "compile", "m.hlsl", "-T", "cs_6_0", "-spirv", "-o", "o.spv"]
    assert subprocess.run(cmd, cwd=tmp_path, capture_output=True, timeout=60).returncode == 0
    proc = subprocess.run([*cmd, "--max-preprocessed-bytes", "10"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 1 and "preprocessed text is too large (over 10 bytes" in proc.stderr, proc.stderr


def test_deep_call_chain_is_a_located_error_not_a_false_recursion() -> None:
    """3,000 functions each calling the previous one (no recursion): SPIR-V compiles it; the DXIL
    backend, which inlines every call, used to say "recursive call of 'f2936'" without a location."""
    n = 3000
    fns = "float f0(float x) { return x + 1.0; }\n" + "".join(
        f"float f{i}(float x) {{ return f{i - 1}(x) * 0.5; }}\n" for i in range(1, n))
    src = "RWStructuredBuffer<float> O : register(u0);\n" + fns + \
        f"[numthreads(1, 1, 1)]\nvoid main() {{ O[0] = f{n - 1}(1.0); }}\n"
    assert compile_text(src).ok
    # from -O1 the shared inliner (passes/inline.py, top-down, no recursion) flattens any depth;
    # at -O0 the DXIL backend's own inliner meets its depth limit: a located error
    assert compile_text(src, target="dxil").ok
    d = assert_located_error(compile_text(src, target="dxil", opt_level=0), r"more than \d+ nested calls")
    assert "recursive" not in d.message
