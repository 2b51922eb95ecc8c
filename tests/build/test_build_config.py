"""Project-file validation (file, line and key path on every error) and target planning."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from shaderbuild.build.config import ConfigFileError, load_project
from shaderbuild.build.targets import expand_permutations, plan, select
from shaderbuild.options import BindingShift, BindRegister, CompileOptions


def write(root: Path, toml: str, files=("shaders/a.hlsl", "shaders/b.hlsl")) -> Path:
    for f in files:
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("[numthreads(1,1,1)] void main() {}\n")
    (root / "shaderbuild.toml").write_text(textwrap.dedent(toml))
    return root


def errors(root: Path) -> list[str]:
    with pytest.raises(ConfigFileError) as exc:
        plan(load_project(str(root)))
    return [e.render() for e in exc.value.errors]


BASE = """\
output_dir = "out"
targets = ["spirv", "dxil"]

[[shader]]
files = "shaders/a.hlsl"
profile = "cs_6_0"
"""


def test_unknown_key_reports_file_line_and_path(tmp_path):
    root = write(tmp_path, BASE.replace('targets =', 'outptu_dir = "x"\ntargets ='))
    [msg] = errors(root)
    assert msg.startswith(f"{root}/shaderbuild.toml:2: error: outptu_dir: unknown key (known keys: ")


def test_wrong_type_in_second_shader_table(tmp_path):
    root = write(tmp_path, BASE + """
        [[shader]]
        files = "shaders/b.hlsl"
        profile = 6
        """.replace("        ", ""))
    assert errors(root) == [f"{root}/shaderbuild.toml:10: error: shader[1].profile: expected a string, got an integer 6"]


def test_all_errors_are_reported_at_once(tmp_path):
    root = write(tmp_path, """\
        output_dir = "out"
        targets = ["spirv", "metal"]

        [backends.spirv]
        target_env = "vulkan9"
        binding_shifts = { q = 3 }

        [[shader]]
        files = "shaders/a.hlsl"
        profile = "cs_5_0"
        [shader.permutations]
        MODE = [0, 1.5]
        """)
    msgs = errors(root)
    prefix = f"{root}/shaderbuild.toml"
    assert msgs == [
        f"{prefix}:2: error: targets[1]: expected one of 'dxil', 'spirv', got 'metal'",
        f"{prefix}:5: error: backends.spirv.target_env: expected one of 'vulkan1.0', 'vulkan1.1', 'vulkan1.2', "
        f"'vulkan1.3', 'universal1.5', got 'vulkan9'",
        f"{prefix}:6: error: backends.spirv.binding_shifts.q: invalid name 'q': register classes are b, t, s, u",
        f"{prefix}:10: error: shader[0].profile: invalid value 'cs_5_0': expected cs_6_x, vs_6_x, ps_6_x, gs_6_x, hs_6_x, ds_6_x, ms_6_x, as_6_x or lib_6_x",
        f"{prefix}:12: error: shader[0].permutations.MODE[1]: expected a string or integer, got a float 1.5",
    ]


def test_pyproject_tool_table_lines(tmp_path):
    (tmp_path / "shaders").mkdir()
    (tmp_path / "shaders/a.hlsl").write_text("")
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent("""\
        [project]
        name = "game"

        [tool.shaderbuild]
        output_dir = "out"
        targets = ["spirv"]

        [[tool.shaderbuild.shader]]
        files = "shaders/a.hlsl"
        profile = "cs_6_0"
        entry = [{ name = "main", defnes = {} }]
        """))
    with pytest.raises(ConfigFileError) as exc:
        load_project(str(tmp_path))
    [e] = exc.value.errors
    assert (e.line, e.file) == (11, str(tmp_path / "pyproject.toml"))
    assert e.render().endswith("error: shader[0].entry[0].defnes: unknown key (known keys: auto_binding_space, "
                               "backends, defines, enable_16bit_types, exclude, hlsl_version, include, include_dirs, "
                               "name, only, outputs, permutations, profile, rootsig_define, rootsig_version, row_major, "
                               "targets)")


def test_toml_syntax_error_has_a_line(tmp_path):
    root = write(tmp_path, BASE + "profile = [\n")
    [e] = pytest.raises(ConfigFileError, load_project, str(root)).value.errors
    assert e.line == 7 and "TOML syntax error" in e.message


def test_missing_profile_and_unmatched_glob(tmp_path):
    root = write(tmp_path, BASE.replace('profile = "cs_6_0"\n', 'files = "shaders/*.hlsx"\n').replace(
        'files = "shaders/a.hlsl"\n', ""))
    with pytest.raises(ConfigFileError) as exc:
        load_project(str(root))
    assert [e.render() for e in exc.value.errors] == [
        f"{root}/shaderbuild.toml:4: error: shader[0]: no 'profile' given for this shader entry (e.g. profile = "
        f"\"cs_6_0\")"]
    root = write(tmp_path, BASE.replace("a.hlsl", "*.hlsx"))
    assert errors(root) == [f"{root}/shaderbuild.toml:5: error: shader[0].files: 'shaders/*.hlsx' matches no file"]


@pytest.mark.parametrize("toml_line, key", [
    ('output_dir = "../elsewhere"', "output_dir"),
    ('output_dir = "/tmp"', "output_dir"),
])
def test_output_dir_outside_the_project_is_rejected(tmp_path, toml_line, key):
    root = write(tmp_path / "proj", BASE.replace('output_dir = "out"', toml_line))
    [msg] = errors(root)
    assert msg.startswith(f"{root}/shaderbuild.toml:1: error: {key}: the output directory must be a subdirectory")


@pytest.mark.parametrize("subdir", ["../../escape", "/abs/path", "a/../../.."])
def test_subdir_escaping_the_output_dir_is_rejected(tmp_path, subdir):
    root = write(tmp_path, BASE + f'subdir = "{subdir}"\n')
    [msg] = errors(root)
    assert msg == f"{root}/shaderbuild.toml:7: error: shader[0].subdir: '{subdir}' points outside the output directory"


def test_cli_output_dir_override_may_point_anywhere(tmp_path):
    root = write(tmp_path / "proj", BASE)
    project = load_project(str(root), output_dir=str(tmp_path / "elsewhere"))
    assert all(t.outputs["binary"].startswith(str(tmp_path / "elsewhere") + os.sep) for t in plan(project))


def test_two_targets_writing_one_file_is_an_error(tmp_path):
    root = write(tmp_path, BASE + '\n[[shader]]\nfiles = "shaders/a.hlsl"\nprofile = "cs_6_1"\n')
    msgs = errors(root)
    assert [m.split(" would both write ")[0] for m in msgs] == [
        f"{root}/shaderbuild.toml:8: error: shader[1]: targets shaders/a.hlsl:main@{b} and shaders/a.hlsl:main@{b}"
        for b in ("spirv", "dxil")]


def test_permutation_matrix_with_optional_defines_and_rules(tmp_path):
    root = write(tmp_path, BASE + """\
        exclude = ["MODE=2 FOG"]
        only = ["!FOG", "MODE=0", "MODE=2"]
        include = ["MODE=9 FOG=1"]
        [shader.permutations]
        MODE = [0, 1, 2]
        FOG = { values = [1], optional = true }
        """.replace("        ", ""))
    shader = load_project(str(root)).shaders[0]
    got = [" ".join(f"{k}={v}" for k, v in sorted(p.items())) for p in expand_permutations(shader)]
    # FOG absent for every MODE; FOG=1 only with MODE=0 (MODE=2 FOG excluded); plus the extra combination
    # (product order over the sorted define names: FOG varies slowest, absent first)
    assert got == ["MODE=0", "MODE=1", "MODE=2", "FOG=1 MODE=0", "FOG=1 MODE=9"]


def test_rules_must_name_permutation_defines(tmp_path):
    root = write(tmp_path, BASE + 'exclude = ["MODEE=1"]\n[shader.permutations]\nMODE = [0, 1]\n')
    with pytest.raises(ConfigFileError) as exc:
        load_project(str(root))
    assert exc.value.errors[0].render() == (f"{root}/shaderbuild.toml:7: error: shader[0].exclude[0]: 'MODEE' is not "
                                            "a permutation define of this shader (have: MODE)")


def test_target_ids_and_names_are_stable_digests(tmp_path):
    root = write(tmp_path, BASE + "[shader.permutations]\nMODE = [1]\nA = [true]\n")
    [spv, dxil] = plan(load_project(str(root)))
    assert spv.name == "shaders/a.hlsl:main[A=1 MODE=1]@spirv" and spv.perm_key == "A=1 MODE=1"
    assert spv.tid == hashlib.sha256(spv.name.encode()).hexdigest()[:16]
    suffix = hashlib.sha256(b"A=1 MODE=1").hexdigest()[:16]   # 64 bits (issue 21 item 9)
    assert spv.outputs == {"binary": str(root / f"out/shaders/a_{suffix}.spv"),
                           "manifest": str(root / f"out/shaders/a_{suffix}.spv.json")}
    assert dxil.outputs["binary"] == str(root / f"out/shaders/a_{suffix}.dxil")
    # the same in another process with another hash seed
    script = (f"from shaderbuild.build import load_project, plan\n"
              f"print(*[(t.tid, t.outputs['binary']) for t in plan(load_project({str(root)!r}))])")
    outs = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           env=dict(os.environ, PYTHONHASHSEED=seed)).stdout for seed in ("1", "2")}
    assert outs == {f"{(spv.tid, spv.outputs['binary'])} {(dxil.tid, dxil.outputs['binary'])}\n"}


def test_settings_inherit_and_entries_override(tmp_path):
    root = write(tmp_path, """\
        output_dir = "out"
        targets = ["spirv", "dxil"]
        include_dirs = ["inc"]
        defines = { QUALITY = 2, DEBUG = false }
        row_major = true

        [backends.spirv]
        target_env = "vulkan1.2"
        binding_shifts = { t = 200, u = 400 }
        invert_y = true
        bind_globals = { binding = 3, set = 1 }
        bind_registers = [{ class = "t", register = 0, space = 0, binding = 9, set = 2 }]

        [backends.dxil]
        shader_model = "6.6"
        hash = "retail"

        [[shader]]
        files = "shaders/a.hlsl"
        profile = "cs_6_0"
        defines = { QUALITY = 3 }

        [[shader.entry]]
        name = "main"

        [[shader.entry]]
        name = "alt"
        targets = ["spirv"]
        defines = { ALT = "yes" }
        include_dirs = ["inc2"]
        [shader.entry.backends.spirv]
        binding_shifts = [{ class = "b", shift = 300, space = 1 }]
        """)
    targets = {t.name: t for t in plan(load_project(str(root)))}
    assert sorted(targets) == ["shaders/a.hlsl:alt@spirv", "shaders/a.hlsl:main@dxil", "shaders/a.hlsl:main@spirv"]
    main_spv = targets["shaders/a.hlsl:main@spirv"].options
    assert main_spv == CompileOptions(
        entry="main", profile="cs_6_0", target="spirv", defines={"QUALITY": "3", "DEBUG": "0"},
        include_dirs=[str(root / "inc")], vk_target_env="vulkan1.2",
        binding_shifts=[BindingShift("t", 200, None), BindingShift("u", 400, None)], row_major=True,
        vk_invert_y=True, vk_bind_globals=(3, 1), vk_bind_registers=[BindRegister("t", 0, 0, 9, 2)])
    dxil = targets["shaders/a.hlsl:main@dxil"].options
    assert (dxil.profile, dxil.dxil_hash, dxil.vk_target_env, dxil.row_major) == ("cs_6_6", "retail", "vulkan1.1",
                                                                                  True)
    assert (dxil.vk_invert_y, dxil.vk_bind_registers) == (False, [])   # spirv options stay on spirv
    alt = targets["shaders/a.hlsl:alt@spirv"]
    assert alt.options.defines == {"QUALITY": "3", "DEBUG": "0", "ALT": "yes"}
    assert alt.options.include_dirs == [str(root / "inc"), str(root / "inc2")]
    assert alt.options.binding_shifts == [BindingShift("b", 300, 1)]   # the entry's table replaces the list
    assert alt.outputs["binary"] == str(root / "out/shaders/a_alt.spv")


def test_options_the_compiler_lacks_are_rejected(tmp_path, monkeypatch):
    from shaderbuild.build import config

    root = write(tmp_path, BASE + '[shader.backends.spirv]\nlayout = "scalar"\n')
    [t] = [t for t in plan(load_project(str(root))) if t.backend == "spirv"]
    assert t.options.vk_layout == "scalar"
    # as with a compiler version whose CompileOptions has no vk_layout field
    monkeypatch.setattr(config, "_OPTION_FIELDS", config._OPTION_FIELDS - {"vk_layout"})
    with pytest.raises(ConfigFileError) as exc:
        load_project(str(root))
    assert [e.render() for e in exc.value.errors] == [
        f"{root}/shaderbuild.toml:8: error: shader[0].backends.spirv.layout: 'layout' is not supported by this "
        "compiler version"]


@pytest.mark.parametrize("layout, expected", [
    ("mirror", "out/shaders/a.spv"), ("flat", "out/a.spv"), ("by-backend", "out/spirv/shaders/a.spv")])
def test_output_layouts(tmp_path, layout, expected):
    root = write(tmp_path, BASE.replace('targets = ["spirv", "dxil"]', f'targets = ["spirv"]\nlayout = "{layout}"'))
    [t] = plan(load_project(str(root)))
    assert t.outputs["binary"] == str(root / expected)


def test_select_by_glob_name_and_id(tmp_path):
    root = write(tmp_path, BASE + "[shader.permutations]\nMODE = [0, 1]\n")
    targets = plan(load_project(str(root)))
    assert [t.name for t in select(targets, ["*MODE=1*"])] == ["shaders/a.hlsl:main[MODE=1]@spirv",
                                                              "shaders/a.hlsl:main[MODE=1]@dxil"]
    assert select(targets, [targets[2].tid]) == [targets[2]]
    assert select(targets, [targets[3].name]) == [targets[3]]
    assert plan(load_project(str(root)), backends=["dxil"]) == [t for t in targets if t.backend == "dxil"]


def test_project_file_is_found_from_a_subdirectory(tmp_path):
    root = write(tmp_path / "proj", BASE)
    assert load_project(str(root / "shaders")).config_path == str(root / "shaderbuild.toml")
    with pytest.raises(ConfigFileError, match="no shaderbuild.toml"):
        load_project(str(tmp_path))


# --- issue 21 item 9: bounded project files -----------------------------------------------------


def _plan_in_child(root: Path) -> subprocess.CompletedProcess:
    """load + plan in a child with 1 GB of address space (the unfixed planner used 3 GB, then crashed)."""
    script = ("import resource; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
              "from shaderbuild.build.config import ConfigFileError, load_project\n"
              "from shaderbuild.build.targets import plan\n"
              "try:\n"
              f"    print(len(plan(load_project({str(root)!r}))))\n"
              "except ConfigFileError as e:\n"
              "    print(e)\n")
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)


def test_deeply_nested_toml_arrays_are_an_error_with_a_line(tmp_path):
    root = write(tmp_path, BASE + "x = " + "[" * 5000 + "]" * 5000 + "\n")
    [msg] = errors(root)
    assert msg == f"{root}/shaderbuild.toml:7: error: (top level): arrays or inline tables nested more than 64 deep"


def test_moderately_nested_toml_still_parses(tmp_path):
    root = write(tmp_path, BASE + 'exclude = ["A=1"]\n[shader.permutations]\nA = {values = [[1][0]]}\n'.replace(
        "[[1][0]]", "[1, 2]"))
    assert len(plan(load_project(str(root)))) == 2 * 1      # A=2 only, two backends


def test_permutation_count_is_limited_before_expanding(tmp_path):
    axes = "".join(f"AXIS{i} = [0, 1]\n" for i in range(24))
    root = write(tmp_path, BASE + "[shader.permutations]\n" + axes)
    proc = _plan_in_child(root)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert f"{root}/shaderbuild.toml:7: error: shader[0].permutations: 16777216 permutations (AXIS0(2) x " \
           in proc.stdout, proc.stdout
    assert "AXIS9(2)) exceed the limit of 4096 per shader; remove axes or raise max_permutations" in proc.stdout
    assert all(f"AXIS{i}(2)" in proc.stdout for i in range(24))


def test_permutation_limit_is_configurable(tmp_path):
    axes = "[shader.permutations]\nA = [1, 2, 3]\nB = [1, 2, 3]\nC = [1, 2, 3]\n"
    root = write(tmp_path, "max_permutations = 20\n" + BASE + axes)
    [msg] = errors(root)
    assert "27 permutations (A(3) x B(3) x C(3)) exceed the limit of 20" in msg
    write(tmp_path, "max_permutations = 27\n" + BASE + axes)
    assert len(plan(load_project(str(root)))) == 27 * 2


@pytest.mark.parametrize("value", ["x y", "a/b", "a\\\\b", "c=d", "tab\\there"])
def test_permutation_values_cannot_break_names_or_paths(tmp_path, value):
    root = write(tmp_path, BASE + f'[shader.permutations]\nMODE = ["ok", "{value}"]\n')
    [msg] = errors(root)
    assert msg.startswith(f"{root}/shaderbuild.toml:8: error: shader[0].permutations.MODE: invalid permutation "
                          f"value "), msg


@pytest.mark.parametrize(("entry", "path"), [('""', "shader[0].entry"), ('["main", ""]', "shader[0].entry[1]"),
                                             ('[{name = ""}]', "shader[0].entry[0].name")])
def test_empty_entry_name_is_reported_at_its_line(tmp_path, entry, path):
    root = write(tmp_path, BASE + f"entry = {entry}\n")
    [msg] = errors(root)
    assert msg.startswith(f"{root}/shaderbuild.toml:7: error: {path}: invalid value ''"), msg


def test_file_name_suffixes_do_not_collide_at_2_18_permutations():
    """The suffix is 64 bits of sha256(key); 32 bits collide among the 2^18 keys of 18 two-value axes."""
    from shaderbuild.build.targets import digest, permutation_key

    keys = [permutation_key({f"A{i}": str(n >> i & 1) for i in range(18)}) for n in range(1 << 18)]
    assert len({hashlib.sha256(k.encode()).hexdigest()[:8] for k in keys}) < len(keys)   # why 32 bits failed
    assert len({digest(k, 16) for k in keys}) == len(keys)
