"""The project file: `shaderbuild.toml` or `[tool.shaderbuild]` in pyproject.toml.

`load_project(path)` validates the file against the schema below and returns a
`Project`.  Every problem becomes a `ConfigError` with file, line and key path
(see docs/PROJECT_FILE.md for the schema).  The module imports nothing heavy:
it runs on every no-op build.
"""

from __future__ import annotations

import os
import re
import sys

from ..options import MAX_REGISTER, CompileOptions
from ..records import DataRecord, Record, ValueRecord
from .distributed_config import CACHE_SCHEMA, EXECUTOR_SCHEMA
from .schema import (
    IDENT_RE,
    ArrayOf,
    Bool,
    ConfigError,
    ConfigFileError,
    Defines,
    Enum,
    Errs,
    Int,
    OneOf,
    Spec,
    Str,
    StrList,
    Table,
    TableOf,
    define_value,
)
from .tomlpos import KeyLocator

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

PROJECT_FILE = "shaderbuild.toml"
PYPROJECT_FILE = "pyproject.toml"
DEFAULT_OUTPUT_DIR = "build/shaders"
EXTRA_OUTPUTS = ("disassembly", "header", "blob")
LAYOUTS = ("mirror", "flat", "by-backend")
PROFILE_PATTERN = r"^((cs|vs|ps|gs|hs|ds|lib)_6_[0-8]|(ms|as)_6_[5-8])$"
_OPTION_FIELDS = set(CompileOptions._fields)
_RULE_TOKEN_RE = re.compile(r"^(!)?([A-Za-z_][A-Za-z0-9_]*)(?:=(.*))?$")
_FUNCTION_NAME = Str(r"^[A-Za-z_][A-Za-z0-9_]*$", "an HLSL function name")
# Permutation values appear in target names ('[A=1 B=2]'), rules and -D: no '=', spaces,
# path separators or control characters, so a name always splits back into its values.
_PERM_VALUE_BAD = re.compile(r"[=\s/\\\x00-\x1f\x7f]")
DEFAULT_MAX_PERMUTATIONS = 4096   # per shader; `max_permutations` in the project file
MAX_TOML_NESTING = 64             # arrays/inline tables; deeper input exhausts tomllib's recursion


# --- backend options: TOML key -> (spec, CompileOptions field) ------------------------------

_SHIFT_CLASSES = ("b", "t", "s", "u")
_SHIFT_ITEM = Table(
    {"class": Enum(*_SHIFT_CLASSES), "shift": Int(0, 1 << 20), "space": OneOf(
        (int, Int(0, 1 << 16)), (str, Enum("all")), what="a space number or \"all\"")},
    required=("class", "shift"),
)
_SHIFTS = OneOf(
    (dict, TableOf(Int(0, 1 << 20), re.compile(r"^[btsu]$"), "register classes are b, t, s, u")),
    (list, ArrayOf(_SHIFT_ITEM)),
    what="a table {t = 200, ...} or an array of {class, shift, space} tables",
)

_BIND_REGISTER = Table({"class": Enum(*_SHIFT_CLASSES), "register": Int(0, MAX_REGISTER), "space": Int(0, MAX_REGISTER),
                        "binding": Int(0, MAX_REGISTER), "set": Int(0, MAX_REGISTER)}, required=("class", "register", "space", "binding", "set"))

# Options valid at every settings level: TOML key -> (spec, CompileOptions field).
COMMON_OPTIONS: dict[str, tuple[Spec, str]] = {
    "hlsl_version": (Enum(2016, 2017, 2018, 2021), "hlsl_version"),
    "enable_16bit_types": (Bool(), "enable_16bit_types"),
    "row_major": (Bool(), "row_major"),
    "auto_binding_space": (Int(0, 1 << 16), "auto_binding_space"),
    "rootsig_define": (Str(r"^[A-Za-z_][A-Za-z0-9_]*$", "expected a macro name"), "rootsig_define"),
    "rootsig_version": (Enum("1.0", "1.1"), "rootsig_version"),
}

BACKEND_OPTIONS: dict[str, dict[str, tuple[Spec, str]]] = {
    "spirv": {
        "target_env": (Enum("vulkan1.0", "vulkan1.1", "vulkan1.2", "vulkan1.3", "universal1.5"), "vk_target_env"),
        "binding_shifts": (_SHIFTS, "binding_shifts"),
        "layout": (Enum("default", "dx", "gl", "scalar"), "vk_layout"),
        "invert_y": (Bool(), "vk_invert_y"),
        "use_dx_position_w": (Bool(), "vk_use_dx_position_w"),
        "support_nonzero_base_vertex": (Bool(), "vk_support_nonzero_base_vertex"),
        "support_nonzero_base_instance": (Bool(), "vk_support_nonzero_base_instance"),
        "auto_shift_bindings": (Bool(), "vk_auto_shift_bindings"),
        "bind_registers": (ArrayOf(_BIND_REGISTER), "vk_bind_registers"),
        "bind_globals": (Table({"binding": Int(0, MAX_REGISTER), "set": Int(0, MAX_REGISTER)}, required=("binding", "set")), "vk_bind_globals"),
        **{f"bind_{h}_heap": (Table({"binding": Int(0, MAX_REGISTER), "set": Int(0, MAX_REGISTER)},
                                    required=("binding", "set")), f"vk_bind_{h}_heap")
           for h in ("resource", "sampler", "counter")},
    },
    "dxil": {
        "shader_model": (Str(r"^6[._][0-8]$", "expected 6.0 .. 6.8"), "profile"),
        "hash": (Enum("bypass", "retail"), "dxil_hash"),
        "strip_root_signature": (Bool(), "strip_root_signature"),
    },
}


def known_backends() -> list[str]:
    """Backend names from installed plugin entry points, read from metadata only (no import)."""
    from .cache import plugin_fingerprint

    names = {row[0] for row in plugin_fingerprint()}
    return sorted(names or BACKEND_OPTIONS)


def _settings_fields(backends: list[str]) -> dict[str, Spec]:
    backend_tables: dict[str, Spec] = {name: Table({k: spec for k, (spec, _) in BACKEND_OPTIONS.get(name, {}).items()})
                      for name in backends}
    return {
        "targets": StrList(Enum(*backends)),
        "profile": Str(PROFILE_PATTERN, "expected cs_6_x, vs_6_x, ps_6_x, gs_6_x, hs_6_x, ds_6_x, ms_6_x, as_6_x or lib_6_x"),
        "defines": Defines(),
        "include_dirs": StrList(),
        "outputs": StrList(Enum(*EXTRA_OUTPUTS)),
        **{key: spec for key, (spec, _) in COMMON_OPTIONS.items()},
        "backends": Table(backend_tables),
    }


_PERM_VALUES = OneOf(
    (list, ArrayOf(OneOf((bool, Bool()), (int, Int()), (str, Str()), what="a string or integer"))),
    (dict, Table({"values": ArrayOf(OneOf((bool, Bool()), (int, Int()), (str, Str()), what="a string or integer")),
                  "optional": Bool()}, required=("values",))),
    what="an array of values or a table {values = [...], optional = true}",
)


def build_schema(backends: list[str]) -> Table:
    settings = _settings_fields(backends)
    permutation_keys = {"permutations": TableOf(_PERM_VALUES, IDENT_RE, "define names are identifiers"),
                        "exclude": StrList(), "only": StrList(), "include": StrList()}
    entry = Table({**settings, **permutation_keys, "name": _FUNCTION_NAME},
                  required=("name",))
    shader = Table({
        **settings,
        "files": StrList(),
        "entry": OneOf((str, _FUNCTION_NAME),
                       (list, ArrayOf(OneOf((str, _FUNCTION_NAME), (dict, entry), what="a name or a table"))),
                       what="an entry name, or an array of names or {name = ...} tables"),
        **permutation_keys,
        "subdir": Str(),
    }, required=("files",))
    return Table({
        **settings,
        "output_dir": Str(),
        "layout": Enum(*LAYOUTS),
        "max_permutations": Int(1, 1 << 20),
        "shader": ArrayOf(shader),
        "executor": EXECUTOR_SCHEMA,
        "cache": CACHE_SCHEMA,
    })


# --- the validated model -------------------------------------------------------------------


def _pick(outer, inner):
    return inner if inner is not None else outer


class Settings(DataRecord):
    """Inheritable settings; the most specific level wins (defines merge, include dirs append)."""

    targets: list[str] | None = None
    profile: str | None = None
    defines: dict[str, str] = Record.factory(dict)
    include_dirs: list[str] = Record.factory(list)    # absolute
    outputs: list[str] | None = None
    options: dict[str, object] = Record.factory(dict)   # COMMON_OPTIONS keys
    backends: dict[str, dict] = Record.factory(dict)

    def merged(self, child: Settings) -> Settings:
        backends = {k: dict(v) for k, v in self.backends.items()}
        for name, opts in child.backends.items():
            backends.setdefault(name, {}).update(opts)
        return Settings(
            targets=_pick(self.targets, child.targets),
            profile=_pick(self.profile, child.profile),
            defines={**self.defines, **child.defines},
            include_dirs=self.include_dirs + [d for d in child.include_dirs if d not in self.include_dirs],
            outputs=_pick(self.outputs, child.outputs),
            options={**self.options, **child.options},
            backends=backends,
        )


class PermDim(ValueRecord):
    name: str
    values: tuple[str | None, ...]   # None = the define is absent (optional defines)


class Rule(ValueRecord):
    """A permutation match: every (name, value) must hold; value None = absent, '*' = any present."""

    terms: tuple[tuple[str, str | None], ...]
    text: str

    def matches(self, perm: dict[str, str]) -> bool:
        for name, value in self.terms:
            have = perm.get(name)
            if value is None:
                if have is not None:
                    return False
            elif value == "*":
                if have is None:
                    return False
            elif have != value:
                return False
        return True


class EntrySpec(DataRecord):
    name: str
    settings: Settings
    path: tuple          # key path, for errors
    # per-entry permutations: `permutations` replaces the shader's matrix and rules for this entry;
    # without it, the entry's exclude/only/include rules add to the shader's
    permutations: list[PermDim] | None = None
    exclude: list[Rule] = Record.factory(list)
    only: list[Rule] = Record.factory(list)
    include: list[dict[str, str]] = Record.factory(list)


class ShaderSpec(DataRecord):
    index: int
    files: list[str]                 # globs relative to the project root
    entries: list[EntrySpec]
    permutations: list[PermDim]
    exclude: list[Rule]
    only: list[Rule]
    include: list[dict[str, str]]
    subdir: str | None
    path: tuple


class Project(DataRecord):
    root: str                        # absolute directory of the project file
    config_path: str
    output_dir: str                  # absolute
    layout: str
    shaders: list[ShaderSpec]
    locator: KeyLocator
    executor: dict = Record.factory(dict)   # [executor] (see distributed_config.py)
    cache: dict = Record.factory(dict)      # [cache]

    def error(self, path: tuple, message: str) -> ConfigError:
        return ConfigError(path, message, self.locator.line_of(path), self.config_path)


# --- loading -------------------------------------------------------------------------------


def find_project_file(start: str) -> str:
    """`start` is the project file itself, or a directory at or below the one holding
    shaderbuild.toml (or a pyproject.toml with [tool.shaderbuild]); the nearest wins, like git."""
    if os.path.isfile(start):
        return os.path.abspath(start)
    directory = os.path.abspath(start)
    while True:
        for name in (PROJECT_FILE, PYPROJECT_FILE):
            candidate = os.path.join(directory, name)
            if os.path.isfile(candidate) and (name == PROJECT_FILE or _has_tool_table(candidate)):
                return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    raise ConfigFileError([ConfigError((), f"no {PROJECT_FILE} (or [tool.shaderbuild] in {PYPROJECT_FILE}) "
                                           f"in {os.path.abspath(start)}", None, os.path.abspath(start))])


def _has_tool_table(path: str) -> bool:
    with open(path, "rb") as f:
        return b"[tool.shaderbuild" in f.read()


def load_project(start: str, *, output_dir: str | None = None) -> Project:
    """Read and validate a project; `output_dir` (from the CLI) overrides the file's."""
    config_path = find_project_file(start)
    with open(config_path, "rb") as f:
        raw = f.read()
    text = raw.decode("utf-8", errors="replace")
    is_pyproject = os.path.basename(config_path) == PYPROJECT_FILE
    prefix = ("tool", "shaderbuild") if is_pyproject else ()
    locator = KeyLocator(text, prefix)

    def fail(errors: Errs) -> ConfigFileError:
        for e in errors:
            e.file = config_path
            if e.line is None:
                e.line = locator.line_of(e.path)
        return ConfigFileError(errors)

    deep = _too_deep(text)
    if deep is not None:
        raise ConfigFileError([ConfigError((), f"arrays or inline tables nested more than {MAX_TOML_NESTING} deep",
                                           deep, config_path)])
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        line = int(m.group(1)) if m else (text.count("\n") or 1) if "end of document" in str(exc) else None
        raise ConfigFileError([ConfigError((), f"TOML syntax error: {exc}", line, config_path)]) from None
    if is_pyproject:
        doc = doc.get("tool", {}).get("shaderbuild", {})
    errs: Errs = []
    backends = known_backends()
    data = build_schema(backends).check(doc, (), errs)
    if errs:
        raise fail(errs)
    root = os.path.dirname(config_path)
    project = _build_model(data, root, config_path, locator, output_dir, errs)
    if errs:
        raise fail(errs)
    return project


def _settings(data: dict, root: str, path: tuple, errs: Errs) -> Settings:
    backends = {}
    for name, opts in data.get("backends", {}).items():
        normalised = {k: _normalise_backend_option(name, k, v, path + ("backends", name, k), errs)
                      for k, v in opts.items()}
        backends[name] = {k: v for k, v in normalised.items() if v is not None}
    return Settings(
        targets=data.get("targets"),
        profile=data.get("profile"),
        defines=data.get("defines", {}),
        include_dirs=[os.path.normpath(os.path.join(root, d)) for d in data.get("include_dirs", [])],
        outputs=data.get("outputs"),
        options={k: v for k, v in data.items() if k in COMMON_OPTIONS and _supported(COMMON_OPTIONS, k, path, errs)},
        backends=backends,
    )


def _shifts(value) -> list[list]:
    """Both spellings of binding_shifts as [class, shift, space-or-None] rows."""
    if isinstance(value, dict):
        return [[cls, value[cls], None] for cls in _SHIFT_CLASSES if cls in value]
    return [[v["class"], v["shift"], None if v.get("space", "all") == "all" else v["space"]] for v in value]


_NORMALISE = {"binding_shifts": _shifts, "shader_model": lambda v: v.replace(".", "_")}


def _supported(table: dict, key: str, path: tuple, errs: Errs) -> bool:
    """An option whose CompileOptions field does not exist (an older compiler) is an error."""
    if table[key][1] in _OPTION_FIELDS:
        return True
    errs.append(ConfigError(path + (key,), f"'{key}' is not supported by this compiler version"))
    return False


def _normalise_backend_option(backend: str, key: str, value, path: tuple, errs: Errs):
    if not _supported(BACKEND_OPTIONS[backend], key, path[:-1], errs):
        return None
    normalise = _NORMALISE.get(key)
    return normalise(value) if normalise else value


def _build_model(data: dict, root: str, config_path: str, locator: KeyLocator, output_override: str | None,
                 errs: Errs) -> Project:
    def err(path: tuple, message: str) -> None:
        errs.append(ConfigError(path, message, locator.line_of(path), config_path))

    if output_override is not None:
        out_dir = os.path.abspath(output_override)
    else:
        out_dir = os.path.normpath(os.path.join(root, data.get("output_dir", DEFAULT_OUTPUT_DIR)))
        if not _inside(out_dir, root) or out_dir == root:
            err(("output_dir",), f"the output directory must be a subdirectory of the project ({root}); "
                                 f"{out_dir} is not (use --output-dir to build elsewhere)")
    top = _settings(data, root, (), errs)
    shaders = []
    for i, sd in enumerate(data.get("shader", [])):
        spath = ("shader", i)
        base = top.merged(_settings(sd, root, spath, errs))
        entries = _entries(sd, base, root, spath, errs)
        perms = _perm_dims(sd.get("permutations", {}), spath + ("permutations",), err)
        if not _permutation_count_ok(perms, sd, data.get("max_permutations", DEFAULT_MAX_PERMUTATIONS),
                                     spath + ("permutations",), err):
            perms = []
        names = {d.name for d in perms}
        rules = _rules(sd, names, spath, err)
        _entry_permutations(sd, entries, perms, err)
        subdir = sd.get("subdir")
        if subdir is not None and (os.path.isabs(subdir) or not _inside(os.path.join(out_dir, subdir), out_dir)):
            err(spath + ("subdir",), f"'{subdir}' points outside the output directory")
        for entry in entries:
            if entry.settings.profile is None:
                err(entry.path, "no 'profile' given for this shader entry (e.g. profile = \"cs_6_0\")")
            if not entry.settings.targets:
                err(entry.path, "no 'targets' given (e.g. targets = [\"spirv\", \"dxil\"])")
        shaders.append(ShaderSpec(
            index=i, files=sd["files"], entries=entries, permutations=perms,
            exclude=[r for r in rules["exclude"] if r], only=[r for r in rules["only"] if r],
            include=[_rule_as_combo(r, spath + ("include", j), err) for j, r in enumerate(rules["include"]) if r],
            subdir=subdir, path=spath,
        ))
    return Project(root=root, config_path=config_path, output_dir=out_dir, layout=data.get("layout", "mirror"),
                   shaders=shaders, locator=locator, executor=data.get("executor", {}), cache=data.get("cache", {}))


def _entries(sd: dict, base: Settings, root: str, spath: tuple, errs: Errs) -> list[EntrySpec]:
    raw = sd.get("entry", "main")
    items = [raw] if isinstance(raw, str) else raw
    out = []
    for j, item in enumerate(items):
        epath = (spath + ("entry",) if "entry" in sd else spath) if isinstance(raw, str) else spath + ("entry", j)
        if isinstance(item, str):
            out.append(EntrySpec(item, base, epath))
        else:
            out.append(EntrySpec(item["name"], base.merged(_settings(item, root, epath, errs)), epath))
    return out


def _rules(table: dict, names: set[str], path: tuple, err) -> dict[str, list]:
    return {key: [_parse_rule(text, names, path + (key, j), err) for j, text in enumerate(table.get(key, []))]
            for key in ("exclude", "only", "include")}


def _entry_permutations(sd: dict, entries: list[EntrySpec], shader_dims: list[PermDim], err) -> None:
    """Fill each [[shader.entry]]'s own permutations and rules (see EntrySpec)."""
    raw = sd.get("entry")
    if not isinstance(raw, list):
        return
    for entry, item in zip(entries, raw):
        if not isinstance(item, dict):
            continue
        if "permutations" in item:
            entry.permutations = _perm_dims(item["permutations"], entry.path + ("permutations",), err)
        dims = entry.permutations if entry.permutations is not None else shader_dims
        rules = _rules(item, {d.name for d in dims}, entry.path, err)
        entry.exclude = [r for r in rules["exclude"] if r]
        entry.only = [r for r in rules["only"] if r]
        entry.include = [_rule_as_combo(r, entry.path + ("include", j), err) for j, r in enumerate(rules["include"]) if r]


# keys of a [[shader]] table: written after `[shader.permutations]` they land in that table (TOML)
_SHADER_KEYS = ("exclude", "only", "include", "files", "entry", "subdir", "profile", "targets", "defines",
                "include_dirs", "outputs")


def _perm_dims(table: dict, path: tuple, err) -> list[PermDim]:
    dims = []
    for name in sorted(table):
        if name in _SHADER_KEYS:
            err(path + (name,), f"'{name}' is a key of the shader table, but it follows the [{'.'.join(map(str, path))}] "
                                f"header, so TOML puts it in the permutations table (a permutation named '{name}'); "
                                f"move it above that header")
            continue
        spec = table[name]
        raw_values, optional = (spec, False) if isinstance(spec, list) else (spec["values"], spec.get("optional", False))
        scratch: Errs = []
        values = [define_value(v, path + (name,), scratch) for v in raw_values]
        bad = [v for v in values if v is not None and _PERM_VALUE_BAD.search(v)]
        if bad:
            err(path + (name,), f"invalid permutation value {bad[0]!r}: values may not contain '=', spaces, "
                                f"path separators or control characters")
            continue
        if not raw_values and not optional:
            err(path + (name,), "a permutation needs at least one value")
            continue
        if len(set(values)) != len(values):
            err(path + (name,), "duplicate permutation values")
            continue
        dims.append(PermDim(name, ((None,) if optional else ()) + tuple(values)))
    return dims


def _permutation_count_ok(dims: list[PermDim], sd: dict, limit: int, path: tuple, err) -> bool:
    """The matrix size, computed before anything is expanded (24 two-value axes once took 3 GB)."""
    count = 1
    for d in dims:
        count *= len(d.values)
    count += len(sd.get("include", []))
    if count <= limit:
        return True
    axes = " x ".join(f"{d.name}({len(d.values)})" for d in dims)
    err(path, f"{count} permutations ({axes}) exceed the limit of {limit} per shader; "
              f"remove axes or raise max_permutations")
    return False


def _too_deep(text: str) -> int | None:
    """The line where arrays/inline tables nest deeper than MAX_TOML_NESTING (strings and comments
    skipped roughly: this only has to find absurd nesting before tomllib recurses into it)."""
    depth, line, quote = 0, 1, ""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
        elif quote:
            if c == "\\" and quote == '"':
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        elif c in "[{":
            depth += 1
            if depth > MAX_TOML_NESTING:
                return line
        elif c in "]}":
            depth = max(0, depth - 1)
        i += 1
    return None


def _parse_rule(text: str, names: set[str], path: tuple, err) -> Rule | None:
    terms = []
    for token in text.split():
        m = _RULE_TOKEN_RE.match(token)
        if not m:
            err(path, f"bad rule term {token!r} (use NAME=value, NAME or !NAME)")
            return None
        neg, name, value = m.groups()
        if name not in names:
            err(path, f"'{name}' is not a permutation define of this shader (have: {', '.join(sorted(names)) or 'none'})")
            return None
        terms.append((name, None if neg else ("*" if value is None else value)))
    if not terms:
        err(path, "empty rule")
        return None
    return Rule(tuple(terms), text)


def _rule_as_combo(rule: Rule, path: tuple, err) -> dict[str, str]:
    combo = {}
    for name, value in rule.terms:
        if value == "*":
            err(path, f"an include combination needs a value for '{name}' (NAME=value)")
        elif value is not None:
            combo[name] = value
    return combo


def _inside(path: str, directory: str) -> bool:
    path, directory = os.path.realpath(path), os.path.realpath(directory)
    return os.path.commonpath([path, directory]) == directory


__all__ = ["BACKEND_OPTIONS", "COMMON_OPTIONS", "ConfigError", "ConfigFileError", "EntrySpec", "PermDim", "Project", "Rule",
           "Settings", "ShaderSpec", "find_project_file", "known_backends", "load_project"]
