"""Key-path → line lookup for TOML text."""

from __future__ import annotations

import textwrap

from shaderbuild.build.tomlpos import KeyLocator, format_path

DOC = textwrap.dedent('''\
    # comment
    output_dir = "out"
    defines = { A = 1 }
    text = """
    fake = 1
    """

    [backends.spirv]
    target_env = "vulkan1.2"

    [[shader]]
    files = "a.hlsl"
    "quoted key" = 1

    [[shader]]
    files = "b.hlsl"
    [shader.permutations]
    MODE = [0, 1]

    [[shader.entry]]
    name = "alt"
    sub.dotted = 2
    ''')


def test_lines_of_keys_tables_and_arrays_of_tables():
    loc = KeyLocator(DOC)
    assert loc.line_of(("output_dir",)) == 2
    assert loc.line_of(("defines", "A")) == 3            # inside an inline table: the key's line
    assert loc.line_of(("fake",)) is None                # inside a multi-line string: not a key
    assert loc.line_of(("backends", "spirv", "target_env")) == 9
    assert loc.line_of(("shader", 0, "files")) == 12
    assert loc.line_of(("shader", 0, "quoted key")) == 13
    assert loc.line_of(("shader", 1)) == 15
    assert loc.line_of(("shader", 1, "permutations", "MODE", 1)) == 18
    assert loc.line_of(("shader", 1, "entry", 0, "name")) == 21
    assert loc.line_of(("shader", 1, "entry", 0, "sub", "dotted")) == 22


def test_prefix_for_pyproject():
    loc = KeyLocator("[tool.shaderbuild]\nx = 1\n[[tool.shaderbuild.shader]]\nfiles = 'a'\n", ("tool", "shaderbuild"))
    assert loc.line_of(("x",)) == 2
    assert loc.line_of(("shader", 0, "files")) == 4


def test_format_path():
    assert format_path(("shader", 1, "permutations", "MODE", 0)) == "shader[1].permutations.MODE[0]"
    assert format_path(()) == ""
