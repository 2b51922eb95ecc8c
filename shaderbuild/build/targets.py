"""Planning: shader × entry × permutation × backend → `Target`s with stable ids and paths.

Ids and file-name suffixes are sha256 digests of canonical strings (never
Python's process-salted `hash`), so names are the same on every machine and run.
"""

from __future__ import annotations

import glob
import itertools
import os

from ..options import BindingShift, BindRegister, CompileOptions
from ..records import DataRecord
from .files import sha256_text
from .config import BACKEND_OPTIONS, COMMON_OPTIONS, ConfigError, ConfigFileError, EntrySpec, Project, ShaderSpec

DEFAULT_EXTENSIONS = {"spirv": ".spv", "dxil": ".dxil"}
# Sidecar files are named after the binary: <binary><suffix>.
SIDECAR_SUFFIX = {"manifest": ".json", "disassembly": ".dis", "header": ".h"}
BLOB_SUFFIX = ".blob"


def digest(text: str, n: int = 16) -> str:
    return sha256_text(text)[:n]


def permutation_key(perm: dict[str, str]) -> str:
    """ShaderMake-compatible key: sorted NAME=value joined by spaces ('' when empty)."""
    return " ".join(f"{k}={perm[k]}" for k in sorted(perm))


class Target(DataRecord):
    name: str                 # 'shaders/blur.hlsl:main[MODE=1]@spirv': unique, human-readable
    tid: str                  # digest of name: stable id used in the build database
    source: str               # absolute path
    rel: str                  # source relative to the project root, '/'-separated
    entry: str
    backend: str
    perm: dict[str, str]      # the permutation's defines only
    perm_key: str
    options: CompileOptions
    outputs: dict[str, str]   # kind -> absolute path ('binary', 'manifest', optional extras)
    blob: str | None          # absolute path of the shader's blob, when requested
    group: str                # 'rel:entry@backend': the targets sharing one blob

    @property
    def variant(self) -> str:
        """Target name without the backend: the same shader on several backends shares it."""
        return self.name.rsplit("@", 1)[0]


def expand_permutations(shader: ShaderSpec, entry: EntrySpec | None = None) -> list[dict[str, str]]:
    """Cartesian product of the matrix, filtered by `only`/`exclude`, plus `include` combos; for
    `entry`, its own matrix and rules when it has `permutations`, else the shader's plus its rules."""
    if entry is not None and (entry.permutations is not None or entry.exclude or entry.only or entry.include):
        own = entry.permutations is not None
        shader = ShaderSpec(
            index=shader.index, files=shader.files, entries=shader.entries,
            permutations=entry.permutations if own else shader.permutations,   # type: ignore[arg-type]
            exclude=entry.exclude + ([] if own else shader.exclude), only=entry.only + ([] if own else shader.only),
            include=entry.include + ([] if own else shader.include), subdir=shader.subdir, path=shader.path)
    dims = shader.permutations
    combos: list[dict[str, str]] = []
    for values in itertools.product(*(d.values for d in dims)):
        perm = {d.name: v for d, v in zip(dims, values) if v is not None}
        if shader.only and not any(r.matches(perm) for r in shader.only):
            continue
        if any(r.matches(perm) for r in shader.exclude):
            continue
        combos.append(perm)
    seen = {permutation_key(p) for p in combos}
    for extra in shader.include:
        key = permutation_key(extra)
        if key not in seen:
            seen.add(key)
            combos.append(dict(extra))
    return combos


def _output_base(project: Project, shader: ShaderSpec, rel: str, backend: str) -> str:
    rel_dir, file_name = os.path.split(rel)
    stem = os.path.splitext(file_name)[0]
    if shader.subdir is not None:
        rel_dir = shader.subdir
    elif project.layout == "flat":
        rel_dir = ""
    parts = [project.output_dir]
    if project.layout == "by-backend":
        parts.append(backend)
    while rel_dir == ".." or rel_dir.startswith("../"):  # sources outside the project root
        rel_dir = rel_dir[3:]
    parts.append(rel_dir)
    return os.path.normpath(os.path.join(*parts, stem))


def _extension(backend: str) -> str:
    ext = DEFAULT_EXTENSIONS.get(backend)
    if ext is None:  # a third-party backend: ask its plugin (imports it)
        from ..plugin import get_host

        info = get_host().backends().get(backend)
        ext = info.info.extension if info else f".{backend}"
    return ext


# Backend options whose CompileOptions value is not the TOML value itself.
_TO_OPTION = {
    "binding_shifts": lambda rows, settings: [BindingShift(c, s, sp) for c, s, sp in rows],
    "shader_model": lambda sm, settings: f"{settings.profile.split('_', 1)[0]}_{sm}",   # cs_6_0 -> cs_<sm>
    "bind_registers": lambda rows, settings: [
        BindRegister(r["class"], r["register"], r["space"], r["binding"], r["set"]) for r in rows],
    "bind_globals": lambda table, settings: (table["binding"], table["set"]),
    **{f"bind_{h}_heap": lambda table, settings: (table["binding"], table["set"])
       for h in ("resource", "sampler", "counter")},
}


def _compile_options(settings, entry: str, backend: str, defines: dict[str, str]) -> CompileOptions:
    opts = CompileOptions(entry=entry, profile=settings.profile, target=backend, defines=defines,
                          include_dirs=list(settings.include_dirs))
    for key, value in settings.options.items():
        setattr(opts, COMMON_OPTIONS[key][1], value)
    table = BACKEND_OPTIONS.get(backend, {})
    for key, value in settings.backends.get(backend, {}).items():
        convert = _TO_OPTION.get(key)
        setattr(opts, table[key][1], convert(value, settings) if convert else value)
    return opts


def plan(project: Project, *, backends: list[str] | None = None) -> list[Target]:
    """Every target of the project (optionally only for `backends`), in a deterministic order.

    Raises ConfigFileError for globs matching nothing, duplicate or escaping outputs.
    """
    errors: list[ConfigError] = []
    targets: list[Target] = []
    by_output: dict[str, Target] = {}
    for shader in project.shaders:
        files = _glob(project, shader, errors)
        for source in files:
            rel = os.path.relpath(source, project.root).replace(os.sep, "/")
            for entry in shader.entries:
                perms = expand_permutations(shader, entry)
                settings = entry.settings
                extras = [k for k in (settings.outputs or []) if k != "blob"]
                for backend in settings.targets or []:
                    if backends is not None and backend not in backends:
                        continue
                    base = _output_base(project, shader, rel, backend)
                    if entry.name != "main":
                        base += f"_{entry.name}"
                    binary_path_base = base
                    ext = _extension(backend)
                    group = f"{rel}:{entry.name}@{backend}"
                    blob = base + f".{backend}{BLOB_SUFFIX}" if "blob" in (settings.outputs or []) else None
                    for perm in perms:
                        key = permutation_key(perm)
                        # 64 bits: 32 collided at 2^18 permutations (issue 21)
                        binary = binary_path_base + (f"_{digest(key, 16)}" if key else "") + ext
                        outputs = {"binary": binary, "manifest": binary + SIDECAR_SUFFIX["manifest"]}
                        outputs.update({k: binary + SIDECAR_SUFFIX[k] for k in extras})
                        name = f"{rel}:{entry.name}[{key}]@{backend}" if key else f"{rel}:{entry.name}@{backend}"
                        target = Target(
                            name=name, tid=digest(name), source=source, rel=rel, entry=entry.name,
                            backend=backend, perm=perm, perm_key=key,
                            options=_compile_options(settings, entry.name, backend, {**settings.defines, **perm}),
                            outputs=outputs, blob=blob, group=group,
                        )
                        if not _confined(project, target, entry.path, errors):
                            continue
                        clash = by_output.get(binary)
                        if clash is not None:
                            if clash.name == target.name and clash.options == target.options:
                                continue  # listed twice (overlapping globs): build once
                            errors.append(project.error(entry.path, f"targets {clash.name} and {target.name} would "
                                                                    f"both write {binary}"))
                            continue
                        by_output[binary] = target
                        targets.append(target)
    if errors:
        raise ConfigFileError(_dedupe(errors))
    return targets


def _glob(project: Project, shader: ShaderSpec, errors: list[ConfigError]) -> list[str]:
    found: list[str] = []
    for j, pattern in enumerate(shader.files):
        path = shader.path + ("files",) if len(shader.files) == 1 else shader.path + ("files", j)
        full = os.path.join(project.root, pattern)
        matches = sorted(glob.glob(full, recursive=True)) if glob.has_magic(pattern) else (
            [full] if os.path.isfile(full) else [])
        if not matches:
            errors.append(project.error(path, f"'{pattern}' matches no file"))
        found.extend(os.path.normpath(os.path.abspath(m)) for m in matches if os.path.isfile(m))
    return list(dict.fromkeys(found))


def _confined(project: Project, target: Target, path: tuple, errors: list[ConfigError]) -> bool:
    out = project.output_dir
    for p in [*target.outputs.values(), *([target.blob] if target.blob else [])]:
        if not os.path.normpath(p).startswith(out + os.sep):
            errors.append(project.error(path, f"output {p} of {target.name} is outside the output directory {out}"))
            return False
    return True


def _dedupe(errors: list[ConfigError]) -> list[ConfigError]:
    seen, out = set(), []
    for e in errors:
        key = (e.path, e.message)
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out


def select(targets: list[Target], patterns: list[str] | None) -> list[Target]:
    """Targets whose name, id or source path matches any glob in `patterns` (all when None)."""
    if not patterns:
        return targets
    from fnmatch import fnmatchcase

    def hit(t: Target) -> bool:
        return any(t.tid == p or t.name == p or fnmatchcase(t.name, p) or fnmatchcase(t.rel, p) for p in patterns)

    return [t for t in targets if hit(t)]
