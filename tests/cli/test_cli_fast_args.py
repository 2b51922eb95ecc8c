"""`shaderbuild compile` command lines are parsed without argparse when they use exact
option spellings (cli.parse_compile_fast, for start-up time); the result must equal what
argparse produces from the same table, and everything else must be left to argparse."""

from __future__ import annotations

import pytest

from shaderbuild import cli

BASE = ["compile", "s.hlsl", "-T", "cs_6_0"]

AGREE = [
    BASE,
    ["compile", "-T", "ps_6_2", "s.hlsl", "-E", "ps_main", "-spirv", "-o", "x.spv"],
    BASE + ["--target", "dxil", "-Fo", "x.dxil", "--manifest", "m.json", "-Fc", "x.txt"],
    BASE + ["--Fc", "x.txt", "-D", "A", "-D", "B=2", "-DC=3", "-DD", "-I", "inc", "-Iother", "-I", "third"],
    BASE + ["-fvk-b-shift", "1", "0", "-fvk-t-shift", "16", "all", "-fvk-s-shift", "32", "1", "-fvk-u-shift", "48", "0",
            "-fvk-u-shift", "64", "1"],
    BASE + ["-fspv-target-env", "vulkan1.3", "--dxil-hash", "retail", "-fvk-invert-y", "-fvk-use-dx-position-w"],
    BASE + ["--vk-target-env", "vulkan1.0", "-fvk-auto-shift-bindings", "-fvk-bind-register", "t3", "0", "5", "1",
            "-vkbr", "u0", "1", "2", "3"],
    BASE + ["-fvk-bind-globals", "3", "1", "-auto-binding-space", "2", "-fvk-use-scalar-layout"],
    BASE + ["-fvk-use-gl-layout", "-fvk-use-gl-layout", "-Zpr", "-HV", "2018", "-enable-16bit-types"],
    BASE + ["-Zpc", "--diagnostics-format", "json", "--time-report", "-E", "a", "-E", "b"],
    BASE + ["-Tvs_6_0", "-Emain2", "-ox.spv"],
    ["compile", "", "-T", "cs_6_0"],
    ["compile", "dir with space/s.hlsl", "-T", "cs_6_0", "-D", "X=a b"],
]

LEFT_TO_ARGPARSE = [
    ["compile"],
    ["compile", "--help"],
    BASE + ["-h"],
    ["compile", "-T", "cs_6_0"],                                    # no source
    BASE + ["other.hlsl"],                                          # two sources
    ["compile", "s.hlsl"],                                          # -T missing
    BASE + ["-spir"],                                               # abbreviation
    BASE + ["--targ", "spirv"],
    BASE + ["--target=spirv"],
    BASE + ["-o=x.spv"],
    BASE + ["-o"],                                                  # value missing
    BASE + ["-o", "-spirv"],
    BASE + ["-fvk-b-shift", "1"],
    BASE + ["-fvk-b-shift", "-1", "0"],
    BASE + ["-HV", "2015"],                                         # invalid choice
    BASE + ["-HV", "x"],                                            # invalid int
    BASE + ["--diagnostics-format", "xml"],
    BASE + ["-fvk-use-dx-layout", "-fvk-use-gl-layout"],            # mutually exclusive
    BASE + ["-Zpr", "-Zpc"],
    BASE + ["-spirvx"],
    BASE + ["-Zprx"],
    BASE + ["--", "x"],
    BASE + ["-D-x"],
    BASE + ["--version"],
    ["--version"],
    ["plugins"],
    ["build", "."],
    [],
]


def _argparse(argv: list[str]) -> dict:
    return vars(cli.build_parser(argv[0]).parse_args(argv))


@pytest.mark.parametrize("argv", AGREE, ids=lambda a: " ".join(a[1:]) or "base")
def test_fast_parse_equals_argparse(argv):
    fast = cli.parse_compile_fast(argv)
    assert fast is not None
    assert vars(fast) == _argparse(argv)


@pytest.mark.parametrize("argv", LEFT_TO_ARGPARSE, ids=lambda a: " ".join(a) or "empty")
def test_other_command_lines_go_to_argparse(argv):
    assert cli.parse_compile_fast(argv) is None


def test_defaults_are_fresh_lists():
    a, b = cli.parse_compile_fast(BASE), cli.parse_compile_fast(BASE + ["-D", "X"])
    assert a.defines == [] and b.defines == ["X"]
    assert all(spec.get("default") == [] for _, spec in cli.COMPILE_ARGUMENTS if spec.get("action") == "append")


def test_usage_error_message_comes_from_argparse(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(BASE + ["-HV", "2015"])
    assert e.value.code == 1
    assert "shaderbuild: error: argument -HV: invalid choice: '2015'" in capsys.readouterr().err
