"""What a build tells the tools around it: a Make/Ninja depfile for the whole build (CMake's
`add_custom_command(DEPFILE ...)`, see cmake/ShaderBuild.cmake) and `programs.json`, the
per-program stage visibility of every resource (the stages of one source file and permutation
that use it), for engines that build one root signature / pipeline layout per program."""

from __future__ import annotations

import json
import os

from . import json_text
from .cache import BuildDB
from .config import Project
from .outputs import atomic_write
from .query import dependencies
from .targets import Target

PROGRAMS_FILE = "programs.json"
PROGRAMS_FORMAT = "shaderbuild.programs/1"


def _escape(path: str) -> str:
    return path.replace("$", "$$").replace("#", "\\#").replace(" ", "\\ ")


def write_depfile(path: str, project: Project, targets: list[Target], db: BuildDB | None = None) -> str:
    """Write `path` (a depfile) naming `stamp` = `path` without its `.d` suffix as the target and
    every file the build read (sources, includes, the project file) as its prerequisites; touch the
    stamp.  Ninja requires the depfile's target to be the edge's output: the stamp is that output."""
    db = db or BuildDB.load(project.output_dir, project.root)
    stamp = path[:-2] if path.endswith(".d") else path + ".stamp"
    deps = {os.path.abspath(project.config_path)}
    for t in targets:
        deps.update(dependencies(project, t, db))
    text = f"{_escape(stamp)}: " + " \\\n  ".join(_escape(d) for d in sorted(deps)) + "\n"
    atomic_write(os.path.abspath(path), text.encode())
    with open(stamp, "a"):
        os.utime(stamp)
    return stamp


def program_index(targets: list[Target], read_manifest) -> dict:
    """{program: {...}} where a program is one source file, permutation and backend; each lists its
    entry points per stage and every resource with the stages whose entry point uses it."""
    programs: dict[str, dict] = {}
    for t in sorted(targets, key=lambda t: t.name):
        manifest = read_manifest(t)
        if not isinstance(manifest, dict) or not isinstance(manifest.get("entry") or manifest.get("library"), dict):
            continue        # missing or not a manifest (a failed or foreign build)
        key = f"{t.rel}[{t.perm_key}]@{t.backend}" if t.perm_key else f"{t.rel}@{t.backend}"
        prog = programs.setdefault(key, {"source": t.rel, "permutation": t.perm_key, "backend": t.backend,
                                         "entries": {}, "resources": {}})
        if "library" in manifest:       # a ray-tracing library: each shader is an entry of its kind
            _library_program(prog, manifest["library"].get("shaders", []), manifest.get("resources", []))
            continue
        stage = manifest["entry"].get("stage", "?")
        prog["entries"].setdefault(stage, []).append(t.entry)
        for r in [*manifest.get("resources", []), *manifest.get("push_constants", [])]:
            row = prog["resources"].setdefault(r["name"], {"name": r["name"], "stages": []})
            for view in ("hlsl", "vulkan"):
                if view in r:
                    row[view] = r[view]
            if "hlsl" not in r:
                row["push_constant"] = True
            if r.get("used") and stage not in row["stages"]:
                row["stages"].append(stage)
    for prog in programs.values():
        prog["resources"] = [dict(r, stages=sorted(r["stages"])) for _, r in sorted(prog["resources"].items())]
    return {"format": PROGRAMS_FORMAT, "programs": programs}


def _library_program(prog: dict, shaders: list[dict], resources: list[dict]) -> None:
    """A library's shaders under their kinds, and each resource with the kinds of the shaders using it."""
    for s in shaders:
        prog["entries"].setdefault(s["kind"], []).append(s["name"])
    for r in resources:
        row = prog["resources"].setdefault(r["name"], {"name": r["name"], "stages": []})
        for view in ("hlsl", "vulkan"):
            if view in r:
                row[view] = r[view]
        for s in shaders:
            if r["name"] in s.get("resources", ()) and s["kind"] not in row["stages"]:
                row["stages"].append(s["kind"])


def write_programs(project: Project, targets: list[Target], changed: bool) -> None:
    """Write output_dir/programs.json when the build changed something (or it is missing)."""
    path = os.path.join(project.output_dir, PROGRAMS_FILE)
    if not changed and os.path.exists(path):
        return

    def read(t: Target):
        try:
            with open(t.outputs["manifest"], "rb") as f:
                return json.loads(f.read())
        except (OSError, ValueError):
            return None

    doc = program_index(targets, read)
    atomic_write(path, (json_text.dumps(doc, 1) + "\n").encode())
